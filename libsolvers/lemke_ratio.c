/* lemke_ratio.c -- lemke's minimum-ratio test with the lexicographic rule,
 * and the exit of z0 (docs/solvers.md, "Lexicographic Lemke", "Degeneracy"
 * and "Tolerances"; the rules are described in lemke.c).
 */
#include "lemke.h"

#include <cblas.h>
#include <string.h>

/* Every entry of the tableau column is judged in q's units: a core
 * entry y_q times its column's scale cs[K[q]], a mu entry as it is
 * (docs/solvers.md, "Lexicographic Lemke", "Units"; lemke.h,
 * slv_lemke_col_scales).  The same weighting as the threshold tau. */
#define Y_CORE(s, q) ((s)->yK[q] * (s)->cs[(s)->K[q]])

/* The minimum ratio over y_l > tau (tau = pivot_tol ||y||_inf, y in q's
 * units) into P->theta, INFINITY on a secondary ray; SLV_NOT_FINITE if the
 * tableau column is not finite. */
slv_status slv_lemke_ratio_test(basis *B, path *P) {
  lemke_state *s = B->s;
  int k = B->k, N = B->N;
  double ymax = 0;
  for (int q = 0; q < k; q++) ymax = fmax(ymax, fabs(Y_CORE(s, q)));
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0) ymax = fmax(ymax, fabs(s->yW[i]));
  if (!isfinite(ymax)) return SLV_NOT_FINITE;
  double tau = P->piv_tol * ymax, theta = INFINITY, low = P->lu_tol * ymax;
  for (int q = 0; q < k; q++) {
    double y = Y_CORE(s, q);
    if (y > tau)
      theta = fmin(theta, fmax(0.0, s->xK[q]) / s->yK[q]);
    else if (y > low)
      P->skipped = 1;
  }
  for (int i = 0; i < N; i++) {
    if (s->posR[i] >= 0) continue;
    if (s->yW[i] > tau)
      theta = fmin(theta, fmax(0.0, s->wv[i]) / s->yW[i]);
    else if (s->yW[i] > low)
      P->skipped = 1;
  }
  P->tau = tau;
  P->theta = theta;
  return SLV_OK;
}

/* The rows tied at the minimum ratio into s->ties (core position, or
 * -(i+1) for mu_i); returns their number, *lz0 the core position of z0 if
 * it is among them, else -1. */
int slv_lemke_tied_rows(basis *B, const path *P, int *lz0) {
  lemke_state *s = B->s;
  int N = B->N, nt = 0;
  double thr = P->theta + P->theta * LEMKE_TIE_REL, tau = P->tau;
  *lz0 = -1;
  for (int q = 0; q < B->k; q++)
    if (Y_CORE(s, q) > tau && fmax(0.0, s->xK[q]) / s->yK[q] <= thr) {
      if (s->K[q] == N) *lz0 = q;
      s->ties[nt++] = q;
    }
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0 && s->yW[i] > tau && fmax(0.0, s->wv[i]) / s->yW[i] <= thr)
      s->ties[nt++] = -(i + 1);
  return nt;
}

/* The lowest basic value after z0's own step (core position qz0), in q's
 * units (a core value times its column's scale: the change it makes to
 * the rows when clamped to 0); the scan stops at the first value below
 * `stop` (the usual case). */
static double z0_worst(basis *B, const path *P, int qz0, double stop) {
  lemke_state *s = B->s;
  double tz0 = fmax(0.0, s->xK[qz0]) / s->yK[qz0], worst = 0, tau = P->tau;
  for (int q = 0; q < B->k && worst >= stop; q++)
    if (q != qz0 && Y_CORE(s, q) > tau) {
      double v = ((s->xK[q] > 0 ? s->xK[q] : 0.0) - tz0 * s->yK[q]) * s->cs[s->K[q]];
      if (v < worst) worst = v;
    }
  for (int i = 0; i < B->N && worst >= stop; i++)
    if (s->posR[i] < 0 && s->yW[i] > tau) {
      double v = (s->wv[i] > 0 ? s->wv[i] : 0.0) - tz0 * s->yW[i];
      if (v < worst) worst = v;
    }
  return worst;
}

/* Row l of B^-1 divided by y_l, into out (size N).  core: l = position in
 * K; else l = -(i+1) for the basic mu_i. */
static void lex_row(basis *B, int l, double y, double *out) {
  lemke_state *s = B->s;
  int N = B->N, k = B->k;
  if (l >= 0) {
    for (int c = 0; c < N; c++) out[c] = s->posR[c] >= 0 ? LEMKE_HH(B, l, s->posR[c]) / y : 0.0;
    return;
  }
  /* mu_i basic: B^-1(i, c) = delta_ic (c not in R), ([M, d](i, K) H)(posR[c]) (c in R) */
  int i = -l - 1;
  slv_lemke_gather_row(B->L, i, s->K, k, s->g);
  cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, s->H, B->ldh, s->g, 1, 0.0, s->t, 1);
  for (int c = 0; c < N; c++) out[c] = s->posR[c] >= 0 ? s->t[s->posR[c]] / y : 0.0;
  out[i] = 1.0 / y;
}

/* Lexicographic comparison of two rows: < 0 if a is smaller, > 0 if b is
 * smaller, 0 if they cannot be told apart. */
static int lex_cmp(const double *a, const double *b, int N) {
  double na = 0, nb = 0;
  for (int c = 0; c < N; c++) {
    na = fmax(na, fabs(a[c]));
    nb = fmax(nb, fabs(b[c]));
  }
  double zero = LEMKE_LEX_ZERO * fmax(na, nb);
  for (int c = 0; c < N; c++) {
    double x = fabs(a[c]) <= zero ? 0.0 : a[c], y = fabs(b[c]) <= zero ? 0.0 : b[c];
    if (fabs(x - y) <= LEMKE_LEX_DIFF * fmax(fabs(x), fabs(y))) continue;
    return x < y ? -1 : 1;
  }
  return 0;
}

/* Among nt tied rows, the lexicographically smallest row of B^-1 / y_l
 * (ties of that: the larger pivot). */
int slv_lemke_lex_choose(basis *B, int nt) {
  lemke_state *s = B->s;
  int l = s->ties[0];
  if (nt < 2) return l;
  double *ba = s->lexa, *cb = s->lexb;
  double yl = l >= 0 ? s->yK[l] : s->yW[-l - 1];
  lex_row(B, l, yl, ba);
  for (int c = 1; c < nt; c++) {
    int m = s->ties[c];
    double ym = m >= 0 ? s->yK[m] : s->yW[-m - 1];
    lex_row(B, m, ym, cb);
    int cmp = lex_cmp(cb, ba, B->N);
    if (cmp < 0 || (cmp == 0 && ym > yl)) {
      double *tmp = ba;
      ba = cb;
      cb = tmp;
      l = m;
      yl = ym;
    }
  }
  return l;
}

/* Tentative end of the path: z0 (core position qz0) leaves for the
 * entering ent at step t, the complementary basis is refined and its point
 * judged by the library residual.  Returns 1 if it meets opt->tol (the new
 * basis stays; x and w hold its point), else undoes the exchange (z0
 * re-enters, ent leaves: the inverse update) and restores the values, and
 * returns 0; positions in K and R may then be permuted, so the caller
 * recomputes the tableau column. */
static int try_exit(basis *B, slv_op *op, const slv_options *opt, int ent, int qz0, double t,
                    double *x, double *w) {
  lemke_state *s = B->s;
  int N = B->N;
  for (int q = 0; q < B->k; q++) s->zs[s->K[q]] = s->xK[q];
  memcpy(s->ws, s->wv, (size_t)N * sizeof *s->ws);
  slv_lemke_exchange(B, ent, qz0, t);
  slv_lemke_refine(B);
  slv_lemke_solution(B, op->p, x);
  slv_op_w(op, x, w);
  if (slv_residual(op->p, x, w).res_scaled <= opt->tol) return 1;
  slv_lemke_tableau_column(B, N);
  slv_lemke_exchange(B, N, ent >= 0 ? s->posK[ent] : ent, 0.0);
  for (int q = 0; q < B->k; q++) s->xK[q] = s->zs[s->K[q]];
  memcpy(s->wv, s->ws, (size_t)N * sizeof *s->wv);
  return 0;
}

/* z0 also leaves when its own step (beyond theta) would put no basic
 * variable more than LEMKE_FEAS ||q|| below zero (in q's units: z0_worst):
 * a Harris-type test
 * (Harris 1973) that catches ties split by rounding and blocking rows whose
 * tiny pivot barely moves them.  On rank-deficient positive semidefinite A
 * such near-ties of z0 are common; passing them by carries on with
 * z0 ~ 1e-14 over near-singular bases (cycling or a singular basis: see
 * test_lemke.c).  The final basis is re-solved and the library residual
 * judges the result.  A larger violation, up to LEMKE_TRIAL max|x_B| (in
 * q's units: slv_lemke_basic_scale), gets
 * a tentative exit (try_exit): the friction LCP ties z0 exactly with the
 * slack d z0 of every lambda row whose x_j, p_i, m_i are nonbasic
 * (contacts at rest), and after thousands of pivots on ill-conditioned
 * bases rounding splits such ties by ~1e-12 max|x_B|.  Returns Z0_STAYS,
 * Z0_LEAVES (take it as the leaving row), Z0_EXITED (the trial exit stands:
 * x, w hold its point) or Z0_RETRY (undone: redo this pivot, no trial). */
int slv_lemke_z0_exit(basis *B, path *P, slv_op *op, const slv_options *opt, double *x, double *w) {
  lemke_state *s = B->s;
  int qz0 = s->posK[B->N];
  if (!(Y_CORE(s, qz0) > P->tau)) return Z0_STAYS;
  double feas = LEMKE_FEAS * P->qscale, tri = LEMKE_TRIAL * P->vscale;
  double worst = z0_worst(B, P, qz0, -(feas > tri ? feas : tri));
  if (worst >= -feas) return Z0_LEAVES;
  if (worst < -tri || P->notrial == P->pivots) return Z0_STAYS;
  P->trials++;
  double tz0 = fmax(0.0, s->xK[qz0]) / s->yK[qz0];
  if (try_exit(B, op, opt, P->ent, qz0, tz0, x, w)) {
    P->pivots++;
    P->exited = 1;
    return Z0_EXITED;
  }
  /* undone: the positions in K, R changed, so redo this pivot's tableau
   * column and ratio test, without a second trial */
  P->notrial = P->pivots;
  return Z0_RETRY;
}
