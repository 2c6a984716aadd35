/*
 * scenes.c -- the named scenes of `lcplab simulate` / `export`: bodies,
 * static half-spaces and physical settings (gravity, mu, restitution),
 * built from "key=value" parameters.
 *
 * incline, stack, pyramid and pile reproduce ../shared/peers/scenes
 * (README.md "Scenes (exact definitions)", src/main.cpp) one to one, with
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
 *     `gap` apart, the first moving at +speed; no gravity and no strings
 *     (libdynamics has no joints yet), so it shows the impulse passing
 *     along the row, which is what the cradle is about.
 *   racket (omega, perturb): a 0.4 x 0.2 x 0.04 m plate (I_x < I_y < I_z)
 *     spinning at w = omega (perturb, 1, 0) about its middle axis y, no
 *     gravity, no contact: the intermediate-axis (Dzhanibekov) flip, growth
 *     rate omega sqrt((I_y - I_x)(I_z - I_y) / (I_x I_z)).
 * Every density defaults to 1000 kg/m^3.
 *
 * Errors: unknown scene, unknown or repeated key, a value that is not one
 * finite number, an integer key that is not whole or out of range, density
 * or mass <= 0, mu < 0, restitution outside [0, 1]: DYN_ERR_INPUT with one
 * line naming the scene and the key.  Limitations: only these scenes; the
 * peers' scenes take mu and density only as given above.
 */
#include "dyn_world.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_PI 3.14159265358979323846 /* M_PI, which strict C11 does not define */
#define SC_MAXKEYS 8

typedef struct scene_key {
  const char *key;
  double def;
  int integer; /* 1: a whole number */
  double lo, hi; /* closed range */
} scene_key;

typedef struct scene_ctx {
  const char *name;
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
  if (!c->msg || c->cap == 0)
    return;
  int k = snprintf(c->msg, c->cap, "scene '%s': ", c->name);
  if (k < 0 || (size_t)k >= c->cap)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->msg + k, c->cap - (size_t)k, fmt, ap);
  va_end(ap);
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
static dyn_err sc_plate(scene_ctx *c, dyn_v3 side, double density, dyn_v3 pos, dyn_v3 v,
                        dyn_v3 w) {
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

/* splitmix64 (the peers' Rng). */
static uint64_t splitmix_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

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

#define TRY(expr)                                                                             \
  do {                                                                                        \
    dyn_err e_ = (expr);                                                                      \
    if (e_ != DYN_OK)                                                                         \
      return e_;                                                                              \
  } while (0)

/* keys: height, radius, mass, restitution, mu */
static dyn_err build_ball(scene_ctx *c) {
  double height = c->v[0], r = c->v[1], mass = c->v[2];
  if (height < r) {
    scmsg(c, "height=%g must be >= radius=%g (the ball would start in the floor)", height, r);
    return DYN_ERR_INPUT;
  }
  sc_physics(c, -9.81, c->v[4], c->v[3], 2.0 * 9.81 * c->set.dt);
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
  double angle = c->v[0];
  sc_physics(c, -9.81, c->v[1], 0.0, 0.0);
  TRY(sc_world(c, 2));
  double a = angle * SC_PI / 180.0;
  const double s = 0.2, gap = 1e-4;
  double n[3] = { -sin(a), 0, cos(a) };
  double h = s / 2 + gap;
  TRY(sc_cube(c, s, c->v[2], dyn_v3_make(n[0] * h, n[1] * h, n[2] * h),
              dyn_quat_make(cos(-a / 2), 0, sin(-a / 2), 0)));
  return sc_plane(c, n[0], n[1], n[2], 0);
}

/* keys: n, mu, density */
static dyn_err build_stack(scene_ctx *c) {
  int N = (int)c->v[0];
  sc_physics(c, -9.81, c->v[1], 0.0, 0.0);
  TRY(sc_world(c, N + 1));
  const double s = 0.2, gz = 0.001;
  for (int k = 0; k < N; ++k)
    TRY(sc_cube(c, s, c->v[2], dyn_v3_make(0, 0, s / 2 + gz + k * (s + gz)), dyn_quat_identity()));
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: layers, mu, density */
static dyn_err build_pyramid(scene_ctx *c) {
  int L = (int)c->v[0];
  sc_physics(c, -9.81, c->v[1], 0.0, 0.0);
  TRY(sc_world(c, L * (L + 1) / 2 + 1));
  const double s = 0.2, gx = 0.01, gz = 0.001;
  for (int j = 0; j < L; ++j)
    for (int i = 0; i < L - j; ++i)
      TRY(sc_cube(c, s, c->v[2],
                  dyn_v3_make((i - (L - j - 1) / 2.0) * (s + gx), 0.0, s / 2 + gz + j * (s + gz)),
                  dyn_quat_identity()));
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: n, seed, mu, density */
static dyn_err build_pile(scene_ctx *c) {
  int N = (int)c->v[0];
  uint64_t rng = (uint64_t)c->v[1];
  sc_physics(c, -9.81, c->v[2], 0.0, 0.0);
  TRY(sc_world(c, N + 5));
  const double r = 0.05, g = 0.01, p = 2 * r + g;
  int k = (int)ceil(sqrt(N / 8.0));
  double W = 2 * r * k;
  int m = (int)floor((W - 2 * r - 2 * g) / p + 1e-9) + 1;
  if (m < 1)
    m = 1;
  double x0 = -(m - 1) * p / 2.0;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  for (int i = 0; i < N; ++i) {
    int layer = i / (m * m), rem = i % (m * m), ix = rem % m, iy = rem / m;
    double x = x0 + ix * p + splitmix_uniform(&rng, -g / 4, g / 4);
    double y = x0 + iy * p + splitmix_uniform(&rng, -g / 4, g / 4);
    double z = r + g + layer * p;
    TRY(sc_sphere(c, r, c->v[3], dyn_v3_make(x, y, z), zero));
  }
  TRY(sc_plane(c, 0, 0, 1, 0));
  TRY(sc_plane(c, 1, 0, 0, -W / 2));
  TRY(sc_plane(c, -1, 0, 0, -W / 2));
  TRY(sc_plane(c, 0, 1, 0, -W / 2));
  return sc_plane(c, 0, -1, 0, -W / 2);
}

/* keys: n, spacing, push, mu, density */
static dyn_err build_dominoes(scene_ctx *c) {
  int N = (int)c->v[0];
  double spacing = c->v[1];
  sc_physics(c, -9.81, c->v[3], 0.0, 0.0);
  TRY(sc_world(c, N + 1));
  const dyn_v3 side = dyn_v3_make(0.02, 0.1, 0.2);
  for (int i = 0; i < N; i++) {
    /* the first plate turns about its bottom +x edge: w = (0, push, 0),
     * v = w x (centre - edge) = push (h/2, 0, t/2) */
    double push = i == 0 ? c->v[2] : 0.0;
    TRY(sc_plate(c, side, c->v[4], dyn_v3_make(i * spacing, 0.0, side.z / 2 + 0.001),
                 dyn_v3_make(push * side.z / 2, 0.0, push * side.x / 2),
                 dyn_v3_make(0.0, push, 0.0)));
  }
  return sc_plane(c, 0, 0, 1, 0);
}

/* keys: n, speed, gap, restitution, density */
static dyn_err build_cradle(scene_ctx *c) {
  int N = (int)c->v[0];
  const double r = 0.05;
  sc_physics(c, 0.0, 0.0, c->v[3], 0.0);
  TRY(sc_world(c, N));
  for (int i = 0; i < N; i++)
    TRY(sc_sphere(c, r, c->v[4], dyn_v3_make(i * (2 * r + c->v[2]), 0.0, 0.0),
                  dyn_v3_make(i == 0 ? c->v[1] : 0.0, 0.0, 0.0)));
  return DYN_OK;
}

/* keys: omega, perturb, density */
static dyn_err build_racket(scene_ctx *c) {
  double omega = c->v[0];
  sc_physics(c, 0.0, 0.0, 0.0, 0.0);
  TRY(sc_world(c, 1));
  return sc_plate(c, dyn_v3_make(0.4, 0.2, 0.04), c->v[2], dyn_v3_make(0.0, 0.0, 1.0),
                  dyn_v3_make(0.0, 0.0, 0.0), dyn_v3_make(omega * c->v[1], omega, 0.0));
}

#define BIG 1e300
#define MU_KEY { "mu", 0.5, 0, 0.0, BIG }
#define DENSITY_KEY { "density", 1000.0, 0, 0.0, BIG }

static const scene_def scenes[] = {
  { "ball", "one sphere dropped on the floor: height=1 radius=0.1 mass=1 restitution=0.8 mu=0",
    { { "height", 1.0, 0, -BIG, BIG }, { "radius", 0.1, 0, 0.0, BIG }, { "mass", 1.0, 0, 0.0, BIG },
      { "restitution", 0.8, 0, 0.0, 1.0 }, { "mu", 0.0, 0, 0.0, BIG } },
    5, build_ball },
  { "incline", "one cube on a fixed slope (peers): angle_deg=30 mu=0.5 density=1000",
    { { "angle_deg", 30.0, 0, -89.999999, 89.999999 }, MU_KEY, DENSITY_KEY }, 3, build_incline },
  { "stack", "a column of cubes (peers): n=10 mu=0.5 density=1000",
    { { "n", 10, 1, 1, 100000 }, MU_KEY, DENSITY_KEY }, 3, build_stack },
  { "pyramid", "a 2-D pyramid of cubes (peers): layers=10 mu=0.5 density=1000",
    { { "layers", 10, 1, 1, 2000 }, MU_KEY, DENSITY_KEY }, 3, build_pyramid },
  { "pile", "spheres falling into a box (peers): n=500 seed=1 mu=0.5 density=1000",
    { { "n", 500, 1, 1, 2000000 }, { "seed", 1, 1, 0, 9007199254740992.0 }, MU_KEY, DENSITY_KEY },
    4, build_pile },
  { "dominoes",
    "a row of plates, the first one pushed: n=10 spacing=0.1 push=2 mu=0.5 density=1000",
    { { "n", 10, 1, 1, 100000 }, { "spacing", 0.1, 0, 0.0, BIG }, { "push", 2.0, 0, -BIG, BIG },
      MU_KEY, DENSITY_KEY },
    5, build_dominoes },
  { "cradle", "a row of spheres hit by the first one, no gravity: n=5 speed=1 gap=0.001 "
              "restitution=1 density=1000",
    { { "n", 5, 1, 2, 100000 }, { "speed", 1.0, 0, -BIG, BIG }, { "gap", 0.001, 0, 0.0, BIG },
      { "restitution", 1.0, 0, 0.0, 1.0 }, DENSITY_KEY },
    5, build_cradle },
  { "racket", "a plate spinning near its middle axis, no gravity (Dzhanibekov flip): omega=10 "
              "perturb=0.001 density=1000",
    { { "omega", 10.0, 0, -BIG, BIG }, { "perturb", 0.001, 0, -BIG, BIG }, DENSITY_KEY }, 3,
    build_racket },
};

enum { NSCENES = (int)(sizeof scenes / sizeof scenes[0]) };

int dyn_scene_count(void) { return NSCENES; }

const char *dyn_scene_name(int i) { return (i >= 0 && i < NSCENES) ? scenes[i].name : NULL; }

const char *dyn_scene_summary(int i) {
  return (i >= 0 && i < NSCENES) ? scenes[i].summary : NULL;
}

static const scene_def *find_scene(const char *name) {
  for (int i = 0; name && i < NSCENES; i++)
    if (strcmp(scenes[i].name, name) == 0)
      return &scenes[i];
  return NULL;
}

long dyn_scene_default_steps(const char *name, double dt) {
  if (!find_scene(name) || !(dt > 0.0) || !isfinite(dt))
    return 0;
  if (strcmp(name, "incline") == 0) {
    double k = floor(1.0 / dt + 0.5); /* round(1 s / dt), as the peers */
    return k < 1 ? 1 : (k > 1e15 ? 0 : (long)k);
  }
  return 600;
}

static void key_list(const scene_def *d, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < d->nkeys; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", d->keys[k].key);
    if (r < 0 || (size_t)r >= len - used)
      return;
    used += (size_t)r;
  }
}

/* Strict: the whole string is one finite number. */
static int parse_number(const char *s, double *out) {
  if (!s || !*s || *s == ' ' || *s == '\t')
    return 0;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
    return 0;
  *out = v;
  return 1;
}

/* A key whose value must be > 0 (masses, densities, lengths, counts). */
static int must_be_positive(const char *key) {
  return strcmp(key, "mass") == 0 || strcmp(key, "density") == 0 || strcmp(key, "radius") == 0
      || strcmp(key, "spacing") == 0;
}

dyn_err dyn_scene_new(const char *name, const char *const *params, int nparams,
                      const dyn_world_settings *base, dyn_world **out, char *msg,
                      size_t msgcap) {
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
      if (r < 0 || (size_t)r >= sizeof list - used)
        break;
      used += (size_t)r;
    }
    if (msg && msgcap)
      snprintf(msg, msgcap, "unknown scene '%s' (known: %s)", c.name, list);
    return DYN_ERR_INPUT;
  }
  if (nparams < 0 || (nparams > 0 && !params)) {
    scmsg(&c, "nparams=%d with params %s", nparams, params ? "given" : "NULL");
    return DYN_ERR_INPUT;
  }
  int seen[SC_MAXKEYS] = { 0 };
  for (int k = 0; k < d->nkeys; k++)
    c.v[k] = d->keys[k].def;
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
    while (k < d->nkeys
           && !(strlen(d->keys[k].key) == klen && strncmp(d->keys[k].key, kv, klen) == 0))
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
    if (!parse_number(eq + 1, &v)) {
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
