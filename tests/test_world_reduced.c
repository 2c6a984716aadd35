/* test_world_reduced.c -- a world in reduced coordinates (DYN_COORDINATES_REDUCED,
 * world_reduced.c; docs/redmax.md, "Contacts"; docs/models.md, "Third-party
 * models: the representation"):
 *
 *   - a two-link hinge chain falling onto the floor: the reduced and the
 *     maximal runs of the same model agree within O(h) (the two discretise
 *     the same dynamics; maximal's joints drift by Baumgarte), the reduced
 *     joint error (the anchor as carried by either link) is 0 to rounding;
 *   - the contact rows in joint space (G = J Phi) against central
 *     differences of the contact point carried by its body, over every dof
 *     (hinges, a free root's slides and ball);
 *   - a box on a vertical slide with a limit stops at the limit, as in
 *     maximal coordinates;
 *   - MuJoCo's humanoid.xml in reduced coordinates (armature mapped, no
 *     approximate) lands and settles under pgs (box) and nsgs (cone): no
 *     body faster than g h = 0.049 m/s over the last second of 15 s
 *     (test_robots_settle.c's measure).  15 s, not 5: the humanoid comes to
 *     rest sitting at 2.5 s (E = 127 J), then the joint springs, which pull
 *     every limb toward the file's standing pose, tip it over, between 5
 *     and 7 s under nsgs and 7 and 10 s under pgs (E = 46 and 44 J), where
 *     it stays (measured 2026-11-26,
 *     experiments/records/2026-11-26-humanoid-xml-reduced-coordinates.md).  Skipped
 *     where the samples are not installed (the other tests run). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_model.h"
#include "dyn_redmax.h"
#include "dyn_world.h"
#include "mdl.h"
#include "tst_body.h"
#include "tst_util.h"
#include "world_data.h"
#include "world_reduced.h"

static const char *humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";

/* A box body of half extents hx, hy, hz and mass m at r (identity pose). */
static int add_box(dyn_model *m, const char *name, double mass, dyn_v3 half, dyn_v3 r) {
  dyn_body_def b = dyn_body_def_default();
  snprintf(b.name, sizeof b.name, "%s", name);
  b.mass = mass;
  b.I_b = dyn_inertia_box(mass, half);
  b.r = r;
  int i = dyn_model_add_body(m, &b, NULL, 0);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = i;
  s.geom.kind = DYN_SHAPE_BOX;
  s.geom.half = half;
  dyn_model_add_shape(m, &s, NULL, 0);
  return i;
}

static void add_floor(dyn_model *m) {
  dyn_body_def b = dyn_body_def_default();
  snprintf(b.name, sizeof b.name, "floor");
  b.is_static = 1;
  int i = dyn_model_add_body(m, &b, NULL, 0);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = i;
  s.geom.kind = DYN_SHAPE_PLANE;
  s.geom.normal = dyn_v3_make(0.0, 0.0, 1.0);
  s.geom.offset = 0.0;
  dyn_model_add_shape(m, &s, NULL, 0);
}

static void add_hinge(dyn_model *m, int a, int b, dyn_v3 anchor, dyn_v3 axis) {
  dyn_joint_def j = dyn_joint_def_default();
  j.kind = DYN_JOINT_HINGE;
  j.a = a;
  j.b = b;
  j.anchor = anchor;
  j.axis1 = axis;
  CU_ASSERT_FATAL(dyn_model_add_joint(m, &j, NULL, 0) >= 0);
}

/* Floor; link 1 hinged to the world at (0, 0, 0.3) about y, link 2 hinged
 * to link 1 at (0.4, 0, 0.3): both horizontal at rest, 0.4 m long. */
static dyn_model *chain_model(void) {
  dyn_model *m = NULL;
  CU_ASSERT_FATAL(dyn_model_new(&m) == DYN_OK);
  add_floor(m);
  dyn_v3 half = dyn_v3_make(0.2, 0.03, 0.03);
  int l1 = add_box(m, "link1", 1.0, half, dyn_v3_make(0.2, 0.0, 0.3));
  int l2 = add_box(m, "link2", 1.0, half, dyn_v3_make(0.6, 0.0, 0.3));
  add_hinge(m, l1, -1, dyn_v3_make(0.0, 0.0, 0.3), dyn_v3_make(0.0, 1.0, 0.0));
  add_hinge(m, l1, l2, dyn_v3_make(0.4, 0.0, 0.3), dyn_v3_make(0.0, 1.0, 0.0));
  return m;
}

static dyn_world *make(const dyn_model *m, int reduced, double h, const char *solver) {
  dyn_world_settings s = dyn_world_settings_default();
  s.dt = h;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  const slv_solver *sv = slv_solver_find(solver); /* cone friction for nsgs and cone-only solvers */
  if (!strcmp(solver, "nsgs") || (sv && (sv->caps & SLV_CAP_CONE) && !(sv->caps & SLV_CAP_FINDEX)))
    s.contact.friction = DYN_FRICTION_CONE;
  dyn_world *w = NULL;
  char msg[512] = "";
  if (reduced) s.coordinates = DYN_COORDINATES_REDUCED;
  dyn_err e = dyn_world_new_from_model(m, &s, &w, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s\n", msg);
  return w;
}

/* The anchor of the hinge between link 1 (body 1) and link 2 (body 2) as
 * each carries it: their distance (m). */
static double anchor_gap(dyn_world *w) {
  dyn_body_state *b = dyn_world_body_states(w);
  dyn_v3 a0 = dyn_v3_make(0.4, 0.0, 0.3);
  dyn_v3 p1 = dyn_v3_add(b[1].r, dyn_quat_rotate(b[1].q, dyn_v3_sub(a0, dyn_v3_make(0.2, 0, 0.3))));
  dyn_v3 p2 = dyn_v3_add(b[2].r, dyn_quat_rotate(b[2].q, dyn_v3_sub(a0, dyn_v3_make(0.6, 0, 0.3))));
  dyn_v3 p0 = dyn_v3_add(b[1].r, dyn_quat_rotate(b[1].q, dyn_v3_make(-0.2, 0.0, 0.0)));
  return fmax(dyn_v3_norm(dyn_v3_sub(p1, p2)), dyn_v3_norm(dyn_v3_sub(p0, dyn_v3_make(0, 0, 0.3))));
}

static void test_chain_vs_maximal(void) {
  dyn_model *m = chain_model();
  double h = 1.0 / 480.0, worst = 0.0, gap = 0.0;
  dyn_world *wr = make(m, 1, h, "pgs"), *wm = make(m, 0, h, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(wr);
  CU_ASSERT_PTR_NOT_NULL_FATAL(wm);
  CU_ASSERT_EQUAL(dyn_world_is_reduced(wr), 1);
  CU_ASSERT_EQUAL(dyn_world_is_reduced(wm), 0);
  int touched = 0;
  for (int k = 0; k < 240; k++) { /* 0.5 s: the tip hits the floor at about 0.3 s */
    dyn_world_metrics mr, mm;
    if (dyn_world_step(wr, &mr) != DYN_OK) printf("\n    %s", dyn_world_message(wr));
    CU_ASSERT_FATAL(mr.step == k + 1);
    CU_ASSERT_FATAL(dyn_world_step(wm, &mm) == DYN_OK);
    touched |= mr.contacts > 0;
    for (int i = 1; i <= 2; i++) {
      double d =
          dyn_v3_norm(dyn_v3_sub(dyn_world_body_states(wr)[i].r, dyn_world_body_states(wm)[i].r));
      if (d > worst) worst = d;
    }
    if (anchor_gap(wr) > gap) gap = anchor_gap(wr);
  }
  printf("\n    chain: max |r_reduced - r_maximal| = %.3g m, reduced joint gap %.3g m", worst, gap);
  CU_ASSERT(touched);
  CU_ASSERT(worst < 4.0 * h); /* O(h): 8.3 mm at h = 1/480 */
  CU_ASSERT(gap < 1e-12);
  dyn_world_free(wr);
  dyn_world_free(wm);
  dyn_model_free(m);
}

/* Contact point p (world, at the state the rows were built) carried by
 * tree body t when the state moves by eps along dof c from (q0, 0). */
static dyn_v3 carried(dyn_redmax *rm, const double *q0, int c, double eps, int t, dyn_v3 p) {
  int nd = dyn_redmax_ndof(rm);
  double u[64] = { 0.0 };
  dyn_v3 r0, r1;
  dyn_quat o0, o1;
  dyn_redmax_set_state(rm, q0, u, NULL, 0);
  dyn_redmax_body_state(rm, t, &r0, &o0, NULL, NULL);
  CU_ASSERT_FATAL(nd <= 64);
  u[c] = 1.0;
  dyn_redmax_set_state(rm, q0, u, NULL, 0);
  dyn_redmax_advance(rm, eps, u, NULL, 0);
  dyn_redmax_body_state(rm, t, &r1, &o1, NULL, NULL);
  return dyn_v3_add(r1, dyn_quat_rotate(o1, dyn_quat_rotate_inv(o0, dyn_v3_sub(p, r0))));
}

static void test_rows_fd(void) {
  dyn_model *m = chain_model();
  /* and a free box dropped from 5 cm, turned, its corner down */
  int bx = add_box(m, "free", 0.5, dyn_v3_make(0.05, 0.05, 0.05), dyn_v3_make(-0.5, 0.0, 0.1));
  dyn_body_def d = dyn_model_bodies(m)[bx];
  d.q = dyn_quat_normalize(dyn_quat_make(0.9, 0.2, 0.3, 0.1));
  CU_ASSERT_FATAL(dyn_model_set_body(m, bx, &d, NULL, 0) == DYN_OK);
  dyn_world *w = make(m, 1, 1.0 / 240.0, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  dyn_redmax *rm = dyn_reduced_redmax(w);
  int nd = dyn_redmax_ndof(rm);
  CU_ASSERT_EQUAL(nd, 2 + 6);
  double q0[64], u0[64], q1[64], u1[64], g[64], worst = 0.0, scale = 0.0;
  int checked = 0, seen[8] = { 0 };
  for (int k = 0; k < 200 && checked < 2; k++) {
    dyn_redmax_get_state(rm, q0, u0);
    CU_ASSERT_FATAL(dyn_world_step(w, NULL) == DYN_OK);
    dyn_redmax_get_state(rm, q1, u1);
    int nc = 0;
    const dyn_contact *con = dyn_world_contacts(w, &nc);
    for (int c = 0; c < nc; c++) {
      int body =
          con[c].a >= 0 && !dyn_world_body_consts(w)[con[c].a].is_static ? con[c].a : con[c].b;
      if (seen[body]) continue;
      seen[body] = 1;
      int t = dyn_reduced_tree_body(w, body);
      int r0 = w->njrows + 3 * c;
      for (int r = r0; r < r0 + 3; r++) { /* box friction: n, t1, t2 */
        CU_ASSERT_EQUAL_FATAL(dyn_reduced_row(w, r, g), nd);
        const dyn_rows *row = &w->rows.p[r];
        int side = row->body[0] == body ? 0 : 1;
        dyn_v3 dir = dyn_v3_make(row->J[side][0], row->J[side][1], row->J[side][2]);
        for (int dof = 0; dof < nd; dof++) {
          double e = 1e-6;
          dyn_v3 xp = carried(rm, q0, dof, e, t, con[c].p);
          dyn_v3 xm = carried(rm, q0, dof, -e, t, con[c].p);
          double fd = dyn_v3_dot(dir, dyn_v3_sub(xp, xm)) / (2.0 * e);
          worst = fmax(worst, fabs(fd - g[dof]));
          scale = fmax(scale, fabs(g[dof]));
        }
      }
      checked++;
    }
    dyn_redmax_set_state(rm, q1, u1, NULL, 0); /* the FD moved the tree */
  }
  printf("\n    joint-space rows: %d bodies checked, max |G - FD| = %.3g (max |G| %.3g)", checked,
         worst, scale);
  CU_ASSERT(checked == 2); /* the free box and the chain's link 2 */
  CU_ASSERT(scale > 0.1);
  CU_ASSERT(worst < 1e-7 * (1.0 + scale));
  dyn_world_free(w);
  dyn_model_free(m);
}

/* A box on a vertical slide to the world, limit [-0.1, 0.1] m: it falls
 * 0.1 m and stops there, in both representations. */
static void test_slide_limit(void) {
  dyn_model *m = NULL;
  CU_ASSERT_FATAL(dyn_model_new(&m) == DYN_OK);
  int bx = add_box(m, "box", 2.0, dyn_v3_make(0.1, 0.1, 0.1), dyn_v3_make(0.0, 0.0, 1.0));
  dyn_joint_def j = dyn_joint_def_default();
  j.kind = DYN_JOINT_SLIDER;
  j.a = bx;
  j.b = -1;
  j.anchor = dyn_v3_make(0.0, 0.0, 1.0);
  j.axis1 = dyn_v3_make(0.0, 0.0, 1.0);
  j.limit.enabled = 1;
  j.limit.lo = -0.1;
  j.limit.hi = 0.1;
  CU_ASSERT_FATAL(dyn_model_add_joint(m, &j, NULL, 0) >= 0);
  for (int reduced = 0; reduced <= 1; reduced++) {
    dyn_world *w = make(m, reduced, 1.0 / 240.0, "pgs");
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    double zmin = 1.0;
    for (int k = 0; k < 480; k++) { /* 2 s; free fall of 0.1 m takes 0.14 s */
      CU_ASSERT_FATAL(dyn_world_step(w, NULL) == DYN_OK);
      zmin = fmin(zmin, dyn_world_body_states(w)[bx].r.z);
    }
    dyn_body_state *b = &dyn_world_body_states(w)[bx];
    printf("\n    slide, %s: z = %.5f m (lowest %.5f), v = %.2g m/s",
           reduced ? "reduced" : "maximal", b->r.z, zmin, b->v.z);
    CU_ASSERT(fabs(b->r.z - 0.9) < 2e-3);
    CU_ASSERT(zmin > 0.9 - 0.02);
    CU_ASSERT(fabs(b->v.z) < 5e-3);
    CU_ASSERT(fabs(b->r.x) < 1e-12 && fabs(b->r.y) < 1e-12);
    dyn_world_free(w);
  }
  dyn_model_free(m);
}

/* The chain of chain_model with a fixed tendon L = q0 + 0.5 q1 over its
 * two hinges' coordinates, limited to [0.05, 0.3] (L = 0 at the start). */
static dyn_model *tendon_chain(void) {
  dyn_model *m = chain_model();
  dyn_tendon_def t = dyn_tendon_def_default();
  snprintf(t.name, sizeof t.name, "stop");
  t.njoints = 2;
  t.joint[0] = 0, t.coef[0] = 1.0;
  t.joint[1] = 1, t.coef[1] = 0.5;
  t.limit.enabled = 1;
  t.limit.lo = 0.05;
  t.limit.hi = 0.3;
  CU_ASSERT_FATAL(dyn_model_add_tendon(m, &t, NULL, 0) == 0);
  return m;
}

/* The tendon's length from the bodies' poses, by hand: link i turned by
 * phi_i about y (q = (cos phi/2, 0, sin phi/2, 0)); a hinge's coordinate is
 * b's rotation relative to a about the axis (dyn_joint_coord): joint 0
 * (a = link 1, b = the world) -phi_1, joint 1 (link 1, link 2) phi_2 - phi_1. */
static double tendon_length(dyn_world *w) {
  dyn_body_state *b = dyn_world_body_states(w);
  double p1 = 2.0 * atan2(b[1].q.y, b[1].q.w), p2 = 2.0 * atan2(b[2].q.y, b[2].q.w);
  return -p1 + 0.5 * (p2 - p1);
}

/* A fixed tendon's limit in reduced coordinates (world_reduced.c): its row
 * is G = sum_k coef_k (d coordinate_k / du), hand-derived from the bodies'
 * angular velocities at u = e_k (dL/dt = -w1y + 0.5 (w2y - w1y)); its rhs
 * the limit's distance by Baumgarte, erp (lo - L) / h = 0.2 x 0.05 x 240
 * = 2.4 at L = 0, bounds [0, inf); and the chain, which falls with L
 * going negative, holds L >= lo (to 2e-3) once there.  A maximal world
 * refuses the tendon by name; a bad record is refused. */
static void test_tendon_limit_row(void) {
  dyn_model *m = tendon_chain();
  dyn_world *w = make(m, 1, 1.0 / 240.0, "dantzig");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(w->njrows, 1);
  CU_ASSERT_DOUBLE_EQUAL(w->rows.p[0].rhs, 0.2 * 0.05 * 240.0, 1e-12);
  CU_ASSERT(w->rows.p[0].lo == 0.0 && isinf(w->rows.p[0].hi) && w->rows.p[0].hi > 0);
  double g[2], lmin = 1.0;
  CU_ASSERT_EQUAL_FATAL(dyn_reduced_row(w, 0, g), 2);
  for (int k = 0; k < 2; k++) {
    double u[2] = { k == 0, k == 1 };
    CU_ASSERT_EQUAL_FATAL(dyn_world_set_joint_velocities(w, u), DYN_OK);
    dyn_body_state *b = dyn_world_body_states(w);
    double want = -b[1].w.y + 0.5 * (b[2].w.y - b[1].w.y);
    printf("\n    tendon row: G[%d] = %g, by hand %g", k, g[k], want);
    CU_ASSERT(fabs(want) > 0.4 && fabs(g[k] - want) < 1e-12);
  }
  CU_ASSERT_EQUAL_FATAL(dyn_world_set_joint_velocities(w, (double[]){ 0.0, 0.0 }), DYN_OK);
  for (int k = 1; k < 240; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
    if (k >= 30) lmin = fmin(lmin, tendon_length(w));
  }
  printf("\n    tendon held: L >= %.5f over steps 30..240 (lo 0.05)", lmin);
  CU_ASSERT(lmin > 0.05 - 2e-3 && lmin < 0.3);
  dyn_world_free(w);
  char msg[400] = "";
  dyn_world_settings st = dyn_world_settings_default();
  CU_ASSERT_EQUAL(dyn_world_new_from_model(m, &st, &w, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "tendon 0 'stop': a fixed tendon's limit and spring"));
  dyn_tendon_def t = dyn_model_tendons(m)[0];
  t.limit.lo = 0.4; /* lo > hi */
  CU_ASSERT_EQUAL(dyn_model_add_tendon(m, &t, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "tendon 1 'stop': its limit must have finite lo <= hi"));
  t = dyn_model_tendons(m)[0];
  t.joint[1] = 7;
  CU_ASSERT_EQUAL(dyn_model_add_tendon(m, &t, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "a joint does not exist"));
  /* a tendon's spring: the step's derivative refuses it by name */
  t = dyn_model_tendons(m)[0];
  snprintf(t.name, sizeof t.name, "spring");
  t.limit.enabled = 0;
  t.stiffness = 2.0;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_tendon(m, &t, msg, sizeof msg), 1);
  w = make(m, 1, 1.0 / 240.0, "dantzig");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  double dv[4];
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_step_jacobian(w, dv, NULL, NULL, NULL, NULL, msg, sizeof msg),
                  DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "tendon 'spring': a fixed tendon's spring"));
  dyn_world_free(w);
  dyn_model_free(m);
}

/* Twenty free boxes, no floor, each moving and spinning about a principal
 * axis: a free root's three slides and ball give the same free flight as
 * a free body in maximal coordinates (both semi-implicit Euler, torque-free
 * spin about a principal axis keeps w), to rounding.  With every body a
 * free root the tree has four bodies per model body (a tree sized for
 * three overran its arrays before 2026-11-26: humanoid100.xml's hundred
 * free objects ended in a heap corruption). */
static void test_free_roots(void) {
  dyn_model *m = NULL;
  CU_ASSERT_FATAL(dyn_model_new(&m) == DYN_OK);
  for (int k = 0; k < 20; k++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", k);
    int i = add_box(m, name, 1.0 + k, dyn_v3_make(0.1, 0.2, 0.3), dyn_v3_make(k, 0.0, 1.0));
    dyn_body_def d = dyn_model_bodies(m)[i];
    d.v = dyn_v3_make(1.0, -0.5 * k, 2.0);
    d.w = dyn_v3_make(0.0, 0.0, 3.0 + k);
    CU_ASSERT_FATAL(dyn_model_set_body(m, i, &d, NULL, 0) == DYN_OK);
  }
  dyn_world *wr = make(m, 1, 0.01, "pgs"), *wm = make(m, 0, 0.01, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(wr);
  CU_ASSERT_PTR_NOT_NULL_FATAL(wm);
  CU_ASSERT_EQUAL(dyn_redmax_ndof(dyn_reduced_redmax(wr)), 120);
  for (int k = 0; k < 100; k++) {
    CU_ASSERT_FATAL(dyn_world_step(wr, NULL) == DYN_OK);
    CU_ASSERT_FATAL(dyn_world_step(wm, NULL) == DYN_OK);
  }
  double dr = 0.0, dq = 0.0;
  for (int i = 0; i < 20; i++) {
    dyn_body_state *a = &dyn_world_body_states(wr)[i], *b = &dyn_world_body_states(wm)[i];
    dr = fmax(dr, dyn_v3_norm(dyn_v3_sub(a->r, b->r)));
    double s = a->q.w * b->q.w + a->q.x * b->q.x + a->q.y * b->q.y + a->q.z * b->q.z;
    dq = fmax(dq, 1.0 - fabs(s));
  }
  printf("\n    free roots: |r_reduced - r_maximal| <= %.3g m, 1 - |q.q'| <= %.3g", dr, dq);
  CU_ASSERT(dr < 1e-9);
  CU_ASSERT(dq < 1e-9);
  dyn_world_free(wr);
  dyn_world_free(wm);
  dyn_model_free(m);
}

/* The failure policy's energy rule in joint space (world_judge.c,
 * dyn_reduced_impulse_energy): three boxes, free roots, start 2 cm into
 * the floor with a spin, so that the contacts' Baumgarte term pushes them
 * out and the impulses add energy (the run's excess grows).  A free root
 * is a free body (test_free_roots), so the excess measured in joint space
 * must be the maximal world's, step by step (the spin is about a principal
 * axis: the maximal integrator's gyroscopic term, which the tree's step does
 * not share, plays no part). */
static dyn_model *sunk_boxes(void) {
  dyn_model *m = NULL;
  CU_ASSERT_FATAL(dyn_model_new(&m) == DYN_OK);
  add_floor(m);
  for (int k = 0; k < 3; k++) {
    char name[16];
    snprintf(name, sizeof name, "b%d", k);
    int i = add_box(m, name, 1.0 + k, dyn_v3_make(0.1, 0.15, 0.2), dyn_v3_make(k, 0.0, 0.18));
    dyn_body_def d = dyn_model_bodies(m)[i];
    d.w = dyn_v3_make(0.0, 0.0, 1.0 + k); /* about a principal axis: no gyroscopic torque */
    CU_ASSERT_FATAL(dyn_model_set_body(m, i, &d, NULL, 0) == DYN_OK);
  }
  return m;
}

static void test_energy_rule_joint_space(void) {
  dyn_model *m = sunk_boxes();
  dyn_world *wr = make(m, 1, 0.01, "lemke"), *wm = make(m, 0, 0.01, "lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(wr);
  CU_ASSERT_PTR_NOT_NULL_FATAL(wm);
  double worst = 0.0, top = 0.0;
  for (int k = 0; k < 30; k++) {
    CU_ASSERT_FATAL(dyn_world_step(wr, NULL) == DYN_OK);
    CU_ASSERT_FATAL(dyn_world_step(wm, NULL) == DYN_OK);
    worst = fmax(worst, fabs(wr->excess - wm->excess));
    top = fmax(top, wm->excess);
  }
  printf("\n    sunk boxes: excess up to %.4g J (maximal), |reduced - maximal| <= %.3g J", top,
         worst);
  CU_ASSERT(top > 1e-3); /* the push-out adds energy: the rule has something to see */
  CU_ASSERT(worst <= 1e-9 * (1.0 + top));
  dyn_world_free(wr);
  dyn_world_free(wm);
  dyn_model_free(m);
}

/* The largest |v| of the world's moving bodies now. */
static double max_speed(dyn_world *w) {
  dyn_body_state *b = dyn_world_body_states(w);
  const dyn_body_const *bc = dyn_world_body_consts(w);
  double m = 0.0;
  for (int i = 0; i < dyn_world_body_count(w); i++)
    if (!bc[i].is_static) m = fmax(m, dyn_v3_norm(b[i].v));
  return m;
}

/* MuJoCo's humanoid sample read exactly (armature, joint chains), or NULL
 * when the samples are not installed (said on stdout). */
static dyn_model *read_humanoid(void) {
  FILE *f = fopen(humanoid, "r");
  if (!f) {
    printf("\n    %s absent (libmujoco-samples): skipped", humanoid);
    return NULL;
  }
  fclose(f);
  mdl_read_options o = mdl_read_options_default();
  o.reduced = 1; /* no approximate: armature and the joint chains are exact */
  dyn_model *m = NULL;
  mdl_read_info info;
  char msg[2048] = "";
  if (mdl_read_model(humanoid, &o, &m, &info, msg, sizeof msg) != MDL_OK) printf("\n    %s", msg);
  CU_ASSERT_PTR_NOT_NULL(m);
  return m;
}

/* The humanoid, read once for every test that runs it (a model is read
 * only once made, and worlds share it: test_world_model's
 * test_worlds_share_model); NULL when it is absent or did not read.  Read
 * for each test, MuJoCo's compiler (twice: the probe's child and the load)
 * was most of this program's work under memcheck
 * (experiments/records/2026-11-29-humanoid-once.md).  Freed by the suite's
 * cleanup. */
static dyn_model *humanoid_model;
static int humanoid_tried;

static const dyn_model *shared_humanoid(void) {
  if (!humanoid_tried) {
    humanoid_tried = 1;
    humanoid_model = read_humanoid();
  } else if (!humanoid_model) {
    printf("\n    %s did not read: skipped", humanoid);
  }
  return humanoid_model;
}

static int free_humanoid(void) {
  dyn_model_free(humanoid_model);
  humanoid_model = NULL;
  humanoid_tried = 0;
  return 0;
}

static void humanoid_settles(const char *solver, long steps, double vbound) {
  const dyn_model *m = shared_humanoid();
  if (!m) return;
  int arm = 0;
  for (int j = 0; j < dyn_model_joint_count(m); j++) arm += dyn_model_joints(m)[j].armature > 0.0;
  CU_ASSERT(arm >= 17); /* every hinge has armature 0.01 in the file's defaults */
  dyn_world *w = make(m, 1, 0.005, solver);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  /* under valgrind (tst_short_runs) the memory is what is checked: a shorter
   * run past the first contacts (step 43), no settling asserted; the nine
   * families' 80 steps were 54 s of the memcheck stage, 55 keep a dozen
   * steps with contacts (300 for the shorter runs were another 30 s of
   * CPU there, experiments/records/2026-11-27-test-time.md) */
  long K = tst_short_runs() ? 55 : steps, last = K - 200, failed = 0;
  double vmax = 0.0, e0 = dyn_world_energy(w, NULL, NULL), pen = 0.0;
  int contacts = 0;
  for (long k = 0; k < K; k++) {
    dyn_world_metrics mt;
    CU_ASSERT_FATAL(dyn_world_step(w, &mt) == DYN_OK);
    failed += mt.failed;
    if (k >= last) vmax = fmax(vmax, max_speed(w));
    pen = fmax(pen, mt.max_penetration);
    contacts = mt.contacts;
  }
  double e1 = dyn_world_energy(w, NULL, NULL);
  printf("\n    humanoid reduced, %s: |v| <= %.3g m/s over the last second, E %.4g -> %.4g J, "
         "%d contacts, penetration <= %.3g m, %ld failed steps",
         solver, vmax, e0, e1, contacts, pen, failed);
  CU_ASSERT(contacts > 0);
  if (!tst_short_runs()) CU_ASSERT(e1 < 0.5 * e0);
  if (!tst_short_runs()) CU_ASSERT(vmax < vbound);
  CU_ASSERT(pen < 0.05);
  dyn_world_free(w);
}

/* Three different small trees for forest_vs_alone, far apart (x = -2, 0,
 * 2) above one floor: a hinge chain with a damper and a spring hanging
 * clear of the floor; a free root with a ball-jointed child falling onto
 * the floor (its slides' dofs come after every other tree's: a tree's dofs
 * are not contiguous in u); a slide with a limit carrying a limited hinge. */
static const char *forest_tree[3] = {
  "<body pos='-2 0 1.5'><joint type='hinge' axis='0 1 0' damping='0.1'/>"
  "<geom type='capsule' fromto='0 0 0 0.3 0 0' size='0.05'/>"
  "<body pos='0.3 0 0'><joint type='hinge' axis='1 0 0' stiffness='2'/>"
  "<geom type='box' size='0.1 0.05 0.03' pos='0.1 0 0'/></body></body>",
  "<body pos='0 0 0.3'><freejoint/><geom type='sphere' size='0.1'/>"
  "<body pos='0.25 0 0'><joint type='ball'/><geom type='sphere' size='0.06' pos='0.1 0 0.05'/>"
  "</body></body>",
  "<body pos='2 0 1'><joint type='slide' axis='0 0 1' limited='true' range='-0.3 0.2'/>"
  "<geom type='sphere' size='0.1'/>"
  "<body pos='0 0 -0.2'><joint type='hinge' axis='0 1 0' limited='true' range='-10 10'/>"
  "<geom type='capsule' fromto='0 0 0 0.3 0 -0.1' size='0.04'/></body></body>"
};

/* A world of the trees whose bit is set in mask, written as MJCF into dir,
 * in reduced coordinates (lemke: the rows of the trees do not couple, and a
 * direct solver's answer does not depend on the other trees' rows). */
static dyn_world *forest_world(const char *dir, int mask) {
  char path[512], name[32];
  snprintf(name, sizeof name, "forest%d.xml", mask);
  tst_tmp_path(path, sizeof path, dir, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "<mujoco><option timestep='0.005'/><worldbody>"
             "<geom type='plane' size='5 5 0.1'/>");
  for (int t = 0; t < 3; t++)
    if (mask & (1 << t)) fprintf(f, "%s", forest_tree[t]);
  fprintf(f, "</worldbody></mujoco>\n");
  fclose(f);
  mdl_read_options o = mdl_read_options_default();
  o.reduced = 1;
  dyn_model *m = NULL;
  char msg[2048] = "";
  if (mdl_read_model(path, &o, &m, NULL, msg, sizeof msg) != MDL_OK) printf("\n    %s", msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  dyn_world *w = make(m, 1, 0.005, "lemke");
  dyn_model_free(m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  return w;
}

/* The k-th dynamic body of w (-1: none). */
static int dynamic_body(dyn_world *w, int k) {
  for (int i = 0; i < dyn_world_body_count(w); i++)
    if (!dyn_world_body_consts(w)[i].is_static && k-- == 0) return i;
  return -1;
}

/* The trees with a nonzero in some row of w's last G (each row's G_i from
 * dyn_reduced_row): the largest number for one row. */
static int row_tree_spread(dyn_world *w, int rows) {
  const dyn_redmax *rm = dyn_reduced_redmax(w);
  double g[64];
  int most = 0;
  CU_ASSERT_FATAL(dyn_redmax_ndof(rm) <= 64);
  for (int i = 0; i < rows; i++) {
    CU_ASSERT_FATAL(dyn_reduced_row(w, i, g) == dyn_redmax_ndof(rm));
    int k = 0;
    for (int t = 0; t < dyn_redmax_tree_count(rm); t++) {
      const int *d, nt = dyn_redmax_tree_dofs(rm, t, &d);
      int nz = 0;
      for (int c = 0; c < nt; c++) nz |= g[d[c]] != 0.0;
      k += nz;
    }
    most = k > most ? k : most;
  }
  return most;
}

/* G_i A_r^-1 G_j^T from the last step's view: over the dofs of the trees
 * rows i and j share (Y's column j is stale elsewhere), 0 when none. */
static double a_expected(const dyn_reduced_view *v, int i, int j) {
  double s = 0.0;
  for (int k = 0; k < 2; k++) {
    const int t = v->rtree[2 * i + k];
    if (t < 0 || (t != v->rtree[2 * j] && t != v->rtree[2 * j + 1])) continue;
    const int *d, nt = dyn_redmax_tree_dofs(v->rm, t, &d);
    for (int c = 0; c < nt; c++)
      s += v->Gt[(size_t)i * v->ndof + d[c]] * v->Y[(size_t)j * v->ndof + d[c]];
  }
  return s;
}

/* Row i's column of Y is 0 on its trees: a still row, decoupled. */
static int still_row(const dyn_reduced_view *v, int i) {
  for (int k = 0; k < 2; k++) {
    const int *d, nt = dyn_redmax_tree_dofs(v->rm, v->rtree[2 * i + k], &d);
    for (int c = 0; c < nt; c++)
      if (v->Y[(size_t)i * v->ndof + d[c]] != 0.0) return 0;
  }
  return 1;
}

/* The largest gap between w's last A and G A_r^-1 G^T + diag(cfm) (still
 * rows: 0 off the diagonal), over the entries; *off the largest |A(i,j)|
 * between rows that share no tree. */
static double a_gap(dyn_world *w, double *off) {
  slv_problem p;
  dyn_reduced_view v;
  dyn_world_last_problem(w, &p, NULL);
  if (!dyn_reduced_view_of(w, &v)) return 0.0;
  double gap = 0.0;
  for (int j = 0; j < p.n; j++)
    for (int i = 0; i < p.n; i++) {
      const double a = p.A[(size_t)j * p.lda + i];
      if (i == j && still_row(&v, i)) continue;
      double want = still_row(&v, i) || still_row(&v, j) ? 0.0 : a_expected(&v, i, j);
      if (i == j) want += w->rows.p[i].cfm;
      gap = fmax(gap, fabs(a - want) / fmax(1.0, fabs(want)));
      if (a_expected(&v, i, j) == 0.0 && v.rtree[2 * i] != v.rtree[2 * j])
        *off = fmax(*off, fabs(a));
    }
  return gap;
}

/* Planted: A is written only on the blocks of rows that share a tree and
 * on its diagonal, and the dense array is cleared only where the last
 * step wrote (world_reduced.c's clear_dense_a), so an entry left over
 * from an earlier step, whose rows sat elsewhere, would show here: every
 * step's A against G A_r^-1 G^T + diag(cfm) recomputed from G^T and Y,
 * and exactly 0 between rows of different trees, over a run whose row
 * count changes. */
static void test_forest_a_cleared(void) {
  char dir[256];
  CU_ASSERT_FATAL(tst_tmpdir_make(dir, sizeof dir, "test_world_reduced") == 0);
  dyn_world *w = forest_world(dir, 7);
  double gap = 0.0, off = 0.0;
  int lo = 1 << 30, hi = 0;
  for (int k = 0; k < 120; k++) {
    dyn_world_metrics mt;
    CU_ASSERT_FATAL(dyn_world_step(w, &mt) == DYN_OK);
    lo = mt.rows < lo ? mt.rows : lo;
    hi = mt.rows > hi ? mt.rows : hi;
    gap = fmax(gap, a_gap(w, &off));
  }
  printf("\n    forest's A against G A_r^-1 G^T + cfm: gap %.3g, between trees %.3g, rows %d..%d",
         gap, off, lo, hi);
  CU_ASSERT(gap < 1e-12);
  CU_ASSERT(off == 0.0);
  CU_ASSERT(hi > lo + 2); /* the rows moved, so the blocks did */
  dyn_world_free(w);
  tst_tmpdir_remove(dir);
}

/* Planted: trees that do not touch do not interact, so each tree's motion
 * in the forest is its motion alone, step by step (to rounding: the
 * forest's matrices hold each tree's block among zeros).  The three trees
 * differ in size (2, 9 and 2 dofs), so that blocks mixed up (a tree solved
 * with another's factor, a dof read at another tree's place) show.  No
 * row touches two trees here, so each row of G is 0 outside one tree's
 * dofs (G^T is cleared only where the last step set it: an entry left
 * over from another row would show). */
static void test_forest_vs_alone(void) {
  char dir[256];
  CU_ASSERT_FATAL(tst_tmpdir_make(dir, sizeof dir, "test_world_reduced") == 0);
  dyn_world *forest = forest_world(dir, 7), *alone[3];
  for (int t = 0; t < 3; t++) alone[t] = forest_world(dir, 1 << t);
  CU_ASSERT_EQUAL(dyn_redmax_ndof(dyn_reduced_redmax(forest)), 13);
  double dmax = 0.0, moved = 0.0;
  int rows = 0, contacts = 0, spread = 0;
  for (int k = 0; k < 120; k++) {
    dyn_world_metrics mt;
    CU_ASSERT_FATAL(dyn_world_step(forest, &mt) == DYN_OK);
    rows = mt.rows > rows ? mt.rows : rows;
    contacts = mt.contacts > contacts ? mt.contacts : contacts;
    int k1 = row_tree_spread(forest, mt.rows);
    spread = k1 > spread ? k1 : spread;
    for (int t = 0, first = 0; t < 3; t++) {
      CU_ASSERT_FATAL(dyn_world_step(alone[t], NULL) == DYN_OK);
      for (int j = 0;; j++) {
        int a = dynamic_body(alone[t], j), b = dynamic_body(forest, first + j);
        if (a < 0) {
          first += j;
          break;
        }
        CU_ASSERT_FATAL(b >= 0);
        const dyn_body_state *x = &dyn_world_body_states(alone[t])[a],
                             *y = &dyn_world_body_states(forest)[b];
        double d = fmax(dyn_v3_norm(dyn_v3_sub(x->r, y->r)), dyn_v3_norm(dyn_v3_sub(x->v, y->v)));
        d = fmax(d, dyn_v3_norm(dyn_v3_sub(x->w, y->w)));
        d = fmax(d, fabs(x->q.w - y->q.w) + fabs(x->q.x - y->q.x) + fabs(x->q.y - y->q.y) +
                        fabs(x->q.z - y->q.z));
        dmax = fmax(dmax, d);
        moved = fmax(moved, dyn_v3_norm(x->v));
      }
    }
  }
  printf("\n    forest of 3 trees vs each alone: max difference %.3g (pose, v, w), %d rows, "
         "%d contacts, speeds up to %.3g m/s",
         dmax, rows, contacts, moved);
  CU_ASSERT(dmax < 1e-12);
  CU_ASSERT_EQUAL(spread, 1);
  CU_ASSERT(contacts > 0);        /* the free tree lands */
  CU_ASSERT(rows > 3 * contacts); /* and the limits' rows are there */
  CU_ASSERT(moved > 0.5);
  dyn_world_free(forest);
  for (int t = 0; t < 3; t++) dyn_world_free(alone[t]);
  tst_tmpdir_remove(dir);
}

static void test_humanoid_pgs(void) { humanoid_settles("pgs", 3000, 0.049); }
static void test_humanoid_nsgs(void) { humanoid_settles("nsgs", 3000, 0.049); }

/* Every other solver family at the world's defaults: 30 s (6000 steps).
 * The humanoid first comes to rest sitting; its joint springs, pulling the
 * limbs toward the file's standing pose, then tip it over at a time that
 * depends on the solver (pjacobi and apgd are still falling at 15 s:
 * experiments/records/2026-11-26-humanoid-xml-reduced-coordinates.md).  The
 * bound is 2 g h
 * (0.098 m/s): apgd, pcg_cone and ipm end their budget-stopped steps with
 * a limb rocking at 0.046-0.0497 m/s, which a rounding-level change of the
 * step moves across g h (pcg_cone 0.0497 at 72d33ee, 0.0489 after the
 * forest's per-tree blocks); a humanoid still falling moves at m/s. */
static void test_humanoid_every_family(void) {
  const char *names[] = { "lemke", "dantzig", "pjacobi", "apgd",        "pcg_cone",
                          "admm",  "ipm",     "nsn_ac",  "pjacobi_cone" };
  /* short runs (memcheck, ASan): a pivoting, a first-order and a Newton
   * family, each past the first contacts (the nine were 34 s of the memcheck
   * stage; the world's solve path is the same code for all) */
  size_t step = tst_short_runs() ? 3 : 1;
  for (size_t i = 0; i < sizeof names / sizeof *names; i += step)
    humanoid_settles(names[i], 6000, 0.098);
}

/* dantzig on the humanoid's first contact step (lemke's world, 24 rows,
 * box friction): after the first pass a friction row is driven with w_i
 * at rounding level along a direction of zero Schur complement; it moved x
 * between two bounds and back to the pivot limit (466,033 pivots, status
 * max_iter; docs/solvers.md, "Principal pivoting (Dantzig)").  Such a row
 * is valid as it stands: the solve converges, with few pivots, to lemke's
 * residual level. */
static void test_humanoid_dantzig_first_contacts(void) {
  const dyn_model *m = shared_humanoid();
  if (!m) return;
  dyn_world *w = make(m, 1, 0.005, "lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  dyn_world_metrics mt = { 0 };
  for (int k = 0; k < 100 && mt.contacts == 0; k++)
    CU_ASSERT_FATAL(dyn_world_step(w, &mt) == DYN_OK);
  slv_problem p;
  const double *xw;
  dyn_world_last_problem(w, &p, &xw);
  CU_ASSERT_FATAL(p.n >= 12 && p.findex != NULL);
  const slv_solver *dz = slv_solver_find("dantzig");
  slv_options o = slv_options_default();
  o.max_iter = 50; /* the world's passes */
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(dz, p.n, &o, &ws), SLV_OK);
  double x[64], wv[64];
  CU_ASSERT_FATAL(p.n <= 64);
  slv_result res;
  slv_status st = slv_solve(ws, &p, &o, x, wv, &res);
  printf("\n    humanoid step %ld, %d rows: dantzig %s, %d passes, %d pivots, res_scaled %.3g (%s)",
         dyn_world_step_count(w), p.n, slv_status_str(st), res.iterations, res.pivots,
         res.solver_residual, res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT(res.pivots <= 10 * p.n);
  slv_residuals r = slv_residual(&p, x, NULL);
  CU_ASSERT(slv_residuals_met(&r, o.tol, o.norm));
  slv_workspace_free(ws);
  dyn_world_free(w);
}

/* ---- one step against the dense factor's (issue 82, item 1) ---------------------- */

/* humanoid.xml's state (q then u) after 50 steps of dantzig from the file's
 * pose (its first contacts are at step 43), and the state one step later
 * from a fresh world set to it: recorded on main at 1031f1b, whose
 * joint-space inertia was factored dense (LAPACK dpotrf per tree), by this
 * test with LCPLAB_RECORD_STEP=1 in the environment. */
#include "tst_reduced_step.h"

/* max |a - b| over n values, relative to max |b| */
static double rel_gap(const double *a, const double *b, int n) {
  double d = 0.0, s = 0.0;
  for (int k = 0; k < n; k++) d = fmax(d, fabs(a[k] - b[k])), s = fmax(s, fabs(b[k]));
  return d / (s > 0.0 ? s : 1.0);
}

static void print_state(const char *name, const double *x, int n) {
  printf("static const double %s[%d] = {", name, n);
  for (int k = 0; k < n; k++) printf("%s%a", k == 0 ? "\n  " : k % 4 ? ", " : ",\n  ", x[k]);
  printf("\n};\n");
}

/* A fresh dantzig world on m set to state s, stepped once (the state after
 * into s); its contact rows' count. */
static int step_from(const dyn_model *m, double *s) {
  dyn_world *w = make(m, 1, 0.005, "dantzig");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_FATAL(dyn_reduced_state_set(w, s) == DYN_OK);
  dyn_world_metrics mt;
  CU_ASSERT_FATAL(dyn_world_step(w, &mt) == DYN_OK);
  dyn_reduced_state_get(w, s);
  dyn_world_free(w);
  return mt.contacts;
}

static void record_step(const dyn_model *m, int ns) {
  dyn_world *w = make(m, 1, 0.005, "dantzig");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  for (int k = 0; k < 50; k++) CU_ASSERT_FATAL(dyn_world_step(w, NULL) == DYN_OK);
  double s[128];
  dyn_reduced_state_get(w, s);
  dyn_world_free(w);
  printf("\n/* tst_reduced_step.h: see test_one_step_as_dense */\n");
  print_state("step_before", s, ns);
  step_from(m, s);
  print_state("step_after", s, ns);
}

/* One step from the same state equals the dense factor's to 1e-12
 * relative: the positions and the velocities, with contacts and limits. */
static void test_one_step_as_dense(void) {
  const dyn_model *m = shared_humanoid();
  if (!m) return;
  dyn_world *w = make(m, 1, 0.005, "dantzig");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  const int ns = dyn_reduced_state_count(w), nq = dyn_redmax_nq(dyn_reduced_redmax(w));
  dyn_world_free(w);
  CU_ASSERT_FATAL(ns <= 128);
  if (getenv("LCPLAB_RECORD_STEP")) {
    record_step(m, ns);
  } else {
    double s[128];
    CU_ASSERT_FATAL(ns == (int)(sizeof step_before / sizeof *step_before));
    memcpy(s, step_before, sizeof step_before);
    int contacts = step_from(m, s);
    double gq = rel_gap(s, step_after, nq), gu = rel_gap(s + nq, step_after + nq, ns - nq);
    printf("\n    humanoid one step, %d contacts: q %.3g, u %.3g relative to main's", contacts, gq,
           gu);
    CU_ASSERT(contacts > 0);
    CU_ASSERT(gq <= 1e-12);
    CU_ASSERT(gu <= 1e-12);
  }
}

/* A hinge chain whose last body is a massless frame (mass 0, no armature):
 * its dof moves no mass, the joint-space inertia is singular.  Refused when
 * the world is made, naming the body ("tip"), nothing built; the same at
 * the tree (dyn_redmax_new names defs[2]); with armature it runs. */
static void test_massless_chain_end(void) {
  dyn_model *m = chain_model();
  dyn_body_def b = dyn_body_def_default();
  snprintf(b.name, sizeof b.name, "tip");
  b.r = dyn_v3_make(0.8, 0.0, 0.3); /* mass 0, I_b 0: a frame */
  int tip = dyn_model_add_body(m, &b, NULL, 0);
  CU_ASSERT_FATAL(tip >= 0);
  add_hinge(m, 2, tip, dyn_v3_make(0.8, 0.0, 0.3), dyn_v3_make(0.0, 1.0, 0.0));
  dyn_world_settings s = dyn_world_settings_default();
  s.coordinates = DYN_COORDINATES_REDUCED;
  dyn_world *w = NULL;
  char msg[512] = "";
  dyn_err e = dyn_world_new_from_model(m, &s, &w, msg, sizeof msg);
  printf("\n    massless chain end: %s", msg);
  CU_ASSERT_EQUAL(e, DYN_ERR_INPUT);
  CU_ASSERT_PTR_NULL(w);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "\"tip\""));
  dyn_world_free(w);
  dyn_model_free(m);
  dyn_rm_body_def d[3];
  for (int i = 0; i < 3; i++) {
    d[i] = dyn_rm_body_def_default();
    d[i].parent = i - 1;
    d[i].mass = i < 2 ? 1.0 : 0.0;
    d[i].I_b = i < 2 ? dyn_m3_diag(0.1, 0.1, 0.1) : dyn_m3_zero();
    d[i].r = d[i].anchor = dyn_v3_make(0.5 * i, 0.0, 0.0);
  }
  dyn_redmax *rm = NULL;
  CU_ASSERT_EQUAL(dyn_redmax_new(d, 3, &rm, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NULL(rm);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "defs[2]"));
  d[2].armature = 0.01; /* a rotor's inertia: Mr + diag(a) is positive definite */
  CU_ASSERT_EQUAL(dyn_redmax_new(d, 3, &rm, msg, sizeof msg), DYN_OK);
  if (rm)
    CU_ASSERT_EQUAL(
        dyn_redmax_step(rm, 0.01, dyn_v3_make(0, 0, -9.81), NULL, NULL, msg, sizeof msg), DYN_OK);
  dyn_redmax_free(rm);
}

/* ---- contact islands (world_islands.c) ------------------------------------------- */

/* Floor and piles of boxes 0.2 m wide, 1 m apart along x: pile p holds
 * height[p] boxes, each resting on the one below (free roots: one tree a
 * box in reduced coordinates). */
static dyn_model *piles(const int *height, int np) {
  dyn_model *m = NULL;
  CU_ASSERT_FATAL(dyn_model_new(&m) == DYN_OK);
  add_floor(m);
  for (int p = 0; p < np; p++)
    for (int k = 0; k < height[p]; k++) {
      char name[16];
      snprintf(name, sizeof name, "p%db%d", p, k);
      dyn_v3 r = dyn_v3_make(p - 1.0, 0.02 * k, 0.1 + 0.2 * k - 0.001);
      add_box(m, name, 1.0 + 0.5 * k, dyn_v3_make(0.1, 0.1, 0.1), r);
    }
  return m;
}

/* A world of m with the solver, islands mode and threads; pivots > 0 sets
 * max_pivots, tol > 0 the tolerance. */
static dyn_world *island_world(const dyn_model *m, int reduced, const char *solver,
                               dyn_islands_mode mode, int threads, int pivots, double tol) {
  dyn_world_settings s = dyn_world_settings_default();
  s.dt = 0.005;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  s.islands = mode;
  if (!strcmp(solver, "nsgs")) s.contact.friction = DYN_FRICTION_CONE; /* cones split whole */
  s.opt.threads = threads;
  if (pivots > 0) s.opt.max_pivots = pivots;
  if (tol > 0) s.opt.tol = tol;
  if (reduced) s.coordinates = DYN_COORDINATES_REDUCED;
  dyn_world *w = NULL;
  char msg[512] = "";
  if (dyn_world_new_from_model(m, &s, &w, msg, sizeof msg) != DYN_OK) printf("\n    %s\n", msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  return w;
}

/* Steps of the island cases: 40, 8 under memcheck (the piles touch from
 * the first step: the split is there at once). */
static int island_steps(void) { return tst_short_runs() ? 8 : 40; }

/* The largest difference of two worlds' bodies (pose, v, w). */
static double body_gap(dyn_world *a, dyn_world *b) {
  double d = 0.0;
  for (int i = 0; i < dyn_world_body_count(a); i++) {
    const dyn_body_state *x = &dyn_world_body_states(a)[i], *y = &dyn_world_body_states(b)[i];
    d = fmax(d, dyn_v3_norm(dyn_v3_sub(x->r, y->r)));
    d = fmax(d, fmax(dyn_v3_norm(dyn_v3_sub(x->v, y->v)), dyn_v3_norm(dyn_v3_sub(x->w, y->w))));
    d = fmax(d, fabs(x->q.w - y->q.w) + fabs(x->q.x - y->q.x) + fabs(x->q.y - y->q.y) +
                    fabs(x->q.z - y->q.z));
  }
  return d;
}

/* Three piles (3, 1 and 2 boxes), islands on against off, step by step:
 * the same answer to rounding for an exact solver (dantzig), and for a
 * budget-stopped one (pgs at a tolerance no sweep meets: every island
 * sweeps the whole problem's 50 sweeps, the iterates of the whole sweep;
 * nsgs on friction cones alike, each cone's three rows in one island).
 * The split is checked: three islands once the piles touch. */
static void islands_vs_whole(int reduced, const char *solver, double tol, double bound) {
  const int height[3] = { 3, 1, 2 };
  dyn_model *m = piles(height, 3);
  dyn_world *on = island_world(m, reduced, solver, DYN_ISLANDS_ON, 1, 0, tol);
  dyn_world *off = island_world(m, reduced, solver, DYN_ISLANDS_OFF, 1, 0, tol);
  double gap = 0.0;
  int most = 0, rows = 0;
  for (int k = 0; k < island_steps(); k++) {
    dyn_world_metrics mt, mf;
    CU_ASSERT_FATAL(dyn_world_step(on, &mt) == DYN_OK);
    CU_ASSERT_FATAL(dyn_world_step(off, &mf) == DYN_OK);
    CU_ASSERT_EQUAL(mt.status, mf.status);
    CU_ASSERT_EQUAL(mt.failed, 0);
    CU_ASSERT_EQUAL(dyn_world_islands_last(off), 0);
    most = dyn_world_islands_last(on) > most ? dyn_world_islands_last(on) : most;
    rows = mt.rows > rows ? mt.rows : rows;
    gap = fmax(gap, body_gap(on, off));
  }
  printf("\n    %s %s: islands on vs off, max difference %.3g, %d islands, %d rows",
         reduced ? "reduced" : "maximal", solver, gap, most, rows);
  CU_ASSERT_EQUAL(most, 3);
  CU_ASSERT(rows >= 6 * 3 * 4); /* the six boxes' contacts, four each, three rows each */
  CU_ASSERT(gap <= bound);
  dyn_world_free(on);
  dyn_world_free(off);
  dyn_model_free(m);
}

static void test_islands_reduced_dantzig(void) { islands_vs_whole(1, "dantzig", 0, 1e-12); }
static void test_islands_reduced_pgs(void) { islands_vs_whole(1, "pgs", 1e-300, 1e-12); }
static void test_islands_maximal_lemke(void) { islands_vs_whole(0, "lemke", 0, 1e-12); }
static void test_islands_reduced_nsgs(void) { islands_vs_whole(1, "nsgs", 1e-300, 1e-12); }

/* Islands on 1 and 2 threads: the same bits. */
static void test_islands_threads(void) {
  const int height[3] = { 2, 2, 1 };
  dyn_model *m = piles(height, 3);
  dyn_world *one = island_world(m, 1, "dantzig", DYN_ISLANDS_AUTO, 1, 0, 0);
  dyn_world *two = island_world(m, 1, "dantzig", DYN_ISLANDS_AUTO, 2, 0, 0);
  double gap = 0.0;
  int most = 0;
  for (int k = 0; k < island_steps(); k++) {
    CU_ASSERT_FATAL(dyn_world_step(one, NULL) == DYN_OK);
    CU_ASSERT_FATAL(dyn_world_step(two, NULL) == DYN_OK);
    most = dyn_world_islands_last(two) > most ? dyn_world_islands_last(two) : most;
    gap = fmax(gap, body_gap(one, two));
  }
  CU_ASSERT_EQUAL(most, 3);
  CU_ASSERT_EQUAL(gap, 0.0);
  dyn_world_free(one);
  dyn_world_free(two);
  dyn_model_free(m);
}

/* The first step's metrics of the piles of height[] with dantzig at a
 * pivot budget of pivots, islands on (auto, reduced coordinates), split
 * one island a pile. */
static dyn_world_metrics first_contact_step(const int *height, int np, int pivots) {
  dyn_model *m = piles(height, np);
  dyn_world *w = island_world(m, 1, "dantzig", DYN_ISLANDS_AUTO, 1, pivots, 0);
  dyn_world_metrics mt;
  CU_ASSERT_FATAL(dyn_world_step(w, &mt) == DYN_OK);
  CU_ASSERT(mt.rows > 0);
  CU_ASSERT_EQUAL(dyn_world_islands_last(w), np); /* split: one island a pile */
  dyn_world_free(w);
  dyn_model_free(m);
  return mt;
}

/* A failed island fails the step: the single boxes' islands converge within
 * a pivot budget the pile of four does not; with the pile among them the
 * step is failed (max_iter with pivots: dyn_solve_failed) and the fallback
 * applied, though every other island converged. */
static void test_islands_one_fails(void) {
  const int singles[2] = { 1, 1 }, mixed[3] = { 1, 4, 1 };
  int budget = 0;
  for (int p = 1; p < 200 && !budget; p++) {
    dyn_world_metrics a = first_contact_step(singles, 2, p);
    if (a.status == SLV_CONVERGED) budget = p;
  }
  CU_ASSERT_FATAL(budget > 0);
  dyn_world_metrics a = first_contact_step(singles, 2, budget);
  dyn_world_metrics b = first_contact_step(mixed, 3, budget);
  printf("\n    pivot budget %d: single boxes %s, with a pile of four %s (failed %d, applied %d)",
         budget, slv_status_str(a.status), slv_status_str(b.status), b.failed, (int)b.applied);
  CU_ASSERT_EQUAL(a.failed, 0);
  CU_ASSERT_NOT_EQUAL(b.status, SLV_CONVERGED);
  CU_ASSERT_EQUAL(b.failed, 1);
  CU_ASSERT_NOT_EQUAL(b.applied, DYN_APPLIED_SOLVER);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("world in reduced coordinates", NULL, free_humanoid);
  CU_add_test(s, "hinge chain onto the floor: reduced vs maximal, joint gap 0",
              test_chain_vs_maximal);
  CU_add_test(s, "contact rows in joint space vs central differences", test_rows_fd);
  CU_add_test(s, "box on a slide stops at its limit", test_slide_limit);
  CU_add_test(s, "a fixed tendon's limit: its row by hand, held", test_tendon_limit_row);
  CU_add_test(s, "twenty free roots fly as free bodies", test_free_roots);
  CU_add_test(s, "the energy rule's excess in joint space is the maximal world's",
              test_energy_rule_joint_space);
  CU_add_test(s, "a forest of three trees: each moves as it does alone", test_forest_vs_alone);
  CU_add_test(s, "a forest's A: only its blocks written, nothing left over", test_forest_a_cleared);
  CU_add_test(s, "islands: three piles, dantzig, as the whole problem",
              test_islands_reduced_dantzig);
  CU_add_test(s, "islands: three piles, pgs at its budget, as the whole problem",
              test_islands_reduced_pgs);
  CU_add_test(s, "islands: three piles in maximal coordinates, lemke, as the whole problem",
              test_islands_maximal_lemke);
  CU_add_test(s, "islands: three piles, nsgs on cones at its budget, as the whole problem",
              test_islands_reduced_nsgs);
  CU_add_test(s, "islands: 1 and 2 threads give the same bits", test_islands_threads);
  CU_add_test(s, "islands: one failed island fails the step", test_islands_one_fails);
  CU_add_test(s, "humanoid.xml: one step as the dense factor's, to 1e-12", test_one_step_as_dense);
  CU_add_test(s, "a massless chain end is refused, named", test_massless_chain_end);
  CU_add_test(s, "humanoid.xml settles (pgs, box friction)", test_humanoid_pgs);
  CU_add_test(s, "humanoid.xml settles (nsgs, cone)", test_humanoid_nsgs);
  CU_add_test(s, "dantzig on humanoid.xml's first contacts: no cycle to the pivot limit",
              test_humanoid_dantzig_first_contacts);
  CU_add_test(s, "humanoid.xml settles under every other solver family",
              test_humanoid_every_family);
  return tst_run();
}
