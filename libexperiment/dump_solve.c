/* dump_solve.c -- a problem as an owned instance (exp_instance_of), and one
 * solve written to files that reproduce it (exp_dump_solve): the helpers
 * behind `lcplab export` and `lcplab simulate --dump-failures`.
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

#include "exp.h"
#include "slv.h"
#include "io.h"

/* The matrix of p into inst: dense (lda = n), CSR as it is, factored as it
 * is when keep_factored, else as its explicit CSR.  0 on failure. */
static int copy_matrix(io_instance *inst, const slv_problem *p, int keep_factored) {
  int n = p->n;
  size_t m = n > 0 ? (size_t)n : 1;
  if (p->storage == SLV_DENSE) {
    inst->A = malloc(m * m * sizeof *inst->A);
    if (!inst->A) return 0;
    for (int j = 0; j < n; j++)
      memcpy(inst->A + (size_t)j * (size_t)n, p->A + (size_t)j * (size_t)p->lda,
             (size_t)n * sizeof *inst->A);
    return 1;
  }
  if (p->storage == SLV_FACTORED && !keep_factored) {
    char msg[160];
    inst->storage = SLV_CSR;
    return slv_factored_csr_new(p, &inst->Ap, &inst->Aj, &inst->Ax, msg, sizeof msg) == SLV_OK;
  }
  if (p->storage == SLV_FACTORED) {
    inst->nblk = p->nblk;
    inst->fblk = malloc(2 * m * sizeof *inst->fblk);
    inst->fJ = malloc(12 * m * sizeof *inst->fJ);
    inst->fK = malloc(12 * m * sizeof *inst->fK);
    inst->fd = p->fd ? malloc(m * sizeof *inst->fd) : NULL;
    if (!inst->fblk || !inst->fJ || !inst->fK || (p->fd && !inst->fd)) return 0;
    memcpy(inst->fblk, p->fblk, 2 * (size_t)n * sizeof *inst->fblk);
    memcpy(inst->fJ, p->fJ, 12 * (size_t)n * sizeof *inst->fJ);
    memcpy(inst->fK, p->fK, 12 * (size_t)n * sizeof *inst->fK);
    if (p->fd) memcpy(inst->fd, p->fd, (size_t)n * sizeof *inst->fd);
    return 1;
  }
  size_t nnz = (size_t)p->Ap[n];
  inst->Ap = malloc((m + 1) * sizeof *inst->Ap);
  inst->Aj = malloc((nnz ? nnz : 1) * sizeof *inst->Aj);
  inst->Ax = malloc((nnz ? nnz : 1) * sizeof *inst->Ax);
  if (!inst->Ap || !inst->Aj || !inst->Ax) return 0;
  memcpy(inst->Ap, p->Ap, ((size_t)n + 1) * sizeof *inst->Ap);
  memcpy(inst->Aj, p->Aj, nnz * sizeof *inst->Aj);
  memcpy(inst->Ax, p->Ax, nnz * sizeof *inst->Ax);
  return 1;
}

/* findex + mu (only when some row is a friction row) and the cones. */
static int copy_friction(io_instance *inst, const slv_problem *p) {
  int n = p->n, has_findex = 0;
  size_t m = n > 0 ? (size_t)n : 1;
  for (int i = 0; p->findex && i < n; i++) has_findex |= p->findex[i] >= 0;
  if (has_findex) {
    inst->findex = malloc(m * sizeof *inst->findex);
    inst->mu = malloc(m * sizeof *inst->mu);
    if (!inst->findex || !inst->mu) return 0;
    memcpy(inst->findex, p->findex, (size_t)n * sizeof *inst->findex);
    for (int i = 0; i < n; i++) inst->mu[i] = p->mu ? p->mu[i] : 0.0;
  }
  if (p->ncones > 0) {
    inst->cone_rows = malloc((size_t)p->ncones * sizeof *inst->cone_rows);
    inst->cone_mu = malloc((size_t)p->ncones * sizeof *inst->cone_mu);
    if (!inst->cone_rows || !inst->cone_mu) return 0;
    memcpy(inst->cone_rows, p->cone_rows, (size_t)p->ncones * sizeof *inst->cone_rows);
    memcpy(inst->cone_mu, p->cone_mu, (size_t)p->ncones * sizeof *inst->cone_mu);
    inst->ncones = p->ncones;
  }
  return 1;
}

io_instance *exp_instance_of(const slv_problem *p, const char *name, int keep_factored) {
  io_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return NULL;
  int n = p->n;
  size_t m = n > 0 ? (size_t)n : 1;
  inst->n = n;
  inst->format = IO_FMT_AUTO;
  inst->storage = p->storage;
  inst->cone_law = p->cone_law;
  inst->opt = slv_options_default();
  snprintf(inst->name, sizeof inst->name, "%s", name);
  inst->b = malloc(m * sizeof *inst->b);
  inst->lo = malloc(m * sizeof *inst->lo);
  inst->hi = malloc(m * sizeof *inst->hi);
  if (!copy_matrix(inst, p, keep_factored) || !inst->b || !inst->lo || !inst->hi ||
      !copy_friction(inst, p)) {
    io_instance_free(inst);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    inst->b[i] = p->b[i];
    inst->lo[i] = p->lo ? p->lo[i] : 0.0;
    inst->hi[i] = p->hi ? p->hi[i] : INFINITY;
  }
  io_instance_classify(inst);
  return inst;
}

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
  io_instance *inst = exp_instance_of(p, name, 1);
  if (!inst) {
    snprintf(err, errlen, "out of memory for the problem of step %ld (n=%d)", step, p->n);
    return -1;
  }
  snprintf(inst->solver, sizeof inst->solver, "%s", solver);
  inst->opt = *opt;
  inst->opt_given = (1u << IO_OPT_COUNT) - 1u;
  step_path(path, sizeof path, dir, step, "lcp");
  slv_status st = io_write(path, IO_FMT_LCPLAB, inst, err, errlen);
  io_instance_free(inst);
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
