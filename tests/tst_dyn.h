/* tst_dyn.h -- random poses for the libdynamics tests (header only: static
 * inline, so that the libsolvers tests need not link libdynamics).
 *
 * All draws come from the caller's GSL generator (mt19937, fixed seed), so a
 * failing case is reproducible.
 */
#ifndef TST_DYN_H
#define TST_DYN_H

#include <gsl/gsl_rng.h>

#include "dyn_math.h"

/* Uniform in [lo, hi). */
static inline double tst_urand(gsl_rng *r, double lo, double hi) {
  return lo + (hi - lo) * gsl_rng_uniform(r);
}

/* A vector with components uniform in [-s, s). */
static inline dyn_v3 tst_rvec(gsl_rng *r, double s) {
  return dyn_v3_make(tst_urand(r, -s, s), tst_urand(r, -s, s), tst_urand(r, -s, s));
}

/* A unit vector, uniform on the sphere (rejection from the unit ball,
 * away from the origin). */
static inline dyn_v3 tst_runit(gsl_rng *r) {
  for (;;) {
    dyn_v3 v = tst_rvec(r, 1);
    double l = dyn_v3_norm(v);
    if (l > 0.1 && l < 1) return dyn_v3_scale(v, 1 / l);
  }
}

/* A random unit quaternion (normalised uniform 4-vector). */
static inline dyn_quat tst_rquat(gsl_rng *r) {
  return dyn_quat_normalize(dyn_quat_make(tst_urand(r, -1, 1), tst_urand(r, -1, 1),
                                          tst_urand(r, -1, 1), tst_urand(r, -1, 1)));
}

/* q advanced by the world rotation vector phi: exp(phi/2) q (the
 * perturbation of the central differences). */
static inline dyn_quat tst_rotate_by(dyn_quat q, dyn_v3 phi) {
  double a = dyn_v3_norm(phi);
  if (a == 0) return q;
  return dyn_quat_mul(dyn_quat_axis_angle(dyn_v3_scale(phi, 1 / a), a), q);
}

#endif
