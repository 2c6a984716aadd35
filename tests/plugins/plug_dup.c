/* plug_dup.c -- a test plugin (tests/test_plugins.sh) that registers a
 * solver named "pgs": refused, the message naming the built-in. */
#include "slv.h"

SLV_PLUGIN_ABI_DEFINE;

static slv_status dup_solve(void *st, slv_call *call, const slv_problem *p, const slv_options *opt,
                            double *x, double *w, void *ctx) {
  (void)st, (void)call, (void)p, (void)opt, (void)x, (void)w, (void)ctx;
  return SLV_CONVERGED;
}

slv_status slv_plugin_init(const char *origin, char *msg, size_t msglen) {
  slv_solver_def d = { 0 };
  d.abi = SLV_SOLVER_ABI;
  d.name = "pgs";
  d.solve = dup_solve;
  return slv_solver_register(&d, origin, msg, msglen);
}
