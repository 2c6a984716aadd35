/* test_wedge.c -- the diagnosis of a failed cone solve when a wedge is the
 * reason (slv_result.diagnosis; libsolvers/wedge.c; docs/cone-solvers.md,
 * "A wedge").
 *
 * A sphere (mass 2, radius 0.5) in a floor-wall corner, built by hand:
 * contact 0 on the floor (normal +z, tangents x, y) at (0, 0, -R), contact
 * 1 on the wall (normal +x, tangents z, y) at (-R, 0, 0), A = J M^-1 J^T.
 * Hand-derived: d = (0.5, -0.5, 0; 0.5, -0.5, 0) has J^T d = 0 (the floor
 * pushes the sphere up and toward the wall, the wall pushes it out and
 * down; the torques cancel), |d| = 1, |d_t| = d_n: inside both cones at
 * mu >= 1.  With both normals asking 0.01 of separation (b_n = -0.01) and
 * no other velocity, d.b = -0.01: no x puts both velocities in the dual
 * cones.
 *   - mu = 1.5: every cone solver ends unconverged and says "wedge:
 *     contacts 0 and 1" with d.b = -0.01 (under the associated law, those
 *     that take it), and there the x returned has ||F||_2 >= 0.01 (the
 *     bound wedge.c proves for that law);
 *   - mu = 0.5 (d outside the cones), and mu = 1.5 with d.b taken out of
 *     b (b - (d.b) d) or the wall's b_n at +0.03 (d.b = +0.01): solvable;
 *     auto converges, and a solve cut short (nsgs, one sweep; admm, 1..3
 *     iterations) says nothing;
 *   - a planted solvable cone problem (tst_cone_case_plant) under every
 *     cone solver with budgets 1..6: never a diagnosis;
 *   - the diagnosis' eigensolver (slv_jacobi_eigen) on symmetric matrices
 *     of 3 to 12 rows, random and with a planted double eigenvalue 0: A v =
 *     lambda v and V^T V = I to 1e-13 of ||A||, in at most 12 sweeps (it ran
 *     all 60 from 9 rows on, its stop test below its rounding floor).
 */
#include "slv.h"
#include "slv_internal.h" /* slv_jacobi_eigen */
#include "tst_cone.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { N = 6 };
static const double R = 0.5, MASS = 2.0;

/* The corner's A (row-major = column-major: symmetric) and b. */
static void corner(double bn, double *A, double *b) {
  /* rows: floor n, x, y; wall n, z, y; columns (v, omega) */
  const double J[N][6] = { { 0, 0, 1, 0, 0, 0 }, { 1, 0, 0, 0, -R, 0 }, { 0, 1, 0, R, 0, 0 },
                           { 1, 0, 0, 0, 0, 0 }, { 0, 0, 1, 0, R, 0 },  { 0, 1, 0, 0, 0, -R } };
  double inertia = 0.4 * MASS * R * R;
  double minv[6] = { 1 / MASS, 1 / MASS, 1 / MASS, 1 / inertia, 1 / inertia, 1 / inertia };
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += J[i][k] * minv[k] * J[j][k];
      A[i * N + j] = s;
    }
  for (int i = 0; i < N; i++) b[i] = (i % 3 == 0) ? bn : 0.0;
}

static const int corner_rows[2] = { 0, 3 };

static slv_problem corner_view(const double *A, const double *b, const double *mu,
                               slv_cone_law law) {
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.ncones = 2;
  p.cone_rows = corner_rows;
  p.cone_mu = mu;
  p.cone_law = law;
  return p;
}

static slv_status solve_with(const char *name, const slv_problem *p, int max_iter, double *x,
                             slv_result *res) {
  slv_options o = slv_options_default();
  o.tol = 1e-8;
  if (max_iter > 0) o.max_iter = max_iter;
  slv_workspace *ws;
  if (slv_workspace_new(slv_solver_find(name), p->n, &o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  double w[64];
  slv_status st = slv_solve(ws, p, &o, x, w, res);
  slv_workspace_free(ws);
  return st;
}

static const char *const cone_solvers[] = { "auto", "nsgs_newton", "ppa_nsn", "nsn_ac",      "admm",
                                            "ipm",  "apgd",        "nsgs",    "pjacobi_cone" };
enum { NSOLVERS = sizeof cone_solvers / sizeof *cone_solvers };

/* ||F||_2 of the associated law at x (F = x - P_K(x - w)), by hand. */
static double associated_natmap(const double *A, const double *b, const double *mu,
                                const double *x) {
  double ss = 0;
  for (int c = 0; c < 2; c++) {
    double v[3], pr[3];
    for (int r = 0; r < 3; r++) {
      double w = b[3 * c + r];
      for (int j = 0; j < N; j++) w += A[(3 * c + r) * N + j] * x[j];
      v[r] = x[3 * c + r] - w;
    }
    double t = hypot(v[1], v[2]), m = mu[c];
    if (t <= m * v[0]) {
      memcpy(pr, v, sizeof pr);
    } else if (m * t <= -v[0]) {
      pr[0] = pr[1] = pr[2] = 0;
    } else {
      double s = (v[0] + m * t) / (1 + m * m);
      pr[0] = s;
      pr[1] = m * s * v[1] / t;
      pr[2] = m * s * v[2] / t;
    }
    for (int r = 0; r < 3; r++) ss += (x[3 * c + r] - pr[r]) * (x[3 * c + r] - pr[r]);
  }
  return sqrt(ss);
}

static void test_corner_wedge_named(void) {
  double A[N * N], b[N], mu[2] = { 1.5, 1.5 };
  corner(-0.01, A, b);
  for (int law = 0; law < 2; law++) {
    slv_cone_law cl = law ? SLV_CONE_ASSOCIATED : SLV_CONE_COULOMB;
    slv_problem p = corner_view(A, b, mu, cl);
    int failed = 0, refused = 0;
    for (int s = 0; s < NSOLVERS; s++) {
      double x[N] = { 0 };
      slv_result res;
      slv_status st = solve_with(cone_solvers[s], &p, 0, x, &res);
      if (st == SLV_ERR_UNSUPPORTED) { /* the Newton methods: the Coulomb law only */
        refused++;
        CU_ASSERT_STRING_EQUAL(res.diagnosis, "");
        continue;
      }
      if (st == SLV_CONVERGED) {
        printf("\n  %s converged on the wedge (law %d): res_scaled %g\n", cone_solvers[s], law,
               res.res.res_scaled);
        CU_FAIL("a solver converged on the wedge");
        continue;
      }
      failed++;
      CU_ASSERT(st > 0);
      CU_ASSERT_PTR_NOT_NULL(strstr(res.diagnosis, "wedge: contacts 0 and 1"));
      CU_ASSERT_PTR_NOT_NULL(strstr(res.diagnosis, "d.b = -0.01 < 0"));
      CU_ASSERT_PTR_NOT_NULL(strstr(res.diagnosis, law ? "no answer exists" : "existence"));
      if (!strstr(res.diagnosis, "wedge: contacts 0 and 1"))
        printf("\n  %s (law %d): %s: diagnosis \"%s\"\n", cone_solvers[s], law, slv_status_str(st),
               res.diagnosis);
      /* the associated law's bound: ||F||_2 >= |d.b| at any x */
      if (cl == SLV_CONE_ASSOCIATED) CU_ASSERT(associated_natmap(A, b, mu, x) >= 0.01 * (1 - 1e-9));
    }
    CU_ASSERT_EQUAL(failed + refused, NSOLVERS);
    CU_ASSERT(failed >= (law ? 5 : NSOLVERS));
  }
}

/* auto converges on p; nsgs with one sweep does not, and says nothing. */
static void solvable_no_diagnosis(const slv_problem *p) {
  double x[N] = { 0 };
  slv_result res;
  CU_ASSERT_EQUAL(solve_with("auto", p, 0, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.diagnosis, "");
  memset(x, 0, sizeof x);
  slv_status st = solve_with("nsgs", p, 1, x, &res);
  CU_ASSERT_NOT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.diagnosis, "");
}

static void test_corner_solvable(void) {
  double A[N * N], b[N], lo[2] = { 0.5, 0.5 }, hi[2] = { 1.5, 1.5 };
  corner(-0.01, A, b);
  slv_problem p = corner_view(A, b, lo, SLV_CONE_COULOMB);
  solvable_no_diagnosis(&p); /* d outside the cones at mu 0.5 */
  /* d.b taken out: b - (d.b) d with d.b = -0.01 */
  const double d[N] = { 0.5, -0.5, 0, 0.5, -0.5, 0 };
  for (int i = 0; i < N; i++) b[i] += 0.01 * d[i];
  p = corner_view(A, b, hi, SLV_CONE_COULOMB);
  solvable_no_diagnosis(&p);
  /* the wall asking less than nothing: d.b = (-0.01 + 0.03) / 2 > 0, the wedge's d
   * still in the cones and A d = 0 */
  corner(-0.01, A, b);
  b[3] = 0.03;
  double x[N] = { 0 };
  slv_result res;
  CU_ASSERT_EQUAL(solve_with("auto", &p, 0, x, &res), SLV_CONVERGED);
  for (int k = 1; k <= 3; k++) {
    memset(x, 0, sizeof x);
    solve_with("admm", &p, k, x, &res);
    CU_ASSERT_STRING_EQUAL(res.diagnosis, "");
  }
}

static void test_planted_never(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 12, 0, 1.5, SLV_CONE_COULOMB, 0, 41);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 0);
  int failures = 0;
  for (int s = 0; s < NSOLVERS; s++)
    for (int k = 1; k <= 6; k++) {
      double x[64] = { 0 };
      slv_result res;
      slv_status st = solve_with(cone_solvers[s], &p, k, x, &res);
      failures += st > 0;
      CU_ASSERT_STRING_EQUAL(res.diagnosis, "");
    }
  CU_ASSERT(failures > 0); /* the budgets cut some solves short */
  tst_cone_case_free(&P);
}

/* A symmetric m x m (row-major) from a fixed linear congruential sequence:
 * entries in [-0.5, 0.5); with zero2, Q diag(0, 0, 1, ..., m-2) Q^T for a
 * Q of Householder reflections (a double eigenvalue 0, as a wedge's). */
static void symmetric_case(int m, unsigned seed, int zero2, double *a) {
  unsigned long long s = seed;
  double u[12];
  for (int i = 0; i < m; i++)
    for (int j = 0; j <= i; j++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      a[i * m + j] = a[j * m + i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
  if (!zero2) return;
  double nu = 0;
  for (int i = 0; i < m; i++) nu += a[i] * a[i];
  for (int i = 0; i < m; i++) u[i] = a[i] / sqrt(nu); /* Q = I - 2 u u^T */
  for (int i = 0; i < m; i++)
    for (int j = 0; j < m; j++) {
      double e = 0;
      for (int k = 2; k < m; k++) /* sum_k lambda_k q_k q_k^T, lambda_k = k - 1 */
        e += (k - 1) * ((i == k) - 2 * u[i] * u[k]) * ((j == k) - 2 * u[j] * u[k]);
      a[i * m + j] = e;
    }
}

static void test_jacobi_eigen(void) {
  for (int m = 3; m <= 12; m++)
    for (int zero2 = 0; zero2 <= 1; zero2++) {
      double a[144], w[144], v[144], amax = 0;
      symmetric_case(m, 7u + (unsigned)m, zero2, a);
      memcpy(w, a, sizeof a);
      for (int i = 0; i < m * m; i++) amax = fmax(amax, fabs(a[i]));
      int sweeps = slv_jacobi_eigen(m, w, v);
      CU_ASSERT(sweeps <= 12);
      double worst_eq = 0, worst_orth = 0, lo = INFINITY;
      for (int c = 0; c < m; c++) {
        lo = fmin(lo, fabs(w[c * m + c]));
        for (int i = 0; i < m; i++) {
          double av = 0, vv = 0;
          for (int k = 0; k < m; k++) {
            av += a[i * m + k] * v[k * m + c];
            vv += v[k * m + i] * v[k * m + c];
          }
          worst_eq = fmax(worst_eq, fabs(av - w[c * m + c] * v[i * m + c]));
          worst_orth = fmax(worst_orth, fabs(vv - (i == c)));
        }
      }
      if (sweeps > 12 || worst_eq > 1e-13 * amax || worst_orth > 1e-13)
        fprintf(stderr, "m %d zero2 %d: %d sweeps, |A v - lambda v| %.3g, |V'V - I| %.3g\n", m,
                zero2, sweeps, worst_eq, worst_orth);
      CU_ASSERT(worst_eq <= 1e-13 * amax);
      CU_ASSERT(worst_orth <= 1e-13);
      if (zero2) CU_ASSERT(lo <= 1e-13 * amax);
    }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("wedge", NULL, NULL);
  CU_add_test(s, "a sphere in a corner at mu 1.5, b_n < 0: the wedge named by every cone solver",
              test_corner_wedge_named);
  CU_add_test(s, "the corner at mu 0.5, and with d.b taken out: solvable, nothing said",
              test_corner_solvable);
  CU_add_test(s, "a planted solvable cone problem, budgets 1..6: nothing said", test_planted_never);
  CU_add_test(s, "the eigensolver: A v = lambda v, V orthonormal, at most 12 sweeps",
              test_jacobi_eigen);
  return tst_run();
}
