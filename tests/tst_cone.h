/* tst_cone.h -- test cases shared by the Coulomb-cone QP solvers (pcg_cone,
 * apgd): hand-derived single-contact cases under both laws, mu = 0 against
 * the LCP, planted multi-contact problems, Coulomb-law agreement, CSR =
 * dense, warm start, history, honest failures.  Every case is run for the
 * solver named at registration; the residuals are recomputed here, with
 * this file's own projection, not the library's.
 */
#ifndef TST_CONE_H
#define TST_CONE_H

#include <CUnit/CUnit.h>

#include "slv.h"
#include "io.h"

/* Add the shared cone cases to suite s, run with solver `name`. */
void tst_cone_add_tests(CU_pSuite s, const char *name);

/* Badly scaled rows (issue 62: the humanoid's joint rows have diagonal
 * 0.5 .. 7.8e3): a planted problem (12 contacts, 6 box and free rows,
 * associated law) with its contacts and rows scaled symmetrically,
 * A' = S A S, b' = S b, x' = S^-1 x*, s from 0.7 to 80 (the diagonal over
 * four decades, the same for the three rows of a contact).  A solver that
 * works in the metric D = diag(A) (per contact, the mean;
 * docs/cone-solvers.md, "Scaling") is invariant under such a scaling: both must
 * converge within 2000 iterations to x*, the scaled one in at most twice
 * the unscaled one's iterations + 20.  On main before the scaling apgd
 * needed more than 2000 (one step length set by the heaviest rows moves
 * the light ones by little). */
void tst_cone_row_scaling(const char *solver);

/* Independent natural map of a dense n x n problem: rows[0..nc) are the
 * first rows of the cones (3 rows each, increasing), every other row is a
 * box row [lo, hi] (lo/hi NULL: 0 / +inf).  coulomb: with the De Saxce
 * shift w^ = w + (mu |w_t|, 0, 0).  Returns the library's convergence
 * measure res_scaled, computed here from its definition (docs/convergence.md):
 * the inf-norm of x/xs - P(x/xs - w^/s_c) over the cones and of
 * mid((x - hi)/xs, w/s_i, (x - lo)/xs) over the rows, xs = ||x||_inf, s the
 * row's (cone's) own scale (w = A x + b in long double; this file's own
 * cone projection).  _abs: the same natural map unscaled (res_nat_inf). */
double tst_cone_natres(int n, const double *A, const double *b, const double *lo, const double *hi,
                       int nc, const int *rows, const double *mu, int coulomb, const double *x);
double tst_cone_natres_abs(int n, const double *A, const double *b, const double *lo,
                           const double *hi, int nc, const int *rows, const double *mu, int coulomb,
                           const double *x);

/* This file's own projection onto K_mu (not the library's). */
void tst_cone_project(double mu, const double *v, double *out);

/* Planted problem with nc contacts and nbox extra rows interleaved (free and
 * two-sided boxes [-0.5, 0.7], alternately): unless keep_A, A = B B^T / n +
 * eps I (tst_planted_spd); contact c is sticking (x* inside K, w* = 0),
 * sliding (x* on the boundary) or separated (x* = 0) for c % 3 = 0, 1, 2,
 * with w* complementary to x* under the law (coulomb: De Saxce, else
 * associated), and b = w* - A x*.  mu in [0.2, 0.8], except contact 4 (if
 * nc > 4), mu = 0.  Sizes: n = 3 nc + nbox (A: n*n; b, lo, hi, xs: n;
 * rows, mu: nc).  Returns n. */
int tst_cone_planted(int nc, int nbox, double eps, unsigned long seed, int coulomb, int keep_A,
                     double *A, double *b, double *lo, double *hi, int *rows, double *mu,
                     double *xs);


/* A planted multi-contact problem owned by the test (dense A and its CSR
 * copy); see tst_cone_case_plant in tst_cone.c for the construction. */
typedef struct {
  int n, nc;
  double *A, *b, *lo, *hi, *xs, *cmu;
  int *rows;
  int *Ap, *Aj; /* CSR copy of A */
  double *Ax;
} tst_cone_case;
void tst_cone_case_plant(tst_cone_case *P, int nc, int nbox, double mu, slv_cone_law law,
                         int sparse, unsigned long seed);
void tst_cone_case_free(tst_cone_case *P);
/* A of p as a dense column-major n x n array (dense or CSR storage); the
 * caller frees it. */
double *tst_cone_dense_of(const slv_problem *p);
/* tst_cone_natres on p (cones, law, bounds) with its A made dense. */
double tst_cone_problem_natres(const slv_problem *p, const double *x);
/* The same natural map in the 2-norm, over max(1, ||b||_2): the test's own
 * res_rel_2 (the measure of opt.norm = SLV_NORM_2). */
double tst_cone_problem_natres2(const slv_problem *p, const double *x);

/* The Siconos FC3D file name of ../shared/datasets/siconos/fc3d, read; on
 * failure a CU_FAIL with the reader's message and NULL. */
io_instance *tst_cone_read_fc3d(const char *name);

/* The problem view of P under law, dense or CSR. */
slv_problem tst_cone_case_view(const tst_cone_case *P, slv_cone_law law, int csr);

#endif
