/* config_external.c -- the `external` lines of an experiment file
 * (experiments/CAMPAIGNS.md, "External solvers"):
 *
 *   external NAME [format=F] [time=KEY] [verdict=KEY] [iterations=KEY] [ladder=K] [version=TEXT] [classes=C,...]
 *            [requires=PATH] [kind=scene] command TEMPLATE...
 *
 * The template becomes e->command with every placeholder ({in}, {out},
 * {tol}, ...; a scene peer's {scene}, {params}, ...) and every ${NAME} a
 * quoted reference to a positional parameter, so that /bin/sh takes each
 * value as data ("No shell ever parses a value", "The template rule"): a
 * placeholder stands outside quotes (inside single or double quotes, the
 * text of a nested shell, awk or python -c, it is refused), and no nested
 * shell, eval or ssh is handed text made from a value
 * (exp_nested_shell_check, nested_shell.c).
 */
#define _POSIX_C_SOURCE 200809L

#include "exp_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const formats[] = { "dat", "blcp", "lcp", "hdf5", "mtx", "own", NULL };

static int external_opt(const exp_cfg_parser *ps, exp_external *e, const char *kv) {
  const char *v = strchr(kv, '=') + 1;
  if (strncmp(kv, "format=", 7) == 0) {
    if (exp_cfg_find_name(v, formats) < 0)
      return exp_cfg_error(ps, "external format",
                           "expected dat, blcp, lcp, hdf5, mtx or own, got '%s'", v);
    snprintf(e->format, sizeof e->format, "%s", v);
  } else if (strncmp(kv, "time=", 5) == 0) {
    if (strlen(v) >= sizeof e->time_key || strcmp(v, "process") == 0)
      e->time_key[0] = '\0';
    else
      snprintf(e->time_key, sizeof e->time_key, "%s", v);
  } else if (strncmp(kv, "verdict=", 8) == 0) {
    if (!v[0] || strlen(v) >= sizeof e->verdict_key)
      return exp_cfg_error(ps, "external verdict",
                           "expected a key of 1 to %zu characters, got '%s'",
                           sizeof e->verdict_key - 1, v);
    snprintf(e->verdict_key, sizeof e->verdict_key, "%s", v);
  } else if (strncmp(kv, "iterations=", 11) == 0) {
    if (!v[0] || strlen(v) >= sizeof e->iter_key)
      return exp_cfg_error(ps, "external iterations",
                           "expected a key of 1 to %zu characters, got '%s'",
                           sizeof e->iter_key - 1, v);
    snprintf(e->iter_key, sizeof e->iter_key, "%s", v);
  } else if (strncmp(kv, "ladder=", 7) == 0) {
    char *end;
    long k = strtol(v, &end, 10);
    if (!v[0] || *end || k < 0 || k > 8)
      return exp_cfg_error(ps, "external ladder", "expected 0 to 8 rungs, got '%s'", v);
    e->ladder = (int)k;
  } else if (strncmp(kv, "version=", 8) == 0) {
    if (strlen(v) >= sizeof e->version)
      return exp_cfg_error(ps, "external version", "longer than %zu characters: '%s'",
                           sizeof e->version - 1, v);
    snprintf(e->version, sizeof e->version, "%s", v);
  } else if (strncmp(kv, "classes=", 8) == 0) {
    return exp_cfg_class_mask(ps, "external classes", v, &e->classes);
  } else if (strncmp(kv, "requires=", 9) == 0) {
    snprintf(e->requires, sizeof e->requires, "%s", v);
  } else if (strncmp(kv, "kind=", 5) == 0) {
    if (strcmp(v, "scene") != 0 && strcmp(v, "problem") != 0)
      return exp_cfg_error(ps, "external kind", "expected problem or scene, got '%s'", v);
    e->scene = strcmp(v, "scene") == 0;
  } else {
    return exp_cfg_error(
        ps, "external",
        "unknown option '%s' (format=, time=, verdict=, iterations=, ladder=, version=, classes=, "
        "requires=, kind=, then command ...)",
        kv);
  }
  return -1;
}

const char *const exp_scene_ext_keys[EXP_SCENE_EXT_NKEYS] = {
  "{scene}", "{steps}", "{dt}", "{max_iter}", "{friction}", "{time_limit}", "{model}"
};

const char *const exp_ext_keys[EXP_EXT_NKEYS] = { "{in}", "{out}",   "{tol}",        "{max_iter}",
                                                  "{n}",  "{class}", "{time_limit}", "{repeat}" };

/* The placeholder at c: 1..8 for {in}..{repeat} (a scene peer's: 1..7 for
 * {scene}..{model}, PARAMS_REF for {params}), 0 for ${...}, -1 none;
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
static int scene_ref(char *out, size_t len, int k) {
  int r =
      k == PARAMS_REF ? snprintf(out, len, "\"$@\"") : snprintf(out, len, "\"${lcplab_v%d}\"", k);
  return r < 0 || (size_t)r >= len ? -1 : r;
}

/* A scene peer's command: its values copied into lcplab_vK and shifted
 * off, so that "$@" holds the scene's parameters (--KEY VALUE words, as
 * many as the scene line has); no value is parsed by the shell. */
static int scene_preamble(const exp_cfg_parser *ps, exp_external *e) {
  char pre[1024];
  int nv = EXP_SCENE_EXT_NKEYS + e->nvals;
  size_t o = 0;
  for (int k = 1; k <= nv && o < sizeof pre; k++)
    o += (size_t)snprintf(pre + o, sizeof pre - o, "lcplab_v%d=\"${%d}\"; ", k, k);
  if (o < sizeof pre) o += (size_t)snprintf(pre + o, sizeof pre - o, "shift %d; ", nv);
  if (o >= sizeof pre || o + strlen(e->command) >= sizeof e->command)
    return exp_cfg_error(ps, "external", "command longer than %zu characters",
                         sizeof e->command - 1);
  memmove(e->command + o, e->command, strlen(e->command) + 1);
  memcpy(e->command, pre, o);
  return -1;
}

/* Keeps the value of the ${...} at c in e->vals: its positional parameter,
 * or the exit status negated (-2) with the message printed. */
static int external_value(const exp_cfg_parser *ps, exp_external *e, const char *tmpl,
                          const char *c, const char **next) {
  const char *val = NULL;
  char dbuf[EXP_PATH_MAX];
  if (exp_cfg_var_ref(ps, "external", tmpl, c, next, &val, dbuf, sizeof dbuf) >= 0)
    return -EXP_EXIT_USAGE;
  size_t used = 0;
  for (int k = 0; k < e->nvals; k++) used += strlen(e->vals + used) + 1;
  if (e->nvals == EXP_EXT_MAX_VALS || used + strlen(val) + 1 > sizeof e->vals) {
    exp_cfg_error(ps, "external", "%s: more than %d ${...} or their values too long", e->name,
                  EXP_EXT_MAX_VALS);
    return -EXP_EXIT_USAGE;
  }
  memcpy(e->vals + used, val, strlen(val) + 1);
  return (e->scene ? EXP_SCENE_EXT_NKEYS : EXP_EXT_NKEYS) + ++e->nvals;
}

/* e->command: tmpl with every placeholder a quoted reference to a positional
 * parameter, so that /bin/sh takes its value as data (experiments/CAMPAIGNS.md,
 * "The template rule").  A placeholder inside quotes is refused: a quoted
 * string is where a nested shell's (sh -c "..."), awk's or python's code is
 * written, which would parse the value; then no nested shell may parse text
 * made from a value (nested_shell.c). */
static int external_template(const exp_cfg_parser *ps, exp_external *e, const char *tmpl) {
  size_t o = 0;
  int sq = 0, dq = 0;
  for (const char *c = tmpl; *c;) {
    size_t kl = 0;
    int k = placeholder_at(e, c, &kl);
    const char *next = c + kl;
    if (k >= 0 && (sq || dq))
      return exp_cfg_error(ps, "external",
                           "%s: %.*s inside %s quotes: a value stands outside quotes, as a word "
                           "or part of one (lcplab passes it as one argument; a quoted string "
                           "is where a nested shell's, awk's or python's code is written)",
                           e->name, k ? (int)kl : (int)strcspn(c, "}") + 1, c,
                           sq ? "single" : "double");
    if (k == 0 && (k = external_value(ps, e, tmpl, c, &next)) < 0) return -k;
    int r = 0;
    e->uses_repeat |= !e->scene && k == EXP_EXT_NKEYS; /* {repeat} */
    if (!e->scene && k >= 1 && k <= EXP_EXT_NKEYS) e->told |= 1u << (k - 1);
    if (k > 0) {
      r = e->scene ? scene_ref(e->command + o, sizeof e->command - o, k)
                   : exp_template_ref(e->command + o, sizeof e->command - o, k, 0);
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
      return exp_cfg_error(ps, "external", "command longer than %zu characters",
                           sizeof e->command - 1);
    o += (size_t)r;
  }
  e->command[o] = '\0';
  char why[512];
  if (exp_nested_shell_check(e->command, why, sizeof why) != 0)
    return exp_cfg_error(ps, "external", "%s: %s (experiments/CAMPAIGNS.md, \"The template rule\")",
                         e->name, why);
  return e->scene ? scene_preamble(ps, e) : -1;
}

int exp_cfg_external(const exp_cfg_parser *ps, exp_config *cfg, char **w, int nw) {
  if (nw < 4) return exp_cfg_error(ps, "external", "expected NAME [options] command TEMPLATE...");
  if (cfg->next >= EXP_MAX_EXTERNALS)
    return exp_cfg_error(ps, "external", "more than %d external solvers", EXP_MAX_EXTERNALS);
  const char *name = w[1];
  if (strlen(name) >= EXP_NAME_MAX ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:") != strlen(name) ||
      slv_solver_find(name))
    return exp_cfg_error(ps, "external",
                         "NAME '%s' must be letters, digits, '_-.:' and not a registered "
                         "solver's",
                         name);
  for (int i = 0; i < cfg->next; i++)
    if (strcmp(cfg->ext[i].name, name) == 0)
      return exp_cfg_error(ps, "external", "'%s' is declared twice", name);
  exp_external *e = &cfg->ext[cfg->next];
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", name);
  snprintf(e->format, sizeof e->format, "lcp");
  e->line = ps->line;
  int k = 2;
  for (; k < nw && strcmp(w[k], "command") != 0; k++) {
    if (!strchr(w[k], '='))
      return exp_cfg_error(ps, "external", "expected an option key=value or 'command', got '%s'",
                           w[k]);
    int rc = external_opt(ps, e, w[k]);
    if (rc >= 0) return rc;
  }
  if (k >= nw - 1)
    return exp_cfg_error(ps, "external", "expected 'command TEMPLATE...' after the options");
  char tmpl[EXP_PATH_MAX];
  size_t used = 0;
  for (k++; k < nw; k++) {
    int r = snprintf(tmpl + used, sizeof tmpl - used, "%s%s", used ? " " : "", w[k]);
    if (r < 0 || (size_t)r >= sizeof tmpl - used)
      return exp_cfg_error(ps, "external", "command longer than %zu characters", sizeof tmpl - 1);
    used += (size_t)r;
  }
  e->takes_scene = e->scene && strstr(tmpl, "{scene}") != NULL;
  e->takes_model = e->scene && strstr(tmpl, "{model}") != NULL;
  if (e->scene && !e->takes_scene && !e->takes_model)
    return exp_cfg_error(ps, "external",
                         "a scene peer's command must name {scene} or {model} (and prints its "
                         "summary line)");
  if (!e->scene && (!strstr(tmpl, "{in}") || !strstr(tmpl, "{out}")))
    return exp_cfg_error(ps, "external",
                         "the command must name {in} (the instance) and {out} (the "
                         "solution file it writes)");
  int rc = external_template(ps, e, tmpl);
  if (rc >= 0) return rc;
  if (e->uses_repeat && !e->time_key[0])
    return exp_cfg_error(
        ps, "external",
        "%s: {repeat} needs time=KEY: the program reports its own time of one solve "
        "over the {repeat} solves it runs",
        e->name);
  e->available = !e->requires[0] || access(e->requires, X_OK) == 0;
  cfg->next++;
  return -1;
}
