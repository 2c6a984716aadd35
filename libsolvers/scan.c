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
 * column) give the same bits.  A's entries go in blocks of two, rows i and
 * i + 1 (i even) of a column, the row past an odd n a word 0.  The block
 * at e = i + j n (the place in the n x n matrix) is X = (A_e ^ e K2,
 * A_e+1 ^ (e + 1) K2), K2 odd, as 128 bits (A_e the low word); the digest
 * is two sums mod 2^64, of its terms' low words and of their high words,
 * each folded with n by slv_mix: 128 bits, both compared after the solve.
 * The term depends on the CPU (aes_kind), since a digest is compared only
 * with another taken in the same process, on the same CPU:
 *  - with AES-NI (x86-64, with AVX2): four rounds of AES [fips197] on X,
 *    AESENC's (ShiftRows, SubBytes, MixColumns, a constant round key
 *    xored);
 *  - else (slv_digest_term): each word of X alone through splitmix64's
 *    finalizer [steele2014] (slv_fin), the low word's into the first sum,
 *    the high word's into the second.  AES's rounds in C were 40 to 130
 *    times slower (experiments/records/2026-11-30-digest2.md).
 *
 * One changed word always changes the digest.  With AES: its block's X
 * changes; each step of a round is a bijection of the 128-bit state (a
 * permutation of the bytes, the S-box a permutation of the 256 byte
 * values, MixColumns an invertible linear map of each column, a XOR), so
 * the term changes, then at least one of its words, then that word's sum
 * (adding a fixed number mod 2^64 is a bijection) and its fold (slv_mix
 * is a bijection of its state).  With splitmix64: each step of slv_fin is
 * a bijection, so the word's term changes, then its sum and fold.  Two
 * changed words of one block are one changed X under AES.  Changes in two
 * blocks cancel only if both words' changes cancel: 2^-128 for a term
 * drawn at random (AES), 2^-64 for two words of one sum (splitmix64);
 * measured, of 2^20 changes of one pattern of bits (a sign, an exponent
 * bit, a low bit) no two cancelled (2^40 pairs) under either term, and of
 * 2^20 mirrored pairs negated and 2^20 swaps (their keys differ) none
 * went unseen (experiments/records/2026-11-30-digest.md and
 * 2026-11-30-digest2.md); a guide beyond that, 4-round AES has no
 * differential above 1.9 x 2^-114 on average over independent round keys
 * ([keliher2007]; these keys are fixed).  Why AES where the CPU has it:
 * splitmix64's finalizer is two 64-bit multiplies an entry, each three
 * 32-bit ones in AVX2, and the passes were bound by them
 * (2026-11-30-digest.md); VAES does a round of two blocks in one
 * instruction (four entries in four), AES-NI a round of one.  A single
 * multiply carries a change upward only: with mix(e K2, A_e) as the term
 * two flipped signs cancelled half of the time (tests/test_problem.c,
 * test_digest).  The maxima are exact in any order.
 *
 * The CPU's kind (aes_kind): AVX2 and VAES, AVX2 and AES-NI, or neither,
 * where every term is slv_digest_term's and the maxima come one pair at a
 * time.
 *
 * The tiles: T x T blocks of rows and columns of [0, m), m = n rounded
 * down to a multiple of 4, tile (I, J) with its mirror (J, I) (I > J),
 * the mirror first copied transposed into buf (read column by column:
 * long runs of each column, which the 4-row pieces of an in-register
 * transpose were not; 2-4x faster from memory), then tile (I, J) read
 * column by column against the copy; a diagonal tile, and every tile
 * when there is no buf, four columns at a time against an in-register
 * transpose; the rows and columns past m one pair at a time for the
 * maxima, and for the digest the columns past m (rows [0, m)) as the
 * column pass reads them, then rows [m, n) of every column by
 * tail_terms. */
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

/* The maxima, the NaN flag and the digest's two sums of a scan under
 * way. */
typedef struct {
  double amax, dmax;
  int nan; /* a difference was NaN: an entry NaN, or inf - inf */
  uint64_t sum[2];
  size_t nnz;
} scan_acc;

/* The term's round keys, one 128-bit key a round (the low word first):
 * the first 512 bits of pi's fraction (any constants would do; these are
 * not all alike, so that no round is a shift of another). */
static const uint64_t term_rk[4][2] = {
  { 0x243F6A8885A308D3ull, 0x13198A2E03707344ull },
  { 0xA4093822299F31D0ull, 0x082EFA98EC4E6C89ull },
  { 0x452821E638D01377ull, 0xBE5466CF34E90C6Cull },
  { 0xC0AC29B7C97C50DDull, 0x3F84D5B5B5470917ull },
};

/* The term where the CPU has no AES (kind 0, aes_kind): each word of the
 * block alone through splitmix64's finalizer [steele2014] (slv_fin), the
 * low word's into t[0], the high word's into t[1]. */
void slv_digest_term(uint64_t e, uint64_t v0, uint64_t v1, uint64_t t[2]) {
  t[0] = slv_fin(v0 ^ e * SCAN_K2);
  t[1] = slv_fin(v1 ^ (e + 1) * SCAN_K2);
}

void slv_digest_fold(const uint64_t sum[2], int n, uint64_t h[2]) {
  for (int k = 0; k < 2; k++) h[k] = slv_mix(sum[k], (uint64_t)(n > 0 ? n : 0));
}

/* The digest's terms where the CPU has no AES (slv_digest_term's: each
 * word alone) of rows [m, n) of every column of A (m even), into sum:
 * with m = 0, the whole of A. */
static void tail_terms(const double *A, size_t lda, size_t n, size_t m, uint64_t sum[2]) {
  uint64_t s0 = 0, s1 = 0;
  for (size_t j = 0; j < n; j++) {
    const double *col = A + j * lda;
    size_t i = m, e = m + j * n;
    for (; i + 1 < n; i += 2, e += 2) {
      s0 += slv_fin(slv_word_at(col + i) ^ e * SCAN_K2);
      s1 += slv_fin(slv_word_at(col + i + 1) ^ (e + 1) * SCAN_K2);
    }
    if (i < n) { /* the row past an odd n: a word 0 */
      uint64_t t[2];
      slv_digest_term(e, slv_word_at(col + i), 0, t);
      s0 += t[0], s1 += t[1];
    }
  }
  sum[0] += s0, sum[1] += s1;
}

/* Entry (i, j) and its mirror (j, i) into the maxima, one at a time. */
static void scan_pair(const double *A, size_t lda, size_t i, size_t j, scan_acc *a) {
  double x = A[i + j * lda], y = A[j + i * lda];
  double d = fabs(x - y), fx = fabs(x), fy = fabs(y);
  a->nan |= isnan(d);
  if (d > a->dmax) a->dmax = d;
  if (fx > a->amax) a->amax = fx;
  if (fy > a->amax) a->amax = fy;
  a->nnz += (x != 0) + (i != j && y != 0);
}

/* Every pair (i, j), i >= j, with i or j past m (m < n), into the
 * maxima. */
static void scan_rest(const double *A, size_t lda, int n, int m, scan_acc *a) {
  for (int i = m; i < n; i++)
    for (int j = 0; j <= i; j++) scan_pair(A, lda, (size_t)i, (size_t)j, a);
}

#ifdef SLV_DIGEST_AVX2
/* The AVX2 state: the maxima, the NaN flag and the digest's sums per
 * lane (the terms' low words in lanes 0 and 2, their high ones in 1 and
 * 3). */
typedef struct {
  __m256d am, dm, nan;
  __m256i sum, nnz;
  int hash; /* 0: the maxima alone (slv_is_symmetric) */
  int wide; /* 1: VAES (a round of two blocks one instruction), 0: AES-NI */
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
__attribute__((target("avx2,aes"), always_inline)) static inline void
fetch_cols(const double *A, size_t lda, const scan_region *g, int c) {
  for (int j = c; j < c + 4 && j < g->c1; j++) {
    const char *col = (const char *)(A + (size_t)g->r0 + (size_t)j * lda);
    const char *end = (const char *)(A + (size_t)g->r1 + (size_t)j * lda);
    for (const char *l = col; l < end; l += 64) _mm_prefetch(l, _MM_HINT_T1);
  }
}

/* The four columns b[0..3] transposed in registers into t[0..3]. */
__attribute__((target("avx2,aes"), always_inline)) static inline void transpose4(const __m256d b[4],
                                                                                 __m256d t[4]) {
  __m256d l01 = _mm256_unpacklo_pd(b[0], b[1]), h01 = _mm256_unpackhi_pd(b[0], b[1]);
  __m256d l23 = _mm256_unpacklo_pd(b[2], b[3]), h23 = _mm256_unpackhi_pd(b[2], b[3]);
  t[0] = _mm256_permute2f128_pd(l01, l23, 0x20);
  t[1] = _mm256_permute2f128_pd(h01, h23, 0x20);
  t[2] = _mm256_permute2f128_pd(l01, l23, 0x31);
  t[3] = _mm256_permute2f128_pd(h01, h23, 0x31);
}

/* The keys of entries e .. e + 3: (e + k) K2 mod 2^64. */
__attribute__((target("avx2,aes"), always_inline)) static inline __m256i keys_at(size_t e) {
  const __m256i step =
      _mm256_set_epi64x((long long)(3 * SCAN_K2), (long long)(2 * SCAN_K2), (long long)SCAN_K2, 0);
  return _mm256_add_epi64(_mm256_set1_epi64x((long long)(e * SCAN_K2)), step);
}

/* The keys four entries further down a column. */
__attribute__((target("avx2,aes"), always_inline)) static inline __m256i keys_next(__m256i key) {
  return _mm256_add_epi64(key, _mm256_set1_epi64x((long long)(4 * SCAN_K2)));
}

/* The AES term's rounds on the two blocks of x (the 128-bit lanes)
 * by VAES: not always_inline, so that a function for AES-NI alone may
 * name it (term4) and inline it in none; inlined where VAES is. */
__attribute__((target("avx2,aes,vaes"))) static inline __m256i term4_vaes(__m256i x) {
  for (int r = 0; r < 4; r++)
    x = _mm256_aesenc_epi128(x,
                             _mm256_set_epi64x((long long)term_rk[r][1], (long long)term_rk[r][0],
                                               (long long)term_rk[r][1], (long long)term_rk[r][0]));
  return x;
}

/* The same rounds by AES-NI on one block x. */
__attribute__((target("avx2,aes"), always_inline)) static inline __m128i term1_aes(__m128i x) {
  for (int r = 0; r < 4; r++)
    x = _mm_aesenc_si128(x, _mm_set_epi64x((long long)term_rk[r][1], (long long)term_rk[r][0]));
  return x;
}

/* term1_aes on the two blocks of x. */
__attribute__((target("avx2,aes"), always_inline)) static inline __m256i term4_aes(__m256i x) {
  return _mm256_set_m128i(term1_aes(_mm256_extracti128_si256(x, 1)),
                          term1_aes(_mm256_castsi256_si128(x)));
}

/* The terms of the two blocks of the four words v (rows i .. i + 3 of a
 * column, i a multiple of 4) under their keys into the sums. */
__attribute__((target("avx2,aes"), always_inline)) static inline void
add_terms(scan_vec *s, __m256i key, __m256d v) {
  if (!s->hash) return;
  __m256i x = _mm256_xor_si256(key, _mm256_castpd_si256(v));
  s->sum = _mm256_add_epi64(s->sum, s->wide ? term4_vaes(x) : term4_aes(x));
}

/* Four entries v (each entry of A comes here once): |v| into the
 * maximum, and the nonzeros counted (the packing's test, slv_op_pack). */
__attribute__((target("avx2,aes"), always_inline)) static inline void add_entries(scan_vec *s,
                                                                                  __m256d v) {
  s->am = _mm256_max_pd(s->am, _mm256_andnot_pd(_mm256_set1_pd(-0.0), v));
  __m256d nz = _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_NEQ_UQ); /* all ones: -1 */
  s->nnz = _mm256_sub_epi64(s->nnz, _mm256_castpd_si256(nz));
}

/* A difference d into the maximum and the NaN flag. */
__attribute__((target("avx2,aes"), always_inline)) static inline void add_diff(scan_vec *s,
                                                                               __m256d d) {
  s->nan = _mm256_or_pd(s->nan, _mm256_cmp_pd(d, d, _CMP_UNORD_Q));
  s->dm = _mm256_max_pd(s->dm, _mm256_andnot_pd(_mm256_set1_pd(-0.0), d));
}

/* Block (i, j) (4 x 4) and its mirror (i > j; i == j: the block once),
 * the mirror transposed in registers. */
__attribute__((target("avx2,aes"), always_inline)) static inline void
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
__attribute__((target("avx2,aes"), always_inline)) static inline void
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
__attribute__((target("avx2,aes"), always_inline)) static inline void
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
__attribute__((target("avx2,aes"), always_inline)) static inline void
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
__attribute__((target("avx2,aes"), always_inline)) static inline void
tiles(const double *A, size_t lda, int n, int m, double *buf, int T, int hash, int wide,
      scan_acc *a) {
  scan_vec s = { _mm256_setzero_pd(),
                 _mm256_setzero_pd(),
                 _mm256_setzero_pd(),
                 _mm256_setzero_si256(),
                 _mm256_setzero_si256(),
                 hash,
                 wide };
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
    a->sum[k % 2] += sum[k];
    a->nnz += nnz[k];
  }
}

/* tiles for AES-NI and for VAES; the same bits. */
__attribute__((target("avx2,aes"))) static void
tiles_aes(const double *A, size_t lda, int n, int m, double *buf, int T, int hash, scan_acc *a) {
  tiles(A, lda, n, m, buf, T, hash, 0, a);
}

__attribute__((target("avx2,aes,vaes"))) static void
tiles_vaes(const double *A, size_t lda, int n, int m, double *buf, int T, int hash, scan_acc *a) {
  tiles(A, lda, n, m, buf, T, hash, 1, a);
}

/* The digest's terms of rows [0, m) (m a multiple of 4) of columns
 * [j0, n) of A, column by column, into sum. */
__attribute__((target("avx2,aes"), always_inline)) static inline void
columns_sum(const double *A, size_t lda, size_t n, size_t m, size_t j0, int wide, uint64_t sum[2]) {
  scan_vec s = { _mm256_setzero_pd(),
                 _mm256_setzero_pd(),
                 _mm256_setzero_pd(),
                 _mm256_setzero_si256(),
                 _mm256_setzero_si256(),
                 1,
                 wide };
  uint64_t lanes[4];
  for (size_t j = j0; j < n; j++) {
    const double *col = A + j * lda;
    __m256i key = keys_at(j * n);
    for (size_t i = 0; i < m; i += 4, key = keys_next(key))
      add_terms(&s, key, _mm256_loadu_pd(col + i));
  }
  _mm256_storeu_si256((__m256i *)(void *)lanes, s.sum);
  sum[0] += lanes[0] + lanes[2];
  sum[1] += lanes[1] + lanes[3];
}

__attribute__((target("avx2,aes"))) static void columns_aes(const double *A, size_t lda, size_t n,
                                                            size_t m, size_t j0, uint64_t sum[2]) {
  columns_sum(A, lda, n, m, j0, 0, sum);
}

__attribute__((target("avx2,aes,vaes"))) static void
columns_vaes(const double *A, size_t lda, size_t n, size_t m, size_t j0, uint64_t sum[2]) {
  columns_sum(A, lda, n, m, j0, 1, sum);
}

/* The AES terms of rows [m, n) of every column (m even), a block at a
 * time by AES-NI, into sum: the rows past the tiles' and past the column
 * pass's vectors. */
__attribute__((target("avx2,aes"))) static void
tail_terms_aes(const double *A, size_t lda, size_t n, size_t m, uint64_t sum[2]) {
  __m128i acc = _mm_setzero_si128();
  for (size_t j = 0; j < n; j++)
    for (size_t i = m; i < n; i += 2) {
      const double *col = A + j * lda;
      uint64_t e = i + j * n, v1 = i + 1 < n ? slv_word_at(col + i + 1) : 0;
      __m128i x = _mm_set_epi64x((long long)(v1 ^ (e + 1) * SCAN_K2),
                                 (long long)(slv_word_at(col + i) ^ e * SCAN_K2));
      acc = _mm_add_epi64(acc, term1_aes(x));
    }
  uint64_t w[2];
  _mm_storeu_si128((__m128i *)(void *)w, acc);
  sum[0] += w[0], sum[1] += w[1];
}

/* VAES, by the compiler's record of the CPU's features (read once when
 * the program starts).  clang 14's __builtin_cpu_supports knows no
 * "vaes", and asking CPUID on each scan cost 2.5 us a call in this
 * virtual machine (CPUID traps to the hypervisor), twice a solve: a clang
 * build takes AES-NI's path, a round of one block an instruction. */
static int cpu_has_vaes(void) {
#if defined(__clang__)
  return 0;
#else
  return __builtin_cpu_supports("vaes");
#endif
}

/* 2: the CPU has AVX2 and VAES, 1: AVX2 and AES-NI alone, 0: neither
 * (the terms one block at a time by slv_digest_term, splitmix64's, the
 * maxima one pair at a time). */
static int aes_kind(void) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("aes")) return 0;
  return cpu_has_vaes() ? 2 : 1;
}
#else
static int aes_kind(void) { return 0; }
#endif

/* The digest's terms past the tiles into sum, by the CPU's kind k
 * (aes_kind): rows [0, m) of columns [j0, n), four rows at a time (m a
 * multiple of 4), and rows [m, n) of every column, a block at a time; m
 * = 0 where k is 0. */
static void terms_past(int k, const double *A, size_t lda, size_t n, size_t m, size_t j0,
                       uint64_t sum[2]) {
#ifdef SLV_DIGEST_AVX2
  if (k == 2) columns_vaes(A, lda, n, m, j0, sum);
  if (k == 1) columns_aes(A, lda, n, m, j0, sum);
  if (k) {
    tail_terms_aes(A, lda, n, m, sum);
    return;
  }
#else
  (void)k, (void)j0;
#endif
  tail_terms(A, lda, n, m, sum);
}

/* The CPU's kind, or kind where it is lower (a test's; -1: the CPU's). */
static int kind_of(int kind) {
  int k = aes_kind();
  return kind >= 0 && kind < k ? kind : k;
}

int slv_digest_kind(void) { return aes_kind(); }

void slv_digest_dense(const double *A, int n, int lda, uint64_t h[2]) {
  slv_digest_dense_kind(A, n, lda, -1, h);
}

void slv_digest_dense_kind(const double *A, int n, int lda, int kind, uint64_t h[2]) {
  size_t nn = (size_t)(n > 0 ? n : 0);
  uint64_t sum[2] = { 0, 0 };
  int k = kind_of(kind);
  terms_past(k, A, (size_t)lda, nn, k ? nn / 4 * 4 : 0, 0, sum);
  slv_digest_fold(sum, n, h);
}

/* The scan of A into s, with buf of SLV_SCAN_T^2 doubles, or NULL (tiles
 * of 32 through 8 KB on the stack); hash 0: the maxima alone (s->hash
 * 0). */
static void scan(const double *A, int n, int lda, double *buf, int hash, int kind, slv_scan *s) {
  scan_acc a = { 0, 0, 0, { 0, 0 }, 0 };
  int m = n > 0 ? n / 4 * 4 : 0, k = kind_of(kind);
  size_t ld = (size_t)lda, nn = (size_t)(n > 0 ? n : 0);
#ifdef SLV_DIGEST_AVX2
  double small[32 * 32];
  int T = buf ? SLV_SCAN_T : 32;
  if (!buf) buf = small;
  if (k == 2) tiles_vaes(A, ld, n, m, buf, T, hash, &a);
  if (k == 1) tiles_aes(A, ld, n, m, buf, T, hash, &a);
#else
  (void)buf;
#endif
  if (!k) m = 0; /* every pair and block one at a time */
  scan_rest(A, ld, n, m, &a);
  if (hash) terms_past(k, A, ld, nn, (size_t)m, (size_t)m, a.sum);
  s->A = A;
  s->n = n;
  s->lda = lda;
  s->hash[0] = s->hash[1] = 0;
  if (hash) slv_digest_fold(a.sum, n, s->hash);
  s->amax = a.amax;
  s->dmax = a.dmax;
  s->finite = !a.nan && a.amax < INFINITY;
  s->nnz = a.nnz;
}

void slv_scan_dense(const double *A, int n, int lda, double *buf, slv_scan *s) {
  scan(A, n, lda, buf, 1, -1, s);
}

void slv_scan_dense_kind(const double *A, int n, int lda, double *buf, int kind, slv_scan *s) {
  scan(A, n, lda, buf, 1, kind, s);
}

void slv_dense_sym_maxima(const double *A, int n, int lda, double *amax, double *dmax) {
  slv_scan s;
  scan(A, n, lda, NULL, 0, -1, &s);
  *amax = s.amax;
  *dmax = s.dmax;
}

int slv_scan_of(const slv_scan *sc, const slv_problem *p) {
  return sc && p->storage == SLV_DENSE && sc->A == p->A && sc->n == p->n && sc->lda == p->lda;
}

int slv_scan_symmetric(const slv_scan *s, double rtol) { return s->dmax <= rtol * s->amax; }
