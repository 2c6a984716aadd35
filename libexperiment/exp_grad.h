/* exp_grad.h -- how good is a solver's gradient (gradients.c; issue 83
 * item 4, docs/gradients.md "How good is a gradient"): the calculation a
 * `gradients` section of an experiment file (gradients_task.c) and
 * `make bench-gradients` (experiments/bench_gradients.py, through the
 * Python extension's gradient_rows) both call.
 */
#ifndef EXP_GRAD_H
#define EXP_GRAD_H

#include <stddef.h>
#include <stdio.h>

#include "exp.h"
#include "slv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The classes' names, in the order of the rows (exp.h, EXP_GRAD_MODES). */
extern const char *const exp_grad_mode_names[EXP_GRAD_MODES];

/* The quality table (gradients_quality.c): its header, and its lines of
 * a gradients section's rows (exp_csv_header(EXP_GRADIENTS)) to g; 0, or
 * -1 out of memory or on a write error. */
extern const char *const exp_grad_quality_header;
struct exp_row;
int exp_grad_quality_write(FILE *g, const struct exp_row *rows, int n);

/* The VJP goal per problem (gradients_quality.c; NAME_vjp_goal.csv): its
 * header and its lines -- the fastest solve of an exact solver (lemke,
 * dantzig, enum, nsn_ac) whose answer converged, how many solvers' VJPs
 * (each one's fastest over its rows: each row's VJP is a
  whole backward pass) are within it, the worst one, and
 * the goal: met, missed, "n > 1000", "no exact answer" or "no VJP". */
extern const char *const exp_grad_goal_header;
int exp_grad_goal_write(FILE *g, const struct exp_row *rows, int n);

#ifdef __cplusplus
}
#endif
#endif /* EXP_GRAD_H */
