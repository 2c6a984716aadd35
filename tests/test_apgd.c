/* test_apgd.c -- Nesterov APGD on the Coulomb cone: the shared cone cases
 * (tst_cone.c: hand-derived single contacts under both laws, mu = 0 against
 * the LCP, planted problems, Coulomb agreement with pcg_cone, CSR = dense,
 * warm start, history, honest failures), and APGD's own: the backtracking
 * Lipschitz estimate copes with any scale of A. */
#include "slv.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  double scales[2] = { 1e-4, 1e4 };
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < N * N; i++) As[i] = A[i] * scales[k];
    for (int i = 0; i < N; i++) bs[i] = b[i] * scales[k];
    slv_problem p = slv_problem_empty();
    p.n = N;
    p.A = As;
    p.lda = N;
    p.b = bs;
    p.lo = lo;
    p.hi = hi;
    p.ncones = NC;
    p.cone_rows = rows;
    p.cone_mu = mu;
    p.cone_law = SLV_CONE_ASSOCIATED;
    slv_options o = slv_options_default();
    o.tol = 1e-10; /* the test is scale-invariant (docs/convergence.md) */
    o.max_iter = 100000;
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

static void test_row_scaling(void) { tst_cone_row_scaling("apgd"); }

/* The pendulum's joint rows (lcplab simulate --scene pendulum --solver apgd
 * --dump-failures DIR, step 100): five free rows, A with eigenvalues 0.5 ..
 * 5e4 (condition 1e5, and 1e5 also after Jacobi scaling: the rows are nearly
 * dependent, not badly scaled).  Nesterov needs about sqrt(1e5) log(1/tol)
 * iterations: at the world's 50 the solve must say max_iter with the
 * residual it reached, never converged; with a budget it converges to the
 * direct solver's x. */
static void test_pendulum_joint_rows(void) {
  enum { N = 5 };
  const double A[N * N] = { 24919.734231375871,
                            0,
                            -1423.0390333554528,
                            0,
                            0,
                            0,
                            25001.000000000004,
                            0,
                            -1425.3575746468996,
                            -24959.334041283968,
                            -1423.0390333554528,
                            0,
                            82.265768624131681,
                            0,
                            0,
                            0,
                            -1425.3575746468996,
                            0,
                            24999.999999999996,
                            0,
                            0,
                            -24959.334041283968,
                            0,
                            0,
                            24999.999999999996 };
  double b[N] = { 8.9896517105503282e-05, 0, -0.081854991145315234, 0, 0 };
  double lo[N], hi[N], x[N], xd[N];
  for (int i = 0; i < N; i++) lo[i] = -INFINITY, hi[i] = INFINITY;
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  slv_options o = slv_options_default();
  slv_result res;
  slv_workspace *ws;
  memset(xd, 0, sizeof xd);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("direct"), N, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL_FATAL(slv_solve(ws, &p, &o, xd, NULL, &res), SLV_CONVERGED);
  slv_workspace_free(ws);
  o.max_iter = 50;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("apgd"), N, &o, &ws), SLV_OK);
  memset(x, 0, sizeof x);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_MAX_ITER);
  CU_ASSERT(res.res.res_rel > o.tol);
  CU_ASSERT(isfinite(res.res.res_rel));
  o.max_iter = 5000;
  memset(x, 0, sizeof x);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
  CU_ASSERT(res.res.res_rel <= o.tol);
  CU_ASSERT(res.iterations > 200); /* the conditioning is real: not a 50-step problem */
  TST_VEC_CLOSE(x, xd, N, 1e-6, 1e-9);
  slv_workspace_free(ws);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("apgd", NULL, NULL);
  tst_cone_add_tests(s, "apgd");
  CU_add_test(s, "A scaled by 1e-4 and 1e4: backtracking finds L", test_scale_invariance);
  CU_add_test(s, "rows scaled over four decades: the diagonal metric keeps the iterations",
              test_row_scaling);
  CU_add_test(s, "pendulum joint rows (condition 1e5): max_iter at 50, converges with budget",
              test_pendulum_joint_rows);
  return tst_run();
}
