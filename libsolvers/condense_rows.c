/* condense_rows.c -- a problem's rows outside a kept set eliminated at an
 * answer (slv_condense_rows, slv.h; docs/problem.md, "Rows condensed at an
 * answer"): the contact problem of a robot's step with its joint rows
 * condensed, which formats and peers that know only contacts take
 * (docs/models.md, "Joint rows condensed").
 *
 * With K the kept rows and x the step's answer, each other row is
 *   E  eliminated: lo_i < x_i < hi_i (every equality row; a limit that
 *      pushes, a motor below its force): w_i = 0 holds at the answer, and
 *      x_E is solved for from the other rows' x;
 *   B  at a bound: x_i = lo_i or hi_i, kept there (a limit that does not
 *      push, a motor at its force): its column moves into b.
 * Then, from w_E = A_EK x_K + A_EE x_E + A_EB x_B + b_E = 0,
 *   A' = A_KK - A_KE A_EE^-1 A_EK,
 *   b' = b_K + A_KB x_B - A_KE A_EE^-1 (b_E + A_EB x_B),
 * the Schur complement of A_EE (dense LU: linsys.h), exact for every x_K
 * as long as the split into E and B stays the one of the answer.  A is
 * read dense or CSR (a factored A: its CSR, slv_factored_csr_new).
 */
#include "slv_internal.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* p's A as a dense n x n column-major array (NULL when out of memory or
 * when p's storage is not read here). */
static double *dense_alloc(const slv_problem *p) {
  int n = p->n;
  double *D = calloc((size_t)n * (size_t)n + 1, sizeof *D);
  if (!D) return NULL;
  if (p->storage == SLV_DENSE) {
    for (int j = 0; j < n; j++) memcpy(D + (size_t)j * n, p->A + (size_t)j * p->lda, n * sizeof *D);
    return D;
  }
  const int *Ap = p->Ap, *Aj = p->Aj;
  const double *Ax = p->Ax;
  int *fp = NULL, *fj = NULL;
  double *fx = NULL;
  if (p->storage == SLV_FACTORED) {
    if (slv_factored_csr_new(p, &fp, &fj, &fx, NULL, 0) != SLV_OK) {
      free(D);
      return NULL;
    }
    Ap = fp, Aj = fj, Ax = fx;
  }
  for (int i = 0; i < n; i++)
    for (int k = Ap[i]; k < Ap[i + 1]; k++) D[(size_t)Aj[k] * n + i] += Ax[k];
  free(fp);
  free(fj);
  free(fx);
  return D;
}

void slv_rows_classify(int n, const double *lo, const double *hi, const double *x,
                       const unsigned char *keep, char *cls, int *nk, int *ne) {
  *nk = *ne = 0;
  for (int i = 0; i < n; i++) {
    if (keep[i])
      cls[i] = 'K', (*nk)++;
    else if (x[i] > lo[i] && x[i] < hi[i])
      cls[i] = 'E', (*ne)++;
    else
      cls[i] = 'B';
  }
}

/* The rows of class c, in order, into idx; their number. */
static int rows_of(const char *cls, int n, char c, int *idx) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (cls[i] == c) idx[m++] = i;
  return m;
}

/* c = b + A_.B x_B over all rows (the bound rows' columns moved into b). */
static void bound_rhs(const double *D, const slv_problem *p, const double *x, const char *cls,
                      double *c) {
  int n = p->n;
  memcpy(c, p->b, (size_t)n * sizeof *c);
  for (int j = 0; j < n; j++)
    if (cls[j] == 'B' && x[j] != 0.0)
      for (int i = 0; i < n; i++) c[i] += D[(size_t)j * n + i] * x[j];
}

/* X = A_EE^-1 [A_EK  c_E] (ne x (nk + 1), ld ne); 0, or -1 with the
 * message when A_EE is singular or memory runs out. */
static int solve_eliminated(const double *D, int n, const int *E, int ne, const int *K, int nk,
                            const double *c, double *X, char *err, size_t len) {
  slv_linsys *ls = NULL;
  if (slv_linsys_dense_reserve(&ls, ne) != SLV_LS_OK) {
    snprintf(err, len, "out of memory for the %d eliminated rows", ne);
    return -1;
  }
  double *F = slv_linsys_dense_values(ls, ne);
  for (int b = 0; b < ne; b++)
    for (int a = 0; a < ne; a++) F[(size_t)b * ne + a] = D[(size_t)E[b] * n + E[a]];
  for (int b = 0; b < nk; b++)
    for (int a = 0; a < ne; a++) X[(size_t)b * ne + a] = D[(size_t)K[b] * n + E[a]];
  for (int a = 0; a < ne; a++) X[(size_t)nk * ne + a] = c[E[a]];
  int rc = 0;
  if (slv_linsys_factor_dense(ls, SLV_LS_GENERAL, 0.0) != SLV_LS_OK) {
    snprintf(err, len,
             "the %d eliminated rows are singular at this answer (rows that fix the same "
             "motion twice)",
             ne);
    rc = -1;
  } else if (slv_linsys_solve_many(ls, nk + 1, X, ne) != SLV_LS_OK) {
    snprintf(err, len, "the solve of the %d eliminated rows failed", ne);
    rc = -1;
  }
  slv_linsys_free(ls);
  return rc;
}

/* The arrays of one condensation, all allocated by cr_alloc. */
typedef struct cr_work {
  char *cls;     /* n: the rows' classes */
  int *idx;      /* n: K's rows, then E's */
  double *c, *D; /* n: b with B's columns moved in; n x n: A dense */
  double *X;     /* ne x (nk + 1): A_EE^-1 [A_EK c_E] */
  double *AKE;   /* nk x ne */
  int nk, ne;
} cr_work;

static void cr_free(cr_work *w) {
  free(w->cls), free(w->idx), free(w->c), free(w->D), free(w->X), free(w->AKE);
}

/* w for p at x: the rows classified, every array allocated.  0, or -1
 * (out of memory; w freed). */
static int cr_alloc(const slv_problem *p, const double *x, const unsigned char *keep, cr_work *w) {
  size_t n = (size_t)p->n;
  memset(w, 0, sizeof *w);
  w->cls = malloc(n + 1);
  w->idx = malloc((n + 1) * sizeof *w->idx);
  w->c = malloc((n + 1) * sizeof *w->c);
  w->D = w->cls && w->idx && w->c ? dense_alloc(p) : NULL;
  if (w->D) {
    slv_rows_classify(p->n, p->lo, p->hi, x, keep, w->cls, &w->nk, &w->ne);
    size_t nk = (size_t)w->nk, ne = (size_t)w->ne;
    w->X = malloc((ne * (nk + 1) + 1) * sizeof *w->X);
    w->AKE = malloc((nk * ne + 1) * sizeof *w->AKE);
  }
  if (!w->D || !w->X || !w->AKE) {
    cr_free(w);
    return -1;
  }
  return 0;
}

slv_status slv_condense_rows(const slv_problem *p, const double *x, const unsigned char *keep,
                             double *Ak, double *bk, int *neliminated, char *err, size_t len) {
  char dummy[8];
  if (!err) err = dummy, len = sizeof dummy;
  if (!p || !x || !keep || !Ak || !bk || p->n < 0 || !p->b || !p->lo || !p->hi ||
      (p->storage == SLV_DENSE && (!p->A || p->lda < p->n))) {
    snprintf(err, len, "slv_condense_rows: a NULL argument or a bad size");
    return SLV_ERR_INVALID;
  }
  cr_work w;
  if (cr_alloc(p, x, keep, &w) != 0) {
    snprintf(err, len, "slv_condense_rows: out of memory for a dense A of %d rows", p->n);
    return SLV_ERR_NOMEM;
  }
  int n = p->n, nk = w.nk, ne = w.ne;
  const double *D = w.D;
  int *K = w.idx, *E = w.idx + nk;
  rows_of(w.cls, n, 'K', K);
  rows_of(w.cls, n, 'E', E);
  bound_rhs(D, p, x, w.cls, w.c);
  for (int b = 0; b < nk; b++) {
    for (int a = 0; a < nk; a++) Ak[(size_t)b * nk + a] = D[(size_t)K[b] * n + K[a]];
    bk[b] = w.c[K[b]];
  }
  slv_status st = SLV_OK;
  if (ne > 0 && solve_eliminated(D, n, E, ne, K, nk, w.c, w.X, err, len) != 0) {
    st = SLV_ERR_UNSUPPORTED;
  } else if (ne > 0 && nk > 0) {
    for (int b = 0; b < ne; b++)
      for (int a = 0; a < nk; a++) w.AKE[(size_t)b * nk + a] = D[(size_t)E[b] * n + K[a]];
    /* [A' b'] -= A_KE X */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nk, nk, ne, -1.0, w.AKE, nk, w.X, ne,
                1.0, Ak, nk);
    cblas_dgemv(CblasColMajor, CblasNoTrans, nk, ne, -1.0, w.AKE, nk, w.X + (size_t)nk * ne, 1, 1.0,
                bk, 1);
  }
  if (neliminated) *neliminated = ne;
  cr_free(&w);
  return st;
}
