/* test_linsys.c -- the linear-system interface (libsolvers/linsys.h): every
 * back end (dense LAPACK, CHOLMOD, UMFPACK, KLU) on planted systems.
 *
 * A sparse SPD matrix (a 2-D Laplacian plus a random diagonal, n = 7 .. 400)
 * and a general one (the same with an asymmetric convection term), x* drawn
 * at random (GSL mt19937), b = A x*: each back end's solve must give x* to
 * 1e-10 relative and a residual |A x - b|_inf <= 1e-12 |b|_inf; a second
 * factor with new values (the same pattern) solves the new system, and the
 * transposed solve gives x* from b = A' x* (the asymmetric convection term
 * makes A' differ from A).  Bad
 * cases: an indefinite symmetric matrix is SLV_LS_NOT_SPD (dense and
 * CHOLMOD name a column), a singular one SLV_LS_SINGULAR (dense, UMFPACK,
 * KLU), duplicate entries add up, A + shift I on every back end, a dense
 * matrix written in place (its smallest pivot, hand-derived), the back-end
 * rule, a solve before a factor SLV_LS_NOT_FACTORED, a column out of range
 * or a back end of the wrong kind SLV_LS_BAD_INPUT and no system.
 * slv_linsys_solve_many on three right-hand sides (leading dimension n + 2)
 * gives each column's slv_linsys_solve to 1e-14 of its largest entry (a
 * blocked LAPACK solve rounds otherwise) and leaves the
 * rows below n alone; nrhs < 0 or ldx < n is SLV_LS_BAD_INPUT.
 */
#include "linsys.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csr {
  int n, nnz;
  int *p, *j;
  double *x;
} csr;

/* The k x k grid Laplacian (n = k^2) with diagonal 4 + d_i (d_i random in
 * [0, 1)) and, when conv != 0, conv added to the east and subtracted from
 * the west neighbour (asymmetric). Columns unsorted within a row: the
 * diagonal last. */
static csr grid(int k, double conv, gsl_rng *rng) {
  csr a = { k * k, 0, NULL, NULL, NULL };
  a.p = calloc((size_t)a.n + 1, sizeof(int));
  a.j = malloc((size_t)a.n * 5 * sizeof(int));
  a.x = malloc((size_t)a.n * 5 * sizeof(double));
  for (int r = 0; r < k; r++)
    for (int c = 0; c < k; c++) {
      int i = r * k + c;
      const int nb[4][2] = { { r - 1, c }, { r + 1, c }, { r, c - 1 }, { r, c + 1 } };
      for (int e = 0; e < 4; e++) {
        if (nb[e][0] < 0 || nb[e][0] >= k || nb[e][1] < 0 || nb[e][1] >= k) continue;
        a.j[a.nnz] = nb[e][0] * k + nb[e][1];
        a.x[a.nnz++] = -1.0 + (e == 3 ? conv : e == 2 ? -conv : 0.0);
      }
      a.j[a.nnz] = i;
      a.x[a.nnz++] = 4.0 + gsl_rng_uniform(rng);
      a.p[i + 1] = a.nnz;
    }
  return a;
}

static void csr_free(csr *a) {
  free(a->p);
  free(a->j);
  free(a->x);
}

static void matvec(const csr *a, const double *x, double *y) {
  for (int i = 0; i < a->n; i++) {
    y[i] = 0;
    for (int k = a->p[i]; k < a->p[i + 1]; k++) y[i] += a->x[k] * x[a->j[k]];
  }
}

/* y = a' x */
static void matvec_t(const csr *a, const double *x, double *y) {
  for (int i = 0; i < a->n; i++) y[i] = 0;
  for (int i = 0; i < a->n; i++)
    for (int k = a->p[i]; k < a->p[i + 1]; k++) y[a->j[k]] += a->x[k] * x[i];
}

/* The transposed solve after a factor: a' x = a' x* gives x*. */
static void check_solve_transposed(slv_linsys *ls, const csr *a, const double *xs, double *x) {
  if (a->n == 0) return;
  matvec_t(a, xs, x);
  CU_ASSERT_EQUAL(slv_linsys_solve_transposed(ls, x), SLV_LS_OK);
  TST_VEC_CLOSE(x, xs, a->n, 0, 1e-10);
}

/* Solves a x = a x* with ls (already analysed on a's pattern). */
static void check_solve(slv_linsys *ls, const csr *a, gsl_rng *rng) {
  int n = a->n;
  double *xs = calloc((size_t)n, sizeof(double)), *b = malloc((size_t)n * sizeof(double));
  double *x = malloc((size_t)n * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) xs[i] = gsl_rng_uniform(rng) * 2 - 1;
  matvec(a, xs, b);
  for (int i = 0; i < n; i++) x[i] = b[i];
  CU_ASSERT_EQUAL_FATAL(slv_linsys_factor(ls, a->x), SLV_LS_OK);
  CU_ASSERT_EQUAL(slv_linsys_solve(ls, x), SLV_LS_OK);
  matvec(a, x, r);
  double res = 0, bmax = 0;
  for (int i = 0; i < n; i++) {
    res = fmax(res, fabs(r[i] - b[i]));
    bmax = fmax(bmax, fabs(b[i]));
  }
  CU_ASSERT(res <= 1e-12 * bmax);
  TST_VEC_CLOSE(x, xs, n, 0, 1e-10);
  check_solve_transposed(ls, a, xs, x);
  free(xs);
  free(b);
  free(x);
  free(r);
}

/* Three right-hand sides at once (ldx = n + 2, the two rows below n a
 * marker) against one at a time. */
static void check_solve_many(slv_linsys *ls, int n, gsl_rng *rng) {
  int ld = n + 2;
  double *B = malloc((size_t)ld * 3 * sizeof(double)),
         *x = malloc((size_t)(n + 1) * sizeof(double));
  for (int i = 0; i < ld * 3; i++) B[i] = i % ld < n ? gsl_rng_uniform(rng) * 2 - 1 : -7.0;
  double *B0 = malloc((size_t)ld * 3 * sizeof(double));
  for (int i = 0; i < ld * 3; i++) B0[i] = B[i];
  CU_ASSERT_EQUAL(slv_linsys_solve_many(ls, 3, B, ld), SLV_LS_OK);
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < n; i++) x[i] = B0[i + ld * c];
    CU_ASSERT_EQUAL(slv_linsys_solve(ls, x), SLV_LS_OK);
    double xmax = 0;
    for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(x[i]));
    TST_VEC_CLOSE(B + ld * c, x, n, 1e-14 * xmax, 0);
    CU_ASSERT(B[n + ld * c] == -7.0 && B[n + 1 + ld * c] == -7.0);
  }
  CU_ASSERT_EQUAL(slv_linsys_solve_many(ls, -1, B, ld), SLV_LS_BAD_INPUT);
  if (n > 1) CU_ASSERT_EQUAL(slv_linsys_solve_many(ls, 1, B, n - 1), SLV_LS_BAD_INPUT);
  free(B);
  free(B0);
  free(x);
}

static void one_backend(slv_ls_kind kind, slv_ls_backend be, const char *name) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 50);
  static const int sizes[] = { 0, 1, 3, 8, 20 };
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    csr a = grid(sizes[s], kind == SLV_LS_SPD ? 0.0 : 0.7, rng);
    slv_ls_status st;
    slv_linsys *ls = slv_linsys_analyse(kind, be, a.n, a.p, a.j, &st);
    CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
    CU_ASSERT_EQUAL(slv_linsys_backend(ls), be);
    double x0 = 1;
    if (a.n > 0) CU_ASSERT_EQUAL(slv_linsys_solve(ls, &x0), SLV_LS_NOT_FACTORED);
    check_solve(ls, &a, rng);
    for (int i = 0; i < a.n; i++) /* new values: the diagonal tripled */
      for (int k = a.p[i]; k < a.p[i + 1]; k++) a.x[k] *= a.j[k] == i ? 3.0 : 1.0;
    check_solve(ls, &a, rng);
    check_solve_many(ls, a.n, rng);
    slv_linsys_free(ls);
    csr_free(&a);
  }
  printf(" %s ok", name);
  gsl_rng_free(rng);
}

static void test_spd(void) {
  one_backend(SLV_LS_SPD, SLV_LS_DENSE, "dense");
  one_backend(SLV_LS_SPD, SLV_LS_CHOLMOD, "cholmod");
}

static void test_general(void) {
  one_backend(SLV_LS_GENERAL, SLV_LS_DENSE, "dense");
  one_backend(SLV_LS_GENERAL, SLV_LS_UMFPACK, "umfpack");
  one_backend(SLV_LS_GENERAL, SLV_LS_KLU, "klu");
}

/* [[1, 2], [2, 1]]: symmetric, indefinite; [[1, 2], [2, 4]]: singular. */
static void test_breakdowns(void) {
  int p[] = { 0, 2, 4 }, j[] = { 0, 1, 0, 1 };
  double indef[] = { 1, 2, 2, 1 }, sing[] = { 1, 2, 2, 4 };
  static const slv_ls_backend spd[] = { SLV_LS_DENSE, SLV_LS_CHOLMOD };
  static const slv_ls_backend gen[] = { SLV_LS_DENSE, SLV_LS_UMFPACK, SLV_LS_KLU };
  slv_ls_status st;
  for (int b = 0; b < 2; b++) {
    slv_linsys *ls = slv_linsys_analyse(SLV_LS_SPD, spd[b], 2, p, j, &st);
    CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
    CU_ASSERT_EQUAL(slv_linsys_factor(ls, indef), SLV_LS_NOT_SPD);
    CU_ASSERT_EQUAL(slv_linsys_failed_column(ls), 1);
    double x[2] = { 1, 1 };
    CU_ASSERT_EQUAL(slv_linsys_solve(ls, x), SLV_LS_NOT_FACTORED);
    CU_ASSERT_EQUAL(slv_linsys_solve_many(ls, 1, x, 2), SLV_LS_NOT_FACTORED);
    slv_linsys_free(ls);
  }
  for (int b = 0; b < 3; b++) {
    slv_linsys *ls = slv_linsys_analyse(SLV_LS_GENERAL, gen[b], 2, p, j, &st);
    CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
    CU_ASSERT_EQUAL(slv_linsys_factor(ls, sing), SLV_LS_SINGULAR);
    slv_linsys_free(ls);
  }
  /* duplicates add up: a 1 x 1 system stored as 1 + 2 + 3 */
  int p1[] = { 0, 3 }, j1[] = { 0, 0, 0 };
  double x1[] = { 1, 2, 3 }, b1 = 12;
  slv_linsys *ls = slv_linsys_analyse(SLV_LS_GENERAL, SLV_LS_KLU, 1, p1, j1, &st);
  CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
  CU_ASSERT_EQUAL(slv_linsys_factor(ls, x1), SLV_LS_OK);
  CU_ASSERT_EQUAL(slv_linsys_solve(ls, &b1), SLV_LS_OK);
  TST_CLOSE(b1, 2.0, 0, 1e-15);
  slv_linsys_free(ls);
  int jbad[] = { 0, 2, 0, 1 };
  CU_ASSERT_PTR_NULL(slv_linsys_analyse(SLV_LS_SPD, SLV_LS_DENSE, 2, p, jbad, &st));
  CU_ASSERT_EQUAL(st, SLV_LS_BAD_INPUT);
  CU_ASSERT_PTR_NULL(slv_linsys_analyse(SLV_LS_SPD, SLV_LS_KLU, 2, p, j, &st));
  CU_ASSERT_EQUAL(st, SLV_LS_BAD_INPUT);
  CU_ASSERT_PTR_NULL(slv_linsys_analyse(SLV_LS_GENERAL, SLV_LS_CHOLMOD, 2, p, j, &st));
  CU_ASSERT_EQUAL(st, SLV_LS_BAD_INPUT);
}

/* (A + shift I) x = b for each back end: A + shift I solved against a
 * copy of A whose diagonal holds the shift. */
static void shift_backend(slv_ls_kind kind, slv_ls_backend be) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 51);
  const double shift = 2.5;
  csr a = grid(6, kind == SLV_LS_SPD ? 0.0 : 0.7, rng);
  slv_ls_status st;
  slv_linsys *ls = slv_linsys_analyse(kind, be, a.n, a.p, a.j, &st);
  CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
  CU_ASSERT_EQUAL(slv_linsys_factor_shifted(ls, a.x, shift), SLV_LS_OK);
  for (int i = 0; i < a.n; i++) /* a becomes A + shift I */
    for (int k = a.p[i]; k < a.p[i + 1]; k++) a.x[k] += a.j[k] == i ? shift : 0.0;
  double xs[36], b[36], x[36];
  for (int i = 0; i < a.n; i++) xs[i] = gsl_rng_uniform(rng) * 2 - 1;
  matvec(&a, xs, b);
  for (int i = 0; i < a.n; i++) x[i] = b[i];
  CU_ASSERT_EQUAL(slv_linsys_solve(ls, x), SLV_LS_OK);
  TST_VEC_CLOSE(x, xs, a.n, 0, 1e-12);
  slv_linsys_free(ls);
  csr_free(&a);
  gsl_rng_free(rng);
}

static void test_shift(void) {
  shift_backend(SLV_LS_SPD, SLV_LS_DENSE);
  shift_backend(SLV_LS_SPD, SLV_LS_CHOLMOD);
  shift_backend(SLV_LS_GENERAL, SLV_LS_DENSE);
  shift_backend(SLV_LS_GENERAL, SLV_LS_UMFPACK);
  shift_backend(SLV_LS_GENERAL, SLV_LS_KLU);
}

/* A = [4 1 0; 1 3 1; 0 1 2] written in place.  Cholesky: L11^2 = 4,
 * L22^2 = 3 - 1/4 = 11/4, L33^2 = 2 - 1/(11/4) = 18/11 (det A = 18 =
 * 4 (11/4) (18/11)); LU with partial pivoting keeps the same pivots (the
 * diagonal dominates each column), so both smallest pivots are 18/11.
 * x* = (1, -2, 3): b = A x* = (2, -2, 4); shifted by 1: b = (3, -4, 7). */
static void fill_3x3(double *F) {
  const double A[9] = { 4, 1, 0, 1, 3, 1, 0, 1, 2 };
  memcpy(F, A, sizeof A);
}

static void test_dense_input(void) {
  slv_linsys *ls = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_linsys_dense_reserve(&ls, 4), SLV_LS_OK);
  CU_ASSERT_PTR_NULL(slv_linsys_dense_values(ls, 5)); /* above n_max */
  const slv_ls_kind kinds[] = { SLV_LS_SPD, SLV_LS_GENERAL };
  for (int t = 0; t < 2; t++) {
    fill_3x3(slv_linsys_dense_values(ls, 3));
    CU_ASSERT_EQUAL(slv_linsys_factor_dense(ls, kinds[t], 0.0), SLV_LS_OK);
    int row = -1;
    TST_CLOSE(slv_linsys_pivot_min(ls, &row), 18.0 / 11.0, 0, 1e-15);
    CU_ASSERT_EQUAL(row, 2);
    double x[3] = { 2, -2, 4 }, xs[3] = { 1, -2, 3 };
    CU_ASSERT_EQUAL(slv_linsys_solve(ls, x), SLV_LS_OK);
    TST_VEC_CLOSE(x, xs, 3, 0, 1e-15);
    fill_3x3(slv_linsys_dense_values(ls, 3));
    CU_ASSERT_EQUAL(slv_linsys_factor_dense(ls, kinds[t], 1.0), SLV_LS_OK);
    double y[3] = { 3, -4, 7 };
    CU_ASSERT_EQUAL(slv_linsys_solve(ls, y), SLV_LS_OK);
    TST_VEC_CLOSE(y, xs, 3, 0, 1e-15);
  }
  /* filling drops the factor; a CSR call on a dense-input system is refused */
  slv_linsys_dense_values(ls, 3);
  double z[3] = { 0 };
  CU_ASSERT_EQUAL(slv_linsys_solve(ls, z), SLV_LS_NOT_FACTORED);
  CU_ASSERT_EQUAL(slv_linsys_factor(ls, z), SLV_LS_BAD_INPUT);
  slv_linsys *keep = ls;
  CU_ASSERT_EQUAL(slv_linsys_dense_reserve(&ls, 3), SLV_LS_OK);
  CU_ASSERT_PTR_EQUAL(ls, keep); /* large enough: kept */
  CU_ASSERT_EQUAL(slv_linsys_dense_reserve(&ls, 8), SLV_LS_OK);
  CU_ASSERT_PTR_NOT_NULL(slv_linsys_dense_values(ls, 8));
  slv_linsys_free(ls);
}

/* slv_linsys_analyse_sorted on sorted rows: [2 -1 0; -1 2 -1; 0 -1 2]
 * (x* = (1, 2, 3): b = (0, 0, 4)) on the dense, CHOLMOD and UMFPACK back
 * ends; and [0 2; 3 0], no diagonal entry stored (x* = (1, 2): b = (4, 3)),
 * which the LU takes through the general path. */
static void test_sorted(void) {
  int p[] = { 0, 2, 5, 7 }, j[] = { 0, 1, 0, 1, 2, 1, 2 };
  double a[] = { 2, -1, -1, 2, -1, -1, 2 }, xs[] = { 1, 2, 3 };
  const slv_ls_kind kind[] = { SLV_LS_SPD, SLV_LS_SPD, SLV_LS_GENERAL };
  const slv_ls_backend be[] = { SLV_LS_DENSE, SLV_LS_CHOLMOD, SLV_LS_UMFPACK };
  slv_ls_status st;
  for (int t = 0; t < 3; t++) {
    slv_linsys *ls = slv_linsys_analyse_sorted(kind[t], be[t], 3, p, j, &st);
    CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
    CU_ASSERT_EQUAL(slv_linsys_factor(ls, a), SLV_LS_OK);
    double x[] = { 0, 0, 4 };
    CU_ASSERT_EQUAL(slv_linsys_solve(ls, x), SLV_LS_OK);
    TST_VEC_CLOSE(x, xs, 3, 0, 1e-14);
    slv_linsys_free(ls);
  }
  int p2[] = { 0, 1, 2 }, j2[] = { 1, 0 };
  double a2[] = { 2, 3 }, x2[] = { 4, 3 }, xs2[] = { 1, 2 };
  slv_linsys *ls = slv_linsys_analyse_sorted(SLV_LS_GENERAL, SLV_LS_DENSE, 2, p2, j2, &st);
  CU_ASSERT_EQUAL_FATAL(st, SLV_LS_OK);
  CU_ASSERT_EQUAL(slv_linsys_factor(ls, a2), SLV_LS_OK);
  CU_ASSERT_EQUAL(slv_linsys_solve(ls, x2), SLV_LS_OK);
  TST_VEC_CLOSE(x2, xs2, 2, 0, 1e-15);
  slv_linsys_free(ls);
}

/* The rule: dense up to SLV_LS_DENSE_MAX rows or without a sparse form. */
static void test_choose(void) {
  CU_ASSERT_EQUAL(slv_linsys_choose(SLV_LS_SPD, SLV_LS_DENSE_MAX, 1), SLV_LS_DENSE);
  CU_ASSERT_EQUAL(slv_linsys_choose(SLV_LS_SPD, SLV_LS_DENSE_MAX + 1, 1), SLV_LS_CHOLMOD);
  CU_ASSERT_EQUAL(slv_linsys_choose(SLV_LS_GENERAL, SLV_LS_DENSE_MAX + 1, 1), SLV_LS_UMFPACK);
  CU_ASSERT_EQUAL(slv_linsys_choose(SLV_LS_GENERAL, 10 * SLV_LS_DENSE_MAX, 0), SLV_LS_DENSE);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("linsys", NULL, NULL);
  CU_add_test(s, "SPD: dense and CHOLMOD on planted systems", test_spd);
  CU_add_test(s, "general: dense, UMFPACK and KLU on planted systems", test_general);
  CU_add_test(s, "not SPD, singular, unfactored, bad input", test_breakdowns);
  CU_add_test(s, "A + shift I on every back end", test_shift);
  CU_add_test(s, "dense input: in place, pivots, shift, reserve", test_dense_input);
  CU_add_test(s, "sorted patterns, with and without a stored diagonal", test_sorted);
  CU_add_test(s, "the back-end rule", test_choose);
  return tst_run();
}
