/* test_sensitivity_global.c -- the gradients on a global problem's M, H,
 * f and w (slv_sensitivity_global_vjp, libsolvers/sensitivity_global.c;
 * docs/gradients.md, "Global problems") against central differences of
 * lemke's answers to the condensed problem W = H' M^-1 H, q = w + H' M^-1 f,
 * condensed here by hand (a 3 x 3 inverse), along seeds on all four; and
 * the refusals (a NaN in gq, a missing argument).
 */
#include "slv.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { ND = 3, N = 3 };
/* M: SPD, full (one block); H full; f, w chosen so that the answer has a
 * free row and rows at 0 (checked below) */
static const double M0[9] = { 4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2 };
static const double H0[9] = { 1, 0.3, -0.2, 0.1, 1, 0.4, -0.3, 0.2, 1 };
static const double F0[3] = { -1, 0.5, -0.2 }, W0[3] = { 0.1, 0.3, -0.4 };
static const int Mp[4] = { 0, 3, 6, 9 }, Mj[9] = { 0, 1, 2, 0, 1, 2, 0, 1, 2 };

/* inv (3x3 row-major) of a by cofactors. */
static void inverse3(const double *a, double *inv) {
  double c[9] = { a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
                  a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
                  a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3] };
  double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
  for (int k = 0; k < 9; k++) inv[k] = c[k] / det;
}

/* lemke's answer (tol 1e-13) to the LCP condensed from (M, H, f, w). */
static void solve_global(const double *M, const double *H, const double *f, const double *w,
                         double *x) {
  double Mi[9], A[9], b[3], Y[9];
  inverse3(M, Mi);
  for (int i = 0; i < 3; i++) /* Y = M^-1 H (ndof x n) */
    for (int j = 0; j < 3; j++) {
      Y[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) Y[3 * i + j] += Mi[3 * i + k] * H[3 * k + j];
    }
  for (int r = 0; r < 3; r++) { /* A(r, c) = (H' Y)(r, c), column-major */
    b[r] = w[r];
    for (int c = 0; c < 3; c++) {
      A[3 * c + r] = 0;
      for (int k = 0; k < 3; k++) A[3 * c + r] += H[3 * k + r] * Y[3 * k + c];
    }
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++) b[r] += H[3 * k + r] * Mi[3 * k + l] * f[l];
  }
  slv_problem p = slv_problem_empty();
  p.n = 3, p.storage = SLV_DENSE, p.A = A, p.lda = 3, p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-13;
  slv_workspace *ws = NULL;
  slv_result res;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("lemke"), 3, &o, &ws), SLV_OK);
  memset(x, 0, 3 * sizeof *x);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
  slv_workspace_free(ws);
}

/* gq of <gx, x> at the base problem (slv_sensitivity_vjp), and x. */
static void base_gradient(const double *gx, double *x, double *gq) {
  double Mi[9], A[9], b[3];
  solve_global(M0, H0, F0, W0, x);
  inverse3(M0, Mi);
  for (int r = 0; r < 3; r++) {
    b[r] = W0[r];
    for (int c = 0; c < 3; c++) {
      A[3 * c + r] = 0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) A[3 * c + r] += H0[3 * k + r] * Mi[3 * k + l] * H0[3 * l + c];
    }
    for (int k = 0; k < 3; k++)
      for (int l = 0; l < 3; l++) b[r] += H0[3 * k + r] * Mi[3 * k + l] * F0[l];
  }
  slv_problem p = slv_problem_empty();
  p.n = 3, p.storage = SLV_DENSE, p.A = A, p.lda = 3, p.b = b;
  slv_sensitivity *s = NULL;
  char msg[256];
  CU_ASSERT_EQUAL_FATAL(slv_sensitivity_new(&p, x, 1e-10, &s, msg, sizeof msg), SLV_OK);
  slv_sensitivity_counts c = slv_sensitivity_count(s);
  CU_ASSERT(c.free >= 1 && c.lower >= 1); /* both modes in play */
  CU_ASSERT_EQUAL(slv_sensitivity_vjp(s, 3, gx, NULL, gq, NULL, NULL, NULL, msg, sizeof msg),
                  SLV_OK);
  slv_sensitivity_free(s);
}

static void test_fd_on_all_four(void) {
  const double gx[3] = { 0.7, -1.1, 0.4 };
  const double dM[9] = { 0.3, -0.2, 0.1, -0.2, 0.5, 0.25, 0.1, 0.25, -0.4 }; /* symmetric */
  const double dH[9] = { 0.2, -0.1, 0.3, 0.4, 0.1, -0.5, 0.2, 0.6, -0.1 };
  const double df[3] = { 0.3, -0.6, 0.2 }, dw[3] = { -0.2, 0.1, 0.5 };
  double x[3], gq[3], gM[9], gH[9], gf[3], gw[3], scratch[3 * ND + 3 * N];
  char msg[256];
  base_gradient(gx, x, gq);
  CU_ASSERT_EQUAL_FATAL(slv_sensitivity_global_vjp(ND, N, Mp, Mj, M0, Mp, Mj, H0, F0, x, gq, gM, gH,
                                                   gf, gw, scratch, msg, sizeof msg),
                        SLV_OK);
  double pred = 0, h = 1e-6, xp[3], xm[3];
  for (int k = 0; k < 9; k++) pred += gM[k] * dM[k] + gH[k] * dH[k];
  for (int k = 0; k < 3; k++) pred += gf[k] * df[k] + gw[k] * dw[k];
  double M[9], H[9], f[3], w[3];
  for (int sg = -1; sg <= 1; sg += 2) {
    for (int k = 0; k < 9; k++) M[k] = M0[k] + sg * h * dM[k], H[k] = H0[k] + sg * h * dH[k];
    for (int k = 0; k < 3; k++) f[k] = F0[k] + sg * h * df[k], w[k] = W0[k] + sg * h * dw[k];
    solve_global(M, H, f, w, sg < 0 ? xm : xp);
  }
  double fd = 0;
  for (int k = 0; k < 3; k++) fd += gx[k] * (xp[k] - xm[k]) / (2 * h);
  TST_CLOSE(pred, fd, 1e-8, 1e-6);
  CU_ASSERT(fabs(fd) > 1e-3); /* a derivative that is not zero */
}

static void test_refusals(void) {
  double x[3] = { 0.1, 0, 0.2 }, gq[3] = { 1, NAN, 0 }, scratch[3 * ND + 3 * N], gf[3];
  char msg[256] = "";
  CU_ASSERT_EQUAL(slv_sensitivity_global_vjp(ND, N, Mp, Mj, M0, Mp, Mj, H0, F0, x, gq, NULL, NULL,
                                             gf, NULL, scratch, msg, sizeof msg),
                  SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "gq[1]=nan"));
  CU_ASSERT_EQUAL(slv_sensitivity_global_vjp(ND, N, Mp, Mj, M0, Mp, Mj, H0, NULL, x, gq, NULL, NULL,
                                             gf, NULL, scratch, msg, sizeof msg),
                  SLV_ERR_INVALID);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("global sensitivities", NULL, NULL);
  CU_add_test(s, "M, H, f, w against central differences", test_fd_on_all_four);
  CU_add_test(s, "refusals", test_refusals);
  return tst_run();
}
