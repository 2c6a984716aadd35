/* test_factored.c -- the factored (matrix-free) storage of slv.h,
 * A = J K^T + diag(d) with two 6-column blocks per row, and pgs on it.
 *
 * The reference is the test's own dense A, formed here from dense copies of
 * J (n x 6 nblk) and K = J W (W block diagonal, each block a random SPD 6 x 6
 * matrix, as M^-1 is for a body) by a triple loop that shares no code with
 * the library:
 *   - slv_problem_w, slv_diag and slv_residual (w = NULL) against A x + b;
 *   - slv_factored_csr_new entry by entry against A (structure included:
 *     every diagonal present, columns sorted);
 *   - pgs on the factored problem against pgs on the dense A: the same
 *     Gauss-Seidel steps in the same order, so the same sweep count and the
 *     same x up to rounding, and both meet the tolerance by the test's own
 *     residual;
 *   - validation: each rule refused with a message naming it;
 *   - solvers without SLV_CAP_FACTORED refuse the storage;
 *   - many blocks and rows (more than slv_problem_w and slv_residual keep
 *     on the stack at once): the products against A x + b, the residual
 *     without w equal to the one with it, cones never split across slices;
 *   - block ids past what the workspace's t holds (renumbered by the
 *     operator): pgs and pgs_wide give the iterates of the same problem
 *     with compact ids, bit for bit.
 */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slv.h"
#include "tst_fprob.h"
#include "tst_util.h"

static void test_products(void) {
  fprob f;
  fprob_make(&f, 40, 12, 11);
  char msg[200];
  CU_ASSERT_EQUAL(slv_problem_validate(&f.p, msg, sizeof msg), SLV_OK);
  int n = f.n;
  double *x = malloc((size_t)n * sizeof(double)), *w = malloc((size_t)n * sizeof(double)),
         *wref = malloc((size_t)n * sizeof(double));
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 5);
  for (int i = 0; i < n; i++) x[i] = gsl_rng_uniform(r) - 0.3;
  for (int i = 0; i < n; i++) {
    wref[i] = f.b[i];
    for (int j = 0; j < n; j++) wref[i] += f.A[i + (size_t)j * n] * x[j];
  }
  slv_problem_w(&f.p, x, w);
  TST_VEC_CLOSE(w, wref, n, 1e-13, 1e-12);
  /* the residual with w = NULL equals the one from the reference w */
  slv_problem d = fprob_dense(&f);
  slv_residuals ra = slv_residual(&f.p, x, NULL), rb = slv_residual(&d, x, wref);
  TST_CLOSE(ra.res_nat_inf, rb.res_nat_inf, 1e-13, 1e-12);
  TST_CLOSE(ra.compl, rb.compl, 1e-12, 1e-12);

  /* explicit CSR: every entry of A, diagonal always stored, sorted columns */
  int *Ap, *Aj;
  double *Ax;
  CU_ASSERT_EQUAL_FATAL(slv_factored_csr_new(&f.p, &Ap, &Aj, &Ax, msg, sizeof msg), SLV_OK);
  double *Ad = calloc((size_t)n * n, sizeof(double));
  int sorted = 1, diag = 1;
  for (int i = 0; i < n; i++) {
    int has = 0;
    for (int k = Ap[i]; k < Ap[i + 1]; k++) {
      Ad[i + (size_t)Aj[k] * n] += Ax[k];
      has |= Aj[k] == i;
      if (k > Ap[i] && Aj[k] <= Aj[k - 1]) sorted = 0;
    }
    diag &= has;
  }
  CU_ASSERT(sorted);
  CU_ASSERT(diag);
  TST_VEC_CLOSE(Ad, f.A, n * n, 1e-14, 1e-12);
  /* a CSR problem built from it gives the same product */
  slv_problem c = f.p;
  c.storage = SLV_CSR;
  c.Ap = Ap;
  c.Aj = Aj;
  c.Ax = Ax;
  slv_problem_w(&c, x, w);
  TST_VEC_CLOSE(w, wref, n, 1e-13, 1e-12);
  free(Ap);
  free(Aj);
  free(Ax);
  free(Ad);
  free(x);
  free(w);
  free(wref);
  gsl_rng_free(r);
  fprob_free(&f);
}

static void test_validate(void) {
  fprob f;
  fprob_make(&f, 4, 3, 3);
  char msg[200], buf[32];
  slv_problem q = f.p;
  int save = f.fblk[5];
  f.fblk[5] = 3; /* row 2, slot 1: outside [-1, 3) */
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "fblk[5]"));
  f.fblk[5] = f.fblk[4]; /* both slots on one block */
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "row 2"));
  f.fblk[5] = save;
  f.fK[13] = NAN;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "row 1"));
  f.fK[13] = 0.0;
  /* the last entry of the last row (the tail of the whole-array pass), and fd */
  int last = f.p.n - 1;
  double save_j = f.fJ[12 * last + 11], save_d = f.fd[last];
  f.fJ[12 * last + 11] = INFINITY;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  snprintf(buf, sizeof buf, "row %d:", last);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, buf));
  f.fJ[12 * last + 11] = save_j;
  f.fd[last] = NAN;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, buf));
  f.fd[last] = save_d;
  q.nblk = -1;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nblk"));
  q.nblk = f.nblk;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_OK);
  /* a dense problem is not expanded */
  slv_problem d = fprob_dense(&f);
  int *Ap, *Aj;
  double *Ax;
  CU_ASSERT_EQUAL(slv_factored_csr_new(&d, &Ap, &Aj, &Ax, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NULL(Ap);
  fprob_free(&f);
}

/* pgs on factored and on dense storage: the same sweeps. */
static void test_pgs_agrees(void) {
  fprob f;
  fprob_make(&f, 60, 20, 17);
  int n = f.n;
  const slv_solver *s = slv_solver_find("pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT(s->caps & SLV_CAP_FACTORED);
  slv_options opt = slv_options_default();
  opt.tol = 1e-10;
  opt.max_iter = 20000;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(s, n, &opt, &ws), SLV_OK);
  double *xf = calloc((size_t)n, sizeof(double)), *xd = calloc((size_t)n, sizeof(double));
  slv_result rf, rd;
  slv_problem d = fprob_dense(&f);
  CU_ASSERT_EQUAL(slv_solve(ws, &f.p, &opt, xf, NULL, &rf), SLV_CONVERGED);
  CU_ASSERT_EQUAL(slv_solve(ws, &d, &opt, xd, NULL, &rd), SLV_CONVERGED);
  CU_ASSERT(rf.iterations > 5);
  CU_ASSERT(abs(rf.iterations - rd.iterations) <= 1);
  TST_VEC_CLOSE(xf, xd, n, 1e-8, 0);
  /* the test's own residual of the factored answer, with findex bounds */
  CU_ASSERT(fprob_residual(&f, xf) <= 1e-10); /* ||b||_inf <= 1: relative = absolute */
  /* a warm start at the answer converges at once */
  opt.warm_start = 1;
  CU_ASSERT_EQUAL(slv_solve(ws, &f.p, &opt, xf, NULL, &rf), SLV_CONVERGED);
  CU_ASSERT(rf.iterations <= 1);
  slv_workspace_free(ws);
  free(xf);
  free(xd);
  fprob_free(&f);
}

/* Solvers that need an explicit A refuse the storage with a message. */
static void test_refusals(void) {
  fprob f;
  fprob_make(&f, 3, 4, 23);
  char msg[200];
  int accepting = 0;
  for (int k = 0; k < slv_solver_count(); k++) {
    const slv_solver *s = slv_solver_at(k);
    slv_status st = slv_solver_accepts(s, &f.p, msg, sizeof msg);
    if (s->caps & SLV_CAP_FACTORED) {
      accepting++;
      continue;
    }
    CU_ASSERT_EQUAL(st, SLV_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "factored"));
  }
  CU_ASSERT(accepting >= 1);
  fprob_free(&f);
}

/* 300 contacts (900 rows) on 400 blocks: slv_problem_w forms K^T x 128
 * blocks at a time, slv_residual without w 512 rows and 256 blocks at a
 * time.  The residual's slices never split a cone (512 is not a multiple
 * of 3): the same problem read as 300 cones must give the measures of its
 * own w. */
static void test_slices(void) {
  fprob f;
  fprob_make(&f, 300, 400, 17);
  int n = f.n;
  double *x = malloc((size_t)n * sizeof(double)), *w = malloc((size_t)n * sizeof(double)),
         *wref = malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) x[i] = f.findex[i] < 0 ? 0.05 * (i % 11) : 0.01 * (i % 7 - 3);
  for (int i = 0; i < n; i++) {
    wref[i] = f.b[i];
    for (int j = 0; j < n; j++) wref[i] += f.A[i + (size_t)j * n] * x[j];
  }
  slv_problem_w(&f.p, x, w);
  TST_VEC_CLOSE(w, wref, n, 1e-13, 1e-12);
  /* the caller's scratch for all 400 blocks: one pass, the same bits */
  double *t = malloc(6 * 400 * sizeof(double)), *wt = malloc((size_t)n * sizeof(double));
  slv_problem_w_t(&f.p, x, wt, t, 400);
  CU_ASSERT(memcmp(w, wt, (size_t)n * sizeof(double)) == 0);
  free(t);
  free(wt);
  slv_residuals ra = slv_residual(&f.p, x, NULL), rb = slv_residual(&f.p, x, w);
  CU_ASSERT(ra.res_nat_inf > 0);
  CU_ASSERT(ra.res_nat_inf == rb.res_nat_inf && ra.compl == rb.compl &&ra.infeas == rb.infeas);
  /* as cones (Coulomb, mu 0.5), rows 3k..3k+2 */
  slv_problem q = f.p;
  int *rows = malloc((size_t)(n / 3) * sizeof(int));
  double *mu = malloc((size_t)(n / 3) * sizeof(double));
  for (int k = 0; k < n / 3; k++) rows[k] = 3 * k, mu[k] = 0.5;
  q.findex = NULL;
  q.ncones = n / 3;
  q.cone_rows = rows;
  q.cone_mu = mu;
  CU_ASSERT_EQUAL_FATAL(slv_problem_validate(&q, NULL, 0), SLV_OK);
  ra = slv_residual(&q, x, NULL);
  rb = slv_residual(&q, x, w);
  CU_ASSERT(ra.res_nat_inf > 0);
  CU_ASSERT(ra.res_nat_inf == rb.res_nat_inf && ra.compl == rb.compl );
  CU_ASSERT(ra.merit_fclib == rb.merit_fclib && ra.res_rel_2 == rb.res_rel_2);
  slv_residuals rr = slv_residual(&q, x, wref);
  TST_CLOSE(ra.merit_fclib, rr.merit_fclib, 1e-13, 1e-12);
  free(rows);
  free(mu);
  free(x);
  free(w);
  free(wref);
  fprob_free(&f);
}

/* sweeps of solver `name` on p (tol unreachable) from zero, into x. */
static void sweeps(const slv_problem *p, const char *name, int k, double *x) {
  slv_options o = slv_options_default();
  o.tol = 1e-300;
  o.max_iter = k;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(name), p->n, &o, &ws), SLV_OK);
  memset(x, 0, (size_t)p->n * sizeof *x);
  CU_ASSERT_EQUAL(slv_solve(ws, p, &o, x, NULL, NULL), SLV_MAX_ITER);
  slv_workspace_free(ws);
}

/* The same problem with its block ids spread over 7 nblk > 2 n_max (the
 * operator renumbers them): the same iterates, bit for bit, for pgs,
 * pgs_wide and pgs_color (full and rigid-body form), past the
 * recomputations of K^T x. */
static void test_renumbered_blocks(void) {
  for (int rigid = 0; rigid < 2; rigid++) {
    fprob f;
    (rigid ? fprob_make_rigid : fprob_make)(&f, 100, 90, 23);
    int n = f.n, *fb = malloc(2 * (size_t)n * sizeof(int));
    for (int s = 0; s < 2 * n; s++) fb[s] = f.fblk[s] < 0 ? -1 : 7 * f.fblk[s] + 3;
    slv_problem q = f.p;
    q.nblk = 7 * f.nblk;
    q.fblk = fb;
    CU_ASSERT(q.nblk > 2 * n);
    double *xa = malloc((size_t)n * sizeof(double)), *xb = malloc((size_t)n * sizeof(double));
    const char *names[] = { "pgs", "pgs_wide", "pgs_color" };
    for (int k = 0; k < 3; k++) {
      sweeps(&f.p, names[k], 45, xa);
      sweeps(&q, names[k], 45, xb);
      CU_ASSERT(memcmp(xa, xb, (size_t)n * sizeof(double)) == 0);
    }
    free(xa);
    free(xb);
    free(fb);
    fprob_free(&f);
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("factored storage", NULL, NULL);
  CU_add_test(s, "products, residual and CSR expansion against a dense A", test_products);
  CU_add_test(s, "validation rules", test_validate);
  CU_add_test(s, "pgs: factored and dense take the same sweeps", test_pgs_agrees);
  CU_add_test(s, "solvers without the capability refuse it", test_refusals);
  CU_add_test(s, "many blocks and rows: the stack slices", test_slices);
  CU_add_test(s, "block ids beyond the workspace: renumbered, same iterates",
              test_renumbered_blocks);
  return tst_run();
}
