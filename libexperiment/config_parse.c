/* config_parse.c -- what the parser of experiment files (config.c,
 * config_keys.c, config_external.c) shares: the one-line error
 * "FILE:LINE: KEY: what" (exp_cfg_error), names looked up in a list, the
 * ${NAME} and ${NAME:-DEFAULT} variables (--var, LCPLAB_NAME, the default;
 * a value given is recorded for plan.vars: exp_config_vars), and numbers,
 * times, integers and class lists checked strictly (libsolvers'
 * slv_parse_double, slv_parse_long).  experiments/README.md, "Format".
 */
#define _POSIX_C_SOURCE 200809L

#include "exp_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int exp_cfg_error(const exp_cfg_parser *ps, const char *key, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  exp_say(&ps->cfg->log, EXP_SAY_ERROR, "%s:%d: %s: %s", ps->file, ps->line, key, what);
  return EXP_EXIT_USAGE;
}

int exp_cfg_find_name(const char *v, const char *const *names) {
  for (int k = 0; names[k]; k++)
    if (strcmp(v, names[k]) == 0) return k;
  return -1;
}

void exp_cfg_join_names(const char *const *names, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; names[k]; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", names[k]);
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

/* The value of variable name (length nl): --var, LCPLAB_NAME, or NULL.  A
 * plan's copy takes plan.vars only: what was not given when the plan was
 * made keeps its default, whatever the task's environment says. */
static const char *var_value(const exp_cfg_parser *ps, const char *name, size_t nl) {
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
static int record_var(const exp_cfg_parser *ps, const char *key, const char *name, size_t nl,
                      const char *val) {
  exp_config *cfg = ps->cfg;
  if (var_recorded(cfg->used_vars, name, nl)) return -1;
  size_t used = cfg->used_vars ? strlen(cfg->used_vars) : 0, vl = strlen(val);
  char *n = realloc(cfg->used_vars, used + nl + vl + 3);
  if (!n) return exp_cfg_error(ps, key, "out of memory");
  snprintf(n + used, nl + vl + 3, "%.*s=%s\n", (int)nl, name, val);
  cfg->used_vars = n;
  return -1;
}

const char *exp_config_vars(const exp_config *cfg) { return cfg->used_vars ? cfg->used_vars : ""; }

/* The ${NAME} or ${NAME:-DEFAULT} at c (in word): its value (--var,
 * LCPLAB_NAME, else DEFAULT copied into dbuf) in *val, a given one
 * recorded for plan.vars (a line break in it refused), and the character
 * after it in *next.  -1 ok, else exit status. */
int exp_cfg_var_ref(const exp_cfg_parser *ps, const char *key, const char *word, const char *c,
                    const char **next, const char **val, char *dbuf, size_t dl) {
  const char *end = strchr(c + 2, '}');
  if (!end) return exp_cfg_error(ps, key, "unterminated ${ in '%s'", word);
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
    return exp_cfg_error(ps, key, "bad variable name in '%s'", word);
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
    return exp_cfg_error(ps, key,
                         "undefined variable ${%.*s} (give --var %.*s=VALUE or set LCPLAB_%.*s)",
                         (int)nl, name, (int)nl, name, (int)nl, name);
  *next = end + 1;
  return -1;
}

/* Expands ${NAME} and ${NAME:-DEFAULT} in word into out (size len).  -1 ok,
 * else exit status. */
int exp_cfg_expand(const exp_cfg_parser *ps, const char *key, const char *word, char *out,
                   size_t len) {
  size_t o = 0;
  for (const char *c = word; *c;) {
    if (c[0] == '$' && c[1] == '{') {
      const char *val = NULL;
      char dbuf[EXP_PATH_MAX];
      int rc = exp_cfg_var_ref(ps, key, word, c, &c, &val, dbuf, sizeof dbuf);
      if (rc >= 0) return rc;
      size_t vl = strlen(val);
      if (o + vl >= len) return exp_cfg_error(ps, key, "value too long after expanding '%s'", word);
      memcpy(out + o, val, vl);
      o += vl;
    } else {
      if (o + 1 >= len) return exp_cfg_error(ps, key, "value too long: '%s'", word);
      out[o++] = *c++;
    }
  }
  out[o] = '\0';
  return -1;
}

int exp_cfg_num(const exp_cfg_parser *ps, const char *key, const char *v, double lo, double *out) {
  double d;
  if (slv_parse_double(v, SLV_PARSE_FINITE, &d) != SLV_PARSE_OK || !(d > lo)) {
    char lim[32];
    snprintf(lim, sizeof lim, "%g", lo);
    return exp_cfg_error(ps, key, "expected a finite number > %s, got '%s'", lim, v);
  }
  *out = d;
  return -1;
}

/* num, and at most EXP_TIME_MAX_S: a time that reaches a generated script */
int exp_cfg_seconds(const exp_cfg_parser *ps, const char *key, const char *v, double lo,
                    double *out) {
  int rc = exp_cfg_num(ps, key, v, lo, out);
  if (rc < 0 && *out > EXP_TIME_MAX_S)
    return exp_cfg_error(ps, key, "expected at most %g s, got '%s'", EXP_TIME_MAX_S, v);
  return rc;
}

int exp_cfg_whole(const exp_cfg_parser *ps, const char *key, const char *v, long lo, long hi,
                  long *out) {
  long d;
  if (slv_parse_long(v, &d) != SLV_PARSE_OK || d < lo || d > hi) {
    char lim[64];
    snprintf(lim, sizeof lim, "%ld and %ld", lo, hi);
    return exp_cfg_error(ps, key, "expected an integer between %s, got '%s'", lim, v);
  }
  *out = d;
  return -1;
}

int exp_cfg_one_value(const exp_cfg_parser *ps, const char *key, int nw) {
  return nw != 2 ? exp_cfg_error(ps, key, "expected one value") : -1;
}

/* A comma-separated class list into a bit mask.  -1 ok, else exit status. */
int exp_cfg_class_mask(const exp_cfg_parser *ps, const char *key, const char *v, unsigned *mask) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", v);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int c = exp_class_from_str(t);
    if (c < 0) {
      char list[128];
      exp_cfg_join_names(exp_cfg_class_names, list, sizeof list);
      return exp_cfg_error(ps, key, "unknown class '%s' (known: %s)", t, list);
    }
    *mask |= 1u << c;
  }
  return -1;
}
