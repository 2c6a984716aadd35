/* velocity_residual.c -- the velocity-level accuracy of an answer of a global
 * frictional-contact problem (slv_velocity_residual, slv.h; docs/problem.md,
 * "Global problems"; the velocities themselves: condense.c):
 *
 *     ||W F(r)||_2 / (1 + ||q||_2),  F the natural map of the cone problem
 *     (A = W, b = q).
 *
 * Why W F: the answers r of a global problem are not unique when H has a
 * null space (r + z, H z = 0, gives the same v and u), and a residual in r
 * charges an answer for parts the velocities never see.  The correction F(r)
 * a fixed-point step would make to r changes the velocities by
 * du = W F(r) (dv = M^-1 H F(r)), and W z = 0 exactly for z in null(H)
 * (W = H' M^-1 H, M positive definite): the measure counts only the part
 * of the residual that moves a velocity, in the units of u and q.
 */
#include "slv_internal.h"

#include <math.h>

/* ---- the velocity-level accuracy ------------------------------------------------- */

/* F = x - P_K(x - w^) per cone (w^ = w + (mu |w_t|, 0, 0) for Coulomb's
 * law, w for the associated cone), the natural map of docs/problem.md,
 * "Residuals"; 0 if some row is in no cone (then the measure is NaN). */
static int cone_natmap(const slv_problem *p, const double *x, const double *w, double *F) {
  int covered = 0;
  for (int c = 0; c < p->ncones; c++) {
    int i = p->cone_rows[c];
    double mu = p->cone_mu[c];
    double shift =
        p->cone_law == SLV_CONE_COULOMB ? slv_desaxce_shift(mu, w[i + 1], w[i + 2]) : 0.0;
    double y[3] = { x[i] - (w[i] + shift), x[i + 1] - w[i + 1], x[i + 2] - w[i + 2] };
    slv_cone_project(mu, y, y);
    for (int k = 0; k < 3; k++) F[i + k] = x[i + k] - y[k];
    covered += 3;
  }
  return covered == p->n;
}

double slv_velocity_residual(const slv_problem *p, const double *x, double *scratch) {
  int n = p->n;
  double *w = scratch, *F = scratch + n;
  slv_problem_w(p, x, w);
  if (!cone_natmap(p, x, w, F)) return NAN;
  slv_problem_w(p, F, w); /* w = W F + q */
  double num = 0, den = 0;
  for (int i = 0; i < n; i++) {
    double d = w[i] - p->b[i];
    num += d * d;
    den += p->b[i] * p->b[i];
  }
  return sqrt(num) / (1.0 + sqrt(den));
}
