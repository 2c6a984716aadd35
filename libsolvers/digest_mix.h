/* digest_mix.h -- the digest's step (digest.c), shared by digest.c and
 * the dense scan (scan.c): mix(h, v) = g ^ (g >> 29) with g = (h ^ v) K,
 * K odd, a bijection of the state h for a fixed word v and of v for a
 * fixed h; mix4, the same bits on four 64-bit lanes of an AVX2 vector.
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

/* The 8 bytes at s as a word. */
static inline uint64_t slv_word_at(const void *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  return v;
}

#ifdef SLV_DIGEST_AVX2
/* (a * K) mod 2^64 per 64-bit lane, from 32-bit products. */
__attribute__((target("avx2"), always_inline)) static inline __m256i slv_mul_k4(__m256i a) {
  const __m256i klo = _mm256_set1_epi64x((long long)(SLV_DIGEST_K & 0xffffffffull));
  const __m256i khi = _mm256_set1_epi64x((long long)(SLV_DIGEST_K >> 32));
  __m256i lo = _mm256_mul_epu32(a, klo);
  __m256i mid =
      _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), klo), _mm256_mul_epu32(a, khi));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(mid, 32));
}

/* slv_mix of four lanes h by the four words v. */
__attribute__((target("avx2"), always_inline)) static inline __m256i slv_mix4(__m256i h,
                                                                              __m256i v) {
  h = slv_mul_k4(_mm256_xor_si256(h, v));
  return _mm256_xor_si256(h, _mm256_srli_epi64(h, 29));
}
#endif

#endif
