/* io_fc.c -- what every frictional-contact format shares (Siconos fc3d and
 * gfc3d .dat, FCLIB, ContactBench .npz; docs/io.md): an instance made a
 * local FC3D problem (one Coulomb cone per contact at rows 3c..3c+2, lo =
 * -inf, hi = +inf), the check that a format for such problems can hold an
 * instance, CSR from triplets with sorted columns, and the dense form of a
 * small one (IO_FC_DENSE_MAX rows).
 *
 * A leaf of the I/O library but for the format names (io_format.c): the
 * readers of io_global.c, io_fc3d.c, io_fclib_read.c and io_npz.c call it, it
 * calls none of them.
 */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

slv_status io_set_fc3d_cones(io_instance *inst, int nc, const double *mu) {
  slv_status st = io_alloc_cones(inst, nc);
  if (st) return st;
  for (int c = 0; c < nc; c++) {
    inst->cone_rows[c] = 3 * c;
    inst->cone_mu[c] = mu[c];
  }
  inst->cone_law = SLV_CONE_COULOMB;
  for (int i = 0; i < inst->n; i++) {
    inst->lo[i] = -INFINITY;
    inst->hi[i] = INFINITY;
  }
  free(inst->findex);
  free(inst->mu);
  inst->findex = NULL;
  inst->mu = NULL;
  return SLV_OK;
}

slv_status io_holds_gfc3d(const io_req *rq, const io_instance *inst) {
  if (!inst->global || inst->global->n != inst->n) {
    io_msgf(rq->err, rq->errlen,
            "%s: siconos-gfc3d holds only global problems (M, H, f, w); this instance has "
            "none (write it as siconos-fc3d, fclib or lcplab)",
            rq->path);
    return SLV_ERR_UNSUPPORTED;
  }
  return io_holds_fc3d(rq, inst);
}

slv_status io_holds_fc3d(const io_req *rq, const io_instance *inst) {
  const char *path = rq->path, *fmt = io_format_str(rq->fmt);
  char *err = rq->err;
  size_t errlen = rq->errlen;
  if (inst->ncones == 0) {
    io_msgf(err, errlen,
            "%s: %s holds only frictional-contact problems (a Coulomb cone on "
            "every row); this instance has no cones (kind %s)",
            path, fmt, io_kind_of(inst));
    return SLV_ERR_UNSUPPORTED;
  }
  if (inst->n != 3 * inst->ncones) {
    io_msgf(err, errlen, "%s: %s needs every row in a cone: n = %d rows, but %d cones cover %d",
            path, fmt, inst->n, inst->ncones, 3 * inst->ncones);
    return SLV_ERR_UNSUPPORTED;
  }
  /* valid cones are sorted and disjoint (slv_problem_validate), so with
   * n = 3 ncones they sit at rows 0, 3, 6, ... */
  if (inst->cone_law != SLV_CONE_COULOMB) {
    io_msgf(err, errlen, "%s: %s holds Coulomb's law (De Saxce); this instance's cone_law is %s",
            path, fmt, slv_cone_law_str(inst->cone_law));
    return SLV_ERR_UNSUPPORTED;
  }
  for (int i = 0; inst->findex && i < inst->n; i++)
    if (inst->findex[i] >= 0) {
      io_msgf(err, errlen, "%s: %s cannot hold friction rows; row %d has findex %d", path, fmt, i,
              inst->findex[i]);
      return SLV_ERR_UNSUPPORTED;
    }
  return SLV_OK;
}

slv_status io_csr_from_triplets(io_instance *inst, long nnz, const int *row, const int *col,
                                const double *val) {
  int n = inst->n;
  slv_status st;
  if (nnz < 0 || nnz > INT_MAX) return SLV_ERR_DIM;
  if ((st = io_alloc_csr_rows(inst))) return st;
  if ((st = io_alloc_csr_entries(inst, nnz))) return st;
  free(inst->A);
  inst->A = NULL;
  int *cptr = calloc((size_t)n + 1, sizeof(int));
  int *perm = malloc((nnz ? (size_t)nnz : 1) * sizeof(int));
  int *pos = malloc(((size_t)n + 1) * sizeof(int));
  if (!cptr || !perm || !pos) {
    free(cptr);
    free(perm);
    free(pos);
    return SLV_ERR_NOMEM;
  }
  /* pass 1: entries ordered by column, input order within a column */
  for (long k = 0; k < nnz; k++) cptr[col[k] + 1]++;
  for (int j = 0; j < n; j++) cptr[j + 1] += cptr[j];
  memcpy(pos, cptr, ((size_t)n + 1) * sizeof(int));
  for (long k = 0; k < nnz; k++) perm[pos[col[k]]++] = (int)k;
  /* pass 2: into rows, visiting entries by column: columns come out sorted */
  for (long k = 0; k < nnz; k++) inst->Ap[row[k] + 1]++;
  for (int i = 0; i < n; i++) inst->Ap[i + 1] += inst->Ap[i];
  memcpy(pos, inst->Ap, ((size_t)n + 1) * sizeof(int));
  for (long t = 0; t < nnz; t++) {
    int k = perm[t], q = pos[row[k]]++;
    inst->Aj[q] = col[k];
    inst->Ax[q] = val[k];
  }
  free(cptr);
  free(perm);
  free(pos);
  inst->storage = SLV_CSR;
  return SLV_OK;
}

slv_status io_fc_densify(io_instance *inst) {
  if (inst->storage != SLV_CSR || inst->n > IO_FC_DENSE_MAX) return SLV_OK;
  int owned;
  double *A = io_dense_of(inst, &owned);
  if (!A) return SLV_ERR_NOMEM;
  free(inst->Ap);
  free(inst->Aj);
  free(inst->Ax);
  inst->Ap = inst->Aj = NULL;
  inst->Ax = NULL;
  inst->A = A;
  inst->storage = SLV_DENSE;
  return SLV_OK;
}
