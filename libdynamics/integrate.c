/* integrate.c -- unconstrained time stepping of one rigid body: the velocity
 * update (gravity, external force and torque, gyroscopic term), the
 * position and orientation update, and the three single-body schemes.
 *
 * Equations of motion (docs/dynamics.md, "Rigid bodies"; world frame,
 * R = R(q), I_w = R I_b R^T):
 *     m dv/dt = f_ext + m g,               dr/dt = v
 *     I_w dw/dt + w x (I_w w) = t_ext,     dR/dt = [w]x R,  dq/dt = 1/2 (0,w) q
 *
 * Velocity update over h (dyn_body_update_velocity), in the body frame where
 * I_b is constant: w_b0 = R^T w, t_b = R^T t_ext, and
 *     v+ = v + h (f_ext / m + g)
 *     w+ = w + R (dw_gyro + h I_b^-1 t_b)
 * the external torque always entering as an explicit impulse
 * (docs/dynamics.md, "Rotation and the gyroscopic term", stage 1; Bullet
 * 2.83 btSequentialImpulseConstraintSolver), and
 *   DYN_GYRO_NONE:     dw_gyro = 0                    (I dw/dt = t, games)
 *   DYN_GYRO_EXPLICIT: dw_gyro = -h I_b^-1 (w_b0 x I_b w_b0)
 *   DYN_GYRO_IMPLICIT: implicit Euler for the gyroscopic part ("stage 2"),
 *       F(w_b) = I_b (w_b - w_b0) + h w_b x (I_b w_b) = 0,
 *     with one Newton step from w_b0, where F(w_b0) = h w_b0 x (I_b w_b0):
 *       J = dF/dw_b = I_b + h ([w_b0]x I_b - [I_b w_b0]x)
 *       w_b1 = w_b0 - J^-1 F(w_b0),   dw_gyro = w_b1 - w_b0
 *     (docs/dynamics.md, "Rotation and the gyroscopic term", after Bullet 2.83's
 *     computeGyroscopicImpulseImplicit_Body and E. Catto's "Numerical
 *     Methods" talk, both cited there).  Both stages start from the same
 *     w_b0, as in that derivation (w2 = w1 + dw1 + dw2).
 *   Since w x (I w) is exactly quadratic in w, the Newton residual is
 *   F(w_b1) = h dw x (I_b dw) with dw = w_b1 - w_b0: O(h^3) per step, so
 *   one step keeps implicit Euler's first order.  Exact implicit Euler
 *   dissipates: dotting F = 0 with w_b1, resp. I_b w_b1, and Cauchy-Schwarz
 *   give w1.I w1 <= w0.I w0 and |I w1| <= |I w0|; explicit Euler gains
 *   energy every step, w1.I w1 = w0.I w0 + h^2 |I^-1/2 (w0 x I w0)|^2.
 *   If J is singular (possible only for h |w| of order 1 or more) the
 *   gyroscopic term is skipped for that step rather than produce Inf.
 *   dyn_body_update_gyro (the world step's gyroscopic update, loads and
 *   gravity left out) computes the same bits with a short path for
 *   isotropic bodies (gyro_isotropic; docs/dynamics.md, "Rotation and the
 *   gyroscopic term").
 *
 * Position update over h (dyn_body_update_position): r+ = r + h v, and
 *   DYN_ORIENT_EXP (docs/dynamics.md, "Rotation and the gyroscopic term";
 *     Grassia 1998, "Practical
 *     parameterization of rotations using the exponential map"):
 *       q+ = dq q,   dq = (cos(|w| h/2), sin(|w| h/2) w / |w|),
 *     the exact rotation for a constant world w over the step.  With
 *     x = |w| h / 2, sin(x) w/|w| = (h/2) (sin(x)/x) w, and sin(x)/x is
 *     replaced by its Taylor series 1 - x^2/6 (the derivation's two terms
 *     sin(theta/2) = theta/2 - theta^3/48) for x < 3e-4: the first dropped
 *     term x^4/120 is then below 6.8e-17 < eps/2, i.e. the series is as
 *     accurate as the rounded library value, and w = 0 needs no division.
 *     (Above the threshold sin(x)/x has no cancellation and is used as is.
 *     Bullet's test |w| < 0.001 compares an angular speed, so its switch
 *     depends on the unit of time and not on the angle; ours is on the
 *     dimensionless half angle.)  No clamp on the angle per step.
 *   DYN_ORIENT_LINEAR (dq/dt = L(q) w, one forward-Euler step):
 *       q+ = (q + h/2 (0, w) q) / |q + h/2 (0, w) q|,
 *     which rotates about the right axis by 2 atan(|w| h/2) instead of
 *     |w| h: a lag of (|w| h)^3 / 12 per step, |w|^3 h^2 T / 12 after T.
 *   Both renormalise q, so |q| - 1 stays at rounding level.
 *
 * Single-body schemes (dyn_body_step_free; docs/dynamics.md, "Integrators"):
 *   symplectic Euler: v+ = v + h a(x); x+ = x + h v+     global error O(h)
 *   explicit Euler:   x+ = x + h v;    v+ = v + h a(x)   global error O(h)
 *   position Verlet:  x' = x + h/2 v; v+ = v + h a(x'); x+ = x' + h/2 v+
 *     (drift-kick-drift; its half-step positions obey the Stormer form
 *     x(t+h) = 2x(t) - x(t-h) + a h^2, local error O(h^4), global O(h^2)).
 *     For constant acceleration it
 *     is exact: x+ = x + h v + h^2 a / 2.
 *   Here "x" is (r, q) and "v" is (v, w); a(x) uses the orientation at which
 *   the velocity update is called.  f_ext and t_ext are read, not cleared:
 *   the caller accumulates and clears loads.
 *
 * Limitations: no damping, no sleeping, no angular speed clamp; static
 * bodies are never changed; inputs are not validated (a NaN w gives a NaN
 * q).  Nothing here allocates.
 */
#include "dyn.h"
#include "dyn_internal.h"

#include <math.h>

/* Half angle below which sin(x)/x is taken from its two-term series; see
 * the header comment: (60 eps)^(1/4) = 3.4e-4, rounded down. */
#define DYN_EXP_SERIES_X 3e-4

void dyn_body_update_velocity(const dyn_body_const *bc, dyn_body_state *b, double h, dyn_v3 g,
                              dyn_gyro gyro) {
  if (bc->is_static) return;
  /* linear: dv = h (f_ext / m + g) */
  b->v = dyn_v3_axpy(b->v, h, dyn_v3_axpy(g, bc->inv_mass, b->f_ext));

  dyn_quat q = b->q;
  dyn_v3 w_b0 = dyn_quat_rotate_inv(q, b->w);
  dyn_v3 t_b = dyn_quat_rotate_inv(q, b->t_ext);
  /* stage 1: external torque impulse h I_b^-1 t_b (body frame) */
  dyn_v3 dw_b = dyn_v3_scale(dyn_m3_mulv(bc->inv_I_b, t_b), h);

  if (gyro == DYN_GYRO_EXPLICIT) {
    /* -h I_b^-1 (w x I w), evaluated at the start of the step */
    dyn_v3 L_b = dyn_m3_mulv(bc->I_b, w_b0);
    dyn_v3 tau = dyn_v3_cross(w_b0, L_b);
    dw_b = dyn_v3_axpy(dw_b, -h, dyn_m3_mulv(bc->inv_I_b, tau));
  } else if (gyro == DYN_GYRO_IMPLICIT) {
    /* stage 2: one Newton step on F(w_b) = I_b (w_b - w_b0) + h w_b x I_b w_b */
    dyn_v3 L_b = dyn_m3_mulv(bc->I_b, w_b0);
    dyn_v3 F = dyn_v3_scale(dyn_v3_cross(w_b0, L_b), h);
    dyn_m3 J = dyn_m3_add(bc->I_b, dyn_m3_scale(dyn_m3_add(dyn_m3_mul(dyn_m3_skew(w_b0), bc->I_b),
                                                           dyn_m3_scale(dyn_m3_skew(L_b), -1.0)),
                                                h));
    int ok = 0;
    dyn_m3 Jinv = dyn_m3_inverse(J, &ok);
    if (ok) dw_b = dyn_v3_sub(dw_b, dyn_m3_mulv(Jinv, F));
  }
  /* back to the world frame with the orientation at the start of the step */
  b->w = dyn_v3_add(b->w, dyn_quat_rotate(q, dw_b));
}

/* 0 if a's components are finite, else NaN: x - x is 0 for a finite x
 * and NaN for an infinite or NaN one, and a NaN stays in the sum (one
 * test for many numbers, no branch each). */
static double v3_nonfinite(dyn_v3 a) { return (a.x - a.x) + (a.y - a.y) + (a.z - a.z); }

/* 1 iff b's I_b is I times the identity (I > 0 finite, off-diagonals 0,
 * as dyn_m3_diag writes them: spheres, cubes) and its inv_I_b is finite. */
static int isotropic(const dyn_body_const *bc, double *I) {
  *I = dyn_m3_scalar(bc->I_b.m); /* NaN unless I 1 */
  if (!(*I > 0.0)) return 0;
  const double *n = bc->inv_I_b.m;
  double nf = v3_nonfinite(dyn_v3_make(n[0], n[1], n[2])) +
              v3_nonfinite(dyn_v3_make(n[3], n[4], n[5])) +
              v3_nonfinite(dyn_v3_make(n[6], n[7], n[8]));
  return nf == 0.0;
}

/* The implicit gyroscopic step of dyn_body_update_velocity with no loads and
 * no gravity, for an isotropic I_b = I 1, without the matrices; 0 (b
 * untouched) where the bits could differ from it.  The argument: with
 * every input and every kept intermediate finite, the general update's
 * dropped operations are products with an exact zero (a zero of I_b, of
 * [w]x's diagonal, of the zero loads) or sums that add such a zero, so every
 * number it keeps has the value computed here, in the same operations on
 * the same values: L = I_b w_b0 = fl(I w_c); J = I_b + h ([w_b0]x I_b -
 * [L]x) = I 1 (C_ij and [L]x_ij are the same rounded product, their
 * difference 0); det = fl(I fl(I I)) and J^-1 = k 1, k = fl(I I) / det;
 * J^-1 F = fl(k F_c); the torque part h I_b^-1 R^T 0 = 0; dw_b = -k F.
 * Equal values have equal bits except at zero, whose sign an added or
 * multiplied zero can change: a zero of R dw_b then leaves a nonzero or
 * +0 component of w as it is, but not a -0 one (-0 + +-0), which is sent
 * to the general update, as are a singular J and anything not finite. */
static int gyro_isotropic(const dyn_body_const *bc, dyn_body_state *b, double h, double I) {
  dyn_quat q = b->q;
  dyn_v3 w = b->w;
  if (!((h - h) + (q.w - q.w) + v3_nonfinite(dyn_v3_make(q.x, q.y, q.z)) == 0.0)) return 0;
  dyn_v3 w_b0 = dyn_quat_rotate_inv(q, w);
  dyn_v3 L_b = dyn_v3_make(I * w_b0.x, I * w_b0.y, I * w_b0.z);
  dyn_v3 F = dyn_v3_scale(dyn_v3_cross(w_b0, L_b), h);
  double II = I * I, det = I * II;
  if (!(fabs(det) > 1e-300)) return 0; /* dyn_m3_inverse's singular J */
  double k = II / det;
  dyn_v3 dw = dyn_quat_rotate(q, dyn_v3_make(-(k * F.x), -(k * F.y), -(k * F.z)));
  double kept =
      v3_nonfinite(w_b0) + v3_nonfinite(L_b) + v3_nonfinite(F) + (k - k) + v3_nonfinite(dw);
  if (!(kept == 0.0)) return 0;
  if ((w.x == 0.0 && signbit(w.x) && dw.x == 0.0) || (w.y == 0.0 && signbit(w.y) && dw.y == 0.0) ||
      (w.z == 0.0 && signbit(w.z) && dw.z == 0.0))
    return 0;
  const dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  b->v = dyn_v3_axpy(b->v, h, dyn_v3_axpy(zero, bc->inv_mass, zero)); /* v + (+-0): as there */
  b->w = dyn_v3_add(w, dw);
  return 1;
}

void dyn_body_update_gyro(const dyn_body_const *bc, dyn_body_state *b, double h, dyn_gyro gyro) {
  if (bc->is_static) return;
  double I;
  if (gyro == DYN_GYRO_IMPLICIT && isotropic(bc, &I) && gyro_isotropic(bc, b, h, I)) return;
  const dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  dyn_v3 f = b->f_ext, t = b->t_ext;
  b->f_ext = zero;
  b->t_ext = zero;
  dyn_body_update_velocity(bc, b, h, zero, gyro);
  b->f_ext = f;
  b->t_ext = t;
}

dyn_quat dyn_quat_integrate(dyn_quat q, dyn_v3 w, double h, dyn_orient orient) {
  if (orient == DYN_ORIENT_LINEAR) {
    /* q + h/2 (0, w) q, renormalised */
    dyn_quat wq = dyn_quat_mul(dyn_quat_make(0.0, w.x, w.y, w.z), q);
    double s = 0.5 * h;
    return dyn_quat_normalize(
        dyn_quat_make(q.w + s * wq.w, q.x + s * wq.x, q.y + s * wq.y, q.z + s * wq.z));
  }
  /* exponential map: dq = (cos x, (h/2) (sin x / x) w), x = |w| h / 2 */
  double x = 0.5 * dyn_v3_norm(w) * fabs(h);
  double sinc = x < DYN_EXP_SERIES_X ? 1.0 - x * x / 6.0 : sin(x) / x;
  double c = 0.5 * h * sinc;
  dyn_quat dq = dyn_quat_make(cos(x), c * w.x, c * w.y, c * w.z);
  return dyn_quat_normalize(dyn_quat_mul(dq, q));
}

void dyn_body_update_position(const dyn_body_const *bc, dyn_body_state *b, double h,
                              dyn_orient orient) {
  if (bc->is_static) return;
  b->r = dyn_v3_axpy(b->r, h, b->v);
  b->q = dyn_quat_integrate(b->q, b->w, h, orient);
}

void dyn_body_step_free(const dyn_body_const *bc, dyn_body_state *b, double h, dyn_v3 g,
                        dyn_integrator integ, dyn_gyro gyro, dyn_orient orient) {
  if (bc->is_static) return;
  switch (integ) {
  case DYN_INT_EXPLICIT_EULER: {
    /* accelerations at the old state, positions with the old velocities */
    dyn_body_state old = *b;
    dyn_body_update_velocity(bc, &old, h, g, gyro);
    dyn_body_update_position(bc, b, h, orient);
    b->v = old.v;
    b->w = old.w;
    break;
  }
  case DYN_INT_VERLET:
    dyn_body_update_position(bc, b, 0.5 * h, orient);
    dyn_body_update_velocity(bc, b, h, g, gyro);
    dyn_body_update_position(bc, b, 0.5 * h, orient);
    break;
  case DYN_INT_SYMPLECTIC_EULER:
  default:
    dyn_body_update_velocity(bc, b, h, g, gyro);
    dyn_body_update_position(bc, b, h, orient);
    break;
  }
}
