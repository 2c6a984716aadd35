/* test_ipm.c -- the interior point on the cone QP (ipm.c): the shared cone
 * cases (tst_cone.c: hand-derived single contacts under both laws, mu = 0
 * against the LCP, planted problems with box and free rows, Coulomb
 * agreement with pcg_cone, CSR = dense, warm start, history, honest
 * failures), and the interior point's own:
 *   - a degenerate planted problem: A = G G' of rank n/2, so x* is not
 *     unique, but w* = A x* + b is (a convex QP's gradient is constant on
 *     its solution set): the solve must reach the test's own residual and
 *     w*, in few factorizations;
 *   - the CHOLMOD path on a sparse planted problem of 621 rows, both laws
 *     (Coulomb: the fixed point's later QPs started warm, in fewer
 *     iterations than from the centre);
 *   - a nonsymmetric monotone planted problem (UMFPACK's LU), both laws;
 *   - a step problem of the 10-layer pyramid (1200 rows, four points a
 *     face: the rank-deficient W of the exports), Coulomb's law, to 1e-8
 *     in the 2-norm, judged by the test's own residual;
 *   - the symmetric Siconos FC3D files of ../shared/datasets at 1e-8;
 *   - planted problems (a boxed LCP, a plain LCP, cones under Coulomb's
 *     law with free and box rows) with A and b both times 1e-12, 1, 1e12:
 *     x* is the same, and so must be the answer and the work (the centre
 *     in the problem's own units, ipm.c's set_units; from an absolute
 *     centre the boxed LCP at 1e12 stagnated with res_scaled 3e-3).
 */
#include "dyn_world.h"
#include "slv.h"
#include "io.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static slv_status run(const slv_problem *p, slv_options *o, double *x, slv_result *res) {
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("ipm"), p->n, o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* A = G G' with G n x k, entries uniform in [-1, 1] / sqrt(k): positive
 * semidefinite of rank k. */
static void low_rank(int n, int k, unsigned long seed, double *A) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  double *G = malloc((size_t)n * k * sizeof *G);
  for (size_t t = 0; t < (size_t)n * k; t++) G[t] = (2 * gsl_rng_uniform(r) - 1) / sqrt(k);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int l = 0; l < k; l++) s += G[i + (size_t)l * n] * G[j + (size_t)l * n];
      A[i + (size_t)j * n] = s;
    }
  free(G);
  gsl_rng_free(r);
}

/* 40 contacts (120 rows), A of rank 60, the associated law: x* planted, w*
 * complementary.  The solve must converge at 1e-10, meet the test's own
 * natural map, and give w = w* (unique), within 60 interior-point
 * iterations. */
static void test_degenerate(void) {
  enum { NC = 40, N = 3 * NC };
  double *A = malloc((size_t)N * N * sizeof *A), b[N], lo[N], hi[N], xs[N], mu[NC], x[N];
  double w[N], ws[N];
  int rows[NC];
  low_rank(N, N / 2, 21, A);
  int n = tst_cone_planted(NC, 0, 0, 22, 0, 1, A, b, lo, hi, rows, mu, xs);
  CU_ASSERT_EQUAL_FATAL(n, N);
  for (int i = 0; i < N; i++) { /* w* = A x* + b */
    double s = b[i];
    for (int j = 0; j < N; j++) s += A[i + (size_t)j * N] * xs[j];
    ws[i] = s;
  }
  slv_problem p = { .n = N,
                    .storage = SLV_DENSE,
                    .A = A,
                    .lda = N,
                    .b = b,
                    .ncones = NC,
                    .cone_rows = rows,
                    .cone_mu = mu,
                    .cone_law = SLV_CONE_ASSOCIATED };
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 60;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "degenerate: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT(tst_cone_natres(N, A, b, NULL, NULL, NC, rows, mu, 0, x) <= 1.01e-10);
  for (int i = 0; i < N; i++) {
    double s = b[i];
    for (int j = 0; j < N; j++) s += A[i + (size_t)j * N] * x[j];
    w[i] = s;
  }
  TST_VEC_CLOSE(w, ws, N, 1e-8, 0);
  free(A);
}

/* n = 3 * 205 + 6 = 621 rows, sparse A = G G' + 0.1 I in CSR, both laws:
 * the planted x* (A is positive definite: unique), at 1e-10. */
static void test_sparse_planted(void) {
  /* short runs (memcheck, ASan): 3 * 45 + 6 = 141 rows, still CSR through
   * CHOLMOD (the 621 rows were 1.7 s natively, most of memcheck's 35 s here) */
  const int nc = tst_short_runs() ? 45 : 205;
  for (int law = 0; law < 2; law++) {
    slv_cone_law L = law ? SLV_CONE_COULOMB : SLV_CONE_ASSOCIATED;
    tst_cone_case P;
    tst_cone_case_plant(&P, nc, 6, 0.4, L, 1, 5 + law);
    slv_problem p = tst_cone_case_view(&P, L, 1);
    double *x = malloc((size_t)P.n * sizeof *x);
    slv_options o = slv_options_default();
    o.tol = 1e-10;
    o.max_iter = 2000;
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "sparse %s: %s (%s)\n", slv_cone_law_str(L), slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
    /* Coulomb: 15 QPs, the later ones started warm from the last one's
     * iterate while the residual is above 10 tol: 287 interior-point
     * iterations (367 with every QP from the centre), none redone cold */
    if (law && nc == 205) {
      CU_ASSERT(res.iterations <= 320);
      CU_ASSERT_PTR_NOT_NULL(strstr(res.message, " 0 warm QP start(s) failed"));
    }
    free(x);
    tst_cone_case_free(&P);
  }
}

/* The step problem of the 10-layer pyramid after 60 steps with cone
 * friction (nsgs in the world): Coulomb's law, 1200 rows, at 1e-8 in the
 * 2-norm within 100 interior-point iterations. */
static void test_pyramid_step(void) {
  dyn_world_settings s = dyn_world_settings_default();
  s.contact.friction = DYN_FRICTION_CONE;
  snprintf(s.solver, sizeof s.solver, "nsgs");
  /* short runs (tst_short_runs: memcheck, the sanitizers): a 4-layer
   * pyramid, the same code paths on a tenth of the rows */
  const int shrt = tst_short_runs();
  const char *params[1] = { shrt ? "layers=4" : "layers=10" };
  dyn_world *wd = NULL;
  char msg[512] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("pyramid", params, 1, &s, &wd, msg, sizeof msg), DYN_OK);
  for (int k = 0; k < (shrt ? 30 : 60); k++)
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(wd, NULL), DYN_OK);
  slv_problem p;
  const double *xw;
  dyn_world_last_problem(wd, &p, &xw);
  CU_ASSERT_FATAL(p.n >= (shrt ? 60 : 1000) && p.ncones * 3 == p.n);
  CU_ASSERT_EQUAL(p.cone_law, SLV_CONE_COULOMB);
  double *x = malloc((size_t)p.n * sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-8;
  o.norm = SLV_NORM_2;
  o.max_iter = 100;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED) fprintf(stderr, "pyramid: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT(tst_cone_problem_natres2(&p, x) <= 1.01e-8);
  free(x);
  dyn_world_free(wd);
}

/* The polish sweeps a solve's message reports (-1 if none is named). */
static int polish_sweeps(const char *msg) {
  const char *at = strstr(msg, " polish sweeps");
  if (!at) return -1;
  while (at > msg && at[-1] >= '0' && at[-1] <= '9') at--;
  return atoi(at);
}

/* A planted problem made nonsymmetric and still monotone (admm's test): each
 * stored pair A(i,j), A(j,i) off the diagonal moves by +d and -d, which
 * leaves x'Ax unchanged, and b moves so that w* = A x* + b stays.  The
 * Newton matrix is then factored by UMFPACK: x* at 1e-10, both laws, dense
 * (93 rows) and CSR (621). */
static void skew_planted(int nc, int sparse, slv_cone_law law, unsigned long seed) {
  tst_cone_case P;
  tst_cone_case_plant(&P, nc, 3, 0.4, law, sparse, seed);
  int n = P.n;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++) {
      double *aij = P.A + i + (size_t)j * n, *aji = P.A + j + (size_t)i * n;
      if (*aij == 0) continue;
      double d = 0.3 * *aij * ((i + j) % 2 ? 1 : -1);
      *aij += d, *aji -= d;
      P.b[i] -= d * P.xs[j], P.b[j] += d * P.xs[i];
    }
  for (int i = 0; i < n; i++)
    for (int k = P.Ap[i]; k < P.Ap[i + 1]; k++) P.Ax[k] = P.A[i + (size_t)P.Aj[k] * n];
  slv_problem p = tst_cone_case_view(&P, law, sparse);
  double *x = malloc((size_t)n * sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 2000;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "nonsymmetric %d %s: %s (%s)\n", n, slv_cone_law_str(law), slv_status_str(st),
            res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  /* the associated law is one QP: the interior point itself solves it (29 and 24
   * iterations, then 6 and 5 polish sweeps; with the Newton matrix factored
   * as if A were symmetric the 618-row one broke down at once, and the
   * polish alone was left to solve it) */
  if (law == SLV_CONE_ASSOCIATED) {
    CU_ASSERT(res.iterations >= 5 && res.iterations <= 60);
    CU_ASSERT(polish_sweeps(res.message) <= 50);
  }
  TST_VEC_CLOSE(x, P.xs, n, 1e-7, 0);
  free(x);
  tst_cone_case_free(&P);
}

static void test_nonsymmetric(void) {
  /* short runs (memcheck, ASan): 60 contacts in CSR, still UMFPACK's LU
   * (the 205 were three quarters of this test under memcheck:
   * experiments/records/2026-11-28-test-time-4.md) */
  const int nc = tst_short_runs() ? 60 : 205;
  skew_planted(30, 0, SLV_CONE_ASSOCIATED, 12);
  skew_planted(30, 0, SLV_CONE_COULOMB, 11);
  skew_planted(nc, 1, SLV_CONE_ASSOCIATED, 14);
  skew_planted(nc, 1, SLV_CONE_COULOMB, 13);
}

static void test_fc3d_files(void) {
  static const char *files[] = { "BoxesStack1-i100000-32.hdf5.dat", "KaplasTower-i1061-4.hdf5.dat",
                                 "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5",
                                 "Confeti-ex13-Fc3D-SBM.dat", NULL };
  char path[4096];
  if (!tst_shared_path("datasets/siconos/fc3d", path, sizeof path)) {
    printf("SKIP: ../shared/datasets absent\n");
    return;
  }
  /* short runs: the first file only, the smallest (the others are the
   * same code on larger problems: 30 s of CPU under memcheck) */
  for (int f = 0; files[f] && (f == 0 || !tst_short_runs()); f++) {
    io_instance *in = tst_cone_read_fc3d(files[f]);
    if (!in) continue;
    slv_problem p = io_instance_problem(in);
    slv_options o = slv_options_default();
    o.tol = 1e-8;
    o.norm = SLV_NORM_2;
    o.max_iter = 1000;
    double *x = malloc((size_t)p.n * sizeof *x);
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s: %s (%s)\n", files[f], slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(tst_cone_problem_natres2(&p, x) <= 1.01e-8);
    free(x);
    io_instance_free(in);
  }
}

/* One planted problem (A dense n x n, b, bounds, cones, law; x* if
 * unique, else NULL) solved with A and b both times 1e-12, 1, 1e12 at
 * 1e-8: at each converged, the test's own residual met, x as at scale 1
 * (relative 1e-6) and x* (relative 1e-5), and the interior-point
 * iterations within 3 + 5 % of those at scale 1 (x* and the measures do
 * not change with the scale, and the iterates should not either: they
 * differ only by rounding, which a Coulomb solve's many QPs add up: the
 * boxes take 9 and 10 at each scale, the cones 287, 279, 284; from an
 * absolute centre 289, 461, 378). */
static void scaled_case(const char *name, int n, const double *A, const double *b, const double *lo,
                        const double *hi, int nc, int *rows, double *mu, slv_cone_law law,
                        const double *xs) {
  static const double scale[3] = { 1, 1e-12, 1e12 };
  double *As = malloc((size_t)n * n * sizeof *As), *bs = malloc((size_t)n * sizeof *bs);
  double *x = malloc((size_t)n * sizeof *x), *x1 = malloc((size_t)n * sizeof *x1), xmax = 1;
  int it1 = 0;
  for (int i = 0; xs && i < n; i++) xmax = fmax(xmax, fabs(xs[i]));
  for (int k = 0; k < 3; k++) {
    for (size_t t = 0; t < (size_t)n * n; t++) As[t] = scale[k] * A[t];
    for (int i = 0; i < n; i++) bs[i] = scale[k] * b[i];
    slv_problem p = slv_problem_empty();
    p.n = n, p.storage = SLV_DENSE, p.A = As, p.lda = n, p.b = bs, p.lo = lo, p.hi = hi;
    p.ncones = nc, p.cone_rows = rows, p.cone_mu = mu, p.cone_law = law;
    slv_options o = slv_options_default();
    o.tol = 1e-8;
    o.max_iter = 2000;
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    printf("\n  %s x %g: %s, %d iterations (%s)", name, scale[k], slv_status_str(st),
           res.iterations, res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT(tst_cone_natres(n, As, bs, lo, hi, nc, rows, mu, law == SLV_CONE_COULOMB, x) <=
              1.01e-8);
    if (xs) TST_VEC_CLOSE(x, xs, n, 1e-5 * xmax, 0);
    if (k == 0) {
      memcpy(x1, x, (size_t)n * sizeof *x);
      it1 = res.iterations;
      for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(x1[i]));
      continue;
    }
    TST_VEC_CLOSE(x, x1, n, 1e-6 * xmax, 0);
    CU_ASSERT(abs(res.iterations - it1) <= 3 + 0.05 * it1);
  }
  free(As), free(bs), free(x), free(x1);
}

/* x* planted on A's box rows: row i inside its bounds (w* = 0), at lo
 * (w* > 0) or at hi (w* < 0; inside where hi is infinite) for i % 3 = 0,
 * 1, 2, and b = w* - A x*. */
static void plant_box(int n, const double *A, const double *lo, const double *hi, double *b,
                      double *xs) {
  double *ws = malloc((size_t)n * sizeof *ws);
  for (int i = 0; i < n; i++) {
    double u = 0.1 + 0.8 * ((i * 7) % 11) / 10.0; /* in [0.1, 0.9] */
    int t = i % 3 == 2 && hi[i] == INFINITY ? 0 : i % 3;
    xs[i] = t == 0   ? (hi[i] < INFINITY ? lo[i] + u * (hi[i] - lo[i]) : lo[i] + u)
            : t == 1 ? lo[i]
                     : hi[i];
    ws[i] = t == 0 ? 0 : (t == 1 ? u : -u);
  }
  for (int i = 0; i < n; i++) {
    b[i] = ws[i];
    for (int j = 0; j < n; j++) b[i] -= A[i + (size_t)j * n] * xs[j];
  }
  free(ws);
}

/* The problems of the report: A = G G' of rank 12 + 1e-3 I, 60
 * rows; a boxed LCP in [-1, 1], a plain LCP, and 20 cones (mu in [0.2,
 * 0.8], one 0) under Coulomb's law, each with x* planted. */
static void test_scale_invariance(void) {
  enum { N = 60, NC = N / 3 };
  double *A = malloc((size_t)N * N * sizeof *A), b[N], lo[N], hi[N], xs[N], mu[NC];
  int rows[NC];
  low_rank(N, 12, 41, A);
  for (int i = 0; i < N; i++) A[i + (size_t)i * N] += 1e-3;
  for (int lcp = 0; lcp < 2; lcp++) {
    for (int i = 0; i < N; i++) lo[i] = lcp ? 0 : -1, hi[i] = lcp ? INFINITY : 1;
    plant_box(N, A, lo, hi, b, xs);
    scaled_case(lcp ? "LCP" : "boxed LCP", N, A, b, lo, hi, 0, NULL, NULL, SLV_CONE_ASSOCIATED, xs);
  }
  tst_cone_planted(NC, 0, 0, 42, 1, 1, A, b, lo, hi, rows, mu, xs);
  /* (Coulomb's law on this A has other solutions than x*: x as at scale 1) */
  scaled_case("cones", N, A, b, lo, hi, NC, rows, mu, SLV_CONE_COULOMB, NULL);
  free(A);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("ipm", NULL, NULL);
  tst_cone_add_tests(s, "ipm");
  CU_add_test(s, "degenerate planted (A of rank n/2): w* reached, within 60 iterations",
              test_degenerate);
  CU_add_test(s, "sparse (CHOLMOD) planted, 621 rows, both laws", test_sparse_planted);
  CU_add_test(s, "nonsymmetric monotone A, planted: UMFPACK's LU, both laws, dense and CSR",
              test_nonsymmetric);
  CU_add_test(s, "10-layer pyramid step, Coulomb, 1e-8 within 100 iterations", test_pyramid_step);
  CU_add_test(s, "symmetric Siconos FC3D files at 1e-8", test_fc3d_files);
  CU_add_test(s, "boxed LCP, LCP, cones: A, b x 1e-12, 1, 1e12: the same x and work",
              test_scale_invariance);
  return tst_run();
}
