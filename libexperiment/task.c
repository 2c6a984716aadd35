/* task.c -- one task of a plan: its solves, measured, and its
 * result file (experiments/README.md, "Tasks" and "Timing").
 *
 * A problem task (problem, solver) runs, for each tolerance of the section
 * (loosest first):
 *   - the refusal check (slv_solver_accepts): a refused problem gets a row
 *     with status "refused" and the reason as note, never a solve;
 *   - one workspace, one warm-up slv_solve, then timed slv_solve calls from
 *     the cold start (opt.warm_start = 0), clock_gettime(CLOCK_MONOTONIC)
 *     around slv_solve only (a problem condensed from a global one: around
 *     its condensation again and the solve, timed_solve below), until
 *     exp_repeat_done: at least min_runs runs
 *     and min_time seconds in all (5 and 0.1 s by default), or max_time
 *     seconds (2 s) for a slow solve; when the warm-up alone passes max_time
 *     it is the one measurement.  The row has the median (time_s), the
 *     quartiles (time_q1_s, time_q3_s: the spread), the minimum and the
 *     number of runs (repeats);
 *   - the section's time limit is each solve's own (opt.time_limit): a
 *     solve that reaches it returns its best iterate with status time_limit,
 *     measured like any other (its residuals in the row, not solved), and
 *     is not repeated; every solve also runs under the watchdog, which ends
 *     a solve that does not come back (backstop_s below) with a result
 *     whose row for this tolerance, and for the stricter ones not run, says
 *     time_limit with empty residuals;
 *   - "converged" is the library's promise: slv_residuals_met recomputed from
 *     (A, b, lo, hi, x) by slv_residual, the same code for every solver;
 *   - a registered solver (a C plugin, a Python callable) solves a private
 *     copy of the problem (exp_problem_for), freed after its workspace, so
 *     the worker's cached problem, which its next tasks solve, is never
 *     handed to code the project did not write; a solve that wrote its
 *     input (slv_result's input_written, status error) ends the runs, the
 *     stricter tolerances' rows say error, not run, and a written cache
 *     is read again by the next task (docs/convergence.md, "A solver that
 *     writes its input");
 *   - method: the algorithm that ran (run_method below);
 *   - convergence kind: the history of the test's measure (res_scaled) per iteration of the last
 *     run, thinned to every k <= 20 then a 5 % geometric grid, with the time
 *     of iteration k (iter_time below), and a final row.
 * The watchdog is a thread of the task's process (watchdog.c); the rows'
 * layout is rows.c's; an external solver's task is external.c's, a scene
 * task scene_task.c's and a scene peer's scene_peer.c's.
 */
#define _GNU_SOURCE

#include "exp_task.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* seconds past the time limit before the watchdog ends a built-in solve (backstop_s) */
#define EXP_BACKSTOP_GRACE_S 10.0

/* ---- rows without numbers ------------------------------------------------------------------ */

/* A convergence row: history entry k (final 0) or the final one (final 1). */
static void conv_row(const exp_tctx *c, const char *status, long iteration, double t,
                     double res_scaled, int final, const char *method, const char *tsrc, double tol,
                     const char *note, exp_line *l) {
  const exp_prob *p = c->prob;
  memset(l, 0, sizeof *l);
  exp_line_str(l, p->label);
  exp_line_str(l, p->kind);
  exp_line_int(l, p->n);
  exp_line_str(l, exp_solver_name(&c->pl->cfg, &c->t->solver));
  exp_line_str(l, status);
  if (iteration >= 0) {
    exp_line_int(l, iteration);
    exp_line_num(l, t);
    exp_line_num(l, res_scaled);
  } else {
    exp_line_empty(l);
    exp_line_empty(l);
    exp_line_empty(l);
  }
  exp_line_int(l, final);
  exp_line_str(l, exp_class_str(p->cls));
  exp_line_str(l, method);
  exp_line_str(l, tsrc);
  exp_line_tol(l, tol);
  exp_line_str(l, note);
}

/* The rows a problem task gets for tols[from..nt) without numbers. */
static void empty_rows(exp_tctx *c, const double *tols, int from, int nt, const char *status,
                       const char *note, exp_rbuf *out) {
  for (int k = from; k < nt; k++) {
    exp_line l;
    if (c->s->kind == EXP_CONVERGENCE) {
      conv_row(c, status, -1, 0, 0, 1, "", "", tols[k], note, &l);
    } else {
      exp_prow r = { .status = status, .tol = tols[k], .note = note };
      exp_problem_row(c, &r, &l);
    }
    if (out) {
      exp_rbuf_add(out, "%s\n", l.s);
      out->nrows++;
    } else {
      exp_tctx_row(c, &l);
    }
  }
}

/* ---- measuring a built-in solver ---------------------------------------------------------- */

/* The algorithm that ran: the library's res.method (pgs for pgs_wide on a
 * dense or CSR problem: docs/solvers.md, "pgs_wide"; auto's choice), the
 * solver's own name when a refusal left it unset. */
static const char *run_method(const slv_solver *sv, const slv_result *res) {
  return res->method ? res->method : sv->name;
}

/* Seconds from the start of the solve to history entry k of K: the
 * library's timestamp of that entry (res.history_time, CLOCK_MONOTONIC when
 * it was recorded), "measured"; without one, T k / K with T the median solve
 * time, "interpolated". */
static double iter_time(const slv_result *res, int k, int K, double T, const char **source) {
  if (res->history_time && k < res->history_len) {
    *source = "measured";
    return res->history_time[k];
  }
  *source = "interpolated";
  return K > 0 ? T * k / K : 0.0;
}

typedef struct meas {
  slv_status status;
  slv_result res;
  exp_tsum t;
  int runs;
  const char *method;
  char msg[256];
} meas;

static slv_options base_options(const exp_section *s, double tol) {
  slv_options opt = s->opt; /* the section's `option` lines over the defaults */
  opt.tol = tol;
  opt.max_iter = 10000;
  exp_options_budget(&opt, s->max_iter, s->max_pivots);
  opt.seed = s->seed;
  opt.warm_start = 0;
  opt.record_history = s->kind == EXP_CONVERGENCE;
  return opt;
}

/* One solve under the watchdog.  A problem condensed from a global one
 * (inst->global) is condensed again inside the timed region and the solve
 * runs on that copy (the same W and q bit for bit), so its time runs from
 * the problem as read to the answer, as a peer's on the global file does
 * (experiments/README.md, "Timing"). */
static slv_status timed_solve(const io_instance *inst, slv_workspace *ws, const slv_problem *p,
                              const slv_options *opt, double *x, double *w, slv_result *res,
                              double *dt) {
  io_instance *again = NULL;
  slv_status st;
  double t0 = exp_now_s();
  if (inst->global) {
    st = io_instance_condense_again(inst, &again, res->message, sizeof res->message);
    if (st) {
      *dt = exp_now_s() - t0;
      res->status = st;
      return st;
    }
    slv_problem pa = io_instance_problem(again);
    pa.condensed = p->condensed; /* the copy has no global part; the test keeps its clause */
    st = slv_solve(ws, &pa, opt, x, w, res);
  } else {
    st = slv_solve(ws, p, opt, x, w, res);
  }
  *dt = exp_now_s() - t0;
  io_instance_free(again);
  return st;
}

/* The stack offset of timed run r: 16-byte steps through the 256 offsets
 * in [0, 4096) in a fixed order (157 is odd: r -> 157 r mod 256 is a
 * permutation), so the runs of a task meet every alignment of its stack
 * against its arrays modulo a page (experiments/README.md, "Timing"). */
static size_t run_stack_offset(int r) {
  return 16u * (size_t)((157u * (unsigned)r) % 256u);
}
#define STACK_SHIFT_MAX (16u * 255u) /* the largest run_stack_offset */

/* timed_solve with the stack moved down by off bytes first: the solve's
 * frames then sit at another address modulo a page.  Where a store and a
 * later load are a multiple of 4096 bytes apart (a stack slot and an
 * array) the load can stall, so one alignment can make a solve much slower
 * than another (experiments/records/2026-11-28-timing.md). */
static __attribute__((noinline)) slv_status
timed_solve_shifted(size_t off, const io_instance *inst, slv_workspace *ws, const slv_problem *p,
                    const slv_options *opt, double *x, double *w, slv_result *res, double *dt) {
  char pad[off + 16];
  pad[0] = 0;
  __asm__ volatile("" : : "r"(pad) : "memory");
  return timed_solve(inst, ws, p, opt, x, w, res, dt);
}

/* The digest of a solution: FNV-1a 64 of x's bytes as hex (x_digest; two
 * runs with the same digest returned the same x bit for bit). */
static void x_digest(const double *x, int n, char out[17]) {
  uint64_t h = exp_fnv1a(0xcbf29ce484222325ull, x, (size_t)(n > 0 ? n : 0) * sizeof *x);
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The repetition rule of a task (header): exp_repeat_done and, with the
 * section's precision P > 0, the median's 95 % interval within P of it
 * (exp_median_precision, checked each time the runs have grown by a
 * quarter), or max_time, the budget, whichever comes first.  work holds
 * runs doubles. */
static int enough_runs(const exp_section *s, const double *times, double *work, int runs,
                       double total, int *next_check) {
  if (runs >= 1 && total >= s->max_time) return 1;
  if (!exp_repeat_done(runs, total, (int)s->min_runs, s->min_time, s->max_time)) return 0;
  if (!(s->precision > 0.0)) return 1;
  if (runs < *next_check) return 0;
  *next_check = runs + (runs / 4 > 1 ? runs / 4 : 1);
  return exp_median_precision(times, runs, work) <= s->precision; /* NaN: more runs */
}

/* The speed guard of one row's timed runs (speed.c): the runs since the
 * last check are kept when the next check finds the CPU at speed, and
 * taken back (made again) when it finds it slow, unless the slow spell has
 * lasted EXP_SPEED_SPELL_S or the row's runs made again add up to it: then
 * they are kept and counted (a machine slow throughout still gets its times
 * and a row's time stays bounded; the timing CSV says how many). */
typedef struct guard {
  exp_speed *sp; /* NULL: no checks */
  double next;
  int kept_runs;
  double kept_total;
  double again_s; /* the time of this row's runs made again: at most EXP_SPEED_SPELL_S */
} guard;

/* Checks the CPU when a block is due (force: now).  0: the runs stand (the
 * block kept); 1: the block's runs were taken back (*runs, *total). */
static int guard_block(guard *g, int force, int *runs, double *total) {
  if (!g->sp || *runs == g->kept_runs) return 0;
  if (!force && exp_now_s() < g->next) return 0;
  int at_speed = exp_speed_check(g->sp);
  g->next = exp_now_s() + EXP_SPEED_BLOCK_S;
  if (!at_speed && exp_speed_waits(g->sp) && g->again_s < EXP_SPEED_SPELL_S) {
    g->again_s += *total - g->kept_total;
    g->sp->discarded += *runs - g->kept_runs;
    *runs = g->kept_runs;
    *total = g->kept_total;
    return 1;
  }
  if (!at_speed) g->sp->kept_slow += *runs - g->kept_runs;
  g->kept_runs = *runs;
  g->kept_total = *total;
  return 0;
}

/* Warm-up, then runs until the repetition rule is met (header), each run at
 * another stack offset (run_stack_offset) and each block of runs kept only
 * if the CPU ran at speed through it (guard); times holds 2 cap doubles: the
 * runs' times, then enough_runs' work. */
static void measure(exp_tctx *c, const io_instance *inst, slv_workspace *ws, const slv_problem *p,
                    const slv_options *opt, double *x, double *w, double *times, int cap, meas *m) {
  const exp_section *s = c->s;
  double dt;
  /* the warm-up at the deepest offset: the timed runs then touch no new stack page */
  m->status = timed_solve_shifted(STACK_SHIFT_MAX, inst, ws, p, opt, x, w, &m->res, &dt);
  m->runs = 0;
  if (m->status >= 0 && (dt >= s->max_time || m->status == SLV_TIME_LIMIT)) {
    times[m->runs++] = dt; /* the warm-up is the one measurement */
  } else {
    double total = 0.0;
    int next_check = 0;
    guard g = { c->speed, exp_now_s() + EXP_SPEED_BLOCK_S, 0, 0.0, 0.0 };
    /* a solve that wrote its input ends the runs: the next would solve what it wrote */
    while (m->status >= 0 && m->status != SLV_TIME_LIMIT && !m->res.input_written &&
           m->runs < cap) {
      if (enough_runs(s, times, times + cap, m->runs, total, &next_check)) {
        if (!guard_block(&g, 1, &m->runs, &total)) break;
        next_check = 0;
      } else if (guard_block(&g, 0, &m->runs, &total)) {
        next_check = 0;
      }
      m->status =
          timed_solve_shifted(run_stack_offset(m->runs), inst, ws, p, opt, x, w, &m->res, &dt);
      times[m->runs++] = dt;
      total += dt;
    }
  }
  if (m->status < 0) {
    snprintf(m->msg, sizeof m->msg, "%s", m->res.message);
    return;
  }
  exp_time_summary(times, m->runs, &m->t);
  m->method = run_method(slv_workspace_solver(ws), &m->res);
}

/* The note of a measured row: empty when converged, else the library's
 * message and, where it tells why (slv_result.diagnosis: a wedge), that. */
static const char *failure_note(const meas *m, char *buf, size_t len) {
  if (m->status == SLV_CONVERGED) return "";
  if (!m->res.diagnosis[0]) return m->res.message;
  exp_fmt(buf, len, "%s%s%s", m->res.message, m->res.message[0] ? "; " : "", m->res.diagnosis);
  return buf;
}

/* The history rows of a convergence task. */
static void history_rows(exp_tctx *c, const meas *m, double tol) {
  const char *st = slv_status_str(m->status);
  int K = m->res.history_len - 1;
  double last_grid = -1.0;
  const char *src = "library";
  for (int k = 0; k <= K; k++) {
    if (k > 20 && k < K && (double)k < last_grid * 1.05) continue;
    last_grid = k;
    exp_line l;
    double tk = iter_time(&m->res, k, K, m->t.median, &src);
    conv_row(c, st, k, tk, m->res.history[k], 0, m->method, src, tol, "", &l);
    exp_tctx_row(c, &l);
  }
  exp_line l;
  char note[sizeof m->res.message + sizeof m->res.diagnosis + 2];
  conv_row(c, st, m->res.iterations > 0 ? m->res.iterations : m->res.pivots, m->t.median,
           m->res.res.res_scaled, 1, m->method, K >= 0 ? src : "library", tol,
           failure_note(m, note, sizeof note), &l);
  exp_tctx_row(c, &l);
}

/* The rows of tols[ti..nt) if the limit passes during tol ti. */
static char *timeout_rows(exp_tctx *c, const double *tols, int ti, int nt, int *nrows) {
  exp_rbuf b = { 0 };
  char note[160];
  snprintf(note, sizeof note, "time limit %g s reached%s", exp_time_limit(c->pl, c->s),
           nt - ti > 1 ? " (stricter tolerances not run)" : "");
  empty_rows(c, tols, ti, nt, "time_limit", note, &b);
  *nrows = b.nrows;
  return b.buf;
}

/* The watchdog's deadline around one tolerance's solves of a built-in
 * solver.  Each solve has the time limit as its own (opt.time_limit: it
 * stops at its next poll with its best iterate, status time_limit, and the
 * row keeps its residuals); the watchdog only ends a solve that does not
 * come back: after the limit, the repeats' max_time, and a grace for the
 * poll that is in progress (a factorization of a 10^4-contact Newton matrix
 * takes seconds). */
static double backstop_s(const exp_section *s, double limit) {
  return limit + s->max_time + fmax(EXP_BACKSTOP_GRACE_S, 0.1 * limit);
}

/* The task ran out of memory before its solves: not a verdict on the
 * solver but on the process (its memory limit, LCPLAB_MEMORY_LIMIT), so
 * the task is "crashed", runs again next time, and its rows say why. */
static void out_of_memory(exp_tctx *c, const double *tols, int nt) {
  char note[160];
  exp_fmt(note, sizeof note, "out of memory before the solves (the task's memory limit)");
  snprintf(c->head->task_status, sizeof c->head->task_status, "crashed");
  exp_fmt(c->head->message, sizeof c->head->message, "%s", note);
  empty_rows(c, tols, 0, nt, "crashed", note, NULL);
}

/* After a solve that wrote its input (slv_result's input_written; the
 * x_digest and row of that tolerance written): the stricter tolerances
 * are not run on what it wrote, their rows error with its message; a
 * written cache is read again by the next task (run_problem_task). */
static void after_write(exp_tctx *c, const exp_copy *own, const meas *m, const double *tols, int ti,
                        int nt) {
  char note[256];
  exp_fmt(note, sizeof note, "not run: %s", m->res.message);
  empty_rows(c, tols, ti + 1, nt, "error", note, NULL);
  if (!own->inst) c->cache_written = 1;
}

/* The rows of one tolerance's measured solves (m). */
static void measured_rows(exp_tctx *c, const meas *m, const double *x, int n, double tol) {
  char xd[17];
  x_digest(x, n, xd);
  if (c->s->kind == EXP_CONVERGENCE) {
    history_rows(c, m, tol);
    return;
  }
  char note[sizeof m->res.message + sizeof m->res.diagnosis + 2];
  exp_prow r = { slv_status_str(m->status),
                 tol,
                 m->res.iterations,
                 m->res.pivots,
                 m->runs,
                 m->t,
                 "library",
                 m->method,
                 m->res.res.res_rel,
                 m->res.res.res_nat_inf,
                 1,
                 failure_note(m, note, sizeof note),
                 0.0,
                 0,
                 &m->res.res,
                 xd,
                 NULL,
                 0.0 };
  exp_line l;
  exp_problem_row(c, &r, &l);
  exp_tctx_row(c, &l);
}

/* The solves of each tolerance on q (the task's problem, or the solver's
 * own copy of it: exp_problem_for). */
static void run_tols(exp_tctx *c, const io_instance *inst, slv_workspace *ws, const exp_copy *own,
                     const slv_problem *q, const double *tols, int nt, double *x, double *w,
                     double *times) {
  for (int ti = 0; ti < nt; ti++) {
    slv_options opt = base_options(c->s, tols[ti]);
    opt.time_limit = exp_time_limit(c->pl, c->s);
    int nx;
    char *extra = timeout_rows(c, tols, ti, nt, &nx);
    exp_wd_arm(c->wd, backstop_s(c->s, opt.time_limit), extra, nx);
    free(extra);
    meas m;
    memset(&m, 0, sizeof m);
    measure(c, inst, ws, q, &opt, x, w, times, EXP_RUNS_MAX, &m);
    exp_wd_disarm(c->wd);
    if (m.status < 0) {
      empty_rows(c, tols, ti, ti + 1, "refused", m.msg, NULL);
      continue;
    }
    c->nonconv |= m.status != SLV_CONVERGED;
    measured_rows(c, &m, x, q->n, tols[ti]);
    if (m.res.input_written) {
      after_write(c, own, &m, tols, ti, nt);
      return;
    }
  }
}

static int run_builtin(exp_tctx *c, const io_instance *inst, const double *tols, int nt) {
  const slv_solver *sv = c->t->solver.sv;
  slv_problem p = io_instance_problem(inst);
  char msg[256] = "";
  if (slv_solver_accepts(sv, &p, msg, sizeof msg) != SLV_OK) {
    empty_rows(c, tols, 0, nt, "refused", msg, NULL);
    return 0;
  }
  slv_options opt = base_options(c->s, tols[nt - 1]);
  slv_workspace *ws = NULL;
  slv_status st = slv_workspace_new(sv, p.n > 0 ? p.n : 1, &opt, &ws);
  if (st != SLV_OK) {
    snprintf(msg, sizeof msg, "workspace: %s", slv_status_str(st));
    empty_rows(c, tols, 0, nt, "refused", msg, NULL);
    return 0;
  }
  /* code the project did not write solves a copy of its own; a global
   * problem's solves each get a condensation of their own (timed_solve) */
  exp_copy own = { 0 };
  const slv_problem *q = inst->global ? &p : exp_problem_for(sv, &p, &own);
  size_t m1 = (size_t)(p.n > 0 ? p.n : 1);
  double *x = malloc(m1 * sizeof *x), *w = malloc(m1 * sizeof *w);
  double *times = malloc(2 * (size_t)EXP_RUNS_MAX * sizeof *times); /* measure's */
  if (!x || !w || !times || !q) {
    out_of_memory(c, tols, nt);
    free(x), free(w), free(times);
    slv_workspace_free(ws);
    exp_copy_free(&own);
    return 3;
  }
  run_tols(c, inst, ws, &own, q, tols, nt, x, w, times);
  free(x);
  free(w);
  free(times);
  slv_workspace_free(ws); /* before the copy: a solver's free may still write it */
  exp_copy_free(&own);
  return 0;
}

/* ---- rows of a task that did not finish ---------------------------------------------------- */

int exp_task_bare_rows(const exp_plan *pl, int i, const char *status, const char *note,
                       exp_rbuf *out) {
  const exp_task *t = &pl->tasks[i];
  exp_tctx c = {
    pl, i,  t, &pl->cfg.sec[t->section], t->prob >= 0 ? &pl->probs[t->prob] : NULL, NULL, NULL,
    0,  "", 0,    NULL
  };
  if (t->prob < 0) return exp_scene_bare_rows(&c, status, note, out);
  if (c.s->kind == EXP_GRADIENTS) return exp_gradients_bare_rows(&c, status, note, out);
  double tols[EXP_MAX_TOLS];
  int nt = exp_section_tols(c.s, tols);
  empty_rows(&c, tols, 0, nt, status, note, out);
  return out->buf || nt == 0 ? 0 : -1;
}

/* ---- the task ------------------------------------------------------------------------------ */

void exp_cache_free(exp_cache *c) {
  exp_gradients_cache_free(c);
  io_instance_free(c->inst);
  c->inst = NULL;
  c->prob = -1;
}

/* 0 when the problem file still has the contents the plan recorded (its
 * SHA-256: the task's key), else -1 with err set. */
static int same_contents(const exp_prob *p, char *err, size_t len) {
  char sha[65];
  if (exp_sha256_file(p->path, sha, err, len) != 0) return -1;
  if (strcmp(sha, p->sha256) == 0) return 0;
  exp_fmt(err, len,
          "%s changed since the plan was made (SHA-256 %.12s, the plan's %.12s): make the plan "
          "again (lcplab experiment ... --plan DIR --force)",
          p->path, sha, p->sha256);
  return -1;
}

static const io_instance *load_problem(const exp_plan *pl, int prob, exp_cache *cache, char *err,
                                       size_t len) {
  if (cache->inst && cache->prob == prob) return cache->inst;
  exp_cache_free(cache);
  if (same_contents(&pl->probs[prob], err, len) != 0) return NULL;
  io_instance *inst = NULL;
  io_read_options ro = io_read_options_default();
  if (pl->max_memory > 0) ro.max_memory = pl->max_memory;
  slv_status st = io_read_with(pl->probs[prob].path, IO_FMT_AUTO, &ro, &inst, err, len);
  if (st != SLV_OK) {
    if (!err[0]) exp_fmt(err, len, "%s: %s", pl->probs[prob].path, slv_status_str(st));
    return NULL;
  }
  cache->inst = inst;
  cache->prob = prob;
  return inst;
}

static int run_problem_task(exp_tctx *c, exp_cache *cache) {
  exp_result *head = c->head;
  double tols[EXP_MAX_TOLS];
  int nt = exp_section_tols(c->s, tols);
  char err[512] = "";
  const io_instance *inst = load_problem(c->pl, c->t->prob, cache, err, sizeof err);
  if (!inst) {
    snprintf(head->task_status, sizeof head->task_status, "error");
    snprintf(head->message, sizeof head->message, "%s", err);
    if (c->s->kind == EXP_GRADIENTS)
      exp_gradients_bare_rows(c, "error", err, NULL);
    else
      empty_rows(c, tols, 0, nt, "error", err, NULL);
    return 3;
  }
  int rc = c->s->kind == EXP_GRADIENTS ? exp_gradients_run(c, inst, cache)
           : c->t->solver.sv           ? run_builtin(c, inst, tols, nt)
                                       : exp_external_run(c, inst, tols, nt);
  if (c->cache_written) exp_cache_free(cache); /* the next task reads the file again */
  return rc;
}

/* A task of a scene section: drift and accuracy run one scene per step row
 * (scene_task.c); a scenes section's row is a run summary, of lcplab's own
 * run (scene_task.c) or of a scene peer's (scene_peer.c); a fidelity
 * section's rows are judged runs (fidelity_task.c). */
static int run_scene_task(exp_tctx *c) {
  if (c->s->kind == EXP_FIDELITY) return exp_fidelity_run(c);
  if (c->s->kind != EXP_SCENES) return exp_scene_run(c);
  return c->t->solver.sv ? exp_scene_summary_run(c) : exp_scene_peer_run(c);
}

/* When a file the task's external solver runs, its plugin, or a file its
 * model line reads changed since the plan was made (program.c,
 * plan_plugins.c, plan_models.c), the task does not run: its result says error and why,
 * so no result of another version of the program is ever taken for this
 * one's.  3 then, else 0. */
static int programs_changed(exp_tctx *c) {
  char err[512];
  exp_rbuf rows = { 0 };
  int ext = c->t->solver.ext;
  if (!exp_models_changed(c->pl, c->index, err, sizeof err) &&
      (ext >= 0 ? !exp_programs_changed(c->pl, ext, err, sizeof err)
                : !exp_plugin_changed(c->pl, c->t->solver.sv, err, sizeof err)))
    return 0;
  snprintf(c->head->task_status, sizeof c->head->task_status, "error");
  exp_fmt(c->head->message, sizeof c->head->message, "%s", err);
  exp_task_bare_rows(c->pl, c->index, "error", err, &rows);
  for (char *r = rows.buf, *e; r && (e = strchr(r, '\n')); r = e + 1) {
    exp_line l;
    memset(&l, 0, sizeof l);
    exp_fmt(l.s, sizeof l.s, "%.*s", (int)(e - r), r);
    exp_tctx_row(c, &l);
  }
  exp_rbuf_free(&rows);
  return 3;
}

/* The result of task i, which could not start, written without a watchdog:
 * task_status crashed, head's message, its rows crashed.  3, or -1 when it
 * could not be written either. */
static int commit_crashed(const exp_plan *pl, int i, const char *path, exp_result *head) {
  exp_rbuf rows = { 0 };
  snprintf(head->task_status, sizeof head->task_status, "crashed");
  head->prov.load_end = head->prov.load_start;
  int rc = exp_task_bare_rows(pl, i, "crashed", head->message, &rows) == 0 &&
                   exp_result_commit(path, head, &rows, 0, NULL) == 0
               ? 3
               : -1;
  exp_rbuf_free(&rows);
  return rc;
}

/* The speed checks of one task (exp_result's speed): the worker's counts
 * after it (sign 1) less those before (sign -1). */
static void speed_counts(const exp_speed *sp, long out[4], int sign) {
  out[0] += sign * sp->checks;
  out[1] += sign * sp->slow;
  out[2] += sign * sp->discarded;
  out[3] += sign * sp->kept_slow;
}

int exp_task_run(const exp_plan *pl, int i, exp_cache *cache, int *nonconv) {
  char path[EXP_PATH_MAX + 64];
  exp_result_path(pl, i, path, sizeof path);
  exp_result *head = calloc(1, sizeof *head);
  if (!head) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "task %d: out of memory", i);
    return -1;
  }
  exp_result_identify(pl, i, head);
  snprintf(head->task_status, sizeof head->task_status, "ok");
  if (!cache->have_prov) {
    exp_prov_gather(&cache->prov);
    cache->have_prov = 1;
  }
  head->prov = cache->prov;
  head->prov.load_start = exp_loadavg();
  const exp_task *t = &pl->tasks[i];
  const exp_section *s = &pl->cfg.sec[t->section];
  exp_wd *wd = exp_wd_start(path, head);
  exp_tctx c = {
    pl, i, t, s, t->prob >= 0 ? &pl->probs[t->prob] : NULL, wd, head, 0, "", 0, &cache->speed
  };
  int rc;
  if (!wd) {
    /* memory ran out before the task could start (a thread's stack under
     * the memory limit): crashed, so that it runs again */
    exp_fmt(head->message, sizeof head->message, "%s",
            errno == ENOMEM ? "out of memory before the task could start"
                            : "cannot start the watchdog thread (out of memory?)");
    rc = commit_crashed(pl, i, path, head);
    if (rc < 0) exp_say(&pl->cfg.log, EXP_SAY_ERROR, "task %d: %s", i, head->message);
  } else {
    speed_counts(&cache->speed, head->speed, -1);
    rc = programs_changed(&c);
    if (rc == 0) rc = t->prob >= 0 ? run_problem_task(&c, cache) : run_scene_task(&c);
    speed_counts(&cache->speed, head->speed, 1);
    exp_tctx_scratch_remove(&c);
    if (rc == 3 && strcmp(head->task_status, "ok") == 0)
      snprintf(head->task_status, sizeof head->task_status, "error");
    if (rc == 3 && !head->message[0])
      snprintf(head->message, sizeof head->message, "the task could not run");
    if (rc == 0 && strcmp(head->task_status, "failed") == 0) rc = 3;
    if (exp_wd_commit(wd)) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: cannot write the result: %s", path,
              exp_beneath_why(errno));
      rc = -1;
    }
  }
  exp_wd_stop(wd);
  if (nonconv) *nonconv = c.nonconv;
  free(head);
  return rc;
}
