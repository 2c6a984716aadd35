/* tst_fprob.c -- see tst_fprob.h. */
#include "tst_fprob.h"
#include "tst_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void fprob_free(fprob *f) {
  free(f->fblk);
  free(f->fJ);
  free(f->fK);
  free(f->fd);
  free(f->b);
  free(f->lo);
  free(f->hi);
  free(f->mu);
  free(f->findex);
  free(f->A);
  free(f->finvm);
  free(f->finvi);
}

/* Row i's slot over block bb (J and K at 12 i + 6 slot), or -1 when
 * neither slot is bb; when both are, the second (a dense copy of J written
 * slot by slot keeps the second). */
static int slot_of(const fprob *f, int i, int bb) {
  return f->fblk[2 * i + 1] == bb ? 1 : f->fblk[2 * i] == bb ? 0 : -1;
}

/* The reference A = J K^T + D, entry by entry: A_ij = d_i [i = j] + the sum
 * over the blocks rows i and j share, in increasing block order, of
 * J_i,block . K_j,block.  These are the nonzero terms of the product of
 * dense copies of J and K over all 6 nblk columns, in that product's order
 * (the other terms are zeros), so A has the same bits at O(n^2) instead of
 * O(n^2 nblk) cost. */
static void dense_reference(fprob *f) {
  int n = f->n;
  f->A = calloc((size_t)n * n, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int blk[2] = { f->fblk[2 * i], f->fblk[2 * i + 1] };
      if (blk[0] > blk[1]) blk[0] = blk[1], blk[1] = f->fblk[2 * i];
      double s = i == j ? f->fd[i] : 0.0;
      for (int t = 0; t < 2; t++) {
        int bb = blk[t], si, sj;
        if (bb < 0 || (t == 1 && bb == blk[0])) continue;
        if ((si = slot_of(f, i, bb)) < 0 || (sj = slot_of(f, j, bb)) < 0) continue;
        const double *J = f->fJ + 12 * (size_t)i + 6 * si, *K = f->fK + 12 * (size_t)j + 6 * sj;
        for (int e = 0; e < 6; e++) s += J[e] * K[e];
      }
      f->A[i + (size_t)j * n] = s;
    }
}

/* A random contact-like problem: ncon groups of 3 rows (normal, two
 * friction rows findex'ed to it) on random block pairs (a slot is -1 with
 * probability 1/4, as for a static body), W_beta = B B^T / 6 + 0.5 I; or,
 * rigid, the rigid-body form (see tst_fprob.h; rigid = 2: isotropic); with
 * the dense reference A if dense. */
static void make(fprob *f, int ncon, int nblk, unsigned long seed, int rigid, int dense) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  int n = 3 * ncon; /* rows */
  memset(f, 0, sizeof *f);
  f->n = n;
  f->nblk = nblk;
  f->fblk = malloc(2 * (size_t)n * sizeof(int));
  f->fJ = calloc(12 * (size_t)n, sizeof(double));
  f->fK = calloc(12 * (size_t)n, sizeof(double));
  f->fd = malloc((size_t)n * sizeof(double));
  f->b = malloc((size_t)n * sizeof(double));
  f->lo = malloc((size_t)n * sizeof(double));
  f->hi = malloc((size_t)n * sizeof(double));
  f->mu = calloc((size_t)n, sizeof(double));
  f->findex = malloc((size_t)n * sizeof(int));
  double *W = malloc(36 * (size_t)nblk * sizeof(double));
  if (rigid) f->finvm = malloc((size_t)nblk * sizeof(double));
  if (rigid == 2) f->finvi = malloc((size_t)nblk * sizeof(double));
  for (int bb = 0; bb < nblk; bb++) {
    double B[36];
    for (int k = 0; k < 36; k++) B[k] = gsl_rng_uniform(r) - 0.5;
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
        double s = i == j ? 0.5 : 0.0;
        for (int k = 0; k < 6; k++) s += B[i * 6 + k] * B[j * 6 + k] / 6.0;
        W[36 * bb + i * 6 + j] = s;
      }
    if (rigid) { /* diag(m^-1 I3, the angular 3x3 block) */
      f->finvm[bb] = 0.5 + gsl_rng_uniform(r);
      for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
          if (i < 3 || j < 3) W[36 * bb + i * 6 + j] = i == j ? f->finvm[bb] : 0.0;
    }
    if (rigid == 2) { /* the angular block finvi I3 */
      f->finvi[bb] = 0.5 + gsl_rng_uniform(r);
      for (int i = 3; i < 6; i++)
        for (int j = 3; j < 6; j++) W[36 * bb + i * 6 + j] = i == j ? f->finvi[bb] : 0.0;
    }
  }
  for (int c = 0; c < ncon; c++) {
    int b0 = (int)gsl_rng_uniform_int(r, (unsigned long)nblk), b1;
    do b1 = (int)gsl_rng_uniform_int(r, (unsigned long)nblk);
    while (b1 == b0);
    if (gsl_rng_uniform(r) < 0.25) b1 = -1;
    for (int q = 0; q < 3; q++) {
      int i = 3 * c + q;
      f->fblk[2 * i] = b0;
      f->fblk[2 * i + 1] = b1;
      for (int k = 0; k < 2; k++) {
        int bb = f->fblk[2 * i + k];
        if (bb < 0) continue;
        double *J = f->fJ + 12 * i + 6 * k, *K = f->fK + 12 * i + 6 * k;
        for (int e = 0; e < 6; e++) J[e] = gsl_rng_uniform(r) - 0.5;
        if (rigid && k == 1 && b0 >= 0) /* one direction at one point: -n on body 1 */
          for (int e = 0; e < 3; e++) J[e] = -J[e - 6];
        if (rigid == 2) /* zeros of both signs among the angular entries */
          for (int e = 3; e < 6; e++) {
            double u = gsl_rng_uniform(r);
            if (u < 0.125) J[e] = u < 0.0625 ? 0.0 : -0.0;
          }
        for (int e = 0; e < 6; e++) {
          K[e] = 0;
          for (int g = 0; g < 6; g++) K[e] += W[36 * bb + e * 6 + g] * J[g];
        }
        if (rigid) /* one multiply, as libdynamics forms it */
          for (int e = 0; e < 3; e++) K[e] = f->finvm[bb] * J[e];
        if (rigid == 2)
          for (int e = 3; e < 6; e++) K[e] = f->finvi[bb] * J[e];
      }
      f->fd[i] = 1e-3 * gsl_rng_uniform(r);
      f->b[i] = 2.0 * gsl_rng_uniform(r) - 1.0;
      f->lo[i] = q == 0 ? 0.0 : -INFINITY;
      f->hi[i] = INFINITY;
      f->findex[i] = q == 0 ? -1 : 3 * c;
      f->mu[i] = q == 0 ? 0.0 : 0.5;
    }
  }
  if (dense) dense_reference(f);
  free(W);
  gsl_rng_free(r);

  slv_problem p = slv_problem_empty();
  p.n = n;
  p.storage = SLV_FACTORED;
  p.nblk = nblk;
  p.fblk = f->fblk;
  p.fJ = f->fJ;
  p.fK = f->fK;
  p.fd = f->fd;
  p.b = f->b;
  p.lo = f->lo;
  p.hi = f->hi;
  p.findex = f->findex;
  p.mu = f->mu;
  f->p = p;
}

void fprob_make(fprob *f, int ncon, int nblk, unsigned long seed) {
  make(f, ncon, nblk, seed, 0, 1);
}

void fprob_make_large(fprob *f, int ncon, int nblk, unsigned long seed) {
  make(f, ncon, nblk, seed, 0, 0);
}

void fprob_make_rigid(fprob *f, int ncon, int nblk, unsigned long seed) {
  make(f, ncon, nblk, seed, 1, 1);
}

void fprob_make_isotropic(fprob *f, int ncon, int nblk, unsigned long seed) {
  make(f, ncon, nblk, seed, 2, 1);
}

slv_problem fprob_dense(const fprob *f) {
  slv_problem q = f->p;
  q.storage = SLV_DENSE;
  q.A = f->A;
  q.lda = f->n;
  return q;
}

double fprob_residual(const fprob *f, const double *x) {
  return tst_scaled_dense_findex(f->n, f->A, f->b, f->lo, f->hi, f->findex, f->mu, x);
}
