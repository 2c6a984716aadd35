/* digest_mix.h -- the digest's step (digest.c), shared by digest.c and
 * the dense scan (scan.c, which folds its sums with it): mix(h, v) = g ^
 * (g >> 29) with g = (h ^ v) K, K odd, a bijection of the state h for a
 * fixed word v and of v for a fixed h; mix4, the same bits on four 64-bit
 * lanes of an AVX2 vector; slv_fin, a dense A's term on a CPU without
 * AES (scan.c, slv_digest_term).
 * Private to libsolvers. */
#ifndef SLV_DIGEST_MIX_H
#define SLV_DIGEST_MIX_H

#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SLV_DIGEST_AVX2 1
#endif

#define SLV_DIGEST_K 0x9E3779B97F4A7C15ull

static inline uint64_t slv_mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * SLV_DIGEST_K;
  return h ^ (h >> 29);
}

/* splitmix64's finalizer [steele2014], z ^= z >> 30, z *= C1, z ^= z >>
 * 27, z *= C2, z ^= z >> 31; a bijection, each step being one. */
#define SLV_FIN_C1 0xBF58476D1CE4E5B9ull
#define SLV_FIN_C2 0x94D049BB133111EBull

static inline uint64_t slv_fin(uint64_t z) {
  z = (z ^ (z >> 30)) * SLV_FIN_C1;
  z = (z ^ (z >> 27)) * SLV_FIN_C2;
  return z ^ (z >> 31);
}

/* The 8 bytes at s as a word. */
static inline uint64_t slv_word_at(const void *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  return v;
}

#ifdef SLV_DIGEST_AVX2
typedef uint64_t slv_u64x4 __attribute__((vector_size(32)));

/* slv_mix of four lanes h by the four words v, in GCC's vector arithmetic:
 * inlined into a function for AVX2 the 64-bit product is formed from
 * 32-bit ones, into one for AVX-512 (DQ, VL) it is one instruction; the
 * same bits either way. */
__attribute__((target("avx2"), always_inline)) static inline __m256i slv_mix4(__m256i h,
                                                                              __m256i v) {
  slv_u64x4 g = ((slv_u64x4)h ^ (slv_u64x4)v) * SLV_DIGEST_K;
  return (__m256i)(g ^ (g >> 29));
}

#endif

#endif
