/* result.c -- the result file of one task (experiments/README.md,
 * "Result files"): written once, atomically, read back by `lcplab collect`.
 *
 *     lcplab-result 1
 *     plan 3f2a...          the plan's id (a result of another plan is stale)
 *     key 9c1e...           the task's key (exp_task_key: the instance's
 *                           contents and the variables; another is stale)
 *     task 17               the task's index
 *     spec 17 prof ...      the task's tasks.tsv line (tabs as spaces)
 *     task_status ok        ok; error (the task could not run); failed (an
 *                           external solver left no usable answer)
 *     message ...           why, for error ("" otherwise)
 *     rev ...  time_limit S  elapsed S
 *     prov KEY VALUE        cpu, cores, governor, compiler, cflags, blas,
 *                           blas_threads, binary, host, precision, placement,
 *                           load_start, load_end, memory_limit (prov.c)
 *     rows
 *     CSV rows of the section's main CSV, one per line
 *     end K H               K rows; H = FNV-1a 64 (hex) of every byte above
 *
 * The writer puts the whole text in DIR/results/.NAME.tmp.PID.TID and
 * renames it over DIR/results/NAME: a reader sees either no file or the
 * whole file.  A file without its end line (truncated), with another row
 * count or checksum (altered), or that does not parse is reported as such
 * and never merged.  The folder results/ is opened without following a
 * link, and the temporary file made new (exp_create_new_at): a link
 * planted in a shared plan folder is never written through.
 * exp_result_commit uses only open/write/rename/snprintf and no
 * allocation, so the watchdog thread may call it while the task's
 * own thread is still inside a solver.
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int exp_rbuf_add(exp_rbuf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    size_t room = b->cap - b->len;
    va_start(ap, fmt);
    int r = b->buf ? vsnprintf(b->buf + b->len, room, fmt, ap) : -2;
    va_end(ap);
    if (r >= 0 && (size_t)r < room) {
      b->len += (size_t)r;
      return 0;
    }
    if (r == -1) return -1;
    size_t need = b->len + (r > 0 ? (size_t)r : 0) + 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) cap *= 2;
    char *n = realloc(b->buf, cap);
    if (!n) return -1;
    b->buf = n;
    b->cap = cap;
  }
}

void exp_rbuf_free(exp_rbuf *b) {
  free(b->buf);
  memset(b, 0, sizeof *b);
}

typedef struct wout {
  int fd;
  uint64_t h;
  int bad;
} wout;

static void wput(wout *o, const char *s, size_t n) {
  o->h = exp_fnv1a(o->h, s, n);
  while (n > 0 && !o->bad) {
    ssize_t r = write(o->fd, s, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      o->bad = 1;
      return;
    }
    s += r;
    n -= (size_t)r;
  }
}

/* One header line "key value\n"; a newline in the value becomes a blank. */
static void wkv(wout *o, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void wkv(wout *o, const char *key, const char *fmt, ...) {
  char line[2048];
  int k = snprintf(line, sizeof line, "%s ", key);
  if (k < 0 || (size_t)k >= sizeof line) return;
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(line + k, sizeof line - (size_t)k - 1, fmt, ap);
  va_end(ap);
  if (r < 0) return;
  size_t n = (size_t)k +
             ((size_t)r < sizeof line - (size_t)k - 1 ? (size_t)r : sizeof line - (size_t)k - 2);
  for (size_t q = (size_t)k; q < n; q++)
    if (line[q] == '\n' || line[q] == '\r') line[q] = ' ';
  line[n++] = '\n';
  wput(o, line, n);
}

static void write_prov(wout *o, const exp_prov *p) {
  wkv(o, "prov cpu", "%s", p->cpu);
  wkv(o, "prov cores", "%d", p->cores);
  wkv(o, "prov governor", "%s", p->governor);
  wkv(o, "prov compiler", "%s", p->compiler);
  wkv(o, "prov cflags", "%s", p->cflags);
  wkv(o, "prov blas", "%s", p->blas);
  wkv(o, "prov blas_threads", "%s", p->blas_threads);
  wkv(o, "prov binary", "%s", p->binary);
  wkv(o, "prov host", "%s", p->host);
  wkv(o, "prov precision", "%s", p->precision);
  wkv(o, "prov placement", "%s", p->placement);
  wkv(o, "prov load_start", "%.2f", p->load_start);
  wkv(o, "prov load_end", "%.2f", p->load_end);
  wkv(o, "prov memory_limit", "%s", p->memory_limit);
}

/* The folder of the result file path, opened, and the file's name into
 * *base: DIR/results (exp_result_path's form) with results opened beneath
 * DIR without following a link (exp_beneath_open: a results/ somebody made
 * a link does not take the file elsewhere); another folder as it is.  The
 * fd, or -1 with errno. */
static int result_folder(const char *path, const char **base) {
  const char *s1 = strrchr(path, '/');
  char dir[EXP_PATH_MAX], top[EXP_PATH_MAX];
  *base = s1 ? s1 + 1 : path;
  if (exp_fmt(dir, sizeof dir, "%.*s", s1 ? (int)(s1 - path) : 0, path) != 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  const char *s0 = strrchr(dir, '/');
  if (!dir[0] || strcmp(s0 ? s0 + 1 : dir, "results") != 0)
    return open(dir[0] ? dir : (s1 ? "/" : "."), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  exp_fmt(top, sizeof top, "%.*s", s0 ? (s0 == dir ? 1 : (int)(s0 - dir)) : 1, s0 ? dir : ".");
  int t = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (t < 0) return -1;
  int fd = exp_beneath_open(t, "results");
  int e = errno;
  close(t);
  errno = e;
  return fd;
}

int exp_result_commit(const char *path, const exp_result *h, const exp_rbuf *rows, int nextra,
                      const char *extra) {
  char tmpbase[EXP_PATH_MAX + 96], tmp[EXP_PATH_MAX + 104];
  const char *base;
  int dfd = result_folder(path, &base);
  if (dfd < 0) return -1;
  snprintf(tmpbase, sizeof tmpbase, ".%s.tmp.%ld.%ld", base, (long)getpid(),
           (long)syscall(SYS_gettid));
  /* a new file (.NAME.tmp.PID.TID[.K]): a link planted there is not written through */
  wout o = { exp_create_new_at(dfd, tmpbase, 0666, tmp, sizeof tmp), EXP_FNV_INIT, 0 };
  if (o.fd < 0) {
    close(dfd);
    return -1;
  }
  wput(&o, "lcplab-result 1\n", 16);
  wkv(&o, "plan", "%s", h->plan);
  wkv(&o, "key", "%s", h->key);
  wkv(&o, "task", "%d", h->task);
  wkv(&o, "spec", "%s", h->spec);
  wkv(&o, "task_status", "%s", h->task_status);
  wkv(&o, "message", "%s", h->message);
  wkv(&o, "rev", "%s", h->rev);
  wkv(&o, "time_limit", "%.17g", h->time_limit);
  wkv(&o, "elapsed", "%.6f", h->elapsed);
  wkv(&o, "speed", "%ld %ld %ld %ld", h->speed[0], h->speed[1], h->speed[2], h->speed[3]);
  write_prov(&o, &h->prov);
  wput(&o, "rows\n", 5);
  if (rows && rows->len) wput(&o, rows->buf, rows->len);
  if (extra && extra[0]) wput(&o, extra, strlen(extra));
  char end[96];
  int r = snprintf(end, sizeof end, "end %d %016llx\n", (rows ? rows->nrows : 0) + nextra,
                   (unsigned long long)o.h);
  wput(&o, end, (size_t)r);
  int bad = o.bad | (close(o.fd) != 0);
  if (bad || renameat(dfd, tmp, dfd, base) != 0) {
    unlinkat(dfd, tmp, 0);
    close(dfd);
    return -1;
  }
  close(dfd);
  return 0;
}

/* ---- whose file --------------------------------------------------------------------------- */

/* name is "t" DIGITS ".res" (exp_result_path's names, 6 digits or more). */
static int result_name(const char *name) {
  size_t d = name[0] == 't' ? strspn(name + 1, "0123456789") : 0;
  return d >= 6 && strcmp(name + 1 + d, ".res") == 0;
}

int exp_result_file_ours(int dfd, const char *name) {
  size_t nl = strlen(name);
  int tmp = name[0] == '.' && strstr(name, ".res.tmp.") != NULL;
  char base[256];
  if (tmp)
    snprintf(base, sizeof base, "%.*s", (int)(strstr(name, ".res.tmp.") - name + 3), name + 1);
  if (!(tmp ? result_name(base) : result_name(name)) || nl > 200) return 0;
  char head[16];
  int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, 14) : -1;
  close(fd);
  /* a writer killed before its first write leaves an empty temporary file */
  return (n == 14 && memcmp(head, "lcplab-result ", 14) == 0) || (tmp && n == 0);
}

/* ---- reading -------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len, int *missing) {
  *missing = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    *missing = errno == ENOENT;
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || st.st_size > (1L << 30)) {
    fclose(f);
    return NULL;
  }
  char *buf = malloc((size_t)st.st_size + 1);
  size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  if (!buf || got != (size_t)st.st_size) {
    free(buf);
    return NULL;
  }
  buf[got] = '\0';
  *len = got;
  return buf;
}

static void set_prov(exp_prov *p, const char *key, const char *v) {
  struct {
    const char *k;
    char *dst;
    size_t len;
  } s[] = { { "cpu", p->cpu, sizeof p->cpu },
            { "governor", p->governor, sizeof p->governor },
            { "compiler", p->compiler, sizeof p->compiler },
            { "cflags", p->cflags, sizeof p->cflags },
            { "blas", p->blas, sizeof p->blas },
            { "blas_threads", p->blas_threads, sizeof p->blas_threads },
            { "binary", p->binary, sizeof p->binary },
            { "host", p->host, sizeof p->host },
            { "precision", p->precision, sizeof p->precision },
            { "placement", p->placement, sizeof p->placement },
            { "memory_limit", p->memory_limit, sizeof p->memory_limit } };
  for (size_t k = 0; k < sizeof s / sizeof s[0]; k++)
    if (strcmp(key, s[k].k) == 0) {
      snprintf(s[k].dst, s[k].len, "%s", v);
      return;
    }
  if (strcmp(key, "cores") == 0)
    p->cores = atoi(v);
  else if (strcmp(key, "load_start") == 0)
    p->load_start = atof(v);
  else if (strcmp(key, "load_end") == 0)
    p->load_end = atof(v);
}

/* One header line "KEY VALUE" into r. */
static void header_line(exp_result *r, char *line) {
  char *sp = strchr(line, ' ');
  const char *v = sp ? sp + 1 : "";
  if (sp) *sp = '\0';
  if (strcmp(line, "plan") == 0)
    snprintf(r->plan, sizeof r->plan, "%s", v);
  else if (strcmp(line, "key") == 0)
    snprintf(r->key, sizeof r->key, "%s", v);
  else if (strcmp(line, "task") == 0)
    r->task = atoi(v);
  else if (strcmp(line, "spec") == 0)
    snprintf(r->spec, sizeof r->spec, "%s", v);
  else if (strcmp(line, "task_status") == 0)
    snprintf(r->task_status, sizeof r->task_status, "%s", v);
  else if (strcmp(line, "message") == 0)
    snprintf(r->message, sizeof r->message, "%s", v);
  else if (strcmp(line, "rev") == 0)
    snprintf(r->rev, sizeof r->rev, "%s", v);
  else if (strcmp(line, "time_limit") == 0)
    r->time_limit = atof(v);
  else if (strcmp(line, "elapsed") == 0)
    r->elapsed = atof(v);
  else if (strcmp(line, "speed") == 0 &&
           sscanf(v, "%ld %ld %ld %ld", &r->speed[0], &r->speed[1], &r->speed[2], &r->speed[3]) != 4)
    memset(r->speed, 0, sizeof r->speed);
  else if (strcmp(line, "prov") == 0 && sp) {
    char *sp2 = strchr((char *)v, ' ');
    if (sp2) {
      *sp2 = '\0';
      set_prov(&r->prov, v, sp2 + 1);
    }
  }
}

/* Checks the end line of buf (len bytes); *rows_at set to its offset. */
static int check_end(const char *buf, size_t len, size_t *end_at, int *nrows, char *why,
                     size_t wl) {
  if (len == 0 || buf[len - 1] != '\n') {
    snprintf(why, wl, "truncated (no end line)");
    return -1;
  }
  size_t k = len - 1;
  while (k > 0 && buf[k - 1] != '\n') k--;
  unsigned long long want;
  if (sscanf(buf + k, "end %d %llx", nrows, &want) != 2 || strncmp(buf + k, "end ", 4) != 0) {
    snprintf(why, wl, "truncated (no end line)");
    return -1;
  }
  if (exp_fnv1a(EXP_FNV_INIT, buf, k) != (uint64_t)want) {
    snprintf(why, wl, "corrupted (checksum mismatch)");
    return -1;
  }
  *end_at = k;
  return 0;
}

int exp_result_read(const char *path, exp_result *r, char *why, size_t len) {
  memset(r, 0, sizeof *r);
  size_t n = 0;
  int missing;
  char *buf = slurp(path, &n, &missing);
  if (!buf) {
    if (missing) return 1;
    snprintf(why, len, "unreadable: %s", strerror(errno));
    return -1;
  }
  size_t end_at;
  int want_rows;
  if (strncmp(buf, "lcplab-result 1\n", 16) != 0) {
    snprintf(why, len, "not a result file (first line)");
    free(buf);
    return -1;
  }
  if (check_end(buf, n, &end_at, &want_rows, why, len)) {
    free(buf);
    return -1;
  }
  buf[end_at] = '\0';
  r->rows = calloc((size_t)(want_rows > 0 ? want_rows : 1), sizeof *r->rows);
  int in_rows = 0, bad = !r->rows;
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line && !bad; line = strtok_r(NULL, "\n", &save)) {
    if (in_rows) {
      if (r->nrows >= want_rows || !(r->rows[r->nrows] = strdup(line)))
        bad = 1;
      else
        r->nrows++;
    } else if (strcmp(line, "rows") == 0) {
      in_rows = 1;
    } else {
      header_line(r, line);
    }
  }
  free(buf);
  if (bad || !in_rows || r->nrows != want_rows) {
    snprintf(why, len, "corrupted (%d rows, the end line says %d)", r->nrows, want_rows);
    exp_result_free(r);
    return -1;
  }
  return 0;
}

void exp_result_free(exp_result *r) {
  for (int k = 0; k < r->nrows; k++) free(r->rows[k]);
  free(r->rows);
  r->rows = NULL;
  r->nrows = 0;
}
