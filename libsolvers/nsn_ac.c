/* nsn_ac.c -- nonsmooth (semismooth) Newton on the Alart-Curnier function
 * for the Coulomb friction problem, with a line search on ||Phi||^2 / 2.
 *
 * Problem (slv.h): w = A x + b; cone rows in triples c = (n, t1, t2) with the
 * Coulomb law K ∋ x_c ⊥ w^_c ∈ K*, w^_c = w_c + (mu |w_t|, 0, 0) (De Saxce);
 * other rows are box rows lo <= x_i <= hi_i (free rows lo = -inf, hi = +inf).
 *
 * Alart-Curnier function ([alart1991]; [acary2018] sec. 4.3; Siconos'
 * FC3D_NSN_AC; docs/cone-solvers.md, "Alart-Curnier Newton"), per contact with
 * a scalar rho_c > 0:
 *     a_n = x_n - rho w_n,            Phi_n = x_n - max(0, a_n)
 *     a_t = x_t - rho w_t,  R = mu max(0, a_n),
 *                                     Phi_t = x_t - P_D(R)(a_t)
 * with P_D(R) the projection on the disk of radius R.  Phi_c = 0 holds iff
 * x_c satisfies Coulomb's law with velocity w_c (the same solutions as the
 * De Saxce formulation the library measures).  Box rows:
 *     Phi_i = x_i - mid(lo_i, hi_i, x_i - rho_i w_i).
 * Phi(x) is piecewise smooth in x (w = A x + b); one element of its
 * generalized Jacobian is dPhi/dx = Ar + Bu A, Ar = dPhi/dx|_w and
 * Bu = dPhi/dw|_x block diagonal (3x3 per contact, 1x1 per box row):
 *   normal, a_n > 0:   Phi_n = rho w_n           Bu(n,n) = rho
 *            else:     Phi_n = x_n               Ar(n,n) = 1
 *   stick, R > 0 and |a_t| <= R:  Phi_t = rho w_t     Bu(t,t) = rho I
 *   slide (else), nh = a_t / |a_t|, P = (I - nh nh') / |a_t|:
 *     Phi_t = x_t - R nh
 *     Ar(t,t) = I - R P,  Ar(t,n) = -mu [a_n > 0] nh
 *     Bu(t,t) = R rho P,  Bu(t,n) = mu rho [a_n > 0] nh
 *   (a_t = 0 with R = 0 is a separated contact: Phi_t = x_t, Ar(t,t) = I);
 *   box row strictly inside its bounds: Bu = rho_i, else Ar = 1.
 * rho_c = 1 / (a Gershgorin bound on the largest eigenvalue of the contact's
 * diagonal block A_cc), rho_i = 1 / A_ii; they scale Phi, not its zeros.
 *
 * Iteration: H = Ar + Bu (A + sigma I), factored by LU (dense: LAPACK's
 * dgetrf, a dense system of linsys.h; sparse: KLU or UMFPACK; partial
 * pivoting, H is not symmetric),
 * d = -H^-1 Phi.  sigma (per row sigma_i = tau / rho_i, tau =
 * min(1e-2, ||Phi||_2)) is a proximal / Levenberg-Marquardt regularisation:
 * Ar + Bu (A + sigma I) is the Jacobian of Phi(x, w + sigma (x - x_k)) at
 * x_k, the AC function of the proximal problem (W + sigma I, q - sigma x_k)
 * of Siconos' FC3D_PROX.  Contact matrices W = H M^-1 H' are singular as
 * soon as the contacts outnumber the bodies' degrees of freedom; on sticking
 * contacts the plain Newton matrix (rows rho W) is then singular, and the
 * plain iteration stagnates on FC3D problems where this one converges
 * (experiments/records/2026-11-26-solvers.md); tau -> 0 with Phi
 * keeps the local superlinear rate.
 * Line search (Armijo on theta = ||Phi||^2 / 2, whose directional
 * derivative along the Newton direction is -2 theta where Phi is
 * differentiable): t = 1, 1/2, ..., 2^-10 until theta(x + t d) <= (1 - 2e-4
 * t) theta(x); w is updated as w + t A d (one product per iteration).  When
 * no t passes, the full step is taken anyway (Siconos' NSN_AC runs without
 * a line search by default, and the AC merit has kinks where Armijo fails
 * although the step is good); after NSN_MAX_NONMONO such steps in a row
 * without a new best residual, the solver stops at SLV_STAGNATED with the
 * best iterate.  A singular H is regularised by 1e-10 * max|H| (then 1e-6)
 * on its diagonal; if that fails too: SLV_BREAKDOWN.
 *
 * Storage (docs/cone-solvers.md, "Alart-Curnier Newton", "Storage of the Newton
 * matrix"; the rule of "Linear systems"): up to NSN_DENSE_MAX =
 * SLV_LS_DENSE_MAX rows, or when A has no packed copy, H is dense.  Rows
 * with Phi_i = x_i, Ar = e_i, Bu = 0 (separated contacts, box rows at a
 * bound) have d_i = -Phi_i and are eliminated before the LU: only
 * the m other rows are factored; cost per iteration: the products over the
 * packed copy of A, O(nnz) (else dgemv, O(n^2)), O(m n) to assemble H_AA
 * from columns of A (slv_op_col), (2/3) m^3 for its LU.  Above, H is sparse
 * on the block pattern of A, analysed once per problem and factored per
 * iteration by KLU (a small LU) or UMFPACK (a large one; nsn_sparse.c),
 * both through linsys.h.  No size limit: the dense H of a workspace with
 * n_max <= NSN_DENSE_MAX is allocated at init, a larger one or the sparse
 * pattern is reserved by slv_nsn_begin, once per problem.
 *
 * Stopping test: the library's (res_rel <= tol, and res_nat_inf <= tol with
 * cones) on the De Saxce natural map, confirmed on w = A x + b recomputed
 * exactly.  Only the Coulomb law (SLV_ERR_UNSUPPORTED for the associated
 * one: use pcg_cone / apgd, whose QP it is) and no findex rows (caps).
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_STAGNATED, SLV_BREAKDOWN,
 * SLV_NOT_FINITE, SLV_ERR_UNSUPPORTED, SLV_TIME_LIMIT, SLV_INTERRUPTED
 * (polled before each Newton iteration: the best iterate).  Reads opt->max_iter (Newton
 * iterations), tol, record_history.
 *
 * The Newton core (slv_nsn_*) is also used by the nsgs_newton hybrid.
 */
#include "slv_internal.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>

enum {
  NSN_HALVINGS = 10,  /* line search: smallest step 2^-10 */
  NSN_MAX_NONMONO = 8 /* full steps without a new best residual before giving up */
};
#define NSN_ARMIJO  1e-4
#define NSN_TAU_MAX 1e-2 /* proximal regularisation: tau = min(NSN_TAU_MAX, ||Phi||_2) */

void slv_nsn_free(slv_nsn *s) {
  slv_nsn_sparse_free(&s->sp);
  slv_linsys_free(s->dense);
  free(s->buf);
  free(s->blk0);
  memset(s, 0, sizeof *s);
}

slv_status slv_nsn_init(slv_nsn *s, int n_max) {
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  memset(s, 0, sizeof *s);
  s->n_max = n_max;
  s->sp.klu_flops = NSN_KLU_FLOPS;
  /* small workspaces never reserve at a solve: the dense system up front
   * when linsys's rule factors n_max rows dense */
  int dense_ok = slv_linsys_choose(SLV_LS_GENERAL, n_max, 1) != SLV_LS_DENSE ||
                 slv_linsys_dense_reserve(&s->dense, n_max) == SLV_LS_OK;
  s->buf = malloc(16 * m * sizeof *s->buf);
  s->blk0 = malloc(4 * m * sizeof *s->blk0);
  if (!dense_ok || !s->buf || !s->blk0) {
    slv_nsn_free(s);
    return SLV_ERR_NOMEM;
  }
  double *q = s->buf;
  s->phi = q;
  s->d = q + m;
  s->Ad = q + 2 * m;
  s->xt = q + 3 * m;
  s->wt = q + 4 * m;
  s->xbest = q + 5 * m;
  s->wbest = q + 6 * m;
  s->rho = q + 7 * m;
  s->ar = q + 8 * m;  /* 3 per row */
  s->bu = q + 11 * m; /* 3 per row */
  s->bw = s->blk0 + m;
  s->act = s->blk0 + 2 * m;
  s->pos = s->blk0 + 3 * m;
  s->v = q + 15 * m;
  /* q + 14 m: spare row buffer (phi of a trial point) */
  s->phit = q + 14 * m;
  return SLV_OK;
}

/* Row structure (blk0, bw) and the scalings rho, once per solve. */
static void nsn_setup(slv_nsn *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      /* Gershgorin: lambda_max(A_cc) <= max_r sum_c |A_cc(r, c)| */
      double g = 0, W[9];
      slv_op_block3(op, i, W);
      for (int r = 0; r < 3; r++) {
        double sum = 0;
        for (int c = 0; c < 3; c++) sum += fabs(W[r + 3 * c]);
        if (sum > g) g = sum;
      }
      double rho = g > 0 ? 1.0 / g : 1.0;
      for (int r = 0; r < 3; r++) {
        s->blk0[i + r] = i;
        s->bw[i + r] = 3;
        s->rho[i + r] = rho;
      }
      i += 2;
      k++;
      continue;
    }
    double d = slv_op_diag(op, i);
    s->blk0[i] = i;
    s->bw[i] = 1;
    s->rho[i] = d > 0 ? 1.0 / d : 1.0;
  }
}

slv_status slv_nsn_begin(slv_nsn *s, slv_op *op, slv_result *res) {
  int n = op->n;
  slv_op_pack(op);
  nsn_setup(s, op);
  /* linsys's rule (docs/solver-machinery.md, "Linear systems"): sparse above
   * SLV_LS_DENSE_MAX rows with a packed copy; the dense system grows for a
   * larger A without one */
  s->sparse = slv_linsys_choose(SLV_LS_GENERAL, n, op->packed != 0) != SLV_LS_DENSE;
  slv_status st = s->sparse ? slv_nsn_sparse_reserve(s, op)
                  : slv_linsys_dense_reserve(&s->dense, n) == SLV_LS_OK ? SLV_OK
                                                                        : SLV_ERR_NOMEM;
  if (st != SLV_OK)
    slv_msgf(res->message, sizeof res->message, "nsn_ac: no memory for the %s Newton matrix (n=%d)",
             s->sparse ? "sparse" : "dense", n);
  return st;
}

/* Phi at (x, w) into phi; with jac, also the rows of Ar and Bu (3 entries
 * per row over the row's block columns blk0 .. blk0 + bw - 1).  Returns
 * theta = ||Phi||^2 / 2 (NaN if anything is not finite). */
double slv_nsn_phi(const slv_nsn *s, const slv_problem *p, const double *x, const double *w,
                   double *phi, int jac) {
  double th = 0, poison = 0;
  double *ar = s->ar, *bu = s->bu;
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    double rho = s->rho[i];
    if (k < p->ncones && p->cone_rows[k] == i) {
      double mu = p->cone_mu[k];
      double an = x[i] - rho * w[i];
      double at1 = x[i + 1] - rho * w[i + 1], at2 = x[i + 2] - rho * w[i + 2];
      double na = sqrt(at1 * at1 + at2 * at2);
      double R = an > 0 ? mu * an : 0.0;
      if (jac) memset(ar + 3 * i, 0, 9 * sizeof *ar), memset(bu + 3 * i, 0, 9 * sizeof *bu);
      if (an > 0) {
        phi[i] = rho * w[i];
        if (jac) bu[3 * i] = rho;
      } else {
        phi[i] = x[i];
        if (jac) ar[3 * i] = 1;
      }
      if (R > 0 && na <= R) { /* stick */
        phi[i + 1] = rho * w[i + 1];
        phi[i + 2] = rho * w[i + 2];
        if (jac) {
          bu[3 * (i + 1) + 1] = rho;
          bu[3 * (i + 2) + 2] = rho;
        }
      } else if (na > 0) { /* slide (or R = 0 with a_t != 0) */
        double n1 = at1 / na, n2 = at2 / na;
        phi[i + 1] = x[i + 1] - R * n1;
        phi[i + 2] = x[i + 2] - R * n2;
        if (jac) {
          double P11 = (1 - n1 * n1) / na, P12 = -n1 * n2 / na, P22 = (1 - n2 * n2) / na;
          double g = an > 0 ? mu : 0.0;
          double *a1 = ar + 3 * (i + 1), *a2 = ar + 3 * (i + 2);
          double *b1 = bu + 3 * (i + 1), *b2 = bu + 3 * (i + 2);
          a1[0] = -g * n1, a1[1] = 1 - R * P11, a1[2] = -R * P12;
          a2[0] = -g * n2, a2[1] = -R * P12, a2[2] = 1 - R * P22;
          b1[0] = g * rho * n1, b1[1] = R * rho * P11, b1[2] = R * rho * P12;
          b2[0] = g * rho * n2, b2[1] = R * rho * P12, b2[2] = R * rho * P22;
        }
      } else { /* a_t = 0 and R = 0: separated */
        phi[i + 1] = x[i + 1];
        phi[i + 2] = x[i + 2];
        if (jac) {
          ar[3 * (i + 1) + 1] = 1;
          ar[3 * (i + 2) + 2] = 1;
        }
      }
      for (int r = 0; r < 3; r++) {
        th += phi[i + r] * phi[i + r];
        poison += (x[i + r] + w[i + r]) * 0.0;
      }
      i += 2;
      k++;
      continue;
    }
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i), a = x[i] - rho * w[i];
    int inside = a > lo && a < hi;
    phi[i] = inside ? rho * w[i] : x[i] - (a <= lo ? lo : hi);
    if (jac) {
      ar[3 * i] = inside ? 0.0 : 1.0;
      bu[3 * i] = inside ? rho : 0.0;
      ar[3 * i + 1] = ar[3 * i + 2] = bu[3 * i + 1] = bu[3 * i + 2] = 0;
    }
    th += phi[i] * phi[i];
    poison += (x[i] + w[i]) * 0.0;
  }
  return poison == 0.0 && isfinite(th) ? 0.5 * th : NAN;
}

/* Rows whose Newton equation is d_i = -Phi_i: Phi_i = x_i with Ar row e_i
 * and Bu row 0 (separated contacts, box rows at a bound).  Their d is known
 * and they are eliminated: only the m other ("active") rows enter the LU,
 * (2/3) m^3 instead of (2/3) n^3.  Fills act[0..m) and pos (row -> index in
 * act, or -1); returns m. */
static int nsn_active(slv_nsn *s, int n) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    const double *a = s->ar + 3 * i, *u = s->bu + 3 * i;
    int c = i - s->blk0[i], ident = u[0] == 0 && u[1] == 0 && u[2] == 0;
    for (int k = 0; k < s->bw[i] && ident; k++) ident = a[k] == (k == c ? 1.0 : 0.0);
    s->pos[i] = ident ? -1 : m;
    if (!ident) s->act[m++] = i;
  }
  return m;
}

/* The reduced Newton matrix H_AA (m x m, column-major, leading dimension m)
 * of H = Ar + Bu (A + sigma I) (+ delta I), sigma_i = tau / rho_i (the
 * proximal regularisation, see the header): column jb of Bu A reads
 * column act[jb] of A (slv_op_col; s->v is its scratch) on the rows of
 * each active row's block. */
static double *nsn_build_H(slv_nsn *s, slv_op *op, int m, double tau, double delta) {
  double *H = slv_linsys_dense_values(s->dense, m);
  const double *ar = s->ar, *bu = s->bu;
  for (int jb = 0; jb < m; jb++) {
    const double *a = slv_op_col(op, s->act[jb], s->v);
    double *h = H + (size_t)jb * m;
    for (int ib = 0; ib < m; ib++) {
      int i = s->act[ib], b0 = s->blk0[i];
      const double *u = bu + 3 * i;
      h[ib] = s->bw[i] == 3 ? u[0] * a[b0] + u[1] * a[b0 + 1] + u[2] * a[b0 + 2] : u[0] * a[b0];
    }
  }
  for (int ib = 0; ib < m; ib++) {
    int i = s->act[ib], b0 = s->blk0[i];
    double sg = tau / s->rho[i];
    for (int c = 0; c < s->bw[i]; c++) {
      int jb = s->pos[b0 + c];
      if (jb >= 0) H[ib + (size_t)jb * m] += ar[3 * i + c] + sg * bu[3 * i + c];
    }
    H[ib + (size_t)ib * m] += delta;
  }
  return H;
}

/* The Newton direction d: d_i = -Phi_i on the eliminated rows, then
 * H_AA d_A = -Phi_A - H_AS d_S, with H_AS d_S = Bu_A (A d_S) + (Ar + sigma
 * Bu)_AS d_S over the rows' own blocks; H_AA must hold its LU.  v: scratch
 * (A d_S). */
static void nsn_direction(slv_nsn *s, slv_op *op, int m, double tau) {
  int n = op->n;
  for (int i = 0; i < n; i++) s->d[i] = s->pos[i] < 0 ? -s->phi[i] : 0.0;
  if (m < n) slv_op_matvec(op, s->d, NULL, s->v);
  double *r = s->xt; /* reduced right-hand side, m entries */
  for (int ib = 0; ib < m; ib++) {
    int i = s->act[ib], b0 = s->blk0[i];
    const double *u = s->bu + 3 * i, *a = s->ar + 3 * i;
    double t = -s->phi[i], sg = tau / s->rho[i];
    if (m < n)
      for (int c = 0; c < s->bw[i]; c++)
        t -= u[c] * s->v[b0 + c] + (a[c] + sg * u[c]) * s->d[b0 + c];
    r[ib] = t;
  }
  if (m > 0) slv_linsys_solve(s->dense, r);
  for (int ib = 0; ib < m; ib++) s->d[s->act[ib]] = r[ib];
}

/* The Newton direction at the current phi (theta = ||Phi||^2 / 2, Ar and
 * Bu formed): (Ar + Bu (A + sigma I)) d = -Phi on the active rows, with a
 * diagonal shift only when the LU meets a singular pivot; 0, or the LU's
 * info when even the shifted matrix is singular. */
static int nsn_newton_dir_dense(slv_nsn *s, slv_op *op, double tau) {
  int info = 0, m = nsn_active(s, op->n);
  double delta = 0;
  for (int attempt = 0; attempt < 3 && m > 0; attempt++) {
    nsn_build_H(s, op, m, tau, delta);
    slv_ls_status st = slv_linsys_factor_dense(s->dense, SLV_LS_GENERAL, 0.0);
    /* LAPACK's info: the 1-based singular pivot */
    info = st == SLV_LS_OK         ? 0
           : st == SLV_LS_SINGULAR ? slv_linsys_failed_column(s->dense) + 1
                                   : -1;
    if (info == 0) break;
    double hmax = 0;
    const double *H = nsn_build_H(s, op, m, tau, 0.0);
    for (size_t e = 0; e < (size_t)m * m; e++)
      if (fabs(H[e]) > hmax) hmax = fabs(H[e]);
    delta = (attempt == 0 ? 1e-10 : 1e-6) * (hmax > 0 ? hmax : 1.0);
  }
  if (info != 0) return info;
  nsn_direction(s, op, m, tau);
  return 0;
}

/* The same direction from the sparse LU of the whole H (nsn_sparse.c):
 * the eliminated rows are identity rows there. */
static int nsn_newton_dir_sparse(slv_nsn *s, slv_op *op, double tau) {
  int n = op->n, info = 0;
  double delta = 0;
  for (int attempt = 0; attempt < 3; attempt++) {
    for (int i = 0; i < n; i++) s->d[i] = -s->phi[i];
    info = slv_nsn_sparse_solve(s, op, tau, delta, s->d);
    if (info == 0) break;
    double hmax = slv_nsn_sparse_hmax(s);
    delta = (attempt == 0 ? 1e-10 : 1e-6) * (hmax > 0 ? hmax : 1.0);
  }
  return info;
}

/* The Newton direction (slv_internal.h). */
int slv_nsn_direction(slv_nsn *s, slv_op *op, double tau) {
  int info = s->sparse ? nsn_newton_dir_sparse(s, op, tau) : nsn_newton_dir_dense(s, op, tau);
  if (info != 0) return info;
  slv_op_matvec(op, s->d, NULL, s->Ad);
  return 0;
}

/* Armijo backtracking on theta along d (slv_internal.h). */
int slv_nsn_line_search(slv_nsn *s, const slv_problem *p, const double *x, const double *w,
                        double th) {
  int n = p->n;
  double t = 1.0;
  for (int h = 0; h <= NSN_HALVINGS; h++, t *= 0.5) {
    for (int i = 0; i < n; i++) {
      s->xt[i] = x[i] + t * s->d[i];
      s->wt[i] = w[i] + t * s->Ad[i];
    }
    double tht = slv_nsn_phi(s, p, s->xt, s->wt, s->phit, 0);
    if (tht <= (1.0 - 2.0 * NSN_ARMIJO * t) * th) return 1;
  }
  for (int i = 0; i < n; i++) {
    s->xt[i] = x[i] + s->d[i];
    s->wt[i] = w[i] + s->Ad[i];
  }
  return 0;
}

/* The scales of the library's test: max(1, ||b||_inf), max(1, ||b||_2). */
void slv_nsn_scales(const slv_problem *p, double *binf, double *b2) {
  double s2 = 0;
  *binf = 1.0;
  for (int i = 0; i < p->n; i++) {
    if (fabs(p->b[i]) > *binf) *binf = fabs(p->b[i]);
    s2 += p->b[i] * p->b[i];
  }
  *b2 = fmax(1.0, sqrt(s2));
}

slv_status slv_nsn_run(slv_nsn *s, slv_op *op, const slv_options *opt, int max_it, double *x,
                       double *w, slv_result *res, slv_hist *h, int *iters) {
  const slv_problem *p = op->p;
  int n = p->n;
  if (p->cone_law == SLV_CONE_ASSOCIATED && p->ncones > 0) {
    slv_msgf(res->message, sizeof res->message,
             "nsn_ac: solves the Coulomb law only (Alart-Curnier); the associated cone is a QP: "
             "use pcg_cone or apgd");
    return SLV_ERR_UNSUPPORTED;
  }
  double bscale, b2scale;
  slv_nsn_scales(p, &bscale, &b2scale);
  const slv_rowscale *rs = slv_op_rowscale(op);
  slv_natmap m = slv_natmap_of(p, x, w, rs);
  double best = slv_test_measure_norms(opt, m.scaled, m.n2 / b2scale);
  memcpy(s->xbest, x, (size_t)n * sizeof *x);
  memcpy(s->wbest, w, (size_t)n * sizeof *w);
  int nonmono = 0, ok = 0;
  slv_status st = SLV_MAX_ITER;
  for (int it = 1; it <= max_it; it++) {
    slv_status stop = slv_should_stop(op, SLV_POLL_WORK); /* each factorization: a slow poll */
    if (stop) {
      st = stop; /* the best iterate, below */
      break;
    }
    double th = slv_nsn_phi(s, p, x, w, s->phi, 1);
    if (isnan(th)) {
      slv_msgf(res->message, sizeof res->message, "nsn_ac: iterate became non-finite");
      st = SLV_NOT_FINITE;
      break;
    }
    int info = slv_nsn_direction(s, op, fmin(NSN_TAU_MAX, sqrt(2.0 * th)));
    if (info != 0) {
      slv_msgf(res->message, sizeof res->message,
               "nsn_ac: Newton matrix singular (LU pivot %d) even regularised", info);
      st = SLV_BREAKDOWN;
      break;
    }
    int accepted = slv_nsn_line_search(s, p, x, w, th);
    memcpy(x, s->xt, (size_t)n * sizeof *x);
    memcpy(w, s->wt, (size_t)n * sizeof *w);
    *iters += 1;
    m = slv_natmap_of(p, x, w, rs);
    if (isnan(m.inf)) {
      slv_msgf(res->message, sizeof res->message, "nsn_ac: iterate became non-finite");
      st = SLV_NOT_FINITE;
      break;
    }
    if (slv_met_norms(opt, m.scaled, m.n2 / b2scale)) {
      /* confirm on w recomputed exactly (drops the drift of w + t A d) */
      slv_op_w(op, x, w);
      m = slv_natmap_of(p, x, w, rs);
      ok = slv_met_norms(opt, m.scaled, m.n2 / b2scale);
    }
    double mt = slv_test_measure_norms(opt, m.scaled, m.n2 / b2scale);
    res->solver_residual = mt;
    slv_history_push(h, res, mt);
    if (ok) break;
    if (mt < best) {
      best = mt;
      memcpy(s->xbest, x, (size_t)n * sizeof *x);
      memcpy(s->wbest, w, (size_t)n * sizeof *w);
      nonmono = 0;
    } else if (!accepted && ++nonmono >= NSN_MAX_NONMONO) {
      st = SLV_STAGNATED;
      slv_msgf(res->message, sizeof res->message,
               "nsn_ac: %d full steps without progress; best res_scaled=%.3g", NSN_MAX_NONMONO,
               best);
      break;
    }
  }
  if (ok) {
    slv_snap(op, opt, 1, b2scale, x, w, s->xt, s->wt); /* snap.c */
    return SLV_CONVERGED;
  }
  /* leave the best iterate, with its exact w */
  memcpy(x, s->xbest, (size_t)n * sizeof *x);
  slv_op_w(op, x, w);
  if (st == SLV_MAX_ITER)
    slv_msgf(res->message, sizeof res->message,
             "nsn_ac: %d Newton iterations, best res_scaled=%.3g > tol=%.3g", max_it, best,
             opt->tol);
  return st;
}

void slv_nsn_set_klu_flops(void *state, double flops) { ((slv_nsn *)state)->sp.klu_flops = flops; }

/* ---- the registered solver -------------------------------------------------- */

static slv_status nsn_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  return slv_nsn_init(st, n_max);
}

static void nsn_free(void *st) { slv_nsn_free(st); }

static slv_status nsn_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  slv_op_w(op, x, w);
  slv_residuals r = slv_residual(op->p, x, w);
  res->solver_residual = slv_test_measure(opt, &r);
  if (slv_met(op->p, opt, &r)) return SLV_CONVERGED;
  int it = 0;
  slv_status s = slv_nsn_begin(st, op, res);
  if (s != SLV_OK) return s;
  s = slv_nsn_run(st, op, opt, opt->max_iter, x, w, res, h, &it);
  res->iterations = it;
  return s;
}

static const slv_impl nsn_impl = {
  .state_size = sizeof(slv_nsn),
  .init = nsn_init,
  .free = nsn_free,
  .solve = nsn_solve,
};

/* the params line below quotes these */
_Static_assert(NSN_HALVINGS == 10 && NSN_MAX_NONMONO == 8, "nsn_ac params");

const slv_solver slv_solver_nsn_ac = {
  .name = "nsn_ac",
  .summary =
      "nonsmooth Newton on the Alart-Curnier function, sparse (KLU/UMFPACK) or dense LU, line "
      "search (Coulomb)",
  .cite = "alart1991",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE,
  /* clang-format off */
  .params =
      "rho_c = 1 / Gershgorin bound of A_cc, rho_i = 1 / A_ii; tau = min(" SLV_STR(NSN_TAU_MAX)
      ", ||Phi||_2); Armijo " SLV_STR(NSN_ARMIJO) ", steps to 2^-10; stop after 8 full steps w/o "
      "a new best",
  /* clang-format on */
  .impl = &nsn_impl,
};
