/* test_nsgs.c -- nonsmooth Gauss-Seidel with the exact one-contact solve:
 * hand-derived single contacts (take-off, sticking, sliding, mu = 0; both
 * laws), thousands of random single contacts solved exactly in one sweep,
 * mu = 0 against lemke on the normal rows, planted multi-contact problems
 * (associated law: the unique solution of a strictly convex QP; Coulomb law
 * with small mu), box and free rows mixed with cones, over-relaxation, CSR
 * = dense (packed columns, transposed CSR, CSR row form), warm start and
 * history, honest failures, and the Siconos FC3D files when the shared data
 * and the FC3D reader are there. */
#include "slv.h"
#include "io.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const slv_solver *nsgs;

static int init(void) {
  nsgs = slv_solver_find("nsgs");
  return nsgs ? 0 : 1;
}

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(nsgs, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* ---- the test's own measure (independent of residual.c and cone.h) -------- */

/* The test's own convergence measure (tst_cone.c, res_scaled from its
 * definition). */
static double own_residual(const slv_problem *p, const double *x) {
  return tst_cone_problem_natres(p, x);
}

/* ---- single contacts by hand -------------------------------------------------- */

static void one(double *A, double *b, double mu, slv_cone_law law, const double *xe, double atol) {
  int rows[1] = { 0 };
  double cmu[1] = { mu }, x[3];
  slv_problem p = slv_problem_empty();
  p.n = 3;
  p.A = A;
  p.lda = 3;
  p.b = b;
  p.ncones = 1;
  p.cone_rows = rows;
  p.cone_mu = cmu;
  p.cone_law = law;
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  o.max_iter = 1; /* the local solve is exact: one sweep */
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "one contact: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  TST_VEC_CLOSE(x, xe, 3, atol, 0);
  CU_ASSERT(own_residual(&p, x) <= 1e-14);
}

static void test_one_contact_identity(void) {
  /* A = I, mu = 0.5.  Associated law: the QP min 1/2|x|^2 + b.x over K,
   * so x = P_K(-b).  Coulomb law: cases below. */
  double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  /* (a) b = (-1, 2, 0).  Coulomb: sliding, w_n = 0 -> x_n = 1, x_t = -mu x_n
   *     e1 = (-0.5, 0) (w_t = (1.5, 0) opposes it).  Associated: P_K((1, -2, 0)):
   *     n' = (1 + 0.5*2)/1.25 = 1.6, t' = 0.5*1.6*(-1, 0) = (-0.8, 0). */
  double b[3] = { -1, 2, 0 };
  double xa[3] = { 1, -0.5, 0 }, xb[3] = { 1.6, -0.8, 0 };
  one(I3, b, 0.5, SLV_CONE_COULOMB, xa, 1e-15);
  one(I3, b, 0.5, SLV_CONE_ASSOCIATED, xb, 1e-15);
  /* (b) sliding off the axes: b = (-1, 1.2, 1.6), |b_t| = 2 (the sliding
   *     angle comes from root finding, a few ulps: atol 1e-14).  Coulomb:
   *     x = (1, -0.5 (0.6, 0.8)) = (1, -0.3, -0.4); w_t = 2.5 (0.6, 0.8). */
  double b2[3] = { -1, 1.2, 1.6 }, xc[3] = { 1, -0.3, -0.4 };
  one(I3, b2, 0.5, SLV_CONE_COULOMB, xc, 1e-14);
  /*     associated: P_K((1, -1.2, -1.6)) = 1.6 (1, -0.5 (0.6, 0.8)). */
  double xd[3] = { 1.6, -0.48, -0.64 };
  one(I3, b2, 0.5, SLV_CONE_ASSOCIATED, xd, 1e-14);
  /* (c) sticking: b = (-1, 0.3, 0): x = -b = (1, -0.3, 0), |x_t| = 0.3 <= 0.5,
   *     w = 0, for both laws. */
  double b3[3] = { -1, 0.3, 0 }, xe[3] = { 1, -0.3, 0 };
  one(I3, b3, 0.5, SLV_CONE_COULOMB, xe, 1e-15);
  one(I3, b3, 0.5, SLV_CONE_ASSOCIATED, xe, 1e-15);
  /* (d) take-off: b = (1, 2, 0): x = 0 for both laws (w = b, w_n >= 0 and
   *     mu|w_t| = 1 <= w_n = 1 for the associated law). */
  double b4[3] = { 1, 2, 0 }, x0[3] = { 0, 0, 0 };
  one(I3, b4, 0.5, SLV_CONE_COULOMB, x0, 0);
  one(I3, b4, 0.5, SLV_CONE_ASSOCIATED, x0, 0);
  /* (e) where the laws differ at take-off: b = (0.5, 2, 0).  Coulomb: b_n >= 0
   *     -> x = 0.  Associated: P_K((-0.5, -2, 0)) with mu|t| = 1 > 0.5:
   *     n' = (-0.5 + 1)/1.25 = 0.4, x = (0.4, -0.2, 0) -- the CCP's known
   *     artefact: a sliding contact pushes (w_n = mu |w_t| > 0). */
  double b5[3] = { 0.5, 2, 0 }, x5[3] = { 0.4, -0.2, 0 };
  one(I3, b5, 0.5, SLV_CONE_COULOMB, x0, 0);
  one(I3, b5, 0.5, SLV_CONE_ASSOCIATED, x5, 1e-15);
  /* (f) mu = 0: x_t = 0, x_n = max(0, -b_n): b = (-2, 1, 1) -> (2, 0, 0). */
  double b6[3] = { -2, 1, 1 }, x6[3] = { 2, 0, 0 };
  one(I3, b6, 0.0, SLV_CONE_COULOMB, x6, 0);
  one(I3, b6, 0.0, SLV_CONE_ASSOCIATED, x6, 0);
}

static void test_one_contact_anisotropic(void) {
  /* W = diag(2, 1, 4), mu = 0.5, b = (-2, 3, 0), Coulomb.  Not take-off
   * (b_n < 0), not sticking (x = -W^-1 b = (1, -3, 0) is outside K).
   * Sliding: x = r (1, mu d); w_n = 2r - 2 = 0 gives r = 1; then
   * w_t = (0.5 d1 + 3, 2 d2) must equal -s d with s >= 0.  The second
   * component gives d2 = 0 or s = -2 < 0, so d = (+-1, 0); d = (-1, 0) gives
   * w_t = (2.5, 0) = -s d with s = 2.5 (d = (1, 0) would need s = -3.5).
   * So x = (1, -0.5, 0). */
  double W[9] = { 2, 0, 0, 0, 1, 0, 0, 0, 4 }, b[3] = { -2, 3, 0 }, xe[3] = { 1, -0.5, 0 };
  one(W, b, 0.5, SLV_CONE_COULOMB, xe, 1e-15);
  /* Normal-tangent coupling, W = [[2, 0.5, 0], [0.5, 1, 0], [0, 0, 1]],
   * b = (-2, 2, 0), mu = 0.5, Coulomb sliding along -t1: x = (r, -r/2, 0),
   * w_n = 2r - r/4 - 2 = 0 -> r = 8/7; w_t1 = r/2 - r/2 + 2 = 2 > 0 (opposes
   * x_t1 < 0), w_t2 = 0.  So x = (8/7, -4/7, 0). */
  double W2[9] = { 2, 0.5, 0, 0.5, 1, 0, 0, 0, 1 }, b2[3] = { -2, 2, 0 };
  double xe2[3] = { 8.0 / 7, -4.0 / 7, 0 };
  one(W2, b2, 0.5, SLV_CONE_COULOMB, xe2, 1e-15);
}

static void test_one_contact_root_cluster(void) {
  /* A nearly singular W (eigenvalues about 1.9, 1e-2, 1e-4: found by a random
   * search) with mu ~ 1 and a large b, associated law: the sliding
   * equation F(th) = 0 has three roots within 0.08 rad (3.835, 3.856,
   * 3.912), all in one interval of the 32-angle grid with a sign change at
   * its ends, plus one at 5.46.  Only the third root is a solution (r > 0,
   * s >= 0); the first two have s < 0.  A root finder that takes one root
   * per sign change finds the first and no solution.  The answer,
   * x ~ 2.1e8 (1, mu d), must be exact to rounding: |r|_inf <= 1e-7, i.e.
   * 5e-16 relative to |x|. */
  double W[9] = { 0.99820086643850159, 0.74698998464822108, 0.66293293157342503,
                  0.74698998464822108, 0.55928465212479606, 0.4960738072885828,
                  0.66293293157342503, 0.4960738072885828,  0.44027407842097688 };
  double b[3] = { -37412.317901610688, 10672.47522842459, -26707.545659997129 };
  double cmu[1] = { 1.0000742146445991 }, x[3];
  int rows[1] = { 0 };
  slv_problem p = slv_problem_empty();
  p.n = 3;
  p.A = W;
  p.lda = 3;
  p.b = b;
  p.ncones = 1;
  p.cone_rows = rows;
  p.cone_mu = cmu;
  p.cone_law = SLV_CONE_ASSOCIATED;
  slv_options o = slv_options_default();
  o.tol = 1e-7;
  o.max_iter = 1;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(own_residual(&p, x) <= 1e-7);
  TST_CLOSE(x[0], 2.1204e8, 0, 1e-4);
  TST_CLOSE(hypot(x[1], x[2]), cmu[0] * x[0], 0, 1e-14); /* on the cone's boundary */
  TST_CLOSE(atan2(x[2], x[1]), 3.9118642075010182 - 6.283185307179586, 1e-6, 0);
}

/* ---- random single contacts: exact in one sweep ------------------------------ */

static void test_one_contact_random(void) {
  /* W = G G^T + 0.05 I with G uniform in [-1, 1] (anisotropic, coupled), b
   * uniform in [-1, 1]^3, mu in {0.05, 0.3, 1, 4}, both laws.  One sweep must
   * meet tol 1e-11 (absolute) on the test's own residual, and each case
   * (take-off, sticking, sliding) must occur often. */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 4242);
  double mus[4] = { 0.05, 0.3, 1.0, 4.0 };
  int rows[1] = { 0 }, count[3] = { 0, 0, 0 }, bad = 0;
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 1;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(nsgs, 3, &o, &ws), SLV_OK);
  for (int trial = 0; trial < 4000; trial++) {
    double G[9], W[9], b[3], x[3], cmu[1] = { mus[trial % 4] };
    for (int k = 0; k < 9; k++) G[k] = 2 * gsl_rng_uniform(rng) - 1;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = i == j ? 0.05 : 0;
        for (int k = 0; k < 3; k++) s += G[i + 3 * k] * G[j + 3 * k];
        W[i + 3 * j] = s;
      }
    for (int i = 0; i < 3; i++) b[i] = 2 * gsl_rng_uniform(rng) - 1;
    slv_problem p = slv_problem_empty();
    p.n = 3;
    p.A = W;
    p.lda = 3;
    p.b = b;
    p.ncones = 1;
    p.cone_rows = rows;
    p.cone_mu = cmu;
    p.cone_law = (trial / 4) % 2 ? SLV_CONE_ASSOCIATED : SLV_CONE_COULOMB;
    slv_result res;
    slv_status st = slv_solve(ws, &p, &o, x, NULL, &res);
    double r = own_residual(&p, x);
    if (st != SLV_CONVERGED || !(r <= 1e-11)) {
      if (bad++ < 5)
        fprintf(stderr, "trial %d (mu %g, %s): %s, own residual %.3g (%s)\n", trial, cmu[0],
                slv_cone_law_str(p.cone_law), slv_status_str(st), r, res.message);
    }
    double xt = hypot(x[1], x[2]);
    if (x[0] == 0)
      count[0]++;
    else if (xt < cmu[0] * x[0] * (1 - 1e-9))
      count[1]++;
    else
      count[2]++;
  }
  slv_workspace_free(ws);
  gsl_rng_free(rng);
  CU_ASSERT_EQUAL(bad, 0);
  fprintf(stderr, "random contacts: %d take-off, %d sticking, %d sliding\n", count[0], count[1],
          count[2]);
  CU_ASSERT(count[0] > 400 && count[1] > 400 && count[2] > 400);
}

/* ---- planted multi-contact problems ---------------------------------------------- */


static void solve_planted(int nc, int nbox, double mu, slv_cone_law law, int sparse,
                          unsigned long seed, double omega) {
  tst_cone_case P;
  tst_cone_case_plant(&P, nc, nbox, mu, law, sparse, seed);
  slv_problem p = tst_cone_case_view(&P, law, 0);
  double *x = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  o.max_iter = 20000;
  o.omega = omega;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "planted nc=%d %s mu=%g: %s (%s)\n", nc, slv_cone_law_str(law), mu,
            slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT(own_residual(&p, x) <= 1.01e-12);
  /* A has lambda_min >= 0.1: |x - x*| <= ~10 ||r|| (generous 1e-9) */
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-9, 0);
  CU_ASSERT(res.iterations > 1);
  free(x);
  tst_cone_case_free(&P);
}

static void test_planted_associated(void) {
  solve_planted(20, 0, 0.5, SLV_CONE_ASSOCIATED, 0, 1, 1.0);
  solve_planted(25, 0, 1.5, SLV_CONE_ASSOCIATED, 1, 2, 1.0);
  solve_planted(12, 0, 0.1, SLV_CONE_ASSOCIATED, 0, 3, 1.0);
}

static void test_planted_mixed_rows(void) {
  /* free, LCP and box rows between the contacts */
  solve_planted(15, 9, 0.6, SLV_CONE_ASSOCIATED, 0, 4, 1.0);
  solve_planted(15, 9, 0.6, SLV_CONE_ASSOCIATED, 1, 5, 1.0);
}

static void test_planted_relaxed(void) {
  solve_planted(15, 6, 0.6, SLV_CONE_ASSOCIATED, 0, 6, 0.7);
  solve_planted(15, 6, 0.6, SLV_CONE_ASSOCIATED, 0, 6, 1.3);
}

static void test_planted_coulomb(void) {
  /* The Coulomb problem may have several solutions; with a small mu and a
   * well-conditioned A the planted one is the one found (and it is checked
   * to be a solution by the test's own residual). */
  solve_planted(20, 0, 0.2, SLV_CONE_COULOMB, 0, 7, 1.0);
  solve_planted(20, 6, 0.3, SLV_CONE_COULOMB, 1, 8, 1.0);
}

static void test_mu_zero_is_lcp(void) {
  /* mu = 0: x_t = 0 and the normal rows form the LCP (A_NN, b_N); lemke on
   * that LCP gives the same normal impulses. */
  tst_cone_case P;
  tst_cone_case_plant(&P, 12, 0, 0.0, SLV_CONE_COULOMB, 0, 9);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 0);
  int m = P.nc;
  double *x = malloc(P.n * sizeof(double)), *AN = malloc(m * m * sizeof(double));
  double *bN = malloc(m * sizeof(double)), *z = malloc(m * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-13;
  o.max_iter = 10000;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
  for (int i = 0; i < m; i++) {
    bN[i] = P.b[P.rows[i]];
    for (int j = 0; j < m; j++) AN[i + j * m] = P.A[P.rows[i] + (size_t)P.rows[j] * P.n];
  }
  slv_problem l = slv_problem_empty();
  l.n = m;
  l.A = AN;
  l.lda = m;
  l.b = bN;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("lemke"), m, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &l, &o, z, NULL, &res), SLV_CONVERGED);
  slv_workspace_free(ws);
  for (int i = 0; i < m; i++) {
    TST_CLOSE(x[P.rows[i]], z[i], 1e-11, 0);
    CU_ASSERT(x[P.rows[i] + 1] == 0 && x[P.rows[i] + 2] == 0);
  }
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-10, 0);
  free(x);
  free(AN);
  free(bN);
  free(z);
  tst_cone_case_free(&P);
}

/* ---- storage ------------------------------------------------------------------- */

static void test_csr_matches_dense(void) {
  /* n >= 64.  With 6 box rows: the sparse dense-stored A is packed by
   * columns, its CSR copy transposed into the same buffers; a dense A
   * stored as CSR has more nonzeros than the buffers (n^2/4) and takes the
   * row form.  With contacts only (n = 90): A is packed by 3x3 blocks from
   * either storage when the nonzero blocks fit, else as before. */
  for (int nbox = 6; nbox >= 0; nbox -= 6)
    for (int sparse = 1; sparse >= 0; sparse--) {
      tst_cone_case P;
      tst_cone_case_plant(&P, 30, nbox, 0.5, SLV_CONE_ASSOCIATED, sparse, 10 + sparse + nbox);
      slv_problem d = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0),
                  c = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 1);
      double *xd = malloc(P.n * sizeof(double)), *xc = malloc(P.n * sizeof(double));
      slv_options o = slv_options_default();
      o.tol = 1e-12;
      o.max_iter = 20000;
      o.check_every = 7;
      slv_result rd, rc;
      CU_ASSERT_EQUAL(run(&d, &o, xd, &rd), SLV_CONVERGED);
      CU_ASSERT_EQUAL(run(&c, &o, xc, &rc), SLV_CONVERGED);
      TST_VEC_CLOSE(xd, P.xs, P.n, 1e-9, 0);
      TST_VEC_CLOSE(xc, xd, P.n, 1e-10, 0);
      CU_ASSERT(own_residual(&c, xc) <= 1.01e-12);
      /* the same sweeps in exact arithmetic */
      CU_ASSERT(abs(rd.iterations - rc.iterations) <= 1);
      free(xd);
      free(xc);
      tst_cone_case_free(&P);
    }
}

static void test_warm_start_history(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 20, 4, 0.5, SLV_CONE_ASSOCIATED, 0, 12);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0);
  double *x = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 5000;
  o.record_history = 1;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(nsgs, P.n, &o, &ws), SLV_OK);
  slv_result cold, warm;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &cold), SLV_CONVERGED);
  CU_ASSERT(cold.iterations > 3);
  CU_ASSERT_EQUAL(cold.history_len, cold.iterations);
  TST_CLOSE(cold.history[cold.history_len - 1], cold.res.res_scaled, 0, 0);
  CU_ASSERT(cold.history[0] > o.tol);
  o.warm_start = 1;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
  CU_ASSERT_EQUAL(warm.iterations, 0);
  for (int i = 0; i < P.n; i++) x[i] = P.xs[i] * (1 + 1e-6);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
  CU_ASSERT(warm.iterations < cold.iterations);
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-8, 0);
  slv_workspace_free(ws);
  free(x);
  tst_cone_case_free(&P);
}

/* The measure's schedule (nsgs.c, nsgs_schedule): without a history the
 * measure is skipped on sweeps far from the tol; the iterates are the same
 * sweeps', the end is found at most NSGS_CHECK_MAX (8) sweeps after the
 * sweep measured every time finds it, x is bit for bit the one of that many
 * sweeps measured every time, and a run cut by max_iter reports the
 * measure of its last sweep. */
static void schedule_on(const char *file) {
  char path[4096];
  tst_shared_path("datasets/siconos/fc3d/", path, sizeof path);
  strncat(path, file, sizeof path - strlen(path) - 1);
  io_instance *in = NULL;
  char err[512];
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_SICONOS_FC3D, &in, err, sizeof err), SLV_CONVERGED);
  slv_problem p = io_instance_problem(in);
  size_t bytes = (size_t)p.n * sizeof(double);
  double *x = malloc(bytes), *xh = malloc(bytes);
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 200000;
  o.record_history = 1;
  slv_workspace *ws = NULL; /* with a history: every run's history is read before the next */
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(nsgs, p.n, &o, &ws), SLV_OK);
  slv_result every, sched;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, xh, NULL, &every), SLV_CONVERGED);
  o.record_history = 0;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &sched), SLV_CONVERGED);
  printf("(%s: %d sweeps measured each, %d on the schedule) ", file, every.iterations,
         sched.iterations);
  CU_ASSERT(every.iterations > 50);
  CU_ASSERT(sched.iterations >= every.iterations && sched.iterations <= every.iterations + 8);
  CU_ASSERT(sched.res.res_scaled <= o.tol);
  /* the same sweeps: that many measured every time give the same bits */
  o.record_history = 1;
  o.tol = 1e-300;
  o.max_iter = sched.iterations;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, xh, NULL, &every), SLV_MAX_ITER);
  CU_ASSERT(memcmp(x, xh, bytes) == 0);
  /* cut by max_iter far from the tol: the last sweep's measure */
  o.max_iter = 37;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, xh, NULL, &every), SLV_MAX_ITER);
  double last = every.history_len > 0 ? every.history[every.history_len - 1] : NAN;
  CU_ASSERT_EQUAL(every.history_len, 37);
  o.record_history = 0;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &sched), SLV_MAX_ITER);
  CU_ASSERT(memcmp(x, xh, bytes) == 0);
  CU_ASSERT_EQUAL(sched.solver_residual, last);
  CU_ASSERT_EQUAL(sched.solver_residual, every.solver_residual);
  slv_workspace_free(ws);
  free(x);
  free(xh);
  io_instance_free(in);
}

static void test_measure_schedule(void) {
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d/", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  schedule_on("Confeti-ex03-Fc3D-SBM.dat");
  schedule_on("OneObject-i1028-138.hdf5.dat");
}

static void test_honest_failures(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 10, 0, 0.5, SLV_CONE_ASSOCIATED, 0, 13);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_ASSOCIATED, 0);
  double *x = malloc(P.n * sizeof(double));
  slv_options o = slv_options_default();
  o.max_iter = 1;
  o.tol = 1e-12;
  slv_result res;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
  CU_ASSERT(res.res.res_nat_inf > o.tol);
  CU_ASSERT(own_residual(&p, x) > o.tol);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "nsgs"));
  free(x);
  tst_cone_case_free(&P);
  /* a cone block with a positive diagonal but indefinite: refused, named */
  double A[36] = { 0 }, b[6] = { -1, 0, 0, -1, 1, 0 }, cmu[2] = { 0.5, 0.5 }, y[6];
  int rows[2] = { 0, 3 };
  for (int i = 0; i < 6; i++) A[i + 6 * i] = 1;
  A[4 + 6 * 5] = A[5 + 6 * 4] = 2; /* rows 4, 5: [[1, 2], [2, 1]] */
  slv_problem q = slv_problem_empty();
  q.n = 6;
  q.A = A;
  q.lda = 6;
  q.b = b;
  q.ncones = 2;
  q.cone_rows = rows;
  q.cone_mu = cmu;
  o.max_iter = 100;
  CU_ASSERT_EQUAL(run(&q, &o, y, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "cone 1"));
  /* free rows of A = [[1, 10], [10, 1]] next to a contact: Gauss-Seidel
   * multiplies the error by 100 per sweep and overflows: SLV_NOT_FINITE,
   * never converged */
  {
    double B[25] = { 0 }, bb[5] = { 1, 1, -1, 0, 0 }, lo[5] = { -INFINITY, -INFINITY, 0, 0, 0 },
           hi[5] = { INFINITY, INFINITY, 0, 0, 0 }, z[5];
    int r1[1] = { 2 };
    B[0] = B[6] = 1;
    B[1] = B[5] = 10;
    B[12] = B[18] = B[24] = 1;
    slv_problem d = slv_problem_empty();
    d.n = 5;
    d.A = B;
    d.lda = 5;
    d.b = bb;
    d.lo = lo;
    d.hi = hi;
    d.ncones = 1;
    d.cone_rows = r1;
    d.cone_mu = cmu;
    o.max_iter = 100000;
    CU_ASSERT_EQUAL(run(&d, &o, z, &res), SLV_NOT_FINITE);
    CU_ASSERT(res.iterations < 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "non-finite"));
    o.max_iter = 100;
  }
  /* findex rows are not taken */
  int fx[6] = { -1, -1, -1, -1, -1, -1 };
  double mu6[6] = { 0 };
  A[4 + 6 * 5] = A[5 + 6 * 4] = 0;
  q.ncones = 1;
  q.findex = fx;
  q.mu = mu6;
  fx[5] = 3;
  CU_ASSERT_EQUAL(run(&q, &o, y, &res), SLV_ERR_UNSUPPORTED);
}

/* ---- Siconos FC3D files ----------------------------------------------------------- */

static void test_fc3d_files(void) {
  const char *files[] = { "FC3D_Example1.dat",
                          "FrictionContact3D_1c.dat",
                          "Rover1039.dat",
                          "Rover4396.dat",
                          "Rover11035.dat",
                          "NESpheres_10_1.dat",
                          NULL };
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  for (int f = 0; files[f]; f++) {
    tst_shared_path("datasets/siconos/fc3d/", path, sizeof path);
    strncat(path, files[f], sizeof path - strlen(path) - 1);
    io_instance *in = NULL;
    char err[512];
    slv_status rs = io_read(path, IO_FMT_SICONOS_FC3D, &in, err, sizeof err);
    if (rs != SLV_CONVERGED) {
      fprintf(stderr, "%s: %s\n", files[f], err);
      CU_FAIL("FC3D file not read");
      continue;
    }
    slv_problem p = io_instance_problem(in);
    CU_ASSERT(p.ncones > 0 && p.n == 3 * p.ncones);
    slv_options o = slv_options_default();
    o.tol = 1e-8;
    o.max_iter = 100000;
    double *x = malloc((size_t)p.n * sizeof *x);
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s: %s (%s)\n", files[f], slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(res.res.res_scaled <= 1e-8);
    CU_ASSERT(own_residual(&p, x) <= 1.01e-8);
    /* one contact: the exact local solve ends it in one sweep */
    if (p.ncones == 1) CU_ASSERT_EQUAL(res.iterations, 1);
    free(x);
    io_instance_free(in);
  }
}

int main(void) {
  gsl_set_error_handler_off();
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("nsgs", init, NULL);
  CU_add_test(s, "one contact, A = I: both laws, every case", test_one_contact_identity);
  CU_add_test(s, "one contact, anisotropic and coupled W", test_one_contact_anisotropic);
  CU_add_test(s, "one contact, three close roots", test_one_contact_root_cluster);
  CU_add_test(s, "4000 random contacts: exact in one sweep", test_one_contact_random);
  CU_add_test(s, "planted associated", test_planted_associated);
  CU_add_test(s, "planted with free / LCP / box rows", test_planted_mixed_rows);
  CU_add_test(s, "over-relaxation 0.7 and 1.3", test_planted_relaxed);
  CU_add_test(s, "tst_cone_case Coulomb, small mu", test_planted_coulomb);
  CU_add_test(s, "mu = 0 equals lemke on the normal rows", test_mu_zero_is_lcp);
  CU_add_test(s, "CSR = dense (3x3 blocks, packed, transposed, row form)", test_csr_matches_dense);
  CU_add_test(s, "warm start and history", test_warm_start_history);
  CU_add_test(s, "honest failures and refusals", test_honest_failures);
  CU_add_test(s, "the measure's schedule: same sweeps, end found late by <= 8",
              test_measure_schedule);
  CU_add_test(s, "Siconos FC3D files at 1e-8", test_fc3d_files);
  return tst_run();
}
