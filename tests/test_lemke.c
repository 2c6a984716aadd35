/* test_lemke.c -- Lemke's method: hand-derived paths, the Siconos LCP
 * collection, Murty's exponential examples, secondary rays, degenerate
 * problems, planted SPD / non-symmetric P-matrix / boxed problems, and the
 * honest failures (pivot limit, invalid covering vector).
 *
 * Pivot counts follow lemke.c: every basis change counts, the first (z0
 * enters) and the last (z0 leaves) included.  Solutions are checked against
 * values known independently (hand derivation, planted x*, pgs) and with the
 * test's own residual (tst_natres_dense), never only by status.
 */
#include "slv.h"
#include "slv_io.h"
#include "tst_util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const slv_solver *lemke;

static int init(void) {
  lemke = slv_solver_find("lemke");
  return lemke ? 0 : 1;
}

/* Solve with a fresh workspace. */
static slv_status run(const slv_problem *p, const slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(lemke, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static double inf_norm(int n, const double *v) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* ---- hand-derived paths ------------------------------------------------- */

static void test_hand_2x2(void) {
  /* A = [[2,1],[1,2]], b = (-5,-6), d = (1,1); w = A x + b + d z0.
   * pivot 1: z0 = max(5, 6) = 6, w2 leaves (w = (1, 0)).
   * pivot 2: x2 enters; with x1 = w2 = 0: z0 = 6 - 2 x2, w1 = 1 - x2:
   *          w1 blocks at x2 = 1 (z0 = 4), w1 leaves.
   * pivot 3: x1 enters; w1 = w2 = 0 gives x2 = x1 + 1, z0 = 4 - 3 x1:
   *          z0 leaves at x1 = 4/3.  x = (4/3, 7/3), w = 0, 3 pivots. */
  double A[4] = {2, 1, 1, 2}, b[2] = {-5, -6}, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2; p.A = A; p.lda = 2; p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe[2] = {4.0 / 3, 7.0 / 3};
  TST_VEC_CLOSE(x, xe, 2, 1e-15, 0);
  CU_ASSERT_EQUAL(res.pivots, 3);
  /* b = (1,-6): z0 = 6 (w2 leaves); x2 enters: z0 = 6 - 2 x2, w1 = 7 - x2;
   * z0 leaves first, at x2 = 3.  x = (0, 3), w = (4, 0), 2 pivots. */
  b[0] = 1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xe2[2] = {0, 3};
  TST_VEC_CLOSE(x, xe2, 2, 1e-15, 0);
  CU_ASSERT_EQUAL(res.pivots, 2);
  /* b >= 0: x = 0 without a pivot */
  b[0] = 1; b[1] = 0;
  x[0] = x[1] = 7;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(res.pivots, 0);
  CU_ASSERT(x[0] == 0 && x[1] == 0);
}

static void test_hand_box_free(void) {
  /* One boxed row: A = [2], b = -10, 0 <= x <= 1.  Reformulation: u = x,
   * mu = 2u + v - 10 (v: multiplier of x <= 1), s = 1 - u, i.e.
   * M = [[2, 1], [-1, 0]], q = (-10, 1).
   * pivot 1: z0 = 10, mu leaves.  pivot 2: u enters; mu = 0, v = 0:
   *   z0 = 10 - 2u, s = 1 - u + z0 = 11 - 3u: s blocks at u = 11/3.
   * pivot 3: v enters; s = 0: u = 1 + z0; mu = 0: 3 z0 = 8 - v: z0 leaves at
   *   v = 8.  x = u = 1 (at hi), w = 2 - 10 = -8 <= 0, 3 pivots. */
  double A[1] = {2}, b[1] = {-10}, lo[1] = {0}, hi[1] = {1}, x[1];
  slv_problem p = slv_problem_empty();
  p.n = 1; p.A = A; p.lda = 1; p.b = b; p.lo = lo; p.hi = hi;
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  TST_CLOSE(x[0], 1.0, 0, 0);
  CU_ASSERT_EQUAL(res.pivots, 3);
  /* the same row with lo = -inf, hi = 1 (x = 1 - u, mu = -w): b = -10 still
   * pushes x up to 1; with b = +10 the row wants x = -5 (w = 0) */
  lo[0] = -INFINITY;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  TST_CLOSE(x[0], 1.0, 0, 0);
  b[0] = 10;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  TST_CLOSE(x[0], -5.0, 1e-15, 0);

  /* Row 0 free, row 1 LCP: A = [[2,1],[1,2]], b = (1,-6).  With x1 > 0:
   * 2 x0 + x1 = -1, x0 + 2 x1 = 6 -> x0 = -8/3, x1 = 13/3 > 0, w = 0.
   * x0 < 0 comes out of the split x0 = u0 - u0'. */
  double B[4] = {2, 1, 1, 2}, c[2] = {1, -6}, l2[2] = {-INFINITY, 0}, h2[2] = {INFINITY, INFINITY},
         y[2];
  slv_problem q = slv_problem_empty();
  q.n = 2; q.A = B; q.lda = 2; q.b = c; q.lo = l2; q.hi = h2;
  CU_ASSERT_EQUAL(run(&q, &o, y, &res), SLV_CONVERGED);
  double ye[2] = {-8.0 / 3, 13.0 / 3};
  TST_VEC_CLOSE(y, ye, 2, 1e-14, 0);
}

/* ---- Murty's examples ------------------------------------------------------- */

/* A(i,j) = 1 (i = j), 2 (i < j), 0 (i > j): upper triangular (the matrix of
 * lcp_exp_murty*.dat, Murty 1988, ch. 6). */
static void murty_matrix(int n, double *A) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) A[i + j * n] = i == j ? 1 : (i < j ? 2 : 0);
}

static void test_murty(void) {
  /* (a) Murty's q~(n): b_i = -(2^(n+1) - 2^i), i = 1..n (lcp_exp_murty2.dat
   * is n = 6).  Solution: x = 2^n e_n, w_i = 2^(n+1) - 2^(n+1) + 2^i = 2^i
   * (i < n), w_n = 0.  Pivots: the path for n is the path for n-1 run to the
   * point where z0 would leave (there w_n blocks instead), one pivot bringing
   * x_n in, and the path for n-1 retraced with x_n basic, ending with z0
   * out: N(n) = 2 N(n-1), N(1) = 2 (z0 in, x1 in / z0 out), so N(n) = 2^n
   * basis changes, Murty's exponential count (Siconos reports 2^n - 1 as it
   * does not count the first pivot).  The recursion and the counts for
   * n = 1..10 were checked with an exact rational implementation of the
   * lexicographic method; the problem is nondegenerate, so no tie rule is
   * involved.
   * (b) b = -1 (lcp_exp_murty.dat): the start is a tie of all n rows; the
   * lexicographic rule (q + (eps, ..., eps^n)) sends the last row out, x_n
   * enters and z0 leaves at x_n = 1: x = e_n, w = (1, ..., 1, 0), 2 pivots.
   * The exponential path needs the opposite perturbation order, which is
   * why (b) is easy and (a) is not. */
  enum { NMAX = 16 };
  double A[NMAX * NMAX], b[NMAX], x[NMAX], xe[NMAX];
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  o.max_pivots = 1 << 17;
  for (int n = 4; n <= NMAX; n++) {
    murty_matrix(n, A);
    slv_problem p = slv_problem_empty();
    p.n = n; p.A = A; p.lda = n; p.b = b;
    for (int i = 0; i < n; i++) b[i] = -(ldexp(1, n + 1) - ldexp(1, i + 1));
    slv_result res;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    for (int i = 0; i < n; i++) xe[i] = i == n - 1 ? ldexp(1, n) : 0;
    TST_VEC_CLOSE(x, xe, n, 0, 1e-15);
    CU_ASSERT_EQUAL(res.pivots, 1 << n);
    if (res.pivots != 1 << n)
      printf("\n    murty n=%d: %d pivots, expected %d", n, res.pivots, 1 << n);

    for (int i = 0; i < n; i++) b[i] = -1;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    for (int i = 0; i < n; i++) xe[i] = i == n - 1 ? 1 : 0;
    TST_VEC_CLOSE(x, xe, n, 0, 0);
    CU_ASSERT_EQUAL(res.pivots, 2);
  }
  /* the pivot limit stops the exponential path honestly */
  int n = 12;
  murty_matrix(n, A);
  for (int i = 0; i < n; i++) b[i] = -(ldexp(1, n + 1) - ldexp(1, i + 1));
  slv_problem p = slv_problem_empty();
  p.n = n; p.A = A; p.lda = n; p.b = b;
  o.max_pivots = 1000;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(res.pivots, 1000);
  CU_ASSERT(res.res.res_rel > o.tol);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "pivot limit"));
}

/* ---- secondary rays ----------------------------------------------------------- */

static void test_ray(void) {
  /* A = -I, b = -1: w = b - x < 0 for every x >= 0: infeasible.  z0 = 1 (all
   * tie, the last row leaves), x_n enters with tableau column -1 everywhere:
   * the ray (x_n, z0) = (t, 1 + t) never blocks. */
  enum { N = 5 };
  double A[N * N] = {0}, b[N], x[N];
  for (int i = 0; i < N; i++) {
    A[i + i * N] = -1;
    b[i] = -1;
  }
  slv_problem p = slv_problem_empty();
  p.n = N; p.A = A; p.lda = N; p.b = b;
  slv_options o = slv_options_default();
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_RAY_TERMINATION);
  CU_ASSERT_EQUAL(res.pivots, 1);
  CU_ASSERT(res.res.res_rel >= 1.0);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "secondary ray"));
  /* a 2x2 infeasible LCP with a positive semidefinite A (copositive-plus:
   * the ray proves infeasibility): A = [[1,-1],[-1,1]], b = (-1,-1) needs
   * x1 - x2 >= 1 and x2 - x1 >= 1 */
  double C[4] = {1, -1, -1, 1}, c[2] = {-1, -1}, y[2];
  slv_problem q = slv_problem_empty();
  q.n = 2; q.A = C; q.lda = 2; q.b = c;
  CU_ASSERT_EQUAL(run(&q, &o, y, &res), SLV_RAY_TERMINATION);
  CU_ASSERT(res.res.res_rel > o.tol);
}

/* ---- the Siconos LCP collection ---------------------------------------------- */

typedef enum { E_SOLVED, E_RAY } lexpect;

typedef struct {
  const char *file;
  lexpect e;
  int pivots; /* exact lexicographic Lemke count, see below */
  const char *reason;
} lcase;

/* Expected: Siconos' LEMKE column of datasets/README.md sec. 4.1 (P = must
 * pass, F = expected failure).  The pivot counts are those of an exact
 * rational implementation of the same lexicographic rule, run off-line on
 * the same files (Siconos' lexicolemke reports one less: it does not count
 * its first pivot); on CPS_3 and Pang_isolated_sol_perturbed that
 * computation also ends on a secondary ray. */
static const lcase cases[] = {
    {"lcp_mmc.dat", E_SOLVED, 23, "Siconos LEMKE: P (collection 1)"},
    {"lcp_deudeu.dat", E_SOLVED, 3, "Siconos LEMKE: P; the 2x2 of test_hand_2x2"},
    {"lcp_trivial.dat", E_SOLVED, 10, "Siconos LEMKE: P"},
    {"lcp_ortiz.dat", E_SOLVED, 3, "Siconos LEMKE: P"},
    {"lcp_exp_murty.dat", E_SOLVED, 2, "Siconos LEMKE: P (Murty, q = -1, degenerate start)"},
    {"lcp_exp_murty2.dat", E_SOLVED, 64, "Siconos LEMKE: P (Murty q~(6): 2^6 pivots)"},
    {"lcp_enum_fails.dat", E_SOLVED, 8, "Siconos LEMKE: P (collection 2)"},
    {"lcp_CPS_1.dat", E_SOLVED, 2, "Siconos LEMKE: P (solution set z1 + z2 = 1)"},
    {"lcp_CPS_2.dat", E_SOLVED, 5, "Siconos LEMKE: P"},
    {"lcp_CPS_4.dat", E_SOLVED, 5, "Siconos LEMKE: P"},
    {"lcp_CPS_4bis.dat", E_SOLVED, 5, "Siconos LEMKE: P"},
    {"lcp_CPS_5.dat", E_SOLVED, 2, "Siconos LEMKE: P"},
    {"lcp_Pang_isolated_sol.dat", E_SOLVED, 3, "Siconos LEMKE: P (collection 4)"},
    {"lcp_inf_sol_perturbed.dat", E_SOLVED, 5, "Siconos LEMKE: P (collection 4)"},
    {"lcp_CPS_3.dat", E_RAY, 1,
     "Siconos LEMKE: F; bimatrix game (CPS ex. 4.4.23): solutions exist (e.g. x = (0.1, 0, "
     "0.1, 0)) but Lemke with d = e leaves on a ray at once (games need Lemke-Howson)"},
    {"lcp_Pang_isolated_sol_perturbed.dat", E_RAY, 4,
     "Siconos LEMKE: F, ENUM: F; infeasible: w_1 = -x_2 - x_3 - 1e-4 < 0 for every x >= 0"},
    {"lcp_tobenna.dat", E_SOLVED, 127,
     "not in Siconos' LEMKE collections (only PATH expected to pass); the exact lexicographic "
     "path reaches a solution"},
    {"lcp_deudeu_block.dat", E_SOLVED, 3, "SBM twin of lcp_deudeu"},
    {"lcp_ortiz_block.dat", E_SOLVED, 3, "SBM twin of lcp_ortiz"},
    {"lcp_trivial_block.dat", E_SOLVED, 10, "SBM twin of lcp_trivial"},
};

static void test_siconos_lcp(void) {
  char dir[4096];
  if (!tst_shared_path("datasets/siconos/lcp", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const lcase *e = &cases[k];
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->file);
    slv_instance *inst = NULL;
    slv_status st = slv_read(path, SLV_FMT_AUTO, &inst, err, sizeof err);
    if (st != SLV_CONVERGED) fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
    slv_problem p = slv_instance_problem(inst);
    CU_ASSERT_EQUAL_FATAL(p.storage, SLV_DENSE);
    slv_options o = slv_options_default();
    o.tol = 1e-10;
    double *x = calloc((size_t)p.n, sizeof *x);
    slv_result res;
    st = run(&p, &o, x, &res);
    double r = tst_natres_dense(p.n, p.A, p.b, p.lo, p.hi, x) / fmax(1, inf_norm(p.n, p.b));
    printf("\n    %-38s n=%-3d %-16s pivots=%-4d res_rel=%.2e  (%s)", e->file, p.n,
           slv_status_str(st), res.pivots, r, e->reason);
    if (e->e == E_SOLVED) {
      CU_ASSERT_EQUAL(st, SLV_CONVERGED);
      CU_ASSERT(r <= 1e-10);
    } else {
      CU_ASSERT_EQUAL(st, SLV_RAY_TERMINATION);
      CU_ASSERT(r > o.tol);
      CU_ASSERT(strlen(res.message) > 0);
    }
    CU_ASSERT_EQUAL(res.pivots, e->pivots);
    /* honesty: converged <=> the test's own residual meets tol */
    CU_ASSERT_EQUAL(st == SLV_CONVERGED, r <= o.tol);
    free(x);
    slv_instance_free(inst);
  }
}

/* ---- degenerate problems -------------------------------------------------------- */

static void test_degenerate(void) {
  /* (a) A = tridiag(-1, 2, -1) (SPD, an M-matrix), b = -1: every row ties at
   * the start and the integer data keeps ties exact.  x = A^-1 1 > 0, i.e.
   * x_i = (i+1)(n-i)/2 (0-based), the discrete Poisson solution. */
  enum { N = 40 };
  double *A = calloc(N * N, sizeof *A), b[N], x[N], xe[N];
  for (int i = 0; i < N; i++) {
    A[i + i * N] = 2;
    if (i > 0) A[i + (i - 1) * N] = -1;
    if (i + 1 < N) A[i + (i + 1) * N] = -1;
    b[i] = -1;
    xe[i] = (i + 1) * (N - i) / 2.0;
  }
  slv_problem p = slv_problem_empty();
  p.n = N; p.A = A; p.lda = N; p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xe, N, 1e-11, 0);

  /* (b) half the rows of b zero, the others -1 (exact ties in the first
   * step, zero-length steps later): the solution is that of pgs on this
   * SPD matrix, and x_i = 0 where b_i = 0 is not forced, so compare. */
  for (int i = 0; i < N; i++) b[i] = i % 2 ? 0 : -1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(tst_natres_dense(N, A, b, NULL, NULL, x) <= 1e-12);
  const slv_solver *pgs = slv_solver_find("pgs");
  slv_workspace *ws;
  slv_options op = slv_options_default();
  op.tol = 1e-13;
  op.max_iter = 100000;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(pgs, N, &op, &ws), SLV_CONVERGED);
  double xp[N];
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &op, xp, NULL, &res), SLV_CONVERGED);
  slv_workspace_free(ws);
  TST_VEC_CLOSE(x, xp, N, 1e-9, 0);

  /* (c) planted degenerate solution: x*_i = 0 and w*_i = 0 on a third of
   * the rows (both sides at zero), on a random SPD matrix; b = w* - A x* has
   * structure that makes several ratios tie at zero. */
  double *C = malloc(sizeof(double) * N * N), xs[N];
  tst_planted_spd(N, 0.1, 77, NULL, NULL, C, b, xs);
  double ws_[N];
  for (int i = 0; i < N; i++) {
    xs[i] = i % 3 == 0 ? 0 : (i % 3 == 1 ? 1.0 + 0.01 * i : 0);
    ws_[i] = i % 3 == 2 ? 0.5 : 0;
  }
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++) s += C[i + j * N] * xs[j];
    b[i] = ws_[i] - s;
  }
  p.A = C;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  /* A is positive definite: the solution is unique, so it is x* */
  TST_VEC_CLOSE(x, xs, N, 1e-10, 0);
  free(A);
  free(C);

  /* (d) cycling examples, found by a search over small integer problems
   * with an exact rational implementation (off-line): breaking ratio ties
   * by the smallest variable index (and, for the 5x5 ones, by the largest
   * too) returns to a basis already visited and cycles for ever; the
   * lexicographic rule reaches the solution.  Pivot counts and solutions
   * are those of the exact computation.  The 4x4 one, entering/leaving:
   * z0/w3 x3/w4 x4/w2 x2/w1 x1/x2 w2/x4 w4/x3 w3/w4 x4/z0. */
  static const struct {
    int n, pivots;
    double M[25], q[5], x[5]; /* M column-major */
  } cyc[] = {
      {4, 9, {0, 1, 1, -1, 0, 2, 2, 1, 1, 0, 0, -1, 1, 1, 2, 2}, {-1, -1, -1, 0}, {2, 0, 0, 1}},
      {5, 14, {-1, 2, 0, -1, 0, -1, 1, 0, 2, 2, -1, 1, 0, 1, 1, 1, 0, 0, 0, 2, 0, 1, -1, 2, 1},
       {0, -1, 0, -1, -1}, {0.2, 0.6, 0, 0.8, 0}},
      {5, 9, {1, 0, 2, 0, 1, 1, 0, -1, 0, 1, -1, 2, 1, 0, 0, -1, 0, 1, 1, -1, 0, 2, -1, 1, 1},
       {-1, -1, -1, -1, -1}, {2.0 / 3, 11.0 / 6, 0.5, 1, 0}},
      {5, 6, {0, 2, 0, -1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 1, 1, 1, 1, 0, 1, 2, -1, 1, 1, 2, 0},
       {-1, -1, -1, 0, -1}, {0.375, 0.25, 0.5, 0, 0}},
  };
  double x4[5];
  slv_problem p4 = slv_problem_empty();
  for (size_t c = 0; c < sizeof cyc / sizeof cyc[0]; c++) {
    p4.n = cyc[c].n; p4.A = cyc[c].M; p4.lda = cyc[c].n; p4.b = cyc[c].q;
    CU_ASSERT_EQUAL(run(&p4, &o, x4, &res), SLV_CONVERGED);
    TST_VEC_CLOSE(x4, cyc[c].x, cyc[c].n, 1e-15, 0);
    CU_ASSERT_EQUAL(res.pivots, cyc[c].pivots);
  }

  /* (e) z0 tied with other rows: A = I, b = (-1, 0, 0, 0).  z0 = 1 (w1
   * leaves), w2..w4 = z0.  x1 enters: z0 = 1 - x1 and w2..w4 = 1 - x1 all
   * block at x1 = 1; z0 is taken, which ends the path: 2 pivots,
   * x = (1,0,0,0). */
  double I4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, e4[4] = {-1, 0, 0, 0},
         xe1[4] = {1, 0, 0, 0};
  p4.n = 4; p4.lda = 4;
  p4.A = I4;
  p4.b = e4;
  CU_ASSERT_EQUAL(run(&p4, &o, x4, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x4, xe1, 4, 0, 0);
  CU_ASSERT_EQUAL(res.pivots, 2);
}

/* ---- planted problems -------------------------------------------------------------- */

static void test_spd_vs_pgs(void) {
  int n = 120;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
         *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n),
         *xp = malloc(sizeof(double) * n);
  tst_planted_spd(n, 0.1, 5, NULL, NULL, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = n; p.A = A; p.lda = n; p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(res.pivots > n / 3);
  CU_ASSERT(tst_natres_dense(n, A, b, NULL, NULL, x) <= 1e-12 * fmax(1, inf_norm(n, b)));
  TST_VEC_CLOSE(x, xs, n, 1e-11, 0);
  const slv_solver *pgs = slv_solver_find("pgs");
  slv_workspace *ws;
  slv_options op = slv_options_default();
  op.tol = 1e-12;
  op.max_iter = 100000;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(pgs, n, &op, &ws), SLV_CONVERGED);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &op, xp, NULL, &res), SLV_CONVERGED);
  slv_workspace_free(ws);
  TST_VEC_CLOSE(x, xp, n, 1e-9, 0);

  /* another covering vector gives the same (unique) solution */
  double *d = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) d[i] = 0.5 + (i % 7);
  o.covering = d;
  CU_ASSERT_EQUAL(run(&p, &o, xp, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(xp, xs, n, 1e-11, 0);

  /* scaling A, b and d by 1e6 changes neither the path nor x: the pivot
   * tolerance is relative to the tableau column */
  slv_result r1, r2;
  o.covering = NULL;
  CU_ASSERT_EQUAL(run(&p, &o, x, &r1), SLV_CONVERGED);
  for (int k = 0; k < n * n; k++) A[k] *= 1e6;
  for (int i = 0; i < n; i++) {
    b[i] *= 1e6;
    d[i] = 1e6;
  }
  o.covering = d;
  CU_ASSERT_EQUAL(run(&p, &o, xp, &r2), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r1.pivots, r2.pivots);
  TST_VEC_CLOSE(xp, x, n, 1e-11, 0);
  free(A); free(b); free(xs); free(x); free(xp); free(d);
}

static void test_pmatrix_planted(void) {
  /* A = B B^T / n + eps I + (C - C^T) / sqrt(n): x^T A x = |B^T x|^2/n +
   * eps |x|^2 > 0, so A is positive definite, hence a P-matrix: the LCP has
   * a unique solution and Lemke finds it.  Planted: x* > 0 on half the rows
   * (w* = 0), x* = 0 and w* > 0 on the rest. */
  for (int rep = 0; rep < 3; rep++) {
    int n = 50 + 40 * rep;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1000 + rep);
    double *Bm = malloc(sizeof(double) * n * n), *Cm = malloc(sizeof(double) * n * n),
           *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
           *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    for (int k = 0; k < n * n; k++) {
      Bm[k] = 2 * gsl_rng_uniform(rng) - 1;
      Cm[k] = 2 * gsl_rng_uniform(rng) - 1;
    }
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double s = 0;
        for (int l = 0; l < n; l++) s += Bm[i + l * n] * Bm[j + l * n];
        A[i + j * n] = s / n + (i == j ? 0.05 : 0) + (Cm[i + j * n] - Cm[j + i * n]) / sqrt(n);
      }
    for (int i = 0; i < n; i++) {
      int active = gsl_rng_uniform(rng) < 0.5;
      xs[i] = active ? 0.1 + gsl_rng_uniform(rng) : 0;
      b[i] = active ? 0 : 0.1 + gsl_rng_uniform(rng); /* w*, then minus A x* */
    }
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) s += A[i + j * n] * xs[j];
      b[i] -= s;
    }
    slv_problem p = slv_problem_empty();
    p.n = n; p.A = A; p.lda = n; p.b = b;
    slv_options o = slv_options_default();
    o.tol = 1e-12;
    slv_result res;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    CU_ASSERT(tst_natres_dense(n, A, b, NULL, NULL, x) <= 1e-12 * fmax(1, inf_norm(n, b)));
    TST_VEC_CLOSE(x, xs, n, 1e-10, 0);
    gsl_rng_free(rng);
    free(Bm); free(Cm); free(A); free(b); free(xs); free(x);
  }
}

/* The peers' "psd" family: A = B B^T / r with B n x r Gaussian, r = n/2
 * (positive semidefinite, rank n/2), b from a planted z* (U(0,1) on a random
 * half, w* U(0,1) on the other half). */
static void psd_problem(int n, unsigned long seed, double *A, double *b) {
  int r = n / 2;
  double *Bm = malloc(sizeof(double) * n * r), *zs = malloc(sizeof(double) * n);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 500 + seed);
  for (int k = 0; k < n * r; k++) Bm[k] = gsl_ran_gaussian(rng, 1.0);
  for (int j = 0; j < n; j++)
    for (int i = 0; i <= j; i++) {
      double s = 0;
      for (int l = 0; l < r; l++) s += Bm[i + l * n] * Bm[j + l * n];
      A[i + j * n] = A[j + i * n] = s / r;
    }
  for (int i = 0; i < n; i++) {
    int active = gsl_rng_uniform(rng) < 0.5;
    zs[i] = active ? gsl_rng_uniform(rng) : 0;
    b[i] = active ? 0 : gsl_rng_uniform(rng);
  }
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i + j * n] * zs[j];
    b[i] -= s;
  }
  gsl_rng_free(rng);
  free(Bm);
  free(zs);
}

static void test_psd_rank_deficient(void) {
  /* Feasible (planted) LCPs with a copositive-plus A: Lemke must end with
   * a solution (Cottle-Pang-Stone ch. 4), not necessarily z* (not unique).
   * Near the end these paths meet ties of z0 with other rows, split by
   * rounding, and blocking rows with tiny pivots.  Seeds 1, 2 are plain draws; the n = 200
   * seeds 11..39 are the 8 of seeds 1..40 on which lemke without its z0 exit
   * rules (the Harris-type test and the z0-negligible stop) cycled with
   * z0 ~ 1e-14 up to the pivot limit or ended at res_rel 1e-8; at n = 400,
   * seed 26 needs the Harris-type test itself (a row blocking with pivot
   * 3.5e-11 just before z0; without the test, res_rel 2e-8 after 253
   * pivots).  So this is the regression test of those rules. */
  static const struct { int n, seed; } pc[] = {
      {200, 1}, {200, 2}, {200, 11}, {200, 14}, {200, 22}, {200, 24},
      {200, 28}, {200, 34}, {200, 35}, {200, 39}, {400, 26},
  };
  int nmax = 400, solved = 0, ncases = (int)(sizeof pc / sizeof pc[0]);
  double *A = malloc(sizeof(double) * nmax * nmax), *b = malloc(sizeof(double) * nmax),
         *x = malloc(sizeof(double) * nmax);
  for (int c = 0; c < ncases; c++) {
    int n = pc[c].n;
    psd_problem(n, (unsigned long)pc[c].seed, A, b);
    slv_problem p = slv_problem_empty();
    p.n = n; p.A = A; p.lda = n; p.b = b;
    slv_options o = slv_options_default();
    o.tol = 1e-12;
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    double rr = tst_natres_dense(n, A, b, NULL, NULL, x) / fmax(1, inf_norm(n, b));
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(rr <= 1e-12);
    if (st != SLV_CONVERGED)
      printf("\n    psd n=%d seed %d: %s after %d pivots, res_rel %.3g: %s", n, pc[c].seed,
             slv_status_str(st), res.pivots, rr, res.message);
    solved += st == SLV_CONVERGED && rr <= 1e-12;
  }
  CU_ASSERT_EQUAL(solved, ncases);
  free(A); free(b); free(x);
}

static void test_ill_conditioned(void) {
  /* A = sum_k d_k v_k v_k^T / |v_k|^2 with Gaussian v_k and d_k log-spaced
   * from 1 down to 1/cond (SPD, condition ~cond), b Gaussian.  At
   * cond = 1e9 the core inverse drifts past LEMKE_DRIFT and is refactorized
   * during the path (this exercises that code); the result must still meet
   * tol = 1e-10.  At cond = 1e14 some runs cannot reach 1e-10 in double
   * precision: whatever the status, "converged" must agree with the test's
   * own residual, and a non-converged run must say why. */
  int n = 150;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
         *v = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double conds[2] = {1e9, 1e14};
  for (int ci = 0; ci < 2; ci++)
    for (int seed = 1; seed <= 3; seed++) {
      gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
      gsl_rng_set(rng, (unsigned long)seed);
      memset(A, 0, sizeof(double) * n * n);
      for (int k = 0; k < n; k++) {
        double nv = 0, d = pow(conds[ci], -(double)k / (n - 1));
        for (int i = 0; i < n; i++) {
          v[i] = gsl_ran_gaussian(rng, 1.0);
          nv += v[i] * v[i];
        }
        for (int j = 0; j < n; j++)
          for (int i = 0; i < n; i++) A[i + j * n] += d * v[i] * v[j] / nv;
      }
      for (int i = 0; i < n; i++) b[i] = gsl_ran_gaussian(rng, 1.0);
      gsl_rng_free(rng);
      slv_problem p = slv_problem_empty();
      p.n = n; p.A = A; p.lda = n; p.b = b;
      slv_options o = slv_options_default();
      o.tol = 1e-10;
      slv_result res;
      slv_status st = run(&p, &o, x, &res);
      double rr = tst_natres_dense(n, A, b, NULL, NULL, x) / fmax(1, inf_norm(n, b));
      if (ci == 0) CU_ASSERT_EQUAL(st, SLV_CONVERGED);
      CU_ASSERT(st == SLV_CONVERGED || st == SLV_STAGNATED);
      CU_ASSERT_EQUAL(st == SLV_CONVERGED, rr <= o.tol * (1 + 1e-6));
      if (st != SLV_CONVERGED) CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "res_rel"));
    }
  free(A); free(b); free(v); free(x);
}

static void test_boxed_planted(void) {
  /* kind 0: all rows boxed; kind 1: boxed, LCP, free, upper-only and
   * shifted-lower rows mixed; planted x* (strictly complementary) on an
   * SPD A: the solution is unique, so x = x*. */
  for (int kind = 0; kind < 2; kind++) {
    int n = 60;
    double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
           *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n),
           *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
      int t = kind == 0 ? 0 : i % 5;
      lo[i] = 0; hi[i] = INFINITY;
      if (t == 0) { lo[i] = -0.2 - 0.1 * (i % 4); hi[i] = 0.3 + 0.1 * (i % 3); }
      if (t == 2) { lo[i] = -INFINITY; hi[i] = INFINITY; }
      if (t == 3) { lo[i] = -INFINITY; hi[i] = 0.5; }
      if (t == 4) { lo[i] = -1.5; }
    }
    tst_planted_spd(n, 0.1, 40 + kind, lo, hi, A, b, xs);
    slv_problem p = slv_problem_empty();
    p.n = n; p.A = A; p.lda = n; p.b = b; p.lo = lo; p.hi = hi;
    slv_options o = slv_options_default();
    o.tol = 1e-12;
    slv_result res;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    CU_ASSERT(tst_natres_dense(n, A, b, lo, hi, x) <= 1e-12 * fmax(1, inf_norm(n, b)));
    TST_VEC_CLOSE(x, xs, n, 1e-10, 0);
    int at_bound = 0;
    for (int i = 0; i < n; i++) at_bound += x[i] == lo[i] || x[i] == hi[i];
    CU_ASSERT(at_bound > n / 5); /* the bounds are really active */
    free(A); free(b); free(lo); free(hi); free(xs); free(x);
  }
}

static void test_workspace_reuse(void) {
  /* one workspace for a plain LCP, a boxed problem (N up to 2n), the plain
   * one again and a smaller one: state from one solve must not leak */
  int n = 40;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
         *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n),
         *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n),
         *A2 = malloc(sizeof(double) * n * n), *b2 = malloc(sizeof(double) * n),
         *xs2 = malloc(sizeof(double) * n);
  tst_planted_spd(n, 0.1, 9, NULL, NULL, A, b, xs);
  for (int i = 0; i < n; i++) {
    lo[i] = i % 2 ? -1 : -INFINITY;
    hi[i] = i % 2 ? 1 : INFINITY;
  }
  tst_planted_spd(n, 0.1, 10, lo, hi, A2, b2, xs2);
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(lemke, n, &o, &ws), SLV_CONVERGED);
  slv_problem p = slv_problem_empty();
  p.n = n; p.A = A; p.lda = n; p.b = b;
  slv_problem q = slv_problem_empty();
  q.n = n; q.A = A2; q.lda = n; q.b = b2; q.lo = lo; q.hi = hi;
  slv_problem s = p;
  s.n = n / 2; /* the leading block of A with lda = n, and b's head */
  slv_result r1, r2, r3;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r1), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, n, 1e-11, 0);
  CU_ASSERT_EQUAL(slv_solve(ws, &q, &o, x, NULL, &r2), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs2, n, 1e-10, 0);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r3), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, n, 1e-11, 0);
  CU_ASSERT_EQUAL(r1.pivots, r3.pivots);
  CU_ASSERT_EQUAL(slv_solve(ws, &s, &o, x, NULL, &r3), SLV_CONVERGED);
  /* the test's residual takes lda = n: copy the leading block */
  int h = n / 2;
  for (int j = 0; j < h; j++)
    for (int i = 0; i < h; i++) A2[i + j * h] = A[i + j * n];
  CU_ASSERT(tst_natres_dense(h, A2, b, NULL, NULL, x) <= 1e-12 * fmax(1, inf_norm(h, b)));
  slv_workspace_free(ws);
  free(A); free(b); free(xs); free(x); free(lo); free(hi); free(A2); free(b2); free(xs2);
}

/* ---- honest failures and refusals ---------------------------------------------------- */

static void test_limits_and_refusals(void) {
  int n = 60;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
         *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n),
         *d = malloc(sizeof(double) * n);
  tst_planted_spd(n, 0.1, 3, NULL, NULL, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = n; p.A = A; p.lda = n; p.b = b;
  slv_options o = slv_options_default();
  slv_result res;
  /* max_pivots reached */
  o.max_pivots = 3;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(res.pivots, 3);
  CU_ASSERT(res.res.res_rel > o.tol);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "pivot limit 3"));
  o.max_pivots = 0;
  /* invalid covering vectors: zero, negative, NaN, infinite */
  double bad[4] = {0.0, -1.0, NAN, INFINITY};
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < n; i++) d[i] = 1;
    d[7] = bad[k];
    o.covering = d;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "d[7]"));
  }
  o.covering = NULL;
  /* findex rows and CSR storage are refused by the capabilities */
  int fx[60];
  double mu[60];
  for (int i = 0; i < n; i++) { fx[i] = -1; mu[i] = 0; }
  fx[1] = 0; mu[1] = 0.5;
  slv_problem f = p;
  f.findex = fx; f.mu = mu;
  CU_ASSERT_EQUAL(run(&f, &o, x, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT(strlen(res.message) > 0);
  free(A); free(b); free(xs); free(x); free(d);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("lemke", init, NULL);
  CU_add_test(s, "hand-derived 2x2 paths and pivot counts", test_hand_2x2);
  CU_add_test(s, "hand-derived boxed, upper-only and free rows", test_hand_box_free);
  CU_add_test(s, "Murty's examples n=4..16: 2^n pivots, degenerate b=-1: 2", test_murty);
  CU_add_test(s, "secondary rays: A=-I, infeasible PSD", test_ray);
  CU_add_test(s, "Siconos LCP collection (../shared)", test_siconos_lcp);
  CU_add_test(s, "degenerate problems (ties) terminate with the solution", test_degenerate);
  CU_add_test(s, "planted SPD, agreement with pgs, covering, scaling", test_spd_vs_pgs);
  CU_add_test(s, "planted non-symmetric P-matrices", test_pmatrix_planted);
  CU_add_test(s, "positive semidefinite rank n/2: solved (z0 ties)", test_psd_rank_deficient);
  CU_add_test(s, "ill-conditioned SPD: refactorization, honest status", test_ill_conditioned);
  CU_add_test(s, "planted boxed / free / mixed rows via the reformulation", test_boxed_planted);
  CU_add_test(s, "workspace reuse across plain and boxed problems", test_workspace_reuse);
  CU_add_test(s, "pivot limit, invalid covering, findex refused", test_limits_and_refusals);
  return tst_run();
}
