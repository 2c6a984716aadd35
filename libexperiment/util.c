/* util.c -- the small helpers the experiment library and the lcplab
 * program share (exp.h, "helpers"): the monotonic clock, strict number
 * parsing, path tests, and the message sink through which the library
 * speaks (it never prints: every line goes to the caller's exp_log).
 *
 * Number parsing is strict (strtod / strtol and a full-string check): "1e-8x",
 * " 3", "" and "nan" are errors, never silently 0 or a prefix.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "exp.h"

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

/* strtod/strtol accept leading blanks; we want the string to be the number. */
static int starts_like_number(const char *s) {
  return s && s[0] != '\0' && s[0] != ' ' && s[0] != '\t' && s[0] != '\n' && s[0] != '\r' &&
         s[0] != '\f' && s[0] != '\v';
}

int exp_parse_double(const char *s, double *out) {
  if (!starts_like_number(s)) return 0;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) return 0;
  *out = v;
  return 1;
}

int exp_parse_long(const char *s, long *out) {
  if (!starts_like_number(s)) return 0;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE) return 0;
  *out = v;
  return 1;
}

int exp_parse_bytes(const char *s, size_t *out) {
  if (!starts_like_number(s) || s[0] < '0' || s[0] > '9') return 0;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno == ERANGE || v == 0) return 0;
  static const char units[] = "KMGT";
  unsigned shift = 0;
  if (*end) {
    const char *u = strchr(units, *end >= 'a' && *end <= 'z' ? *end - 'a' + 'A' : *end);
    if (!u) return 0;
    shift = 10u * (unsigned)(u - units + 1);
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
