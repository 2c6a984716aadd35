/*
 * contact.c -- the constraint rows of one contact point, for the four
 * friction models of dyn_constraint.h.
 *
 * Geometry (dyn.h's dyn_contact; docs/contact.md, "Contact Jacobian"): bodies a and b,
 * unit normal n from a to b, world point p, depth d (> 0 penetration,
 * < 0 a gap).  Lever arms r_a = p - r_a^com, r_b = p - r_b^com.
 *
 * Position-level constraint (the gap along a direction e held fixed, with
 * the witness points P_a, P_b fixed in each body and equal to p now):
 *     C_e(s) = e . (P_b(s) - P_a(s))
 *     dC_e/dt = e . (v_b + w_b x r_b - v_a - w_a x r_a)
 *             = [-e^T, -(r_a x e)^T | e^T, (r_b x e)^T] (v_a, w_a, v_b, w_b)
 * using e . (w x r) = w . (r x e).  So each row is J = (J_a, J_b) with
 *     J_a = (-e, -(r_a x e)),   J_b = (e, r_b x e)
 * (docs/contact.md, "Contact Jacobian": J_n, J_t1, J_t2), and J u is
 * the velocity of b relative to a at p along e, positive when separating.
 * Effective mass of a row: K = J M^-1 J^T
 *     = m_a^-1 + m_b^-1 + (r_a x e).I_a^-1 (r_a x e) + (r_b x e).I_b^-1 (r_b x e).
 *
 * Normal row (x_n >= 0 the normal impulse, w_n = J_n u+ - rhs >= 0, x_n w_n = 0).
 * With v_n = J_n u (pre-step velocity):
 *     d >= 0:  rhs = max( min(k_erp max(0, d - slop) / h, v_max),     Baumgarte
 *                          e_r (-v_n) if -v_n > v_thr else 0 )        restitution
 *     d <  0:  rhs = d / h    (speculative: the bodies may close the gap in this
 *                              step but not pass it), or max(d / h, e_r (-v_n))
 *              when -v_n > v_thr and -v_n h >= -d (the approach closes the
 *              gap within the step: restitution as at impact)
 * k_erp / h is k_cor (docs/contact.md, "CFM and ERP").  The maximum of the
 * two terms (ODE's contact rule; docs/contact.md, "Restitution") rather
 * than their sum: with the sum, an elastic
 * contact that also penetrates leaves faster than it arrived.
 *
 * Tangent basis (dyn_contact_basis): e = the world axis with the smallest
 * |n_i| (the first on ties), t1 = (e x n)/|e x n|, t2 = n x t1, so
 * (t1, t2, n) is right-handed and t1 is orthogonal to e.  Deterministic and
 * well conditioned (|e x n|^2 = 1 - n_e^2 >= 2/3), but not continuous in n
 * where the smallest axis switches.
 *
 * Friction models (rows in this order):
 *   NONE:     n.
 *   BOX:      n, t1, t2; t rows: rhs 0, findex -> n, bounds -mu x_n .. mu x_n
 *             (ODE dContactApprox1).  Anisotropic: the friction
 *             force can reach sqrt(2) mu x_n diagonally.  With torsion
 *             (prm->torsion), a fourth row s: the relative spin of b
 *             against a about n, J_a = (0, -n), J_b = (0, n) (the angular
 *             part only: the spin does not depend on the lever arms), rhs
 *             0, findex -> n, bounds -mu_t x_n .. mu_t x_n with mu_t the
 *             contact's mu_torsion (m: x_s is an angular impulse, N m s,
 *             x_n a linear one, N s).  MuJoCo's condim 4 with its
 *             friction[1] (docs/models.md, "<geom condim>").  With
 *             rolling as well (prm->rolling), two rows more, r1 and r2:
 *             the relative angular velocity about t1 and t2, J_a = (0,
 *             -t), J_b = (0, t), bounds -mu_r x_n .. mu_r x_n with mu_r
 *             the contact's mu_rolling (m): MuJoCo's condim 6 with its
 *             friction[2] (docs/contact.md, "Rolling friction").
 *   CONE:     n, t1, t2 as one cone, |x_t| <= mu x_n (for the cone solvers;
 *             the law, Coulomb or associated, is the problem's cone_law).
 *   PYRAMID:  docs/contact.md, "Friction models", with eta directions
 *                 d_h = cos(2 pi (h-1)/eta) t1 + sin(2 pi (h-1)/eta) t2
 *             and unknowns x_n = h f, x_h = h beta_h >= 0, lambda >= 0:
 *                 w_n = J_n u+ - rhs                     >= 0  _|_ x_n    >= 0
 *                 w_h = J_dh u+ + lambda                 >= 0  _|_ x_h    >= 0
 *                 w_l = mu x_n - sum_h x_h               >= 0  _|_ lambda >= 0
 *             i.e. A(beta, lambda) = E = 1, A(lambda, beta) = -E^T = -1,
 *             A(lambda, n) = mu, A(lambda, lambda) = 0 (the (eta+2)K
 *             LCP, block rows reordered per contact).  Sliding: lambda is the
 *             sliding speed, the beta of the direction most opposed to the
 *             slip takes mu x_n.  The aux row has J = 0, cfm 0 and kind
 *             DYN_ROW_AUX; A is not symmetric, so use lemke / enum.
 *
 * Source: docs/contact.md, "Contact Jacobian", "Friction models" (box with
 * t1, t2; the pyramid LCP), "CFM and ERP" (Baumgarte, k_cor = k_erp / h),
 * "Restitution"; docs/dynamics.md, "The world step" (the unified boxed LCP,
 * b = J (u + h M^-1 f_ext) - b_error).
 *
 * Limitations: the normal is taken as fixed (its rotation is a second-order
 * effect the Jacobian does not carry, as in every engine listed); a
 * speculative contact whose approach does not close its gap within the step
 * gets no restitution, so spheres resting closer than the margin meet
 * inelastically (the cradle's gap exceeds the default margin for this
 * reason: scenes.c); torsional and rolling friction only with BOX.
 * Returns DYN_ERR_INPUT for bad indices, parameters or geometry.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "dyn_assemble_internal.h"

dyn_contact_params dyn_contact_params_default(void) {
  dyn_contact_params p;
  memset(&p, 0, sizeof p);
  p.friction = DYN_FRICTION_NONE;
  p.mu = 0.0;
  p.eta = 4;
  p.restitution = 0.0;
  p.rest_threshold = 0.0;
  p.k_erp = 0.2;
  p.slop = 0.0;
  p.cfm = 0.0;
  p.max_correct_vel = INFINITY;
  return p;
}

dyn_err dyn_contact_params_validate(const dyn_contact_params *p, char *msg, size_t cap) {
  if (!p) {
    dyn_msgf(msg, cap, "contact params: NULL");
    return DYN_ERR_INPUT;
  }
  if (p->friction < DYN_FRICTION_NONE || p->friction > DYN_FRICTION_CONE) {
    dyn_msgf(msg, cap, "contact params: friction=%d is not a dyn_friction", (int)p->friction);
    return DYN_ERR_INPUT;
  }
  if (!(p->mu >= 0.0) || !isfinite(p->mu)) {
    dyn_msgf(msg, cap, "contact params: mu=%g must be finite and >= 0", p->mu);
    return DYN_ERR_INPUT;
  }
  /* eta >= 3: three unit vectors at 120 degrees are the fewest whose
   * non-negative combinations cover the tangent plane */
  if (p->torsion != 0 && !(p->torsion == 1 && p->friction == DYN_FRICTION_BOX)) {
    dyn_msgf(msg, cap, "contact params: torsion=%d must be 0, or 1 with box friction", p->torsion);
    return DYN_ERR_INPUT;
  }
  if (p->rolling != 0 && !(p->rolling == 1 && p->torsion == 1)) {
    dyn_msgf(msg, cap, "contact params: rolling=%d must be 0, or 1 with torsion=1 (box friction)",
             p->rolling);
    return DYN_ERR_INPUT;
  }
  if (p->friction == DYN_FRICTION_PYRAMID && (p->eta < 3 || p->eta > 1024)) {
    dyn_msgf(msg, cap, "contact params: eta=%d must be in [3, 1024]", p->eta);
    return DYN_ERR_INPUT;
  }
  if (!(p->restitution >= 0.0 && p->restitution <= 1.0)) {
    dyn_msgf(msg, cap, "contact params: restitution=%g must be in [0, 1]", p->restitution);
    return DYN_ERR_INPUT;
  }
  if (!(p->rest_threshold >= 0.0) || !isfinite(p->rest_threshold)) {
    dyn_msgf(msg, cap, "contact params: rest_threshold=%g must be finite and >= 0",
             p->rest_threshold);
    return DYN_ERR_INPUT;
  }
  if (!(p->k_erp >= 0.0 && p->k_erp <= 1.0)) {
    dyn_msgf(msg, cap, "contact params: k_erp=%g must be in [0, 1]", p->k_erp);
    return DYN_ERR_INPUT;
  }
  if (!(p->slop >= 0.0) || !isfinite(p->slop)) {
    dyn_msgf(msg, cap, "contact params: slop=%g must be finite and >= 0", p->slop);
    return DYN_ERR_INPUT;
  }
  if (!(p->cfm >= 0.0) || !isfinite(p->cfm)) {
    dyn_msgf(msg, cap, "contact params: cfm=%g must be finite and >= 0", p->cfm);
    return DYN_ERR_INPUT;
  }
  if (!(p->max_correct_vel > 0.0)) {
    dyn_msgf(msg, cap, "contact params: max_correct_vel=%g must be > 0", p->max_correct_vel);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

int dyn_friction_max_condim(int f) {
  switch (f) {
  case DYN_FRICTION_NONE:
  case DYN_FRICTION_BOX: return 6;
  case DYN_FRICTION_PYRAMID:
  case DYN_FRICTION_CONE: return 3;
  }
  return 0;
}

int dyn_contact_max_rows(const dyn_contact_params *p) {
  if (dyn_contact_params_validate(p, NULL, 0) != DYN_OK) return 0;
  switch (p->friction) {
  case DYN_FRICTION_NONE: return 1;
  case DYN_FRICTION_BOX: return 3 + p->torsion + 2 * p->rolling;
  case DYN_FRICTION_CONE: return 3;
  case DYN_FRICTION_PYRAMID: return p->eta + 2;
  }
  return 0;
}

/* dyn_contact_basis, inlined into the rows' fill (a call through the
 * library's PLT from it otherwise). */
static inline void contact_basis(dyn_v3 n, dyn_v3 *t1, dyn_v3 *t2) {
  double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
  dyn_v3 e;
  if (ax <= ay && ax <= az)
    e = dyn_v3_make(1.0, 0.0, 0.0);
  else if (ay <= az)
    e = dyn_v3_make(0.0, 1.0, 0.0);
  else
    e = dyn_v3_make(0.0, 0.0, 1.0);
  dyn_v3 a = dyn_v3_normalize(dyn_v3_cross(e, n));
  *t1 = a;
  *t2 = dyn_v3_cross(n, a);
}

void dyn_contact_basis(dyn_v3 n, dyn_v3 *t1, dyn_v3 *t2) { contact_basis(n, t1, t2); }

/* One row along direction e: J_a = (-e, -(r_a x e)), J_b = (e, r_b x e);
 * a side whose body is static (index -1) has J = 0.  Every field is
 * written (rhs, cfm, mu 0; bounds 0..inf): a plain contact row. */
__attribute__((always_inline)) static inline void put_row(dyn_rows *r, int ia, int ib,
                                                          const dyn_v3 *pe, const dyn_v3 *ra,
                                                          const dyn_v3 *rb, int base) {
  const dyn_v3 e = *pe;
  r->body[0] = ia;
  r->body[1] = ib;
  if (ia >= 0) {
    dyn_v3 ang = dyn_v3_cross(*ra, e);
    r->J[0][0] = -e.x;
    r->J[0][1] = -e.y;
    r->J[0][2] = -e.z;
    r->J[0][3] = -ang.x;
    r->J[0][4] = -ang.y;
    r->J[0][5] = -ang.z;
  } else {
    for (int c = 0; c < 6; c++) r->J[0][c] = 0.0;
  }
  if (ib >= 0) {
    dyn_v3 ang = dyn_v3_cross(*rb, e);
    r->J[1][0] = e.x;
    r->J[1][1] = e.y;
    r->J[1][2] = e.z;
    r->J[1][3] = ang.x;
    r->J[1][4] = ang.y;
    r->J[1][5] = ang.z;
  } else {
    for (int c = 0; c < 6; c++) r->J[1][c] = 0.0;
  }
  r->rhs = 0.0;
  r->cfm = 0.0;
  r->lo = 0.0;
  r->hi = INFINITY;
  r->findex = -1;
  r->mu = 0.0;
  r->kind = DYN_ROW_PLAIN;
  r->aux_first = 0;
  r->aux_count = 0;
  r->base = base;
}

/* A row of relative angular velocity about the unit axis n (the header's
 * s about the normal, r1 and r2 about the tangents): J_a = (0, -n), J_b =
 * (0, n), a static side 0; rhs 0, bounds through findex -> row 0 at mu_t
 * (mu_torsion or mu_rolling). */
static void put_spin_row(dyn_rows *r, int ia, int ib, dyn_v3 n, const dyn_contact_params *prm,
                         double mu_t, int base) {
  memset(r, 0, sizeof *r);
  r->body[0] = ia;
  r->body[1] = ib;
  const double nv[3] = { n.x, n.y, n.z };
  for (int c = 0; c < 3; c++) {
    r->J[0][3 + c] = ia >= 0 ? -nv[c] : 0.0;
    r->J[1][3 + c] = ib >= 0 ? nv[c] : 0.0;
  }
  r->cfm = prm->cfm;
  r->lo = -INFINITY;
  r->hi = INFINITY;
  r->findex = 0;
  r->mu = mu_t;
  r->kind = DYN_ROW_PLAIN;
  r->base = base;
}

/* The normal row's rhs of a speculative contact (gap g = -depth > 0): the
 * bodies may close the gap within the step but not pass it, J u+ >= -g / h.
 * When the approach closes the gap within this step (-v_n h >= g), is
 * faster than the threshold and e_r > 0, restitution holds as at impact:
 * J u+ >= e_r (-v_n).  Otherwise the bounce would depend on whether the
 * step before impact happened to end inside the margin. */
static double speculative_rhs(const dyn_contact_params *prm, double er, double depth, double vn,
                              double h) {
  double rhs = depth / h;
  if (er > 0.0 && -vn > prm->rest_threshold && -vn * h >= -depth) rhs = fmax(rhs, -er * vn);
  return rhs;
}

/* The rows of contact c with its own friction mu and restitution er (the
 * world's contacts carry their pair's material; dyn_contact_fill gives
 * the parameters'). */
int dyn_contact_fill_material(dyn_bodies bodies, int nb, const dyn_contact *c,
                              const dyn_contact_params *prm, double h, dyn_rows *out, int row0) {
  if (dyn_contact_params_validate(prm, NULL, 0) != DYN_OK || !out || row0 < 0) return DYN_ERR_INPUT;
  return dyn_contact_fill_checked(bodies, nb, c, prm, h, out + row0, row0);
}

int dyn_contact_fill_checked(dyn_bodies bodies, int nb, const dyn_contact *c,
                             const dyn_contact_params *prm, double h, dyn_rows *o, int row0) {
  if (!bodies.c || !bodies.s || !c || !o || row0 < 0) return DYN_ERR_INPUT;
  const double mu = c->mu, er = c->restitution;
  if (!(mu >= 0.0 && mu <= DBL_MAX) || !(er >= 0.0 && er <= 1.0)) return DYN_ERR_INPUT;
  if (!(h > 0.0) || !isfinite(h)) return DYN_ERR_INPUT;
  if (c->a < 0 || c->a >= nb || c->b < 0 || c->b >= nb || c->a == c->b) return DYN_ERR_INPUT;
  dyn_v3 n = c->normal;
  /* a unit normal to 1e-6: the rows' scale (and mu's meaning) depend on
   * it.  Written as !(.. <= 1e-6), the test also rejects a normal with an
   * infinite or NaN component (its norm is infinite or NaN), as the
   * separate finiteness test of n did. */
  if (!(fabs(dyn_v3_norm(n) - 1.0) <= 1e-6) || !dyn_ai_v3_finite(c->p) || !isfinite(c->depth))
    return DYN_ERR_INPUT;
  const dyn_body_state *A = &bodies.s[c->a], *B = &bodies.s[c->b];
  const dyn_body_const *Ac = &bodies.c[c->a], *Bc = &bodies.c[c->b];
  if (Ac->is_static && Bc->is_static)
    return DYN_ERR_INPUT; /* nothing can move: every row would be J = 0 */
  int ia = Ac->is_static ? -1 : c->a, ib = Bc->is_static ? -1 : c->b;
  dyn_v3 ra = dyn_v3_sub(c->p, A->r), rb = dyn_v3_sub(c->p, B->r);

  /* pre-step relative velocity of b w.r.t. a at p (static bodies do not move) */
  dyn_v3 va = dyn_v3_make(0.0, 0.0, 0.0), vb = va;
  if (ia >= 0) va = dyn_v3_add(A->v, dyn_v3_cross(A->w, ra));
  if (ib >= 0) vb = dyn_v3_add(B->v, dyn_v3_cross(B->w, rb));
  double vn = dyn_v3_dot(n, dyn_v3_sub(vb, va));

  double rhs;
  if (c->depth >= 0.0) {
    /* Baumgarte: k_cor (d - slop)^+ with k_cor = k_erp / h, capped */
    /* fmax and fmin as comparisons, the operands here never NaN (depth,
     * slop and h finite, max_correct_vel > 0): fmax(x, y) is x > y ? x : y
     * then, y on a tie, and fmin(x, y) x < y ? x : y */
    double over = c->depth - prm->slop;
    double pos = prm->k_erp * (0.0 > over ? 0.0 : over) / h;
    pos = pos < prm->max_correct_vel ? pos : prm->max_correct_vel;
    /* Newton's restitution on the approach speed -v_n */
    double rest = (-vn > prm->rest_threshold) ? -er * vn : 0.0;
    rhs = pos > rest ? pos : rest;
  } else {
    rhs = speculative_rhs(prm, er, c->depth, vn, h);
  }
  if (!isfinite(rhs)) return DYN_ERR_INPUT;

  put_row(&o[0], ia, ib, &n, &ra, &rb, row0);
  o[0].rhs = rhs;
  o[0].cfm = prm->cfm;
  if (prm->friction == DYN_FRICTION_NONE) return 1;

  dyn_v3 t1, t2;
  contact_basis(n, &t1, &t2);
  if (prm->friction == DYN_FRICTION_BOX || prm->friction == DYN_FRICTION_CONE) {
    put_row(&o[1], ia, ib, &t1, &ra, &rb, row0);
    put_row(&o[2], ia, ib, &t2, &ra, &rb, row0);
    for (int k = 1; k <= 2; k++) {
      o[k].cfm = prm->cfm;
      o[k].lo = -INFINITY;
      o[k].hi = INFINITY;
    }
    if (prm->friction == DYN_FRICTION_BOX) {
      /* -mu x_n <= x_t <= mu x_n through findex */
      for (int k = 1; k <= 2; k++) {
        o[k].findex = 0;
        o[k].mu = mu;
      }
      if (prm->torsion) {
        if (!(c->mu_torsion >= 0.0 && c->mu_torsion <= DBL_MAX)) return DYN_ERR_INPUT;
        put_spin_row(&o[3], ia, ib, n, prm, c->mu_torsion, row0);
        if (!prm->rolling) return 4;
        if (!(c->mu_rolling >= 0.0 && c->mu_rolling <= DBL_MAX)) return DYN_ERR_INPUT;
        put_spin_row(&o[4], ia, ib, t1, prm, c->mu_rolling, row0);
        put_spin_row(&o[5], ia, ib, t2, prm, c->mu_rolling, row0);
        return 6;
      }
    } else {
      o[0].kind = DYN_ROW_CONE_N;
      o[0].mu = mu;
      o[1].kind = DYN_ROW_CONE_T;
      o[2].kind = DYN_ROW_CONE_T;
    }
    return 3;
  }

  /* pyramid: eta directions d_h at angles 2 pi (h-1) / eta from t1 */
  int eta = prm->eta;
  const double two_pi = 6.283185307179586476925286766559;
  for (int k = 1; k <= eta; k++) {
    double th = two_pi * (double)(k - 1) / (double)eta;
    dyn_v3 d = dyn_v3_add(dyn_v3_scale(t1, cos(th)), dyn_v3_scale(t2, sin(th)));
    put_row(&o[k], ia, ib, &d, &ra, &rb, row0);
    o[k].cfm = prm->cfm;
  }
  /* auxiliary lambda: no body, the couplings are added by dyn_assemble */
  dyn_rows *x = &o[eta + 1];
  memset(x, 0, sizeof *x);
  x->body[0] = -1;
  x->body[1] = -1;
  x->lo = 0.0;
  x->hi = INFINITY;
  x->findex = 0;
  x->mu = mu;
  x->kind = DYN_ROW_AUX;
  x->aux_first = 1;
  x->aux_count = eta;
  x->base = row0;
  return eta + 2;
}

int dyn_contact_fill(dyn_bodies bodies, int nb, const dyn_contact *c, const dyn_contact_params *prm,
                     double h, dyn_rows *out, int row0) {
  if (!c || dyn_contact_params_validate(prm, NULL, 0) != DYN_OK) return DYN_ERR_INPUT;
  dyn_contact with = *c; /* the parameters' material */
  with.mu = prm->mu;
  with.restitution = prm->restitution;
  return dyn_contact_fill_material(bodies, nb, &with, prm, h, out, row0);
}
