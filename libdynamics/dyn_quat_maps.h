/*
 * dyn_quat_maps.h -- private: the linear maps between angular velocity and
 * the time derivative of the Euler parameters (docs/dynamics.md, "Rotation
 * and the gyroscopic term": G(e), L(q)).  Header-only, static inline, no state.  Never installed.
 *
 * Convention (dyn_math.h): q = (w, x, y, z) = (e0, e1, e2, e3), unit,
 * Hamilton product, body -> world: v_world = q (0, v_body) q^*.  With the
 * world angular velocity w and the body one w_b = R(q)^T w:
 *
 *   dq/dt = 1/2 (0, w) q      = L(q) w,    L(q)  = 1/2 E(q)^T   (4x3)
 *   dq/dt = 1/2 q (0, w_b)    = Lb(q) w_b, Lb(q) = 1/2 G(q)^T   (4x3)
 *   w_b = 2 G(q) dq/dt,        w = 2 E(q) dq/dt                  (3x4)
 *
 *          [ -e1  e0  e3 -e2 ]            [ -e1  e0 -e3  e2 ]
 *   G(e) = [ -e2 -e3  e0  e1 ]     E(e) = [ -e2  e3  e0 -e1 ]
 *          [ -e3  e2 -e1  e0 ]            [ -e3 -e2  e1  e0 ]
 *
 * Under this convention G is exactly the matrix of docs/dynamics.md, and
 * its "w_bar = 2 G(e) de/dt" holds with w_bar the body-frame angular
 * velocity.  (G is often given only "up to sign and ordering": the other
 * conventions -- scalar last, the
 * JPL product, a world -> body q -- permute the columns or flip the signs of
 * e1..e3.)  docs/dynamics.md's L(q) = diag(I, G^T/2) takes the body-frame w_bar; our
 * bodies store the world w, for which the block is E^T/2; both are given.
 * For unit q the rows of G and of E are orthonormal and orthogonal to q:
 * G G^T = E E^T = I3, G q = E q = 0, and E^T w = G^T (R^T w).
 * tests/test_body.c checks dq/dt = L(q) w and = Lb(q) w_b against central
 * finite differences of the exact rotation q(t) = exp(t (0,w)/2) q0.
 *
 * Matrices are plain row-major double arrays: L, Lb are 4x3 (L[3 i + j]),
 * G, E are 3x4 (G[4 i + j]).
 */
#ifndef DYN_QUAT_MAPS_H
#define DYN_QUAT_MAPS_H

#include "dyn_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* G(q), 3x4 row-major: w_b = 2 G(q) dq/dt (docs/dynamics.md's G). */
static inline void dyn_quat_G(dyn_quat q, double G[12]) {
  const double e0 = q.w, e1 = q.x, e2 = q.y, e3 = q.z;
  const double g[12] = { -e1, e0, e3, -e2, -e2, -e3, e0, e1, -e3, e2, -e1, e0 };
  for (int k = 0; k < 12; k++) G[k] = g[k];
}

/* E(q), 3x4 row-major: w (world) = 2 E(q) dq/dt. */
static inline void dyn_quat_E(dyn_quat q, double E[12]) {
  const double e0 = q.w, e1 = q.x, e2 = q.y, e3 = q.z;
  const double m[12] = { -e1, e0, -e3, e2, -e2, e3, e0, -e1, -e3, -e2, e1, e0 };
  for (int k = 0; k < 12; k++) E[k] = m[k];
}

/* L(q) = E(q)^T / 2, 4x3 row-major: dq/dt = L(q) w, w world. */
static inline void dyn_quat_L(dyn_quat q, double L[12]) {
  double E[12];
  dyn_quat_E(q, E);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) L[3 * i + j] = 0.5 * E[4 * j + i];
}

/* Lb(q) = G(q)^T / 2, 4x3 row-major: dq/dt = Lb(q) w_b, w_b body frame
 * (docs/dynamics.md's block of L(q)). */
static inline void dyn_quat_Lb(dyn_quat q, double Lb[12]) {
  double G[12];
  dyn_quat_G(q, G);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) Lb[3 * i + j] = 0.5 * G[4 * j + i];
}

/* M v for a 4x3 row-major M, as a quaternion (w, x, y, z). */
static inline dyn_quat dyn_quat_map_mulv(const double M[12], dyn_v3 v) {
  return dyn_quat_make(M[0] * v.x + M[1] * v.y + M[2] * v.z, M[3] * v.x + M[4] * v.y + M[5] * v.z,
                       M[6] * v.x + M[7] * v.y + M[8] * v.z,
                       M[9] * v.x + M[10] * v.y + M[11] * v.z);
}

#ifdef __cplusplus
}
#endif

#endif /* DYN_QUAT_MAPS_H */
