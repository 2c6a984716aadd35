/* io_internal.h -- private helpers of the instance readers and writers
 * (io_*.c, instance.c); never installed.
 *
 * The reader.  A file is read once, whole, into one buffer (slv_rd_open);
 * a cursor then walks it token by token.  A token is a maximal run of bytes
 * that are neither white space nor the comment character (if one is set:
 * '#' in the blcp/lcplab/vector formats, '%' in MatrixMarket, none in
 * Siconos files, which have no comments).  The cursor counts lines, so every
 * message names FILE:LINE.  Numbers are converted in place with strtod /
 * strtol and must cover the whole token ("1.5x" is refused), so parsing
 * 10^6 numbers costs one pass over the buffer and no per-number stdio call.
 *
 * Sizes before allocation.  A header that implies `count` numbers is
 * checked with slv_rd_need() before anything of that size is allocated:
 * each number takes at least 2 bytes (one character and one separator, the
 * last one needs no separator), so count numbers need 2*count - 1 bytes of
 * what is left of the file.  Sizes are also bounded by SLV_IO_MAX_N and, for
 * dense n x n storage, by SLV_IO_MAX_NNZ.  A dense matrix built from a
 * sparse file (SBM, MatrixMarket coordinate) is not backed by file bytes, so
 * it is bounded by SLV_IO_MAX_DENSE instead.
 *
 * Messages.  Every reader error is ONE line
 *     FILE:LINE: expected <what>, found '<token>'     (or "found end of file")
 * with non-printable bytes of the token shown as \xNN and long tokens cut.
 * Statuses: SLV_ERR_INVALID for malformed data, SLV_ERR_DIM for a size that
 * is negative or beyond the limits, SLV_ERR_NOMEM, SLV_ERR_UNSUPPORTED for a
 * well-formed feature we do not read (CSparse storage in a Siconos file).
 *
 * A copy of a reader struct is a second cursor over the same buffer (used to
 * look ahead); only the original is closed.  No global mutable state.
 */
#ifndef SLV_IO_INTERNAL_H
#define SLV_IO_INTERNAL_H

#include "slv_internal.h"
#include "slv_io.h"

#include <stdio.h>

/* Dense entries we accept to build from a sparse file: n = 5000. */
#define SLV_IO_MAX_DENSE 25000000L

typedef struct slv_reader {
  const char *path;  /* for messages */
  char *buf;         /* the whole file, NUL-terminated; owned by the original */
  size_t len;        /* bytes in buf, without the final NUL */
  size_t pos;        /* cursor */
  long line;         /* line of the cursor, from 1 */
  char comment;      /* comment character ('#', '%') or 0 */
  char *err;         /* message buffer of the caller */
  size_t errlen;
} slv_reader;

typedef struct slv_token {
  const char *s;     /* into the reader's buffer, not NUL-terminated */
  size_t len;
  long line;
} slv_token;

/* Flags of slv_rd_double / slv_rd_doubles / slv_rd_matrix. */
enum {
  SLV_RD_FINITE = 0,  /* refuse NaN and +-inf */
  SLV_RD_INF_OK = 1   /* accept +-inf ("inf", "-inf", "infinity"), refuse NaN */
};

/* Reads path whole.  comment: '#', '%' or 0.  Missing or unreadable file:
 * SLV_ERR_INVALID, "FILE: expected a readable file, found <strerror>". */
slv_status slv_rd_open(slv_reader *r, const char *path, char comment, char *err, size_t errlen);
void slv_rd_close(slv_reader *r);

/* Next token (advances) / the next token without advancing.  Return 1, or 0
 * at the end of the file (t->line is then the last line). */
int slv_rd_next(slv_reader *r, slv_token *t);
int slv_rd_peek(const slv_reader *r, slv_token *t);
/* 1 if only white space and comments are left. */
int slv_rd_at_end(const slv_reader *r);
/* Does token t spell exactly s? */
int slv_tok_is(const slv_token *t, const char *s);

/* "FILE:LINE: expected <what>, found '<t>'" (t NULL: "found end of file")
 * into r->err; returns st.  `what` is a printf format. */
slv_status slv_rd_fail(const slv_reader *r, const slv_token *t, slv_status st,
                       const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "FILE:LINE: <free text>" into r->err; returns st. */
slv_status slv_rd_failf(const slv_reader *r, long line, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* An integer in [lo, hi] (base 10, whole token).  SLV_ERR_INVALID with
 * "expected <what> (an integer in [lo, hi])" otherwise. */
slv_status slv_rd_int(slv_reader *r, long lo, long hi, int *out, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* A size in [0, max]: not an integer -> SLV_ERR_INVALID; negative or
 * > max -> SLV_ERR_DIM. *line (if non-NULL) gets the token's line. */
slv_status slv_rd_size(slv_reader *r, long max, int *out, long *line, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* One number; flags SLV_RD_FINITE or SLV_RD_INF_OK. */
slv_status slv_rd_double(slv_reader *r, int flags, double *out, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* count numbers into out[0..count), named name[i] in messages. */
slv_status slv_rd_doubles(slv_reader *r, size_t count, int flags, double *out, const char *name);
/* rows x cols numbers, in file order column-major (colmajor = 1: the k-th
 * number is (k % rows, k / rows)) or row-major (colmajor = 0), stored at
 * dst[i + j*ld]; named name(i,j) in messages. */
slv_status slv_rd_matrix(slv_reader *r, int rows, int cols, int colmajor, double *dst, size_t ld,
                         int flags, const char *name);
/* hi[0..n), each a number or +-inf with hi[i] >= lo[i]; a violation gives
 * "expected <name_hi>[i] >= <name_lo>[i] = v, found '<token>'". */
slv_status slv_rd_upper(slv_reader *r, int n, const double *lo, double *hi, const char *name_hi,
                        const char *name_lo);
/* Are `count` more numbers possible in what is left of the file?  If not:
 * SLV_ERR_INVALID, "expected <count> numbers for <what>, found only <k>
 * bytes left in the file". */
slv_status slv_rd_need(const slv_reader *r, double count, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Quiet look-ahead helpers: convert the next token if it is an integer /
 * a number (not NaN) and advance; else return 0 and leave r unchanged. */
int slv_rd_try_long(slv_reader *r, long *v);
int slv_rd_try_double(slv_reader *r, double *v);

/* ---- writing -------------------------------------------------------------- */
typedef struct slv_writer {
  FILE *f;
  const char *path;
  char *err;
  size_t errlen;
} slv_writer;

/* fopen(path, "w"); SLV_ERR_INVALID with "FILE: cannot write: <strerror>". */
slv_status slv_wr_open(slv_writer *w, const char *path, char *err, size_t errlen);
/* Checks the stream's error flag and closes; on any failure removes the file
 * and returns SLV_ERR_INVALID with a message. */
slv_status slv_wr_close(slv_writer *w);
/* %.17g, or "inf" / "-inf"; followed by sep (if non-zero). */
void slv_wr_double(slv_writer *w, double v, char sep);

/* ---- instances ------------------------------------------------------------ */
/* The struct with b = 0, lo = 0, hi = +inf (size max(1, n)), no matrix yet
 * (storage dense, A NULL).  NULL on allocation failure or bad n. */
slv_instance *slv_io_instance_alloc(int n);
/* Allocate the dense n x n matrix (zeros) / the CSR row pointers (Ap,
 * zeros, size n+1) / the CSR entries (Aj, Ax for nnz).  SLV_ERR_NOMEM or
 * SLV_ERR_DIM on failure. */
slv_status slv_io_alloc_dense(slv_instance *inst);
slv_status slv_io_alloc_csr_rows(slv_instance *inst);
slv_status slv_io_alloc_csr_entries(slv_instance *inst, long nnz);
/* findex = -1 / mu = 0 (size n), each only if absent; cones (ncones);
 * x_ref = 0. */
slv_status slv_io_alloc_findex(slv_instance *inst);
slv_status slv_io_alloc_mu(slv_instance *inst);
slv_status slv_io_alloc_cones(slv_instance *inst, int ncones);
slv_status slv_io_alloc_xref(slv_instance *inst);

/* The instance's A as a dense column-major n x n array: inst->A itself when
 * dense (*owned = 0), else a new copy (*owned = 1, caller frees).  NULL if
 * the copy cannot be allocated. */
double *slv_io_dense_of(const slv_instance *inst, int *owned);

/* The kind slv_instance_classify would set ("lcp", "mlcp", ...). */
const char *slv_io_kind_of(const slv_instance *inst);

/* Does the instance have a friction row (findex[i] >= 0)? */
int slv_io_has_friction(const slv_instance *inst);

/* Is x exactly +0.0 (not -0.0)?  Used to decide what a writer may omit. */
int slv_io_is_pos_zero(double x);

/* ---- per format (io_siconos.c, io_blcp.c, io_mtx.c, io_lcplab.c) ----------- */
/* Siconos: fmt SLV_FMT_SICONOS_LCP / _MLCP / _RELAY, or SLV_FMT_AUTO to
 * decide by content; *found gets the format actually read. */
slv_status slv_io_read_siconos(slv_reader *r, slv_format fmt, slv_instance **out, slv_format *found);
slv_status slv_io_write_siconos(const char *path, slv_format fmt, const slv_instance *inst,
                                char *err, size_t errlen);
/* Which siconos-* format holds inst (for writing a .dat): lcp, else mlcp
 * (free rows first), else relay. */
slv_format slv_io_siconos_choose(const slv_instance *inst);

slv_status slv_io_read_blcp(slv_reader *r, slv_instance **out);
slv_status slv_io_write_blcp(const char *path, const slv_instance *inst, char *err, size_t errlen);

/* MatrixMarket takes the path (it opens the sidecars itself). */
slv_status slv_io_read_mtx(const char *path, slv_instance **out, char *err, size_t errlen);
slv_status slv_io_write_mtx(const char *path, const slv_instance *inst, char *err, size_t errlen);

slv_status slv_io_read_lcplab(slv_reader *r, slv_instance **out);
slv_status slv_io_write_lcplab(const char *path, const slv_instance *inst, char *err, size_t errlen);

/* Plain vectors (io_vector.c): exactly n values, '#' comments.  flags as
 * slv_rd_double; name for messages ("x", "lo", ...). */
slv_status slv_io_read_vec(const char *path, int n, int flags, double *x, const char *name,
                           char *err, size_t errlen);
/* Integers in [lo, hi]; not_self: x[i] != i (findex). */
slv_status slv_io_read_ivec(const char *path, int n, long lo, long hi, int not_self, int *x,
                            const char *name, char *err, size_t errlen);
/* One value per line (%.17g, inf/-inf) / one integer per line; err gets
 * "FILE: cannot write: ..." on failure (SLV_ERR_INVALID). */
slv_status slv_io_write_vec(const char *path, int n, const double *x, char *err, size_t errlen);
slv_status slv_io_write_ivec(const char *path, int n, const int *x, char *err, size_t errlen);

#endif /* SLV_IO_INTERNAL_H */
