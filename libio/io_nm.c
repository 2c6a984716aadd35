/* io_nm.c -- Siconos' NumericsMatrix in text (.dat), read and written: the
 * matrix of every Siconos format (io_siconos.c: LCP, MLCP, relay;
 * io_fc3d.c: local frictional contact; io_gfc3d.c: M and H of a global
 * one).  The layouts are those of NM_new_from_file and SBM_new_from_file
 * (datasets/README.md section 4):
 *
 *   storageType size0 size1 <payload>
 *     0 dense:   size0 size1 again, then size0*size1 numbers COLUMN-major
 *                (one column per text line in Siconos' output);
 *     1 SBM:     nbblocks [bn0 bn1 cum-row-offsets[bn0] cum-col-offsets[bn1]
 *                filled1 filled2 index1[filled1] index2[filled2]
 *                then per stored block: its number and nr*nc numbers,
 *                column-major]; read dense, or CSR for the frictional-
 *                contact readers beyond their dense limit (exact +0.0
 *                entries of the blocks dropped);
 *     2 CSparse: not read (SLV_ERR_UNSUPPORTED).
 *
 * An SBM is read in steps, each checked before the next allocates: the
 * block structure (offsets strictly increasing to the sizes, block-row
 * pointers from 0 to nbblocks, block columns increasing within a block
 * row), then where each block's values go and whether that many numbers
 * fit in the file and the memory cap, then the values, then the matrix.
 *
 * Writing: dense ("0", the sizes, one column per line) or SBM of rb x cb
 * blocks from CSR (every block that holds an entry, duplicates summed, a
 * lone -0.0 kept), the layout Siconos 4.4's readers take.  A leaf of the
 * I/O library: it uses only the text reader and writer (io_read.c).
 */
#include "io_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void io_nm_free(io_nm *m) {
  if (!m) return;
  free(m->a);
  free(m->Ap);
  free(m->Aj);
  free(m->Ax);
  m->a = m->Ax = NULL;
  m->Ap = m->Aj = NULL;
}

/* ---- reading a sparse-block (SBM) payload ------------------------------------ */

/* What an SBM payload says: nb blocks on a bn0 x bn1 grid; block row k is
 * rows [start(cum0, k), cum0[k]) (the same for columns with cum1); the
 * blocks of block row k are idx1[k] .. idx1[k+1] - 1, block b in block
 * column idx2[b]; its values at vals + off[b], column-major. */
typedef struct sbm {
  int rows, cols, nb, bn0, bn1;
  int *cum0, *cum1, *idx1, *idx2; /* one allocation, at cum0 */
  size_t *off;                    /* nb + 1 */
  double *vals;
} sbm;

/* The first row (column) of block row (column) k. */
static int start(const int *cum, int k) { return k ? cum[k - 1] : 0; }

static void sbm_free(sbm *s) {
  free(s->cum0);
  free(s->off);
  free(s->vals);
}

/* nbblocks = 0: an all-zero matrix, nothing follows; a CSR one gets its
 * empty arrays. */
static slv_status sbm_empty(io_reader *r, const char *name, io_nm *out) {
  if (out->storage == SLV_DENSE) return SLV_OK;
  slv_status st = io_rd_reserve(r, r->line, 4.0 * out->rows + 16.0,
                                "the row pointers of %s (%d rows)", name, out->rows);
  if (st) return st;
  out->Ap = calloc((size_t)out->rows + 1, sizeof(int));
  out->Aj = malloc(sizeof(int));
  out->Ax = malloc(sizeof(double));
  if (!out->Ap || !out->Aj || !out->Ax)
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
  return SLV_OK;
}

/* The grid bn0 x bn1, checked against nb and the file, and the structure's
 * arrays allocated. */
static slv_status sbm_grid(io_reader *r, const char *name, sbm *s) {
  int rows = s->rows, cols = s->cols, nb = s->nb;
  slv_status st;
  if ((st = io_rd_int(r, 1, rows > 0 ? rows : 1, &s->bn0, "the number of block rows of %s", name)))
    return st;
  if ((st = io_rd_int(r, 1, cols > 0 ? cols : 1, &s->bn1, "the number of block columns of %s",
                      name)))
    return st;
  int bn0 = s->bn0, bn1 = s->bn1;
  if ((double)nb > (double)bn0 * (double)bn1)
    return io_rd_failf(r, r->line, SLV_ERR_INVALID,
                       "expected at most %d x %d = %.0f blocks in %s, found %d", bn0, bn1,
                       (double)bn0 * bn1, name, nb);
  if ((st = io_rd_need(r, (double)bn0 * 2 + bn1 + 3 + 2.0 * nb, "the block structure of %s", name)))
    return st;
  if ((st = io_rd_reserve(r, r->line, 4.0 * (2.0 * bn0 + bn1 + 1 + nb) + 8.0 * (nb + 1.0),
                          "the block structure of %s (%d blocks)", name, nb)))
    return st;
  s->cum0 = malloc(((size_t)bn0 + (size_t)bn1 + (size_t)bn0 + 1 + (size_t)nb) * sizeof(int));
  s->off = malloc(((size_t)nb + 1) * sizeof(size_t));
  if (!s->cum0 || !s->off)
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory reading %s", name);
  s->cum1 = s->cum0 + bn0;
  s->idx1 = s->cum1 + bn1;
  s->idx2 = s->idx1 + bn0 + 1;
  return SLV_OK;
}

/* The cumulative offsets: block k ends at cum[k], strictly increasing, the
 * last one = size. */
static slv_status sbm_offsets(io_reader *r, const char *name, int count, int size, int *cum,
                              const char *what) {
  slv_status st = SLV_OK;
  for (int k = 0; k < count && !st; k++)
    st = io_rd_int(r,
                   k == count - 1 ? size
                   : k            ? cum[k - 1] + 1
                                  : 1,
                   size - (count - 1 - k), &cum[k],
                   "cumulative %s offset %d of %s, increasing up to %d %ss", what, k, name, size,
                   what);
  return st;
}

/* filled1, filled2, the block-row pointers (from 0, non-decreasing, ending
 * at nb) and the block columns (increasing within a block row). */
static slv_status sbm_indices(io_reader *r, const char *name, sbm *s) {
  int bn0 = s->bn0, nb = s->nb, filled, *idx1 = s->idx1, *idx2 = s->idx2;
  slv_status st =
      io_rd_int(r, bn0 + 1, bn0 + 1, &filled, "filled1 of %s, the number of block rows + 1", name);
  if (!st) st = io_rd_int(r, nb, nb, &filled, "filled2 of %s, the number of blocks", name);
  for (int k = 0; k <= bn0 && !st; k++)
    st = io_rd_int(r,
                   k == bn0 ? nb
                   : k      ? idx1[k - 1]
                            : 0,
                   k == 0 ? 0 : nb, &idx1[k],
                   "the block-row pointer index1[%d] of %s, non-decreasing from 0 to %d", k, name,
                   nb);
  for (int rr = 0; rr < bn0 && !st; rr++)
    for (int b = idx1[rr]; b < idx1[rr + 1] && !st; b++)
      st = io_rd_int(r, b > idx1[rr] ? idx2[b - 1] + 1 : 0, s->bn1 - 1, &idx2[b],
                     "the block column index2[%d] of %s, increasing within block row %d", b, name,
                     rr);
  return st;
}

/* Where each block's values go; their total must fit in the file and the
 * cap before vals is allocated. */
static slv_status sbm_values_room(io_reader *r, const char *name, sbm *s) {
  size_t *off = s->off;
  off[0] = 0;
  for (int rr = 0; rr < s->bn0; rr++) {
    int nr = s->cum0[rr] - start(s->cum0, rr);
    for (int b = s->idx1[rr]; b < s->idx1[rr + 1]; b++) {
      int c = s->idx2[b], nc = s->cum1[c] - start(s->cum1, c);
      off[b + 1] = off[b] + (size_t)nr * (size_t)nc;
    }
  }
  double total = (double)off[s->nb];
  slv_status st;
  if ((st = io_rd_need(r, total + s->nb, "the %d blocks of %s (%.0f numbers)", s->nb, name,
                       total)) ||
      (st = io_rd_reserve(r, r->line, 8.0 * total, "the %d blocks of %s (%.0f numbers)", s->nb,
                          name, total)))
    return st;
  s->vals = malloc((off[s->nb] ? off[s->nb] : 1) * sizeof(double));
  if (!s->vals)
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for the blocks of %s", name);
  return SLV_OK;
}

/* Every block: its number, then its values column-major. */
static slv_status sbm_values(io_reader *r, const char *name, sbm *s) {
  slv_status st = SLV_OK;
  for (int rr = 0; rr < s->bn0 && !st; rr++) {
    int r0 = start(s->cum0, rr), nr = s->cum0[rr] - r0;
    for (int b = s->idx1[rr]; b < s->idx1[rr + 1] && !st; b++) {
      int c = s->idx2[b], c0 = start(s->cum1, c), nc = s->cum1[c] - c0, num;
      if ((st = io_rd_int(r, b, b, &num, "the number of block %d of %s", b, name))) break;
      char bname[96];
      snprintf(bname, sizeof bname, "block %d (rows %d.., columns %d..) of %s", b, r0, c0, name);
      st = io_rd_matrix(r, nr, nc, 1, s->vals + s->off[b], (size_t)nr, IO_RD_FINITE, bname);
    }
  }
  return st;
}

/* The blocks into the dense rows x cols column-major a. */
static void sbm_to_dense(const sbm *s, double *a) {
  for (int rr = 0; rr < s->bn0; rr++) {
    int r0 = start(s->cum0, rr), nr = s->cum0[rr] - r0;
    for (int b = s->idx1[rr]; b < s->idx1[rr + 1]; b++) {
      int c = s->idx2[b], c0 = start(s->cum1, c), nc = s->cum1[c] - c0;
      for (int jj = 0; jj < nc; jj++)
        memcpy(a + (size_t)r0 + (size_t)(c0 + jj) * (size_t)s->rows,
               s->vals + s->off[b] + (size_t)jj * (size_t)nr, (size_t)nr * sizeof(double));
    }
  }
}

/* One pass over the blocks row by row (columns increase: the blocks of a
 * block row by increasing block column), the exact +0.0 dropped: with Aj
 * NULL it counts the entries into Ap[i + 1], else it fills Aj, Ax.  The
 * entries seen. */
static long sbm_csr_pass(const sbm *s, int *Ap, int *Aj, double *Ax) {
  long k = 0;
  for (int rr = 0; rr < s->bn0; rr++) {
    int r0 = start(s->cum0, rr), nr = s->cum0[rr] - r0;
    for (int i = 0; i < nr; i++) {
      for (int b = s->idx1[rr]; b < s->idx1[rr + 1]; b++) {
        int c = s->idx2[b], c0 = start(s->cum1, c), nc = s->cum1[c] - c0;
        for (int jj = 0; jj < nc; jj++) {
          double v = s->vals[s->off[b] + (size_t)i + (size_t)jj * (size_t)nr];
          if (io_is_pos_zero(v)) continue;
          if (Aj) {
            Aj[k] = c0 + jj;
            Ax[k] = v;
          }
          k++;
        }
      }
      if (!Aj) Ap[r0 + i + 1] = (int)k;
    }
  }
  return k;
}

/* The blocks as CSR: at most as many entries as the blocks hold. */
static slv_status sbm_to_csr(io_reader *r, const char *name, const sbm *s, io_nm *out) {
  slv_status st = io_rd_reserve(r, r->line, 4.0 * s->rows + 4.0 + 12.0 * (double)s->off[s->nb],
                                "%s in CSR (%.0f entries at most)", name, (double)s->off[s->nb]);
  if (st) return st;
  out->Ap = calloc((size_t)s->rows + 1, sizeof(int));
  if (!out->Ap) return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
  long k = sbm_csr_pass(s, out->Ap, NULL, NULL);
  if (k > INT_MAX)
    return io_rd_failf(r, r->line, SLV_ERR_DIM, "expected at most %d non-zeros in %s, found %ld",
                       INT_MAX, name, k);
  out->Aj = malloc((k ? (size_t)k : 1) * sizeof(int));
  out->Ax = malloc((k ? (size_t)k : 1) * sizeof(double));
  if (!out->Aj || !out->Ax)
    return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
  sbm_csr_pass(s, out->Ap, out->Aj, out->Ax);
  return SLV_OK;
}

/* The SBM payload into out: dense (out->a, rows x cols column-major, when
 * out->storage is SLV_DENSE on entry) or CSR. */
static slv_status read_sbm(io_reader *r, const char *name, io_nm *out) {
  sbm s = { out->rows, out->cols, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL };
  slv_status st =
      io_rd_size(r, IO_MAX_DENSE, &s.nb, NULL, "the number of stored blocks of %s", name);
  if (st) return st;
  if (s.nb == 0) return sbm_empty(r, name, out);
  if (!(st = sbm_grid(r, name, &s)) && !(st = sbm_offsets(r, name, s.bn0, s.rows, s.cum0, "row")) &&
      !(st = sbm_offsets(r, name, s.bn1, s.cols, s.cum1, "column")) &&
      !(st = sbm_indices(r, name, &s)) && !(st = sbm_values_room(r, name, &s)) &&
      !(st = sbm_values(r, name, &s))) {
    if (out->storage == SLV_DENSE)
      sbm_to_dense(&s, out->a);
    else
      st = sbm_to_csr(r, name, &s, out);
  }
  sbm_free(&s);
  return st;
}

/* ---- reading a NumericsMatrix ------------------------------------------------- */

/* A dense payload's header: the sizes again, then room for them. */
static slv_status dense_header(io_reader *r, const char *name, const io_nm *out, long line) {
  int r2, c2;
  long l2;
  double count = (double)out->rows * (double)out->cols;
  slv_status st;
  if ((st = io_rd_size(r, IO_MAX_N, &r2, &l2, "the repeated row count of %s", name))) return st;
  if ((st = io_rd_size(r, IO_MAX_N, &c2, NULL, "the repeated column count of %s", name))) return st;
  if (r2 != out->rows || c2 != out->cols)
    return io_rd_failf(r, l2, SLV_ERR_INVALID,
                       "expected the repeated sizes of %s to be %d %d, found %d %d", name,
                       out->rows, out->cols, r2, c2);
  if (count > (double)IO_MAX_NNZ)
    return io_rd_failf(r, line, SLV_ERR_DIM,
                       "expected at most %ld entries in the dense %s, found %d x %d",
                       (long)IO_MAX_NNZ, name, out->rows, out->cols);
  if ((st = io_rd_need(r, count, "the dense %d x %d %s", out->rows, out->cols, name))) return st;
  return io_rd_reserve(r, line, 8.0 * count, "%s, %d x %d dense", name, out->rows, out->cols);
}

/* An SBM kept dense: bounded by IO_MAX_DENSE entries (not backed by file
 * bytes), then reserved. */
static slv_status sbm_dense_room(io_reader *r, const char *name, const io_nm *out, long line) {
  double count = (double)out->rows * (double)out->cols;
  if (count > (double)IO_MAX_DENSE)
    return io_rd_failf(r, line, SLV_ERR_DIM,
                       "expected at most %ld entries to store the sparse-block %s dense, found "
                       "%d x %d",
                       IO_MAX_DENSE, name, out->rows, out->cols);
  return io_rd_reserve(r, line, 8.0 * count, "%s, %d x %d sparse-block kept dense", name, out->rows,
                       out->cols);
}

/* The storage type (0 or 1; 2, CSparse, is refused) and the sizes, checked
 * against want_rows x want_cols. */
static slv_status nm_header(io_reader *r, const char *name, int want_rows, int want_cols,
                            const char *why, int *stype, io_nm *out, long *line) {
  io_token t;
  slv_status st;
  io_rd_peek(r, &t);
  if ((st = io_rd_int(r, 0, 2, stype, "the storage type of %s", name))) return st;
  if (*stype == 2)
    return io_rd_fail(r, &t, SLV_ERR_UNSUPPORTED,
                      "the storage type of %s to be 0 (dense) or 1 (sparse block); CSparse "
                      "storage (2) is not read",
                      name);
  if ((st = io_rd_size(r, IO_MAX_N, &out->rows, line, "the number of rows of %s", name))) return st;
  if ((st = io_rd_size(r, IO_MAX_N, &out->cols, NULL, "the number of columns of %s", name)))
    return st;
  if (want_rows >= 0 && (out->rows != want_rows || out->cols != want_cols))
    return io_rd_failf(r, *line, SLV_ERR_INVALID, "expected %s to be %d x %d (%s), found %d x %d",
                       name, want_rows, want_cols, why, out->rows, out->cols);
  return SLV_OK;
}

/* The least the file must still hold after the header of a matrix of
 * storage type stype: its payload (dense: the repeated sizes and every
 * value; SBM: the block count) and, with vec_after, the vector of its
 * column count that follows it (q).  Checked before anything of the
 * matrix's size is allocated: an SBM of a few bytes may declare any size,
 * built dense. */
static slv_status payload_room(io_reader *r, const char *name, int stype, const io_nm *m,
                               int vec_after) {
  /* dense: the values (the repeated sizes are read); SBM: the block count */
  double payload = stype == 0 ? (double)m->rows * (double)m->cols : 1.0;
  if (!vec_after) return io_rd_need(r, payload, "%s (%d x %d)", name, m->rows, m->cols);
  return io_rd_need(r, payload + m->cols, "%s (%d x %d) and the %d values after it", name, m->rows,
                    m->cols, m->cols);
}

slv_status io_read_nm(io_reader *r, const char *name, int want_rows, int want_cols, const char *why,
                      int csr_above, int vec_after, io_nm *out, long *line) {
  int stype;
  long hline = 0;
  memset(out, 0, sizeof *out);
  if (!line) line = &hline;
  slv_status st = nm_header(r, name, want_rows, want_cols, why, &stype, out, line);
  if (st) return st;
  out->storage = (stype == 1 && out->rows > csr_above) ? SLV_CSR : SLV_DENSE;
  if (stype == 0)
    st = dense_header(r, name, out, *line);
  else if (out->storage == SLV_DENSE)
    st = sbm_dense_room(r, name, out, *line);
  if (!st) st = payload_room(r, name, stype, out, vec_after);
  if (st) return st;
  if (out->storage == SLV_DENSE) {
    double count = (double)out->rows * (double)out->cols;
    out->a = calloc(count > 0 ? (size_t)count : 1, sizeof(double));
    if (!out->a) return io_rd_failf(r, r->line, SLV_ERR_NOMEM, "out of memory for %s", name);
  }
  if (stype == 0)
    st = io_rd_matrix(r, out->rows, out->cols, 1, out->a, (size_t)(out->rows > 0 ? out->rows : 1),
                      IO_RD_FINITE, name);
  else
    st = read_sbm(r, name, out);
  if (st) io_nm_free(out);
  return st;
}

/* ---- writing ------------------------------------------------------------------ */

/* NumericsMatrix, dense: "0", size0, size1, "size0<TAB>size1", then one
 * column per line. */
void io_write_dense_nm(io_writer *w, int n, const double *A) {
  fprintf(w->f, "0\n%d\n%d\n%d\t%d\n", n, n, n, n);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) io_wr_double(w, A[i + (size_t)j * n], i + 1 < n ? ' ' : 0);
    fputc('\n', w->f);
  }
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Block row I's blocks (block columns J of the CSR rows rb I .. rb I +
 * rb - 1, in first-seen order) appended to idx2 from *nb on; mark[J] == I
 * marks those seen. */
/* The end of block row (column) I of rb rows in m: the last may be short. */
static int block_end(int I, int rb, int m) { return rb * I + rb < m ? rb * I + rb : m; }

static void block_row(int I, int rb, int m, int cb, const int *Ap, const int *Aj, int *mark,
                      int *idx2, long *nb) {
  for (int i = rb * I; i < block_end(I, rb, m); i++)
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
  int mb = (m + rb - 1) / rb, nbc = (n + cb - 1) / cb;
  fprintf(w->f, "1\n%d\n%d\n%ld\n", m, n, nb);
  if (nb == 0) return; /* an all-zero matrix: nothing follows nbblocks */
  fprintf(w->f, "%d\n%d\n", mb, nbc);
  for (int I = 0; I < mb; I++) fprintf(w->f, "%d%c", block_end(I, rb, m), I + 1 < mb ? '\t' : '\n');
  for (int J = 0; J < nbc; J++)
    fprintf(w->f, "%d%c", block_end(J, cb, n), J + 1 < nbc ? '\t' : '\n');
  fprintf(w->f, "%d\n%ld\n", mb + 1, nb);
  for (int I = 0; I <= mb; I++) fprintf(w->f, "%d%c", idx1[I], I < mb ? '\t' : '\n');
  for (long q = 0; q < nb; q++) fprintf(w->f, "%d%c", idx2[q], q + 1 < nb ? '\t' : '\n');
  int be = rb * cb;
  for (int I = 0; I < mb; I++)
    for (long q = idx1[I]; q < idx1[I + 1]; q++) { /* a short block: its own rows and columns */
      int nr = block_end(I, rb, m) - rb * I, nc = block_end(idx2[q], cb, n) - cb * idx2[q];
      fprintf(w->f, "%ld\n", q);
      for (int c = 0; c < nc; c++)
        for (int r = 0; r < nr; r++)
          io_wr_double(w, blk[(size_t)be * q + (size_t)r + (size_t)rb * c],
                       c == nc - 1 && r == nr - 1 ? '\n' : ' ');
    }
}

slv_status io_write_sbm(io_writer *w, int m, int n, int rb, int cb, const int *Ap, const int *Aj,
                        const double *Ax) {
  int mb = (m + rb - 1) / rb, nbc = (n + cb - 1) / cb, be = rb * cb;
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
    block_row(I, rb, m, cb, Ap, Aj, mark, NULL, &nb);
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
    block_row(I, rb, m, cb, Ap, Aj, mark, idx2, &b);
    qsort(idx2 + idx1[I], (size_t)(idx1[I + 1] - idx1[I]), sizeof(int), cmp_int);
    /* mark[J] now holds the block number of (I, J) */
    for (int q = idx1[I]; q < idx1[I + 1]; q++) mark[idx2[q]] = q;
    for (int i = rb * I; i < block_end(I, rb, m); i++)
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
