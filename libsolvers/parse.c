/* parse.c -- strict number parsing, the one parser of the toolkit (slv.h,
 * "numbers from text"): every number lcplab reads from text (instance files,
 * solver options by name, .exp files, world settings, scene parameters,
 * command-line flags) goes through these functions.
 *
 * Strict means the whole text is one number and nothing else:
 *   - the number covers the text exactly: "1e-8x", "1 2", "" are refused;
 *   - no leading white space (strtod and strtol would skip it): " 1" is
 *     refused, so is a leading newline;
 *   - NaN never ("nan", "-nan", "nan(1)");
 *   - infinities only when asked (SLV_PARSE_INF): "inf", "-inf", "infinity";
 *   - a double beyond DBL_MAX ("1e999") is out of range; when infinities are
 *     asked for it is the infinity it rounds to, as IEEE 754 rounds an
 *     overflow (and as the instance readers always took it);
 *   - an underflow ("1e-400") is the value it rounds to (0 or a subnormal):
 *     a tiny number is a number;
 *   - integers are base 10 with an optional sign ("+5", "-3"); "0x10", "1.0"
 *     and "1e3" are not integers; beyond the type's range is out of range,
 *     and an unsigned long takes no minus sign;
 *   - a double is what strtod reads in the C locale, so C's hexadecimal
 *     floats ("0x10" = 16, "0x1p-3" = 0.125, what printf's %a writes) are
 *     numbers.
 * On any refusal *out is left as it was.  Nothing here allocates or prints;
 * errno is left as strtod and strtol leave it (ERANGE after an overflow or
 * an underflow), as C's own conversions do.
 */
#include "slv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* C's white space (isspace in the C locale), which strtod and strtol skip. */
static int is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* The checks before a conversion: something, and not a blank first. */
static slv_parse_error check_start(const char *s, size_t len) {
  if (!s || len == 0) return SLV_PARSE_EMPTY;
  return is_blank(s[0]) ? SLV_PARSE_BLANK : SLV_PARSE_OK;
}

/* Where a conversion ended, against the text's end. */
static slv_parse_error check_end(const char *s, const char *end, size_t len) {
  if (end == s) return SLV_PARSE_SYNTAX;
  return end == s + len ? SLV_PARSE_OK : SLV_PARSE_TRAILING;
}

/* Does the text spell an infinity ("inf", "-Infinity"), rather than
 * overflow to one ("1e999")? */
static int spells_inf(const char *s) {
  if (*s == '+' || *s == '-') s++;
  return *s == 'i' || *s == 'I';
}

/* s[0..len) needs no NUL after it: the conversion may run past len only
 * when the byte at s[len] continues the number (a token cut out of a longer
 * text); then the token is copied and converted alone.  Tokens longer than
 * this are refused there (never the case of a token ended by white space,
 * a NUL or a comment character, which no conversion reads). */
#define SLV_PARSE_COPY_MAX 512

/* strtod on the copy of s[0..len): the value, *end as if the text stopped
 * at len (s when too long to copy).  Out of the common path, which reads
 * the text in place (and ends where the token ends). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static double
convert_cut(const char *s, size_t len, const char **end) {
  char buf[SLV_PARSE_COPY_MAX], *e;
  if (len >= sizeof buf) {
    *end = s;
    return 0.0;
  }
  memcpy(buf, s, len);
  buf[len] = '\0';
  double v = strtod(buf, &e);
  *end = s + (e - buf);
  return v;
}

/* After the conversion: a NaN, or an infinity not asked for (spelled, or
 * an overflow). */
static slv_parse_error check_value(const char *s, double v, unsigned flags) {
  if (isnan(v)) return SLV_PARSE_NAN;
  if (isinf(v) && !(flags & SLV_PARSE_INF))
    return spells_inf(s) ? SLV_PARSE_INFINITE : SLV_PARSE_RANGE;
  return SLV_PARSE_OK;
}

slv_parse_error slv_parse_double_n(const char *s, size_t len, unsigned flags, double *out) {
  slv_parse_error e = check_start(s, len);
  if (e) return e;
  char *stop;
  const char *end;
  double v = strtod(s, &stop);
  end = stop;
  if (end > s + len) v = convert_cut(s, len, &end);
  if ((e = check_end(s, end, len))) return e;
  if (!isfinite(v) && (e = check_value(s, v, flags))) return e;
  *out = v;
  return SLV_PARSE_OK;
}

slv_parse_error slv_parse_double(const char *s, unsigned flags, double *out) {
  return slv_parse_double_n(s, s ? strlen(s) : 0, flags, out);
}

/* strtol on s (the text, or its copy), *range set on overflow. */
static long strtol_range(const char *s, char **end, int *range) {
  errno = 0;
  long v = strtol(s, end, 10);
  *range = errno == ERANGE;
  return v;
}

/* strtol on the copy of s[0..len) (convert_cut's case for integers). */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static long
convert_long_cut(const char *s, size_t len, const char **end, int *range) {
  char buf[SLV_PARSE_COPY_MAX], *e;
  if (len >= sizeof buf) {
    *end = s;
    return 0;
  }
  memcpy(buf, s, len);
  buf[len] = '\0';
  long v = strtol_range(buf, &e, range);
  *end = s + (e - buf);
  return v;
}

/* strtol on s[0..len): the value, *end as in slv_parse_double_n and
 * *range set on overflow. */
static long convert_long(const char *s, size_t len, const char **end, int *range) {
  char *e;
  long v = strtol_range(s, &e, range);
  *end = e;
  return *end <= s + len ? v : convert_long_cut(s, len, end, range);
}

/* The first byte of a base-10 integer: a digit or a sign (strtol would
 * also take white space, refused before, and nothing else). */
static int starts_integer(char c) { return (c >= '0' && c <= '9') || c == '+' || c == '-'; }

slv_parse_error slv_parse_long_n(const char *s, size_t len, long *out) {
  slv_parse_error e = check_start(s, len);
  if (e) return e;
  if (!starts_integer(s[0])) return SLV_PARSE_SYNTAX;
  const char *end;
  int range;
  long v = convert_long(s, len, &end, &range);
  if ((e = check_end(s, end, len))) return e;
  if (range) return SLV_PARSE_RANGE;
  *out = v;
  return SLV_PARSE_OK;
}

slv_parse_error slv_parse_long(const char *s, long *out) {
  return slv_parse_long_n(s, s ? strlen(s) : 0, out);
}

slv_parse_error slv_parse_int(const char *s, int *out) {
  long v;
  slv_parse_error e = slv_parse_long(s, &v);
  if (e) return e;
  if (v < INT_MIN || v > INT_MAX) return SLV_PARSE_RANGE;
  *out = (int)v;
  return SLV_PARSE_OK;
}

slv_parse_error slv_parse_ulong(const char *s, unsigned long *out) {
  slv_parse_error e = check_start(s, s ? strlen(s) : 0);
  if (e) return e;
  if (!starts_integer(s[0])) return SLV_PARSE_SYNTAX;
  if (s[0] == '-') {
    /* strtoul would wrap "-1" to ULONG_MAX: an integer below 0 is out of
     * range, anything else after the sign is not an integer */
    long v;
    e = slv_parse_long(s, &v);
    return e == SLV_PARSE_OK || e == SLV_PARSE_RANGE ? SLV_PARSE_RANGE : e;
  }
  errno = 0;
  char *end;
  unsigned long v = strtoul(s, &end, 10);
  int range = errno == ERANGE;
  if ((e = check_end(s, end, strlen(s)))) return e;
  if (range) return SLV_PARSE_RANGE;
  *out = v;
  return SLV_PARSE_OK;
}

const char *slv_parse_error_str(slv_parse_error e) {
  switch (e) {
  case SLV_PARSE_OK: return "a number";
  case SLV_PARSE_EMPTY: return "empty";
  case SLV_PARSE_BLANK: return "white space before the number";
  case SLV_PARSE_SYNTAX: return "not a number";
  case SLV_PARSE_TRAILING: return "characters after the number";
  case SLV_PARSE_NAN: return "not a number (NaN)";
  case SLV_PARSE_INFINITE: return "infinite";
  case SLV_PARSE_RANGE: return "out of range";
  }
  return "unknown parse error";
}
