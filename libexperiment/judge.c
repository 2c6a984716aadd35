/* judge.c -- the judgement every solver's answer gets, built-in or
 * external (slv.h's promise; docs/convergence.md, "The measure"): converged
 * when the library's test holds on the residuals slv_residual recomputed
 * from (A, b, lo, hi, x) -- slv_residuals_met, res_scaled <= tol in the
 * infinity norm -- whatever the solver said of itself.  A built-in solver's
 * status already carries it (slv_solve applies the same test); an external
 * solver's x is judged here (external.c).
 */
#include "exp_task.h"

int exp_judge(const slv_problem *p, const slv_residuals *res, double tol) {
  (void)p;
  return slv_residuals_met(res, tol, SLV_NORM_INF);
}
