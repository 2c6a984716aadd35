/* io_text.c -- the buffered text reader and writer of io_internal.h, and
 * the memory cap's accounting.
 *
 * The reader (see io_internal.h for the contract): the file, a regular file
 * (io_open_regular: a FIFO, a device or a directory is refused when it is
 * opened, without blocking), is read whole with fread into one
 * NUL-terminated buffer, after its size has been checked against the
 * memory cap, its first 64 KiB before the rest, and a NUL byte anywhere
 * refused (no text holds one: a binary file, a sparse file's hole); tokens
 * are converted in place by
 * libsolvers' strict parser (slv_parse_double_n, slv_parse_long_n: the
 * whole token, NaN never).  The writer prints numbers
 * with %.17g and infinities as "inf" / "-inf", so that strtod gives back
 * the same bits.  io_read / io_write, over the formats, are in
 * io_dispatch.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "io_internal.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the reader --------------------------------------------------------- */

static int is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* What a file that is not a regular file is, for the message. */
static const char *file_type(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

slv_status io_open_regular(const char *path, int *fd, double *size, char *err, size_t errlen) {
  *fd = -1;
  errno = 0;
  /* O_NONBLOCK: opening a FIFO that no one writes returns at once (a plain
   * open would wait for a writer forever) */
  int d = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat sb;
  if (d < 0 || fstat(d, &sb) != 0) {
    int e = errno;
    if (d >= 0) close(d);
    io_msgf(err, errlen, "%s: expected a readable file, found: %s", path,
            e ? strerror(e) : "cannot open");
    return SLV_ERR_INVALID;
  }
  if (!S_ISREG(sb.st_mode)) {
    close(d);
    io_msgf(err, errlen, "%s: expected a regular file, found %s", path, file_type(sb.st_mode));
    return SLV_ERR_INVALID;
  }
  int fl = fcntl(d, F_GETFL);
  if (fl >= 0) fcntl(d, F_SETFL, fl & ~O_NONBLOCK);
  *fd = d;
  if (size) *size = (double)sb.st_size;
  return SLV_OK;
}

/* path opened for reading, *f, with its size; a file that is not a regular
 * file, or larger than the cap, is refused before anything is read. */
static slv_status open_capped(const io_reader *r, FILE **f, double *size) {
  int fd;
  *f = NULL;
  slv_status st = io_open_regular(r->path, &fd, size, r->err, r->errlen);
  if (st) return st;
  if (*size > r->cap) {
    close(fd);
    io_msgf(r->err, r->errlen,
            "%s: expected a file that fits the memory cap of %.0f bytes "
            "(max_memory), found %.0f bytes",
            r->path, r->cap, *size);
    return SLV_ERR_DIM;
  }
  if (!(*f = fdopen(fd, "rb"))) {
    close(fd);
    io_msgf(r->err, r->errlen, "%s: out of memory reading the file", r->path);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* The refusal of a file that grows beyond the cap while it is read. */
static slv_status too_big(const io_reader *r, size_t len) {
  io_msgf(r->err, r->errlen,
          "%s: expected a file that fits the memory cap of %.0f bytes "
          "(max_memory), found more than %zu bytes",
          r->path, r->cap, len);
  return SLV_ERR_DIM;
}

/* A text file holds no NUL byte: one in b[from, to) is a binary file, or
 * the hole of a sparse file (a program that seeked past the end of what it
 * wrote), refused where it is found. */
static slv_status no_nul(const io_reader *r, const char *b, size_t from, size_t to) {
  const char *z = memchr(b + from, '\0', to - from);
  if (!z) return SLV_OK;
  io_msgf(r->err, r->errlen, "%s: expected a text file, found a NUL byte at byte %zu", r->path,
          (size_t)(z - b));
  return SLV_ERR_INVALID;
}

/* The first read: this much, checked before the buffer of the whole file
 * is allocated, so that a binary or sparse file is refused having cost
 * this and no more. */
#define FIRST_CHUNK ((size_t)1 << 16)

/* The whole of f (size bytes when opened) into *buf (NUL-terminated, *len
 * bytes before the NUL): its first FIRST_CHUNK bytes, then all of it,
 * growing the buffer if the file grows meanwhile and refusing to pass the
 * cap; a NUL byte anywhere is refused.  On failure nothing is left
 * allocated. */
static slv_status read_whole(const io_reader *r, FILE *f, double size, char **buf, size_t *len) {
  size_t cap = size + 2.0 < (double)FIRST_CHUNK ? (size_t)size + 2 : FIRST_CHUNK, n = 0;
  char *b = malloc(cap);
  slv_status st = b ? SLV_OK : SLV_ERR_NOMEM;
  while (!st) {
    size_t got = fread(b + n, 1, cap - 1 - n, f);
    st = no_nul(r, b, n, n + got);
    n += got;
    if (st || n < cap - 1 || cap > SIZE_MAX / 2) break; /* end of file or error */
    int c = fgetc(f);
    if (c == EOF) break;
    b[n] = (char)c; /* in the terminator's place until the buffer grows */
    if ((st = no_nul(r, b, n, n + 1))) break;
    /* the size the file had when opened, else (it grew) twice the buffer */
    double want = size + 2.0 > 2.0 * (double)cap ? size + 2.0 : 2.0 * (double)cap;
    if (want - 1.0 > r->cap) {
      st = too_big(r, n + 1);
      break;
    }
    char *nb = realloc(b, (size_t)want);
    if (!nb) {
      st = SLV_ERR_NOMEM;
      break;
    }
    b = nb;
    cap = (size_t)want;
    n++;
  }
  if (st == SLV_ERR_NOMEM)
    io_msgf(r->err, r->errlen, "%s: out of memory reading the file", r->path);
  if (!st && ferror(f)) {
    int e = errno;
    io_msgf(r->err, r->errlen, "%s: expected a readable file, found: %s", r->path,
            e ? strerror(e) : "read error");
    st = SLV_ERR_INVALID;
  }
  if (st) {
    free(b);
    return st;
  }
  b[n] = '\0';
  *buf = b;
  *len = n;
  return SLV_OK;
}

slv_status io_rd_open(io_reader *r, const char *path, char comment, size_t max_memory, char *err,
                      size_t errlen) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->err = err;
  r->errlen = errlen;
  r->line = 1;
  r->comment = comment;
  r->cap = (double)max_memory;
  FILE *f;
  double size;
  slv_status st = open_capped(r, &f, &size);
  if (st) return st;
  st = read_whole(r, f, size, &r->buf, &r->len);
  fclose(f);
  if (st) return st;
  r->mem = (double)r->len + 1.0; /* the buffer: the reader's first reservation against the cap */
  return SLV_OK;
}

slv_status io_rd_open_req(io_reader *r, const io_req *rq, char comment) {
  return io_rd_open(r, rq->path, comment, rq->max_memory, rq->err, rq->errlen);
}

/* "expected sizes that fit the memory cap of C bytes (max_memory), found
 * <what>: B bytes (T in all)" */
static void cap_message(char *out, size_t len, double cap, double bytes, double total,
                        const char *what, va_list ap) {
  char w[256];
  vsnprintf(w, sizeof w, what, ap);
  snprintf(out, len,
           "expected sizes that fit the memory cap of %.0f bytes (max_memory), found "
           "%s: %.0f bytes (%.0f in all)",
           cap, w, bytes, total);
}

slv_status io_rd_reserve(io_reader *r, long line, double bytes, const char *what, ...) {
  double total = r->mem + bytes;
  if (total <= r->cap) {
    r->mem = total;
    return SLV_OK;
  }
  char m[400];
  va_list ap;
  va_start(ap, what);
  cap_message(m, sizeof m, r->cap, bytes, total, what, ap);
  va_end(ap);
  return io_rd_failf(r, line, SLV_ERR_DIM, "%s", m);
}

slv_status io_reserve(const char *path, double *mem, double cap, double bytes, char *err,
                      size_t errlen, const char *what, ...) {
  double total = *mem + bytes;
  if (total <= cap) {
    *mem = total;
    return SLV_OK;
  }
  char m[400];
  va_list ap;
  va_start(ap, what);
  cap_message(m, sizeof m, cap, bytes, total, what, ap);
  va_end(ap);
  io_msgf(err, errlen, "%s: %s", path, m);
  return SLV_ERR_DIM;
}

void io_rd_close(io_reader *r) {
  if (!r) return;
  free(r->buf);
  r->buf = NULL;
  r->len = r->pos = 0;
}

static void skip_blank(const io_reader *r, size_t *pos, long *line) {
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

static int scan_token(const io_reader *r, size_t *pos, long *line, io_token *t) {
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

int io_rd_next(io_reader *r, io_token *t) { return scan_token(r, &r->pos, &r->line, t); }

int io_rd_peek(const io_reader *r, io_token *t) {
  size_t pos = r->pos;
  long line = r->line;
  return scan_token(r, &pos, &line, t);
}

long io_rd_note(const io_reader *r, const char *key, char *val, size_t vlen) {
  const char *b = r->buf;
  size_t p = r->pos, k = strlen(key);
  long line = r->line;
  if (!r->comment || !b) return 0;
  while (p < r->len && b[p] != '\n' && is_ws(b[p])) p++; /* the rest of the cursor's line */
  if (p < r->len && b[p] != '\n' && b[p] != r->comment) return 0;
  while (p < r->len) {
    if (is_ws(b[p])) {
      line += b[p] == '\n';
      p++;
      continue;
    }
    if (b[p] != r->comment) return 0; /* a token: the comment lines are over */
    size_t q = p + 1, e = p;
    while (e < r->len && b[e] != '\n') e++;
    while (q < e && (b[q] == ' ' || b[q] == '\t')) q++;
    if (e - q >= k && memcmp(b + q, key, k) == 0) {
      q += k;
      while (q < e && (b[q] == ' ' || b[q] == '\t')) q++;
      while (e > q && is_ws(b[e - 1])) e--;
      size_t n = e - q < vlen ? e - q : vlen - 1;
      memcpy(val, b + q, n);
      val[n] = '\0';
      return line;
    }
    p = e;
  }
  return 0;
}

int io_rd_at_end(const io_reader *r) {
  io_token t;
  return !io_rd_peek(r, &t);
}

int io_tok_is(const io_token *t, const char *s) {
  size_t n = strlen(s);
  return t->len == n && memcmp(t->s, s, n) == 0;
}

/* The token for a message: quoted, at most 40 bytes, non-printable bytes as
 * \xNN; "end of file" for an empty token. */
static void show_token(const io_token *t, char *out, size_t cap) {
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

static slv_status rd_vfail(const io_reader *r, const io_token *t, slv_status st, const char *what,
                           va_list ap) {
  char w[256], tok[256];
  vsnprintf(w, sizeof w, what, ap);
  show_token(t, tok, sizeof tok);
  io_msgf(r->err, r->errlen, "%s:%ld: expected %s, found %s", r->path, t ? t->line : r->line, w,
          tok);
  return st;
}

slv_status io_rd_fail(const io_reader *r, const io_token *t, slv_status st, const char *what, ...) {
  va_list ap;
  va_start(ap, what);
  rd_vfail(r, t, st, what, ap);
  va_end(ap);
  return st;
}

slv_status io_rd_failf(const io_reader *r, long line, slv_status st, const char *fmt, ...) {
  char m[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  io_msgf(r->err, r->errlen, "%s:%ld: %s", r->path, line, m);
  return st;
}

/* 1: integer, 2: integer out of long's range, 0: not an integer
 * (libsolvers' strict parser, slv_parse_long_n). */
static int parse_long(const io_token *t, long *v) {
  switch (slv_parse_long_n(t->s, t->len, v)) {
  case SLV_PARSE_OK: return 1;
  case SLV_PARSE_RANGE: return 2;
  default: return 0;
  }
}

slv_status io_rd_int(io_reader *r, long lo, long hi, int *out, const char *what, ...) {
  io_token t;
  long v = 0;
  if (io_rd_next(r, &t) && parse_long(&t, &v) == 1 && v >= lo && v <= hi) {
    *out = (int)v;
    return SLV_OK;
  }
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return io_rd_fail(r, &t, SLV_ERR_INVALID, "%s (an integer in [%ld, %ld])", w, lo, hi);
}

slv_status io_rd_size(io_reader *r, long max, int *out, long *line, const char *what, ...) {
  io_token t;
  long v = 0;
  int have = io_rd_next(r, &t);
  int kind = have ? parse_long(&t, &v) : 0;
  if (line) *line = t.line;
  if (kind == 1 && v >= 0 && v <= max) {
    *out = (int)v;
    return SLV_OK;
  }
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  /* Not an integer at all: malformed.  An integer out of range: a size we
   * refuse (negative, or more than the readers accept). */
  return io_rd_fail(r, &t, kind == 0 ? SLV_ERR_INVALID : SLV_ERR_DIM, "%s (a size in [0, %ld])", w,
                    max);
}

/* Reads one number; 0 on success, else the reason: 1 end of file or not a
 * number (NaN included), 2 infinite (or beyond DBL_MAX) where finite was
 * asked.  t gets the token. */
static int rd_num(io_reader *r, int flags, double *v, io_token *t) {
  if (!io_rd_next(r, t)) return 1;
  unsigned pf = (flags & IO_RD_INF_OK) ? SLV_PARSE_INF : SLV_PARSE_FINITE;
  switch (slv_parse_double_n(t->s, t->len, pf, v)) {
  case SLV_PARSE_OK: return 0;
  case SLV_PARSE_INFINITE:
  case SLV_PARSE_RANGE: return 2;
  default: return 1;
  }
}

static const char *num_kind(int flags, int why) {
  if (why == 2 || !(flags & IO_RD_INF_OK)) return "a finite number";
  return "a number or inf/-inf";
}

slv_status io_rd_double(io_reader *r, int flags, double *out, const char *what, ...) {
  io_token t;
  int why = rd_num(r, flags, out, &t);
  if (!why) return SLV_OK;
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return io_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s", num_kind(flags, why), w);
}

slv_status io_rd_doubles(io_reader *r, size_t count, int flags, double *out, const char *name) {
  io_token t;
  for (size_t i = 0; i < count; i++) {
    int why = rd_num(r, flags, &out[i], &t);
    if (why)
      return io_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s[%zu]", num_kind(flags, why), name, i);
  }
  return SLV_OK;
}

slv_status io_rd_matrix(io_reader *r, int rows, int cols, int colmajor, double *dst, size_t ld,
                        int flags, const char *name) {
  io_token t;
  int outer = colmajor ? cols : rows, inner = colmajor ? rows : cols;
  for (int a = 0; a < outer; a++)
    for (int b = 0; b < inner; b++) {
      int i = colmajor ? b : a, j = colmajor ? a : b;
      int why = rd_num(r, flags, &dst[(size_t)i + (size_t)j * ld], &t);
      if (why)
        return io_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s(%d,%d) of %d x %d, %s",
                          num_kind(flags, why), name, i, j, rows, cols,
                          colmajor ? "column-major" : "row-major");
    }
  return SLV_OK;
}

slv_status io_rd_upper(io_reader *r, int n, const double *lo, double *hi, const char *name_hi,
                       const char *name_lo) {
  io_token t;
  for (int i = 0; i < n; i++) {
    int why = rd_num(r, IO_RD_INF_OK, &hi[i], &t);
    if (why)
      return io_rd_fail(r, &t, SLV_ERR_INVALID, "%s for %s[%d]", num_kind(IO_RD_INF_OK, why),
                        name_hi, i);
    if (hi[i] < lo[i])
      return io_rd_fail(r, &t, SLV_ERR_INVALID, "%s[%d] >= %s[%d] = %.17g", name_hi, i, name_lo, i,
                        lo[i]);
  }
  return SLV_OK;
}

slv_status io_rd_need(const io_reader *r, double count, const char *what, ...) {
  double left = (double)(r->len - r->pos);
  if (count <= 0 || 2.0 * count - 1.0 <= left) return SLV_OK;
  char w[256];
  va_list ap;
  va_start(ap, what);
  vsnprintf(w, sizeof w, what, ap);
  va_end(ap);
  return io_rd_failf(r, r->line, SLV_ERR_INVALID,
                     "expected %.0f number%s for %s, found only %zu bytes left in the file", count,
                     count == 1 ? "" : "s", w, r->len - r->pos);
}

int io_rd_try_long(io_reader *r, long *v) {
  io_reader c = *r;
  io_token t;
  if (!io_rd_next(&c, &t) || parse_long(&t, v) != 1) return 0;
  r->pos = c.pos;
  r->line = c.line;
  return 1;
}

int io_rd_try_double(io_reader *r, double *v) {
  io_reader c = *r;
  io_token t;
  if (!io_rd_next(&c, &t) || slv_parse_double_n(t.s, t.len, SLV_PARSE_INF, v)) return 0;
  r->pos = c.pos;
  r->line = c.line;
  return 1;
}

/* ---- the writer ---------------------------------------------------------- */

slv_status io_wr_open(io_writer *w, const char *path, char *err, size_t errlen) {
  w->path = path;
  w->err = err;
  w->errlen = errlen;
  w->o = io_outfile_open(path, err, errlen);
  w->f = io_outfile_stream(w->o);
  return w->o ? SLV_OK : SLV_ERR_INVALID;
}

slv_status io_wr_close(io_writer *w) {
  slv_status st = io_outfile_publish(w->o, w->err, w->errlen);
  w->o = NULL;
  w->f = NULL;
  return st;
}

slv_status io_wr_finish(io_writer *w) {
  w->f = NULL;
  return io_outfile_finish(w->o, w->err, w->errlen);
}

void io_wr_vec(io_writer *w, int n, const double *x) {
  for (int i = 0; i < n; i++) io_wr_double(w, x[i], '\n');
}

void io_wr_ivec(io_writer *w, int n, const int *x) {
  for (int i = 0; i < n; i++) fprintf(w->f, "%d\n", x[i]);
}

void io_wr_discard(io_writer *w) {
  io_outfile_discard(w->o);
  w->o = NULL;
  w->f = NULL;
}

void io_wr_double(io_writer *w, double v, char sep) {
  if (isinf(v))
    fputs(v > 0 ? "inf" : "-inf", w->f);
  else
    fprintf(w->f, "%.17g", v);
  if (sep) fputc(sep, w->f);
}
