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
 * The digest: per array, a hash of its bytes in four independent lanes of
 * 64-bit words, h = mix(h ^ v) with mix(h) = (h * K) ^ ((h * K) >> 29),
 * K odd: each step is a bijection of the lane's state for a fixed word, so
 * one changed word (a sign bit included) always changes its lane's result,
 * and the lanes are folded by the same bijection.  Two changes cancel
 * only by chance (2^-64); this guards against a solver's mistake, not
 * against an adversary.  The sizes and pointers are the ones recorded
 * before the solve (d->p, d->nnz): a written Ap[n] never makes the second
 * pass read past Aj.  One pass over the data each time, no allocation;
 * its cost on large problems is in experiments/records/2026-11-27-judge.md.
 */
#include "slv_internal.h"

#include <string.h>

#define DIGEST_K 0x9E3779B97F4A7C15ull

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * DIGEST_K;
  return h ^ (h >> 29);
}

/* The next 8 bytes at s as a word. */
static uint64_t word_at(const unsigned char *s) {
  uint64_t v;
  memcpy(&v, s, 8);
  return v;
}

/* The hash of len bytes at data (NULL: a fixed value): four lanes, so
 * that four multiplies are in flight (a pass at memory speed). */
static uint64_t hash_bytes(const void *data, size_t len) {
  if (!data) return 0x6e756c6cull; /* "null" */
  const unsigned char *s = data;
  uint64_t h0 = 1, h1 = 2, h2 = 3, h3 = 4;
  size_t i = 0;
  for (; i + 32 <= len; i += 32) {
    h0 = mix(h0, word_at(s + i));
    h1 = mix(h1, word_at(s + i + 8));
    h2 = mix(h2, word_at(s + i + 16));
    h3 = mix(h3, word_at(s + i + 24));
  }
  for (; i + 8 <= len; i += 8) h0 = mix(h0, word_at(s + i));
  uint64_t v = 0;
  memcpy(&v, s + i, len - i);
  h1 = mix(h1, v ^ (uint64_t)len);
  return mix(mix(mix(h0, h1), h2), h3);
}

/* A dense A's n x n entries, column by column (lda >= n: the rows past n
 * are not the problem's). */
static uint64_t hash_dense(const slv_problem *p) {
  size_t n = (size_t)(p->n > 0 ? p->n : 0), lda = (size_t)p->lda;
  if (!p->A || n == 0) return hash_bytes(NULL, 0);
  if (lda == n) return hash_bytes(p->A, n * n * sizeof *p->A);
  uint64_t h = 5;
  for (size_t j = 0; j < n; j++) h = mix(h, hash_bytes(p->A + j * lda, n * sizeof *p->A));
  return h;
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

/* Every part's hash of the problem d->p (sizes d->nnz as recorded). */
static void hash_parts(const slv_digest *d, uint64_t h[SLV_DIGEST_PARTS]) {
  const slv_problem *p = &d->p;
  size_t n = (size_t)(p->n > 0 ? p->n : 0), dn = n * sizeof(double), in = n * sizeof(int);
  int csr = p->storage == SLV_CSR, fac = p->storage == SLV_FACTORED;
  h[SLV_DIGEST_A] = p->storage == SLV_DENSE ? hash_dense(p) : hash_bytes(NULL, 0);
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

void slv_digest_take(const slv_problem *p, slv_digest *d) {
  d->p = *p;
  d->nnz = p->storage == SLV_CSR && p->Ap && p->n > 0 ? (size_t)p->Ap[p->n] : 0;
  hash_parts(d, d->h);
}

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
  uint64_t h[SLV_DIGEST_PARTS];
  hash_parts(d, h);
  for (int k = 0; k < SLV_DIGEST_PARTS; k++)
    if (h[k] != d->h[k]) return k;
  if (!same_fields(&d->p, p)) return SLV_DIGEST_PARTS; /* its sizes or pointers */
  return -1;
}
