/* sha256.c -- SHA-256 (FIPS 180-4), the content hash of the engine: the
 * instance files a plan records (exp_sha256_file) and the task keys
 * (task_done.c), so that a result is resumed only for the same bytes.
 * Written here because no library lcplab links holds one (libcrypto, nettle
 * and GnuTLS are only dependencies of HDF5's dependencies);
 * tests/test_experiment_profile.c checks it against the standard's examples.
 */
#define _GNU_SOURCE /* O_CLOEXEC */

#include "exp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint32_t sha_k[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

/* One 64-byte block into the state (FIPS 180-4, 6.2.2). */
static void sha_block(uint32_t h[8], const unsigned char *b) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)b[4 * t] << 24 | (uint32_t)b[4 * t + 1] << 16 | (uint32_t)b[4 * t + 2] << 8 |
           b[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h[0], b1 = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int t = 0; t < 64; t++) {
    uint32_t t1 =
        hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[t] + w[t];
    uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b1) ^ (a & c) ^ (b1 & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b1;
    b1 = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b1;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

void exp_sha256_init(exp_sha256 *s) {
  static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  memcpy(s->h, h0, sizeof s->h);
  s->bytes = 0;
}

void exp_sha256_add(exp_sha256 *s, const void *data, size_t len) {
  const unsigned char *p = data;
  size_t i = 0;
  /* whole blocks straight from data once the buffer is empty */
  for (; i < len && s->bytes % 64 != 0; i++) {
    s->buf[s->bytes++ % 64] = p[i];
    if (s->bytes % 64 == 0) sha_block(s->h, s->buf);
  }
  for (; i + 64 <= len; i += 64, s->bytes += 64) sha_block(s->h, p + i);
  for (; i < len; i++) s->buf[s->bytes++ % 64] = p[i];
}

void exp_sha256_hex(exp_sha256 *s, char out[65]) {
  uint64_t bits = s->bytes * 8;
  unsigned char pad = 0x80, zero = 0, len[8];
  exp_sha256_add(s, &pad, 1);
  while (s->bytes % 64 != 56) exp_sha256_add(s, &zero, 1);
  for (int k = 0; k < 8; k++) len[k] = (unsigned char)(bits >> (56 - 8 * k));
  exp_sha256_add(s, len, 8);
  for (int k = 0; k < 8; k++) snprintf(out + 8 * k, 9, "%08x", s->h[k]);
}

int exp_sha256_file(const char *path, char hex[65], char *err, size_t len) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    exp_fmt(err, len, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0) close(fd);
    return -1;
  }
  exp_sha256 h;
  exp_sha256_init(&h);
  char buf[65536];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0) exp_sha256_add(&h, buf, (size_t)r);
  int bad = r < 0;
  if (bad) exp_fmt(err, len, "%s: %s", path, strerror(errno));
  close(fd);
  if (bad) return -1;
  exp_sha256_hex(&h, hex);
  return 0;
}
