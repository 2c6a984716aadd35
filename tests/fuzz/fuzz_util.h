/* fuzz_util.h -- what the libFuzzer harnesses of tests/fuzz share
 * (tests/fuzz/README.md).
 *
 * In-memory files.  The readers take paths (io.h) and open them with
 * open(2) (io_open_regular: without blocking, then fstat) or fopen.  The
 * harnesses are linked with `ld --wrap=fopen --wrap=fopen64 --wrap=open
 * --wrap=open64 --wrap=remove` against the convenience libraries
 * (libio_internal.la, libsolvers_internal.la: archives), so every fopen and
 * open of the readers and of the command line code lands in the wrappers: a
 * path under FZ_DIR opens one of the files registered here (fopen: a
 * memory-backed FILE, fmemopen for reading, open_memstream for writing;
 * open, for reading only: a memfd holding a copy, a regular file to fstat);
 * any other path goes to the real function.  So
 * the harnesses call the public entry points (io_read, io_read_vector,
 * exp_config_read) unchanged, with their dispatch by extension, their
 * MatrixMarket sidecars (FOO.b, FOO.lo, ... are files of their own) and
 * their final validation, and no byte touches the disk.
 *
 * The registry is the harness process's global state (fopen has no context
 * argument); the harnesses are single-threaded and clear it per input.
 */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io.h"

#define FZ_DIR "/fuzz-mem/"

/* Forget every in-memory file. */
void fz_files_clear(void);
/* path (under FZ_DIR) now holds a copy of data[0..len). */
void fz_file_put(const char *path, const uint8_t *data, size_t len);

/* Aborts (a finding) unless the result of io_read(path) keeps the
 * reader's contract (io.h): success gives an instance that passes
 * slv_problem_validate and an empty message; failure gives a negative
 * status, no instance, and ONE line naming the file: it starts with the
 * path, or with a MatrixMarket sidecar's path (stem + ".b", ...).  A
 * positive status (a solver's) never comes from a reader. */
void fz_check_read(const char *path, slv_status st, const io_instance *inst, const char *err);

/* Writes inst in lcplab's format (to a file in a temporary folder of the
 * process's own: the writers publish by rename), reads it back and aborts
 * unless every array is bit for bit the same (io.h: "a write followed
 * by a read gives a bit-identical problem"). */
void fz_round_trip(const io_instance *inst);

/* Aborts unless a and b hold the same problem: n, storage, cones, cone
 * law and every array bit for bit. */
void fz_same_instance(const io_instance *a, const io_instance *b);

/* The reader harnesses' one input: data becomes the file path (under
 * FZ_DIR), io_read(path, fmt) reads it, fz_check_read checks the result,
 * and an instance of at most FZ_ROUND_TRIP_MAX_N rows goes through
 * fz_round_trip (larger ones would spend the run formatting numbers). */
#define FZ_ROUND_TRIP_MAX_N 200
void fz_read_one(const char *path, io_format fmt, const uint8_t *data, size_t size);

/* With FZ_LEAK_CHECK_EACH=1 in the environment: LeakSanitizer's check
 * after this input (libFuzzer's own check runs only after inputs that
 * allocated more than they freed, and reports every leak since the start,
 * so a leak of an earlier input shows up there).  Run a corpus file by file
 * with it to find which input leaks. */
void fz_leak_check_each(void);

/* data[0..size) into a new real file (for readers whose library opens
 * paths itself, out of --wrap's reach): PREFIX-XXXXXX plus suffix (may be
 * "") in /dev/shm (memory) if it can, else /tmp; its name into path (cap
 * bytes).  The caller unlinks it. */
void fz_real_file(const uint8_t *data, size_t size, const char *prefix, const char *suffix,
                  char *path, size_t cap);

/* Aborts unless a failed read's message is "PATH: expected <what>, found
 * <what>", or "PATH: out of memory ..." with SLV_ERR_NOMEM. */
void fz_check_precise(const char *path, slv_status st, const char *err);

/* Prints "fuzz invariant: <message>" and aborts. */
void fz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* libFuzzer's entry point (declared for -Wmissing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_UTIL_H */
