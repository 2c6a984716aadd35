/* pgs.c -- projected Gauss-Seidel / SOR for the boxed LCP with findex rows.
 *
 * Problem: w = A x + b, x = mid(lo, hi, x - w) (slv.h), friction rows with
 * bounds -mu_i |x_j| .. mu_i |x_j| taken at the current x.
 *
 * Sweep (Cottle-Pang-Stone 1992, sec. 5.2 "projected SOR"; ODE quickstep;
 * refs.bib: cottle1992, erleben2007): for i = 0..n-1
 *     x_i <- mid(lo_i, hi_i, x_i - omega w_i / A_ii)
 * with w = A x + b kept current.  Dense storage is column-major, so instead
 * of a row dot product per row (the textbook form, Siconos lcp_pgs) we keep
 * w itself up to date: a change d of x_i adds d A(:,i) to w, one contiguous
 * daxpy, skipped entirely when x_i does not move (rows at a bound stay
 * there: inactive contacts cost O(1) per sweep).  The natural-map residual
 * at the end of a sweep then costs O(n), not the extra O(n^2) product that
 * Siconos spends per sweep on lcp_compute_error.
 *
 * Rounding drift of the updated w is bounded by recomputing w = A x + b with
 * dgemv every opt->check_every sweeps and whenever the cheap residual meets
 * the tolerance; convergence is declared only on the recomputed w, with the
 * library's slv_residual, so the generic layer's check agrees bit for bit.
 * CSR storage uses the row form (w_i = A(i,:) x + b_i) and recomputes w each
 * sweep (O(nnz)).
 *
 * Needs A(i,i) > 0 (SLV_CAP_NEEDS_POS_DIAG).  Converges for symmetric
 * positive definite A and 0 < omega < 2; on other matrices it may not.
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE.
 */
#include "slv_internal.h"

#include <cblas.h>
#include <stdlib.h>

typedef struct {
  double *invd; /* 1 / A(i,i), size n_max */
} pgs_state;

static slv_status pgs_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pgs_state *s = st;
  s->invd = malloc((size_t)(n_max > 0 ? n_max : 1) * sizeof *s->invd);
  return s->invd ? SLV_CONVERGED : SLV_ERR_NOMEM;
}

static void pgs_free(void *st) {
  pgs_state *s = st;
  free(s->invd);
  s->invd = NULL;
}

/* One sweep with the column update of w (dense). */
static void sweep_dense(const slv_problem *p, const double *invd, double omega, double *x, double *w) {
  int n = p->n;
  for (int i = 0; i < n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double xi = x[i];
    double xn = xi - omega * w[i] * invd[i];
    if (xn < lo) xn = lo;
    if (xn > hi) xn = hi;
    double d = xn - xi;
    if (d != 0.0) {
      x[i] = xn;
      cblas_daxpy(n, d, p->A + (size_t)i * p->lda, 1, w, 1);
    }
  }
}

/* One sweep in row form (CSR); w is recomputed by the caller. */
static void sweep_csr(const slv_problem *p, const double *invd, double omega, double *x) {
  for (int i = 0; i < p->n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double wi = slv_row_dot(p, i, x) + p->b[i];
    double xn = x[i] - omega * wi * invd[i];
    x[i] = xn < lo ? lo : (xn > hi ? hi : xn);
  }
}

static slv_status pgs_solve(void *st, const slv_problem *p, const slv_options *opt, double *x,
                            double *w, slv_result *res) {
  pgs_state *s = st;
  int n = p->n;
  for (int i = 0; i < n; i++) s->invd[i] = 1.0 / slv_diag(p, i);
  int dense = p->storage == SLV_DENSE;

  slv_problem_w(p, x, w);
  slv_residuals r = slv_residual(p, x, w);
  res->solver_residual = r.res_rel;
  if (r.res_rel <= opt->tol) return SLV_CONVERGED;

  for (int it = 1; it <= opt->max_iter; it++) {
    if (dense) {
      sweep_dense(p, s->invd, opt->omega, x, w);
    } else {
      sweep_csr(p, s->invd, opt->omega, x);
      slv_problem_w(p, x, w);
    }
    r = slv_residual(p, x, w);
    res->iterations = it;
    if (isnan(r.res_rel)) {
      slv_msgf(res->message, sizeof res->message, "pgs: iterate became non-finite at sweep %d", it);
      return SLV_NOT_FINITE;
    }
    if (dense && (r.res_rel <= opt->tol || it % opt->check_every == 0)) {
      slv_problem_w(p, x, w); /* drop the rounding drift of the updates */
      r = slv_residual(p, x, w);
    }
    res->solver_residual = r.res_rel;
    slv_history_push(res, (double *)res->history, res->history_cap, r.res_rel);
    if (r.res_rel <= opt->tol) return SLV_CONVERGED;
  }
  slv_msgf(res->message, sizeof res->message, "pgs: %d sweeps, res_rel=%.3g > tol=%.3g",
           opt->max_iter, r.res_rel, opt->tol);
  return SLV_MAX_ITER;
}

const slv_solver slv_solver_pgs = {
    .name = "pgs",
    .summary = "projected Gauss-Seidel / SOR (omega), boxed and findex rows, warm start",
    .cite = "cottle1992",
    .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
    .state_size = sizeof(pgs_state),
    .init = pgs_init,
    .free = pgs_free,
    .solve = pgs_solve,
};
