/* test_world_jacobian_reduced.c -- a world in reduced coordinates: its
 * state saved and restored (dyn_world_save_state / restore: the tree's q
 * and u are the state there, libdynamics/world_state.c), and the
 * derivative of its step (dyn_world_step_jacobian in joint space,
 * libdynamics/world_jacobian_reduced.c; docs/gradients.md, "Through a world
 * step") against central finite differences of the step itself from a
 * saved state: a ragdoll on the floor (contacts, hinge and ball joints,
 * limits) and a cube on a slope (a free root: three slides and a ball),
 * sliding and sticking; the actuators' controls (dyn_world_step_jacobian_ctrl)
 * of the ragdoll with motors and a fixed tendon on its elbows and knees.
 */
#include "dyn_model.h"
#include "dyn_redmax.h"
#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"
#include "world_data.h"
#include "world_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scene name (one parameter or none) in reduced coordinates, solver. */
static dyn_world *reduced_scene(const char *name, const char *p1, const char *solver) {
  dyn_world_settings s = dyn_world_settings_default();
  char msg[512] = "";
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "solver", solver, msg, sizeof msg) > 0);
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "friction", "box", msg, sizeof msg) > 0);
  s.coordinates = DYN_COORDINATES_REDUCED;
  dyn_model *m = NULL;
  const char *params[1] = { p1 };
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model(name, params, p1 ? 1 : 0, &m, msg, sizeof msg), DYN_OK);
  dyn_world *w = NULL;
  dyn_err e = dyn_world_new_from_model(m, &s, &w, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s: %s\n", name, msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  dyn_model_free(m);
  return w;
}

/* The bodies' r, q, v, w after `steps` steps. */
static void run_bodies(dyn_world *w, int steps, double *out) {
  for (int k = 0; k < steps; k++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  for (int i = 0; i < dyn_world_body_count(w); i++)
    dyn_body_get_state(&dyn_world_body_states(w)[i], out + DYN_BODY_STATE * (size_t)i);
}

/* Restoring a saved state then stepping repeats the steps bit for bit:
 * before the fix the tree's state was not saved, the restored world
 * stepped on from where it was. */
static void test_restore_repeats_steps(void) {
  dyn_world *w = reduced_scene("ragdoll", NULL, "dantzig");
  for (int k = 0; k < 40; k++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  const int nb = dyn_world_body_count(w);
  double *a = malloc(2 * (size_t)nb * DYN_BODY_STATE * sizeof *a), *b = a + nb * DYN_BODY_STATE;
  run_bodies(w, 20, a);
  CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
  run_bodies(w, 20, b);
  CU_ASSERT_EQUAL(memcmp(a, b, (size_t)nb * DYN_BODY_STATE * sizeof *a), 0);
  free(a);
  free(buf);
  dyn_world_free(w);
}

/* The tangent difference of the tree's positions q1 - q0 (one per dof:
 * the header of world_jacobian_reduced.c), into out[ndof]. */
static void tangent_diff(const dyn_redmax *rm, const double *q1, const double *q0, double *out) {
  for (int b = 0; b < dyn_redmax_nbodies(rm); b++) {
    int qo, uo, kind = dyn_redmax_joint_kind(rm, b);
    dyn_redmax_offsets(rm, b, &qo, &uo);
    if (kind == DYN_RM_HINGE || kind == DYN_RM_SLIDE) out[uo] = q1[qo] - q0[qo];
    if (kind != DYN_RM_BALL) continue;
    dyn_quat a = dyn_quat_make(q0[qo], q0[qo + 1], q0[qo + 2], q0[qo + 3]);
    dyn_quat c = dyn_quat_make(q1[qo], q1[qo + 1], q1[qo + 2], q1[qo + 3]);
    dyn_quat d = dyn_quat_mul(dyn_quat_conj(a), c); /* Q1 = Q0 d */
    double sn = sqrt(d.x * d.x + d.y * d.y + d.z * d.z), ang = 2.0 * atan2(sn, d.w);
    double f = sn > 1e-300 ? ang / sn : 2.0;
    out[uo] = f * d.x, out[uo + 1] = f * d.y, out[uo + 2] = f * d.z;
  }
}

/* One step from the state in buf, the joint velocity (force = 0) or body
 * load (force = 1) k moved by e: the tree's u and q after it. */
static void step_moved(dyn_world *w, const void *buf, size_t size, int k, int force, double e,
                       double *u, double *q) {
  dyn_redmax *rm = dyn_reduced_redmax(w);
  CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
  if (force) {
    dyn_body_state *b = &dyn_world_body_states(w)[k / 6];
    dyn_v3 *l = k % 6 < 3 ? &b->f_ext : &b->t_ext;
    double *x = k % 3 == 0 ? &l->x : k % 3 == 1 ? &l->y : &l->z;
    *x += e;
  } else {
    dyn_redmax_get_state(rm, q, u);
    u[k] += e;
    CU_ASSERT_EQUAL_FATAL(dyn_redmax_set_state(rm, NULL, u, NULL, 0), DYN_OK);
  }
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  dyn_redmax_get_state(rm, q, u);
}

/* The largest |J - FD| / max(1, max |FD|) of the velocities (Jv) and the
 * positions (Jq), nv x nc, inputs velocities or loads. */
static void fd_errors(dyn_world *w, const void *buf, size_t size, const double *Jv,
                      const double *Jq, int nc, int force, double *ev, double *eq) {
  dyn_redmax *rm = dyn_reduced_redmax(w);
  const int nv = dyn_redmax_ndof(rm), nq = dyn_redmax_nq(rm);
  double *up = malloc((2 * (size_t)nv + 2 * (size_t)nq + (size_t)nv) * sizeof *up);
  double *um = up + nv, *qp = um + nv, *qm = qp + nq, *dq = qm + nq, bv = 1.0, bq = 1.0;
  double *Fv = malloc(2 * (size_t)nv * nc * sizeof *Fv), *Fq = Fv + (size_t)nv * nc;
  const double e = 1e-6;
  for (int k = 0; k < nc; k++) {
    step_moved(w, buf, size, k, force, e, up, qp);
    step_moved(w, buf, size, k, force, -e, um, qm);
    tangent_diff(rm, qp, qm, dq);
    for (int r = 0; r < nv; r++) {
      Fv[(size_t)r * nc + k] = (up[r] - um[r]) / (2 * e);
      Fq[(size_t)r * nc + k] = dq[r] / (2 * e);
      bv = fmax(bv, fabs(Fv[(size_t)r * nc + k]));
      bq = fmax(bq, fabs(Fq[(size_t)r * nc + k]));
    }
  }
  *ev = *eq = 0.0;
  for (size_t i = 0; i < (size_t)nv * nc; i++) {
    *ev = fmax(*ev, fabs(Jv[i] - Fv[i]) / bv);
    *eq = fmax(*eq, fabs(Jq[i] - Fq[i]) / bq);
  }
  free(up);
  free(Fv);
}

/* warm steps, the state saved, one step, its four Jacobians against FD. */
static void check_reduced(dyn_world *w, int warm, const char *label, dyn_step_jacobian_info *in) {
  char msg[600] = "";
  for (int i = 0; i < warm; i++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  const int nv = dyn_world_step_jacobian_size(w), nf = dyn_world_step_jacobian_force_size(w);
  CU_ASSERT_EQUAL_FATAL(nv, dyn_redmax_ndof(dyn_reduced_redmax(w)));
  CU_ASSERT_EQUAL_FATAL(nf, 6 * dyn_world_body_count(w));
  double *Ju = malloc(2 * (size_t)nv * (nv + nf) * sizeof *Ju), *Jf = Ju + (size_t)nv * nv;
  double *Qu = Jf + (size_t)nv * nf, *Qf = Qu + (size_t)nv * nv;
  dyn_err e = dyn_world_step_jacobian(w, Ju, Jf, Qu, Qf, in, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s: %s\n", label, msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  double evu, equ, evf, eqf;
  fd_errors(w, buf, size, Ju, Qu, nv, 0, &evu, &equ);
  fd_errors(w, buf, size, Jf, Qf, nf, 1, &evf, &eqf);
  printf("\n    %s: %d dofs, %d rows (%d free, %d at a bound): du %.2g dq/du %.2g df %.2g dq/df "
         "%.2g",
         label, nv, in->rows, in->free, in->lower + in->upper, evu, equ, evf, eqf);
  CU_ASSERT(evu < 1e-6);
  CU_ASSERT(equ < 1e-6);
  CU_ASSERT(evf < 1e-6);
  CU_ASSERT(eqf < 1e-6);
  free(Ju);
  free(buf);
}

static void test_ragdoll_against_fd(void) {
  dyn_world *w = reduced_scene("ragdoll", NULL, "dantzig");
  dyn_step_jacobian_info in;
  check_reduced(w, 100, "ragdoll", &in);
  CU_ASSERT(in.rows > 0);
  dyn_world_free(w);
}

/* A cube on a slope (a free root: three slides and a ball; four redundant
 * contacts, the free block regularised), sliding (mu 0.3 < tan 30 deg)
 * and sticking (mu 0.9).  Lemke: dantzig's answers on these redundant
 * contacts move between the four contacts under the FD step (the impulses
 * are not unique, and the friction bounds follow the normal ones), and the
 * FD then differs from the least-norm limit by 1e-4 in the force columns. */
static void test_incline_against_fd(void) {
  dyn_step_jacobian_info in;
  dyn_world *w = reduced_scene("incline", "mu=0.3", "lemke");
  check_reduced(w, 5, "incline sliding", &in);
  CU_ASSERT(in.upper + in.lower > 4);
  CU_ASSERT(in.regularized > 0.0);
  dyn_world_free(w);
  w = reduced_scene("incline", "mu=0.9", "lemke");
  check_reduced(w, 5, "incline sticking", &in);
  dyn_world_free(w);
}

/* ---- the controls' derivative (dyn_world_step_jacobian_ctrl) ---------------- */

/* The actuated ragdoll's six actuators: motors of gear 2 and of gear 1 on
 * the left elbow, a motor on the right knee clamped to [-0.5, 0.5], motors
 * on the right elbow and the left knee, and a fixed tendon over those two
 * (coefficients 1 and -0.5, gear 0.8). */
#define RAGDOLL_NCTRL 6
static void add_motor(dyn_model *m, const char *name, const char *j1, const char *j2, double gear,
                      double lim) {
  dyn_actuator_def a;
  char msg[256] = "";
  memset(&a, 0, sizeof a);
  snprintf(a.name, sizeof a.name, "%s", name);
  a.njoints = j2 ? 2 : 1, a.gear = gear, a.gain = 1.0;
  a.joint[0] = dyn_model_find_joint(m, j1), a.coef[0] = 1.0;
  if (j2) a.joint[1] = dyn_model_find_joint(m, j2), a.coef[1] = -0.5;
  a.ctrl_limited = lim > 0.0, a.ctrl_lo = -lim, a.ctrl_hi = lim;
  CU_ASSERT_FATAL(dyn_model_add_actuator(m, &a, msg, sizeof msg) >= 0);
}

static dyn_world *actuated_ragdoll(void) {
  dyn_world_settings s = dyn_world_settings_default();
  char msg[512] = "";
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "solver", "dantzig", msg, sizeof msg) > 0);
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "friction", "box", msg, sizeof msg) > 0);
  s.coordinates = DYN_COORDINATES_REDUCED;
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("ragdoll", NULL, 0, &m, msg, sizeof msg), DYN_OK);
  add_motor(m, "gear2", "elbow_l", NULL, 2.0, 0.0);
  add_motor(m, "gear1", "elbow_l", NULL, 1.0, 0.0);
  add_motor(m, "clamped", "knee_r", NULL, 1.0, 0.5);
  add_motor(m, "elbow_r", "elbow_r", NULL, 1.0, 0.0);
  add_motor(m, "knee_l", "knee_l", NULL, 1.0, 0.0);
  add_motor(m, "tendon", "elbow_r", "knee_l", 0.8, 0.0);
  dyn_world *w = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, &s, &w, msg, sizeof msg), DYN_OK);
  dyn_model_free(m);
  return w;
}

/* Fc, Fq (nv x nc) = central differences of u+ and of the positions
 * (tangent_diff) over the controls c0, each moved by 1e-6 in turn, one
 * step from the state in buf. */
static void ctrl_fd(dyn_world *w, const void *buf, size_t size, const double *c0, double *Fc,
                    double *Fq) {
  dyn_redmax *rm = dyn_reduced_redmax(w);
  const int nv = dyn_redmax_ndof(rm), nq = dyn_redmax_nq(rm), nc = RAGDOLL_NCTRL;
  double *u = malloc((3 * (size_t)nv + 2 * (size_t)nq) * sizeof *u), *q = u + 2 * nv;
  double *dq = q + 2 * nq, c[RAGDOLL_NCTRL];
  const double e = 1e-6;
  for (int k = 0; k < nc; k++) {
    for (int s = 0; s < 2; s++) {
      memcpy(c, c0, sizeof c);
      c[k] += s ? -e : e;
      CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
      CU_ASSERT_EQUAL_FATAL(dyn_world_set_ctrl(w, c, nc), DYN_OK);
      CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
      dyn_redmax_get_state(rm, q + s * nq, u + s * nv);
    }
    tangent_diff(rm, q, q + nq, dq);
    for (int r = 0; r < nv; r++) {
      Fc[(size_t)r * nc + k] = (u[r] - u[nv + r]) / (2 * e);
      Fq[(size_t)r * nc + k] = dq[r] / (2 * e);
    }
  }
  free(u);
}

/* The largest |J[:, a] - f J[:, b] - g J[:, c]| over the largest |J|: the
 * columns of actuators that act on the same joints (g 0: c unused). */
static double column_relation(const double *J, int nv, int nc, int a, double f, int b, double g,
                              int c) {
  double d = 0.0, big = 1e-300;
  for (int r = 0; r < nv; r++) {
    const double *row = J + (size_t)r * nc;
    d = fmax(d, fabs(row[a] - f * row[b] - (g != 0.0 ? g * row[c] : 0.0)));
    for (int k = 0; k < nc; k++) big = fmax(big, fabs(row[k]));
  }
  return d / big;
}

/* The largest |J[:, k]| of column k. */
static double column_size(const double *J, int nv, int nc, int k) {
  double m = 0.0;
  for (int r = 0; r < nv; r++) m = fmax(m, fabs(J[(size_t)r * nc + k]));
  return m;
}

/* The largest |A - B| over max(1, max |B|), n entries. */
static double fd_error(const double *A, const double *B, size_t n) {
  double err = 0.0, big = 1.0;
  for (size_t i = 0; i < n; i++) big = fmax(big, fabs(B[i]));
  for (size_t i = 0; i < n; i++) err = fmax(err, fabs(A[i] - B[i]) / big);
  return err;
}

/* d u+ / d ctrl and d q+ / d ctrl of the actuated ragdoll lying on the
 * floor against central differences of the step from a saved state, each
 * control moved through dyn_world_set_ctrl; the gear-2 column twice the
 * gear-1 one on the same elbow, the tendon's column 0.8 (elbow_r - 0.5
 * knee_l), the clamped motor's column zero beyond its clamp.  The
 * derivative takes its free-velocity part by differences too: the column
 * relations hold to its rounding, 1e-9. */
static void test_ctrl_against_fd(void) {
  dyn_world *w = actuated_ragdoll();
  const double c0[RAGDOLL_NCTRL] = { 0.3, -0.2, 0.8, 0.25, -0.4, 0.15 };
  char msg[600] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_world_ctrl_count(w), RAGDOLL_NCTRL);
  CU_ASSERT_EQUAL_FATAL(dyn_world_set_ctrl(w, c0, RAGDOLL_NCTRL), DYN_OK);
  for (int i = 0; i < 100; i++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  const int nv = dyn_world_step_jacobian_size(w), nc = RAGDOLL_NCTRL;
  const size_t n = (size_t)nv * nc;
  double *J = malloc(4 * n * sizeof *J), *Q = J + n, *F = Q + n, *G = F + n;
  dyn_err e = dyn_world_step_jacobian_ctrl(w, J, Q, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  ctrl_fd(w, buf, size, c0, F, G);
  double ev = fd_error(J, F, n), eq = fd_error(Q, G, n);
  double gear = column_relation(J, nv, nc, 0, 2.0, 1, 0.0, 0);
  double tendon = column_relation(J, nv, nc, 5, 0.8, 3, -0.4, 4);
  printf(
      "\n    ragdoll, %d dofs, 6 actuators: du/dctrl %.2g, dq/dctrl %.2g, gear %.2g, tendon %.2g",
      nv, ev, eq, gear, tendon);
  CU_ASSERT(ev < 1e-6);
  CU_ASSERT(eq < 1e-6);
  CU_ASSERT(gear < 1e-7);
  CU_ASSERT(tendon < 1e-7);
  CU_ASSERT_EQUAL(column_size(J, nv, nc, 2), 0.0); /* beyond its clamp */
  for (int k = 0; k < nc; k++)
    if (k != 2) CU_ASSERT(column_size(J, nv, nc, k) > 1e-3);
  free(J);
  free(buf);
  dyn_world_free(w);
}

/* A maximal world's state restored into the same model's reduced world
 * (and back) is refused, naming the reduced coordinates; nothing changes. */
static void test_restore_across_coordinates_refused(void) {
  dyn_world *r = reduced_scene("pendulum", NULL, "dantzig");
  dyn_world_settings st = dyn_world_settings_default();
  dyn_model *m = NULL;
  dyn_world *x = NULL;
  char msg[512] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("pendulum", NULL, 0, &m, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, &st, &x, msg, sizeof msg), DYN_OK);
  dyn_world *from[2] = { x, r }, *to[2] = { r, x };
  for (int k = 0; k < 2; k++) {
    size_t size = dyn_world_state_size(from[k]);
    void *buf = malloc(size);
    CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(from[k], buf, size), DYN_OK);
    double before = dyn_world_body_states(to[k])[0].r.x;
    CU_ASSERT_EQUAL(dyn_world_restore_state(to[k], buf, size), DYN_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(dyn_world_message(to[k]), "reduced coordinates"));
    CU_ASSERT_EQUAL(dyn_world_body_states(to[k])[0].r.x, before);
    free(buf);
  }
  dyn_world_free(x);
  dyn_world_free(r);
  dyn_model_free(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("reduced world: state and step jacobian", NULL, NULL);
  CU_add_test(s, "a restored state repeats the steps", test_restore_repeats_steps);
  CU_add_test(s, "a state of the other coordinates is refused",
              test_restore_across_coordinates_refused);
  CU_add_test(s, "ragdoll on the floor: step jacobian against FD", test_ragdoll_against_fd);
  CU_add_test(s, "cube on a slope (a free root), sliding and sticking: against FD",
              test_incline_against_fd);
  CU_add_test(s, "actuated ragdoll: d u+ / d ctrl against FD, gears, tendon, clamp",
              test_ctrl_against_fd);
  return tst_run();
}
