/* test_datasets.c -- solvers on the Siconos LCP test problems in
 * the shared datasets siconos/lcp (LCPLAB_SHARED; read through io_read).
 *
 * Expectations come from Siconos' own test collections (datasets README,
 * section 4.1): where Siconos' PGS must pass, lcplab's pgs must converge to
 * res_rel <= 1e-8; where Siconos' PGS is an expected failure, lcplab's pgs
 * must not report convergence: on all of them here a zero diagonal makes pgs
 * refuse the problem up front.  Whatever the status, "converged" must agree
 * with an independent recomputation of the residual.  The table is keyed by
 * (solver, file) with a reason, never by position.  Skips when the datasets are
 * absent.
 */
#include "slv.h"
#include "io.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { PASS, REFUSED } expect;

typedef struct {
  const char *solver, *file;
  expect e;
  const char *reason;
} expectation;

static const expectation table[] = {
  { "pgs", "lcp_mmc.dat", PASS, "Siconos PGS: P (collection 1)" },
  { "pgs", "lcp_deudeu.dat", PASS, "Siconos: all 15 solvers P" },
  { "pgs", "lcp_trivial.dat", PASS, "Siconos: all 15 solvers P" },
  { "pgs", "lcp_ortiz.dat", PASS, "Siconos PGS: P" },
  { "pgs", "lcp_exp_murty.dat", PASS, "Siconos PGS: P (Murty, q = -1)" },
  { "pgs", "lcp_exp_murty2.dat", PASS, "Siconos PGS: P" },
  { "pgs", "lcp_CPS_1.dat", PASS, "Siconos PGS: P (solution set z1 + z2 = 1)" },
  { "pgs", "lcp_CPS_5.dat", PASS, "Siconos PGS: P" },
  { "pgs", "lcp_deudeu_block.dat", PASS, "SBM twin of lcp_deudeu" },
  { "pgs", "lcp_trivial_block.dat", PASS, "SBM twin of lcp_trivial" },
  { "pgs", "lcp_ortiz_block.dat", PASS, "SBM twin of lcp_ortiz" },
  /* Siconos' PGS divides by M(i,i) = 0 on these and is an expected failure;
     * lcplab's pgs refuses them up front (SLV_ERR_UNSUPPORTED, "needs A(i,i) > 0") */
  { "pgs", "lcp_enum_fails.dat", REFUSED, "Siconos PGS: F (will_fail); zero diagonal" },
  { "pgs", "lcp_CPS_2.dat", REFUSED, "Siconos PGS: F; zero diagonal" },
  { "pgs", "lcp_CPS_3.dat", REFUSED, "Siconos PGS: F (bimatrix game); zero diagonal" },
  { "pgs", "lcp_CPS_4.dat", REFUSED, "Siconos PGS: F; zero diagonal" },
  { "pgs", "lcp_CPS_4bis.dat", REFUSED, "Siconos PGS: F; zero diagonal" },
  { "pgs", "lcp_Pang_isolated_sol.dat", REFUSED, "not in Siconos' PGS collections; zero diagonal" },
  { "pgs", "lcp_Pang_isolated_sol_perturbed.dat", REFUSED,
    "not in Siconos' PGS collections; zero diagonal" },
  { "pgs", "lcp_inf_sol_perturbed.dat", REFUSED, "not in Siconos' PGS collections; zero diagonal" },
  { "pgs", "lcp_tobenna.dat", REFUSED, "Siconos: only PATH/GAMS expected to pass; zero diagonal" },
};

static void run_one(const expectation *e, const char *dir) {
  char path[4096], err[512];
  if (snprintf(path, sizeof path, "%s/%s", dir, e->file) >= (int)sizeof path) {
    CU_FAIL("the dataset's path is too long");
    return;
  }
  io_instance *inst = NULL;
  slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st != SLV_CONVERGED) fprintf(stderr, "%s\n", err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  slv_problem p = io_instance_problem(inst);
  const slv_solver *sv = slv_solver_find(e->solver);
  slv_options o = slv_options_default();
  o.tol = 1e-8;
  o.max_iter = 20000;
  double *x = calloc((size_t)p.n, sizeof *x);
  slv_result res;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, p.n, &o, &ws), SLV_OK);
  st = slv_solve(ws, &p, &o, x, NULL, &res);
  printf("\n    %-8s %-38s n=%-3d %-12s it=%-6d res_rel=%.2e  (%s)", e->solver, e->file, p.n,
         slv_status_str(st), res.iterations, res.res.res_rel, e->reason);
  if (e->e == PASS) CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  if (e->e == REFUSED) {
    CU_ASSERT_EQUAL(st, SLV_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "A(i,i) > 0"));
  }
  /* honesty, independent of the library: converged <=> our own residual
   * recomputation meets tol (dense A, no findex in these files) */
  if (st >= 0 && p.storage == SLV_DENSE) {
    double r = tst_scaled_dense(p.n, p.A, p.b, p.lo, p.hi, x);
    if (st == SLV_CONVERGED) CU_ASSERT(r <= o.tol * 1.000001);
    if (st > 0) CU_ASSERT(!(r <= o.tol * 0.999999) || st == SLV_STAGNATED);
  }
  if (st < 0) CU_ASSERT_EQUAL(st, SLV_ERR_UNSUPPORTED); /* e.g. a zero diagonal */
  slv_workspace_free(ws);
  io_instance_free(inst);
  free(x);
}

static void test_siconos_lcp(void) {
  char dir[4096];
  if (!tst_shared_path("datasets/siconos/lcp", dir, sizeof dir)) {
    printf("\n    SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
    return;
  }
  for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) run_one(&table[k], dir);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("siconos datasets", NULL, NULL);
  CU_add_test(s, "pgs on the Siconos LCP collection", test_siconos_lcp);
  return tst_run();
}
