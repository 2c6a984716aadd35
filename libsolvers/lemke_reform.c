/* lemke_reform.c -- boxed, free and friction rows as one LCP for lemke
 * (docs/solvers.md, "Lexicographic Lemke", "Boxed and free rows" and
 * "Friction rows").
 *
 * Each row i of the boxed problem becomes one or two LCP variables:
 *   lo finite, hi = +inf:  x_i = lo_i + u_i,  mu_i = w_i        (u_i >= 0)
 *   lo = -inf, hi finite:  x_i = hi_i - u_i,  mu_i = -w_i
 *   both finite:           x_i = lo_i + u_i,  mu_i = w_i + v_i, and an extra
 *                          pair s_i = (hi_i - lo_i) - u_i >= 0 _|_ v_i >= 0
 *                          (v_i is the multiplier of the upper bound:
 *                          w_i = mu_i - v_i <= 0 when x_i = hi_i);
 *   free (-inf, +inf):     x_i = u_i - u'_i, mu_i = w_i, and an extra pair
 *                          -w_i >= 0 _|_ u'_i >= 0 (so w_i = 0 when either
 *                          part is positive).
 * In block form, with sigma_i = +-1, o the shift (lo, hi or 0) and the
 * extras last:  [mu; s; mu'] = M [u; v; u'] + q,
 *     M = [[ G A G, J, -G A E ], [ -J^T, 0, 0 ], [ -E^T A G, 0, E^T A E ]],
 *     q = [ G (A o + b); hi - lo; -E^T (A o + b) ],
 * G = diag(sigma), J / E the unit columns of the box / free rows.  M is
 * positive semidefinite whenever A is (the box blocks are skew), so Lemke
 * processes it.  M is never formed: the entries that come from A are read
 * through sign and index maps (LCP row / variable t reads row / column
 * ao[t] of A with sign af[t]); the others (the +-1 of the box pairs, and
 * of the friction rows below) form a small sparse matrix E, kept by rows
 * and by columns.  The covering entry of an extra row is that of its
 * original row.  A problem with every lo = 0 and hi = +inf and no findex
 * rows is solved directly (M = A, q = b): it pays nothing for any of this.
 *
 * ---- findex friction rows: the friction LCP --------------------------------
 * A friction row i with normal row j = findex[i] has the bounds
 * -h .. h, h = mu_i |x_j|.  Its normal row must be an LCP row (lo_j = 0,
 * hi_j = +inf, so x_j >= 0 and h = mu_i x_j); any other normal row is
 * refused (SLV_ERR_UNSUPPORTED: the bounds would not be linear in the LCP
 * variables).  Split x_i = p_i - m_i (p_i, m_i >= 0) and add lambda_i >= 0:
 *     p_i      >= 0  _|_  lambda_i + w_i          >= 0
 *     m_i      >= 0  _|_  lambda_i - w_i          >= 0
 *     lambda_i >= 0  _|_  mu_i x_j - p_i - m_i    >= 0
 * with w_i = A(i,:) x + b_i, x_i = p_i - m_i (p_i is the main variable of
 * row i, m_i reads A like the u'_i of a free row, lambda_i reads no A).
 * A solution gives the box conditions at the final bounds.  Let
 * s = h - p_i - m_i >= 0, so |x_i| <= p_i + m_i <= h: x_i is in the box.
 *   lambda_i = 0:  w_i >= 0 and -w_i >= 0, so w_i = 0: right anywhere in
 *                  the box.
 *   lambda_i > 0:  s = 0, p_i + m_i = h.  p_i, m_i > 0 together would give
 *                  lambda_i = -w_i = w_i, i.e. lambda_i = 0: so at most one
 *                  is positive.  p_i = h > 0: x_i = h, w_i = -lambda_i < 0
 *                  (at hi, w <= 0: right).  m_i = h > 0: x_i = -h,
 *                  w_i = lambda_i > 0 (at lo, w >= 0: right).  p_i = m_i =
 *                  0: h = 0 and x_i = 0 = lo = hi, where any w_i is right.
 *   x_j = 0 (a separating contact): h = 0 forces p_i = m_i = 0, x_i = 0.
 * Conversely a solution x of the findex problem lifts to one of this LCP:
 * p_i = max(x_i, 0), m_i = max(-x_i, 0), lambda_i = |w_i|.  p_i > 0 means
 * x_i > -h, so w_i <= 0 and lambda_i + w_i = 0; m_i > 0 likewise gives
 * lambda_i - w_i = 0; lambda_i > 0 means w_i != 0, so x_i is at a bound:
 * p_i + m_i = |x_i| = h and s = 0 (h = 0 included).  So the LCP's
 * solutions are exactly the findex problem's, and Lemke's method solves
 * it exactly, where bound-freezing methods (ODE's dLCP) do not and
 * dantzig's outer passes may stagnate.
 * The LCP rows of row i: q = r_i, -r_i (r = A o + b) and 0; the entries of
 * E: M(p_i, lambda_i) = M(m_i, lambda_i) = 1, M(lambda_i, p_i) =
 * M(lambda_i, m_i) = -1, M(lambda_i, x_j) = mu_i.  The +-1 pairs are skew,
 * so z^T M z = y^T A y + sum_i mu_i lambda_i x_j >= 0 on z >= 0 (y = x - o,
 * the unshifted x): M is
 * copositive when A is positive semidefinite, but not copositive-plus
 * (z = e_lambda gives z^T M z = 0 with (M + M^T) z = mu_i e_j != 0).
 * Lemke may then end on a secondary ray even when the problem has a
 * solution; that is reported as SLV_RAY_TERMINATION, and the message says
 * the ray proves nothing.  On the peers' contact-box instances (rank
 * ~n/2 plus a 1e-6 cfm) no ray has been met
 * (experiments/records/2026-11-26-solvers.md).
 * Sizes: N = n + #box + #free + 2 #friction < 3n.
 */
#include "lemke.h"

#include <cblas.h>
#include <string.h>

/* ---- set-up: covering vector, reformulation -------------------------------- */

static int is_friction(const slv_problem *p, int i) { return p->findex && p->findex[i] >= 0; }

/* One entry M(r, c) += v of E, as a triplet. */
static void e_add(lemke_state *s, int *ne, int r, int c, double v) {
  s->ti[*ne] = r;
  s->tj[*ne] = c;
  s->tv[*ne] = v;
  (*ne)++;
}

/* Sort the ne triplets of E into rows (erp, erj, erv) and columns (ecp,
 * eci, ecv), counting sort, O(N + ne). */
static void e_sort(lemke_state *s, int N, int ne) {
  int *rp = s->erp, *cp = s->ecp;
  memset(rp, 0, (size_t)(N + 1) * sizeof *rp);
  memset(cp, 0, (size_t)(N + 1) * sizeof *cp);
  for (int e = 0; e < ne; e++) {
    rp[s->ti[e] + 1]++;
    cp[s->tj[e] + 1]++;
  }
  for (int t = 0; t < N; t++) {
    rp[t + 1] += rp[t];
    cp[t + 1] += cp[t];
  }
  /* fill with rp[t] / cp[t] as cursors, then shift them back to the starts */
  for (int e = 0; e < ne; e++) {
    int a = rp[s->ti[e]]++, b = cp[s->tj[e]]++;
    s->erj[a] = s->tj[e];
    s->erv[a] = s->tv[e];
    s->eci[b] = s->ti[e];
    s->ecv[b] = s->tv[e];
  }
  for (int t = N; t > 0; t--) {
    rp[t] = rp[t - 1];
    cp[t] = cp[t - 1];
  }
  rp[0] = cp[0] = 0;
}

/* SLV_OK if the covering vector (if any) is finite and > 0, else
 * SLV_ERR_INVALID with the message. */
static slv_status check_covering(const double *cov, int n, slv_result *res) {
  for (int i = 0; cov && i < n; i++)
    if (!(cov[i] > 0) || !isfinite(cov[i])) {
      slv_msgf(res->message, sizeof res->message,
               "lemke: covering vector d[%d]=%g must be finite and > 0", i, cov[i]);
      return SLV_ERR_INVALID;
    }
  return SLV_OK;
}

/* Whether p has friction rows (*friction), each with an LCP normal row
 * (lo = 0, hi = +inf): SLV_OK, else SLV_ERR_UNSUPPORTED with the message. */
static slv_status check_friction(const slv_problem *p, int *friction, slv_result *res) {
  *friction = 0;
  for (int i = 0; p->findex && i < p->n; i++) {
    if (p->findex[i] < 0) continue;
    int j = p->findex[i];
    double lj = slv_lo_of(p, j), hj = slv_hi_of(p, j);
    if (lj != 0.0 || hj != INFINITY) {
      slv_msgf(res->message, sizeof res->message,
               "lemke: friction row %d has normal row %d with lo=%g, hi=%g; the friction LCP "
               "reformulation needs lo=0, hi=inf there",
               i, j, lj, hj);
      return SLV_ERR_UNSUPPORTED;
    }
    *friction = 1;
  }
  return SLV_OK;
}

/* The default covering vector of a plain LCP whose start is tied.
 *
 * With d = 1, z0's start max_i(-q_i) ties every row where q is most
 * negative, and those mu_i all stay at 0 while the path turns among bases
 * at that one point (theta = 0, z0 fixed): when q = -1 everywhere, the
 * whole LCP is solved by the tie-breaking rule alone (the path from the
 * start is x = (z0_start - z0) x*, x* the solution).  The lexicographic
 * rule resolves the ties as if q were q + (eps, eps^2, ...), a perturbation
 * of hierarchic scales like those of the exponential examples of Lemke's
 * method [murty1988 ch. 6]: on Fathi's matrix M = U^T U (U unit upper
 * triangular, 2 above the diagonal) with q = -1 the exact lexicographic
 * path is exponentially long, without cycling (test_lemke.c,
 * test_fathi).  Any d > 0 keeps Lemke's guarantees (a P-matrix's path ends
 * at the solution, a copositive-plus matrix's ray proves infeasibility:
 * cottle1992 ch. 4), so when the start is tied the tied rows get
 * d_i = 1 - i / (2 n) instead,
 * a perturbation of one scale that splits their ratios -q_i / d_i in the
 * lexicographic rule's order (the largest index first, as before) and
 * leaves every other row's d_i = 1: the start is the same row, and the
 * lexicographic rule is left only the ties the problem itself makes
 * later.  A start that does not tie keeps d = 1 and its path.  Writes d
 * into dv; returns 1 iff it split a tied start.  The split is tried
 * first, not alone: on three stacked copies of lcp_tobenna (exact ties
 * later in the path too) its path ran to the pivot limit with the BLAS
 * kernels of an AVX2 CPU where d = 1 converges (test_lemke.c,
 * test_crash_siconos_stacked), so lemke.c runs d = 1 after it
 * (lemke_solve). */
static int default_covering(const double *q, int n, double *dv) {
  double best = 0;
  int tied = 0;
  for (int i = 0; i < n; i++) best = fmax(best, -q[i]);
  for (int i = 0; i < n; i++) {
    int t = best > 0 && -q[i] >= best * (1 - LEMKE_TIE_REL);
    tied += t;
    dv[i] = t ? 1.0 - 0.5 * i / n : 1.0;
  }
  if (tied < 2)
    for (int i = 0; i < n; i++) dv[i] = 1.0;
  return tied >= 2;
}

/* The plain LCP (M = A, q = b): a mostly-zero A (contact) is read through
 * the operator's packed nonzeros; a dense one through a compact copy of
 * the core columns, kept in H's buffer behind the k x k inverse
 * (N^2 + N^2 <= N_max^2). */
static void setup_plain(lemke_state *s, slv_op *op, const double *cov, lcp_view *L) {
  int n = op->n;
  L->N = n;
  if (slv_lemke_packed_columns(op, L)) {
    L->kind = VIEW_PACKED;
  } else {
    L->kind = VIEW_DENSE;
    L->C = s->H + (size_t)n * n;
  }
  L->q = op->p->b;
  if (cov) {
    L->d = cov;
  } else {
    L->split = default_covering(L->q, n, s->dv);
    L->d = s->dv;
  }
}

/* General bounds: x_i = o_i + sg_i u_i (- u'_i), extras after the n mains;
 * a friction row is x_i = p_i - m_i (o = 0, sg = 1, m_i = the first extra)
 * with lambda_i the second.  Returns N, the LCP's size. */
static int setup_maps(lemke_state *s, const slv_problem *p) {
  int n = p->n, m = 0;
  for (int i = 0; i < n; i++) {
    s->xtra[i] = -1;
    s->mrow[i] = -1;
    s->ao[i] = i;
    if (is_friction(p, i)) {
      s->o[i] = 0;
      s->sg[i] = 1;
      s->af[i] = 1;
      s->xtra[i] = n + m;
      m += 2;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    int flo = lo > -INFINITY, fhi = hi < INFINITY;
    s->o[i] = flo ? lo : (fhi ? hi : 0.0);
    s->sg[i] = !flo && fhi ? -1 : 1;
    s->af[i] = s->sg[i];
    if (flo == fhi) s->xtra[i] = n + m++; /* box (both finite) or free (neither) */
  }
  return n + m;
}

/* The extra LCP rows of row i (its first extra e), given r = A o + b; the
 * entries of E as triplets (ne). */
/* The extra rows in x's units (a bound's gap, a friction cone's slack) are
 * scaled by a = |A_ii| and their multipliers (v_i, lambda_i) by 1 / a, so
 * that every row of the reformulated LCP is in its row's w units and the
 * box blocks stay skew: the path's thresholds, relative to ||q||_inf, then
 * mean the same whatever the problem's scale (docs/convergence.md). */
static double extra_scale(const slv_problem *p, int i) {
  double a = fabs(slv_diag(p, i));
  return a > 0 && isfinite(a) ? a : 1.0;
}

static void setup_extras(lemke_state *s, const slv_problem *p, int i, const double *r, int *ne) {
  int e = s->xtra[i];
  double a = extra_scale(p, i);
  s->dv[e] = s->dv[i];
  if (is_friction(p, i)) {
    /* p_i _|_ lambda_i + w_i,  m_i _|_ lambda_i - w_i,
     * lambda_i _|_ mu_i x_j - p_i - m_i  (x_j = u_j: o_j = 0) */
    int l = e + 1, j = p->findex[i];
    s->ao[e] = i;
    s->af[e] = -1;
    s->qv[e] = -r[i];
    s->mrow[i] = e;
    s->ao[l] = -1;
    s->af[l] = 0;
    s->qv[l] = 0;
    s->dv[l] = s->dv[i];
    e_add(s, ne, i, l, a);
    e_add(s, ne, e, l, a);
    e_add(s, ne, l, j, a * p->mu[i]);
    e_add(s, ne, l, i, -a);
    e_add(s, ne, l, e, -a);
  } else if (slv_lo_of(p, i) > -INFINITY) {
    /* box: s = (hi - lo) - u_i  _|_  v_i;  mu_i = w_i + v_i */
    s->ao[e] = -1;
    s->af[e] = 0;
    s->qv[e] = a * (slv_hi_of(p, i) - slv_lo_of(p, i));
    e_add(s, ne, i, e, a);
    e_add(s, ne, e, i, -a);
  } else {
    /* free: -w_i >= 0  _|_  u'_i, x_i = u_i - u'_i */
    s->ao[e] = i;
    s->af[e] = -1;
    s->qv[e] = -r[i];
    s->mrow[i] = e;
  }
}

/* The reformulated LCP (the header's block form): maps, q, d, E. */
static void setup_general(lemke_state *s, slv_op *op, const double *cov, lcp_view *L) {
  const slv_problem *p = op->p;
  int n = p->n, N = setup_maps(s, p), ne = 0;
  L->N = N;
  /* r = A o + b (the w of x = o) */
  double *r = s->t;
  for (int i = 0; i < n; i++) r[i] = p->b[i];
  for (int j = 0; j < n; j++)
    if (s->o[j] != 0.0) cblas_daxpy(n, s->o[j], op->A + (size_t)j * op->lda, 1, r, 1);
  for (int i = 0; i < n; i++) {
    s->qv[i] = s->sg[i] * r[i];
    s->dv[i] = cov ? cov[i] : 1.0;
    if (s->xtra[i] >= 0) setup_extras(s, p, i, r, &ne);
  }
  e_sort(s, N, ne);
  slv_lemke_packed_columns(op, L);
  L->q = s->qv;
  L->d = s->dv;
  L->ao = s->ao;
  L->af = s->af;
  L->mrow = s->mrow;
  L->erp = s->erp;
  L->erj = s->erj;
  L->erv = s->erv;
  L->ecp = s->ecp;
  L->eci = s->eci;
  L->ecv = s->ecv;
}

/* Fill the view for the operator's problem; returns SLV_OK,
 * SLV_ERR_INVALID (covering) or SLV_ERR_UNSUPPORTED (a friction row whose
 * normal row is not lo = 0, hi = +inf).  A problem with every lo = 0 and
 * hi = +inf and no findex rows is solved as it stands. */
slv_status slv_lemke_setup(lemke_state *s, slv_op *op, const slv_options *opt, lcp_view *L,
                           slv_result *res) {
  const slv_problem *p = op->p;
  int n = p->n, friction;
  slv_status st = check_covering(opt->covering, n, res);
  if (st == SLV_OK) st = check_friction(p, &friction, res);
  if (st != SLV_OK) return st;
  memset(L, 0, sizeof *L);
  L->n = n;
  L->A = op->A;
  L->lda = op->lda;
  L->c = s->c;
  L->an = s->an;
  int plain = !friction;
  for (int i = 0; i < n && plain; i++)
    if (slv_lo_of(p, i) != 0.0 || slv_hi_of(p, i) != INFINITY) plain = 0;
  L->plain = plain;
  L->friction = friction;
  if (plain)
    setup_plain(s, op, opt->covering, L);
  else
    setup_general(s, op, opt->covering, L);
  s->cs_ready = 0; /* slv_lemke_col_scales when a path first needs them */
  return SLV_OK;
}

/* x from the LCP variables z (size N, dense): x_i = o_i + sg_i z_i - z_i'
 * (free rows), p_i - m_i (friction rows), clamped to the box against
 * rounding: friction rows to -mu_i x_j .. mu_i x_j at the final x_j. */
void slv_lemke_unmap(const lemke_state *s, const slv_problem *p, const lcp_view *L, const double *z,
                     double *x) {
  int n = p->n;
  for (int i = 0; i < n; i++) {
    if (!L->plain && is_friction(p, i)) continue;
    double xi;
    if (L->plain) {
      xi = z[i];
    } else {
      xi = s->o[i] + s->sg[i] * z[i];
      int e = s->xtra[i];
      if (e >= 0 && slv_lo_of(p, i) == -INFINITY) xi -= z[e];
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    x[i] = xi < lo ? lo : (xi > hi ? hi : xi);
  }
  if (!L->friction) return;
  for (int i = 0; i < n; i++) {
    if (!is_friction(p, i)) continue;
    double xi = z[i] - z[s->xtra[i]], h = p->mu[i] * fabs(x[p->findex[i]]);
    x[i] = xi < -h ? -h : (xi > h ? h : xi);
  }
}
