/* nsn_sparse.c -- the sparse Newton matrix of the Alart-Curnier Newton
 * (nsn_ac.c, nsgs_newton.c): storage, assembly and SuiteSparse UMFPACK or
 * KLU factorization (docs/solvers.md, "Alart-Curnier Newton").
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
 * workspace's own scratch (umfpack_di_wsolve), or KLU's (below).  Rows
 * the dense path eliminates (Ar row e_i, Bu row 0: separated contacts, box
 * rows at a bound) are identity rows here, whose d_i = -Phi_i comes out of
 * the solve.
 *
 * Which LU: UMFPACK's multifrontal one (BLAS on dense fronts) where the
 * LU is large, KLU's left-looking one where it is small: when UMFPACK's
 * symbolic analysis estimates at most NSN_KLU_FLOPS (2e7) flops for one
 * LU.  Measured (experiments/MEASUREMENTS.md, "Measurements: sparse Newton"):
 * whole solves of the Capsules (n 675-888, 3e5-4e5 flops) 2-4.5x faster
 * with KLU; 10 Newton iterations of RockPile_tob1 (n 1389, 1.1e7 flops)
 * 3x faster, of KaplasTower (1710, 1.3e8) a tie; 5 of the 10-layer
 * pyramid export (1200, 4.3e7) 1.35x slower with KLU, of the 500-body
 * pile (4065, 1.2e9) 1.1x, the 1500-body pile (12369) 2.3x.  UMFPACK
 * allocates its numeric object at every factorization (it has no refactor
 * in place); KLU refactors in the pivot order of its last factorization
 * without allocating, and factors anew (allocating) only when the
 * refactored U looks singular (klu_lu_solve).  The pattern's own buffers
 * are reserved once per problem at the start of the solve and kept for the
 * next (grown geometrically); the UMFPACK analysis is done for every
 * pattern, since nsgs_newton's cost model reads its flop estimate.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>
#include <suitesparse/klu.h>
#include <suitesparse/umfpack.h>

#define NSN_KLU_RCOND 1e-12 /* below: a refactored LU is redone with a pivot search */

static void drop_numeric(slv_nsn_sparse *sp) {
  if (sp->numeric) umfpack_di_free_numeric(&sp->numeric);
  sp->numeric = NULL;
}

static void drop_klu(slv_nsn_sparse *sp) {
  klu_common *kc = sp->klu_common;
  if (!kc) return;
  if (sp->klu_numeric) klu_free_numeric((klu_numeric **)&sp->klu_numeric, kc);
  if (sp->klu_symbolic) klu_free_symbolic((klu_symbolic **)&sp->klu_symbolic, kc);
  sp->klu_numeric = sp->klu_symbolic = NULL;
}

static void drop_symbolic(slv_nsn_sparse *sp) {
  drop_numeric(sp);
  drop_klu(sp);
  if (sp->symbolic) umfpack_di_free_symbolic(&sp->symbolic);
  sp->symbolic = NULL;
}

void slv_nsn_sparse_free(slv_nsn_sparse *sp) {
  double klu_flops = sp->klu_flops; /* a setting, not storage */
  drop_symbolic(sp);
  free(sp->control);
  free(sp->klu_common);
  free(sp->Hp_buf);
  free(sp->dpos_buf);
  free(sp->stamp);
  free(sp->where);
  free(sp->W);
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

slv_status slv_nsn_sparse_reserve(slv_nsn *s, const slv_op *op) {
  slv_nsn_sparse *sp = &s->sp;
  if (!sp->control) {
    size_t m = (size_t)(s->n_max > 0 ? s->n_max : 1);
    sp->control = malloc(UMFPACK_CONTROL * sizeof *sp->control);
    sp->Hp_buf = malloc((m + 1) * sizeof *sp->Hp_buf);
    sp->dpos_buf = malloc(m * sizeof *sp->dpos_buf);
    sp->stamp = malloc(m * sizeof *sp->stamp);
    sp->where = malloc(m * sizeof *sp->where);
    sp->W = malloc(6 * m * sizeof *sp->W); /* x, then wsolve's W (5 n) */
    if (!sp->control || !sp->Hp_buf || !sp->dpos_buf || !sp->stamp || !sp->where || !sp->W) {
      slv_nsn_sparse_free(sp);
      return SLV_ERR_NOMEM;
    }
    umfpack_di_defaults(sp->control);
    sp->control[UMFPACK_IRSTEP] = 0; /* Newton corrects its own inexact steps */
    sp->klu_common = malloc(sizeof(klu_common));
    if (!sp->klu_common) {
      slv_nsn_sparse_free(sp);
      return SLV_ERR_NOMEM;
    }
    klu_defaults(sp->klu_common);
    sp->dpos = sp->dpos_buf;
  }
  drop_symbolic(sp);
  sp->n = 0;
  sp->factors = 0;
  if (pattern_size(s, op) != SLV_OK) return SLV_ERR_NOMEM;
  pattern_fill(s, op);
  double info[UMFPACK_INFO];
  if (umfpack_di_symbolic(op->n, op->n, sp->Hp, sp->Hi, NULL, &sp->symbolic, sp->control, info) !=
      UMFPACK_OK)
    return SLV_ERR_NOMEM;
  sp->lu_flops = info[UMFPACK_FLOPS_ESTIMATE];
  sp->klu = sp->lu_flops <= sp->klu_flops;
  if (sp->klu) {
    sp->klu_symbolic = klu_analyze(op->n, sp->Hp, sp->Hi, sp->klu_common);
    if (!sp->klu_symbolic) return SLV_ERR_NOMEM;
  }
  sp->n = op->n;
  return SLV_OK;
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

/* KLU: refactor in the pivot order of the last factorization (no
 * allocation, no pivot search); a new factorization, with its own pivot
 * search, when there is none yet or the refactored U has a crude
 * reciprocal condition (min |U_ii| / max |U_ii|) under NSN_KLU_RCOND (the
 * active set changed under the old pivots).  rhs <- H^-1 rhs: 0, or 1 when
 * H is singular. */
static int klu_lu_solve(slv_nsn_sparse *sp, int n, double *rhs) {
  klu_common *kc = sp->klu_common;
  int ok = 0;
  if (sp->klu_numeric) {
    ok = klu_refactor(sp->Hp, sp->Hi, sp->Hx, sp->klu_symbolic, sp->klu_numeric, kc) &&
         klu_rcond(sp->klu_symbolic, sp->klu_numeric, kc) && kc->rcond > NSN_KLU_RCOND;
    if (!ok) klu_free_numeric((klu_numeric **)&sp->klu_numeric, kc);
  }
  if (!ok) {
    sp->klu_numeric = klu_factor(sp->Hp, sp->Hi, sp->Hx, sp->klu_symbolic, kc);
    if (!sp->klu_numeric || kc->status != KLU_OK) return 1;
  }
  sp->factors++;
  return klu_solve(sp->klu_symbolic, sp->klu_numeric, n, 1, rhs, kc) ? 0 : 1;
}

int slv_nsn_sparse_solve(slv_nsn *s, const slv_op *op, double tau, double delta, double *rhs) {
  slv_nsn_sparse *sp = &s->sp;
  int n = op->n;
  fill_values(s, op, tau, delta);
  if (sp->klu) return klu_lu_solve(sp, n, rhs);
  drop_numeric(sp);
  int st =
      umfpack_di_numeric(sp->Hp, sp->Hi, sp->Hx, sp->symbolic, &sp->numeric, sp->control, NULL);
  sp->factors++;
  if (st != UMFPACK_OK) return 1; /* singular (a warning for UMFPACK), or no memory */
  double *xs = sp->W, *W = sp->W + n;
  int *Wi = sp->stamp; /* the pattern build's scratch, free during the iterations */
  st = umfpack_di_wsolve(UMFPACK_A, sp->Hp, sp->Hi, sp->Hx, xs, rhs, sp->numeric, sp->control, NULL,
                         Wi, W);
  if (st != UMFPACK_OK) return 1;
  memcpy(rhs, xs, (size_t)n * sizeof *rhs);
  return 0;
}
