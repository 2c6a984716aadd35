/* fuzz_mat.c -- libFuzzer harness: MATLAB MAT-files, version 5 and 7.3,
 * through io_read (libio/io_mat.c; tests/fuzz/README.md).
 *
 * The input is the bytes of a .mat file; the seeds are hand-written version
 * 5 and 7.3 files (seeds/mat/) and the DCA-BL benchmark files of
 * ../shared, so the mutations are damaged MAT-files.  libmatio (and HDF5
 * under it, for version 7.3) opens paths itself through the C library, which
 * the harness's --wrap does not reach (it is a shared library), so the bytes
 * go to a real file in /dev/shm (memory) and io_read reads it as format mat.
 * The result must keep the reader's contract (fz_check_read: a negative
 * status and one line naming the file, or a valid problem), the message
 * must be "PATH: expected <what>, found <what>" (or out of memory), and a
 * problem read goes through the lcplab round trip (fz_round_trip).  A crash
 * or a read of uninitialised memory inside libmatio is a finding too. */
#define _POSIX_C_SOURCE 200809L /* unlink */
#include "fuzz_util.h"

#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[96], err[512];
  fz_real_file(data, size, "fuzz-mat", ".mat", path, sizeof path);
  io_instance *inst = NULL;
  slv_status st = io_read(path, IO_FMT_MAT, &inst, err, sizeof err);
  unlink(path);
  fz_check_read(path, st, inst, err);
  fz_check_precise(path, st, err);
  if (inst && inst->n <= FZ_ROUND_TRIP_MAX_N) fz_round_trip(inst);
  io_instance_free(inst);
  return 0;
}
