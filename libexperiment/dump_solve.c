/* dump_solve.c -- one solve written to files that reproduce it
 * (exp_dump_solve), the helper behind `lcplab simulate --dump-failures`;
 * the problem is written by the one writer of a step's problem
 * (exp_step_problem_write), with the solver and its options.
 *
 * exp_dump_solve(DIR, N, ...) writes
 *     DIR/stepN.lcp    the problem in lcplab's format (datasets/README.md),
 *                      in the storage the solver got -- dense, CSR or the
 *                      factored J, M^-1 J^T of a large scene, so that the
 *                      same arithmetic runs again -- with the solver's name
 *                      and every option it got (sections 'solver' and
 *                      'options'), which `lcplab solve` takes as its
 *                      defaults for that file;
 *     DIR/stepN.warm   the start the solver got, one value per line
 *                      (%.17g), when it was warm-started (opt.warm_start);
 *     DIR/stepN.x      the solver's x.
 * Then `lcplab solve DIR/stepN.lcp --warm DIR/stepN.warm` runs the same
 * solver with the same options from the same start on the same arrays, and
 * gives the same status and residual bit for bit (tests/test_simulate.sh).
 * Without a warm start there is no .warm: `lcplab solve DIR/stepN.lcp`
 * starts, like the world did, from P(0).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp_internal.h"
#include "slv.h"
#include "io.h"

/* DIR/stepN.SUFFIX into buf; 0 if too long. */
static int step_path(char *buf, size_t len, const char *dir, long step, const char *suffix) {
  int r = snprintf(buf, len, "%s/step%ld.%s", dir, step, suffix);
  return r >= 0 && (size_t)r < len;
}

int exp_dump_solve(const char *dir, long step, const slv_problem *p, const double *x_start,
                   const double *x_solver, const char *solver, const slv_options *opt, char *err,
                   size_t errlen) {
  char path[4096], name[64];
  snprintf(name, sizeof name, "step%ld", step);
  if (!step_path(path, sizeof path, dir, step, "warm")) {
    snprintf(err, errlen, "%s: the path of step %ld's files is too long", dir, step);
    return -1;
  }
  exp_solve_record rec = { solver, opt };
  step_path(path, sizeof path, dir, step, "lcp");
  slv_status st = exp_step_problem_write(path, IO_FMT_LCPLAB, p, name, &rec, NULL, err, errlen);
  if (st == SLV_OK && opt->warm_start) {
    step_path(path, sizeof path, dir, step, "warm");
    st = io_write_vector(path, p->n, x_start, err, errlen);
  }
  if (st == SLV_OK) {
    step_path(path, sizeof path, dir, step, "x");
    st = io_write_vector(path, p->n, x_solver, err, errlen);
  }
  return st == SLV_OK ? 0 : -1;
}
