/* test_dantzig.c -- principal pivoting (libsolvers/dantzig.c): hand-derived
 * box / free / findex cases, planted SPD problems (LCP, box with bounds on
 * either side of 0, mixed free/box/LCP, a sparse one for the packed-column
 * path), agreement with pgs, friction bounds that move (the single pass is
 * wrong, the outer passes reach 1e-9) and an honest status on random contact
 * problems, breakdown on indefinite A and on a ray, singular PSD A and
 * redundant rows, the pivot limit, warm start, workspace reuse, refusals,
 * and the Siconos relay / MLCP files (skipped without the shared datasets,
 * LCPLAB_SHARED).
 *
 * Every solution is judged by this file's own residual (findex bounds taken
 * at the final x), never by the library's numbers alone.  Pivoting is exact
 * up to rounding: tolerances are c n eps scaled by the conditioning of the
 * planted matrices (A = B B^T / n + eps_A I has cond <= ~4 / eps_A).
 */
#include "slv.h"
#include "io.h"
#include "tst_pivot.h"
#include "tst_util.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const slv_solver *dz, *pgs;

static int init(void) {
  dz = slv_solver_find("dantzig");
  pgs = slv_solver_find("pgs");
  return dz && pgs ? 0 : 1;
}

/* Solve with a fresh workspace of size p->n; returns the status. */
static slv_status run_with(const slv_solver *s, const slv_problem *p, slv_options *o, double *x,
                           slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(s, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  return run_with(dz, p, o, x, res);
}

/* The test's own ||mid(x - hi, w, x - lo)||_inf / max(1, ||b||_inf) for a
 * dense problem, findex bounds -mu_i |x_j| .. mu_i |x_j| at this x. */
static double own_res(const slv_problem *p, const double *x) {
  int n = p->n;
  double r = 0, bmax = 0;
  for (int i = 0; i < n; i++) {
    double w = p->b[i];
    for (int j = 0; j < n; j++) w += p->A[i + (size_t)j * p->lda] * x[j];
    double lo = p->lo ? p->lo[i] : 0, hi = p->hi ? p->hi[i] : INFINITY;
    if (p->findex && p->findex[i] >= 0) {
      hi = p->mu[i] * fabs(x[p->findex[i]]);
      lo = -hi;
    }
    double m = fmax(x[i] - hi, fmin(w, x[i] - lo));
    if (!isfinite(m)) return INFINITY;
    r = fmax(r, fabs(m));
    bmax = fmax(bmax, fabs(p->b[i]));
  }
  return r / fmax(1.0, bmax);
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

/* ---- hand-derived cases ----------------------------------------------------- */

static void test_hand_lcp(void) {
  /* A = [[2,1],[1,2]], b = (-5,-6), LCP.  Both clamped: 2x1 + x2 = 5,
   * x1 + 2x2 = 6 -> x = (4/3, 7/3), w = 0.  Each row joins C with one
   * pivot and nothing leaves: 2 pivots.
   * b = (1,-6): x1 = 0, x2 = 3 (2 x2 = 6), w1 = x2 + 1 = 4 >= 0. */
  double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -6 }, x[2];
  slv_problem p = dense(2, A, b, NULL, NULL);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = { 4.0 / 3, 7.0 / 3 };
  TST_VEC_CLOSE(x, xe, 2, 1e-14, 0);
  CU_ASSERT_EQUAL(res.pivots, 2);
  b[0] = 1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe2[2] = { 0, 3 };
  TST_VEC_CLOSE(x, xe2, 2, 1e-14, 0);
  CU_ASSERT(own_res(&p, x) <= 1e-15);
}

static void test_hand_box(void) {
  /* A = [[2,1,0],[1,2,0],[0,0,4]], b = (-6, 2, 2), box [-1, 1] each.
   * Row 3 is decoupled: 4 x3 + 2 = 0 -> x3 = -0.5, inside.
   * Rows 1, 2: the free solution of [[2,1],[1,2]] x = (6,-2) is
   * (14/3, -10/3), outside.  Try x1 = hi = 1: w2 = 1 + 2 x2 + 2 = 0 gives
   * x2 = -1.5 < lo, so x2 = lo = -1 with w2 = 1 - 2 + 2 = 1 >= 0 (at lo:
   * ok), and w1 = 2 - 1 - 6 = -5 <= 0 (at hi: ok).
   * x = (1, -1, -0.5), w = (-5, 1, 0). */
  double A[9] = { 2, 1, 0, 1, 2, 0, 0, 0, 4 }, b[3] = { -6, 2, 2 };
  double lo[3] = { -1, -1, -1 }, hi[3] = { 1, 1, 1 }, x[3], w[3];
  slv_problem p = dense(3, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(dz, 3, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, w, &res), SLV_CONVERGED);
  double xe[3] = { 1, -1, -0.5 }, we[3] = { -5, 1, 0 };
  TST_VEC_CLOSE(x, xe, 3, 1e-14, 0);
  TST_VEC_CLOSE(w, we, 3, 1e-14, 0);
  /* bounds that exclude 0 (ODE needs lo <= 0 <= hi): row 1 in [2, 3],
   * row 2 in [-3, -2], row 3 in [0.25, 1].  Row 3: free value -0.5 < 0.25,
   * so x3 = 0.25, w3 = 1 + 2 = 3 >= 0.  Rows 1, 2 with x2 = -2 (hi):
   * w1 = 2 x1 - 2 - 6 = 0 -> x1 = 4 > 3, so x1 = hi = 3, w1 = 6 - 2 - 6
   * = -2 <= 0; then w2 = 3 - 4 + 2 = 1 > 0 at hi is wrong, so x2 moves
   * down to w2 = 0: x2 = -2.5 inside [-3, -2]; w1 = 6 - 2.5 - 6 = -2.5.
   * x = (3, -2.5, 0.25), w = (-2.5, 0, 3). */
  double lo2[3] = { 2, -3, 0.25 }, hi2[3] = { 3, -2, 1 };
  p.lo = lo2;
  p.hi = hi2;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, w, &res), SLV_CONVERGED);
  double xe2[3] = { 3, -2.5, 0.25 }, we2[3] = { -2.5, 0, 3 };
  TST_VEC_CLOSE(x, xe2, 3, 1e-14, 0);
  TST_VEC_CLOSE(w, we2, 3, 1e-14, 0);
  slv_workspace_free(ws);
}

static void test_hand_free(void) {
  /* A = [[4,1],[1,3]], row 1 free, row 2 LCP.
   * b = (-2,-3): x2 > 0 and w = 0: 4x1 + x2 = 2, x1 + 3x2 = 3 ->
   *   x = (3/11, 10/11).
   * b = (-1, 2): x2 = 0: 4 x1 = 1 -> x1 = 1/4, w2 = 1/4 + 2 = 9/4 >= 0.
   * b = (4, -1): x2 > 0: 4x1 + x2 = -4, x1 + 3x2 = 1 -> x = (-13/11, 8/11):
   *   a negative free x. */
  double A[4] = { 4, 1, 1, 3 }, b[2] = { -2, -3 }, x[2];
  double lo[2] = { -INFINITY, 0 }, hi[2] = { INFINITY, INFINITY };
  slv_problem p = dense(2, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = { 3.0 / 11, 10.0 / 11 };
  TST_VEC_CLOSE(x, xe, 2, 1e-14, 0);
  b[0] = -1;
  b[1] = 2;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe2[2] = { 0.25, 0 };
  TST_VEC_CLOSE(x, xe2, 2, 1e-14, 0);
  b[0] = 4;
  b[1] = -1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe3[2] = { -13.0 / 11, 8.0 / 11 };
  TST_VEC_CLOSE(x, xe3, 2, 1e-14, 0);
}

static void test_hand_findex(void) {
  /* One contact: normal row 0 (lo 0, hi inf), friction row 1 with
   * findex 0, mu = 0.5.  A = [[2, 0.5],[0.5, 1]], b = (-2, -3).
   * Sticking (w1 = 0): 2x0 + 0.5x1 = 2, 0.5x0 + x1 = 3 -> x = (2/7, 20/7),
   *   but |x1| = 20/7 > mu x0 = 1/7: not valid.
   * Sliding at +mu x0 (w1 <= 0): w0 = 2x0 + 0.25x0 - 2 = 0 -> x0 = 8/9,
   *   x1 = 4/9, w1 = 0.5 (8/9) + 4/9 - 3 = -19/9 <= 0: the solution.
   * The friction bound moves with x0: a pass with the bound frozen at the
   * start (x0 = 0, so x1 = 0) gives x = (1, 0), where row 1 is inside
   * [-0.5, 0.5] with w1 = -2.5: natural-map residual 0.5, res_rel 0.5/3.
   * From that pass's active set the Newton step on the bound (x1 = mu x0,
   * row 0 clamped) is the exact answer. */
  double A[4] = { 2, 0.5, 0.5, 1 }, b[2] = { -2, -3 }, x[2];
  double lo[2] = { 0, -0.5 }, hi[2] = { INFINITY, 0.5 }, mu[2] = { 0, 0.5 };
  int fi[2] = { -1, 0 };
  slv_problem p = dense(2, A, b, lo, hi);
  p.findex = fi;
  p.mu = mu;
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = { 8.0 / 9, 4.0 / 9 };
  TST_VEC_CLOSE(x, xe, 2, 1e-14, 0);
  CU_ASSERT(own_res(&p, x) <= 1e-14);
  CU_ASSERT_EQUAL(res.iterations, 1); /* one pass, then the Newton point */
  /* one pass only: the bounds stay frozen, honest non-convergence */
  o.max_iter = 1;
  slv_status st = run(&p, &o, x, &res);
  CU_ASSERT_EQUAL(st, SLV_MAX_ITER);
  TST_CLOSE(own_res(&p, x), 0.5 / 3, 1e-14, 0);
  CU_ASSERT(strlen(res.message) > 0);
}

/* ---- planted problems ------------------------------------------------------- */

/* kind 0: LCP; 1: box on both sides of 0; 2: bounds excluding 0 (lo > 0 or
 * hi < 0); 3: mixed free / box / LCP. */
static void bounds_of_kind(int n, int kind, double *lo, double *hi) {
  for (int i = 0; i < n; i++) {
    lo[i] = 0;
    hi[i] = INFINITY;
    if (kind == 1 || (kind == 3 && i % 3 == 1)) {
      lo[i] = -0.1 - 0.9 * (i % 7) / 7.0;
      hi[i] = 0.1 + 0.9 * (i % 5) / 5.0;
    }
    if (kind == 2) {
      if (i % 2) {
        lo[i] = 0.5 + 0.1 * (i % 3);
        hi[i] = lo[i] + 1;
      } else {
        hi[i] = -0.5 - 0.1 * (i % 3);
        lo[i] = hi[i] - 1;
      }
    }
    if (kind == 3 && i % 3 == 2) {
      lo[i] = -INFINITY;
      hi[i] = INFINITY;
    }
  }
}

static void planted(int n, int kind, unsigned long seed) {
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *xp = malloc(sizeof(double) * n);
  bounds_of_kind(n, kind, lo, hi);
  double epsA = 0.1;
  tst_planted_spd(n, epsA, seed, lo, hi, A, b, xs);
  slv_problem p = dense(n, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  /* exact up to rounding: |x - x*| <= cond * n eps * scale, cond <= 4/epsA */
  double tol = 1e3 * n * DBL_EPSILON / epsA;
  TST_VEC_CLOSE(x, xs, n, tol, tol);
  CU_ASSERT(own_res(&p, x) <= 1e-13);
  CU_ASSERT(res.pivots >= 1 && res.pivots <= 50 * n);
  /* agreement with pgs (unique solution): pgs at 1e-12 is within
   * cond * 1e-12 of it */
  slv_options op = slv_options_default();
  op.tol = 1e-12;
  op.max_iter = 200000;
  CU_ASSERT_EQUAL(run_with(pgs, &p, &op, xp, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xp, n, 1e-9, 0);
  free(A);
  free(b);
  free(lo);
  free(hi);
  free(xs);
  free(x);
  free(xp);
}

static void test_planted_lcp(void) {
  planted(40, 0, 11);
  planted(120, 0, 12);
}
static void test_planted_box(void) {
  planted(50, 1, 21);
  planted(110, 1, 22);
  planted(250, 1, 23); /* from 200 rows: the sweeps' guess (block_pivot.h) */
}
static void test_planted_shifted(void) { planted(60, 2, 31); }
static void test_planted_mixed(void) {
  planted(45, 3, 41);
  planted(100, 3, 42);
  planted(250, 3, 43); /* free rows given, the sweeps' guess after them */
}

/* Sparse SPD stored dense (the packed-column path, n >= 64): a banded
 * matrix plus a few random symmetric couplings, diagonally dominant;
 * planted like tst_planted_spd.  Mixed LCP / box / free rows. */
static void test_planted_sparse(void) {
  int n = 150;
  double *A = calloc((size_t)n * n, sizeof *A), *b = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *ws = malloc(sizeof(double) * n);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 51);
  bounds_of_kind(n, 3, lo, hi);
  for (int i = 0; i < n; i++) {
    for (int c = 1; c <= 2 && i + c < n; c++) {
      double v = gsl_rng_uniform(r) - 0.5;
      A[i + (size_t)(i + c) * n] = A[i + c + (size_t)i * n] = v;
    }
    int j = (int)gsl_rng_uniform_int(r, (unsigned long)n);
    if (j != i) {
      double v = gsl_rng_uniform(r) - 0.5;
      A[i + (size_t)j * n] += v;
      A[j + (size_t)i * n] += v;
    }
  }
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++)
      if (j != i) s += fabs(A[i + (size_t)j * n]);
    A[i + (size_t)i * n] = s + 0.5; /* strictly diagonally dominant: SPD */
  }
  /* planted x*, w*: at lo, at hi or inside, one third each */
  for (int i = 0; i < n; i++) {
    double u = gsl_rng_uniform(r);
    int flo = isfinite(lo[i]), fhi = isfinite(hi[i]);
    if (u < 1.0 / 3 && flo) {
      xs[i] = lo[i];
      ws[i] = 0.1 + gsl_rng_uniform(r);
    } else if (u < 2.0 / 3 && fhi) {
      xs[i] = hi[i];
      ws[i] = -0.1 - gsl_rng_uniform(r);
    } else {
      double a = flo ? lo[i] : -2, c = fhi ? hi[i] : 2;
      xs[i] = a + (c - a) * (0.1 + 0.8 * gsl_rng_uniform(r));
      ws[i] = 0;
    }
  }
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i + (size_t)j * n] * xs[j];
    b[i] = ws[i] - s;
  }
  gsl_rng_free(r);
  slv_problem p = dense(n, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, n, 1e3 * n * DBL_EPSILON, 1e3 * n * DBL_EPSILON);
  CU_ASSERT(own_res(&p, x) <= 1e-13);
  free(A);
  free(b);
  free(lo);
  free(hi);
  free(xs);
  free(x);
  free(ws);
}

/* Rank-deficient PSD A = B B^T (B n x n/2): Schur complements of 0 appear
 * once |C| reaches the rank; the rows that would make A_CC singular stay at
 * their bound (their dw is 0).  Planted feasible b, so a solution exists;
 * it need not be unique, so only the residual is judged. */
static void test_singular_psd(void) {
  int n = 60, rk = 30;
  double *B = malloc(sizeof(double) * n * rk), *A = malloc(sizeof(double) * n * n);
  double *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  for (unsigned long seed = 61; seed < 64; seed++) {
    gsl_rng_set(r, seed);
    for (int k = 0; k < n * rk; k++) B[k] = gsl_rng_uniform(r) * 2 - 1;
    for (int i = 0; i < n; i++)
      for (int j = 0; j <= i; j++) {
        double s = 0;
        for (int k = 0; k < rk; k++) s += B[i + (size_t)k * n] * B[j + (size_t)k * n];
        A[i + (size_t)j * n] = A[j + (size_t)i * n] = s / rk;
      }
    for (int i = 0; i < n; i++) xs[i] = (i % 2) ? gsl_rng_uniform(r) : 0;
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += A[i + (size_t)j * n] * xs[j];
      b[i] = ((i % 2) ? 0 : gsl_rng_uniform(r)) - s;
    }
    slv_problem p = dense(n, A, b, NULL, NULL);
    slv_options o = slv_options_default();
    o.tol = 1e-12;
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    if (st != SLV_CONVERGED) fprintf(stderr, "seed %lu: %s\n", seed, res.message);
    CU_ASSERT(own_res(&p, x) <= 1e-12);
  }
  gsl_rng_free(r);
  free(B);
  free(A);
  free(b);
  free(x);
  free(xs);
}

/* ---- findex: friction bounds that move -------------------------------------- */

/* A small contact problem A = J W J^T + cfm I in the style of the peers'
 * contact-box generator (gen_lcp): nc contacts on nb free bodies
 * (6 DOF, W = diag of inverse masses), each contact a normal row
 * (lo 0, hi inf) and two tangent rows with findex = the normal, mu; b = J v
 * with a random v, minus |N| on the normals (approaching contacts). */
static void contact_box(int nc, int nb, double mu, double cfm, unsigned long seed, double *A,
                        double *b, double *lo, double *hi, int *fi, double *mus) {
  int n = 3 * nc, nd = 6 * nb;
  double *J = calloc((size_t)n * nd, sizeof *J), *Wi = malloc(sizeof(double) * nd);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  for (int k = 0; k < nb; k++) {
    double m = 0.5 + 1.5 * gsl_rng_uniform(r);
    for (int c = 0; c < 6; c++) Wi[6 * k + c] = 1.0 / (c < 3 ? m : m * (0.2 + gsl_rng_uniform(r)));
  }
  for (int c = 0; c < nc; c++) {
    int ba = (int)gsl_rng_uniform_int(r, (unsigned long)nb), bb = (c % 3 == 0) ? -1 : (ba + 1) % nb;
    double d[3][3];
    for (int k = 0; k < 3; k++) d[0][k] = gsl_rng_uniform(r) - 0.5;
    double s = sqrt(d[0][0] * d[0][0] + d[0][1] * d[0][1] + d[0][2] * d[0][2]);
    for (int k = 0; k < 3; k++) d[0][k] /= s;
    /* t1 = n x e, t2 = n x t1 with e the axis least aligned with n */
    int ax = fabs(d[0][0]) < fabs(d[0][1]) ? (fabs(d[0][0]) < fabs(d[0][2]) ? 0 : 2)
                                           : (fabs(d[0][1]) < fabs(d[0][2]) ? 1 : 2);
    double e[3] = { 0, 0, 0 };
    e[ax] = 1;
    d[1][0] = d[0][1] * e[2] - d[0][2] * e[1];
    d[1][1] = d[0][2] * e[0] - d[0][0] * e[2];
    d[1][2] = d[0][0] * e[1] - d[0][1] * e[0];
    s = sqrt(d[1][0] * d[1][0] + d[1][1] * d[1][1] + d[1][2] * d[1][2]);
    for (int k = 0; k < 3; k++) d[1][k] /= s;
    d[2][0] = d[0][1] * d[1][2] - d[0][2] * d[1][1];
    d[2][1] = d[0][2] * d[1][0] - d[0][0] * d[1][2];
    d[2][2] = d[0][0] * d[1][1] - d[0][1] * d[1][0];
    double ra[3], rb[3];
    for (int k = 0; k < 3; k++) {
      ra[k] = gsl_rng_uniform(r) - 0.5;
      rb[k] = gsl_rng_uniform(r) - 0.5;
    }
    for (int t = 0; t < 3; t++) {
      int row = 3 * c + t;
      const double *u = d[t];
      double ca[3] = { ra[1] * u[2] - ra[2] * u[1], ra[2] * u[0] - ra[0] * u[2],
                       ra[0] * u[1] - ra[1] * u[0] };
      double cb[3] = { rb[1] * u[2] - rb[2] * u[1], rb[2] * u[0] - rb[0] * u[2],
                       rb[0] * u[1] - rb[1] * u[0] };
      for (int k = 0; k < 3; k++) {
        J[row + (size_t)(6 * ba + k) * n] = u[k];
        J[row + (size_t)(6 * ba + 3 + k) * n] = ca[k];
        if (bb >= 0) {
          J[row + (size_t)(6 * bb + k) * n] = -u[k];
          J[row + (size_t)(6 * bb + 3 + k) * n] = -cb[k];
        }
      }
    }
  }
  double tr = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double s = 0;
      for (int k = 0; k < nd; k++) s += J[i + (size_t)k * n] * Wi[k] * J[j + (size_t)k * n];
      A[i + (size_t)j * n] = A[j + (size_t)i * n] = s;
      if (i == j) tr += s;
    }
  for (int i = 0; i < n; i++) A[i + (size_t)i * n] += cfm * tr / n;
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int k = 0; k < nd; k++) s += J[i + (size_t)k * n] * (gsl_rng_uniform(r) * 2 - 1);
    b[i] = s - (i % 3 == 0 ? 0.2 + gsl_rng_uniform(r) : 0);
    lo[i] = i % 3 == 0 ? 0 : -mu;
    hi[i] = i % 3 == 0 ? INFINITY : mu;
    fi[i] = i % 3 == 0 ? -1 : i - i % 3;
    mus[i] = i % 3 == 0 ? 0 : mu;
  }
  gsl_rng_free(r);
  free(J);
  free(Wi);
}

static void test_findex_moving_bounds(void) {
  /* 6 contacts on 3 bodies, mu = 0.5: the normals change once friction
   * acts, so the bounds of the first pass (frictionless normals) are not
   * the final ones: one pass is wrong, the outer passes reach 1e-9 with the
   * bounds at the final x. */
  enum { NC = 6, N = 3 * NC };
  double A[N * N], b[N], lo[N], hi[N], mu[N], x[N], x1[N];
  int fi[N];
  contact_box(NC, 3, 0.5, 1e-3, 71, A, b, lo, hi, fi, mu);
  slv_problem p = dense(N, A, b, lo, hi);
  p.findex = fi;
  p.mu = mu;
  slv_options o = slv_options_default();
  o.tol = 1e-9;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(own_res(&p, x) <= 1e-9);
  CU_ASSERT(res.iterations >= 2);
  int sliding = 0;
  for (int i = 0; i < N; i++)
    if (fi[i] >= 0 && x[fi[i]] > 0 && fabs(fabs(x[i]) - mu[i] * x[fi[i]]) <= 1e-12) sliding++;
  CU_ASSERT(sliding >= 1); /* friction at its moving bound somewhere */
  o.max_iter = 1;
  CU_ASSERT_EQUAL(run(&p, &o, x1, &res), SLV_MAX_ITER);
  CU_ASSERT(own_res(&p, x1) > 1e-3);
  double dn = 0;
  for (int i = 0; i < N; i += 3) dn = fmax(dn, fabs(x[i] - x1[i]));
  CU_ASSERT(dn > 1e-3); /* the normals did move after the first pass */
}

/* Honesty on random contact problems (the outer passes are not guaranteed
 * to settle): "converged" iff the test's own residual meets tol; otherwise
 * a message says why. */
static void test_findex_honest(void) {
  enum { NC = 20, N = 3 * NC };
  double *A = malloc(sizeof(double) * N * N), b[N], lo[N], hi[N], mu[N], x[N];
  int fi[N], conv = 0;
  for (unsigned long seed = 81; seed < 89; seed++) {
    contact_box(NC, 5, 0.8, 1e-6, seed, A, b, lo, hi, fi, mu);
    slv_problem p = dense(N, A, b, lo, hi);
    p.findex = fi;
    p.mu = mu;
    slv_options o = slv_options_default();
    o.tol = 1e-9;
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    double r = own_res(&p, x);
    int fin = 1;
    for (int i = 0; i < N; i++) fin &= isfinite(x[i]) != 0;
    CU_ASSERT(fin);
    if (st == SLV_CONVERGED) {
      conv++;
      CU_ASSERT(r <= 1e-9);
    } else {
      CU_ASSERT(st == SLV_STAGNATED || st == SLV_MAX_ITER || st == SLV_BREAKDOWN);
      CU_ASSERT(strlen(res.message) > 0);
      CU_ASSERT(r > 1e-9);
    }
  }
  printf("\n    random contact problems n=%d, mu=0.8, cfm 1e-6: %d of 8 converged", N, conv);
  free(A);
}

/* ---- failures --------------------------------------------------------------- */

static void test_breakdown(void) {
  /* Indefinite: A = diag(1, -1), b = (0, -1).  Row 2: w2 = -x2 - 1 < 0 and
   * raising x2 lowers w2 further (s = -1), nothing blocks: a ray (the LCP
   * has no solution).  ODE would print "s <= 0" and zero x; here:
   * SLV_BREAKDOWN naming the row and s, x finite. */
  double A[4] = { 1, 0, 0, -1 }, b[2] = { 0, -1 }, x[2];
  slv_problem p = dense(2, A, b, NULL, NULL);
  slv_options o = slv_options_default();
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_BREAKDOWN);
  CU_ASSERT(isfinite(x[0]) && isfinite(x[1]));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "row 1"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "s=-1"));
  printf("\n    %s", res.message);
  /* A = [[0,1],[1,0]], b = (-1,-1): x = (1,1) solves it, but every
   * principal pivot is 0 (s = A_ii = 0): Dantzig breaks down on the first
   * row it drives. */
  double A2[4] = { 0, 1, 1, 0 }, b2[2] = { -1, -1 };
  p = dense(2, A2, b2, NULL, NULL);
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_BREAKDOWN);
  CU_ASSERT(isfinite(x[0]) && isfinite(x[1]));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "s=0"));
}

static void test_redundant_rows(void) {
  /* A = [[1,1],[1,1]] (rank 1).
   * Both rows free, b = (-1,-1): any x with x1 + x2 = 1 solves it.  Row 2
   * has s = 0 (it repeats row 1) and w2 = 0 once x1 = 1: it needs no
   * pivot; x = (1, 0).
   * Both rows free, b = (-1,-2): inconsistent (x1 + x2 = 1 and = 2): after
   * x1 = 1, w2 = -1 and s = 0, nothing can move it: breakdown on row 1.
   * LCP, b = (-1,-2): the rows most violated first: row 2 clamps at
   * x2 = 2, then w1 = 1 >= 0 at x1 = 0: x = (0, 2). */
  double A[4] = { 1, 1, 1, 1 }, b[2] = { -1, -1 }, x[2];
  double lo[2] = { -INFINITY, -INFINITY }, hi[2] = { INFINITY, INFINITY };
  slv_problem p = dense(2, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = { 1, 0 };
  TST_VEC_CLOSE(x, xe, 2, 1e-15, 0);
  b[1] = -2;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_BREAKDOWN);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "row 1"));
  CU_ASSERT(isfinite(x[0]) && isfinite(x[1]));
  p.lo = p.hi = NULL;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe2[2] = { 0, 2 };
  TST_VEC_CLOSE(x, xe2, 2, 1e-15, 0);
  /* A = 0 (1x1), LCP, b = -1: w = -1 for every x >= 0, no solution:
   * breakdown with s = 0 (a ray), not a NaN */
  double Z[1] = { 0 }, bz[1] = { -1 }, xz[1];
  slv_problem pz = dense(1, Z, bz, NULL, NULL);
  CU_ASSERT_EQUAL(run(&pz, &o, xz, &res), SLV_BREAKDOWN);
  CU_ASSERT(isfinite(xz[0]));
}

static void test_pivot_limit(void) {
  int n = 50;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  tst_planted_spd(n, 0.1, 91, NULL, NULL, A, b, xs);
  slv_problem p = dense(n, A, b, NULL, NULL);
  slv_options o = slv_options_default();
  o.max_pivots = 3;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(res.pivots, 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "pivot limit 3"));
  CU_ASSERT(own_res(&p, x) > 1e-3);
  /* a pass stopped by the limit returns the better of its partial x and
   * the start (issue 26: pyramid steps returned res_nat_inf 1e6 from a
   * start at 0.03): from starts x* with rows zeroed, never worse */
  o.warm_start = 1;
  for (int skip = 2; skip <= 5; skip++) {
    for (int i = 0; i < n; i++) x[i] = i % skip ? xs[i] : 0.0;
    double r_start = own_res(&p, x);
    slv_status st = run(&p, &o, x, &res);
    CU_ASSERT(st == SLV_CONVERGED || st == SLV_MAX_ITER);
    CU_ASSERT(own_res(&p, x) <= r_start);
  }
  free(A);
  free(b);
  free(xs);
  free(x);
}

static void test_warm_start_and_reuse(void) {
  int n = 80, m = 30;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  bounds_of_kind(n, 3, lo, hi);
  tst_planted_spd(n, 0.1, 101, lo, hi, A, b, xs);
  slv_problem p = dense(n, A, b, lo, hi);
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_result res;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(dz, n, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
  double tol = 1e3 * n * DBL_EPSILON / 0.1;
  TST_VEC_CLOSE(x, xs, n, tol, tol);
  int cold = res.pivots;
  /* warm start at the solution: the rows strictly inside are factored in one
   * block, the others are valid at their bound: no pivot at all */
  o.warm_start = 1;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(res.pivots, 0);
  CU_ASSERT(cold > 0);
  TST_VEC_CLOSE(x, xs, n, tol, tol);
  /* the same workspace on a smaller problem (n < n_max) */
  o.warm_start = 0;
  double *A2 = malloc(sizeof(double) * m * m), *b2 = malloc(sizeof(double) * m);
  double *xs2 = malloc(sizeof(double) * m);
  tst_planted_spd(m, 0.1, 102, lo, hi, A2, b2, xs2);
  slv_problem p2 = dense(m, A2, b2, lo, hi);
  CU_ASSERT_EQUAL(slv_solve(ws, &p2, &o, x, NULL, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs2, m, tol, tol);
  slv_workspace_free(ws);
  free(A);
  free(b);
  free(xs);
  free(x);
  free(lo);
  free(hi);
  free(A2);
  free(b2);
  free(xs2);
}

static void test_refusals(void) {
  double A[4] = { 2, 0, 1, 2 }, b[2] = { -1, -1 }, x[2];
  slv_problem p = dense(2, A, b, NULL, NULL);
  slv_options o = slv_options_default();
  slv_result res;
  /* A(0,1) = 1, A(1,0) = 0: not symmetric */
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "symmetric"));
  tst_csr_as_dense(dz, &o); /* CSR storage is copied to dense, not refused */
  /* n > n_max */
  double A3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, b3[3] = { 0, 0, 0 }, x3[3];
  slv_problem p3 = dense(3, A3, b3, NULL, NULL);
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(dz, 2, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &p3, &o, x3, NULL, &res), SLV_ERR_DIM);
  slv_workspace_free(ws);
}

/* ---- Siconos data ---------------------------------------------------------- */

static slv_status solve_file(const char *path, slv_problem *pp, double **xp, slv_result *res,
                             io_instance **inst) {
  char err[512];
  slv_status st = io_read(path, IO_FMT_AUTO, inst, err, sizeof err);
  if (st != SLV_CONVERGED) {
    fprintf(stderr, "%s\n", err);
    return st;
  }
  *pp = io_instance_problem(*inst);
  *xp = calloc((size_t)pp->n, sizeof **xp);
  slv_options o = slv_options_default();
  o.tol = 1e-9;
  return run(pp, &o, *xp, res);
}

static void test_siconos_relay(void) {
  /* Siconos runs RELAY_LEMKE / PGS / AVI_CAOFERRIS / ENUM on these: all P
   * (datasets README 4.6).  They are symmetric positive definite boxes;
   * step_4x4 has lo = 0.1 > 0. */
  static const char *files[] = { "relay1.dat",        "relay_2x2.dat", "relay_4x4.dat",
                                 "relay_simple2.dat", "step_1x1.dat",  "step_2x2.dat",
                                 "step_4x4.dat" };
  char dir[4096], path[4200];
  if (!tst_shared_path("datasets/siconos/relay", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    slv_problem p;
    double *x = NULL;
    slv_result res;
    io_instance *inst = NULL;
    slv_status st = solve_file(path, &p, &x, &res, &inst);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    if (inst) {
      double r = own_res(&p, x);
      printf("\n    %-18s n=%-3d %-10s pivots=%-3d own res_rel=%.1e", files[k], p.n,
             slv_status_str(st), res.pivots, r);
      CU_ASSERT(r <= 1e-9);
    }
    free(x);
    io_instance_free(inst);
  }
}

static int own_symmetric(const slv_problem *p) {
  double amax = 0, dmax = 0;
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < p->n; j++) {
      double a = p->A[i + (size_t)j * p->lda], c = p->A[j + (size_t)i * p->lda];
      amax = fmax(amax, fabs(a));
      dmax = fmax(dmax, fabs(a - c));
    }
  return dmax <= 1e-12 * amax;
}

static void test_siconos_mlcp(void) {
  /* dantzig needs a symmetric A: of the 18 MLCP files only PDSym is (the
   * others are circuit models with M = [[A, C], [D, B]], D != C^T); it must
   * be solved, every other file refused with the symmetry message. */
  static const char *files[] = { "Buck2_mlcp.dat",
                                 "BuckConverter_mlcp.dat",
                                 "BuckFirstStep_mlcp.dat",
                                 "PDSym_mlcp.dat",
                                 "PD_mlcp.dat",
                                 "RCD_mlcp.dat",
                                 "RLCD_mlcp.dat",
                                 "Rectangular_mlcp.dat",
                                 "deltasigma2_mlcp.dat",
                                 "deltasigma_mlcp.dat",
                                 "deudeu_mlcp.dat",
                                 "diodeBridge20_mlcp.dat",
                                 "diodeBridge40_mlcp.dat",
                                 "diodeBridge_mlcp.dat",
                                 "m2n1_mlcp.dat",
                                 "m3n2_mlcp.dat",
                                 "relay2_mlcp.dat",
                                 "relay3_mlcp.dat" };
  char dir[4096], path[4200];
  if (!tst_shared_path("datasets/siconos/mlcp", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  int solved = 0, refused = 0;
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    slv_problem p;
    double *x = NULL;
    slv_result res;
    io_instance *inst = NULL;
    slv_status st = solve_file(path, &p, &x, &res, &inst);
    CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
    int sym = own_symmetric(&p);
    CU_ASSERT_EQUAL(sym, strcmp(files[k], "PDSym_mlcp.dat") == 0);
    if (sym) {
      CU_ASSERT_EQUAL(st, SLV_CONVERGED);
      CU_ASSERT(own_res(&p, x) <= 1e-9);
      solved++;
    } else {
      CU_ASSERT_EQUAL(st, SLV_ERR_UNSUPPORTED);
      CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "symmetric"));
      refused++;
    }
    free(x);
    io_instance_free(inst);
  }
  printf("\n    MLCP: %d solved, %d refused (not symmetric)", solved, refused);
  CU_ASSERT_EQUAL(solved, 1);
  CU_ASSERT_EQUAL(refused, 17);
}

/* ---- the block start (dantzig_start.c) -------------------------------------------- */

/* A planted LCP or box of 100 rows with the 4 x 4 block on which the
 * rounds cycle (tst_pivot.h) on the diagonal: the rounds stop with that
 * block's rows broken, the single pivots finish, and x is the planted x*
 * and the small block's own answer (enum).  The log names the rounds. */
static void test_block_cycle(void) {
  int n1 = 100, n2 = 4, n = n1 + n2;
  double *A1 = malloc(sizeof(double) * n1 * n1), *b1 = malloc(sizeof(double) * n1);
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *xe = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  for (int boxed = 0; boxed <= 1; boxed++) {
    for (int i = 0; i < n; i++) {
      lo[i] = boxed && i < n1 ? -0.3 - 0.1 * (i % 5) : 0.0;
      hi[i] = boxed && i < n1 ? 0.4 + 0.1 * (i % 4) : INFINITY;
    }
    tst_planted_spd(n1, 0.1, 17 + boxed, lo, hi, A1, b1, xe);
    tst_block_diag(n1, A1, b1, n2, tst_cyc4_A, tst_cyc4_b, A, b);
    CU_ASSERT_EQUAL(tst_enum_solve(n2, tst_cyc4_A, tst_cyc4_b, xe + n1), SLV_CONVERGED);
    slv_problem p = dense(n, A, b, lo, hi);
    tst_log log;
    slv_result res;
    CU_ASSERT_EQUAL(tst_solve_logged("dantzig", &p, 1e-12, x, &res, &log), SLV_CONVERGED);
    TST_VEC_CLOSE(x, xe, n, 1e-9, 1e-9);
    const char *c = tst_log_find(&log, "dantzig: block start: ");
    int rounds = 0, m = 0, broken = 0, piv = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(sscanf(c,
                           "dantzig: block start: %d rounds, |C| = %d, %d rows broken, %d pivots",
                           &rounds, &m, &broken, &piv),
                    4);
    CU_ASSERT(broken > 0);
    CU_ASSERT(res.pivots > piv); /* single pivots after the rounds */
    printf("\n    %s + cycling 4x4: %d rounds, %d broken, then %d single pivots",
           boxed ? "box" : "LCP", rounds, broken, res.pivots - piv);
  }
  free(A1);
  free(b1);
  free(A);
  free(b);
  free(xe);
  free(x);
  free(lo);
  free(hi);
}

/* Shared files repeated on the diagonal up to 64 rows and more, so that
 * the block start runs (identical blocks: exact ties between them): the
 * symmetric Siconos LCP files and the relay (box) files.  Every block's x
 * must solve its own file's problem (the test's residual). */
static void test_block_stacked(void) {
  static const char *files[] = {
    "lcp/lcp_mmc.dat",     "lcp/lcp_deudeu.dat", "lcp/lcp_trivial.dat",
    "lcp/lcp_CPS_1.dat",   "lcp/lcp_CPS_5.dat",  "relay/relay1.dat",
    "relay/relay_4x4.dat", "relay/step_2x2.dat", "relay/step_4x4.dat"
  };
  char dir[4096];
  if (!tst_shared_path("datasets/siconos", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    io_instance *inst = NULL;
    CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &inst, err, sizeof err), SLV_CONVERGED);
    slv_problem f = io_instance_problem(inst);
    int n = f.n, K = tst_stack_copies(n), N = K * n;
    double *A = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N);
    double *lo = malloc(sizeof(double) * N), *hi = malloc(sizeof(double) * N);
    double *x = malloc(sizeof(double) * N);
    tst_stack(&f, K, A, b, lo, hi);
    slv_problem p = dense(N, A, b, lo, hi);
    tst_log log;
    slv_result res;
    slv_status st = tst_solve_logged("dantzig", &p, 1e-9, x, &res, &log);
    double worst = 0;
    for (int c = 0; c < K; c++) {
      slv_problem pb =
          tst_dense(n, A + (size_t)(c * n) * N + c * n, N, b + c * n, lo + c * n, hi + c * n);
      worst = fmax(worst, own_res(&pb, x + c * n));
    }
    printf("\n    %-22s N=%-3d %-10s pivots=%-4d worst block res_rel=%.1e", files[k], N,
           slv_status_str(st), res.pivots, worst);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(worst <= 1e-9);
    CU_ASSERT_PTR_NOT_NULL(tst_log_find(&log, "dantzig: block start: "));
    free(A);
    free(b);
    free(lo);
    free(hi);
    free(x);
    io_instance_free(inst);
  }
}

/* A planted LCP and box (n = 150) with degenerate rows: a fifth of them
 * at a bound with w* = 0 as well; A is SPD, so x* is the answer. */
static void test_block_degenerate(void) {
  int n = 150;
  tst_log log;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  for (int boxed = 0; boxed <= 1; boxed++) {
    for (int i = 0; i < n; i++) {
      lo[i] = boxed ? -0.5 : 0.0;
      hi[i] = boxed ? 0.5 + 0.1 * (i % 3) : INFINITY;
    }
    tst_planted_spd(n, 0.1, 41 + boxed, lo, hi, A, b, xs);
    for (int i = 0; i < n; i += 5) xs[i] = i % 10 || !boxed ? lo[i] : hi[i]; /* with w*_i = 0 */
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += A[i + (size_t)j * n] * xs[j];
      double wi = 0;
      if (i % 5 && xs[i] == lo[i]) wi = 0.3;
      if (i % 5 && xs[i] == hi[i]) wi = -0.3;
      b[i] = wi - s;
    }
    slv_problem p = dense(n, A, b, lo, hi);
    slv_result res;
    CU_ASSERT_EQUAL(tst_solve_logged("dantzig", &p, 1e-12, x, &res, &log), SLV_CONVERGED);
    TST_VEC_CLOSE(x, xs, n, 1e-9, 1e-9);
    CU_ASSERT_PTR_NOT_NULL(tst_log_find(&log, "dantzig: block start: "));
  }
  free(A);
  free(b);
  free(xs);
  free(x);
  free(lo);
  free(hi);
}

/* Badly scaled SPD (issue 26): A = D S D, S = G G^T / n + 1e-2 I (G Gaussian),
 * D_i = 10^e_i, e_i ~ U(-3.5, 3.5): row scalings over 7 decades, condition
 * 1e14 .. 1e15; planted x*_i = U(0,1) / D_i on half the rows, w*_i = D_i U(0,1)
 * on the others (`lcplab generate`'s scaled-spd family, built here without it).
 * With pivots judged against max|A_ii| the small rows looked singular
 * (breakdown at res_rel 3e-9 .. 2e-7) and their steps were not seen by the
 * ratio test (cycles: max_iter); ODE's, Bullet's and DART's Dantzig reach
 * <= 1e-9 here.  The unique solution must come out to rounding. */
static void test_badly_scaled(void) {
  int sizes[2] = { 30, 100 };
  for (int si = 0; si < 2; si++)
    for (unsigned long seed = 1; seed <= 4; seed++) {
      int n = sizes[si];
      double *A = malloc(sizeof(double) * n * n), *G = malloc(sizeof(double) * n * n);
      double *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
      double *xs = calloc(n, sizeof(double)), *ws = calloc(n, sizeof(double));
      double *D = malloc(sizeof(double) * n);
      gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
      gsl_rng_set(r, seed);
      for (int k = 0; k < n * n; k++) G[k] = gsl_ran_gaussian(r, 1.0);
      for (int i = 0; i < n; i++) D[i] = pow(10.0, 3.5 * (2 * gsl_rng_uniform(r) - 1));
      for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
          double a = 0;
          for (int k = 0; k < n; k++) a += G[i + k * n] * G[j + k * n];
          a = a / n + (i == j ? 1e-2 : 0);
          A[i + j * n] = A[j + i * n] = a * (D[i] * D[j]);
        }
      for (int i = 0; i < n; i++) {
        if (i % 2)
          xs[i] = gsl_rng_uniform_pos(r) / D[i];
        else
          ws[i] = gsl_rng_uniform_pos(r) * D[i];
      }
      for (int i = 0; i < n; i++) {
        double acc = ws[i];
        for (int j = 0; j < n; j++) acc -= A[i + j * n] * xs[j];
        b[i] = acc;
      }
      gsl_rng_free(r);
      double dmin = INFINITY, dmax = 0;
      for (int i = 0; i < n; i++) dmin = fmin(dmin, D[i]), dmax = fmax(dmax, D[i]);
      CU_ASSERT(dmax / dmin > 1e5); /* the scalings do span many decades */
      slv_problem p = slv_problem_empty();
      p.n = n;
      p.A = A;
      p.lda = n;
      p.b = b;
      slv_options o = slv_options_default();
      o.tol = 1e-9;
      slv_result res;
      slv_status st = run(&p, &o, x, &res);
      CU_ASSERT_EQUAL(st, SLV_CONVERGED);
      CU_ASSERT(res.res.res_rel <= 1e-9);
      /* x* in the scaled units x_i D_i, where it is O(1) */
      double e = 0;
      for (int i = 0; i < n; i++) e = fmax(e, fabs(x[i] - xs[i]) * D[i]);
      CU_ASSERT(e < 1e-6);
      if (st != SLV_CONVERGED || e >= 1e-6)
        printf("\n    scaled n=%d seed %lu: %s res_rel %.3g |x - x*|_D %.3g", n, seed,
               slv_status_str(st), res.res.res_rel, e);
      free(A);
      free(G);
      free(b);
      free(x);
      free(xs);
      free(ws);
      free(D);
    }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("dantzig", init, NULL);
  CU_add_test(s, "hand LCP 2x2", test_hand_lcp);
  CU_add_test(s, "hand box 3x3, bounds on both sides of 0 and excluding 0", test_hand_box);
  CU_add_test(s, "hand free + LCP 2x2", test_hand_free);
  CU_add_test(s, "hand findex: friction bound moves with the normal", test_hand_findex);
  CU_add_test(s, "planted LCP n=40,120 (and pgs agrees)", test_planted_lcp);
  CU_add_test(s, "planted box n=50,110,250 (and pgs agrees)", test_planted_box);
  CU_add_test(s, "planted bounds excluding 0 n=60", test_planted_shifted);
  CU_add_test(s, "planted mixed free/box/LCP n=45,100,250", test_planted_mixed);
  CU_add_test(s, "planted sparse (packed columns) n=150", test_planted_sparse);
  CU_add_test(s, "singular PSD (rank n/2)", test_singular_psd);
  CU_add_test(s, "findex: moving bounds solved to 1e-9", test_findex_moving_bounds);
  CU_add_test(s, "findex: honest status on random contacts", test_findex_honest);
  CU_add_test(s, "breakdown on indefinite A", test_breakdown);
  CU_add_test(s, "redundant rows: singular but consistent, inconsistent", test_redundant_rows);
  CU_add_test(s, "pivot limit", test_pivot_limit);
  CU_add_test(s, "warm start, workspace reuse", test_warm_start_and_reuse);
  CU_add_test(s, "refusals: non-symmetric, CSR, n > n_max", test_refusals);
  CU_add_test(s, "Siconos relay files", test_siconos_relay);
  CU_add_test(s, "Siconos MLCP files: symmetric solved, others refused", test_siconos_mlcp);
  CU_add_test(s, "badly scaled SPD (rows over 7 decades), n = 30, 100", test_badly_scaled);
  CU_add_test(s, "block start: planted + a block the rounds cycle on", test_block_cycle);
  CU_add_test(s, "block start: Siconos LCP and relay files stacked to 64+ rows",
              test_block_stacked);
  CU_add_test(s, "block start: planted with degenerate rows", test_block_degenerate);
  return tst_run();
}
