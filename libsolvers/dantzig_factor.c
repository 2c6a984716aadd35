/* dantzig_factor.c -- the factor A_CC = L D L^T of dantzig's clamped set
 * and its updates (docs/solvers.md, "Principal pivoting (Dantzig)", "Linear
 * algebra"; the method is described in dantzig.c).
 *
 * A_CC = L D L^T (unit lower L, column-major, D > 0) is updated, never
 * refactored, as C changes:
 *   - a row joins: one forward solve L^-1 A_Cj, O(k^2); for the driven row
 *     the solve it already did is the new row of L (and s the new D entry);
 *   - slot p leaves: rank-one update L33' D3' L33'^T = L33 D3 L33^T + d_p l l^T
 *     of the trailing block (Gill, Golub, Murray and Saunders 1974, method
 *     C1; stable as d_p > 0), written into the place shifted by one row and
 *     column, O(k (k - p)).
 * The driven row's y = L^-1 A_Ci is solved once; after each set change it is
 * updated in O(k) (one dot product for an appended row; for a removed slot
 * the C1 update is L33' = L33 (I + strictly_lower(pv beta^T)), which is
 * inverted by a running sum), so a pivot costs one backward solve L^-T and
 * one product for dw.  dw is needed on N only (U rows get a fresh w, O(n),
 * when they start).  Dense A: from the DZ_M_AFTER-th pivot of a pass a
 * permuted copy M = A(perm, perm) keeps C in positions [0, k) and N in
 * [k, k + |N|), so dw_N is one dgemv on a contiguous block; a set change
 * swaps two rows and columns of M, O(n).  Before, dw comes from A's dense
 * columns: M's 2 n^2 of memory traffic is not paid by a pass that the block
 * start has left with few pivots.
 * Sparse A (contact matrices J W J^T stored dense, nonzeros <= n^2/4): dw
 * is accumulated over the operator's packed nonzero columns (operator.h)
 * of the clamped rows,
 * O(nnz(A(:,C))), M is not built, and the forward solves skip the zeros of
 * y.  The pass's start set (dantzig_start.c) is factored in one block
 * (LAPACK dpotrf, BLAS-3, or the rounds' updated factor).  After the last
 * pivot one step of iterative refinement on the final C (w = A x + b
 * recomputed, A_CC dx_C = -w_C) removes the drift of the updates.
 */
#include "dantzig.h"

#include <cblas.h>
#include <string.h>

/* ---- the factor A_CC = L D L^T ------------------------------------------------ */

/* y[r] -= a x[r], r < len: BLAS daxpy, whose SIMD kernel pays off from a
 * few dozen entries on; below that the call costs more than the loop. */
static void axpy_sub(int len, double a, const double *restrict xv, double *restrict yv) {
  if (len >= 32) {
    cblas_daxpy(len, -a, xv, 1, yv, 1);
    return;
  }
  for (int r = 0; r < len; r++) yv[r] -= a * xv[r];
}

/* y <- L^-1 y (k entries).  Leading zeros of y are skipped (the solve
 * starts at the first nonzero).  For a sparse A (contact matrices: L is
 * about 20 % nonzero and y about 40 %) the column-oriented substitution
 * skips every zero y_c; a dense A uses the blocked BLAS dtrsv. */
void slv_dz_fac_fsolve(const dz_state *s, double *y) {
  int k = s->k, n = s->n, f = 0;
  while (f < k && y[f] == 0.0) f++;
  if (k - f < 2) return;
  if (!s->packed) {
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, k - f, s->L + f + (size_t)f * n,
                n, y + f, 1);
    return;
  }
  for (int c = f; c < k - 1; c++) {
    double yc = y[c];
    if (yc != 0.0) axpy_sub(k - 1 - c, yc, s->L + (c + 1) + (size_t)c * n, y + c + 1);
  }
}

/* y <- L^-T y. */
void slv_dz_fac_bsolve(const dz_state *s, double *y) {
  if (s->k > 1)
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasUnit, s->k, s->L, s->n, y, 1);
}

/* y <- (L D L^T)^-1 y = A_CC^-1 y (k entries). */
void slv_dz_fac_solve(const dz_state *s, double *y) {
  int k = s->k;
  if (k == 0) return;
  cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, k, s->L, s->n, y, 1);
  for (int q = 0; q < k; q++) y[q] /= s->d[q];
  slv_dz_fac_bsolve(s, y);
}

/* Append a row to the factor: L(k, 0:k) = l (= D^-1 L^-1 a), D(k) = dk. */
void slv_dz_fac_append(dz_state *s, const double *l, double dk) {
  int k = s->k, n = s->n;
  double *row = s->L + k;
  for (int j = 0; j < k; j++) row[(size_t)j * n] = l[j];
  s->L[k + (size_t)k * n] = 1.0;
  s->d[k] = dk;
}

/* Remove slot p from the factor (k -> k-1 rows): drop row and column p,
 * and fold d_p l l^T (l = L(p+1:k, p)) into the trailing block by the
 * rank-one update of Gill et al. 1974, method C1, written into the shifted
 * place (old column j -> new column j-1, old row r -> new row r-1).  The
 * update is L33' = L33 Lt with Lt = I + strictly_lower(pv beta^T), where
 * pv = L33^-1 l is the sequence of C1's p_j: pv is left in s->tmp[0..m),
 * beta in s->beta[0..m) for y_after_remove. */
void slv_dz_fac_remove(dz_state *s, int p) {
  int k = s->k, n = s->n, m = k - 1 - p;
  double *L = s->L, *d = s->d;
  /* rows p+1.. of the columns before p move up by one */
  for (int j = 0; j < p; j++) {
    double *c = L + (size_t)j * n;
    memmove(c + p, c + p + 1, (size_t)m * sizeof *c);
  }
  if (m > 0) {
    double *z = s->tmp;
    memcpy(z, L + p + 1 + (size_t)p * n, (size_t)m * sizeof *z);
    double alpha = d[p];
    for (int jj = 0; jj < m; jj++) {
      int j = p + 1 + jj;
      double pj = z[jj], dj = d[j];
      double dn = dj + alpha * pj * pj;
      double beta = pj * alpha / dn;
      alpha = dj * alpha / dn;
      d[j - 1] = dn;
      s->beta[jj] = beta;
      const double *restrict oc = L + (j + 1) + (size_t)j * n; /* old rows j+1..k-1 */
      double *restrict nc = L + j + (size_t)(j - 1) * n;       /* new rows j..k-2 */
      double *restrict zz = z + jj + 1;
      int len = m - jj - 1;
      for (int r = 0; r < len; r++) {
        double zr = zz[r] - pj * oc[r];
        zz[r] = zr;
        nc[r] = oc[r] + beta * zr;
      }
      L[(j - 1) + (size_t)(j - 1) * n] = 1.0;
    }
  }
}

/* The driven row's y = L^-1 A(C, i) after slot p left the factor (with
 * the old k; fac_remove has left pv and beta): y1 stays, and
 * L33 Lt y3' = A3 - L31 y1 = L33 y3 + l y_p gives y3' = Lt^-1 (y3 + y_p pv),
 * where Lt = I + strictly_lower(pv beta^T) is solved by a running sum:
 * O(k) instead of a new forward solve. */
void slv_dz_y_after_remove(const dz_state *s, double *y, int p, int kold) {
  int m = kold - 1 - p;
  const double *pv = s->tmp, *beta = s->beta;
  double yp = y[p], acc = 0;
  for (int r = 0; r < m; r++) {
    double u = y[p + 1 + r] + yp * pv[r] - pv[r] * acc;
    y[p + r] = u;
    acc += beta[r] * u;
  }
}

/* ---- the factor of a whole set ----------------------------------------------------- */

/* Convert the Cholesky factor in L (lower, m x m) to L D L^T; returns the
 * first slot whose pivot is zero by zero_of (relative to its A_rr), or m. */
int slv_dz_chol_to_ldl(dz_state *s, int m) {
  int n = s->n;
  for (int j = 0; j < m; j++) {
    double *c = s->L + (size_t)j * n;
    double lj = c[j];
    int row = s->cand[j];
    if (!(lj * lj > slv_dz_zero_of(s, slv_dz_aij(s, row, row), j))) return j;
    s->d[j] = lj * lj;
    double inv = 1.0 / lj;
    for (int r = j + 1; r < m; r++) c[r] *= inv;
    c[j] = 1.0;
  }
  return m;
}

/* Factor A_SS for the m rows cand[0..m) into L (slot order = cand order);
 * on a non-positive pivot the set is cut before it.  Returns the new m. */
int slv_dz_block_factor(dz_state *s, int m) {
  int n = s->n;
  while (m > 0) {
    for (int b = 0; b < m; b++) {
      const double *a = s->A + (size_t)s->cand[b] * s->lda;
      double *c = s->L + (size_t)b * n;
      for (int r = b; r < m; r++) c[r] = a[s->cand[r]];
    }
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', m, s->L, n);
    int good = info == 0 ? slv_dz_chol_to_ldl(s, m) : (int)info - 1;
    if (good == m) return m;
    m = good; /* the leading block is positive definite: refactor it */
  }
  return 0;
}
