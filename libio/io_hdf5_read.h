/* io_hdf5_read.h -- private to the I/O library: an HDF5 file read with
 * checked HDF5 calls (io_hdf5_read.c), by the FCLIB reader (io_fclib.h) and
 * the MAT-file 7.3 reader (io_mat73.h): the context of one read, HDF5's
 * error printer switched off and back, the file opened with its root group
 * checked, and its groups and datasets checked before they are read. */
#ifndef LCPLAB_IO_HDF5_READ_H
#define LCPLAB_IO_HDF5_READ_H

#include "io_dl.h"
#include "io_hdf5_ohdr.h"
#include "io_internal.h"

/* One read: the file and where its messages and memory go. */
typedef struct io_hdf5_ctx {
  const char *path; /* the name in messages */
  const char *kind; /* what the file should be, in messages ("a MAT-file 7.3") */
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
  int oh_ready;     /* oh is set up (io_hdf5_open) */
  char oh_why[160]; /* why the last object header was refused */
} io_hdf5_ctx;

/* HDF5's error printer, switched off during a read or write and restored
 * after: process-global HDF5 state (io.h). */
typedef struct io_hdf5_quiet {
  H5E_auto2_t func;
  void *data;
} io_hdf5_quiet;
void io_hdf5_quiet_on(io_hdf5_quiet *q);
void io_hdf5_quiet_off(const io_hdf5_quiet *q);

/* "PATH: <message>" into c->err; returns st. */
slv_status io_hdf5_fail(io_hdf5_ctx *c, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Opens the file for HDF5 (c->file: h5name with the access list fapl; eof
 * its length) and for the object-header check, and checks the root
 * group's header; on failure c->file < 0 and the message is written.
 * io_hdf5_close closes both. */
slv_status io_hdf5_open(io_hdf5_ctx *c, const char *h5name, hid_t fapl, uint64_t eof);
void io_hdf5_close(io_hdf5_ctx *c);

/* What name (one path component in loc) is; damaged objects and links
 * other than hard ones are their own kinds. */
enum {
  IO_HDF5_ABSENT = 0,
  IO_HDF5_GROUP,
  IO_HDF5_DATASET,
  IO_HDF5_OTHER,
  IO_HDF5_LINK,
  IO_HDF5_DAMAGED
};
int io_hdf5_kind(io_hdf5_ctx *c, hid_t loc, const char *name);
/* Opens the group gpath/name, which must exist and be a group. */
slv_status io_hdf5_open_group(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                              hid_t *g);

/* What a dataset must hold. */
enum { IO_HDF5_INT, IO_HDF5_NUM, IO_HDF5_STR };
/* Checks dataset gpath/name: its kind (IO_HDF5_INT: integers;
 * IO_HDF5_NUM: integers or floats; IO_HDF5_STR: one fixed-length string),
 * its storage, and one test read; *npts its element count, *present (if
 * non-NULL) 0 for an absent optional one. */
slv_status io_hdf5_check_ds(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                            int what, int required, long *npts, int *present);
/* The required numeric dataset gpath/name checked as by io_hdf5_check_ds,
 * its one read converted to memory type mt into a new buffer *buf (free
 * it) of *np elements. */
slv_status io_hdf5_read_ds(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name, hid_t mt,
                           void **buf, long *np);

/* Charges bytes (of what, for messages) against c's budget and the memory
 * cap. */
slv_status io_hdf5_spend(io_hdf5_ctx *c, const char *what, double bytes);

#endif /* LCPLAB_IO_HDF5_READ_H */
