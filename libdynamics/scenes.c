/*
 * scenes.c -- the named scenes of `lcplab simulate` / `export`: the table
 * of scenes (name, summary, keys, builder), their "key=value" parameters,
 * and dyn_scene_model, which fills a scene model (dyn_model.h: bodies,
 * shapes, the scene's one material, joints, gravity, rest positions,
 * default steps) by the scene's builder (scenes_free.c, scenes_joint.c;
 * helpers in scenes_build.c), and dyn_scene_new, the model's world.  A
 * scene's name is looked up here once, in the table.
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
 *   Rest positions (the bodies' r_rest in the model): the gz gaps of pyramid and
 *     stack closed, r_rest = r_start - (j + 1) gz e_z for a cube of layer
 *     j (stack: layer k = cube k), i.e. z_rest = s/2 + j s, the cubes
 *     face to face on the floor; every other scene r_rest = r_start.
 *   incline (angle_deg a, mu): slope n = (-sin a, 0, cos a), d = 0; one
 *     cube rotated by -a about y, q = (cos(-a/2), 0, sin(-a/2), 0), centre
 *     (s/2 + 1e-4) n; it runs round(1 s / dt) steps by default, every
 *     other scene 600 (the peers' default).
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
 * Articulated scenes (joints of dyn_joint.h as the model's joint records;
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
 * Jointed pairs never collide (world_model.c).  Each scene has one
 * material, named after it, with its mu and restitution (0 where it has no
 * such key), which every shape takes.
 *
 * Errors: unknown scene, unknown or repeated key, a value that is not one
 * finite number, an integer key that is not whole or out of range, density
 * or mass <= 0, mu < 0, restitution outside [0, 1]: DYN_ERR_INPUT with one
 * line naming the scene and the key (or, from the model, the record).  Limitations: only these scenes; the
 * peers' scenes take mu and density only as given above.
 */
#include "scenes_internal.h"
#include "dyn_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    dyn_scene_build_ball },
  { "incline",
    "one cube on a fixed slope (peers): angle_deg=30 mu=0.5 density=1000",
    { { "angle_deg", 30.0, 0, -89.999999, 89.999999 }, MU_KEY, DENSITY_KEY },
    3,
    dyn_scene_build_incline },
  { "stack",
    "a column of cubes (peers): n=10 mu=0.5 density=1000",
    { { "n", 10, 1, 1, 100000 }, MU_KEY, DENSITY_KEY },
    3,
    dyn_scene_build_stack },
  { "pyramid",
    "a 2-D pyramid of cubes (peers): layers=10 mu=0.5 density=1000",
    { { "layers", 10, 1, 1, 2000 }, MU_KEY, DENSITY_KEY },
    3,
    dyn_scene_build_pyramid },
  { "pile",
    "spheres falling into a box (peers): n=500 seed=1 mu=0.5 density=1000",
    { { "n", 500, 1, 1, 2000000 }, { "seed", 1, 1, 0, 9007199254740992.0 }, MU_KEY, DENSITY_KEY },
    4,
    dyn_scene_build_pile },
  { "dominoes",
    "a row of plates, the first one pushed: n=10 spacing=0.1 push=2 mu=0.5 density=1000",
    { { "n", 10, 1, 1, 100000 },
      { "spacing", 0.1, 0, 0.0, BIG },
      { "push", 2.0, 0, -BIG, BIG },
      MU_KEY,
      DENSITY_KEY },
    5,
    dyn_scene_build_dominoes },
  { "cradle",
    "a row of spheres hit by the first one, no gravity: n=5 speed=1 gap=0.005 "
    "restitution=1 density=1000",
    { { "n", 5, 1, 2, 100000 },
      { "speed", 1.0, 0, -BIG, BIG },
      { "gap", 0.005, 0, 0.0, BIG },
      { "restitution", 1.0, 0, 0.0, 1.0 },
      DENSITY_KEY },
    5,
    dyn_scene_build_cradle },
  { "racket",
    "a plate spinning near its middle axis, no gravity (Dzhanibekov flip): omega=10 "
    "perturb=0.001 density=1000",
    { { "omega", 10.0, 0, -BIG, BIG }, { "perturb", 0.001, 0, -BIG, BIG }, DENSITY_KEY },
    3,
    dyn_scene_build_racket },
  { "pendulum",
    "a sphere (r 0.01 m) on a massless link, hinged to the world at the origin "
    "(axis y), no contact: length=1 angle_deg=5 mass=1",
    { { "length", 1.0, 0, 0.0, BIG },
      { "angle_deg", 5.0, 0, -180.0, 180.0 },
      { "mass", 1.0, 0, 0.0, BIG } },
    3,
    dyn_scene_build_pendulum },
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
    dyn_scene_build_double_pendulum },
  { "chain",
    "n rods (1 cm square) hinged end to end (axis y) from the origin, released "
    "straight at angle_deg from the downward vertical, no contact: n=10 link=0.1 "
    "mass=0.1 angle_deg=90",
    { { "n", 10, 1, 1, 100 },
      { "link", 0.1, 0, 0.0, BIG },
      { "mass", 0.1, 0, 0.0, BIG },
      { "angle_deg", 90.0, 0, -180.0, 180.0 } },
    4,
    dyn_scene_build_chain },
  { "door",
    "a 4 cm plate hinged at its edge (axis z), pushed open at push rad/s, hinge limits "
    "0 .. limit_deg: width=0.8 height=2 mass=20 push=2 limit_deg=90",
    { { "width", 0.8, 0, 0.0, BIG },
      { "height", 2.0, 0, 0.0, BIG },
      { "mass", 20.0, 0, 0.0, BIG },
      { "push", 2.0, 0, -BIG, BIG },
      { "limit_deg", 90.0, 0, 0.0, 359.0 } },
    5,
    dyn_scene_build_door },
  { "wheel",
    "a 5 cm disc on a hinge (axis x) driven by a motor to speed rad/s with at most "
    "torque N m, from rest: radius=0.3 mass=2 speed=10 torque=5",
    { { "radius", 0.3, 0, 0.0, BIG },
      { "mass", 2.0, 0, 0.0, BIG },
      { "speed", 10.0, 0, -BIG, BIG },
      { "torque", 5.0, 0, 0.0, BIG } },
    4,
    dyn_scene_build_wheel },
  { "slider",
    "a 0.1 m cube on a slider (axis angle_deg from the vertical) falling to its "
    "limit, displacement lo .. hi m: lo=-0.5 hi=0.5 mass=1 angle_deg=30",
    { { "lo", -0.5, 0, -BIG, BIG },
      { "hi", 0.5, 0, -BIG, BIG },
      { "mass", 1.0, 0, 0.0, BIG },
      { "angle_deg", 30.0, 0, -180.0, 180.0 } },
    4,
    dyn_scene_build_slider },
  { "car",
    "a 2 x 1 x 0.3 m chassis on four sphere wheels (r 0.3 m, 10 kg) on hinge-2 joints "
    "with motors, on the floor: speed=5 torque=20 mu=1 mass=100",
    { { "speed", 5.0, 0, -BIG, BIG },
      { "torque", 20.0, 0, 0.0, BIG },
      { "mu", 1.0, 0, 0.0, BIG },
      { "mass", 100.0, 0, 0.0, BIG } },
    4,
    dyn_scene_build_car },
  { "slider_crank",
    "a closed loop: crank (hinge at the origin, motor), connecting rod, piston "
    "on a slider along x: crank=0.2 rod=0.6 speed=6.283 torque=50",
    { { "crank", 0.2, 0, 0.0, BIG },
      { "rod", 0.6, 0, 0.0, BIG },
      { "speed", 6.283, 0, -BIG, BIG },
      { "torque", 50.0, 0, 0.0, BIG } },
    4,
    dyn_scene_build_slider_crank },
  { "ragdoll",
    "10 bodies (torso, head, arms, legs) on ball joints and limited hinges, "
    "dropped on the floor turning: height=0.5 push=1 mu=0.5",
    { { "height", 0.5, 0, 0.0, BIG }, { "push", 1.0, 0, -BIG, BIG }, MU_KEY },
    3,
    dyn_scene_build_ragdoll },
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

/* One "key=value" parameter into c->v (seen[k] marks the keys given). */
static dyn_err parse_param(scene_ctx *c, const char *kv, int *seen, const char *keys) {
  const scene_def *d = c->def;
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv) {
    scmsg(c, "parameter '%s' is not key=value (keys: %s)", kv, keys);
    return DYN_ERR_INPUT;
  }
  size_t klen = (size_t)(eq - kv);
  int k = 0;
  while (k < d->nkeys &&
         !(strlen(d->keys[k].key) == klen && strncmp(d->keys[k].key, kv, klen) == 0))
    k++;
  if (k == d->nkeys) {
    scmsg(c, "unknown key '%.*s' (keys: %s)", (int)klen, kv, keys);
    return DYN_ERR_INPUT;
  }
  const scene_key *sk = &d->keys[k];
  if (seen[k]) {
    scmsg(c, "key '%s' given twice", sk->key);
    return DYN_ERR_INPUT;
  }
  seen[k] = 1;
  double v;
  if (slv_parse_double(eq + 1, SLV_PARSE_FINITE, &v) != SLV_PARSE_OK) {
    scmsg(c, "%s='%s' is not a number", sk->key, eq + 1);
    return DYN_ERR_INPUT;
  }
  if (must_be_positive(sk->key) && !(v > 0.0)) {
    scmsg(c, "%s=%g must be > 0", sk->key, v);
    return DYN_ERR_INPUT;
  }
  if (sk->integer && v != floor(v)) {
    scmsg(c, "%s=%g must be a whole number", sk->key, v);
    return DYN_ERR_INPUT;
  }
  if (v < sk->lo || v > sk->hi) {
    if (sk->hi >= BIG)
      scmsg(c, "%s=%g must be >= %g", sk->key, v, sk->lo);
    else
      scmsg(c, "%s=%g must be in [%g, %g]", sk->key, v, sk->lo, sk->hi);
    return DYN_ERR_INPUT;
  }
  c->v[k] = v;
  return DYN_OK;
}

/* "unknown scene 'NAME' (known: ...)" */
static void unknown_scene(const char *name, char *msg, size_t msgcap) {
  char list[256];
  size_t used = 0;
  list[0] = '\0';
  for (int i = 0; i < NSCENES; i++) {
    int r = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", scenes[i].name);
    if (r < 0 || (size_t)r >= sizeof list - used) break;
    used += (size_t)r;
  }
  if (msg && msgcap) snprintf(msg, msgcap, "unknown scene '%s' (known: %s)", name, list);
}

dyn_err dyn_scene_model(const char *name, const char *const *params, int nparams, dyn_model **out,
                        char *msg, size_t msgcap) {
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
    unknown_scene(c.name, msg, msgcap);
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
    dyn_err e = parse_param(&c, params[p] ? params[p] : "", seen, keys);
    if (e != DYN_OK) return e;
  }
  if (dyn_model_new(&c.m) != DYN_OK) {
    scmsg(&c, "out of memory for its model");
    return DYN_ERR_NOMEM;
  }
  dyn_err e = d->build(&c);
  if (e != DYN_OK) {
    dyn_model_free(c.m);
    return e;
  }
  *out = c.m;
  return DYN_OK;
}

dyn_err dyn_scene_new(const char *name, const char *const *params, int nparams,
                      const dyn_world_settings *base, dyn_world **out, char *msg, size_t msgcap) {
  if (!out) {
    if (msg && msgcap) snprintf(msg, msgcap, "scene '%s': out is NULL", name ? name : "(null)");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  dyn_model *m = NULL;
  dyn_err e = dyn_scene_model(name, params, nparams, &m, msg, msgcap);
  if (e != DYN_OK) return e;
  /* the contacts take the scene's material; gravity and the restitution
   * threshold are the model's unless base gives them; the world holds the
   * model (dyn_model_free lets this holder go) */
  dyn_world_settings s = base ? *base : dyn_world_settings_default();
  e = dyn_world_new_from_model(m, &s, out, msg, msgcap);
  dyn_model_free(m);
  return e;
}
