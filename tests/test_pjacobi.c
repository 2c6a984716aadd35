/* test_pjacobi.c -- damped projected Jacobi: planted solutions, findex,
 * explicit damping, honest non-convergence. */
#include "slv.h"
#include "tst_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("pjacobi"), p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static void test_planted(void) {
  int n = 30;
  double *A = malloc(sizeof(double) * n * n), b[30], xs[30], x[30], lo[30], hi[30];
  for (int i = 0; i < n; i++) {
    lo[i] = i % 2 ? -0.5 : 0;
    hi[i] = i % 2 ? 0.7 : INFINITY;
  }
  tst_planted_spd(n, 0.3, 41, lo, hi, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 200000;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double bmax = 0;
  for (int i = 0; i < n; i++) bmax = fmax(bmax, fabs(b[i]));
  CU_ASSERT(tst_natres_dense(n, A, b, lo, hi, x) <= 1e-10 * fmax(1, bmax) * 1.01);
  TST_VEC_CLOSE(x, xs, n, 1e-7, 0);
  free(A);
}

static void test_findex_and_damping(void) {
  /* the hand case of test_pgs: two contacts (normal, tangent), mu = 0.5 */
  double A[16] = { 0 }, b[4] = { -2, 3, -1, -0.2 }, lo[4] = { 0, 0, 0, 0 },
         hi[4] = { INFINITY, 0, INFINITY, 0 }, mu[4] = { 0, 0.5, 0, 0.5 }, x[4];
  int fx[4] = { -1, 0, -1, 2 };
  for (int i = 0; i < 4; i++) A[i + 4 * i] = 1;
  A[0 + 4 * 2] = A[2 + 4 * 0] = 0.1;
  slv_problem p = slv_problem_empty();
  p.n = 4;
  p.A = A;
  p.lda = 4;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  p.findex = fx;
  p.mu = mu;
  slv_options o = slv_options_default();
  o.tol = 1e-13;
  o.max_iter = 10000;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double x0 = 1.9 / 0.99, x2 = 0.8 / 0.99;
  double xe[4] = { x0, -0.5 * x0, x2, 0.2 };
  TST_VEC_CLOSE(x, xe, 4, 1e-12, 0);
  /* damping 2.5 > 2 / lambda_max (lambda_max = 1.1): the free-ish iteration
   * oscillates with growing amplitude; never "converged" */
  o.damping = 2.5;
  o.max_iter = 300;
  slv_status st = run(&p, &o, x, &res);
  CU_ASSERT(st == SLV_MAX_ITER || st == SLV_NOT_FINITE);
  CU_ASSERT(!(res.res.res_rel <= o.tol));
}

static void test_max_iter(void) {
  double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -6 }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A;
  p.lda = 2;
  p.b = b;
  slv_options o = slv_options_default();
  o.max_iter = 2;
  o.tol = 1e-14;
  o.record_history = 1;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(res.iterations, 2);
  CU_ASSERT_EQUAL(res.history_len, 2);
  CU_ASSERT(res.res.res_rel > 1e-14);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("pjacobi", NULL, NULL);
  CU_add_test(s, "planted boxed problem", test_planted);
  CU_add_test(s, "findex hand case, too large a damping", test_findex_and_damping);
  CU_add_test(s, "max_iter and history", test_max_iter);
  return tst_run();
}
