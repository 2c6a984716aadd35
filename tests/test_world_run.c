/* test_world_run.c -- the run of a world (libdynamics/world_run.c):
 * dyn_world_run and the applied label every caller records.
 *
 * What is checked, and how:
 *   - the loop: a 2-layer box pyramid stepped 20 times calls the callback 20
 *     times with k = 1..20, each record's status and applied label equal to
 *     what the world's own metrics say (a second world, stepped by hand with
 *     the same settings, gives the same metrics bit for bit: the loop adds
 *     nothing to a step); a step with no rows says "none", one with rows
 *     and a converged solve "solver";
 *   - the run's drift baseline: every record carries the energy before
 *     the run's first step and dyn_world_drift_scale of that state (the
 *     hand-stepped world's, read before its first step and again before
 *     the continued run's);
 *   - a run continued: k counts on from the world's step count;
 *   - the callback's stop: returning 7 at step 3 ends the run there with 7,
 *     3 calls, *done = 3;
 *   - a rejected step: lemke with a budget of 12 pivots under on_failure
 *     stop on the pyramid fails a step; the run ends with -1, the rejected
 *     record is the last call, with the failed solve's status (not
 *     "converged", not "failed": the world kept the solve) and applied
 *     "none", and *done is one less than its k;
 *   - the label of a fallback step, from metrics made by hand:
 *     "fallback:NAME", and "fallback:?" without a name.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "dyn_run.h"

typedef struct seen {
  int calls;
  long k[64];
  char applied[64][48];
  char status[64][32];
  dyn_err err[64];
  int rows[64];
  double res[64];
  double e0[64], scale[64];
  int stop_at; /* return 7 at this k (0: never) */
} seen;

static int keep(void *ctx, dyn_world *w, const dyn_run_step *st) {
  (void)w;
  seen *s = ctx;
  if (s->calls < 64) {
    int i = s->calls;
    s->k[i] = st->k;
    snprintf(s->applied[i], sizeof s->applied[i], "%s", st->applied);
    snprintf(s->status[i], sizeof s->status[i], "%s", st->status);
    s->err[i] = st->err;
    s->rows[i] = st->m.rows;
    s->res[i] = st->m.res_nat_inf;
    s->e0[i] = st->energy0;
    s->scale[i] = st->drift_scale;
  }
  s->calls++;
  return s->stop_at && st->k == s->stop_at ? 7 : 0;
}

static dyn_world *pyramid(const char *solver, int pivots, dyn_failure_policy pol) {
  dyn_world_settings set = dyn_world_settings_default();
  snprintf(set.solver, sizeof set.solver, "%s", solver);
  if (pivots > 0) set.opt.max_pivots = pivots;
  set.on_failure = pol;
  const char *params[1] = { "layers=2" };
  dyn_world *w = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("pyramid", params, 1, &set, &w, msg, sizeof msg), DYN_OK);
  return w;
}

static void test_loop_matches_the_world(void) {
  dyn_world *w = pyramid("lemke", 0, DYN_ON_FAILURE_FALLBACK);
  dyn_world *ref = pyramid("lemke", 0, DYN_ON_FAILURE_FALLBACK);
  seen s;
  memset(&s, 0, sizeof s);
  long done = -1;
  double E0 = dyn_world_energy(ref, NULL, NULL), S = dyn_world_drift_scale(ref, E0);
  CU_ASSERT(S > 0);
  CU_ASSERT_EQUAL(dyn_world_run(w, 20, keep, &s, &done), 0);
  CU_ASSERT_EQUAL(s.calls, 20);
  CU_ASSERT_EQUAL(done, 20);
  int none = 0, solver = 0;
  for (int i = 0; i < 20 && i < s.calls; i++) {
    dyn_world_metrics m;
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(ref, &m), DYN_OK);
    char want[48];
    dyn_applied_label(&m, want, sizeof want);
    CU_ASSERT_EQUAL(s.k[i], i + 1);
    CU_ASSERT_EQUAL(s.err[i], DYN_OK);
    CU_ASSERT_STRING_EQUAL(s.applied[i], want);
    CU_ASSERT_STRING_EQUAL(s.status[i], slv_status_str(m.status));
    CU_ASSERT_EQUAL(s.rows[i], m.rows);
    CU_ASSERT(s.res[i] == m.res_nat_inf || (isnan(s.res[i]) && isnan(m.res_nat_inf)));
    CU_ASSERT_EQUAL(s.e0[i], E0);
    CU_ASSERT_EQUAL(s.scale[i], S);
    if (m.rows == 0) {
      none++;
      CU_ASSERT_STRING_EQUAL(s.applied[i], "none");
    } else if (m.status == SLV_CONVERGED) {
      solver++;
      CU_ASSERT_STRING_EQUAL(s.applied[i], "solver");
    }
  }
  CU_ASSERT(solver > 0); /* the pyramid touches down within 20 steps */
  /* a run continued counts on from the world's steps */
  memset(&s, 0, sizeof s);
  E0 = dyn_world_energy(ref, NULL, NULL);
  S = dyn_world_drift_scale(ref, E0);
  CU_ASSERT_EQUAL(dyn_world_run(w, 2, keep, &s, &done), 0);
  CU_ASSERT_EQUAL(s.calls, 2);
  CU_ASSERT_EQUAL(s.k[0], 21);
  CU_ASSERT_EQUAL(s.k[1], 22);
  CU_ASSERT_EQUAL(s.e0[1], E0);
  CU_ASSERT_EQUAL(s.scale[1], S);
  dyn_world_free(w);
  dyn_world_free(ref);
}

static void test_callback_stops_the_run(void) {
  dyn_world *w = pyramid("pgs", 0, DYN_ON_FAILURE_FALLBACK);
  seen s;
  memset(&s, 0, sizeof s);
  s.stop_at = 3;
  long done = -1;
  CU_ASSERT_EQUAL(dyn_world_run(w, 10, keep, &s, &done), 7);
  CU_ASSERT_EQUAL(s.calls, 3);
  CU_ASSERT_EQUAL(done, 3);
  CU_ASSERT_EQUAL(dyn_world_step_count(w), 3);
  dyn_world_free(w);
}

static void test_rejected_step(void) {
  dyn_world *w = pyramid("lemke", 12, DYN_ON_FAILURE_STOP);
  seen s;
  memset(&s, 0, sizeof s);
  long done = -1;
  CU_ASSERT_EQUAL(dyn_world_run(w, 150, keep, &s, &done), -1);
  CU_ASSERT_FATAL(s.calls >= 1 && s.calls <= 64);
  int last = s.calls - 1;
  CU_ASSERT_EQUAL(s.err[last], DYN_ERR_NUMERIC);
  CU_ASSERT_STRING_EQUAL(s.applied[last], "none");
  CU_ASSERT_STRING_NOT_EQUAL(s.status[last], "converged");
  CU_ASSERT_STRING_NOT_EQUAL(s.status[last], "failed");
  CU_ASSERT_EQUAL(done, s.k[last] - 1);
  for (int i = 0; i < last; i++) CU_ASSERT_EQUAL(s.err[i], DYN_OK);
  dyn_world_free(w);
}

static void test_fallback_label(void) {
  dyn_world_metrics m;
  memset(&m, 0, sizeof m);
  m.applied = DYN_APPLIED_FALLBACK;
  m.fallback_solver = "pgs";
  char buf[48];
  dyn_applied_label(&m, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "fallback:pgs");
  m.fallback_solver = NULL;
  dyn_applied_label(&m, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "fallback:?");
  m.applied = DYN_APPLIED_ZERO;
  dyn_applied_label(&m, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "zero");
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("run", NULL, NULL);
  CU_add_test(s, "the loop adds nothing to a step", test_loop_matches_the_world);
  CU_add_test(s, "the callback stops the run", test_callback_stops_the_run);
  CU_add_test(s, "a rejected step ends the run", test_rejected_step);
  CU_add_test(s, "the fallback label", test_fallback_label);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
