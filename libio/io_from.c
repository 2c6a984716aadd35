/* io_from.c -- instances made from problems in memory, for io_write
 * (docs/io.md, "Problems from memory"):
 *
 *   io_instance_of_problem  a (solved) slv_problem -- a world's step, a
 *                           problem a program built -- copied into an
 *                           instance, its solution as x_ref;
 *   io_instance_of_global   a global frictional-contact problem given by
 *                           its arrays (M, H, f, w, mu), condensed as the
 *                           readers condense one (io_global.c) and kept
 *                           beside the instance, so that every writer of
 *                           a global problem (FCLIB /fclib_global, Siconos
 *                           gfc3d .dat) takes it.
 */
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t at_least_1(size_t n) { return n ? n : 1; }

/* The matrix of p into inst: dense (lda = n), CSR as it is, factored as it
 * is when keep_factored, else as its explicit CSR.  0 on failure. */
static int copy_matrix(io_instance *inst, const slv_problem *p, int keep_factored) {
  int n = p->n;
  size_t m = at_least_1((size_t)n);
  inst->storage = p->storage;
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
  inst->Aj = malloc(at_least_1(nnz) * sizeof *inst->Aj);
  inst->Ax = malloc(at_least_1(nnz) * sizeof *inst->Ax);
  if (!inst->Ap || !inst->Aj || !inst->Ax) return 0;
  memcpy(inst->Ap, p->Ap, ((size_t)n + 1) * sizeof *inst->Ap);
  memcpy(inst->Aj, p->Aj, nnz * sizeof *inst->Aj);
  memcpy(inst->Ax, p->Ax, nnz * sizeof *inst->Ax);
  return 1;
}

/* findex + mu (only when some row is a friction row) and the cones. */
static int copy_friction(io_instance *inst, const slv_problem *p) {
  int n = p->n, has_findex = 0;
  size_t m = at_least_1((size_t)n);
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

io_instance *io_instance_of_problem(const slv_problem *p, const char *name, const double *x,
                                    int keep_factored) {
  if (!p || p->n < 0 || p->n > IO_MAX_N) return NULL;
  io_instance *inst = io_instance_alloc(p->n);
  if (!inst) return NULL;
  int n = p->n;
  inst->cone_law = p->cone_law;
  snprintf(inst->name, sizeof inst->name, "%s", name ? name : "");
  if (!copy_matrix(inst, p, keep_factored) || !copy_friction(inst, p) ||
      (x && io_alloc_xref(inst) != SLV_OK)) {
    io_instance_free(inst);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    inst->b[i] = p->b[i];
    inst->lo[i] = p->lo ? p->lo[i] : 0.0;
    inst->hi[i] = p->hi ? p->hi[i] : INFINITY;
    if (x) inst->x_ref[i] = x[i];
  }
  io_instance_classify(inst);
  return inst;
}

/* ---- global problems ------------------------------------------------------------- */

/* 1 if rows + 1 pointers P and their indices J (each < cols) are a CSR
 * matrix; else 0 with the message. */
static int csr_valid(const int *P, const int *J, int rows, int cols, const char *name,
                     const char *mname, char *err, size_t errlen) {
  if (!P || P[0] != 0) {
    io_msgf(err, errlen, "%s: %s: expected CSR row pointers starting at 0", name, mname);
    return 0;
  }
  for (int r = 0; r < rows; r++)
    if (P[r + 1] < P[r]) {
      io_msgf(err, errlen, "%s: %s: expected non-decreasing row pointers, found %d after %d", name,
              mname, P[r + 1], P[r]);
      return 0;
    }
  for (int k = 0; k < P[rows]; k++)
    if (!J || J[k] < 0 || J[k] >= cols) {
      io_msgf(err, errlen, "%s: %s: expected column indices in [0, %d), found %d at entry %d", name,
              mname, cols, J ? J[k] : -1, k);
      return 0;
    }
  return 1;
}

/* The index of the first non-finite entry of x[0..n), or -1. */
static long first_not_finite(const double *x, long n) {
  for (long i = 0; i < n; i++)
    if (!isfinite(x[i])) return i;
  return -1;
}

/* 1 if g and mu can be condensed (sizes, CSR, finite values, mu >= 0);
 * else 0 with the message naming the field. */
static int global_valid(const slv_global_form *g, const double *mu, const char *name, char *err,
                        size_t errlen) {
  if (g->ndof < 1 || g->n < 0 || g->n % 3 != 0 || g->n > IO_MAX_N) {
    io_msgf(err, errlen,
            "%s: expected ndof >= 1 and n a multiple of 3 (3 rows a contact), found ndof = %d, "
            "n = %d",
            name, g->ndof, g->n);
    return 0;
  }
  if (!csr_valid(g->Mp, g->Mj, g->ndof, g->ndof, name, "M", err, errlen) ||
      !csr_valid(g->Hp, g->Hj, g->ndof, g->n, name, "H", err, errlen))
    return 0;
  struct {
    const char *what;
    const double *x;
    long n;
  } part[] = { { "M", g->Mx, g->Mp[g->ndof] },
               { "H", g->Hx, g->Hp[g->ndof] },
               { "f", g->f, g->ndof },
               { "w", g->w, g->n },
               { "mu", mu, g->n / 3 } };
  for (size_t k = 0; k < sizeof part / sizeof part[0]; k++) {
    long i = part[k].x ? first_not_finite(part[k].x, part[k].n) : (part[k].n ? 0 : -1);
    if (i >= 0) {
      io_msgf(err, errlen, "%s: expected finite %s, found %s[%ld] = %g", name, part[k].what,
              part[k].what, i, part[k].x ? part[k].x[i] : NAN);
      return 0;
    }
  }
  for (int c = 0; c < g->n / 3; c++)
    if (mu[c] < 0.0) {
      io_msgf(err, errlen, "%s: expected mu >= 0, found mu[%d] = %g", name, c, mu[c]);
      return 0;
    }
  return 1;
}

/* A copy of n values of src in a new array (at least one element). */
static void *dup_array(const void *src, size_t n, size_t size) {
  void *d = malloc(at_least_1(n) * size);
  if (d && n) memcpy(d, src, n * size);
  return d;
}

/* A deep copy of a valid g; NULL when out of memory. */
static slv_global_form *global_copy(const slv_global_form *g) {
  slv_global_form *c = io_global_alloc(g->ndof, g->n);
  if (!c) return NULL;
  size_t rows = (size_t)g->ndof + 1, mnz = (size_t)g->Mp[g->ndof], hnz = (size_t)g->Hp[g->ndof];
  c->Mp = dup_array(g->Mp, rows, sizeof(int));
  c->Mj = dup_array(g->Mj, mnz, sizeof(int));
  c->Mx = dup_array(g->Mx, mnz, sizeof(double));
  c->Hp = dup_array(g->Hp, rows, sizeof(int));
  c->Hj = dup_array(g->Hj, hnz, sizeof(int));
  c->Hx = dup_array(g->Hx, hnz, sizeof(double));
  if (!c->Mp || !c->Mj || !c->Mx || !c->Hp || !c->Hj || !c->Hx) {
    io_global_free(c);
    return NULL;
  }
  memcpy(c->f, g->f, (size_t)g->ndof * sizeof(double));
  if (g->n) memcpy(c->w, g->w, (size_t)g->n * sizeof(double));
  return c;
}

slv_status io_instance_of_global(const slv_global_form *g, const double *mu, const char *name,
                                 io_instance **out, char *err, size_t errlen) {
  if (!name) name = "global problem";
  if (!out) return SLV_ERR_INVALID;
  *out = NULL;
  if (!g || (!mu && g->n > 0)) {
    io_msgf(err, errlen, "%s: expected a global problem and its mu, found NULL", name);
    return SLV_ERR_INVALID;
  }
  if (!global_valid(g, mu, name, err, errlen)) return SLV_ERR_INVALID;
  slv_global_form *c = global_copy(g);
  if (!c) {
    io_msgf(err, errlen, "%s: out of memory for the global problem (ndof = %d)", name, g->ndof);
    return SLV_ERR_NOMEM;
  }
  /* the readers' condensation (takes c over, also on failure) */
  slv_status st =
      io_global_instance(c, mu, (double)IO_DEFAULT_MAX_MEMORY, 0.0, name, "M", err, errlen, out);
  if (st == SLV_OK) snprintf((*out)->name, sizeof(*out)->name, "%s", name);
  return st;
}
