/* io_internal.h -- private helpers of the instance readers and writers
 * (io_*.c, instance.c); never installed.
 *
 * The reader.  A file is read once, whole, into one buffer (io_rd_open);
 * a cursor then walks it token by token.  A token is a maximal run of bytes
 * that are neither white space nor the comment character (if one is set:
 * '#' in the blcp/lcplab/vector formats, '%' in MatrixMarket, none in
 * Siconos files, which have no comments).  The cursor counts lines, so every
 * message names FILE:LINE.  Numbers are converted in place by libsolvers'
 * strict parser (slv_parse_double_n, slv_parse_long_n) and must cover the
 * whole token ("1.5x" is refused), so parsing 10^6 numbers costs one pass
 * over the buffer and no per-number stdio call.
 *
 * Sizes before allocation.  A header that implies `count` numbers is
 * checked with io_rd_need() before anything of that size is allocated:
 * each number takes at least 2 bytes (one character and one separator, the
 * last one needs no separator), so count numbers need 2*count - 1 bytes of
 * what is left of the file.  Sizes are also bounded by IO_MAX_N and, for
 * dense n x n storage, by IO_MAX_NNZ.  A dense matrix built from a
 * sparse file (SBM, MatrixMarket coordinate) is not backed by file bytes, so
 * it is bounded by IO_MAX_DENSE instead.
 *
 * The memory cap.  Every read has a cap (io_read_options.max_memory) on
 * the bytes the sizes in the file may make the reader allocate.  The reader
 * keeps a running total: the file's own buffer first (io_rd_open refuses a
 * file larger than the cap before reading it), then, at each header size and
 * before the arrays that size implies are allocated, their bytes
 * (io_rd_reserve; FCLIB and npz keep the same total in their own contexts).
 * A total above the cap is refused with SLV_ERR_DIM and a message naming the
 * file, the line and the field, so no reader allocates more than the cap.
 *
 * The format tables.  One row per format in each: its name, the extensions
 * that select it and how to recognise it from the first bytes of a file
 * (io_format.c), and its reader, its "can it hold this instance" check and
 * its writer, all with one signature each (io_req below; io_dispatch.c).
 * io_read, io_write and the name and extension functions of io.h only walk
 * the tables, so adding a format is a row in each and one file.
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
#ifndef IO_INTERNAL_H
#define IO_INTERNAL_H

#include "slv.h"
#include "io.h"

#include <stdarg.h>
#include <stdio.h>

/* snprintf into msg (if non-NULL and len > 0); always NUL-terminated.  The
 * I/O library's own helper (io_msg.c). */
void io_msgf(char *msg, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "PATH: <message>" into err (io_msgf); returns st.  The failure helper of
 * the readers that keep their own context (FCLIB, npz, mat). */
slv_status io_path_vfail(const char *path, char *err, size_t errlen, slv_status st, const char *fmt,
                         va_list ap);

/* Dense entries we accept to build from a sparse file: n = 5000. */
#define IO_MAX_DENSE 25000000L

/* Frictional-contact instances read from sparse storage (Siconos SBM, FCLIB)
 * are kept dense up to this many rows (100 contacts) and CSR beyond. */
#define IO_FC_DENSE_MAX 300

/* ---- one read or write ----------------------------------------------------- */
/* What every reader, check and writer of the format table is given. */
typedef struct io_req {
  const char *path;  /* the file (MatrixMarket: FOO.mtx, the sidecars beside it) */
  io_format fmt;     /* the format asked for; IO_FMT_AUTO when it was chosen by the
                         extension, so that the Siconos reader decides the .dat variant
                         from the content */
  size_t max_memory; /* reading: the memory cap, bytes (see "The memory cap" above) */
  char *err;         /* the caller's message buffer (one line) */
  size_t errlen;
} io_req;

typedef slv_status (*io_read_fn)(const io_req *rq, io_instance **out);
typedef slv_status (*io_check_fn)(const io_req *rq, const io_instance *inst);
typedef slv_status (*io_write_fn)(const io_req *rq, const io_instance *inst);

/* ---- formats: names, extensions, sniffs (io_format.c, a leaf) --------------- */
/* What a format is called and how it is recognised. */
typedef struct io_format_desc {
  io_format id;
  const char *name;   /* io_format_str: "siconos-lcp", "npz", ... */
  const char *ext[3]; /* the extensions that select it, lower case with the dot,
                         NULL-padded (every Siconos variant is ".dat": the table's
                         first .dat row reads them all and picks by content) */
  int (*sniff)(const char *head, size_t len); /* does a file that starts with head hold
                         this format?  NULL: never recognised by content */
} io_format_desc;

/* The format whose sniff recognises a file's first bytes (the first row
 * that does), or IO_FMT_AUTO. */
io_format io_format_sniff(const char *head, size_t len);
/* The extension of path (from the last '.' of its last component), or "". */
const char *io_extension(const char *path);
/* Does buf start with the HDF5 signature (\x89HDF\r\n\x1a\n), at 0 or
 * after a user block of 512, 1024, ... bytes? */
int io_is_hdf5_bytes(const char *buf, size_t len);

/* ---- formats: readers, checks, writers (io_dispatch.c, the top) ------------- */
/* One row per format.  A reader returns a new instance in *out (NULL on
 * failure, with the message in rq->err) and may set its format (the
 * Siconos reader sets the variant it found; io_read sets the row's id
 * otherwise).  holds returns SLV_OK if the format can hold the (valid)
 * instance, else SLV_ERR_UNSUPPORTED and a message naming the row or cone;
 * io_write calls it before write, so a writer may assume it. */
typedef struct io_format_entry {
  io_format id;
  io_read_fn read;
  io_check_fn holds; /* NULL: holds every valid instance */
  io_write_fn write;
  /* written by extension: the format of the family that holds inst (.dat: fc3d,
     lcp, mlcp or relay); NULL: this row's id */
  io_format (*variant)(const io_instance *inst);
} io_format_entry;

/* The row of format f, or NULL (IO_FMT_AUTO, out of range). */
const io_format_entry *io_format_row(io_format f);

/* ---- the text reader (io_text.c) ---------------------------------------------- */
typedef struct io_reader {
  const char *path; /* for messages */
  char *buf;        /* the whole file, NUL-terminated; owned by the original */
  size_t len;       /* bytes in buf, without the final NUL */
  size_t pos;       /* cursor */
  long line;        /* line of the cursor, from 1 */
  char comment;     /* comment character ('#', '%') or 0 */
  char *err;        /* message buffer of the caller */
  size_t errlen;
  double mem; /* bytes reserved so far: the buffer, then io_rd_reserve */
  double cap; /* the memory cap */
} io_reader;

typedef struct io_token {
  const char *s; /* into the reader's buffer, not NUL-terminated */
  size_t len;
  long line;
} io_token;

/* Flags of io_rd_double / io_rd_doubles / io_rd_matrix. */
enum {
  IO_RD_FINITE = 0, /* refuse NaN and +-inf */
  IO_RD_INF_OK = 1  /* accept +-inf ("inf", "-inf", "infinity"), refuse NaN */
};

/* Reads path whole (io_open_regular).  comment: '#', '%' or 0; max_memory:
 * the cap, which the file's size must not exceed (SLV_ERR_DIM, before
 * anything is read).  A NUL byte is refused (SLV_ERR_INVALID, "FILE:
 * expected a text file, found a NUL byte at byte K"), a binary or sparse
 * file once its first 64 KiB are read.  Missing or unreadable file:
 * SLV_ERR_INVALID, "FILE: expected a readable file, found <strerror>". */
slv_status io_rd_open(io_reader *r, const char *path, char comment, size_t max_memory, char *err,
                      size_t errlen);
/* io_rd_open of rq's file, cap and message buffer. */
slv_status io_rd_open_req(io_reader *r, const io_req *rq, char comment);
void io_rd_close(io_reader *r);
/* Adds bytes (what a size just read implies) to the reader's total; above
 * the cap: SLV_ERR_DIM and "FILE:LINE: expected sizes that fit the memory
 * cap of C bytes (max_memory), found <what>: B bytes (T in all)".  Call it
 * before allocating.  `what` is a printf format naming the field. */
slv_status io_rd_reserve(io_reader *r, long line, double bytes, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The same test for the readers that keep their own total (FCLIB, npz):
 * *mem += bytes; above cap: SLV_ERR_DIM and "PATH: expected sizes that fit
 * the memory cap of C bytes (max_memory), found <what>: ...". */
slv_status io_reserve(const char *path, double *mem, double cap, double bytes, char *err,
                      size_t errlen, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/* Bytes of an instance with n rows: b, lo, hi, plus a dense n x n A when
 * dense is set (findex, mu, cones are reserved where they are read). */
double io_instance_bytes(double n, int dense);

/* Next token (advances) / the next token without advancing.  Return 1, or 0
 * at the end of the file (t->line is then the last line). */
int io_rd_next(io_reader *r, io_token *t);
int io_rd_peek(const io_reader *r, io_token *t);
/* 1 if only white space and comments are left. */
int io_rd_at_end(const io_reader *r);
/* Does token t spell exactly s? */
int io_tok_is(const io_token *t, const char *s);

/* "FILE:LINE: expected <what>, found '<t>'" (t NULL: "found end of file")
 * into r->err; returns st.  `what` is a printf format. */
slv_status io_rd_fail(const io_reader *r, const io_token *t, slv_status st, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "FILE:LINE: <free text>" into r->err; returns st. */
slv_status io_rd_failf(const io_reader *r, long line, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* An integer in [lo, hi] (base 10, whole token).  SLV_ERR_INVALID with
 * "expected <what> (an integer in [lo, hi])" otherwise. */
slv_status io_rd_int(io_reader *r, long lo, long hi, int *out, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* A size in [0, max]: not an integer -> SLV_ERR_INVALID; negative or
 * > max -> SLV_ERR_DIM. *line (if non-NULL) gets the token's line. */
slv_status io_rd_size(io_reader *r, long max, int *out, long *line, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* One number; flags IO_RD_FINITE or IO_RD_INF_OK. */
slv_status io_rd_double(io_reader *r, int flags, double *out, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* count numbers into out[0..count), named name[i] in messages. */
slv_status io_rd_doubles(io_reader *r, size_t count, int flags, double *out, const char *name);
/* rows x cols numbers, in file order column-major (colmajor = 1: the k-th
 * number is (k % rows, k / rows)) or row-major (colmajor = 0), stored at
 * dst[i + j*ld]; named name(i,j) in messages. */
slv_status io_rd_matrix(io_reader *r, int rows, int cols, int colmajor, double *dst, size_t ld,
                        int flags, const char *name);
/* hi[0..n), each a number or +-inf with hi[i] >= lo[i]; a violation gives
 * "expected <name_hi>[i] >= <name_lo>[i] = v, found '<token>'". */
slv_status io_rd_upper(io_reader *r, int n, const double *lo, double *hi, const char *name_hi,
                       const char *name_lo);
/* Are `count` more numbers possible in what is left of the file?  If not:
 * SLV_ERR_INVALID, "expected <count> numbers for <what>, found only <k>
 * bytes left in the file". */
slv_status io_rd_need(const io_reader *r, double count, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A note in the comment lines that come before the next token (from the
 * cursor; the rest of the cursor's line must be blank or a comment): the
 * first comment line whose text, after the comment character and blanks,
 * starts with key ("lcplab-sidecars:"); val gets the rest of that line,
 * trimmed (vlen > 0).  The note's line if found, else 0.  Writers note
 * there what a file holds that a cut could lose unseen (docs/io.md,
 * "Damaged files"). */
long io_rd_note(const io_reader *r, const char *key, char *val, size_t vlen);
/* Quiet look-ahead helpers: convert the next token if it is an integer /
 * a number (not NaN) and advance; else return 0 and leave r unchanged. */
int io_rd_try_long(io_reader *r, long *v);
int io_rd_try_double(io_reader *r, double *v);

/* ---- the text writer (io_text.c) ------------------------------------------- */
typedef struct io_writer {
  FILE *f;       /* io_outfile_stream(o) */
  io_outfile *o; /* published by io_wr_close (io_outfile.c) */
  const char *path;
  char *err;
  size_t errlen;
} io_writer;

/* io_outfile_open(path): path is replaced only by io_wr_close, once the
 * content is complete.  SLV_ERR_INVALID with "FILE: cannot write: <why>". */
slv_status io_wr_open(io_writer *w, const char *path, char *err, size_t errlen);
/* io_outfile_publish: every write checked, then renamed over path; on any
 * failure path is as it was, and SLV_ERR_INVALID with a message. */
slv_status io_wr_close(io_writer *w);
/* Drops what was written (path as it was). */
void io_wr_discard(io_writer *w);
/* io_outfile_finish: every write checked, the file closed but not yet
 * renamed (a writer of several files finishes them all first, then
 * io_wr_close publishes each): SLV_OK, or SLV_ERR_INVALID with "FILE:
 * cannot write: <why>". */
slv_status io_wr_finish(io_writer *w);
/* x[0..n) one value a line (io_wr_double; %d for the integers). */
void io_wr_vec(io_writer *w, int n, const double *x);
void io_wr_ivec(io_writer *w, int n, const int *x);
/* %.17g, or "inf" / "-inf"; followed by sep (if non-zero). */
void io_wr_double(io_writer *w, double v, char sep);

/* ---- instances (instance.c) -------------------------------------------------- */
/* The struct with b = 0, lo = 0, hi = +inf (size max(1, n)), no matrix yet
 * (storage dense, A NULL).  NULL on allocation failure or bad n. */
io_instance *io_instance_alloc(int n);
/* Allocate the dense n x n matrix (zeros) / the CSR row pointers (Ap,
 * zeros, size n+1) / the CSR entries (Aj, Ax for nnz).  SLV_ERR_NOMEM or
 * SLV_ERR_DIM on failure. */
slv_status io_alloc_dense(io_instance *inst);
slv_status io_alloc_csr_rows(io_instance *inst);
slv_status io_alloc_csr_entries(io_instance *inst, long nnz);
/* findex = -1 / mu = 0 (size n), each only if absent; cones (ncones);
 * x_ref = 0. */
slv_status io_alloc_findex(io_instance *inst);
slv_status io_alloc_mu(io_instance *inst);
slv_status io_alloc_cones(io_instance *inst, int ncones);
slv_status io_alloc_xref(io_instance *inst);
/* Factored storage over nblk blocks: fblk, fJ, fK (and fd when
 * with_fd), zeroed; storage becomes SLV_FACTORED. */
slv_status io_alloc_factored(io_instance *inst, int nblk, int with_fd);

/* The instance's A as a dense column-major n x n array: inst->A itself when
 * dense (*owned = 0), else a new copy (*owned = 1, caller frees).  NULL if
 * the copy cannot be allocated. */
double *io_dense_of(const io_instance *inst, int *owned);

/* The kind io_instance_classify would set ("lcp", "mlcp", ...). */
const char *io_kind_of(const io_instance *inst);

/* Does the instance have a friction row (findex[i] >= 0)? */
int io_has_friction(const io_instance *inst);

/* Is x exactly +0.0 (not -0.0)?  Used to decide what a writer may omit. */
int io_is_pos_zero(double x);

/* ---- Siconos NumericsMatrix (io_nm.c) ----------------------------------- */
/* A matrix as read: dense (a, rows x cols column-major) or CSR (Ap[rows+1],
 * Aj, Ax: columns increasing within a row, exact +0.0 entries of the stored
 * blocks dropped, -0.0 kept). */
typedef struct io_nm {
  int rows, cols;
  slv_storage storage;
  double *a;
  int *Ap, *Aj;
  double *Ax;
} io_nm;

/* Reads a NumericsMatrix (storage 0 dense or 1 SBM; 2 CSparse gives
 * SLV_ERR_UNSUPPORTED).  want_rows >= 0: the sizes must be want_rows x
 * want_cols (why names the reason, e.g. "n = 3").  Dense storage always
 * gives a dense matrix; SBM gives a dense one when rows <= csr_above
 * (bounded by IO_MAX_DENSE entries), else CSR.  vec_after: a vector of the
 * matrix's column count follows it (q), which the file must hold too, checked
 * with the payload's own numbers (io_rd_need) before the matrix is
 * allocated.  *line (if non-NULL) gets the line of the size header.  On
 * failure *out holds nothing. */
slv_status io_read_nm(io_reader *r, const char *name, int want_rows, int want_cols, const char *why,
                      int csr_above, int vec_after, io_nm *out, long *line);
void io_nm_free(io_nm *m);

/* Dense NumericsMatrix "0 n n n<TAB>n" then one column per line (%.17g). */
void io_write_dense_nm(io_writer *w, int n, const double *A);
/* The m x n CSR matrix (Ap, Aj, Ax) as a Siconos SBM NumericsMatrix of
 * rb x cb blocks (the last block row and column short when m is not a
 * multiple of rb, n of cb): block (I, J) is stored when rows rb I ..
 * rb I + rb - 1 hold an entry in columns cb J .. cb J + cb - 1;
 * duplicates summed (a lone -0.0 kept). */
slv_status io_write_sbm(io_writer *w, int m, int n, int rb, int cb, const int *Ap, const int *Aj,
                        const double *Ax);

/* ---- frictional contact (io_fc.c; io_fc_kind_is, io_read_fc3d: io_fc3d.c) ---- */
/* Makes inst (n = 3 nc rows, matrix and b already set) a local FC3D
 * problem: one Coulomb cone (De Saxce) per contact at rows 3c, 3c+1, 3c+2
 * with cone_mu[c] = mu[c], lo = -inf, hi = +inf on every row, no findex. */
slv_status io_set_fc3d_cones(io_instance *inst, int nc, const double *mu);
/* Can a local FC3D format (rq->fmt: siconos-fc3d, fclib, npz) hold the
 * valid instance inst?  It must be a cone instance whose rows all belong to
 * cones (then at rows 0, 3, 6, ...), with the Coulomb law and no friction
 * (findex) rows.  Else SLV_ERR_UNSUPPORTED and "PATH: FMT ..." in rq->err.
 * lo / hi of cone rows are not stored (the cone replaces them). */
slv_status io_holds_fc3d(const io_req *rq, const io_instance *inst);
/* Can siconos-gfc3d hold inst: a global problem (inst->global) of Coulomb
 * cones on every row?  Else SLV_ERR_UNSUPPORTED with a message. */
slv_status io_holds_gfc3d(const io_req *rq, const io_instance *inst);
/* A Siconos FC .dat read as `found` (siconos-fc3d or siconos-gfc3d) where
 * `asked` was named (IO_FMT_AUTO: either): SLV_OK, or SLV_ERR_INVALID and
 * "PATH: expected ..., found ..." when they differ. */
slv_status io_fc_kind_is(const char *path, io_format asked, io_format found, char *err,
                         size_t errlen);
/* CSR with the columns of every row in increasing order, from nnz entries
 * (row[k], col[k], val[k]) in any order: a stable two-pass counting sort, so
 * duplicates keep their order (they add up, as in every CSR here).  Fills
 * inst's Ap/Aj/Ax (storage CSR).  Indices must be in range (caller). */
slv_status io_csr_from_triplets(io_instance *inst, long nnz, const int *row, const int *col,
                                const double *val);
/* Replaces inst's CSR by the dense equivalent (duplicates summed, a lone
 * -0.0 kept) when n <= IO_FC_DENSE_MAX; no-op otherwise. */
slv_status io_fc_densify(io_instance *inst);

/* Siconos local FC3D .dat (d nc M q mu): the body of a .dat read by
 * io_read_siconos, and the writer. */
slv_status io_read_fc3d(io_reader *r, io_instance **out);

/* ---- global frictional-contact problems (io_gfc3d.c, io_global.c) ----------- */
/* After mu: the end of the file, or Siconos' single trailing 0 or 1 and
 * then the end; else SLV_ERR_INVALID naming what follows. */
slv_status io_fc_read_end(io_reader *r);
/* After an M of ndof rows: do enough numbers follow for the rest of a
 * global file (H's header, f, w, mu)?  A local file holds fewer. */
int io_fc_holds_global_rest(const io_reader *r, int nc, int ndof);
/* The rest of a gfc3d .dat after d, nc and M (read at line mline; taken
 * over and freed): H, q, b, mu, the end; the condensed instance. */
slv_status io_read_gfc3d(io_reader *r, int nc, io_nm *M, long mline, io_instance **out);
/* A malloc'd global form (slv_global_form) with f (ndof) and w (n)
 * zeroed, no M or H yet; NULL if out of memory. */
slv_global_form *io_global_alloc(int ndof, int n);
/* g's arrays (slv_global_form_free) and g itself; NULL is fine. */
void io_global_free(slv_global_form *g);
/* rows-row CSR *P, *J, *X from nnz triplets (r, c, v), in input order
 * within a row.  SLV_ERR_NOMEM (the caller frees what was allocated). */
slv_status io_csr_build(int rows, long nnz, const int *r, const int *c, const double *v, int **P,
                        int **J, double **X);
/* A NumericsMatrix as CSR: a CSR one taken over, a dense one's entries
 * that are not +0.0 copied. */
slv_status io_csr_of_nm(io_nm *nm, int **P, int **J, double **X);
/* M stored as one triangle mirrored into the full symmetric M: 1 if it
 * was, 0 if not, -1 out of memory (g unchanged). */
int io_global_mirror(slv_global_form *g);
/* The condensed instance of g (taken over, also on failure) with the
 * cones of mu; the condensation may use cap - used bytes (the memory cap,
 * the bytes the read reserved so far).  Messages start with where ("FILE"
 * or "FILE:LINE") and name M as mname. */
slv_status io_global_instance(slv_global_form *g, const double *mu, double cap, double used,
                              const char *where, const char *mname, char *err, size_t errlen,
                              io_instance **out);
slv_status io_write_fc3d(const io_req *rq, const io_instance *inst);
/* Does the reader's text open like a frictional-contact .dat ("d nc
 * storage d*nc cols" with d in {2, 3}: 1) rather than like an LCP ("n
 * storage n n": 0)?  2: "d nc storage k k" with k != d*nc, the ndof x ndof
 * M of a global problem.  Look-ahead only. */
int io_looks_like_fc(const io_reader *r);

/* ---- the rows of the format table: one reader, check and writer each ---- */
/* Siconos .dat (io_siconos.c): rq->fmt IO_FMT_SICONOS_LCP / _MLCP / _RELAY /
 * _FC3D, or IO_FMT_AUTO to decide by content; the instance's format is the
 * variant read.  holds: lcp / mlcp / relay (rq->fmt). */
slv_status io_read_siconos(const io_req *rq, io_instance **out);
slv_status io_holds_siconos(const io_req *rq, const io_instance *inst);
slv_status io_write_siconos(const io_req *rq, const io_instance *inst);
/* Which siconos-* format holds inst (for writing a .dat): fc3d if it has
 * cones, else lcp, else mlcp (free rows first), else relay. */
io_format io_siconos_choose(const io_instance *inst);

/* .blcp and MatrixMarket hold anything but cones. */
slv_status io_holds_no_cones(const io_req *rq, const io_instance *inst);
slv_status io_read_blcp(const io_req *rq, io_instance **out);
slv_status io_write_blcp(const io_req *rq, const io_instance *inst);
slv_status io_read_mtx(const io_req *rq, io_instance **out);
slv_status io_write_mtx(const io_req *rq, const io_instance *inst);

slv_status io_read_lcplab(const io_req *rq, io_instance **out);
slv_status io_write_lcplab(const io_req *rq, const io_instance *inst);

/* FCLIB HDF5 (io_fclib_read.c, io_fclib_write.c; io_fclib.h): local, or global
 * condensed to local. */
slv_status io_read_fclib(const io_req *rq, io_instance **out);
/* The same from a file image in memory (image[0..len), the file's bytes;
 * rq->path names it in messages, rq->max_memory is the cap): the checks run
 * on the image through HDF5's core driver (H5Pset_file_image), then
 * libfclib, which opens paths only, reads a temporary file holding the same
 * bytes (in /dev/shm, which is memory, when it is writable; else /tmp),
 * removed after.  Both see the same bytes; where HDF5's two drivers differ
 * (a damaged superblock that the core driver opens and the default one
 * refuses), libfclib's H5Fopen fails, it returns nothing, and the read fails
 * with a message.  Then slv_problem_validate, as io_read.  Used by the fuzz
 * harness tests/fuzz/fuzz_fclib.c (docs/io.md). */
slv_status io_read_fclib_image(const void *image, size_t len, const io_req *rq, io_instance **out);
slv_status io_write_fclib(const io_req *rq, const io_instance *inst);
/* An FCLIB file with the local problem of inst, /solution (r = x, u = A x +
 * b) and, if x0 is not NULL, /guesses/1 (r = x0, u = A x0 + b); inst must
 * pass io_holds_fc3d.  Written beside path and renamed over it. */
slv_status io_fclib_write_solution(const char *path, const io_instance *inst, const double *x,
                                   const double *x0, char *err, size_t errlen);
/* x (n values) from /solution/r, else /guesses/1/r, checked with HDF5. */
slv_status io_fclib_read_start(const char *path, int n, double *x, size_t max_memory, char *err,
                               size_t errlen);
/* ContactBench numpy .npz (io_npz.c): G, g, mus with the normal last in
 * each contact, permuted to lcplab's normal-first cones. */
slv_status io_read_npz(const io_req *rq, io_instance **out);
slv_status io_write_npz(const io_req *rq, const io_instance *inst);
/* MATLAB MAT-files (io_mat.c): read only; the writer refuses
 * (SLV_ERR_UNSUPPORTED) and writes nothing. */
slv_status io_read_mat(const io_req *rq, io_instance **out);
slv_status io_write_mat(const io_req *rq, const io_instance *inst);
/* lam0.npy of a .npz (n values, normal-first after the permutation) into x. */
slv_status io_npz_read_guess(const char *path, int n, double *x, size_t max_memory, char *err,
                             size_t errlen);

/* ---- plain vectors (io_vector.c) -------------------------------------------- */
/* Exactly n values, '#' comments.  flags as io_rd_double; name for
 * messages ("x", "lo", ...); max_memory: the cap on the file's size. */
slv_status io_read_vec(const char *path, int n, int flags, double *x, const char *name,
                       size_t max_memory, char *err, size_t errlen);
/* Integers in [lo, hi]; not_self: x[i] != i (findex). */
slv_status io_read_ivec(const char *path, int n, long lo, long hi, int not_self, int *x,
                        const char *name, size_t max_memory, char *err, size_t errlen);
/* Can path hold a vector of n values: a regular file (io_open_regular)
 * of at least 2n - 1 bytes (io_rd_need's count)?  Else SLV_ERR_INVALID
 * and io_rd_need's message, "FILE:1: expected N numbers for NAME (n = N),
 * found only K bytes left in the file".  Nothing is read: a check before the arrays a vector's n implies
 * elsewhere (MatrixMarket's dense A) are allocated. */
slv_status io_vec_room(const char *path, int n, const char *name, char *err, size_t errlen);
/* One value per line (%.17g, inf/-inf); err gets
 * "FILE: cannot write: ..." on failure (SLV_ERR_INVALID). */
slv_status io_write_vec(const char *path, int n, const double *x, char *err, size_t errlen);

#endif /* IO_INTERNAL_H */
