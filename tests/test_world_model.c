/* test_world_model.c -- worlds built from scene models (dyn_world_new_from_model,
 * libdynamics/world_model.c): several shapes on one body, collision filters,
 * shapes at offsets and turned in their body (the contacts by hand),
 * excluded pairs, materials combined per contact, the state saved and
 * restored, hull vertices owned by the model, every built-in scene built
 * two ways (through its model, and through a model rebuilt from bodies
 * and joints made by hand, tst_world.h) stepping to the same bits, and
 * several worlds on one model (shared, never written) stepping as each
 * alone.
 *
 * Every expected value is derived in the comment above its assertion.
 */
#include "dyn_model.h"
#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"
#include "tst_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static dyn_model *new_model(double gz) {
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  dyn_model_options o = dyn_model_get_options(m);
  o.gravity = dyn_v3_make(0.0, 0.0, gz);
  CU_ASSERT_EQUAL_FATAL(dyn_model_set_options(m, &o, NULL, 0), DYN_OK);
  return m;
}

/* A static body at the origin carrying the half-space n . x >= 0 (named). */
static int add_floor(dyn_model *m, dyn_v3 n, int material, const char *name) {
  char msg[256];
  dyn_body_def b = dyn_body_def_default();
  b.is_static = 1;
  snprintf(b.name, sizeof b.name, "%s", name);
  int i = dyn_model_add_body(m, &b, msg, sizeof msg);
  CU_ASSERT_FATAL(i >= 0);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = i;
  s.geom.kind = DYN_SHAPE_PLANE;
  s.geom.normal = n;
  s.material = material;
  snprintf(s.name, sizeof s.name, "%s", name);
  CU_ASSERT_FATAL(dyn_model_add_shape(m, &s, msg, sizeof msg) >= 0);
  return i;
}

/* A dynamic sphere body of radius r, 1 kg, at c, with its filter. */
static int add_ball(dyn_model *m, dyn_v3 c, double r, uint32_t ct, uint32_t ca) {
  char msg[256];
  dyn_body_def b = dyn_body_def_default();
  b.mass = 1.0;
  b.I_b = dyn_inertia_sphere(1.0, r);
  b.r = c;
  int i = dyn_model_add_body(m, &b, msg, sizeof msg);
  CU_ASSERT_FATAL(i >= 0);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = i;
  s.geom.kind = DYN_SHAPE_SPHERE;
  s.geom.radius = r;
  s.contype = ct;
  s.conaffinity = ca;
  CU_ASSERT_FATAL(dyn_model_add_shape(m, &s, msg, sizeof msg) >= 0);
  return i;
}

static dyn_world *world_of(const dyn_model *m, const char *solver) {
  dyn_world_settings s = dyn_world_settings_default();
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  dyn_world *w = NULL;
  char msg[256] = "";
  dyn_err e = dyn_world_new_from_model(m, &s, &w, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    dyn_world_new_from_model: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  return w;
}

static int run(dyn_world *w, long K) {
  for (long k = 0; k < K; k++)
    if (dyn_world_step(w, NULL) != DYN_OK) {
      printf("\n    step %ld: %s\n", k + 1, dyn_world_message(w));
      return 0;
    }
  return 1;
}

/* ---- several shapes on one body ------------------------------------------------- */

/* A dumbbell: one body, two spheres of radius a = 0.1 at +-d = +-0.3 on its
 * x axis (mass from density), dropped level from 0.1 m above a floor.  At
 * rest its centre is at z = a, and the two contacts are the spheres' lowest
 * points (x0 +- d, y0, 0) up to the penetration the slop leaves (0.5 mm),
 * named by the two sphere shapes and the floor's, with the normal from the
 * dumbbell (body 0, the lower index) to the floor: -z. */
static void test_dumbbell(void) {
  dyn_model *m = new_model(-9.81);
  char msg[256];
  const double a = 0.1, d = 0.3;
  dyn_body_def b = dyn_body_def_default();
  snprintf(b.name, sizeof b.name, "%s", "dumbbell");
  b.r = dyn_v3_make(0.5, -0.2, a + 0.1);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, msg, sizeof msg), 0);
  for (int k = 0; k < 2; k++) {
    dyn_shape_def s = dyn_shape_def_default();
    snprintf(s.name, sizeof s.name, "%s", k ? "left" : "right");
    s.geom.kind = DYN_SHAPE_SPHERE;
    s.geom.radius = a;
    s.pos = dyn_v3_make(k ? -d : d, 0.0, 0.0);
    CU_ASSERT_EQUAL_FATAL(dyn_model_add_shape(m, &s, msg, sizeof msg), k);
  }
  CU_ASSERT_EQUAL_FATAL(dyn_model_mass_from_density(m, 0, 1000.0, msg, sizeof msg), DYN_OK);
  add_floor(m, dyn_v3_make(0, 0, 1), DYN_MATERIAL_DEFAULT, "floor");
  dyn_world *w = world_of(m, "pgs");
  CU_ASSERT_EQUAL(dyn_world_body_count(w), 2);
  CU_ASSERT(run(w, 120));
  const dyn_body_state *B = dyn_world_body_states(w);
  const dyn_body_const *Bc = dyn_world_body_consts(w);
  TST_CLOSE(B[0].r.z, a, 1e-3, 0);
  TST_CLOSE(B[0].r.x, 0.5, 1e-6, 0);
  int n = 0;
  const dyn_contact *c = dyn_world_contacts(w, &n);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  int seen[2] = { 0, 0 };
  for (int k = 0; k < n; k++) {
    CU_ASSERT(c[k].a == 0 && c[k].b == 1);
    CU_ASSERT(c[k].sa == 0 || c[k].sa == 1);
    CU_ASSERT_EQUAL(c[k].sb, 2);
    if (c[k].sa < 0 || c[k].sa > 1) continue;
    seen[c[k].sa]++;
    double x = c[k].sa == 0 ? 0.5 + d : 0.5 - d;
    TST_CLOSE(c[k].p.x, x, 1e-5, 0);
    TST_CLOSE(c[k].p.y, -0.2, 1e-6, 0);
    TST_CLOSE(c[k].p.z, 0.0, 1e-3, 0);
    TST_CLOSE(c[k].normal.z, -1.0, 1e-12, 0);
    TST_CLOSE(c[k].mu, 0.5, 0, 0); /* the settings' (default material) */
  }
  CU_ASSERT(seen[0] == 1 && seen[1] == 1);
  /* the body keeps both shapes: its own record has none */
  CU_ASSERT_EQUAL(Bc[0].shape.kind, DYN_SHAPE_NONE);
  CU_ASSERT_EQUAL(dyn_model_shape_count(dyn_world_model(w)), 3);
  dyn_world_free(w);
  dyn_model_free(m);
}

/* One contact expected: its shapes, bodies, point, normal and depth. */
typedef struct {
  int sa, sb, a, b;
  double p[3], n[3], depth;
} want_contact;

/* 1 iff contact c is w (points and normals to 1e-12, depths to 1e-12). */
static int contact_is(const dyn_contact *c, const want_contact *w) {
  const double t = 1e-12;
  return c->sa == w->sa && c->sb == w->sb && c->a == w->a && c->b == w->b &&
         fabs(c->p.x - w->p[0]) < t && fabs(c->p.y - w->p[1]) < t && fabs(c->p.z - w->p[2]) < t &&
         fabs(c->normal.x - w->n[0]) < t && fabs(c->normal.y - w->n[1]) < t &&
         fabs(c->normal.z - w->n[2]) < t && fabs(c->depth - w->depth) < t;
}

/* Shape s of body `body` at pos, turned by rot in the body's frame. */
static void add_offset_shape(dyn_model *m, int body, dyn_shape s, dyn_v3 pos, dyn_quat rot) {
  dyn_shape_def d = dyn_shape_def_default();
  d.body = body;
  d.geom = s;
  d.pos = pos;
  d.rot = rot;
  CU_ASSERT_FATAL(dyn_model_add_shape(m, &d, NULL, 0) >= 0);
}

/* Body 0 at r = (1, 2, 0.5) turned 90 deg about z (its x is the world's
 * y, its y the world's -x), no gravity, with three shapes at offsets:
 *   0: sphere r 0.1 at (0.4, 0, -0.42): centre r + Rz(0.4, 0, -0.42) =
 *      (1, 2.4, 0.08); it enters the floor z >= 0 by 0.1 - 0.08 = 0.02,
 *      contact at its lowest point lifted by half the depth: (1, 2.4,
 *      -0.01);
 *   1: box half (0.1, 0.05, 0.02) at (-0.4, 0, -0.49), turned 90 deg about
 *      z in the body (180 deg in the world: its half extents stay along x
 *      and y): centre (1, 1.6, 0.01), four corners at z = -0.01, depth
 *      0.01, contacts (1 +- 0.1, 1.6 +- 0.05, -0.005);
 *   2: cylinder r 0.05, half length 0.1 at (0, 0.3, -0.46), turned 90 deg
 *      about x in the body: its axis Rz Rx e_z = Rz (0, -1, 0) = (1, 0, 0),
 *      centre (1 - 0.3, 2, 0.04); its lowest line z = -0.01 from x = 0.6
 *      to 0.8: contacts at both rim ends, (0.6 | 0.8, 2, -0.005), depth
 *      0.01 (the rim's sides, 0.04 above the floor, are beyond the 2 mm
 *      margin).
 * Body 1 the floor (shape 3); body 2 a ball r 0.1 (shape 4) at (1, 2.4,
 * 0.27), on top of shape 0: centres 0.19 apart, depth 0.01, contact
 * midway between the surfaces (1, 2.4, 0.175), normal +z from body 0.
 * Every floor contact's normal is -z (from body 0, the lower index).
 * The contacts of one step are those of the state before it. */
static void test_offset_shapes_contacts(void) {
  dyn_model *m = new_model(0.0);
  dyn_body_def b = dyn_body_def_default();
  b.mass = 2.0;
  b.I_b = dyn_inertia_sphere(2.0, 0.3);
  b.r = dyn_v3_make(1.0, 2.0, 0.5);
  b.q = dyn_quat_axis_angle(dyn_v3_make(0, 0, 1), 0.5 * PI);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, NULL, 0), 0);
  dyn_shape sph = { .kind = DYN_SHAPE_SPHERE, .radius = 0.1 };
  dyn_shape box = { .kind = DYN_SHAPE_BOX, .half = { 0.1, 0.05, 0.02 } };
  dyn_shape cyl = { .kind = DYN_SHAPE_CYLINDER, .radius = 0.05, .half_length = 0.1 };
  add_offset_shape(m, 0, sph, dyn_v3_make(0.4, 0.0, -0.42), dyn_quat_identity());
  add_offset_shape(m, 0, box, dyn_v3_make(-0.4, 0.0, -0.49),
                   dyn_quat_axis_angle(dyn_v3_make(0, 0, 1), 0.5 * PI));
  add_offset_shape(m, 0, cyl, dyn_v3_make(0.0, 0.3, -0.46),
                   dyn_quat_axis_angle(dyn_v3_make(1, 0, 0), 0.5 * PI));
  add_floor(m, dyn_v3_make(0, 0, 1), DYN_MATERIAL_DEFAULT, "floor");
  add_ball(m, dyn_v3_make(1.0, 2.4, 0.27), 0.1, 1u, 1u);
  const want_contact want[] = {
    { 0, 3, 0, 1, { 1.0, 2.4, -0.01 }, { 0, 0, -1 }, 0.02 },
    { 1, 3, 0, 1, { 0.9, 1.55, -0.005 }, { 0, 0, -1 }, 0.01 },
    { 1, 3, 0, 1, { 1.1, 1.55, -0.005 }, { 0, 0, -1 }, 0.01 },
    { 1, 3, 0, 1, { 0.9, 1.65, -0.005 }, { 0, 0, -1 }, 0.01 },
    { 1, 3, 0, 1, { 1.1, 1.65, -0.005 }, { 0, 0, -1 }, 0.01 },
    { 2, 3, 0, 1, { 0.6, 2.0, -0.005 }, { 0, 0, -1 }, 0.01 },
    { 2, 3, 0, 1, { 0.8, 2.0, -0.005 }, { 0, 0, -1 }, 0.01 },
    { 0, 4, 0, 2, { 1.0, 2.4, 0.175 }, { 0, 0, 1 }, 0.01 },
  };
  const int nw = (int)(sizeof want / sizeof *want);
  dyn_world *w = world_of(m, "pgs");
  CU_ASSERT(run(w, 1));
  int n = 0;
  const dyn_contact *c = dyn_world_contacts(w, &n);
  CU_ASSERT_EQUAL(n, nw);
  for (int i = 0; i < nw; i++) {
    int found = 0;
    for (int k = 0; k < n; k++) found += contact_is(&c[k], &want[i]);
    if (found != 1)
      printf("\n    contact %d (shapes %d, %d): found %d times\n", i, want[i].sa, want[i].sb,
             found);
    CU_ASSERT_EQUAL(found, 1);
  }
  dyn_world_free(w);
  dyn_model_free(m);
}

/* A world with per-shape records (the dumbbell's) and a body made by
 * hand (dyn_body_init, tst_world.h): its record after the dumbbell's, it
 * lands on the floor (centre at its radius, 0.05 m), and the penetration
 * pass sees both bodies' contacts (2 + 1). */
static void test_hand_body_in_model_world(void) {
  dyn_model *m = new_model(-9.81);
  dyn_body_def b = dyn_body_def_default();
  b.r = dyn_v3_make(0.0, 0.0, 0.1);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, NULL, 0), 0);
  for (int k = 0; k < 2; k++) {
    dyn_shape_def s = dyn_shape_def_default();
    s.geom.kind = DYN_SHAPE_SPHERE;
    s.geom.radius = 0.1;
    s.pos = dyn_v3_make(k ? -0.3 : 0.3, 0.0, 0.0);
    CU_ASSERT_FATAL(dyn_model_add_shape(m, &s, NULL, 0) >= 0);
  }
  CU_ASSERT_EQUAL_FATAL(dyn_model_mass_from_density(m, 0, 500.0, NULL, 0), DYN_OK);
  add_floor(m, dyn_v3_make(0, 0, 1), DYN_MATERIAL_DEFAULT, "floor");
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_SPHERE;
  sh.radius = 0.05;
  tst_body ball = { 0 };
  CU_ASSERT_EQUAL_FATAL(tst_body_init(&ball, 0.5, dyn_inertia_sphere(0.5, 0.05), sh,
                                      dyn_v3_make(2.0, 0.0, 0.2), dyn_quat_identity(), NULL, 0),
                        DYN_OK);
  CU_ASSERT_EQUAL(tst_model_add_body(m, &ball, NULL, 0), 2);
  dyn_world *w = world_of(m, "pgs");
  CU_ASSERT_EQUAL(dyn_model_shape_count(dyn_world_model(w)), 4);
  CU_ASSERT(run(w, 120));
  TST_CLOSE(dyn_world_body_states(w)[2].r.z, 0.05, 1e-3, 0);
  TST_CLOSE(dyn_world_body_states(w)[0].r.z, 0.1, 1e-3, 0);
  int nc = 0;
  double pen = -1.0;
  CU_ASSERT_EQUAL(dyn_world_penetration(w, &pen, &nc), DYN_OK);
  CU_ASSERT_EQUAL(nc, 3);
  CU_ASSERT(pen >= 0.0 && pen < 1e-3);
  dyn_world_free(w);
  dyn_model_free(m);
}

/* ---- MuJoCo's geom margin and gap ---------------------------------------------------- */

/* A ball of radius 0.1 (margin 0.05, gap 0) a gap d above a floor (margin
 * 0.01, gap 0.02), g = 10, one step of 1/120 s from rest: the pair's
 * margin is the larger, m = 0.05, its gap the larger, g = 0.02 (MuJoCo
 * 2.2.2's rule), so a contact exists iff d < m (the world's own margin,
 * 0.002, reaches only to m - g + 0.002 = 0.032 < m) and its depth counts
 * from m - g = 0.03: depth = 0.03 - d.  *n contacts, the first in *c, the
 * ball's vertical velocity after the step in *vz. */
static void margin_ball_step(double d, int *n, dyn_contact *c, double *vz) {
  dyn_model *m = new_model(-10.0);
  int f = add_floor(m, dyn_v3_make(0, 0, 1), DYN_MATERIAL_DEFAULT, "floor");
  int b = add_ball(m, dyn_v3_make(0, 0, 0.1 + d), 0.1, 1u, 1u);
  dyn_shape_def sf = dyn_model_shapes(m)[0], sb = dyn_model_shapes(m)[1];
  sf.margin = 0.01, sf.gap = 0.02, sb.margin = 0.05;
  CU_ASSERT_EQUAL_FATAL(dyn_model_set_shape(m, 0, &sf, NULL, 0), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_model_set_shape(m, 1, &sb, NULL, 0), DYN_OK);
  CU_ASSERT(f == 0 && b == 1);
  dyn_world *w = world_of(m, "pgs");
  CU_ASSERT(run(w, 1));
  const dyn_contact *cs = dyn_world_contacts(w, n);
  if (*n > 0) *c = cs[0];
  *vz = dyn_world_body_states(w)[b].v.z;
  dyn_world_free(w);
  dyn_model_free(m);
}

/* The rule at four gaps d (free fall from rest: v = -g h = -1/12 m/s):
 *   d = 0.051 >= m: no contact (MuJoCo detects none);
 *   d = 0.049 in [m - g, m): a contact, depth 0.03 - 0.049 = -0.019,
 *     inactive: the step closes 1/1440 m of it, so free fall;
 *   d = 0.031: the same, depth -0.001, inactive (closes 0.000694 m);
 *   d = 0.029 < m - g: active, depth 0.001 past the rest distance: the row
 *     pushes the ball up, v = k_erp (depth - slop) / h = 0.2 * 0.0005 *
 *     120 = 0.012 m/s.
 * Then dropped from d = 0.2 for 2 s: it rests m - g = 0.03 above the
 * floor, up to the slop (0.5 mm) into it. */
static void test_geom_margin_and_gap(void) {
  int n = -1;
  dyn_contact c;
  memset(&c, 0, sizeof c);
  double vz = 0.0;
  margin_ball_step(0.051, &n, &c, &vz);
  CU_ASSERT_EQUAL(n, 0);
  TST_CLOSE(vz, -1.0 / 12.0, 1e-12, 1e-12);
  const double inactive[2] = { 0.049, 0.031 };
  for (int k = 0; k < 2; k++) {
    margin_ball_step(inactive[k], &n, &c, &vz);
    CU_ASSERT_EQUAL(n, 1);
    TST_CLOSE(c.depth, 0.03 - inactive[k], 1e-12, 1e-12);
    TST_CLOSE(vz, -1.0 / 12.0, 1e-12, 1e-12);
  }
  margin_ball_step(0.029, &n, &c, &vz);
  CU_ASSERT_EQUAL(n, 1);
  TST_CLOSE(c.depth, 0.001, 1e-12, 1e-12);
  TST_CLOSE(vz, 0.012, 1e-9, 1e-9);
  dyn_model *m = new_model(-10.0);
  add_floor(m, dyn_v3_make(0, 0, 1), DYN_MATERIAL_DEFAULT, "floor");
  add_ball(m, dyn_v3_make(0, 0, 0.3), 0.1, 1u, 1u);
  dyn_shape_def sb = dyn_model_shapes(m)[1];
  sb.margin = 0.05, sb.gap = 0.02;
  CU_ASSERT_EQUAL_FATAL(dyn_model_set_shape(m, 1, &sb, NULL, 0), DYN_OK);
  dyn_world *w = world_of(m, "pgs");
  CU_ASSERT(run(w, 240));
  double z = dyn_world_body_states(w)[1].r.z;
  if (!(z >= 0.13 - 0.0005 - 1e-9 && z <= 0.13 + 1e-9)) printf("\n    rests at z = %.9g\n", z);
  CU_ASSERT(z >= 0.13 - 0.0005 - 1e-9 && z <= 0.13 + 1e-9);
  sb.gap = -0.01; /* refused by name */
  char msg[256] = "";
  CU_ASSERT_EQUAL(dyn_model_set_shape(m, 1, &sb, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "margin=0.05 and gap=-0.01 must be finite and >= 0"));
  dyn_world_free(w);
  dyn_model_free(m);
}

/* ---- filters and exclusions -------------------------------------------------------- */

/* A ball dropped from 0.2 m onto a floor for 0.5 s (60 steps): it rests on
 * the floor (centre 0.1 m up) when the pair may touch, and falls through
 * it (free fall: z = 0.2 - g t^2 / 2 < -1) when it may not. */
static double ball_drop(uint32_t ct, uint32_t ca, int exclude) {
  dyn_model *m = new_model(-9.81);
  int f = add_floor(m, dyn_v3_make(0, 0, 1), DYN_MATERIAL_DEFAULT, "floor");
  int b = add_ball(m, dyn_v3_make(0, 0, 0.2), 0.1, ct, ca);
  if (exclude) CU_ASSERT_EQUAL(dyn_model_exclude(m, b, f, NULL, 0), DYN_OK);
  dyn_world *w = world_of(m, "pgs");
  CU_ASSERT(run(w, 60));
  double z = dyn_world_body_states(w)[b].r.z;
  dyn_world_free(w);
  dyn_model_free(m);
  return z;
}

static void test_filters_and_exclusions(void) {
  /* MuJoCo's rule with the floor at 1 / 1: (ct & 1) || (1 & ca) */
  TST_CLOSE(ball_drop(1, 1, 0), 0.1, 1e-3, 0);
  TST_CLOSE(ball_drop(2, 1, 0), 0.1, 1e-3, 0); /* the floor's contype meets ca = 1 */
  TST_CLOSE(ball_drop(1, 2, 0), 0.1, 1e-3, 0); /* ct = 1 meets the floor's affinity */
  CU_ASSERT(ball_drop(2, 2, 0) < -1.0);        /* (2 & 1) | (1 & 2) = 0: filtered */
  CU_ASSERT(ball_drop(0, 0, 0) < -1.0);
  CU_ASSERT(ball_drop(1, 1, 1) < -1.0); /* excluded */
  /* two shapes of one body never touch each other: two overlapping
   * spheres on one body fall freely, at rest relative to each other */
  dyn_model *m = new_model(-9.81);
  int b = add_ball(m, dyn_v3_make(0, 0, 5.0), 0.1, 1, 1);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = b;
  s.geom.kind = DYN_SHAPE_SPHERE;
  s.geom.radius = 0.1;
  s.pos = dyn_v3_make(0.05, 0.0, 0.0);
  CU_ASSERT_FATAL(dyn_model_add_shape(m, &s, NULL, 0) >= 0);
  dyn_world *w = world_of(m, "pgs");
  dyn_world_metrics mt;
  CU_ASSERT_EQUAL(dyn_world_step(w, &mt), DYN_OK);
  CU_ASSERT_EQUAL(mt.contacts, 0);
  TST_CLOSE(dyn_world_body_states(w)[b].w.y, 0.0, 0, 0);
  dyn_world_free(w);
  dyn_model_free(m);
}

/* ---- materials ------------------------------------------------------------------------ */

/* A 0.2 m cube of material `box` on a slope of material `slope` at
 * theta = 20 deg, 1 s.  Its downhill speed grows at g (sin theta - mu cos
 * theta) with mu = max of the two (the combine rule) when tan theta =
 * 0.364 > mu, and stays 0 when mu > tan theta.  Returns the least-squares
 * acceleration over [0.25 s, 1 s] (the first steps settle the 0.1 mm start
 * gap) and the final speed. */
static double slope_accel(double mu_box, double mu_slope, double *v_end) {
  const double th = 20.0 * PI / 180.0, sd = 0.2;
  dyn_model *m = new_model(-9.81);
  dyn_material ice = dyn_material_default(), rub = dyn_material_default();
  snprintf(ice.name, sizeof ice.name, "%s", "box");
  snprintf(rub.name, sizeof rub.name, "%s", "slope");
  ice.mu = mu_box;
  rub.mu = mu_slope;
  int mb = dyn_model_add_material(m, &ice, NULL, 0), ms = dyn_model_add_material(m, &rub, NULL, 0);
  CU_ASSERT_FATAL(mb == 0 && ms == 1);
  dyn_v3 n = dyn_v3_make(-sin(th), 0.0, cos(th));
  dyn_body_def b = dyn_body_def_default();
  b.mass = 8.0;
  b.I_b = dyn_inertia_box(8.0, dyn_v3_make(0.1, 0.1, 0.1));
  b.r = dyn_v3_scale(n, sd / 2 + 1e-4);
  b.q = dyn_quat_make(cos(-th / 2), 0, sin(-th / 2), 0);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, NULL, 0), 0);
  dyn_shape_def s = dyn_shape_def_default();
  s.geom.kind = DYN_SHAPE_BOX;
  s.geom.half = dyn_v3_make(0.1, 0.1, 0.1);
  s.material = mb;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_shape(m, &s, NULL, 0), 0);
  add_floor(m, n, ms, "slope");
  dyn_world *w = world_of(m, "pgs");
  dyn_v3 down = dyn_v3_make(-cos(th), 0.0, -sin(th));
  double st = 0, sv = 0, stt = 0, stv = 0;
  int cnt = 0;
  for (int k = 1; k <= 120; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
    double t = k / 120.0, v = dyn_v3_dot(dyn_world_body_states(w)[0].v, down);
    if (t < 0.25 - 1e-12) continue;
    st += t, sv += v, stt += t * t, stv += t * v, cnt++;
  }
  int nc = 0;
  const dyn_contact *c = dyn_world_contacts(w, &nc);
  CU_ASSERT(nc > 0);
  for (int k = 0; k < nc; k++) CU_ASSERT_EQUAL(c[k].mu, fmax(mu_box, mu_slope));
  *v_end = dyn_v3_dot(dyn_world_body_states(w)[0].v, down);
  dyn_world_free(w);
  dyn_model_free(m);
  return (cnt * stv - st * sv) / (cnt * stt - st * st);
}

static void test_materials_on_a_slope(void) {
  const double th = 20.0 * PI / 180.0, g = 9.81;
  double v, a;
  /* ice on ice: mu = 0.05 < tan 20 deg = 0.364: it slides */
  a = slope_accel(0.05, 0.05, &v);
  TST_CLOSE(a, g * (sin(th) - 0.05 * cos(th)), 0, 0.01);
  /* ice on rubber: combine = max = 1 > 0.364: it sticks */
  a = slope_accel(0.05, 1.0, &v);
  TST_CLOSE(v, 0.0, 1e-3, 0);
  /* rubber on ice: the same pair, the other way round */
  a = slope_accel(1.0, 0.05, &v);
  TST_CLOSE(v, 0.0, 1e-3, 0);
  /* both at 0.2: slides at g (sin - 0.2 cos) */
  a = slope_accel(0.2, 0.2, &v);
  TST_CLOSE(a, g * (sin(th) - 0.2 * cos(th)), 0, 0.01);
}


/* ---- the state ------------------------------------------------------------------------ */

/* The 13 numbers of every body, bit for bit. */
static int same_bodies(dyn_world *a, dyn_world *b) {
  if (dyn_world_body_count(a) != dyn_world_body_count(b)) return 0;
  for (int i = 0; i < dyn_world_body_count(a); i++) {
    double x[DYN_BODY_STATE], y[DYN_BODY_STATE];
    dyn_body_get_state(&dyn_world_body_states(a)[i], x);
    dyn_body_get_state(&dyn_world_body_states(b)[i], y);
    if (memcmp(x, y, sizeof x) != 0) return 0;
  }
  return dyn_world_step_count(a) == dyn_world_step_count(b) &&
         dyn_world_time(a) == dyn_world_time(b);
}

/* Scene `name` stepped K steps, saved, stepped K more (world A); world B,
 * built afresh from the same scene, restored from the save and stepped K:
 * the same bits at every step, the warm start included (without it, the
 * first step after the restore would start pgs from zero and differ). */
static void state_round_trip(const char *name, const char *param, dyn_friction fr,
                             const char *solver) {
  dyn_world_settings s = dyn_world_settings_default();
  s.contact.friction = fr;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  const char *params[1] = { param };
  dyn_world *a = NULL, *b = NULL;
  char msg[256];
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new(name, params, param ? 1 : 0, &s, &a, msg, sizeof msg),
                        DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new(name, params, param ? 1 : 0, &s, &b, msg, sizeof msg),
                        DYN_OK);
  const long K = 30;
  CU_ASSERT(run(a, K));
  size_t n = dyn_world_state_size(a);
  unsigned char *buf = malloc(n);
  CU_ASSERT_FATAL(buf != NULL);
  CU_ASSERT_EQUAL(dyn_world_save_state(a, buf, n - 1), DYN_ERR_INPUT); /* one byte short */
  CU_ASSERT_EQUAL(dyn_world_save_state(a, buf, n), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_restore_state(b, buf, n - 1), DYN_ERR_INPUT);
  CU_ASSERT_EQUAL(dyn_world_restore_state(b, buf, n), DYN_OK);
  CU_ASSERT(same_bodies(a, b));
  int same = 1;
  for (long k = 0; k < K && same; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(a, NULL), DYN_OK);
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(b, NULL), DYN_OK);
    same = same_bodies(a, b);
  }
  if (!same) printf("\n    %s (%s): restored world differs from the original\n", name, solver);
  CU_ASSERT(same);
  /* and back in A itself: restore, step K again, the same as B */
  CU_ASSERT_EQUAL(dyn_world_restore_state(a, buf, n), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_step_count(a), K);
  CU_ASSERT(run(a, K));
  CU_ASSERT(same_bodies(a, b));
  free(buf);
  dyn_world_free(a);
  dyn_world_free(b);
}

static void test_state_save_restore(void) {
  state_round_trip("pyramid", "layers=4", DYN_FRICTION_BOX, "pgs");
  state_round_trip("pile", "n=40", DYN_FRICTION_CONE, "nsgs");
  state_round_trip("ragdoll", NULL, DYN_FRICTION_BOX, "pgs");
  state_round_trip("chain", "n=5", DYN_FRICTION_BOX, "direct");
  /* another world's save is refused, named */
  dyn_world *a = NULL, *b = NULL;
  char msg[256];
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("ball", NULL, 0, NULL, &a, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("ragdoll", NULL, 0, NULL, &b, msg, sizeof msg), DYN_OK);
  size_t n = dyn_world_state_size(a);
  unsigned char *buf = malloc(n);
  CU_ASSERT_EQUAL(dyn_world_save_state(a, buf, n), DYN_OK);
  CU_ASSERT_EQUAL(dyn_world_restore_state(b, buf, n), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_world_message(b), "saved with 2 bodies and 0 joints"));
  memset(buf, 0, n);
  CU_ASSERT_EQUAL(dyn_world_restore_state(a, buf, n), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_world_message(a), "not a saved world state"));
  free(buf);
  dyn_world_free(a);
  dyn_world_free(b);
}

/* ---- hull vertices --------------------------------------------------------------------- */

/* A hull body put into a model (tst_world.h): the model keeps its own copy
 * of the vertices, so the caller's array may change or go; the run is the
 * same as with the array left alone. */
static void test_hull_owned(void) {
  dyn_world *w[2] = { NULL, NULL };
  dyn_v3 v[2][8];
  for (int k = 0; k < 2; k++) {
    dyn_world_settings s = dyn_world_settings_default();
    dyn_model *m = tst_model_new(&s);
    for (int c = 0; c < 8; c++)
      v[k][c] = dyn_v3_make(c & 1 ? 0.1 : -0.1, c & 2 ? 0.1 : -0.1, c & 4 ? 0.1 : -0.1);
    dyn_shape h;
    memset(&h, 0, sizeof h);
    h.kind = DYN_SHAPE_HULL;
    h.verts = v[k];
    h.nverts = 8;
    tst_body b = { 0 };
    CU_ASSERT_EQUAL_FATAL(tst_body_init(&b, 1.0, dyn_inertia_box(1.0, dyn_v3_make(0.1, 0.1, 0.1)),
                                        h, dyn_v3_make(0, 0, 0.12),
                                        dyn_quat_axis_angle(dyn_v3_make(1, 1, 0), 0.3), NULL, 0),
                          DYN_OK);
    CU_ASSERT_EQUAL(tst_model_add_body(m, &b, NULL, 0), 0);
    dyn_shape pl;
    memset(&pl, 0, sizeof pl);
    pl.kind = DYN_SHAPE_PLANE;
    pl.normal = dyn_v3_make(0, 0, 1);
    tst_body_init_static(&b, pl, dyn_v3_make(0, 0, 0), dyn_quat_identity());
    CU_ASSERT_EQUAL(tst_model_add_body(m, &b, NULL, 0), 1);
    w[k] = tst_world_new(m, &s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w[k]);
  }
  for (int c = 0; c < 8; c++) v[1][c] = dyn_v3_make(NAN, NAN, NAN);
  CU_ASSERT(dyn_world_body_consts(w[1])[0].shape.verts != v[1]);
  CU_ASSERT(run(w[0], 60) && run(w[1], 60));
  CU_ASSERT(same_bodies(w[0], w[1]));
  CU_ASSERT_EQUAL(dyn_model_shapes(dyn_world_model(w[1]))[0].geom.verts[7].z, 0.1);
  dyn_world_free(w[0]);
  dyn_world_free(w[1]);
}

/* ---- the built-in scenes, two ways -------------------------------------------------- */

/* Scene model m rebuilt from bodies made by hand (tst_world.h): the
 * scene's physics in the settings (gravity, its material's mu and
 * restitution, the restitution threshold at dt), dyn_body_init (or
 * _init_static) of each body with its one shape; each joint's def checked
 * by dyn_joint_init on those bodies and taken as it is. */
static dyn_world *legacy_world(const dyn_model *m, const dyn_world_settings *base) {
  dyn_world_settings s = *base;
  s.gravity = dyn_model_get_options(m).gravity;
  s.contact.rest_threshold = dyn_model_rest_threshold(m, s.dt);
  if (dyn_model_material_count(m) > 0) {
    s.contact.mu = dyn_model_materials(m)[0].mu;
    s.contact.restitution = dyn_model_materials(m)[0].restitution;
  }
  int nb = dyn_model_body_count(m);
  dyn_model *h = tst_model_new(&s);
  tst_body *bodies = calloc((size_t)nb + 1, sizeof *bodies);
  CU_ASSERT_PTR_NOT_NULL_FATAL(h && bodies);
  for (int i = 0; i < nb; i++) {
    const dyn_body_def *d = &dyn_model_bodies(m)[i];
    dyn_shape sh;
    memset(&sh, 0, sizeof sh);
    for (int k = 0; k < dyn_model_shape_count(m); k++)
      if (dyn_model_shapes(m)[k].body == i) sh = dyn_model_shapes(m)[k].geom;
    tst_body *b = &bodies[i];
    if (d->is_static)
      tst_body_init_static(b, sh, d->r, d->q);
    else
      CU_ASSERT_EQUAL_FATAL(tst_body_init(b, d->mass, d->I_b, sh, d->r, d->q, NULL, 0), DYN_OK);
    b->v = d->v;
    b->w = d->w;
    CU_ASSERT_EQUAL_FATAL(tst_model_add_body(h, b, NULL, 0), i);
  }
  for (int j = 0; j < dyn_model_joint_count(m); j++) { /* compiled as the model's are */
    const dyn_joint_def *d = &dyn_model_joints(m)[j];
    dyn_joint jt;
    CU_ASSERT_EQUAL_FATAL(tst_joint_init(&jt, d->kind, bodies, nb, d->a, d->b, d->anchor, d->axis1,
                                         d->axis2, NULL, 0),
                          DYN_OK);
    CU_ASSERT_EQUAL_FATAL(dyn_model_add_joint(h, d, NULL, 0), j);
  }
  free(bodies);
  dyn_world *w = tst_world_new(h, &s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  return w;
}

/* Every built-in scene (pile at 100 spheres) built through its model and
 * body by body, 60 steps under pgs (box friction) and nsgs (cones): the
 * same bodies bit for bit at every step, and the same contacts, rows and
 * iterations. */
static void test_scenes_two_ways(void) {
  /* under memcheck (tst_short_runs) 12 steps: both worlds' buffers and
   * every scene's first contacts, at a fifth of the 42 s that 60 steps of
   * every scene, twice, took in the memcheck stage */
  const int steps = tst_short_runs() ? 12 : 60;
  const char *solver[2] = { "pgs", "nsgs" };
  dyn_friction fr[2] = { DYN_FRICTION_BOX, DYN_FRICTION_CONE };
  int bad = 0;
  for (int i = 0; i < dyn_scene_count(); i++) {
    const char *name = dyn_scene_name(i), *pile[1] = { "n=100" };
    int np = strcmp(name, "pile") == 0;
    dyn_model *m = NULL;
    char msg[256];
    CU_ASSERT_EQUAL_FATAL(dyn_scene_model(name, pile, np, &m, msg, sizeof msg), DYN_OK);
    for (int v = 0; v < 2; v++) {
      dyn_world_settings s = dyn_world_settings_default();
      s.contact.friction = fr[v];
      snprintf(s.solver, sizeof s.solver, "%s", solver[v]);
      dyn_world *a = NULL, *b = legacy_world(m, &s);
      CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, &s, &a, msg, sizeof msg), DYN_OK);
      int same = same_bodies(a, b);
      for (int k = 0; k < steps && same; k++) {
        dyn_world_metrics ma, mb;
        dyn_err ea = dyn_world_step(a, &ma), eb = dyn_world_step(b, &mb);
        same = ea == eb && same_bodies(a, b) &&
               (ea != DYN_OK || (ma.contacts == mb.contacts && ma.rows == mb.rows &&
                                 ma.iterations == mb.iterations));
      }
      if (!same) printf("\n    %s under %s: the two worlds differ\n", name, solver[v]);
      bad += !same;
      dyn_world_free(a);
      dyn_world_free(b);
    }
    dyn_model_free(m);
  }
  CU_ASSERT_EQUAL(bad, 0);
}

/* ---- worlds sharing one model ---------------------------------------------------- */

/* 1 iff the n bytes at p and q are equal; an empty record array may be
 * NULL, which memcmp must not be given even for n = 0 */
static int same_bytes(const void *p, const void *q, size_t n) {
  return n == 0 || (p && q && memcmp(p, q, n) == 0);
}

/* 1 iff models a and b hold the same records and options, bit for bit. */
static int same_model(const dyn_model *a, const dyn_model *b) {
  dyn_model_options oa = dyn_model_get_options(a), ob = dyn_model_get_options(b);
  int nb = dyn_model_body_count(a), ns = dyn_model_shape_count(a);
  int nj = dyn_model_joint_count(a), nx = dyn_model_exclusion_count(a);
  return nb == dyn_model_body_count(b) && ns == dyn_model_shape_count(b) &&
         nj == dyn_model_joint_count(b) && nx == dyn_model_exclusion_count(b) &&
         memcmp(&oa, &ob, sizeof oa) == 0 &&
         same_bytes(dyn_model_bodies(a), dyn_model_bodies(b), (size_t)nb * sizeof(dyn_body_def)) &&
         same_bytes(dyn_model_joints(a), dyn_model_joints(b), (size_t)nj * sizeof(dyn_joint_def)) &&
         same_bytes(dyn_model_exclusions(a), dyn_model_exclusions(b), 2 * (size_t)nx * sizeof(int));
}

/* One step of w, its k-th: the bodies' states after it (13 numbers a
 * body) into step k's stretch of tr; 0 when the step failed (printed). */
static int record_step(dyn_world *w, double *tr, int k) {
  if (dyn_world_step(w, NULL) != DYN_OK) {
    printf("\n    step %d: %s\n", k + 1, dyn_world_message(w));
    return 0;
  }
  int nb = dyn_world_body_count(w);
  for (int i = 0; i < nb; i++)
    dyn_body_get_state(&dyn_world_body_states(w)[i], tr + ((size_t)k * nb + i) * DYN_BODY_STATE);
  return 1;
}

/* The bytes of the constants w reads (a copy, malloc'd): its model's
 * array, not one of its own; NULL (a failed check) otherwise. */
static unsigned char *consts_snapshot(dyn_world *w) {
  const dyn_model *m = dyn_world_model(w);
  size_t n = (size_t)dyn_model_body_count(m) * sizeof(dyn_body_const);
  const dyn_body_const *c = dyn_world_body_consts(w);
  CU_ASSERT(c != NULL && c == dyn_model_body_consts(m));
  if (!c || c != dyn_model_body_consts(m)) return NULL;
  unsigned char *p = malloc(n);
  if (p) memcpy(p, c, n);
  return p;
}

/* 1 iff the two worlds' state arrays are apart (each world's own) and
 * their constants are one array when they run on one model. */
static int states_apart(dyn_world *a, dyn_world *b) {
  const dyn_body_state *sa = dyn_world_body_states(a), *sb = dyn_world_body_states(b);
  size_t na = (size_t)dyn_world_body_count(a), nb = (size_t)dyn_world_body_count(b);
  int apart = sa && sb && (sa + na <= sb || sb + nb <= sa);
  int one = dyn_world_model(a) != dyn_world_model(b) ||
            dyn_world_body_consts(a) == dyn_world_body_consts(b);
  return apart && one;
}

/* Scene `name`'s model under two settings sa and sb (another solver and
 * friction, another gravity, another representation): each alone, then
 * both on the one model, stepped in turn after the caller let go of the
 * model.  The worlds run on the model itself (no copy), never write it
 * (the same bits as a copy taken before; its bodies' constants, which the
 * worlds read in place, the same bytes before and after the steps; each
 * world's state an array of its own), and give each the trajectory
 * it gives alone, bit for bit; the two differ from each other. */
static void share_one(const char *name, const dyn_world_settings *sa, const dyn_world_settings *sb,
                      int K) {
  dyn_model *m = NULL, *before = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model(name, NULL, 0, &m, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_model_copy(m, &before), DYN_OK);
  const dyn_world_settings *set[2] = { sa, sb };
  size_t n = (size_t)K * (size_t)dyn_model_body_count(m) * DYN_BODY_STATE;
  double *alone[2] = { calloc(n, sizeof(double)), calloc(n, sizeof(double)) };
  double *shared[2] = { calloc(n, sizeof(double)), calloc(n, sizeof(double)) };
  CU_ASSERT_FATAL(alone[0] && alone[1] && shared[0] && shared[1]);
  int ok = 1;
  for (int v = 0; v < 2; v++) {
    dyn_world *w = NULL;
    CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, set[v], &w, msg, sizeof msg), DYN_OK);
    for (int k = 0; k < K && ok; k++) ok = record_step(w, alone[v], k);
    dyn_world_free(w);
  }
  dyn_world *w[2] = { NULL, NULL };
  for (int v = 0; v < 2; v++)
    CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, set[v], &w[v], msg, sizeof msg), DYN_OK);
  /* each world's model says the gravity it runs (one owner): m itself, or
   * for a gravity given other than m's a copy of m that says it */
  for (int v = 0; v < 2; v++) {
    const dyn_model *wm = dyn_world_model(w[v]);
    dyn_v3 g = dyn_model_get_options(wm).gravity, r = dyn_world_get_settings(w[v])->gravity;
    dyn_v3 gm = dyn_model_get_options(before).gravity, gs = set[v]->gravity;
    int given =
        (set[v]->given & DYN_GIVEN_GRAVITY) && (gs.x != gm.x || gs.y != gm.y || gs.z != gm.z);
    CU_ASSERT(g.x == r.x && g.y == r.y && g.z == r.z);
    CU_ASSERT(given ? wm != m : wm == m);
  }
  dyn_model_free(m); /* the worlds hold it now */
  unsigned char *consts[2];
  for (int v = 0; v < 2; v++) consts[v] = consts_snapshot(w[v]);
  CU_ASSERT(states_apart(w[0], w[1]));
  for (int k = 0; k < K && ok; k++)
    ok = record_step(w[0], shared[0], k) && record_step(w[1], shared[1], k);
  CU_ASSERT(ok);
  for (int v = 0; v < 2; v++) { /* the model's constants, byte for byte */
    const dyn_model *wm = dyn_world_model(w[v]);
    CU_ASSERT(consts[v] && memcmp(consts[v], dyn_model_body_consts(wm),
                                  (size_t)dyn_model_body_count(wm) * sizeof(dyn_body_const)) == 0);
    free(consts[v]);
  }
  for (int v = 0; v < 2; v++) { /* m or its copy, unwritten by the steps */
    dyn_model *want = NULL;
    CU_ASSERT_FATAL(dyn_model_copy(before, &want) == DYN_OK);
    dyn_model_run_as(want, dyn_world_get_settings(w[v]));
    CU_ASSERT(same_model(dyn_world_model(w[v]), want));
    dyn_model_free(want);
  }
  int same0 = memcmp(alone[0], shared[0], n * sizeof(double)) == 0;
  int same1 = memcmp(alone[1], shared[1], n * sizeof(double)) == 0;
  int differ = memcmp(shared[0], shared[1], n * sizeof(double)) != 0;
  if (!same0 || !same1 || !differ)
    printf("\n    %s: alone and shared the same: %d, %d; the two differ: %d\n", name, same0, same1,
           differ);
  CU_ASSERT(same0 && same1 && differ);
  dyn_world_free(w[0]);
  dyn_world_free(w[1]); /* the last holder frees the model */
  dyn_model_free(before);
  for (int v = 0; v < 2; v++) free(alone[v]), free(shared[v]);
}

static void test_worlds_share_model(void) {
  int K = tst_short_runs() ? 10 : 60;
  dyn_world_settings a = dyn_world_settings_default(), b = a;
  /* contacts: pgs with box friction beside nsgs with cones */
  snprintf(b.solver, sizeof b.solver, "nsgs");
  b.contact.friction = DYN_FRICTION_CONE;
  share_one("stack", &a, &b, K);
  /* the pyramid under another gravity (given: the run's, not the model's) */
  b = a;
  b.gravity = dyn_v3_make(0.0, 0.0, -1.62);
  b.given |= DYN_GIVEN_GRAVITY;
  share_one("pyramid", &a, &b, K);
  /* two overrides on one model: each world its own copy, each as alone */
  dyn_world_settings c = b;
  c.gravity = dyn_v3_make(1.0, 0.0, -9.81);
  share_one("stack", &c, &b, K);
  /* joints: maximal beside reduced coordinates */
  b = a;
  b.coordinates = DYN_COORDINATES_REDUCED;
  share_one("double_pendulum", &a, &b, K);
  share_one("ragdoll", &a, &b, K);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("world from a model", NULL, NULL);
  CU_add_test(s, "dumbbell: two shapes on one body touch at both", test_dumbbell);
  CU_add_test(s, "offset and turned shapes of one body: the hand-derived contacts",
              test_offset_shapes_contacts);
  CU_add_test(s, "a hand-made body beside per-shape records", test_hand_body_in_model_world);
  CU_add_test(s, "filters and exclusions let pairs pass through", test_filters_and_exclusions);
  CU_add_test(s, "geom margin and gap: a contact within the margin, held margin - gap apart",
              test_geom_margin_and_gap);
  CU_add_test(s, "ice and rubber on a slope: combine by the maximum", test_materials_on_a_slope);
  CU_add_test(s, "state saved and restored: the same bits after", test_state_save_restore);
  CU_add_test(s, "hull vertices: the world's own copy", test_hull_owned);
  CU_add_test(s, "every scene through its model and body by body: the same bits",
              test_scenes_two_ways);
  CU_add_test(s, "two worlds on one model: each as alone, the model unwritten",
              test_worlds_share_model);
  return tst_run();
}
