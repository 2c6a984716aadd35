/* world_run.c -- the run of a world: one step loop and one per-step
 * record, used by `lcplab simulate`, `lcplab export`, Python's World and
 * the experiment engine's scene tasks and scene exports (dyn_run.h, "the
 * step loop"; docs/dynamics.md, "Runs"); and the measures of the last step's
 * solve at the impulses it applied (dyn_world_last_residual, dyn_world.h).
 *
 * dyn_world_run steps a built world K times and hands each step's record
 * to the caller's callback: what the caller does with a step (a CSV row, a
 * file, a dump of a failed solve, a watchdog) is the callback's business;
 * the loop, the applied label, the status of a rejected step and the
 * run's energy baseline for the drift exist here once.
 */
#include <stdio.h>
#include <string.h>

#include "dyn_run.h"
#include "world_data.h"

/* The scratch of a factored problem's one-pass residual: w (n) and t (6
 * nblk), grown when a larger step needs more (world_storage.c's rule). */
static int residual_scratch_reserve(dyn_world *w, int n, int nblk) {
  return dyn_buf_reserve(&w->res_w, (size_t)n, &w->grows) == 0 &&
         dyn_buf_reserve(&w->res_t, 6 * (size_t)nblk, &w->grows) == 0;
}

slv_residuals dyn_world_last_residual(dyn_world *w) {
  slv_problem p;
  const double *x;
  dyn_world_last_problem(w, &p, &x);
  slv_residuals r;
  memset(&r, 0, sizeof r);
  if (p.n <= 0 || !x) return r;
  if (p.storage != SLV_FACTORED) return slv_residual(&p, x, NULL); /* one pass already */
  /* w = A x + b formed first, one pass over the rows (slv_problem_w_t):
   * slv_residual alone makes one per slice of rows above 256 blocks */
  if (!residual_scratch_reserve(w, p.n, p.nblk)) return slv_residual(&p, x, NULL);
  slv_problem_w_t(&p, x, w->res_w.p, w->res_t.p, p.nblk);
  return slv_residual(&p, x, w->res_w.p);
}

void dyn_applied_label(const dyn_world_metrics *m, char *buf, size_t len) {
  if (m->applied == DYN_APPLIED_FALLBACK)
    snprintf(buf, len, "fallback:%s", m->fallback_solver ? m->fallback_solver : "?");
  else
    snprintf(buf, len, "%s", dyn_applied_str(m->applied));
}

/* The record of a step the world rejected: its failed solve's status when
 * the step's solve failed, else "failed" (a numerical failure) or
 * "refused" (the request itself). */
static void rejected_record(dyn_world *w, long k, dyn_err e, dyn_run_step *st) {
  dyn_world_solve ls;
  st->status = e == DYN_ERR_NUMERIC ? "failed" : "refused";
  if (e == DYN_ERR_NUMERIC && dyn_world_last_solve(w, &ls) && ls.step == k && ls.failed)
    st->status = slv_status_str(ls.status);
  snprintf(st->applied, sizeof st->applied, "none");
}

int dyn_world_run(dyn_world *w, long K, dyn_run_fn on_step, void *ctx, long *done) {
  long k0 = dyn_world_step_count(w);
  double E0 = dyn_world_energy(w, NULL, NULL), S = dyn_world_drift_scale(w, E0);
  if (done) *done = 0;
  for (long j = 1; j <= K; j++) {
    dyn_run_step st;
    memset(&st, 0, sizeof st);
    st.k = k0 + j;
    st.energy0 = E0;
    st.drift_scale = S;
    st.err = dyn_world_step(w, &st.m);
    if (st.err == DYN_OK) {
      dyn_applied_label(&st.m, st.applied, sizeof st.applied);
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
