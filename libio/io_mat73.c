/* io_mat73.c -- the variables of a version 7.3 MAT-file read with plain
 * HDF5 calls, each object header checked before libhdf5 loads it.
 *
 * Why not libmatio: its Mat_VarReadInfo reads the description of every
 * variable in the file, in order, until it meets the one asked for
 * (structs' fields and cells' referenced objects included), so HDF5 under
 * it loads object headers and attributes lcplab never uses; and HDF5
 * 1.10.8 trusts them: it allocates what a damaged object header's chunk
 * sizes say (360 GB for a mutated DCA-BL lcp7-n100.mat) and copies an
 * attribute's value past the end of its message (found by
 * tests/fuzz/fuzz_mat; tests/fuzz/README.md).  Here HDF5 touches only
 * the root group and the variables asked for (M or A, q or b, lo, hi):
 * each link is looked up and its object header checked by
 * io_hdf5_ohdr.c (every chunk inside the file, every message inside its
 * chunk, an attribute's value, a dataspace's dims and compact data inside
 * their messages) before HDF5 opens it, through io_hdf5_kind; each
 * dataset is then checked as the FCLIB reader checks its own
 * (io_hdf5_check_ds: stored in this file, a contiguous or compact one
 * exactly its size, a chunked one's chunks whole (io_hdf5_chunks.c),
 * numbers of 1 to 16 bytes, one test read), and the
 * bytes its dataspace declares are bounded by IO_MAT73_RATIO times the
 * file's size plus 16 MiB (a dense n x n double stored plainly holds its
 * 8 n^2 bytes; MATLAB stores larger variables chunked and compressed with
 * zlib, whose ratio is at most about 1000) and by the memory cap.
 *
 * What is read, as MATLAB writes it and libmatio reads it (docs/io.md,
 * "MATLAB MAT-files"): a variable is a dataset, or a group for a sparse
 * matrix; its attribute MATLAB_class names its class ("double",
 * "logical", ...); HDF5's dims are MATLAB's reversed (MATLAB is
 * column-major); a compound type (real, imag) is complex; MATLAB_empty
 * nonzero means the dataset holds the dims of an empty array; a sparse
 * group has MATLAB_sparse (the row count) and datasets jc (column starts),
 * ir (row indices; absent with data when there are no entries) and data.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "io_mat73.h"
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the bytes a dataspace may declare: this times the file's size, + 16 MiB */
#define IO_MAT73_RATIO 1032.0

slv_status io_mat73_open(io_mat73 *m, const char *path, char *err, size_t errlen, double eof,
                         double cap) {
  memset(m, 0, sizeof *m);
  m->fc = (io_hdf5_ctx){ .path = path,
                         .kind = "a MAT-file 7.3",
                         .err = err,
                         .errlen = errlen,
                         .file = -1,
                         .budget = IO_MAT73_RATIO * eof + 16.0 * 1048576.0,
                         .budget_rule = "1032 x the file size + 16 MiB",
                         .cap = cap };
  slv_status st = io_hdf5_open(&m->fc, path, H5P_DEFAULT, (uint64_t)eof);
  if (st && m->fc.oh_why[0]) /* the root group's header refused, with the reason */
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected a MAT-file 7.3 whose root group HDF5 can load, found %s",
                        m->fc.oh_why);
  if (st)
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected a MAT-file 7.3 that HDF5 can open, found a damaged or truncated "
                        "file");
  return st;
}

void io_mat73_close(io_mat73 *m) { io_hdf5_close(&m->fc); }

/* The string attribute `attr` of object o into buf (empty when absent). */
static int read_str_attr(hid_t o, const char *attr, char *buf, size_t len) {
  buf[0] = '\0';
  if (H5Aexists_by_name(o, ".", attr, H5P_DEFAULT) <= 0) return 0;
  hid_t a = H5Aopen_by_name(o, ".", attr, H5P_DEFAULT, H5P_DEFAULT);
  hid_t t = a >= 0 ? H5Aget_type(a) : -1;
  int ok = t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) == 0 &&
           H5Tget_size(t) < len && H5Aget_storage_size(a) <= H5Tget_size(t);
  if (ok) {
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, H5Tget_size(t));
    memset(buf, 0, len);
    ok = H5Aread(a, mt, buf) >= 0;
    H5Tclose(mt);
  }
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  if (!ok) buf[0] = '\0';
  return ok ? 0 : -1;
}

/* The unsigned scalar attribute `attr` of o into *v (0 when absent). */
static int read_uint_attr(hid_t o, const char *attr, unsigned long long *v) {
  *v = 0;
  if (H5Aexists_by_name(o, ".", attr, H5P_DEFAULT) <= 0) return 0;
  hid_t a = H5Aopen_by_name(o, ".", attr, H5P_DEFAULT, H5P_DEFAULT);
  hid_t sp = a >= 0 ? H5Aget_space(a) : -1;
  int ok =
      sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 && H5Aread(a, H5T_NATIVE_ULLONG, v) >= 0;
  if (sp >= 0) H5Sclose(sp);
  if (a >= 0) H5Aclose(a);
  return ok ? 0 : -1;
}

/* libmatio's class for MATLAB_class's string; "logical" is uint8 with
 * isLogical, as libmatio has it; an absent or unknown one is empty. */
static void set_class(matvar_t *v, const char *cls) {
  static const char *const names[] = { "",       "cell",           "struct", "object", "char",
                                       "sparse", "double",         "single", "int8",   "uint8",
                                       "int16",  "uint16",         "int32",  "uint32", "int64",
                                       "uint64", "function_handle" };
  v->class_type = MAT_C_EMPTY;
  for (int k = 1; k < (int)(sizeof names / sizeof names[0]); k++)
    if (strcmp(cls, names[k]) == 0) v->class_type = (enum matio_classes)k;
  if (strcmp(cls, "logical") == 0) {
    v->class_type = MAT_C_UINT8;
    v->isLogical = 1;
  }
}

/* Dims of rank r into v, MATLAB's order (HDF5's reversed). */
static slv_status set_dims(io_mat73 *m, matvar_t *v, int r, const hsize_t *h5) {
  v->rank = r;
  v->dims = calloc((size_t)(r > 0 ? r : 1), sizeof *v->dims);
  if (!v->dims) return io_hdf5_fail(&m->fc, SLV_ERR_NOMEM, "out of memory");
  for (int k = 0; k < r; k++) v->dims[k] = (size_t)h5[r - 1 - k];
  return SLV_OK;
}

/* Whether dataset gpath/name (in loc) has a compound (complex) type. */
static int is_compound(hid_t loc, const char *name) {
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  hid_t t = d >= 0 ? H5Dget_type(d) : -1;
  int c = t >= 0 && H5Tget_class(t) == H5T_COMPOUND;
  if (t >= 0) H5Tclose(t);
  if (d >= 0) H5Dclose(d);
  return c;
}

/* The whole numeric dataset gpath/name of loc, checked and read once
 * (io_hdf5_read_ds: its object header, storage, size against the budget
 * and the memory cap), converted to mt into a new buffer *buf of *np
 * elements. */
static slv_status read_ds(io_mat73 *m, hid_t loc, const char *gpath, const char *name, hid_t mt,
                          void **buf, long *np) {
  m->fc.mem = 0;
  return io_hdf5_read_ds(&m->fc, loc, gpath, name, mt, buf, np);
}

/* A dense variable: class, dims (MATLAB_empty: the stored dims), complex;
 * its values as doubles when with_data and it is a real double. */
static slv_status dense_var(io_mat73 *m, hid_t root, const char *name, int with_data, matvar_t *v) {
  char cls[64];
  hid_t d = H5Dopen2(root, name, H5P_DEFAULT);
  if (d < 0)
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected variable %s to open, found a damaged dataset", name);
  unsigned long long empty = 0;
  hsize_t h5[32];
  hid_t sp = H5Dget_space(d);
  int r = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (r >= 0 && r <= 32) H5Sget_simple_extent_dims(sp, h5, NULL);
  int bad = read_str_attr(d, "MATLAB_class", cls, sizeof cls) ||
            read_uint_attr(d, "MATLAB_empty", &empty) || r < 0 || r > 32;
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  if (bad)
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected variable %s with a readable shape and class, found damaged ones",
                        name);
  set_class(v, cls);
  v->isComplex = is_compound(root, name);
  v->data_type = MAT_T_DOUBLE;
  v->data_size = 8;
  if (empty) { /* the dataset holds the dims; the array has no values */
    void *dims;
    long np;
    slv_status st = read_ds(m, root, "", name, H5T_NATIVE_HSIZE, &dims, &np);
    if (!st && np <= 32) {
      hsize_t rev[32];
      for (long k = 0; k < np; k++) rev[k] = ((hsize_t *)dims)[np - 1 - k];
      st = set_dims(m, v, (int)np, rev);
    } else if (!st) {
      st = io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected variable %s (empty) to have at most 32 dims, "
                        "found %ld",
                        name, np);
    }
    free(dims);
    return st;
  }
  slv_status st = set_dims(m, v, r, h5);
  if (st || !with_data || v->class_type != MAT_C_DOUBLE || v->isComplex || v->isLogical) return st;
  long np;
  st = read_ds(m, root, "", name, H5T_NATIVE_DOUBLE, &v->data, &np);
  v->nbytes = (size_t)np * sizeof(double);
  return st;
}

/* A sparse group's jc, ir and data, as 32-bit indices (libmatio's) and
 * doubles, into a new mat_sparse_t. */
static slv_status sparse_data(io_mat73 *m, hid_t g, const char *gpath, matvar_t *v) {
  mat_sparse_t *s = calloc(1, sizeof *s);
  if (!s) return io_hdf5_fail(&m->fc, SLV_ERR_NOMEM, "out of memory");
  v->data = s;
  long njc = 0, nir = 0, nd = 0;
  void *jc = NULL, *ir = NULL, *x = NULL;
  slv_status st = read_ds(m, g, gpath, "jc", H5T_NATIVE_UINT32, &jc, &njc);
  s->jc = jc;
  s->njc = (mat_uint32_t)njc;
  if (!st && H5Lexists(g, "ir", H5P_DEFAULT) > 0) {
    st = read_ds(m, g, gpath, "ir", H5T_NATIVE_UINT32, &ir, &nir);
    s->ir = ir;
    s->nir = (mat_uint32_t)nir;
  }
  if (!st && H5Lexists(g, "data", H5P_DEFAULT) > 0) {
    st = read_ds(m, g, gpath, "data", H5T_NATIVE_DOUBLE, &x, &nd);
    s->data = x;
    s->ndata = (mat_uint32_t)nd;
  }
  s->nzmax = s->nir;
  return st;
}

/* A sparse variable (a group with MATLAB_sparse): class, dims (the row
 * count, and jc's length - 1 columns), complex; its CSC when with_data.
 * A group without MATLAB_sparse is a struct. */
static slv_status group_var(io_mat73 *m, hid_t root, const char *name, int with_data, matvar_t *v) {
  char gpath[80], cls[64];
  snprintf(gpath, sizeof gpath, "/%s", name);
  hid_t g = H5Gopen2(root, name, H5P_DEFAULT);
  if (g < 0)
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected variable %s to open, found a damaged group", name);
  unsigned long long rows = 0;
  int sparse = H5Aexists_by_name(g, ".", "MATLAB_sparse", H5P_DEFAULT) > 0;
  slv_status st = SLV_OK;
  if (read_str_attr(g, "MATLAB_class", cls, sizeof cls) ||
      read_uint_attr(g, "MATLAB_sparse", &rows))
    st = io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                      "expected variable %s with a readable class, found damaged "
                      "attributes",
                      name);
  hsize_t h5[2] = { 1, 1 };
  v->class_type = MAT_C_STRUCT;
  if (!st && sparse) {
    matvar_t probe = { 0 };
    set_class(&probe, cls);
    v->isLogical = probe.isLogical;
    v->class_type = MAT_C_SPARSE;
    v->data_type = probe.class_type == MAT_C_DOUBLE ? MAT_T_DOUBLE : MAT_T_UNKNOWN;
    long njc = 0;
    st = io_hdf5_check_ds(&m->fc, g, gpath, "jc", IO_HDF5_NUM, 1, &njc, NULL);
    h5[0] = njc > 0 ? (hsize_t)njc - 1 : 0; /* columns (HDF5 order: reversed) */
    h5[1] = (hsize_t)rows;
    /* data's object header checked before HDF5 opens it for its type */
    int kd = st ? IO_HDF5_ABSENT : io_hdf5_kind(&m->fc, g, "data");
    if (kd == IO_HDF5_DATASET)
      v->isComplex = is_compound(g, "data");
    else if (kd != IO_HDF5_ABSENT)
      st = io_hdf5_fail(&m->fc, SLV_ERR_INVALID, "expected the dataset %s/data, found %s", gpath,
                        kd == IO_HDF5_DAMAGED ? m->fc.oh_why : "another object");
  }
  if (!st) st = set_dims(m, v, 2, h5);
  if (!st && sparse && with_data && !v->isComplex && !v->isLogical && v->data_type == MAT_T_DOUBLE)
    st = sparse_data(m, g, gpath, v);
  H5Gclose(g);
  return st;
}

slv_status io_mat73_var(io_mat73 *m, const char *name, int with_data, matvar_t **out) {
  *out = NULL;
  hid_t root = m->fc.file;
  int k = io_hdf5_kind(&m->fc, root, name);
  if (k == IO_HDF5_ABSENT) return SLV_OK;
  if (k == IO_HDF5_DAMAGED)
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected variable %s's object header whole inside its file, found %s",
                        name, m->fc.oh_why);
  if (k != IO_HDF5_GROUP && k != IO_HDF5_DATASET)
    return io_hdf5_fail(&m->fc, SLV_ERR_INVALID,
                        "expected variable %s to be a dataset or a group, found %s", name,
                        k == IO_HDF5_LINK ? "a soft or external link" : "another object");
  matvar_t *v = Mat_VarCalloc();
  if (!v || !(v->name = strdup(name))) {
    Mat_VarFree(v);
    return io_hdf5_fail(&m->fc, SLV_ERR_NOMEM, "out of memory");
  }
  slv_status st = k == IO_HDF5_GROUP ? group_var(m, root, name, with_data, v)
                                     : dense_var(m, root, name, with_data, v);
  if (st) {
    Mat_VarFree(v);
    return st;
  }
  *out = v;
  return SLV_OK;
}
