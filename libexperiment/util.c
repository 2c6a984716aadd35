/* util.c -- the small helpers the experiment library and the lcplab
 * program share (exp.h, "helpers"): the monotonic clock, byte counts with
 * a unit, path tests, and the message sink through which the library
 * speaks (it never prints: every line goes to the caller's exp_log).
 *
 * Numbers are parsed by libsolvers' strict parser (slv_parse_double,
 * slv_parse_long: slv.h, "numbers from text"): "1e-8x", " 3", "" and "nan"
 * are errors, never silently 0 or a prefix.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "exp_internal.h"

/* ---- messages ------------------------------------------------------------------ */

void exp_say(const exp_log *log, exp_say_kind kind, const char *fmt, ...) {
  if (!log || !log->say) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* One line, whatever the message holds (a file name may contain '\n'). */
  for (char *c = line; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  log->say(log->ctx, kind, line);
}

/* ---- timing -------------------------------------------------------------------- */

double exp_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int exp_cmp_double(const void *pa, const void *pb) {
  double x = *(const double *)pa, y = *(const double *)pb;
  return (x > y) - (x < y);
}

/* digits, then an optional unit K, M, G or T (and "B" or "iB"): the number by
 * slv_parse_ulong, the unit here */
slv_parse_error exp_parse_measured(const char *s, double *out) {
  if (s && (strcmp(s, "nan") == 0 || strcmp(s, "-nan") == 0)) {
    *out = NAN;
    return SLV_PARSE_OK;
  }
  return slv_parse_double(s, SLV_PARSE_INF, out);
}

int exp_parse_bytes(const char *s, size_t *out) {
  size_t digits = 0;
  while (s && s[digits] >= '0' && s[digits] <= '9') digits++;
  char num[32];
  if (digits == 0 || digits >= sizeof num) return 0;
  memcpy(num, s, digits);
  num[digits] = '\0';
  unsigned long v;
  if (slv_parse_ulong(num, &v) != SLV_PARSE_OK || v == 0) return 0;
  static const char units[] = "KMGT";
  unsigned shift = 0;
  const char *end = s + digits;
  if (*end) {
    const char *unit = strchr(units, *end >= 'a' && *end <= 'z' ? *end - 'a' + 'A' : *end);
    if (!unit) return 0;
    shift = 10u * (unsigned)(unit - units + 1);
    end++;
    if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0) end += strlen(end);
    if (*end) return 0;
  }
  if (v > (SIZE_MAX >> shift)) return 0;
  *out = (size_t)(v << shift);
  return 1;
}

int exp_path_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

const char *exp_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}
