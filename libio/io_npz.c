/* io_npz.c -- ContactBench problems: numpy .npz archives of G, g, mus.
 *
 * ContactBench (Simple-Robotics, [lelidec2024]) stores one frictional
 * contact problem per numpy .npz file, the zip archive numpy.savez writes:
 * one .npy member per array,
 *     G.npy     float64 (n, n), the Delassus matrix, n = 3 nc
 *     g.npy     float64 (n,) or (n, 1), the free velocity
 *     mus.npy   float64 (nc,) or (nc, 1), one friction coefficient per contact
 *     lam0.npy  optional: an initial guess (n,) or (n, 1) (io_read_start)
 * and other members are ignored.  The problem is the NCP of Coulomb's law
 * with De Saxce's correction, c = G lambda + g, K_mu ∋ lambda ⊥ c + Phi(c)
 * ∈ K*_mu, with each contact's three components ordered (t1, t2, n): the
 * NORMAL LAST.  lcplab orders a cone (n, t1, t2) (docs/problem.md,
 * "Cones"), so reading permutes every contact block: with P the
 * permutation that takes lcplab's row 3c + k to the file's row
 *     P(3c) = 3c + 2,  P(3c + 1) = 3c,  P(3c + 2) = 3c + 1,
 *     A(i, j) = G(P(i), P(j)),  b(i) = g(P(i)),  x(i) = lambda(P(i)),
 * one Coulomb cone (SLV_CONE_COULOMB) per contact at rows 3c..3c+2 with
 * cone_mu[c] = mus[c], lo = -inf, hi = +inf; the instance is dense.
 * Writing is the inverse permutation: G in C order (fortran_order False),
 * g as (n, 1) and mus as (nc,), as ContactBench's own files have them, in
 * members stored uncompressed as numpy.savez does.  Only instances every
 * row of which is in a Coulomb cone (io_holds_fc3d).  A write then a
 * read gives back A, b and the cones bit for bit.
 *
 * The zip store is read and written with Debian's libzip (zip.h), which
 * checks the archive (ZIP_CHECKCONS), the members' sizes and their CRCs;
 * this file parses only the .npy members: the magic "\x93NUMPY", version
 * 1.0, 2.0 or 3.0, the header length (2 bytes in 1.0, 4 after), and the
 * header, a Python dict literal {'descr': '<f8', 'fortran_order': False,
 * 'shape': (12, 12), } (numpy's format.py, NEP 1).  Accepted: descr '<f8',
 * '<f4' or '<f2' (float64, float32, float16; '>' for big-endian),
 * fortran_order True or False, shapes of 1 or 2 dimensions.  float32 and
 * float16 values are converted to the doubles they equal (exactly: every
 * such value is a double).
 *
 * Before anything of a member's size is allocated: its header is parsed,
 * the byte count the shape implies plus the header must equal the member's
 * uncompressed size in the zip directory (so a damaged or lying member is
 * refused, and a small compressed file cannot claim a huge array without
 * saying so), and the bytes are reserved against the memory cap (the three
 * headers are read before any array, so every reservation comes first).
 * Messages: one line, "PATH: expected <what>, found <what>", naming the
 * member, e.g. "p.npz: expected G.npy to be 3 nc x 3 nc = 12 x 12
 * (mus.npy has nc = 4), found 12 x 11".  Statuses: SLV_ERR_INVALID
 * (malformed, not a zip, a missing member, NaN, mu < 0), SLV_ERR_DIM
 * (sizes beyond the limits or the cap), SLV_ERR_UNSUPPORTED (another
 * dtype, more dimensions), SLV_ERR_NOMEM.
 */
#include "io_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

/* numpy refuses headers longer than this by default (format.py,
 * _MAX_HEADER_SIZE); so do we. */
#define NPY_MAX_HEADER 10000

typedef struct npz_ctx {
  const char *path;
  char *err;
  size_t errlen;
  zip_t *za;
  double mem, cap; /* the memory cap's running total */
} npz_ctx;

static slv_status npz_fail(npz_ctx *c, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static slv_status npz_fail(npz_ctx *c, slv_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  st = io_path_vfail(c->path, c->err, c->errlen, st, fmt, ap);
  va_end(ap);
  return st;
}

/* ---- the .npy header -------------------------------------------------------- */

/* One array member: its header, and where its data starts. */
typedef struct npy_array {
  const char *name; /* "G.npy" */
  zip_file_t *zf;   /* open, positioned after the header */
  int fortran;      /* fortran_order */
  int swap;         /* big-endian data */
  int ndim;
  long shape[2];
  double count; /* elements */
  int size;     /* bytes per element: 8, 4 or 2 (float64, float32, float16) */
} npy_array;

/* A cursor over the header text. */
typedef struct lit {
  const char *s;
  size_t len, pos;
} lit;

static void lit_blank(lit *l) {
  while (l->pos < l->len && (l->s[l->pos] == ' ' || l->s[l->pos] == '\t')) l->pos++;
}

static int lit_char(lit *l, char ch) {
  lit_blank(l);
  if (l->pos < l->len && l->s[l->pos] == ch) {
    l->pos++;
    return 1;
  }
  return 0;
}

/* A quoted string without escapes into out (size cap). */
static int lit_string(lit *l, char *out, size_t cap) {
  lit_blank(l);
  if (l->pos >= l->len || (l->s[l->pos] != '\'' && l->s[l->pos] != '"')) return 0;
  char q = l->s[l->pos++];
  size_t k = 0;
  while (l->pos < l->len && l->s[l->pos] != q) {
    if (l->s[l->pos] == '\\' || k + 1 >= cap) return 0;
    out[k++] = l->s[l->pos++];
  }
  if (l->pos >= l->len) return 0;
  l->pos++;
  out[k] = '\0';
  return 1;
}

static int lit_word(lit *l, const char *w) {
  size_t k = strlen(w);
  lit_blank(l);
  if (l->len - l->pos < k || memcmp(l->s + l->pos, w, k) != 0) return 0;
  l->pos += k;
  return 1;
}

/* A shape tuple "(a, b)", "(a,)", "()" (Python 2 files may write "12L"). */
static int lit_shape(lit *l, npy_array *a) {
  a->ndim = 0;
  if (!lit_char(l, '(')) return 0;
  for (;;) {
    if (lit_char(l, ')')) return 1;
    lit_blank(l);
    if (l->pos >= l->len || l->s[l->pos] < '0' || l->s[l->pos] > '9' || a->ndim >= 2) return 0;
    long v = 0;
    while (l->pos < l->len && l->s[l->pos] >= '0' && l->s[l->pos] <= '9') {
      if (v > IO_MAX_N) return 0;
      v = 10 * v + (l->s[l->pos++] - '0');
    }
    if (l->pos < l->len && l->s[l->pos] == 'L') l->pos++;
    a->shape[a->ndim++] = v;
    if (!lit_char(l, ',')) return lit_char(l, ')');
  }
}

/* The element size of a floating-point descr ("<f8", ">f4", "<f2"), else 0. */
static int descr_size(const char *descr) {
  if ((descr[0] != '<' && descr[0] != '>') || descr[1] != 'f' || descr[3] != '\0') return 0;
  return descr[2] == '8' ? 8 : descr[2] == '4' ? 4 : descr[2] == '2' ? 2 : 0;
}

static const char *size_name(int size) {
  return size == 4 ? "float32" : size == 2 ? "float16" : "float64";
}

/* The dict {'descr': ..., 'fortran_order': ..., 'shape': ...}. */
static slv_status parse_dict(npz_ctx *c, npy_array *a, const char *text, size_t len) {
  lit l = { text, len, 0 };
  char key[32], descr[32] = "";
  int seen = 0;
  if (!lit_char(&l, '{'))
    return npz_fail(c, SLV_ERR_INVALID, "expected %s's header to be a dict '{...}', found '%.40s'",
                    a->name, text);
  while (!lit_char(&l, '}')) {
    if (!lit_string(&l, key, sizeof key) || !lit_char(&l, ':'))
      return npz_fail(c, SLV_ERR_INVALID,
                      "expected a quoted key and ':' in %s's header, found "
                      "'%.60s'",
                      a->name, text + l.pos);
    lit_blank(&l);
    size_t v0 = l.pos;
    if (strcmp(key, "descr") == 0 && lit_string(&l, descr, sizeof descr)) {
      seen |= 1;
    } else if (strcmp(key, "fortran_order") == 0 && lit_word(&l, "True")) {
      a->fortran = 1;
      seen |= 2;
    } else if (strcmp(key, "fortran_order") == 0 && lit_word(&l, "False")) {
      a->fortran = 0;
      seen |= 2;
    } else if (strcmp(key, "shape") == 0 && lit_shape(&l, a)) {
      seen |= 4;
    } else {
      char v[48];
      snprintf(v, sizeof v, "%.40s", text + v0);
      for (size_t k = strlen(v); k > 0 && (v[k - 1] == ' ' || v[k - 1] == '\n'); k--) v[k - 1] = 0;
      return npz_fail(c, SLV_ERR_INVALID,
                      "expected 'descr': a string, 'fortran_order': True or "
                      "False, 'shape': a tuple of at most 2 sizes in %s's header, found '%s': "
                      "%s",
                      a->name, key, v);
    }
    if (!lit_char(&l, ',')) {
      if (lit_char(&l, '}')) break;
      return npz_fail(c, SLV_ERR_INVALID, "expected ',' or '}' in %s's header, found '%.40s'",
                      a->name, text + l.pos);
    }
  }
  if (seen != 7)
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected 'descr', 'fortran_order' and 'shape' in %s's "
                    "header, found only %s%s%s",
                    a->name, seen & 1 ? "descr " : "", seen & 2 ? "fortran_order " : "",
                    seen & 4 ? "shape" : "");
  if (!(a->size = descr_size(descr)))
    return npz_fail(c, SLV_ERR_UNSUPPORTED,
                    "expected %s to hold float64, float32 or float16 ('<f8', '<f4', '<f2'; "
                    "'>' big-endian), found dtype '%s'",
                    a->name, descr);
  a->swap = descr[0] == '>';
  a->count = 1;
  for (int d = 0; d < a->ndim; d++) a->count *= (double)a->shape[d];
  return SLV_OK;
}

/* Reads exactly len bytes of the member. */
static slv_status member_read(npz_ctx *c, const npy_array *a, void *buf, size_t len,
                              const char *what) {
  zip_int64_t got = zip_fread(a->zf, buf, len);
  if (got == (zip_int64_t)len) return SLV_OK;
  return npz_fail(c, SLV_ERR_INVALID, "expected %zu bytes of %s in %s, found %s", len, what,
                  a->name, got < 0 ? zip_error_strerror(zip_file_get_error(a->zf)) : "fewer");
}

/* Opens member a->name and reads its header; the member's size in the zip
 * directory must be the header plus a->size bytes per element. */
static slv_status open_array(npz_ctx *c, npy_array *a, int required) {
  zip_int64_t idx = zip_name_locate(c->za, a->name, 0);
  if (idx < 0) {
    if (!required) return SLV_OK;
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected the array %s in the npz (G, g, mus: "
                    "ContactBench), found none",
                    a->name);
  }
  zip_stat_t zs;
  zip_stat_init(&zs);
  if (zip_stat_index(c->za, (zip_uint64_t)idx, 0, &zs) != 0 || !(zs.valid & ZIP_STAT_SIZE))
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected %s to have a size in the zip directory, found "
                    "none",
                    a->name);
  /* the size the directory declares, against the bytes that hold it: a
   * stored member is its bytes, deflate expands at most 1032 to 1 */
  if ((zs.valid & ZIP_STAT_COMP_SIZE) && (zs.valid & ZIP_STAT_COMP_METHOD) &&
      ((zs.comp_method == ZIP_CM_STORE && zs.size != zs.comp_size) ||
       (zs.comp_method == ZIP_CM_DEFLATE &&
        (double)zs.size > 1032.0 * (double)zs.comp_size + 1024.0)))
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected %s's size in the zip directory (%.0f bytes) to fit the %.0f bytes "
                    "that hold it (%s)",
                    a->name, (double)zs.size, (double)zs.comp_size,
                    zs.comp_method == ZIP_CM_STORE ? "stored" : "deflated");
  if (!(a->zf = zip_fopen_index(c->za, (zip_uint64_t)idx, 0)))
    return npz_fail(c, SLV_ERR_INVALID, "expected %s to open, found: %s", a->name,
                    zip_strerror(c->za));
  unsigned char pre[12];
  slv_status st = member_read(c, a, pre, 10, "the .npy preamble");
  if (st) return st;
  if (memcmp(pre, "\x93NUMPY", 6) != 0)
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected %s to start with the .npy magic \\x93NUMPY, "
                    "found other bytes",
                    a->name);
  int major = pre[6];
  size_t hlen, head = 10;
  if (major == 1) {
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
  } else if (major == 2 || major == 3) {
    if ((st = member_read(c, a, pre + 10, 2, "the .npy preamble"))) return st;
    hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    head = 12;
  } else {
    return npz_fail(c, SLV_ERR_UNSUPPORTED,
                    "expected %s in .npy format version 1, 2 or 3, found "
                    "%d.%d",
                    a->name, major, pre[7]);
  }
  if (hlen > NPY_MAX_HEADER)
    return npz_fail(c, SLV_ERR_INVALID, "expected %s's header to be at most %d bytes, found %zu",
                    a->name, NPY_MAX_HEADER, hlen);
  char text[NPY_MAX_HEADER + 1];
  if ((st = member_read(c, a, text, hlen, "the .npy header"))) return st;
  text[hlen] = '\0';
  if (strlen(text) != hlen)
    return npz_fail(c, SLV_ERR_INVALID, "expected %s's header to be text, found a NUL byte",
                    a->name);
  if ((st = parse_dict(c, a, text, hlen))) return st;
  double want = (double)(head + hlen) + (double)a->size * a->count;
  if ((double)zs.size != want)
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected %s to hold %.0f bytes (a %zu-byte header and "
                    "%.0f %s), found %.0f",
                    a->name, want, head + hlen, a->count, size_name(a->size), (double)zs.size);
  return SLV_OK;
}

/* The length of a vector-shaped array, (k,), (k, 1) or (1, k); -1 if not. */
static long vector_len(const npy_array *a) {
  if (a->ndim == 1) return a->shape[0];
  if (a->ndim == 2 && a->shape[1] == 1) return a->shape[0];
  if (a->ndim == 2 && a->shape[0] == 1) return a->shape[1];
  return -1;
}

static void shape_str(const npy_array *a, char *buf, size_t len) {
  if (a->ndim == 0)
    snprintf(buf, len, "a scalar");
  else if (a->ndim == 1)
    snprintf(buf, len, "%ld", a->shape[0]);
  else
    snprintf(buf, len, "%ld x %ld", a->shape[0], a->shape[1]);
}

/* The float16 with bits h as a double (IEEE 754 binary16). */
static double half_value(unsigned h) {
  unsigned e = (h >> 10) & 0x1f, f = h & 0x3ff;
  double v = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(f + 1024, (int)e - 25);
  return h & 0x8000 ? -v : v;
}

/* The element at raw (a's dtype, in the file's byte order) as a double. */
static double element_value(const npy_array *a, const unsigned char *raw) {
  unsigned char b[8];
  for (int i = 0; i < a->size; i++) b[i] = raw[a->swap ? a->size - 1 - i : i];
  if (a->size == 8) {
    double d;
    memcpy(&d, b, sizeof d);
    return d;
  }
  if (a->size == 4) {
    float f;
    memcpy(&f, b, sizeof f);
    return f;
  }
  return half_value((unsigned)b[0] | (unsigned)b[1] << 8);
}

/* Reads the next count elements of a into out as doubles, finite (and >= 0
 * when nonneg); base: the index of out[0] in the array, for messages (a
 * 2-D array's element is named by its row and column). */
static slv_status read_values(npz_ctx *c, const npy_array *a, double *out, size_t count, int nonneg,
                              size_t base) {
  slv_status st = member_read(c, a, out, count * (size_t)a->size, "data");
  if (st) return st;
  /* in place, from the last: element k's bytes lie at or below out[k] */
  const unsigned char *raw = (const unsigned char *)out;
  for (size_t k = count; k-- > 0;) out[k] = element_value(a, raw + k * (size_t)a->size);
  for (size_t k = 0; k < count; k++) {
    if (isfinite(out[k]) && !(nonneg && out[k] < 0)) continue;
    size_t e = base + k;
    char at[64];
    if (a->ndim == 2 && !a->fortran)
      snprintf(at, sizeof at, "%zu, %zu", e / (size_t)a->shape[1], e % (size_t)a->shape[1]);
    else if (a->ndim == 2)
      snprintf(at, sizeof at, "%zu, %zu", e % (size_t)a->shape[0], e / (size_t)a->shape[0]);
    else
      snprintf(at, sizeof at, "%zu", e);
    return npz_fail(c, SLV_ERR_INVALID, "expected %s in %s, found [%s] = %g",
                    nonneg ? "finite values >= 0" : "finite values", a->name, at, out[k]);
  }
  return SLV_OK;
}

/* The file's row r (normal last in each contact) is lcplab's row lab_row(r)
 * (normal first): P^-1 of the header comment.  Static for the loops over
 * G; io_contactbench_row is its public name. */
static size_t lab_row(size_t r) {
  size_t c = r / 3, k = r % 3;
  return 3 * c + (k == 2 ? 0 : k + 1);
}

size_t io_contactbench_row(size_t r) { return lab_row(r); }

/* ---- reading ------------------------------------------------------------------- */

/* The archive, read only, through the descriptor io_open_regular checked
 * (a FIFO or a device is refused before libzip sees it). */
static slv_status open_zip(npz_ctx *c) {
  int code = 0, fd;
  slv_status st = io_open_regular(c->path, &fd, NULL, c->err, c->errlen);
  if (st) return st;
  c->za = zip_fdopen(fd, ZIP_RDONLY | ZIP_CHECKCONS, &code); /* closes fd when it succeeds */
  if (c->za) return SLV_OK;
  close(fd);
  zip_error_t ze;
  zip_error_init_with_code(&ze, code);
  st = npz_fail(c, SLV_ERR_INVALID, "expected a numpy .npz (a zip archive), found: %s",
                zip_error_strerror(&ze));
  zip_error_fini(&ze);
  return st;
}

static void close_arrays(npy_array *a, int k) {
  for (int i = 0; i < k; i++)
    if (a[i].zf) zip_fclose(a[i].zf);
}

/* The three headers, their shapes checked against each other. */
static slv_status open_problem(npz_ctx *c, npy_array a[3], long *nc) {
  slv_status st;
  char s0[64], s1[64], s2[64];
  for (int k = 0; k < 3; k++)
    if ((st = open_array(c, &a[k], 1))) return st;
  shape_str(&a[0], s0, sizeof s0);
  shape_str(&a[1], s1, sizeof s1);
  shape_str(&a[2], s2, sizeof s2);
  *nc = vector_len(&a[2]);
  if (*nc < 0 || 3.0 * (double)*nc > IO_MAX_N)
    return npz_fail(c, *nc < 0 ? SLV_ERR_INVALID : SLV_ERR_DIM,
                    "expected mus.npy to be a vector "
                    "of nc <= %d friction coefficients, found %s",
                    IO_MAX_N / 3, s2);
  long n = 3 * *nc;
  if (a[0].ndim != 2 || a[0].shape[0] != n || a[0].shape[1] != n)
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected G.npy to be 3 nc x 3 nc = %ld x %ld (mus.npy "
                    "has nc = %ld), found %s",
                    n, n, *nc, s0);
  if (vector_len(&a[1]) != n)
    return npz_fail(c, SLV_ERR_INVALID,
                    "expected g.npy to be a vector of 3 nc = %ld values "
                    "(mus.npy has nc = %ld), found %s",
                    n, *nc, s1);
  if ((double)n * (double)n > (double)IO_MAX_NNZ)
    return npz_fail(c, SLV_ERR_DIM, "expected n*n <= %ld for a dense G, found n = %ld",
                    (long)IO_MAX_NNZ, n);
  return SLV_OK;
}

/* G into the dense column-major A, line by line (a row of G in C order, a
 * column in Fortran order), permuted; buf holds one line. */
static slv_status read_G(npz_ctx *c, const npy_array *g, io_instance *inst, double *buf) {
  size_t n = (size_t)inst->n;
  for (size_t r = 0; r < n; r++) {
    slv_status st = read_values(c, g, buf, n, 0, r * n);
    if (st) return st;
    size_t i = lab_row(r);
    for (size_t s = 0; s < n; s++) {
      size_t j = lab_row(s);
      /* C order: buf is G(r, s); Fortran order: G(s, r) */
      if (g->fortran)
        inst->A[j + i * n] = buf[s];
      else
        inst->A[i + j * n] = buf[s];
    }
  }
  return SLV_OK;
}

slv_status io_read_npz(const io_req *rq, io_instance **out) {
  npz_ctx c = { rq->path, rq->err, rq->errlen, NULL, 0, (double)rq->max_memory };
  npy_array a[3] = { { "G.npy", NULL, 0, 0, 0, { 0, 0 }, 0, 0 },
                     { "g.npy", NULL, 0, 0, 0, { 0, 0 }, 0, 0 },
                     { "mus.npy", NULL, 0, 0, 0, { 0, 0 }, 0, 0 } };
  io_instance *inst = NULL;
  double *buf = NULL;
  long nc = 0;
  *out = NULL;
  slv_status st = open_zip(&c);
  if (st) return st;
  if ((st = open_problem(&c, a, &nc))) goto done;
  int n = (int)(3 * nc);
  /* everything the three arrays imply, before any of it is allocated */
  if ((st = io_reserve(c.path, &c.mem, c.cap, io_instance_bytes(n, 1) + 36.0 * nc + 8.0 * n, c.err,
                       c.errlen,
                       "G.npy, g.npy, mus.npy: nc = %ld, a dense "
                       "%d x %d G",
                       nc, n, n)))
    goto done;
  inst = io_instance_alloc(n);
  buf = malloc(((size_t)n + 1) * sizeof(double));
  if (!inst || !buf || io_alloc_dense(inst)) {
    st = npz_fail(&c, SLV_ERR_NOMEM, "out of memory for n = %d", n);
    goto done;
  }
  if ((st = read_G(&c, &a[0], inst, buf))) goto done;
  if ((st = read_values(&c, &a[1], buf, (size_t)n, 0, 0))) goto done;
  for (int r = 0; r < n; r++) inst->b[lab_row((size_t)r)] = buf[r];
  if ((st = read_values(&c, &a[2], buf, (size_t)nc, 1, 0))) goto done;
  if ((st = io_set_fc3d_cones(inst, (int)nc, buf))) {
    npz_fail(&c, st, "out of memory for %ld cones", nc);
    goto done;
  }
  *out = inst;
  inst = NULL;
done:
  close_arrays(a, 3);
  zip_discard(c.za);
  free(buf);
  io_instance_free(inst);
  return st;
}

slv_status io_npz_read_guess(const char *path, int n, double *x, size_t max_memory, char *err,
                             size_t errlen) {
  npz_ctx c = { path, err, errlen, NULL, 0, (double)max_memory };
  npy_array a = { "lam0.npy", NULL, 0, 0, 0, { 0, 0 }, 0, 0 };
  double *buf = NULL;
  slv_status st = open_zip(&c);
  if (st) return st;
  if ((st = open_array(&c, &a, 1))) goto done;
  char s[64];
  shape_str(&a, s, sizeof s);
  if (vector_len(&a) != n || n % 3) {
    st = npz_fail(&c, SLV_ERR_INVALID,
                  "expected lam0.npy to be a vector of n = %d values, "
                  "found %s",
                  n, s);
    goto done;
  }
  if ((st = io_reserve(c.path, &c.mem, c.cap, 8.0 * n, c.err, c.errlen, "lam0.npy (n = %d)", n)))
    goto done;
  if (!(buf = malloc(((size_t)n + 1) * sizeof(double)))) {
    st = npz_fail(&c, SLV_ERR_NOMEM, "out of memory for lam0 (n = %d)", n);
    goto done;
  }
  if ((st = read_values(&c, &a, buf, (size_t)n, 0, 0))) goto done;
  for (int r = 0; r < n; r++) x[lab_row((size_t)r)] = buf[r];
done:
  close_arrays(&a, 1);
  zip_discard(c.za);
  free(buf);
  return st;
}

/* ---- writing ------------------------------------------------------------------- */

/* One .npy member in memory: a version 1.0 header padded with spaces to a
 * multiple of 64 bytes (numpy's alignment), then the little-endian values. */
static unsigned char *npy_member(const char *shape, const double *v, size_t count, size_t *len) {
  char dict[128];
  int d =
      snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape);
  size_t head = 10 + (size_t)d + 1, pad = (64 - head % 64) % 64, hlen = (size_t)d + pad + 1;
  *len = 10 + hlen + 8 * count;
  unsigned char *m = malloc(*len);
  if (!m) return NULL;
  memcpy(m, "\x93NUMPY\x01\x00", 8);
  m[8] = (unsigned char)(hlen & 0xff);
  m[9] = (unsigned char)(hlen >> 8);
  memcpy(m + 10, dict, (size_t)d);
  memset(m + 10 + d, ' ', pad);
  m[10 + hlen - 1] = '\n';
  for (size_t k = 0; k < count; k++) { /* little-endian whatever the host */
    unsigned char b[8];
    memcpy(b, &v[k], 8);
    unsigned one = 1;
    int little = *(unsigned char *)&one == 1;
    for (int i = 0; i < 8; i++) m[10 + hlen + 8 * k + (size_t)i] = little ? b[i] : b[7 - i];
  }
  return m;
}

/* Adds a stored (uncompressed) member; the buffer must live until zip_close. */
static slv_status add_member(npz_ctx *c, const char *name, const unsigned char *m, size_t len) {
  zip_source_t *src = zip_source_buffer(c->za, m, len, 0);
  zip_int64_t idx = src ? zip_file_add(c->za, name, src, ZIP_FL_OVERWRITE) : -1;
  if (idx < 0) {
    if (src) zip_source_free(src);
    return npz_fail(c, SLV_ERR_INVALID, "cannot write %s: %s", name, zip_strerror(c->za));
  }
  if (zip_set_file_compression(c->za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) != 0)
    return npz_fail(c, SLV_ERR_INVALID, "cannot write %s: %s", name, zip_strerror(c->za));
  return SLV_OK;
}

slv_status io_write_npz(const io_req *rq, const io_instance *inst) {
  npz_ctx c = { rq->path, rq->err, rq->errlen, NULL, 0, 0 };
  size_t n = (size_t)inst->n, nc = (size_t)inst->ncones;
  unsigned char *m[3] = { NULL, NULL, NULL };
  size_t len[3];
  int owned = 0;
  const double *A = io_dense_of(inst, &owned);
  double *G = malloc((n * n + 1) * sizeof(double)), *g = malloc((n + 1) * sizeof(double));
  slv_status st = SLV_OK;
  if (!A || !G || !g) {
    st = npz_fail(&c, A ? SLV_ERR_NOMEM : SLV_ERR_DIM,
                  "expected a problem small enough to "
                  "write G dense, found n = %zu",
                  n);
    goto done;
  }
  /* G(r, s) = A(lab_row(r), lab_row(s)), C order; g(r) = b(lab_row(r)) */
  for (size_t r = 0; r < n; r++) {
    for (size_t s = 0; s < n; s++) G[r * n + s] = A[lab_row(r) + lab_row(s) * n];
    g[r] = inst->b[lab_row(r)];
  }
  char sG[64], sg[64], smu[64];
  snprintf(sG, sizeof sG, "(%zu, %zu)", n, n);
  snprintf(sg, sizeof sg, "(%zu, 1)", n);
  snprintf(smu, sizeof smu, "(%zu,)", nc);
  m[0] = npy_member(sG, G, n * n, &len[0]);
  m[1] = npy_member(sg, g, n, &len[1]);
  m[2] = npy_member(smu, inst->cone_mu, nc, &len[2]);
  if (!m[0] || !m[1] || !m[2]) {
    st = npz_fail(&c, SLV_ERR_NOMEM, "out of memory writing n = %zu", n);
    goto done;
  }
  /* libzip writes a temporary file beside PATH and renames it in zip_close:
   * an existing PATH is replaced only by a complete archive */
  int code = 0;
  if (!(c.za = zip_open(c.path, ZIP_CREATE | ZIP_TRUNCATE, &code))) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    st = npz_fail(&c, SLV_ERR_INVALID, "cannot write: %s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
    goto done;
  }
  static const char *const names[3] = { "G.npy", "g.npy", "mus.npy" };
  for (int k = 0; k < 3 && !st; k++) st = add_member(&c, names[k], m[k], len[k]);
  if (!st && zip_close(c.za) != 0)
    st = npz_fail(&c, SLV_ERR_INVALID, "cannot write: %s", zip_strerror(c.za));
  else if (!st)
    c.za = NULL;
  if (c.za) zip_discard(c.za);
done:
  for (int k = 0; k < 3; k++) free(m[k]);
  free(G);
  free(g);
  if (owned) free((double *)A);
  return st;
}
