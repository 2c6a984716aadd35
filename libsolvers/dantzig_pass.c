/* dantzig_pass.c -- one boxed pass of dantzig (docs/solvers.md, "Principal
 * pivoting (Dantzig)"): the block start of the clamped set, the order in
 * which the other rows are driven (most violated first), and the step of
 * iterative refinement at the end.
 */
#include "dantzig.h"

#include <cblas.h>
#include <string.h>

/* Block start: rows cand[0..m) (free rows first) are solved with the other
 * rows fixed at x; rows whose solution leaves the box are dropped (x set to
 * the nearest bound) and the rest refactored, up to DZ_WARM_ROUNDS rounds.
 * Returns |C| >= 0; C = cand[0..k) in slot order, factor in L/d. */
static int block_start(dz_state *s, double *x, int m) {
  int n = s->n;
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
void slv_dz_refine(dz_state *s, double *x, double *w) {
  int k = s->k;
  slv_dz_full_w(s, x, w);
  if (k == 0) return;
  for (int q = 0; q < k; q++) s->y[q] = -w[slv_dz_slot_row(s, q)];
  cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasUnit, k, s->L, s->n, s->y, 1);
  for (int q = 0; q < k; q++) s->y[q] /= s->d[q];
  slv_dz_fac_bsolve(s, s->y);
  for (int q = 0; q < k; q++) {
    int r = slv_dz_slot_row(s, q);
    double xr = x[r] + s->y[q];
    x[r] = xr < s->lo[r] ? s->lo[r] : (xr > s->hi[r] ? s->hi[r] : xr);
  }
  slv_dz_full_w(s, x, w);
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
  slv_dz_full_w(s, x, s->tmp);
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
slv_status slv_dz_boxed_pass(dz_state *s, double *x, double *w, int m, slv_result *res) {
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
  if (!s->packed) slv_dz_build_M(s);

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
