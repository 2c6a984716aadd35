/* lock.c -- one lcplab run at a time writes into a folder: the lock of an
 * output or plan folder (experiments/CAMPAIGNS.md, "One run per folder").
 *
 * `lcplab experiment --out DIR`, `--plan DIR` and `lcplab collect ... --out
 * DIR` hold DIR/.lcplab-lock while they write there; a second such run is
 * refused (exit 2) with the holder's pid, host and start time.  The tasks
 * of a plan (`lcplab task DIR N`: GNU parallel, Slurm, the --jobs workers)
 * never take it: they write only their own result files.
 *
 * The lock file holds its holder's identity, one "key value" a line:
 *
 *     lcplab-lock 1
 *     pid 4242
 *     host node17
 *     boot 0b6e2c0a-...       (/proc/sys/kernel/random/boot_id)
 *     start 1234567           (the process's start time, clock ticks after boot)
 *     started 2026-11-26T10:12:11Z
 *     what experiment
 *
 * Taking it works on NFS as on a local disk and needs no lock daemon: the
 * holder's text is written to a new file of its own (.lcplab-lock.HOST.PID,
 * or .lcplab-lock.HOST.PID.K when that name is taken: made with O_EXCL |
 * O_NOFOLLOW, so a link planted at the name is never written through) and
 * link(2)ed to .lcplab-lock, an atomic create-if-absent on every NFS
 * version (a link whose reply was lost is confirmed by the file's link
 * count); flock and fcntl locks are not used.  A lock whose holder is gone
 * is taken over: same host and boot and that pid no longer runs (or runs
 * another program: its start time differs), or same host after a reboot.
 * The stale file is renamed aside first and checked to be the one judged,
 * so two runs taking over one stale lock do not both get it.  A lock held
 * from another host is never judged stale (its pid means nothing here): the
 * message names it, to be removed by hand if that run is gone.
 */
#define _GNU_SOURCE

#include "exp_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_NAME  ".lcplab-lock"
#define LOCK_MAGIC "lcplab-lock 1"

/* A holder as its lock file says it. */
typedef struct holder {
  long pid;
  unsigned long long start;
  char host[256], boot[64], started[64], what[64];
} holder;

/* ---- who we are ------------------------------------------------------------------------------ */

/* The first line of path (without its newline) into out; "" if none. */
static void first_line(const char *path, char *out, size_t len) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(out, (int)len, f)) out[strcspn(out, "\n")] = '\0';
  fclose(f);
}

/* The start time of process pid in clock ticks after boot (field 22 of
 * /proc/PID/stat), 0 when unknown. */
static unsigned long long proc_start(long pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  char *c = strrchr(buf, ')'); /* the command name may hold blanks and ')' */
  for (int field = 2; c && field < 22; field++) c = strchr(c + 1, ' '); /* to field 22 */
  return c ? strtoull(c + 1, NULL, 10) : 0;
}

static void self_holder(holder *h, const char *what) {
  memset(h, 0, sizeof *h);
  h->pid = (long)getpid();
  h->start = proc_start(h->pid);
  if (gethostname(h->host, sizeof h->host - 1) != 0) snprintf(h->host, sizeof h->host, "unknown");
  first_line("/proc/sys/kernel/random/boot_id", h->boot, sizeof h->boot);
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(h->started, sizeof h->started, "%Y-%m-%dT%H:%M:%SZ", &tm);
  exp_fmt(h->what, sizeof h->what, "%s", what);
}

static void holder_text(const holder *h, char *out, size_t len) {
  exp_fmt(out, len, LOCK_MAGIC "\npid %ld\nhost %s\nboot %s\nstart %llu\nstarted %s\nwhat %s\n",
          h->pid, h->host, h->boot[0] ? h->boot : "-", h->start, h->started, h->what);
}

/* The holder in text; 0, or -1 when text is no lock of lcplab's. */
static int parse_holder(const char *text, holder *h) {
  memset(h, 0, sizeof *h);
  if (strncmp(text, LOCK_MAGIC "\n", sizeof LOCK_MAGIC) != 0) return -1;
  for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    char v[256];
    if (sscanf(l, "pid %ld", &h->pid) == 1 || sscanf(l, "start %llu", &h->start) == 1) continue;
    if (sscanf(l, "host %255[^\n]", v) == 1) exp_fmt(h->host, sizeof h->host, "%s", v);
    if (sscanf(l, "boot %63[^\n]", v) == 1) exp_fmt(h->boot, sizeof h->boot, "%s", v);
    if (sscanf(l, "started %63[^\n]", v) == 1) exp_fmt(h->started, sizeof h->started, "%s", v);
    if (sscanf(l, "what %63[^\n]", v) == 1) exp_fmt(h->what, sizeof h->what, "%s", v);
  }
  if (strcmp(h->boot, "-") == 0) h->boot[0] = '\0';
  return h->pid > 0 && h->host[0] ? 0 : -1;
}

/* Whether h's run is gone, judged on this host (header); 0 for another
 * host's lock. */
static int holder_gone(const holder *h, const holder *me) {
  if (strcmp(h->host, me->host) != 0) return 0;
  if (h->boot[0] && me->boot[0] && strcmp(h->boot, me->boot) != 0) return 1; /* rebooted */
  if (kill((pid_t)h->pid, 0) != 0 && errno == ESRCH) return 1;
  unsigned long long now = proc_start(h->pid);
  return h->start && now && now != h->start; /* the pid is another process's now */
}

/* ---- the lock file ------------------------------------------------------------------------- */

/* The whole of a small file into out; 0, or -1. */
static int read_small(const char *path, char *out, size_t len) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, out, len - 1);
  close(fd);
  if (n < 0) return -1;
  out[n] = '\0';
  return 0;
}

/* Links our file own to the lock: 0 taken, -1 with errno (EEXIST: held). */
static int link_lock(const char *own, const char *lock) {
  if (link(own, lock) == 0) return 0;
  int e = errno;
  struct stat st;
  if (stat(own, &st) == 0 && st.st_nlink == 2) return 0; /* NFS: the reply was lost */
  errno = e;
  return -1;
}

/* Moves the stale lock whose text is judged aside and drops it: 0 when it
 * was that one (the lock is free now), -1 when another run's lock was
 * there meanwhile (put back). */
static int drop_stale(const char *lock, const char *judged, long me) {
  char aside[EXP_PATH_MAX + 64], text[1024];
  exp_fmt(aside, sizeof aside, "%s.stale.%ld", lock, me);
  if (rename(lock, aside) != 0) return errno == ENOENT ? 0 : -1;
  int same = read_small(aside, text, sizeof text) == 0 && strcmp(text, judged) == 0;
  if (!same) (void)link(aside, lock); /* fails only when a third run took the free lock */
  unlink(aside);
  return same ? 0 : -1;
}

static void say_held(const exp_log *log, const char *dir, const char *what, const char *lock,
                     const holder *h, int parsed) {
  if (!parsed) {
    exp_say(log, EXP_SAY_ERROR,
            "%s: %s is locked by %s, which is not an lcplab lock: remove it if no lcplab run "
            "writes there",
            what, dir, lock);
    return;
  }
  exp_say(log, EXP_SAY_ERROR,
          "%s: %s is in use by lcplab %s (pid %ld on host %s, started %s; lock %s): wait for it "
          "to end or write elsewhere (if that run is gone on another host, remove the lock)",
          what, dir, h->what, h->pid, h->host, h->started, lock);
}

/* One attempt at the lock: 0 taken, 1 held by another run (*h, *parsed
 * set; text its lock's text), -1 with errno. */
static int try_lock(const char *own, const char *lock, holder *h, int *parsed, char *text,
                    size_t len) {
  if (link_lock(own, lock) == 0) return 0;
  if (errno != EEXIST) return -1;
  if (read_small(lock, text, len) != 0) return errno == ENOENT ? 2 : -1; /* 2: gone: again */
  *parsed = parse_holder(text, h) == 0;
  return 1;
}

/* Writes text to a new file named base, or base.K when base is taken
 * (exp_create_new: a link or hard link planted at the name is never written
 * through), its name into own (size len; "" when none was made); 0, or -1
 * with errno. */
static int write_own(const char *base, char *own, size_t len, const char *text) {
  int fd = exp_create_new(base, 0644, own, len);
  if (fd < 0) {
    own[0] = '\0';
    return -1;
  }
  ssize_t n = (ssize_t)strlen(text);
  int ok = write(fd, text, (size_t)n) == n;
  int e = errno;
  if (close(fd) != 0 && ok) return -1;
  errno = e;
  return ok ? 0 : -1;
}

int exp_lock_take(exp_lock *lk, const char *dir, const char *what, const exp_log *log) {
  holder me, h;
  char base[EXP_PATH_MAX + 320], own[EXP_PATH_MAX + 330], text[1024], mine[1024];
  memset(lk, 0, sizeof *lk);
  self_holder(&me, what);
  holder_text(&me, mine, sizeof mine);
  exp_fmt(lk->path, sizeof lk->path, "%s/" LOCK_NAME, dir);
  exp_fmt(base, sizeof base, "%s.%s.%ld", lk->path, me.host, me.pid);
  int wrote = write_own(base, own, sizeof own, mine) == 0, r = -1, e = errno, parsed = 0;
  /* a few rounds: a lock that vanishes, or a stale one moved aside, is tried again */
  for (int round = 0; wrote && round < 4; round++) {
    r = try_lock(own, lk->path, &h, &parsed, text, sizeof text);
    e = errno;
    if (r == 2) continue;
    if (r != 1 || !parsed || !holder_gone(&h, &me)) break;
    if (drop_stale(lk->path, text, me.pid) == 0)
      exp_say(log, EXP_SAY_NOTE,
              "%s: %s: took over the lock of a run that is gone (pid %ld on host %s, started %s)",
              what, dir, h.pid, h.host, h.started);
  }
  if (own[0]) unlink(own);
  if (r == 0) {
    exp_fmt(lk->text, sizeof lk->text, "%s", mine);
    lk->held = 1;
    return 0;
  }
  if (r == 1)
    say_held(log, dir, what, lk->path, &h, parsed);
  else
    exp_say(log, EXP_SAY_ERROR, "%s: %s: cannot take the lock %s: %s", what, dir, lk->path,
            strerror(e));
  return EXP_EXIT_USAGE;
}

void exp_lock_release(exp_lock *lk) {
  char text[1024];
  if (lk->held && read_small(lk->path, text, sizeof text) == 0 && strcmp(text, lk->text) == 0)
    unlink(lk->path);
  lk->held = 0;
}
