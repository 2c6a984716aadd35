/* test_condense_rows.c -- slv_condense_rows (libsolvers/condense_rows.c;
 * docs/problem.md, "Rows condensed at an answer").
 *
 *   - by hand: A = [4 1 1; 1 3 1; 1 1 2], b = (1, 2, -3); row 0 free (E),
 *     row 1 boxed [-0.5, 0.5] at x1 = 0.5 (B), row 2 kept:
 *     c = b + A(:,1) 0.5 = (1.5, 3.5, -2.5),
 *     A' = 2 - 1 (1/4) 1 = 1.75,  b' = -2.5 - 1 (1/4) 1.5 = -2.875;
 *   - the definition: a 7 x 7 SPD A (rows 0-2 free, row 3 a limit that
 *     pushes (x = 0.3 > lo = 0: eliminated), row 4 a limit at x = 0 (B),
 *     rows 5, 6 kept): for any x_K, x_E solved from w_E = 0 by the test's own
 *     Gaussian elimination gives w_K = A' x_K + b' to 1e-12; the same from a
 *     CSR copy of A;
 *   - two equal free rows (A_EE singular): SLV_ERR_UNSUPPORTED, said.
 */
#include "slv.h"
#include "tst_pivot.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_by_hand(void) {
  const double A[9] = { 4, 1, 1, 1, 3, 1, 1, 1, 2 }, b[3] = { 1, 2, -3 };
  const double lo[3] = { -INFINITY, -0.5, 0 }, hi[3] = { INFINITY, 0.5, INFINITY };
  const double x[3] = { 0.7, 0.5, 1.0 };
  const unsigned char keep[3] = { 0, 0, 1 };
  slv_problem p = tst_dense(3, A, 3, b, lo, hi);
  double Ak = 0, bk = 0;
  int ne = -1;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(slv_condense_rows(&p, x, keep, &Ak, &bk, &ne, err, sizeof err), SLV_OK);
  TST_CLOSE(Ak, 1.75, 1e-15, 0);
  TST_CLOSE(bk, -2.875, 1e-15, 0);
  CU_ASSERT_EQUAL(ne, 1);
}

enum { N = 7 };

/* A = L L' + I with L's entries from a fixed sequence: SPD. */
static void spd(double *A) {
  double L[N * N];
  unsigned s = 12345u;
  for (int k = 0; k < N * N; k++) {
    s = s * 1103515245u + 12345u;
    L[k] = (double)((s >> 8) % 2001) / 1000.0 - 1.0;
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double v = i == j ? 1.0 : 0.0;
      for (int k = 0; k < N; k++) v += L[k * N + i] * L[k * N + j];
      A[j * N + i] = v;
    }
}

/* w_K at x_K with x_E solved from w_E = 0 (E rows 0-3, B row 4, K 5-6). */
static void w_kept(const double *A, const double *b, const double *xK, const double *xB,
                   double *wK) {
  double M[16], r[4];
  for (int a = 0; a < 4; a++) {
    r[a] = -(b[a] + A[4 * N + a] * xB[0] + A[5 * N + a] * xK[0] + A[6 * N + a] * xK[1]);
    for (int c = 0; c < 4; c++) M[c * 4 + a] = A[c * N + a];
  }
  tst_gauss(4, M, r);
  for (int i = 5; i < 7; i++) {
    double w = b[i] + A[4 * N + i] * xB[0] + A[5 * N + i] * xK[0] + A[6 * N + i] * xK[1];
    for (int c = 0; c < 4; c++) w += A[c * N + i] * r[c];
    wK[i - 5] = w;
  }
}

static void check_definition(const slv_problem *p, const double *A, const double *b) {
  const double x[N] = { 0.1, -2, 3, 0.3, 0, 0.5, 0.25 };
  const unsigned char keep[N] = { 0, 0, 0, 0, 0, 1, 1 };
  double Ak[4], bk[2];
  int ne = -1;
  char err[256] = "";
  CU_ASSERT_EQUAL_FATAL(slv_condense_rows(p, x, keep, Ak, bk, &ne, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL(ne, 4);
  const double xB[1] = { 0.0 }, trial[3][2] = { { 0.5, 0.25 }, { 2, -1 }, { 0, 0 } };
  for (int t = 0; t < 3; t++) {
    double wK[2];
    w_kept(A, b, trial[t], xB, wK);
    for (int i = 0; i < 2; i++) {
      double v = bk[i] + Ak[i] * trial[t][0] + Ak[2 + i] * trial[t][1];
      TST_CLOSE(v, wK[i], 1e-12, 1e-12);
    }
  }
}

static void test_definition(void) {
  double A[N * N];
  spd(A);
  const double b[N] = { 1, -1, 0.5, 2, -0.25, -3, 1.5 };
  double lo[N], hi[N];
  for (int i = 0; i < N; i++) lo[i] = i < 3 ? -INFINITY : 0.0, hi[i] = INFINITY;
  slv_problem p = tst_dense(N, A, N, b, lo, hi);
  check_definition(&p, A, b);
  /* the same A as CSR */
  int Ap[N + 1], Aj[N * N], k = 0;
  double Ax[N * N];
  for (int i = 0; i < N; i++) {
    Ap[i] = k;
    for (int j = 0; j < N; j++) Aj[k] = j, Ax[k++] = A[j * N + i];
  }
  Ap[N] = k;
  slv_problem q = p;
  q.storage = SLV_CSR;
  q.A = NULL;
  q.Ap = Ap, q.Aj = Aj, q.Ax = Ax;
  check_definition(&q, A, b);
}

static void test_singular(void) {
  const double A[9] = { 1, 1, 0, 1, 1, 0, 0, 0, 1 }, b[3] = { 0, 0, 0 };
  const double lo[3] = { -INFINITY, -INFINITY, 0 }, hi[3] = { INFINITY, INFINITY, INFINITY };
  const double x[3] = { 0, 0, 0 };
  const unsigned char keep[3] = { 0, 0, 1 };
  slv_problem p = tst_dense(3, A, 3, b, lo, hi);
  double Ak, bk;
  char err[256] = "";
  CU_ASSERT_EQUAL(slv_condense_rows(&p, x, keep, &Ak, &bk, NULL, err, sizeof err),
                  SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "singular"));
}

int main(void) {
  CU_initialize_registry();
  CU_pSuite s = CU_add_suite("condense rows", NULL, NULL);
  CU_add_test(s, "by hand: one free, one boxed at its bound, one kept", test_by_hand);
  CU_add_test(s, "the definition: w_K with x_E solved, dense and CSR", test_definition);
  CU_add_test(s, "singular eliminated rows: refused, said", test_singular);
  return tst_run();
}
