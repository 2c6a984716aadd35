/* condition.c -- an estimate of the 1-norm condition number of A
 * (docs/solver-machinery.md, "Linear systems").
 *
 *     kappa_1(A) = ||A||_1 ||A^-1||_1,   ||A||_1 = max_j sum_i |a_ij|.
 *
 * ||A||_1 is computed exactly from the entries.  ||A^-1||_1 is estimated
 * without forming A^-1: Hager's method refined by Higham [higham1988,
 * algorithm 5] asks for a few products A^-1 x and A^-T x, here solves with
 * the LU factors of A from the linear-system interface (linsys.h, which
 * picks the dense or the sparse back end).  LAPACK's dlacn2 is that
 * estimator in reverse communication, as dgecon uses it.  The estimate is a
 * lower bound of ||A^-1||_1, exact in most cases met in practice.
 *
 * A in any storage: CSR as stored; dense A by its nonzero entries (CSR);
 * factored A formed explicitly (slv_factored_csr_new).  A singular A (an
 * LU pivot exactly zero) gives +inf.  Everything allocated here is freed
 * before the return; this is a tool for metadata, not part of a solve.
 */
#include "linsys.h"
#include "slv_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* LAPACK's reverse-communication 1-norm estimator (dlacn2.f). */
extern void dlacn2_(const int *n, double *v, double *x, int *isgn, double *est, int *kase,
                    int *isave);

typedef struct csr_view {
  int *Ap, *Aj;
  double *Ax;
  int owned; /* the arrays are this module's to free */
} csr_view;

static void csr_view_free(csr_view *c) {
  if (c->owned) {
    free(c->Ap);
    free(c->Aj);
    free(c->Ax);
  }
}

/* The nonzero entries of a dense column-major A, row by row. */
static int csr_of_dense_alloc(const slv_problem *p, csr_view *c) {
  int n = p->n;
  size_t nnz = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) nnz += p->A[i + (size_t)j * p->lda] != 0.0;
  if (nnz > INT_MAX) return -1;
  c->owned = 1;
  c->Ap = malloc(((size_t)n + 1) * sizeof(int));
  c->Aj = malloc((nnz ? nnz : 1) * sizeof(int));
  c->Ax = malloc((nnz ? nnz : 1) * sizeof(double));
  if (!c->Ap || !c->Aj || !c->Ax) return -1;
  int k = 0;
  c->Ap[0] = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double a = p->A[i + (size_t)j * p->lda];
      if (a == 0.0) continue;
      c->Aj[k] = j;
      c->Ax[k++] = a;
    }
    c->Ap[i + 1] = k;
  }
  return 0;
}

/* A in CSR, whatever its storage; 0, or -1 with msg. */
static int csr_of(const slv_problem *p, csr_view *c, char *msg, size_t msglen) {
  *c = (csr_view){ NULL, NULL, NULL, 0 };
  if (p->storage == SLV_CSR) {
    if (!p->Ap || !p->Aj || !p->Ax) {
      slv_msgf(msg, msglen, "condition estimate: CSR A without Ap, Aj or Ax");
      return -1;
    }
    *c = (csr_view){ (int *)p->Ap, (int *)p->Aj, (double *)p->Ax, 0 };
    return 0;
  }
  if (p->storage == SLV_FACTORED) {
    c->owned = 1;
    return slv_factored_csr_new(p, &c->Ap, &c->Aj, &c->Ax, msg, msglen) == SLV_OK ? 0 : -1;
  }
  if (p->storage != SLV_DENSE || !p->A || p->lda < p->n) {
    slv_msgf(msg, msglen, "condition estimate: no dense A (storage=%d, lda=%d, n=%d)",
             (int)p->storage, p->lda, p->n);
    return -1;
  }
  if (csr_of_dense_alloc(p, c) == 0) return 0;
  slv_msgf(msg, msglen, "condition estimate: out of memory (n=%d)", p->n);
  return -1;
}

/* ||A||_1: the largest column sum of |a_ij| (col: n doubles of scratch). */
static double norm1(int n, const csr_view *c, double *col) {
  double best = 0.0;
  for (int j = 0; j < n; j++) col[j] = 0.0;
  for (int i = 0; i < n; i++)
    for (int k = c->Ap[i]; k < c->Ap[i + 1]; k++) col[c->Aj[k]] += fabs(c->Ax[k]);
  for (int j = 0; j < n; j++) best = fmax(best, col[j]);
  return best;
}

/* Hager-Higham's estimate of ||A^-1||_1 with the factors in ls; NaN when a
 * solve fails.  v, x: n doubles; isgn: n ints. */
static double inv_norm1(int n, slv_linsys *ls, double *v, double *x, int *isgn) {
  double est = NAN;
  int kase = 0, isave[3];
  do {
    dlacn2_(&n, v, x, isgn, &est, &kase, isave);
    /* kase 1: x <- A^-1 x; kase 2: x <- A^-T x */
    slv_ls_status st = kase == 1   ? slv_linsys_solve(ls, x)
                       : kase == 2 ? slv_linsys_solve_transposed(ls, x)
                                   : SLV_LS_OK;
    if (st != SLV_LS_OK) return NAN;
  } while (kase != 0);
  return est;
}

/* The estimator's scratch: v, x (n doubles each), isgn (n ints). */
static int scratch_alloc(int n, double **v, double **x, int **isgn) {
  *v = malloc((size_t)n * sizeof **v);
  *x = malloc((size_t)n * sizeof **x);
  *isgn = malloc((size_t)n * sizeof **isgn);
  return *v && *x && *isgn ? 0 : -1;
}

/* kappa_1 from A in CSR: the LU, then the estimate; -1 with msg when the
 * back end fails for another reason than singularity. */
static int estimate(int n, const csr_view *c, double *cond, char *msg, size_t msglen) {
  double *v = NULL, *x = NULL;
  int *isgn = NULL;
  slv_ls_status st = SLV_LS_NOMEM;
  slv_linsys *ls = NULL;
  if (scratch_alloc(n, &v, &x, &isgn) == 0)
    ls = slv_linsys_analyse(SLV_LS_GENERAL, SLV_LS_AUTO, n, c->Ap, c->Aj, &st);
  if (ls) st = slv_linsys_factor(ls, c->Ax);
  int rc = 0;
  if (st == SLV_LS_SINGULAR) {
    *cond = INFINITY;
  } else if (st == SLV_LS_OK) {
    double a1 = norm1(n, c, v), est = inv_norm1(n, ls, v, x, isgn);
    *cond = isfinite(est) ? a1 * est : INFINITY;
  } else {
    slv_msgf(msg, msglen, "condition estimate: the LU of A failed (%s, n=%d)",
             st == SLV_LS_NOMEM ? "out of memory" : "bad input", n);
    rc = -1;
  }
  slv_linsys_free(ls);
  free(v);
  free(x);
  free(isgn);
  return rc;
}

int slv_condition_estimate(const slv_problem *p, double *cond, char *msg, size_t msglen) {
  *cond = NAN;
  if (!p || p->n < 1) {
    slv_msgf(msg, msglen, "condition estimate: no rows (n=%d)", p ? p->n : 0);
    return -1;
  }
  csr_view c;
  int rc = csr_of(p, &c, msg, msglen);
  if (rc == 0) rc = estimate(p->n, &c, cond, msg, msglen);
  if (rc != 0) *cond = NAN;
  csr_view_free(&c);
  return rc;
}
