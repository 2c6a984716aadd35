/* apgd.c -- accelerated projected gradient descent (Nesterov) on the cone QP
 * (docs/cone-solvers.md, "APGD").
 *
 * Problem (cone_qp.h): minimize f(x) = 1/2 x'Ax + bq'x over
 * Omega = prod_c K_mu(c) x prod_i [lo_i, hi_i], A symmetric positive
 * semidefinite; bq = b for the associated law (KKT: K_mu ∋ x_c ⊥ w_c ∈ K*),
 * bq = b + s with the De Saxce shift s_c = (mu |w_t|, 0, 0) for Coulomb's law,
 * updated between QP solves by the fixed point of cone_qp.c (an outer loop,
 * not a per-iteration update: with s changing every step the objective
 * would change under the momentum term, and Nesterov's estimates, the
 * restart test and the backtracking would all refer to a moving target).
 *
 * Algorithm: APGD of Mazhar, Heyn, Negrut, Tasora, "Using Nesterov's method
 * to accelerate multibody dynamics with friction and contact", ACM TOG 34(3)
 * (2015), Algorithm 2 [mazhar2015], as in Chrono's ChSolverAPGD:
 *     L_0 = |A (x_0 - x^)| / |x_0 - x^|,  x^ = x_0 - (1, ..., 1);  y_0 = x_0, theta_0 = 1
 *     for k = 0, 1, ...
 *       g = A y_k + bq
 *       x_{k+1} = P_Omega(y_k - g / L_k)
 *       while f(x_{k+1}) > f(y_k) + g'd + L_k/2 |d|^2,  d = x_{k+1} - y_k:
 *           L_k = 2 L_k,  x_{k+1} = P_Omega(y_k - g / L_k)           (backtracking)
 *       theta_{k+1} = (-theta_k^2 + theta_k sqrt(theta_k^2 + 4)) / 2
 *       beta_{k+1}  = theta_k (1 - theta_k) / (theta_k^2 + theta_{k+1})
 *       y_{k+1} = x_{k+1} + beta_{k+1} (x_{k+1} - x_k)
 *       if g'(x_{k+1} - x_k) > 0:  y_{k+1} = x_{k+1}, theta_{k+1} = 1  (adaptive restart,
 *                                   O'Donoghue & Candes 2015, gradient test)
 *       L_{k+1} = 0.9 L_k
 *     keep the iterate of smallest residual; stop when it meets the tolerance.
 * For a quadratic the sufficient-decrease test is exactly d'Ad <= L_k |d|^2,
 * so each trial costs one product A d, and A x_{k+1} = A y_k + A d,
 * A y_{k+1} = A x_{k+1} + beta (A x_{k+1} - A x_k) follow without another
 * product: one product with A per iteration plus one per backtrack.  These
 * updated products are recomputed exactly every opt->check_every iterations
 * and before any convergence claim.  The residual is the natural map
 * ||x - P(x - g)||_inf at x_{k+1} (Mazhar's is a projected gradient with a
 * small step; the natural map is the library's measure, so the solver stops
 * on the number it is judged by).
 *
 * Scaling (docs/cone-solvers.md, "Scaling"): the steps are taken in the
 * metric D = diag(A) (slv_cqp_metric: one value per cone), x_{k+1} =
 * P_Omega(y_k - D^-1 g / L_k), the backtracking test d'Ad <= L_k d'Dd and
 * L_0 the ratio above for D^-1/2 A D^-1/2: the method on the problem scaled
 * by D^-1/2 (the cones' projection is unchanged by one positive factor per
 * cone), so a symmetric diagonal scaling of the rows leaves the iterates'
 * course unchanged.  Before it, MuJoCo's humanoid (joint-row diagonal
 * 0.5 .. 7.8e3) left res_scaled 0.8 after 50 iterations.
 *
 * Stopping, laws, history: cone_qp.c's driver (slv_cqp_drive).  opt->max_iter
 * counts APGD iterations over all outer iterations; result.iterations is
 * that count; the history holds, per APGD iteration, res_rel of the
 * problem's law (De Saxce map for Coulomb) at x_{k+1}, from the updated
 * products.  result.message names the law and the outer iteration count.
 * When an inner solve runs out of iterations, the best iterate is returned.
 *
 * Threads (opt->threads, docs/solvers.md "Threads"): the products by the
 * packed block rows, the projection and the natural map (per block), the
 * vector stages (elementwise) and the dot products (slv_par_dot: fixed
 * chunks summed in a fixed order) split over threads on large problems, so
 * the iterates are the same bits for every thread count.
 *
 * Warm start: x is projected on Omega first.  Needs A symmetric
 * (SLV_CAP_NEEDS_SYMMETRIC) and positive semidefinite (not checked).
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE, SLV_STAGNATED (the
 * Coulomb fixed point stopped improving), SLV_TIME_LIMIT, SLV_INTERRUPTED
 * (polled each inner iteration: the inner solve's best iterate).
 */
#include "cone_qp.h"
#include "par.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

enum { APGD_MAX_BACKTRACK = 60 };

/* Coulomb's law: each QP of the De Saxce fixed point is solved to 0.1 times
 * the residual it starts from (cone_qp.h): the fastest of the factors
 * tried on the symmetric FC3D files (experiments/records/2026-11-26-solvers.md). */
#define APGD_INNER_FACTOR 0.1

typedef struct {
  slv_cqp q;
  double *Ax;   /* A x_k */
  double *y;    /* y_k */
  double *Ay;   /* A y_k */
  double *xn;   /* x_{k+1} */
  double *d;    /* x_{k+1} - y_k */
  double *Ad;   /* A d, then A x_{k+1} */
  double *gy;   /* gradient at y_k (also scratch for the gradient at x_k) */
  double *best; /* iterate with the smallest residual */
  double *part; /* slv_par_chunks(n_max): the chunk sums of slv_par_dot */
  double *dg;   /* the metric D: diag(A) per scalar row, the block's mean per cone */
  double *Dd;   /* D d */
  double L;     /* Lipschitz estimate in the metric D; 0 = not yet set in this solve */
} apgd_state;

static void apgd_free(void *st) {
  apgd_state *s = st;
  slv_cqp_free(&s->q);
  free(s->Ax);
  free(s->y);
  free(s->Ay);
  free(s->xn);
  free(s->d);
  free(s->Ad);
  free(s->gy);
  free(s->best);
  free(s->part);
  free(s->dg);
  free(s->Dd);
  memset(s, 0, sizeof *s);
}

static slv_status apgd_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  apgd_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1) * sizeof(double);
  if (slv_cqp_alloc(&s->q, n_max)) return SLV_ERR_NOMEM;
  s->Ax = malloc(m);
  s->y = malloc(m);
  s->Ay = malloc(m);
  s->xn = malloc(m);
  s->d = malloc(m);
  s->Ad = malloc(m);
  s->gy = malloc(m);
  s->best = malloc(m);
  s->part = malloc(slv_par_chunks(n_max) * sizeof *s->part);
  s->dg = malloc(m);
  s->Dd = malloc(m);
  if (!s->Ax || !s->y || !s->Ay || !s->xn || !s->d || !s->Ad || !s->gy || !s->best || !s->part ||
      !s->dg || !s->Dd) {
    apgd_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* The iteration's vector stages, elementwise, so on `th` threads for large
 * problems with the same bits as on one (par.h). */

/* y = a + b */
static void vec_add(int n, const double *a, const double *b, double *y, int th) {
#pragma omp parallel for num_threads(slv_par_threads(th, n)) schedule(static)
  for (int i = 0; i < n; i++) y[i] = a[i] + b[i];
}

/* xn = y - t D^-1 g */
static void gradient_step(int n, const double *y, const double *g, const double *dg, double t,
                          double *xn, int th) {
#pragma omp parallel for num_threads(slv_par_threads(th, n)) schedule(static)
  for (int i = 0; i < n; i++) xn[i] = y[i] - t * g[i] / dg[i];
}

/* y = D a */
static void vec_scale(int n, const double *dg, const double *a, double *y, int th) {
#pragma omp parallel for num_threads(slv_par_threads(th, n)) schedule(static)
  for (int i = 0; i < n; i++) y[i] = dg[i] * a[i];
}

/* d = a - b */
static void vec_sub(int n, const double *a, const double *b, double *d, int th) {
#pragma omp parallel for num_threads(slv_par_threads(th, n)) schedule(static)
  for (int i = 0; i < n; i++) d[i] = a[i] - b[i];
}

/* Nesterov's extrapolation: y = xn + bet (xn - x), and its product Ay from
 * A xn and A x (no product with A). */
static void extrapolate(int n, const double *xn, const double *x, const double *Axn,
                        const double *Ax, double bet, double *y, double *Ay, int th) {
#pragma omp parallel for num_threads(slv_par_threads(th, n)) schedule(static)
  for (int i = 0; i < n; i++) {
    y[i] = xn[i] + bet * (xn[i] - x[i]);
    Ay[i] = Axn[i] + bet * (Axn[i] - Ax[i]);
  }
}

static slv_status apgd_inner(void *st, slv_cqp *q, const slv_options *opt, double tol_in,
                             int budget, double *x, slv_result *res, slv_hist *h, int *iters) {
  apgd_state *s = st;
  int n = q->p->n;
  size_t bytes = (size_t)n * sizeof(double);
  double *Ax = s->Ax, *y = s->y, *Ay = s->Ay, *xn = s->xn, *d = s->d, *Ad = s->Ad, *g = s->gy;
  int th = q->op->threads;
  if (!(s->L > 0)) {
    /* Mazhar's initial estimate in the metric D: the Rayleigh-like ratio of
     * D^-1/2 A D^-1/2 along (1, ..., 1) */
    slv_cqp_metric(q, s->dg); /* docs/cone-solvers.md, "Scaling" */
    for (int i = 0; i < n; i++) d[i] = 1 / sqrt(s->dg[i]);
    slv_cqp_matvec(q, d, Ad);
    for (int i = 0; i < n; i++) Ad[i] *= d[i];
    s->L = n > 0 ? cblas_dnrm2(n, Ad, 1) / sqrt((double)n) : 1;
    if (!(s->L > 0) || !isfinite(s->L)) s->L = 1;
  }
  slv_cqp_matvec(q, x, Ax);
  memcpy(y, x, bytes);
  memcpy(Ay, Ax, bytes);
  double theta = 1, rbest = INFINITY;
  int fresh = 1, it = 0, pending = 0;
  for (;;) {
    /* residual at x_k from the gradient A x_k + bq */
    vec_add(n, Ax, q->bq, g, th);
    double rn = slv_cqp_natres(q, x, g);
    if (pending && h->cap > 0) slv_history_push(h, res, slv_cqp_lawres(q, x, g) * q->hist_scale);
    pending = 0;
    if (isnan(rn)) return SLV_NOT_FINITE;
    if (rn <= tol_in) {
      if (fresh) return SLV_CONVERGED;
      /* confirm on exact products; restart the momentum from there */
      slv_cqp_matvec(q, x, Ax);
      memcpy(y, x, bytes);
      memcpy(Ay, Ax, bytes);
      theta = 1;
      fresh = 1;
      continue;
    }
    if (rn < rbest) {
      rbest = rn;
      memcpy(s->best, x, bytes);
    }
    if (it >= budget || slv_should_stop(q->op, q->poll_work)) {
      if (rbest < rn) memcpy(x, s->best, bytes);
      return SLV_MAX_ITER;
    }
    it++;
    (*iters)++;
    pending = 1;
    /* gradient at y_k, then the backtracking projected step */
    vec_add(n, Ay, q->bq, g, th);
    double dd = 0, dAd = 0;
    for (int tries = 0;; tries++) {
      gradient_step(n, y, g, s->dg, 1 / s->L, xn, th);
      slv_cqp_project(q, xn);
      vec_sub(n, xn, y, d, th);
      vec_scale(n, s->dg, d, s->Dd, th);
      dd = slv_par_dot(n, d, s->Dd, s->part, th); /* |d|_D^2 */
      if (dd == 0) break; /* y is a fixed point of the projected gradient map */
      slv_cqp_matvec(q, d, Ad);
      dAd = slv_par_dot(n, d, Ad, s->part, th);
      if (!isfinite(dAd) || !isfinite(s->L)) return SLV_NOT_FINITE;
      /* f(x_{k+1}) <= f(y) + g'd + L/2 |d|_D^2  <=>  d'Ad <= L d'Dd (rounding: 1e-12) */
      if (dAd <= s->L * dd * (1 + 1e-12) || tries >= APGD_MAX_BACKTRACK) break;
      s->L *= 2;
    }
    if (dd == 0) {
      /* x_{k+1} = y_k: continue from y_k without momentum */
      memcpy(x, y, bytes);
      memcpy(Ax, Ay, bytes);
      theta = 1;
      fresh = 0;
      continue;
    }
    vec_add(n, Ad, Ay, Ad, th); /* A x_{k+1} */
    double thn = (-theta * theta + theta * sqrt(theta * theta + 4)) / 2;
    double bet = theta * (1 - theta) / (theta * theta + thn);
    /* restart test: g'(x_{k+1} - x_k) > 0, g at y_k */
    double gdx = slv_par_dot_diff(n, g, xn, x, s->part, th);
    if (gdx > 0) {
      memcpy(y, xn, bytes);
      memcpy(Ay, Ad, bytes);
      theta = 1;
    } else {
      extrapolate(n, xn, x, Ad, Ax, bet, y, Ay, th);
      theta = thn;
    }
    memcpy(x, xn, bytes);
    memcpy(Ax, Ad, bytes);
    s->L *= 0.9;
    fresh = 0;
    if (it % opt->check_every == 0) {
      /* drop the drift of the updated products */
      slv_cqp_matvec(q, x, Ax);
      slv_cqp_matvec(q, y, Ay);
      fresh = 1;
    }
  }
}

static slv_status apgd_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  apgd_state *s = st;
  s->L = 0;
  return slv_cqp_drive(&s->q, op, opt, "apgd", 0, APGD_INNER_FACTOR, apgd_inner, s, x, w, res, h);
}

static const slv_impl apgd_impl = {
  .state_size = sizeof(apgd_state),
  .init = apgd_init,
  .free = apgd_free,
  .solve = apgd_solve,
};

/* the params line below quotes these */
_Static_assert(APGD_MAX_BACKTRACK == 60 && CQP_STALL == 25, "apgd params");

const slv_solver slv_solver_apgd = {
  .name = "apgd",
  .summary = "Nesterov accelerated projected gradient, adaptive restart, backtracking "
             "Lipschitz estimate; Coulomb law by the De Saxce fixed point",
  .cite = "mazhar2015",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_SYMMETRIC,
  /* clang-format off */
  .params =
      "Nesterov, gradient restart; L x 2 a backtrack (<= 60), x 0.9 a step; Coulomb: De Saxce, "
      "each QP to " SLV_STR(APGD_INNER_FACTOR) " x its start residual, stop: 25 outer w/o 1 % "
      "gain",
  /* clang-format on */
  .impl = &apgd_impl,
};
