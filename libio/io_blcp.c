/* io_blcp.c -- the boxed-LCP text format (.blcp) of the peer harnesses
 * (ODE, Bullet, DART; datasets/README.md section 5).
 *
 * The peers harness (ODE, Bullet, DART) solves A x = b_ode + w with
 * lo <= x <= hi and ODE's findex.  The file, free-form white space, '#'
 * starting a comment that runs to the end of the line (anywhere):
 *
 *     n
 *     A        n*n numbers, ROW-major (row i on line i when written here)
 *     b_ode    n numbers
 *     lo       n numbers, -inf allowed
 *     hi       n numbers, inf allowed, hi[i] >= lo[i]
 *     findex   n integers, optional block: -1 = none, else the normal row
 *
 * Mapping onto slv_problem (w = A x + b):
 *     A = A (stored column-major here), b = -b_ode, lo = lo, hi = hi;
 *     findex[i] = j >= 0: row i is a friction row with bounds
 *     -mu_i |x_j| .. mu_i |x_j|; the file stores lo = -mu, hi = mu on that
 *     row (ODE reads hi as the coefficient), so mu[i] = hi[i]; the row's
 *     own lo/hi are kept as read (they are not used by the solvers).
 *     When the findex block is present, mu is allocated, 0 on other rows.
 * Nothing may follow the findex block (or hi when it is absent) except
 * comments: a size that disagrees with the data is caught that way.
 * lcplab's writer names its blocks in a note among the first comment
 * lines, "# lcplab-blocks: A b lo hi findex" ("findex" only when written);
 * a file with the note must hold what it names, so a cut before the
 * findex block is refused instead of read as a boxed LCP (docs/io.md,
 * "Damaged files").  Files from elsewhere have no note: their findex block
 * stays optional.
 *
 * Writing: A row by row, b_ode = -b, lo and hi with friction rows written as
 * -mu, mu, and the findex block when the instance has a findex array; %.17g
 * and inf/-inf.  Cones cannot be stored: SLV_ERR_UNSUPPORTED, nothing
 * written (io_holds_no_cones, also MatrixMarket's check).  Round trip is bit-identical for instances whose friction rows
 * hold lo = -mu, hi = mu and whose mu is 0 on the other rows.
 */
#include "io_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The note lcplab's writer puts in the first comment lines, naming the
 * blocks it wrote (docs/io.md, "Damaged files"): "A b lo hi", then
 * "findex" when the file has that block. */
#define BLOCKS_NOTE "lcplab-blocks:"

/* -1: no note (a file from elsewhere: the findex block is optional), else
 * whether the note names the findex block. */
static int noted_findex(const io_reader *r, char *note, size_t len) {
  if (io_rd_note(r, BLOCKS_NOTE, note, len) == 0) return -1;
  size_t k = strlen(note);
  return k >= 6 && strcmp(note + k - 6, "findex") == 0;
}

static slv_status read_blcp(io_reader *r, io_instance **out) {
  int n;
  long line;
  slv_status st;
  char note[64];
  *out = NULL;
  int want_findex = noted_findex(r, note, sizeof note);
  if ((st = io_rd_size(r, IO_MAX_N, &n, &line, "the size n"))) return st;
  double nn = (double)n * n;
  if (nn > (double)IO_MAX_NNZ)
    return io_rd_failf(r, line, SLV_ERR_DIM, "expected n*n <= %ld (a dense A), found n = %d",
                       (long)IO_MAX_NNZ, n);
  if ((st = io_rd_need(r, nn + 3.0 * n, "A, b, lo and hi (n = %d)", n))) return st;
  if ((st = io_rd_reserve(r, line, io_instance_bytes(n, 1), "n = %d: A (n x n), b, lo, hi", n)))
    return st;
  io_instance *inst = io_instance_alloc(n);
  if (!inst || io_alloc_dense(inst)) {
    io_instance_free(inst);
    return io_rd_failf(r, line, SLV_ERR_NOMEM, "out of memory for n = %d", n);
  }
  size_t ld = n > 0 ? (size_t)n : 1;
  if ((st = io_rd_matrix(r, n, n, 0, inst->A, ld, IO_RD_FINITE, "A"))) goto fail;
  if ((st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->b, "b"))) goto fail;
  for (int i = 0; i < n; i++) inst->b[i] = -inst->b[i]; /* A x = b_ode + w  <=>  b = -b_ode */
  if ((st = io_rd_doubles(r, (size_t)n, IO_RD_INF_OK, inst->lo, "lo"))) goto fail;
  if ((st = io_rd_upper(r, n, inst->lo, inst->hi, "hi", "lo"))) goto fail;
  if (want_findex >= 0 && io_rd_at_end(r) == want_findex) {
    io_token t;
    io_rd_peek(r, &t);
    st = io_rd_fail(r, &t, SLV_ERR_INVALID, "%s after hi, as the note '%s %s' says",
                    want_findex ? "the findex block" : "the end of the file", BLOCKS_NOTE, note);
    goto fail;
  }
  if (!io_rd_at_end(r)) {
    io_token f;
    io_rd_peek(r, &f);
    if ((st = io_rd_reserve(r, f.line, 12.0 * n, "findex and mu (n = %d)", n))) goto fail;
    if ((st = io_alloc_findex(inst)) || (st = io_alloc_mu(inst))) {
      io_rd_failf(r, r->line, st, "out of memory for findex");
      goto fail;
    }
    for (int i = 0; i < n; i++) {
      io_token t;
      io_rd_peek(r, &t);
      if ((st = io_rd_int(r, -1, n - 1, &inst->findex[i], "findex[%d]", i))) goto fail;
      if (inst->findex[i] == i) {
        st = io_rd_fail(r, &t, SLV_ERR_INVALID,
                        "findex[%d] != %d (a friction row couples to another, normal row)", i, i);
        goto fail;
      }
      if (inst->findex[i] >= 0) inst->mu[i] = inst->hi[i];
    }
    io_token t;
    if (io_rd_next(r, &t)) {
      st = io_rd_fail(r, &t, SLV_ERR_INVALID, "end of file after the %d findex values", n);
      goto fail;
    }
  }
  *out = inst;
  return SLV_OK;
fail:
  io_instance_free(inst);
  return st;
}

slv_status io_read_blcp(const io_req *rq, io_instance **out) {
  io_reader r;
  slv_status st = io_rd_open_req(&r, rq, '#');
  if (!st) st = read_blcp(&r, out);
  io_rd_close(&r);
  return st;
}

slv_status io_holds_no_cones(const io_req *rq, const io_instance *inst) {
  if (inst->ncones == 0) return SLV_OK;
  io_msgf(rq->err, rq->errlen, "%s: %s cannot hold Coulomb cones (ncones = %d)", rq->path,
          io_format_str(rq->fmt), inst->ncones);
  return SLV_ERR_UNSUPPORTED;
}

slv_status io_write_blcp(const io_req *rq, const io_instance *inst) {
  const char *path = rq->path;
  char *err = rq->err;
  size_t errlen = rq->errlen;
  int n = inst->n, owned;
  const double *A = io_dense_of(inst, &owned);
  if (!A) {
    io_msgf(err, errlen, "%s: expected a matrix small enough to write dense, found n = %d", path,
            n);
    return SLV_ERR_DIM;
  }
  io_writer w;
  slv_status st = io_wr_open(&w, path, err, errlen);
  if (st) {
    if (owned) free((double *)A);
    return st;
  }
  fputs("# boxed LCP: A x = b + w, x in [lo,hi] (ODE convention); friction rows: lo = -mu, "
        "hi = mu; written by lcplab\n",
        w.f);
  fprintf(w.f, "# %s A b lo hi%s\n", BLOCKS_NOTE, inst->findex ? " findex" : "");
  fprintf(w.f, "%d\n# A (row-major)\n", n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) io_wr_double(&w, A[i + (size_t)j * n], j + 1 < n ? ' ' : 0);
    fputc('\n', w.f);
  }
  fputs("# b\n", w.f);
  for (int i = 0; i < n; i++) io_wr_double(&w, -inst->b[i], i + 1 < n ? ' ' : 0);
  fputs("\n# lo\n", w.f);
  for (int i = 0; i < n; i++) {
    int fr = inst->findex && inst->findex[i] >= 0;
    io_wr_double(&w, fr ? -inst->mu[i] : inst->lo[i], i + 1 < n ? ' ' : 0);
  }
  fputs("\n# hi\n", w.f);
  for (int i = 0; i < n; i++) {
    int fr = inst->findex && inst->findex[i] >= 0;
    io_wr_double(&w, fr ? inst->mu[i] : inst->hi[i], i + 1 < n ? ' ' : 0);
  }
  fputc('\n', w.f);
  if (inst->findex) {
    fputs("# findex\n", w.f);
    for (int i = 0; i < n; i++) fprintf(w.f, i + 1 < n ? "%d " : "%d", inst->findex[i]);
    fputc('\n', w.f);
  }
  st = io_wr_close(&w);
  if (owned) free((double *)A);
  return st;
}
