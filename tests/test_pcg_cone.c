/* test_pcg_cone.c -- MPGP on the Coulomb cone: the shared cone cases
 * (tst_cone.c: hand-derived single contacts under both laws, mu = 0 against
 * the LCP, planted problems, Coulomb agreement with apgd, CSR = dense, warm
 * start, history, honest failures), and what is MPGP's own: on free rows it
 * is plain conjugate gradients, and on bounds it is MPRGP. */
#include "slv.h"
#include "tst_cone.h"
#include "tst_pivot.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("pcg_cone"), p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static void test_free_rows_is_cg(void) {
  /* All rows free: no block is ever active, every step is a CG step, and CG
   * on an n x n SPD system ends in at most n steps in exact arithmetic.  A
   * spectrum with 8 distinct eigenvalues ends in 8 steps, up to rounding.
   * pcg_cone's CG runs on the problem scaled by D^-1/2 (D = diag(A);
   * docs/cone-solvers.md, "Scaling"), so A is a symmetric circulant (its
   * diagonal constant: the scaled matrix is A / a_00, the same spectrum up
   * to a factor) with eigenvalues lambda_k = 1 + min(k, N - k) mod 8, and
   * then E A E with e over four decades: the scaled matrix is the same, so
   * the same steps (on main before the scaling, E A E took 596). */
  enum { N = 40 };
  double *A = malloc(sizeof(double) * N * N), b[N], xs[N], x[N], lo[N], hi[N], c[N], e[N];
  for (int i = 0; i < N; i++) {
    lo[i] = -INFINITY;
    hi[i] = INFINITY;
    e[i] = pow(10.0, -2.0 + 4.0 * i / (N - 1));
  }
  for (int m = 0; m < N; m++) {
    double s = 0;
    for (int k = 0; k < N; k++)
      s += (1 + (k < N - k ? k : N - k) % 8) * cos(2 * 3.14159265358979323846 * m * k / N);
    c[m] = s / N;
  }
  for (int pass = 0; pass < 2; pass++) {
    double ep[N];
    for (int i = 0; i < N; i++) ep[i] = pass ? e[i] : 1.0;
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) A[i + j * N] = ep[i] * c[(i - j + N) % N] * ep[j];
    for (int j = 0; j < N; j++)
      for (int i = 0; i < j; i++) A[i + j * N] = A[j + i * N]; /* exactly symmetric */
    for (int i = 0; i < N; i++) xs[i] = cos(2.0 * i) / ep[i];
    for (int i = 0; i < N; i++) {
      double s = 0;
      for (int j = 0; j < N; j++) s += A[i + j * N] * xs[j];
      b[i] = -s;
    }
    slv_problem p = tst_dense(N, A, N, b, lo, hi);
    slv_options o = slv_options_default();
    o.tol = 1e-11;
    slv_result res;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    for (int i = 0; i < N; i++) x[i] *= ep[i], xs[i] *= ep[i];
    TST_VEC_CLOSE(x, xs, N, 1e-9, 0);
    printf("\n  %s: %d steps", pass ? "E A E, e over four decades" : "circulant A", res.iterations);
    CU_ASSERT(res.iterations <= 10);
  }
  free(A);
}

static void test_mprgp_bounds(void) {
  /* bounds only (no cones): x >= 0 on a 2x2 with the answer on the bound.
   * A = [[2,1],[1,2]], b = (1, -6): x1 = 0 (w1 = x2 + 1 = 4 >= 0), x2 = 3. */
  double A[4] = { 2, 1, 1, 2 }, b[2] = { 1, -6 }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A;
  p.lda = 2;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = { 0, 3 };
  TST_VEC_CLOSE(x, xe, 2, 1e-14, 0);
  CU_ASSERT(res.iterations <= 4);
}

static void test_rank_deficient_sliding(void) {
  /* The case that made pcg_cone put the ray of a sliding contact into its CG
   * subspace (pcg_cone.c, "Faces"): 60 contacts, a third of them sliding,
   * A = B B^T / 60 + 1e-6 I with B of 60 columns (rank 60 of 180, like a
   * Delassus matrix with more contact rows than body freedoms), associated
   * law.  Block-wise MPGP alternated CG and proportioning steps and stalled
   * near res_rel 2e-7 after 2e5 iterations; with faces it takes 239. */
  enum { NC = 60, N = 3 * NC, M = 60 };
  double *A = malloc(sizeof(double) * N * N), *B = malloc(sizeof(double) * N * M);
  double b[N], lo[N], hi[N], xs[N], x[N], mu[NC];
  int rows[NC];
  for (int k = 0; k < N * M; k++) B[k] = sin(0.7 + 1.3 * k); /* deterministic, in [-1, 1] */
  for (int i = 0; i < N; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k < M; k++) s += B[i + k * N] * B[j + k * N];
      A[i + j * N] = A[j + i * N] = s / M + (i == j ? 1e-6 : 0);
    }
  tst_cone_planted(NC, 0, 0, 7, 0, 1, A, b, lo, hi, rows, mu, xs);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.ncones = NC;
  p.cone_rows = rows;
  p.cone_mu = mu;
  p.cone_law = SLV_CONE_ASSOCIATED;
  slv_options o = slv_options_default();
  o.tol = 1e-9;
  o.max_iter = 5000;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(res.iterations < 2000);
  CU_ASSERT(tst_cone_natres(N, A, b, NULL, NULL, NC, rows, mu, 0, x) <= 1.01e-9);
  /* lambda_min = 1e-6: |x - x*| <~ |r| / lambda_min = 1e-3 */
  TST_VEC_CLOSE(x, xs, N, 1e-3, 0);
  free(A);
  free(B);
}

static void test_row_scaling(void) { tst_cone_row_scaling("pcg_cone"); }

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("pcg_cone", NULL, NULL);
  tst_cone_add_tests(s, "pcg_cone");
  CU_add_test(s, "free rows: plain CG on the scaled rows (8 eigenvalues, <= 10 steps)",
              test_free_rows_is_cg);
  CU_add_test(s, "bounds only: MPRGP, hand 2x2", test_mprgp_bounds);
  CU_add_test(s, "rows scaled over four decades: the diagonal metric keeps the iterations",
              test_row_scaling);
  CU_add_test(s, "rank-deficient A, sliding contacts: CG on the rays", test_rank_deficient_sliding);
  return tst_run();
}
