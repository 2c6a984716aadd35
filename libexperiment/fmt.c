/* fmt.c -- exp_fmt: snprintf that says whether the text was cut, for the
 * engine's bounded paths and labels (a cut is reported or harmless, never a
 * warning of the compiler's truncation check).
 */
#include "exp_internal.h"

#include <stdarg.h>
#include <stdio.h>

int exp_fmt(char *buf, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, len, fmt, ap);
  va_end(ap);
  return (r < 0 || (size_t)r >= len) ? 1 : 0;
}
