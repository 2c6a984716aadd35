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
#define _POSIX_C_SOURCE 200809L /* mkstemps */
#define _DEFAULT_SOURCE
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[96], err[512];
  snprintf(path, sizeof path, "%s/fuzz-mat-XXXXXX.mat",
           access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp");
  int fd = mkstemps(path, 4);
  if (fd < 0) fz_fail("mkstemps(%s) failed", path);
  for (size_t done = 0; done < size;) {
    ssize_t k = write(fd, data + done, size - done);
    if (k <= 0) fz_fail("write to %s failed", path);
    done += (size_t)k;
  }
  close(fd);
  io_instance *inst = NULL;
  slv_status st = io_read(path, IO_FMT_MAT, &inst, err, sizeof err);
  unlink(path);
  fz_check_read(path, st, inst, err);
  if (st != SLV_OK) {
    const char *m = err + strlen(path) + 2;
    if (strncmp(m, "expected ", 9) != 0 &&
        !(st == SLV_ERR_NOMEM && strncmp(m, "out of memory", 13) == 0))
      fz_fail("%s: not an 'expected ..., found ...' message: %s", path, err);
  }
  if (inst && inst->n <= FZ_ROUND_TRIP_MAX_N) fz_round_trip(inst);
  io_instance_free(inst);
  return 0;
}
