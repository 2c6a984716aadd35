/* experiment_stats.c -- the pure computations of `lcplab experiment`:
 * Dolan-More performance profiles and the least-squares line of the scaling
 * fits.  No I/O, no allocation: tests/test_experiment_profile.c checks them
 * against hand-worked examples.
 *
 * Performance profile (Dolan and More 2002, "Benchmarking optimization
 * software with performance profiles", Math. Program. 91:201-213, eq. 1-2; as
 * used by Acary, Bremond and Huber 2018 for FCLIB):
 *
 *     r_ps = t_ps / min_s' t_ps'          (t_ps = +inf when s fails on p)
 *     rho_s(tau) = #{ p : r_ps <= tau } / n_p
 *
 * A problem that no solver solves keeps every r_ps = +inf and stays in the
 * denominator n_p, so rho_s(inf) is the share of problems s solves.
 * rho_s(1) is the share on which s is (one of) the fastest.
 *
 * Least squares (scaling slopes): for log t = a + b log n,
 *     b = sum (x - xbar)(y - ybar) / sum (x - xbar)^2,   a = ybar - b xbar,
 *     r2 = 1 - SS_res / SS_tot  (1 when SS_tot = 0: the line is exact);
 * the centred sums avoid the cancellation of the textbook normal equations.
 *
 * Limitations: ratios of times below the clock's resolution are noisy; the
 * caller decides what counts as a failure (lcplab: not "converged").
 */
#include "experiment.h"

#include <math.h>

static int solved(double t)
{
  return isfinite(t) && t > 0.0;
}

void exp_profile_ratios(int np, int ns, const double *t, double *r)
{
  for (int p = 0; p < np; p++) {
    double best = INFINITY;
    for (int s = 0; s < ns; s++)
      if (solved(t[p * ns + s]) && t[p * ns + s] < best)
        best = t[p * ns + s];
    for (int s = 0; s < ns; s++)
      r[p * ns + s] = (solved(t[p * ns + s]) && isfinite(best)) ? t[p * ns + s] / best : INFINITY;
  }
}

double exp_profile_rho(int np, int ns, const double *r, int s, double tau)
{
  if (np <= 0)
    return 0.0;
  int k = 0;
  for (int p = 0; p < np; p++)
    if (r[p * ns + s] <= tau)
      k++;
  return (double)k / (double)np;
}

int exp_profile_breaks(int np, int ns, const double *r, int s, double *taus)
{
  int k = 0;
  for (int p = 0; p < np; p++) {
    double v = r[p * ns + s];
    if (!isfinite(v))
      continue;
    /* insertion into the sorted distinct list (np is small: a collection) */
    int j = 0;
    while (j < k && taus[j] < v)
      j++;
    if (j < k && taus[j] == v)
      continue;
    for (int m = k; m > j; m--)
      taus[m] = taus[m - 1];
    taus[j] = v;
    k++;
  }
  return k;
}

int exp_fit_line(const double *x, const double *y, int k, double *a, double *b, double *r2)
{
  if (k < 2)
    return -1;
  double xbar = 0.0, ybar = 0.0;
  for (int i = 0; i < k; i++) {
    xbar += x[i];
    ybar += y[i];
  }
  xbar /= k;
  ybar /= k;
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (int i = 0; i < k; i++) {
    double dx = x[i] - xbar, dy = y[i] - ybar;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (!(sxx > 0.0))
    return -1;
  *b = sxy / sxx;
  *a = ybar - *b * xbar;
  double ssres = 0.0;
  for (int i = 0; i < k; i++) {
    double e = y[i] - (*a + *b * x[i]);
    ssres += e * e;
  }
  *r2 = syy > 0.0 ? 1.0 - ssres / syy : 1.0;
  return 0;
}
