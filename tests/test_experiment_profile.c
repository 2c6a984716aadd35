/* test_experiment_profile.c -- the pure computations of `lcplab experiment`
 * (libexperiment/stats.c): Dolan-More performance profiles and the
 * least-squares line of the scaling slopes, against hand-worked examples.
 *
 * Profile example (3 problems, 3 solvers; times in s, F = failure):
 *
 *            A      B      C
 *     p1     1      2      4        best 1:  r = 1, 2, 4
 *     p2     3      F      1        best 1:  r = 3, inf, 1
 *     p3     F      F      F        nobody:  r = inf, inf, inf
 *
 *   rho_A(1) = 1/3 (p1), rho_A(3) = 2/3 (p1, p2), rho_A(inf-) = 2/3
 *   rho_B(1) = 0, rho_B(2) = 1/3, never more (fails p2, p3)
 *   rho_C(1) = 1/3 (p2), rho_C(3.99) = 1/3, rho_C(4) = 2/3
 *   breakpoints: A {1, 3}, B {2}, C {1, 4}.
 * A time of 0 or NaN counts as a failure, like +inf.
 *
 * Line example: y = 2 + 3 x exactly at x = 0, 1, 2, 3 gives a = 2, b = 3,
 * r2 = 1.  Noisy example: x = 0, 1, 2, y = 0, 2, 1: xbar = 1, ybar = 1,
 * Sxy = (-1)(-1) + 0 + (1)(0) = 1, Sxx = 2, so b = 1/2, a = 1/2; residuals
 * -1/2, 1, -1/2 give SSres = 3/2 against SStot = 2: r2 = 1/4.
 *
 * Identical algorithms (B ran A's algorithm on p1 and p2): times
 *            A      B      C
 *     p1     1      0.9    2        B left out of the min: best 1 (A);
 *                                   r = 1, r_A = 1, 2
 *     p2     F      3      1.5      A failed: B is a run of its own:
 *                                   best 1.5; r = inf, 2, 1
 * Winners with tie 0.05 on r = p1 (1, 1.03, 2), p2 (1, 1.2, inf),
 * p3 (inf, inf, inf): p1 A and B tied, p2 A alone, p3 nobody: wins A 1,
 * ties A 1 and B 1; with B an alias on p1, A wins p1 alone: wins A 2.
 *
 * Quantiles (type 7): x = 1 2 3 4: h = 3 q, median 2.5, q1 = 1 + 0.75 =
 * 1.75, q3 = 3 + 0.25 = 3.25.  x = 1..5: 3, 2, 4.
 *
 * Leaders of a winners table, solvers A B C D (D external, C another's
 * algorithm): wins 2 0 5 1, ties 1 1 3 0, solved 4 4 6 5: fastest A (C is
 * not counted; A 2 wins beats D 1), ties 1 + 1 + 0 = 2, most solved 6 (C),
 * best built-in C (6), best external D (5).  Wins 1 1 and solved 3 4: B
 * (the tie of wins goes to the most solved); solved 4 4: A (the first).
 *
 * Coverage against the virtual best (F failure, R refused), solvers A B C:
 *            A      B      C
 *     p1     1      F      2        B misses a problem A and C solve
 *     p2     F      R      3        B refused it: not in its accepted
 *     p3     F      F      5        C alone (and on p2)
 *     p4     F      F      F        nobody: in no denominator
 *     p5     4      1      F
 *   A: others solve p1 p2 p3 p5 (4), accepted 4, solved 2 (p1 p5), alone 0;
 *   B: others solve p1 p2 p3 p5 (4), accepted 3 (p2 refused), solved 1
 *      (p5), alone 0;
 *   C: others solve p1 p5 (2), accepted 2, solved 1 (p1), alone 2 (p2,
 *      p3).
 *
 * Per-process repeats ({repeat}) with min_runs 3, min_time 0.2, max_time 3:
 * t1 = 1e-5 s: ceil(0.2 / 1e-5) = 20000 solves (under 3 / 1e-5 = 300000),
 * capped at 10001 by a cap of 10001; t1 = 0.1 s: max(3, 2) = 3; t1 = 2 s:
 * floor(3 / 2) = 1 (a slow solve: fewer); t1 = 0 or NaN: min_runs.
 *
 * Refusals outside the denominators (issue 52: pgs plateaued at 10/13 =
 * 77 % purely from 3 refusals): 13 LCPs, pgs solves p1..p10 in 1 s and
 * refuses p11..p13, lemke solves all 13 in 2 s.  Over all problems
 * rho_pgs(inf-) = 10/13; over the 10 pgs accepts rho_pgs(1) = 10/10 = 1,
 * rho_lemke(2) = 13/13, rho_lemke(1) = 3/13 (the problems pgs refused).
 *
 * Identical algorithms from the traces: keys on p1 A "c 7 0 ab", B "c 7 0 ab",
 * C "c 7 0 cd"; on p2 A "c 3 0 x", B "c 4 0 x", C "" (refused), on p3 A "",
 * B "m 9 0 y", C "m 9 0 y": B is A's algorithm on p1 (alias 0), C is B's on
 * p3 (alias 1); the rest -1.  A method alias already set is kept.
 *
 * Noise: spreads (q1, median, q3, runs) (0.9, 1, 1.1, 5) = 0.2, (1.8, 2,
 * 2.6, 5) = 0.4, (1, 1, 1, 5) = 0, (1, 1, 2, 1) = NaN (one run), (0, 0, 0, 5)
 * = NaN: median of 0, 0.2, 0.4 = 0.2.  Tie: set 0.05 wins over the noise;
 * unset (-1): the noise 0.2; unset without noise: the fallback.
 *
 * The solved column's verdict (exp_judge: the library's slv_residuals_met,
 * res_scaled <= tol; docs/convergence.md), not res_rel <= tol: at tol 1e-6
 * res_rel 1e-9 with res_scaled 1e-3 is not solved (the BoxesStack1 case of
 * issue 52), res_rel 1e-3 with res_scaled 1e-9 is.
 *
 * Slope interval: x = 0 1 2 3, y = 0 2 1 3: Sxx = 5, Sxy = 4, b = 0.8,
 * a = 0.3, residuals -0.3 0.9 -0.9 0.3, SSres = 1.8, se(b) = sqrt(1.8 / 2 / 5)
 * = 0.4242641, t_{0.975, 2} = 4.3026527: b in 0.8 -+ 1.8254610 = [-1.0254610, 2.6254610].
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "exp_tables.h"
#include "exp_task.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_ratios(void) {
  const double F = INFINITY;
  double t[9] = { 1, 2, 4, 3, F, 1, F, F, F };
  double r[9];
  exp_profile_ratios(3, 3, t, r);
  double want[9] = { 1, 2, 4, 3, F, 1, F, F, F };
  for (int k = 0; k < 9; k++) {
    if (isinf(want[k])) {
      CU_ASSERT(isinf(r[k]) && r[k] > 0);
    } else {
      TST_CLOSE(r[k], want[k], 0, 1e-15);
    }
  }
}

static void test_rho(void) {
  const double F = INFINITY;
  double t[9] = { 1, 2, 4, 3, F, 1, F, F, F };
  double r[9];
  exp_profile_ratios(3, 3, t, r);
  TST_CLOSE(exp_profile_rho(3, 3, r, 0, 1.0), 1.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 0, 2.99), 1.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 0, 3.0), 2.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 0, 1e300), 2.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 1, 1.0), 0.0, 0, 0);
  TST_CLOSE(exp_profile_rho(3, 3, r, 1, 2.0), 1.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 1, 1e300), 1.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 2, 1.0), 1.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 2, 3.99), 1.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(3, 3, r, 2, 4.0), 2.0 / 3, 0, 1e-15);
  TST_CLOSE(exp_profile_rho(0, 3, r, 0, 1.0), 0.0, 0, 0);
}

static void test_breaks(void) {
  const double F = INFINITY;
  double t[9] = { 1, 2, 4, 3, F, 1, F, F, F };
  double r[9], taus[3];
  exp_profile_ratios(3, 3, t, r);
  CU_ASSERT_EQUAL_FATAL(exp_profile_breaks(3, 3, r, 0, taus), 2);
  TST_CLOSE(taus[0], 1.0, 0, 0);
  TST_CLOSE(taus[1], 3.0, 0, 0);
  CU_ASSERT_EQUAL_FATAL(exp_profile_breaks(3, 3, r, 1, taus), 1);
  TST_CLOSE(taus[0], 2.0, 0, 0);
  CU_ASSERT_EQUAL_FATAL(exp_profile_breaks(3, 3, r, 2, taus), 2);
  TST_CLOSE(taus[0], 1.0, 0, 0);
  TST_CLOSE(taus[1], 4.0, 0, 0);
}

static void test_failures_and_ties(void) {
  /* 0 and NaN are failures; a tie gives both solvers r = 1; duplicate
   * ratios give one breakpoint: p1 (2, 2), p2 (NaN, 5), p3 (0, 10), p4 (4, 8)
   * -> A: 1, inf, inf, 1; B: 1, 1, 1, 2. */
  double t[8] = { 2, 2, NAN, 5, 0, 10, 4, 8 };
  double r[8], taus[4];
  exp_profile_ratios(4, 2, t, r);
  TST_CLOSE(r[0], 1.0, 0, 0);
  TST_CLOSE(r[1], 1.0, 0, 0);
  CU_ASSERT(isinf(r[2]));
  TST_CLOSE(r[3], 1.0, 0, 0);
  CU_ASSERT(isinf(r[4]));
  TST_CLOSE(r[5], 1.0, 0, 0);
  TST_CLOSE(r[7], 2.0, 0, 1e-15);
  CU_ASSERT_EQUAL(exp_profile_breaks(4, 2, r, 0, taus), 1);
  CU_ASSERT_EQUAL(exp_profile_breaks(4, 2, r, 1, taus), 2);
  TST_CLOSE(exp_profile_rho(4, 2, r, 0, 1.0), 0.5, 0, 0);
  TST_CLOSE(exp_profile_rho(4, 2, r, 1, 1.0), 0.75, 0, 0);
  TST_CLOSE(exp_profile_rho(4, 2, r, 1, 2.0), 1.0, 0, 0);
}

static void test_fit(void) {
  double x[4] = { 0, 1, 2, 3 }, y[4], a, b, r2;
  for (int i = 0; i < 4; i++) y[i] = 2 + 3 * x[i];
  CU_ASSERT_EQUAL_FATAL(exp_fit_line(x, y, 4, &a, &b, &r2), 0);
  TST_CLOSE(a, 2.0, 1e-14, 0);
  TST_CLOSE(b, 3.0, 1e-14, 0);
  TST_CLOSE(r2, 1.0, 1e-14, 0);
  double x2[3] = { 0, 1, 2 }, y2[3] = { 0, 2, 1 };
  CU_ASSERT_EQUAL_FATAL(exp_fit_line(x2, y2, 3, &a, &b, &r2), 0);
  TST_CLOSE(a, 0.5, 1e-15, 0);
  TST_CLOSE(b, 0.5, 1e-15, 0);
  TST_CLOSE(r2, 0.25, 1e-15, 0);
  /* a power law t = c n^3 through logs: slope 3 */
  double ln[3], lt[3];
  for (int i = 0; i < 3; i++) {
    double n = 100.0 * (1 << i);
    ln[i] = log(n);
    lt[i] = log(1e-9 * n * n * n);
  }
  CU_ASSERT_EQUAL_FATAL(exp_fit_line(ln, lt, 3, &a, &b, &r2), 0);
  TST_CLOSE(b, 3.0, 1e-12, 0);
  /* degenerate: one point, or all x equal */
  CU_ASSERT_EQUAL(exp_fit_line(x, y, 1, &a, &b, &r2), -1);
  double xs[3] = { 1, 1, 1 };
  CU_ASSERT_EQUAL(exp_fit_line(xs, y2, 3, &a, &b, &r2), -1);
}

static void test_alias(void) {
  const double F = INFINITY;
  double t[6] = { 1, 0.9, 2, F, 3, 1.5 };
  int alias[6] = { -1, 0, -1, -1, 0, -1 };
  double r[6];
  exp_profile_ratios_alias(2, 3, t, alias, r);
  TST_CLOSE(r[0], 1.0, 0, 0);
  TST_CLOSE(r[1], 1.0, 0, 0);
  TST_CLOSE(r[2], 2.0, 0, 1e-15);
  CU_ASSERT(isinf(r[3]));
  TST_CLOSE(r[4], 2.0, 0, 1e-15);
  TST_CLOSE(r[5], 1.0, 0, 0);
  /* without aliases B would be the fastest on p1 */
  exp_profile_ratios(2, 3, t, r);
  TST_CLOSE(r[1], 1.0, 0, 0);
  TST_CLOSE(r[0], 1.0 / 0.9, 0, 1e-15);
}

static void test_refusals(void) {
  double t[26], r[26];
  unsigned char refused[26] = { 0 };
  for (int p = 0; p < 13; p++) {
    t[2 * p] = p < 10 ? 1.0 : INFINITY;
    t[2 * p + 1] = 2.0;
    refused[2 * p] = p >= 10;
  }
  exp_profile_ratios(13, 2, t, r);
  TST_CLOSE(exp_profile_rho(13, 2, r, 0, 1e300), 10.0 / 13.0, 0, 1e-15);
  TST_CLOSE(exp_profile_rho_of(13, 2, r, refused, 0, 1.0), 1.0, 0, 0);
  TST_CLOSE(exp_profile_rho_of(13, 2, r, refused, 1, 1.0), 3.0 / 13.0, 0, 1e-15);
  TST_CLOSE(exp_profile_rho_of(13, 2, r, refused, 1, 2.0), 1.0, 0, 0);
  CU_ASSERT_EQUAL(exp_profile_accepted(13, 2, refused, 0), 10);
  CU_ASSERT_EQUAL(exp_profile_accepted(13, 2, refused, 1), 13);
  CU_ASSERT_EQUAL(exp_profile_accepted(13, 2, NULL, 0), 13);
  unsigned char all[2] = { 1, 0 };
  double r1[2] = { INFINITY, 1.0 };
  TST_CLOSE(exp_profile_rho_of(1, 2, r1, all, 0, 1e300), 0.0, 0, 0);
}

static void test_same_traces(void) {
  const char *key[9] = { "c 7 0 ab", "c 7 0 ab", "c 7 0 cd", "c 3 0 x", "c 4 0 x",
                         "",         NULL,       "m 9 0 y",  "m 9 0 y" };
  int alias[9];
  for (int k = 0; k < 9; k++) alias[k] = -1;
  exp_profile_same(3, 3, key, alias);
  int want[9] = { -1, 0, -1, -1, -1, -1, -1, -1, 1 };
  for (int k = 0; k < 9; k++) CU_ASSERT_EQUAL(alias[k], want[k]);
  /* a method alias is kept; an alias of an alias points to the algorithm */
  const char *k3[3] = { "c 1 0 z", "c 1 0 z", "c 1 0 z" };
  int a3[3] = { -1, -1, -1 };
  exp_profile_same(1, 3, k3, a3);
  CU_ASSERT(a3[0] == -1 && a3[1] == 0 && a3[2] == 0);
  int m3[3] = { -1, -1, 1 };
  exp_profile_same(1, 3, k3, m3);
  CU_ASSERT(m3[1] == 0 && m3[2] == 1);
  /* auto (0) listed before the solver it ran (1, its res.method), the same
   * trace: 1 is the algorithm and stays counted (it was made an alias of
   * itself, and neither was counted among the fastest); 2, the same trace
   * again, is an alias of 1 */
  int m4[3] = { 1, -1, -1 };
  exp_profile_same(1, 3, k3, m4);
  CU_ASSERT(m4[0] == 1 && m4[1] == -1 && m4[2] == 1);
  double r4[3] = { 1.0, 1.0, 40.0 };
  int wins[3], ties[3];
  exp_profile_winners(1, 3, r4, m4, 0.05, wins, ties);
  CU_ASSERT(wins[0] == 0 && wins[1] == 1 && wins[2] == 0 && ties[1] == 0);
}

static void test_noise(void) {
  double rel[5] = { exp_rel_spread(0.9, 1, 1.1, 5), exp_rel_spread(1.8, 2, 2.6, 5),
                    exp_rel_spread(1, 1, 1, 5), exp_rel_spread(1, 1, 2, 1),
                    exp_rel_spread(0, 0, 0, 5) };
  TST_CLOSE(rel[0], 0.2, 0, 1e-15);
  TST_CLOSE(rel[1], 0.4, 0, 1e-15);
  CU_ASSERT(isnan(rel[3]) && isnan(rel[4]));
  TST_CLOSE(exp_noise_median(rel, 5), 0.2, 0, 1e-15);
  double none[2] = { NAN, NAN };
  CU_ASSERT(isnan(exp_noise_median(none, 2)));
  TST_CLOSE(exp_tie_of(0.05, 0.2, 0.05), 0.05, 0, 0);
  TST_CLOSE(exp_tie_of(-1, 0.2, 0.05), 0.2, 0, 0);
  TST_CLOSE(exp_tie_of(-1, NAN, 0.05), 0.05, 0, 0);
  TST_CLOSE(exp_tie_of(0, 0.2, 0.05), 0.0, 0, 0);
}

static void test_judge(void) {
  slv_residuals r = { 0 };
  r.res_global = NAN;
  r.res_rel = r.res_rel_2 = 1e-9;
  r.res_scaled = 1e-3;
  CU_ASSERT_EQUAL(exp_judge(NULL, &r, 1e-6), 0);
  r.res_rel = r.res_rel_2 = 1e-3;
  r.res_scaled = 1e-9;
  CU_ASSERT_EQUAL(exp_judge(NULL, &r, 1e-6), 1);
  r.res_scaled = NAN;
  CU_ASSERT_EQUAL(exp_judge(NULL, &r, 1e-6), 0);
}

static void test_winners(void) {
  const double F = INFINITY;
  double r[9] = { 1, 1.03, 2, 1, 1.2, F, F, F, F };
  int wins[3], ties[3];
  exp_profile_winners(3, 3, r, NULL, 0.05, wins, ties);
  CU_ASSERT_EQUAL(wins[0], 1);
  CU_ASSERT_EQUAL(wins[1], 0);
  CU_ASSERT_EQUAL(wins[2], 0);
  CU_ASSERT_EQUAL(ties[0], 1);
  CU_ASSERT_EQUAL(ties[1], 1);
  CU_ASSERT_EQUAL(ties[2], 0);
  /* no tie tolerance: 1.03 is not fastest */
  exp_profile_winners(3, 3, r, NULL, 0.0, wins, ties);
  CU_ASSERT_EQUAL(wins[0], 2);
  CU_ASSERT_EQUAL(ties[0], 0);
  int alias[9] = { -1, 0, -1, -1, -1, -1, -1, -1, -1 };
  exp_profile_winners(3, 3, r, alias, 0.05, wins, ties);
  CU_ASSERT_EQUAL(wins[0], 2);
  CU_ASSERT_EQUAL(ties[0], 0);
  CU_ASSERT_EQUAL(ties[1], 0);
}

static void test_quantiles(void) {
  double x4[4] = { 4, 1, 3, 2 }, x5[5] = { 5, 3, 1, 4, 2 };
  exp_tsum s;
  exp_time_summary(x4, 4, &s);
  TST_CLOSE(s.median, 2.5, 0, 1e-15);
  TST_CLOSE(s.q1, 1.75, 0, 1e-15);
  TST_CLOSE(s.q3, 3.25, 0, 1e-15);
  TST_CLOSE(s.min, 1.0, 0, 0);
  TST_CLOSE(s.total, 10.0, 0, 0);
  exp_time_summary(x5, 5, &s);
  TST_CLOSE(s.median, 3.0, 0, 0);
  TST_CLOSE(s.q1, 2.0, 0, 0);
  TST_CLOSE(s.q3, 4.0, 0, 0);
  double one = 7.0;
  TST_CLOSE(exp_quantile(&one, 1, 0.25), 7.0, 0, 0);
}

/* Pooled runs (issue 65, point 3): weights 1 give the ordinary median
 * (1 2 3 4: 2.5; 1..5: 3); runs {3, 3} of one name and {1, 1, 1} of
 * another: W = 5, half 2.5, sorted 1 1 1 3 3: the cumulative weight 3
 * passes 2.5 at the third run: 1.  A sample of 20 runs keeps 16 quantiles
 * (j + 1/2) / 16; of 3 runs, the runs. */
static void test_pooled(void) {
  exp_wpoint a[4] = { { 4, 1 }, { 1, 1 }, { 3, 1 }, { 2, 1 } };
  TST_CLOSE(exp_weighted_quantile(a, 4, 0.5), 2.5, 0, 1e-15);
  exp_wpoint b[5] = { { 5, 1 }, { 1, 1 }, { 3, 1 }, { 2, 1 }, { 4, 1 } };
  TST_CLOSE(exp_weighted_quantile(b, 5, 0.5), 3.0, 0, 0);
  exp_wpoint c[2] = { { 3, 2 }, { 1, 3 } }; /* two rows: medians 3 (2 runs), 1 (3 runs) */
  TST_CLOSE(exp_weighted_quantile(c, 2, 0.5), 1.0, 0, 0);
  CU_ASSERT(isnan(exp_weighted_quantile(c, 0, 0.5)));
  double t[20], u[3] = { 3, 1, 2 };
  for (int k = 0; k < 20; k++) t[k] = 20 - k;
  exp_tsum s;
  exp_time_summary(t, 20, &s);
  CU_ASSERT_EQUAL(s.nsample, EXP_TSAMPLE);
  TST_CLOSE(s.sample[0], 1.0 + 19.0 * 0.5 / 16, 0, 1e-14);
  TST_CLOSE(s.sample[15], 1.0 + 19.0 * 15.5 / 16, 0, 1e-14);
  exp_time_summary(u, 3, &s);
  CU_ASSERT_EQUAL(s.nsample, 3);
  TST_CLOSE(s.sample[0], 1.0, 0, 0);
  TST_CLOSE(s.sample[2], 3.0, 0, 0);
}

/* A profile CSV's row: problem p, solver s, time t (median of `runs`
 * runs whose sample is `sample`), x digest xd. */
static void prof_row(char *buf, size_t len, const char *p, const char *s, const char *t,
                     const char *runs, const char *xd, const char *sample) {
  size_t o = strlen(buf);
  snprintf(buf + o, len - o,
           "%s,lcp,3,%s,1e-08,converged,5,0,%s,%s,%s,1e-10,1e-10,1,LCP,9,0,1,%s,%s,%s,library,,"
           "1,1e-10,,,,%s,,%s\n",
           p, s, t, t, runs, s, t, t, xd, sample);
}

/* The profile's rho at tau = 1 of solver `name` (the first row of its
 * curve), or -1 when the curve has no such solver. */
static double rho_at_1(const char *curves, const char *name) {
  char want[64];
  snprintf(want, sizeof want, "\n1e-08,%s,1.000000e+00,", name);
  const char *l = strstr(curves, want);
  if (!l) return -1.0;
  l += strlen(want);
  l = strchr(l, ',') + 1; /* log2_tau */
  return atof(l);
}

/* Identical algorithms, one entry (issue 65, points 3 and 4).  A and B
 * have the same trace (5 iterations, x digest aa) on p1 and p2: one entry
 * "A=B" whose time on p1 is the median of A's runs {3, 3} and B's {1, 1,
 * 1} pooled: 1, faster than C (2): A=B has rho(1) = 1 (both problems),
 * C 0.  The old rule gave A and B each A's median 3 against C's 2 (tau
 * 1.5) and C rho(1) = 1/2.  D is A's algorithm on p1 only (digest aa) and
 * its own on p2 (bb): a rival of its own, whose p1 runs {0.5 x 4} pool
 * with A's there (median of 3 3 0.5 0.5 0.5 0.5 1 1 1: 1). */
static void test_same_one_entry(void) {
  char csv[8192];
  snprintf(csv, sizeof csv, "%s\n", exp_csv_header(EXP_PROFILE));
  prof_row(csv, sizeof csv, "p1", "A", "3", "2", "aa", "3 3");
  prof_row(csv, sizeof csv, "p1", "B", "1", "3", "aa", "1 1 1");
  prof_row(csv, sizeof csv, "p1", "C", "2", "1", "cc", "2");
  prof_row(csv, sizeof csv, "p2", "A", "1", "1", "ab", "1");
  prof_row(csv, sizeof csv, "p2", "B", "1", "1", "ab", "1");
  prof_row(csv, sizeof csv, "p2", "C", "4", "1", "cd", "4");
  char *out = NULL, err[256];
  CU_ASSERT_EQUAL_FATAL(exp_profile_of_csv(csv, &out, err, sizeof err), 0);
  TST_CLOSE(rho_at_1(out, "A=B"), 1.0, 0, 0);
  TST_CLOSE(rho_at_1(out, "C"), 0.0, 0, 0);
  CU_ASSERT(rho_at_1(out, "A") < 0 && rho_at_1(out, "B") < 0);
  free(out);
  /* D: A's algorithm on p1 only; on p1 the pooled time of A=B and D is 1 */
  prof_row(csv, sizeof csv, "p1", "D", "0.5", "4", "aa", "0.5 0.5 0.5 0.5");
  prof_row(csv, sizeof csv, "p2", "D", "0.5", "1", "dd", "0.5");
  CU_ASSERT_EQUAL_FATAL(exp_profile_of_csv(csv, &out, err, sizeof err), 0);
  TST_CLOSE(rho_at_1(out, "A=B"), 0.5, 0, 0); /* p1 (pooled 1 = the best), not p2 */
  TST_CLOSE(rho_at_1(out, "D"), 1.0, 0, 0);   /* p1 (the same pooled 1), p2 alone */
  free(out);
}

/* A profile row whose judge and own verdicts are given: problem p, solver
 * s, status st, time t, own verdict own ("" none); a distinct x digest. */
static void verdict_row(char *buf, size_t len, const char *p, const char *s, const char *st,
                        const char *t, const char *own) {
  size_t o = strlen(buf);
  snprintf(buf + o, len - o,
           "%s,lcp,3,%s,1e-08,%s,5,0,%s,%s,1,1e-10,1e-10,1,LCP,9,0,1,%s,%s,%s,library,,"
           "1,1e-10,,,,%s%s,%s,%s\n",
           p, s, st, t, t, s, t, t, p, s, own, t);
}

/* Field k (0: tol) of the first profile row of solver name at tau = 1. */
static double curve_field(const char *curves, const char *name, int k) {
  char want[64];
  snprintf(want, sizeof want, "\n1e-08,%s,1.000000e+00,", name);
  const char *l = strstr(curves, want);
  if (!l) return -1.0;
  for (l++; k > 0 && l; k--) l = strchr(l, ',') ? strchr(l, ',') + 1 : NULL;
  return l ? atof(l) : -1.0;
}

/* One stopping rule (issue 65, point 1; experiments/README.md, "One
 * stopping rule"): a disagreement costs only the solver that has it.
 * Times (s), three solvers, C's own verdict on p1 "unsolved" where the
 * judge accepts its answer (converged in 0.5 s):
 *            A      B      C
 *     p1     1      2      0.5 (own: 0)   C unsolved: best 1 (A); r = 1, 2, inf
 *     p2     2      1      4              best 1 (B);  r = 2, 1, 4
 * Both problems stay for everyone (problems 2): rho_A(1) = rho_B(1) = 1/2,
 * rho_C(1) = 0 and C's share 1/2 (p2 only).  The old rule dropped p1 for
 * every solver: 1 problem, rho_A(1) = 0, rho_B(1) = 1. */
static void test_disagreement_own(void) {
  char csv[8192];
  snprintf(csv, sizeof csv, "%s\n", exp_csv_header(EXP_PROFILE));
  verdict_row(csv, sizeof csv, "p1", "A", "converged", "1", "");
  verdict_row(csv, sizeof csv, "p1", "B", "converged", "2", "");
  verdict_row(csv, sizeof csv, "p1", "C", "converged", "0.5", "0");
  verdict_row(csv, sizeof csv, "p2", "A", "converged", "2", "");
  verdict_row(csv, sizeof csv, "p2", "B", "converged", "1", "");
  verdict_row(csv, sizeof csv, "p2", "C", "converged", "4", "1");
  char *out = NULL, err[256];
  CU_ASSERT_EQUAL_FATAL(exp_profile_of_csv(csv, &out, err, sizeof err), 0);
  const char *sv[3] = { "A", "B", "C" };
  for (int k = 0; k < 3; k++) TST_CLOSE(curve_field(out, sv[k], 11), 2.0, 0, 0); /* problems */
  TST_CLOSE(curve_field(out, "A", 4), 0.5, 0, 0);
  TST_CLOSE(curve_field(out, "B", 4), 0.5, 0, 0);
  TST_CLOSE(curve_field(out, "C", 4), 0.0, 0, 0);
  TST_CLOSE(curve_field(out, "C", 5), 0.5, 0, 0); /* share: p2 */
  free(out);
}

/* A profile row of problem p, solver s, status st, time t, own verdict
 * own, iterations it and x's digest xd (the trace of exp_tab_run_key). */
static void trace_row(char *buf, size_t len, const char *p, const char *s, const char *st,
                      const char *t, const char *own, const char *it, const char *xd) {
  size_t o = strlen(buf);
  snprintf(buf + o, len - o,
           "%s,lcp,3,%s,1e-08,%s,%s,0,%s,%s,1,1e-10,1e-10,1,LCP,9,0,1,%s,%s,%s,library,,"
           "1,1e-10,,,,%s,%s,%s\n",
           p, s, st, it, t, t, s, t, t, xd, own, t);
}

/* The groups of one trace (NAME_same.csv; issue 81 item 4), the key the
 * profiles' identical algorithms use.  On p1, A and B agree on iterations
 * and x but B stopped at max_iter (another status): no group; C and D
 * converged with A's trace, D's own verdict says unsolved (not the judge's:
 * no trace): the group is A=C, times 1 and 3 (ratio 3).  On p2, A and B
 * did no work (0 iterations, 0 pivots: every solver returns the start): no
 * group; C and D agree (times 2 and 5: ratio 2.5). */
static void test_same_groups(void) {
  char csv[8192], *out = NULL;
  size_t len = 0;
  snprintf(csv, sizeof csv, "%s\n", exp_csv_header(EXP_PROFILE));
  trace_row(csv, sizeof csv, "p1", "A", "converged", "1", "", "7", "ab12");
  trace_row(csv, sizeof csv, "p1", "B", "max_iter", "2", "", "7", "ab12");
  trace_row(csv, sizeof csv, "p1", "C", "converged", "3", "", "7", "ab12");
  trace_row(csv, sizeof csv, "p1", "D", "converged", "4", "0", "7", "ab12");
  trace_row(csv, sizeof csv, "p2", "A", "converged", "1", "", "0", "cd34");
  trace_row(csv, sizeof csv, "p2", "B", "converged", "1", "", "0", "cd34");
  trace_row(csv, sizeof csv, "p2", "C", "converged", "2", "", "4", "ef56");
  trace_row(csv, sizeof csv, "p2", "D", "converged", "5", "1", "4", "ef56");
  exp_row rows[16];
  int n = 0;
  char *save = NULL, *l = strtok_r(strchr(csv, '\n') + 1, "\n", &save);
  for (; l && n < 16; l = strtok_r(NULL, "\n", &save), n++) {
    rows[n].text = NULL;
    rows[n].nf = exp_csv_split(l, rows[n].f, (int)(sizeof rows[n].f / sizeof rows[n].f[0]));
  }
  FILE *f = open_memstream(&out, &len);
  CU_ASSERT_EQUAL_FATAL(exp_tab_same_groups_write(f, EXP_PROFILE, rows, n), 0);
  fclose(f);
  const char *want = "tol,class,problem,status,iterations,pivots,trace,runs,solvers,timed,"
                     "time_ratio\n"
                     "1e-08,LCP,p1,converged,7,0,converged 7 0 xab12,2,A=C,2,3\n"
                     "1e-08,LCP,p2,converged,4,0,converged 4 0 xef56,2,C=D,2,2.5\n";
  CU_ASSERT_STRING_EQUAL(out, want);
  if (strcmp(out, want) != 0) fprintf(stderr, "NAME_same.csv:\n%s", out);
  free(out);
}

/* Noise between passes (issue 65, point 2): |log ratios| 0, log 1.05,
 * log 1.1, log 1.2, log 1.3; at q = 0.5 the middle one: tie 0.1; at q =
 * 0.9, h = 3.6: exp(log 1.2 + 0.6 (log 1.3 - log 1.2)) - 1.  Win
 * intervals: two problems where A is twice as fast: every resample gives
 * A 2 wins ([2, 2]), B [0, 0]; when B is the faster on p2, a resample
 * holds p1 twice, p2 twice or one each: A's wins 0 to 2 ([0, 2]).  Times
 * perturbed by pass-to-pass ratios of e^10 mix even the first case. */
static void test_pass_noise(void) {
  double dl[5] = { log(1.1), -log(1.2), log(1.05), 0.0, -log(1.3) }, d2[5];
  memcpy(d2, dl, sizeof dl);
  TST_CLOSE(exp_tie_of_logs(dl, 5, 0.5), 0.1, 0, 1e-12);
  TST_CLOSE(exp_tie_of_logs(d2, 5, 0.9), exp(log(1.2) + 0.6 * (log(1.3) - log(1.2))) - 1, 0, 1e-12);
  CU_ASSERT(isnan(exp_tie_of_logs(dl, 0, 0.9)));
  enum { B = 199 };
  double tw[4], rw[4], q[B], t1[4] = { 1, 2, 1, 2 }, t2[4] = { 1, 2, 2, 1 };
  int aw[4], wins[2 * B], tmp[4], lo[2], hi[2];
  exp_boot_work w = { tw, rw, q, aw, wins, tmp };
  exp_profile_win_interval(2, 2, t1, NULL, 0.05, NULL, 0, B, 7, &w, lo, hi);
  CU_ASSERT(lo[0] == 2 && hi[0] == 2 && lo[1] == 0 && hi[1] == 0);
  exp_profile_win_interval(2, 2, t2, NULL, 0.05, NULL, 0, B, 7, &w, lo, hi);
  CU_ASSERT(lo[0] == 0 && hi[0] == 2 && lo[1] == 0 && hi[1] == 2);
  double big[1] = { 10.0 };
  exp_profile_win_interval(2, 2, t1, NULL, 0.05, big, 1, B, 7, &w, lo, hi);
  CU_ASSERT(lo[0] == 0 && hi[0] == 2 && lo[1] == 0 && hi[1] == 2);
}

static void test_repeat_rule(void) {
  CU_ASSERT_EQUAL(exp_repeat_done(5, 0.1, 5, 0.1, 2.0), 1);
  CU_ASSERT_EQUAL(exp_repeat_done(4, 1.0, 5, 0.1, 2.0), 0);
  CU_ASSERT_EQUAL(exp_repeat_done(5, 0.05, 5, 0.1, 2.0), 0);
  CU_ASSERT_EQUAL(exp_repeat_done(1, 2.5, 5, 0.1, 2.0), 1);
  CU_ASSERT_EQUAL(exp_repeat_done(0, 0.0, 5, 0.1, 2.0), 0);
}

/* The median's 95 % interval, by hand: 10 runs 10, 9, ..., 1 give
 * j = floor((10 - 1.96 sqrt 10) / 2) = 1, l = ceil(1 + (10 + 6.198) / 2) = 10,
 * median 5.5: (10 - 1) / 11; 100 runs 100, ..., 1: j = 40, l = 61, median
 * 50.5: 21 / 101; five runs: NaN; the runs themselves left in their order. */
static void test_median_precision(void) {
  double t[100], work[100];
  for (int i = 0; i < 100; i++) t[i] = 100 - i;
  CU_ASSERT_DOUBLE_EQUAL(exp_median_precision(t + 90, 10, work), 9.0 / 11.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(exp_median_precision(t, 100, work), 21.0 / 101.0, 1e-12);
  CU_ASSERT(isnan(exp_median_precision(t, 5, work)));
  CU_ASSERT_EQUAL(t[0], 100.0);
  CU_ASSERT_EQUAL(t[99], 1.0);
  double same[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
  CU_ASSERT_DOUBLE_EQUAL(exp_median_precision(same, 8, work), 0.0, 0.0);
}

static void test_leaders(void) {
  int wins[4] = { 2, 0, 5, 1 }, ties[4] = { 1, 1, 3, 0 }, solved[4] = { 4, 4, 6, 5 };
  int counted[4] = { 1, 1, 0, 1 }, external[4] = { 0, 0, 0, 1 };
  exp_leaders l;
  exp_profile_leaders(4, wins, ties, solved, counted, external, &l);
  CU_ASSERT_EQUAL(l.fastest, 0);
  CU_ASSERT_EQUAL(l.ties, 2);
  CU_ASSERT_EQUAL(l.most_solved, 6);
  CU_ASSERT_EQUAL(l.best_builtin, 2);
  CU_ASSERT_EQUAL(l.best_external, 3);
  int w2[2] = { 1, 1 }, t2[2] = { 0, 0 }, s2[2] = { 3, 4 }, c2[2] = { 1, 1 }, e2[2] = { 0, 0 };
  exp_profile_leaders(2, w2, t2, s2, c2, e2, &l);
  CU_ASSERT_EQUAL(l.fastest, 1);
  CU_ASSERT_EQUAL(l.best_external, -1);
  s2[0] = 4;
  exp_profile_leaders(2, w2, t2, s2, c2, e2, &l);
  CU_ASSERT_EQUAL(l.fastest, 0);
  CU_ASSERT_EQUAL(l.best_builtin, 0);
}

static void test_virtual_best(void) {
  const double F = INFINITY;
  double t[15] = { 1, F, 2, F, F, 3, F, F, 5, F, F, F, 4, 1, F };
  unsigned char refused[15] = { 0 };
  refused[1 * 3 + 1] = 1;
  static const int want[3][4] = { { 4, 4, 2, 0 }, { 4, 3, 1, 0 }, { 2, 2, 1, 2 } };
  for (int sv = 0; sv < 3; sv++) {
    exp_vbest v;
    exp_profile_vbest(5, 3, t, refused, sv, &v);
    CU_ASSERT_EQUAL(v.others, want[sv][0]);
    CU_ASSERT_EQUAL(v.accepted, want[sv][1]);
    CU_ASSERT_EQUAL(v.solved, want[sv][2]);
    CU_ASSERT_EQUAL(v.alone, want[sv][3]);
  }
  exp_vbest v; /* a time of 0 or NaN is a failure; refused may be NULL */
  double t2[4] = { 0.0, 1.0, NAN, 2.0 };
  exp_profile_vbest(2, 2, t2, NULL, 0, &v);
  CU_ASSERT_EQUAL(v.others, 2);
  CU_ASSERT_EQUAL(v.accepted, 2);
  CU_ASSERT_EQUAL(v.solved, 0);
  exp_profile_vbest(2, 2, t2, NULL, 1, &v);
  CU_ASSERT_EQUAL(v.others, 0);
  CU_ASSERT_EQUAL(v.alone, 2);
}

static void test_repeat_count(void) {
  CU_ASSERT_EQUAL(exp_repeat_count(1e-5, 3, 0.2, 3.0, 100000), 20000);
  CU_ASSERT_EQUAL(exp_repeat_count(1e-5, 3, 0.2, 3.0, 10001), 10001);
  CU_ASSERT_EQUAL(exp_repeat_count(0.1, 3, 0.2, 3.0, 100000), 3);
  CU_ASSERT_EQUAL(exp_repeat_count(2.0, 3, 0.2, 3.0, 100000), 1);
  CU_ASSERT_EQUAL(exp_repeat_count(10.0, 3, 0.2, 3.0, 100000), 1);
  CU_ASSERT_EQUAL(exp_repeat_count(0.0, 3, 0.2, 3.0, 100000), 3);
  CU_ASSERT_EQUAL(exp_repeat_count(NAN, 3, 0.2, 3.0, 100000), 3);
}

/* Reads text as an experiment file: the exit status (-1 read). */
static int read_config(const char *text, exp_config *cfg) {
  char path[] = "/tmp/test_experiment_profile.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -2;
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  int rc = exp_config_read(path, NULL, NULL, NULL, cfg);
  unlink(path);
  return rc;
}

/* {repeat} is the 8th positional parameter, a ${NAME} after it the 9th;
 * {repeat} without time=KEY is refused (the program must report one
 * solve's time). */
static void test_external_repeat(void) {
  exp_config *cfg = calloc(1, sizeof *cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
  int rc = read_config("external p time=time_s command peer --repeat {repeat} ${V:-x} {in} {out}\n"
                       "external q command peer {in} {out}\n"
                       "experiment profile\nsolvers p q\ngenerate spd 10\n",
                       cfg);
  CU_ASSERT_EQUAL_FATAL(rc, -1);
  CU_ASSERT_EQUAL(cfg->ext[0].uses_repeat, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(cfg->ext[0].command, "--repeat \"${8}\" \"${9}\""));
  CU_ASSERT_EQUAL(cfg->ext[1].uses_repeat, 0);
  exp_config_free(cfg);
  rc = read_config("external p command peer --repeat {repeat} {in} {out}\n"
                   "experiment profile\nsolvers p\ngenerate spd 10\n",
                   cfg);
  CU_ASSERT_EQUAL(rc, EXP_EXIT_USAGE);
  exp_config_free(cfg);
  free(cfg);
}

/* NAME_tex.csv (exp_text_write): every text of a section that is not a
 * number, once, sorted, with exp_tex_escape's form: row fields, preamble
 * values (after the first ':'), the coverage reasons. */
static char empty[] = "";

static void set_field(exp_row *r, const char *col, char *v) { r->f[exp_col(EXP_PROFILE, col)] = v; }

static void text_row(exp_row *r, char *problem, char *solver, char *status, char *note) {
  r->nf = 1;
  for (const char *h = exp_csv_header(EXP_PROFILE); *h; h++) r->nf += *h == ',';
  for (int k = 0; k < r->nf; k++) r->f[k] = empty;
  set_field(r, "problem", problem);
  set_field(r, "solver", solver);
  set_field(r, "tol", (char *)"0.0001");
  set_field(r, "status", status);
  set_field(r, "class", (char *)"lcp");
  set_field(r, "time_s", (char *)"1.000000e-03");
  set_field(r, "note", note);
}

static void test_text_table(void) {
  char dir[] = "/tmp/test_text_table.XXXXXX", base[128], path[160], line[512], prev[512] = "";
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  snprintf(base, sizeof base, "%s/prof", dir);
  exp_section s;
  memset(&s, 0, sizeof s);
  s.kind = EXP_PROFILE;
  exp_row rows[3] = { { 0 } };
  text_row(&rows[0], (char *)"p_2", (char *)"pgs_wide", (char *)"converged", empty);
  text_row(&rows[1], (char *)"p_3", (char *)"pgs_wide", (char *)"converged", empty);
  text_row(&rows[2], (char *)"p_2", (char *)"lemke", (char *)"refused",
           (char *)"needs 100% & more");
  exp_outset set;
  memset(&set, 0, sizeof set);
  const char *pre = "# lcplab experiment: profile prof\n# tol: 0.0001  max_iter: 10000\n";
  CU_ASSERT_EQUAL_FATAL(exp_text_write(&s, base, pre, rows, 3, &set), 0);
  CU_ASSERT_EQUAL_FATAL(exp_outset_publish(&set, 1), 0);
  snprintf(path, sizeof path, "%s_tex.csv", base);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  int found = 0, numbers = 0, unsorted = 0, reasons = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '#' || strcmp(line, "text,tex") == 0) continue;
    found += strcmp(line, "p_2,p\\_2") == 0;
    found += strcmp(line, "pgs_wide,pgs\\_wide") == 0;
    found += strcmp(line, "needs 100% & more,needs 100\\% \\& more") == 0;
    found += strcmp(line, "0.0001  max_iter: 10000,0.0001  max\\_iter: 10000") == 0;
    found += strcmp(line, "profile prof,profile prof") == 0;
    numbers += strncmp(line, "0.0001,", 7) == 0 || strncmp(line, "1.000000e-03,", 13) == 0;
    reasons += strstr(line, "(1),") != NULL;
    line[strcspn(line, ",")] = '\0';     /* the text (none here holds a comma) */
    unsorted += strcmp(prev, line) >= 0; /* sorted and distinct: converged once */
    snprintf(prev, sizeof prev, "%s", line);
  }
  fclose(f);
  CU_ASSERT_EQUAL(found, 5);
  CU_ASSERT_EQUAL(numbers, 0);
  CU_ASSERT_EQUAL(reasons, 1);
  CU_ASSERT_EQUAL(unsorted, 0);
  unlink(path);
  rmdir(dir);
}

static void test_fit_ci(void) {
  double x[4] = { 0, 1, 2, 3 }, y[4] = { 0, 2, 1, 3 }, a, b, r2, lo, hi;
  CU_ASSERT_EQUAL_FATAL(exp_fit_line_ci(x, y, 4, &a, &b, &r2, &lo, &hi), 0);
  TST_CLOSE(b, 0.8, 1e-15, 0);
  TST_CLOSE(a, 0.3, 1e-15, 0);
  TST_CLOSE(lo, -1.0254610, 1e-6, 0);
  TST_CLOSE(hi, 2.6254610, 1e-6, 0);
  /* two points: exact line, unbounded interval */
  CU_ASSERT_EQUAL_FATAL(exp_fit_line_ci(x, y, 2, &a, &b, &r2, &lo, &hi), 0);
  TST_CLOSE(b, 2.0, 0, 0);
  CU_ASSERT(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
}

static void test_status_columns(void) {
  CU_ASSERT_EQUAL(exp_status_column("converged"), 0);
  CU_ASSERT_EQUAL(exp_status_column("singular_pivot"), 4);
  CU_ASSERT_EQUAL(exp_status_column("refused"), 8);
  CU_ASSERT_EQUAL(exp_status_column("time_limit"), 9);
  CU_ASSERT_EQUAL(exp_status_column("something"), EXP_NSTATUS - 1);
  CU_ASSERT_STRING_EQUAL(exp_status_name(9), "time_limit");
  CU_ASSERT_STRING_EQUAL(exp_status_name(99), "other");
}

static void test_tex(void) {
  char out[256];
  CU_ASSERT_EQUAL(exp_tex_escape("a_b%c&d#e$f{g}h~i^j\\k<l>m|n", out, sizeof out), 0);
  CU_ASSERT_STRING_EQUAL(out, "a\\_b\\%c\\&d\\#e\\$f\\{g\\}h\\textasciitilde{}i"
                              "\\textasciicircum{}j\\textbackslash{}k\\textless{}l"
                              "\\textgreater{}m\\textbar{}n");
  CU_ASSERT_EQUAL(exp_tex_escape("repeat > budget", out, sizeof out), 0);
  CU_ASSERT_STRING_EQUAL(out, "repeat \\textgreater{} budget");
  CU_ASSERT_EQUAL(exp_tex_escape("a\tb", out, sizeof out), 0);
  CU_ASSERT_STRING_EQUAL(out, "ab");
  char small[4];
  CU_ASSERT_EQUAL(exp_tex_escape("a_b", small, sizeof small), -1);
  CU_ASSERT_STRING_EQUAL(small, "a\\_");
}

static void test_reason(void) {
  char k[128];
  exp_reason_key("pgs", "pgs needs A(i,i) > 0; A(3,3)=0", k, sizeof k);
  CU_ASSERT_STRING_EQUAL(k, "needs A(i,i) > 0");
  exp_reason_key("enum", "enum takes n <= 16 (n=200)", k, sizeof k);
  CU_ASSERT_STRING_EQUAL(k, "takes n <= 16");
  exp_reason_key("pgs", "pgs does not handle Coulomb cones (54 cones)", k, sizeof k);
  CU_ASSERT_STRING_EQUAL(k, "does not handle Coulomb cones");
  /* a ';' within parentheses (a ',' turned into ';' in a CSV note) does not cut */
  exp_reason_key("direct", "direct solves only equality rows (lo=-inf; hi=inf); row 3 has lo=0", k,
                 sizeof k);
  CU_ASSERT_STRING_EQUAL(k, "solves only equality rows (lo=-inf; hi=inf)");
  /* "NAME: ..." as well as "NAME ..." */
  exp_reason_key("nsn_ac",
                 "nsn_ac: solves the Coulomb law only (Alart-Curnier); the associated "
                 "cone is a QP",
                 k, sizeof k);
  CU_ASSERT_STRING_EQUAL(k, "solves the Coulomb law only (Alart-Curnier)");
  exp_reason_key("lemke", "lemke needs dense storage (the problem is CSR)", k, sizeof k);
  CU_ASSERT_STRING_EQUAL(k, "needs dense storage (the problem is CSR)");
}

static void test_fnv(void) {
  /* published FNV-1a 64 test vectors */
  CU_ASSERT(exp_fnv1a(EXP_FNV_INIT, "", 0) == 0xcbf29ce484222325ull);
  CU_ASSERT(exp_fnv1a(EXP_FNV_INIT, "a", 1) == 0xaf63dc4c8601ec8cull);
  CU_ASSERT(exp_fnv1a(EXP_FNV_INIT, "foobar", 6) == 0x85944171f73967e8ull);
  /* continued hashing equals hashing the concatenation */
  CU_ASSERT(exp_fnv1a(exp_fnv1a(EXP_FNV_INIT, "foo", 3), "bar", 3) == 0x85944171f73967e8ull);
}

/* SHA-256 of text, added in pieces of `piece` bytes, as hex. */
static void sha_of(const char *text, size_t len, size_t piece, char *hex) {
  exp_sha256 h;
  exp_sha256_init(&h);
  for (size_t o = 0; o < len; o += piece)
    exp_sha256_add(&h, text + o, len - o < piece ? len - o : piece);
  exp_sha256_hex(&h, hex);
}

static void test_sha256(void) {
  /* FIPS 180-4's examples (NIST CSRC, SHA256.pdf and SHA2_Additional.pdf) */
  char hex[65];
  sha_of("", 0, 1, hex);
  CU_ASSERT_STRING_EQUAL(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha_of("abc", 3, 1, hex);
  CU_ASSERT_STRING_EQUAL(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  sha_of(two, strlen(two), 7, hex);
  CU_ASSERT_STRING_EQUAL(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  static char million[1000000];
  memset(million, 'a', sizeof million);
  sha_of(million, sizeof million, 4096, hex);
  CU_ASSERT_STRING_EQUAL(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("experiment profile and fit", NULL, NULL);
  CU_add_test(s, "Dolan-More ratios, hand example", test_ratios);
  CU_add_test(s, "rho_s(tau), hand example", test_rho);
  CU_add_test(s, "breakpoints", test_breaks);
  CU_add_test(s, "failures (0, NaN) and ties", test_failures_and_ties);
  CU_add_test(s, "least-squares line", test_fit);
  CU_add_test(s, "identical algorithms", test_alias);
  CU_add_test(s, "refusals outside the denominators", test_refusals);
  CU_add_test(s, "identical algorithms from the traces", test_same_traces);
  CU_add_test(s, "between-run noise and the tie", test_noise);
  CU_add_test(s, "solved: the library's verdict, not res_rel", test_judge);
  CU_add_test(s, "winners and ties at tau = 1", test_winners);
  CU_add_test(s, "quantiles (type 7)", test_quantiles);
  CU_add_test(s, "runs pooled over identical algorithms", test_pooled);
  CU_add_test(s, "identical algorithms: one entry, runs pooled", test_same_one_entry);
  CU_add_test(s, "a disagreement costs only its solver", test_disagreement_own);
  CU_add_test(s, "the groups of one trace (NAME_same.csv)", test_same_groups);
  CU_add_test(s, "noise between passes, win intervals", test_pass_noise);
  CU_add_test(s, "repetition rule", test_repeat_rule);
  CU_add_test(s, "the median's interval (precision)", test_median_precision);
  CU_add_test(s, "per-process repeats ({repeat})", test_repeat_count);
  CU_add_test(s, "leaders of a winners table", test_leaders);
  CU_add_test(s, "coverage against the virtual best", test_virtual_best);
  CU_add_test(s, "external {repeat} placeholder", test_external_repeat);
  CU_add_test(s, "slope confidence interval", test_fit_ci);
  CU_add_test(s, "failure table columns", test_status_columns);
  CU_add_test(s, "LaTeX escaping", test_tex);
  CU_add_test(s, "the texts of a section, escaped (NAME_tex.csv)", test_text_table);
  CU_add_test(s, "refusal reason keys", test_reason);
  CU_add_test(s, "FNV-1a checksum", test_fnv);
  CU_add_test(s, "SHA-256", test_sha256);
  return tst_run();
}
