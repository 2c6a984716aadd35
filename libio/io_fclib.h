/* io_fclib.h -- private to the FCLIB files of the I/O library: the context
 * of one read (io_fclib_ctx), HDF5's error printer switched off and back,
 * and the checks of a file's structure (io_fclib_check.c) that the reader
 * (io_fclib_read.c) runs before libfclib reads it.  The writer is
 * io_fclib_write.c.  The FCLIB layout:
 *
 * FCLIB (fclib.h, datasets/README.md section 10; [acary2014fclib]) stores one
 * frictional-contact problem per file:
 *
 *   /fclib_local   M3DFC(W, V, R, q, s, mu):  u = W r + V lambda + q,
 *                  V' r + R lambda + s = 0,  K_mu ∋ r ⊥ û ∈ K*,
 *                  û = u + (mu |u_t|, 0, 0) per contact (De Saxce).
 *   /fclib_global  GM3DFC(M, H, G, f, w, b, mu):  M v = H r + G lambda + f,
 *                  G' v + b = 0,  u = H' v + w,  same cone condition.
 *   matrices:      nzmax, m, n, nz (int[1]); p, i (int); x (double).
 *                  nz >= 0 triplet (nz entries: i = ROW, p = COLUMN, as the
 *                  data has it, README 2.3 -- the comment in fclib.h says
 *                  the opposite), nz = -1 CSC (p: n+1 column pointers,
 *                  i: row indices), nz = -2 CSR (p: m+1 row pointers,
 *                  i: column indices).
 *
 */
#ifndef LCPLAB_IO_FCLIB_H
#define LCPLAB_IO_FCLIB_H

#include "io_hdf5_ohdr.h"
#include "io_internal.h"

#include <hdf5.h>

/* One read: the file and where its messages and memory go. */
typedef struct io_fclib_ctx {
  const char *path; /* the name in messages */
  char *err;
  size_t errlen;
  hid_t file;
  double budget;           /* bytes the declared sizes may still claim */
  const char *budget_rule; /* how budget was set, for messages; NULL: FCLIB's */
  double mem;              /* bytes reserved against the memory cap */
  double cap;              /* the memory cap (io_read_options.max_memory) */
  const void *image;       /* io_read_fclib_image: the file's bytes, else NULL */
  size_t image_len;
  io_ohdr_src oh;   /* the file's bytes for the object-header check */
  int oh_ready;     /* oh is set up (io_fclib_open) */
  char oh_why[160]; /* why the last object header was refused */
} io_fclib_ctx;

/* HDF5's error printer, switched off during a read or write and restored
 * after: process-global HDF5 state (io.h). */
typedef struct io_fclib_quiet {
  H5E_auto2_t func;
  void *data;
} io_fclib_quiet;
void io_fclib_quiet_on(io_fclib_quiet *q);
void io_fclib_quiet_off(const io_fclib_quiet *q);

/* "PATH: <message>" into c->err; returns st. */
slv_status io_fclib_fail(io_fclib_ctx *c, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Opens the file for HDF5 (c->file: h5name with the access list fapl; eof
 * its length) and for the object-header check, and checks the root
 * group's header; on failure c->file < 0 and the message is written.
 * io_fclib_close closes both. */
slv_status io_fclib_open(io_fclib_ctx *c, const char *h5name, hid_t fapl, uint64_t eof);
void io_fclib_close(io_fclib_ctx *c);

/* What name (one path component in loc) is; damaged objects and links
 * other than hard ones are their own kinds. */
enum {
  IO_FCLIB_ABSENT = 0,
  IO_FCLIB_GROUP,
  IO_FCLIB_DATASET,
  IO_FCLIB_OTHER,
  IO_FCLIB_LINK,
  IO_FCLIB_DAMAGED
};
int io_fclib_kind(io_fclib_ctx *c, hid_t loc, const char *name);
/* Opens the group gpath/name, which must exist and be a group. */
slv_status io_fclib_open_group(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                               hid_t *g);

/* What a dataset must hold. */
enum { IO_FCLIB_INT, IO_FCLIB_NUM, IO_FCLIB_STR };
/* Checks dataset gpath/name: its kind (IO_FCLIB_INT: integers;
 * IO_FCLIB_NUM: integers or floats; IO_FCLIB_STR: one fixed-length string),
 * its storage, and one test read; *npts its element count, *present (if
 * non-NULL) 0 for an absent optional one. */
slv_status io_fclib_check_ds(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                             int what, int required, long *npts, int *present);

/* A matrix's sizes and its datasets' lengths, as libfclib will read them. */
typedef struct io_fclib_mat {
  int m, n, nz, nzmax;
  long np, ni, nx; /* element counts of the p, i, x datasets */
} io_fclib_mat;

/* The whole /fclib_local (W) or /fclib_global (M, H) as fclib_read_local /
 * fclib_read_global will read it: groups, datasets, sizes, the bytes they
 * declare against the file's size and the memory cap. */
slv_status io_fclib_check_local(io_fclib_ctx *c, io_fclib_mat *W);
slv_status io_fclib_check_global(io_fclib_ctx *c, io_fclib_mat *M, io_fclib_mat *H);

#endif /* LCPLAB_IO_FCLIB_H */
