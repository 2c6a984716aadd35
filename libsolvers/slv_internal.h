/* slv_internal.h -- private helpers of libsolvers; never installed.
 *
 * The workspace layout, the message helper and the bound helpers shared by
 * the generic layer (workspace.c, residual.c) and the solver files.
 */
#ifndef SLV_INTERNAL_H
#define SLV_INTERNAL_H

#include "slv.h"

#include <math.h>
#include <stdarg.h>

#define SLV_OPTIONS_MAGIC 0x51a7b0c5u

/* The generic workspace: the solver's private state follows the struct. */
struct slv_workspace {
  const slv_solver *solver;
  int n_max;
  double *w;          /* size n_max: used when the caller passes w = NULL */
  double *history;    /* size history_cap */
  int history_cap;
  void *state;        /* solver->state_size bytes, zeroed at creation */
};

/* snprintf into msg (if non-NULL); always NUL-terminated. */
void slv_msgf(char *msg, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A solver's internal detail, at SLV_LOG_DEBUG (slv.h, "logging"). */
void slv_logf(const slv_options *opt, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Stored bounds with the NULL defaults (lo = 0, hi = +inf). */
static inline double slv_lo_of(const slv_problem *p, int i) { return p->lo ? p->lo[i] : 0.0; }
static inline double slv_hi_of(const slv_problem *p, int i) { return p->hi ? p->hi[i] : INFINITY; }

/* Effective bounds of row i at x: findex rows get -mu_i |x_j| .. mu_i |x_j|. */
static inline void slv_bounds_at(const slv_problem *p, const double *x, int i, double *lo, double *hi) {
  if (p->findex && p->findex[i] >= 0) {
    double h = p->mu[i] * fabs(x[p->findex[i]]);
    *lo = -h;
    *hi = h;
  } else {
    *lo = slv_lo_of(p, i);
    *hi = slv_hi_of(p, i);
  }
}

/* |mid(x - hi, w, x - lo)| for finite x, w: the natural-map residual of one
 * box row (residual.c explains the form). */
static inline double slv_mid_res(double x, double w, double lo, double hi) {
  double c = x - lo, a = x - hi;
  double r = w < c ? w : c;
  r = r > a ? r : a;
  return fabs(r); /* not r < 0 ? -r : r: that compiled to a branch, mispredicted on every
                     other friction row */
}

/* Diagonal entry A(i,i) (dense, CSR: 0 if absent; factored). */
double slv_diag(const slv_problem *p, int i);

/* Row i of A times x (dense: strided access; CSR: one row; factored: needs
 * p->fwork = K^T x, as slv_factored_ktx leaves it). */
double slv_row_dot(const slv_problem *p, int i, const double *x);

/* Factored storage (slv.h): t = K^T x (size 6 nblk). */
void slv_factored_ktx(const slv_problem *p, const double *x, double *t);

/* The start test of pgs and pgs_wide on a factored problem without cones:
 * leaves t = K^T x in p->fwork and returns res_rel of (x, w = A x + b),
 * the number slv_problem_w + slv_residual give, bit for bit, in one pass
 * that stores no w (NaN if an x_i or w_i is not finite); *b_inf gets
 * max |b_i|. */
double slv_factored_start_res(const slv_problem *p, const double *x, double *b_inf);

/* Factored storage: (A x)_i = J_i . t + fd_i x_i, given t = K^T x.  The
 * sums are pairwise: in a sweep this dot product is on the dependency
 * chain from one row to the next, and a tree of additions shortens it
 * (-O2 does not reassociate a serial sum). */
static inline double slv_dot6(const double *a, const double *b) {
  return ((a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])) + (a[4] * b[4] + a[5] * b[5]);
}
/* J_i . t over the live slots, slot 0's six products plus slot 1's. */
static inline double slv_factored_dots(const slv_problem *p, int i, const double *t) {
  const double *J = p->fJ + 12 * (size_t)i;
  int b0 = p->fblk[2 * i], b1 = p->fblk[2 * i + 1];
  double s0 = b0 >= 0 ? slv_dot6(J, t + 6 * (size_t)b0) : 0.0;
  double s1 = b1 >= 0 ? slv_dot6(J + 6, t + 6 * (size_t)b1) : 0.0;
  return s0 + s1;
}
static inline double slv_factored_row(const slv_problem *p, int i, const double *t, double xi) {
  return (p->fd ? p->fd[i] * xi : 0.0) + slv_factored_dots(p, i, t);
}
/* pgs's step on row i: x_i - w_i omega / A(i,i), with omega / A(i,i)
 * formed once per solve as omega * (1 / A(i,i)); pgs and pgs_wide share
 * it (their iterates agree bit for bit). */
static inline double slv_pgs_step(double omega, double aii) { return omega * (1.0 / aii); }
/* pgs's move on a factored row, shared with pgs_wide: x_i goes down by
 * e = mid(x_i - hi, w_i step, x_i - lo) (x_i - e is mid(lo, hi, x_i - w_i
 * step) up to rounding), t by e K_i; *xn = mid(lo, hi, x_i - e), inside
 * the bounds whatever the rounding.  Clamping e instead of x_i - w_i step
 * keeps two subtractions off the chain from w_i to the t update (x_i - lo
 * and x_i - hi do not wait for w_i).  Returns e; 0 means no move. */
static inline double slv_pgs_move(double xi, double wi, double step, double lo, double hi,
                                  double *xn) {
  double e = wi * step, up = xi - lo, down = xi - hi;
  e = e > up ? up : e;
  e = e < down ? down : e;
  double y = xi - e;
  *xn = y < lo ? lo : (y > hi ? hi : y);
  return e;
}
/* Factored storage: A(i,i) = fd_i + sum over the live slots of J . K (the
 * two slots are different blocks, validated); slv_diag's factored case,
 * inline for the solvers that take it once per row and solve, summed
 * pairwise as slv_factored_row (a serial sum of 12 products was a chain
 * of 12 dependent additions per row). */
static inline double slv_factored_diag(const slv_problem *p, int i) {
  const double *J = p->fJ + 12 * (size_t)i, *K = p->fK + 12 * (size_t)i;
  double s0 = p->fblk[2 * i] >= 0 ? slv_dot6(J, K) : 0.0;
  double s1 = p->fblk[2 * i + 1] >= 0 ? slv_dot6(J + 6, K + 6) : 0.0;
  return (p->fd ? p->fd[i] : 0.0) + (s0 + s1);
}

/* The history helper: appends v if there is room. */
static inline void slv_history_push(slv_result *res, double *buf, int cap, double v) {
  if (buf && res->history_len < cap) buf[res->history_len++] = v;
}

/* Is A symmetric to rtol * max|A_ij|?  If not, (*i, *j) is the first
 * offending pair (problem.c). */
int slv_is_symmetric(const slv_problem *p, double rtol, int *i, int *j);

/* Pivot limit of opt for size n: opt->max_pivots, or max(1000, 50 n). */
static inline int slv_pivot_limit(const slv_options *opt, int n) {
  if (opt->max_pivots > 0) return opt->max_pivots;
  return n > 20 ? 50 * n : 1000;
}

/* Pack the nonzeros of a dense A by columns (compressed sparse columns:
 * colptr[n+1], rowind / val of capacity cap) if there are at most cap of
 * them; returns 1 if packed, 0 (buffers unspecified) if not.  The count
 * stops as soon as cap is passed, so a full matrix costs a fraction of a
 * pass.  Used by the solvers whose sweeps update w by columns (problem.c). */
int slv_pack_columns(const slv_problem *p, size_t cap, int *colptr, int *rowind, double *val);

/* lambda_max of D^-1/2 A D^-1/2 (D = diag(1 / invd)) by `iters` steps of
 * the power iteration from the normalised ones vector, with Av(ctx, v, y)
 * computing y = A v; v, u: workspace of size n.  Returns the last finite
 * estimate (1 if none).  The damping of the Jacobi solvers (problem.c). */
double slv_power_lambda(int n, const double *invd, int iters,
                        void (*Av)(void *ctx, const double *v, double *y), void *ctx, double *v,
                        double *u);

/* The natural map of slv_residual (cones by p->cone_law) from a w the
 * solver maintains, in O(n) and without libm's hypot (once per sweep in
 * nsgs, where hypot was half the sweep): returns ||r||_inf and sets *n2 =
 * ||r||_2; NaN if x or w is not finite (residual.c). */
double slv_natmap_norms(const slv_problem *p, const double *x, const double *w, double *n2);

/* Is x[0..n) all finite? */
int slv_all_finite(int n, const double *x);

/* Projection of v (n, t1, t2) onto the Coulomb cone K_mu (cone.c); out may
 * alias v. */
void slv_cone_project(double mu, const double *v, double *out);

/* ContactBench's criteria (slv.h, slv_contact_metrics; metrics.c): all NaN
 * (no cones, or a non-finite x or w), all 0 (before the first cone), and
 * the running maxima updated with one cone of coefficient mu, impulse
 * l = x_c and velocity v = w_c (3 values each, normal first). */
slv_contact_metrics slv_contact_metrics_nan(void);
slv_contact_metrics slv_contact_metrics_zero(void);
void slv_contact_metrics_add(slv_contact_metrics *m, double mu, const double *l, const double *v);

/* The library's convergence test (slv.h, slv_options.tol and .norm) on
 * measures a solver has at hand: res_inf = ||r||_inf, rel = res_inf /
 * max(1, ||b||_inf), rel2 = ||r||_2 / max(1, ||b||_2). */
static inline int slv_met_norms(const slv_problem *p, const slv_options *opt, double res_inf,
                                double rel, double rel2) {
  return rel <= opt->tol && (p->ncones == 0 || res_inf <= opt->tol) &&
         (opt->norm != SLV_NORM_2 || rel2 <= opt->tol);
}
static inline int slv_met(const slv_problem *p, const slv_options *opt, const slv_residuals *r) {
  return slv_met_norms(p, opt, r->res_nat_inf, r->res_rel, r->res_rel_2);
}

/* The nonsmooth Newton core of nsn_ac.c (Alart-Curnier, dense LU), shared
 * with the nsgs_newton hybrid.  All buffers are allocated by slv_nsn_init
 * for n <= n_max (n_max^2 doubles for the Newton matrix). */
typedef struct slv_nsn {
  int n_max;
  double *H;     /* Newton matrix, then its LU, n_max^2 */
  int *ipiv;     /* n_max */
  double *buf;   /* 16 n_max doubles, cut into the vectors below */
  double *phi, *phit, *d, *Ad, *xt, *wt, *xbest, *wbest, *rho, *v;
  double *ar, *bu; /* 3 per row: Jacobian rows dPhi/dx|_w, dPhi/dw|_x over the row's block */
  int *blk0, *bw;  /* per row: first column and width (3 cone, 1 box) of its block */
  int *act, *pos;  /* rows kept in the Newton system, and row -> index in act (or -1) */
} slv_nsn;
slv_status slv_nsn_init(slv_nsn *s, int n_max);
void slv_nsn_free(slv_nsn *s);
/* Up to max_it Newton iterations from x, with w = A x + b on entry; on
 * return w = A x + b again.  Adds the iterations done to *iters, pushes
 * res_rel per iteration into res's history and sets res->solver_residual;
 * SLV_CONVERGED (the library's test, confirmed on an exact w) or, with x the
 * best iterate seen, SLV_MAX_ITER / SLV_STAGNATED / SLV_BREAKDOWN /
 * SLV_NOT_FINITE (message in res). */
slv_status slv_nsn_run(slv_nsn *s, const slv_problem *p, const slv_options *opt, int max_it,
                       double *x, double *w, slv_result *res, int *iters);

#endif /* SLV_INTERNAL_H */
