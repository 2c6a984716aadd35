/* test_mjcf.c -- scene models as MJCF files (libmodels: mdl_write_mjcf,
 * mdl_read_mjcf; docs/models.md).
 *
 * Every built-in scene (dyn_scene_name(i), default parameters) is written,
 * loaded by MuJoCo itself and stepped there (mdl_mujoco_run: a valid
 * model), read back, and compared with the scene's own model record by
 * record, field by field, bit for bit (the custom data carries the exact
 * values: docs/models.md, "lcplab's custom data"); then both models are
 * built into worlds and stepped: every step's problem (n, A, b, bounds,
 * findex, mu, cones) and the state after it are the same bits.  A user
 * model with what the scenes lack (several shapes on a body, hulls, two
 * materials, filters, exclusions, a fixed joint, a universal joint, a
 * loop closed by a hinge, a capsule of half length 0, a site) round-trips
 * the same way, and a plain MJCF file with no lcplab data maps by the
 * general rules (values derived in the comments).  Bad input: not XML, not
 * MJCF, a missing mesh, a zero mass, a zero joint axis, NaN, a name with
 * shell characters, a feature refused: exit codes and messages that name
 * the file and the element.
 */
#include "dyn_model.h"
#include "dyn_world.h"
#include "mdl.h"
#include "mdl_internal.h" /* mdl_mujoco_run */
#include "tst_util.h"

#include <mujoco/mujoco.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];

static void path_in_dir(char *buf, size_t cap, const char *name) {
  if ((size_t)snprintf(buf, cap, "%s/%s", dir, name) >= cap) buf[0] = '\0';
}

/* Writes m to path (dt 1/120). */
static void write_model(const dyn_model *m, const char *path) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char msg[512] = "";
  mdl_err e = mdl_write_mjcf(m, NULL, f, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    write %s: %s\n", path, msg);
  CU_ASSERT_EQUAL(e, MDL_OK);
  CU_ASSERT_EQUAL(fclose(f), 0);
}

static dyn_model *read_model(const char *path) {
  dyn_model *m = NULL;
  mdl_read_info info;
  char msg[512] = "";
  mdl_err e = mdl_read_mjcf(path, &m, &info, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    read %s: %s\n", path, msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  CU_ASSERT_EQUAL(info.lcplab_data, 1);
  CU_ASSERT_EQUAL(info.timestep, 1.0 / 120.0);
  return m;
}

/* ---- field by field ------------------------------------------------------------- */

static int same_bits(const void *a, const void *b, size_t n) {
  return n == 0 || memcmp(a, b, n) == 0; /* memcmp takes no NULL, even for 0 bytes */
}

#define SAME_FIELD(a, b, field, what, i)                                                           \
  do {                                                                                             \
    if (!same_bits(&(a).field, &(b).field, sizeof(a).field)) {                                     \
      printf("\n    %s %d: field %s differs\n", what, i, #field);                                  \
      CU_FAIL("a field differs");                                                                  \
    }                                                                                              \
  } while (0)

static void same_bodies(const dyn_model *m, const dyn_model *r) {
  CU_ASSERT_EQUAL_FATAL(dyn_model_body_count(r), dyn_model_body_count(m));
  const dyn_body_def *A = dyn_model_bodies(m), *B = dyn_model_bodies(r);
  for (int i = 0; i < dyn_model_body_count(m); i++) {
    CU_ASSERT_STRING_EQUAL(A[i].name, B[i].name);
    SAME_FIELD(A[i], B[i], is_static, "body", i);
    SAME_FIELD(A[i], B[i], mass, "body", i);
    SAME_FIELD(A[i], B[i], I_b, "body", i);
    SAME_FIELD(A[i], B[i], r, "body", i);
    SAME_FIELD(A[i], B[i], q, "body", i);
    SAME_FIELD(A[i], B[i], v, "body", i);
    SAME_FIELD(A[i], B[i], w, "body", i);
    SAME_FIELD(A[i], B[i], rest_given, "body", i);
    SAME_FIELD(A[i], B[i], r_rest, "body", i);
  }
}

static void same_shapes(const dyn_model *m, const dyn_model *r) {
  CU_ASSERT_EQUAL_FATAL(dyn_model_shape_count(r), dyn_model_shape_count(m));
  const dyn_shape_def *A = dyn_model_shapes(m), *B = dyn_model_shapes(r);
  for (int i = 0; i < dyn_model_shape_count(m); i++) {
    CU_ASSERT_STRING_EQUAL(A[i].name, B[i].name);
    SAME_FIELD(A[i], B[i], body, "shape", i);
    SAME_FIELD(A[i], B[i], geom.kind, "shape", i);
    SAME_FIELD(A[i], B[i], geom.radius, "shape", i);
    SAME_FIELD(A[i], B[i], geom.half_length, "shape", i);
    SAME_FIELD(A[i], B[i], geom.half, "shape", i);
    SAME_FIELD(A[i], B[i], geom.normal, "shape", i);
    SAME_FIELD(A[i], B[i], geom.offset, "shape", i);
    SAME_FIELD(A[i], B[i], geom.nverts, "shape", i);
    SAME_FIELD(A[i], B[i], pos, "shape", i);
    SAME_FIELD(A[i], B[i], rot, "shape", i);
    SAME_FIELD(A[i], B[i], material, "shape", i);
    SAME_FIELD(A[i], B[i], contype, "shape", i);
    SAME_FIELD(A[i], B[i], conaffinity, "shape", i);
    if (A[i].geom.kind == DYN_SHAPE_HULL && A[i].geom.nverts == B[i].geom.nverts)
      CU_ASSERT(
          same_bits(A[i].geom.verts, B[i].geom.verts, (size_t)A[i].geom.nverts * sizeof(dyn_v3)));
  }
}

static void same_materials_joints(const dyn_model *m, const dyn_model *r) {
  CU_ASSERT_EQUAL_FATAL(dyn_model_material_count(r), dyn_model_material_count(m));
  const dyn_material *A = dyn_model_materials(m), *B = dyn_model_materials(r);
  for (int i = 0; i < dyn_model_material_count(m); i++) {
    CU_ASSERT_STRING_EQUAL(A[i].name, B[i].name);
    SAME_FIELD(A[i], B[i], mu, "material", i);
    SAME_FIELD(A[i], B[i], restitution, "material", i);
  }
  CU_ASSERT_EQUAL_FATAL(dyn_model_joint_count(r), dyn_model_joint_count(m));
  const dyn_joint_def *J = dyn_model_joints(m), *K = dyn_model_joints(r);
  for (int j = 0; j < dyn_model_joint_count(m); j++) {
    CU_ASSERT_STRING_EQUAL(J[j].name, K[j].name);
    SAME_FIELD(J[j], K[j], kind, "joint", j);
    SAME_FIELD(J[j], K[j], a, "joint", j);
    SAME_FIELD(J[j], K[j], b, "joint", j);
    SAME_FIELD(J[j], K[j], anchor, "joint", j);
    SAME_FIELD(J[j], K[j], axis1, "joint", j);
    SAME_FIELD(J[j], K[j], axis2, "joint", j);
    SAME_FIELD(J[j], K[j], erp, "joint", j);
    SAME_FIELD(J[j], K[j], cfm, "joint", j);
    SAME_FIELD(J[j], K[j], limit, "joint", j);
    SAME_FIELD(J[j], K[j], motor, "joint", j);
  }
  int n = dyn_model_exclusion_count(m);
  CU_ASSERT_EQUAL_FATAL(dyn_model_exclusion_count(r), n);
  CU_ASSERT(
      same_bits(dyn_model_exclusions(m), dyn_model_exclusions(r), 2 * (size_t)n * sizeof(int)));
  dyn_model_options o1 = dyn_model_get_options(m), o2 = dyn_model_get_options(r);
  CU_ASSERT(same_bits(&o1.gravity, &o2.gravity, sizeof o1.gravity));
  CU_ASSERT(o1.rest_threshold == o2.rest_threshold && o1.steps == o2.steps);
  CU_ASSERT(o1.rest_threshold_steps == o2.rest_threshold_steps && o1.duration == o2.duration);
}

static void same_model(const dyn_model *m, const dyn_model *r) {
  same_bodies(m, r);
  same_shapes(m, r);
  same_materials_joints(m, r);
}

/* ---- the same steps -------------------------------------------------------------- */

static dyn_world *world_of(const dyn_model *m) {
  dyn_world_settings s = dyn_world_settings_default();
  s.storage = DYN_STORAGE_DENSE;
  /* as dyn_scene_new: the scene's mu and restitution in the settings too */
  if (dyn_model_material_count(m) > 0) {
    s.contact.mu = dyn_model_materials(m)[0].mu;
    s.contact.restitution = dyn_model_materials(m)[0].restitution;
  }
  dyn_world *w = NULL;
  char msg[512] = "";
  dyn_err e = dyn_world_new_from_model(m, &s, &w, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    world: %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  return w;
}

static int same_vec(const double *a, const double *b, int n) {
  if (!a || !b) return a == b;
  return same_bits(a, b, (size_t)n * sizeof *a);
}

static void same_problem(const dyn_world *w1, const dyn_world *w2, long k) {
  slv_problem p, q;
  const double *x1, *x2;
  dyn_world_last_problem(w1, &p, &x1);
  dyn_world_last_problem(w2, &q, &x2);
  CU_ASSERT_EQUAL_FATAL(p.n, q.n);
  int n = p.n, ok = p.storage == q.storage && p.ncones == q.ncones;
  for (int j = 0; ok && p.A && j < n; j++)
    ok = same_vec(p.A + (size_t)j * p.lda, q.A + (size_t)j * q.lda, n);
  ok = ok && same_vec(p.b, q.b, n) && same_vec(p.lo, q.lo, n) && same_vec(p.hi, q.hi, n) &&
       same_vec(p.mu, q.mu, n);
  ok = ok && (!p.findex || same_bits(p.findex, q.findex, (size_t)n * sizeof(int)));
  if (!ok) printf("\n    step %ld: the problems differ (n = %d)\n", k, n);
  CU_ASSERT(ok);
}

/* K steps of worlds built from m and r: the same problem at each step, and
 * the same state after it (dyn_world_save_state, byte for byte). */
static void same_steps(const dyn_model *m, const dyn_model *r, long K) {
  dyn_world *w1 = world_of(m), *w2 = world_of(r);
  for (long k = 1; k <= K; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w1, NULL), DYN_OK);
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(w2, NULL), DYN_OK);
    same_problem(w1, w2, k);
    size_t sz = dyn_world_state_size(w1);
    CU_ASSERT_EQUAL_FATAL(dyn_world_state_size(w2), sz);
    char *s1 = malloc(sz), *s2 = malloc(sz);
    CU_ASSERT_FATAL(s1 && s2);
    CU_ASSERT_EQUAL(dyn_world_save_state(w1, s1, sz), DYN_OK);
    CU_ASSERT_EQUAL(dyn_world_save_state(w2, s2, sz), DYN_OK);
    CU_ASSERT(same_bits(s1, s2, sz));
    free(s1);
    free(s2);
  }
  dyn_world_free(w1);
  dyn_world_free(w2);
}

/* ---- every built-in scene --------------------------------------------------------- */

/* Every scene is written and read back to the same bits; under memcheck
 * (tst_short_runs) MuJoCo's own step runs on every fourth scene and the two
 * worlds step 3 times, not 20: each model MuJoCo compiles costs a probe
 * process there, about 0.3 s of CPU a fork (the valgrind stage's time,
 * experiments/records/2026-11-27-test-time.md). */
static void round_trip_scene(const char *name, int with_mujoco) {
  dyn_model *m = NULL;
  char msg[512] = "", path[600];
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model(name, NULL, 0, &m, msg, sizeof msg), DYN_OK);
  char file[96];
  snprintf(file, sizeof file, "%s.xml", name);
  path_in_dir(path, sizeof path, file);
  write_model(m, path);
  if (with_mujoco) { /* MuJoCo's own step takes the file: a valid model */
    int nbody = 0;
    mdl_err e = mdl_mujoco_run(path, 5, NULL, 0, &nbody, msg, sizeof msg);
    if (e != MDL_OK) printf("\n    MuJoCo on %s: %s\n", name, msg);
    CU_ASSERT_EQUAL(e, MDL_OK);
    /* the world body and one element per lcplab body */
    CU_ASSERT_EQUAL(nbody, dyn_model_body_count(m) + 1);
  }
  dyn_model *r = read_model(path);
  same_model(m, r);
  same_steps(m, r, tst_short_runs() ? 3 : 20);
  dyn_model_free(r);
  dyn_model_free(m);
}

static void test_every_scene(void) {
  CU_ASSERT_EQUAL(dyn_scene_count(), 17);
  for (int i = 0; i < dyn_scene_count(); i++)
    round_trip_scene(dyn_scene_name(i), !tst_short_runs() || i % 4 == 0);
}

/* ---- a model with what the scenes lack ------------------------------------------ */

static int add_body(dyn_model *m, const char *name, int is_static, double mass, dyn_m3 I, dyn_v3 r,
                    dyn_quat q) {
  char msg[256] = "";
  dyn_body_def b = dyn_body_def_default();
  snprintf(b.name, sizeof b.name, "%s", name);
  b.is_static = is_static;
  b.mass = mass;
  b.I_b = I;
  b.r = r;
  b.q = q;
  int i = dyn_model_add_body(m, &b, msg, sizeof msg);
  if (i < 0) printf("\n    add_body: %s\n", msg);
  CU_ASSERT_FATAL(i >= 0);
  return i;
}

static int add_shape(dyn_model *m, int body, dyn_shape g, dyn_v3 pos, dyn_quat rot, int material,
                     const char *name) {
  char msg[256] = "";
  dyn_shape_def s = dyn_shape_def_default();
  snprintf(s.name, sizeof s.name, "%s", name);
  s.body = body;
  s.geom = g;
  s.pos = pos;
  s.rot = rot;
  s.material = material;
  int i = dyn_model_add_shape(m, &s, msg, sizeof msg);
  if (i < 0) printf("\n    add_shape: %s\n", msg);
  CU_ASSERT_FATAL(i >= 0);
  return i;
}

static void add_joint(dyn_model *m, dyn_joint_kind k, int a, int b, dyn_v3 anchor, dyn_v3 ax1,
                      dyn_v3 ax2, const char *name) {
  char msg[256] = "";
  dyn_joint_def d = dyn_joint_def_default();
  snprintf(d.name, sizeof d.name, "%s", name);
  d.kind = k;
  d.a = a;
  d.b = b;
  d.anchor = anchor;
  d.axis1 = ax1;
  d.axis2 = ax2;
  if (k == DYN_JOINT_SLIDER || k == DYN_JOINT_HINGE2) {
    d.limit.enabled = 1;
    d.limit.lo = -0.5;
    d.limit.hi = 0.25;
    d.limit.restitution = 0.3;
  }
  if (k == DYN_JOINT_HINGE2) {
    d.motor.enabled = 1;
    d.motor.target_vel = 2.0;
    d.motor.max_force = 3.0;
  }
  d.cfm[1] = 1e-7;
  int i = dyn_model_add_joint(m, &d, msg, sizeof msg);
  if (i < 0) printf("\n    add_joint %s: %s\n", name, msg);
  CU_ASSERT_FATAL(i >= 0);
}

static dyn_v3 V(double x, double y, double z) { return dyn_v3_make(x, y, z); }

/* A floor of ice, a two-shape body of rubber with a full inertia, a hull,
 * a hull of 200 points, a capsule of half length 0, a site, filters, an
 * exclusion, a 4-bar linkage (its loop closed by a hinge), a universal, a
 * fixed, a slider, a hinge-2 hung from the world (its axes reversed in the
 * file), a ball and a weld closing loops, a body welded to the world, a
 * hinge to a static body, a name XML must escape, velocities, rest
 * positions and the default run as a duration. */
static dyn_model *user_model(void) {
  dyn_model *m = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  dyn_material ice = dyn_material_default(), rubber = dyn_material_default();
  snprintf(ice.name, sizeof ice.name, "ice");
  ice.mu = 0.05;
  ice.restitution = 0.1;
  snprintf(rubber.name, sizeof rubber.name, "rub<ber> & \"co\"");
  rubber.mu = 1.0;
  rubber.restitution = 0.5;
  int mi = dyn_model_add_material(m, &ice, msg, sizeof msg);
  int mr = dyn_model_add_material(m, &rubber, msg, sizeof msg);
  dyn_model_options o = dyn_model_get_options(m);
  o.gravity = V(0.1, 0.0, -9.0);
  o.rest_threshold = 0.1;
  o.rest_threshold_steps = 1.5;
  o.steps = 0;
  o.duration = 2.5;
  CU_ASSERT_EQUAL_FATAL(dyn_model_set_options(m, &o, msg, sizeof msg), DYN_OK);
  dyn_quat qid = dyn_quat_identity(), qt = dyn_quat_axis_angle(dyn_v3_normalize(V(1, 2, 3)), 0.7);
  dyn_m3 I1 = dyn_m3_diag(0.01, 0.01, 0.01);
  int floor = add_body(m, "", 1, 0.0, dyn_m3_zero(), V(0, 0, 0), qid);
  add_shape(m, floor, (dyn_shape){ .kind = DYN_SHAPE_PLANE, .normal = V(0, 0, 1), .offset = -0.25 },
            V(0, 0, 0), qid, mi, "floor");
  /* a full inertia: R diag(1, 2, 2.5) R^T */
  dyn_m3 R = dyn_quat_to_m3(qt), D = dyn_m3_diag(1.0, 2.0, 2.5);
  dyn_m3 If = dyn_m3_mul(dyn_m3_mul(R, D), dyn_m3_transpose(R));
  int two = add_body(m, "a<b>&\"c'", 0, 3.0, If, V(0, 0, 1), qt);
  add_shape(m, two, (dyn_shape){ .kind = DYN_SHAPE_SPHERE, .radius = 0.1 }, V(0.2, 0, 0), qid, mr,
            "");
  add_shape(m, two, (dyn_shape){ .kind = DYN_SHAPE_BOX, .half = V(0.1, 0.05, 0.02) }, V(-0.2, 0, 0),
            qt, DYN_MATERIAL_DEFAULT, "box");
  static const dyn_v3 tet[5] = {
    { 0, 0, 0 }, { 0.2, 0, 0 }, { 0, 0.2, 0 }, { 0, 0, 0.2 }, { 0.05, 0.05, 0.05 }
  };
  int hull = add_body(m, "", 0, 1.0, I1, V(1, 1, 1), qid);
  add_shape(m, hull, (dyn_shape){ .kind = DYN_SHAPE_HULL, .verts = tet, .nverts = 5 },
            V(0.01, 0.02, 0.03), qt, mr, "tet");
  /* a hull of 200 points on a sphere (600 numbers: two custom chunks) */
  static dyn_v3 ball[200];
  for (int i = 0; i < 200; i++) {
    double zc = 1.0 - (2.0 * i + 1.0) / 200.0, rr = sqrt(1.0 - zc * zc), ph = 2.399963 * i;
    ball[i] = V(0.1 * rr * cos(ph), 0.1 * rr * sin(ph), 0.1 * zc);
  }
  int round = add_body(m, "round", 0, 1.0, I1, V(1, -1, 1), qid);
  add_shape(m, round, (dyn_shape){ .kind = DYN_SHAPE_HULL, .verts = ball, .nverts = 200 },
            V(0, 0, 0), qid, mi, "round");
  int cap = add_body(m, "capsule0", 0, 1.0, I1, V(2, 0, 1), qid);
  add_shape(m, cap, (dyn_shape){ .kind = DYN_SHAPE_CAPSULE, .radius = 0.1, .half_length = 0.0 },
            V(0, 0, 0), qid, mi, "cap");
  add_shape(m, cap, (dyn_shape){ .kind = DYN_SHAPE_NONE }, V(0, 0, 0.5), qt, DYN_MATERIAL_DEFAULT,
            "marker");
  char m2[256];
  dyn_shape_def sd = dyn_model_shapes(m)[dyn_model_find_shape(m, "cap")];
  sd.contype = 2u;
  sd.conaffinity = 0xFFFFFFFFu;
  CU_ASSERT_EQUAL(dyn_model_set_shape(m, dyn_model_find_shape(m, "cap"), &sd, m2, sizeof m2),
                  DYN_OK);
  CU_ASSERT_EQUAL(dyn_model_exclude(m, hull, two, m2, sizeof m2), DYN_OK);
  /* the 4-bar: A from O1 = 0 up to P, C from O2 = (1, 0, 0) up to Q, B from P to Q */
  int A = add_body(m, "A", 0, 1.0, I1, V(0, 0, 0.5), qid);
  int B = add_body(m, "B", 0, 1.0, I1, V(0.5, 0, 1), qid);
  int C = add_body(m, "", 0, 1.0, I1, V(1, 0, 0.5), qid);
  dyn_v3 y = V(0, 1, 0), z = V(0, 0, 1), x = V(1, 0, 0);
  add_joint(m, DYN_JOINT_HINGE, A, -1, V(0, 0, 0), y, y, "O1");
  add_joint(m, DYN_JOINT_HINGE, A, B, V(0, 0, 1), y, y, "P");
  add_joint(m, DYN_JOINT_HINGE, C, -1, V(1, 0, 0), y, y, "O2");
  add_joint(m, DYN_JOINT_HINGE, B, C, V(1, 0, 1), y, y, "Q"); /* closes the loop */
  /* a universal and a fixed joint hanging more bodies from B */
  int U = add_body(m, "U", 0, 1.0, I1, V(0.5, 0, 1.5), qid);
  add_joint(m, DYN_JOINT_UNIVERSAL, B, U, V(0.5, 0, 1.25), x, y, "uni");
  int F = add_body(m, "F", 0, 1.0, I1, V(0.5, 0, 2.0), qid);
  add_joint(m, DYN_JOINT_FIXED, U, F, V(0.5, 0, 2.0), z, y, "");
  /* a slider to the world, a hinge-2 hung from the world (b = -1) */
  int S = add_body(m, "S", 0, 1.0, I1, V(3, 0, 1), qid);
  add_joint(m, DYN_JOINT_SLIDER, S, -1, V(3, 0, 1), dyn_v3_normalize(V(1, 0, 1)), y, "rail");
  int W = add_body(m, "W", 0, 2.0, I1, V(4, 0, 1), qid);
  add_joint(m, DYN_JOINT_HINGE2, W, -1, V(4, 0, 1), z, y, "wheel");
  /* loops: a ball from F to the world, a weld from S's neighbour to C */
  add_joint(m, DYN_JOINT_BALL, F, -1, V(0.5, 0, 2.1), z, y, "tether");
  add_joint(m, DYN_JOINT_FIXED, W, S, V(3.5, 0, 1), z, y, "glue");
  /* a body welded to the world, a static base turned by qt with a box and
   * a hinged arm (its parent a static body, not the world) */
  int G = add_body(m, "G", 0, 1.0, I1, V(5, 0, 1), qt);
  add_joint(m, DYN_JOINT_FIXED, G, -1, V(5, 0, 1), z, y, "weld_G");
  int base = add_body(m, "base", 1, 0.0, dyn_m3_zero(), V(6, 0, 0.5), qt);
  add_shape(m, base, (dyn_shape){ .kind = DYN_SHAPE_BOX, .half = V(0.2, 0.2, 0.2) }, V(0, 0, 0.1),
            qid, mi, "base_box");
  int H = add_body(m, "H", 0, 1.0, I1, V(6, 0, 1.2), qid);
  add_joint(m, DYN_JOINT_HINGE, base, H, V(6, 0, 0.9), x, y, "arm");
  /* velocities and rest positions */
  dyn_body_def bd = dyn_model_bodies(m)[hull];
  bd.v = V(0.1, -0.2, 0.3);
  bd.w = V(1, 2, 3);
  bd.rest_given = 1;
  bd.r_rest = V(1, 1, 0.9);
  CU_ASSERT_EQUAL(dyn_model_set_body(m, hull, &bd, m2, sizeof m2), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_model_validate(m, m2, sizeof m2), DYN_OK);
  return m;
}

static void test_user_model(void) {
  dyn_model *m = user_model();
  char path[600], msg[512] = "";
  path_in_dir(path, sizeof path, "user.xml");
  write_model(m, path);
  mdl_err e = mdl_mujoco_run(path, 5, NULL, 0, NULL, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    MuJoCo: %s\n", msg);
  CU_ASSERT_EQUAL(e, MDL_OK);
  dyn_model *r = read_model(path);
  same_model(m, r);
  same_steps(m, r, 10);
  /* written again from what was read: the same file, byte for byte */
  char again[600];
  path_in_dir(again, sizeof again, "user2.xml");
  write_model(r, again);
  FILE *f1 = fopen(path, "rb"), *f2 = fopen(again, "rb");
  CU_ASSERT_FATAL(f1 && f2);
  int c1, c2, same = 1;
  do {
    c1 = fgetc(f1);
    c2 = fgetc(f2);
    same = same && c1 == c2;
  } while (c1 != EOF && c2 != EOF);
  CU_ASSERT(same);
  fclose(f1);
  fclose(f2);
  dyn_model_free(r);
  dyn_model_free(m);
}

/* ---- a plain MJCF file ------------------------------------------------------------ */

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  CU_ASSERT_EQUAL(fclose(f), 0);
}

/* No lcplab data: the general mapping (mjcf_read_map.c, mjcf_read_joints.c). */
static void test_plain_file(void) {
  char path[600], msg[512] = "";
  path_in_dir(path, sizeof path, "plain.xml");
  write_text(path, "<mujoco><compiler angle=\"radian\"/>\n"
                   "<option timestep=\"0.01\" gravity=\"0 0 -5\"/>\n"
                   "<worldbody>\n"
                   " <geom name=\"floor\" type=\"plane\" size=\"0 0 1\" pos=\"0 0 -0.5\" "
                   "friction=\"0.7 0 0\"/>\n"
                   " <body name=\"box\" pos=\"1 2 3\"><freejoint/>\n"
                   "  <inertial pos=\"0.1 0 0\" mass=\"2\" diaginertia=\"1 2 3\"/>\n"
                   "  <geom name=\"b\" type=\"box\" size=\"0.1 0.2 0.3\" pos=\"0.1 0 0\" "
                   "friction=\"0.3 0 0\" contype=\"2\" conaffinity=\"3\"/></body>\n"
                   " <body name=\"arm\" pos=\"0 0 1\">\n"
                   "  <joint name=\"h\" type=\"hinge\" pos=\"0 0 0.5\" axis=\"0 1 0\" "
                   "limited=\"true\" range=\"-1 1\"/>\n"
                   "  <inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"0.1 0.1 0.01\"/>\n"
                   "  <geom type=\"capsule\" size=\"0.05 0.2\" friction=\"0.3 0 0\" condim=\"1\"/>"
                   "</body>\n"
                   "</worldbody>\n"
                   "<contact><exclude body1=\"box\" body2=\"arm\"/></contact>\n"
                   "</mujoco>\n");
  dyn_model *m = NULL;
  mdl_read_info info;
  mdl_err e = mdl_read_mjcf(path, &m, &info, msg, sizeof msg);
  if (e != MDL_OK) printf("\n    %s\n", msg);
  CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
  CU_ASSERT_EQUAL(info.lcplab_data, 0);
  CU_ASSERT_EQUAL(info.timestep, 0.01);
  /* bodies: the world (it holds the floor), box, arm */
  CU_ASSERT_EQUAL_FATAL(dyn_model_body_count(m), 3);
  const dyn_body_def *B = dyn_model_bodies(m);
  CU_ASSERT_STRING_EQUAL(B[0].name, "worldbody");
  CU_ASSERT(B[0].is_static && !B[1].is_static && !B[2].is_static);
  /* box: the centre of mass (1, 2, 3) + ipos (0.1, 0, 0); the inertia as given */
  CU_ASSERT_EQUAL(B[1].mass, 2.0);
  TST_CLOSE(B[1].r.x, 1.1, 1e-15, 0);
  TST_CLOSE(B[1].r.z, 3.0, 1e-15, 0);
  TST_CLOSE(B[1].I_b.m[4], 2.0, 1e-15, 0);
  /* shapes: floor (a plane z >= -0.5), b (at the centre of mass: 0.1 - 0.1),
   * the arm's capsule (condim 1) */
  CU_ASSERT_EQUAL_FATAL(dyn_model_shape_count(m), 3);
  const dyn_shape_def *S = dyn_model_shapes(m);
  CU_ASSERT_EQUAL(S[0].geom.kind, DYN_SHAPE_PLANE);
  TST_CLOSE(S[0].geom.normal.z, 1.0, 1e-15, 0);
  TST_CLOSE(S[0].geom.offset, -0.5, 1e-15, 0);
  CU_ASSERT_EQUAL(S[1].geom.kind, DYN_SHAPE_BOX);
  TST_CLOSE(S[1].pos.x, 0.0, 1e-15, 0);
  TST_CLOSE(S[1].geom.half.y, 0.2, 1e-15, 0);
  CU_ASSERT(S[1].contype == 2u && S[1].conaffinity == 3u);
  CU_ASSERT_EQUAL(S[2].geom.kind, DYN_SHAPE_CAPSULE);
  TST_CLOSE(S[2].geom.half_length, 0.2, 1e-15, 0);
  /* materials by friction and condim, in the order met: 0.7 (floor), 0.3
   * (b), 0.3 of condim 1 (MuJoCo's pairing rule: frictionless only against
   * another condim 1; before issue 80's torsion, mu 0) */
  CU_ASSERT_EQUAL_FATAL(dyn_model_material_count(m), 3);
  const dyn_material *M = dyn_model_materials(m);
  CU_ASSERT(M[0].mu == 0.7 && M[1].mu == 0.3 && M[2].mu == 0.3);
  CU_ASSERT(M[0].condim == 0 && M[1].condim == 0 && M[2].condim == 1);
  CU_ASSERT(S[0].material == 0 && S[1].material == 1 && S[2].material == 2);
  /* the hinge to the world: the arm is a, the world b = -1, the axis
   * negated (b's coordinate relative to a), at the world anchor (0, 0, 1.5) */
  CU_ASSERT_EQUAL_FATAL(dyn_model_joint_count(m), 1);
  const dyn_joint_def *J = dyn_model_joints(m);
  CU_ASSERT(J[0].kind == DYN_JOINT_HINGE && J[0].a == 2 && J[0].b == -1);
  TST_CLOSE(J[0].anchor.z, 1.5, 1e-15, 0);
  TST_CLOSE(J[0].axis1.y, -1.0, 1e-15, 0);
  CU_ASSERT(J[0].limit.enabled && J[0].limit.lo == -1.0 && J[0].limit.hi == 1.0);
  CU_ASSERT_STRING_EQUAL(J[0].name, "h");
  CU_ASSERT_EQUAL_FATAL(dyn_model_exclusion_count(m), 1);
  CU_ASSERT(dyn_model_exclusions(m)[0] == 1 && dyn_model_exclusions(m)[1] == 2);
  CU_ASSERT_EQUAL(dyn_model_get_options(m).gravity.z, -5.0);
  dyn_model_free(m);
}

/* An lcplab file edited by hand: a value MJCF holds (the ball's height)
 * is the file's, what MJCF cannot say (restitution) still lcplab's. */
static void test_edited_file(void) {
  dyn_model *m = NULL;
  char msg[512] = "", path[600];
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("ball", NULL, 0, &m, msg, sizeof msg), DYN_OK);
  path_in_dir(path, sizeof path, "edited.xml");
  write_model(m, path);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  char *at = strstr(text, "<body name=\"ball\" pos=\"0 0 1\"");
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  at[strlen("<body name=\"ball\" pos=\"0 0 ")] = '2';
  write_text(path, text);
  dyn_model *r = read_model(path);
  int ball = dyn_model_find_body(r, "ball");
  CU_ASSERT_EQUAL(dyn_model_bodies(r)[ball].r.z, 2.0);
  CU_ASSERT_EQUAL(dyn_model_materials(r)[0].restitution, 0.8);
  CU_ASSERT_EQUAL(dyn_model_get_options(r).rest_threshold_steps, 2.0);
  dyn_model_free(r);
  dyn_model_free(m);
}

/* ---- bad input -------------------------------------------------------------------- */

/* Reading `text` from a file called `name` fails with `want`, and the
 * message holds the path and each of the words. */
static void bad(const char *name, const char *text, mdl_err want, const char *w1, const char *w2) {
  char path[600], msg[512] = "";
  path_in_dir(path, sizeof path, name);
  if (text) write_text(path, text);
  dyn_model *m = (dyn_model *)&msg; /* set to NULL on failure */
  mdl_err e = mdl_read_mjcf(path, &m, NULL, msg, sizeof msg);
  if (e != want || !strstr(msg, path) || (w1 && !strstr(msg, w1)) || (w2 && !strstr(msg, w2)))
    printf("\n    %s: %s (%s) says: %s\n", name, mdl_err_str(e), mdl_err_str(want), msg);
  CU_ASSERT_EQUAL(e, want);
  CU_ASSERT_PTR_NULL(m);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, path));
  if (w1) CU_ASSERT_PTR_NOT_NULL(strstr(msg, w1));
  if (w2) CU_ASSERT_PTR_NOT_NULL(strstr(msg, w2));
  CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
}

#define FREE_BODY(attrs, inner)                                                                    \
  "<mujoco><worldbody><body name=\"b\" " attrs "><freejoint/><inertial pos=\"0 0 0\" "             \
  "mass=\"1\" diaginertia=\"1 1 1\"/>" inner "</body></worldbody></mujoco>\n"

/* ---- condim 6: rolling friction ------------------------------------------------------ */

/* The file's materials read for worlds of friction fr (approximate ap):
 * the status, and the count (*nm) and first two materials into M. */
static mdl_err read_for(const char *path, int fr, int ap, dyn_material *M, int *nm, char *msg,
                        size_t cap, char *notes) {
  mdl_read_options o = mdl_read_options_default();
  o.friction = fr;
  o.approximate = ap;
  dyn_model *m = NULL;
  mdl_read_info info;
  mdl_err e = mdl_read_model(path, &o, &m, &info, msg, cap);
  *nm = 0;
  if (e != MDL_OK) return e;
  *nm = dyn_model_material_count(m);
  for (int k = 0; k < *nm && k < 2; k++) M[k] = dyn_model_materials(m)[k];
  if (notes) snprintf(notes, 512, "%.511s", info.notes); /* the notes' first 511 bytes */
  dyn_model_free(m);
  return e;
}

/* A ball of condim 6 on MuJoCo's default floor (condim 3): friction[1]
 * and [2] read on every geom of the file (the pairing rule takes the
 * larger where the pair's condim is 6); under the cone refused, named;
 * under the cone with approximate, condim 3 and said; the writer's file
 * reads back the same material. */
static void test_rolling_condim(void) {
  char path[600], msg[512] = "", notes[512] = "";
  path_in_dir(path, sizeof path, "roll.xml");
  write_text(path,
             "<mujoco><worldbody><geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>\n"
             "<body name=\"b\" pos=\"0 0 0.1\"><freejoint/><inertial pos=\"0 0 0\" mass=\"1\" "
             "diaginertia=\"1 1 1\"/><geom name=\"ball\" type=\"sphere\" size=\"0.1\" "
             "friction=\"0.5 0.01 0.002\" condim=\"6\"/></body></worldbody></mujoco>\n");
  dyn_material M[2];
  int nm = 0;
  for (int fr = -1; fr <= DYN_FRICTION_BOX; fr++) {
    mdl_err e = read_for(path,
                         fr == 0  ? MDL_FRICTION_ANY
                         : fr < 0 ? DYN_FRICTION_NONE
                                  : fr,
                         0, M, &nm, msg, sizeof msg, NULL);
    if (e != MDL_OK) printf("\n    %s\n", msg);
    CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
    CU_ASSERT_EQUAL_FATAL(nm, 2);
    CU_ASSERT(M[0].mu == 1.0 && M[0].condim == 0 && M[0].mu_torsion == 0.005 &&
              M[0].mu_rolling == 0.0001);
    CU_ASSERT(M[1].mu == 0.5 && M[1].condim == 6 && M[1].mu_torsion == 0.01 &&
              M[1].mu_rolling == 0.002);
  }
  for (int fr = DYN_FRICTION_PYRAMID; fr <= DYN_FRICTION_CONE; fr++) {
    mdl_err e = read_for(path, fr, 0, M, &nm, msg, sizeof msg, NULL);
    CU_ASSERT(e == MDL_ERR_REFUSED && strstr(msg, "geom 'ball'") && strstr(msg, "condim 6") &&
              strstr(msg, "approximate"));
    e = read_for(path, fr, 1, M, &nm, msg, sizeof msg, notes);
    CU_ASSERT_EQUAL_FATAL(e, MDL_OK);
    CU_ASSERT_EQUAL_FATAL(nm, 2);
    CU_ASSERT(M[1].mu == 0.5 && M[1].condim == 0 && M[1].mu_torsion == 0.0 &&
              M[1].mu_rolling == 0.0 && M[0].mu_torsion == 0.0 && M[0].mu_rolling == 0.0);
    CU_ASSERT_PTR_NOT_NULL(strstr(notes, "condim 3"));
  }
  /* lcplab's own file: the material of condim 6 back to the bit */
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(mdl_read_mjcf(path, &m, NULL, msg, sizeof msg), MDL_OK);
  char back[600];
  path_in_dir(back, sizeof back, "roll_back.xml");
  write_model(m, back);
  dyn_model *m2 = read_model(back);
  CU_ASSERT_EQUAL_FATAL(dyn_model_material_count(m2), 2);
  const dyn_material *a = dyn_model_materials(m), *b = dyn_model_materials(m2);
  for (int k = 0; k < 2; k++)
    CU_ASSERT(a[k].mu == b[k].mu && a[k].condim == b[k].condim &&
              a[k].mu_torsion == b[k].mu_torsion && a[k].mu_rolling == b[k].mu_rolling);
  dyn_model_free(m);
  dyn_model_free(m2);
}

static void test_bad_input(void) {
  bad("none.xml", NULL, MDL_ERR_FILE, "FILE_NOT_FOUND", NULL);
  bad("text.xml", "hello\n", MDL_ERR_FILE, "XML", "Line");
  bad("foo.xml", "<foo/>\n", MDL_ERR_FILE, "Unrecognized XML model type", "foo");
  bad("mesh.xml",
      "<mujoco><asset><mesh name=\"m\" file=\"missing.stl\"/></asset>\n"
      "<worldbody><geom type=\"mesh\" mesh=\"m\"/></worldbody></mujoco>\n",
      MDL_ERR_FILE, "missing.stl", "line = 1");
  bad("mass.xml",
      "<mujoco><worldbody>\n<body name=\"b\"><freejoint/>"
      "<inertial pos=\"0 0 0\" mass=\"0\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>\n",
      MDL_ERR_FILE, "mass", "line = 2");
  /* a massless body welded to a moving one: MuJoCo takes it, lcplab's model refuses */
  bad("mass2.xml", FREE_BODY("", "<body name=\"c\" pos=\"1 0 0\"/>"), MDL_ERR_REFUSED, "'c'",
      "mass=0");
  bad("axis.xml",
      "<mujoco><worldbody><body name=\"b\"><joint name=\"j\" type=\"hinge\" axis=\"0 0 0\"/>"
      "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody>"
      "</mujoco>\n",
      MDL_ERR_FILE, "axis too small", "'j'");
  /* NaN: where MuJoCo keeps it, the element is named; where its compiler
   * drops it, its own warning is the message */
  bad("nan.xml",
      FREE_BODY("", "<geom name=\"g\" type=\"sphere\" size=\"0.1\" friction=\"nan 0 0\"/>"),
      MDL_ERR_REFUSED, "'g'", "mu");
  bad("nan2.xml", FREE_BODY("pos=\"nan 0 0\"", ""), MDL_ERR_FILE, "NaN", NULL);
  bad("cyl.xml", FREE_BODY("", "<geom name=\"g\" type=\"sphere\" size=\"0.1\" priority=\"1\"/>"),
      MDL_ERR_REFUSED, "geom 'g'", "priority");
  bad("tendon.xml",
      "<mujoco><worldbody><body name=\"b\"><joint name=\"j\" type=\"hinge\"/>"
      "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody>"
      "<tendon><fixed name=\"t\" frictionloss=\"3\"><joint joint=\"j\" coef=\"1\"/></fixed>"
      "</tendon></mujoco>\n",
      MDL_ERR_REFUSED, "tendon 't'", "frictionloss (a friction coupling its joints)");
  bad("three.xml",
      "<mujoco><worldbody><body name=\"b\"><joint type=\"hinge\" axis=\"1 0 0\"/>"
      "<joint type=\"hinge\" axis=\"0 1 0\"/><joint type=\"hinge\" axis=\"0 0 1\"/>"
      "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody>"
      "</mujoco>\n",
      MDL_ERR_REFUSED, "body 'b'", "hinge, hinge, hinge");
  /* a name with shell characters: read as any other file, nothing run */
  bad("a'b\"c$(touch ran);d`x`.xml", "<foo/>\n", MDL_ERR_FILE, "Unrecognized", NULL);
  char ran[600];
  path_in_dir(ran, sizeof ran, "ran");
  CU_ASSERT_PTR_NULL(fopen(ran, "r"));
}

/* ---- MuJoCo's own errors ---------------------------------------------------------- */

/* 30 boxes 2 cm over a floor, a stack of 3000 numbers: enough for MuJoCo's
 * compiler (measured: 2000 is not), not for the contacts when they land,
 * where mj_step's mj_stackAlloc calls mju_error ("Stack overflow"), which
 * would end the process: the guard (libmodels/mujoco_guard.c) returns
 * MDL_ERR_MUJOCO, twice in a row, writes no MUJOCO_LOG.TXT, and puts back
 * the handlers there were (none). */
static void test_mujoco_error_returns(void) {
  char path[600], msg[512] = "";
  path_in_dir(path, sizeof path, "stack.xml");
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("<mujoco><size nstack=\"3000\"/><worldbody><geom type=\"plane\" size=\"0 0 1\"/>", f);
  for (int i = 0; i < 30; i++)
    fprintf(f,
            "<body pos=\"%g 0 0.12\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\"/>"
            "</body>",
            0.3 * i);
  fputs("</worldbody></mujoco>\n", f);
  CU_ASSERT_EQUAL(fclose(f), 0);
  FILE *log = fopen("MUJOCO_LOG.TXT", "r");
  int had_log = log != NULL;
  if (log) fclose(log);
  for (int k = 0; k < 2; k++) {
    mdl_err e = mdl_mujoco_run(path, 200, NULL, 0, NULL, msg, sizeof msg);
    CU_ASSERT_EQUAL(e, MDL_ERR_MUJOCO);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "Stack overflow"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, path));
  }
  CU_ASSERT_PTR_NULL(mju_user_error);
  CU_ASSERT_PTR_NULL(mju_user_warning);
  if (!had_log) {
    log = fopen("MUJOCO_LOG.TXT", "r");
    CU_ASSERT_PTR_NULL(log);
    if (log) fclose(log);
  }
}

/* ---- the keyframe: MuJoCo started where lcplab starts ------------------------------ */

static mjModel *mj_of_scene(const char *scene, const char *file) {
  dyn_model *m = NULL;
  char msg[512] = "", path[600], err[1000] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model(scene, NULL, 0, &m, msg, sizeof msg), DYN_OK);
  path_in_dir(path, sizeof path, file);
  write_model(m, path);
  dyn_model_free(m);
  mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(mj);
  return mj;
}

static void test_keyframe(void) {
  /* dominoes: the first plate (MuJoCo's body 1, a free joint, dofs 0-5)
   * turns about its bottom edge, w = (0, push, 0), v = push (h/2, 0, t/2)
   * = 2 (0.1, 0, 0.01); at q = 1 the free joint's angular rate (body
   * frame) is w itself; qpos: its centre (0, 0, 0.101) and q = 1 */
  mjModel *mj = mj_of_scene("dominoes", "key_dominoes.xml");
  CU_ASSERT_EQUAL_FATAL(mj->nkey, 1);
  const mjtNum *qv = mj->key_qvel, *qp = mj->key_qpos;
  TST_CLOSE(qv[0], 0.2, 1e-15, 0);
  TST_CLOSE(qv[2], 0.02, 1e-15, 0);
  TST_CLOSE(qv[4], 2.0, 1e-15, 0);
  TST_CLOSE(qp[2], 0.101, 1e-15, 0);
  CU_ASSERT_EQUAL(qp[3], 1.0);
  CU_ASSERT_EQUAL(qv[6], 0.0); /* the second plate at rest */
  mj_deleteModel(mj);
  /* door: turning open at push = 2 rad/s about +z, its hinge (to the
   * world: the door is a, its axis written negated twice) rate +2 */
  mj = mj_of_scene("door", "key_door.xml");
  CU_ASSERT_EQUAL_FATAL(mj->nkey, 1);
  CU_ASSERT_EQUAL_FATAL(mj->nv, 1);
  TST_CLOSE(mj->key_qvel[0], 2.0, 1e-15, 0);
  TST_CLOSE(mj->jnt_axis[2], 1.0, 1e-15, 0);
  mj_deleteModel(mj);
}

/* ---- what the writer refuses ------------------------------------------------------ */

static void refused_write(dyn_model *m, const char *w1, const char *w2) {
  char msg[512] = "";
  FILE *f = tmpfile();
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  mdl_err e = mdl_write_mjcf(m, NULL, f, msg, sizeof msg);
  fclose(f);
  if (e != MDL_ERR_INPUT || !strstr(msg, w1) || !strstr(msg, w2))
    printf("\n    %s: %s\n", mdl_err_str(e), msg);
  CU_ASSERT_EQUAL(e, MDL_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, w1));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, w2));
}

static void test_writer_refusals(void) {
  dyn_quat qid = dyn_quat_identity();
  dyn_m3 I1 = dyn_m3_diag(0.01, 0.01, 0.01);
  dyn_v3 z = V(0, 0, 1), y = V(0, 1, 0);
  /* a name with a control character */
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  add_body(m, "tab\there", 0, 1.0, I1, V(0, 0, 0), qid);
  refused_write(m, "body 0", "control character");
  dyn_model_free(m);
  /* MuJoCo's world body's name */
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  add_body(m, "world", 0, 1.0, I1, V(0, 0, 0), qid);
  refused_write(m, "'world'", "reserves");
  dyn_model_free(m);
  /* principal moments 1, 1, 3 (SPD, but 1 + 1 < 3) */
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  add_body(m, "flat", 0, 1.0, dyn_m3_diag(1, 1, 3), V(0, 0, 0), qid);
  refused_write(m, "'flat'", "A + B >= C");
  dyn_model_free(m);
  /* two sliders from one body to the world: the second closes a loop */
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  int b = add_body(m, "car", 0, 1.0, I1, V(0, 0, 0), qid);
  add_joint(m, DYN_JOINT_SLIDER, b, -1, V(0, 0, 0), z, y, "s1");
  add_joint(m, DYN_JOINT_SLIDER, b, -1, V(0, 0, 0), z, y, "s2");
  refused_write(m, "'s2'", "closes a loop");
  dyn_model_free(m);
}

int main(void) {
  if (tst_tmpdir_make(dir, sizeof dir, "test_mjcf") != 0) return 1;
  CU_initialize_registry();
  CU_pSuite s = CU_add_suite("MJCF", NULL, NULL);
  CU_add_test(s, "every built-in scene: written, run by MuJoCo, read back to the same bits",
              test_every_scene);
  CU_add_test(s, "a user model with every record kind: the same bits, the same file again",
              test_user_model);
  CU_add_test(s, "a plain MJCF file: the general mapping", test_plain_file);
  CU_add_test(s, "an lcplab file edited by hand: MJCF's values win", test_edited_file);
  CU_add_test(s, "bad input: the file, the element, the feature named", test_bad_input);
  CU_add_test(s, "condim 6: rolling friction read, refused under the cone, round trip",
              test_rolling_condim);
  CU_add_test(s, "a MuJoCo error mid-step returns, it does not end the process",
              test_mujoco_error_returns);
  CU_add_test(s, "what the writer refuses, named", test_writer_refusals);
  CU_add_test(s, "the keyframe: MuJoCo started where lcplab starts", test_keyframe);
  int rc = tst_run();
  tst_tmpdir_remove(dir);
  return rc;
}
