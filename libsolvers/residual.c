/* residual.c -- the accuracy measures every solver is judged by (DESIGN.md).
 *
 * Computed from (A, b, lo, hi, findex, mu, cones, x) alone, never taken
 * from a solver.  With w = A x + b:
 *
 *   natural map, per box row:   r_i = mid(x_i - hi_i, w_i, x_i - lo_i)
 *                                   = max(x_i - hi_i, min(w_i, x_i - lo_i))
 *     which equals x_i - mid(lo_i, hi_i, x_i - w_i) in exact arithmetic but
 *     does not cancel to 0 for a wrong x of size 1e16.  findex rows use the
 *     bounds -mu_i |x_j| .. mu_i |x_j| at the final x.
 *   per cone (rows c, c+1, c+2: normal, t1, t2):
 *     r_c = x_c - P_K(x_c - w^_c), measured by its largest component, with
 *     w^_c = w_c + (mu |w_t|, 0, 0) for Coulomb's law (De Saxce) and
 *     w^_c = w_c for the associated cone (slv.h, slv_cone_law).
 *   merit_fclib (cones only) = sqrt(sum_c |x_c - P_K(x_c - w^_c)|^2) with the
 *     De Saxce w^ always, / (1 + sqrt(||b||_2)): FCLIB's MERIT_1.
 *   res_nat_inf = ||r||_inf,   res_rel = res_nat_inf / max(1, ||b||_inf)
 *   res_rel_2 = ||r||_2 / max(1, ||b||_2) (r over every row, cone rows by
 *            their three components for the problem's law)
 *   compl  = sum_i |w_i^+ (x_i - lo_i)| (lo finite) + |w_i^- (hi_i - x_i)| (hi finite);
 *            cones add |x_c . w_c|
 *   infeas = max_i max(0, lo_i - x_i, x_i - hi_i); cones: max(0, |x_t| - mu x_n)
 *   contact (cones only, else NaN): ContactBench's criteria, metrics.c
 * A NaN or Inf anywhere in x or w makes every measure NaN, so no comparison
 * with a tolerance can pass.
 */
#include "slv_internal.h"

static int in_cone_rows(const slv_problem *p, int i, int *k) {
  /* cones are sorted (validated): advance *k monotonically */
  while (*k < p->ncones && p->cone_rows[*k] + 2 < i) (*k)++;
  return *k < p->ncones && p->cone_rows[*k] <= i;
}

/* slv_cone_project with sqrt for hypot (hypot's overflow guard made it the
 * costliest call of a small solve): contact impulses and velocities are far
 * from the 1e154 where the guard matters, and beyond it the square
 * overflows to Inf, which makes res NaN (not finite, never converged). */
static inline void project_fast(double mu, const double *v, double *out) {
  double n = v[0], s = sqrt(v[1] * v[1] + v[2] * v[2]);
  if (s <= mu * n) {
    out[0] = n; out[1] = v[1]; out[2] = v[2];
  } else if (mu * s <= -n) {
    out[0] = out[1] = out[2] = 0.0;
  } else {
    double np = (n + mu * s) / (1.0 + mu * mu), k = s > 0 ? mu * np / s : 0.0;
    out[0] = np; out[1] = k * v[1]; out[2] = k * v[2];
  }
}

slv_residuals slv_residual(const slv_problem *p, const double *x, const double *w) {
  slv_residuals r = {0, 0, 0, 0, 0, 0, NAN, slv_contact_metrics_nan()};
  int n = p->n;
  for (int i = 0; i < n; i++)
    if (fabs(p->b[i]) > r.b_inf) r.b_inf = fabs(p->b[i]);
  if (n == 0) return r;

  int finite = slv_all_finite(n, x) && (!w || slv_all_finite(n, w));
  if (!finite) {
    r.res_nat_inf = r.res_rel = r.res_rel_2 = r.compl = r.infeas = NAN;
    return r;
  }
  double res = 0, compl = 0, infeas = 0, merit2 = 0, ss = 0;
  int k = 0;
  if (p->ncones > 0) r.contact = slv_contact_metrics_zero(); /* maxima over the cones */
  if (!w && p->storage == SLV_FACTORED) slv_factored_ktx(p, x, p->fwork); /* for slv_row_dot */
  for (int i = 0; i < n; i++) {
    double wi = w ? w[i] : slv_row_dot(p, i, x) + p->b[i];
    if (p->ncones > 0 && in_cone_rows(p, i, &k)) {
      if (i != p->cone_rows[k]) continue; /* handled with its normal row */
      double mu = p->cone_mu[k], v[3], pr[3], ww[3];
      for (int c = 0; c < 3; c++)
        ww[c] = w ? w[i + c] : slv_row_dot(p, i + c, x) + p->b[i + c];
      /* De Saxce: w^ = w + (mu |w_t|, 0, 0) */
      double shift = mu * sqrt(ww[1] * ww[1] + ww[2] * ww[2]);
      double m2 = 0;
      for (int law = 0; law < 2; law++) {
        /* law 0: the De Saxce map (merit_fclib, and res for Coulomb);
         * law 1: the associated map, only when that is the problem's law */
        if (law == 1 && p->cone_law != SLV_CONE_ASSOCIATED) break;
        double s0 = law == 0 ? shift : 0.0;
        v[0] = x[i] - (ww[0] + s0);
        v[1] = x[i + 1] - ww[1];
        v[2] = x[i + 2] - ww[2];
        project_fast(mu, v, pr);
        double d0 = x[i] - pr[0], d1 = x[i + 1] - pr[1], d2 = x[i + 2] - pr[2];
        if (law == 0) m2 = d0 * d0 + d1 * d1 + d2 * d2;
        double ri = fmax(fabs(d0), fmax(fabs(d1), fabs(d2)));
        if (p->cone_law == (law == 0 ? SLV_CONE_COULOMB : SLV_CONE_ASSOCIATED)) {
          res = fmax(res, ri);
          ss += d0 * d0 + d1 * d1 + d2 * d2;
          compl += fabs(x[i] * (ww[0] + s0) + x[i + 1] * ww[1] + x[i + 2] * ww[2]);
        }
      }
      merit2 += m2;
      slv_contact_metrics_add(&r.contact, mu, x + i, ww);
      infeas = fmax(infeas, sqrt(x[i + 1] * x[i + 1] + x[i + 2] * x[i + 2]) - mu * x[i]);
      continue;
    }
    double lo, hi;
    slv_bounds_at(p, x, i, &lo, &hi);
    /* x and w are finite here, so plain comparisons are exact (and much
     * cheaper than fmax/fmin, which this loop runs once per sweep) */
    double ri = slv_mid_res(x[i], wi, lo, hi);
    if (ri > res) res = ri;
    ss += ri * ri;
    /* |w_i (x_i - lo_i)| where w_i > 0 and lo_i finite, |w_i (hi_i - x_i)|
     * where w_i < 0 and hi_i finite: as selects, since the sign of w_i is
     * a coin toss on friction rows (a branch here mispredicted every other
     * row) */
    double wp = wi > 0 ? wi : 0.0, wn = wi < 0 ? wi : 0.0;
    double gl = lo > -INFINITY ? x[i] - lo : 0.0, gh = hi < INFINITY ? hi - x[i] : 0.0;
    compl += fabs(wp * gl) + fabs(wn * gh);
    if (lo - x[i] > infeas) infeas = lo - x[i];
    if (x[i] - hi > infeas) infeas = x[i] - hi;
  }
  if (!isfinite(res)) res = NAN;
  r.res_nat_inf = res;
  r.res_rel = res / fmax(1.0, r.b_inf);
  {
    double bn2 = 0;
    for (int i = 0; i < n; i++) bn2 += p->b[i] * p->b[i];
    r.res_rel_2 = isnan(res) ? NAN : sqrt(ss) / fmax(1.0, sqrt(bn2));
  }
  r.compl = compl;
  r.infeas = fmax(0.0, infeas);
  if (p->ncones > 0) {
    double bn = 0;
    for (int i = 0; i < n; i++) bn += p->b[i] * p->b[i];
    r.merit_fclib = sqrt(merit2) / (1.0 + sqrt(sqrt(bn)));
  }
  return r;
}

double slv_factored_start_res(const slv_problem *p, const double *x, double *b_inf) {
  /* slv_residual's box-row measure, fused with slv_problem_w's w_i: the
   * solvers that start with it pass over J once instead of over J, w, x,
   * b (twice) and w again */
  slv_factored_ktx(p, x, p->fwork);
  double res = 0, bmax = 0, poison = 0;
  for (int i = 0; i < p->n; i++) {
    double wi = p->b[i] + slv_factored_row(p, i, p->fwork, x[i]), lo, hi;
    poison += (x[i] + wi) * 0.0; /* NaN iff x_i or w_i is NaN or Inf */
    if (fabs(p->b[i]) > bmax) bmax = fabs(p->b[i]);
    slv_bounds_at(p, x, i, &lo, &hi);
    double ri = slv_mid_res(x[i], wi, lo, hi);
    if (ri > res) res = ri;
  }
  *b_inf = bmax;
  return poison == 0.0 ? res / fmax(1.0, bmax) : NAN;
}

double slv_natmap_norms(const slv_problem *p, const double *x, const double *w, double *n2) {
  int assoc = p->cone_law == SLV_CONE_ASSOCIATED;
  double m = 0, poison = 0, ss = 0;
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    poison += (x[i] + w[i]) * 0.0; /* NaN iff x_i or w_i is NaN or Inf */
    if (k < p->ncones && p->cone_rows[k] == i) {
      double mu = p->cone_mu[k];
      double sh = assoc ? 0.0 : mu * sqrt(w[i + 1] * w[i + 1] + w[i + 2] * w[i + 2]);
      double v[3] = {x[i] - (w[i] + sh), x[i + 1] - w[i + 1], x[i + 2] - w[i + 2]}, pr[3];
      project_fast(mu, v, pr);
      for (int r = 0; r < 3; r++) {
        double d = fabs(x[i + r] - pr[r]);
        if (d > m) m = d;
        ss += d * d;
        poison += (x[i + r] + w[i + r]) * 0.0;
      }
      i += 2;
      k++;
      continue;
    }
    double r = slv_mid_res(x[i], w[i], slv_lo_of(p, i), slv_hi_of(p, i));
    if (r > m) m = r;
    ss += r * r;
  }
  *n2 = sqrt(ss);
  return poison == 0.0 && isfinite(m) ? m : NAN;
}
