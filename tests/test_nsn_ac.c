/* test_nsn_ac.c -- the Alart-Curnier nonsmooth Newton (nsn_ac), the
 * NSGS-then-Newton hybrid (nsgs_newton) and the proximal point over the
 * same Newton (ppa_nsn), on the Coulomb law:
 *   - planted multi-contact problems (tst_cone_case: sticking, sliding,
 *     separated contacts, mixed with box and free rows), dense and CSR;
 *   - a rank-deficient W = J M^-1 J' (more contact rows than body degrees of
 *     freedom, the normal case of contact dynamics, where the plain Newton
 *     matrix is singular on sticking contacts), planted;
 *   - Newton's local rate: from a cold start on a small planted problem it
 *     reaches 1e-12 within 20 iterations;
 *   - the 2-norm stopping test (opt.norm = SLV_NORM_2) checked against an
 *     independent 2-norm, and shown to replace the inf tests (a large b);
 *   - refusals: the associated law, findex rows;
 *   - the Siconos FC3D files on which Siconos' NSGS is expected to pass
 *     (datasets README: collections dc1, dc2, fclib_1), solved to 1e-8 by
 *     nsgs_newton, judged by the test's own residual;
 *   - ppa_nsn on FC3D files at 1e-8, with nsn_ac's contact velocities;
 *   - out of budget, nsgs_newton returns its best iterate (RockPile_tob1);
 *   - the sparse Newton matrix factored by KLU and by UMFPACK (a test's
 *     flop threshold picks each): the same planted x*, and which one ran.
 * Residuals are recomputed here (tst_cone_natres: the test's own cone
 * projection, w in long double), never taken from the library. */
#include "slv.h"
#include "slv_internal.h" /* slv_nsn_set_klu_flops, the Newton state */
#include "io.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SOLVERS[] = { "nsn_ac", "nsgs_newton", "ppa_nsn", NULL };

static slv_status run(const char *name, const slv_problem *p, const slv_options *o, double *x,
                      slv_result *res) {
  const slv_solver *s = slv_solver_find(name);
  slv_workspace *ws = NULL;
  if (!s || slv_workspace_new(s, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* dense copy of a problem's A (dense or CSR), n x n column-major */
/* ---- planted problems ------------------------------------------------------- */

/* sparse: A = G G' + 0.1 I with 3 nonzeros per row of G (else dense G). */
static void planted_g(int nc, int nbox, double mu, int csr, int sparse, unsigned long seed) {
  tst_cone_case P;
  tst_cone_case_plant(&P, nc, nbox, mu, SLV_CONE_COULOMB, sparse, seed);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, csr);
  double *x = malloc((size_t)P.n * sizeof *x);
  for (int s = 0; SOLVERS[s]; s++) {
    slv_options o = slv_options_default();
    o.tol = 1e-11;
    o.max_iter = 20000;
    slv_result res;
    slv_status st = run(SOLVERS[s], &p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s nc=%d nbox=%d csr=%d: %s (%s)\n", SOLVERS[s], nc, nbox, csr,
              slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.01e-11 * fmax(1.0, res.res.b_inf));
    /* small mu and a well-conditioned A: the planted solution is the one */
    double dx = 0;
    for (int i = 0; i < P.n; i++) dx = fmax(dx, fabs(x[i] - P.xs[i]));
    CU_ASSERT(dx <= 1e-8);
  }
  free(x);
  tst_cone_case_free(&P);
}

static void planted(int nc, int nbox, double mu, int csr, unsigned long seed) {
  planted_g(nc, nbox, mu, csr, 0, seed);
}

static void test_planted(void) {
  planted(12, 0, 0.3, 0, 11);
  planted(12, 5, 0.3, 0, 12);
  planted(20, 4, 0.5, 1, 13);
}

/* W = J M^-1 J' for nb bodies and nc contacts between random pairs (3 rows
 * per contact, random orthonormal-ish rows; M^-1 = I), rank <= 6 nb < 3 nc.
 * Planted: contact c sticks (w_c = 0, x_c inside K), slides (x_c on the
 * boundary, w^_c on K*'s opposite ray) or separates (x_c = 0, w_n > 0) for
 * c % 3 = 0, 1, 2; b = w* - W x*. */
/* W = J J' for J (n x 6 nb, column-major) whose contact c (rows 3c..3c+2)
 * touches only the bodies body[2c], body[2c + 1]: each entry sums, in
 * increasing column order, over the bodies its two contacts share.  These
 * are the nonzero terms of the sum over all 6 nb columns, in its order (the
 * others are exact zeros): the same bits at O(n^2) cost, not O(n^2 nb). */
static void gram_by_bodies(int n, const double *J, const int *body, double *W) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      const int *bi = body + 2 * (i / 3), *bj = body + 2 * (j / 3);
      int lo = bi[0] < bi[1] ? bi[0] : bi[1], hi = bi[0] < bi[1] ? bi[1] : bi[0];
      double s = 0;
      for (int t = 0; t < 2; t++) {
        int q = t ? hi : lo;
        if ((t && hi == lo) || (q != bj[0] && q != bj[1])) continue;
        for (int k = 6 * q; k < 6 * q + 6; k++) s += J[i + (size_t)k * n] * J[j + (size_t)k * n];
      }
      W[i + (size_t)j * n] = s;
    }
}

static void rank_deficient(int nb, int nc, double mu, unsigned long seed, double *W, double *b,
                           double *xs, int *rows, double *cmu) {
  int n = 3 * nc, m = 6 * nb;
  double *J = calloc((size_t)n * m, sizeof *J), *w = malloc((size_t)n * sizeof *w);
  int *body = malloc(2 * (size_t)nc * sizeof *body);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  for (int c = 0; c < nc; c++) {
    int a = (int)gsl_rng_uniform_int(rng, (unsigned long)nb);
    int bb = (int)gsl_rng_uniform_int(rng, (unsigned long)nb);
    body[2 * c] = a, body[2 * c + 1] = bb;
    for (int r = 0; r < 3; r++)
      for (int k = 0; k < 6; k++) {
        J[3 * c + r + (size_t)(6 * a + k) * n] += 2 * gsl_rng_uniform(rng) - 1;
        if (bb != a) J[3 * c + r + (size_t)(6 * bb + k) * n] -= 2 * gsl_rng_uniform(rng) - 1;
      }
  }
  gram_by_bodies(n, J, body, W);
  free(body);
  for (int c = 0; c < nc; c++) {
    double *x3 = xs + 3 * c, *w3 = w + 3 * c;
    double th = 6.283185307179586 * gsl_rng_uniform(rng), r = 0.5 + gsl_rng_uniform(rng);
    rows[c] = 3 * c;
    cmu[c] = mu;
    if (c % 3 == 0) { /* stick */
      x3[0] = r;
      x3[1] = 0.5 * mu * r * cos(th);
      x3[2] = 0.5 * mu * r * sin(th);
      w3[0] = w3[1] = w3[2] = 0;
    } else if (c % 3 == 1) { /* slide: x_t = mu x_n d, w_n = 0, w_t = -s d */
      double s = 0.2 + gsl_rng_uniform(rng);
      x3[0] = r;
      x3[1] = mu * r * cos(th);
      x3[2] = mu * r * sin(th);
      w3[0] = 0;
      w3[1] = -s * cos(th);
      w3[2] = -s * sin(th);
    } else { /* separated */
      x3[0] = x3[1] = x3[2] = 0;
      w3[0] = 0.3 + gsl_rng_uniform(rng);
      w3[1] = gsl_rng_uniform(rng) - 0.5;
      w3[2] = gsl_rng_uniform(rng) - 0.5;
    }
  }
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += W[i + (size_t)j * n] * xs[j];
    b[i] = w[i] - s;
  }
  gsl_rng_free(rng);
  free(J);
  free(w);
}

static void test_rank_deficient(void) {
  enum { NB = 2, NC = 24, N = 3 * NC }; /* rank(W) <= 12 < 72 rows */
  double *W = malloc(sizeof(double) * N * N), b[N], xs[N], cmu[NC], x[N];
  int rows[NC];
  /* under memcheck one seed: the three plants differ in numbers, not paths */
  for (unsigned long seed = 1; seed <= (tst_short_runs() ? 1u : 3u); seed++) {
    rank_deficient(NB, NC, 0.4, seed, W, b, xs, rows, cmu);
    slv_problem p = slv_problem_empty();
    p.n = N;
    p.A = W;
    p.lda = N;
    p.b = b;
    p.ncones = NC;
    p.cone_rows = rows;
    p.cone_mu = cmu;
    /* the planted x* is a solution (the test's own residual) */
    CU_ASSERT(tst_cone_problem_natres(&p, xs) <= 1e-12);
    for (int s = 0; SOLVERS[s]; s++) {
      slv_options o = slv_options_default();
      o.tol = 1e-10;
      o.max_iter = 20000;
      slv_result res;
      slv_status st = run(SOLVERS[s], &p, &o, x, &res);
      if (st != SLV_CONVERGED)
        fprintf(stderr, "%s rank-deficient seed %lu: %s (%s)\n", SOLVERS[s], seed,
                slv_status_str(st), res.message);
      CU_ASSERT_EQUAL(st, SLV_CONVERGED);
      CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.01e-10 * fmax(1.0, res.res.b_inf));
    }
  }
  free(W);
}

/* ---- the sparse Newton matrix (n > NSN_DENSE_MAX = 600 rows, packed A) ----- */

/* Planted problems above the dense crossover: a sparse A (about 7 nonzeros
 * a row), stored CSR or dense, is packed (3x3 blocks without box rows,
 * columns with them) and Newton runs on the sparse LU (KLU at this size);
 * a full A is not packed and
 * runs the dense LU.  All must reach the planted x*.  Under memcheck the
 * full A is left out: its dense LU is test_planted's path (n < 600), and at
 * n = 615 it was most of this program's time there
 * (experiments/records/2026-11-29-test-time-8.md). */
static void test_sparse_planted(void) {
  planted_g(205, 0, 0.3, 1, 1, 14); /* n = 615, block-packed */
  planted_g(205, 7, 0.3, 1, 1, 15); /* n = 622, column-packed */
  planted_g(205, 0, 0.3, 0, 1, 17); /* n = 615, dense storage, block-packed */
  /* n = 615, full A: the dense LU */
  if (!tst_under_memcheck()) planted(205, 0, 0.3, 0, 16);
}

/* A W = J M^-1 J' with many bodies, sparse (each contact couples to the few
 * that share a body) and rank-deficient (3 nc > 6 nb), in CSR: nsn_ac on
 * its sparse LU (one factorization per iteration), judged by the test's own
 * residual.  Under memcheck 201 contacts (n = 603, still over NSN_DENSE_MAX
 * and 6 nb = 600): the same sparse path at half the LU work. */
static void test_sparse_rank_deficient(void) {
  enum { NB = 100, NC_MAX = 240 };
  const int NC = tst_short_runs() ? 201 : NC_MAX, N = 3 * NC;
  double *W = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N);
  double *xs = malloc(sizeof(double) * N), *x = malloc(sizeof(double) * N), cmu[NC_MAX];
  int rows[NC_MAX], *Ap = malloc(sizeof(int) * (N + 1)), *Aj = malloc(sizeof(int) * N * N);
  double *Ax = malloc(sizeof(double) * N * N);
  rank_deficient(NB, NC, 0.4, 7, W, b, xs, rows, cmu);
  Ap[0] = 0;
  for (int i = 0; i < N; i++) {
    Ap[i + 1] = Ap[i];
    for (int j = 0; j < N; j++)
      if (W[i + (size_t)j * N] != 0) Aj[Ap[i + 1]] = j, Ax[Ap[i + 1]++] = W[i + (size_t)j * N];
  }
  CU_ASSERT(Ap[N] < N * N / 10); /* sparse indeed */
  slv_problem p = slv_problem_empty();
  p.n = N, p.storage = SLV_CSR, p.Ap = Ap, p.Aj = Aj, p.Ax = Ax, p.b = b;
  p.ncones = NC, p.cone_rows = rows, p.cone_mu = cmu;
  CU_ASSERT(tst_cone_problem_natres(&p, xs) <= 1e-12);
  for (int s = 0; SOLVERS[s]; s++) {
    slv_options o = slv_options_default();
    o.tol = 1e-10;
    o.max_iter = 20000;
    slv_result res;
    slv_status st = run(SOLVERS[s], &p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s sparse rank-deficient: %s (%s)\n", SOLVERS[s], slv_status_str(st),
              res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.01e-10 * fmax(1.0, res.res.b_inf));
  }
  free(W), free(b), free(xs), free(x), free(Ap), free(Aj), free(Ax);
}

/* nsn_ac with the sparse Newton matrix factored by KLU (klu_flops large)
 * or UMFPACK (klu_flops < 0): the status, and into *klu which one ran. */
static slv_status run_lu(const slv_problem *p, double klu_flops, double *x, slv_result *res,
                         int *klu) {
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 200;
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("nsn_ac"), p->n, &o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_nsn_set_klu_flops(ws->state, klu_flops);
  slv_status st = slv_solve(ws, p, &o, x, NULL, res);
  *klu = ((slv_nsn *)ws->state)->sp.klu;
  slv_workspace_free(ws);
  return st;
}

/* The planted sparse problems of test_sparse_planted (block- and
 * column-packed) under both factorizations: each reaches x* (1e-8) at
 * Newton's rate (<= 10 iterations; with the solve skipped, d = -Phi took
 * 83 and 104), the library's default picks KLU for these small LUs, and
 * the two iterates agree. */
static void test_klu_and_umfpack(void) {
  const int nbox[2] = { 0, 7 };
  for (int c = 0; c < 2; c++) {
    tst_cone_case P;
    tst_cone_case_plant(&P, 205, nbox[c], 0.3, SLV_CONE_COULOMB, 1, 14 + c);
    slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
    double *x[2] = { malloc((size_t)P.n * sizeof(double)), malloc((size_t)P.n * sizeof(double)) };
    const double flops[2] = { NSN_KLU_FLOPS, -1.0 };
    for (int f = 0; f < 2; f++) {
      slv_result res;
      int klu = -1;
      CU_ASSERT_EQUAL(run_lu(&p, flops[f], x[f], &res, &klu), SLV_CONVERGED);
      CU_ASSERT_EQUAL(klu, f == 0);    /* the default threshold takes KLU here */
      CU_ASSERT(res.iterations <= 10); /* Newton's rate: 5 either way; a wrong solve took 80+ */
      double dx = 0;
      for (int i = 0; i < P.n; i++) dx = fmax(dx, fabs(x[f][i] - P.xs[i]));
      CU_ASSERT(dx <= 1e-8);
    }
    double d01 = 0;
    for (int i = 0; i < P.n; i++) d01 = fmax(d01, fabs(x[0][i] - x[1][i]));
    CU_ASSERT(d01 <= 1e-8);
    free(x[0]), free(x[1]);
    tst_cone_case_free(&P);
  }
}

/* ---- local rate ------------------------------------------------------------- */

static void test_newton_rate(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 8, 0, 0.3, SLV_CONE_COULOMB, 0, 21);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 0);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  o.record_history = 1;
  o.max_iter = 200;
  slv_result res;
  CU_ASSERT_EQUAL(run("nsn_ac", &p, &o, x, &res), SLV_CONVERGED);
  /* Newton's local rate: 1e-12 from x = 0 within 20 iterations, each
   * cutting the residual by orders of magnitude near the solution */
  CU_ASSERT(res.iterations <= 20);
  CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.01e-12 * fmax(1.0, res.res.b_inf));
  free(x);
  tst_cone_case_free(&P);
}

/* ---- the 2-norm stopping test ---------------------------------------------- */

static void test_norm2(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 30, 0, 0.3, SLV_CONE_COULOMB, 0, 31);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 0);
  int n = P.n;
  double *x = malloc((size_t)n * sizeof *x), bb = 0;
  for (int i = 0; i < n; i++) bb += p.b[i] * p.b[i];
  const char *names[] = { "nsgs", "nsgs_newton", "nsn_ac", "pjacobi_cone", NULL };
  for (int s = 0; names[s]; s++) {
    slv_options o = slv_options_default();
    o.tol = 1e-6;
    o.norm = SLV_NORM_2;
    o.max_iter = 100000;
    slv_result res;
    slv_status st = run(names[s], &p, &o, x, &res);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    /* own 2-norm of the De Saxce natural map over max(1, ||b||_2) */
    double own2 = tst_cone_problem_natres2(&p, x);
    CU_ASSERT(own2 <= 1.0001e-6);
    CU_ASSERT(fabs(res.res.res_rel_2 - own2) <= 1e-9 + 1e-6 * own2);
    /* 2-norm >= inf-norm */
    CU_ASSERT(res.res.res_rel_2 * fmax(1.0, sqrt(bb)) >= res.res.res_nat_inf * (1 - 1e-12));
  }
  free(x);
  tst_cone_case_free(&P);
}

/* The 2-norm test adds res_rel_2 <= tol to the scale-invariant test: with
 * b and the solution scaled by 1e4 both hold at the end of the 2-norm run,
 * which cannot stop before the inf run (one more clause). */
static void test_norm2_replaces_inf(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 30, 0, 0.3, SLV_CONE_COULOMB, 0, 31);
  for (int i = 0; i < P.n; i++) P.b[i] *= 1e4;
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 0);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-6;
  o.max_iter = 100000;
  slv_result r2, ri;
  o.norm = SLV_NORM_2;
  CU_ASSERT_EQUAL(run("nsgs", &p, &o, x, &r2), SLV_CONVERGED);
  CU_ASSERT(tst_cone_problem_natres2(&p, x) <= 1.0001e-6);
  CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.0001e-6);
  o.norm = SLV_NORM_INF;
  CU_ASSERT_EQUAL(run("nsgs", &p, &o, x, &ri), SLV_CONVERGED);
  CU_ASSERT(tst_cone_problem_natres(&p, x) <= 1.0001e-6);
  CU_ASSERT(r2.iterations >= ri.iterations);
  free(x);
  tst_cone_case_free(&P);
}

/* ---- refusals -------------------------------------------------------------- */

static void test_refusals(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 4, 0, 0.3, SLV_CONE_ASSOCIATED, 0, 41);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0);
  double x[12];
  for (int s = 0; SOLVERS[s]; s++) {
    slv_options o = slv_options_default();
    slv_result res;
    CU_ASSERT_EQUAL(run(SOLVERS[s], &p, &o, x, &res), SLV_ERR_UNSUPPORTED);
    CU_ASSERT(strstr(res.message, "associated") != NULL);
  }
  /* findex rows: refused by the capability check */
  double A[4] = { 2, 0, 0, 2 }, b[2] = { -1, 1 }, mu[2] = { 0, 0.5 };
  int fx[2] = { -1, 0 };
  slv_problem q = slv_problem_empty();
  q.n = 2, q.A = A, q.lda = 2, q.b = b, q.findex = fx, q.mu = mu;
  for (int s = 0; SOLVERS[s]; s++) {
    slv_options o = slv_options_default();
    slv_result res;
    CU_ASSERT_EQUAL(run(SOLVERS[s], &q, &o, x, &res), SLV_ERR_UNSUPPORTED);
  }
  /* an invalid norm option */
  slv_options o = slv_options_default();
  o.norm = 3;
  char msg[256];
  CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_ERR_OPTIONS);
  CU_ASSERT(strstr(msg, "norm") != NULL);
  tst_cone_case_free(&P);
}

/* ---- Siconos files where Siconos' NSGS is expected to pass ------------------- */

/* The options of the file tests: tol 1e-8 in the 2-norm (the Siconos
 * judge's test), max_iter iterations. */
static slv_options file_options(int max_iter) {
  slv_options o = slv_options_default();
  o.tol = 1e-8;
  o.norm = SLV_NORM_2;
  o.max_iter = max_iter;
  return o;
}

/* A shared FC3D file, and whether it runs under memcheck too (tst_short_runs:
 * one file of each kind, below). */
typedef struct {
  const char *name;
  int memcheck;
} fc3d_file;

/* Under memcheck: the dense and SBM forms of one problem, the one-contact
 * RR file, a Capsules file over 600 rows (nsgs_newton's sparse Newton), a
 * Rover (dense Newton) and the FCLIB form of a Capsules. */
static void test_fc3d_files(void) {
  static const fc3d_file files[] = { { "FC3D_Example1.dat", 1 },
                                     { "FC3D_Example1_SBM.dat", 1 },
                                     { "FrictionContact3D_1c.dat", 1 },
                                     { "FrictionContact3D_RR_1c.dat", 1 },
                                     { "Capsules-i100-1090.dat", 0 },
                                     { "Capsules-i100-889.dat", 0 },
                                     { "Capsules-i101-404.dat", 1 },
                                     { "Capsules-i103-990.dat", 0 },
                                     { "Capsules-i122-1617.dat", 0 },
                                     { "Rover1039.dat", 1 },
                                     { "Rover1040.dat", 0 },
                                     { "Rover1041.dat", 0 },
                                     { "Rover11035.dat", 0 },
                                     { "Rover11211.dat", 0 },
                                     { "Rover3865.dat", 0 },
                                     { "Rover4144.dat", 0 },
                                     { "Rover4493.dat", 0 },
                                     { "Rover4516.dat", 0 },
                                     { "Rover4609.dat", 0 },
                                     { "Rover4613.dat", 0 },
                                     { "Rover4622.dat", 0 },
                                     { "Rover9770.dat", 0 },
                                     { "NESpheres_10_1.dat", 0 },
                                     { "NESpheres_30_1.dat", 1 },
                                     { "Confeti-ex13-Fc3D-SBM.dat", 1 },
                                     { "Capsules-i125-1213.hdf5", 1 },
                                     { "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", 1 },
                                     { NULL, 0 } };
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  for (int f = 0; files[f].name; f++) {
    if (tst_short_runs() && !files[f].memcheck) continue;
    io_instance *in = tst_cone_read_fc3d(files[f].name);
    if (!in) continue;
    slv_problem p = io_instance_problem(in);
    slv_options o = file_options(100000);
    double *x = malloc((size_t)p.n * sizeof *x);
    slv_result res;
    slv_status st = run("nsgs_newton", &p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s: %s (%s)\n", files[f].name, slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(res.res.res_rel_2 <= 1e-8);
    CU_ASSERT(tst_cone_problem_natres2(&p, x) <= 1.01e-8); /* the 2-norm test asked */
    free(x);
    io_instance_free(in);
  }
}

/* ppa_nsn on FC3D files (the Capsules, Rovers, spheres, a stack, a
 * periodic box): converged at 1e-8 in the 2-norm by the test's own
 * residual, and its contact velocities w = A x + b those of nsn_ac's
 * answer within 1e-6 of max(1, |b|_inf).  (Not OneObject-i1028-138:
 * both converge there to velocities 9e-3 apart, the Coulomb law's
 * solutions need not share w.)  Under memcheck: a Capsules over 600 rows
 * (the sparse Newton), a Rover (dense) and the FCLIB file. */
static void test_ppa_fc3d_files(void) {
  static const fc3d_file files[] = { { "Capsules-i100-889.dat", 0 },
                                     { "Capsules-i122-1617.dat", 1 },
                                     { "Rover1039.dat", 1 },
                                     { "Rover4622.dat", 0 },
                                     { "NESpheres_30_1.dat", 1 },
                                     { "BoxesStack1-i100000-32.hdf5.dat", 0 },
                                     { "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", 1 },
                                     { NULL, 0 } };
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  for (int f = 0; files[f].name; f++) {
    if (tst_short_runs() && !files[f].memcheck) continue;
    io_instance *in = tst_cone_read_fc3d(files[f].name);
    if (!in) continue;
    slv_problem p = io_instance_problem(in);
    slv_options o = file_options(2000);
    size_t n = (size_t)p.n;
    double *x = malloc(n * sizeof *x), *xn = malloc(n * sizeof *x);
    double *w = malloc(n * sizeof *x), *wn = malloc(n * sizeof *x);
    slv_result res;
    slv_status st = run("ppa_nsn", &p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "ppa_nsn %s: %s (%s)\n", files[f].name, slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(tst_cone_problem_natres2(&p, x) <= 1.01e-8);
    CU_ASSERT_EQUAL(run("nsn_ac", &p, &o, xn, &res), SLV_CONVERGED);
    slv_problem_w(&p, x, w);
    slv_problem_w(&p, xn, wn);
    double dw = 0, bmax = 1;
    for (size_t i = 0; i < n; i++) {
      dw = fmax(dw, fabs(w[i] - wn[i]));
      bmax = fmax(bmax, fabs(p.b[i]));
    }
    if (dw > 1e-6 * bmax) fprintf(stderr, "ppa_nsn %s: |w - w_nsn_ac| = %.3g\n", files[f].name, dw);
    CU_ASSERT(dw <= 1e-6 * bmax);
    free(x), free(xn), free(w), free(wn);
    io_instance_free(in);
  }
}

/* Out of budget, nsgs_newton returns its best iterate, not its last.  On
 * RockPile_tob1 (W not symmetric) the sweeps after a Newton attempt leave
 * its point: after 2000 iterations the last iterate is at about 9e-4
 * (2-norm), the best one seen at a chunk's end near 4e-5.  Under memcheck
 * 1000 iterations: two Newton attempts, the sweeps after them losing ground
 * (the schedule's q >= 1, first reached after 700), the best iterate (at
 * 741) handed back; the bound 1e-4 is the 2000 iterations' (9.9e-5 at 1000:
 * checked natively only). */
static void test_best_iterate(void) {
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  io_instance *in = tst_cone_read_fc3d("RockPile_tob1.dat");
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  slv_problem p = io_instance_problem(in);
  slv_options o = file_options(tst_short_runs() ? 1000 : 2000);
  double *x = malloc((size_t)p.n * sizeof *x);
  slv_result res;
  CU_ASSERT_EQUAL(run("nsgs_newton", &p, &o, x, &res), SLV_MAX_ITER);
  double own = tst_cone_problem_natres2(&p, x);
  if (!tst_short_runs()) CU_ASSERT(own <= 1e-4);
  TST_CLOSE(res.res.res_rel_2, own, 0, 1e-6); /* the result describes the x returned */
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "the best iterate"));
  free(x);
  io_instance_free(in);
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("nsn_ac, nsgs_newton", NULL, NULL);
  CU_add_test(s, "planted Coulomb problems, dense and CSR, box rows", test_planted);
  CU_add_test(s, "rank-deficient W = J M^-1 J' (singular plain Newton)", test_rank_deficient);
  CU_add_test(s, "sparse Newton: planted, n > 600", test_sparse_planted);
  CU_add_test(s, "sparse Newton: sparse rank-deficient W", test_sparse_rank_deficient);
  CU_add_test(s, "sparse Newton: KLU and UMFPACK reach the same x*", test_klu_and_umfpack);
  CU_add_test(s, "superlinear local rate", test_newton_rate);
  CU_add_test(s, "2-norm stopping test against an own 2-norm", test_norm2);
  CU_add_test(s, "the 2-norm test replaces the inf tests (large b)", test_norm2_replaces_inf);
  CU_add_test(s, "refusals: associated law, findex, bad norm", test_refusals);
  CU_add_test(s, "Siconos FC3D files (NSGS collections) at 1e-8", test_fc3d_files);
  CU_add_test(s, "ppa_nsn on FC3D files: 1e-8, nsn_ac's velocities", test_ppa_fc3d_files);
  CU_add_test(s, "out of budget: the best iterate, not the last (RockPile_tob1)",
              test_best_iterate);
  return tst_run();
}
