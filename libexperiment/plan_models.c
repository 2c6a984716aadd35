/* plan_models.c -- the files a model line reads, in its tasks' keys and in
 * its exports' (experiments/CAMPAIGNS.md, "Results keyed by content").
 *
 * A line `scene model=FILE` reads FILE and what it includes or references
 * (libmodels' mdl_model_files: <include> files, meshes, textures, a URDF's
 * mesh filenames).  When the plan is made, each of them is hashed (SHA-256
 * of its bytes) and recorded in the plan's models.tsv (section, source,
 * path, sha256); a task of that line has them in its key (exp_task_key),
 * so an edited model, an edited included file or mesh reruns the line's
 * tasks and only those, and a task whose files changed since the plan was
 * made does not run (exp_models_changed), as an external's.  A problem
 * section's export of the line is reused only when it was written from the
 * same files (exp_source_digest, prepare.c).
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "mdl.h"

#include <stdlib.h>
#include <string.h>

static int add_model_file(exp_plan *pl, int section, int src, const char *path, const char *sha) {
  exp_model_file *m = realloc(pl->mfiles, (size_t)(pl->nmfiles + 1) * sizeof *m);
  if (!m) return -1;
  pl->mfiles = m;
  m = &pl->mfiles[pl->nmfiles];
  if (!(m->path = strdup(path))) return -1;
  m->section = section;
  m->src = src;
  snprintf(m->sha256, sizeof m->sha256, "%s", sha);
  pl->nmfiles++;
  return 0;
}

/* The files src's model read opens with their hashes, each passed to fn
 * (ctx, path, sha): 0, or -1 with err (a file that cannot be read, a name
 * with a tab or a line break; out of memory; fn's -1). */
static int each_model_file(const exp_source *src, int (*fn)(void *, const char *, const char *),
                           void *ctx, char *err, size_t len) {
  char **files = NULL;
  int n = 0;
  if (mdl_model_files(src->model, &files, &n, err, len) != MDL_OK) return -1;
  int bad = 0;
  for (int k = 0; k < n && !bad; k++) {
    char sha[65];
    if (strpbrk(files[k], "\t\r\n")) { /* models.tsv: one file a line, tab-separated */
      exp_fmt(err, len, "%s: a file name with a tab or a line break (read by %s)", files[k],
              src->model);
      bad = 1;
      break;
    }
    bad = exp_sha256_file(files[k], sha, err, len) != 0;
    if (!bad && fn(ctx, files[k], sha) != 0) {
      exp_fmt(err, len, "%s: out of memory", src->model);
      bad = 1;
    }
  }
  mdl_model_files_free(files, n);
  return bad ? -1 : 0;
}

static int digest_add(void *ctx, const char *path, const char *sha) {
  exp_sha256_add(ctx, path, strlen(path) + 1);
  exp_sha256_add(ctx, sha, strlen(sha) + 1);
  return 0;
}

int exp_source_digest(const exp_source *src, char sha[65], char *err, size_t len) {
  sha[0] = '\0';
  if (!src->model) return 0;
  exp_sha256 h;
  exp_sha256_init(&h);
  if (each_model_file(src, digest_add, &h, err, len) != 0) return -1;
  exp_sha256_hex(&h, sha);
  return 0;
}

typedef struct plan_ctx {
  exp_plan *pl;
  int section, src;
} plan_ctx;

static int plan_add(void *ctx, const char *path, const char *sha) {
  plan_ctx *c = ctx;
  return add_model_file(c->pl, c->section, c->src, path, sha);
}

int exp_plan_models(exp_plan *pl) {
  for (int si = 0; si < pl->cfg.nsec; si++)
    for (int k = 0; k < pl->cfg.sec[si].nsrc; k++) {
      const exp_source *src = &pl->cfg.sec[si].src[k];
      char err[EXP_PATH_MAX + 256] = "";
      plan_ctx c = { pl, si, k };
      if (src->kind != EXP_SRC_SCENE || !src->model) continue;
      if (each_model_file(src, plan_add, &c, err, sizeof err) != 0) {
        exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s:%d: scene model: %s", pl->cfg.path, src->line,
                err);
        return EXP_EXIT_USAGE;
      }
    }
  return -1;
}

int exp_plan_models_tsv(const exp_plan *pl, exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "# section\tsource\tpath\tsha256\n");
  for (int k = 0; k < pl->nmfiles && !bad; k++) {
    const exp_model_file *m = &pl->mfiles[k];
    bad = exp_rbuf_add(b, "%s\tsrc%d\t%s\t%s\n", pl->cfg.sec[m->section].name, m->src, m->path,
                       m->sha256);
  }
  return bad;
}

/* The section named name, or -1. */
static int section_index(const exp_plan *pl, const char *name) {
  for (int si = 0; si < pl->cfg.nsec; si++)
    if (strcmp(pl->cfg.sec[si].name, name) == 0) return si;
  return -1;
}

/* One models.tsv line (its tabs cut) into pl: 0, or -1. */
static int read_model_line(exp_plan *pl, char *line) {
  char *f[4];
  int nf = 0;
  for (char *c = line; nf < 4 && c; nf++) {
    f[nf] = c;
    c = strchr(c, '\t');
    if (c) *c++ = '\0';
  }
  int si = nf == 4 ? section_index(pl, f[0]) : -1, src = -1;
  if (si < 0 || strncmp(f[1], "src", 3) != 0 || slv_parse_int(f[1] + 3, &src) != SLV_PARSE_OK ||
      src < 0 || src >= pl->cfg.sec[si].nsrc || strlen(f[3]) != 64)
    return -1;
  return add_model_file(pl, si, src, f[2], f[3]);
}

int exp_plan_read_models(const char *dir, exp_plan *pl) {
  char path[EXP_PATH_MAX + 32], line[EXP_PATH_MAX + 256];
  snprintf(path, sizeof path, "%s/models.tsv", dir);
  FILE *f = fopen(path, "r");
  int rc = -1, no = 0;
  while (f && rc < 0 && fgets(line, sizeof line, f)) {
    no++;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#') continue;
    if (read_model_line(pl, line) != 0) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR,
              "%s:%d: not a line 'section TAB srcK TAB path TAB sha256' of this plan", path, no);
      rc = EXP_EXIT_USAGE;
    }
  }
  if (f) fclose(f);
  return rc;
}

void exp_task_key_models(const exp_plan *pl, int i, exp_sha256 *h) {
  const exp_task *t = &pl->tasks[i];
  for (int k = 0; t->src >= 0 && k < pl->nmfiles; k++) {
    const exp_model_file *m = &pl->mfiles[k];
    if (m->section != t->section || m->src != t->src) continue;
    exp_sha256_add(h, m->path, strlen(m->path) + 1);
    exp_sha256_add(h, m->sha256, strlen(m->sha256) + 1);
  }
}

int exp_models_changed(const exp_plan *pl, int i, char *err, size_t len) {
  const exp_task *t = &pl->tasks[i];
  for (int k = 0; t->src >= 0 && k < pl->nmfiles; k++) {
    const exp_model_file *m = &pl->mfiles[k];
    char sha[65];
    if (m->section != t->section || m->src != t->src) continue;
    if (exp_sha256_file(m->path, sha, err, len) != 0) return 1;
    if (strcmp(sha, m->sha256) != 0) {
      exp_fmt(err, len,
              "%s changed since the plan was made (SHA-256 %.12s, the plan's %.12s): make the "
              "plan again (lcplab experiment ... --plan DIR --force)",
              m->path, sha, m->sha256);
      return 1;
    }
  }
  return 0;
}

void exp_plan_models_free(exp_plan *pl) {
  for (int k = 0; k < pl->nmfiles; k++) free(pl->mfiles[k].path);
  free(pl->mfiles);
  pl->mfiles = NULL;
  pl->nmfiles = 0;
}
