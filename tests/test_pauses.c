/*
 * test_pauses.c -- slv_solve_paused: pauses between rounds of sweeps
 * (libsolvers/slv.h; docs/solver-machinery.md, "Pauses between sweeps").
 *
 * On a random contact-like problem (tst_fprob.h: factored storage with
 * its dense A formed by the test), for pgs and pgs_wide, factored and
 * dense:
 * - where the pauses fall: every 4 sweeps, at most 3, over 15 sweeps
 *   gives 3 pauses (after 4, 8, 12); over 12 sweeps 2 (none after the
 *   last sweep); count 1 gives 1; each pause's w is A x + b by the test's
 *   own A;
 * - that the sweeps go on from the x a pause leaves: a pause after sweep
 *   2 that puts in a solution found beforehand (pgs to tol 1e-12) ends
 *   the solve converged at sweep 3, where the same 3 sweeps without it
 *   are far from tol;
 * - a pause that leaves x alone and returns 0 changes nothing but the
 *   rounding of the sweeps' kept state (x to 1e-12 of the plain solve's);
 * - a bad pause spec is refused, and a solver that does not take pauses
 *   (pgs_color, dantzig) never calls one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "slv.h"
#include "tst_fprob.h"
#include "tst_util.h"

typedef struct {
  const fprob *f;
  int calls;
  double werr;     /* the largest |w - (A x + b)| / (|A| |x| + |b|) met */
  const double *x; /* to put in (NULL: leave x alone) */
} pause_log;

static int on_pause(void *ctx, double *x, const double *w) {
  pause_log *l = ctx;
  const fprob *f = l->f;
  l->calls++;
  for (int i = 0; i < f->n; i++) {
    double s = f->b[i], scale = fabs(f->b[i]);
    for (int j = 0; j < f->n; j++) {
      s += f->A[i + (size_t)j * f->n] * x[j];
      scale += fabs(f->A[i + (size_t)j * f->n] * x[j]);
    }
    l->werr = fmax(l->werr, fabs(w[i] - s) / fmax(scale, 1e-300));
  }
  if (!l->x) return 0;
  memcpy(x, l->x, (size_t)f->n * sizeof *x);
  return 1;
}

/* A solve of f (dense when asked) by solver with the pauses (every,
 * count; none when every is 0), from x = 0, max_iter sweeps at tol; x
 * out.  Returns the status, *calls the pauses. */
static slv_status run(const char *solver, const fprob *f, int dense, int max_iter, double tol,
                      int every, int count, const double *put, double *x, int *calls,
                      slv_result *res) {
  slv_problem p = dense ? fprob_dense(f) : f->p;
  slv_options opt = slv_options_default();
  opt.max_iter = max_iter;
  opt.tol = tol;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(solver), f->n, &opt, &ws), SLV_OK);
  memset(x, 0, (size_t)f->n * sizeof *x);
  pause_log l = { f, 0, 0, put };
  slv_pauses pz = { every, count, on_pause, &l };
  slv_status st = slv_solve_paused(ws, &p, &opt, every ? &pz : NULL, x, NULL, res);
  CU_ASSERT(l.werr < 1e-12);
  *calls = l.calls;
  slv_workspace_free(ws);
  return st;
}

static void test_where_and_what(void) {
  fprob f;
  fprob_make_rigid(&f, 200, 60, 7);
  int n = f.n, calls;
  double *x = malloc((size_t)n * sizeof *x), *xs = malloc((size_t)n * sizeof *x),
         *x0 = malloc((size_t)n * sizeof *x);
  slv_result r;
  /* a solution found beforehand */
  CU_ASSERT_EQUAL_FATAL(run("pgs", &f, 1, 100000, 1e-12, 0, 0, NULL, xs, &calls, &r),
                        SLV_CONVERGED);
  const char *solvers[] = { "pgs", "pgs_wide" };
  for (int k = 0; k < 2; k++)
    for (int dense = 0; dense < 2; dense++) {
      const char *s = solvers[k];
      CU_ASSERT_TRUE(slv_solver_takes_pauses(slv_solver_find(s)));
      CU_ASSERT_EQUAL(run(s, &f, dense, 15, 1e-300, 4, 3, NULL, x, &calls, &r), SLV_MAX_ITER);
      CU_ASSERT_EQUAL(calls, 3);
      CU_ASSERT_EQUAL(r.iterations, 15);
      run(s, &f, dense, 12, 1e-300, 4, 3, NULL, x, &calls, &r);
      CU_ASSERT_EQUAL(calls, 2);
      run(s, &f, dense, 15, 1e-300, 4, 1, NULL, x, &calls, &r);
      CU_ASSERT_EQUAL(calls, 1);
      /* a pause that leaves x alone: the plain solve's x to rounding */
      run(s, &f, dense, 15, 1e-300, 0, 0, NULL, x0, &calls, &r);
      run(s, &f, dense, 15, 1e-300, 4, 3, NULL, x, &calls, &r);
      double d = 0;
      for (int i = 0; i < n; i++) d = fmax(d, fabs(x[i] - x0[i]));
      CU_ASSERT(d < 1e-12);
      /* the sweeps go on from the pause's x */
      CU_ASSERT_EQUAL(run(s, &f, dense, 3, 1e-8, 0, 0, NULL, x, &calls, &r), SLV_MAX_ITER);
      double far = fprob_residual(&f, x);
      CU_ASSERT_EQUAL(run(s, &f, dense, 3, 1e-8, 2, 1, xs, x, &calls, &r), SLV_CONVERGED);
      CU_ASSERT_EQUAL(calls, 1);
      CU_ASSERT_EQUAL(r.iterations, 3);
      double near = fprob_residual(&f, x);
      printf("\n  %s %s (%s's sweeps): 3 sweeps from 0: residual %.3g; with the answer put in "
             "at a pause after 2: %.3g",
             s, dense ? "dense" : "factored", r.method, far, near);
      CU_ASSERT(far > 1e-3);
      CU_ASSERT(near < 1e-8);
    }
  printf("\n");
  free(x);
  free(xs);
  free(x0);
  fprob_free(&f);
}

static void test_refused_and_ignored(void) {
  fprob f;
  fprob_make(&f, 6, 4, 3);
  double x[18];
  int calls;
  slv_result r;
  slv_problem p = f.p;
  slv_options opt = slv_options_default();
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), f.n, &opt, &ws), SLV_OK);
  pause_log l = { &f, 0, 0, NULL };
  slv_pauses bad = { 0, 1, on_pause, &l };
  memset(x, 0, sizeof x);
  CU_ASSERT_EQUAL(slv_solve_paused(ws, &p, &opt, &bad, x, NULL, &r), SLV_ERR_OPTIONS);
  CU_ASSERT_PTR_NOT_NULL(strstr(r.message, "every"));
  bad.every = 1, bad.count = -1;
  CU_ASSERT_EQUAL(slv_solve_paused(ws, &p, &opt, &bad, x, NULL, &r), SLV_ERR_OPTIONS);
  slv_workspace_free(ws);
  CU_ASSERT_FALSE(slv_solver_takes_pauses(slv_solver_find("pgs_color")));
  CU_ASSERT_FALSE(slv_solver_takes_pauses(slv_solver_find("dantzig")));
  run("pgs_color", &f, 0, 20, 1e-300, 2, 5, NULL, x, &calls, &r);
  CU_ASSERT_EQUAL(calls, 0);
  CU_ASSERT_EQUAL(run("dantzig", &f, 1, 100, 1e-8, 1, 5, NULL, x, &calls, &r), SLV_CONVERGED);
  CU_ASSERT_EQUAL(calls, 0);
  fprob_free(&f);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("pauses", NULL, NULL);
  CU_add_test(s, "pgs, pgs_wide: where the pauses fall, their w, their x", test_where_and_what);
  CU_add_test(s, "a bad spec refused; solvers without pauses", test_refused_and_ignored);
  return tst_run();
}
