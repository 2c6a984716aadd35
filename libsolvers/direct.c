/* direct.c -- direct solution of problems whose rows are all equalities
 * (docs/solvers.md, "Direct").
 *
 * Problem: every row free (lo = -inf, hi = +inf), so the conditions reduce
 * to w = A x + b = 0, i.e. A x = -b (pure joints, no contact).
 *
 * Method: A is copied into a dense system of the linear-system interface
 * (linsys.h; CSR is expanded: the pivot test below reads the dense factor's
 * diagonal, so direct gives linsys only the dense form, and the rule of
 * docs/solver-machinery.md, "Linear systems", then factors it dense).  If A is
 * exactly symmetric, Cholesky (LAPACK dpotrf/dpotrs); if that fails (not
 * positive definite) or A is not symmetric, LU with partial pivoting
 * (dgetrf/dgetrs).  A pivot |U_ii| (L_ii^2 for Cholesky) <= pivot_tol *
 * max|A_ij| counts as zero: SLV_SINGULAR_PIVOT.  The workspace holds the
 * system for n_max rows: a solve allocates nothing.
 *
 * Refuses any bounded or findex row (SLV_CAP_ONLY_FREE -> SLV_ERR_UNSUPPORTED).
 * Statuses: SLV_CONVERGED, SLV_SINGULAR_PIVOT, SLV_NOT_FINITE.
 */
#include "linsys.h"
#include "slv_internal.h"

#include <stdlib.h>

typedef struct {
  slv_linsys *ls; /* a dense system for n_max rows */
} direct_state;

static void direct_free(void *st) {
  direct_state *s = st;
  slv_linsys_free(s->ls);
  s->ls = NULL;
}

static slv_status direct_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  direct_state *s = st;
  s->ls = NULL;
  return slv_linsys_dense_reserve(&s->ls, n_max) == SLV_LS_OK ? SLV_OK : SLV_ERR_NOMEM;
}

/* The system's array = A (n x n, ld n); returns max |A_ij|. */
static double load(const slv_op *op, slv_linsys *ls) {
  int n = op->n;
  double *F = slv_linsys_dense_values(ls, n), amax = 0;
  slv_op_to_dense(op, F, n);
  for (size_t k = 0; k < (size_t)n * n; k++) amax = fmax(amax, fabs(F[k]));
  return amax;
}

static int symmetric(const slv_op *op, slv_linsys *ls) {
  int n = op->n;
  const double *F = slv_linsys_dense_values(ls, n);
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      if (F[i + (size_t)j * n] != F[j + (size_t)i * n]) return 0;
  return 1;
}

/* Cholesky of the loaded A with every pivot L_ii^2 > ptol: 1 and x solved,
 * else 0 (not positive definite, or a pivot counts as zero). */
static int cholesky_solves(slv_linsys *ls, double ptol, double *x) {
  if (slv_linsys_factor_dense(ls, SLV_LS_SPD, 0.0) != SLV_LS_OK) return 0;
  if (!(slv_linsys_pivot_min(ls, NULL) > ptol)) return 0;
  return slv_linsys_solve(ls, x) == SLV_LS_OK;
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
  double amax = load(op, s->ls);
  for (int i = 0; i < n; i++) x[i] = -p->b[i];
  res->pivots = n;
  if (amax == 0) {
    slv_msgf(res->message, sizeof res->message, "direct: A is zero");
    return SLV_SINGULAR_PIVOT;
  }
  double ptol = opt->pivot_tol * amax;

  if (symmetric(op, s->ls)) {
    if (cholesky_solves(s->ls, ptol, x)) return SLV_CONVERGED;
    load(op, s->ls); /* not positive definite: fall back to LU */
  }
  slv_ls_status ls_st = slv_linsys_factor_dense(s->ls, SLV_LS_GENERAL, 0.0);
  int at = -1;
  double pmin = slv_linsys_pivot_min(s->ls, &at);
  if (ls_st != SLV_LS_OK && ls_st != SLV_LS_SINGULAR) {
    slv_msgf(res->message, sizeof res->message, "direct: dgetrf refused its arguments (n=%d)", n);
    return SLV_SINGULAR_PIVOT;
  }
  if (!(pmin > ptol)) {
    slv_msgf(res->message, sizeof res->message,
             "direct: A is singular: LU pivot %d: |U_ii| = %.3g <= pivot_tol*max|A| = %.3g", at,
             pmin, ptol);
    return SLV_SINGULAR_PIVOT;
  }
  return slv_linsys_solve(s->ls, x) == SLV_LS_OK ? SLV_CONVERGED : SLV_SINGULAR_PIVOT;
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
  /* clang-format off */
  .params =
      "Cholesky (dpotrf) if A is exactly symmetric, else or if it fails LU (dgetrf); a pivot <= "
      "options.pivot_tol (" SLV_STR(SLV_DEFAULT_PIVOT_TOL) ") max|A_ij| is zero",
  /* clang-format on */
  .impl = &direct_impl,
};
