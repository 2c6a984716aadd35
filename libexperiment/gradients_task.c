/* gradients_task.c -- a task of a `gradients` section (experiments/README.md,
 * "Gradients"; docs/gradients.md, "How good is a gradient"): the
 * gradient-quality measure of gradients.c for one (problem, solver), one
 * row per row class present at the reference answer:
 *   problem,n,solver,status,mode,stable,rel_err,solve_s,vjp_s,note,fd_step
 * (exp_csv_header(EXP_GRADIENTS): the columns `make bench-gradients`
 * writes).  The section's seed draws the direction and the cotangents
 * (the same for every solver of a problem: the reference is made once for
 * the tasks of one problem a worker runs in a row), its `repeat` (min_runs,
 * default 1) is how many solves and VJPs the fastest is taken of, its
 * time_limit each solve's own.  A problem without a reference answer, or
 * whose derivative at it is not unique, or a solver that refuses it, gets
 * one row with mode empty, the status (skipped, not_unique, refused) and
 * why as note.
 */
#include "exp_grad.h"
#include "exp_task.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One row of the task: r NULL for a row without numbers (status, note). */
static void grad_line(const exp_tctx *c, const exp_grad_row *r, const char *status,
                      const char *note, exp_line *l) {
  memset(l, 0, sizeof *l);
  exp_line_str(l, c->prob->label);
  exp_line_int(l, c->prob->n);
  exp_line_str(l, exp_solver_name(&c->pl->cfg, &c->t->solver));
  exp_line_str(l, r ? r->status : status);
  exp_line_str(l, r ? r->mode : "");
  if (!r) {
    for (int k = 0; k < 4; k++) exp_line_empty(l);
    exp_line_str(l, note);
    exp_line_empty(l);
    return;
  }
  exp_line_int(l, r->stable);
  exp_line_num(l, r->rel_err);
  exp_line_num(l, r->solve_s);
  exp_line_num(l, r->vjp_s);
  exp_line_str(l, r->note);
  exp_line_num(l, r->fd_step);
}

int exp_gradients_bare_rows(const exp_tctx *c, const char *status, const char *note,
                            exp_rbuf *out) {
  exp_line l;
  grad_line(c, NULL, status, note, &l);
  if (!out) {
    exp_tctx_row((exp_tctx *)c, &l);
    return 0;
  }
  if (exp_rbuf_add(out, "%s\n", l.s) != 0) return -1;
  out->nrows++;
  return 0;
}

void exp_gradients_cache_free(exp_cache *cache) {
  exp_grad_reference_free(cache->grad_ref);
  cache->grad_ref = NULL;
  cache->grad_have = 0;
}

/* The reference of the task's problem (cache->inst) for its section: the
 * cache's when it has it, else made and kept; 0, 1 (none: cache->grad_msg
 * says why) or -1 out of memory (not kept). */
static int reference_of(const exp_tctx *c, const slv_problem *p, exp_cache *cache) {
  if (cache->grad_have && cache->grad_section == c->t->section) return cache->grad_rc;
  exp_gradients_cache_free(cache);
  int rc = exp_grad_reference_new(p, c->s->seed, &cache->grad_ref, cache->grad_msg,
                                  sizeof cache->grad_msg);
  if (rc >= 0) cache->grad_have = 1, cache->grad_section = c->t->section, cache->grad_rc = rc;
  return rc;
}

int exp_gradients_run(exp_tctx *c, const io_instance *inst, exp_cache *cache) {
  slv_problem p = io_instance_problem(inst);
  char msg[256] = "";
  int rc = reference_of(c, &p, cache);
  if (rc != 0) {
    exp_gradients_bare_rows(c, exp_grad_reference_status(rc), cache->grad_msg, NULL);
    return rc < 0 ? 3 : 0;
  }
  exp_grad_row rows[EXP_GRAD_MODES];
  const int repeat = c->s->min_runs > 0 ? (int)c->s->min_runs : 1;
  int nr = exp_grad_solver_rows(&p, cache->grad_ref, c->t->solver.sv, exp_time_limit(c->pl, c->s),
                                repeat, rows, msg, sizeof msg);
  if (nr <= 0) exp_gradients_bare_rows(c, nr < 0 ? "error" : "refused", msg, NULL);
  for (int k = 0; k < nr; k++) {
    exp_line l;
    grad_line(c, &rows[k], NULL, NULL, &l);
    exp_tctx_row(c, &l);
    c->nonconv |= strcmp(rows[k].status, "converged") != 0;
  }
  return nr < 0 ? 3 : 0;
}
