/* world_global.c -- the global (velocity) form of a world's last step
 * (dyn_world_global_new, dyn_world.h), for FCLIB's /fclib_global (lcplab
 * export --global; docs/io.md, "Global problems out"; docs/problem.md,
 * "Global problems"):
 *
 *     M v = H r + f,      u = H' v + w
 *
 * from the world's last assembly (dyn_system_velocity_form:  A = J M^-1 J'
 * + diag(cfm),  b = J u_free - rhs).  v holds the six velocities (linear,
 * angular, world frame) of each dynamic body that a row touches, in body
 * order; static bodies have no velocity there.  Per such body b, at dofs
 * 6k .. 6k+5:
 *
 *     M_b = diag(m_b I3, I_b)   (I_b the world inertia: the inverse of the
 *                               assembly's world I^-1, made symmetric),
 *     H(6k + c, i) = J_i on body b (H = J'),   f_b = M_b u_free,b,
 *     w_i = b_i - J_i u_free  (= -rhs_i).
 *
 * Condensed, H' M^-1 H = J M^-1 J' = A and w + H' M^-1 f = b: the step's
 * local problem, up to rounding (tests/test_simulate.sh, "export --global",
 * checks it).
 * FCLIB's global form has no term for cfm, so a row with cfm > 0 is
 * refused; so is a row outside the cones (a joint row: FCLIB's equalities
 * G' v + b = 0 could hold an equality row, but not the limit and motor
 * rows of a joint, and neither lcplab's reader nor peer_gfc3d takes G).
 *
 * dyn_world_global_condensed_new builds the same form with every row
 * (joint rows, their cfm, the problem's bounds) and hands it to
 * slv_condense_rows_global, which condenses the joint rows at the step's
 * answer (docs/models.md, "Joint rows condensed"): the contact rows'
 * global problem in null-space coordinates of the hard joint rows.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_math.h"
#include "dyn_internal.h"
#include "dyn_world.h"
#include "world_data.h"

/* dof[b] = 6k for the k-th dynamic body a row touches, else -1; the
 * number of such bodies. */
static int number_bodies(const dyn_velocity_form *vf, int *dof) {
  for (int b = 0; b < vf->nb; b++) dof[b] = -1;
  for (int i = 0; i < 2 * vf->nrows; i++)
    if (vf->rbody[i] >= 0) dof[vf->rbody[i]] = 0;
  int k = 0;
  for (int b = 0; b < vf->nb; b++)
    if (dof[b] == 0) dof[b] = 6 * k++;
  return k;
}

/* 1 (after the message) if a row cannot be written in the global form. */
static int rows_refused(const dyn_velocity_form *vf, const slv_problem *p, char *err,
                        size_t errlen) {
  if (p->ncones * 3 != p->n) {
    dyn_msgf(err, errlen,
             "the global form holds contacts only (a Coulomb cone on every row), found %d rows "
             "and %d cones (joint or box-friction rows)",
             p->n, p->ncones);
    return 1;
  }
  for (int i = 0; i < vf->nrows; i++)
    if (vf->cfm[i] != 0.0) {
      dyn_msgf(err, errlen,
               "row %d has cfm = %g: FCLIB's global problem has no term for it (use cfm 0)", i,
               vf->cfm[i]);
      return 1;
    }
  return 0;
}

int dyn_mass_block(const double *Minv, double *blk) {
  memset(blk, 0, 36 * sizeof(double));
  if (!(Minv[0] > 0.0)) return 0;
  int ok = 0;
  dyn_m3 Iinv;
  memcpy(Iinv.m, Minv + 1, 9 * sizeof(double));
  dyn_m3 I = dyn_m3_inverse(Iinv, &ok);
  for (int c = 0; c < 3; c++) blk[7 * c] = 1.0 / Minv[0];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) blk[6 * (3 + r) + 3 + c] = 0.5 * (I.m[3 * r + c] + I.m[3 * c + r]);
  return ok;
}

/* M (6x6 blocks, stored whole, CSR) and f = M u_free. */
static int fill_mass(const dyn_velocity_form *vf, const int *dof, slv_global_form *g, char *err,
                     size_t errlen) {
  int nz = 0;
  g->Mp[0] = 0;
  for (int b = 0; b < vf->nb; b++) {
    if (dof[b] < 0) continue;
    double blk[36];
    if (!dyn_mass_block(vf->Minv + 10 * b, blk)) {
      dyn_msgf(err, errlen, "body %d: its mass or world inertia is not invertible", b);
      return 0;
    }
    for (int r = 0; r < 6; r++) {
      double fr = 0.0;
      for (int c = 0; c < 6; c++) {
        if (blk[6 * r + c] == 0.0) continue;
        g->Mj[nz] = dof[b] + c;
        g->Mx[nz++] = blk[6 * r + c];
        fr += blk[6 * r + c] * vf->ufree[6 * b + c];
      }
      g->f[dof[b] + r] = fr;
      g->Mp[dof[b] + r + 1] = nz;
    }
  }
  return 1;
}

/* H = J' (CSR by dof: the rows i of each dof in order, nonzero entries
 * only) and w = b - J u_free. */
static void fill_h(const dyn_velocity_form *vf, const int *dof, const slv_problem *p,
                   slv_global_form *g) {
  int ndof = g->ndof;
  memset(g->Hp, 0, ((size_t)ndof + 1) * sizeof(int));
  for (int i = 0; i < vf->nrows; i++)
    for (int k = 0; k < 2; k++) {
      int b = vf->rbody[2 * i + k];
      for (int c = 0; b >= 0 && c < 6; c++)
        g->Hp[dof[b] + c + 1] += vf->J[12 * i + 6 * k + c] != 0.0;
    }
  for (int d = 0; d < ndof; d++) g->Hp[d + 1] += g->Hp[d];
  int *next = g->Hp; /* advanced per dof, then shifted back */
  for (int i = 0; i < vf->nrows; i++) {
    double Ju = 0.0;
    for (int k = 0; k < 2; k++) {
      int b = vf->rbody[2 * i + k];
      for (int c = 0; b >= 0 && c < 6; c++) {
        double v = vf->J[12 * i + 6 * k + c];
        Ju += v * vf->ufree[6 * b + c];
        if (v == 0.0) continue;
        int at = next[dof[b] + c]++;
        g->Hj[at] = i;
        g->Hx[at] = v;
      }
    }
    g->w[i] = p->b[i] - Ju;
  }
  for (int d = ndof; d > 0; d--) g->Hp[d] = g->Hp[d - 1];
  g->Hp[0] = 0;
}

/* The arrays of a global problem of ndof dofs and n rows into *g, mnz
 * entries of M and hnz of H; 0 when out of memory (g zeroed). */
static int global_alloc(slv_global_form *g, int ndof, int n, long mnz, long hnz) {
  memset(g, 0, sizeof *g);
  g->ndof = ndof;
  g->n = n;
  g->Mp = malloc(((size_t)ndof + 1) * sizeof(int));
  g->Mj = malloc(((size_t)mnz + 1) * sizeof(int));
  g->Mx = malloc(((size_t)mnz + 1) * sizeof(double));
  g->Hp = malloc(((size_t)ndof + 1) * sizeof(int));
  g->Hj = malloc(((size_t)hnz + 1) * sizeof(int));
  g->Hx = malloc(((size_t)hnz + 1) * sizeof(double));
  g->f = malloc(((size_t)ndof + 1) * sizeof(double));
  g->w = malloc(((size_t)n + 1) * sizeof(double));
  if (!g->Mp || !g->Mj || !g->Mx || !g->Hp || !g->Hj || !g->Hx || !g->f || !g->w) {
    slv_global_form_free(g);
    return 0;
  }
  return 1;
}

/* The global form of the velocity form vf of problem p into *out; dof
 * (vf->nb + 1) is scratch. */
static dyn_err global_fill(const dyn_velocity_form *vf, const slv_problem *p, int *dof,
                           slv_global_form *out, char *err, size_t errlen) {
  int nbd = number_bodies(vf, dof);
  if (!global_alloc(out, 6 * nbd, p->n, 36L * nbd, 12L * vf->nrows)) {
    dyn_msgf(err, errlen, "out of memory for the global form (%d dofs)", 6 * nbd);
    return DYN_ERR_NOMEM;
  }
  if (!fill_mass(vf, dof, out, err, errlen)) {
    slv_global_form_free(out);
    return DYN_ERR_INPUT;
  }
  fill_h(vf, dof, p, out);
  return DYN_OK;
}

/* *mu (unless mu is NULL): a malloc'd copy of p's cones' friction
 * coefficients; on failure (out of memory) g is freed and zeroed. */
static dyn_err contacts_mu_new(const slv_problem *p, slv_global_form *g, double **mu, char *err,
                               size_t errlen) {
  if (!mu) return DYN_OK;
  *mu = malloc(((size_t)p->ncones + 1) * sizeof **mu);
  if (!*mu) {
    slv_global_form_free(g);
    dyn_msgf(err, errlen, "out of memory for the contacts' mu (%d)", p->ncones);
    return DYN_ERR_NOMEM;
  }
  if (p->ncones > 0) memcpy(*mu, p->cone_mu, (size_t)p->ncones * sizeof **mu);
  return DYN_OK;
}

/* *out zeroed and *mu NULL: what a refusal leaves. */
static void global_out_clear(slv_global_form *out, double **mu) {
  memset(out, 0, sizeof *out);
  if (mu) *mu = NULL;
}

int dyn_world_last_form(const dyn_world *w, slv_problem *p, dyn_velocity_form *vf) {
  const double *x;
  dyn_world_last_problem(w, p, &x);
  return p->n > 0 && dyn_system_velocity_form(dyn_world_last_system(w), vf) && vf->nrows == p->n;
}

static int contacts_refused(const slv_problem *p, int jr, char *err, size_t errlen);

/* The whole step's global form in reduced coordinates (docs/models.md,
 * "Exports"), every row: v the joint velocities u+, M = A_r = Mr +
 * armature + h D + h^2 K, H = G^T, f = A_r u_free, w = -rhs; so H' M^-1 H =
 * G A_r^-1 G^T and w + H' M^-1 f = G u_free - rhs are the local problem's W
 * and q (a limit or motor row's column of H is +-e_k). */
static dyn_err reduced_global_fill(const dyn_world *w, const dyn_reduced_form *rf,
                                   const slv_problem *p, slv_global_form *g, char *err,
                                   size_t errlen) {
  const int nd = rf->ndof, n = p->n;
  long hnz = 0;
  for (size_t k = 0; k < (size_t)nd * (size_t)n; k++) hnz += rf->Gt[k] != 0.0;
  if (!global_alloc(g, nd, n, (long)nd * nd, hnz)) {
    dyn_msgf(err, errlen, "out of memory for the global form (%d dofs)", nd);
    return DYN_ERR_NOMEM;
  }
  long mz = 0, hz = 0;
  for (int r = 0; r < nd; r++) { /* CSR rows of M (symmetric: both triangles) and of H */
    g->Mp[r] = (int)mz;
    g->Hp[r] = (int)hz;
    double fr = 0.0;
    for (int c = 0; c < nd; c++) {
      double a = rf->Ar[(size_t)c * nd + r];
      g->Mj[mz] = c, g->Mx[mz++] = a;
      fr += a * rf->ufree[c];
    }
    g->f[r] = fr;
    for (int i = 0; i < n; i++) {
      double h = rf->Gt[(size_t)i * nd + r];
      if (h != 0.0) g->Hj[hz] = i, g->Hx[hz++] = h;
    }
  }
  g->Mp[nd] = (int)mz;
  g->Hp[nd] = (int)hz;
  for (int i = 0; i < n; i++) g->w[i] = -w->rows.p[i].rhs;
  return DYN_OK;
}

/* The last step's joint-space form and problem, or 0 after the message.
 * Still rows (decoupled in the local problem, moving no joint) have no
 * global form. */
static int reduced_last(const dyn_world *w, slv_problem *p, dyn_reduced_form *rf, char *err,
                        size_t errlen) {
  const double *x;
  dyn_world_last_problem(w, p, &x);
  if (!dyn_reduced_last_form(w, rf) || rf->n != p->n) {
    dyn_msgf(err, errlen, "the world kept no joint-space form of this step's %d rows", p->n);
    return 0;
  }
  if (rf->nstill > 0) {
    dyn_msgf(err, errlen, "%d rows move no joint (decoupled in the local problem): no global form",
             rf->nstill);
    return 0;
  }
  return 1;
}

/* The global form of a world in reduced coordinates: refused for rows
 * other than the contacts' cones (a limit or motor row: see
 * dyn_world_global_condensed_new) and cfm > 0. */
static dyn_err reduced_global(const dyn_world *w, slv_problem *p, slv_global_form *out, char *err,
                              size_t errlen) {
  dyn_reduced_form rf;
  if (!reduced_last(w, p, &rf, err, errlen) || contacts_refused(p, 0, err, errlen))
    return DYN_ERR_INPUT;
  for (int i = 0; i < p->n; i++)
    if (w->rows.p[i].cfm > 0.0) {
      dyn_msgf(err, errlen, "row %d: cfm > 0 has no term in the global form", i);
      return DYN_ERR_INPUT;
    }
  return reduced_global_fill(w, &rf, p, out, err, errlen);
}

/* The global form of a maximal world's last step, p and vf its problem and
 * velocity form. */
static dyn_err maximal_global_new(const slv_problem *p, const dyn_velocity_form *vf,
                                  slv_global_form *out, char *err, size_t errlen) {
  int *dof = malloc(((size_t)vf->nb + 1) * sizeof(int));
  if (!dof) {
    dyn_msgf(err, errlen, "out of memory for the global form (%d bodies)", vf->nb);
    return DYN_ERR_NOMEM;
  }
  dyn_err e = global_fill(vf, p, dof, out, err, errlen);
  free(dof);
  return e;
}

dyn_err dyn_world_global_new(const dyn_world *w, slv_global_form *out, double **mu, char *err,
                             size_t errlen) {
  slv_problem p;
  dyn_velocity_form vf;
  dyn_msgf(err, errlen, "%s", "");
  if (!out) return DYN_ERR_INPUT;
  global_out_clear(out, mu);
  if (!w) return DYN_ERR_INPUT;
  dyn_err e;
  if (dyn_world_is_reduced(w))
    e = reduced_global(w, &p, out, err, errlen);
  else if (!dyn_world_last_form(w, &p, &vf)) {
    dyn_msgf(err, errlen, "the world kept no assembly of this step's %d rows", p.n);
    return DYN_ERR_INPUT;
  } else if (rows_refused(&vf, &p, err, errlen)) {
    return DYN_ERR_INPUT;
  } else {
    e = maximal_global_new(&p, &vf, out, err, errlen);
  }
  return e == DYN_OK ? contacts_mu_new(&p, out, mu, err, errlen) : e;
}

/* 1 (after the message) unless rows jr .. p->n - 1 are p's cones in order
 * (cone k on rows jr + 3k .. jr + 3k + 2): the global form's contacts. */
static int contacts_refused(const slv_problem *p, int jr, char *err, size_t errlen) {
  int ok = jr >= 0 && jr < p->n && 3 * p->ncones == p->n - jr;
  for (int k = 0; ok && k < p->ncones; k++) ok = p->cone_rows[k] == jr + 3 * k;
  if (!ok)
    dyn_msgf(err, errlen,
             "the global form with %d joint rows condensed needs the %d rows after them to be "
             "contacts in Coulomb cones, found %d cones",
             jr, p->n - jr, p->ncones);
  return !ok;
}

/* The whole step's global form g (every row, vf's cfm, p's bounds)
 * condensed at x to its rows from jr on, in place of g (freed and zeroed
 * on failure).  DYN_OK, or the error after the message. */
static dyn_err global_condensed_new(const double *cfm, const slv_problem *p, const double *x,
                                    int jr, slv_global_form *g, slv_condense_global_info *info,
                                    char *err, size_t errlen) {
  unsigned char *keep = malloc((size_t)p->n + 1);
  if (!keep) {
    slv_global_form_free(g);
    dyn_msgf(err, errlen, "out of memory for the condensation (%d rows)", p->n);
    return DYN_ERR_NOMEM;
  }
  for (int i = 0; i < p->n; i++) keep[i] = i >= jr;
  /* the form read as slv_condense_rows_global's rows: the one place */
  slv_global_rows in = { g->ndof, g->n, g->Mp, g->Mj, g->Mx, g->Hp, g->Hj,
                         g->Hx,   g->f, g->w,  cfm,   p->lo, p->hi };
  slv_global_form c;
  char serr[400] = "";
  slv_status s = slv_condense_rows_global(&in, x, keep, &c, info, serr, sizeof serr);
  free(keep);
  slv_global_form_free(g);
  if (s != SLV_OK) {
    dyn_msgf(err, errlen, "the joint rows' condensation: %s", serr);
    return s == SLV_ERR_NOMEM ? DYN_ERR_NOMEM : DYN_ERR_INPUT;
  }
  *g = c;
  return DYN_OK;
}

/* dyn_world_global_condensed_new in reduced coordinates: the whole step's
 * joint-space form (the limit and motor rows' columns +-e_k of H, their
 * cfm and bounds) condensed at x to the contact rows from jr on, as a
 * maximal world's joint rows are. */
static dyn_err reduced_condensed_new(const dyn_world *w, const double *x, int jr,
                                     slv_global_form *out, slv_problem *p,
                                     slv_condense_global_info *info, char *err, size_t errlen) {
  dyn_reduced_form rf;
  if (!reduced_last(w, p, &rf, err, errlen) || contacts_refused(p, jr, err, errlen))
    return DYN_ERR_INPUT;
  double *cfm = malloc(((size_t)p->n + 1) * sizeof *cfm);
  if (!cfm) {
    dyn_msgf(err, errlen, "out of memory for the condensation (%d rows)", p->n);
    return DYN_ERR_NOMEM;
  }
  for (int i = 0; i < p->n; i++) cfm[i] = w->rows.p[i].cfm;
  dyn_err e = reduced_global_fill(w, &rf, p, out, err, errlen);
  if (e == DYN_OK) e = global_condensed_new(cfm, p, x, jr, out, info, err, errlen);
  free(cfm);
  return e;
}

/* The same in maximal coordinates. */
static dyn_err maximal_condensed_new(const dyn_world *w, const double *x, int jr,
                                     slv_global_form *out, slv_problem *p,
                                     slv_condense_global_info *info, char *err, size_t errlen) {
  dyn_velocity_form vf;
  if (!dyn_world_last_form(w, p, &vf)) {
    dyn_msgf(err, errlen, "the world kept no assembly of this step's %d rows", p->n);
    return DYN_ERR_INPUT;
  }
  if (contacts_refused(p, jr, err, errlen)) return DYN_ERR_INPUT;
  dyn_err e = maximal_global_new(p, &vf, out, err, errlen);
  return e == DYN_OK ? global_condensed_new(vf.cfm, p, x, jr, out, info, err, errlen) : e;
}

dyn_err dyn_world_global_condensed_new(const dyn_world *w, const double *x, int jr,
                                       slv_global_form *out, double **mu,
                                       slv_condense_global_info *info, char *err, size_t errlen) {
  slv_problem p;
  dyn_msgf(err, errlen, "%s", "");
  if (!out) return DYN_ERR_INPUT;
  global_out_clear(out, mu);
  if (!w || !x) return DYN_ERR_INPUT;
  dyn_err e = dyn_world_is_reduced(w) ? reduced_condensed_new(w, x, jr, out, &p, info, err, errlen)
                                      : maximal_condensed_new(w, x, jr, out, &p, info, err, errlen);
  return e == DYN_OK ? contacts_mu_new(&p, out, mu, err, errlen) : e;
}
