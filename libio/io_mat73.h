/* io_mat73.h -- the variables of a version 7.3 MAT-file (HDF5), read with
 * plain HDF5 calls after their object headers are checked (io_mat73.c). */
#ifndef LCPLAB_IO_MAT73_H
#define LCPLAB_IO_MAT73_H

#include "io_hdf5_read.h"


typedef struct io_mat73 {
  io_hdf5_ctx fc; /* the file, its object-header check, the budget */
} io_mat73;

/* Opens path (eof bytes long) and checks its root group; cap is the
 * memory cap.  On failure the message is in err. */
slv_status io_mat73_open(io_mat73 *m, const char *path, char *err, size_t errlen, double eof,
                         double cap);
void io_mat73_close(io_mat73 *m);

/* The variable `name` as libmatio would describe it (class, rank, dims in
 * MATLAB's order, complex, logical; a sparse matrix's dims from its
 * MATLAB_sparse row count and jc), with its values (a double array, or a
 * mat_sparse_t of 32-bit jc, ir and double data) when with_data; free
 * with Mat_VarFree.  *out = NULL when the file has no such variable. */
slv_status io_mat73_var(io_mat73 *m, const char *name, int with_data, matvar_t **out);

#endif
