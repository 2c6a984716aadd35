/* instance.c -- io_instance: an owned problem, its borrowed view, its kind.
 *
 * An instance owns every array of one problem (see io.h):
 *   dense:  A[i + j*n], n x n column-major (lda = n), or
 *   CSR:    Ap[n+1], Aj[nnz], Ax[nnz], or
 *   factored (lcplab format only): nblk, fblk[2n], fJ[12n], fK[12n],
 *           optional fd[n];
 *   b, lo, hi (size n, always allocated), optional findex + mu (size n),
 *   optional cones (cone_rows, cone_mu: ncones), optional x_ref (size n),
 *   optional global (the global problem it was condensed from: M, H, f, w).
 * Arrays of size 0 are allocated with one element so that a pointer is NULL
 * only when the part is absent.
 *
 * Kind (io_instance_classify), the first rule that holds:
 *   "cone"    ncones > 0
 *   "findex"  some findex[i] >= 0
 *   "lcp"     every row lo = 0, hi = +inf           (the standard LCP)
 *   "mlcp"    every row is an LCP row or free (lo = -inf, hi = +inf)
 *   "blcp"    anything else (finite bounds somewhere)
 *
 * io_instance_new_dense returns NULL for n < 0, n > IO_MAX_N,
 * n*n > IO_MAX_NNZ, or on allocation failure.
 */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t at_least_1(size_t n) { return n ? n : 1; }

io_instance *io_instance_alloc(int n) {
  if (n < 0 || n > IO_MAX_N) return NULL;
  io_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return NULL;
  strcpy(inst->kind, "lcp");
  inst->format = IO_FMT_AUTO;
  inst->n = n;
  inst->storage = SLV_DENSE;
  inst->opt = slv_options_default();
  size_t m = at_least_1((size_t)n);
  inst->b = calloc(m, sizeof(double));
  inst->lo = calloc(m, sizeof(double));
  inst->hi = malloc(m * sizeof(double));
  if (!inst->b || !inst->lo || !inst->hi) {
    io_instance_free(inst);
    return NULL;
  }
  for (size_t i = 0; i < m; i++) inst->hi[i] = INFINITY;
  return inst;
}

slv_status io_alloc_dense(io_instance *inst) {
  double nn = (double)inst->n * (double)inst->n;
  if (nn > (double)IO_MAX_NNZ) return SLV_ERR_DIM;
  free(inst->A);
  inst->A = calloc(at_least_1((size_t)inst->n * (size_t)inst->n), sizeof(double));
  inst->storage = SLV_DENSE;
  return inst->A ? SLV_OK : SLV_ERR_NOMEM;
}

slv_status io_alloc_csr_rows(io_instance *inst) {
  inst->storage = SLV_CSR;
  free(inst->Ap);
  inst->Ap = calloc((size_t)inst->n + 1, sizeof(int));
  return inst->Ap ? SLV_OK : SLV_ERR_NOMEM;
}

slv_status io_alloc_csr_entries(io_instance *inst, long nnz) {
  if (nnz < 0 || nnz > IO_MAX_NNZ || nnz > INT_MAX) return SLV_ERR_DIM;
  free(inst->Aj);
  free(inst->Ax);
  inst->Aj = calloc(at_least_1((size_t)nnz), sizeof(int));
  inst->Ax = calloc(at_least_1((size_t)nnz), sizeof(double));
  return (inst->Aj && inst->Ax) ? SLV_OK : SLV_ERR_NOMEM;
}

slv_status io_alloc_findex(io_instance *inst) {
  size_t m = at_least_1((size_t)inst->n);
  if (!inst->findex) {
    inst->findex = malloc(m * sizeof(int));
    if (!inst->findex) return SLV_ERR_NOMEM;
    for (size_t i = 0; i < m; i++) inst->findex[i] = -1;
  }
  return SLV_OK;
}

slv_status io_alloc_mu(io_instance *inst) {
  if (!inst->mu) inst->mu = calloc(at_least_1((size_t)inst->n), sizeof(double));
  return inst->mu ? SLV_OK : SLV_ERR_NOMEM;
}

slv_status io_alloc_cones(io_instance *inst, int ncones) {
  if (ncones < 0 || ncones > IO_MAX_N) return SLV_ERR_DIM;
  free(inst->cone_rows);
  free(inst->cone_mu);
  inst->ncones = 0;
  inst->cone_rows = calloc(at_least_1((size_t)ncones), sizeof(int));
  inst->cone_mu = calloc(at_least_1((size_t)ncones), sizeof(double));
  if (!inst->cone_rows || !inst->cone_mu) return SLV_ERR_NOMEM;
  inst->ncones = ncones;
  return SLV_OK;
}

slv_status io_alloc_xref(io_instance *inst) {
  if (!inst->x_ref) inst->x_ref = calloc(at_least_1((size_t)inst->n), sizeof(double));
  return inst->x_ref ? SLV_OK : SLV_ERR_NOMEM;
}

double io_instance_bytes(double n, int dense) {
  double m = n > 1 ? n : 1;
  return (double)sizeof(io_instance) + 3.0 * 8.0 * m + (dense ? 8.0 * m * m : 0.0);
}

io_instance *io_instance_new_dense(int n) {
  io_instance *inst = io_instance_alloc(n);
  if (!inst) return NULL;
  if (io_alloc_dense(inst)) {
    io_instance_free(inst);
    return NULL;
  }
  return inst;
}

void io_instance_free(io_instance *inst) {
  if (!inst) return;
  free(inst->A);
  free(inst->Ap);
  free(inst->Aj);
  free(inst->Ax);
  free(inst->b);
  free(inst->lo);
  free(inst->hi);
  free(inst->findex);
  free(inst->mu);
  free(inst->cone_rows);
  free(inst->cone_mu);
  free(inst->x_ref);
  free(inst->fblk);
  free(inst->fJ);
  free(inst->fK);
  free(inst->fd);
  io_global_free(inst->global);
  free(inst);
}


slv_status io_alloc_factored(io_instance *inst, int nblk, int with_fd) {
  size_t n = (size_t)inst->n;
  if (nblk < 0 || nblk > IO_MAX_N) return SLV_ERR_DIM;
  inst->storage = SLV_FACTORED;
  inst->nblk = nblk;
  inst->fblk = calloc(at_least_1(2 * n), sizeof(int));
  inst->fJ = calloc(at_least_1(12 * n), sizeof(double));
  inst->fK = calloc(at_least_1(12 * n), sizeof(double));
  if (with_fd) inst->fd = calloc(at_least_1(n), sizeof(double));
  return inst->fblk && inst->fJ && inst->fK && (!with_fd || inst->fd) ? SLV_OK : SLV_ERR_NOMEM;
}

int io_has_friction(const io_instance *inst) {
  if (!inst->findex) return 0;
  for (int i = 0; i < inst->n; i++)
    if (inst->findex[i] >= 0) return 1;
  return 0;
}

const char *io_kind_of(const io_instance *inst) {
  const char *kind = "lcp";
  if (inst->ncones > 0) {
    kind = "cone";
  } else if (io_has_friction(inst)) {
    kind = "findex";
  } else {
    int all_lcp = 1, lcp_or_free = 1;
    for (int i = 0; i < inst->n; i++) {
      double lo = inst->lo[i], hi = inst->hi[i];
      int lcp_row = lo == 0.0 && hi == INFINITY;
      int free_row = lo == -INFINITY && hi == INFINITY;
      if (!lcp_row) all_lcp = 0;
      if (!lcp_row && !free_row) lcp_or_free = 0;
    }
    kind = all_lcp ? "lcp" : lcp_or_free ? "mlcp" : "blcp";
  }
  return kind;
}

void io_instance_classify(io_instance *inst) {
  if (!inst) return;
  const char *kind = io_kind_of(inst);
  strncpy(inst->kind, kind, sizeof inst->kind - 1);
  inst->kind[sizeof inst->kind - 1] = '\0';
}

slv_problem io_instance_problem(const io_instance *inst) {
  slv_problem p = slv_problem_empty();
  if (!inst) return p;
  p.n = inst->n;
  p.storage = inst->storage;
  p.A = inst->A;
  p.lda = inst->n > 1 ? inst->n : 1;
  p.Ap = inst->Ap;
  p.Aj = inst->Aj;
  p.Ax = inst->Ax;
  p.b = inst->b;
  p.lo = inst->lo;
  p.hi = inst->hi;
  p.findex = inst->findex;
  p.mu = inst->mu;
  p.ncones = inst->ncones;
  p.cone_rows = inst->cone_rows;
  p.cone_mu = inst->cone_mu;
  p.cone_law = inst->cone_law;
  p.condensed = inst->global != NULL;
  if (inst->storage == SLV_FACTORED) {
    p.nblk = inst->nblk;
    p.fblk = inst->fblk;
    p.fJ = inst->fJ;
    p.fK = inst->fK;
    p.fd = inst->fd;
  }
  return p;
}

double *io_dense_of(const io_instance *inst, int *owned) {
  *owned = 0;
  if (inst->storage == SLV_DENSE) return inst->A;
  size_t n = (size_t)inst->n;
  if ((double)n * (double)n > (double)IO_MAX_DENSE) return NULL;
  double *A = calloc(at_least_1(n * n), sizeof(double));
  if (!A) return NULL;
  for (size_t i = 0; i < n; i++)
    for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++) {
      /* duplicates are summed; a lone -0.0 stays -0.0 (0.0 + -0.0 would not) */
      double *a = &A[i + (size_t)inst->Aj[k] * n];
      *a = io_is_pos_zero(*a) ? inst->Ax[k] : *a + inst->Ax[k];
    }
  *owned = 1;
  return A;
}

int io_is_pos_zero(double x) { return x == 0.0 && !signbit(x); }
