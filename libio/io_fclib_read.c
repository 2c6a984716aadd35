/* io_fclib_read.c -- FCLIB HDF5 instances (.hdf5, .h5) read through
 * Debian's libfclib, once io_fclib_check.c has checked the file's
 * structure, and starting points from /solution or /guesses (io_fclib.h
 * has the layout).
 *
 * lcplab reads (io_read_fclib) with fclib_read_local / fclib_read_global
 * and maps the problem to w = A x + b with x = r, w = u and one Coulomb
 * cone (SLV_CONE_COULOMB) per contact at rows 3c..3c+2 (io_fc.c):
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
 *            in file order; they add up; global: merged).  spacedim must be
 *            3 (2: unsupported).
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
 * Messages and statuses: io_fclib_check.c.
 */
#define _POSIX_C_SOURCE 200809L

#include "io_fclib.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The number of entries of an fclib matrix: nz for triplets; for CSC / CSR
 * the last pointer, once the pointers are checked (from 0, non-decreasing,
 * within the i and x datasets). */
static slv_status entry_count(io_hdf5_ctx *c, const char *g, const struct fclib_matrix *a,
                              const io_fclib_mat *h, long *nnz) {
  if (a->nz >= 0) {
    *nnz = a->nz;
    return SLV_OK;
  }
  int outer = a->nz == -1 ? a->n : a->m;
  if (a->p[0] != 0)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/p[0] = 0, found %d", g, a->p[0]);
  for (int k = 0; k < outer; k++)
    if (a->p[k + 1] < a->p[k])
      return io_hdf5_fail(c, SLV_ERR_INVALID,
                          "expected %s/p non-decreasing, found p[%d] = %d < p[%d] "
                          "= %d",
                          g, k + 1, a->p[k + 1], k, a->p[k]);
  *nnz = a->p[outer];
  long have = h->ni < h->nx ? h->ni : h->nx;
  if (*nnz > have)
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s/p[%d] (the number of entries) <= %ld, the "
                        "length of i and x, found %ld",
                        g, outer, have, *nnz);
  return SLV_OK;
}

/* a's entries into t's triplets (t->nnz of them): triplets as they are
 * (i = row, p = column), CSC / CSR with the outer index from the
 * pointers. */
static void fill_triplets(const struct fclib_matrix *a, trip *t) {
  for (long k = 0; k < t->nnz; k++) {
    t->val[k] = a->x[k];
    t->row[k] = a->i[k];
    t->col[k] = a->nz >= 0 ? a->p[k] : a->i[k];
  }
  if (a->nz >= 0) return;
  int outer = a->nz == -1 ? a->n : a->m;
  for (int o = 0; o < outer; o++)
    for (int k = a->p[o]; k < a->p[o + 1]; k++) {
      if (a->nz == -1)
        t->col[k] = o;
      else
        t->row[k] = o;
    }
}

/* Every index in [0, m) x [0, n), every value finite; the message names
 * the dataset that holds a bad one. */
static slv_status check_triplets(io_hdf5_ctx *c, const char *g, const struct fclib_matrix *a,
                                 const trip *t) {
  for (long k = 0; k < t->nnz; k++) {
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
      const char *ds = a->nz >= 0 ? (bad[0] == 'r' ? "i" : "p") : "i";
      return io_hdf5_fail(c, SLV_ERR_INVALID,
                          "expected a %s index in [0, %d) in %s/%s[%ld], "
                          "found %d",
                          bad, lim, g, ds, k, v);
    }
    if (!isfinite(t->val[k]))
      return io_hdf5_fail(c, SLV_ERR_INVALID, "expected a finite number in %s/x[%ld], found %g", g,
                          k, t->val[k]);
  }
  return SLV_OK;
}

/* The entries of an fclib matrix (read as declared by h) as triplets, every
 * index checked against m x n and every value for finiteness. */
static slv_status entries(io_hdf5_ctx *c, const char *g, const struct fclib_matrix *a,
                          const io_fclib_mat *h, trip *t) {
  long nnz = 0;
  memset(t, 0, sizeof *t);
  slv_status st = entry_count(c, g, a, h, &nnz);
  if (st) return st;
  size_t cnt = nnz ? (size_t)nnz : 1;
  t->row = malloc(cnt * sizeof(int));
  t->col = malloc(cnt * sizeof(int));
  t->val = malloc(cnt * sizeof(double));
  if (!t->row || !t->col || !t->val) {
    trip_free(t);
    return io_hdf5_fail(c, SLV_ERR_NOMEM, "out of memory for the %ld entries of %s", nnz, g);
  }
  t->nnz = nnz;
  fill_triplets(a, t);
  if ((st = check_triplets(c, g, a, t))) trip_free(t);
  return st;
}

static slv_status check_finite(io_hdf5_ctx *c, const char *name, const double *v, int n,
                               int nonneg) {
  for (int k = 0; k < n; k++)
    if (!isfinite(v[k]) || (nonneg && v[k] < 0))
      return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s%s, found %s[%d] = %g",
                          nonneg ? "mu >= 0 in " : "finite values in ", name, name, k, v[k]);
  return SLV_OK;
}

/* A new instance of n = 3 nc rows with A from the triplets (CSR, then dense
 * when small), b = q, cones mu. */
static slv_status make_instance(io_hdf5_ctx *c, int n, const trip *t, const double *q,
                                const double *mu, io_instance **out) {
  io_instance *inst = io_instance_alloc(n);
  slv_status st = inst ? SLV_OK : SLV_ERR_NOMEM;
  if (!st) st = io_csr_from_triplets(inst, t->nnz, t->row, t->col, t->val);
  if (!st) st = io_fc_densify(inst);
  if (!st) st = io_set_fc3d_cones(inst, n / 3, mu);
  if (st) {
    io_instance_free(inst);
    return io_hdf5_fail(c, st, "out of memory for the problem (n = %d)", n);
  }
  memcpy(inst->b, q, (size_t)n * sizeof(double));
  *out = inst;
  return SLV_OK;
}

/* What lcplab allocates beside libfclib's copy (spend): the entries as
 * triplets, then the instance (CSR, and the dense copy up to
 * IO_FC_DENSE_MAX rows), at most nzmax entries. */
static slv_status reserve_instance(io_hdf5_ctx *c, const char *what, int n, double nzmax) {
  double bytes = 16.0 * nzmax + io_instance_bytes(n, n <= IO_FC_DENSE_MAX) + 16.0 * nzmax +
                 12.0 * (n + 1.0) + 12.0 * (n / 3 + 1.0);
  return io_reserve(c->path, &c->mem, c->cap, bytes, c->err, c->errlen,
                    "%s: the problem, 3 nc = %d rows, at most %.0f entries", what, n, nzmax);
}

/* W's entries are finite, but duplicates add up (README 2.3), and when W is
 * kept dense (n <= IO_FC_DENSE_MAX) their sum may overflow. */
static slv_status check_dense_sums(io_hdf5_ctx *c, const io_instance *inst) {
  if (inst->storage != SLV_DENSE) return SLV_OK;
  size_t n = (size_t)inst->n;
  for (size_t e = 0; e < n * n; e++)
    if (!isfinite(inst->A[e]))
      return io_hdf5_fail(c, SLV_ERR_INVALID,
                          "expected the entries of /fclib_local/W to add up to finite "
                          "values, found W(%d,%d) = %g from duplicate entries",
                          (int)(e % n), (int)(e / n), inst->A[e]);
  return SLV_OK;
}

static slv_status read_local(io_hdf5_ctx *c, const char *lib_path, const io_fclib_mat *h,
                             io_instance **out) {
  slv_status st = reserve_instance(c, "/fclib_local/W", h->m, (double)h->nzmax);
  if (st) return st;
  struct fclib_local *p = fclib_read_local(lib_path);
  if (!p)
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected libfclib to read /fclib_local, found it refused");
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

/* The global problem of libfclib's p as a global form (M, H as CSR, M
 * mirrored when stored as one triangle); M and H's triplets are freed. */
static slv_status global_of(io_hdf5_ctx *c, const struct fclib_global *p, trip *M, trip *H,
                            int ndof, int m, slv_global_form **out) {
  slv_global_form *g = io_global_alloc(ndof, m);
  slv_status st = g ? SLV_OK : SLV_ERR_NOMEM;
  if (!st) st = io_csr_build(ndof, M->nnz, M->row, M->col, M->val, &g->Mp, &g->Mj, &g->Mx);
  trip_free(M);
  if (!st) st = io_csr_build(ndof, H->nnz, H->row, H->col, H->val, &g->Hp, &g->Hj, &g->Hx);
  trip_free(H);
  if (!st && io_global_mirror(g) < 0) st = SLV_ERR_NOMEM;
  if (st) {
    io_global_free(g);
    return io_hdf5_fail(c, st, "out of memory for /fclib_global/M and H (ndof = %d)", ndof);
  }
  memcpy(g->f, p->f, (size_t)ndof * sizeof(double));
  memcpy(g->w, p->w, (size_t)m * sizeof(double));
  *out = g;
  return SLV_OK;
}

static slv_status read_global(io_hdf5_ctx *c, const char *lib_path, const io_fclib_mat *hm,
                              const io_fclib_mat *hh, io_instance **out) {
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
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected libfclib to read /fclib_global, found it refused");
  trip M, H;
  slv_global_form *g = NULL;
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
static slv_status check_head(io_hdf5_ctx *c, const char *head, size_t got, double size) {
  if (got < 8)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected an HDF5 file (FCLIB), found %zu bytes", got);
  if (!io_is_hdf5_bytes(head, got) && size < 512)
    return io_hdf5_fail(c, SLV_ERR_INVALID,
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
static slv_status lib_path_of(io_hdf5_ctx *c, char *buf, size_t len, const char **lib_path,
                              int *tmp) {
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
  return io_hdf5_fail(c, SLV_ERR_INVALID, "expected a temporary file %s for libfclib, found: %s",
                      buf, strerror(e ? e : EIO));
}

/* Checks the open file (c->file, closed here) and reads it with libfclib. */
static slv_status read_open(io_hdf5_ctx *c, io_instance **out) {
  io_fclib_mat W, M, H;
  slv_status st;
  int local = 0;
  if (io_hdf5_kind(c, c->file, "fclib_local") != IO_HDF5_ABSENT) {
    local = 1;
    st = io_fclib_check_local(c, &W);
  } else if (io_hdf5_kind(c, c->file, "fclib_global") != IO_HDF5_ABSENT) {
    st = io_fclib_check_global(c, &M, &H);
  } else {
    int rolling = io_hdf5_kind(c, c->file, "fclib_global_rolling") != IO_HDF5_ABSENT;
    st = rolling ? io_hdf5_fail(c, SLV_ERR_UNSUPPORTED,
                                "expected /fclib_local or /fclib_global, found "
                                "/fclib_global_rolling (rolling friction is not supported)")
                 : io_hdf5_fail(c, SLV_ERR_INVALID,
                                "expected the group /fclib_local or /fclib_global, "
                                "found neither");
  }
  io_hdf5_close(c);
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
  io_hdf5_ctx c = { .path = path,
                    .kind = IO_FCLIB_KIND,
                    .err = err,
                    .errlen = errlen,
                    .file = -1,
                    .cap = (double)rq->max_memory };
  *out = NULL;
  /* a regular file?  its first bytes HDF5's? (clear messages before HDF5
   * opens it by name) */
  int fd;
  double size;
  slv_status st = io_open_regular(path, &fd, &size, err, errlen);
  if (st) return st;
  char head[8];
  ssize_t got = read(fd, head, sizeof head);
  close(fd);
  st = check_head(&c, head, got > 0 ? (size_t)got : 0, size);
  if (!st) st = io_dl_ready(path, "reading an FCLIB file", err, errlen);
  if (st) return st;
  c.budget = 64.0 * size + 16.0 * 1048576.0;
  io_hdf5_quiet hq;
  io_hdf5_quiet_on(&hq);
  st = io_hdf5_open(&c, path, H5P_DEFAULT, (uint64_t)size);
  if (!st) st = read_open(&c, out);
  io_hdf5_quiet_off(&hq);
  return st;
}

slv_status io_read_fclib_image(const void *image, size_t len, const io_req *rq, io_instance **out) {
  io_hdf5_ctx c = { .path = rq->path,
                    .kind = IO_FCLIB_KIND,
                    .err = rq->err,
                    .errlen = rq->errlen,
                    .file = -1,
                    .cap = (double)rq->max_memory,
                    .image = image,
                    .image_len = len };
  *out = NULL;
  io_msgf(rq->err, rq->errlen, "%s", "");
  slv_status st = check_head(&c, image, len, (double)len);
  if (!st) st = io_dl_ready(rq->path, "reading an FCLIB file", rq->err, rq->errlen);
  if (st) return st;
  c.budget = 64.0 * (double)len + 16.0 * 1048576.0;
  io_hdf5_quiet hq;
  io_hdf5_quiet_on(&hq);
  /* the core driver on a copy of the image, no backing store */
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 ||
      H5Pset_file_image(fapl, (void *)(uintptr_t)image, len) < 0) {
    st = io_hdf5_fail(&c, SLV_ERR_NOMEM, "expected HDF5 to take the file image, found it refused");
  } else {
    /* with an image, the core driver opens no file but refuses a name
     * that exists: this one cannot (/dev/null is not a directory) */
    st = io_hdf5_open(&c, "/dev/null/lcplab-fclib-image", fapl, len);
    if (!st) st = read_open(&c, out);
  }
  if (fapl >= 0) H5Pclose(fapl);
  io_hdf5_quiet_off(&hq);
  if (!st) {
    slv_problem p = io_instance_problem(*out);
    char msg[256];
    if ((st = slv_problem_validate(&p, msg, sizeof msg))) {
      io_hdf5_fail(&c, st, "%s", msg);
      io_instance_free(*out);
      *out = NULL;
    } else {
      (*out)->format = IO_FMT_FCLIB;
      io_instance_classify(*out);
    }
  }
  return st;
}

/* x from the dataset gpath/name when it holds exactly n finite numbers. */
static slv_status read_r(io_hdf5_ctx *c, hid_t g, const char *gpath, int n, double *x) {
  long np;
  slv_status st = io_hdf5_check_ds(c, g, gpath, "r", IO_HDF5_NUM, 1, &np, NULL);
  if (st) return st;
  if (np != n)
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected %s/r to hold n = %d values (the problem solved), "
                        "found %ld",
                        gpath, n, np);
  hid_t d = H5Dopen2(g, "r", H5P_DEFAULT);
  herr_t e = d >= 0 ? H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) : -1;
  if (d >= 0) H5Dclose(d);
  if (e < 0)
    return io_hdf5_fail(c, SLV_ERR_INVALID, "expected %s/r to be readable, found a read error",
                        gpath);
  char name[64];
  snprintf(name, sizeof name, "%s/r", gpath);
  return check_finite(c, name, x, n, 0);
}

/* The group /solution, else /guesses/1, of the open file. */
static slv_status read_start(io_hdf5_ctx *c, int n, double *x) {
  hid_t g = -1, gs = -1;
  slv_status st;
  if (io_hdf5_kind(c, c->file, "solution") == IO_HDF5_GROUP) {
    if ((st = io_hdf5_open_group(c, c->file, "", "solution", &g))) return st;
    st = read_r(c, g, "/solution", n, x);
    H5Gclose(g);
    return st;
  }
  if (io_hdf5_kind(c, c->file, "guesses") != IO_HDF5_GROUP ||
      (gs = H5Gopen2(c->file, "guesses", H5P_DEFAULT)) < 0)
    return io_hdf5_fail(c, SLV_ERR_INVALID,
                        "expected a starting point in /solution/r or /guesses/1/r "
                        "(FCLIB), found neither");
  if (!(st = io_hdf5_open_group(c, gs, "/guesses", "1", &g))) {
    st = read_r(c, g, "/guesses/1", n, x);
    H5Gclose(g);
  }
  H5Gclose(gs);
  return st;
}

slv_status io_fclib_read_start(const char *path, int n, double *x, size_t max_memory, char *err,
                               size_t errlen) {
  io_hdf5_ctx c = { .path = path,
                    .kind = IO_FCLIB_KIND,
                    .err = err,
                    .errlen = errlen,
                    .file = -1,
                    .cap = (double)max_memory };
  int fd;
  double size;
  slv_status st = io_open_regular(path, &fd, &size, err, errlen);
  if (st) return st;
  close(fd);
  st = io_dl_ready(path, "reading an FCLIB file", err, errlen);
  if (st) return st;
  c.budget = 64.0 * size + 16.0 * 1048576.0;
  io_hdf5_quiet hq;
  io_hdf5_quiet_on(&hq);
  st = io_hdf5_open(&c, path, H5P_DEFAULT, (uint64_t)size);
  if (!st) {
    st = read_start(&c, n, x);
    io_hdf5_close(&c);
  }
  io_hdf5_quiet_off(&hq);
  return st;
}
