/* dantzig_findex.c -- dantzig's friction rows: the outer passes on the
 * findex bounds (docs/solvers.md, "Principal pivoting (Dantzig)", "Friction
 * rows").
 *
 * ODE and its copies (Bullet, DART) freeze a friction row's bounds at the
 * normal x_j of the moment it is driven; x_j moves afterwards, so the final
 * x violates |x_i| <= mu_i |x_j| or its complementarity (the peers stop at
 * res_nat 0.33 .. 3.3 on the contact-box instances).  Here the friction
 * bounds h are an outer iteration of boxed passes (res->iterations counts
 * them), each warm-started from the previous clamped set (one dpotrf
 * instead of k appends), judged by the library's residual with the bounds
 * at the new x.  Between passes: the Newton point of the last active set
 * (newton_findex: friction rows at a bound follow their normal, one LU
 * solve), which is the answer once the active set is right; if the pass from
 * its bounds does not lower the residual, the fixed-point step h = mu |x_n|.
 * This is not guaranteed to converge (the problem is not a symmetric LCP: its
 * LCP form needs Lemke's method).  When the residual has not improved by
 * 10 % in DZ_STALL_PASSES passes, the passes restart from the best x with
 * its bounds perturbed by +-30 % (seeded by opt->seed); after DZ_RESTARTS
 * restarts the status is SLV_STAGNATED, after opt->max_iter passes
 * SLV_MAX_ITER, each with the best x seen and its residual in the message.
 * A pass that fails (pivot limit, breakdown) returns the better of its
 * partial x and the best point seen before it (the start, for the first
 * pass), by the library residual (keep_better).  On the pyramid's step
 * problems (A positive semidefinite, rank 36 for 108 rows) the boxed passes
 * cycled to the pivot limit on rows driven at w_i = 0 to rounding; such a
 * row now ends its drive (dantzig_drive.c, settle_at_zero).  The method's
 * termination still rests on A positive definite, and on larger pyramids
 * (6 and 10 layers) the outer passes do not settle on some steps.
 * How often that converges on the peers' contact-box instances:
 * experiments/records/2026-11-26-solvers.md.
 */
#include "dantzig.h"

#include <string.h>

/* ---- findex: the friction bounds ----------------------------------------------------- */

/* Bounds of the boxed pass: the stored ones, friction rows -h_i .. h_i. */
void slv_dz_set_bounds(dz_state *s, const double *h) {
  const slv_problem *p = s->p;
  for (int i = 0; i < s->n; i++) {
    if (p->findex && p->findex[i] >= 0) {
      s->lo[i] = -h[i];
      s->hi[i] = h[i];
    } else {
      s->lo[i] = slv_lo_of(p, i);
      s->hi[i] = slv_hi_of(p, i);
    }
  }
}

/* h_i = mu_i |x_j| for the friction rows. */
void slv_dz_bounds_of(const slv_problem *p, const double *x, double *h) {
  for (int i = 0; i < p->n; i++)
    h[i] = (p->findex && p->findex[i] >= 0) ? p->mu[i] * fabs(x[p->findex[i]]) : 0.0;
}

/* Newton step on the friction bounds.  The last pass left C (w_C = 0) and
 * N (x at a bound).  Keep that active set but let a friction row r at its
 * bound follow its normal j: x_r = sigma_r mu_r |x_j|, sigma_r = +1 at hi,
 * -1 at lo.  With x = E x_C + f (E: identity on C plus, in the column of a
 * clamped normal j, sigma_r mu_r sgn(x_j) at each of its friction rows at a
 * bound; f: the other N rows at their values, friction rows of a non-clamped
 * normal at sigma_r mu_r |x_j|), w_C = 0 reads
 *     G x_C = -(b + A f)_C,   G = A(C,:) E = A_CC + sum_r c_r A(C,r) e_slot(j)^T,
 * a non-symmetric k x k system (LU, dgetrf).  This is the exact solution when
 * the active set is right: the fixed point of the bounds on this piece of
 * the piecewise-affine map h -> mu |x_n(h)|.  Writes the point to xn;
 * returns 0 if G is singular (pivot <= ptol). */
static int newton_findex(dz_state *s, const double *x, double *xn) {
  const slv_problem *p = s->p;
  int n = s->n, k = s->k;
  double *G = s->M; /* free between passes (rebuilt by the next one) */
  for (int i = 0; i < n; i++) xn[i] = s->st[i] == ST_C ? 0.0 : x[i];
  for (int q = 0; q < k; q++) {
    const double *a = s->A + (size_t)slv_dz_slot_row(s, q) * s->lda;
    double *g = G + (size_t)q * k;
    for (int r = 0; r < k; r++) g[r] = a[slv_dz_slot_row(s, r)];
  }
  for (int r = 0; r < n; r++) {
    if (!p->findex || p->findex[r] < 0 || (s->st[r] != ST_LO && s->st[r] != ST_HI)) continue;
    int j = p->findex[r];
    double sig = s->st[r] == ST_HI ? 1.0 : -1.0;
    if (s->lo[r] == s->hi[r]) sig = x[r] >= 0 ? 1.0 : -1.0;
    if (s->st[j] != ST_C) {
      xn[r] = sig * p->mu[r] * fabs(x[j]);
      continue;
    }
    double c = sig * p->mu[r] * (x[j] >= 0 ? 1.0 : -1.0);
    xn[r] = 0;
    int qj = s->pos_slot[s->iperm[j]];
    const double *a = s->A + (size_t)r * s->lda;
    double *g = G + (size_t)qj * k;
    for (int q = 0; q < k; q++) g[q] += c * a[slv_dz_slot_row(s, q)];
  }
  /* rhs = -(A f + b)_C */
  slv_dz_full_w(s, xn, s->tmp);
  double *u = s->y;
  for (int q = 0; q < k; q++) u[q] = -s->tmp[slv_dz_slot_row(s, q)];
  if (k > 0) {
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, k, k, G, k, s->ipiv);
    if (info != 0) return 0;
    for (int q = 0; q < k; q++)
      if (!(fabs(G[q + (size_t)q * k]) > s->ptol)) return 0;
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', k, 1, G, k, s->ipiv, u, k);
  }
  for (int q = 0; q < k; q++) xn[slv_dz_slot_row(s, q)] = u[q];
  for (int r = 0; r < n; r++) {
    if (!p->findex || p->findex[r] < 0 || (s->st[r] != ST_LO && s->st[r] != ST_HI)) continue;
    int j = p->findex[r];
    if (s->st[j] != ST_C) continue;
    double sig = s->st[r] == ST_HI ? 1.0 : -1.0;
    if (s->lo[r] == s->hi[r]) sig = x[r] >= 0 ? 1.0 : -1.0;
    xn[r] = sig * p->mu[r] * (x[j] >= 0 ? 1.0 : -1.0) * xn[j];
  }
  return slv_all_finite(n, xn);
}

/* The outer passes on the friction bounds: the accepted pass (xa,
 * residual r, clamped set cacc[0..macc)), the best x (xb, best). */
typedef struct {
  double r, best;
  int stall, macc, kicks, stalled;
  unsigned long long rng;
} outer;

/* The pass just run (x, residual r) becomes the accepted one. */
static void accept_pass(dz_state *s, outer *o, const double *x) {
  o->macc = slv_dz_clamped_as_cand(s);
  memcpy(s->cacc, s->cand, (size_t)o->macc * sizeof *s->cacc);
  memcpy(s->xa, x, (size_t)s->n * sizeof *x);
}

/* A boxed pass from the accepted clamped set and x = xa, with the friction
 * bounds of xc (h = mu |xc_n|); *rt its residual. */
static slv_status pass_from(dz_state *s, const outer *o, const double *xc, double *x, double *w,
                            slv_result *res, double *rt) {
  slv_dz_bounds_of(s->p, xc, s->hN);
  memcpy(x, s->xa, (size_t)s->n * sizeof *x);
  memcpy(s->cand, s->cacc, (size_t)o->macc * sizeof *s->cand);
  return slv_dz_pass_eval(s, s->hN, x, w, o->macc, res, rt);
}

/* One outer step: the Newton point of the accepted active set
 * (newton_findex) if it already meets tol, else a pass with its bounds,
 * kept if it beats r; else the fixed-point pass, bounds h = mu |xa_n|.
 * Returns SLV_CONVERGED when done (*done), SLV_OK to go on (*rt: the new
 * pass's residual; *rt = INFINITY when max_iter stopped it), or a
 * failure. */
static slv_status outer_step(dz_state *s, outer *o, const slv_options *opt, double *x, double *w,
                             slv_result *res, double *rt, int *done) {
  int accepted = 0;
  slv_status sts;
  *rt = INFINITY;
  *done = 0;
  if (newton_findex(s, s->xa, x)) {
    slv_dz_full_w(s, x, w);
    slv_residuals rn = slv_residual(s->p, x, w);
    if (slv_met(s->p, opt, &rn)) {
      res->solver_residual = rn.res_scaled;
      *done = 1;
      return SLV_CONVERGED;
    }
    if ((sts = pass_from(s, o, x, x, w, res, rt)) != SLV_CONVERGED) return sts;
    if (*rt <= opt->tol) return *done = 1, SLV_CONVERGED;
    accepted = *rt < o->r;
  }
  if (!accepted) {
    if (res->iterations >= opt->max_iter) return *rt = -1, SLV_OK;
    if ((sts = pass_from(s, o, s->xa, x, w, res, rt)) != SLV_CONVERGED) return sts;
    if (*rt <= opt->tol) return *done = 1, SLV_CONVERGED;
  }
  return SLV_OK;
}

/* After DZ_STALL_PASSES passes without a 10 % gain: restart from the best
 * x with its bounds scaled by 1 +- 0.3 (64-bit LCG seeded by opt->seed):
 * it leaves the cycle the passes were caught in, and rescues about a third
 * of them. */
static slv_status restart_pass(dz_state *s, outer *o, const slv_options *opt, double *x, double *w,
                               slv_result *res, int *done) {
  o->kicks++;
  o->stall = 0;
  slv_dz_bounds_of(s->p, s->xb, s->hN);
  for (int i = 0; i < s->n; i++) {
    o->rng = o->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = (double)(o->rng >> 11) / 9007199254740992.0;
    s->hN[i] *= 1 + 0.6 * (u - 0.5);
  }
  memcpy(x, s->xb, (size_t)s->n * sizeof *x);
  slv_status sts = slv_dz_pass_eval(s, s->hN, x, w, 0, res, &o->r);
  if (sts != SLV_CONVERGED) return sts;
  if (o->r <= opt->tol) return *done = 1, SLV_CONVERGED;
  accept_pass(s, o, x);
  if (o->r < o->best) {
    o->best = o->r;
    memcpy(s->xb, x, (size_t)s->n * sizeof *x);
  }
  return SLV_OK;
}

/* findex: outer passes on the friction bounds h from the first pass (x,
 * residual r).  Each step first tries the Newton point of the accepted
 * active set, then the fixed point (outer_step); stalls restart
 * (restart_pass).  The best x seen is returned when the passes end
 * without convergence. */
slv_status slv_dz_findex_passes(dz_state *s, const slv_options *opt, double r, double *x, double *w,
                                slv_result *res) {
  int n = s->n, done = 0;
  outer o = { .r = r, .best = r, .rng = opt->seed * 0x9E3779B97F4A7C15ULL + 1 };
  accept_pass(s, &o, x);
  memcpy(s->xb, x, (size_t)n * sizeof *x);
  while (res->iterations < opt->max_iter) {
    double rt;
    slv_status sts = outer_step(s, &o, opt, x, w, res, &rt, &done);
    if (done) return sts;
    if (sts != SLV_OK) { /* a failed pass: keep the best x seen */
      if (sts != SLV_NOT_FINITE) slv_dz_keep_better(s, x, w, s->xb, o.best, res);
      return sts;
    }
    if (rt < 0) break; /* max_iter reached before the fixed-point pass */
    o.r = rt;
    accept_pass(s, &o, x);
    if (o.r < o.best) memcpy(s->xb, x, (size_t)n * sizeof *x);
    if (o.r < 0.9 * o.best) {
      o.best = o.r;
      o.stall = 0;
      continue;
    }
    o.best = fmin(o.best, o.r);
    if (++o.stall < DZ_STALL_PASSES) continue;
    if (o.kicks < DZ_RESTARTS && res->iterations < opt->max_iter) {
      sts = restart_pass(s, &o, opt, x, w, res, &done);
      if (done) return sts;
      if (sts != SLV_OK) {
        if (sts != SLV_NOT_FINITE) slv_dz_keep_better(s, x, w, s->xb, o.best, res);
        return sts;
      }
      continue;
    }
    o.stalled = o.kicks == DZ_RESTARTS;
    break;
  }
  memcpy(x, s->xb, (size_t)n * sizeof *x);
  res->solver_residual = o.best;
  if (o.stalled)
    slv_msgf(res->message, sizeof res->message,
             "dantzig: findex bounds did not settle: no 10%% gain in %d passes, %d restarts, "
             "%d passes in all; best res_scaled=%.3g > tol=%.3g; exact: --solver lemke",
             DZ_STALL_PASSES, DZ_RESTARTS, res->iterations, o.best, opt->tol);
  else
    slv_msgf(res->message, sizeof res->message,
             "dantzig: findex bounds not settled in max_iter=%d passes: best res_scaled=%.3g > "
             "tol=%.3g",
             opt->max_iter, o.best, opt->tol);
  return o.stalled ? SLV_STAGNATED : SLV_MAX_ITER;
}
