/* solve_repeat.c -- the timed solve of `lcplab solve --repeat R` and of
 * Python's lcplab.solve: R solves in one workspace, each from the same
 * start, clock_gettime(CLOCK_MONOTONIC) (exp_now_s) around slv_solve only
 * (reading, workspace creation and the copy of the start excluded), the
 * median and minimum of the R times (exp_time_summary).  The experiment
 * engine's repetition rule for a campaign's tasks is task.c's (warm-up,
 * then runs until exp_repeat_done).
 *
 * What a registered solver solves (exp_problem_for; docs/plugins.md,
 * "Safety"): a C plugin can write its const input, which slv_solve
 * detects (docs/convergence.md, "A solver that writes its input") but
 * cannot undo.  So code the project did not write gets a private copy of
 * the problem, made by the caller outside the timed region and freed
 * after the workspace (a solver's free function may still write it): the
 * caller's arrays (a Python user's Problem, a campaign worker's cached
 * problem) stay as read whatever it does.  A run that wrote its input
 * ends the repeats.
 */
#include "exp_internal.h"

#include <string.h>

const slv_problem *exp_problem_for(const slv_solver *sv, const slv_problem *p, exp_copy *c) {
  memset(c, 0, sizeof *c);
  if (!slv_solver_origin(sv)) return p; /* a built-in: never writes (slv.h), checked anyway */
  c->inst = io_instance_of_problem(p, NULL, NULL, 1);
  if (!c->inst) return NULL;
  c->p = io_instance_problem(c->inst);
  c->p.condensed = p->condensed;
  return &c->p;
}

void exp_copy_free(exp_copy *c) {
  io_instance_free(c->inst);
  c->inst = NULL;
}

slv_status exp_solve_repeat(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                            const double *x0, double *x, double *w, long repeat, double *times,
                            slv_result *res, exp_tsum *sum) {
  size_t n = p->n > 0 ? (size_t)p->n : 1;
  slv_status st = SLV_OK;
  long r = 0;
  while (r < repeat) {
    if (x0) memcpy(x, x0, n * sizeof *x);
    double t0 = exp_now_s();
    st = slv_solve(ws, p, opt, x, w, res);
    times[r++] = exp_now_s() - t0;
    if (st < 0) return st;
    if (res->input_written) break; /* the next run would solve what it wrote */
  }
  exp_time_summary(times, (int)r, sum);
  return st;
}
