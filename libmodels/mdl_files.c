/* mdl_files.c -- the files a model file reads besides itself: its
 * <include file>s (followed: their own references too), the files its
 * assets name (mesh, hfield, texture, skin: file="..."; URDF's mesh
 * filename="..."), found by reading the XML text, not MuJoCo's compiled
 * model (which keeps no file names).
 *
 * A name is looked up as MuJoCo's compiler looks it up, and where it might
 * (the list is for "is this file an input?", so more is safer than less):
 * absolute as is, else relative to the main file's folder, to its
 * <compiler meshdir/texturedir/assetdir> there, and to the including
 * file's folder.  Only names that exist are reported.
 */
#define _GNU_SOURCE

#include "mdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { FILES_DEPTH = 16, FILES_MAX_BYTES = 64 << 20, VALUE_MAX = 4096 };

typedef struct files_walk {
  char top[VALUE_MAX];     /* the main file's folder ("" : .) */
  char dirs[3][VALUE_MAX]; /* meshdir, texturedir, assetdir */
  int (*add)(void *ctx, const char *path);
  void *ctx;
  int count;
} files_walk;

/* The text of the file at path (at most FILES_MAX_BYTES), or NULL. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f) return NULL;
  size_t cap = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size < FILES_MAX_BYTES
                   ? (size_t)st.st_size
                   : 0;
  char *buf = malloc(cap + 1);
  size_t n = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  if (buf) buf[n] = '\0';
  return buf;
}

static void folder_of(const char *path, char *out, size_t len) {
  const char *s = strrchr(path, '/');
  snprintf(out, len, "%.*s", s ? (int)(s - path) : 0, path);
}

/* The value of attribute name in the tag that starts at tag (up to its
 * '>'), into out; 1 found. */
static int attribute(const char *tag, const char *name, char *out, size_t len) {
  size_t nl = strlen(name);
  const char *end = strchr(tag, '>');
  for (const char *p = tag; (p = strstr(p, name)) && (!end || p < end); p += nl) {
    const char *q = p + nl;
    if (!(p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r')) continue;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (*q != '=') continue;
    for (q++; *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r';) q++;
    if (*q != '"' && *q != '\'') continue;
    const char *close = strchr(q + 1, *q);
    if (!close || close - q - 1 >= (long)len) return 0;
    snprintf(out, len, "%.*s", (int)(close - q - 1), q + 1);
    return 1;
  }
  return 0;
}

/* Reports base/name (name alone when absolute or base ""), if it exists;
 * the path into out. */
static int report(files_walk *fw, const char *base, const char *name, char *out, size_t len) {
  struct stat st;
  if (name[0] == '/' || !base[0])
    snprintf(out, len, "%s", name);
  else
    snprintf(out, len, "%s/%s", base, name);
  if (stat(out, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  fw->count++;
  return fw->add(fw->ctx, out) == 0;
}

/* Every place value may be; the first that exists, into found ("" none). */
static void report_all(files_walk *fw, const char *here, const char *value, char *found,
                       size_t len) {
  char path[2 * VALUE_MAX + 2], base[2 * VALUE_MAX + 2];
  found[0] = '\0';
  const char *bases[5] = { fw->top, here, NULL, NULL, NULL };
  for (int k = 0; k < 3; k++) {
    if (!fw->dirs[k][0]) continue;
    if (fw->dirs[k][0] == '/' || !fw->top[0])
      snprintf(base, sizeof base, "%s", fw->dirs[k]);
    else
      snprintf(base, sizeof base, "%s/%s", fw->top, fw->dirs[k]);
    if (report(fw, base, value, path, sizeof path) && !found[0]) snprintf(found, len, "%s", path);
  }
  for (int k = 0; k < 2 && bases[k]; k++)
    if (report(fw, bases[k], value, path, sizeof path) && !found[0])
      snprintf(found, len, "%s", path);
}

static void walk(files_walk *fw, const char *path, int depth);

/* One tag starting at t (after '<'). */
static void visit_tag(files_walk *fw, const char *here, const char *t, int depth) {
  char v[VALUE_MAX], found[2 * VALUE_MAX + 2];
  static const char *const dir_attr[3] = { "meshdir", "texturedir", "assetdir" };
  if (strncmp(t, "compiler", 8) == 0 && depth == 0)
    for (int k = 0; k < 3; k++)
      if (attribute(t, dir_attr[k], v, sizeof v)) snprintf(fw->dirs[k], VALUE_MAX, "%s", v);
  if (attribute(t, "file", v, sizeof v) || attribute(t, "filename", v, sizeof v)) {
    report_all(fw, here, v, found, sizeof found);
    if (strncmp(t, "include", 7) == 0 && found[0]) walk(fw, found, depth + 1);
  }
}

static void walk(files_walk *fw, const char *path, int depth) {
  if (depth > FILES_DEPTH) return;
  char *text = slurp(path), here[VALUE_MAX];
  if (!text) return;
  folder_of(path, here, sizeof here);
  for (const char *t = text; (t = strchr(t, '<')); t++)
    if (t[1] != '/' && t[1] != '!' && t[1] != '?') visit_tag(fw, here, t + 1, depth);
  free(text);
}

int mdl_model_files(const char *path, int (*add)(void *ctx, const char *file), void *ctx) {
  files_walk *fw = calloc(1, sizeof *fw);
  if (!fw) return -1;
  fw->add = add;
  fw->ctx = ctx;
  folder_of(path, fw->top, sizeof fw->top);
  walk(fw, path, 0);
  int n = fw->count;
  free(fw);
  return n;
}
