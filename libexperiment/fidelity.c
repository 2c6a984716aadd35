/* fidelity.c -- the fidelity benchmark's scenes (exp_fidelity.h;
 * experiments/README.md, "fidelity"), each with an analytic answer:
 *
 *   incline_held   cube (0.2 m, 8 kg) on a 20 deg slope, mu 0.5 (tan 20 < mu): creep 0
 *   incline_slide  the same at 35 deg: acceleration g (sin t - mu cos t)
 *   push_held      cube on the floor pushed by 0.9 mu m g: creep 0
 *   push_slide     pushed by 1.1 mu m g: acceleration (F - mu m g) / m
 *   squeeze_held   ball (0.1 m radius, 8 kg) between two cubes on x-sliders pressed by F,
 *                  2 mu F = 1.1 m g: creep 0
 *   squeeze_slide  2 mu F = 0.9 m g: the ball falls at g - 2 mu F / m (0.3 s)
 *   stack          5 cubes 1 mm apart on the floor: settle (the gaps closed, nothing more)
 *   card_house     two cards (10 x 200 x 300 mm, 0.1 kg) leaning at 15 deg, an A frame:
 *                  stands (mu >= tan 15 / 2)
 *   chain          5 links of 1 kg on ball joints from the world, a 1000 kg load: joint error 0
 *   drop           cube dropped from 5 cm, restitution 0: no bounce
 *   rest           cube resting on the floor: penetration 0 (lcplab's contact slop, 0.5 mm,
 *                  is a tolerated penetration by design)
 *
 * The squeezed body is a ball, one contact on each jaw: a cube would touch
 * each jaw at four coplanar points whose normal impulses may be shared in
 * a continuum of ways, each turning the friction into a torque about the
 * jaws' axis, so that the contact problem has many solutions and the
 * analytic motion is only one of them (experiments/records/
 * 2026-11-28-falseconv.md).  The incline and the stack are the scene
 * peers' (../shared/peers/scenes/README.md, "Scenes"), body for body.
 */
#define _GNU_SOURCE

#include "exp_fidelity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define G    9.81
#define S    0.1 /* cube half side */
#define MASS 8.0
#define MU   0.5
#define DEG  (M_PI / 180.0)

static const exp_fid_scene scenes[] = {
  { "incline_held", EXP_FID_CREEP, 120, "incline", "--angle 20 --mu 0.5",
    "cube on a 20 deg slope, mu 0.5: held" },
  { "incline_slide", EXP_FID_ACCEL, 120, "incline", "--angle 35 --mu 0.5",
    "cube on a 35 deg slope, mu 0.5: slides at g (sin 35 - mu cos 35)" },
  { "push_held", EXP_FID_CREEP, 120, NULL, NULL, "cube pushed by 0.9 mu m g: held" },
  { "push_slide", EXP_FID_ACCEL, 120, NULL, NULL, "cube pushed by 1.1 mu m g: slides at 0.1 mu g" },
  { "squeeze_held", EXP_FID_CREEP, 120, NULL, NULL, "ball squeezed, 2 mu F = 1.1 m g: held" },
  { "squeeze_slide", EXP_FID_ACCEL, 36, NULL, NULL,
    "ball squeezed, 2 mu F = 0.9 m g: falls at 0.1 g" },
  { "stack", EXP_FID_SETTLE, 240, "stack", "--n 5", "5 cubes 1 mm apart: settle" },
  { "card_house", EXP_FID_STAND, 120, NULL, NULL, "two cards leaning at 15 deg: stand" },
  { "chain", EXP_FID_JOINT, 120, NULL, NULL, "5 links of 1 kg and a 1000 kg load: joints hold" },
  { "drop", EXP_FID_BOUNCE, 120, NULL, NULL, "cube dropped 5 cm, restitution 0: no bounce" },
  { "rest", EXP_FID_PENETRATION, 120, NULL, NULL, "cube at rest: no penetration" },
};
enum { NSCENES = sizeof scenes / sizeof scenes[0] };

int exp_fid_scene_count(void) { return NSCENES; }
const exp_fid_scene *exp_fid_scene_at(int i) { return i >= 0 && i < NSCENES ? &scenes[i] : NULL; }

int exp_fid_scene_find(const char *name) {
  for (int i = 0; i < NSCENES; i++)
    if (strcmp(scenes[i].name, name) == 0) return i;
  return -1;
}

void exp_fid_scene_list(char *buf, size_t len) {
  size_t o = 0;
  buf[0] = '\0';
  for (int i = 0; i < NSCENES && o < len; i++)
    o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", scenes[i].name);
}

/* ---- builders: each adds to b->m; the first refused record is kept in b->bad ---------- */

typedef struct builder {
  dyn_model *m;
  int mat, bad;
  char *err;
  size_t len;
} builder;

static int check(builder *b, int idx) {
  if (idx < 0) b->bad = 1;
  return idx;
}

static int add_body(builder *b, double mass, dyn_m3 I, dyn_v3 r, dyn_quat q) {
  dyn_body_def d = dyn_body_def_default();
  d.mass = mass;
  d.I_b = I;
  d.r = r;
  d.q = q;
  return b->bad ? -1 : check(b, dyn_model_add_body(b->m, &d, b->err, b->len));
}

static void add_shape(builder *b, int body, dyn_shape g) {
  dyn_shape_def d = dyn_shape_def_default();
  d.body = body;
  d.geom = g;
  d.material = b->mat;
  if (!b->bad) check(b, dyn_model_add_shape(b->m, &d, b->err, b->len));
}

static const dyn_quat q_one = { 1, 0, 0, 0 };

/* A static body holding the half-space n . x >= 0. */
static void add_floor(builder *b, dyn_v3 n) {
  dyn_body_def d = dyn_body_def_default();
  d.is_static = 1;
  int f = b->bad ? -1 : check(b, dyn_model_add_body(b->m, &d, b->err, b->len));
  dyn_shape g = { .kind = DYN_SHAPE_PLANE, .normal = n, .offset = 0.0 };
  if (f >= 0) add_shape(b, f, g);
}

static int add_cube(builder *b, dyn_v3 r, dyn_quat q) {
  dyn_v3 h = { S, S, S };
  int i = add_body(b, MASS, dyn_inertia_box(MASS, h), r, q);
  dyn_shape g = { .kind = DYN_SHAPE_BOX, .half = h };
  if (i >= 0) add_shape(b, i, g);
  return i;
}

static void add_joint(builder *b, dyn_joint_kind kind, int a, int other, dyn_v3 anchor,
                      dyn_v3 axis) {
  dyn_joint_def d = dyn_joint_def_default();
  d.kind = kind;
  d.a = a;
  d.b = other;
  d.anchor = anchor;
  d.axis1 = axis;
  if (!b->bad) check(b, dyn_model_add_joint(b->m, &d, b->err, b->len));
}

static void incline(builder *b, exp_fid_setup *o, double deg) {
  double a = deg * DEG;
  dyn_v3 n = { -sin(a), 0.0, cos(a) };
  add_floor(b, n);
  dyn_quat q = { cos(-a / 2), 0.0, sin(-a / 2), 0.0 };
  add_cube(b, dyn_v3_make((S + 1e-4) * n.x, 0.0, (S + 1e-4) * n.z), q);
  o->along = dyn_v3_make(-cos(a), 0.0, -sin(a));
  o->analytic = G * (sin(a) - MU * cos(a));
}

static void push(builder *b, exp_fid_setup *o, double frac) {
  add_floor(b, dyn_v3_make(0, 0, 1));
  int c = add_cube(b, dyn_v3_make(0, 0, S + 1e-4), q_one);
  o->nloads = 1;
  o->load_body[0] = c;
  o->load[0] = dyn_v3_make(frac * MU * MASS * G, 0, 0);
  o->along = dyn_v3_make(1, 0, 0);
  o->analytic = (frac - 1.0) * MU * G;
}

/* frac = 2 mu F / (m g): the ball held (frac > 1) or falling at (1 - frac) g. */
static void squeeze(builder *b, exp_fid_setup *o, double frac) {
  int ball = add_body(b, MASS, dyn_inertia_sphere(MASS, S), dyn_v3_make(0, 0, 1.0), q_one);
  dyn_shape g = { .kind = DYN_SHAPE_SPHERE, .radius = S };
  if (ball >= 0) add_shape(b, ball, g);
  double f = frac * MASS * G / (2 * MU);
  for (int k = 0; k < 2; k++) {
    double side = k ? 1.0 : -1.0;
    int jaw = add_cube(b, dyn_v3_make(side * (2 * S + 1e-4), 0, 1.0), q_one);
    add_joint(b, DYN_JOINT_SLIDER, jaw, -1, dyn_v3_make(0, 0, 0), dyn_v3_make(1, 0, 0));
    o->load_body[k] = jaw;
    o->load[k] = dyn_v3_make(-side * f, 0, 0);
  }
  o->nloads = 2;
  o->along = dyn_v3_make(0, 0, -1);
  o->analytic = (1.0 - frac) * G;
}

static void stack(builder *b, exp_fid_setup *o) {
  add_floor(b, dyn_v3_make(0, 0, 1));
  for (int k = 0; k < 5; k++) add_cube(b, dyn_v3_make(0, 0, S + 1e-3 + k * (2 * S + 1e-3)), q_one);
  o->allowance = 5 * 1e-3;
}

static void card_house(builder *b) {
  double a = 15.0 * DEG, t = 0.005, w = 0.1, h = 0.15, mass = 0.1;
  dyn_v3 half = { t, w, h };
  add_floor(b, dyn_v3_make(0, 0, 1));
  for (int k = 0; k < 2; k++) {
    double side = k ? 1.0 : -1.0;
    dyn_v3 c = { side * (h * sin(a) + t / cos(a)), 0.0, h * cos(a) + t * sin(a) + 1e-4 };
    dyn_quat q = { cos(-side * a / 2), 0.0, sin(-side * a / 2), 0.0 };
    int i = add_body(b, mass, dyn_inertia_box(mass, half), c, q);
    dyn_shape g = { .kind = DYN_SHAPE_BOX, .half = half };
    if (i >= 0) add_shape(b, i, g);
  }
}

static void chain(builder *b) {
  int prev = -1;
  for (int k = 0; k <= 5; k++) {
    double mass = k == 5 ? 1000.0 : 1.0, z = -0.2 * (k + 1);
    int i = add_body(b, mass, dyn_inertia_sphere(mass, 0.05), dyn_v3_make(0, 0, z), q_one);
    add_joint(b, DYN_JOINT_BALL, i, prev, dyn_v3_make(0, 0, z + 0.1), dyn_v3_make(0, 0, 1));
    prev = i;
  }
}

static void cube_on_floor(builder *b, double height) {
  add_floor(b, dyn_v3_make(0, 0, 1));
  add_cube(b, dyn_v3_make(0, 0, S + height), q_one);
}

static void build_scene(int i, builder *b, exp_fid_setup *o) {
  switch (i) {
  case 0: incline(b, o, 20.0); break;
  case 1: incline(b, o, 35.0); break;
  case 2: push(b, o, 0.9); break;
  case 3: push(b, o, 1.1); break;
  case 4: squeeze(b, o, 1.1); break;
  case 5: squeeze(b, o, 0.9); break;
  case 6: stack(b, o); break;
  case 7: card_house(b); break;
  case 8: chain(b); break;
  case 9: cube_on_floor(b, 0.05); break;
  default: cube_on_floor(b, 1e-4); break;
  }
}

int exp_fid_build(int i, exp_fid_setup *out, char *err, size_t len) {
  memset(out, 0, sizeof *out);
  if (i < 0 || i >= NSCENES) {
    snprintf(err, len, "no fidelity scene %d", i);
    return -1;
  }
  if (dyn_model_new(&out->model) != DYN_OK) {
    snprintf(err, len, "out of memory");
    return -1;
  }
  builder b = { out->model, -1, 0, err, len };
  dyn_material mat = dyn_material_default();
  mat.mu = MU;
  mat.restitution = 0.0;
  b.mat = check(&b, dyn_model_add_material(out->model, &mat, err, len));
  build_scene(i, &b, out);
  if (!b.bad) return 0;
  exp_fid_setup_free(out);
  return -1;
}

void exp_fid_setup_free(exp_fid_setup *s) {
  dyn_model_free(s->model);
  s->model = NULL;
}
