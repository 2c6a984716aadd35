/* dantzig.c -- principal pivoting (Dantzig / Baraff) for the boxed LCP with
 * free rows and findex friction rows, on a symmetric A.
 *
 * Problem (slv.h): w = A x + b, lo <= x <= hi, and for each row i
 *     x_i = lo_i => w_i >= 0,   x_i = hi_i => w_i <= 0,   lo_i < x_i < hi_i => w_i = 0;
 * free rows have lo = -inf, hi = +inf; a friction row i with findex[i] = j
 * has the bounds -mu_i |x_j| .. mu_i |x_j| at the FINAL x.
 *
 * ---- Method ([baraff1994] sec. 4-5, Dantzig's algorithm extended to
 * bounds as in ODE's dLCP; [cottle1992] sec. 4.2 for principal pivoting;
 * docs/solvers.md, "Principal pivoting (Dantzig)") -------------------------
 * The rows are in three sets:
 *     C  "clamped":     w = 0, lo <= x <= hi (free rows are always here);
 *     N  "at a bound":  x = lo with w >= 0, or x = hi with w <= 0;
 *     U  "unprocessed": x fixed somewhere in [lo, hi], w not looked at.
 * Rows leave U one at a time ("driven") and then move between C and N; the
 * rows of C and N stay valid throughout.  For the driven row i, x_i moves by
 * t dir, dir = -sign(w_i), while w_C stays 0.  For a unit step dx_i = 1:
 *     dx_C = -A_CC^-1 A_Ci,   dw = A(:,i) + A(:,C) dx_C,
 *     dw_i = s = A_ii - A_iC A_CC^-1 A_Ci   (the Schur complement of A_CC).
 * t is the largest step keeping every processed row valid, and the row that
 * blocks it changes set (one pivot, res->pivots):
 *     w_i reaches 0 (t = |w_i| / s, needs s > 0)   -> i joins C, next row;
 *     x_i reaches its bound in direction dir        -> i joins N, next row;
 *     x_j (j in C) reaches a bound                  -> j moves to N, continue;
 *     w_j (j in N) reaches 0                        -> j moves to C, continue.
 * The driving works from any start in [lo, hi], so rows with lo > 0 or
 * hi < 0 (ODE needs lo <= 0 <= hi) need neither a shift nor a refusal: they
 * start at the projection of the starting x.  Rows are driven most violated
 * first (order_rows), which cuts the pivots that later move rows back and
 * forth between C and N (by more than half on the peers' SPD instances:
 * experiments/MEASUREMENTS.md, "Measurements: solvers").
 *
 * Failure modes.  For A positive definite every s and every new pivot is
 * positive and the method ends.  If s <= 0 and nothing else blocks the
 * step, the direction is a ray: A is singular or indefinite on C + {i}
 * (ODE prints "LCP internal error, s <= 0", zeroes the remaining unknowns
 * and returns).  Here that is SLV_BREAKDOWN naming the row, s and |C|; x is
 * the valid partial iterate.  A row of N whose entry into C would make A_CC
 * singular (new pivot <= max(pivot_tol max|A_ii|, 16 k eps A_rr)) does not
 * enter: for positive semidefinite A its dw is then 0 along every direction
 * that keeps w_C = 0, so it blocked only by rounding; it stays at its bound
 * with w = 0 for the rest of that drive.  If A is indefinite instead, the
 * final residual shows it and the status is SLV_BREAKDOWN with that row.
 *
 * Scaling.  Every zero test is made in the units of the equilibrated
 * problem D A D, D = diag(1 / sqrt(A_ii)), without forming it: a new pivot
 * of row r is zero below max(pivot_tol, 16 (k+1) eps) A_rr (not pivot_tol
 * max|A_ii|), and the ratio test's rounding-level entries are judged on
 * dx_r sqrt(A_rr) and dw_r / sqrt(A_rr) per unit of x_i sqrt(A_ii).  The
 * method is then the same on A and on any D A D.  On SPD matrices with row
 * scalings over 7 decades (condition 1e14 .. 1e15, test_dantzig.c and
 * `lcplab generate`'s scaled-spd) the tests against max|A_ii| took the small
 * rows' pivots for zeros (breakdown) and their steps for rounding (cycles
 * to the pivot limit); now they solve to res_rel ~1e-16.
 *
 * ---- Linear algebra ------------------------------------------------------
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
 * when they start).  Dense A: a permuted copy M = A(perm, perm) keeps C in
 * positions [0, k) and N in [k, k + |N|), so dw_N is one dgemv on a
 * contiguous block; a set change swaps two rows and columns of M, O(n).
 * Sparse A (contact matrices J W J^T stored dense, nonzeros <= n^2/4): dw
 * is accumulated over the operator's packed nonzero columns (operator.h)
 * of the clamped rows,
 * O(nnz(A(:,C))), M is not built, and the forward solves skip the zeros of
 * y.  Free rows (and, with opt->warm_start, the rows whose start is strictly
 * inside their box) start in C, factored in one block (LAPACK dpotrf,
 * BLAS-3); rows whose solution leaves the box go back to U.  After the last
 * pivot one step of iterative refinement on the final C (w = A x + b
 * recomputed, A_CC dx_C = -w_C) removes the drift of the updates.
 *
 * ---- findex rows -----------------------------------------------------------
 * ODE and its copies (Bullet, DART) freeze a friction row's bounds at the
 * normal x_j of the moment it is driven; x_j moves afterwards, so the final
 * x violates |x_i| <= mu_i |x_j| or its complementarity (the peers stop at
 * res_nat 0.33 .. 3.3 on the contact-box instances).  Here the friction
 * bounds h are an outer iteration of boxed passes (res->iterations counts
 * them), each warm-started from the previous clamped set (one dpotrf
 * instead of k appends), judged by the library's residual with the bounds
 * at the new x.  Between passes: the Newton point of the last active set
 * (newton_findex: friction rows at a bound follow their normal, one LU
 * solve), which is the answer once the active set is right; if the pass from
 * its bounds does not lower the residual, the fixed-point step h = mu |x_n|.
 * This is not guaranteed to converge (the problem is not a symmetric LCP: its
 * LCP form needs Lemke's method).  When the residual has not improved by
 * 10 % in DZ_STALL_PASSES passes, the passes restart from the best x with
 * its bounds perturbed by +-30 % (seeded by opt->seed); after DZ_RESTARTS
 * restarts the status is SLV_STAGNATED, after opt->max_iter passes
 * SLV_MAX_ITER, each with the best x seen and its residual in the message.
 * A pass that fails (pivot limit, breakdown) returns the better of its
 * partial x and the best point seen before it (the start, for the first
 * pass), by the library residual (keep_better).  On the pyramid's step
 * problems (A positive semidefinite, rank 36 for 108 rows) the boxed passes
 * cycle to the pivot limit with |C| at the rank: the method's termination
 * rests on A positive definite, and this is not fixed here.
 * How often that converges on the peers' contact-box instances:
 * experiments/MEASUREMENTS.md, "Measurements: solvers".
 *
 * Requires A symmetric (SLV_CAP_NEEDS_SYMMETRIC: the factor reads the lower
 * triangle) and dense storage.  slv_pivot_limit(opt, n) bounds the pivots of
 * each boxed pass -> SLV_MAX_ITER.  Statuses: SLV_CONVERGED, SLV_MAX_ITER,
 * SLV_STAGNATED, SLV_BREAKDOWN, SLV_NOT_FINITE, SLV_TIME_LIMIT, SLV_INTERRUPTED
 * (polled before each pivot; a failed pass: the best x seen).
 *
 * Notation: baraff1994 with x for his f and w for his a; k = |C|.
 * Everything is allocated by dz_init for n_max; dz_solve never allocates.
 */
#include "slv_internal.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

/* Row states.  ST_Z: w = 0 already and s = 0 (the row depends linearly on
 * C), so it needs no pivot and, for semidefinite A, never blocks. */
enum { ST_U = 0, ST_C = 1, ST_LO = 2, ST_HI = 3, ST_Z = 4 };

/* What blocks a step. */
enum { BLK_NONE = 0, BLK_I_C, BLK_I_N, BLK_C_N, BLK_N_C };

enum {
  DZ_WARM_ROUNDS = 8,   /* block warm start: rounds of dropping rows that leave the box */
  DZ_STALL_PASSES = 50, /* findex: passes without a 10 % residual improvement ... */
  DZ_RESTARTS = 3       /* ... before a restart from perturbed bounds; then stop */
};

typedef struct {
  int n_max;
  double *M;         /* n_max^2: A(perm, perm), column-major, ld = n (dense path) */
  double *L;         /* n_max^2: unit lower factor of A_CC, column-major, ld = n */
  double *d;         /* n_max: D of the factor, slot order */
  double *lo, *hi;   /* n_max: the bounds of the current boxed pass */
  double *y, *v;     /* n_max: L^-1 a and D^-1 L^-1 a, slot order */
  double *dx;        /* n_max: dx_C for a unit step, slot order */
  double *dw;        /* n_max: dw for a unit step, N rows by position - k; sparse: by row */
  double *tmp;       /* n_max scratch; after fac_remove: p = L33^-1 l (GGMS C1) */
  double *beta;      /* n_max: the beta_j of the last fac_remove */
  double *yj;        /* n_max: forward solve of a row entering C from N */
  double *xb;        /* n_max: best x seen (findex passes) */
  double *hN;        /* n_max: friction bounds h of the trial pass */
  double *xa;        /* n_max: x of the accepted pass */
  lapack_int *ipiv;  /* n_max: LU pivots of the Newton system */
  int *perm, *iperm; /* position -> row, row -> position */
  int *slot_pos;     /* factor slot -> position (positions [0, k) are C) */
  int *pos_slot;     /* position -> factor slot, for positions < k */
  int *crow;         /* factor slot -> row (= perm[slot_pos[slot]]) */
  int *cand;         /* n_max: rows for the block (warm) start */
  int *cacc;         /* n_max: clamped set of the accepted pass (findex) */
  signed char *st;   /* n_max: ST_* per row */
  int *stamp;        /* n_max: drive id at which a row was found singular */
  /* per solve */
  const slv_problem *p;
  slv_op *op;      /* the solve's operator */
  const double *A; /* its dense view: A(i,j) = A[i + j lda] */
  size_t lda;
  const int *colptr, *rowind; /* its packed nonzero columns (sparse path) */
  const double *val;
  slv_hist *h; /* the solve's history */
  int n, k, nN, packed, pivots, pass_pivots0, limit;
  int drive_id;        /* counts drives: stamps of singular rows */
  int nsing, sing_row; /* singular N -> C pivots skipped; the last row */
  double sing_s;       /* and its pivot */
  double ptol; /* pivot_tol * max|A_ii|: the zero of a pivot when A_rr = 0, and of newton_findex */
  double prel; /* opt->pivot_tol: a new pivot of row r is zero below prel A_rr */
  double *sq;  /* n_max: sqrt(A_ii) (sqrt(max|A_ii|) where A_ii <= 0): the row scales */
} dz_state;

static void dz_free(void *st) {
  dz_state *s = st;
  free(s->M);
  free(s->L);
  free(s->d);
  free(s->lo);
  free(s->hi);
  free(s->y);
  free(s->v);
  free(s->dx);
  free(s->dw);
  free(s->tmp);
  free(s->beta);
  free(s->yj);
  free(s->xb);
  free(s->hN);
  free(s->xa);
  free(s->ipiv);
  free(s->perm);
  free(s->iperm);
  free(s->slot_pos);
  free(s->pos_slot);
  free(s->crow);
  free(s->cand);
  free(s->cacc);
  free(s->st);
  free(s->stamp);
  free(s->sq);
  memset(s, 0, sizeof *s);
}

static slv_status dz_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  dz_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->n_max = n_max;
  s->M = malloc(m * m * sizeof *s->M);
  s->L = malloc(m * m * sizeof *s->L);
  s->d = malloc(m * sizeof *s->d);
  s->lo = malloc(m * sizeof *s->lo);
  s->hi = malloc(m * sizeof *s->hi);
  s->y = malloc(m * sizeof *s->y);
  s->v = malloc(m * sizeof *s->v);
  s->dx = malloc(m * sizeof *s->dx);
  s->dw = malloc(m * sizeof *s->dw);
  s->tmp = malloc(m * sizeof *s->tmp);
  s->beta = malloc(m * sizeof *s->beta);
  s->yj = malloc(m * sizeof *s->yj);
  s->xb = malloc(m * sizeof *s->xb);
  s->hN = malloc(m * sizeof *s->hN);
  s->xa = malloc(m * sizeof *s->xa);
  s->ipiv = malloc(m * sizeof *s->ipiv);
  s->perm = malloc(m * sizeof *s->perm);
  s->iperm = malloc(m * sizeof *s->iperm);
  s->slot_pos = malloc(m * sizeof *s->slot_pos);
  s->pos_slot = malloc(m * sizeof *s->pos_slot);
  s->crow = malloc(m * sizeof *s->crow);
  s->cand = malloc(m * sizeof *s->cand);
  s->cacc = malloc(m * sizeof *s->cacc);
  s->st = malloc(m * sizeof *s->st);
  s->stamp = malloc(m * sizeof *s->stamp);
  s->sq = malloc(m * sizeof *s->sq);
  if (!s->sq || !s->M || !s->L || !s->d || !s->lo || !s->hi || !s->y || !s->v || !s->dx || !s->dw ||
      !s->tmp || !s->beta || !s->yj || !s->xb || !s->hN || !s->xa || !s->ipiv || !s->perm ||
      !s->iperm || !s->slot_pos || !s->pos_slot || !s->crow || !s->cand || !s->cacc || !s->stamp ||
      !s->st) {
    dz_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* ---- data of A ------------------------------------------------------------ */

/* The operator's packed nonzero columns of A (operator.h: for n >= 64,
 * when they fit in a quarter of n^2: contact matrices); returns 1 if it
 * formed them. */
static int packed_columns(dz_state *s) {
  if (slv_op_pack(s->op) != SLV_OP_COLS) return 0;
  s->colptr = s->op->colptr;
  s->rowind = s->op->rowind;
  s->val = s->op->val;
  return 1;
}

/* w = A x + b: over the packed columns when A is sparse, else dgemv. */
static void full_w(const dz_state *s, const double *x, double *w) {
  slv_op_matvec(s->op, x, s->p->b, w);
}

/* w_i = b_i + A(i,:) x, read along column i (A is symmetric). */
static double row_w(const dz_state *s, int i, const double *x) {
  const slv_problem *p = s->p;
  double r = p->b[i];
  if (s->packed) {
    for (int q = s->colptr[i]; q < s->colptr[i + 1]; q++) r += s->val[q] * x[s->rowind[q]];
    return r;
  }
  return r + cblas_ddot(p->n, s->A + (size_t)i * s->lda, 1, x, 1);
}

static inline double aij(const dz_state *s, int i, int j) { return s->A[i + (size_t)j * s->lda]; }

/* M = A(perm, perm). */
static void build_M(dz_state *s) {
  int n = s->n;
  for (int c = 0; c < n; c++) {
    const double *a = s->A + (size_t)s->perm[c] * s->lda;
    double *m = s->M + (size_t)c * n;
    for (int r = 0; r < n; r++) m[r] = a[s->perm[r]];
  }
}

/* Exchange positions a and b: perm, rows and columns of M, slot links. */
static void pos_swap(dz_state *s, int a, int b) {
  if (a == b) return;
  int n = s->n;
  if (!s->packed) {
    cblas_dswap(n, s->M + (size_t)a * n, 1, s->M + (size_t)b * n, 1);
    cblas_dswap(n, s->M + a, n, s->M + b, n);
  }
  int ra = s->perm[a], rb = s->perm[b];
  s->perm[a] = rb;
  s->perm[b] = ra;
  s->iperm[ra] = b;
  s->iperm[rb] = a;
  int sa = a < s->k ? s->pos_slot[a] : -1, sb = b < s->k ? s->pos_slot[b] : -1;
  if (sa >= 0) s->slot_pos[sa] = b;
  if (sb >= 0) s->slot_pos[sb] = a;
  if (b < s->k) s->pos_slot[b] = sa;
  if (a < s->k) s->pos_slot[a] = sb;
  /* a slot keeps its row: crow is unchanged */
}

static inline int slot_row(const dz_state *s, int slot) { return s->crow[slot]; }

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
static void fac_fsolve(const dz_state *s, double *y) {
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
static void fac_bsolve(const dz_state *s, double *y) {
  if (s->k > 1)
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasUnit, s->k, s->L, s->n, y, 1);
}

/* Append a row to the factor: L(k, 0:k) = l (= D^-1 L^-1 a), D(k) = dk. */
static void fac_append(dz_state *s, const double *l, double dk) {
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
static void fac_remove(dz_state *s, int p) {
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

/* ---- set changes ---------------------------------------------------------------- */

/* Row at position pos joins C as slot k (its factor row already appended). */
static void enter_C(dz_state *s, int pos) {
  int k = s->k;
  pos_swap(s, pos, k);
  s->slot_pos[k] = k;
  s->pos_slot[k] = k;
  s->crow[k] = s->perm[k];
  s->k = k + 1;
}

/* Slot sl leaves C (factor updated here); its row lands at position k-1,
 * which is the first N position once k has dropped by one. */
static void leave_C(dz_state *s, int sl) {
  int k = s->k, pos = s->slot_pos[sl];
  pos_swap(s, pos, k - 1); /* now slot sl sits at position k-1 */
  fac_remove(s, sl);
  for (int q = sl; q < k - 1; q++) {
    s->slot_pos[q] = s->slot_pos[q + 1];
    s->pos_slot[s->slot_pos[q]] = q;
    s->crow[q] = s->crow[q + 1];
  }
  s->k = k - 1;
}

/* ---- the driving of one row -------------------------------------------------------- */

/* y = A(C, i) in slot order. */
static void gather_col(const dz_state *s, int i, double *y) {
  const double *a = s->A + (size_t)i * s->lda;
  for (int q = 0; q < s->k; q++) y[q] = a[slot_row(s, q)];
}

/* dw for a unit step (dx_i = 1, dx_C = s->dx) on the N rows: s->dw[pos - k]
 * for positions k .. k+nN (the last one is the driven row i). */
static void unit_dw(dz_state *s, int i) {
  int k = s->k, nN = s->nN, n = s->n;
  if (!s->packed) {
    /* dw = M(k:k+nN, pos_i) + M(k:k+nN, 0:k) dx_pos; dx scattered to positions */
    double *dxp = s->tmp;
    for (int q = 0; q < k; q++) dxp[s->slot_pos[q]] = s->dx[q];
    int pi = k + nN;
    memcpy(s->dw, s->M + k + (size_t)pi * n, (size_t)(nN + 1) * sizeof *s->dw);
    if (k > 0)
      cblas_dgemv(CblasColMajor, CblasNoTrans, nN + 1, k, 1.0, s->M + k, n, dxp, 1, 1.0, s->dw, 1);
    return;
  }
  /* sparse: accumulate by rows in tmp (zeroed), then read the N rows */
  double *acc = s->tmp;
  memset(acc, 0, (size_t)n * sizeof *acc);
  for (int q = s->colptr[i]; q < s->colptr[i + 1]; q++) acc[s->rowind[q]] += s->val[q];
  for (int q = 0; q < k; q++) {
    double c = s->dx[q];
    if (c == 0.0) continue;
    int j = slot_row(s, q);
    for (int e = s->colptr[j]; e < s->colptr[j + 1]; e++) acc[s->rowind[e]] += c * s->val[e];
  }
  for (int r = 0; r <= nN; r++) s->dw[r] = acc[s->perm[k + r]];
}

/* A new factor pivot (Schur complement) of row r, with k rows clamped,
 * counts as zero below max(pivot_tol, 16 (k + 1) eps) A_rr: s = A_rr - y.v
 * cancels to rounding of about k eps A_rr when row r depends linearly on
 * the clamped rows.  Relative to A_rr, not to max|A_ii|: the test is then
 * the same on D A D for any positive diagonal D (rows scaled over many
 * decades: a row of small scale is not singular for being small). */
static inline double zero_of(const dz_state *s, double arr, int k) {
  double c = 16.0 * (k + 1) * DBL_EPSILON, a = fabs(arr);
  if (!(a > 0)) return s->ptol;
  return (c > s->prel ? c : s->prel) * a;
}
static inline double pivot_zero(const dz_state *s, double arr) { return zero_of(s, arr, s->k); }

static slv_status breakdown(dz_state *s, slv_result *res, int row, double sv, double zero) {
  slv_msgf(res->message, sizeof res->message,
           "dantzig: breakdown driving row %d: Schur complement s=%.3g <= %.3g and no bound "
           "blocks the step (|C|=%d); A is singular or indefinite on the clamped set",
           row, sv, zero, s->k);
  return SLV_BREAKDOWN;
}

/* Rounding level of w_i = b_i + A(i,:) x: 64 eps (|b_i| + sum_j |A_ij x_j|). */
static double w_rounding(const dz_state *s, int i, const double *x) {
  const slv_problem *p = s->p;
  double m = fabs(p->b[i]);
  if (s->packed) {
    for (int q = s->colptr[i]; q < s->colptr[i + 1]; q++) m += fabs(s->val[q] * x[s->rowind[q]]);
  } else {
    const double *a = s->A + (size_t)i * s->lda;
    for (int j = 0; j < p->n; j++) m += fabs(a[j] * x[j]);
  }
  return 64 * DBL_EPSILON * m;
}

static slv_status max_pivots(dz_state *s, slv_result *res, int i) {
  slv_msgf(res->message, sizeof res->message,
           "dantzig: pivot limit %d reached while driving row %d (|C|=%d, %d rows left)", s->limit,
           i, s->k, s->n - s->k - s->nN);
  return SLV_MAX_ITER;
}

/* The driven row's y = L^-1 A(C, i) after slot p left the factor (with
 * the old k; fac_remove has left pv and beta): y1 stays, and
 * L33 Lt y3' = A3 - L31 y1 = L33 y3 + l y_p gives y3' = Lt^-1 (y3 + y_p pv),
 * where Lt = I + strictly_lower(pv beta^T) is solved by a running sum:
 * O(k) instead of a new forward solve. */
static void y_after_remove(const dz_state *s, double *y, int p, int kold) {
  int m = kold - 1 - p;
  const double *pv = s->tmp, *beta = s->beta;
  double yp = y[p], acc = 0;
  for (int r = 0; r < m; r++) {
    double u = y[p + 1 + r] + yp * pv[r] - pv[r] * acc;
    y[p + r] = u;
    acc += beta[r] * u;
  }
}

/* The row being driven. */
typedef struct {
  int i, id;      /* its row, and the drive's stamp */
  double lo, hi;  /* its bounds */
  double wi, aii; /* w_i, kept current; A_ii */
  double dir, sc; /* this pivot's direction of x_i, and the Schur complement */
} driven;

/* The row at position k+nN, its x_i in its box; 1 if it is valid at a
 * bound already (it joins N without a pivot), else 0 with y = L^-1 A(C, i). */
static int drive_start(dz_state *s, driven *d, double *x, double *w) {
  int i = d->i = s->perm[s->k + s->nN];
  d->lo = s->lo[i];
  d->hi = s->hi[i];
  d->wi = row_w(s, i, x);
  if (x[i] < d->lo) x[i] = d->lo;
  if (x[i] > d->hi) x[i] = d->hi;
  if (d->lo == d->hi || (x[i] == d->lo && d->wi >= 0) || (x[i] == d->hi && d->wi <= 0)) {
    s->st[i] = (x[i] == d->hi && d->wi <= 0 && d->lo != d->hi) ? ST_HI : ST_LO;
    w[i] = d->wi;
    s->nN++;
    return 1;
  }
  d->aii = aij(s, i, i);
  d->id = ++s->drive_id;
  gather_col(s, i, s->y);
  fac_fsolve(s, s->y);
  return 0;
}

/* The unit step of this pivot: dir, the sign of the move of x_i that
 * brings w_i toward 0 (w_i = 0 inside the box moves toward the nearer
 * finite bound); dx_C = -A_CC^-1 A_Ci = -L^-T D^-1 y for dx_i = +1, with
 * v = D^-1 y; the Schur complement sc = dw_i per unit dx_i; dw on N. */
static void unit_step(dz_state *s, driven *d, const double *x) {
  int k = s->k, i = d->i;
  double *y = s->y, *v = s->v, *dx = s->dx, yv = 0;
  if (d->wi < 0)
    d->dir = 1;
  else if (d->wi > 0)
    d->dir = -1;
  else
    d->dir = (d->hi - x[i] <= x[i] - d->lo) ? 1 : -1;
  for (int q = 0; q < k; q++) {
    v[q] = y[q] / s->d[q];
    yv += y[q] * v[q];
    dx[q] = -v[q];
  }
  fac_bsolve(s, dx);
  d->sc = d->aii - yv;
  unit_dw(s, i);
}

/* fmax(m, a) as a compare, not a call to libm's fmax in the ratio test's
 * loops: a NaN a is skipped, a NaN m gives way. */
static inline double max_of(double m, double a) { return a > m || m != m ? a : m; }

/* The ratio test: the largest t >= 0 keeping every processed row valid,
 * and what blocks it (BLK_*; *which: the slot or the N position). */
static int ratio_test(const dz_state *s, const driven *d, const double *x, const double *w,
                      double *tbest, int *which) {
  int k = s->k, nN = s->nN, i = d->i, kind = BLK_NONE;
  /* entries at rounding level of the largest one do not block, compared in
   * the units of the equilibrated problem (x_r sq_r, w_r / sq_r, per unit
   * of x_i sq_i): the same test for A and D A D */
  const double *sq = s->sq;
  double si = sq[i], best = INFINITY, dir = d->dir, dxmax = 0, dwmax = fabs(d->sc) / (si * si);
  for (int q = 0; q < k; q++) { /* from 0, never NaN: max_of's NaN test is not needed */
    double a = fabs(s->dx[q]) * sq[slot_row(s, q)];
    if (a > dxmax) dxmax = a;
  }
  dxmax /= si; /* the max of the quotients, exactly: a -> fl(a / si) is monotone */
  double dxtiny = 64 * DBL_EPSILON * (1 + dxmax);
  if (d->sc > pivot_zero(s, d->aii)) {
    best = fabs(d->wi) / d->sc;
    kind = BLK_I_C;
  }
  double ti = dir > 0 ? d->hi - x[i] : x[i] - d->lo; /* inf if unbounded */
  if (ti < 0) ti = 0;
  if (ti <= best && ti < INFINITY) {
    best = ti;
    kind = BLK_I_N;
  }
  for (int q = 0; q < k; q++) {
    double dq = dir * s->dx[q];
    int r = slot_row(s, q);
    if (fabs(dq) * sq[r] / si <= dxtiny) continue;
    double bound = dq > 0 ? s->hi[r] : s->lo[r];
    if (fabs(bound) == INFINITY) continue;
    double t = (bound - x[r]) / dq;
    if (t < 0) t = 0;
    if (t < best) best = t, kind = BLK_C_N, *which = q;
  }
  for (int e = 0; e < nN; e++) dwmax = max_of(dwmax, fabs(s->dw[e]) / (sq[s->perm[k + e]] * si));
  double dwtiny = 64 * DBL_EPSILON * (1 + dwmax);
  for (int e = 0; e < nN; e++) {
    int r = s->perm[k + e];
    if (s->lo[r] == s->hi[r] || s->stamp[r] == d->id) continue;
    double dr = dir * s->dw[e], t, dtiny = dwtiny * sq[r] * si;
    if (s->st[r] == ST_LO && dr < -dtiny)
      t = w[r] / -dr;
    else if (s->st[r] == ST_HI && dr > dtiny)
      t = -w[r] / dr;
    else
      continue;
    if (t < 0) t = 0;
    if (t < best) best = t, kind = BLK_N_C, *which = k + e;
  }
  *tbest = best;
  return kind;
}

/* Move by t along the unit step: x_i, x_C (kept in their boxes), w_N, w_i. */
static void take_step(dz_state *s, driven *d, double t, double *x, double *w) {
  if (!(t > 0)) return;
  int k = s->k, nN = s->nN;
  double tt = d->dir * t;
  x[d->i] += tt;
  /* the state's arrays in locals: the stores to x cannot move them */
  const int *crow = s->crow, *perm = s->perm;
  const double *dx = s->dx, *dw = s->dw, *lo = s->lo, *hi = s->hi;
  for (int q = 0; q < k; q++) {
    int r = crow[q];
    double xr = x[r] + tt * dx[q];
    x[r] = xr < lo[r] ? lo[r] : (xr > hi[r] ? hi[r] : xr);
  }
  for (int e = 0; e < nN; e++) w[perm[k + e]] += tt * dw[e];
  d->wi += tt * d->sc;
}

/* Slot q of C reached a bound: it moves to N (the factor downdated, y
 * kept current). */
static void clamped_to_bound(dz_state *s, const driven *d, int q, double *x, double *w) {
  int r = slot_row(s, q), k = s->k;
  double dq = d->dir * s->dx[q];
  x[r] = dq > 0 ? s->hi[r] : s->lo[r];
  s->st[r] = dq > 0 ? ST_HI : ST_LO;
  w[r] = 0;
  leave_C(s, q);
  y_after_remove(s, s->y, q, k);
  s->nN++;
}

/* The row at N position `pos` reached w = 0: it joins C (the factor grows
 * by its row, y by one entry), unless A_{C+r} is singular. */
static void bound_to_clamped(dz_state *s, const driven *d, int pos, double *w) {
  int r = s->perm[pos], k = s->k;
  double *yj = s->yj, *y = s->y;
  gather_col(s, r, yj);
  fac_fsolve(s, yj);
  double yv2 = 0, ly = 0;
  for (int q = 0; q < k; q++) {
    double lq = yj[q] / s->d[q]; /* the new factor row l = D^-1 L^-1 A(C, r) */
    yv2 += yj[q] * lq;
    ly += lq * y[q];
    yj[q] = lq;
  }
  double dn = aij(s, r, r) - yv2;
  if (!(dn > pivot_zero(s, aij(s, r, r)))) {
    /* A_{C+r} is singular: for positive semidefinite A that means
     * A [A_CC^-1 A_Cr; -1] = 0, so dw_r = 0 along every direction that
     * keeps w_C = 0 and r blocked only by rounding.  r stays at its bound
     * with w_r = 0 and blocks no more in this drive.  (If A is indefinite,
     * w_r may then leave its sign: the final residual says so and the
     * solve reports this pivot as a breakdown.) */
    s->stamp[r] = d->id;
    w[r] = 0;
    s->nsing++;
    s->sing_row = r;
    s->sing_s = dn;
    return;
  }
  fac_append(s, yj, dn);
  y[k] = aij(s, r, d->i) - ly; /* y grows by one entry: A(r, i) - l . y */
  s->st[r] = ST_C;
  w[r] = 0;
  enter_C(s, pos);
  s->nN--;
}

/* Drive the row at position k+nN until it is valid (joins C or N).
 * y = L^-1 A(C, i) is solved once and then kept current through the set
 * changes in O(k) each (appended slot: one dot product; removed slot:
 * y_after_remove), so a pivot costs one backward solve L^-T and the dw
 * product. */
static slv_status drive(dz_state *s, double *x, double *w, slv_result *res) {
  driven d;
  if (drive_start(s, &d, x, w)) return SLV_CONVERGED;
  int i = d.i;
  for (;;) {
    slv_status stop = slv_should_stop(s->op, (double)s->n * (s->k + 1)); /* about a pivot's work */
    if (stop) return stop; /* a failed pass: the better of its x and the best before */
    if (s->pivots - s->pass_pivots0 >= s->limit) return max_pivots(s, res, i);
    s->pivots++;
    unit_step(s, &d, x);
    double t;
    int which = -1, kind = ratio_test(s, &d, x, w, &t, &which);
    if (kind == BLK_NONE) {
      /* nothing blocks: fine if w_i is 0 already (a row that depends
       * linearly on C, e.g. a redundant free row), else a ray */
      if (fabs(d.wi) <= w_rounding(s, i, x)) {
        s->st[i] = ST_Z;
        w[i] = d.wi;
        s->nN++;
        return SLV_CONVERGED;
      }
      return breakdown(s, res, i, d.sc, pivot_zero(s, d.aii));
    }
    take_step(s, &d, t, x, w);
    if (kind == BLK_I_C) {
      /* new factor row: l = D^-1 L^-1 A_Ci = v, pivot s */
      fac_append(s, s->v, d.sc);
      s->st[i] = ST_C;
      w[i] = 0;
      enter_C(s, s->k + s->nN);
      return SLV_CONVERGED;
    }
    if (kind == BLK_I_N) {
      x[i] = d.dir > 0 ? d.hi : d.lo;
      s->st[i] = d.dir > 0 ? ST_HI : ST_LO;
      w[i] = d.wi;
      s->nN++;
      return SLV_CONVERGED;
    }
    if (kind == BLK_C_N)
      clamped_to_bound(s, &d, which, x, w);
    else
      bound_to_clamped(s, &d, which, w);
  }
}

/* ---- block start, refinement, one boxed pass ---------------------------------------- */

/* Convert the Cholesky factor in L (lower, m x m) to L D L^T; returns the
 * first slot whose pivot is zero by zero_of (relative to its A_rr), or m. */
static int chol_to_ldl(dz_state *s, int m) {
  int n = s->n;
  for (int j = 0; j < m; j++) {
    double *c = s->L + (size_t)j * n;
    double lj = c[j];
    int row = s->cand[j];
    if (!(lj * lj > zero_of(s, aij(s, row, row), j))) return j;
    s->d[j] = lj * lj;
    double inv = 1.0 / lj;
    for (int r = j + 1; r < m; r++) c[r] *= inv;
    c[j] = 1.0;
  }
  return m;
}

/* Factor A_SS for the m rows cand[0..m) into L (slot order = cand order);
 * on a non-positive pivot the set is cut before it.  Returns the new m. */
static int block_factor(dz_state *s, int m) {
  int n = s->n;
  while (m > 0) {
    for (int b = 0; b < m; b++) {
      const double *a = s->A + (size_t)s->cand[b] * s->lda;
      double *c = s->L + (size_t)b * n;
      for (int r = b; r < m; r++) c[r] = a[s->cand[r]];
    }
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', m, s->L, n);
    int good = info == 0 ? chol_to_ldl(s, m) : (int)info - 1;
    if (good == m) return m;
    m = good; /* the leading block is positive definite: refactor it */
  }
  return 0;
}

/* Block start: rows cand[0..m) (free rows first) are solved with the other
 * rows fixed at x; rows whose solution leaves the box are dropped (x set to
 * the nearest bound) and the rest refactored, up to DZ_WARM_ROUNDS rounds.
 * Returns |C| >= 0; C = cand[0..k) in slot order, factor in L/d. */
static int block_start(dz_state *s, double *x, int m) {
  int n = s->n;
  for (int round = 0; round < DZ_WARM_ROUNDS && m > 0; round++) {
    m = block_factor(s, m);
    if (m == 0) break;
    /* rhs = -(b_S + A_S,rest x_rest): w0 = A x0 + b with x0_S = 0 */
    for (int b = 0; b < m; b++) {
      s->y[b] = x[s->cand[b]];
      x[s->cand[b]] = 0;
    }
    full_w(s, x, s->tmp);
    for (int b = 0; b < m; b++) {
      x[s->cand[b]] = s->y[b];
      s->v[b] = -s->tmp[s->cand[b]];
    }
    /* x_S = A_SS^-1 rhs with L D L^T */
    cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, m, s->L, n, s->v, 1);
    for (int b = 0; b < m; b++) s->v[b] /= s->d[b];
    cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasUnit, m, s->L, n, s->v, 1);
    int kept = 0;
    for (int b = 0; b < m; b++) {
      int r = s->cand[b];
      double xr = s->v[b];
      if (!isfinite(xr)) return 0;
      if (xr <= s->lo[r] || xr >= s->hi[r]) {
        x[r] = xr <= s->lo[r] ? s->lo[r] : s->hi[r];
      } else {
        s->cand[kept++] = r;
      }
    }
    if (kept == m) {
      for (int b = 0; b < m; b++) x[s->cand[b]] = s->v[b];
      return m;
    }
    m = kept;
  }
  return 0;
}

/* One step of iterative refinement on the final C: w = A x + b, then
 * A_CC dx_C = -w_C with the factor; x_C kept in its box. */
static void refine(dz_state *s, double *x, double *w) {
  int k = s->k;
  full_w(s, x, w);
  if (k == 0) return;
  for (int q = 0; q < k; q++) s->y[q] = -w[slot_row(s, q)];
  cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, k, s->L, s->n, s->y, 1);
  for (int q = 0; q < k; q++) s->y[q] /= s->d[q];
  fac_bsolve(s, s->y);
  for (int q = 0; q < k; q++) {
    int r = slot_row(s, q);
    double xr = x[r] + s->y[q];
    x[r] = xr < s->lo[r] ? s->lo[r] : (xr > s->hi[r] ? s->hi[r] : xr);
  }
  full_w(s, x, w);
}

/* Heap sort of perm[a..b) by key[perm[.]] ascending. */
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

/* Processing order of the rows at positions [a, b): most violated first.
 * At the start point, a row at lo violates by max(0, -w), at hi by
 * max(0, w), inside its box by |w|; rows that are valid come after, the
 * ones nearest to becoming invalid (smallest slack |w|) first, fixed rows
 * (lo = hi) last.  Driving the strongly violated rows first clamps early the
 * rows that end up clamped, so fewer later pivots push rows back and forth
 * between C and N.  key = -violation, or the slack when valid; w is
 * recomputed here (O(n^2), or O(nnz) packed). */
static void order_rows(dz_state *s, const double *x, int a, int b) {
  int len = b - a;
  if (len < 2) return;
  double *key = s->dw; /* free between drives */
  full_w(s, x, s->tmp);
  for (int q = a; q < b; q++) {
    int r = s->perm[q];
    double lo = s->lo[r], hi = s->hi[r], wr = s->tmp[r], kr;
    if (lo == hi)
      kr = INFINITY;
    else if (x[r] <= lo)
      kr = wr; /* violation -w when w < 0, else slack w */
    else if (x[r] >= hi)
      kr = -wr;
    else
      kr = -fabs(wr);
    key[r] = kr;
  }
  int *v = s->perm + a;
  for (int root = len / 2 - 1; root >= 0; root--) sift(v, key, root, len);
  for (int end = len - 1; end > 0; end--) {
    int t = v[0];
    v[0] = v[end];
    v[end] = t;
    sift(v, key, 0, end);
  }
}

/* One boxed pass with the bounds s->lo / s->hi: the block start from
 * cand[0..m), then every other row driven.  x in/out (projected first), w
 * out (= A x + b at the end). */
static slv_status boxed_pass(dz_state *s, double *x, double *w, int m, slv_result *res) {
  int n = s->n;
  slv_status stop = slv_should_stop(s->op, (double)m * m * m / 3); /* before the block's factor */
  if (stop) return stop;
  for (int i = 0; i < n; i++) {
    if (x[i] < s->lo[i]) x[i] = s->lo[i];
    if (x[i] > s->hi[i]) x[i] = s->hi[i];
  }
  m = block_start(s, x, m);
  /* positions: C = cand[0..m) in slot order, then the others in row order */
  for (int i = 0; i < n; i++) s->st[i] = ST_U;
  for (int b = 0; b < m; b++) s->st[s->cand[b]] = ST_C;
  int pos = 0;
  for (int b = 0; b < m; b++) s->perm[pos++] = s->cand[b];
  /* normals before friction rows: a friction row is driven with its
   * normal already processed (ODE's order) */
  for (int i = 0; i < n; i++)
    if (s->st[i] != ST_C && !(s->p->findex && s->p->findex[i] >= 0)) s->perm[pos++] = i;
  int pos_f = pos;
  for (int i = 0; i < n; i++)
    if (s->st[i] != ST_C && s->p->findex && s->p->findex[i] >= 0) s->perm[pos++] = i;
  order_rows(s, x, m, pos_f);
  order_rows(s, x, pos_f, n);
  for (int q = 0; q < n; q++) s->iperm[s->perm[q]] = q;
  for (int q = 0; q < m; q++) {
    s->slot_pos[q] = s->pos_slot[q] = q;
    s->crow[q] = s->perm[q];
  }
  s->k = m;
  s->nN = 0;
  for (int b = 0; b < m; b++) w[s->cand[b]] = 0;
  if (!s->packed) build_M(s);

  while (s->k + s->nN < n) {
    slv_status st = drive(s, x, w, res);
    if (st != SLV_CONVERGED) return st;
  }
  refine(s, x, w);
  return SLV_CONVERGED;
}

/* ---- findex: the friction bounds ----------------------------------------------------- */

/* Bounds of the boxed pass: the stored ones, friction rows -h_i .. h_i. */
static void set_bounds(dz_state *s, const double *h) {
  const slv_problem *p = s->p;
  for (int i = 0; i < s->n; i++) {
    if (p->findex && p->findex[i] >= 0) {
      s->lo[i] = -h[i];
      s->hi[i] = h[i];
    } else {
      s->lo[i] = slv_lo_of(p, i);
      s->hi[i] = slv_hi_of(p, i);
    }
  }
}

/* h_i = mu_i |x_j| for the friction rows. */
static void bounds_of(const slv_problem *p, const double *x, double *h) {
  for (int i = 0; i < p->n; i++)
    h[i] = (p->findex && p->findex[i] >= 0) ? p->mu[i] * fabs(x[p->findex[i]]) : 0.0;
}

/* Newton step on the friction bounds.  The last pass left C (w_C = 0) and
 * N (x at a bound).  Keep that active set but let a friction row r at its
 * bound follow its normal j: x_r = sigma_r mu_r |x_j|, sigma_r = +1 at hi,
 * -1 at lo.  With x = E x_C + f (E: identity on C plus, in the column of a
 * clamped normal j, sigma_r mu_r sgn(x_j) at each of its friction rows at a
 * bound; f: the other N rows at their values, friction rows of a non-clamped
 * normal at sigma_r mu_r |x_j|), w_C = 0 reads
 *     G x_C = -(b + A f)_C,   G = A(C,:) E = A_CC + sum_r c_r A(C,r) e_slot(j)^T,
 * a non-symmetric k x k system (LU, dgetrf).  This is the exact solution when
 * the active set is right: the fixed point of the bounds on this piece of
 * the piecewise-affine map h -> mu |x_n(h)|.  Writes the point to xn;
 * returns 0 if G is singular (pivot <= ptol). */
static int newton_findex(dz_state *s, const double *x, double *xn) {
  const slv_problem *p = s->p;
  int n = s->n, k = s->k;
  double *G = s->M; /* free between passes (rebuilt by the next one) */
  for (int i = 0; i < n; i++) xn[i] = s->st[i] == ST_C ? 0.0 : x[i];
  for (int q = 0; q < k; q++) {
    const double *a = s->A + (size_t)slot_row(s, q) * s->lda;
    double *g = G + (size_t)q * k;
    for (int r = 0; r < k; r++) g[r] = a[slot_row(s, r)];
  }
  for (int r = 0; r < n; r++) {
    if (!p->findex || p->findex[r] < 0 || (s->st[r] != ST_LO && s->st[r] != ST_HI)) continue;
    int j = p->findex[r];
    double sig = s->st[r] == ST_HI ? 1.0 : -1.0;
    if (s->lo[r] == s->hi[r]) sig = x[r] >= 0 ? 1.0 : -1.0;
    if (s->st[j] != ST_C) {
      xn[r] = sig * p->mu[r] * fabs(x[j]);
      continue;
    }
    double c = sig * p->mu[r] * (x[j] >= 0 ? 1.0 : -1.0);
    xn[r] = 0;
    int qj = s->pos_slot[s->iperm[j]];
    const double *a = s->A + (size_t)r * s->lda;
    double *g = G + (size_t)qj * k;
    for (int q = 0; q < k; q++) g[q] += c * a[slot_row(s, q)];
  }
  /* rhs = -(A f + b)_C */
  full_w(s, xn, s->tmp);
  double *u = s->y;
  for (int q = 0; q < k; q++) u[q] = -s->tmp[slot_row(s, q)];
  if (k > 0) {
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, k, k, G, k, s->ipiv);
    if (info != 0) return 0;
    for (int q = 0; q < k; q++)
      if (!(fabs(G[q + (size_t)q * k]) > s->ptol)) return 0;
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', k, 1, G, k, s->ipiv, u, k);
  }
  for (int q = 0; q < k; q++) xn[slot_row(s, q)] = u[q];
  for (int r = 0; r < n; r++) {
    if (!p->findex || p->findex[r] < 0 || (s->st[r] != ST_LO && s->st[r] != ST_HI)) continue;
    int j = p->findex[r];
    if (s->st[j] != ST_C) continue;
    double sig = s->st[r] == ST_HI ? 1.0 : -1.0;
    if (s->lo[r] == s->hi[r]) sig = x[r] >= 0 ? 1.0 : -1.0;
    xn[r] = sig * p->mu[r] * (x[j] >= 0 ? 1.0 : -1.0) * xn[j];
  }
  return slv_all_finite(n, xn);
}

/* ---- the solver ---------------------------------------------------------------------- */

/* One boxed pass with friction bounds h from the clamped set cand[0..m);
 * then the library's residual (findex bounds at the new x). */
static slv_status pass_eval(dz_state *s, const double *h, double *x, double *w, int m,
                            slv_result *res, double *rr) {
  set_bounds(s, h);
  s->pass_pivots0 = s->pivots;
  slv_status st = boxed_pass(s, x, w, m, res);
  res->pivots = s->pivots;
  res->iterations++;
  if (st != SLV_CONVERGED) return st;
  slv_residuals r = slv_residual(s->p, x, w);
  *rr = r.res_scaled;
  res->solver_residual = r.res_scaled;
  slv_history_push(s->h, res, r.res_scaled);
  if (!isfinite(r.res_scaled)) {
    slv_msgf(res->message, sizeof res->message, "dantzig: x became non-finite in pass %d",
             res->iterations);
    return SLV_NOT_FINITE;
  }
  return SLV_CONVERGED;
}

/* The current C as the start set of the next pass; returns its size. */
static int clamped_as_cand(dz_state *s) {
  for (int q = 0; q < s->k; q++) s->cand[q] = slot_row(s, q);
  return s->k;
}

/* The per-solve state: the operator's views, the pivot limit and zero
 * threshold, the stamps.  Returns whether p has findex rows. */
static int dz_begin(dz_state *s, slv_op *op, const slv_options *opt, slv_hist *h) {
  const slv_problem *p = op->p;
  int n = p->n, findex = 0;
  s->p = p;
  s->op = op;
  s->h = h;
  s->A = op->A;
  s->lda = op->lda;
  s->n = n;
  s->pivots = 0;
  s->limit = slv_pivot_limit(opt, n);
  double amax = 0;
  for (int i = 0; i < n; i++) amax = fmax(amax, fabs(aij(s, i, i)));
  s->ptol = opt->pivot_tol * (amax > 0 ? amax : 1.0);
  s->prel = opt->pivot_tol;
  for (int i = 0; i < n; i++) {
    double a = aij(s, i, i);
    s->sq[i] = sqrt(a > 0 ? a : (amax > 0 ? amax : 1.0));
  }
  s->packed = packed_columns(s);
  s->drive_id = 0;
  s->nsing = 0;
  for (int i = 0; i < n; i++) s->stamp[i] = 0;
  for (int i = 0; p->findex && i < n; i++) findex |= p->findex[i] >= 0;
  return findex;
}

/* The start set: the free rows, then (warm start) the rows strictly
 * inside their box; returns its size. */
static int start_set(dz_state *s, const double *x, int warm) {
  int m = 0, n = s->n;
  for (int i = 0; i < n; i++)
    if (s->lo[i] == -INFINITY && s->hi[i] == INFINITY) s->cand[m++] = i;
  if (warm)
    for (int i = 0; i < n; i++)
      if (s->lo[i] < x[i] && x[i] < s->hi[i] && !(s->lo[i] == -INFINITY && s->hi[i] == INFINITY))
        s->cand[m++] = i;
  return m;
}

/* A boxed problem (no findex rows) whose pass ended at res_rel r > tol:
 * SLV_BREAKDOWN if singular pivots were skipped, else SLV_STAGNATED with
 * the rounding floor of w = A x + b, eps max_i sum_j |A_ij x_j|. */
static slv_status boxed_failure(dz_state *s, const double *x, double r, const slv_options *opt,
                                slv_result *res) {
  if (s->nsing > 0) {
    double z = pivot_zero(s, aij(s, s->sing_row, s->sing_row));
    slv_msgf(res->message, sizeof res->message,
             "dantzig: breakdown: res_scaled=%.3g > tol=%.3g after %d singular pivots (last: row "
             "%d, s=%.3g <= %.3g); A is singular or indefinite on the clamped set",
             r, opt->tol, s->nsing, s->sing_row, s->sing_s, z);
    return SLV_BREAKDOWN;
  }
  double fl = 0, xm = 0, bm = 1;
  for (int i = 0; i < s->n; i++) {
    fl = fmax(fl, w_rounding(s, i, x) / 64);
    xm = fmax(xm, fabs(x[i]));
    bm = fmax(bm, fabs(s->p->b[i]));
  }
  fl /= bm;
  slv_msgf(res->message, sizeof res->message,
           "dantzig: pivoting ended with res_scaled=%.3g > tol=%.3g; the rounding floor of "
           "w = A x + b is %.2g (max|x| = %.3g): A is ill-conditioned on the clamped set",
           r, opt->tol, fl, xm);
  return SLV_STAGNATED;
}

/* A pass that failed (pivot limit, breakdown) leaves its partial x, which
 * may be far worse than where the solve started (res_nat_inf 1e6 on
 * pyramid steps whose start was at 0.03): keep xref (residual rref) when it
 * is better by the library residual, and say so.  w = A x + b on return. */
static void keep_better(dz_state *s, double *x, double *w, const double *xref, double rref,
                        slv_result *res) {
  full_w(s, x, w);
  double r = slv_residual(s->p, x, w).res_scaled;
  if (!(rref < r) && isfinite(r)) {
    res->solver_residual = r;
    return;
  }
  memcpy(x, xref, (size_t)s->n * sizeof *x);
  full_w(s, x, w);
  res->solver_residual = rref;
  size_t len = strlen(res->message);
  if (len + 1 < sizeof res->message)
    slv_msgf(res->message + len, sizeof res->message - len,
             "; x is the best point seen (res_scaled=%.3g), not the pass's (%.3g)", rref, r);
}

/* The outer passes on the friction bounds: the accepted pass (xa,
 * residual r, clamped set cacc[0..macc)), the best x (xb, best). */
typedef struct {
  double r, best;
  int stall, macc, kicks, stalled;
  unsigned long long rng;
} outer;

/* The pass just run (x, residual r) becomes the accepted one. */
static void accept_pass(dz_state *s, outer *o, const double *x) {
  o->macc = clamped_as_cand(s);
  memcpy(s->cacc, s->cand, (size_t)o->macc * sizeof *s->cacc);
  memcpy(s->xa, x, (size_t)s->n * sizeof *x);
}

/* A boxed pass from the accepted clamped set and x = xa, with the friction
 * bounds of xc (h = mu |xc_n|); *rt its residual. */
static slv_status pass_from(dz_state *s, const outer *o, const double *xc, double *x, double *w,
                            slv_result *res, double *rt) {
  bounds_of(s->p, xc, s->hN);
  memcpy(x, s->xa, (size_t)s->n * sizeof *x);
  memcpy(s->cand, s->cacc, (size_t)o->macc * sizeof *s->cand);
  return pass_eval(s, s->hN, x, w, o->macc, res, rt);
}

/* One outer step: the Newton point of the accepted active set
 * (newton_findex) if it already meets tol, else a pass with its bounds,
 * kept if it beats r; else the fixed-point pass, bounds h = mu |xa_n|.
 * Returns SLV_CONVERGED when done (*done), SLV_OK to go on (*rt: the new
 * pass's residual; *rt = INFINITY when max_iter stopped it), or a
 * failure. */
static slv_status outer_step(dz_state *s, outer *o, const slv_options *opt, double *x, double *w,
                             slv_result *res, double *rt, int *done) {
  int accepted = 0;
  slv_status sts;
  *rt = INFINITY;
  *done = 0;
  if (newton_findex(s, s->xa, x)) {
    full_w(s, x, w);
    slv_residuals rn = slv_residual(s->p, x, w);
    if (slv_met(s->p, opt, &rn)) {
      res->solver_residual = rn.res_scaled;
      *done = 1;
      return SLV_CONVERGED;
    }
    if ((sts = pass_from(s, o, x, x, w, res, rt)) != SLV_CONVERGED) return sts;
    if (*rt <= opt->tol) return *done = 1, SLV_CONVERGED;
    accepted = *rt < o->r;
  }
  if (!accepted) {
    if (res->iterations >= opt->max_iter) return *rt = -1, SLV_OK;
    if ((sts = pass_from(s, o, s->xa, x, w, res, rt)) != SLV_CONVERGED) return sts;
    if (*rt <= opt->tol) return *done = 1, SLV_CONVERGED;
  }
  return SLV_OK;
}

/* After DZ_STALL_PASSES passes without a 10 % gain: restart from the best
 * x with its bounds scaled by 1 +- 0.3 (64-bit LCG seeded by opt->seed):
 * it leaves the cycle the passes were caught in, and rescues about a third
 * of them. */
static slv_status restart_pass(dz_state *s, outer *o, const slv_options *opt, double *x, double *w,
                               slv_result *res, int *done) {
  o->kicks++;
  o->stall = 0;
  bounds_of(s->p, s->xb, s->hN);
  for (int i = 0; i < s->n; i++) {
    o->rng = o->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    double u = (double)(o->rng >> 11) / 9007199254740992.0;
    s->hN[i] *= 1 + 0.6 * (u - 0.5);
  }
  memcpy(x, s->xb, (size_t)s->n * sizeof *x);
  slv_status sts = pass_eval(s, s->hN, x, w, 0, res, &o->r);
  if (sts != SLV_CONVERGED) return sts;
  if (o->r <= opt->tol) return *done = 1, SLV_CONVERGED;
  accept_pass(s, o, x);
  if (o->r < o->best) {
    o->best = o->r;
    memcpy(s->xb, x, (size_t)s->n * sizeof *x);
  }
  return SLV_OK;
}

/* findex: outer passes on the friction bounds h from the first pass (x,
 * residual r).  Each step first tries the Newton point of the accepted
 * active set, then the fixed point (outer_step); stalls restart
 * (restart_pass).  The best x seen is returned when the passes end
 * without convergence. */
static slv_status findex_passes(dz_state *s, const slv_options *opt, double r, double *x, double *w,
                                slv_result *res) {
  int n = s->n, done = 0;
  outer o = { .r = r, .best = r, .rng = opt->seed * 0x9E3779B97F4A7C15ULL + 1 };
  accept_pass(s, &o, x);
  memcpy(s->xb, x, (size_t)n * sizeof *x);
  while (res->iterations < opt->max_iter) {
    double rt;
    slv_status sts = outer_step(s, &o, opt, x, w, res, &rt, &done);
    if (done) return sts;
    if (sts != SLV_OK) { /* a failed pass: keep the best x seen */
      if (sts != SLV_NOT_FINITE) keep_better(s, x, w, s->xb, o.best, res);
      return sts;
    }
    if (rt < 0) break; /* max_iter reached before the fixed-point pass */
    o.r = rt;
    accept_pass(s, &o, x);
    if (o.r < o.best) memcpy(s->xb, x, (size_t)n * sizeof *x);
    if (o.r < 0.9 * o.best) {
      o.best = o.r;
      o.stall = 0;
      continue;
    }
    o.best = fmin(o.best, o.r);
    if (++o.stall < DZ_STALL_PASSES) continue;
    if (o.kicks < DZ_RESTARTS && res->iterations < opt->max_iter) {
      sts = restart_pass(s, &o, opt, x, w, res, &done);
      if (done) return sts;
      if (sts != SLV_OK) {
        if (sts != SLV_NOT_FINITE) keep_better(s, x, w, s->xb, o.best, res);
        return sts;
      }
      continue;
    }
    o.stalled = o.kicks == DZ_RESTARTS;
    break;
  }
  memcpy(x, s->xb, (size_t)n * sizeof *x);
  res->solver_residual = o.best;
  if (o.stalled)
    slv_msgf(res->message, sizeof res->message,
             "dantzig: findex bounds did not settle: no 10%% gain in %d passes, %d restarts, "
             "%d passes in all; best res_scaled=%.3g > tol=%.3g; exact: --solver lemke",
             DZ_STALL_PASSES, DZ_RESTARTS, res->iterations, o.best, opt->tol);
  else
    slv_msgf(res->message, sizeof res->message,
             "dantzig: findex bounds not settled in max_iter=%d passes: best res_scaled=%.3g > "
             "tol=%.3g",
             opt->max_iter, o.best, opt->tol);
  return o.stalled ? SLV_STAGNATED : SLV_MAX_ITER;
}

static slv_status dz_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                           slv_result *res, slv_hist *h) {
  dz_state *s = st;
  if (op->n == 0) return SLV_CONVERGED;
  int findex = dz_begin(s, op, opt, h);
  bounds_of(s->p, x, s->hN);
  set_bounds(s, s->hN);
  int m = start_set(s, x, opt->warm_start);
  double r = INFINITY;
  /* the start point, kept in case the first pass fails */
  memcpy(s->xb, x, (size_t)s->n * sizeof *x);
  full_w(s, x, w);
  double r0 = slv_residual(s->p, x, w).res_scaled;
  slv_status sts = pass_eval(s, s->hN, x, w, m, res, &r);
  if (sts != SLV_CONVERGED) {
    if (sts != SLV_NOT_FINITE) keep_better(s, x, w, s->xb, r0, res);
    return sts;
  }
  if (r > opt->tol && !findex) {
    /* a second refinement step on the same C */
    refine(s, x, w);
    slv_residuals rs = slv_residual(s->p, x, w);
    r = res->solver_residual = rs.res_scaled;
  }
  if (r <= opt->tol) return SLV_CONVERGED;
  if (!findex) return boxed_failure(s, x, r, opt, res);
  return findex_passes(s, opt, r, x, w, res);
}

static const slv_impl dz_impl = {
  .state_size = sizeof(dz_state),
  .init = dz_init,
  .free = dz_free,
  .solve = dz_solve,
};

/* the params line below quotes these */
_Static_assert(DZ_STALL_PASSES == 50 && DZ_RESTARTS == 3, "dantzig params");

const slv_solver slv_solver_dantzig = {
  .name = "dantzig",
  .summary = "principal pivoting (Baraff/ODE dLCP) with incremental LDL^T; box, free, findex "
             "(outer passes on the friction bounds); symmetric A",
  .cite = "baraff1994",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_NEEDS_SYMMETRIC,
  /* clang-format off */
  .params =
      "most violated first; pivot zero < max(pivot_tol (" SLV_STR(SLV_DEFAULT_PIVOT_TOL) "), 16 "
      "(k+1) eps) A_rr; findex: 50 passes w/o 10 % gain: restart, bounds x 1 +- 0.3; 3 restarts",
  /* clang-format on */
  .impl = &dz_impl,
};
