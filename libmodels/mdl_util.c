/*
 * mdl_util.c -- libmodels' small helpers: messages (mdl_internal.h) and the
 * names of the error codes (mdl.h).
 */
#include "mdl_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *mdl_err_str(mdl_err e) {
  switch (e) {
  case MDL_OK: return "ok";
  case MDL_ERR_INPUT: return "input";
  case MDL_ERR_NOMEM: return "out of memory";
  case MDL_ERR_IO: return "write failed";
  case MDL_ERR_FILE: return "file does not load";
  case MDL_ERR_REFUSED: return "feature refused";
  case MDL_ERR_MUJOCO: return "MuJoCo error";
  }
  return "unknown";
}

void mdl_msg(char *msg, size_t cap, const char *fmt, ...) {
  if (!msg || cap == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
}

void mdl_one_line(char *dst, size_t cap, const char *src) {
  if (!dst || cap == 0) return;
  size_t k = 0;
  int pending = 0; /* a line break seen, "; " owed before the next text */
  for (const char *s = src ? src : ""; *s && k + 1 < cap; s++) {
    if (*s == '\n' || *s == '\r') {
      pending = k > 0;
      continue;
    }
    if (pending) {
      if (k + 3 >= cap) break;
      dst[k++] = ';';
      dst[k++] = ' ';
      pending = 0;
    }
    dst[k++] = *s;
  }
  dst[k] = '\0';
}
