/* test_pgs.c -- projected Gauss-Seidel: hand cases, planted solutions (LCP,
 * box, free rows), findex, CSR = dense, warm start, history, honest
 * non-convergence (max_iter, divergence to NaN). */
#include "slv.h"
#include "tst_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const slv_solver *pgs;

static int init(void) {
  pgs = slv_solver_find("pgs");
  return pgs ? 0 : 1;
}

/* Solve with a fresh workspace; returns the status. */
static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(pgs, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static void test_hand_2x2(void) {
  /* A = [[2,1],[1,2]], b = (-5,-6).  Both x > 0: 2x1 + x2 = 5, x1 + 2x2 = 6
   * -> x = (4/3, 7/3), w = 0. */
  double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -6 }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A;
  p.lda = 2;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = { 4.0 / 3, 7.0 / 3 };
  TST_VEC_CLOSE(x, xe, 2, 1e-13, 0);
  CU_ASSERT(res.iterations > 1);
  /* b = (1, -6): x1 = 0 with w1 = x2 + 1 = 4 >= 0, x2 = 3. */
  b[0] = 1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe2[2] = { 0, 3 };
  TST_VEC_CLOSE(x, xe2, 2, 1e-13, 0);
}

static void planted(int n, int kind, unsigned long seed, double omega) {
  /* kind 0: LCP; 1: box lo in [-1,-0.1], hi in [0.1,1]; 2: mixed free/LCP/box */
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    lo[i] = 0;
    hi[i] = INFINITY;
    if (kind == 1 || (kind == 2 && i % 3 == 1)) {
      lo[i] = -0.1 - 0.9 * (i % 7) / 7.0;
      hi[i] = 0.1 + 0.9 * (i % 5) / 5.0;
    }
    if (kind == 2 && i % 3 == 2) {
      lo[i] = -INFINITY;
      hi[i] = INFINITY;
    }
  }
  tst_planted_spd(n, 0.1, seed, lo, hi, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  o.max_iter = 20000;
  o.omega = omega;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  /* our own residual check, not the library's */
  double bmax = 0;
  for (int i = 0; i < n; i++) bmax = fmax(bmax, fabs(b[i]));
  CU_ASSERT(tst_natres_dense(n, A, b, lo, hi, x) <= 1e-12 * fmax(1, bmax) * 1.01);
  /* strictly complementary planted solution, A SPD with lambda_min >= 0.1:
   * |x - x*| <= ||r|| / lambda_min-ish; 1e-9 is generous */
  TST_VEC_CLOSE(x, xs, n, 1e-9, 0);
  free(A);
  free(b);
  free(lo);
  free(hi);
  free(xs);
  free(x);
}

static void test_planted_lcp(void) { planted(60, 0, 11, 1.0); }
static void test_planted_box(void) { planted(50, 1, 12, 1.0); }
static void test_planted_mixed_sor(void) {
  planted(45, 2, 13, 1.0);
  planted(45, 2, 13, 1.4);
  planted(45, 2, 13, 0.6);
}

static void test_findex(void) {
  /* Two contacts, each (normal, t): A = I, b = (-2, 3, -1, -0.2), mu = 0.5.
   * contact 0: x0 = 2, bounds +-1, x1 = mid(-1, 1, -3) = -1 (w1 = 2 >= 0);
   * contact 1: x2 = 1, bounds +-0.5, x3 = 0.2 inside (w3 = 0). */
  double A[16] = { 0 }, b[4] = { -2, 3, -1, -0.2 }, lo[4] = { 0, 0, 0, 0 },
         hi[4] = { INFINITY, 0, INFINITY, 0 }, mu[4] = { 0, 0.5, 0, 0.5 }, x[4];
  int fx[4] = { -1, 0, -1, 2 };
  for (int i = 0; i < 4; i++) A[i + 4 * i] = 1;
  /* couple the contacts a little so it takes more than one sweep */
  A[0 + 4 * 2] = A[2 + 4 * 0] = 0.1;
  /* with the coupling: 0.1 x2 + x0 = 2, 0.1 x0 + x2 = 1 -> x0 = 1.9/0.99, x2 = 0.8/0.99 */
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
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double x0 = 1.9 / 0.99, x2 = 0.8 / 0.99;
  double xe[4] = { x0, -0.5 * x0, x2, 0.2 };
  TST_VEC_CLOSE(x, xe, 4, 1e-13, 0);
}

static void test_csr_matches_dense(void) {
  int n = 30;
  double *A = malloc(sizeof(double) * n * n), b[30], xs[30], xd[30], xc[30];
  tst_planted_spd(n, 0.2, 21, NULL, NULL, A, b, xs);
  /* sparsify: keep a band, then re-plant b for that matrix */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      if (abs(i - j) > 2)
        A[i + j * n] = 0;
      else if (i == j)
        A[i + j * n] += 1.0; /* keep it diagonally dominant */
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i + j * n] * xs[j];
    b[i] = (xs[i] > 0 ? 0 : 0.5) - s; /* w* = 0 where x* > 0, 0.5 where x* = 0 */
  }
  int Ap[31], Aj[30 * 5];
  double Ax[30 * 5];
  tst_dense_to_csr(n, A, Ap, Aj, Ax);
  slv_problem d = slv_problem_empty();
  d.n = n;
  d.A = A;
  d.lda = n;
  d.b = b;
  slv_problem c = slv_problem_empty();
  c.n = n;
  c.storage = SLV_CSR;
  c.Ap = Ap;
  c.Aj = Aj;
  c.Ax = Ax;
  c.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-13;
  slv_result rd, rc;
  CU_ASSERT_EQUAL(run(&d, &o, xd, &rd), SLV_CONVERGED);
  CU_ASSERT_EQUAL(run(&c, &o, xc, &rc), SLV_CONVERGED);
  TST_VEC_CLOSE(xc, xd, n, 1e-12, 0);
  /* the same sweeps in exact arithmetic: the same count up to rounding */
  CU_ASSERT(abs(rd.iterations - rc.iterations) <= 1);
  /* and x is the re-planted solution (strictly complementary) */
  TST_VEC_CLOSE(xd, xs, n, 1e-10, 0);
  free(A);
}

static void test_packed_columns(void) {
  /* n = 150 >= 64 with a mostly-zero dense A (a contact-like band plus a few
   * far couplings): pgs packs the columns.  Its answer must be the planted
   * one, and equal to the CSR run of the same matrix (row form, no packing). */
  enum { M = 150 };
  double *A = calloc((size_t)M * M, sizeof *A), b[M], xs[M], xd[M], xc[M], lo[M], hi[M];
  for (int i = 0; i < M; i++) {
    A[i + i * M] = 4.0;
    if (i + 1 < M) A[i + (i + 1) * M] = A[(i + 1) + i * M] = -1.0;
    if (i + 37 < M) A[i + (i + 37) * M] = A[(i + 37) + i * M] = 0.5;
    lo[i] = i % 4 == 3 ? -0.3 : 0.0;
    hi[i] = i % 4 == 3 ? 0.3 : INFINITY;
    /* planted: x* = 0 (w* = 1) on every third row, x* inside the box otherwise */
    xs[i] = i % 3 == 0 ? lo[i] : (i % 4 == 3 ? 0.1 : 0.5 + 0.01 * i);
  }
  for (int i = 0; i < M; i++) {
    double s = 0;
    for (int j = 0; j < M; j++) s += A[i + j * M] * xs[j];
    b[i] = (i % 3 == 0 ? 1.0 : 0.0) - s;
  }
  int *Ap = malloc((M + 1) * sizeof *Ap), *Aj = malloc(5 * M * sizeof *Aj), nnz = 0;
  double *Ax = malloc(5 * M * sizeof *Ax);
  for (int i = 0; i < M; i++) {
    Ap[i] = nnz;
    for (int j = 0; j < M; j++)
      if (A[i + j * M] != 0) {
        Aj[nnz] = j;
        Ax[nnz++] = A[i + j * M];
      }
  }
  Ap[M] = nnz;
  slv_problem d = slv_problem_empty();
  d.n = M;
  d.A = A;
  d.lda = M;
  d.b = b;
  d.lo = lo;
  d.hi = hi;
  slv_problem c = d;
  c.storage = SLV_CSR;
  c.A = NULL;
  c.Ap = Ap;
  c.Aj = Aj;
  c.Ax = Ax;
  slv_options o = slv_options_default();
  o.tol = 1e-13;
  o.max_iter = 10000;
  o.check_every = 7;
  slv_result rd, rc;
  CU_ASSERT_EQUAL(run(&d, &o, xd, &rd), SLV_CONVERGED);
  CU_ASSERT_EQUAL(run(&c, &o, xc, &rc), SLV_CONVERGED);
  TST_VEC_CLOSE(xd, xs, M, 1e-11, 0);
  TST_VEC_CLOSE(xc, xd, M, 1e-11, 0);
  CU_ASSERT(tst_natres_dense(M, A, b, lo, hi, xd) <= 1e-13 * 1.01 * 8);
  free(A);
  free(Ap);
  free(Aj);
  free(Ax);
}

static void test_warm_start_history(void) {
  int n = 40;
  double *A = malloc(sizeof(double) * n * n), b[40], xs[40], x[40];
  tst_planted_spd(n, 0.05, 31, NULL, NULL, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 5000;
  o.record_history = 1;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(pgs, n, &o, &ws), SLV_OK);
  slv_result cold, warm;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &cold), SLV_CONVERGED);
  CU_ASSERT(cold.iterations > 3);
  CU_ASSERT_EQUAL(cold.history_len, cold.iterations);
  TST_CLOSE(cold.history[cold.history_len - 1], cold.res.res_scaled, 0, 0);
  CU_ASSERT(cold.history[0] > o.tol);
  /* warm start from the solution: no sweep needed */
  o.warm_start = 1;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
  CU_ASSERT_EQUAL(warm.iterations, 0);
  /* warm start near the solution converges in fewer sweeps than cold */
  for (int i = 0; i < n; i++) x[i] = xs[i] + (xs[i] > 0 ? 1e-6 : 0);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
  CU_ASSERT(warm.iterations < cold.iterations);
  slv_workspace_free(ws);
  free(A);
}

static void test_honest_failures(void) {
  /* max_iter 1 on a coupled problem */
  double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -6 }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A;
  p.lda = 2;
  p.b = b;
  slv_options o = slv_options_default();
  o.max_iter = 1;
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT(res.res.res_rel > o.tol);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "pgs"));
  /* A = [[1,10],[10,1]] with free rows: Gauss-Seidel multiplies the error by
   * 100 per sweep and overflows: SLV_NOT_FINITE, never converged. */
  double B[4] = { 1, 10, 10, 1 }, lo[2] = { -INFINITY, -INFINITY }, hi[2] = { INFINITY, INFINITY };
  p.A = B;
  p.lo = lo;
  p.hi = hi;
  b[0] = 1;
  b[1] = 1;
  o.max_iter = 100000;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_NOT_FINITE);
  CU_ASSERT(res.iterations < 1000);
  /* a zero diagonal is refused before solving */
  double C[4] = { 0, 1, 1, 2 };
  p.A = C;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_ERR_UNSUPPORTED);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("pgs", init, NULL);
  CU_add_test(s, "hand 2x2 cases", test_hand_2x2);
  CU_add_test(s, "planted LCP n=60", test_planted_lcp);
  CU_add_test(s, "planted box n=50", test_planted_box);
  CU_add_test(s, "planted mixed free/box/LCP, omega 0.6/1/1.4", test_planted_mixed_sor);
  CU_add_test(s, "findex friction, hand-derived", test_findex);
  CU_add_test(s, "CSR gives the dense answer", test_csr_matches_dense);
  CU_add_test(s, "sparse dense-stored A: packed columns", test_packed_columns);
  CU_add_test(s, "warm start and history", test_warm_start_history);
  CU_add_test(s, "honest failures", test_honest_failures);
  return tst_run();
}
