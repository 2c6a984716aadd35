/* test_experiment_profile.c -- the pure computations of `lcplab experiment`
 * (cli/experiment_stats.c): Dolan-More performance profiles and the
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
 */
#include "experiment.h"
#include "tst_util.h"

#include <math.h>

static void test_ratios(void)
{
  const double F = INFINITY;
  double t[9] = {1, 2, 4, 3, F, 1, F, F, F};
  double r[9];
  exp_profile_ratios(3, 3, t, r);
  double want[9] = {1, 2, 4, 3, F, 1, F, F, F};
  for (int k = 0; k < 9; k++) {
    if (isinf(want[k])) {
      CU_ASSERT(isinf(r[k]) && r[k] > 0);
    } else {
      TST_CLOSE(r[k], want[k], 0, 1e-15);
    }
  }
}

static void test_rho(void)
{
  const double F = INFINITY;
  double t[9] = {1, 2, 4, 3, F, 1, F, F, F};
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

static void test_breaks(void)
{
  const double F = INFINITY;
  double t[9] = {1, 2, 4, 3, F, 1, F, F, F};
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

static void test_failures_and_ties(void)
{
  /* 0 and NaN are failures; a tie gives both solvers r = 1; duplicate
   * ratios give one breakpoint: p1 (2, 2), p2 (NaN, 5), p3 (0, 10), p4 (4, 8)
   * -> A: 1, inf, inf, 1; B: 1, 1, 1, 2. */
  double t[8] = {2, 2, NAN, 5, 0, 10, 4, 8};
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

static void test_fit(void)
{
  double x[4] = {0, 1, 2, 3}, y[4], a, b, r2;
  for (int i = 0; i < 4; i++)
    y[i] = 2 + 3 * x[i];
  CU_ASSERT_EQUAL_FATAL(exp_fit_line(x, y, 4, &a, &b, &r2), 0);
  TST_CLOSE(a, 2.0, 1e-14, 0);
  TST_CLOSE(b, 3.0, 1e-14, 0);
  TST_CLOSE(r2, 1.0, 1e-14, 0);
  double x2[3] = {0, 1, 2}, y2[3] = {0, 2, 1};
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
  double xs[3] = {1, 1, 1};
  CU_ASSERT_EQUAL(exp_fit_line(xs, y2, 3, &a, &b, &r2), -1);
}

int main(void)
{
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("experiment profile and fit", NULL, NULL);
  CU_add_test(s, "Dolan-More ratios, hand example", test_ratios);
  CU_add_test(s, "rho_s(tau), hand example", test_rho);
  CU_add_test(s, "breakpoints", test_breaks);
  CU_add_test(s, "failures (0, NaN) and ties", test_failures_and_ties);
  CU_add_test(s, "least-squares line", test_fit);
  return tst_run();
}
