/* operator.c -- the operator of one solve (operator.h): A's primitives over
 * the problem's storage, the one packed copy, the factored scratch.
 * docs/solver-machinery.md, "The operator layer".
 */
#include "operator.h"
#include "par.h"
#include "slv_internal.h"

#include <cblas.h>
#include <stdint.h>
#undef I /* complex.h, through cblas.h: I is a block row here */
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SLV_OP_AVX2 1
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- buffers ---------------------------------------------------------------- */

void slv_op_buf_free(slv_op_buf *b) {
  free(b->colptr);
  free(b->rowind);
  free(b->val);
  free(b->scratch);
  free(b->t);
  free(b->tres);
  free(b->blk);
  free(b->hkey);
  free(b->hval);
  free(b->rowsize);
  free(b->diag);
  free(b->wx_x);
  free(b->wx_w);
  memset(b, 0, sizeof *b);
}

slv_status slv_op_buf_alloc(slv_op_buf *b, int n_max) {
  memset(b, 0, sizeof *b);
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  b->n_max = n_max;
  /* a dense A below SLV_OP_PACK_MIN_N rows is never packed, but a CSR one
   * is transposed, and may have up to n^2 entries */
  b->cap = m < SLV_OP_PACK_MIN_N ? m * m : m * m / 4;
  if (b->cap > SLV_OP_PACK_MAX) b->cap = SLV_OP_PACK_MAX;
  b->colptr = malloc((m + 1) * sizeof *b->colptr);
  b->rowind = malloc(b->cap * sizeof *b->rowind);
  b->val = malloc(b->cap * sizeof *b->val);
  b->scratch = malloc(m * sizeof *b->scratch);
  b->nb_cap = (int)(2 * m);
  b->t = malloc(6 * (size_t)b->nb_cap * sizeof *b->t);
  b->tres = malloc(6 * (size_t)b->nb_cap * sizeof *b->tres);
  b->blk = malloc(2 * m * sizeof *b->blk);
  b->hcap = 1;
  while ((size_t)b->hcap < 4 * m) b->hcap *= 2;
  b->hkey = malloc((size_t)b->hcap * sizeof *b->hkey);
  b->hval = malloc((size_t)b->hcap * sizeof *b->hval);
  b->rowsize = malloc(m * sizeof *b->rowsize);
  b->diag = malloc(m * sizeof *b->diag);
  b->wx_x = malloc(m * sizeof *b->wx_x);
  b->wx_w = malloc(m * sizeof *b->wx_w);
  if (!b->colptr || !b->rowind || !b->val || !b->scratch || !b->t || !b->tres || !b->blk ||
      !b->hkey || !b->hval || !b->rowsize || !b->diag || !b->wx_x || !b->wx_w) {
    slv_op_buf_free(b);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* ---- building ----------------------------------------------------------------- */

const slv_rowscale *slv_op_rowscale(slv_op *op) {
  if (op->rs_of != op->p) {
    slv_rowscale_fill(op->p, op->buf->rowsize, &op->rs);
    op->rs_of = op->p;
  }
  return &op->rs;
}

double *slv_op_rowsize_buf(slv_op *op) { return op->buf->rowsize; }

void slv_op_rowscale_set(slv_op *op, double xd) { slv_op_rowscale_use(op, op->buf->rowsize, xd); }

void slv_op_rowscale_use(slv_op *op, const double *a, double xd) {
  op->rs.a = a;
  op->rs.xd = xd;
  op->rs_of = op->p;
}

/* The factored blocks renumbered in order of first use, so that t needs
 * at most 2 n of them: open addressing on the block id (load <= 1/2). */
static void renumber_blocks(slv_op *op, slv_op_buf *b) {
  const int *fblk = op->p->fblk;
  unsigned mask = (unsigned)b->hcap - 1;
  for (int h = 0; h < b->hcap; h++) b->hkey[h] = -1;
  int nb = 0;
  for (int s = 0; s < 2 * op->n; s++) {
    int id = fblk[s];
    if (id < 0) {
      b->blk[s] = -1;
      continue;
    }
    unsigned h = ((uint32_t)id * 2654435761u) >> 7 & mask;
    while (b->hkey[h] != id && b->hkey[h] != -1) h = (h + 1) & mask;
    if (b->hkey[h] == -1) {
      b->hkey[h] = id;
      b->hval[h] = nb++;
    }
    b->blk[s] = b->hval[h];
  }
  op->f.blk = b->blk;
  op->f.nb = nb;
}

void slv_op_begin(slv_op *op, const slv_problem *p, slv_op_buf *b) {
  memset(op, 0, sizeof *op);
  op->p = p;
  op->n = p->n;
  op->buf = b;
  op->threads = 1;
  switch (p->storage) {
  case SLV_DENSE:
    op->A = p->A;
    op->lda = (size_t)p->lda;
    break;
  case SLV_CSR:
    op->Ap = p->Ap;
    op->Aj = p->Aj;
    op->Ax = p->Ax;
    break;
  case SLV_FACTORED:
    op->fac = 1;
    op->f = slv_fac_of(p);
    if (b->diag_of == p) op->aii = b->diag; /* the validation's A_ii */
    op->t = b->t;
    if (p->nblk > b->nb_cap) renumber_blocks(op, b);
    break;
  }
}

/* ---- the packed copy ------------------------------------------------------------- */

/* The nonzeros of a[0..n). */
static size_t count_nonzeros(const double *a, int n) {
  size_t c = 0;
  for (int i = 0; i < n; i++) c += a[i] != 0.0;
  return c;
}

#ifdef SLV_OP_AVX2
/* The same, eight entries a step: each compare's all-ones lanes (-1 as
 * integers) subtracted from two counters of four lanes. */
__attribute__((target("avx2"))) static size_t count_nonzeros_avx2(const double *a, int n) {
  const __m256d zero = _mm256_setzero_pd();
  __m256i c0 = _mm256_setzero_si256(), c1 = _mm256_setzero_si256();
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256d m0 = _mm256_cmp_pd(_mm256_loadu_pd(a + i), zero, _CMP_NEQ_UQ);
    __m256d m1 = _mm256_cmp_pd(_mm256_loadu_pd(a + i + 4), zero, _CMP_NEQ_UQ);
    c0 = _mm256_sub_epi64(c0, _mm256_castpd_si256(m0));
    c1 = _mm256_sub_epi64(c1, _mm256_castpd_si256(m1));
  }
  uint64_t c[4];
  _mm256_storeu_si256((__m256i *)(void *)c, _mm256_add_epi64(c0, c1));
  return (size_t)(c[0] + c[1] + c[2] + c[3]) + count_nonzeros(a + i, n - i);
}
#endif

/* The nonzeros of a dense A's columns [j0, j1). */
static size_t count_dense_cols(const slv_op *op, int j0, int j1, int avx2) {
  size_t c = 0;
  for (int j = j0; j < j1; j++) {
    const double *a = op->A + (size_t)j * op->lda;
#ifdef SLV_OP_AVX2
    if (avx2) {
      c += count_nonzeros_avx2(a, op->n);
      continue;
    }
#endif
    (void)avx2;
    c += count_nonzeros(a, op->n);
  }
  return c;
}

/* The nonzeros of a[0..n) into the packed arrays from slot nnz on (row i
 * of a at i0 + i); returns the slots used after them. */
static size_t copy_nonzeros(const double *a, int i0, int n, size_t nnz, int *rowind, double *val) {
  for (int i = 0; i < n; i++)
    if (a[i] != 0.0) {
      rowind[nnz] = i0 + i;
      val[nnz++] = a[i];
    }
  return nnz;
}

#ifdef SLV_OP_AVX2
/* The same, eight entries a step: a step with no nonzero costs two
 * compares and one test (a branch on every entry mispredicts on a sparse
 * A: on contact 1000, 1.3 % nonzero, that copy was 7 % of a dantzig
 * solve's time); a nonzero's lane comes from its compare's mask. */
__attribute__((target("avx2"))) static size_t copy_nonzeros_avx2(const double *a, int n, size_t nnz,
                                                                 int *rowind, double *val) {
  const __m256d zero = _mm256_setzero_pd();
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256d m0 = _mm256_cmp_pd(_mm256_loadu_pd(a + i), zero, _CMP_NEQ_UQ);
    __m256d m1 = _mm256_cmp_pd(_mm256_loadu_pd(a + i + 4), zero, _CMP_NEQ_UQ);
    unsigned mask = (unsigned)_mm256_movemask_pd(m0) | (unsigned)_mm256_movemask_pd(m1) << 4;
    for (; mask; mask &= mask - 1) {
      int r = i + __builtin_ctz(mask);
      rowind[nnz] = r;
      val[nnz++] = a[r];
    }
  }
  return copy_nonzeros(a + i, i, n - i, nnz, rowind, val);
}
#endif

/* Columns [j0, j1) of a dense A's nonzeros into the packed arrays from
 * slot nnz on; returns the slots used after them. */
static size_t copy_dense_cols(const slv_op *op, int j0, int j1, size_t nnz, int *colptr,
                              int *rowind, double *val, int avx2) {
  for (int j = j0; j < j1; j++) {
    const double *a = op->A + (size_t)j * op->lda;
    colptr[j] = (int)nnz;
#ifdef SLV_OP_AVX2
    if (avx2) {
      nnz = copy_nonzeros_avx2(a, op->n, nnz, rowind, val);
      continue;
    }
#endif
    (void)avx2;
    nnz = copy_nonzeros(a, 0, op->n, nnz, rowind, val);
  }
  return nnz;
}

/* Columns a chunk: counted, then copied while they are in cache. */
enum { PACK_CHUNK = 32 };

/* A dense A's nonzeros by columns if there are at most cap of them.  Each
 * chunk of columns is counted (AVX2: eight entries a step), and copied
 * while the count so far, scaled to all n columns, stays within cap (a
 * mostly-zero A: one read); past that only the count goes on, stopping
 * as soon as cap is passed (a full A: a count over a quarter of it, where
 * a copy as it counted took 3.0 M instructions of a dantzig solve of spd
 * 1000), and the columns not copied are copied at the end if the whole
 * count fits after all.  The count decides: the copy is the same. */
static int pack_dense_cols(const slv_op *op, size_t cap, int *colptr, int *rowind, double *val) {
  int n = op->n, copied = 0, avx2 = 0;
#ifdef SLV_OP_AVX2
  avx2 = __builtin_cpu_supports("avx2");
#endif
  size_t nnz = 0, total = 0;
  for (int j0 = 0; j0 < n; j0 += PACK_CHUNK) {
    int j1 = j0 + PACK_CHUNK < n ? j0 + PACK_CHUNK : n;
    total += count_dense_cols(op, j0, j1, avx2);
    if (total > cap) return 0;
    if (copied == j0 && (double)total * n <= (double)cap * j1) {
      nnz = copy_dense_cols(op, j0, j1, nnz, colptr, rowind, val, avx2);
      copied = j1;
    }
  }
  nnz = copy_dense_cols(op, copied, n, nnz, colptr, rowind, val, avx2);
  colptr[n] = (int)nnz;
  return 1;
}

/* A CSR A transposed into columns (every stored entry, rows increasing in
 * each column), if it fits. */
static int pack_csr_cols(const slv_op *op, slv_op_buf *b) {
  int n = op->n;
  size_t nnz = (size_t)op->Ap[n];
  if (nnz > b->cap) return 0;
  int *colptr = b->colptr, *next = b->scratch;
  for (int j = 0; j <= n; j++) colptr[j] = 0;
  for (size_t k = 0; k < nnz; k++) colptr[op->Aj[k] + 1]++;
  for (int j = 0; j < n; j++) colptr[j + 1] += colptr[j];
  for (int j = 0; j < n; j++) next[j] = colptr[j];
  for (int i = 0; i < n; i++)
    for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++) {
      int d = next[op->Aj[k]]++;
      b->rowind[d] = i;
      b->val[d] = op->Ax[k];
    }
  return 1;
}

/* Nonzero bits of a[0..2] ignoring the signs: 0 iff all three are +-0 (a
 * NaN counts as nonzero, as a != 0 does); branch-free, so the scan of a
 * mostly-zero dense A runs at load speed. */
static inline uint64_t nz_bits(const double *a) {
  uint64_t u0, u1, u2;
  memcpy(&u0, a, sizeof u0);
  memcpy(&u1, a + 1, sizeof u1);
  memcpy(&u2, a + 2, sizeof u2);
  return (u0 | u1 | u2) << 1;
}

/* Block (I, J) of a dense A (column-major in 9 values) appended to the
 * packed copy as block *nb with index idx, if one of its 9 entries is
 * nonzero: 1 appended, 0 all zero (skipped), -1 no room left. */
static int append_dense_block(const slv_op *op, slv_op_buf *b, size_t *nb, int I, int J, int idx) {
  size_t lda = op->lda;
  const double *a0 = op->A + (size_t)(3 * J) * lda + 3 * I, *a1 = a0 + lda, *a2 = a1 + lda;
  if (!(nz_bits(a0) | nz_bits(a1) | nz_bits(a2))) return 0;
  if (*nb == b->cap / 9) return -1;
  double *B = b->val + 9 * *nb;
  B[0] = a0[0], B[1] = a0[1], B[2] = a0[2];
  B[3] = a1[0], B[4] = a1[1], B[5] = a1[2];
  B[6] = a2[0], B[7] = a2[1], B[8] = a2[2];
  b->rowind[(*nb)++] = idx;
  return 1;
}

/* A dense pure contact A (cone k = rows 3k..3k+2) by its nonzero 3x3
 * blocks, in one pass in block order: block (I, J) is kept iff one of its
 * 9 entries is nonzero. */
static int pack_dense_blocks(const slv_op *op, slv_op_buf *b, int nc) {
  size_t nb = 0;
  for (int J = 0; J < nc; J++) {
    b->colptr[J] = (int)nb;
    for (int I = 0; I < nc; I++)
      if (append_dense_block(op, b, &nb, I, J, I) < 0) return 0;
  }
  b->colptr[nc] = (int)nb;
  return 1;
}

/* The same from CSR: count, then fill, with the scratch as two nc-sized
 * arrays (last block row seen per block column, and its slot). */
static int pack_csr_blocks(const slv_op *op, slv_op_buf *b, int nc) {
  int n = op->n, *last = b->scratch, *slot = b->scratch + nc;
  size_t nb = 0, cap = b->cap / 9;
  for (int J = 0; J <= nc; J++) b->colptr[J] = 0;
  for (int J = 0; J < nc; J++) last[J] = -1;
  for (int i = 0; i < n; i++) {
    int I = i / 3;
    for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++) {
      int J = op->Aj[k] / 3;
      if (op->Ax[k] != 0.0 && last[J] != I) {
        last[J] = I;
        b->colptr[J + 1]++;
        nb++;
      }
    }
    if (nb > cap) return 0;
  }
  for (int J = 0; J < nc; J++) b->colptr[J + 1] += b->colptr[J];
  for (int J = 0; J < nc; J++) {
    last[J] = -1;
    slot[J] = b->colptr[J];
  }
  for (int i = 0; i < n; i++) {
    int I = i / 3, r = i - 3 * I;
    for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++) {
      int j = op->Aj[k];
      double a = op->Ax[k];
      if (a == 0.0) continue;
      int J = j / 3;
      if (last[J] != I) {
        if (last[J] >= 0) slot[J]++;
        last[J] = I;
        b->rowind[slot[J]] = I;
        memset(b->val + 9 * (size_t)slot[J], 0, 9 * sizeof *b->val);
      }
      b->val[9 * (size_t)slot[J] + r + 3 * (j - 3 * J)] = a;
    }
  }
  return 1;
}

/* Scalar columns: a dense A of n >= SLV_OP_PACK_MIN_N rows with at most
 * n^2 / 4 nonzeros (beyond that the dense column update is as fast), or
 * any CSR A that fits. */
static int pack_cols(const slv_op *op, slv_op_buf *b) {
  if (op->Ap) return pack_csr_cols(op, b);
  int n = op->n;
  if (n < SLV_OP_PACK_MIN_N) return 0;
  size_t cap = (size_t)n * n / 4;
  if (cap > b->cap) cap = b->cap;
  /* the first pass counted A's nonzeros: past the cap, the copy would
   * give up there (a quarter of A read and copied for nothing) */
  if (slv_scan_of(op->scan, op->p) && op->scan->nnz > cap) return 0;
  return pack_dense_cols(op, cap, b->colptr, b->rowind, b->val);
}

/* A dense pure contact A by block rows: block row I holds its nonzero
 * blocks (I, J), J ascending, in the layout of pack_dense_blocks. */
static int pack_dense_block_rows(const slv_op *op, slv_op_buf *b, int nc) {
  size_t nb = 0;
  for (int I = 0; I < nc; I++) {
    b->colptr[I] = (int)nb;
    for (int J = 0; J < nc; J++)
      if (append_dense_block(op, b, &nb, I, J, J) < 0) return 0;
  }
  b->colptr[nc] = (int)nb;
  return 1;
}

/* The same from CSR, in one pass: the three rows of block row I open a
 * block at the first nonzero of each block column (its slot kept in the
 * scratch), so the blocks of a row come in the order the rows name them. */
static int pack_csr_block_rows(const slv_op *op, slv_op_buf *b, int nc) {
  int *last = b->scratch, *slot = b->scratch + nc;
  size_t nb = 0, cap = b->cap / 9;
  for (int J = 0; J < nc; J++) last[J] = -1;
  for (int I = 0; I < nc; I++) {
    b->colptr[I] = (int)nb;
    for (int r = 0; r < 3; r++) {
      int i = 3 * I + r;
      for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++) {
        int j = op->Aj[k], J = j / 3;
        double a = op->Ax[k];
        if (a == 0.0) continue;
        if (last[J] != I) {
          if (nb == cap) return 0;
          last[J] = I;
          slot[J] = (int)nb;
          b->rowind[nb] = J;
          memset(b->val + 9 * nb, 0, 9 * sizeof *b->val);
          nb++;
        }
        b->val[9 * (size_t)slot[J] + r + 3 * (j - 3 * J)] = a;
      }
    }
  }
  b->colptr[nc] = (int)nb;
  return 1;
}

/* What slv_op_pack and slv_op_pack_rows have tried (op->pack_tried). */
enum { PACK_NONE = 0, PACK_TRIED_COLUMNS = 1, PACK_TRIED_ROWS = 2 };

static void use_packed(slv_op *op, int layout) {
  slv_op_buf *b = op->buf;
  op->packed = layout;
  op->colptr = b->colptr;
  op->rowind = b->rowind;
  op->val = b->val;
}

/* A pure contact problem: n = 3 ncones (block packing applies). */
static int pure_contact(const slv_op *op) {
  int nc = op->p->ncones;
  return nc > 0 && 3 * nc == op->n;
}

/* By columns: 3x3 blocks of a pure contact problem, else scalar columns. */
static int pack_columns(slv_op *op) {
  slv_op_buf *b = op->buf;
  int nc = op->p->ncones;
  if (pure_contact(op) && (op->A ? pack_dense_blocks(op, b, nc) : pack_csr_blocks(op, b, nc)))
    use_packed(op, SLV_OP_BLOCKS);
  else if (pack_cols(op, b))
    use_packed(op, SLV_OP_COLS);
  return op->packed;
}

int slv_op_pack(slv_op *op) {
  if (op->pack_tried == PACK_TRIED_COLUMNS) return op->packed;
  op->pack_tried = PACK_TRIED_COLUMNS;
  op->packed = SLV_OP_UNPACKED;
  if (op->fac || op->n == 0) return 0;
  return pack_columns(op);
}

int slv_op_pack_rows(slv_op *op) {
  if (op->pack_tried == PACK_TRIED_ROWS) return op->packed;
  op->pack_tried = PACK_TRIED_ROWS;
  op->packed = SLV_OP_UNPACKED;
  if (op->fac || op->n == 0) return 0;
  slv_op_buf *b = op->buf;
  int nc = op->p->ncones;
  if (pure_contact(op) &&
      (op->A ? pack_dense_block_rows(op, b, nc) : pack_csr_block_rows(op, b, nc))) {
    use_packed(op, SLV_OP_BLOCK_ROWS);
    return op->packed;
  }
  return pack_columns(op);
}

/* ---- symmetry by the packed copy ------------------------------------------------ */

/* The slot of index key among idx[lo..hi) (increasing), or -1. */
static int find_sorted(const int *idx, int lo, int hi, int key) {
  int end = hi;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (idx[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < end && idx[lo] == key ? lo : -1;
}

/* The largest |entry| of the packed copy's m values. */
static double packed_amax(const double *val, size_t m) {
  double amax = 0;
  for (size_t e = 0; e < m; e++) {
    double a = fabs(val[e]);
    if (a > amax) amax = a;
  }
  return amax;
}

/* Packed scalar columns: they are A' by rows, and A' is symmetric iff A
 * is, so slv_is_symmetric reads them as CSR (rows sorted, or duplicates
 * summed); the pair it finds is A's transposed back. */
static int cols_symmetric(const slv_op *op, double rtol, int *ii, int *jj) {
  slv_problem t = *op->p;
  t.storage = SLV_CSR;
  t.A = NULL;
  t.lda = 0;
  t.Ap = op->colptr;
  t.Aj = op->rowind;
  t.Ax = op->val;
  return slv_is_symmetric(&t, rtol, jj, ii);
}

/* Packed 3x3 blocks by column: every stored block (I,J) against the
 * transpose of block (J,I) (zero if not stored). */
static int blocks_symmetric(const slv_op *op, double tol, int *ii, int *jj) {
  static const double zero[9];
  const int *cp = op->colptr, *ri = op->rowind;
  for (int J = 0; J < op->n / 3; J++)
    for (int k = cp[J]; k < cp[J + 1]; k++) {
      int I = ri[k], m = find_sorted(ri, cp[I], cp[I + 1], J);
      const double *B = op->val + 9 * (size_t)k, *T = m < 0 ? zero : op->val + 9 * (size_t)m;
      for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
          if (fabs(B[r + 3 * c] - T[c + 3 * r]) > tol) {
            *ii = 3 * I + r;
            *jj = 3 * J + c;
            return 0;
          }
    }
  return 1;
}

int slv_op_is_symmetric(slv_op *op, double rtol, int *ii, int *jj) {
  if (op->sym != 0 && op->sym_rtol == rtol) {
    *ii = op->sym_i;
    *jj = op->sym_j;
    return op->sym > 0;
  }
  int yes;
  *ii = *jj = -1;
  if (slv_scan_of(op->scan, op->p) && slv_scan_symmetric(op->scan, rtol)) {
    yes = 1; /* the first pass's maxima; the pair is searched for below when it fails */
  } else if (op->packed == SLV_OP_COLS) {
    yes = cols_symmetric(op, rtol, ii, jj);
  } else if (op->packed == SLV_OP_BLOCKS) {
    size_t m = 9 * (size_t)op->colptr[op->n / 3];
    yes = blocks_symmetric(op, rtol * packed_amax(op->val, m), ii, jj);
  } else {
    yes = slv_is_symmetric_threads(op->p, rtol, ii, jj, op->threads);
  }
  op->sym = yes ? 1 : -1;
  op->sym_rtol = rtol;
  op->sym_i = *ii;
  op->sym_j = *jj;
  return yes;
}

double slv_op_nnz(const slv_op *op) {
  int n = op->n;
  if (op->packed == SLV_OP_COLS) return op->colptr[n];
  if (op->packed == SLV_OP_BLOCKS || op->packed == SLV_OP_BLOCK_ROWS) {
    /* the nonzeros inside the blocks */
    double nz = 0;
    for (size_t e = 0; e < 9 * (size_t)op->colptr[n / 3]; e++) nz += op->val[e] != 0.0;
    return nz;
  }
  if (op->fac) return 24.0 * n;
  if (op->Ap) return op->Ap[n];
  return (double)n * n;
}

/* ---- the primitives ------------------------------------------------------------- */

double slv_op_entry(const slv_op *op, int i, int j) {
  if (op->A) return op->A[(size_t)i + (size_t)j * op->lda];
  if (op->Ap) {
    double a = 0;
    for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++)
      if (op->Aj[k] == j) a += op->Ax[k];
    return a;
  }
  const slv_fac *f = &op->f;
  double a = i == j && f->d ? f->d[i] : 0.0;
  for (int k = 0; k < 2; k++)
    for (int l = 0; l < 2; l++)
      if (f->blk[2 * i + k] >= 0 && f->blk[2 * i + k] == f->blk[2 * j + l])
        a += slv_dot6(f->J + 12 * (size_t)i + 6 * k, f->K + 12 * (size_t)j + 6 * l);
  return a;
}

double slv_op_diag(const slv_op *op, int i) {
  if (op->fac) return op->aii ? op->aii[i] : slv_fac_diag(&op->f, i);
  return slv_op_entry(op, i, i);
}

void slv_op_metric(const slv_op *op, double *dg) {
  const slv_problem *p = op->p;
  int n = op->n, npos = 0;
  double sum = 0;
  for (int i = 0; i < n; i++) {
    dg[i] = slv_op_diag(op, i);
    if (dg[i] > 0 && isfinite(dg[i])) sum += dg[i], npos++;
  }
  for (int k = 0; k < p->ncones; k++) {
    int r = p->cone_rows[k];
    if (p->cone_mu[k] > 0) dg[r] = dg[r + 1] = dg[r + 2] = (dg[r] + dg[r + 1] + dg[r + 2]) / 3;
  }
  double fill = npos > 0 ? sum / npos : 1;
  for (int i = 0; i < n; i++)
    if (!(dg[i] > 0 && isfinite(dg[i]))) dg[i] = fill;
}

void slv_op_block3(const slv_op *op, int i, double W[9]) {
  for (int c = 0; c < 3; c++)
    for (int r = 0; r < 3; r++) W[r + 3 * c] = slv_op_entry(op, i + r, i + c);
}

void slv_op_dense_axpy(const slv_op *op, int j, double a, double *y) {
  cblas_daxpy(op->n, a, op->A + (size_t)j * op->lda, 1, y, 1);
}

void slv_op_col3_axpy(const slv_op *op, int j, const double d[3], double *y) {
  double d0 = d[0], d1 = d[1], d2 = d[2];
  if (op->packed == SLV_OP_BLOCKS) {
    int J = j / 3;
    for (int k = op->colptr[J]; k < op->colptr[J + 1]; k++) {
      const double *B = op->val + 9 * (size_t)k;
      double *yi = y + 3 * (size_t)op->rowind[k];
      yi[0] += B[0] * d0 + B[3] * d1 + B[6] * d2;
      yi[1] += B[1] * d0 + B[4] * d1 + B[7] * d2;
      yi[2] += B[2] * d0 + B[5] * d1 + B[8] * d2;
    }
  } else if (op->packed == SLV_OP_COLS) {
    for (int c = 0; c < 3; c++)
      if (d[c] != 0) slv_op_col_axpy(op, j + c, d[c], y);
  } else {
    const double *a0 = op->A + (size_t)j * op->lda, *a1 = a0 + op->lda, *a2 = a1 + op->lda;
    for (int i = 0; i < op->n; i++) y[i] += d0 * a0[i] + d1 * a1[i] + d2 * a2[i];
  }
}

/* Rows i0 .. i1-1 of w = A x + b for CSR storage (b NULL: A x). */
static void csr_w_rows(const slv_problem *p, const double *x, const double *b, double *w, int i0,
                       int i1) {
  for (int i = i0; i < i1; i++) {
    double s = 0;
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) s += p->Ax[k] * x[p->Aj[k]];
    w[i] = b ? b[i] + s : s;
  }
}

/* A CSR or block-row product is split over threads only from this many
 * nonzeros and SLV_PAR_MIN_N rows on: below, starting the team costs more
 * than the rows.  The rows count too: an iterative solver below
 * SLV_PAR_MIN_N rows runs its vector stages on one thread, and a split
 * product between them was slower than none (apgd on the pile-500 export,
 * 4065 rows and more than 65,536 entries: 18-19 ms on one thread, 20-56 ms
 * on two; docs/solver-machinery.md, "Threads"). */
enum { SLV_OP_PAR_NNZ = 1 << 16 };

#ifdef _OPENMP
static int product_splits(int threads, int n, long long nnz) {
  return threads > 1 && n >= SLV_PAR_MIN_N && nnz >= SLV_OP_PAR_NNZ;
}
#endif

/* The CSR product on `threads` threads, each a contiguous block of rows.
 * Every row is summed in the same order by whichever thread owns it, so w
 * is the same bit for bit for every thread count. */
static void csr_w(const slv_problem *p, const double *x, const double *b, double *w, int threads) {
  int n = p->n;
#ifdef _OPENMP
  if (product_splits(threads, n, p->Ap[n])) {
#pragma omp parallel num_threads(threads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      int i0 = (int)((long long)n * t / nt), i1 = (int)((long long)n * (t + 1) / nt);
      csr_w_rows(p, x, b, w, i0, i1);
    }
    return;
  }
#else
  (void)threads;
#endif
  csr_w_rows(p, x, b, w, 0, n);
}

/* w = A x + b for dense and CSR storage (b NULL: A x): the product of
 * slv_problem_w. */
void slv_explicit_w(const slv_problem *p, const double *x, const double *b, double *w) {
  int n = p->n;
  if (n == 0) return;
  if (p->storage == SLV_DENSE) {
    if (b) memcpy(w, b, (size_t)n * sizeof *w);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, p->A, p->lda, x, 1, b ? 1.0 : 0.0, w, 1);
    return;
  }
  csr_w(p, x, b, w, 1);
}

/* slv_explicit_w on the operator's threads. */
static void explicit_w_threads(const slv_op *op, const double *x, const double *b, double *w) {
  if (op->p->storage == SLV_CSR && op->n > 0)
    csr_w(op->p, x, b, w, op->threads);
  else
    slv_explicit_w(op->p, x, b, w);
}

/* The same, w = A x + b of op->p (b its b) kept with its x (op->wx_of),
 * and taken from there when x is the one kept, bit for bit: a solver's
 * final w and slv_solve's for the verdict are then one product. */
static void op_explicit_w(slv_op *op, const double *x, const double *b, double *w) {
  size_t bytes = (size_t)op->n * sizeof *w;
  if (b != op->p->b || !op->buf) {
    explicit_w_threads(op, x, b, w);
    return;
  }
  if (op->wx_of == op->p && memcmp(x, op->buf->wx_x, bytes) == 0) {
    memcpy(w, op->buf->wx_w, bytes);
    return;
  }
  explicit_w_threads(op, x, b, w);
  memcpy(op->buf->wx_x, x, bytes);
  memcpy(op->buf->wx_w, w, bytes);
  op->wx_of = op->p;
}

/* Whether x is all zero (the cold start of most solvers). */
static int all_zero(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] != 0.0) return 0;
  return 1;
}

void slv_op_w_rows(slv_op *op, const double *x, double *w) {
  if (op->fac && op->t_current)
    slv_fac_rows_threads(&op->f, x, op->p->b, w, op->t, op->threads);
  else
    slv_op_w(op, x, w);
}

void slv_op_w(slv_op *op, const double *x, double *w) {
  if (op->fac) /* also leaves t = K^T x, which the factored sweeps keep */
    slv_fac_w_threads(&op->f, x, op->p->b, w, op->t, op->threads);
  else if (all_zero(x, op->n)) /* A 0 + b = b (A is finite: validated) */
    memcpy(w, op->p->b, (size_t)op->n * sizeof *w);
  else
    op_explicit_w(op, x, op->p->b, w);
}

/* Block rows [I0, I1) of y = A x + b (b NULL: A x) from the packed block
 * rows: each block row summed in registers, in its stored order, then b. */
static void block_rows_w(const slv_op *op, const double *x, const double *b, double *y, int I0,
                         int I1) {
  for (int I = I0; I < I1; I++) {
    double y0 = 0, y1 = 0, y2 = 0;
    for (int k = op->colptr[I]; k < op->colptr[I + 1]; k++) {
      const double *B = op->val + 9 * (size_t)k, *xj = x + 3 * (size_t)op->rowind[k];
      y0 += B[0] * xj[0] + B[3] * xj[1] + B[6] * xj[2];
      y1 += B[1] * xj[0] + B[4] * xj[1] + B[7] * xj[2];
      y2 += B[2] * xj[0] + B[5] * xj[1] + B[8] * xj[2];
    }
    double *yi = y + 3 * (size_t)I;
    yi[0] = b ? b[3 * I] + y0 : y0;
    yi[1] = b ? b[3 * I + 1] + y1 : y1;
    yi[2] = b ? b[3 * I + 2] + y2 : y2;
  }
}

/* The first block row of thread t of nt: the block rows split where the
 * blocks do (a binary search of colptr), so each thread has about the
 * same number of blocks. */
static int block_row_split(const slv_op *op, int nrows, int t, int nt) {
  long long target = (long long)op->colptr[nrows] * t / nt;
  int lo = 0, hi = nrows;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (op->colptr[mid] < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* y = A x + b over the packed block rows, on op->threads threads when the
 * problem is large enough (product_splits).  Each block row is summed
 * by one thread in the same order whatever the count, so y is the same bit
 * for bit for every thread count. */
static void block_rows_matvec(const slv_op *op, const double *x, const double *b, double *y) {
  int nrows = op->n / 3;
#ifdef _OPENMP
  if (product_splits(op->threads, op->n, 9 * (long long)op->colptr[nrows])) {
#pragma omp parallel num_threads(op->threads)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      block_rows_w(op, x, b, y, block_row_split(op, nrows, t, nt),
                   block_row_split(op, nrows, t + 1, nt));
    }
    return;
  }
#endif
  block_rows_w(op, x, b, y, 0, nrows);
}

void slv_op_matvec(slv_op *op, const double *x, const double *b, double *y) {
  int n = op->n;
  if (op->packed == SLV_OP_BLOCK_ROWS) {
    block_rows_matvec(op, x, b, y);
    return;
  }
  if (!op->packed) {
    if (op->fac)
      slv_fac_w(&op->f, x, b, y, op->t, op->f.nb);
    else
      op_explicit_w(op, x, b, y);
    return;
  }
  if (b)
    memcpy(y, b, (size_t)n * sizeof *y);
  else
    memset(y, 0, (size_t)n * sizeof *y);
  if (op->packed == SLV_OP_COLS) {
    for (int j = 0; j < n; j++) {
      double xj = x[j];
      if (xj == 0.0) continue;
      for (int k = op->colptr[j]; k < op->colptr[j + 1]; k++) y[op->rowind[k]] += xj * op->val[k];
    }
    return;
  }
  for (int J = 0; J < n / 3; J++) {
    double d0 = x[3 * J], d1 = x[3 * J + 1], d2 = x[3 * J + 2];
    if (d0 == 0.0 && d1 == 0.0 && d2 == 0.0) continue;
    for (int k = op->colptr[J]; k < op->colptr[J + 1]; k++) {
      const double *B = op->val + 9 * (size_t)k;
      double *yi = y + 3 * (size_t)op->rowind[k];
      yi[0] += B[0] * d0 + B[3] * d1 + B[6] * d2;
      yi[1] += B[1] * d0 + B[4] * d1 + B[7] * d2;
      yi[2] += B[2] * d0 + B[5] * d1 + B[8] * d2;
    }
  }
}

const double *slv_op_col(const slv_op *op, int j, double *y) {
  if (op->A) return op->A + (size_t)j * op->lda;
  int n = op->n;
  memset(y, 0, (size_t)n * sizeof *y);
  if (op->packed == SLV_OP_COLS) {
    for (int k = op->colptr[j]; k < op->colptr[j + 1]; k++) y[op->rowind[k]] += op->val[k];
  } else if (op->packed == SLV_OP_BLOCKS) {
    int J = j / 3, c = j - 3 * J;
    for (int k = op->colptr[J]; k < op->colptr[J + 1]; k++)
      for (int r = 0; r < 3; r++) y[3 * op->rowind[k] + r] += op->val[9 * (size_t)k + 3 * c + r];
  } else { /* CSR, with or without the packed block rows */
    for (int i = 0; i < n; i++)
      for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++)
        if (op->Aj[k] == j) y[i] += op->Ax[k];
  }
  return y;
}

void slv_op_to_dense(const slv_op *op, double *F, int ldf) {
  int n = op->n;
  if (op->A) {
    for (int j = 0; j < n; j++)
      memcpy(F + (size_t)j * ldf, op->A + (size_t)j * op->lda, (size_t)n * sizeof *F);
    return;
  }
  for (int j = 0; j < n; j++) memset(F + (size_t)j * ldf, 0, (size_t)n * sizeof *F);
  for (int i = 0; i < n; i++)
    for (int k = op->Ap[i]; k < op->Ap[i + 1]; k++) F[i + (size_t)op->Aj[k] * ldf] += op->Ax[k];
}
