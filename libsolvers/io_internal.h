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

/* Frictional-contact instances read from sparse storage (Siconos SBM, FCLIB)
 * are kept dense up to this many rows (100 contacts) and CSR beyond. */
#define SLV_IO_FC_DENSE_MAX 300

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

/* ---- Siconos NumericsMatrix (io_siconos.c) -------------------------------- */
/* A matrix as read: dense (a, rows x cols column-major) or CSR (Ap[rows+1],
 * Aj, Ax: columns increasing within a row, exact +0.0 entries of the stored
 * blocks dropped, -0.0 kept). */
typedef struct slv_nm {
  int rows, cols;
  slv_storage storage;
  double *a;
  int *Ap, *Aj;
  double *Ax;
} slv_nm;

/* Reads a NumericsMatrix (storage 0 dense or 1 SBM; 2 CSparse gives
 * SLV_ERR_UNSUPPORTED).  want_rows >= 0: the sizes must be want_rows x
 * want_cols (why names the reason, e.g. "n = 3").  Dense storage always
 * gives a dense matrix; SBM gives a dense one when rows <= csr_above
 * (bounded by SLV_IO_MAX_DENSE entries), else CSR.  *line (if non-NULL) gets
 * the line of the size header.  On failure *out holds nothing. */
slv_status slv_io_read_nm(slv_reader *r, const char *name, int want_rows, int want_cols,
                          const char *why, int csr_above, slv_nm *out, long *line);
void slv_io_nm_free(slv_nm *m);

/* Dense NumericsMatrix "0 n n n<TAB>n" then one column per line (%.17g). */
void slv_io_write_dense_nm(slv_writer *w, int n, const double *A);

/* ---- frictional contact (io_fc3d.c, io_fclib.c) ------------------------------ */
/* Makes inst (n = 3 nc rows, matrix and b already set) a local FC3D
 * problem: one Coulomb cone (De Saxce) per contact at rows 3c, 3c+1, 3c+2
 * with cone_mu[c] = mu[c], lo = -inf, hi = +inf on every row, no findex. */
slv_status slv_io_set_fc3d_cones(slv_instance *inst, int nc, const double *mu);
/* Can a local FC3D format (fmt: "siconos-fc3d", "fclib") hold the valid
 * instance inst?  It must be a cone instance whose rows all belong to cones
 * (then at rows 0, 3, 6, ...), with the Coulomb law and no friction
 * (findex) rows.  Else SLV_ERR_UNSUPPORTED and
 * "PATH: FMT ..." in err.  lo / hi of cone rows are not stored (the cone
 * replaces them). */
slv_status slv_io_check_fc3d(const char *path, const char *fmt, const slv_instance *inst,
                             char *err, size_t errlen);
/* CSR with the columns of every row in increasing order, from nnz entries
 * (row[k], col[k], val[k]) in any order: a stable two-pass counting sort, so
 * duplicates keep their order (they add up, as in every CSR here).  Fills
 * inst's Ap/Aj/Ax (storage CSR).  Indices must be in range (caller). */
slv_status slv_io_csr_from_triplets(slv_instance *inst, long nnz, const int *row, const int *col,
                                    const double *val);
/* Replaces inst's CSR by the dense equivalent (duplicates summed, a lone
 * -0.0 kept) when n <= SLV_IO_FC_DENSE_MAX; no-op otherwise. */
slv_status slv_io_fc_densify(slv_instance *inst);

/* Siconos local FC3D .dat (d nc M q mu): read / write. */
slv_status slv_io_read_fc3d(slv_reader *r, slv_instance **out);
slv_status slv_io_write_fc3d(const char *path, const slv_instance *inst, char *err, size_t errlen);
/* Does the reader's text open like a frictional-contact .dat ("d nc
 * storage d*nc cols" with d in {2, 3}: 1) rather than like an LCP ("n
 * storage n n": 0)?  2: "d nc storage k k" with k != d*nc, the ndof x ndof
 * M of a global problem.  Look-ahead only. */
int slv_io_looks_like_fc(const slv_reader *r);

/* FCLIB HDF5 (io_fclib.c): local, or global condensed to local. */
slv_status slv_io_read_fclib(const char *path, slv_instance **out, char *err, size_t errlen);
/* The same from a file image in memory (image[0..len), the file's bytes;
 * name for messages): the checks run on the image through HDF5's core
 * driver (H5Pset_file_image), then libfclib, which opens paths only, reads
 * a temporary file holding the same bytes (in /dev/shm, which is memory,
 * when it is writable; else /tmp), removed after.  Both see the same
 * bytes; where HDF5's two drivers differ (a damaged superblock that the
 * core driver opens and the default one refuses), libfclib's H5Fopen
 * fails, it returns nothing, and the read fails with a message.  Then
 * slv_problem_validate, as slv_read.  Used by the fuzz harness
 * tests/fuzz/fuzz_fclib.c. */
slv_status slv_io_read_fclib_image(const void *image, size_t len, const char *name,
                                   slv_instance **out, char *err, size_t errlen);
slv_status slv_io_write_fclib(const char *path, const slv_instance *inst, char *err, size_t errlen);
/* Does the file start with the HDF5 signature (\x89HDF\r\n\x1a\n)? */
int slv_io_is_hdf5_bytes(const char *buf, size_t len);

/* ---- per format (io_siconos.c, io_blcp.c, io_mtx.c, io_lcplab.c) ----------- */
/* Siconos: fmt SLV_FMT_SICONOS_LCP / _MLCP / _RELAY / _FC3D, or SLV_FMT_AUTO
 * to decide by content; *found gets the format actually read. */
slv_status slv_io_read_siconos(slv_reader *r, slv_format fmt, slv_instance **out, slv_format *found);
slv_status slv_io_write_siconos(const char *path, slv_format fmt, const slv_instance *inst,
                                char *err, size_t errlen);
/* Which siconos-* format holds inst (for writing a .dat): fc3d if it has
 * cones, else lcp, else mlcp (free rows first), else relay. */
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
