/* io_outfile.c -- an output file that replaces PATH only once complete, and
 * "do two names name one file?" (docs/io.md, "Replacing files").
 *
 * io_outfile_open creates a new file under a temporary name in PATH's own
 * folder (".NAME.PID-K.tmp", made with O_EXCL), so the final rename is
 * within one file system and atomic: a reader of PATH sees the old file or
 * the new one, never a part.  io_outfile_publish checks every write (the
 * stream's error flag, the flush, the close) before the rename; any failure
 * (a full disk, a file size limit) removes the temporary file and leaves
 * PATH as it was.  The rename replaces the name PATH itself: a symlink at
 * PATH is replaced, its target is never written, and a file with other hard
 * links keeps its content under those names.  A replaced file's permission
 * bits are kept; a new one gets 0666 less the umask.  A path that is not a
 * regular file nor a folder (a FIFO, /dev/stdout, /dev/null) is no file to
 * replace: it is written directly, and publishing only closes it.  The
 * path "-" is the standard output (the POSIX convention), the caller's
 * request: a stream of its own on a duplicate of file descriptor 1, written
 * directly like a FIFO; discarding it cannot take back what was written.
 * The caller writes nothing else to its stdout meanwhile (lcplab sends its
 * JSON to stderr then).
 *
 * io_same_file compares device and inode (links followed), never strings:
 * "s.csv" and "./s.csv", a symlink and a hard link all name one file.
 */
#define _POSIX_C_SOURCE 200809L

#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct io_outfile {
  FILE *f;    /* NULL once finished */
  char *path; /* the name published */
  char *tmp;  /* the name written; NULL: path itself (a FIFO, a device) */
  int error;  /* the errno of the first failure, 0 if none */
};

enum { TMP_BASE_MAX = 200, TMP_TRIES = 1000 };

/* "DIR/.BASE.PID-K.tmp" for path "DIR/BASE" (BASE cut to TMP_BASE_MAX bytes
 * so that the name stays under NAME_MAX); NULL on allocation failure. */
static char *tmp_name(const char *path, int k) {
  const char *slash = strrchr(path, '/');
  size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
  size_t blen = strlen(path + dlen);
  if (blen > TMP_BASE_MAX) blen = TMP_BASE_MAX;
  size_t len = dlen + blen + 64;
  char *t = malloc(len);
  if (t)
    snprintf(t, len, "%.*s.%.*s.%ld-%d.tmp", (int)dlen, path, (int)blen, path + dlen,
             (long)getpid(), k);
  return t;
}

/* A new temporary file beside o->path (o->tmp set); its fd, or -1 with errno. */
static int create_tmp(io_outfile *o) {
  for (int k = 0; k < TMP_TRIES; k++) {
    free(o->tmp);
    if (!(o->tmp = tmp_name(o->path, k))) {
      errno = ENOMEM;
      return -1;
    }
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

static void outfile_free(io_outfile *o) {
  free(o->path);
  free(o->tmp);
  free(o);
}

io_outfile *io_outfile_open(const char *path, char *err, size_t errlen) {
  struct stat st;
  if (!path || !path[0]) {
    io_msgf(err, errlen, "expected an output file name, found an empty one");
    return NULL;
  }
  int dash = strcmp(path, "-") == 0;
  int exists = !dash && stat(path, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    io_msgf(err, errlen, "%s: cannot write: it is a folder", path);
    return NULL;
  }
  io_outfile *o = calloc(1, sizeof *o);
  if (!o || !(o->path = strdup(path))) {
    free(o);
    io_msgf(err, errlen, "%s: cannot write: out of memory", path);
    return NULL;
  }
  int special = exists && !S_ISREG(st.st_mode);
  int fd = dash ? dup(STDOUT_FILENO) : special ? open(path, O_WRONLY | O_CLOEXEC) : create_tmp(o);
  if (fd >= 0 && exists && S_ISREG(st.st_mode)) fchmod(fd, st.st_mode & 07777);
  if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
    int e = errno;
    if (fd >= 0) close(fd);
    if (fd >= 0 && o->tmp) unlink(o->tmp);
    io_msgf(err, errlen, "%s: cannot write: %s", path, strerror(e));
    outfile_free(o);
    return NULL;
  }
  return o;
}

FILE *io_outfile_stream(const io_outfile *o) { return o ? o->f : NULL; }

slv_status io_outfile_finish(io_outfile *o, char *err, size_t errlen) {
  if (!o) return SLV_ERR_INVALID;
  if (o->f) {
    int e = ferror(o->f) ? (errno ? errno : EIO) : 0;
    if (fflush(o->f) != 0 && !e) e = errno;
    if (fclose(o->f) != 0 && !e) e = errno;
    o->f = NULL;
    o->error = e;
    if (e && o->tmp) unlink(o->tmp);
  }
  if (o->error) io_msgf(err, errlen, "%s: cannot write: %s", o->path, strerror(o->error));
  return o->error ? SLV_ERR_INVALID : SLV_OK;
}

slv_status io_outfile_publish(io_outfile *o, char *err, size_t errlen) {
  slv_status st = io_outfile_finish(o, err, errlen);
  if (st == SLV_OK && o->tmp && rename(o->tmp, o->path) != 0) {
    int e = errno;
    unlink(o->tmp);
    io_msgf(err, errlen, "%s: cannot write: %s", o->path, strerror(e));
    st = SLV_ERR_INVALID;
  }
  if (o) outfile_free(o);
  return st;
}

void io_outfile_discard(io_outfile *o) {
  if (!o) return;
  if (o->f) fclose(o->f);
  if (!o->error && o->tmp) unlink(o->tmp);
  outfile_free(o);
}

/* path's folder ("." when it has no '/') into dir (size len). */
static void parent_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == path)
    snprintf(dir, len, "/");
  else
    snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Neither exists: one folder (by device and inode) and one last name. */
static int same_entry(const char *a, const char *b) {
  const char *na = strrchr(a, '/'), *nb = strrchr(b, '/');
  na = na ? na + 1 : a;
  nb = nb ? nb + 1 : b;
  if (strcmp(na, nb) != 0 || !na[0]) return 0;
  char da[4096], db[4096];
  struct stat sa, sb;
  parent_of(a, da, sizeof da);
  parent_of(b, db, sizeof db);
  return stat(da, &sa) == 0 && stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

int io_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (!a || !b) return 0;
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0) return strcmp(a, b) == 0; /* stdout */
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea || eb) return 0;
  return same_entry(a, b);
}
