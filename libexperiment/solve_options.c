/* solve_options.c -- the options of one solve of `lcplab solve`: the
 * library's defaults (slv_options_default), the options a file records
 * over them (io_instance.opt_given: a step written by simulate
 * --dump-failures names its solver and options), the command line's flags
 * over that (exp_solve_flags).  The JSON lists what came from the file
 * (exp_solve_from_file).
 */
#include "exp_internal.h"

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

/* Option k of the file's options fo into opt, by libsolvers' options by
 * name (its text from slv_options_get reads back to the same value). */
static void take_option(slv_options *opt, const slv_options *fo, int k) {
  char text[64];
  if (slv_options_get(fo, io_option_name(k), text, sizeof text) == SLV_OK)
    slv_options_set(opt, io_option_name(k), text, NULL, 0);
}

void exp_options_budget(slv_options *opt, long max_iter, long max_pivots) {
  if (max_iter > 0) opt->max_iter = opt->max_pivots = (int)max_iter;
  if (max_pivots > 0) opt->max_pivots = (int)max_pivots;
}

slv_options exp_solve_options(const exp_solve_flags *fl, const io_instance *inst) {
  slv_options opt = slv_options_default();
  for (int k = 0; k < IO_OPT_COUNT; k++)
    if (exp_solve_from_file(fl, inst, 1u << k)) take_option(&opt, &inst->opt, k);
  if (fl->have_tol) opt.tol = fl->tol;
  if (fl->have_max_iter) exp_options_budget(&opt, fl->max_iter, 0);
  if (fl->have_omega) opt.omega = fl->omega;
  opt.time_limit = fl->time_limit;
  if (fl->threads > 0) opt.threads = (int)fl->threads;
  if (fl->have_norm) opt.norm = fl->norm;
  if (fl->warm) opt.warm_start = 1;
  opt.record_history = fl->history;
  opt.simd = fl->simd;
  return opt;
}
