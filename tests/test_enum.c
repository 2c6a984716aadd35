/* test_enum.c -- the enumeration solver (libsolvers/enum.c): hand-derived
 * cases (LCP, one-sided upper, fixed, free and box rows), the documented
 * order on a problem with several solutions, the lcp_CPS_1 solution set,
 * proven infeasibility (A = -I), a singular-only basis, planted solutions
 * (SPD LCP n = 12, non-symmetric P-matrix n = 10, box n = 8, mixed kinds
 * n = 10, LCP at n = 16), CSR = dense, agreement with pgs, and the refusals
 * (n = 17, too many cases, findex).
 *
 * Tolerances: enum solves each basis by LU and refines twice, so x is exact
 * up to c n eps cond(A_BB) |x|; the planted matrices have lambda_min >= 0.1
 * and entries O(1), |x| <= 2: 1e-12 absolute is ~100x above that bound. */
#include "slv.h"
#include "io.h"
#include "tst_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const slv_solver *en, *pgs;
static slv_workspace *ws16; /* one workspace reused across problems of n <= 16 */

static int init(void) {
  en = slv_solver_find("enum");
  pgs = slv_solver_find("pgs");
  if (!en || !pgs) return 1;
  slv_options o = slv_options_default();
  return slv_workspace_new(en, 16, &o, &ws16) != SLV_OK;
}

static int cleanup(void) {
  slv_workspace_free(ws16);
  return 0;
}

static slv_problem dense(int n, const double *A, const double *b, const double *lo,
                         const double *hi) {
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  return p;
}

/* Solve with the shared workspace, tol 1e-14 (enum is exact). */
static slv_status run(const slv_problem *p, double *x, slv_result *res) {
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  return slv_solve(ws16, p, &o, x, NULL, res);
}

static double bnorm(int n, const double *b) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(b[i]));
  return fmax(1, m);
}

static void test_hand_lcp(void) {
  /* A = [[2,1],[1,2]], b = (-5,-6): both basic, 2x1 + x2 = 5, x1 + 2x2 = 6
   * -> x = (4/3, 7/3), w = 0. */
  double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -6 }, x[2];
  slv_problem p = dense(2, A, b, NULL, NULL);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  double xe[2] = { 4.0 / 3, 7.0 / 3 };
  TST_VEC_CLOSE(x, xe, 2, 1e-15, 0);
  /* order: k=0 {} (w = b < 0), k=1 {0}: x0 = 5/2, w1 = 5/2 - 6 < 0; {1}:
   * x1 = 3, w0 = 3 - 5 < 0; k=2 {0,1}: accepted -> 4 cases */
  CU_ASSERT_EQUAL(res.iterations, 4);
  /* b = (1, -6): x1 = 0 with w1 = x2 + 1 = 4 >= 0, x2 = 3 (case 3 of 4) */
  b[0] = 1;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  double xe2[2] = { 0, 3 };
  TST_VEC_CLOSE(x, xe2, 2, 1e-15, 0);
  CU_ASSERT_EQUAL(res.iterations, 3);

  /* 3x3 LCP, A = [[2,1,0],[1,2,1],[0,1,2]] (SPD: unique), b = (-2, 1, -4).
   * Try x1 = 0: rows 0 and 2 decouple, 2 x0 = 2 -> x0 = 1, 2 x2 = 4 ->
   * x2 = 2; w1 = x0 + x2 + 1 = 4 >= 0.  x = (1, 0, 2), w = (0, 4, 0). */
  double A3[9] = { 2, 1, 0, 1, 2, 1, 0, 1, 2 }, b3[3] = { -2, 1, -4 }, x3[3], w3[3];
  p = dense(3, A3, b3, NULL, NULL);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  CU_ASSERT_EQUAL(slv_solve(ws16, &p, &o, x3, w3, &res), SLV_CONVERGED);
  double xe3[3] = { 1, 0, 2 }, we3[3] = { 0, 4, 0 };
  TST_VEC_CLOSE(x3, xe3, 3, 1e-15, 0);
  TST_VEC_CLOSE(w3, we3, 3, 1e-14, 0);
}

static void test_hand_mixed(void) {
  /* Row 0 free, row 1 LCP (lo = 0), row 2 box [-1, 1];
   * A = [[4,1,1],[1,3,1],[1,1,2]] (diagonally dominant, SPD: unique),
   * b = (-9, -1, -6).  Try x1 = 0 (at lo), x2 = 1 (at hi): row 0 is an
   * equation, 4 x0 + 1 - 9 = 0 -> x0 = 2; then w1 = 2 + 0 + 1 - 1 = 2 >= 0
   * and w2 = 2 + 0 + 2 - 6 = -2 <= 0.  x = (2, 0, 1), w = (0, 2, -2). */
  double A[9] = { 4, 1, 1, 1, 3, 1, 1, 1, 2 }, b[3] = { -9, -1, -6 };
  double lo[3] = { -INFINITY, 0, -1 }, hi[3] = { INFINITY, INFINITY, 1 }, x[3], w[3];
  slv_problem p = dense(3, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(slv_solve(ws16, &p, &o, x, w, &res), SLV_CONVERGED);
  double xe[3] = { 2, 0, 1 }, we[3] = { 0, 2, -2 };
  TST_VEC_CLOSE(x, xe, 3, 1e-15, 0);
  TST_VEC_CLOSE(w, we, 3, 1e-14, 0);
  /* 2 one-sided/box choice rows: 2^1 * 3^1 = 6 cases; k = 0 has 2 of them
   * (x2 at lo: x0 = 2.5 + ..., then x2 at hi: accepted) */
  CU_ASSERT_EQUAL(res.iterations, 2);

  /* One-sided upper row: row 0 lo = -inf, hi = 1; row 1 LCP.
   * A = [[2,1],[1,2]], b = (-4, 1).  x0 = 1 (at hi), x1 = 0 (at lo):
   * w0 = 2 - 4 = -2 <= 0, w1 = 1 + 1 = 2 >= 0.  x = (1, 0). */
  double A2[4] = { 2, 1, 1, 2 }, b2[2] = { -4, 1 }, lo2[2] = { -INFINITY, 0 },
         hi2[2] = { 1, INFINITY };
  double x2[2], w2[2];
  p = dense(2, A2, b2, lo2, hi2);
  CU_ASSERT_EQUAL(slv_solve(ws16, &p, &o, x2, w2, &res), SLV_CONVERGED);
  double xe2[2] = { 1, 0 }, we2[2] = { -2, 2 };
  TST_VEC_CLOSE(x2, xe2, 2, 1e-15, 0);
  TST_VEC_CLOSE(w2, we2, 2, 1e-14, 0);

  /* Fixed row (lo = hi = 0.5) and a free row: x0 = 0.5, w0 free;
   * 0.5 + 2 x1 - 2 = 0 -> x1 = 0.75; w0 = 1 + 0.75 + 3 = 4.75. */
  double b3[2] = { 3, -2 }, lo3[2] = { 0.5, -INFINITY }, hi3[2] = { 0.5, INFINITY };
  p = dense(2, A2, b3, lo3, hi3);
  CU_ASSERT_EQUAL(slv_solve(ws16, &p, &o, x2, w2, &res), SLV_CONVERGED);
  double xe3[2] = { 0.5, 0.75 }, we3[2] = { 4.75, 0 };
  TST_VEC_CLOSE(x2, xe3, 2, 1e-15, 0);
  TST_VEC_CLOSE(w2, we3, 2, 1e-14, 0);
  CU_ASSERT_EQUAL(res.iterations, 1); /* one case: both rows have one state */
}

static void test_order_several_solutions(void) {
  /* A = [[1,2],[2,1]] (not a P-matrix), b = (-1,-1) has three solutions:
   * (1,0) [w = (0,1)], (0,1) [w = (1,0)], (1/3,1/3) [w = 0].  The documented
   * order (support size, then lexicographic): k = 0 {} gives w = b < 0;
   * k = 1 {0}: x0 = 1, w1 = 2 - 1 = 1 >= 0: accepted at the 2nd case. */
  double A[4] = { 1, 2, 2, 1 }, b[2] = { -1, -1 }, x[2];
  slv_problem p = dense(2, A, b, NULL, NULL);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  double xe[2] = { 1, 0 };
  TST_VEC_CLOSE(x, xe, 2, 1e-15, 0);
  CU_ASSERT_EQUAL(res.iterations, 2);
}

/* lcp_CPS_1 (Cottle-Pang-Stone remark 4.1.14): A = [[1,1],[1,1]], b = (-1,-1);
 * solution set x1 + x2 = 1, x >= 0.  Any returned x must be in that set:
 * checked with our own residual, not the library's. */
static void check_cps1(const slv_problem *p, const double *x) {
  CU_ASSERT(tst_natres_dense(2, p->A, p->b, NULL, NULL, x) <= 1e-15);
  TST_CLOSE(x[0] + x[1], 1.0, 1e-15, 0);
  CU_ASSERT(x[0] >= 0 && x[1] >= 0);
}

static void test_cps1_solution_set(void) {
  double A[4] = { 1, 1, 1, 1 }, b[2] = { -1, -1 }, x[2];
  slv_problem p = dense(2, A, b, NULL, NULL);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  check_cps1(&p, x);
  /* the first in the documented order: basic set {0}, x = (1, 0) */
  double xe[2] = { 1, 0 };
  TST_VEC_CLOSE(x, xe, 2, 1e-15, 0);
  /* a box version: lo = 0, hi = 0.25: x1 + x2 <= 0.5 < 1, so w =
   * x1 + x2 - 1 < 0 on both rows: both at hi, x = (0.25, 0.25), w = -0.5
   * (found at k = 0, the 4th lo/hi choice). */
  double lo[2] = { 0, 0 }, hi[2] = { 0.25, 0.25 };
  p.lo = lo;
  p.hi = hi;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  double xe2[2] = { 0.25, 0.25 };
  TST_VEC_CLOSE(x, xe2, 2, 1e-15, 0);
  CU_ASSERT_EQUAL(res.iterations, 4);

  /* the Siconos file itself, when the shared datasets are (LCPLAB_SHARED) */
  char path[4096], err[512];
  if (!tst_shared_path("datasets/siconos/lcp/lcp_CPS_1.dat", path, sizeof path)) {
    printf("\n    SKIP: ../shared/datasets absent (lcp_CPS_1.dat) ");
    return;
  }
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &inst, err, sizeof err), SLV_CONVERGED);
  slv_problem q = io_instance_problem(inst);
  CU_ASSERT_EQUAL(q.n, 2);
  CU_ASSERT_EQUAL(run(&q, x, &res), SLV_CONVERGED);
  check_cps1(&q, x);
  io_instance_free(inst);
}

static void test_no_solution(void) {
  /* A = -I, b = -1: w = -x - 1 <= -1 < 0 for every x >= 0, so no solution.
   * All 2^3 bases are nonsingular: SLV_NO_SOLUTION after 8 cases. */
  double A[9] = { -1, 0, 0, 0, -1, 0, 0, 0, -1 }, b[3] = { -1, -1, -1 }, x[3];
  slv_problem p = dense(3, A, b, NULL, NULL);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_NO_SOLUTION);
  CU_ASSERT_EQUAL(res.iterations, 8);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "no solution"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "8 cases"));
  CU_ASSERT(res.res.res_rel > 0.5); /* the closest case is far off */

  /* every basis singular: free row, A = 0, b = 0.  Every x solves it, but
   * no nonsingular basis exists, so enum cannot prove or find anything:
   * SLV_SINGULAR_PIVOT, not "no solution".  Its x, the start 0, is one of
   * the answers, and the verdict on it is converged (docs/convergence.md,
   * "The verdict on the final iterate"); enum's own status is kept. */
  double Z[1] = { 0 }, bz[1] = { 0 }, lz[1] = { -INFINITY }, hz[1] = { INFINITY };
  p = dense(1, Z, bz, lz, hz);
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(res.solver_status, SLV_SINGULAR_PIVOT);
  CU_ASSERT_EQUAL(x[0], 0.0);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "enum ended singular_pivot"));
}

/* Planted SPD problem (tst_planted_spd), solved by enum; checks x against
 * x* and our own residual. */
static void planted(int n, unsigned long seed, const double *lo, const double *hi) {
  double *A = malloc(sizeof(double) * n * n), b[16], xs[16], x[16];
  tst_planted_spd(n, 0.1, seed, lo, hi, A, b, xs);
  slv_problem p = dense(n, A, b, lo, hi);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, n, 1e-12, 0);
  CU_ASSERT(tst_natres_dense(n, A, b, lo, hi, x) <= 1e-14 * bnorm(n, b));
  CU_ASSERT(res.iterations >= 1);
  free(A);
}

static void test_planted_spd12(void) { planted(12, 41, NULL, NULL); }

static void test_planted_lcp16(void) { planted(16, 42, NULL, NULL); } /* 2^16 cases max */

static void test_planted_box8(void) {
  double lo[8], hi[8];
  for (int i = 0; i < 8; i++) {
    lo[i] = -0.1 - 0.9 * (i % 5) / 5.0;
    hi[i] = 0.1 + 0.9 * (i % 3) / 3.0;
  }
  planted(8, 43, lo, hi); /* 3^8 = 6561 cases */
  planted(8, 44, lo, hi);
}

static void test_planted_mixed10(void) {
  /* every row kind: lower, upper (hi = 0.5), box, free, fixed */
  double lo[10], hi[10];
  for (int i = 0; i < 10; i++) {
    switch (i % 5) {
    case 0:
      lo[i] = 0;
      hi[i] = INFINITY;
      break;
    case 1:
      lo[i] = -INFINITY;
      hi[i] = 0.5;
      break;
    case 2:
      lo[i] = -0.5;
      hi[i] = 0.3;
      break;
    case 3:
      lo[i] = -INFINITY;
      hi[i] = INFINITY;
      break;
    default: lo[i] = hi[i] = 0.2; break;
    }
  }
  planted(10, 45, lo, hi);
}

static void test_planted_pmatrix10(void) {
  /* A = B B^T / n + 0.1 I + (C - C^T) / sqrt(n): x^T A x = x^T (B B^T/n +
   * 0.1 I) x > 0 for x != 0, so A is positive definite (non-symmetric), a
   * P-matrix: the LCP has exactly one solution, the planted one.  x*_i in
   * [0.2, 1.2] with w*_i = 0 on even i, x*_i = 0 with w*_i in [0.2, 1.2] on
   * odd i (strictly complementary); b = w* - A x*. */
  enum { n = 10 };
  double A[n * n], Bm[n * n], C[n * n], b[n], xs[n], ws[n], x[n];
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 46);
  for (int k = 0; k < n * n; k++) {
    Bm[k] = 2 * gsl_rng_uniform(r) - 1;
    C[k] = 2 * gsl_rng_uniform(r) - 1;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += Bm[i + k * n] * Bm[j + k * n];
      A[i + j * n] = s / n + (i == j ? 0.1 : 0) + (C[i + j * n] - C[j + i * n]) / sqrt(n);
    }
  for (int i = 0; i < n; i++) {
    double u = 0.2 + gsl_rng_uniform(r);
    xs[i] = i % 2 == 0 ? u : 0;
    ws[i] = i % 2 == 0 ? 0 : u;
  }
  gsl_rng_free(r);
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i + j * n] * xs[j];
    b[i] = ws[i] - s;
  }
  slv_problem p = dense(n, A, b, NULL, NULL);
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, x, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, n, 1e-12, 0);
  CU_ASSERT(tst_natres_dense(n, A, b, NULL, NULL, x) <= 1e-14 * bnorm(n, b));
  /* the support {0,2,4,6,8} has size 5; sizes 0..4 hold 1 + 10 + 45 +
   * 120 + 210 = 386 cases, and {0,2,4,6,8} is not the first 5-subset: the
   * documented order examined more than 386 cases */
  CU_ASSERT(res.iterations > 386);
}

static void test_csr_matches_dense(void) {
  enum { n = 12 };
  double A[n * n], b[n], xs[n], xd[n], xc[n];
  tst_planted_spd(n, 0.1, 47, NULL, NULL, A, b, xs);
  int Ap[n + 1], Aj[n * n], nnz = 0;
  double Ax[n * n];
  for (int i = 0; i < n; i++) {
    Ap[i] = nnz;
    for (int j = 0; j < n; j++) {
      Aj[nnz] = j;
      Ax[nnz++] = A[i + j * n];
    }
  }
  Ap[n] = nnz;
  slv_problem d = dense(n, A, b, NULL, NULL);
  slv_problem c = slv_problem_empty();
  c.n = n;
  c.storage = SLV_CSR;
  c.Ap = Ap;
  c.Aj = Aj;
  c.Ax = Ax;
  c.b = b;
  slv_result rd, rc;
  CU_ASSERT_EQUAL(run(&d, xd, &rd), SLV_CONVERGED);
  CU_ASSERT_EQUAL(run(&c, xc, &rc), SLV_CONVERGED);
  TST_VEC_CLOSE(xc, xd, n, 0, 0); /* the same dense copy, the same arithmetic */
  TST_VEC_CLOSE(xd, xs, n, 1e-12, 0);
  CU_ASSERT_EQUAL(rd.iterations, rc.iterations);
}

static void test_agrees_with_pgs(void) {
  /* SPD (unique solution): enum and pgs (tol 1e-13) give the same x */
  for (int kind = 0; kind < 2; kind++) {
    enum { n = 11 };
    double A[n * n], b[n], xs[n], xe[n], xp[n], lo[n], hi[n];
    for (int i = 0; i < n; i++) {
      lo[i] = kind ? -0.3 - 0.05 * i : 0;
      hi[i] = kind ? 0.2 + 0.07 * i : INFINITY;
    }
    tst_planted_spd(n, 0.3, 48 + kind, lo, hi, A, b, xs);
    slv_problem p = dense(n, A, b, lo, hi);
    slv_options o = slv_options_default();
    o.tol = 1e-13;
    o.max_iter = 100000;
    slv_workspace *wp;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(pgs, n, &o, &wp), SLV_OK);
    slv_result rp, re;
    CU_ASSERT_EQUAL(slv_solve(wp, &p, &o, xp, NULL, &rp), SLV_CONVERGED);
    slv_workspace_free(wp);
    CU_ASSERT_EQUAL(run(&p, xe, &re), SLV_CONVERGED);
    /* pgs at res 1e-13 with lambda_min(A) >= 0.3: |x - x*| <~ 1e-12 */
    TST_VEC_CLOSE(xe, xp, n, 1e-11, 0);
    TST_VEC_CLOSE(xe, xs, n, 1e-12, 0);
  }
}

static void test_refusals(void) {
  enum { n = 17 };
  double A[n * n], b[n], xs[n], x[n], lo[n], hi[n];
  tst_planted_spd(n, 0.1, 49, NULL, NULL, A, b, xs);
  slv_problem p = dense(n, A, b, NULL, NULL);
  slv_options o = slv_options_default();
  slv_workspace *w17;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(en, n, &o, &w17), SLV_OK);
  slv_result res;
  CU_ASSERT_EQUAL(slv_solve(w17, &p, &o, x, NULL, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "n <= 16"));
  /* n = 16 but 9 box + 7 LCP rows: 2^7 * 3^9 = 2519424 cases > 2^18 */
  p.n = 16;
  p.lda = n;
  for (int i = 0; i < 16; i++) {
    lo[i] = i < 9 ? -1 : 0;
    hi[i] = i < 9 ? 1 : INFINITY;
  }
  p.lo = lo;
  p.hi = hi;
  CU_ASSERT_EQUAL(slv_solve(w17, &p, &o, x, NULL, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "2^7 * 3^9 = 2519424"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "262144"));
  CU_ASSERT_EQUAL(res.iterations, 0);
  /* ... while with rows 0..4 fixed (lo = hi = 0), 2^7 * 3^4 = 10368 cases,
   * it is solved (SPD A: a solution exists) */
  for (int i = 0; i < 5; i++) lo[i] = hi[i] = 0;
  CU_ASSERT_EQUAL(slv_solve(w17, &p, &o, x, NULL, &res), SLV_CONVERGED);
  slv_workspace_free(w17);
  /* findex rows are not supported */
  double A2[4] = { 1, 0, 0, 1 }, b2[2] = { -1, 0 }, mu[2] = { 0, 0.5 }, lo2[2] = { 0, -1 },
         hi2[2] = { INFINITY, 1 };
  int fx[2] = { -1, 0 };
  slv_problem q = dense(2, A2, b2, lo2, hi2);
  q.findex = fx;
  q.mu = mu;
  CU_ASSERT_EQUAL(run(&q, x, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "findex"));
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("enum", init, cleanup);
  CU_add_test(s, "hand LCP 2x2 / 3x3, case counts", test_hand_lcp);
  CU_add_test(s, "hand free / box / upper / fixed rows", test_hand_mixed);
  CU_add_test(s, "several solutions: the documented first", test_order_several_solutions);
  CU_add_test(s, "lcp_CPS_1 solution set x1 + x2 = 1", test_cps1_solution_set);
  CU_add_test(s, "A = -I: no solution; singular-only: singular", test_no_solution);
  CU_add_test(s, "planted SPD LCP n=12", test_planted_spd12);
  CU_add_test(s, "planted SPD LCP n=16 (2^16 cases)", test_planted_lcp16);
  CU_add_test(s, "planted box n=8 (3^8 cases)", test_planted_box8);
  CU_add_test(s, "planted mixed row kinds n=10", test_planted_mixed10);
  CU_add_test(s, "planted non-symmetric P-matrix n=10", test_planted_pmatrix10);
  CU_add_test(s, "CSR gives the dense answer", test_csr_matches_dense);
  CU_add_test(s, "agrees with pgs (SPD LCP and box)", test_agrees_with_pgs);
  CU_add_test(s, "refusals: n=17, too many cases, findex", test_refusals);
  return tst_run();
}
