/* sensitivity.c -- derivatives of an answer of a boxed / findex LCP with
 * respect to the problem's data (slv.h, "sensitivities"; docs/gradients.md).
 *
 * At an answer x of  w = A x + b,  x = mid(lo, hi, x - w)  each row is read
 * as free (w_i = 0) or held at a bound (x_i = lo_i or hi_i; a findex row's
 * bound is sigma mu_i |x_j|, sigma = -1 at its lower, +1 at its upper).
 * Differentiating those equations with the split held fixed:
 *
 *   held rows B:  dx_B = e_B + C dx_F,   e_B the bounds' own derivative
 *                 (dlo, dhi; sigma (dmu_i |x_j| + mu_i sgn(x_j) dx_j) with
 *                 dx_j known when the normal j is held), C_ij = sigma mu_i
 *                 sgn(x_j) where the normal j of a held findex row i is free;
 *   free rows F:  (A dx + dA x + db)_F = 0, i.e.
 *                 (A_FF + A_FB C) dx_F = -(dA x + db + A e)_F.
 *
 * M = A_FF + A_FB C is factored once, at creation, by the linear-system
 * layer (LU: C makes it unsymmetric); the forward product (JVP) solves with
 * M, the reverse one (VJP) with M^T, both from that factor, allocating
 * nothing.  The reverse product: lambda = M^-T (gx_F + C^T gx_B), then
 * gA = -lambda x^T (F rows), gb = -lambda, and the cotangent of e_B,
 * u = gx_B - (A^T lambda)_B, carried back to dlo, dhi, dmu.
 */
#include "linsys.h"
#include "slv_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slv_sensitivity {
  const slv_problem *p; /* borrowed: read during jvp / vjp */
  int n, nf;
  slv_sensitivity_counts counts;
  /* A as read: dense (A, lda) or CSR (Ap, Aj, Ax; a factored A's own CSR) */
  const double *A;
  size_t lda;
  const int *Ap, *Aj;
  const double *Ax;
  int *own_p, *own_j;
  double *own_x;
  double *x;           /* the answer (copied) */
  unsigned char *mode; /* SLV_ROW_* per row */
  int *F;              /* the free rows, nf */
  int *pos;            /* row -> its index in F, or -1 */
  double *coup;        /* a held findex row whose normal is free: sigma mu_i sgn(x_j); else 0 */
  int *cone;           /* row -> its cone, or -1 */
  double *T;           /* per cone, 9: J S (row-major), the rows' weights of a sliding cone */
  double *IJ;          /* per cone, 9: I - J */
  double *mc;          /* per cone, 3: the coefficient of the cone's dmu */
  double *e, *r, *lam; /* n each: bound seeds, right-hand side, multipliers */
  double *rhs;         /* nf */
  int *Mp, *Mj;        /* M in CSR (a sparse A) */
  double *Mx;
  slv_linsys *ls; /* M's factor; NULL when nf = 0 */
};

static void say(char *msg, size_t len, const char *fmt, ...) {
  if (!msg || !len) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

static double sgn(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

/* Row i's bounds at x (a findex row's: -+mu_i |x_j|). */
static void bounds_at(const slv_problem *p, const double *x, int i, double *lo, double *hi) {
  int j = p->findex ? p->findex[i] : -1;
  if (j >= 0) {
    *hi = p->mu[i] * fabs(x[j]);
    *lo = -*hi;
  } else {
    *lo = slv_lo_of(p, i);
    *hi = slv_hi_of(p, i);
  }
}

/* The mode of one row from the judge's normalised pieces of its natural
 * map, mid(a, wh, c): c = (x - lo)/xs, a = (x - hi)/xs, wh = w/s_i.  A row
 * within tol of a bound with |wh| <= tol is degenerate, held at the nearer
 * bound (the one-sided choice of docs/gradients.md). */
static unsigned char mode_of(double c, double a, double wh, double tol) {
  int near = c <= tol || -a <= tol;
  if (near && fabs(wh) <= tol)
    return (unsigned char)((c <= -a ? SLV_ROW_LOWER : SLV_ROW_UPPER) | SLV_ROW_DEGENERATE);
  if (wh > c) return SLV_ROW_LOWER;
  if (wh < a) return SLV_ROW_UPPER;
  return SLV_ROW_FREE;
}

/* The judge's scale of cone k's w (rows i..i+2): ||b_c||_2 + ||w_c - b_c||_2
 * + its rows' largest reaction (docs/convergence.md). */
static double cone_scale(const slv_problem *p, int i, const double *w, const slv_xscale *sc) {
  double bb = 0, dd = 0, r = 0;
  for (int c = 0; c < 3; c++) {
    bb += p->b[i + c] * p->b[i + c];
    dd += (w[i + c] - p->b[i + c]) * (w[i + c] - p->b[i + c]);
    r = fmax(r, slv_reaction(p, i + c, sc));
  }
  return sqrt(bb) + sqrt(dd) + r;
}

/* w^_c's normal component: w_n + mu |w_t| for Coulomb's law, w_n else. */
static double w_hat_n(const slv_problem *p, int k, const double *wc) {
  double shift =
      p->cone_law == SLV_CONE_COULOMB ? slv_desaxce_shift_hypot(p->cone_mu[k], wc[1], wc[2]) : 0.0;
  return wc[0] + shift;
}

/* Cone k's mode from the branch of P_K at z' = x_c/xs - w^_c/s_c (the
 * judge's normalisation: the branch is the mode): sticking (FREE: its three
 * rows keep w = 0), separated (LOWER: held at the apex) or sliding; within
 * tol of a branch's edge degenerate, and held at the apex where x_c is. */
static unsigned char cone_mode(const slv_sensitivity *s, int k, int i, const double *w,
                               const slv_xscale *sc, double tol) {
  const slv_problem *p = s->p;
  double mu = p->cone_mu[k], sw = cone_scale(p, i, w, sc), q = sqrt(1 + mu * mu);
  double wh[3] = { w_hat_n(p, k, w + i), w[i + 1], w[i + 2] }, z[3], xmax = 0;
  for (int c = 0; c < 3; c++) {
    z[c] = slv_quot(s->x[i + c], sc->xs) - slv_quot(wh[c], sw);
    xmax = fmax(xmax, fabs(slv_quot(s->x[i + c], sc->xs)));
  }
  double n = z[0], st = hypot(z[1], z[2]), margin;
  unsigned char m;
  if (st <= mu * n) {
    m = SLV_ROW_FREE, margin = (mu * n - st) / q;
  } else if (mu * st <= -n) {
    m = SLV_ROW_LOWER, margin = (-n - mu * st) / q;
  } else {
    m = SLV_ROW_SLIDING, margin = fmin(st - mu * n, n + mu * st) / q;
  }
  if (margin > tol) return m;
  return (unsigned char)((xmax <= tol ? SLV_ROW_LOWER : m) | SLV_ROW_DEGENERATE);
}

/* A sliding cone k (rows i..i+2): J, the derivative of P_K at z = x_c -
 * w^_c; S, with dw^_c = S dw_c + e_n |w_t| dmu (S = I for the associated
 * law); T = J S, I - J and the dmu coefficient m = P_mu - J e_n |w_t|. */
static void cone_sliding(slv_sensitivity *s, int k, int i, const double *w) {
  const slv_problem *p = s->p;
  double mu = p->cone_mu[k], wt = hypot(w[i + 1], w[i + 2]);
  int coul = p->cone_law == SLV_CONE_COULOMB;
  double z[3] = { s->x[i] - w_hat_n(p, k, w + i), s->x[i + 1] - w[i + 1], s->x[i + 2] - w[i + 2] };
  double st = hypot(z[1], z[2]), th[2] = { z[1] / st, z[2] / st };
  double q = 1 + mu * mu, np = (z[0] + mu * st) / q, g = mu * np / st, J[9], S[9] = { 0 };
  J[0] = 1 / q;
  for (int r = 0; r < 2; r++) {
    J[1 + r] = J[3 * (r + 1)] = mu * th[r] / q;
    for (int c = 0; c < 2; c++)
      J[3 * (r + 1) + c + 1] = mu * mu * th[r] * th[c] / q + g * ((r == c) - th[r] * th[c]);
  }
  S[0] = S[4] = S[8] = 1;
  if (coul && wt > 0) S[1] = mu * w[i + 1] / wt, S[2] = mu * w[i + 2] / wt;
  double dn = (st - 2 * mu * np) / q,
         pmu[3] = { dn, (np + mu * dn) * th[0], (np + mu * dn) * th[1] };
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      double t = 0;
      for (int l = 0; l < 3; l++) t += J[3 * r + l] * S[3 * l + c];
      s->T[9 * k + 3 * r + c] = t;
      s->IJ[9 * k + 3 * r + c] = (r == c) - J[3 * r + c];
    }
    s->mc[3 * k + r] = pmu[r] - J[3 * r] * (coul ? wt : 0.0);
  }
}

/* A box or findex row's mode (mode_of at the judge's scales). */
static unsigned char box_mode(const slv_sensitivity *s, int i, const slv_xscale *sc, double tol) {
  const slv_problem *p = s->p;
  double lo, hi, w = s->r[i], xi = s->x[i];
  bounds_at(p, s->x, i, &lo, &hi);
  double si = fabs(p->b[i]) + fabs(w - p->b[i]) + slv_reaction(p, i, sc);
  return mode_of(slv_quot(xi - lo, sc->xs), slv_quot(xi - hi, sc->xs), slv_quot(w, si), tol);
}

/* Every row's mode at s->x, w = A x + b in s->r (scratch). */
static void modes_read(slv_sensitivity *s, double tol) {
  const slv_problem *p = s->p;
  slv_problem_w(p, s->x, s->r);
  slv_xscale sc = slv_xscale_of(p, s->x);
  memset(&s->counts, 0, sizeof s->counts);
  for (int i = 0; i < s->n; i++) s->cone[i] = -1;
  for (int k = 0; k < p->ncones; k++) {
    int i = p->cone_rows[k];
    unsigned char m = cone_mode(s, k, i, s->r, &sc, tol);
    if ((m & 3) == SLV_ROW_SLIDING) cone_sliding(s, k, i, s->r);
    for (int c = 0; c < 3; c++) s->cone[i + c] = k, s->mode[i + c] = m;
  }
  for (int i = 0; i < s->n; i++) {
    if (s->cone[i] < 0) s->mode[i] = box_mode(s, i, &sc, tol);
    unsigned char m = s->mode[i];
    s->counts.degenerate += (m & SLV_ROW_DEGENERATE) != 0;
    if ((m & 3) == SLV_ROW_FREE) s->counts.free++;
    if ((m & 3) == SLV_ROW_LOWER) s->counts.lower++;
    if ((m & 3) == SLV_ROW_UPPER) s->counts.upper++;
    if ((m & 3) == SLV_ROW_SLIDING) s->counts.sliding++;
  }
}


static double sigma_of(unsigned char m) { return (m & 3) == SLV_ROW_UPPER ? 1.0 : -1.0; }

static int findex_of(const slv_problem *p, int i) { return p->findex ? p->findex[i] : -1; }

/* F, pos and the coupling C (one entry per held findex row with a free normal). */
static void split_fill(slv_sensitivity *s) {
  const slv_problem *p = s->p;
  s->nf = 0;
  for (int i = 0; i < s->n; i++) {
    int m = s->mode[i] & 3;
    s->pos[i] = m == SLV_ROW_FREE || m == SLV_ROW_SLIDING ? s->nf : -1;
    if (s->pos[i] >= 0) s->F[s->nf++] = i;
  }
  for (int i = 0; i < s->n; i++) {
    int j = findex_of(p, i);
    s->coup[i] = 0.0;
    if (j >= 0 && s->pos[i] < 0 && s->pos[j] >= 0)
      s->coup[i] = sigma_of(s->mode[i]) * p->mu[i] * sgn(s->x[j]);
  }
}

/* Row a of M as weighted rows of A (src, wt; returns how many): a free
 * row is its own; row r of a sliding cone its cone's rows weighted by row
 * r of T = J S. */
static int row_sources(const slv_sensitivity *s, int a, int *src, double *wt) {
  int i = s->F[a], k = s->cone[i];
  if (k < 0 || (s->mode[i] & 3) != SLV_ROW_SLIDING) {
    src[0] = i, wt[0] = 1.0;
    return 1;
  }
  int i0 = s->p->cone_rows[k], r = i - i0;
  for (int c = 0; c < 3; c++) src[c] = i0 + c, wt[c] = s->T[9 * k + 3 * r + c];
  return 3;
}

/* Row a's entry of I - J at column c of its cone (a sliding cone's row). */
static double cone_diag(const slv_sensitivity *s, int a, int c) {
  int i = s->F[a], k = s->cone[i];
  return s->IJ[9 * k + 3 * (i - s->p->cone_rows[k]) + c];
}

/* Row a's entry of T A at column col of A (its weighted sources). */
static double ta_entry(const slv_sensitivity *s, int a, const double *col) {
  int src[3];
  double wt[3], v = 0;
  int ns = row_sources(s, a, src, wt);
  for (int q = 0; q < ns; q++) v += wt[q] * col[src[q]];
  return v;
}

static int sliding_row(const slv_sensitivity *s, int i) {
  return s->cone[i] >= 0 && (s->mode[i] & 3) == SLV_ROW_SLIDING;
}

/* M = T (A_UU + A_UB C) + (I - J) into the dense system's array (a dense
 * A), column by column of A (contiguous reads); a sliding cone's rows are
 * then weighted. */
static void m_dense_fill(const slv_sensitivity *s, double *M) {
  int nf = s->nf;
  for (int b = 0; b < nf; b++) {
    const double *col = s->A + (size_t)s->F[b] * s->lda;
    double *m = M + (size_t)b * nf;
    for (int a = 0; a < nf; a++)
      m[a] = sliding_row(s, s->F[a]) ? ta_entry(s, a, col) : col[s->F[a]];
  }
  for (int k = 0; k < s->n; k++) {
    if (s->coup[k] == 0.0) continue;
    const double *col = s->A + (size_t)k * s->lda;
    double *m = M + (size_t)s->pos[s->p->findex[k]] * nf;
    for (int a = 0; a < nf; a++) m[a] += ta_entry(s, a, col) * s->coup[k];
  }
  for (int a = 0; a < nf; a++) {
    if (!sliding_row(s, s->F[a])) continue;
    int i0 = s->p->cone_rows[s->cone[s->F[a]]];
    for (int c = 0; c < 3; c++) M[a + (size_t)s->pos[i0 + c] * nf] += cone_diag(s, a, c);
  }
}

/* The column of M an entry A_ik of a free row lands in, or -1. */
static int m_col(const slv_sensitivity *s, int k) {
  if (s->pos[k] >= 0) return s->pos[k];
  return s->coup[k] != 0.0 ? s->pos[s->p->findex[k]] : -1;
}

/* Row a of M into Mj, Mx from entry nnz on; returns the next entry. */
static int m_csr_row(slv_sensitivity *s, int a, int nnz) {
  int src[3];
  double wt[3];
  int ns = row_sources(s, a, src, wt);
  for (int q = 0; q < ns; q++)
    for (int k = s->Ap[src[q]]; k < s->Ap[src[q] + 1]; k++) {
      int c = m_col(s, s->Aj[k]);
      if (c < 0) continue;
      double f = s->pos[s->Aj[k]] >= 0 ? 1.0 : s->coup[s->Aj[k]];
      s->Mj[nnz] = c;
      s->Mx[nnz++] = s->Ax[k] * f * wt[q];
    }
  if (ns == 3) {
    int i0 = s->p->cone_rows[s->cone[s->F[a]]];
    for (int c = 0; c < 3; c++) {
      s->Mj[nnz] = s->pos[i0 + c];
      s->Mx[nnz++] = cone_diag(s, a, c);
    }
  }
  return nnz;
}

/* M = T (A_UU + A_UB C) + (I - J) in CSR (a CSR A; linsys adds duplicates). */
static int m_csr_alloc(slv_sensitivity *s) {
  int nf = s->nf, nnz = 0, src[3];
  double wt[3];
  for (int a = 0; a < nf; a++) {
    int ns = row_sources(s, a, src, wt);
    for (int q = 0; q < ns; q++)
      for (int k = s->Ap[src[q]]; k < s->Ap[src[q] + 1]; k++) nnz += m_col(s, s->Aj[k]) >= 0;
    nnz += ns == 3 ? 3 : 0;
  }
  s->Mp = malloc(((size_t)nf + 1) * sizeof *s->Mp);
  s->Mj = malloc(((size_t)nnz + 1) * sizeof *s->Mj);
  s->Mx = malloc(((size_t)nnz + 1) * sizeof *s->Mx);
  if (!s->Mp || !s->Mj || !s->Mx) return -1;
  nnz = 0;
  for (int a = 0; a < nf; a++) {
    s->Mp[a] = nnz;
    nnz = m_csr_row(s, a, nnz);
  }
  s->Mp[nf] = nnz;
  return 0;
}

/* 1 when the n x n column-major M equals its transpose bit for bit. */
static int symmetric(const double *M, int n) {
  for (int b = 0; b < n; b++)
    for (int a = b + 1; a < n; a++)
      if (M[a + (size_t)b * n] != M[b + (size_t)a * n]) return 0;
  return 1;
}

/* The dense M's factor: Cholesky where M is symmetric (the principal block
 * A_FF of a symmetric A: no findex coupling, no sliding cone), half an LU's
 * work; LU where it is not, or where the Cholesky finds M not positive
 * definite (M is formed again: the factor overwrote it). */
static slv_ls_status m_dense_factor(slv_sensitivity *s) {
  double *M = slv_linsys_dense_values(s->ls, s->nf);
  m_dense_fill(s, M);
  if (symmetric(M, s->nf)) {
    if (slv_linsys_factor_dense(s->ls, SLV_LS_SPD, 0.0) == SLV_LS_OK) return SLV_LS_OK;
    M = slv_linsys_dense_values(s->ls, s->nf);
    m_dense_fill(s, M);
  }
  return slv_linsys_factor_dense(s->ls, SLV_LS_GENERAL, 0.0);
}

/* M's factor: SLV_OK, else SLV_ERR_NOMEM or SLV_SINGULAR_PIVOT with msg. */
static slv_status m_factor_new(slv_sensitivity *s, char *msg, size_t len) {
  slv_ls_status st = SLV_LS_OK;
  if (s->nf == 0) return SLV_OK;
  if (s->A) {
    st = slv_linsys_dense_reserve(&s->ls, s->nf);
    if (st == SLV_LS_OK) st = m_dense_factor(s);
  } else if (m_csr_alloc(s) != 0) {
    st = SLV_LS_NOMEM;
  } else {
    s->ls = slv_linsys_analyse(SLV_LS_GENERAL, SLV_LS_AUTO, s->nf, s->Mp, s->Mj, &st);
    if (s->ls) st = slv_linsys_factor(s->ls, s->Mx);
  }
  if (st == SLV_LS_OK) return SLV_OK;
  if (st == SLV_LS_NOMEM) {
    say(msg, len, "out of memory for the free block (%d rows)", s->nf);
    return SLV_ERR_NOMEM;
  } else {
    int c = s->ls ? slv_linsys_failed_column(s->ls) : -1;
    say(msg, len,
        "the free block A_FF (%d rows) is singular (near row %d): the answer's derivative is "
        "not unique",
        s->nf, c >= 0 && c < s->nf ? s->F[c] : -1);
  }
  return SLV_SINGULAR_PIVOT;
}

/* The checks of slv_sensitivity_new's arguments. */
static slv_status args_check(const slv_problem *p, const double *x, double tol, char *msg,
                             size_t len) {
  if (!p) return say(msg, len, "p: NULL"), SLV_ERR_INVALID;
  slv_status st = slv_problem_validate(p, msg, len);
  if (st != SLV_OK) return st;
  if (!x && p->n > 0) return say(msg, len, "x: NULL"), SLV_ERR_INVALID;
  for (int i = 0; i < p->n; i++)
    if (!isfinite(x[i])) return say(msg, len, "x[%d]=%g is not finite", i, x[i]), SLV_ERR_INVALID;
  if (!(tol >= 0) || !isfinite(tol))
    return say(msg, len, "tol=%g: must be finite and >= 0", tol), SLV_ERR_INVALID;
  return SLV_OK;
}

/* The arrays of s for n rows in one block (s->x heads it: doubles, then
 * ints, then bytes), and a factored A's CSR. */
static slv_status arrays_alloc(slv_sensitivity *s, char *msg, size_t len) {
  size_t n = (size_t)s->n + 1, nc = (size_t)s->p->ncones + 1;
  size_t nd = 6 * n + 21 * nc, ni = 3 * n;
  double *d = malloc(nd * sizeof(double) + ni * sizeof(int) + n);
  if (!d) return say(msg, len, "out of memory for %d rows", s->n), SLV_ERR_NOMEM;
  s->x = d, s->coup = d + n, s->e = d + 2 * n, s->r = d + 3 * n, s->lam = d + 4 * n;
  s->rhs = d + 5 * n, s->T = d + 6 * n, s->IJ = s->T + 9 * nc, s->mc = s->IJ + 9 * nc;
  int *iv = (int *)(d + nd);
  s->F = iv, s->pos = iv + n, s->cone = iv + 2 * n;
  s->mode = (unsigned char *)(iv + ni);
  const slv_problem *p = s->p;
  if (p->storage == SLV_DENSE) {
    s->A = p->A;
    s->lda = (size_t)p->lda;
  } else if (p->storage == SLV_CSR) {
    s->Ap = p->Ap, s->Aj = p->Aj, s->Ax = p->Ax;
  } else {
    slv_status st = slv_factored_csr_new(p, &s->own_p, &s->own_j, &s->own_x, msg, len);
    if (st != SLV_OK) return st;
    s->Ap = s->own_p, s->Aj = s->own_j, s->Ax = s->own_x;
  }
  return SLV_OK;
}

slv_status slv_sensitivity_new(const slv_problem *p, const double *x, double tol,
                               slv_sensitivity **out, char *msg, size_t msglen) {
  if (!out) return say(msg, msglen, "out: NULL"), SLV_ERR_INVALID;
  *out = NULL;
  slv_status st = args_check(p, x, tol, msg, msglen);
  if (st != SLV_OK) return st;
  slv_sensitivity *s = calloc(1, sizeof *s);
  if (!s) return say(msg, msglen, "out of memory"), SLV_ERR_NOMEM;
  s->p = p;
  s->n = p->n;
  st = arrays_alloc(s, msg, msglen);
  if (st == SLV_OK) {
    if (s->n > 0) memcpy(s->x, x, (size_t)s->n * sizeof *x);
    modes_read(s, tol);
    split_fill(s);
    st = m_factor_new(s, msg, msglen);
  }
  if (st != SLV_OK) {
    slv_sensitivity_free(s);
    return st;
  }
  *out = s;
  return SLV_OK;
}

void slv_sensitivity_free(slv_sensitivity *s) {
  if (!s) return;
  slv_linsys_free(s->ls);
  free(s->own_p), free(s->own_j), free(s->own_x);
  free(s->x); /* the block of arrays_alloc */
  free(s->Mp), free(s->Mj), free(s->Mx);
  free(s);
}

const unsigned char *slv_sensitivity_modes(const slv_sensitivity *s) { return s ? s->mode : NULL; }

slv_sensitivity_counts slv_sensitivity_count(const slv_sensitivity *s) {
  slv_sensitivity_counts z = { 0, 0, 0, 0, 0 };
  return s ? s->counts : z;
}

/* The largest |entry| of the free block: A_FF's of a dense A (M was
 * factored in place), M's own CSR values else. */
static double block_scale(const slv_sensitivity *s) {
  double m = 0.0;
  if (!s->A) {
    for (int k = 0; k < s->Mp[s->nf]; k++) m = fabs(s->Mx[k]) > m ? fabs(s->Mx[k]) : m;
    return m;
  }
  for (int b = 0; b < s->nf; b++) {
    const double *col = s->A + (size_t)s->F[b] * s->lda;
    for (int a = 0; a < s->nf; a++) m = fabs(col[s->F[a]]) > m ? fabs(col[s->F[a]]) : m;
  }
  return m;
}

double slv_sensitivity_pivot_ratio(const slv_sensitivity *s, int *row) {
  if (row) *row = -1;
  if (!s || s->nf == 0) return NAN;
  int at = -1;
  double pm = slv_linsys_pivot_min(s->ls, &at), scale = block_scale(s);
  if (row && at >= 0 && at < s->nf) *row = s->F[at];
  return scale > 0 ? pm / scale : NAN;
}

int slv_sensitivity_pattern(const slv_sensitivity *s, const int **Ap, const int **Aj) {
  if (!s || s->A) return -1;
  if (Ap) *Ap = s->Ap;
  if (Aj) *Aj = s->Aj;
  return s->Ap[s->n];
}

/* ---- products with A and with a seed dA on A's layout ------------------- */

/* y = A v (dense: ld lda; CSR). */
static void a_mul(const slv_sensitivity *s, const double *v, double *y) {
  for (int i = 0; i < s->n; i++) {
    double t = 0;
    if (s->A) {
      for (int j = 0; j < s->n; j++) t += s->A[i + j * s->lda] * v[j];
    } else {
      for (int k = s->Ap[i]; k < s->Ap[i + 1]; k++) t += s->Ax[k] * v[s->Aj[k]];
    }
    y[i] = t;
  }
}

/* The entries of a seed on A's layout: n^2 (dense, ld n) or A's nnz. */
static size_t da_len(const slv_sensitivity *s) {
  return s->A ? (size_t)s->n * (size_t)s->n : (size_t)s->Ap[s->n];
}

/* y += dA x. */
static void da_mul_add(const slv_sensitivity *s, const double *dA, double *y) {
  for (int i = 0; i < s->n; i++) {
    double t = 0;
    if (s->A) {
      for (int j = 0; j < s->n; j++) t += dA[i + (size_t)j * s->n] * s->x[j];
    } else {
      for (int k = s->Ap[i]; k < s->Ap[i + 1]; k++) t += dA[k] * s->x[s->Aj[k]];
    }
    y[i] += t;
  }
}

/* ---- forward (JVP) ------------------------------------------------------- */

static int vec_bad(const double *v, size_t len, const char *name, char *msg, size_t msglen) {
  for (size_t k = 0; v && k < len; k++)
    if (!isfinite(v[k])) {
      say(msg, msglen, "%s[%zu]=%g is not finite", name, k, v[k]);
      return 1;
    }
  return 0;
}

static slv_status seeds_check(const slv_sensitivity *s, int n, const double *const *v,
                              const char *const *names, int count, char *msg, size_t msglen) {
  if (n != s->n) return say(msg, msglen, "n=%d: the problem has %d rows", n, s->n), SLV_ERR_DIM;
  for (int k = 0; k < count; k++)
    if (vec_bad(v[k], k == 0 ? da_len(s) : (size_t)n, names[k], msg, msglen))
      return SLV_ERR_INVALID;
  return SLV_OK;
}

/* e_B: the held rows' bound derivatives without the coupling to free
 * normals (plain rows first: a findex row's held normal is one of them). */
static void bound_seeds(slv_sensitivity *s, const double *dlo, const double *dhi,
                        const double *dmu) {
  const slv_problem *p = s->p;
  for (int i = 0; i < s->n; i++) {
    unsigned char m = s->mode[i] & 3;
    double d = m == SLV_ROW_LOWER ? (dlo ? dlo[i] : 0) : (dhi ? dhi[i] : 0);
    s->e[i] = m == SLV_ROW_FREE || findex_of(p, i) >= 0 || s->cone[i] >= 0 ? 0.0 : d;
  }
  for (int i = 0; i < s->n; i++) {
    int j = findex_of(p, i);
    if (j < 0 || (s->mode[i] & 3) == SLV_ROW_FREE) continue;
    double de = (dmu ? dmu[i] : 0) * fabs(s->x[j]) + p->mu[i] * sgn(s->x[j]) * s->e[j];
    s->e[i] = sigma_of(s->mode[i]) * de;
  }
}

/* Row a of the right-hand side: -(T q)_a, plus a sliding cone's m_r dmu
 * (its dmu at its normal row). */
static double rhs_row(const slv_sensitivity *s, int a, const double *q, const double *dmu) {
  int src[3];
  double wt[3], v = 0;
  int ns = row_sources(s, a, src, wt);
  for (int c = 0; c < ns; c++) v -= wt[c] * q[src[c]];
  if (ns == 3 && dmu) {
    int k = s->cone[s->F[a]], i0 = s->p->cone_rows[k];
    v += s->mc[3 * k + s->F[a] - i0] * dmu[i0];
  }
  return v;
}

slv_status slv_sensitivity_jvp(slv_sensitivity *s, int n, const double *dA, const double *db,
                               const double *dlo, const double *dhi, const double *dmu, double *dx,
                               char *msg, size_t msglen) {
  if (!s || !dx) return say(msg, msglen, "%s: NULL", s ? "dx" : "s"), SLV_ERR_INVALID;
  const double *v[5] = { dA, db, dlo, dhi, dmu };
  const char *names[5] = { "dA", "db", "dlo", "dhi", "dmu" };
  slv_status st = seeds_check(s, n, v, names, 5, msg, msglen);
  if (st != SLV_OK) return st;
  bound_seeds(s, dlo, dhi, dmu);
  a_mul(s, s->e, s->r);
  for (int i = 0; i < n; i++) s->r[i] += db ? db[i] : 0.0;
  if (dA) da_mul_add(s, dA, s->r);
  for (int a = 0; a < s->nf; a++) s->rhs[a] = rhs_row(s, a, s->r, dmu);
  if (s->nf > 0 && slv_linsys_solve(s->ls, s->rhs) != SLV_LS_OK)
    return say(msg, msglen, "the free block's solve failed"), SLV_SINGULAR_PIVOT;
  for (int i = 0; i < n; i++) {
    if (s->pos[i] >= 0) {
      dx[i] = s->rhs[s->pos[i]];
    } else {
      dx[i] = s->e[i];
      if (s->coup[i] != 0.0) dx[i] += s->coup[i] * s->rhs[s->pos[s->p->findex[i]]];
    }
  }
  return SLV_OK;
}

/* ---- reverse (VJP) ------------------------------------------------------- */

/* lambda (n, 0 on held rows) = M^-T (gx_F + C^T gx_B) scattered. */
static int multipliers(slv_sensitivity *s, const double *gx) {
  for (int a = 0; a < s->nf; a++) s->rhs[a] = gx[s->F[a]];
  for (int k = 0; k < s->n; k++)
    if (s->coup[k] != 0.0) s->rhs[s->pos[s->p->findex[k]]] += s->coup[k] * gx[k];
  if (s->nf > 0 && slv_linsys_solve_transposed(s->ls, s->rhs) != SLV_LS_OK) return -1;
  for (int i = 0; i < s->n; i++) s->lam[i] = 0.0;
  for (int a = 0; a < s->nf; a++) {
    int src[3];
    double wt[3];
    int ns = row_sources(s, a, src, wt);
    for (int c = 0; c < ns; c++) s->lam[src[c]] += wt[c] * s->rhs[a];
  }
  return 0;
}

/* A sliding cone's gradient on its mu (at its normal row): sum_r m_r lambda_r. */
static void grad_cone_mu(const slv_sensitivity *s, double *gmu) {
  for (int a = 0; gmu && a < s->nf; a++) {
    int i = s->F[a], k = s->cone[i];
    if (k < 0 || (s->mode[i] & 3) != SLV_ROW_SLIDING) continue;
    int i0 = s->p->cone_rows[k];
    gmu[i0] += s->mc[3 * k + i - i0] * s->rhs[a];
  }
}

/* gA = -lambda x^T on A's layout (dense ld n, or A's pattern). */
static void grad_a(const slv_sensitivity *s, double *gA) {
  for (int i = 0; i < s->n; i++) {
    if (s->A) {
      for (int j = 0; j < s->n; j++) gA[i + (size_t)j * s->n] = -s->lam[i] * s->x[j];
    } else {
      for (int k = s->Ap[i]; k < s->Ap[i + 1]; k++) gA[k] = -s->lam[i] * s->x[s->Aj[k]];
    }
  }
}

/* (A^T lambda)_j for a held row j (lambda lives on the free rows F): a
 * column of a dense A read contiguously over F, a CSR A's rows of F. */
static void held_at_lambda(const slv_sensitivity *s, double *y) {
  for (int j = 0; j < s->n; j++) y[j] = 0.0;
  if (s->A) {
    for (int j = 0; j < s->n; j++) {
      if (s->pos[j] >= 0) continue;
      const double *col = s->A + (size_t)j * s->lda;
      double t = 0;
      for (int a = 0; a < s->nf; a++) t += col[s->F[a]] * s->lam[s->F[a]];
      y[j] = t;
    }
    return;
  }
  for (int a = 0; a < s->nf; a++) {
    int i = s->F[a];
    for (int k = s->Ap[i]; k < s->Ap[i + 1]; k++)
      if (s->pos[s->Aj[k]] < 0) y[s->Aj[k]] += s->Ax[k] * s->lam[i];
  }
}

/* u = gx - A^T lambda on held rows (in s->r) carried back to lo, hi, mu;
 * nothing to do when none of them is asked for. */
static void grad_bounds(slv_sensitivity *s, const double *gx, double *glo, double *ghi,
                        double *gmu) {
  const slv_problem *p = s->p;
  if (!glo && !ghi && !gmu) return;
  held_at_lambda(s, s->r);
  for (int i = 0; i < s->n; i++) s->r[i] = s->pos[i] >= 0 ? 0.0 : gx[i] - s->r[i];
  for (int i = 0; i < s->n; i++) {
    if (glo) glo[i] = 0.0;
    if (ghi) ghi[i] = 0.0;
    if (gmu) gmu[i] = 0.0;
  }
  for (int i = 0; i < s->n; i++) {
    int j = findex_of(p, i);
    if (j < 0 || s->pos[i] >= 0) continue;
    double sg = sigma_of(s->mode[i]);
    if (gmu) gmu[i] = s->r[i] * sg * fabs(s->x[j]);
    if (s->pos[j] < 0) s->r[j] += s->r[i] * sg * p->mu[i] * sgn(s->x[j]);
  }
  for (int i = 0; i < s->n; i++) {
    if (findex_of(p, i) >= 0 || s->pos[i] >= 0 || s->cone[i] >= 0) continue;
    double *g = (s->mode[i] & 3) == SLV_ROW_LOWER ? glo : ghi;
    if (g) g[i] = s->r[i];
  }
}

slv_status slv_sensitivity_vjp(slv_sensitivity *s, int n, const double *gx, double *gA, double *gb,
                               double *glo, double *ghi, double *gmu, char *msg, size_t msglen) {
  if (!s || !gx) return say(msg, msglen, "%s: NULL", s ? "gx" : "s"), SLV_ERR_INVALID;
  const double *v[2] = { NULL, gx };
  const char *names[2] = { "dA", "gx" };
  slv_status st = seeds_check(s, n, v, names, 2, msg, msglen);
  if (st != SLV_OK) return st;
  if (multipliers(s, gx) != 0)
    return say(msg, msglen, "the free block's solve failed"), SLV_SINGULAR_PIVOT;
  if (gA) grad_a(s, gA);
  for (int i = 0; gb && i < n; i++) gb[i] = -s->lam[i];
  grad_bounds(s, gx, glo, ghi, gmu);
  grad_cone_mu(s, gmu);
  return SLV_OK;
}
