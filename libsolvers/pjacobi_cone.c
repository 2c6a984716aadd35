/* pjacobi_cone.c -- projected Jacobi over contacts: the parallel baseline
 * (docs/cone-solvers.md, "Projected Jacobi on cones").
 *
 * Problem (slv.h): w = A x + b.  Cone rows (n, t1, t2) per contact c with
 * K = K_mu = { |x_t| <= mu x_n }:
 *     Coulomb (De Saxce):  K ∋ x_c ⊥ w^_c ∈ K*,  w^_c = w_c + (mu |w_t|, 0, 0)
 *     associated (CCP):    K ∋ x_c ⊥ w_c  ∈ K*
 * every other row is a box row (lo <= x_i <= hi_i, free rows included).
 *
 * Iteration (all contacts at once; Anitescu and Tasora's projected Jacobi
 * for the cone complementarity problem, [anitescu2010], with Chrono's
 * per-contact scaling): with w = A x + b from the previous iterate,
 *     x_c <- P_K(x_c - theta w^_c / d_c),   d_c = trace(A(c, c)) / 3
 *     x_i <- mid(lo_i, hi_i, x_i - theta w_i / A_ii)      (box rows)
 * D_c = d_c I (the mean of the block's diagonal, not the 3x3 block nor its
 * diagonal) keeps the Euclidean projection on K the projection in the metric
 * D, so for the associated law this is projected gradient on the QP
 * min 1/2 x'Ax + b'x in the metric D = blockdiag(d_c I, A_ii): for a
 * symmetric positive semidefinite A it converges for
 * 0 < theta < 2 / lambda_max(D^-1/2 A D^-1/2).  For the Coulomb law w^ takes
 * the De Saxce shift of the previous iterate: a fixed point with no
 * convergence guarantee (Siconos' DSFP is the same map), which converges
 * for small mu in practice.
 *
 * Step: theta = opt->damping when > 0, else opt->omega / lambda with lambda
 * estimated by 50 power iterations on D^-1/2 A D^-1/2 (from below, so omega
 * = 1 sits a little above 1/lambda_max and omega must stay below 2 for the
 * associated law; options.c keeps it in (0, 2)).
 *
 * One product w = A x + b per iteration, over the operator's packed copy
 * of A (operator.h: 3x3 blocks of a pure contact problem, the columns of a
 * mostly-zero dense A or of a CSR A; O(nnz)), else dgemv.  The residual of each iterate is the library's slv_residual on
 * that w (O(n)), so converged means res_rel <= tol and, with cones,
 * res_nat_inf <= tol, exactly as the generic layer will recompute.
 *
 * Needs A(i,i) > 0 (SLV_CAP_NEEDS_POS_DIAG; then d_c > 0).  Statuses:
 * SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE, SLV_TIME_LIMIT, SLV_INTERRUPTED
 * (polled each iteration; the last iterate).  Reads opt->max_iter, tol,
 * omega, damping, record_history.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

/* PJC_PAR_CONTACTS: the contact steps are split over threads from this
 * many contacts on (fewer cost less than starting the team). */
enum { PJC_POWER_IT = 50, PJC_PAR_CONTACTS = 2048 };

typedef struct {
  double *invd;  /* per row: 1 / d (d_c on the 3 rows of a cone, A_ii on box rows) */
  double *v, *u; /* power iteration */
} pjc_state;

static void pjc_free(void *st) {
  pjc_state *s = st;
  free(s->invd);
  free(s->v);
  free(s->u);
  memset(s, 0, sizeof *s);
}

static slv_status pjc_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pjc_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->invd = malloc(m * sizeof(double));
  s->v = malloc(m * sizeof(double));
  s->u = malloc(m * sizeof(double));
  if (!s->invd || !s->v || !s->u) {
    pjc_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* y = A v, for the power iteration (ctx: the operator). */
static void product_av(void *ctx, const double *v, double *y) { slv_op_matvec(ctx, v, NULL, y); }

/* lambda_max of D^-1/2 A D^-1/2 by power iteration. */
static double spectral_estimate(slv_op *op, pjc_state *s) {
  return slv_power_lambda(op->n, s->invd, PJC_POWER_IT, product_av, op, s->v, s->u);
}

/* Contact k's step: x_c = P_K(x_c - g (w_c + s_c)), g = theta / d_c, s_c
 * the De Saxce shift (0 for the associated law).  It reads only w (from
 * the previous x) and its own x_c, so the contacts are independent. */
static void cone_step(const slv_problem *p, const pjc_state *s, double theta, const double *w,
                      double *x, int k) {
  int i = p->cone_rows[k];
  double mu = p->cone_mu[k], g = theta * s->invd[i];
  double sh = p->cone_law == SLV_CONE_ASSOCIATED ? 0.0 : slv_desaxce_shift(mu, w[i + 1], w[i + 2]);
  double v[3] = { x[i] - g * (w[i] + sh), x[i + 1] - g * w[i + 1], x[i + 2] - g * w[i + 2] };
  slv_cone_project(mu, v, x + i);
}

/* Every row belongs to a cone (rows 3k .. 3k+2 for contact k): an FC3D
 * problem. */
static int all_cones(const slv_problem *p) {
  if (3 * (long)p->ncones != p->n) return 0;
  for (int k = 0; k < p->ncones; k++)
    if (p->cone_rows[k] != 3 * k) return 0;
  return 1;
}

/* The step of every contact, on `threads` threads (OpenMP, a static split:
 * each contact's arithmetic is the same whichever thread does it). */
static void cone_steps(const slv_problem *p, const pjc_state *s, double theta, const double *w,
                       double *x, int threads) {
  int nc = p->ncones;
#ifdef _OPENMP
  if (threads > 1 && nc >= PJC_PAR_CONTACTS) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int k = 0; k < nc; k++) cone_step(p, s, theta, w, x, k);
    return;
  }
#else
  (void)threads;
#endif
  for (int k = 0; k < nc; k++) cone_step(p, s, theta, w, x, k);
}

/* Cones and box rows mixed: one pass in row order. */
static void mixed_steps(const slv_problem *p, const pjc_state *s, double theta, const double *w,
                        double *x) {
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      cone_step(p, s, theta, w, x, k);
      i += 2;
      k++;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    double xn = x[i] - theta * w[i] * s->invd[i];
    x[i] = xn < lo ? lo : (xn > hi ? hi : xn);
  }
}

static slv_status pjc_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  pjc_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  for (int i = 0; i < n; i++) s->invd[i] = 1.0 / slv_op_diag(op, i);
  for (int k = 0; k < p->ncones; k++) {
    int c = p->cone_rows[k];
    double d = (slv_op_diag(op, c) + slv_op_diag(op, c + 1) + slv_op_diag(op, c + 2)) / 3.0;
    s->invd[c] = s->invd[c + 1] = s->invd[c + 2] = 1.0 / d;
  }
  slv_op_pack_rows(op);
  double theta = opt->damping > 0 ? opt->damping : opt->omega / spectral_estimate(op, s);

  slv_residuals r;
  double step_work = slv_op_nnz(op); /* once: O(nnz) for packed blocks */
  for (int it = 0;; it++) {
    slv_op_matvec(op, x, p->b, w);
    r = slv_residual_op(op, x, w);
    res->iterations = it;
    res->solver_residual = slv_test_measure(opt, &r);
    if (it > 0) slv_history_push(h, res, res->solver_residual);
    if (isnan(r.res_rel)) {
      slv_msgf(res->message, sizeof res->message,
               "pjacobi_cone: iterate became non-finite at iteration %d (theta=%.3g)", it, theta);
      return SLV_NOT_FINITE;
    }
    if (slv_met(p, opt, &r)) return SLV_CONVERGED;
    if (it == opt->max_iter) break;
    slv_status stop = slv_should_stop(op, step_work);
    if (stop) return stop; /* the last iterate */
    if (all_cones(p))
      cone_steps(p, s, theta, w, x, op->threads);
    else
      mixed_steps(p, s, theta, w, x);
  }
  slv_msgf(res->message, sizeof res->message,
           "pjacobi_cone: %d iterations, res_nat_inf=%.3g res_scaled=%.3g > tol=%.3g (theta=%.3g)",
           opt->max_iter, r.res_nat_inf, r.res_scaled, opt->tol, theta);
  return SLV_MAX_ITER;
}

static const slv_impl pjc_impl = {
  .state_size = sizeof(pjc_state),
  .init = pjc_init,
  .free = pjc_free,
  .solve = pjc_solve,
};

/* the params line below quotes this */
_Static_assert(PJC_POWER_IT == 50, "pjacobi_cone params");

const slv_solver slv_solver_pjacobi_cone = {
  .name = "pjacobi_cone",
  .summary = "projected Jacobi over contacts (cone projection), automatic step, both cone laws",
  .cite = "anitescu2010",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "theta = options.damping, or if 0 (default) options.omega (" SLV_STR(SLV_DEFAULT_OMEGA) ") "
      "/ lambda_max(D^-1/2 A D^-1/2), 50 power iterations; d_c = trace(A_cc) / 3",
  /* clang-format on */
  .impl = &pjc_impl,
};
