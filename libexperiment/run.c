/* run.c -- the scene run: one step loop and one per-step record, used by
 * `lcplab simulate`, `lcplab export`, the experiment engine's scene tasks
 * and scene exports (exp.h, "scene runs"; docs/README.md, "Follow one
 * step").
 *
 * exp_run_steps steps a built world K times and hands each step's record
 * to the caller's callback: what the caller does with a step (a CSV row, a
 * file, a dump of a failed solve, a watchdog) is the callback's business;
 * the loop, the applied label and the status of a rejected step exist here
 * once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_world.h"
#include "exp.h"

slv_residuals exp_last_residual(const dyn_world *w) {
  slv_problem p;
  const double *x;
  dyn_world_last_problem(w, &p, &x);
  slv_residuals r;
  memset(&r, 0, sizeof r);
  if (p.n <= 0 || !x) return r;
  if (p.storage != SLV_FACTORED) return slv_residual(&p, x, NULL); /* one pass already */
  double *wv = malloc((size_t)p.n * sizeof *wv), *t = malloc(6 * (size_t)p.nblk * sizeof *t);
  if (wv && t) slv_problem_w_t(&p, x, wv, t, p.nblk);
  r = slv_residual(&p, x, wv && t ? wv : NULL);
  free(wv);
  free(t);
  return r;
}

void exp_applied_label(const dyn_world_metrics *m, char *buf, size_t len) {
  if (m->applied == DYN_APPLIED_FALLBACK)
    snprintf(buf, len, "fallback:%s", m->fallback_solver ? m->fallback_solver : "?");
  else
    snprintf(buf, len, "%s", dyn_applied_str(m->applied));
}

/* The record of a step the world rejected: its failed solve's status when
 * the step's solve failed, else "failed" (a numerical failure) or
 * "refused" (the request itself). */
static void rejected_record(dyn_world *w, long k, dyn_err e, exp_step *st) {
  dyn_world_solve ls;
  st->status = e == DYN_ERR_NUMERIC ? "failed" : "refused";
  if (e == DYN_ERR_NUMERIC && dyn_world_last_solve(w, &ls) && ls.step == k && ls.failed)
    st->status = slv_status_str(ls.status);
  snprintf(st->applied, sizeof st->applied, "none");
}

int exp_run_steps(dyn_world *w, long K, exp_step_fn on_step, void *ctx, long *done) {
  long k0 = dyn_world_step_count(w);
  if (done) *done = 0;
  for (long j = 1; j <= K; j++) {
    exp_step st;
    memset(&st, 0, sizeof st);
    st.k = k0 + j;
    st.err = dyn_world_step(w, &st.m);
    if (st.err == DYN_OK) {
      exp_applied_label(&st.m, st.applied, sizeof st.applied);
      st.status = slv_status_str(st.m.status);
      if (done) *done = j;
    } else {
      rejected_record(w, st.k, st.err, &st);
    }
    int rc = on_step ? on_step(ctx, w, &st) : 0;
    if (rc != 0) return rc;
    if (st.err != DYN_OK) return -1;
  }
  return 0;
}
