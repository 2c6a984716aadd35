/*
 * model_files.c -- mdl_model_files (mdl.h): the files a read of a model
 * file opens, for a content key of the read (libexperiment keys a task on
 * the bytes of every file its model read: experiments/CAMPAIGNS.md,
 * "Results keyed by content") and for the inputs an output must not
 * replace.
 *
 * MuJoCo's compiler (mj_loadXML) opens the model file, the files its
 * <include file> elements name (their own includes too), and the asset
 * files its elements name: <mesh file>, <skin file>, <hfield file>,
 * <texture file fileright ... fileback>; in a URDF file <mesh filename>.
 * This scan reads the XML text for those names (no XML library: elements
 * and their attributes, comments, CDATA, processing instructions and
 * declarations skipped, the five entities and character references
 * decoded) and takes, for every attribute named file, filename or file...
 * of any element, each place MuJoCo's compiler may look for it: the name as
 * it is when absolute; else in the model file's folder, in each folder a
 * <compiler meshdir texturedir assetdir> names (relative to that folder
 * unless absolute), and in the folder of the file that names it; each also
 * with the name stripped of its folders (<compiler strippath>, a URDF
 * file's default: package://robot/meshes/a.stl is looked for as a.stl).
 * Every candidate that exists as a regular file is listed: the list may
 * name a file MuJoCo does not open (a key then changes more often than it
 * must), and is meant never to leave out one it does.  Includes are
 * followed to a depth of 16; a file is listed once (by its real path).
 */
#define _GNU_SOURCE

#include "mdl_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 16
#define MAX_XML   ((long)1 << 30) /* bytes of one XML file scanned */

typedef struct strlist {
  char **s;
  int n, cap;
} strlist;

static void list_free(strlist *l) {
  for (int k = 0; k < l->n; k++) free(l->s[k]);
  free(l->s);
  memset(l, 0, sizeof *l);
}

static int list_has(const strlist *l, const char *s) {
  for (int k = 0; k < l->n; k++)
    if (strcmp(l->s[k], s) == 0) return 1;
  return 0;
}

/* s appended (a copy): 0, or -1 out of memory. */
static int list_add(strlist *l, const char *s) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **p = realloc(l->s, (size_t)cap * sizeof *p);
    if (!p) return -1;
    l->s = p;
    l->cap = cap;
  }
  if (!(l->s[l->n] = strdup(s))) return -1;
  l->n++;
  return 0;
}

typedef struct scan {
  strlist files;   /* the result: real paths */
  strlist refs;    /* asset names as written ... */
  strlist refdirs; /* ... and the folder of the file that named each */
  strlist dirs;    /* <compiler meshdir texturedir assetdir> values */
  char topdir[PATH_MAX];
  char *msg;
  size_t cap;
  mdl_err err;
} scan;

/* ---- paths ------------------------------------------------------------------------------- */

static void dir_of(const char *path, char *out, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(out, len, ".");
  else if (slash == path)
    snprintf(out, len, "/");
  else
    snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/* dir/name into out (name alone when absolute or dir empty): 0, or -1 too long. */
static int join(const char *dir, const char *name, char *out, size_t len) {
  int r = name[0] == '/' || !dir[0] ? snprintf(out, len, "%s", name)
                                    : snprintf(out, len, "%s/%s", dir, name);
  return r < 0 || (size_t)r >= len ? -1 : 0;
}

/* The real path of path when it is a regular file, into out: 1, else 0. */
static int regular(const char *path, char *out) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && realpath(path, out) != NULL;
}

/* path listed (by its real path) when it is a regular file not listed yet:
 * 1 listed now, 0 not (missing, or listed before), -1 out of memory. */
static int take(scan *s, const char *path, char *real) {
  if (!regular(path, real) || list_has(&s->files, real)) return 0;
  return list_add(&s->files, real) == 0 ? 1 : -1;
}

/* ---- the XML text ------------------------------------------------------------------------- */

/* The value v[0..n) with its entities decoded, into out: 0, or -1 too long. */
static int decode(const char *v, size_t n, char *out, size_t len) {
  static const struct {
    const char *name;
    char c;
  } ent[] = {
    { "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' }
  };
  size_t o = 0;
  for (size_t i = 0; i < n; o++) {
    if (o + 1 >= len) return -1;
    out[o] = v[i];
    int k = 0, hit = 0;
    for (; v[i] == '&' && k < 5 && !hit; k++)
      if (strncmp(v + i, ent[k].name, strlen(ent[k].name)) == 0) hit = 1;
    if (hit) {
      out[o] = ent[k - 1].c;
      i += strlen(ent[k - 1].name);
    } else if (v[i] == '&' && v[i + 1] == '#') {
      char *end;
      long c = v[i + 2] == 'x' ? strtol(v + i + 3, &end, 16) : strtol(v + i + 2, &end, 10);
      out[o] = (char)(c > 0 && c < 128 ? c : '?');
      i = *end == ';' ? (size_t)(end - v) + 1 : i + 1;
    } else {
      i++;
    }
  }
  out[o] = '\0';
  return 0;
}

static const char *skip_past(const char *p, const char *end_mark) {
  const char *q = strstr(p, end_mark);
  return q ? q + strlen(end_mark) : p + strlen(p);
}

static mdl_err scan_file(scan *s, const char *path, int depth);

/* <include file=v>, named in the file whose folder is curdir: each
 * candidate (the model's folder, curdir) listed and scanned. */
static void include_file(scan *s, const char *v, const char *curdir, int depth) {
  const char *base[2] = { s->topdir, curdir };
  for (int k = 0; k < 2 && s->err == MDL_OK; k++) {
    char path[PATH_MAX], real[PATH_MAX];
    if (join(base[k], v, path, sizeof path) != 0) continue;
    int r = take(s, path, real);
    if (r < 0)
      s->err = MDL_ERR_NOMEM;
    else if (r == 1 && depth < MAX_DEPTH)
      s->err = scan_file(s, real, depth + 1);
  }
}

/* One attribute name=v of element elem in the file of folder curdir. */
static void attribute(scan *s, const char *elem, const char *name, const char *v,
                      const char *curdir, int depth) {
  if (strcmp(elem, "include") == 0 && strcmp(name, "file") == 0) {
    include_file(s, v, curdir, depth);
  } else if (strcmp(elem, "compiler") == 0 &&
             (strcmp(name, "meshdir") == 0 || strcmp(name, "texturedir") == 0 ||
              strcmp(name, "assetdir") == 0)) {
    if (!list_has(&s->dirs, v) && list_add(&s->dirs, v) != 0) s->err = MDL_ERR_NOMEM;
  } else if (strncmp(name, "file", 4) == 0 && v[0]) {
    if (list_add(&s->refs, v) != 0 || list_add(&s->refdirs, curdir) != 0) s->err = MDL_ERR_NOMEM;
  }
}

/* The element at p ('<' then its name); returns where it ends. */
static const char *element(scan *s, const char *p, const char *curdir, int depth) {
  char elem[64], name[64], value[PATH_MAX];
  size_t n = strcspn(++p, " \t\r\n/>");
  snprintf(elem, sizeof elem, "%.*s", (int)(n < sizeof elem ? n : sizeof elem - 1), p);
  for (p += n; *p && s->err == MDL_OK;) {
    p += strspn(p, " \t\r\n");
    if (*p == '>' || *p == '/' || !*p) break;
    n = strcspn(p, " \t\r\n=/>");
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
    p += n;
    p += strspn(p, " \t\r\n");
    if (*p != '=') continue; /* an attribute without a value: not XML, MuJoCo says so */
    p++;
    p += strspn(p, " \t\r\n");
    char q = *p;
    if (q != '"' && q != '\'') break;
    const char *e = strchr(++p, q);
    if (!e) break;
    if (decode(p, (size_t)(e - p), value, sizeof value) == 0)
      attribute(s, elem, name, value, curdir, depth);
    p = e + 1;
  }
  return strchr(p, '>') ? strchr(p, '>') + 1 : p + strlen(p);
}

/* The whole file at path, NUL-terminated (the caller frees it); NULL with
 * the message. */
static char *slurp(scan *s, const char *path) {
  FILE *f = fopen(path, "rb");
  long size = -1;
  char *buf = NULL;
  if (f && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (f && size >= 0 && size <= MAX_XML && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)size + 1)) && fread(buf, 1, (size_t)size, f) == (size_t)size) {
    buf[size] = '\0';
  } else {
    free(buf);
    buf = NULL;
    s->err = size > MAX_XML ? MDL_ERR_FILE : errno == ENOMEM ? MDL_ERR_NOMEM : MDL_ERR_FILE;
    mdl_msg(s->msg, s->cap, "%s: %s", path,
            size > MAX_XML ? "larger than 1 GiB: not scanned for the files it names"
                           : strerror(errno ? errno : EIO));
  }
  if (f) fclose(f);
  return buf;
}

static mdl_err scan_file(scan *s, const char *path, int depth) {
  char *buf = slurp(s, path), curdir[PATH_MAX];
  if (!buf) return s->err;
  dir_of(path, curdir, sizeof curdir);
  for (const char *p = buf; s->err == MDL_OK && (p = strchr(p, '<'));) {
    if (strncmp(p, "<!--", 4) == 0)
      p = skip_past(p + 4, "-->");
    else if (strncmp(p, "<![CDATA[", 9) == 0)
      p = skip_past(p + 9, "]]>");
    else if (p[1] == '?')
      p = skip_past(p + 2, "?>");
    else if (p[1] == '!' || p[1] == '/')
      p = skip_past(p + 2, ">");
    else
      p = element(s, p, curdir, depth);
  }
  free(buf);
  return s->err;
}

/* ---- the assets ---------------------------------------------------------------------------- */

/* Every candidate of reference v named in the file of folder curdir (the
 * header's list), each listed when it exists. */
static void resolve(scan *s, const char *v, const char *curdir) {
  const char *slash = strrchr(v, '/');
  const char *names[2] = { v, slash ? slash + 1 : NULL };
  for (int d = -2; d < s->dirs.n && s->err == MDL_OK; d++) {
    char base[PATH_MAX];
    if (d == -2)
      snprintf(base, sizeof base, "%s", s->topdir);
    else if (d == -1)
      snprintf(base, sizeof base, "%s", curdir);
    else if (join(s->topdir, s->dirs.s[d], base, sizeof base) != 0)
      continue;
    for (int k = 0; k < 2 && names[k] && s->err == MDL_OK; k++) {
      char path[PATH_MAX], real[PATH_MAX];
      if (join(base, names[k], path, sizeof path) == 0 && take(s, path, real) < 0)
        s->err = MDL_ERR_NOMEM;
    }
  }
}

mdl_err mdl_model_files(const char *path, char ***files, int *n, char *msg, size_t msgcap) {
  *files = NULL;
  *n = 0;
  scan s;
  memset(&s, 0, sizeof s);
  s.msg = msg;
  s.cap = msgcap;
  char real[PATH_MAX];
  if (!path || !regular(path, real)) {
    mdl_msg(msg, msgcap, "%s: not a readable file", path ? path : "(null)");
    return MDL_ERR_FILE;
  }
  dir_of(real, s.topdir, sizeof s.topdir);
  if (list_add(&s.files, real) != 0)
    s.err = MDL_ERR_NOMEM;
  else
    scan_file(&s, real, 0);
  for (int k = 0; k < s.refs.n && s.err == MDL_OK; k++) resolve(&s, s.refs.s[k], s.refdirs.s[k]);
  if (s.err == MDL_ERR_NOMEM) mdl_msg(msg, msgcap, "%s: out of memory", path);
  list_free(&s.refs);
  list_free(&s.refdirs);
  list_free(&s.dirs);
  if (s.err != MDL_OK) {
    list_free(&s.files);
    return s.err;
  }
  *files = s.files.s;
  *n = s.files.n;
  return MDL_OK;
}

void mdl_model_files_free(char **files, int n) {
  for (int k = 0; files && k < n; k++) free(files[k]);
  free(files);
}
