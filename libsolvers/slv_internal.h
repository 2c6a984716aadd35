/* slv_internal.h -- private helpers of libsolvers; never installed.
 *
 * What a solver is (slv_impl: its state, init, free and solve), what
 * slv_solve hands it (the operator of operator.h, the history recorder),
 * the workspace layout, and the message, bound and residual helpers shared
 * by the generic layer (workspace.c, residual.c) and the solver files.
 */
#ifndef SLV_INTERNAL_H
#define SLV_INTERNAL_H

#include "cone.h"
#include "linsys.h"
#include "operator.h"
#include "slv.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#define SLV_OPTIONS_MAGIC 0x51a7b0c5u

/* The defaults of slv_options_default() (options.c) that the solvers'
 * params lines (slv.h) quote, and the text of a macro's value for those
 * lines: a line built with SLV_STR(NAME) reads the constant the code uses. */
#define SLV_DEFAULT_MAX_ITER    1000
#define SLV_DEFAULT_TOL         1e-8
#define SLV_DEFAULT_OMEGA       1
#define SLV_DEFAULT_PROX_SIGMA  0.05 /* ppa_nsn (slv.h) */
#define SLV_DEFAULT_PROX_GROW   10.0
#define SLV_DEFAULT_PROX_INNER  20
#define SLV_DEFAULT_PIVOT_TOL   1e-13
#define SLV_DEFAULT_CHECK_EVERY 20
#define SLV_STR_(x)             #x
#define SLV_STR(x)              SLV_STR_(x)

/* The history of one solve: res_rel and the seconds since t0 per entry,
 * into the workspace's buffers (cap 0: not recorded). */
typedef struct slv_hist {
  double *val, *time;
  int cap;
  struct timespec t0;
} slv_hist;

/* Appends v and its time stamp if there is room. */
void slv_history_push(slv_hist *h, slv_result *res, double v);

/* The stop conditions of one solve (slv.h, "stopping a solve"): the
 * clock is read and the cancel callback called only on a slow poll, the
 * first of the solve and then one per `every` units of work (multiply-adds,
 * roughly), so that a poll costs an addition and a comparison between
 * them.  Once a reason to stop is seen it stays (every = 0). */
typedef struct slv_poll {
  double work;  /* work since the last slow poll */
  double every; /* SLV_POLL_WORK; INFINITY when there is nothing to poll */
  int timed;    /* a deadline is set */
  struct timespec deadline;
  slv_cancel_fn cancel;
  void *cancel_ctx;
  slv_status stop; /* 0, SLV_TIME_LIMIT or SLV_INTERRUPTED */
} slv_poll;

/* Set q from opt, the deadline from t0 (the start of the solve). */
void slv_poll_begin(slv_poll *q, const slv_options *opt, const struct timespec *t0);
/* The slow poll: the clock and the callback; returns q->stop. */
slv_status slv_poll_slow(slv_poll *q);

/* A share f of the time left for the next stretch (the deadline moved,
 * the whole one into *whole; 0: no deadline, nothing changed), and back
 * to the whole deadline, a stop the share made lifted (status.c). */
int slv_poll_share(slv_poll *q, double f, struct timespec *whole);
void slv_poll_unshare(slv_poll *q, const struct timespec *whole);

/* A solver's poll after `work` multiply-adds since its previous one: 0 to
 * go on, else SLV_TIME_LIMIT or SLV_INTERRUPTED, which the solver returns
 * as it returns SLV_MAX_ITER (its best or last iterate, as its header
 * says).  Polls in inner loops pass the work of their stretch. */
static inline slv_status slv_should_stop(slv_op *op, double work) {
  slv_poll *q = op->poll;
  if (!q) return SLV_CONVERGED;
  q->work += work;
  return q->work < q->every ? SLV_CONVERGED : slv_poll_slow(q);
}
/* What a poll of this solve has seen: 0, or the status to end it with (for
 * the drivers of inner loops that end as on their own limits). */
static inline slv_status slv_stopped(const slv_op *op) { return op->poll ? op->poll->stop : 0; }

/* A solver's functions (slv.h's descriptor points to one).
 *   init:  allocate everything the solver needs for problems up to n_max
 *          (SLV_OK, SLV_ERR_NOMEM);
 *   free:  release; must accept a zeroed or partially initialised state;
 *   solve: solve the validated problem op->p (read A only through op).
 *          x: in/out (the start point); w: out, size n.  Sets
 *          res->status, iterations, pivots, solver_residual, message, and
 *          pushes its history into h; the generic layer fills res->res
 *          afterwards.  Never allocates. */
typedef struct slv_impl {
  size_t state_size;
  slv_status (*init)(void *state, int n_max, const slv_options *opt);
  void (*free)(void *state);
  slv_status (*solve)(void *state, slv_op *op, const slv_options *opt, double *x, double *w,
                      slv_result *res, slv_hist *h);
  /* 1: the solve asks slv_op_is_symmetric of all of a dense A (lemke's
   * crash); slv_solve then reads A once for it, the validation and the
   * digest (slv_scan_dense), as for SLV_CAP_NEEDS_SYMMETRIC */
  int asks_symmetry;
  /* a registered solver's def (register.c), NULL for a built-in one:
   * slv_workspace_new binds the state to it (slv_registered_bind) before
   * init */
  const slv_solver_def *def;
} slv_impl;

/* digest.c: the digest of every array a solve reads (docs/convergence.md,
 * "A solver that writes its input"), one hash per part. */
enum {
  SLV_DIGEST_A,
  SLV_DIGEST_AP,
  SLV_DIGEST_AJ,
  SLV_DIGEST_AX,
  SLV_DIGEST_FBLK,
  SLV_DIGEST_FJ,
  SLV_DIGEST_FK,
  SLV_DIGEST_FD,
  SLV_DIGEST_B,
  SLV_DIGEST_LO,
  SLV_DIGEST_HI,
  SLV_DIGEST_FINDEX,
  SLV_DIGEST_MU,
  SLV_DIGEST_CONE_ROWS,
  SLV_DIGEST_CONE_MU,
  SLV_DIGEST_PARTS
};
typedef struct slv_digest {
  slv_problem p; /* the problem's sizes and pointers when taken */
  size_t nnz;    /* CSR: Ap[n] when taken */
  uint64_t h[SLV_DIGEST_PARTS];
  uint64_t a2; /* a dense A's digest is 128 bits (scan.c): h[SLV_DIGEST_A] and this */
} slv_digest;
/* d of p (one pass over p's arrays; no allocation). */
void slv_digest_take(const slv_problem *p, slv_digest *d);
typedef struct slv_scan slv_scan;
/* The same, A's part from sc where sc is the scan of p's A (scan.c). */
void slv_digest_take_scan(const slv_problem *p, const slv_scan *sc, slv_digest *d);
/* -1 when p's arrays (at the sizes and pointers of d) still have d's
 * digest and p's fields are d's; else the first part that differs
 * (SLV_DIGEST_PARTS: p's sizes or pointers). */
int slv_digest_changed(const slv_digest *d, const slv_problem *p);
/* The part's name for messages ("b", "Ax (A's CSR values)", ...). */
const char *slv_digest_part_name(int k);

/* scan.c: one pass over a dense A (n x n, leading dimension lda):
 * finite, 1 when every entry is finite (0: one is not, or an entry's
 * difference with its mirror overflowed: the validation looks again);
 * amax = max |A_ij|, dmax = max |A_ij - A_ji| (exact in any order); nnz,
 * the entries != 0 (exact; slv_op_pack's count); hash,
 * the digest of A, 128 bits (digest.c's part SLV_DIGEST_A,
 * slv_digest_dense's bits).  buf: SLV_SCAN_T^2 doubles of scratch (the mirror of a tile,
 * copied: faster from memory), or NULL (the same answers).  No
 * allocation. */
#define SLV_SCAN_T 128
struct slv_scan {
  const double *A; /* the A scanned, its n and lda */
  int n, lda;
  int finite;
  double amax, dmax;
  uint64_t hash[2];
  size_t nnz; /* entries != 0 (the packing gives up past its cap without a pass) */
};
/* Is sc the scan of p's dense A (the same A, n and lda)? */
int slv_scan_of(const slv_scan *sc, const slv_problem *p);
void slv_scan_dense(const double *A, int n, int lda, double *buf, slv_scan *s);
/* The scan's maxima alone, without scratch (slv_is_symmetric's dense
 * test). */
void slv_dense_sym_maxima(const double *A, int n, int lda, double *amax, double *dmax);
/* slv_is_symmetric's answer at rtol from the scan's maxima: dmax <= rtol
 * amax. */
int slv_scan_symmetric(const slv_scan *s, double rtol);
/* The digest of a dense A alone, column by column, into h: slv_scan_dense's
 * hash (scan.c: the sums mod 2^64 of the two words of the term of the
 * block (i + j n, A(i, j), A(i + 1, j)) over i even (A(n, j) = 0), folded
 * by slv_digest_fold with n; the term the CPU's, AES's or
 * slv_digest_term's). */
void slv_digest_dense(const double *A, int n, int lda, uint64_t h[2]);
/* The term of the block of two words v0, v1 at places e, e + 1 into t
 * where the CPU has no AES: slv_fin(v0 ^ e K2), slv_fin(v1 ^ (e + 1) K2);
 * with AES, four rounds of AES on (v0 ^ e K2, v1 ^ (e + 1) K2) (scan.c). */
void slv_digest_term(uint64_t e, uint64_t v0, uint64_t v1, uint64_t t[2]);
/* The CPU's kind (scan.c): 2 AVX2 and VAES, 1 AVX2 and AES-NI, 0 neither
 * (the term slv_digest_term's); and the scan and the digest as a CPU of
 * kind (lower than the CPU's; -1 the CPU's) takes them, for the tests. */
int slv_digest_kind(void);
void slv_scan_dense_kind(const double *A, int n, int lda, double *buf, int kind, slv_scan *s);
void slv_digest_dense_kind(const double *A, int n, int lda, int kind, uint64_t h[2]);
void slv_digest_fold(const uint64_t sum[2], int n, uint64_t h[2]);

/* register.c: the state of a registered solver's workspace starts with its
 * def; called on the zeroed state before impl->init. */
void slv_registered_bind(void *state, const slv_solver_def *def);
/* register.c: the registered solvers, in the order registered (the
 * table's count read under its lock). */
int slv_registered_count(void);
/* registry.c: the built-in solvers alone. */
int slv_solver_count_builtin(void);
const slv_solver *slv_solver_builtin_at(int i);
const slv_solver *slv_registered_at(int i);

/* The generic workspace: the solver's private state follows the struct. */
struct slv_workspace {
  const slv_solver *solver;
  int n_max;
  double *w;            /* size n_max: used when the caller passes w = NULL */
  double *history;      /* size history_cap */
  double *history_time; /* size history_cap */
  int history_cap;
  slv_op_buf op; /* the operator's buffers */
  double *xbest; /* size n_max: the best iterate of a condensed problem's runs (workspace.c) */
  double *xstart, *wstart; /* size n_max each: the start of a solve that a time limit or a
                              cancel callback may stop, and its w (workspace.c, keep_start) */
  void *state;             /* solver->impl->state_size bytes, zeroed at creation */
  double floor;            /* the test's physical floor (slv_workspace_set_floor), 0: none */
  double *dense;           /* n_max x n_max: a CSR problem copied for a SLV_CAP_DENSIFY
                              solver (workspace.c; NULL past SLV_DENSIFY_MAX_BYTES) */
  double *scan_buf;        /* SLV_SCAN_T^2: the first pass's scratch (slv_scan_dense), for a solver
                       that tests all of A's symmetry and n_max >= 2 SLV_SCAN_T, else NULL */
  slv_scan scan;           /* that pass's answers for the solve under way */
  /* the last solve's K^T x (slv_workspace_ktx): its factored problem, NULL
   * when op.t does not hold K^T x of the x returned in p's block numbers,
   * and that x (size n_max) */
  const slv_problem *kt_p;
  slv_problem kt_view; /* *kt_p as that solve saw it: a p changed since gets no t */
  double *xkt;
};

/* snprintf into msg (if non-NULL); always NUL-terminated. */
/* The rows of a problem split at an answer x (docs/problem.md, "Rows
 * condensed at an answer"): cls[i] 'K' when keep[i], else 'E' when
 * lo_i < x_i < hi_i (eliminated), else 'B' (held at a bound); *nk and *ne
 * count K and E.  condense_rows.c; condense_global.c uses the same split. */
void slv_rows_classify(int n, const double *lo, const double *hi, const double *x,
                       const unsigned char *keep, char *cls, int *nk, int *ne);

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
static inline void slv_bounds_at(const slv_problem *p, const double *x, int i, double *lo,
                                 double *hi) {
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

/* ---- the scale-invariant convergence measure (docs/convergence.md) ------
 * Each row's (or cone's) natural map on normalised quantities: the x part
 * over xs = ||x||_inf, the w part over the row's own scale
 * s_i = |b_i| + |(A x)_i| + r_i, r_i its reaction to its own impulse
 * (slv_reaction; a cone: the 2-norms of its b and A x blocks, its rows'
 * largest r).  A positive multiple of the problem, of a row, of a findex
 * group or of a contact leaves it unchanged; it is 0 exactly where the
 * natural map is. */

/* a / s with 0 / 0 = 0 (x = 0 or w = 0 exactly: nothing to normalise) */
static inline double slv_quot(double a, double s) { return a == 0.0 ? 0.0 : a / s; }

/* The two impulse scales of the measure: xs = ||x||_inf, the x side's,
 * and xd, the data's own: the largest impulse a row or cone would take
 * alone from x = 0 (-b_i / A_ii clipped to its bounds; a cone P_K(-b_c /
 * a_c)), unchanged by the scalings the test ignores (residual.c). */
typedef struct {
  double xs, xd;
  const double *a; /* each row's size (slv_rowscale), NULL: found row by row */
  double cap;      /* min(xs, xd), the reaction's factor (set with xs and xd) */
} slv_xscale;

/* The physical floor xf >= 0 (slv_workspace_set_floor; docs/convergence.md,
 * "A physical floor") on the two scales: xs at least xf, the reaction's
 * factor cap at least xf.  xf = 0 leaves both as they are, bit for bit (a
 * NaN xs stays NaN). */
static inline void slv_xscale_floor(double *xs, double *cap, double xf) {
  if (*xs < xf) *xs = xf;
  if (*cap < xf) *cap = xf;
}
slv_xscale slv_xscale_of(const slv_problem *p, const double *x);
/* The same with the floor xf (slv_xscale_floor). */
slv_xscale slv_xscale_floored(const slv_problem *p, const double *x, double xf);
/* The same from the problem's row scales rs (slv_op_rowscale: xd and each
 * row's size found once a problem, not at each call), x of n rows. */
slv_xscale slv_xscale_rows(const slv_rowscale *rs, int n, const double *x, double xf);
/* Cone k's scale-invariant residual at x, w (the judge's measure of one
 * cone, residual.c), sc from slv_xscale_of(p, x): the same whatever A's,
 * b's and x's units. */
double slv_cone_scaled_residual(const slv_problem *p, int k, const double *x, const double *w,
                                const slv_xscale *sc);

/* slv_rowscale (operator.h) of p into a (n), and xd alone. */
void slv_rowscale_fill(const slv_problem *p, double *a, slv_rowscale *rs);
double slv_rowscale_xd(const slv_problem *p);
/* One row's own answer from 0, alone, by its size (xd is the largest): -b /
 * d with d = A_ii != 0, clipped to [lo, hi], a findex row's unclipped (its
 * bounds are x's); residual.c, and pgs_wide's plan four rows at a time. */
static inline double slv_alone(double b, double d, double lo, double hi, int findex) {
  double t = -b / d;
  return fabs(findex ? t : (t < lo ? lo : (t > hi ? hi : t)));
}

/* Row i's reaction to an impulse of the answer's size: |A_ii| min(xs, xd);
 * where A_ii = 0 (an MLCP's or a saddle point's row, which has none of its
 * own) sum_j |A_ij| min(xs, xd) (a factored row: sum over its slots of
 * |J| . |K|, plus |d_i|).  The cap xd keeps an x that runs off along a
 * null direction of A from measuring itself by its own size (residual.c). */
double slv_reaction(const slv_problem *p, int i, const slv_xscale *sc);

/* One box (or findex) row with reaction r: |mid((x-hi)/xs, w/s, (x-lo)/xs)|,
 * s = |b| + |w - b| + r. */
static inline double slv_scaled_row(double x, double w, double b, double r, double lo, double hi,
                                    double xs) {
  double s = fabs(b) + fabs(w - b) + r;
  double wh = slv_quot(w, s), a = slv_quot(x - hi, xs), c = slv_quot(x - lo, xs);
  double m = wh < c ? wh : c;
  m = m > a ? m : a;
  return fabs(m);
}

/* Diagonal entry A(i,i) of a validated problem (dense, CSR: 0 if absent;
 * factored): the capability check's, before the operator exists. */
double slv_diag(const slv_problem *p, int i);

/* The checks of slv_solve on up to `threads` threads, with the answers and
 * messages of one (problem.c, registry.c): slv_problem_validate (dense
 * storage stays on one thread), every slv_diag(p, i) > 0, and
 * slv_solver_accepts. */
slv_status slv_problem_validate_threads(const slv_problem *p, int threads, char *msg, size_t len);
int slv_diag_positive(const slv_problem *p, int threads);
/* The same validation, and *diag_pos = 1 when it has found every
 * slv_diag(p, i) > 0 on the way (a factored problem's rows: the finite
 * test forms the products of A_ii anyway), else 0 (not known); then
 * slv_solver_accepts_pos skips slv_diag_positive's pass, with the same
 * answer.  With a yes, diag (n doubles, if not NULL) holds every A_ii, in
 * slv_diag's bits.  sc (or NULL): the scan of p's dense A (scan.c), whose
 * finite test stands for the validation's. */
slv_status slv_problem_validate_pos(const slv_problem *p, int threads, const slv_scan *sc,
                                    int *diag_pos, double *diag, char *msg, size_t len);
/* slv_is_symmetric on up to `threads` threads for a CSR A (the same
 * tolerance, answer and first differing pair as one thread). */
int slv_is_symmetric_threads(const slv_problem *p, double rtol, int *ii, int *jj, int threads);
slv_status slv_solver_accepts_threads(const slv_solver *s, const slv_problem *p, int threads,
                                      char *msg, size_t len);
/* sc (or NULL): the scan of p's dense A, whose maxima give the symmetry
 * test (slv_scan_symmetric; the pair for the message searched for only
 * when it fails). */
slv_status slv_solver_accepts_pos(const slv_solver *s, const slv_problem *p, int threads,
                                  int diag_pos, const slv_scan *sc, char *msg, size_t len);

/* w = A x + b for dense and CSR storage (b NULL: A x) (operator.c). */
void slv_explicit_w(const slv_problem *p, const double *x, const double *b, double *w);

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
/* Is A symmetric to rtol * max|A_ij|?  If not, (*i, *j) is the first
 * offending pair (problem.c). */
int slv_is_symmetric(const slv_problem *p, double rtol, int *i, int *j);

/* The automatic pivot budget (slv.h, slv_options.max_pivots): a pivot of
 * lemke or dantzig on a problem of size n costs O(n^2) flops, so the budget
 * is a fixed amount of work, SLV_PIVOT_WORK / n^2 pivots (about 1e9 flops
 * in all: about a second), and never less than 50 n.  A small problem
 * may then take exponentially many pivots (Murty's example needs 2^n: n = 12
 * finishes with 4096, n = 19 with 2^19 < 2^28 / 361), a large one (n >= 175)
 * gets the linear budget it had before.  docs/solvers.md, "Lexicographic Lemke". */
#define SLV_PIVOT_WORK 268435456.0 /* 2^28 */
static inline int slv_pivot_budget(int n) {
  double nn = n > 1 ? (double)n : 1.0;
  double by_work = SLV_PIVOT_WORK / (nn * nn), linear = 50.0 * nn;
  double lim = by_work > linear ? by_work : linear;
  return lim >= (double)INT_MAX ? INT_MAX : (int)lim;
}
/* Pivot limit of opt for size n: opt->max_pivots, or slv_pivot_budget(n). */
static inline int slv_pivot_limit(const slv_options *opt, int n) {
  if (opt->max_pivots > 0) return opt->max_pivots;
  return slv_pivot_budget(n);
}

/* lambda_max of D^-1/2 A D^-1/2 (D = diag(1 / invd)) by `iters` steps of
 * the power iteration from the normalised ones vector, with Av(ctx, v, y)
 * computing y = A v; v, u: workspace of size n.  Returns the last finite
 * estimate (1 if none).  The damping of the Jacobi solvers (problem.c). */
double slv_power_lambda(int n, const double *invd, int iters,
                        void (*Av)(void *ctx, const double *v, double *y), void *ctx, double *v,
                        double *u);

/* slv_residual with its chunks (residual.c) on up to `threads` threads when
 * w is given: the same bits for every thread count. */
slv_residuals slv_residual_threads(const slv_problem *p, const double *x, const double *w,
                                   int threads);
/* The same for op->p on op->threads, with the row sizes and xd of the
 * solve (slv_op_rowscale) instead of a pass over A to find them: the
 * solvers' checks. */
slv_residuals slv_residual_op(slv_op *op, const double *x, const double *w);
/* What a solver's check needs of it, the same bits: res_nat_inf, res_rel,
 * res_rel_2, res_scaled, b_inf and, with cones, their measures (so
 * res_global); compl, infeas and err_siconos are NaN (not summed).
 * t_formed: op->t holds K^T x of this x as slv_op_ktx forms it (also
 * slv_op_w), and w NULL is read from it instead of a K^T x of its own (a
 * factored problem; others ignore it). */
slv_residuals slv_residual_test_op(slv_op *op, const double *x, const double *w, int t_formed);
/* The test's measures of a problem without cones as a solver forms them
 * (pgs_wide's lanes): the largest natural map res and scale-invariant
 * residual scaled of its rows, b_inf = ||b||_inf, NaN for any of them
 * where x or w was not finite; slv_residual_test_op's fields from them
 * (res_rel_2 NaN: not formed). */
slv_residuals slv_residuals_test(double res, double scaled, double b_inf);

/* The natural map of slv_residual (cones by p->cone_law; box rows by their
 * fixed bounds, no findex) from a w the solver maintains, in O(n) and
 * without libm's hypot (once per sweep in nsgs, where hypot was half the
 * sweep): its inf- and 2-norms and res_scaled; inf and scaled are NaN if
 * x or w is not finite (residual.c).  rs: p's row sizes and xd
 * (slv_op_rowscale), so that a sweep's measure stays O(n); NULL: found
 * here (a pass over A). */
typedef struct {
  double inf;    /* ||r||_inf (res_nat_inf) */
  double n2;     /* ||r||_2 */
  double scaled; /* res_scaled, the convergence test's measure; on a condensed global
                    problem the larger of it and res_global (slv.h), the clause the test
                    adds there */
} slv_natmap;
slv_natmap slv_natmap_of(const slv_problem *p, const double *x, const double *w,
                         const slv_rowscale *rs);

/* After a failed solve on op's problem (x and its w = A x + b): whether
 * the contacts carrying the residual form a wedge (docs/cone-solvers.md,
 * "A wedge"), said in res->diagnosis (emptied otherwise).  Returns 1 when
 * it used op's products (op->t no longer K^T x), else 0.  wedge.c. */
int slv_wedge_diagnose(slv_op *op, const double *x, const double *w, slv_result *res);

/* The eigenvalues of the symmetric a (m x m, row-major, m <= 12; destroyed)
 * on its diagonal and their vectors in v's columns, by cyclic Jacobi
 * (wedge.c); returns the sweeps made (at most 60). */
int slv_jacobi_eigen(int m, double *a, double *v);

/* Is x[0..n) all finite? */
int slv_all_finite(int n, const double *x);

/* slv_cone_project, the projection onto K_mu (inline): cone.h */

/* ContactBench's criteria (slv.h, slv_contact_metrics; metrics.c): all NaN
 * (no cones, or a non-finite x or w), all 0 (before the first cone), and
 * the running maxima updated with one cone of coefficient mu, impulse
 * l = x_c and velocity v = w_c (3 values each, normal first). */
slv_contact_metrics slv_contact_metrics_nan(void);
slv_contact_metrics slv_contact_metrics_zero(void);
void slv_contact_metrics_add(slv_contact_metrics *m, double mu, const double *l, const double *v);
void slv_contact_metrics_merge(slv_contact_metrics *m, const slv_contact_metrics *o);

/* The library's convergence test (slv.h, slv_options.tol and .norm;
 * docs/convergence.md) on measures a solver has at hand: scaled =
 * res_scaled, rel2 = ||r||_2 / max(1, ||b||_2). */
static inline int slv_met_norms(const slv_options *opt, double scaled, double rel2) {
  return scaled <= opt->tol && (opt->norm != SLV_NORM_2 || rel2 <= opt->tol);
}
/* max(a, b), NaN if either is (fmax would drop a NaN) */
static inline double slv_max_nan(double a, double b) {
  return isnan(a) || isnan(b) ? NAN : (a > b ? a : b);
}
/* res_scaled, or on a condensed global problem (res_global not NaN) the
 * larger of it and res_global: the test's measure before the 2-norm option. */
static inline double slv_scaled_of(const slv_residuals *r) {
  return isnan(r->res_global) ? r->res_scaled : slv_max_nan(r->res_scaled, r->res_global);
}
static inline int slv_met(const slv_problem *p, const slv_options *opt, const slv_residuals *r) {
  (void)p;
  return slv_met_norms(opt, slv_scaled_of(r), r->res_rel_2);
}
/* The measure that test compares with tol, to rank two iterates by:
 * slv_scaled_of, or the larger of it and res_rel_2 under SLV_NORM_2. */
static inline double slv_test_measure(const slv_options *opt, const slv_residuals *r) {
  double s = slv_scaled_of(r);
  return opt->norm == SLV_NORM_2 ? slv_max_nan(s, r->res_rel_2) : s;
}
/* The same from the measures a solver has at hand. */
static inline double slv_test_measure_norms(const slv_options *opt, double scaled, double rel2) {
  return opt->norm == SLV_NORM_2 ? slv_max_nan(scaled, rel2) : scaled;
}

/* On a tightened run of a condensed problem (op->caller_p set by slv_solve;
 * docs/convergence.md, "Condensed problems: the clause decided outside"):
 * whether x, with w = A x + b exact, meets the caller's full test, the
 * global clause and the caller's tol included.  A solver that checks it
 * at its checkpoints (ipm's outer iterations, auto after each solver it
 * runs) ends there with SLV_CONVERGED.  0 on any other run (no cost). */
int slv_caller_met(slv_op *op, const double *x, const double *w);

/* The sweeping solvers (pgs, pgs_wide, pjacobi) measure each sweep by the
 * absolute natural map m of the w_i their rows met: a trigger only.  When
 * m <= tol * units, or every check_every sweeps, they take the exact
 * measures (slv_residual), which alone decide.  units converts res_scaled
 * (slv_scaled_of: with a global problem's clause) to the absolute scale:
 * res_nat_inf / that measure at the last exact measure (docs/convergence.md,
 * "Stopping tests"); before one, max(1, ||b||_inf). */
static inline double slv_units_of(const slv_residuals *r, double old) {
  double s = slv_scaled_of(r), u = r->res_nat_inf / s;
  return s > 0 && isfinite(u) && u > 0 ? u : old;
}
static inline int slv_cheap_met(const slv_options *opt, double m, double units) {
  return m <= opt->tol * units;
}

/* At a converged x, separated contacts set to 0 and rows that belong at a
 * bound set on it (one projected Jacobi step tells which), kept (1) only if
 * the test still holds on the exact w; else 0 and x, w untouched.  b2 = max(1,
 * ||b||_2); xt, wt: n of scratch (snap.c). */
int slv_snap(slv_op *op, const slv_options *opt, int sliding, double b2, double *x, double *w,
             double *xt, double *wt);

/* The nonsmooth Newton core of nsn_ac.c (Alart-Curnier), shared with the
 * nsgs_newton hybrid.  Its Newton matrix is dense (the LU of the active
 * rows, a dense system of linsys.h) or sparse (SuiteSparse KLU or UMFPACK
 * over the pattern of A's 3x3 / 1x1 block rows: analysed once per
 * problem, factored per iteration; nsn_sparse.c), as linsys's rule says
 * (docs/solver-machinery.md, "Linear systems"): sparse above NSN_DENSE_MAX rows
 * with a packed copy of A.
 * The vectors are allocated by slv_nsn_init for n <= n_max; the dense
 * system too when the rule factors n_max rows dense; the sparse pattern
 * and the dense system of a larger problem are reserved by slv_nsn_begin,
 * outside the iterations (docs/cone-solvers.md, "Alart-Curnier Newton",
 * "Storage of the Newton matrix"). */
/* rows: dense LU up to here, linsys's rule (below it no threshold on n
 * wins everywhere: experiments/records/2026-11-23-sparse-newton.md);
 * auto's size rule reads it too */
enum { NSN_DENSE_MAX = SLV_LS_DENSE_MAX };
/* the sparse Newton matrix is factored by KLU when UMFPACK's estimate of
 * one LU's flops is at most this, else by UMFPACK (nsn_sparse.c) */
#define NSN_KLU_FLOPS 2e7

typedef struct slv_nsn_sparse {
  int n;        /* rows of the pattern (this problem's n), 0: none */
  int *Hp, *Hi; /* CSC pattern of H: n + 1, nnz */
  double *Hx;   /* nnz values */
  size_t nnz, nnz_cap;
  int *hpos; /* per packed entry of A: position of its block's first row */
  size_t hpos_cap;
  int *dpos;              /* per column j: position of (blk0[j], j) */
  int *Hp_buf, *dpos_buf; /* n_max + 1, n_max */
  int *stamp, *where;     /* n_max each: scratch of the pattern build */
  slv_linsys *ls;         /* H's LU (linsys.h): UMFPACK's or KLU's */
  int klu;                /* this pattern is factored by KLU, not UMFPACK */
  double klu_flops;       /* KLU up to this flop estimate: NSN_KLU_FLOPS, or a test's */
  int factors;            /* LUs for this problem */
  double lu_flops;        /* UMFPACK's estimate of one LU's flops (symbolic analysis) */
} slv_nsn_sparse;

typedef struct slv_nsn {
  int n_max;
  slv_linsys *dense; /* the dense Newton matrix and its LU (linsys.h) */
  double *buf;       /* 16 n_max doubles, cut into the vectors below */
  double *phi, *phit, *d, *Ad, *xt, *wt, *xbest, *wbest, *rho, *v;
  double *ar, *bu; /* 3 per row: Jacobian rows dPhi/dx|_w, dPhi/dw|_x over the row's block */
  int *blk0, *bw;  /* per row: first column and width (3 cone, 1 box) of its block */
  int *act, *pos;  /* rows kept in the Newton system, and row -> index in act (or -1) */
  int sparse;      /* this problem's Newton matrix is sparse (slv_nsn_begin) */
  slv_nsn_sparse sp;
} slv_nsn;
slv_status slv_nsn_init(slv_nsn *s, int n_max);
void slv_nsn_free(slv_nsn *s);

/* admm.c: with iterations > 0, an admm solve on this state (admm's
 * slv_impl state) ends at SLV_STAGNATED after that many iterations without
 * halving the test's measure (slv_test_measure); 0 (the default) turns the test off.  auto uses it
 * to hand a problem ADMM does not converge on to nsgs_newton. */
void slv_admm_set_stall(void *state, int iterations);
/* auto.c: the stall window auto gives ADMM before nsgs_newton takes over
 * (AUTO_ADMM_STALL; iterations <= 0 restores it), on auto's slv_impl
 * state; for the tests of that hand-over. */
void slv_auto_set_admm_stall(void *state, int iterations);
/* auto.c: the rows from which ipm shares a Coulomb problem's time with
 * nsgs, its share of a time limit and nsgs's sweeps a chunk after it
 * (AUTO_SWEEP_HANDOVER_MIN, AUTO_SWEEP_CHUNK; rows_min < 0, chunk <= 0:
 * the defaults; share outside [0, 1): AUTO_IPM_SHARE or AUTO_IPM_SHARE_WEAK
 * by the contacts' coupling), on auto's slv_impl state; for the tests of
 * that hand-over. */
void slv_auto_set_ipm_share(void *state, int rows_min, double share, int chunk);
/* auto.c: ipm's interior-point iterations under a time limit on weakly
 * coupled contacts before the sweeps take over (AUTO_IPM_ITERS_WEAK;
 * iterations <= 0 restores it), on auto's slv_impl state; for the tests. */
void slv_auto_set_ipm_iters(void *state, int iterations);
/* nsn_ac.c: the flop estimate up to which the sparse Newton matrix is
 * factored by KLU (NSN_KLU_FLOPS; < 0: UMFPACK always), on nsn_ac's
 * slv_impl state; for the tests of both factorizations. */
void slv_nsn_set_klu_flops(void *state, double flops);
/* Once per problem, before slv_nsn_run (which may then run several
 * times on it): the scalings, the row blocks, and the Newton matrix's
 * storage (dense or sparse pattern + symbolic analysis), reserved if it
 * does not fit the buffers held.  SLV_OK, SLV_ERR_NOMEM (message in res). */
slv_status slv_nsn_begin(slv_nsn *s, slv_op *op, slv_result *res);
/* Up to max_it Newton iterations from x, with w = A x + b on entry; on
 * return w = A x + b again.  A is read through op (whose packed copy it
 * forms).  Adds the iterations done to *iters, pushes res_rel per
 * iteration into h and sets res->solver_residual;
 * SLV_CONVERGED (the library's test, confirmed on an exact w) or, with x the
 * best iterate seen, SLV_MAX_ITER / SLV_STAGNATED / SLV_BREAKDOWN /
 * SLV_NOT_FINITE (message in res). */
slv_status slv_nsn_run(slv_nsn *s, slv_op *op, const slv_options *opt, int max_it, double *x,
                       double *w, slv_result *res, slv_hist *h, int *iters);

/* The pieces of one Newton iteration, for a solver that drives its own
 * loop (ppa.c, the proximal point).  slv_nsn_phi: Phi at (x, w) into phi
 * (with jac, also Ar and Bu); returns theta = ||Phi||^2 / 2, NaN if
 * anything is not finite.  slv_nsn_direction: at the Ar, Bu of the last
 * slv_nsn_phi with jac, d solving (Ar + Bu (A + sigma I)) d = -Phi, sigma_i
 * = tau / rho_i (a diagonal shift only if the LU meets a singular pivot),
 * and Ad = A d; 0, or nonzero when even the shifted matrix is singular.
 * slv_nsn_line_search: Armijo backtracking on theta from (x, w) along (d,
 * Ad), the full step if no step passes; the trial point is left in xt, wt;
 * returns whether a step passed.  slv_nsn_scales: max(1, ||b||_inf),
 * max(1, ||b||_2), the library test's scales. */
double slv_nsn_phi(const slv_nsn *s, const slv_problem *p, const double *x, const double *w,
                   double *phi, int jac);
int slv_nsn_direction(slv_nsn *s, slv_op *op, double tau);
int slv_nsn_line_search(slv_nsn *s, const slv_problem *p, const double *x, const double *w,
                        double th);
void slv_nsn_scales(const slv_problem *p, double *binf, double *b2);

/* ---- the sparse Newton matrix (nsn_sparse.c) ---- */
void slv_nsn_sparse_free(slv_nsn_sparse *sp);
/* The pattern of H = Ar + Bu (A + sigma I) over the packed A (every row of
 * a block row of A, plus the diagonal blocks) and its UMFPACK (and, for a
 * small LU, KLU) analysis; reuses
 * the buffers when they fit.  SLV_OK or SLV_ERR_NOMEM. */
slv_status slv_nsn_sparse_reserve(slv_nsn *s, const slv_op *op);
/* Fill H's values at the current Ar, Bu (tau: the proximal weight, delta:
 * a diagonal shift), factor, solve H d = rhs in place.  0, or nonzero when
 * H is singular. */
int slv_nsn_sparse_solve(slv_nsn *s, const slv_op *op, double tau, double delta, double *rhs);
/* max |H_ij| of the last filled values. */
double slv_nsn_sparse_hmax(const slv_nsn *s);

#endif /* SLV_INTERNAL_H */
