/* dantzig_start.c -- the start set of one boxed pass of dantzig
 * (docs/solvers.md, "Principal pivoting (Dantzig)" and "A first active
 * set").
 *
 * The pass's guess cand[0..m) (the free rows; with a warm start or a
 * findex pass, the rows inside their box or the last pass's clamped set)
 * becomes the set C the pivots start from, factored, with every row of C
 * valid (w = 0, x in its box):
 *
 *   the first pass of a cold solve (no warm start), n >= DZ_BLOCK_MIN:
 *     the guess gains the rows strictly inside their box after a few
 *     sweeps of projected Gauss-Seidel from the start x
 *     (slv_bpp_sweep_guess; below its SLV_BPP_SWEEP_MIN rows, the rows
 *     that break their conditions at x: at lo with w < 0, at hi with
 *     w > 0, inside with w != 0), then the
 *     rounds of block principal pivoting (block_pivot.h) move whole sets
 *     of rows at a time, each round one Cholesky factor of A_CC at
 *     LAPACK's blocked speed; the clamped rows left outside their box then
 *     leave C one by one through the factor's updates (drop_outside).
 *     From 32 to 64 rows the rounds start to cost less than the single
 *     pivots they replace
 *     (experiments/records/2026-11-26-pivoting-against-factorisation.md);
 *   a warm guess (opt->warm_start, a findex pass from the last pass's
 *     clamped set) and smaller problems: the guess is factored, solved,
 *     and the rows whose solution leaves the box are dropped and the rest
 *     refactored (block_start).  A warm set is close to its answer; on the
 *     findex passes of boxed-findex 1000 the rounds from it cycled (500
 *     broken rows, then 360 and back) and tripled the pivots.
 *
 * Either way the pivots of dantzig_drive.c finish the pass: the start is a
 * guess, never the answer's judge.
 */
#include "block_pivot.h"
#include "dantzig.h"

#include <string.h>

/* Block start: rows cand[0..m) (free rows first) are solved with the other
 * rows fixed at x; rows whose solution leaves the box are dropped (x set to
 * the nearest bound) and the rest refactored, up to DZ_WARM_ROUNDS rounds.
 * Returns |C| >= 0; C = cand[0..k) in slot order, factor in L/d. */
static int block_start(dz_state *s, double *x, int m) {
  for (int round = 0; round < DZ_WARM_ROUNDS && m > 0; round++) {
    m = slv_dz_block_factor(s, m);
    if (m == 0) break;
    /* rhs = -(b_S + A_S,rest x_rest): w0 = A x0 + b with x0_S = 0 */
    for (int b = 0; b < m; b++) {
      s->y[b] = x[s->cand[b]];
      x[s->cand[b]] = 0;
    }
    slv_dz_full_w(s, x, s->tmp);
    for (int b = 0; b < m; b++) {
      x[s->cand[b]] = s->y[b];
      s->v[b] = -s->tmp[s->cand[b]];
    }
    /* x_S = A_SS^-1 rhs with L D L^T */
    s->k = m;
    slv_dz_fac_solve(s, s->v);
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


/* The guess gains the rows (other than cand[0..m) and fixed rows) that
 * break their conditions at x (w = A x + b): at lo with w < 0, at hi with
 * w > 0, inside the box (free rows included) at all.  st[] marks the guess
 * (ST_C).  Returns the new m. */
static int add_broken(dz_state *s, const double *x, const double *w, int m) {
  int n = s->n;
  memset(s->st, ST_U, (size_t)n * sizeof *s->st);
  for (int b = 0; b < m; b++) s->st[s->cand[b]] = ST_C;
  for (int i = 0; i < n; i++) {
    double lo = s->lo[i], hi = s->hi[i];
    if (s->st[i] == ST_C || lo == hi) continue;
    if ((x[i] <= lo && w[i] < 0) || (x[i] >= hi && w[i] > 0) || (lo < x[i] && x[i] < hi))
      s->cand[m++] = i;
  }
  return m;
}

/* The clamped rows outside their box leave C, each to its nearer bound,
 * through the factor's downdates (slv_dz_fac_remove), and the rest is
 * solved again (w += A(:, r) for the moved x_r; dx_C = -A_CC^-1 w_C), until
 * C is valid or DZ_WARM_ROUNDS rounds have passed (then C is empty: the
 * pivots start from no clamped row).  w = A x + b on entry and on return.
 * Returns |C|. */
static int drop_outside(dz_state *s, double *x, double *w, int m) {
  for (int round = 0; round < DZ_WARM_ROUNDS; round++) {
    int dropped = 0;
    s->k = m;
    for (int q = m - 1; q >= 0; q--) {
      int r = s->cand[q];
      if (!(x[r] < s->lo[r] || x[r] > s->hi[r])) continue;
      double to = x[r] < s->lo[r] ? s->lo[r] : s->hi[r];
      slv_bpp_add_column(s->op, r, to - x[r], w);
      x[r] = to;
      slv_dz_fac_remove(s, q);
      memmove(s->cand + q, s->cand + q + 1, (size_t)(m - 1 - q) * sizeof *s->cand);
      s->k = --m;
      s->pivots++; /* a row leaving C: one principal pivot */
      dropped++;
    }
    if (!dropped) return m;
    double *dx = s->y;
    for (int q = 0; q < m; q++) dx[q] = -w[s->cand[q]];
    slv_dz_fac_solve(s, dx);
    for (int q = 0; q < m; q++) {
      int r = s->cand[q];
      x[r] += dx[q];
      if (dx[q] != 0.0) slv_bpp_add_column(s->op, r, dx[q], w);
    }
    for (int q = 0; q < m; q++) w[s->cand[q]] = 0;
  }
  return 0;
}

/* The rounds of block principal pivoting from the guess cand[0..m)
 * (block_pivot.h), in dantzig's factor L D L^T; then drop_outside. */
static int block_pivots(dz_state *s, double *x, double *w, int m, slv_status *stop) {
  slv_bpp q = { .n = s->n,
                .A = s->A,
                .lda = s->lda,
                .b = s->p->b,
                .lo = s->lo,
                .hi = s->hi,
                .op = s->op,
                .sq = s->sq,
                .prel = s->prel,
                .zero_abs = s->ptol,
                .given = m,
                .budget = s->limit - (s->pivots - s->pass_pivots0),
                .F = s->L,
                .ldf = s->n,
                .ipiv = s->ipiv,
                .dx = s->dx,
                .key = s->dw,
                .set = s->cand,
                .flips = s->perm,
                .pend = s->yj,     /* free until the drives */
                .watch = s->iperm, /* set by the pass after the start */
                .in = s->st };
  slv_bpp_result r;
  slv_dz_full_w(s, x, w);
  int g = slv_bpp_sweep_guess(&q, x, w, m);
  m = g >= 0 ? g : add_broken(s, x, w, m);
  if (m - q.given > q.budget) /* the guess alone would pass the pivot limit */
    return block_start(s, x, q.given);
  *stop = slv_bpp_run(&q, x, w, m, &r);
  s->pivots += r.pivots;
  if (*stop) return 0;
  slv_logf(s->opt,
           "dantzig: block start: %d rounds, |C| = %d, %d rows broken, %d pivots (%d rows "
           "deleted by updates, %d kept in heads; %d passes of w over A)",
           r.rounds, r.m, r.broken, r.pivots, r.deleted, r.kept, r.passes);
  m = slv_dz_chol_to_ldl(s, r.m); /* the same zero test as the rounds': m = r.m */
  m = drop_outside(s, x, w, m);
  s->w_fresh = 1;
  /* the rows cut from C by a zero pivot keep a solved x: into the box */
  memset(s->st, ST_U, (size_t)s->n * sizeof *s->st);
  for (int c = 0; c < m; c++) s->st[s->cand[c]] = ST_C;
  for (int i = 0; i < s->n; i++) {
    if (s->st[i] == ST_C || (s->lo[i] <= x[i] && x[i] <= s->hi[i])) continue;
    double to = x[i] < s->lo[i] ? s->lo[i] : s->hi[i];
    slv_bpp_add_column(s->op, i, to - x[i], w);
    x[i] = to;
  }
  return m;
}

int slv_dz_start(dz_state *s, double *x, double *w, int m, slv_status *stop) {
  *stop = SLV_CONVERGED;
  s->w_fresh = 0;
  if (s->n < DZ_BLOCK_MIN || !s->cold) return block_start(s, x, m);
  return block_pivots(s, x, w, m, stop);
}
