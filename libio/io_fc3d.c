/* io_fc3d.c -- Siconos local 3-D frictional-contact instances (.dat), and
 * the kind check of the two FC .dat variants (local, global); the helpers
 * every frictional-contact format shares are in io_fc.c.
 *
 * The problem (Siconos FC3D, FCLIB "local"): find r, u with u = M r + q
 * and, per contact c (rows 3c normal, 3c+1, 3c+2 tangential),
 *     K_mu ∋ r_c  ⊥  û_c ∈ K*,   û_c = u_c + (mu_c |u_t,c|, 0, 0),
 *     K_mu = { |r_t| <= mu r_n }          (Coulomb's law, De Saxce's form).
 * In lcplab's convention w = A x + b this is x = r, A = M, b = q, w = u,
 * with one cone per contact: cone_rows[c] = 3c, cone_mu[c] = mu_c,
 * cone_law = SLV_CONE_COULOMB.  Cone rows ignore lo / hi; the readers store
 * lo = -inf, hi = +inf there (and no findex).
 *
 * File layout (frictionContact_newFromFile, numerics/src/FrictionContact;
 * datasets/README.md section 4.7), white-space separated:
 *     d          the dimension: 3 (2 is 2-D friction: SLV_ERR_UNSUPPORTED)
 *     nc         the number of contacts, n = 3 nc rows
 *     M          NumericsMatrix (io_nm.c) n x n: dense (0) or SBM (1);
 *                CSparse (2) gives SLV_ERR_UNSUPPORTED
 *     q[n]       finite
 *     mu[nc]     finite, >= 0
 *     [0 or 1]   one optional trailing flag (25 of the shared files carry
 *                it); anything else after mu is refused (io_gfc3d.c,
 *                io_fc_read_end).  Storage of A: a dense M stays dense; an
 * SBM M is dense up to IO_FC_DENSE_MAX = 300 rows and CSR beyond, with
 * the exact +0.0 entries of its 3x3 blocks dropped (Capsules: n = 858,
 * 11 772 non-zeros instead of 736 164 dense entries).
 *
 * Sizes before allocation: nc <= IO_MAX_N / 3, and q and mu (4 nc
 * numbers) must fit in what is left of the file after the header, so a
 * header "3 1000000000" in a short file is refused at once; M's own checks
 * are those of io_nm.c.
 *
 * Recognising an FC file among the .dat variants (io_looks_like_fc):
 * it opens "d nc storage d*nc cols" with d in {2, 3} and storage in 0..2
 * (cols is then checked by the reader), and does not open like an LCP
 * "n storage n n".  For d = 3 the two cannot
 * both hold (an LCP with n = 3 has 3 as its third number, which is not a
 * storage type).  A global FC .dat (gfc3d: d nc M H q b mu) is read by
 * the same entry: after M, an M that is not 3 nc x 3 nc, numbers that open
 * like H's header ("0|1 ndof 3nc", integers: opens_like_h), or more numbers
 * than a local file can hold after it, hand the file to io_gfc3d.c, so a
 * global file is read as global whatever its sizes (GFC3D_Example00 and
 * GFC3D_Example1 have ndof = 3 nc and were once read as local problems),
 * and one cut short after M is refused as a global file, not read as the
 * local problem its remaining numbers would make (GFC3D_Example1 cut after
 * its 28th line once was: q = (1, 3, 3), H's header).  A local file whose
 * q starts with the integers 0 or 1, 3nc, 3nc would be taken for a
 * global one and refused (none of the shared files does; Siconos writes q
 * as %.24e numbers, not integers).
 *
 * Reading names what was read: siconos-gfc3d for a global file, siconos-fc3d
 * for a local one; a file of the other kind than the format asked is
 * refused (io_fc_kind_is).  Writing siconos-gfc3d (the .dat of an
 * instance with inst->global, io_holds_gfc3d): the global problem,
 * write_gfc3d.  Writing (siconos-fc3d): only instances in which every row belongs to a
 * cone (so cone c is at rows 3c..3c+2), with the Coulomb law (io_holds_fc3d;
 * else SLV_ERR_UNSUPPORTED and nothing written).  Layout of Siconos' writer:
 * "3", nc, the matrix, q on one line, mu on one line, %.17g.  A dense
 * instance is written as a dense NumericsMatrix (one column per line); a
 * CSR instance as SBM with 3x3 blocks (every block that holds an entry,
 * duplicates summed), which Siconos 4.4's frictionContact_newFromFile reads
 * (checked with the Siconos FC3D peer harness).  lo / hi of the cone rows and x_ref
 * are not written.  A write followed by a read gives back A, b and the
 * cones bit for bit when the instance came from this reader (a CSR matrix
 * from a read has sorted columns and no +0.0 entries).
 *
 * Statuses: SLV_ERR_INVALID (malformed, negative mu, NaN ...), SLV_ERR_DIM
 * (nc negative or too large), SLV_ERR_UNSUPPORTED (d = 2, CSparse M, an
 * instance the format cannot hold), SLV_ERR_NOMEM.
 */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the two kinds of a frictional-contact .dat ----------------------------- */

static const char *fc_kind_words(io_format f) {
  return f == IO_FMT_SICONOS_GFC3D ? "a global frictional-contact problem (d nc M H q b mu)"
                                   : "a local frictional-contact problem (d nc M q mu)";
}

slv_status io_fc_kind_is(const char *path, io_format asked, io_format found, char *err,
                         size_t errlen) {
  if (asked == IO_FMT_AUTO || asked == found) return SLV_OK;
  io_msgf(err, errlen, "%s: expected %s (%s), found %s (%s)", path, fc_kind_words(asked),
          io_format_str(asked), fc_kind_words(found), io_format_str(found));
  return SLV_ERR_INVALID;
}

/* ---- recognising and reading ---------------------------------------------- */

int io_looks_like_fc(const io_reader *r0) {
  io_reader r = *r0;
  long t[5];
  int k = 0;
  while (k < 5 && io_rd_try_long(&r, &t[k])) k++;
  /* "d nc" with nc negative or beyond any size: no LCP either; let the FC
   * reader name nc */
  if (k >= 2 && (t[0] == 2 || t[0] == 3) && (t[1] < 0 || t[1] > IO_MAX_N / 3)) return 1;
  if (k < 4) return 0;
  /* an LCP / relay file: n, storage type, n, n */
  if (t[1] >= 0 && t[1] <= 2 && t[2] == t[0] && t[3] == t[0]) return 0;
  if (k < 5 || (t[0] != 2 && t[0] != 3) || t[1] < 0 || t[2] < 0 || t[2] > 2) return 0;
  double size = (double)t[0] * (double)t[1];
  /* M d nc x d nc (a wrong column count is reported by the FC reader) */
  if ((double)t[3] == size) return 1;
  /* M of another size: the ndof x ndof M of a global problem (a non-square
   * one is named by the global reader) */
  return t[1] > 0 && t[3] > 0 && t[4] > 0 ? 2 : 0;
}

/* After a 3nc x 3nc M: do the next numbers open like H's header, "0 or 1
 * (H's storage), ndof, 3nc", each written as an integer?  (Look-ahead.)
 * A local file's q would have to start with exactly those integers. */
static int opens_like_h(const io_reader *r0, int ndof, int n) {
  io_reader r = *r0;
  long t[3];
  for (int k = 0; k < 3; k++)
    if (!io_rd_try_long(&r, &t[k])) return 0;
  return (t[0] == 0 || t[0] == 1) && t[1] == ndof && t[2] == n;
}

slv_status io_read_fc3d(io_reader *r, io_instance **out) {
  io_token t;
  slv_status st;
  io_instance *inst = NULL;
  double *mu = NULL;
  long d = 0, line, mline = 0;
  int nc;
  *out = NULL;
  io_rd_peek(r, &t);
  if (!io_rd_try_long(r, &d) || d != 3)
    return io_rd_fail(r, &t, d == 2 ? SLV_ERR_UNSUPPORTED : SLV_ERR_INVALID,
                      "the dimension d = 3 of a frictional-contact problem%s",
                      d == 2 ? " (2-D frictional contact, d = 2, is not supported)" : "");
  if ((st = io_rd_size(r, IO_MAX_N / 3, &nc, &line, "the number of contacts nc"))) return st;
  int n = 3 * nc;
  /* q, lo, hi, mu and the cones here, M in io_read_nm: both before any
   * allocation */
  /* M's header (at least 3 numbers), q and mu must still be in the file */
  if ((st = io_rd_need(r, 3.0 + 4.0 * nc, "M, q (3 nc = %d) and mu (nc = %d)", n, nc))) return st;
  if ((st = io_rd_reserve(r, line, io_instance_bytes(n, 0) + 28.0 * nc,
                          "nc = %d: q, lo, hi (3 nc), mu and the cones (nc)", nc)))
    return st;
  io_nm nm;
  if ((st = io_read_nm(r, "M", -1, -1, "", IO_FC_DENSE_MAX, 0, &nm, &mline))) return st;
  /* a global problem d nc M H q b mu (io_gfc3d.c): its M is not 3nc x
   * 3nc, or H's header follows M, or more numbers than a local file holds;
   * a global file cut short after M is then refused there, never read as
   * the local problem its first numbers would make */
  if (nm.rows != n || nm.cols != n || opens_like_h(r, nm.rows, n) ||
      io_fc_holds_global_rest(r, nc, nm.rows))
    return io_read_gfc3d(r, nc, &nm, mline, out);
  inst = io_instance_alloc(n);
  mu = malloc((nc ? (size_t)nc : 1) * sizeof(double));
  if (!inst || !mu) {
    io_nm_free(&nm);
    st = io_rd_failf(r, line, SLV_ERR_NOMEM, "out of memory for nc = %d", nc);
    goto fail;
  }
  inst->storage = nm.storage;
  inst->A = nm.a;
  inst->Ap = nm.Ap;
  inst->Aj = nm.Aj;
  inst->Ax = nm.Ax;
  if ((st = io_rd_need(r, n + (double)nc, "q (3 nc = %d) and mu (nc = %d)", n, nc))) goto fail;
  if ((st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->b, "q"))) goto fail;
  for (int c = 0; c < nc; c++) {
    io_token v;
    io_rd_peek(r, &v);
    if ((st = io_rd_double(r, IO_RD_FINITE, &mu[c], "mu[%d]", c))) goto fail;
    if (mu[c] < 0) {
      st = io_rd_fail(r, &v, SLV_ERR_INVALID, "mu[%d] >= 0", c);
      goto fail;
    }
  }
  if ((st = io_fc_read_end(r))) goto fail;
  if ((st = io_set_fc3d_cones(inst, nc, mu))) {
    io_rd_failf(r, r->line, st, "out of memory for %d cones", nc);
    goto fail;
  }
  free(mu);
  *out = inst;
  return SLV_OK;
fail:
  free(mu);
  io_instance_free(inst);
  return st;
}

/* ---- writing ---------------------------------------------------------------- */

/* The row block of a gfc3d .dat's M and H: 6 dofs (a body's) when ndof is
 * a multiple of 6, else 3; otherwise (a robot's null-space coordinates)
 * the largest of 6 .. 2 that leaves a short last block of 2 or more rows:
 * Siconos 4.4 aborts on an SBM block row of one row ("inconsistent size
 * of csc storage": a 619-coordinate humanoid100 step with blocks of 1). */
static int gfc3d_row_block(int ndof) {
  if (ndof % 6 == 0) return 6;
  if (ndof % 3 == 0) return 3;
  for (int rb = 6; rb > 2; rb--)
    if (ndof % rb != 1) return rb;
  return 2;
}

/* The Siconos gfc3d .dat of inst->global (globalFrictionContact_printInFile's
 * layout, read by io_gfc3d.c and Siconos' globalFrictionContact_newFromFile):
 * d = 3, nc, M and H as SBM NumericsMatrices (row blocks of
 * gfc3d_row_block; H's column blocks are the contacts' 3), Siconos' q = f,
 * b = w, mu. */
static slv_status write_gfc3d(io_writer *w, const io_instance *inst) {
  const slv_global_form *g = inst->global;
  int rb = gfc3d_row_block(g->ndof);
  fprintf(w->f, "3\n%d\n", inst->ncones);
  slv_status st = io_write_sbm(w, g->ndof, g->ndof, rb, rb, g->Mp, g->Mj, g->Mx);
  if (!st) st = io_write_sbm(w, g->ndof, g->n, rb, 3, g->Hp, g->Hj, g->Hx);
  if (st) return st;
  for (int i = 0; i < g->ndof; i++) io_wr_double(w, g->f[i], i + 1 < g->ndof ? ' ' : 0);
  fputc('\n', w->f);
  for (int i = 0; i < g->n; i++) io_wr_double(w, g->w[i], i + 1 < g->n ? ' ' : 0);
  fputc('\n', w->f);
  return SLV_OK;
}

slv_status io_write_fc3d(const io_req *rq, const io_instance *inst) {
  int n = inst->n, nc = inst->ncones;
  const char *path = rq->path;
  io_writer w;
  slv_status st = io_wr_open(&w, path, rq->err, rq->errlen);
  if (st) return st;
  if (rq->fmt == IO_FMT_SICONOS_GFC3D) {
    st = write_gfc3d(&w, inst);
  } else {
    fprintf(w.f, "3\n%d\n", nc);
    if (inst->storage == SLV_DENSE)
      io_write_dense_nm(&w, n, inst->A);
    else
      st = io_write_sbm(&w, n, n, 3, 3, inst->Ap, inst->Aj, inst->Ax);
    if (!st) {
      for (int i = 0; i < n; i++) io_wr_double(&w, inst->b[i], i + 1 < n ? ' ' : 0);
      fputc('\n', w.f);
    }
  }
  if (st) {
    io_wr_discard(&w);
    return st;
  }
  for (int c = 0; c < nc; c++) io_wr_double(&w, inst->cone_mu[c], c + 1 < nc ? ' ' : 0);
  fputc('\n', w.f);
  return io_wr_close(&w);
}
