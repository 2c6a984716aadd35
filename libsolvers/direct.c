/* direct.c -- direct solution of problems whose rows are all equalities
 * (docs/solvers.md, "Direct").
 *
 * Problem: every row free (lo = -inf, hi = +inf), so the conditions reduce
 * to w = A x + b = 0, i.e. A x = -b (pure joints, no contact).
 *
 * Method: A is copied into the workspace (CSR is expanded to dense).  If A
 * is exactly symmetric, LAPACK Cholesky (dpotrf/dpotrs); if that fails (not
 * positive definite) or A is not symmetric, LU with partial pivoting
 * (dgetrf/dgetrs).  A pivot |U_ii| <= pivot_tol * max|A_ij| counts as zero:
 * SLV_SINGULAR_PIVOT.  The _work LAPACKE entry points are used, which neither
 * allocate nor scan for NaN (validation already did).
 *
 * Refuses any bounded or findex row (SLV_CAP_ONLY_FREE -> SLV_ERR_UNSUPPORTED).
 * Statuses: SLV_CONVERGED, SLV_SINGULAR_PIVOT, SLV_NOT_FINITE.
 */
#include "slv_internal.h"

#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double *F;        /* n_max x n_max factor */
  lapack_int *ipiv; /* n_max */
} direct_state;

static void direct_free(void *st) {
  direct_state *s = st;
  free(s->F);
  free(s->ipiv);
  s->F = NULL;
  s->ipiv = NULL;
}

static slv_status direct_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  direct_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->F = malloc(m * m * sizeof *s->F);
  s->ipiv = malloc(m * sizeof *s->ipiv);
  if (!s->F || !s->ipiv) {
    direct_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* F = A (n x n, lda = n); returns max |A_ij|. */
static double load(const slv_op *op, double *F) {
  int n = op->n;
  double amax = 0;
  slv_op_to_dense(op, F, n);
  for (size_t k = 0; k < (size_t)n * n; k++) amax = fmax(amax, fabs(F[k]));
  return amax;
}

static int symmetric(int n, const double *F) {
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      if (F[i + (size_t)j * n] != F[j + (size_t)i * n]) return 0;
  return 1;
}

static slv_status direct_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                               slv_result *res, slv_hist *h) {
  (void)w;
  (void)h;
  direct_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  if (n == 0) return SLV_CONVERGED;
  slv_status stop = slv_should_stop(op, 0); /* before the one factorization: x = P(0) */
  if (stop) return stop;
  double amax = load(op, s->F);
  for (int i = 0; i < n; i++) x[i] = -p->b[i];
  res->pivots = n;
  if (amax == 0) {
    slv_msgf(res->message, sizeof res->message, "direct: A is zero");
    return SLV_SINGULAR_PIVOT;
  }
  double ptol = opt->pivot_tol * amax;

  if (symmetric(n, s->F)) {
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, s->F, n);
    int ok = info == 0;
    /* L_ii^2 is the pivot of the elimination */
    for (int i = 0; ok && i < n; i++)
      if (s->F[i + (size_t)i * n] * s->F[i + (size_t)i * n] <= ptol) ok = 0;
    if (ok) {
      info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, s->F, n, x, n);
      return info == 0 ? SLV_CONVERGED : SLV_SINGULAR_PIVOT;
    }
    load(op, s->F); /* not positive definite: fall back to LU */
  }
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, s->F, n, s->ipiv);
  if (info < 0) {
    slv_msgf(res->message, sizeof res->message, "direct: dgetrf argument %d invalid", (int)-info);
    return SLV_SINGULAR_PIVOT;
  }
  for (int i = 0; i < n; i++)
    if (fabs(s->F[i + (size_t)i * n]) <= ptol) {
      slv_msgf(res->message, sizeof res->message,
               "direct: A is singular: LU pivot %d is %.3g <= pivot_tol*max|A| = %.3g", i,
               s->F[i + (size_t)i * n], ptol);
      return SLV_SINGULAR_PIVOT;
    }
  info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, s->F, n, s->ipiv, x, n);
  return info == 0 ? SLV_CONVERGED : SLV_SINGULAR_PIVOT;
}

static const slv_impl direct_impl = {
  .state_size = sizeof(direct_state),
  .init = direct_init,
  .free = direct_free,
  .solve = direct_solve,
};

const slv_solver slv_solver_direct = {
  .name = "direct",
  .summary = "equality rows only: Cholesky (LAPACKE dpotrf), LU fallback (dgetrf)",
  .cite = "golub2013",
  .caps = SLV_CAP_FREE | SLV_CAP_ONLY_FREE | SLV_CAP_SPARSE,
  .impl = &direct_impl,
};
