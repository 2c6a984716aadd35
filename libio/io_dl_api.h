/* io_dl_api.h -- private to the I/O library: the functions and variables
 * of HDF5, libfclib and libmatio that libio calls, looked up in the
 * libraries opened the first time a file needs them (io_dl.c; docs/io.md,
 * "How HDF5, libfclib and libmatio are loaded").
 *
 * The lists below name each symbol once, as the library exports it (the
 * versioned names the headers' macros map to: H5Dopen -> H5Dopen2).  The
 * table's types are the headers' own declarations (__typeof__).  The code
 * that calls them includes io_dl.h, which sends each name through the
 * table. */
#ifndef LCPLAB_IO_DL_API_H
#define LCPLAB_IO_DL_API_H

#include "slv.h"

#include <fclib.h>
#include <hdf5.h>
#include <matio.h>
#include <stddef.h>

/* clang-format off */
#define IO_DL_HDF5_FUNCTIONS(X) \
  X(H5Aclose) X(H5Aexists_by_name) X(H5Aget_space) X(H5Aget_storage_size) X(H5Aget_type) \
  X(H5Aopen_by_name) X(H5Aread) X(H5Dclose) X(H5Dcreate2) X(H5Dget_chunk_info_by_coord) \
  X(H5Dget_create_plist) X(H5Dget_offset) X(H5Dget_space) X(H5Dget_storage_size) \
  X(H5Dget_type) X(H5Dopen2) X(H5Dread) X(H5Dread_chunk) X(H5Dwrite) X(H5Eget_auto2) \
  X(H5Eset_auto2) X(H5Fclose) X(H5Fcreate) X(H5Fflush) X(H5Fget_create_plist) \
  X(H5Fget_file_image) X(H5Fopen) X(H5Gclose) X(H5Gcreate2) X(H5Gopen2) X(H5Iget_type) \
  X(H5Lexists) X(H5Lget_info) X(H5Literate) X(H5Oclose) X(H5Oget_info2) X(H5Oopen) \
  X(H5Pclose) X(H5Pcreate) X(H5Pget_chunk) X(H5Pget_external_count) X(H5Pget_filter2) \
  X(H5Pget_layout) X(H5Pget_nfilters) X(H5Pget_sizes) X(H5Pget_sym_k) X(H5Pget_userblock) \
  X(H5Pset_alloc_time) X(H5Pset_fapl_core) X(H5Pset_file_image) X(H5Sclose) X(H5Screate) \
  X(H5Screate_simple) X(H5Sget_simple_extent_dims) X(H5Sget_simple_extent_ndims) \
  X(H5Sget_simple_extent_npoints) X(H5Sget_simple_extent_type) X(H5Tclose) X(H5Tcopy) \
  X(H5Tget_class) X(H5Tget_size) X(H5Tis_variable_str) X(H5Tset_size) X(H5check_version) \
  X(H5get_libversion) X(H5open)

/* the property list classes and types the headers' macros read
 * (H5T_NATIVE_DOUBLE is (H5open(), H5T_NATIVE_DOUBLE_g)) */
#define IO_DL_HDF5_VARIABLES(X) \
  X(H5P_CLS_DATASET_CREATE_ID_g) X(H5P_CLS_FILE_ACCESS_ID_g) X(H5T_C_S1_g) \
  X(H5T_NATIVE_DOUBLE_g) X(H5T_NATIVE_HSIZE_g) X(H5T_NATIVE_INT_g) X(H5T_NATIVE_UINT32_g) \
  X(H5T_NATIVE_ULLONG_g)

#define IO_DL_FCLIB_FUNCTIONS(X) \
  X(fclib_delete_global) X(fclib_delete_local) X(fclib_read_global) X(fclib_read_local)

#define IO_DL_MATIO_FUNCTIONS(X) \
  X(Mat_Close) X(Mat_GetVersion) X(Mat_LogInitFunc) X(Mat_Open) X(Mat_VarCalloc) \
  X(Mat_VarFree) X(Mat_VarRead) X(Mat_VarReadInfo)

/* clang-format on */

#define IO_DL_FUNCTION_FIELD(name) __typeof__(&name) name;
#define IO_DL_VARIABLE_FIELD(name) __typeof__(name) *name;

/* The table: a pointer to each function, and to each variable. */
typedef struct io_dl_api {
  IO_DL_HDF5_FUNCTIONS(IO_DL_FUNCTION_FIELD)
  IO_DL_HDF5_VARIABLES(IO_DL_VARIABLE_FIELD)
  IO_DL_FCLIB_FUNCTIONS(IO_DL_FUNCTION_FIELD)
  IO_DL_MATIO_FUNCTIONS(IO_DL_FUNCTION_FIELD)
} io_dl_api;

/* Opens the three libraries on the first call (once per process) and
 * looks up the table.  SLV_OK, or SLV_ERR_UNSUPPORTED with "PATH: WHAT
 * needs HDF5, libfclib and libmatio: why they could not be loaded" in
 * err[errlen] (what: "reading an FCLIB file").
 * Every entry point of the FCLIB and MAT-file code calls it before any
 * HDF5, libfclib or libmatio call. */
slv_status io_dl_ready(const char *path, const char *what, char *err, size_t errlen);

/* The table, after io_dl_ready returned SLV_OK. */
const io_dl_api *io_dl(void);

#endif
