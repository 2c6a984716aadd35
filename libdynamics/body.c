/* body.c -- rigid bodies: construction with input validation, inertia
 * tensors of the uniform solids, world-frame inertia, kinetic energy and
 * momenta.
 *
 * State (dyn.h): mass m, body-frame inertia I_b (constant), centre of mass r,
 * orientation q (unit, body -> world, R = R(q)), linear velocity v and
 * angular velocity w, both world frame.
 *
 * World inertia (docs/dynamics.md, "Rigid bodies"):
 *     I_w = R I_b R^T,        I_w^-1 = R I_b^-1 R^T.
 * Kinetic energy and momenta:
 *     T = m |v|^2 / 2 + w . (I_w w) / 2
 *     p = m v,        L_O = r x (m v) + I_w w    (about the world origin).
 * I_w w is evaluated as R (I_b (R^T w)), two quaternion rotations, without
 * forming R.
 *
 * Validation in dyn_body_init: mass finite and > 0; inertia finite,
 * symmetric to 1e-12 relative to its largest entry, positive definite by a
 * 3x3 Cholesky factorisation whose pivots (the ratios of successive leading
 * principal minors, Sylvester's criterion) must exceed 16 eps max_i I(i,i);
 * quaternion finite and nonzero (normalised here); r finite; a PLANE shape
 * only on static bodies (dyn.h).  The stored I_b is the symmetric part
 * (I_b + I_b^T)/2 of the input, so I_b and its inverse are exactly symmetric.
 * Indices in messages are 0-based, I(i,j) = m[3 i + j] (dyn_math.h).
 *
 * Inertia of the uniform solids (principal axes = body axes, about the
 * centre of mass):
 *   sphere, radius a:        I = 2/5 m a^2 (each axis)
 *   box, half extents a,b,c: Ixx = m (b^2 + c^2) / 3, ... (full sides 2a,2b,2c
 *                            in m (Ly^2 + Lz^2) / 12)
 *   capsule: see dyn_inertia_capsule below (cylinder + two hemispheres,
 *   parallel-axis theorem; the same decomposition as ODE's dMassSetCapsule,
 *   whose length is our 2 half_length).
 * These functions do not validate m or the dimensions (a negative mass gives
 * a negative tensor, which dyn_body_init then rejects).
 *
 * Limitations: the triangle inequalities I1 + I2 >= I3 that every physical
 * body satisfies are not checked (an SPD tensor violating them integrates
 * fine, it just is no real solid).  Static bodies have mass 0, I_b = 0,
 * inv_I_b = 0: their kinetic energy and momenta are 0 whatever v and w hold.
 */
#include "dyn.h"
#include "dyn_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Write a formatted message into msg[msgcap] when the caller gave a buffer;
 * always returns DYN_ERR_INPUT so that error paths read `return fail(...)`. */
static dyn_err fail(char *msg, size_t msgcap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dyn_vmsgf(msg, msgcap, fmt, ap);
  va_end(ap);
  return DYN_ERR_INPUT;
}

/* Checks I finite, symmetric and positive definite; on success *Isym is its
 * symmetric part.  Returns DYN_OK or DYN_ERR_INPUT with a message. */
static dyn_err check_inertia(dyn_m3 I, dyn_m3 *Isym, char *msg, size_t msgcap) {
  double amax = 0.0, dmax = 0.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double a = I.m[3 * i + j];
      if (!isfinite(a)) return fail(msg, msgcap, "inertia is not finite (I(%d,%d)=%g)", i, j, a);
      amax = fmax(amax, fabs(a));
    }
  /* Symmetry to 1e-12 relative: a tensor assembled from products of the
   * body's dimensions carries a few ulps of asymmetry at most; anything
   * larger is a wrong input, not rounding. */
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++) {
      double a = I.m[3 * i + j], b = I.m[3 * j + i];
      if (fabs(a - b) > 1e-12 * amax)
        return fail(msg, msgcap, "inertia is not symmetric (I(%d,%d)=%g, I(%d,%d)=%g)", i, j, a, j,
                    i, b);
    }
  dyn_m3 S;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) S.m[3 * i + j] = 0.5 * (I.m[3 * i + j] + I.m[3 * j + i]);
  for (int i = 0; i < 3; i++) dmax = fmax(dmax, S.m[4 * i]);
  /* Cholesky S = C C^T, C lower triangular.  The k-th pivot d_k = C(k,k)^2 is
   * the k-th leading principal minor over the (k-1)-th (Sylvester).  A pivot
   * below 16 eps max_i S(i,i) is within the rounding of the entries: the
   * inverse would have no correct digit in that direction, so it counts as
   * not positive definite.  (dmax <= 0 already fails at k = 0.) */
  double tol = 16.0 * DBL_EPSILON * dmax;
  double C[9] = { 0.0 };
  for (int k = 0; k < 3; k++) {
    double d = S.m[4 * k];
    for (int p = 0; p < k; p++) d -= C[3 * k + p] * C[3 * k + p];
    if (!(d > tol) || !(dmax > 0.0))
      return fail(msg, msgcap,
                  "inertia is not positive definite (I(%d,%d)=%g, Cholesky pivot %d = %g)", k, k,
                  S.m[4 * k], k, d);
    C[4 * k] = sqrt(d);
    for (int i = k + 1; i < 3; i++) {
      double s = S.m[3 * i + k];
      for (int p = 0; p < k; p++) s -= C[3 * i + p] * C[3 * k + p];
      C[3 * i + k] = s / C[4 * k];
    }
  }
  *Isym = S;
  return DYN_OK;
}

dyn_err dyn_body_init(dyn_body_const *bc, dyn_body_state *b, double mass, dyn_m3 I_b,
                      dyn_shape shape, dyn_v3 r, dyn_quat q, char *msg, size_t msgcap) {
  if (msg && msgcap > 0) msg[0] = '\0';
  if (!bc || !b) return fail(msg, msgcap, "body pointer is NULL");
  if (!(mass > 0.0) || !isfinite(mass))
    return fail(msg, msgcap, "mass must be finite and > 0 (mass=%g)", mass);
  if (!isfinite(1.0 / mass))
    return fail(msg, msgcap, "mass=%g has no finite inverse in double precision", mass);
  dyn_m3 S;
  dyn_err e = check_inertia(I_b, &S, msg, msgcap);
  if (e != DYN_OK) return e;
  /* S is SPD with pivots >= 16 eps max diag, so det >= (16 eps)^2 dmax^3 >
   * 1e-300 unless the tensor itself is below ~1e-85 kg m^2. */
  int ok = 0;
  dyn_m3 Sinv = dyn_m3_inverse(S, &ok);
  if (!ok)
    return fail(msg, msgcap, "inertia has no finite inverse in double precision (det=%g)",
                dyn_m3_det(S));
  double qn = dyn_quat_norm(q);
  if (!isfinite(qn))
    return fail(msg, msgcap, "quaternion q is not finite (%g, %g, %g, %g)", q.w, q.x, q.y, q.z);
  if (!(qn > 0.0)) return fail(msg, msgcap, "quaternion q is zero");
  if (!isfinite(r.x) || !isfinite(r.y) || !isfinite(r.z))
    return fail(msg, msgcap, "position r is not finite (%g, %g, %g)", r.x, r.y, r.z);
  if (shape.kind == DYN_SHAPE_PLANE)
    return fail(msg, msgcap, "shape PLANE is allowed on static bodies only");

  memset(bc, 0, sizeof *bc);
  memset(b, 0, sizeof *b);
  bc->mass = mass;
  bc->inv_mass = 1.0 / mass;
  bc->I_b = S;
  /* the adjugate inverse of a symmetric matrix is symmetric up to rounding;
   * make it exactly so, as I_b is */
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++) {
      double s = 0.5 * (Sinv.m[3 * i + j] + Sinv.m[3 * j + i]);
      Sinv.m[3 * i + j] = Sinv.m[3 * j + i] = s;
    }
  bc->inv_I_b = Sinv;
  bc->shape = shape;
  bc->is_static = 0;
  b->r = r;
  b->q = dyn_quat_make(q.w / qn, q.x / qn, q.y / qn, q.z / qn);
  b->v = b->w = b->f_ext = b->t_ext = dyn_v3_make(0.0, 0.0, 0.0);
  return DYN_OK;
}

void dyn_body_init_static(dyn_body_const *bc, dyn_body_state *b, dyn_shape shape, dyn_v3 r,
                          dyn_quat q) {
  memset(bc, 0, sizeof *bc);
  memset(b, 0, sizeof *b);
  bc->mass = bc->inv_mass = 0.0;
  bc->I_b = bc->inv_I_b = dyn_m3_zero();
  bc->shape = shape;
  bc->is_static = 1;
  b->r = r;
  b->q = dyn_quat_normalize(q); /* a zero q becomes the identity */
  b->v = b->w = b->f_ext = b->t_ext = dyn_v3_make(0.0, 0.0, 0.0);
}

void dyn_body_get_state(const dyn_body_state *b, double s[DYN_BODY_STATE]) {
  s[0] = b->r.x, s[1] = b->r.y, s[2] = b->r.z;
  s[3] = b->q.w, s[4] = b->q.x, s[5] = b->q.y, s[6] = b->q.z;
  s[7] = b->v.x, s[8] = b->v.y, s[9] = b->v.z;
  s[10] = b->w.x, s[11] = b->w.y, s[12] = b->w.z;
}

void dyn_body_set_state(dyn_body_state *b, const double s[DYN_BODY_STATE]) {
  b->r = dyn_v3_make(s[0], s[1], s[2]);
  b->q = dyn_quat_make(s[3], s[4], s[5], s[6]);
  b->v = dyn_v3_make(s[7], s[8], s[9]);
  b->w = dyn_v3_make(s[10], s[11], s[12]);
}

dyn_m3 dyn_inertia_sphere(double m, double radius) {
  double I = 0.4 * m * radius * radius;
  return dyn_m3_diag(I, I, I);
}

dyn_m3 dyn_inertia_box(double m, dyn_v3 half) {
  double x2 = half.x * half.x, y2 = half.y * half.y, z2 = half.z * half.z;
  return dyn_m3_diag(m * (y2 + z2) / 3.0, m * (x2 + z2) / 3.0, m * (x2 + y2) / 3.0);
}

/* Capsule of radius a whose axis segment runs from -h to +h on z (h =
 * half_length): a cylinder of length 2h plus a hemisphere on each end.
 * Mass split by volume:
 *     Vc = 2 pi a^2 h,  Vs = 4/3 pi a^3 (the two hemispheres),
 *     mc = m Vc / (Vc + Vs) = m h / (h + 2a/3),  ms = m - mc.
 * Cylinder (about its centre):
 *     Izz_c = mc a^2 / 2,   Ixx_c = mc (3 a^2 + (2h)^2) / 12 = mc (a^2/4 + h^2/3).
 * One hemisphere of mass ms/2: about the centre of its flat face its
 * inertia is half a sphere's, (ms/2) 2/5 a^2 on every axis.  Its centre of
 * mass lies 3a/8 from the face, so by the parallel-axis theorem, about its
 * own centroid Ixx = (ms/2)(2/5 a^2 - (3a/8)^2), and about the capsule's
 * centre, whose distance from the centroid is h + 3a/8,
 *     Ixx = (ms/2) (2/5 a^2 - 9a^2/64 + (h + 3a/8)^2)
 *         = (ms/2) (2/5 a^2 + h^2 + 3 h a / 4).
 * Both hemispheres together:
 *     Ixx_s = ms (2/5 a^2 + h^2 + 3 h a / 4),   Izz_s = 2/5 ms a^2.
 * Check: h = 0 gives the sphere 2/5 m a^2; a = 0 the thin rod m (2h)^2 / 12. */
dyn_m3 dyn_inertia_capsule(double m, double radius, double half_length) {
  double a = radius, h = half_length;
  double den = h + 2.0 * a / 3.0;
  double mc = den > 0.0 ? m * h / den : 0.0;
  double ms = m - mc;
  double Ixx = mc * (a * a / 4.0 + h * h / 3.0) + ms * (0.4 * a * a + h * h + 0.75 * h * a);
  double Izz = mc * a * a / 2.0 + ms * 0.4 * a * a;
  return dyn_m3_diag(Ixx, Ixx, Izz);
}

/* Ellipsoid of semi-axes a: I_xx = m (a_y^2 + a_z^2) / 5 (the unit ball's
 * 2/5 m scaled by x -> A x); cylinder of radius r, height 2h: I_xx = I_yy =
 * m (3 r^2 + (2h)^2) / 12, I_zz = m r^2 / 2. */
dyn_m3 dyn_inertia_ellipsoid(double m, dyn_v3 a) {
  double x = a.x * a.x, y = a.y * a.y, z = a.z * a.z;
  return dyn_m3_diag(m * (y + z) / 5.0, m * (x + z) / 5.0, m * (x + y) / 5.0);
}

dyn_m3 dyn_inertia_cylinder(double m, double radius, double half_length) {
  double r2 = radius * radius, l = 2.0 * half_length;
  double Ixx = m * (3.0 * r2 + l * l) / 12.0;
  return dyn_m3_diag(Ixx, Ixx, m * r2 / 2.0);
}

/* R M R^T for a symmetric M, with R = R(q); M itself when it is s 1
 * (dyn_m3_scalar: a sphere's or cube's), as R (s 1) R^T = s 1 exactly. */
static dyn_m3 rotate_tensor(dyn_quat q, dyn_m3 M) {
  double si = dyn_m3_scalar(M.m);
  if (!isnan(si)) return dyn_m3_diag(si, si, si);
  dyn_m3 R = dyn_quat_to_m3(q);
  dyn_m3 W = dyn_m3_mul(dyn_m3_mul(R, M), dyn_m3_transpose(R));
  /* symmetrise: the two products round differently above and below the
   * diagonal */
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++) {
      double s = 0.5 * (W.m[3 * i + j] + W.m[3 * j + i]);
      W.m[3 * i + j] = W.m[3 * j + i] = s;
    }
  return W;
}

dyn_m3 dyn_body_inertia_world(const dyn_body_const *bc, const dyn_body_state *b) {
  return rotate_tensor(b->q, bc->I_b);
}

dyn_m3 dyn_body_inv_inertia_world(const dyn_body_const *bc, const dyn_body_state *b) {
  return rotate_tensor(b->q, bc->inv_I_b);
}

/* I_w w = R I_b R^T w */
static dyn_v3 world_inertia_times(const dyn_body_const *bc, const dyn_body_state *b, dyn_v3 w) {
  dyn_v3 w_b = dyn_quat_rotate_inv(b->q, w);
  return dyn_quat_rotate(b->q, dyn_m3_mulv(bc->I_b, w_b));
}

double dyn_body_kinetic(const dyn_body_const *bc, const dyn_body_state *b) {
  if (bc->is_static) return 0.0;
  return 0.5 * bc->mass * dyn_v3_dot(b->v, b->v) +
         0.5 * dyn_v3_dot(b->w, world_inertia_times(bc, b, b->w));
}

dyn_v3 dyn_body_linear_momentum(const dyn_body_const *bc, const dyn_body_state *b) {
  if (bc->is_static) return dyn_v3_make(0.0, 0.0, 0.0);
  return dyn_v3_scale(b->v, bc->mass);
}

dyn_v3 dyn_body_angular_momentum(const dyn_body_const *bc, const dyn_body_state *b) {
  if (bc->is_static) return dyn_v3_make(0.0, 0.0, 0.0);
  return dyn_v3_add(dyn_v3_cross(b->r, dyn_v3_scale(b->v, bc->mass)),
                    world_inertia_times(bc, b, b->w));
}
