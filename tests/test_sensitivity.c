/* test_sensitivity.c -- derivatives of an answer (libsolvers/sensitivity.c;
 * docs/gradients.md).
 *
 *   - by hand, A = [2 1; 1 2]: both rows free (b = (-1, -1), x = (1/3, 1/3)):
 *     dx = -A^-1 (dA x + db); row 0 at its lower bound (b = (1, -1),
 *     x = (0, 1/2)): dx_0 = dlo_0, dx_1 = -(db_1 + dA_11/2 + dlo_0)/2; a box
 *     row at its upper bound (lo = -1, hi = 1, b = (-5, -3), x = (1, 1));
 *   - a symmetric indefinite free block (A = [1 2; 2 1]: the Cholesky is
 *     refused, the LU gives dx = -A^-1 db);
 *   - a findex pair (A = [2 .5; .5 1], b = (-2, .2)): sticking at mu = 1
 *     (x = (1.2, -0.8), both free), sliding at mu = 0.5 (x = (8/7, -4/7),
 *     x_1 = -mu x_0): dx_0 = (x_0 dmu/2 - db_0) / 1.75, dx_1 = -dmu x_0 - mu
 *     dx_0, worked out in the cases;
 *   - a degenerate row (b = (-1/2, -1): x_0 = 0 and w_0 = 0) is counted and
 *     held at its bound, which lemke's forward difference along db = (1,
 *     .5) (w_0 grows: the row stays held) confirms; the sliding findex pair
 *     again in CSR storage;
 *   - central differences (h = 1e-6) of lemke solves at tol 1e-12 on planted
 *     problems (n = 5, 12, 30; dense and banded CSR; LCP and box rows) agree
 *     with the JVP along random seeds on A (unsymmetric), b, lo, hi to 1e-7;
 *     the sliding findex pair against dantzig's solves along b and mu
 *     (dantzig needs a symmetric A) likewise;
 *   - <gx, JVP(d)> = <VJP(gx), d> to 1e-9 on the same problems;
 *   - one contact, A = I, mu = 0.5: sticking (b = (-1, .2, 0): dx = -db),
 *     separated (b = (1, 0, 0): dx = 0) and sliding under the associated law
 *     (b = (-1, 2, 0), x = P_K(-b) = (1.6, -0.8, 0)): dx = -J db + P_mu dmu
 *     with J = [.8 -.4 0; -.4 .2 0; 0 0 .4] and P_mu = (.32, -1.76, 0) from
 *     the projection's formulas;
 *   - random cone problems (4 and 7 contacts, both laws, dense and CSR)
 *     against central differences of nsn_ac (Coulomb) and nsgs (associated)
 *     solves at tol 1e-13 along seeds on A, b and mu, and the adjoint
 *     identity there;
 *   - refusals: wrong n, NaN seeds and cotangents, a NaN answer, a singular
 *     free block.
 */
#include "slv.h"
#include "tst_pivot.h"
#include "tst_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static slv_sensitivity *sens_of(const slv_problem *p, const double *x) {
  slv_sensitivity *s = NULL;
  char msg[256] = "";
  slv_status st = slv_sensitivity_new(p, x, 1e-10, &s, msg, sizeof msg);
  if (st != SLV_OK) printf("slv_sensitivity_new: %s\n", msg);
  CU_ASSERT_EQUAL(st, SLV_OK);
  return s;
}

static void test_both_free(void) {
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { -1, -1 }, x[2] = { 1.0 / 3, 1.0 / 3 };
  slv_problem p = tst_dense(2, A, 2, b, NULL, NULL);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_count(s).free, 2);
  int row = -1; /* Cholesky's pivots L_ii^2: 2 and 2 - 1/2; max |A_ab| = 2 */
  TST_CLOSE(slv_sensitivity_pivot_ratio(s, &row), 0.75, 1e-15, 0);
  CU_ASSERT_EQUAL(row, 1);
  const double db[2] = { 1, 0 }, dA[4] = { 1, 0, 0, 0 };
  double dx[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], -2.0 / 3, 1e-15, 0); /* -A^-1 e_0 = -(2, -1)/3 */
  TST_CLOSE(dx[1], 1.0 / 3, 1e-15, 0);
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, dA, NULL, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], -2.0 / 9, 1e-15, 0); /* dA x = (1/3, 0) */
  TST_CLOSE(dx[1], 1.0 / 9, 1e-15, 0);
  const double gx[2] = { 1, 0 };
  double gA[4], gb[2];
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, gA, gb, NULL, NULL, NULL, NULL, 0), SLV_OK);
  TST_CLOSE(gb[0], -2.0 / 3, 1e-15, 0); /* gb = -A^-T gx */
  TST_CLOSE(gb[1], 1.0 / 3, 1e-15, 0);
  TST_CLOSE(gA[0], -2.0 / 9, 1e-15, 0); /* gA = gb x^T */
  TST_CLOSE(gA[3], 1.0 / 9, 1e-15, 0);
  slv_sensitivity_free(s);
}

/* A free block singular but for rounding (A = v v', every row free at x =
 * (1, 1, 1), b = -A x, wide bounds): the factor fails, or completes with
 * a pivot at rounding, which slv_sensitivity_pivot_ratio shows (the
 * gradients measure's not_unique). */
static void test_singular_to_rounding(void) {
  const double v[3] = { 0.1, 0.3, 0.7 }, x[3] = { 1, 1, 1 };
  const double lo[3] = { -10, -10, -10 }, hi[3] = { 10, 10, 10 };
  double A[9], b[3];
  for (int i = 0; i < 3; i++) {
    b[i] = 0;
    for (int j = 0; j < 3; j++) A[i + 3 * j] = v[i] * v[j], b[i] -= v[i] * v[j];
  }
  slv_problem p = tst_dense(3, A, 3, b, lo, hi);
  slv_sensitivity *s = NULL;
  slv_status st = slv_sensitivity_new(&p, x, 1e-10, &s, NULL, 0);
  int row = -1;
  double r = st == SLV_OK ? slv_sensitivity_pivot_ratio(s, &row) : 0.0;
  if (st == SLV_OK) CU_ASSERT_EQUAL(slv_sensitivity_count(s).free, 3);
  CU_ASSERT(st == SLV_SINGULAR_PIVOT || (st == SLV_OK && r <= 3 * DBL_EPSILON && row >= 0));
  if (st == SLV_OK && !(r <= 3 * DBL_EPSILON)) printf("pivot ratio %g at row %d\n", r, row);
  slv_sensitivity_free(s);
}

static void test_at_lower(void) {
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { 1, -1 }, x[2] = { 0, 0.5 };
  const double lo[2] = { 0, 0 }, hi[2] = { INFINITY, INFINITY };
  slv_problem p = tst_dense(2, A, 2, b, lo, hi);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[0], SLV_ROW_LOWER);
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[1], SLV_ROW_FREE);
  const double db[2] = { 1, 1 }, dlo[2] = { 1, 0 }, dA[4] = { 0, 0, 0, 1 };
  double dx[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, dA, db, dlo, NULL, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 1.0, 1e-15, 0);
  TST_CLOSE(dx[1], -(1 + 0.5 + 1) / 2, 1e-15, 0);
  const double gx[2] = { 1, 1 };
  double gA[4], gb[2], glo[2], ghi[2];
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, gA, gb, glo, ghi, NULL, NULL, 0), SLV_OK);
  TST_CLOSE(gb[0], 0, 0, 0);
  TST_CLOSE(gb[1], -0.5, 1e-15, 0);
  TST_CLOSE(gA[3], -0.25, 1e-15, 0); /* d x_1 / d A_11 = -x_1 / 2 */
  TST_CLOSE(gA[1], 0, 0, 0);         /* x_0 = 0: A_10 does not move x */
  TST_CLOSE(glo[0], 0.5, 1e-15, 0);  /* 1 - A_10 / 2 */
  TST_CLOSE(glo[1], 0, 0, 0);
  TST_CLOSE(ghi[0], 0, 0, 0);
  slv_sensitivity_free(s);
}

/* A symmetric indefinite free block: the Cholesky refuses it, the LU takes
 * it.  A = [1 2; 2 1], free rows, b = (-3, -3): x = (1, 1), dx = -A^-1 db. */
static void test_indefinite_block(void) {
  const double A[4] = { 1, 2, 2, 1 }, b[2] = { -3, -3 }, x[2] = { 1, 1 };
  const double lo[2] = { -INFINITY, -INFINITY }, hi[2] = { INFINITY, INFINITY };
  slv_problem p = tst_dense(2, A, 2, b, lo, hi);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  const double db[2] = { 1, 0 };
  double dx[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 1.0 / 3, 1e-15, 0);
  TST_CLOSE(dx[1], -2.0 / 3, 1e-15, 0);
  slv_sensitivity_free(s);
}

static void test_box_upper(void) {
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -3 }, x[2] = { 1, 1 };
  const double lo[2] = { -1, 0 }, hi[2] = { 1, INFINITY };
  slv_problem p = tst_dense(2, A, 2, b, lo, hi);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[0], SLV_ROW_UPPER);
  const double dhi[2] = { 1, 0 };
  double dx[2], ghi[2], glo[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, NULL, NULL, dhi, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 1, 1e-15, 0);
  TST_CLOSE(dx[1], -0.5, 1e-15, 0);
  const double gx0[2] = { 1, 0 }, gx1[2] = { 0, 1 };
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx0, NULL, NULL, glo, ghi, NULL, NULL, 0), SLV_OK);
  TST_CLOSE(ghi[0], 1, 1e-15, 0);
  TST_CLOSE(glo[0], 0, 0, 0);
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx1, NULL, NULL, glo, ghi, NULL, NULL, 0), SLV_OK);
  TST_CLOSE(ghi[0], -0.5, 1e-15, 0);
  slv_sensitivity_free(s);
}

/* The findex pair: row 0 normal, row 1 its friction. */
static const double FA[4] = { 2, 0.5, 0.5, 1 }, Fb[2] = { -2, 0.2 };
static const int Ffx[2] = { -1, 0 };

static slv_problem findex_pair(const double *mu) {
  slv_problem p = tst_dense(2, FA, 2, Fb, NULL, NULL);
  p.findex = Ffx;
  p.mu = mu;
  return p;
}

static void test_findex_sticking(void) {
  const double mu[2] = { 0, 1 }, x[2] = { 1.2, -0.8 };
  slv_problem p = findex_pair(mu);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_count(s).free, 2);
  const double db[2] = { 0, 1 }, dmu[2] = { 0, 1 };
  double dx[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 0.5 / 1.75, 1e-15, 0); /* -A^-1 e_1, A^-1 = [1 -.5; -.5 2] / 1.75 */
  TST_CLOSE(dx[1], -2 / 1.75, 1e-15, 0);
  slv_sensitivity_free(s);
}

static void test_findex_sliding(void) {
  const double mu[2] = { 0, 0.5 }, x[2] = { 8.0 / 7, -4.0 / 7 };
  slv_problem p = findex_pair(mu);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[1], SLV_ROW_LOWER);
  const double dmu[2] = { 0, 1 }, db[2] = { 1, 0 };
  double dx[2];
  /* x_1 = -mu x_0, 2 x_0 + x_1 / 2 + b_0 = 0: 1.75 dx_0 = x_0 dmu / 2 - db_0 */
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, NULL, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 16.0 / 49, 1e-15, 0);
  TST_CLOSE(dx[1], -64.0 / 49, 1e-15, 0);
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], -4.0 / 7, 1e-15, 0);
  TST_CLOSE(dx[1], 2.0 / 7, 1e-15, 0);
  const double gx[2] = { 0, 1 };
  double gb[2], gmu[2], glo[2];
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, NULL, gb, glo, NULL, gmu, NULL, 0), SLV_OK);
  TST_CLOSE(gmu[1], -64.0 / 49, 1e-15, 0);
  TST_CLOSE(gb[0], 2.0 / 7, 1e-15, 0);
  TST_CLOSE(glo[1], 0, 0, 0); /* a findex row's own lo is ignored */
  slv_sensitivity_free(s);
}

static void test_degenerate(void) {
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { -0.5, -1 }, x[2] = { 0, 0.5 };
  slv_problem p = tst_dense(2, A, 2, b, NULL, NULL);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_count(s).degenerate, 1);
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[0], SLV_ROW_LOWER | SLV_ROW_DEGENERATE);
  const double db[2] = { 1, 1 };
  double dx[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 0, 0, 0); /* held at its bound */
  TST_CLOSE(dx[1], -0.5, 1e-15, 0);
  slv_sensitivity_free(s);
}


/* The sliding pair in CSR storage: the coupling's entries of M in CSR. */
static void test_findex_sliding_csr(void) {
  const double mu[2] = { 0, 0.5 }, x[2] = { 8.0 / 7, -4.0 / 7 };
  int Ap[3], Aj[4];
  double Ax[4];
  tst_dense_to_csr(2, FA, Ap, Aj, Ax);
  slv_problem p = findex_pair(mu);
  p.storage = SLV_CSR, p.A = NULL, p.Ap = Ap, p.Aj = Aj, p.Ax = Ax;
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  const double dmu[2] = { 0, 1 }, gx[2] = { 0, 1 };
  double dx[2], gmu[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, NULL, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  TST_CLOSE(dx[0], 16.0 / 49, 1e-15, 0);
  TST_CLOSE(dx[1], -64.0 / 49, 1e-15, 0);
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, NULL, NULL, NULL, NULL, gmu, NULL, 0), SLV_OK);
  TST_CLOSE(gmu[1], -64.0 / 49, 1e-15, 0);
  slv_sensitivity_free(s);
}

/* A degenerate row's one-sided derivative: along a seed that keeps it at
 * its bound (db_0 > 0 makes w_0 > 0), lemke's forward difference agrees. */
static void test_degenerate_one_sided(void) {
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { -0.5, -1 }, db[2] = { 1, 0.5 };
  double x[2], xh[2], dx[2], bh[2];
  slv_result res;
  tst_log log;
  slv_problem p = tst_dense(2, A, 2, b, NULL, NULL);
  CU_ASSERT_EQUAL(tst_solve_logged("lemke", &p, 1e-12, x, &res, &log), SLV_CONVERGED);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_count(s).degenerate, 1);
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  const double h = 1e-6;
  for (int i = 0; i < 2; i++) bh[i] = b[i] + h * db[i];
  slv_problem ph = tst_dense(2, A, 2, bh, NULL, NULL);
  CU_ASSERT_EQUAL(tst_solve_logged("lemke", &ph, 1e-12, xh, &res, &log), SLV_CONVERGED);
  for (int i = 0; i < 2; i++) TST_CLOSE(dx[i], (xh[i] - x[i]) / h, 1e-8, 0);
  slv_sensitivity_free(s);
}

/* ---- finite differences and the adjoint identity ------------------------ */

typedef struct {
  int n, csr, box;
  double *A, *b, *lo, *hi, *x; /* the problem (dense A, n x n) and its planted answer */
  int *Ap, *Aj, nnz;           /* CSR: the band |i - j| <= 2 */
  double *Ax;
  double *dA, *db, *dlo, *dhi; /* a seed (dA on A's layout) */
  double *pA, *pb, *plo, *phi; /* the problem moved along the seed */
} fd_case;

static double unif(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (double)((*s >> 8) % 20001) / 10000.0 - 1.0;
}

/* A banded, diagonally dominant copy of A with b moved so that x stays
 * the answer (w = A x + b unchanged). */
static void make_banded(fd_case *c) {
  int n = c->n;
  double *w = malloc(n * sizeof *w);
  for (int i = 0; i < n; i++) {
    w[i] = c->b[i];
    for (int j = 0; j < n; j++) w[i] += c->A[i + j * n] * c->x[j];
  }
  for (int i = 0; i < n; i++) {
    double r = 0;
    for (int j = 0; j < n; j++) {
      if (abs(i - j) > 2) c->A[i + j * n] = 0;
      if (i != j) r += fabs(c->A[i + j * n]);
    }
    c->A[i + i * n] = r + 0.5;
  }
  for (int i = 0; i < n; i++) {
    c->b[i] = w[i];
    for (int j = 0; j < n; j++) c->b[i] -= c->A[i + j * n] * c->x[j];
  }
  free(w);
  c->nnz = tst_dense_to_csr(n, c->A, c->Ap, c->Aj, c->Ax);
}

static void fd_make(fd_case *c, int n, int csr, int box, unsigned long seed) {
  memset(c, 0, sizeof *c);
  c->n = n, c->csr = csr, c->box = box;
  size_t nn = (size_t)n * n;
  double **v[] = { &c->A, &c->dA, &c->pA, &c->Ax };
  for (int k = 0; k < 4; k++) *v[k] = calloc(nn, sizeof(double));
  double **u[] = {
    &c->b, &c->lo, &c->hi, &c->x, &c->db, &c->dlo, &c->dhi, &c->pb, &c->plo, &c->phi
  };
  for (int k = 0; k < 10; k++) *u[k] = calloc(n, sizeof(double));
  c->Ap = calloc(n + 1, sizeof(int));
  c->Aj = calloc(nn, sizeof(int));
  for (int i = 0; i < n; i++) {
    c->lo[i] = box ? -1.0 - 0.5 * (i % 3) : 0.0;
    c->hi[i] = box ? (i % 4 == 3 ? INFINITY : 1.0 + 0.25 * (i % 2)) : INFINITY;
  }
  tst_planted_spd(n, 0.5, seed, c->lo, c->hi, c->A, c->b, c->x);
  if (csr) make_banded(c);
  unsigned s = (unsigned)seed * 7u + 1u;
  for (size_t k = 0; k < nn; k++) c->dA[k] = unif(&s); /* dense: n x n; CSR: first nnz */
  for (int i = 0; i < n; i++) {
    c->db[i] = unif(&s);
    c->dlo[i] = isfinite(c->lo[i]) ? unif(&s) : 0.0;
    c->dhi[i] = isfinite(c->hi[i]) ? unif(&s) : 0.0;
  }
}

static void fd_free(fd_case *c) {
  double *v[] = { c->A, c->dA, c->pA,  c->Ax,  c->b,  c->lo,  c->hi,
                  c->x, c->db, c->dlo, c->dhi, c->pb, c->plo, c->phi };
  for (int k = 0; k < 14; k++) free(v[k]);
  free(c->Ap), free(c->Aj);
}

static slv_problem fd_problem(const fd_case *c, const double *A, const double *b, const double *lo,
                              const double *hi) {
  slv_problem p = tst_dense(c->n, A, c->n, b, lo, hi);
  if (c->csr) {
    p.storage = SLV_CSR, p.A = NULL, p.Ap = c->Ap, p.Aj = c->Aj, p.Ax = A;
  }
  return p;
}

/* The answer of the problem moved by t along the seed, solved at 1e-12. */
static void fd_solve(fd_case *c, const char *solver, double t, double *x) {
  int n = c->n;
  size_t na = c->csr ? (size_t)c->nnz : (size_t)n * n;
  const double *A0 = c->csr ? c->Ax : c->A;
  for (size_t k = 0; k < na; k++) c->pA[k] = A0[k] + t * c->dA[k];
  for (int i = 0; i < n; i++) {
    c->pb[i] = c->b[i] + t * c->db[i];
    c->plo[i] = c->lo[i] + t * c->dlo[i];
    c->phi[i] = c->hi[i] + t * c->dhi[i];
  }
  slv_problem p = fd_problem(c, c->pA, c->pb, c->plo, c->phi);
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_workspace *ws = NULL;
  slv_result r;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(solver), n, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r), SLV_CONVERGED);
  slv_workspace_free(ws);
}

/* <a, b> over len entries. */
static double dot(const double *a, const double *b, size_t len) {
  double s = 0;
  for (size_t k = 0; k < len; k++) s += a[k] * b[k];
  return s;
}

static void fd_check(fd_case *c, const char *solver) {
  int n = c->n;
  slv_problem p = fd_problem(c, c->csr ? c->Ax : c->A, c->b, c->lo, c->hi);
  slv_sensitivity *s = sens_of(&p, c->x);
  if (!s) return;
  double *dx = calloc(n, sizeof *dx), *xp = calloc(n, sizeof *xp), *xm = calloc(n, sizeof *xm);
  const double h = 1e-6;
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, n, c->dA, c->db, c->dlo, c->dhi, NULL, dx, NULL, 0),
                  SLV_OK);
  fd_solve(c, solver, h, xp);
  fd_solve(c, solver, -h, xm);
  for (int i = 0; i < n; i++) xp[i] = (xp[i] - xm[i]) / (2 * h);
  TST_VEC_CLOSE(dx, xp, n, 1e-7, 1e-7);
  /* the adjoint identity along a cotangent */
  size_t na = c->csr ? (size_t)c->nnz : (size_t)n * n;
  double *gx = xm, *gA = calloc(na, sizeof *gA), *gb = calloc(n, sizeof *gb);
  double *glo = calloc(n, sizeof *glo), *ghi = calloc(n, sizeof *ghi);
  unsigned seed = 99u + (unsigned)n;
  for (int i = 0; i < n; i++) gx[i] = unif(&seed);
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, n, gx, gA, gb, glo, ghi, NULL, NULL, 0), SLV_OK);
  double lhs = dot(gx, dx, n);
  double rhs = dot(gA, c->dA, na) + dot(gb, c->db, n) + dot(glo, c->dlo, n) + dot(ghi, c->dhi, n);
  TST_CLOSE(lhs, rhs, 1e-9, 1e-9);
  free(dx), free(xp), free(xm), free(gA), free(gb), free(glo), free(ghi);
  slv_sensitivity_free(s);
}

static void test_fd_planted(void) {
  const int sizes[3] = { 5, 12, 30 };
  for (int k = 0; k < 3; k++)
    for (int csr = 0; csr < 2; csr++)
      for (int box = 0; box < 2; box++) {
        fd_case c;
        fd_make(&c, sizes[k], csr, box, 17u + 5u * k + 2u * csr + box);
        fd_check(&c, "lemke");
        fd_free(&c);
      }
}

/* The sliding pair against dantzig's solves moved along db and dmu. */
static void test_fd_findex(void) {
  const double mu0[2] = { 0, 0.5 }, db[2] = { 0.3, -0.7 }, dmu[2] = { 0, 0.4 };
  double x[2] = { 0, 0 }, xp[2], xm[2], dx[2], mu[2], b[2];
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  slv_workspace *ws = NULL;
  slv_result r;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("dantzig"), 2, &o, &ws), SLV_OK);
  slv_problem p = findex_pair(mu0);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r), SLV_CONVERGED);
  TST_CLOSE(x[0], 8.0 / 7, 1e-12, 0);
  const double h = 1e-6;
  for (int sgn = -1; sgn <= 1; sgn += 2) {
    for (int i = 0; i < 2; i++) mu[i] = mu0[i] + sgn * h * dmu[i], b[i] = Fb[i] + sgn * h * db[i];
    slv_problem q = findex_pair(mu);
    q.b = b;
    CU_ASSERT_EQUAL(slv_solve(ws, &q, &o, sgn < 0 ? xm : xp, NULL, &r), SLV_CONVERGED);
  }
  slv_workspace_free(ws);
  p = findex_pair(mu0);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  for (int i = 0; i < 2; i++) xp[i] = (xp[i] - xm[i]) / (2 * h);
  TST_VEC_CLOSE(dx, xp, 2, 1e-8, 1e-8);
  /* the adjoint identity, A's seed included */
  const double dA[4] = { 0.3, -0.2, 0.5, 0.1 }, gx[2] = { 0.7, -1.3 };
  double gA[4], gb[2], gmu[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, dA, db, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, gA, gb, NULL, NULL, gmu, NULL, 0), SLV_OK);
  TST_CLOSE(dot(gx, dx, 2), dot(gA, dA, 4) + dot(gb, db, 2) + dot(gmu, dmu, 2), 1e-14, 1e-12);
  slv_sensitivity_free(s);
}

/* A factored problem (one row per block pair) against its explicit CSR. */
static void test_factored(void) {
  const int fblk[4] = { 0, -1, 0, 1 };
  double fJ[24] = { 0 }, fK[24] = { 0 };
  for (int c = 0; c < 6; c++) {
    fJ[c] = 1.0 + c, fK[c] = 0.5 * (1.0 + c);
    fJ[12 + c] = 1.0 - 0.1 * c, fK[12 + c] = 0.5 * (1.0 - 0.1 * c);
    fJ[18 + c] = 0.3, fK[18 + c] = 0.6;
  }
  const double b[2] = { -50, -10 }, fd[2] = { 0.1, 0.1 };
  slv_problem p = slv_problem_empty();
  p.n = 2, p.storage = SLV_FACTORED, p.nblk = 2, p.fblk = fblk, p.fJ = fJ, p.fK = fK, p.fd = fd;
  p.b = b;
  double x[2] = { 0, 0 };
  slv_result res;
  tst_log log;
  CU_ASSERT_EQUAL(tst_solve_logged("pgs", &p, 1e-12, x, &res, &log), SLV_CONVERGED);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  const int *Ap, *Aj;
  CU_ASSERT_EQUAL(slv_sensitivity_pattern(s, &Ap, &Aj), 4);
  const double db[2] = { 1, 0.5 };
  double dx[2], gb[2];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, NULL, 0), SLV_OK);
  /* both rows free here: dx = -A^-1 db with A's entries from its factors */
  double a00 = 0, a01 = 0, a11 = 0.1;
  for (int c = 0; c < 6; c++) {
    a00 += fJ[c] * fK[c];
    a01 += fJ[c] * fK[12 + c];
    a11 += fJ[12 + c] * fK[12 + c] + fJ[18 + c] * fK[18 + c];
  }
  a00 += 0.1;
  double det = a00 * a11 - a01 * a01;
  CU_ASSERT_EQUAL(slv_sensitivity_count(s).free, 2);
  TST_CLOSE(dx[0], -(a11 * db[0] - a01 * db[1]) / det, 1e-14, 1e-12);
  TST_CLOSE(dx[1], -(a00 * db[1] - a01 * db[0]) / det, 1e-14, 1e-12);
  const double gx[2] = { 1, 0 };
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, NULL, gb, NULL, NULL, NULL, NULL, 0), SLV_OK);
  TST_CLOSE(gb[0], -a11 / det, 1e-14, 1e-12);
  slv_sensitivity_free(s);
}

static void test_refusals(void) {
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { -1, -1 }, x[2] = { 1.0 / 3, 1.0 / 3 };
  slv_problem p = tst_dense(2, A, 2, b, NULL, NULL);
  slv_sensitivity *s = NULL;
  char msg[256] = "";
  const double xbad[2] = { NAN, 0 };
  CU_ASSERT_EQUAL(slv_sensitivity_new(&p, xbad, 1e-10, &s, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "x[0]"));
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_EQUAL(slv_sensitivity_new(&p, x, -1, &s, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "tol"));
  s = sens_of(&p, x);
  if (!s) return;
  double dx[2], db[2] = { 1, INFINITY }, gx[2] = { NAN, 0 };
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 3, NULL, NULL, NULL, NULL, NULL, dx, msg, sizeof msg),
                  SLV_ERR_DIM);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "n=3"));
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 2, NULL, db, NULL, NULL, NULL, dx, msg, sizeof msg),
                  SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "db[1]"));
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 2, gx, NULL, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "gx[0]"));
  slv_sensitivity_free(s);
  /* a singular free block */
  const double As[4] = { 1, 1, 1, 1 }, bs[2] = { -1, -1 }, xs[2] = { 0.5, 0.5 };
  slv_problem ps = tst_dense(2, As, 2, bs, NULL, NULL);
  CU_ASSERT_EQUAL(slv_sensitivity_new(&ps, xs, 1e-10, &s, msg, sizeof msg), SLV_SINGULAR_PIVOT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "singular"));
}


/* ---- cones ----------------------------------------------------------------- */

static slv_problem one_contact(const double *A, const double *b, const int *rows, const double *mu,
                               slv_cone_law law) {
  slv_problem p = tst_dense(3, A, 3, b, NULL, NULL);
  p.ncones = 1, p.cone_rows = rows, p.cone_mu = mu, p.cone_law = law;
  return p;
}

static void test_cone_by_hand(void) {
  const double A[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, mu[1] = { 0.5 };
  const int rows[1] = { 0 };
  const double bst[3] = { -1, 0.2, 0 }, xst[3] = { 1, -0.2, 0 };
  const double bse[3] = { 1, 0, 0 }, xse[3] = { 0, 0, 0 };
  const double bsl[3] = { -1, 2, 0 }, xsl[3] = { 1.6, -0.8, 0 };
  const double db[3] = { 0.3, -0.5, 0.7 }, dmu[3] = { 1, 0, 0 };
  double dx[3];
  slv_problem p = one_contact(A, bst, rows, mu, SLV_CONE_COULOMB);
  slv_sensitivity *s = sens_of(&p, xst);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[0], SLV_ROW_FREE);
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 3, NULL, db, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  for (int r = 0; r < 3; r++) TST_CLOSE(dx[r], -db[r], 1e-15, 0);
  slv_sensitivity_free(s);
  p = one_contact(A, bse, rows, mu, SLV_CONE_COULOMB);
  s = sens_of(&p, xse);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[0], SLV_ROW_LOWER);
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 3, NULL, db, NULL, NULL, dmu, dx, NULL, 0), SLV_OK);
  for (int r = 0; r < 3; r++) TST_CLOSE(dx[r], 0, 0, 0);
  slv_sensitivity_free(s);
  p = one_contact(A, bsl, rows, mu, SLV_CONE_ASSOCIATED);
  s = sens_of(&p, xsl);
  if (!s) return;
  CU_ASSERT_EQUAL(slv_sensitivity_modes(s)[0], SLV_ROW_SLIDING);
  CU_ASSERT_EQUAL(slv_sensitivity_count(s).sliding, 3);
  const double J[9] = { 0.8, -0.4, 0, -0.4, 0.2, 0, 0, 0, 0.4 }, pmu[3] = { 0.32, -1.76, 0 };
  const double dmu2[3] = { 0.5, 0, 0 };
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, 3, NULL, db, NULL, NULL, dmu2, dx, NULL, 0), SLV_OK);
  for (int r = 0; r < 3; r++) {
    double want = pmu[r] * 0.5;
    for (int c = 0; c < 3; c++) want -= J[3 * r + c] * db[c];
    TST_CLOSE(dx[r], want, 1e-14, 0);
  }
  const double gx[3] = { 0, 1, 0 };
  double gb[3], gmu[3];
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 3, gx, NULL, gb, NULL, NULL, gmu, NULL, 0), SLV_OK);
  TST_CLOSE(gmu[0], -1.76, 1e-14, 0);
  TST_CLOSE(gb[0], 0.4, 1e-14, 0); /* -J^T e_1 */
  TST_CLOSE(gb[1], -0.2, 1e-14, 0);
  slv_sensitivity_free(s);
}

enum { NC_MAX = 7, NR_MAX = 3 * NC_MAX };

typedef struct {
  int nc, n, csr;
  slv_cone_law law;
  double A[NR_MAX * NR_MAX], b[NR_MAX], mu[NC_MAX];
  double dA[NR_MAX * NR_MAX], db[NR_MAX], dmu[NR_MAX];
  int rows[NC_MAX], Ap[NR_MAX + 1], Aj[NR_MAX * NR_MAX], nnz;
  double Ax[NR_MAX * NR_MAX];
} cone_case;

static void cone_make(cone_case *c, int nc, int csr, slv_cone_law law, unsigned seed) {
  memset(c, 0, sizeof *c);
  c->nc = nc, c->n = 3 * nc, c->csr = csr, c->law = law;
  int n = c->n;
  double B[NR_MAX * NR_MAX];
  for (int k = 0; k < n * n; k++) B[k] = unif(&seed);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double v = i == j ? 1.0 : 0.0;
      for (int k = 0; k < n; k++) v += B[i + k * n] * B[j + k * n] / n;
      c->A[i + j * n] = v;
    }
  for (int k = 0; k < nc; k++) {
    c->rows[k] = 3 * k;
    c->mu[k] = 0.3 + 0.5 * (unif(&seed) + 1) / 2;
    c->b[3 * k] = -1.0 + 0.8 * unif(&seed) + (k % 4 == 3 ? 2.5 : 0.0); /* some separate */
    c->b[3 * k + 1] = 1.2 * unif(&seed);
    c->b[3 * k + 2] = 1.2 * unif(&seed);
    c->dmu[3 * k] = unif(&seed);
  }
  for (int k = 0; k < n * n; k++) c->dA[k] = unif(&seed);
  for (int i = 0; i < n; i++) c->db[i] = unif(&seed);
  c->nnz = tst_dense_to_csr(n, c->A, c->Ap, c->Aj, c->Ax);
}

/* c's problem with A, b, mu moved by t along the seeds (into the buffers). */
static slv_problem cone_problem(const cone_case *c, double t, double *A, double *b, double *mu) {
  int n = c->n;
  for (int k = 0; k < n * n; k++) A[k] = c->A[k] + t * c->dA[k];
  for (int i = 0; i < n; i++) b[i] = c->b[i] + t * c->db[i];
  for (int k = 0; k < c->nc; k++) mu[k] = c->mu[k] + t * c->dmu[3 * k];
  slv_problem p = tst_dense(n, A, n, b, NULL, NULL);
  p.ncones = c->nc, p.cone_rows = c->rows, p.cone_mu = mu, p.cone_law = c->law;
  if (c->csr) { /* the full pattern: dA's values in CSR order are A's */
    static int Ap[NR_MAX + 1], Aj[NR_MAX * NR_MAX];
    static double Ax[NR_MAX * NR_MAX];
    tst_dense_to_csr(n, A, Ap, Aj, Ax);
    memcpy(A, Ax, sizeof Ax);
    p.storage = SLV_CSR, p.A = NULL, p.Ap = Ap, p.Aj = Aj, p.Ax = A;
  }
  return p;
}

static void cone_solve(const cone_case *c, double t, double *x) {
  double A[NR_MAX * NR_MAX], b[NR_MAX], mu[NC_MAX];
  slv_problem p = cone_problem(c, t, A, b, mu);
  slv_options o = slv_options_default();
  o.tol = 1e-13, o.max_iter = 100000;
  slv_workspace *ws = NULL;
  slv_result r;
  const char *solver = c->law == SLV_CONE_COULOMB ? "nsn_ac" : "nsgs";
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(solver), c->n, &o, &ws), SLV_OK);
  memset(x, 0, c->n * sizeof *x);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r), SLV_CONVERGED);
  slv_workspace_free(ws);
}

static void cone_check(cone_case *c) {
  int n = c->n;
  double x[NR_MAX], xp[NR_MAX], xm[NR_MAX], dx[NR_MAX], A[NR_MAX * NR_MAX], b[NR_MAX];
  double mu[NC_MAX], dAl[NR_MAX * NR_MAX];
  cone_solve(c, 0, x);
  slv_problem p = cone_problem(c, 0, A, b, mu);
  slv_sensitivity *s = sens_of(&p, x);
  if (!s) return;
  slv_sensitivity_counts k = slv_sensitivity_count(s);
  CU_ASSERT_EQUAL(k.degenerate, 0);
  /* dA on the problem's layout: CSR order over the full pattern is row-major */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) dAl[c->csr ? i * n + j : i + j * n] = c->dA[i + j * n];
  CU_ASSERT_EQUAL(slv_sensitivity_jvp(s, n, dAl, c->db, NULL, NULL, c->dmu, dx, NULL, 0), SLV_OK);
  const double h = 1e-6;
  cone_solve(c, h, xp);
  cone_solve(c, -h, xm);
  for (int i = 0; i < n; i++) xp[i] = (xp[i] - xm[i]) / (2 * h);
  TST_VEC_CLOSE(dx, xp, n, 1e-6, 1e-6);
  double gx[NR_MAX], gA[NR_MAX * NR_MAX], gb[NR_MAX], gmu[NR_MAX];
  unsigned seed = 7u + (unsigned)n;
  for (int i = 0; i < n; i++) gx[i] = unif(&seed);
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, n, gx, gA, gb, NULL, NULL, gmu, NULL, 0), SLV_OK);
  size_t na = (size_t)n * n;
  double rhs = dot(gA, dAl, na) + dot(gb, c->db, n) + dot(gmu, c->dmu, n);
  TST_CLOSE(dot(gx, dx, n), rhs, 1e-9, 1e-9);
  printf("[%d contacts, %s, %s: %d sticking rows, %d separated, %d sliding] ", c->nc,
         c->law == SLV_CONE_COULOMB ? "coulomb" : "associated", c->csr ? "csr" : "dense", k.free,
         k.lower, k.sliding);
  slv_sensitivity_free(s);
}

static void test_cone_fd(void) {
  const int ncs[2] = { 4, 7 };
  for (int a = 0; a < 2; a++)
    for (int csr = 0; csr < 2; csr++)
      for (int law = 0; law < 2; law++) {
        static cone_case c;
        cone_make(&c, ncs[a], csr, law ? SLV_CONE_ASSOCIATED : SLV_CONE_COULOMB,
                  31u + 7u * a + 3u * csr + law);
        cone_check(&c);
      }
}

int main(void) {
  CU_initialize_registry();
  CU_pSuite su = CU_add_suite("sensitivity", NULL, NULL);
  CU_add_test(su, "2x2 LCP, both rows free, by hand", test_both_free);
  CU_add_test(su, "2x2 LCP, a row at its lower bound, by hand", test_at_lower);
  CU_add_test(su, "box row at its upper bound, by hand", test_box_upper);
  CU_add_test(su, "symmetric indefinite free block: LU after Cholesky", test_indefinite_block);
  CU_add_test(su, "findex pair sticking, by hand", test_findex_sticking);
  CU_add_test(su, "findex pair sliding, by hand", test_findex_sliding);
  CU_add_test(su, "degenerate row: counted, held at its bound", test_degenerate);
  CU_add_test(su, "findex pair sliding in CSR, by hand", test_findex_sliding_csr);
  CU_add_test(su, "degenerate row: one-sided difference of lemke", test_degenerate_one_sided);
  CU_add_test(su, "central differences of lemke, JVP/VJP adjoint", test_fd_planted);
  CU_add_test(su, "findex sliding: central differences of dantzig", test_fd_findex);
  CU_add_test(su, "factored A: its explicit CSR", test_factored);
  CU_add_test(su, "one contact sticking, separated, sliding, by hand", test_cone_by_hand);
  CU_add_test(su, "cones: central differences of nsn_ac / nsgs", test_cone_fd);
  CU_add_test(su, "refusals: n, NaN seeds, NaN x, singular", test_refusals);
  CU_add_test(su, "a free block singular to rounding: its pivot ratio", test_singular_to_rounding);
  return tst_run();
}
