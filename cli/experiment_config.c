/* experiment_config.c -- the parser of `lcplab experiment` files.
 *
 * Format (experiments/README.md, "Experiment files"): line-oriented text,
 * one "KEY VALUE..." per line, words separated by blanks, '#' to the end of
 * the line is a comment (at the start of a word), ${NAME} in a value expands
 * to `--var NAME=VALUE`, else to the environment's LCPLAB_NAME.  Keys:
 *
 *   experiment KIND [NAME]     opens a section (KIND: convergence, profile,
 *                              scaling, drift, accuracy; NAME: the output's
 *                              base name, default KIND, unique in the file)
 *   solvers all | NAME...      registry names (default: all)
 *   instances PATH...          files or folders; relative to the file's folder
 *   generate FAMILY N... [seed=S]   datasets/gen_instances families
 *   scene NAME [k=v...]        a scene; steps=K dt=H friction=F solver=S are
 *                              lcplab's, the other keys the scene's
 *   tol T...  max_iter N  repeat R  budget S  seed S
 *   integrators NAME...        symplectic explicit verlet
 *   friction auto|none|box|pyramid|cone
 *
 * Every error is one line "lcplab: FILE:LINE: KEY: what" and exit status 2,
 * before anything runs: unknown key or kind, a key the kind does not use, an
 * unknown solver, scene or family, a number that does not parse or is out of
 * range, a missing instance path, an undefined variable.  Scene parameters
 * are checked when the section is prepared (dyn_scene_new), still before any
 * run.  Limitations: no quoting (paths with blanks cannot be named), lines
 * up to 4095 characters.
 */
#define _POSIX_C_SOURCE 200809L

#include "experiment.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dyn_world.h"

static const char *const kind_names[EXP_KIND_COUNT + 1] = {"convergence", "profile", "scaling",
                                                            "drift", "accuracy", NULL};

const char *exp_kind_str(exp_kind k)
{
  return (k >= 0 && k < EXP_KIND_COUNT) ? kind_names[k] : "?";
}

static const char *const families[] = {"spd", "contact", "boxed-findex", "box", "joints", NULL};
static const char *const integrator_names[] = {"symplectic", "explicit", "verlet", NULL};
static const char *const friction_names[] = {"none", "box", "pyramid", "cone", NULL};

typedef struct parser {
  const char *file;
  int line;
  const exp_vars *vars;
} parser;

static int perr(const parser *ps, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

static int perr(const parser *ps, const char *key, const char *fmt, ...)
{
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  cli_error("%s:%d: %s: %s", ps->file, ps->line, key, what);
  return CLI_EXIT_USAGE;
}

static int find_name(const char *v, const char *const *names)
{
  for (int k = 0; names[k]; k++)
    if (strcmp(v, names[k]) == 0)
      return k;
  return -1;
}

static void join_names(const char *const *names, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; names[k]; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", names[k]);
    if (r < 0 || (size_t)r >= len - used)
      return;
    used += (size_t)r;
  }
}

static void solver_list(char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < slv_solver_count(); i++) {
    int r = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", slv_solver_at(i)->name);
    if (r < 0 || (size_t)r >= len - used)
      return;
    used += (size_t)r;
  }
}

static void scene_list(char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < dyn_scene_count(); i++) {
    int r = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", dyn_scene_name(i));
    if (r < 0 || (size_t)r >= len - used)
      return;
    used += (size_t)r;
  }
}

/* Expands ${NAME} in word into out (size len).  -1 ok, else exit status. */
static int expand(const parser *ps, const char *key, const char *word, char *out, size_t len)
{
  size_t o = 0;
  for (const char *c = word; *c;) {
    if (c[0] == '$' && c[1] == '{') {
      const char *end = strchr(c + 2, '}');
      if (!end)
        return perr(ps, key, "unterminated ${ in '%s'", word);
      char name[64];
      size_t nl = (size_t)(end - (c + 2));
      if (nl == 0 || nl >= sizeof name)
        return perr(ps, key, "bad variable name in '%s'", word);
      memcpy(name, c + 2, nl);
      name[nl] = '\0';
      const char *val = NULL;
      for (int k = ps->vars ? ps->vars->ndef - 1 : -1; k >= 0; k--) {
        const char *d = ps->vars->def[k];
        if (strncmp(d, name, nl) == 0 && d[nl] == '=') {
          val = d + nl + 1;
          break;
        }
      }
      if (!val) {
        char env[80];
        snprintf(env, sizeof env, "LCPLAB_%s", name);
        val = getenv(env);
      }
      if (!val)
        return perr(ps, key, "undefined variable ${%s} (give --var %s=VALUE or set LCPLAB_%s)",
                    name, name, name);
      size_t vl = strlen(val);
      if (o + vl >= len)
        return perr(ps, key, "value too long after expanding ${%s}", name);
      memcpy(out + o, val, vl);
      o += vl;
      c = end + 1;
    } else {
      if (o + 1 >= len)
        return perr(ps, key, "value too long: '%s'", word);
      out[o++] = *c++;
    }
  }
  out[o] = '\0';
  return -1;
}

static int num(const parser *ps, const char *key, const char *v, double lo, double *out)
{
  double d;
  if (!cli_parse_double(v, &d) || !(d > lo)) {
    char lim[32];
    snprintf(lim, sizeof lim, "%g", lo);
    return perr(ps, key, "expected a finite number > %s, got '%s'", lim, v);
  }
  *out = d;
  return -1;
}

static int whole(const parser *ps, const char *key, const char *v, long lo, long hi, long *out)
{
  long d;
  if (!cli_parse_long(v, &d) || d < lo || d > hi) {
    char lim[64];
    snprintf(lim, sizeof lim, "%ld and %ld", lo, hi);
    return perr(ps, key, "expected an integer between %s, got '%s'", lim, v);
  }
  *out = d;
  return -1;
}

static int resolve(const exp_config *cfg, const char *p, char *out, size_t len)
{
  int r = (p[0] == '/') ? snprintf(out, len, "%s", p) : snprintf(out, len, "%s/%s", cfg->dir, p);
  return (r >= 0 && (size_t)r < len) ? 0 : -1;
}

static exp_source *add_source(exp_section *s)
{
  if (s->nsrc == s->capsrc) {
    int cap = s->capsrc ? 2 * s->capsrc : 8;
    exp_source *n = realloc(s->src, (size_t)cap * sizeof *n);
    if (!n)
      return NULL;
    s->src = n;
    s->capsrc = cap;
  }
  exp_source *src = &s->src[s->nsrc++];
  memset(src, 0, sizeof *src);
  src->friction = -2;
  return src;
}

/* Which keys each kind uses (bit k = kind k). */
#define K_PROB ((1u << EXP_CONVERGENCE) | (1u << EXP_PROFILE) | (1u << EXP_SCALING))
#define K_SCENE ((1u << EXP_DRIFT) | (1u << EXP_ACCURACY))
#define K_ALL (K_PROB | K_SCENE)

typedef struct key_rule {
  const char *key;
  unsigned kinds;
} key_rule;

static const key_rule rules[] = {
  {"solvers", K_ALL},   {"instances", K_PROB}, {"generate", K_PROB},
  {"scene", (1u << EXP_CONVERGENCE) | (1u << EXP_PROFILE) | K_SCENE},
  {"tol", K_ALL},       {"max_iter", K_ALL},   {"repeat", K_PROB},
  {"budget", K_PROB},   {"seed", K_ALL},       {"integrators", K_SCENE},
  {"friction", K_SCENE}, {NULL, 0}};

static int parse_scene(const parser *ps, exp_section *s, char **w, int nw, int is_problem)
{
  exp_source *src = add_source(s);
  if (!src)
    return perr(ps, "scene", "out of memory");
  src->kind = EXP_SRC_SCENE;
  src->line = ps->line;
  if (nw < 2)
    return perr(ps, "scene", "expected a scene name");
  int known = 0;
  for (int i = 0; i < dyn_scene_count(); i++)
    if (strcmp(w[1], dyn_scene_name(i)) == 0)
      known = 1;
  if (!known || strlen(w[1]) >= sizeof src->scene) {
    char list[512];
    scene_list(list, sizeof list);
    return perr(ps, "scene", "unknown scene '%s' (known: %s)", w[1], list);
  }
  snprintf(src->scene, sizeof src->scene, "%s", w[1]);
  for (int k = 2; k < nw; k++) {
    const char *eq = strchr(w[k], '=');
    if (!eq || eq == w[k])
      return perr(ps, "scene", "expected key=value, got '%s'", w[k]);
    const char *v = eq + 1;
    size_t kl = (size_t)(eq - w[k]);
    if (kl == 5 && strncmp(w[k], "steps", 5) == 0) {
      int rc = whole(ps, "scene steps", v, 1, 100000000L, &src->steps);
      if (rc >= 0)
        return rc;
    } else if (kl == 2 && strncmp(w[k], "dt", 2) == 0) {
      int rc = num(ps, "scene dt", v, 0.0, &src->dt);
      if (rc >= 0)
        return rc;
    } else if (kl == 8 && strncmp(w[k], "friction", 8) == 0) {
      if (strcmp(v, "auto") == 0) {
        src->friction = EXP_FRICTION_AUTO;
      } else if ((src->friction = find_name(v, friction_names)) < 0) {
        return perr(ps, "scene friction", "expected auto, none, box, pyramid or cone, got '%s'", v);
      }
    } else if (kl == 6 && strncmp(w[k], "solver", 6) == 0) {
      if (!is_problem)
        return perr(ps, "scene", "solver= is for problem sources; this kind runs its `solvers`");
      if (!slv_solver_find(v) || strlen(v) >= sizeof src->solver) {
        char list[512];
        solver_list(list, sizeof list);
        return perr(ps, "scene solver", "unknown solver '%s' (known: %s)", v, list);
      }
      snprintf(src->solver, sizeof src->solver, "%s", v);
    } else {
      if (src->nparams >= CLI_MAX_PARAMS || strlen(w[k]) >= EXP_PARAM_MAX)
        return perr(ps, "scene", "too many or too long parameters at '%s'", w[k]);
      snprintf(src->params[src->nparams++], EXP_PARAM_MAX, "%s", w[k]);
    }
  }
  return -1;
}

static int parse_line(const parser *ps, exp_config *cfg, char **w, int nw)
{
  const char *key = w[0];
  if (strcmp(key, "experiment") == 0) {
    if (nw < 2 || nw > 3)
      return perr(ps, key, "expected KIND [NAME]");
    int k = find_name(w[1], kind_names);
    if (k < 0) {
      char list[256];
      join_names(kind_names, list, sizeof list);
      return perr(ps, key, "unknown kind '%s' (known: %s)", w[1], list);
    }
    const char *name = nw == 3 ? w[2] : w[1];
    if (strlen(name) >= EXP_NAME_MAX || strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
                                            strlen(name) || name[0] == '.')
      return perr(ps, key, "NAME '%s' must be letters, digits, '_', '-', '.' (not first)", name);
    for (int i = 0; i < cfg->nsec; i++)
      if (strcmp(cfg->sec[i].name, name) == 0)
        return perr(ps, key, "a section named '%s' already exists (give another NAME)", name);
    exp_section *n = realloc(cfg->sec, (size_t)(cfg->nsec + 1) * sizeof *n);
    if (!n)
      return perr(ps, key, "out of memory");
    cfg->sec = n;
    exp_section *s = &cfg->sec[cfg->nsec++];
    memset(s, 0, sizeof *s);
    s->kind = (exp_kind)k;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->line = s->first_line = s->last_line = ps->line;
    s->repeat = 3;
    s->budget = 2.0;
    s->friction = EXP_FRICTION_AUTO;
    s->seed = 1;
    return -1;
  }
  const key_rule *rule = NULL;
  for (int k = 0; rules[k].key; k++)
    if (strcmp(key, rules[k].key) == 0)
      rule = &rules[k];
  if (!rule)
    return perr(ps, key, "unknown key (experiment, solvers, instances, generate, scene, tol, "
                         "max_iter, repeat, budget, seed, integrators, friction)");
  if (cfg->nsec == 0)
    return perr(ps, key, "comes before any 'experiment KIND' line");
  exp_section *s = &cfg->sec[cfg->nsec - 1];
  s->last_line = ps->line;
  if (!(rule->kinds & (1u << s->kind)))
    return perr(ps, key, "not a key of a %s experiment", exp_kind_str(s->kind));
  if (nw < 2)
    return perr(ps, key, "expected a value");
  int rc = -1;

  if (strcmp(key, "solvers") == 0) {
    for (int k = 1; k < nw; k++) {
      if (strcmp(w[k], "all") == 0) {
        for (int i = 0; i < slv_solver_count() && s->nsolvers < EXP_MAX_SOLVERS; i++)
          s->solvers[s->nsolvers++] = slv_solver_at(i);
        continue;
      }
      const slv_solver *sv = slv_solver_find(w[k]);
      if (!sv) {
        char list[512];
        solver_list(list, sizeof list);
        return perr(ps, key, "unknown solver '%s' (known: %s)", w[k], list);
      }
      if (s->nsolvers >= EXP_MAX_SOLVERS)
        return perr(ps, key, "more than 64 solvers");
      s->solvers[s->nsolvers++] = sv;
    }
  } else if (strcmp(key, "instances") == 0) {
    for (int k = 1; k < nw; k++) {
      exp_source *src = add_source(s);
      if (!src)
        return perr(ps, key, "out of memory");
      src->kind = EXP_SRC_FILE;
      src->line = ps->line;
      if (resolve(cfg, w[k], src->path, sizeof src->path))
        return perr(ps, key, "path too long: '%s'", w[k]);
      struct stat st;
      if (stat(src->path, &st) != 0)
        return perr(ps, key, "%s: %s", src->path, strerror(errno));
    }
  } else if (strcmp(key, "generate") == 0) {
    if (find_name(w[1], families) < 0) {
      char list[128];
      join_names(families, list, sizeof list);
      return perr(ps, key, "unknown family '%s' (known: %s)", w[1], list);
    }
    unsigned long seed = s->seed;
    int nsizes = 0;
    for (int k = 2; k < nw; k++)
      if (strncmp(w[k], "seed=", 5) == 0) {
        long v;
        if ((rc = whole(ps, "generate seed", w[k] + 5, 0, LONG_MAX, &v)) >= 0)
          return rc;
        seed = (unsigned long)v;
      }
    for (int k = 2; k < nw; k++) {
      if (strncmp(w[k], "seed=", 5) == 0)
        continue;
      exp_source *src = add_source(s);
      if (!src)
        return perr(ps, key, "out of memory");
      src->kind = EXP_SRC_GEN;
      src->line = ps->line;
      snprintf(src->family, sizeof src->family, "%s", w[1]);
      if ((rc = whole(ps, key, w[k], strcmp(w[1], "boxed-findex") == 0 ? 3 : 1, 10000,
                      &src->n)) >= 0)
        return rc;
      src->seed = seed;
      nsizes++;
    }
    if (nsizes == 0)
      return perr(ps, key, "expected FAMILY N... (one or more sizes)");
  } else if (strcmp(key, "scene") == 0) {
    return parse_scene(ps, s, w, nw, s->kind == EXP_CONVERGENCE || s->kind == EXP_PROFILE);
  } else if (strcmp(key, "tol") == 0) {
    if (nw - 1 > EXP_MAX_TOLS)
      return perr(ps, key, "at most 4 tolerances");
    if (s->kind != EXP_PROFILE && nw != 2)
      return perr(ps, key, "one tolerance (several are for profile experiments)");
    s->ntol = 0;
    for (int k = 1; k < nw; k++)
      if ((rc = num(ps, key, w[k], 0.0, &s->tol[s->ntol++])) >= 0)
        return rc;
  } else if (strcmp(key, "max_iter") == 0) {
    if (nw != 2)
      return perr(ps, key, "expected one value");
    rc = whole(ps, key, w[1], 1, INT_MAX, &s->max_iter);
  } else if (strcmp(key, "repeat") == 0) {
    if (nw != 2)
      return perr(ps, key, "expected one value");
    rc = whole(ps, key, w[1], 1, 1000, &s->repeat);
  } else if (strcmp(key, "budget") == 0) {
    if (nw != 2)
      return perr(ps, key, "expected one value");
    rc = num(ps, key, w[1], 0.0, &s->budget);
  } else if (strcmp(key, "seed") == 0) {
    long v;
    if (nw != 2)
      return perr(ps, key, "expected one value");
    if ((rc = whole(ps, key, w[1], 0, LONG_MAX, &v)) < 0)
      s->seed = (unsigned long)v;
  } else if (strcmp(key, "integrators") == 0) {
    if (nw - 1 > 3)
      return perr(ps, key, "at most 3 (symplectic explicit verlet)");
    s->nint = 0;
    for (int k = 1; k < nw; k++) {
      int i = find_name(w[k], integrator_names);
      if (i < 0)
        return perr(ps, key, "expected symplectic, explicit or verlet, got '%s'", w[k]);
      s->integrators[s->nint++] = i;
    }
  } else if (strcmp(key, "friction") == 0) {
    if (nw != 2)
      return perr(ps, key, "expected one value");
    if (strcmp(w[1], "auto") == 0)
      s->friction = EXP_FRICTION_AUTO;
    else if ((s->friction = find_name(w[1], friction_names)) < 0)
      return perr(ps, key, "expected auto, none, box, pyramid or cone, got '%s'", w[1]);
  }
  return rc;
}

/* The checks that need the whole section. */
static int finish_section(const exp_config *cfg, exp_section *s)
{
  parser ps = {cfg->path, s->line, NULL};
  if (s->nsrc == 0)
    return perr(&ps, "experiment", "section '%s' names no problems (instances, generate or scene)",
                s->name);
  if (s->kind == EXP_SCALING) {
    int ngen = 0;
    for (int k = 0; k < s->nsrc; k++)
      ngen += s->src[k].kind == EXP_SRC_GEN;
    if (ngen < 2 && s->nsrc < 2)
      return perr(&ps, "experiment", "scaling '%s' needs at least two sizes", s->name);
  }
  if (s->nsolvers == 0)
    for (int i = 0; i < slv_solver_count() && s->nsolvers < EXP_MAX_SOLVERS; i++)
      s->solvers[s->nsolvers++] = slv_solver_at(i);
  return -1;
}

int exp_config_read(const char *path, const exp_vars *vars, exp_config *cfg)
{
  memset(cfg, 0, sizeof *cfg);
  if (snprintf(cfg->path, sizeof cfg->path, "%s", path) >= (int)sizeof cfg->path) {
    cli_error("%s: path too long", path);
    return CLI_EXIT_USAGE;
  }
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(cfg->dir, sizeof cfg->dir, ".");
  else if (slash == path)
    snprintf(cfg->dir, sizeof cfg->dir, "/");
  else
    snprintf(cfg->dir, sizeof cfg->dir, "%.*s", (int)(slash - path), path);

  FILE *f = fopen(path, "r");
  if (!f) {
    cli_error("%s: %s", path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  size_t cap = 4096, len = 0;
  cfg->text = malloc(cap);
  for (;;) {
    if (!cfg->text) {
      fclose(f);
      cli_error("%s: out of memory", path);
      return CLI_EXIT_USAGE;
    }
    size_t got = fread(cfg->text + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0)
      break;
    if (len + 1 == cap) {
      if (cap > (1u << 24)) {
        fclose(f);
        cli_error("%s: larger than 16 MB: not an experiment file", path);
        return CLI_EXIT_USAGE;
      }
      char *n = realloc(cfg->text, cap * 2);
      if (!n)
        free(cfg->text);
      cfg->text = n;
      cap *= 2;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    cli_error("%s: read error", path);
    return CLI_EXIT_USAGE;
  }
  cfg->text[len] = '\0';
  if (strlen(cfg->text) != len) {
    cli_error("%s: contains a NUL byte: not an experiment file", path);
    return CLI_EXIT_USAGE;
  }

  parser ps = {cfg->path, 0, vars};
  const char *p = cfg->text;
  static const int max_words = 512;
  while (*p) {
    ps.line++;
    const char *e = strchr(p, '\n');
    size_t ll = e ? (size_t)(e - p) : strlen(p);
    char line[4096];
    if (ll >= sizeof line) {
      cli_error("%s:%d: line longer than 4095 characters", cfg->path, ps.line);
      return CLI_EXIT_USAGE;
    }
    memcpy(line, p, ll);
    line[ll] = '\0';
    p += ll + (e ? 1 : 0);
    /* split into words; '#' at the start of a word ends the line */
    char *words[512];
    char exp_buf[8][EXP_PATH_MAX];
    int nw = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\f\v", &save); tok;
         tok = strtok_r(NULL, " \t\r\f\v", &save)) {
      if (tok[0] == '#')
        break;
      if (nw == max_words) {
        cli_error("%s:%d: more than %d words", cfg->path, ps.line, max_words);
        return CLI_EXIT_USAGE;
      }
      words[nw++] = tok;
    }
    if (nw == 0)
      continue;
    /* ${NAME}: expand words that use it (few per line) */
    int nexp = 0;
    for (int k = 1; k < nw; k++) {
      if (!strstr(words[k], "${"))
        continue;
      if (nexp == 8) {
        cli_error("%s:%d: %s: more than 8 words with ${...}", cfg->path, ps.line, words[0]);
        return CLI_EXIT_USAGE;
      }
      int rc = expand(&ps, words[0], words[k], exp_buf[nexp], EXP_PATH_MAX);
      if (rc >= 0)
        return rc;
      words[k] = exp_buf[nexp++];
    }
    int rc = parse_line(&ps, cfg, words, nw);
    if (rc >= 0)
      return rc;
  }
  if (cfg->nsec == 0) {
    cli_error("%s: no 'experiment KIND' line: nothing to run", cfg->path);
    return CLI_EXIT_USAGE;
  }
  for (int i = 0; i < cfg->nsec; i++) {
    int rc = finish_section(cfg, &cfg->sec[i]);
    if (rc >= 0)
      return rc;
  }
  return -1;
}

void exp_config_free(exp_config *cfg)
{
  for (int i = 0; i < cfg->nsec; i++)
    free(cfg->sec[i].src);
  free(cfg->sec);
  free(cfg->text);
  memset(cfg, 0, sizeof *cfg);
}
