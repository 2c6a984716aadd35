/* metrics.c -- ContactBench's physical criteria for a contact solution
 * [lelidec2024], part of the library's measures (slv_residuals.contact,
 * filled by slv_residual for every solve; docs/problem.md, "Residuals",
 * "Contact metrics").
 *
 * Per cone c (rows c, c+1, c+2: normal n, tangents t1, t2), with the
 * impulse l = x_c, the velocity v = w_c = (A x + b)_c, the friction cone
 * K = K_mu = { |l_t| <= mu l_n }, its dual K* = K_{1/mu} = { mu |v_t| <= v_n }
 * and De Saxce's velocity v^ = v + (mu |v_t|, 0, 0) [desaxce1991]:
 *
 *   signorini    |l_n v_n|                 the normal impulse and the normal
 *                                          velocity are complementary
 *   conic_compl  |l . v|                   the complementarity of the
 *                                          associated (CCP) problem
 *   ncp_compl    |l . v^|                  Coulomb's law in De Saxce's form:
 *                                          K ∋ l ⊥ v^ ∈ K*
 *   dual_feas    ||v^ - P_K*(v^)||_inf      v^ in K*
 *   primal_feas  ||l - P_K(l)||_inf         l in K
 *   mdp_gap      |l_t . v_t + mu l_n |v_t||  maximum dissipation: of the
 *                                          friction impulses in the cone,
 *                                          l_t dissipates the most power,
 *                                          -l_t . v_t = mu l_n |v_t|
 *
 * and each reported number is the largest over the cones (ContactBench
 * takes the inf-norm over contacts too).  Since l . v^ = l_n v_n + (l_t . v_t
 * + mu l_n |v_t|), ncp_compl <= signorini + mdp_gap; for l in K the gap is
 * >= 0 (Cauchy-Schwarz).  The definitions are those of ContactBench's
 * ContactProblem / IceCreamCone and of its benchmark scripts, rewritten for
 * lcplab's normal-first order (ContactBench stores the normal last).
 */
#include "slv_internal.h"

slv_contact_metrics slv_contact_metrics_nan(void) {
  slv_contact_metrics m = { NAN, NAN, NAN, NAN, NAN, NAN };
  return m;
}

slv_contact_metrics slv_contact_metrics_zero(void) {
  slv_contact_metrics m = { 0, 0, 0, 0, 0, 0 };
  return m;
}

/* max that keeps a NaN once it is there (an overflowed product of finite
 * x and w, Inf - Inf, must not read as 0) */
static inline double max_nan(double m, double v) { return (v > m || isnan(v)) ? v : m; }

/* Projection of v (n, t1, t2) onto K* = { mu |v_t| <= v_n }: K_{1/mu}
 * written without dividing by mu, so mu = 0 (K* the half-space v_n >= 0)
 * needs no special case.  Inside: v.  In the polar cone -K = { |v_t| <=
 * -mu v_n }: 0.  Else the nearest boundary point, where |t| = (mu n + s) /
 * (1 + mu^2) and the normal is mu times that, in the direction of v_t. */
static void project_dual(double mu, const double *v, double *out) {
  double n = v[0], s = sqrt(v[1] * v[1] + v[2] * v[2]); /* not hypot: as in slv_cone_project */
  if (mu * s <= n) {
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
  } else if (s <= -mu * n) {
    out[0] = out[1] = out[2] = 0.0;
  } else {
    double r = (mu * n + s) / (1.0 + mu * mu), k = s > 0 ? r / s : 0.0;
    out[0] = mu * r;
    out[1] = k * v[1];
    out[2] = k * v[2];
  }
}

static double dist_inf(const double *a, const double *b) {
  return fmax(fabs(a[0] - b[0]), fmax(fabs(a[1] - b[1]), fabs(a[2] - b[2])));
}

/* m's maxima and o's, field by field (NaN kept): the metrics of two sets of
 * contacts together. */
void slv_contact_metrics_merge(slv_contact_metrics *m, const slv_contact_metrics *o) {
  m->signorini = max_nan(m->signorini, o->signorini);
  m->conic_compl = max_nan(m->conic_compl, o->conic_compl);
  m->ncp_compl = max_nan(m->ncp_compl, o->ncp_compl);
  m->dual_feas = max_nan(m->dual_feas, o->dual_feas);
  m->primal_feas = max_nan(m->primal_feas, o->primal_feas);
  m->mdp_gap = max_nan(m->mdp_gap, o->mdp_gap);
}

void slv_contact_metrics_add(slv_contact_metrics *m, double mu, const double *l, const double *v) {
  double vt = sqrt(v[1] * v[1] + v[2] * v[2]);
  double vh[3] = { v[0] + slv_desaxce_shift(mu, v[1], v[2]), v[1], v[2] }; /* De Saxce's v^ */
  double lt_vt = l[1] * v[1] + l[2] * v[2], p[3];
  m->signorini = max_nan(m->signorini, fabs(l[0] * v[0]));
  m->conic_compl = max_nan(m->conic_compl, fabs(l[0] * v[0] + lt_vt));
  m->ncp_compl = max_nan(m->ncp_compl, fabs(l[0] * vh[0] + lt_vt));
  project_dual(mu, vh, p);
  m->dual_feas = max_nan(m->dual_feas, dist_inf(vh, p));
  slv_cone_project(mu, l, p);
  m->primal_feas = max_nan(m->primal_feas, dist_inf(l, p));
  m->mdp_gap = max_nan(m->mdp_gap, fabs(lt_vt + mu * l[0] * vt));
}
