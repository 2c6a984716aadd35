/* fuzz_util.c -- in-memory files behind ld --wrap=fopen and --wrap=open,
 * and the checks every reader harness applies to a read (fuzz_util.h). */
#define _GNU_SOURCE /* fmemopen, open_memstream, memfd_create */
#include "fuzz_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The real functions (ld --wrap gives them these names). */
FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fopen64(const char *path, const char *mode);
int __real_open(const char *path, int flags, ...);
int __real_open64(const char *path, int flags, ...);
int __real_remove(const char *path);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fopen64(const char *path, const char *mode);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_remove(const char *path);

#define FZ_MAX_FILES 16

typedef struct fz_file {
  char path[256];
  char *data; /* malloc'd (fz_file_put) or open_memstream's buffer */
  size_t len;
  int used;
} fz_file;

static fz_file files[FZ_MAX_FILES];

/* The sanitizers' report channel: still open when libFuzzer's
 * -close_fd_mask closes stderr (weak: absent without a sanitizer). */
void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));

int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

void fz_leak_check_each(void) {
  static int on = -1; /* the environment, read once */
  if (on < 0) on = getenv("FZ_LEAK_CHECK_EACH") && strcmp(getenv("FZ_LEAK_CHECK_EACH"), "1") == 0;
  if (on && __lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check())
    fz_fail("LeakSanitizer found a leak after this input");
}

void fz_fail(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int k = snprintf(msg, sizeof msg, "fuzz invariant: ");
  vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
  va_end(ap);
  if (__sanitizer_report_error_summary)
    __sanitizer_report_error_summary(msg);
  else
    fprintf(stderr, "%s\n", msg);
  abort();
}

static void drop(fz_file *f) {
  free(f->data);
  memset(f, 0, sizeof *f);
}

void fz_files_clear(void) {
  for (int k = 0; k < FZ_MAX_FILES; k++) drop(&files[k]);
}

static fz_file *find(const char *path) {
  for (int k = 0; k < FZ_MAX_FILES; k++)
    if (files[k].used && strcmp(files[k].path, path) == 0) return &files[k];
  return NULL;
}

/* The entry for path: the existing one emptied, or a free one. */
static fz_file *slot(const char *path) {
  fz_file *f = find(path);
  if (!f)
    for (int k = 0; k < FZ_MAX_FILES && !f; k++)
      if (!files[k].used) f = &files[k];
  if (!f) fz_fail("more than %d in-memory files", FZ_MAX_FILES);
  if (strlen(path) >= sizeof f->path) fz_fail("in-memory path too long: %s", path);
  drop(f);
  snprintf(f->path, sizeof f->path, "%s", path);
  f->used = 1;
  return f;
}

void fz_file_put(const char *path, const uint8_t *data, size_t len) {
  fz_file *f = slot(path);
  f->data = malloc(len ? len : 1);
  if (!f->data) fz_fail("out of memory for %zu bytes", len);
  if (len) memcpy(f->data, data, len);
  f->len = len;
}

static int in_memory(const char *path) {
  return path && strncmp(path, FZ_DIR, strlen(FZ_DIR)) == 0;
}

static FILE *open_memory(const char *path, const char *mode) {
  if (mode[0] == 'r') {
    fz_file *f = find(path);
    if (!f) {
      errno = ENOENT;
      return NULL;
    }
    return fmemopen(f->data, f->len, "r");
  }
  if (mode[0] != 'w') fz_fail("fopen(%s, \"%s\"): mode not modelled", path, mode);
  fz_file *f = slot(path);
  /* open_memstream updates f->data and f->len at every fflush / fclose */
  return open_memstream(&f->data, &f->len);
}

FILE *__wrap_fopen(const char *path, const char *mode) {
  return in_memory(path) ? open_memory(path, mode) : __real_fopen(path, mode);
}

FILE *__wrap_fopen64(const char *path, const char *mode) {
  return in_memory(path) ? open_memory(path, mode) : __real_fopen64(path, mode);
}

/* An in-memory file opened with open(2), as the readers open theirs
 * (io_open_regular, libio/io_text.c): a memfd holding a copy of its bytes,
 * which is a regular file to fstat, seekable, and read through fdopen. */
static int open_memory_fd(const char *path, int flags) {
  if ((flags & O_ACCMODE) != O_RDONLY) fz_fail("open(%s): only reading is modelled", path);
  fz_file *f = find(path);
  if (!f) {
    errno = ENOENT;
    return -1;
  }
  int fd = memfd_create("fuzz-mem", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) fz_fail("memfd_create: %s", strerror(errno));
  for (size_t done = 0; done < f->len;) {
    ssize_t w = write(fd, f->data + done, f->len - done);
    if (w <= 0) fz_fail("writing %s to a memfd: %s", path, strerror(errno));
    done += (size_t)w;
  }
  lseek(fd, 0, SEEK_SET);
  return fd;
}

/* open or open64: an in-memory path, else the real one (with the mode
 * O_CREAT passes). */
static int wrapped_open(int (*real)(const char *, int, ...), const char *path, int flags,
                        va_list ap) {
  int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
  return in_memory(path) ? open_memory_fd(path, flags) : real(path, flags, mode);
}

int __wrap_open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  int fd = wrapped_open(__real_open, path, flags, ap);
  va_end(ap);
  return fd;
}

int __wrap_open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  int fd = wrapped_open(__real_open64, path, flags, ap);
  va_end(ap);
  return fd;
}

int __wrap_remove(const char *path) {
  if (!in_memory(path)) return __real_remove(path);
  fz_file *f = find(path);
  if (!f) {
    errno = ENOENT;
    return -1;
  }
  drop(f);
  return 0;
}

/* ---- the reader's contract ------------------------------------------------- */

/* Does err start with "PATH:" for path or one of its MatrixMarket sidecars? */
static int names_the_file(const char *path, const char *err) {
  size_t n = strlen(path);
  if (strncmp(err, path, n) == 0 && err[n] == ':') return 1;
  const char *dot = strrchr(path, '.');
  size_t stem = dot ? (size_t)(dot - path) : n;
  static const char *const side[] = { ".b:", ".lo:", ".hi:", ".findex:", ".mu:" };
  if (strncmp(err, path, stem) != 0) return 0;
  for (size_t k = 0; k < sizeof side / sizeof side[0]; k++)
    if (strncmp(err + stem, side[k], strlen(side[k])) == 0) return 1;
  return 0;
}

void fz_check_read(const char *path, slv_status st, const io_instance *inst, const char *err) {
  if (st == SLV_OK) {
    if (!inst) fz_fail("%s: success without an instance", path);
    if (err[0]) fz_fail("%s: success with a message: %s", path, err);
    slv_problem p = io_instance_problem(inst);
    char msg[256];
    if (slv_problem_validate(&p, msg, sizeof msg))
      fz_fail("%s: read an invalid problem: %s", path, msg);
    return;
  }
  if (st > 0) fz_fail("%s: a reader returned the solver status %d", path, (int)st);
  if (st != SLV_ERR_INVALID && st != SLV_ERR_DIM && st != SLV_ERR_UNSUPPORTED &&
      st != SLV_ERR_NOMEM)
    fz_fail("%s: a reader returned status %d", path, (int)st);
  if (inst) fz_fail("%s: failure (%d) with an instance", path, (int)st);
  if (!err[0]) fz_fail("%s: failure (%d) without a message", path, (int)st);
  if (strchr(err, '\n')) fz_fail("%s: message of more than one line: %s", path, err);
  if (!names_the_file(path, err)) fz_fail("%s: message does not name the file: %s", path, err);
}

/* ---- round trip through lcplab's format ---------------------------------- */

static void same(const char *what, const void *a, const void *b, size_t bytes) {
  if (bytes == 0) return; /* an empty array: allocated or not, the same */
  if ((a == NULL) != (b == NULL)) fz_fail("two reads: %s present on one side only", what);
  if (a && memcmp(a, b, bytes) != 0) fz_fail("two reads: %s differs", what);
}

void fz_same_instance(const io_instance *a, const io_instance *b) {
  if (a->n != b->n || a->storage != b->storage || a->ncones != b->ncones ||
      a->cone_law != b->cone_law)
    fz_fail("two reads: n %d/%d, storage %d/%d, ncones %d/%d, cone_law %d/%d", a->n, b->n,
            (int)a->storage, (int)b->storage, a->ncones, b->ncones, (int)a->cone_law,
            (int)b->cone_law);
  size_t n = (size_t)a->n, d = sizeof(double);
  if (a->storage == SLV_DENSE) {
    same("A", a->A, b->A, n * n * d);
  } else {
    same("Ap", a->Ap, b->Ap, (n + 1) * sizeof(int));
    size_t nnz = (size_t)a->Ap[n];
    same("Aj", a->Aj, b->Aj, nnz * sizeof(int));
    same("Ax", a->Ax, b->Ax, nnz * d);
  }
  same("b", a->b, b->b, n * d);
  same("lo", a->lo, b->lo, n * d);
  same("hi", a->hi, b->hi, n * d);
  same("findex", a->findex, b->findex, n * sizeof(int));
  same("mu", a->mu, b->mu, n * d);
  same("cone_rows", a->cone_rows, b->cone_rows, (size_t)a->ncones * sizeof(int));
  same("cone_mu", a->cone_mu, b->cone_mu, (size_t)a->ncones * d);
  same("x_ref", a->x_ref, b->x_ref, n * d);
}

/* The round trip's file: on disk, in a folder of this process's own (the
 * writers publish through a temporary name and rename, which the in-memory
 * files do not model); removed at exit. */
static char rt_dir[64], rt_path[96];

static void rt_cleanup(void) {
  unlink(rt_path);
  rmdir(rt_dir);
}

static const char *rt_file(void) {
  if (!rt_dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(rt_dir, sizeof rt_dir, "%s/lcplab_fuzz_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (strlen(rt_dir) >= sizeof rt_dir - 1 || !mkdtemp(rt_dir))
      fz_fail("round trip: cannot make a folder under %s", tmp ? tmp : "/tmp");
    snprintf(rt_path, sizeof rt_path, "%s/round-trip.lcp", rt_dir);
    atexit(rt_cleanup);
  }
  return rt_path;
}

void fz_round_trip(const io_instance *inst) {
  const char *path = rt_file();
  char err[512];
  slv_status st = io_write(path, IO_FMT_LCPLAB, inst, err, sizeof err);
  if (st) fz_fail("round trip: lcplab refused to write a problem it read: %s", err);
  io_instance *back = NULL;
  st = io_read(path, IO_FMT_LCPLAB, &back, err, sizeof err);
  if (st) fz_fail("round trip: lcplab cannot read what it wrote: %s", err);
  fz_same_instance(inst, back);
  io_instance_free(back);
  unlink(path);
}

void fz_read_one(const char *path, io_format fmt, const uint8_t *data, size_t size) {
  fz_file_put(path, data, size);
  io_instance *inst = NULL;
  char err[512];
  slv_status st = io_read(path, fmt, &inst, err, sizeof err);
  fz_check_read(path, st, inst, err);
  if (inst && inst->n <= FZ_ROUND_TRIP_MAX_N) fz_round_trip(inst);
  io_instance_free(inst);
  fz_files_clear();
}

void fz_real_file(const uint8_t *data, size_t size, const char *prefix, const char *suffix,
                  char *path, size_t cap) {
  snprintf(path, cap, "%s/%s-XXXXXX%s", access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp",
           prefix, suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  if (fd < 0) fz_fail("mkstemps(%s) failed", path);
  for (size_t done = 0; done < size;) {
    ssize_t k = write(fd, data + done, size - done);
    if (k <= 0) fz_fail("write to %s failed", path);
    done += (size_t)k;
  }
  close(fd);
}

void fz_check_precise(const char *path, slv_status st, const char *err) {
  if (st == SLV_OK) return;
  const char *m = err + strlen(path) + 2;
  if (strncmp(m, "expected ", 9) != 0 &&
      !(st == SLV_ERR_NOMEM && strncmp(m, "out of memory", 13) == 0))
    fz_fail("%s: not an 'expected ..., found ...' message: %s", path, err);
}
