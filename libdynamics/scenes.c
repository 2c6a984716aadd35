/*
 * scenes.c -- the named scenes of `lcplab simulate` / `export`: bodies,
 * static half-spaces and physical settings (gravity, mu, restitution),
 * built from "key=value" parameters.
 *
 * incline, stack, pyramid and pile reproduce the scenes of the ODE and
 * Bullet harnesses that `make bench-scenes` compares against
 * (experiments/BENCHMARKS.md, "Benchmark: make bench-scenes") one to one, with
 * the same floating-point expressions, so that lcplab, ODE and Bullet start
 * from bit-identical states:
 *   common: g = (0, 0, -9.81), restitution 0, mu for every pair, bodies at
 *     rest; static geometry = half-spaces n . x >= d (DYN_SHAPE_PLANE).
 *   sphere of radius r, density rho: m = rho 4/3 pi r^3, I = 0.4 m r^2.
 *   cube of side s: m = rho s^3, I = m (s^2 + s^2) / 12 on each axis.
 *   pile (n, seed): r = 0.05, rho = 1000, g = 0.01, p = 2r + g,
 *     k = ceil(sqrt(n/8)), W = 2 r k, m = floor((W - 2r - 2g)/p + 1e-9) + 1,
 *     x0 = -(m-1) p/2; sphere i: layer i / m^2, ix = (i mod m^2) mod m,
 *     iy = (i mod m^2) / m, x = x0 + ix p + U, y = x0 + iy p + U,
 *     z = r + g + layer p, U = U(-g/4, g/4) from splitmix64(seed) (x's draw
 *     first); half-spaces z >= 0, x >= -W/2, -x >= -W/2, y >= -W/2,
 *     -y >= -W/2.  splitmix64 (Steele, Lea, Flood 2014): s += 0x9E37...15,
 *     z = (s ^ s>>30) * 0xBF58...B9, z = (z ^ z>>27) * 0x94D0...EB,
 *     out = z ^ z>>31; U(a, b) = a + (b - a) (out >> 11) 2^-53.
 *   pyramid (layers L): s = 0.2, gx = 0.01, gz = 0.001; layer j holds L - j
 *     cubes at x = (i - (L-j-1)/2)(s + gx), y = 0, z = s/2 + gz + j (s + gz).
 *   stack (n): cubes at x = y = 0, z_k = s/2 + gz + k (s + gz).
 *   Rest positions (dyn_scene_rest_positions): the gz gaps of pyramid and
 *     stack closed, r_rest = r_start - (j + 1) gz e_z for a cube of layer
 *     j (stack: layer k = cube k), i.e. z_rest = s/2 + j s, the cubes
 *     face to face on the floor; every other scene r_rest = r_start.
 *   incline (angle_deg a, mu): slope n = (-sin a, 0, cos a), d = 0; one
 *     cube rotated by -a about y, q = (cos(-a/2), 0, sin(-a/2), 0), centre
 *     (s/2 + 1e-4) n.
 * The others are lcplab's own:
 *   ball (height, radius, mass, restitution, mu): one sphere, centre at
 *     z = height, on the floor z >= 0; restitution only above an approach
 *     speed of 2 |g| dt (so a ball at rest, which gains |g| dt per step, does
 *     not jitter).
 *   dominoes (n, spacing, push, mu): plates 0.02 x 0.1 x 0.2 m (x, y, z),
 *     1 mm above the floor, every `spacing` m along x; the first one starts
 *     turning about its bottom +x edge at (0, push, 0) rad/s (its top tips
 *     towards +x).
 *   cradle (n, speed, gap, restitution): n spheres r = 0.05 m in a row on x,
 *     `gap` apart, the first moving at +speed; no gravity and no strings,
 *     so it shows the impulse passing along the row, which is what the
 *     cradle is about.  The default gap (5 mm) exceeds the world's default
 *     margin (2 mm): spheres resting inside the margin would meet through
 *     speculative rows without restitution (contact.c).
 *   racket (omega, perturb): a 0.4 x 0.2 x 0.04 m plate (I_x < I_y < I_z)
 *     spinning at w = omega (perturb, 1, 0) about its middle axis y, no
 *     gravity, no contact: the intermediate-axis (Dzhanibekov) flip, growth
 *     rate omega sqrt((I_y - I_x)(I_z - I_y) / (I_x I_z)).
 * Every density defaults to 1000 kg/m^3.
 *
 * Articulated scenes (joints of dyn_joint.h through dyn_world_add_joint;
 * erp 0.2, cfm 0 on every joint row unless said; g = (0, 0, -9.81)).  The
 * joint coordinate of a limit or motor is the body's own angle about (or
 * displacement along) the named axis: a joint to the world is built with
 * the axis negated, because dyn_joint_coord measures b relative to a and
 * the world is b (see sc_joint).  The bodies start exactly on their
 * joints, at rest unless said.
 *   pendulum (length L, angle_deg a, mass m): a sphere r = 0.01 m at
 *     L (sin a, 0, -cos a), hinged (axis y) to the world at the origin: the
 *     massless link is the joint's lever.  Period 2 pi sqrt(L/g) for small a
 *     (the sphere's inertia adds 0.2 (r/L)^2 relative).  No contact.
 *   double_pendulum (length1/2, mass1/2, angle1/2_deg): two uniform rods
 *     (1 cm square) hinged (axis y) at the origin and end to end; angles
 *     from the downward vertical.  No contact.
 *   chain (n <= 100, link l, mass m, angle_deg): n such rods hinged end to
 *     end from the origin, released straight at the angle.  No contact.
 *     A 100-link chain needs h <~ 1e-3 s: its stiffest mode (a link
 *     turning against the tension of the links below, omega ~ sqrt(T l /
 *     I) ~ 340 rad/s at the top) is not resolved at 1/120 s, and the
 *     joints part there whatever the solver.
 *   door (width W, height H, mass, push, limit_deg): a W x 0.04 x H plate
 *     whose edge x = 0 is a hinge (axis z) to the world, turning at push
 *     rad/s; limits 0 .. limit_deg, restitution 0.  No contact.
 *   wheel (radius R, mass, speed, torque): a solid disc (0.05 m thick) on a
 *     hinge (axis x) at (0, 0, 1), motor to `speed` rad/s with |torque| <=
 *     `torque` N m.  No contact.
 *   slider (lo, hi, mass, angle_deg): a 0.1 m cube on a slider through its
 *     centre, axis (sin a, 0, cos a), limits lo .. hi m (0 inside); it
 *     falls to lo.  No contact.
 *   car (speed, torque, mu, mass): a 2 x 1 x 0.3 m box chassis (centre
 *     0.4 m up) and four spheres r 0.3 m, 10 kg, on hinge-2 joints (steering
 *     axis z in the chassis, wheel axis y) with motors (speed rad/s, torque
 *     N m), on the floor z >= 0 with mu; the steering is free (hinge-2 has
 *     no steering limit here).
 *   slider_crank (crank, rod, speed, torque): crank hinged at the origin
 *     (motor), connecting rod, piston on a slider along x, the loop closed
 *     by a ball joint whose rows carry cfm 1e-8 (one of them is redundant).
 *     No contact.
 *   ragdoll (height, push, mu): 10 bodies, T-pose, ball joints at the neck,
 *     shoulders and hips, hinges with limits 0 .. 150 deg at the elbows and
 *     knees; dropped with the feet `height` above the floor, the torso
 *     turning at push rad/s about y; mu for the floor and between limbs.
 * Jointed pairs never collide (world.c).
 *
 * Errors: unknown scene, unknown or repeated key, a value that is not one
 * finite number, an integer key that is not whole or out of range, density
 * or mass <= 0, mu < 0, restitution outside [0, 1]: DYN_ERR_INPUT with one
 * line naming the scene and the key.  Limitations: only these scenes; the
 * peers' scenes take mu and density only as given above.
 */
#include "dyn_world.h"
#include "dyn_joint.h"
#include "dyn_internal.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_PI      3.14159265358979323846 /* M_PI, which strict C11 does not define */
#define SC_MAXKEYS 8

typedef struct scene_key {
  const char *key;
  double def;
  int integer;   /* 1: a whole number */
  double lo, hi; /* closed range */
} scene_key;

struct scene_def;

typedef struct scene_ctx {
  const char *name;
  const struct scene_def *def; /* the scene's key table: v[k] is keys[k]'s value */
  double v[SC_MAXKEYS];
  dyn_world_settings set;
  dyn_world *w;
  char *msg;
  size_t cap;
} scene_ctx;

typedef dyn_err (*scene_build)(scene_ctx *c);

typedef struct scene_def {
  const char *name;
  const char *summary;
  scene_key keys[SC_MAXKEYS];
  int nkeys;
  scene_build build;
} scene_def;

static void scmsg(scene_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void scmsg(scene_ctx *c, const char *fmt, ...) {
  if (!c->msg || c->cap == 0) return;
  int k = snprintf(c->msg, c->cap, "scene '%s': ", c->name);
  if (k < 0 || (size_t)k >= c->cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->msg + k, c->cap - (size_t)k, fmt, ap);
  va_end(ap);
}

/* The value of the scene's parameter `key` (given, or its default): the
 * builders read every parameter by name.  A key missing from the scene's
 * table is a bug in this file: NaN (which the bodies' checks refuse), and
 * an assertion under --enable-asserts. */
static double sc_param(const scene_ctx *c, const char *key) {
  for (int k = 0; k < c->def->nkeys; k++)
    if (strcmp(c->def->keys[k].key, key) == 0) return c->v[k];
  assert(!"scene parameter not in the scene's key table");
  return NAN;
}

/* ---- body helpers ---------------------------------------------------------------- */

static dyn_err sc_world(scene_ctx *c, int nbodies) {
  return dyn_world_new(&c->set, nbodies, &c->w, c->msg, c->cap);
}

static dyn_err sc_add(scene_ctx *c, const dyn_body *b) {
  int i = dyn_world_add_body(c->w, b);
  if (i < 0) {
    scmsg(c, "%s", dyn_world_message(c->w));
    return (dyn_err)i;
  }
  return DYN_OK;
}

static dyn_err sc_dynamic(scene_ctx *c, double mass, dyn_m3 I, dyn_shape sh, dyn_v3 r, dyn_quat q,
                          dyn_v3 v, dyn_v3 w) {
  dyn_body b;
  char m[160];
  if (dyn_body_init(&b, mass, I, sh, r, q, m, sizeof m) != DYN_OK) {
    scmsg(c, "%s", m);
    return DYN_ERR_INPUT;
  }
  b.v = v;
  b.w = w;
  return sc_add(c, &b);
}

/* A sphere of the peers (mass, inertia as in their make_sphere). */
static dyn_err sc_sphere(scene_ctx *c, double r, double density, dyn_v3 pos, dyn_v3 v) {
  double mass = density * 4.0 / 3.0 * SC_PI * r * r * r;
  double I = 0.4 * mass * r * r;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_SPHERE;
  sh.radius = r;
  return sc_dynamic(c, mass, dyn_m3_diag(I, I, I), sh, pos, dyn_quat_identity(), v,
                    dyn_v3_make(0.0, 0.0, 0.0));
}

/* A cube of side s (the peers' make_box). */
static dyn_err sc_cube(scene_ctx *c, double s, double density, dyn_v3 pos, dyn_quat q) {
  double mass = density * s * s * s;
  double I = mass * (s * s + s * s) / 12.0;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_make(s / 2, s / 2, s / 2);
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  return sc_dynamic(c, mass, dyn_m3_diag(I, I, I), sh, pos, q, zero, zero);
}

/* A box of full sides (a, b, d), uniform density. */
static dyn_err sc_plate(scene_ctx *c, dyn_v3 side, double density, dyn_v3 pos, dyn_v3 v, dyn_v3 w) {
  double mass = density * side.x * side.y * side.z;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_scale(side, 0.5);
  return sc_dynamic(c, mass, dyn_inertia_box(mass, sh.half), sh, pos, dyn_quat_identity(), v, w);
}

/* The static half-space n . x >= d. */
static dyn_err sc_plane(scene_ctx *c, double nx, double ny, double nz, double d) {
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_PLANE;
  sh.normal = dyn_v3_make(nx, ny, nz);
  sh.offset = d;
  dyn_body b;
  dyn_body_init_static(&b, sh, dyn_v3_make(0.0, 0.0, 0.0), dyn_quat_identity());
  return sc_add(c, &b);
}

/* A body without geometry (a bob or link with no collision partner). */
static dyn_err sc_noshape(scene_ctx *c, double mass, dyn_m3 I, dyn_v3 r, dyn_quat q) {
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_NONE;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  return sc_dynamic(c, mass, I, sh, r, q, zero, zero);
}

/* A capsule of total length len along the body z axis (radius rad). */
static dyn_err sc_capsule(scene_ctx *c, double mass, double rad, double len, dyn_v3 r, dyn_quat q) {
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_CAPSULE;
  sh.radius = rad;
  sh.half_length = len / 2 - rad;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  return sc_dynamic(c, mass, dyn_inertia_capsule(mass, rad, sh.half_length), sh, r, q, zero, zero);
}

/* Joint of the given kind between bodies a and b (b = -1: the world) at the
 * current poses; *out (may be NULL) receives the world's copy.  The joint
 * coordinate (dyn_joint_coord) is the rotation of b relative to a about
 * axis1 (hinge) or b's displacement relative to a along axis1 (slider); a
 * joint to the world passes -axis1 with a the body, so that the coordinate
 * is the body's own angle / displacement about / along +axis1 (the
 * coordinate of b = -1 relative to a is minus a's).  lim_lo < lim_hi turns
 * the limit on (lim_lo > lim_hi: off); motor_force > 0 turns the motor on
 * with target_vel.  soft_cfm >= 0 goes on every base row. */
typedef struct sc_jspec {
  dyn_joint_kind kind;
  int a, b;
  dyn_v3 anchor, axis1, axis2;
  double lim_lo, lim_hi;
  double target_vel, motor_force;
  double soft_cfm;
} sc_jspec;

static sc_jspec sc_jdef(dyn_joint_kind kind, int a, int b, dyn_v3 anchor, dyn_v3 axis1) {
  sc_jspec js;
  memset(&js, 0, sizeof js);
  js.kind = kind;
  js.a = a;
  js.b = b;
  js.anchor = anchor;
  js.axis1 = axis1;
  js.axis2 = dyn_v3_make(0.0, 1.0, 0.0);
  js.lim_lo = 1.0;
  js.lim_hi = -1.0;
  return js;
}

static dyn_err sc_joint(scene_ctx *c, const sc_jspec *js) {
  dyn_joint j;
  char m[200];
  dyn_v3 ax = js->b < 0 ? dyn_v3_scale(js->axis1, -1.0) : js->axis1;
  if (dyn_joint_init(&j, js->kind, dyn_world_bodies(c->w), dyn_world_body_count(c->w), js->a, js->b,
                     js->anchor, ax, js->axis2, m, sizeof m) != DYN_OK) {
    scmsg(c, "%s", m);
    return DYN_ERR_INPUT;
  }
  if (js->lim_lo <= js->lim_hi) {
    j.limit.enabled = 1;
    j.limit.lo = js->lim_lo;
    j.limit.hi = js->lim_hi;
  }
  if (js->motor_force > 0.0) {
    j.motor.enabled = 1;
    j.motor.target_vel = js->target_vel;
    j.motor.max_force = js->motor_force;
  }
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++) j.cfm[r] = js->soft_cfm;
  if (dyn_world_add_joint(c->w, &j) < 0) {
    scmsg(c, "%s", dyn_world_message(c->w));
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

/* Rotation by angle t (rad) about the world y axis. */
static dyn_quat sc_roty(double t) { return dyn_quat_make(cos(t / 2), 0.0, sin(t / 2), 0.0); }

/* splitmix64 (the peers' Rng). */
static uint64_t splitmix_next(uint64_t *s) { return dyn_mix64(*s += 0x9E3779B97F4A7C15ULL); }

static double splitmix_uniform(uint64_t *s, double a, double b) {
  return a + (b - a) * ((double)(splitmix_next(s) >> 11) * (1.0 / 9007199254740992.0));
}

static void sc_physics(scene_ctx *c, double gz, double mu, double e, double rest_thr) {
  c->set.gravity = dyn_v3_make(0.0, 0.0, gz);
  c->set.contact.mu = mu;
  c->set.contact.restitution = e;
  c->set.contact.rest_threshold = rest_thr;
}

/* ---- the scenes ------------------------------------------------------------------------ */

#define TRY(expr)                                                                                  \
  do {                                                                                             \
    dyn_err e_ = (expr);                                                                           \
    if (e_ != DYN_OK) return e_;                                                                   \
  } while (0)

/* keys: height, radius, mass, restitution, mu */
static dyn_err build_ball(scene_ctx *c) {
  double height = sc_param(c, "height"), r = sc_param(c, "radius"), mass = sc_param(c, "mass");
  if (height < r) {
    scmsg(c, "height=%g must be >= radius=%g (the ball would start in the floor)", height, r);
    return DYN_ERR_INPUT;
  }
  sc_physics(c, -9.81, sc_param(c, "mu"), sc_param(c, "restitution"), 2.0 * 9.81 * c->set.dt);
  TRY(sc_world(c, 2));
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_SPHERE;
  sh.radius = r;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  TRY(sc_dynamic(c, mass, dyn_inertia_sphere(mass, r), sh, dyn_v3_make(0.0, 0.0, height),
                 dyn_quat_identity(), zero, zero));
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: angle_deg, mu, density */
static dyn_err build_incline(scene_ctx *c) {
  double angle = sc_param(c, "angle_deg");
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, 2));
  double a = angle * SC_PI / 180.0;
  const double s = 0.2, gap = 1e-4;
  double n[3] = { -sin(a), 0, cos(a) };
  double h = s / 2 + gap;
  TRY(sc_cube(c, s, sc_param(c, "density"), dyn_v3_make(n[0] * h, n[1] * h, n[2] * h),
              dyn_quat_make(cos(-a / 2), 0, sin(-a / 2), 0)));
  return sc_plane(c, n[0], n[1], n[2], 0);
}

/* stack and pyramid: the gap gz (m) left under each layer of cubes at the
 * start (floor to layer 0, layer j to j + 1), so that nothing touches at
 * t = 0; dyn_scene_rest_positions closes it again. */
#define SC_LAYER_GZ 0.001

/* keys: n, mu, density */
static dyn_err build_stack(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, N + 1));
  const double s = 0.2, gz = SC_LAYER_GZ;
  for (int k = 0; k < N; ++k)
    TRY(sc_cube(c, s, sc_param(c, "density"), dyn_v3_make(0, 0, s / 2 + gz + k * (s + gz)),
                dyn_quat_identity()));
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: layers, mu, density */
static dyn_err build_pyramid(scene_ctx *c) {
  int L = (int)sc_param(c, "layers");
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, L * (L + 1) / 2 + 1));
  const double s = 0.2, gx = 0.01, gz = SC_LAYER_GZ;
  for (int j = 0; j < L; ++j)
    for (int i = 0; i < L - j; ++i)
      TRY(sc_cube(c, s, sc_param(c, "density"),
                  dyn_v3_make((i - (L - j - 1) / 2.0) * (s + gx), 0.0, s / 2 + gz + j * (s + gz)),
                  dyn_quat_identity()));
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: n, seed, mu, density */
static dyn_err build_pile(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  uint64_t rng = (uint64_t)sc_param(c, "seed");
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, N + 5));
  const double r = 0.05, g = 0.01, p = 2 * r + g;
  int k = (int)ceil(sqrt(N / 8.0));
  double W = 2 * r * k;
  int m = (int)floor((W - 2 * r - 2 * g) / p + 1e-9) + 1;
  if (m < 1) m = 1;
  double x0 = -(m - 1) * p / 2.0;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  for (int i = 0; i < N; ++i) {
    int layer = i / (m * m), rem = i % (m * m), ix = rem % m, iy = rem / m;
    double x = x0 + ix * p + splitmix_uniform(&rng, -g / 4, g / 4);
    double y = x0 + iy * p + splitmix_uniform(&rng, -g / 4, g / 4);
    double z = r + g + layer * p;
    TRY(sc_sphere(c, r, sc_param(c, "density"), dyn_v3_make(x, y, z), zero));
  }
  TRY(sc_plane(c, 0, 0, 1, 0));
  TRY(sc_plane(c, 1, 0, 0, -W / 2));
  TRY(sc_plane(c, -1, 0, 0, -W / 2));
  TRY(sc_plane(c, 0, 1, 0, -W / 2));
  return sc_plane(c, 0, -1, 0, -W / 2);
}

/* keys: n, spacing, push, mu, density */
static dyn_err build_dominoes(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  double spacing = sc_param(c, "spacing");
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, N + 1));
  const dyn_v3 side = dyn_v3_make(0.02, 0.1, 0.2);
  for (int i = 0; i < N; i++) {
    /* the first plate turns about its bottom +x edge: w = (0, push, 0),
     * v = w x (centre - edge) = push (h/2, 0, t/2) */
    double push = i == 0 ? sc_param(c, "push") : 0.0;
    TRY(sc_plate(c, side, sc_param(c, "density"), dyn_v3_make(i * spacing, 0.0, side.z / 2 + 0.001),
                 dyn_v3_make(push * side.z / 2, 0.0, push * side.x / 2),
                 dyn_v3_make(0.0, push, 0.0)));
  }
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: n, speed, gap, restitution, density */
static dyn_err build_cradle(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  const double r = 0.05;
  sc_physics(c, 0.0, 0.0, sc_param(c, "restitution"), 0.0);
  TRY(sc_world(c, N));
  for (int i = 0; i < N; i++)
    TRY(sc_sphere(c, r, sc_param(c, "density"),
                  dyn_v3_make(i * (2 * r + sc_param(c, "gap")), 0.0, 0.0),
                  dyn_v3_make(i == 0 ? sc_param(c, "speed") : 0.0, 0.0, 0.0)));
  return DYN_OK;
}

/* keys: omega, perturb, density */
static dyn_err build_racket(scene_ctx *c) {
  double omega = sc_param(c, "omega");
  sc_physics(c, 0.0, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 1));
  return sc_plate(c, dyn_v3_make(0.4, 0.2, 0.04), sc_param(c, "density"),
                  dyn_v3_make(0.0, 0.0, 1.0), dyn_v3_make(0.0, 0.0, 0.0),
                  dyn_v3_make(omega * sc_param(c, "perturb"), omega, 0.0));
}

/* ---- articulated scenes (joints: dyn_joint.h) ------------------------------------------- */

#define DEG (SC_PI / 180.0)

/* keys: length, angle_deg, mass */
static dyn_err build_pendulum(scene_ctx *c) {
  double L = sc_param(c, "length"), a = sc_param(c, "angle_deg") * DEG, mass = sc_param(c, "mass");
  const double r = 0.01;
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 1));
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_SPHERE;
  sh.radius = r;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  /* bob at angle a from the downward vertical, towards +x: R_y(-a) (0, 0, -L) */
  TRY(sc_dynamic(c, mass, dyn_inertia_sphere(mass, r), sh,
                 dyn_v3_make(L * sin(a), 0.0, -L * cos(a)), dyn_quat_identity(), zero, zero));
  sc_jspec js = sc_jdef(DYN_JOINT_HINGE, 0, -1, zero, dyn_v3_make(0.0, 1.0, 0.0));
  return sc_joint(c, &js);
}

/* keys: length1, length2, mass1, mass2, angle1_deg, angle2_deg */
static dyn_err build_double_pendulum(scene_ctx *c) {
  double L1 = sc_param(c, "length1"), L2 = sc_param(c, "length2");
  double a1 = sc_param(c, "angle1_deg") * DEG, a2 = sc_param(c, "angle2_deg") * DEG;
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 2));
  /* two uniform rods (1 cm square section, as the chain's links), the
   * first from the pivot at the origin to E = L1 d1, the second from E on,
   * d_k = (sin a_k, 0, -cos a_k); body z along -d_k (q = R_y(-a_k)).  (Point
   * bobs on massless links, as in the pendulum, would make A = J M^-1 J^T
   * ill-conditioned by L^2 m / I = 2.5e4 at r = 0.01: pgs at 50 sweeps
   * then leaves the second hinge unconverged and the motion blows up.) */
  dyn_v3 d1 = dyn_v3_make(sin(a1), 0.0, -cos(a1)), d2 = dyn_v3_make(sin(a2), 0.0, -cos(a2));
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0), y = dyn_v3_make(0.0, 1.0, 0.0);
  dyn_v3 E = dyn_v3_scale(d1, L1);
  double m1 = sc_param(c, "mass1"), m2 = sc_param(c, "mass2");
  TRY(sc_noshape(c, m1, dyn_inertia_box(m1, dyn_v3_make(0.005, 0.005, L1 / 2)),
                 dyn_v3_scale(d1, L1 / 2), sc_roty(-a1)));
  TRY(sc_noshape(c, m2, dyn_inertia_box(m2, dyn_v3_make(0.005, 0.005, L2 / 2)),
                 dyn_v3_add(E, dyn_v3_scale(d2, L2 / 2)), sc_roty(-a2)));
  sc_jspec j1 = sc_jdef(DYN_JOINT_HINGE, 0, -1, zero, y);
  TRY(sc_joint(c, &j1));
  sc_jspec j2 = sc_jdef(DYN_JOINT_HINGE, 0, 1, E, y); /* rod 2 turns relative to rod 1 */
  return sc_joint(c, &j2);
}

/* keys: n, link, mass, angle_deg */
static dyn_err build_chain(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  double l = sc_param(c, "link"), m = sc_param(c, "mass"), a = sc_param(c, "angle_deg") * DEG;
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, N));
  /* link k: a thin rod (box inertia, 1 cm square section) from the pivot
   * p_k = k l d to p_{k+1}, d = (sin a, 0, -cos a); its body z axis along
   * -d (q = R_y(-a)), so I_b = box(m, (0.005, 0.005, l/2)) */
  dyn_v3 d = dyn_v3_make(sin(a), 0.0, -cos(a)), y = dyn_v3_make(0.0, 1.0, 0.0);
  dyn_m3 I = dyn_inertia_box(m, dyn_v3_make(0.005, 0.005, l / 2));
  for (int k = 0; k < N; k++) TRY(sc_noshape(c, m, I, dyn_v3_scale(d, (k + 0.5) * l), sc_roty(-a)));
  for (int k = 0; k < N; k++) {
    sc_jspec js =
        sc_jdef(DYN_JOINT_HINGE, k == 0 ? 0 : k - 1, k == 0 ? -1 : k, dyn_v3_scale(d, k * l), y);
    TRY(sc_joint(c, &js));
  }
  return DYN_OK;
}

/* keys: width, height, mass, push, limit_deg */
static dyn_err build_door(scene_ctx *c) {
  double W = sc_param(c, "width"), H = sc_param(c, "height"), push = sc_param(c, "push");
  const double t = 0.04;
  if (!(H > 0.0)) {
    scmsg(c, "height=%g must be > 0", H);
    return DYN_ERR_INPUT;
  }
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 1));
  /* the plate's edge x = 0 on the hinge axis z; turning at push rad/s:
   * v = w x (centre - axis) = (0, push W/2, 0) */
  dyn_v3 side = dyn_v3_make(W, t, H);
  double mass = sc_param(c, "mass");
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_scale(side, 0.5);
  TRY(sc_dynamic(c, mass, dyn_inertia_box(mass, sh.half), sh, dyn_v3_make(W / 2, 0.0, H / 2),
                 dyn_quat_identity(), dyn_v3_make(0.0, push * W / 2, 0.0),
                 dyn_v3_make(0.0, 0.0, push)));
  sc_jspec js =
      sc_jdef(DYN_JOINT_HINGE, 0, -1, dyn_v3_make(0.0, 0.0, H / 2), dyn_v3_make(0.0, 0.0, 1.0));
  js.lim_lo = 0.0;
  js.lim_hi = sc_param(c, "limit_deg") * DEG;
  return sc_joint(c, &js);
}

/* keys: radius, mass, speed, torque */
static dyn_err build_wheel(scene_ctx *c) {
  double R = sc_param(c, "radius"), m = sc_param(c, "mass");
  const double t = 0.05;
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 1));
  /* a solid disc of thickness t, axis x: I_x = m R^2 / 2, I_y = I_z =
   * m (3 R^2 + t^2) / 12 */
  double Ia = m * R * R / 2, Ip = m * (3 * R * R + t * t) / 12;
  dyn_v3 ctr = dyn_v3_make(0.0, 0.0, 1.0);
  TRY(sc_noshape(c, m, dyn_m3_diag(Ia, Ip, Ip), ctr, dyn_quat_identity()));
  sc_jspec js = sc_jdef(DYN_JOINT_HINGE, 0, -1, ctr, dyn_v3_make(1.0, 0.0, 0.0));
  js.target_vel = sc_param(c, "speed");
  js.motor_force = sc_param(c, "torque");
  return sc_joint(c, &js);
}

/* keys: lo, hi, mass, angle_deg */
static dyn_err build_slider(scene_ctx *c) {
  double lo = sc_param(c, "lo"), hi = sc_param(c, "hi"), a = sc_param(c, "angle_deg") * DEG;
  if (!(lo < hi)) {
    scmsg(c, "lo=%g must be < hi=%g", lo, hi);
    return DYN_ERR_INPUT;
  }
  if (lo > 0.0 || hi < 0.0) {
    scmsg(c, "lo=%g .. hi=%g must contain 0 (the start)", lo, hi);
    return DYN_ERR_INPUT;
  }
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 1));
  const double s = 0.1;
  double mass = sc_param(c, "mass"), I = mass * (s * s + s * s) / 12.0;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_make(s / 2, s / 2, s / 2);
  dyn_v3 ctr = dyn_v3_make(0.0, 0.0, 1.0), zero = dyn_v3_make(0.0, 0.0, 0.0);
  TRY(sc_dynamic(c, mass, dyn_m3_diag(I, I, I), sh, ctr, dyn_quat_identity(), zero, zero));
  /* axis tilted by a from the vertical towards +x; the coordinate is the
   * cube's displacement along it */
  sc_jspec js = sc_jdef(DYN_JOINT_SLIDER, 0, -1, ctr, dyn_v3_make(sin(a), 0.0, cos(a)));
  js.lim_lo = lo;
  js.lim_hi = hi;
  return sc_joint(c, &js);
}

/* keys: speed, torque, mu, mass */
static dyn_err build_car(scene_ctx *c) {
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, 6));
  /* chassis 2 x 1 x 0.3 m, its centre 0.4 m up; wheels: spheres r = 0.3,
   * 10 kg, centres at (+-0.8, +-0.65, r + 1 mm); hinge-2 at each wheel
   * centre: steering axis z (in the chassis), wheel axis y (in the wheel),
   * motor on the wheel's spin: target `speed` rad/s (the car moves at
   * speed * r along +x), |torque| <= `torque` N m */
  const double r = 0.3, mw = 10.0;
  double M = sc_param(c, "mass");
  dyn_v3 half = dyn_v3_make(1.0, 0.5, 0.15), zero = dyn_v3_make(0.0, 0.0, 0.0);
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = half;
  TRY(sc_dynamic(c, M, dyn_inertia_box(M, half), sh, dyn_v3_make(0.0, 0.0, 0.4),
                 dyn_quat_identity(), zero, zero));
  dyn_v3 pos[4] = { dyn_v3_make(0.8, 0.65, r + 0.001), dyn_v3_make(0.8, -0.65, r + 0.001),
                    dyn_v3_make(-0.8, 0.65, r + 0.001), dyn_v3_make(-0.8, -0.65, r + 0.001) };
  for (int k = 0; k < 4; k++)
    TRY(sc_sphere(c, r, mw / (4.0 / 3.0 * SC_PI * r * r * r), pos[k], zero));
  for (int k = 0; k < 4; k++) {
    sc_jspec js = sc_jdef(DYN_JOINT_HINGE2, 0, 1 + k, pos[k], dyn_v3_make(0.0, 0.0, 1.0));
    js.axis2 = dyn_v3_make(0.0, 1.0, 0.0);
    js.target_vel = sc_param(c, "speed");
    js.motor_force = sc_param(c, "torque");
    TRY(sc_joint(c, &js));
  }
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: crank, rod, speed, torque */
static dyn_err build_slider_crank(scene_ctx *c) {
  double rc = sc_param(c, "crank"), lr = sc_param(c, "rod");
  if (!(lr > rc)) {
    scmsg(c, "rod=%g must be longer than crank=%g", lr, rc);
    return DYN_ERR_INPUT;
  }
  sc_physics(c, -9.81, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 3));
  /* crank: rod of 1 kg from the pivot (origin, axis y) up to E = (0, 0, rc)
   * (crank angle 90 deg, away from the dead centres); connecting rod of
   * 1 kg from E to the piston centre P = (xp, 0, 0), xp = sqrt(lr^2 - rc^2);
   * piston: 2 kg cube of 0.1 m sliding on x.  The loop closes at P with a
   * ball joint (its y row repeats what the crank and rod hinges already
   * fix, so A would be singular: cfm 1e-8 on its rows, 10 nm per N s at
   * 1/120 s, keeps it regular) */
  double xp = sqrt(lr * lr - rc * rc), phi = atan2(rc, xp);
  dyn_v3 E = dyn_v3_make(0.0, 0.0, rc), P = dyn_v3_make(xp, 0.0, 0.0), zero = dyn_v3_make(0, 0, 0);
  dyn_v3 y = dyn_v3_make(0.0, 1.0, 0.0);
  /* body z along each rod: the crank's along +z (q = 1), the rod's along
   * P - E, R_y(pi/2 + phi) maps z to (cos phi, 0, -sin phi) */
  TRY(sc_noshape(c, 1.0, dyn_inertia_box(1.0, dyn_v3_make(0.01, 0.01, rc / 2)),
                 dyn_v3_scale(E, 0.5), dyn_quat_identity()));
  TRY(sc_noshape(c, 1.0, dyn_inertia_box(1.0, dyn_v3_make(0.01, 0.01, lr / 2)),
                 dyn_v3_scale(dyn_v3_add(E, P), 0.5), sc_roty(SC_PI / 2 + phi)));
  TRY(sc_noshape(c, 2.0, dyn_inertia_box(2.0, dyn_v3_make(0.05, 0.05, 0.05)), P,
                 dyn_quat_identity()));
  sc_jspec crank = sc_jdef(DYN_JOINT_HINGE, 0, -1, zero, y);
  crank.target_vel = sc_param(c, "speed");
  crank.motor_force = sc_param(c, "torque");
  TRY(sc_joint(c, &crank));
  sc_jspec elbow = sc_jdef(DYN_JOINT_HINGE, 0, 1, E, y);
  TRY(sc_joint(c, &elbow));
  sc_jspec slide = sc_jdef(DYN_JOINT_SLIDER, 2, -1, P, dyn_v3_make(1.0, 0.0, 0.0));
  TRY(sc_joint(c, &slide));
  sc_jspec close = sc_jdef(DYN_JOINT_BALL, 1, 2, P, y);
  close.soft_cfm = 1e-8;
  return sc_joint(c, &close);
}

/* keys: height, push, mu */
static dyn_err build_ragdoll(scene_ctx *c) {
  double z0 = sc_param(c, "height") + 1.09; /* the feet (shin bottoms) `height` above the floor */
  sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0);
  TRY(sc_world(c, 11));
  /* T-pose: torso box 0.3 x 0.2 x 0.5 m (30 kg) centred at z0; head sphere
   * r 0.1 (5 kg); upper arms and forearms capsules r 0.05, 0.3 m (2, 1.5 kg)
   * along +-y; thighs and shins capsules r 0.06, 0.4 m (7, 4 kg) along -z.
   * Ball joints at the neck, shoulders and hips; hinges at the elbows (axis z,
   * 0 .. 150 deg forward) and knees (axis y, 0 .. 150 deg backward); 2 cm
   * gaps between neighbours.  The torso starts turning at `push` rad/s
   * about y (the joints carry the rest along in the first step). */
  dyn_v3 zero = dyn_v3_make(0, 0, 0);
  dyn_quat qy = dyn_quat_axis_angle(dyn_v3_make(1, 0, 0), -SC_PI / 2); /* body z -> world +y */
  dyn_quat qny = dyn_quat_axis_angle(dyn_v3_make(1, 0, 0), SC_PI / 2); /* body z -> world -y */
  TRY(sc_dynamic(c, 30.0, dyn_inertia_box(30.0, dyn_v3_make(0.15, 0.1, 0.25)),
                 (dyn_shape){ .kind = DYN_SHAPE_BOX, .half = dyn_v3_make(0.15, 0.1, 0.25) },
                 dyn_v3_make(0, 0, z0), dyn_quat_identity(), zero,
                 dyn_v3_make(0, sc_param(c, "push"), 0)));
  TRY(sc_dynamic(c, 5.0, dyn_inertia_sphere(5.0, 0.1),
                 (dyn_shape){ .kind = DYN_SHAPE_SPHERE, .radius = 0.1 },
                 dyn_v3_make(0, 0, z0 + 0.37), dyn_quat_identity(), zero, zero));
  for (int s = 0; s < 2; s++) { /* bodies 2, 3: upper arms; 4, 5: forearms */
    double sg = s ? -1.0 : 1.0;
    TRY(sc_capsule(c, 2.0, 0.05, 0.3, dyn_v3_make(0, sg * 0.27, z0 + 0.2), s ? qny : qy));
  }
  for (int s = 0; s < 2; s++) {
    double sg = s ? -1.0 : 1.0;
    TRY(sc_capsule(c, 1.5, 0.05, 0.3, dyn_v3_make(0, sg * 0.59, z0 + 0.2), s ? qny : qy));
  }
  for (int s = 0; s < 2; s++) { /* 6, 7: thighs; 8, 9: shins */
    double sg = s ? -1.0 : 1.0;
    TRY(sc_capsule(c, 7.0, 0.06, 0.4, dyn_v3_make(0, sg * 0.1, z0 - 0.47), dyn_quat_identity()));
  }
  for (int s = 0; s < 2; s++) {
    double sg = s ? -1.0 : 1.0;
    TRY(sc_capsule(c, 4.0, 0.06, 0.4, dyn_v3_make(0, sg * 0.1, z0 - 0.89), dyn_quat_identity()));
  }
  sc_jspec neck = sc_jdef(DYN_JOINT_BALL, 0, 1, dyn_v3_make(0, 0, z0 + 0.26), zero);
  TRY(sc_joint(c, &neck));
  for (int s = 0; s < 2; s++) {
    double sg = s ? -1.0 : 1.0;
    sc_jspec sh = sc_jdef(DYN_JOINT_BALL, 0, 2 + s, dyn_v3_make(0, sg * 0.11, z0 + 0.2), zero);
    TRY(sc_joint(c, &sh));
    /* elbow: forearm relative to upper arm about -z (left) / +z (right):
     * the forearm swings forward (+x) for a positive angle */
    sc_jspec el = sc_jdef(DYN_JOINT_HINGE, 2 + s, 4 + s, dyn_v3_make(0, sg * 0.43, z0 + 0.2),
                          dyn_v3_make(0, 0, -sg));
    el.lim_lo = 0.0;
    el.lim_hi = 150.0 * DEG;
    TRY(sc_joint(c, &el));
    sc_jspec hip = sc_jdef(DYN_JOINT_BALL, 0, 6 + s, dyn_v3_make(0, sg * 0.1, z0 - 0.26), zero);
    TRY(sc_joint(c, &hip));
    /* knee: shin relative to thigh about +y: the shin swings backward (-x) */
    sc_jspec kn = sc_jdef(DYN_JOINT_HINGE, 6 + s, 8 + s, dyn_v3_make(0, sg * 0.1, z0 - 0.68),
                          dyn_v3_make(0, 1, 0));
    kn.lim_lo = 0.0;
    kn.lim_hi = 150.0 * DEG;
    TRY(sc_joint(c, &kn));
  }
  return sc_plane(c, 0, 0, 1, 0);
}

#define BIG 1e300
#define MU_KEY                                                                                     \
  { "mu", 0.5, 0, 0.0, BIG }
#define DENSITY_KEY                                                                                \
  { "density", 1000.0, 0, 0.0, BIG }

static const scene_def scenes[] = {
  { "ball",
    "one sphere dropped on the floor: height=1 radius=0.1 mass=1 restitution=0.8 mu=0",
    { { "height", 1.0, 0, -BIG, BIG },
      { "radius", 0.1, 0, 0.0, BIG },
      { "mass", 1.0, 0, 0.0, BIG },
      { "restitution", 0.8, 0, 0.0, 1.0 },
      { "mu", 0.0, 0, 0.0, BIG } },
    5,
    build_ball },
  { "incline",
    "one cube on a fixed slope (peers): angle_deg=30 mu=0.5 density=1000",
    { { "angle_deg", 30.0, 0, -89.999999, 89.999999 }, MU_KEY, DENSITY_KEY },
    3,
    build_incline },
  { "stack",
    "a column of cubes (peers): n=10 mu=0.5 density=1000",
    { { "n", 10, 1, 1, 100000 }, MU_KEY, DENSITY_KEY },
    3,
    build_stack },
  { "pyramid",
    "a 2-D pyramid of cubes (peers): layers=10 mu=0.5 density=1000",
    { { "layers", 10, 1, 1, 2000 }, MU_KEY, DENSITY_KEY },
    3,
    build_pyramid },
  { "pile",
    "spheres falling into a box (peers): n=500 seed=1 mu=0.5 density=1000",
    { { "n", 500, 1, 1, 2000000 }, { "seed", 1, 1, 0, 9007199254740992.0 }, MU_KEY, DENSITY_KEY },
    4,
    build_pile },
  { "dominoes",
    "a row of plates, the first one pushed: n=10 spacing=0.1 push=2 mu=0.5 density=1000",
    { { "n", 10, 1, 1, 100000 },
      { "spacing", 0.1, 0, 0.0, BIG },
      { "push", 2.0, 0, -BIG, BIG },
      MU_KEY,
      DENSITY_KEY },
    5,
    build_dominoes },
  { "cradle",
    "a row of spheres hit by the first one, no gravity: n=5 speed=1 gap=0.005 "
    "restitution=1 density=1000",
    { { "n", 5, 1, 2, 100000 },
      { "speed", 1.0, 0, -BIG, BIG },
      { "gap", 0.005, 0, 0.0, BIG },
      { "restitution", 1.0, 0, 0.0, 1.0 },
      DENSITY_KEY },
    5,
    build_cradle },
  { "racket",
    "a plate spinning near its middle axis, no gravity (Dzhanibekov flip): omega=10 "
    "perturb=0.001 density=1000",
    { { "omega", 10.0, 0, -BIG, BIG }, { "perturb", 0.001, 0, -BIG, BIG }, DENSITY_KEY },
    3,
    build_racket },
  { "pendulum",
    "a sphere (r 0.01 m) on a massless link, hinged to the world at the origin "
    "(axis y), no contact: length=1 angle_deg=5 mass=1",
    { { "length", 1.0, 0, 0.0, BIG },
      { "angle_deg", 5.0, 0, -180.0, 180.0 },
      { "mass", 1.0, 0, 0.0, BIG } },
    3,
    build_pendulum },
  { "double_pendulum",
    "two rods (1 cm square) hinged (axis y) at the origin and end to end, "
    "angles from the downward vertical: length1=1 length2=1 "
    "mass1=1 mass2=1 angle1_deg=90 angle2_deg=0",
    { { "length1", 1.0, 0, 0.0, BIG },
      { "length2", 1.0, 0, 0.0, BIG },
      { "mass1", 1.0, 0, 0.0, BIG },
      { "mass2", 1.0, 0, 0.0, BIG },
      { "angle1_deg", 90.0, 0, -180.0, 180.0 },
      { "angle2_deg", 0.0, 0, -180.0, 180.0 } },
    6,
    build_double_pendulum },
  { "chain",
    "n rods (1 cm square) hinged end to end (axis y) from the origin, released "
    "straight at angle_deg from the downward vertical, no contact: n=10 link=0.1 "
    "mass=0.1 angle_deg=90",
    { { "n", 10, 1, 1, 100 },
      { "link", 0.1, 0, 0.0, BIG },
      { "mass", 0.1, 0, 0.0, BIG },
      { "angle_deg", 90.0, 0, -180.0, 180.0 } },
    4,
    build_chain },
  { "door",
    "a 4 cm plate hinged at its edge (axis z), pushed open at push rad/s, hinge limits "
    "0 .. limit_deg: width=0.8 height=2 mass=20 push=2 limit_deg=90",
    { { "width", 0.8, 0, 0.0, BIG },
      { "height", 2.0, 0, 0.0, BIG },
      { "mass", 20.0, 0, 0.0, BIG },
      { "push", 2.0, 0, -BIG, BIG },
      { "limit_deg", 90.0, 0, 0.0, 359.0 } },
    5,
    build_door },
  { "wheel",
    "a 5 cm disc on a hinge (axis x) driven by a motor to speed rad/s with at most "
    "torque N m, from rest: radius=0.3 mass=2 speed=10 torque=5",
    { { "radius", 0.3, 0, 0.0, BIG },
      { "mass", 2.0, 0, 0.0, BIG },
      { "speed", 10.0, 0, -BIG, BIG },
      { "torque", 5.0, 0, 0.0, BIG } },
    4,
    build_wheel },
  { "slider",
    "a 0.1 m cube on a slider (axis angle_deg from the vertical) falling to its "
    "limit, displacement lo .. hi m: lo=-0.5 hi=0.5 mass=1 angle_deg=30",
    { { "lo", -0.5, 0, -BIG, BIG },
      { "hi", 0.5, 0, -BIG, BIG },
      { "mass", 1.0, 0, 0.0, BIG },
      { "angle_deg", 30.0, 0, -180.0, 180.0 } },
    4,
    build_slider },
  { "car",
    "a 2 x 1 x 0.3 m chassis on four sphere wheels (r 0.3 m, 10 kg) on hinge-2 joints "
    "with motors, on the floor: speed=5 torque=20 mu=1 mass=100",
    { { "speed", 5.0, 0, -BIG, BIG },
      { "torque", 20.0, 0, 0.0, BIG },
      { "mu", 1.0, 0, 0.0, BIG },
      { "mass", 100.0, 0, 0.0, BIG } },
    4,
    build_car },
  { "slider_crank",
    "a closed loop: crank (hinge at the origin, motor), connecting rod, piston "
    "on a slider along x: crank=0.2 rod=0.6 speed=6.283 torque=50",
    { { "crank", 0.2, 0, 0.0, BIG },
      { "rod", 0.6, 0, 0.0, BIG },
      { "speed", 6.283, 0, -BIG, BIG },
      { "torque", 50.0, 0, 0.0, BIG } },
    4,
    build_slider_crank },
  { "ragdoll",
    "10 bodies (torso, head, arms, legs) on ball joints and limited hinges, "
    "dropped on the floor turning: height=0.5 push=1 mu=0.5",
    { { "height", 0.5, 0, 0.0, BIG }, { "push", 1.0, 0, -BIG, BIG }, MU_KEY },
    3,
    build_ragdoll },
};

enum { NSCENES = (int)(sizeof scenes / sizeof scenes[0]) };

int dyn_scene_count(void) { return NSCENES; }

const char *dyn_scene_name(int i) { return (i >= 0 && i < NSCENES) ? scenes[i].name : NULL; }

const char *dyn_scene_summary(int i) { return (i >= 0 && i < NSCENES) ? scenes[i].summary : NULL; }

static const scene_def *find_scene(const char *name) {
  for (int i = 0; name && i < NSCENES; i++)
    if (strcmp(scenes[i].name, name) == 0) return &scenes[i];
  return NULL;
}

long dyn_scene_default_steps(const char *name, double dt) {
  if (!find_scene(name) || !(dt > 0.0) || !isfinite(dt)) return 0;
  if (strcmp(name, "incline") == 0) {
    double k = floor(1.0 / dt + 0.5); /* round(1 s / dt), as the peers */
    return k < 1 ? 1 : (k > 1e15 ? 0 : (long)k);
  }
  return 600;
}

/* Layers L of a pyramid of ndyn cubes, ndyn = L (L + 1) / 2; -1 when
 * ndyn is not such a number (not a pyramid's count). */
static long pyramid_layers(long ndyn) {
  long L = 0;
  while (L * (L + 1) / 2 < ndyn) L++;
  return (L >= 1 && L * (L + 1) / 2 == ndyn) ? L : -1;
}

dyn_err dyn_scene_rest_positions(const char *name, const dyn_world *w, double *r_rest, int nbodies,
                                 char *msg, size_t msgcap) {
  scene_ctx c; /* for scmsg only */
  memset(&c, 0, sizeof c);
  c.msg = msg;
  c.cap = msgcap;
  c.name = name ? name : "(null)";
  if (!find_scene(name)) {
    scmsg(&c, "unknown scene (rest positions)");
    return DYN_ERR_INPUT;
  }
  if (!w || !r_rest || nbodies != dyn_world_body_count(w)) {
    scmsg(&c, "rest positions: world %s, r_rest %s, nbodies=%d for %d bodies", w ? "given" : "NULL",
          r_rest ? "given" : "NULL", nbodies, w ? dyn_world_body_count(w) : 0);
    return DYN_ERR_INPUT;
  }
  if (dyn_world_step_count(w) != 0) {
    scmsg(&c, "rest positions need the world as built, not after %ld steps",
          dyn_world_step_count(w));
    return DYN_ERR_INPUT;
  }
  /* dyn_world_bodies has no const form; the bodies are only read here */
  const dyn_body *b = dyn_world_bodies((dyn_world *)w);
  int ndyn = 0;
  while (ndyn < nbodies && !b[ndyn].is_static) ndyn++;
  int stack = strcmp(name, "stack") == 0, pyramid = strcmp(name, "pyramid") == 0;
  if (stack || pyramid) {
    /* the builders' layout: the cubes first, then the floor alone */
    int ok = nbodies == ndyn + 1 && (stack || pyramid_layers(ndyn) > 0);
    if (!ok) {
      scmsg(&c, "rest positions: %d dynamic of %d bodies is not this scene's layout", ndyn,
            nbodies);
      return DYN_ERR_INPUT;
    }
  }
  /* the builders' order: stack, cube k is layer k; pyramid of L layers,
   * layer j holds the next L - j cubes */
  long L = pyramid ? pyramid_layers(ndyn) : 0, j = 0, in_layer = 0;
  for (int i = 0; i < nbodies; i++) {
    r_rest[3 * i] = b[i].r.x;
    r_rest[3 * i + 1] = b[i].r.y;
    r_rest[3 * i + 2] = b[i].r.z;
    if (!(stack || pyramid) || i >= ndyn) continue;
    /* a cube of layer j rests (j + 1) gz lower: the gaps under it, from the
     * floor up, closed (cubes face to face, no penetration) */
    r_rest[3 * i + 2] -= (double)(j + 1) * SC_LAYER_GZ;
    if (stack || ++in_layer == L - j) {
      j++;
      in_layer = 0;
    }
  }
  return DYN_OK;
}

static void key_list(const scene_def *d, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < d->nkeys; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", d->keys[k].key);
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

/* A key whose value must be > 0 (masses, densities, lengths, counts). */
static int must_be_positive(const char *key) {
  return strcmp(key, "mass") == 0 || strcmp(key, "density") == 0 || strcmp(key, "radius") == 0 ||
         strcmp(key, "spacing") == 0 || strcmp(key, "length") == 0 || strcmp(key, "length1") == 0 ||
         strcmp(key, "length2") == 0 || strcmp(key, "mass1") == 0 || strcmp(key, "mass2") == 0 ||
         strcmp(key, "link") == 0 || strcmp(key, "width") == 0 || strcmp(key, "crank") == 0 ||
         strcmp(key, "rod") == 0;
}

dyn_err dyn_scene_new(const char *name, const char *const *params, int nparams,
                      const dyn_world_settings *base, dyn_world **out, char *msg, size_t msgcap) {
  scene_ctx c;
  memset(&c, 0, sizeof c);
  c.msg = msg;
  c.cap = msgcap;
  c.name = name ? name : "(null)";
  if (!out) {
    scmsg(&c, "out is NULL");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  const scene_def *d = find_scene(name);
  if (!d) {
    char list[256];
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < NSCENES; i++) {
      int r = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", scenes[i].name);
      if (r < 0 || (size_t)r >= sizeof list - used) break;
      used += (size_t)r;
    }
    if (msg && msgcap) snprintf(msg, msgcap, "unknown scene '%s' (known: %s)", c.name, list);
    return DYN_ERR_INPUT;
  }
  if (nparams < 0 || (nparams > 0 && !params)) {
    scmsg(&c, "nparams=%d with params %s", nparams, params ? "given" : "NULL");
    return DYN_ERR_INPUT;
  }
  int seen[SC_MAXKEYS] = { 0 };
  c.def = d;
  for (int k = 0; k < d->nkeys; k++) c.v[k] = d->keys[k].def;
  char keys[128];
  key_list(d, keys, sizeof keys);
  for (int p = 0; p < nparams; p++) {
    const char *kv = params[p] ? params[p] : "";
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
      scmsg(&c, "parameter '%s' is not key=value (keys: %s)", kv, keys);
      return DYN_ERR_INPUT;
    }
    size_t klen = (size_t)(eq - kv);
    int k = 0;
    while (k < d->nkeys &&
           !(strlen(d->keys[k].key) == klen && strncmp(d->keys[k].key, kv, klen) == 0))
      k++;
    if (k == d->nkeys) {
      scmsg(&c, "unknown key '%.*s' (keys: %s)", (int)klen, kv, keys);
      return DYN_ERR_INPUT;
    }
    const scene_key *sk = &d->keys[k];
    if (seen[k]) {
      scmsg(&c, "key '%s' given twice", sk->key);
      return DYN_ERR_INPUT;
    }
    seen[k] = 1;
    double v;
    if (slv_parse_double(eq + 1, SLV_PARSE_FINITE, &v) != SLV_PARSE_OK) {
      scmsg(&c, "%s='%s' is not a number", sk->key, eq + 1);
      return DYN_ERR_INPUT;
    }
    if (must_be_positive(sk->key) && !(v > 0.0)) {
      scmsg(&c, "%s=%g must be > 0", sk->key, v);
      return DYN_ERR_INPUT;
    }
    if (sk->integer && v != floor(v)) {
      scmsg(&c, "%s=%g must be a whole number", sk->key, v);
      return DYN_ERR_INPUT;
    }
    if (v < sk->lo || v > sk->hi) {
      if (sk->hi >= BIG)
        scmsg(&c, "%s=%g must be >= %g", sk->key, v, sk->lo);
      else
        scmsg(&c, "%s=%g must be in [%g, %g]", sk->key, v, sk->lo, sk->hi);
      return DYN_ERR_INPUT;
    }
    c.v[k] = v;
  }
  c.set = base ? *base : dyn_world_settings_default();
  dyn_err e = d->build(&c);
  if (e != DYN_OK) {
    dyn_world_free(c.w);
    return e;
  }
  *out = c.w;
  return DYN_OK;
}
