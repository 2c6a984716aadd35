/* fnv1a.c -- FNV-1a, 64 bits: the cheap checksum of result files
 * (result.c), of a solution's bytes (x_digest, task.c) and of the binaries
 * that ran (prov.c).  Not a content hash of instances: that is SHA-256
 * (sha256.c).
 *
 *     h = (h XOR byte) * 0x100000001b3   for each byte, from EXP_FNV_INIT
 */
#include "exp_internal.h"

uint64_t exp_fnv1a(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
