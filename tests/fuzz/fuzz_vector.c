/* fuzz_vector.c -- libFuzzer harness: plain vector files (--warm, reference
 * solutions; one value per line, '#' comments) through io_read_vector
 * (tests/fuzz/README.md).
 *
 * The input is the file's bytes, FZ_DIR "in.x" in memory.  The harness
 * splits it into tokens by the format's own rules (io.h, io_vector.c:
 * white space separates values, '#' starts a comment to the end of the
 * line) and counts them: k.  Then, as an oracle, io_read_vector(path, k)
 * must succeed exactly when every token is one whole finite number
 * (strtod consumes it all, not NaN, not +-inf) and the file holds no NUL
 * byte (no text file does, not even in a comment), and give back those
 * numbers bit for bit; k - 1 and k + 1 values must always be refused.
 * Every failure keeps the reader's contract (one line naming the file). */
#include "fuzz_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 4096

static int is_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Tokens of data into (start, length) pairs; their count, or -1 beyond
 * MAX_TOKENS. */
static int tokens(const uint8_t *data, size_t size, size_t *at, size_t *len) {
  int k = 0;
  size_t p = 0;
  while (p < size) {
    if (is_space(data[p])) {
      p++;
    } else if (data[p] == '#') {
      while (p < size && data[p] != '\n') p++;
    } else {
      if (k == MAX_TOKENS) return -1;
      at[k] = p;
      while (p < size && !is_space(data[p]) && data[p] != '#') p++;
      len[k] = p - at[k];
      k++;
    }
  }
  return k;
}

/* Is the token one whole finite number?  *v gets it. */
static int finite_number(const uint8_t *s, size_t len, double *v) {
  char buf[512];
  if (len >= sizeof buf) return -1; /* not decided here */
  memcpy(buf, s, len);
  buf[len] = '\0';
  char *end;
  *v = strtod(buf, &end);
  return end == buf + len && len == strlen(buf) && isfinite(*v);
}

static slv_status read_n(int n, double *x, const char *path) {
  char err[512];
  slv_status st = io_read_vector(path, n, x, err, sizeof err);
  if (st)
    fz_check_read(path, st, NULL, err);
  else if (err[0])
    fz_fail("%s: success with a message: %s", path, err);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static size_t at[MAX_TOKENS], len[MAX_TOKENS];
  static double want[MAX_TOKENS + 1], got[MAX_TOKENS + 1];
  static const char *const path = FZ_DIR "in.x";
  int k = tokens(data, size, at, len);
  if (k < 0) return 0;
  int all = memchr(data, 0, size) == NULL;
  for (int i = 0; i < k; i++) {
    int r = finite_number(data + at[i], len[i], &want[i]);
    if (r < 0) return 0; /* a token too long for the oracle's buffer */
    all = all && r;
  }
  fz_file_put(path, data, size);
  slv_status st = read_n(k, got, path);
  if (all && st) fz_fail("%d finite numbers refused", k);
  if (!all && !st) fz_fail("accepted a token that is not a finite number");
  if (!st && k && memcmp(want, got, (size_t)k * sizeof(double)) != 0)
    fz_fail("values differ from strtod's");
  if (k > 0 && !read_n(k - 1, got, path)) fz_fail("read %d values from a file of %d", k - 1, k);
  if (!read_n(k + 1, got, path)) fz_fail("read %d values from a file of %d", k + 1, k);
  fz_files_clear();
  return 0;
}
