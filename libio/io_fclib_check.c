/* io_fclib_check.c -- an FCLIB file's structure checked with plain HDF5
 * calls before libfclib reads it (io_fclib_read.c; the layout is in
 * io_fclib.h).
 *
 * Never crash, never exit.  libfclib 3.1 exits the process on any failing
 * HDF5 call (its IO / ASSERT macros call exit(1)), mallocs what the file's
 * m, n, nz, nzmax say and then reads whole datasets into those buffers, and
 * prints to stderr.  So before calling it, every group and dataset it will
 * touch is checked here with plain HDF5 calls: present, of the right kind
 * (group / integer / float / fixed-length string), with exactly the number
 * of elements libfclib will allocate for it (scalars: 1; q: m; mu: m / 3;
 * CSR p: m + 1; CSC p: n + 1; triplet p, i: nz; i, x: at most nzmax), and
 * read once with the memory type libfclib uses, so that damaged data fails
 * here.
 * The bytes the sizes declare are bounded by 64 x the file's size + 16 MiB
 * (a dataset may be stored compressed or unallocated, but an FCLIB problem
 * is not mostly empty), so a small file cannot make us allocate gigabytes.
 * After the read, indices are checked against the sizes and values for
 * finiteness (mu >= 0).  A file that is not HDF5, truncated or corrupt
 * fails in H5Fopen or in these checks with a message (tested on truncated
 * copies, edited files, and 7200 copies of four shared files with 1 to 8
 * random bytes overwritten: none reached libfclib's exit; tests/test_fclib.c
 * keeps 300 of them).  The one gap left: a file changed by another process
 * between these checks and libfclib's read.  The HDF5 error
 * printer is switched off during io_read_fclib / io_write_fclib and
 * restored after: process-global HDF5 state (io.h).
 *
 * Messages: one line, "PATH: expected <what>, found <what>" naming the
 * HDF5 object, e.g. "x.hdf5: expected /fclib_local/vectors/mu to hold 48
 * values (W is 144 x 144: nc = 48), found 47".  Statuses: SLV_ERR_INVALID
 * (unreadable, not HDF5, malformed), SLV_ERR_DIM (sizes beyond the limits),
 * SLV_ERR_UNSUPPORTED (V/R, G, spacedim 2, rolling friction, blocks too big,
 * M not SPD), SLV_ERR_NOMEM.
 */
#define _POSIX_C_SOURCE 200809L

#include "io_fclib.h"
#include "io_hdf5_chunks.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void io_fclib_quiet_on(io_fclib_quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void io_fclib_quiet_off(const io_fclib_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

slv_status io_fclib_fail(io_fclib_ctx *c, slv_status st, const char *fmt, ...) {
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

void io_fclib_close(io_fclib_ctx *c) {
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
slv_status io_fclib_open(io_fclib_ctx *c, const char *h5name, hid_t fapl, uint64_t eof) {
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
    io_fclib_close(c);
    snprintf(c->oh_why, sizeof c->oh_why, "%s", why0);
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected an HDF5 file (FCLIB) whose root group HDF5 can load, found %s",
                         why0);
  }
  c->file = H5Fopen(h5name, H5F_ACC_RDONLY, fapl);
  if (c->file < 0) {
    io_fclib_close(c);
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected an HDF5 file (FCLIB) that HDF5 can open, found one "
                         "it cannot (not HDF5, truncated or corrupt)");
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
    io_fclib_close(c);
    snprintf(c->oh_why, sizeof c->oh_why, "%s", why);
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected a readable root group, found %s", why);
  }
  return SLV_OK;
}


/* What name (one path component, relative to loc) is.  The link is looked
 * up both ways HDF5 offers, by name (H5Lexists) and by listing the group
 * (H5Literate, as libfclib's H5LTfind_dataset does); a damaged group where
 * the two disagree, or either fails, is IO_FCLIB_OTHER.  Only hard links are
 * followed (libfclib writes no other kind; an external link would open
 * another file), and only to an object header whose chunks lie inside the
 * file (io_hdf5_ohdr.c: libhdf5 would allocate what a damaged one claims
 * and leak when it fails). */
int io_fclib_kind(io_fclib_ctx *c, hid_t loc, const char *name) {
  htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
  find_data fd = { name, 0 };
  herr_t it = H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, NULL, find_cb, &fd);
  if (e < 0 || it < 0 || (e > 0) != fd.found) return IO_FCLIB_OTHER; /* a damaged link table */
  if (e == 0) return IO_FCLIB_ABSENT;
  H5L_info_t li;
  if (H5Lget_info(loc, name, &li, H5P_DEFAULT) < 0) return IO_FCLIB_OTHER;
  if (li.type != H5L_TYPE_HARD) return IO_FCLIB_LINK;
  if (!c->oh_ready) {
    snprintf(c->oh_why, sizeof c->oh_why, "a file that could not be read again");
    return IO_FCLIB_DAMAGED;
  }
  char why[128];
  if (io_ohdr_check(&c->oh, (uint64_t)li.u.address, why, sizeof why)) {
    snprintf(c->oh_why, sizeof c->oh_why, "a damaged object: %s", why);
    return IO_FCLIB_DAMAGED;
  }
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) return IO_FCLIB_OTHER; /* a dangling link */
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  return t == H5I_GROUP ? IO_FCLIB_GROUP : t == H5I_DATASET ? IO_FCLIB_DATASET : IO_FCLIB_OTHER;
}

static const char *kind_name(const io_fclib_ctx *c, int k) {
  return k == IO_FCLIB_ABSENT    ? "nothing"
         : k == IO_FCLIB_GROUP   ? "a group"
         : k == IO_FCLIB_DATASET ? "a dataset"
         : k == IO_FCLIB_LINK    ? "a soft or external link"
         : k == IO_FCLIB_DAMAGED ? c->oh_why
                                 : "another object";
}

/* Opens the group gpath/name (must exist and be a group). */
slv_status io_fclib_open_group(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                               hid_t *g) {
  int k = io_fclib_kind(c, loc, name);
  *g = -1;
  if (k != IO_FCLIB_GROUP)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected the group %s/%s, found %s", gpath, name,
                         kind_name(c, k));
  *g = H5Gopen2(loc, name, H5P_DEFAULT);
  if (*g < 0)
    return io_fclib_fail(c, SLV_ERR_INVALID,
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
static slv_status check_storage(io_fclib_ctx *c, hid_t d, const char *gpath, const char *name,
                                hssize_t np, size_t esz) {
  hid_t pl = H5Dget_create_plist(d);
  H5D_layout_t lay = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
  int ext = pl >= 0 ? H5Pget_external_count(pl) : -1;
  if (pl >= 0) H5Pclose(pl);
  if (ext != 0 || (lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED && lay != H5D_COMPACT))
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s stored in this file, found %s", gpath,
                         name,
                         ext > 0              ? "external files"
                         : lay == H5D_VIRTUAL ? "a virtual dataset"
                                              : "an unreadable layout");
  char why[160];
  if (lay == H5D_CHUNKED && np > 0 &&
      io_hdf5_chunks_check(d, esz, (double)c->oh.eof, c->budget, why, sizeof why))
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s stored in whole chunks, found %s",
                         gpath, name, why);
  if (lay == H5D_CHUNKED || np == 0) return SLV_OK;
  haddr_t at = lay == H5D_CONTIGUOUS ? H5Dget_offset(d) : 0;
  hsize_t have = H5Dget_storage_size(d);
  if (lay == H5D_CONTIGUOUS && at == HADDR_UNDEF && have == 0) return SLV_OK; /* fill value */
  if (at == HADDR_UNDEF || (double)have != (double)np * (double)esz)
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected %s/%s to hold %.0f bytes of data, found %llu", gpath, name,
                         (double)np * (double)esz, (unsigned long long)have);
  return SLV_OK;
}

/* How c->budget was set, as messages say it. */
static const char *budget_rule(const io_fclib_ctx *c) {
  return c->budget_rule ? c->budget_rule : "64 x the file size + 16 MiB";
}

/* The dataset d (space sp, type ty, np elements) read once, as libfclib
 * will (the same memory type), so that a damaged dataset fails here and not
 * in libfclib (which would exit); HDF5 converts through elements of the
 * larger of the two sizes.  Its bytes are checked against the file's
 * budget and the memory cap first. */
static slv_status test_read(io_fclib_ctx *c, hid_t d, hid_t ty, hssize_t np, int what,
                            const char *gpath, const char *name) {
  size_t esz = what == IO_FCLIB_INT   ? sizeof(int)
               : what == IO_FCLIB_NUM ? sizeof(double)
                                      : H5Tget_size(ty);
  if (H5Tget_size(ty) > esz) esz = H5Tget_size(ty);
  double bytes = (double)np * (double)esz, mem = c->mem;
  slv_status st = check_storage(c, d, gpath, name, np, H5Tget_size(ty));
  if (st) return st;
  if (bytes > c->budget)
    return io_fclib_fail(c, SLV_ERR_DIM,
                         "expected sizes that the file can back, found %s/%s declaring "
                         "%.0f bytes (the limit is %s)",
                         gpath, name, bytes, budget_rule(c));
  /* refused before the test read; when it passes, mem is not kept: the
   * dataset is counted once, by spend, as libfclib's copy */
  if ((st = io_reserve(c->path, &mem, c->cap, bytes, c->err, c->errlen, "%s/%s", gpath, name)))
    return st;
  void *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
  hid_t mt = what == IO_FCLIB_INT ? H5T_NATIVE_INT : what == IO_FCLIB_NUM ? H5T_NATIVE_DOUBLE : ty;
  if (!buf)
    st = io_fclib_fail(c, SLV_ERR_NOMEM, "out of memory reading %s/%s", gpath, name);
  else if (np > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    st = io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s to be readable, found a damaged dataset",
                       gpath, name);
  free(buf);
  return st;
}

/* The dataset's shape and type (space sp, type ty) as `what` needs, then
 * test_read; *np its element count. */
static slv_status check_open_ds(io_fclib_ctx *c, hid_t d, hid_t sp, hid_t ty, int what,
                                const char *gpath, const char *name, hssize_t *np) {
  H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
  H5T_class_t tc = ty >= 0 ? H5Tget_class(ty) : H5T_NO_CLASS;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  *np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  const char *want = what == IO_FCLIB_INT   ? "integers"
                     : what == IO_FCLIB_NUM ? "numbers"
                                            : "a string";
  int ok_class = what == IO_FCLIB_INT   ? tc == H5T_INTEGER
                 : what == IO_FCLIB_NUM ? (tc == H5T_INTEGER || tc == H5T_FLOAT)
                                        : (tc == H5T_STRING && H5Tis_variable_str(ty) == 0);
  if (sp < 0 || ty < 0 || *np < 0 || rank < 0 || (sc != H5S_SIMPLE && sc != H5S_SCALAR))
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected %s/%s to hold %s, found a dataset without a readable "
                         "shape",
                         gpath, name, want);
  if (!ok_class)
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected %s/%s to hold %s%s, found HDF5 type class %d", gpath, name, want,
                         what == IO_FCLIB_STR ? " (fixed length)" : "", (int)tc);
  if (what == IO_FCLIB_STR && (*np != 1 || rank > 1))
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected %s/%s to hold one string, found %lld elements", gpath, name,
                         (long long)*np);
  /* HDF5's numbers take 1 to 16 bytes; HDF5 converts a damaged type of
   * gigabytes per element through a buffer of that size */
  if (what != IO_FCLIB_STR && (H5Tget_size(ty) < 1 || H5Tget_size(ty) > 16))
    return io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected %s/%s to hold %s of 1 to 16 bytes, found %zu-byte "
                         "elements",
                         gpath, name, want, H5Tget_size(ty));
  return test_read(c, d, ty, *np, what, gpath, name);
}

/* Checks dataset gpath/name: its kind (IO_FCLIB_INT: integer; IO_FCLIB_NUM:
 * integer or float; IO_FCLIB_STR: fixed-length string, one element, rank
 * <= 1) and returns its element count.  *present = 0 for an absent
 * optional one. */
slv_status io_fclib_check_ds(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                             int what, int required, long *npts, int *present) {
  int k = io_fclib_kind(c, loc, name);
  *npts = 0;
  if (present) *present = k != IO_FCLIB_ABSENT;
  if (k == IO_FCLIB_ABSENT && !required) return SLV_OK;
  if (k != IO_FCLIB_DATASET)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected the dataset %s/%s, found %s", gpath, name,
                         kind_name(c, k));
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s to open, found a damaged dataset",
                         gpath, name);
  hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
  hssize_t np;
  slv_status st = check_open_ds(c, d, sp, ty, what, gpath, name, &np);
  *npts = (long)np;
  if (ty >= 0) H5Tclose(ty);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return st;
}

/* A required integer scalar (exactly one element). */
static slv_status read_int(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                           int *v) {
  long np;
  slv_status st = io_fclib_check_ds(c, loc, gpath, name, IO_FCLIB_INT, 1, &np, NULL);
  if (st) return st;
  if (np != 1)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s to hold one integer, found %ld", gpath,
                         name, np);
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  herr_t e = H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  if (e < 0)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s to be readable, found a read error",
                         gpath, name);
  return SLV_OK;
}

/* Charges bytes against the budget and the memory cap. */
static slv_status spend(io_fclib_ctx *c, const char *what, double bytes) {
  c->budget -= bytes;
  if (c->budget < 0)
    return io_fclib_fail(c, SLV_ERR_DIM,
                         "expected sizes that the file can back, found %s declaring %.0f "
                         "bytes (the limit is %s)",
                         what, bytes, budget_rule(c));
  return io_reserve(c->path, &c->mem, c->cap, bytes, c->err, c->errlen, "%s", what);
}

/* A numeric vector of exactly want elements (libfclib allocates want). */
static slv_status check_vec(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                            long want, const char *why) {
  long np;
  slv_status st = io_fclib_check_ds(c, loc, gpath, name, IO_FCLIB_NUM, 1, &np, NULL);
  if (st) return st;
  if (np != want)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %ld values (%s), found %ld",
                         gpath, name, want, why, np);
  char w[160];
  snprintf(w, sizeof w, "%s/%s", gpath, name);
  return spend(c, w, 8.0 * (double)want);
}

/* The matrix group gpath/name as libfclib's read_matrix will read it. */
static slv_status check_matrix(io_fclib_ctx *c, hid_t loc, const char *gpath, const char *name,
                               io_fclib_mat *h) {
  char g[128];
  hid_t id;
  slv_status st;
  snprintf(g, sizeof g, "%s/%s", gpath, name);
  if ((st = io_fclib_open_group(c, loc, gpath, name, &id))) return st;
  if ((st = read_int(c, id, g, "nzmax", &h->nzmax)) || (st = read_int(c, id, g, "m", &h->m)) ||
      (st = read_int(c, id, g, "n", &h->n)) || (st = read_int(c, id, g, "nz", &h->nz)))
    goto done;
  if (h->m < 0 || h->m > IO_MAX_N || h->n < 0 || h->n > IO_MAX_N) {
    st = io_fclib_fail(c, SLV_ERR_DIM, "expected %s/m and n in [0, %d], found %d x %d", g, IO_MAX_N,
                       h->m, h->n);
    goto done;
  }
  if (h->nzmax < 0 || h->nzmax > IO_MAX_NNZ) {
    st = io_fclib_fail(c, SLV_ERR_DIM, "expected %s/nzmax in [0, %ld], found %d", g,
                       (long)IO_MAX_NNZ, h->nzmax);
    goto done;
  }
  if (h->nz < -2) {
    st = io_fclib_fail(c, SLV_ERR_INVALID,
                       "expected %s/nz >= 0 (triplet), -1 (CSC) or -2 (CSR), found %d", g, h->nz);
    goto done;
  }
  if (h->nz > h->nzmax) {
    st = io_fclib_fail(c, SLV_ERR_INVALID,
                       "expected %s/nz <= nzmax = %d (triplet entries), found %d", g, h->nzmax,
                       h->nz);
    goto done;
  }
  if ((st = io_fclib_check_ds(c, id, g, "p", IO_FCLIB_INT, 1, &h->np, NULL)) ||
      (st = io_fclib_check_ds(c, id, g, "i", IO_FCLIB_INT, 1, &h->ni, NULL)) ||
      (st = io_fclib_check_ds(c, id, g, "x", IO_FCLIB_NUM, 1, &h->nx, NULL)))
    goto done;
  /* what libfclib allocates for p and i */
  long ap = h->nz >= 0 ? h->nz : h->nz == -1 ? (long)h->n + 1 : (long)h->m + 1;
  long ai = h->nz >= 0 ? h->nz : h->nzmax;
  const char *form = h->nz >= 0 ? "triplet" : h->nz == -1 ? "CSC" : "CSR";
  if (h->np != ap) {
    st = io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/p to hold %ld values (%s, %s), found %ld",
                       g, ap, form,
                       h->nz >= 0    ? "nz"
                       : h->nz == -1 ? "n + 1"
                                     : "m + 1",
                       h->np);
    goto done;
  }
  if (h->nz >= 0 ? h->ni != ai : h->ni > ai) {
    st = io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/i to hold %s %ld values (%s), found %ld", g,
                       h->nz >= 0 ? "exactly" : "at most", ai, h->nz >= 0 ? "nz" : "nzmax", h->ni);
    goto done;
  }
  if (h->nx > h->nzmax || (h->nz >= 0 && h->nx < h->nz)) {
    st =
        io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/x to hold %s values (nzmax = %d), found %ld",
                      g, h->nz >= 0 ? "nz to nzmax" : "at most nzmax", h->nzmax, h->nx);
    goto done;
  }
  if ((st = spend(c, g, 4.0 * (double)(ap + ai) + 8.0 * (double)h->nzmax))) goto done;
  /* the optional matrix info: read by libfclib when "conditioning" exists */
  if (io_fclib_kind(c, id, "conditioning") != IO_FCLIB_ABSENT) {
    long np;
    int has;
    if ((st = io_fclib_check_ds(c, id, g, "conditioning", IO_FCLIB_NUM, 1, &np, NULL))) goto done;
    if (np == 1 && !(st = io_fclib_check_ds(c, id, g, "determinant", IO_FCLIB_NUM, 1, &np, NULL)) &&
        np == 1 && !(st = io_fclib_check_ds(c, id, g, "rank", IO_FCLIB_INT, 1, &np, NULL)) &&
        np == 1)
      st = io_fclib_check_ds(c, id, g, "comment", IO_FCLIB_STR, 0, &np, &has);
    else if (!st)
      st = io_fclib_fail(c, SLV_ERR_INVALID,
                         "expected %s/conditioning, determinant and rank to hold one "
                         "value each, found %ld",
                         g, np);
  }
done:
  H5Gclose(id);
  return st;
}

/* The optional info group: title, description, math_info as strings. */
static slv_status check_info(io_fclib_ctx *c, hid_t loc, const char *gpath) {
  if (io_fclib_kind(c, loc, "info") == IO_FCLIB_ABSENT) return SLV_OK; /* optional */
  char g[64];
  hid_t id;
  slv_status st;
  snprintf(g, sizeof g, "%s/info", gpath);
  if ((st = io_fclib_open_group(c, loc, gpath, "info", &id))) return st;
  static const char *const names[3] = { "title", "description", "math_info" };
  for (int k = 0; k < 3 && !st; k++) {
    long np;
    int has;
    st = io_fclib_check_ds(c, id, g, names[k], IO_FCLIB_STR, 0, &np, &has);
  }
  H5Gclose(id);
  return st;
}

static slv_status check_spacedim(io_fclib_ctx *c, hid_t g, const char *gpath) {
  int d;
  slv_status st = read_int(c, g, gpath, "spacedim", &d);
  if (st) return st;
  if (d == 2)
    return io_fclib_fail(c, SLV_ERR_UNSUPPORTED,
                         "expected %s/spacedim = 3, found 2 (2-D frictional "
                         "contact is not supported)",
                         gpath);
  if (d != 3)
    return io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/spacedim = 3, found %d", gpath, d);
  return SLV_OK;
}

/* The whole local problem, as fclib_read_local reads it. */
slv_status io_fclib_check_local(io_fclib_ctx *c, io_fclib_mat *W) {
  static const char *const G = "/fclib_local";
  hid_t g, v = -1;
  slv_status st = io_fclib_open_group(c, c->file, "", "fclib_local", &g);
  if (st) return st;
  if ((st = check_spacedim(c, g, G))) goto done;
  for (int k = 0; k < 2; k++) {
    const char *name = k ? "R" : "V";
    if (io_fclib_kind(c, g, name) != IO_FCLIB_ABSENT) {
      st = io_fclib_fail(c, SLV_ERR_UNSUPPORTED,
                         "expected no %s/%s, found one: problems with the extra "
                         "multipliers lambda (V' r + R lambda + s = 0) are not supported",
                         G, name);
      goto done;
    }
  }
  if ((st = check_matrix(c, g, G, "W", W))) goto done;
  if (W->m != W->n || W->m % 3) {
    st = io_fclib_fail(c, SLV_ERR_INVALID, "expected %s/W to be square, 3 nc x 3 nc, found %d x %d",
                       G, W->m, W->n);
    goto done;
  }
  if ((st = io_fclib_open_group(c, g, G, "vectors", &v))) goto done;
  char why[96];
  snprintf(why, sizeof why, "W is %d x %d", W->m, W->n);
  if ((st = check_vec(c, v, "/fclib_local/vectors", "q", W->m, why))) goto done;
  snprintf(why, sizeof why, "W is %d x %d: nc = %d", W->m, W->n, W->m / 3);
  if ((st = check_vec(c, v, "/fclib_local/vectors", "mu", W->m / 3, why))) goto done;
  st = check_info(c, g, G);
done:
  if (v >= 0) H5Gclose(v);
  H5Gclose(g);
  return st;
}

/* The whole global problem, as fclib_read_global reads it. */
slv_status io_fclib_check_global(io_fclib_ctx *c, io_fclib_mat *M, io_fclib_mat *H) {
  static const char *const G = "/fclib_global";
  hid_t g, v = -1;
  slv_status st = io_fclib_open_group(c, c->file, "", "fclib_global", &g);
  if (st) return st;
  if ((st = check_spacedim(c, g, G))) goto done;
  if (io_fclib_kind(c, g, "G") != IO_FCLIB_ABSENT) {
    st = io_fclib_fail(c, SLV_ERR_UNSUPPORTED,
                       "expected no %s/G, found one: equality constraints "
                       "(G' v + b = 0) are not supported",
                       G);
    goto done;
  }
  if ((st = check_matrix(c, g, G, "M", M)) || (st = check_matrix(c, g, G, "H", H))) goto done;
  if (M->m != M->n) {
    st = io_fclib_fail(c, SLV_ERR_INVALID,
                       "expected %s/M to be square (ndof x ndof), found %d x %d", G, M->m, M->n);
    goto done;
  }
  if (H->m != M->m || H->n % 3) {
    st = io_fclib_fail(c, SLV_ERR_INVALID,
                       "expected %s/H to be ndof x 3 nc = %d x (a multiple of 3), "
                       "found %d x %d",
                       G, M->m, H->m, H->n);
    goto done;
  }
  if ((st = io_fclib_open_group(c, g, G, "vectors", &v))) goto done;
  char why[96];
  snprintf(why, sizeof why, "M is %d x %d", M->m, M->n);
  if ((st = check_vec(c, v, "/fclib_global/vectors", "f", M->m, why))) goto done;
  snprintf(why, sizeof why, "H is %d x %d", H->m, H->n);
  if ((st = check_vec(c, v, "/fclib_global/vectors", "w", H->n, why))) goto done;
  snprintf(why, sizeof why, "H is %d x %d: nc = %d", H->m, H->n, H->n / 3);
  if ((st = check_vec(c, v, "/fclib_global/vectors", "mu", H->n / 3, why))) goto done;
  st = check_info(c, g, G);
done:
  if (v >= 0) H5Gclose(v);
  H5Gclose(g);
  return st;
}
