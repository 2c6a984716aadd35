/* test_direct.c -- equality-only problems by Cholesky / LU: planted x*,
 * non-symmetric and indefinite matrices, CSR, singular A, refusals. */
#include "slv.h"
#include "tst_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double lo_free[64], hi_free[64];

static int init(void) {
  for (int i = 0; i < 64; i++) {
    lo_free[i] = -INFINITY;
    hi_free[i] = INFINITY;
  }
  return 0;
}

static slv_status run(const slv_problem *p, double *x, slv_result *res) {
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("direct"), p->n, &o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, &o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static slv_problem freeprob(int n, double *A, double *b) {
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  p.lo = lo_free;
  p.hi = hi_free;
  return p;
}

static void test_spd_planted(void) {
  int n = 50;
  double *A = malloc(sizeof(double) * n * n), b[50], xs[50], x[50];
  tst_planted_spd(n, 0.1, 51, lo_free, hi_free, A, b, xs); /* free rows: w* = 0 */
  slv_problem p = freeprob(n, A, b);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  /* cond(A) <= (lambda_max / 0.1) ~ 50: error ~ cond * n * eps */
  TST_VEC_CLOSE(x, xs, n, 1e3 * n * DBL_EPSILON, 0);
  CU_ASSERT_EQUAL(res.pivots, n);
  free(A);
}

static void test_nonsymmetric_and_indefinite(void) {
  /* A = [[1,2],[3,4]] (column-major {1,3,2,4}), x* = (1,-1): b = -A x* = (1, 1) */
  double A[4] = { 1, 3, 2, 4 }, b[2] = { 1, 1 }, x[2];
  slv_problem p = freeprob(2, A, b);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  double xe[2] = { 1, -1 };
  TST_VEC_CLOSE(x, xe, 2, 10 * DBL_EPSILON, 0);
  /* symmetric indefinite [[0,1],[1,0]]: Cholesky fails, LU solves; x* = (2,3), b = -(3,2) */
  double S[4] = { 0, 1, 1, 0 }, c[2] = { -3, -2 };
  p = freeprob(2, S, c);
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  double xe2[2] = { 2, 3 };
  TST_VEC_CLOSE(x, xe2, 2, 10 * DBL_EPSILON, 0);
}

static void test_csr(void) {
  /* tridiag(-1, 4, -1), n = 5, x* = (1..5), b = -A x* */
  int n = 5, Ap[6], Aj[13], k = 0;
  double Ax[13], b[5], x[5], xs[5] = { 1, 2, 3, 4, 5 };
  for (int i = 0; i < n; i++) {
    Ap[i] = k;
    b[i] = 0;
    for (int j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < n) {
        Aj[k] = j;
        Ax[k] = i == j ? 4 : -1;
        b[i] -= Ax[k] * xs[j];
        k++;
      }
  }
  Ap[n] = k;
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.storage = SLV_CSR;
  p.Ap = Ap;
  p.Aj = Aj;
  p.Ax = Ax;
  p.b = b;
  p.lo = lo_free;
  p.hi = hi_free;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, n, 100 * DBL_EPSILON, 0);
}

static void test_singular_and_refusals(void) {
  double A[4] = { 1, 1, 1, 1 }, b[2] = { 1, 2 }, x[2];
  slv_problem p = freeprob(2, A, b);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_SINGULAR_PIVOT);
  CU_ASSERT(strlen(res.message) > 0);
  /* a bounded row is refused with the unsupported status */
  double B[4] = { 2, 0, 0, 2 }, lo[2] = { -INFINITY, 0 }, hi[2] = { INFINITY, INFINITY };
  p = freeprob(2, B, b);
  p.lo = lo;
  p.hi = hi;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "row 1"));
  p.lo = p.hi = NULL; /* the standard LCP too */
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_ERR_UNSUPPORTED);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("direct", init, NULL);
  CU_add_test(s, "SPD planted, Cholesky", test_spd_planted);
  CU_add_test(s, "non-symmetric and indefinite, LU", test_nonsymmetric_and_indefinite);
  CU_add_test(s, "CSR tridiagonal", test_csr);
  CU_add_test(s, "singular A, refused bounded rows", test_singular_and_refusals);
  return tst_run();
}
