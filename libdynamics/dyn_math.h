/*
 * dyn_math.h -- small fixed-size linear algebra for libdynamics: 3-vectors,
 * unit quaternions, 3x3 matrices.  Header-only (static inline), no state.
 *
 * Conventions (fixed once, used by every libdynamics file):
 *   - right-handed world frame, z up, gravity (0, 0, -g);
 *   - dyn_quat q = (w, x, y, z) is the Euler-parameter vector of
 *     docs/dynamics.md, "Rotation and the gyroscopic term"
 *     (e0 = w), unit length, rotating body-frame vectors to the world frame:
 *     v_world = R(q) v_body = q (0, v_body) q^*;
 *   - dyn_m3 is row-major: m[3*i + j] = M(i, j);
 *   - angular velocities are world-frame unless a name ends in _b.
 */
#ifndef DYN_MATH_H
#define DYN_MATH_H

#include <math.h>

typedef struct dyn_v3 {
  double x, y, z;
} dyn_v3;

typedef struct dyn_quat {
  double w, x, y, z;
} dyn_quat;

typedef struct dyn_m3 {
  double m[9];
} dyn_m3;

static inline dyn_v3 dyn_v3_make(double x, double y, double z) {
  dyn_v3 r = { x, y, z };
  return r;
}

static inline dyn_v3 dyn_v3_add(dyn_v3 a, dyn_v3 b) {
  return dyn_v3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline dyn_v3 dyn_v3_sub(dyn_v3 a, dyn_v3 b) {
  return dyn_v3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline dyn_v3 dyn_v3_scale(dyn_v3 a, double s) {
  return dyn_v3_make(s * a.x, s * a.y, s * a.z);
}

/* a + s b */
static inline dyn_v3 dyn_v3_axpy(dyn_v3 a, double s, dyn_v3 b) {
  return dyn_v3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static inline dyn_v3 dyn_v3_neg(dyn_v3 a) { return dyn_v3_make(-a.x, -a.y, -a.z); }

static inline double dyn_v3_dot(dyn_v3 a, dyn_v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static inline dyn_v3 dyn_v3_cross(dyn_v3 a, dyn_v3 b) {
  return dyn_v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline double dyn_v3_norm(dyn_v3 a) { return sqrt(dyn_v3_dot(a, a)); }

/* a / |a|, or (0,0,0) when |a| == 0 (the caller decides what that means). */
static inline dyn_v3 dyn_v3_normalize(dyn_v3 a) {
  double l = dyn_v3_norm(a);
  return l > 0.0 ? dyn_v3_scale(a, 1.0 / l) : dyn_v3_make(0.0, 0.0, 0.0);
}

static inline dyn_m3 dyn_m3_zero(void) {
  dyn_m3 r = { { 0.0 } };
  return r;
}

static inline dyn_m3 dyn_m3_identity(void) {
  dyn_m3 r = { { 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0 } };
  return r;
}

static inline dyn_m3 dyn_m3_diag(double a, double b, double c) {
  dyn_m3 r = { { a, 0.0, 0.0, 0.0, b, 0.0, 0.0, 0.0, c } };
  return r;
}

/* [a]x, the cross-product matrix: [a]x v = a x v (r^x of docs/contact.md,
 * "Contact Jacobian", third row [-a2, a1, 0]). */
static inline dyn_m3 dyn_m3_skew(dyn_v3 a) {
  dyn_m3 r = { { 0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0 } };
  return r;
}

static inline dyn_v3 dyn_m3_mulv(dyn_m3 M, dyn_v3 v) {
  const double *m = M.m;
  return dyn_v3_make(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                     m[6] * v.x + m[7] * v.y + m[8] * v.z);
}

/* M^T v */
static inline dyn_v3 dyn_m3_tmulv(dyn_m3 M, dyn_v3 v) {
  const double *m = M.m;
  return dyn_v3_make(m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
                     m[2] * v.x + m[5] * v.y + m[8] * v.z);
}

static inline dyn_m3 dyn_m3_mul(dyn_m3 A, dyn_m3 B) {
  dyn_m3 C;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C.m[3 * i + j] =
          A.m[3 * i] * B.m[j] + A.m[3 * i + 1] * B.m[3 + j] + A.m[3 * i + 2] * B.m[6 + j];
  return C;
}

static inline dyn_m3 dyn_m3_transpose(dyn_m3 A) {
  dyn_m3 T;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) T.m[3 * i + j] = A.m[3 * j + i];
  return T;
}

static inline dyn_m3 dyn_m3_add(dyn_m3 A, dyn_m3 B) {
  dyn_m3 C;
  for (int k = 0; k < 9; k++) C.m[k] = A.m[k] + B.m[k];
  return C;
}

static inline dyn_m3 dyn_m3_scale(dyn_m3 A, double s) {
  for (int k = 0; k < 9; k++) A.m[k] *= s;
  return A;
}

static inline double dyn_m3_det(dyn_m3 A) {
  const double *m = A.m;
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
         m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/* A^-1 by the adjugate; *ok = 0 (and the identity returned) when
 * |det| <= 1e-300, i.e. exactly or numerically singular at any scale the
 * bodies of a scene can have, or when det or an entry of the inverse is
 * past double's range (a tensor of 1e227 kg m^2). */
static inline dyn_m3 dyn_m3_inverse(dyn_m3 A, int *ok) {
  const double *m = A.m;
  double d = dyn_m3_det(A);
  if (!(fabs(d) > 1e-300) || !isfinite(d)) {
    if (ok) *ok = 0;
    return dyn_m3_identity();
  }
  dyn_m3 r = { { (m[4] * m[8] - m[5] * m[7]) / d, (m[2] * m[7] - m[1] * m[8]) / d,
                 (m[1] * m[5] - m[2] * m[4]) / d, (m[5] * m[6] - m[3] * m[8]) / d,
                 (m[0] * m[8] - m[2] * m[6]) / d, (m[2] * m[3] - m[0] * m[5]) / d,
                 (m[3] * m[7] - m[4] * m[6]) / d, (m[1] * m[6] - m[0] * m[7]) / d,
                 (m[0] * m[4] - m[1] * m[3]) / d } };
  int fin = 1; /* cofactors past double's range give inf / inf */
  for (int k = 0; k < 9; k++) fin = fin && isfinite(r.m[k]);
  if (ok) *ok = fin;
  return fin ? r : dyn_m3_identity();
}

static inline dyn_quat dyn_quat_make(double w, double x, double y, double z) {
  dyn_quat q = { w, x, y, z };
  return q;
}

static inline dyn_quat dyn_quat_identity(void) { return dyn_quat_make(1.0, 0.0, 0.0, 0.0); }

/* Hamilton product a b. */
static inline dyn_quat dyn_quat_mul(dyn_quat a, dyn_quat b) {
  return dyn_quat_make(
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

static inline dyn_quat dyn_quat_conj(dyn_quat q) { return dyn_quat_make(q.w, -q.x, -q.y, -q.z); }

static inline double dyn_quat_norm(dyn_quat q) {
  return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}

static inline dyn_quat dyn_quat_normalize(dyn_quat q) {
  double l = dyn_quat_norm(q);
  if (!(l > 0.0)) return dyn_quat_identity();
  return dyn_quat_make(q.w / l, q.x / l, q.y / l, q.z / l);
}

/* Rotation by angle (rad) about a unit axis. */
static inline dyn_quat dyn_quat_axis_angle(dyn_v3 axis, double angle) {
  double s = sin(0.5 * angle);
  return dyn_quat_make(cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z);
}

/* R(q), the rotation matrix of a unit quaternion. */
static inline dyn_m3 dyn_quat_to_m3(dyn_quat q) {
  double w = q.w, x = q.x, y = q.y, z = q.z;
  dyn_m3 R = { { 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y),
                 2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x),
                 2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y) } };
  return R;
}

/* R(q) v without forming R. */
static inline dyn_v3 dyn_quat_rotate(dyn_quat q, dyn_v3 v) {
  dyn_v3 u = dyn_v3_make(q.x, q.y, q.z);
  dyn_v3 t = dyn_v3_scale(dyn_v3_cross(u, v), 2.0);
  return dyn_v3_add(dyn_v3_axpy(v, q.w, t), dyn_v3_cross(u, t));
}

/* R(q)^T v */
static inline dyn_v3 dyn_quat_rotate_inv(dyn_quat q, dyn_v3 v) {
  return dyn_quat_rotate(dyn_quat_conj(q), v);
}

#endif /* DYN_MATH_H */
