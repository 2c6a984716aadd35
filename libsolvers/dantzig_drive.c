/* dantzig_drive.c -- dantzig's pivots: one row driven until it is valid
 * (docs/solvers.md, "Principal pivoting (Dantzig)"; the method and its
 * failure modes are described in dantzig.c, the factor's updates in
 * dantzig_factor.c).  A pivot: the unit step (dx_C, the Schur complement,
 * dw on N), the ratio test in the units of D A D, the step, and the set
 * change of the blocking row.
 */
#include "dantzig.h"

#include <cblas.h>
#include <string.h>

/* What blocks a step. */
enum { BLK_NONE = 0, BLK_I_C, BLK_I_N, BLK_C_N, BLK_N_C };

/* w_i = b_i + A(i,:) x, read along column i (A is symmetric). */
double slv_dz_row_w(const dz_state *s, int i, const double *x) {
  const slv_problem *p = s->p;
  double r = p->b[i];
  if (s->packed) {
    for (int q = s->colptr[i]; q < s->colptr[i + 1]; q++) r += s->val[q] * x[s->rowind[q]];
    return r;
  }
  return r + cblas_ddot(p->n, s->A + (size_t)i * s->lda, 1, x, 1);
}

/* M = A(perm, perm). */
void slv_dz_build_M(dz_state *s) {
  int n = s->n;
  s->has_M = 1;
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
  if (s->has_M) {
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
  slv_dz_fac_remove(s, sl);
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
  for (int q = 0; q < s->k; q++) y[q] = a[slv_dz_slot_row(s, q)];
}

/* dw for a unit step (dx_i = 1, dx_C = s->dx) on the N rows: s->dw[pos - k]
 * for positions k .. k+nN (the last one is the driven row i).  Three
 * paths: M's contiguous block (one dgemv), A's packed columns, or A's
 * dense columns (the first DZ_M_AFTER pivots of a pass, before M). */
static void unit_dw(dz_state *s, int i) {
  int k = s->k, nN = s->nN, n = s->n;
  if (!s->has_M && !s->packed) {
    double *acc = s->tmp;
    memcpy(acc, s->A + (size_t)i * s->lda, (size_t)n * sizeof *acc);
    for (int q = 0; q < k; q++)
      if (s->dx[q] != 0.0)
        cblas_daxpy(n, s->dx[q], s->A + (size_t)slv_dz_slot_row(s, q) * s->lda, 1, acc, 1);
    for (int r = 0; r <= nN; r++) s->dw[r] = acc[s->perm[k + r]];
    return;
  }
  if (s->has_M) {
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
    int j = slv_dz_slot_row(s, q);
    for (int e = s->colptr[j]; e < s->colptr[j + 1]; e++) acc[s->rowind[e]] += c * s->val[e];
  }
  for (int r = 0; r <= nN; r++) s->dw[r] = acc[s->perm[k + r]];
}

static slv_status breakdown(dz_state *s, slv_result *res, int row, double sv, double zero) {
  slv_msgf(res->message, sizeof res->message,
           "dantzig: breakdown driving row %d: Schur complement s=%.3g <= %.3g and no bound "
           "blocks the step (|C|=%d); A is singular or indefinite on the clamped set",
           row, sv, zero, s->k);
  return SLV_BREAKDOWN;
}

/* Rounding level of w_i = b_i + A(i,:) x: 64 eps (|b_i| + sum_j |A_ij x_j|). */
double slv_dz_w_rounding(const dz_state *s, int i, const double *x) {
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
  d->wi = s->w_fresh ? w[i] : slv_dz_row_w(s, i, x);
  if (x[i] < d->lo) x[i] = d->lo;
  if (x[i] > d->hi) x[i] = d->hi;
  if (d->lo == d->hi || (x[i] == d->lo && d->wi >= 0) || (x[i] == d->hi && d->wi <= 0)) {
    s->st[i] = (x[i] == d->hi && d->wi <= 0 && d->lo != d->hi) ? ST_HI : ST_LO;
    w[i] = d->wi;
    s->nN++;
    return 1;
  }
  d->aii = slv_dz_aij(s, i, i);
  d->id = ++s->drive_id;
  gather_col(s, i, s->y);
  slv_dz_fac_fsolve(s, s->y);
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
  slv_dz_fac_bsolve(s, dx);
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
    double a = fabs(s->dx[q]) * sq[slv_dz_slot_row(s, q)];
    if (a > dxmax) dxmax = a;
  }
  dxmax /= si; /* the max of the quotients, exactly: a -> fl(a / si) is monotone */
  double dxtiny = 64 * DBL_EPSILON * (1 + dxmax);
  if (d->sc > slv_dz_pivot_zero(s, d->aii)) {
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
    int r = slv_dz_slot_row(s, q);
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
  s->w_fresh = 0;
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
  int r = slv_dz_slot_row(s, q), k = s->k;
  double dq = d->dir * s->dx[q];
  s->w_fresh = 0;
  x[r] = dq > 0 ? s->hi[r] : s->lo[r];
  s->st[r] = dq > 0 ? ST_HI : ST_LO;
  w[r] = 0;
  leave_C(s, q);
  slv_dz_y_after_remove(s, s->y, q, k);
  s->nN++;
}

/* The row at N position `pos` reached w = 0: it joins C (the factor grows
 * by its row, y by one entry), unless A_{C+r} is singular. */
static void bound_to_clamped(dz_state *s, const driven *d, int pos, double *w) {
  int r = s->perm[pos], k = s->k;
  double *yj = s->yj, *y = s->y;
  gather_col(s, r, yj);
  slv_dz_fac_fsolve(s, yj);
  double yv2 = 0, ly = 0;
  for (int q = 0; q < k; q++) {
    double lq = yj[q] / s->d[q]; /* the new factor row l = D^-1 L^-1 A(C, r) */
    yv2 += yj[q] * lq;
    ly += lq * y[q];
    yj[q] = lq;
  }
  double dn = slv_dz_aij(s, r, r) - yv2;
  if (!(dn > slv_dz_pivot_zero(s, slv_dz_aij(s, r, r)))) {
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
  slv_dz_fac_append(s, yj, dn);
  y[k] = slv_dz_aij(s, r, d->i) - ly; /* y grows by one entry: A(r, i) - l . y */
  s->st[r] = ST_C;
  w[r] = 0;
  enter_C(s, pos);
  s->nN--;
}

/* The driven row joins C: its factor row l = D^-1 L^-1 A_Ci = v, pivot
 * sc (w_i reached 0, or is 0 to rounding). */
static void join_C(dz_state *s, const driven *d, double *w) {
  slv_dz_fac_append(s, s->v, d->sc);
  s->st[d->i] = ST_C;
  w[d->i] = 0;
  enter_C(s, s->k + s->nN);
}

/* The driven row stays beside C with its w_i, 0 to rounding (ST_Z: it
 * depends linearly on C, e.g. a redundant free row). */
static void beside_C(dz_state *s, const driven *d, double *w) {
  s->st[d->i] = ST_Z;
  w[d->i] = d->wi;
  s->nN++;
}

/* The driven row's w_i is 0 to rounding (slv_dz_w_rounding) with x_i
 * inside its box: it is valid as it stands.  It joins C when its Schur
 * complement is a pivot, else stays beside C.  Without this test a driven
 * row whose w_i is only rounding, on a singular direction (sc = 0), moved
 * x back and forth between two bounds with no gain, to the pivot limit (a
 * 2-cycle on the reduced humanoid's step problems, 466,033 pivots for 24
 * rows). */
static void settle_at_zero(dz_state *s, const driven *d, double *w) {
  if (d->sc > slv_dz_pivot_zero(s, d->aii))
    join_C(s, d, w);
  else
    beside_C(s, d, w);
}

/* Drive the row at position k+nN until it is valid (joins C or N).
 * y = L^-1 A(C, i) is solved once and then kept current through the set
 * changes in O(k) each (appended slot: one dot product; removed slot:
 * y_after_remove), so a pivot costs one backward solve L^-T and the dw
 * product. */
slv_status slv_dz_drive(dz_state *s, double *x, double *w, slv_result *res) {
  driven d;
  if (drive_start(s, &d, x, w)) return SLV_CONVERGED;
  int i = d.i;
  for (;;) {
    slv_status stop = slv_should_stop(s->op, (double)s->n * (s->k + 1)); /* about a pivot's work */
    if (stop) return stop; /* a failed pass: the better of its x and the best before */
    if (s->pivots - s->pass_pivots0 >= s->limit) return max_pivots(s, res, i);
    if (!s->has_M && !s->packed && s->pivots - s->pass_pivots0 >= DZ_M_AFTER) slv_dz_build_M(s);
    s->pivots++;
    unit_step(s, &d, x);
    if (fabs(d.wi) <= slv_dz_w_rounding(s, i, x)) {
      settle_at_zero(s, &d, w);
      return SLV_CONVERGED;
    }
    double t;
    int which = -1, kind = ratio_test(s, &d, x, w, &t, &which);
    if (kind == BLK_NONE) /* nothing blocks and w_i is not 0 (settle_at_zero): a ray */
      return breakdown(s, res, i, d.sc, slv_dz_pivot_zero(s, d.aii));
    take_step(s, &d, t, x, w);
    if (kind == BLK_I_C) {
      join_C(s, &d, w);
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
