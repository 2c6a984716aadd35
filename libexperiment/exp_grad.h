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

/* The row classes, in the order of the rows: free, at a bound, separated,
 * sticking, sliding, degenerate. */
#define EXP_GRAD_MODES 6
EXP_API extern const char *const exp_grad_mode_names[EXP_GRAD_MODES];

/* A problem's reference answer, its rows' classes, the direction d on b,
 * the cotangent of each class present and the central difference of the
 * reference along d. */
typedef struct exp_grad_ref exp_grad_ref;

/* The reference of p (borrowed: unchanged while *out lives), its random
 * seeds drawn from seed.  0; 1 with msg when there is none (no reference
 * solver converged at 1e-12 at b or at b +- e d, or no derivative at its
 * answer: the problem is skipped); -1 out of memory. */
EXP_API int exp_grad_reference_new(const slv_problem *p, unsigned long seed, exp_grad_ref **out,
                                   char *msg, size_t cap);
EXP_API void exp_grad_reference_free(exp_grad_ref *r); /* NULL is fine */

/* One class's measure of one solver's gradient. */
typedef struct exp_grad_row {
  const char *mode;   /* exp_grad_mode_names */
  const char *status; /* the solver's: "converged", else slv_status_str */
  int stable;         /* the modes hold at b +- e d, the answer is the reference's */
  double rel_err;     /* |<gb, d> - fd| / max(|fd|, 1e-6 |gx| |dx|); NaN: no VJP (note) */
  double solve_s;     /* the solve at 1e-10, the fastest of repeat */
  double vjp_s;       /* the VJP at its answer, the fastest of repeat; NaN: none */
  double fd_step;     /* k of the central difference (e = k (1 + |b|_inf) / |d|_inf) */
  char note[64];      /* "another answer", the VJP's refusal, or "" */
} exp_grad_row;

/* sv's solve of p at tol 1e-10 (time_limit s; repeat >= 1 solves, the
 * fastest timed) and its gradient per class of r into rows
 * (EXP_GRAD_MODES at most): their count; 0 with msg when sv refuses p or
 * returns no finite answer; -1 out of memory. */
EXP_API int exp_grad_solver_rows(const slv_problem *p, const exp_grad_ref *r, const slv_solver *sv,
                                 double time_limit, int repeat, exp_grad_row *rows, char *msg,
                                 size_t cap);

/* The quality table (gradients_quality.c): its header, and its lines of
 * a gradients section's rows (exp_csv_header(EXP_GRADIENTS)) to g; 0, or
 * -1 out of memory or on a write error. */
EXP_API extern const char *const exp_grad_quality_header;
struct exp_row;
int exp_grad_quality_write(FILE *g, const struct exp_row *rows, int n);
/* The same table, header first, of a gradients CSV given as text ('#'
 * lines before the header skipped): *out malloc'd (free it).  0, or -1
 * with err (not a gradients CSV; out of memory). */
EXP_API int exp_grad_quality_of_csv(const char *csv, char **out, char *err, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* EXP_GRAD_H */
