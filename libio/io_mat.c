/* io_mat.c -- LCPs saved from MATLAB: MAT-files, version 5 or 7.3 (read only).
 *
 * A MAT-file holds named MATLAB variables; version 7.3 is HDF5 behind a
 * 512-byte user block ("MATLAB 7.3 MAT-file"), version 5 is MATLAB's own
 * binary layout.  Version 5 is read with Debian's libmatio (matio.h), which
 * parses the container; version 7.3 with HDF5 calls of io_mat73.c, which
 * check every object header first and describe each variable as libmatio
 * would (a matvar_t); this file checks and converts the variables.  The
 * problem is the LCP of docs/problem.md, w = A x + b, x >= 0, w >= 0,
 * x.w = 0, stored as MATLAB users write it, w = M z + q:
 *     M or A   the matrix: a real n x n double, dense or sparse (MATLAB's
 *              sparse is CSC: jc (n + 1 column starts), ir (0-based rows))
 *     q or b   the vector: a real double, n x 1 or 1 x n
 *     lo, hi   optional bounds, real doubles n x 1 or 1 x n (default 0 and
 *              +inf); with them the problem is a boxed LCP
 * so A = M, b = q, as the Siconos LCP reader (io_siconos.c) reads the same
 * (M, q).  Every other variable is ignored.  A dense M is kept dense
 * (MATLAB's column-major order is lcplab's); a sparse one becomes CSR.
 *
 * Checks, each a one-line "PATH: expected ..., found ..." naming the
 * variable (SLV_ERR_INVALID unless said): the file is a MAT-file; M (or A)
 * and q (or b) exist; each is 2-D, real (not complex), of class double
 * (a sparse M: double, not logical); M is square with n >= 1 and q, lo, hi
 * hold n values; a sparse M has n + 1 column starts from 0, nondecreasing,
 * ending at most at its entry count, and every row index in [0, n); the
 * values of M and q are finite, lo and hi are not NaN and lo <= hi.  Sizes: n <= IO_MAX_N and a dense n x n
 * <= IO_MAX_NNZ (SLV_ERR_DIM), checked from the variable's header before
 * its data is read; the instance's bytes are reserved against the memory
 * cap (io_req.max_memory).  libmatio allocates a variable's own data as it
 * reads it, so a sparse M's entry count is bounded only after its read; in
 * a version 5 file every variable's inner tags are first checked against
 * the variable's bytes (below), so that libmatio allocates at most 8 times
 * what the file (or a compressed variable, inflated) holds.
 *
 * libmatio's messages go to a log function that is process-global; every
 * read sets it to one that drops them (libmatio's default would print, and
 * abort on its errors), and switches HDF5's error printer off as the FCLIB
 * reader does (io.h: not from two threads at once).  A version 7.3 file is
 * never given to libmatio (io_mat73.c says why).
 */
#define _POSIX_C_SOURCE 200809L /* pread */

#include "io_internal.h"
#include "io_mat73.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef struct mat_ctx {
  const char *path;
  char *err;
  size_t errlen;
  mat_t *mat;      /* a version 5 file, through libmatio */
  io_mat73 *m73;   /* a version 7.3 file, through HDF5 (io_mat73.c) */
  double mem, cap; /* the memory cap's running total */
} mat_ctx;

static slv_status mat_fail(mat_ctx *c, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static slv_status mat_fail(mat_ctx *c, slv_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  st = io_path_vfail(c->path, c->err, c->errlen, st, fmt, ap);
  va_end(ap);
  return st;
}

/* libmatio's log function: drops every message (the library never prints). */
static void mat_log_drop(int level, char *message) {
  (void)level;
  (void)message;
}

/* ---- what libmatio allocates for a version 5 variable ----------------------- */

/* libmatio sizes a variable's buffers from the tags inside it (each
 * subelement's byte count; a dense array's dimensions times 8) without
 * comparing them with the file, so a few changed bytes ask it for gigabytes.
 * Each top-level miMATRIX element is therefore walked first, from the file
 * or, for an miCOMPRESSED one, from its zlib stream inflated here a chunk at
 * a time (nothing kept but the tags): every subelement must lie inside its
 * variable, the variable must be wholly present (a compressed one: its
 * inflated bytes), and a dense array's dimensions may promise at most one
 * value per byte of the variable (the smallest MAT type is one byte).  A
 * sparse array's buffers are its subelements, so bounded by them.  libmatio
 * then allocates at most 8 times the variable's size; for a compressed one,
 * whose inflated size is bounded only by zlib's ratio (about 1000), the
 * inflating costs time proportional to what libmatio reads after it. */
enum { MI_MATRIX = 14, MI_COMPRESSED = 15, MX_SPARSE = 5, V5_KEEP = 64 };

typedef struct v5_walk {
  int le, in_matrix, done, sub; /* sub: subelements begun (0 flags, 1 dims, 2 name) */
  unsigned char tag[8];
  int ntag;
  double nb, left, skip;          /* the variable's bytes; left of them; of this subelement */
  unsigned char keep[3][V5_KEEP]; /* the data of flags, dims, name */
  int nkept[3], want;
  const char *bad; /* the first fault, a static message */
  double bad_at;
} v5_walk;

static uint32_t v5_u32(const v5_walk *w, const unsigned char *p) {
  return w->le ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]
               : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A complete tag in w->tag: the variable's own, or one of its subelements. */
static void v5_walk_tag(v5_walk *w) {
  uint32_t t = v5_u32(w, w->tag), nb = v5_u32(w, w->tag + 4);
  if (!w->in_matrix) {
    if (t != MI_MATRIX) w->done = 1; /* not a variable: libmatio skips it */
    w->in_matrix = 1;
    w->nb = w->left = nb;
    return;
  }
  int k = w->sub++;
  /* libmatio reads the flags as 8 bytes and steps past the dims by their
   * count (4 each, then 4 if odd), not by the tag's padded byte count */
  if ((k == 0 && ((t >> 16) || nb != 8)) || (k == 1 && ((t >> 16) || nb % 4 != 0))) {
    w->bad = k == 0 ? "an array flags subelement of 8 bytes"
                    : "a dimensions subelement of 4-byte values";
    w->bad_at = (t >> 16) ? (t >> 16) : nb;
    return;
  }
  /* libmatio steps past a subelement by the values its type reader took,
   * so a reserved type (0, 8, 10, 11, above 18) or a sparse array's ir or
   * jc not of whole 32-bit integers leaves it reading a tag from inside data */
  unsigned ty = t & 0xffff;
  int cls = w->nkept[0] >= 4 ? (int)(v5_u32(w, w->keep[0]) & 0xff) : -1;
  if (ty == 0 || ty == 8 || ty == 10 || ty == 11 || ty > 18 ||
      (cls == MX_SPARSE && (k == 3 || k == 4) && ((ty != 5 && ty != 6) || nb % 4 != 0))) {
    w->bad = "subelements of a MAT data type (sparse ir and jc: 32-bit integers)";
    w->bad_at = nb;
    return;
  }
  if (t >> 16) { /* small data element: up to 4 bytes inside the tag */
    if ((t >> 16) > 4) {
      w->bad = "a small subelement of at most 4 bytes";
      w->bad_at = t >> 16;
    } else if (k < 3) {
      memcpy(w->keep[k], w->tag + 4, t >> 16);
      w->nkept[k] = (int)(t >> 16);
    }
    w->left -= 8;
    return;
  }
  double span = 8.0 * ceil(nb / 8.0);
  if (8 + span > w->left) {
    w->bad = "every subelement inside its variable";
    w->bad_at = nb;
    return;
  }
  w->left -= 8 + span;
  w->skip = span;
  w->want = k < 3 ? (nb < V5_KEEP ? (int)nb : V5_KEEP) : 0;
}

/* The next n bytes of the variable's element (its tag first). */
static void v5_walk_feed(v5_walk *w, const unsigned char *p, size_t n) {
  while (n > 0 && !w->done && !w->bad) {
    if (w->skip > 0) {
      size_t k = w->skip < (double)n ? (size_t)w->skip : n;
      int s = w->sub - 1;
      if (s >= 0 && s < 3 && w->nkept[s] < w->want) {
        size_t c = (size_t)(w->want - w->nkept[s]) < k ? (size_t)(w->want - w->nkept[s]) : k;
        memcpy(w->keep[s] + w->nkept[s], p, c);
        w->nkept[s] += (int)c;
      }
      w->skip -= (double)k;
      p += k;
      n -= k;
    } else {
      w->tag[w->ntag++] = *p++;
      n--;
      if (w->ntag == 8) {
        w->ntag = 0;
        v5_walk_tag(w);
      }
    }
    if (w->in_matrix && w->left <= 0 && w->skip <= 0) w->done = 1;
  }
}

/* The walk's verdict on the variable at byte `at` of the file. */
static slv_status v5_walk_verdict(mat_ctx *c, const v5_walk *w, double at) {
  char name[V5_KEEP + 16] = "the variable";
  int nn = w->nkept[2];
  if (nn > 0) {
    memcpy(name, "variable ", 9);
    for (int i = 0; i < nn; i++) name[9 + i] = (char)(isprint(w->keep[2][i]) ? w->keep[2][i] : '?');
    name[9 + nn] = '\0';
  }
  if (w->bad)
    return mat_fail(c, SLV_ERR_INVALID, "expected %s (%s at byte %.0f), found one of %.0f bytes",
                    w->bad, name, at, w->bad_at);
  if (!w->done)
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected %s at byte %.0f complete (%.0f bytes), found it cut "
                    "short",
                    name, at, w->nb);
  if (!w->in_matrix || w->sub == 0) return SLV_OK; /* not a variable, or an empty element */
  int cls = w->nkept[0] >= 4 ? (int)(v5_u32(w, w->keep[0]) & 0xff) : -1;
  double values = 1;
  for (int i = 0; i + 4 <= w->nkept[1]; i += 4) values *= (double)v5_u32(w, w->keep[1] + i);
  if (cls != MX_SPARSE && values > w->nb)
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected %s at byte %.0f to hold its %.0f values in its %.0f "
                    "bytes, found too few bytes",
                    name, at, values, w->nb);
  return SLV_OK;
}

/* Walk the uncompressed variable at byte `at` (tag and nb bytes) from the
 * file, reading only its tags and the data of flags, dims and name. */
static slv_status v5_walk_plain(mat_ctx *c, int fd, int le, double at, double nb) {
  v5_walk w = { .le = le };
  unsigned char buf[V5_KEEP];
  for (double p = at, end = at + 8 + nb; p < end && !w.done && !w.bad;) {
    int s = w.sub - 1;
    if (w.skip > 0 && !(s >= 0 && s < 3 && w.nkept[s] < w.want)) {
      p += w.skip;
      w.skip = 0;
      if (w.in_matrix && w.left <= 0) w.done = 1;
      continue;
    }
    size_t k = end - p < (double)sizeof buf ? (size_t)(end - p) : sizeof buf;
    if (pread(fd, buf, k, (off_t)p) != (ssize_t)k) break;
    v5_walk_feed(&w, buf, k);
    p += (double)k;
  }
  return v5_walk_verdict(c, &w, at);
}

/* Walk the compressed variable at byte `at` (nb bytes of zlib stream after
 * its tag), inflated 16 KiB at a time and stopped at the variable's end. */
static slv_status v5_walk_compressed(mat_ctx *c, int fd, int le, double at, double nb) {
  v5_walk w = { .le = le };
  unsigned char in[16384], out[16384];
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit(&z) != Z_OK) return mat_fail(c, SLV_ERR_NOMEM, "out of memory (zlib)");
  int zr = Z_OK;
  for (double p = at + 8, end = at + 8 + nb; zr == Z_OK && !w.done && !w.bad;) {
    if (z.avail_in == 0) {
      size_t k = end - p < (double)sizeof in ? (size_t)(end - p) : sizeof in;
      if (k == 0 || pread(fd, in, k, (off_t)p) != (ssize_t)k) break;
      p += (double)k;
      z.next_in = in;
      z.avail_in = (uInt)k;
    }
    z.next_out = out;
    z.avail_out = sizeof out;
    zr = inflate(&z, Z_NO_FLUSH);
    if (zr == Z_BUF_ERROR) zr = Z_OK; /* no progress this call: more input */
    v5_walk_feed(&w, out, sizeof out - z.avail_out);
  }
  inflateEnd(&z);
  return v5_walk_verdict(c, &w, at);
}

/* ---- the version 5 container -------------------------------------------------- */

/* A version 5 file is a 128-byte header (its last two bytes "MI" as a
 * 16-bit value: the byte order) and then top-level elements, each an 8-byte
 * tag (type, byte count) and that many bytes.  libmatio reads a variable cut
 * short by the end of the file without saying so (the missing values are
 * whatever its buffer held), so the tags are walked first: every element
 * must end within the file, and every variable is walked inside (above). */
static slv_status check_v5_extent(mat_ctx *c, int fd, double size) {
  unsigned char h[8];
  if (pread(fd, h, 2, 126) != 2)
    return mat_fail(c, SLV_ERR_INVALID, "expected a 128-byte MAT-file header, found %.0f bytes",
                    size);
  /* 'M' << 8 | 'I' stored little-endian reads "IM" */
  int le = h[0] == 'I' && h[1] == 'M';
  if (!le && !(h[0] == 'M' && h[1] == 'I'))
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected the byte order mark 'IM' or 'MI' at byte 126, found \\x%02x\\x%02x",
                    h[0], h[1]);
  for (double at = 128; at < size;) {
    if (at + 8 > size || pread(fd, h, 8, (off_t)at) != 8)
      return mat_fail(c, SLV_ERR_INVALID,
                      "expected a complete MAT-file, found it cut short in the tag at byte %.0f",
                      at);
    uint32_t nb = le ? (uint32_t)h[7] << 24 | (uint32_t)h[6] << 16 | (uint32_t)h[5] << 8 | h[4]
                     : (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
    if (at + 8 + nb > size)
      return mat_fail(c, SLV_ERR_INVALID,
                      "expected a complete MAT-file, found the element at byte %.0f (%u bytes) "
                      "cut short at byte %.0f",
                      at, nb, size);
    uint32_t type = le ? (uint32_t)h[3] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[1] << 8 | h[0]
                       : (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    slv_status st = type == MI_MATRIX       ? v5_walk_plain(c, fd, le, at, nb)
                    : type == MI_COMPRESSED ? v5_walk_compressed(c, fd, le, at, nb)
                                            : SLV_OK;
    if (st) return st;
    at += 8.0 + nb;
  }
  return SLV_OK;
}

/* ---- one variable ------------------------------------------------------------ */

/* The MATLAB class of a variable, as a message names it. */
static const char *class_name(const matvar_t *v) {
  static const char *const names[] = {
    "empty", "cell",  "struct", "object", "char",   "sparse", "double", "single",   "int8",
    "uint8", "int16", "uint16", "int32",  "uint32", "int64",  "uint64", "function", "opaque"
  };
  int k = (int)v->class_type;
  if (v->isLogical) return "logical";
  return (k >= 0 && k < (int)(sizeof names / sizeof names[0])) ? names[k] : "unknown";
}

/* The header of variable name (NULL when absent): from libmatio (version
 * 5) or io_mat73.c (version 7.3, its object headers checked first). */
static slv_status var_info(mat_ctx *c, const char *name, matvar_t **info) {
  if (c->m73) return io_mat73_var(c->m73, name, 0, info);
  *info = Mat_VarReadInfo(c->mat, name);
  return SLV_OK;
}

/* The first of two names that the file holds, read whole (NULL: neither;
 * *name is then NULL).  Its header is checked first: 2-D, real, double
 * (dense, or sparse when sparse_ok), at most max_elems elements. */
static slv_status read_var(mat_ctx *c, const char *n1, const char *n2, int sparse_ok,
                           matvar_t **out, const char **name) {
  *out = NULL;
  *name = NULL;
  matvar_t *info = NULL;
  slv_status st = var_info(c, n1, &info);
  *name = n1;
  if (!st && !info && n2) {
    st = var_info(c, n2, &info);
    *name = n2;
  }
  if (st || !info) {
    *name = NULL;
    return st;
  }
  int sparse = info->class_type == MAT_C_SPARSE;
  int dbl = info->class_type == MAT_C_DOUBLE || (sparse && sparse_ok);
  if (info->rank != 2)
    st = mat_fail(c, SLV_ERR_UNSUPPORTED, "expected %s to be 2-D, found %d dimensions", *name,
                  info->rank);
  else if (!dbl || info->isLogical)
    st = mat_fail(c, SLV_ERR_UNSUPPORTED, "expected %s of class double%s, found class %s", *name,
                  sparse_ok ? " (dense or sparse)" : "", class_name(info));
  else if (info->isComplex)
    st = mat_fail(c, SLV_ERR_UNSUPPORTED, "expected %s to be real, found a complex %s", *name,
                  class_name(info));
  else if (info->dims[0] > IO_MAX_N || info->dims[1] > IO_MAX_N ||
           (!sparse && (double)info->dims[0] * (double)info->dims[1] > IO_MAX_NNZ))
    st = mat_fail(c, SLV_ERR_DIM,
                  "expected %s within the limits (n <= %d, n x n <= %ld), found %zu x %zu", *name,
                  IO_MAX_N, IO_MAX_NNZ, info->dims[0], info->dims[1]);
  else if (!sparse)
    st = io_reserve(c->path, &c->mem, c->cap, 8.0 * (double)info->dims[0] * (double)info->dims[1],
                    c->err, c->errlen, "variable %s, %zu x %zu doubles", *name, info->dims[0],
                    info->dims[1]);
  Mat_VarFree(info);
  if (st) return st;
  if (c->m73 && (st = io_mat73_var(c->m73, *name, 1, out))) return st;
  if (!c->m73) *out = Mat_VarRead(c->mat, *name);
  if (!*out)
    return mat_fail(c, SLV_ERR_INVALID, "expected variable %s to be readable, found damaged data",
                    *name);
  if ((*out)->class_type != (sparse ? MAT_C_SPARSE : MAT_C_DOUBLE) || (*out)->rank != 2 ||
      (*out)->isComplex ||
      (sparse ? (*out)->data_type != MAT_T_DOUBLE
              : ((*out)->data_size != 8 || (!(*out)->data && (*out)->nbytes > 0))))
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected %s of class double, found damaged %s data (not double)", *name,
                    class_name(*out));
  /* the values a dense variable's dimensions promise are all in its buffer */
  if (!sparse && (*out)->nbytes / 8 < (*out)->dims[0] * (*out)->dims[1])
    return mat_fail(c, SLV_ERR_INVALID, "expected %zu x %zu values in %s, found %zu bytes",
                    (*out)->dims[0], (*out)->dims[1], *name, (*out)->nbytes);
  return SLV_OK;
}

/* The values of a vector variable v (n x 1 or 1 x n) into dst; finite:
 * refuse non-finite values, else only NaN. */
static slv_status take_vector(mat_ctx *c, const matvar_t *v, const char *name, int n, int finite,
                              double *dst) {
  size_t r = v->dims[0], k = v->dims[1];
  if (!((r == (size_t)n && k == 1) || (r == 1 && k == (size_t)n)))
    return mat_fail(c, SLV_ERR_DIM, "expected %s to be %d x 1 or 1 x %d, found %zu x %zu", name, n,
                    n, r, k);
  const double *x = v->data;
  for (int i = 0; i < n; i++) {
    if (isnan(x[i]) || (finite && !isfinite(x[i])))
      return mat_fail(c, SLV_ERR_INVALID, "expected %s values in %s, found %g at index %d",
                      finite ? "finite" : "non-NaN", name, x[i], i + 1);
    dst[i] = x[i];
  }
  return SLV_OK;
}

/* ---- the matrix ----------------------------------------------------------- */

/* A dense n x n M, column-major as lcplab's dense storage. */
static slv_status take_dense(mat_ctx *c, const matvar_t *v, const char *name, io_instance *inst) {
  int n = inst->n;
  if (io_alloc_dense(inst)) return mat_fail(c, SLV_ERR_NOMEM, "out of memory reading %s", name);
  const double *a = v->data;
  for (size_t k = 0; k < (size_t)n * (size_t)n; k++) {
    if (!isfinite(a[k]))
      return mat_fail(c, SLV_ERR_INVALID, "expected finite values in %s, found %g at (%zu, %zu)",
                      name, a[k], k % (size_t)n + 1, k / (size_t)n + 1);
    inst->A[k] = a[k];
  }
  return SLV_OK;
}

/* A sparse M's CSC structure: jc (n + 1 starts from 0, nondecreasing, the
 * last at most the entries held) and ir (rows in [0, n)); *nnz = jc[n]. */
static slv_status check_csc(mat_ctx *c, const mat_sparse_t *s, const char *name, int n, long *nnz) {
  if (!s->jc || s->njc != (mat_uint32_t)n + 1)
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected %s (sparse) to have %d column starts jc, found %u", name, n + 1,
                    s->jc ? s->njc : 0u);
  if (s->jc[0] != 0)
    return mat_fail(c, SLV_ERR_INVALID, "expected %s.jc to start at 0, found %u", name, s->jc[0]);
  for (int j = 0; j < n; j++)
    if (s->jc[j + 1] < s->jc[j])
      return mat_fail(c, SLV_ERR_INVALID,
                      "expected %s.jc nondecreasing, found %u after %u at column %d", name,
                      s->jc[j + 1], s->jc[j], j + 1);
  mat_uint32_t held = s->nir < s->ndata ? s->nir : s->ndata;
  if (s->jc[n] > held || (s->jc[n] > 0 && (!s->ir || !s->data)))
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected %s.jc to end at most at the %u entries of ir and data, found %u",
                    name, held, s->jc[n]);
  *nnz = (long)s->jc[n];
  for (long k = 0; k < *nnz; k++)
    if (s->ir[k] >= (mat_uint32_t)n)
      return mat_fail(c, SLV_ERR_INVALID, "expected %s.ir rows in [0, %d), found %u at entry %ld",
                      name, n, s->ir[k], k + 1);
  return SLV_OK;
}

/* A sparse n x n M (CSC) as CSR. */
static slv_status take_sparse(mat_ctx *c, const matvar_t *v, const char *name, io_instance *inst) {
  const mat_sparse_t *s = v->data;
  int n = inst->n;
  long nnz = 0;
  if (!s)
    return mat_fail(c, SLV_ERR_INVALID, "expected %s (sparse) to hold data, found none", name);
  slv_status st = check_csc(c, s, name, n, &nnz);
  if (st) return st;
  if ((st = io_reserve(c->path, &c->mem, c->cap, 16.0 * (double)nnz, c->err, c->errlen,
                       "%s: %ld sparse entries", name, nnz)))
    return st;
  const double *x = s->data;
  int *row = malloc((size_t)(nnz ? nnz : 1) * sizeof(int));
  int *col = malloc((size_t)(nnz ? nnz : 1) * sizeof(int));
  if (!row || !col) st = mat_fail(c, SLV_ERR_NOMEM, "out of memory reading %s", name);
  for (int j = 0; !st && j < n; j++)
    for (mat_uint32_t k = s->jc[j]; !st && k < s->jc[j + 1]; k++) {
      if (!isfinite(x[k]))
        st = mat_fail(c, SLV_ERR_INVALID, "expected finite values in %s, found %g at (%u, %d)",
                      name, x[k], s->ir[k] + 1, j + 1);
      row[k] = (int)s->ir[k];
      col[k] = j;
    }
  if (!st && io_csr_from_triplets(inst, nnz, row, col, x))
    st = mat_fail(c, SLV_ERR_NOMEM, "out of memory reading %s", name);
  free(row);
  free(col);
  return st;
}

/* ---- the problem ---------------------------------------------------------- */

/* The optional bound variable `name` into dst (n values), if present. */
static slv_status take_bound(mat_ctx *c, const char *name, int n, double *dst) {
  matvar_t *v;
  const char *got;
  slv_status st = read_var(c, name, NULL, 0, &v, &got);
  if (!st && v) st = take_vector(c, v, name, n, 0, dst);
  Mat_VarFree(v);
  return st;
}

/* M (or A), then q (or b), lo, hi, into a new instance. */
static slv_status read_problem(mat_ctx *c, io_instance **out) {
  matvar_t *m = NULL, *q = NULL;
  const char *mn, *qn;
  io_instance *inst = NULL;
  slv_status st = read_var(c, "M", "A", 1, &m, &mn);
  if (!st && !m)
    st = mat_fail(c, SLV_ERR_INVALID, "expected a variable M or A (the matrix), found neither");
  int n = m ? (int)m->dims[0] : 0;
  if (!st && (m->dims[0] != m->dims[1] || n < 1))
    st = mat_fail(c, SLV_ERR_DIM, "expected %s to be square n x n with n >= 1, found %zu x %zu", mn,
                  m->dims[0], m->dims[1]);
  if (!st)
    st = io_reserve(c->path, &c->mem, c->cap, io_instance_bytes(n, 0), c->err, c->errlen, "n = %d",
                    n);
  if (!st && !(inst = io_instance_alloc(n))) st = mat_fail(c, SLV_ERR_NOMEM, "out of memory");
  if (!st)
    st = m->class_type == MAT_C_SPARSE ? take_sparse(c, m, mn, inst) : take_dense(c, m, mn, inst);
  Mat_VarFree(m);
  if (!st) st = read_var(c, "q", "b", 0, &q, &qn);
  if (!st && !q)
    st = mat_fail(c, SLV_ERR_INVALID, "expected a variable q or b (the vector), found neither");
  if (!st) st = take_vector(c, q, qn, n, 1, inst->b);
  Mat_VarFree(q);
  if (!st) st = take_bound(c, "lo", n, inst->lo);
  if (!st) st = take_bound(c, "hi", n, inst->hi);
  for (int i = 0; !st && i < n; i++)
    if (!(inst->lo[i] <= inst->hi[i]))
      st = mat_fail(c, SLV_ERR_INVALID, "expected lo <= hi, found lo(%d) = %g > hi(%d) = %g", i + 1,
                    inst->lo[i], i + 1, inst->hi[i]);
  if (st) {
    io_instance_free(inst);
    return st;
  }
  *out = inst;
  return SLV_OK;
}

/* Opens the file for reading by its header's version word (ver_word):
 * 0x0200 (7.3) through io_mat73.c, never libmatio (whose Mat_Open hands
 * the file to HDF5 unchecked); 0x0100 (5) through libmatio, its elements
 * walked first (check_v5_extent). */
static slv_status open_mat(mat_ctx *c, io_mat73 *m73, unsigned ver_word, int fd, double size) {
  if (ver_word == 0x0200) {
    slv_status st = io_mat73_open(m73, c->path, c->err, c->errlen, size, c->cap);
    if (!st) c->m73 = m73;
    return st;
  }
  c->mat = Mat_Open(c->path, MAT_ACC_RDONLY);
  enum mat_ft ver = c->mat ? Mat_GetVersion(c->mat) : MAT_FT_UNDEFINED;
  if (!c->mat)
    return mat_fail(c, SLV_ERR_INVALID,
                    "expected a MATLAB MAT-file (version 5 or 7.3), found none libmatio can open");
  if (ver != MAT_FT_MAT5)
    return mat_fail(c, SLV_ERR_UNSUPPORTED,
                    "expected a MATLAB MAT-file of version 5 or 7.3 (save -v7 or -v7.3), found "
                    "version %s",
                    ver == MAT_FT_MAT4 ? "4" : "unknown");
  return check_v5_extent(c, fd, size);
}

slv_status io_read_mat(const io_req *rq, io_instance **out) {
  *out = NULL;
  mat_ctx c = { rq->path, rq->err, rq->errlen, NULL, NULL, 0.0, (double)rq->max_memory };
  io_mat73 m73;
  int fd;
  double size;
  slv_status st = io_open_regular(rq->path, &fd, &size, rq->err, rq->errlen);
  if (st) return st;
  st = io_dl_ready(rq->path, "reading a MAT-file", rq->err, rq->errlen);
  if (st) {
    close(fd);
    return st;
  }
  io_hdf5_quiet quiet;
  io_hdf5_quiet_on(&quiet);
  Mat_LogInitFunc("lcplab", mat_log_drop);
  /* Mat_LogInitFunc also makes libmatio's callback HDF5's error handler;
   * that callback asks HDF5 for its error stack, which fails again under a
   * damaged file and calls it again, without end (2.6 GB of HDF5 error
   * records from a 33 KB fuzz input, v73-hdf5-error-handler-recursion.mat).
   * No HDF5 handler is needed (version 5 never reaches HDF5, version 7.3
   * never reaches libmatio): none during the read, the caller's after */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* versions 5 and 7.3 share the 128-byte header, its version (0x0100,
   * 0x0200) at byte 124 and byte order mark at 126; without them libmatio
   * probes version 4, whose name length it allocates unchecked (1.3 GB for
   * a 268-byte fuzz input), so it is not asked */
  unsigned char h[4] = { 0, 0, 0, 0 };
  int le = 0;
  if (size >= 128 && pread(fd, h, 4, 124) == 4) le = h[2] == 'I' && h[3] == 'M';
  int be = h[2] == 'M' && h[3] == 'I';
  unsigned ver_word = le ? (unsigned)h[1] << 8 | h[0] : (unsigned)h[0] << 8 | h[1];
  if (!(le || be) || (ver_word != 0x0100 && ver_word != 0x0200))
    st = mat_fail(&c, SLV_ERR_INVALID,
                  "expected a MATLAB MAT-file of version 5 or 7.3 (version 0x0100 or 0x0200 and "
                  "the byte order mark 'IM' at bytes 124 to 127), found none (version 4 files: "
                  "save them again with -v7)");
  else
    st = open_mat(&c, &m73, ver_word, fd, size);
  close(fd);
  if (!st) st = read_problem(&c, out);
  if (c.mat) Mat_Close(c.mat);
  if (c.m73) io_mat73_close(c.m73);
  io_hdf5_quiet_off(&quiet);
  return st;
}

slv_status io_write_mat(const io_req *rq, const io_instance *inst) {
  (void)inst;
  io_msgf(rq->err, rq->errlen,
          "%s: lcplab reads MATLAB MAT-files but does not write them: write .lcp, .dat, .mtx "
          "or .hdf5",
          rq->path);
  return SLV_ERR_UNSUPPORTED;
}
