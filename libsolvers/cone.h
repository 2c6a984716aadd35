/* cone.h -- private: the Euclidean projection onto the 3-D Coulomb cone,
 * inline.  Never installed; included by slv_internal.h.  docs/problem.md,
 * "Cones".
 */
#ifndef LCPLAB_SLV_CONE_H
#define LCPLAB_SLV_CONE_H

#include <math.h>

/* The De Saxce shift mu |(t1, t2)| of a cone's normal row under Coulomb's
 * law: w^ = w + (mu |w_t|, 0, 0) [desaxce1991] (docs/problem.md, "Cones").
 * Every solver, residual and measure that shifts takes it from here.
 * sqrt(t1^2 + t2^2), not hypot, as slv_cone_project below (and why). */
static inline double slv_desaxce_shift(double mu, double t1, double t2) {
  return mu * sqrt(t1 * t1 + t2 * t2);
}

/* The same shift with hypot, as the outer De Saxce fixed points of ipm and
 * the cone QP (apgd, pcg_cone) and the sensitivities have always taken it:
 * their iterates depend on its last bits (with the sqrt form, ipm on
 * Rover4516 took 240 iterations instead of 256, and apgd's and
 * pcg_cone's answers moved in their last bits), so they keep it. */
static inline double slv_desaxce_shift_hypot(double mu, double t1, double t2) {
  return mu * hypot(t1, t2);
}

/* Projection of v (n, t1, t2) onto the Coulomb cone K_mu; out may alias v.
 *
 *     K_mu = { (n, t1, t2) : |(t1, t2)| <= mu n },   mu >= 0.
 *
 * Closed form (second-order cone, scaled by mu): with s = |t|,
 *   s <= mu n          -> (n, t)                       (inside K)
 *   mu s <= -n         -> 0                            (inside the polar cone)
 *   otherwise          -> n' = (n + mu s) / (1 + mu^2), t' = mu n' t / s.
 * mu = 0 gives K = { t = 0, n >= 0 }: (max(n, 0), 0, 0), which the same
 * formulas produce; the apex (n = 0, t = 0) is its own projection.
 *
 * Inline: it runs for every contact of every natural-map residual and
 * every projected-gradient iteration; as a call it was 8 % of a 4-contact
 * nsgs solve (Rover4516), inlined the solve took 5 % less.  s = sqrt(t1^2 + t2^2), not hypot:
 * hypot's overflow guard made it the costliest call of the
 * projected-gradient iterations (apgd, pjacobi_cone).  Contact impulses
 * and velocities are far from the 1e154 where the guard matters; beyond
 * it the square overflows to Inf, the result is not finite, and the
 * solvers report SLV_NOT_FINITE, never convergence. */
static inline void slv_cone_project(double mu, const double *v, double *out) {
  double n = v[0], t1 = v[1], t2 = v[2];
  double s = sqrt(t1 * t1 + t2 * t2);
  if (s <= mu * n) {
    out[0] = n;
    out[1] = t1;
    out[2] = t2;
    return;
  }
  if (mu * s <= -n) {
    out[0] = out[1] = out[2] = 0.0;
    return;
  }
  double np = (n + mu * s) / (1.0 + mu * mu);
  double k = s > 0 ? mu * np / s : 0.0;
  out[0] = np;
  out[1] = k * t1;
  out[2] = k * t2;
}

#endif
