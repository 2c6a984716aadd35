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
 * of a sweep, taken from the w_i each row meets when visited (before its own
 * move: the quantity the sweep drives to zero), then costs O(n), not the
 * extra O(n^2) product that Siconos spends per sweep on lcp_compute_error.
 *
 * Rounding drift of the updated w is bounded by recomputing w = A x + b with
 * dgemv every opt->check_every sweeps and whenever the cheap residual meets
 * the tolerance; convergence is declared only on the recomputed w, with the
 * library's slv_residual, so the generic layer's check agrees bit for bit.
 * Contact matrices J M^-1 J^T are mostly zeros even when stored dense (a
 * contact couples only the contacts on its two bodies).  For n >= 64 the
 * solve first counts the nonzeros of A; if they fit in a quarter of A, it
 * packs the columns (compressed sparse columns, into buffers the workspace
 * allocated once for n_max^2/4 entries) and the column update touches only
 * the nonzeros: a sweep costs O(nnz) instead of O(n^2) [Bullet's
 * btSolveProjectedGaussSeidel exploits the same sparsity by rows].
 * CSR storage uses the row form (w_i = A(i,:) x + b_i, O(nnz) a sweep) and
 * measures the sweep by the w_i each row met, as the factored form below.
 *
 * Factored storage (slv.h: A = J K^T + diag(d), K = J M^-1 for contacts;
 * ODE quickstep, Box2D's sequential impulses): the solve keeps t = K^T x
 * (the velocity change of every body) in p->fwork; row i reads
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
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE.
 */
#include "slv_internal.h"

#include <cblas.h>
#include <stdlib.h>

enum { PGS_SPARSE_MIN_N = 64 };

typedef struct {
  double *invd;   /* omega / A(i,i) (slv_pgs_step), size n_max */
  int *colptr;    /* packed columns of a dense A: size n_max + 1 */
  int *rowind;    /* size cap */
  double *val;    /* size cap */
  size_t cap;     /* n_max^2 / 4: beyond that the dense daxpy is as fast */
} pgs_state;

static void pgs_free(void *st) {
  pgs_state *s = st;
  free(s->invd);
  free(s->colptr);
  free(s->rowind);
  free(s->val);
  s->invd = s->val = NULL;
  s->colptr = s->rowind = NULL;
}

static slv_status pgs_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  pgs_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->invd = malloc(m * sizeof *s->invd);
  if (!s->invd) return SLV_ERR_NOMEM;
  if (n_max >= PGS_SPARSE_MIN_N) {
    s->cap = m * m / 4;
    s->colptr = malloc((m + 1) * sizeof *s->colptr);
    s->rowind = malloc(s->cap * sizeof *s->rowind);
    s->val = malloc(s->cap * sizeof *s->val);
    if (!s->colptr || !s->rowind || !s->val) {
      pgs_free(s);
      return SLV_ERR_NOMEM;
    }
  }
  return SLV_CONVERGED;
}

/* Pack the nonzero columns of dense A if they fit in the buffers; returns 1
 * if packed.  The count stops as soon as the cap is passed, so a full matrix
 * costs a quarter of a pass. */
static int pack_columns(const slv_problem *p, pgs_state *s) {
  int n = p->n;
  if (!s->val || n < PGS_SPARSE_MIN_N) return 0;
  size_t cap = (size_t)n * n / 4;
  return slv_pack_columns(p, cap, s->colptr, s->rowind, s->val);
}

/* w = A x + b over the packed columns, O(nnz). */
static void w_packed(const slv_problem *p, const pgs_state *s, const double *x, double *w) {
  int n = p->n;
  for (int i = 0; i < n; i++) w[i] = p->b[i];
  for (int j = 0; j < n; j++) {
    double xj = x[j];
    if (xj == 0.0) continue;
    for (int k = s->colptr[j]; k < s->colptr[j + 1]; k++) w[s->rowind[k]] += xj * s->val[k];
  }
}

/* One sweep with the column update of w (dense storage): a move d of x_i
 * adds d A(:,i) to w, over the packed nonzeros when the columns are packed.
 * Returns the natural-map residual (inf-norm) of the w_i met at each row,
 * as the CSR and factored sweeps. */
static double sweep_columns(const slv_problem *p, const pgs_state *s, int packed, double *x,
                            double *w) {
  int n = p->n;
  const double *invd = s->invd;
  double m = 0, poison = 0;
  for (int i = 0; i < n; i++) {
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
    if (packed) {
      for (int k = s->colptr[i]; k < s->colptr[i + 1]; k++) w[s->rowind[k]] += d * s->val[k];
    } else {
      cblas_daxpy(n, d, p->A + (size_t)i * p->lda, 1, w, 1);
    }
  }
  return poison == 0.0 ? m : NAN;
}

/* One sweep in row form (CSR); returns the natural-map residual
 * (inf-norm) of the w_i met at each row, as sweep_factored. */
static double sweep_csr(const slv_problem *p, const double *invd, double *x) {
  double m = 0, poison = 0;
  for (int i = 0; i < p->n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double wi = slv_row_dot(p, i, x) + p->b[i];
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
static double sweep_factored(const slv_problem *p, const double *invd, double *x, double *t) {
  double m = 0, poison = 0;
  const int *fblk = p->fblk;
  const double *fK = p->fK, *b = p->b;
  for (int i = 0; i < p->n; i++) {
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    double xi = x[i];
    /* b + fd x first: off the chain from the last row's t update */
    double wi = (b[i] + (p->fd ? p->fd[i] * xi : 0.0)) + slv_factored_dots(p, i, t);
    poison += wi * 0.0;
    double r = slv_mid_res(xi, wi, lo, hi);
    if (r > m) m = r;
    double xn, e = slv_pgs_move(xi, wi, invd[i], lo, hi, &xn);
    if (e == 0.0) continue;
    x[i] = xn;
    int b0 = fblk[2 * i], b1 = fblk[2 * i + 1];
    const double *K = fK + 12 * (size_t)i;
    if (b0 >= 0) axmy6(e, K, t + 6 * (size_t)b0);
    if (b1 >= 0) axmy6(e, K + 6, t + 6 * (size_t)b1);
  }
  return poison == 0.0 ? m : NAN;
}

static slv_status pgs_solve(void *st, const slv_problem *p, const slv_options *opt, double *x,
                            double *w, slv_result *res) {
  pgs_state *s = st;
  int n = p->n;
  for (int i = 0; i < n; i++) s->invd[i] = slv_pgs_step(opt->omega, slv_diag(p, i));
  int dense = p->storage == SLV_DENSE, factored = p->storage == SLV_FACTORED;
  /* every sweep measures itself by the w_i its rows met (the same rule for
   * the three storages, so they stop at the same sweep); w is exact only
   * after a recomputation (start, check, convergence; the generic layer's
   * at the end) */
  int packed = dense && pack_columns(p, s);

  slv_residuals r = { 0 };
  if (factored) {
    r.res_rel = slv_factored_start_res(p, x, &r.b_inf); /* leaves K^T x in p->fwork */
  } else {
    slv_problem_w(p, x, w);
    r = slv_residual(p, x, w);
  }
  double scale = fmax(1.0, r.b_inf);
  res->solver_residual = r.res_rel;
  if (r.res_rel <= opt->tol) return SLV_CONVERGED;

  for (int it = 1; it <= opt->max_iter; it++) {
    if (factored) {
      /* p->fwork holds K^T x: slv_factored_start_res left it there, and
       * the sweep keeps it current */
      r.res_rel = sweep_factored(p, s->invd, x, p->fwork) / scale;
    } else if (dense) {
      r.res_rel = sweep_columns(p, s, packed, x, w) / scale;
    } else {
      r.res_rel = sweep_csr(p, s->invd, x) / scale;
    }
    res->iterations = it;
    if (isnan(r.res_rel)) {
      slv_msgf(res->message, sizeof res->message, "pgs: iterate became non-finite at sweep %d", it);
      return SLV_NOT_FINITE;
    }
    if (r.res_rel <= opt->tol) {
      /* confirm on w recomputed exactly as the generic layer will (factored:
       * this also drops the rounding drift of t) */
      slv_problem_w(p, x, w);
      r = slv_residual(p, x, w);
    } else if (it % opt->check_every == 0) {
      /* drop the rounding drift of the updates */
      if (packed) w_packed(p, s, x, w);
      else slv_problem_w(p, x, w);
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
    .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_FACTORED |
            SLV_CAP_NEEDS_POS_DIAG,
    .state_size = sizeof(pgs_state),
    .init = pgs_init,
    .free = pgs_free,
    .solve = pgs_solve,
};
