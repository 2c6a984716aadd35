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
 *                              scaling, drift, accuracy, scenes, gradients)
 *   solvers all | externals | NAME...
 *   instances PATH...          files, folders or glob patterns
 *   generate FAMILY N... [seed=S | seeds=A-B | seeds=S,S,...]
 *   scene NAME [k=v...]        steps=K every=E friction=F solver=S are
 *                              lcplab's, a world setting's name (dt=H,
 *                              margin=M, omega=W...:
 *                              dyn_world_settings_set) sets it for the
 *                              scene's runs, the rest are the scene's
 *                              parameters
 *   classes C...  tol T...  max_iter N  max_pivots N  min_runs N (repeat)  min_time S
 *   max_time S (budget)  time_limit S  tie T  replicates R  seed S
 *   integrators NAME...  friction F...  compare solvers|integrators
 *   figure key=value...
 *   allow_loose_tol yes|no     a tol >= 1 (which x = 0 meets) is refused
 *                              without it (before the first section: the
 *                              whole file's)
 *   on_failure fallback|best|keep|stop  fallback_solver S  fallback_max_iter N
 *                              the world's failed-step policy of scene runs
 *                              (drift, accuracy; before the first section:
 *                              the whole file's)
 *
 * This file reads the file line by line (variables expanded: config_parse.c)
 * and opens the sections; config_keys.c parses the keys of a section,
 * config_external.c the `external` lines, names.c holds the names of kinds
 * and classes.
 *
 * Every error is one line "lcplab: FILE:LINE: KEY: what" and exit status 2,
 * before anything runs.  Scene parameters are checked when the problems are
 * prepared (dyn_scene_new), still before any run.  Limitations: no quoting
 * (paths with blanks cannot be named; an external's command is run by
 * /bin/sh -c, which sees its own quotes), lines up to 4095 characters.
 */
#define _POSIX_C_SOURCE 200809L

#include "exp_config.h"
#include "exp_strmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- sections ---------------------------------------------------------------------- */

/* Room for one more section: the array doubles when nsec reaches a power
 * of two (its capacity, never stored: the smallest power of two >= nsec),
 * and the map of names, which borrows them, is made anew then.  Linear in
 * the sections, not quadratic.  0, or -1 out of memory. */
static int grow_sections(const exp_cfg_parser *ps, exp_config *cfg) {
  int n = cfg->nsec;
  if (n > 0 && (n & (n - 1)) != 0) return 0;
  exp_section *sec = realloc(cfg->sec, (size_t)(n > 0 ? 2 * n : 1) * sizeof *sec);
  if (!sec) return -1;
  cfg->sec = sec;
  exp_strmap_free(ps->sections);
  for (int i = 0; i < n; i++)
    if (exp_strmap_put(ps->sections, 0, cfg->sec[i].name, i) != 0) return -1;
  return 0;
}

static int open_section(const exp_cfg_parser *ps, exp_config *cfg, char **w, int nw) {
  const char *key = w[0];
  if (nw < 2 || nw > 3) return exp_cfg_error(ps, key, "expected KIND [NAME]");
  int k = exp_cfg_find_name(w[1], exp_cfg_kind_names);
  if (k < 0) {
    char list[256];
    exp_cfg_join_names(exp_cfg_kind_names, list, sizeof list);
    return exp_cfg_error(ps, key, "unknown kind '%s' (known: %s)", w[1], list);
  }
  const char *name = nw == 3 ? w[2] : w[1];
  if (strlen(name) >= EXP_NAME_MAX ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != strlen(name) ||
      name[0] == '.')
    return exp_cfg_error(ps, key, "NAME '%s' must be letters, digits, '_', '-', '.' (not first)",
                         name);
  if (exp_strmap_get(ps->sections, 0, name) >= 0)
    return exp_cfg_error(ps, key, "a section named '%s' already exists (give another NAME)", name);
  if (grow_sections(ps, cfg) != 0) return exp_cfg_error(ps, key, "out of memory");
  exp_section *s = &cfg->sec[cfg->nsec++];
  memset(s, 0, sizeof *s);
  s->kind = (exp_kind)k;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->line = s->first_line = s->last_line = ps->line;
  s->min_runs = s->kind == EXP_GRADIENTS ? 1 : 5; /* gradients: `repeat`, the fastest of */
  s->replicates = 1;
  s->min_time = 0.1;
  s->max_time = 2.0;
  s->time_limit = exp_kind_is_scene(s->kind) ? 600.0 : 60.0;
  s->tie = -1.0; /* unset: the measured noise (tables_timing.c, exp_section_tie) */
  s->seed = 1;
  s->opt = slv_options_default();
  s->failure.on_failure = -1;
  s->allow_loose_tol = -1;
  return exp_strmap_put(ps->sections, 0, s->name, cfg->nsec - 1) == 0
             ? -1
             : exp_cfg_error(ps, key, "out of memory");
}

/* `plugin PATH` (docs/plugins.md, "C plugins"): the plugin loaded now, so
 * that the lines after it may name its solvers; PATH relative to the
 * file's folder.  A plan's copy of the file loads it again (nothing, when
 * plugins.tsv loaded it already). */
static int cfg_plugin(const exp_cfg_parser *ps, const exp_config *cfg, char **w, int nw) {
  if (nw != 2) return exp_cfg_error(ps, w[0], "expected one path (the plugin's .so)");
  char path[EXP_PATH_MAX], err[EXP_PATH_MAX + 512];
  int r = w[1][0] == '/' ? snprintf(path, sizeof path, "%s", w[1])
                         : snprintf(path, sizeof path, "%s/%s", cfg->dir, w[1]);
  if (r < 0 || (size_t)r >= sizeof path) return exp_cfg_error(ps, w[0], "path too long");
  if (exp_plugin_load(path, err, sizeof err) != 0) return exp_cfg_error(ps, w[0], "%s", err);
  return -1;
}

static int parse_line(const exp_cfg_parser *ps, exp_config *cfg, char **w, int nw) {
  const char *key = w[0];
  if (strcmp(key, "plugin") == 0) return cfg_plugin(ps, cfg, w, nw);
  if (strcmp(key, "experiment") == 0) return open_section(ps, cfg, w, nw);
  if (strcmp(key, "external") == 0) return exp_cfg_external(ps, cfg, w, nw);
  return exp_cfg_key(ps, cfg, w, nw);
}

/* The checks that need the whole section. */
static int finish_section(const exp_config *cfg, exp_section *s) {
  exp_cfg_parser ps = { cfg->path, s->line, NULL, (exp_config *)cfg, 0, NULL };
  if (s->nsrc == 0)
    return exp_cfg_error(&ps, "experiment",
                         "section '%s' names no problems (instances, generate or scene)", s->name);
  if (s->kind == EXP_SCALING && s->nsrc < 2)
    return exp_cfg_error(&ps, "experiment", "scaling '%s' needs at least two sizes", s->name);
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
  exp_cfg_inherit_failure(&s->failure, &cfg->failure);
  /* a tol >= 1 accepts x = 0: only when asked (docs/convergence.md, "Loose tolerances") */
  int allow = s->allow_loose_tol >= 0 ? s->allow_loose_tol : cfg->allow_loose_tol;
  char why[160];
  for (int k = 0; k < s->ntol; k++)
    if (slv_tol_check(s->tol[k], allow, why, sizeof why) != SLV_OK) {
      ps.line = s->tol_line;
      return exp_cfg_error(&ps, "tol", "%s; add 'allow_loose_tol yes' to run it", why);
    }
  return -1;
}

/* The file, a regular one (io_open_regular: a FIFO is refused without
 * waiting for a writer, /dev/zero before it is read), of at most 16 MB. */
static int read_text(const char *path, exp_config *cfg) {
  char why[EXP_PATH_MAX + 128];
  int fd;
  FILE *f = NULL;
  if (io_open_regular(path, &fd, NULL, why, sizeof why) == SLV_OK && !(f = fdopen(fd, "r"))) {
    close(fd);
    snprintf(why, sizeof why, "%s: %s", path, strerror(errno));
  }
  if (!f) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s", why);
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
static int handle_line(exp_cfg_parser *ps, exp_config *cfg, char *line) {
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
    int rc = exp_cfg_expand(ps, words[0], words[k], exp_buf[nexp], EXP_PATH_MAX);
    if (rc >= 0) return rc;
    words[k] = exp_buf[nexp++];
  }
  return parse_line(ps, cfg, words, nw);
}

static int parse_lines(exp_cfg_parser *ps, exp_config *cfg);

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

  exp_strmap names = { 0 };
  exp_cfg_parser ps = { cfg->path, 0, vars, cfg, recorded, &names };
  rc = parse_lines(&ps, cfg);
  exp_strmap_free(&names);
  if (rc >= 0) return rc;
  if (cfg->nsec == 0) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "%s: no 'experiment KIND' line: nothing to run", cfg->path);
    return EXP_EXIT_USAGE;
  }
  for (int i = 0; i < cfg->nsec; i++)
    if ((rc = finish_section(cfg, &cfg->sec[i])) >= 0) return rc;
  return -1;
}

/* Every line of cfg->text, in order.  -1 ok, else exit status. */
static int parse_lines(exp_cfg_parser *ps, exp_config *cfg) {
  const char *p = cfg->text;
  int rc;
  while (*p) {
    ps->line++;
    const char *e = strchr(p, '\n');
    size_t ll = e ? (size_t)(e - p) : strlen(p);
    char line[4096];
    if (ll >= sizeof line) {
      exp_say(&cfg->log, EXP_SAY_ERROR, "%s:%d: line longer than 4095 characters", cfg->path,
              ps->line);
      return EXP_EXIT_USAGE;
    }
    memcpy(line, p, ll);
    line[ll] = '\0';
    p += ll + (e ? 1 : 0);
    if ((rc = handle_line(ps, cfg, line)) >= 0) return rc;
  }
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
  for (int i = 0; i < cfg->nsec; i++) {
    for (int k = 0; k < cfg->sec[i].nsrc; k++) {
      free(cfg->sec[i].src[k].path);
      free(cfg->sec[i].src[k].params);
      free(cfg->sec[i].src[k].model);
      free(cfg->sec[i].src[k].settings);
    }
    free(cfg->sec[i].src);
  }
  free(cfg->sec);
  free(cfg->text);
  free(cfg->used_vars);
  memset(cfg, 0, sizeof *cfg);
}
