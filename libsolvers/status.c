/* status.c -- slv_status to string (a switch, so no table to keep in sync),
 * and the message/log helpers of slv_internal.h. */
#include "slv_internal.h"

#include <stdio.h>

const char *slv_status_str(slv_status s) {
  switch (s) {
  case SLV_ERR_OPTIONS: return "invalid_options";
  case SLV_ERR_NOMEM: return "out_of_memory";
  case SLV_ERR_DIM: return "bad_dimension";
  case SLV_ERR_UNSUPPORTED: return "unsupported";
  case SLV_ERR_INVALID: return "invalid_problem";
  case SLV_CONVERGED: return "converged";
  case SLV_MAX_ITER: return "max_iter";
  case SLV_STAGNATED: return "stagnated";
  case SLV_RAY_TERMINATION: return "ray_termination";
  case SLV_SINGULAR_PIVOT: return "singular_pivot";
  case SLV_NOT_FINITE: return "not_finite";
  case SLV_BREAKDOWN: return "breakdown";
  case SLV_NO_SOLUTION: return "no_solution";
  }
  return "unknown_status";
}

const char *slv_cone_law_str(slv_cone_law law) {
  switch (law) {
  case SLV_CONE_COULOMB: return "coulomb";
  case SLV_CONE_ASSOCIATED: return "associated";
  }
  return "unknown_cone_law";
}

void slv_msgf(char *msg, size_t len, const char *fmt, ...) {
  if (!msg || len == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, len, fmt, ap);
  va_end(ap);
}

void slv_logf(const slv_options *opt, const char *fmt, ...) {
  if (!opt || !opt->log_fn) return;
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  opt->log_fn(opt->log_ctx, line);
}

int slv_all_finite(int n, const double *x) {
  /* one pass, no early exit: x*0 is NaN iff x is NaN or Inf, and a sum with
   * a NaN term is NaN.  Four independent sums, so that the loop runs at the
   * adds' throughput rather than their latency (it checks every entry of a
   * dense A at each solve). */
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += x[i] * 0.0;
    s1 += x[i + 1] * 0.0;
    s2 += x[i + 2] * 0.0;
    s3 += x[i + 3] * 0.0;
  }
  for (; i < n; i++) s0 += x[i] * 0.0;
  return (s0 + s1) + (s2 + s3) == 0.0;
}
