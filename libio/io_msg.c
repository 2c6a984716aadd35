/* io_msg.c -- the I/O library's messages: one line into the caller's
 * buffer (io_msgf), the helper every reader, writer and io_outfile.c use.
 * A leaf: it uses only the C library.
 */
#include "io_internal.h"

#include <stdarg.h>

void io_msgf(char *msg, size_t len, const char *fmt, ...) {
  if (!msg || len == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

slv_status io_path_vfail(const char *path, char *err, size_t errlen, slv_status st, const char *fmt,
                         va_list ap) {
  char m[400];
  vsnprintf(m, sizeof m, fmt, ap);
  io_msgf(err, errlen, "%s: %s", path, m);
  return st;
}
