/* nsn_sparse.c -- the sparse Newton matrix of the Alart-Curnier Newton
 * (nsn_ac.c, nsgs_newton.c): storage, assembly and SuiteSparse UMFPACK or
 * KLU factorization (docs/cone-solvers.md, "Alart-Curnier Newton").
 *
 * H = Ar + Bu (A + sigma I) (+ delta I).  Row i of H combines the rows of
 * A in i's own block (the 3 rows of its contact, or the row itself) with
 * the weights Bu(i, .), so column j of H is nonzero on every row of each
 * block that column j of A touches, plus j's own block (Ar, sigma Bu).
 * That pattern depends on A alone, not on the active set: it is built and
 * analysed once per problem by slv_nsn_sparse_reserve (UMFPACK's symbolic
 * factorization: a fill-reducing column ordering, AMD on A + A' as the
 * pattern is symmetric [davis2004]).  Every Newton iteration then fills the
 * values in O(3 nnz(A)) (hpos maps each packed entry of A to its place in
 * H), runs UMFPACK's numeric LU (threshold partial pivoting, so a changed
 * active set never meets a stale pivot order) and solves with the
 * workspace's own scratch (umfpack_di_wsolve), or KLU's (below).  Both
 * through the linear-system interface (linsys.h; H by columns is H' by
 * rows, so the solves are transposed ones); the choice between the two,
 * below, is this file's.  Rows
 * the dense path eliminates (Ar row e_i, Bu row 0: separated contacts, box
 * rows at a bound) are identity rows here, whose d_i = -Phi_i comes out of
 * the solve.
 *
 * Which LU: UMFPACK's multifrontal one (BLAS on dense fronts) where the
 * LU is large, KLU's left-looking one where it is small: when UMFPACK's
 * symbolic analysis estimates at most NSN_KLU_FLOPS (2e7) flops for one
 * LU.  Measured (experiments/records/2026-11-23-sparse-newton.md):
 * whole solves of the Capsules (n 675-888, 3e5-4e5 flops) 2-4.5x faster
 * with KLU; 10 Newton iterations of RockPile_tob1 (n 1389, 1.1e7 flops)
 * 3x faster, of KaplasTower (1710, 1.3e8) a tie; 5 of the 10-layer
 * pyramid export (1200, 4.3e7) 1.35x slower with KLU, of the 500-body
 * pile (4065, 1.2e9) 1.1x, the 1500-body pile (12369) 2.3x.  UMFPACK
 * allocates its numeric object at every factorization (it has no refactor
 * in place); KLU refactors in the pivot order of its last factorization
 * without allocating, and factors anew (allocating) only when the
 * refactored U looks singular (linsys.c).  The pattern's own buffers
 * are reserved once per problem at the start of the solve and kept for the
 * next (grown geometrically); the UMFPACK analysis is done for every
 * pattern, since nsgs_newton's cost model reads its flop estimate.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

void slv_nsn_sparse_free(slv_nsn_sparse *sp) {
  double klu_flops = sp->klu_flops; /* a setting, not storage */
  slv_linsys_free(sp->ls);
  free(sp->Hp_buf);
  free(sp->dpos_buf);
  free(sp->stamp);
  free(sp->where);
  free(sp->Hi);
  free(sp->Hx);
  free(sp->hpos);
  memset(sp, 0, sizeof *sp);
  sp->klu_flops = klu_flops;
}

/* The packed entries of A's column j: row r and index e into op->val (for
 * 3x3 blocks, the entry's place inside its block's 9 values). */
typedef struct {
  const slv_op *op;
  int j, k, k1, rr;
} col_iter;

static col_iter col_begin(const slv_op *op, int j) {
  col_iter it = { op, j, 0, 0, 0 };
  if (op->packed == SLV_OP_COLS) {
    it.k = op->colptr[j];
    it.k1 = op->colptr[j + 1];
  } else {
    it.k = op->colptr[j / 3];
    it.k1 = op->colptr[j / 3 + 1];
  }
  return it;
}

static int col_next(col_iter *it, int *r, size_t *e) {
  if (it->k >= it->k1) return 0;
  const slv_op *op = it->op;
  if (op->packed == SLV_OP_COLS) {
    *r = op->rowind[it->k];
    *e = (size_t)it->k++;
    return 1;
  }
  int c = it->j % 3;
  *r = 3 * op->rowind[it->k] + it->rr;
  *e = 9 * (size_t)it->k + 3 * (size_t)c + (size_t)it->rr;
  if (++it->rr == 3) it->rr = 0, it->k++;
  return 1;
}

/* The distinct blocks column j of H touches (those of A's column j and
 * j's own), sorted, into list; returns their count.  stamp marks them. */
static int col_blocks(slv_nsn *s, const slv_op *op, int j, int *list) {
  slv_nsn_sparse *sp = &s->sp;
  int nb = 0, r;
  size_t e;
  col_iter it = col_begin(op, j);
  sp->stamp[s->blk0[j]] = j;
  list[nb++] = s->blk0[j];
  while (col_next(&it, &r, &e)) {
    int b0 = s->blk0[r];
    if (sp->stamp[b0] != j) sp->stamp[b0] = j, list[nb++] = b0;
  }
  for (int a = 1; a < nb; a++) { /* insertion sort: a few dozen blocks */
    int v = list[a], b = a - 1;
    for (; b >= 0 && list[b] > v; b--) list[b + 1] = list[b];
    list[b + 1] = v;
  }
  return nb;
}

static int buf_reserve(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t c = need + need / 2;
  void *q = realloc(*p, c * elem);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Column pointers of H (a pass over A's pattern) and the buffers. */
static slv_status pattern_size(slv_nsn *s, const slv_op *op) {
  slv_nsn_sparse *sp = &s->sp;
  int n = op->n, *list = s->act;
  for (int i = 0; i < n; i++) sp->stamp[i] = -1;
  sp->Hp = sp->Hp_buf;
  sp->Hp[0] = 0;
  for (int j = 0; j < n; j++) {
    int nb = col_blocks(s, op, j, list), rows = 0;
    for (int b = 0; b < nb; b++) rows += s->bw[list[b]];
    sp->Hp[j + 1] = sp->Hp[j] + rows;
  }
  sp->nnz = (size_t)sp->Hp[n];
  size_t ne = op->packed == SLV_OP_COLS ? (size_t)op->colptr[n] : 9 * (size_t)op->colptr[n / 3];
  size_t cap = sp->nnz_cap, cap2 = sp->nnz_cap;
  if (buf_reserve((void **)&sp->Hi, &cap, sp->nnz, sizeof *sp->Hi) ||
      buf_reserve((void **)&sp->Hx, &cap2, sp->nnz, sizeof *sp->Hx))
    return SLV_ERR_NOMEM;
  sp->nnz_cap = cap < cap2 ? cap : cap2;
  if (buf_reserve((void **)&sp->hpos, &sp->hpos_cap, ne, sizeof *sp->hpos)) return SLV_ERR_NOMEM;
  return SLV_OK;
}

/* Row indices of H and the maps hpos, dpos. */
static void pattern_fill(slv_nsn *s, const slv_op *op) {
  slv_nsn_sparse *sp = &s->sp;
  int n = op->n, *list = s->act, r;
  size_t e;
  for (int i = 0; i < n; i++) sp->stamp[i] = -1;
  for (int j = 0; j < n; j++) {
    int nb = col_blocks(s, op, j, list), q = sp->Hp[j];
    for (int b = 0; b < nb; b++) {
      sp->where[list[b]] = q;
      for (int t = 0; t < s->bw[list[b]]; t++) sp->Hi[q++] = list[b] + t;
    }
    sp->dpos[j] = sp->where[s->blk0[j]];
    col_iter it = col_begin(op, j);
    while (col_next(&it, &r, &e)) sp->hpos[e] = sp->where[s->blk0[r]];
  }
}

/* H's LU system (columns sorted: H' by rows): UMFPACK's analysis, whose
 * flop estimate decides (sp->klu_flops), then KLU's when the LU is small.
 * 0 or -1 (no memory). */
static int lu_reserve(slv_nsn_sparse *sp, int n) {
  slv_ls_status st;
  sp->ls = slv_linsys_analyse_sorted(SLV_LS_GENERAL, SLV_LS_UMFPACK, n, sp->Hp, sp->Hi, &st);
  if (!sp->ls) return -1;
  slv_linsys_set_refinement(sp->ls, 0); /* Newton corrects its own inexact steps */
  sp->lu_flops = slv_linsys_lu_flops(sp->ls);
  sp->klu = sp->lu_flops <= sp->klu_flops;
  if (sp->klu) {
    slv_linsys_free(sp->ls);
    sp->ls = slv_linsys_analyse_sorted(SLV_LS_GENERAL, SLV_LS_KLU, n, sp->Hp, sp->Hi, &st);
    if (!sp->ls) return -1;
  }
  sp->n = n;
  return 0;
}

slv_status slv_nsn_sparse_reserve(slv_nsn *s, const slv_op *op) {
  slv_nsn_sparse *sp = &s->sp;
  if (!sp->Hp_buf) {
    size_t m = (size_t)(s->n_max > 0 ? s->n_max : 1);
    sp->Hp_buf = malloc((m + 1) * sizeof *sp->Hp_buf);
    sp->dpos_buf = malloc(m * sizeof *sp->dpos_buf);
    sp->stamp = malloc(m * sizeof *sp->stamp);
    sp->where = malloc(m * sizeof *sp->where);
    if (!sp->Hp_buf || !sp->dpos_buf || !sp->stamp || !sp->where) {
      slv_nsn_sparse_free(sp);
      return SLV_ERR_NOMEM;
    }
    sp->dpos = sp->dpos_buf;
  }
  slv_linsys_free(sp->ls);
  sp->ls = NULL;
  sp->n = 0;
  sp->factors = 0;
  if (pattern_size(s, op) != SLV_OK) return SLV_ERR_NOMEM;
  pattern_fill(s, op);
  return lu_reserve(sp, op->n) ? SLV_ERR_NOMEM : SLV_OK;
}

/* H's values at the current Ar, Bu: Bu A over the packed entries, then the
 * diagonal blocks' Ar + sigma Bu (+ delta on the diagonal). */
static void fill_values(slv_nsn *s, const slv_op *op, double tau, double delta) {
  slv_nsn_sparse *sp = &s->sp;
  const double *bu = s->bu, *ar = s->ar;
  int n = op->n, r;
  size_t e;
  memset(sp->Hx, 0, sp->nnz * sizeof *sp->Hx);
  for (int j = 0; j < n; j++) {
    col_iter it = col_begin(op, j);
    while (col_next(&it, &r, &e)) {
      int b0 = s->blk0[r], c = r - b0;
      double a = op->val[e], *h = sp->Hx + sp->hpos[e];
      const double *u = bu + 3 * (size_t)b0 + c;
      if (s->bw[r] == 3) {
        h[0] += u[0] * a;
        h[1] += u[3] * a;
        h[2] += u[6] * a;
      } else {
        h[0] += u[0] * a;
      }
    }
  }
  for (int j = 0; j < n; j++) {
    int b0 = s->blk0[j], c = j - b0;
    double *h = sp->Hx + sp->dpos[j];
    for (int t = 0; t < s->bw[j]; t++) {
      int i = b0 + t;
      h[t] += ar[3 * i + c] + tau / s->rho[i] * bu[3 * i + c] + (i == j ? delta : 0.0);
    }
  }
}

double slv_nsn_sparse_hmax(const slv_nsn *s) {
  double m = 0;
  for (size_t e = 0; e < s->sp.nnz; e++)
    if (fabs(s->sp.Hx[e]) > m) m = fabs(s->sp.Hx[e]);
  return m;
}

/* rhs <- H^-1 rhs after the LU of the current values: 0, or 1 when H is
 * singular (or no memory).  KLU refactors in the pivot order of its last
 * factor, and factors anew only when that looks singular (linsys.h). */
int slv_nsn_sparse_solve(slv_nsn *s, const slv_op *op, double tau, double delta, double *rhs) {
  slv_nsn_sparse *sp = &s->sp;
  fill_values(s, op, tau, delta);
  slv_ls_status st = slv_linsys_factor(sp->ls, sp->Hx);
  sp->factors++;
  if (st != SLV_LS_OK) return 1;
  return slv_linsys_solve_transposed(sp->ls, rhs) != SLV_LS_OK;
}
