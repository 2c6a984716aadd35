/* solve_repeat.c -- the timed solve of `lcplab solve --repeat R` and of
 * Python's lcplab.solve: R solves in one workspace, each from the same
 * start, clock_gettime(CLOCK_MONOTONIC) (exp_now_s) around slv_solve only
 * (reading, workspace creation and the copy of the start excluded), the
 * median and minimum of the R times (exp_time_summary).  The experiment
 * engine's repetition rule for a campaign's tasks is task.c's (warm-up,
 * then runs until exp_repeat_done).
 */
#include "exp.h"

#include <string.h>

slv_status exp_solve_repeat(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                            const double *x0, double *x, double *w, long repeat, double *times,
                            slv_result *res, exp_tsum *sum) {
  size_t n = p->n > 0 ? (size_t)p->n : 1;
  slv_status st = SLV_OK;
  for (long r = 0; r < repeat; r++) {
    if (x0) memcpy(x, x0, n * sizeof *x);
    double t0 = exp_now_s();
    st = slv_solve(ws, p, opt, x, w, res);
    times[r] = exp_now_s() - t0;
    if (st < 0) return st;
  }
  exp_time_summary(times, (int)repeat, sum);
  return st;
}
