/* ipm_newton.c -- the interior point's Newton matrix and its step (ipm.h;
 * docs/cone-solvers.md, "Interior point"): the second-order cone's
 * algebra and the Nesterov-Todd scaling [nesterov1997; the formulas of
 * the CVXOPT cone QP solver, vandenberghe2010], the Newton matrix
 *     A + blockdiag(D W^2 D) + diag(z1/s1 + z2/s2)
 * (its pattern and analysis once per solve, its values and factorization
 * once per iteration: CHOLMOD [chen2008], or UMFPACK's LU [davis2004] for
 * a nonsymmetric A), the directions and one Mehrotra predictor-corrector
 * step [mehrotra1992].  ipm.c's header has the method; this file
 * allocates only in slv_ipm_pattern_reserve, once per solve, outside the
 * iterations.  Statuses of slv_ipm_iterate: SLV_BREAKDOWN (the matrix is
 * not positive definite, or singular, after IPM_REG_TRIES
 * regularizations), SLV_ERR_NOMEM, SLV_NOT_FINITE.
 */
#include "ipm.h"

#include <stdlib.h>
#include <string.h>

/* ---- the second-order cone L = { z0 >= |(z1, z2)| } ------------------------------ */

static inline double jdot(const double *a, const double *b) {
  return a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* z'Jz = (z0 - |z_t|)(z0 + |z_t|): no cancellation near the boundary. */
static inline double jnorm2(const double *z) {
  double t = hypot(z[1], z[2]);
  return (z[0] - t) * (z[0] + t);
}

/* The Jordan product u o v = (u.v, u0 v_1 + v0 u_1). */
static inline void jprod(const double *u, const double *v, double *out) {
  double o0 = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  double o1 = u[0] * v[1] + v[0] * u[1], o2 = u[0] * v[2] + v[0] * u[2];
  out[0] = o0, out[1] = o1, out[2] = o2;
}

/* d with l o d = c (l in the interior of L). */
static inline void jdiv(const double *l, const double *c, double *d) {
  double det = l[0] * l[0] - l[1] * l[1] - l[2] * l[2];
  double d0 = (l[0] * c[0] - l[1] * c[1] - l[2] * c[2]) / det;
  d[0] = d0;
  d[1] = (c[1] - d0 * l[1]) / l[0];
  d[2] = (c[2] - d0 * l[2]) / l[0];
}

/* Largest t with z + t d in L, for z in the interior (+inf: no limit): the
 * first positive root of (z + t d)'J(z + t d) = 0. */
static double soc_step(const double *z, const double *d) {
  double a = jdot(d, d), b = 2 * jdot(z, d), c = jnorm2(z);
  double t = INFINITY;
  if (fabs(a) <= 1e-300 * (fabs(b) + fabs(c))) {
    if (b < 0) t = -c / b;
  } else {
    double disc = b * b - 4 * a * c;
    if (disc >= 0) {
      double sq = sqrt(disc), qq = -0.5 * (b + (b >= 0 ? sq : -sq));
      double r1 = qq / a, r2 = qq != 0 ? c / qq : INFINITY;
      if (r1 > 0) t = fmin(t, r1);
      if (r2 > 0) t = fmin(t, r2);
    }
  }
  if (d[0] < 0) t = fmin(t, -z[0] / d[0]); /* never across the apex to -L */
  return t;
}

/* Nesterov-Todd scaling of (xh, wh), both in the interior of L: v (v'Jv = 1)
 * and beta with W = beta (2 v v' - J), W xh = W^-1 wh; lambda = W xh. */
static void nt_scaling(const double *xh, const double *wh, double *v, double *beta, double *lam) {
  double xj = sqrt(jnorm2(xh)), wj = sqrt(jnorm2(wh));
  double xb[3] = { xh[0] / xj, xh[1] / xj, xh[2] / xj };
  double wb[3] = { wh[0] / wj, wh[1] / wj, wh[2] / wj };
  double gam = sqrt(0.5 * (1 + xb[0] * wb[0] + xb[1] * wb[1] + xb[2] * wb[2]));
  double t[3] = { (xb[0] + wb[0]) / (2 * gam), (wb[1] - xb[1]) / (2 * gam),
                  (wb[2] - xb[2]) / (2 * gam) };
  double f = 1 / sqrt(2 * (t[0] + 1));
  v[0] = (t[0] + 1) * f, v[1] = t[1] * f, v[2] = t[2] * f;
  *beta = sqrt(wj / xj);
  double vx = v[0] * xh[0] + v[1] * xh[1] + v[2] * xh[2];
  lam[0] = *beta * (2 * v[0] * vx - xh[0]);
  lam[1] = *beta * (2 * v[1] * vx + xh[1]);
  lam[2] = *beta * (2 * v[2] * vx + xh[2]);
}

/* out = W z (inv = 0) or W^-1 z (inv = 1). */
static inline void w_apply(const double *v, double beta, const double *z, double *out, int inv) {
  if (!inv) {
    double vz = v[0] * z[0] + v[1] * z[1] + v[2] * z[2];
    out[0] = beta * (2 * v[0] * vz - z[0]);
    out[1] = beta * (2 * v[1] * vz + z[1]);
    out[2] = beta * (2 * v[2] * vz + z[2]);
  } else {
    double jv[3] = { v[0], -v[1], -v[2] };
    double jz = jv[0] * z[0] + jv[1] * z[1] + jv[2] * z[2];
    out[0] = (2 * jv[0] * jz - z[0]) / beta;
    out[1] = (2 * jv[1] * jz + z[1]) / beta;
    out[2] = (2 * jv[2] * jz + z[2]) / beta;
  }
}

/* ---- the Newton matrix ---------------------------------------------------------- */

/* The row kinds of this problem and each cone's index. */
void slv_ipm_classify_rows(ipm_state *s) {
  const slv_cqp *q = &s->q;
  int n = q->p->n;
  s->ncone = 0;
  for (int i = 0; i < n; i++) s->cone_of[i] = -1;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      s->kind[i] = s->kind[i + 1] = s->kind[i + 2] = ROW_CONE;
      s->cone_of[i] = s->ncone++;
    } else if (q->lo[i] == q->hi[i]) {
      s->kind[i] = ROW_FIXED;
    } else if (q->lo[i] == -INFINITY && q->hi[i] == INFINITY) {
      s->kind[i] = ROW_FREE;
    } else {
      s->kind[i] = ROW_BOX;
    }
  }
}

/* Calls f(s, r, c, a, pos) for the stored entries of column c of A (with r
 * <= c for the Cholesky's upper triangle): from the packed copy (scalar
 * columns or 3x3 blocks), else from the dense array (its nonzeros) or, A
 * being symmetric, from CSR row c (a nonsymmetric CSR A too large to pack
 * is refused before: setup). */
typedef void (*entry_fn)(ipm_state *s, int r, int c, double a, size_t *pos);

static void column_entries(ipm_state *s, const slv_op *op, int c, entry_fn f, size_t *pos) {
  int last = s->lu ? op->n - 1 : c; /* the last row taken */
  if (op->packed == SLV_OP_COLS) {
    for (int k = op->colptr[c]; k < op->colptr[c + 1]; k++)
      if (op->rowind[k] <= last) f(s, op->rowind[k], c, op->val[k], pos);
  } else if (op->packed == SLV_OP_BLOCKS) {
    int C = c / 3, cc = c - 3 * C;
    for (int k = op->colptr[C]; k < op->colptr[C + 1]; k++) {
      int R = op->rowind[k];
      if (3 * R > last) continue;
      const double *B = op->val + 9 * (size_t)k + 3 * cc;
      for (int r = 0; r < 3 && 3 * R + r <= last; r++) f(s, 3 * R + r, c, B[r], pos);
    }
  } else if (op->A) {
    const double *a = op->A + (size_t)c * op->lda;
    for (int r = 0; r <= last; r++)
      if (a[r] != 0) f(s, r, c, a[r], pos);
  } else {
    for (int k = op->Ap[c]; k < op->Ap[c + 1]; k++)
      if (op->Aj[k] <= c) f(s, op->Aj[k], c, op->Ax[k], pos);
  }
}

static void count_entry(ipm_state *s, int r, int c, double a, size_t *pos) {
  (void)c, (void)a;
  if (s->stamp[r] != c) {
    s->stamp[r] = c;
    (*pos)++;
  }
}

static void put_entry(ipm_state *s, int r, int c, double a, size_t *pos) {
  if (s->stamp[r] == c) { /* a second entry of (r, c): sum (a CSR input may repeat) */
    for (size_t k = (size_t)s->Kp[c]; k < *pos; k++)
      if (s->Ki[k] == r) s->Ka[k] += a;
    return;
  }
  s->stamp[r] = c;
  s->Ki[*pos] = r;
  s->Ka[(*pos)++] = a;
}

/* The rows a column's diagonal block needs: a cone's rows (up to c for
 * the upper triangle), else c. */
static int block_first_row(const ipm_state *s, int c) {
  if (s->kind[c] != ROW_CONE) return c;
  return s->cone_of[c] >= 0 ? c : (s->cone_of[c - 1] >= 0 ? c - 1 : c - 2);
}
static int block_last_row(const ipm_state *s, int c) {
  return s->lu && s->kind[c] == ROW_CONE ? block_first_row(s, c) + 2 : c;
}

/* Sort column c's entries [p0, p1) by row (insertion: columns are short, and
 * the packed copy's are already sorted but for the added block entries). */
static void sort_column(ipm_state *s, size_t p0, size_t p1) {
  for (size_t k = p0 + 1; k < p1; k++) {
    int r = s->Ki[k];
    double a = s->Ka[k];
    size_t j = k;
    while (j > p0 && s->Ki[j - 1] > r) {
      s->Ki[j] = s->Ki[j - 1];
      s->Ka[j] = s->Ka[j - 1];
      j--;
    }
    s->Ki[j] = r;
    s->Ka[j] = a;
  }
}

/* The pattern of A's upper triangle plus the diagonal blocks, A's values in
 * Ka (a fixed row's off-diagonal entries 0 and its diagonal 1: dx_i = 0),
 * the block positions, CHOLMOD's analysis.  Once per solve.  0, or -1 (no
 * memory). */
int slv_ipm_pattern_reserve(ipm_state *s, const slv_op *op) {
  int n = op->n;
  size_t nz = 0;
  for (int i = 0; i < n; i++) s->stamp[i] = -1;
  for (int c = 0; c < n; c++) {
    column_entries(s, op, c, count_entry, &nz);
    for (int r = block_first_row(s, c); r <= block_last_row(s, c); r++)
      count_entry(s, r, c, 0, &nz);
  }
  if (nz > s->nz_cap) {
    free(s->Ki), free(s->Kx), free(s->Ka);
    s->Ki = malloc(nz * sizeof *s->Ki);
    s->Kx = malloc(nz * sizeof *s->Kx);
    s->Ka = malloc(nz * sizeof *s->Ka);
    s->nz_cap = s->Ki && s->Kx && s->Ka ? nz : 0;
    if (!s->nz_cap) return -1;
  }
  size_t pos = 0;
  double dmax = 0;
  for (int i = 0; i < n; i++) s->stamp[i] = -1;
  for (int k = 0; k < 9 * s->ncone; k++) s->bpos[k] = -1;
  for (int c = 0; c < n; c++) {
    s->Kp[c] = (int)pos;
    column_entries(s, op, c, put_entry, &pos);
    for (int r = block_first_row(s, c); r <= block_last_row(s, c); r++) put_entry(s, r, c, 0, &pos);
    sort_column(s, (size_t)s->Kp[c], pos);
  }
  s->Kp[n] = (int)pos;
  for (int c = 0; c < n; c++)
    for (int k = s->Kp[c]; k < s->Kp[c + 1]; k++) {
      int r = s->Ki[k];
      if (r == c) {
        s->dpos[c] = k;
        dmax = fmax(dmax, fabs(s->Ka[k]));
      }
      if (s->kind[r] == ROW_FIXED || s->kind[c] == ROW_FIXED) s->Ka[k] = r == c ? 1.0 : 0.0;
      int i0 = block_first_row(s, c);
      if (s->kind[c] == ROW_CONE && r >= i0 && r <= i0 + 2)
        s->bpos[9 * s->cone_of[i0] + 3 * (c - i0) + (r - i0)] = k;
    }
  s->adiag = dmax; /* ipm.c's set_units makes free_reg of it */
  memcpy(s->Kx, s->Ka, pos * sizeof *s->Kx);
  /* K by columns is K' by rows: its lower triangle (all a Cholesky reads),
   * or every entry for the LU, which then solves with the transpose.  The
   * sparse back ends at every size (the exception to linsys's rule,
   * docs/solver-machinery.md, "Linear systems": a dense factor moves the iterates) */
  slv_linsys_free(s->ls);
  slv_ls_status st;
  s->ls = s->lu ? slv_linsys_analyse_sorted(SLV_LS_GENERAL, SLV_LS_UMFPACK, n, s->Kp, s->Ki, &st)
                : slv_linsys_analyse_sorted(SLV_LS_SPD, SLV_LS_CHOLMOD, n, s->Kp, s->Ki, &st);
  return s->ls ? 0 : -1;
}

/* ---- one interior-point iteration ------------------------------------------------ */

/* The scaling of every cone (v, beta, lambda) and the Newton matrix's
 * values: A + blockdiag(D W^2 D) + diag(z1/s1 + z2/s2) (+ free_reg on
 * free rows), every diagonal entry then times 1 + reg.  W^2 is formed as
 * beta^2 (2 wb wb' - J) (wb the scaling point, v = (wb + e) / |..|), not
 * as the square of W: one rounding less where a pair nears the boundary
 * and W^2's eigenvalues spread by |wb|^4. */
static void assemble(ipm_state *s, double reg) {
  const slv_cqp *q = &s->q;
  int n = q->p->n;
  memcpy(s->Kx, s->Ka, (size_t)s->Kp[n] * sizeof *s->Kx);
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      double mu = q->blk_mu[k], xh[3], wh[3];
      slv_ipm_to_hat(mu, s->x + i, s->w + i, xh, wh);
      nt_scaling(xh, wh, s->v + i, s->beta + i, s->lam + i);
      /* wb = 2 v0 v - e (v = (wb + e) / sqrt(2 (wb0 + 1)), so 2 v0^2 = wb0 + 1) */
      const double *v = s->v + i;
      double b2 = s->beta[i] * s->beta[i],
             wb[3] = { 2 * v[0] * v[0] - 1, 2 * v[0] * v[1], 2 * v[0] * v[2] };
      double d[3] = { mu, 1, 1 };
      const int *bp = s->bpos + 9 * s->cone_of[i];
      for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
          if (bp[3 * c + r] < 0) continue; /* the lower triangle of a Cholesky */
          double j = r == c ? (r == 0 ? 1.0 : -1.0) : 0.0;
          s->Kx[bp[3 * c + r]] += d[r] * b2 * (2 * wb[r] * wb[c] - j) * d[c];
        }
    } else if (s->kind[i] == ROW_BOX) {
      double h = 0;
      if (q->lo[i] > -INFINITY) h += s->z1[i] / (s->x[i] - q->lo[i]);
      if (q->hi[i] < INFINITY) h += s->z2[i] / (q->hi[i] - s->x[i]);
      s->Kx[s->dpos[i]] += h;
    } else if (s->kind[i] == ROW_FREE) {
      s->Kx[s->dpos[i]] += s->free_reg;
    }
  }
  if (reg > 0)
    for (int i = 0; i < n; i++)
      if (s->kind[i] != ROW_FIXED) s->Kx[s->dpos[i]] *= 1 + reg;
}

/* Factor the Newton matrix; if CHOLMOD finds it not positive definite, or
 * UMFPACK singular (rounding: W^2 of a pair near its boundary, on a
 * singular A), again with the diagonal raised by 1e-14, 1e-12, ...
 * relative, IPM_REG_TRIES times.  0, 1 (still not positive definite or
 * singular), -1 (no memory). */
static int factor(ipm_state *s) {
  double reg = 0;
  for (int t = 0; t <= IPM_REG_TRIES; t++) {
    assemble(s, reg);
    slv_ls_status st = slv_linsys_factor(s->ls, s->Kx);
    if (st == SLV_LS_OK) return 0;
    if (st != SLV_LS_NOT_SPD && st != SLV_LS_SINGULAR) return -1;
    reg = reg > 0 ? 100 * reg : 1e-14;
  }
  return 1;
}

/* r <- K^-1 r with the current factor.  0 or -1. */
static int lsolve(ipm_state *s, double *r) {
  slv_ls_status st = s->lu ? slv_linsys_solve_transposed(s->ls, r) : slv_linsys_solve(s->ls, r);
  return st == SLV_LS_OK ? 0 : -1;
}

/* The step (dx, dw, dz1, dz2) for the complementarity targets in s->c
 * (cones: c, in hat space, at the cone's rows; box rows: c1 in c, c2 in
 * rhs on entry).  0 or -1. */
static int direction(ipm_state *s, double *dx, double *dw, double *dz1, double *dz2) {
  const slv_cqp *q = &s->q;
  int n = q->p->n;
  double *rhs = s->rhs;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      double d[3], t[3], mu = q->blk_mu[k];
      jdiv(s->lam + i, s->c + i, d);
      w_apply(s->v + i, s->beta[i], d, t, 0);
      memcpy(dw + i, d, sizeof d); /* kept: d, for the dual step below */
      rhs[i] = mu * t[0] - s->rd[i];
      rhs[i + 1] = t[1] - s->rd[i + 1];
      rhs[i + 2] = t[2] - s->rd[i + 2];
    } else if (s->kind[i] == ROW_BOX) {
      double r = -s->rd[i];
      if (q->lo[i] > -INFINITY) r += s->c[i] / (s->x[i] - q->lo[i]);
      if (q->hi[i] < INFINITY) r -= rhs[i] / (q->hi[i] - s->x[i]);
      dz2[i] = rhs[i]; /* kept: c2 */
      rhs[i] = r;
    } else {
      rhs[i] = s->kind[i] == ROW_FREE ? -s->rd[i] : 0.0;
    }
  }
  if (lsolve(s, rhs)) return -1;
  memcpy(dx, rhs, (size_t)n * sizeof *dx);
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      double mu = q->blk_mu[k], dxh[3] = { mu * dx[i], dx[i + 1], dx[i + 2] }, t[3], u[3];
      w_apply(s->v + i, s->beta[i], dxh, t, 0);
      for (int e = 0; e < 3; e++) u[e] = dw[i + e] - t[e];
      w_apply(s->v + i, s->beta[i], u, t, 0); /* dwh */
      dw[i] = mu * t[0], dw[i + 1] = t[1], dw[i + 2] = t[2];
    } else if (s->kind[i] == ROW_BOX) {
      double c2 = dz2[i];
      dz1[i] = q->lo[i] > -INFINITY ? (s->c[i] - s->z1[i] * dx[i]) / (s->x[i] - q->lo[i]) : 0.0;
      dz2[i] = q->hi[i] < INFINITY ? (c2 + s->z2[i] * dx[i]) / (q->hi[i] - s->x[i]) : 0.0;
      dw[i] = dz1[i] - dz2[i];
    } else {
      if (s->kind[i] == ROW_FIXED) dx[i] = 0; /* x_i stays at lo_i = hi_i */
      dw[i] = 0;                              /* free: w_i = 0; fixed: w_i is set from g */
    }
  }
  return 0;
}

/* Largest step t <= 1 / IPM_STEP_FRACTION keeping every pair in its cone
 * (the caller takes the fraction). */
static double max_step(const ipm_state *s, const double *dx, const double *dw, const double *dz1,
                       const double *dz2) {
  const slv_cqp *q = &s->q;
  double t = INFINITY;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      double mu = q->blk_mu[k], xh[3], wh[3], dxh[3], dwh[3];
      slv_ipm_to_hat(mu, s->x + i, s->w + i, xh, wh);
      slv_ipm_to_hat(mu, dx + i, dw + i, dxh, dwh);
      t = fmin(t, fmin(soc_step(xh, dxh), soc_step(wh, dwh)));
    } else if (s->kind[i] == ROW_BOX) {
      if (q->lo[i] > -INFINITY) {
        if (dx[i] < 0) t = fmin(t, -(s->x[i] - q->lo[i]) / dx[i]);
        if (dz1[i] < 0) t = fmin(t, -s->z1[i] / dz1[i]);
      }
      if (q->hi[i] < INFINITY) {
        if (dx[i] > 0) t = fmin(t, (q->hi[i] - s->x[i]) / dx[i]);
        if (dz2[i] < 0) t = fmin(t, -s->z2[i] / dz2[i]);
      }
    }
  }
  return t;
}

/* The complementarity of the iterate moved by t along (dx, dw, dz1, dz2)
 * (dx NULL: of the iterate itself): sum of the pairs' products, and the
 * number of pairs into *deg. */
double slv_ipm_gap(const ipm_state *s, double t, const double *dx, const double *dw,
                   const double *dz1, const double *dz2, int *deg) {
  const slv_cqp *q = &s->q;
  double gap = 0;
  int m = 0;
#define STEP(v, d, i) (dx ? (v)[i] + t * (d)[i] : (v)[i]) /* dx NULL: the iterate itself */
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      for (int e = 0; e < 3; e++) gap += STEP(s->x, dx, i + e) * STEP(s->w, dw, i + e);
      m++;
    } else if (s->kind[i] == ROW_BOX) {
      if (q->lo[i] > -INFINITY) {
        gap += (STEP(s->x, dx, i) - q->lo[i]) * STEP(s->z1, dz1, i);
        m++;
      }
      if (q->hi[i] < INFINITY) {
        gap += (q->hi[i] - STEP(s->x, dx, i)) * STEP(s->z2, dz2, i);
        m++;
      }
    }
  }
#undef STEP
  *deg = m;
  return gap;
}

/* The complementarity targets: the predictor's (sigma = 0, no correction:
 * -lambda o lambda, -s z) or the corrector's (sigma mu e - lambda o lambda
 * - (W^-1 dwh_a) o (W dxh_a), sigma mu - s z - ds_a dz_a), into s->c (box
 * rows: c2 into s->rhs). */
static void targets(ipm_state *s, double smu, int corrector) {
  const slv_cqp *q = &s->q;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      double *c = s->c + i, *l = s->lam + i;
      jprod(l, l, c);
      c[0] = smu - c[0], c[1] = -c[1], c[2] = -c[2];
      if (corrector) {
        double mu = q->blk_mu[k], dxh[3], dwh[3], a[3], b[3], ab[3];
        slv_ipm_to_hat(mu, s->ax + i, s->aw + i, dxh, dwh);
        w_apply(s->v + i, s->beta[i], dwh, a, 1);
        w_apply(s->v + i, s->beta[i], dxh, b, 0);
        jprod(a, b, ab);
        for (int e = 0; e < 3; e++) c[e] -= ab[e];
      }
    } else if (s->kind[i] == ROW_BOX) {
      double c1 = 0, c2 = 0;
      if (q->lo[i] > -INFINITY) {
        c1 = smu - (s->x[i] - q->lo[i]) * s->z1[i];
        if (corrector) c1 -= s->ax[i] * s->az1[i];
      }
      if (q->hi[i] < INFINITY) {
        c2 = smu - (q->hi[i] - s->x[i]) * s->z2[i];
        if (corrector) c2 -= -s->ax[i] * s->az2[i];
      }
      s->c[i] = c1;
      s->rhs[i] = c2;
    }
  }
}

/* Whether every pair stays strictly inside its cone after the step t along
 * (dx, dw, dz1, dz2) (NaN: no). */
static int interior_after(const ipm_state *s, double t) {
  const slv_cqp *q = &s->q;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (q->blk_mu[k] > 0) {
      double mu = q->blk_mu[k], x[3], w[3], xh[3], wh[3];
      for (int e = 0; e < 3; e++)
        x[e] = s->x[i + e] + t * s->dx[i + e], w[e] = s->w[i + e] + t * s->dw[i + e];
      slv_ipm_to_hat(mu, x, w, xh, wh);
      if (!(xh[0] > 0 && wh[0] > 0 && jnorm2(xh) > 0 && jnorm2(wh) > 0)) return 0;
    } else if (s->kind[i] == ROW_BOX) {
      double x = s->x[i] + t * s->dx[i];
      if (q->lo[i] > -INFINITY && !(x - q->lo[i] > 0 && s->z1[i] + t * s->dz1[i] > 0)) return 0;
      if (q->hi[i] < INFINITY && !(q->hi[i] - x > 0 && s->z2[i] + t * s->dz2[i] > 0)) return 0;
    }
  }
  return 1;
}

/* One predictor-corrector iteration from the current (x, w, z): 0, or
 * SLV_BREAKDOWN (factorization), SLV_ERR_NOMEM, SLV_NOT_FINITE.  *step
 * gets the step length taken. */
slv_status slv_ipm_iterate(ipm_state *s, double mu, double *step) {
  int f = factor(s);
  if (f < 0) return SLV_ERR_NOMEM;
  if (f > 0) return SLV_BREAKDOWN;
  targets(s, 0, 0);
  if (direction(s, s->ax, s->aw, s->az1, s->az2)) return SLV_ERR_NOMEM;
  double ta = fmin(1.0, max_step(s, s->ax, s->aw, s->az1, s->az2));
  int deg;
  double mua = slv_ipm_gap(s, ta, s->ax, s->aw, s->az1, s->az2, &deg) / (deg > 0 ? deg : 1);
  double sigma = mu > 0 ? pow(fmax(0.0, mua / mu), 3) : 0;
  if (sigma > 1) sigma = 1;
  targets(s, sigma * mu, 1);
  if (direction(s, s->dx, s->dw, s->dz1, s->dz2)) return SLV_ERR_NOMEM;
  double t = fmin(1.0, IPM_STEP_FRACTION * max_step(s, s->dx, s->dw, s->dz1, s->dz2));
  if (!(t > 0) || !isfinite(t)) return SLV_NOT_FINITE;
  /* the roots of the step to the boundary are rounded: halve a step that
   * would leave a pair on or outside its cone */
  for (int tries = 0; !interior_after(s, t); tries++) {
    if (tries >= 30) return SLV_NOT_FINITE;
    t *= 0.5;
  }
  int n = s->q.p->n;
  for (int i = 0; i < n; i++) {
    s->x[i] += t * s->dx[i];
    s->w[i] += t * s->dw[i];
    s->z1[i] += t * s->dz1[i];
    s->z2[i] += t * s->dz2[i];
  }
  *step = t;
  return SLV_OK;
}
