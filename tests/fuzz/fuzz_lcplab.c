/* fuzz_lcplab.c -- libFuzzer harness: lcplab's own format (.lcp) through
 * io_read (tests/fuzz/README.md).  The input is the file's bytes, read
 * from memory twice: as FZ_DIR "in.lcp" (the extension decides), and as
 * FZ_DIR "in" without an extension, where io_read decides from the content
 * (first token "lcplab-problem" or "%%MatrixMarket", or the HDF5
 * signature; anything else is refused with the list of formats).  Each
 * result must keep the reader's contract (fz_check_read); a problem read
 * goes through the lcplab round trip (fz_round_trip). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_read_one(FZ_DIR "in.lcp", IO_FMT_AUTO, data, size);
  fz_read_one(FZ_DIR "in", IO_FMT_AUTO, data, size);
  return 0;
}
