/* io_fc3d.c -- Siconos local 3-D frictional-contact instances (.dat), and
 * the helpers every frictional-contact format shares (io_fclib.c too).
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
 *     M          NumericsMatrix (io_siconos.c) n x n: dense (0) or SBM (1);
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
 * are those of io_siconos.c.
 *
 * Recognising an FC file among the .dat variants (io_looks_like_fc):
 * it opens "d nc storage d*nc cols" with d in {2, 3} and storage in 0..2
 * (cols is then checked by the reader), and does not open like an LCP
 * "n storage n n".  For d = 3 the two cannot
 * both hold (an LCP with n = 3 has 3 as its third number, which is not a
 * storage type).  A global FC .dat (gfc3d: d nc M H q b mu) is read by
 * the same entry: after M, an M that is not 3 nc x 3 nc, or more numbers
 * than a local file can hold after it, hand the file to io_gfc3d.c, so a
 * global file is read as global whatever its sizes (GFC3D_Example00 and
 * GFC3D_Example1 have ndof = 3 nc and were once read as local problems).
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

/* ---- shared frictional-contact helpers -------------------------------------- */

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
  if ((st = io_read_nm(r, "M", -1, -1, "", IO_FC_DENSE_MAX, &nm, &mline))) return st;
  /* a global problem d nc M H q b mu (io_gfc3d.c) */
  if (nm.rows != n || nm.cols != n || io_fc_holds_global_rest(r, nc, nm.rows))
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

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Block row I's blocks (block columns J of the CSR rows rb I .. rb I +
 * rb - 1, in first-seen order) appended to idx2 from *nb on; mark[J] == I
 * marks those seen. */
static void block_row(int I, int rb, int cb, const int *Ap, const int *Aj, int *mark, int *idx2,
                      long *nb) {
  for (int i = rb * I; i < rb * I + rb; i++)
    for (int k = Ap[i]; k < Ap[i + 1]; k++) {
      int J = Aj[k] / cb;
      if (mark[J] != I) {
        mark[J] = I;
        if (idx2) idx2[*nb] = J;
        (*nb)++;
      }
    }
}

/* The SBM header and index arrays, then every block (its number, then its
 * rb x cb values column-major). */
static void print_sbm(io_writer *w, int m, int n, int rb, int cb, long nb, const int *idx1,
                      const int *idx2, const double *blk) {
  int mb = m / rb, nbc = n / cb;
  fprintf(w->f, "1\n%d\n%d\n%ld\n", m, n, nb);
  if (nb == 0) return; /* an all-zero matrix: nothing follows nbblocks */
  fprintf(w->f, "%d\n%d\n", mb, nbc);
  for (int I = 0; I < mb; I++) fprintf(w->f, "%d%c", rb * I + rb, I + 1 < mb ? '\t' : '\n');
  for (int J = 0; J < nbc; J++) fprintf(w->f, "%d%c", cb * J + cb, J + 1 < nbc ? '\t' : '\n');
  fprintf(w->f, "%d\n%ld\n", mb + 1, nb);
  for (int I = 0; I <= mb; I++) fprintf(w->f, "%d%c", idx1[I], I < mb ? '\t' : '\n');
  for (long q = 0; q < nb; q++) fprintf(w->f, "%d%c", idx2[q], q + 1 < nb ? '\t' : '\n');
  int be = rb * cb;
  for (long q = 0; q < nb; q++) {
    fprintf(w->f, "%ld\n", q);
    for (int e = 0; e < be; e++) io_wr_double(w, blk[(size_t)be * q + e], e < be - 1 ? ' ' : '\n');
  }
}

slv_status io_write_sbm(io_writer *w, int m, int n, int rb, int cb, const int *Ap, const int *Aj,
                        const double *Ax) {
  int mb = m / rb, nbc = n / cb, be = rb * cb;
  int *idx1 = malloc(((size_t)mb + 1) * sizeof(int));
  int *mark = malloc((nbc ? (size_t)nbc : 1) * sizeof(int));
  int *idx2 = NULL;
  double *blk = NULL;
  long nb = 0;
  slv_status st = SLV_OK;
  if (!idx1 || !mark) goto nomem;
  /* count the blocks of each block row */
  for (int J = 0; J < nbc; J++) mark[J] = -1;
  idx1[0] = 0;
  for (int I = 0; I < mb; I++) {
    block_row(I, rb, cb, Ap, Aj, mark, NULL, &nb);
    if (nb > INT_MAX / be) {
      io_msgf(w->err, w->errlen, "%s: expected at most %d %dx%d blocks, found more", w->path,
              INT_MAX / be, rb, cb);
      st = SLV_ERR_DIM;
      goto done;
    }
    idx1[I + 1] = (int)nb;
  }
  idx2 = malloc((nb ? (size_t)nb : 1) * sizeof(int));
  blk = calloc((nb ? (size_t)nb : 1) * (size_t)be, sizeof(double));
  if (!idx2 || !blk) goto nomem;
  for (int J = 0; J < nbc; J++) mark[J] = -1;
  for (int I = 0; I < mb; I++) {
    long b = idx1[I];
    block_row(I, rb, cb, Ap, Aj, mark, idx2, &b);
    qsort(idx2 + idx1[I], (size_t)(idx1[I + 1] - idx1[I]), sizeof(int), cmp_int);
    /* mark[J] now holds the block number of (I, J) */
    for (int q = idx1[I]; q < idx1[I + 1]; q++) mark[idx2[q]] = q;
    for (int i = rb * I; i < rb * I + rb; i++)
      for (int k = Ap[i]; k < Ap[i + 1]; k++) {
        int j = Aj[k];
        double *a = &blk[(size_t)be * mark[j / cb] + (size_t)(i - rb * I) + (size_t)rb * (j % cb)];
        *a = io_is_pos_zero(*a) ? Ax[k] : *a + Ax[k];
      }
    /* block numbers are >= 0, so the next block row's marks differ from I:
     * reset them to -1 to keep the "seen in block row I" test exact */
    for (int q = idx1[I]; q < idx1[I + 1]; q++) mark[idx2[q]] = -1;
  }
  print_sbm(w, m, n, rb, cb, nb, idx1, idx2, blk);
  goto done;
nomem:
  io_msgf(w->err, w->errlen, "%s: out of memory writing the sparse-block matrix", w->path);
  st = SLV_ERR_NOMEM;
done:
  free(idx1);
  free(mark);
  free(idx2);
  free(blk);
  return st;
}

/* The Siconos gfc3d .dat of inst->global (globalFrictionContact_printInFile's
 * layout, read by io_gfc3d.c and Siconos' globalFrictionContact_newFromFile):
 * d = 3, nc, M and H as SBM NumericsMatrices (row blocks of 6 dofs -- a
 * body's -- when ndof is a multiple of 6, else 3, else 1; H's column blocks
 * are the contacts' 3), Siconos' q = f, b = w, mu. */
static slv_status write_gfc3d(io_writer *w, const io_instance *inst) {
  const io_global *g = inst->global;
  int rb = g->ndof % 6 == 0 ? 6 : g->ndof % 3 == 0 ? 3 : 1;
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
