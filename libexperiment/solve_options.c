/* solve_options.c -- the options of one solve of `lcplab solve`: the
 * library's defaults (slv_options_default), the options a file records
 * over them (io_instance.opt_given: a step written by simulate
 * --dump-failures names its solver and options), the command line's flags
 * over that (exp_solve_flags).  The JSON lists what came from the file
 * (exp_solve_from_file).
 */
#include "exp.h"

int exp_solve_from_file(const exp_solve_flags *fl, const io_instance *inst, unsigned bit) {
  if (!(inst->opt_given & bit)) return 0;
  switch (bit) {
  case IO_OPT_TOL: return !fl->have_tol;
  case IO_OPT_MAX_ITER:
  case IO_OPT_MAX_PIVOTS: return !fl->have_max_iter;
  case IO_OPT_OMEGA: return !fl->have_omega;
  case IO_OPT_NORM: return !fl->have_norm;
  case IO_OPT_WARM_START: return !fl->warm;
  default: return 1;
  }
}

/* The field `bit` of the file's options fo copied into opt. */
static void take_option(slv_options *opt, const slv_options *fo, unsigned bit) {
  switch (bit) {
  case IO_OPT_MAX_ITER: opt->max_iter = fo->max_iter; break;
  case IO_OPT_TOL: opt->tol = fo->tol; break;
  case IO_OPT_NORM: opt->norm = fo->norm; break;
  case IO_OPT_OMEGA: opt->omega = fo->omega; break;
  case IO_OPT_DAMPING: opt->damping = fo->damping; break;
  case IO_OPT_PIVOT_TOL: opt->pivot_tol = fo->pivot_tol; break;
  case IO_OPT_WARM_START: opt->warm_start = fo->warm_start; break;
  case IO_OPT_CHECK_EVERY: opt->check_every = fo->check_every; break;
  case IO_OPT_MAX_PIVOTS: opt->max_pivots = fo->max_pivots; break;
  default: opt->seed = fo->seed; break;
  }
}

slv_options exp_solve_options(const exp_solve_flags *fl, const io_instance *inst) {
  slv_options opt = slv_options_default();
  for (int k = 0; k < IO_OPT_COUNT; k++)
    if (exp_solve_from_file(fl, inst, 1u << k)) take_option(&opt, &inst->opt, 1u << k);
  if (fl->have_tol) opt.tol = fl->tol;
  if (fl->have_max_iter) /* sweeps for iterative solvers, pivots for pivoting ones */
    opt.max_iter = opt.max_pivots = (int)fl->max_iter;
  if (fl->have_omega) opt.omega = fl->omega;
  opt.time_limit = fl->time_limit;
  if (fl->threads > 0) opt.threads = (int)fl->threads;
  if (fl->have_norm) opt.norm = fl->norm;
  if (fl->warm) opt.warm_start = 1;
  opt.record_history = fl->history;
  opt.simd = fl->simd;
  return opt;
}
