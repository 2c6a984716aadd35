/* test_condition.c -- slv_condition_estimate (libsolvers/condition.c):
 * kappa_1(A) = ||A||_1 ||A^-1||_1 on matrices whose inverse is known.
 *
 *   2 x 2 dense A = [1 2; 3 4]: column sums 4, 6, so ||A||_1 = 6;
 *     det A = -2, A^-1 = [-2 1; 1.5 -0.5], column sums 3.5, 1.5, so
 *     ||A^-1||_1 = 3.5 and kappa_1 = 21.
 *   3 x 3 CSR A = [4 1 0; 1 3 1; 0 1 2]: column sums 5, 5, 3, ||A||_1 = 5;
 *     det A = 4 (6 - 1) - 1 (2 - 0) = 18, A^-1 = adj(A) / 18 with
 *     adj(A) = [5 -2 1; -2 8 -4; 1 -4 11], column sums 8, 14, 16, so
 *     ||A^-1||_1 = 16/18 and kappa_1 = 80/18 = 40/9.
 *   diag(d_1 .. d_n): ||A||_1 = max |d|, ||A^-1||_1 = 1 / min |d|, so
 *     kappa_1 = max |d| / min |d|; with n = 5 (the dense back end) and
 *     n = 700 (above SLV_LS_DENSE_MAX: the sparse LU).
 *   singular: [1 2; 2 4] (dense), and a 700-row CSR diagonal with a zero
 *     entry: +inf, return 0.
 *   no rows, no A: -1, NaN and a message.
 * Hager-Higham's estimate is exact on these (its first step, x = e/n, already
 * finds the largest column of |A^-1| for diagonal and these small
 * matrices), so the tolerance is rounding: 1e-13 relative.
 */
#include "slv.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static slv_problem dense(int n, const double *A) {
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.storage = SLV_DENSE;
  p.A = A;
  p.lda = n;
  return p;
}

static void test_dense_2x2(void) {
  const double A[] = { 1, 3, 2, 4 }; /* column-major [1 2; 3 4] */
  slv_problem p = dense(2, A);
  double cond = 0;
  char msg[160] = "";
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, msg, sizeof msg), 0);
  TST_CLOSE(cond, 21.0, 0, 1e-13);
}

static void test_csr_3x3(void) {
  const int Ap[] = { 0, 2, 5, 7 }, Aj[] = { 0, 1, 0, 1, 2, 1, 2 };
  const double Ax[] = { 4, 1, 1, 3, 1, 1, 2 };
  slv_problem p = slv_problem_empty();
  p.n = 3;
  p.storage = SLV_CSR;
  p.Ap = Ap;
  p.Aj = Aj;
  p.Ax = Ax;
  double cond = 0;
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, NULL, 0), 0);
  TST_CLOSE(cond, 40.0 / 9.0, 0, 1e-13);
}

/* diag(d) in CSR with d_i = 1 + i, d_zero (when >= 0) set to 0. */
static void diagonal_csr(int n, int zero, int *Ap, int *Aj, double *Ax, slv_problem *p) {
  for (int i = 0; i < n; i++) {
    Ap[i] = i;
    Aj[i] = i;
    Ax[i] = i == zero ? 0.0 : 1.0 + i;
  }
  Ap[n] = n;
  *p = slv_problem_empty();
  p->n = n;
  p->storage = SLV_CSR;
  p->Ap = Ap;
  p->Aj = Aj;
  p->Ax = Ax;
}

static void test_diagonal(void) {
  /* dense diag(1e-3, 0.5, -2, 7, 10): kappa_1 = 10 / 1e-3 = 1e4 */
  double A[25] = { 0 };
  const double d[] = { 1e-3, 0.5, -2, 7, 10 };
  for (int i = 0; i < 5; i++) A[i + 5 * i] = d[i];
  slv_problem p = dense(5, A);
  double cond = 0;
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, NULL, 0), 0);
  TST_CLOSE(cond, 1e4, 0, 1e-13);
  /* CSR diag(1 .. 700): kappa_1 = 700 */
  enum { N = 700 };
  int Ap[N + 1], Aj[N];
  double Ax[N];
  diagonal_csr(N, -1, Ap, Aj, Ax, &p);
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, NULL, 0), 0);
  TST_CLOSE(cond, 700.0, 0, 1e-13);
}

static void test_singular(void) {
  const double A[] = { 1, 2, 2, 4 };
  slv_problem p = dense(2, A);
  double cond = 0;
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, NULL, 0), 0);
  CU_ASSERT(isinf(cond) && cond > 0);
  enum { N = 700 };
  int Ap[N + 1], Aj[N];
  double Ax[N];
  diagonal_csr(N, 350, Ap, Aj, Ax, &p);
  cond = 0;
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, NULL, 0), 0);
  CU_ASSERT(isinf(cond) && cond > 0);
}

static void test_bad_input(void) {
  slv_problem p = slv_problem_empty();
  double cond = 0;
  char msg[160] = "";
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, msg, sizeof msg), -1);
  CU_ASSERT(isnan(cond));
  CU_ASSERT(strstr(msg, "n=0") != NULL);
  p.n = 2; /* dense without A */
  msg[0] = '\0';
  cond = 0;
  CU_ASSERT_EQUAL(slv_condition_estimate(&p, &cond, msg, sizeof msg), -1);
  CU_ASSERT(isnan(cond));
  CU_ASSERT(strstr(msg, "no dense A") != NULL);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("condition", NULL, NULL);
  CU_add_test(s, "2x2 dense: kappa_1 = 21", test_dense_2x2);
  CU_add_test(s, "3x3 CSR: kappa_1 = 40/9", test_csr_3x3);
  CU_add_test(s, "diagonal, dense and sparse back ends", test_diagonal);
  CU_add_test(s, "singular: +inf", test_singular);
  CU_add_test(s, "no rows, no A: -1 and a message", test_bad_input);
  return tst_run();
}
