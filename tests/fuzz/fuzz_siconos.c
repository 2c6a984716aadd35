/* fuzz_siconos.c -- libFuzzer harness: Siconos .dat files (LCP, MLCP, relay,
 * local FC3D) through slv_read (tests/fuzz/README.md).
 *
 * The input is the file's bytes, read as FZ_DIR "in.dat" from memory
 * (fuzz_util.h): first with SLV_FMT_AUTO, so the content decides the
 * variant as for any .dat, then forced to one variant (the input's size
 * modulo 4 picks lcp, mlcp, relay or fc3d), which reaches each reader with
 * files of the other variants.  Every result must keep the reader's
 * contract (fz_check_read); a problem read goes through the lcplab round
 * trip (fz_round_trip). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const slv_format forced[4] = { SLV_FMT_SICONOS_LCP, SLV_FMT_SICONOS_MLCP,
                                        SLV_FMT_SICONOS_RELAY, SLV_FMT_SICONOS_FC3D };
  fz_read_one(FZ_DIR "in.dat", SLV_FMT_AUTO, data, size);
  fz_read_one(FZ_DIR "in.dat", forced[size % 4], data, size);
  return 0;
}
