/* workspace.c -- the generic layer: new / solve / free.
 *
 * slv_solve does the work every solver shares, in this order:
 *   1. options cookie and ranges (SLV_ERR_OPTIONS);
 *   2. n <= n_max (SLV_ERR_DIM), problem validation (SLV_ERR_INVALID);
 *   3. capabilities (SLV_ERR_UNSUPPORTED, message from slv_solver_accepts);
 *   4. the starting point: the warm x if opt->warm_start (must be finite),
 *      else the projection of 0 on the bounds; kept (ws->xstart) when a
 *      time limit or a cancel callback may stop the solve;
 *   5. a digest of every array of the problem (digest.c), the operator
 *      over the problem's storage, in the workspace's buffers
 *      (operator.h), and the history recorder (its clock starts here);
 *   6. the solver; on a condensed global problem (p->condensed) it runs on
 *      the local view (condensed = 0: its own test without the global
 *      clause, a bad progress measure inside a solver), and when that test
 *      is met but the clause is not, again from its x with a tighter tol,
 *      on the iterations and time left, the caller's full test in the
 *      operator for the solvers that check it (global_solve;
 *      docs/convergence.md, "Condensed problems: the clause decided outside");
 *   7. the digest again: a solver that wrote an array of its input ends
 *      in SLV_ERROR naming it, nothing measured (wrote_input;
 *      docs/convergence.md, "A solver that writes its input"); else
 *      w = A x + b recomputed (slv_op_w), the measures of residual.c (on
 *      the caller's p, with the clause); a solve stopped from outside gets
 *      its start back where that is better (keep_start); and the verdict,
 *      decided on the x returned (judge; docs/convergence.md, "The verdict
 *      on the final iterate"): converged iff the test holds with finite
 *      numbers (slv_met: res_scaled, the clause on a condensed problem,
 *      res_rel_2 under SLV_NORM_2), else a solver's converged becomes
 *      SLV_NOT_FINITE or SLV_STAGNATED and its failure stands, each with
 *      a message; the solver's own status in res->solver_status, auto's
 *      choice text ended with the verdict where they differ; a failure on
 *      cones gets res->diagnosis where a wedge is its reason (wedge.c);
 *   8. one line through the options' log callback, if any: the refusal
 *      (error), the failure (warning) or the convergence (info).
 * Steps 2, 3 and 7 run on opt->threads threads from 8192 rows on, with the
 * answers, messages and bits of one thread (docs/solver-machinery.md, "Threads").
 * Only slv_workspace_new allocates, the dense copy of a CSR problem for a
 * solver with dense code only (SLV_CAP_DENSIFY: lemke, dantzig) included
 * (n_max x n_max, under SLV_DENSIFY_MAX_BYTES), filled at each such solve
 * (densify: its time is the solve's); the problem is only read, so threads
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
  free(ws->xstart);
  free(ws->wstart);
  free(ws->history);
  free(ws->history_time);
  free(ws->dense);
  free(ws->scan_buf);
  free(ws->xkt);
  free(ws);
}

/* Does the solver test the symmetry of all of A (its cap, or its crash)?
 * Then a dense A is read once before its solve for that, the validation
 * and the digest (scan.c). */
static int tests_symmetry(const slv_solver *s) {
  return (s->caps & SLV_CAP_NEEDS_SYMMETRIC) || s->impl->asks_symmetry;
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
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  ws->xbest = malloc(m * sizeof *ws->xbest);
  ws->xstart = malloc(m * sizeof *ws->xstart);
  ws->wstart = malloc(m * sizeof *ws->wstart);
  ws->xkt = malloc(m * sizeof *ws->xkt);
  size_t state_size = s->impl->state_size;
  ws->state = calloc(1, state_size > 0 ? state_size : 1);
  if (!ws->w || !ws->xbest || !ws->xstart || !ws->wstart || !ws->xkt || !ws->state ||
      slv_op_buf_alloc(&ws->op, n_max))
    goto fail;
  /* the dense copy of a CSR problem for a solver with dense code only
   * (docs/solvers.md, "Storage"); none past the cap: such a CSR problem is
   * refused (slv_solver_accepts).  Untouched until a CSR problem comes, so
   * a dense problem's workspace holds no more memory than before; where the
   * address space is capped (a campaign's memory limit) and the copy does
   * not fit, the workspace is made without it and a CSR problem is refused
   * as an implementation limit (densify), a dense one solved as before. */
  if ((s->caps & SLV_CAP_DENSIFY) && !(s->caps & SLV_CAP_SPARSE) &&
      8.0 * (double)m * (double)m <= SLV_DENSIFY_MAX_BYTES)
    ws->dense = malloc(m * m * sizeof *ws->dense);
  if (tests_symmetry(s) && n_max >= 2 * SLV_SCAN_T &&
      !(ws->scan_buf = malloc(SLV_SCAN_T * SLV_SCAN_T * sizeof *ws->scan_buf)))
    goto fail;
  if (opt->record_history) {
    ws->history_cap = opt->max_iter + 1;
    ws->history = malloc((size_t)ws->history_cap * sizeof *ws->history);
    ws->history_time = malloc((size_t)ws->history_cap * sizeof *ws->history_time);
    if (!ws->history || !ws->history_time) goto fail;
  }
  if (s->impl->def) slv_registered_bind(ws->state, s->impl->def);
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

slv_status slv_workspace_set_floor(slv_workspace *ws, double xf) {
  if (!ws || !(xf >= 0.0) || !isfinite(xf)) return SLV_ERR_OPTIONS;
  ws->floor = xf;
  return SLV_OK;
}

double slv_workspace_floor(const slv_workspace *ws) { return ws ? ws->floor : 0.0; }

const double *slv_workspace_ktx(const slv_workspace *ws, const slv_problem *p, const double *x) {
  if (!ws || !p || !x || ws->kt_p != p) return NULL;
  /* the same sizes and arrays as the solve's (a larger n or nblk would
   * read past x's copy or t) */
  const slv_problem *v = &ws->kt_view;
  if (p->n != v->n || p->nblk != v->nblk || p->storage != v->storage || p->fJ != v->fJ ||
      p->fK != v->fK || p->fblk != v->fblk || p->fd != v->fd)
    return NULL;
  if (memcmp(ws->xkt, x, (size_t)p->n * sizeof *x) != 0) return NULL;
  return ws->op.t;
}

/* A refused solve has no residuals: each measure NaN, none taken
 * (slv.h, slv_result_refuse). */
void slv_result_refuse(slv_result *res, slv_status st) {
  if (!res) return;
  slv_residuals *r = &res->res;
  res->status = res->solver_status = st;
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

/* The name of the test's measure (slv_test_measure) in messages. */
static const char *measure_name(const slv_options *opt, const slv_residuals *r) {
  int global = !isnan(r->res_global);
  if (opt->norm == SLV_NORM_2)
    return global ? "max(res_scaled, res_global, res_rel_2)" : "max(res_scaled, res_rel_2)";
  return global ? "max(res_scaled, res_global)" : "res_scaled";
}

/* note appended to msg (size len) after "; ", the message cut first where
 * both would not fit: the note, the library's figure, is the one kept. */
static void append_note(char *msg, size_t len, const char *note) {
  size_t l = strlen(msg), k = strlen(note);
  if (k + 3 >= len) return;
  if (l + k + 3 > len) l = len - k - 3;
  slv_msgf(msg + l, len - l, "%s%s", l ? "; " : "", note);
}

/* A failure's message may quote a measure the solver had at hand (a
 * sweep's estimate, an earlier iterate's, its local test's) that is not
 * the returned x's: where it names one of the test's measures
 * (res_scaled, res_rel_2, res_global) but not the returned x's figure,
 * the message ends with that figure, so that the last figure it gives is
 * never stale. */
static void note_final_measure(const slv_options *opt, slv_result *res) {
  double m = slv_test_measure(opt, &res->res);
  char fig[32];
  slv_msgf(fig, sizeof fig, "%.3g", m);
  const char *msg = res->message;
  int quotes = strstr(msg, "res_scaled") || strstr(msg, "res_rel_2") || strstr(msg, "res_global");
  if (isnan(m) || !quotes || strstr(msg, fig)) return;
  char note[96];
  slv_msgf(note, sizeof note, "the x returned: %s %.3g > tol %.3g", measure_name(opt, &res->res), m,
           opt->tol);
  append_note(res->message, sizeof res->message, note);
}

/* The promise, decided on the x returned (docs/convergence.md, "The
 * verdict on the final iterate"): the solver's "converged" stands only if
 * the library's own measures (res->res) confirm it, else SLV_NOT_FINITE or
 * SLV_STAGNATED with a message; a solver's failure (max_iter, stagnated,
 * time_limit, ...) on an x that meets the test is converged, the message
 * saying so; an interrupted solve stays interrupted (the caller asked to
 * stop, and acts on it: a world's step, Python's KeyboardInterrupt), and
 * so does an error (a registered solver's code failed: its x is no answer
 * of its own).
 * res->solver_status keeps the solver's own status.  A failure
 * that stands keeps its status, with "x is not finite" added when it is so
 * and the measure of x when the message quoted another. */
static void judge(const slv_solver *s, const slv_problem *p, const slv_options *opt,
                  slv_result *res) {
  slv_status st = res->status;
  int finite = isfinite(res->res.res_rel) && !isnan(res->res.res_scaled);
  int met = finite && slv_met(p, opt, &res->res);
  if (st == SLV_CONVERGED && !finite) {
    res->status = SLV_NOT_FINITE;
    slv_msgf(res->message, sizeof res->message, "%s returned a non-finite x", s->name);
  } else if (st == SLV_CONVERGED && !met) {
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
  } else if (st > 0 && st != SLV_INTERRUPTED && st != SLV_ERROR && met) {
    res->status = SLV_CONVERGED;
    slv_msgf(res->message, sizeof res->message,
             "%s ended %s (%d iterations, %d pivots), but its x meets the test: %s %.3g <= tol "
             "%.3g",
             s->name, slv_status_str(st), res->iterations, res->pivots,
             measure_name(opt, &res->res), slv_test_measure(opt, &res->res), opt->tol);
  } else if (st > 0 && !finite && st != SLV_NOT_FINITE) {
    /* keep the solver's verdict but say what the iterate is */
    size_t l = strlen(res->message);
    if (l + 24 < sizeof res->message)
      slv_msgf(res->message + l, sizeof res->message - l, "%sx is not finite", l ? "; " : "");
  } else if (st > 0) {
    note_final_measure(opt, res);
  }
}

/* auto's choice text says what each solver it ran ended with; where
 * slv_solve's verdict on the x kept differs from auto's own status
 * (judge, the global clause), the choice ends with that verdict, so that
 * the two never disagree. */
static void choice_verdict(slv_result *res) {
  if (!res->choice[0] || res->status == res->solver_status) return;
  char note[64];
  slv_msgf(note, sizeof note, "verdict on the x kept: %s", slv_status_str(res->status));
  append_note(res->choice, sizeof res->choice, note);
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
  op->t_current = 0;
  slv_status st = ws->solver->impl->solve(ws->state, op, opt, x, w, res, h);
  op->poll = NULL;
  res->status = st;
  if (st == SLV_TIME_LIMIT || st == SLV_INTERRUPTED) say_stopped(ws->solver, opt, res);
  return st;
}

/* The measures of x and its w on the caller's condensed p, with the
 * global clause, while op runs on its local view: the same A and b, so
 * the same row sizes (op's, found once). */
static slv_residuals residual_on(slv_op *op, const slv_problem *p, const double *x,
                                 const double *w) {
  const slv_problem *view = op->p;
  slv_op_rowscale(op);
  op->p = op->rs_of = p;
  slv_residuals r = slv_residual_op(op, x, w);
  op->p = op->rs_of = view;
  return r;
}

/* The same, w = A x + b computed first. */
static slv_residuals global_residual(slv_op *op, const slv_problem *p, const double *x, double *w) {
  slv_op_w(op, x, w);
  return residual_on(op, p, x, w);
}

int slv_caller_met(slv_op *op, const double *x, const double *w) {
  if (!op->caller_p) return 0;
  slv_residuals r = residual_on(op, op->caller_p, x, w);
  return slv_met(op->caller_p, op->caller_opt, &r);
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
 * <= tol) is not, it runs again from its x with tol_local the last
 * run's tol divided by 100 to 10^4 (by how far the clause is off), or x's
 * own local measure so divided where x meets the former already, on the
 * iterations and time
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
  slv_status best_st = SLV_MAX_ITER, best_own = SLV_MAX_ITER;
  slv_residuals best_r = { 0 };
  const char *best_method = NULL;
  char best_msg[sizeof res->message] = "", best_choice[sizeof res->choice] = "";
  for (;;) {
    slv_status st = run_once(ws, op, &o, x, w, res, h), own = st;
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
    slv_logf(opt,
             "slv_solve(%s): run %d at tol %.3g: %s after %d iterations, res_scaled %.3g, "
             "res_global %.3g (contact %td)",
             ws->solver->name, tl.runs, o.tol, slv_status_str(st), res->iterations, r.res_scaled,
             r.res_global, r.res_contact_at);
    double m = slv_test_measure(opt, &r);
    /* a tightened run that stopped short of its own tol may still have met the caller's */
    if (tl.runs > 1 && full && st != SLV_NOT_FINITE) st = SLV_CONVERGED;
    if (best_m == INFINITY || m < best_m || (full && st == SLV_CONVERGED)) {
      best_m = isnan(m) ? INFINITY : m;
      best_full = full;
      best_st = st;
      best_own = own;
      best_r = r;
      best_method = res->method;
      memcpy(best_msg, res->message, sizeof best_msg);
      memcpy(best_choice, res->choice, sizeof best_choice);
      memcpy(ws->xbest, x, (size_t)n * sizeof *x);
    }
    if (st != SLV_CONVERGED || full) break;
    /* the local test met, the global clause not */
    if (isnan(tl.tol_first)) {
      tl.tol_first = o.tol;
      tl.clause = r.res_global;
    }
    /* below the run's tol, and below what x already has where x meets
     * that already (a run at a tol its start meets returns the start) */
    double f = r.res_global > 0 ? opt->tol / r.res_global : 1e-2;
    f = f < 1e-4 ? 1e-4 : (f > 1e-2 ? 1e-2 : f);
    double local = slv_test_measure_norms(opt, r.res_scaled, r.res_rel_2);
    double from = local <= o.tol * f ? local : o.tol, next = from * f;
    if (next < SLV_TIGHT_MIN) next = from > SLV_TIGHT_MIN ? SLV_TIGHT_MIN : 0;
    if (!(next > 0) || iters >= opt->max_iter) break;
    o.tol = next;
    o.warm_start = 1;
    o.max_iter = opt->max_iter - iters;
    /* the tightened runs may stop on the caller's full test (slv_caller_met) */
    op->caller_p = p;
    op->caller_opt = opt;
  }
  op->caller_p = NULL;
  op->caller_opt = NULL;
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
  res->solver_status = best_own;
  res->iterations = iters;
  res->pivots = pivots;
  if (best_method) res->method = best_method;
  memcpy(res->message, best_msg, sizeof res->message);
  memcpy(res->choice, best_choice, sizeof res->choice);
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

/* Under a time limit or a cancel callback (slv.h, "stopping a solve") a
 * solver returns the iterate it stopped at, which may be worse than its
 * start (a pivoting method's basis, an iterate off the cones).  The start
 * (ws->xstart, copied before the solver ran) is measured as the solver's x
 * was, by the test's measure on the caller's problem, and returned where
 * it is the better of the two (start_better), the message saying so.  The counts stay the
 * work done.  A solve without either costs nothing here. */
static int stoppable(const slv_options *opt) {
  return (opt->time_limit > 0 && opt->time_limit < SLV_TIME_LIMIT_MAX) || opt->cancel;
}

/* The start (measure m0, natural map e0) is the better of the two: by
 * the test's measure, or where the two measures are within 0.1 % (the
 * measure is near 1 for any x far off, x = 0 included: a tie) by
 * res_nat_inf; an iterate with a NaN measure loses to a start without. */
static int start_better(double m0, double e0, double m, double e) {
  if (isnan(m0)) return 0;
  if (isnan(m)) return 1;
  if (fabs(m0 - m) <= 1e-3 * fmax(m0, m)) return e0 < e || (isnan(e) && !isnan(e0));
  return m0 < m;
}

/* Returns 0 where op->t is then K^T x of the start but x the iterate. */
static int keep_start(slv_workspace *ws, slv_op *op, const slv_problem *p, const slv_options *opt,
                      double *x, double *w, slv_result *res) {
  if (res->status != SLV_TIME_LIMIT && res->status != SLV_INTERRUPTED) return 1;
  double m = slv_test_measure(opt, &res->res);
  slv_op_w(op, ws->xstart, ws->wstart);
  slv_residuals r0 = residual_on(op, p, ws->xstart, ws->wstart);
  double m0 = slv_test_measure(opt, &r0);
  if (!start_better(m0, r0.res_nat_inf, m, res->res.res_nat_inf)) return 0;
  size_t n = (size_t)p->n;
  memcpy(x, ws->xstart, n * sizeof *x);
  memcpy(w, ws->wstart, n * sizeof *w);
  res->res = r0;
  char note[120];
  slv_msgf(note, sizeof note, "the start returned: %s %.3g, the iterate's %.3g",
           measure_name(opt, &r0), m0, m);
  append_note(res->message, sizeof res->message, note);
  return 1;
}

/* The first pass over a dense A (slv_scan_dense) into ws->scan, for a
 * solver that tests A's symmetry, where A is there to read (else the
 * validation says why): the validation's finite test, the symmetry test
 * and the digest of A from one read.  NULL: no scan. */
static const slv_scan *scan_first(slv_workspace *ws, const slv_problem *p) {
  if (p->storage != SLV_DENSE || p->n <= 0 || !p->A || p->lda < p->n || !tests_symmetry(ws->solver))
    return NULL;
  slv_scan_dense(p->A, p->n, p->lda, ws->scan_buf, &ws->scan);
  return &ws->scan;
}

/* The checks before a solve: SLV_OK, or the refusal with its message;
 * *sc the first pass's scan, or NULL. */
static slv_status check_inputs(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                               const double *x, const slv_scan **sc, slv_result *res) {
  *sc = NULL;
  if (!ws || !p || !x) {
    slv_msgf(res->message, sizeof res->message, "workspace, problem and x must not be NULL");
    return SLV_ERR_INVALID;
  }
  slv_status st = slv_options_validate(opt, res->message, sizeof res->message);
  if (st) return st;
  if (p->n > ws->n_max) {
    slv_msgf(res->message, sizeof res->message, "n=%d exceeds the workspace's n_max=%d", p->n,
             ws->n_max);
    return SLV_ERR_DIM;
  }
  /* every A_ii > 0, found by the validation's pass (factored rows), and
   * the A_ii kept for the operator of p (slv_op_begin: op->aii) */
  int diag_pos;
  ws->op.diag_of = NULL;
  *sc = scan_first(ws, p);
  st = slv_problem_validate_pos(p, opt->threads, *sc, &diag_pos, ws->op.diag, res->message,
                                sizeof res->message);
  if (st) return st;
  if (diag_pos) ws->op.diag_of = p;
  st = slv_solver_accepts_pos(ws->solver, p, opt->threads, diag_pos, *sc, res->message,
                              sizeof res->message);
  if (st) return st;
  if (opt->warm_start)
    for (int i = 0; i < p->n; i++)
      if (!isfinite(x[i])) {
        slv_msgf(res->message, sizeof res->message, "warm start x[%d] is %g", i, x[i]);
        return SLV_ERR_INVALID;
      }
  return SLV_OK;
}

/* A CSR problem for a solver with dense code only (SLV_CAP_DENSIFY;
 * slv_solver_accepts checked the cap): A copied column-major into the
 * workspace's copy (duplicates summed, as the CSR product does), *dp the
 * same problem on it.  SLV_OK, or SLV_ERR_UNSUPPORTED when the workspace
 * has no copy (its n_max past the cap). */
static slv_status densify(slv_workspace *ws, const slv_problem *p, slv_problem *dp,
                          slv_result *res) {
  size_t n = (size_t)p->n;
  if (!ws->dense) {
    slv_msgf(res->message, sizeof res->message,
             "%s needs dense storage: a workspace of n_max=%d has no dense copy (over %.0f MB), "
             "an implementation limit",
             ws->solver->name, ws->n_max, SLV_DENSIFY_MAX_BYTES / 1048576.0);
    return SLV_ERR_UNSUPPORTED;
  }
  memset(ws->dense, 0, n * n * sizeof *ws->dense);
  for (size_t i = 0; i < n; i++)
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) ws->dense[i + (size_t)p->Aj[k] * n] += p->Ax[k];
  *dp = *p;
  dp->storage = SLV_DENSE;
  dp->A = ws->dense;
  dp->lda = p->n > 0 ? p->n : 1;
  dp->Ap = dp->Aj = NULL;
  dp->Ax = NULL;
  return SLV_OK;
}

/* A solver that wrote its read-only input (digest.c; docs/convergence.md,
 * "A solver that writes its input"): the arrays are not the problem read,
 * so its x is measured against nothing and not judged: SLV_ERROR, every
 * measure NaN, the solver's own status kept, the message naming the
 * array (part), input_written set. */
static slv_status wrote_input(const slv_solver *s, int part, slv_status own, slv_result *res) {
  slv_result_refuse(res, SLV_ERROR);
  res->solver_status = own;
  res->input_written = 1;
  slv_msgf(res->message, sizeof res->message,
           "%s wrote its read-only input (%s changed during the solve): its x is not judged",
           s->name, slv_digest_part_name(part));
  return SLV_ERROR;
}

static slv_status solve_checked(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                                const slv_pauses *pz, double *x, double *w, slv_result *res) {
  memset(res, 0, sizeof *res);
  if (ws) {
    res->method = ws->solver->name;
    ws->kt_p = NULL;
  }
  const slv_scan *sc;
  slv_status st = check_inputs(ws, p, opt, x, &sc, res);
  if (st) return refuse(res, st);
  if (pz && (pz->every < 1 || pz->count < 0)) {
    slv_msgf(res->message, sizeof res->message, "pauses: every=%d must be >= 1, count=%d >= 0",
             pz->every, pz->count);
    return refuse(res, SLV_ERR_OPTIONS);
  }
  /* every array as read, before the solver runs (digest.c) */
  const slv_problem *read = p;
  slv_digest dg;
  slv_digest_take_scan(read, sc, &dg);
  slv_problem dp;
  if (p->storage == SLV_CSR && !(ws->solver->caps & SLV_CAP_SPARSE)) {
    if ((st = densify(ws, p, &dp, res))) return refuse(res, st);
    p = &dp;
  }
  if (!opt->warm_start) slv_start_point(p, x); /* P(0) */
  if (stoppable(opt)) memcpy(ws->xstart, x, (size_t)p->n * sizeof *x);
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
  op.scan = sc;         /* the symmetry maxima of A, where the first pass took them */
  op.rs.xf = ws->floor; /* the test's physical floor, every measure of the solve */
  op.threads = opt->threads;
  op.condensed = p->condensed;
  op.pauses = pz && pz->fn && pz->count > 0 && slv_solver_takes_pauses(ws->solver) ? pz : NULL;
  tighten_log tl = { 0, NAN, NAN, opt->tol, SLV_CONVERGED };
  st = p->condensed ? global_solve(ws, p, &op, opt, x, wb, res, &h, &tl)
                    : run_once(ws, &op, opt, x, wb, res, &h);
  int written = slv_digest_changed(&dg, read);
  if (written >= 0) return wrote_input(ws->solver, written, st, res);
  if (st < 0) return refuse(res, st);
  if (!p->condensed) {
    /* the library's own measures, from (A, b, bounds, x) alone (K^T x
     * kept where the solver says it holds for this x: the same bits) */
    slv_op_w_rows(&op, x, wb);
    res->res = slv_residual_op(&op, x, wb);
    res->solver_status = res->status;
  }
  /* op.t = K^T x of the x returned (slv_op_w_rows; keep_start's where it
   * returns the start), in p's block numbers unless renumbered */
  int t_of_x = op.fac && !p->condensed && op.f.blk == p->fblk;
  if (stoppable(opt) && !keep_start(ws, &op, p, opt, x, wb, res)) t_of_x = 0;
  if (t_of_x) {
    ws->kt_p = p;
    ws->kt_view = *p;
    memcpy(ws->xkt, x, (size_t)p->n * sizeof *x);
  }
  judge(ws->solver, p, opt, res);
  /* why it failed, where a wedge tells (wedge.c); its products overwrite
   * op.t, the cached K^T x */
  if (res->status > 0 && res->status != SLV_INTERRUPTED && slv_wedge_diagnose(&op, x, wb, res) &&
      op.fac)
    ws->kt_p = NULL;
  if (p->condensed) say_tightened(ws->solver, opt, &tl, res);
  choice_verdict(res);
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
  slv_status st = solve_checked(ws, p, opt, NULL, x, w, res);
  log_outcome(ws, opt, res);
  return st;
}

slv_status slv_solve_paused(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                            const slv_pauses *pz, double *x, double *w, slv_result *res) {
  slv_result dummy;
  if (!res) res = &dummy;
  slv_status st = solve_checked(ws, p, opt, pz, x, w, res);
  log_outcome(ws, opt, res);
  return st;
}
