/* config.c -- the parser of `lcplab experiment` files.
 *
 * Format (experiments/README.md, "Experiment files"): line-oriented text,
 * one "KEY VALUE..." per line, words separated by blanks, '#' at the start of
 * a word comments out the rest of the line, ${NAME} in a value expands to
 * `--var NAME=VALUE`, else to the environment's LCPLAB_NAME, else to DEFAULT
 * in ${NAME:-DEFAULT}.  Keys:
 *
 *   external NAME [format=F] [time=KEY] [verdict=KEY] [classes=C,...]
 *            [requires=PATH] [kind=scene] command TEMPLATE...
 *                                       an external solver (kind=scene: a
 *                                       scene peer, scene_peer.c), used by name in
 *                                       `solvers` (anywhere in the file,
 *                                       before its first use); {repeat} in
 *                                       TEMPLATE needs time=KEY
 *   experiment KIND [NAME]     opens a section (KIND: convergence, profile,
 *                              scaling, drift, accuracy, scenes)
 *   solvers all | externals | NAME...
 *   instances PATH...          files, folders or glob patterns
 *   generate FAMILY N... [seed=S | seeds=A-B | seeds=S,S,...]
 *   scene NAME [k=v...]        steps=K every=E friction=F solver=S are
 *                              lcplab's, a world setting's name (dt=H,
 *                              margin=M, omega=W...: exp_world_set) sets it
 *                              for the scene's runs, the rest are the
 *                              scene's parameters
 *   classes C...  tol T...  max_iter N  max_pivots N  min_runs N (repeat)  min_time S
 *   max_time S (budget)  time_limit S  tie T  seed S
 *   integrators NAME...  friction F...  compare solvers|integrators
 *   figure key=value...
 *   on_failure fallback|best|keep|stop  fallback_solver S  fallback_max_iter N
 *                              the world's failed-step policy of scene runs
 *                              (drift, accuracy; before the first section:
 *                              the whole file's)
 *
 * Every error is one line "lcplab: FILE:LINE: KEY: what" and exit status 2,
 * before anything runs.  Scene parameters are checked when the problems are
 * prepared (dyn_scene_new), still before any run.  Limitations: no quoting
 * (paths with blanks cannot be named; an external's command is run by
 * /bin/sh -c, which sees its own quotes), lines up to 4095 characters.
 */
#define _POSIX_C_SOURCE 200809L

#include "exp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dyn_world.h"

static const char *const kind_names[EXP_KIND_COUNT + 1] = { "convergence", "profile",  "scaling",
                                                            "drift",       "accuracy", "scenes",
                                                            NULL };

const char *exp_kind_str(exp_kind k) {
  return (k >= 0 && k < EXP_KIND_COUNT) ? kind_names[k] : "?";
}

int exp_kind_is_scene(exp_kind k) { return k == EXP_DRIFT || k == EXP_ACCURACY || k == EXP_SCENES; }

static const char *const class_names[EXP_CLASS_COUNT + 1] = { "lcp",  "box",        "mlcp",
                                                              "fc3d", "cone-assoc", NULL };

const char *exp_class_str(int c) { return (c >= 0 && c < EXP_CLASS_COUNT) ? class_names[c] : "?"; }

int exp_class_from_str(const char *s) {
  for (int k = 0; class_names[k]; k++)
    if (strcmp(s, class_names[k]) == 0) return k;
  return -1;
}

int exp_class_of(const io_instance *inst) {
  if (inst->ncones > 0)
    return inst->cone_law == SLV_CONE_ASSOCIATED ? EXP_CLASS_CONE_ASSOC : EXP_CLASS_FC3D;
  if (strcmp(inst->kind, "lcp") == 0) return EXP_CLASS_LCP;
  if (strcmp(inst->kind, "mlcp") == 0) return EXP_CLASS_MLCP;
  return EXP_CLASS_BOX; /* blcp, findex */
}

const char *exp_solver_name(const exp_config *cfg, const exp_solver_ref *r) {
  return r->sv ? r->sv->name : cfg->ext[r->ext].name;
}

static const char *const integrator_names[] = { "symplectic", "explicit", "verlet", NULL };
static const char *const friction_names[] = { "none", "box", "pyramid", "cone", NULL };
static const char *const formats[] = { "dat", "blcp", "lcp", "hdf5", "mtx", "own", NULL };

typedef struct parser {
  const char *file;
  int line;
  const exp_vars *vars;
  exp_config *cfg;
  int recorded; /* a plan's copy: its problems are in problems.tsv, not looked for */
} parser;

static int perr(const parser *ps, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int perr(const parser *ps, const char *key, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  exp_say(&ps->cfg->log, EXP_SAY_ERROR, "%s:%d: %s: %s", ps->file, ps->line, key, what);
  return EXP_EXIT_USAGE;
}

static int find_name(const char *v, const char *const *names) {
  for (int k = 0; names[k]; k++)
    if (strcmp(v, names[k]) == 0) return k;
  return -1;
}

static void join_names(const char *const *names, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; names[k]; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", names[k]);
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

static void solver_list(const exp_config *cfg, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  int total = slv_solver_count() + cfg->next;
  for (int i = 0; i < total; i++) {
    const char *nm =
        i < slv_solver_count() ? slv_solver_at(i)->name : cfg->ext[i - slv_solver_count()].name;
    int r = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", nm);
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

static void scene_list(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < dyn_scene_count(); i++) {
    int r = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", dyn_scene_name(i));
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

/* The value of variable name (length nl): --var, LCPLAB_NAME, or NULL.  A
 * plan's copy takes plan.vars only: what was not given when the plan was
 * made keeps its default, whatever the task's environment says. */
static const char *var_value(const parser *ps, const char *name, size_t nl) {
  for (int k = ps->vars ? ps->vars->ndef - 1 : -1; k >= 0; k--) {
    const char *d = ps->vars->def[k];
    if (strncmp(d, name, nl) == 0 && d[nl] == '=') return d + nl + 1;
  }
  if (ps->recorded) return NULL;
  char env[80];
  snprintf(env, sizeof env, "LCPLAB_%.*s", (int)nl, name);
  return getenv(env);
}

/* 1 when vars ("NAME=VALUE\n" lines) has a line for name (length nl). */
static int var_recorded(const char *vars, const char *name, size_t nl) {
  for (const char *l = vars; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
    if (strncmp(l, name, nl) == 0 && l[nl] == '=') return 1;
  return 0;
}

/* Records NAME=VALUE in cfg->used_vars (once, whatever its length), for
 * plan.vars and the tasks' keys.  -1 ok, else exit status. */
static int record_var(const parser *ps, const char *key, const char *name, size_t nl,
                      const char *val) {
  exp_config *cfg = ps->cfg;
  if (var_recorded(cfg->used_vars, name, nl)) return -1;
  size_t used = cfg->used_vars ? strlen(cfg->used_vars) : 0, vl = strlen(val);
  char *n = realloc(cfg->used_vars, used + nl + vl + 3);
  if (!n) return perr(ps, key, "out of memory");
  snprintf(n + used, nl + vl + 3, "%.*s=%s\n", (int)nl, name, val);
  cfg->used_vars = n;
  return -1;
}

const char *exp_config_vars(const exp_config *cfg) { return cfg->used_vars ? cfg->used_vars : ""; }

/* The ${NAME} or ${NAME:-DEFAULT} at c (in word): its value (--var,
 * LCPLAB_NAME, else DEFAULT copied into dbuf) in *val, a given one
 * recorded for plan.vars (a line break in it refused), and the character
 * after it in *next.  -1 ok, else exit status. */
static int var_ref(const parser *ps, const char *key, const char *word, const char *c,
                   const char **next, const char **val, char *dbuf, size_t dl) {
  const char *end = strchr(c + 2, '}');
  if (!end) return perr(ps, key, "unterminated ${ in '%s'", word);
  const char *name = c + 2, *dflt = NULL;
  size_t nl = (size_t)(end - name);
  const char *colon = memchr(name, ':', nl);
  if (colon && colon[1] == '-') {
    dflt = colon + 2;
    nl = (size_t)(colon - name);
  }
  if (nl == 0 || nl >= 64 ||
      strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                   "0123456789_") < nl)
    return perr(ps, key, "bad variable name in '%s'", word);
  *val = var_value(ps, name, nl);
  char what[EXP_PATH_MAX + 96];
  snprintf(what, sizeof what, "%s:%d: %s: ${%.*s}", ps->file, ps->line, key, (int)nl, name);
  if (*val && exp_line_safe(&ps->cfg->log, what, *val)) return EXP_EXIT_USAGE;
  /* a value given (--var, LCPLAB_NAME) is recorded; a default is the
   * file's own text */
  int rc = *val ? record_var(ps, key, name, nl, *val) : -1;
  if (rc >= 0) return rc;
  if (!*val && dflt) {
    snprintf(dbuf, dl, "%.*s", (int)(end - dflt), dflt);
    *val = dbuf;
  }
  if (!*val)
    return perr(ps, key, "undefined variable ${%.*s} (give --var %.*s=VALUE or set LCPLAB_%.*s)",
                (int)nl, name, (int)nl, name, (int)nl, name);
  *next = end + 1;
  return -1;
}

/* Expands ${NAME} and ${NAME:-DEFAULT} in word into out (size len).  -1 ok,
 * else exit status. */
static int expand(const parser *ps, const char *key, const char *word, char *out, size_t len) {
  size_t o = 0;
  for (const char *c = word; *c;) {
    if (c[0] == '$' && c[1] == '{') {
      const char *val = NULL;
      char dbuf[EXP_PATH_MAX];
      int rc = var_ref(ps, key, word, c, &c, &val, dbuf, sizeof dbuf);
      if (rc >= 0) return rc;
      size_t vl = strlen(val);
      if (o + vl >= len) return perr(ps, key, "value too long after expanding '%s'", word);
      memcpy(out + o, val, vl);
      o += vl;
    } else {
      if (o + 1 >= len) return perr(ps, key, "value too long: '%s'", word);
      out[o++] = *c++;
    }
  }
  out[o] = '\0';
  return -1;
}

static int num(const parser *ps, const char *key, const char *v, double lo, double *out) {
  double d;
  if (slv_parse_double(v, SLV_PARSE_FINITE, &d) != SLV_PARSE_OK || !(d > lo)) {
    char lim[32];
    snprintf(lim, sizeof lim, "%g", lo);
    return perr(ps, key, "expected a finite number > %s, got '%s'", lim, v);
  }
  *out = d;
  return -1;
}

/* num, and at most EXP_TIME_MAX_S: a time that reaches a generated script */
static int seconds(const parser *ps, const char *key, const char *v, double lo, double *out) {
  int rc = num(ps, key, v, lo, out);
  if (rc < 0 && *out > EXP_TIME_MAX_S)
    return perr(ps, key, "expected at most %g s, got '%s'", EXP_TIME_MAX_S, v);
  return rc;
}

static int whole(const parser *ps, const char *key, const char *v, long lo, long hi, long *out) {
  long d;
  if (slv_parse_long(v, &d) != SLV_PARSE_OK || d < lo || d > hi) {
    char lim[64];
    snprintf(lim, sizeof lim, "%ld and %ld", lo, hi);
    return perr(ps, key, "expected an integer between %s, got '%s'", lim, v);
  }
  *out = d;
  return -1;
}

static int one_value(const parser *ps, const char *key, int nw) {
  return nw != 2 ? perr(ps, key, "expected one value") : -1;
}

static int resolve(const exp_config *cfg, const char *p, char *out, size_t len) {
  int r = (p[0] == '/') ? snprintf(out, len, "%s", p) : snprintf(out, len, "%s/%s", cfg->dir, p);
  return (r >= 0 && (size_t)r < len) ? 0 : -1;
}

static exp_source *add_source(exp_section *s) {
  if (s->nsrc == s->capsrc) {
    int cap = s->capsrc ? 2 * s->capsrc : 8;
    exp_source *n = realloc(s->src, (size_t)cap * sizeof *n);
    if (!n) return NULL;
    s->src = n;
    s->capsrc = cap;
  }
  exp_source *src = &s->src[s->nsrc++];
  memset(src, 0, sizeof *src);
  src->friction = -2;
  return src;
}

/* A comma-separated class list into a bit mask.  -1 ok, else exit status. */
static int class_mask(const parser *ps, const char *key, const char *v, unsigned *mask) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", v);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int c = exp_class_from_str(t);
    if (c < 0) {
      char list[128];
      join_names(class_names, list, sizeof list);
      return perr(ps, key, "unknown class '%s' (known: %s)", t, list);
    }
    *mask |= 1u << c;
  }
  return -1;
}

/* ---- keys of sections -------------------------------------------------------------- */

#define K_PROB  ((1u << EXP_CONVERGENCE) | (1u << EXP_PROFILE) | (1u << EXP_SCALING))
#define K_STEPS ((1u << EXP_DRIFT) | (1u << EXP_ACCURACY))
#define K_SCENE (K_STEPS | (1u << EXP_SCENES))
#define K_ALL   (K_PROB | K_SCENE)

typedef int (*key_fn)(const parser *ps, exp_section *s, char **w, int nw);

typedef struct key_rule {
  const char *key;
  unsigned kinds;
  key_fn fn;
} key_rule;

/* An external in a convergence section: it reports no history, and its
 * row would not be a convergence row (experiments/README.md, "External
 * solvers"). */
static int no_history(const parser *ps, const char *key, const char *name) {
  return perr(ps, key,
              "external solver '%s' has no iteration history: a convergence section takes "
              "built-in solvers (compare it in a profile or scaling section)",
              name);
}

/* Adds the name of an external left out (requires= not found) to s->absent, once. */
static void note_absent(exp_section *s, const char *name) {
  size_t used = strlen(s->absent), nl = strlen(name);
  for (const char *p = strstr(s->absent, name); p; p = strstr(p + 1, name))
    if ((p == s->absent || p[-1] == ' ') && (p[nl] == ',' || p[nl] == '\0')) return;
  snprintf(s->absent + used, sizeof s->absent - used, "%s%s", used ? ", " : "", name);
}

static int key_solvers(const parser *ps, exp_section *s, char **w, int nw) {
  const exp_config *cfg = ps->cfg;
  s->solvers_given = 1;
  for (int k = 1; k < nw; k++) {
    if (strcmp(w[k], "all") == 0) {
      /* every algorithm; not auto, which runs one of them (name it to compare it) */
      for (int i = 0; i < slv_solver_count() && s->nsolvers < EXP_MAX_SOLVERS; i++)
        if (strcmp(slv_solver_at(i)->name, "auto") != 0)
          s->solvers[s->nsolvers++] = (exp_solver_ref){ slv_solver_at(i), -1 };
      continue;
    }
    if (strcmp(w[k], "externals") == 0) {
      int want_scene = s->kind == EXP_SCENES;
      if (exp_kind_is_scene(s->kind) && !want_scene)
        return perr(ps, w[0], "external solvers take problems, not scenes");
      for (int i = 0; i < cfg->next; i++)
        if (s->kind == EXP_CONVERGENCE && !cfg->ext[i].scene)
          return no_history(ps, w[0], cfg->ext[i].name);
      for (int i = 0; i < cfg->next && s->nsolvers < EXP_MAX_SOLVERS; i++)
        if (cfg->ext[i].scene != want_scene)
          continue;
        else if (cfg->ext[i].available)
          s->solvers[s->nsolvers++] = (exp_solver_ref){ NULL, i };
        else
          note_absent(s, cfg->ext[i].name);
      continue;
    }
    const slv_solver *sv = slv_solver_find(w[k]);
    int ext = -1;
    for (int i = 0; !sv && i < cfg->next; i++)
      if (strcmp(cfg->ext[i].name, w[k]) == 0) ext = i;
    if (!sv && ext < 0) {
      char list[1024];
      solver_list(cfg, list, sizeof list);
      return perr(ps, w[0],
                  "unknown solver '%s' (known: %s; externals are declared before "
                  "their use)",
                  w[k], list);
    }
    if (ext >= 0 && cfg->ext[ext].scene && s->kind != EXP_SCENES)
      return perr(ps, w[0], "'%s' is a scene peer (kind=scene): it runs in scenes sections", w[k]);
    if (ext >= 0 && !cfg->ext[ext].scene && exp_kind_is_scene(s->kind))
      return perr(ps, w[0], "external solver '%s' takes problems, not scenes", w[k]);
    if (ext >= 0 && s->kind == EXP_CONVERGENCE) return no_history(ps, w[0], w[k]);
    if (s->nsolvers >= EXP_MAX_SOLVERS) return perr(ps, w[0], "more than 64 solvers");
    if (ext >= 0 && !cfg->ext[ext].available) {
      note_absent(s, w[k]); /* left out: reported once by the command, named in the CSV */
      continue;
    }
    s->solvers[s->nsolvers++] = (exp_solver_ref){ sv, ext };
  }
  return -1;
}

static int key_instances(const parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    exp_source *src = add_source(s);
    if (!src) return perr(ps, w[0], "out of memory");
    src->kind = EXP_SRC_FILE;
    src->line = ps->line;
    if (resolve(ps->cfg, w[k], src->path, sizeof src->path))
      return perr(ps, w[0], "path too long: '%s'", w[k]);
    if (ps->recorded || strpbrk(src->path, "*?["))
      continue; /* a plan's copy, or a glob pattern: matched when the problems are prepared */
    struct stat st;
    if (stat(src->path, &st) != 0) return perr(ps, w[0], "%s: %s", src->path, strerror(errno));
  }
  return -1;
}

/* seeds=A-B or seeds=S,S,... or seed=S into seeds (size 64); count in *ns. */
static int parse_seeds(const parser *ps, const char *v, int range_ok, unsigned long *seeds,
                       int *ns) {
  long a, b;
  const char *dash = strchr(v, '-');
  if (range_ok && dash && dash != v) {
    char left[32];
    snprintf(left, sizeof left, "%.*s", (int)(dash - v), v);
    int rc;
    if ((rc = whole(ps, "generate seeds", left, 0, LONG_MAX, &a)) >= 0 ||
        (rc = whole(ps, "generate seeds", dash + 1, 0, LONG_MAX, &b)) >= 0)
      return rc;
    if (b < a || b - a >= 64 - *ns)
      return perr(ps, "generate seeds",
                  "expected A-B with A <= B and at most 64 seeds in all, got '%s'", v);
    for (long x = a; x <= b; x++) seeds[(*ns)++] = (unsigned long)x;
    return -1;
  }
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int rc = whole(ps, "generate seed", t, 0, LONG_MAX, &a);
    if (rc >= 0) return rc;
    if (*ns >= 64) return perr(ps, "generate seeds", "at most 64 seeds");
    seeds[(*ns)++] = (unsigned long)a;
  }
  return -1;
}

/* The families and their sizes are generate.c's (exp_generate_check). */
static int key_generate(const parser *ps, exp_section *s, char **w, int nw) {
  const char *const *families = exp_generate_families();
  if (find_name(w[1], families) < 0) {
    char list[256];
    join_names(families, list, sizeof list);
    return perr(ps, w[0], "unknown family '%s' (known: %s)", w[1], list);
  }
  unsigned long seeds[64];
  int ns = 0, rc, nsizes = 0;
  for (int k = 2; k < nw; k++) {
    if (strncmp(w[k], "seed=", 5) == 0 && (rc = parse_seeds(ps, w[k] + 5, 0, seeds, &ns)) >= 0)
      return rc;
    if (strncmp(w[k], "seeds=", 6) == 0 && (rc = parse_seeds(ps, w[k] + 6, 1, seeds, &ns)) >= 0)
      return rc;
  }
  if (ns == 0) seeds[ns++] = s->seed;
  for (int k = 2; k < nw; k++) {
    if (strncmp(w[k], "seed=", 5) == 0 || strncmp(w[k], "seeds=", 6) == 0) continue;
    long n;
    char err[256];
    if ((rc = whole(ps, w[0], w[k], 1, EXP_GEN_MAX_N_SPARSE, &n)) >= 0) return rc;
    if (exp_generate_check(w[1], n, NULL, err, sizeof err) != EXP_EXIT_OK)
      return perr(ps, w[0], "%s", err);
    nsizes++;
    for (int j = 0; j < ns; j++) {
      exp_source *src = add_source(s);
      if (!src) return perr(ps, w[0], "out of memory");
      src->kind = EXP_SRC_GEN;
      src->line = ps->line;
      snprintf(src->family, sizeof src->family, "%s", w[1]);
      src->n = n;
      src->seed = seeds[j];
    }
  }
  if (nsizes == 0) return perr(ps, w[0], "expected FAMILY N... (one or more sizes)");
  return -1;
}

/* 1 when the first kl characters of kv name a world setting. */
static int is_world_key(const char *kv, size_t kl) {
  char key[EXP_NAME_MAX];
  if (kl >= sizeof key) return 0;
  memcpy(key, kv, kl);
  key[kl] = '\0';
  return exp_world_is_setting(key);
}

/* A world setting on a scene line: checked now by the one parser
 * (exp_world_set, on the defaults), kept as written for the runs. */
static int scene_setting(const parser *ps, exp_source *src, const char *kv, size_t kl,
                         exp_kind kind) {
  char key[EXP_NAME_MAX + 8], err[1024] = "";
  snprintf(key, sizeof key, "scene %.*s", (int)kl, kv);
  if ((kind == EXP_DRIFT || kind == EXP_ACCURACY) && strncmp(kv, "integrator=", 11) == 0)
    return perr(ps, key, "the section's `integrators` key chooses them in a %s experiment",
                exp_kind_str(kind));
  dyn_world_settings scratch = dyn_world_settings_default();
  char name[EXP_NAME_MAX];
  snprintf(name, sizeof name, "%.*s", (int)kl, kv);
  if (exp_world_set(&scratch, name, kv + kl + 1, err, sizeof err) != 1)
    return perr(ps, key, "%s", err);
  if (src->nsettings >= EXP_MAX_SETTINGS || strlen(kv) >= EXP_PARAM_MAX)
    return perr(ps, key, "more than %d world settings or one longer than %d characters",
                EXP_MAX_SETTINGS, EXP_PARAM_MAX - 1);
  snprintf(src->settings[src->nsettings++], EXP_PARAM_MAX, "%s", kv);
  return -1;
}

static int scene_key(const parser *ps, exp_source *src, const char *kv, exp_kind kind) {
  int is_problem = !exp_kind_is_scene(kind);
  const char *eq = strchr(kv, '=');
  const char *v = eq + 1;
  size_t kl = (size_t)(eq - kv);
  int rc = -1;
#define IS(name) (kl == strlen(name) && strncmp(kv, name, kl) == 0)
  if (IS("steps")) {
    rc = whole(ps, "scene steps", v, 1, 100000000L, &src->steps);
  } else if (IS("every")) {
    if (!is_problem)
      return perr(ps, "scene", "every= is for problem sources (drift and accuracy run every step)");
    rc = whole(ps, "scene every", v, 1, 100000000L, &src->every);
  } else if (IS("friction")) {
    if (strcmp(v, "auto") == 0)
      src->friction = EXP_FRICTION_AUTO;
    else if ((src->friction = find_name(v, friction_names)) < 0)
      return perr(ps, "scene friction", "expected auto, none, box, pyramid or cone, got '%s'", v);
  } else if (IS("solver")) {
    if (!is_problem)
      return perr(ps, "scene", "solver= is for problem sources; this kind runs its `solvers`");
    if (!slv_solver_find(v) || strlen(v) >= sizeof src->solver) {
      char list[1024];
      solver_list(ps->cfg, list, sizeof list);
      return perr(ps, "scene solver", "unknown solver '%s' (known: %s)", v, list);
    }
    snprintf(src->solver, sizeof src->solver, "%s", v);
  } else if (is_world_key(kv, kl)) {
    rc = scene_setting(ps, src, kv, kl, kind);
  } else {
    if (src->nparams >= EXP_MAX_PARAMS || strlen(kv) >= EXP_PARAM_MAX)
      return perr(ps, "scene", "too many or too long parameters at '%s'", kv);
    snprintf(src->params[src->nparams++], EXP_PARAM_MAX, "%s", kv);
  }
#undef IS
  return rc;
}

static int key_scene(const parser *ps, exp_section *s, char **w, int nw) {
  exp_source *src = add_source(s);
  if (!src) return perr(ps, "scene", "out of memory");
  src->kind = EXP_SRC_SCENE;
  src->line = ps->line;
  int known = 0;
  for (int i = 0; i < dyn_scene_count(); i++)
    if (strcmp(w[1], dyn_scene_name(i)) == 0) known = 1;
  if (!known || strlen(w[1]) >= sizeof src->scene) {
    char list[512];
    scene_list(list, sizeof list);
    return perr(ps, "scene", "unknown scene '%s' (known: %s)", w[1], list);
  }
  snprintf(src->scene, sizeof src->scene, "%s", w[1]);
  for (int k = 2; k < nw; k++) {
    const char *eq = strchr(w[k], '=');
    if (!eq || eq == w[k]) return perr(ps, "scene", "expected key=value, got '%s'", w[k]);
    int rc = scene_key(ps, src, w[k], s->kind);
    if (rc >= 0) return rc;
  }
  return -1;
}

static int key_classes(const parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    int rc = class_mask(ps, w[0], w[k], &s->classes);
    if (rc >= 0) return rc;
  }
  return -1;
}

static int key_tol(const parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > EXP_MAX_TOLS) return perr(ps, w[0], "at most 4 tolerances");
  if (s->kind != EXP_PROFILE && nw != 2)
    return perr(ps, w[0], "one tolerance (several are for profile experiments)");
  s->ntol = 0;
  for (int k = 1; k < nw; k++) {
    int rc = num(ps, w[0], w[k], 0.0, &s->tol[s->ntol++]);
    if (rc >= 0) return rc;
  }
  return -1;
}

static int key_max_iter(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  return rc >= 0 ? rc : whole(ps, w[0], w[1], 1, INT_MAX, &s->max_iter);
}

static int key_max_pivots(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  return rc >= 0 ? rc : whole(ps, w[0], w[1], 1, INT_MAX, &s->max_pivots);
}

static int key_min_runs(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  return rc >= 0 ? rc : whole(ps, w[0], w[1], 1, 100000, &s->min_runs);
}

static int key_min_time(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  return rc >= 0 ? rc : seconds(ps, w[0], w[1], -1e-300, &s->min_time);
}

static int key_max_time(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  return rc >= 0 ? rc : seconds(ps, w[0], w[1], 0.0, &s->max_time);
}

static int key_time_limit(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  return rc >= 0 ? rc : seconds(ps, w[0], w[1], 0.0, &s->time_limit);
}

static int key_tie(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  if (rc < 0 && (rc = num(ps, w[0], w[1], -1e-300, &s->tie)) < 0 && s->tie > 1.0)
    rc = perr(ps, w[0], "expected a tolerance in [0, 1] (0.05 = 5 %%), got '%s'", w[1]);
  return rc;
}

static int key_seed(const parser *ps, exp_section *s, char **w, int nw) {
  long v;
  int rc = one_value(ps, w[0], nw);
  if (rc < 0 && (rc = whole(ps, w[0], w[1], 0, LONG_MAX, &v)) < 0) s->seed = (unsigned long)v;
  return rc;
}

static int key_integrators(const parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > 3) return perr(ps, w[0], "at most 3 (symplectic explicit verlet)");
  s->nint = 0;
  for (int k = 1; k < nw; k++) {
    int i = find_name(w[k], integrator_names);
    if (i < 0) return perr(ps, w[0], "expected symplectic, explicit or verlet, got '%s'", w[k]);
    s->integrators[s->nint++] = i;
  }
  return -1;
}

static int key_friction(const parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > 4) return perr(ps, w[0], "at most 4 models");
  s->nfriction = 0;
  for (int k = 1; k < nw; k++) {
    int f = strcmp(w[k], "auto") == 0 ? EXP_FRICTION_AUTO : find_name(w[k], friction_names);
    if (f == -1 && strcmp(w[k], "auto") != 0)
      return perr(ps, w[0], "expected auto, none, box, pyramid or cone, got '%s'", w[k]);
    s->friction[s->nfriction++] = f;
  }
  return -1;
}

static int key_compare(const parser *ps, exp_section *s, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  if (strcmp(w[1], "integrators") == 0)
    s->compare_integrators = 1;
  else if (strcmp(w[1], "solvers") == 0)
    s->compare_integrators = 0;
  else
    return perr(ps, w[0], "expected solvers or integrators, got '%s'", w[1]);
  return -1;
}

static int key_figure(const parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    const char *v = strchr(w[k], '=');
    if (!v || w[k][0] == '=') return perr(ps, w[0], "expected key=value, got '%s'", w[k]);
    /* title= is any text (gnuplot shows it); the other values reach awk and
     * gnuplot commands (experiments/CAMPAIGNS.md, "No shell ever parses a value") */
    if (!exp_figure_value_ok(w[k], strlen(w[k])))
      return perr(ps, w[0], "'%s': a value other than title's is letters, digits and ._,+-: only",
                  w[k]);
    size_t used = strlen(s->figure);
    if (used + strlen(w[k]) + 2 >= sizeof s->figure)
      return perr(ps, w[0], "figure options longer than %zu characters", sizeof s->figure - 1);
    snprintf(s->figure + used, sizeof s->figure - used, "%s%s", used ? " " : "", w[k]);
  }
  return -1;
}

/* ---- the failed-step policy (file level or section) ------------------------------------------ */

static int key_on_failure(const parser *ps, exp_failure *f, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  for (int k = 0; strcmp(dyn_failure_policy_str((dyn_failure_policy)k), "?") != 0; k++)
    if (strcmp(w[1], dyn_failure_policy_str((dyn_failure_policy)k)) == 0) {
      f->on_failure = k;
      return -1;
    }
  return perr(ps, w[0], "expected fallback, best, keep or stop, got '%s'", w[1]);
}

static int key_fallback_solver(const parser *ps, exp_failure *f, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  if (!slv_solver_find(w[1]) || strlen(w[1]) >= sizeof f->fallback_solver) {
    char list[2048];
    solver_list(ps->cfg, list, sizeof list);
    return perr(ps, w[0], "unknown solver '%s' (known: %s)", w[1], list);
  }
  snprintf(f->fallback_solver, sizeof f->fallback_solver, "%s", w[1]);
  return -1;
}

static int key_fallback_max_iter(const parser *ps, exp_failure *f, char **w, int nw) {
  int rc = one_value(ps, w[0], nw);
  if (rc < 0) rc = whole(ps, w[0], w[1], 1, INT_MAX, &f->fallback_max_iter);
  return rc;
}

/* -1 (not a failure key) or the result of parsing it into f. */
static int failure_key(const parser *ps, exp_failure *f, char **w, int nw, int *handled) {
  *handled = 1;
  if (strcmp(w[0], "on_failure") == 0) return key_on_failure(ps, f, w, nw);
  if (strcmp(w[0], "fallback_solver") == 0) return key_fallback_solver(ps, f, w, nw);
  if (strcmp(w[0], "fallback_max_iter") == 0) return key_fallback_max_iter(ps, f, w, nw);
  *handled = 0;
  return -1;
}

/* A section's policy: its own keys, else the file's. */
static void inherit_failure(exp_failure *s, const exp_failure *file) {
  if (s->on_failure < 0) s->on_failure = file->on_failure;
  if (!s->fallback_solver[0])
    snprintf(s->fallback_solver, sizeof s->fallback_solver, "%s", file->fallback_solver);
  if (s->fallback_max_iter <= 0) s->fallback_max_iter = file->fallback_max_iter;
}

static const key_rule rules[] = {
  { "solvers", K_ALL, key_solvers },
  { "instances", K_PROB, key_instances },
  { "generate", K_PROB, key_generate },
  { "scene", (1u << EXP_CONVERGENCE) | (1u << EXP_PROFILE) | K_SCENE, key_scene },
  { "classes", K_PROB, key_classes },
  { "tol", K_ALL, key_tol },
  { "max_iter", K_ALL, key_max_iter },
  { "max_pivots", K_ALL, key_max_pivots },
  { "min_runs", K_PROB, key_min_runs },
  { "repeat", K_PROB, key_min_runs },
  { "min_time", K_PROB, key_min_time },
  { "max_time", K_PROB, key_max_time },
  { "budget", K_PROB, key_max_time },
  { "time_limit", K_ALL, key_time_limit },
  { "tie", K_PROB, key_tie },
  { "seed", K_ALL, key_seed },
  { "integrators", K_STEPS, key_integrators },
  { "friction", K_SCENE, key_friction },
  { "compare", K_STEPS, key_compare },
  { "figure", K_ALL, key_figure },
  { NULL, 0, NULL }
};

/* ---- experiment and external -------------------------------------------------------- */

static int open_section(const parser *ps, exp_config *cfg, char **w, int nw) {
  const char *key = w[0];
  if (nw < 2 || nw > 3) return perr(ps, key, "expected KIND [NAME]");
  int k = find_name(w[1], kind_names);
  if (k < 0) {
    char list[256];
    join_names(kind_names, list, sizeof list);
    return perr(ps, key, "unknown kind '%s' (known: %s)", w[1], list);
  }
  const char *name = nw == 3 ? w[2] : w[1];
  if (strlen(name) >= EXP_NAME_MAX ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(name) ||
      name[0] == '.')
    return perr(ps, key, "NAME '%s' must be letters, digits, '_', '-', '.' (not first)", name);
  for (int i = 0; i < cfg->nsec; i++)
    if (strcmp(cfg->sec[i].name, name) == 0)
      return perr(ps, key, "a section named '%s' already exists (give another NAME)", name);
  exp_section *n = realloc(cfg->sec, (size_t)(cfg->nsec + 1) * sizeof *n);
  if (!n) return perr(ps, key, "out of memory");
  cfg->sec = n;
  exp_section *s = &cfg->sec[cfg->nsec++];
  memset(s, 0, sizeof *s);
  s->kind = (exp_kind)k;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->line = s->first_line = s->last_line = ps->line;
  s->min_runs = 5;
  s->min_time = 0.1;
  s->max_time = 2.0;
  s->time_limit = exp_kind_is_scene(s->kind) ? 600.0 : 60.0;
  s->tie = -1.0; /* unset: the measured noise (tables.c, section_tie) */
  s->seed = 1;
  s->failure.on_failure = -1;
  return -1;
}

static int external_opt(const parser *ps, exp_external *e, const char *kv) {
  const char *v = strchr(kv, '=') + 1;
  if (strncmp(kv, "format=", 7) == 0) {
    if (find_name(v, formats) < 0)
      return perr(ps, "external format", "expected dat, blcp, lcp, hdf5, mtx or own, got '%s'", v);
    snprintf(e->format, sizeof e->format, "%s", v);
  } else if (strncmp(kv, "time=", 5) == 0) {
    if (strlen(v) >= sizeof e->time_key || strcmp(v, "process") == 0)
      e->time_key[0] = '\0';
    else
      snprintf(e->time_key, sizeof e->time_key, "%s", v);
  } else if (strncmp(kv, "verdict=", 8) == 0) {
    if (!v[0] || strlen(v) >= sizeof e->verdict_key)
      return perr(ps, "external verdict", "expected a key of 1 to %zu characters, got '%s'",
                  sizeof e->verdict_key - 1, v);
    snprintf(e->verdict_key, sizeof e->verdict_key, "%s", v);
  } else if (strncmp(kv, "classes=", 8) == 0) {
    return class_mask(ps, "external classes", v, &e->classes);
  } else if (strncmp(kv, "requires=", 9) == 0) {
    snprintf(e->requires, sizeof e->requires, "%s", v);
  } else if (strncmp(kv, "kind=", 5) == 0) {
    if (strcmp(v, "scene") != 0 && strcmp(v, "problem") != 0)
      return perr(ps, "external kind", "expected problem or scene, got '%s'", v);
    e->scene = strcmp(v, "scene") == 0;
  } else {
    return perr(ps, "external",
                "unknown option '%s' (format=, time=, verdict=, classes=, requires=, kind=, "
                "then command ...)",
                kv);
  }
  return -1;
}

const char *const exp_scene_ext_keys[EXP_SCENE_EXT_NKEYS] = { "{scene}",    "{steps}",
                                                              "{dt}",       "{max_iter}",
                                                              "{friction}", "{time_limit}" };

const char *const exp_ext_keys[EXP_EXT_NKEYS] = { "{in}", "{out}",   "{tol}",        "{max_iter}",
                                                  "{n}",  "{class}", "{time_limit}", "{repeat}" };

/* The placeholder at c: 1..8 for {in}..{repeat} (a scene peer's: 1..6 for
 * {scene}..{time_limit}, PARAMS_REF for {params}), 0 for ${...}, -1 none;
 * *len its length. */
enum { PARAMS_REF = 1000 };
static int placeholder_at(const exp_external *e, const char *c, size_t *len) {
  int n = e->scene ? EXP_SCENE_EXT_NKEYS : EXP_EXT_NKEYS;
  const char *const *keys = e->scene ? exp_scene_ext_keys : exp_ext_keys;
  for (int k = 0; k < n; k++)
    if (strncmp(c, keys[k], strlen(keys[k])) == 0) {
      *len = strlen(keys[k]);
      return k + 1;
    }
  if (e->scene && strncmp(c, "{params}", 8) == 0) {
    *len = 8;
    return PARAMS_REF;
  }
  return (c[0] == '$' && c[1] == '{') ? 0 : -1;
}

/* A reference of a scene peer's template: its value copied from the
 * positional parameters before they were shifted (scene_preamble), or
 * "$@", the scene's parameters.  Its length, or -1. */
static int scene_ref(char *out, size_t len, int k, int in_dquotes) {
  int r = k == PARAMS_REF
              ? snprintf(out, len, "\"$@\"")
              : snprintf(out, len, in_dquotes ? "${lcplab_v%d}" : "\"${lcplab_v%d}\"", k);
  return r < 0 || (size_t)r >= len ? -1 : r;
}

/* A scene peer's command: its values copied into lcplab_vK and shifted
 * off, so that "$@" holds the scene's parameters (--KEY VALUE words, as
 * many as the scene line has); no value is parsed by the shell. */
static int scene_preamble(const parser *ps, exp_external *e) {
  char pre[1024];
  int nv = EXP_SCENE_EXT_NKEYS + e->nvals;
  size_t o = 0;
  for (int k = 1; k <= nv && o < sizeof pre; k++)
    o += (size_t)snprintf(pre + o, sizeof pre - o, "lcplab_v%d=\"${%d}\"; ", k, k);
  if (o < sizeof pre) o += (size_t)snprintf(pre + o, sizeof pre - o, "shift %d; ", nv);
  if (o >= sizeof pre || o + strlen(e->command) >= sizeof e->command)
    return perr(ps, "external", "command longer than %zu characters", sizeof e->command - 1);
  memmove(e->command + o, e->command, strlen(e->command) + 1);
  memcpy(e->command, pre, o);
  return -1;
}

/* Keeps the value of the ${...} at c in e->vals: its positional parameter,
 * or the exit status negated (-2) with the message printed. */
static int external_value(const parser *ps, exp_external *e, const char *tmpl, const char *c,
                          const char **next) {
  const char *val = NULL;
  char dbuf[EXP_PATH_MAX];
  if (var_ref(ps, "external", tmpl, c, next, &val, dbuf, sizeof dbuf) >= 0) return -EXP_EXIT_USAGE;
  size_t used = 0;
  for (int k = 0; k < e->nvals; k++) used += strlen(e->vals + used) + 1;
  if (e->nvals == EXP_EXT_MAX_VALS || used + strlen(val) + 1 > sizeof e->vals) {
    perr(ps, "external", "%s: more than %d ${...} or their values too long", e->name,
         EXP_EXT_MAX_VALS);
    return -EXP_EXIT_USAGE;
  }
  memcpy(e->vals + used, val, strlen(val) + 1);
  return (e->scene ? EXP_SCENE_EXT_NKEYS : EXP_EXT_NKEYS) + ++e->nvals;
}

/* e->command: tmpl with every placeholder a quoted reference to a positional
 * parameter, so that /bin/sh takes its value as data (experiments/CAMPAIGNS.md,
 * "External solvers").  A placeholder inside single quotes is refused: the
 * shell cannot refer to a value there, and a nested shell would parse it. */
static int external_template(const parser *ps, exp_external *e, const char *tmpl) {
  size_t o = 0;
  int sq = 0, dq = 0;
  for (const char *c = tmpl; *c;) {
    size_t kl = 0;
    int k = placeholder_at(e, c, &kl);
    const char *next = c + kl;
    if (k >= 0 && sq)
      return perr(ps, "external", "%s: %.*s inside single quotes (use it outside quotes)", e->name,
                  k ? (int)kl : 2, c);
    if (k == 0 && (k = external_value(ps, e, tmpl, c, &next)) < 0) return -k;
    if (k == PARAMS_REF && dq)
      return perr(ps, "external", "%s: {params} inside double quotes (it is several words)",
                  e->name);
    int r = 0;
    e->uses_repeat |= !e->scene && k == EXP_EXT_NKEYS; /* {repeat} */
    if (k > 0) {
      r = e->scene ? scene_ref(e->command + o, sizeof e->command - o, k, dq)
                   : exp_template_ref(e->command + o, sizeof e->command - o, k, dq);
      c = next;
    } else {
      int esc = *c == '\\' && !sq && c[1];
      sq ^= *c == '\'' && !dq;
      dq ^= *c == '"' && !sq;
      r = (int)(1 + esc) < (int)(sizeof e->command - o) ? (int)(1 + esc) : -1;
      if (r > 0) memcpy(e->command + o, c, (size_t)r);
      c += r > 0 ? r : 0;
    }
    if (r < 0)
      return perr(ps, "external", "command longer than %zu characters", sizeof e->command - 1);
    o += (size_t)r;
  }
  e->command[o] = '\0';
  return e->scene ? scene_preamble(ps, e) : -1;
}

static int declare_external(const parser *ps, exp_config *cfg, char **w, int nw) {
  if (nw < 4) return perr(ps, "external", "expected NAME [options] command TEMPLATE...");
  if (cfg->next >= EXP_MAX_EXTERNALS)
    return perr(ps, "external", "more than %d external solvers", EXP_MAX_EXTERNALS);
  const char *name = w[1];
  if (strlen(name) >= EXP_NAME_MAX ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:") != strlen(name) ||
      slv_solver_find(name))
    return perr(ps, "external",
                "NAME '%s' must be letters, digits, '_-.:' and not a registered "
                "solver's",
                name);
  for (int i = 0; i < cfg->next; i++)
    if (strcmp(cfg->ext[i].name, name) == 0)
      return perr(ps, "external", "'%s' is declared twice", name);
  exp_external *e = &cfg->ext[cfg->next];
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", name);
  snprintf(e->format, sizeof e->format, "lcp");
  e->line = ps->line;
  int k = 2;
  for (; k < nw && strcmp(w[k], "command") != 0; k++) {
    if (!strchr(w[k], '='))
      return perr(ps, "external", "expected an option key=value or 'command', got '%s'", w[k]);
    int rc = external_opt(ps, e, w[k]);
    if (rc >= 0) return rc;
  }
  if (k >= nw - 1) return perr(ps, "external", "expected 'command TEMPLATE...' after the options");
  char tmpl[EXP_PATH_MAX];
  size_t used = 0;
  for (k++; k < nw; k++) {
    int r = snprintf(tmpl + used, sizeof tmpl - used, "%s%s", used ? " " : "", w[k]);
    if (r < 0 || (size_t)r >= sizeof tmpl - used)
      return perr(ps, "external", "command longer than %zu characters", sizeof tmpl - 1);
    used += (size_t)r;
  }
  if (e->scene && !strstr(tmpl, "{scene}"))
    return perr(ps, "external",
                "a scene peer's command must name {scene} (and prints its summary line)");
  if (!e->scene && (!strstr(tmpl, "{in}") || !strstr(tmpl, "{out}")))
    return perr(ps, "external",
                "the command must name {in} (the instance) and {out} (the "
                "solution file it writes)");
  int rc = external_template(ps, e, tmpl);
  if (rc >= 0) return rc;
  if (e->uses_repeat && !e->time_key[0])
    return perr(ps, "external",
                "%s: {repeat} needs time=KEY: the program reports its own time of one solve "
                "over the {repeat} solves it runs",
                e->name);
  e->available = !e->requires[0] || access(e->requires, X_OK) == 0;
  cfg->next++;
  return -1;
}

static int parse_line(const parser *ps, exp_config *cfg, char **w, int nw) {
  const char *key = w[0];
  if (strcmp(key, "experiment") == 0) return open_section(ps, cfg, w, nw);
  if (strcmp(key, "external") == 0) return declare_external(ps, cfg, w, nw);
  int handled, rc;
  exp_section *cur = cfg->nsec > 0 ? &cfg->sec[cfg->nsec - 1] : NULL;
  int is_failure_key = strcmp(key, "on_failure") == 0 || strcmp(key, "fallback_solver") == 0 ||
                       strcmp(key, "fallback_max_iter") == 0;
  if (cur && is_failure_key) cur->last_line = ps->line;
  if (cur && !exp_kind_is_scene(cur->kind) && is_failure_key)
    return perr(ps, key,
                "not a key of a %s experiment (drift and accuracy only, or before the "
                "first 'experiment' line for the whole file)",
                exp_kind_str(cur->kind));
  if ((rc = failure_key(ps, cur ? &cur->failure : &cfg->failure, w, nw, &handled)) >= 0 || handled)
    return rc;
  const key_rule *rule = NULL;
  for (int k = 0; rules[k].key; k++)
    if (strcmp(key, rules[k].key) == 0) rule = &rules[k];
  if (!rule)
    return perr(ps, key,
                "unknown key (experiment, external, solvers, instances, generate, scene, "
                "classes, tol, max_iter, min_runs, min_time, max_time, time_limit, tie, "
                "seed, integrators, friction, compare, figure, on_failure, "
                "fallback_solver, fallback_max_iter)");
  if (cfg->nsec == 0) return perr(ps, key, "comes before any 'experiment KIND' line");
  exp_section *s = &cfg->sec[cfg->nsec - 1];
  s->last_line = ps->line;
  if (!(rule->kinds & (1u << s->kind)))
    return perr(ps, key, "not a key of a %s experiment", exp_kind_str(s->kind));
  if (nw < 2) return perr(ps, key, "expected a value");
  return rule->fn(ps, s, w, nw);
}

/* The checks that need the whole section. */
static int finish_section(const exp_config *cfg, exp_section *s) {
  parser ps = { cfg->path, s->line, NULL, (exp_config *)cfg, 0 };
  if (s->nsrc == 0)
    return perr(&ps, "experiment", "section '%s' names no problems (instances, generate or scene)",
                s->name);
  if (s->kind == EXP_SCALING && s->nsrc < 2)
    return perr(&ps, "experiment", "scaling '%s' needs at least two sizes", s->name);
  if (s->nsolvers == 0 && !s->solvers_given)
    for (int i = 0; i < slv_solver_count() && s->nsolvers < EXP_MAX_SOLVERS; i++)
      s->solvers[s->nsolvers++] = (exp_solver_ref){ slv_solver_at(i), -1 };
  /* one entry per solver name */
  int m = 0;
  for (int i = 0; i < s->nsolvers; i++) {
    int dup = 0;
    for (int j = 0; j < m; j++)
      dup |= s->solvers[j].sv == s->solvers[i].sv && s->solvers[j].ext == s->solvers[i].ext;
    if (!dup) s->solvers[m++] = s->solvers[i];
  }
  s->nsolvers = m;
  inherit_failure(&s->failure, &cfg->failure);
  return -1;
}

static int read_text(const char *path, exp_config *cfg) {
  FILE *f = fopen(path, "r");
  if (!f) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s: %s", path, strerror(errno));
    return EXP_EXIT_USAGE;
  }
  size_t cap = 4096, len = 0;
  cfg->text = malloc(cap);
  for (;;) {
    if (!cfg->text) {
      fclose(f);
      exp_say(&cfg->log, EXP_SAY_ERROR, "%s: out of memory", path);
      return EXP_EXIT_USAGE;
    }
    size_t got = fread(cfg->text + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
    if (len + 1 == cap) {
      if (cap > (1u << 24)) {
        fclose(f);
        exp_say(&cfg->log, EXP_SAY_ERROR, "%s: larger than 16 MB: not an experiment file", path);
        return EXP_EXIT_USAGE;
      }
      char *n = realloc(cfg->text, cap * 2);
      if (!n) free(cfg->text);
      cfg->text = n;
      cap *= 2;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s: read error", path);
    return EXP_EXIT_USAGE;
  }
  cfg->text[len] = '\0';
  if (strlen(cfg->text) != len) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s: contains a NUL byte: not an experiment file", path);
    return EXP_EXIT_USAGE;
  }
  return -1;
}

/* Splits and expands one line, then parses it.  -1 ok, else exit status. */
static int handle_line(parser *ps, exp_config *cfg, char *line) {
  char *words[512];
  static const int max_words = 512;
  int nw = 0;
  char *save = NULL;
  for (char *tok = strtok_r(line, " \t\r\f\v", &save); tok;
       tok = strtok_r(NULL, " \t\r\f\v", &save)) {
    if (tok[0] == '#') break;
    if (nw == max_words) {
      exp_say(&cfg->log, EXP_SAY_ERROR, "%s:%d: more than %d words", cfg->path, ps->line,
              max_words);
      return EXP_EXIT_USAGE;
    }
    words[nw++] = tok;
  }
  if (nw == 0) return -1;
  char exp_buf[8][EXP_PATH_MAX];
  int nexp = 0;
  /* an external's command keeps its ${NAME} for external_template */
  int last = nw;
  for (int k = 1; strcmp(words[0], "external") == 0 && k < nw && last == nw; k++)
    if (strcmp(words[k], "command") == 0) last = k;
  for (int k = 1; k < last; k++) {
    if (!strstr(words[k], "${")) continue;
    if (nexp == 8) {
      exp_say(&cfg->log, EXP_SAY_ERROR, "%s:%d: %s: more than 8 words with ${...}", cfg->path,
              ps->line, words[0]);
      return EXP_EXIT_USAGE;
    }
    int rc = expand(ps, words[0], words[k], exp_buf[nexp], EXP_PATH_MAX);
    if (rc >= 0) return rc;
    words[k] = exp_buf[nexp++];
  }
  return parse_line(ps, cfg, words, nw);
}

static int config_read(const char *path, const char *dir, const exp_vars *vars, int recorded,
                       const exp_log *log, exp_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  if (log) cfg->log = *log;
  cfg->failure.on_failure = -1;
  if (snprintf(cfg->path, sizeof cfg->path, "%s", path) >= (int)sizeof cfg->path) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s: path too long", path);
    return EXP_EXIT_USAGE;
  }
  const char *slash = strrchr(path, '/');
  if (dir)
    snprintf(cfg->dir, sizeof cfg->dir, "%s", dir);
  else if (!slash)
    snprintf(cfg->dir, sizeof cfg->dir, ".");
  else if (slash == path)
    snprintf(cfg->dir, sizeof cfg->dir, "/");
  else
    snprintf(cfg->dir, sizeof cfg->dir, "%.*s", (int)(slash - path), path);
  int rc = read_text(path, cfg);
  if (rc >= 0) return rc;

  parser ps = { cfg->path, 0, vars, cfg, recorded };
  const char *p = cfg->text;
  while (*p) {
    ps.line++;
    const char *e = strchr(p, '\n');
    size_t ll = e ? (size_t)(e - p) : strlen(p);
    char line[4096];
    if (ll >= sizeof line) {
      exp_say(&cfg->log, EXP_SAY_ERROR, "%s:%d: line longer than 4095 characters", cfg->path,
              ps.line);
      return EXP_EXIT_USAGE;
    }
    memcpy(line, p, ll);
    line[ll] = '\0';
    p += ll + (e ? 1 : 0);
    if ((rc = handle_line(&ps, cfg, line)) >= 0) return rc;
  }
  if (cfg->nsec == 0) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s: no 'experiment KIND' line: nothing to run", cfg->path);
    return EXP_EXIT_USAGE;
  }
  for (int i = 0; i < cfg->nsec; i++)
    if ((rc = finish_section(cfg, &cfg->sec[i])) >= 0) return rc;
  return -1;
}

int exp_config_read(const char *path, const char *dir, const exp_vars *vars, const exp_log *log,
                    exp_config *cfg) {
  return config_read(path, dir, vars, 0, log, cfg);
}

int exp_config_read_recorded(const char *path, const char *dir, const exp_vars *vars,
                             const exp_log *log, exp_config *cfg) {
  return config_read(path, dir, vars, 1, log, cfg);
}

void exp_config_free(exp_config *cfg) {
  for (int i = 0; i < cfg->nsec; i++) free(cfg->sec[i].src);
  free(cfg->sec);
  free(cfg->text);
  free(cfg->used_vars);
  memset(cfg, 0, sizeof *cfg);
}
