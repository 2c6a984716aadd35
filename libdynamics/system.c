/*
 * system.c -- a dyn_system's buffers: allocated once by max_rows, nb and
 * max_nnz (dyn_system_new), grown between steps (dyn_system_reserve),
 * freed; the message of its last failure.  What fills them: assemble.c.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_assemble_internal.h"
#include "dyn_system_internal.h"

dyn_err dyn_system_threads_reserve(dyn_system *s, int threads) {
  if (!s) return DYN_ERR_INPUT;
  s->threads = threads;
  size_t need = threads > 1 ? (size_t)threads * ((size_t)s->max_nb + 1) : 0;
  if (need <= s->tcnt_cap) return DYN_OK;
  int *p = realloc(s->tcnt, need * sizeof *p);
  if (!p) {
    s->threads = 1;
    dyn_msgf(s->msg, sizeof s->msg, "out of memory for the row lists of %d threads", threads);
    return DYN_ERR_NOMEM;
  }
  s->tcnt = p;
  s->tcnt_cap = need;
  return DYN_OK;
}

/* n elements of `size` bytes, zeroed (calloc: the pages of a large
 * array, a dense A or CSR's capacity, are made where they are written);
 * *fail set when memory is short (and then nothing more is allocated). */
static void *sys_alloc(size_t n, size_t size, int *fail) {
  if (*fail) return NULL;
  void *p = calloc(n ? n : 1, size);
  if (!p) *fail = 1;
  return p;
}

/* The same for the rows' J and G, which every step writes and the solve
 * reads over their whole length: a large one in slv_alloc_large's memory,
 * whose huge pages those passes walk with fewer TLB entries. */
static void *sys_alloc_rows(size_t n, size_t size, int *fail) {
  if (*fail || n == 0 || n > SIZE_MAX / size || n * size < SLV_LARGE_BYTES)
    return sys_alloc(n, size, fail);
  void *p = slv_alloc_large(n * size);
  if (p)
    memset(p, 0, n * size);
  else
    *fail = 1;
  return p;
}

void dyn_system_free(dyn_system *s) {
  if (!s) return;
  free(s->A);
  free(s->Ap);
  free(s->Aj);
  free(s->Ax);
  free(s->b);
  free(s->lo);
  free(s->hi);
  free(s->mu);
  free(s->cone_mu);
  free(s->findex);
  free(s->cone_rows);
  free(s->rbody);
  free(s->J);
  free(s->G);
  free(s->Minv);
  free(s->siso);
  free(s->ufree);
  free(s->bdyn);
  free(s->dv);
  free(s->cfm);
  free(s->rhs);
  free(s->bptr);
  free(s->blist);
  free(s->aux_of);
  free(s->mark);
  free(s->tcnt);
  free(s);
}

dyn_err dyn_system_new(int max_rows, int nb, unsigned storages, long max_nnz, dyn_system **out,
                       char *msg, size_t msgcap) {
  if (!out) {
    dyn_msgf(msg, msgcap, "dyn_system_new: out is NULL");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  if (max_rows < 0 || nb < 0) {
    dyn_msgf(msg, msgcap, "dyn_system_new: max_rows=%d, nb=%d must be >= 0", max_rows, nb);
    return DYN_ERR_INPUT;
  }
  if (storages == 0 || (storages & ~(unsigned)(DYN_SYS_DENSE | DYN_SYS_CSR | DYN_SYS_FACTORED))) {
    dyn_msgf(
        msg, msgcap,
        "dyn_system_new: storages=%u must combine DYN_SYS_DENSE, DYN_SYS_CSR, DYN_SYS_FACTORED",
        storages);
    return DYN_ERR_INPUT;
  }
  size_t n = (size_t)max_rows;
  if ((storages & DYN_SYS_DENSE) && n > 0 && n > SIZE_MAX / sizeof(double) / n) {
    dyn_msgf(msg, msgcap, "dyn_system_new: a dense %d x %d A does not fit in memory", max_rows,
             max_rows);
    return DYN_ERR_NOMEM;
  }
  if (storages & DYN_SYS_CSR) {
    if (max_nnz <= 0) max_nnz = (long)max_rows * (max_rows < 64 ? max_rows : 64);
    if (max_nnz > INT_MAX) {
      dyn_msgf(msg, msgcap, "dyn_system_new: max_nnz=%ld exceeds the int indices of CSR", max_nnz);
      return DYN_ERR_INPUT;
    }
  } else {
    max_nnz = 0;
  }
  dyn_system *s = calloc(1, sizeof *s);
  if (!s) {
    dyn_msgf(msg, msgcap, "dyn_system_new: out of memory");
    return DYN_ERR_NOMEM;
  }
  int fail = 0;
  s->max_rows = max_rows;
  s->max_nb = nb;
  s->storages = storages;
  s->max_nnz = max_nnz;
  if (storages & DYN_SYS_DENSE) s->A = sys_alloc(n * n, sizeof(double), &fail);
  if (storages & DYN_SYS_CSR) {
    s->Ap = sys_alloc(n + 1, sizeof(int), &fail);
    s->Aj = sys_alloc((size_t)max_nnz, sizeof(int), &fail);
    s->Ax = sys_alloc((size_t)max_nnz, sizeof(double), &fail);
  }
  s->b = sys_alloc(n, sizeof(double), &fail);
  s->lo = sys_alloc(n, sizeof(double), &fail);
  s->hi = sys_alloc(n, sizeof(double), &fail);
  s->mu = sys_alloc(n, sizeof(double), &fail);
  s->cone_mu = sys_alloc(n / 3 + 1, sizeof(double), &fail);
  s->findex = sys_alloc(n, sizeof(int), &fail);
  s->cone_rows = sys_alloc(n / 3 + 1, sizeof(int), &fail);
  s->rbody = sys_alloc(2 * n, sizeof(int), &fail);
  s->J = sys_alloc_rows(12 * n, sizeof(double), &fail);
  s->G = sys_alloc_rows(12 * n, sizeof(double), &fail);
  s->Minv = sys_alloc(10 * (size_t)nb, sizeof(double), &fail);
  s->siso = sys_alloc((size_t)nb, sizeof(double), &fail);
  s->ufree = sys_alloc(6 * (size_t)nb, sizeof(double), &fail);
  s->bdyn = sys_alloc((size_t)nb, sizeof(int), &fail);
  s->dv = sys_alloc(6 * (size_t)nb, sizeof(double), &fail);
  s->cfm = sys_alloc(n, sizeof(double), &fail);
  s->rhs = sys_alloc(n, sizeof(double), &fail);
  s->bptr = sys_alloc((size_t)nb + 1, sizeof(int), &fail);
  s->blist = sys_alloc(2 * n, sizeof(int), &fail);
  s->aux_of = sys_alloc(n, sizeof(int), &fail);
  s->mark = sys_alloc(n, sizeof(int), &fail);
  if (fail) {
    dyn_system_free(s);
    dyn_msgf(msg, msgcap, "dyn_system_new: out of memory (max_rows=%d, nb=%d, max_nnz=%ld)",
             max_rows, nb, max_nnz);
    return DYN_ERR_NOMEM;
  }
  s->nrows = -1;
  s->nb = 0;
  s->msg[0] = '\0';
  *out = s;
  return DYN_OK;
}

dyn_err dyn_system_reserve(dyn_system *s, int max_rows, int nb, unsigned storages, long max_nnz) {
  if (!s) return DYN_ERR_INPUT;
  int r = max_rows > s->max_rows ? max_rows : s->max_rows;
  int b = nb > s->max_nb ? nb : s->max_nb;
  unsigned st = s->storages | storages;
  long z = max_nnz > s->max_nnz ? max_nnz : s->max_nnz;
  if (r == s->max_rows && b == s->max_nb && st == s->storages && z == s->max_nnz) return DYN_OK;
  dyn_system *t = NULL;
  dyn_err e = dyn_system_new(r, b, st, z, &t, s->msg, sizeof s->msg);
  if (e != DYN_OK) return e;
  /* swap the buffers: s takes t's, t (then freed) takes the old ones */
  dyn_system tmp = *s;
  *s = *t;
  *t = tmp;
  dyn_system_free(t);
  return DYN_OK;
}

const char *dyn_system_message(const dyn_system *s) { return s ? s->msg : "dyn_system is NULL"; }
