/* world_settings_names.c -- a world's settings by name: the one parser of
 * "KEY VALUE" for dyn_world_settings, used by `lcplab simulate` / `export`
 * (--KEY VALUE, dashes for underscores), by the scene lines of experiment
 * files (KEY=VALUE) and by Python's World(**settings) (dyn_world.h,
 * "settings by name"; docs/dynamics.md, "Settings by name").
 *
 * The parser turns text into the field's type and checks what the text
 * alone can say (a number, a name from the field's list, a registered
 * solver, the range an option has always had); dyn_world_settings_validate
 * judges the whole when the world is built.  The solver options among the
 * keys (max_iter, max_pivots, tol, time_limit, omega, threads) are parsed
 * and stored by libsolvers' options by name (slv_options_set, slv.h).
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_world.h"

typedef enum {
  K_DT,      /* double > 0, or A/B */
  K_POS,     /* double > 0 */
  K_NONNEG,  /* double >= 0 */
  K_UNIT,    /* double in [0, 1] */
  K_REAL,    /* any finite double */
  K_INT,     /* integer in [lo, hi] */
  K_ENUM,    /* a name of names[] (its index), or that index */
  K_ONOFF,   /* on/off, true/false, 1/0 */
  K_SOLVER,  /* a registered solver's name */
  K_GRAVITY, /* "x,y,z" */
} key_kind;

typedef struct key_def {
  const char *name;
  key_kind kind;
  size_t offset; /* in dyn_world_settings */
  long lo, hi;   /* K_INT */
  const char *const *names;
  unsigned given; /* its DYN_GIVEN_* bit: a setting a scene model also holds, or gyro */
} key_def;

static const char *const friction_names[] = { "none", "box", "pyramid", "cone", NULL };
static const char *const integrator_names[] = { "symplectic", "explicit", "verlet", NULL };
static const char *const gyro_names[] = { "none", "explicit", "implicit", NULL };
static const char *const orient_names[] = { "exp", "linear", NULL };
static const char *const storage_names[] = { "auto", "dense", "csr", "factored", NULL };
static const char *const cone_law_names[] = { "coulomb", "associated", NULL };
static const char *const order_names[] = { "broadphase", "top-down", NULL };
static const char *const islands_names[] = { "auto", "off", "on", NULL };
static const char *const on_failure_names[] = { "fallback", "best", "keep", "stop", NULL };

#define OFF(f) offsetof(dyn_world_settings, f)
static const key_def keys[] = {
  { "dt", K_DT, OFF(dt), 0, 0, NULL, DYN_GIVEN_DT },
  { "gravity", K_GRAVITY, OFF(gravity), 0, 0, NULL, DYN_GIVEN_GRAVITY },
  { "integrator", K_ENUM, OFF(integrator), 0, 0, integrator_names, 0 },
  { "gyro", K_ENUM, OFF(gyro), 0, 0, gyro_names, DYN_GIVEN_GYRO },
  { "orient", K_ENUM, OFF(orient), 0, 0, orient_names, 0 },
  { "friction", K_ENUM, OFF(contact.friction), 0, 0, friction_names, 0 },
  { "eta", K_INT, OFF(contact.eta), 3, 1024, NULL, 0 },
  { "k_erp", K_UNIT, OFF(contact.k_erp), 0, 0, NULL, 0 },
  { "slop", K_NONNEG, OFF(contact.slop), 0, 0, NULL, 0 },
  { "cfm", K_NONNEG, OFF(contact.cfm), 0, 0, NULL, 0 },
  { "max_correct_vel", K_POS, OFF(contact.max_correct_vel), 0, 0, NULL, 0 },
  { "margin", K_NONNEG, OFF(margin), 0, 0, NULL, 0 },
  { "solver", K_SOLVER, OFF(solver), 0, 0, NULL, 0 },
  { "max_iter", K_INT, OFF(opt.max_iter), 1, INT_MAX, NULL, 0 },
  { "max_pivots", K_INT, OFF(opt.max_pivots), 1, INT_MAX, NULL, 0 },
  { "tol", K_POS, OFF(opt.tol), 0, 0, NULL, 0 },
  { "time_limit", K_POS, OFF(opt.time_limit), 0, 0, NULL, 0 },
  { "omega", K_REAL, OFF(opt.omega), 0, 0, NULL, 0 },
  { "threads", K_INT, OFF(opt.threads), 1, SLV_THREADS_MAX, NULL, 0 },
  { "warm_start", K_ONOFF, OFF(warm_start), 0, 0, NULL, 0 },
  { "warm_factor", K_UNIT, OFF(warm_factor), 0, 0, NULL, 0 },
  { "storage", K_ENUM, OFF(storage), 0, 0, storage_names, 0 },
  { "dense_max_rows", K_INT, OFF(dense_max_rows), 0, INT_MAX, NULL, 0 },
  { "cone_law", K_ENUM, OFF(cone_law), 0, 0, cone_law_names, 0 },
  { "contact_order", K_ENUM, OFF(contact_order), 0, 0, order_names, 0 },
  { "on_failure", K_ENUM, OFF(on_failure), 0, 0, on_failure_names, 0 },
  { "fallback_solver", K_SOLVER, OFF(fallback_solver), 0, 0, NULL, 0 },
  { "fallback_max_iter", K_INT, OFF(fallback_max_iter), 1, INT_MAX, NULL, 0 },
  { "coarse_corrections", K_INT, OFF(coarse_corrections), 0, DYN_COARSE_MAX, NULL, 0 },
  { "islands", K_ENUM, OFF(islands), 0, 0, islands_names, 0 },
};
#undef OFF
enum { NKEYS = (int)(sizeof keys / sizeof keys[0]) };

_Static_assert(sizeof(dyn_friction) == sizeof(int) && sizeof(dyn_integrator) == sizeof(int) &&
                   sizeof(dyn_gyro) == sizeof(int) && sizeof(dyn_orient) == sizeof(int) &&
                   sizeof(dyn_storage) == sizeof(int) && sizeof(slv_cone_law) == sizeof(int) &&
                   sizeof(dyn_contact_order) == sizeof(int) &&
                   sizeof(dyn_failure_policy) == sizeof(int) &&
                   sizeof(dyn_islands_mode) == sizeof(int),
               "the settings' enums are stored as int");

/* The key's definition; dashes match underscores ("max-iter"). */
static const key_def *find_key(const char *key) {
  for (int k = 0; k < NKEYS; k++) {
    const char *a = keys[k].name, *b = key;
    while (*a && (*a == *b || (*a == '_' && *b == '-'))) a++, b++;
    if (!*a && !*b) return &keys[k];
  }
  return NULL;
}

/* A, or A/B (a time step as a fraction, e.g. 1/240). */
static int parse_ratio(const char *v, double *out) {
  const char *slash = strchr(v, '/');
  if (!slash) return slv_parse_double(v, SLV_PARSE_FINITE, out) == SLV_PARSE_OK;
  char num[64];
  size_t n = (size_t)(slash - v);
  if (n == 0 || n >= sizeof num) return 0;
  memcpy(num, v, n);
  num[n] = '\0';
  double a, b;
  if (slv_parse_double(num, SLV_PARSE_FINITE, &a) != SLV_PARSE_OK ||
      slv_parse_double(slash + 1, SLV_PARSE_FINITE, &b) != SLV_PARSE_OK || b == 0.0)
    return 0;
  *out = a / b;
  return isfinite(*out);
}

/* "one of a, b, c" into buf. */
static void name_list(const char *const *names, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "one of");
  for (int i = 0; names[i] && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s %s", i ? "," : "", names[i]);
}

/* The index of v in names (dashes and underscores alike), or its number. */
static int parse_enum(const char *const *names, const char *v, int *out) {
  for (int i = 0; names[i]; i++) {
    const char *a = names[i], *b = v;
    while (*a && (*a == *b || (*a == '-' && *b == '_'))) a++, b++;
    if (!*a && !*b) {
      *out = i;
      return 1;
    }
  }
  long n;
  int count = 0;
  while (names[count]) count++;
  if (slv_parse_long(v, &n) == SLV_PARSE_OK && n >= 0 && n < count) {
    *out = (int)n;
    return 1;
  }
  return 0;
}

static int parse_onoff(const char *v, int *out) {
  static const char *const on[] = { "on", "true", "1", "yes" }, *const off[] = { "off", "false",
                                                                                 "0", "no" };
  for (int i = 0; i < 4; i++) {
    if (strcmp(v, on[i]) == 0) return *out = 1, 1;
    if (strcmp(v, off[i]) == 0) return *out = 0, 1;
  }
  return 0;
}

static int parse_gravity(const char *v, dyn_v3 *g) {
  char buf[256];
  if (snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf) return 0;
  char *save = NULL, *p[4] = { NULL, NULL, NULL, NULL };
  p[0] = strtok_r(buf, ",", &save);
  for (int i = 1; i < 4 && p[i - 1]; i++) p[i] = strtok_r(NULL, ",", &save);
  return p[2] && !p[3] && slv_parse_double(p[0], SLV_PARSE_FINITE, &g->x) == SLV_PARSE_OK &&
         slv_parse_double(p[1], SLV_PARSE_FINITE, &g->y) == SLV_PARSE_OK &&
         slv_parse_double(p[2], SLV_PARSE_FINITE, &g->z) == SLV_PARSE_OK;
}

/* "pgs, pjacobi, ..." */
static void solver_names(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < slv_solver_count(); i++) {
    const slv_solver *s = slv_solver_at(i);
    int r = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s ? s->name : "?");
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

/* "must be <what the kind takes>, got 'v'" into err. */
static void refusal(const key_def *d, const char *v, char *err, size_t len) {
  static const char *const want[] = { [K_DT] = "a finite number > 0 (or A/B)",
                                      [K_POS] = "a finite number > 0",
                                      [K_NONNEG] = "a finite number >= 0",
                                      [K_UNIT] = "a number in [0, 1]",
                                      [K_REAL] = "a finite number" };
  if (d->kind == K_INT)
    snprintf(err, len, "must be an integer between %ld and %ld, got '%s'", d->lo, d->hi, v);
  else
    snprintf(err, len, "must be %s, got '%s'", want[d->kind], v);
}

/* A number of kind k into *at; 1, or 0 with the reason in err. */
static int set_number(const key_def *d, double *at, const char *v, char *err, size_t len) {
  double x;
  int ok = d->kind == K_DT ? parse_ratio(v, &x)
                           : slv_parse_double(v, SLV_PARSE_FINITE, &x) == SLV_PARSE_OK;
  if (ok) {
    switch (d->kind) {
    case K_DT:
    case K_POS: ok = x > 0; break;
    case K_NONNEG: ok = x >= 0; break;
    case K_UNIT: ok = x >= 0 && x <= 1; break;
    default: break;
    }
  }
  if (!ok) {
    refusal(d, v, err, len);
    return 0;
  }
  *at = x;
  return 1;
}

/* A key inside the settings' solver options (max_iter, tol, omega, ...):
 * libsolvers' options by name parse and store its text. */
static int is_option(const key_def *d) {
  size_t at = offsetof(dyn_world_settings, opt);
  return d->offset >= at && d->offset < at + sizeof(slv_options);
}

/* The option's field (at, in the options o) within the range its key has
 * always had here: K_INT [lo, hi], K_POS > 0, K_REAL any finite number. */
static int in_range(const key_def *d, const char *at) {
  int i;
  double x;
  switch (d->kind) {
  case K_INT: memcpy(&i, at, sizeof i); return i >= d->lo && i <= d->hi;
  case K_POS: memcpy(&x, at, sizeof x); return x > 0;
  default: return 1;
  }
}

/* A solver option: its text through slv_options_set (the option's type and
 * field), then the key's range above; slv_options_validate judges the
 * option's own range when the world is built. */
static int set_option(const key_def *d, slv_options *opt, const char *v, char *err, size_t len) {
  slv_options o = *opt;
  const char *at = (const char *)&o + (d->offset - offsetof(dyn_world_settings, opt));
  if (slv_options_set(&o, d->name, v, NULL, 0) == SLV_OK && in_range(d, at)) {
    *opt = o;
    return 1;
  }
  refusal(d, v, err, len);
  return 0;
}

static int set_value(const key_def *d, char *at, const char *v, char *err, size_t len) {
  char list[512];
  switch (d->kind) {
  case K_INT: {
    long n;
    if (slv_parse_long(v, &n) == SLV_PARSE_OK && n >= d->lo && n <= d->hi) {
      *(int *)(void *)at = (int)n;
      return 1;
    }
    snprintf(err, len, "must be an integer between %ld and %ld, got '%s'", d->lo, d->hi, v);
    return 0;
  }
  case K_ENUM:
    if (parse_enum(d->names, v, (int *)(void *)at)) return 1;
    name_list(d->names, list, sizeof list);
    snprintf(err, len, "must be %s, got '%s'", list, v);
    return 0;
  case K_ONOFF:
    if (parse_onoff(v, (int *)(void *)at)) return 1;
    snprintf(err, len, "must be on or off, got '%s'", v);
    return 0;
  case K_SOLVER:
    if (slv_solver_find(v) && strlen(v) < DYN_WORLD_SOLVER_NAME_MAX) {
      snprintf(at, DYN_WORLD_SOLVER_NAME_MAX, "%s", v);
      return 1;
    }
    solver_names(list, sizeof list);
    snprintf(err, len, "unknown solver '%s' (known: %s)", v, list);
    return 0;
  case K_GRAVITY:
    if (parse_gravity(v, (dyn_v3 *)(void *)at)) return 1;
    snprintf(err, len, "must be three finite numbers X,Y,Z (m/s^2), got '%s'", v);
    return 0;
  default: return set_number(d, (double *)(void *)at, v, err, len);
  }
}

int dyn_world_settings_set(dyn_world_settings *s, const char *key, const char *value, char *err,
                           size_t len) {
  const key_def *d = key ? find_key(key) : NULL;
  if (!d) return 0;
  if (!value) {
    snprintf(err, len, "needs a value");
    return -1;
  }
  if (is_option(d)) return set_option(d, &s->opt, value, err, len) ? 1 : -1;
  if (!set_value(d, (char *)s + d->offset, value, err, len)) return -1;
  s->given |= d->given; /* a setting the model also holds: the user's now */
  return 1;
}

int dyn_world_settings_overrides(const dyn_world_settings *s, const char *key) {
  const key_def *d = s && key ? find_key(key) : NULL;
  return d && (s->given & d->given & DYN_GIVEN_MODEL) != 0;
}

const char *dyn_world_settings_enum_name(const char *key, int value) {
  const key_def *d = key ? find_key(key) : NULL;
  if (!d || d->kind != K_ENUM || value < 0) return NULL;
  for (int i = 0; d->names[i]; i++)
    if (i == value) return d->names[i];
  return NULL;
}

int dyn_world_settings_is_key(const char *key) { return key && find_key(key) != NULL; }

const char *dyn_world_settings_key(int i) { return i >= 0 && i < NKEYS ? keys[i].name : NULL; }
