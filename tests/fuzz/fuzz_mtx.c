/* fuzz_mtx.c -- libFuzzer harness: MatrixMarket A plus its plain-vector
 * sidecars through io_read (tests/fuzz/README.md).
 *
 * One input holds the whole instance: the bytes up to the first marker line
 * are FZ_DIR "in.mtx"; a line that is exactly "@@b", "@@lo", "@@hi",
 * "@@findex" or "@@mu" starts the sidecar FZ_DIR "in.b", "in.lo", ... (the
 * bytes up to the next marker line).  A sidecar without its marker does not
 * exist, as on disk.  The reader opens them itself (io_read_mtx), from
 * memory through the wrapped fopen.  The result must keep the reader's
 * contract (fz_check_read: a message may name a sidecar); a problem read
 * goes through the lcplab round trip (fz_round_trip). */
#include "fuzz_util.h"

#include <string.h>

static const char *const SIDECARS[5] = { "b", "lo", "hi", "findex", "mu" };

/* The sidecar index (0..4) of the marker line at p (len bytes to the end
 * of the line), or -1. */
static int marker(const uint8_t *p, size_t len) {
  if (len < 3 || p[0] != '@' || p[1] != '@') return -1;
  for (int k = 0; k < 5; k++)
    if (len == 2 + strlen(SIDECARS[k]) && memcmp(p + 2, SIDECARS[k], len - 2) == 0) return k;
  return -1;
}

static void put_part(int part, const uint8_t *p, size_t len) {
  char path[64];
  snprintf(path, sizeof path, FZ_DIR "in.%s", part < 0 ? "mtx" : SIDECARS[part]);
  fz_file_put(path, p, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int part = -1; /* -1: the .mtx itself */
  size_t start = 0, pos = 0;
  while (pos < size) {
    const uint8_t *nl = memchr(data + pos, '\n', size - pos);
    size_t end = nl ? (size_t)(nl - data) : size;
    int k = marker(data + pos, end - pos);
    if (k >= 0) {
      put_part(part, data + start, pos - start);
      part = k;
      start = nl ? end + 1 : size;
    }
    pos = nl ? end + 1 : size;
  }
  put_part(part, data + start, size - start);
  io_instance *inst = NULL;
  char err[512];
  slv_status st = io_read(FZ_DIR "in.mtx", IO_FMT_AUTO, &inst, err, sizeof err);
  fz_check_read(FZ_DIR "in.mtx", st, inst, err);
  if (inst && inst->n <= FZ_ROUND_TRIP_MAX_N) fz_round_trip(inst);
  io_instance_free(inst);
  fz_files_clear();
  return 0;
}
