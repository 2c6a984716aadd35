/* io_global.c -- what the readers of global frictional-contact problems
 * (io_gfc3d.c: Siconos gfc3d .dat; io_fclib_read.c: /fclib_global) share
 * (docs/problem.md, "Global problems"; docs/io.md):
 *
 *   - M and H as CSR in libsolvers' slv_global_form (slv.h), built from triplets or
 *     from a NumericsMatrix;
 *   - an M stored as one triangle (every non-zero off-diagonal entry on
 *     the same side of the diagonal: LMGC's dumps CubeH8 and
 *     LMGC_GlobalFrictionContactProblem00046 store the upper triangle; the
 *     same 162-dof mesh is stored in full in LMGC_GFC3D-i00501) is
 *     mirrored into the symmetric matrix it is half of;
 *   - the condensation (libsolvers' slv_condense: block-sparse W = H'
 *     M^-1 H, q = w + H' M^-1 f) and the instance: W in CSR, or dense up to
 *     IO_FC_DENSE_MAX rows as every frictional-contact reader, one
 *     Coulomb cone per contact, and the global form kept beside it
 *     (io_instance.global).
 *
 * Refusals name the file (and line, for .dat) and the field: M not
 * symmetric, not positive definite, the memory cap, an overflow of W or q.
 * The condensation's wall time goes to io_instance.condense_s.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

slv_global_form *io_global_alloc(int ndof, int n) {
  slv_global_form *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->ndof = ndof;
  g->n = n;
  g->f = calloc((size_t)ndof + 1, sizeof(double));
  g->w = calloc((size_t)n + 1, sizeof(double));
  if (!g->f || !g->w) {
    io_global_free(g);
    return NULL;
  }
  return g;
}

void io_global_free(slv_global_form *g) {
  slv_global_form_free(g);
  free(g);
}

slv_status io_csr_build(int rows, long nnz, const int *r, const int *c, const double *v, int **P,
                        int **J, double **X) {
  *P = calloc((size_t)rows + 2, sizeof(int));
  *J = malloc(((size_t)nnz + 1) * sizeof(int));
  *X = malloc(((size_t)nnz + 1) * sizeof(double));
  if (!*P || !*J || !*X || nnz > INT_MAX) return nnz > INT_MAX ? SLV_ERR_DIM : SLV_ERR_NOMEM;
  int *p = *P;
  for (long k = 0; k < nnz; k++) p[r[k] + 2]++;
  for (int i = 0; i < rows; i++) p[i + 2] += p[i + 1];
  for (long k = 0; k < nnz; k++) { /* p[i + 1]: the next free place of row i */
    int q = p[r[k] + 1]++;
    (*J)[q] = c[k];
    (*X)[q] = v[k];
  }
  return SLV_OK;
}

slv_status io_csr_of_nm(io_nm *nm, int **P, int **J, double **X) {
  if (nm->storage == SLV_CSR) {
    *P = nm->Ap;
    *J = nm->Aj;
    *X = nm->Ax;
    nm->Ap = nm->Aj = NULL;
    nm->Ax = NULL;
    return SLV_OK;
  }
  size_t rows = (size_t)nm->rows, cols = (size_t)nm->cols;
  long nnz = 0;
  for (size_t e = 0; e < rows * cols; e++) nnz += !io_is_pos_zero(nm->a[e]);
  *P = calloc(rows + 1, sizeof(int));
  *J = malloc(((size_t)nnz + 1) * sizeof(int));
  *X = malloc(((size_t)nnz + 1) * sizeof(double));
  if (!*P || !*J || !*X) return SLV_ERR_NOMEM;
  int q = 0;
  for (size_t i = 0; i < rows; i++) {
    for (size_t j = 0; j < cols; j++)
      if (!io_is_pos_zero(nm->a[i + rows * j])) {
        (*J)[q] = (int)j;
        (*X)[q++] = nm->a[i + rows * j];
      }
    (*P)[i + 1] = q;
  }
  return SLV_OK;
}

int io_global_mirror(slv_global_form *g) {
  int nd = g->ndof;
  long upper = 0, lower = 0, nnz = g->Mp[nd];
  for (int i = 0; i < nd; i++)
    for (int k = g->Mp[i]; k < g->Mp[i + 1]; k++)
      if (g->Mx[k] != 0.0) {
        upper += g->Mj[k] > i;
        lower += g->Mj[k] < i;
      }
  if ((upper == 0) == (lower == 0)) return 0;
  long m = nnz + upper + lower;
  int *r = malloc(((size_t)m + 1) * sizeof(int)), *c = malloc(((size_t)m + 1) * sizeof(int));
  double *v = malloc(((size_t)m + 1) * sizeof(double));
  int *P = NULL, *J = NULL;
  double *X = NULL;
  slv_status st = r && c && v ? SLV_OK : SLV_ERR_NOMEM;
  long t = 0;
  for (int i = 0; !st && i < nd; i++)
    for (int k = g->Mp[i]; k < g->Mp[i + 1]; k++) {
      r[t] = i, c[t] = g->Mj[k], v[t++] = g->Mx[k];
      if (g->Mj[k] != i && g->Mx[k] != 0.0) r[t] = g->Mj[k], c[t] = i, v[t++] = g->Mx[k];
    }
  if (!st) st = io_csr_build(nd, t, r, c, v, &P, &J, &X);
  free(r);
  free(c);
  free(v);
  if (st) {
    free(P);
    free(J);
    free(X);
    return -1;
  }
  free(g->Mp);
  free(g->Mj);
  free(g->Mx);
  g->Mp = P;
  g->Mj = J;
  g->Mx = X;
  return 1;
}

/* The message of a refused condensation: "WHERE: expected ..., found ...". */
static slv_status condense_failed(slv_status st, const slv_condense_info *ci, const char *where,
                                  const char *mname, double cap, double used, char *err,
                                  size_t errlen) {
  if (st == SLV_ERR_UNSUPPORTED && ci->asym_i >= 0)
    io_msgf(err, errlen, "%s: expected %s symmetric, found M(%d,%d) = %.17g, M(%d,%d) = %.17g",
            where, mname, ci->asym_i, ci->asym_j, ci->asym_ij, ci->asym_j, ci->asym_i, ci->asym_ji);
  else if (st == SLV_ERR_UNSUPPORTED)
    io_msgf(err, errlen,
            "%s: expected %s positive definite, found its diagonal block holding dof %d not", where,
            mname, ci->bad_dof);
  else if (st == SLV_ERR_DIM)
    io_msgf(err, errlen,
            "%s: expected sizes that fit the memory cap of %.0f bytes (max_memory), found "
            "the condensation of %s (%d diagonal blocks, the largest of %d dofs): %.0f bytes "
            "(%.0f in all)",
            where, cap, mname, ci->nblocks, ci->block_max, ci->bytes, ci->bytes + used);
  else
    io_msgf(err, errlen, "%s: %s condensing %s", where,
            st == SLV_ERR_NOMEM ? "out of memory" : "invalid sizes", mname);
  return st;
}

/* Finite data can condense to an overflow (an M close to singular, a huge
 * H or f): said here, naming what overflowed. */
static slv_status check_finite_condensed(const io_instance *inst, const char *where, char *err,
                                         size_t errlen) {
  for (int i = 0; i < inst->n; i++) {
    for (int k = inst->Ap[i]; k < inst->Ap[i + 1]; k++)
      if (!isfinite(inst->Ax[k])) {
        io_msgf(err, errlen,
                "%s: expected a finite condensed W = H' M^-1 H, found W(%d,%d) = %g (M nearly "
                "singular, or H too large)",
                where, i, inst->Aj[k], inst->Ax[k]);
        return SLV_ERR_INVALID;
      }
    if (!isfinite(inst->b[i])) {
      io_msgf(err, errlen,
              "%s: expected a finite condensed q = w + H' M^-1 f, found q[%d] = %g (M nearly "
              "singular, or H, f too large)",
              where, i, inst->b[i]);
      return SLV_ERR_INVALID;
    }
  }
  return SLV_OK;
}

/* The condensed instance of g, g not taken (inst->global stays NULL). */
static slv_status condense_to_instance(const slv_global_form *g, const double *mu, double cap,
                                       double used, const char *where, const char *mname, char *err,
                                       size_t errlen, double *seconds, io_instance **out) {
  int n = g->n;
  *out = NULL;
  *seconds = 0.0;
  io_instance *inst = io_instance_alloc(n);
  if (!inst) {
    io_msgf(err, errlen, "%s: out of memory for the problem (3 nc = %d)", where, n);
    return SLV_ERR_NOMEM;
  }
  slv_condense_info ci;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  slv_status st =
      slv_condense(g->ndof, n, g->Mp, g->Mj, g->Mx, g->Hp, g->Hj, g->Hx, g->f, g->w,
                   cap > used ? cap - used : 0, &inst->Ap, &inst->Aj, &inst->Ax, inst->b, &ci);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (st) {
    io_instance_free(inst);
    return condense_failed(st, &ci, where, mname, cap, used, err, errlen);
  }
  inst->storage = SLV_CSR;
  if (!(st = check_finite_condensed(inst, where, err, errlen))) {
    st = io_fc_densify(inst);
    if (!st) st = io_set_fc3d_cones(inst, n / 3, mu);
    if (st) io_msgf(err, errlen, "%s: out of memory for the problem (3 nc = %d)", where, n);
  }
  if (st) {
    io_instance_free(inst);
    return st;
  }
  *out = inst;
  return SLV_OK;
}

slv_status io_global_instance(slv_global_form *g, const double *mu, double cap, double used,
                              const char *where, const char *mname, char *err, size_t errlen,
                              io_instance **out) {
  double s;
  slv_status st = condense_to_instance(g, mu, cap, used, where, mname, err, errlen, &s, out);
  if (st) {
    io_global_free(g);
    return st;
  }
  (*out)->global = g;
  (*out)->condense_s = s;
  return SLV_OK;
}

slv_status io_instance_condense_again(const io_instance *inst, io_instance **out, char *err,
                                      size_t errlen) {
  double s;
  *out = NULL;
  if (!inst->global || inst->ncones * 3 != inst->n || !inst->cone_mu) {
    io_msgf(err, errlen, "%s: not an instance condensed from a global problem", inst->name);
    return SLV_ERR_INVALID;
  }
  slv_status st = condense_to_instance(inst->global, inst->cone_mu, INFINITY, 0.0, inst->name, "M",
                                       err, errlen, &s, out);
  if (!st) {
    snprintf((*out)->kind, sizeof(*out)->kind, "%s", inst->kind);
    snprintf((*out)->name, sizeof(*out)->name, "%s", inst->name);
    (*out)->format = inst->format;
    (*out)->cone_law = inst->cone_law;
  }
  return st;
}
