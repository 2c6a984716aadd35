/* io.h -- reading and writing problem instances: the public header of
 * libio, lcplab's I/O library (pkg-config lcplab-io; it needs libsolvers).
 *
 * An io_instance owns the arrays of one problem and exposes them as a
 * borrowed slv_problem view.  Formats (see datasets/README.md):
 *
 *   IO_FMT_SICONOS_LCP    Siconos numerics LCP .dat: n, NumericsMatrix M, q
 *                          (dense column-major; SBM read too).  w = M z + q.
 *   IO_FMT_SICONOS_MLCP   Siconos MLCP .dat: first n rows free (lo=-inf,
 *                          hi=+inf), last m rows LCP.
 *   IO_FMT_SICONOS_RELAY  Siconos relay .dat: n, M, q, lb, ub.
 *   IO_FMT_BLCP           the peers' boxed format: row-major A, ODE sign
 *                          A x = b_ode + w (so b = -b_ode), lo, hi, optional
 *                          findex (friction rows store lo = -mu, hi = mu).
 *   IO_FMT_MTX            MatrixMarket A in FILE.mtx, plain vectors in
 *                          FILE.b (required), FILE.lo, FILE.hi, FILE.findex,
 *                          FILE.mu (optional), one value per line.
 *   IO_FMT_LCPLAB         lcplab's own self-describing text format.
 *   IO_FMT_SICONOS_FC3D   Siconos local 3-D frictional contact .dat: d = 3,
 *                          nc, NumericsMatrix M (3nc x 3nc), q, mu.
 *                          u = M r + q  ->  A = M, b = q, one Coulomb cone
 *                          (De Saxce) per contact at rows 0, 3, 6, ...,
 *                          lo = -inf, hi = +inf.
 *   IO_FMT_FCLIB          FCLIB HDF5 (.hdf5, .h5), read through libfclib,
 *                          written with HDF5 in its layout: the local
 *                          problem (/fclib_local: W, q, mu) as above; a
 *                          global problem (/fclib_global: M, H, f, w, mu)
 *                          is condensed on reading to W = H' M^-1 H,
 *                          q = w + H' M^-1 f, kept in inst->global and
 *                          written back as /fclib_global.
 *   IO_FMT_SICONOS_GFC3D  Siconos global 3-D frictional contact .dat: d = 3,
 *                          nc, M (ndof x ndof), H (ndof x 3 nc), q (Siconos'
 *                          name for f), b (for w), mu: condensed on reading
 *                          as /fclib_global is; written from inst->global.
 *                          A .dat of either kind is read as what it holds;
 *                          asked for one, a file of the other is refused.
 *   IO_FMT_NPZ            ContactBench numpy .npz (libzip): G (3 nc x 3
 *                          nc), g, mus, c = G lambda + g, each contact
 *                          (t1, t2, n) with the normal LAST; read and
 *                          written permuted to lcplab's (n, t1, t2): one
 *                          Coulomb cone (De Saxce) per contact, as FC3D.
 *   IO_FMT_MAT            MATLAB MAT-file (.mat, version 5 or 7.3; libmatio),
 *                          read only: the LCP w = M z + q from the variables
 *                          M (or A; dense or sparse double) and q (or b),
 *                          optional lo, hi; A = M, b = q (docs/io.md).
 *
 * Readers never allocate from an unchecked size: every size is checked
 * against IO_MAX_N / IO_MAX_NNZ and against the bytes left in the
 * file before any allocation.  Every error gives a negative status and one
 * line "FILE:LINE: expected ..., found ..." in err.  Writers use %.17g, so a
 * write followed by a read gives a bit-identical problem.
 *
 * FCLIB files are HDF5: their structure (groups, dataset types and sizes)
 * is checked with HDF5 calls before libfclib reads them, because libfclib
 * exits the process on any HDF5 error.  The sizes they declare are bounded
 * by the file's size (datasets/README.md).  During io_read / io_write of
 * an FCLIB file the HDF5 error printer is switched off and then restored:
 * that is process-global HDF5 state, so do not read or write .hdf5 files
 * from two threads at once, nor while another thread uses HDF5.  Reading a
 * .mat does the same, and sets libmatio's process-global log function to one
 * that drops its messages (libio/io_mat.c).
 */
#ifndef IO_H
#define IO_H

/* IO_API marks the functions of the public interface (the library is
 * compiled with hidden visibility, Makefile.am "the libraries"). */
#ifndef IO_API
#if defined(__GNUC__)
#define IO_API __attribute__((visibility("default")))
#else
#define IO_API
#endif
#endif

#include <stdint.h>
#include <stdio.h>

#include "slv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IO_MAX_N   50000000 /* refuse larger n before allocating */
#define IO_MAX_NNZ 500000000L

typedef enum io_format {
  IO_FMT_AUTO = 0, /* reading: by extension, then by content */
  IO_FMT_SICONOS_LCP,
  IO_FMT_SICONOS_MLCP,
  IO_FMT_SICONOS_RELAY,
  IO_FMT_BLCP,
  IO_FMT_MTX,
  IO_FMT_LCPLAB,
  IO_FMT_SICONOS_FC3D,
  IO_FMT_FCLIB,
  IO_FMT_NPZ,              /* ContactBench numpy .npz (G, g, mus) */
  IO_FMT_SICONOS_GFC3D,    /* Siconos global FC .dat (d nc M H q b mu) */
  IO_FMT_MAT,              /* MATLAB MAT-file v5 / v7.3 (M, q), read only */
  IO_FMT_LAST = IO_FMT_MAT /* the last format, for loops over all of them */
} io_format;

/* "siconos-lcp", "siconos-mlcp", "siconos-relay", "blcp", "mtx", "lcplab",
 * "siconos-fc3d", "fclib", "npz", "siconos-gfc3d", "mat", "auto". */
IO_API const char *io_format_str(io_format f);
/* Parses one of those names; returns -1 if unknown. */
IO_API int io_format_from_str(const char *s);
/* The format a path's extension implies (.dat -> siconos-lcp; .blcp; .mtx;
 * .lcp -> lcplab; .hdf5, .h5 -> fclib; .npz; .mat); IO_FMT_AUTO if unknown.  For a
 * .dat, io_write with IO_FMT_AUTO then picks siconos-fc3d (cones),
 * siconos-lcp, siconos-mlcp or siconos-relay from the instance, and io_read
 * decides from the content. */
IO_API io_format io_format_for_path(const char *path);
/* The k-th file beside path that io_write in format fmt (IO_FMT_AUTO:
 * path's extension) also writes or removes: for MatrixMarket the sidecars
 * STEM.b, .lo, .hi, .findex, .mu (k = 0..4; STEM is path without ".mtx"),
 * for every other format none.  Returns 1 with the name in buf, 0 when there
 * is no k-th file, -1 when it does not fit in len bytes. */
IO_API int io_write_sidecar(const char *path, io_format fmt, int k, char *buf, size_t len);


/* What kind of problem the data is (for reports): "lcp" (lo=0, hi=inf),
 * "mlcp" (free and lcp rows only), "blcp" (any finite bounds), "findex"
 * (has friction rows), "cone". */
typedef struct io_instance {
  char kind[16];    /* as above; filled by the reader */
  char name[128];   /* base name of the file without extension */
  io_format format; /* the format it was read from */
  int n;
  slv_storage storage; /* SLV_DENSE (lda = n) or SLV_CSR */
  double *A;           /* dense, column-major, n*n */
  int *Ap, *Aj;        /* CSR */
  double *Ax;
  double *b, *lo, *hi; /* always allocated, size n */
  int *findex;         /* NULL or size n */
  double *mu;          /* NULL or size n */
  int ncones;
  int *cone_rows;
  double *cone_mu;
  slv_cone_law cone_law; /* meaning of the cones (slv.h); 0 = Coulomb with De Saxce */
  double *x_ref;         /* optional reference solution (lcplab format), or NULL */
  /* SLV_FACTORED storage (lcplab format only; slv.h): A, Ap, Aj, Ax are NULL */
  int nblk;
  int *fblk;       /* 2n */
  double *fJ, *fK; /* 12n each */
  double *fd;      /* n, or NULL */
  /* The solve the file records (lcplab format: sections 'solver', 'options'),
   * e.g. a world step's that failed: lcplab solve takes them as defaults. */
  char solver[32];    /* registry name; "" if none */
  slv_options opt;    /* slv_options_default() with the recorded fields */
  unsigned opt_given; /* IO_OPT_* bits: the fields of opt the file gives */
  /* The global frictional-contact problem it was condensed from (FCLIB
   * /fclib_global, Siconos gfc3d .dat; docs/problem.md, "Global problems"),
   * or NULL:  M v = H r + f,  u = H' v + w,  with r = x and u = w of the
   * condensed problem A = H' M^-1 H, b = w + H' M^-1 f; n = the instance's
   * n (3 nc), M with both triangles (one stored triangle is mirrored on
   * reading).  libsolvers' form, owned by the instance (io_instance_free
   * frees it). */
  slv_global_form *global;
  double condense_s; /* the wall time of the reader's condensation (s); 0 if not condensed */
} io_instance;

/* The options an lcplab file can record, one bit each (io_instance.opt_given). */
enum {
  IO_OPT_MAX_ITER = 1u << 0,
  IO_OPT_TOL = 1u << 1,
  IO_OPT_NORM = 1u << 2,
  IO_OPT_OMEGA = 1u << 3,
  IO_OPT_DAMPING = 1u << 4,
  IO_OPT_PIVOT_TOL = 1u << 5,
  IO_OPT_WARM_START = 1u << 6,
  IO_OPT_CHECK_EVERY = 1u << 7,
  IO_OPT_MAX_PIVOTS = 1u << 8,
  IO_OPT_SEED = 1u << 9,
  IO_OPT_COUNT = 10
};

/* The keyword of option bit 1 << k in the lcplab format ("max_iter", "tol",
 * "norm", "omega", "damping", "pivot_tol", "warm_start", "check_every",
 * "max_pivots", "seed": the first IO_OPT_COUNT rows of libsolvers' options
 * by name, slv_option_at, whose slv_options_set reads each value and
 * slv_options_get writes it); NULL out of range. */
IO_API const char *io_option_name(int k);

/* ContactBench's order (IO_FMT_NPZ; docs/python.md, "ContactBench"): its
 * row r, each contact (t1, t2, n) with the normal LAST, is lcplab's row
 * io_contactbench_row(r) of the contact's cone (n, t1, t2): 3c -> 3c + 1,
 * 3c + 1 -> 3c + 2, 3c + 2 -> 3c.  The .npz reader and writer and the
 * Python package's from_contactbench / to_contactbench use this one map. */
IO_API size_t io_contactbench_row(size_t r);

/* Allocate an instance with dense n x n storage, b = 0, lo = 0, hi = +inf,
 * no findex; NULL on failure or n out of range. */
IO_API io_instance *io_instance_new_dense(int n);
IO_API void io_instance_free(io_instance *inst); /* NULL is fine */
/* Fill kind[] from the data (call after changing bounds / findex). */
IO_API void io_instance_classify(io_instance *inst);
/* The borrowed view; valid while inst lives. */
IO_API slv_problem io_instance_problem(const io_instance *inst);

/* ---- instances from problems in memory (io_from.c; docs/io.md, "Problems
 * from memory") ---------------------------------------------------------------- */

/* A new instance owning copies of p's arrays -- a world step's problem,
 * a problem a program built -- named name (NULL: ""), with x (size n;
 * NULL: none) as its reference solution x_ref, its kind classified: what
 * io_write and io_write_solution take.  A factored p stays factored when
 * keep_factored (only the lcplab format holds it), else becomes its
 * explicit CSR.  NULL when out of memory or n out of range; the caller
 * frees it with io_instance_free. */
IO_API io_instance *io_instance_of_problem(const slv_problem *p, const char *name, const double *x,
                                           int keep_factored);

/* The instance of the global frictional-contact problem g (n = 3 nc
 * rows; docs/problem.md, "Global problems") with friction coefficients
 * mu[0 .. nc): g copied into the instance's global (so that the writers
 * of FCLIB /fclib_global and Siconos gfc3d .dat write it) and condensed
 * as the readers condense a file's (io_global.c: W = H' M^-1 H, q = w +
 * H' M^-1 f by slv_condense; one Coulomb cone per contact), under
 * IO_DEFAULT_MAX_MEMORY.  Refused, with a message starting with name:
 * SLV_ERR_INVALID (ndof < 1, n not a multiple of 3, M or H not a CSR
 * matrix of their sizes, a value not finite, mu < 0), SLV_ERR_UNSUPPORTED
 * (M not symmetric or not positive definite), SLV_ERR_DIM, SLV_ERR_NOMEM. */
IO_API slv_status io_instance_of_global(const slv_global_form *g, const double *mu,
                                        const char *name, io_instance **out, char *err,
                                        size_t errlen);

/* Read path.  fmt = IO_FMT_AUTO picks by extension, then by content.
 * Returns 0 and *out on success; else a negative status, *out = NULL and the
 * one-line message in err (size errlen).  The same as io_read_with with
 * io_read_options_default(). */
IO_API slv_status io_read(const char *path, io_format fmt, io_instance **out, char *err,
                          size_t errlen);

/* The reader's condensation of inst's global problem (inst->global, with
 * inst's friction coefficients) done again: a new instance equal to inst
 * (W and q bit for bit, the same storage and cones) without the global
 * problem (global NULL).  The comparison engine times it with each solve,
 * so a global problem is timed from the problem as read to the answer
 * (experiments/README.md, "Timing").  SLV_ERR_INVALID if inst was not
 * condensed; else slv_condense's statuses, with the message in err. */
IO_API slv_status io_instance_condense_again(const io_instance *inst, io_instance **out, char *err,
                                             size_t errlen);

/* The memory cap of a read when none is given: 4 GiB (all of size_t's range
 * where that is less). */
#define IO_DEFAULT_MAX_MEMORY                                                                      \
  (SIZE_MAX / 2 > 0x7fffffffu ? (size_t)0x100000000ull : (size_t)SIZE_MAX)

/* Options of a read; only from io_read_options_default() (a cookie, as
 * slv_options). */
typedef struct io_read_options {
  size_t max_memory; /* bytes that the sizes a file declares may make the reader
                         allocate, the file's own bytes included; a file that would need
                         more is refused (SLV_ERR_DIM, the message names the file, line
                         and field) before its arrays are allocated.  Default
                         IO_DEFAULT_MAX_MEMORY; SIZE_MAX: no cap but the format
                         limits above */
  unsigned magic;    /* private: stamped by io_read_options_default */
} io_read_options;

IO_API io_read_options io_read_options_default(void);

/* io_read with options (opt NULL: the defaults).  Options not from
 * io_read_options_default give SLV_ERR_OPTIONS. */
IO_API slv_status io_read_with(const char *path, io_format fmt, const io_read_options *opt,
                               io_instance **out, char *err, size_t errlen);

/* Write inst to path in fmt (IO_FMT_AUTO: from the extension).  A format
 * that cannot hold the instance (findex in siconos-lcp, ...) gives
 * SLV_ERR_UNSUPPORTED and a message; nothing is written then. */
IO_API slv_status io_write(const char *path, io_format fmt, const io_instance *inst, char *err,
                           size_t errlen);

/* ---- solutions and starting points ------------------------------------------ */

/* A starting point x (exactly n finite values) for a solve, by path's
 * extension: .hdf5 / .h5, an FCLIB file: /solution/r if there is one, else
 * /guesses/1/r (FCLIB's fclib_solution: r is the contact impulse, lcplab's
 * x; u is w); .npz, a ContactBench problem: its lam0.npy, permuted
 * normal-first as G and g; any other: a plain vector (io_read_vector). */
IO_API slv_status io_read_start(const char *path, int n, double *x, char *err, size_t errlen);

/* Can io_write_solution write a solution of inst to path?  SLV_OK,
 * or SLV_ERR_UNSUPPORTED and a message (.hdf5 needs a problem FCLIB holds:
 * every row in a Coulomb cone; .npz is not a solution format). */
IO_API slv_status io_can_write_solution(const char *path, const io_instance *inst, char *err,
                                        size_t errlen);

/* Writes the solution x (size inst->n) of inst, by path's extension:
 * .hdf5 / .h5, an FCLIB file that libfclib's fclib_read_solution and
 * fclib_read_guesses read: the local problem (as io_write), /solution with
 * r = x, u = A x + b and, when x0 is not NULL (the start the solve was
 * given), /guesses/1 with r = x0, u = A x0 + b; any other extension but
 * .npz: x as a plain vector (io_write_vector).  Nothing is written when
 * io_can_write_solution refuses. */
IO_API slv_status io_write_solution(const char *path, const io_instance *inst, const double *x,
                                    const double *x0, char *err, size_t errlen);

/* Read a plain vector (one value per line, '#' comments) of exactly n
 * values: used for --warm and reference solutions. */
IO_API slv_status io_read_vector(const char *path, int n, double *x, char *err, size_t errlen);
/* Write x (n values, %.17g, one per line). */
IO_API slv_status io_write_vector(const char *path, int n, const double *x, char *err,
                                  size_t errlen);

/* Opens path for reading: *fd (O_CLOEXEC, blocking reads; the caller
 * closes it) and *size (bytes; size may be NULL), or SLV_ERR_INVALID with
 * *fd = -1 and one line in err: "FILE: expected a readable file, found
 * <strerror>", or for what is not a regular file "FILE: expected a regular
 * file, found a FIFO (named pipe)" (a character device, a block device, a
 * directory, a socket).  It never blocks (a FIFO with no writer) and reads
 * nothing.  Every reader of libio opens its file through it, or checks its
 * path with it before a library (HDF5, libzip) opens it, so /dev/zero,
 * /dev/urandom, a FIFO or a folder named as a problem, a sidecar, a
 * starting point or an answer is refused at once (docs/io.md, "Reading");
 * the experiment files and the external solvers' answers too. */
IO_API slv_status io_open_regular(const char *path, int *fd, double *size, char *err,
                                  size_t errlen);

/* ---- output files (docs/io.md, "Replacing files") -------------------------
 * Every writer of the library and of the lcplab program goes through these.
 * io_outfile_open starts a new file under a temporary name in path's
 * folder; path itself is untouched until io_outfile_publish, which checks
 * every write and renames the complete file over path (a symlink at path
 * is replaced, never written through).  On any failure (a full disk, a file
 * size limit) the temporary file is removed and path is as it was.  NULL /
 * SLV_ERR_INVALID with "PATH: cannot write: <why>" in err.  The path "-"
 * is the standard output: a stream on a duplicate of file descriptor 1,
 * written directly (so every text writer, io_write_vector and io_write_solution
 * take "-"; io_write writes "-" in the lcplab format unless told another
 * text format, and refuses the binary ones and MatrixMarket's sidecars). */
typedef struct io_outfile io_outfile;
IO_API io_outfile *io_outfile_open(const char *path, char *err, size_t errlen);
/* The stream to write to (the temporary file). */
IO_API FILE *io_outfile_stream(const io_outfile *o);
/* Checks every write and closes the stream; the complete file stays under
 * its temporary name until io_outfile_publish or _discard (a writer of
 * several files finishes them all before it publishes any).  On failure the
 * temporary file is removed and the message is in err; o must still be
 * published (which then fails) or discarded. */
IO_API slv_status io_outfile_finish(io_outfile *o, char *err, size_t errlen);
/* Finishes (if not yet), and on success renames over path; frees o either way. */
IO_API slv_status io_outfile_publish(io_outfile *o, char *err, size_t errlen);
/* Closes and removes the temporary file, path as it was; frees o (NULL is fine). */
IO_API void io_outfile_discard(io_outfile *o);
/* 1 if a and b name one file: both exist with one device and inode (links
 * followed), or neither exists and both are the same name in one folder;
 * "-" (the standard output) is the same only as "-". */
IO_API int io_same_file(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif /* IO_H */
