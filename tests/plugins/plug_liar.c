/* plug_liar.c -- a test plugin (tests/test_plugins.sh) whose solver
 * "plug_liar" returns x = 0 and says converged: slv_solve must overrule it
 * (docs/convergence.md, "The verdict on the final iterate").  Under
 * LCPLAB_TEST_PLUGIN=crash it dies of SIGSEGV inside its solve, under
 * =nan it returns a NaN x and says converged, under =loop it runs until
 * its poll says stop (time limit, cancel), under =stamp it appends "S
 * time pid" and, 0.1 s later, "E time pid" to the file $STAMP_LOG
 * (tests/test_timed_alone.sh: when its solves run). */
#define _POSIX_C_SOURCE 200809L

#include "slv.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

SLV_PLUGIN_ABI_DEFINE;

/* A line "tag seconds pid" appended to $STAMP_LOG (the clock of date +%s.%N). */
static void stamp(const char *tag) {
  const char *path = getenv("STAMP_LOG");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  fprintf(f, "%s %lld.%09ld %ld\n", tag, (long long)t.tv_sec, t.tv_nsec, (long)getpid());
  fclose(f);
}

static slv_status liar_solve(void *st, slv_call *call, const slv_problem *p, const slv_options *opt,
                             double *x, double *w, void *ctx) {
  (void)st, (void)opt, (void)w, (void)ctx;
  const char *mode = getenv("LCPLAB_TEST_PLUGIN");
  mode = mode ? mode : "";
  if (strcmp(mode, "crash") == 0) raise(SIGSEGV);
  if (strcmp(mode, "stamp") == 0) {
    struct timespec pause = { 0, 100000000L };
    stamp("S");
    nanosleep(&pause, NULL);
    stamp("E");
  }
  for (int i = 0; i < p->n; i++) x[i] = strcmp(mode, "nan") == 0 ? NAN : 0.0;
  for (int k = 0; strcmp(mode, "loop") == 0; k++) {
    slv_call_iteration(call, k, 1.0);
    slv_status stop = slv_call_poll(call, 1e6);
    if (stop) return stop;
  }
  slv_call_iteration(call, 1, 0.0);
  return SLV_CONVERGED;
}

slv_status slv_plugin_init(const char *origin, char *msg, size_t msglen) {
  slv_solver_def d = { 0 };
  d.abi = SLV_SOLVER_ABI;
  d.name = "plug_liar";
  d.summary = "says converged on x = 0 (a test plugin)";
  d.caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_CONE | SLV_CAP_SPARSE |
           SLV_CAP_FACTORED;
  d.solve = liar_solve;
  return slv_solver_register(&d, origin, msg, msglen);
}
