/* test_stop.c -- stopping a solve from outside (slv.h, "stopping a solve"):
 * every registered solver, on every problem of a small set that it
 * accepts (LCP, equality rows, Coulomb cones, factored findex rows), is
 * stopped by a time limit that has passed at its first poll and by a
 * cancel callback that fires at its first poll: SLV_TIME_LIMIT /
 * SLV_INTERRUPTED, never converged, the residuals of its iterate finite and
 * reported.  A callback that never fires is polled and changes nothing
 * (the same status and x, bit for bit).  A callback that fires at its k-th
 * call stops a long pgs solve there.  The options are validated.  No test
 * here measures a time.
 */
#include "slv.h"
#include "tst_cone.h"
#include "tst_fprob.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 12, NPROB = 4 };

/* The problems: each with its dense data kept alive for the suite. */
typedef struct {
  const char *name;
  slv_problem p;
} named_problem;

static double lcpA[N * N], lcpb[N], lcpx[N];
static double freeA[N * N], freeb[N], freex[N], freelo[N], freehi[N];
static double coneA[N * N], coneb[N], conelo[N], conehi[N], conexs[N], conemu[N / 3];
static int conerows[N / 3];
static fprob fp;
static named_problem probs[NPROB];
static int *stopped; /* per registered solver: problems it was stopped on */

static int suite_init(void) {
  tst_planted_spd(N, 0.05, 11, NULL, NULL, lcpA, lcpb, lcpx);
  for (int i = 0; i < N; i++) freelo[i] = -INFINITY, freehi[i] = INFINITY;
  tst_planted_spd(N, 0.05, 12, freelo, freehi, freeA, freeb, freex);
  tst_cone_planted(N / 3, 0, 0.05, 13, 1, 0, coneA, coneb, conelo, conehi, conerows, conemu,
                   conexs);
  fprob_make_rigid(&fp, 10, 6, 14);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.lda = N;
  p.A = lcpA, p.b = lcpb;
  probs[0] = (named_problem){ "lcp", p };
  p.A = freeA, p.b = freeb, p.lo = freelo, p.hi = freehi;
  probs[1] = (named_problem){ "equality rows", p };
  p.A = coneA, p.b = coneb, p.lo = conelo, p.hi = conehi;
  p.ncones = N / 3, p.cone_rows = conerows, p.cone_mu = conemu;
  probs[2] = (named_problem){ "cones", p };
  probs[3] = (named_problem){ "factored findex", fp.p };
  stopped = calloc((size_t)slv_solver_count(), sizeof *stopped);
  return stopped ? 0 : 1;
}

static int suite_clean(void) {
  fprob_free(&fp);
  free(stopped);
  return 0;
}

/* One solve of p by sv with o; x (size p.n), res out. */
static slv_status run(const slv_solver *sv, const slv_problem *p, const slv_options *o, double *x,
                      slv_result *res) {
  slv_workspace *ws;
  if (slv_workspace_new(sv, p->n, o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* A stopped solve's promises: its status, never converged, x finite and
 * its residuals finite and reported. */
static void check_stopped(const slv_solver *sv, const named_problem *np, slv_status want,
                          slv_status st, const slv_result *res, const double *x) {
  if (st != want)
    fprintf(stderr, "%s on %s: %s, wanted %s (%s)\n", sv->name, np->name, slv_status_str(st),
            slv_status_str(want), res->message);
  CU_ASSERT_EQUAL(st, want);
  CU_ASSERT_EQUAL(res->status, st);
  for (int i = 0; i < np->p.n; i++) CU_ASSERT(isfinite(x[i]));
  CU_ASSERT(isfinite(res->res.res_rel));
  CU_ASSERT(isfinite(res->res.res_scaled));
  CU_ASSERT(res->res.res_scaled > 1e-8); /* not a solution: the start is not one */
  CU_ASSERT_PTR_NOT_NULL(strstr(res->message, sv->name));
}

/* Every solver on every problem it takes, stopped at its first poll:
 * by the clock (limit 1e-300 s: the deadline is the start of the solve) or by the callback. */
static void stop_at_first_poll(int by_clock) {
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    for (int k = 0; k < NPROB; k++) {
      char msg[160];
      if (slv_solver_accepts(sv, &probs[k].p, msg, sizeof msg) != SLV_OK) continue;
      slv_options o = slv_options_default();
      tst_counter c = { 0, 1 };
      if (by_clock) {
        o.time_limit = 1e-300; /* the deadline is the start itself */
      } else {
        o.cancel = tst_count_and_fire;
        o.cancel_ctx = &c;
      }
      double x[64];
      slv_result res;
      slv_status st = run(sv, &probs[k].p, &o, x, &res);
      check_stopped(sv, &probs[k], by_clock ? SLV_TIME_LIMIT : SLV_INTERRUPTED, st, &res, x);
      CU_ASSERT_PTR_NOT_NULL(strstr(res.message, by_clock ? "time limit" : "interrupted"));
      if (!by_clock) CU_ASSERT_EQUAL(c.calls, 1); /* never polled again once stopped */
      stopped[s] += st == (by_clock ? SLV_TIME_LIMIT : SLV_INTERRUPTED);
    }
  }
}

static void test_time_limit_first_poll(void) { stop_at_first_poll(1); }
static void test_cancel_first_poll(void) { stop_at_first_poll(0); }

/* A callback that never fires, and a far deadline: polled, and the solve
 * is the one without them, bit for bit. */
static void test_polls_change_nothing(void) {
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    for (int k = 0; k < NPROB; k++) {
      char msg[160];
      if (slv_solver_accepts(sv, &probs[k].p, msg, sizeof msg) != SLV_OK) continue;
      slv_options o = slv_options_default();
      double x0[64], x1[64];
      slv_result r0, r1;
      slv_status s0 = run(sv, &probs[k].p, &o, x0, &r0);
      tst_counter c = { 0, 0 };
      o.cancel = tst_count_and_fire;
      o.cancel_ctx = &c;
      o.time_limit = 3600;
      slv_status s1 = run(sv, &probs[k].p, &o, x1, &r1);
      CU_ASSERT_EQUAL(s1, s0);
      CU_ASSERT_EQUAL(r1.iterations, r0.iterations);
      CU_ASSERT_EQUAL(memcmp(x0, x1, (size_t)probs[k].p.n * sizeof *x0), 0);
      if (c.calls < 1) fprintf(stderr, "%s on %s: never polled\n", sv->name, probs[k].name);
      CU_ASSERT(c.calls >= 1);
    }
  }
}

/* A long pgs solve (n = 300, A nearly singular, tol 1e-15) stopped by the
 * callback at its third call: later polls run on (the callback is called
 * again only after SLV_POLL_WORK of work), and the sweeps done so far are
 * kept. */
static void test_cancel_after_k_polls(void) {
  enum { M = 300 };
  double *A = malloc(sizeof(double) * M * M), b[M], xs[M], x[M];
  tst_planted_spd(M, 1e-6, 21, NULL, NULL, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = M;
  p.A = A;
  p.lda = M;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-15;
  o.max_iter = 1000000;
  tst_counter c = { 0, 3 };
  o.cancel = tst_count_and_fire;
  o.cancel_ctx = &c;
  slv_result res;
  slv_status st = run(slv_solver_find("pgs"), &p, &o, x, &res);
  CU_ASSERT_EQUAL(st, SLV_INTERRUPTED);
  CU_ASSERT_EQUAL(c.calls, 3);
  /* two stretches of SLV_POLL_WORK between the calls: sweeps of M^2 each */
  CU_ASSERT(res.iterations >= (int)(2 * SLV_POLL_WORK / (M * M)));
  CU_ASSERT(res.iterations < o.max_iter);
  CU_ASSERT(isfinite(res.res.res_scaled) && res.res.res_scaled > o.tol);
  free(A);
}

static void test_every_solver_stopped(void) {
  for (int s = 0; s < slv_solver_count(); s++) {
    if (stopped[s] < 2) fprintf(stderr, "%s was never stopped\n", slv_solver_at(s)->name);
    CU_ASSERT(stopped[s] >= 2); /* by the clock and by the callback */
  }
}

static void test_names_and_options(void) {
  CU_ASSERT_STRING_EQUAL(slv_status_str(SLV_TIME_LIMIT), "time_limit");
  CU_ASSERT_STRING_EQUAL(slv_status_str(SLV_INTERRUPTED), "interrupted");
  CU_ASSERT(SLV_TIME_LIMIT > 0 && SLV_INTERRUPTED > 0); /* ran, did not converge */
  slv_options o = slv_options_default();
  CU_ASSERT_EQUAL(o.time_limit, 0.0);
  CU_ASSERT_PTR_NULL(o.cancel);
  char msg[160];
  const double bad[] = { -1.0, NAN, -INFINITY };
  for (int k = 0; k < 3; k++) {
    o.time_limit = bad[k];
    CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_ERR_OPTIONS);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "time_limit"));
  }
  const double good[] = { 0.0, 1e-9, 1e300, INFINITY };
  for (int k = 0; k < 4; k++) {
    o.time_limit = good[k];
    CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_OK);
  }
  /* a limit of 1e300 s is none: the solve converges */
  double x[N];
  slv_result res;
  CU_ASSERT_EQUAL(run(slv_solver_find("pgs"), &probs[0].p, &o, x, &res), SLV_CONVERGED);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("stop", suite_init, suite_clean);
  CU_add_test(s, "status names, time_limit validated", test_names_and_options);
  CU_add_test(s, "time limit: every solver stops at its first poll", test_time_limit_first_poll);
  CU_add_test(s, "cancel: every solver stops at its first poll", test_cancel_first_poll);
  CU_add_test(s, "polls that never fire change nothing", test_polls_change_nothing);
  CU_add_test(s, "cancel at the third call stops a long pgs solve", test_cancel_after_k_polls);
  CU_add_test(s, "every registered solver was stopped", test_every_solver_stopped);
  return tst_run();
}
