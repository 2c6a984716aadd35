/* test_world_summary.c -- the summary of a world's run and the one
 * definition of energy drift (libdynamics/world_summary.c, dyn_run.h),
 * against hand-worked values.
 *
 * Timing rule (the peers'): K = 10 recorded steps with step time k^2 ms and
 * k contacts (k = 1..10); the first K / 5 = 2 are left out: timed steps
 * 3..10, times 9, 16, ..., 100 ms: median (36 + 49) / 2 = 42.5 ms, mean
 * (385 - 1 - 4) / 8 = 47.5 ms; contacts mean 5.5 over all steps, 6.5 over
 * the timed ones, max 10.  Steps 4 and 7 did not converge, step 7 was the
 * fallback's: not_converged 2, fallback_steps 1.
 *
 * Energy drift, (E - E0) / S with S = max(|E0|, M |g| D):
 *   - the function: (9 - 10) / 10 = -0.1, (-9 + 10) / 10 = 0.1, none (NaN)
 *     when S is 0 or NaN;
 *   - the scale, by hand, with g = (0, 0, -10), |g| = 10: balls of 1 and 3
 *     kg at (0, 0, 1) and (3, 4, 1) above a static floor: E0 = 1*10*1 +
 *     3*10*1 = 40 J, M = 4 kg, D = |(3, 4, 0)| = 5 m, M |g| D = 200 J, S =
 *     200 (the floor's position and mass do not count); the same balls at
 *     z = 0 (a layer at rest on the datum): E0 = 0, where (E - E0) / |E0|
 *     is no number at all, and S = 200 still; one ball alone (D = 0): S =
 *     |E0| = 10; no dynamic body: S = |E0|;
 *   - a model and the world built from it give the same S (the pile);
 *   - a run's summary: a stack of 2 boxes released 1 mm apart settles, and
 *     its energy_drift is (E_end - E_start) / S with the S of the start.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "dyn_run.h"
#include "tst_dyn.h"
#include "tst_util.h"
#include "tst_world.h"

static dyn_world *small_stack(void) {
  dyn_world_settings set = dyn_world_settings_default();
  const char *params[1] = { "n=2" };
  dyn_world *w = NULL;
  char msg[256];
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("stack", params, 1, &set, &w, msg, sizeof msg), DYN_OK);
  return w;
}

static void test_timing_rule(void) {
  dyn_world *w = small_stack();
  dyn_run_stats st;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_init(&st, w, 10, err, sizeof err), DYN_OK);
  for (int k = 1; k <= 10; k++) {
    dyn_world_metrics m;
    memset(&m, 0, sizeof m);
    m.step_time_s = 1e-3 * k * k;
    m.collide_time_s = 1e-3;
    m.contacts = k;
    m.status = (k == 4 || k == 7) ? SLV_MAX_ITER : SLV_CONVERGED;
    m.applied = k == 7 ? DYN_APPLIED_FALLBACK : DYN_APPLIED_SOLVER;
    dyn_run_stats_add(&st, &m);
  }
  dyn_run_summary r;
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_summary(&st, w, &r), 0);
  CU_ASSERT_EQUAL(r.steps, 10);
  CU_ASSERT_EQUAL(r.timed_steps, 8);
  CU_ASSERT_DOUBLE_EQUAL(r.time_step_median_s, 42.5e-3, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.time_step_mean_s, 47.5e-3, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.time_collide_mean_s, 1e-3, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(r.contacts_mean, 5.5, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.contacts_mean_timed, 6.5, 1e-12);
  CU_ASSERT_EQUAL(r.contacts_max, 10);
  CU_ASSERT_EQUAL(r.not_converged, 2);
  CU_ASSERT_EQUAL(r.fallback_steps, 1);
  /* the world did not move: no displacement, the start energy at the end */
  CU_ASSERT_DOUBLE_EQUAL(r.max_body_displacement, 0.0, 0.0);
  CU_ASSERT_DOUBLE_EQUAL(r.energy_end, r.energy_start, 1e-12);
  CU_ASSERT(r.energy_start > 0);
  dyn_run_stats_free(&st);
  dyn_world_free(w);
}

/* A real run: what simulate prints is what the stats give (steps, bodies). */
static void test_real_run(void) {
  dyn_world *w = small_stack();
  dyn_run_stats st;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_init(&st, w, 5, err, sizeof err), DYN_OK);
  for (int k = 0; k < 5; k++) {
    dyn_world_metrics m;
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, &m), DYN_OK);
    dyn_run_stats_add(&st, &m);
  }
  dyn_run_summary r;
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_summary(&st, w, &r), 0);
  CU_ASSERT_EQUAL(r.steps, 5);
  CU_ASSERT_EQUAL(r.timed_steps, 4);
  CU_ASSERT_EQUAL(r.bodies, dyn_world_body_count(w));
  CU_ASSERT(r.max_body_displacement > 0); /* the boxes settle */
  CU_ASSERT(r.time_step_median_s > 0);
  dyn_run_stats_free(&st);
  dyn_world_free(w);
}

static void test_no_steps(void) {
  dyn_world *w = small_stack();
  dyn_run_stats st;
  char err[256];
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_init(&st, w, 3, err, sizeof err), DYN_OK);
  dyn_run_summary r;
  CU_ASSERT_EQUAL(dyn_run_stats_summary(&st, w, &r), -1);
  dyn_run_stats_free(&st);
  CU_ASSERT_EQUAL(dyn_run_stats_init(&st, w, 0, err, sizeof err), DYN_ERR_INPUT);
  dyn_world_free(w);
}

static void test_drift_function(void) {
  CU_ASSERT_DOUBLE_EQUAL(dyn_energy_drift(9, 10, 10), -0.1, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(dyn_energy_drift(-9, -10, 10), 0.1, 1e-15);
  CU_ASSERT(isnan(dyn_energy_drift(1, 0, 0)));
  CU_ASSERT(isnan(dyn_energy_drift(1, 0, NAN)));
}

/* Balls of 1 and 3 kg (the second only when two) at height z, a static
 * floor, g = (0, 0, -10). */
static dyn_world *two_balls(double z, int two) {
  dyn_world_settings set = dyn_world_settings_default();
  set.gravity = dyn_v3_make(0, 0, -10);
  char msg[256];
  tst_body a = tst_ball_body(1, 0.5, dyn_v3_make(0, 0, z));
  tst_body b = tst_ball_body(3, 0.5, dyn_v3_make(3, 4, z));
  tst_body floor;
  dyn_shape plane = { .kind = DYN_SHAPE_PLANE, .normal = { 0, 0, 1 } };
  tst_body_init_static(&floor, plane, dyn_v3_make(-7, 9, -2), dyn_quat_identity());
  dyn_model *m = tst_model_new(&set);
  CU_ASSERT_EQUAL_FATAL(tst_model_add_body(m, &a, msg, sizeof msg), 0);
  if (two) CU_ASSERT_EQUAL_FATAL(tst_model_add_body(m, &b, msg, sizeof msg), 1);
  CU_ASSERT_FATAL(tst_model_add_body(m, &floor, msg, sizeof msg) >= 1);
  dyn_world *w = tst_world_new(m, &set);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  return w;
}

static void test_drift_scale(void) {
  dyn_world *w = two_balls(1, 1);
  double E0 = dyn_world_energy(w, NULL, NULL);
  CU_ASSERT_DOUBLE_EQUAL(E0, 40, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dyn_world_drift_scale(w, E0), 200, 1e-12);
  dyn_world_free(w);
  /* at rest on the datum: E0 = 0, the scale stays the scene's */
  w = two_balls(0, 1);
  E0 = dyn_world_energy(w, NULL, NULL);
  CU_ASSERT_DOUBLE_EQUAL(E0, 0, 0);
  CU_ASSERT_DOUBLE_EQUAL(dyn_world_drift_scale(w, E0), 200, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(dyn_energy_drift(2, E0, 200), 0.01, 1e-15);
  dyn_world_free(w);
  /* one ball: no extent, |E0| */
  w = two_balls(1, 0);
  E0 = dyn_world_energy(w, NULL, NULL);
  CU_ASSERT_DOUBLE_EQUAL(dyn_world_drift_scale(w, E0), 10, 1e-12);
  dyn_world_free(w);
  /* no dynamic body */
  dyn_world_settings set = dyn_world_settings_default();
  w = tst_world_new(tst_model_new(&set), &set);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_DOUBLE_EQUAL(dyn_world_drift_scale(w, -3), 3, 0);
  dyn_world_free(w);
}

static void test_model_scale(void) {
  const char *params[1] = { "n=20" };
  dyn_model *m = NULL;
  dyn_world *w = NULL;
  char msg[256];
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("pile", params, 1, &m, msg, sizeof msg), DYN_OK);
  dyn_world_settings set = dyn_world_settings_default();
  CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, &set, &w, msg, sizeof msg), DYN_OK);
  double E0 = dyn_world_energy(w, NULL, NULL);
  double S = dyn_world_drift_scale(w, E0);
  CU_ASSERT(S > fabs(E0)); /* a pile's extent: M |g| D */
  CU_ASSERT_EQUAL(dyn_model_drift_scale(m, E0), S);
  dyn_world_free(w);
  dyn_model_free(m);
}

/* A run's drift is the one definition, with the start's scale. */
static void test_summary_drift(void) {
  dyn_world *w = small_stack();
  dyn_run_stats st;
  char err[256];
  double E0 = dyn_world_energy(w, NULL, NULL), S = dyn_world_drift_scale(w, E0);
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_init(&st, w, 30, err, sizeof err), DYN_OK);
  for (int k = 0; k < 30; k++) {
    dyn_world_metrics m;
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, &m), DYN_OK);
    dyn_run_stats_add(&st, &m);
  }
  dyn_run_summary r;
  CU_ASSERT_EQUAL_FATAL(dyn_run_stats_summary(&st, w, &r), 0);
  CU_ASSERT_EQUAL(r.energy_start, E0);
  CU_ASSERT_EQUAL(r.energy_drift, (r.energy_end - E0) / S);
  CU_ASSERT(isfinite(r.energy_drift) && r.energy_drift != 0);
  dyn_run_stats_free(&st);
  dyn_world_free(w);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("run summaries and energy drift", NULL, NULL);
  CU_add_test(s, "the peers' timing rule, hand example", test_timing_rule);
  CU_add_test(s, "a real run of a stack", test_real_run);
  CU_add_test(s, "no step, no steps planned", test_no_steps);
  CU_add_test(s, "the drift, hand values", test_drift_function);
  CU_add_test(s, "the drift's scale, hand values", test_drift_scale);
  CU_add_test(s, "a model's scale is its world's", test_model_scale);
  CU_add_test(s, "a run's drift", test_summary_drift);
  return tst_run();
}
