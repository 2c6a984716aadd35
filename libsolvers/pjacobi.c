/* pjacobi.c -- damped projected Jacobi for the boxed LCP with findex rows.
 *
 * Problem: w = A x + b, x = mid(lo, hi, x - w) (slv.h).
 *
 * Iteration (all rows at once, the parallel-friendly baseline; Cottle-Pang-
 * Stone 1992 sec. 5.2 [cottle1992]; docs/solvers.md, "Projected Jacobi"):
 *     w = A x + b                          (one dgemv)
 *     x_i <- mid(lo_i, hi_i, x_i - theta w_i / A_ii)
 * with friction bounds taken at the previous x.  This is projected gradient
 * in the metric D = diag(A), so for symmetric positive semidefinite A it
 * converges for 0 < theta < 2 / lambda_max(D^-1/2 A D^-1/2).  theta =
 * opt->damping, or, when that is 0, 1 / lambda estimated by 50 power
 * iterations on D^-1/2 A D^-1/2 (the estimate is from below, so theta is a
 * little above 1/lambda_max and well below 2/lambda_max).
 *
 * Needs A(i,i) > 0.  Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE,
 * SLV_TIME_LIMIT, SLV_INTERRUPTED (polled each iteration; the last iterate).
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

#define PJACOBI_POWER_IT 50 /* power iterations of the damping estimate */

typedef struct {
  double *invd;  /* 1 / A(i,i) */
  double *xo;    /* previous x (friction bounds) */
  double *v, *u; /* power iteration */
} pjacobi_state;

static void pjacobi_free(void *st) {
  pjacobi_state *s = st;
  free(s->invd);
  free(s->xo);
  free(s->v);
  free(s->u);
  memset(s, 0, sizeof *s);
}

static slv_status pjacobi_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pjacobi_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1) * sizeof(double);
  s->invd = malloc(m);
  s->xo = malloc(m);
  s->v = malloc(m);
  s->u = malloc(m);
  if (!s->invd || !s->xo || !s->v || !s->u) {
    pjacobi_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* y = A v (ctx: the operator). */
static void product(void *ctx, const double *v, double *y) { slv_op_matvec(ctx, v, NULL, y); }

/* lambda_max of D^-1/2 A D^-1/2 by PJACOBI_POWER_IT power iterations. */
static double spectral_estimate(slv_op *op, pjacobi_state *s) {
  return slv_power_lambda(op->n, s->invd, PJACOBI_POWER_IT, product, op, s->v, s->u);
}

static slv_status pjacobi_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                                slv_result *res, slv_hist *h) {
  pjacobi_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  for (int i = 0; i < n; i++) s->invd[i] = 1.0 / slv_op_diag(op, i);
  double theta = opt->damping > 0 ? opt->damping : 1.0 / spectral_estimate(op, s);

  slv_residuals r;
  double step_work = slv_op_nnz(op); /* once: O(nnz) for packed blocks */
  for (int it = 0;; it++) {
    slv_op_w(op, x, w);
    r = slv_residual_op(op, x, w);
    res->iterations = it;
    res->solver_residual = slv_test_measure(opt, &r);
    if (it > 0) slv_history_push(h, res, res->solver_residual);
    if (isnan(r.res_rel)) {
      slv_msgf(res->message, sizeof res->message,
               "pjacobi: iterate became non-finite at iteration %d (theta=%.3g)", it, theta);
      return SLV_NOT_FINITE;
    }
    if (slv_met(p, opt, &r)) return SLV_CONVERGED;
    if (it == opt->max_iter) break;
    slv_status stop = slv_should_stop(op, step_work);
    if (stop) return stop; /* the last iterate */
    memcpy(s->xo, x, (size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) {
      double lo, hi;
      slv_bounds_at(p, s->xo, i, &lo, &hi);
      double xn = s->xo[i] - theta * w[i] * s->invd[i];
      x[i] = xn < lo ? lo : (xn > hi ? hi : xn);
    }
  }
  slv_msgf(res->message, sizeof res->message,
           "pjacobi: %d iterations, res_scaled=%.3g > tol=%.3g (theta=%.3g)", opt->max_iter,
           r.res_scaled, opt->tol, theta);
  return SLV_MAX_ITER;
}

static const slv_impl pjacobi_impl = {
  .state_size = sizeof(pjacobi_state),
  .init = pjacobi_init,
  .free = pjacobi_free,
  .solve = pjacobi_solve,
};

const slv_solver slv_solver_pjacobi = {
  .name = "pjacobi",
  .summary = "damped projected Jacobi, automatic damping from a spectral estimate",
  .cite = "cottle1992",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "theta = options.damping, or if 0 (default) 1 / lambda_max(D^-1/2 A D^-1/2) by "
      SLV_STR(PJACOBI_POWER_IT) " power iterations; iterations up to options.max_iter ("
      SLV_STR(SLV_DEFAULT_MAX_ITER) ")",
  /* clang-format on */
  .impl = &pjacobi_impl,
};
