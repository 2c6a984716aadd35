/* fuzz_blcp.c -- libFuzzer harness: the boxed-LCP text format (.blcp)
 * through io_read (tests/fuzz/README.md).  The input is the file's bytes,
 * read from memory as FZ_DIR "in.blcp"; the result must keep the reader's
 * contract (fz_check_read) and a problem read goes through the lcplab round
 * trip (fz_round_trip). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_read_one(FZ_DIR "in.blcp", IO_FMT_AUTO, data, size);
  return 0;
}
