/*
 * sensitivity_global.c -- the gradients of <gx, x> on a global problem's
 * M, H, f and w (slv_sensitivity_global_vjp, slv.h; docs/gradients.md,
 * "Global problems") from the gradient gq on its condensed q = b that
 * slv_sensitivity_vjp gives.
 *
 * The condensed problem is W = H' M^-1 H, q = w + H' M^-1 f.  With
 * lambda-hat = -gq, v = M^-1 (H x + f) (the velocities at the answer) and
 * y = M^-1 H lambda-hat, the chain rule through W and q gives
 *     gM = y v',  gH = -(v lambda-hat' + y x'),  gf = -y,  gw = -lambda-hat,
 * each on the stored entries of its matrix (M's both triangles taken as
 * independent entries).  The two solves with M are slv_global_velocities'
 * (M factored by diagonal blocks).
 */
#include "slv_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The first non-finite entry of a[0 .. n) named name, into msg: 1, or 0. */
static int not_finite(const char *name, const double *a, int n, char *msg, size_t len) {
  for (int i = 0; i < n; i++)
    if (!isfinite(a[i])) {
      if (msg && len) snprintf(msg, len, "%s[%d]=%g is not finite", name, i, a[i]);
      return 1;
    }
  return 0;
}

slv_status slv_sensitivity_global_vjp(int ndof, int n, const int *Mp, const int *Mj,
                                      const double *Mx, const int *Hp, const int *Hj,
                                      const double *Hx, const double *f, const double *x,
                                      const double *gq, double *gM, double *gH, double *gf,
                                      double *gw, double *scratch, char *msg, size_t len) {
  if (msg && len) msg[0] = '\0';
  if (ndof < 0 || n < 0 || !Mp || !Hp || !f || !x || !gq || !scratch) {
    if (msg && len) snprintf(msg, len, "global vjp: missing argument or negative size");
    return SLV_ERR_INVALID;
  }
  if (not_finite("x", x, n, msg, len) || not_finite("gq", gq, n, msg, len)) return SLV_ERR_INVALID;
  /* scratch: v, y (ndof each), lambda-hat, u (n each), zeros (ndof + n) */
  double *v = scratch, *y = v + ndof, *lam = y + ndof, *u = lam + n, *zero = u + n;
  for (int j = 0; j < n; j++) lam[j] = -gq[j];
  memset(zero, 0, ((size_t)ndof + (size_t)n) * sizeof *zero);
  slv_status st = slv_global_velocities(ndof, n, Mp, Mj, Mx, Hp, Hj, Hx, f, zero, x, v, u);
  if (st == SLV_OK)
    st = slv_global_velocities(ndof, n, Mp, Mj, Mx, Hp, Hj, Hx, zero, zero, lam, y, u);
  if (st != SLV_OK) {
    if (msg && len)
      snprintf(msg, len, "global vjp: M could not be factored (%s)", slv_status_str(st));
    return st;
  }
  for (int i = 0; i < ndof; i++) {
    if (gM)
      for (int k = Mp[i]; k < Mp[i + 1]; k++) gM[k] = y[i] * v[Mj[k]];
    if (gH)
      for (int k = Hp[i]; k < Hp[i + 1]; k++) gH[k] = -(v[i] * lam[Hj[k]] + y[i] * x[Hj[k]]);
    if (gf) gf[i] = -y[i];
  }
  if (gw)
    for (int j = 0; j < n; j++) gw[j] = -lam[j];
  return SLV_OK;
}
