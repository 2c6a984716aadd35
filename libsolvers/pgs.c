/* pgs.c -- projected Gauss-Seidel / SOR for the boxed LCP with findex rows.
 *
 * Problem: w = A x + b, x = mid(lo, hi, x - w) (slv.h), friction rows with
 * bounds -mu_i |x_j| .. mu_i |x_j| taken at the current x.
 *
 * Sweep (Cottle-Pang-Stone 1992, sec. 5.2 "projected SOR"; ODE quickstep;
 * [cottle1992], [erleben2007]; docs/solvers.md, "PGS"): for i = 0..n-1
 *     x_i <- mid(lo_i, hi_i, x_i - omega w_i / A_ii)
 * with w = A x + b kept current.  Dense storage is column-major, so instead
 * of a row dot product per row (the textbook form, Siconos lcp_pgs) we keep
 * w itself up to date: a change d of x_i adds d A(:,i) to w, one contiguous
 * daxpy, skipped entirely when x_i does not move (rows at a bound stay
 * there: inactive contacts cost O(1) per sweep).  The natural-map residual
 * of a sweep, taken from the w_i each row meets when visited (before its own
 * move: the quantity the sweep drives to zero), then costs O(n), not the
 * extra O(n^2) product that Siconos spends per sweep on lcp_compute_error.
 *
 * Rounding drift of the updated w is bounded by recomputing w = A x + b with
 * dgemv every opt->check_every sweeps and whenever the cheap residual meets
 * the tolerance; convergence is declared only on the recomputed w, with the
 * library's slv_residual, so the generic layer's check agrees bit for bit.
 * Contact matrices J M^-1 J^T are mostly zeros even when stored dense (a
 * contact couples only the contacts on its two bodies).  The solve asks
 * the operator for its packed copy (operator.h: for n >= 64, when the
 * nonzeros fit in a quarter of A) and the column update then touches only
 * the nonzeros: a sweep costs O(nnz) instead of O(n^2) [Bullet's
 * btSolveProjectedGaussSeidel exploits the same sparsity by rows].
 * CSR storage uses the row form (w_i = A(i,:) x + b_i, O(nnz) a sweep) and
 * measures the sweep by the w_i each row met, as the factored form below.
 *
 * Factored storage (slv.h: A = J K^T + diag(d), K = J M^-1 for contacts;
 * ODE quickstep, Box2D's sequential impulses): the solve keeps t = K^T x
 * (the velocity change of every body) in the operator's t; row i reads
 *     w_i = (b_i + d_i x_i) + J_i . t        (two 6-blocks: 12 flops)
 * and moves x_i down by the clamped step e = mid(x_i - hi_i,
 * w_i omega / A_ii, x_i - lo_i) (slv_pgs_move: the same move, with
 * nothing between w_i and the t update that could be formed before) and
 * t by e K_i (12 more), so a sweep costs O(n)
 * whatever the contact graph, and A is never formed.  The sweep's
 * residual is measured as in the dense form, and replaced by the one of the
 * exact w = A x + b every check_every sweeps and before "converged" is
 * declared.
 *
 * Needs A(i,i) > 0 (SLV_CAP_NEEDS_POS_DIAG).  Converges for symmetric
 * positive definite A and 0 < omega < 2; on other matrices it may not.
 * At the sweep budget, a last sweep measured by its estimate only is
 * measured exactly when the estimate is near tol (PGS_NEAR), so that the
 * status is the returned x's; otherwise the message names the figure an
 * estimate (slv_solve decides the verdict on the same x and adds its
 * exact measure).
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE, and SLV_TIME_LIMIT,
 * SLV_INTERRUPTED (polled before each sweep; the last iterate).
 */
#include "slv_internal.h"

#include <stdlib.h>

typedef struct {
  double *invd; /* omega / A(i,i) (slv_pgs_step), size n_max */
} pgs_state;

/* At the sweep budget, a last sweep measured by its estimate within this
 * factor of tol is measured exactly (the estimate m / units is off by
 * the ratio of the last exact measure's units to this x's: within 1.5 on
 * the planted tests of tests/test_verdict.c) */
#define PGS_NEAR 4.0

static void pgs_free(void *st) {
  pgs_state *s = st;
  free(s->invd);
  s->invd = NULL;
}

static slv_status pgs_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pgs_state *s = st;
  s->invd = malloc((size_t)(n_max > 0 ? n_max : 1) * sizeof *s->invd);
  return s->invd ? SLV_OK : SLV_ERR_NOMEM;
}

/* One sweep with the column update of w (dense storage, or its packed
 * copy): a move d of x_i adds d A(:,i) to w.  Returns the natural-map
 * residual (inf-norm) of the w_i met at each row, as the CSR and factored
 * sweeps. */
static double sweep_columns(const slv_op *op, const double *invd, double *x, double *w) {
  const slv_problem *p = op->p;
  double m = 0, poison = 0;
  for (int i = 0; i < p->n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double xi = x[i], wi = w[i];
    poison += wi * 0.0;
    double r = slv_mid_res(xi, wi, lo, hi);
    if (r > m) m = r;
    double xn = xi - wi * invd[i];
    if (xn < lo) xn = lo;
    if (xn > hi) xn = hi;
    double d = xn - xi;
    if (d == 0.0) continue;
    x[i] = xn;
    slv_op_col_axpy(op, i, d, w);
  }
  return poison == 0.0 ? m : NAN;
}

/* One sweep in row form (CSR); returns the natural-map residual
 * (inf-norm) of the w_i met at each row, as sweep_factored. */
static double sweep_rows(const slv_op *op, const double *invd, double *x) {
  const slv_problem *p = op->p;
  double m = 0, poison = 0;
  for (int i = 0; i < p->n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double wi = slv_op_row_dot(op, i, x) + p->b[i];
    poison += wi * 0.0;
    double r = slv_mid_res(x[i], wi, lo, hi);
    if (r > m) m = r;
    double xn = x[i] - wi * invd[i];
    x[i] = xn < lo ? lo : (xn > hi ? hi : xn);
  }
  return poison == 0.0 ? m : NAN;
}

/* t_b -= e K (one 6-block), written out: the loop form was a scalar
 * load-add-store chain at -O2. */
static inline void axmy6(double e, const double *K, double *tb) {
  tb[0] -= e * K[0];
  tb[1] -= e * K[1];
  tb[2] -= e * K[2];
  tb[3] -= e * K[3];
  tb[4] -= e * K[4];
  tb[5] -= e * K[5];
}

/* One sweep on factored storage with t = K^T x kept current; returns the
 * natural-map residual (inf-norm) of the w_i met at each row, NaN if a
 * value is not finite. */
static double sweep_factored(const slv_op *op, const double *invd, double *x, double *t) {
  const slv_problem *p = op->p;
  const slv_fac *f = &op->f;
  double m = 0, poison = 0;
  const int *blk = f->blk;
  const double *fK = f->K, *b = p->b;
  for (int i = 0; i < p->n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double xi = x[i];
    /* b + d x first: off the chain from the last row's t update */
    double wi = (b[i] + (f->d ? f->d[i] * xi : 0.0)) + slv_fac_dots(f, i, t);
    poison += wi * 0.0;
    double r = slv_mid_res(xi, wi, lo, hi);
    if (r > m) m = r;
    double xn, e = slv_pgs_move(xi, wi, invd[i], lo, hi, &xn);
    if (e == 0.0) continue;
    x[i] = xn;
    int b0 = blk[2 * i], b1 = blk[2 * i + 1];
    const double *K = fK + 12 * (size_t)i;
    if (b0 >= 0) axmy6(e, K, t + 6 * (size_t)b0);
    if (b1 >= 0) axmy6(e, K + 6, t + 6 * (size_t)b1);
  }
  return poison == 0.0 ? m : NAN;
}

/* The sweep that fits the operator: factored (t kept current), columns
 * (w kept current: dense storage or the packed copy), else rows. */
static double sweep(slv_op *op, const double *invd, double *x, double *w) {
  if (op->fac) return sweep_factored(op, invd, x, op->t);
  if (op->A || op->packed) return sweep_columns(op, invd, x, w);
  return sweep_rows(op, invd, x);
}

/* A pause of slv_solve_paused after a sweep: the exact w = A x + b for
 * its function, and where that moved x, the sweeps' kept state taken up
 * from the new x (factored: t = K^T x; columns: w; rows keep none). */
static void pgs_pause(slv_op *op, double *x, double *w) {
  slv_op_w(op, x, w);
  if (!op->pauses->fn(op->pauses->ctx, x, w)) return;
  if (op->fac)
    slv_op_ktx(op, x);
  else if (op->A || op->packed)
    slv_op_w(op, x, w);
}

static slv_status pgs_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  pgs_state *s = st;
  const slv_problem *p = op->p;
  for (int i = 0; i < p->n; i++) s->invd[i] = slv_pgs_step(opt->omega, slv_op_diag(op, i));
  /* a mostly-zero dense A: its packed columns (CSR keeps the row form) */
  if (op->A) slv_op_pack(op);

  /* every sweep measures itself by the w_i its rows met (the same rule for
   * the three forms, so they stop at the same sweep); w is exact only
   * after a recomputation (start, check, convergence; the generic layer's
   * at the end).  The checks take the test's measures alone (the generic
   * layer takes them all at the end) */
  slv_residuals r;
  if (op->fac) {
    slv_op_ktx(op, x); /* K^T x into op->t, which the sweeps keep current */
    r = slv_residual_test_op(op, x, NULL, 1);
  } else {
    slv_op_w(op, x, w);
    r = slv_residual_test_op(op, x, w, 0);
  }
  double units = slv_units_of(&r, fmax(1.0, r.b_inf));
  res->solver_residual = slv_test_measure(opt, &r);
  if (slv_met(p, opt, &r)) return SLV_CONVERGED;

  double sweep_work = slv_op_nnz(op);
  int exact = 1;
  for (int it = 1; it <= opt->max_iter; it++) {
    slv_status stop = slv_should_stop(op, sweep_work);
    if (stop) return stop; /* the last iterate */
    double m = sweep(op, s->invd, x, w);
    res->iterations = it;
    if (isnan(m)) {
      slv_msgf(res->message, sizeof res->message, "pgs: iterate became non-finite at sweep %d", it);
      return SLV_NOT_FINITE;
    }
    exact = 1;
    if (slv_cheap_met(opt, m, units)) {
      /* confirm on w recomputed exactly as the generic layer will (factored:
       * this also drops the rounding drift of t) */
      slv_op_w(op, x, w);
      r = slv_residual_test_op(op, x, w, 0);
    } else if (it % opt->check_every == 0) {
      /* drop the rounding drift of the updates */
      slv_op_matvec(op, x, p->b, w);
      r = slv_residual_test_op(op, x, w, 0);
    } else {
      exact = 0;
    }
    if (exact) units = slv_units_of(&r, units);
    res->solver_residual = exact ? slv_test_measure(opt, &r) : m / units;
    slv_history_push(h, res, res->solver_residual);
    if (exact && slv_met(p, opt, &r)) return SLV_CONVERGED;
    if (slv_pause_due(op, it, opt->max_iter)) pgs_pause(op, x, w);
  }
  if (!exact && res->solver_residual <= PGS_NEAR * opt->tol) {
    /* the last sweep was measured by its estimate only, and that is near
     * tol: its x may meet the test; the verdict and the message on the
     * exact measures (far from tol, slv_solve's verdict on the same x
     * costs nothing more, and adds the exact figure to the message) */
    slv_op_w(op, x, w);
    r = slv_residual_op(op, x, w);
    res->solver_residual = slv_test_measure(opt, &r);
    exact = 1;
    if (slv_met(p, opt, &r)) return SLV_CONVERGED;
  }
  slv_msgf(res->message, sizeof res->message, "pgs: %d sweeps, res_scaled%s%.3g > tol=%.3g",
           opt->max_iter, exact ? "=" : " estimated ", res->solver_residual, opt->tol);
  return SLV_MAX_ITER;
}

static const slv_impl pgs_impl = {
  .state_size = sizeof(pgs_state),
  .init = pgs_init,
  .free = pgs_free,
  .solve = pgs_solve,
};

const slv_solver slv_solver_pgs = {
  .name = "pgs",
  .summary = "projected Gauss-Seidel / SOR (omega), boxed and findex rows, warm start",
  .cite = "cottle1992",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_FACTORED |
          SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "omega = options.omega (" SLV_STR(SLV_DEFAULT_OMEGA) "); sweeps up to options.max_iter ("
      SLV_STR(SLV_DEFAULT_MAX_ITER) "); exact w every options.check_every ("
      SLV_STR(SLV_DEFAULT_CHECK_EVERY) ") sweeps; start: the projection of 0",
  /* clang-format on */
  .impl = &pgs_impl,
};
