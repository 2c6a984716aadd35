/* config_keys.c -- the keys of a section of an experiment file
 * (experiments/README.md, "Format"): solvers, instances, generate, scene,
 * classes, tol, max_iter, max_pivots, min_runs (repeat), min_time,
 * max_time (budget), time_limit, tie, seed, integrators, friction, compare,
 * figure, each allowed in the kinds its rule lists, and the failed-step
 * policy (on_failure, fallback_solver, fallback_max_iter) of a scene section
 * or, before the first section, of the whole file.
 */
#define _POSIX_C_SOURCE 200809L

#include "exp_config.h"
#include "exp_fidelity.h"
#include "exp_task.h"
#include "mdl.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dyn_world.h"

/* The value of the name v of the world setting key's enum (friction,
 * integrator: libdynamics' names, dyn_world_settings_enum_name; the whole
 * name, not its number), or -1. */
static int world_enum(const char *key, const char *v) {
  for (int k = 0; dyn_world_settings_enum_name(key, k); k++)
    if (strcmp(v, dyn_world_settings_enum_name(key, k)) == 0) return k;
  return -1;
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

#define K_PROB  ((1u << EXP_CONVERGENCE) | (1u << EXP_PROFILE) | (1u << EXP_SCALING))
#define K_STEPS ((1u << EXP_DRIFT) | (1u << EXP_ACCURACY))
#define K_SCENE (K_STEPS | (1u << EXP_SCENES))
#define K_GRAD  (1u << EXP_GRADIENTS)
#define K_FID   (1u << EXP_FIDELITY)
#define K_ALL   (K_PROB | K_SCENE)

typedef int (*key_fn)(const exp_cfg_parser *ps, exp_section *s, char **w, int nw);

typedef struct key_rule {
  const char *key;
  unsigned kinds;
  key_fn fn;
} key_rule;

/* An external in a convergence section: it reports no history, and its
 * row would not be a convergence row (experiments/README.md, "External
 * solvers"). */
static int no_history(const exp_cfg_parser *ps, const char *key, const char *name) {
  return exp_cfg_error(ps, key,
                       "external solver '%s' has no iteration history: a convergence section takes "
                       "built-in solvers (compare it in a profile or scaling section)",
                       name);
}

/* An external in a gradients section: its answer has no derivative the
 * library computes at the judge's modes from outside (docs/gradients.md). */
static int no_gradient(const exp_cfg_parser *ps, const char *key, const char *name) {
  return exp_cfg_error(ps, key, "external solver '%s': a gradients section takes built-in solvers",
                       name);
}

/* Adds the name of an external left out (requires= not found) to s->absent, once. */
static void note_absent(exp_section *s, const char *name) {
  size_t used = strlen(s->absent), nl = strlen(name);
  for (const char *p = strstr(s->absent, name); p; p = strstr(p + 1, name))
    if ((p == s->absent || p[-1] == ' ') && (p[nl] == ',' || p[nl] == '\0')) return;
  snprintf(s->absent + used, sizeof s->absent - used, "%s%s", used ? ", " : "", name);
}

static int key_solvers(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
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
      int want_scene = s->kind == EXP_SCENES || s->kind == EXP_FIDELITY;
      if (exp_kind_is_scene(s->kind) && !want_scene)
        return exp_cfg_error(ps, w[0], "external solvers take problems, not scenes");
      for (int i = 0; i < cfg->next; i++)
        if (s->kind == EXP_CONVERGENCE && !cfg->ext[i].scene)
          return no_history(ps, w[0], cfg->ext[i].name);
        else if (s->kind == EXP_GRADIENTS && !cfg->ext[i].scene)
          return no_gradient(ps, w[0], cfg->ext[i].name);
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
      return exp_cfg_error(ps, w[0],
                           "unknown solver '%s' (known: %s; externals are declared before "
                           "their use)",
                           w[k], list);
    }
    if (ext >= 0 && cfg->ext[ext].scene && s->kind != EXP_SCENES && s->kind != EXP_FIDELITY)
      return exp_cfg_error(ps, w[0],
                           "'%s' is a scene peer (kind=scene): it runs in scenes and fidelity "
                           "sections",
                           w[k]);
    if (ext >= 0 && !cfg->ext[ext].scene && exp_kind_is_scene(s->kind))
      return exp_cfg_error(ps, w[0], "external solver '%s' takes problems, not scenes", w[k]);
    if (ext >= 0 && s->kind == EXP_CONVERGENCE) return no_history(ps, w[0], w[k]);
    if (ext >= 0 && s->kind == EXP_GRADIENTS) return no_gradient(ps, w[0], w[k]);
    if (s->nsolvers >= EXP_MAX_SOLVERS) return exp_cfg_error(ps, w[0], "more than 64 solvers");
    if (ext >= 0 && !cfg->ext[ext].available) {
      note_absent(s, w[k]); /* left out: reported once by the command, named in the CSV */
      continue;
    }
    s->solvers[s->nsolvers++] = (exp_solver_ref){ sv, ext };
  }
  return -1;
}

static int key_instances(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    exp_source *src = add_source(s);
    if (!src) return exp_cfg_error(ps, w[0], "out of memory");
    src->kind = EXP_SRC_FILE;
    src->line = ps->line;
    char path[EXP_PATH_MAX];
    if (resolve(ps->cfg, w[k], path, sizeof path))
      return exp_cfg_error(ps, w[0], "path too long: '%s'", w[k]);
    if (!(src->path = strdup(path))) return exp_cfg_error(ps, w[0], "out of memory");
    if (ps->recorded || strpbrk(src->path, "*?["))
      continue; /* a plan's copy, or a glob pattern: matched when the problems are prepared */
    struct stat st;
    if (stat(src->path, &st) != 0)
      return exp_cfg_error(ps, w[0], "%s: %s", src->path, strerror(errno));
  }
  return -1;
}

/* seeds=A-B or seeds=S,S,... or seed=S into seeds (size 64); count in *ns. */
static int parse_seeds(const exp_cfg_parser *ps, const char *v, int range_ok, unsigned long *seeds,
                       int *ns) {
  long a, b;
  const char *dash = strchr(v, '-');
  if (range_ok && dash && dash != v) {
    char left[32];
    snprintf(left, sizeof left, "%.*s", (int)(dash - v), v);
    int rc;
    if ((rc = exp_cfg_whole(ps, "generate seeds", left, 0, LONG_MAX, &a)) >= 0 ||
        (rc = exp_cfg_whole(ps, "generate seeds", dash + 1, 0, LONG_MAX, &b)) >= 0)
      return rc;
    if (b < a || b - a >= 64 - *ns)
      return exp_cfg_error(ps, "generate seeds",
                           "expected A-B with A <= B and at most 64 seeds in all, got '%s'", v);
    for (long x = a; x <= b; x++) seeds[(*ns)++] = (unsigned long)x;
    return -1;
  }
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int rc = exp_cfg_whole(ps, "generate seed", t, 0, LONG_MAX, &a);
    if (rc >= 0) return rc;
    if (*ns >= 64) return exp_cfg_error(ps, "generate seeds", "at most 64 seeds");
    seeds[(*ns)++] = (unsigned long)a;
  }
  return -1;
}

/* The families and their sizes are generate.c's (exp_generate_check). */
static int key_generate(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  const char *const *families = exp_generate_families();
  if (exp_cfg_find_name(w[1], families) < 0) {
    char list[256];
    exp_cfg_join_names(families, list, sizeof list);
    return exp_cfg_error(ps, w[0], "unknown family '%s' (known: %s)", w[1], list);
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
    if ((rc = exp_cfg_whole(ps, w[0], w[k], 1, EXP_GEN_MAX_N_SPARSE, &n)) >= 0) return rc;
    if (exp_generate_check(w[1], n, NULL, err, sizeof err) != EXP_EXIT_OK)
      return exp_cfg_error(ps, w[0], "%s", err);
    nsizes++;
    for (int j = 0; j < ns; j++) {
      exp_source *src = add_source(s);
      if (!src) return exp_cfg_error(ps, w[0], "out of memory");
      src->kind = EXP_SRC_GEN;
      src->line = ps->line;
      snprintf(src->family, sizeof src->family, "%s", w[1]);
      src->n = n;
      src->seed = seeds[j];
    }
  }
  if (nsizes == 0) return exp_cfg_error(ps, w[0], "expected FAMILY N... (one or more sizes)");
  return -1;
}

/* 1 when the first kl characters of kv name a world setting. */
static int is_world_key(const char *kv, size_t kl) {
  char key[EXP_NAME_MAX];
  if (kl >= sizeof key) return 0;
  memcpy(key, kv, kl);
  key[kl] = '\0';
  return dyn_world_settings_is_key(key);
}

/* A world setting on a scene line: checked now by the one parser
 * (dyn_world_settings_set, on the defaults), kept as written for the runs. */
static int scene_setting(const exp_cfg_parser *ps, exp_source *src, const char *kv, size_t kl,
                         exp_kind kind) {
  char key[EXP_NAME_MAX + 8], err[1024] = "";
  snprintf(key, sizeof key, "scene %.*s", (int)kl, kv);
  if ((kind == EXP_DRIFT || kind == EXP_ACCURACY) && strncmp(kv, "integrator=", 11) == 0)
    return exp_cfg_error(ps, key, "the section's `integrators` key chooses them in a %s experiment",
                         exp_kind_str(kind));
  dyn_world_settings scratch = dyn_world_settings_default();
  char name[EXP_NAME_MAX];
  snprintf(name, sizeof name, "%.*s", (int)kl, kv);
  if (dyn_world_settings_set(&scratch, name, kv + kl + 1, err, sizeof err) != 1)
    return exp_cfg_error(ps, key, "%s", err);
  if (src->nsettings >= EXP_MAX_SETTINGS || strlen(kv) >= EXP_PARAM_MAX)
    return exp_cfg_error(ps, key, "more than %d world settings or one longer than %d characters",
                         EXP_MAX_SETTINGS, EXP_PARAM_MAX - 1);
  if (!src->settings && !(src->settings = malloc(EXP_MAX_SETTINGS * sizeof *src->settings)))
    return exp_cfg_error(ps, key, "out of memory");
  snprintf(src->settings[src->nsettings++], EXP_PARAM_MAX, "%s", kv);
  return -1;
}

static int scene_key(const exp_cfg_parser *ps, exp_source *src, const char *kv, exp_kind kind) {
  int is_problem = !exp_kind_is_scene(kind);
  const char *eq = strchr(kv, '=');
  const char *v = eq + 1;
  size_t kl = (size_t)(eq - kv);
  int rc = -1;
#define IS(name) (kl == strlen(name) && strncmp(kv, name, kl) == 0)
  if (IS("steps")) {
    rc = exp_cfg_whole(ps, "scene steps", v, 1, 100000000L, &src->steps);
  } else if (IS("every")) {
    if (!is_problem)
      return exp_cfg_error(ps, "scene",
                           "every= is for problem sources (drift and accuracy run every step)");
    rc = exp_cfg_whole(ps, "scene every", v, 1, 100000000L, &src->every);
  } else if (IS("friction")) {
    if (strcmp(v, "auto") == 0)
      src->friction = EXP_FRICTION_AUTO;
    else if ((src->friction = world_enum("friction", v)) < 0)
      return exp_cfg_error(ps, "scene friction",
                           "expected auto, none, box, pyramid or cone, got '%s'", v);
  } else if (IS("solver")) {
    if (!is_problem)
      return exp_cfg_error(ps, "scene",
                           "solver= is for problem sources; this kind runs its `solvers`");
    if (!slv_solver_find(v) || strlen(v) >= sizeof src->solver) {
      char list[1024];
      solver_list(ps->cfg, list, sizeof list);
      return exp_cfg_error(ps, "scene solver", "unknown solver '%s' (known: %s)", v, list);
    }
    snprintf(src->solver, sizeof src->solver, "%s", v);
  } else if (IS("name")) {
    if (!src->model)
      return exp_cfg_error(ps, "scene", "name= names a model file's runs (scene model=FILE)");
    if (!v[0] || strlen(v) >= sizeof src->scene ||
        strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(v))
      return exp_cfg_error(ps, "scene name",
                           "expected letters, digits, '_-.' (at most %d), got '%s'",
                           (int)sizeof src->scene - 1, v);
    snprintf(src->scene, sizeof src->scene, "%s", v);
  } else if (IS("approximate")) {
    if (!src->model)
      return exp_cfg_error(ps, "scene", "approximate= is for model files (scene model=FILE)");
    if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
      return exp_cfg_error(ps, "scene approximate", "expected yes or no, got '%s'", v);
    src->approximate = strcmp(v, "yes") == 0;
  } else if (IS("coordinates")) {
    if (!src->model)
      return exp_cfg_error(ps, "scene", "coordinates= is for model files (scene model=FILE)");
    if (strcmp(v, "reduced") != 0 && strcmp(v, "maximal") != 0)
      return exp_cfg_error(ps, "scene coordinates", "expected reduced or maximal, got '%s'", v);
    src->reduced = strcmp(v, "reduced") == 0;
  } else if (is_world_key(kv, kl)) {
    rc = scene_setting(ps, src, kv, kl, kind);
  } else {
    if (src->model)
      return exp_cfg_error(ps, "scene", "'%s': a model file has no scene parameters", kv);
    if (src->nparams >= EXP_MAX_PARAMS || strlen(kv) >= EXP_PARAM_MAX)
      return exp_cfg_error(ps, "scene", "too many or too long parameters at '%s'", kv);
    if (!src->params && !(src->params = malloc(EXP_MAX_PARAMS * sizeof *src->params)))
      return exp_cfg_error(ps, "scene", "out of memory");
    snprintf(src->params[src->nparams++], EXP_PARAM_MAX, "%s", kv);
  }
#undef IS
  return rc;
}

/* `scene model=FILE ...`: FILE resolved as a file source's, named by its
 * base name without extension; read once the line's keys are (model_check). */
static int model_scene(const exp_cfg_parser *ps, exp_source *src, const char *file) {
  if (!file[0]) return exp_cfg_error(ps, "scene model", "expected model=FILE");
  char path[EXP_PATH_MAX];
  if (resolve(ps->cfg, file, path, sizeof path))
    return exp_cfg_error(ps, "scene model", "path too long: '%s'", file);
  if (!(src->model = strdup(path))) return exp_cfg_error(ps, "scene model", "out of memory");
  src->reduced = MDL_COORDINATES_FILE; /* the file's own unless coordinates= says */
  const char *base = strrchr(src->model, '/') ? strrchr(src->model, '/') + 1 : src->model;
  snprintf(src->scene, sizeof src->scene, "%.*s", (int)sizeof src->scene - 1, base);
  char *dot = strrchr(src->scene, '.');
  if (dot && dot != src->scene) *dot = '\0';
  return -1;
}

/* A model line's file read now, with its approximate= (libmodels: a file
 * that does not load or holds a feature lcplab does not simulate is this
 * line's error). */
static int model_check(const exp_cfg_parser *ps, const exp_source *src) {
  if (ps->recorded) return -1; /* a plan's copy: read when its tasks run */
  dyn_model *m = NULL;
  char msg[1024] = "";
  if (exp_source_model(src, &m, NULL, msg, sizeof msg) != DYN_OK)
    return exp_cfg_error(ps, "scene model", "%s", msg);
  dyn_model_free(m);
  return -1;
}

/* A model line in reduced coordinates without name=: its rows are named
 * BASE_reduced, so that the same file in both representations gives rows
 * told apart (and a scenes section fits them apart). */
static int reduced_name(const exp_cfg_parser *ps, exp_source *src, char **w, int nw) {
  for (int k = 2; k < nw; k++)
    if (strncmp(w[k], "name=", 5) == 0) return -1;
  if (src->reduced != 1) return -1;
  size_t l = strlen(src->scene);
  if (l + 8 >= sizeof src->scene)
    return exp_cfg_error(ps, "scene model", "'%s': name too long for '_reduced' (give name=NAME)",
                         src->scene);
  memcpy(src->scene + l, "_reduced", 9);
  return -1;
}

/* Drift and accuracy rows are keyed by scene name: a second line of the
 * section with the same name would mix its rows with the first's. */
static int rows_name_unique(const exp_cfg_parser *ps, const exp_section *s, const exp_source *src) {
  if (!((1u << s->kind) & K_STEPS)) return -1;
  for (int i = 0; i < s->nsrc - 1; i++)
    if (s->src[i].kind == EXP_SRC_SCENE && strcmp(s->src[i].scene, src->scene) == 0)
      return exp_cfg_error(ps, "scene",
                           "'%s' already names the rows of line %d: the two lines' rows could not "
                           "be told apart (%s)",
                           src->scene, s->src[i].line,
                           src->model ? "give name=NAME"
                                      : "one line per scene in a drift or accuracy section");
  return -1;
}

/* A fidelity section's `scene NAME...` (or `all`): the benchmark's own
 * scenes (fidelity.c), one source each, without parameters. */
static int fidelity_scene(const exp_cfg_parser *ps, exp_section *s, const char *name) {
  if (exp_fid_scene_find(name) < 0) {
    char list[512];
    exp_fid_scene_list(list, sizeof list);
    return exp_cfg_error(ps, "scene", "unknown fidelity scene '%s' (known: %s, all)", name, list);
  }
  for (int k = 0; k < s->nsrc; k++)
    if (strcmp(s->src[k].scene, name) == 0)
      return exp_cfg_error(ps, "scene", "scene '%s' named twice in the section", name);
  exp_source *src = add_source(s);
  if (!src) return exp_cfg_error(ps, "scene", "out of memory");
  src->kind = EXP_SRC_SCENE;
  src->line = ps->line;
  src->friction = EXP_FRICTION_AUTO;
  snprintf(src->scene, sizeof src->scene, "%s", name);
  return -1;
}

static int key_fidelity_scenes(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = -1;
  for (int k = 1; k < nw && rc < 0; k++)
    if (strchr(w[k], '='))
      rc = exp_cfg_error(ps, "scene", "'%s': a fidelity scene takes no parameters", w[k]);
    else if (strcmp(w[k], "all") == 0)
      for (int i = 0; i < exp_fid_scene_count() && rc < 0; i++)
        rc = fidelity_scene(ps, s, exp_fid_scene_at(i)->name);
    else
      rc = fidelity_scene(ps, s, w[k]);
  return rc;
}

/* `budgets B...` (fidelity): each run's max_iter, whole numbers >= 1. */
static int key_budgets(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > EXP_MAX_BUDGETS)
    return exp_cfg_error(ps, w[0], "at most %d budgets", EXP_MAX_BUDGETS);
  s->nbudgets = 0;
  for (int k = 1; k < nw; k++) {
    int rc = exp_cfg_whole(ps, w[0], w[k], 1, INT_MAX, &s->budgets[s->nbudgets++]);
    if (rc >= 0) return rc;
  }
  return -1;
}

static int key_scene(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  if (s->kind == EXP_FIDELITY) return key_fidelity_scenes(ps, s, w, nw);
  exp_source *src = add_source(s);
  if (!src) return exp_cfg_error(ps, "scene", "out of memory");
  src->kind = EXP_SRC_SCENE;
  src->line = ps->line;
  if (strncmp(w[1], "model=", 6) == 0) {
    int rc = model_scene(ps, src, w[1] + 6);
    for (int k = 2; rc < 0 && k < nw; k++) {
      const char *eq = strchr(w[k], '=');
      if (!eq || eq == w[k])
        return exp_cfg_error(ps, "scene", "expected key=value, got '%s'", w[k]);
      rc = scene_key(ps, src, w[k], s->kind);
    }
    if (rc < 0) rc = reduced_name(ps, src, w, nw);
    if (rc < 0) rc = rows_name_unique(ps, s, src);
    return rc < 0 ? model_check(ps, src) : rc;
  }
  int known = 0;
  for (int i = 0; i < dyn_scene_count(); i++)
    if (strcmp(w[1], dyn_scene_name(i)) == 0) known = 1;
  if (!known || strlen(w[1]) >= sizeof src->scene) {
    char list[512];
    scene_list(list, sizeof list);
    return exp_cfg_error(ps, "scene", "unknown scene '%s' (known: %s)", w[1], list);
  }
  snprintf(src->scene, sizeof src->scene, "%s", w[1]);
  for (int k = 2; k < nw; k++) {
    const char *eq = strchr(w[k], '=');
    if (!eq || eq == w[k]) return exp_cfg_error(ps, "scene", "expected key=value, got '%s'", w[k]);
    int rc = scene_key(ps, src, w[k], s->kind);
    if (rc >= 0) return rc;
  }
  return rows_name_unique(ps, s, src);
}

static int key_classes(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    int rc = exp_cfg_class_mask(ps, w[0], w[k], &s->classes);
    if (rc >= 0) return rc;
  }
  return -1;
}

static int key_tol(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > EXP_MAX_TOLS) return exp_cfg_error(ps, w[0], "at most 4 tolerances");
  s->tol_line = ps->line; /* a tol >= 1 is judged with the whole section (finish_section) */
  if (s->kind != EXP_PROFILE && nw != 2)
    return exp_cfg_error(ps, w[0], "one tolerance (several are for profile experiments)");
  s->ntol = 0;
  for (int k = 1; k < nw; k++) {
    int rc = exp_cfg_num(ps, w[0], w[k], 0.0, &s->tol[s->ntol++]);
    if (rc >= 0) return rc;
  }
  return -1;
}

static int key_max_iter(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_whole(ps, w[0], w[1], 1, INT_MAX, &s->max_iter);
}

static int key_max_pivots(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_whole(ps, w[0], w[1], 1, INT_MAX, &s->max_pivots);
}

static int key_min_runs(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_whole(ps, w[0], w[1], 1, 100000, &s->min_runs);
}

static int key_replicates(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_whole(ps, w[0], w[1], 1, 10, &s->replicates);
}

static int key_min_time(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_seconds(ps, w[0], w[1], -1e-300, &s->min_time);
}

static int key_max_time(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_seconds(ps, w[0], w[1], 0.0, &s->max_time);
}

static int key_precision(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc < 0 && (rc = exp_cfg_num(ps, w[0], w[1], -1e-300, &s->precision)) < 0 &&
      s->precision >= 1.0)
    rc = exp_cfg_error(ps, w[0], "expected a share in [0, 1) (0.05 = 5 %%), got '%s'", w[1]);
  return rc;
}

static int key_time_limit(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  return rc >= 0 ? rc : exp_cfg_seconds(ps, w[0], w[1], 0.0, &s->time_limit);
}

static int key_tie(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc < 0 && (rc = exp_cfg_num(ps, w[0], w[1], -1e-300, &s->tie)) < 0 && s->tie > 1.0)
    rc = exp_cfg_error(ps, w[0], "expected a tolerance in [0, 1] (0.05 = 5 %%), got '%s'", w[1]);
  return rc;
}

static int key_seed(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  long v;
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc < 0 && (rc = exp_cfg_whole(ps, w[0], w[1], 0, LONG_MAX, &v)) < 0)
    s->seed = (unsigned long)v;
  return rc;
}

/* `option NAME=VALUE...`: libsolvers' options by name (slv.h), each
 * parsed and its range checked here, so a bad one names its line. */
static int key_option(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    char name[64], err[384];
    const char *eq = strchr(w[k], '=');
    if (!eq || eq == w[k] || (size_t)(eq - w[k]) >= sizeof name)
      return exp_cfg_error(ps, w[0], "expected NAME=VALUE (an option by name), got '%s'", w[k]);
    memcpy(name, w[k], (size_t)(eq - w[k]));
    name[eq - w[k]] = '\0';
    slv_options o = s->opt;
    if (slv_options_set(&o, name, eq + 1, err, sizeof err) != SLV_OK ||
        slv_options_validate(&o, err, sizeof err) != SLV_OK)
      return exp_cfg_error(ps, w[0], "%s", err);
    s->opt = o;
  }
  return -1;
}

static int key_integrators(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > 3) return exp_cfg_error(ps, w[0], "at most 3 (symplectic explicit verlet)");
  s->nint = 0;
  for (int k = 1; k < nw; k++) {
    int i = world_enum("integrator", w[k]);
    if (i < 0)
      return exp_cfg_error(ps, w[0], "expected symplectic, explicit or verlet, got '%s'", w[k]);
    s->integrators[s->nint++] = i;
  }
  return -1;
}

static int key_friction(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  if (nw - 1 > 4) return exp_cfg_error(ps, w[0], "at most 4 models");
  s->nfriction = 0;
  for (int k = 1; k < nw; k++) {
    int f = strcmp(w[k], "auto") == 0 ? EXP_FRICTION_AUTO : world_enum("friction", w[k]);
    if (f == -1 && strcmp(w[k], "auto") != 0)
      return exp_cfg_error(ps, w[0], "expected auto, none, box, pyramid or cone, got '%s'", w[k]);
    s->friction[s->nfriction++] = f;
  }
  return -1;
}

static int key_compare(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  if (strcmp(w[1], "integrators") == 0)
    s->compare_integrators = 1;
  else if (strcmp(w[1], "solvers") == 0)
    s->compare_integrators = 0;
  else
    return exp_cfg_error(ps, w[0], "expected solvers or integrators, got '%s'", w[1]);
  return -1;
}

static int key_figure(const exp_cfg_parser *ps, exp_section *s, char **w, int nw) {
  for (int k = 1; k < nw; k++) {
    const char *v = strchr(w[k], '=');
    if (!v || w[k][0] == '=') return exp_cfg_error(ps, w[0], "expected key=value, got '%s'", w[k]);
    /* title= is any text (gnuplot shows it); the other values reach awk and
     * gnuplot commands (experiments/CAMPAIGNS.md, "No shell ever parses a value") */
    const char *why = exp_figure_value_why(w[k], strlen(w[k]));
    if (why) return exp_cfg_error(ps, w[0], "'%s': %s", w[k], why);
    size_t used = strlen(s->figure);
    if (used + strlen(w[k]) + 2 >= sizeof s->figure)
      return exp_cfg_error(ps, w[0], "figure options longer than %zu characters",
                           sizeof s->figure - 1);
    snprintf(s->figure + used, sizeof s->figure - used, "%s%s", used ? " " : "", w[k]);
  }
  return -1;
}

/* ---- the failed-step policy (file level or section) ------------------------------------------ */

static int key_on_failure(const exp_cfg_parser *ps, exp_failure *f, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  for (int k = 0; strcmp(dyn_failure_policy_str((dyn_failure_policy)k), "?") != 0; k++)
    if (strcmp(w[1], dyn_failure_policy_str((dyn_failure_policy)k)) == 0) {
      f->on_failure = k;
      return -1;
    }
  return exp_cfg_error(ps, w[0], "expected fallback, best, keep or stop, got '%s'", w[1]);
}

static int key_fallback_solver(const exp_cfg_parser *ps, exp_failure *f, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  if (!slv_solver_find(w[1]) || strlen(w[1]) >= sizeof f->fallback_solver) {
    char list[2048];
    solver_list(ps->cfg, list, sizeof list);
    return exp_cfg_error(ps, w[0], "unknown solver '%s' (known: %s)", w[1], list);
  }
  snprintf(f->fallback_solver, sizeof f->fallback_solver, "%s", w[1]);
  return -1;
}

static int key_fallback_max_iter(const exp_cfg_parser *ps, exp_failure *f, char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc < 0) rc = exp_cfg_whole(ps, w[0], w[1], 1, INT_MAX, &f->fallback_max_iter);
  return rc;
}

/* -1 (not a failure key) or the result of parsing it into f. */
static int failure_key(const exp_cfg_parser *ps, exp_failure *f, char **w, int nw, int *handled) {
  *handled = 1;
  if (strcmp(w[0], "on_failure") == 0) return key_on_failure(ps, f, w, nw);
  if (strcmp(w[0], "fallback_solver") == 0) return key_fallback_solver(ps, f, w, nw);
  if (strcmp(w[0], "fallback_max_iter") == 0) return key_fallback_max_iter(ps, f, w, nw);
  *handled = 0;
  return -1;
}

/* A section's policy: its own keys, else the file's. */
void exp_cfg_inherit_failure(exp_failure *s, const exp_failure *file) {
  if (s->on_failure < 0) s->on_failure = file->on_failure;
  if (!s->fallback_solver[0])
    snprintf(s->fallback_solver, sizeof s->fallback_solver, "%s", file->fallback_solver);
  if (s->fallback_max_iter <= 0) s->fallback_max_iter = file->fallback_max_iter;
}

static const key_rule rules[] = {
  { "solvers", K_ALL | K_GRAD | K_FID, key_solvers },
  { "instances", K_PROB | K_GRAD, key_instances },
  { "generate", K_PROB | K_GRAD, key_generate },
  { "scene", (1u << EXP_CONVERGENCE) | (1u << EXP_PROFILE) | K_SCENE | K_GRAD | K_FID, key_scene },
  { "classes", K_PROB | K_GRAD, key_classes },
  { "tol", K_ALL | K_FID, key_tol },
  { "max_iter", K_ALL | K_FID, key_max_iter },
  { "max_pivots", K_ALL | K_FID, key_max_pivots },
  { "budgets", K_FID, key_budgets },
  { "min_runs", K_PROB | K_GRAD, key_min_runs },
  { "repeat", K_PROB | K_GRAD, key_min_runs },
  { "min_time", K_PROB, key_min_time },
  { "max_time", K_PROB, key_max_time },
  { "budget", K_PROB, key_max_time },
  { "time_limit", K_ALL | K_GRAD | K_FID, key_time_limit },
  { "tie", K_PROB, key_tie },
  { "replicates", 1u << EXP_PROFILE, key_replicates },
  { "precision", (1u << EXP_PROFILE) | (1u << EXP_SCALING), key_precision },
  { "seed", K_ALL | K_GRAD | K_FID, key_seed },
  { "option", K_PROB, key_option },
  { "integrators", K_STEPS, key_integrators },
  { "friction", K_SCENE, key_friction },
  { "compare", K_STEPS, key_compare },
  { "figure", K_ALL, key_figure },
  { NULL, 0, NULL }
};

/* `allow_loose_tol yes|no`: the section's, or before any section the
 * file's (a section without its own takes it). */
static int key_allow_loose_tol(const exp_cfg_parser *ps, exp_config *cfg, exp_section *cur,
                               char **w, int nw) {
  int rc = exp_cfg_one_value(ps, w[0], nw);
  if (rc >= 0) return rc;
  int yes = strcmp(w[1], "yes") == 0;
  if (!yes && strcmp(w[1], "no") != 0)
    return exp_cfg_error(ps, w[0], "expected yes or no, got '%s'", w[1]);
  if (cur) {
    cur->allow_loose_tol = yes;
    cur->last_line = ps->line;
  } else {
    cfg->allow_loose_tol = yes;
  }
  return -1;
}

/* A key of the current section, or a failed-step policy key of the file
 * (before the first section). */
int exp_cfg_key(const exp_cfg_parser *ps, exp_config *cfg, char **w, int nw) {
  const char *key = w[0];
  int handled, rc;
  exp_section *cur = cfg->nsec > 0 ? &cfg->sec[cfg->nsec - 1] : NULL;
  if (strcmp(key, "allow_loose_tol") == 0) return key_allow_loose_tol(ps, cfg, cur, w, nw);
  int is_failure_key = strcmp(key, "on_failure") == 0 || strcmp(key, "fallback_solver") == 0 ||
                       strcmp(key, "fallback_max_iter") == 0;
  if (cur && is_failure_key) cur->last_line = ps->line;
  if (cur && !exp_kind_is_scene(cur->kind) && is_failure_key)
    return exp_cfg_error(ps, key,
                         "not a key of a %s experiment (drift and accuracy only, or before the "
                         "first 'experiment' line for the whole file)",
                         exp_kind_str(cur->kind));
  if ((rc = failure_key(ps, cur ? &cur->failure : &cfg->failure, w, nw, &handled)) >= 0 || handled)
    return rc;
  const key_rule *rule = NULL;
  for (int k = 0; rules[k].key; k++)
    if (strcmp(key, rules[k].key) == 0) rule = &rules[k];
  if (!rule)
    return exp_cfg_error(
        ps, key,
        "unknown key (experiment, external, plugin, solvers, instances, generate, "
        "scene, classes, tol, max_iter, budgets, min_runs, min_time, max_time, "
        "time_limit, tie, replicates, precision, seed, option, integrators, friction, compare, "
        "figure, on_failure, fallback_solver, fallback_max_iter, "
        "allow_loose_tol)");
  if (cfg->nsec == 0) return exp_cfg_error(ps, key, "comes before any 'experiment KIND' line");
  exp_section *s = &cfg->sec[cfg->nsec - 1];
  s->last_line = ps->line;
  if (!(rule->kinds & (1u << s->kind)))
    return exp_cfg_error(ps, key, "not a key of a %s experiment", exp_kind_str(s->kind));
  if (nw < 2) return exp_cfg_error(ps, key, "expected a value");
  return rule->fn(ps, s, w, nw);
}
