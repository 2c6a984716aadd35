/* io_hdf5_read.c -- an HDF5 file read with plain, checked HDF5 calls
 * (io_hdf5_read.h), shared by the FCLIB reader (io_fclib_check.c,
 * io_fclib_read.c) and the MAT-file 7.3 reader (io_mat73.c).
 *
 * Before HDF5 loads an object header, io_hdf5_ohdr.c checks it from the
 * file's bytes (HDF5 allocates what a damaged header claims); a dataset's
 * chunks are checked by io_hdf5_chunks.c.  Here: the file opened with its
 * root group checked, the kind of a link looked up both ways HDF5 offers,
 * and a dataset checked for its kind, storage and size against the file's
 * budget and the memory cap, then read once (io_fclib_check.c's header says
 * why libfclib needs this).  Messages: one line, "PATH: expected <what>,
 * found <what>".
 */
#define _POSIX_C_SOURCE 200809L

#include "io_hdf5_read.h"
#include "io_hdf5_chunks.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void io_hdf5_quiet_on(io_hdf5_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void io_hdf5_quiet_off(const io_hdf5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

slv_status io_hdf5_fail(io_hdf5_ctx *c, slv_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  st = io_path_vfail(c->path, c->err, c->errlen, st, fmt, ap);
  va_end(ap);
  return st;
}

typedef struct find_data {
  const char *name;
  int found;
} find_data;

static herr_t find_cb(hid_t g, const char *name, const H5L_info_t *info, void *data) {
  (void)g;
  (void)info;
  find_data *f = data;
  if (strcmp(name, f->name) == 0) f->found = 1;
  return 0;
}

void io_hdf5_close(io_hdf5_ctx *c) {
  if (c->file >= 0) H5Fclose(c->file);
  if (c->oh.fp) fclose(c->oh.fp);
  c->file = -1;
  c->oh.fp = NULL;
  c->oh_ready = 0;
}

/* Opens the file for the object-header check (c->oh: the image, or the
 * file opened by stdio) and for HDF5 (c->file), and checks the root
 * group's header twice: before H5Fopen loads it (from the superblock read
 * by io_ohdr_superblock), and after, from what HDF5 says of the file (its
 * local heap, which the first lookup allocates, included).  On failure
 * c->file < 0 and the message is written. */
slv_status io_hdf5_open(io_hdf5_ctx *c, const char *h5name, hid_t fapl, uint64_t eof) {
  c->oh = (io_ohdr_src){ .image = (const unsigned char *)c->image, .eof = eof };
  if (!c->image) c->oh.fp = fopen(c->path, "rb");
  /* H5Fopen loads the root group's header (and a superblock extension's):
   * checked first, from the superblock read here */
  uint64_t root, ext;
  char why0[128];
  /* (a file shorter than its superblock says is left to H5Fopen, which
   * refuses it as truncated before loading anything) */
  if ((c->image || c->oh.fp) && io_ohdr_superblock(&c->oh, &root, &ext, why0, sizeof why0) == 0 &&
      c->oh.stored_eof <= eof &&
      (io_ohdr_check(&c->oh, root, why0, sizeof why0) ||
       (ext != UINT64_MAX && io_ohdr_check(&c->oh, ext, why0, sizeof why0)))) {
    io_hdf5_close(c);
    snprintf(c->oh_why, sizeof c->oh_why, "%s", why0);
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s whose root group HDF5 can load, found %s",
                        c->kind, why0);
  }
  c->file = H5Fopen(h5name, H5F_ACC_RDONLY, fapl);
  if (c->file < 0) {
    io_hdf5_close(c);
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s that HDF5 can open, found one it cannot (not HDF5, "
                        "truncated or corrupt)",
                        c->kind);
  }
  hid_t fcpl = H5Fget_create_plist(c->file);
  size_t sa = 0, ss = 0;
  hsize_t ub = 0;
  unsigned ik = 0, lk = 0; /* the group B-tree's K's (io_hdf5_ohdr.c, "group B-tree") */
  int ok = fcpl >= 0 && H5Pget_sizes(fcpl, &sa, &ss) >= 0 && H5Pget_userblock(fcpl, &ub) >= 0 &&
           H5Pget_sym_k(fcpl, &ik, &lk) >= 0;
  if (fcpl >= 0) H5Pclose(fcpl);
  c->oh.sizeof_addr = (unsigned)sa;
  c->oh.sizeof_size = (unsigned)ss;
  c->oh.internal_k = ik;
  c->oh.leaf_k = lk;
  c->oh.base = ub;
  c->oh_ready = ok && (c->image || c->oh.fp) && sa >= 1 && sa <= 8 && ss >= 1 && ss <= 8;
  H5O_info_t oi;
  char why[128] = "a file that could not be read again";
  if (!c->oh_ready || H5Oget_info2(c->file, &oi, H5O_INFO_BASIC) < 0 ||
      io_ohdr_check(&c->oh, (uint64_t)oi.addr, why, sizeof why)) {
    io_hdf5_close(c);
    snprintf(c->oh_why, sizeof c->oh_why, "%s", why);
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected a readable root group, found %s", why);
  }
  return SLV_OK;
}


/* What name (one path component, relative to loc) is.  The link is looked
 * up both ways HDF5 offers, by name (H5Lexists) and by listing the group
 * (H5Literate, as libfclib's H5LTfind_dataset does); a damaged group where
 * the two disagree, or either fails, is IO_HDF5_OTHER.  Only hard links are
 * followed (libfclib writes no other kind; an external link would open
 * another file), and only to an object header whose chunks lie inside the
 * file (io_hdf5_ohdr.c: libhdf5 would allocate what a damaged one claims
 * and leak when it fails). */
int io_hdf5_kind(io_hdf5_ctx *c, hid_t loc, const char *name) {
  htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
  find_data fd = { name, 0 };
  herr_t it = H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, NULL, find_cb, &fd);
  if (e < 0 || it < 0 || (e > 0) != fd.found) return IO_HDF5_OTHER; /* a damaged link table */
  if (e == 0) return IO_HDF5_ABSENT;
  H5L_info_t li;
  if (H5Lget_info(loc, name, &li, H5P_DEFAULT) < 0) return IO_HDF5_OTHER;
  if (li.type != H5L_TYPE_HARD) return IO_HDF5_LINK;
  if (!c->oh_ready) {
    snprintf(c->oh_why, sizeof c->oh_why, "a file that could not be read again");
    return IO_HDF5_DAMAGED;
  }
  char why[128];
  if (io_ohdr_check(&c->oh, (uint64_t)li.u.address, why, sizeof why)) {
    snprintf(c->oh_why, sizeof c->oh_why, "a damaged object: %s", why);
    return IO_HDF5_DAMAGED;
  }
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) return IO_HDF5_OTHER; /* a dangling link */
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  return t == H5I_GROUP ? IO_HDF5_GROUP : t == H5I_DATASET ? IO_HDF5_DATASET : IO_HDF5_OTHER;
}

static const char *kind_name(const io_hdf5_ctx *c, int k) {
  return k == IO_HDF5_ABSENT    ? "nothing"
         : k == IO_HDF5_GROUP   ? "a group"
         : k == IO_HDF5_DATASET ? "a dataset"
         : k == IO_HDF5_LINK    ? "a soft or external link"
         : k == IO_HDF5_DAMAGED ? c->oh_why
                                : "another object";
}

/* Opens the group gpath/name (must exist and be a group). */
slv_status io_hdf5_open_group(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                              hid_t *g) {
  int k = io_hdf5_kind(c, loc, name);
  *g = -1;
  if (k != IO_HDF5_GROUP)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected the group %s/%s, found %s", gpath, name,
                        kind_name(c, k));
  *g = H5Gopen2(loc, name, H5P_DEFAULT);
  if (*g < 0)
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected the group %s/%s to open, found a damaged object", gpath, name);
  return SLV_OK;
}

/* Where dataset d keeps its np elements of esz bytes: in the file as one
 * block (contiguous: exactly np * esz bytes, or none allocated yet, which
 * HDF5 reads as the fill value: libfclib leaves /solution/r so in real
 * files), in its header (compact: exactly np * esz bytes) or in chunks.
 * External files and virtual datasets (data in other files) are refused,
 * and so is a contiguous or compact dataset whose storage is not its size:
 * HDF5 1.10.8 reads a compact one of 0 bytes through a NULL buffer (a crash
 * inside libhdf5 found by tests/fuzz/fuzz_fclib.c; see tests/fuzz/README.md). */
static slv_status check_storage(io_hdf5_ctx *c, hid_t d, const char *gpath, const char *name,
                                hssize_t np, size_t esz) {
  hid_t pl = H5Dget_create_plist(d);
  H5D_layout_t lay = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
  int ext = pl >= 0 ? H5Pget_external_count(pl) : -1;
  if (pl >= 0) H5Pclose(pl);
  if (ext != 0 || (lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED && lay != H5D_COMPACT))
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s stored in this file, found %s", gpath,
                        name,
                        ext > 0              ? "external files"
                        : lay == H5D_VIRTUAL ? "a virtual dataset"
                                             : "an unreadable layout");
  char why[160];
  if (lay == H5D_CHUNKED && np > 0 &&
      io_hdf5_chunks_check(d, esz, (double)c->oh.eof, c->budget, why, sizeof why))
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s stored in whole chunks, found %s",
                        gpath, name, why);
  if (lay == H5D_CHUNKED || np == 0) return SLV_OK;
  haddr_t at = lay == H5D_CONTIGUOUS ? H5Dget_offset(d) : 0;
  hsize_t have = H5Dget_storage_size(d);
  if (lay == H5D_CONTIGUOUS && at == HADDR_UNDEF && have == 0) return SLV_OK; /* fill value */
  if (at == HADDR_UNDEF || (double)have != (double)np * (double)esz)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %.0f bytes of data, found %llu",
                        gpath, name, (double)np * (double)esz, (unsigned long long)have);
  return SLV_OK;
}

/* How c->budget was set, as messages say it. */
static const char *budget_rule(const io_hdf5_ctx *c) {
  return c->budget_rule ? c->budget_rule : "64 x the file size + 16 MiB";
}

/* Where a checked dataset's one read goes: memory type mt (-1: the one
 * `what` implies, as libfclib reads it), and the buffer kept in *keep
 * (NULL: freed after the read). */
typedef struct ds_into {
  hid_t mt;
  void **keep;
} ds_into;

/* The dataset d (space sp, type ty, np elements) read once, with the memory
 * type the reader will use, so that a damaged dataset fails here and not
 * in libfclib (which would exit); HDF5 converts through elements of the
 * larger of the two sizes.  Its bytes are checked against the file's
 * budget and the memory cap first. */
static slv_status test_read(io_hdf5_ctx *c, hid_t d, hid_t ty, hssize_t np, int what,
                            const char *gpath, const char *name, ds_into into) {
  hid_t mt = into.mt >= 0          ? into.mt
             : what == IO_HDF5_INT ? H5T_NATIVE_INT
             : what == IO_HDF5_NUM ? H5T_NATIVE_DOUBLE
                                   : ty;
  size_t esz = H5Tget_size(mt);
  if (H5Tget_size(ty) > esz) esz = H5Tget_size(ty);
  double bytes = (double)np * (double)esz, mem = c->mem;
  slv_status st = check_storage(c, d, gpath, name, np, H5Tget_size(ty));
  if (st) return st;
  if (bytes > c->budget)
    return io_hdf5_fail(c, SLV_ERR_DIM,
                        "expected sizes that the file can back, found %s/%s declaring "
                        "%.0f bytes (the limit is %s)",
                        gpath, name, bytes, budget_rule(c));
  /* refused before the test read; when it passes, mem is not kept: the
   * dataset is counted once, by io_hdf5_spend, as libfclib's copy */
  if ((st = io_reserve(c->path, &mem, c->cap, bytes, c->err, c->errlen, "%s/%s", gpath, name)))
    return st;
  void *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (!buf)
    st = io_hdf5_fail(c, SLV_ERR_NOMEM, "out of memory reading %s/%s", gpath, name);
  else if (np > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    st = io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to be readable, found a damaged dataset",
                      gpath, name);
  if (!st && into.keep)
    *into.keep = buf;
  else
    free(buf);
  return st;
}

/* The dataset's shape and type (space sp, type ty) as `what` needs, then
 * test_read; *np its element count. */
static slv_status check_open_ds(io_hdf5_ctx *c, hid_t d, hid_t sp, hid_t ty, int what,
                                const char *gpath, const char *name, ds_into into, hssize_t *np) {
  H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
  H5T_class_t tc = ty >= 0 ? H5Tget_class(ty) : H5T_NO_CLASS;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  *np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  const char *want = what == IO_HDF5_INT   ? "integers"
                     : what == IO_HDF5_NUM ? "numbers"
                                           : "a string";
  int ok_class = what == IO_HDF5_INT   ? tc == H5T_INTEGER
                 : what == IO_HDF5_NUM ? (tc == H5T_INTEGER || tc == H5T_FLOAT)
                                       : (tc == H5T_STRING && H5Tis_variable_str(ty) == 0);
  if (sp < 0 || ty < 0 || *np < 0 || rank < 0 || (sc != H5S_SIMPLE && sc != H5S_SCALAR))
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s/%s to hold %s, found a dataset without a readable "
                        "shape",
                        gpath, name, want);
  if (!ok_class)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %s%s, found HDF5 type class %d",
                        gpath, name, want, what == IO_HDF5_STR ? " (fixed length)" : "", (int)tc);
  if (what == IO_HDF5_STR && (*np != 1 || rank > 1))
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s/%s to hold one string, found %lld elements", gpath, name,
                        (long long)*np);
  /* HDF5's numbers take 1 to 16 bytes; HDF5 converts a damaged type of
   * gigabytes per element through a buffer of that size */
  if (what != IO_HDF5_STR && (H5Tget_size(ty) < 1 || H5Tget_size(ty) > 16))
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s/%s to hold %s of 1 to 16 bytes, found %zu-byte "
                        "elements",
                        gpath, name, want, H5Tget_size(ty));
  return test_read(c, d, ty, *np, what, gpath, name, into);
}

/* io_hdf5_check_ds, its one read going where into says. */
static slv_status check_ds_into(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                                int what, int required, ds_into into, long *npts, int *present) {
  int k = io_hdf5_kind(c, loc, name);
  *npts = 0;
  if (present) *present = k != IO_HDF5_ABSENT;
  if (k == IO_HDF5_ABSENT && !required) return SLV_OK;
  if (k != IO_HDF5_DATASET)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected the dataset %s/%s, found %s", gpath, name,
                        kind_name(c, k));
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to open, found a damaged dataset",
                        gpath, name);
  hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
  hssize_t np;
  slv_status st = check_open_ds(c, d, sp, ty, what, gpath, name, into, &np);
  *npts = (long)np;
  if (ty >= 0) H5Tclose(ty);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return st;
}

/* Checks dataset gpath/name: its kind (IO_HDF5_INT: integer; IO_HDF5_NUM:
 * integer or float; IO_HDF5_STR: fixed-length string, one element, rank
 * <= 1) and returns its element count.  *present = 0 for an absent
 * optional one. */
slv_status io_hdf5_check_ds(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                            int what, int required, long *npts, int *present) {
  return check_ds_into(c, loc, gpath, name, what, required, (ds_into){ -1, NULL }, npts, present);
}

slv_status io_hdf5_read_ds(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name, hid_t mt,
                           void **buf, long *np) {
  *buf = NULL;
  return check_ds_into(c, loc, gpath, name, IO_HDF5_NUM, 1, (ds_into){ mt, buf }, np, NULL);
}

/* Charges bytes against the budget and the memory cap. */
slv_status io_hdf5_spend(io_hdf5_ctx *c, const char *what, double bytes) {
  c->budget -= bytes;
  if (c->budget < 0)
    return io_hdf5_fail(c, SLV_ERR_DIM,
                        "expected sizes that the file can back, found %s declaring %.0f "
                        "bytes (the limit is %s)",
                        what, bytes, budget_rule(c));
  return io_reserve(c->path, &c->mem, c->cap, bytes, c->err, c->errlen, "%s", what);
}
