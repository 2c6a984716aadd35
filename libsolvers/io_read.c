/* io_read.c -- slv_read / slv_write dispatch, format names, and the buffered
 * reader and writer helpers of io_internal.h.
 *
 * Format choice when reading with SLV_FMT_AUTO:
 *   1. by extension: .dat -> Siconos (LCP, MLCP, relay or local FC3D,
 *      decided from the content by io_siconos.c), .blcp, .mtx, .lcp
 *      (lcplab), .hdf5 / .h5 (FCLIB, io_fclib.c);
 *   2. any other extension: by the content: the HDF5 signature -> FCLIB;
 *      first token "lcplab-problem" -> lcplab, "%%MatrixMarket" ->
 *      MatrixMarket;
 *   3. else SLV_ERR_INVALID with a message listing the supported formats.
 * After a successful parse the problem view goes through
 * slv_problem_validate (lo <= hi, finite A and b, findex structure, ...);
 * its message is returned as "FILE: <message>".  Then the instance gets its
 * name (base name without extension), format and kind.
 *
 * Writing with SLV_FMT_AUTO takes the format from the extension; for .dat
 * the Siconos variant that holds the instance (fc3d for cones, else lcp,
 * else mlcp, else relay).
 * Writers first check that the format can hold the instance
 * (SLV_ERR_UNSUPPORTED, nothing written) and refuse an invalid problem
 * (the status of slv_problem_validate).  Numbers are written with %.17g and
 * infinities as "inf" / "-inf", so that strtod gives back the same bits.
 *
 * The reader (see io_internal.h for the contract): the file is read whole
 * with fread into one NUL-terminated buffer; tokens are converted in place
 * with strtod / strtol and must be consumed entirely.
 */
#include "io_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- format names ------------------------------------------------------- */

const char *slv_format_str(slv_format f) {
  switch (f) {
  case SLV_FMT_AUTO: return "auto";
  case SLV_FMT_SICONOS_LCP: return "siconos-lcp";
  case SLV_FMT_SICONOS_MLCP: return "siconos-mlcp";
  case SLV_FMT_SICONOS_RELAY: return "siconos-relay";
  case SLV_FMT_BLCP: return "blcp";
  case SLV_FMT_MTX: return "mtx";
  case SLV_FMT_LCPLAB: return "lcplab";
  case SLV_FMT_SICONOS_FC3D: return "siconos-fc3d";
  case SLV_FMT_FCLIB: return "fclib";
  }
  return "unknown";
}

int slv_format_from_str(const char *s) {
  static const slv_format all[] = {SLV_FMT_AUTO, SLV_FMT_SICONOS_LCP, SLV_FMT_SICONOS_MLCP,
                                   SLV_FMT_SICONOS_RELAY, SLV_FMT_BLCP, SLV_FMT_MTX,
                                   SLV_FMT_LCPLAB, SLV_FMT_SICONOS_FC3D, SLV_FMT_FCLIB};
  if (!s) return -1;
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    if (strcmp(s, slv_format_str(all[k])) == 0) return (int)all[k];
  return -1;
}

/* The extension of path (after the last '.' of the last component), or "". */
static const char *extension(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  return (dot && dot != base) ? dot : "";
}

static int same_ci(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    int ca = (*a >= 'A' && *a <= 'Z') ? *a - 'A' + 'a' : *a;
    int cb = (*b >= 'A' && *b <= 'Z') ? *b - 'A' + 'a' : *b;
    if (ca != cb) return 0;
  }
  return *a == *b;
}

slv_format slv_format_for_path(const char *path) {
  if (!path) return SLV_FMT_AUTO;
  const char *ext = extension(path);
  if (same_ci(ext, ".dat")) return SLV_FMT_SICONOS_LCP;
  if (same_ci(ext, ".blcp")) return SLV_FMT_BLCP;
  if (same_ci(ext, ".mtx")) return SLV_FMT_MTX;
  if (same_ci(ext, ".lcp")) return SLV_FMT_LCPLAB;
  if (same_ci(ext, ".hdf5") || same_ci(ext, ".h5")) return SLV_FMT_FCLIB;
  return SLV_FMT_AUTO;
}

/* ---- the reader --------------------------------------------------------- */

static int is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

slv_status slv_rd_open(slv_reader *r, const char *path, char comment, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->err = err;
  r->errlen = errlen;
  r->line = 1;
  r->comment = comment;
  errno = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    slv_msgf(err, errlen, "%s: expected a readable file, found: %s", path,
             errno ? strerror(errno) : "cannot open");
    return SLV_ERR_INVALID;
  }
  /* Size hint from the end offset; never trusted beyond 1 GiB (directories
   * and special files report odd sizes), the loop below grows as needed. */
  size_t cap = 1 << 16;
  if (fseek(f, 0, SEEK_END) == 0) {
    long end = ftell(f);
    if (end >= 0 && end < (1L << 30)) cap = (size_t)end + 2;
  }
  rewind(f);
  char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    slv_msgf(err, errlen, "%s: out of memory reading the file", path);
    return SLV_ERR_NOMEM;
  }
  size_t len = 0;
  for (;;) {
    len += fread(buf + len, 1, cap - 1 - len, f);
    if (len < cap - 1) break; /* end of file or error */
    if (cap > SIZE_MAX / 2) break;
    int c = fgetc(f);
    if (c == EOF) break;
    char *nb = realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      fclose(f);
      slv_msgf(err, errlen, "%s: out of memory reading the file", path);
      return SLV_ERR_NOMEM;
    }
    buf = nb;
    cap *= 2;
    buf[len++] = (char)c;
  }
  if (ferror(f)) {
    int e = errno;
    free(buf);
    fclose(f);
    slv_msgf(err, errlen, "%s: expected a readable file, found: %s", path,
             e ? strerror(e) : "read error");
    return SLV_ERR_INVALID;
  }
  fclose(f);
  buf[len] = '\0';
  r->buf = buf;
  r->len = len;
  return SLV_CONVERGED;
}

void slv_rd_close(slv_reader *r) {
  if (!r) return;
  free(r->buf);
  r->buf = NULL;
  r->len = r->pos = 0;
}

static void skip_blank(const slv_reader *r, size_t *pos, long *line) {
  size_t p = *pos;
  long l = *line;
  const char *b = r->buf;
  while (p < r->len) {
    char c = b[p];
    if (c == '\n') {
      l++;
      p++;
    } else if (is_ws(c)) {
      p++;
    } else if (r->comment && c == r->comment) {
      while (p < r->len && b[p] != '\n') p++;
    } else {
      break;
    }
  }
  *pos = p;
  *line = l;
}

static int scan_token(const slv_reader *r, size_t *pos, long *line, slv_token *t) {
  skip_blank(r, pos, line);
  t->line = *line;
  t->s = r->buf ? r->buf + *pos : "";
  t->len = 0;
  if (*pos >= r->len) return 0;
  size_t p = *pos;
  while (p < r->len && !is_ws(r->buf[p]) && !(r->comment && r->buf[p] == r->comment)) p++;
  t->len = p - *pos;
  *pos = p;
  return 1;
}

int slv_rd_next(slv_reader *r, slv_token *t) { return scan_token(r, &r->pos, &r->line, t); }

int slv_rd_peek(const slv_reader *r, slv_token *t) {
  size_t pos = r->pos;
  long line = r->line;
  return scan_token(r, &pos, &line, t);
}

int slv_rd_at_end(const slv_reader *r) {
  slv_token t;
  return !slv_rd_peek(r, &t);
}

int slv_tok_is(const slv_token *t, const char *s) {
  size_t n = strlen(s);
  return t->len == n && memcmp(t->s, s, n) == 0;
}

/* The token for a message: quoted, at most 40 bytes, non-printable bytes as
 * \xNN; "end of file" for an empty token. */
static void show_token(const slv_token *t, char *out, size_t cap) {
  if (!t || t->len == 0) {
    snprintf(out, cap, "end of file");
    return;
  }
  size_t k = 0, shown = t->len > 40 ? 40 : t->len;
  out[k++] = '\'';
  for (size_t i = 0; i < shown && k + 6 < cap; i++) {
    unsigned char c = (unsigned char)t->s[i];
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
    } else {
      out[k++] = (char)c;
    }
  }
  if (shown < t->len && k + 5 < cap) {
    memcpy(out + k, "...", 3);
    k += 3;
  }
  out[k++] = '\'';
  out[k] = '\0';
}

static slv_status rd_vfail(const slv_reader *r, const slv_token *t, slv_status st,
                           const char *what, va_list ap) {
  char w[256], tok[256];
  vsnprintf(w, sizeof w, what, ap);
  show_token(t, tok, sizeof tok);
  slv_msgf(r->err, r->errlen, "%s:%ld: expected %s, found %s", r->path,
           t ? t->line : r->line, w, tok);
  return st;
}

slv_status slv_rd_fail(const slv_reader *r, const slv_token *t, slv_status st, const char *what,
                       ...) {
  va_list ap;
  va_start(ap, what);
  rd_vfail(r, t, st, what, ap);
  va_end(ap);
  return st;
}

slv_status slv_rd_failf(const slv_reader *r, long line, slv_status st, const char *fmt, ...) {
  char m[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  slv_msgf(r->err, r->errlen, "%s:%ld: %s", r->path, line, m);
  return st;
}

/* 1: integer, 2: integer out of long's range, 0: not an integer. */
static int parse_long(const slv_token *t, long *v) {
  if (t->len == 0) return 0;
  char c = t->s[0];
  if (!((c >= '0' && c <= '9') || c == '-' || c == '+')) return 0;
  char *end;
  errno = 0;
  *v = strtol(t->s, &end, 10);
  if (end != t->s + t->len) return 0;
  return errno == ERANGE ? 2 : 1;
}

/* 1: a number (NaN excluded), 0: not a number or NaN. */
static int parse_double(const slv_token *t, double *v) {
  if (t->len == 0) return 0;
  char c = t->s[0];
  /* strtod skips leading white space; tokens never start with it, but a
   * token may start with a NUL byte or other garbage: refuse early. */
  if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'i' || c == 'I' ||
        c == 'n' || c == 'N'))
    return 0;
  char *end;
  *v = strtod(t->s, &end);
  return end == t->s + t->len;
}

slv_status slv_rd_int(slv_reader *r, long lo, long hi, int *out, const char *what, ...) {
  slv_token t;
  long v = 0;
  if (slv_rd_next(r, &t) && parse_long(&t, &v) == 1 && v >= lo && v <= hi) {
    *out = (int)v;
    return SLV_CONVERGED;
  }
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return slv_rd_fail(r, &t, SLV_ERR_INVALID, "%s (an integer in [%ld, %ld])", w, lo, hi);
}

slv_status slv_rd_size(slv_reader *r, long max, int *out, long *line, const char *what, ...) {
  slv_token t;
  long v = 0;
  int have = slv_rd_next(r, &t);
  int kind = have ? parse_long(&t, &v) : 0;
  if (line) *line = t.line;
  if (kind == 1 && v >= 0 && v <= max) {
    *out = (int)v;
    return SLV_CONVERGED;
  }
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  /* Not an integer at all: malformed.  An integer out of range: a size we
   * refuse (negative, or more than the readers accept). */
  return slv_rd_fail(r, &t, kind == 0 ? SLV_ERR_INVALID : SLV_ERR_DIM,
                     "%s (a size in [0, %ld])", w, max);
}

/* Reads one number; 0 on success, else the reason: 1 end of file or not a
 * number, 2 infinite where finite was asked.  t gets the token. */
static int rd_num(slv_reader *r, int flags, double *v, slv_token *t) {
  if (!slv_rd_next(r, t)) return 1;
  if (!parse_double(t, v) || isnan(*v)) return 1;
  if (isinf(*v) && !(flags & SLV_RD_INF_OK)) return 2;
  return 0;
}

static const char *num_kind(int flags, int why) {
  if (why == 2 || !(flags & SLV_RD_INF_OK)) return "a finite number";
  return "a number or inf/-inf";
}

slv_status slv_rd_double(slv_reader *r, int flags, double *out, const char *what, ...) {
  slv_token t;
  int why = rd_num(r, flags, out, &t);
  if (!why) return SLV_CONVERGED;
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return slv_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s", num_kind(flags, why), w);
}

slv_status slv_rd_doubles(slv_reader *r, size_t count, int flags, double *out, const char *name) {
  slv_token t;
  for (size_t i = 0; i < count; i++) {
    int why = rd_num(r, flags, &out[i], &t);
    if (why)
      return slv_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s[%zu]", num_kind(flags, why), name, i);
  }
  return SLV_CONVERGED;
}

slv_status slv_rd_matrix(slv_reader *r, int rows, int cols, int colmajor, double *dst, size_t ld,
                         int flags, const char *name) {
  slv_token t;
  int outer = colmajor ? cols : rows, inner = colmajor ? rows : cols;
  for (int a = 0; a < outer; a++)
    for (int b = 0; b < inner; b++) {
      int i = colmajor ? b : a, j = colmajor ? a : b;
      int why = rd_num(r, flags, &dst[(size_t)i + (size_t)j * ld], &t);
      if (why)
        return slv_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s(%d,%d) of %d x %d, %s",
                           num_kind(flags, why), name, i, j, rows, cols,
                           colmajor ? "column-major" : "row-major");
    }
  return SLV_CONVERGED;
}

slv_status slv_rd_upper(slv_reader *r, int n, const double *lo, double *hi, const char *name_hi,
                        const char *name_lo) {
  slv_token t;
  for (int i = 0; i < n; i++) {
    int why = rd_num(r, SLV_RD_INF_OK, &hi[i], &t);
    if (why)
      return slv_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s[%d]", num_kind(SLV_RD_INF_OK, why),
                         name_hi, i);
    if (hi[i] < lo[i])
      return slv_rd_fail(r, &t, SLV_ERR_INVALID, "%s[%d] >= %s[%d] = %.17g", name_hi, i, name_lo,
                         i, lo[i]);
  }
  return SLV_CONVERGED;
}

slv_status slv_rd_need(const slv_reader *r, double count, const char *what, ...) {
  double left = (double)(r->len - r->pos);
  if (count <= 0 || 2.0 * count - 1.0 <= left) return SLV_CONVERGED;
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return slv_rd_failf(r, r->line, SLV_ERR_INVALID,
                      "expected %.0f number%s for %s, found only %zu bytes left in the file",
                      count, count == 1 ? "" : "s", w, r->len - r->pos);
}

int slv_rd_try_long(slv_reader *r, long *v) {
  slv_reader c = *r;
  slv_token t;
  if (!slv_rd_next(&c, &t) || parse_long(&t, v) != 1) return 0;
  r->pos = c.pos;
  r->line = c.line;
  return 1;
}

int slv_rd_try_double(slv_reader *r, double *v) {
  slv_reader c = *r;
  slv_token t;
  if (!slv_rd_next(&c, &t) || !parse_double(&t, v) || isnan(*v)) return 0;
  r->pos = c.pos;
  r->line = c.line;
  return 1;
}

/* ---- the writer ---------------------------------------------------------- */

slv_status slv_wr_open(slv_writer *w, const char *path, char *err, size_t errlen) {
  w->path = path;
  w->err = err;
  w->errlen = errlen;
  errno = 0;
  w->f = fopen(path, "w");
  if (!w->f) {
    slv_msgf(err, errlen, "%s: cannot write: %s", path, errno ? strerror(errno) : "fopen failed");
    return SLV_ERR_INVALID;
  }
  return SLV_CONVERGED;
}

slv_status slv_wr_close(slv_writer *w) {
  int bad = ferror(w->f);
  int e = errno;
  if (fclose(w->f) != 0) {
    bad = 1;
    e = errno;
  }
  w->f = NULL;
  if (!bad) return SLV_CONVERGED;
  remove(w->path);
  slv_msgf(w->err, w->errlen, "%s: write failed: %s", w->path, e ? strerror(e) : "I/O error");
  return SLV_ERR_INVALID;
}

void slv_wr_double(slv_writer *w, double v, char sep) {
  if (isinf(v))
    fputs(v > 0 ? "inf" : "-inf", w->f);
  else
    fprintf(w->f, "%.17g", v);
  if (sep) fputc(sep, w->f);
}

int slv_io_is_pos_zero(double x) { return x == 0.0 && !signbit(x); }

/* ---- dispatch ------------------------------------------------------------ */

static const char *const SUPPORTED =
    ".dat (Siconos LCP, MLCP, relay or FC3D), .blcp, .mtx (MatrixMarket), .lcp (lcplab), "
    ".hdf5 (FCLIB), or a file whose first token is 'lcplab-problem' or '%%MatrixMarket'";

/* Sniffs the first token of a file of unknown extension. */
static slv_status sniff(const char *path, slv_format *fmt, char *err, size_t errlen) {
  slv_reader r;
  slv_status st = slv_rd_open(&r, path, 0, err, errlen);
  if (st) return st;
  slv_token t;
  *fmt = SLV_FMT_AUTO;
  if (slv_io_is_hdf5_bytes(r.buf, r.len)) {
    *fmt = SLV_FMT_FCLIB;
    slv_rd_close(&r);
    return SLV_CONVERGED;
  }
  int have = slv_rd_next(&r, &t);
  if (have && slv_tok_is(&t, "lcplab-problem")) *fmt = SLV_FMT_LCPLAB;
  if (have && t.len >= 14 && memcmp(t.s, "%%MatrixMarket", 14) == 0) *fmt = SLV_FMT_MTX;
  if (*fmt == SLV_FMT_AUTO) {
    st = slv_rd_fail(&r, &t, SLV_ERR_INVALID, "a supported format: %s (extension '%s')", SUPPORTED,
                     extension(path));
  }
  slv_rd_close(&r);
  return st;
}

static void set_name(slv_instance *inst, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base), e = strlen(extension(path));
  n -= e;
  if (n >= sizeof inst->name) n = sizeof inst->name - 1;
  memcpy(inst->name, base, n);
  inst->name[n] = '\0';
}

slv_status slv_read(const char *path, slv_format fmt, slv_instance **out, char *err,
                    size_t errlen) {
  slv_msgf(err, errlen, "%s", "");
  if (out) *out = NULL;
  if (!path || !out) {
    slv_msgf(err, errlen, "slv_read: path and out must not be NULL");
    return SLV_ERR_INVALID;
  }
  /* want: the reader to run; found: what the instance will say it was read
   * from (for a .dat read by content, the Siconos reader decides). */
  slv_format want = fmt, found = fmt;
  slv_status st;
  if (fmt == SLV_FMT_AUTO) {
    want = slv_format_for_path(path);
    if (want == SLV_FMT_AUTO && (st = sniff(path, &want, err, errlen))) return st;
    found = want == SLV_FMT_SICONOS_LCP ? SLV_FMT_AUTO : want;
  }
  slv_instance *inst = NULL;
  slv_reader r;
  switch (want) {
  case SLV_FMT_MTX:
    st = slv_io_read_mtx(path, &inst, err, errlen);
    break;
  case SLV_FMT_FCLIB:
    st = slv_io_read_fclib(path, &inst, err, errlen);
    break;
  case SLV_FMT_SICONOS_LCP:
  case SLV_FMT_SICONOS_MLCP:
  case SLV_FMT_SICONOS_RELAY:
  case SLV_FMT_SICONOS_FC3D:
    if ((st = slv_rd_open(&r, path, 0, err, errlen))) return st;
    st = slv_io_read_siconos(&r, found, &inst, &found);
    slv_rd_close(&r);
    break;
  case SLV_FMT_BLCP:
    if ((st = slv_rd_open(&r, path, '#', err, errlen))) return st;
    st = slv_io_read_blcp(&r, &inst);
    slv_rd_close(&r);
    break;
  case SLV_FMT_LCPLAB:
    if ((st = slv_rd_open(&r, path, '#', err, errlen))) return st;
    st = slv_io_read_lcplab(&r, &inst);
    slv_rd_close(&r);
    break;
  default:
    slv_msgf(err, errlen, "%s: expected a format in [0, %d], found %d", path, (int)SLV_FMT_LAST,
             (int)want);
    return SLV_ERR_INVALID;
  }
  if (st) {
    slv_instance_free(inst);
    return st;
  }
  slv_problem p = slv_instance_problem(inst);
  char msg[256];
  st = slv_problem_validate(&p, msg, sizeof msg);
  if (st) {
    slv_msgf(err, errlen, "%s: %s", path, msg);
    slv_instance_free(inst);
    return st;
  }
  inst->format = found;
  set_name(inst, path);
  slv_instance_classify(inst);
  *out = inst;
  return SLV_CONVERGED;
}

slv_status slv_write(const char *path, slv_format fmt, const slv_instance *inst, char *err,
                     size_t errlen) {
  slv_msgf(err, errlen, "%s", "");
  if (!path || !inst) {
    slv_msgf(err, errlen, "slv_write: path and instance must not be NULL");
    return SLV_ERR_INVALID;
  }
  slv_problem p = slv_instance_problem(inst);
  char msg[256];
  slv_status st = slv_problem_validate(&p, msg, sizeof msg);
  if (st) {
    slv_msgf(err, errlen, "%s: cannot write an invalid problem: %s", path, msg);
    return st;
  }
  if (inst->storage == SLV_FACTORED && fmt != SLV_FMT_LCPLAB
      && !(fmt == SLV_FMT_AUTO && slv_format_for_path(path) == SLV_FMT_LCPLAB)) {
    slv_msgf(err, errlen, "%s: only the lcplab format (.lcp) holds factored storage", path);
    return SLV_ERR_UNSUPPORTED;
  }
  if (fmt == SLV_FMT_AUTO) {
    fmt = slv_format_for_path(path);
    if (fmt == SLV_FMT_AUTO) {
      slv_msgf(err, errlen, "%s: expected an extension .dat, .blcp, .mtx, .lcp or .hdf5 to "
               "choose the format, found '%s'", path, extension(path));
      return SLV_ERR_UNSUPPORTED;
    }
    if (fmt == SLV_FMT_SICONOS_LCP) fmt = slv_io_siconos_choose(inst);
  }
  switch (fmt) {
  case SLV_FMT_SICONOS_LCP:
  case SLV_FMT_SICONOS_MLCP:
  case SLV_FMT_SICONOS_RELAY:
    return slv_io_write_siconos(path, fmt, inst, err, errlen);
  case SLV_FMT_BLCP:
    return slv_io_write_blcp(path, inst, err, errlen);
  case SLV_FMT_MTX:
    return slv_io_write_mtx(path, inst, err, errlen);
  case SLV_FMT_LCPLAB:
    return slv_io_write_lcplab(path, inst, err, errlen);
  case SLV_FMT_SICONOS_FC3D:
    return slv_io_write_fc3d(path, inst, err, errlen);
  case SLV_FMT_FCLIB:
    return slv_io_write_fclib(path, inst, err, errlen);
  default:
    break;
  }
  slv_msgf(err, errlen, "%s: expected a format in [1, %d], found %d", path, (int)SLV_FMT_LAST,
           (int)fmt);
  return SLV_ERR_INVALID;
}
