/* tst_fprob.h -- a random contact-like problem in factored storage (slv.h)
 * with its dense A formed independently, for the tests of the solvers that
 * take SLV_FACTORED (test_factored, test_pgs_wide).
 *
 * fprob_make(f, ncon, nblk, seed): ncon groups of 3 rows (normal, two
 * friction rows findex'ed to it, mu 0.5) on random block pairs (slot 1 is -1
 * with probability 1/4, as for a static body); J uniform in [-0.5, 0.5),
 * K = J W with W_beta = B B^T / 6 + 0.5 I (B uniform), d uniform in
 * [0, 1e-3), b uniform in [-1, 1).  The dense reference A = J K^T + diag(d)
 * is formed entry by entry, each a sum over the blocks its two rows share,
 * sharing no code with the library (the bits of a triple loop over dense
 * copies of J and K).  fprob_dense(f) is the same problem, dense.
 * fprob_make_rigid: the same, in rigid-body form: W_beta = diag(m^-1 I3,
 * the angular block of the above), m^-1 uniform in [0.5, 1.5) and kept in
 * finvm (the test's record: the problem does not carry it; pgs_wide finds
 * it from J and K); slot 1's linear J is minus slot 0's (a direction at a
 * point, as body 1 sees it); K's linear columns are finvm J's, one
 * multiply each (as libdynamics forms them).
 * fprob_make_isotropic: the rigid-body form with isotropic bodies: the
 * angular block s_beta I3 too, s_beta uniform in [0.5, 1.5) and kept in
 * finvi, K's angular columns finvi J's, one multiply each (as libdynamics
 * forms them for spheres and cubes); one angular entry of J in eight is
 * +0 or -0 (K keeps its sign).
 * fprob_residual(f, x) judges a solution without the library: its
 * res_scaled, from the definition (tst_scaled_dense_findex).
 * fprob_make_large: fprob_make without the dense reference (A = NULL), for
 * sizes whose n^2 entries do not fit; fprob_dense and fprob_residual need A.
 */
#ifndef TST_FPROB_H
#define TST_FPROB_H

#include "slv.h"

typedef struct {
  int n, nblk;
  int *fblk;
  double *fJ, *fK, *fd, *b, *lo, *hi, *mu;
  int *findex;
  double *A;     /* dense reference, column-major */
  double *finvm; /* rigid form: per block, m^-1 (else NULL) */
  double *finvi; /* isotropic form: per block, the angular scalar (else NULL) */
  slv_problem p;
} fprob;

void fprob_make(fprob *f, int ncon, int nblk, unsigned long seed);
void fprob_make_rigid(fprob *f, int ncon, int nblk, unsigned long seed);
void fprob_make_isotropic(fprob *f, int ncon, int nblk, unsigned long seed);
void fprob_make_large(fprob *f, int ncon, int nblk, unsigned long seed);
void fprob_free(fprob *f);
slv_problem fprob_dense(const fprob *f);
/* The test's own natural-map residual of x (inf-norm), from the dense A
 * and the findex bounds at x: max_i |max(x_i - hi_i, min(w_i, x_i - lo_i))|. */
double fprob_residual(const fprob *f, const double *x);

#endif
