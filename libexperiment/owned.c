/* owned.c -- the files lcplab wrote in a folder, recorded, so that only
 * they are ever replaced or removed there (experiments/CAMPAIGNS.md, "What
 * lcplab owns in a folder").
 *
 * DIR/.lcplab-owned is the record: a first line "lcplab-owned 1", '#'
 * comments, then one name a line, relative to DIR, sorted:
 *
 *     lcplab-owned 1
 *     # the files lcplab wrote in this folder: --force removes these, nothing else
 *     pa.csv
 *     plan.info
 *     results/t000000.res
 *
 * A writer adds the names it wrote (exp_owned_record: the record read,
 * the names merged, the whole written to a temporary name and renamed over
 * it, so a reader sees the old record or the new one, never a part).  Who
 * starts over (--force) or replaces a stale output removes recorded names
 * (exp_owned_remove), with the temporaries their writers may have left
 * beside them (".NAME.PID-K.tmp" of io_outfile, ".NAME.tmp.PID.TID" of a
 * result file), and drops them from the record; nothing that is not
 * recorded is touched: a user's PLAN/results/analysis.txt stays.
 *
 * Failure is safe by construction: a name missing from the record (two
 * writers updated it at once and one update was lost; the record was
 * damaged or deleted) is a file lcplab leaves alone, never one it removes
 * wrongly.  A recorded name that is now a folder is not removed (only
 * regular files and symbolic links are; a link is removed, never what it
 * points to).  A name is refused when it is absolute, holds an empty, "."
 * or ".." component, a line break, or is the record itself.  Removing goes
 * through exp_beneath_remove (beneath.c), relative to the folder's
 * descriptor, no component followed if it is a link: a recorded
 * "lnk/victim.txt" whose lnk is a link to another folder is left alone.
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "exp_strmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OWNED_MAGIC "lcplab-owned 1"

/* ---- names ----------------------------------------------------------------------------------- */

/* Whether s may be recorded (header). */
static int name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n >= EXP_PATH_MAX || s[0] == '/' || strpbrk(s, "\n\r")) return 0;
  if (strcmp(s, EXP_OWNED_FILE) == 0) return 0;
  for (const char *c = s;;) {
    size_t k = strcspn(c, "/");
    if (k == 0 || (k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.')) return 0;
    if (!c[k]) return 1;
    c += k + 1;
  }
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends a copy of s; 0, or -1 out of memory. */
static int push(exp_owned *o, const char *s) {
  if (o->n == o->cap) {
    int cap = o->cap ? 2 * o->cap : 64;
    char **nn = realloc(o->name, (size_t)cap * sizeof *nn);
    if (!nn) return -1;
    o->name = nn;
    o->cap = cap;
  }
  if (!(o->name[o->n] = strdup(s))) return -1;
  o->n++;
  return 0;
}

int exp_owned_add(exp_owned *o, const char *name) { return push(o, name); }

/* Sorted, each name once. */
static void sort_unique(exp_owned *o) {
  if (o->n > 1) qsort(o->name, (size_t)o->n, sizeof *o->name, cmp_name);
  int m = 0;
  for (int i = 0; i < o->n; i++) {
    if (m > 0 && strcmp(o->name[m - 1], o->name[i]) == 0)
      free(o->name[i]);
    else
      o->name[m++] = o->name[i];
  }
  o->n = m;
}

void exp_owned_free(exp_owned *o) {
  for (int i = 0; i < o->n; i++) free(o->name[i]);
  free(o->name);
  memset(o, 0, sizeof *o);
}

int exp_owned_has(const exp_owned *o, const char *name) {
  return o->n > 0 && bsearch(&name, o->name, (size_t)o->n, sizeof *o->name, cmp_name) != NULL;
}

/* ---- the record file ------------------------------------------------------------------------- */

static void record_path(const char *dir, char *out, size_t len) {
  exp_fmt(out, len, "%s/" EXP_OWNED_FILE, dir);
}

int exp_owned_load(const char *dir, exp_owned *o, char *err, size_t len) {
  char path[EXP_PATH_MAX + 32];
  memset(o, 0, sizeof *o);
  record_path(dir, path, sizeof path);
  FILE *f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return 0;
    exp_fmt(err, len, "%s: %s", path, strerror(errno));
    return -1;
  }
  o->exists = 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  int first = 1, rc = 0;
  while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
    if (got > 0 && line[got - 1] == '\n') line[--got] = '\0';
    if (first) {
      first = 0;
      if (strcmp(line, OWNED_MAGIC) == 0) continue;
      exp_fmt(err, len, "%s: not a record of lcplab's files (no '" OWNED_MAGIC "' line)", path);
      rc = -1;
    }
    if (rc == 0 && line[0] != '#' && name_ok(line) && push(o, line) != 0) {
      exp_fmt(err, len, "%s: out of memory", path);
      rc = -1;
    }
  }
  if (rc == 0 && ferror(f)) {
    exp_fmt(err, len, "%s: read error", path);
    rc = -1;
  }
  free(line);
  fclose(f);
  if (rc != 0) {
    exp_owned_free(o);
    return -1;
  }
  sort_unique(o);
  return 0;
}

/* Writes o as DIR's record (a temporary renamed over it); 0, or -1 with err. */
static int write_record(const char *dir, const exp_owned *o, char *err, size_t len) {
  char path[EXP_PATH_MAX + 32];
  record_path(dir, path, sizeof path);
  io_outfile *out = io_outfile_open(path, err, len);
  if (!out) return -1;
  FILE *f = io_outfile_stream(out);
  fprintf(f, OWNED_MAGIC
          "\n# the files lcplab wrote in this folder (experiments/CAMPAIGNS.md, "
          "\"What lcplab owns in a folder\"): --force removes these and nothing else\n");
  for (int i = 0; i < o->n; i++) fprintf(f, "%s\n", o->name[i]);
  return io_outfile_publish(out, err, len) == SLV_OK ? 0 : -1;
}

int exp_owned_record(const char *dir, const char *const *names, int n, char *err, size_t len) {
  exp_owned o;
  char why[EXP_PATH_MAX + 128];
  if (exp_owned_load(dir, &o, why, sizeof why) != 0) memset(&o, 0, sizeof o); /* start anew */
  for (int i = 0; i < n; i++)
    if (name_ok(names[i]) && push(&o, names[i]) != 0) {
      exp_fmt(err, len, "%s/" EXP_OWNED_FILE ": out of memory", dir);
      exp_owned_free(&o);
      return -1;
    }
  sort_unique(&o);
  int rc = write_record(dir, &o, err, len);
  exp_owned_free(&o);
  return rc;
}

/* ---- removing ---------------------------------------------------------------------------------- */

/* The name whose temporary file is base (a directory entry), into out:
 * ".NAME.PID-K.tmp" (io_outfile) or ".NAME.tmp.PID.TID" (result.c); 0 when
 * base is neither. */
static int temporary_of(const char *base, char *out, size_t len) {
  size_t n = strlen(base);
  if (n < 3 || base[0] != '.') return 0;
  if (n > 5 && strcmp(base + n - 4, ".tmp") == 0) {
    size_t e = n - 4, d = e;
    while (d > 1 && strchr("0123456789-", base[d - 1])) d--;
    if (d > 1 && d < e && base[d - 1] == '.' && strchr(base + d, '-')) {
      exp_fmt(out, len, "%.*s", (int)(d - 2), base + 1);
      return d > 2;
    }
  }
  const char *t = strstr(base, ".tmp.");
  for (const char *u = t; u; u = strstr(u + 1, ".tmp.")) t = u; /* the last one */
  if (!t || t == base || strspn(t + 5, "0123456789.") != strlen(t + 5)) return 0;
  exp_fmt(out, len, "%.*s", (int)(t - base - 1), base + 1);
  return t > base + 1;
}

/* Removes the temporaries left beside the removed names in the folder sub
 * of the folder dfd ("" : that folder itself; reached by exp_beneath_open,
 * never through a link). */
static void remove_temporaries(int dfd, const char *sub, const exp_strmap *removed) {
  int fd = exp_beneath_open(dfd, sub);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d && fd >= 0) close(fd);
  for (struct dirent *e; d && (e = readdir(d));) {
    char name[EXP_PATH_MAX], rel[2 * EXP_PATH_MAX + 2];
    struct stat st;
    if (!temporary_of(e->d_name, name, sizeof name)) continue;
    exp_fmt(rel, sizeof rel, sub[0] ? "%s/%s" : "%s%s", sub, name);
    if (exp_strmap_get(removed, 0, rel) >= 0 &&
        fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
      exp_beneath_remove(dirfd(d), e->d_name);
  }
  if (d) closedir(d);
}

/* Removes dir/name (dfd: dir) when it is a file or a link, never through a
 * link (exp_beneath_remove): 1 removed, 0 absent (or not a file, or behind
 * a link: left alone), -1 with err when it could not be removed. */
static int remove_one(int dfd, const char *dir, const char *name, char *err, size_t len) {
  int r = exp_beneath_remove(dfd, name);
  if (r < 0) exp_fmt(err, len, "%s/%s: cannot remove: %s", dir, name, strerror(errno));
  return r;
}

/* The folder part of name ("" without one) into out. */
static void folder_of(const char *name, char *out, size_t len) {
  const char *slash = strrchr(name, '/');
  exp_fmt(out, len, "%.*s", slash ? (int)(slash - name) : 0, name);
}

/* Removes the picked names of o from dir, with their temporaries, and
 * drops them from o (a name that could not be removed stays; so does one
 * not picked; one that is gone or not a file is dropped).  The count
 * removed, or -1 with err (what could be removed was). */
static int remove_picked(int dfd, const char *dir, exp_owned *o, int (*pick)(void *, const char *),
                         void *ctx, char *err, size_t len) {
  exp_strmap removed, subs;
  char **sub = calloc((size_t)o->n + 1, sizeof *sub);
  unsigned char *drop = calloc((size_t)o->n + 1, 1);
  int ok = sub && drop && exp_strmap_init(&removed, (size_t)o->n) == 0;
  if (ok && exp_strmap_init(&subs, 16) != 0) {
    exp_strmap_free(&removed);
    ok = 0;
  }
  if (!ok) {
    free(sub);
    free(drop);
    exp_fmt(err, len, "%s: out of memory", dir);
    return -1;
  }
  int count = 0, nsub = 0, bad = 0;
  for (int i = 0; i < o->n; i++) {
    int r = pick && !pick(ctx, o->name[i]) ? -2 : remove_one(dfd, dir, o->name[i], err, len);
    bad |= r == -1;
    drop[i] = r >= 0;
    if (r < 0) continue;
    count += r == 1;
    char f[EXP_PATH_MAX]; /* its temporaries go too, the file there or not (a killed writer's) */
    folder_of(o->name[i], f, sizeof f);
    exp_strmap_put(&removed, 0, o->name[i], i); /* out of memory: its temporaries stay */
    if (exp_strmap_get(&subs, 0, f) < 0 && (sub[nsub] = strdup(f)) &&
        exp_strmap_put(&subs, 0, sub[nsub], nsub) == 0)
      nsub++;
  }
  for (int k = 0; k < nsub; k++) remove_temporaries(dfd, sub[k], &removed);
  exp_strmap_free(&removed); /* it borrowed the names freed below */
  int kept = 0;
  for (int i = 0; i < o->n; i++) {
    if (drop[i])
      free(o->name[i]);
    else
      o->name[kept++] = o->name[i];
  }
  o->n = kept;
  for (int k = 0; k < nsub; k++) free(sub[k]);
  free(sub);
  free(drop);
  exp_strmap_free(&subs);
  return bad ? -1 : count;
}

int exp_owned_remove(const char *dir, int (*pick)(void *ctx, const char *name), void *ctx,
                     char *err, size_t len) {
  exp_owned o;
  if (exp_owned_load(dir, &o, err, len) != 0) return -1;
  if (!o.exists) return 0;
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    exp_fmt(err, len, "%s: %s", dir, strerror(errno));
    exp_owned_free(&o);
    return -1;
  }
  int n0 = o.n, count = remove_picked(dfd, dir, &o, pick, ctx, err, len);
  close(dfd);
  char werr[EXP_PATH_MAX + 256];
  if (o.n != n0 && write_record(dir, &o, werr, sizeof werr) != 0 && count >= 0) {
    exp_fmt(err, len, "%s", werr);
    count = -1;
  }
  exp_owned_free(&o);
  return count;
}
