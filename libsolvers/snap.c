/* snap.c -- separated (and sliding) contacts set exactly, at a converged x
 * (docs/convergence.md, "What the test cannot see").
 *
 * An interior-point or Newton iterate that meets the test leaves small,
 * not zero, impulses on separated contacts.  One projected
 * Jacobi step, P_K(x_c - w^_c / d_c) (d_c: the contact's mean diagonal, w^
 * De Saxce's for Coulomb's law), tells which ones: where it lands on the
 * apex (a separated contact), and with `sliding` on the cone's surface (a
 * sliding one), x_c takes it.  Sticking contacts and box rows keep their x,
 * so the step does not disturb what the solver balanced; ipm leaves its
 * sliding contacts alone too
 * (experiments/records/2026-11-25-scale-invariant-convergence-test.md, has
 * what moving them did).  The result
 * is kept only if the test still holds on the exact w: a problem in small
 * units needs it, since there those residues weigh much against its own b
 * in a per-contact measure. */
#include "slv_internal.h"
#include "cone.h"
#include "operator.h"

#include <string.h>

static void jacobi_step(slv_op *op, int sliding, const double *x, const double *w, double *xt) {
  const slv_problem *p = op->p;
  int coulomb = p->cone_law != SLV_CONE_ASSOCIATED;
  for (int i = 0, k = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      double mu = p->cone_mu[k];
      double d = (slv_op_diag(op, i) + slv_op_diag(op, i + 1) + slv_op_diag(op, i + 2)) / 3.0;
      double sh = coulomb ? slv_desaxce_shift(mu, w[i + 1], w[i + 2]) : 0.0;
      double v[3] = { x[i] - (w[i] + sh) / d, x[i + 1] - w[i + 1] / d, x[i + 2] - w[i + 2] / d };
      double pr[3];
      slv_cone_project(mu, v, pr);
      /* the apex: a separated contact, set; the cone's surface: a sliding
       * one, set only if asked; inside K: sticking, kept */
      int apex = pr[0] == 0.0 && pr[1] == 0.0 && pr[2] == 0.0;
      int inside = sqrt(v[1] * v[1] + v[2] * v[2]) < mu * v[0];
      int take = apex || (sliding && !inside);
      for (int r = 0; r < 3; r++) xt[i + r] = take ? pr[r] : x[i + r];
      i += 2;
      k++;
      continue;
    }
    xt[i] = x[i]; /* box rows are judged by x itself: kept */
  }
}

int slv_snap(slv_op *op, const slv_options *opt, int sliding, double b2, double *x, double *w,
             double *xt, double *wt) {
  const slv_problem *p = op->p;
  jacobi_step(op, sliding, x, w, xt);
  slv_op_w(op, xt, wt);
  slv_natmap m = slv_natmap_of(p, xt, wt, slv_op_rowscale(op));
  if (!slv_met_norms(opt, m.scaled, m.n2 / b2)) return 0;
  memcpy(x, xt, (size_t)p->n * sizeof *x);
  memcpy(w, wt, (size_t)p->n * sizeof *w);
  return 1;
}
