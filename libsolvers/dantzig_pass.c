/* dantzig_pass.c -- one boxed pass of dantzig (docs/solvers.md, "Principal
 * pivoting (Dantzig)"): the block start of the clamped set, the order in
 * which the other rows are driven (most violated first), and the step of
 * iterative refinement at the end.
 */
#include "block_pivot.h"
#include "dantzig.h"

#include <cblas.h>
#include <string.h>

/* y[q] = -w_r for the row r of each slot q of C, w_r = A_r: x + b_r read
 * along column r (A is symmetric), the rows in their own order: each is a
 * product of its own (the same bits in any order), and A's columns are
 * then read in the order they lie in memory, not in the slots' order,
 * which jumps about A (2026-11-28-piv3.md).  Positions [0, k) are C. */
static void minus_w_C(dz_state *s, const double *x) {
  for (int r = 0; r < s->n; r++) {
    int pos = s->iperm[r];
    if (pos < s->k) s->y[s->pos_slot[pos]] = -slv_dz_row_w(s, r, x);
  }
}

/* One step of iterative refinement on the final C: w_C = A_C: x + b_C
 * (the rows of C alone, read along their columns: A is symmetric; |C| / n
 * of a pass over A, not a whole one), then A_CC dx_C = -w_C with the
 * factor, x_C kept in its box, and w = A x + b whole for the verdict. */
void slv_dz_refine(dz_state *s, double *x, double *w) {
  int k = s->k;
  if (k == 0) {
    slv_dz_full_w(s, x, w);
    return;
  }
  minus_w_C(s, x);
  slv_dz_fac_solve(s, s->y);
  for (int q = 0; q < k; q++) {
    int r = slv_dz_slot_row(s, q);
    double xr = x[r] + s->y[q];
    x[r] = xr < s->lo[r] ? s->lo[r] : (xr > s->hi[r] ? s->hi[r] : xr);
  }
  slv_dz_full_w(s, x, w);
}

/* Processing order of the rows at positions [a, b): most violated first.
 * At the start point, a row at lo violates by max(0, -w), at hi by
 * max(0, w), inside its box by |w|; rows that are valid come after, the
 * ones nearest to becoming invalid (smallest slack |w|) first, fixed rows
 * (lo = hi) last.  Driving the strongly violated rows first clamps early the
 * rows that end up clamped, so fewer later pivots push rows back and forth
 * between C and N.  key = -violation, or the slack when valid; w = A x + b
 * at the start of the pass. */
static void order_rows(dz_state *s, const double *x, const double *w, int a, int b) {
  int len = b - a;
  if (len < 2) return;
  double *key = s->dw; /* free between drives */
  for (int q = a; q < b; q++) {
    int r = s->perm[q];
    double lo = s->lo[r], hi = s->hi[r], wr = w[r], kr;
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
  slv_sort_by_key(s->perm + a, len, key);
}

/* One boxed pass with the bounds s->lo / s->hi: the start set from the
 * guess cand[0..m) (dantzig_start.c), then every other row driven.  x in/out (projected first), w
 * out (= A x + b at the end). */
slv_status slv_dz_boxed_pass(dz_state *s, double *x, double *w, int m, slv_result *res) {
  int n = s->n;
  slv_status stop = slv_should_stop(s->op, (double)m * m * m / 3); /* before the block's factor */
  if (stop) return stop;
  for (int i = 0; i < n; i++) {
    if (x[i] < s->lo[i]) x[i] = s->lo[i];
    if (x[i] > s->hi[i]) x[i] = s->hi[i];
  }
  m = slv_dz_start(s, x, w, m, &stop);
  if (stop) return stop;
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
  /* w = A x + b: the start's (O(n^2) or O(nnz) packed when it has none) */
  const double *wc = w;
  if (!s->w_fresh) slv_dz_full_w(s, x, s->tmp), wc = s->tmp;
  order_rows(s, x, wc, m, pos_f);
  order_rows(s, x, wc, pos_f, n);
  for (int q = 0; q < n; q++) s->iperm[s->perm[q]] = q;
  for (int q = 0; q < m; q++) {
    s->slot_pos[q] = s->pos_slot[q] = q;
    s->crow[q] = s->perm[q];
  }
  s->k = m;
  s->nN = 0;
  for (int b = 0; b < m; b++) w[s->cand[b]] = 0;
  s->has_M = 0; /* built by the drives from DZ_M_AFTER pivots on */

  while (s->k + s->nN < n) {
    slv_status st = slv_dz_drive(s, x, w, res);
    if (st != SLV_CONVERGED) return st;
  }
  slv_dz_refine(s, x, w);
  return SLV_CONVERGED;
}

/* One boxed pass with friction bounds h from the clamped set cand[0..m);
 * then the library's residual (findex bounds at the new x). */
slv_status slv_dz_pass_eval(dz_state *s, const double *h, double *x, double *w, int m,
                            slv_result *res, double *rr) {
  slv_dz_set_bounds(s, h);
  s->pass_pivots0 = s->pivots;
  slv_status st = slv_dz_boxed_pass(s, x, w, m, res);
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
int slv_dz_clamped_as_cand(dz_state *s) {
  for (int q = 0; q < s->k; q++) s->cand[q] = slv_dz_slot_row(s, q);
  return s->k;
}
