/* io_fclib.c -- FCLIB HDF5 instances (.hdf5, .h5) through Debian's libfclib.
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
 * lcplab reads (io_read_fclib) with fclib_read_local / fclib_read_global
 * and maps the problem to w = A x + b with x = r, w = u and one Coulomb
 * cone (SLV_CONE_COULOMB) per contact at rows 3c..3c+2 (io_fc3d.c):
 *
 *   local:   A = W, b = q.  V, R (the lambda part) give SLV_ERR_UNSUPPORTED.
 *   global:  condensed to the local problem.  From M v = H r + f,
 *            v = M^-1 (H r + f), so u = H' v + w = (H' M^-1 H) r
 *            + (w + H' M^-1 f):
 *                A = W = H' M^-1 H,     b = q = w + H' M^-1 f,
 *            the formula of Siconos' test_fclib.py (README 2.2: "W = H' M^-1
 *            H, q_loc = b + H' M^-1 q" with Siconos' q = FCLIB f and b = w).
 *            The condensation is libsolvers' slv_condense (io_global.c;
 *            libsolvers/condense.c): M factored by its diagonal blocks (the
 *            connected parts of its pattern: dense LAPACK up to 600 dofs, a
 *            sparse Cholesky above), W block sparse (CSR), never dense; no
 *            cap on the size but the memory cap (max_memory).  An M stored
 *            as one triangle only (every non-zero off-diagonal entry on the
 *            same side of the diagonal: LMGC's dumps CubeH8 and
 *            LMGC_GlobalFrictionContactProblem00046 store the upper
 *            triangle; the same 162-dof mesh appears in full in
 *            LMGC_GFC3D-i00501) is the symmetric matrix it is half of.
 *            M, H, f and w are kept beside the instance (io_instance.
 *            global).  SLV_ERR_UNSUPPORTED with a message when M is not
 *            symmetric (|M_ij - M_ji| > 1e-10 max|M_block|, far above
 *            rounding, below any modelling asymmetry) or not positive
 *            definite, or when G (equality constraints) is present;
 *            SLV_ERR_DIM beyond the memory cap.
 *   storage: dense when n = 3 nc <= IO_FC_DENSE_MAX (300), else CSR
 *            with the columns of each row sorted (local: duplicates kept,
 *            in file order; they add up; global: merged).  spacedim must be 3 (2: unsupported).
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
 * From memory (io_read_fclib_image, for the fuzz harness
 * tests/fuzz/fuzz_fclib.c): the same checks on a file image opened through
 * HDF5's core driver (H5Pset_fapl_core, no backing store, H5Pset_file_image),
 * then libfclib, which opens paths only, on a temporary file holding the
 * same bytes (in /dev/shm, memory, when it can).  Both drivers give HDF5
 * the same bytes and the same end of file; they differ on some damaged
 * superblocks (a driver-information block at an address in HDF5's
 * temporary space: the core driver opens the file, the default driver
 * refuses it), and then libfclib's H5Fopen fails, libfclib returns
 * nothing, and the read fails with a message.  tests/fuzz/fuzz_fclib.c
 * checks on every input that the two routes accept the same files.
 *
 * Writing (io_write_fclib) does not call libfclib, whose exit on a
 * failing HDF5 call a full disk reaches (issue 48, case 7).  The file is
 * built in memory with plain HDF5 calls (core driver, no backing store) in
 * the layout of libfclib 3.1's fclib_write_local -- /fclib_local/spacedim
 * (3), W (nzmax, m, n, nz, p, i, x; CSR, nz = -2; a dense instance gives
 * the entries that are not +0.0, so -0.0 survives), vectors/q = b,
 * vectors/mu, info/title = the instance name, info/description = "written
 * by lcplab ..."; 1-D native int / double datasets, contiguous, space
 * allocated late; scalar NUL-terminated strings -- so that the file is
 * libfclib's byte for byte but for the objects' modification times.  Its
 * bytes are then written (write(2), fsync) under a fresh temporary name in
 * the same directory and renamed over PATH; on any failure the temporary
 * file is removed, PATH is untouched and the message is "PATH: cannot
 * write: <strerror>".  Solutions (io_fclib_write_solution) add
 * /solution (u, r) and /guesses (number_of_guesses, 1/u, 1/r) to the same
 * image, as fclib_write_solution / fclib_write_guesses do.  An instance
 * that carries its global problem (inst->global: read from /fclib_global or
 * a gfc3d .dat, or built by lcplab export --global) is written as
 * /fclib_global in fclib_write_global's layout: spacedim, M and H as
 * triplets (nz >= 0, i = row, p = column, as Siconos writes global
 * problems), vectors f, w, mu, info; its solution file holds the global
 * problem and, per answer r, v = M^-1 (H r + f), u = H' v + w and r
 * (slv_global_velocities), as libfclib's fclib_read_solution reads them.  Only FC3D instances (io_holds_fc3d: every row in a cone,
 * Coulomb's law); else SLV_ERR_UNSUPPORTED and nothing written.  A write followed by a read
 * gives back A, b and the cones bit for bit for instances from a reader
 * (sorted CSR columns).
 *
 * Messages: one line, "PATH: expected <what>, found <what>" naming the
 * HDF5 object, e.g. "x.hdf5: expected /fclib_local/vectors/mu to hold 48
 * values (W is 144 x 144: nc = 48), found 47".  Statuses: SLV_ERR_INVALID
 * (unreadable, not HDF5, malformed), SLV_ERR_DIM (sizes beyond the limits),
 * SLV_ERR_UNSUPPORTED (V/R, G, spacedim 2, rolling friction, blocks too big,
 * M not SPD), SLV_ERR_NOMEM.
 */
#define _POSIX_C_SOURCE 200809L

#include "io_hdf5_ohdr.h"
#include "io_internal.h"

#include <fclib.h>
#include <hdf5.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- the HDF5 context ---------------------------------------------------------- */

typedef struct fc_ctx {
  const char *path; /* the name in messages */
  char *err;
  size_t errlen;
  hid_t file;
  double budget;     /* bytes the declared sizes may still claim */
  double mem;        /* bytes reserved against the memory cap */
  double cap;        /* the memory cap (io_read_options.max_memory) */
  const void *image; /* io_read_fclib_image: the file's bytes, else NULL */
  size_t image_len;
  io_ohdr_src oh;   /* the file's bytes for the object-header check */
  int oh_ready;     /* oh is set up (open_file) */
  char oh_why[160]; /* why the last object header was refused */
} fc_ctx;

typedef struct h5quiet {
  H5E_auto2_t func;
  void *data;
} h5quiet;

static void quiet_on(h5quiet *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void quiet_off(const h5quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

static slv_status fail(fc_ctx *c, slv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static slv_status fail(fc_ctx *c, slv_status st, const char *fmt, ...) {
  char m[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  io_msgf(c->err, c->errlen, "%s: %s", c->path, m);
  return st;
}

enum { K_ABSENT = 0, K_GROUP, K_DATASET, K_OTHER, K_LINK, K_DAMAGED };

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

static void close_file(fc_ctx *c) {
  if (c->file >= 0) H5Fclose(c->file);
  if (c->oh.fp) fclose(c->oh.fp);
  c->file = -1;
  c->oh.fp = NULL;
  c->oh_ready = 0;
}

/* Opens the file for HDF5 (c->file) and for the object-header check
 * (c->oh: the image, or the file opened again by stdio), and checks the
 * root group's header (H5Fopen has read it, but not yet its local heap,
 * which the first lookup allocates).  On failure c->file < 0 and the
 * message is written. */
static slv_status open_file(fc_ctx *c, const char *h5name, hid_t fapl, uint64_t eof) {
  c->file = H5Fopen(h5name, H5F_ACC_RDONLY, fapl);
  if (c->file < 0)
    return fail(c, SLV_ERR_INVALID,
                "expected an HDF5 file (FCLIB) that HDF5 can open, found one "
                "it cannot (not HDF5, truncated or corrupt)");
  c->oh = (io_ohdr_src){ .image = (const unsigned char *)c->image, .eof = eof };
  if (!c->image) c->oh.fp = fopen(c->path, "rb");
  hid_t fcpl = H5Fget_create_plist(c->file);
  size_t sa = 0, ss = 0;
  hsize_t ub = 0;
  int ok = fcpl >= 0 && H5Pget_sizes(fcpl, &sa, &ss) >= 0 && H5Pget_userblock(fcpl, &ub) >= 0;
  if (fcpl >= 0) H5Pclose(fcpl);
  c->oh.sizeof_addr = (unsigned)sa;
  c->oh.sizeof_size = (unsigned)ss;
  c->oh.base = ub;
  c->oh_ready = ok && (c->image || c->oh.fp) && sa >= 1 && sa <= 8 && ss >= 1 && ss <= 8;
  H5O_info_t oi;
  char why[128] = "a file that could not be read again";
  if (!c->oh_ready || H5Oget_info2(c->file, &oi, H5O_INFO_BASIC) < 0 ||
      io_ohdr_check(&c->oh, (uint64_t)oi.addr, why, sizeof why)) {
    close_file(c);
    return fail(c, SLV_ERR_INVALID, "expected a readable root group, found %s", why);
  }
  return SLV_OK;
}


/* What name (one path component, relative to loc) is.  The link is looked
 * up both ways HDF5 offers, by name (H5Lexists) and by listing the group
 * (H5Literate, as libfclib's H5LTfind_dataset does); a damaged group where
 * the two disagree, or either fails, is K_OTHER.  Only hard links are
 * followed (libfclib writes no other kind; an external link would open
 * another file), and only to an object header whose chunks lie inside the
 * file (io_hdf5_ohdr.c: libhdf5 would allocate what a damaged one claims
 * and leak when it fails). */
static int kind_of(fc_ctx *c, hid_t loc, const char *name) {
  htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
  find_data fd = { name, 0 };
  herr_t it = H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, NULL, find_cb, &fd);
  if (e < 0 || it < 0 || (e > 0) != fd.found) return K_OTHER; /* a damaged link table */
  if (e == 0) return K_ABSENT;
  H5L_info_t li;
  if (H5Lget_info(loc, name, &li, H5P_DEFAULT) < 0) return K_OTHER;
  if (li.type != H5L_TYPE_HARD) return K_LINK;
  if (!c->oh_ready) {
    snprintf(c->oh_why, sizeof c->oh_why, "a file that could not be read again");
    return K_DAMAGED;
  }
  char why[128];
  if (io_ohdr_check(&c->oh, (uint64_t)li.u.address, why, sizeof why)) {
    snprintf(c->oh_why, sizeof c->oh_why, "a damaged object: %s", why);
    return K_DAMAGED;
  }
  hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
  if (o < 0) return K_OTHER; /* a dangling link */
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  return t == H5I_GROUP ? K_GROUP : t == H5I_DATASET ? K_DATASET : K_OTHER;
}

static const char *kind_name(const fc_ctx *c, int k) {
  return k == K_ABSENT    ? "nothing"
         : k == K_GROUP   ? "a group"
         : k == K_DATASET ? "a dataset"
         : k == K_LINK    ? "a soft or external link"
         : k == K_DAMAGED ? c->oh_why
                          : "another object";
}

/* Opens the group gpath/name (must exist and be a group). */
static slv_status open_group(fc_ctx *c, hid_t loc, const char *gpath, const char *name, hid_t *g) {
  int k = kind_of(c, loc, name);
  *g = -1;
  if (k != K_GROUP)
    return fail(c, SLV_ERR_INVALID, "expected the group %s/%s, found %s", gpath, name,
                kind_name(c, k));
  *g = H5Gopen2(loc, name, H5P_DEFAULT);
  if (*g < 0)
    return fail(c, SLV_ERR_INVALID, "expected the group %s/%s to open, found a damaged object",
                gpath, name);
  return SLV_OK;
}

enum { D_INT, D_NUM, D_STR };

/* Where dataset d keeps its np elements of esz bytes: in the file as one
 * block (contiguous: exactly np * esz bytes, or none allocated yet, which
 * HDF5 reads as the fill value: libfclib leaves /solution/r so in real
 * files), in its header (compact: exactly np * esz bytes) or in chunks.
 * External files and virtual datasets (data in other files) are refused,
 * and so is a contiguous or compact dataset whose storage is not its size:
 * HDF5 1.10.8 reads a compact one of 0 bytes through a NULL buffer (a crash
 * inside libhdf5 found by tests/fuzz/fuzz_fclib.c; see tests/fuzz/README.md). */
static slv_status check_storage(fc_ctx *c, hid_t d, const char *gpath, const char *name,
                                hssize_t np, size_t esz) {
  hid_t pl = H5Dget_create_plist(d);
  H5D_layout_t lay = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
  int ext = pl >= 0 ? H5Pget_external_count(pl) : -1;
  if (pl >= 0) H5Pclose(pl);
  if (ext != 0 || (lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED && lay != H5D_COMPACT))
    return fail(c, SLV_ERR_INVALID, "expected %s/%s stored in this file, found %s", gpath, name,
                ext > 0              ? "external files"
                : lay == H5D_VIRTUAL ? "a virtual dataset"
                                     : "an unreadable layout");
  if (lay == H5D_CHUNKED || np == 0) return SLV_OK;
  haddr_t at = lay == H5D_CONTIGUOUS ? H5Dget_offset(d) : 0;
  hsize_t have = H5Dget_storage_size(d);
  if (lay == H5D_CONTIGUOUS && at == HADDR_UNDEF && have == 0) return SLV_OK; /* fill value */
  if (at == HADDR_UNDEF || (double)have != (double)np * (double)esz)
    return fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %.0f bytes of data, found %llu", gpath,
                name, (double)np * (double)esz, (unsigned long long)have);
  return SLV_OK;
}

/* Checks dataset gpath/name: its kind (D_INT: integer; D_NUM: integer or
 * float; D_STR: fixed-length string, one element, rank <= 1) and returns
 * its element count.  *present = 0 for an absent optional one. */
static slv_status check_ds(fc_ctx *c, hid_t loc, const char *gpath, const char *name, int what,
                           int required, long *npts, int *present) {
  int k = kind_of(c, loc, name);
  *npts = 0;
  if (present) *present = k != K_ABSENT;
  if (k == K_ABSENT && !required) return SLV_OK;
  if (k != K_DATASET)
    return fail(c, SLV_ERR_INVALID, "expected the dataset %s/%s, found %s", gpath, name,
                kind_name(c, k));
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  if (d < 0)
    return fail(c, SLV_ERR_INVALID, "expected %s/%s to open, found a damaged dataset", gpath, name);
  hid_t sp = H5Dget_space(d), ty = H5Dget_type(d);
  slv_status st = SLV_OK;
  H5S_class_t sc = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
  H5T_class_t tc = ty >= 0 ? H5Tget_class(ty) : H5T_NO_CLASS;
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  const char *want = what == D_INT ? "integers" : what == D_NUM ? "numbers" : "a string";
  int ok_class = what == D_INT   ? tc == H5T_INTEGER
                 : what == D_NUM ? (tc == H5T_INTEGER || tc == H5T_FLOAT)
                                 : (tc == H5T_STRING && H5Tis_variable_str(ty) == 0);
  if (sp < 0 || ty < 0 || np < 0 || rank < 0 || (sc != H5S_SIMPLE && sc != H5S_SCALAR)) {
    st = fail(c, SLV_ERR_INVALID,
              "expected %s/%s to hold %s, found a dataset without a readable "
              "shape",
              gpath, name, want);
  } else if (!ok_class) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %s%s, found HDF5 type class %d", gpath,
              name, want, what == D_STR ? " (fixed length)" : "", (int)tc);
  } else if (what == D_STR && (np != 1 || rank > 1)) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/%s to hold one string, found %lld elements", gpath,
              name, (long long)np);
  } else if (what != D_STR && (H5Tget_size(ty) < 1 || H5Tget_size(ty) > 16)) {
    /* HDF5's numbers take 1 to 16 bytes; HDF5 converts a damaged type of
     * gigabytes per element through a buffer of that size */
    st = fail(c, SLV_ERR_INVALID,
              "expected %s/%s to hold %s of 1 to 16 bytes, found %zu-byte "
              "elements",
              gpath, name, want, H5Tget_size(ty));
  } else {
    /* read it once, as libfclib will (same memory type), so that a damaged
     * dataset fails here and not in libfclib (which would exit); HDF5
     * converts through elements of the larger of the two sizes */
    size_t esz = what == D_INT ? sizeof(int) : what == D_NUM ? sizeof(double) : H5Tget_size(ty);
    if (H5Tget_size(ty) > esz) esz = H5Tget_size(ty);
    double bytes = (double)np * (double)esz, mem = c->mem;
    if ((st = check_storage(c, d, gpath, name, np, H5Tget_size(ty)))) {
      /* message set */
    } else if (bytes > c->budget) {
      st = fail(c, SLV_ERR_DIM,
                "expected sizes that the file can back, found %s/%s declaring "
                "%.0f bytes (the limit is 64 x the file size + 16 MiB)",
                gpath, name, bytes);
    } else if ((st = io_reserve(c->path, &mem, c->cap, bytes, c->err, c->errlen, "%s/%s", gpath,
                                name))) {
      /* refused before the test read; when it passes, mem is not kept: the
       * dataset is counted once, by spend, as libfclib's copy */
    } else {
      void *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
      hid_t mt = what == D_INT ? H5T_NATIVE_INT : what == D_NUM ? H5T_NATIVE_DOUBLE : ty;
      if (!buf)
        st = fail(c, SLV_ERR_NOMEM, "out of memory reading %s/%s", gpath, name);
      else if (np > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        st = fail(c, SLV_ERR_INVALID, "expected %s/%s to be readable, found a damaged dataset",
                  gpath, name);
      free(buf);
    }
  }
  *npts = (long)np;
  if (ty >= 0) H5Tclose(ty);
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return st;
}

/* A required integer scalar (exactly one element). */
static slv_status read_int(fc_ctx *c, hid_t loc, const char *gpath, const char *name, int *v) {
  long np;
  slv_status st = check_ds(c, loc, gpath, name, D_INT, 1, &np, NULL);
  if (st) return st;
  if (np != 1)
    return fail(c, SLV_ERR_INVALID, "expected %s/%s to hold one integer, found %ld", gpath, name,
                np);
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  herr_t e = H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  if (e < 0)
    return fail(c, SLV_ERR_INVALID, "expected %s/%s to be readable, found a read error", gpath,
                name);
  return SLV_OK;
}

/* Charges bytes against the budget and the memory cap. */
static slv_status spend(fc_ctx *c, const char *what, double bytes) {
  c->budget -= bytes;
  if (c->budget < 0)
    return fail(c, SLV_ERR_DIM,
                "expected sizes that the file can back, found %s declaring %.0f "
                "bytes (the limit is 64 x the file size + 16 MiB)",
                what, bytes);
  return io_reserve(c->path, &c->mem, c->cap, bytes, c->err, c->errlen, "%s", what);
}

/* A numeric vector of exactly want elements (libfclib allocates want). */
static slv_status check_vec(fc_ctx *c, hid_t loc, const char *gpath, const char *name, long want,
                            const char *why) {
  long np;
  slv_status st = check_ds(c, loc, gpath, name, D_NUM, 1, &np, NULL);
  if (st) return st;
  if (np != want)
    return fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %ld values (%s), found %ld", gpath,
                name, want, why, np);
  char w[160];
  snprintf(w, sizeof w, "%s/%s", gpath, name);
  return spend(c, w, 8.0 * (double)want);
}

typedef struct mat_hdr {
  int m, n, nz, nzmax;
  long np, ni, nx; /* element counts of the p, i, x datasets */
} mat_hdr;

/* The matrix group gpath/name as libfclib's read_matrix will read it. */
static slv_status check_matrix(fc_ctx *c, hid_t loc, const char *gpath, const char *name,
                               mat_hdr *h) {
  char g[128];
  hid_t id;
  slv_status st;
  snprintf(g, sizeof g, "%s/%s", gpath, name);
  if ((st = open_group(c, loc, gpath, name, &id))) return st;
  if ((st = read_int(c, id, g, "nzmax", &h->nzmax)) || (st = read_int(c, id, g, "m", &h->m)) ||
      (st = read_int(c, id, g, "n", &h->n)) || (st = read_int(c, id, g, "nz", &h->nz)))
    goto done;
  if (h->m < 0 || h->m > IO_MAX_N || h->n < 0 || h->n > IO_MAX_N) {
    st = fail(c, SLV_ERR_DIM, "expected %s/m and n in [0, %d], found %d x %d", g, IO_MAX_N, h->m,
              h->n);
    goto done;
  }
  if (h->nzmax < 0 || h->nzmax > IO_MAX_NNZ) {
    st = fail(c, SLV_ERR_DIM, "expected %s/nzmax in [0, %ld], found %d", g, (long)IO_MAX_NNZ,
              h->nzmax);
    goto done;
  }
  if (h->nz < -2) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/nz >= 0 (triplet), -1 (CSC) or -2 (CSR), found %d",
              g, h->nz);
    goto done;
  }
  if (h->nz > h->nzmax) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/nz <= nzmax = %d (triplet entries), found %d", g,
              h->nzmax, h->nz);
    goto done;
  }
  if ((st = check_ds(c, id, g, "p", D_INT, 1, &h->np, NULL)) ||
      (st = check_ds(c, id, g, "i", D_INT, 1, &h->ni, NULL)) ||
      (st = check_ds(c, id, g, "x", D_NUM, 1, &h->nx, NULL)))
    goto done;
  /* what libfclib allocates for p and i */
  long ap = h->nz >= 0 ? h->nz : h->nz == -1 ? (long)h->n + 1 : (long)h->m + 1;
  long ai = h->nz >= 0 ? h->nz : h->nzmax;
  const char *form = h->nz >= 0 ? "triplet" : h->nz == -1 ? "CSC" : "CSR";
  if (h->np != ap) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/p to hold %ld values (%s, %s), found %ld", g, ap,
              form,
              h->nz >= 0    ? "nz"
              : h->nz == -1 ? "n + 1"
                            : "m + 1",
              h->np);
    goto done;
  }
  if (h->nz >= 0 ? h->ni != ai : h->ni > ai) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/i to hold %s %ld values (%s), found %ld", g,
              h->nz >= 0 ? "exactly" : "at most", ai, h->nz >= 0 ? "nz" : "nzmax", h->ni);
    goto done;
  }
  if (h->nx > h->nzmax || (h->nz >= 0 && h->nx < h->nz)) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/x to hold %s values (nzmax = %d), found %ld", g,
              h->nz >= 0 ? "nz to nzmax" : "at most nzmax", h->nzmax, h->nx);
    goto done;
  }
  if ((st = spend(c, g, 4.0 * (double)(ap + ai) + 8.0 * (double)h->nzmax))) goto done;
  /* the optional matrix info: read by libfclib when "conditioning" exists */
  if (kind_of(c, id, "conditioning") != K_ABSENT) {
    long np;
    int has;
    if ((st = check_ds(c, id, g, "conditioning", D_NUM, 1, &np, NULL))) goto done;
    if (np == 1 && !(st = check_ds(c, id, g, "determinant", D_NUM, 1, &np, NULL)) && np == 1 &&
        !(st = check_ds(c, id, g, "rank", D_INT, 1, &np, NULL)) && np == 1)
      st = check_ds(c, id, g, "comment", D_STR, 0, &np, &has);
    else if (!st)
      st = fail(c, SLV_ERR_INVALID,
                "expected %s/conditioning, determinant and rank to hold one "
                "value each, found %ld",
                g, np);
  }
done:
  H5Gclose(id);
  return st;
}

/* The optional info group: title, description, math_info as strings. */
static slv_status check_info(fc_ctx *c, hid_t loc, const char *gpath) {
  if (kind_of(c, loc, "info") == K_ABSENT) return SLV_OK; /* optional */
  char g[64];
  hid_t id;
  slv_status st;
  snprintf(g, sizeof g, "%s/info", gpath);
  if ((st = open_group(c, loc, gpath, "info", &id))) return st;
  static const char *const names[3] = { "title", "description", "math_info" };
  for (int k = 0; k < 3 && !st; k++) {
    long np;
    int has;
    st = check_ds(c, id, g, names[k], D_STR, 0, &np, &has);
  }
  H5Gclose(id);
  return st;
}

static slv_status check_spacedim(fc_ctx *c, hid_t g, const char *gpath) {
  int d;
  slv_status st = read_int(c, g, gpath, "spacedim", &d);
  if (st) return st;
  if (d == 2)
    return fail(c, SLV_ERR_UNSUPPORTED,
                "expected %s/spacedim = 3, found 2 (2-D frictional "
                "contact is not supported)",
                gpath);
  if (d != 3) return fail(c, SLV_ERR_INVALID, "expected %s/spacedim = 3, found %d", gpath, d);
  return SLV_OK;
}

/* The whole local problem, as fclib_read_local reads it. */
static slv_status check_local(fc_ctx *c, mat_hdr *W) {
  static const char *const G = "/fclib_local";
  hid_t g, v = -1;
  slv_status st = open_group(c, c->file, "", "fclib_local", &g);
  if (st) return st;
  if ((st = check_spacedim(c, g, G))) goto done;
  for (int k = 0; k < 2; k++) {
    const char *name = k ? "R" : "V";
    if (kind_of(c, g, name) != K_ABSENT) {
      st = fail(c, SLV_ERR_UNSUPPORTED,
                "expected no %s/%s, found one: problems with the extra "
                "multipliers lambda (V' r + R lambda + s = 0) are not supported",
                G, name);
      goto done;
    }
  }
  if ((st = check_matrix(c, g, G, "W", W))) goto done;
  if (W->m != W->n || W->m % 3) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/W to be square, 3 nc x 3 nc, found %d x %d", G, W->m,
              W->n);
    goto done;
  }
  if ((st = open_group(c, g, G, "vectors", &v))) goto done;
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
static slv_status check_global(fc_ctx *c, mat_hdr *M, mat_hdr *H) {
  static const char *const G = "/fclib_global";
  hid_t g, v = -1;
  slv_status st = open_group(c, c->file, "", "fclib_global", &g);
  if (st) return st;
  if ((st = check_spacedim(c, g, G))) goto done;
  if (kind_of(c, g, "G") != K_ABSENT) {
    st = fail(c, SLV_ERR_UNSUPPORTED,
              "expected no %s/G, found one: equality constraints "
              "(G' v + b = 0) are not supported",
              G);
    goto done;
  }
  if ((st = check_matrix(c, g, G, "M", M)) || (st = check_matrix(c, g, G, "H", H))) goto done;
  if (M->m != M->n) {
    st = fail(c, SLV_ERR_INVALID, "expected %s/M to be square (ndof x ndof), found %d x %d", G,
              M->m, M->n);
    goto done;
  }
  if (H->m != M->m || H->n % 3) {
    st = fail(c, SLV_ERR_INVALID,
              "expected %s/H to be ndof x 3 nc = %d x (a multiple of 3), "
              "found %d x %d",
              G, M->m, H->m, H->n);
    goto done;
  }
  if ((st = open_group(c, g, G, "vectors", &v))) goto done;
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

/* ---- after libfclib's read: entries, checked ------------------------------------ */

typedef struct trip {
  long nnz;
  int *row, *col;
  double *val;
} trip;

static void trip_free(trip *t) {
  free(t->row);
  free(t->col);
  free(t->val);
  t->row = t->col = NULL;
  t->val = NULL;
}

/* The entries of an fclib matrix (read as declared by h) as triplets, every
 * index checked against m x n and every value for finiteness. */
static slv_status entries(fc_ctx *c, const char *g, const struct fclib_matrix *a, const mat_hdr *h,
                          trip *t) {
  long nnz;
  memset(t, 0, sizeof *t);
  if (a->nz >= 0) {
    nnz = a->nz;
  } else {
    int outer = a->nz == -1 ? a->n : a->m;
    if (a->p[0] != 0) return fail(c, SLV_ERR_INVALID, "expected %s/p[0] = 0, found %d", g, a->p[0]);
    for (int k = 0; k < outer; k++)
      if (a->p[k + 1] < a->p[k])
        return fail(c, SLV_ERR_INVALID,
                    "expected %s/p non-decreasing, found p[%d] = %d < p[%d] "
                    "= %d",
                    g, k + 1, a->p[k + 1], k, a->p[k]);
    nnz = a->p[outer];
    long have = h->ni < h->nx ? h->ni : h->nx;
    if (nnz > have)
      return fail(c, SLV_ERR_INVALID,
                  "expected %s/p[%d] (the number of entries) <= %ld, the "
                  "length of i and x, found %ld",
                  g, outer, have, nnz);
  }
  size_t cnt = nnz ? (size_t)nnz : 1;
  t->row = malloc(cnt * sizeof(int));
  t->col = malloc(cnt * sizeof(int));
  t->val = malloc(cnt * sizeof(double));
  if (!t->row || !t->col || !t->val) {
    trip_free(t);
    return fail(c, SLV_ERR_NOMEM, "out of memory for the %ld entries of %s", nnz, g);
  }
  t->nnz = nnz;
  for (long k = 0; k < nnz; k++) {
    int r, q;
    if (a->nz >= 0) {
      r = a->i[k];
      q = a->p[k];
    } else {
      r = q = a->i[k];
    }
    t->val[k] = a->x[k];
    t->row[k] = r;
    t->col[k] = q;
  }
  if (a->nz < 0) { /* the outer index from the pointers */
    int outer = a->nz == -1 ? a->n : a->m;
    for (int o = 0; o < outer; o++)
      for (int k = a->p[o]; k < a->p[o + 1]; k++) {
        if (a->nz == -1)
          t->col[k] = o;
        else
          t->row[k] = o;
      }
  }
  for (long k = 0; k < nnz; k++) {
    const char *bad = NULL;
    int v = 0, lim = 0;
    if (t->row[k] < 0 || t->row[k] >= a->m) {
      bad = "row";
      v = t->row[k];
      lim = a->m;
    } else if (t->col[k] < 0 || t->col[k] >= a->n) {
      bad = "column";
      v = t->col[k];
      lim = a->n;
    }
    if (bad) {
      /* the dataset that holds this index */
      const char *ds = a->nz >= 0 ? (bad[0] == 'r' ? "i" : "p") : "i";
      slv_status st = fail(c, SLV_ERR_INVALID,
                           "expected a %s index in [0, %d) in %s/%s[%ld], "
                           "found %d",
                           bad, lim, g, ds, k, v);
      trip_free(t);
      return st;
    }
    if (!isfinite(t->val[k])) {
      slv_status st = fail(c, SLV_ERR_INVALID, "expected a finite number in %s/x[%ld], found %g", g,
                           k, t->val[k]);
      trip_free(t);
      return st;
    }
  }
  return SLV_OK;
}

static slv_status check_finite(fc_ctx *c, const char *name, const double *v, int n, int nonneg) {
  for (int k = 0; k < n; k++)
    if (!isfinite(v[k]) || (nonneg && v[k] < 0))
      return fail(c, SLV_ERR_INVALID, "expected %s%s, found %s[%d] = %g",
                  nonneg ? "mu >= 0 in " : "finite values in ", name, name, k, v[k]);
  return SLV_OK;
}

/* A new instance of n = 3 nc rows with A from the triplets (CSR, then dense
 * when small), b = q, cones mu. */
static slv_status make_instance(fc_ctx *c, int n, const trip *t, const double *q, const double *mu,
                                io_instance **out) {
  io_instance *inst = io_instance_alloc(n);
  slv_status st = inst ? SLV_OK : SLV_ERR_NOMEM;
  if (!st) st = io_csr_from_triplets(inst, t->nnz, t->row, t->col, t->val);
  if (!st) st = io_fc_densify(inst);
  if (!st) st = io_set_fc3d_cones(inst, n / 3, mu);
  if (st) {
    io_instance_free(inst);
    return fail(c, st, "out of memory for the problem (n = %d)", n);
  }
  memcpy(inst->b, q, (size_t)n * sizeof(double));
  *out = inst;
  return SLV_OK;
}

/* What lcplab allocates beside libfclib's copy (spend): the entries as
 * triplets, then the instance (CSR, and the dense copy up to
 * IO_FC_DENSE_MAX rows), at most nzmax entries. */
static slv_status reserve_instance(fc_ctx *c, const char *what, int n, double nzmax) {
  double bytes = 16.0 * nzmax + io_instance_bytes(n, n <= IO_FC_DENSE_MAX) + 16.0 * nzmax +
                 12.0 * (n + 1.0) + 12.0 * (n / 3 + 1.0);
  return io_reserve(c->path, &c->mem, c->cap, bytes, c->err, c->errlen,
                    "%s: the problem, 3 nc = %d rows, at most %.0f entries", what, n, nzmax);
}

/* W's entries are finite, but duplicates add up (README 2.3), and when W is
 * kept dense (n <= IO_FC_DENSE_MAX) their sum may overflow. */
static slv_status check_dense_sums(fc_ctx *c, const io_instance *inst) {
  if (inst->storage != SLV_DENSE) return SLV_OK;
  size_t n = (size_t)inst->n;
  for (size_t e = 0; e < n * n; e++)
    if (!isfinite(inst->A[e]))
      return fail(c, SLV_ERR_INVALID,
                  "expected the entries of /fclib_local/W to add up to finite "
                  "values, found W(%d,%d) = %g from duplicate entries",
                  (int)(e % n), (int)(e / n), inst->A[e]);
  return SLV_OK;
}

static slv_status read_local(fc_ctx *c, const char *lib_path, const mat_hdr *h, io_instance **out) {
  slv_status st = reserve_instance(c, "/fclib_local/W", h->m, (double)h->nzmax);
  if (st) return st;
  struct fclib_local *p = fclib_read_local(lib_path);
  if (!p)
    return fail(c, SLV_ERR_INVALID, "expected libfclib to read /fclib_local, found it refused");
  trip t;
  st = entries(c, "/fclib_local/W", p->W, h, &t);
  int n = p->W->m;
  if (!st) st = check_finite(c, "/fclib_local/vectors/q", p->q, n, 0);
  if (!st) st = check_finite(c, "/fclib_local/vectors/mu", p->mu, n / 3, 1);
  if (!st) st = make_instance(c, n, &t, p->q, p->mu, out);
  if (!st && (st = check_dense_sums(c, *out))) {
    io_instance_free(*out);
    *out = NULL;
  }
  trip_free(&t);
  fclib_delete_local(p);
  free(p); /* fclib_delete_local frees the members, not the struct (3.1) */
  return st;
}

/* ---- global: condensation (io_global.c, libsolvers' slv_condense) --------------- */

/* The global problem of libfclib's p as an io_global (M, H as CSR, M
 * mirrored when stored as one triangle); M and H's triplets are freed. */
static slv_status global_of(fc_ctx *c, const struct fclib_global *p, trip *M, trip *H, int ndof,
                            int m, io_global **out) {
  io_global *g = io_global_alloc(ndof, m);
  slv_status st = g ? SLV_OK : SLV_ERR_NOMEM;
  if (!st) st = io_csr_build(ndof, M->nnz, M->row, M->col, M->val, &g->Mp, &g->Mj, &g->Mx);
  trip_free(M);
  if (!st) st = io_csr_build(ndof, H->nnz, H->row, H->col, H->val, &g->Hp, &g->Hj, &g->Hx);
  trip_free(H);
  if (!st && io_global_mirror(g) < 0) st = SLV_ERR_NOMEM;
  if (st) {
    io_global_free(g);
    return fail(c, st, "out of memory for /fclib_global/M and H (ndof = %d)", ndof);
  }
  memcpy(g->f, p->f, (size_t)ndof * sizeof(double));
  memcpy(g->w, p->w, (size_t)m * sizeof(double));
  *out = g;
  return SLV_OK;
}

static slv_status read_global(fc_ctx *c, const char *lib_path, const mat_hdr *hm, const mat_hdr *hh,
                              io_instance **out) {
  int m = hh->n, nd = hm->m;
  /* beside libfclib's copy: M and H as triplets, then as CSR (M perhaps
   * mirrored: twice its entries), f, w, mu; W is counted by slv_condense
   * against what is left of the cap */
  double nz = (double)hm->nzmax + (double)hh->nzmax;
  double bytes = 16.0 * nz + 12.0 * (nz + (double)hm->nzmax) + 8.0 * (nd + 2.0) +
                 io_instance_bytes(m, 0) + 12.0 * (m / 3 + 1.0) + 8.0 * (nd + m);
  slv_status st = io_reserve(c->path, &c->mem, c->cap, bytes, c->err, c->errlen,
                             "/fclib_global: M, H, f, w (ndof = %d, 3 nc = %d)", nd, m);
  if (st) return st;
  struct fclib_global *p = fclib_read_global(lib_path);
  if (!p)
    return fail(c, SLV_ERR_INVALID, "expected libfclib to read /fclib_global, found it refused");
  trip M, H;
  io_global *g = NULL;
  st = entries(c, "/fclib_global/M", p->M, hm, &M);
  if (!st && (st = entries(c, "/fclib_global/H", p->H, hh, &H))) trip_free(&M);
  if (st) goto done;
  if (!(st = check_finite(c, "/fclib_global/vectors/f", p->f, nd, 0)) &&
      !(st = check_finite(c, "/fclib_global/vectors/w", p->w, m, 0)))
    st = check_finite(c, "/fclib_global/vectors/mu", p->mu, m / 3, 1);
  if (st) {
    trip_free(&M);
    trip_free(&H);
    goto done;
  }
  if (!(st = global_of(c, p, &M, &H, nd, m, &g))) {
    st = io_global_instance(g, p->mu, c->cap, c->mem, c->path, "/fclib_global/M", c->err, c->errlen,
                            out);
  }
done:
  fclib_delete_global(p);
  free(p); /* fclib_delete_global frees the members, not the struct (3.1) */
  return st;
}

/* ---- reading: entry ------------------------------------------------------------- */

/* The file's first bytes (got of them, of a file of size bytes) HDF5's?
 * The signature may also follow a user block: then HDF5 decides. */
static slv_status check_head(fc_ctx *c, const char *head, size_t got, double size) {
  if (got < 8)
    return fail(c, SLV_ERR_INVALID, "expected an HDF5 file (FCLIB), found %zu bytes", got);
  if (!io_is_hdf5_bytes(head, got) && size < 512)
    return fail(c, SLV_ERR_INVALID,
                "expected an HDF5 file (FCLIB), found other data (no HDF5 "
                "signature)");
  return SLV_OK;
}

/* libfclib opens paths only: for an image, a temporary file holding its
 * bytes (*tmp = 1: the caller removes it), in /dev/shm (memory) when it is
 * a writable directory, else in /tmp; for a file, the file itself.  (A
 * memfd would stay in memory, but HDF5 resolves the /proc/self/fd/N link
 * with realpath, and the link of a memfd names no file: H5Fopen fails.)
 * *lib_path gets the one to give libfclib. */
static slv_status lib_path_of(fc_ctx *c, char *buf, size_t len, const char **lib_path, int *tmp) {
  *tmp = 0;
  *lib_path = c->path;
  if (!c->image) return SLV_OK;
  snprintf(buf, len, "%s/lcplab-fclib-XXXXXX",
           access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp");
  int fd = mkstemp(buf);
  const char *p = c->image;
  size_t left = c->image_len;
  while (fd >= 0 && left > 0) {
    ssize_t k = write(fd, p, left);
    if (k <= 0) break;
    p += k;
    left -= (size_t)k;
  }
  int e = errno;
  if (fd >= 0 && close(fd) == 0 && left == 0) {
    *lib_path = buf;
    *tmp = 1;
    return SLV_OK;
  }
  if (fd >= 0) remove(buf);
  return fail(c, SLV_ERR_INVALID, "expected a temporary file %s for libfclib, found: %s", buf,
              strerror(e ? e : EIO));
}

/* Checks the open file (c->file, closed here) and reads it with libfclib. */
static slv_status read_open(fc_ctx *c, io_instance **out) {
  mat_hdr W, M, H;
  slv_status st;
  int local = 0;
  if (kind_of(c, c->file, "fclib_local") != K_ABSENT) {
    local = 1;
    st = check_local(c, &W);
  } else if (kind_of(c, c->file, "fclib_global") != K_ABSENT) {
    st = check_global(c, &M, &H);
  } else {
    int rolling = kind_of(c, c->file, "fclib_global_rolling") != K_ABSENT;
    st = rolling ? fail(c, SLV_ERR_UNSUPPORTED,
                        "expected /fclib_local or /fclib_global, found "
                        "/fclib_global_rolling (rolling friction is not supported)")
                 : fail(c, SLV_ERR_INVALID,
                        "expected the group /fclib_local or /fclib_global, "
                        "found neither");
  }
  close_file(c);
  if (st) return st;
  char buf[64];
  const char *lib_path;
  int tmp;
  if ((st = lib_path_of(c, buf, sizeof buf, &lib_path, &tmp))) return st;
  st = local ? read_local(c, lib_path, &W, out) : read_global(c, lib_path, &M, &H, out);
  if (tmp) remove(buf);
  return st;
}

slv_status io_read_fclib(const io_req *rq, io_instance **out) {
  const char *path = rq->path;
  char *err = rq->err;
  size_t errlen = rq->errlen;
  fc_ctx c = {
    .path = path, .err = err, .errlen = errlen, .file = -1, .cap = (double)rq->max_memory
  };
  *out = NULL;
  /* readable?  its first bytes HDF5's? (plain stdio: clear messages) */
  errno = 0;
  FILE *f = fopen(path, "rb");
  struct stat sb;
  if (!f || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    int e = errno;
    if (f) fclose(f);
    io_msgf(err, errlen, "%s: expected a readable file, found: %s", path,
            e ? strerror(e) : "not a regular file");
    return SLV_ERR_INVALID;
  }
  char head[8];
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  slv_status st = check_head(&c, head, got, (double)sb.st_size);
  if (st) return st;
  c.budget = 64.0 * (double)sb.st_size + 16.0 * 1048576.0;
  h5quiet hq;
  quiet_on(&hq);
  st = open_file(&c, path, H5P_DEFAULT, (uint64_t)sb.st_size);
  if (!st) st = read_open(&c, out);
  quiet_off(&hq);
  return st;
}

slv_status io_read_fclib_image(const void *image, size_t len, const io_req *rq, io_instance **out) {
  fc_ctx c = { .path = rq->path,
               .err = rq->err,
               .errlen = rq->errlen,
               .file = -1,
               .cap = (double)rq->max_memory,
               .image = image,
               .image_len = len };
  *out = NULL;
  io_msgf(rq->err, rq->errlen, "%s", "");
  slv_status st = check_head(&c, image, len, (double)len);
  if (st) return st;
  c.budget = 64.0 * (double)len + 16.0 * 1048576.0;
  h5quiet hq;
  quiet_on(&hq);
  /* the core driver on a copy of the image, no backing store */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 ||
      H5Pset_file_image(fapl, (void *)(uintptr_t)image, len) < 0) {
    st = fail(&c, SLV_ERR_NOMEM, "expected HDF5 to take the file image, found it refused");
  } else {
    /* with an image, the core driver opens no file but refuses a name
     * that exists: this one cannot (/dev/null is not a directory) */
    st = open_file(&c, "/dev/null/lcplab-fclib-image", fapl, len);
    if (!st) st = read_open(&c, out);
  }
  if (fapl >= 0) H5Pclose(fapl);
  quiet_off(&hq);
  if (!st) {
    slv_problem p = io_instance_problem(*out);
    char msg[256];
    if ((st = slv_problem_validate(&p, msg, sizeof msg))) {
      fail(&c, st, "%s", msg);
      io_instance_free(*out);
      *out = NULL;
    } else {
      (*out)->format = IO_FMT_FCLIB;
      io_instance_classify(*out);
    }
  }
  return st;
}

/* ---- writing -------------------------------------------------------------------- */

/* An FCLIB file is built in memory (HDF5's core driver, no backing store)
 * with plain HDF5 calls, in the layout libfclib 3.1 writes, and its bytes
 * are then written to disk here: HDF5 never touches the disk, so a full
 * disk is a failing write(2) reported by us, never libfclib's exit
 * (issue 48, case 7; docs/formats.md, "FCLIB"). */
typedef struct fc_out {
  hid_t file;
  const char *path; /* the name in messages */
  char *err;
  size_t errlen;
  slv_status st; /* the first failure; every later call then does nothing */
} fc_out;

/* A sparse matrix as FCLIB stores it (nz = -2 CSR, nz >= 0 triplet). */
typedef struct fc_mat {
  int m, n, nz, nzmax;
  const int *p, *i;
  const double *x;
} fc_mat;

static void out_fail(fc_out *o, slv_status st, const char *why) {
  if (o->st) return;
  o->st = st;
  io_msgf(o->err, o->errlen, "%s: cannot write: %s", o->path, why);
}

static void out_hdf5(fc_out *o, herr_t e, const char *what) {
  char m[96];
  if (e >= 0) return;
  snprintf(m, sizeof m, "HDF5 failed to make %s in memory", what);
  out_fail(o, SLV_ERR_INVALID, m);
}

/* A new dataset name of type t and space s, its space allocated late as on
 * a file on disk (the core driver's default is early: the same data, one
 * flag different in every dataset's header). */
static hid_t out_dataset(hid_t loc, const char *name, hid_t t, hid_t s) {
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  herr_t e = dcpl >= 0 ? H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE) : -1;
  hid_t d = e >= 0 ? H5Dcreate2(loc, name, t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
  if (dcpl >= 0) H5Pclose(dcpl);
  return d;
}

/* The 1-D dataset name of n elements of type t (H5LTmake_dataset_int /
 * _double, as libfclib writes them: contiguous, native type). */
static void out_array(fc_out *o, hid_t loc, const char *name, hid_t t, size_t n, const void *v) {
  if (o->st) return;
  hsize_t dim = (hsize_t)n;
  hid_t s = H5Screate_simple(1, &dim, NULL);
  hid_t d = s >= 0 ? out_dataset(loc, name, t, s) : -1;
  herr_t e = d >= 0 ? 0 : -1;
  if (d >= 0 && n > 0) e = H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  if (d >= 0) H5Dclose(d);
  if (s >= 0) H5Sclose(s);
  out_hdf5(o, e, name);
}

static void out_int(fc_out *o, hid_t loc, const char *name, int v) {
  out_array(o, loc, name, H5T_NATIVE_INT, 1, &v);
}

/* A scalar fixed-length, NUL-terminated string (H5LTmake_dataset_string). */
static void out_string(fc_out *o, hid_t loc, const char *name, const char *str) {
  if (o->st) return;
  hid_t t = H5Tcopy(H5T_C_S1);
  hid_t s = H5Screate(H5S_SCALAR);
  herr_t e = t >= 0 && s >= 0 ? H5Tset_size(t, strlen(str) + 1) : -1;
  hid_t d = e >= 0 ? out_dataset(loc, name, t, s) : -1;
  e = d >= 0 ? H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, str) : -1;
  if (d >= 0) H5Dclose(d);
  if (s >= 0) H5Sclose(s);
  if (t >= 0) H5Tclose(t);
  out_hdf5(o, e, name);
}

/* A new group name in loc; -1 after a failure. */
static hid_t out_group(fc_out *o, hid_t loc, const char *name) {
  if (o->st) return -1;
  hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  out_hdf5(o, g, name);
  return g;
}

static void out_close_group(hid_t g) {
  if (g >= 0) H5Gclose(g);
}

/* The group name holding A: nzmax, m, n, nz, p, i, x (libfclib's
 * write_matrix, in its order). */
static void out_matrix(fc_out *o, hid_t loc, const char *name, const fc_mat *A) {
  hid_t g = out_group(o, loc, name);
  size_t np = A->nz >= 0 ? (size_t)A->nz : (size_t)A->m + 1;
  size_t ni = A->nz >= 0 ? (size_t)A->nz : (size_t)A->nzmax;
  out_int(o, g, "nzmax", A->nzmax);
  out_int(o, g, "m", A->m);
  out_int(o, g, "n", A->n);
  out_int(o, g, "nz", A->nz);
  out_array(o, g, "p", H5T_NATIVE_INT, np, A->p);
  out_array(o, g, "i", H5T_NATIVE_INT, ni, A->i);
  out_array(o, g, "x", H5T_NATIVE_DOUBLE, ni, A->x);
  out_close_group(g);
}

/* The group info: title (the instance's name) and description. */
static void out_info(fc_out *o, hid_t loc, const io_instance *inst, const char *what) {
  char title[sizeof inst->name + 8], desc[200];
  snprintf(title, sizeof title, "%s", inst->name[0] ? inst->name : "lcplab");
  snprintf(desc, sizeof desc, "written by lcplab (libsolvers %s): %s, %d contacts", SLV_VERSION,
           what, inst->ncones);
  hid_t g = out_group(o, loc, "info");
  out_string(o, g, "title", title);
  out_string(o, g, "description", desc);
  out_close_group(g);
}

/* A new file in memory (core driver, no backing store). */
static void out_open(fc_out *o) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  herr_t e = fapl >= 0 ? H5Pset_fapl_core(fapl, 1 << 20, 0) : -1;
  o->file = e >= 0 ? H5Fcreate("lcplab-fclib", H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : -1;
  if (fapl >= 0) H5Pclose(fapl);
  out_hdf5(o, o->file, "the file");
}

/* The bytes of the file in memory (malloc'ed into *buf); closes it. */
static void out_image(fc_out *o, void **buf, size_t *len) {
  *buf = NULL;
  *len = 0;
  if (o->file < 0) return;
  ssize_t n = -1;
  if (!o->st && H5Fflush(o->file, H5F_SCOPE_GLOBAL) >= 0) n = H5Fget_file_image(o->file, NULL, 0);
  if (n > 0 && !(*buf = malloc((size_t)n))) {
    out_fail(o, SLV_ERR_NOMEM, "out of memory for the file's image");
  } else if (n > 0 && H5Fget_file_image(o->file, *buf, (size_t)n) == n) {
    *len = (size_t)n;
  } else {
    out_hdf5(o, -1, "the file's image");
  }
  if (H5Fclose(o->file) < 0) out_hdf5(o, -1, "the file (close)");
  o->file = -1;
}

/* A fresh name beside path (path.XXXXXX, not existing): the file is
 * written there and renamed over path once complete. */
static slv_status fresh_name(const char *path, char **tmp, char *err, size_t errlen) {
  *tmp = malloc(strlen(path) + 16);
  if (!*tmp) {
    io_msgf(err, errlen, "%s: out of memory writing fclib", path);
    return SLV_ERR_NOMEM;
  }
  sprintf(*tmp, "%s.XXXXXX", path);
  errno = 0;
  int fd = mkstemp(*tmp);
  if (fd < 0) {
    io_msgf(err, errlen, "%s: cannot write: %s", path, errno ? strerror(errno) : "mkstemp failed");
    return SLV_ERR_INVALID;
  }
  close(fd);
  remove(*tmp);
  return SLV_OK;
}

/* Renames the complete tmp over path (tmp removed on failure). */
static slv_status publish(const char *tmp, const char *path, char *err, size_t errlen) {
  errno = 0;
  if (rename(tmp, path) == 0) return SLV_OK;
  int e = errno;
  remove(tmp);
  io_msgf(err, errlen, "%s: cannot write: %s", path, e ? strerror(e) : "rename failed");
  return SLV_ERR_INVALID;
}

/* len bytes into the new file tmp (mode 0666 less the umask, as H5Fcreate
 * makes it), synced; errno of the first failure, else 0. */
static int write_bytes(const char *tmp, const void *buf, size_t len) {
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno ? errno : EIO;
  int e = 0;
  for (size_t at = 0; at < len && !e;) {
    ssize_t k = write(fd, (const char *)buf + at, len - at);
    if (k > 0)
      at += (size_t)k;
    else if (k == 0)
      e = EIO;
    else if (errno != EINTR)
      e = errno;
  }
  if (!e && fsync(fd) != 0) e = errno;
  if (close(fd) != 0 && !e) e = errno;
  return e;
}

/* The file in memory to path: closed, written beside path, renamed over it.
 * Nothing is left beside path on failure, and path is untouched. */
static slv_status out_finish(fc_out *o) {
  void *buf;
  size_t len;
  out_image(o, &buf, &len);
  char *tmp = NULL;
  if (!o->st) o->st = fresh_name(o->path, &tmp, o->err, o->errlen);
  if (!o->st) {
    int e = write_bytes(tmp, buf, len);
    if (e) {
      remove(tmp);
      out_fail(o, SLV_ERR_INVALID, strerror(e));
    } else {
      o->st = publish(tmp, o->path, o->err, o->errlen);
    }
  }
  free(tmp);
  free(buf);
  return o->st;
}

/* W of inst as CSR (nz = -2): a CSR instance as it is, a dense one by its
 * entries that are not +0.0 (so -0.0 survives), row by row.  The arrays are
 * malloc'ed into *p, *j, *x. */
static slv_status csr_of(const io_instance *inst, fc_mat *W, int **p, int **j, double **x,
                         char *err, size_t errlen, const char *path) {
  int n = inst->n;
  long nnz = 0;
  if (inst->storage == SLV_CSR) {
    nnz = inst->Ap[n];
  } else {
    for (size_t e = 0; e < (size_t)n * (size_t)n; e++) nnz += !io_is_pos_zero(inst->A[e]);
  }
  *p = NULL;
  *j = NULL;
  *x = NULL;
  if (nnz > INT_MAX) {
    io_msgf(err, errlen, "%s: fclib stores at most %d entries, found %ld", path, INT_MAX, nnz);
    return SLV_ERR_DIM;
  }
  *p = malloc(((size_t)n + 1) * sizeof(int));
  *j = malloc(((size_t)nnz + 1) * sizeof(int));
  *x = malloc(((size_t)nnz + 1) * sizeof(double));
  if (!*p || !*j || !*x) {
    io_msgf(err, errlen, "%s: out of memory writing fclib", path);
    return SLV_ERR_NOMEM;
  }
  *W = (fc_mat){ n, n, -2, (int)nnz, *p, *j, *x };
  if (inst->storage == SLV_CSR) {
    memcpy(*p, inst->Ap, ((size_t)n + 1) * sizeof(int));
    memcpy(*j, inst->Aj, (size_t)nnz * sizeof(int));
    memcpy(*x, inst->Ax, (size_t)nnz * sizeof(double));
    return SLV_OK;
  }
  int k = 0;
  (*p)[0] = 0;
  for (int i = 0; i < n; i++) {
    for (int c = 0; c < n; c++) {
      double v = inst->A[(size_t)i + (size_t)c * (size_t)n];
      if (io_is_pos_zero(v)) continue;
      (*j)[k] = c;
      (*x)[k++] = v;
    }
    (*p)[i + 1] = k;
  }
  return SLV_OK;
}

/* /fclib_local of inst (libfclib's fclib_write_local): spacedim, W, vectors
 * q and mu, info. */
static void out_local(fc_out *o, const io_instance *inst) {
  fc_mat W = { 0 };
  int *p, *j;
  double *x;
  slv_status st = csr_of(inst, &W, &p, &j, &x, o->err, o->errlen, o->path);
  if (st && !o->st) o->st = st;
  hid_t g = out_group(o, o->file, "fclib_local");
  out_int(o, g, "spacedim", 3);
  if (!o->st) out_matrix(o, g, "W", &W);
  hid_t v = out_group(o, g, "vectors");
  out_array(o, v, "q", H5T_NATIVE_DOUBLE, (size_t)inst->n, inst->b);
  out_array(o, v, "mu", H5T_NATIVE_DOUBLE, (size_t)inst->ncones, inst->cone_mu);
  out_close_group(v);
  out_info(o, g, inst, "local FC3D problem u = W r + q, Coulomb's law with De Saxce's shift");
  out_close_group(g);
  free(p);
  free(j);
  free(x);
}

/* CSR rows (p, j, x; m rows, n columns) as an FCLIB triplet (nz >= 0: i =
 * row, p = column, as Siconos writes global problems); the row indices are
 * malloc'ed into *rows. */
static void triplet_of(fc_out *o, int m, int n, const int *p, const int *j, const double *x,
                       fc_mat *T, int **rows) {
  int nnz = p[m];
  *rows = malloc(((size_t)nnz + 1) * sizeof(int));
  if (!*rows) {
    out_fail(o, SLV_ERR_NOMEM, "out of memory for a global matrix");
    return;
  }
  for (int r = 0; r < m; r++)
    for (int k = p[r]; k < p[r + 1]; k++) (*rows)[k] = r;
  *T = (fc_mat){ m, n, nnz, nnz, j, *rows, x };
}

/* /fclib_global of inst->global with inst's mu (fclib_write_global):
 * spacedim, M and H (triplets), vectors f, w, mu, info. */
static void out_global(fc_out *o, const io_instance *inst) {
  const io_global *G = inst->global;
  fc_mat M = { 0 }, H = { 0 };
  int *mrow = NULL, *hrow = NULL;
  triplet_of(o, G->ndof, G->ndof, G->Mp, G->Mj, G->Mx, &M, &mrow);
  triplet_of(o, G->ndof, G->n, G->Hp, G->Hj, G->Hx, &H, &hrow);
  hid_t g = out_group(o, o->file, "fclib_global");
  out_int(o, g, "spacedim", 3);
  if (!o->st) out_matrix(o, g, "M", &M);
  if (!o->st) out_matrix(o, g, "H", &H);
  hid_t v = out_group(o, g, "vectors");
  out_array(o, v, "f", H5T_NATIVE_DOUBLE, (size_t)G->ndof, G->f);
  out_array(o, v, "w", H5T_NATIVE_DOUBLE, (size_t)G->n, G->w);
  out_array(o, v, "mu", H5T_NATIVE_DOUBLE, (size_t)inst->ncones, inst->cone_mu);
  out_close_group(v);
  out_info(o, g, inst, "global FC3D problem M v = H r + f, u = H' v + w, Coulomb's law");
  out_close_group(g);
  free(mrow);
  free(hrow);
}

slv_status io_write_fclib(const io_req *rq, const io_instance *inst) {
  fc_out o = { .file = -1, .path = rq->path, .err = rq->err, .errlen = rq->errlen };
  if (inst->global && inst->global->n != inst->n) {
    io_msgf(rq->err, rq->errlen, "%s: the global problem has %d columns of H, the instance %d rows",
            rq->path, inst->global->n, inst->n);
    return SLV_ERR_INVALID;
  }
  h5quiet hq;
  quiet_on(&hq);
  out_open(&o);
  if (inst->global)
    out_global(&o, inst);
  else
    out_local(&o, inst);
  slv_status st = out_finish(&o);
  quiet_off(&hq);
  return st;
}

/* ---- solutions and guesses ----------------------------------------------------- */

/* The group name holding u = A r + b and r (libfclib's write_solution of a
 * local problem: u, then r); u is scratch of n. */
static void out_answer(fc_out *o, hid_t loc, const char *name, const io_instance *inst,
                       const double *r, double *u) {
  slv_problem p = io_instance_problem(inst);
  slv_problem_w(&p, r, u);
  hid_t g = out_group(o, loc, name);
  out_array(o, g, "u", H5T_NATIVE_DOUBLE, (size_t)inst->n, u);
  out_array(o, g, "r", H5T_NATIVE_DOUBLE, (size_t)inst->n, r);
  out_close_group(g);
}

/* The group name holding the answer r of inst's global problem: v = M^-1
 * (H r + f), u = H' v + w (slv_global_velocities) and r, in the order of
 * libfclib's write_solution (v, u, r); v (ndof) and u (n) are scratch. */
static void out_global_answer(fc_out *o, hid_t loc, const char *name, const io_instance *inst,
                              const double *r, double *v, double *u) {
  const io_global *G = inst->global;
  if (o->st) return;
  slv_status st = slv_global_velocities(G->ndof, G->n, G->Mp, G->Mj, G->Mx, G->Hp, G->Hj, G->Hx,
                                        G->f, G->w, r, v, u);
  if (st) {
    out_fail(o, st, "the velocities v = M^-1 (H r + f) of the answer could not be computed");
    return;
  }
  hid_t g = out_group(o, loc, name);
  out_array(o, g, "v", H5T_NATIVE_DOUBLE, (size_t)G->ndof, v);
  out_array(o, g, "u", H5T_NATIVE_DOUBLE, (size_t)G->n, u);
  out_array(o, g, "r", H5T_NATIVE_DOUBLE, (size_t)G->n, r);
  out_close_group(g);
}

/* The group name holding answer r: of the global problem when inst has
 * one, else of the local one. */
static void out_any_answer(fc_out *o, hid_t loc, const char *name, const io_instance *inst,
                           const double *r, double *v, double *u) {
  if (inst->global)
    out_global_answer(o, loc, name, inst, r, v, u);
  else
    out_answer(o, loc, name, inst, r, u);
}

/* /solution (r = x) and, if x0, /guesses with number_of_guesses = 1 and
 * /guesses/1 (r = x0), as fclib_write_solution and fclib_write_guesses. */
static void out_solution(fc_out *o, const io_instance *inst, const double *x, const double *x0) {
  size_t nv = inst->global ? (size_t)inst->global->ndof : 0;
  double *u = malloc((size_t)inst->n * sizeof(double)), *v = malloc((nv + 1) * sizeof(double));
  if (!u || !v) {
    out_fail(o, SLV_ERR_NOMEM, "out of memory for the solution");
  } else {
    out_any_answer(o, o->file, "solution", inst, x, v, u);
    if (x0) {
      hid_t g = out_group(o, o->file, "guesses");
      out_int(o, g, "number_of_guesses", 1);
      out_any_answer(o, g, "1", inst, x0, v, u);
      out_close_group(g);
    }
  }
  free(u);
  free(v);
}

slv_status io_fclib_write_solution(const char *path, const io_instance *inst, const double *x,
                                   const double *x0, char *err, size_t errlen) {
  fc_out o = { .file = -1, .path = path, .err = err, .errlen = errlen };
  h5quiet hq;
  quiet_on(&hq);
  out_open(&o);
  if (inst->global)
    out_global(&o, inst);
  else
    out_local(&o, inst);
  out_solution(&o, inst, x, x0);
  slv_status st = out_finish(&o);
  quiet_off(&hq);
  return st;
}

/* x from the dataset gpath/name when it holds exactly n finite numbers. */
static slv_status read_r(fc_ctx *c, hid_t g, const char *gpath, int n, double *x) {
  long np;
  slv_status st = check_ds(c, g, gpath, "r", D_NUM, 1, &np, NULL);
  if (st) return st;
  if (np != n)
    return fail(c, SLV_ERR_INVALID,
                "expected %s/r to hold n = %d values (the problem solved), "
                "found %ld",
                gpath, n, np);
  hid_t d = H5Dopen2(g, "r", H5P_DEFAULT);
  herr_t e = d >= 0 ? H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) : -1;
  if (d >= 0) H5Dclose(d);
  if (e < 0)
    return fail(c, SLV_ERR_INVALID, "expected %s/r to be readable, found a read error", gpath);
  char name[64];
  snprintf(name, sizeof name, "%s/r", gpath);
  return check_finite(c, name, x, n, 0);
}

/* The group /solution, else /guesses/1, of the open file. */
static slv_status read_start(fc_ctx *c, int n, double *x) {
  hid_t g = -1, gs = -1;
  slv_status st;
  if (kind_of(c, c->file, "solution") == K_GROUP) {
    if ((st = open_group(c, c->file, "", "solution", &g))) return st;
    st = read_r(c, g, "/solution", n, x);
    H5Gclose(g);
    return st;
  }
  if (kind_of(c, c->file, "guesses") != K_GROUP ||
      (gs = H5Gopen2(c->file, "guesses", H5P_DEFAULT)) < 0)
    return fail(c, SLV_ERR_INVALID,
                "expected a starting point in /solution/r or /guesses/1/r "
                "(FCLIB), found neither");
  if (!(st = open_group(c, gs, "/guesses", "1", &g))) {
    st = read_r(c, g, "/guesses/1", n, x);
    H5Gclose(g);
  }
  H5Gclose(gs);
  return st;
}

slv_status io_fclib_read_start(const char *path, int n, double *x, size_t max_memory, char *err,
                               size_t errlen) {
  fc_ctx c = { .path = path, .err = err, .errlen = errlen, .file = -1, .cap = (double)max_memory };
  struct stat sb;
  errno = 0;
  int rc = stat(path, &sb);
  if (rc != 0 || !S_ISREG(sb.st_mode)) {
    io_msgf(err, errlen, "%s: expected a readable file, found: %s", path,
            rc ? strerror(errno) : "not a regular file");
    return SLV_ERR_INVALID;
  }
  c.budget = 64.0 * (double)sb.st_size + 16.0 * 1048576.0;
  h5quiet hq;
  quiet_on(&hq);
  slv_status st;
  st = open_file(&c, path, H5P_DEFAULT, (uint64_t)sb.st_size);
  if (!st) {
    st = read_start(&c, n, x);
    close_file(&c);
  }
  quiet_off(&hq);
  return st;
}
