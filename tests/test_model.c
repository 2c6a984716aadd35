/* test_model.c -- the scene model (libdynamics/model*.c, dyn_model.h):
 * records in and out, names, the combine rule of materials, deep copies,
 * mass from density against hand-derived tensors, and every refusal of
 * the add functions and of dyn_model_validate, each with the record's name
 * in the message and the model left as it was.
 */
#include "dyn_model.h"
#include "dyn_world.h"
#include "model_internal.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dyn_model *new_model(void) {
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  return m;
}

static dyn_body_def ball_def(const char *name, double mass, double r0) {
  dyn_body_def d = dyn_body_def_default();
  snprintf(d.name, sizeof d.name, "%s", name);
  d.mass = mass;
  d.I_b = dyn_inertia_sphere(mass, 0.1);
  d.r = dyn_v3_make(r0, 0.0, 1.0);
  return d;
}

static dyn_shape_def sphere_def(int body, double radius) {
  dyn_shape_def s = dyn_shape_def_default();
  s.body = body;
  s.geom.kind = DYN_SHAPE_SPHERE;
  s.geom.radius = radius;
  return s;
}

/* The model's bytes, counts and a hash of every record: unchanged after a
 * refused call. */
typedef struct snapshot {
  int nb, ns, nm, nj, nex;
  size_t bytes;
  unsigned long sum;
} snapshot;

static unsigned long bytes_sum(const void *p, size_t n) {
  unsigned long s = 5381;
  for (size_t k = 0; k < n; k++) s = s * 33 + ((const unsigned char *)p)[k];
  return s;
}

static snapshot snap(const dyn_model *m) {
  snapshot s = { dyn_model_body_count(m),
                 dyn_model_shape_count(m),
                 dyn_model_material_count(m),
                 dyn_model_joint_count(m),
                 dyn_model_exclusion_count(m),
                 m->bytes,
                 0 };
  s.sum = bytes_sum(dyn_model_bodies(m), (size_t)s.nb * sizeof(dyn_body_def)) ^
          bytes_sum(dyn_model_shapes(m), (size_t)s.ns * sizeof(dyn_shape_def)) * 3 ^
          bytes_sum(dyn_model_materials(m), (size_t)s.nm * sizeof(dyn_material)) * 5 ^
          bytes_sum(dyn_model_joints(m), (size_t)s.nj * sizeof(dyn_joint_def)) * 7;
  return s;
}

static int same_snap(snapshot a, snapshot b) {
  return a.nb == b.nb && a.ns == b.ns && a.nm == b.nm && a.nj == b.nj && a.nex == b.nex &&
         a.bytes == b.bytes && a.sum == b.sum;
}

/* A refusal: negative, the message holds `want`, the model unchanged. */
#define REFUSED(m, call, want)                                                                     \
  do {                                                                                             \
    snapshot s0_ = snap(m);                                                                        \
    msg[0] = '\0';                                                                                 \
    int r_ = (int)(call);                                                                          \
    CU_ASSERT(r_ < 0);                                                                             \
    if (!strstr(msg, (want))) printf("\n    message '%s' lacks '%s'\n", msg, (want));              \
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, (want)));                                                   \
    CU_ASSERT(same_snap(s0_, snap(m)));                                                            \
  } while (0)

static void test_records_and_names(void) {
  dyn_model *m = new_model();
  char msg[256];
  CU_ASSERT_EQUAL(dyn_model_add_body(m, &(dyn_body_def){ 0 }, msg, sizeof msg) < 0, 1);
  dyn_body_def a = ball_def("left", 1.0, -0.5), b = ball_def("right", 2.0, 0.5);
  CU_ASSERT_EQUAL(dyn_model_add_body(m, &a, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(dyn_model_add_body(m, &b, msg, sizeof msg), 1);
  dyn_body_def anon = ball_def("", 3.0, 1.5);
  CU_ASSERT_EQUAL(dyn_model_add_body(m, &anon, msg, sizeof msg), 2);
  CU_ASSERT_EQUAL(dyn_model_add_body(m, &anon, msg, sizeof msg), 3); /* empty names repeat */
  CU_ASSERT_EQUAL(dyn_model_find_body(m, "right"), 1);
  CU_ASSERT_EQUAL(dyn_model_find_body(m, "left"), 0);
  CU_ASSERT_EQUAL(dyn_model_find_body(m, ""), -1);
  CU_ASSERT_EQUAL(dyn_model_find_body(m, "middle"), -1);
  CU_ASSERT_EQUAL(dyn_model_bodies(m)[1].mass, 2.0);
  /* many names: the index grows and finds every one */
  for (int k = 0; k < 300; k++) {
    dyn_material mt = dyn_material_default();
    snprintf(mt.name, sizeof mt.name, "mat%d", k);
    mt.mu = k;
    CU_ASSERT_EQUAL(dyn_model_add_material(m, &mt, msg, sizeof msg), k);
  }
  int found = 0;
  for (int k = 0; k < 300; k++) {
    char nm[16];
    snprintf(nm, sizeof nm, "mat%d", k);
    found += dyn_model_find_material(m, nm) == k && dyn_model_materials(m)[k].mu == k;
  }
  CU_ASSERT_EQUAL(found, 300);
  /* a rename through set: the old name is free, the new one found */
  dyn_body_def r = dyn_model_bodies(m)[1];
  snprintf(r.name, sizeof r.name, "%s", "centre");
  CU_ASSERT_EQUAL(dyn_model_set_body(m, 1, &r, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_model_find_body(m, "centre"), 1);
  CU_ASSERT_EQUAL(dyn_model_find_body(m, "right"), -1);
  /* a name taken, a name too long */
  REFUSED(m, dyn_model_add_body(m, &a, msg, sizeof msg),
          "body 4 'left': the name is taken by body 0");
  dyn_body_def longn = ball_def("", 1.0, 0.0);
  memset(longn.name, 'x', sizeof longn.name);
  REFUSED(m, dyn_model_add_body(m, &longn, msg, sizeof msg), "body 4: name is longer than 63");
  /* exclusions: sorted, once, either order */
  CU_ASSERT_EQUAL(dyn_model_exclude(m, 2, 0, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_model_exclude(m, 0, 2, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_model_exclude(m, 1, 0, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_model_exclusion_count(m), 2);
  const int *ex = dyn_model_exclusions(m);
  CU_ASSERT(ex[0] == 0 && ex[1] == 1 && ex[2] == 0 && ex[3] == 2);
  REFUSED(m, dyn_model_exclude(m, 1, 1, msg, sizeof msg), "exclude: bodies 1 and 1");
  REFUSED(m, dyn_model_exclude(m, 1, 9, msg, sizeof msg), "exclude: bodies 1 and 9");
  dyn_model_free(m);
}

/* combine(m, m) = m, symmetric, the maximum of each field. */
static void test_combine(void) {
  dyn_material ice = dyn_material_default(), rubber = dyn_material_default();
  ice.mu = 0.05, ice.restitution = 0.1;
  rubber.mu = 1.0, rubber.restitution = 0.0;
  dyn_material c = dyn_material_combine(ice, ice);
  CU_ASSERT(c.mu == ice.mu && c.restitution == ice.restitution);
  c = dyn_material_combine(rubber, rubber);
  CU_ASSERT(c.mu == rubber.mu && c.restitution == rubber.restitution);
  dyn_material x = dyn_material_combine(ice, rubber), y = dyn_material_combine(rubber, ice);
  CU_ASSERT(x.mu == 1.0 && x.restitution == 0.1);
  CU_ASSERT(y.mu == x.mu && y.restitution == x.restitution);
  /* MuJoCo's pairing rule (mj_contactParam, one priority): the larger
   * condim (lcplab's 0 as 3), the larger of each coefficient; the contact
   * takes mu unless condim is 1, mu_torsion only where it is 4 or 6,
   * mu_rolling only where it is 6 */
  dyn_material one = ice, four = rubber, six = rubber;
  one.condim = 1, one.mu = 0.8, one.mu_torsion = 0.05, one.mu_rolling = 0.003;
  four.condim = 4, four.mu = 0.2, four.mu_torsion = 0.01, four.mu_rolling = 0.004;
  six.condim = 6, six.mu = 0.1, six.mu_torsion = 0.02, six.mu_rolling = 0.001;
  double mu = -1.0, mt = -1.0, mr = -1.0;
  const struct {
    dyn_material a, b;
    double mu, mt, mr;
  } pair[] = { { one, one, 0.0, 0.0, 0.0 },     { one, ice, 0.8, 0.0, 0.0 },
               { one, four, 0.8, 0.05, 0.0 },   { four, ice, 0.2, 0.01, 0.0 },
               { four, four, 0.2, 0.01, 0.0 },  { ice, ice, 0.05, 0.0, 0.0 },
               { four, one, 0.8, 0.05, 0.0 },   { six, six, 0.1, 0.02, 0.001 },
               { six, ice, 0.1, 0.02, 0.001 },  { six, one, 0.8, 0.05, 0.003 },
               { four, six, 0.2, 0.02, 0.004 }, { six, four, 0.2, 0.02, 0.004 } };
  for (size_t k = 0; k < sizeof pair / sizeof pair[0]; k++) {
    dyn_material_contact(dyn_material_combine(pair[k].a, pair[k].b), &mu, &mt, &mr);
    CU_ASSERT(mu == pair[k].mu && mt == pair[k].mt && mr == pair[k].mr);
    if (mu != pair[k].mu || mt != pair[k].mt || mr != pair[k].mr)
      printf("\n    pair %zu: mu %g mt %g mr %g\n", k, mu, mt, mr);
  }
  /* a material's own fields: checked when added */
  dyn_model *m = new_model();
  char msg[256];
  dyn_material bad = four;
  bad.condim = 5;
  CU_ASSERT(dyn_model_add_material(m, &bad, msg, sizeof msg) < 0 && strstr(msg, "condim=5"));
  bad = four, bad.mu_torsion = -1.0;
  CU_ASSERT(dyn_model_add_material(m, &bad, msg, sizeof msg) < 0 && strstr(msg, "mu_torsion"));
  bad = six, bad.mu_rolling = NAN;
  CU_ASSERT(dyn_model_add_material(m, &bad, msg, sizeof msg) < 0 && strstr(msg, "mu_rolling"));
  CU_ASSERT(dyn_model_add_material(m, &six, msg, sizeof msg) >= 0);
  dyn_model_free(m);
}

/* A deep copy: equal records, its own hull vertices, its own name index. */
static void test_copy(void) {
  dyn_model *m = new_model();
  char msg[256];
  dyn_body_def b = ball_def("hull body", 1.0, 0.0);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, msg, sizeof msg), 0);
  dyn_v3 v[5] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 1, 1 } };
  dyn_shape_def s = dyn_shape_def_default();
  snprintf(s.name, sizeof s.name, "%s", "tetra");
  s.geom.kind = DYN_SHAPE_HULL;
  s.geom.verts = v;
  s.geom.nverts = 5;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_shape(m, &s, msg, sizeof msg), 0);
  v[1].x = 7.0; /* the model kept its own copy */
  CU_ASSERT_EQUAL(dyn_model_shapes(m)[0].geom.verts[1].x, 1.0);
  CU_ASSERT(dyn_model_shapes(m)[0].geom.verts != v);
  dyn_model *c = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_copy(m, &c), DYN_OK);
  CU_ASSERT(dyn_model_shapes(c)[0].geom.verts != dyn_model_shapes(m)[0].geom.verts);
  CU_ASSERT_EQUAL(memcmp(dyn_model_shapes(c)[0].geom.verts, dyn_model_shapes(m)[0].geom.verts,
                         5 * sizeof(dyn_v3)),
                  0);
  CU_ASSERT_EQUAL(dyn_model_find_shape(c, "tetra"), 0);
  CU_ASSERT_EQUAL(dyn_model_find_body(c, "hull body"), 0);
  CU_ASSERT_EQUAL(c->bytes, m->bytes);
  dyn_model_free(m); /* the copy stands alone */
  CU_ASSERT_EQUAL(dyn_model_shapes(c)[0].geom.verts[4].z, 1.0);
  CU_ASSERT_EQUAL(dyn_model_validate(c, msg, sizeof msg), DYN_OK);
  dyn_model_free(c);
}

/* Two spheres of radius a, mass m each at +-d on x (a dumbbell):
 * M = 2 m, centre at 0, Ixx = 2 (2/5 m a^2), Iyy = Izz = 2 (2/5 m a^2 + m d^2).
 * Moved off centre by (0, 0, h), the body frame follows: r += h e_z. */
static void test_mass_from_density(void) {
  dyn_model *m = new_model();
  char msg[256];
  dyn_body_def b = dyn_body_def_default();
  snprintf(b.name, sizeof b.name, "%s", "dumbbell");
  b.r = dyn_v3_make(1.0, 2.0, 3.0);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, msg, sizeof msg), 0); /* mass 0: later */
  const double a = 0.1, d = 0.3, h = 0.05, rho = 1000.0;
  for (int k = 0; k < 2; k++) {
    dyn_shape_def s = sphere_def(0, a);
    s.pos = dyn_v3_make(k ? -d : d, 0.0, h);
    CU_ASSERT_EQUAL_FATAL(dyn_model_add_shape(m, &s, msg, sizeof msg), k);
  }
  CU_ASSERT_EQUAL(dyn_model_validate(m, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "body 0 'dumbbell': mass=0"));
  CU_ASSERT_EQUAL_FATAL(dyn_model_mass_from_density(m, 0, rho, msg, sizeof msg), DYN_OK);
  const double PI = 3.14159265358979323846, ms = rho * 4.0 / 3.0 * PI * a * a * a;
  const dyn_body_def *B = dyn_model_bodies(m);
  TST_CLOSE(B->mass, 2 * ms, 0, 1e-14);
  double Ix = 2 * 0.4 * ms * a * a, Iy = 2 * (0.4 * ms * a * a + ms * d * d);
  double want[9] = { Ix, 0, 0, 0, Iy, 0, 0, 0, Iy };
  TST_VEC_CLOSE(B->I_b.m, want, 9, 1e-15, 1e-13);
  TST_CLOSE(B->r.z, 3.0 + h, 0, 1e-15);
  TST_CLOSE(dyn_model_shapes(m)[0].pos.z, 0.0, 1e-16, 0);
  TST_CLOSE(dyn_model_shapes(m)[1].pos.x, -d, 0, 1e-15);
  CU_ASSERT_EQUAL(dyn_model_validate(m, msg, sizeof msg), DYN_OK);
  /* a hull, a static body, no volume: refused */
  dyn_body_def e = dyn_body_def_default();
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &e, msg, sizeof msg), 1);
  REFUSED(m, dyn_model_mass_from_density(m, 1, rho, msg, sizeof msg), "body 1: mass from density");
  REFUSED(m, dyn_model_mass_from_density(m, 0, -1.0, msg, sizeof msg), "must be finite and > 0");
  dyn_model_free(m);
}

/* Every refusal of the add functions names the record, the model intact. */
static void test_refusals(void) {
  dyn_model *m = new_model();
  char msg[256];
  dyn_body_def floor = dyn_body_def_default();
  snprintf(floor.name, sizeof floor.name, "%s", "floor");
  floor.is_static = 1;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &floor, msg, sizeof msg), 0);
  dyn_body_def ok = ball_def("ball", 1.0, 0.0);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &ok, msg, sizeof msg), 1);

  dyn_body_def b = ball_def("heavy", -1.0, 0.0);
  REFUSED(m, dyn_model_add_body(m, &b, msg, sizeof msg), "body 2 'heavy': mass=-1 must be > 0");
  b = ball_def("flat", 1.0, 0.0);
  b.I_b = dyn_m3_diag(1.0, 1.0, 0.0);
  REFUSED(m, dyn_model_add_body(m, &b, msg, sizeof msg), "body 2 'flat': inertia is not positive");
  b = ball_def("skew", 1.0, 0.0);
  b.I_b.m[1] = 0.5;
  REFUSED(m, dyn_model_add_body(m, &b, msg, sizeof msg), "body 2 'skew': inertia is not symmetric");
  b = ball_def("nan", 1.0, 0.0);
  b.v.y = NAN;
  REFUSED(m, dyn_model_add_body(m, &b, msg, sizeof msg), "body 2 'nan': mass, I_b, r, q, v, w");
  b = ball_def("inf", 1.0, 0.0);
  b.r.x = INFINITY;
  REFUSED(m, dyn_model_add_body(m, &b, msg, sizeof msg), "body 2 'inf'");
  b = ball_def("zeroq", 1.0, 0.0);
  b.q = dyn_quat_make(0, 0, 0, 0);
  REFUSED(m, dyn_model_add_body(m, &b, msg, sizeof msg),
          "body 2 'zeroq': the quaternion q is zero");

  dyn_shape_def s = sphere_def(7, 0.1);
  snprintf(s.name, sizeof s.name, "%s", "lost");
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg), "shape 0 'lost': body 7 does not exist");
  s = sphere_def(1, 0.0);
  snprintf(s.name, sizeof s.name, "%s", "dot");
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg),
          "shape 0 'dot': sphere radius=0 must be > 0");
  s = sphere_def(1, 0.1);
  s.material = 3;
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg), "shape 0: material 3 does not exist");
  s = dyn_shape_def_default();
  s.body = 1;
  s.geom.kind = DYN_SHAPE_BOX;
  s.geom.half = dyn_v3_make(0.1, -0.1, 0.1);
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg), "shape 0: box half extents");
  s.geom.kind = DYN_SHAPE_PLANE;
  s.geom.normal = dyn_v3_make(0, 0, 1);
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg), "shape 0: a plane only on a static body");
  s.body = 0;
  s.pos.z = 1.0;
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg), "its pose must be the identity");
  s.pos.z = 0.0;
  s.geom.offset = NAN;
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg),
          "shape 0: sizes, normal and pose must be finite");
  dyn_v3 flat[4] = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 0 } };
  s = dyn_shape_def_default();
  s.body = 1;
  snprintf(s.name, sizeof s.name, "%s", "sheet");
  s.geom.kind = DYN_SHAPE_HULL;
  s.geom.verts = flat;
  s.geom.nverts = 4;
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg),
          "shape 0 'sheet': the hull's 4 vertices lie in one plane");
  s.geom.nverts = 3;
  REFUSED(m, dyn_model_add_shape(m, &s, msg, sizeof msg),
          "shape 0 'sheet': a hull needs >= 4 vertices");

  dyn_material mt = dyn_material_default();
  snprintf(mt.name, sizeof mt.name, "%s", "glue");
  mt.mu = -0.1;
  REFUSED(m, dyn_model_add_material(m, &mt, msg, sizeof msg), "material 0 'glue': mu=-0.1");
  mt.mu = 0.1, mt.restitution = 1.5;
  REFUSED(m, dyn_model_add_material(m, &mt, msg, sizeof msg), "material 0 'glue': restitution=1.5");

  dyn_joint_def j = dyn_joint_def_default();
  snprintf(j.name, sizeof j.name, "%s", "hinge");
  j.a = 1, j.b = 5;
  REFUSED(m, dyn_model_add_joint(m, &j, msg, sizeof msg),
          "joint 0 'hinge': bodies a=1, b=5 must exist");
  j.b = 0;
  j.axis1 = dyn_v3_make(0, 0, 0);
  REFUSED(m, dyn_model_add_joint(m, &j, msg, sizeof msg),
          "joint 0 'hinge': joint init: axis1 must be");
  j.axis1 = dyn_v3_make(0, 0, 1);
  j.erp[2] = 1.5;
  REFUSED(m, dyn_model_add_joint(m, &j, msg, sizeof msg), "joint 0 'hinge': joint.erp[2]=1.5");
  j.erp[2] = 0.2;
  j.a = 0, j.b = -1;
  REFUSED(m, dyn_model_add_joint(m, &j, msg, sizeof msg), "both static");
  j.a = 1, j.b = 0;
  j.motor.target_vel = NAN;
  REFUSED(m, dyn_model_add_joint(m, &j, msg, sizeof msg), "joint 0 'hinge': anchor, axes");
  j.motor.target_vel = 0.0;
  CU_ASSERT_EQUAL(dyn_model_add_joint(m, &j, msg, sizeof msg), 0);
  /* the joint keeps body 1 dynamic; the floor's plane keeps body 0 static */
  dyn_shape_def pl = dyn_shape_def_default();
  pl.geom.kind = DYN_SHAPE_PLANE;
  pl.geom.normal = dyn_v3_make(0, 0, 2);
  REFUSED(m, dyn_model_add_shape(m, &pl, msg, sizeof msg),
          "the plane's normal (0, 0, 2) must be a unit vector");
  pl.geom.normal = dyn_v3_make(0, 0, 1);
  CU_ASSERT_EQUAL(dyn_model_add_shape(m, &pl, msg, sizeof msg), 0);
  dyn_body_def st = dyn_model_bodies(m)[1];
  st.is_static = 1;
  REFUSED(m, dyn_model_set_body(m, 1, &st, msg, sizeof msg),
          "body 1 'ball': cannot be static: joint 0");
  dyn_body_def dy = dyn_model_bodies(m)[0];
  dy.is_static = 0, dy.mass = 1.0, dy.I_b = dyn_m3_identity();
  REFUSED(m, dyn_model_set_body(m, 0, &dy, msg, sizeof msg), "body 0 'floor': must stay static");
  REFUSED(m, dyn_model_set_material(m, 0, &mt, msg, sizeof msg),
          "set material: index 0 out of [0, 0)");

  dyn_model_options o = dyn_model_get_options(m);
  o.gravity.z = NAN;
  REFUSED(m, dyn_model_set_options(m, &o, msg, sizeof msg), "model options: gravity");
  o = dyn_model_options_default();
  o.steps = 0;
  REFUSED(m, dyn_model_set_options(m, &o, msg, sizeof msg), "model options: steps=0");
  CU_ASSERT_EQUAL(dyn_model_validate(m, msg, sizeof msg), DYN_OK);
  dyn_model_free(m);
}

/* The memory cap: an add past it is refused, counted without overflow. */
/* Actuators (dyn_actuator_def): a motor on a hinge and on a fixed tendon
 * over a hinge and a slider are taken; a joint out of range, a ball joint,
 * a NaN gear, lo > hi, more than DYN_ACTUATOR_MAX_JOINTS joints, a
 * slider-crank without a length are refused, named, the model unchanged;
 * a copy holds them; the control list parses names and indices. */
static void test_actuators(void) {
  dyn_model *m = new_model();
  char msg[256] = "";
  for (int i = 0; i < 3; i++) {
    dyn_body_def b = ball_def(i == 0 ? "a" : i == 1 ? "b" : "c", 1.0, 2.0 * i);
    CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, msg, sizeof msg), i);
  }
  dyn_joint_def j = dyn_joint_def_default();
  j.a = 0; /* a hinge to the world, a slider, a ball */
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_joint(m, &j, msg, sizeof msg), 0);
  j.kind = DYN_JOINT_SLIDER, j.a = 1;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_joint(m, &j, msg, sizeof msg), 1);
  j.kind = DYN_JOINT_BALL, j.a = 2;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_joint(m, &j, msg, sizeof msg), 2);
  dyn_actuator_def a;
  memset(&a, 0, sizeof a);
  snprintf(a.name, sizeof a.name, "motor");
  a.njoints = 1, a.joint[0] = 0, a.coef[0] = 1.0, a.gear = 2.0, a.gain = 1.0;
  CU_ASSERT_EQUAL(dyn_model_add_actuator(m, &a, msg, sizeof msg), 0);
  dyn_actuator_def t = a;
  snprintf(t.name, sizeof t.name, "tendon");
  t.njoints = 2, t.joint[1] = 1, t.coef[1] = -0.5;
  CU_ASSERT_EQUAL(dyn_model_add_actuator(m, &t, msg, sizeof msg), 1);
  dyn_actuator_def bad[6] = { a, a, a, a, a, a };
  bad[0].joint[0] = 3;
  bad[1].joint[0] = 2;
  bad[2].gear = NAN;
  bad[3].ctrl_limited = 1, bad[3].ctrl_lo = 1.0, bad[3].ctrl_hi = -1.0;
  bad[4].njoints = DYN_ACTUATOR_MAX_JOINTS + 1;
  bad[5].njoints = 0, bad[5].slider_crank = 1, bad[5].slider_body = -1;
  bad[5].slider_axis = dyn_v3_make(0, 0, 1); /* crank_length 0 */
  const char *want[6] = {
    "a joint does not exist",  "not a hinge or slider", "not finite", "lo > hi",
    "njoints is out of range", "slider-crank"
  };
  for (int k = 0; k < 6; k++) {
    msg[0] = '\0';
    CU_ASSERT_EQUAL(dyn_model_add_actuator(m, &bad[k], msg, sizeof msg), DYN_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want[k]));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "actuator 2 'motor'"));
  }
  CU_ASSERT_EQUAL(dyn_model_actuator_count(m), 2);
  dyn_model *c = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_copy(m, &c), DYN_OK);
  dyn_model_free(m);
  CU_ASSERT_EQUAL(dyn_model_actuator_count(c), 2);
  CU_ASSERT_EQUAL(dyn_model_find_actuator(c, "tendon"), 1);
  CU_ASSERT_EQUAL(dyn_model_actuators(c)[1].coef[1], -0.5);
  double ctrl[2] = { 9, 9 };
  CU_ASSERT_EQUAL(dyn_model_parse_ctrl(c, "tendon=0.25,0=-1", ctrl, msg, sizeof msg), DYN_OK);
  CU_ASSERT(ctrl[0] == -1.0 && ctrl[1] == 0.25);
  CU_ASSERT_EQUAL(dyn_model_parse_ctrl(c, "2=1", ctrl, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no actuator '2'"));
  CU_ASSERT_EQUAL(dyn_model_parse_ctrl(c, "motor=0.5", ctrl, msg, sizeof msg), DYN_OK);
  CU_ASSERT(ctrl[0] == 0.5 && ctrl[1] == 0.0); /* the others 0 */
  CU_ASSERT_EQUAL(dyn_model_check_ctrl(c, 0, ctrl, 2, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ctrl[0] (actuator 'motor')"));
  CU_ASSERT_EQUAL(dyn_model_check_ctrl(c, 1, ctrl, 2, msg, sizeof msg), DYN_OK);
  dyn_model_free(c);
}

static void test_memory_cap(void) {
  dyn_model *m = new_model();
  char msg[256];
  dyn_body_def b = ball_def("b", 1.0, 0.0);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, msg, sizeof msg), 0);
  m->bytes = DYN_MODEL_MAX_BYTES - 10; /* as if the model were that large */
  dyn_body_def c = ball_def("c", 1.0, 0.0);
  REFUSED(m, dyn_model_add_body(m, &c, msg, sizeof msg), "larger than its memory cap");
  m->bytes = DYN_MODEL_MAX_BYTES + 1u;
  CU_ASSERT_EQUAL(dyn_model_validate(m, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "larger than the cap"));
  dyn_model_free(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("model", NULL, NULL);
  CU_add_test(s, "records in and out, names, exclusions", test_records_and_names);
  CU_add_test(s, "materials combine by the maximum; combine(m, m) = m", test_combine);
  CU_add_test(s, "deep copy: records, hull vertices, names", test_copy);
  CU_add_test(s, "mass from density: a dumbbell by hand", test_mass_from_density);
  CU_add_test(s, "bad records refused, named, model unchanged", test_refusals);
  CU_add_test(s, "memory cap", test_memory_cap);
  CU_add_test(s, "actuators: records, refusals, copy, control lists", test_actuators);
  return tst_run();
}
