/* test_world_jacobian.c -- the derivative of a world step
 * (dyn_world_step_jacobian, libdynamics/world_jacobian.c; docs/gradients.md,
 * "Through a world step") against central finite differences of the step
 * itself, restarted from a saved state (dyn_world_save_state / restore):
 * a hinged pendulum (joint rows, all free), a cube sliding down a slope
 * and one sticking on it (box friction, four redundant contacts: the free
 * block is singular and regularised), a sphere resting within the margin
 * above the floor (a separated contact); the refusals; and a state saved
 * before the first step, which restores.
 */
#include "dyn_model.h"
#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* scene name with one param (or none), lemke, box friction, gyro g. */
static dyn_world *scene(const char *name, const char *p1, const char *p2, const char *gyro) {
  dyn_world_settings s = dyn_world_settings_default();
  char msg[512];
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "solver", "lemke", msg, sizeof msg) > 0);
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "friction", "box", msg, sizeof msg) > 0);
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "gyro", gyro, msg, sizeof msg) > 0);
  const char *params[2] = { p1, p2 };
  dyn_world *w = NULL;
  int np = p1 ? (p2 ? 2 : 1) : 0;
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new(name, params, np, &s, &w, msg, sizeof msg), DYN_OK);
  return w;
}

/* The velocities (6 per body) of w now. */
static void velocities(dyn_world *w, double *u) {
  const dyn_body_state *b = dyn_world_body_states(w);
  for (int i = 0; i < dyn_world_body_count(w); i++) {
    const double v[6] = { b[i].v.x, b[i].v.y, b[i].v.z, b[i].w.x, b[i].w.y, b[i].w.z };
    memcpy(u + 6 * i, v, sizeof v);
  }
}

static double *slot(dyn_body_state *b, int d, int force) {
  dyn_v3 *v = force ? (d < 3 ? &b->f_ext : &b->t_ext) : (d < 3 ? &b->v : &b->w);
  return d % 3 == 0 ? &v->x : d % 3 == 1 ? &v->y : &v->z;
}

/* The largest |J - FD| over max(1, max|FD|), FD the central differences
 * (step 1e-6) of the velocities after one step from the state in buf,
 * the input k (velocity, or force when force) of each dynamic body moved. */
static double fd_error(dyn_world *w, const void *buf, size_t size, const double *J, int force) {
  const int nb = dyn_world_body_count(w), nv = 6 * nb;
  double *up = malloc(2 * (size_t)nv * sizeof *up), *um = up + nv, err = 0.0, big = 1.0;
  double *col = malloc((size_t)nv * (size_t)nv * sizeof *col);
  const double e = 1e-6;
  for (int k = 0; k < nv; k++) {
    for (int sg = 0; sg < 2; sg++) {
      CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
      dyn_body_state *b = &dyn_world_body_states(w)[k / 6];
      if (!dyn_world_body_consts(w)[k / 6].is_static) *slot(b, k % 6, force) += sg ? -e : e;
      CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
      velocities(w, sg ? um : up);
    }
    const int stat = dyn_world_body_consts(w)[k / 6].is_static;
    for (int r = 0; r < nv; r++) {
      col[(size_t)r * nv + k] = stat ? 0.0 : (up[r] - um[r]) / (2 * e);
      big = fmax(big, fabs(col[(size_t)r * nv + k]));
    }
  }
  for (size_t i = 0; i < (size_t)nv * nv; i++) err = fmax(err, fabs(J[i] - col[i]));
  free(up);
  free(col);
  return err / big;
}

/* warm steps, the state saved, one step, its Jacobians against FD. */
static void check_scene(dyn_world *w, int warm, const char *label, dyn_step_jacobian_info *info) {
  char msg[600];
  for (int i = 0; i < warm; i++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  const int nv = dyn_world_step_jacobian_size(w);
  CU_ASSERT_EQUAL_FATAL(nv, 6 * dyn_world_body_count(w));
  double *Ju = malloc(2 * (size_t)nv * nv * sizeof *Ju), *Jf = Ju + (size_t)nv * nv;
  dyn_err e = dyn_world_step_jacobian(w, Ju, Jf, NULL, NULL, info, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s: %s\n", label, msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  double eu = fd_error(w, buf, size, Ju, 0), ef = fd_error(w, buf, size, Jf, 1);
  if (eu > 1e-6 || ef > 1e-6) printf("\n    %s: du %.3g df %.3g\n", label, eu, ef);
  CU_ASSERT(eu < 1e-6);
  CU_ASSERT(ef < 1e-6);
  free(Ju);
  free(buf);
}

static void test_pendulum(void) {
  dyn_world *w = scene("pendulum", "angle_deg=30", NULL, "implicit");
  dyn_step_jacobian_info in;
  check_scene(w, 3, "pendulum", &in);
  /* a hinge: 5 bilateral rows, all free, no regularisation */
  CU_ASSERT_EQUAL(in.rows, 5);
  CU_ASSERT_EQUAL(in.free, 5);
  CU_ASSERT_EQUAL(in.regularized, 0.0);
  dyn_world_free(w);
}

static void test_slope_sliding_and_sticking(void) {
  dyn_step_jacobian_info in;
  /* tan 30 deg = 0.577 > mu = 0.3: the cube slides, tangent rows at a bound */
  dyn_world *w = scene("incline", "mu=0.3", NULL, "implicit");
  check_scene(w, 5, "incline sliding", &in);
  CU_ASSERT(in.upper + in.lower > 4);
  CU_ASSERT(in.regularized > 0.0);
  dyn_world_free(w);
  /* mu = 0.9 > 0.577: the cube sticks */
  w = scene("incline", "mu=0.9", NULL, "explicit");
  check_scene(w, 5, "incline sticking", &in);
  dyn_world_free(w);
}

static void test_separated_sphere(void) {
  /* 1 mm above the floor, inside the 2 mm margin: a speculative row whose
   * gap (1 mm / h = 0.12 m/s) exceeds the fall of one step (g h = 0.08) */
  dyn_world *w = scene("ball", "height=0.101", "restitution=0", "implicit");
  dyn_step_jacobian_info in;
  check_scene(w, 0, "separated sphere", &in);
  CU_ASSERT(in.rows >= 1);
  CU_ASSERT_EQUAL(in.free, 0);
  dyn_world_free(w);
}

static void test_refusals(void) {
  char msg[600];
  dyn_world *w = scene("pendulum", NULL, NULL, "implicit");
  double J[36 * 4];
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(w, J, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no step with rows"));
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(NULL, J, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  DYN_ERR_INPUT);
  /* after a restore the last problem is gone: refused again */
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(w, J, NULL, NULL, NULL, NULL, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(w, J, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  DYN_ERR_INPUT);
  free(buf);
  dyn_world_free(w);
  /* reduced coordinates: a hinge, one joint velocity; before a step with
   * rows refused like maximal (test_world_jacobian_reduced.c: the rest) */
  dyn_model *m = NULL;
  dyn_world_settings s = dyn_world_settings_default();
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("pendulum", NULL, 0, &m, msg, sizeof msg), DYN_OK);
  s.coordinates = DYN_COORDINATES_REDUCED;
  CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, &s, &w, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_step_jacobian_size(w), 1);
  CU_ASSERT_EQUAL(dyn_world_step_jacobian_force_size(w), 6 * dyn_world_body_count(w));
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(w, J, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no step with rows"));
  dyn_world_free(w);
  dyn_model_free(m);
}

/* A state saved before the first step (no contact kept yet) restores:
 * refused as "a broken or short state" before the fix. */
static void test_state_before_first_step(void) {
  dyn_world *w = scene("ball", NULL, NULL, "implicit");
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_restore_state(w, buf, size), DYN_OK);
  free(buf);
  dyn_world_free(w);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("world step jacobian", NULL, NULL);
  CU_add_test(s, "a state saved before the first step restores", test_state_before_first_step);
  CU_add_test(s, "pendulum: joint rows against FD", test_pendulum);
  CU_add_test(s, "cube on a slope, sliding and sticking, against FD",
              test_slope_sliding_and_sticking);
  CU_add_test(s, "sphere within the margin: separated, against FD", test_separated_sphere);
  CU_add_test(s, "refusals", test_refusals);
  return tst_run();
}
