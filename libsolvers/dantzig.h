/* dantzig.h -- private to libsolvers: the state of principal pivoting
 * (dantzig.c) that its files share: dantzig_pass.c, dantzig_drive.c,
 * dantzig_factor.c, dantzig_findex.c.  Never installed.
 */
#ifndef LCPLAB_SLV_DANTZIG_H
#define LCPLAB_SLV_DANTZIG_H

#include "slv_internal.h"

#include <float.h>
#include <lapacke.h>
#include <string.h>

/* Row states.  ST_Z: w = 0 already and s = 0 (the row depends linearly on
 * C), so it needs no pivot and, for semidefinite A, never blocks. */
enum { ST_U = 0, ST_C = 1, ST_LO = 2, ST_HI = 3, ST_Z = 4 };

enum {
  DZ_BLOCK_MIN = 64,    /* rows from which a pass starts with block pivots (dantzig_start.c) */
  DZ_M_AFTER = 8,       /* pivots of a pass before M = A(perm, perm) is built */
  DZ_WARM_ROUNDS = 8,   /* block warm start: rounds of dropping rows that leave the box */
  DZ_STALL_PASSES = 50, /* findex: passes without a 10 % residual improvement ... */
  DZ_RESTARTS = 3       /* ... before a restart from perturbed bounds; then stop */
};

typedef struct {
  int n_max;
  double *M;         /* n_max^2: A(perm, perm), column-major, ld = n (dense path) */
  double *L;         /* n_max^2: unit lower factor of A_CC, column-major, ld = n */
  double *d;         /* n_max: D of the factor, slot order */
  double *lo, *hi;   /* n_max: the bounds of the current boxed pass */
  double *y, *v;     /* n_max: L^-1 a and D^-1 L^-1 a, slot order */
  double *dx;        /* n_max: dx_C for a unit step, slot order */
  double *dw;        /* n_max: dw for a unit step, N rows by position - k; sparse: by row */
  double *tmp;       /* n_max scratch; after fac_remove: p = L33^-1 l (GGMS C1) */
  double *beta;      /* n_max: the beta_j of the last fac_remove */
  double *yj;        /* n_max: forward solve of a row entering C from N */
  double *xb;        /* n_max: best x seen (findex passes) */
  double *hN;        /* n_max: friction bounds h of the trial pass */
  double *xa;        /* n_max: x of the accepted pass */
  lapack_int *ipiv;  /* n_max: LU pivots of the Newton system */
  int *perm, *iperm; /* position -> row, row -> position */
  int *slot_pos;     /* factor slot -> position (positions [0, k) are C) */
  int *pos_slot;     /* position -> factor slot, for positions < k */
  int *crow;         /* factor slot -> row (= perm[slot_pos[slot]]) */
  int *cand;         /* n_max: rows for the block (warm) start */
  int *cacc;         /* n_max: clamped set of the accepted pass (findex) */
  signed char *st;   /* n_max: ST_* per row */
  int *stamp;        /* n_max: drive id at which a row was found singular */
  /* per solve */
  const slv_problem *p;
  slv_op *op; /* the solve's operator */
  const slv_options *opt;
  const double *A; /* its dense view: A(i,j) = A[i + j lda] */
  size_t lda;
  const int *colptr, *rowind; /* its packed nonzero columns (sparse path) */
  const double *val;
  slv_hist *h; /* the solve's history */
  int n, k, nN, packed, pivots, pass_pivots0, limit;
  int has_M;    /* M = A(perm, perm) is built (dense path, from DZ_M_AFTER pivots of a pass) */
  int w_fresh;  /* w = A x + b for every row: no x has moved since the pass's start */
  int cold;     /* this pass starts cold: the first, without a warm start (dantzig_start.c) */
  int drive_id; /* counts drives: stamps of singular rows */
  int nsing, sing_row; /* singular N -> C pivots skipped; the last row */
  double sing_s;       /* and its pivot */
  double ptol; /* pivot_tol * max|A_ii|: the zero of a pivot when A_rr = 0, and of newton_findex */
  double prel; /* opt->pivot_tol: a new pivot of row r is zero below prel A_rr */
  double *sq;  /* n_max: sqrt(A_ii) (sqrt(max|A_ii|) where A_ii <= 0): the row scales */
} dz_state;

/* w = A x + b: over the packed columns when A is sparse, else dgemv. */
static inline void slv_dz_full_w(const dz_state *s, const double *x, double *w) {
  int n = s->n, i = 0;
  while (i < n && x[i] == 0.0) i++;
  if (i == n) /* x = 0 (a cold start): w = b */
    memcpy(w, s->p->b, (size_t)n * sizeof *w);
  else
    slv_op_matvec(s->op, x, s->p->b, w);
}

static inline double slv_dz_aij(const dz_state *s, int i, int j) {
  return s->A[i + (size_t)j * s->lda];
}

static inline int slv_dz_slot_row(const dz_state *s, int slot) { return s->crow[slot]; }

/* A new factor pivot (Schur complement) of row r, with k rows clamped,
 * counts as zero below max(pivot_tol, 16 (k + 1) eps) A_rr: s = A_rr - y.v
 * cancels to rounding of about k eps A_rr when row r depends linearly on
 * the clamped rows.  Relative to A_rr, not to max|A_ii|: the test is then
 * the same on D A D for any positive diagonal D (rows scaled over many
 * decades: a row of small scale is not singular for being small). */
static inline double slv_dz_zero_of(const dz_state *s, double arr, int k) {
  double c = 16.0 * (k + 1) * DBL_EPSILON, a = fabs(arr);
  if (!(a > 0)) return s->ptol;
  return (c > s->prel ? c : s->prel) * a;
}
static inline double slv_dz_pivot_zero(const dz_state *s, double arr) {
  return slv_dz_zero_of(s, arr, s->k);
}

/* ---- dantzig_factor.c: A_CC = L D L^T ---------------------------------------- */

/* y <- L^-1 y (k entries). */
void slv_dz_fac_fsolve(const dz_state *s, double *y);
/* y <- L^-T y. */
void slv_dz_fac_bsolve(const dz_state *s, double *y);
/* y <- A_CC^-1 y with the factor (k = s->k entries). */
void slv_dz_fac_solve(const dz_state *s, double *y);
/* Append a row to the factor: L(k, 0:k) = l (= D^-1 L^-1 a), D(k) = dk. */
void slv_dz_fac_append(dz_state *s, const double *l, double dk);
/* Remove slot p (k -> k-1 rows); leaves pv in s->tmp, beta in s->beta. */
void slv_dz_fac_remove(dz_state *s, int p);
/* The driven row's y = L^-1 A(C, i) after slot p left (kold: the old k). */
void slv_dz_y_after_remove(const dz_state *s, double *y, int p, int kold);
/* The Cholesky factor in L (m x m) as L D L^T; the first zero pivot's slot, or m. */
int slv_dz_chol_to_ldl(dz_state *s, int m);
/* Factor A_SS for the rows cand[0..m), cut before a non-positive pivot; the new m. */
int slv_dz_block_factor(dz_state *s, int m);

/* ---- dantzig_drive.c: the pivots ----------------------------------------------- */

/* w_i = b_i + A(i,:) x. */
double slv_dz_row_w(const dz_state *s, int i, const double *x);
/* M = A(perm, perm) (the dense path). */
void slv_dz_build_M(dz_state *s);
/* Rounding level of w_i = b_i + A(i,:) x. */
double slv_dz_w_rounding(const dz_state *s, int i, const double *x);
/* Drive the row at position k + nN until it is valid. */
slv_status slv_dz_drive(dz_state *s, double *x, double *w, slv_result *res);

/* ---- dantzig_start.c: the start set of a pass ---------------------------------- */

/* C from the guess cand[0..m) at x (projected into the box): factored in
 * L, d, every row valid; w = A x + b on return (n >= DZ_BLOCK_MIN; below,
 * w is not touched).  Returns |C|; *stop: a poll's status, else 0. */
int slv_dz_start(dz_state *s, double *x, double *w, int m, slv_status *stop);

/* ---- dantzig_pass.c: one boxed pass -------------------------------------------- */

/* One step of iterative refinement on the final C. */
void slv_dz_refine(dz_state *s, double *x, double *w);
/* One boxed pass with the bounds s->lo / s->hi from the start set cand[0..m). */
slv_status slv_dz_boxed_pass(dz_state *s, double *x, double *w, int m, slv_result *res);
/* A boxed pass with friction bounds h, then the library's residual into *rr. */
slv_status slv_dz_pass_eval(dz_state *s, const double *h, double *x, double *w, int m,
                            slv_result *res, double *rr);
/* The current C as the start set of the next pass; its size. */
int slv_dz_clamped_as_cand(dz_state *s);

/* ---- dantzig_findex.c: the friction bounds ------------------------------------- */

/* The bounds of the boxed pass: the stored ones, friction rows -h_i .. h_i. */
void slv_dz_set_bounds(dz_state *s, const double *h);
/* h_i = mu_i |x_j| for the friction rows. */
void slv_dz_bounds_of(const slv_problem *p, const double *x, double *h);
/* The outer passes on the friction bounds from the first pass (x, residual r). */
slv_status slv_dz_findex_passes(dz_state *s, const slv_options *opt, double r, double *x, double *w,
                                slv_result *res);

/* ---- dantzig.c ------------------------------------------------------------------ */

/* Keep xref (residual rref) instead of x when it is better by the library residual. */
void slv_dz_keep_better(dz_state *s, double *x, double *w, const double *xref, double rref,
                        slv_result *res);

#endif /* LCPLAB_SLV_DANTZIG_H */
