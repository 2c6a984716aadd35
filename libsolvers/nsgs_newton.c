/* nsgs_newton.c -- NSGS sweeps, switching to the Alart-Curnier nonsmooth
 * Newton (nsn_ac.c) when the sweeps converge too slowly to pay
 * (docs/cone-solvers.md, "NSGS-Newton hybrid").
 *
 * Problem: the Coulomb friction problem of nsgs.c / nsn_ac.c (w = A x + b,
 * cone rows with the De Saxce law, box rows).
 *
 * Why: nonsmooth Gauss-Seidel (nsgs.c) is the fastest method on most FCLIB
 * problems at a loose tolerance, but converges linearly and sometimes very
 * slowly (acary2018 sec. 6: stacks, many contacts on one body); the
 * semismooth Newton converges superlinearly near a solution but costs
 * (2/3) n^3 per iteration for its dense LU and is only locally convergent.
 * Each family fails where the other is good, so this solver runs NSGS first
 * and hands its iterate to Newton as a warm start (the strategy of hybrid
 * solvers in acary2018 sec. 7, and of Siconos' "NSGS then local Newton"
 * polishing).
 *
 * Both phases read A through the solve's operator (operator.h), whose
 * packed copy is formed once per solve and serves every chunk.
 * Schedule: NSGS in chunks of max(NSGSN_CHUNK, sweeps so far / 2) sweeps
 * (nsgs.c itself, warm-started; a restart costs about ten sweeps, so the
 * chunks grow geometrically and the restarts cost O(log) sweeps).  After
 * each chunk but the first, the observed contraction per sweep
 *     q = (r_now / r_before)^(1 / sweeps),  r = the test's measure,
 * predicts the sweeps still needed, k = log(tol / r_now) / log(q) (infinite
 * when q >= 1).  Newton is tried when their cost exceeds that of
 * NSGSN_NEWTON_GUESS Newton iterations, in a flop model:
 *     sweep  ~ 2 nnz(A) + 60 ncones        (column updates + one-contact solves;
 *                                           nnz(A) the nonzeros, or n^2 for a dense
 *                                           A under NSGSN_DENSE_N rows, where the
 *                                           model was calibrated)
 *     Newton ~ (2/3) m^3 / 8 + 2 n m + 4 sweeps   (LU of the m rows Newton
 *              keeps, at ~8x the flop rate of the sparse sweep: a
 *              calibration, experiments/records/2026-11-26-solvers.md;
 *              assembly; products)
 * with m estimated from the current x (contacts with x_n > 0, box rows
 * strictly inside their bounds: nsn_ac.c eliminates the others); for the
 * sparse Newton matrix (nsn_sparse.c, above NSN_DENSE_MAX rows)
 *     Newton ~ F / 8 + 6 nnz(H) + 4 sweeps   (F: UMFPACK's flop estimate of
 *              the LU, from the symbolic analysis that slv_nsn_begin runs
 *              at the first decision; assembly; products)
 * A Newton phase runs at most NSGSN_NEWTON_IT iterations; if it does not
 * converge, the best iterate (Newton's or the last NSGS one, by the test's measure) is
 * kept, NSGS resumes, and the next attempt waits until the sweeps since
 * the failed one have cost as much as it did, and needs a 4x larger
 * predicted saving (so failed attempts cost at most about as much as the
 * sweeps).  No size limit: the Newton matrix's storage is set up at the
 * first decision of a solve (slv_nsn_begin).
 *
 * Counts: result.iterations = sweeps + Newton iterations; the message says
 * how many of each.  Out of budget, x is the best iterate seen at the end
 * of a chunk or an attempt, by the test's measure (slv_test_measure),
 * not the last: NSGS need not decrease the
 * residual (RockPile_tob1 went from a Newton point at 8.6e-7 to 1.9e-3),
 * and the message names which iterate it returns.  Statuses: those of nsgs
 * and nsn_ac (SLV_CONVERGED, SLV_MAX_ITER when the sum reaches
 * opt->max_iter, SLV_NOT_FINITE, SLV_ERR_UNSUPPORTED).  Reads the options
 * nsgs reads, and tol / norm.
 */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

extern const slv_solver slv_solver_nsgs;

enum {
  NSGSN_CHUNK = 30,    /* sweeps between two decisions (at least) */
  NSGSN_DENSE_N = 300, /* rows: below, the cost model takes a dense A as n^2 */
  NSGSN_NEWTON_IT = 30 /* Newton iterations per attempt */
};
#define NSGSN_NEWTON_GUESS 6.0 /* Newton iterations an attempt is expected to need */

typedef struct {
  void *gs;      /* nsgs state (slv_solver_nsgs's state_size bytes) */
  slv_nsn nsn;   /* Newton core */
  int nsn_ready; /* slv_nsn_begin done for the current solve */
  double *xs;    /* size n_max: iterate saved before a Newton attempt */
  double *xb;    /* size n_max: the best iterate seen at a chunk's or an attempt's end */
} nsgsn_state;

static void nsgsn_free(void *st) {
  nsgsn_state *s = st;
  if (s->gs) {
    slv_solver_nsgs.impl->free(s->gs);
    free(s->gs);
  }
  slv_nsn_free(&s->nsn);
  free(s->xs);
  free(s->xb);
  memset(s, 0, sizeof *s);
}

static slv_status nsgsn_init(void *st, int n_max, const slv_options *opt) {
  nsgsn_state *s = st;
  s->gs = calloc(1, slv_solver_nsgs.impl->state_size);
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  s->xs = malloc(m * sizeof *s->xs);
  s->xb = malloc(m * sizeof *s->xb);
  if (!s->gs || !s->xs || !s->xb) {
    nsgsn_free(s);
    return SLV_ERR_NOMEM;
  }
  slv_status r = slv_solver_nsgs.impl->init(s->gs, n_max, opt);
  if (r) {
    nsgsn_free(s);
    return r;
  }
  r = slv_nsn_init(&s->nsn, n_max);
  if (r) nsgsn_free(s);
  return r;
}

/* Rows the Newton system would keep at x: the three rows of each contact
 * with x_n > 0, box rows strictly inside their bounds. */
static double active_rows(const slv_problem *p, const double *x) {
  int k = 0, m = 0;
  for (int i = 0; i < p->n; i++) {
    if (k < p->ncones && p->cone_rows[k] == i) {
      if (x[i] > 0) m += 3;
      i += 2;
      k++;
      continue;
    }
    m += x[i] > slv_lo_of(p, i) && x[i] < slv_hi_of(p, i);
  }
  return m;
}

/* The schedule's state: counts, the flop model and the rate. */
typedef struct {
  int sweeps, newton, attempts;
  double c_sweep, c_newton;
  double need;     /* predicted saving an attempt needs, in Newton attempts; x4 per failure */
  double debt;     /* cost of the last failed Newton attempt, paid back by sweeps */
  double r_before; /* the test's measure before the last chunk (NaN: none yet) */
} schedule;

/* Sweeps the next chunk of NSGS may take: max(NSGSN_CHUNK, sweeps so far /
 * 2), within max_iter (a restart of nsgs costs about ten sweeps: its block
 * factorisations and first residual, so the chunks grow). */
static int chunk_len(const schedule *k, const slv_options *opt) {
  int len = k->sweeps / 2 > NSGSN_CHUNK ? k->sweeps / 2 : NSGSN_CHUNK;
  int left = opt->max_iter - k->sweeps - k->newton;
  return len < left ? len : left;
}

/* Whether Newton pays now, after a chunk of `swept` sweeps that ended at
 * r_now: the sweeps the observed rate still needs cost more than `need`
 * Newton attempts (header); updates r_before and c_newton. */
static int newton_pays(nsgsn_state *s, schedule *k, slv_op *op, const slv_options *opt,
                       const double *x, int swept, double r_now, slv_result *res) {
  if (isnan(k->r_before)) { /* first chunk: rate unknown */
    k->r_before = r_now;
    return 0;
  }
  double q = k->r_before > 0 && swept > 0 ? pow(r_now / k->r_before, 1.0 / swept) : 1.0;
  double k_left = q < 1.0 && q > 0.0 ? log(opt->tol / r_now) / log(q) : INFINITY;
  k->r_before = r_now;
  if (!s->nsn_ready) { /* the Newton matrix's storage (and a sparse LU's cost): once per problem */
    if (slv_nsn_begin(&s->nsn, op, res) != SLV_OK) return 0; /* no memory: NSGS alone */
    s->nsn_ready = 1;
  }
  /* Newton factors only the rows not at a bound (nsn_ac.c eliminates
   * the rest): estimated from the current x, contacts with x_n > 0 */
  double me = active_rows(op->p, x);
  if (s->nsn.sparse) /* sparse LU: UMFPACK's flop estimate at the dense LU's rate, H's fill */
    k->c_newton = s->nsn.sp.lu_flops / 8.0 + 6.0 * (double)s->nsn.sp.nnz + 4.0 * k->c_sweep;
  else
    k->c_newton = me * me * me / 12.0 + 2.0 * op->n * me + 4.0 * k->c_sweep;
  return k_left * k->c_sweep > k->need * k->c_newton;
}

/* One Newton attempt from the NSGS iterate (measure r_now); keeps whichever
 * ends better.  Returns SLV_CONVERGED, a refusal (< 0), or SLV_MAX_ITER to
 * go on sweeping. */
static slv_status newton_attempt(nsgsn_state *s, slv_op *op, const slv_options *opt, schedule *k,
                                 double r_now, double *x, double *w, slv_result *res, slv_hist *h) {
  int n = op->n;
  k->attempts++;
  memcpy(s->xs, x, (size_t)n * sizeof *x);
  int it_left = opt->max_iter - k->sweeps - k->newton, nit = 0;
  slv_status ns = slv_nsn_run(
      &s->nsn, op, opt, it_left < NSGSN_NEWTON_IT ? it_left : NSGSN_NEWTON_IT, x, w, res, h, &nit);
  k->newton += nit;
  if (ns == SLV_CONVERGED || ns < 0) return ns;
  slv_residuals rn = slv_residual(op->p, x, w); /* Newton's best, with its w */
  double r_newton = slv_test_measure(opt, &rn);
  if (!(r_newton < r_now)) { /* Newton did not help: back to the NSGS point */
    memcpy(x, s->xs, (size_t)n * sizeof *x);
    slv_op_w(op, x, w);
    k->r_before = r_now;
  } else {
    k->r_before = r_newton;
  }
  k->need *= 4.0;
  k->debt = nit * k->c_newton;
  return SLV_MAX_ITER;
}

/* The convergence test's measure at (x, w) (slv_test_measure). */
static double test_measure(const slv_problem *p, const slv_options *opt, const double *x,
                           const double *w) {
  slv_residuals r = slv_residual(p, x, w);
  return slv_test_measure(opt, &r);
}

/* The best iterate so far, by the test's measure (NSGS need not decrease
 * it: on a nonsymmetric A a chunk can leave a good Newton point far
 * behind, so the solve returns the best, not the last). */
typedef struct {
  double m; /* its measure (INFINITY: none yet) */
  int at;   /* the iteration count it was reached at */
} best_seen;

static void keep_if_best(nsgsn_state *s, const slv_problem *p, const slv_options *opt,
                         const schedule *k, const double *x, const double *w, best_seen *b) {
  double m = test_measure(p, opt, x, w);
  if (!(m < b->m)) return;
  b->m = m;
  b->at = k->sweeps + k->newton;
  memcpy(s->xb, x, (size_t)p->n * sizeof *x);
}

/* At the budget's end: x back to the best iterate if the last is worse;
 * the message names which one is returned. */
static void end_at_best(nsgsn_state *s, slv_op *op, const slv_options *opt, const schedule *k,
                        const best_seen *b, double *x, double *w, slv_result *res) {
  const slv_problem *p = op->p;
  slv_op_w(op, x, w);
  double m = test_measure(p, opt, x, w), kept = m;
  int at = k->sweeps + k->newton;
  if (b->m < m) {
    memcpy(x, s->xb, (size_t)p->n * sizeof *x);
    slv_op_w(op, x, w);
    kept = b->m;
    at = b->at;
  }
  slv_msgf(res->message, sizeof res->message,
           "nsgs_newton: %d sweeps + %d Newton iterations (%d attempts), %s=%.3g > tol=%.3g "
           "(the best iterate, at iteration %d; the last had %.3g)",
           k->sweeps, k->newton, k->attempts,
           opt->norm == SLV_NORM_2 ? "max(res_scaled, res_rel_2)" : "res_scaled", kept, opt->tol,
           at, m);
}

static slv_status nsgsn_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                              slv_result *res, slv_hist *h) {
  nsgsn_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  if (p->cone_law == SLV_CONE_ASSOCIATED && p->ncones > 0) {
    slv_msgf(res->message, sizeof res->message,
             "nsgs_newton: solves the Coulomb law only; for the associated cone use nsgs, "
             "pcg_cone or apgd");
    return SLV_ERR_UNSUPPORTED;
  }
  slv_op_pack(op);
  s->nsn_ready = 0;
  double nnz = op->A && (n < NSGSN_DENSE_N || !op->packed) ? (double)n * n : slv_op_nnz(op);
  schedule k = { 0, 0, 0, 2.0 * nnz + 60.0 * p->ncones, 0, NSGSN_NEWTON_GUESS, 0, NAN };
  slv_options o = *opt;
  o.warm_start = 1;
  slv_status last = SLV_MAX_ITER;
  best_seen best = { INFINITY, 0 };
  while (k.sweeps + k.newton < opt->max_iter) {
    slv_result sub = *res;
    sub.iterations = 0;
    o.max_iter = chunk_len(&k, opt);
    last = slv_solver_nsgs.impl->solve(s->gs, op, &o, x, w, &sub, h);
    k.sweeps += sub.iterations;
    res->history_len = sub.history_len;
    res->solver_residual = sub.solver_residual;
    if (last == SLV_CONVERGED || last < 0 || last == SLV_NOT_FINITE || slv_stopped(op)) {
      if (last != SLV_CONVERGED) memcpy(res->message, sub.message, sizeof res->message);
      break;
    }
    double r_now = sub.solver_residual;
    keep_if_best(s, p, opt, &k, x, w, &best);
    k.debt -= sub.iterations * k.c_sweep;
    if (k.sweeps + k.newton >= opt->max_iter || k.debt > 0) {
      k.r_before = r_now;
      continue;
    }
    if (!newton_pays(s, &k, op, opt, x, sub.iterations, r_now, res)) continue;
    last = newton_attempt(s, op, opt, &k, r_now, x, w, res, h);
    if (last == SLV_CONVERGED || last < 0) break;
    keep_if_best(s, p, opt, &k, x, w, &best);
  }
  res->iterations = k.sweeps + k.newton;
  if (last == SLV_CONVERGED) {
    /* the split, only when Newton ran: a format call is a tenth of a solve
     * that NSGS ends in a few microseconds */
    if (k.attempts > 0)
      slv_msgf(res->message, sizeof res->message,
               "nsgs_newton: %d sweeps, %d Newton iterations (%d attempts)", k.sweeps, k.newton,
               k.attempts);
    return SLV_CONVERGED;
  }
  if (last == SLV_MAX_ITER || (last > 0 && last == slv_stopped(op)))
    end_at_best(s, op, opt, &k, &best, x, w, res);
  return last;
}

static const slv_impl nsgsn_impl = {
  .state_size = sizeof(nsgsn_state),
  .init = nsgsn_init,
  .free = nsgsn_free,
  .solve = nsgsn_solve,
};

/* the params line below quotes these */
_Static_assert(NSGSN_CHUNK == 30 && NSGSN_NEWTON_IT == 30, "nsgs_newton params");

const slv_solver slv_solver_nsgs_newton = {
  .name = "nsgs_newton",
  .summary = "NSGS sweeps, then Alart-Curnier nonsmooth Newton when sweeps stall (Coulomb)",
  .cite = "acary2018",
  .caps = SLV_CAP_CONE | SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE | SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "nsgs in chunks of max(30, sweeps / 2); nsn_ac Newton (<= 30 its) when the predicted "
      "sweeps cost more than " SLV_STR(NSGSN_NEWTON_GUESS) " Newton its; a retry needs a 4x "
      "saving",
  /* clang-format on */
  .impl = &nsgsn_impl,
};
