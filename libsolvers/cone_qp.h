/* cone_qp.h -- private: the convex QP on Coulomb cones and boxes, and the
 * De Saxce fixed point around it, shared by pcg_cone.c (MPGP) and apgd.c.
 * Never installed.
 *
 * The QP (associated cone, Anitescu/Tasora CCP; slv.h SLV_CONE_ASSOCIATED):
 *
 *     minimize  f(x) = 1/2 x'Ax + bq'x   over x in Omega,
 *     Omega = prod over cones c of K_mu(c)  x  prod over the other rows of [lo_i, hi_i]
 *
 * with A symmetric positive semidefinite and bq = b + s, s the De Saxce shift
 * (below).  Its gradient is g = A x + bq; x solves it iff the natural map
 * x - P_Omega(x - g) vanishes (the KKT conditions: K_mu ∋ x_c ⊥ g_c ∈ K*).
 *
 * Omega is stored as blocks: a cone block (3 rows, mu > 0) or a scalar row
 * with bounds [lo, hi] (lo = -inf, hi = +inf for a free row).  A cone with
 * mu = 0 is the ray { x_t = 0, x_n >= 0 }, which has no interior: it is
 * stored as three scalar rows, [0, inf), [0, 0], [0, 0] (the same set, and
 * the same projection as slv_cone_project(0, .)).
 *
 * Coulomb's law (De Saxce; slv.h SLV_CONE_COULOMB) is the QP with the shift
 * s_c = (mu_c |w_t,c|, 0, 0) taken at the solution: with s fixed the QP's
 * natural map at x is exactly the De Saxce natural map once s = mu |w_t(x)|.
 * slv_cqp_drive runs the fixed point on s (Acary, Cadoux, Lemarechal, Malick
 * 2011, [acary2011]; Siconos' ACLMFP): solve the QP with s fixed
 * (warm-started, inexactly), update s from the new w, repeat until the
 * library's De Saxce residual meets tol.  For the associated law (or a
 * problem without cones) s = 0 and one QP solve suffices.
 */
#ifndef CONE_QP_H
#define CONE_QP_H

#include "slv_internal.h"

typedef struct slv_cqp {
  int n_max;
  /* Omega as blocks, built by slv_cqp_setup from the problem */
  int nblk;
  int *blk_row;    /* size n_max: first row of block k */
  double *blk_mu;  /* size n_max: mu > 0: a cone of 3 rows; < 0: a scalar row */
  double *lo, *hi; /* size n_max: bounds of the scalar rows (indexed by row), in the
                      inner solver's variables (scaled by 1 / sc under CQP_SCALE) */
  /* CQP_SCALE (slv_cqp_drive): the inner solver works on z = x / sc, the QP
   * min 1/2 z'(S A S)z + (S bq)'z, S = diag(sc), sc = D^-1/2 (slv_cqp_metric):
   * the same QP in the metric D, Omega's cones unchanged (sc is one value
   * per cone), the boxes divided by sc.  The products, bq, the bounds and
   * ||A|| (lam) are the scaled problem's; natres and lawres convert back and
   * measure the problem's own natural map, so tol_in keeps its meaning. */
  int scaled;
  double *sc;        /* size n_max: the scaling, 1 when not scaled */
  double *olo, *ohi; /* size n_max: the problem's own bounds of the scalar rows */
  double *s1, *s2;   /* size n_max: scratch of the conversions */
  /* the QP's linear term and the shift */
  double *bq;          /* size n_max: b + shift */
  double *shift;       /* size n_max: mu |w_t| on the normal rows of cones, 0 elsewhere */
  int coulomb;         /* 1: the problem's law is Coulomb (De Saxce) and it has cones */
  double lam;          /* estimate of ||A||_2 (power iteration), set by slv_cqp_setup */
  double hist_scale;   /* history value per unit of the QP's natural map: 1 / max(1,
                          ||b||_inf) first, then res_scaled / (the law's map with the step
                          gam) at the last outer iterate (slv_cqp_drive) */
  double gam;          /* the natural maps' step: x - P(x - gam g) (slv_cqp_natres) */
  double *tmp1, *tmp2; /* size n_max: scratch of setup (power iteration) */
  double poll_work;    /* an inner iteration's work for slv_should_stop: A's stored entries */
  const slv_problem *p;
  slv_op *op; /* the solve's operator: the products with A */
} slv_cqp;

/* Allocate for problems of up to n_max rows (the only allocating function). */
slv_status slv_cqp_alloc(slv_cqp *q, int n_max);
/* Release; accepts a zeroed or partially allocated q. */
void slv_cqp_free(slv_cqp *q);

/* slv_cqp_setup's and slv_cqp_drive's flags. */
enum {
  CQP_NORM = 1, /* estimate ||A|| (of the scaled problem under CQP_SCALE) */
  CQP_SCALE = 2 /* the inner solver sees the problem scaled by D^-1/2 (above) */
};

/* Build the blocks of Omega from op->p, form the operator's packed copy,
 * set bq = b, shift = 0, (CQP_SCALE) the scaling, and (CQP_NORM) estimate
 * ||A|| by power iteration (seed opt->seed) into q->lam (else q->lam = 1). */
void slv_cqp_setup(slv_cqp *q, slv_op *op, const slv_options *opt, int flags);

/* The diagonal metric D of the cone QP: slv_op_metric (operator.h) of the
 * solve's operator (its cones with mu > 0 are this QP's cone blocks). */
void slv_cqp_metric(const slv_cqp *q, double *dg);

/* y = A v (slv_op_matvec: the packed copy, else dgemv or the CSR rows;
 * under CQP_SCALE y = S A S v); y must not alias v. */
void slv_cqp_matvec(const slv_cqp *q, const double *v, double *y);

/* x <- P_Omega(x), in place. */
void slv_cqp_project(const slv_cqp *q, double *x);

/* ||x - P_Omega(x - gam g)||_inf, the QP's natural map at x for the
 * gradient g with the step gam = q->gam (NaN if x or g is not finite).
 * gam is 1 after slv_cqp_setup; slv_cqp_drive sets it to the data's own
 * ratio of impulses to velocities (cone_qp.c, set_step), so that x and
 * gam g are of one size at any scaling of the problem. */
double slv_cqp_natres(const slv_cqp *q, const double *x, const double *g);

/* The natural map of the problem's own law at x, from the QP gradient
 * g = A x + bq: w = g - shift; Coulomb: w^ = w + (mu |w_t|, 0, 0) per cone;
 * returns ||x - P_Omega(x - gam w^)||_inf (NaN if not finite): with gam = 1
 * what slv_residual reports as res_nat_inf, computed in O(n) from a g the
 * solver keeps up to date (so it carries the solver's rounding drift). */
double slv_cqp_lawres(const slv_cqp *q, const double *x, const double *g);

/* Largest t >= 0 with x - s d in Omega for every s in [0, t], for x in
 * Omega (+inf if there is no limit).  face = 1: d moves every cone block
 * that is on its boundary along its own ray (the MPGP free directions of
 * pcg_cone.c), so such a block is limited only by the apex; face = 0: any
 * d (each cone block by the roots of a quadratic).  *blocking (if
 * non-NULL) gets the block that sets the limit, or -1; *to_apex (if
 * non-NULL) whether that block reaches the apex along its ray. */
double slv_cqp_feasible_step(const slv_cqp *q, const double *x, const double *d, int face,
                             int *blocking, int *to_apex);

/* Put block k (from slv_cqp_feasible_step, after the step) exactly on the
 * boundary it reached: a scalar row on its nearer bound, a cone on
 * |x_t| = mu x_n, or on the apex if to_apex.  k < 0: nothing. */
void slv_cqp_snap(const slv_cqp *q, double *x, int k, int to_apex);

/* Is the cone block x (3 values) in the interior of K_mu, mu > 0, with a
 * relative margin of 1e-12 (cone_qp.c explains it)? */
int slv_cqp_cone_free(double mu, const double *x);

/* The inner QP solver called by slv_cqp_drive.  It must: start from x (in
 * Omega), solve min 1/2 x'Ax + q->bq'x over Omega until
 * slv_cqp_natres(q, x, A x + bq) <= tol_in on an exactly recomputed
 * gradient (return SLV_CONVERGED), or until budget iterations are spent
 * (SLV_MAX_ITER), or a non-finite value appears (SLV_NOT_FINITE); add its
 * iterations to *iters and push one history value per iteration into h
 * (slv_cqp_lawres / max(1, ||b||_inf) when the history is recorded:
 * h->cap > 0). */
typedef slv_status (*slv_cqp_inner_fn)(void *state, slv_cqp *q, const slv_options *opt,
                                       double tol_in, int budget, double *x, slv_result *res,
                                       slv_hist *h, int *iters);

/* The solve shared by the cone QP solvers: setup (slv_cqp_setup, flags
 * passed on; under CQP_SCALE x is divided by sc for the inner solve and
 * multiplied back after it), project x on Omega, then the outer loop described at the top
 * of this file, with inner(state, ...) for the QP solves.  Coulomb's law:
 * each QP is solved to max(tol / 2, inner_factor * r), r the De Saxce
 * residual when it starts (the solver's choice, measured: see its file).  max_iter counts inner iterations in
 * total.  Sets res->iterations (inner iterations), solver_residual, message
 * (the law solved and the outer iteration count, also on success).  w: size
 * n, out (A x + b at the returned x).
 * Statuses: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE, SLV_STAGNATED (the
 * outer loop made no 1 % progress in CQP_STALL outer iterations). */
/* Outer iterations without a 1 % gain on the best residual before the
 * fixed point is declared stalled. */
enum { CQP_STALL = 25 };
slv_status slv_cqp_drive(slv_cqp *q, slv_op *op, const slv_options *opt, const char *name,
                         int flags, double inner_factor, slv_cqp_inner_fn inner, void *state,
                         double *x, double *w, slv_result *res, slv_hist *h);

#endif /* CONE_QP_H */
