/* scan.c -- one pass over a dense A for what slv_solve asks of all of it
 * before a solve: whether every entry is finite (the validation,
 * problem.c), the largest |A_ij| and |A_ij - A_ji| (the symmetry test at
 * any rtol, slv_is_symmetric) and the digest of A (digest.c;
 * docs/convergence.md, "A solver that writes its input").  Each was a
 * pass of its own, the symmetry test's reading A transposed in 32 x 32
 * tiles (a third of a factorisation of A at n = 2000); together they read
 * A once (experiments/records/2026-11-28-piv2.md).
 *
 * The digest of A does not depend on the order the words are read in, so
 * that this pass (tile by tile) and digest.c's after the solve (column by
 * column) give the same bits: the sum mod 2^64 of slv_fin(e K2 ^ A_e)
 * over the entries, e = i + j n the entry's place in the n x n matrix (K2
 * odd), then folded with n by slv_mix.  slv_fin (splitmix64's finalizer,
 * digest_mix.h) is a bijection and the sum a bijection of each term, so
 * one changed word (its sign bit included) always changes the digest; as
 * every bit of a word changes about half of its term's bits, two changes
 * cancel only by chance (about 2^-64), a swap of two entries included
 * (their keys differ).  A single multiply (slv_mix(e K2, A_e), the term
 * before) carries a change upward only: a flipped sign changed its term
 * by +-2^63 +- 2^34, and two flipped signs cancelled whenever those two
 * bit-34 signs differed (tests/test_problem.c, test_digest;
 * experiments/records/2026-11-30-digest.md).  The maxima are exact in any
 * order.
 *
 * The tiles: T x T blocks of rows and columns of [0, m), m = n rounded
 * down to a multiple of 4, tile (I, J) with its mirror (J, I) (I > J),
 * the mirror first copied transposed into buf (read column by column:
 * long runs of each column, which the 4-row pieces of an in-register
 * transpose were not; 2-4x faster from memory), then tile (I, J) read
 * column by column against the copy; a diagonal tile, and every tile
 * when there is no buf, four columns at a time against an in-register
 * transpose; the rows and columns past m one pair at a time. */
#include "slv_internal.h"

#include "digest_mix.h"

#define SCAN_K2 0xD6E8FEB86659FD93ull

/* The tiles ask for the next tile pair ahead (fetch_cols) where A's n x n
 * entries pass this many bytes: there A comes from memory, and the pass
 * took 55-70 % of its time with the fetches (spd 2000, 32 MB: 5.1-5.3 ->
 * 2.8-3.8 ms alone; 30.7 -> 29.4 ms a dantzig solve); at spd 1000 and 500
 * (8 and 2 MB, from the shared L3) they brought nothing beyond the noise
 * (paired solves: -2.0 % and +0.5 % at 1000, +0.7 % and +1.9 % at 500;
 * alone, hot, 0.42 -> 0.44 ms at 1000): experiments/records/2026-11-28-piv3.md. */
#define SCAN_FETCH_BYTES (16.0 * 1024 * 1024)

/* The maxima, the NaN flag and the digest's sum of a scan under way. */
typedef struct {
  double amax, dmax;
  int nan; /* a difference was NaN: an entry NaN, or inf - inf */
  uint64_t sum;
  size_t nnz;
} scan_acc;

uint64_t slv_digest_term(uint64_t e, uint64_t v) { return slv_fin(e * SCAN_K2 ^ v); }

uint64_t slv_digest_fold(uint64_t sum, int n) { return slv_mix(sum, (uint64_t)(n > 0 ? n : 0)); }

/* Entry (i, j) and its mirror (j, i), one at a time (the mirror's word
 * only off the diagonal: a diagonal entry is read once). */
static void scan_pair(const double *A, size_t lda, size_t n, size_t i, size_t j, int hash,
                      scan_acc *a) {
  double x = A[i + j * lda], y = A[j + i * lda];
  double d = fabs(x - y), fx = fabs(x), fy = fabs(y);
  a->nan |= isnan(d);
  if (d > a->dmax) a->dmax = d;
  if (fx > a->amax) a->amax = fx;
  if (fy > a->amax) a->amax = fy;
  a->nnz += (x != 0) + (i != j && y != 0);
  if (!hash) return;
  a->sum += slv_digest_term(i + j * n, slv_word_at(&x));
  if (i != j) a->sum += slv_digest_term(j + i * n, slv_word_at(&y));
}

/* Every pair (i, j), i >= j, with i or j past m (m < n). */
static void scan_rest(const double *A, size_t lda, int n, int m, int hash, scan_acc *a) {
  for (int i = m; i < n; i++)
    for (int j = 0; j <= i; j++) scan_pair(A, lda, (size_t)n, (size_t)i, (size_t)j, hash, a);
}

#ifdef SLV_DIGEST_AVX2
/* The AVX2 state: the maxima, the NaN flag and the digest's sum per
 * lane. */
typedef struct {
  __m256d am, dm, nan;
  __m256i sum, nnz;
  int hash; /* 0: the maxima alone (slv_is_symmetric) */
} scan_vec;

/* A block of A to fetch ahead: rows [r0, r1) of columns [c0, c1) (empty
 * when c0 == c1). */
typedef struct {
  int r0, r1, c0, c1;
} scan_region;

/* Columns [c, c + 4) of g (those in it) asked of memory into the caches
 * (L2), each line of their rows once: the tile pair after the one read now
 * (tiles), so that its short runs of each column (a KB apiece at T = 128)
 * arrive while this one is read, instead of each stalling the pass when
 * it is read (2026-11-28-piv3.md). */
__attribute__((target("avx2"), always_inline)) static inline void
fetch_cols(const double *A, size_t lda, const scan_region *g, int c) {
  for (int j = c; j < c + 4 && j < g->c1; j++) {
    const char *col = (const char *)(A + (size_t)g->r0 + (size_t)j * lda);
    const char *end = (const char *)(A + (size_t)g->r1 + (size_t)j * lda);
    for (const char *l = col; l < end; l += 64) _mm_prefetch(l, _MM_HINT_T1);
  }
}

/* The four columns b[0..3] transposed in registers into t[0..3]. */
__attribute__((target("avx2"), always_inline)) static inline void transpose4(const __m256d b[4],
                                                                             __m256d t[4]) {
  __m256d l01 = _mm256_unpacklo_pd(b[0], b[1]), h01 = _mm256_unpackhi_pd(b[0], b[1]);
  __m256d l23 = _mm256_unpacklo_pd(b[2], b[3]), h23 = _mm256_unpackhi_pd(b[2], b[3]);
  t[0] = _mm256_permute2f128_pd(l01, l23, 0x20);
  t[1] = _mm256_permute2f128_pd(h01, h23, 0x20);
  t[2] = _mm256_permute2f128_pd(l01, l23, 0x31);
  t[3] = _mm256_permute2f128_pd(h01, h23, 0x31);
}

/* The keys of entries e .. e + 3: (e + k) K2 mod 2^64. */
__attribute__((target("avx2"), always_inline)) static inline __m256i keys_at(size_t e) {
  const __m256i step =
      _mm256_set_epi64x((long long)(3 * SCAN_K2), (long long)(2 * SCAN_K2), (long long)SCAN_K2, 0);
  return _mm256_add_epi64(_mm256_set1_epi64x((long long)(e * SCAN_K2)), step);
}

/* The keys four entries further down a column. */
__attribute__((target("avx2"), always_inline)) static inline __m256i keys_next(__m256i key) {
  return _mm256_add_epi64(key, _mm256_set1_epi64x((long long)(4 * SCAN_K2)));
}

/* The digest's terms of the four words v under their keys into the sum. */
__attribute__((target("avx2"), always_inline)) static inline void
add_terms(scan_vec *s, __m256i key, __m256d v) {
  if (s->hash)
    s->sum = _mm256_add_epi64(s->sum, slv_fin4(_mm256_xor_si256(key, _mm256_castpd_si256(v))));
}

/* Four entries v (each entry of A comes here once): |v| into the
 * maximum, and the nonzeros counted (the packing's test, slv_op_pack). */
__attribute__((target("avx2"), always_inline)) static inline void add_entries(scan_vec *s,
                                                                              __m256d v) {
  s->am = _mm256_max_pd(s->am, _mm256_andnot_pd(_mm256_set1_pd(-0.0), v));
  __m256d nz = _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_UQ); /* all ones: -1 */
  s->nnz = _mm256_sub_epi64(s->nnz, _mm256_castpd_si256(nz));
}

/* A difference d into the maximum and the NaN flag. */
__attribute__((target("avx2"), always_inline)) static inline void add_diff(scan_vec *s, __m256d d) {
  s->nan = _mm256_or_pd(s->nan, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
  s->dm = _mm256_max_pd(s->dm, _mm256_andnot_pd(_mm256_set1_pd(-0.0), d));
}

/* Block (i, j) (4 x 4) and its mirror (i > j; i == j: the block once),
 * the mirror transposed in registers. */
__attribute__((target("avx2"), always_inline)) static inline void
block_pair(const double *A, size_t lda, size_t n, size_t i, size_t j, scan_vec *s) {
  __m256d l[4], u[4], t[4];
  for (size_t c = 0; c < 4; c++) l[c] = _mm256_loadu_pd(A + i + (j + c) * lda);
  if (i == j) {
    transpose4(l, t);
  } else {
    for (size_t c = 0; c < 4; c++) u[c] = _mm256_loadu_pd(A + j + (i + c) * lda);
    transpose4(u, t);
  }
  for (size_t c = 0; c < 4; c++) {
    add_diff(s, _mm256_sub_pd(l[c], t[c]));
    add_entries(s, l[c]);
    add_terms(s, keys_at(i + (j + c) * n), l[c]);
    if (i != j) {
      add_entries(s, u[c]);
      add_terms(s, keys_at(j + (i + c) * n), u[c]);
    }
  }
}

/* The tile pair at rows [ti, ie), columns [tj, je) block by block. */
__attribute__((target("avx2"), always_inline)) static inline void
tile_blocks(const double *A, size_t lda, size_t n, int ti, int ie, int tj, int je,
            const scan_region next[2], scan_vec *s) {
  for (int j = tj; j < je; j += 4) {
    for (int g = 0; g < 2; g++) fetch_cols(A, lda, &next[g], next[g].c0 + (j - tj));
    for (int i = ti == tj ? j : ti; i < ie; i += 4) block_pair(A, lda, n, (size_t)i, (size_t)j, s);
  }
}

/* The mirror of tile (ti.., tj..) (rows [tj, je), columns [ti, ie)) read
 * column by column into buf transposed: buf[r + c T] = A(tj + c, ti + r),
 * laid out as tile (I, J) is. */
__attribute__((target("avx2"), always_inline)) static inline void
mirror_into(const double *A, size_t lda, size_t n, size_t T, int ti, int ie, int tj, int je,
            double *buf, const scan_region *next, scan_vec *s) {
  for (int c0 = ti; c0 < ie; c0 += 4) {
    fetch_cols(A, lda, next, next->c0 + (c0 - ti));
    __m256i key[4];
    for (int c = 0; c < 4; c++) key[c] = keys_at((size_t)tj + (size_t)(c0 + c) * n);
    for (int r0 = tj; r0 < je; r0 += 4) {
      __m256d u[4], t[4];
      for (int c = 0; c < 4; c++) {
        u[c] = _mm256_loadu_pd(A + r0 + (size_t)(c0 + c) * lda);
        add_entries(s, u[c]);
        add_terms(s, key[c], u[c]);
        key[c] = keys_next(key[c]);
      }
      transpose4(u, t);
      for (int c = 0; c < 4; c++)
        _mm256_storeu_pd(buf + (size_t)(c0 - ti) + (size_t)(r0 - tj + c) * T, t[c]);
    }
  }
}

/* Tile (I, J) (I > J) against its mirror through buf, four columns at a
 * time. */
__attribute__((target("avx2"), always_inline)) static inline void
tile_copied(const double *A, size_t lda, size_t n, size_t T, int ti, int ie, int tj, int je,
            double *buf, const scan_region next[2], scan_vec *s) {
  mirror_into(A, lda, n, T, ti, ie, tj, je, buf, &next[0], s);
  for (int j = tj; j < je; j += 4) {
    fetch_cols(A, lda, &next[1], next[1].c0 + (j - tj));
    __m256i key[4];
    for (int c = 0; c < 4; c++) key[c] = keys_at((size_t)ti + (size_t)(j + c) * n);
    for (int i = ti; i < ie; i += 4)
      for (int c = 0; c < 4; c++) {
        __m256d l = _mm256_loadu_pd(A + i + (size_t)(j + c) * lda);
        __m256d t = _mm256_loadu_pd(buf + (size_t)(i - ti) + (size_t)(j + c - tj) * T);
        add_diff(s, _mm256_sub_pd(l, t));
        add_entries(s, l);
        add_terms(s, key[c], l);
        key[c] = keys_next(key[c]);
      }
  }
}

/* The regions of the tile pair after (ti, tj) in tiles' order: next[0]
 * its mirror (rows of its tj, columns of its ti; none on the diagonal),
 * next[1] the tile itself; both empty after the last pair.  The current
 * pair asks for them four columns at a time: its mirror's read (or the
 * first half of a diagonal tile's) next[0], its tile's next[1].  Both
 * empty unless fetch. */
static inline void next_pair(int m, int T, int ti, int tj, int fetch, scan_region next[2]) {
  ti += T;
  if (ti >= m) tj += T, ti = tj;
  int ie = ti + T < m ? ti + T : m, je = tj + T < m ? tj + T : m;
  scan_region none = { 0, 0, 0, 0 }, mirror = { tj, je, ti, ie }, tile = { ti, ie, tj, je };
  next[0] = !fetch || tj >= m || ti == tj ? none : mirror;
  next[1] = !fetch || tj >= m ? none : tile;
}

/* Every tile pair of [0, m) into a: tiles of T, buf T x T doubles. */
__attribute__((target("avx2"), always_inline)) static inline void
tiles(const double *A, size_t lda, int n, int m, double *buf, int T, int hash, scan_acc *a) {
  scan_vec s = { _mm256_setzero_pd(),    _mm256_setzero_pd(),    _mm256_setzero_pd(),
                 _mm256_setzero_si256(), _mm256_setzero_si256(), hash };
  int fetch = (double)n * n * sizeof *A > SCAN_FETCH_BYTES;
  for (int tj = 0; tj < m; tj += T)
    for (int ti = tj; ti < m; ti += T) {
      int ie = ti + T < m ? ti + T : m, je = tj + T < m ? tj + T : m;
      scan_region next[2];
      next_pair(m, T, ti, tj, fetch, next);
      if (ti != tj)
        tile_copied(A, lda, (size_t)n, (size_t)T, ti, ie, tj, je, buf, next, &s);
      else
        tile_blocks(A, lda, (size_t)n, ti, ie, tj, je, next, &s);
    }
  double am[4], dm[4], nan[4];
  uint64_t sum[4], nnz[4];
  _mm256_storeu_pd(am, s.am);
  _mm256_storeu_pd(dm, s.dm);
  _mm256_storeu_pd(nan, s.nan);
  _mm256_storeu_si256((__m256i *)(void *)sum, s.sum);
  _mm256_storeu_si256((__m256i *)(void *)nnz, s.nnz);
  for (int k = 0; k < 4; k++) {
    if (am[k] > a->amax) a->amax = am[k];
    if (dm[k] > a->dmax) a->dmax = dm[k];
    a->nan |= slv_word_at(&nan[k]) != 0;
    a->sum += sum[k];
    a->nnz += nnz[k];
  }
}

/* tiles for AVX2, and for AVX-512 (DQ, VL: the digest's 64-bit product
 * one instruction); the same bits. */
__attribute__((target("avx2"))) static void tiles_avx2(const double *A, size_t lda, int n, int m,
                                                       double *buf, int T, int hash, scan_acc *a) {
  tiles(A, lda, n, m, buf, T, hash, a);
}

__attribute__((target("avx2,avx512f,avx512dq,avx512vl"))) static void
tiles_avx512(const double *A, size_t lda, int n, int m, double *buf, int T, int hash, scan_acc *a) {
  tiles(A, lda, n, m, buf, T, hash, a);
}

/* Whether the CPU has AVX-512 DQ and VL. */
static int has_avx512(void) {
  return __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

/* The digest's sum over columns [0, n) of A, column by column (the
 * words past a multiple of 4 one at a time). */
__attribute__((target("avx2"), always_inline)) static inline uint64_t
columns_sum(const double *A, size_t lda, size_t n) {
  scan_vec s = { _mm256_setzero_pd(),    _mm256_setzero_pd(),    _mm256_setzero_pd(),
                 _mm256_setzero_si256(), _mm256_setzero_si256(), 1 };
  uint64_t rest = 0, sum[4];
  for (size_t j = 0; j < n; j++) {
    const double *col = A + j * lda;
    size_t i = 0;
    __m256i key = keys_at(j * n);
    for (; i + 4 <= n; i += 4, key = keys_next(key)) add_terms(&s, key, _mm256_loadu_pd(col + i));
    for (; i < n; i++) rest += slv_digest_term(i + j * n, slv_word_at(col + i));
  }
  _mm256_storeu_si256((__m256i *)(void *)sum, s.sum);
  return rest + sum[0] + sum[1] + sum[2] + sum[3];
}

__attribute__((target("avx2"))) static uint64_t columns_sum_avx2(const double *A, size_t lda,
                                                                 size_t n) {
  return columns_sum(A, lda, n);
}

__attribute__((target("avx2,avx512f,avx512dq,avx512vl"))) static uint64_t
columns_sum_avx512(const double *A, size_t lda, size_t n) {
  return columns_sum(A, lda, n);
}
#endif

uint64_t slv_digest_dense(const double *A, int n, int lda) {
  size_t nn = (size_t)(n > 0 ? n : 0), ld = (size_t)lda;
#ifdef SLV_DIGEST_AVX2
  if (__builtin_cpu_supports("avx2"))
    return slv_digest_fold(
        has_avx512() ? columns_sum_avx512(A, ld, nn) : columns_sum_avx2(A, ld, nn), n);
#endif
  uint64_t sum = 0;
  for (size_t j = 0; j < nn; j++)
    for (size_t i = 0; i < nn; i++) sum += slv_digest_term(i + j * nn, slv_word_at(A + i + j * ld));
  return slv_digest_fold(sum, n);
}

/* The scan of A into s, with buf of SLV_SCAN_T^2 doubles, or NULL (tiles
 * of 32 through 8 KB on the stack); hash 0: the maxima alone (s->hash
 * 0). */
static void scan(const double *A, int n, int lda, double *buf, int hash, slv_scan *s) {
  scan_acc a = { 0, 0, 0, 0, 0 };
  int m = n > 0 ? n / 4 * 4 : 0;
  size_t ld = (size_t)lda;
#ifdef SLV_DIGEST_AVX2
  double small[32 * 32];
  int T = buf ? SLV_SCAN_T : 32;
  if (!buf) buf = small;
  if (__builtin_cpu_supports("avx2") && has_avx512())
    tiles_avx512(A, ld, n, m, buf, T, hash, &a);
  else if (__builtin_cpu_supports("avx2"))
    tiles_avx2(A, ld, n, m, buf, T, hash, &a);
  else
#else
  (void)buf;
#endif
    m = 0; /* every pair one at a time */
  scan_rest(A, ld, n, m, hash, &a);
  s->A = A;
  s->n = n;
  s->lda = lda;
  s->hash = hash ? slv_digest_fold(a.sum, n) : 0;
  s->amax = a.amax;
  s->dmax = a.dmax;
  s->finite = !a.nan && a.amax < INFINITY;
  s->nnz = a.nnz;
}

void slv_scan_dense(const double *A, int n, int lda, double *buf, slv_scan *s) {
  scan(A, n, lda, buf, 1, s);
}

void slv_dense_sym_maxima(const double *A, int n, int lda, double *amax, double *dmax) {
  slv_scan s;
  scan(A, n, lda, NULL, 0, &s);
  *amax = s.amax;
  *dmax = s.dmax;
}

int slv_scan_of(const slv_scan *sc, const slv_problem *p) {
  return sc && p->storage == SLV_DENSE && sc->A == p->A && sc->n == p->n && sc->lda == p->lda;
}

int slv_scan_symmetric(const slv_scan *s, double rtol) { return s->dmax <= rtol * s->amax; }
