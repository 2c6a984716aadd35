/* block_pivot.c -- a first active set for the pivoting solvers by block
 * principal pivoting (block_pivot.h; docs/solvers.md, "A first active
 * set").  [cottle1992 sec. 4.2] for principal pivoting; the rounds flip
 * every broken row at once instead of one.
 *
 * The cost of a round is the factor of A_CC, the gather of what it reads
 * of A_CC, two triangular solves and w += A(:, C) dx_C (the columns of C,
 * or their packed nonzeros): the rounds replace the one-row pivots of the
 * exact methods, each of which costs O(|C|^2 + n |C|) at matrix-vector
 * speed.
 *
 * The Cholesky factor is not formed anew each round.  C is kept in an
 * order whose head changes least: after the rows that survive from the
 * head come the others, the surest first (key_of: free rows, then the
 * clamped rows farthest inside their box, then the joining rows with the
 * largest violation), so that the rows a later round removes tend to sit
 * at the end.  The next factor is then the cheaper of
 *
 *   keep the head:  the factor of the rows before the first removed one
 *                   stays; the t rows after it are factored against it
 *                   (dtrsm, dsyrk, dpotrf: t j0^2 + t^2 j0 + t^3 / 3
 *                   flops at LAPACK's blocked speed, j0 rows kept);
 *   downdate:       the removed rows leave the trailing factor, and the
 *                   joining rows are factored against all the survivors;
 *                   the removed rows leave by the cheaper of
 *                     at once (delete_rows: LQ factorisations of the
 *                     survivors' old factor beside its removed columns,
 *                     in groups of SLV_BPP_LQ_COLS removed rows, 2 s^2 k
 *                     flops for a group of k over s survivors, counted
 *                     SLV_BPP_LQ times; not where F's free columns cannot
 *                     hold its scratch) and
 *                     one by one (chol_delete: a rank-one update of the
 *                     trailing factor, (m - p)^2 entries at matrix-vector
 *                     speed for row p, counted SLV_BPP_L2 flops each).
 *
 * A first round with no factor factors the whole guess.  A non-symmetric
 * A (lemke on a P-matrix) takes a whole LU each round.
 *
 * On a dense symmetric A, the pass w += A(:, C) dx_C waits where it can
 * (q->pend, q->watch): between passes only the rows of C (by x) and a few
 * watched rows outside C (by w_r + A(r, :) pend) are judged, and a round
 * that finds some of them broken flips them alone; the moves go into w in
 * one pass when none broke (docs/solvers.md, "A first active set", "Rounds
 * between passes over A").
 */
#include "block_pivot.h"

#include "operator.h"

#include <cblas.h>
#include <float.h>
#include <string.h>

/* Broken rows: a violation above this times the row's rounding scale
 * (below) is one; smaller ones are left to the exact method. */
#define SLV_BPP_TINY 1e-13
/* An entry of chol_delete's rank-one updates costs this many flops of a
 * blocked factorization (matrix-vector speed against matrix-matrix speed;
 * measured on the spd and contact families, n = 500 and 1000). */
#define SLV_BPP_L2 18.0
/* A flop of delete_rows' LQ factorisation costs this many of a blocked
 * Cholesky factorization's (measured as SLV_BPP_L2), and each group of
 * removed rows counts SLV_BPP_LQ_MB / 4 more rows (its panels' cost). */
#define SLV_BPP_LQ 3.0
/* delete_rows' LQ block size (dtplqt's mb), and the removed rows it takes
 * at a time. */
#define SLV_BPP_LQ_MB   32
#define SLV_BPP_LQ_COLS 32
/* A round makes progress when it leaves at most this share of the least
 * count of broken rows before it (on the spd and contact families each
 * round leaves half or less; on a rank-deficient A, 0.9 or more). */
#define SLV_BPP_SHRINK 0.75
/* The rows outside C nearest to breaking after a pass that are watched
 * until the next (with the rows that leave C meanwhile), at least; and
 * the rounds that may follow one another without a pass over A. */
#define SLV_BPP_WATCH 16
#define SLV_BPP_WAITS 3
/* The passes that may find broken rows the watch did not see before the
 * watch is dropped (each watch costs a column of A per watched row; with
 * 1, the planted problems of test_block_pivot never wait, the first
 * round's broken rows lying outside the sweeps' watch there). */
#define SLV_BPP_MISSES 2

static double lo_of(const slv_bpp *q, int r) { return q->lo ? q->lo[r] : 0.0; }
static double hi_of(const slv_bpp *q, int r) { return q->hi ? q->hi[r] : INFINITY; }

/* The row scale s_r (the caller's sqrt(A_rr)): x_r s_r and w_r / s_r are
 * the units of the equilibrated problem D A D. */
static double row_scale(const slv_bpp *q, int r) { return q->sq[r]; }

/* A new pivot of row r with j rows before it counts as zero below this. */
static double zero_of(const slv_bpp *q, int r, int j) {
  double c = 16.0 * (j + 1) * DBL_EPSILON, a = q->A[r + (size_t)r * q->lda];
  if (!(a > 0)) return q->zero_abs;
  return (c > q->prel ? c : q->prel) * a;
}

/* ---- the order of C ---------------------------------------------------------- */

static void sift(int *v, const double *key, int root, int len) {
  for (;;) {
    int c = 2 * root + 1;
    if (c >= len) return;
    if (c + 1 < len && key[v[c + 1]] > key[v[c]]) c++;
    if (!(key[v[c]] > key[v[root]])) return;
    int t = v[c];
    v[c] = v[root];
    v[root] = t;
    root = c;
  }
}

void slv_sort_by_key(int *v, int len, const double *key) {
  if (len < 2) return;
  for (int root = len / 2 - 1; root >= 0; root--) sift(v, key, root, len);
  for (int end = len - 1; end > 0; end--) {
    int t = v[0];
    v[0] = v[end];
    v[end] = t;
    sift(v, key, 0, end);
  }
}

/* How sure row r is to stay in C, lower first: free rows; a clamped row
 * strictly inside its box by its distance to the nearer bound; a row at a
 * bound by its violation |w_r|; in the units of D A D. */
static double key_of(const slv_bpp *q, int r, const double *x, const double *w) {
  double lo = lo_of(q, r), hi = hi_of(q, r), s = row_scale(q, r);
  if (lo == -INFINITY && hi == INFINITY) return -INFINITY;
  if (q->in[r] == 1 && lo < x[r] && x[r] < hi) return -fmin(x[r] - lo, hi - x[r]) * s;
  return -fabs(w[r]) / s;
}

/* Sort set[a..b) by key_of. */
static void sort_tail(const slv_bpp *q, int a, int b, const double *x, const double *w) {
  for (int c = a; c < b; c++) q->key[q->set[c]] = key_of(q, q->set[c], x, w);
  slv_sort_by_key(q->set + a, b - a, q->key);
}

/* ---- the factor ------------------------------------------------------------------ */

/* Rows [j0, m) of the Cholesky factor of A(set, set) in F, given rows
 * [0, j0): the panel F[j0:m, 0:j0] = A(T, S0) L11^-T, then the factor of
 * A(T, T) - panel panel^T.  A zero pivot (zero_of) at position g cuts C
 * there (rows g.. leave C, in[] follows) and the tail is factored again.
 * Returns the new m. */
static int factor_tail(const slv_bpp *q, int j0, int m) {
  double *F = q->F;
  int ld = q->ldf;
  while (m > j0) {
    int t = m - j0;
    for (int c = 0; c < m; c++) {
      const double *a = q->A + (size_t)q->set[c] * q->lda;
      double *f = F + (size_t)c * ld;
      for (int r = c > j0 ? c : j0; r < m; r++) f[r] = a[q->set[r]];
    }
    if (j0 > 0) {
      cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, t, j0, 1.0, F,
                  ld, F + j0, ld);
      cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, t, j0, -1.0, F + j0, ld, 1.0,
                  F + j0 + (size_t)j0 * ld, ld);
    }
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', t, F + j0 + (size_t)j0 * ld, ld);
    int g = info == 0 ? m : j0 + (int)info - 1;
    for (int j = j0; j < g; j++) {
      double l = F[j + (size_t)j * ld];
      if (!(l * l > zero_of(q, q->set[j], j))) {
        g = j;
        break;
      }
    }
    if (g == m) return m;
    for (int j = g; j < m; j++) q->in[q->set[j]] = 0;
    m = g;
  }
  return m;
}

/* One column of chol_delete's rank-one update: the rotation (c, s) of
 * the old column oc and v into the new column nc (1 / c given: one
 * division a column, not one an entry).  Three distinct arrays. */
static void rotate(const double *restrict oc, double *restrict nc, double *restrict v, int len,
                   double c, double ic, double s) {
  int i = 0;
  for (; i + 4 <= len; i += 4) { /* four at a time: the compiler's vectors at -O2 */
    double li[4], vi[4];
    for (int u = 0; u < 4; u++) {
      li[u] = (oc[i + u] + s * v[i + u]) * ic;
      vi[u] = c * v[i + u] - s * li[u];
    }
    for (int u = 0; u < 4; u++) {
      v[i + u] = vi[u];
      nc[i + u] = li[u];
    }
  }
  for (; i < len; i++) {
    double li = (oc[i] + s * v[i]) * ic;
    v[i] = c * v[i] - s * li;
    nc[i] = li;
  }
}

/* Delete position p from the m x m Cholesky factor in F: rows below p of
 * the columns j0..p-1 move up by one (the columns before j0 are compacted
 * once for every deleted row, compact_head), and the trailing factor L33
 * (old positions p+1..) becomes the factor of L33 L33^T + v v^T, v =
 * L(p+1:, p), by the rank-one update (LINPACK's dchud rotations; stable,
 * as it adds), written one column to the left and one row up.  scratch:
 * m - 1 - p. */
static void chol_delete(const slv_bpp *q, int m, int p, int j0, double *v) {
  double *F = q->F;
  int ld = q->ldf, t = m - 1 - p;
  for (int j = j0; j < p; j++) {
    double *c = F + (size_t)j * ld;
    memmove(c + p, c + p + 1, (size_t)t * sizeof *c);
  }
  memcpy(v, F + (p + 1) + (size_t)p * ld, (size_t)t * sizeof *v);
  for (int jj = 0; jj < t; jj++) {
    const double *oc = F + (p + 1 + jj) + (size_t)(p + 1 + jj) * ld;
    double *nc = F + (p + jj) + (size_t)(p + jj) * ld;
    double l = oc[0], vj = v[jj], r = hypot(l, vj);
    nc[0] = r;
    rotate(oc + 1, nc + 1, v + jj + 1, t - jj - 1, r / l, l / r, vj / l);
  }
}

/* The rows of set[0..m) that left C (in[] = 0), all at positions >= j0,
 * leave the columns before j0 at once: each column's rows after j0 close
 * up (the rows only move there; chol_delete then starts at column j0). */
static void compact_head(const slv_bpp *q, int m, int j0) {
  for (int j = 0; j < j0; j++) {
    double *c = q->F + (size_t)j * q->ldf;
    int k = j0;
    for (int r = j0; r < m; r++)
      if (q->in[q->set[r]]) c[k++] = c[r];
  }
}

/* The positions of the survivors (in[] = 1) of set[j0..m) into pos[0..S),
 * then for the i-th removed row the survivors before it into pos[S + i];
 * returns S. */
static int split_rows(const slv_bpp *q, int m, int j0, int *pos) {
  int S = 0, k = 0;
  for (int c = j0; c < m; c++)
    if (q->in[q->set[c]]) pos[S++] = c;
  int *gs = pos + S;
  for (int c = j0, g = 0; c < m; c++) {
    if (q->in[q->set[c]]) {
      g++;
    } else {
      gs[k++] = g;
    }
  }
  return S;
}

/* The removed rows from the i-th (of k) that delete_rows takes in one LQ,
 * of the survivors from the group's first removed row on. */
static int group_len(int i, int k) { return k - i < SLV_BPP_LQ_COLS ? k - i : SLV_BPP_LQ_COLS; }

/* delete_rows' V: column i the i-th removed column of F (after j0) at the
 * survivors' rows pos[0..S), 0 at those before it. */
static void removed_columns(const slv_bpp *q, int m, int j0, const int *pos, int S, double *V) {
  int i = 0, g = 0;
  for (int c = j0; c < m; c++) {
    if (q->in[q->set[c]]) {
      g++;
      continue;
    }
    const double *col = q->F + (size_t)c * q->ldf;
    double *v = V + (size_t)i++ * S;
    for (int h = 0; h < g; h++) v[h] = 0;
    for (int h = g; h < S; h++) v[h] = col[pos[h]];
  }
}

/* The survivors' columns of F (positions pos[0..S), after j0) close up to
 * columns j0.., each at the survivors' rows from its own down. */
static void close_up_survivors(const slv_bpp *q, int j0, const int *pos, int S) {
  size_t ld = q->ldf;
  for (int j = 0; j < S; j++) {
    const double *src = q->F + (size_t)pos[j] * ld;
    double *dst = q->F + (size_t)(j0 + j) * ld + j0;
    for (int h = j; h < S; h++) dst[h] = src[pos[h]]; /* h <= pos[h] - j0: in place is safe */
  }
}


/* Remove every row of set[j0..m) that left C (in[] = 0; the first at j0)
 * from the Cholesky factor in F at once.  With the head's rows closed up
 * (compact_head), the survivors T after j0 have
 *   A(T, T) - L(T, 0:j0) L(T, 0:j0)^T = L_TT L_TT^T + V V^T,
 * L_TT the old factor at T's rows and columns (lower triangular), V at T's
 * rows and the removed columns; the LQ factorisation [L_TT V] = [L' 0] Q
 * (LAPACK's dtplqt, blocked) gives L' L'^T = L_TT L_TT^T + V V^T, the new
 * trailing factor once each column with a negative diagonal is negated.
 * Scratch: F's columns m..n-1 (free while the factor has m columns) for
 * V, dtplqt's T and work; pos in q->flips (free after flip).  Returns the
 * number of removed rows, or -1 (F unchanged) when the scratch does not
 * fit. */
static int delete_rows(const slv_bpp *q, int m, int j0) {
  int *pos = q->flips, S = split_rows(q, m, j0, pos), k = m - j0 - S, *gs = pos + S;
  lapack_int mb = S < SLV_BPP_LQ_MB ? S : SLV_BPP_LQ_MB;
  size_t ld = q->ldf, need = (size_t)S * (size_t)(k + 2 * mb);
  if (need > (size_t)(q->n - m) * ld) return -1;
  double *V = q->F + (size_t)m * ld, *T = V + (size_t)S * k, *work = T + (size_t)mb * S;
  compact_head(q, m, j0);
  if (S == 0) return k;
  removed_columns(q, m, j0, pos, S, V);
  close_up_survivors(q, j0, pos, S);
  double *A = q->F + j0 + (size_t)j0 * ld;
  for (int i = 0, len; i < k; i += len) {
    len = group_len(i, k);
    int g = gs[i];
    lapack_int ms = S - g, nk = len, l = 0;
    lapack_int lda = (lapack_int)ld, ldb = S, mbg = ms < mb ? ms : mb, info;
    if (ms > 0)
      LAPACK_dtplqt(&ms, &nk, &l, &mbg, A + g + (size_t)g * ld, &lda, V + (size_t)i * S + g, &ldb,
                    T, &mbg, work, &info);
  }
  for (int j = 0; j < S; j++) {
    double *col = A + j + (size_t)j * ld;
    if (col[0] < 0)
      for (int h = 0; h < S - j; h++) col[h] = -col[h];
  }
  return k;
}

/* The costs of the removed rows of set[j0..m) leaving the factor, in
 * flops of a blocked factorization: *lq by delete_rows (its groups of
 * SLV_BPP_LQ_COLS rows, each an LQ of the survivors from the group's first
 * row on; HUGE_VAL where its scratch does not fit), *r1 by chol_delete. */
static void removal_costs(const slv_bpp *q, int m, int j0, double *lq, double *r1) {
  int S = split_rows(q, m, j0, q->flips), k = m - j0 - S, *gs = q->flips + S;
  double sum_g = 0;
  *r1 = 0;
  for (int c = j0; c < m; c++)
    if (!q->in[q->set[c]]) *r1 += SLV_BPP_L2 * (double)(m - c) * (m - c);
  for (int i = 0, len; i < k; i += len) {
    len = group_len(i, k);
    sum_g += 2.0 * (len + SLV_BPP_LQ_MB / 4.0) * (double)(S - gs[i]) * (S - gs[i]);
  }
  int mb = S < SLV_BPP_LQ_MB ? S : SLV_BPP_LQ_MB;
  int fits = (size_t)S * (size_t)(k + 2 * mb) <= (size_t)(q->n - m) * q->ldf;
  *lq = fits ? SLV_BPP_LQ * sum_g : HUGE_VAL;
}

/* The rows of set[j0..m) that left C leave the factor: at once
 * (delete_rows) when by_lq and its scratch fits, else one by one from the
 * last (chol_delete). */
static void remove_rows(const slv_bpp *q, int m, int j0, int by_lq, slv_bpp_result *r) {
  int k = by_lq ? delete_rows(q, m, j0) : -1;
  if (k >= 0) {
    r->deleted += k;
    r->by_lq += k;
    return;
  }
  compact_head(q, m, j0);
  for (int c = m - 1, mm = m; c >= j0; c--)
    if (!q->in[q->set[c]]) {
      chol_delete(q, mm--, c, j0, q->dx);
      r->deleted++;
    }
}

/* The LU factor of A(set, set) (a whole one); 0 if it is singular (a pivot
 * |U_jj| at most prel max|A(set, set)|), else 1. */
static int factor_lu(const slv_bpp *q, int m) {
  if (m == 0) return 1;
  double amax = 0, *F = q->F;
  for (int c = 0; c < m; c++) {
    const double *a = q->A + (size_t)q->set[c] * q->lda;
    double *f = F + (size_t)c * q->ldf;
    for (int r = 0; r < m; r++) {
      f[r] = a[q->set[r]];
      amax = fmax(amax, fabs(f[r]));
    }
  }
  if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, m, F, q->ldf, q->ipiv) != 0) return 0;
  for (int j = 0; j < m; j++)
    if (!(fabs(F[j + (size_t)j * q->ldf]) > q->prel * amax)) return 0;
  return 1;
}

/* y <- A(set, set)^-1 y with the factor: two triangular solves (dtrsv: one
 * right-hand side, no packing), after the LU's row interchanges. */
static void factor_solve(const slv_bpp *q, int m, double *y) {
  if (m == 0) return;
  if (!q->general) {
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, m, q->F, q->ldf, y, 1);
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, m, q->F, q->ldf, y, 1);
    return;
  }
  for (int j = 0; j < m; j++) {
    int p = (int)q->ipiv[j] - 1;
    double t = y[j];
    y[j] = y[p];
    y[p] = t;
  }
  cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, m, q->F, q->ldf, y, 1);
  cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, m, q->F, q->ldf, y, 1);
}

/* ---- one round ----------------------------------------------------------------- */

void slv_bpp_add_column(const slv_op *op, int j, double alpha, double *w) {
  if (op->packed == SLV_OP_COLS) {
    for (int e = op->colptr[j]; e < op->colptr[j + 1]; e++) w[op->rowind[e]] += alpha * op->val[e];
    return;
  }
  cblas_daxpy(op->n, alpha, op->A + (size_t)j * op->lda, 1, w, 1);
}

/* A(:, j) . v over the operator's storage (slv_bpp_add_column's). */
static double column_dot(const slv_op *op, int j, const double *v) {
  if (op->packed == SLV_OP_COLS) {
    double t = 0;
    for (int e = op->colptr[j]; e < op->colptr[j + 1]; e++) t += op->val[e] * v[op->rowind[e]];
    return t;
  }
  return cblas_ddot(op->n, op->A + (size_t)j * op->lda, 1, v, 1);
}

/* The positions of set[0..m) in the order of their rows into
 * flips[0..m) (free here: find_broken fills it after the step). */
static void row_order(const slv_bpp *q, int m) {
  int *at = q->flips, k = 0;
  for (int r = 0; r < q->n; r++) at[r] = -1;
  for (int c = 0; c < m; c++) at[q->set[c]] = c;
  for (int r = 0; r < q->n; r++)
    if (at[r] >= 0) at[k++] = at[r]; /* k <= r: in place */
}

/* Whether the solves' moves wait in q->pend between passes over A: a
 * dense A (a pass over its columns of C costs n a column; packed columns
 * cost their nonzeros, less than the factor updates that the rounds judged
 * on the watched rows alone add there: 2026-11-29-piv4.md), symmetric
 * (flip reads a row's w along its column). */
static int pending(const slv_bpp *q) {
  return q->pend && q->watch && !q->general && q->op->packed == SLV_OP_UNPACKED;
}

/* dx_C = -A_CC^-1 w_C with the factor; x_C += dx_C and w_C = 0 (exactly,
 * as the exact methods hold it).  The rest of w is not touched: dx_C is
 * added to the moves pending (pending(q): q->pend, by row;
 * apply_pending), else to w at once. */
static void solve_step(const slv_bpp *q, int m, double *x, double *w, slv_bpp_result *r) {
  double *dx = q->dx;
  for (int c = 0; c < m; c++) dx[c] = -w[q->set[c]];
  factor_solve(q, m, dx);
  for (int c = 0; c < m; c++) {
    int row = q->set[c];
    x[row] += dx[c];
    if (pending(q)) q->pend[row] += dx[c];
  }
  if (!pending(q)) {
    row_order(q, m);
    for (int t = 0; t < m; t++) {
      int c = q->flips[t];
      if (dx[c] != 0.0) slv_bpp_add_column(q->op, q->set[c], dx[c], w);
    }
    r->passes++;
  }
  for (int c = 0; c < m; c++) w[q->set[c]] = 0;
}

/* Right after a solve on the m rows of C: w += A(:, j) pend_j for every
 * row j with a move pending, then pend = 0 and w_C = 0: the columns in
 * the order they lie in A, not in C's, which jumps about A (the hardware's
 * prefetchers then follow from one column to the next:
 * 2026-11-28-piv3.md).  One pass over the columns of the rows that moved,
 * for any number of solves since the last.  The rows that left C in
 * between took off what was pending when they left (flip). */
static void apply_pending(const slv_bpp *q, int m, double *w, slv_bpp_result *r) {
  if (!pending(q)) return;
  int any = 0;
  for (int j = 0; j < q->n; j++) {
    if (q->pend[j] == 0.0) continue;
    slv_bpp_add_column(q->op, j, q->pend[j], w);
    q->pend[j] = 0.0;
    any = 1;
  }
  for (int c = 0; c < m; c++) w[q->set[c]] = 0;
  r->passes += any;
}

/* X = sum_r s_r |x_r|: the scale of w's rounding, s_r |X| per row, in the
 * units of the equilibrated problem. */
static double x_scale(const slv_bpp *q, const double *x) {
  double X = 0;
  for (int r = 0; r < q->n; r++) X += row_scale(q, r) * fabs(x[r]);
  return X;
}

/* Whether row r breaks its conditions at x_r and w_r (tolerances:
 * SLV_BPP_TINY times the rounding scale of x_r and w_r). */
static int broken_at(const slv_bpp *q, int r, double xr, double wr, double X) {
  double lo = lo_of(q, r), hi = hi_of(q, r), s = row_scale(q, r);
  if (q->in[r]) {
    double tx = SLV_BPP_TINY * X / s;
    return xr < lo - tx || xr > hi + tx;
  }
  if (lo == hi) return 0;
  double tw = SLV_BPP_TINY * (fabs(q->b[r]) + s * X);
  if (xr <= lo) return wr < -tw;
  if (xr >= hi) return wr > tw;
  return fabs(wr) > tw;
}

/* How far row r outside C is from breaking, in the units of D A D (w_r
 * on the side its place at x asks for; inside its box, -|w_r|); +inf for
 * a fixed row. */
static double margin(const slv_bpp *q, int r, const double *x, const double *w) {
  double lo = lo_of(q, r), hi = hi_of(q, r), s = row_scale(q, r);
  if (lo == hi) return INFINITY;
  if (x[r] <= lo) return w[r] / s;
  if (x[r] >= hi) return -w[r] / s;
  return -fabs(w[r]) / s;
}

/* The rows watched between passes over A (pending(q)): q->watch[0..n)
 * (n < 0: no watch), of which [c0, c1) the canaries (the second nearest
 * to breaking: one of them broken, the watch is judged too small); least
 * and since: the progress rule of the rounds (slv_bpp_run) on the counts
 * found between passes; least_any the least count of any round, waited
 * counts included; waited: rounds since the last pass; missed: passes
 * that found broken rows where the watch saw none. */
typedef struct {
  int n, c0, c1, least, since, least_any, waited, missed;
} watching;

/* Row r into the watch (once; at most q->n rows). */
static void watch_add(const slv_bpp *q, watching *wt, int r) {
  for (int i = 0; i < wt->n; i++)
    if (q->watch[i] == r) return;
  if (wt->n < q->n) q->watch[wt->n++] = r;
}

/* How many rows outside C nearest to breaking are watched, and as many
 * next to them as canaries. */
static int watch_size(int n) { return n / 32 > SLV_BPP_WATCH ? n / 32 : SLV_BPP_WATCH; }

/* The 2 watch_size rows outside C (in[] = 0) nearest to breaking at x, w
 * (margin) into watch[], nearest first; their number.  key[] holds their
 * margins (scratch: the rows of C keep theirs). */
static int watch_nearest(const slv_bpp *q, const double *x, const double *w) {
  int k = 0, size = 2 * watch_size(q->n);
  for (int r = 0; r < q->n; r++) {
    if (q->in[r]) continue;
    double g = margin(q, r, x, w);
    if (k == size && !(g < q->key[q->watch[k - 1]])) continue;
    int i = k < size ? k++ : k - 1; /* insertion into the sorted k */
    for (; i > 0 && q->key[q->watch[i - 1]] > g; i--) q->watch[i] = q->watch[i - 1];
    q->watch[i] = r;
    q->key[r] = g;
  }
  return k;
}

/* The watch of the k rows of watch_nearest: its second half canaries. */
static void watch_of(const slv_bpp *q, watching *wt, int k) {
  int size = watch_size(q->n);
  wt->n = k;
  wt->c0 = k < size ? k : size;
  wt->c1 = k;
}

/* After a pass and its flips: the watch becomes the rows outside C
 * nearest to breaking and the rows that just left C. */
static void watch_after_pass(const slv_bpp *q, watching *wt, const double *x, const double *w,
                             int nb) {
  watch_of(q, wt, watch_nearest(q, x, w));
  for (int f = 0; f < nb; f++)
    if (q->in[q->flips[f]] == 0) watch_add(q, wt, q->flips[f]); /* flipped out of C */
}

/* The broken rows into flips[]; their number (w current everywhere). */
static int find_broken(const slv_bpp *q, const double *x, const double *w) {
  double X = x_scale(q, x);
  int nb = 0;
  for (int r = 0; r < q->n; r++)
    if (broken_at(q, r, x[r], w[r], X)) q->flips[nb++] = r;
  return nb;
}

/* Between passes (moves pending): the rows of C that left their box (by
 * x) and the watched rows outside C that broke, at their w_r + A(r, :)
 * pend (A symmetric: along column r), into flips[]; their number, or -1
 * where a canary broke. */
static int find_broken_watched(const slv_bpp *q, const watching *wt, const double *x, double *w) {
  double X = x_scale(q, x);
  int nb = 0;
  for (int r = 0; r < q->n; r++)
    if (q->in[r] && broken_at(q, r, x[r], w[r], X)) q->flips[nb++] = r;
  for (int i = 0; i < wt->n; i++) {
    int r = q->watch[i];
    if (q->in[r] || !broken_at(q, r, x[r], w[r] + column_dot(q->op, r, q->pend), X)) continue;
    if (i >= wt->c0 && i < wt->c1) return -1;
    q->flips[nb++] = r;
  }
  return nb;
}

/* Whether nb broken rows after a least of *least is progress (a quarter
 * fewer); *since counts the rounds without, *least follows. */
static void progress(int nb, int *least, int *since) {
  *since = nb <= SLV_BPP_SHRINK * *least ? 0 : *since + 1;
  if (nb < *least) *least = nb;
}

/* The rows broken after a round's solve into flips[]; their number.  With
 * moves pending (pending(q)) and a watch (wt->n >= 0), first the rows of
 * C that left their box and the watched rows (find_broken_watched): where
 * any broke, and their counts since the last pass make progress, they
 * alone are flipped, and w waits; else w is brought up to date
 * (apply_pending) and every row judged, the watch's progress rule begun
 * again (docs/solvers.md, "A first active set").  *judged: whether every
 * row was judged. */
static int round_broken(const slv_bpp *q, int m, watching *wt, const double *x, double *w,
                        int *judged, slv_bpp_result *r) {
  int seen = 1; /* the watch saw broken rows, or was not asked */
  if (pending(q) && wt->n >= 0 && wt->waited >= 0) {
    int nb = find_broken_watched(q, wt, x, w);
    seen = nb > 0;
    if (nb > 0) progress(nb, &wt->least, &wt->since);
    if (nb > 0 && wt->since < SLV_BPP_PATIENCE && wt->waited < SLV_BPP_WAITS) {
      if (nb < wt->least_any) wt->least_any = nb;
      wt->waited++;
      *judged = 0;
      return nb;
    }
  }
  apply_pending(q, m, w, r);
  *judged = 1;
  int nb = find_broken(q, x, w);
  /* the rows watched missed the rows that broke a second time, or the
   * rest after waiting: no more waiting (nor watching) */
  wt->missed += !seen && nb > 0;
  if (wt->missed >= SLV_BPP_MISSES || (wt->waited > 0 && nb > SLV_BPP_SHRINK * wt->least_any))
    wt->n = -1, wt->waited = -1;
  if (wt->waited >= 0) {
    wt->least = INT_MAX;
    wt->since = 0;
    wt->waited = 0;
  }
  if (nb < wt->least_any) wt->least_any = nb;
  return nb;
}

/* Flip the nb broken rows: a clamped one to its nearer bound (w follows,
 * in[] = 0), the others marked to join (in[] = 2).  judged 0 (moves
 * pending): a leaving row's w_r, current as a row of C, takes off
 * A(r, :) pend, which apply_pending adds to every row, and the row is
 * watched; a joining row's w_r takes A(r, :) pend on (current, as a row
 * of C).  Returns the number that join. */
static int flip(const slv_bpp *q, int nb, double *x, double *w, int judged, watching *wt) {
  int joins = 0;
  for (int f = 0; f < nb; f++) {
    int r = q->flips[f];
    if (q->in[r]) {
      double to = x[r] < lo_of(q, r) ? lo_of(q, r) : hi_of(q, r);
      if (!judged) {
        w[r] -= column_dot(q->op, r, q->pend);
        watch_add(q, wt, r);
      }
      slv_bpp_add_column(q->op, r, to - x[r], w);
      x[r] = to;
      q->in[r] = 0;
    } else {
      if (!judged) w[r] += column_dot(q->op, r, q->pend);
      q->in[r] = 2;
      joins++;
    }
  }
  return joins;
}

/* The next set and its factor after flip: survivors of set[0..m) (in[] =
 * 1), then the joining rows (in[] = 2), factored by the cheaper of the
 * header's two ways (a non-symmetric A: the caller refactors).  Returns
 * the new m. */
static int next_set(const slv_bpp *q, int m, int joins, const double *x, const double *w,
                    slv_bpp_result *r) {
  int j0 = m, s = 0;
  for (int c = 0; c < m; c++) {
    if (q->in[q->set[c]]) {
      s++;
    } else if (j0 == m) {
      j0 = c;
    }
  }
  double t = s + joins - j0, keep = t * j0 * j0 + t * t * j0 + t * t * t / 3;
  double u = joins, append = u * s * s + u * u * s + u * u * u / 3, lq, r1;
  removal_costs(q, m, j0, &lq, &r1);
  int use_down = !q->general && j0 < m && fmin(lq, r1) + append < keep;
  if (use_down) remove_rows(q, m, j0, lq < r1, r);
  int k = 0;
  for (int c = 0; c < m; c++)
    if (q->in[q->set[c]]) q->set[k++] = q->set[c];
  for (int i = 0; i < q->n; i++) /* the joining rows: flips[] holds them among others */
    if (q->in[i] == 2) {
      q->in[i] = 1;
      q->set[k++] = i;
    }
  int head = use_down ? s : j0;
  if (!q->general) r->kept += head;
  sort_tail(q, head, k, x, w);
  return q->general ? k : factor_tail(q, head, k);
}

/* ---- a guess by sweeps --------------------------------------------------------- */

/* The daxpy of the last sweep starts at a multiple of this row:
 * OpenBLAS's daxpy kernels take blocks of 16 or 32 entries from the start
 * of the vector and the rest one by one, so from such a row every entry
 * it writes is taken by the same kind of step as in the whole column's
 * call: the same bits (test_block_pivot checks the guess and its keys
 * against whole sweeps). */
#define SLV_BPP_AXPY_ALIGN 64

/* wt += d A(:, r), all of it (tail 0) or, on a dense A, the rows from
 * SLV_BPP_AXPY_ALIGN below r + 1 on (tail 1: the rows after r, which the
 * same sweep reads later). */
static void sweep_update(const slv_bpp *q, int r, double d, double *wt, int tail) {
  if (!tail || q->op->packed != SLV_OP_UNPACKED) {
    slv_op_col_axpy(q->op, r, d, wt);
    return;
  }
  int s = (r + 1) / SLV_BPP_AXPY_ALIGN * SLV_BPP_AXPY_ALIGN;
  cblas_daxpy(q->n - s, d, q->A + s + (size_t)r * q->lda, 1, wt + s, 1);
}

/* One sweep of projected Gauss-Seidel on xt, wt = A xt + b kept current
 * (pgs's move, slv_pgs_move, and its column update): rows whose A_rr is
 * not positive stay.  tail: the last sweep, after which wt is not read
 * (slv_bpp_sweep_guess): only the rows after the moved one are updated
 * (half the column on average), and wt is then current there alone. */
static void guess_sweep(const slv_bpp *q, const double *invd, double *xt, double *wt, int tail) {
  for (int r = 0; r < q->n; r++) {
    if (!(invd[r] > 0)) continue;
    double xn;
    slv_pgs_move(xt[r], wt[r], invd[r], lo_of(q, r), hi_of(q, r), &xn);
    double d = xn - xt[r];
    if (d == 0.0) continue;
    xt[r] = xn;
    sweep_update(q, r, d, wt, tail);
  }
}

/* Whether every given row set[0..m) is free: its key (key_of) is then
 * -inf whatever wt, and the last sweep need not leave wt current. */
static int given_free(const slv_bpp *q, int m) {
  for (int c = 0; c < m; c++)
    if (lo_of(q, q->set[c]) != -INFINITY || hi_of(q, q->set[c]) != INFINITY) return 0;
  return 1;
}

int slv_bpp_sweep_guess(slv_bpp *q, const double *x, const double *w, int m) {
  int n = q->n;
  if (n < SLV_BPP_SWEEP_MIN || q->general) return -1;
  double *xt = q->F, *wt = q->F + q->ldf, *invd = q->F + 2 * (size_t)q->ldf;
  memcpy(xt, x, (size_t)n * sizeof *xt);
  memcpy(wt, w, (size_t)n * sizeof *wt);
  for (int r = 0; r < n; r++) {
    double a = q->A[r + (size_t)r * q->lda];
    invd[r] = a > 0 ? slv_pgs_step(1.0, a) : 0.0;
  }
  int tail = given_free(q, m); /* the keys below read wt only for a given row at a bound */
  for (int k = 0; k < SLV_BPP_SWEEPS; k++)
    guess_sweep(q, invd, xt, wt, tail && k == SLV_BPP_SWEEPS - 1);
  memset(q->in, 0, (size_t)n * sizeof *q->in);
  for (int c = 0; c < m; c++) q->in[q->set[c]] = 1;
  for (int r = 0; r < n; r++)
    if (!q->in[r] && lo_of(q, r) < xt[r] && xt[r] < hi_of(q, r)) {
      q->in[r] = 1;
      q->set[m++] = r;
    }
  for (int c = 0; c < m; c++) q->key[q->set[c]] = key_of(q, q->set[c], xt, wt);
  q->keyed = 1;
  q->watched = q->watch ? watch_nearest(q, xt, wt) : 0;
  return m;
}

/* The end of the rounds: the moves pending into w (w = A x + b), the
 * status passed on. */
static slv_status rounds_end(const slv_bpp *q, int m, double *w, slv_bpp_result *r, slv_status st) {
  apply_pending(q, m, w, r);
  return st;
}

slv_status slv_bpp_run(const slv_bpp *q, double *x, double *w, int m, slv_bpp_result *r) {
  int least = INT_MAX, since = 0;
  /* the sweeps' watch, else none: the first round then judges every row */
  watching wt = { -1, 0, 0, INT_MAX, 0, INT_MAX, 0, 0 };
  if (pending(q) && q->keyed) watch_of(q, &wt, q->watched);
  memset(q->in, 0, (size_t)q->n * sizeof *q->in);
  for (int c = 0; c < m; c++) q->in[q->set[c]] = 1;
  if (q->pend) memset(q->pend, 0, (size_t)q->n * sizeof *q->pend);
  memset(r, 0, sizeof *r);
  r->pivots = m - q->given;
  if (q->keyed) {
    slv_sort_by_key(q->set, m, q->key);
  } else {
    sort_tail(q, 0, m, x, w);
  }
  double mm = (double)m;
  slv_status stop = slv_should_stop(q->op, mm * mm * mm / 3 + (double)q->n * mm);
  if (stop) return stop;
  if (!q->general) m = factor_tail(q, 0, m);
  for (;;) {
    r->rounds++;
    if (q->general && !factor_lu(q, m)) {
      r->m = m;
      r->singular = 1;
      return rounds_end(q, m, w, r, SLV_CONVERGED);
    }
    solve_step(q, m, x, w, r);
    int judged, nb = round_broken(q, m, &wt, x, w, &judged, r);
    r->m = m;
    r->broken = nb;
    if (judged) progress(nb, &least, &since);
    if ((judged && (nb == 0 || since >= SLV_BPP_PATIENCE)) || r->rounds >= SLV_BPP_ROUNDS ||
        nb > q->budget - r->pivots)
      return rounds_end(q, m, w, r, SLV_CONVERGED);
    r->pivots += nb;
    mm = (double)m;
    stop = slv_should_stop(q->op, mm * mm * mm / 3 + (double)q->n * mm);
    if (stop) return rounds_end(q, m, w, r, stop);
    int joins = flip(q, nb, x, w, judged, &wt);
    if (judged && pending(q) && wt.waited >= 0) watch_after_pass(q, &wt, x, w, nb);
    m = next_set(q, m, joins, x, w, r);
  }
}
