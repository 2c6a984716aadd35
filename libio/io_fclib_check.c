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


/* A required integer scalar (exactly one element). */
static slv_status read_int(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name, int *v) {
  long np;
  slv_status st = io_hdf5_check_ds(c, loc, gpath, name, IO_HDF5_INT, 1, &np, NULL);
  if (st) return st;
  if (np != 1)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to hold one integer, found %ld", gpath,
                        name, np);
  hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
  herr_t e = H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(d);
  if (e < 0)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to be readable, found a read error",
                        gpath, name);
  return SLV_OK;
}


/* A numeric vector of exactly want elements (libfclib allocates want). */
static slv_status check_vec(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                            long want, const char *why) {
  long np;
  slv_status st = io_hdf5_check_ds(c, loc, gpath, name, IO_HDF5_NUM, 1, &np, NULL);
  if (st) return st;
  if (np != want)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/%s to hold %ld values (%s), found %ld",
                        gpath, name, want, why, np);
  char w[160];
  snprintf(w, sizeof w, "%s/%s", gpath, name);
  return io_hdf5_spend(c, w, 8.0 * (double)want);
}

/* The matrix group gpath/name as libfclib's read_matrix will read it. */
static slv_status check_matrix(io_hdf5_ctx *c, hid_t loc, const char *gpath, const char *name,
                               io_fclib_mat *h) {
  char g[128];
  hid_t id;
  slv_status st;
  snprintf(g, sizeof g, "%s/%s", gpath, name);
  if ((st = io_hdf5_open_group(c, loc, gpath, name, &id))) return st;
  if ((st = read_int(c, id, g, "nzmax", &h->nzmax)) || (st = read_int(c, id, g, "m", &h->m)) ||
      (st = read_int(c, id, g, "n", &h->n)) || (st = read_int(c, id, g, "nz", &h->nz)))
    goto done;
  if (h->m < 0 || h->m > IO_MAX_N || h->n < 0 || h->n > IO_MAX_N) {
    st = io_hdf5_fail(c, SLV_ERR_DIM, "expected %s/m and n in [0, %d], found %d x %d", g, IO_MAX_N,
                      h->m, h->n);
    goto done;
  }
  if (h->nzmax < 0 || h->nzmax > IO_MAX_NNZ) {
    st = io_hdf5_fail(c, SLV_ERR_DIM, "expected %s/nzmax in [0, %ld], found %d", g,
                      (long)IO_MAX_NNZ, h->nzmax);
    goto done;
  }
  if (h->nz < -2) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID,
                      "expected %s/nz >= 0 (triplet), -1 (CSC) or -2 (CSR), found %d", g, h->nz);
    goto done;
  }
  if (h->nz > h->nzmax) {
    st =
        io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/nz <= nzmax = %d (triplet entries), found %d",
                     g, h->nzmax, h->nz);
    goto done;
  }
  if ((st = io_hdf5_check_ds(c, id, g, "p", IO_HDF5_INT, 1, &h->np, NULL)) ||
      (st = io_hdf5_check_ds(c, id, g, "i", IO_HDF5_INT, 1, &h->ni, NULL)) ||
      (st = io_hdf5_check_ds(c, id, g, "x", IO_HDF5_NUM, 1, &h->nx, NULL)))
    goto done;
  /* what libfclib allocates for p and i */
  long ap = h->nz >= 0 ? h->nz : h->nz == -1 ? (long)h->n + 1 : (long)h->m + 1;
  long ai = h->nz >= 0 ? h->nz : h->nzmax;
  const char *form = h->nz >= 0 ? "triplet" : h->nz == -1 ? "CSC" : "CSR";
  if (h->np != ap) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/p to hold %ld values (%s, %s), found %ld", g,
                      ap, form,
                      h->nz >= 0    ? "nz"
                      : h->nz == -1 ? "n + 1"
                                    : "m + 1",
                      h->np);
    goto done;
  }
  if (h->nz >= 0 ? h->ni != ai : h->ni > ai) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/i to hold %s %ld values (%s), found %ld", g,
                      h->nz >= 0 ? "exactly" : "at most", ai, h->nz >= 0 ? "nz" : "nzmax", h->ni);
    goto done;
  }
  if (h->nx > h->nzmax || (h->nz >= 0 && h->nx < h->nz)) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/x to hold %s values (nzmax = %d), found %ld",
                      g, h->nz >= 0 ? "nz to nzmax" : "at most nzmax", h->nzmax, h->nx);
    goto done;
  }
  if ((st = io_hdf5_spend(c, g, 4.0 * (double)(ap + ai) + 8.0 * (double)h->nzmax))) goto done;
  /* the optional matrix info: read by libfclib when "conditioning" exists */
  if (io_hdf5_kind(c, id, "conditioning") != IO_HDF5_ABSENT) {
    long np;
    int has;
    if ((st = io_hdf5_check_ds(c, id, g, "conditioning", IO_HDF5_NUM, 1, &np, NULL))) goto done;
    if (np == 1 && !(st = io_hdf5_check_ds(c, id, g, "determinant", IO_HDF5_NUM, 1, &np, NULL)) &&
        np == 1 && !(st = io_hdf5_check_ds(c, id, g, "rank", IO_HDF5_INT, 1, &np, NULL)) && np == 1)
      st = io_hdf5_check_ds(c, id, g, "comment", IO_HDF5_STR, 0, &np, &has);
    else if (!st)
      st = io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s/conditioning, determinant and rank to hold one "
                        "value each, found %ld",
                        g, np);
  }
done:
  H5Gclose(id);
  return st;
}

/* The optional info group: title, description, math_info as strings. */
static slv_status check_info(io_hdf5_ctx *c, hid_t loc, const char *gpath) {
  if (io_hdf5_kind(c, loc, "info") == IO_HDF5_ABSENT) return SLV_OK; /* optional */
  char g[64];
  hid_t id;
  slv_status st;
  snprintf(g, sizeof g, "%s/info", gpath);
  if ((st = io_hdf5_open_group(c, loc, gpath, "info", &id))) return st;
  static const char *const names[3] = { "title", "description", "math_info" };
  for (int k = 0; k < 3 && !st; k++) {
    long np;
    int has;
    st = io_hdf5_check_ds(c, id, g, names[k], IO_HDF5_STR, 0, &np, &has);
  }
  H5Gclose(id);
  return st;
}

static slv_status check_spacedim(io_hdf5_ctx *c, hid_t g, const char *gpath) {
  int d;
  slv_status st = read_int(c, g, gpath, "spacedim", &d);
  if (st) return st;
  if (d == 2)
    return io_hdf5_fail(c, SLV_ERR_UNSUPPORTED,
                        "expected %s/spacedim = 3, found 2 (2-D frictional "
                        "contact is not supported)",
                        gpath);
  if (d != 3)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/spacedim = 3, found %d", gpath, d);
  return SLV_OK;
}

/* The whole local problem, as fclib_read_local reads it. */
slv_status io_fclib_check_local(io_hdf5_ctx *c, io_fclib_mat *W) {
  static const char *const G = "/fclib_local";
  hid_t g, v = -1;
  slv_status st = io_hdf5_open_group(c, c->file, "", "fclib_local", &g);
  if (st) return st;
  if ((st = check_spacedim(c, g, G))) goto done;
  for (int k = 0; k < 2; k++) {
    const char *name = k ? "R" : "V";
    if (io_hdf5_kind(c, g, name) != IO_HDF5_ABSENT) {
      st = io_hdf5_fail(c, SLV_ERR_UNSUPPORTED,
                        "expected no %s/%s, found one: problems with the extra "
                        "multipliers lambda (V' r + R lambda + s = 0) are not supported",
                        G, name);
      goto done;
    }
  }
  if ((st = check_matrix(c, g, G, "W", W))) goto done;
  if (W->m != W->n || W->m % 3) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/W to be square, 3 nc x 3 nc, found %d x %d",
                      G, W->m, W->n);
    goto done;
  }
  if ((st = io_hdf5_open_group(c, g, G, "vectors", &v))) goto done;
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
slv_status io_fclib_check_global(io_hdf5_ctx *c, io_fclib_mat *M, io_fclib_mat *H) {
  static const char *const G = "/fclib_global";
  hid_t g, v = -1;
  slv_status st = io_hdf5_open_group(c, c->file, "", "fclib_global", &g);
  if (st) return st;
  if ((st = check_spacedim(c, g, G))) goto done;
  if (io_hdf5_kind(c, g, "G") != IO_HDF5_ABSENT) {
    st = io_hdf5_fail(c, SLV_ERR_UNSUPPORTED,
                      "expected no %s/G, found one: equality constraints "
                      "(G' v + b = 0) are not supported",
                      G);
    goto done;
  }
  if ((st = check_matrix(c, g, G, "M", M)) || (st = check_matrix(c, g, G, "H", H))) goto done;
  if (M->m != M->n) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/M to be square (ndof x ndof), found %d x %d",
                      G, M->m, M->n);
    goto done;
  }
  if (H->m != M->m || H->n % 3) {
    st = io_hdf5_fail(c, SLV_ERR_INVALID,
                      "expected %s/H to be ndof x 3 nc = %d x (a multiple of 3), "
                      "found %d x %d",
                      G, M->m, H->m, H->n);
    goto done;
  }
  if ((st = io_hdf5_open_group(c, g, G, "vectors", &v))) goto done;
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
