/* test_fclib.c -- frictional-contact instances (Siconos FC3D .dat, FCLIB
 * .hdf5) and FCLIB's merit function against libfclib itself.
 *
 * Merit (the accuracy measure of Acary et al. 2018): on EVERY local problem
 * of the shared datasets siconos/fc3d (35 .dat, 2 .hdf5) and fclib (2 local
 * .hdf5; LCPLAB_SHARED), for x = 0, x = the file's
 * guesses/1/r (the .hdf5 files that have one) and a random x (GSL mt19937,
 * seed 4242), slv_residual(...).merit_fclib must equal libfclib's
 * fclib_merit_local(problem, MERIT_1, {r = x}) to 1e-12 relative.  Both are
 * sqrt(sum_c |x_c - P_K(x_c - û_c)|^2) / (1 + sqrt(||q||_2)), û = W x + q +
 * (mu |u_t|, 0, 0) (fclib 3.1, src/fcmer.c; libsolvers/residual.c).
 *
 * libfclib 3.1 computes u = W r + q with CSparse's cs_gaxpy, which only
 * accepts a column-stored matrix (nz = -1) and silently does nothing for
 * the row-stored W that fclib_read_local returns (nz = -2): the merit then
 * measures u = q and ignores W.  So libfclib is handed a COLUMN-stored (CSC)
 * copy of W, as the Siconos FC3D peer harness does (its fclib_csc_from_csr).  For the .hdf5 files the copy
 * is built here from libfclib's own reading of the file, so the comparison
 * also checks that lcplab's reader gives the same W, q and mu bit for bit;
 * for the .dat files (which libfclib cannot read) it is built from
 * lcplab's instance.  The raw CSR behaviour is asserted too (fclib's value
 * on the CSR W equals our merit of the problem with W = 0), so that the
 * workaround is revisited if a libfclib release fixes it.
 *
 * Global problems (the .hdf5 of siconos/gfc3d, fclib/LMGC_GFC3D-i*): the sizes of
 * the datasets README tables (sections 4.3, 4.8); the condensed W is exactly
 * symmetric and positive semidefinite (LAPACKE_dsyev: smallest eigenvalue
 * >= -1e-10 x the largest); W and q agree with an independent dense
 * computation W_ref = H' (M \ H), q_ref = w + H' (M \ f) (LAPACKE_dposv on
 * the whole M; for the 12000-dof diagonal M of Spheres, H' diag(M)^-1 H)
 * to 64 ndof eps / rcond(M) relative to max|W_ref|.  Hand-derived global
 * problems written with fclib_write_global check the formula exactly.  A
 * written 30,000-row global problem (10,000 bodies with 6 x 6 M blocks, a
 * ring of 10,000 contacts) is read under the default memory cap into a
 * sparse W whose blocks match each body's own solve; a 2001-dof M block
 * goes through the sparse Cholesky.
 *
 * Round trips: every shared local and global problem, and synthetic ones,
 * through fclib .hdf5 (same storage, memcmp), siconos-fc3d .dat and lcplab
 * (same values).  Bad input: not HDF5, truncated, missing group / dataset,
 * wrong dimensions, wrong types, NaN, negative mu, indices out of range,
 * oversized declarations, V/R, G, spacedim 2, M not symmetric / not SPD /
 * a block too large: a negative status, no instance, one line starting
 * with the path and naming the HDF5 object; 300 files with random bytes
 * overwritten (libfclib would exit the process on an HDF5 error).  The
 * HDF5 error printer of the caller is restored after every call.  The
 * shared-data parts SKIP (pass) without the shared datasets.
 */
#define _POSIX_C_SOURCE 200809L
#include "slv.h"
#include "io.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <fclib.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <hdf5.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static int suite_init(void) { return tst_tmpdir_make(tmpdir, sizeof tmpdir, "test_fclib"); }

static int suite_clean(void) { return tst_tmpdir_remove(tmpdir); }

static void tpath(char *buf, size_t len, const char *name) { tst_tmp_path(buf, len, tmpdir, name); }

static int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

static int shared_present(void) {
  char p[4096];
  if (tst_shared_path("datasets/siconos/fc3d", p, sizeof p)) return 1;
  printf("\n  SKIP: ../shared/datasets not found (set LCPLAB_SHARED)");
  return 0;
}

static int has_ext(const char *name, const char *ext) {
  size_t n = strlen(name), e = strlen(ext);
  return n > e && strcmp(name + n - e, ext) == 0;
}

/* ---- dense views and comparisons -------------------------------------------- */

/* inst's A as a new dense column-major array (duplicates summed). */
static double *dense_of(const io_instance *inst) {
  size_t n = (size_t)inst->n;
  double *A = calloc(n * n + 1, sizeof(double));
  if (inst->storage == SLV_DENSE) {
    memcpy(A, inst->A, n * n * sizeof(double));
  } else {
    for (size_t i = 0; i < n; i++)
      for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++)
        A[i + n * (size_t)inst->Aj[k]] += inst->Ax[k];
  }
  return A;
}

/* Same problem: A as dense values (exact), b, cones, law bit for bit; with
 * same_storage also the storage and the CSR arrays themselves. */
static int same_problem(const io_instance *a, const io_instance *b, int same_storage) {
  if (a->n != b->n || a->ncones != b->ncones || a->cone_law != b->cone_law) return 0;
  size_t n = (size_t)a->n;
  if (memcmp(a->b, b->b, n * sizeof(double)) != 0) return 0;
  if (memcmp(a->cone_rows, b->cone_rows, (size_t)a->ncones * sizeof(int)) != 0) return 0;
  if (memcmp(a->cone_mu, b->cone_mu, (size_t)a->ncones * sizeof(double)) != 0) return 0;
  if (same_storage) {
    if (a->storage != b->storage) return 0;
    if (a->storage == SLV_DENSE) return memcmp(a->A, b->A, n * n * sizeof(double)) == 0;
    if (memcmp(a->Ap, b->Ap, (n + 1) * sizeof(int)) != 0) return 0;
    size_t nnz = (size_t)a->Ap[n];
    return memcmp(a->Aj, b->Aj, nnz * sizeof(int)) == 0 &&
           memcmp(a->Ax, b->Ax, nnz * sizeof(double)) == 0;
  }
  double *da = dense_of(a), *db = dense_of(b);
  int same = 1;
  for (size_t e = 0; e < n * n; e++) same &= da[e] == db[e];
  free(da);
  free(db);
  return same;
}

/* ---- libfclib's side ---------------------------------------------------------- */

/* A column-stored (nz = -1) copy of the rows x n matrix given as triplets. */
static struct fclib_matrix *csc_from_triplets(int rows, int n, long nnz, const int *row,
                                              const int *col, const double *val) {
  struct fclib_matrix *m = calloc(1, sizeof *m);
  m->m = rows;
  m->n = n;
  m->nz = -1;
  m->nzmax = nnz > 0 ? (int)nnz : 1;
  m->p = calloc((size_t)n + 1, sizeof(int));
  m->i = malloc((size_t)m->nzmax * sizeof(int));
  m->x = malloc((size_t)m->nzmax * sizeof(double));
  int *pos = malloc(((size_t)n + 1) * sizeof(int));
  for (long k = 0; k < nnz; k++) m->p[col[k] + 1]++;
  for (int j = 0; j < n; j++) m->p[j + 1] += m->p[j];
  memcpy(pos, m->p, ((size_t)n + 1) * sizeof(int));
  for (long k = 0; k < nnz; k++) {
    int q = pos[col[k]]++;
    m->i[q] = row[k];
    m->x[q] = val[k];
  }
  free(pos);
  return m;
}

static void csc_free(struct fclib_matrix *m) {
  if (!m) return;
  free(m->p);
  free(m->i);
  free(m->x);
  free(m);
}

/* CSC copy of lcplab's instance A. */
static struct fclib_matrix *csc_from_instance(const io_instance *inst) {
  int n = inst->n;
  long nnz = inst->storage == SLV_CSR ? inst->Ap[n] : (long)n * n;
  int *r = malloc((size_t)(nnz + 1) * sizeof(int)), *c = malloc((size_t)(nnz + 1) * sizeof(int));
  double *v = malloc((size_t)(nnz + 1) * sizeof(double));
  long k = 0;
  for (int i = 0; i < n; i++) {
    if (inst->storage == SLV_CSR) {
      for (int q = inst->Ap[i]; q < inst->Ap[i + 1]; q++, k++) {
        r[k] = i;
        c[k] = inst->Aj[q];
        v[k] = inst->Ax[q];
      }
    } else {
      for (int j = 0; j < n; j++, k++) {
        r[k] = i;
        c[k] = j;
        v[k] = inst->A[i + (size_t)j * n];
      }
    }
  }
  struct fclib_matrix *m = csc_from_triplets(n, n, nnz, r, c, v);
  free(r);
  free(c);
  free(v);
  return m;
}

/* CSC copy of a matrix as libfclib read it (CSR here; CSC, triplet too). */
static struct fclib_matrix *csc_from_fclib(const struct fclib_matrix *a) {
  long nnz = a->nz >= 0 ? a->nz : a->p[a->nz == -1 ? a->n : a->m];
  int *r = malloc((size_t)(nnz + 1) * sizeof(int)), *c = malloc((size_t)(nnz + 1) * sizeof(int));
  for (long k = 0; k < nnz; k++) {
    r[k] = a->i[k];
    c[k] = a->nz >= 0 ? a->p[k] : a->i[k];
  }
  if (a->nz < 0) {
    int outer = a->nz == -1 ? a->n : a->m;
    for (int o = 0; o < outer; o++)
      for (int k = a->p[o]; k < a->p[o + 1]; k++) {
        if (a->nz == -1)
          c[k] = o;
        else
          r[k] = o;
      }
  }
  struct fclib_matrix *m = csc_from_triplets(a->m, a->n, nnz, r, c, a->x);
  free(r);
  free(c);
  return m;
}

/* fclib_merit_local on W (any storage), q, mu at r = x. */
static double fclib_merit(struct fclib_matrix *W, double *q, double *mu, double *x) {
  struct fclib_local L;
  memset(&L, 0, sizeof L);
  L.W = W;
  L.q = q;
  L.mu = mu;
  L.spacedim = 3;
  double *u = calloc((size_t)W->m + 1, sizeof(double)); /* ignored by fclib (it recomputes u) */
  struct fclib_solution sol = { NULL, u, x, NULL };
  double m = fclib_merit_local(&L, MERIT_1, &sol);
  free(u);
  return m;
}

/* Is the HDF5 file a local FCLIB problem (has /fclib_local)? */
static int hdf5_is_local(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 0;
  int r = H5Lexists(f, "fclib_local", H5P_DEFAULT) > 0;
  H5Fclose(f);
  return r;
}

/* The dataset GROUP/SUB/r of the file (n values: guesses/1, or solution
 * with sub NULL), or NULL. */
static double *read_r_of(const char *path, const char *group, const char *sub, int n) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return NULL;
  double *r = NULL;
  char g2[64], ds[80];
  snprintf(g2, sizeof g2, "%s/%s", group, sub ? sub : "r");
  snprintf(ds, sizeof ds, "%s/r", g2);
  if (H5Lexists(f, group, H5P_DEFAULT) > 0 && H5Lexists(f, g2, H5P_DEFAULT) > 0 &&
      (!sub || H5Lexists(f, ds, H5P_DEFAULT) > 0)) {
    hid_t d = H5Dopen2(f, sub ? ds : g2, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    if (H5Sget_simple_extent_npoints(s) == n) {
      r = malloc((size_t)n * sizeof(double));
      if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) < 0) {
        free(r);
        r = NULL;
      }
    }
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return r;
}

static double *read_guess(const char *path, int n) { return read_r_of(path, "guesses", "1", n); }

/* Does the file have a /solution group? */
static int has_solution(const char *path) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return 0;
  int yes = H5Lexists(f, "solution", H5P_DEFAULT) > 0;
  H5Fclose(f);
  return yes;
}

/* ---- merit: every local shared file --------------------------------------------- */

static double worst_rel = 0;
static int merit_files = 0, merit_points = 0, raw_differs = 0, guesses_read = 0;

static void merit_one(const char *rel, const char *name) {
  char path[4096], err[512];
  tst_shared_path(rel, path, sizeof path);
  int hdf5 = has_ext(name, ".hdf5");
  if (hdf5 && !hdf5_is_local(path)) return; /* global: test_global */
  io_instance *inst = NULL;
  slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) printf("\n  %s", err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
  CU_ASSERT_EQUAL(inst->format, hdf5 ? IO_FMT_FCLIB : IO_FMT_SICONOS_FC3D);
  int n = inst->n;
  struct fclib_matrix *W;
  double *q, *mu;
  struct fclib_local *fl = NULL;
  if (hdf5) {
    /* libfclib's own reading: must be ours bit for bit */
    fl = fclib_read_local(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fl);
    W = csc_from_fclib(fl->W);
    q = fl->q;
    mu = fl->mu;
    CU_ASSERT_EQUAL(fl->W->m, n);
    CU_ASSERT(memcmp(q, inst->b, (size_t)n * sizeof(double)) == 0);
    CU_ASSERT(memcmp(mu, inst->cone_mu, (size_t)inst->ncones * sizeof(double)) == 0);
    double *da = dense_of(inst), *dw = calloc((size_t)n * n + 1, sizeof(double));
    for (int j = 0; j < n; j++)
      for (int k = W->p[j]; k < W->p[j + 1]; k++) dw[W->i[k] + (size_t)j * n] += W->x[k];
    int same = 1;
    for (size_t e = 0; e < (size_t)n * n; e++) same &= da[e] == dw[e];
    CU_ASSERT(same);
    free(da);
    free(dw);
  } else {
    W = csc_from_instance(inst);
    q = inst->b;
    mu = inst->cone_mu;
  }
  slv_problem p = io_instance_problem(inst);
  double *x = calloc((size_t)n + 1, sizeof(double));
  double *guess = hdf5 ? read_guess(path, n) : NULL;
  if (guess) { /* io_read_start: the file's solution, else its guess, bit for bit */
    double *want = has_solution(path) ? read_r_of(path, "solution", NULL, n) : NULL;
    double *start = malloc((size_t)n * sizeof(double));
    CU_ASSERT_EQUAL(io_read_start(path, n, start, err, sizeof err), SLV_CONVERGED);
    CU_ASSERT(memcmp(start, want ? want : guess, (size_t)n * sizeof(double)) == 0);
    free(start);
    free(want);
    guesses_read++;
  }
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 4242);
  printf("\n  %-44s n=%4d", name, n);
  for (int kind = 0; kind < 3; kind++) {
    if (kind == 1 && !guess) continue;
    for (int i = 0; i < n; i++)
      x[i] = kind == 0 ? 0.0
             : kind == 1
                 ? guess[i]
                 : (i % 3 == 0 ? 2.0 * gsl_rng_uniform(rng) : 2.0 * gsl_rng_uniform(rng) - 1.0);
    double ours = slv_residual(&p, x, NULL).merit_fclib;
    double theirs = fclib_merit(W, q, mu, x);
    double d = fabs(ours - theirs) / fabs(theirs);
    if (d > worst_rel) worst_rel = d;
    merit_points++;
    printf("  %s %.6e (rel %.1e)", kind == 0 ? "x=0" : kind == 1 ? "guess" : "rand", theirs, d);
    TST_CLOSE(ours, theirs, 0, 1e-12);
    if (hdf5 && kind == 2) {
      /* libfclib on the row-stored W it read: cs_gaxpy skips it, u = q */
      slv_problem p0 = p;
      int *zp = calloc((size_t)n + 1, sizeof(int));
      p0.storage = SLV_CSR;
      p0.Ap = zp;
      p0.Aj = zp;
      p0.Ax = x;
      double raw = fclib_merit(fl->W, q, mu, x), u_is_q = slv_residual(&p0, x, NULL).merit_fclib;
      printf("  [raw CSR W: %.6e, ours with u = q: %.6e]", raw, u_is_q);
      TST_CLOSE(raw, u_is_q, 0, 1e-12);
      if (fabs(raw - theirs) > 1e-3 * theirs) raw_differs++;
      free(zp);
    }
  }
  merit_files++;
  gsl_rng_free(rng);
  free(guess);
  free(x);
  csc_free(W);
  if (fl) {
    fclib_delete_local(fl);
    free(fl);
  }
  io_instance_free(inst);
}

static void merit_folder(const char *folder, int *count) {
  char dir[4096];
  tst_shared_path(folder, dir, sizeof dir);
  DIR *d = opendir(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  struct dirent *e;
  char **names = NULL;
  int cnt = 0;
  while ((e = readdir(d)))
    if (has_ext(e->d_name, ".dat") || has_ext(e->d_name, ".hdf5")) {
      names = realloc(names, (size_t)(cnt + 1) * sizeof *names);
      names[cnt++] = strdup(e->d_name);
    }
  closedir(d);
  for (int k = 0; k < cnt; k++) {
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", folder, names[k]);
    int before = merit_files;
    merit_one(rel, names[k]);
    *count += merit_files - before;
    free(names[k]);
  }
  free(names);
}

static void test_merit(void) {
  if (!shared_present()) return;
  int fc3d = 0, fclib = 0;
  merit_folder("datasets/siconos/fc3d", &fc3d);
  merit_folder("datasets/fclib", &fclib);
  printf("\n  %d files (%d siconos/fc3d, %d fclib local), %d points: worst relative difference "
         "%.2e",
         merit_files, fc3d, fclib, merit_points, worst_rel);
  CU_ASSERT_EQUAL(fc3d, 37); /* 35 .dat + 2 .hdf5 (datasets README 4.2) */
  /* the CSR pitfall is real on this data: W changes the merit by > 0.1 % on
   * 3 of the 4 local .hdf5 files (not on PerioBox, whose W r is tiny) */
  printf("\n  raw CSR W differs from the CSC one on %d of 4 .hdf5 files", raw_differs);
  CU_ASSERT(raw_differs >= 3);
  CU_ASSERT_EQUAL(fclib, 2); /* local_problem_test, Capsules-i97-269 (4.8) */
  printf("\n  io_read_start gave /solution/r or /guesses/1/r bit for bit on %d files",
         guesses_read);
  CU_ASSERT(guesses_read >= 1);
}

/* ---- global problems -------------------------------------------------------------- */

typedef struct global_file {
  const char *rel;
  int nc, ndof;
} global_file;

/* datasets README 4.3 and 4.8 */
static const global_file GLOBALS[] = {
  { "datasets/siconos/gfc3d/Box_Stacks-i0122-82-5.hdf5", 82, 450 },
  { "datasets/siconos/gfc3d/CubeH8.hdf5", 1, 162 },
  { "datasets/siconos/gfc3d/LMGC_GlobalFrictionContactProblem00046.hdf5", 9, 162 },
  { "datasets/siconos/gfc3d/Spheres-i099-356-679.hdf5", 356, 12000 },
  { "datasets/siconos/gfc3d/spheres-in-a-box-98-i10000-256-10.hdf5", 256, 588 },
  { "datasets/fclib/LMGC_GFC3D-i00001-1-00000.hdf5", 1, 48 },
  { "datasets/fclib/LMGC_GFC3D-i00501-4-00000.hdf5", 4, 162 }
};

/* W_ref = H' M^-1 H and q_ref = w + H' M^-1 f computed densely from
 * libfclib's reading; *tol gets 64 ndof eps / rcond(M).  An M stored as one
 * triangle is mirrored (slv_global_form.c). */
static void reference(const struct fclib_global *g, double *Wref, double *qref, double *tol) {
  int nd = g->M->m, m = g->H->n;
  const struct fclib_matrix *M = g->M, *H = g->H;
  struct fclib_matrix *Mc = csc_from_fclib(M), *Hc = csc_from_fclib(H);
  long up = 0, lo = 0, offdiag = 0;
  for (int j = 0; j < nd; j++)
    for (int k = Mc->p[j]; k < Mc->p[j + 1]; k++)
      if (Mc->x[k] != 0.0) {
        up += Mc->i[k] < j;
        lo += Mc->i[k] > j;
        offdiag += Mc->i[k] != j;
      }
  int half = (up == 0) != (lo == 0);
  for (int i = 0; i < m; i++) qref[i] = g->w[i];
  if (offdiag == 0) { /* diagonal M: H' diag(M)^-1 H row by row of H */
    double *d = calloc((size_t)(nd > 0 ? nd : 1), sizeof(double));
    for (int j = 0; j < nd; j++)
      for (int k = Mc->p[j]; k < Mc->p[j + 1]; k++) d[j] += Mc->x[k];
    /* H by rows */
    int *rowp = calloc((size_t)nd + 1, sizeof(int));
    size_t nh = Hc->p[m] > 0 ? (size_t)Hc->p[m] : 1;
    int *rc = malloc(nh * sizeof(int));
    double *rv = malloc(nh * sizeof(double));
    for (int k = 0; k < Hc->p[m]; k++) rowp[Hc->i[k] + 1]++;
    for (int i = 0; i < nd; i++) rowp[i + 1] += rowp[i];
    int *pos = malloc(((size_t)nd + 1) * sizeof(int));
    memcpy(pos, rowp, ((size_t)nd + 1) * sizeof(int));
    for (int j = 0; j < m; j++)
      for (int k = Hc->p[j]; k < Hc->p[j + 1]; k++) {
        int q = pos[Hc->i[k]]++;
        rc[q] = j;
        rv[q] = Hc->x[k];
      }
    for (int i = 0; i < nd; i++) {
      for (int a = rowp[i]; a < rowp[i + 1]; a++) {
        for (int b = rowp[i]; b < rowp[i + 1]; b++)
          Wref[rc[a] + (size_t)m * rc[b]] += rv[a] * rv[b] / d[i];
        qref[rc[a]] += rv[a] * g->f[i] / d[i];
      }
    }
    double dmin = INFINITY, dmax = 0;
    for (int i = 0; i < nd; i++) {
      dmin = fmin(dmin, fabs(d[i]));
      dmax = fmax(dmax, fabs(d[i]));
    }
    *tol = 64.0 * nd * 2.2e-16 * dmax / dmin; /* rcond of a diagonal M */
    free(d);
    free(rowp);
    free(rc);
    free(rv);
    free(pos);
  } else {
    double *Md = calloc((size_t)nd * nd, sizeof(double));
    double *X = calloc((size_t)nd * (m + 1), sizeof(double)); /* [H f] */
    for (int j = 0; j < nd; j++)
      for (int k = Mc->p[j]; k < Mc->p[j + 1]; k++) {
        Md[Mc->i[k] + (size_t)nd * j] += Mc->x[k];
        if (half && Mc->i[k] != j) Md[j + (size_t)nd * Mc->i[k]] += Mc->x[k];
      }
    for (int j = 0; j < m; j++)
      for (int k = Hc->p[j]; k < Hc->p[j + 1]; k++) X[Hc->i[k] + (size_t)nd * j] += Hc->x[k];
    for (int i = 0; i < nd; i++) X[i + (size_t)nd * m] = g->f[i];
    double *Hd = malloc((size_t)nd * m * sizeof(double) + 1);
    memcpy(Hd, X, (size_t)nd * m * sizeof(double));
    double anorm = LAPACKE_dlansy(LAPACK_COL_MAJOR, '1', 'L', nd, Md, nd), rcond = 0;
    CU_ASSERT_EQUAL_FATAL(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', nd, m + 1, Md, nd, X, nd), 0);
    LAPACKE_dpocon(LAPACK_COL_MAJOR, 'L', nd, Md, nd, anorm, &rcond);
    *tol = 64.0 * nd * 2.2e-16 / rcond;
    for (int a = 0; a < m; a++) {
      for (int b = 0; b < m; b++) {
        double s = 0;
        for (int i = 0; i < nd; i++) s += Hd[i + (size_t)nd * a] * X[i + (size_t)nd * b];
        Wref[a + (size_t)m * b] = s;
      }
      double s = 0;
      for (int i = 0; i < nd; i++) s += Hd[i + (size_t)nd * a] * X[i + (size_t)nd * m];
      qref[a] += s;
    }
    free(Md);
    free(X);
    free(Hd);
  }
  csc_free(Mc);
  csc_free(Hc);
}

static void test_global(void) {
  if (!shared_present()) return;
  for (size_t g = 0; g < sizeof GLOBALS / sizeof GLOBALS[0]; g++) {
    char path[4096], err[512];
    tst_shared_path(GLOBALS[g].rel, path, sizeof path);
    io_instance *inst = NULL;
    slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
    if (st) printf("\n  %s", err);
    CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
    int m = inst->n, nc = GLOBALS[g].nc;
    CU_ASSERT_EQUAL(m, 3 * nc);
    CU_ASSERT_EQUAL(inst->ncones, nc);
    CU_ASSERT_EQUAL(inst->format, IO_FMT_FCLIB);
    CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
    CU_ASSERT_EQUAL(inst->storage, m <= 300 ? SLV_DENSE : SLV_CSR);
    double *W = dense_of(inst);
    int sym = 1;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < i; j++) sym &= W[i + (size_t)m * j] == W[j + (size_t)m * i];
    CU_ASSERT(sym);
    if (tst_short_runs()) {
      /* under memcheck (tests/valgrind.sh) the reader is what is checked;
       * the eigenvalues and the dense reference are LAPACK work in this
       * test, 50 of its 75 s there, and are checked natively */
      free(W);
      io_instance_free(inst);
      continue;
    }
    double *ev = malloc((size_t)m * sizeof(double)), *Wc = malloc((size_t)m * m * sizeof(double));
    memcpy(Wc, W, (size_t)m * m * sizeof(double));
    CU_ASSERT_EQUAL(LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'L', m, Wc, m, ev), 0);
    CU_ASSERT(ev[0] >= -1e-10 * ev[m - 1]);
    /* the independent dense reference */
    struct fclib_global *fg = fclib_read_global(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fg);
    CU_ASSERT_EQUAL(fg->M->m, GLOBALS[g].ndof);
    double *Wref = calloc((size_t)m * m, sizeof(double)),
           *qref = malloc((size_t)m * sizeof(double));
    double tol = 0, wmax = 0, dw = 0, dq = 0, qmax = 0;
    reference(fg, Wref, qref, &tol);
    for (size_t e = 0; e < (size_t)m * m; e++) {
      wmax = fmax(wmax, fabs(Wref[e]));
      dw = fmax(dw, fabs(W[e] - Wref[e]));
    }
    /* q = w + H' M^-1 f: the scale of both terms (w may cancel the other) */
    for (int i = 0; i < m; i++) {
      qmax = fmax(qmax, fabs(fg->w[i]) + fabs(qref[i] - fg->w[i]));
      dq = fmax(dq, fabs(inst->b[i] - qref[i]));
    }
    printf("\n  %-52s ndof=%5d nc=%3d  eig [%.2e, %.2e]  |W-Wref|/max %.1e  |q-qref|/max %.1e  "
           "(tol %.1e)",
           strrchr(path, '/') + 1, fg->M->m, nc, ev[0], ev[m - 1], dw / wmax,
           dq / fmax(qmax, 1e-300), tol);
    CU_ASSERT(dw <= tol * wmax);
    CU_ASSERT(dq <= tol * qmax);
    fclib_delete_global(fg);
    free(fg);
    free(Wref);
    free(qref);
    free(ev);
    free(Wc);
    free(W);
    io_instance_free(inst);
  }
}

/* ---- hand-written global problems ---------------------------------------------- */

/* Writes a global problem with libfclib: M (ndof x ndof) and H (ndof x 3)
 * as triplets, f, w (3), mu = 0.5; G = I (ndof x 1 column) if with_g. */
static void write_global(const char *name, int ndof, int mnz, int *mi, int *mj, double *mx, int hnz,
                         int *hi, int *hj, double *hx, double *f, double *w, int with_g) {
  char p[512];
  tpath(p, sizeof p, name);
  remove(p);
  struct fclib_matrix M = { mnz, ndof, ndof, mj, mi, mx, mnz, NULL };
  struct fclib_matrix H = { hnz, ndof, 3, hj, hi, hx, hnz, NULL };
  int gi[1] = { 0 }, gj[1] = { 0 };
  double gx[1] = { 1 }, b[1] = { 0 };
  struct fclib_matrix G = { 1, ndof, 1, gj, gi, gx, 1, NULL };
  double mu[1] = { 0.5 };
  struct fclib_global g;
  memset(&g, 0, sizeof g);
  g.M = &M;
  g.H = &H;
  g.G = with_g ? &G : NULL;
  g.b = with_g ? b : NULL;
  g.mu = mu;
  g.f = f;
  g.w = w;
  g.spacedim = 3;
  CU_ASSERT_EQUAL_FATAL(fclib_write_global(&g, p), 1);
}

static io_instance *read_tmp(const char *name) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  io_instance *inst = NULL;
  slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) printf("\n  %s", err);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  return inst;
}

static void test_global_hand(void) {
  /* M = [[4,2,0],[2,5,0],[0,0,16]]: blocks {0,1} and {2}; L = [[2,0],[1,2]]
   * and 4, exact.  H = I, so W = M^-1 = [[5,-2,0],[-2,4,0],[0,0,1]] / 16
   * (Z = L^-1 = [[1/2, 0], [-1/4, 1/2]], Z'Z exact in binary).
   * f = (4, 2, 16): M^-1 f = (1, 0, 1), so q = w + (1, 0, 1). */
  int mi[5] = { 0, 0, 1, 1, 2 }, mj[5] = { 0, 1, 0, 1, 2 };
  double mx[5] = { 4, 2, 2, 5, 16 };
  int hi[3] = { 0, 1, 2 }, hj[3] = { 0, 1, 2 };
  double hx[3] = { 1, 1, 1 }, f[3] = { 4, 2, 16 }, w[3] = { -1, 0.5, 3 };
  static const double Wexp[9] = { 0.3125, -0.125, 0, -0.125, 0.25, 0, 0, 0, 0.0625 };
  static const double qexp[3] = { 0, 0.5, 4 };
  write_global("g1.hdf5", 3, 5, mi, mj, mx, 3, hi, hj, hx, f, w, 0);
  io_instance *inst = read_tmp("g1.hdf5");
  if (inst) {
    CU_ASSERT_EQUAL(inst->n, 3);
    CU_ASSERT_EQUAL(inst->storage, SLV_DENSE);
    CU_ASSERT(memcmp(inst->A, Wexp, sizeof Wexp) == 0);
    CU_ASSERT(memcmp(inst->b, qexp, sizeof qexp) == 0);
    CU_ASSERT_EQUAL(inst->cone_mu[0], 0.5);
    CU_ASSERT_EQUAL(inst->cone_law, SLV_CONE_COULOMB);
    CU_ASSERT_EQUAL(inst->lo[1], -INFINITY);
  }
  io_instance_free(inst);
  /* the same M stored as its upper triangle only (LMGC's dumps): the same W */
  int ui[4] = { 0, 0, 1, 2 }, uj[4] = { 0, 1, 1, 2 };
  double ux[4] = { 4, 2, 5, 16 };
  write_global("g1u.hdf5", 3, 4, ui, uj, ux, 3, hi, hj, hx, f, w, 0);
  inst = read_tmp("g1u.hdf5");
  if (inst) {
    CU_ASSERT(memcmp(inst->A, Wexp, sizeof Wexp) == 0);
    CU_ASSERT(memcmp(inst->b, qexp, sizeof qexp) == 0);
  }
  io_instance_free(inst);
  /* a non-square H block: ndof 4 (a free dof 3 with mass 4, untouched by
   * H), H maps contact rows 0..2 to dofs 2, 0, 1 */
  int mi4[6] = { 0, 0, 1, 1, 2, 3 }, mj4[6] = { 0, 1, 0, 1, 2, 3 };
  double mx4[6] = { 4, 2, 2, 5, 16, 4 };
  int hi4[3] = { 2, 0, 1 }, hj4[3] = { 0, 1, 2 };
  double f4[4] = { 4, 2, 16, 8 };
  write_global("g4.hdf5", 4, 6, mi4, mj4, mx4, 3, hi4, hj4, hx, f4, w, 0);
  inst = read_tmp("g4.hdf5");
  if (inst) {
    /* W = P' M^-1 P with contact rows (2, 0, 1) */
    static const double W4[9] = { 0.0625, 0, 0, 0, 0.3125, -0.125, 0, -0.125, 0.25 };
    static const double q4[3] = { 0, 1.5, 3 };
    CU_ASSERT(memcmp(inst->A, W4, sizeof W4) == 0);
    CU_ASSERT(memcmp(inst->b, q4, sizeof q4) == 0);
  }
  io_instance_free(inst);
}

/* ---- bad input ---------------------------------------------------------------------- */

static int handler_calls = 0;
static herr_t counting_handler(hid_t stack, void *data) {
  (void)stack;
  (void)data;
  handler_calls++;
  return 0;
}

/* Reading must fail with want, *out NULL, one line starting with the path
 * and containing must. */
static void bad_read(const char *name, slv_status want, const char *must) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  io_instance *inst = (io_instance *)1;
  /* a caller's HDF5 handler: never called, and restored */
  H5E_auto2_t before = NULL;
  void *before_data = NULL;
  H5Eset_auto2(H5E_DEFAULT, counting_handler, NULL);
  handler_calls = 0;
  slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
  H5Eget_auto2(H5E_DEFAULT, &before, &before_data);
  CU_ASSERT(before == counting_handler);
  CU_ASSERT_EQUAL(handler_calls, 0);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  printf("\n  %s", err);
  CU_ASSERT_EQUAL(st, want);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NULL(strchr(err, '\n'));
  CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
  if (!strstr(err, must)) printf("\n  (wanted '%s')", must);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
}

/* A valid local file with 2 contacts, W 6 x 6 dense (diagonal 2, a coupling). */
static io_instance *small_fc(int nc) {
  int n = 3 * nc;
  io_instance *inst = io_instance_new_dense(n);
  for (int i = 0; i < n; i++) {
    inst->A[i + (size_t)i * n] = 2.0;
    if (i + 1 < n) inst->A[i + (size_t)(i + 1) * n] = inst->A[i + 1 + (size_t)i * n] = -0.5;
    inst->b[i] = i % 3 == 0 ? -1.0 : 0.25 * i;
    inst->lo[i] = -INFINITY;
  }
  inst->ncones = nc;
  inst->cone_rows = malloc((size_t)nc * sizeof(int));
  inst->cone_mu = malloc((size_t)nc * sizeof(double));
  for (int c = 0; c < nc; c++) {
    inst->cone_rows[c] = 3 * c;
    inst->cone_mu[c] = 0.3 + 0.1 * c;
  }
  io_instance_classify(inst);
  return inst;
}

/* Copies good.hdf5 to name and opens it read-write. */
static hid_t edit_copy(const char *name) {
  char src[512], dst[512];
  tpath(src, sizeof src, "good.hdf5");
  tpath(dst, sizeof dst, name);
  FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
  char buf[4096];
  size_t k;
  while ((k = fread(buf, 1, sizeof buf, a)) > 0) fwrite(buf, 1, k, b);
  fclose(a);
  fclose(b);
  return H5Fopen(dst, H5F_ACC_RDWR, H5P_DEFAULT);
}

static void replace_ds(hid_t f, const char *name, hid_t type, int n, const void *data) {
  H5Ldelete(f, name, H5P_DEFAULT);
  hsize_t dim = (hsize_t)n;
  hid_t s = H5Screate_simple(1, &dim, NULL);
  hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n > 0) H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(d);
  H5Sclose(s);
}

/* good.hdf5, the small local problem the bad files of test_bad_* are
 * edited copies of (edit_copy), written and read back; its size in bytes. */
static long write_good(void) {
  char p[512], err[512];
  io_instance *good = small_fc(2);
  tpath(p, sizeof p, "good.hdf5");
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, good, err, sizeof err), SLV_CONVERGED);
  io_instance *back = read_tmp("good.hdf5");
  CU_ASSERT(back && same_problem(good, back, 1));
  io_instance_free(back);
  io_instance_free(good);
  struct stat sb;
  CU_ASSERT_EQUAL_FATAL(stat(p, &sb), 0);
  return (long)sb.st_size;
}

static void test_bad_not_hdf5(void) {
  char p[512];
  long size = write_good();
  /* not HDF5; truncated (half, 100 bytes); empty */
  tpath(p, sizeof p, "text.hdf5");
  FILE *f = fopen(p, "w");
  fputs("3\n1\n0\n3\n3\n3\t3\n", f);
  fclose(f);
  bad_read("text.hdf5", SLV_ERR_INVALID, "expected an HDF5 file (FCLIB)");
  static const long cut[3] = { -2, 100, 0 };
  static const char *const cut_name[3] = { "half.hdf5", "h100.hdf5", "empty.hdf5" };
  for (int k = 0; k < 3; k++) {
    char src[512];
    tpath(src, sizeof src, "good.hdf5");
    tpath(p, sizeof p, cut_name[k]);
    long keep = cut[k] < 0 ? size / 2 : cut[k];
    FILE *a = fopen(src, "rb"), *b = fopen(p, "wb");
    char *buf = malloc((size_t)size);
    size_t got = fread(buf, 1, (size_t)size, a);
    fwrite(buf, 1, (size_t)keep < got ? (size_t)keep : got, b);
    free(buf);
    fclose(a);
    fclose(b);
    bad_read(cut_name[k], SLV_ERR_INVALID, "HDF5");
  }
}

static void test_bad_missing(void) {
  write_good();
  /* missing objects */
  hid_t h = edit_copy("nomu.hdf5");
  H5Ldelete(h, "/fclib_local/vectors/mu", H5P_DEFAULT);
  H5Fclose(h);
  bad_read("nomu.hdf5", SLV_ERR_INVALID,
           "expected the dataset /fclib_local/vectors/mu, found nothing");
  h = edit_copy("noW.hdf5");
  H5Ldelete(h, "/fclib_local/W", H5P_DEFAULT);
  H5Fclose(h);
  bad_read("noW.hdf5", SLV_ERR_INVALID, "expected the group /fclib_local/W, found nothing");
  h = edit_copy("nox.hdf5");
  H5Ldelete(h, "/fclib_local/W/x", H5P_DEFAULT);
  H5Fclose(h);
  bad_read("nox.hdf5", SLV_ERR_INVALID, "/fclib_local/W/x, found nothing");
  h = edit_copy("neither.hdf5");
  H5Ldelete(h, "/fclib_local", H5P_DEFAULT);
  H5Fclose(h);
  bad_read("neither.hdf5", SLV_ERR_INVALID,
           "expected the group /fclib_local or /fclib_global, found neither");
}

static void test_bad_dims(void) {
  char p[512];
  write_good();
  hid_t h;
  /* wrong dimensions */
  int one = 1, six2[2] = { 6, 6 };
  double mu1[1] = { 0.3 }, nanq[6] = { 0, NAN, 0, 0, 0, 0 };
  h = edit_copy("mu1.hdf5");
  replace_ds(h, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, 1, mu1);
  H5Fclose(h);
  bad_read("mu1.hdf5", SLV_ERR_INVALID,
           "expected /fclib_local/vectors/mu to hold 2 values (W is 6 x 6: nc = 2), found 1");
  h = edit_copy("q5.hdf5");
  replace_ds(h, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, 5, nanq);
  H5Fclose(h);
  bad_read("q5.hdf5", SLV_ERR_INVALID, "expected /fclib_local/vectors/q to hold 6 values");
  h = edit_copy("m1.hdf5");
  replace_ds(h, "/fclib_local/W/m", H5T_NATIVE_INT, 1, &one);
  H5Fclose(h);
  bad_read("m1.hdf5", SLV_ERR_INVALID,
           "expected /fclib_local/W/p to hold 2 values (CSR, m + 1), found 7");
  h = edit_copy("m2.hdf5");
  replace_ds(h, "/fclib_local/W/m", H5T_NATIVE_INT, 2, six2);
  H5Fclose(h);
  bad_read("m2.hdf5", SLV_ERR_INVALID, "expected /fclib_local/W/m to hold one integer, found 2");
  {
    /* W 6 x 5: written by libfclib itself */
    int wp[7] = { 0, 1, 1, 1, 1, 1, 1 }, wi[1] = { 0 };
    double wx[1] = { 1 }, q[6] = { 0 }, mu[2] = { 1, 1 };
    struct fclib_matrix W = { 1, 6, 5, wp, wi, wx, -2, NULL };
    struct fclib_local l = { &W, NULL, NULL, mu, q, NULL, 3, NULL };
    tpath(p, sizeof p, "w65.hdf5");
    CU_ASSERT_EQUAL(fclib_write_local(&l, p), 1);
    bad_read("w65.hdf5", SLV_ERR_INVALID,
             "expected /fclib_local/W to be square, 3 nc x 3 nc, found 6 x 5");
  }
}

static void test_bad_values(void) {
  write_good();
  hid_t h;
  /* types, values, indices */
  int big = 400000000, col99 = 99;
  double nanq[6] = { 0, NAN, 0, 0, 0, 0 }, negmu[2] = { 0.3, -0.1 };
  h = edit_copy("mstr.hdf5");
  {
    H5Ldelete(h, "/fclib_local/W/m", H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, 4);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(h, "/fclib_local/W/m", t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, "six");
    H5Dclose(d);
    H5Sclose(s);
    H5Tclose(t);
  }
  H5Fclose(h);
  bad_read("mstr.hdf5", SLV_ERR_INVALID,
           "expected /fclib_local/W/m to hold integers, found HDF5 type class 3");
  h = edit_copy("nanq.hdf5");
  replace_ds(h, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, 6, nanq);
  H5Fclose(h);
  bad_read(
      "nanq.hdf5", SLV_ERR_INVALID,
      "expected finite values in /fclib_local/vectors/q, found /fclib_local/vectors/q[1] = nan");
  h = edit_copy("negmu.hdf5");
  replace_ds(h, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, 2, negmu);
  H5Fclose(h);
  bad_read("negmu.hdf5", SLV_ERR_INVALID,
           "expected mu >= 0 in /fclib_local/vectors/mu, found /fclib_local/vectors/mu[1] = -0.1");
  h = edit_copy("col99.hdf5");
  {
    hid_t d = H5Dopen2(h, "/fclib_local/W/i", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hsize_t start = 3, cnt = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL);
    hid_t ms = H5Screate_simple(1, &cnt, NULL);
    H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, &col99);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
  }
  H5Fclose(h);
  bad_read("col99.hdf5", SLV_ERR_INVALID,
           "expected a column index in [0, 6) in /fclib_local/W/i[3], found 99");
  h = edit_copy("nzmax.hdf5");
  replace_ds(h, "/fclib_local/W/nzmax", H5T_NATIVE_INT, 1, &big);
  H5Fclose(h);
  bad_read("nzmax.hdf5", SLV_ERR_DIM,
           "expected sizes that the file can back, found /fclib_local/W declaring");
}

static void test_bad_unsupported(void) {
  write_good();
  hid_t h;
  /* unsupported */
  int two = 2;
  h = edit_copy("dim2.hdf5");
  replace_ds(h, "/fclib_local/spacedim", H5T_NATIVE_INT, 1, &two);
  H5Fclose(h);
  bad_read("dim2.hdf5", SLV_ERR_UNSUPPORTED, "expected /fclib_local/spacedim = 3, found 2 (2-D");
  h = edit_copy("withV.hdf5");
  H5Gclose(H5Gcreate2(h, "/fclib_local/V", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  H5Fclose(h);
  bad_read("withV.hdf5", SLV_ERR_UNSUPPORTED, "expected no /fclib_local/V, found one");
  h = edit_copy("rolling.hdf5");
  H5Lmove(h, "/fclib_local", h, "/fclib_global_rolling", H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(h);
  bad_read("rolling.hdf5", SLV_ERR_UNSUPPORTED, "rolling friction is not supported");
}

static void test_bad_global(void) {
  /* global: G, M not symmetric, not positive definite; a large block read */
  int hi[3] = { 0, 1, 2 }, hj[3] = { 0, 1, 2 };
  double hx[3] = { 1, 1, 1 }, f1[3] = { 1, 1, 1 }, w[3] = { 0, 0, 0 };
  int di[3] = { 0, 1, 2 }, dj[3] = { 0, 1, 2 };
  double dx[3] = { 4, 4, 4 }, ndx[3] = { 4, -1, 4 };
  write_global("gG.hdf5", 3, 3, di, dj, dx, 3, hi, hj, hx, f1, w, 1);
  bad_read("gG.hdf5", SLV_ERR_UNSUPPORTED, "expected no /fclib_global/G, found one");
  write_global("gnpd.hdf5", 3, 3, di, dj, ndx, 3, hi, hj, hx, f1, w, 0);
  bad_read("gnpd.hdf5", SLV_ERR_UNSUPPORTED, "expected /fclib_global/M positive definite");
  int si3[5] = { 0, 0, 1, 1, 2 }, sj3[5] = { 0, 1, 0, 1, 2 };
  double sx3[5] = { 4, 1, 2, 4, 4 };
  write_global("gnsym.hdf5", 3, 5, si3, sj3, sx3, 3, hi, hj, hx, f1, w, 0);
  bad_read("gnsym.hdf5", SLV_ERR_UNSUPPORTED,
           "expected /fclib_global/M symmetric, found M(0,1) = 1, M(1,0) = 2");
  { /* H with 4 rows where M has 3 (ndof); libfclib's writer exits on a
     * column count that is not 3 nc, so that case is not written */
    int h4i[3] = { 0, 1, 3 };
    struct fclib_matrix M = { 3, 3, 3, dj, di, dx, 3, NULL };
    struct fclib_matrix H4 = { 3, 4, 3, hj, h4i, hx, 3, NULL };
    double mu[1] = { 0.5 };
    struct fclib_global g;
    char p[512];
    memset(&g, 0, sizeof g);
    g.M = &M;
    g.H = &H4;
    g.mu = mu;
    g.f = f1;
    g.w = w;
    g.spacedim = 3;
    tpath(p, sizeof p, "gh4.hdf5");
    remove(p);
    CU_ASSERT_EQUAL_FATAL(fclib_write_global(&g, p), 1);
    bad_read("gh4.hdf5", SLV_ERR_INVALID,
             "expected /fclib_global/H to be ndof x 3 nc = 3 x (a multiple of 3), found 4 x 3");
  }
}

static void test_bad_global_big(void) {
  int hi[3] = { 0, 1, 2 }, hj[3] = { 0, 1, 2 };
  double hx[3] = { 1, 1, 1 }, w[3] = { 0, 0, 0 };
  if (tst_under_memcheck()) {
    /* HDF5's own work on the 2001-dof file was 1.4 s natively, most of
     * this program's 53 s under memcheck; the sanitizer builds and the plain
     * build run it */
    printf("\n  SKIP under valgrind: the 2001-dof global file (HDF5's time)");
    return;
  }
  {
    int nd = 2001, nnz = 3 * nd - 2, k = 0;
    int *ti = malloc((size_t)nnz * sizeof(int)), *tj = malloc((size_t)nnz * sizeof(int));
    double *tx = malloc((size_t)nnz * sizeof(double)), *tf = calloc((size_t)nd, sizeof(double));
    for (int i = 0; i < nd; i++)
      for (int j = i - 1; j <= i + 1; j++)
        if (j >= 0 && j < nd) {
          ti[k] = i;
          tj[k] = j;
          tx[k++] = i == j ? 4.0 : -1.0;
        }
    /* a block of 2001 dofs (once refused): the sparse Cholesky; H picks
     * dofs 0, 1, 2, so W = M^-1(0:3, 0:3), and W(0,0) is the continued
     * fraction 1 / (4 - 1 / (4 - ... 1 / 4)) of the tridiagonal M */
    write_global("gbig.hdf5", nd, nnz, ti, tj, tx, 3, hi, hj, hx, tf, w, 0);
    char pb[512], eb[512];
    tpath(pb, sizeof pb, "gbig.hdf5");
    io_instance *big = NULL;
    CU_ASSERT_EQUAL_FATAL(io_read(pb, IO_FMT_AUTO, &big, eb, sizeof eb), SLV_OK);
    double cf = 4.0;
    for (int i = 1; i < nd; i++) cf = 4.0 - 1.0 / cf;
    CU_ASSERT_PTR_NOT_NULL(big->global);
    TST_CLOSE(big->A[0], 1.0 / cf, 0, 1e-14);
    io_instance_free(big);
    free(ti);
    free(tj);
    free(tx);
    free(tf);
  }
}

/* Damaged files: 300 copies of a valid local and a valid global file with
 * 1 to 8 bytes overwritten (half of them in the first 4 KiB, where HDF5's
 * metadata is).  libfclib exits the process on an HDF5 error, so reaching
 * the end of this loop is the test; each read either gives a valid problem
 * or a negative status and one line naming the path. */
static void test_damaged(void) {
  char src[512], p[512], err[512];
  const char *pre = getenv("LD_PRELOAD");
  if (pre && strstr(pre, "vgpreload")) {
    /* HDF5 1.10.8 itself leaks an object header when H5Oopen meets a
     * damaged one (reproduced with H5Fopen + H5Oopen + H5Fclose alone), so
     * memcheck would report HDF5's leak, not lcplab's */
    printf("\n  SKIP under valgrind: HDF5 1.10 leaks on damaged object headers");
    return;
  }
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 99);
  int bad_count = 0, ok_count = 0;
  int hi[3] = { 0, 1, 2 }, hj[3] = { 0, 1, 2 };
  int mi[5] = { 0, 0, 1, 1, 2 }, mj[5] = { 0, 1, 0, 1, 2 };
  double mx[5] = { 4, 2, 2, 5, 16 }, hx[3] = { 1, 1, 1 }, f[3] = { 4, 2, 16 },
         w[3] = { -1, 0.5, 3 };
  write_global("dglobal.hdf5", 3, 5, mi, mj, mx, 3, hi, hj, hx, f, w, 0);
  io_instance *good = small_fc(4);
  tpath(src, sizeof src, "dlocal.hdf5");
  CU_ASSERT_EQUAL_FATAL(io_write(src, IO_FMT_AUTO, good, err, sizeof err), SLV_CONVERGED);
  io_instance_free(good);
  for (int t = 0; t < 300; t++) {
    tpath(src, sizeof src, t % 2 ? "dglobal.hdf5" : "dlocal.hdf5");
    tpath(p, sizeof p, "damaged.hdf5");
    FILE *a = fopen(src, "rb");
    unsigned char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, a);
    fclose(a);
    int k = 1 + (int)gsl_rng_uniform_int(r, 8);
    for (int e = 0; e < k; e++) {
      size_t span = gsl_rng_uniform(r) < 0.5 && len > 4096 ? 4096 : len;
      buf[gsl_rng_uniform_int(r, span)] = (unsigned char)gsl_rng_uniform_int(r, 256);
    }
    FILE *b = fopen(p, "wb");
    fwrite(buf, 1, len, b);
    fclose(b);
    io_instance *inst = NULL;
    slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
    if (st == SLV_CONVERGED) {
      ok_count++;
      CU_ASSERT_PTR_NOT_NULL(inst);
      CU_ASSERT_STRING_EQUAL(inst->kind, "cone");
    } else {
      bad_count++;
      CU_ASSERT(st < 0);
      CU_ASSERT_PTR_NULL(inst);
      CU_ASSERT_PTR_NULL(strchr(err, '\n'));
      CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
    }
    io_instance_free(inst);
  }
  printf("\n  300 damaged files: %d refused with a message, %d still valid problems", bad_count,
         ok_count);
  CU_ASSERT(bad_count > 0);
  gsl_rng_free(r);
}

/* ---- writing and round trips ------------------------------------------------------ */

/* A cone instance of nc contacts: dense with wild values (-0.0, a denormal,
 * 1e300) or CSR with sorted columns and no +0.0 entries. */
static io_instance *wild_fc(int nc, int csr, unsigned long seed) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  io_instance *inst = small_fc(nc);
  int n = inst->n;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      unsigned k = (unsigned)gsl_rng_uniform_int(r, 12);
      double v = k == 0   ? -0.0
                 : k == 1 ? 4.9406564584124654e-324
                 : k == 2 ? 1e300
                 : k < 8  ? 0.0
                          : gsl_rng_uniform(r) - 0.5;
      inst->A[i + (size_t)j * n] = v;
    }
  for (int i = 0; i < n; i++) inst->b[i] = gsl_rng_uniform(r) - 0.5;
  for (int c = 0; c < nc; c++) inst->cone_mu[c] = gsl_rng_uniform(r);
  if (csr) {
    int *Ap = calloc((size_t)n + 1, sizeof(int)), nnz = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++)
        nnz += !(inst->A[i + (size_t)j * n] == 0.0 && !signbit(inst->A[i + (size_t)j * n]));
      Ap[i + 1] = nnz;
    }
    int *Aj = malloc((size_t)nnz * sizeof(int));
    double *Ax = malloc((size_t)nnz * sizeof(double));
    int k = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double v = inst->A[i + (size_t)j * n];
        if (v == 0.0 && !signbit(v)) continue;
        Aj[k] = j;
        Ax[k++] = v;
      }
    free(inst->A);
    inst->A = NULL;
    inst->storage = SLV_CSR;
    inst->Ap = Ap;
    inst->Aj = Aj;
    inst->Ax = Ax;
  }
  gsl_rng_free(r);
  return inst;
}

static void round_trip_as(const io_instance *inst, const char *name, int same_storage) {
  char p[512], err[512];
  tpath(p, sizeof p, name);
  slv_status st = io_write(p, IO_FMT_AUTO, inst, err, sizeof err);
  if (st) printf("\n  write %s: %s", name, err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  io_instance *back = NULL;
  st = io_read(p, IO_FMT_AUTO, &back, err, sizeof err);
  if (st) printf("\n  read %s: %s", name, err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  if (!same_problem(inst, back, same_storage)) printf("\n  %s differs after the round trip", name);
  CU_ASSERT(same_problem(inst, back, same_storage));
  io_instance_free(back);
}

static void test_write(void) {
  char p[512], err[512];
  /* dense (wild values) and CSR (n = 306 > 300 stays CSR): bit for bit */
  io_instance *d = wild_fc(3, 0, 5), *c = wild_fc(102, 1, 6);
  round_trip_as(d, "wild.hdf5", 1);
  round_trip_as(c, "wild_csr.hdf5", 1);
  round_trip_as(c, "wild_csr.h5", 1);
  /* twice to the same path: replaced, not refused by libfclib */
  round_trip_as(d, "wild_csr.h5", 1);
  /* refusals: nothing written */
  io_instance *lcp = io_instance_new_dense(3);
  io_instance_classify(lcp);
  static const struct {
    const char *name, *must;
  } cases[4] = { { "lcp.hdf5", "fclib holds only frictional-contact problems (a Coulomb cone on "
                               "every row); this instance has no cones (kind lcp)" },
                 { "assoc.hdf5",
                   "fclib holds Coulomb's law (De Saxce); this instance's cone_law is associated" },
                 { "part.hdf5",
                   "fclib needs every row in a cone: n = 6 rows, but 1 cones cover 3" },
                 { "nodir/x.hdf5", "cannot write" } };
  io_instance *assoc = wild_fc(2, 0, 1), *part = small_fc(2);
  assoc->cone_law = SLV_CONE_ASSOCIATED;
  part->ncones = 1;
  const io_instance *which[4] = { lcp, assoc, part, d };
  for (int k = 0; k < 4; k++) {
    tpath(p, sizeof p, cases[k].name);
    slv_status st = io_write(p, IO_FMT_AUTO, which[k], err, sizeof err);
    printf("\n  refused as expected: %s", err);
    CU_ASSERT_EQUAL(st, k == 3 ? SLV_ERR_INVALID : SLV_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[k].must));
    CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
    CU_ASSERT_FALSE(file_exists(p));
  }
  io_instance_free(lcp);
  io_instance_free(assoc);
  io_instance_free(part);
  io_instance_free(d);
  io_instance_free(c);
}

/* The writer builds the file with plain HDF5 calls (no libfclib, which
 * exits on a failing write): libfclib's own reader gives back what
 * fclib_write_local would have written -- W as CSR (nz = -2) with the
 * instance's entries, q = b, mu, spacedim 3, the name as info/title. */
static void test_written_for_libfclib(void) {
  char p[512], err[512];
  io_instance *c = wild_fc(102, 1, 7);
  snprintf(c->name, sizeof c->name, "%s", "wild102");
  tpath(p, sizeof p, "forlib.hdf5");
  remove(p);
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, c, err, sizeof err), SLV_CONVERGED);
  struct fclib_local *fl = fclib_read_local(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fl);
  int n = c->n, nnz = c->Ap[n];
  CU_ASSERT(fl->spacedim == 3 && fl->W->nz == -2 && fl->W->m == n && fl->W->n == n);
  CU_ASSERT_EQUAL(fl->W->nzmax, nnz);
  CU_ASSERT(memcmp(fl->W->p, c->Ap, ((size_t)n + 1) * sizeof(int)) == 0);
  CU_ASSERT(memcmp(fl->W->i, c->Aj, (size_t)nnz * sizeof(int)) == 0);
  CU_ASSERT(memcmp(fl->W->x, c->Ax, (size_t)nnz * sizeof(double)) == 0);
  CU_ASSERT(memcmp(fl->q, c->b, (size_t)n * sizeof(double)) == 0);
  CU_ASSERT(memcmp(fl->mu, c->cone_mu, (size_t)c->ncones * sizeof(double)) == 0);
  CU_ASSERT(fl->V == NULL && fl->R == NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(fl->info);
  CU_ASSERT_STRING_EQUAL(fl->info->title, "wild102");
  CU_ASSERT_PTR_NOT_NULL(strstr(fl->info->description, "written by lcplab"));
  fclib_delete_local(fl);
  free(fl);
  io_instance_free(c);
}

/* A global problem (inst->global) is written as /fclib_global, M and H as
 * triplets (i = row, p = column, as Siconos writes them): fclib_read_global
 * gives back every entry of M and H (CSR row by row), f, w and mu bit for
 * bit.  LMGC_GFC3D-i00501: 162 dofs, 4 contacts, a full (not diagonal) M. */
static void test_global_written(void) {
  char path[4096], p[512], err[512];
  if (!shared_present()) return;
  tst_shared_path("datasets/fclib/LMGC_GFC3D-i00501-4-00000.hdf5", path, sizeof path);
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &inst, err, sizeof err), SLV_CONVERGED);
  const slv_global_form *G = inst->global;
  CU_ASSERT_PTR_NOT_NULL_FATAL(G);
  tpath(p, sizeof p, "global_out.hdf5");
  remove(p);
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
  struct fclib_global *g = fclib_read_global(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  CU_ASSERT(g->spacedim == 3 && g->G == NULL && g->b == NULL);
  const struct fclib_matrix *mats[2] = { g->M, g->H };
  const int *cp[2] = { G->Mp, G->Hp }, *cj[2] = { G->Mj, G->Hj };
  const double *cx[2] = { G->Mx, G->Hx };
  int cols[2] = { G->ndof, G->n };
  for (int k = 0; k < 2; k++) {
    const struct fclib_matrix *A = mats[k];
    CU_ASSERT_FATAL(A->m == G->ndof && A->n == cols[k] && A->nz == cp[k][G->ndof]);
    int e = 0, same = 1;
    for (int r = 0; r < G->ndof; r++)
      for (int q = cp[k][r]; q < cp[k][r + 1]; q++, e++)
        same &= A->i[e] == r && A->p[e] == cj[k][q] && memcmp(&A->x[e], &cx[k][q], 8) == 0;
    CU_ASSERT(same);
  }
  CU_ASSERT(memcmp(g->f, G->f, (size_t)G->ndof * sizeof(double)) == 0);
  CU_ASSERT(memcmp(g->w, G->w, (size_t)G->n * sizeof(double)) == 0);
  CU_ASSERT(memcmp(g->mu, inst->cone_mu, (size_t)inst->ncones * sizeof(double)) == 0);
  fclib_delete_global(g);
  free(g);
  io_instance_free(inst);
}

/* The dense rows x cols copy of a CSR matrix (duplicates summed). */
static double *dense_of_csr(int rows, int cols, const int *p, const int *j, const double *x) {
  double *d = calloc((size_t)rows * (size_t)cols, sizeof(double));
  for (int r = 0; d && r < rows; r++)
    for (int k = p[r]; k < p[r + 1]; k++) d[(size_t)r * cols + j[k]] += x[k];
  return d;
}

static int same_csr(int rows, int cols, const int *p1, const int *j1, const double *x1,
                    const int *p2, const int *j2, const double *x2) {
  double *a = dense_of_csr(rows, cols, p1, j1, x1), *b = dense_of_csr(rows, cols, p2, j2, x2);
  int same = a && b && memcmp(a, b, (size_t)rows * (size_t)cols * sizeof(double)) == 0;
  free(a);
  free(b);
  return same;
}

/* max |A_a x + b_a - (A_b x + b_b)| / max |A_a x + b_a| over three fixed x:
 * how far apart two condensations of one global problem are. */
static double condensed_gap(const io_instance *a, const io_instance *b) {
  size_t n = (size_t)a->n;
  double *x = malloc(n * sizeof(double)), *wa = malloc(n * sizeof(double));
  double *wb = malloc(n * sizeof(double)), gap = 0.0, top = 0.0;
  slv_problem pa = io_instance_problem(a), pb = io_instance_problem(b);
  for (int t = 0; t < 3; t++) {
    for (size_t i = 0; i < n; i++) x[i] = t == 0 ? 0.0 : sin(1.0 + (double)(t * i));
    slv_problem_w(&pa, x, wa);
    slv_problem_w(&pb, x, wb);
    for (size_t i = 0; i < n; i++) {
      gap = fmax(gap, fabs(wa[i] - wb[i]));
      top = fmax(top, fabs(wa[i]));
    }
  }
  free(x);
  free(wa);
  free(wb);
  return top > 0 ? gap / top : gap;
}

/* a (which carries its global problem) written to name and read back:
 * the same M, H (entry by entry), f, w, cones, and a condensation within
 * 1e-13 (a one-triangle M is mirrored on the first read and stored whole
 * after, so the sums of the condensation may run in another order). */
static void global_round_trip(const io_instance *a, const char *name) {
  char p[512], err[512];
  io_instance *b = NULL;
  tpath(p, sizeof p, name);
  remove(p);
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, a, err, sizeof err), SLV_CONVERGED);
  slv_status st = io_read(p, IO_FMT_AUTO, &b, err, sizeof err);
  if (st) printf("\n  %s", err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
  const slv_global_form *g = a->global, *h = b->global;
  CU_ASSERT_PTR_NOT_NULL_FATAL(h);
  CU_ASSERT_FATAL(g->ndof == h->ndof && g->n == h->n && a->n == b->n);
  CU_ASSERT(same_csr(g->ndof, g->ndof, g->Mp, g->Mj, g->Mx, h->Mp, h->Mj, h->Mx));
  CU_ASSERT(same_csr(g->ndof, g->n, g->Hp, g->Hj, g->Hx, h->Hp, h->Hj, h->Hx));
  CU_ASSERT(memcmp(g->f, h->f, (size_t)g->ndof * sizeof(double)) == 0);
  CU_ASSERT(memcmp(g->w, h->w, (size_t)g->n * sizeof(double)) == 0);
  CU_ASSERT(a->ncones == b->ncones &&
            memcmp(a->cone_mu, b->cone_mu, (size_t)a->ncones * sizeof(double)) == 0);
  double gap = condensed_gap(a, b);
  if (!(gap <= 1e-13)) printf("\n  %s: condensations %.3e apart", name, gap);
  CU_ASSERT(gap <= 1e-13);
  io_instance_free(b);
}

/* A global problem written as a Siconos gfc3d .dat (M and H as SBM): a
 * full M (LMGC_GFC3D-i00501, 162 dofs) and an SBM one of 27-dof blocks
 * (GFC3D_TwoRods1, written with 6-dof blocks); rt_folder does the rest. */
static void test_gfc3d_written(void) {
  static const char *const rel[2] = { "datasets/fclib/LMGC_GFC3D-i00501-4-00000.hdf5",
                                      "datasets/siconos/gfc3d/GFC3D_TwoRods1.dat" };
  char path[4096], err[512];
  if (!shared_present()) return;
  for (int f = 0; f < 2; f++) {
    tst_shared_path(rel[f], path, sizeof path);
    io_instance *a = NULL;
    CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &a, err, sizeof err), SLV_CONVERGED);
    global_round_trip(a, "gfc3d_out.dat");
    io_instance_free(a);
  }
}

/* Short runs (memcheck, ASan): every third file up to 256 KB of a folder
 * is taken through the round trips, the others only counted (the readers'
 * and writers' code paths on fewer and smaller files; all of them were
 * most of this program's time under memcheck:
 * experiments/records/2026-11-28-test-time-4.md).  *seen counts the
 * folder's files up to 256 KB. */
static int rt_skipped_in_short_runs(const char *path, int *seen) {
  if (!tst_short_runs()) return 0;
  struct stat st;
  return stat(path, &st) != 0 || st.st_size > (256 << 10) || (*seen)++ % 3 != 0;
}

/* Every shared local and global problem: to .hdf5 (same storage, bit for
 * bit), .dat and .lcp and back. */
static void rt_folder(const char *folder, int *count) {
  char dir[4096];
  tst_shared_path(folder, dir, sizeof dir);
  DIR *dd = opendir(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dd);
  struct dirent *e;
  int seen = 0;
  while ((e = readdir(dd))) {
    int hdf5 = has_ext(e->d_name, ".hdf5");
    if (!hdf5 &&
        !(has_ext(e->d_name, ".dat") && strstr(folder, "fc3d") && !strstr(folder, "gfc3d")))
      continue;
    char path[4096 + 256], err[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (rt_skipped_in_short_runs(path, &seen)) {
      (*count)++;
      continue;
    }
    io_instance *inst = NULL;
    slv_status st = io_read(path, IO_FMT_AUTO, &inst, err, sizeof err);
    if (st) printf("\n  %s", err);
    CU_ASSERT_EQUAL_FATAL(st, SLV_CONVERGED);
    round_trip_as(inst, "rt.hdf5", 1);
    round_trip_as(inst, "rt.lcp", 1);
    /* SBM drops explicit +0.0 entries of a CSR matrix: the same values; a
     * global problem is written as a gfc3d .dat (M, H, f, w) */
    if (inst->global)
      global_round_trip(inst, "rt.dat");
    else
      round_trip_as(inst, "rt.dat", !hdf5);
    (*count)++;
    io_instance_free(inst);
  }
  closedir(dd);
}

static void test_roundtrip_shared(void) {
  if (!shared_present()) return;
  int count = 0;
  rt_folder("datasets/siconos/fc3d", &count);
  rt_folder("datasets/siconos/gfc3d", &count);
  rt_folder("datasets/fclib", &count);
  printf("\n  %d problems through .hdf5, .lcp and .dat%s", count,
         tst_short_runs() ? " (short runs: a third of those up to 256 KB)" : "");
  CU_ASSERT_EQUAL(count, 37 + 5 + 4);
}

/* ---- the memory cap --------------------------------------------------------------- */

/* Reading path with the cap must fail with SLV_ERR_DIM, *out NULL, one line
 * "PATH: expected sizes that fit the memory cap of CAP bytes (max_memory),
 * found <must>...". */
static void capped_read(const char *name, size_t cap, const char *must) {
  char p[512], err[512], prefix[700];
  tpath(p, sizeof p, name);
  io_read_options o = io_read_options_default();
  o.max_memory = cap;
  io_instance *inst = (io_instance *)1;
  slv_status st = io_read_with(p, IO_FMT_AUTO, &o, &inst, err, sizeof err);
  printf("\n  %s", err);
  CU_ASSERT_EQUAL(st, SLV_ERR_DIM);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NULL(strchr(err, '\n'));
  snprintf(prefix, sizeof prefix,
           "%s: expected sizes that fit the memory cap of %zu bytes "
           "(max_memory), found %s",
           p, cap, must);
  if (strncmp(err, prefix, strlen(prefix)) != 0) printf("\n  (wanted the prefix '%s')", prefix);
  CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
}

/* ---- a 30,000-row global problem --------------------------------------------------- */

enum { LB = 10000 }; /* bodies, and contacts: contact c between bodies c and c + 1 (a ring) */

/* Body b's 6 x 6 M (column-major): diag(2, 2, 2, 1, 1, 1) (1 + (b % 7) / 10) + u u'. */
static void large_mass(int b, double *Mb) {
  static const double u[6] = { 0.3, 0.15, -0.06, 0.03, 0, 0.12 };
  for (int j = 0; j < 6; j++)
    for (int i = 0; i < 6; i++)
      Mb[i + 6 * j] = u[i] * u[j] + (i == j ? (i < 3 ? 2.0 : 1.0) * (1 + (b % 7) / 10.0) : 0.0);
}

/* H's entry at body row k (0..5) and contact column j (0..2), for the first
 * (side 0) or the second body (side 1) of a contact. */
static double large_h(int k, int j, int side) {
  double h = ((k + 1) * (j + 2) % 5 - 2) * 0.25 + (k == j ? 1.0 : 0.0);
  return side ? -h : h;
}

static void write_large_global(const char *p) {
  long mnz = 36L * LB, hnz = 36L * LB;
  int *mi = malloc(mnz * sizeof(int)), *mj = malloc(mnz * sizeof(int));
  int *hi = malloc(hnz * sizeof(int)), *hj = malloc(hnz * sizeof(int));
  double *mx = malloc(mnz * sizeof(double)), *hx = malloc(hnz * sizeof(double));
  double *f = malloc(6 * LB * sizeof(double)), *w = calloc(3 * LB, sizeof(double));
  double *mu = malloc(LB * sizeof(double)), Mb[36];
  long a = 0, h = 0;
  for (int b = 0; b < LB; b++) {
    large_mass(b, Mb);
    for (int e = 0; e < 36; e++, a++) {
      mi[a] = 6 * b + e % 6;
      mj[a] = 6 * b + e / 6;
      mx[a] = Mb[e];
    }
  }
  for (int c = 0; c < LB; c++) {
    mu[c] = 0.5;
    for (int side = 0; side < 2; side++)
      for (int k = 0; k < 6; k++)
        for (int j = 0; j < 3; j++, h++) {
          hi[h] = 6 * ((c + side) % LB) + k;
          hj[h] = 3 * c + j;
          hx[h] = large_h(k, j, side);
        }
  }
  for (int i = 0; i < 6 * LB; i++) f[i] = 0.1 * sin((double)i);
  struct fclib_matrix M = { (int)mnz, 6 * LB, 6 * LB, mj, mi, mx, (int)mnz, NULL };
  struct fclib_matrix H = { (int)hnz, 6 * LB, 3 * LB, hj, hi, hx, (int)hnz, NULL };
  struct fclib_global g;
  memset(&g, 0, sizeof g);
  g.M = &M;
  g.H = &H;
  g.mu = mu;
  g.f = f;
  g.w = w;
  g.spacedim = 3;
  remove(p);
  CU_ASSERT_EQUAL_FATAL(fclib_write_global(&g, p), 1);
  free(mi), free(mj), free(hi), free(hj), free(mx), free(hx), free(f), free(w), free(mu);
}

/* The 3 x 3 block W(c, d) and q(c) from the bodies' own 6 x 6 solves:
 * body b's contribution is H_b(:, c)' M_b^-1 H_b(:, d). */
static void large_reference(int c, int d, double *Wcd, double *qc) {
  memset(Wcd, 0, 9 * sizeof(double));
  memset(qc, 0, 3 * sizeof(double));
  for (int side = 0; side < 2; side++) {
    int b = (c + side) % LB, sd = b == d % LB ? 0 : b == (d + 1) % LB ? 1 : -1;
    double Mb[36], X[6 * 4], Hc[18];
    large_mass(b, Mb);
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 6; k++) {
        Hc[k + 6 * j] = large_h(k, j, side);
        X[k + 6 * j] = sd < 0 ? 0 : large_h(k, j, sd);
      }
    for (int k = 0; k < 6; k++) X[k + 18] = 0.1 * sin((double)(6 * b + k));
    CU_ASSERT_EQUAL_FATAL(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', 6, 4, Mb, 6, X, 6), 0);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++)
        for (int k = 0; k < 6; k++) Wcd[i + 3 * j] += Hc[k + 6 * i] * X[k + 6 * j];
      for (int k = 0; k < 6; k++) qc[i] += Hc[k + 6 * i] * X[k + 18];
    }
  }
}

static double csr_at(const io_instance *inst, int i, int j) {
  double v = 0;
  for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++) v += inst->Aj[k] == j ? inst->Ax[k] : 0;
  return v;
}

/* A global problem of 10,000 bodies (6 x 6 M blocks, 60,000 dofs) and
 * 10,000 contacts in a ring (30,000 rows): read within the default memory
 * cap into a block-tridiagonal W (9 entries a row, 270,000 in all: never
 * 30,000^2 dense), W's blocks and q against each body's own solve. */
static void test_global_large(void) {
  char p[512], err[512];
  tpath(p, sizeof p, "large_global.hdf5");
  write_large_global(p);
  io_instance *inst = NULL;
  slv_status st = io_read(p, IO_FMT_AUTO, &inst, err, sizeof err);
  if (st) printf("\n  %s", err);
  CU_ASSERT_EQUAL_FATAL(st, SLV_OK);
  CU_ASSERT_EQUAL(inst->n, 3 * LB);
  CU_ASSERT_EQUAL(inst->storage, SLV_CSR);
  CU_ASSERT_EQUAL(inst->Ap[inst->n], 9 * 3 * LB);
  CU_ASSERT_EQUAL(inst->global->ndof, 6 * LB);
  static const int pairs[4][2] = { { 0, 0 }, { 0, 1 }, { 5000, 4999 }, { LB - 1, 0 } };
  double err_max = 0, scale = 0;
  for (int t = 0; t < 4; t++) {
    int c = pairs[t][0], d = pairs[t][1];
    double Wcd[9], qc[3];
    large_reference(c, d, Wcd, qc);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        err_max = fmax(err_max, fabs(csr_at(inst, 3 * c + i, 3 * d + j) - Wcd[i + 3 * j]));
        scale = fmax(scale, fabs(Wcd[i + 3 * j]));
      }
      if (c == d) TST_CLOSE(inst->b[3 * c + i], qc[i], 1e-14, 1e-12);
    }
  }
  printf(" W: %d entries, |W - W_ref| %.2g of %.2g", inst->Ap[inst->n], err_max, scale);
  CU_ASSERT(err_max <= 1e-13 * scale);
  io_instance_free(inst);
  remove(p);
}

/* The declared sizes are charged against the cap before libfclib reads
 * (it allocates what they say) and before lcplab's own copies: a small
 * local file under a 100-byte cap is refused at W's values (16 entries,
 * 128 bytes: before the test read of W/x), and a small global file whose H has
 * 4500 columns (once condensed to a dense 4500 x 4500 W, 162 MB, and
 * refused) is read under a 64 MiB cap into a sparse W of 4500 entries, and
 * refused under a cap that holds its M, H, f, w but not the condensation. */
static void test_memory_cap(void) {
  char p[512], err[512];
  io_instance *fc = small_fc(2);
  tpath(p, sizeof p, "capsmall.hdf5");
  remove(p);
  CU_ASSERT_EQUAL_FATAL(io_write(p, IO_FMT_AUTO, fc, err, sizeof err), SLV_CONVERGED);
  io_instance_free(fc);
  capped_read("capsmall.hdf5", 100, "/fclib_local/W/x: 128 bytes");
  io_read_options o = io_read_options_default();
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL(io_read_with(p, IO_FMT_AUTO, &o, &inst, err, sizeof err), SLV_CONVERGED);
  io_instance_free(inst);

  enum { NDOF = 4500 };
  int *ij = malloc(NDOF * sizeof(int));
  double *one = malloc(NDOF * sizeof(double)), *w = calloc(NDOF, sizeof(double));
  double *mu = malloc(NDOF / 3 * sizeof(double));
  for (int k = 0; k < NDOF; k++) {
    ij[k] = k;
    one[k] = 1.0;
  }
  for (int c = 0; c < NDOF / 3; c++) mu[c] = 0.5;
  struct fclib_matrix M = { NDOF, NDOF, NDOF, ij, ij, one, NDOF, NULL };
  struct fclib_matrix H = { NDOF, NDOF, NDOF, ij, ij, one, NDOF, NULL };
  struct fclib_global g;
  memset(&g, 0, sizeof g);
  g.M = &M;
  g.H = &H;
  g.f = one;
  g.w = w;
  g.mu = mu;
  g.spacedim = 3;
  tpath(p, sizeof p, "capglobal.hdf5");
  remove(p);
  CU_ASSERT_EQUAL_FATAL(fclib_write_global(&g, p), 1);
  free(ij);
  free(one);
  free(w);
  free(mu);
  /* W = I: 4500 entries in CSR, never 4500 x 4500 dense */
  o.max_memory = (size_t)64 << 20;
  inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read_with(p, IO_FMT_AUTO, &o, &inst, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL(inst->storage, SLV_CSR);
  CU_ASSERT_EQUAL(inst->Ap[inst->n], NDOF);
  CU_ASSERT_PTR_NOT_NULL(inst->global);
  io_instance_free(inst);
  /* 900 000 bytes hold M, H, f, w but not the condensation (378 064 more) */
  capped_read("capglobal.hdf5", 900000,
              "the condensation of /fclib_global/M (4500 diagonal blocks, the largest of 1 "
              "dofs): 378064 bytes");
}

/* ---- solutions and guesses ------------------------------------------------------ */

/* The solution of a global problem: the file holds /fclib_global and, per
 * answer, v = M^-1 (H r + f), u = H' v + w and r (what fclib_read_solution
 * and fclib_read_guesses read for a global problem), v and u as
 * slv_global_velocities gives them, bit for bit; the warm start reads r. */
static void test_global_solution(void) {
  char path[4096], p[512], err[512];
  if (!shared_present()) return;
  tst_shared_path("datasets/fclib/LMGC_GFC3D-i00501-4-00000.hdf5", path, sizeof path);
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &inst, err, sizeof err), SLV_CONVERGED);
  const slv_global_form *G = inst->global;
  int n = inst->n, nd = G->ndof;
  double x[12], x0[12], v[162], u[12], back[12];
  for (int i = 0; i < n; i++) {
    x[i] = i % 3 ? 0.01 * (i - 5) : 1.0 + i;
    x0[i] = i % 3 ? 0.0 : 1.0;
  }
  tpath(p, sizeof p, "global_sol.hdf5");
  remove(p);
  CU_ASSERT_EQUAL_FATAL(io_write_solution(p, inst, x, x0, err, sizeof err), SLV_CONVERGED);
  struct fclib_global *g = fclib_read_global(p);
  CU_ASSERT_PTR_NOT_NULL(g);
  if (g) {
    fclib_delete_global(g);
    free(g);
  }
  struct fclib_solution *sol = fclib_read_solution(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sol);
  CU_ASSERT_EQUAL_FATAL(
      slv_global_velocities(nd, n, G->Mp, G->Mj, G->Mx, G->Hp, G->Hj, G->Hx, G->f, G->w, x, v, u),
      SLV_CONVERGED);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sol->v);
  CU_ASSERT(memcmp(sol->v, v, (size_t)nd * sizeof(double)) == 0);
  CU_ASSERT(memcmp(sol->u, u, (size_t)n * sizeof(double)) == 0);
  CU_ASSERT(memcmp(sol->r, x, (size_t)n * sizeof(double)) == 0);
  free(sol->v);
  free(sol->u);
  free(sol->r);
  free(sol);
  int ng = 0;
  struct fclib_solution *gs = fclib_read_guesses(p, &ng);
  CU_ASSERT_EQUAL_FATAL(ng, 1);
  CU_ASSERT(memcmp(gs[0].r, x0, (size_t)n * sizeof(double)) == 0);
  CU_ASSERT_PTR_NOT_NULL(gs[0].v);
  free(gs[0].v);
  free(gs[0].u);
  free(gs[0].r);
  free(gs);
  CU_ASSERT_EQUAL(io_read_start(p, n, back, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT(memcmp(back, x, sizeof back) == 0);
  io_instance_free(inst);
}

/* io_write_solution to .hdf5: libfclib's own readers give back the
 * problem, r = x and u = A x + b (/solution), r = x0 and u = A x0 + b
 * (/guesses/1), bit for bit; io_read_start reads the solution back, and
 * the guess when there is no solution.  Refusals name the file. */
static void test_solutions(void) {
  char p[512], err[512];
  io_instance *inst = small_fc(2);
  int n = inst->n;
  double x[6] = { 1.5, -0.25, 0.125, 2.0, 0.5, -0.75 }, x0[6] = { 1, 0, 0, 1, 0, 0 };
  double w[6], w0[6], back[6];
  slv_problem pr = io_instance_problem(inst);
  slv_problem_w(&pr, x, w);
  slv_problem_w(&pr, x0, w0);
  tpath(p, sizeof p, "sol.hdf5");
  remove(p);
  CU_ASSERT_EQUAL_FATAL(io_write_solution(p, inst, x, x0, err, sizeof err), SLV_CONVERGED);
  io_instance *prob = read_tmp("sol.hdf5");
  CU_ASSERT(prob && same_problem(inst, prob, 1));
  io_instance_free(prob);
  struct fclib_solution *sol = fclib_read_solution(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sol);
  CU_ASSERT(memcmp(sol->r, x, sizeof x) == 0);
  CU_ASSERT(memcmp(sol->u, w, sizeof w) == 0);
  CU_ASSERT_PTR_NULL(sol->v);
  free(sol->r);
  free(sol->u);
  free(sol);
  int ng = 0;
  struct fclib_solution *g = fclib_read_guesses(p, &ng);
  CU_ASSERT_EQUAL_FATAL(ng, 1);
  CU_ASSERT(memcmp(g[0].r, x0, sizeof x0) == 0);
  CU_ASSERT(memcmp(g[0].u, w0, sizeof w0) == 0);
  free(g[0].r);
  free(g[0].u);
  free(g);
  CU_ASSERT_EQUAL(io_read_start(p, n, back, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT(memcmp(back, x, sizeof x) == 0);
  /* without x0 there are no guesses; a file with guesses only starts from guess 1 */
  tpath(p, sizeof p, "sol_noguess.hdf5");
  CU_ASSERT_EQUAL(io_write_solution(p, inst, x, NULL, err, sizeof err), SLV_CONVERGED);
  hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
  CU_ASSERT(H5Lexists(f, "guesses", H5P_DEFAULT) == 0);
  H5Fclose(f);
  tpath(p, sizeof p, "guessonly.hdf5");
  remove(p);
  CU_ASSERT_EQUAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
  struct fclib_solution gw = { NULL, w0, x0, NULL };
  CU_ASSERT_EQUAL(fclib_write_guesses(1, &gw, p), 1);
  CU_ASSERT_EQUAL(io_read_start(p, n, back, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT(memcmp(back, x0, sizeof x0) == 0);
  /* refusals: the size, a file without a start, an LCP in .hdf5, .npz */
  CU_ASSERT_EQUAL(io_read_start(p, 9, back, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected /guesses/1/r to hold n = 9 values (the problem "
                                     "solved), found 6"));
  tpath(p, sizeof p, "nostart.hdf5");
  remove(p);
  CU_ASSERT_EQUAL(io_write(p, IO_FMT_AUTO, inst, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_EQUAL(io_read_start(p, n, back, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_EQUAL(strncmp(err, p, strlen(p)), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected a starting point in /solution/r or /guesses/1/r"));
  io_instance *lcp = io_instance_new_dense(2);
  lcp->A[0] = lcp->A[3] = 1.0;
  tpath(p, sizeof p, "lcp_sol.hdf5");
  remove(p);
  CU_ASSERT_EQUAL(io_write_solution(p, lcp, x, NULL, err, sizeof err), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "fclib holds only frictional-contact problems"));
  CU_ASSERT_FALSE(file_exists(p));
  tpath(p, sizeof p, "x.npz");
  CU_ASSERT_EQUAL(io_can_write_solution(p, inst, err, sizeof err), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "not as .npz"));
  /* any other extension: the plain vector */
  tpath(p, sizeof p, "sol.txt");
  CU_ASSERT_EQUAL(io_write_solution(p, lcp, x, NULL, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT_EQUAL(io_read_vector(p, 2, back, err, sizeof err), SLV_CONVERGED);
  CU_ASSERT(memcmp(back, x, 2 * sizeof(double)) == 0);
  io_instance_free(lcp);
  io_instance_free(inst);
}

int main(void) {
  gsl_set_error_handler_off();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the test's own probing stays quiet */
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("fclib", suite_init, suite_clean);
  CU_add_test(s, "merit_fclib = libfclib's MERIT_1 on every local file", test_merit);
  CU_add_test(s, "global problems: sizes, W symmetric PSD, dense reference", test_global);
  CU_add_test(s, "global problems written by hand: W = H' M^-1 H exactly", test_global_hand);
  CU_add_test(s, "a 30,000-row global problem: sparse W", test_global_large);
  CU_add_test(s, "bad HDF5 input: not HDF5, truncated, empty", test_bad_not_hdf5);
  CU_add_test(s, "bad HDF5 input: missing objects", test_bad_missing);
  CU_add_test(s, "bad HDF5 input: wrong dimensions", test_bad_dims);
  CU_add_test(s, "bad HDF5 input: types, values, indices, sizes", test_bad_values);
  CU_add_test(s, "bad HDF5 input: unsupported (2-D, V, rolling)", test_bad_unsupported);
  CU_add_test(s, "bad HDF5 input: global (G, M not symmetric or PD, H's size)", test_bad_global);
  CU_add_test(s, "a global problem's 2001-dof block: the sparse Cholesky", test_bad_global_big);
  CU_add_test(s, "damaged HDF5 files: no exit, no crash", test_damaged);
  CU_add_test(s, "writing: bit-identical, refusals", test_write);
  CU_add_test(s, "written with HDF5, read by fclib_read_local", test_written_for_libfclib);
  CU_add_test(s, "a global problem written as /fclib_global", test_global_written);
  CU_add_test(s, "a global problem written as a gfc3d .dat", test_gfc3d_written);
  CU_add_test(s, "round trips of every shared problem", test_roundtrip_shared);
  CU_add_test(s, "the memory cap", test_memory_cap);
  CU_add_test(s, "solutions and guesses (fclib_solution)", test_solutions);
  CU_add_test(s, "the solution of a global problem: v, u, r", test_global_solution);
  return tst_run();
}
