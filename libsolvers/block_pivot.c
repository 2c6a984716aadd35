/* block_pivot.c -- a first active set for the pivoting solvers by block
 * principal pivoting (block_pivot.h; docs/solvers.md, "A first active
 * set").  [cottle1992 sec. 4.2] for principal pivoting; the rounds flip
 * every broken row at once instead of one.
 *
 * The cost of a round is one factorization of A_CC (|C|^3 / 3 flops for
 * a Cholesky, at LAPACK's blocked speed), the gather of A_CC, two
 * triangular solves and w += A(:, C) dx_C (the columns of C, or their
 * packed nonzeros): the rounds replace the one-row pivots of the exact
 * methods, each of which costs O(|C|^2 + n |C|) at matrix-vector speed.
 */
#include "block_pivot.h"

#include <cblas.h>
#include <float.h>
#include <string.h>

/* Broken rows: a violation above this times the row's rounding scale
 * (below) is one; smaller ones are left to the exact method. */
#define SLV_BPP_TINY 1e-13

/* The row scale s_r = sqrt(A_rr) (1 where A_rr <= 0): x_r s_r and
 * w_r / s_r are the units of the equilibrated problem D A D. */
static double row_scale(const slv_bpp *q, int r) {
  double a = q->A[r + (size_t)r * q->lda];
  return a > 0 ? sqrt(a) : 1.0;
}

/* A new pivot of row r with j rows before it counts as zero below this. */
static double zero_of(const slv_bpp *q, int r, int j) {
  double c = 16.0 * (j + 1) * DBL_EPSILON, a = q->A[r + (size_t)r * q->lda];
  if (!(a > 0)) return q->zero_abs;
  return (c > q->prel ? c : q->prel) * a;
}

/* F = A(set, set) for set[0..m): the lower triangle for a Cholesky, the
 * whole block for an LU. */
static void gather(const slv_bpp *q, int m) {
  for (int c = 0; c < m; c++) {
    const double *a = q->A + (size_t)q->set[c] * q->lda;
    double *f = q->F + (size_t)c * q->ldf;
    for (int r = q->general ? 0 : c; r < m; r++) f[r] = a[q->set[r]];
  }
}

/* The Cholesky factor of A(set, set), cut before the first zero pivot
 * (the rows from there leave C; in[] follows).  Returns the new m. */
static int factor_spd(const slv_bpp *q, int m) {
  while (m > 0) {
    gather(q, m);
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', m, q->F, q->ldf);
    int good = info == 0 ? m : (int)info - 1;
    for (int j = 0; j < good; j++) {
      double l = q->F[j + (size_t)j * q->ldf];
      if (!(l * l > zero_of(q, q->set[j], j))) {
        good = j;
        break;
      }
    }
    if (good == m) return m;
    for (int j = good; j < m; j++) q->in[q->set[j]] = 0;
    m = good; /* the leading block is positive definite: factor it alone */
  }
  return 0;
}

/* The LU factor of A(set, set); 0 if it is singular (a pivot |U_jj| at
 * most prel max|A(set, set)|), else 1. */
static int factor_lu(const slv_bpp *q, int m) {
  if (m == 0) return 1;
  gather(q, m);
  double amax = 0;
  for (int c = 0; c < m; c++)
    for (int r = 0; r < m; r++) amax = fmax(amax, fabs(q->F[r + (size_t)c * q->ldf]));
  if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, m, q->F, q->ldf, q->ipiv) != 0) return 0;
  for (int j = 0; j < m; j++)
    if (!(fabs(q->F[j + (size_t)j * q->ldf]) > q->prel * amax)) return 0;
  return 1;
}

void slv_bpp_add_column(const slv_op *op, int j, double alpha, double *w) {
  if (op->packed == SLV_OP_COLS) {
    for (int e = op->colptr[j]; e < op->colptr[j + 1]; e++) w[op->rowind[e]] += alpha * op->val[e];
    return;
  }
  cblas_daxpy(op->n, alpha, op->A + (size_t)j * op->lda, 1, w, 1);
}

/* dx_C = -A_CC^-1 w_C with the factor; x_C += dx_C, w += A(:, C) dx_C. */
static void solve_step(const slv_bpp *q, int m, double *x, double *w) {
  double *dx = q->dx;
  for (int c = 0; c < m; c++) dx[c] = -w[q->set[c]];
  if (m == 0) return;
  if (q->general)
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', m, 1, q->F, q->ldf, q->ipiv, dx, m);
  else
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', m, 1, q->F, q->ldf, dx, m);
  for (int c = 0; c < m; c++) {
    int r = q->set[c];
    x[r] += dx[c];
    if (dx[c] != 0.0) slv_bpp_add_column(q->op, r, dx[c], w);
  }
  for (int c = 0; c < m; c++) w[q->set[c]] = 0; /* exactly, as the exact methods hold it */
}

/* X = sum_r s_r |x_r|: the scale of w's rounding, s_r |X| per row, in the
 * units of the equilibrated problem. */
static double x_scale(const slv_bpp *q, const double *x) {
  double X = 0;
  for (int r = 0; r < q->n; r++) X += row_scale(q, r) * fabs(x[r]);
  return X;
}

/* Whether row r breaks its conditions (tolerances: SLV_BPP_TINY times the
 * rounding scale of x_r and w_r). */
static int broken(const slv_bpp *q, int r, const double *x, const double *w, double X) {
  double lo = q->lo[r], hi = q->hi[r], s = row_scale(q, r);
  if (q->in[r]) {
    double tx = SLV_BPP_TINY * X / s;
    return x[r] < lo - tx || x[r] > hi + tx;
  }
  if (lo == hi) return 0;
  double tw = SLV_BPP_TINY * (fabs(q->b[r]) + s * X);
  if (x[r] <= lo) return w[r] < -tw;
  if (x[r] >= hi) return w[r] > tw;
  return fabs(w[r]) > tw;
}

/* The broken rows into flips[]; their number. */
static int find_broken(const slv_bpp *q, const double *x, const double *w) {
  double X = x_scale(q, x);
  int nb = 0;
  for (int r = 0; r < q->n; r++)
    if (broken(q, r, x, w, X)) q->flips[nb++] = r;
  return nb;
}

/* Flip the nb broken rows: a clamped one to its nearer bound (w follows),
 * the others into C.  Returns the new m. */
static int flip(const slv_bpp *q, int m, int nb, double *x, double *w) {
  for (int f = 0; f < nb; f++) {
    int r = q->flips[f];
    if (q->in[r]) {
      double to = x[r] < q->lo[r] ? q->lo[r] : q->hi[r];
      slv_bpp_add_column(q->op, r, to - x[r], w);
      x[r] = to;
      q->in[r] = 0;
    } else {
      q->in[r] = 2; /* joins below, after the rows that stay */
    }
  }
  int k = 0;
  for (int c = 0; c < m; c++)
    if (q->in[q->set[c]]) q->set[k++] = q->set[c];
  for (int f = 0; f < nb; f++) {
    int r = q->flips[f];
    if (q->in[r] == 2) {
      q->in[r] = 1;
      q->set[k++] = r;
    }
  }
  return k;
}

slv_status slv_bpp_run(const slv_bpp *q, double *x, double *w, int m, slv_bpp_result *r) {
  int least = INT_MAX, since = 0;
  memset(q->in, 0, (size_t)q->n * sizeof *q->in);
  for (int c = 0; c < m; c++) q->in[q->set[c]] = 1;
  memset(r, 0, sizeof *r);
  for (;;) {
    double mm = (double)m;
    slv_status stop = slv_should_stop(q->op, mm * mm * mm / 3 + (double)q->n * mm);
    if (stop) return stop;
    r->rounds++;
    if (q->general) {
      if (!factor_lu(q, m)) {
        r->m = m;
        r->singular = 1;
        return SLV_CONVERGED;
      }
    } else {
      m = factor_spd(q, m);
    }
    solve_step(q, m, x, w);
    int nb = find_broken(q, x, w);
    r->m = m;
    r->broken = nb;
    if (nb < least) {
      least = nb;
      since = 0;
    } else {
      since++;
    }
    if (nb <= q->handoff || since >= SLV_BPP_PATIENCE || r->rounds >= SLV_BPP_ROUNDS)
      return SLV_CONVERGED;
    m = flip(q, m, nb, x, w);
  }
}
