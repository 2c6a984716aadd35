/* test_admm.c -- ADMM on the cone (admm.c): the shared cone cases
 * (tst_cone.c: hand-derived single contacts under both laws, mu = 0 against
 * the LCP, planted problems, Coulomb agreement with pcg_cone, CSR = dense,
 * warm start, history, honest failures), and ADMM's own: the sparse
 * (CHOLMOD) path above 600 rows reaches the planted solution under both
 * laws, and a converged warm start stays put; and on the symmetric Siconos
 * FC3D files of ../shared/datasets at 1e-8 (2-norm), judged by this test's
 * own residual, KaplasTower (1710 rows, the CHOLMOD path) within 40
 * iterations: the small start rho with the shift at the x-update takes 16,
 * the first version of this solver (rho = mean diagonal, shift at z) 61. */
#include "slv.h"
#include "io.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("admm"), p->n, o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* admm on p at tol 1e-10 (o set here) reaches the planted x* (what names
 * the case in a failure's line). */
static void reaches_planted(const slv_problem *p, const double *xs, const char *what,
                            slv_options *o, double *x, slv_result *res) {
  o->tol = 1e-10;
  o->max_iter = 20000;
  slv_status st = run(p, o, x, res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "admm %s: %s (%s)\n", what, slv_status_str(st), res->message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  TST_VEC_CLOSE(x, xs, p->n, 1e-7, 0);
}

/* n = 3 * 205 + 6 = 621 rows, sparse A = G G' + 0.1 I in CSR: the CHOLMOD
 * path, planted x* (A is positive definite: the solution is unique). */
static void sparse_planted(slv_cone_law law, unsigned long seed) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 205, 6, 0.4, law, 1, seed);
  slv_problem p = tst_cone_case_view(&P, law, 1);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_options o = slv_options_default();
  slv_result res;
  reaches_planted(&p, P.xs, "sparse", &o, x, &res);
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

/* A planted problem made nonsymmetric and still monotone: each stored pair
 * A(i,j), A(j,i) off the diagonal moves by +d and -d (d = +-0.3 A(i,j)),
 * which leaves x'Ax unchanged, and b moves so that w* = A x* + b stays.
 * nc = 30 (93 rows): the dense LU path; nc = 205 (621 rows, CSR): UMFPACK. */
static void skew_planted(int nc, int sparse, slv_cone_law law, unsigned long seed) {
  tst_cone_case P;
  tst_cone_case_plant(&P, nc, 3, 0.4, law, sparse, seed);
  int n = P.n;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++) {
      double *aij = P.A + i + (size_t)j * n, *aji = P.A + j + (size_t)i * n;
      if (*aij == 0) continue;
      double d = 0.3 * *aij * ((i + j) % 2 ? 1 : -1);
      *aij += d, *aji -= d;
      P.b[i] -= d * P.xs[j], P.b[j] += d * P.xs[i];
    }
  for (int i = 0; i < n; i++)
    for (int k = P.Ap[i]; k < P.Ap[i + 1]; k++) P.Ax[k] = P.A[i + (size_t)P.Aj[k] * n];
  slv_problem p = tst_cone_case_view(&P, law, sparse);
  double skew = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      skew = fmax(skew, fabs(P.A[i + (size_t)j * n] - P.A[j + (size_t)i * n]));
  CU_ASSERT(skew > 1e-3);
  double *x = malloc((size_t)n * sizeof *x);
  slv_options o = slv_options_default();
  slv_result res;
  reaches_planted(&p, P.xs, "nonsymmetric", &o, x, &res);
  CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.01e-10 * fmax(1.0, res.res.b_inf));
  free(x);
  tst_cone_case_free(&P);
}

static void test_nonsymmetric(void) {
  skew_planted(30, 0, SLV_CONE_COULOMB, 11);
  skew_planted(30, 0, SLV_CONE_ASSOCIATED, 12);
  skew_planted(205, 1, SLV_CONE_COULOMB, 13);
  skew_planted(205, 1, SLV_CONE_ASSOCIATED, 14);
}

static void test_fc3d_files(void) {
  static const struct {
    const char *file;
    int max_iter; /* iterations the solve must fit in */
  } files[] = { { "KaplasTower-i1061-4.hdf5.dat", 40 },
                { "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", 100000 },
                { "NESpheres_30_1.dat", 100000 },
                { NULL, 0 } };
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  for (int f = 0; files[f].file; f++) {
    io_instance *in = tst_cone_read_fc3d(files[f].file);
    if (!in) continue;
    slv_problem p = io_instance_problem(in);
    slv_options o = slv_options_default();
    o.tol = 1e-8;
    o.norm = SLV_NORM_2;
    o.max_iter = files[f].max_iter;
    double *x = malloc((size_t)p.n * sizeof *x);
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s: %s (%s)\n", files[f].file, slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(res.res.res_rel_2 <= 1e-8);
    CU_ASSERT(tst_cone_problem_natres2(&p, x) <= 1.01e-8); /* the 2-norm test asked */
    free(x);
    io_instance_free(in);
  }
}

static void test_row_scaling(void) { tst_cone_row_scaling("admm"); }

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("admm", NULL, NULL);
  tst_cone_add_tests(s, "admm");
  CU_add_test(s, "sparse (CHOLMOD) path: planted, both laws, warm start", test_sparse_planted);
  CU_add_test(s, "rows scaled over four decades: the diagonal metric keeps the iterations",
              test_row_scaling);
  CU_add_test(s, "nonsymmetric monotone A, planted: dense and UMFPACK LU, both laws",
              test_nonsymmetric);
  CU_add_test(s, "Siconos FC3D files at 1e-8, KaplasTower within 40 iterations", test_fc3d_files);
  return tst_run();
}
