/* digest.c -- the proof that a solve left its problem as it was read
 * (docs/convergence.md, "A solver that writes its input").
 *
 * slv_problem's arrays are const, but a solver written in C can cast that
 * away (ODE's dxSolveLCP writes A and b; a plugin may zero b).  The judge
 * measures the x returned against (A, b, lo, hi, findex, mu, cones): if
 * the solver wrote them, the measures are of another problem (b = 0 makes
 * x = 0 exact).  So slv_solve takes a digest of every array the solve
 * reads before the solver runs (slv_digest_take) and again after
 * (slv_digest_changed); any difference makes the verdict SLV_ERROR,
 * naming the array, and nothing is measured on the arrays written.
 *
 * The digest: per array, a hash of its bytes in twelve independent lanes
 * of 64-bit words (three AVX2 vectors of four where the CPU has them, the
 * same bits), h = mix(h ^ v) with mix(h) = (h * K) ^ ((h * K) >> 29),
 * K odd (digest_mix.h, slv_mix): each step is a bijection of the lane's state for a fixed word, so
 * one changed word (a sign bit included) always changes its lane's result,
 * and the lanes are folded by the same bijection.  Two changes cancel
 * only by chance (2^-64); this guards against a solver's mistake, not
 * against an adversary.  The sizes and pointers are the ones recorded
 * before the solve (d->p, d->nnz): a written Ap[n] never makes the second
 * pass read past Aj.  A dense A's digest is scan.c's (128 bits: two sums
 * of one term per block of two entries, keyed by their places: the same
 * bits in any order of reading; its term and why are in scan.c's header),
 * so that slv_solve's first pass before a solver that tests A's symmetry
 * (slv_scan_dense: the validation's finite test, the symmetry maxima and
 * this digest, in tiles) gives it (slv_digest_take_scan).  One pass over
 * the data each time, no allocation; its cost on large problems is in
 * experiments/records/2026-11-27-judge.md and 2026-11-28-piv2.md.
 */
#include "slv_internal.h"

#include "digest_mix.h"

enum { LANES = 12 }; /* words of a step: three vectors of four */

/* The lanes' states h over the steps of s[0 .. steps * 96): lane k takes
 * the words k, k + 12, k + 24, ... */
static void hash_steps(const unsigned char *s, size_t steps, uint64_t h[LANES]) {
  for (size_t i = 0; i < steps; i++, s += 8 * LANES)
    for (int k = 0; k < LANES; k++) h[k] = slv_mix(h[k], slv_word_at(s + 8 * k));
}

#ifdef SLV_DIGEST_AVX2
/* slv_mix4 of four lanes h by the four words at s. */
__attribute__((target("avx2"), always_inline)) static inline __m256i mix4(__m256i h,
                                                                          const unsigned char *s) {
  return slv_mix4(h, _mm256_loadu_si256((const __m256i *)(const void *)s));
}

/* hash_steps with the twelve lanes in three AVX2 vectors (three chains of
 * multiplies in flight: the scalar loop is bound by one chain a lane). */
__attribute__((target("avx2"))) static void hash_steps_avx2(const unsigned char *s, size_t steps,
                                                            uint64_t h[LANES]) {
  __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)h);
  __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(h + 4));
  __m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *)(h + 8));
  for (size_t i = 0; i < steps; i++, s += 8 * LANES) {
    v0 = mix4(v0, s);
    v1 = mix4(v1, s + 32);
    v2 = mix4(v2, s + 64);
  }
  _mm256_storeu_si256((__m256i *)(void *)h, v0);
  _mm256_storeu_si256((__m256i *)(void *)(h + 4), v1);
  _mm256_storeu_si256((__m256i *)(void *)(h + 8), v2);
}
#endif

/* The hash of len bytes at data (NULL: a fixed value): twelve lanes, so
 * that many multiplies are in flight (a pass near memory speed), three
 * AVX2 vectors where the CPU has them (the same bits); the words past the
 * last step into lane 0, the last bytes and len into lane 1, then the
 * lanes folded by mix. */
static uint64_t hash_bytes(const void *data, size_t len) {
  if (!data) return 0x6e756c6cull; /* "null" */
  const unsigned char *s = data;
  uint64_t h[LANES];
  for (int k = 0; k < LANES; k++) h[k] = (uint64_t)k + 1;
  size_t steps = len / (8 * LANES), i = steps * 8 * LANES;
#ifdef SLV_DIGEST_AVX2
  if (__builtin_cpu_supports("avx2"))
    hash_steps_avx2(s, steps, h);
  else
#endif
    hash_steps(s, steps, h);
  for (; i + 8 <= len; i += 8) h[0] = slv_mix(h[0], slv_word_at(s + i));
  uint64_t v = 0;
  memcpy(&v, s + i, len - i);
  h[1] = slv_mix(h[1], v ^ (uint64_t)len);
  uint64_t r = h[0];
  for (int k = 1; k < LANES; k++) r = slv_mix(r, h[k]);
  return r;
}

/* A dense A's n x n entries (lda >= n: the rows past n are not the
 * problem's) into h: scan.c's digest (128 bits), whose bits do not depend
 * on the order the entries are read in, so that slv_scan_dense's pass
 * before a solve and this one after it (column by column) agree. */
static void hash_dense(const slv_problem *p, uint64_t h[2]) {
  if (!p->A || p->n <= 0)
    h[0] = h[1] = hash_bytes(NULL, 0);
  else
    slv_digest_dense(p->A, p->n, p->lda, h);
}

static const char *const part_names[SLV_DIGEST_PARTS] = {
  [SLV_DIGEST_A] = "A",
  [SLV_DIGEST_AP] = "Ap (A's CSR row pointers)",
  [SLV_DIGEST_AJ] = "Aj (A's CSR column indices)",
  [SLV_DIGEST_AX] = "Ax (A's CSR values)",
  [SLV_DIGEST_FBLK] = "fblk (A's factored blocks)",
  [SLV_DIGEST_FJ] = "fJ (A's factor J)",
  [SLV_DIGEST_FK] = "fK (A's factor K)",
  [SLV_DIGEST_FD] = "fd (A's diagonal term)",
  [SLV_DIGEST_B] = "b",
  [SLV_DIGEST_LO] = "lo",
  [SLV_DIGEST_HI] = "hi",
  [SLV_DIGEST_FINDEX] = "findex",
  [SLV_DIGEST_MU] = "mu",
  [SLV_DIGEST_CONE_ROWS] = "cone_rows",
  [SLV_DIGEST_CONE_MU] = "cone_mu",
};

const char *slv_digest_part_name(int k) {
  return k >= 0 && k < SLV_DIGEST_PARTS ? part_names[k] : "the problem's sizes or pointers";
}

/* Every part's hash of the problem d->p (sizes d->nnz as recorded), A's
 * two words in h[SLV_DIGEST_A] and *a2; A's from sc where it is the scan
 * of p's dense A (slv_scan_dense). */
static void hash_parts(const slv_digest *d, const slv_scan *sc, uint64_t h[SLV_DIGEST_PARTS],
                       uint64_t *a2) {
  const slv_problem *p = &d->p;
  size_t n = (size_t)(p->n > 0 ? p->n : 0), dn = n * sizeof(double), in = n * sizeof(int);
  int csr = p->storage == SLV_CSR, fac = p->storage == SLV_FACTORED;
  uint64_t ha[2];
  if (p->storage != SLV_DENSE)
    ha[0] = ha[1] = hash_bytes(NULL, 0);
  else if (sc && slv_scan_of(sc, p))
    ha[0] = sc->hash[0], ha[1] = sc->hash[1];
  else
    hash_dense(p, ha);
  h[SLV_DIGEST_A] = ha[0];
  *a2 = ha[1];
  h[SLV_DIGEST_AP] = hash_bytes(csr ? p->Ap : NULL, (n + 1) * sizeof(int));
  h[SLV_DIGEST_AJ] = hash_bytes(csr ? p->Aj : NULL, d->nnz * sizeof(int));
  h[SLV_DIGEST_AX] = hash_bytes(csr ? p->Ax : NULL, d->nnz * sizeof(double));
  h[SLV_DIGEST_FBLK] = hash_bytes(fac ? p->fblk : NULL, 2 * in);
  h[SLV_DIGEST_FJ] = hash_bytes(fac ? p->fJ : NULL, 12 * dn);
  h[SLV_DIGEST_FK] = hash_bytes(fac ? p->fK : NULL, 12 * dn);
  h[SLV_DIGEST_FD] = hash_bytes(fac ? p->fd : NULL, dn);
  h[SLV_DIGEST_B] = hash_bytes(p->b, dn);
  h[SLV_DIGEST_LO] = hash_bytes(p->lo, dn);
  h[SLV_DIGEST_HI] = hash_bytes(p->hi, dn);
  h[SLV_DIGEST_FINDEX] = hash_bytes(p->findex, in);
  h[SLV_DIGEST_MU] = hash_bytes(p->findex ? p->mu : NULL, dn);
  size_t nc = (size_t)(p->ncones > 0 ? p->ncones : 0);
  h[SLV_DIGEST_CONE_ROWS] = hash_bytes(nc ? p->cone_rows : NULL, nc * sizeof(int));
  h[SLV_DIGEST_CONE_MU] = hash_bytes(nc ? p->cone_mu : NULL, nc * sizeof(double));
}

void slv_digest_take_scan(const slv_problem *p, const slv_scan *sc, slv_digest *d) {
  d->p = *p;
  d->nnz = p->storage == SLV_CSR && p->Ap && p->n > 0 ? (size_t)p->Ap[p->n] : 0;
  hash_parts(d, sc, d->h, &d->a2);
}

void slv_digest_take(const slv_problem *p, slv_digest *d) { slv_digest_take_scan(p, NULL, d); }

/* The problem's sizes and pointers as recorded (a struct compared field by
 * field: its padding is not the problem's). */
static int same_fields(const slv_problem *a, const slv_problem *b) {
  return a->n == b->n && a->storage == b->storage && a->A == b->A && a->lda == b->lda &&
         a->Ap == b->Ap && a->Aj == b->Aj && a->Ax == b->Ax && a->nblk == b->nblk &&
         a->fblk == b->fblk && a->fJ == b->fJ && a->fK == b->fK && a->fd == b->fd && a->b == b->b &&
         a->lo == b->lo && a->hi == b->hi && a->findex == b->findex && a->mu == b->mu &&
         a->ncones == b->ncones && a->cone_rows == b->cone_rows && a->cone_mu == b->cone_mu &&
         a->cone_law == b->cone_law && a->condensed == b->condensed;
}

int slv_digest_changed(const slv_digest *d, const slv_problem *p) {
  uint64_t h[SLV_DIGEST_PARTS], a2;
  hash_parts(d, NULL, h, &a2);
  if (a2 != d->a2) return SLV_DIGEST_A;
  for (int k = 0; k < SLV_DIGEST_PARTS; k++)
    if (h[k] != d->h[k]) return k;
  if (!same_fields(&d->p, p)) return SLV_DIGEST_PARTS; /* its sizes or pointers */
  return -1;
}
