/* tst_cone.c -- see tst_cone.h.  The cases, for the solver named at
 * registration (pcg_cone or apgd; both solve the cone QP, and Coulomb's law
 * by the De Saxce fixed point around it):
 *   - one contact, A = I or diagonal, hand-derived sticking / sliding /
 *     separating answers under both laws;
 *   - mu = 0: the normal rows are the LCP (A_nn, b_n), solved by pgs and
 *     lemke; tangential reactions exactly 0;
 *   - planted multi-contact problems (A SPD, unique solution) with box and
 *     free rows interleaved, associated law: x = x*, own residual <= tol;
 *   - planted Coulomb-law problems (sliding: w_n = 0, w_t = -lambda x_t/|x_t|;
 *     sticking: w = 0; separated: w_n > 0): x = x*, both solvers agree;
 *   - CSR gives the dense answer; warm start; history; honest failures.
 */
#include "tst_cone.h"

#include "slv.h"
#include "tst_util.h"

#include <cblas.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *solver_name;

/* ---- independent measures ------------------------------------------------ */

/* Projection on K_mu = {|t| <= mu n}, written out again here (not the
 * library's): inside -> itself; in the polar cone -> 0; else onto the
 * boundary ray through (1, mu t/|t|). */
static void proj(double mu, const double *v, double *out) {
  double s = sqrt(v[1] * v[1] + v[2] * v[2]);
  if (s <= mu * v[0]) {
    memcpy(out, v, 3 * sizeof *v);
  } else if (mu * s <= -v[0]) {
    out[0] = out[1] = out[2] = 0;
  } else {
    double nn = (v[0] + mu * s) / (1 + mu * mu);
    out[0] = nn;
    out[1] = s > 0 ? mu * nn * v[1] / s : 0;
    out[2] = s > 0 ? mu * nn * v[2] / s : 0;
  }
}

void tst_cone_project(double mu, const double *v, double *out) { proj(mu, v, out); }

/* The natural map's inf-norm, and its squared 2-norm into *ss. */
static double natres_norms(int n, const double *A, const double *b, const double *lo,
                           const double *hi, int nc, const int *rows, const double *mu, int coulomb,
                           const double *x, double *ss) {
  double *w = malloc((size_t)n * sizeof *w), m = 0;
  *ss = 0;
  for (int i = 0; i < n; i++) {
    long double s = b[i];
    for (int j = 0; j < n; j++) s += (long double)A[i + (size_t)j * n] * x[j];
    w[i] = (double)s;
  }
  int c = 0;
  for (int i = 0; i < n;) {
    if (c < nc && rows[c] == i) {
      double wh0 = w[i] + (coulomb ? mu[c] * sqrt(w[i + 1] * w[i + 1] + w[i + 2] * w[i + 2]) : 0);
      double v[3] = { x[i] - wh0, x[i + 1] - w[i + 1], x[i + 2] - w[i + 2] }, pr[3];
      proj(mu[c], v, pr);
      for (int k = 0; k < 3; k++) {
        m = fmax(m, fabs(x[i + k] - pr[k]));
        *ss += (x[i + k] - pr[k]) * (x[i + k] - pr[k]);
      }
      c++;
      i += 3;
      continue;
    }
    double l = lo ? lo[i] : 0, h = hi ? hi[i] : INFINITY;
    double r = fmax(x[i] - h, fmin(w[i], x[i] - l));
    m = fmax(m, fabs(r));
    *ss += r * r;
    i++;
  }
  free(w);
  return m;
}

/* q / s, 0 when q is 0 (0 / 0: nothing to normalise) */
static double ratio(double q, double s) { return q == 0 ? 0 : q / s; }

/* The scale-invariant measure (docs/convergence.md), written out again
 * from its definition: x over ||x||_inf, w_i over |A_ii| ||x||_inf + |b_i| +
 * |(A x)_i| (a cone: the largest of its diagonal entries, the 2-norms of
 * its b and A x blocks), then each row's (cone's) natural map, the
 * largest. */
static double scaled_norm(int n, const double *A, const double *b, const double *lo,
                          const double *hi, int nc, const int *rows, const double *mu, int coulomb,
                          const double *x) {
  double *ax = malloc((size_t)n * sizeof *ax), xs = 0, xd = 0, m = 0;
  for (int i = 0; i < n; i++) {
    long double s = 0;
    for (int j = 0; j < n; j++) s += (long double)A[i + (size_t)j * n] * x[j];
    ax[i] = (double)s;
    xs = fmax(xs, fabs(x[i]));
  }
  for (int i = 0, c = 0; i < n; i++) { /* xd: each row's or cone's answer alone */
    if (c < nc && rows[c] == i) {
      double a = 0, v[3], pr[3];
      for (int k = 0; k < 3; k++) a = fmax(a, fabs(A[(i + k) + (size_t)(i + k) * n]));
      for (int k = 0; k < 3; k++) v[k] = a > 0 ? -b[i + k] / a : 0;
      proj(mu[c], v, pr);
      for (int k = 0; k < 3; k++) xd = fmax(xd, fabs(pr[k]));
      c++;
      i += 2;
      continue;
    }
    xd = fmax(xd, tst_alone(n, A, b, lo ? lo[i] : 0, hi ? hi[i] : INFINITY, i));
  }
  int c = 0;
  for (int i = 0; i < n;) {
    if (c < nc && rows[c] == i) {
      double react = 0, nb = 0, na = 0, wh[3], v[3], pr[3];
      for (int k = 0; k < 3; k++) {
        react = fmax(react, tst_reaction(n, A, i + k, xs, xd));
        nb += b[i + k] * b[i + k];
        na += ax[i + k] * ax[i + k];
      }
      double sc = react + sqrt(nb) + sqrt(na);
      for (int k = 0; k < 3; k++) wh[k] = ratio(b[i + k] + ax[i + k], sc);
      if (coulomb) wh[0] += mu[c] * sqrt(wh[1] * wh[1] + wh[2] * wh[2]);
      for (int k = 0; k < 3; k++) v[k] = ratio(x[i + k], xs) - wh[k];
      proj(mu[c], v, pr);
      for (int k = 0; k < 3; k++) m = fmax(m, fabs(ratio(x[i + k], xs) - pr[k]));
      c++;
      i += 3;
      continue;
    }
    double l = lo ? lo[i] : 0, h = hi ? hi[i] : INFINITY;
    m = fmax(m, tst_scaled_row(x[i], ax[i], b[i], tst_reaction(n, A, i, xs, xd), l, h, xs));
    i++;
  }
  free(ax);
  return m;
}

double tst_cone_natres(int n, const double *A, const double *b, const double *lo, const double *hi,
                       int nc, const int *rows, const double *mu, int coulomb, const double *x) {
  return scaled_norm(n, A, b, lo, hi, nc, rows, mu, coulomb, x);
}

double tst_cone_natres_abs(int n, const double *A, const double *b, const double *lo,
                           const double *hi, int nc, const int *rows, const double *mu, int coulomb,
                           const double *x) {
  double ss;
  return natres_norms(n, A, b, lo, hi, nc, rows, mu, coulomb, x, &ss);
}

int tst_cone_planted(int nc, int nbox, double eps, unsigned long seed, int coulomb, int keep_A,
                     double *A, double *b, double *lo, double *hi, int *rows, double *mu,
                     double *xs) {
  int n = 3 * nc + nbox;
  if (!keep_A) tst_planted_spd(n, eps, seed, NULL, NULL, A, b, xs);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed + 1000);
  double *w = malloc((size_t)n * sizeof *w);
  int i = 0, boxes = 0;
  for (int c = 0; c <= nc; c++) {
    /* a box row before every third contact, the rest at the end */
    while (boxes < nbox && (c == nc || c % 3 == 1)) {
      int freerow = boxes % 2 == 0;
      lo[i] = freerow ? -INFINITY : -0.5;
      hi[i] = freerow ? INFINITY : 0.7;
      double u = gsl_rng_uniform(r);
      if (freerow || (u > 0.3 && u < 0.7)) {
        xs[i] = freerow ? 2 * gsl_rng_uniform(r) - 1 : -0.4 + gsl_rng_uniform(r);
        w[i] = 0;
      } else if (u <= 0.3) {
        xs[i] = lo[i];
        w[i] = 0.1 + gsl_rng_uniform(r);
      } else {
        xs[i] = hi[i];
        w[i] = -0.1 - gsl_rng_uniform(r);
      }
      i++;
      boxes++;
      if (c < nc) break;
    }
    if (c == nc) break;
    rows[c] = i;
    lo[i] = lo[i + 1] = lo[i + 2] = -INFINITY; /* cone rows: lo/hi are ignored */
    hi[i] = hi[i + 1] = hi[i + 2] = INFINITY;
    double m = c == 4 ? 0 : 0.2 + 0.6 * gsl_rng_uniform(r);
    mu[c] = m;
    double th = 6.283185307179586 * gsl_rng_uniform(r), e1 = cos(th), e2 = sin(th);
    double xn = 0.5 + gsl_rng_uniform(r), lam = 0.2 + gsl_rng_uniform(r);
    int kind = c % 3; /* 0 sticking, 1 sliding, 2 separated */
    if (kind == 0) {
      double rr = m * xn * (0.1 + 0.7 * gsl_rng_uniform(r));
      xs[i] = xn;
      xs[i + 1] = rr * e1;
      xs[i + 2] = rr * e2;
      w[i] = w[i + 1] = w[i + 2] = 0;
    } else if (kind == 1) {
      /* x on the boundary; w^ = lambda (mu, -e) in K* (De Saxce: w_n = 0) */
      xs[i] = xn;
      xs[i + 1] = m * xn * e1;
      xs[i + 2] = m * xn * e2;
      w[i] = coulomb ? 0 : lam * m;
      w[i + 1] = -lam * e1;
      w[i + 2] = -lam * e2;
    } else {
      /* x = 0; associated: w inside K* = {|w_t| <= w_n / mu}; Coulomb: w_n > 0 */
      xs[i] = xs[i + 1] = xs[i + 2] = 0;
      w[i] = 0.2 + gsl_rng_uniform(r);
      double rr = coulomb ? 2 * gsl_rng_uniform(r) : w[i] / m * 0.8 * gsl_rng_uniform(r);
      w[i + 1] = rr * e1;
      w[i + 2] = rr * e2;
    }
    i += 3;
  }
  for (int k = 0; k < n; k++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[k + (size_t)j * n] * xs[j];
    b[k] = w[k] - s;
  }
  free(w);
  gsl_rng_free(r);
  return n;
}

/* ---- helpers ----------------------------------------------------------------- */

static slv_status run_with(const char *name, const slv_problem *p, const slv_options *o, double *x,
                           slv_result *res) {
  const slv_solver *s = slv_solver_find(name);
  slv_workspace *ws = NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  if (slv_workspace_new(s, p->n, o, &ws)) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static slv_status run(const slv_problem *p, const slv_options *o, double *x, slv_result *res) {
  return run_with(solver_name, p, o, x, res);
}

static const char *other_solver(void) {
  return strcmp(solver_name, "pcg_cone") == 0 ? "apgd" : "pcg_cone";
}

/* ---- one contact, hand-derived ---------------------------------------------- */

typedef struct {
  double a[3]; /* A = diag(a) */
  double b[3];
  int law;     /* SLV_CONE_COULOMB / SLV_CONE_ASSOCIATED */
  double x[3]; /* the answer */
  const char *what;
} one_case;

/* mu = 0.5 throughout.  K* = {|w_t| <= w_n / mu}; De Saxce w^ = w + mu|w_t| e_n.
 * A = I:
 *  sticking, b = (-1, 0.2, 0): x = -b = (1, -0.2, 0) is inside K (0.2 <= 0.5),
 *     w = 0: a solution under both laws.
 *  sliding, b = (-2, 1.5, 2), |b_t| = 2.5.  Coulomb: w_n = x_n - 2 = 0 -> x_n = 2;
 *     x_t = -mu x_n b_t/|b_t| = -(0.6, 0.8); w_t = x_t + b_t = (0.9, 1.2),
 *     opposite to x_t, so w^ = (0.75, 0.9, 1.2) = 1.5 (mu, -e): in K*, x.w^ = 0.
 *     Associated: with A = I the QP is min |x + b|^2 / 2, x = P_K(-b) =
 *     P_K(2, -1.5, -2): s = 2.5 > mu n = 1, n' = (2 + 0.5*2.5)/1.25 = 2.6,
 *     t' = 0.5*2.6*(-1.5, -2)/2.5 = (-0.78, -1.04).
 *  separated, b = (1, 0.3, -0.2): x = 0.  Associated: P_K(-1, -0.3, 0.2) = 0
 *     (mu s = 0.18 <= 1).  Coulomb: w = b, w^_n = 1 + 0.5*0.36 = 1.18 >=
 *     mu |w_t| ... i.e. |w_t| = 0.36 <= w^_n / mu = 2.36: w^ in K*.
 * A = diag(2, 4, 4):
 *  sliding (Coulomb), b = (-2, 3, 0): w_n = 2 x_n - 2 = 0 -> x_n = 1; sticking
 *     would need x_t = -b_t/4 = (-0.75, 0), |x_t| > mu x_n = 0.5, so slide:
 *     x_t = (-0.5, 0), w_t = 4 (-0.5) + 3 = 1 > 0 against x_t.  x = (1, -0.5, 0).
 *  sticking, b = (-2, 1, 0): x = (1, -0.25, 0), w = 0 (0.25 <= 0.5): both laws. */
static const one_case one_cases[] = {
  { { 1, 1, 1 }, { -1, 0.2, 0 }, SLV_CONE_COULOMB, { 1, -0.2, 0 }, "stick" },
  { { 1, 1, 1 }, { -1, 0.2, 0 }, SLV_CONE_ASSOCIATED, { 1, -0.2, 0 }, "stick" },
  { { 1, 1, 1 }, { -2, 1.5, 2 }, SLV_CONE_COULOMB, { 2, -0.6, -0.8 }, "slide" },
  { { 1, 1, 1 }, { -2, 1.5, 2 }, SLV_CONE_ASSOCIATED, { 2.6, -0.78, -1.04 }, "slide" },
  { { 1, 1, 1 }, { 1, 0.3, -0.2 }, SLV_CONE_COULOMB, { 0, 0, 0 }, "separate" },
  { { 1, 1, 1 }, { 1, 0.3, -0.2 }, SLV_CONE_ASSOCIATED, { 0, 0, 0 }, "separate" },
  { { 2, 4, 4 }, { -2, 3, 0 }, SLV_CONE_COULOMB, { 1, -0.5, 0 }, "slide, diag A" },
  { { 2, 4, 4 }, { -2, 1, 0 }, SLV_CONE_COULOMB, { 1, -0.25, 0 }, "stick, diag A" },
  { { 2, 4, 4 }, { -2, 1, 0 }, SLV_CONE_ASSOCIATED, { 1, -0.25, 0 }, "stick, diag A" },
};

static void test_one_contact(void) {
  for (size_t k = 0; k < sizeof one_cases / sizeof one_cases[0]; k++) {
    const one_case *c = &one_cases[k];
    double A[9] = { 0 }, x[3], mu = 0.5;
    int row = 0;
    for (int i = 0; i < 3; i++) A[i + 3 * i] = c->a[i];
    slv_problem p = slv_problem_empty();
    p.n = 3;
    p.A = A;
    p.lda = 3;
    p.b = c->b;
    p.ncones = 1;
    p.cone_rows = &row;
    p.cone_mu = &mu;
    p.cone_law = c->law;
    slv_options o = slv_options_default();
    o.tol = 1e-13;
    o.max_iter = 10000;
    slv_result res;
    slv_status st = run(&p, &o, x, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s, %s, %s: %s (%s)\n", solver_name, c->what, slv_cone_law_str(c->law),
              slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    TST_VEC_CLOSE(x, c->x, 3, 1e-12, 0);
    /* the answer satisfies its own law (this file's projection) */
    CU_ASSERT(tst_cone_natres(3, A, c->b, NULL, NULL, 1, &row, &mu, c->law == SLV_CONE_COULOMB,
                              x) <= 1e-13);
    /* the result says which law was solved */
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, slv_cone_law_str(c->law)));
  }
}

/* ---- mu = 0: the LCP on the normal rows -------------------------------------- */

static void test_mu0_is_lcp(void) {
  enum { NC = 12, N = 3 * NC };
  double *A = malloc(sizeof(double) * N * N), b[N], xs[N], x[N], mu[NC];
  double Ann[NC * NC], bn[NC], xl[NC], xp[NC];
  int rows[NC];
  tst_planted_spd(N, 0.1, 41, NULL, NULL, A, b, xs);
  for (int c = 0; c < NC; c++) {
    rows[c] = 3 * c;
    mu[c] = 0;
    b[3 * c] = c % 3 == 0 ? 0.5 : -1.0 + 0.1 * c; /* some contacts open, some closed */
    b[3 * c + 1] = 0.3 * (c % 4) - 0.5;           /* irrelevant for mu = 0 */
    b[3 * c + 2] = -0.2 * (c % 5);
    bn[c] = b[3 * c];
    for (int d = 0; d < NC; d++) Ann[c + d * NC] = A[3 * c + 3 * d * N];
  }
  slv_problem lcp = slv_problem_empty();
  lcp.n = NC;
  lcp.A = Ann;
  lcp.lda = NC;
  lcp.b = bn;
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  o.max_iter = 100000;
  slv_result res;
  CU_ASSERT_EQUAL(run_with("pgs", &lcp, &o, xp, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(run_with("lemke", &lcp, &o, xl, &res), SLV_CONVERGED);
  TST_VEC_CLOSE(xl, xp, NC, 1e-10, 0);
  int closed = 0;
  for (int c = 0; c < NC; c++) closed += xl[c] > 1e-6;
  CU_ASSERT(closed >= 3 && closed <= NC - 2); /* a real complementarity problem */
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.ncones = NC;
  p.cone_rows = rows;
  p.cone_mu = mu;
  for (int law = 0; law < 2; law++) {
    p.cone_law = law ? SLV_CONE_ASSOCIATED : SLV_CONE_COULOMB;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_CONVERGED);
    for (int c = 0; c < NC; c++) {
      TST_CLOSE(x[3 * c], xl[c], 1e-10, 0);
      CU_ASSERT(x[3 * c + 1] == 0 && x[3 * c + 2] == 0); /* mu = 0: no friction at all */
    }
  }
  free(A);
}

/* ---- planted multi-contact problems ------------------------------------------ */

static void planted(int nc, int nbox, double eps, unsigned long seed, int coulomb, double tol) {
  int n = 3 * nc + nbox;
  double *A = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n);
  double *lo = malloc(sizeof(double) * n), *hi = malloc(sizeof(double) * n);
  double *xs = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  double *x2 = malloc(sizeof(double) * n), *mu = malloc(sizeof(double) * nc);
  int *rows = malloc(sizeof(int) * nc);
  tst_cone_planted(nc, nbox, eps, seed, coulomb, 0, A, b, lo, hi, rows, mu, xs);
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  p.ncones = nc;
  p.cone_rows = rows;
  p.cone_mu = mu;
  p.cone_law = coulomb ? SLV_CONE_COULOMB : SLV_CONE_ASSOCIATED;
  /* the planted point is a solution, by this file's own measure */
  CU_ASSERT(tst_cone_natres(n, A, b, lo, hi, nc, rows, mu, coulomb, xs) <= 1e-13);
  slv_options o = slv_options_default();
  o.tol = tol;
  o.max_iter = 200000;
  slv_result res;
  slv_status st = run(&p, &o, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "%s planted nc=%d seed=%lu %s: %s (%s)\n", solver_name, nc, seed,
            coulomb ? "coulomb" : "associated", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT(tst_cone_natres(n, A, b, lo, hi, nc, rows, mu, coulomb, x) <= tol * 1.01);
  /* A SPD with lambda_min >= eps: the associated solution is unique and
   * |x - x*| is at most about |r| / eps (r: the natural map) */
  TST_VEC_CLOSE(x, xs, n, 100 * tol / eps, 0);
  if (coulomb) {
    /* the other QP solver, through the same fixed point, finds the same x */
    st = run_with(other_solver(), &p, &o, x2, &res);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    TST_VEC_CLOSE(x2, x, n, 200 * tol / eps, 0);
  }
  free(A);
  free(b);
  free(lo);
  free(hi);
  free(xs);
  free(x);
  free(x2);
  free(mu);
  free(rows);
}

static void test_planted_associated(void) {
  planted(20, 6, 0.1, 51, 0, 1e-10);
  planted(12, 0, 0.05, 52, 0, 1e-10);
  planted(30, 9, 0.2, 53, 0, 1e-10);
}

static void test_planted_coulomb(void) {
  planted(20, 6, 0.3, 61, 1, 1e-10);
  planted(12, 0, 0.3, 62, 1, 1e-10);
}

/* ---- CSR = dense --------------------------------------------------------------- */

static void test_csr_matches_dense(void) {
  /* contact-like sparse A (each contact coupled to its neighbours), diagonally
   * dominant so SPD: 4 on the diagonal, -1 on the first off-diagonal, 0.5 at
   * distance 3 (the same row of the next contact) */
  enum { NC = 25, NB = 5, N = 3 * NC + NB };
  double *A = calloc((size_t)N * N, sizeof *A), b[N], lo[N], hi[N], xs[N], xd[N], xc[N], mu[NC];
  int rows[NC];
  for (int i = 0; i < N; i++) {
    A[i + i * N] = 4;
    if (i + 1 < N) A[i + (i + 1) * N] = A[(i + 1) + i * N] = -1;
    if (i + 3 < N) A[i + (i + 3) * N] = A[(i + 3) + i * N] = 0.5;
  }
  int *Ap = malloc((N + 1) * sizeof *Ap), *Aj = malloc(5 * N * sizeof *Aj);
  double *Ax = malloc(5 * N * sizeof *Ax);
  tst_dense_to_csr(N, A, Ap, Aj, Ax);
  for (int law = 0; law < 2; law++) {
    int coulomb = law == 0;
    tst_cone_planted(NC, NB, 0, 71, coulomb, 1, A, b, lo, hi, rows, mu, xs);
    slv_problem d = slv_problem_empty();
    d.n = N;
    d.A = A;
    d.lda = N;
    d.b = b;
    d.lo = lo;
    d.hi = hi;
    d.ncones = NC;
    d.cone_rows = rows;
    d.cone_mu = mu;
    d.cone_law = coulomb ? SLV_CONE_COULOMB : SLV_CONE_ASSOCIATED;
    slv_problem c = d;
    c.storage = SLV_CSR;
    c.A = NULL;
    c.lda = 0;
    c.Ap = Ap;
    c.Aj = Aj;
    c.Ax = Ax;
    slv_options o = slv_options_default();
    o.tol = 1e-11;
    o.max_iter = 100000;
    slv_result rd, rc;
    CU_ASSERT_EQUAL(run(&d, &o, xd, &rd), SLV_CONVERGED);
    CU_ASSERT_EQUAL(run(&c, &o, xc, &rc), SLV_CONVERGED);
    TST_VEC_CLOSE(xd, xs, N, 1e-9, 0);
    TST_VEC_CLOSE(xc, xd, N, 1e-9, 0);
    CU_ASSERT(tst_cone_natres(N, A, b, lo, hi, NC, rows, mu, coulomb, xc) <= 1.01e-11);
  }
  free(A);
  free(Ap);
  free(Aj);
  free(Ax);
}

/* ---- warm start and history ------------------------------------------------------ */

static void test_warm_start_history(void) {
  enum { NC = 16, NB = 4, N = 3 * NC + NB };
  double *A = malloc(sizeof(double) * N * N), b[N], lo[N], hi[N], xs[N], x[N], mu[NC];
  int rows[NC];
  for (int law = 0; law < 2; law++) {
    int coulomb = law == 0;
    tst_cone_planted(NC, NB, 0.1, 81 + law, coulomb, 0, A, b, lo, hi, rows, mu, xs);
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
    slv_options o = slv_options_default();
    o.tol = 1e-10;
    o.max_iter = 100000;
    o.record_history = 1;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(solver_name), N, &o, &ws), SLV_OK);
    slv_result cold, warm;
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &cold), SLV_CONVERGED);
    CU_ASSERT(cold.iterations > 3);
    /* one history entry per inner iteration: the test's measure, the last
     * one the returned x's */
    CU_ASSERT_EQUAL(cold.history_len, cold.iterations);
    CU_ASSERT(cold.history[0] > o.tol);
    TST_CLOSE(cold.history[cold.history_len - 1], cold.res.res_scaled, 1e-12, 1e-3);
    CU_ASSERT_PTR_NOT_NULL(strstr(cold.message, coulomb ? "coulomb" : "associated"));
    CU_ASSERT_PTR_NOT_NULL(strstr(cold.message, "outer"));
    /* warm start from the answer: nothing to do */
    o.warm_start = 1;
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
    CU_ASSERT_EQUAL(warm.iterations, 0);
    CU_ASSERT_EQUAL(warm.history_len, 0);
    /* near the answer (x* + 1e-6, projected by the solver): fewer iterations */
    for (int i = 0; i < N; i++) x[i] = xs[i] + 1e-6 * (1 + i % 3);
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &warm), SLV_CONVERGED);
    CU_ASSERT(warm.iterations < cold.iterations);
    TST_VEC_CLOSE(x, xs, N, 1e-8, 0);
    slv_workspace_free(ws);
  }
  free(A);
}

/* ---- honest failures ---------------------------------------------------------------- */

static void test_honest_failures(void) {
  enum { NC = 10, N = 3 * NC };
  double *A = malloc(sizeof(double) * N * N), b[N], lo[N], hi[N], xs[N], x[N], mu[NC];
  int rows[NC];
  tst_cone_planted(NC, 0, 0.05, 91, 1, 0, A, b, lo, hi, rows, mu, xs);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.ncones = NC;
  p.cone_rows = rows;
  p.cone_mu = mu;
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 1;
  slv_result res;
  for (int law = 0; law < 2; law++) {
    p.cone_law = law ? SLV_CONE_ASSOCIATED : SLV_CONE_COULOMB;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_MAX_ITER);
    CU_ASSERT_EQUAL(res.iterations, 1);
    CU_ASSERT(res.res.res_nat_inf > o.tol);
    CU_ASSERT(tst_cone_natres(N, A, b, NULL, NULL, NC, rows, mu, law == 0, x) > o.tol);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, solver_name));
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "max_iter"));
  }
  /* a non-symmetric A is refused before solving by the solvers whose QP
   * needs A = A^T (admm takes it: its LU path, test_admm.c) */
  if (slv_solver_find(solver_name)->caps & SLV_CAP_NEEDS_SYMMETRIC) {
    A[0 + 1 * N] += 0.01;
    CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "symmetric"));
    A[0 + 1 * N] -= 0.01;
  }
  /* findex rows are not for this solver (cones are its friction model) */
  int fx[N];
  double fmu[N];
  for (int i = 0; i < N; i++) {
    fx[i] = -1;
    fmu[i] = 0;
  }
  p.ncones = 0;
  fx[1] = 0;
  fmu[1] = 0.5;
  p.findex = fx;
  p.mu = fmu;
  CU_ASSERT_EQUAL(run(&p, &o, x, &res), SLV_ERR_UNSUPPORTED);
  free(A);
}

void tst_cone_add_tests(CU_pSuite s, const char *name) {
  solver_name = name;
  CU_add_test(s, "one contact: stick, slide, separate, both laws (hand-derived)", test_one_contact);
  CU_add_test(s, "mu = 0: the normal rows are the LCP (pgs, lemke)", test_mu0_is_lcp);
  CU_add_test(s, "planted, associated law, with box and free rows", test_planted_associated);
  CU_add_test(s, "planted, Coulomb law, both cone QP solvers agree", test_planted_coulomb);
  CU_add_test(s, "CSR gives the dense answer, both laws", test_csr_matches_dense);
  CU_add_test(s, "warm start, history, message", test_warm_start_history);
  CU_add_test(s, "honest failures: max_iter, non-symmetric, findex", test_honest_failures);
}

/* ---- planted multi-contact problems (test_nsgs, test_pjacobi_cone) -------- */


void tst_cone_case_free(tst_cone_case *P) {
  free(P->A);
  free(P->b);
  free(P->lo);
  free(P->hi);
  free(P->xs);
  free(P->cmu);
  free(P->rows);
  free(P->Ap);
  free(P->Aj);
  free(P->Ax);
}

/* The column offsets of a row of G in the banded plant (sparse = 2). */
static const int golomb7[7] = { 0, 1, 4, 10, 18, 23, 25 };

/* A = G G^T + 0.1 I for a dense G into A (zero on entry), k outermost:
 * every entry gets 0.1 or 0, then its terms G_ik G_jk in increasing k, as
 * in a dot product over k (the same bits), with G read by columns (the
 * dot products' strided reads made the 633-row plant 0.9 s natively).
 * Under memcheck (tst_short_runs) OpenBLAS's dsyrk forms it: the same A to
 * rounding, where the n^3 scalar multiplies cost 5 s of CPU a 633-row
 * plant. */
static void plant_gram_dense(int n, const double *G, double *A) {
  if (tst_short_runs()) {
    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, G, n, 0.0, A, n);
    for (int j = 0; j < n; j++) {
      A[j + (size_t)j * n] += 0.1;
      for (int i = j + 1; i < n; i++) A[j + (size_t)i * n] = A[i + (size_t)j * n];
    }
    return;
  }
  for (int i = 0; i < n; i++) A[i + (size_t)i * n] = 0.1;
  for (int k = 0; k < n; k++) {
    const double *g = G + (size_t)k * n;
    for (int j = 0; j < n; j++) {
      double *a = A + (size_t)j * n, gj = g[j];
      for (int i = 0; i < n; i++) a[i] += g[i] * gj;
    }
  }
}

/* A = G G^T + 0.1 I (column-major, n x n, zero on entry; entries that come
 * out 0 stay 0).  A sparse G (rows of 3 or 7 nonzeros) sums only over row
 * i's nonzero columns, in increasing order: the same bits as the full sum
 * over k, whose other terms are zeros, at n^2 rather than n^3 the cost (the
 * 633-row plants took minutes under memcheck). */
static void plant_gram(int n, const double *G, int sparse, double *A) {
  if (!sparse) {
    plant_gram_dense(n, G, A);
    return;
  }
  int ks[7]; /* a sparse row's nonzero columns: at most 7 */
  for (int i = 0; i < n; i++) {
    int nk = 0;
    for (int k = 0; k < n && nk < 7; k++)
      if (G[i + (size_t)k * n] != 0) ks[nk++] = k;
    for (int j = 0; j < n; j++) {
      double s = i == j ? 0.1 : 0;
      for (int t = 0; t < nk; t++) s += G[i + (size_t)ks[t] * n] * G[j + (size_t)ks[t] * n];
      if (s != 0 || i == j) A[i + (size_t)j * n] = s;
    }
  }
}

/* nc contacts with mu, nbox box rows (free / LCP / box [-0.5, 0.5] in turn),
 * the box rows interleaved before the first contacts.  A = G G^T + 0.1 I:
 * sparse = 1: G has 3 nonzeros per row (A about 7 per row); sparse = 2: 7,
 * at offsets whose differences are all distinct (A banded, 43 per row: 14
 * blocks a contact by nnz / 3n, over auto's coupling threshold of 12);
 * else dense G.
 * Per contact (in turn): x = 0 with w in the interior of K*, x inside K
 * with w = 0, x on the boundary with w the orthogonal boundary ray of the
 * law (associated: s (mu, -d); Coulomb: (0, -s d)).  b = w* - A x*. */
void tst_cone_case_plant(tst_cone_case *P, int nc, int nbox, double mu, slv_cone_law law,
                         int sparse, unsigned long seed) {
  int n = 3 * nc + nbox;
  P->n = n;
  P->nc = nc;
  P->A = calloc((size_t)n * n, sizeof(double));
  P->b = malloc(n * sizeof(double));
  P->lo = malloc(n * sizeof(double));
  P->hi = malloc(n * sizeof(double));
  P->xs = malloc(n * sizeof(double));
  P->cmu = malloc((nc + 1) * sizeof(double));
  P->rows = malloc((nc + 1) * sizeof(int));
  double *G = calloc((size_t)n * n, sizeof(double)), *w = malloc(n * sizeof(double));
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  for (int i = 0; i < n; i++) {
    if (sparse) {
      G[i + (size_t)i * n] = 1.0;
      G[i + (size_t)((i + 1) % n) * n] = gsl_rng_uniform(rng) - 0.5;
      if (sparse == 1) G[i + (size_t)((i + 7) % n) * n] = gsl_rng_uniform(rng) - 0.5;
      if (sparse == 2) /* 5 more: the offsets 0, 1, 4, 10, 18, 23, 25 (a Golomb ruler) */
        for (int t = 2; t < 7; t++)
          G[i + (size_t)((i + golomb7[t]) % n) * n] = gsl_rng_uniform(rng) - 0.5;
    } else {
      for (int j = 0; j < n; j++) G[i + (size_t)j * n] = (2 * gsl_rng_uniform(rng) - 1) / sqrt(n);
    }
  }
  plant_gram(n, G, sparse, P->A);
  /* layout: box row, cone, box row, cone, ... then the remaining cones/boxes */
  int r = 0, kc = 0, kb = 0;
  while (r < n) {
    if (kb < nbox && (kb <= kc || kc == nc)) {
      int t = kb % 3;
      P->lo[r] = t == 0 ? -INFINITY : (t == 1 ? 0 : -0.5);
      P->hi[r] = t == 0 ? INFINITY : (t == 1 ? INFINITY : 0.5);
      double u = gsl_rng_uniform(rng);
      if (t == 0) {
        P->xs[r] = 2 * u - 1;
        w[r] = 0;
      } else if (t == 1) {
        if (kb % 2) {
          P->xs[r] = 0;
          w[r] = 0.1 + u;
        } else {
          P->xs[r] = 0.1 + u;
          w[r] = 0;
        }
      } else {
        int s = kb % 4;
        if (s == 0) {
          P->xs[r] = -0.5;
          w[r] = 0.1 + u;
        } else if (s == 1) {
          P->xs[r] = 0.5;
          w[r] = -0.1 - u;
        } else {
          P->xs[r] = u - 0.5;
          w[r] = 0;
        }
      }
      r++;
      kb++;
      continue;
    }
    P->rows[kc] = r;
    P->cmu[kc] = mu;
    P->lo[r] = P->lo[r + 1] = P->lo[r + 2] = -INFINITY;
    P->hi[r] = P->hi[r + 1] = P->hi[r + 2] = INFINITY;
    double ang = 6.283185307179586 * gsl_rng_uniform(rng), d1 = cos(ang), d2 = sin(ang);
    double u = gsl_rng_uniform(rng), v = gsl_rng_uniform(rng);
    double *x = P->xs + r, *ww = w + r;
    switch (kc % 3) {
    case 0: /* take-off: x = 0, mu |w_t| < w_n */
      x[0] = x[1] = x[2] = 0;
      ww[0] = 0.2 + u;
      ww[1] = 0.8 * v * ww[0] / fmax(mu, 1e-300) * d1;
      ww[2] = 0.8 * v * ww[0] / fmax(mu, 1e-300) * d2;
      if (mu == 0) ww[1] = ww[2] = v;
      break;
    case 1: /* sticking: x inside K, w = 0 */
      x[0] = 0.5 + u;
      x[1] = 0.8 * v * mu * x[0] * d1;
      x[2] = 0.8 * v * mu * x[0] * d2;
      ww[0] = ww[1] = ww[2] = 0;
      break;
    default: /* sliding: x = r (1, mu d), w on the orthogonal boundary ray */
      x[0] = 0.5 + u;
      x[1] = mu * x[0] * d1;
      x[2] = mu * x[0] * d2;
      ww[0] = law == SLV_CONE_ASSOCIATED ? (0.2 + v) * mu : 0;
      ww[1] = -(0.2 + v) * d1;
      ww[2] = -(0.2 + v) * d2;
      if (mu == 0) ww[1] = ww[2] = 0.3;
    }
    r += 3;
    kc++;
  }
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += P->A[i + (size_t)j * n] * P->xs[j];
    P->b[i] = w[i] - s;
  }
  /* CSR copy */
  P->Ap = malloc((size_t)(n > 0 ? n + 1 : 1) * sizeof(int));
  int nnz = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) nnz += P->A[i + (size_t)j * n] != 0;
  P->Aj = malloc((size_t)(nnz + 1) * sizeof(int));
  P->Ax = malloc((size_t)(nnz + 1) * sizeof(double));
  tst_dense_to_csr(n, P->A, P->Ap, P->Aj, P->Ax);
  free(G);
  free(w);
  gsl_rng_free(rng);
}

io_instance *tst_cone_read_fc3d(const char *name) {
  char path[4096], err[512];
  tst_shared_path("datasets/siconos/fc3d/", path, sizeof path);
  strncat(path, name, sizeof path - strlen(path) - 1);
  io_instance *in = NULL;
  if (io_read(path, IO_FMT_AUTO, &in, err, sizeof err) != SLV_CONVERGED) {
    fprintf(stderr, "%s: %s\n", name, err);
    CU_FAIL("FC3D file not read");
    return NULL;
  }
  return in;
}

double *tst_cone_dense_of(const slv_problem *p) {
  int n = p->n;
  double *A = calloc((size_t)n * n + 1, sizeof *A);
  for (int i = 0; i < n; i++) {
    if (p->storage == SLV_CSR) {
      for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) A[i + (size_t)p->Aj[k] * n] = p->Ax[k];
    } else {
      for (int j = 0; j < n; j++) A[i + (size_t)j * n] = p->A[i + (size_t)j * p->lda];
    }
  }
  return A;
}

double tst_cone_problem_natres(const slv_problem *p, const double *x) {
  double *A = tst_cone_dense_of(p);
  double r = tst_cone_natres(p->n, A, p->b, p->lo, p->hi, p->ncones, p->cone_rows, p->cone_mu,
                             p->cone_law == SLV_CONE_COULOMB, x);
  free(A);
  return r;
}

double tst_cone_problem_natres2(const slv_problem *p, const double *x) {
  double *A = tst_cone_dense_of(p), ss, bb = 0;
  natres_norms(p->n, A, p->b, p->lo, p->hi, p->ncones, p->cone_rows, p->cone_mu,
               p->cone_law == SLV_CONE_COULOMB, x, &ss);
  for (int i = 0; i < p->n; i++) bb += p->b[i] * p->b[i];
  free(A);
  return sqrt(ss) / fmax(1.0, sqrt(bb));
}

slv_problem tst_cone_case_view(const tst_cone_case *P, slv_cone_law law, int csr) {
  slv_problem p = slv_problem_empty();
  p.n = P->n;
  p.b = P->b;
  p.lo = P->lo;
  p.hi = P->hi;
  p.ncones = P->nc;
  p.cone_rows = P->rows;
  p.cone_mu = P->cmu;
  p.cone_law = law;
  if (csr) {
    p.storage = SLV_CSR;
    p.Ap = P->Ap;
    p.Aj = P->Aj;
    p.Ax = P->Ax;
  } else {
    p.A = P->A;
    p.lda = P->n;
  }
  return p;
}

/* tst_cone.h: the planted problem and its rows scaled over four decades. */
void tst_cone_row_scaling(const char *solver) {
  enum { NC = 12, NB = 6, N = 3 * NC + NB };
  double *A = malloc(sizeof(double) * N * N), *As = malloc(sizeof(double) * N * N);
  double b[N], bs[N], lo[N], hi[N], los[N], his[N], xs[N], x[N], sc[N], mu[NC];
  int rows[NC];
  tst_cone_planted(NC, NB, 0.2, 77, 0, 0, A, b, lo, hi, rows, mu, xs);
  for (int i = 0; i < N; i++) sc[i] = 0;
  for (int c = 0; c < NC; c++)
    for (int r = 0; r < 3; r++) sc[rows[c] + r] = 0.7 * pow(80 / 0.7, (double)c / (NC - 1));
  for (int i = 0, k = 0; i < N; i++)
    if (sc[i] == 0) sc[i] = 0.7 * pow(80 / 0.7, (double)(NB - 1 - k++) / (NB - 1));
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) As[i + (size_t)N * j] = sc[i] * A[i + (size_t)N * j] * sc[j];
  for (int i = 0; i < N; i++) {
    bs[i] = sc[i] * b[i];
    los[i] = lo[i] / sc[i];
    his[i] = hi[i] / sc[i];
  }
  int iters[2] = { 0, 0 };
  for (int k = 0; k < 2; k++) {
    slv_problem p = slv_problem_empty();
    p.n = N;
    p.A = k ? As : A;
    p.lda = N;
    p.b = k ? bs : b;
    p.lo = k ? los : lo;
    p.hi = k ? his : hi;
    p.ncones = NC;
    p.cone_rows = rows;
    p.cone_mu = mu;
    p.cone_law = SLV_CONE_ASSOCIATED;
    slv_options o = slv_options_default();
    o.tol = 1e-10;
    o.max_iter = 2000;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(solver), N, &o, &ws), SLV_OK);
    slv_result res;
    memset(x, 0, sizeof x);
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_CONVERGED);
    iters[k] = res.iterations;
    for (int i = 0; k && i < N; i++) x[i] *= sc[i]; /* back to the unscaled x */
    TST_VEC_CLOSE(x, xs, N, 1e-6, 1e-9);
    slv_workspace_free(ws);
  }
  printf("\n  %s iterations: unscaled %d, rows scaled over four decades %d", solver, iters[0],
         iters[1]);
  CU_ASSERT(iters[1] <= 2 * iters[0] + 20);
  free(A);
  free(As);
}
