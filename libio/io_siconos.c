/* io_siconos.c -- Siconos numerics text instances (.dat): LCP, MLCP, relay.
 *
 * The layouts are those of Siconos' readers (linearComplementarity_newFromFile,
 * mixedLinearComplementarity_newFromFile, relay_newFromFile, NM_new_from_file,
 * SBM_new_from_file), as documented in datasets/README.md section 4.  Numbers are white-space separated; line breaks
 * do not matter.  After the last number of an LCP or relay file a remark may
 * follow (words: lcp_CPS_1..5 and lcp_exp_murty carry one), but not another
 * number: that would be data the format does not hold, and is refused
 * (no_extra_number).  MLCP files are not checked there: 12 of Siconos' MLCP
 * files end with a line of further numbers (a reference solution, in
 * Siconos' test collection), which is ignored.
 *
 *   NumericsMatrix:  storageType size0 size1 <payload>
 *     0 dense:   size0 size1 again, then size0*size1 numbers COLUMN-major
 *                (one column per text line in Siconos' output);
 *     1 SBM:     nbblocks [bn0 bn1 cum-row-offsets[bn0] cum-col-offsets[bn1]
 *                filled1 filled2 index1[filled1] index2[filled2]
 *                then per stored block: its number and nr*nc numbers,
 *                column-major]; read dense, or CSR for the frictional-
 *                contact reader beyond IO_FC_DENSE_MAX rows (exact +0.0
 *                entries of the blocks dropped);
 *     2 CSparse: not read (SLV_ERR_UNSUPPORTED).
 *   LCP:    n, M (n x n), q[n].            w = M z + q, 0 <= z _|_ w >= 0
 *           -> A = M, b = q, lo = 0, hi = +inf.
 *   relay:  n, M, q[n], lb[n], ub[n].       -> lo = lb, hi = ub.
 *   MLCP:   isStorageType1 isStorageType2 n m
 *           [st1: blocksRows (ints up to n+m), blocksIsComp (one per block),
 *                 M, q[size1 of M]]
 *           [st2: A (n x n), B (m x m), C (n x m), D (m x n), each ROW-major,
 *                 then a[n], b[m]]
 *           -> the first n unknowns free (lo = -inf, hi = +inf), the last m
 *              complementarity (lo = 0, hi = +inf); A = M, b = q when M is
 *              (n+m) x (n+m), else (Rectangular_mlcp.dat has a 3 x 2 M) the
 *              storage-2 blocks [[A, C], [D, B]] and [a; b].
 *
 * Which variant a .dat holds is decided from the content (io_read with
 * IO_FMT_AUTO), never from its folder:
 *   - MLCP when the file opens with two 0/1 flags (not both 0), n, m and,
 *     if the first flag is 1, a block-row list 0 <= ... <= n+m ending at
 *     n+m, one 0/1 per block and a storage type 0..2;
 *   - frictional contact (io_fc3d.c) when it opens "d nc storage d*nc d*nc"
 *     with d in {2, 3} and not like an LCP "n storage n n" (the two cannot
 *     both hold for d = 3: an LCP with n = 3 has 3, not a storage type, as
 *     its third number); d = 2 is then refused as 2-D friction;
 *   - otherwise it is read as an LCP; if after q there follow at least 2n
 *     numbers with lb[i] <= ub[i] for all i, they are read as relay bounds.
 *     (An LCP whose trailing remark starts with 2n such numbers would be
 *     taken for a relay problem; none of the Siconos files does.)
 *
 * Writing (dense, %.17g, column-major, one column per line, the layout of
 * Siconos' own writers): siconos-lcp needs lo = 0, hi = +inf; siconos-mlcp
 * needs the free rows first, then LCP rows, and writes isStorageType1 = 1
 * (M, q) and isStorageType2 = 1 (the blocks, row-major, and a, b);
 * siconos-relay holds any bounds.  None holds findex or cones: those give
 * SLV_ERR_UNSUPPORTED naming the row or the first cone, and nothing is
 * written (cone instances go to siconos-fc3d, io_fc3d.c).  x_ref is not
 * written.
 */
#include "io_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- NumericsMatrix ------------------------------------------------------ */

void io_nm_free(io_nm *m) {
  if (!m) return;
  free(m->a);
  free(m->Ap);
  free(m->Aj);
  free(m->Ax);
  m->a = m->Ax = NULL;
  m->Ap = m->Aj = NULL;
}

/* Sparse-block payload.  The structure is read and checked first, then the
 * block values (their count bounded by what is left of the file) into one
 * buffer, then the matrix is built: dense (rows x cols column-major, when
 * out->storage is SLV_DENSE on entry) or CSR (rows in order, the blocks of a
 * block row by increasing block column, so columns increase; exact +0.0
 * entries dropped). */
static slv_status read_sbm(io_reader *r, const char *name, io_nm *out) {
  int rows = out->rows, cols = out->cols, nb, bn0, bn1, filled;
  slv_status st;
  int *cum0 = NULL;
  double *vals = NULL;
  size_t *off = NULL;
  if ((st = io_rd_size(r, IO_MAX_DENSE, &nb, NULL, "the number of stored blocks of %s", name)))
    return st;
  if (nb == 0) { /* an all-zero matrix: nothing follows */
    if (out->storage == SLV_DENSE) return SLV_OK;
    if ((st = io_rd_reserve(r, r->line, 4.0 * rows + 16.0, "the row pointers of %s (%d rows)", name,
                            rows)))
      return st;
    out->Ap = calloc((size_t)rows + 1, sizeof(int));
    out->Aj = malloc(sizeof(int));
    out->Ax = malloc(sizeof(double));
    if (!out->Ap || !out->Aj || !out->Ax)
      return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
    return SLV_OK;
  }
  if ((st = io_rd_int(r, 1, rows > 0 ? rows : 1, &bn0, "the number of block rows of %s", name)))
    return st;
  if ((st = io_rd_int(r, 1, cols > 0 ? cols : 1, &bn1, "the number of block columns of %s", name)))
    return st;
  if ((double)nb > (double)bn0 * (double)bn1)
    return io_rd_failf(r, r->line, SLV_ERR_INVALID,
                       "expected at most %d x %d = %.0f blocks in %s, found %d", bn0, bn1,
                       (double)bn0 * bn1, name, nb);
  if ((st = io_rd_need(r, (double)bn0 * 2 + bn1 + 3 + 2.0 * nb, "the block structure of %s", name)))
    return st;
  if ((st = io_rd_reserve(r, r->line, 4.0 * (2.0 * bn0 + bn1 + 1 + nb) + 8.0 * (nb + 1.0),
                          "the block structure of %s (%d blocks)", name, nb)))
    return st;
  cum0 = malloc(((size_t)bn0 + (size_t)bn1 + (size_t)bn0 + 1 + (size_t)nb) * sizeof(int));
  off = malloc(((size_t)nb + 1) * sizeof(size_t));
  if (!cum0 || !off) {
    st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory reading %s", name);
    goto done;
  }
  int *cum1 = cum0 + bn0, *idx1 = cum1 + bn1, *idx2 = idx1 + bn0 + 1;
  /* cumulative offsets: block row k is rows [cum0[k-1], cum0[k]), strictly
   * increasing, the last one = rows (same for the columns) */
  for (int k = 0; k < bn0 && !st; k++)
    st = io_rd_int(r,
                   k == bn0 - 1 ? rows
                   : k          ? cum0[k - 1] + 1
                                : 1,
                   rows - (bn0 - 1 - k), &cum0[k],
                   "cumulative row offset %d of %s, increasing up to %d rows", k, name, rows);
  for (int k = 0; k < bn1 && !st; k++)
    st = io_rd_int(r,
                   k == bn1 - 1 ? cols
                   : k          ? cum1[k - 1] + 1
                                : 1,
                   cols - (bn1 - 1 - k), &cum1[k],
                   "cumulative column offset %d of %s, increasing up to %d "
                   "columns",
                   k, name, cols);
  if (!st)
    st = io_rd_int(r, bn0 + 1, bn0 + 1, &filled, "filled1 of %s, the number of block rows + 1",
                   name);
  if (!st) st = io_rd_int(r, nb, nb, &filled, "filled2 of %s, the number of blocks", name);
  /* block-row pointers: from 0, non-decreasing, ending at nb */
  for (int k = 0; k <= bn0 && !st; k++)
    st = io_rd_int(r,
                   k == bn0 ? nb
                   : k      ? idx1[k - 1]
                            : 0,
                   k == 0 ? 0 : nb, &idx1[k],
                   "the block-row pointer index1[%d] of %s, non-decreasing from 0 to %d", k, name,
                   nb);
  /* block columns, strictly increasing within a block row (no duplicates) */
  for (int rr = 0; rr < bn0 && !st; rr++)
    for (int b = idx1[rr]; b < idx1[rr + 1] && !st; b++)
      st = io_rd_int(r, b > idx1[rr] ? idx2[b - 1] + 1 : 0, bn1 - 1, &idx2[b],
                     "the block column index2[%d] of %s, increasing within block row %d", b, name,
                     rr);
  if (st) goto done;
  /* where each block's values go in vals; their total must fit in the file */
  off[0] = 0;
  for (int rr = 0; rr < bn0; rr++) {
    int nr = cum0[rr] - (rr ? cum0[rr - 1] : 0);
    for (int b = idx1[rr]; b < idx1[rr + 1]; b++) {
      int c = idx2[b], nc = cum1[c] - (c ? cum1[c - 1] : 0);
      off[b + 1] = off[b] + (size_t)nr * (size_t)nc;
    }
  }
  if ((st = io_rd_need(r, (double)off[nb] + nb, "the %d blocks of %s (%.0f numbers)", nb, name,
                       (double)off[nb])) ||
      (st = io_rd_reserve(r, r->line, 8.0 * (double)off[nb],
                          "the %d blocks of %s (%.0f "
                          "numbers)",
                          nb, name, (double)off[nb])))
    goto done;
  vals = malloc((off[nb] ? off[nb] : 1) * sizeof(double));
  if (!vals) {
    st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for the blocks of %s", name);
    goto done;
  }
  for (int rr = 0; rr < bn0 && !st; rr++) {
    int r0 = rr ? cum0[rr - 1] : 0, nr = cum0[rr] - r0;
    for (int b = idx1[rr]; b < idx1[rr + 1] && !st; b++) {
      int c = idx2[b], c0 = c ? cum1[c - 1] : 0, nc = cum1[c] - c0, num;
      if ((st = io_rd_int(r, b, b, &num, "the number of block %d of %s", b, name))) break;
      char bname[96];
      snprintf(bname, sizeof bname, "block %d (rows %d.., columns %d..) of %s", b, r0, c0, name);
      st = io_rd_matrix(r, nr, nc, 1, vals + off[b], (size_t)nr, IO_RD_FINITE, bname);
    }
  }
  if (st) goto done;
  if (out->storage == SLV_DENSE) {
    for (int rr = 0; rr < bn0; rr++) {
      int r0 = rr ? cum0[rr - 1] : 0, nr = cum0[rr] - r0;
      for (int b = idx1[rr]; b < idx1[rr + 1]; b++) {
        int c = idx2[b], c0 = c ? cum1[c - 1] : 0, nc = cum1[c] - c0;
        for (int jj = 0; jj < nc; jj++)
          memcpy(out->a + (size_t)r0 + (size_t)(c0 + jj) * (size_t)rows,
                 vals + off[b] + (size_t)jj * (size_t)nr, (size_t)nr * sizeof(double));
      }
    }
    goto done;
  }
  /* CSR: count, then fill row by row; at most as many entries as the blocks
   * hold (the exact +0.0 are dropped) */
  if ((st = io_rd_reserve(r, r->line, 4.0 * rows + 4.0 + 12.0 * (double)off[nb],
                          "%s in CSR (%.0f entries at most)", name, (double)off[nb])))
    goto done;
  out->Ap = calloc((size_t)rows + 1, sizeof(int));
  if (!out->Ap) {
    st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
    goto done;
  }
  for (int pass = 0; pass < 2; pass++) {
    long k = 0;
    for (int rr = 0; rr < bn0; rr++) {
      int r0 = rr ? cum0[rr - 1] : 0, nr = cum0[rr] - r0;
      for (int i = 0; i < nr; i++) {
        for (int b = idx1[rr]; b < idx1[rr + 1]; b++) {
          int c = idx2[b], c0 = c ? cum1[c - 1] : 0, nc = cum1[c] - c0;
          for (int jj = 0; jj < nc; jj++) {
            double v = vals[off[b] + (size_t)i + (size_t)jj * (size_t)nr];
            if (io_is_pos_zero(v)) continue;
            if (pass) {
              out->Aj[k] = c0 + jj;
              out->Ax[k] = v;
            }
            k++;
          }
        }
        if (!pass) out->Ap[r0 + i + 1] = (int)k;
      }
    }
    if (!pass) {
      if (k > INT_MAX) {
        st = io_rd_failf(r, r->line, SLV_ERR_DIM, "expected at most %d non-zeros in %s, found %ld",
                         INT_MAX, name, k);
        goto done;
      }
      out->Aj = malloc((k ? (size_t)k : 1) * sizeof(int));
      out->Ax = malloc((k ? (size_t)k : 1) * sizeof(double));
      if (!out->Aj || !out->Ax) {
        st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
        goto done;
      }
    }
  }
done:
  free(cum0);
  free(off);
  free(vals);
  return st;
}

slv_status io_read_nm(io_reader *r, const char *name, int want_rows, int want_cols, const char *why,
                      int csr_above, io_nm *out, long *line) {
  io_token t;
  slv_status st;
  int stype, r2, c2, *rows = &out->rows, *cols = &out->cols;
  long hline = 0;
  memset(out, 0, sizeof *out);
  if (!line) line = &hline;
  io_rd_peek(r, &t);
  if ((st = io_rd_int(r, 0, 2, &stype, "the storage type of %s", name))) return st;
  if (stype == 2)
    return io_rd_fail(r, &t, SLV_ERR_UNSUPPORTED,
                      "the storage type of %s to be 0 (dense) or 1 (sparse block); CSparse "
                      "storage (2) is not read",
                      name);
  if ((st = io_rd_size(r, IO_MAX_N, rows, line, "the number of rows of %s", name))) return st;
  if ((st = io_rd_size(r, IO_MAX_N, cols, NULL, "the number of columns of %s", name))) return st;
  if (want_rows >= 0 && (*rows != want_rows || *cols != want_cols))
    return io_rd_failf(r, *line, SLV_ERR_INVALID, "expected %s to be %d x %d (%s), found %d x %d",
                       name, want_rows, want_cols, why, *rows, *cols);
  double count = (double)*rows * (double)*cols;
  out->storage = (stype == 1 && *rows > csr_above) ? SLV_CSR : SLV_DENSE;
  if (stype == 0) {
    long l2;
    if ((st = io_rd_size(r, IO_MAX_N, &r2, &l2, "the repeated row count of %s", name))) return st;
    if ((st = io_rd_size(r, IO_MAX_N, &c2, NULL, "the repeated column count of %s", name)))
      return st;
    if (r2 != *rows || c2 != *cols)
      return io_rd_failf(r, l2, SLV_ERR_INVALID,
                         "expected the repeated sizes of %s to be %d %d, found %d %d", name, *rows,
                         *cols, r2, c2);
    if (count > (double)IO_MAX_NNZ)
      return io_rd_failf(r, *line, SLV_ERR_DIM,
                         "expected at most %ld entries in the dense %s, found %d x %d",
                         (long)IO_MAX_NNZ, name, *rows, *cols);
    if ((st = io_rd_need(r, count, "the dense %d x %d %s", *rows, *cols, name))) return st;
    if ((st = io_rd_reserve(r, *line, 8.0 * count, "%s, %d x %d dense", name, *rows, *cols)))
      return st;
  } else if (out->storage == SLV_DENSE && count > (double)IO_MAX_DENSE) {
    return io_rd_failf(r, *line, SLV_ERR_DIM,
                       "expected at most %ld entries to store the sparse-block %s dense, found "
                       "%d x %d",
                       IO_MAX_DENSE, name, *rows, *cols);
  } else if (out->storage == SLV_DENSE &&
             (st = io_rd_reserve(r, *line, 8.0 * count, "%s, %d x %d sparse-block kept dense", name,
                                 *rows, *cols))) {
    return st;
  }
  if (out->storage == SLV_DENSE) {
    out->a = calloc(count > 0 ? (size_t)count : 1, sizeof(double));
    if (!out->a) return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
  }
  if (stype == 0)
    st = io_rd_matrix(r, *rows, *cols, 1, out->a, (size_t)(*rows > 0 ? *rows : 1), IO_RD_FINITE,
                      name);
  else
    st = read_sbm(r, name, out);
  if (st) io_nm_free(out);
  return st;
}

/* The dense column-major copy of a matrix read as dense (for the LCP, relay
 * and MLCP readers, which ask for dense storage): takes a over. */
static double *nm_take_dense(io_nm *m) {
  double *a = m->a;
  m->a = NULL;
  return a;
}

/* ---- LCP and relay -------------------------------------------------------- */

/* After the last number a format holds: a remark (words, as in lcp_CPS_1's
 * "Remark ...") may follow, another number may not (it would be data the
 * format does not hold, read as nothing). */
static slv_status no_extra_number(io_reader *r, const char *after) {
  io_reader look = *r;
  io_token t;
  double v;
  io_rd_peek(r, &t);
  if (!io_rd_try_double(&look, &v)) return SLV_OK;
  return io_rd_fail(r, &t, SLV_ERR_INVALID, "the end of the file or a remark after %s", after);
}

/* After q: are there 2n numbers with lb[i] <= ub[i]?  (Look-ahead only.) */
static int relay_bounds_follow(const io_reader *r0, int n, double *scratch) {
  io_reader r = *r0;
  if (n == 0) return 0;
  for (int i = 0; i < n; i++)
    if (!io_rd_try_double(&r, &scratch[i])) return 0;
  for (int i = 0; i < n; i++) {
    double ub;
    if (!io_rd_try_double(&r, &ub) || ub < scratch[i]) return 0;
  }
  return 1;
}

static slv_status read_lcp_relay(io_reader *r, io_format fmt, io_instance **out, io_format *found) {
  int n;
  long line;
  slv_status st;
  char why[48];
  if ((st = io_rd_size(r, IO_MAX_N, &n, &line, "the size n"))) return st;
  /* q, lo, hi here, M (n x n, dense) in io_read_nm, both before any
   * allocation */
  if ((st = io_rd_reserve(r, line, io_instance_bytes(n, 0), "n = %d: q, lo, hi", n))) return st;
  snprintf(why, sizeof why, "n = %d", n);
  io_nm nm;
  if ((st = io_read_nm(r, "M", n, n, why, INT_MAX, &nm, &line))) return st;
  /* the arrays of size n only once q is known to follow: a sparse M of a
   * few bytes may declare any n (read_nm bounds its dense copy) */
  if ((st = io_rd_need(r, n, "q (n = %d)", n))) {
    io_nm_free(&nm);
    return st;
  }
  io_instance *inst = io_instance_alloc(n);
  if (!inst) {
    io_nm_free(&nm);
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for n = %d", n);
  }
  inst->A = nm_take_dense(&nm);
  if ((st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->b, "q"))) goto fail;
  int relay = fmt == IO_FMT_SICONOS_RELAY;
  if (fmt == IO_FMT_AUTO) relay = relay_bounds_follow(r, n, inst->lo);
  for (int i = 0; i < n; i++) inst->lo[i] = 0.0; /* scratch of the look-ahead */
  if (relay) {
    if ((st = io_rd_need(r, 2.0 * n, "lb and ub (n = %d)", n))) goto fail;
    if ((st = io_rd_doubles(r, (size_t)n, IO_RD_INF_OK, inst->lo, "lb"))) goto fail;
    if ((st = io_rd_upper(r, n, inst->lo, inst->hi, "ub", "lb"))) goto fail;
  }
  if ((st = no_extra_number(r, relay ? "ub" : "q"))) goto fail;
  *found = relay ? IO_FMT_SICONOS_RELAY : IO_FMT_SICONOS_LCP;
  *out = inst;
  return SLV_OK;
fail:
  io_instance_free(inst);
  return st;
}

/* ---- MLCP --------------------------------------------------------------- */

static int looks_like_mlcp(const io_reader *r0) {
  io_reader r = *r0;
  long st1, st2, n, m, v, prev = 0;
  if (!io_rd_try_long(&r, &st1) || !io_rd_try_long(&r, &st2) || !io_rd_try_long(&r, &n) ||
      !io_rd_try_long(&r, &m))
    return 0;
  if (st1 < 0 || st1 > 1 || st2 < 0 || st2 > 1 || !(st1 || st2) || n < 0 || m < 0) return 0;
  if (!st1) return 1; /* "0 1 n m": as an LCP this would be n = 0 with an n x m matrix */
  long N = n + m, nb = -1;
  for (long k = 0; k <= N + 1; k++) {
    if (!io_rd_try_long(&r, &v) || v < prev || v > N || (k == 0 && v != 0)) return 0;
    prev = v;
    if (v == N) {
      nb = k;
      break;
    }
  }
  if (nb < 0) return 0;
  for (long k = 0; k < nb; k++)
    if (!io_rd_try_long(&r, &v) || (v != 0 && v != 1)) return 0;
  return io_rd_try_long(&r, &v) && v >= 0 && v <= 2;
}

static slv_status read_mlcp(io_reader *r, io_instance **out) {
  int st1, st2, n, m, N, rows = 0, cols = 0, v, prev = 0;
  long line = 0, mline = 0;
  slv_status st;
  double *M = NULL, *q = NULL, *blk = NULL;
  io_instance *inst = NULL;
  io_token t;
  if ((st = io_rd_int(r, 0, 1, &st1, "isStorageType1"))) return st;
  io_rd_peek(r, &t);
  if ((st = io_rd_int(r, 0, 1, &st2, "isStorageType2"))) return st;
  if (!st1 && !st2)
    return io_rd_fail(r, &t, SLV_ERR_INVALID, "isStorageType1 or isStorageType2 to be 1");
  if ((st = io_rd_size(r, IO_MAX_N, &n, &line, "n, the number of free rows"))) return st;
  if ((st = io_rd_size(r, IO_MAX_N, &m, NULL, "m, the number of complementarity rows"))) return st;
  if ((double)n + m > IO_MAX_N || ((double)n + m) * ((double)n + m) > (double)IO_MAX_NNZ)
    return io_rd_failf(r, line, SLV_ERR_DIM,
                       "expected n + m <= %d with (n+m)^2 <= %ld, found n = %d, m = %d", IO_MAX_N,
                       (long)IO_MAX_NNZ, n, m);
  N = n + m;
  /* the instance, and the storage-2 blocks (built dense) */
  if ((st = io_rd_reserve(r, line, io_instance_bytes(N, 1) + (st2 ? 8.0 * N * N : 0.0),
                          "n + m = %d: A, b, lo, hi%s", N, st2 ? " and the storage-2 blocks" : "")))
    return st;
  if (st1) {
    /* blocksRows: 0 <= ... up to n+m; then one 0/1 flag per block */
    int nb = 0;
    for (int k = 0;; k++) {
      if (k > N + 1)
        return io_rd_failf(r, r->line, SLV_ERR_INVALID,
                           "expected blocksRows to reach n+m = %d within %d values", N, N + 2);
      if ((st = io_rd_int(r, k ? prev : 0, k ? N : 0, &v,
                          "blocksRows[%d], non-decreasing from 0 up to n+m = %d", k, N)))
        return st;
      prev = v;
      if (v == N) {
        nb = k;
        break;
      }
    }
    for (int k = 0; k < nb; k++)
      if ((st = io_rd_int(r, 0, 1, &v, "blocksIsComp[%d]", k))) return st;
    io_rd_peek(r, &t);
    mline = t.line;
    io_nm nm;
    if ((st = io_read_nm(r, "M", -1, -1, "", INT_MAX, &nm, &line))) return st;
    rows = nm.rows;
    cols = nm.cols;
    M = nm_take_dense(&nm);
    if ((st = io_rd_need(r, cols, "q (the %d columns of M)", cols)) ||
        (st = io_rd_reserve(r, r->line, 8.0 * cols, "q (the %d columns of M)", cols)))
      goto done;
    q = malloc((cols > 0 ? (size_t)cols : 1) * sizeof(double));
    if (!q) {
      st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for q");
      goto done;
    }
    if ((st = io_rd_doubles(r, (size_t)cols, IO_RD_FINITE, q, "q"))) goto done;
  }
  /* the dense (n+m)^2 instance only once the data to fill it is there:
   * M of that size already read, or the storage-2 blocks in what is left */
  if (!st2 && !(rows == N && cols == N)) {
    st = io_rd_failf(r, mline, SLV_ERR_INVALID,
                     "expected M to be (n+m) x (n+m) = %d x %d, found %d x %d (and no "
                     "storage-2 blocks to use instead)",
                     N, N, rows, cols);
    goto done;
  }
  if (st2 && (st = io_rd_need(r, (double)N * N + N, "the storage-2 blocks (n = %d, m = %d)", n, m)))
    goto done;
  inst = io_instance_alloc(N);
  if (!inst || io_alloc_dense(inst)) {
    st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for n + m = %d", N);
    goto done;
  }
  if (st2) {
    /* [[A, C], [D, B]], each block row-major in the file, into a dense
     * column-major (n+m) x (n+m) array; then [a; b]. */
    size_t ld = N > 0 ? (size_t)N : 1;
    blk = calloc(ld * ld, sizeof(double));
    if (!blk) {
      st = io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for the blocks");
      goto done;
    }
    if ((st = io_rd_matrix(r, n, n, 0, blk, ld, IO_RD_FINITE, "A"))) goto done;
    if ((st = io_rd_matrix(r, m, m, 0, blk + n + n * ld, ld, IO_RD_FINITE, "B"))) goto done;
    if ((st = io_rd_matrix(r, n, m, 0, blk + n * ld, ld, IO_RD_FINITE, "C"))) goto done;
    if ((st = io_rd_matrix(r, m, n, 0, blk + n, ld, IO_RD_FINITE, "D"))) goto done;
    if ((st = io_rd_doubles(r, (size_t)n, IO_RD_FINITE, inst->b, "a"))) goto done;
    if ((st = io_rd_doubles(r, (size_t)m, IO_RD_FINITE, inst->b + n, "b"))) goto done;
  }
  if (st1 && rows == N && cols == N) {
    memcpy(inst->A, M, (size_t)N * N * sizeof(double));
    memcpy(inst->b, q, (size_t)N * sizeof(double));
  } else {
    memcpy(inst->A, blk, (size_t)N * N * sizeof(double));
  }
  for (int i = 0; i < n; i++) inst->lo[i] = -INFINITY; /* free rows; the last m keep 0, +inf */
  *out = inst;
  inst = NULL;
done:
  free(M);
  free(q);
  free(blk);
  io_instance_free(inst);
  return st;
}

/* The variant fmt (IO_FMT_AUTO: decided from the content); *found gets
 * the variant read. */
static slv_status read_variant(io_reader *r, io_format fmt, io_instance **out, io_format *found) {
  io_format asked = fmt;
  if (fmt == IO_FMT_AUTO && looks_like_mlcp(r)) fmt = IO_FMT_SICONOS_MLCP;
  if (fmt == IO_FMT_AUTO && io_looks_like_fc(r)) fmt = IO_FMT_SICONOS_FC3D;
  if (fmt == IO_FMT_SICONOS_FC3D || fmt == IO_FMT_SICONOS_GFC3D) {
    slv_status st = io_read_fc3d(r, out);
    if (st) return st;
    *found = (*out)->global ? IO_FMT_SICONOS_GFC3D : IO_FMT_SICONOS_FC3D;
    return io_fc_kind_is(r->path, asked, *found, r->err, r->errlen);
  }
  if (fmt == IO_FMT_SICONOS_MLCP) {
    *found = IO_FMT_SICONOS_MLCP;
    return read_mlcp(r, out);
  }
  return read_lcp_relay(r, fmt, out, found);
}

slv_status io_read_siconos(const io_req *rq, io_instance **out) {
  io_reader r;
  io_format found = rq->fmt;
  *out = NULL;
  slv_status st = io_rd_open_req(&r, rq, 0);
  if (!st) st = read_variant(&r, rq->fmt, out, &found);
  io_rd_close(&r);
  if (!st) (*out)->format = found;
  if (st) {
    io_instance_free(*out);
    *out = NULL;
  }
  return st;
}

/* ---- writing ------------------------------------------------------------- */

io_format io_siconos_choose(const io_instance *inst) {
  int all_lcp = 1, free_first = 1, seen_lcp = 0;
  for (int i = 0; i < inst->n; i++) {
    int lcp = inst->lo[i] == 0.0 && inst->hi[i] == INFINITY;
    int fr = inst->lo[i] == -INFINITY && inst->hi[i] == INFINITY;
    if (!lcp) all_lcp = 0;
    if (lcp) seen_lcp = 1;
    if ((!lcp && !fr) || (fr && seen_lcp)) free_first = 0;
  }
  if (inst->ncones > 0 && inst->global && inst->global->n == inst->n) return IO_FMT_SICONOS_GFC3D;
  if (inst->ncones > 0) return IO_FMT_SICONOS_FC3D;
  if (io_has_friction(inst)) return IO_FMT_SICONOS_RELAY;
  return all_lcp ? IO_FMT_SICONOS_LCP : free_first ? IO_FMT_SICONOS_MLCP : IO_FMT_SICONOS_RELAY;
}

static void fmt_bound(char *buf, size_t len, double v) {
  if (isinf(v))
    snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
  else
    snprintf(buf, len, "%.17g", v);
}

/* Can fmt hold inst?  Else SLV_ERR_UNSUPPORTED and a message naming the row.
 * *nfree gets the number of leading free rows (mlcp). */
static slv_status check_siconos(const char *path, io_format fmt, const io_instance *inst,
                                int *nfree, char *err, size_t errlen) {
  const char *name = io_format_str(fmt);
  if (inst->ncones > 0) {
    io_msgf(err, errlen,
            "%s: %s cannot hold Coulomb cones; cone 0 covers rows %d..%d (ncones = "
            "%d; use siconos-fc3d, fclib or lcplab)",
            path, name, inst->cone_rows[0], inst->cone_rows[0] + 2, inst->ncones);
    return SLV_ERR_UNSUPPORTED;
  }
  for (int i = 0; inst->findex && i < inst->n; i++)
    if (inst->findex[i] >= 0) {
      io_msgf(err, errlen, "%s: %s cannot hold friction rows; row %d has findex %d", path, name, i,
              inst->findex[i]);
      return SLV_ERR_UNSUPPORTED;
    }
  *nfree = 0;
  int seen_lcp = -1;
  for (int i = 0; i < inst->n; i++) {
    double lo = inst->lo[i], hi = inst->hi[i];
    int lcp = lo == 0.0 && hi == INFINITY, fr = lo == -INFINITY && hi == INFINITY;
    char l[32], h[32];
    fmt_bound(l, sizeof l, lo);
    fmt_bound(h, sizeof h, hi);
    if (fmt == IO_FMT_SICONOS_LCP && !lcp) {
      io_msgf(err, errlen, "%s: siconos-lcp holds only lo=0, hi=inf; row %d has lo=%s, hi=%s", path,
              i, l, h);
      return SLV_ERR_UNSUPPORTED;
    }
    if (fmt == IO_FMT_SICONOS_MLCP) {
      if (!lcp && !fr) {
        io_msgf(err, errlen,
                "%s: siconos-mlcp holds only free rows (lo=-inf, hi=inf) followed "
                "by LCP rows (lo=0, hi=inf); row %d has lo=%s, hi=%s",
                path, i, l, h);
        return SLV_ERR_UNSUPPORTED;
      }
      if (fr && seen_lcp >= 0) {
        io_msgf(err, errlen,
                "%s: siconos-mlcp needs the free rows first; row %d is free but "
                "follows LCP row %d",
                path, i, seen_lcp);
        return SLV_ERR_UNSUPPORTED;
      }
      if (lcp && seen_lcp < 0) seen_lcp = i;
      if (fr) (*nfree)++;
    }
  }
  return SLV_OK;
}

/* NumericsMatrix, dense: "0", size0, size1, "size0<TAB>size1", then one
 * column per line. */
void io_write_dense_nm(io_writer *w, int n, const double *A) {
  fprintf(w->f, "0\n%d\n%d\n%d\t%d\n", n, n, n, n);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) io_wr_double(w, A[i + (size_t)j * n], i + 1 < n ? ' ' : 0);
    fputc('\n', w->f);
  }
}

static void write_vec(io_writer *w, int n, const double *v) {
  for (int i = 0; i < n; i++) io_wr_double(w, v[i], i + 1 < n ? ' ' : 0);
  fputc('\n', w->f);
}

/* rows x cols block of the column-major n x n A at (r0, c0), row by row. */
static void write_block_rows(io_writer *w, int n, const double *A, int r0, int c0, int rows,
                             int cols) {
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++)
      io_wr_double(w, A[(size_t)(r0 + i) + (size_t)(c0 + j) * n], j + 1 < cols ? ' ' : 0);
    fputc('\n', w->f);
  }
}

slv_status io_holds_siconos(const io_req *rq, const io_instance *inst) {
  int nfree;
  return check_siconos(rq->path, rq->fmt, inst, &nfree, rq->err, rq->errlen);
}

slv_status io_write_siconos(const io_req *rq, const io_instance *inst) {
  const char *path = rq->path;
  io_format fmt = rq->fmt;
  char *err = rq->err;
  size_t errlen = rq->errlen;
  int nfree = 0, owned = 0, n = inst->n;
  slv_status st = check_siconos(path, fmt, inst, &nfree, err, errlen);
  if (st) return st;
  const double *A = io_dense_of(inst, &owned);
  if (!A) {
    io_msgf(err, errlen, "%s: expected a matrix small enough to write dense, found n = %d", path,
            n);
    return SLV_ERR_DIM;
  }
  io_writer w;
  if ((st = io_wr_open(&w, path, err, errlen))) goto done;
  if (fmt == IO_FMT_SICONOS_MLCP) {
    int m = n - nfree;
    fprintf(w.f, "1\n1\n%d\n%d\n", nfree, m);
    /* blocksRows {0, n, n+m} printed as Siconos does: up to the first value
     * that reaches n+m; then one flag per block (0 equality, 1 complementarity) */
    const int rowsb[3] = { 0, nfree, n };
    int nb = 0;
    fprintf(w.f, "%d ", rowsb[0]);
    while (rowsb[nb] < n) fprintf(w.f, "%d ", rowsb[++nb]);
    fputc('\n', w.f);
    for (int k = 0; k < nb; k++) fprintf(w.f, "%d ", k == 0 ? 0 : 1);
    fputc('\n', w.f);
    io_write_dense_nm(&w, n, A);
    write_vec(&w, n, inst->b);
    write_block_rows(&w, n, A, 0, 0, nfree, nfree); /* A */
    write_block_rows(&w, n, A, nfree, nfree, m, m); /* B */
    write_block_rows(&w, n, A, 0, nfree, nfree, m); /* C */
    write_block_rows(&w, n, A, nfree, 0, m, nfree); /* D */
    write_vec(&w, nfree, inst->b);                  /* a */
    write_vec(&w, m, inst->b + nfree);              /* b */
  } else {
    fprintf(w.f, "%d\n", n);
    io_write_dense_nm(&w, n, A);
    write_vec(&w, n, inst->b);
    if (fmt == IO_FMT_SICONOS_RELAY) {
      write_vec(&w, n, inst->lo);
      write_vec(&w, n, inst->hi);
    }
  }
  st = io_wr_close(&w);
done:
  if (owned) free((double *)A);
  return st;
}
