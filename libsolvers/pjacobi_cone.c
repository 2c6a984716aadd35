/* pjacobi_cone.c -- projected Jacobi over contacts: the parallel baseline.
 *
 * Problem (slv.h): w = A x + b.  Cone rows (n, t1, t2) per contact c with
 * K = K_mu = { |x_t| <= mu x_n }:
 *     Coulomb (De Saxce):  K ∋ x_c ⊥ w^_c ∈ K*,  w^_c = w_c + (mu |w_t|, 0, 0)
 *     associated (CCP):    K ∋ x_c ⊥ w_c  ∈ K*
 * every other row is a box row (lo <= x_i <= hi_i, free rows included).
 *
 * Iteration (all contacts at once; Anitescu and Tasora's projected Jacobi
 * for the cone complementarity problem, refs.bib anitescu2010, with Chrono's
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
 * One product w = A x + b per iteration: dgemv for dense A, except that a
 * mostly-zero dense A (n >= 64, nonzeros in a quarter of A) is packed by
 * columns once per solve into buffers allocated at init; CSR products are
 * O(nnz).  The residual of each iterate is the library's slv_residual on
 * that w (O(n)), so converged means res_rel <= tol and, with cones,
 * res_nat_inf <= tol, exactly as the generic layer will recompute.
 *
 * Needs A(i,i) > 0 (SLV_CAP_NEEDS_POS_DIAG; then d_c > 0).  Statuses:
 * SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE.  Reads opt->max_iter, tol,
 * omega, damping, record_history.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

enum { PJC_POWER_IT = 50, PJC_PACK_MIN_N = 64 };
#define PJC_PACK_MAX ((size_t)1 << 22) /* at most 4M packed entries (48 MB) */

typedef struct {
  double *invd;  /* per row: 1 / d (d_c on the 3 rows of a cone, A_ii on box rows) */
  double *v, *u, *zero; /* power iteration */
  int *colptr, *rowind; /* packed columns of a dense A */
  double *val;
  size_t cap;
} pjc_state;

static void pjc_free(void *st) {
  pjc_state *s = st;
  free(s->invd);
  free(s->v);
  free(s->u);
  free(s->zero);
  free(s->colptr);
  free(s->rowind);
  free(s->val);
  memset(s, 0, sizeof *s);
}

static slv_status pjc_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pjc_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->invd = malloc(m * sizeof(double));
  s->v = malloc(m * sizeof(double));
  s->u = malloc(m * sizeof(double));
  s->zero = calloc(m, sizeof(double));
  if (!s->invd || !s->v || !s->u || !s->zero) goto fail;
  if (n_max >= PJC_PACK_MIN_N) {
    s->cap = m * m / 4;
    if (s->cap > PJC_PACK_MAX) s->cap = PJC_PACK_MAX;
    s->colptr = malloc((m + 1) * sizeof *s->colptr);
    s->rowind = malloc(s->cap * sizeof *s->rowind);
    s->val = malloc(s->cap * sizeof *s->val);
    if (!s->colptr || !s->rowind || !s->val) goto fail;
  }
  return SLV_CONVERGED;
fail:
  pjc_free(s);
  return SLV_ERR_NOMEM;
}

/* Pack the nonzero columns of dense A if they fit; returns 1 if packed. */
static int pack_columns(const slv_problem *p, pjc_state *s) {
  int n = p->n;
  if (p->storage != SLV_DENSE || !s->val || n < PJC_PACK_MIN_N) return 0;
  size_t cap = (size_t)n * n / 4;
  if (cap > s->cap) cap = s->cap;
  return slv_pack_columns(p, cap, s->colptr, s->rowind, s->val);
}

/* w = A x + b (b may be the zero buffer). */
static void product(const slv_problem *p, const pjc_state *s, int packed, const double *b,
                    const double *x, double *w) {
  int n = p->n;
  if (!packed) {
    slv_problem q = *p;
    q.b = b;
    slv_problem_w(&q, x, w);
    return;
  }
  memcpy(w, b, (size_t)n * sizeof *w);
  for (int j = 0; j < n; j++) {
    double xj = x[j];
    if (xj == 0.0) continue;
    for (int k = s->colptr[j]; k < s->colptr[j + 1]; k++) w[s->rowind[k]] += xj * s->val[k];
  }
}

typedef struct {
  const slv_problem *p;
  const pjc_state *s;
  int packed;
} pjc_product;

/* y = A v, for the power iteration (ctx: a pjc_product). */
static void product_av(void *ctx, const double *v, double *y) {
  const pjc_product *c = ctx;
  product(c->p, c->s, c->packed, c->s->zero, v, y);
}

/* lambda_max of D^-1/2 A D^-1/2 by power iteration. */
static double spectral_estimate(const slv_problem *p, pjc_state *s, int packed) {
  pjc_product c = {p, s, packed};
  return slv_power_lambda(p->n, s->invd, PJC_POWER_IT, product_av, &c, s->v, s->u);
}

static slv_status pjc_solve(void *st, const slv_problem *p, const slv_options *opt, double *x,
                            double *w, slv_result *res) {
  pjc_state *s = st;
  int n = p->n, assoc = p->cone_law == SLV_CONE_ASSOCIATED;
  for (int i = 0; i < n; i++) s->invd[i] = 1.0 / slv_diag(p, i);
  for (int k = 0; k < p->ncones; k++) {
    int c = p->cone_rows[k];
    double d = (slv_diag(p, c) + slv_diag(p, c + 1) + slv_diag(p, c + 2)) / 3.0;
    s->invd[c] = s->invd[c + 1] = s->invd[c + 2] = 1.0 / d;
  }
  int packed = pack_columns(p, s);
  double theta =
      opt->damping > 0 ? opt->damping : opt->omega / spectral_estimate(p, s, packed);

  slv_residuals r;
  for (int it = 0;; it++) {
    product(p, s, packed, p->b, x, w);
    r = slv_residual(p, x, w);
    res->iterations = it;
    res->solver_residual = r.res_rel;
    if (it > 0) slv_history_push(res, (double *)res->history, res->history_cap, r.res_rel);
    if (isnan(r.res_rel)) {
      slv_msgf(res->message, sizeof res->message,
               "pjacobi_cone: iterate became non-finite at iteration %d (theta=%.3g)", it, theta);
      return SLV_NOT_FINITE;
    }
    if (slv_met(p, opt, &r)) return SLV_CONVERGED;
    if (it == opt->max_iter) break;
    /* every update reads only w (from the previous x) and its own x: in place */
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (k < p->ncones && p->cone_rows[k] == i) {
        double mu = p->cone_mu[k], g = theta * s->invd[i];
        double sh = assoc ? 0.0 : mu * hypot(w[i + 1], w[i + 2]);
        double v[3] = {x[i] - g * (w[i] + sh), x[i + 1] - g * w[i + 1], x[i + 2] - g * w[i + 2]};
        slv_cone_project(mu, v, x + i);
        i += 2;
        k++;
        continue;
      }
      double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
      double xn = x[i] - theta * w[i] * s->invd[i];
      x[i] = xn < lo ? lo : (xn > hi ? hi : xn);
    }
  }
  slv_msgf(res->message, sizeof res->message,
           "pjacobi_cone: %d iterations, res_nat_inf=%.3g res_rel=%.3g > tol=%.3g (theta=%.3g)",
           opt->max_iter, r.res_nat_inf, r.res_rel, opt->tol, theta);
  return SLV_MAX_ITER;
}

const slv_solver slv_solver_pjacobi_cone = {
    .name = "pjacobi_cone",
    .summary = "projected Jacobi over contacts (cone projection), automatic step, both cone laws",
    .cite = "anitescu2010",
    .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
    .state_size = sizeof(pjc_state),
    .init = pjc_init,
    .free = pjc_free,
    .solve = pjc_solve,
};
