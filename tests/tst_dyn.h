/* tst_dyn.h -- random poses for the libdynamics tests (header only: static
 * inline, so that the libsolvers tests need not link libdynamics).
 *
 * All draws come from the caller's GSL generator (mt19937, fixed seed), so a
 * failing case is reproducible.
 */
#ifndef TST_DYN_H
#define TST_DYN_H

#include <gsl/gsl_rng.h>
#include <string.h>

#include "dyn.h"
#include "dyn_math.h"
#include "tst_body.h"

/* Bodies filled by hand (not by dyn_body_init, whose checks are tested
 * elsewhere): a solid box of half extents (a, b, c), I = m/3 diag(b^2 + c^2,
 * a^2 + c^2, a^2 + b^2), and a solid sphere, I = 2/5 m R^2. */
static inline tst_body tst_box_body(double m, dyn_v3 half, dyn_v3 r, dyn_quat q) {
  tst_body b;
  memset(&b, 0, sizeof b);
  double a2 = half.x * half.x, b2 = half.y * half.y, c2 = half.z * half.z;
  b.mass = m;
  b.inv_mass = 1.0 / m;
  b.I_b = dyn_m3_diag(m / 3 * (b2 + c2), m / 3 * (a2 + c2), m / 3 * (a2 + b2));
  b.inv_I_b = dyn_m3_diag(3 / (m * (b2 + c2)), 3 / (m * (a2 + c2)), 3 / (m * (a2 + b2)));
  b.shape.kind = DYN_SHAPE_BOX;
  b.shape.half = half;
  b.r = r;
  b.q = dyn_quat_normalize(q);
  return b;
}

static inline tst_body tst_ball_body(double m, double R, dyn_v3 r) {
  tst_body b;
  memset(&b, 0, sizeof b);
  double Ib = 0.4 * m * R * R;
  b.mass = m;
  b.inv_mass = 1.0 / m;
  b.I_b = dyn_m3_diag(Ib, Ib, Ib);
  b.inv_I_b = dyn_m3_diag(1 / Ib, 1 / Ib, 1 / Ib);
  b.shape.kind = DYN_SHAPE_SPHERE;
  b.shape.radius = R;
  b.r = r;
  b.q = dyn_quat_identity();
  return b;
}

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
