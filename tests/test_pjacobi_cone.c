/* test_pjacobi_cone.c -- projected Jacobi over contacts: single contacts
 * with hand-derived answers (A = I: the associated solution P_K(-b) in one
 * iteration; the Coulomb fixed point), planted multi-contact problems under
 * the associated law with box and free rows, agreement with nsgs (both
 * laws), mu = 0 against lemke on the normal rows, CSR = dense (and packed
 * columns), warm start and history, honest failures (max_iter, a step too
 * long for the spectrum: divergence reported, never convergence).
 * The planted generator (tst_cone_case_plant, tst_cone.c) and the independent residual are the same as in
 * test_nsgs.c (each test program stands alone). */
#include "slv.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const slv_solver *pjc;

static int init(void) {
  pjc = slv_solver_find("pjacobi_cone");
  return pjc ? 0 : 1;
}

static slv_status run_with(const slv_solver *s, const slv_problem *p, slv_options *o, double *x,
                           slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(s, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  return run_with(pjc, p, o, x, res);
}

/* ---- the test's own measure (independent of residual.c and cone.c) -------- */

/* The test's own convergence measure (tst_cone.c, res_scaled from its
 * definition). */
static double own_residual(const slv_problem *p, const double *x) {
  return tst_cone_problem_natres(p, x);
}

/* ---- planted multi-contact problems ---------------------------------------------- */


/* ---- single contacts -------------------------------------------------------------- */

static void test_one_contact_identity(void) {
  /* A = I, mu = 0.5: D = I and lambda_max = 1, so theta = 1 and, for the
   * associated law, x_1 = P_K(0 - (0 + b)) = P_K(-b), the QP's solution,
   * after one iteration (confirmed at iteration 1).
   * b = (-1, 2, 0): P_K((1, -2, 0)) = (1.6, -0.8, 0) (see test_nsgs.c). */
  double A[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, b[3] = { -1, 2, 0 }, cmu[1] = { 0.5 }, x[3];
  int rows[1] = { 0 };
  slv_problem p = slv_problem_empty();
  p.n = 3;
  p.A = A;
  p.lda = 3;
  p.b = b;
  p.ncones = 1;
  p.cone_rows = rows;
  p.cone_mu = cmu;
  p.cone_law = SLV_CONE_ASSOCIATED;
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(res.iterations, 1);
  double xa[3] = { 1.6, -0.8, 0 };
  TST_VEC_CLOSE(x, xa, 3, 1e-15, 0);
  /* Coulomb, same b.  The map is x <- P_K(-b - (mu |w_t|, 0, 0)) with
   * w = x + b.  Iteration 1 from x = 0 (w = b, shift 1): P_K((0, -2, 0)) =
   * (0.8, -0.4, 0).  The fixed point is the sliding solution (1, -0.5, 0)
   * (w = (0, 1.5, 0), shift 0.75, P_K((0.25, -2, 0)) = (1, -0.5, 0)). */
  p.cone_law = SLV_CONE_COULOMB;
  o.max_iter = 1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  double x1[3] = { 0.8, -0.4, 0 };
  TST_VEC_CLOSE(x, x1, 3, 1e-15, 0);
  o.max_iter = 1000;
  o.tol = 1e-13;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  double xc[3] = { 1, -0.5, 0 };
  TST_VEC_CLOSE(x, xc, 3, 1e-12, 0);
  CU_ASSERT(own_residual(&p, x) <= 1e-13);
  /* sticking (b = (-1, 0.3, 0)): x = -b in one iteration for both laws
   * (w = 0 after it, so the shift vanishes). */
  b[1] = 0.3;
  double xs[3] = { 1, -0.3, 0 };
  for (int law = 0; law < 2; law++) {
    p.cone_law = law ? SLV_CONE_ASSOCIATED : SLV_CONE_COULOMB;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    TST_VEC_CLOSE(x, xs, 3, 1e-15, 0);
  }
}

/* ---- tst_cone_case ------------------------------------------------------------------------ */

static void solve_planted(int nc, int nbox, double mu, slv_cone_law law, int sparse,
                          unsigned long seed, double omega) {
  tst_cone_case P;
  tst_cone_case_plant(&P, nc, nbox, mu, law, sparse, seed);
  slv_problem p = tst_cone_case_view(&P, law, 0);
  double *x = malloc(P.n * sizeof(double)), *xg = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 200000;
  o.omega = omega;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "planted nc=%d %s mu=%g: %s (%s)\n", nc, slv_cone_law_str(law), mu,
            slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT(own_residual(&p, x) <= 1.01e-11);
  /* lambda_min(A) >= 0.1: |x - x*| <= ~10 ||r||; 1e-8 is generous */
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-8, 0);
  /* nsgs agrees */
  CU_ASSERT_EQUAL(run_with(slv_solver_find("nsgs"), &p, &o, xg, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xg, P.n, 2e-8, 0);
  free(x);
  free(xg);
  tst_cone_case_free(&P);
}

static void test_planted_associated(void) {
  solve_planted(20, 0, 0.5, SLV_CONE_ASSOCIATED, 0, 21, 1.0);
  solve_planted(25, 0, 1.5, SLV_CONE_ASSOCIATED, 1, 22, 1.0);
}

static void test_planted_mixed_rows(void) {
  solve_planted(15, 9, 0.6, SLV_CONE_ASSOCIATED, 0, 23, 1.0);
  solve_planted(15, 9, 0.6, SLV_CONE_ASSOCIATED, 1, 24, 1.6);
}

static void test_planted_coulomb(void) {
  /* small mu: the De Saxce fixed point converges, to the planted solution */
  solve_planted(20, 0, 0.2, SLV_CONE_COULOMB, 0, 25, 1.0);
  solve_planted(20, 6, 0.3, SLV_CONE_COULOMB, 1, 26, 1.0);
}

static void test_mu_zero_is_lcp(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 12, 0, 0.0, SLV_CONE_ASSOCIATED, 0, 27);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0);
  int m = P.nc;
  double *x = malloc(P.n * sizeof(double)), *AN = malloc(m * m * sizeof(double));
  double *bN = malloc(m * sizeof(double)), *z = malloc(m * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  o.max_iter = 100000;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  for (int i = 0; i < m; i++) {
    bN[i] = P.b[P.rows[i]];
    for (int j = 0; j < m; j++) AN[i + j * m] = P.A[P.rows[i] + (size_t)P.rows[j] * P.n];
  }
  slv_problem l = slv_problem_empty();
  l.n = m;
  l.A = AN;
  l.lda = m;
  l.b = bN;
  CU_ASSERT_EQUAL(run_with(slv_solver_find("lemke"), &l, &o, z, &res), SLV_CONVERGED);
  for (int i = 0; i < m; i++) {
    TST_CLOSE(x[P.rows[i]], z[i], 1e-10, 0);
    CU_ASSERT(x[P.rows[i] + 1] == 0 && x[P.rows[i] + 2] == 0);
  }
  free(x);
  free(AN);
  free(bN);
  free(z);
  tst_cone_case_free(&P);
}

static void test_csr_matches_dense(void) {
  /* n = 96 >= 64 with a sparse A: the dense-stored A is packed by columns */
  tst_cone_case P;
  tst_cone_case_plant(&P, 30, 6, 0.5, SLV_CONE_ASSOCIATED, 1, 28);
  slv_problem d = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0),
              c = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 1);
  double *xd = malloc(P.n * sizeof(double)), *xc = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 100000;
  slv_result rd, rc;
  CU_ASSERT_EQUAL(run(&d, &o, xd, &rd), SLV_CONVERGED);
  CU_ASSERT_EQUAL(run(&c, &o, xc, &rc), SLV_CONVERGED);
  TST_VEC_CLOSE(xd, P.xs, P.n, 1e-8, 0);
  TST_VEC_CLOSE(xc, xd, P.n, 1e-10, 0);
  CU_ASSERT(abs(rd.iterations - rc.iterations) <= 1);
  free(xd);
  free(xc);
  tst_cone_case_free(&P);
}

static void test_warm_start_history(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 15, 3, 0.5, SLV_CONE_ASSOCIATED, 0, 29);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0);
  double *x = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 100000;
  o.record_history = 1;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(pjc, P.n, &o, &ws), SLV_OK);
  slv_result cold, warm;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &cold), SLV_CONVERGED);
  CU_ASSERT(cold.iterations > 3);
  CU_ASSERT_EQUAL(cold.history_len, cold.iterations);
  TST_CLOSE(cold.history[cold.history_len - 1], cold.res.res_scaled, 0, 0);
  o.warm_start = 1;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
  CU_ASSERT_EQUAL(warm.iterations, 0);
  for (int i = 0; i < P.n; i++) x[i] = P.xs[i] * (1 + 1e-6);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
  CU_ASSERT(warm.iterations < cold.iterations);
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-8, 0);
  slv_workspace_free(ws);
  free(x);
  tst_cone_case_free(&P);
}

static void test_honest_failures(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 10, 2, 0.5, SLV_CONE_ASSOCIATED, 0, 30);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0);
  double *x = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.max_iter = 2;
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT(own_residual(&p, x) > o.tol);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "pjacobi_cone"));
  /* a step of 50 / A_ii on A = G G^T + 0.1 I (lambda_max(D^-1/2 A D^-1/2)
   * well above 2/50): projected gradient diverges; the solver must say so */
  o.max_iter = 100000;
  o.damping = 50;
  slv_status st = run(&p, &o, x, &res);
  CU_ASSERT(st == SLV_NOT_FINITE);
  CU_ASSERT(res.iterations < 5000);
  free(x);
  tst_cone_case_free(&P);
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("pjacobi_cone", init, NULL);
  CU_add_test(s, "one contact, A = I: both laws", test_one_contact_identity);
  CU_add_test(s, "planted associated, agrees with nsgs", test_planted_associated);
  CU_add_test(s, "planted with free / LCP / box rows", test_planted_mixed_rows);
  CU_add_test(s, "tst_cone_case Coulomb, small mu, agrees with nsgs", test_planted_coulomb);
  CU_add_test(s, "mu = 0 equals lemke on the normal rows", test_mu_zero_is_lcp);
  CU_add_test(s, "CSR = dense (packed columns)", test_csr_matches_dense);
  CU_add_test(s, "warm start and history", test_warm_start_history);
  CU_add_test(s, "honest failures", test_honest_failures);
  return tst_run();
}
