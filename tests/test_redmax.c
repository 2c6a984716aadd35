/* test_redmax.c -- reduced-coordinate articulated trees (libdynamics/redmax.c,
 * docs/redmax.md, [wang2019]): the Jacobian J and dJ/dt of Algorithms 1-2 against
 * central finite differences of the forward kinematics, the joints seen in
 * maximal coordinates (anchors and hinge axes coincide, eq. 5-8), the
 * reduced mass J^T M J against the bodies' kinetic energy, eq. 28's
 * accelerations against energy conservation (dE/dt = power of the loads),
 * pendulum periods against their analytic values, energy drift of chains
 * and its order in h, a conical pendulum on a ball joint, joint springs and
 * dampers, and input validation.
 *
 * Every expected value is derived in the comment above its assertion.
 */
#include "dyn.h"
#include "dyn_redmax.h"
#include "tst_body.h"
#include "tst_util.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB 12
#define MAXQ (4 * MAXB)
#define MAXU (3 * MAXB)

static const double G = 9.81;
static const double PI = 3.14159265358979323846;

static dyn_v3 gvec(void) { return dyn_v3_make(0.0, 0.0, -G); }

/* ---- the test's own rotation helpers (independent of redmax.c) ---------- */

/* exp of a rotation vector v as a unit quaternion: (cos(|v|/2), sin(|v|/2) v/|v|) */
static dyn_quat qexp(dyn_v3 v) {
  double t = dyn_v3_norm(v);
  if (t == 0.0) return dyn_quat_identity();
  double s = sin(0.5 * t) / t;
  return dyn_quat_make(cos(0.5 * t), s * v.x, s * v.y, s * v.z);
}

/* rotation vector of a unit quaternion (angle in [0, pi]) */
static dyn_v3 qlog(dyn_quat q) {
  if (q.w < 0) q = dyn_quat_make(-q.w, -q.x, -q.y, -q.z);
  double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
  if (s == 0.0) return dyn_v3_make(0, 0, 0);
  double t = 2.0 * atan2(s, q.w);
  return dyn_v3_make(q.x * t / s, q.y * t / s, q.z * t / s);
}

static dyn_quat random_quat(gsl_rng *rng) {
  dyn_quat q;
  do {
    q = dyn_quat_make(gsl_rng_uniform(rng) - 0.5, gsl_rng_uniform(rng) - 0.5,
                      gsl_rng_uniform(rng) - 0.5, gsl_rng_uniform(rng) - 0.5);
  } while (dyn_quat_norm(q) < 0.1);
  return dyn_quat_normalize(q);
}

static double urand(gsl_rng *rng, double lo, double hi) {
  return lo + (hi - lo) * gsl_rng_uniform(rng);
}

static dyn_v3 random_v3(gsl_rng *rng, double a) {
  return dyn_v3_make(urand(rng, -a, a), urand(rng, -a, a), urand(rng, -a, a));
}

/* an SPD inertia that is no diagonal: R diag(d) R^T */
static dyn_m3 random_inertia(gsl_rng *rng, double m) {
  dyn_m3 R = dyn_quat_to_m3(random_quat(rng));
  dyn_m3 D =
      dyn_m3_diag(m * urand(rng, 0.02, 0.1), m * urand(rng, 0.02, 0.1), m * urand(rng, 0.02, 0.1));
  dyn_m3 I = dyn_m3_mul(dyn_m3_mul(R, D), dyn_m3_transpose(R));
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++) I.m[3 * j + i] = I.m[3 * i + j];
  return I;
}

/* A random tree: parent[i] given (must precede or not, any order), joint
 * kinds given; bodies at random poses, anchors near them. */
static void random_tree(gsl_rng *rng, int nb, const int *parent, const dyn_rm_joint *kind,
                        dyn_rm_body_def *d) {
  for (int i = 0; i < nb; i++) {
    d[i] = dyn_rm_body_def_default();
    d[i].parent = parent[i];
    d[i].joint = kind[i];
    d[i].mass = urand(rng, 0.5, 2.0);
    d[i].I_b = random_inertia(rng, d[i].mass);
    d[i].r = random_v3(rng, 1.0);
    d[i].q = random_quat(rng);
    d[i].anchor = dyn_v3_add(d[i].r, random_v3(rng, 0.4));
    d[i].axis = random_v3(rng, 1.0);
  }
}

static dyn_redmax *build(const dyn_rm_body_def *d, int nb) {
  dyn_redmax *rm = NULL;
  char msg[200];
  dyn_err e = dyn_redmax_new(d, nb, &rm, msg, sizeof msg);
  if (e != DYN_OK) fprintf(stderr, "dyn_redmax_new: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  return rm;
}

/* random joint coordinates: hinge angles in [-pi, pi], ball quaternions
 * uniform-ish; random velocities in [-a, a] */
static void random_state(gsl_rng *rng, const dyn_redmax *rm, const dyn_rm_body_def *d, double a,
                         double *q, double *u) {
  int nb = dyn_redmax_nbodies(rm);
  for (int i = 0; i < nb; i++) {
    int qo, uo;
    dyn_redmax_offsets(rm, i, &qo, &uo);
    if (d[i].joint == DYN_RM_HINGE) {
      q[qo] = urand(rng, -PI, PI);
      u[uo] = urand(rng, -a, a);
    } else {
      dyn_quat Q = random_quat(rng);
      q[qo] = Q.w, q[qo + 1] = Q.x, q[qo + 2] = Q.y, q[qo + 3] = Q.z;
      for (int c = 0; c < 3; c++) u[uo + c] = urand(rng, -a, a);
    }
  }
}

/* q (+) eps u: hinge theta + eps u, ball Q exp(eps u) (the joint-frame
 * angular velocity u acts on the right, dQ/dt = Q (0, u) / 2) */
static void advance(const dyn_redmax *rm, const dyn_rm_body_def *d, const double *q,
                    const double *u, double eps, double *qo_) {
  int nb = dyn_redmax_nbodies(rm);
  memcpy(qo_, q, (size_t)dyn_redmax_nq(rm) * sizeof(double));
  for (int i = 0; i < nb; i++) {
    int qo, uo;
    dyn_redmax_offsets(rm, i, &qo, &uo);
    if (d[i].joint == DYN_RM_HINGE) {
      qo_[qo] = q[qo] + eps * u[uo];
    } else {
      dyn_quat Q = dyn_quat_make(q[qo], q[qo + 1], q[qo + 2], q[qo + 3]);
      dyn_quat P =
          dyn_quat_mul(Q, qexp(dyn_v3_make(eps * u[uo], eps * u[uo + 1], eps * u[uo + 2])));
      qo_[qo] = P.w, qo_[qo + 1] = P.x, qo_[qo + 2] = P.y, qo_[qo + 3] = P.z;
    }
  }
}

static void set_state(dyn_redmax *rm, const double *q, const double *u) {
  char msg[200];
  dyn_err e = dyn_redmax_set_state(rm, q, u, msg, sizeof msg);
  if (e != DYN_OK) fprintf(stderr, "set_state: %s\n", msg);
  CU_ASSERT_EQUAL(e, DYN_OK);
}

static double max_abs(const double *x, int n) {
  double m = 0;
  for (int k = 0; k < n; k++) m = fmax(m, fabs(x[k]));
  return m;
}

/* ---- J and dJ/dt against finite differences ----------------------------- */

/* The three trees of the Jacobian tests: a hinge chain, a ball chain, and a
 * mixed forest given in no particular order (children before parents, two
 * roots). */
static int tree_case(int which, int *parent, dyn_rm_joint *kind) {
  static const int p0[5] = { -1, 0, 1, 2, 3 };
  static const int p2[7] = { 3, -1, 1, 1, 2, -1, 5 };
  switch (which) {
  case 0:
    for (int i = 0; i < 5; i++) parent[i] = p0[i], kind[i] = DYN_RM_HINGE;
    return 5;
  case 1:
    for (int i = 0; i < 4; i++) parent[i] = p0[i], kind[i] = DYN_RM_BALL;
    return 4;
  default:
    for (int i = 0; i < 7; i++)
      parent[i] = p2[i], kind[i] = (i % 3 == 1) ? DYN_RM_BALL : DYN_RM_HINGE;
    return 7;
  }
}

/* Body twists (omega_b, v_b) = J u, checked against central differences of
 * the forward kinematics along q(eps) = q (+) eps u:
 *   v_b     = R_i^T (r_i(+eps) - r_i(-eps)) / (2 eps)
 *   omega_b = (log(q_i^* q_i(+eps)) - log(q_i^* q_i(-eps))) / (2 eps)
 * (the body-frame rotation vector, whose derivative at 0 is omega_b).  Both
 * have truncation error eps^2/6 times a third derivative, O(1e-10) here for
 * eps = 1e-5 and |u| <= 2, rates up to ~|u|^3 |r| ~ 20; rounding eps_mach |r|
 * / eps ~ 1e-11.  Tolerance 1e-7. */
static void test_jacobian_fd(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 4004);
  for (int which = 0; which < 3; which++) {
    int parent[MAXB];
    dyn_rm_joint kind[MAXB];
    int nb = tree_case(which, parent, kind);
    dyn_rm_body_def d[MAXB];
    random_tree(rng, nb, parent, kind, d);
    dyn_redmax *rm = build(d, nb);
    int n = dyn_redmax_ndof(rm), n6 = 6 * nb;
    for (int trial = 0; trial < 4; trial++) {
      double q[MAXQ], u[MAXU], qp[MAXQ], qm[MAXQ];
      random_state(rng, rm, d, 2.0, q, u);
      set_state(rm, q, u);
      dyn_redmax_kinematics(rm);
      static double J[6 * MAXB * MAXU], Jd[6 * MAXB * MAXU], Jp[6 * MAXB * MAXU],
          Jm[6 * MAXB * MAXU];
      dyn_redmax_jacobian(rm, J, Jd, n6);
      double phi[6 * MAXB] = { 0 }, fd[6 * MAXB];
      for (int a = 0; a < n6; a++)
        for (int c = 0; c < n; c++) phi[a] += J[c * n6 + a] * u[c];
      const double eps = 1e-5;
      advance(rm, d, q, u, eps, qp);
      advance(rm, d, q, u, -eps, qm);
      dyn_v3 r0[MAXB], rp[MAXB], rmn[MAXB];
      dyn_quat q0[MAXB], qpl[MAXB], qmi[MAXB];
      for (int i = 0; i < nb; i++) dyn_redmax_body_state(rm, i, &r0[i], &q0[i], NULL, NULL);
      set_state(rm, qp, u);
      for (int i = 0; i < nb; i++) dyn_redmax_body_state(rm, i, &rp[i], &qpl[i], NULL, NULL);
      dyn_redmax_kinematics(rm);
      dyn_redmax_jacobian(rm, Jp, NULL, n6);
      set_state(rm, qm, u);
      for (int i = 0; i < nb; i++) dyn_redmax_body_state(rm, i, &rmn[i], &qmi[i], NULL, NULL);
      dyn_redmax_kinematics(rm);
      dyn_redmax_jacobian(rm, Jm, NULL, n6);
      for (int i = 0; i < nb; i++) {
        dyn_v3 wp = qlog(dyn_quat_mul(dyn_quat_conj(q0[i]), qpl[i]));
        dyn_v3 wm = qlog(dyn_quat_mul(dyn_quat_conj(q0[i]), qmi[i]));
        dyn_v3 w = dyn_v3_scale(dyn_v3_sub(wp, wm), 0.5 / eps);
        dyn_v3 v = dyn_quat_rotate_inv(q0[i], dyn_v3_scale(dyn_v3_sub(rp[i], rmn[i]), 0.5 / eps));
        fd[6 * i] = w.x, fd[6 * i + 1] = w.y, fd[6 * i + 2] = w.z;
        fd[6 * i + 3] = v.x, fd[6 * i + 4] = v.y, fd[6 * i + 5] = v.z;
      }
      TST_VEC_CLOSE(phi, fd, n6, 1e-7, 1e-7);
      /* dJ/dt = (J(q (+) eps u) - J(q (-) eps u)) / (2 eps): u is constant
       * along this path (for a ball joint Q(t) = Q exp(t u) has body rate u),
       * so the total derivative of J is its directional derivative. Same
       * error budget as above. */
      static double Jfd[6 * MAXB * MAXU];
      for (int k = 0; k < n6 * n; k++) Jfd[k] = (Jp[k] - Jm[k]) / (2 * eps);
      TST_VEC_CLOSE(Jd, Jfd, n6 * n, 1e-7, 1e-7);
    }
    dyn_redmax_free(rm);
  }
  gsl_rng_free(rng);
}

/* ---- the joints in maximal coordinates, Mr against the kinetic energy --- */

/* Body i's world point fixed in body i that was at x0 in the initial pose:
 * r_i + R_i R_i0^T (x0 - r_i0); its velocity v_i + w_i x (that - r_i). */
static dyn_v3 body_point(dyn_v3 r, dyn_quat q, const dyn_rm_body_def *d, dyn_v3 x0) {
  return dyn_v3_add(
      r, dyn_quat_rotate(q, dyn_quat_rotate_inv(dyn_quat_normalize(d->q), dyn_v3_sub(x0, d->r))));
}

/* At random states: (1) each anchor computed on the parent equals the one
 * computed on the child (seed eq. 5; the world for roots), their
 * velocities agree (eq. 6), a hinge axis is the same on both bodies, and the
 * relative angular velocity is along it (eq. 8); (2) u^T Mr u / 2 equals
 * the sum of dyn_body_kinetic over dyn_redmax_export_bodies (body.c's world
 * formula m|v|^2/2 + w.(R I R^T w)/2), Mr symmetric positive definite.
 * Tolerances: a few hundred ulps of the values, which are O(10). */
static void test_maximal_view(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 17);
  int parent[MAXB];
  dyn_rm_joint kind[MAXB];
  int nb = tree_case(2, parent, kind);
  dyn_rm_body_def d[MAXB];
  random_tree(rng, nb, parent, kind, d);
  dyn_redmax *rm = build(d, nb);
  int n = dyn_redmax_ndof(rm);
  for (int trial = 0; trial < 5; trial++) {
    double q[MAXQ], u[MAXU];
    random_state(rng, rm, d, 2.0, q, u);
    set_state(rm, q, u);
    tst_body b[MAXB];
    char msg[200];
    CU_ASSERT_EQUAL(tst_redmax_export_bodies(rm, b, msg, sizeof msg), DYN_OK);
    for (int i = 0; i < nb; i++) {
      int p = d[i].parent;
      dyn_v3 ac = body_point(b[i].r, b[i].q, &d[i], d[i].anchor);
      dyn_v3 vc = dyn_v3_add(b[i].v, dyn_v3_cross(b[i].w, dyn_v3_sub(ac, b[i].r)));
      dyn_v3 ap = d[i].anchor, vp = dyn_v3_make(0, 0, 0), wp = dyn_v3_make(0, 0, 0);
      dyn_v3 axp = dyn_v3_normalize(d[i].axis);
      if (p >= 0) {
        ap = body_point(b[p].r, b[p].q, &d[p], d[i].anchor);
        vp = dyn_v3_add(b[p].v, dyn_v3_cross(b[p].w, dyn_v3_sub(ap, b[p].r)));
        wp = b[p].w;
        axp = dyn_quat_rotate(b[p].q, dyn_quat_rotate_inv(dyn_quat_normalize(d[p].q), axp));
      }
      double e1[3] = { ac.x, ac.y, ac.z }, e2[3] = { ap.x, ap.y, ap.z };
      TST_VEC_CLOSE(e1, e2, 3, 1e-13, 0);
      double f1[3] = { vc.x, vc.y, vc.z }, f2[3] = { vp.x, vp.y, vp.z };
      TST_VEC_CLOSE(f1, f2, 3, 1e-12, 0);
      if (d[i].joint == DYN_RM_HINGE) {
        dyn_v3 axc = dyn_quat_rotate(
            b[i].q, dyn_quat_rotate_inv(dyn_quat_normalize(d[i].q), dyn_v3_normalize(d[i].axis)));
        TST_CLOSE(dyn_v3_norm(dyn_v3_sub(axc, axp)), 0, 1e-14, 0);
        /* (w_i - w_p) x axis = 0 */
        TST_CLOSE(dyn_v3_norm(dyn_v3_cross(dyn_v3_sub(b[i].w, wp), axp)), 0, 1e-12, 0);
      }
    }
    double Mr[MAXU * MAXU], T = 0, Tb = 0;
    dyn_redmax_mass_matrix(rm, Mr, n);
    for (int a = 0; a < n; a++)
      for (int c = 0; c < n; c++) {
        T += 0.5 * u[a] * Mr[c * n + a] * u[c];
        TST_CLOSE(Mr[c * n + a], Mr[a * n + c], 1e-13 * max_abs(Mr, n * n), 0);
      }
    for (int i = 0; i < nb; i++) Tb += tst_body_kinetic(&b[i]);
    TST_CLOSE(T, Tb, 0, 1e-13);
    double Te;
    dyn_redmax_energy(rm, gvec(), &Te, NULL);
    TST_CLOSE(Te, Tb, 0, 1e-13);
  }
  dyn_redmax_free(rm);
  gsl_rng_free(rng);
}

/* ---- eq. 28 against energy conservation --------------------------------- */

static double total_energy(dyn_redmax *rm) {
  double T, V;
  dyn_redmax_energy(rm, gvec(), &T, &V);
  return T + V;
}

/* Along the exact flow dE/dt = P - u^T D u, with P = sum_i f_i . v_i +
 * t_i . w_i the power of the external loads (gravity, the joint springs and
 * the constraint forces are in E or do no work; the gyroscopic and
 * Coriolis terms do no work).  dE/dt is taken by a central difference along
 * the tangent of the flow, (q (+) eps u, u + eps du/dt): the difference of
 * E along any curve with that tangent is dE/dt + O(eps^2).  This checks the
 * accelerations of eq. 28 (Mr, J^T M dJ/dt u, the gyroscopic terms, the
 * load transforms, spring and damper signs) in one number per state.
 * Error: eps^2 E'''/6 ~ 1e-10 x O(1e3) plus rounding eps_mach E / eps ~
 * 1e-10; tolerance 1e-7 of the scale S = sum |u_c (Mr du)_c| + |P| + sum
 * |m g . v|. */
static void test_energy_rate(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 28);
  for (int which = 0; which < 3; which++) {
    int parent[MAXB];
    dyn_rm_joint kind[MAXB];
    int nb = tree_case(which, parent, kind);
    dyn_rm_body_def d[MAXB];
    random_tree(rng, nb, parent, kind, d);
    for (int i = 0; i < nb; i++) {
      d[i].stiffness = urand(rng, 0.0, 3.0);
      d[i].damping = which == 2 ? urand(rng, 0.0, 0.5) : 0.0;
    }
    dyn_redmax *rm = build(d, nb);
    int n = dyn_redmax_ndof(rm);
    for (int trial = 0; trial < 4; trial++) {
      double q[MAXQ], u[MAXU], ud[MAXU], qp[MAXQ], qm[MAXQ], up[MAXU], um[MAXU];
      dyn_v3 f[MAXB], t[MAXB];
      for (int i = 0; i < nb; i++) f[i] = random_v3(rng, 5.0), t[i] = random_v3(rng, 2.0);
      random_state(rng, rm, d, 2.0, q, u);
      set_state(rm, q, u);
      char msg[200];
      CU_ASSERT_EQUAL(dyn_redmax_accel(rm, gvec(), f, t, ud, msg, sizeof msg), DYN_OK);
      double P = 0, S = 0, Mr[MAXU * MAXU];
      for (int i = 0; i < nb; i++) {
        dyn_v3 v, w;
        dyn_redmax_body_state(rm, i, NULL, NULL, &v, &w);
        P += dyn_v3_dot(f[i], v) + dyn_v3_dot(t[i], w);
        S += fabs(d[i].mass * dyn_v3_dot(gvec(), v));
      }
      for (int c = 0; c < n; c++) {
        int i = 0;
        for (int k = 0; k < nb; k++) {
          int uo;
          dyn_redmax_offsets(rm, k, NULL, &uo);
          if (uo <= c) i = k;
        }
        P -= d[i].damping * u[c] * u[c];
      }
      dyn_redmax_mass_matrix(rm, Mr, n);
      for (int a = 0; a < n; a++) {
        double s = 0;
        for (int c = 0; c < n; c++) s += Mr[c * n + a] * ud[c];
        S += fabs(u[a] * s);
      }
      S += fabs(P);
      const double eps = 1e-5;
      advance(rm, d, q, u, eps, qp);
      advance(rm, d, q, u, -eps, qm);
      for (int c = 0; c < n; c++) up[c] = u[c] + eps * ud[c], um[c] = u[c] - eps * ud[c];
      set_state(rm, qp, up);
      double Ep = total_energy(rm);
      set_state(rm, qm, um);
      double Em = total_energy(rm);
      TST_CLOSE((Ep - Em) / (2 * eps), P, 1e-7 * S, 0);
    }
    dyn_redmax_free(rm);
  }
  gsl_rng_free(rng);
}

/* ---- pendulum periods ---------------------------------------------------- */

/* Average period from the upward zero crossings of q[0] (a single hinge
 * released from rest at q[0] > 0), each located by linear interpolation
 * between steps. */
static double measure_period(dyn_redmax *rm, double h, double tmax) {
  double q[MAXQ], prev, t = 0, first = -1, last = -1;
  int ncross = 0;
  char msg[200];
  dyn_redmax_get_state(rm, q, NULL);
  prev = q[0];
  while (t < tmax) {
    if (dyn_redmax_step(rm, h, gvec(), NULL, NULL, msg, sizeof msg) != DYN_OK) {
      fprintf(stderr, "step: %s\n", msg);
      return NAN;
    }
    t += h;
    dyn_redmax_get_state(rm, q, NULL);
    if (prev < 0 && q[0] >= 0) {
      double tc = t - h + h * (-prev) / (q[0] - prev);
      if (first < 0) first = tc;
      last = tc;
      ncross++;
    }
    prev = q[0];
  }
  return ncross >= 2 ? (last - first) / (ncross - 1) : NAN;
}

/* Simple pendulum: a sphere of radius a = 0.01, mass 1, centre at distance
 * L = 1 below a hinge (massless link).  As a physical pendulum its period
 * at amplitude th0 is 2 pi sqrt(I_pivot / (m g L)) (1 + th0^2/16 + ...)
 * with I_pivot = m L^2 + 2/5 m a^2 (parallel axes); the point-mass value
 * 2 pi sqrt(L/g) differs by (1 + 0.4 a^2/L^2)^(1/2) - 1 = 2e-5.  Released at
 * th0 = 0.02 (th0^2/16 = 2.5e-5, the next term 11 th0^4/3072 = 6e-10), h =
 * 1e-3: symplectic Euler's frequency error (w h)^2/24 = 4e-7 and the phase
 * offset of its positions cancels between crossings.  Asserted: within 1e-4
 * of the physical value and within the requested 0.5% of 2 pi sqrt(L/g). */
static void test_simple_pendulum(void) {
  const double L = 1.0, a = 0.01, m = 1.0, th0 = 0.02;
  dyn_rm_body_def d = dyn_rm_body_def_default();
  d.mass = m;
  d.I_b = dyn_inertia_sphere(m, a);
  d.r = dyn_v3_make(0, 0, -L);
  d.anchor = dyn_v3_make(0, 0, 0);
  d.axis = dyn_v3_make(0, 1, 0);
  dyn_redmax *rm = build(&d, 1);
  double q[1] = { th0 }, u[1] = { 0 };
  set_state(rm, q, u);
  double T = measure_period(rm, 1e-3, 10.5);
  double T0 = 2 * PI * sqrt(L / G);
  double Tphys = 2 * PI * sqrt((m * L * L + 0.4 * m * a * a) / (m * G * L)) * (1 + th0 * th0 / 16);
  TST_CLOSE(T, Tphys, 0, 1e-4);
  TST_CLOSE(T, T0, 0, 5e-3);
  dyn_redmax_free(rm);
}

/* Physical pendulum: a box rod of mass m, half extents (w, w, c), hinged at
 * one end, tilted body axes (its z axis maps to world -z, spun by 0.7 rad
 * about itself) and a horizontal hinge axis at 0.4 rad from x.  For a
 * square section every axis perpendicular to the rod has I_cm = m (w^2 +
 * c^2)/3 (box formula with full lengths 2w, 2c), so I_pivot = I_cm + m c^2
 * and T = 2 pi sqrt(I_pivot / (m g c)) (1 + th0^2/16).  Tolerance as in
 * the simple pendulum. */
static void test_physical_pendulum(void) {
  const double m = 2.0, w = 0.02, c = 0.5, th0 = 0.02;
  dyn_rm_body_def d = dyn_rm_body_def_default();
  d.mass = m;
  d.I_b = dyn_inertia_box(m, dyn_v3_make(w, w, c));
  d.q = dyn_quat_mul(dyn_quat_axis_angle(dyn_v3_make(1, 0, 0), PI),
                     dyn_quat_axis_angle(dyn_v3_make(0, 0, 1), 0.7));
  d.r = dyn_v3_make(0.3, -0.2, 1.0);
  d.anchor = dyn_v3_add(d.r, dyn_v3_make(0, 0, c));
  d.axis = dyn_v3_make(cos(0.4), sin(0.4), 0);
  dyn_redmax *rm = build(&d, 1);
  double q[1] = { th0 };
  set_state(rm, q, NULL);
  double T = measure_period(rm, 1e-3, 7.5);
  double Ip = m * (w * w + c * c) / 3 + m * c * c;
  TST_CLOSE(T, 2 * PI * sqrt(Ip / (m * G * c)) * (1 + th0 * th0 / 16), 0, 1e-4);
  dyn_redmax_free(rm);
}

/* ---- energy drift and its order in h ------------------------------------- */

/* A chain of nb box links of length 2c hanging from the origin along -z,
 * hinge axes alternating y and x (so the motion is three-dimensional for
 * nb > 2 when ax_alt is set). */
static int chain(int nb, double m, double c, int ax_alt, dyn_rm_body_def *d) {
  for (int i = 0; i < nb; i++) {
    d[i] = dyn_rm_body_def_default();
    d[i].parent = i - 1;
    d[i].mass = m;
    d[i].I_b = dyn_inertia_box(m, dyn_v3_make(0.1 * c, 0.1 * c, c));
    d[i].anchor = dyn_v3_make(0, 0, -2 * c * i);
    d[i].r = dyn_v3_make(0, 0, -2 * c * i - c);
    d[i].axis = (ax_alt && i % 2) ? dyn_v3_make(1, 0, 0) : dyn_v3_make(0, 1, 0);
  }
  return nb;
}

/* max_t |E(t) - E(0)| over [0, tend] */
static double drift(const dyn_rm_body_def *d, int nb, const double *q0, const double *u0, double h,
                    double tend) {
  dyn_redmax *rm = build(d, nb);
  set_state(rm, q0, u0);
  double E0 = total_energy(rm), worst = 0;
  char msg[200];
  int nsteps = (int)lround(tend / h);
  for (int k = 0; k < nsteps; k++) {
    if (dyn_redmax_step(rm, h, gvec(), NULL, NULL, msg, sizeof msg) != DYN_OK) {
      fprintf(stderr, "step: %s\n", msg);
      worst = INFINITY;
      break;
    }
    worst = fmax(worst, fabs(total_energy(rm) - E0));
  }
  dyn_redmax_free(rm);
  return worst;
}

/* Semi-implicit Euler is first order: its energy error over a fixed time
 * is O(h) (bounded oscillation for a separable system; here the mass
 * depends on q, and the O(h) bound holds on a fixed interval).  Halving h
 * must roughly halve the drift: ratios in [1.6, 2.5] (2 is the asymptote;
 * the band leaves room for the O(h^2) part).  The absolute drift at the
 * smallest h is bounded by 2% of the energy scale m g L of the chain. */
static void test_energy_order(void) {
  dyn_rm_body_def d[MAXB];
  /* double pendulum: two rods of length 1, mass 1, from (1.0, -0.5) rad */
  {
    int nb = chain(2, 1.0, 0.5, 0, d);
    double q0[2] = { 1.0, -0.5 }, u0[2] = { 0.5, -1.0 };
    double d1 = drift(d, nb, q0, u0, 2e-3, 2.0), d2 = drift(d, nb, q0, u0, 1e-3, 2.0),
           d3 = drift(d, nb, q0, u0, 5e-4, 2.0);
    printf("\n    double pendulum drift: %.3e %.3e %.3e\n", d1, d2, d3);
    CU_ASSERT(d1 / d2 > 1.6 && d1 / d2 < 2.5);
    CU_ASSERT(d2 / d3 > 1.6 && d2 / d3 < 2.5);
    CU_ASSERT(d3 < 0.02 * 2 * 1.0 * G * 1.0);
  }
  /* 10-link chain, alternating axes, links of length 0.1, mass 0.1 */
  {
    int nb = chain(10, 0.1, 0.05, 1, d);
    double q0[10], u0[10];
    for (int i = 0; i < 10; i++) q0[i] = (i % 2 ? -0.3 : 0.4), u0[i] = 0.2 * (i % 3);
    double d1 = drift(d, nb, q0, u0, 1e-3, 1.0), d2 = drift(d, nb, q0, u0, 5e-4, 1.0),
           d3 = drift(d, nb, q0, u0, 2.5e-4, 1.0);
    printf("    10-link chain drift:   %.3e %.3e %.3e\n", d1, d2, d3);
    CU_ASSERT(d1 / d2 > 1.6 && d1 / d2 < 2.5);
    CU_ASSERT(d2 / d3 > 1.6 && d2 / d3 < 2.5);
    CU_ASSERT(d3 < 0.02 * 10 * 0.1 * G * 1.0);
  }
}

/* ---- ball joint: the conical pendulum ------------------------------------ */

/* A sphere (mass 1, radius 0.05) on a ball joint at the origin, centre at
 * distance L from the pivot at angle al from the downward vertical,
 * spinning as a rigid body about the vertical with rate W.  Steady conical
 * motion needs dL_O/dt = W z x L_O = d x (m g), d the centre from the pivot:
 * L_O = W [(I0 + m L^2) z + m L cos(al) d] (I0 the sphere's isotropic
 * inertia), so z x L_O = W m L cos(al) (z x d), and d x (-m g z) =
 * m g (z x d): W^2 = g / (L cos al) whatever I0.  The joint starts at Q = I,
 * where the joint frame is the world's: u0 = (0, 0, W) + du0.
 * With du0 = 0 the motion is steady: the joint rotation is Q(t) = exp(W t z),
 * u = R(Q)^T W z = W z stays constant, and for a root joint J is constant, so
 * eq. 28 must give du/dt = 0 (gravity and the gyroscopic term balance in the
 * body frame) and the step reproduces the cone to rounding: cone angle to
 * 1e-12, azimuth W t to 1e-10 after 2 s (4000 steps of a few ulps of W t).
 * With du0 = (0, 0.8, 0) (nutation) the run checks |d| = L to rounding
 * (reduced coordinates hold the joint exactly), and the drifts of the energy
 * and of the vertical angular momentum about the pivot (gravity has no
 * torque about z): first order in h. */
static void conical_run(double h, dyn_v3 du0, double *e_al, double *e_az, double *e_len,
                        double *e_lz, double *e_E) {
  const double L = 1.0, al = 0.5, m = 1.0;
  const double W = sqrt(G / (L * cos(al)));
  dyn_rm_body_def d = dyn_rm_body_def_default();
  d.joint = DYN_RM_BALL;
  d.mass = m;
  d.I_b = dyn_inertia_sphere(m, 0.05);
  d.r = dyn_v3_make(L * sin(al), 0, -L * cos(al));
  dyn_redmax *rm = build(&d, 1);
  double u0[3] = { du0.x, du0.y, W + du0.z };
  set_state(rm, NULL, u0);
  tst_body b;
  char msg[200];
  tst_redmax_export_bodies(rm, &b, msg, sizeof msg);
  double Lz0 = tst_body_angular_momentum(&b).z, E0 = total_energy(rm);
  double t = 0, az_prev = 0, turns = 0;
  *e_al = *e_az = *e_len = *e_lz = *e_E = 0;
  int nsteps = (int)lround(2.0 / h);
  for (int k = 0; k < nsteps; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_redmax_step(rm, h, gvec(), NULL, NULL, msg, sizeof msg), DYN_OK);
    t += h;
    tst_redmax_export_bodies(rm, &b, msg, sizeof msg);
    dyn_v3 r = b.r;
    *e_len = fmax(*e_len, fabs(dyn_v3_norm(r) - L));
    *e_al = fmax(*e_al, fabs(acos(-r.z / dyn_v3_norm(r)) - al));
    double az = atan2(r.y, r.x);
    if (az < az_prev - PI) turns += 1;
    az_prev = az;
    *e_az = fmax(*e_az, fabs(az + 2 * PI * turns - W * t));
    *e_lz = fmax(*e_lz, fabs(tst_body_angular_momentum(&b).z - Lz0));
    *e_E = fmax(*e_E, fabs(total_energy(rm) - E0));
  }
  dyn_redmax_free(rm);
}

static void test_conical_pendulum(void) {
  double al, az, len, lz, e, al2, az2, len2, lz2, e2;
  conical_run(1e-3, dyn_v3_make(0, 0, 0), &al, &az, &len, &lz, &e);
  TST_CLOSE(al, 0, 1e-12, 0);
  TST_CLOSE(az, 0, 1e-10, 0);
  TST_CLOSE(len, 0, 1e-14, 0);
  TST_CLOSE(lz, 0, 1e-12, 0);
  conical_run(1e-3, dyn_v3_make(0, 0.8, 0), &al, &az, &len, &lz, &e);
  conical_run(5e-4, dyn_v3_make(0, 0.8, 0), &al2, &az2, &len2, &lz2, &e2);
  printf("\n    nutating: energy drift %.3e %.3e, Lz drift %.3e %.3e, cone angle range %.3f\n", e,
         e2, lz, lz2, al2);
  TST_CLOSE(len, 0, 1e-14, 0);
  TST_CLOSE(len2, 0, 1e-14, 0);
  /* bounds: 1% of m g L = 0.098 J and of L_z(0) = W (I0 + m L^2 sin^2 al) = 0.79 */
  CU_ASSERT(e2 < 0.01 * G && lz2 < 0.01 * 0.79);
  CU_ASSERT(e / e2 > 1.6 && e / e2 < 2.5);
  CU_ASSERT(lz / lz2 > 1.6 && lz / lz2 < 2.5);
}

/* ---- eq. 28 against Lagrange's equations (hinge trees) -------------------- */

/* For hinges q are true coordinates and eq. 28 must agree with Lagrange's
 * equations of L = T - V, T = qd^T Mr(q) qd / 2 (V: gravity and springs):
 *     Mr qdd = -dMr/dt qd + dT/dq - dV/dq,
 * with dMr/dt qd = (Mr(q + eps qd) - Mr(q - eps qd)) qd / (2 eps) and the
 * partial derivatives by central differences of dyn_redmax_energy.  Unlike
 * the energy balance this sees the workless terms (gyroscopic w x I w and
 * w x m v project to forces orthogonal to qd): random 3D axes and
 * non-isotropic inertias.  Error eps^2 x third derivatives ~ 1e-8 for eps =
 * 1e-4 (rounding eps_mach E / eps ~ 1e-11); tolerance 1e-6 of the largest
 * term. */
static void test_lagrange(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 1788);
  int parent[MAXB];
  dyn_rm_joint kind[MAXB];
  static const int p5[6] = { -1, 0, 1, 1, 3, -1 };
  int nb = 6;
  for (int i = 0; i < nb; i++) parent[i] = p5[i], kind[i] = DYN_RM_HINGE;
  dyn_rm_body_def d[MAXB];
  random_tree(rng, nb, parent, kind, d);
  for (int i = 0; i < nb; i++) d[i].stiffness = urand(rng, 0, 2);
  dyn_redmax *rm = build(d, nb);
  int n = dyn_redmax_ndof(rm);
  for (int trial = 0; trial < 4; trial++) {
    double q[MAXU], qd[MAXU], qdd[MAXU], x[MAXU], Mr[MAXU * MAXU], Mp[MAXU * MAXU], Mm[MAXU * MAXU],
        lhs[MAXU], rhs[MAXU], Tp, Vp, Tm, Vm;
    random_state(rng, rm, d, 2.0, q, qd);
    set_state(rm, q, qd);
    char msg[200];
    CU_ASSERT_EQUAL(dyn_redmax_accel(rm, gvec(), NULL, NULL, qdd, msg, sizeof msg), DYN_OK);
    dyn_redmax_mass_matrix(rm, Mr, n);
    const double eps = 1e-4;
    for (int c = 0; c < n; c++) x[c] = q[c] + eps * qd[c];
    set_state(rm, x, NULL);
    dyn_redmax_mass_matrix(rm, Mp, n);
    for (int c = 0; c < n; c++) x[c] = q[c] - eps * qd[c];
    set_state(rm, x, NULL);
    dyn_redmax_mass_matrix(rm, Mm, n);
    double big = 0;
    for (int a = 0; a < n; a++) {
      lhs[a] = rhs[a] = 0;
      for (int c = 0; c < n; c++) {
        lhs[a] += Mr[c * n + a] * qdd[c];
        rhs[a] -= (Mp[c * n + a] - Mm[c * n + a]) / (2 * eps) * qd[c];
      }
      memcpy(x, q, sizeof(double) * (size_t)n);
      x[a] = q[a] + eps;
      set_state(rm, x, qd);
      dyn_redmax_energy(rm, gvec(), &Tp, &Vp);
      x[a] = q[a] - eps;
      set_state(rm, x, qd);
      dyn_redmax_energy(rm, gvec(), &Tm, &Vm);
      rhs[a] += (Tp - Tm) / (2 * eps) - (Vp - Vm) / (2 * eps);
      big = fmax(big, fmax(fabs(lhs[a]), fabs((Tp - Tm) / (2 * eps))));
    }
    TST_VEC_CLOSE(lhs, rhs, n, 1e-6 * big, 0);
  }
  dyn_redmax_free(rm);
  gsl_rng_free(rng);
}

/* ---- ball joint: a heavy symmetric top in steady precession -------------- */

/* Symmetric body (I1 = I1, I3 about its axis e, body z), mass m, centre at
 * l e above a ball joint at the origin, e at angle th from the upward
 * vertical.  Steady precession at rate W about z with spin s about e: the
 * angular velocity w = W z + s e, L_O = I1' (w - (w.e) e) + I3 (w.e) e with
 * I1' = I1 + m l^2, and L_O turns rigidly with the precession: dL_O/dt =
 * W z x L_O = W (z x e) (I3 (W cos th + s) - I1' W cos th).  The gravity
 * torque is l e x (-m g z) = m g l (z x e), so
 *     s = (m g l / W + I1' W cos th) / I3 - W cos th.
 * Here the spin is fast (s ~ 60 rad/s): the gyroscopic term holds the top
 * up, and without it the top falls.  u0 = W z + s e (joint frame = world at
 * Q = I).  Over 1 s: the polar angle of e stays th and its azimuth follows
 * W t, errors O(h) (ratio in [1.6, 2.5] when h halves), bounded by 1e-3 rad
 * at h = 1e-4. */
static void top_run(double h, double *e_th, double *e_az) {
  const double m = 1, l = 0.1, I1 = 0.012, I3 = 0.02, th = 0.4, W = 0.8;
  const double s = (m * G * l / W + (I1 + m * l * l) * W * cos(th)) / I3 - W * cos(th);
  dyn_v3 e = dyn_v3_make(sin(th), 0, cos(th));
  dyn_rm_body_def d = dyn_rm_body_def_default();
  d.joint = DYN_RM_BALL;
  d.mass = m;
  d.I_b = dyn_m3_diag(I1, I1, I3);
  d.q = dyn_quat_axis_angle(dyn_v3_make(0, 1, 0), th); /* body z -> e */
  d.r = dyn_v3_scale(e, l);
  dyn_redmax *rm = build(&d, 1);
  dyn_v3 w0 = dyn_v3_axpy(dyn_v3_make(0, 0, W), s, e);
  double u0[3] = { w0.x, w0.y, w0.z };
  set_state(rm, NULL, u0);
  char msg[200];
  double t = 0;
  *e_th = *e_az = 0;
  int nsteps = (int)lround(1.0 / h);
  for (int k = 0; k < nsteps; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_redmax_step(rm, h, gvec(), NULL, NULL, msg, sizeof msg), DYN_OK);
    t += h;
    dyn_v3 r;
    dyn_redmax_body_state(rm, 0, &r, NULL, NULL, NULL);
    *e_th = fmax(*e_th, fabs(acos(r.z / dyn_v3_norm(r)) - th));
    *e_az = fmax(*e_az, fabs(atan2(r.y, r.x) - W * t)); /* W t < pi over 1 s */
  }
  dyn_redmax_free(rm);
}

static void test_heavy_top(void) {
  double a1, z1, a2, z2;
  top_run(2e-4, &a1, &z1);
  top_run(1e-4, &a2, &z2);
  printf("\n    top: polar angle err %.3e %.3e, azimuth err %.3e %.3e\n", a1, a2, z1, z2);
  CU_ASSERT(a2 < 1e-3 && z2 < 1e-3);
  CU_ASSERT(a1 / a2 > 1.6 && a1 / a2 < 2.5);
  CU_ASSERT(z1 / z2 > 1.6 && z1 / z2 < 2.5);
}

/* ---- joint springs and dampers -------------------------------------------- */

/* A rod (as in the physical pendulum) on a hinge spring k, no gravity:
 * I th'' = -k th (I = I_pivot), period 2 pi sqrt(I / k) (linear: no
 * amplitude correction).  With the linearly implicit spring the step is
 * implicit Euler for this linear system: frequency error O((w h)^2) = 1e-5
 * at h = 1e-3, tolerance 1e-4.
 * With a damper d added (gamma = d / I): implicit Euler on a linear system
 * dissipates at every step, E+ - E = -(I du^2 + k dth^2)/2 - h d u+^2 <= 0
 * exactly, so E must never increase (to rounding).  The step maps the state
 * by (1 - h A)^-1, whose eigenvalues 1 / (1 - h s) come from the
 * continuous ones s = -gamma/2 +- i w_d, w_d^2 = k/I - gamma^2/4; after N
 * steps spanning (to O(h^2)) a whole number of damped periods the state is
 * the initial one scaled by |1 - h s|^-N, so
 *     E_N / E_0 = ((1 + h gamma/2)^2 + h^2 w_d^2)^-N,
 * i.e. the exact exp(-gamma t) times the scheme's own damping (~7% here).
 * Tolerance 1e-4 for the phase mismatch of the N steps. */
static void test_spring_damper(void) {
  const double m = 2.0, w = 0.02, c = 0.5, k = 5.0, Ip = m * (w * w + c * c) / 3 + m * c * c;
  dyn_rm_body_def d = dyn_rm_body_def_default();
  d.mass = m;
  d.I_b = dyn_inertia_box(m, dyn_v3_make(w, w, c));
  d.r = dyn_v3_make(0, 0, -c);
  d.axis = dyn_v3_make(0, 1, 0);
  d.stiffness = k;
  dyn_redmax *rm = build(&d, 1);
  double q[1] = { 0.3 };
  set_state(rm, q, NULL);
  /* no gravity: measure_period uses gvec(), so run by hand */
  double prev = q[0], t = 0, first = -1, last = -1, h = 1e-3;
  int ncross = 0;
  char msg[200];
  dyn_v3 g0 = dyn_v3_make(0, 0, 0);
  while (t < 10.0) {
    CU_ASSERT_EQUAL_FATAL(dyn_redmax_step(rm, h, g0, NULL, NULL, msg, sizeof msg), DYN_OK);
    t += h;
    dyn_redmax_get_state(rm, q, NULL);
    if (prev < 0 && q[0] >= 0) {
      double tc = t - h + h * (-prev) / (q[0] - prev);
      if (first < 0) first = tc;
      last = tc;
      ncross++;
    }
    prev = q[0];
  }
  CU_ASSERT(ncross >= 2);
  TST_CLOSE((last - first) / (ncross - 1), 2 * PI * sqrt(Ip / k), 0, 1e-4);
  dyn_redmax_free(rm);

  const double dmp = 0.05, gam = dmp / Ip, wd = sqrt(k / Ip - gam * gam / 4);
  const double Tp = 2 * PI / wd;
  d.damping = dmp;
  rm = build(&d, 1);
  q[0] = 0.3;
  set_state(rm, q, NULL);
  double T, V;
  dyn_redmax_energy(rm, g0, &T, &V);
  double E0 = T + V, Eprev = E0;
  int nper = 4, nsteps = (int)lround(nper * Tp / h), increased = 0;
  for (int s = 0; s < nsteps; s++) {
    CU_ASSERT_EQUAL_FATAL(dyn_redmax_step(rm, h, g0, NULL, NULL, msg, sizeof msg), DYN_OK);
    dyn_redmax_energy(rm, g0, &T, &V);
    if (T + V > Eprev * (1 + 8 * DBL_EPSILON)) increased++;
    Eprev = T + V;
  }
  CU_ASSERT_EQUAL(increased, 0);
  double f1 = (1 + h * gam / 2) * (1 + h * gam / 2) + h * h * wd * wd;
  TST_CLOSE(Eprev / E0, pow(f1, -nsteps), 0, 1e-4);
  printf("\n    damped: E/E0 = %.6f, scheme %.6f, exact flow exp(-gamma t) = %.6f\n", Eprev / E0,
         pow(f1, -nsteps), exp(-gam * nsteps * h));
  dyn_redmax_free(rm);
}

/* ---- validation ------------------------------------------------------------ */

static dyn_rm_body_def valid_def(int parent) {
  dyn_rm_body_def d = dyn_rm_body_def_default();
  d.parent = parent;
  d.mass = 1.0;
  d.I_b = dyn_m3_diag(0.1, 0.1, 0.1);
  d.r = dyn_v3_make(0, 0, -1.0 - parent);
  d.anchor = dyn_v3_make(0, 0, -0.5 - parent);
  d.axis = dyn_v3_make(0, 1, 0);
  return d;
}

/* expect DYN_ERR_INPUT, a NULL model and a message containing `word` */
static void expect_bad(const dyn_rm_body_def *d, int nb, const char *word) {
  dyn_redmax *rm = (dyn_redmax *)1;
  char msg[200] = "";
  dyn_err e = dyn_redmax_new(d, nb, &rm, msg, sizeof msg);
  CU_ASSERT_EQUAL(e, DYN_ERR_INPUT);
  CU_ASSERT_PTR_NULL(rm);
  if (!strstr(msg, word)) {
    fprintf(stderr, "message '%s' lacks '%s'\n", msg, word);
    CU_FAIL("message does not name the field");
  }
  if (e == DYN_OK) dyn_redmax_free(rm);
}

static void test_validation(void) {
  dyn_rm_body_def d[3] = { valid_def(-1), valid_def(0), valid_def(1) };
  dyn_rm_body_def b[3];
#define VARIANT(stmt, word)                                                                        \
  do {                                                                                             \
    memcpy(b, d, sizeof d);                                                                        \
    stmt;                                                                                          \
    expect_bad(b, 3, word);                                                                        \
  } while (0)
  VARIANT(b[2].parent = 3, "defs[2].parent");
  VARIANT(b[1].parent = -2, "defs[1].parent");
  VARIANT(b[1].parent = 1, "defs[1].parent");
  VARIANT((b[0].parent = 2, b[2].parent = 1, b[1].parent = 0), "cycle");
  VARIANT(b[1].axis = dyn_v3_make(0, 0, 0), "defs[1].axis");
  VARIANT(b[1].axis = dyn_v3_make(NAN, 0, 1), "defs[1].axis");
  VARIANT(b[2].mass = 0.0, "mass");
  VARIANT(b[0].mass = -1.0, "defs[0]");
  VARIANT(b[1].I_b = dyn_m3_diag(1, -1, 1), "inertia");
  VARIANT(b[1].q = dyn_quat_make(0, 0, 0, 0), "quaternion");
  VARIANT(b[1].anchor = dyn_v3_make(INFINITY, 0, 0), "defs[1].anchor");
  VARIANT(b[1].damping = -0.1, "defs[1].damping");
  VARIANT(b[1].stiffness = NAN, "defs[1].stiffness");
  VARIANT(b[1].joint = (dyn_rm_joint)7, "defs[1].joint");
#undef VARIANT
  expect_bad(d, 0, "nb");
  /* a zero axis is fine on a ball joint (ignored) */
  memcpy(b, d, sizeof d);
  b[1].joint = DYN_RM_BALL;
  b[1].axis = dyn_v3_make(0, 0, 0);
  dyn_redmax *rm = build(b, 3);
  CU_ASSERT_EQUAL(dyn_redmax_nq(rm), 1 + 4 + 1);
  CU_ASSERT_EQUAL(dyn_redmax_ndof(rm), 1 + 3 + 1);
  int qo, uo;
  CU_ASSERT_EQUAL(dyn_redmax_offsets(rm, 2, &qo, &uo), DYN_OK);
  CU_ASSERT(qo == 5 && uo == 4);
  CU_ASSERT_EQUAL(dyn_redmax_offsets(rm, 3, &qo, &uo), DYN_ERR_INPUT);
  char msg[200];
  double q[6] = { 0.1, 0, 0, 0, 0, 0.2 }, u[5] = { 0, 0, 0, 0, 0 }, q2[6];
  CU_ASSERT_EQUAL(dyn_redmax_set_state(rm, q, NULL, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT(strstr(msg, "ball joint 1") != NULL);
  dyn_redmax_get_state(rm, q2, NULL);
  CU_ASSERT(q2[0] == 0.0 && q2[1] == 1.0); /* unchanged: still the initial state */
  u[3] = NAN;
  CU_ASSERT_EQUAL(dyn_redmax_set_state(rm, NULL, u, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT(strstr(msg, "u[3]") != NULL);
  /* a non-unit quaternion is normalised */
  q[1] = 2.0;
  CU_ASSERT_EQUAL(dyn_redmax_set_state(rm, q, NULL, msg, sizeof msg), DYN_OK);
  dyn_redmax_get_state(rm, q2, NULL);
  CU_ASSERT_EQUAL(q2[1], 1.0);
  CU_ASSERT_EQUAL(dyn_redmax_step(rm, 0.0, gvec(), NULL, NULL, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT(strstr(msg, "h = 0") != NULL);
  CU_ASSERT_EQUAL(dyn_redmax_step(rm, NAN, gvec(), NULL, NULL, msg, sizeof msg), DYN_ERR_INPUT);
  dyn_redmax_free(rm);
  dyn_redmax_free(NULL);
  CU_ASSERT_EQUAL(dyn_redmax_new(d, 3, NULL, msg, sizeof msg), DYN_ERR_INPUT);
}

/* A ball quaternion that is unit to rounding is kept bit for bit by
 * dyn_redmax_set_state (a saved state restored is the state saved); one
 * that is not is normalised.  The unit one is chosen so that normalising it
 * again changes its bits (q / |q| is not a fixed point of the rounding):
 * before the fix set_state normalised every ball quaternion, a restored
 * world's q differed in its last bits and its steps parted from the
 * saved world's (test_world_jacobian_reduced's restore test, once the
 * trajectory's rounding moved). */
static void test_set_state_keeps_unit(void) {
  int parent[7];
  dyn_rm_joint kind[7];
  const int nb = tree_case(1, parent, kind);
  dyn_rm_body_def d[7];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 8282);
  random_tree(rng, nb, parent, kind, d);
  dyn_redmax *rm = build(d, nb);
  const int nq = dyn_redmax_nq(rm);
  double q[32], back[32];
  char msg[200];
  dyn_redmax_get_state(rm, q, NULL);
  dyn_quat Q = dyn_quat_identity(), again = Q;
  for (int tries = 0; tries < 1000; tries++) { /* a unit quaternion that normalising moves */
    Q = random_quat(rng);
    again = dyn_quat_normalize(Q);
    if (memcmp(&Q, &again, sizeof Q) != 0) break;
  }
  CU_ASSERT_NOT_EQUAL_FATAL(memcmp(&Q, &again, sizeof Q), 0);
  CU_ASSERT(fabs(dyn_quat_norm(Q) - 1.0) <= 8.0 * DBL_EPSILON);
  int o, uo;
  dyn_redmax_offsets(rm, 1, &o, &uo); /* body 1's ball */
  q[o] = Q.w, q[o + 1] = Q.x, q[o + 2] = Q.y, q[o + 3] = Q.z;
  CU_ASSERT_EQUAL_FATAL(dyn_redmax_set_state(rm, q, NULL, msg, sizeof msg), DYN_OK);
  dyn_redmax_get_state(rm, back, NULL);
  CU_ASSERT_EQUAL(memcmp(q, back, (size_t)nq * sizeof *q), 0);
  q[o] = 2.0 * Q.w, q[o + 1] = 2.0 * Q.x, q[o + 2] = 2.0 * Q.y, q[o + 3] = 2.0 * Q.z; /* |q| 2 */
  CU_ASSERT_EQUAL_FATAL(dyn_redmax_set_state(rm, q, NULL, msg, sizeof msg), DYN_OK);
  dyn_redmax_get_state(rm, back, NULL);
  CU_ASSERT_DOUBLE_EQUAL(
      dyn_quat_norm(dyn_quat_make(back[o], back[o + 1], back[o + 2], back[o + 3])), 1.0, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(back[o + 1], Q.x, 1e-15);
  dyn_redmax_free(rm);
  gsl_rng_free(rng);
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("redmax kinematics", NULL, NULL);
  CU_add_test(s, "J and dJ/dt vs central differences (hinge, ball, mixed tree)", test_jacobian_fd);
  CU_add_test(s, "joints in maximal coordinates; Mr vs kinetic energy", test_maximal_view);
  CU_pSuite t = CU_add_suite("redmax dynamics", NULL, NULL);
  CU_add_test(t, "eq. 28: dE/dt = power of loads and dampers", test_energy_rate);
  CU_add_test(t, "eq. 28 vs Lagrange's equations (hinge tree)", test_lagrange);
  CU_add_test(t, "heavy symmetric top: steady precession on a ball joint", test_heavy_top);
  CU_add_test(t, "simple pendulum period", test_simple_pendulum);
  CU_add_test(t, "physical pendulum period (rod hinged at one end)", test_physical_pendulum);
  CU_add_test(t, "energy drift O(h): double pendulum, 10-link chain", test_energy_order);
  CU_add_test(t, "conical pendulum on a ball joint", test_conical_pendulum);
  CU_add_test(t, "hinge spring period, damper dissipation", test_spring_damper);
  CU_pSuite v = CU_add_suite("redmax validation", NULL, NULL);
  CU_add_test(v, "bad definitions, states and steps", test_validation);
  CU_add_test(v, "a unit ball quaternion set is kept bit for bit", test_set_state_keeps_unit);
  return tst_run();
}
