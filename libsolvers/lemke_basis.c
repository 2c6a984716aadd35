/* lemke_basis.c -- the factorized basis of lemke (docs/solvers.md,
 * "Lexicographic Lemke", "The factorised basis"; the path is described in
 * lemke.c).
 *
 * Sort the basic variables into the core K (basic z_j and z0, k of them) and
 * the basic mu_i.  R = the rows whose mu is nonbasic; |R| = k.  With
 * S = B(R, K) (k x k), solving B y = a splits into
 *     y_K = S^-1 a_R,        y_i = a_i - B(i, K) y_K   for the basic mu_i,
 * so only the core matrix S needs a factorization.  It is kept as the
 * explicit inverse H = S^-1 (k x k, column-major, leading dimension N), and
 * a pivot changes S by one row and/or one column:
 *   z_j enters, mu_r leaves:  S grows by row r and column j (bordering with
 *                             the Schur complement sigma = y_r);
 *   z_j enters, core var out: column replacement (eta update of H);
 *   mu_i enters, mu_r leaves: row replacement (Sherman-Morrison);
 *   mu_i enters, core var out: S loses row i and the column (the inverse of
 *                             a matrix with a row and column deleted).
 * Each update is one dger on H (plus one dgemv with H^T for the first and
 * third): a pivot costs
 *     y_K = H a_R            2 k^2      (dgemv)
 *     B(W, K) y_K            2 N k      (dgemv on the core columns)
 *     H update               2-4 k^2    (dger, dgemv)
 *     ratio test, values     O(N)
 * against 2N(2N+2) for a full tableau sweep (Siconos lexicolemke).  For a
 * plain LCP the core columns of A are kept as a compact copy (N x k, in
 * H's buffer behind the inverse) so that B(W, K) y_K is one dgemv; when A
 * is mostly zeros (n >= 64 and at most n^2/4 nonzeros: contact matrices
 * J M^-1 J^T stored dense), the operator's packed copy of its columns
 * (operator.h) is read instead, and the product costs the nonzeros of the
 * core columns instead of 2 N k.  The columns themselves are the
 * operator's dense view of A.
 * Rounding in H accumulates like in any product-form update: a drift check
 * every LEMKE_CHECK pivots recomputes B x_B - q (one more product) and,
 * when it exceeds LEMKE_DRIFT relative to ||q|| and also LEMKE_DRIFT_FLOOR
 * max_j cs_j |x_j| (every basic variable in q's units, a z_j times its
 * column's scale: docs/solvers.md, "Lexicographic Lemke", "Units"; the
 * rounding floor of that product: on the contact
 * matrices with a 1e-6 cfm, |x| reaches 1e5 for |b| ~ 1, and without the
 * floor the check refactorized every few pivots in vain; experiments/
 * experiments/records/2026-11-26-solvers.md), refactorizes S by LU
 * (LAPACKE dgetrf + dgetri, 2k^3 flops) and recomputes x_B from it; after
 * a refactorization the check period is halved (down to LEMKE_CHECK_MIN),
 * after a clean check doubled back.  At the end, up to LEMKE_REFINE steps
 * of iterative refinement on the final basis (x_K += H (q_R - S x_K),
 * while the residual halves) bring x to rounding level; if the library
 * residual still misses opt->tol, S is refactorized once, x recomputed and
 * refined, and the residual judged again.
 */
#include "lemke.h"

#include <cblas.h>
#include <lapacke.h>
#include <string.h>

/* Rebuild H = S^-1 from scratch by LU (S(p, q) = -[M, d](R[p], K[q])) and
 * recompute the basic values x_K = H q_R, mu_i = q_i + [M, d](i, K) x_K.
 * Returns 0, or SLV_SINGULAR_PIVOT if S is numerically singular. */
slv_status slv_lemke_refactor(basis *B, double piv_rel) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int k = B->k;
  if (k == 0) return SLV_CONVERGED;
  /* the pivots of U are judged column by column in q's units (U's column
   * p scales with S's: docs/solvers.md, "Lexicographic Lemke", "Units") */
  double smax = 0;
  for (int q = 0; q < k; q++) {
    double *col = s->H + (size_t)q * B->ldh, c = s->cs[s->K[q]];
    slv_lemke_gather_col(L, s->K[q], s->R, k, col);
    for (int p = 0; p < k; p++) {
      col[p] = -col[p];
      smax = fmax(smax, fabs(col[p]) / c);
    }
  }
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, k, k, s->H, B->ldh, s->ipiv);
  if (info != 0) return SLV_SINGULAR_PIVOT;
  for (int p = 0; p < k; p++)
    if (!(fabs(LEMKE_HH(B, p, p)) / s->cs[s->K[p]] > piv_rel * smax)) return SLV_SINGULAR_PIVOT;
  info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, k, s->H, B->ldh, s->ipiv, s->work,
                             (lapack_int)s->N_max * LEMKE_LWORK_COLS);
  if (info != 0) return SLV_SINGULAR_PIVOT;
  for (int p = 0; p < k; p++) s->g[p] = L->q[s->R[p]];
  cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, s->H, B->ldh, s->g, 1, 0.0, s->xK, 1);
  slv_lemke_cols_times(L, s->K, k, s->xK, s->u);
  for (int i = 0; i < B->N; i++)
    if (s->posR[i] < 0) s->wv[i] = L->q[i] + s->u[i];
  return SLV_CONVERGED;
}

/* ||B x_B - q||_inf: the rows of R need q_i + [M, d](i, K) x_K = 0, the
 * others mu_i = q_i + [M, d](i, K) x_K. */
double slv_lemke_drift(basis *B) {
  lemke_state *s = B->s;
  slv_lemke_cols_times(B->L, s->K, B->k, s->xK, s->u);
  double e = 0;
  for (int i = 0; i < B->N; i++) {
    double r = B->L->q[i] + s->u[i] - (s->posR[i] < 0 ? s->wv[i] : 0.0);
    e = fmax(e, fabs(r));
  }
  return e;
}

/* Tableau column of the entering variable: entering u_j (ent >= 0) or mu_i
 * (ent = -(i+1)).  Fills yK (k) and yW (rows with mu basic). */
void slv_lemke_tableau_column(basis *B, int ent) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int k = B->k;
  if (ent >= 0) {
    /* a = -M(:, j):  y_K = H a_R,  y_i = a_i + [M, d](i, K) y_K */
    slv_lemke_gather_col(L, ent, s->R, k, s->g);
    cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, -1.0, s->H, B->ldh, s->g, 1, 0.0, s->yK, 1);
    slv_lemke_cols_times(L, s->K, k, s->yK, s->u);
    slv_lemke_col_axpy(L, ent, -1.0, s->u);
  } else {
    /* a = e_i, i in R:  y_K = H(:, posR[i]),  y_i' = [M, d](i', K) y_K */
    int p = s->posR[-ent - 1];
    memcpy(s->yK, s->H + (size_t)p * B->ldh, (size_t)k * sizeof *s->yK);
    slv_lemke_cols_times(L, s->K, k, s->yK, s->u);
  }
  memcpy(s->yW, s->u, (size_t)B->N * sizeof *s->yW);
}

/* Basis change: entering ent (as in tableau_column), leaving l (core
 * position, or -(r+1) for mu_r), step theta.  Updates values, lists, H. */
void slv_lemke_exchange(basis *B, int ent, int l, double theta) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int k = B->k, N = B->N, ldh = B->ldh;
  double *H = s->H;
  /* values: x_B -= theta y */
  cblas_daxpy(k, -theta, s->yK, 1, s->xK, 1);
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0) s->wv[i] -= theta * s->yW[i];

  if (ent >= 0 && l < 0) {
    /* grow: K += u_j, R += r.  g = [-M, -d](r, K) H, sigma = y_r:
     * H' = [[H + y_K g / sigma, -y_K / sigma], [-g / sigma, 1 / sigma]] */
    int r = -l - 1;
    double sigma = s->yW[r];
    slv_lemke_gather_row(L, r, s->K, k, s->t);
    cblas_dgemv(CblasColMajor, CblasTrans, k, k, -1.0, H, ldh, s->t, 1, 0.0, s->g, 1);
    if (k > 0) cblas_dger(CblasColMajor, k, k, 1.0 / sigma, s->yK, 1, s->g, 1, H, ldh);
    for (int q = 0; q < k; q++) H[q + (size_t)k * ldh] = -s->yK[q] / sigma;
    for (int p = 0; p < k; p++) H[k + (size_t)p * ldh] = -s->g[p] / sigma;
    H[k + (size_t)k * ldh] = 1.0 / sigma;
    slv_lemke_set_core_col(L, k, ent);
    s->K[k] = ent;
    s->R[k] = r;
    s->posK[ent] = k;
    s->posR[r] = k;
    s->xK[k] = theta;
    B->k = k + 1;
  } else if (ent >= 0) {
    /* column replacement at q: row q / y_q, the others minus y_p times it */
    int q = l;
    double yq = s->yK[q];
    cblas_dcopy(k, H + q, ldh, s->t, 1);
    cblas_dger(CblasColMajor, k, k, -1.0 / yq, s->yK, 1, s->t, 1, H, ldh);
    cblas_daxpy(k, 1.0 / yq, s->t, 1, H + q, ldh); /* row q was zeroed: now t / y_q */
    s->posK[s->K[q]] = -1;
    slv_lemke_set_core_col(L, q, ent);
    s->K[q] = ent;
    s->posK[ent] = q;
    s->xK[q] = theta;
  } else if (l < 0) {
    /* row replacement: row i (position p) of S becomes row r.
     * g = [-M, -d](r, K) H, g_p = -y_r:  H' = H - H(:, p) (g - e_p) / g_p */
    int i = -ent - 1, r = -l - 1, p = s->posR[i];
    slv_lemke_gather_row(L, r, s->K, k, s->t);
    /* g_p = -y_r is known: each column c in one pass, with yK = H(:, p) */
    cblas_dgemv(CblasColMajor, CblasTrans, k, k, -1.0, H, ldh, s->t, 1, 0.0, s->g, 1);
    double gp = s->g[p];
    s->g[p] -= 1.0;
    cblas_dger(CblasColMajor, k, k, -1.0 / gp, s->yK, 1, s->g, 1, H, ldh);
    s->R[p] = r;
    s->posR[r] = p;
    s->posR[i] = -1;
    s->wv[i] = theta;
  } else {
    /* shrink: delete row p (mu_i enters) and column q (core var leaves) of S;
     * inverse: H - H(:, p) H(q, :) / H(q, p) without row q and column p */
    int i = -ent - 1, q = l, p = s->posR[i], last = k - 1;
    double hqp = s->yK[q];
    cblas_dcopy(k, H + q, ldh, s->t, 1);
    cblas_dger(CblasColMajor, k, k, -1.0 / hqp, s->yK, 1, s->t, 1, H, ldh);
    if (p != last) memcpy(H + (size_t)p * ldh, H + (size_t)last * ldh, (size_t)k * sizeof *H);
    if (q != last) cblas_dcopy(last, H + last, ldh, H + q, ldh);
    s->posK[s->K[q]] = -1;
    s->posR[i] = -1;
    if (q != last) {
      slv_lemke_set_core_col(L, q, s->K[last]);
      s->K[q] = s->K[last];
      s->posK[s->K[q]] = q;
      s->xK[q] = s->xK[last];
    }
    if (p != last) {
      s->R[p] = s->R[last];
      s->posR[s->R[p]] = p;
    }
    s->wv[i] = theta;
    B->k = last;
  }
}

/* ---- the solver ---------------------------------------------------------------- */

/* max(qscale, |basic values|), each in q's units: a core value times its
 * column's scale, a mu as it is (docs/solvers.md, "Lexicographic Lemke",
 * "Units"). */
double slv_lemke_basic_scale(const basis *B, double qscale) {
  const lemke_state *s = B->s;
  double m = qscale;
  for (int q = 0; q < B->k; q++) {
    double a = (s->xK[q] < 0 ? -s->xK[q] : s->xK[q]) * s->cs[s->K[q]];
    if (a > m) m = a;
  }
  for (int i = 0; i < B->N; i++)
    if (s->posR[i] < 0) {
      double a = s->wv[i] < 0 ? -s->wv[i] : s->wv[i];
      if (a > m) m = a;
    }
  return m;
}

/* The final x from the core values (clamped at 0), written to x. */
void slv_lemke_solution(basis *B, const slv_problem *p, double *x) {
  lemke_state *s = B->s;
  double *z = s->t;
  memset(z, 0, (size_t)B->N * sizeof *z);
  for (int q = 0; q < B->k; q++)
    if (s->K[q] < B->N) z[s->K[q]] = fmax(0.0, s->xK[q]);
  slv_lemke_unmap(s, p, B->L, z, x);
}

/* Iterative refinement of x_K on the final complementary basis:
 * x_K += H (q_R - S x_K), while the correction helps. */
void slv_lemke_refine(basis *B) {
  lemke_state *s = B->s;
  int k = B->k;
  double prev = INFINITY;
  for (int it = 0; it < LEMKE_REFINE && k > 0; it++) {
    slv_lemke_cols_times(B->L, s->K, k, s->xK, s->u);
    double e = 0;
    for (int p = 0; p < k; p++) {
      s->g[p] = B->L->q[s->R[p]] + s->u[s->R[p]];
      e = fmax(e, fabs(s->g[p]));
    }
    if (!(e < 0.5 * prev) || e == 0.0) break;
    prev = e;
    cblas_dgemv(CblasColMajor, CblasNoTrans, k, k, 1.0, s->H, B->ldh, s->g, 1, 1.0, s->xK, 1);
  }
}
