/* fuzz_siconos.c -- libFuzzer harness: Siconos .dat files (LCP, MLCP, relay,
 * local FC3D) through io_read (tests/fuzz/README.md).
 *
 * The input is the file's bytes, read as FZ_DIR "in.dat" from memory
 * (fuzz_util.h): first with IO_FMT_AUTO, so the content decides the
 * variant as for any .dat, then forced to one variant (the input's size
 * modulo 4 picks lcp, mlcp, relay or fc3d), which reaches each reader with
 * files of the other variants.  Every result must keep the reader's
 * contract (fz_check_read); a problem read goes through the lcplab round
 * trip (fz_round_trip). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const io_format forced[4] = { IO_FMT_SICONOS_LCP, IO_FMT_SICONOS_MLCP,
                                       IO_FMT_SICONOS_RELAY, IO_FMT_SICONOS_FC3D };
  fz_read_one(FZ_DIR "in.dat", IO_FMT_AUTO, data, size);
  fz_read_one(FZ_DIR "in.dat", forced[size % 4], data, size);
  return 0;
}
