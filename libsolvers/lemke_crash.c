/* lemke_crash.c -- lemke's path from a crash basis (docs/solvers.md,
 * "Lexicographic Lemke", "A first basis"): the path described in lemke.c,
 * started from the complementary basis of a guessed active set instead of
 * the all-slack basis.
 *
 * The classical start makes every mu_i basic and brings the z_j in one
 * pivot at a time: a path of at least k + 1 pivots for k positive z_j, each
 * O(k^2 + N k) at matrix-vector speed.  Here the rounds of block principal
 * pivoting (block_pivot.h) guess the set C of positive z_j first, at
 * LAPACK's blocked speed, and the path starts from the complementary basis
 * B_C (z_j basic for j in C, mu_i for the others), whose core is
 * S = -A_CC and H = S^-1 is formed from the rounds' last factor (dpotri
 * or dgetri).  With x_B = B^-1 q:
 *
 *   x_B >= 0:  B_C is a complementary feasible basis, the LCP's solution:
 *              no pivot; the end of the path (refinement, the library's
 *              verdict) as always.
 *   otherwise: the covering vector is d = B_C c with c > 0 (c_j = 1 / s_j
 *              for a basic z_j, s_i for a basic mu_i, s_i = sqrt(A_ii):
 *              the units of the equilibrated problem), so that
 *              x_B(z0) = x_B + z0 c for the artificial z0.  z0 enters at
 *              the least value that makes every basic variable
 *              nonnegative, t0 = max_i (-x_B,i / c_i), the blocking one
 *              leaves (ties: the lexicographically smallest row
 *              (B^-1)_i / c_i, the rule of the perturbed q + (eps, eps^2,
 *              ...) as in lemke.c), and the path goes on by lemke.c's
 *              pivots and lexicographic ratio test until z0 leaves.
 *
 * This is Lemke's method with a covering vector whose start basis is B_C
 * instead of I [cottle1992 ch. 4; murty1988].  For a P-matrix the path
 * ends at the solution whatever d is.  For other matrices a d that is not
 * positive voids the meaning of a secondary ray, so a path from the crash
 * that does not end at a solution (a ray, a singular basis, more than
 * LEMKE_CRASH_PIVOTS N pivots) is dropped, and lemke.c runs the classical
 * paths from d = opt->covering (or all ones): their rays keep their
 * meaning, and the status is always theirs.
 *
 * Applied to the plain LCP (every lo = 0, hi = +inf, no findex rows) with
 * no covering vector given and N >= LEMKE_CRASH_MIN; a given covering
 * vector asks for the classical path with that d.
 */
#include "block_pivot.h"
#include "lemke.h"

#include <cblas.h>
#include <string.h>

/* s_i = sqrt(A_ii), 1 where A_ii <= 0. */
static double row_scale(const lcp_view *L, int i) {
  double a = L->A[i + (size_t)i * L->lda];
  return a > 0 ? sqrt(a) : 1.0;
}

/* What the rounds left: the set K[0..m), its factor's kind, the rows
 * still broken, the principal pivots taken. */
typedef struct {
  int m, general, broken, pivots, rounds;
} crash;

/* Whether A(idx, idx) equals its transpose, idx[0..m) ascending: in
 * 32 x 32 tiles of positions, tile (tj, ti) copied transposed into t
 * (each column of A read at ascending rows), then compared with tile (ti,
 * tj) read the same way; it stops at the first tile that differs. */
static int gathered_equals_transpose(const double *A, size_t lda, const int *idx, int m) {
  enum { T = 32 };
  double t[T * T];
  for (int tj = 0; tj < m; tj += T)
    for (int ti = tj; ti < m; ti += T) {
      int h = (ti + T < m ? ti + T : m) - ti, wd = (tj + T < m ? tj + T : m) - tj, same = 1;
      for (int i = 0; i < h; i++) {
        const double *col = A + (size_t)idx[ti + i] * lda;
        for (int j = 0; j < wd; j++) t[i + j * T] = col[idx[tj + j]];
      }
      for (int j = 0; j < wd; j++) {
        const double *col = A + (size_t)idx[tj + j] * lda;
        for (int i = 0; i < h; i++) same &= col[idx[ti + i]] == t[i + j * T];
      }
      if (!same) return 0;
    }
  return 1;
}

/* Whether A(set, set) (m rows) is exactly symmetric.  A dense A is
 * checked on the blocks the crash factors (the guess's, and the last
 * set's) rather than whole: slv_op_is_symmetric's pass over A took a
 * quarter of lemke's time at n = 500
 * (experiments/records/2026-11-26-pivoting-against-factorisation.md); the packed copy of a mostly-zero A is checked whole, which
 * costs its nonzeros.  The rows in ascending order into sorted (key: m
 * doubles of scratch by row), then compared in place, with no copy of
 * the block: the copy and its strided comparison took 10 % of lemke's
 * samples on spd 1000 (records/2026-11-27-limit2.md). */
static int block_symmetric(const lcp_view *L, const int *set, int m, int *sorted, double *key) {
  for (int c = 0; c < m; c++) {
    sorted[c] = set[c];
    key[set[c]] = set[c];
  }
  slv_sort_by_key(sorted, m, key);
  return gathered_equals_transpose(L->A, (size_t)L->lda, sorted, m);
}

/* Whether the crash may factor A(set, set) by Cholesky (outside the
 * rounds: their scratch, ties and t, is free).  A (L->A is the operator's)
 * exactly symmetric makes every block so: the operator's test, one pass
 * over A four pairs a step, kept for the solve's second call, costs less
 * than the two blocks' (5.3 M against 2.6 M instructions on spd 1000); a
 * difference stops it at its tile, and the block decides. */
static int symmetric_for(slv_op *op, const lemke_state *s, const lcp_view *L, const int *set,
                         int m) {
  int ii, jj;
  if (slv_op_is_symmetric(op, 0.0, &ii, &jj)) return 1;
  if (op->packed == SLV_OP_COLS) return 0;
  return block_symmetric(L, set, m, s->ties, s->t);
}

/* The rounds from C = {i : b_i < 0} at x = 0 (where all of A is
 * symmetric, from the guess of slv_bpp_sweep_guess instead) into K[0..m),
 * within budget
 * pivots (the guess's rows are pivots: each enters the basis), their last
 * factor of A_CC in H's buffer.  c->m = -1 when the rounds end on a
 * singular A_CC or the guess alone is over the budget; a poll's status. */
static slv_status crash_set(lemke_state *s, const lcp_view *L, slv_op *op, const slv_options *opt,
                            int budget, double *x, double *w, crash *c) {
  int n = L->n, m = 0;
  double dmax = 0;
  for (int i = 0; i < n; i++) dmax = fmax(dmax, fabs(L->A[i + (size_t)i * L->lda]));
  slv_bpp q = { .n = n,
                .A = L->A,
                .lda = L->lda,
                .b = L->q,
                .op = op,
                .general = 1, /* below, from the guess */
                .sq = s->an,
                .prel = opt->pivot_tol,
                .zero_abs = opt->pivot_tol * (dmax > 0 ? dmax : 1.0),
                .given = 0,
                .budget = budget,
                .F = s->H,
                .ldf = L->N,
                .ipiv = s->ipiv,
                .dx = s->g,
                .key = s->t,
                .set = s->K,
                .flips = s->ties,
                .pend = s->u,     /* free until crash_basis */
                .watch = s->posR, /* set by crash_basis */
                .in = s->inC };
  for (int i = 0; i < n; i++) s->an[i] = row_scale(L, i); /* free in a plain LCP */
  memset(x, 0, (size_t)n * sizeof *x);
  memcpy(w, L->q, (size_t)n * sizeof *w);
  for (int i = 0; i < n; i++)
    if (L->q[i] < 0) s->K[m++] = i;
  memset(c, 0, sizeof *c);
  c->m = -1;
  q.general = !symmetric_for(op, s, L, s->K, m);
  int ii, jj;
  if (slv_op_is_symmetric(op, 0.0, &ii, &jj)) {
    int g = slv_bpp_sweep_guess(&q, x, w, 0);
    m = g >= 0 ? g : m;
  }
  if (m > budget) return SLV_CONVERGED;
  slv_bpp_result r;
  slv_status stop = slv_bpp_run(&q, x, w, m, &r);
  c->general = q.general;
  c->broken = r.broken;
  c->pivots = r.pivots;
  c->rounds = r.rounds;
  c->m = stop || r.singular ? -1 : r.m;
  /* a Cholesky factor is A_CC's only if A_CC is symmetric: else no crash */
  if (c->m > 0 && !q.general && !symmetric_for(op, s, L, s->K, c->m)) c->m = -1;
  return stop;
}

/* w_r = q_r + A(r, :) x read along column r (A symmetric): the packed
 * nonzeros of column r when the operator formed them, else the dense
 * column. */
static double w_by_column(const slv_op *op, const lcp_view *L, int r, const double *x) {
  double v = L->q[r];
  if (op->packed == SLV_OP_COLS) {
    for (int e = op->colptr[r]; e < op->colptr[r + 1]; e++) v += op->val[e] * x[op->rowind[e]];
    return v;
  }
  return v + cblas_ddot(L->n, L->A + (size_t)r * L->lda, 1, x, 1);
}

/* dx[c] = -w_K[c] for c < m by w_by_column, the rows in their own order:
 * each is a product of its own (the same bits in any order), and A's
 * columns are then read in the order they lie in memory, not in the
 * rounds' order of K, which jumps about A (2026-11-28-piv3.md).  Scratch:
 * s->ties (n ints, free after the rounds). */
static void minus_w_K(lemke_state *s, const lcp_view *L, const slv_op *op, int m, const double *x,
                      double *dx) {
  int *at = s->ties;
  for (int r = 0; r < L->n; r++) at[r] = -1;
  for (int c = 0; c < m; c++) at[s->K[c]] = c;
  for (int r = 0; r < L->n; r++)
    if (at[r] >= 0) dx[at[r]] = -w_by_column(op, L, r, x);
}

/* The rounds' set solved: x_C >= 0 and w_N >= 0 up to the rounds'
 * tolerance.  One step of refinement with their factor (x_C clamped at 0;
 * w_C from the rows of C alone when A(C, C) was found symmetric and x is 0
 * off C, along their columns: |C| / n of a pass over A), then w whole and
 * the library's verdict;
 * SLV_CONVERGED or SLV_STAGNATED (then x, w are left for the path from the
 * crash basis). */
static slv_status crash_solved(lemke_state *s, const lcp_view *L, slv_op *op,
                               const slv_options *opt, int m, int general, double *x, double *w,
                               slv_result *res) {
  int n = L->n;
  for (int i = 0; i < n; i++) x[i] = x[i] > 0 ? x[i] : 0.0;
  double *dx = s->g;
  int outside = 0; /* x_i > 0 off the set: A's symmetry there is unchecked */
  for (int i = 0; i < n; i++) outside |= x[i] > 0 && s->inC[i] != 1;
  if (general || outside) {
    slv_op_w(op, x, w);
    for (int c = 0; c < m; c++) dx[c] = -w[s->K[c]];
  } else {
    minus_w_K(s, L, op, m, x, dx);
  }
  if (m > 0 && general)
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', m, 1, s->H, L->N, s->ipiv, dx, m);
  else if (m > 0)
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', m, 1, s->H, L->N, dx, m);
  for (int c = 0; c < m; c++) {
    double v = x[s->K[c]] + dx[c];
    x[s->K[c]] = v > 0 ? v : 0.0;
  }
  slv_op_w(op, x, w);
  slv_residuals rr = slv_residual(op->p, x, w);
  res->solver_residual = rr.res_scaled;
  return rr.res_scaled <= opt->tol ? SLV_CONVERGED : SLV_STAGNATED;
}

/* H = S^-1 = -A_CC^-1 from the rounds' factor in H's buffer; 0 if the
 * inverse fails (a zero pivot). */
static int crash_inverse(lemke_state *s, const lcp_view *L, int m, int general) {
  if (m == 0) return 1;
  lapack_int info;
  if (general) {
    info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, m, s->H, L->N, s->ipiv, s->work,
                               (lapack_int)s->N_max * LEMKE_LWORK_COLS);
  } else {
    info = LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', m, s->H, L->N);
    for (int c = 0; c < m; c++) /* the upper triangle from the lower */
      for (int rr = c + 1; rr < m; rr++) s->H[c + (size_t)rr * L->N] = s->H[rr + (size_t)c * L->N];
  }
  if (info != 0) return 0;
  for (int c = 0; c < m; c++) cblas_dscal(m, -1.0, s->H + (size_t)c * L->N, 1);
  return 1;
}

/* The crash basis B_C from the set K[0..m) and H: lists, core columns,
 * values x_K = H q_R, mu = q + A(:, K) x_K. */
static void crash_basis(basis *B, int m) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int N = B->N;
  for (int i = 0; i <= N; i++) s->posK[i] = -1;
  for (int i = 0; i < N; i++) s->posR[i] = -1;
  for (int c = 0; c < m; c++) {
    int j = s->K[c];
    s->R[c] = j;
    s->posK[j] = c;
    s->posR[j] = c;
    slv_lemke_set_core_col(L, c, j);
    s->g[c] = L->q[j];
  }
  B->k = m;
  if (m > 0)
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, s->H, B->ldh, s->g, 1, 0.0, s->xK, 1);
  slv_lemke_cols_times(L, s->K, m, s->xK, s->u);
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0) s->wv[i] = L->q[i] + s->u[i];
}

/* c of the header (per basic variable: core position q, or row i), and
 * d = B_C c into dc: c_i on the basic mu_i, minus A(:, K) c_K. */
static void crash_covering(basis *B, double *dc) {
  lemke_state *s = B->s;
  const lcp_view *L = B->L;
  int N = B->N, k = B->k;
  for (int q = 0; q < k; q++) s->yK[q] = 1.0 / row_scale(L, s->K[q]);
  slv_lemke_cols_times(L, s->K, k, s->yK, s->u);
  for (int i = 0; i < N; i++) {
    s->yW[i] = s->posR[i] < 0 ? row_scale(L, i) : 0.0;
    dc[i] = s->yW[i] - s->u[i];
  }
}

/* z0 enters: t0 = max (-x_B,i / c_i); among ties the lexicographically
 * smallest row of B^-1 / c_i leaves (slv_lemke_lex_choose on the rows with
 * y = c).  Returns 0 when x_B >= 0 (no z0 needed), else 1 with the first
 * pivot made and P->ent its complement. */
static int z0_enters(basis *B, path *P) {
  lemke_state *s = B->s;
  int N = B->N, k = B->k, nt = 0;
  double t0 = 0;
  for (int q = 0; q < k; q++) t0 = fmax(t0, -s->xK[q] / s->yK[q]);
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0) t0 = fmax(t0, -s->wv[i] / s->yW[i]);
  if (!(t0 > 0)) return 0;
  double thr = t0 * (1 - LEMKE_TIE_REL);
  for (int q = 0; q < k; q++)
    if (-s->xK[q] / s->yK[q] >= thr) s->ties[nt++] = q;
  for (int i = 0; i < N; i++)
    if (s->posR[i] < 0 && -s->wv[i] / s->yW[i] >= thr) s->ties[nt++] = -(i + 1);
  int l = slv_lemke_lex_choose(B, nt);
  int leaving = l >= 0 ? s->K[l] : -1, lrow = l >= 0 ? -1 : -l - 1;
  /* z0's tableau column: B^-1 (-d) = -c */
  cblas_dscal(k, -1.0, s->yK, 1);
  cblas_dscal(N, -1.0, s->yW, 1);
  slv_lemke_exchange(B, N, l, t0);
  P->pivots++;
  P->ent = leaving >= 0 ? -(leaving + 1) : lrow;
  return 1;
}

slv_status slv_lemke_crash_path(lemke_state *s, lcp_view *L, slv_op *op, const slv_options *opt,
                                int limit, double *x, double *w, slv_result *res) {
  basis B = { .s = s, .L = L, .N = L->N, .k = 0, .ldh = L->N };
  path P = slv_lemke_path_new(fmax(opt->pivot_tol, LEMKE_PIVOT_FLOOR), opt->pivot_tol, limit);
  crash c;
  slv_status st = crash_set(s, L, op, opt, limit, x, w, &c);
  res->pivots = c.pivots;
  if (st) return st;
  if (c.m < 0)
    slv_logf(opt, "lemke: crash: %d rounds (%s): A_CC singular or the guess over the budget",
             c.rounds, c.general ? "LU" : "Cholesky");
  else
    slv_logf(opt, "lemke: crash: %d rounds (%s), |C| = %d, %d rows broken", c.rounds,
             c.general ? "LU" : "Cholesky", c.m, c.broken);
  if (c.m >= 0 && c.broken == 0 &&
      crash_solved(s, L, op, opt, c.m, c.general, x, w, res) == SLV_CONVERGED)
    return SLV_CONVERGED;
  if (c.m < 0 || c.broken > L->N / LEMKE_CRASH_BROKEN || !crash_inverse(s, L, c.m, c.general)) {
    slv_msgf(res->message, sizeof res->message,
             "lemke: no crash basis (a singular A_CC, the guess over the pivot budget, or %d "
             "rows left broken)",
             c.broken);
    return SLV_SINGULAR_PIVOT;
  }
  const double *d0 = L->d;
  crash_basis(&B, c.m);
  crash_covering(&B, s->dc);
  L->d = s->dc;
  slv_lemke_path_scales(&B, &P);
  P.pivots = c.pivots;
  if ((double)P.pivots + (double)LEMKE_CRASH_PIVOTS * L->N < limit)
    P.limit = P.pivots + LEMKE_CRASH_PIVOTS * L->N;
  if (!z0_enters(&B, &P)) {
    res->pivots = P.pivots;
    st = slv_lemke_finish(&B, &P, op, opt, x, w, res);
  } else {
    int before = P.pivots;
    st = slv_lemke_run_path(&B, &P, op, opt, x, w, res);
    slv_logf(opt, "lemke: crash: z0 path of %d pivots: %s", P.pivots - before, slv_status_str(st));
  }
  L->d = d0;
  return st;
}
