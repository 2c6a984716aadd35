/* io_mtx.c -- MatrixMarket A plus plain-vector sidecars.
 *
 * An instance FOO is the file FOO.mtx (A) and the sidecars, one value per
 * line with '#' comments (io_vector.c):
 *     FOO.b       required, n finite values        (w = A x + b)
 *     FOO.lo      optional, default 0;  -inf allowed
 *     FOO.hi      optional, default +inf; inf allowed
 *     FOO.findex  optional, n integers in [-1, n), findex[i] != i
 *     FOO.mu      required when FOO.findex has a friction row; refused
 *                 without FOO.findex (its friction rows were lost)
 * (For a path without the .mtx extension the sidecars are PATH.b, ...)
 * Which sidecars belong to the matrix: lcplab's writer names those it
 * wrote in a comment after the banner, "% lcplab-sidecars: .b .lo .findex
 * .mu"; a matrix with the note is read with exactly those (one missing, or
 * one more, is refused: docs/io.md, "Damaged files").  Every sidecar read
 * must hold n numbers (io_vec_room) before the dense A is allocated.
 *
 * FOO.mtx (the MatrixMarket exchange format, NIST):
 *     %%MatrixMarket matrix <coordinate|array> <real|double|integer> <general|symmetric|skew-symmetric>
 *     % comment lines
 *     n n [nnz]                       square only
 *     coordinate: nnz lines "i j v", 1-based; duplicates are summed
 *                 (SuiteSparse's rule); symmetric: only i >= j stored and
 *                 mirrored; skew-symmetric: only i > j, A(j,i) = -v
 *     array:      the values column-major (symmetric: the lower triangle
 *                 column by column; skew: the strictly lower triangle)
 * Nothing but comments may follow the data.  A is built dense (column-major),
 * at most IO_MAX_DENSE entries.
 *
 * Writing: "coordinate real general", the note, the entries of A that are not +0.0
 * (column by column for dense A, row by row for CSR), %.17g, 1-based;
 * FOO.b always; FOO.lo if some lo is not +0.0, FOO.hi if some hi is not
 * +inf, FOO.findex / FOO.mu when the instance has them.  Sidecars that are
 * not needed are removed, so that a stale FOO.lo from an earlier write is
 * not read back.  Cones cannot be stored (SLV_ERR_UNSUPPORTED, nothing
 * written); x_ref is not written.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r, O_CLOEXEC */

#include "io_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* FOO.mtx -> "FOO" + suffix; other names -> name + suffix.  NULL if out of
 * memory. */
static char *sidecar(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  if (n >= 4 && strcmp(path + n - 4, ".mtx") == 0) n -= 4;
  char *s = malloc(n + k + 1);
  if (!s) return NULL;
  memcpy(s, path, n);
  memcpy(s + n, suffix, k + 1);
  return s;
}

/* The sidecars' suffixes, in the order of every array of five here. */
static const char *const SFX[5] = { ".b", ".lo", ".hi", ".findex", ".mu" };

int io_write_sidecar(const char *path, io_format fmt, int k, char *buf, size_t len) {
  if (fmt == IO_FMT_AUTO) fmt = io_format_for_path(path);
  if (fmt != IO_FMT_MTX || k < 0 || k >= 5) return 0;
  size_t n = strlen(path), m = strlen(SFX[k]);
  if (n >= 4 && strcmp(path + n - 4, ".mtx") == 0) n -= 4;
  if (n + m >= len) return -1;
  memcpy(buf, path, n);
  memcpy(buf + n, SFX[k], m + 1);
  return 1;
}

/* Is there anything named path?  Opened without blocking (a FIFO) and
 * closed at once: what is there is read, or refused with its reason (a
 * FIFO, a file that cannot be read), by io_read_vec, never taken for a
 * missing sidecar. */
static int exists(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    return 1;
  }
  return errno != ENOENT && errno != ENOTDIR;
}

static int tok_is_ci(const io_token *t, const char *s) {
  size_t n = strlen(s);
  if (t->len != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = t->s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != s[i]) return 0;
  }
  return 1;
}

enum { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW };

/* Store v at (i, j), summing duplicates; a -0.0 stays -0.0 when first. */
static void put(double *A, size_t n, int i, int j, double v) {
  double *a = &A[(size_t)i + (size_t)j * n];
  *a = io_is_pos_zero(*a) ? v : *a + v;
}

/* The banner "%%MatrixMarket matrix coordinate|array real|double|integer
 * general|symmetric|skew-symmetric", all on line 1. */
static slv_status read_banner(io_reader *r, int *array, int *sym) {
  io_token t;
  if (!io_rd_next(r, &t) || !io_tok_is(&t, "%%MatrixMarket"))
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "the banner '%%%%MatrixMarket' on line 1");
  if (!io_rd_next(r, &t) || t.line != 1 || !tok_is_ci(&t, "matrix"))
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "'matrix' in the MatrixMarket banner");
  if (io_rd_next(r, &t) && t.line == 1 && tok_is_ci(&t, "array"))
    *array = 1;
  else if (!(t.len && t.line == 1 && tok_is_ci(&t, "coordinate")))
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "'coordinate' or 'array' in the banner");
  if (!io_rd_next(r, &t) || t.line != 1 ||
      !(tok_is_ci(&t, "real") || tok_is_ci(&t, "double") || tok_is_ci(&t, "integer")))
    return io_rd_fail(r, &t,
                      t.len && t.line == 1 && (tok_is_ci(&t, "complex") || tok_is_ci(&t, "pattern"))
                          ? SLV_ERR_UNSUPPORTED
                          : SLV_ERR_INVALID,
                      "the field 'real', 'double' or 'integer' in the banner");
  if (io_rd_next(r, &t) && t.line == 1 && tok_is_ci(&t, "general"))
    *sym = SYM_GENERAL;
  else if (t.len && t.line == 1 && tok_is_ci(&t, "symmetric"))
    *sym = SYM_SYMMETRIC;
  else if (t.len && t.line == 1 && tok_is_ci(&t, "skew-symmetric"))
    *sym = SYM_SKEW;
  else
    return io_rd_fail(r, &t, SLV_ERR_INVALID,
                      "'general', 'symmetric' or 'skew-symmetric' in the banner");
  return SLV_OK;
}

static const char *sym_name(int sym) {
  return sym == SYM_GENERAL ? "general" : sym == SYM_SYMMETRIC ? "symmetric" : "skew-symmetric";
}

/* The size line (square n x n, and nnz for coordinate storage), checked
 * against the limits, the cap and what is left of the file; *line gets
 * its line. */
static slv_status read_sizes(io_reader *r, int array, int sym, int *n, int *nnz, long *line) {
  int cols;
  slv_status st;
  if ((st = io_rd_size(r, IO_MAX_N, n, line, "the number of rows"))) return st;
  if ((st = io_rd_size(r, IO_MAX_N, &cols, NULL, "the number of columns"))) return st;
  if (cols != *n)
    return io_rd_failf(r, *line, SLV_ERR_INVALID, "expected a square matrix, found %d x %d", *n,
                       cols);
  double nn = (double)*n * *n;
  double maxnnz = sym == SYM_GENERAL     ? nn
                  : sym == SYM_SYMMETRIC ? nn / 2 + *n / 2.0
                                         : nn / 2 - *n / 2.0;
  if (nn > (double)IO_MAX_DENSE)
    return io_rd_failf(r, *line, SLV_ERR_DIM,
                       "expected at most %ld entries to store A dense, found %d x %d", IO_MAX_DENSE,
                       *n, *n);
  if ((st = io_rd_reserve(r, *line, io_instance_bytes(*n, 1),
                          "n = %d: A (n x n, built dense), b, lo, hi", *n)))
    return st;
  if (array) return io_rd_need(r, maxnnz, "the %.0f values of the array", maxnnz);
  if ((st = io_rd_size(r, (long)maxnnz, nnz, NULL,
                       "the number of entries of this %d x %d %s matrix", *n, *n, sym_name(sym))))
    return st;
  return io_rd_need(r, 3.0 * *nnz, "%d entries 'i j value'", *nnz);
}

/* nnz coordinate entries "i j value" into the dense A (ld rows), duplicates
 * summed; symmetric and skew-symmetric files give the lower triangle. */
static slv_status read_entries(io_reader *r, double *A, size_t ld, int n, int nnz, int sym) {
  io_token t;
  slv_status st = SLV_OK;
  for (int k = 0; k < nnz && !st; k++) {
    int i, j;
    double v;
    io_rd_peek(r, &t);
    if ((st = io_rd_int(r, 1, n, &i, "the row of entry %d", k + 1))) break;
    if ((st = io_rd_int(r, 1, n, &j, "the column of entry %d", k + 1))) break;
    if ((st = io_rd_double(r, IO_RD_FINITE, &v, "the value of entry %d, A(%d,%d)", k + 1, i, j)))
      break;
    if ((sym == SYM_SYMMETRIC && i < j) || (sym == SYM_SKEW && i <= j))
      return io_rd_fail(r, &t, SLV_ERR_INVALID, "a %s entry (row %s column) in a %s matrix",
                        sym == SYM_SKEW ? "strictly lower" : "lower-triangle",
                        sym == SYM_SKEW ? ">" : ">=", sym_name(sym));
    put(A, ld, i - 1, j - 1, v);
    if (sym == SYM_SYMMETRIC && i != j) put(A, ld, j - 1, i - 1, v);
    if (sym == SYM_SKEW) put(A, ld, j - 1, i - 1, -v);
  }
  return st;
}

/* Array storage: every value column-major, or the lower triangle of a
 * symmetric or skew-symmetric matrix. */
static slv_status read_array(io_reader *r, double *A, size_t ld, int n, int sym) {
  if (sym == SYM_GENERAL) return io_rd_matrix(r, n, n, 1, A, ld, IO_RD_FINITE, "A");
  slv_status st = SLV_OK;
  for (int j = 0; j < n && !st; j++)
    for (int i = sym == SYM_SKEW ? j + 1 : j; i < n && !st; i++) {
      double v;
      if ((st = io_rd_double(r, IO_RD_FINITE, &v, "A(%d,%d) of the lower triangle", i, j))) break;
      A[i + j * ld] = v;
      if (i != j) A[j + i * ld] = sym == SYM_SKEW ? -v : v;
    }
  return st;
}

/* The five sidecar names of path; SLV_ERR_NOMEM with the message. */
static slv_status sidecar_names(const char *path, char *side[5], char *err, size_t errlen) {
  for (int k = 0; k < 5; k++)
    if (!(side[k] = sidecar(path, SFX[k]))) {
      io_msgf(err, errlen, "%s: out of memory", path);
      return SLV_ERR_NOMEM;
    }
  return SLV_OK;
}

/* The note lcplab's writer puts after the banner, naming the sidecars it
 * wrote with the matrix (docs/io.md, "Damaged files"). */
#define SIDECAR_NOTE "lcplab-sidecars:"

/* What the header says: storage, symmetry, sizes and, when the file
 * carries lcplab's note (noted), which sidecars it names (listed). */
typedef struct mtx_head {
  int array, sym, n, nnz, noted, listed[5];
  char note[128]; /* the note's words, for messages */
  long line;      /* of the size line */
} mtx_head;

/* The note's words into h->listed: each one of SFX, at most once. */
static slv_status read_note(io_reader *r, mtx_head *h) {
  char val[128];
  long line = io_rd_note(r, SIDECAR_NOTE, val, sizeof val);
  h->noted = line > 0;
  if (!h->noted) return SLV_OK;
  snprintf(h->note, sizeof h->note, "%s", val);
  char *save = NULL;
  for (char *w = strtok_r(val, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
    int k = 0;
    while (k < 5 && strcmp(w, SFX[k]) != 0) k++;
    if (k == 5 || h->listed[k])
      return io_rd_failf(r, line, SLV_ERR_INVALID,
                         "expected the sidecars .b, .lo, .hi, .findex, .mu, each once, after '%s', "
                         "found '%s'",
                         SIDECAR_NOTE, w);
    h->listed[k] = 1;
  }
  if (!h->listed[0])
    return io_rd_failf(r, line, SLV_ERR_INVALID, "expected '%s' to name .b", SIDECAR_NOTE);
  return SLV_OK;
}

static slv_status read_head(io_reader *r, mtx_head *h) {
  memset(h, 0, sizeof *h);
  h->sym = SYM_GENERAL;
  slv_status st = read_banner(r, &h->array, &h->sym);
  if (st) return st;
  r->comment = '%'; /* from here on, '%' lines are comments */
  if ((st = read_note(r, h))) return st;
  return read_sizes(r, h->array, h->sym, &h->n, &h->nnz, &h->line);
}

/* The dense A and the values after the size line (no sidecar yet). */
static slv_status read_body(io_reader *r, const mtx_head *h, io_instance **out) {
  io_token t;
  int n = h->n;
  io_instance *inst = io_instance_alloc(n);
  if (!inst || io_alloc_dense(inst)) {
    io_instance_free(inst);
    return io_rd_failf(r, h->line, SLV_ERR_NOMEM, "out of memory for n = %d", n);
  }
  size_t ld = n > 0 ? (size_t)n : 1;
  slv_status st = h->array ? read_array(r, inst->A, ld, n, h->sym)
                           : read_entries(r, inst->A, ld, n, h->nnz, h->sym);
  if (!st && io_rd_next(r, &t))
    st = io_rd_fail(r, &t, SLV_ERR_INVALID, "end of file after the %s",
                    h->array ? "array values" : "entries");
  if (st) {
    io_instance_free(inst);
    return st;
  }
  *out = inst;
  return SLV_OK;
}

/* What is left of the cap once mem bytes are reserved: the cap on a sidecar
 * file's size. */
static size_t cap_left(size_t cap, double mem) {
  return (double)cap > mem ? (size_t)((double)cap - mem) : 0;
}

/* Which sidecars are there (present), checked against what the matrix
 * says before A is allocated: with lcplab's note, exactly the named ones
 * (one missing was lost, one more came from elsewhere); without it, .b,
 * and no .mu without .findex (a friction coefficient with no row to apply
 * to: its .findex was lost).  Each present sidecar must hold n numbers
 * (io_vec_room), so a size line that claims more than the files hold is
 * refused before the dense A of its size is allocated. */
static slv_status check_sidecars(const char *path, char *const side[5], const mtx_head *h,
                                 int present[5], char *err, size_t errlen) {
  static const char *const names[5] = { "b", "lo", "hi", "findex", "mu" };
  for (int k = 0; k < 5; k++) present[k] = exists(side[k]);
  for (int k = 0; h->noted && k < 5; k++) {
    if (h->listed[k] && !present[k]) {
      io_msgf(err, errlen, "%s: expected the sidecar that %s names (%s %s), found: %s", side[k],
              path, SIDECAR_NOTE, h->note, strerror(ENOENT));
      return SLV_ERR_INVALID;
    }
    if (!h->listed[k] && present[k]) {
      io_msgf(err, errlen,
              "%s: expected no such sidecar: %s names those written with it (%s %s), so this "
              "one is not its own",
              side[k], path, SIDECAR_NOTE, h->note);
      return SLV_ERR_INVALID;
    }
  }
  if (!h->noted && present[4] && !present[3]) {
    io_msgf(err, errlen,
            "%s: expected %s beside it (friction coefficients need the friction rows they apply "
            "to), found: %s",
            side[4], side[3], strerror(ENOENT));
    return SLV_ERR_INVALID;
  }
  slv_status st = SLV_OK;
  for (int k = 0; k < 5 && !st; k++)
    if (k == 0 || present[k]) st = io_vec_room(side[k], h->n, names[k], err, errlen);
  return st;
}

/* The sidecars found present into inst (A read), within what is left of
 * the cap (mem bytes used). */
static slv_status read_sidecars(const char *path, char *const side[5], const int present[5],
                                io_instance *inst, size_t cap, double mem, char *err,
                                size_t errlen) {
  int n = inst->n;
  slv_status st;
  if ((st = io_read_vec(side[0], n, IO_RD_FINITE, inst->b, "b", cap_left(cap, mem), err, errlen)))
    return st;
  if (present[1] &&
      (st = io_read_vec(side[1], n, IO_RD_INF_OK, inst->lo, "lo", cap_left(cap, mem), err, errlen)))
    return st;
  if (present[2] &&
      (st = io_read_vec(side[2], n, IO_RD_INF_OK, inst->hi, "hi", cap_left(cap, mem), err, errlen)))
    return st;
  if (present[3]) {
    if ((st = io_reserve(side[3], &mem, (double)cap, 4.0 * n, err, errlen, "findex (n = %d)", n)))
      return st;
    if (io_alloc_findex(inst)) goto nomem;
    if ((st = io_read_ivec(side[3], n, -1, n - 1, 1, inst->findex, "findex", cap_left(cap, mem),
                           err, errlen)))
      return st;
    if (io_has_friction(inst) && !present[4]) {
      io_msgf(err, errlen, "%s: expected a readable file (%s has friction rows), found: %s",
              side[4], side[3], strerror(ENOENT));
      return SLV_ERR_INVALID;
    }
  }
  if (!present[4]) return SLV_OK;
  if ((st = io_reserve(side[4], &mem, (double)cap, 8.0 * n, err, errlen, "mu (n = %d)", n)))
    return st;
  if (io_alloc_mu(inst)) goto nomem;
  if ((st = io_read_vec(side[4], n, IO_RD_FINITE, inst->mu, "mu", cap_left(cap, mem), err, errlen)))
    return st;
  /* friction coefficients (datasets/README.md: n finite values >= 0), as
   * the .lcp reader demands: else a problem read here could not be read
   * back once written (found by tests/fuzz/fuzz_mtx.c) */
  for (int i = 0; i < n; i++)
    if (inst->mu[i] < 0) {
      io_msgf(err, errlen, "%s: expected mu[%d] >= 0, found %.17g", side[4], i, inst->mu[i]);
      return SLV_ERR_INVALID;
    }
  return SLV_OK;
nomem:
  io_msgf(err, errlen, "%s: out of memory", path);
  return SLV_ERR_NOMEM;
}

slv_status io_read_mtx(const io_req *rq, io_instance **out) {
  io_reader r;
  io_instance *inst = NULL;
  mtx_head h;
  char *side[5] = { NULL, NULL, NULL, NULL, NULL };
  int present[5];
  *out = NULL;
  slv_status st = io_rd_open_req(&r, rq, 0);
  if (st) return st;
  if (!(st = read_head(&r, &h)) && !(st = sidecar_names(rq->path, side, rq->err, rq->errlen)) &&
      !(st = check_sidecars(rq->path, side, &h, present, rq->err, rq->errlen)))
    st = read_body(&r, &h, &inst);
  double mem = r.mem - (double)r.len; /* the sidecars' buffers are checked when opened */
  io_rd_close(&r);
  if (!st)
    st = read_sidecars(rq->path, side, present, inst, rq->max_memory, mem, rq->err, rq->errlen);
  for (int k = 0; k < 5; k++) free(side[k]);
  if (st) {
    io_instance_free(inst);
    return st;
  }
  *out = inst;
  return SLV_OK;
}

static void write_entry(io_writer *w, int i, int j, double v) {
  fprintf(w->f, "%d %d ", i + 1, j + 1);
  io_wr_double(w, v, '\n');
}

/* The matrix A in MatrixMarket coordinate form (entries that are not +0),
 * with the note naming the sidecars written with it (need). */
static void write_matrix(io_writer *w, const io_instance *inst, const int need[5]) {
  int n = inst->n;
  long nnz = 0;
  if (inst->storage == SLV_DENSE) {
    for (size_t k = 0; k < (size_t)n * n; k++) nnz += !io_is_pos_zero(inst->A[k]);
  } else {
    for (int k = 0; k < inst->Ap[n]; k++) nnz += !io_is_pos_zero(inst->Ax[k]);
  }
  fputs("%%MatrixMarket matrix coordinate real general\n"
        "% lcplab: w = A x + b; sidecars .b (required), .lo, .hi, .findex, .mu\n"
        "% " SIDECAR_NOTE,
        w->f);
  for (int k = 0; k < 5; k++)
    if (need[k]) fprintf(w->f, " %s", SFX[k]);
  fputc('\n', w->f);
  fprintf(w->f, "%d %d %ld\n", n, n, nnz);
  if (inst->storage == SLV_DENSE) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double v = inst->A[i + (size_t)j * n];
        if (!io_is_pos_zero(v)) write_entry(w, i, j, v);
      }
  } else {
    for (int i = 0; i < n; i++)
      for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++)
        if (!io_is_pos_zero(inst->Ax[k])) write_entry(w, i, inst->Aj[k], inst->Ax[k]);
  }
}

/* Which sidecars (.b, .lo, .hi, .findex, .mu) the instance needs. */
static void sidecars_needed(const io_instance *inst, int need[5]) {
  need[0] = 1;
  need[1] = need[2] = 0;
  for (int i = 0; i < inst->n; i++) {
    if (!io_is_pos_zero(inst->lo[i])) need[1] = 1;
    if (inst->hi[i] != INFINITY) need[2] = 1;
  }
  need[3] = inst->findex != NULL;
  need[4] = inst->mu != NULL;
}

/* The matrix and its sidecars are all written before any is published
 * (docs/io.md, "Replacing files"): a failed write (a full disk) leaves the
 * old matrix and sidecars together, never a new A beside an old b. */
slv_status io_write_mtx(const io_req *rq, const io_instance *inst) {
  const char *path = rq->path;
  char *side[5] = { NULL, NULL, NULL, NULL, NULL };
  io_writer w[6]; /* the matrix, then the sidecars */
  int need[5], open = 0;
  sidecars_needed(inst, need);
  slv_status st = sidecar_names(path, side, rq->err, rq->errlen);
  if (!st) st = io_wr_open(&w[open++], path, rq->err, rq->errlen);
  for (int k = 0; k < 5 && !st; k++)
    if (need[k]) st = io_wr_open(&w[open++], side[k], rq->err, rq->errlen);
  if (!st) {
    write_matrix(&w[0], inst, need);
    int q = 1;
    for (int k = 0; k < 5; k++) {
      if (!need[k]) continue;
      if (k == 3)
        io_wr_ivec(&w[q++], inst->n, inst->findex);
      else
        io_wr_vec(&w[q++], inst->n,
                  k == 0   ? inst->b
                  : k == 1 ? inst->lo
                  : k == 2 ? inst->hi
                           : inst->mu);
    }
  }
  for (int q = 0; q < open && !st; q++) st = io_wr_finish(&w[q]);
  for (int q = 0; q < open; q++) {
    if (st) {
      io_wr_discard(&w[q]);
    } else {
      st = io_wr_close(&w[q]);
    }
  }
  /* stale sidecars of an earlier write would be read back: remove them */
  for (int k = 1; k < 5 && !st; k++)
    if (!need[k]) remove(side[k]);
  for (int k = 0; k < 5; k++) free(side[k]);
  return st;
}
