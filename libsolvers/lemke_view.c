/* lemke_view.c -- the LCP that lemke solves, read through A: the products
 * with the columns of [M, d] for the plain LCP (M = A: a compact copy of
 * the core columns, or A's packed nonzeros) and for the reformulated one
 * (lemke_reform.c: sign and index maps into A, and the sparse E).
 */
#include "lemke.h"

#include <cblas.h>
#include <string.h>

/* out[p] = [M, d](R[p], v), p < k. */
void slv_lemke_gather_col(const lcp_view *L, int v, const int *R, int k, double *out) {
  if (v == L->N) {
    for (int p = 0; p < k; p++) out[p] = L->d[R[p]];
  } else if (L->plain) {
    const double *a = L->A + (size_t)v * L->lda;
    for (int p = 0; p < k; p++) out[p] = a[R[p]];
  } else {
    for (int p = 0; p < k; p++) out[p] = slv_lemke_m_entry(L, R[p], v);
  }
}

/* out[q] = [M, d](r, K[q]), q < k: row r of the core columns. */
void slv_lemke_gather_row(const lcp_view *L, int r, const int *K, int k, double *out) {
  for (int q = 0; q < k; q++) out[q] = slv_lemke_mcol_entry(L, r, K[q]);
}

/* General view: u[i] += alpha af[i] a_{ao[i]} for every LCP row i that
 * reads row ao[i] of A, with a = A(:, j): the rows of A's column j spread
 * to their main row (ao = the row itself) and their A-reading extra (mrow). */
static void spread_acol(const lcp_view *L, int j, double alpha, double *u) {
  if (L->colptr) {
    for (int e = L->colptr[j]; e < L->colptr[j + 1]; e++) {
      int r = L->rowind[e];
      double a = alpha * L->val[e];
      u[r] += L->af[r] * a;
      if (L->mrow[r] >= 0) u[L->mrow[r]] += L->af[L->mrow[r]] * a;
    }
    return;
  }
  const double *a = L->A + (size_t)j * L->lda;
  for (int i = 0; i < L->N; i++)
    if (L->ao[i] >= 0) u[i] += alpha * L->af[i] * a[L->ao[i]];
}

/* u = sum_q y[q] [M, d](:, K[q])  (size N). */
void slv_lemke_cols_times(const lcp_view *L, const int *K, int k, const double *y, double *u) {
  int N = L->N;
  memset(u, 0, (size_t)N * sizeof *u);
  double yz0 = 0;
  if (L->kind == VIEW_DENSE) {
    /* the compact copy holds d for z0 too: one dgemv */
    if (k > 0) cblas_dgemv(CblasColMajor, CblasNoTrans, N, k, 1.0, L->C, N, y, 1, 0.0, u, 1);
    return;
  }
  if (L->kind == VIEW_PACKED) {
    for (int q = 0; q < k; q++) {
      int v = K[q];
      double yq = y[q];
      if (v == N) {
        yz0 = yq;
        continue;
      }
      if (yq == 0.0) continue;
      for (int e = L->colptr[v]; e < L->colptr[v + 1]; e++) u[L->rowind[e]] += yq * L->val[e];
    }
  } else {
    /* combine the A columns first (u_j and u'_j of a free row, p_i and m_i
     * of a friction row share one), one pass per distinct column, then
     * expand to the LCP rows */
    int n = L->n;
    double *c = L->c, *an = L->an;
    for (int q = 0; q < k; q++) {
      int v = K[q];
      if (v == N) {
        yz0 = y[q];
        continue;
      }
      if (L->ao[v] >= 0) c[L->ao[v]] += L->af[v] * y[q];
    }
    if (L->colptr) {
      /* sparse A: spread each combined column straight to the LCP rows */
      for (int q = 0; q < k; q++) {
        int v = K[q];
        if (v == N || L->ao[v] < 0) continue;
        int j = L->ao[v];
        if (c[j] != 0.0) spread_acol(L, j, c[j], u);
        c[j] = 0.0; /* done, and c is zero again for the next call */
      }
    } else {
      memset(an, 0, (size_t)n * sizeof *an);
      for (int q = 0; q < k; q++) {
        int v = K[q];
        if (v == N || L->ao[v] < 0) continue;
        int j = L->ao[v];
        if (c[j] != 0.0) cblas_daxpy(n, c[j], L->A + (size_t)j * L->lda, 1, an, 1);
        c[j] = 0.0;
      }
      for (int i = 0; i < N; i++) u[i] = L->ao[i] >= 0 ? L->af[i] * an[L->ao[i]] : 0.0;
    }
    for (int q = 0; q < k; q++) {
      int v = K[q];
      if (v == N) continue;
      for (int e = L->ecp[v]; e < L->ecp[v + 1]; e++) u[L->eci[e]] += L->ecv[e] * y[q];
    }
  }
  if (yz0 != 0.0) cblas_daxpy(N, yz0, L->d, 1, u, 1);
}

/* u += alpha [M, d](:, v), v <= N. */
void slv_lemke_col_axpy(const lcp_view *L, int v, double alpha, double *u) {
  int N = L->N;
  if (v == N) {
    cblas_daxpy(N, alpha, L->d, 1, u, 1);
    return;
  }
  if (L->kind == VIEW_PACKED) {
    for (int e = L->colptr[v]; e < L->colptr[v + 1]; e++) u[L->rowind[e]] += alpha * L->val[e];
    return;
  }
  if (L->plain) {
    cblas_daxpy(N, alpha, L->A + (size_t)v * L->lda, 1, u, 1);
    return;
  }
  if (L->ao[v] >= 0) spread_acol(L, L->ao[v], alpha * L->af[v], u);
  for (int e = L->ecp[v]; e < L->ecp[v + 1]; e++) u[L->eci[e]] += alpha * L->ecv[e];
}

/* VIEW_DENSE: core column q of C becomes [M, d](:, v). */
void slv_lemke_set_core_col(const lcp_view *L, int q, int v) {
  if (L->kind != VIEW_DENSE) return;
  const double *src = v == L->N ? L->d : L->A + (size_t)v * L->lda;
  memcpy(L->C + (size_t)q * L->N, src, (size_t)L->N * sizeof *L->C);
}

/* A's nonzeros by column from the operator's packed copy (a mostly-zero
 * A: contact matrices), if it formed one; returns 1 if so. */
int slv_lemke_packed_columns(slv_op *op, lcp_view *L) {
  if (slv_op_pack(op) != SLV_OP_COLS) return 0;
  L->colptr = op->colptr;
  L->rowind = op->rowind;
  L->val = op->val;
  return 1;
}

/* max |A(:, j)| into m[j], j < n: from the packed nonzeros if formed. */
static void a_col_max(const lcp_view *L, double *m) {
  for (int j = 0; j < L->n; j++) {
    double c = 0;
    /* compare and keep, not fmax: no libm call per entry (NaN: lemke's
     * ratio test reports the tableau column not finite) */
    if (L->colptr) {
      for (int e = L->colptr[j]; e < L->colptr[j + 1]; e++) {
        double a = fabs(L->val[e]);
        c = a > c ? a : c;
      }
    } else {
      const double *col = L->A + (size_t)j * L->lda;
      for (int i = 0; i < L->n; i++) {
        double a = fabs(col[i]);
        c = a > c ? a : c;
      }
    }
    m[j] = c;
  }
}

/* The column scales of M (lemke.h).  Every row of A is read by its main
 * LCP row, so a column that reads A column ao[v] has that column's max
 * there (times |af| = 1); the entries of E add theirs.  One pass over A's
 * entries per solve (its first path). */
void slv_lemke_col_scales(const lcp_view *L, double *cs) {
  int n = L->n, N = L->N;
  a_col_max(L, cs); /* the main variables read A's column v itself */
  if (!L->plain) {
    for (int v = n; v < N; v++) cs[v] = L->ao[v] >= 0 ? cs[L->ao[v]] : 0.0;
    for (int v = 0; v < N; v++) {
      for (int e = L->ecp[v]; e < L->ecp[v + 1]; e++) cs[v] = fmax(cs[v], fabs(L->ecv[e]));
    }
  }
  for (int v = 0; v < N; v++)
    if (!(cs[v] > 0) || !isfinite(cs[v])) cs[v] = 1.0;
}
