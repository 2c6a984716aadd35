/* test_metrics.c -- ContactBench's criteria (slv_residuals.contact,
 * libsolvers/metrics.c; docs/problem.md, "Contact metrics"):
 *   - one cone with A = I, so w = x + b and b = v - l plants the velocity v
 *     at the impulse l exactly (every value below is a dyadic rational);
 *     the expected numbers are derived by hand in each case's comment:
 *     sticking, sliding with the right and the wrong friction, friction too
 *     weak while sliding, penetration without impulse, take-off with one,
 *     an impulse outside the cone, a velocity outside the dual cone, mu = 0;
 *   - the maxima over two cones, a box row left out;
 *   - res_contact and res_contact_at (the worst contact) by hand, also
 *     over several of slv_residual's chunks;
 *   - NaN without cones and for a non-finite x;
 *   - planted multi-contact solutions: Coulomb's (every criterion ~ 0 but
 *     the conic complementarity of the sliding contacts) and the
 *     associated law's (conic complementarity ~ 0, but a sliding contact
 *     lifts off: Signorini's complementarity > 0), against this file's own
 *     recomputation;
 *   - slv_solve fills the same numbers as slv_residual, and NaN on refusal.
 */
#include "slv.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* one cone, rows 0..2, A = I, b = v - l: w = A l + b = v exactly */
static slv_contact_metrics one_cone(double mu, const double *l, const double *v) {
  static const double I[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  double b[3] = { v[0] - l[0], v[1] - l[1], v[2] - l[2] };
  int row = 0;
  slv_problem p = slv_problem_empty();
  p.n = 3;
  p.A = I;
  p.lda = 3;
  p.b = b;
  p.ncones = 1;
  p.cone_rows = &row;
  p.cone_mu = &mu;
  slv_residuals r = slv_residual(&p, l, NULL);
  return r.contact;
}

/* the six numbers against their hand values, to rounding (scale 16) */
static void expect(slv_contact_metrics m, double sig, double conic, double ncp, double dual,
                   double primal, double mdp) {
  const double e = 16 * 4 * 2.3e-16;
  TST_CLOSE(m.signorini, sig, e, 0);
  TST_CLOSE(m.conic_compl, conic, e, 0);
  TST_CLOSE(m.ncp_compl, ncp, e, 0);
  TST_CLOSE(m.dual_feas, dual, e, 0);
  TST_CLOSE(m.primal_feas, primal, e, 0);
  TST_CLOSE(m.mdp_gap, mdp, e, 0);
}

static void test_sticking(void) {
  /* mu = 0.5, l = (1, 0.25, -0.25) inside K (|l_t| = 0.354 < 0.5), v = 0:
   * every product is 0, v^ = 0 is in K*, l in K */
  double l[3] = { 1, 0.25, -0.25 }, v[3] = { 0, 0, 0 };
  expect(one_cone(0.5, l, v), 0, 0, 0, 0, 0, 0);
}

static void test_sliding(void) {
  double v[3] = { 0, 4, 0 };
  /* right friction: mu = 0.5, l = (2, -1, 0) on the boundary (|l_t| = 1 =
   * mu l_n), opposite to v_t = (4, 0).  Signorini 2 * 0 = 0; l . v = -4;
   * v^ = (0 + 0.5 * 4, 4, 0) = (2, 4, 0), l . v^ = 4 - 4 = 0; v^ on the
   * boundary of K* (mu |v^_t| = 2 = v^_n): 0; l in K: 0; the gap
   * l_t . v_t + mu l_n |v_t| = -4 + 0.5 * 2 * 4 = 0 */
  double good[3] = { 2, -1, 0 };
  expect(one_cone(0.5, good, v), 0, 4, 0, 0, 0, 0);
  /* friction along the motion, l = (2, 1, 0): l . v = 4, l . v^ = 4 + 4 = 8,
   * gap 4 + 4 = 8 (the power it adds plus the most it could dissipate) */
  double wrong[3] = { 2, 1, 0 };
  expect(one_cone(0.5, wrong, v), 0, 4, 8, 0, 0, 8);
  /* too weak, l = (2, -0.5, 0) inside K while sliding: l . v = -2,
   * l . v^ = 4 - 2 = 2, gap -2 + 4 = 2 */
  double weak[3] = { 2, -0.5, 0 };
  expect(one_cone(0.5, weak, v), 0, 2, 2, 0, 0, 2);
}

static void test_normal_cases(void) {
  /* penetrating, no impulse: l = 0, v = (-1, 0, 0).  Products 0; v^ = v;
   * mu |v_t| = 0 > -1, so v^ is not in K*, and |v_t| = 0 <= -mu v_n = 0.5
   * puts it in the polar cone -K: P_K*(v^) = 0, distance 1 */
  double l0[3] = { 0, 0, 0 }, pen[3] = { -1, 0, 0 };
  expect(one_cone(0.5, l0, pen), 0, 0, 0, 1, 0, 0);
  /* take-off while pushing: l = (1, 0, 0), v = (0.5, 0, 0): l_n v_n = 0.5
   * = l . v = l . v^ (v_t = 0); v^ inside K*; l in K; gap 0 */
  double l1[3] = { 1, 0, 0 }, up[3] = { 0.5, 0, 0 };
  expect(one_cone(0.5, l1, up), 0.5, 0.5, 0.5, 0, 0, 0);
}

static void test_outside_cones(void) {
  /* l = (1, 1, 0) outside K_0.5, v = 0.  P_K(l): |l_t| = 1 > 0.5 l_n and
   * 0.5 * 1 > -1, so the boundary point with normal (1 + 0.5 * 1) / 1.25 =
   * 1.2 and tangent 0.5 * 1.2 = 0.6: l - P = (-0.2, 0.4, 0), 0.4 */
  double l[3] = { 1, 1, 0 }, v0[3] = { 0, 0, 0 };
  slv_contact_metrics m = one_cone(0.5, l, v0);
  expect(m, 0, 0, 0, 0, 0.4, 0);
  /* v = (-1, 0, 2), l = 0: v^ = (-1 + 0.5 * 2, 0, 2) = (0, 0, 2).  K* is
   * { |t| <= 2 n } in the (n, t) plane; the nearest point of its boundary
   * ray (1, 2) / sqrt(5) to (0, 2) is (4/5) (1, 2) = (0.8, 1.6): the
   * distance vector (-0.8, 0.4), 0.8 */
  double l0[3] = { 0, 0, 0 }, v[3] = { -1, 0, 2 };
  expect(one_cone(0.5, l0, v), 0, 0, 0, 0.8, 0, 0);
}

static void test_mu_zero(void) {
  /* mu = 0: K = the ray l_t = 0, K* = the half-space v_n >= 0, v^ = v.
   * Frictionless sliding l = (1, 0, 0), v = (0, 3, 0): all 0. */
  double l[3] = { 1, 0, 0 }, v[3] = { 0, 3, 0 };
  expect(one_cone(0.0, l, v), 0, 0, 0, 0, 0, 0);
  /* l = (1, 0.5, 0): P_K(l) = (1, 0, 0), 0.5; l . v = 1.5; gap
   * 0.5 * 3 + 0 = 1.5 */
  double lt[3] = { 1, 0.5, 0 };
  expect(one_cone(0.0, lt, v), 0, 1.5, 1.5, 0, 0.5, 1.5);
  /* v = (-2, 3, 0), l = 0: P_K*(v) = (0, 3, 0), distance 2 */
  double l0[3] = { 0, 0, 0 }, vn[3] = { -2, 3, 0 };
  expect(one_cone(0.0, l0, vn), 0, 0, 0, 2, 0, 0);
}

static void test_max_over_cones(void) {
  /* rows: 0 a box row (x = 5 > hi = 1, w = -7: badly infeasible, but not
   * a cone: left out); cone 1 at rows 1..3, mu 0.5, the wrong friction
   * above (l = (2, 1, 0), v = (0, 4, 0): 0, 4, 8, 0, 0, 8); cone 2 at rows
   * 4..6, mu 0.5, l = (1, 1, 0) outside K while taking off, v = (0.5, 0,
   * 0): l_n v_n = 0.5 = l . v = l . v^ (v_t = 0), v^ inside K*, primal 0.4
   * (above), gap 0.  The maxima: 0.5, 4, 8, 0, 0.4, 8. */
  double I[49] = { 0 };
  for (int i = 0; i < 7; i++) I[i + 7 * i] = 1;
  double x[7] = { 5, 2, 1, 0, 1, 1, 0 }, w[7] = { -7, 0, 4, 0, 0.5, 0, 0 }, b[7];
  for (int i = 0; i < 7; i++) b[i] = w[i] - x[i];
  double lo[7] = { 0, 0, 0, 0, 0, 0, 0 },
         hi[7] = { 1, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY };
  int rows[2] = { 1, 4 };
  double mu[2] = { 0.5, 0.5 };
  slv_problem p = slv_problem_empty();
  p.n = 7;
  p.A = I;
  p.lda = 7;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  p.ncones = 2;
  p.cone_rows = rows;
  p.cone_mu = mu;
  expect(slv_residual(&p, x, NULL).contact, 0.5, 4, 8, 0, 0.4, 8);
  expect(slv_residual(&p, x, w).contact, 0.5, 4, 8, 0, 0.4, 8); /* w given: the same */
}

/* res_contact = max_c ||F_c|| / ||(b_c, (A x)_c)|| and res_contact_at, its
 * contact (the first of equals), by hand.  A = I, b_c = (1, 0, 0) on every
 * cone, mu 0.5: x_c = (t, 0, 0) has w_c = (1 + t, 0, 0), x_c - w^_c =
 * (-1, 0, 0) projects to 0, so F_c = x_c and the ratio is t / sqrt(1 +
 * t^2) (0 at t = 0).  nc cones as CSR, so that a large nc spans several of
 * slv_residual's chunks (2048 rows at least each). */
static slv_residuals contacts_at(int nc, const double *t) {
  int n = 3 * nc;
  int *Ap = malloc((size_t)(n + 1) * sizeof(int)), *Aj = malloc((size_t)n * sizeof(int));
  int *rows = malloc((size_t)nc * sizeof(int));
  double *Ax = malloc((size_t)n * sizeof(double)), *b = calloc((size_t)n, sizeof(double));
  double *x = calloc((size_t)n, sizeof(double)), *mu = malloc((size_t)nc * sizeof(double));
  for (int i = 0; i <= n; i++) Ap[i] = i;
  for (int i = 0; i < n; i++) Aj[i] = i, Ax[i] = 1;
  for (int c = 0; c < nc; c++) rows[c] = 3 * c, mu[c] = 0.5, b[3 * c] = 1, x[3 * c] = t[c];
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.storage = SLV_CSR;
  p.Ap = Ap;
  p.Aj = Aj;
  p.Ax = Ax;
  p.b = b;
  p.ncones = nc;
  p.cone_rows = rows;
  p.cone_mu = mu;
  slv_residuals r = slv_residual(&p, x, NULL);
  free(Ap), free(Aj), free(rows), free(Ax), free(b), free(x), free(mu);
  return r;
}

static void test_res_contact_at(void) {
  double t[2] = { 0, 0 };
  slv_residuals r = contacts_at(2, t); /* both take off with nothing: every F_c = 0 */
  CU_ASSERT(r.res_contact == 0 && r.res_contact_at == -1);
  t[1] = 0.25;
  r = contacts_at(2, t);
  TST_CLOSE(r.res_contact, 0.25 / sqrt(1.0625), 1e-15, 0);
  CU_ASSERT_EQUAL(r.res_contact_at, 1);
  t[0] = 0.5;
  r = contacts_at(2, t);
  TST_CLOSE(r.res_contact, 0.5 / sqrt(1.25), 1e-15, 0);
  CU_ASSERT_EQUAL(r.res_contact_at, 0);
  t[0] = 0.25; /* equals: the first */
  CU_ASSERT_EQUAL(contacts_at(2, t).res_contact_at, 0);
  /* 3000 cones (9000 rows, several chunks): the worst in a late chunk */
  double *tt = calloc(3000, sizeof(double));
  tt[10] = 0.125, tt[2500] = 0.25, tt[2999] = 0.25;
  r = contacts_at(3000, tt);
  TST_CLOSE(r.res_contact, 0.25 / sqrt(1.0625), 1e-15, 0);
  CU_ASSERT_EQUAL(r.res_contact_at, 2500);
  free(tt);
}

static void test_nan(void) {
  /* no cones: NaN (the criteria are about contacts), the other measures not */
  double A[1] = { 1 }, b[1] = { -1 }, x[1] = { 1 };
  slv_problem p = slv_problem_empty();
  p.n = 1;
  p.A = A;
  p.lda = 1;
  p.b = b;
  slv_residuals r = slv_residual(&p, x, NULL);
  CU_ASSERT(r.res_nat_inf == 0);
  CU_ASSERT(isnan(r.res_contact) && r.res_contact_at == -1);
  CU_ASSERT(isnan(r.contact.signorini) && isnan(r.contact.conic_compl) &&
            isnan(r.contact.ncp_compl) && isnan(r.contact.dual_feas) &&
            isnan(r.contact.primal_feas) && isnan(r.contact.mdp_gap));
  /* a non-finite impulse: NaN */
  double l[3] = { NAN, 0, 0 }, v[3] = { 0, 0, 0 };
  slv_contact_metrics m = one_cone(0.5, l, v);
  CU_ASSERT(isnan(m.signorini) && isnan(m.conic_compl) && isnan(m.ncp_compl) &&
            isnan(m.dual_feas) && isnan(m.primal_feas) && isnan(m.mdp_gap));
}

/* ---- planted solutions, against this file's own recomputation ----------- */

typedef struct {
  double sig, conic, ncp, dual, primal, mdp;
} own_metrics;

/* own projection on { mu |t| <= n } (K*), by the rotation to the cone's
 * axis (the nearest point of the boundary ray, or 0, or v) */
static void own_dual_project(double mu, const double *v, double *o) {
  double s = sqrt(v[1] * v[1] + v[2] * v[2]);
  if (mu * s <= v[0]) {
    memcpy(o, v, 3 * sizeof *v);
    return;
  }
  /* the boundary ray's unit direction in the (n, |t|) plane: (mu, 1) / sqrt(1 + mu^2) */
  double c = sqrt(1 + mu * mu), d = (mu * v[0] + s) / c; /* (n, s) . direction */
  if (d <= 0) {
    o[0] = o[1] = o[2] = 0;
    return;
  }
  o[0] = d * mu / c;
  o[1] = s > 0 ? d / c * v[1] / s : 0;
  o[2] = s > 0 ? d / c * v[2] / s : 0;
}

/* dense n x n, w = A x + b in long double, the six maxima over the cones */
static own_metrics own(int n, const double *A, const double *b, int nc, const int *rows,
                       const double *mu, const double *x) {
  own_metrics m = { 0, 0, 0, 0, 0, 0 };
  for (int c = 0; c < nc; c++) {
    double l[3], v[3], vh[3], p[3], q[3];
    for (int k = 0; k < 3; k++) {
      int i = rows[c] + k;
      long double s = b[i];
      for (int j = 0; j < n; j++) s += (long double)A[i + (size_t)n * j] * x[j];
      v[k] = (double)s;
      l[k] = x[i];
    }
    double vt = sqrt(v[1] * v[1] + v[2] * v[2]), ltvt = l[1] * v[1] + l[2] * v[2];
    memcpy(vh, v, sizeof v);
    vh[0] += mu[c] * vt;
    m.sig = fmax(m.sig, fabs(l[0] * v[0]));
    m.conic = fmax(m.conic, fabs(l[0] * v[0] + ltvt));
    m.ncp = fmax(m.ncp, fabs(l[0] * vh[0] + ltvt));
    own_dual_project(mu[c], vh, p);
    m.dual = fmax(m.dual, fmax(fabs(vh[0] - p[0]), fmax(fabs(vh[1] - p[1]), fabs(vh[2] - p[2]))));
    /* P_K(l) by the same rule on the cone K_mu = (K*) with mu -> 1/mu,
     * written with the axes swapped: |t| <= mu n */
    double s = sqrt(l[1] * l[1] + l[2] * l[2]);
    if (s <= mu[c] * l[0]) {
      memcpy(q, l, sizeof l);
    } else {
      double cc = sqrt(1 + mu[c] * mu[c]), d = (l[0] + mu[c] * s) / cc;
      if (d <= 0)
        q[0] = q[1] = q[2] = 0;
      else {
        q[0] = d / cc;
        q[1] = s > 0 ? d * mu[c] / cc * l[1] / s : 0;
        q[2] = s > 0 ? d * mu[c] / cc * l[2] / s : 0;
      }
    }
    m.primal = fmax(m.primal, fmax(fabs(l[0] - q[0]), fmax(fabs(l[1] - q[1]), fabs(l[2] - q[2]))));
    m.mdp = fmax(m.mdp, fabs(ltvt + mu[c] * l[0] * vt));
  }
  return m;
}

static void expect_own(slv_contact_metrics m, own_metrics o, double e) {
  TST_CLOSE(m.signorini, o.sig, e, 1e-12);
  TST_CLOSE(m.conic_compl, o.conic, e, 1e-12);
  TST_CLOSE(m.ncp_compl, o.ncp, e, 1e-12);
  TST_CLOSE(m.dual_feas, o.dual, e, 1e-12);
  TST_CLOSE(m.primal_feas, o.primal, e, 1e-12);
  TST_CLOSE(m.mdp_gap, o.mdp, e, 1e-12);
}

/* nc contacts (c % 3: sticking, sliding, separated), no box rows, under
 * the law; the planted x* */
static void planted(int coulomb) {
  enum { NC = 9, N = 3 * NC };
  double *A = malloc(N * N * sizeof *A), b[N], lo[N], hi[N], xs[N], mu[NC];
  int rows[NC];
  tst_cone_planted(NC, 0, 0.1, coulomb ? 81 : 82, coulomb, 0, A, b, lo, hi, rows, mu, xs);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  p.ncones = NC;
  p.cone_rows = rows;
  p.cone_mu = mu;
  p.cone_law = coulomb ? SLV_CONE_COULOMB : SLV_CONE_ASSOCIATED;
  slv_contact_metrics m = slv_residual(&p, xs, NULL).contact;
  own_metrics o = own(N, A, b, NC, rows, mu, xs);
  /* the library agrees with this file's own numbers (rounding of w only) */
  expect_own(m, o, 1e-13);
  /* the planted x* solves its law: the law's own criteria vanish to the
   * rounding of b = w* - A x* */
  const double e = 1e-13;
  CU_ASSERT(m.primal_feas <= e);
  CU_ASSERT(m.dual_feas <= e);
  if (coulomb) {
    CU_ASSERT(m.signorini <= e && m.ncp_compl <= e && m.mdp_gap <= e);
    /* the sliding contacts (1, 4, 7; contact 4 has mu = 0) dissipate:
     * l . v = -mu l_n |v_t| != 0 on contacts 1 and 7 */
    CU_ASSERT(m.conic_compl > 1e-3);
  } else {
    CU_ASSERT(m.conic_compl <= e);
    /* the associated law slides with v_n = mu |v_t| > 0 while l_n > 0:
     * Signorini is violated, and so Coulomb's law in De Saxce's form */
    CU_ASSERT(m.signorini > 1e-3);
    CU_ASSERT(m.ncp_compl > 1e-3);
  }
  free(A);
}

static void test_planted_coulomb(void) { planted(1); }
static void test_planted_associated(void) { planted(0); }

static void test_through_solve(void) {
  enum { NC = 6, N = 3 * NC };
  double *A = malloc(N * N * sizeof *A), b[N], lo[N], hi[N], xs[N], mu[NC], x[N], w[N];
  int rows[NC];
  tst_cone_planted(NC, 0, 0.1, 83, 1, 0, A, b, lo, hi, rows, mu, xs);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  p.ncones = NC;
  p.cone_rows = rows;
  p.cone_mu = mu;
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 100000;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("nsgs"), N, &o, &ws), SLV_CONVERGED);
  slv_result res;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, w, &res), SLV_CONVERGED);
  slv_contact_metrics r = slv_residual(&p, x, w).contact;
  CU_ASSERT(memcmp(&r, &res.res.contact, sizeof r) == 0); /* what slv_solve reports */
  expect_own(res.res.contact, own(N, A, b, NC, rows, mu, x), 1e-13);
  /* converged to 1e-10 on the natural map: the Coulomb criteria are small
   * (products of a residual with impulses and velocities of order 1) */
  CU_ASSERT(res.res.contact.ncp_compl <= 1e-8 && res.res.contact.dual_feas <= 1e-8 &&
            res.res.contact.primal_feas <= 1e-8);
  /* a refusal (lo > hi on a box row is not possible here; n > n_max is):
   * every criterion NaN */
  slv_problem big = p;
  big.n = N + 3;
  CU_ASSERT_EQUAL(slv_solve(ws, &big, &o, x, NULL, &res), SLV_ERR_DIM);
  CU_ASSERT(isnan(res.res.contact.signorini) && isnan(res.res.contact.mdp_gap));
  slv_workspace_free(ws);
  free(A);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("metrics", NULL, NULL);
  CU_add_test(s, "sticking", test_sticking);
  CU_add_test(s, "sliding: right, wrong, too weak friction", test_sliding);
  CU_add_test(s, "penetration, take-off", test_normal_cases);
  CU_add_test(s, "impulse outside K, velocity outside K*", test_outside_cones);
  CU_add_test(s, "mu = 0", test_mu_zero);
  CU_add_test(s, "maxima over two cones, box row left out", test_max_over_cones);
  CU_add_test(s, "res_contact and its contact", test_res_contact_at);
  CU_add_test(s, "NaN without cones or with a NaN", test_nan);
  CU_add_test(s, "planted Coulomb solution", test_planted_coulomb);
  CU_add_test(s, "planted associated solution", test_planted_associated);
  CU_add_test(s, "slv_solve reports slv_residual's numbers", test_through_solve);
  return tst_run();
}
