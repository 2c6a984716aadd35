/* test_admm.c -- ADMM on the cone (admm.c): the shared cone cases
 * (tst_cone.c: hand-derived single contacts under both laws, mu = 0 against
 * the LCP, planted problems, Coulomb agreement with pcg_cone, CSR = dense,
 * warm start, history, honest failures), and ADMM's own: the sparse
 * (CHOLMOD) path above 600 rows reaches the planted solution under both
 * laws, and a converged warm start stays put. */
#include "slv.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("admm"), p->n, o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* n = 3 * 205 + 6 = 621 rows, sparse A = G G' + 0.1 I in CSR: the CHOLMOD
 * path, planted x* (A is positive definite: the solution is unique). */
static void sparse_planted(slv_cone_law law, unsigned long seed) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 205, 6, 0.4, law, 1, seed);
  slv_problem p = tst_cone_case_view(&P, law, 1);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 20000;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "admm sparse: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  /* warm start from the answer: converged at once */
  o.warm_start = 1;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(res.iterations <= 2);
  free(x);
  tst_cone_case_free(&P);
}

static void test_sparse_planted(void) {
  sparse_planted(SLV_CONE_ASSOCIATED, 5);
  sparse_planted(SLV_CONE_COULOMB, 6);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("admm", NULL, NULL);
  tst_cone_add_tests(s, "admm");
  CU_add_test(s, "sparse (CHOLMOD) path: planted, both laws, warm start", test_sparse_planted);
  return tst_run();
}
