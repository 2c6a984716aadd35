/* io_fclib_write.c -- FCLIB HDF5 instances and solutions written with
 * plain HDF5 calls in libfclib 3.1's layout (io_fclib.h has the layout).
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
 * (slv_global_velocities), as libfclib's fclib_read_solution reads them.
 * Only FC3D instances (io_holds_fc3d: every row in a cone, Coulomb's law);
 * else SLV_ERR_UNSUPPORTED and nothing written.  A write followed by a read
 * gives back A, b and the cones bit for bit for instances from a reader
 * (sorted CSR columns).
 */
#define _POSIX_C_SOURCE 200809L

#include "io_fclib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writing -------------------------------------------------------------------- */

/* An FCLIB file is built in memory (HDF5's core driver, no backing store)
 * with plain HDF5 calls, in the layout libfclib 3.1 writes, and its bytes
 * are then written to disk here: HDF5 never touches the disk, so a full
 * disk is a failing write(2) reported by us, never libfclib's exit
 * (issue 48, case 7; docs/io.md, "FCLIB and HDF5"). */
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
  const slv_global_form *G = inst->global;
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
  slv_status st = io_dl_ready(rq->path, "writing an FCLIB file", rq->err, rq->errlen);
  if (st) return st;
  io_hdf5_quiet hq;
  io_hdf5_quiet_on(&hq);
  out_open(&o);
  if (inst->global)
    out_global(&o, inst);
  else
    out_local(&o, inst);
  st = out_finish(&o);
  io_hdf5_quiet_off(&hq);
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
  const slv_global_form *G = inst->global;
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
  slv_status st = io_dl_ready(path, "writing an FCLIB file", err, errlen);
  if (st) return st;
  io_hdf5_quiet hq;
  io_hdf5_quiet_on(&hq);
  out_open(&o);
  if (inst->global)
    out_global(&o, inst);
  else
    out_local(&o, inst);
  out_solution(&o, inst, x, x0);
  st = out_finish(&o);
  io_hdf5_quiet_off(&hq);
  return st;
}
