/* io_gfc3d.c -- Siconos global 3-D frictional-contact instances (.dat), and
 * the end of every Siconos frictional-contact .dat.
 *
 * The problem (Siconos GFC3D, FCLIB "global"; docs/problem.md, "Global
 * problems"):  M v = H r + f,  u = H' v + w,  Coulomb's law on (r, u) per
 * contact.  File layout (globalFrictionContact_newFromFile, Siconos 4.4
 * numerics/src/FrictionContact/GlobalFrictionContactProblem.c;
 * datasets/README.md section 4.8), white-space separated:
 *     d          3
 *     nc         the number of contacts, 3 nc columns of H
 *     M          NumericsMatrix (io_nm.c) ndof x ndof, dense or SBM
 *     H          NumericsMatrix ndof x 3 nc
 *     q[ndof]    Siconos' q, FCLIB's f
 *     b[3 nc]    Siconos' b, FCLIB's w
 *     mu[nc]     >= 0
 *     [0 or 1]   one optional trailing flag, as Siconos writes it
 * The instance is the condensed local problem, M, H, f and w kept beside
 * it (io_global.c).
 *
 * Telling a global file from a local one (io_read_fc3d reads d, nc and
 * M first): M not 3 nc x 3 nc is global; with M 3 nc x 3 nc (GFC3D_Example00,
 * GFC3D_Example1: ndof = 3 = 3 nc) the numbers after M decide: a local file
 * holds exactly q and mu (4 nc numbers) and perhaps the flag, a global one
 * at least H's header (4 numbers), f, w and mu (4 + ndof + 4 nc).  A file
 * with fewer is read as local, and a local file with extra numbers is then
 * refused by its end check, naming the first extra number.
 *
 * The end (io_fc_read_end): after mu only white space or the single
 * trailing 0 or 1 Siconos writes (25 of the shared fc3d files and the
 * gfc3d ones carry it); any other number or word is refused, naming the
 * file, the line and what was found.
 */
#include "io_internal.h"

#include <stdlib.h>
#include <string.h>

slv_status io_fc_read_end(io_reader *r) {
  io_token t;
  if (io_rd_peek(r, &t) && (io_tok_is(&t, "0") || io_tok_is(&t, "1"))) io_rd_next(r, &t);
  if (!io_rd_peek(r, &t)) return SLV_OK;
  return io_rd_fail(r, &t, SLV_ERR_INVALID,
                    "the end of the file after mu (or the single trailing 0 or 1 Siconos "
                    "writes there)");
}

int io_fc_holds_global_rest(const io_reader *r0, int nc, int ndof) {
  io_reader r = *r0;
  io_token t;
  /* H's header (at least 4 numbers), f, w, mu: never fewer than this */
  double need = 4.0 + ndof + 4.0 * nc;
  for (double k = 0; k < need; k++)
    if (!io_rd_next(&r, &t)) return 0;
  return 1;
}

/* The bytes of the CSR copy of a matrix read dense (io_csr_of_nm: at
 * most every entry), reserved before it is made. */
static slv_status reserve_csr_of(io_reader *r, const io_nm *nm, const char *name) {
  if (nm->storage == SLV_CSR) return SLV_OK;
  double rows = nm->rows, cols = nm->cols;
  return io_rd_reserve(r, r->line, 12.0 * rows * cols + 4.0 * (rows + 1), "%s (%d x %d) as CSR",
                       name, nm->rows, nm->cols);
}

/* H, f, w and mu after M, into g and mu. */
static slv_status read_rest(io_reader *r, int nc, slv_global_form *g, double *mu) {
  int n = 3 * nc, nd = g->ndof;
  slv_status st;
  char why[64];
  snprintf(why, sizeof why, "ndof x 3 nc = %d x %d", nd, n);
  io_nm hn;
  if ((st = io_read_nm(r, "H", nd, n, why, 0, 0, &hn, NULL))) return st;
  if (!(st = reserve_csr_of(r, &hn, "H"))) {
    st = io_csr_of_nm(&hn, &g->Hp, &g->Hj, &g->Hx);
    if (st) st = io_rd_failf(r, r->line, st, "out of memory for H (%d x %d)", nd, n);
  }
  io_nm_free(&hn);
  if (st) return st;
  if ((st = io_rd_need(r, nd + (double)n + nc, "q (ndof = %d), b (3 nc = %d) and mu (nc = %d)", nd,
                       n, nc)))
    return st;
  if ((st = io_rd_doubles(r, (size_t)nd, IO_RD_FINITE, g->f, "q"))) return st;
  if ((st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, g->w, "b"))) return st;
  for (int c = 0; c < nc; c++) {
    io_token v;
    io_rd_peek(r, &v);
    if ((st = io_rd_double(r, IO_RD_FINITE, &mu[c], "mu[%d]", c))) return st;
    if (mu[c] < 0) return io_rd_fail(r, &v, SLV_ERR_INVALID, "mu[%d] >= 0", c);
  }
  return io_fc_read_end(r);
}

slv_status io_read_gfc3d(io_reader *r, int nc, io_nm *M, long mline, io_instance **out) {
  slv_status st;
  *out = NULL;
  if (M->rows != M->cols) {
    io_nm_free(M);
    return io_rd_failf(r, mline, SLV_ERR_INVALID,
                       "expected M square (ndof x ndof, a global problem d nc M H q b mu) or "
                       "3 nc x 3 nc = %d x %d (a local one), found %d x %d",
                       3 * nc, 3 * nc, M->rows, M->cols);
  }
  int nd = M->rows, n = 3 * nc;
  /* H's header, f, w, mu; then the arrays kept and the condensation
   * (slv_condense counts its own against what is left of the cap) */
  if ((st = io_rd_need(r, 3.0 + nd + n + nc, "H, q (ndof = %d), b (3 nc = %d), mu (nc = %d)", nd, n,
                       nc)) ||
      (st = io_rd_reserve(r, mline, 8.0 * (nd + n + nc) + 16.0 * nd,
                          "ndof = %d: q, b, mu and M's rows", nd)) ||
      (st = reserve_csr_of(r, M, "M"))) {
    io_nm_free(M);
    return st;
  }
  slv_global_form *g = io_global_alloc(nd, n);
  double *mu = malloc(((size_t)nc + 1) * sizeof(double));
  st = g && mu ? io_csr_of_nm(M, &g->Mp, &g->Mj, &g->Mx) : SLV_ERR_NOMEM;
  io_nm_free(M);
  if (st) st = io_rd_failf(r, mline, st, "out of memory for M (ndof = %d)", nd);
  if (!st) st = read_rest(r, nc, g, mu);
  if (!st && io_global_mirror(g) < 0)
    st = io_rd_failf(r, mline, SLV_ERR_NOMEM, "out of memory mirroring M");
  if (st) {
    io_global_free(g);
    free(mu);
    return st;
  }
  char where[4200];
  snprintf(where, sizeof where, "%s:%ld", r->path, mline);
  st = io_global_instance(g, mu, r->cap, r->mem, where, "M", r->err, r->errlen, out);
  free(mu);
  return st;
}
