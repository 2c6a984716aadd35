/* fuzz_fclib.c -- libFuzzer harness: FCLIB HDF5 files (tests/fuzz/README.md).
 *
 * The input is the bytes of an .hdf5 file; the seeds are real FCLIB files
 * (local and global problems), so the mutations are damaged FCLIB files.
 * Each input is read twice:
 *   1. io_read_fclib_image: the reader's HDF5 checks on the bytes as a
 *      file image through HDF5's core driver (H5Pset_file_image), then
 *      libfclib on a temporary copy (it opens paths only);
 *   2. io_read on a file holding them (in /dev/shm, memory; format fclib):
 *      the reader exactly as `lcplab solve x.hdf5` runs it (HDF5's default
 *      driver on a path).
 * Both must keep the reader's contract (fz_check_read: a negative status
 * and one line naming the file, or a valid problem; and for this reader
 * "PATH: expected <what>, found <what>", the form of the twelve malformed
 * classes of tests/test_fclib.c), and agree: both read
 * the same problem, bit for bit, or both refuse the file.  (Their messages
 * may differ: HDF5's two drivers do not fail alike on every damaged file.
 * A superblock whose driver-information block lies at an address in
 * HDF5's temporary space fails to open with the default driver and opens
 * with the core driver, which then fails further on.)  The second read is
 * the evidence that the image route accepts what the path route accepts.  No HDF5 object may stay open after a read
 * (H5Fget_obj_count), and libfclib must never be reached with a file it
 * would exit on (libFuzzer reports an exit as a finding).  A problem read
 * goes through the lcplab round trip (fz_round_trip). */
#define _POSIX_C_SOURCE 200809L /* unlink */
#include "fuzz_util.h"
#include "io_internal.h"

#include <hdf5.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

static void no_open_objects(const char *when) {
  ssize_t n = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (n != 0) fz_fail("%zd HDF5 objects open after %s", n, when);
}

/* io_read on a real file holding data (fz_real_file). */
static slv_status read_path(const uint8_t *data, size_t size, char *path, size_t cap,
                            io_instance **out, char *err, size_t errlen) {
  fz_real_file(data, size, "fuzz-fclib", "", path, cap);
  slv_status st = io_read(path, IO_FMT_FCLIB, out, err, errlen);
  unlink(path);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const name = FZ_DIR "in.hdf5";
  io_instance *a = NULL, *b = NULL;
  char err_a[512], err_b[512], path[96];
  io_req rq = { name, IO_FMT_FCLIB, IO_DEFAULT_MAX_MEMORY, err_a, sizeof err_a };
  slv_status st_a = io_read_fclib_image(data, size, &rq, &a);
  no_open_objects("the image read");
  fz_check_read(name, st_a, a, err_a);
  fz_check_precise(name, st_a, err_a);
  slv_status st_b = read_path(data, size, path, sizeof path, &b, err_b, sizeof err_b);
  no_open_objects("the path read");
  fz_check_read(path, st_b, b, err_b);
  fz_check_precise(path, st_b, err_b);
  if ((st_a == SLV_OK) != (st_b == SLV_OK))
    fz_fail("image and path reads differ: %d '%s' / %d '%s'", (int)st_a, err_a, (int)st_b, err_b);
  if (a) {
    fz_same_instance(a, b);
    if (a->n <= FZ_ROUND_TRIP_MAX_N) fz_round_trip(a);
  }
  io_instance_free(a);
  io_instance_free(b);
  fz_files_clear();
  fz_leak_check_each();
  return 0;
}
