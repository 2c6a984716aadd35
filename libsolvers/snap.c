/* snap.c -- separated contacts and rows at a bound set exactly, at a
 * converged x (docs/convergence.md, "What the test cannot see").
 *
 * An interior-point or Newton iterate that meets the test leaves the
 * impulses of separated contacts at ~1e-11 of the others and rows that
 * belong at a bound slightly off it.  One projected Jacobi step,
 *   P_K(x_c - w^_c / d_c)   (d_c: the contact's mean diagonal, w^ De
 *                            Saxce's for Coulomb's law),
 *   mid(lo_i, hi_i, x_i - w_i / A_ii)  (box rows; A_ii = 0: kept),
 * tells which ones: where it lands on the apex (or on a bound), x_c is set
 * to 0 (x_i to the bound); every other contact and row keeps its x, so the
 * step cannot disturb what the solver balanced.  The result is kept only if
 * the test still holds on the exact w: a problem in small units needs it,
 * since there those residues weigh much against its own b in a per-contact
 * measure. */
#include "slv_internal.h"
#include "cone.h"
#include "operator.h"

#include <string.h>

static void jacobi_step(slv_op *op, const double *x, const double *w, double *xt) {
  const slv_problem *p = op->p;
  int coulomb = p->cone_law != SLV_CONE_ASSOCIATED;
  for (int i = 0, k = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      double mu = p->cone_mu[k];
      double d = (slv_op_diag(op, i) + slv_op_diag(op, i + 1) + slv_op_diag(op, i + 2)) / 3.0;
      double sh = coulomb ? mu * sqrt(w[i + 1] * w[i + 1] + w[i + 2] * w[i + 2]) : 0.0;
      double v[3] = { x[i] - (w[i] + sh) / d, x[i + 1] - w[i + 1] / d, x[i + 2] - w[i + 2] / d };
      double pr[3];
      slv_cone_project(mu, v, pr);
      int apex = pr[0] == 0.0 && pr[1] == 0.0 && pr[2] == 0.0;
      for (int r = 0; r < 3; r++) xt[i + r] = apex ? 0.0 : x[i + r];
      i += 2;
      k++;
      continue;
    }
    double lo, hi, d = slv_op_diag(op, i);
    slv_bounds_at(p, x, i, &lo, &hi);
    double v = d > 0 ? x[i] - w[i] / d : x[i];
    xt[i] = v <= lo ? lo : (v >= hi ? hi : x[i]);
  }
}

int slv_snap(slv_op *op, const slv_options *opt, double b2, double *x, double *w, double *xt,
             double *wt) {
  const slv_problem *p = op->p;
  jacobi_step(op, x, w, xt);
  slv_op_w(op, xt, wt);
  slv_natmap m = slv_natmap_of(p, xt, wt);
  if (!slv_met_norms(opt, m.scaled, m.n2 / b2)) return 0;
  memcpy(x, xt, (size_t)p->n * sizeof *x);
  memcpy(w, wt, (size_t)p->n * sizeof *w);
  return 1;
}
