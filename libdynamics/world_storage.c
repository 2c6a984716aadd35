/*
 * world_storage.c -- where a step's problem lives: its storage (dense, CSR
 * or factored), the assembly system for that storage and the solver
 * workspaces, each grown only when a step needs more than any before.
 *
 * Storage (docs/problem.md, "Storage"): DYN_STORAGE_AUTO gives a dense A
 * up to settings.dense_max_rows rows; above, the matrix-free factored form
 * (J and M^-1 J^T per row, slv.h SLV_FACTORED: nothing O(nnz(A)) is
 * formed, a pgs sweep costs 24 flops a row) when the solver takes it and
 * the friction model is not the pyramid, else CSR (a dense A never exists
 * for a large scene: each storage has its own dyn_system), or dense at any
 * size when the solver takes no CSR (then at most DYN_WORLD_DENSE_LIMIT
 * rows).  The CSR capacity is an upper bound on nnz(A) counted in O(rows)
 * from the row count deg(beta) of each body: row i has at most deg(b0) +
 * deg(b1) + 2 (+ the pyramid's eta + 1) entries.  Nothing per step is
 * O(bodies^2) or O(rows^2) on the CSR path.
 *
 * Memory: systems grow by x 1.5 in rows (and entries); a solver workspace
 * by x 1.25 (pgs sizes a packed copy of a dense A by n_max^2 / 4).
 */
#include "world_data.h"

#include <stdint.h>
#include <string.h>

/* A dense A of n rows holds n^2 doubles: 8192 rows are 512 MiB. */
#define DYN_WORLD_DENSE_LIMIT 8192

dyn_err dyn_world_pick_storage(dyn_world *w, slv_storage *out) {
  const dyn_world_settings *S = &w->set;
  unsigned caps = w->solver->caps;
  int sparse_ok = (caps & SLV_CAP_SPARSE) != 0, fact_ok = (caps & SLV_CAP_FACTORED) != 0;
  int pyramid = S->contact.friction == DYN_FRICTION_PYRAMID;
  switch (S->storage) {
  case DYN_STORAGE_DENSE: *out = SLV_DENSE; return DYN_OK;
  case DYN_STORAGE_CSR:
    if (!sparse_ok)
      return dyn_world_fail(w, DYN_ERR_INPUT,
                            "solver %s takes dense storage only (storage csr asked)",
                            w->solver->name);
    *out = SLV_CSR;
    return DYN_OK;
  case DYN_STORAGE_FACTORED:
    if (!fact_ok)
      return dyn_world_fail(w, DYN_ERR_INPUT,
                            "solver %s needs an explicit A (storage factored asked; pgs takes "
                            "it)",
                            w->solver->name);
    if (pyramid)
      return dyn_world_fail(w, DYN_ERR_INPUT,
                            "the friction pyramid has no factored form "
                            "(storage factored asked)");
    *out = SLV_FACTORED;
    return DYN_OK;
  case DYN_STORAGE_AUTO:
  default:
    if (!sparse_ok || w->nrows <= S->dense_max_rows)
      *out = SLV_DENSE;
    else
      *out = fact_ok && !pyramid ? SLV_FACTORED : SLV_CSR;
    return DYN_OK;
  }
}

/* An upper bound on nnz(A) of the rows (the header). */
static long csr_bound(dyn_world *w) {
  const dyn_rows *rows = w->rows.p;
  int n = w->nrows, *deg = w->deg.p;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0) deg[rows[i].body[k]] = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0) deg[rows[i].body[k]]++;
  long nnz = 0;
  for (int i = 0; i < n; i++) {
    long m = 2;
    for (int k = 0; k < 2; k++)
      if (rows[i].body[k] >= 0) m += deg[rows[i].body[k]];
    if (rows[i].kind == DYN_ROW_AUX) m += 1 + rows[i].aux_count;
    nnz += m;
  }
  return nnz;
}

/* Create or grow the slot's system to r rows, nb bodies, z entries. */
static dyn_err grow_slot(dyn_world *w, dyn_sys_slot *slot, unsigned kind, const char *what, int r,
                         int nb, long z) {
  char m[200] = "";
  dyn_err e;
  if (!slot->sys)
    e = dyn_system_new(r, nb, kind, z, &slot->sys, m, sizeof m);
  else
    e = dyn_system_reserve(slot->sys, r, nb, kind, z);
  if (e != DYN_OK) {
    const char *why = slot->sys ? dyn_system_message(slot->sys) : m;
    if (kind == DYN_SYS_CSR)
      return dyn_world_fail(w, e, "cannot reserve a CSR system of %d rows, %ld entries: %s", r, z,
                            why);
    return dyn_world_fail(w, e, "cannot reserve a %s system of %d rows: %s", what, r, why);
  }
  w->grows++;
  slot->rows = r;
  slot->nb = nb;
  slot->nnz = z;
  return DYN_OK;
}

static dyn_err reserve_dense(dyn_world *w, int n, int nb) {
  if (n > DYN_WORLD_DENSE_LIMIT)
    return dyn_world_fail(w, DYN_ERR_INPUT,
                          "a dense A of %d rows is too large (limit %d): use "
                          "a solver that takes CSR",
                          n, DYN_WORLD_DENSE_LIMIT);
  dyn_sys_slot *d = &w->dense;
  if (d->sys && n <= d->rows && nb <= d->nb) return DYN_OK;
  int r = n > d->rows ? n + n / 2 : d->rows;
  if (r > DYN_WORLD_DENSE_LIMIT) r = DYN_WORLD_DENSE_LIMIT;
  if (w->set.storage == DYN_STORAGE_AUTO && (w->solver->caps & SLV_CAP_SPARSE) &&
      r > w->set.dense_max_rows && n <= w->set.dense_max_rows)
    r = w->set.dense_max_rows;
  return grow_slot(w, d, DYN_SYS_DENSE, "dense", r, nb, 0);
}

static dyn_err reserve_csr(dyn_world *w, int n, int nb) {
  dyn_sys_slot *c = &w->csr;
  long nnz = csr_bound(w);
  if (c->sys && n <= c->rows && nb <= c->nb && nnz <= c->nnz) return DYN_OK;
  int r = n > c->rows ? n + n / 2 : c->rows;
  long z = nnz > c->nnz ? nnz + nnz / 2 : c->nnz;
  if (z > INT32_MAX) z = nnz;
  return grow_slot(w, c, DYN_SYS_CSR, "CSR", r, nb, z);
}

dyn_err dyn_world_reserve_system(dyn_world *w, slv_storage storage, dyn_system **out) {
  int n = w->nrows, nb = (int)w->state.cap;
  dyn_err e;
  dyn_sys_slot *slot;
  if (storage == SLV_FACTORED) {
    slot = &w->fact;
    e = slot->sys && n <= slot->rows && nb <= slot->nb
            ? DYN_OK
            : grow_slot(w, slot, DYN_SYS_FACTORED, "factored",
                        n > slot->rows ? n + n / 2 : slot->rows, nb, 0);
  } else if (storage == SLV_DENSE) {
    slot = &w->dense;
    e = reserve_dense(w, n, nb);
  } else {
    slot = &w->csr;
    e = reserve_csr(w, n, nb);
  }
  *out = slot->sys;
  return e;
}

void dyn_solver_slot_free(dyn_solver_slot *slot) {
  slv_workspace_free(slot->ws);
  slot->ws = NULL;
  slot->n = 0;
  slot->solver = NULL;
}

dyn_err dyn_world_reserve_solver(dyn_world *w, dyn_solver_slot *slot, const slv_solver *s, int n,
                                 const slv_options *opt) {
  if (slot->ws && slot->solver == s && n <= slot->n) return DYN_OK;
  /* x 1.25: pgs's workspace grows with n_max^2 */
  int had = slot->solver == s ? slot->n : 0;
  int nn = n + n / 4 > had ? n + n / 4 : had;
  dyn_solver_slot_free(slot);
  slv_status st = slv_workspace_new(s, nn, opt, &slot->ws);
  if (st != SLV_OK || !slot->ws)
    return dyn_world_fail(w, st == SLV_ERR_NOMEM ? DYN_ERR_NOMEM : DYN_ERR_INPUT,
                          "cannot create the workspace of solver %s for n=%d: %s", s->name, nn,
                          slv_status_str(st));
  slot->solver = s;
  slot->n = nn;
  w->grows++;
  return DYN_OK;
}

dyn_err dyn_world_reserve_rows(dyn_world *w, size_t n) {
  int fail = 0;
  fail |= dyn_buf_reserve(&w->rows, n, &w->grows);
  fail |= dyn_buf_reserve(&w->x, n, &w->grows);
  fail |= dyn_buf_reserve(&w->wv, n, &w->grows);
  fail |= dyn_buf_reserve(&w->xstart, n, &w->grows);
  fail |= dyn_buf_reserve(&w->xsolver, n, &w->grows);
  fail |= dyn_buf_reserve(&w->xalt, n, &w->grows);
  if (fail) return dyn_world_fail(w, DYN_ERR_NOMEM, "out of memory for %zu rows", n);
  return DYN_OK;
}
