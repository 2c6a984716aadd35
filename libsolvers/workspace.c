/* workspace.c -- the generic layer: new / solve / free.
 *
 * slv_solve does the work every solver shares, in this order:
 *   1. options cookie and ranges (SLV_ERR_OPTIONS);
 *   2. n <= n_max (SLV_ERR_DIM), problem validation (SLV_ERR_INVALID);
 *   3. capabilities (SLV_ERR_UNSUPPORTED, message from slv_solver_accepts);
 *   4. the starting point: the warm x if opt->warm_start (must be finite),
 *      else the projection of 0 on the bounds;
 *   5. the operator over the problem's storage, in the workspace's buffers
 *      (operator.h), and the history recorder (its clock starts here);
 *   6. the solver; on a condensed global problem (p->condensed) it runs on
 *      the local view (condensed = 0: its own test without the global
 *      clause, a bad progress measure inside a solver), and when that test
 *      is met but the clause is not, again from its x with a tighter tol,
 *      on the iterations and time left (global_solve; docs/convergence.md,
 *      "Condensed problems: the clause decided outside");
 *   7. w = A x + b recomputed (slv_op_w), the measures of residual.c (on
 *      the caller's p, with the clause), and
 *      the promise: "converged" stands only if res_rel <= tol with finite
 *      numbers (and, when the problem has cones, the absolute res_nat_inf
 *      <= tol too), or, with opt->norm = SLV_NORM_2, res_rel_2 <= tol;
 *      otherwise it becomes SLV_NOT_FINITE or SLV_STAGNATED with a message;
 *   8. one line through the options' log callback, if any: the refusal
 *      (error), the failure (warning) or the convergence (info).
 * Steps 2, 3 and 7 run on opt->threads threads from 8192 rows on, with the
 * answers, messages and bits of one thread (docs/solver-machinery.md, "Threads").
 * Only slv_workspace_new allocates; the problem is only read, so threads
 * may share it (one workspace each).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "slv_internal.h"

#include <stdlib.h>
#include <string.h>

void slv_workspace_free(slv_workspace *ws) {
  if (!ws) return;
  if (ws->state) {
    if (ws->solver && ws->solver->impl->free) ws->solver->impl->free(ws->state);
    free(ws->state);
  }
  slv_op_buf_free(&ws->op);
  free(ws->w);
  free(ws->xbest);
  free(ws->history);
  free(ws->history_time);
  free(ws);
}

slv_status slv_workspace_new(const slv_solver *s, int n_max, const slv_options *opt,
                             slv_workspace **out) {
  if (!out) return SLV_ERR_OPTIONS;
  *out = NULL;
  if (!s) return SLV_ERR_UNSUPPORTED;
  if (slv_options_validate(opt, NULL, 0)) return SLV_ERR_OPTIONS;
  if (n_max < 0) return SLV_ERR_DIM;
  slv_workspace *ws = calloc(1, sizeof *ws);
  if (!ws) return SLV_ERR_NOMEM;
  ws->solver = s;
  ws->n_max = n_max;
  ws->w = malloc((size_t)(n_max > 0 ? n_max : 1) * sizeof *ws->w);
  ws->xbest = malloc((size_t)(n_max > 0 ? n_max : 1) * sizeof *ws->xbest);
  size_t state_size = s->impl->state_size;
  ws->state = calloc(1, state_size > 0 ? state_size : 1);
  if (!ws->w || !ws->xbest || !ws->state || slv_op_buf_alloc(&ws->op, n_max)) goto fail;
  if (opt->record_history) {
    ws->history_cap = opt->max_iter + 1;
    ws->history = malloc((size_t)ws->history_cap * sizeof *ws->history);
    ws->history_time = malloc((size_t)ws->history_cap * sizeof *ws->history_time);
    if (!ws->history || !ws->history_time) goto fail;
  }
  if (s->impl->init) {
    slv_status st = s->impl->init(ws->state, n_max, opt);
    if (st) {
      slv_workspace_free(ws);
      return st;
    }
  }
  *out = ws;
  return SLV_OK;
fail:
  slv_workspace_free(ws);
  return SLV_ERR_NOMEM;
}

const slv_solver *slv_workspace_solver(const slv_workspace *ws) { return ws ? ws->solver : NULL; }

/* A refused solve has no residuals: each measure NaN, none taken
 * (slv.h, slv_result_refuse). */
void slv_result_refuse(slv_result *res, slv_status st) {
  if (!res) return;
  slv_residuals *r = &res->res;
  res->status = st;
  r->res_nat_inf = r->res_rel = r->res_rel_2 = r->compl = r->infeas = r->b_inf = NAN;
  r->merit_fclib = r->res_scaled = r->siconos_err = r->err_siconos = NAN;
  r->res_rel_1q = r->res_contact = r->res_global = NAN;
  r->contact = slv_contact_metrics_nan();
  r->res_contact_at = -1;
  res->solver_residual = NAN;
}

static slv_status refuse(slv_result *res, slv_status st) {
  slv_result_refuse(res, st);
  return st;
}

/* The promise: the solver's "converged" stands only if the library's own
 * measures (res->res) confirm it; else SLV_NOT_FINITE or SLV_STAGNATED
 * with a message.  A failure keeps its status, with "x is not finite"
 * added when it is so. */
static void judge(const slv_solver *s, const slv_problem *p, const slv_options *opt,
                  slv_result *res) {
  slv_status st = res->status;
  int finite = isfinite(res->res.res_rel) && !isnan(res->res.res_scaled);
  if (st == SLV_CONVERGED && !finite) {
    res->status = SLV_NOT_FINITE;
    slv_msgf(res->message, sizeof res->message, "%s returned a non-finite x", s->name);
  } else if (st == SLV_CONVERGED && !slv_met(p, opt, &res->res)) {
    res->status = SLV_STAGNATED;
    if (!(res->res.res_scaled <= opt->tol))
      slv_msgf(res->message, sizeof res->message,
               "%s stopped on its own test but res_scaled=%.3g > tol=%.3g", s->name,
               res->res.res_scaled, opt->tol);
    else if (res->res.res_global > opt->tol)
      slv_msgf(res->message, sizeof res->message,
               "%s stopped on its own test but res_global=%.3g > tol=%.3g (a global problem: "
               "res_rel_1q %.3g, res_contact %.3g at contact %td)",
               s->name, res->res.res_global, opt->tol, res->res.res_rel_1q, res->res.res_contact,
               res->res.res_contact_at);
    else
      slv_msgf(res->message, sizeof res->message,
               "%s stopped on its own test but res_rel_2=%.3g > tol=%.3g (norm 2 asked)", s->name,
               res->res.res_rel_2, opt->tol);
  } else if (st > 0 && !finite && st != SLV_NOT_FINITE) {
    /* keep the solver's verdict but say what the iterate is */
    size_t l = strlen(res->message);
    if (l + 24 < sizeof res->message)
      slv_msgf(res->message + l, sizeof res->message - l, "%sx is not finite", l ? "; " : "");
  }
}

/* The message of a solve stopped from outside (slv.h, "stopping a solve"). */
static void say_stopped(const slv_solver *s, const slv_options *opt, slv_result *res) {
  if (res->status == SLV_TIME_LIMIT)
    slv_msgf(res->message, sizeof res->message,
             "%s: time limit of %g s reached after %d iterations, %d pivots", s->name,
             opt->time_limit, res->iterations, res->pivots);
  else
    slv_msgf(res->message, sizeof res->message,
             "%s: interrupted (cancel callback) after %d iterations, %d pivots", s->name,
             res->iterations, res->pivots);
}

/* One run of the solver on op from x (the start or a warm x): its status,
 * with the message of a stop from outside.  The poll's deadline counts
 * from h->t0, the start of slv_solve, whatever run this is. */
static slv_status run_once(slv_workspace *ws, slv_op *op, const slv_options *opt, double *x,
                           double *w, slv_result *res, slv_hist *h) {
  slv_poll poll;
  slv_poll_begin(&poll, opt, &h->t0);
  op->poll = &poll;
  res->iterations = res->pivots = 0;
  slv_status st = ws->solver->impl->solve(ws->state, op, opt, x, w, res, h);
  op->poll = NULL;
  res->status = st;
  if (st == SLV_TIME_LIMIT || st == SLV_INTERRUPTED) say_stopped(ws->solver, opt, res);
  return st;
}

/* The measures of x on the caller's condensed p, with the global clause,
 * while op runs on its local view: the same A and b, so the same row sizes
 * (op's, found once). */
static slv_residuals global_residual(slv_op *op, const slv_problem *p, const double *x, double *w) {
  const slv_problem *view = op->p;
  slv_op_w(op, x, w);
  slv_op_rowscale(op);
  op->p = op->rs_of = p;
  slv_residuals r = slv_residual_op(op, x, w);
  op->p = op->rs_of = view;
  return r;
}

/* The tightening's record, for the message (say_tightened). */
typedef struct {
  int runs;         /* solver runs */
  double tol_first; /* the tol of the run whose local test was met first, NaN if none */
  double clause;    /* res_global there */
  double tol_last;  /* the tol of the last run */
  slv_status last;  /* its status */
} tighten_log;

/* A condensed global problem (docs/convergence.md, "Global problems"):
 * the solver runs on the local view op->p (its own test: res_scaled, the
 * 2-norm option); when that test is met and the global clause (res_global
 * <= tol) is not, it runs again from its x with tol_local divided by
 * 100 to 10^4 (by how far the clause is off), on the iterations and time
 * left, until the full test holds, the solver fails, or tol_local would go
 * below SLV_TIGHT_MIN.  x becomes the best iterate by the full test's
 * measure (slv_test_measure on p), res->res its measures; iterations and
 * pivots are summed over the runs.  Negative: the first run's refusal. */
#define SLV_TIGHT_MIN 1e-15
static slv_status global_solve(slv_workspace *ws, const slv_problem *p, slv_op *op,
                               const slv_options *opt, double *x, double *w, slv_result *res,
                               slv_hist *h, tighten_log *out) {
  int n = p->n, iters = 0, pivots = 0;
  slv_options o = *opt;
  tighten_log tl = { 0, NAN, NAN, opt->tol, SLV_CONVERGED };
  double best_m = INFINITY;
  int best_full = 0;
  slv_status best_st = SLV_MAX_ITER;
  slv_residuals best_r = { 0 };
  const char *best_method = NULL;
  char best_msg[sizeof res->message] = "";
  for (;;) {
    slv_status st = run_once(ws, op, &o, x, w, res, h);
    iters += res->iterations;
    pivots += res->pivots;
    tl.runs++;
    tl.tol_last = o.tol;
    tl.last = st;
    if (st < 0) {
      if (tl.runs == 1) return st;
      break; /* a later run refused: the best so far stands */
    }
    slv_residuals r = global_residual(op, p, x, w);
    int full = slv_met(p, opt, &r);
    double m = slv_test_measure(opt, &r);
    /* a tightened run that stopped short of its own tol may still have met the caller's */
    if (tl.runs > 1 && full && st != SLV_NOT_FINITE) st = SLV_CONVERGED;
    if (best_m == INFINITY || m < best_m || (full && st == SLV_CONVERGED)) {
      best_m = isnan(m) ? INFINITY : m;
      best_full = full;
      best_st = st;
      best_r = r;
      best_method = res->method;
      memcpy(best_msg, res->message, sizeof best_msg);
      memcpy(ws->xbest, x, (size_t)n * sizeof *x);
    }
    if (st != SLV_CONVERGED || full) break;
    /* the local test met, the global clause not */
    if (isnan(tl.tol_first)) {
      tl.tol_first = o.tol;
      tl.clause = r.res_global;
    }
    double f = r.res_global > 0 ? opt->tol / r.res_global : 1e-2;
    f = f < 1e-4 ? 1e-4 : (f > 1e-2 ? 1e-2 : f);
    double next = o.tol * f;
    if (next < SLV_TIGHT_MIN) next = o.tol > SLV_TIGHT_MIN ? SLV_TIGHT_MIN : 0;
    if (!(next > 0) || iters >= opt->max_iter) break;
    o.tol = next;
    o.warm_start = 1;
    o.max_iter = opt->max_iter - iters;
  }
  /* the best met the local test alone: why it went no further (the last
   * run's failure or stop, the iterations spent; else the tol floor, which
   * judge calls stagnated) */
  if (!best_full && best_st == SLV_CONVERGED) {
    if (tl.last > 0)
      best_st = tl.last;
    else if (iters >= opt->max_iter)
      best_st = SLV_MAX_ITER;
  }
  memcpy(x, ws->xbest, (size_t)n * sizeof *x);
  slv_op_w(op, x, w);
  res->res = best_r;
  res->status = best_st;
  res->iterations = iters;
  res->pivots = pivots;
  if (best_method) res->method = best_method;
  memcpy(res->message, best_msg, sizeof res->message);
  *out = tl;
  return best_st;
}

/* The message of a condensed problem's solve whose local test was met
 * before the global clause (global_solve): what the tightening did. */
static void say_tightened(const slv_solver *s, const slv_options *opt, const tighten_log *tl,
                          slv_result *res) {
  if (isnan(tl->tol_first)) return; /* the first run decided: its message stands */
  char head[96];
  slv_msgf(head, sizeof head, "%s: local test met at tol %.3g, per-contact clause %.3g", s->name,
           tl->tol_first, tl->clause);
  if (res->status == SLV_CONVERGED)
    slv_msgf(res->message, sizeof res->message, "%s; tightened to %.3g: full test met (%d runs)",
             head, tl->tol_last, tl->runs);
  else
    slv_msgf(
        res->message, sizeof res->message,
        "%s; tightened to %.3g (%d runs, the last %s): res_global %.3g > tol %.3g, contact %td",
        head, tl->tol_last, tl->runs, slv_status_str(tl->last), res->res.res_global, opt->tol,
        res->res.res_contact_at);
}

static slv_status solve_checked(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                                double *x, double *w, slv_result *res) {
  memset(res, 0, sizeof *res);
  if (ws) res->method = ws->solver->name;
  if (!ws || !p || !x) {
    slv_msgf(res->message, sizeof res->message, "workspace, problem and x must not be NULL");
    return refuse(res, SLV_ERR_INVALID);
  }
  slv_status st = slv_options_validate(opt, res->message, sizeof res->message);
  if (st) return refuse(res, st);
  if (p->n > ws->n_max) {
    slv_msgf(res->message, sizeof res->message, "n=%d exceeds the workspace's n_max=%d", p->n,
             ws->n_max);
    return refuse(res, SLV_ERR_DIM);
  }
  st = slv_problem_validate_threads(p, opt->threads, res->message, sizeof res->message);
  if (st) return refuse(res, st);
  st = slv_solver_accepts_threads(ws->solver, p, opt->threads, res->message, sizeof res->message);
  if (st) return refuse(res, st);

  int n = p->n;
  if (opt->warm_start) {
    for (int i = 0; i < n; i++)
      if (!isfinite(x[i])) {
        slv_msgf(res->message, sizeof res->message, "warm start x[%d] is %g", i, x[i]);
        return refuse(res, SLV_ERR_INVALID);
      }
  } else {
    slv_start_point(p, x); /* P(0) */
  }
  double *wb = w ? w : ws->w;
  slv_hist h = {
    ws->history, ws->history_time, opt->record_history ? ws->history_cap : 0, { 0, 0 }
  };
  clock_gettime(CLOCK_MONOTONIC, &h.t0);
  res->history = ws->history;
  res->history_time = ws->history_time;
  res->history_cap = h.cap;
  res->history_len = 0;

  /* a condensed problem: the solver runs on its local view (condensed = 0,
   * the same arrays), the global clause is decided here (global_solve) */
  slv_problem local = *p;
  local.condensed = 0;
  slv_op op;
  slv_op_begin(&op, p->condensed ? &local : p, &ws->op);
  op.threads = opt->threads;
  op.condensed = p->condensed;
  tighten_log tl = { 0, NAN, NAN, opt->tol, SLV_CONVERGED };
  st = p->condensed ? global_solve(ws, p, &op, opt, x, wb, res, &h, &tl)
                    : run_once(ws, &op, opt, x, wb, res, &h);
  if (st < 0) return refuse(res, st);
  if (!p->condensed) {
    /* the library's own measures, from (A, b, bounds, x) alone */
    slv_op_w(&op, x, wb);
    res->res = slv_residual_op(&op, x, wb);
  }
  judge(ws->solver, p, opt, res);
  if (p->condensed) say_tightened(ws->solver, opt, &tl, res);
  return res->status;
}

/* One line per solve through the options' callback (slv.h, "logging"):
 * a refusal is an error, a solve that ran and failed a warning, a converged
 * one info.  slv_log delivers nothing for options that fail validation. */
static void log_outcome(const slv_workspace *ws, const slv_options *opt, const slv_result *res) {
  const char *name = ws && ws->solver ? ws->solver->name : "?";
  if (res->status < 0)
    slv_log(opt, SLV_LOG_ERROR, "slv_solve(%s): %s: %s", name, slv_status_str(res->status),
            res->message);
  else if (res->status > 0)
    slv_log(opt, SLV_LOG_WARNING,
            "slv_solve(%s): %s after %d iterations, %d pivots, res_rel %.3g: %s", name,
            slv_status_str(res->status), res->iterations, res->pivots, res->res.res_rel,
            res->message);
  else
    slv_log(opt, SLV_LOG_INFO, "slv_solve(%s): converged in %d iterations, %d pivots, res_rel %.3g",
            name, res->iterations, res->pivots, res->res.res_rel);
}

slv_status slv_solve(slv_workspace *ws, const slv_problem *p, const slv_options *opt, double *x,
                     double *w, slv_result *res) {
  slv_result dummy;
  if (!res) res = &dummy;
  slv_status st = solve_checked(ws, p, opt, x, w, res);
  log_outcome(ws, opt, res);
  return st;
}
