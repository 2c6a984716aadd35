/* test_body.c -- libdynamics bodies (body.c) and unconstrained integration
 * (integrate.c): inertia tensors against Monte Carlo integration over the
 * solid, world inertia against a rotation done independently, validation
 * of dyn_body_init, free fall and a harmonic oscillator against their exact
 * solutions (order of convergence of the three schemes), the quaternion
 * maps L, Lb, G, E (docs/dynamics.md, "Rotation and the gyroscopic
 * term") and the orientation updates against exact rotations and
 * central differences, the Newton step of the implicit gyroscopic term, the
 * intermediate-axis (Dzhanibekov / tennis racket) instability per gyroscopic
 * option, and conservation of momentum of a free body.
 *
 * Every expected value is derived in the comment above its assertion.
 */
#include "dyn.h"
#include "dyn_internal.h"
#include "dyn_quat_maps.h"
#include "tst_body.h"
#include "tst_util.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double EPS = DBL_EPSILON;

static dyn_shape shape_none(void) {
  dyn_shape s;
  memset(&s, 0, sizeof s);
  s.kind = DYN_SHAPE_NONE;
  return s;
}

static tst_body make_body(double m, dyn_m3 I, dyn_v3 r, dyn_quat q) {
  tst_body b;
  char msg[160];
  memset(&b, 0, sizeof b);
  dyn_err e = tst_body_init(&b, m, I, shape_none(), r, q, msg, sizeof msg);
  if (e != DYN_OK) fprintf(stderr, "dyn_body_init: %s\n", msg);
  CU_ASSERT_EQUAL(e, DYN_OK);
  return b;
}

static double v3_dist(dyn_v3 a, dyn_v3 b) { return dyn_v3_norm(dyn_v3_sub(a, b)); }

static double quat_dist(dyn_quat a, dyn_quat b) {
  return sqrt((a.w - b.w) * (a.w - b.w) + (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) +
              (a.z - b.z) * (a.z - b.z));
}


/* dyn_body_step_free and dyn_body_update_gyro (dyn_internal.h) on a test body. */
static void step_free(tst_body *b, double h, dyn_v3 g, dyn_integrator integ, dyn_gyro gyro,
                      dyn_orient orient) {
  dyn_body_const c = tst_body_c(b);
  dyn_body_state s = tst_body_s(b);
  dyn_body_step_free(&c, &s, h, g, integ, gyro, orient);
  tst_body_join(b, &c, &s);
}

static void update_gyro(tst_body *b, double h, dyn_gyro gyro) {
  dyn_body_const c = tst_body_c(b);
  dyn_body_state s = tst_body_s(b);
  dyn_body_update_gyro(&c, &s, h, gyro);
  tst_body_join(b, &c, &s);
}

/* distance between two rotations given as quaternions (q and -q are the
 * same rotation) */
static double rot_dist(dyn_quat a, dyn_quat b) {
  return fmin(quat_dist(a, b), quat_dist(a, dyn_quat_make(-b.w, -b.x, -b.y, -b.z)));
}

/* rotate v by q through the Hamilton product q (0, v) q^*, independently of
 * dyn_quat_rotate and dyn_quat_to_m3 */
static dyn_v3 rot_by_product(dyn_quat q, dyn_v3 v) {
  dyn_quat p = dyn_quat_mul(dyn_quat_mul(q, dyn_quat_make(0, v.x, v.y, v.z)), dyn_quat_conj(q));
  return dyn_v3_make(p.x, p.y, p.z);
}

/* ---- inertia of the solids against Monte Carlo -------------------------- */

typedef int (*inside_fn)(double x, double y, double z, const double *p);

static int in_sphere(double x, double y, double z, const double *p) {
  return x * x + y * y + z * z <= p[0] * p[0];
}
static int in_box(double x, double y, double z, const double *p) {
  (void)x;
  (void)y;
  (void)z;
  (void)p;
  return 1; /* sampled over the box itself */
}
/* capsule: radius p[0], segment z in [-p[1], p[1]] */
static int in_capsule(double x, double y, double z, const double *p) {
  double a = p[0], h = p[1], rho2 = x * x + y * y;
  if (rho2 > a * a) return 0;
  double dz = fabs(z) - h;
  return dz <= 0 || rho2 + dz * dz <= a * a;
}

/* Monte Carlo estimate of the inertia tensor of a uniform solid of mass m:
 * points uniform in [-B.x,B.x]x[-B.y,B.y]x[-B.z,B.z], kept when inside;
 * I(i,j) = m E[|p|^2 delta_ij - p_i p_j] over the kept points, with its
 * standard error m sd / sqrt(n_kept) in sig. */
static void mc_inertia(inside_fn in, const double *p, dyn_v3 B, double m, long n,
                       unsigned long seed, double I[9], double sig[9]) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  double S[9] = { 0 }, S2[9] = { 0 };
  long kept = 0;
  for (long k = 0; k < n; k++) {
    double x = B.x * (2 * gsl_rng_uniform(rng) - 1);
    double y = B.y * (2 * gsl_rng_uniform(rng) - 1);
    double z = B.z * (2 * gsl_rng_uniform(rng) - 1);
    if (!in(x, y, z, p)) continue;
    kept++;
    double P[3] = { x, y, z }, r2 = x * x + y * y + z * z;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double f = (i == j ? r2 : 0) - P[i] * P[j];
        S[3 * i + j] += f;
        S2[3 * i + j] += f * f;
      }
  }
  for (int k = 0; k < 9; k++) {
    double mean = S[k] / kept, var = fmax(S2[k] / kept - mean * mean, 0);
    I[k] = m * mean;
    sig[k] = m * sqrt(var / kept);
  }
  gsl_rng_free(rng);
}

/* Asserts |I_formula - I_mc| <= 5 sigma entrywise (10^6 points: sigma is
 * ~0.1% of the moments).  With a fixed seed the test is deterministic; 5
 * standard errors would be exceeded by chance with probability 6e-7 per
 * entry.  It also asserts that 5 sigma is below 1% of the trace / 3, so that
 * the test can see the mistakes it guards against (a mass split by length
 * instead of volume, a missing 3a/8 centroid shift, a box with full instead
 * of half extents: each changes some moment by 5% or more here). */
static void check_mc(const char *name, dyn_m3 If, inside_fn in, const double *p, dyn_v3 B, double m,
                     unsigned long seed) {
  double I[9], sig[9];
  mc_inertia(in, p, B, m, 1000000, seed, I, sig);
  double tr = (I[0] + I[4] + I[8]) / 3;
  double worst = 0;
  for (int k = 0; k < 9; k++) {
    CU_ASSERT(5 * sig[k] < 1e-2 * tr);
    TST_CLOSE(If.m[k], I[k], 5 * sig[k], 0);
    worst = fmax(worst, fabs(If.m[k] - I[k]) / sig[k]);
  }
  printf("\n  %s: formula vs Monte Carlo, worst |diff| = %.2f sigma (sigma/I ~ %.1e)", name, worst,
         sig[0] / tr);
}

static void test_inertia_monte_carlo(void) {
  double ps[1] = { 0.7 };
  check_mc("sphere", dyn_inertia_sphere(3.0, 0.7), in_sphere, ps, dyn_v3_make(0.7, 0.7, 0.7), 3.0,
           101);
  dyn_v3 half = dyn_v3_make(0.3, 0.5, 1.1);
  check_mc("box", dyn_inertia_box(2.0, half), in_box, NULL, half, 2.0, 102);
  double pc1[2] = { 0.3, 0.5 }; /* cylinder-dominated */
  check_mc("capsule a=0.3 h=0.5", dyn_inertia_capsule(1.5, 0.3, 0.5), in_capsule, pc1,
           dyn_v3_make(0.3, 0.3, 0.8), 1.5, 103);
  double pc2[2] = { 0.5, 0.15 }; /* hemisphere-dominated */
  check_mc("capsule a=0.5 h=0.15", dyn_inertia_capsule(0.8, 0.5, 0.15), in_capsule, pc2,
           dyn_v3_make(0.5, 0.5, 0.65), 0.8, 104);
  printf("\n");
  /* limits by hand: h = 0 is a sphere 2/5 m a^2; a = 0 a thin rod of length
   * 2h, m (2h)^2 / 12 across, 0 along */
  dyn_m3 s = dyn_inertia_capsule(2.0, 0.5, 0.0);
  TST_CLOSE(s.m[0], 0.4 * 2.0 * 0.25, 0, 4 * EPS);
  TST_CLOSE(s.m[8], 0.4 * 2.0 * 0.25, 0, 4 * EPS);
  dyn_m3 rod = dyn_inertia_capsule(2.0, 0.0, 0.5);
  TST_CLOSE(rod.m[0], 2.0 * 1.0 / 12, 0, 4 * EPS);
  TST_CLOSE(rod.m[8], 0.0, 0, 0);
}

/* ---- world inertia ------------------------------------------------------- */

static void test_world_inertia(void) {
  /* Box, rotated: I_w = sum_k I_k e_k e_k^T with e_k = R e_k^body, the body
   * axes in the world computed by the Hamilton product q (0, e) q^*.  Then
   * I_w u = sum_k I_k (e_k . u) e_k, T = m v^2/2 + sum_k I_k (e_k . w)^2 / 2,
   * L = r x m v + sum_k I_k (e_k . w) e_k. */
  double m = 5.0;
  dyn_m3 Ib = dyn_inertia_box(m, dyn_v3_make(0.2, 0.4, 0.7));
  dyn_quat q = dyn_quat_axis_angle(dyn_v3_normalize(dyn_v3_make(1, 2, -0.5)), 0.9);
  dyn_v3 r = dyn_v3_make(0.5, -1.0, 2.0);
  tst_body b = make_body(m, Ib, r, q);
  b.v = dyn_v3_make(0.3, 0.1, -0.7);
  b.w = dyn_v3_make(1.0, -2.0, 0.5);
  dyn_v3 e[3] = { rot_by_product(q, dyn_v3_make(1, 0, 0)), rot_by_product(q, dyn_v3_make(0, 1, 0)),
                  rot_by_product(q, dyn_v3_make(0, 0, 1)) };
  double Ik[3] = { Ib.m[0], Ib.m[4], Ib.m[8] };
  double Iw_ref[9] = { 0 };
  for (int k = 0; k < 3; k++) {
    double ek[3] = { e[k].x, e[k].y, e[k].z };
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Iw_ref[3 * i + j] += Ik[k] * ek[i] * ek[j];
  }
  dyn_m3 Iw = tst_body_inertia_world(&b);
  double scale = Ik[2]; /* the largest principal moment */
  TST_VEC_CLOSE(Iw.m, Iw_ref, 9, 20 * EPS * scale, 0);
  /* symmetric exactly */
  CU_ASSERT(Iw.m[1] == Iw.m[3] && Iw.m[2] == Iw.m[6] && Iw.m[5] == Iw.m[7]);
  /* I_w u against the sum over axes */
  dyn_v3 u = dyn_v3_make(0.3, -1.1, 0.8), Iu_ref = dyn_v3_make(0, 0, 0);
  for (int k = 0; k < 3; k++) Iu_ref = dyn_v3_axpy(Iu_ref, Ik[k] * dyn_v3_dot(e[k], u), e[k]);
  dyn_v3 Iu = dyn_m3_mulv(Iw, u);
  TST_CLOSE(v3_dist(Iu, Iu_ref), 0, 20 * EPS * scale * dyn_v3_norm(u), 0);
  /* inverse: I_w^-1 I_w = identity; condition number Ik[2]/Ik[0] ~ 4 */
  dyn_m3 P = dyn_m3_mul(tst_body_inv_inertia_world(&b), Iw);
  dyn_m3 Id = dyn_m3_identity();
  TST_VEC_CLOSE(P.m, Id.m, 9, 50 * EPS, 0);
  /* kinetic energy and momenta */
  double T_ref = 0.5 * m * dyn_v3_dot(b.v, b.v);
  dyn_v3 L_ref = dyn_v3_cross(r, dyn_v3_scale(b.v, m));
  for (int k = 0; k < 3; k++) {
    double wk = dyn_v3_dot(e[k], b.w);
    T_ref += 0.5 * Ik[k] * wk * wk;
    L_ref = dyn_v3_axpy(L_ref, Ik[k] * wk, e[k]);
  }
  TST_CLOSE(tst_body_kinetic(&b), T_ref, 0, 20 * EPS);
  TST_CLOSE(v3_dist(tst_body_angular_momentum(&b), L_ref), 0, 20 * EPS * dyn_v3_norm(L_ref), 0);
  dyn_v3 p = tst_body_linear_momentum(&b);
  /* exact in IEEE arithmetic; 4 eps |m v| leaves room for a compiler that
   * contracts p - m v into one fused multiply-add */
  TST_CLOSE(v3_dist(p, dyn_v3_scale(b.v, m)), 0, 4 * EPS * m * dyn_v3_norm(b.v), 0);
}

/* ---- dyn_body_init validation -------------------------------------------- */

static void expect_reject(double m, dyn_m3 I, dyn_quat q, const char *needle1,
                          const char *needle2) {
  tst_body b;
  memset(&b, 0, sizeof b);
  b.mass = 123.0; /* sentinel: a rejected init leaves *b alone */
  char msg[160];
  msg[0] = '\0';
  dyn_err e = tst_body_init(&b, m, I, shape_none(), dyn_v3_make(0, 0, 0), q, msg, sizeof msg);
  CU_ASSERT_EQUAL(e, DYN_ERR_INPUT);
  CU_ASSERT(b.mass == 123.0);
  CU_ASSERT(strlen(msg) > 0);
  if (!strstr(msg, needle1) || (needle2 && !strstr(msg, needle2)))
    fprintf(stderr, "message \"%s\" lacks \"%s\" / \"%s\"\n", msg, needle1, needle2 ? needle2 : "");
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle1));
  if (needle2) CU_ASSERT_PTR_NOT_NULL(strstr(msg, needle2));
  /* no buffer: same status, no crash */
  CU_ASSERT_EQUAL(tst_body_init(&b, m, I, shape_none(), dyn_v3_make(0, 0, 0), q, NULL, 0),
                  DYN_ERR_INPUT);
}

static void test_init_validation(void) {
  dyn_m3 I = dyn_m3_diag(1, 2, 3);
  dyn_quat q1 = dyn_quat_identity();
  expect_reject(0.0, I, q1, "mass", NULL);
  expect_reject(-1.0, I, q1, "mass", NULL);
  expect_reject(NAN, I, q1, "mass", NULL);
  expect_reject(INFINITY, I, q1, "mass", NULL);
  /* diag(1, 2, -1): the third pivot is -1 */
  expect_reject(1.0, dyn_m3_diag(1, 2, -1), q1, "inertia is not positive definite", "I(2,2)=-1");
  /* positive diagonal but indefinite: [[1,2,0],[2,1,0],[0,0,1]] has
   * eigenvalues 3, -1, 1; second Cholesky pivot 1 - 4 = -3 */
  dyn_m3 Ind = { { 1, 2, 0, 2, 1, 0, 0, 0, 1 } };
  expect_reject(1.0, Ind, q1, "positive definite", "pivot 1 = -3");
  /* semidefinite: diag(1, 1, 0) */
  expect_reject(1.0, dyn_m3_diag(1, 1, 0), q1, "positive definite", NULL);
  expect_reject(1.0, dyn_m3_zero(), q1, "positive definite", NULL);
  dyn_m3 Ias = { { 1, 0.1, 0, 0, 1, 0, 0, 0, 1 } };
  expect_reject(1.0, Ias, q1, "inertia is not symmetric", NULL);
  dyn_m3 Inan = dyn_m3_diag(1, NAN, 1);
  expect_reject(1.0, Inan, q1, "inertia is not finite", NULL);
  /* derived quantities past double's range (the wheel scene with radius
   * 3.3e113 built such a body): an inertia whose determinant overflows,
   * one whose inverse does, and a mass whose inverse does */
  expect_reject(1.0, dyn_m3_diag(1.1e227, 3.3e226, 3.3e226), q1, "inertia", "finite inverse");
  expect_reject(1.0, dyn_m3_diag(1e-120, 1e-120, 1e-120), q1, "inertia", "finite inverse");
  expect_reject(1e-310, I, q1, "mass", "finite inverse");
  expect_reject(1.0, I, dyn_quat_make(0, 0, 0, 0), "quaternion", "zero");
  expect_reject(1.0, I, dyn_quat_make(NAN, 0, 0, 1), "quaternion", NULL);

  /* a truncated message stays NUL-terminated inside its buffer */
  tst_body b = { 0 };
  char small[6];
  CU_ASSERT_EQUAL(
      tst_body_init(&b, -1.0, I, shape_none(), dyn_v3_make(0, 0, 0), q1, small, sizeof small),
      DYN_ERR_INPUT);
  CU_ASSERT_EQUAL(strlen(small), 5);

  /* non-finite position */
  char msg0[160];
  CU_ASSERT_EQUAL(
      tst_body_init(&b, 1.0, I, shape_none(), dyn_v3_make(0, INFINITY, 0), q1, msg0, sizeof msg0),
      DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg0, "position r"));

  /* dynamic plane refused (planes are static only, dyn.h) */
  dyn_shape pl = shape_none();
  pl.kind = DYN_SHAPE_PLANE;
  char msg[160];
  CU_ASSERT_EQUAL(tst_body_init(&b, 1.0, I, pl, dyn_v3_make(0, 0, 0), q1, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "PLANE"));

  /* accepted: a non-diagonal SPD tensor with 1e-14 relative asymmetry and a
   * non-unit quaternion (0, 3, 0, 4) -> (0, 0.6, 0, 0.8); state at rest;
   * I_b stored symmetrised, inv_I_b its inverse */
  dyn_m3 Ispd = { { 2, 0.3, -0.1, 0.3 * (1 + 1e-14), 3, 0.2, -0.1, 0.2, 4 } };
  msg[0] = 'x';
  CU_ASSERT_EQUAL(tst_body_init(&b, 2.5, Ispd, shape_none(), dyn_v3_make(1, 2, 3),
                                dyn_quat_make(0, 3, 0, 4), msg, sizeof msg),
                  DYN_OK);
  CU_ASSERT_EQUAL(msg[0], '\0');
  TST_CLOSE(b.inv_mass, 0.4, 0, EPS);
  double qe[4] = { 0, 0.6, 0, 0.8 }, qg[4] = { b.q.w, b.q.x, b.q.y, b.q.z };
  TST_VEC_CLOSE(qg, qe, 4, 2 * EPS, 0);
  CU_ASSERT(b.I_b.m[1] == b.I_b.m[3]);
  CU_ASSERT(b.inv_I_b.m[1] == b.inv_I_b.m[3] && b.inv_I_b.m[2] == b.inv_I_b.m[6]);
  dyn_m3 P = dyn_m3_mul(b.inv_I_b, b.I_b), Id = dyn_m3_identity();
  TST_VEC_CLOSE(P.m, Id.m, 9, 20 * EPS, 0);
  CU_ASSERT(b.v.x == 0 && b.w.y == 0 && b.f_ext.z == 0 && b.t_ext.x == 0 && !b.is_static);
}

/* ---- static bodies ------------------------------------------------------- */

/* 1 iff a and b hold the same bits in every state and load field. */
static int same_bits(const tst_body *a, const tst_body *b) {
  return memcmp(&a->r, &b->r, sizeof a->r) == 0 && memcmp(&a->q, &b->q, sizeof a->q) == 0 &&
         memcmp(&a->v, &b->v, sizeof a->v) == 0 && memcmp(&a->w, &b->w, sizeof a->w) == 0 &&
         memcmp(&a->f_ext, &b->f_ext, sizeof a->f_ext) == 0 &&
         memcmp(&a->t_ext, &b->t_ext, sizeof a->t_ext) == 0;
}

/* a and b hold the same numbers, field by field (a tst_body's padding is
 * never written: memcheck reported a memcmp over the whole record) */
static int same_body(const tst_body *a, const tst_body *b) {
  return a->mass == b->mass && a->inv_mass == b->inv_mass && a->is_static == b->is_static &&
         memcmp(&a->I_b, &b->I_b, sizeof a->I_b) == 0 &&
         memcmp(&a->inv_I_b, &b->inv_I_b, sizeof a->inv_I_b) == 0 && same_bits(a, b);
}

static void test_static_body(void) {
  tst_body s;
  dyn_shape pl = shape_none();
  pl.kind = DYN_SHAPE_PLANE;
  pl.normal = dyn_v3_make(0, 0, 1);
  tst_body_init_static(&s, pl, dyn_v3_make(1, 2, 3), dyn_quat_make(0, 0, 0, 0));
  CU_ASSERT(s.is_static && s.mass == 0 && s.inv_mass == 0);
  CU_ASSERT(s.q.w == 1 && s.q.x == 0); /* zero q -> identity */
  s.v = dyn_v3_make(1, 1, 1);          /* even with velocities set, nothing moves */
  s.w = dyn_v3_make(1, 1, 1);
  s.f_ext = dyn_v3_make(5, 5, 5);
  tst_body before = s;
  tst_body_update_velocity(&s, 0.1, dyn_v3_make(0, 0, -9.81), DYN_GYRO_IMPLICIT);
  tst_body_update_position(&s, 0.1, DYN_ORIENT_EXP);
  step_free(&s, 0.1, dyn_v3_make(0, 0, -9.81), DYN_INT_VERLET, DYN_GYRO_EXPLICIT,
            DYN_ORIENT_LINEAR);
  CU_ASSERT(same_body(&before, &s));
  CU_ASSERT(tst_body_kinetic(&s) == 0);
  dyn_m3 Z = tst_body_inv_inertia_world(&s);
  for (int k = 0; k < 9; k++) CU_ASSERT(Z.m[k] == 0);
}

/* ---- free fall and projectile: the three schemes ------------------------- */

static void test_free_fall(void) {
  /* Projectile: r(T) = r0 + v0 T + g T^2 / 2, v(T) = v0 + g T.  For a
   * constant acceleration, step by step (by hand):
   *   symplectic Euler r_{n+1} = r_n + h v_n + h^2 g
   *     -> r_N = r0 + T v0 + h^2 g N(N+1)/2 = r(T) + g T h / 2
   *   explicit Euler   r_{n+1} = r_n + h v_n
   *     -> r_N = r0 + T v0 + h^2 g N(N-1)/2 = r(T) - g T h / 2
   *   position Verlet  r_{n+1} = r_n + h v_n + h^2 g / 2 -> r_N = r(T) exactly
   * and v_N = v0 + N h g for all three.  So the global error ratio between h
   * and h/2 is exactly 2 for both Euler methods, and Verlet's error is
   * rounding only (N steps of a few ulps of |r| ~ 5: below 1e-12).
   * The body also spins about its principal z axis (w = 3 rad/s, torque
   * free, gyro term w x I w = 0), so with the EXP update its attitude is
   * exactly the rotation by 3 T about that axis, whatever the scheme. */
  const dyn_v3 g = dyn_v3_make(0, 0, -9.81), r0 = dyn_v3_make(0, 0, 1), v0 = dyn_v3_make(3, 0, 4);
  const dyn_integrator integ[3] = { DYN_INT_SYMPLECTIC_EULER, DYN_INT_EXPLICIT_EULER,
                                    DYN_INT_VERLET };
  const char *names[3] = { "symplectic Euler", "explicit Euler", "Verlet" };
  const double sign[3] = { +1, -1, 0 };
  dyn_quat q0 = dyn_quat_axis_angle(dyn_v3_make(0, 1, 0), 0.4);
  dyn_v3 axis = dyn_quat_rotate(q0, dyn_v3_make(0, 0, 1));
  for (int s = 0; s < 3; s++) {
    double err[2];
    for (int k = 0; k < 2; k++) {
      int N = k == 0 ? 100 : 200;
      double h = 1.0 / N, T = N * h;
      tst_body b = make_body(2.0, dyn_inertia_box(2.0, dyn_v3_make(0.3, 0.2, 0.1)), r0, q0);
      b.v = v0;
      b.w = dyn_v3_scale(axis, 3.0);
      for (int n = 0; n < N; n++) step_free(&b, h, g, integ[s], DYN_GYRO_IMPLICIT, DYN_ORIENT_EXP);
      dyn_v3 r_ex = dyn_v3_axpy(dyn_v3_axpy(r0, T, v0), 0.5 * T * T, g);
      dyn_v3 v_ex = dyn_v3_axpy(v0, T, g);
      dyn_v3 e = dyn_v3_sub(b.r, r_ex);
      dyn_v3 e_ex = dyn_v3_scale(g, sign[s] * T * h / 2);
      TST_CLOSE(v3_dist(e, e_ex), 0, 1e-12, 0);
      TST_CLOSE(v3_dist(b.v, v_ex), 0, 1e-12, 0);
      err[k] = dyn_v3_norm(e);
      dyn_quat q_ex = dyn_quat_mul(dyn_quat_axis_angle(axis, 3.0 * T), q0);
      TST_CLOSE(rot_dist(b.q, q_ex), 0, 1e-13, 0);
    }
    printf("\n  %-16s |r_N - r(1)| = %.3e (h=1/100), %.3e (h=1/200)", names[s], err[0], err[1]);
    if (s < 2)
      TST_CLOSE(err[0] / err[1], 2.0, 1e-9, 0);
    else
      CU_ASSERT(err[0] < 1e-12 && err[1] < 1e-12);
  }
  printf("\n");
}

/* Harmonic oscillator x'' = -x (m = 1, k = 1 through f_ext = -k r), x(0) =
 * 1, v(0) = 0: x = cos t, v = -sin t.  The schemes are composed from the two
 * update functions with the force evaluated where each scheme evaluates
 * a(x) (at x_n for the Euler methods, at the half-step drift for Verlet).
 * Returns the phase-space error |(x, v)(T) - (cos T, -sin T)|. */
static double oscillator_error(dyn_integrator integ, int N, double T) {
  double h = T / N;
  tst_body b = make_body(1.0, dyn_m3_identity(), dyn_v3_make(1, 0, 0), dyn_quat_identity());
  dyn_v3 g0 = dyn_v3_make(0, 0, 0);
  for (int n = 0; n < N; n++) {
    switch (integ) {
    case DYN_INT_SYMPLECTIC_EULER:
      b.f_ext = dyn_v3_neg(b.r);
      tst_body_update_velocity(&b, h, g0, DYN_GYRO_NONE);
      tst_body_update_position(&b, h, DYN_ORIENT_EXP);
      break;
    case DYN_INT_EXPLICIT_EULER:
      b.f_ext = dyn_v3_neg(b.r);
      tst_body_update_position(&b, h, DYN_ORIENT_EXP);
      tst_body_update_velocity(&b, h, g0, DYN_GYRO_NONE);
      break;
    case DYN_INT_VERLET:
      tst_body_update_position(&b, 0.5 * h, DYN_ORIENT_EXP);
      b.f_ext = dyn_v3_neg(b.r);
      tst_body_update_velocity(&b, h, g0, DYN_GYRO_NONE);
      tst_body_update_position(&b, 0.5 * h, DYN_ORIENT_EXP);
      break;
    }
  }
  return hypot(b.r.x - cos(T), b.v.x + sin(T));
}

static void test_oscillator_order(void) {
  /* Observed order p = log2(e(h) / e(h/2)): 1 for the Euler methods, 2 for
   * Verlet.  At h = 0.01 the next term of the error expansion is ~h
   * relative, so the ratios are 2 and 4 to within a few percent. */
  const dyn_integrator integ[3] = { DYN_INT_SYMPLECTIC_EULER, DYN_INT_EXPLICIT_EULER,
                                    DYN_INT_VERLET };
  const char *names[3] = { "symplectic Euler", "explicit Euler", "Verlet" };
  const double ratio[3] = { 2, 2, 4 };
  for (int s = 0; s < 3; s++) {
    double e1 = oscillator_error(integ[s], 200, 2.0), e2 = oscillator_error(integ[s], 400, 2.0);
    printf("\n  %-16s oscillator T=2: e(h=0.01) = %.3e, e(h/2) = %.3e, ratio %.4f", names[s], e1,
           e2, e1 / e2);
    TST_CLOSE(e1 / e2, ratio[s], 0, 0.03);
  }
  printf("\n");
}

/* ---- quaternion maps and orientation updates ------------------------------ */

static dyn_quat random_unit_quat(gsl_rng *rng) {
  dyn_quat q = dyn_quat_make(gsl_rng_uniform(rng) - 0.5, gsl_rng_uniform(rng) - 0.5,
                             gsl_rng_uniform(rng) - 0.5, gsl_rng_uniform(rng) - 0.5);
  return dyn_quat_normalize(q);
}

static void test_quat_maps(void) {
  /* For random unit q and w (GSL mt19937, seed 7):
   *   L(q) w = 1/2 (0, w) q           (Hamilton product, by definition)
   *   Lb(q) (R^T w) = L(q) w           (the same dq/dt from the body w)
   *   G G^T = E E^T = I3, G q = E q = 0
   *   w_b = 2 G dq/dt and w = 2 E dq/dt, with dq/dt from a central
   *   difference of the exact rotation q(t) = dyn_quat_integrate(q, w, t,
   *   EXP): error O(h^2) = h^2 |w|^3 / 48 (see test_quat_fd) */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 7);
  for (int trial = 0; trial < 20; trial++) {
    dyn_quat q = random_unit_quat(rng);
    dyn_v3 w = dyn_v3_make(4 * gsl_rng_uniform(rng) - 2, 4 * gsl_rng_uniform(rng) - 2,
                           4 * gsl_rng_uniform(rng) - 2);
    double L[12], Lb[12], G[12], E[12];
    dyn_quat_L(q, L);
    dyn_quat_Lb(q, Lb);
    dyn_quat_G(q, G);
    dyn_quat_E(q, E);
    dyn_quat a = dyn_quat_map_mulv(L, w);
    dyn_quat d = dyn_quat_mul(dyn_quat_make(0, w.x, w.y, w.z), q);
    d = dyn_quat_make(d.w / 2, d.x / 2, d.y / 2, d.z / 2);
    TST_CLOSE(quat_dist(a, d), 0, 4 * EPS * dyn_v3_norm(w), 0);
    dyn_quat c = dyn_quat_map_mulv(Lb, dyn_quat_rotate_inv(q, w));
    TST_CLOSE(quat_dist(a, c), 0, 8 * EPS * dyn_v3_norm(w), 0);
    double qv[4] = { q.w, q.x, q.y, q.z };
    for (int i = 0; i < 3; i++) {
      double gq = 0, eq = 0;
      for (int k = 0; k < 4; k++) {
        gq += G[4 * i + k] * qv[k];
        eq += E[4 * i + k] * qv[k];
      }
      TST_CLOSE(gq, 0, 4 * EPS, 0);
      TST_CLOSE(eq, 0, 4 * EPS, 0);
      for (int j = 0; j < 3; j++) {
        double gg = 0, ee = 0;
        for (int k = 0; k < 4; k++) {
          gg += G[4 * i + k] * G[4 * j + k];
          ee += E[4 * i + k] * E[4 * j + k];
        }
        TST_CLOSE(gg, i == j, 4 * EPS, 0);
        TST_CLOSE(ee, i == j, 4 * EPS, 0);
      }
    }
    /* inverse maps from a finite difference of the exact motion */
    double h = 1e-4, wn = dyn_v3_norm(w);
    dyn_quat qp = dyn_quat_integrate(q, w, h, DYN_ORIENT_EXP);
    dyn_quat qm = dyn_quat_integrate(q, w, -h, DYN_ORIENT_EXP);
    double dq[4] = { (qp.w - qm.w) / (2 * h), (qp.x - qm.x) / (2 * h), (qp.y - qm.y) / (2 * h),
                     (qp.z - qm.z) / (2 * h) };
    double wb[3] = { 0 }, ww[3] = { 0 };
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 4; k++) {
        wb[i] += 2 * G[4 * i + k] * dq[k];
        ww[i] += 2 * E[4 * i + k] * dq[k];
      }
    dyn_v3 wb_ex = dyn_quat_rotate_inv(q, w);
    double wbe[3] = { wb_ex.x, wb_ex.y, wb_ex.z }, we[3] = { w.x, w.y, w.z };
    /* truncation h^2 |w|^3 / 24 (times 2 for the factor of 2 G), rounding
     * ~ eps / h */
    double tol = h * h * wn * wn * wn / 24 + 100 * EPS / h;
    TST_VEC_CLOSE(wb, wbe, 3, tol, 0);
    TST_VEC_CLOSE(ww, we, 3, tol, 0);
  }
  gsl_rng_free(rng);
}

static void test_quat_fd(void) {
  /* For constant w the exact motion is q(t) = (cos(t th/2), sin(t th/2) n) q0
   * (th = |w|, n = w/th), so
   *   (q(h) - q(-h)) / (2h) = sin(th h/2) / h (0, n) q0 = sinc(th h/2) L(q0) w
   * and |fd - L w| = (1 - sinc(th h/2)) |L w| = h^2 th^3 / 48 (1 + O(h^2)):
   * the EXP update must reproduce the first identity to rounding, and the
   * error decays as h^2.  For LINEAR, one step is
   *   q+- = (q0 +- h/2 (0,w) q0) / sqrt(1 + h^2 th^2 / 4)
   * ((0,w) q0 is orthogonal to q0 with norm th), so
   *   fd = L(q0) w / sqrt(1 + h^2 th^2 / 4), |fd - L w| = h^2 th^3 / 16 (1 + O(h^2)). */
  dyn_quat q0 = dyn_quat_normalize(dyn_quat_make(0.3, -0.5, 0.7, 0.4));
  dyn_v3 w = dyn_v3_make(0.8, -1.3, 2.1);
  double th = dyn_v3_norm(w), L[12];
  dyn_quat_L(q0, L);
  dyn_quat Lw = dyn_quat_map_mulv(L, w);
  double prev[2] = { 0, 0 };
  for (int k = 0; k < 3; k++) {
    double h = 1e-2 / (1 << k);
    for (int o = 0; o < 2; o++) {
      dyn_orient orient = o == 0 ? DYN_ORIENT_EXP : DYN_ORIENT_LINEAR;
      dyn_quat qp = dyn_quat_integrate(q0, w, h, orient);
      dyn_quat qm = dyn_quat_integrate(q0, w, -h, orient);
      dyn_quat fd = dyn_quat_make((qp.w - qm.w) / (2 * h), (qp.x - qm.x) / (2 * h),
                                  (qp.y - qm.y) / (2 * h), (qp.z - qm.z) / (2 * h));
      double f = o == 0 ? sin(th * h / 2) / (th * h / 2) : 1 / sqrt(1 + h * h * th * th / 4);
      dyn_quat pred = dyn_quat_make(f * Lw.w, f * Lw.x, f * Lw.y, f * Lw.z);
      TST_CLOSE(quat_dist(fd, pred), 0, 10 * EPS / h, 0);
      double err = quat_dist(fd, Lw);
      double lead = h * h * th * th * th / (o == 0 ? 48 : 16);
      TST_CLOSE(err, lead, 0, 1e-3);
      if (k > 0) TST_CLOSE(prev[o] / err, 4.0, 0, 2e-3);
      prev[o] = err;
    }
  }
}

static void test_exp_exact_angle(void) {
  /* Constant w = 3 n about a fixed unit axis n: after N EXP steps of any
   * size h, q_N = exp(N h w / 2) q0 = (cos(3T/2), sin(3T/2) n) q0, T = N h,
   * the exact rotation by |w| T.  Rounding accumulates ~ a few eps per step,
   * so 1e-12 holds up to ~ 10^3 steps.  LINEAR rotates by 2 atan(|w| h / 2)
   * per step about the same axis (header of integrate.c): after N steps
   * q_N = rotation by 2 N atan(|w| h/2), lagging |w| T by ~ |w|^3 h^2 T / 12. */
  dyn_v3 n = dyn_v3_normalize(dyn_v3_make(1, -2, 2));
  dyn_v3 w = dyn_v3_scale(n, 3.0);
  dyn_quat q0 = dyn_quat_normalize(dyn_quat_make(0.9, 0.1, -0.3, 0.2));
  const double hs[5] = { 1e-3, 1e-2, 0.1, 0.5, 1.7 };
  for (int k = 0; k < 5; k++) {
    int N = (int)ceil(2.0 / hs[k]);
    dyn_quat q = q0;
    for (int i = 0; i < N; i++) q = dyn_quat_integrate(q, w, hs[k], DYN_ORIENT_EXP);
    dyn_quat qe = dyn_quat_mul(dyn_quat_axis_angle(n, 3.0 * N * hs[k]), q0);
    TST_CLOSE(rot_dist(q, qe), 0, 1e-12, 0);
  }
  /* LINEAR drift, |w| = 10 rad/s, h = 0.01 s, T = 10 s */
  dyn_v3 w10 = dyn_v3_scale(n, 10.0);
  double h = 0.01;
  int N = 1000;
  dyn_quat ql = q0, qx = q0;
  for (int i = 0; i < N; i++) {
    ql = dyn_quat_integrate(ql, w10, h, DYN_ORIENT_LINEAR);
    qx = dyn_quat_integrate(qx, w10, h, DYN_ORIENT_EXP);
  }
  double ang_lin = 2 * N * atan(10.0 * h / 2);
  TST_CLOSE(rot_dist(ql, dyn_quat_mul(dyn_quat_axis_angle(n, ang_lin), q0)), 0, 1e-11, 0);
  double lag = 10.0 * N * h - ang_lin;
  TST_CLOSE(lag, 1000.0 * h * h * (N * h) / 12, 0, 1e-2);
  TST_CLOSE(dyn_quat_norm(ql), 1.0, 4 * EPS, 0);
  /* the lag shows as a rotation error 2 sin(lag/4) ~ lag/2 in quaternion
   * distance between the LINEAR and EXP results */
  TST_CLOSE(rot_dist(ql, qx), 2 * sin(lag / 4), 1e-11, 0);
  printf("\n  LINEAR vs EXP, |w| = 10 rad/s, h = 0.01 s, T = 10 s: angle lag %.4f rad"
         " (predicted |w|^3 h^2 T / 12 = %.4f)\n",
         lag, 1000.0 * h * h * 10 / 12);
}

static void test_exp_small_angle(void) {
  /* From the identity, one EXP step gives dq = (cos x, sin x n), x = |w| h/2.
   * Across the series threshold (x = 3e-4, integrate.c) both branches must
   * agree with sin and cos to rounding: the series' error x^4/120 is below
   * eps/2 there, while dropping its x^2/6 term would be off by ~1.5e-8
   * relative.  w = 0 returns q itself, and a subnormal |w| gives no NaN. */
  dyn_v3 n = dyn_v3_normalize(dyn_v3_make(2, -1, 2));
  const double xs[6] = { 1e-9, 1e-5, 2.9e-4, 3e-4, 3.1e-4, 1e-3 };
  for (int k = 0; k < 6; k++) {
    double h = 0.01, x = xs[k];
    dyn_quat q =
        dyn_quat_integrate(dyn_quat_identity(), dyn_v3_scale(n, 2 * x / h), h, DYN_ORIENT_EXP);
    double got[4] = { q.w, q.x, q.y, q.z };
    double ex[4] = { cos(x), sin(x) * n.x, sin(x) * n.y, sin(x) * n.z };
    TST_VEC_CLOSE(got, ex, 4, 0, 4 * EPS);
  }
  dyn_quat q0 = dyn_quat_normalize(dyn_quat_make(0.9, 0.1, -0.3, 0.2));
  dyn_quat q = dyn_quat_integrate(q0, dyn_v3_make(0, 0, 0), 0.01, DYN_ORIENT_EXP);
  TST_CLOSE(quat_dist(q, q0), 0, 2 * EPS, 0);
  q = dyn_quat_integrate(q0, dyn_v3_make(1e-310, 0, 0), 0.01, DYN_ORIENT_EXP);
  TST_CLOSE(quat_dist(q, q0), 0, 2 * EPS, 0);
  q = dyn_quat_integrate(q0, dyn_v3_make(0, 0, 0), 0.01, DYN_ORIENT_LINEAR);
  TST_CLOSE(quat_dist(q, q0), 0, 2 * EPS, 0);
}

/* ---- gyroscopic velocity update ---------------------------------------------- */

static void test_gyro_newton_step(void) {
  /* Implicit option: with F(x) = I (x - w_b0) + h x x (I x) and x = w_b0 + d
   * after one Newton step (J d = -F(w_b0)), since x x I x is quadratic,
   *   F(w_b0 + d) = F(w_b0) + J d + h d x (I d) = h d x (I d)   exactly,
   * O(h^3), while F(w_b0) = h w_b0 x I w_b0 is O(h): halving h divides the
   * residual by ~8.  Explicit option: I (w_b1 - w_b0) = -h w_b0 x (I w_b0).
   * None: w unchanged.  With a torque, I_w (w1 - w1(t=0)) = h t for all
   * three; v1 - v0 = h (f/m + g). */
  dyn_m3 I = { { 2, 0.3, -0.1, 0.3, 3, 0.2, -0.1, 0.2, 4 } };
  dyn_quat q = dyn_quat_axis_angle(dyn_v3_normalize(dyn_v3_make(-1, 0.5, 2)), 1.1);
  tst_body b0 = make_body(2.0, I, dyn_v3_make(0, 0, 0), q);
  b0.w = dyn_v3_make(1.5, -2.0, 3.0);
  dyn_v3 w_b0 = dyn_quat_rotate_inv(q, b0.w);
  dyn_v3 g = dyn_v3_make(0, 0, -9.81);
  double res_prev = 0;
  for (int k = 0; k < 3; k++) {
    double h = 0.02 / (1 << k);
    tst_body b = b0;
    tst_body_update_velocity(&b, h, g, DYN_GYRO_IMPLICIT);
    dyn_v3 w_b1 = dyn_quat_rotate_inv(b.q, b.w);
    dyn_v3 d = dyn_v3_sub(w_b1, w_b0);
    dyn_v3 F1 = dyn_v3_add(dyn_m3_mulv(b.I_b, d),
                           dyn_v3_scale(dyn_v3_cross(w_b1, dyn_m3_mulv(b.I_b, w_b1)), h));
    dyn_v3 pred = dyn_v3_scale(dyn_v3_cross(d, dyn_m3_mulv(b.I_b, d)), h);
    /* F1 is a difference of O(|I w|) terms: rounding ~ 10 eps |I w| */
    double scale = dyn_v3_norm(dyn_m3_mulv(b.I_b, w_b0));
    TST_CLOSE(v3_dist(F1, pred), 0, 20 * EPS * scale, 0);
    double res = dyn_v3_norm(F1);
    if (k > 0) TST_CLOSE(res_prev / res, 8.0, 0, 0.1);
    res_prev = res;
    /* explicit */
    b = b0;
    tst_body_update_velocity(&b, h, g, DYN_GYRO_EXPLICIT);
    dyn_v3 Id = dyn_m3_mulv(b.I_b, dyn_v3_sub(dyn_quat_rotate_inv(q, b.w), w_b0));
    dyn_v3 rhs = dyn_v3_scale(dyn_v3_cross(w_b0, dyn_m3_mulv(b.I_b, w_b0)), -h);
    TST_CLOSE(v3_dist(Id, rhs), 0, 20 * EPS * scale, 0);
    /* none */
    b = b0;
    tst_body_update_velocity(&b, h, g, DYN_GYRO_NONE);
    CU_ASSERT(v3_dist(b.w, b0.w) == 0);
    TST_CLOSE(v3_dist(b.v, dyn_v3_scale(g, h)), 0, 4 * EPS * 9.81 * h, 0);
  }
  /* external torque and force as explicit impulses */
  dyn_v3 t = dyn_v3_make(0.3, -0.2, 0.5), f = dyn_v3_make(1, 2, 3);
  double h = 0.01;
  const dyn_gyro gy[3] = { DYN_GYRO_NONE, DYN_GYRO_EXPLICIT, DYN_GYRO_IMPLICIT };
  for (int k = 0; k < 3; k++) {
    tst_body a = b0, c = b0;
    c.t_ext = t;
    c.f_ext = f;
    tst_body_update_velocity(&a, h, g, gy[k]);
    tst_body_update_velocity(&c, h, g, gy[k]);
    dyn_v3 Idw = dyn_m3_mulv(tst_body_inertia_world(&b0), dyn_v3_sub(c.w, a.w));
    TST_CLOSE(v3_dist(Idw, dyn_v3_scale(t, h)), 0, 1e-14, 0);
    dyn_v3 dv = dyn_v3_sub(c.v, b0.v), dv_ex = dyn_v3_scale(dyn_v3_axpy(g, 0.5, f), h);
    TST_CLOSE(v3_dist(dv, dv_ex), 0, 1e-15, 0);
  }
}

/* The reference for dyn_body_update_gyro: the velocity update with the
 * loads and gravity set to zero, then the loads put back. */
static void gyro_reference(tst_body *b, double h, dyn_gyro gyro) {
  dyn_v3 f = b->f_ext, t = b->t_ext, zero = dyn_v3_make(0, 0, 0);
  b->f_ext = b->t_ext = zero;
  tst_body_update_velocity(b, h, zero, gyro);
  b->f_ext = f;
  b->t_ext = t;
}

static void test_gyro_only_bits(void) {
  /* dyn_body_update_gyro is the velocity update with no load and no
   * gravity, bit for bit: its isotropic short path (spheres, cubes) drops
   * only operations whose results are exactly +-0 or the identity
   * (integrate.c, gyro_isotropic), so the two must agree in every bit of
   * v and w -- including the sign of a zero component (v = -0 becomes
   * +0 there) -- for every gyro option, on isotropic and asymmetric
   * bodies, at spins from 1e-9 to 1e4 rad/s, with zero spin components, a
   * zero spin, loads set (left unchanged), and non-finite spins. */
  dyn_m3 Igen = { { 2, 0.3, -0.1, 0.3, 3, 0.2, -0.1, 0.2, 4 } };
  dyn_m3 I[4] = { dyn_inertia_sphere(1.3, 0.21), dyn_inertia_box(0.7, dyn_v3_make(0.1, 0.1, 0.1)),
                  dyn_inertia_box(0.7, dyn_v3_make(0.3, 0.2, 0.1)), Igen };
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 66);
  int mismatches = 0, changed = 0;
  for (int n = 0; n < 4000; n++) {
    dyn_v3 axis = dyn_v3_make(gsl_rng_uniform(rng) - 0.5, gsl_rng_uniform(rng) - 0.5,
                              gsl_rng_uniform(rng) - 0.5);
    tst_body b0 = make_body(1.3, I[n % 4], dyn_v3_make(0, 0, 0),
                            dyn_quat_axis_angle(dyn_v3_normalize(axis), 6 * gsl_rng_uniform(rng)));
    double mag = pow(10.0, -9.0 + 13.0 * gsl_rng_uniform(rng));
    double c[3];
    for (int k = 0; k < 3; k++) c[k] = mag * (2 * gsl_rng_uniform(rng) - 1);
    if (n % 7 == 1) c[n % 3] = 0.0; /* a zero component (world frame) */
    if (n % 11 == 2) c[0] = c[1] = c[2] = 0.0;
    if (n % 13 == 3) c[1] = -0.0;
    if (n % 97 == 5) c[2] = n % 2 ? INFINITY : NAN;
    if (n % 4 == 1 && n % 3 == 1) { /* body frame = world: zero body-frame components */
      b0.q = dyn_quat_identity();
      c[n % 3] = n % 2 ? -0.0 : 0.0;
    }
    b0.w = dyn_v3_make(c[0], c[1], c[2]);
    b0.v = dyn_v3_make(-0.0, 0.5, 0.0);
    if (n % 3 == 0) {
      b0.f_ext = dyn_v3_make(1, -2, 3);
      b0.t_ext = dyn_v3_make(0.3, 0.1, -0.2);
    }
    for (int gy = 0; gy < 3; gy++) {
      tst_body a = b0, r = b0;
      double h = n % 5 == 4 ? 1.0 / 60 : 1.0 / 120;
      update_gyro(&a, h, (dyn_gyro)gy);
      gyro_reference(&r, h, (dyn_gyro)gy);
      mismatches += !same_bits(&a, &r);
      changed += memcmp(&r.w, &b0.w, sizeof r.w) != 0;
    }
  }
  gsl_rng_free(rng);
  CU_ASSERT_EQUAL(mismatches, 0);
  CU_ASSERT(changed > 1000); /* the gyroscopic term moved w's bits on many of them */
}

/* ---- the tennis racket (Dzhanibekov) ------------------------------------------- */

/* Body-frame Euler equations I w' + w x I w = 0 for a diagonal I, by RK4:
 * the reference for the flip time (first sign change of w_b.y). */
static void euler_rhs(const double I[3], const double w[3], double dw[3]) {
  dw[0] = (I[1] - I[2]) * w[1] * w[2] / I[0];
  dw[1] = (I[2] - I[0]) * w[2] * w[0] / I[1];
  dw[2] = (I[0] - I[1]) * w[0] * w[1] / I[2];
}

static double rk4_first_flip(const double I[3], const double w0[3], double h, double Tmax) {
  double w[3] = { w0[0], w0[1], w0[2] };
  for (double t = 0; t < Tmax; t += h) {
    double k1[3], k2[3], k3[3], k4[3], y[3];
    euler_rhs(I, w, k1);
    for (int i = 0; i < 3; i++) y[i] = w[i] + h / 2 * k1[i];
    euler_rhs(I, y, k2);
    for (int i = 0; i < 3; i++) y[i] = w[i] + h / 2 * k2[i];
    euler_rhs(I, y, k3);
    for (int i = 0; i < 3; i++) y[i] = w[i] + h * k3[i];
    euler_rhs(I, y, k4);
    double prev = w[1];
    for (int i = 0; i < 3; i++) w[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    if (prev > 0 && w[1] <= 0) return t + h * prev / (prev - w[1]);
  }
  return -1;
}

typedef struct {
  double E_drift;     /* E(T) / E(0) - 1 */
  double max_E_up;    /* largest one-step relative increase of E */
  double max_E_down;  /* largest one-step relative decrease of E */
  double Lnorm_drift; /* |L(T)| / |L(0)| - 1 */
  double Lvec_drift;  /* max_t |L(t) - L(0)| / |L(0)| (world vector) */
  double Ldir_drift;  /* max_t angle between L(t) and L(0), rad */
  double min_dot;     /* min_t of (body y axis in world) . (its initial direction) */
  double first_flip;  /* first time w_b.y changes sign, -1 if never */
  double w_change;    /* max_t |w(t) - w(0)| (world) */
} racket_out;

static void racket_run(dyn_gyro gyro, double h, int N, const double Id[3], const double wb0[3],
                       racket_out *o) {
  dyn_quat q0 = dyn_quat_axis_angle(dyn_v3_normalize(dyn_v3_make(0.2, 1, -0.4)), 0.7);
  tst_body b = make_body(1.0, dyn_m3_diag(Id[0], Id[1], Id[2]), dyn_v3_make(0, 0, 0), q0);
  b.w = dyn_quat_rotate(q0, dyn_v3_make(wb0[0], wb0[1], wb0[2]));
  dyn_v3 w0 = b.w, g0 = dyn_v3_make(0, 0, 0);
  dyn_v3 y0 = dyn_quat_rotate(q0, dyn_v3_make(0, 1, 0));
  double E0 = tst_body_kinetic(&b), E = E0;
  dyn_v3 L0 = tst_body_angular_momentum(&b);
  memset(o, 0, sizeof *o);
  o->min_dot = 1;
  o->first_flip = -1;
  double wy_prev = wb0[1];
  for (int n = 1; n <= N; n++) {
    step_free(&b, h, g0, DYN_INT_SYMPLECTIC_EULER, gyro, DYN_ORIENT_EXP);
    double En = tst_body_kinetic(&b);
    o->max_E_up = fmax(o->max_E_up, (En - E) / E0);
    o->max_E_down = fmax(o->max_E_down, (E - En) / E0);
    E = En;
    dyn_v3 L = tst_body_angular_momentum(&b);
    o->Lvec_drift = fmax(o->Lvec_drift, v3_dist(L, L0) / dyn_v3_norm(L0));
    o->Ldir_drift = fmax(o->Ldir_drift, atan2(dyn_v3_norm(dyn_v3_cross(L, L0)), dyn_v3_dot(L, L0)));
    o->min_dot = fmin(o->min_dot, dyn_v3_dot(dyn_quat_rotate(b.q, dyn_v3_make(0, 1, 0)), y0));
    o->w_change = fmax(o->w_change, v3_dist(b.w, w0));
    double wy = dyn_quat_rotate_inv(b.q, b.w).y;
    if (o->first_flip < 0 && wy_prev > 0 && wy <= 0)
      o->first_flip = (n - 1) * h + h * wy_prev / (wy_prev - wy);
    wy_prev = wy;
    if (n == N) {
      o->E_drift = En / E0 - 1;
      o->Lnorm_drift = dyn_v3_norm(L) / dyn_v3_norm(L0) - 1;
    }
  }
}

static void test_racket(void) {
  /* I = diag(1, 2, 3) kg m^2, spinning at 4 rad/s about the middle (y) axis
   * with a 0.01 rad/s perturbation on x and z.  Linearising Euler's
   * equations about w = (0, W, 0): perturbations grow like exp(lambda t),
   * lambda = W sqrt((I2-I1)(I3-I2)/(I1 I3)) = 4/sqrt(3) = 2.31 /s, so the
   * body turns over within a few seconds; the exact motion conserves E and
   * the world L and flips periodically.  h = 0.01 s, T = 20 s.
   *   NONE: w (world) never changes (exactly: w += R 0), the body turns
   *     about the fixed axis w, ~0.5 degree off its y axis: no flip, its y
   *     axis stays within that cone.
   *   EXPLICIT: E grows every step (integrate.c: E1 = E0 + h^2 |..|^2 / 2).
   *   IMPLICIT: flips; E and |L| decay (exact implicit Euler is
   *     dissipative; one Newton step leaves an O(h^3) residual, so per-step
   *     increases may appear only at rounding level), the first flip time
   *     agrees with an RK4 solution of Euler's equations (h = 1e-4) to
   *     first order in h. */
  const double Id[3] = { 1, 2, 3 }, wb0[3] = { 0.01, 4, 0.01 };
  const double h = 0.01;
  const int N = 2000;
  const char *names[3] = { "none", "explicit", "implicit" };
  racket_out o[3];
  for (int k = 0; k < 3; k++) racket_run((dyn_gyro)k, h, N, Id, wb0, &o[k]);
  double t_ref = rk4_first_flip(Id, wb0, 1e-4, 20);
  printf("\n  racket I=diag(1,2,3), w_b0=(0.01,4,0.01) rad/s, h=%g s, T=%g s;"
         " RK4 first flip at %.4f s\n",
         h, N * h, t_ref);
  printf("  %-9s %11s %11s %13s %12s %11s %10s %9s %9s\n", "gyro", "E(T)/E0-1", "max dE+/E0",
         "|L|(T)/|L0|-1", "max|L-L0|/L0", "max ang(L)", "max|w-w0|", "min y.y0", "1st flip");
  for (int k = 0; k < 3; k++)
    printf("  %-9s %11.3e %11.3e %13.3e %12.3e %11.3e %10.3e %9.4f %9.4f\n", names[k], o[k].E_drift,
           o[k].max_E_up, o[k].Lnorm_drift, o[k].Lvec_drift, o[k].Ldir_drift, o[k].w_change,
           o[k].min_dot, o[k].first_flip);

  /* none: w constant bit for bit, no flip, no precession of w */
  CU_ASSERT(o[0].w_change == 0);
  CU_ASSERT(o[0].first_flip < 0);
  /* the body axis stays on the cone about w of half-angle
   * atan(0.01 sqrt(2) / 4) = 0.2 degrees around w, so within 0.4 degree of y0 */
  CU_ASSERT(o[0].min_dot > cos(2 * atan(0.01 * sqrt(2) / 4)) - 1e-12);
  /* rotation about w itself keeps w_b, so E stays at rounding level */
  TST_CLOSE(o[0].E_drift, 0, 1e-12, 0);

  /* explicit: energy grows monotonically (up to rounding) and visibly */
  CU_ASSERT(o[1].max_E_down < 1e-13);
  CU_ASSERT(o[1].E_drift > 0.01);

  /* implicit: flips at least once; energy and |L| do not grow */
  CU_ASSERT(o[2].min_dot < -0.9);
  CU_ASSERT(o[2].first_flip > 0);
  CU_ASSERT(o[2].E_drift <= 0 && o[2].Lnorm_drift <= 0);
  CU_ASSERT(o[2].max_E_up < 1e-12);
  /* Bounds: the values measured at h = 0.01 over 20 s (printed above: E
   * -12.5%, |L| -6.5%, |L - L0| 6.8%, direction of L 0.030 rad) with a
   * factor 2 of margin.  They are first order in h (checked below), so they
   * are properties of the method at this step, not tolerances on rounding:
   * exact implicit Euler loses energy like exp(-c h t); the world direction
   * of L moves by O(h) because the body-frame velocity update and the
   * rotation are split (integrate.c). */
  CU_ASSERT(o[2].E_drift > -0.25);
  CU_ASSERT(o[2].Lnorm_drift > -0.13);
  CU_ASSERT(o[2].Lvec_drift < 0.14);
  CU_ASSERT(o[2].Ldir_drift < 0.06);
  /* first flip: within 5% of the reference at this h */
  CU_ASSERT(t_ref > 0);
  TST_CLOSE(o[2].first_flip, t_ref, 0, 0.05);

  /* first order: halving h halves the energy decay, the drift of the
   * direction of L and the error of the first flip time (ratios 2 to 15%) */
  racket_out half;
  racket_run(DYN_GYRO_IMPLICIT, h / 2, 2 * N, Id, wb0, &half);
  printf("  implicit at h=%g: E(T)/E0-1 = %.3e, |L|(T)/|L0|-1 = %.3e, max|L-L0|/L0 = %.3e,"
         " max ang(L) = %.3e, 1st flip %.4f\n",
         h / 2, half.E_drift, half.Lnorm_drift, half.Lvec_drift, half.Ldir_drift, half.first_flip);
  TST_CLOSE(o[2].E_drift / half.E_drift, 2.0, 0, 0.15);
  TST_CLOSE(o[2].Ldir_drift / half.Ldir_drift, 2.0, 0, 0.15);
  TST_CLOSE((o[2].first_flip - t_ref) / (half.first_flip - t_ref), 2.0, 0, 0.15);
}

/* ---- momentum of a free body ------------------------------------------------ */

static void test_momentum_free(void) {
  /* No gravity, no load: r(t) = r0 + v t, so r x m v = r0 x m v; a spin
   * about the principal axis of largest inertia (z: smallest half extent)
   * is steady, I_w w = I_z w.  Hence L_O = r0 x m v + I_z w and p = m v at
   * every step, for every gyro option (w x I w = 0 up to rounding). */
  double m = 2.0;
  dyn_m3 Ib = dyn_inertia_box(m, dyn_v3_make(0.3, 0.2, 0.1));
  dyn_quat q0 = dyn_quat_axis_angle(dyn_v3_normalize(dyn_v3_make(1, 1, 0.3)), 0.8);
  dyn_v3 r0 = dyn_v3_make(1, 2, 3), v = dyn_v3_make(0.5, -1, 0.25);
  dyn_v3 w = dyn_v3_scale(dyn_quat_rotate(q0, dyn_v3_make(0, 0, 1)), 7.0);
  dyn_v3 L_ex = dyn_v3_add(dyn_v3_cross(r0, dyn_v3_scale(v, m)), dyn_v3_scale(w, Ib.m[8]));
  for (int k = 0; k < 3; k++) {
    tst_body b = make_body(m, Ib, r0, q0);
    b.v = v;
    b.w = w;
    double worst = 0, worst_p = 0;
    for (int n = 0; n < 500; n++) {
      step_free(&b, 0.01, dyn_v3_make(0, 0, 0), DYN_INT_SYMPLECTIC_EULER, (dyn_gyro)k,
                DYN_ORIENT_EXP);
      worst = fmax(worst, v3_dist(tst_body_angular_momentum(&b), L_ex));
      worst_p = fmax(worst_p, v3_dist(tst_body_linear_momentum(&b), dyn_v3_scale(v, m)));
    }
    /* r grows to |r0| + 5 |v| ~ 9: rounding of r x m v ~ 1e-14 */
    TST_CLOSE(worst, 0, 1e-12 * dyn_v3_norm(L_ex), 0);
    TST_CLOSE(worst_p, 0, 4 * EPS * m * dyn_v3_norm(v), 0); /* m v unchanged: v += h 0 */
  }
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("body", NULL, NULL);
  CU_add_test(s, "inertia of sphere/box/capsule vs Monte Carlo", test_inertia_monte_carlo);
  CU_add_test(s, "world inertia R I R^T, kinetic energy, momenta", test_world_inertia);
  CU_add_test(s, "dyn_body_init validation and messages", test_init_validation);
  CU_add_test(s, "static bodies never move", test_static_body);
  CU_pSuite t = CU_add_suite("integrate", NULL, NULL);
  CU_add_test(t, "free fall: exact errors and order of the three schemes", test_free_fall);
  CU_add_test(t, "harmonic oscillator: order 1, 1, 2", test_oscillator_order);
  CU_add_test(t, "quaternion maps L, Lb, G, E", test_quat_maps);
  CU_add_test(t, "orientation updates vs central differences", test_quat_fd);
  CU_add_test(t, "EXP exact for constant w, LINEAR lag", test_exp_exact_angle);
  CU_add_test(t, "EXP small-angle series across its threshold", test_exp_small_angle);
  CU_add_test(t, "gyroscopic terms: Newton residual, explicit, torque", test_gyro_newton_step);
  CU_add_test(t, "gyroscopic update alone: the short path's bits", test_gyro_only_bits);
  CU_add_test(t, "tennis racket: flip and drift per gyro option", test_racket);
  CU_add_test(t, "momentum of a free spinning body", test_momentum_free);
  return tst_run();
}
