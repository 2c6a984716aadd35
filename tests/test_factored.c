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
 *   - solvers without SLV_CAP_FACTORED refuse the storage.
 */
#include <CUnit/CUnit.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slv.h"
#include "tst_util.h"

typedef struct {
  int n, nblk;
  int *fblk;
  double *fJ, *fK, *fd, *fwork, *b, *lo, *hi, *mu;
  int *findex;
  double *A; /* dense reference, column-major */
  slv_problem p;
} fprob;

static void fprob_free(fprob *f) {
  free(f->fblk);
  free(f->fJ);
  free(f->fK);
  free(f->fd);
  free(f->fwork);
  free(f->b);
  free(f->lo);
  free(f->hi);
  free(f->mu);
  free(f->findex);
  free(f->A);
}

/* A random contact-like problem: ncon groups of 3 rows (normal, two
 * friction rows findex'ed to it) on random block pairs (a slot is -1 with
 * probability 1/4, as for a static body), W_beta = B B^T / 6 + 0.5 I. */
static void fprob_make(fprob *f, int ncon, int nblk, unsigned long seed) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  int n = 3 * ncon, m = 6 * nblk;
  memset(f, 0, sizeof *f);
  f->n = n;
  f->nblk = nblk;
  f->fblk = malloc(2 * (size_t)n * sizeof(int));
  f->fJ = calloc(12 * (size_t)n, sizeof(double));
  f->fK = calloc(12 * (size_t)n, sizeof(double));
  f->fd = malloc((size_t)n * sizeof(double));
  f->fwork = malloc((size_t)m * sizeof(double));
  f->b = malloc((size_t)n * sizeof(double));
  f->lo = malloc((size_t)n * sizeof(double));
  f->hi = malloc((size_t)n * sizeof(double));
  f->mu = calloc((size_t)n, sizeof(double));
  f->findex = malloc((size_t)n * sizeof(int));
  f->A = calloc((size_t)n * n, sizeof(double));
  double *W = malloc(36 * (size_t)nblk * sizeof(double));
  for (int bb = 0; bb < nblk; bb++) {
    double B[36];
    for (int k = 0; k < 36; k++) B[k] = gsl_rng_uniform(r) - 0.5;
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
        double s = i == j ? 0.5 : 0.0;
        for (int k = 0; k < 6; k++) s += B[i * 6 + k] * B[j * 6 + k] / 6.0;
        W[36 * bb + i * 6 + j] = s;
      }
  }
  for (int c = 0; c < ncon; c++) {
    int b0 = (int)gsl_rng_uniform_int(r, (unsigned long)nblk), b1;
    do b1 = (int)gsl_rng_uniform_int(r, (unsigned long)nblk); while (b1 == b0);
    if (gsl_rng_uniform(r) < 0.25) b1 = -1;
    for (int q = 0; q < 3; q++) {
      int i = 3 * c + q;
      f->fblk[2 * i] = b0;
      f->fblk[2 * i + 1] = b1;
      for (int k = 0; k < 2; k++) {
        int bb = f->fblk[2 * i + k];
        if (bb < 0) continue;
        double *J = f->fJ + 12 * i + 6 * k, *K = f->fK + 12 * i + 6 * k;
        for (int e = 0; e < 6; e++) J[e] = gsl_rng_uniform(r) - 0.5;
        for (int e = 0; e < 6; e++) {
          K[e] = 0;
          for (int g = 0; g < 6; g++) K[e] += W[36 * bb + e * 6 + g] * J[g];
        }
      }
      f->fd[i] = 1e-3 * gsl_rng_uniform(r);
      f->b[i] = 2.0 * gsl_rng_uniform(r) - 1.0;
      f->lo[i] = q == 0 ? 0.0 : -INFINITY;
      f->hi[i] = INFINITY;
      f->findex[i] = q == 0 ? -1 : 3 * c;
      f->mu[i] = q == 0 ? 0.0 : 0.5;
    }
  }
  /* the reference A: dense J and K over all 6 nblk columns, A = J K^T + D */
  double *Jd = calloc((size_t)n * m, sizeof(double)), *Kd = calloc((size_t)n * m, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      int bb = f->fblk[2 * i + k];
      if (bb < 0) continue;
      for (int e = 0; e < 6; e++) {
        Jd[(size_t)i * m + 6 * bb + e] = f->fJ[12 * i + 6 * k + e];
        Kd[(size_t)i * m + 6 * bb + e] = f->fK[12 * i + 6 * k + e];
      }
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = i == j ? f->fd[i] : 0.0;
      for (int c = 0; c < m; c++) s += Jd[(size_t)i * m + c] * Kd[(size_t)j * m + c];
      f->A[i + (size_t)j * n] = s;
    }
  free(Jd);
  free(Kd);
  free(W);
  gsl_rng_free(r);

  slv_problem p = slv_problem_empty();
  p.n = n;
  p.storage = SLV_FACTORED;
  p.nblk = nblk;
  p.fblk = f->fblk;
  p.fJ = f->fJ;
  p.fK = f->fK;
  p.fd = f->fd;
  p.fwork = f->fwork;
  p.b = f->b;
  p.lo = f->lo;
  p.hi = f->hi;
  p.findex = f->findex;
  p.mu = f->mu;
  f->p = p;
}

static slv_problem dense_of(const fprob *f) {
  slv_problem q = f->p;
  q.storage = SLV_DENSE;
  q.A = f->A;
  q.lda = f->n;
  return q;
}

static void test_products(void) {
  fprob f;
  fprob_make(&f, 40, 12, 11);
  char msg[200];
  CU_ASSERT_EQUAL(slv_problem_validate(&f.p, msg, sizeof msg), SLV_CONVERGED);
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
  slv_problem d = dense_of(&f);
  slv_residuals ra = slv_residual(&f.p, x, NULL), rb = slv_residual(&d, x, wref);
  TST_CLOSE(ra.res_nat_inf, rb.res_nat_inf, 1e-13, 1e-12);
  TST_CLOSE(ra.compl, rb.compl, 1e-12, 1e-12);

  /* explicit CSR: every entry of A, diagonal always stored, sorted columns */
  int *Ap, *Aj;
  double *Ax;
  CU_ASSERT_EQUAL_FATAL(slv_factored_csr_new(&f.p, &Ap, &Aj, &Ax, msg, sizeof msg), SLV_CONVERGED);
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
  char msg[200];
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
  q.fwork = NULL;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "fwork"));
  q.fwork = f.fwork;
  q.nblk = -1;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "nblk"));
  q.nblk = f.nblk;
  CU_ASSERT_EQUAL(slv_problem_validate(&q, msg, sizeof msg), SLV_CONVERGED);
  /* a dense problem is not expanded */
  slv_problem d = dense_of(&f);
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
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(s, n, &opt, &ws), SLV_CONVERGED);
  double *xf = calloc((size_t)n, sizeof(double)), *xd = calloc((size_t)n, sizeof(double));
  slv_result rf, rd;
  slv_problem d = dense_of(&f);
  CU_ASSERT_EQUAL(slv_solve(ws, &f.p, &opt, xf, NULL, &rf), SLV_CONVERGED);
  CU_ASSERT_EQUAL(slv_solve(ws, &d, &opt, xd, NULL, &rd), SLV_CONVERGED);
  CU_ASSERT(rf.iterations > 5);
  CU_ASSERT(abs(rf.iterations - rd.iterations) <= 1);
  TST_VEC_CLOSE(xf, xd, n, 1e-8, 0);
  /* the test's own residual of the factored answer, with findex bounds */
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double wi = f.b[i];
    for (int j = 0; j < n; j++) wi += f.A[i + (size_t)j * n] * xf[j];
    double lo = f.lo[i], hi = f.hi[i];
    if (f.findex[i] >= 0) {
      hi = f.mu[i] * fabs(xf[f.findex[i]]);
      lo = -hi;
    }
    double rr = fmax(xf[i] - hi, fmin(wi, xf[i] - lo));
    worst = fmax(worst, fabs(rr));
  }
  CU_ASSERT(worst <= 1e-10); /* ||b||_inf <= 1: relative = absolute */
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

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("factored storage", NULL, NULL);
  CU_add_test(s, "products, residual and CSR expansion against a dense A", test_products);
  CU_add_test(s, "validation rules", test_validate);
  CU_add_test(s, "pgs: factored and dense take the same sweeps", test_pgs_agrees);
  CU_add_test(s, "solvers without the capability refuse it", test_refusals);
  return tst_run();
}
