/* ipm.c -- primal-dual interior point on the cone problem, both laws
 * (docs/cone-cone-solvers.md, "Interior point").
 *
 * Problem (cone_qp.h): w = A x + bq with A positive semidefinite (x'Ax >= 0),
 *     cones:     K_mu ∋ x_c  ⊥  w_c ∈ K* = K_{1/mu}
 *     box rows:  lo_i <= x_i <= hi_i with the sign conditions of slv.h
 * (free rows: w_i = 0; rows with lo_i = hi_i: x_i fixed).  bq = b for the
 * associated law; for Coulomb's law bq = b + s with the De Saxce shift
 * s_c = (mu |w_t|, 0, 0), fixed during one interior-point solve and
 * updated between them (the fixed point of cone_qp.h; below).  For a
 * symmetric A this is the convex QP's KKT system; for a nonsymmetric one
 * the monotone complementarity problem.
 *
 * The interior point.  A cone is mapped to the standard second-order cone
 * L = { z_0 >= |z_1| } by D = diag(mu, 1, 1): xh = D x ∈ L and wh = D^-1 w
 * ∈ L (xh'wh = x'w).  A box row has one scalar pair per finite bound,
 * (s1, z1) = (x - lo, w+) and (s2, z2) = (hi - x, w-), w = z1 - z2.  The
 * iterates keep every pair strictly inside its cone; the dual variable w is
 * an unknown of its own, tied to A x + bq by the residual rd = A x + bq - w
 * (an infeasible start from the centre of the cones).  Each iteration is
 * one Mehrotra predictor-corrector step [mehrotra1992] on the central path
 * x o w = mu e, with the Nesterov-Todd scaling of each cone [nesterov1997;
 * the formulas of the CVXOPT cone QP solver, vandenberghe2010]: W with
 * W xh = W^-1 wh = lambda, W = beta (2 v v' - J), J = diag(1, -1, -1).
 * Eliminating dw leaves
 *     (A + blockdiag(D W^2 D) + diag(z1/s1 + z2/s2)) dx = rhs,
 * positive definite for A positive semidefinite (a free row adds
 * IPM_FREE_REG to its diagonal).  A symmetric A: CHOLMOD [chen2008] on the
 * pattern of A's upper triangle with every diagonal block added; a
 * nonsymmetric one: UMFPACK's LU [davis2004] on the whole pattern; either
 * analysed once per solve, factored numerically once per iteration, the
 * predictor and the corrector solved with the same factor.  The pyramid
 * exports of 10 to 30 layers (1200 to 10,800 rows, W of rank far below n,
 * many contacts with x_c and w_c both tending to zero) take 10 to 12
 * iterations: that degeneracy is what interior points ignore and what
 * projections, ADMM and the Newton methods on the natural map do not.
 *
 * The polish.  Where a pair tends to zero on both sides the natural map of
 * the iterates falls only as the square root of the path parameter, and the
 * interior point stalls near 1e-6 on the largest exports.  When it stops
 * gaining (IPM_STALL_RUN iterations without halving it, counted from
 * IPM_STALL_FROM) or after IPM_MAX_RUN, nsgs sweeps the same QP from its
 * best iterate for up to IPM_POLISH_SWEEPS sweeps, kept if better: from that
 * close the sweeps remove the small complementarity errors left (40-layer
 * pyramid, associated law: about 3e-7 to 2.1e-8).
 *
 * Coulomb's law: the De Saxce fixed point of [acary2011], each QP solved by
 * an interior point and the polish, to half the tolerance: the first from
 * the centre, each later one warm from the last QP's iterate (start_warm)
 * while the test's measure is above IPM_WARM_ABOVE x tol, redone from the
 * centre when that start fails; near the tolerance from the centre again
 * (warm answers met the library's test where a per-contact judge did not:
 * tests/test_scaling.c, the whole problem x 1e-9).  The first
 * QP has s = 0 from a cold start (the associated problem: on a stack of
 * boxes already the Coulomb solution), then s = F at the best iterate, or
 * at the last one when that shift was tried; the best iterate is returned,
 * and the loop ends at SLV_STAGNATED after IPM_OUTER_STALL outer iterations
 * without a 1 % gain.  Where contacts slide the fixed point contracts
 * slowly or stalls (docs/solvers.md has the numbers).
 *
 * Warm start: a start that meets the test is returned; else nsgs sweeps the
 * problem itself from it first (a start near the answer needs no
 * factorization); the first interior point starts from the centre.
 * opt->max_iter counts interior-point iterations (factorizations) over the
 * whole solve; result.iterations is that count, the message adds the
 * outer iterations and the polish sweeps.  The history holds, per
 * interior-point iteration, res_rel of the problem's law; its last entry is
 * the returned iterate's.
 *
 * Linear algebra and allocation: the Newton matrix is a system of the
 * linear-system interface (linsys.h) on its sparse back ends at every size
 * (docs/solver-machinery.md, "Linear systems": CHOLMOD, or UMFPACK's LU for a
 * nonsymmetric A); the pattern and its analysis are made once per solve
 * (ipm_pattern_reserve); CHOLMOD's numeric factorization reuses its factor
 * and cholmod_solve2 its workspace; UMFPACK's numeric object is made per
 * factorization, as in nsn_ac's large LUs.  CHOLMOD's own OpenMP teams
 * are kept to the idle cores on any opt->threads (chol.h).  x'Ax >= 0 is
 * not checked: a
 * factorization that fails after IPM_REG_TRIES regularizations is
 * SLV_BREAKDOWN.  Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_STAGNATED,
 * SLV_NOT_FINITE, SLV_BREAKDOWN, SLV_ERR_NOMEM, SLV_ERR_UNSUPPORTED (a
 * nonsymmetric CSR A with more nonzeros than the packed copy holds).
 */
#include "cone_qp.h"
#include "linsys.h"

#include <stdlib.h>
#include <string.h>

enum {
  IPM_MAX_RUN = 80,        /* interior-point iterations of one QP solve at most */
  IPM_POLISH_SWEEPS = 300, /* nsgs sweeps of the polish */
  IPM_OUTER_STALL = 6,     /* Coulomb: outer iterations without a 1 % gain */
  IPM_STALL_RUN = 5,       /* one QP: iterations without halving its residual... */
  IPM_STALL_FROM = 20,     /* ... counted from this iteration on (the first steps reduce rd, mu) */
  IPM_REG_TRIES = 4        /* regularizations of a failed factorization */
};
#define IPM_STEP_FRACTION 0.99  /* of the step to the boundary */
#define IPM_FREE_REG      1e-10 /* x max diagonal: a free row's diagonal regularization */
#define IPM_WARM_ABOVE    10.0  /* QPs start warm while the test's measure is above this x tol */
#define IPM_WARM_PUSH     1e-3  /* a warm QP start: how far into the cones (the centre: 1) */

extern const slv_solver slv_solver_nsgs;

/* Row kinds (besides the cones). */
enum { ROW_CONE = 0, ROW_BOX = 1, ROW_FREE = 2, ROW_FIXED = 3 };

typedef struct {
  int n_max;
  slv_cqp q;
  double *buf;
  double *x, *w;   /* the interior iterate: x, and the dual w (cones: w; box rows: z1 - z2) */
  double *z1, *z2; /* box rows: the multipliers of lo and hi (0 for an infinite bound) */
  double *g, *rd;  /* A x + bq, and rd = g - w */
  double *dx, *dw, *dz1, *dz2; /* the step */
  double *ax, *aw, *az1, *az2; /* the predictor's step */
  double *v, *beta, *lam;      /* per cone (at its rows): Nesterov-Todd v, beta, lambda */
  double *c, *rhs;             /* per row: the complementarity target (cones: hat space;
                                  box rows: c for lo, rhs holds c for hi), the system */
  double *best;                /* the best iterate of a QP solve */
  double *wt;                  /* the best iterate of the solve */
  double *px, *pw;             /* the polish's x and w */
  int *kind;                   /* per row: ROW_* */
  /* the Newton matrix, CSC: the upper triangle (Cholesky), or every entry
   * (LU, a nonsymmetric A) */
  int *Kp, *Ki;
  double *Kx, *Ka; /* values: this iteration's, and A's (0 where only a block entry is) */
  int *bpos;       /* cone k: its block's entry (r, c) at 9 k + 3 c + r (-1: not stored) */
  int *dpos;       /* row i: its diagonal entry */
  int *stamp;      /* n_max: pattern scratch */
  size_t nz_cap;
  int *cone_of;      /* row -> its cone's index (normal row only), -1 */
  int lu;            /* A is not symmetric: an LU instead of a Cholesky */
  slv_linsys *ls;    /* the Newton matrix's system (linsys.h), once per solve */
  void *nsgs;        /* nsgs's state, for the polish */
  double *sk;        /* per cone: the De Saxce shift of the last QP */
  double free_reg;   /* IPM_FREE_REG x max |A_ii| */
  int polish_sweeps; /* in this solve */
  int ncone;         /* cones with mu > 0 in this problem */
  slv_rowscale rq;   /* the current QP's (solve_qp): its measure in O(n) */
  int qp_done;       /* a QP of this solve has been solved (its answer: the next one's start) */
  int warm_retries;  /* warm QP starts that failed (breakdown, not finite), redone cold */
} ipm_state;

static void ipm_free(void *st) {
  ipm_state *s = st;
  slv_cqp_free(&s->q);
  slv_linsys_free(s->ls);
  if (s->nsgs) {
    slv_solver_nsgs.impl->free(s->nsgs);
    free(s->nsgs);
  }
  free(s->buf);
  free(s->kind);
  free(s->cone_of);
  free(s->stamp);
  free(s->Kp);
  free(s->Ki);
  free(s->Kx);
  free(s->Ka);
  free(s->bpos);
  free(s->dpos);
  free(s->sk);
  memset(s, 0, sizeof *s);
}

static slv_status ipm_init(void *st, int n_max, const slv_options *opt) {
  ipm_state *s = st;
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->n_max = n_max;
  if (slv_cqp_alloc(&s->q, n_max)) return SLV_ERR_NOMEM;
  enum { NVEC = 24 };
  s->buf = malloc(NVEC * m * sizeof *s->buf);
  s->kind = malloc(m * sizeof *s->kind);
  s->cone_of = malloc(m * sizeof *s->cone_of);
  s->stamp = malloc(m * sizeof *s->stamp);
  s->Kp = malloc((m + 1) * sizeof *s->Kp);
  s->bpos = malloc(3 * m * sizeof *s->bpos); /* 9 per cone of 3 rows */
  s->dpos = malloc(m * sizeof *s->dpos);
  s->nsgs = calloc(1, slv_solver_nsgs.impl->state_size);
  s->sk = malloc(m * sizeof *s->sk);
  if (!s->sk || !s->buf || !s->kind || !s->cone_of || !s->stamp || !s->Kp || !s->bpos || !s->dpos ||
      !s->nsgs || slv_solver_nsgs.impl->init(s->nsgs, n_max, opt) != SLV_OK) {
    ipm_free(s);
    return SLV_ERR_NOMEM;
  }
  double *b = s->buf;
  double **vec[NVEC] = { &s->x,   &s->w,   &s->z1,  &s->z2,   &s->g,   &s->rd,  &s->dx, &s->dw,
                         &s->dz1, &s->dz2, &s->ax,  &s->aw,   &s->az1, &s->az2, &s->v,  &s->beta,
                         &s->lam, &s->c,   &s->rhs, &s->best, &s->wt,  &s->px,  &s->pw, NULL };
  for (int k = 0; k < NVEC && vec[k]; k++) *vec[k] = b + (size_t)k * m;
  return SLV_OK;
}

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

/* The cone's hat variables: xh = D x, wh = D^-1 w, D = diag(mu, 1, 1). */
static inline void to_hat(double mu, const double *x, const double *w, double *xh, double *wh) {
  xh[0] = mu * x[0], xh[1] = x[1], xh[2] = x[2];
  wh[0] = w[0] / mu, wh[1] = w[1], wh[2] = w[2];
}

/* ---- the Newton matrix ---------------------------------------------------------- */

/* The row kinds of this problem and each cone's index. */
static void classify_rows(ipm_state *s) {
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
static int ipm_pattern_reserve(ipm_state *s, const slv_op *op) {
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
  s->free_reg = IPM_FREE_REG * fmax(1.0, dmax);
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
 * values: A + blockdiag(D W^2 D) + diag(z1/s1 + z2/s2) (+ IPM_FREE_REG on
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
      to_hat(mu, s->x + i, s->w + i, xh, wh);
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
      to_hat(mu, s->x + i, s->w + i, xh, wh);
      to_hat(mu, dx + i, dw + i, dxh, dwh);
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
static double gap_after(const ipm_state *s, double t, const double *dx, const double *dw,
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
        to_hat(mu, s->ax + i, s->aw + i, dxh, dwh);
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

/* ---- one QP solve ----------------------------------------------------------------- */

/* The centre of the cones: cones x = (1/mu, 0, 0), w = (mu, 0, 0) (xh = wh =
 * e); box rows at distance 1 from each finite bound (the middle of a
 * narrower box) with z = 1; free rows x = 0; fixed rows x = lo. */
static void start_point(ipm_state *s) {
  const slv_cqp *q = &s->q;
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    double lo = q->lo[i], hi = q->hi[i];
    if (q->blk_mu[k] > 0) {
      s->x[i] = 1 / q->blk_mu[k], s->x[i + 1] = s->x[i + 2] = 0;
      s->w[i] = q->blk_mu[k], s->w[i + 1] = s->w[i + 2] = 0;
      continue;
    }
    s->z1[i] = s->z2[i] = 0;
    if (s->kind[i] == ROW_FIXED) {
      s->x[i] = lo;
    } else if (s->kind[i] == ROW_FREE) {
      s->x[i] = 0;
    } else {
      if (lo > -INFINITY && hi < INFINITY)
        s->x[i] = hi - lo > 2 ? lo + 1 : 0.5 * (lo + hi);
      else
        s->x[i] = lo > -INFINITY ? lo + 1 : hi - 1;
      if (lo > -INFINITY) s->z1[i] = 1;
      if (hi < INFINITY) s->z2[i] = 1;
    }
    s->w[i] = s->z1[i] - s->z2[i];
  }
}

/* A warm start for the next QP of the fixed point: the cones' pairs at
 * the previous QP's iterate x0, x0 and A x0 + bq (the new shift), each
 * pushed into L by IPM_WARM_PUSH beyond its boundary (xh0 = max(xh0,
 * |xh_t|) + push: the pair's direction kept; in the units of the centre
 * start_point uses, xh = wh = e; a push of 1e-3 times the pair's own norm,
 * scale-free, took more iterations: experiments/MEASUREMENTS.md); free
 * rows, and box rows strictly inside their bounds, at x0; the box
 * multipliers and the other rows as start_point.  The shifts of
 * successive QPs differ little, so the path starts near its end. */
static void start_warm(ipm_state *s, const double *x0) {
  const slv_cqp *q = &s->q;
  start_point(s);
  slv_cqp_matvec(&s->q, x0, s->g);
  for (int k = 0; k < q->nblk; k++) {
    int i = q->blk_row[k];
    if (s->kind[i] == ROW_FREE || (s->kind[i] == ROW_BOX && x0[i] > q->lo[i] && x0[i] < q->hi[i]))
      s->x[i] = x0[i];
    if (!(q->blk_mu[k] > 0)) continue;
    double mu = q->blk_mu[k], g[3], xh[3], wh[3];
    for (int e = 0; e < 3; e++) g[e] = s->g[i + e] + q->bq[i + e];
    to_hat(mu, x0 + i, g, xh, wh);
    if (!slv_all_finite(3, xh) || !slv_all_finite(3, wh)) continue; /* this cone: the centre */
    xh[0] = fmax(xh[0], hypot(xh[1], xh[2])) + IPM_WARM_PUSH;
    wh[0] = fmax(wh[0], hypot(wh[1], wh[2])) + IPM_WARM_PUSH;
    s->x[i] = xh[0] / mu, s->x[i + 1] = xh[1], s->x[i + 2] = xh[2];
    s->w[i] = wh[0] * mu, s->w[i + 1] = wh[1], s->w[i + 2] = wh[2];
  }
}

/* g = A x + bq, rd = g - w (0 on fixed rows, whose w is g), the measures
 * of the QP's natural map at x, and the complementarity mu (the mean over
 * the pairs). */
static slv_natmap evaluate(ipm_state *s, const slv_problem *pq, double *mu) {
  slv_cqp *q = &s->q;
  int n = pq->n;
  slv_cqp_matvec(q, s->x, s->g);
  for (int i = 0; i < n; i++) s->g[i] += q->bq[i];
  for (int i = 0; i < n; i++) {
    if (s->kind[i] == ROW_FIXED) s->w[i] = s->g[i];
    s->rd[i] = s->g[i] - s->w[i];
  }
  int deg;
  double gap = gap_after(s, 0, NULL, NULL, NULL, NULL, &deg);
  *mu = deg > 0 ? gap / deg : 0;
  return slv_natmap_of(pq, s->x, s->g, &s->rq);
}

typedef struct {
  int iters;  /* interior-point iterations of this solve so far (all QPs) */
  int budget; /* opt->max_iter */
  double b2;  /* max(1, ||b||_2): res_rel_2's scale */
} ipm_count;

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
      to_hat(mu, x, w, xh, wh);
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
static slv_status iterate(ipm_state *s, double mu, double *step) {
  int f = factor(s);
  if (f < 0) return SLV_ERR_NOMEM;
  if (f > 0) return SLV_BREAKDOWN;
  targets(s, 0, 0);
  if (direction(s, s->ax, s->aw, s->az1, s->az2)) return SLV_ERR_NOMEM;
  double ta = fmin(1.0, max_step(s, s->ax, s->aw, s->az1, s->az2));
  int deg;
  double mua = gap_after(s, ta, s->ax, s->aw, s->az1, s->az2, &deg) / (deg > 0 ? deg : 1);
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

/* Whether the QP's measures meet tol_in by the library's test. */
static int qp_met(const slv_options *opt, const ipm_count *k, double tol_in, slv_natmap r) {
  slv_options o = *opt;
  o.tol = tol_in;
  return slv_met_norms(&o, r.scaled, r.n2 / k->b2);
}

/* The QP of q->bq by the interior point, from the centre (x0 NULL) or
 * warm from x0 (start_warm), until its
 * natural map meets tol_in (in the test's norm), or it stops gaining
 * (IPM_STALL_RUN iterations without halving it), or IPM_MAX_RUN iterations, or the
 * budget.  s->best gets the iterate of least residual (in the test's norm);
 * returns SLV_CONVERGED, SLV_MAX_ITER (stalled or out of iterations), or a
 * failure of iterate(). */
static slv_status qp_interior(ipm_state *s, const slv_problem *pq, const slv_options *opt,
                              double tol_in, ipm_count *k, slv_result *res, slv_hist *h,
                              double *rbest, const double *x0) {
  int n = pq->n;
  if (x0)
    start_warm(s, x0);
  else
    start_point(s);
  *rbest = INFINITY;
  double mark = INFINITY;
  int since = 0;
  for (int it = 0;; it++) {
    double mu;
    slv_natmap r = evaluate(s, pq, &mu);
    if (isnan(r.inf)) return *rbest < INFINITY ? SLV_MAX_ITER : SLV_NOT_FINITE; /* keep the best */
    double m = slv_test_measure_norms(opt, r.scaled, r.n2 / k->b2);
    if (it > 0 && h->cap > 0)
      slv_history_push(h, res, slv_cqp_lawres(&s->q, s->x, s->g) * s->q.hist_scale);
    if (m < *rbest) {
      *rbest = m;
      memcpy(s->best, s->x, (size_t)n * sizeof *s->best);
    }
    if (qp_met(opt, k, tol_in, r)) return SLV_CONVERGED;
    if (m < 0.5 * mark) {
      mark = m;
      since = 0;
    } else if (it >= IPM_STALL_FROM && ++since >= IPM_STALL_RUN) {
      return SLV_MAX_ITER;
    }
    if (it >= IPM_MAX_RUN || k->iters >= k->budget) return SLV_MAX_ITER;
    if (slv_should_stop(s->q.op, SLV_POLL_WORK)) return SLV_MAX_ITER; /* before a factorization */
    double step;
    slv_status st = iterate(s, mu, &step);
    if (st == SLV_NOT_FINITE && *rbest < INFINITY) return SLV_MAX_ITER; /* rounding at the end */
    if (st != SLV_OK) return st;
    k->iters++;
  }
}

/* nsgs on the QP (pq: the problem with bq and the associated law) from x,
 * for up to IPM_POLISH_SWEEPS sweeps to tol_in.  x is replaced only by a
 * better iterate. */
static void polish(ipm_state *s, slv_op *op, const slv_problem *pq, const slv_options *opt,
                   const ipm_count *k, double tol_in, double *x, double rx) {
  int n = pq->n;
  slv_op po = *op;
  po.p = pq;
  slv_options o = *opt;
  o.tol = tol_in;
  o.max_iter = IPM_POLISH_SWEEPS;
  o.warm_start = 1;
  o.record_history = 0;
  slv_result r;
  memset(&r, 0, sizeof r);
  slv_hist none = { 0 };
  memcpy(s->px, x, (size_t)n * sizeof *s->px);
  slv_status st = slv_solver_nsgs.impl->solve(s->nsgs, &po, &o, s->px, s->pw, &r, &none);
  s->polish_sweeps += r.iterations;
  if (st == SLV_NOT_FINITE || !slv_all_finite(n, s->px)) return;
  slv_rowscale rq = *slv_op_rowscale(op); /* A's row sizes; pq's own xd */
  if (pq != op->p) rq.xd = slv_rowscale_xd(pq);
  slv_natmap nm = slv_natmap_of(pq, s->px, s->pw, &rq);
  double m = slv_test_measure_norms(opt, nm.scaled, nm.n2 / k->b2);
  if (m < rx) memcpy(x, s->px, (size_t)n * sizeof *x);
}

/* One QP (q->bq, the associated law): the interior point, then the polish
 * unless it met tol_in; the result in x.  After a first QP of this solve
 * the interior point starts warm from the last QP's best interior-point
 * iterate (s->best, before the polish: strictly inside the cones, where
 * the polished answer sits on their boundaries); a warm
 * start that stops short of tol_in hands its best iterate to the polish,
 * as a cold one does; one that fails (a factorization that breaks down,
 * an iterate not finite) is redone from the centre.  SLV_OK or a failure of the
 * interior point (SLV_BREAKDOWN, SLV_ERR_NOMEM, SLV_NOT_FINITE). */
static slv_status solve_qp(ipm_state *s, slv_op *op, const slv_options *opt, double tol_in,
                           ipm_count *k, double *x, slv_result *res, slv_hist *h, int warm) {
  slv_problem pq = *op->p;
  pq.b = s->q.bq;
  pq.cone_law = SLV_CONE_ASSOCIATED;
  pq.condensed = 0;             /* the QP has its own test; slv_solve judges the clause */
  s->rq = *slv_op_rowscale(op); /* A's row sizes; this QP's own xd */
  s->rq.xd = slv_rowscale_xd(&pq);
  double rbest = INFINITY;
  slv_status st =
      qp_interior(s, &pq, opt, tol_in, k, res, h, &rbest, warm && s->qp_done ? s->best : NULL);
  if (warm && s->qp_done && st != SLV_CONVERGED && st != SLV_MAX_ITER && st != SLV_ERR_NOMEM &&
      k->iters < k->budget && !slv_stopped(op)) {
    s->warm_retries++;
    st = qp_interior(s, &pq, opt, tol_in, k, res, h, &rbest, NULL);
  }
  if (st != SLV_CONVERGED && st != SLV_MAX_ITER) return st;
  s->qp_done = 1;
  memcpy(x, s->best, (size_t)pq.n * sizeof *x);
  if (st != SLV_CONVERGED && k->iters < k->budget) polish(s, op, &pq, opt, k, tol_in, x, rbest);
  return SLV_OK;
}


/* ---- the De Saxce fixed point (Coulomb's law) -------------------------------------- */

/* F_c = mu_c |w_t,c| for every cone (the fixed point's map at w = A x + b). */
static void shift_map(const slv_problem *p, const double *w, double *f) {
  for (int c = 0; c < p->ncones; c++) {
    int i = p->cone_rows[c];
    f[c] = p->cone_mu[c] * hypot(w[i + 1], w[i + 2]);
  }
}

/* The shift per cone into q->shift and q->bq. */
static void put_shift(slv_cqp *q, const double *sc) {
  const slv_problem *p = q->p;
  for (int c = 0; c < p->ncones; c++) {
    int i = p->cone_rows[c];
    q->shift[i] = sc[c];
    q->bq[i] = p->b[i] + sc[c];
  }
}

/* The message (the law, the work, the measure; the budget when spent), and
 * the history's last entry set to the returned iterate's test measure (the
 * polish and the choice of the best outer iterate come after the last
 * interior-point iteration).  Returns st. */
static slv_status finish(const ipm_state *s, slv_result *res, slv_hist *h, slv_status st,
                         const char *what, int outer, const ipm_count *k, const slv_residuals *r,
                         const slv_options *opt) {
  char spent[48] = "";
  if (st == SLV_MAX_ITER) slv_msgf(spent, sizeof spent, " (max_iter=%d spent)", opt->max_iter);
  slv_msgf(res->message, sizeof res->message,
           "ipm: %s: %d outer, %d interior-point iterations%s, %d polish sweeps, %d warm QP "
           "start(s) failed and redone cold, %s=%.3g, tol=%.3g",
           what, outer, k->iters, spent, s->polish_sweeps, s->warm_retries,
           opt->norm == SLV_NORM_2 ? "max(res_scaled, res_rel_2)" : "res_scaled",
           slv_test_measure(opt, r), opt->tol);
  if (h->cap > 0 && res->history_len > 0) h->val[res->history_len - 1] = slv_test_measure(opt, r);
  res->iterations = k->iters;
  return st;
}

/* The measure of the test at x (w = A x + b into w, the residuals into *r). */
static double measure(slv_op *op, const slv_options *opt, const double *x, double *w,
                      slv_residuals *r) {
  slv_op_w(op, x, w);
  *r = slv_residual(op->p, x, w);
  return slv_test_measure(opt, r);
}

/* Setup of a solve: the blocks and shift (cone_qp.h), the packed columns,
 * Cholesky or LU (A's symmetry, on the packed copy), the row kinds, the
 * Newton matrix's pattern and analysis, the scales.  0, -1 (no memory), or
 * 1 (a nonsymmetric CSR A too large for the packed copy: no columns). */
static int setup(ipm_state *s, slv_op *op, const slv_options *opt, double *x, ipm_count *k) {
  const slv_problem *p = op->p;
  int si, sj;
  slv_cqp_setup(&s->q, op, opt, 0);
  slv_cqp_project(&s->q, x);
  slv_op_pack(op); /* the columns (scalar or 3x3 blocks), when A is worth packing */
  s->lu = !slv_op_is_symmetric(op, 1e-12, &si, &sj);
  if (s->lu && !op->packed && !op->A) return 1;
  classify_rows(s);
  s->polish_sweeps = 0;
  s->qp_done = 0;
  s->warm_retries = 0;
  double b2 = 0;
  for (int i = 0; i < p->n; i++) b2 += p->b[i] * p->b[i];
  *k = (ipm_count){ .iters = 0, .budget = opt->max_iter, .b2 = fmax(1.0, sqrt(b2)) };
  return ipm_pattern_reserve(s, op);
}

/* The next QP's De Saxce shift into q->bq: 0 first from a cold start (the
 * associated problem: on stacks of boxes already the Coulomb solution);
 * then F at the best iterate (s->wt), the fixed point's step, unless that
 * shift was tried already (*best_used), when F at the last iterate (w). */
static void next_shift(ipm_state *s, slv_op *op, const double *w, int first_cold, int *best_used) {
  const slv_problem *p = op->p;
  if (first_cold) {
    memset(s->sk, 0, (size_t)p->ncones * sizeof *s->sk);
  } else if (!*best_used) {
    slv_op_w(op, s->wt, s->pw);
    shift_map(p, s->pw, s->sk);
    *best_used = 1;
  } else {
    shift_map(p, w, s->sk);
  }
  put_shift(&s->q, s->sk);
}

static slv_status ipm_solve(void *state, slv_op *op, const slv_options *opt, double *x, double *w,
                            slv_result *res, slv_hist *h) {
  ipm_state *s = state;
  const slv_problem *p = op->p;
  int n = p->n;
  slv_cqp *q = &s->q;
  ipm_count k;
  int su = setup(s, op, opt, x, &k);
  if (su) {
    slv_msgf(res->message, sizeof res->message,
             su > 0 ? "ipm: a nonsymmetric CSR A with more nonzeros than the packed copy holds"
                    : "ipm: no memory for the Newton matrix's factor");
    return su > 0 ? SLV_ERR_UNSUPPORTED : SLV_ERR_NOMEM;
  }
  const char *what = p->ncones == 0 ? "box QP"
                     : q->coulomb   ? "coulomb law (De Saxce fixed point)"
                                    : "associated law";
  slv_residuals r;
  double m = measure(op, opt, x, w, &r);
  if (slv_met(p, opt, &r)) return finish(s, res, h, SLV_CONVERGED, what, 0, &k, &r, opt);
  /* a warm start: first nsgs from it on the problem itself (a start near
   * the answer needs no interior point) */
  if (opt->warm_start && isfinite(m)) {
    polish(s, op, p, opt, &k, opt->tol, x, m);
    m = measure(op, opt, x, w, &r);
    if (slv_met(p, opt, &r)) return finish(s, res, h, SLV_CONVERGED, what, 0, &k, &r, opt);
  }
  int outer = 0, since = 0, best_used = 0, cold = !opt->warm_start;
  double best = INFINITY, mark = INFINITY;
  memcpy(s->wt, x, (size_t)n * sizeof *x);
  for (;;) {
    if (outer > 0) m = measure(op, opt, x, w, &r);
    res->solver_residual = m;
    if (!isfinite(m)) {
      if (best < INFINITY) break; /* back to the best iterate */
      return finish(s, res, h, SLV_NOT_FINITE, what, outer, &k, &r, opt);
    }
    if (m < best) {
      best = m;
      memcpy(s->wt, x, (size_t)n * sizeof *x);
      best_used = 0;
    }
    if (slv_met(p, opt, &r)) {
      /* the interior point leaves separated impulses small, not 0 */
      if (slv_snap(op, opt, 0, k.b2, x, w, s->px, s->pw)) measure(op, opt, x, w, &r);
      return finish(s, res, h, SLV_CONVERGED, what, outer, &k, &r, opt);
    }
    if (slv_stopped(op)) break;
    if (outer > 0 && !q->coulomb) break;
    if (m < 0.99 * mark) {
      mark = m;
      since = 0;
    } else if (++since >= IPM_OUTER_STALL) {
      break;
    }
    if (k.iters >= k.budget) break;
    if (q->coulomb) next_shift(s, op, w, outer == 0 && cold, &best_used);
    outer++;
    slv_status st =
        solve_qp(s, op, opt, 0.5 * opt->tol, &k, x, res, h, m > IPM_WARM_ABOVE * opt->tol);
    slv_logf(opt, "ipm: outer %d: start %.3e, %d interior-point iterations so far", outer, m,
             k.iters);
    if (st != SLV_OK) {
      memcpy(x, s->wt, (size_t)n * sizeof *x);
      measure(op, opt, x, w, &r);
      return finish(
          s, res, h, st,
          st == SLV_BREAKDOWN
              ? "the Newton matrix is not positive definite (A not positive semidefinite?)"
              : what,
          outer, &k, &r, opt);
    }
  }
  /* not converged: the best iterate */
  memcpy(x, s->wt, (size_t)n * sizeof *x);
  measure(op, opt, x, w, &r);
  slv_status end = slv_stopped(op)       ? slv_stopped(op)
                   : k.iters >= k.budget ? SLV_MAX_ITER
                                         : SLV_STAGNATED;
  return finish(s, res, h, end, what, outer, &k, &r, opt);
}

static const slv_impl ipm_impl = {
  .state_size = sizeof(ipm_state),
  .init = ipm_init,
  .free = ipm_free,
  .solve = ipm_solve,
};

/* the params line below quotes these */
_Static_assert(IPM_MAX_RUN == 80 && IPM_STALL_RUN == 5 && IPM_STALL_FROM == 20 &&
                   IPM_POLISH_SWEEPS == 300 && IPM_OUTER_STALL == 6,
               "ipm params");

const slv_solver slv_solver_ipm = {
  .name = "ipm",
  .summary = "primal-dual interior point (Mehrotra, Nesterov-Todd scaling; CHOLMOD, or UMFPACK "
             "for a nonsymmetric A), nsgs polish; Coulomb law by the De Saxce fixed point",
  .cite = "vandenberghe2010",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE,
  /* clang-format off */
  .params =
      "sigma = (mu_aff/mu)^3, step " SLV_STR(IPM_STEP_FRACTION) "; QP <= 80 its, 5 w/o halving "
      "from 20: 300 nsgs sweeps; Coulomb: QPs to tol/2, warm while > " SLV_STR(IPM_WARM_ABOVE)
      " tol, 6 outer w/o 1 % gain",
  /* clang-format on */
  .impl = &ipm_impl,
};
