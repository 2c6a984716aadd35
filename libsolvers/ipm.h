/* ipm.h -- private to the interior point (ipm.c, ipm_newton.c): its
 * constants, its state, the second-order cone's algebra both files use,
 * and the one predictor-corrector iteration ipm.c drives.
 *
 * ipm.c holds the solve: the starts, one QP's interior-point loop and its
 * polish, the De Saxce fixed point, the stopping rules and the verdict;
 * ipm_newton.c the Newton matrix (its pattern, values and factorization),
 * the directions and the step (docs/cone-solvers.md, "Interior point").
 */
#ifndef SLV_IPM_H
#define SLV_IPM_H

#include "cone_qp.h"
#include "linsys.h"

#include <float.h>

enum {
  IPM_MAX_RUN = 80,        /* interior-point iterations of one QP solve at most */
  IPM_POLISH_SWEEPS = 300, /* nsgs sweeps of the polish */
  IPM_OUTER_STALL = 6,     /* Coulomb: outer iterations without a 1 % gain */
  IPM_STALL_RUN = 5,       /* one QP: iterations without halving its residual... */
  IPM_STALL_FROM = 20,     /* ... counted from this iteration on (the first steps reduce rd, mu) */
  IPM_FLOOR_STALL = 2,     /* outer iterations without halving the measure below IPM_FLOOR */
  IPM_REG_TRIES = 4        /* regularizations of a failed factorization */
};
#define IPM_STEP_FRACTION 0.99  /* of the step to the boundary */
#define IPM_FREE_REG      1e-10 /* x max |A_ii|: a free row's diagonal regularization */
#define IPM_WARM_ABOVE    10.0  /* QPs start warm while the test's measure is above this x tol */
#define IPM_WARM_PUSH     1e-3  /* a warm QP start: how far into the cones, in xs, ws units */
/* The accuracy floor of the test's measure: res_scaled is a ratio of
 * rounded sums (w_i against the size of its terms), so below about 1e3
 * eps its changes from one iterate to the next are rounding, not progress
 * (the 30-layer pyramid's global export under a tightened tol wandered
 * between 1.3e-14 and 3.4e-14 for 17 outer iterations: docs/cone-solvers.md,
 * "Interior point", "Near the accuracy floor"). */
#define IPM_FLOOR (1e3 * DBL_EPSILON)

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
  double free_reg;   /* IPM_FREE_REG x max |A_ii| (x ws / xs if A's diagonal is 0) */
  double adiag;      /* max |A_ii|, set by slv_ipm_pattern_reserve */
  double xs, ws;     /* the problem's own units of x and w (ipm.c, set_units): the
                        centre of the cones and boxes, the warm start's push */
  int polish_sweeps; /* in this solve */
  int ncone;         /* cones with mu > 0 in this problem */
  slv_rowscale rq;   /* the current QP's (solve_qp): its measure in O(n) */
  int qp_done;       /* a QP of this solve has been solved (its answer: the next one's start) */
  int warm_retries;  /* warm QP starts that failed (breakdown, not finite), redone cold */
} ipm_state;

/* The cone's hat variables: xh = D x, wh = D^-1 w, D = diag(mu, 1, 1). */
static inline void slv_ipm_to_hat(double mu, const double *x, const double *w, double *xh,
                                  double *wh) {
  xh[0] = mu * x[0], xh[1] = x[1], xh[2] = x[2];
  wh[0] = w[0] / mu, wh[1] = w[1], wh[2] = w[2];
}

/* ---- ipm_newton.c ------------------------------------------------------------------ */

/* The row kinds of this problem (s->kind) and each cone's index
 * (s->cone_of), s->ncone. */
void slv_ipm_classify_rows(ipm_state *s);

/* The pattern of A's upper triangle plus the diagonal blocks (every entry
 * for the LU of a nonsymmetric A), A's values, the block positions, the
 * factorization's analysis.  Once per solve.  0, or -1 (no memory). */
int slv_ipm_pattern_reserve(ipm_state *s, const slv_op *op);

/* The complementarity of the iterate moved by t along (dx, dw, dz1, dz2)
 * (dx NULL: of the iterate itself): sum of the pairs' products, and the
 * number of pairs into *deg. */
double slv_ipm_gap(const ipm_state *s, double t, const double *dx, const double *dw,
                   const double *dz1, const double *dz2, int *deg);

/* One Mehrotra predictor-corrector iteration from the current (x, w, z)
 * at complementarity mu: 0, or SLV_BREAKDOWN (the factorization),
 * SLV_ERR_NOMEM, SLV_NOT_FINITE.  *step gets the step length taken. */
slv_status slv_ipm_iterate(ipm_state *s, double mu, double *step);

#endif /* SLV_IPM_H */
