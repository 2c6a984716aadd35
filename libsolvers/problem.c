/* problem.c -- validation of slv_problem and the product w = A x + b.
 *
 * Validation runs before every solve (slv_solve) and after every read
 * (io_read).  Each rule returns at once with a message naming the index and
 * the values [OSQP validate_data]:
 *   n >= 0; dense: A != NULL, lda >= max(1, n), every A(i,j) finite;
 *   CSR: Ap[0] = 0, Ap non-decreasing, 0 <= Aj < n, every value finite;
 *   factored: nblk >= 0, fblk in {-1} u [0, nblk) and the two slots of a row
 *   not the same block, fJ, fK, fd finite;
 *   b finite; lo, hi not NaN, lo <= hi, lo < +inf, hi > -inf;
 *   findex[i] in {-1} u [0, n), not i, and findex[findex[i]] = -1 (a friction
 *   row couples to a normal row, not to another friction row); mu[i] finite,
 *   >= 0 for every friction row;
 *   cones: first rows strictly increasing, 3 rows each, inside [0, n), not
 *   overlapping; mu finite, >= 0.
 * Returns SLV_OK (0) when valid, SLV_ERR_DIM for n < 0, else
 * SLV_ERR_INVALID.
 */
#include "slv_internal.h"
#include "par.h"

#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SLV_DIAG_AVX2 1
#endif

/* Blocks of K^T x that slv_problem_w keeps on the stack at once (6 KB). */
enum { SLV_W_SLICE = 128 };

slv_problem slv_problem_empty(void) {
  slv_problem p;
  memset(&p, 0, sizeof p);
  p.storage = SLV_DENSE;
  p.lda = 1;
  return p;
}

/* Are the n rows of w doubles at a all finite?  In chunks of whole rows
 * that keep the count an int. */
static int finite_rows(const double *a, int n, int w) {
  const int chunk = (1 << 20) / w;
  for (int i = 0; i < n; i += chunk) {
    int m = n - i < chunk ? n - i : chunk;
    if (!slv_all_finite(m * w, a + (size_t)i * (size_t)w)) return 0;
  }
  return 1;
}

/* The rules come in two parts.  The arrays' part (validate_arrays: sizes,
 * pointers, storage) is checked once.  The rows' part (validate_rows) is
 * checked over a range of rows, rule by rule in the order below, so that
 * on one thread over [0, n) it names the first broken rule, and on threads
 * each range answers yes or no (slv_problem_validate_threads). */

static slv_status validate_arrays(const slv_problem *p, char *msg, size_t len) {
  int n = p->n;
  if (n > 0 && !p->b) {
    slv_msgf(msg, len, "b is NULL (n=%d)", n);
    return SLV_ERR_INVALID;
  }
  if (p->storage == SLV_DENSE) {
    if (n > 0 && !p->A) {
      slv_msgf(msg, len, "A is NULL (n=%d, dense)", n);
      return SLV_ERR_INVALID;
    }
    if (n > 0 && p->lda < (n > 1 ? n : 1)) {
      slv_msgf(msg, len, "lda=%d < n=%d", p->lda, n);
      return SLV_ERR_INVALID;
    }
    return SLV_OK;
  }
  if (p->storage == SLV_FACTORED) {
    if (p->nblk < 0) {
      slv_msgf(msg, len, "factored: nblk=%d < 0", p->nblk);
      return SLV_ERR_INVALID;
    }
    if (n > 0 && (!p->fblk || !p->fJ || !p->fK)) {
      slv_msgf(msg, len, "factored arrays fblk/fJ/fK missing (n=%d)", n);
      return SLV_ERR_INVALID;
    }
    return SLV_OK;
  }
  if (p->storage != SLV_CSR) {
    slv_msgf(msg, len, "storage=%d is not dense (0), CSR (1) or factored (2)", (int)p->storage);
    return SLV_ERR_INVALID;
  }
  if (!p->Ap || (n > 0 && (!p->Aj || !p->Ax))) {
    slv_msgf(msg, len, "CSR arrays Ap/Aj/Ax missing (n=%d)", n);
    return SLV_ERR_INVALID;
  }
  if (p->Ap[0] != 0) {
    slv_msgf(msg, len, "Ap[0]=%d, expected 0", p->Ap[0]);
    return SLV_ERR_INVALID;
  }
  return SLV_OK;
}

/* Dense: columns [i0, i1) finite. */
static slv_status dense_cols(const slv_problem *p, int i0, int i1, char *msg, size_t len) {
  int n = p->n;
  for (int j = i0; j < i1; j++) {
    const double *col = p->A + (size_t)j * p->lda;
    if (slv_all_finite(n, col)) continue;
    for (int i = 0; i < n; i++)
      if (!isfinite(col[i])) {
        slv_msgf(msg, len, "A(%d,%d) is %g", i, j, col[i]);
        return SLV_ERR_INVALID;
      }
  }
  return SLV_OK;
}

/* Factored rows [i0, i1): blocks in range, two different blocks, and (one
 * streaming pass each, as every solve pays it; the row is looked for only
 * when something is not finite) fJ, fK, fd finite. */
static slv_status factored_rows(const slv_problem *p, int i0, int i1, char *msg, size_t len) {
  for (int i = i0; i < i1; i++) {
    for (int k = 0; k < 2; k++) {
      int b = p->fblk[2 * i + k];
      if (b < -1 || b >= p->nblk) {
        slv_msgf(msg, len, "fblk[%d] (row %d, slot %d) = %d is outside [-1, %d)", 2 * i + k, i, k,
                 b, p->nblk);
        return SLV_ERR_INVALID;
      }
    }
    if (p->fblk[2 * i] >= 0 && p->fblk[2 * i] == p->fblk[2 * i + 1]) {
      slv_msgf(msg, len, "row %d: both factored slots are block %d", i, p->fblk[2 * i]);
      return SLV_ERR_INVALID;
    }
  }
  int m = i1 - i0;
  if (m > 0 &&
      (!finite_rows(p->fJ + 12 * (size_t)i0, m, 12) ||
       !finite_rows(p->fK + 12 * (size_t)i0, m, 12) || (p->fd && !finite_rows(p->fd + i0, m, 1)))) {
    for (int i = i0; i < i1; i++)
      if (!slv_all_finite(12, p->fJ + 12 * (size_t)i) ||
          !slv_all_finite(12, p->fK + 12 * (size_t)i) || (p->fd && !isfinite(p->fd[i]))) {
        slv_msgf(msg, len, "row %d: a non-finite factored entry (fJ, fK or fd)", i);
        return SLV_ERR_INVALID;
      }
  }
  return SLV_OK;
}

/* CSR rows [i0, i1): row pointers not decreasing, columns in [0, n),
 * values finite. */
static slv_status csr_rows(const slv_problem *p, int i0, int i1, char *msg, size_t len) {
  int n = p->n;
  for (int i = i0; i < i1; i++) {
    if (p->Ap[i + 1] < p->Ap[i]) {
      slv_msgf(msg, len, "Ap[%d]=%d < Ap[%d]=%d (row pointers must not decrease)", i + 1,
               p->Ap[i + 1], i, p->Ap[i]);
      return SLV_ERR_INVALID;
    }
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) {
      if (p->Aj[k] < 0 || p->Aj[k] >= n) {
        slv_msgf(msg, len, "Aj[%d]=%d in row %d is outside [0, %d)", k, p->Aj[k], i, n);
        return SLV_ERR_INVALID;
      }
      if (!isfinite(p->Ax[k])) {
        slv_msgf(msg, len, "A(%d,%d) is %g", i, p->Aj[k], p->Ax[k]);
        return SLV_ERR_INVALID;
      }
    }
  }
  return SLV_OK;
}

static slv_status b_rows(const slv_problem *p, int i0, int i1, char *msg, size_t len) {
  for (int i = i0; i < i1; i++)
    if (!isfinite(p->b[i])) {
      slv_msgf(msg, len, "b[%d] is %g", i, p->b[i]);
      return SLV_ERR_INVALID;
    }
  return SLV_OK;
}

static slv_status bounds_rows(const slv_problem *p, int i0, int i1, char *msg, size_t len) {
  for (int i = i0; i < i1; i++) {
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    if (isnan(lo) || isnan(hi)) {
      slv_msgf(msg, len, "%s[%d] is NaN", isnan(lo) ? "lo" : "hi", i);
      return SLV_ERR_INVALID;
    }
    if (lo > hi) {
      slv_msgf(msg, len, "lo[%d]=%g > hi[%d]=%g", i, lo, i, hi);
      return SLV_ERR_INVALID;
    }
    if (lo == INFINITY || hi == -INFINITY) {
      slv_msgf(msg, len, "row %d has an empty box: lo[%d]=%g, hi[%d]=%g", i, i, lo, i, hi);
      return SLV_ERR_INVALID;
    }
  }
  return SLV_OK;
}

static slv_status findex_rows(const slv_problem *p, int i0, int i1, char *msg, size_t len) {
  if (!p->findex) return SLV_OK;
  int n = p->n;
  for (int i = i0; i < i1; i++) {
    int j = p->findex[i];
    if (j == -1) continue;
    if (j < -1 || j >= n) {
      slv_msgf(msg, len, "findex[%d]=%d is outside [-1, %d)", i, j, n);
      return SLV_ERR_INVALID;
    }
    if (j == i) {
      slv_msgf(msg, len, "findex[%d]=%d refers to itself", i, j);
      return SLV_ERR_INVALID;
    }
    if (p->findex[j] != -1) {
      slv_msgf(msg, len,
               "findex[%d]=%d refers to row %d, which is itself a friction row (findex[%d]=%d)", i,
               j, j, j, p->findex[j]);
      return SLV_ERR_INVALID;
    }
    if (!p->mu) {
      slv_msgf(msg, len, "findex[%d]=%d but mu is NULL", i, j);
      return SLV_ERR_INVALID;
    }
    if (!isfinite(p->mu[i]) || p->mu[i] < 0) {
      slv_msgf(msg, len, "mu[%d]=%g must be finite and >= 0", i, p->mu[i]);
      return SLV_ERR_INVALID;
    }
  }
  return SLV_OK;
}

static slv_status validate_cones(const slv_problem *p, char *msg, size_t len) {
  if (p->ncones < 0) {
    slv_msgf(msg, len, "ncones=%d < 0", p->ncones);
    return SLV_ERR_INVALID;
  }
  if (p->condensed && 3 * (long long)p->ncones != p->n) {
    slv_msgf(msg, len,
             "condensed=1 but ncones=%d covers %lld of n=%d rows (a global problem's "
             "rows are all in cones)",
             p->ncones, 3 * (long long)p->ncones, p->n);
    return SLV_ERR_INVALID;
  }
  if (p->ncones == 0) return SLV_OK;
  if (p->cone_law != SLV_CONE_COULOMB && p->cone_law != SLV_CONE_ASSOCIATED) {
    slv_msgf(msg, len, "cone_law=%d is neither coulomb (0) nor associated (1)", (int)p->cone_law);
    return SLV_ERR_INVALID;
  }
  if (!p->cone_rows || !p->cone_mu) {
    slv_msgf(msg, len, "ncones=%d but cone_rows or cone_mu is NULL", p->ncones);
    return SLV_ERR_INVALID;
  }
  int next_free = 0;
  for (int k = 0; k < p->ncones; k++) {
    int r = p->cone_rows[k];
    if (r < next_free || r > p->n - 3) {
      slv_msgf(msg, len,
               "cone_rows[%d]=%d: cones need 3 rows inside [0, %d), increasing, not overlapping", k,
               r, p->n);
      return SLV_ERR_INVALID;
    }
    if (!isfinite(p->cone_mu[k]) || p->cone_mu[k] < 0) {
      slv_msgf(msg, len, "cone_mu[%d]=%g must be finite and >= 0", k, p->cone_mu[k]);
      return SLV_ERR_INVALID;
    }
    for (int c = r; c < r + 3 && p->findex; c++)
      if (p->findex[c] != -1) {
        slv_msgf(msg, len, "findex[%d]=%d: row %d belongs to cone %d, which takes no findex", c,
                 p->findex[c], c, k);
        return SLV_ERR_INVALID;
      }
    next_free = r + 3;
  }
  return SLV_OK;
}

#ifdef SLV_DIAG_AVX2
/* The products of rows [i, i + 4) for slv_fac_diag: h[r] = (p0 + p1,
 * p4 + p5, p2 + p3, p6 + p7) and q[r] = (p8 .. p11) of row i + r, p_c =
 * J_c K_c (each of the twelve products in one of them). */
__attribute__((target("avx2"), always_inline)) static inline void
fac_products4(const double *J, const double *K, __m256d h[4], __m256d q[4]) {
  for (int r = 0; r < 4; r++, J += 12, K += 12) {
    __m256d v0 = _mm256_mul_pd(_mm256_loadu_pd(J), _mm256_loadu_pd(K));
    __m256d v1 = _mm256_mul_pd(_mm256_loadu_pd(J + 4), _mm256_loadu_pd(K + 4));
    q[r] = _mm256_mul_pd(_mm256_loadu_pd(J + 8), _mm256_loadu_pd(K + 8));
    h[r] = _mm256_hadd_pd(v0, v1);
  }
}

/* slv_fac_diag of rows [i, i + 4) from their products (fac_products4),
 * four rows per AVX2 operation: each lane adds its row's products as
 * slv_dot6 does, ((p0 + p1) + (p2 + p3)) + (p4 + p5) per slot (the
 * horizontal adds of neighbouring products, then a 4x4 transpose), a slot
 * without a block (blk < 0) giving 0.0, then d_i + (s0 + s1): the same
 * IEEE operations (no fused multiply-add), so the same A_ii to the bit.
 * blk: the rows' fblk, d: their fd or NULL. */
__attribute__((target("avx2"), always_inline)) static inline __m256d
fac_diag4(const __m256d h[4], const __m256d q[4], const int *blk, const double *d) {
  __m256d e01 = _mm256_hadd_pd(q[0], q[1]), e23 = _mm256_hadd_pd(q[2], q[3]);
  __m256d t0 = _mm256_unpacklo_pd(h[0], h[1]), t1 = _mm256_unpackhi_pd(h[0], h[1]);
  __m256d t2 = _mm256_unpacklo_pd(h[2], h[3]), t3 = _mm256_unpackhi_pd(h[2], h[3]);
  __m256d a = _mm256_permute2f128_pd(t0, t2, 0x20), c = _mm256_permute2f128_pd(t0, t2, 0x31);
  __m256d b = _mm256_permute2f128_pd(t1, t3, 0x20), dd = _mm256_permute2f128_pd(t1, t3, 0x31);
  __m256d e = _mm256_permute2f128_pd(e01, e23, 0x20), g = _mm256_permute2f128_pd(e01, e23, 0x31);
  __m256d s0 = _mm256_add_pd(_mm256_add_pd(a, c), b);  /* slot 0: p0..p5 */
  __m256d s1 = _mm256_add_pd(_mm256_add_pd(dd, e), g); /* slot 1: p6..p11 */
  /* the blocks: blk[0 ..) as (slot 0 of the four rows, slot 1 of them) */
  __m256i bl = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)blk),
                                           _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  const __m256i none = _mm256_set1_epi64x(-1);
  __m256d m0 = _mm256_castsi256_pd(
      _mm256_cmpgt_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(bl)), none));
  __m256d m1 = _mm256_castsi256_pd(
      _mm256_cmpgt_epi64(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(bl, 1)), none));
  __m256d di = d ? _mm256_loadu_pd(d) : _mm256_setzero_pd();
  return _mm256_add_pd(di, _mm256_add_pd(_mm256_and_pd(m0, s0), _mm256_and_pd(m1, s1)));
}

/* slv_fac_diag of rows [i, i + 4) > 0, all four (fac_diag4). */
__attribute__((target("avx2"))) static int fac_diag4_positive(const slv_fac *f, int i) {
  __m256d h[4], q[4];
  fac_products4(f->J + 12 * (size_t)i, f->K + 12 * (size_t)i, h, q);
  __m256d a_ii = fac_diag4(h, q, f->blk + 2 * i, f->d ? f->d + i : NULL);
  return _mm256_movemask_pd(_mm256_cmp_pd(a_ii, _mm256_setzero_pd(), _CMP_GT_OQ)) == 0xf;
}

/* x * 0 is +-0 for a finite x and NaN for +-inf or NaN: the sum of such
 * products stays +-0 exactly while every x is finite. */
__attribute__((target("avx2"), always_inline)) static inline __m256d add_zeros(__m256d acc,
                                                                               const double *x) {
  return _mm256_add_pd(acc, _mm256_mul_pd(_mm256_loadu_pd(x), _mm256_setzero_pd()));
}

/* factored_rows', b_rows', bounds_rows' and findex_rows' rules over the
 * four rows [i, i + 4) of a factored problem, in one pass over the rows'
 * data: 1 if every rule holds, 0 if one may not.  fin accumulates x * 0
 * of fd, b and the products J_c K_c (NaN if a J_c or K_c is not finite,
 * or if the product overflows), which the caller tests once; pos and-s
 * in the rows' A_ii > 0 (fac_diag4: slv_diag's bits), formed from the
 * same products; diag (if not NULL) gets the four A_ii at diag + i. */
__attribute__((target("avx2"), always_inline)) static inline int
factored_four_ok(const slv_problem *p, int i, __m256d *fin, __m256d *pos, double *diag) {
  /* fblk: every slot in [-1, nblk), and not both slots on one block */
  __m256i bl = _mm256_loadu_si256((const __m256i *)(p->fblk + 2 * i));
  __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(-1), bl),
                                _mm256_cmpgt_epi32(bl, _mm256_set1_epi32(p->nblk - 1)));
  __m256i sl = _mm256_permutevar8x32_epi32(bl, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  __m128i s0 = _mm256_castsi256_si128(sl), s1 = _mm256_extracti128_si256(sl, 1);
  __m128i same =
      _mm_andnot_si128(_mm_cmpgt_epi32(_mm_setzero_si128(), s0), _mm_cmpeq_epi32(s0, s1));
  if (!_mm256_testz_si256(bad, bad) || !_mm_testz_si128(same, same)) return 0;
  __m256d acc = *fin, h[4], q[4];
  fac_products4(p->fJ + 12 * (size_t)i, p->fK + 12 * (size_t)i, h, q);
  for (int r = 0; r < 4; r++) /* every product in h[r] + q[r] */
    acc = _mm256_add_pd(acc, _mm256_mul_pd(_mm256_add_pd(h[r], q[r]), _mm256_setzero_pd()));
  __m256d a_ii = fac_diag4(h, q, p->fblk + 2 * i, p->fd ? p->fd + i : NULL);
  *pos = _mm256_and_pd(*pos, _mm256_cmp_pd(a_ii, _mm256_setzero_pd(), _CMP_GT_OQ));
  if (diag) _mm256_storeu_pd(diag + i, a_ii);
  if (p->fd) acc = add_zeros(acc, p->fd + i);
  *fin = add_zeros(acc, p->b + i);
  /* lo <= hi (false if either is NaN), lo < +inf, hi > -inf */
  const __m256d inf = _mm256_set1_pd(INFINITY), ninf = _mm256_set1_pd(-INFINITY);
  __m256d lo = p->lo ? _mm256_loadu_pd(p->lo + i) : _mm256_setzero_pd();
  __m256d hi = p->hi ? _mm256_loadu_pd(p->hi + i) : inf;
  __m256d ok = _mm256_and_pd(
      _mm256_cmp_pd(lo, hi, _CMP_LE_OQ),
      _mm256_and_pd(_mm256_cmp_pd(lo, inf, _CMP_NEQ_OQ), _mm256_cmp_pd(hi, ninf, _CMP_NEQ_OQ)));
  if (_mm256_movemask_pd(ok) != 0xf) return 0;
  if (!p->findex) return 1;
  /* a findex j != -1: j in [0, n), not the row itself, findex[j] = -1,
   * mu given, mu_i finite and >= 0 (mu < +inf and >= 0: NaN fails both) */
  __m128i j = _mm_loadu_si128((const __m128i *)(p->findex + i)), m1 = _mm_set1_epi32(-1);
  __m128i fr = _mm_xor_si128(_mm_cmpeq_epi32(j, m1), m1);
  if (_mm_testz_si128(fr, fr)) return 1;
  if (!p->mu) return 0;
  __m128i in = _mm_and_si128(_mm_cmpgt_epi32(j, m1), _mm_cmpgt_epi32(_mm_set1_epi32(p->n), j));
  __m128i own = _mm_add_epi32(_mm_set1_epi32(i), _mm_setr_epi32(0, 1, 2, 3));
  __m128i fj = _mm_mask_i32gather_epi32(m1, p->findex, j, in, 4);
  __m128i good =
      _mm_andnot_si128(_mm_cmpeq_epi32(j, own), _mm_and_si128(in, _mm_cmpeq_epi32(fj, m1)));
  __m256d mu = _mm256_loadu_pd(p->mu + i);
  __m256d mu_ok = _mm256_and_pd(_mm256_cmp_pd(mu, _mm256_setzero_pd(), _CMP_GE_OQ),
                                _mm256_cmp_pd(mu, inf, _CMP_LT_OQ));
  int goodm = _mm_movemask_ps(_mm_castsi128_ps(good)) & _mm256_movemask_pd(mu_ok);
  int frm = _mm_movemask_ps(_mm_castsi128_ps(fr));
  return (frm & ~goodm) == 0;
}

/* validate_rows over rows [i0, i1) of a factored problem as one yes or
 * no, four rows at a time (the last few by the rules themselves): 1 only
 * if every rule holds; 0 if one may not (validate_rows then names it, so
 * the messages are the rules' own; a 0 with every rule holding comes of
 * a product J_c K_c past DBL_MAX, and costs only the rules' pass).  On a
 * 1, *pos says whether every A_ii > 0, in slv_diag's arithmetic (the
 * check of SLV_CAP_NEEDS_POS_DIAG, slv_diag_positive's answer), found
 * from the products the finite test forms anyway; with a yes, diag (if
 * not NULL) holds A_ii of rows [i0, i1) at diag + i. */
__attribute__((target("avx2"))) static int factored_all_ok(const slv_problem *p, int i0, int i1,
                                                           int *pos, double *diag) {
  const __m256d zero = _mm256_setzero_pd();
  __m256d fin = zero, all_pos = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  int i = i0;
  for (; i + 4 <= i1; i += 4)
    if (!factored_four_ok(p, i, &fin, &all_pos, diag)) return 0;
  if (_mm256_movemask_pd(_mm256_cmp_pd(fin, zero, _CMP_EQ_OQ)) != 0xf) return 0;
  if (i < i1 && (factored_rows(p, i, i1, NULL, 0) || b_rows(p, i, i1, NULL, 0) ||
                 bounds_rows(p, i, i1, NULL, 0) || findex_rows(p, i, i1, NULL, 0)))
    return 0;
  *pos = _mm256_movemask_pd(all_pos) == 0xf;
  if (*pos && i < i1) {
    slv_fac f = slv_fac_of(p);
    for (; i < i1; i++) {
      double a = slv_fac_diag(&f, i);
      *pos = *pos && a > 0;
      if (diag) diag[i] = a;
    }
  }
  return 1;
}
#endif

/* Rows [i0, i1) of the matrix (dense: columns), then of b, the bounds and
 * findex.  A factored problem's rows are first tested together in one pass
 * (factored_all_ok); only when that fails are the rules taken one by one.
 * *pos: 1 when that pass found every A_ii > 0 as well (and left them in
 * diag, if not NULL), else 0 (not known). */
static slv_status validate_rows(const slv_problem *p, int i0, int i1, const slv_scan *sc, char *msg,
                                size_t len, int *pos, double *diag) {
  *pos = 0;
#ifdef SLV_DIAG_AVX2
  if (p->storage == SLV_FACTORED && __builtin_cpu_supports("avx2") &&
      factored_all_ok(p, i0, i1, pos, diag))
    return SLV_OK;
#endif
  /* a dense A the first pass found finite (slv_scan_dense) is not read
   * again; where it found a non-finite entry, dense_cols names it */
  slv_status st = slv_scan_of(sc, p) && sc->finite ? SLV_OK
                  : p->storage == SLV_DENSE        ? dense_cols(p, i0, i1, msg, len)
                  : p->storage == SLV_FACTORED     ? factored_rows(p, i0, i1, msg, len)
                                                   : csr_rows(p, i0, i1, msg, len);
  if (st) return st;
  if ((st = b_rows(p, i0, i1, msg, len))) return st;
  if ((st = bounds_rows(p, i0, i1, msg, len))) return st;
  return findex_rows(p, i0, i1, msg, len);
}

/* Every rule but the rows' (rows = 0) or all of them (rows = 1); *pos as
 * validate_rows's (0 unless the rows were checked). */
static slv_status validate(const slv_problem *p, int rows, const slv_scan *sc, char *msg,
                           size_t len, int *pos, double *diag) {
  *pos = 0;
  slv_msgf(msg, len, "%s", "");
  if (!p) {
    slv_msgf(msg, len, "problem is NULL");
    return SLV_ERR_INVALID;
  }
  if (p->n < 0) {
    slv_msgf(msg, len, "n=%d < 0", p->n);
    return SLV_ERR_DIM;
  }
  slv_status st = validate_arrays(p, msg, len);
  if (st) return st;
  if (rows && (st = validate_rows(p, 0, p->n, sc, msg, len, pos, diag))) return st;
  return validate_cones(p, msg, len);
}

slv_status slv_problem_validate(const slv_problem *p, char *msg, size_t len) {
  int pos;
  return validate(p, 1, NULL, msg, len, &pos, NULL);
}

slv_status slv_problem_validate_pos(const slv_problem *p, int threads, const slv_scan *sc,
                                    int *diag_pos, double *diag, char *msg, size_t len) {
  int nt = p && p->storage != SLV_DENSE ? slv_par_threads(threads, p->n) : 1;
  if (nt > 1 && validate(p, 0, sc, msg, len, diag_pos, NULL) == SLV_OK) {
    int ok[SLV_THREADS_MAX], pos[SLV_THREADS_MAX];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int v = 0; v < nt; v++)
      ok[v] =
          validate_rows(p, (int)((long long)p->n * v / nt), (int)((long long)p->n * (v + 1) / nt),
                        sc, NULL, 0, &pos[v], diag) == SLV_OK;
    int all = 1, all_pos = 1;
    for (int v = 0; v < nt; v++) {
      all = all && ok[v];
      all_pos = all_pos && pos[v];
    }
    if (all) {
      *diag_pos = all_pos;
      return SLV_OK;
    }
  }
  /* the first rule broken, named as on one thread */
  return validate(p, 1, sc, msg, len, diag_pos, diag);
}

slv_status slv_problem_validate_threads(const slv_problem *p, int threads, char *msg, size_t len) {
  int pos;
  return slv_problem_validate_pos(p, threads, NULL, &pos, NULL, msg, len);
}

/* Is every A_ii > 0 over rows [i0, i1), in slv_diag's arithmetic? */
static int diag_positive_rows(const slv_problem *p, int i0, int i1) {
  if (p->storage == SLV_FACTORED) { /* the view made once */
    slv_fac f = slv_fac_of(p);
#ifdef SLV_DIAG_AVX2
    if (__builtin_cpu_supports("avx2"))
      for (; i0 + 4 <= i1; i0 += 4)
        if (!fac_diag4_positive(&f, i0)) return 0;
#endif
    for (int i = i0; i < i1; i++)
      if (!(slv_fac_diag(&f, i) > 0)) return 0;
    return 1;
  }
  for (int i = i0; i < i1; i++)
    if (!(slv_diag(p, i) > 0)) return 0;
  return 1;
}

/* Every A_ii > 0?  On up to `threads` threads (a yes or no: the same for
 * every count). */
int slv_diag_positive(const slv_problem *p, int threads) {
  int nt = slv_par_threads(threads, p->n), ok[SLV_THREADS_MAX];
  if (nt == 1) return diag_positive_rows(p, 0, p->n);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int v = 0; v < nt; v++)
    ok[v] = diag_positive_rows(p, (int)((long long)p->n * v / nt),
                               (int)((long long)p->n * (v + 1) / nt));
  int all = 1;
  for (int v = 0; v < nt; v++) all = all && ok[v];
  return all;
}

void slv_problem_w_t(const slv_problem *p, const double *x, double *w, double *t, int tblocks) {
  if (p->storage == SLV_FACTORED) {
    slv_fac f = slv_fac_of(p);
    slv_fac_w(&f, x, p->b, w, t, tblocks);
    return;
  }
  slv_explicit_w(p, x, p->b, w);
}

void slv_problem_w(const slv_problem *p, const double *x, double *w) {
  double t[6 * SLV_W_SLICE];
  slv_problem_w_t(p, x, w, t, SLV_W_SLICE);
}

int slv_start_point(const slv_problem *p, double *x) {
  int k = 0, moved = 0;
  for (int i = 0; i < p->n; i++) {
    /* cone_rows is sorted (validated): advance k with i */
    while (k < p->ncones && p->cone_rows[k] + 2 < i) k++;
    int cone = k < p->ncones && p->cone_rows[k] <= i;
    x[i] = 0.0;
    if (!cone && !(p->findex && p->findex[i] >= 0))
      x[i] = fmax(slv_lo_of(p, i), fmin(slv_hi_of(p, i), 0.0));
    moved |= x[i] != 0.0;
  }
  return moved;
}

double slv_power_lambda(int n, const double *invd, int iters,
                        void (*Av)(void *ctx, const double *v, double *y), void *ctx, double *v,
                        double *u) {
  double lambda = 1.0;
  for (int i = 0; i < n; i++) v[i] = 1.0 / sqrt((double)n);
  for (int k = 0; k < iters; k++) {
    for (int i = 0; i < n; i++) v[i] *= sqrt(invd[i]);
    Av(ctx, v, u);
    double nrm = 0;
    for (int i = 0; i < n; i++) {
      u[i] *= sqrt(invd[i]);
      nrm += u[i] * u[i];
    }
    nrm = sqrt(nrm);
    if (!(nrm > 0) || !isfinite(nrm)) break;
    lambda = nrm;
    for (int i = 0; i < n; i++) v[i] = u[i] / nrm;
  }
  return lambda;
}

double slv_diag(const slv_problem *p, int i) {
  if (p->storage == SLV_DENSE) return p->A[i + (size_t)i * p->lda];
  if (p->storage == SLV_FACTORED) {
    slv_fac f = slv_fac_of(p);
    return slv_fac_diag(&f, i);
  }
  double d = 0;
  for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++)
    if (p->Aj[k] == i) d += p->Ax[k];
  return d;
}

/* Rows [i0, i1) of a CSR A: max |A_ij| into *amax, and whether each row
 * names its columns in strictly increasing order (so no duplicates). */
static int csr_rows_scan(const slv_problem *p, int i0, int i1, double *amax) {
  int sorted = 1;
  double m = 0;
  for (int i = i0; i < i1; i++)
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) {
      double a = fabs(p->Ax[k]);
      if (a > m) m = a;
      if (k > p->Ap[i] && p->Aj[k] <= p->Aj[k - 1]) sorted = 0;
    }
  *amax = m;
  return sorted;
}

/* A(i,j) of a strictly sorted row by binary search (0 if absent). */
static double csr_sorted_entry(const slv_problem *p, int i, int j) {
  int lo = p->Ap[i], hi = p->Ap[i + 1];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (p->Aj[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->Ap[i + 1] && p->Aj[lo] == j ? p->Ax[lo] : 0.0;
}

/* Each stored A(i,j) of rows [i0, i1) against A(j,i): with sorted rows by
 * binary search, O(nnz log(row length)); else (unsorted rows, duplicates
 * summed) by a linear search of rows i and j (rows are short).  1 if no
 * pair differs by more than tol, else 0 with the first such pair in row
 * order in *ii, *jj. */
static int csr_rows_symmetric(const slv_problem *p, int i0, int i1, double tol, int sorted, int *ii,
                              int *jj) {
  for (int i = i0; i < i1; i++)
    for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++) {
      int j = p->Aj[k];
      double aij = p->Ax[k], aji;
      if (sorted) {
        if (j == i) continue;
        aji = csr_sorted_entry(p, j, i);
      } else {
        aij = aji = 0;
        for (int q = p->Ap[i]; q < p->Ap[i + 1]; q++)
          if (p->Aj[q] == j) aij += p->Ax[q];
        for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++)
          if (p->Aj[q] == i) aji += p->Ax[q];
      }
      if (fabs(aij - aji) > tol) {
        *ii = i;
        *jj = j;
        return 0;
      }
    }
  return 1;
}

int slv_is_symmetric(const slv_problem *p, double rtol, int *ii, int *jj) {
  int n = p->n;
  *ii = *jj = -1;
  if (p->storage == SLV_FACTORED) return 0; /* not checked (slv.h): never claimed */
  if (p->storage == SLV_DENSE) {
    /* the maxima in one pass (scan.c); the offending pair is searched
     * for only when the test fails */
    const double *A = p->A;
    size_t lda = (size_t)p->lda;
    double amax, dmax;
    slv_dense_sym_maxima(A, n, p->lda, &amax, &dmax);
    double tol = rtol * amax;
    if (dmax <= tol) return 1;
    for (int j = 0; j < n; j++)
      for (int i = j + 1; i < n; i++)
        if (fabs(A[i + j * lda] - A[j + i * lda]) > tol) {
          *ii = i;
          *jj = j;
          return 0;
        }
    return 0;
  }
  /* CSR: A(i,j) against A(j,i), to rtol max |A_ij| */
  double amax;
  int sorted = csr_rows_scan(p, 0, n, &amax);
  return csr_rows_symmetric(p, 0, n, rtol * amax, sorted, ii, jj);
}

int slv_is_symmetric_threads(const slv_problem *p, double rtol, int *ii, int *jj, int threads) {
  int nt = p->storage == SLV_CSR ? slv_par_threads(threads, p->n) : 1;
  if (nt == 1) return slv_is_symmetric(p, rtol, ii, jj);
  *ii = *jj = -1;
  /* the same tolerance as one thread (a maximum: exact in any order); the
   * ranges in row order, so the first range with a differing pair holds
   * the first pair of all */
  double am[SLV_THREADS_MAX];
  int sorted[SLV_THREADS_MAX], ok[SLV_THREADS_MAX], pi[SLV_THREADS_MAX], pj[SLV_THREADS_MAX];
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int v = 0; v < nt; v++)
    sorted[v] = csr_rows_scan(p, (int)((long long)p->n * v / nt),
                              (int)((long long)p->n * (v + 1) / nt), &am[v]);
  double amax = 0;
  int all_sorted = 1;
  for (int v = 0; v < nt; v++) {
    if (am[v] > amax) amax = am[v];
    all_sorted = all_sorted && sorted[v];
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int v = 0; v < nt; v++)
    ok[v] = csr_rows_symmetric(p, (int)((long long)p->n * v / nt),
                               (int)((long long)p->n * (v + 1) / nt), rtol * amax, all_sorted,
                               &pi[v], &pj[v]);
  for (int v = 0; v < nt; v++)
    if (!ok[v]) {
      *ii = pi[v];
      *jj = pj[v];
      return 0;
    }
  return 1;
}
