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
 *   6. the solver;
 *   7. w = A x + b recomputed (slv_op_w), the measures of residual.c, and
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
  size_t state_size = s->impl->state_size;
  ws->state = calloc(1, state_size > 0 ? state_size : 1);
  if (!ws->w || !ws->state || slv_op_buf_alloc(&ws->op, n_max)) goto fail;
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

static slv_status refuse(slv_result *res, slv_status st) {
  res->status = st;
  res->res.res_nat_inf = res->res.res_rel = res->res.compl = res->res.infeas = NAN;
  res->res.merit_fclib = NAN;
  res->res.contact = slv_contact_metrics_nan();
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
               "res_rel_1q %.3g, res_contact %.3g)",
               s->name, res->res.res_global, opt->tol, res->res.res_rel_1q, res->res.res_contact);
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
  slv_poll poll;
  slv_poll_begin(&poll, opt, &h.t0);
  res->history = ws->history;
  res->history_time = ws->history_time;
  res->history_cap = h.cap;
  res->history_len = 0;

  slv_op op;
  slv_op_begin(&op, p, &ws->op);
  op.threads = opt->threads;
  op.poll = &poll;
  st = ws->solver->impl->solve(ws->state, &op, opt, x, wb, res, &h);
  res->status = st;
  if (st < 0) return refuse(res, st);
  if (st == SLV_TIME_LIMIT || st == SLV_INTERRUPTED) say_stopped(ws->solver, opt, res);

  /* the library's own measures, from (A, b, bounds, x) alone */
  slv_op_w(&op, x, wb);
  res->res = slv_residual_op(&op, x, wb);
  judge(ws->solver, p, opt, res);
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
