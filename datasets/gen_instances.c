/* gen_instances.c -- the generator of lcplab's bundled instance set.
 *
 *   gen_instances --type spd|contact|boxed-findex|box|joints|scaled-spd|... --n N [--seed S]
 *                 --out FILE [--force]
 *
 * Writes one problem in lcplab's own text format (SLV_FMT_LCPLAB, through
 * slv_write; see datasets/README.md) with the reference solution x_ref where
 * one is planted.  Sign convention (slv.h): w = A x + b, lo <= x <= hi,
 * x_i = lo_i => w_i >= 0, x_i = hi_i => w_i <= 0, inside => w_i = 0.
 * All randomness comes from one GSL gsl_rng_mt19937 seeded with S (default
 * 1), drawn in a fixed order, so (type, n, seed) fixes the random draws;
 * the file is bit-identical for the same libm and OpenBLAS kernel (checked:
 * OPENBLAS_NUM_THREADS=1 and 2 give the same file at n = 1000; another CPU's
 * kernel may round the products differently).  Products use OpenBLAS
 * (cblas_dsyrk, cblas_dgemv).
 *
 * Families ("datasets/README.md, Bundled instances" is the user-facing copy):
 *
 *   spd           A = B B^T / n + 1e-2 I, B n x n with N(0,1) entries.
 *                 Planted: a random half of the rows (exactly floor(n/2),
 *                 chosen by shuffling) has x*_i ~ U(0,1), w*_i = 0; the other
 *                 rows have x*_i = 0, w*_i ~ U(0,1).  b = w* - A x*.  A is
 *                 positive definite, so x* is the unique solution: x_ref = x*.
 *
 *   contact       "contact-like" A = J M^-1 J^T + eps I.  nb = ceil(nc/4)
 *                 free rigid bodies with 6 DOF (mass m ~ U(0.5, 2), principal
 *                 inertia m * U(0.1, 1) per axis; M^-1 is diagonal).  One
 *                 normal row per contact (nc = n contacts); a contact joins
 *                 body a to body b != a with probability 0.7, else body a to
 *                 the ground (always the ground when nb = 1).  Normal nrm:
 *                 random unit vector; lever arms r_a, r_b ~ U(-1,1)^3; row
 *                 J_c = [ nrm, r_a x nrm ] on body a, [ -nrm, -(r_b x nrm) ]
 *                 on body b.  eps = 1e-6 * mean(diag(J M^-1 J^T)) (CFM-like).
 *                 b = J v - |N(0, 0.5)| per row, v ~ N(0,1)^(6 nb): the
 *                 velocity after an unconstrained step, approaching contacts.
 *                 Standard LCP (lo = 0, hi = inf), not planted: no x_ref.
 *
 *   boxed-findex  the friction pyramid as a boxed LCP with ODE's findex:
 *                 nc = floor(n/3) contacts, rows (normal, t1, t2) per contact
 *                 (so the written n is 3 floor(n/3)), (t1, t2) an orthonormal
 *                 tangent basis of nrm; the same body model and A as contact.
 *                 Normal rows: lo = 0, hi = inf, b = J v - |N(0, 0.5)|.
 *                 Tangent rows: findex = their normal row, mu = 0.5, bounds
 *                 -mu x_n .. mu x_n (lo/hi stored as -mu / mu), b = J v.
 *                 Not planted: no x_ref.
 *
 *   box           A as in spd; lo_i = -U(0.1, 1), hi_i = U(0.1, 1).  Planted:
 *                 the rows are shuffled into three groups of about n/3: at lo
 *                 (x* = lo, w* ~ U(0,1)), at hi (x* = hi, w* ~ -U(0,1)),
 *                 inside (x* = lo + U(0,1)(hi - lo), w* = 0).  b = w* - A x*;
 *                 x_ref = x* (unique since A is positive definite).
 *
 *   joints        A as in spd, every row an equality (lo = -inf, hi = +inf:
 *                 pure joints, the problems the `direct` solver takes).
 *                 Planted: x*_i = 2 U(0,1) - 1, w* = 0, b = -A x*; x_ref = x*.
 *
 *   scaled-spd    A = D S D, S as in spd, D_i = 10^e_i with e_i ~ U(-3.5, 3.5)
 *                 drawn after S: row scalings over 7 decades, condition
 *                 number 1e14-1e15 by numpy (the badly scaled matrices on which
 *                 pivoting codes must pick tolerances relative to each row).
 *                 Planted as spd in the scaled variables: x*_i = U(0,1) / D_i
 *                 or w*_i = D_i U(0,1); x_ref = x*.
 *
 *   sparse-contact, sparse-box, sparse-findex: the contact construction
 *                 above with neighbouring bodies and A stored as CSR, for
 *                 sizes up to 10^6 rows (a dense A of n = 10^4 is 800 MB).
 *                 nb = nc bodies (one contact per body on average: with
 *                 four, as in contact, the local clusters are so over-
 *                 constrained that pgs stalls on most sparse-findex
 *                 instances, measured at n = 999); they stand in a row; a
 *                 contact joins body a
 *                 (uniform) to body b = a + d, d uniform in {-3..-1, 1..3}
 *                 (the ground when b falls outside) with probability 0.7,
 *                 else to the ground; so each row couples to the few rows
 *                 on its two bodies (about 30 nonzeros a row), and a sparse
 *                 LU of A fills little.  A = (J M^-1/2)(J M^-1/2)^T + eps I
 *                 entry by entry, the bodies of a pair in ascending order,
 *                 so A is exactly symmetric; eps as in contact.
 *                   sparse-contact  one normal row per contact, lo = 0,
 *                                   hi = inf (LCP);
 *                   sparse-box      the same rows with lo_i = -U(0.1, 1),
 *                                   hi_i = U(0.1, 1), drawn after b
 *                                   (boxed, as bounded motor rows);
 *                   sparse-findex   rows (normal, t1, t2) per contact,
 *                                   findex friction with mu = 0.5, as
 *                                   boxed-findex (n rounded down to 3 nc).
 *                 b as in contact.  Not planted: no x_ref.
 *
 * For the idea of the contact family compare ../shared/peers/src/gen_lcp.c
 * (types contact / contact-box); this is an independent implementation, the
 * files are not identical to the peers'.
 *
 * Exit status: 0 written; 2 bad arguments, or --out exists and no --force
 * (message on stderr); 1 the problem could not be built or written (no
 * memory, slv_write error).  The file is written to FILE.tmp.PID and then
 * moved into place, so an interrupted run never leaves a partial FILE.
 */
#define _POSIX_C_SOURCE 200809L

/* OpenBLAS's cblas.h first; gsl_randist.h pulls in gsl_cblas.h (through
 * gsl_matrix.h), which redeclares the same enums.  Marking gsl_cblas.h as
 * already included lets GSL's blas types use OpenBLAS's identical enums. */
#include <cblas.h>
#define __GSL_CBLAS_H__
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slv.h"
#include "slv_io.h"

#define GEN_MAX_N        10000 /* dense A of 800 MB; larger sets: the sparse families */
#define GEN_MAX_N_SPARSE 1000000
#define GEN_MU           0.5 /* friction coefficient of the boxed-findex family */

static void usage(FILE *f) {
  fprintf(f,
          "usage: gen_instances --type spd|contact|boxed-findex|box|joints|sparse-contact|\n"
          "                            sparse-box|sparse-findex|scaled-spd --n N [--seed S]\n"
          "                     --out FILE [--force]\n"
          "  writes one instance in lcplab's text format (datasets/README.md);\n"
          "  N in 1..%d (boxed-findex: 3..%d, rounded down to a multiple of 3);\n"
          "  sparse-*: N up to %d, A in CSR (sparse-findex: a multiple of 3);\n"
          "  S: GSL mt19937 seed, default 1; an existing FILE is kept unless --force.\n",
          GEN_MAX_N, GEN_MAX_N, GEN_MAX_N_SPARSE);
}

/* ---- small helpers --------------------------------------------------------- */

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_ulong(const char *s, unsigned long *out) {
  char *end;
  errno = 0;
  if (s[0] == '-') return -1;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || end == s || *end != '\0') return -1;
  *out = v;
  return 0;
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

/* A uniformly distributed unit vector (normalised Gaussian; retried if tiny). */
static void unit3(gsl_rng *r, double *v) {
  double s;
  do {
    for (int k = 0; k < 3; k++) v[k] = gsl_ran_gaussian(r, 1.0);
    s = norm3(v);
  } while (s < 1e-6);
  for (int k = 0; k < 3; k++) v[k] /= s;
}

/* Copies the lower triangle of the n x n column-major A onto the upper one,
 * so A is exactly symmetric (dsyrk fills one triangle). */
static void symmetrize_from_lower(int n, double *A) {
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++) A[j + (size_t)i * n] = A[i + (size_t)j * n];
}

/* A = B B^T / n + 1e-2 I, B n x n with N(0,1) entries drawn column by column. */
static int fill_spd(gsl_rng *r, int n, double *A) {
  double *B = malloc((size_t)n * n * sizeof *B);
  if (!B) return -1;
  for (size_t k = 0; k < (size_t)n * n; k++) B[k] = gsl_ran_gaussian(r, 1.0);
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0 / n, B, n, 0.0, A, n);
  symmetrize_from_lower(n, A);
  for (int i = 0; i < n; i++) A[i + (size_t)i * n] += 1e-2;
  free(B);
  return 0;
}

/* b = w - A x (A n x n column-major). */
static void planted_b(int n, const double *A, const double *x, const double *w, double *b) {
  memcpy(b, w, (size_t)n * sizeof *b);
  cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, A, n, x, 1, 1.0, b, 1);
}

/* perm = a uniformly random permutation of 0..n-1. */
static void random_perm(gsl_rng *r, int n, int *perm) {
  for (int i = 0; i < n; i++) perm[i] = i;
  if (n > 1) gsl_ran_shuffle(r, perm, (size_t)n, sizeof *perm);
}

/* ---- families --------------------------------------------------------------- */

static int gen_spd(gsl_rng *r, slv_instance *inst) {
  int n = inst->n, rc = -1;
  double *w = calloc((size_t)n, sizeof *w);
  int *perm = malloc((size_t)n * sizeof *perm);
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !perm || !inst->x_ref || fill_spd(r, n, inst->A)) goto done;
  random_perm(r, n, perm);
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    if (k < n / 2)
      inst->x_ref[i] = gsl_rng_uniform_pos(r); /* x* > 0, w* = 0 */
    else
      w[i] = gsl_rng_uniform_pos(r); /* x* = 0, w* > 0 */
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  /* lo = 0, hi = +inf: as allocated by slv_instance_new_dense */
  rc = 0;
done:
  free(w);
  free(perm);
  return rc;
}

/* scaled-spd: A = D S D with S as in spd and D_i = 10^e_i, e_i ~ U(-GEN_SCALE_DEC,
 * GEN_SCALE_DEC); A_ij = S_ij (D_i D_j), so A is exactly symmetric.  The
 * planted solution is the spd one in the scaled variables: x*_i = U(0,1) / D_i
 * on a random half, w*_i = D_i U(0,1) on the other. */
#define GEN_SCALE_DEC 3.5
static int gen_scaled_spd(gsl_rng *r, slv_instance *inst) {
  int n = inst->n, rc = -1;
  double *w = calloc((size_t)n, sizeof *w), *D = malloc((size_t)n * sizeof *D);
  int *perm = malloc((size_t)n * sizeof *perm);
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !D || !perm || !inst->x_ref || fill_spd(r, n, inst->A)) goto done;
  for (int i = 0; i < n; i++) D[i] = pow(10.0, GEN_SCALE_DEC * (2 * gsl_rng_uniform(r) - 1));
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) inst->A[i + (size_t)j * n] *= D[i] * D[j];
  random_perm(r, n, perm);
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    if (k < n / 2)
      inst->x_ref[i] = gsl_rng_uniform_pos(r) / D[i]; /* x* > 0, w* = 0 */
    else
      w[i] = gsl_rng_uniform_pos(r) * D[i]; /* x* = 0, w* > 0 */
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  rc = 0;
done:
  free(w);
  free(D);
  free(perm);
  return rc;
}

static int gen_box(gsl_rng *r, slv_instance *inst) {
  int n = inst->n, rc = -1;
  double *w = calloc((size_t)n, sizeof *w);
  int *perm = malloc((size_t)n * sizeof *perm);
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !perm || !inst->x_ref || fill_spd(r, n, inst->A)) goto done;
  for (int i = 0; i < n; i++) {
    inst->lo[i] = -(0.1 + 0.9 * gsl_rng_uniform(r));
    inst->hi[i] = 0.1 + 0.9 * gsl_rng_uniform(r);
  }
  random_perm(r, n, perm);
  for (int k = 0; k < n; k++) {
    int i = perm[k];
    if (k % 3 == 0) { /* at lo, pushed up by w > 0 */
      inst->x_ref[i] = inst->lo[i];
      w[i] = gsl_rng_uniform_pos(r);
    } else if (k % 3 == 1) { /* at hi, pushed down by w < 0 */
      inst->x_ref[i] = inst->hi[i];
      w[i] = -gsl_rng_uniform_pos(r);
    } else { /* strictly inside, w = 0 */
      inst->x_ref[i] = inst->lo[i] + gsl_rng_uniform_pos(r) * (inst->hi[i] - inst->lo[i]);
    }
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  rc = 0;
done:
  free(w);
  free(perm);
  return rc;
}

static int gen_joints(gsl_rng *r, slv_instance *inst) {
  int n = inst->n;
  double *w = calloc((size_t)n, sizeof *w); /* w* = 0 */
  inst->x_ref = calloc((size_t)n, sizeof *inst->x_ref);
  if (!w || !inst->x_ref || fill_spd(r, n, inst->A)) {
    free(w);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    inst->lo[i] = -INFINITY;
    inst->hi[i] = INFINITY;
    inst->x_ref[i] = 2 * gsl_rng_uniform(r) - 1;
  }
  planted_b(n, inst->A, inst->x_ref, w, inst->b);
  free(w);
  return 0;
}

/* contact (friction = 0: one normal row per contact, nc = n) and
 * boxed-findex (friction = 1: rows n, t1, t2 per contact, nc = n / 3). */
static int gen_contact(gsl_rng *r, slv_instance *inst, int friction) {
  int n = inst->n, rows_per = friction ? 3 : 1, nc = n / rows_per;
  int nb = (nc + 3) / 4, nd = 6 * nb, rc = -1;
  double *minv = malloc((size_t)nd * sizeof *minv); /* diagonal of M^-1 */
  double *J = calloc((size_t)n * nd, sizeof *J);    /* n x nd, column-major */
  double *v = malloc((size_t)nd * sizeof *v);
  if (!minv || !J || !v) goto done;
  if (friction) {
    inst->findex = malloc((size_t)n * sizeof *inst->findex);
    inst->mu = calloc((size_t)n, sizeof *inst->mu);
    if (!inst->findex || !inst->mu) goto done;
  }

  for (int k = 0; k < nb; k++) {
    double m = 0.5 + 1.5 * gsl_rng_uniform(r);
    for (int d = 0; d < 3; d++) minv[6 * k + d] = 1.0 / m;
    for (int d = 0; d < 3; d++) minv[6 * k + 3 + d] = 1.0 / (m * (0.1 + 0.9 * gsl_rng_uniform(r)));
  }

  for (int c = 0; c < nc; c++) {
    int a = (int)gsl_rng_uniform_int(r, (unsigned long)nb), bb = -1;
    if (nb > 1 && gsl_rng_uniform(r) < 0.7) {
      bb = (int)gsl_rng_uniform_int(r, (unsigned long)(nb - 1));
      if (bb >= a) bb++; /* uniform over the bodies other than a */
    }
    double nrm[3], t1[3], t2[3], tmp[3], ra[3], rb[3], s;
    unit3(r, nrm);
    do { /* t1: a random direction orthogonal to nrm */
      unit3(r, tmp);
      cross3(nrm, tmp, t1);
      s = norm3(t1);
    } while (s < 1e-3);
    for (int d = 0; d < 3; d++) t1[d] /= s;
    cross3(nrm, t1, t2);
    for (int d = 0; d < 3; d++) {
      ra[d] = 2.0 * gsl_rng_uniform(r) - 1.0;
      rb[d] = 2.0 * gsl_rng_uniform(r) - 1.0;
    }
    const double *dir[3] = { nrm, t1, t2 };
    for (int q = 0; q < rows_per; q++) {
      int i = rows_per * c + q;
      double ang[3];
      cross3(ra, dir[q], ang);
      for (int d = 0; d < 3; d++) {
        J[i + (size_t)(6 * a + d) * n] = dir[q][d];
        J[i + (size_t)(6 * a + 3 + d) * n] = ang[d];
      }
      if (bb >= 0) {
        cross3(rb, dir[q], ang);
        for (int d = 0; d < 3; d++) {
          J[i + (size_t)(6 * bb + d) * n] = -dir[q][d];
          J[i + (size_t)(6 * bb + 3 + d) * n] = -ang[d];
        }
      }
      if (friction) {
        inst->findex[i] = q == 0 ? -1 : rows_per * c;
        inst->mu[i] = q == 0 ? 0.0 : GEN_MU;
        inst->lo[i] = q == 0 ? 0.0 : -GEN_MU;
        inst->hi[i] = q == 0 ? INFINITY : GEN_MU;
      }
    }
  }

  /* b = J v - |N(0, 0.5)| on normal rows, J v on tangent rows (J unscaled) */
  for (int k = 0; k < nd; k++) v[k] = gsl_ran_gaussian(r, 1.0);
  cblas_dgemv(CblasColMajor, CblasNoTrans, n, nd, 1.0, J, n, v, 1, 0.0, inst->b, 1);
  for (int i = 0; i < n; i++)
    if (i % rows_per == 0) inst->b[i] -= fabs(gsl_ran_gaussian(r, 0.5));

  /* A = (J M^-1/2)(J M^-1/2)^T + eps I */
  for (int k = 0; k < nd; k++) {
    double sq = sqrt(minv[k]);
    for (int i = 0; i < n; i++) J[i + (size_t)k * n] *= sq;
  }
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, nd, 1.0, J, n, 0.0, inst->A, n);
  symmetrize_from_lower(n, inst->A);
  double tr = 0.0;
  for (int i = 0; i < n; i++) tr += inst->A[i + (size_t)i * n];
  double eps = 1e-6 * tr / n;
  for (int i = 0; i < n; i++) inst->A[i + (size_t)i * n] += eps;
  rc = 0;
done:
  free(minv);
  free(J);
  free(v);
  return rc;
}

/* ---- sparse families ------------------------------------------------------------ */

/* One row of J M^-1/2 on at most two bodies (body -1: none). */
typedef struct srow {
  int body[2];
  double v[2][6];
} srow;

static double dot6(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* A(i, j) of the rows' J M^-1/2: the shared bodies in ascending order. */
static double sparse_entry(const srow *ri, const srow *rj) {
  double a = 0.0;
  for (int k = 0; k < 2; k++)
    for (int l = 0; l < 2; l++)
      if (ri->body[k] >= 0 && ri->body[k] == rj->body[l]) a += dot6(ri->v[k], rj->v[l]);
  return a;
}

/* The rows of each body (CSR-like: start[nb+1], list). */
static int body_rows(const srow *R, int n, int nb, int **start, int **list) {
  *start = calloc((size_t)nb + 1, sizeof **start);
  *list = malloc((size_t)(2 * n + 1) * sizeof **list);
  if (!*start || !*list) return -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (R[i].body[k] >= 0) (*start)[R[i].body[k] + 1]++;
  for (int q = 0; q < nb; q++) (*start)[q + 1] += (*start)[q];
  int *fill = calloc((size_t)nb, sizeof *fill);
  if (!fill) return -1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      int q = R[i].body[k];
      if (q >= 0) (*list)[(*start)[q] + fill[q]++] = i;
    }
  free(fill);
  return 0;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* A = R R^T + eps I in CSR, columns sorted, into inst. */
static int sparse_assemble(const srow *R, int n, int nb, slv_instance *inst) {
  int *start = NULL, *list = NULL, *cols = NULL, *mark = NULL, rc = -1;
  if (body_rows(R, n, nb, &start, &list)) goto done;
  double tr = 0.0;
  for (int i = 0; i < n; i++) tr += sparse_entry(&R[i], &R[i]);
  double eps = 1e-6 * tr / n;
  cols = malloc((size_t)(2 * n + 1) * sizeof *cols);
  mark = malloc((size_t)n * sizeof *mark);
  inst->Ap = malloc(((size_t)n + 1) * sizeof *inst->Ap);
  size_t cap = (size_t)n * 16, nnz = 0;
  inst->Aj = malloc(cap * sizeof *inst->Aj);
  inst->Ax = malloc(cap * sizeof *inst->Ax);
  if (!cols || !mark || !inst->Ap || !inst->Aj || !inst->Ax) goto done;
  for (int i = 0; i < n; i++) mark[i] = -1;
  for (int i = 0; i < n; i++) {
    int nc = 0;
    for (int k = 0; k < 2; k++) {
      int q = R[i].body[k];
      for (int t = q >= 0 ? start[q] : 0; q >= 0 && t < start[q + 1]; t++)
        if (mark[list[t]] != i) {
          mark[list[t]] = i;
          cols[nc++] = list[t];
        }
    }
    qsort(cols, (size_t)nc, sizeof *cols, cmp_int);
    if (nnz + (size_t)nc > cap) {
      cap = 2 * (nnz + (size_t)nc);
      int *aj = realloc(inst->Aj, cap * sizeof *aj);
      if (!aj) goto done;
      inst->Aj = aj;
      double *ax = realloc(inst->Ax, cap * sizeof *ax);
      if (!ax) goto done;
      inst->Ax = ax;
    }
    inst->Ap[i] = (int)nnz;
    for (int t = 0; t < nc; t++) {
      inst->Aj[nnz] = cols[t];
      inst->Ax[nnz++] = sparse_entry(&R[i], &R[cols[t]]) + (cols[t] == i ? eps : 0.0);
    }
  }
  inst->Ap[n] = (int)nnz;
  rc = 0;
done:
  free(start);
  free(list);
  free(cols);
  free(mark);
  return rc;
}

/* The rows of the sparse families (header); family 5 contact, 6 box, 7 findex. */
static int gen_sparse(gsl_rng *r, int n, int family, slv_instance *inst) {
  int rows_per = family == 7 ? 3 : 1, nc = n / rows_per;
  int nb = nc, rc = -1;
  double *minv = malloc((size_t)6 * nb * sizeof *minv), *v = malloc((size_t)6 * nb * sizeof *v);
  srow *R = calloc((size_t)n, sizeof *R);
  inst->b = calloc((size_t)n, sizeof *inst->b);
  inst->lo = calloc((size_t)n, sizeof *inst->lo);
  inst->hi = malloc((size_t)n * sizeof *inst->hi);
  if (family == 7) {
    inst->findex = malloc((size_t)n * sizeof *inst->findex);
    inst->mu = calloc((size_t)n, sizeof *inst->mu);
  }
  if (!minv || !v || !R || !inst->b || !inst->lo || !inst->hi ||
      (family == 7 && (!inst->findex || !inst->mu)))
    goto done;
  for (int k = 0; k < nb; k++) {
    double m = 0.5 + 1.5 * gsl_rng_uniform(r);
    for (int d = 0; d < 3; d++) minv[6 * k + d] = 1.0 / m;
    for (int d = 0; d < 3; d++) minv[6 * k + 3 + d] = 1.0 / (m * (0.1 + 0.9 * gsl_rng_uniform(r)));
  }
  for (int c = 0; c < nc; c++) {
    int a = (int)gsl_rng_uniform_int(r, (unsigned long)nb), bb = -1;
    if (nb > 1 && gsl_rng_uniform(r) < 0.7) {
      int d = 1 + (int)gsl_rng_uniform_int(r, 3);
      bb = gsl_rng_uniform(r) < 0.5 ? a - d : a + d;
      if (bb < 0 || bb >= nb) bb = -1;
    }
    double nrm[3], t1[3], t2[3], tmp[3], ra[3], rb[3], s;
    unit3(r, nrm);
    do {
      unit3(r, tmp);
      cross3(nrm, tmp, t1);
      s = norm3(t1);
    } while (s < 1e-3);
    for (int d = 0; d < 3; d++) t1[d] /= s;
    cross3(nrm, t1, t2);
    for (int d = 0; d < 3; d++) {
      ra[d] = 2.0 * gsl_rng_uniform(r) - 1.0;
      rb[d] = 2.0 * gsl_rng_uniform(r) - 1.0;
    }
    const double *dir[3] = { nrm, t1, t2 };
    for (int q = 0; q < rows_per; q++) {
      int i = rows_per * c + q;
      srow *row = &R[i];
      double ang[3];
      /* slot 0 the lower body index, so the sums run over bodies in order */
      int lo_first = bb < 0 || a < bb;
      int sa = lo_first ? 0 : 1, sb = 1 - sa;
      row->body[sa] = a;
      row->body[sb] = bb;
      cross3(ra, dir[q], ang);
      for (int d = 0; d < 3; d++) {
        row->v[sa][d] = dir[q][d];
        row->v[sa][3 + d] = ang[d];
      }
      if (bb >= 0) {
        cross3(rb, dir[q], ang);
        for (int d = 0; d < 3; d++) {
          row->v[sb][d] = -dir[q][d];
          row->v[sb][3 + d] = -ang[d];
        }
      }
      if (family == 7) {
        inst->findex[i] = q == 0 ? -1 : rows_per * c;
        inst->mu[i] = q == 0 ? 0.0 : GEN_MU;
        inst->lo[i] = q == 0 ? 0.0 : -GEN_MU;
        inst->hi[i] = q == 0 ? INFINITY : GEN_MU;
      } else {
        inst->hi[i] = INFINITY;
      }
    }
  }
  /* b = J v - |N(0, 0.5)| on normal rows, J v on tangent rows (J unscaled) */
  for (int k = 0; k < 6 * nb; k++) v[k] = gsl_ran_gaussian(r, 1.0);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++)
      if (R[i].body[k] >= 0) inst->b[i] += dot6(R[i].v[k], v + 6 * R[i].body[k]);
    if (i % rows_per == 0) inst->b[i] -= fabs(gsl_ran_gaussian(r, 0.5));
  }
  if (family == 6)
    for (int i = 0; i < n; i++) {
      inst->lo[i] = -(0.1 + 0.9 * gsl_rng_uniform(r));
      inst->hi[i] = 0.1 + 0.9 * gsl_rng_uniform(r);
    }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      for (int c = 0; c < 6 && R[i].body[k] >= 0; c++)
        R[i].v[k][c] *= sqrt(minv[6 * R[i].body[k] + c]);
  rc = sparse_assemble(R, n, nb, inst);
done:
  free(minv);
  free(v);
  free(R);
  return rc;
}

/* ---- output ------------------------------------------------------------------ */

/* inst->name = base name of path without its extension. */
static void set_name(slv_instance *inst, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(inst->name, sizeof inst->name, "%s", base);
  char *dot = strrchr(inst->name, '.');
  if (dot && dot != inst->name) *dot = '\0';
}

/* Writes to a temporary file beside out, then links it into place (no
 * --force: fails if out appeared meanwhile) or renames over it (--force). */
static int write_instance(const slv_instance *inst, const char *out, int force) {
  char tmp[PATH_MAX], err[512];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid()) >= (int)sizeof tmp) {
    fprintf(stderr, "gen_instances: --out %s: path too long\n", out);
    return 2;
  }
  slv_status st = slv_write(tmp, SLV_FMT_LCPLAB, inst, err, sizeof err);
  if (st != SLV_OK) {
    fprintf(stderr, "gen_instances: writing %s: %s (%s)\n", out, err, slv_status_str(st));
    unlink(tmp);
    return 1;
  }
  if (!force) {
    if (link(tmp, out) == 0) {
      unlink(tmp);
      return 0;
    }
    if (errno == EEXIST) {
      fprintf(stderr, "gen_instances: --out %s: file exists (use --force to overwrite)\n", out);
      unlink(tmp);
      return 2;
    }
    /* file systems without hard links: fall through to rename */
  }
  if (rename(tmp, out) != 0) {
    fprintf(stderr, "gen_instances: --out %s: cannot move %s into place: %s\n", out, tmp,
            strerror(errno));
    unlink(tmp);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *type = NULL, *out = NULL;
  long n = -1;
  unsigned long seed = 1;
  int force = 0;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_val = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--force")) {
      force = 1;
    } else if (!strcmp(a, "--type") || !strcmp(a, "--n") || !strcmp(a, "--seed") ||
               !strcmp(a, "--out")) {
      if (!has_val) {
        fprintf(stderr, "gen_instances: %s needs a value\n", a);
        usage(stderr);
        return 2;
      }
      const char *val = argv[++i];
      if (!strcmp(a, "--type")) {
        type = val;
      } else if (!strcmp(a, "--out")) {
        out = val;
      } else if (!strcmp(a, "--n")) {
        if (parse_int(val, 1, GEN_MAX_N_SPARSE, &n)) {
          fprintf(stderr, "gen_instances: --n '%s': expected an integer in 1..%d\n", val,
                  GEN_MAX_N_SPARSE);
          return 2;
        }
      } else if (parse_ulong(val, &seed)) {
        fprintf(stderr, "gen_instances: --seed '%s': expected a non-negative integer\n", val);
        return 2;
      }
    } else {
      fprintf(stderr, "gen_instances: unknown argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  if (!type || n < 0 || !out || !*out) {
    fprintf(stderr, "gen_instances: --type, --n and --out are required\n");
    usage(stderr);
    return 2;
  }
  int family;
  if (!strcmp(type, "spd"))
    family = 0;
  else if (!strcmp(type, "contact"))
    family = 1;
  else if (!strcmp(type, "boxed-findex"))
    family = 2;
  else if (!strcmp(type, "box"))
    family = 3;
  else if (!strcmp(type, "joints"))
    family = 4;
  else if (!strcmp(type, "sparse-contact"))
    family = 5;
  else if (!strcmp(type, "sparse-box"))
    family = 6;
  else if (!strcmp(type, "sparse-findex"))
    family = 7;
  else if (!strcmp(type, "scaled-spd"))
    family = 8;
  else {
    fprintf(stderr,
            "gen_instances: --type '%s': expected spd, contact, boxed-findex, box, joints, "
            "sparse-contact, sparse-box, sparse-findex or scaled-spd\n",
            type);
    return 2;
  }
  int dense = family < 5 || family == 8;
  if (dense && n > GEN_MAX_N) {
    fprintf(stderr,
            "gen_instances: --n %ld: the dense family %s takes n <= %d (sparse-* go "
            "further)\n",
            n, type, GEN_MAX_N);
    return 2;
  }
  if (family == 2 || family == 7) {
    if (n < 3) {
      fprintf(stderr, "gen_instances: --n %ld: %s needs n >= 3 (3 rows per contact)\n", n, type);
      return 2;
    }
    n -= n % 3;
  }
  char dir[PATH_MAX];
  const char *slash = strrchr(out, '/');
  if (snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".") >=
      (int)sizeof dir) {
    fprintf(stderr, "gen_instances: --out %s: path too long\n", out);
    return 2;
  }
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(dir, W_OK) != 0) {
    fprintf(stderr, "gen_instances: --out %s: directory %s does not exist or is not writable\n",
            out, dir);
    return 2;
  }
  if (!force && stat(out, &sb) == 0) {
    fprintf(stderr, "gen_instances: --out %s: file exists (use --force to overwrite)\n", out);
    return 2;
  }

  gsl_set_error_handler_off();
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  slv_instance *inst = !dense ? calloc(1, sizeof *inst) : slv_instance_new_dense((int)n);
  if (inst && !dense) {
    inst->n = (int)n;
    inst->storage = SLV_CSR;
  }
  if (!r || !inst) {
    fprintf(stderr, "gen_instances: out of memory for n = %ld\n", n);
    gsl_rng_free(r);
    slv_instance_free(inst);
    return 1;
  }
  gsl_rng_set(r, seed);
  set_name(inst, out);

  int rc;
  switch (family) {
  case 0: rc = gen_spd(r, inst); break;
  case 1: rc = gen_contact(r, inst, 0); break;
  case 2: rc = gen_contact(r, inst, 1); break;
  case 3: rc = gen_box(r, inst); break;
  case 4: rc = gen_joints(r, inst); break;
  case 8: rc = gen_scaled_spd(r, inst); break;
  default: rc = gen_sparse(r, (int)n, family, inst); break;
  }
  if (rc) {
    fprintf(stderr, "gen_instances: out of memory building %s n = %ld\n", type, n);
    rc = 1;
  } else {
    slv_instance_classify(inst);
    rc = write_instance(inst, out, force);
  }
  slv_instance_free(inst);
  gsl_rng_free(r);
  return rc;
}
