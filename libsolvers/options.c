/* options.c -- defaults and validation of slv_options, and the options
 * by name.
 *
 * Options come only from slv_options_default(), which stamps a private cookie
 * [Box2D's def cookie]; slv_solve refuses a struct without it
 * (SLV_ERR_OPTIONS), which catches uninitialised stack structs.
 *
 * By name (slv.h, "options by name"): one table of the fields text may set,
 * each with its type, the values its text may take, the range
 * slv_options_validate gives it and one line of meaning.  slv_options_set
 * parses a text by the field's type (slv_parse_*, strict) and stores it;
 * slv_options_get writes the text that reads back to the same value.  The
 * ranges stay slv_options_validate's alone (tests/test_options.c checks
 * that the table's range text is the one validate's message gives).
 */
#include "slv_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

slv_options slv_options_default(void) {
  /* a designated initializer, so that a field added later and not named here
   * is zero rather than stack garbage (as norm once was) */
  slv_options o = {
    .max_iter = SLV_DEFAULT_MAX_ITER,
    .tol = SLV_DEFAULT_TOL,
    .norm = SLV_NORM_INF,
    .omega = SLV_DEFAULT_OMEGA,
    .damping = 0.0,
    .pivot_tol = SLV_DEFAULT_PIVOT_TOL,
    .warm_start = 0,
    .record_history = 0,
    .check_every = SLV_DEFAULT_CHECK_EVERY,
    .max_pivots = 0,
    .covering = NULL,
    .seed = 1,
    .simd = SLV_SIMD_AUTO,
    .threads = 1,
    .log_fn = NULL,
    .log_ctx = NULL,
    .log_level_fn = NULL,
    .log_level = SLV_LOG_DEBUG,
    .time_limit = 0.0,
    .cancel = NULL,
    .cancel_ctx = NULL,
    .prox_sigma = SLV_DEFAULT_PROX_SIGMA,
    .prox_nu = 1.0,
    .prox_grow = SLV_DEFAULT_PROX_GROW,
    .prox_inner_max = SLV_DEFAULT_PROX_INNER,
    .prox_outer_max = 0,
    .magic = SLV_OPTIONS_MAGIC,
  };
  return o;
}

slv_status slv_tol_check(double tol, int allow, char *msg, size_t len) {
  if (allow || !(tol >= SLV_TOL_LOOSE)) return SLV_OK;
  slv_msgf(msg, len,
           "tol=%g >= %g accepts x = 0 after 0 iterations on every problem (a row that needs an "
           "impulse scores 1 there)",
           tol, SLV_TOL_LOOSE);
  return SLV_ERR_OPTIONS;
}

/* ppa_nsn's options (slv.h): a proximal parameter <= 0, NaN or infinite is
 * refused by name. */
static slv_status slv_prox_validate(const slv_options *o, char *msg, size_t len) {
  if (!(o->prox_sigma > 0) || !isfinite(o->prox_sigma)) {
    slv_msgf(msg, len, "prox_sigma=%g must be finite and > 0 (ppa_nsn's proximal parameter)",
             o->prox_sigma);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->prox_nu > 0 && o->prox_nu <= 2)) {
    slv_msgf(msg, len, "prox_nu=%g must be in (0, 2]", o->prox_nu);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->prox_grow > 1) || !isfinite(o->prox_grow)) {
    slv_msgf(msg, len, "prox_grow=%g must be finite and > 1", o->prox_grow);
    return SLV_ERR_OPTIONS;
  }
  if (o->prox_inner_max < 1) {
    slv_msgf(msg, len, "prox_inner_max=%d must be >= 1", o->prox_inner_max);
    return SLV_ERR_OPTIONS;
  }
  if (o->prox_outer_max < 0) {
    slv_msgf(msg, len, "prox_outer_max=%d must be >= 0 (0 = no limit but max_iter)",
             o->prox_outer_max);
    return SLV_ERR_OPTIONS;
  }
  return SLV_OK;
}

slv_status slv_options_validate(const slv_options *o, char *msg, size_t len) {
  if (!o || o->magic != SLV_OPTIONS_MAGIC) {
    slv_msgf(msg, len, "options not initialised by slv_options_default()");
    return SLV_ERR_OPTIONS;
  }
  if (o->max_iter < 1) {
    slv_msgf(msg, len, "max_iter=%d must be >= 1", o->max_iter);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->tol > 0) || !isfinite(o->tol)) {
    slv_msgf(msg, len, "tol=%g must be finite and > 0", o->tol);
    return SLV_ERR_OPTIONS;
  }
  if (o->threads < 1 || o->threads > SLV_THREADS_MAX) {
    slv_msgf(msg, len, "threads=%d must be in [1, %d]", o->threads, SLV_THREADS_MAX);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->omega > 0 && o->omega < 2)) {
    slv_msgf(msg, len, "omega=%g must be in (0, 2)", o->omega);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->damping >= 0) || !isfinite(o->damping)) {
    slv_msgf(msg, len, "damping=%g must be finite and >= 0 (0 = automatic)", o->damping);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->pivot_tol >= 0) || !(o->pivot_tol < 1)) {
    slv_msgf(msg, len, "pivot_tol=%g must be in [0, 1)", o->pivot_tol);
    return SLV_ERR_OPTIONS;
  }
  if (o->max_pivots < 0) {
    slv_msgf(msg, len, "max_pivots=%d must be >= 0 (0 = automatic)", o->max_pivots);
    return SLV_ERR_OPTIONS;
  }
  if (o->norm != SLV_NORM_INF && o->norm != SLV_NORM_2) {
    slv_msgf(msg, len, "norm=%d must be SLV_NORM_INF (0) or SLV_NORM_2 (2)", o->norm);
    return SLV_ERR_OPTIONS;
  }
  if (o->check_every < 1) {
    slv_msgf(msg, len, "check_every=%d must be >= 1", o->check_every);
    return SLV_ERR_OPTIONS;
  }
  if (o->log_level < SLV_LOG_ERROR || o->log_level > SLV_LOG_DEBUG) {
    slv_msgf(msg, len, "log_level=%d must be in SLV_LOG_ERROR (0) .. SLV_LOG_DEBUG (3)",
             o->log_level);
    return SLV_ERR_OPTIONS;
  }
  if (!(o->time_limit >= 0)) {
    slv_msgf(msg, len, "time_limit=%g must be >= 0 (0 = none)", o->time_limit);
    return SLV_ERR_OPTIONS;
  }
  if (slv_prox_validate(o, msg, len) != SLV_OK) return SLV_ERR_OPTIONS;
  if (o->simd != SLV_SIMD_AUTO && o->simd != SLV_SIMD_OFF && o->simd != SLV_SIMD_AVX2) {
    slv_msgf(msg, len, "simd=%d must be SLV_SIMD_AUTO (0), SLV_SIMD_OFF (1) or SLV_SIMD_AVX2 (2)",
             o->simd);
    return SLV_ERR_OPTIONS;
  }
  return SLV_OK;
}

/* ---- options by name (slv.h, "options by name") -------------------------- */

/* One row: the public description, where the field is, and for a choice
 * its values' names and numbers (NULL-terminated). */
typedef struct option_def {
  slv_option_info info;
  size_t offset;
  const char *const *names;
  const int *numbers;
} option_def;

static const char *const norm_names[] = { "inf", "2", NULL };
static const int norm_numbers[] = { SLV_NORM_INF, SLV_NORM_2 };
static const char *const simd_names[] = { "auto", "off", "avx2", NULL };
static const int simd_numbers[] = { SLV_SIMD_AUTO, SLV_SIMD_OFF, SLV_SIMD_AVX2 };

#define OPT(field, type, values, range, meaning)                                                   \
  { { #field, type, values, range, meaning }, offsetof(slv_options, field), NULL, NULL }
#define INT_TEXT   "an integer within int"
#define FLOAT_TEXT "a finite number"

/* The first ten rows are the .lcp format's recorded options, in the order
 * of io.h's IO_OPT_* bits. */
static const option_def options[] = {
  OPT(max_iter, SLV_OPTION_INT, INT_TEXT, ">= 1",
      "sweeps (iterative solvers) or pivots (pivoting ones)"),
  OPT(tol, SLV_OPTION_DOUBLE, FLOAT_TEXT, "finite and > 0",
      "converged iff res_scaled <= tol (docs/convergence.md)"),
  { { "norm", SLV_OPTION_CHOICE, "inf or 2 (or their numbers 0, 2)",
      "SLV_NORM_INF (0) or SLV_NORM_2 (2)", "2: the test also needs res_rel_2 <= tol" },
    offsetof(slv_options, norm),
    norm_names,
    norm_numbers },
  OPT(omega, SLV_OPTION_DOUBLE, FLOAT_TEXT, "in (0, 2)", "pgs: the SOR relaxation factor"),
  OPT(damping, SLV_OPTION_DOUBLE, FLOAT_TEXT, "finite and >= 0 (0 = automatic)",
      "pjacobi: the step scale"),
  OPT(pivot_tol, SLV_OPTION_DOUBLE, FLOAT_TEXT, "in [0, 1)",
      "the relative zero-pivot threshold of direct and lemke"),
  OPT(warm_start, SLV_OPTION_BOOL, "0 or 1", "any",
      "1: x on entry is the starting point; 0: the projection of 0"),
  OPT(check_every, SLV_OPTION_INT, INT_TEXT, ">= 1",
      "iterative solvers: the period of the exact residual"),
  OPT(max_pivots, SLV_OPTION_INT, INT_TEXT, ">= 0 (0 = automatic)",
      "lemke, dantzig: the pivot limit"),
  OPT(seed, SLV_OPTION_ULONG, "an integer within unsigned long", "any",
      "the randomized solvers' seed"),
  { { "simd", SLV_OPTION_CHOICE, "auto, off or avx2 (or their numbers 0, 1, 2)",
      "SLV_SIMD_AUTO (0), SLV_SIMD_OFF (1) or SLV_SIMD_AVX2 (2)",
      "auto: vector code where the CPU has it; off: the scalar path; avx2: the AVX2 lanes "
      "even with AVX-512 (same iterates)" },
    offsetof(slv_options, simd),
    simd_names,
    simd_numbers },
  OPT(threads, SLV_OPTION_INT, INT_TEXT, "in [1, 256]",
      "OpenMP threads where the arithmetic does not depend on them"),
  OPT(time_limit, SLV_OPTION_DOUBLE, FLOAT_TEXT, ">= 0 (0 = none)",
      "seconds of wall clock, then SLV_TIME_LIMIT"),
  OPT(prox_sigma, SLV_OPTION_DOUBLE, FLOAT_TEXT, "finite and > 0",
      "ppa_nsn: the proximal parameter alpha = prox_sigma e^prox_nu (x contact stiffness)"),
  OPT(prox_nu, SLV_OPTION_DOUBLE, FLOAT_TEXT, "in (0, 2]", "ppa_nsn: the exponent of e in alpha"),
  OPT(prox_grow, SLV_OPTION_DOUBLE, FLOAT_TEXT, "finite and > 1",
      "ppa_nsn: alpha's factor after an inner solve that failed"),
  OPT(prox_inner_max, SLV_OPTION_INT, INT_TEXT, ">= 1",
      "ppa_nsn: Newton iterations per proximal problem"),
  OPT(prox_outer_max, SLV_OPTION_INT, INT_TEXT, ">= 0 (0 = no limit but max_iter)",
      "ppa_nsn: proximal (outer) iterations"),
};
#undef OPT
enum { NOPTIONS = (int)(sizeof options / sizeof options[0]) };

_Static_assert(sizeof(int) == sizeof(((slv_options *)0)->norm) &&
                   sizeof(unsigned long) == sizeof(((slv_options *)0)->seed),
               "the option types' fields");

int slv_option_count(void) { return NOPTIONS; }

const slv_option_info *slv_option_at(int i) {
  return i >= 0 && i < NOPTIONS ? &options[i].info : NULL;
}

static const option_def *find_def(const char *name) {
  for (int k = 0; name && k < NOPTIONS; k++)
    if (strcmp(options[k].info.name, name) == 0) return &options[k];
  return NULL;
}

const slv_option_info *slv_option_find(const char *name) {
  const option_def *d = find_def(name);
  return d ? &d->info : NULL;
}

/* "max_iter, tol, ..." into buf. */
static void option_names(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int k = 0; k < NOPTIONS; k++) {
    int r = snprintf(buf + used, len - used, "%s%s", k ? ", " : "", options[k].info.name);
    if (r < 0 || (size_t)r >= len - used) return;
    used += (size_t)r;
  }
}

/* A choice's value from a name or a listed number; 0 if neither. */
static int parse_choice(const option_def *d, const char *text, int *v) {
  int number;
  int is_number = slv_parse_int(text, &number) == SLV_PARSE_OK;
  for (int k = 0; d->names[k]; k++)
    if (strcmp(text, d->names[k]) == 0 || (is_number && number == d->numbers[k])) {
      *v = d->numbers[k];
      return 1;
    }
  return 0;
}

/* The text parsed by d's type into *field (the field's own type);
 * SLV_PARSE_OK, or the parser's reason (SLV_PARSE_SYNTAX for a name that
 * is no choice). */
static slv_parse_error parse_value(const option_def *d, const char *text, void *field) {
  int v;
  switch (d->info.type) {
  case SLV_OPTION_INT: return slv_parse_int(text, field);
  case SLV_OPTION_ULONG: return slv_parse_ulong(text, field);
  case SLV_OPTION_DOUBLE: return slv_parse_double(text, SLV_PARSE_FINITE, field);
  case SLV_OPTION_BOOL:
    if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0) return SLV_PARSE_SYNTAX;
    *(int *)field = text[0] == '1';
    return SLV_PARSE_OK;
  case SLV_OPTION_CHOICE:
    if (!parse_choice(d, text, &v)) return SLV_PARSE_SYNTAX;
    *(int *)field = v;
    return SLV_PARSE_OK;
  }
  return SLV_PARSE_SYNTAX;
}

slv_status slv_options_set(slv_options *opt, const char *name, const char *value, char *err,
                           size_t errlen) {
  if (!opt || opt->magic != SLV_OPTIONS_MAGIC) {
    slv_msgf(err, errlen, "options not initialised by slv_options_default()");
    return SLV_ERR_OPTIONS;
  }
  const option_def *d = find_def(name);
  if (!d) {
    char list[256];
    option_names(list, sizeof list);
    slv_msgf(err, errlen, "unknown option '%s' (options: %s)", name ? name : "(null)", list);
    return SLV_ERR_OPTIONS;
  }
  slv_options o = *opt; /* opt unchanged on a refusal */
  slv_parse_error e = parse_value(d, value, (char *)&o + d->offset);
  if (e != SLV_PARSE_OK) {
    slv_msgf(err, errlen, "%s: expected %s, found '%.40s' (%s)", d->info.name, d->info.values,
             value ? value : "", slv_parse_error_str(e));
    return SLV_ERR_OPTIONS;
  }
  *opt = o;
  return SLV_OK;
}

/* i if it is one of d's choices, else the first (norm 1: inf, 0). */
static int choice_number(const option_def *d, int i) {
  for (int k = 0; d->names[k]; k++)
    if (d->numbers[k] == i) return i;
  return d->numbers[0];
}

slv_status slv_options_get(const slv_options *opt, const char *name, char *buf, size_t len) {
  const option_def *d = find_def(name);
  if (!buf || len == 0) return SLV_ERR_OPTIONS;
  buf[0] = '\0';
  if (!opt || !d) return SLV_ERR_OPTIONS;
  const char *at = (const char *)opt + d->offset;
  int i, r = -1;
  unsigned long u;
  double x;
  switch (d->info.type) {
  case SLV_OPTION_INT:
  case SLV_OPTION_BOOL:
  case SLV_OPTION_CHOICE:
    memcpy(&i, at, sizeof i);
    if (d->info.type == SLV_OPTION_BOOL) i = i != 0;
    if (d->info.type == SLV_OPTION_CHOICE) i = choice_number(d, i);
    r = snprintf(buf, len, "%d", i);
    break;
  case SLV_OPTION_ULONG:
    memcpy(&u, at, sizeof u);
    r = snprintf(buf, len, "%lu", u);
    break;
  case SLV_OPTION_DOUBLE:
    memcpy(&x, at, sizeof x);
    r = snprintf(buf, len, "%.17g", x);
    break;
  }
  if (r < 0 || (size_t)r >= len) {
    buf[0] = '\0';
    return SLV_ERR_OPTIONS;
  }
  return SLV_OK;
}
