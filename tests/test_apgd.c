/* test_apgd.c -- Nesterov APGD on the Coulomb cone: the shared cone cases
 * (tst_cone.c: hand-derived single contacts under both laws, mu = 0 against
 * the LCP, planted problems, Coulomb agreement with pcg_cone, CSR = dense,
 * warm start, history, honest failures), and APGD's own: the backtracking
 * Lipschitz estimate copes with any scale of A. */
#include "slv.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <math.h>
#include <stdlib.h>

static void test_scale_invariance(void) {
  /* The same planted problem with A and b scaled by 1e-4 and by 1e4 (same x*):
   * the initial L estimate is off by those factors in opposite directions,
   * the backtracking and the 0.9 decrease find the scale.  tol is relative
   * to max(1, |b|) and absolute on the cone residual, so compare x. */
  enum { NC = 12, NB = 3, N = 3 * NC + NB };
  double *A = malloc(sizeof(double) * N * N), *As = malloc(sizeof(double) * N * N);
  double b[N], bs[N], lo[N], hi[N], xs[N], x[N], mu[NC];
  int rows[NC];
  tst_cone_planted(NC, NB, 0.2, 99, 0, 0, A, b, lo, hi, rows, mu, xs);
  double scales[2] = {1e-4, 1e4};
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < N * N; i++) As[i] = A[i] * scales[k];
    for (int i = 0; i < N; i++) bs[i] = b[i] * scales[k];
    slv_problem p = slv_problem_empty();
    p.n = N; p.A = As; p.lda = N; p.b = bs; p.lo = lo; p.hi = hi;
    p.ncones = NC; p.cone_rows = rows; p.cone_mu = mu; p.cone_law = SLV_CONE_ASSOCIATED;
    slv_options o = slv_options_default();
    o.tol = scales[k] * 1e-10; o.max_iter = 100000;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("apgd"), N, &o, &ws), SLV_OK);
    slv_result res;
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
    TST_VEC_CLOSE(x, xs, N, 1e-7, 0);
    slv_workspace_free(ws);
  }
  free(A);
  free(As);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("apgd", NULL, NULL);
  tst_cone_add_tests(s, "apgd");
  CU_add_test(s, "A scaled by 1e-4 and 1e4: backtracking finds L", test_scale_invariance);
  return tst_run();
}
