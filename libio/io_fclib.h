/* io_fclib.h -- private to the FCLIB files of the I/O library: the checks
 * of a file's structure (io_fclib_check.c, over the checked HDF5 reads of
 * io_hdf5_read.h) that the reader (io_fclib_read.c) runs before libfclib
 * reads it.  The writer is io_fclib_write.c.  The FCLIB layout:
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

#include "io_hdf5_read.h"

/* What an FCLIB file is, in messages (io_hdf5_ctx.kind). */
#define IO_FCLIB_KIND "an HDF5 file (FCLIB)"

/* A matrix's sizes and its datasets' lengths, as libfclib will read them. */
typedef struct io_fclib_mat {
  int m, n, nz, nzmax;
  long np, ni, nx; /* element counts of the p, i, x datasets */
} io_fclib_mat;

/* The whole /fclib_local (W) or /fclib_global (M, H) as fclib_read_local /
 * fclib_read_global will read it: groups, datasets, sizes, the bytes they
 * declare against the file's size and the memory cap. */
slv_status io_fclib_check_local(io_hdf5_ctx *c, io_fclib_mat *W);
slv_status io_fclib_check_global(io_hdf5_ctx *c, io_fclib_mat *M, io_fclib_mat *H);

#endif /* LCPLAB_IO_FCLIB_H */
