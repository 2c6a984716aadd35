/* test_joint.c -- joints, limits, motors and soft rows (joint.c):
 *   - every row of every kind (and every limit and motor row) against central
 *     finite differences of its position-level function (dyn_joint_phi,
 *     dyn_joint_coord) at random, violated poses, column by column: each
 *     body's position along each world axis and its orientation by the
 *     exponential map about each world axis;
 *   - the bias sign: an initial error shrinks by (1 - erp) per step;
 *   - a small-angle pendulum (ball and hinge to the world): the period;
 *   - motors: the target velocity reached, or the analytic saturated
 *     acceleration; the hinge angle continuous through +-pi;
 *   - limits: a hinge and a slider falling onto their stops stay there;
 *   - soft rows: the damped oscillator's frequency and decay, and the
 *     damper of docs/contact.md, "CFM and ERP" (soft rows);
 *   - validation messages and input errors.
 * Stepping uses the lower-level API: rows -> dyn_assemble (dense) ->
 * slv_solve ("dantzig": free and boxed rows, symmetric A) ->
 * dyn_apply_impulse -> dyn_body_update_position (symplectic Euler). */
#include "dyn_constraint.h"
#include "dyn_joint.h"
#include "slv.h"
#include "tst_dyn.h"
#include "tst_util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* ---- a small stepper over the lower-level API ----------------------------- */

typedef struct stepper {
  dyn_system *sys;
  slv_workspace *ws;
  slv_options opt;
  dyn_rows rows[64];
  double x[64];
  int n; /* rows of the last step */
} stepper;

static void stepper_init(stepper *s, int nb) {
  memset(s, 0, sizeof *s);
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(64, nb, DYN_SYS_DENSE, 0, &s->sys, NULL, 0), DYN_OK);
  s->opt = slv_options_default();
  s->opt.tol = 1e-10; /* relative to max(1, |b|): far below every tolerance below */
  const slv_solver *sv = slv_solver_find("dantzig");
  CU_ASSERT_PTR_NOT_NULL_FATAL(sv);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, 64, &s->opt, &s->ws), SLV_OK);
}

static void stepper_free(stepper *s) {
  slv_workspace_free(s->ws);
  dyn_system_free(s->sys);
}

/* One step: joint rows, solve, u+ = u + M^-1 (J^T x + h f) + h g, then
 * r += h v+, q by exp(h w+).  Returns 0 on success. */
static int step(stepper *s, tst_body *B, int nb, const dyn_joint *J, int nj, double h, dyn_v3 g) {
  int n = 0;
  for (int k = 0; k < nj; k++) {
    int m = tst_joint_fill(B, nb, &J[k], h, s->rows, n);
    if (m < 0) return -1;
    n += m;
  }
  s->n = n;
  slv_problem p;
  if (tst_assemble(s->sys, B, nb, s->rows, n, h, g, SLV_DENSE, &p) != DYN_OK) return -2;
  slv_result res;
  memset(s->x, 0, sizeof s->x);
  slv_status st = slv_solve(s->ws, &p, &s->opt, s->x, NULL, &res);
  if (st != SLV_CONVERGED) {
    printf("solve: %s %s\n", slv_status_str(st), res.message);
    return -3;
  }
  if (tst_apply_impulse(s->sys, B, nb, s->x, h, g) != DYN_OK) return -4;
  for (int i = 0; i < nb; i++) tst_body_update_position(&B[i], h, DYN_ORIENT_EXP);
  return 0;
}

/* ---- finite differences ---------------------------------------------------- */

/* All the position-level values whose derivatives the rows of fill are:
 * the base Phi, then the coordinate once per limit / motor row (both have
 * J = d(coord), see dyn_joint_fill). */
static int all_phi(const tst_body *B, int nb, const dyn_joint *j, int nextra, double *phi) {
  int m = tst_joint_phi(B, nb, j, phi);
  CU_ASSERT_FATAL(m > 0);
  if (nextra > 0) {
    double c;
    CU_ASSERT_EQUAL_FATAL(tst_joint_coord(B, nb, j, &c), DYN_OK);
    for (int k = 0; k < nextra; k++) phi[m + k] = c;
  }
  return m + nextra;
}

/* perturb body i along column col (0-2 position, 3-5 rotation about a world axis) */
static void perturb(tst_body *b, int col, double t) {
  dyn_v3 e = dyn_v3_make(col % 3 == 0, col % 3 == 1, col % 3 == 2);
  if (col < 3)
    b->r = dyn_v3_axpy(b->r, t, e);
  else
    b->q = tst_rotate_by(b->q, dyn_v3_scale(e, t));
}

static int fd_check(tst_body *B, int nb, const dyn_joint *j, const dyn_rows *rows, int m) {
  int nextra = m - dyn_joint_base_rows(j->kind);
  double pp[8], pm[8];
  int bad = 0;
  for (int side = 0; side < 2; side++) {
    int bi = side ? j->b : j->a;
    if (bi < 0 || B[bi].is_static) {
      /* a static side carries no J and index -1 */
      for (int r = 0; r < m; r++) {
        CU_ASSERT_EQUAL(rows[r].body[side], -1);
        for (int c = 0; c < 6; c++) CU_ASSERT_EQUAL(rows[r].J[side][c], 0.0);
      }
      continue;
    }
    for (int col = 0; col < 6; col++) {
      /* eps = 1e-6: truncation ~ eps^2 |Phi'''| ~ 1e-12, rounding ~ 1e-16 / eps = 1e-10 */
      const double eps = 1e-6;
      tst_body save = B[bi];
      perturb(&B[bi], col, eps);
      all_phi(B, nb, j, nextra, pp);
      B[bi] = save;
      perturb(&B[bi], col, -eps);
      all_phi(B, nb, j, nextra, pm);
      B[bi] = save;
      for (int r = 0; r < m; r++) {
        double fd = (pp[r] - pm[r]) / (2 * eps), Jv = rows[r].J[side][col];
        double scale = 1.0;
        for (int c = 0; c < 6; c++) scale = fmax(scale, fabs(rows[r].J[side][c]));
        if (fabs(Jv - fd) > 1e-6 * scale) {
          printf("\n  kind %d row %d side %d col %d: J=%.12g fd=%.12g\n", (int)j->kind, r, side,
                 col, Jv, fd);
          bad++;
        }
      }
    }
    for (int r = 0; r < m; r++) CU_ASSERT_EQUAL(rows[r].body[side], bi);
  }
  return bad;
}

static dyn_joint make_joint(gsl_rng *rng, dyn_joint_kind kind, tst_body *B, int nb, int a, int b) {
  dyn_v3 anchor = dyn_v3_add(dyn_v3_scale(dyn_v3_add(B[a].r, b >= 0 ? B[b].r : B[a].r), 0.5),
                             tst_rvec(rng, 0.3));
  dyn_v3 s1 = tst_runit(rng), s2 = tst_runit(rng);
  if (kind == DYN_JOINT_UNIVERSAL) s2 = dyn_v3_normalize(dyn_v3_cross(s1, s2));
  dyn_joint j;
  char msg[160];
  dyn_err e = tst_joint_init(&j, kind, B, nb, a, b, anchor, s1, s2, msg, sizeof msg);
  if (e != DYN_OK) printf("init: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  return j;
}

static void test_jacobian_fd(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 5);
  dyn_rows rows[16];
  int checked = 0, bad = 0;
  for (int kind = DYN_JOINT_BALL; kind <= DYN_JOINT_FIXED; kind++)
    for (int trial = 0; trial < 12; trial++) {
      tst_body B[2];
      B[0] = tst_box_body(tst_urand(rng, 0.5, 3), dyn_v3_make(0.3, 0.5, 0.2), tst_rvec(rng, 1),
                          tst_rquat(rng));
      B[1] = tst_box_body(tst_urand(rng, 0.5, 3), dyn_v3_make(0.4, 0.2, 0.6), tst_rvec(rng, 1),
                          tst_rquat(rng));
      /* b: a dynamic body, the world (-1), or a static body */
      int b = trial % 3 == 1 ? -1 : 1;
      if (trial % 3 == 2) B[1].is_static = 1;
      dyn_joint j = make_joint(rng, (dyn_joint_kind)kind, B, 2, 0, b);
      /* at construction every Phi and the coordinate vanish */
      double phi[8];
      int nbase = tst_joint_phi(B, 2, &j, phi);
      CU_ASSERT_EQUAL(nbase, dyn_joint_base_rows(j.kind));
      for (int r = 0; r < nbase; r++) TST_CLOSE(phi[r], 0.0, 1e-14, 0);
      TST_CLOSE(tst_joint_anchor_error(B, 2, &j), 0.0, 1e-14, 0);
      double c0;
      if (tst_joint_coord(B, 2, &j, &c0) == DYN_OK) TST_CLOSE(c0, 0.0, 1e-14, 0);
      /* violate the joint: move and turn a (and b if it is dynamic) */
      B[0].r = dyn_v3_add(B[0].r, tst_rvec(rng, 0.3));
      B[0].q = tst_rotate_by(B[0].q, tst_rvec(rng, 0.5));
      if (b >= 0 && !B[1].is_static) {
        B[1].r = dyn_v3_add(B[1].r, tst_rvec(rng, 0.3));
        B[1].q = tst_rotate_by(B[1].q, tst_rvec(rng, 0.5));
      }
      int coord_kind =
          kind == DYN_JOINT_SLIDER || kind == DYN_JOINT_HINGE || kind == DYN_JOINT_HINGE2;
      if (coord_kind && trial % 2 == 0) {
        /* an active limit (lower or upper) and a motor driving away from it:
         * both rows are written */
        double c;
        CU_ASSERT_EQUAL_FATAL(tst_joint_coord(B, 2, &j, &c), DYN_OK);
        j.limit.enabled = 1;
        j.motor.enabled = 1;
        j.motor.max_force = 3;
        if (trial % 4 == 0) {
          j.limit.lo = c + 0.1;
          j.limit.hi = c + 0.5;
          j.motor.target_vel = 100;
        } else {
          j.limit.lo = c - 0.5;
          j.limit.hi = c - 0.1;
          j.motor.target_vel = -100;
        }
      }
      int m = tst_joint_fill(B, 2, &j, 0.01, rows, 0);
      CU_ASSERT_FATAL(m > 0);
      CU_ASSERT(m <= dyn_joint_max_rows(&j));
      CU_ASSERT_EQUAL(m, nbase + (j.limit.enabled ? 2 : 0));
      /* rhs = -(erp / h) Phi on the base rows */
      nbase = tst_joint_phi(B, 2, &j, phi);
      for (int r = 0; r < nbase; r++) TST_CLOSE(rows[r].rhs, -0.2 * phi[r] / 0.01, 1e-12, 1e-12);
      if (j.limit.enabled) {
        /* limit row first, then the motor row */
        if (trial % 4 == 0) {
          CU_ASSERT_EQUAL(rows[nbase].lo, 0.0);
          CU_ASSERT(isinf(rows[nbase].hi) && rows[nbase].hi > 0);
        } else {
          CU_ASSERT(isinf(rows[nbase].lo) && rows[nbase].lo < 0);
          CU_ASSERT_EQUAL(rows[nbase].hi, 0.0);
        }
        TST_CLOSE(rows[nbase + 1].lo, -0.03, 1e-15, 0);
        TST_CLOSE(rows[nbase + 1].hi, 0.03, 1e-15, 0);
        TST_CLOSE(rows[nbase + 1].rhs, j.motor.target_vel, 0, 0);
      }
      bad += fd_check(B, 2, &j, rows, m);
      checked += m;
    }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(checked > 300);
  gsl_rng_free(rng);
}

/* The hinge angle on a hand case: b turned by alpha about the axis has
 * theta = alpha, for alpha beyond pi too (up to 2 pi, the double cover). */
static void test_hinge_angle(void) {
  tst_body B[1];
  B[0] = tst_box_body(1, dyn_v3_make(0.2, 0.3, 0.4), dyn_v3_make(1, 0, 0), dyn_quat_identity());
  dyn_joint j;
  dyn_v3 ax = dyn_v3_normalize(dyn_v3_make(1, 2, 2));
  CU_ASSERT_EQUAL_FATAL(
      tst_joint_init(&j, DYN_JOINT_HINGE, B, 1, 0, -1, dyn_v3_make(0, 0, 0), ax, ax, NULL, 0),
      DYN_OK);
  dyn_quat q0 = B[0].q;
  double prev = 0;
  for (int k = 1; k <= 70; k++) {
    double alpha = 0.09 * k; /* through pi, stopping short of the 2 pi wrap */
    if (alpha >= 2 * PI - 0.05) break;
    /* a turns by alpha about ax: b (the world) turns by -alpha relative to
     * a, so theta = -alpha */
    B[0].q = dyn_quat_mul(dyn_quat_axis_angle(ax, alpha), q0);
    double th;
    CU_ASSERT_EQUAL(tst_joint_coord(B, 1, &j, &th), DYN_OK);
    TST_CLOSE(th, -alpha, 1e-12, 0);
    CU_ASSERT(fabs(th - prev) < 0.1); /* no jump at -pi */
    prev = th;
  }
}

/* ---- bias sign: an initial error shrinks by (1 - erp) per step ------------ */

static void test_error_decay(void) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 11);
  stepper s;
  stepper_init(&s, 2);
  const double h = 0.01, erp = 0.2;
  dyn_v3 g0 = dyn_v3_make(0, 0, 0);
  for (int kind = DYN_JOINT_BALL; kind <= DYN_JOINT_FIXED; kind++)
    for (int two = 0; two < 2; two++) {
      tst_body B[2];
      B[0] = tst_box_body(1.5, dyn_v3_make(0.3, 0.4, 0.2), tst_rvec(rng, 1), tst_rquat(rng));
      B[1] = tst_box_body(2.5, dyn_v3_make(0.2, 0.3, 0.5), tst_rvec(rng, 1), tst_rquat(rng));
      int b = two ? 1 : -1;
      dyn_joint j = make_joint(rng, (dyn_joint_kind)kind, B, 2, 0, b);
      /* an initial error of order 1e-3 (m, rad): first-order decay is then
       * exact to O(1e-3) relative */
      B[0].r = dyn_v3_add(B[0].r, tst_rvec(rng, 1e-3));
      B[0].q = tst_rotate_by(B[0].q, tst_rvec(rng, 1e-3));
      double phi[8];
      int m = tst_joint_phi(B, 2, &j, phi);
      double e0 = 0;
      for (int r = 0; r < m; r++) e0 += phi[r] * phi[r];
      e0 = sqrt(e0);
      double ek = e0;
      for (int k = 1; k <= 10; k++) {
        CU_ASSERT_EQUAL_FATAL(step(&s, B, two ? 2 : 1, &j, 1, h, g0), 0);
        tst_joint_phi(B, 2, &j, phi);
        double e = 0;
        for (int r = 0; r < m; r++) e += phi[r] * phi[r];
        e = sqrt(e);
        /* Phi+ = Phi + h J u+ + O(h^2 |u|^2) = (1 - erp) Phi (1 + O(|Phi|)) */
        TST_CLOSE(e / ek, 1 - erp, 0.01, 0);
        ek = e;
      }
      TST_CLOSE(ek / e0, pow(1 - erp, 10), 0.02, 0);
    }
  stepper_free(&s);
  gsl_rng_free(rng);
}

/* ---- pendulum ---------------------------------------------------------------- */

/* A bob (sphere, radius 0.01, mass m) at distance L below a pivot, jointed
 * to the world at the pivot.  With a ball joint the anchor is fixed in the
 * bob at distance L from its centre, so the bob swings as a rigid body: a
 * physical pendulum with I_pivot = m L^2 + 2/5 m r^2 and period
 *     T = 2 pi sqrt(I_pivot / (m g L)) (1 + theta0^2 / 16 + ...)
 *       = 2 pi sqrt(L / g) * sqrt(1 + 0.4 r^2 / L^2) * (1 + theta0^2/16),
 * the massless-link value 2 pi sqrt(L/g) up to 2e-5 (r/L = 0.01) and 1.6e-4
 * (theta0 = 0.05).  A hinge about y gives the same motion with 5 rows (the
 * bob's own rotation is then tied to the link, which a ball joint leaves free
 * only about the link, where nothing drives it).  Symplectic Euler's
 * phase error is O((omega h)^2) = 1e-5 at h = 1e-3. */
static double pendulum_period(dyn_joint_kind kind) {
  const double L = 1.0, r = 0.01, m = 0.7, g = 9.81, th0 = 0.05, h = 1e-3;
  tst_body B[1];
  B[0] = tst_ball_body(m, r, dyn_v3_make(L * sin(th0), 0, -L * cos(th0)));
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, kind, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(0, 1, 0), dyn_v3_make(0, 0, 1), NULL, 0),
                        DYN_OK);
  stepper s;
  stepper_init(&s, 1);
  dyn_v3 gv = dyn_v3_make(0, 0, -g);
  double t = 0, xprev = B[0].r.x, tcross[8];
  int nc = 0;
  double maxerr = 0;
  for (int k = 0; k < 7000 && nc < 8; k++) {
    if (step(&s, B, 1, &j, 1, h, gv) != 0) {
      CU_FAIL("step failed");
      break;
    }
    t += h;
    double x = B[0].r.x;
    if (xprev > 0 && x <= 0) /* downward crossings of x = 0, interpolated */
      tcross[nc++] = t - h * x / (x - xprev);
    xprev = x;
    maxerr = fmax(maxerr, tst_joint_anchor_error(B, 1, &j));
  }
  stepper_free(&s);
  CU_ASSERT_FATAL(nc >= 3);
  /* erp 0.2 keeps the drift at the per-step O(h^2 v^2 / L) level */
  CU_ASSERT(maxerr < 1e-6);
  return (tcross[nc - 1] - tcross[0]) / (nc - 1);
}

static void test_pendulum(void) {
  const double L = 1.0, r = 0.01, g = 9.81, th0 = 0.05;
  double T0 = 2 * PI * sqrt(L / g);
  double Tphys = T0 * sqrt(1 + 0.4 * r * r / (L * L)) * (1 + th0 * th0 / 16);
  dyn_joint_kind kinds[2] = { DYN_JOINT_BALL, DYN_JOINT_HINGE };
  for (int k = 0; k < 2; k++) {
    double T = pendulum_period(kinds[k]);
    printf("\n    %s: T = %.6f s, T0 = %.6f (rel %.2e), physical %.6f (rel %.2e) ",
           k ? "hinge" : "ball", T, T0, T / T0 - 1, Tphys, T / Tphys - 1);
    TST_CLOSE(T, T0, 0, 5e-3);    /* the task's 0.5% */
    TST_CLOSE(T, Tphys, 0, 1e-3); /* and the physical pendulum, closer */
  }
}

/* ---- motors -------------------------------------------------------------------- */

/* A box (half 0.5, 0.2, 0.1, mass 2) hinged to the world at its centre about
 * z: I_zz = m/3 (a^2 + b^2) = 0.58/3.  No gravity.  With torque bound tau
 * the impulse per step is at most tau h, so omega_n = min(target, n h tau /
 * I_zz) (symplectic Euler: theta_n = h sum omega_k). */
static void test_motor_hinge(void) {
  const double m = 2, h = 0.01, Izz = m / 3 * (0.25 + 0.04), target = 2.0;
  double taus[2] = { 100.0, 0.5 }; /* sufficient: tau h = 1 >= I target = 0.39; saturating */
  for (int c = 0; c < 2; c++) {
    tst_body B[1];
    B[0] = tst_box_body(m, dyn_v3_make(0.5, 0.2, 0.1), dyn_v3_make(0, 0, 0), dyn_quat_identity());
    dyn_joint j;
    CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                         dyn_v3_make(0, 0, 1), dyn_v3_make(1, 0, 0), NULL, 0),
                          DYN_OK);
    j.motor.enabled = 1;
    j.motor.target_vel = target;
    j.motor.max_force = taus[c];
    stepper s;
    stepper_init(&s, 1);
    double th_expect = 0, om = 0, prev = 0;
    for (int k = 1; k <= 300; k++) {
      CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
      /* the world is b: theta measures b relative to a, so the body's
       * rotation +phi reads theta = -phi; the motor row is d(theta)/dt =
       * target, i.e. the body turns at -target */
      om = fmin(target, k * h * taus[c] / Izz);
      th_expect += h * om;
      TST_CLOSE(-B[0].w.z, om, 1e-9, 1e-9);
      double th;
      tst_joint_coord(B, 1, &j, &th);
      /* continuous through -pi, up to -2 pi */
      if (th_expect < 2 * PI - 0.1) TST_CLOSE(th, th_expect, 1e-8, 1e-8);
      CU_ASSERT(fabs(th - prev) < 0.1 || th_expect >= 2 * PI - 0.1);
      prev = th;
      if (om < target) TST_CLOSE(s.x[s.n - 1], taus[c] * h, 1e-12, 1e-9);
    }
    CU_ASSERT(om == target);
    stepper_free(&s);
  }
}

/* A box on a slider along x to the world, force bound F: v_n = min(target,
 * n h F / m).  Slider coordinate d = s.(p_b - p_a) with b the world: the
 * body moving +x reads d decreasing, so the motor target is -target. */
static void test_motor_slider(void) {
  const double m = 3, h = 0.01, target = 1.5;
  double Fs[2] = { 1000.0, 4.0 };
  for (int c = 0; c < 2; c++) {
    tst_body B[1];
    B[0] = tst_box_body(m, dyn_v3_make(0.2, 0.2, 0.2), dyn_v3_make(0, 0, 1), dyn_quat_identity());
    dyn_joint j;
    CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_SLIDER, B, 1, 0, -1, dyn_v3_make(0, 0, 1),
                                         dyn_v3_make(1, 0, 0), dyn_v3_make(0, 0, 1), NULL, 0),
                          DYN_OK);
    j.motor.enabled = 1;
    j.motor.target_vel = -target;
    j.motor.max_force = Fs[c];
    stepper s;
    stepper_init(&s, 1);
    /* gravity along -z is carried by the slider's sideways rows */
    for (int k = 1; k <= 200; k++) {
      CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, -9.81)), 0);
      double v = fmin(target, k * h * Fs[c] / m);
      TST_CLOSE(B[0].v.x, v, 1e-9, 1e-9);
      TST_CLOSE(B[0].v.z, 0, 1e-9, 0);
    }
    stepper_free(&s);
  }
}

/* Joint friction = motor with target 0: a hinge spinning at omega0 with
 * friction torque tau decelerates at tau / I until it stops. */
static void test_joint_friction(void) {
  const double m = 2, h = 0.01, Izz = m / 3 * (0.25 + 0.04), tau = 0.3, w0 = 1.0;
  tst_body B[1];
  B[0] = tst_box_body(m, dyn_v3_make(0.5, 0.2, 0.1), dyn_v3_make(0, 0, 0), dyn_quat_identity());
  B[0].w = dyn_v3_make(0, 0, w0);
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(0, 0, 1), dyn_v3_make(1, 0, 0), NULL, 0),
                        DYN_OK);
  j.motor.enabled = 1;
  j.motor.target_vel = 0;
  j.motor.max_force = tau;
  stepper s;
  stepper_init(&s, 1);
  for (int k = 1; k <= 150; k++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
    TST_CLOSE(B[0].w.z, fmax(0.0, w0 - k * h * tau / Izz), 1e-9, 1e-9);
  }
  stepper_free(&s);
}

/* ---- limits -------------------------------------------------------------------- */

/* A rod (half 0.5, 0.05, 0.05, mass 1) hinged to the world at its end
 * (origin), axis y, starting horizontal along +x.  Turning the rod by +phi
 * about y lowers its tip; theta (b = world relative to a) = -phi.  Limit:
 * theta >= -0.6 (phi <= 0.6).  Rows are written only at or past the stop,
 * so one step may overshoot by at most |omega| h (omega <= sqrt(3 g / L')
 * ~ 5.4 rad/s for a rod of length 1: 0.027 rad at h = 5e-3); at rest the
 * stop holds to the chatter level g h^2-ish (< 1e-3 rad). */
static void test_limit_hinge(void) {
  const double h = 5e-3, lo = -0.6;
  tst_body B[1];
  B[0] = tst_box_body(1, dyn_v3_make(0.5, 0.05, 0.05), dyn_v3_make(0.5, 0, 0), dyn_quat_identity());
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(0, 1, 0), dyn_v3_make(1, 0, 0), NULL, 0),
                        DYN_OK);
  j.limit.enabled = 1;
  j.limit.lo = lo;
  j.limit.hi = 1.0;
  stepper s;
  stepper_init(&s, 1);
  double thmin = 0, th = 0;
  for (int k = 0; k < 600; k++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, -9.81)), 0);
    tst_joint_coord(B, 1, &j, &th);
    thmin = fmin(thmin, th);
  }
  printf("\n    overshoot %.4f rad, final error %.2e ", lo - thmin, th - lo);
  CU_ASSERT(thmin < lo + 1e-3); /* it did reach the stop */
  CU_ASSERT(thmin > lo - 0.03);
  TST_CLOSE(th, lo, 1e-3, 0);
  TST_CLOSE(B[0].w.y, 0, 1e-2, 0);
  stepper_free(&s);
}

/* A box on a vertical slider (axis z) to the world, falling under gravity
 * onto the stop d = s.(p_world - p_box) <= hi: the box at z0 - 0.5 gives d
 * = 0.5 (the anchor is the box's starting centre). */
static void test_limit_slider(void) {
  const double h = 5e-3, hi = 0.5;
  tst_body B[1];
  B[0] = tst_box_body(2, dyn_v3_make(0.1, 0.1, 0.1), dyn_v3_make(0, 0, 2), dyn_quat_identity());
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_SLIDER, B, 1, 0, -1, dyn_v3_make(0, 0, 2),
                                       dyn_v3_make(0, 0, 1), dyn_v3_make(1, 0, 0), NULL, 0),
                        DYN_OK);
  j.limit.enabled = 1;
  j.limit.lo = -1;
  j.limit.hi = hi;
  stepper s;
  stepper_init(&s, 1);
  double dmax = 0, d = 0;
  for (int k = 0; k < 400; k++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, -9.81)), 0);
    tst_joint_coord(B, 1, &j, &d);
    dmax = fmax(dmax, d);
  }
  /* impact speed sqrt(2 g 0.5) = 3.13 m/s: one step's overshoot <= 0.016 m */
  printf("\n    overshoot %.4f m, final error %.2e ", dmax - hi, d - hi);
  CU_ASSERT(dmax > hi - 1e-3);
  CU_ASSERT(dmax < hi + 0.02);
  TST_CLOSE(d, hi, 1e-3, 0);
  TST_CLOSE(B[0].r.z, 1.5, 1e-3, 0);
  stepper_free(&s);
}

/* Restitution at a stop: a slider box moving at d' = +1 m/s (no gravity)
 * passes hi = 0.0095 within its first step (d = 0.01, 5e-4 past); the
 * upper row then asks d'+ <= min(k_cor (hi - d), -e d') = min(-0.01, -0.5),
 * so the box leaves at e times its approach speed. */
static void test_limit_restitution(void) {
  const double h = 0.01, e = 0.5;
  tst_body B[1];
  B[0] = tst_box_body(2, dyn_v3_make(0.1, 0.1, 0.1), dyn_v3_make(0, 0, 0), dyn_quat_identity());
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_SLIDER, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(1, 0, 0), dyn_v3_make(0, 0, 1), NULL, 0),
                        DYN_OK);
  j.limit.enabled = 1;
  j.limit.lo = -1;
  j.limit.hi = 0.0095;
  j.limit.restitution = e;
  /* d = s.(p_world - p_box): the box moving -x makes d grow */
  B[0].v = dyn_v3_make(-1, 0, 0);
  stepper s;
  stepper_init(&s, 1);
  CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
  CU_ASSERT_EQUAL(s.n, 5); /* not yet at the stop when the rows were made */
  CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
  CU_ASSERT_EQUAL(s.n, 6);
  TST_CLOSE(B[0].v.x, e * 1.0, 1e-9, 0);
  stepper_free(&s);
}

/* Motor and stop on one slider (no gravity, m = 2, axis x): the motor asks
 * d' = 2 with F = 4 N, so d = (F / m) t^2 / 2 = t^2 until the stop hi = 0.1;
 * there the motor drives into the stop and the two merge into one row
 * (x <= F h): the box rests at the stop.  Then the motor is reversed: it
 * drives away from the active stop (two rows with the same J) and the box
 * leaves at acceleration F / m. */
static void test_motor_into_stop(void) {
  const double h = 0.01, m = 2, F = 4, hi = 0.1;
  tst_body B[1];
  B[0] = tst_box_body(m, dyn_v3_make(0.1, 0.1, 0.1), dyn_v3_make(0, 0, 0), dyn_quat_identity());
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_SLIDER, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(-1, 0, 0), dyn_v3_make(0, 0, 1), NULL, 0),
                        DYN_OK);
  /* axis -x with b the world: d = s.(p_world - p_box) grows as the box moves +x */
  j.limit.enabled = 1;
  j.limit.lo = -1;
  j.limit.hi = hi;
  j.motor.enabled = 1;
  j.motor.target_vel = 2;
  j.motor.max_force = F;
  stepper s;
  stepper_init(&s, 1);
  double d = 0;
  for (int k = 1; k <= 150; k++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
    tst_joint_coord(B, 1, &j, &d);
    if (k <= 30) TST_CLOSE(B[0].v.x, k * h * F / m, 1e-9, 1e-9); /* free run, d < 0.1 */
    if (k > 30) CU_ASSERT(s.n <= 6); /* at the stop: merged, never two rows */
  }
  TST_CLOSE(d, hi, 1e-3, 0);
  TST_CLOSE(B[0].v.x, 0, 1e-3, 0);
  j.motor.target_vel = -2;
  double v0 = B[0].v.x;
  CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
  CU_ASSERT_EQUAL(s.n, 7); /* the stop's row and the motor's */
  TST_CLOSE(B[0].v.x, v0 - h * F / m, 1e-9, 1e-9);
  stepper_free(&s);
}

/* Hinge-2 wheel motor: a static chassis (a, steering axis z) and a wheel (b,
 * sphere, wheel axis y).  The wheel angle is the twist of q_a^* q_b q0^*
 * about y, so spinning b at +psi' about y reads +psi'; with torque to spare
 * one step reaches the target, and nothing drives the steering. */
static void test_motor_hinge2(void) {
  const double h = 0.01, target = 5;
  tst_body B[2];
  B[0] = tst_box_body(10, dyn_v3_make(1, 0.5, 0.2), dyn_v3_make(0, 0, 1), dyn_quat_identity());
  B[0].is_static = 1;
  B[1] = tst_ball_body(1, 0.3, dyn_v3_make(0, 0.8, 0.5));
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_HINGE2, B, 2, 0, 1, dyn_v3_make(0, 0.8, 0.5),
                                       dyn_v3_make(0, 0, 1), dyn_v3_make(0, 1, 0), NULL, 0),
                        DYN_OK);
  j.motor.enabled = 1;
  j.motor.target_vel = target;
  j.motor.max_force = 100;
  stepper s;
  stepper_init(&s, 2);
  double th = 0;
  for (int k = 1; k <= 20; k++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 2, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
    TST_CLOSE(B[1].w.y, target, 1e-9, 1e-9);
    TST_CLOSE(B[1].w.z, 0, 1e-9, 0);
    TST_CLOSE(B[1].w.x, 0, 1e-9, 0);
    CU_ASSERT_EQUAL(s.rows[0].body[0], -1); /* the static chassis */
  }
  CU_ASSERT_EQUAL(tst_joint_coord(B, 2, &j, &th), DYN_OK);
  TST_CLOSE(th, 20 * h * target, 1e-9, 1e-9);
  stepper_free(&s);
}

/* Position servo (docs/contact.md, "Limits and motors"): lo = hi = target with the motor's force bound. */
static void test_servo(void) {
  const double h = 0.01, target = 0.3;
  tst_body B[1];
  B[0] = tst_box_body(2, dyn_v3_make(0.5, 0.2, 0.1), dyn_v3_make(0, 0, 0), dyn_quat_identity());
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(0, 0, 1), dyn_v3_make(1, 0, 0), NULL, 0),
                        DYN_OK);
  j.limit.enabled = 1;
  j.limit.lo = j.limit.hi = target;
  j.motor.enabled = 1;
  j.motor.max_force = 5;
  CU_ASSERT_EQUAL(dyn_joint_max_rows(&j), 7);
  stepper s;
  stepper_init(&s, 1);
  double th = 0;
  for (int k = 0; k < 300; k++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
    CU_ASSERT_EQUAL(s.n, 6); /* one merged servo row */
    CU_ASSERT(fabs(s.x[5]) <= 5 * h * (1 + 1e-12));
  }
  tst_joint_coord(B, 1, &j, &th);
  TST_CLOSE(th, target, 1e-6, 0);
  stepper_free(&s);
}

/* ---- soft rows ----------------------------------------------------------------- */

/* A sphere (mass 2) held at its centre by a soft ball joint to the world:
 * m x'' = -k x - c x' per axis.  omega0 = 2 pi, zeta = 0.1:
 *     omega_d = omega0 sqrt(1 - zeta^2),  x_k / x_{k+1} (successive maxima)
 *     = exp(zeta omega0 T_d).
 * The soft row is implicit Euler on the oscillator: frequency error
 * O((omega h)^2), extra decay rate omega0^2 h / 2, i.e. omega0 h / (2 zeta) =
 * 0.6% of zeta omega0 at h = 2e-4: tolerances 0.5% (frequency), 2% (decay). */
static void test_spring_damper(void) {
  const double m = 2, w0 = 2 * PI, zeta = 0.1, h = 2e-4, x0 = 0.01;
  const double k = m * w0 * w0, c = 2 * zeta * sqrt(k * m);
  tst_body B[1];
  B[0] = tst_ball_body(m, 0.1, dyn_v3_make(0, 0, 0));
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_BALL, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(0, 0, 1), dyn_v3_make(1, 0, 0), NULL, 0),
                        DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_joint_set_spring(&j, -1, k, c, h), DYN_OK);
  TST_CLOSE(j.erp[0], h * k / (h * k + c), 0, 1e-15);
  TST_CLOSE(j.cfm[2], 1 / (h * (h * k + c)), 0, 1e-15);
  B[0].r.x = x0;
  stepper s;
  stepper_init(&s, 1);
  double xm2 = x0, xm1 = x0, t = 0, tz[16], peaks[16];
  int nz = 0, np = 0;
  for (int n = 0; n < 15000; n++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
    t += h;
    double x = B[0].r.x;
    if (xm1 > 0 && x <= 0 && nz < 16) tz[nz++] = t - h * x / (x - xm1);
    if (xm1 > xm2 && xm1 >= x && n > 1 && np < 16) peaks[np++] = xm1;
    xm2 = xm1;
    xm1 = x;
  }
  stepper_free(&s);
  CU_ASSERT_FATAL(nz >= 2 && np >= 2);
  double wd = w0 * sqrt(1 - zeta * zeta), Td = 2 * PI / wd;
  double Tnum = (tz[nz - 1] - tz[0]) / (nz - 1);
  TST_CLOSE(Tnum, Td, 0, 5e-3);
  double rate = log(peaks[0] / peaks[np - 1]) / ((np - 1) * Tnum);
  printf("\n    period rel err %.2e, decay rate rel err %.2e ", Tnum / Td - 1,
         rate / (zeta * w0) - 1);
  TST_CLOSE(rate, zeta * w0, 0, 2e-2);
}

/* [wang2019] eq. 14 (docs/contact.md, "CFM and ERP"): lambda = -k' J v with an impulse lambda is the row cfm
 * 1/k' and erp 0; with k' = h c it is the damper k = 0 of the mapping:
 * m v+ = m v - h c v+  =>  v_n = v0 / (1 + h c / m)^n exactly. */
static void test_eq14_damper(void) {
  const double m = 2, c = 3, h = 0.01, v0 = 1.0;
  double erp, cf, cr;
  CU_ASSERT_EQUAL(dyn_joint_spring(0, c, h, &erp, &cf, &cr), DYN_OK);
  CU_ASSERT_EQUAL(erp, 0.0);
  TST_CLOSE(cf, 1 / c, 0, 1e-15);
  TST_CLOSE(cr, 1 / (h * c), 0, 1e-15); /* = 1 / k' with k' = h c */
  tst_body B[1];
  B[0] = tst_ball_body(m, 0.1, dyn_v3_make(0, 0, 0));
  B[0].v = dyn_v3_make(v0, 0, 0);
  dyn_joint j;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_BALL, B, 1, 0, -1, dyn_v3_make(0, 0, 0),
                                       dyn_v3_make(0, 0, 1), dyn_v3_make(1, 0, 0), NULL, 0),
                        DYN_OK);
  CU_ASSERT_EQUAL(dyn_joint_set_spring(&j, -1, 0, c, h), DYN_OK);
  stepper s;
  stepper_init(&s, 1);
  for (int n = 1; n <= 50; n++) {
    CU_ASSERT_EQUAL_FATAL(step(&s, B, 1, &j, 1, h, dyn_v3_make(0, 0, 0)), 0);
    TST_CLOSE(B[0].v.x, v0 / pow(1 + h * c / m, n), 1e-12, 1e-10);
  }
  stepper_free(&s);
}

/* ---- validation ------------------------------------------------------------------ */

static void test_validation(void) {
  tst_body B[2];
  B[0] = tst_box_body(1, dyn_v3_make(0.1, 0.1, 0.1), dyn_v3_make(0, 0, 0), dyn_quat_identity());
  B[1] = tst_box_body(1, dyn_v3_make(0.1, 0.1, 0.1), dyn_v3_make(1, 0, 0), dyn_quat_identity());
  dyn_v3 o = dyn_v3_make(0.5, 0, 0), x = dyn_v3_make(1, 0, 0), y = dyn_v3_make(0, 1, 0);
  dyn_v3 zero = dyn_v3_make(0, 0, 0);
  dyn_joint j;
  char msg[200];
  CU_ASSERT_EQUAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 2, 0, 0, o, x, y, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "a=0"));
  CU_ASSERT_EQUAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 2, 0, 1, o, zero, y, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "axis1"));
  CU_ASSERT_EQUAL(tst_joint_init(&j, DYN_JOINT_HINGE2, B, 2, 0, 1, o, x, x, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "parallel"));
  CU_ASSERT_EQUAL(tst_joint_init(&j, DYN_JOINT_UNIVERSAL, B, 2, 0, 1, o, x, dyn_v3_make(1, 1, 0),
                                 msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "perpendicular"));
  CU_ASSERT_EQUAL(tst_joint_init(&j, (dyn_joint_kind)17, B, 2, 0, 1, o, x, y, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "kind"));

  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&j, DYN_JOINT_HINGE, B, 2, 0, 1, o, x, y, msg, sizeof msg),
                        DYN_OK);
  CU_ASSERT_EQUAL(dyn_joint_validate(&j, 2, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_joint_max_rows(&j), 5);
  dyn_joint k = j;
  k.erp[2] = 1.5;
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "erp[2]"));
  CU_ASSERT_EQUAL(dyn_joint_max_rows(&k), 0);
  k = j;
  k.cfm[4] = -1;
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cfm[4]"));
  k = j;
  k.limit.enabled = 1;
  k.limit.lo = 1;
  k.limit.hi = 0;
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "limit.lo"));
  k.limit.lo = -7;
  k.limit.hi = 0;
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "2 pi"));
  k = j;
  k.motor.enabled = 1;
  k.motor.max_force = -1;
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "motor.max_force"));
  k = j;
  k.b = 5;
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "joint.b=5"));
  k = j;
  k.axis_a = dyn_v3_make(2, 0, 0);
  CU_ASSERT_EQUAL(dyn_joint_validate(&k, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "axis_a"));

  dyn_joint bj;
  CU_ASSERT_EQUAL_FATAL(tst_joint_init(&bj, DYN_JOINT_BALL, B, 2, 0, 1, o, x, y, NULL, 0), DYN_OK);
  bj.limit.enabled = 1;
  bj.limit.lo = 0;
  bj.limit.hi = 1;
  CU_ASSERT_EQUAL(dyn_joint_validate(&bj, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "limit"));

  dyn_rows rows[8];
  CU_ASSERT(tst_joint_fill(B, 2, &j, 0.0, rows, 0) < 0);
  CU_ASSERT(tst_joint_fill(B, 1, &j, 0.01, rows, 0) < 0); /* b out of range */
  CU_ASSERT(tst_joint_fill(B, 2, &j, 0.01, NULL, 0) < 0);
  tst_body S[2] = { B[0], B[1] };
  S[0].is_static = S[1].is_static = 1;
  CU_ASSERT(tst_joint_fill(S, 2, &j, 0.01, rows, 0) < 0); /* nothing can move */
  CU_ASSERT_EQUAL(tst_joint_fill(B, 2, &j, 0.01, rows, 2), 5);
  CU_ASSERT_EQUAL(rows[2].base, 2);
  double c;
  CU_ASSERT_EQUAL(tst_joint_coord(B, 2, &bj, &c), DYN_ERR_INPUT); /* a ball has no coordinate */
  CU_ASSERT_EQUAL(dyn_joint_spring(-1, 1, 0.01, NULL, NULL, NULL), DYN_ERR_INPUT);
  CU_ASSERT_EQUAL(dyn_joint_spring(0, 0, 0.01, NULL, NULL, NULL), DYN_ERR_INPUT);
  CU_ASSERT_EQUAL(dyn_joint_spring(1, 1, 0, NULL, NULL, NULL), DYN_ERR_INPUT);
  CU_ASSERT_EQUAL(dyn_joint_set_spring(&j, 5, 1, 1, 0.01), DYN_ERR_INPUT);
  CU_ASSERT(isnan(tst_joint_anchor_error(B, 1, &j)));
  int counts[6] = { 3, 5, 5, 4, 4, 6 };
  for (int kk = 0; kk < 6; kk++)
    CU_ASSERT_EQUAL(dyn_joint_base_rows((dyn_joint_kind)kk), counts[kk]);
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("joint", NULL, NULL);
  CU_add_test(s, "jacobian_fd", test_jacobian_fd);
  CU_add_test(s, "hinge_angle", test_hinge_angle);
  CU_add_test(s, "error_decay", test_error_decay);
  CU_add_test(s, "pendulum", test_pendulum);
  CU_add_test(s, "motor_hinge", test_motor_hinge);
  CU_add_test(s, "motor_slider", test_motor_slider);
  CU_add_test(s, "joint_friction", test_joint_friction);
  CU_add_test(s, "limit_hinge", test_limit_hinge);
  CU_add_test(s, "limit_slider", test_limit_slider);
  CU_add_test(s, "limit_restitution", test_limit_restitution);
  CU_add_test(s, "motor_hinge2", test_motor_hinge2);
  CU_add_test(s, "motor_into_stop", test_motor_into_stop);
  CU_add_test(s, "servo", test_servo);
  CU_add_test(s, "spring_damper", test_spring_damper);
  CU_add_test(s, "eq14_damper", test_eq14_damper);
  CU_add_test(s, "validation", test_validation);
  return tst_run();
}
