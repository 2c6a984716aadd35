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
 * experiments/records/2026-11-26-solvers.md).
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
 * The start.  A cold solve's first pass (n >= 64) starts from the rounds
 * of block principal pivoting (block_pivot.c; docs/solvers.md, "A first
 * active set"): whole sets of rows move between C and the bounds, each
 * round one blocked factorization, and the single pivots above finish
 * what the rounds leave (dantzig_start.c).
 *
 * The files: this one holds the state, the solve and the boxed problem's
 * verdict; dantzig_pass.c one boxed pass (the order of the rows, the
 * drives, the final refinement); dantzig_start.c its start set;
 * dantzig_drive.c the driving of one row (the pivots: unit step, ratio
 * test, set changes); dantzig_factor.c the factor A_CC = L D L^T and its
 * updates; dantzig_findex.c the outer passes on the friction bounds.
 * dantzig.h is their shared state.
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
#include "dantzig.h"

#include <stdlib.h>
#include <string.h>

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

/* The per-solve state: the operator's views, the pivot limit and zero
 * threshold, the stamps.  Returns whether p has findex rows. */
static int dz_begin(dz_state *s, slv_op *op, const slv_options *opt, slv_hist *h) {
  const slv_problem *p = op->p;
  int n = p->n, findex = 0;
  s->p = p;
  s->op = op;
  s->opt = opt;
  s->h = h;
  s->A = op->A;
  s->lda = op->lda;
  s->n = n;
  s->pivots = 0;
  s->limit = slv_pivot_limit(opt, n);
  double amax = 0;
  for (int i = 0; i < n; i++) amax = fmax(amax, fabs(slv_dz_aij(s, i, i)));
  s->ptol = opt->pivot_tol * (amax > 0 ? amax : 1.0);
  s->prel = opt->pivot_tol;
  for (int i = 0; i < n; i++) {
    double a = slv_dz_aij(s, i, i);
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
    double z = slv_dz_pivot_zero(s, slv_dz_aij(s, s->sing_row, s->sing_row));
    slv_msgf(res->message, sizeof res->message,
             "dantzig: breakdown: res_scaled=%.3g > tol=%.3g after %d singular pivots (last: row "
             "%d, s=%.3g <= %.3g); A is singular or indefinite on the clamped set",
             r, opt->tol, s->nsing, s->sing_row, s->sing_s, z);
    return SLV_BREAKDOWN;
  }
  double fl = 0, xm = 0, bm = 1;
  for (int i = 0; i < s->n; i++) {
    fl = fmax(fl, slv_dz_w_rounding(s, i, x) / 64);
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
void slv_dz_keep_better(dz_state *s, double *x, double *w, const double *xref, double rref,
                        slv_result *res) {
  slv_dz_full_w(s, x, w);
  double r = slv_residual(s->p, x, w).res_scaled;
  if (!(rref < r) && isfinite(r)) {
    res->solver_residual = r;
    return;
  }
  memcpy(x, xref, (size_t)s->n * sizeof *x);
  slv_dz_full_w(s, x, w);
  res->solver_residual = rref;
  size_t len = strlen(res->message);
  if (len + 1 < sizeof res->message)
    slv_msgf(res->message + len, sizeof res->message - len,
             "; x is the best point seen (res_scaled=%.3g), not the pass's (%.3g)", rref, r);
}

static slv_status dz_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                           slv_result *res, slv_hist *h) {
  dz_state *s = st;
  if (op->n == 0) return SLV_CONVERGED;
  int findex = dz_begin(s, op, opt, h);
  slv_dz_bounds_of(s->p, x, s->hN);
  slv_dz_set_bounds(s, s->hN);
  int m = start_set(s, x, opt->warm_start);
  double r = INFINITY;
  /* the start point, kept in case the first pass fails */
  memcpy(s->xb, x, (size_t)s->n * sizeof *x);
  slv_dz_full_w(s, x, w);
  double r0 = slv_residual(s->p, x, w).res_scaled;
  s->cold = !opt->warm_start; /* the first pass only: later ones start warm */
  slv_status sts = slv_dz_pass_eval(s, s->hN, x, w, m, res, &r);
  s->cold = 0;
  if (sts != SLV_CONVERGED) {
    if (sts != SLV_NOT_FINITE) slv_dz_keep_better(s, x, w, s->xb, r0, res);
    return sts;
  }
  if (r > opt->tol && !findex) {
    /* a second refinement step on the same C */
    slv_dz_refine(s, x, w);
    slv_residuals rs = slv_residual(s->p, x, w);
    r = res->solver_residual = rs.res_scaled;
  }
  if (r <= opt->tol) return SLV_CONVERGED;
  if (!findex) return boxed_failure(s, x, r, opt, res);
  return slv_dz_findex_passes(s, opt, r, x, w, res);
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
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_NEEDS_SYMMETRIC | SLV_CAP_DENSIFY,
  /* clang-format off */
  .params =
      "most violated first; pivot zero < max(pivot_tol (" SLV_STR(SLV_DEFAULT_PIVOT_TOL) "), 16 "
      "(k+1) eps) A_rr; findex: 50 passes w/o 10 % gain: restart, bounds x 1 +- 0.3; 3 restarts",
  /* clang-format on */
  .impl = &dz_impl,
};
