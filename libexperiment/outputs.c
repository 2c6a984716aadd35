/* outputs.c -- the files `lcplab collect` may write (docs/io.md,
 * "Replacing files"): each output of each section (exp_output_suffixes, the
 * figures and their pages) is checked before anything runs
 * (exp_outputs_check: an existing one only with --force, a symlink leading
 * outside the output folder never); a section's old figures are removed
 * before new ones are drawn (exp_figures_remove); `lcplab figure`'s files
 * are checked the same way, and never replace the figure's own CSVs
 * (exp_figure_check).  outset.c writes the files as one set.
 */
#define _GNU_SOURCE

#include "exp.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the outputs that may be written ------------------------------------------------------ */

/* Refuses path (1 after the message) when it is a symlink that leads
 * outside the folder real (a realpath), or when it exists and not force. */
static int output_refused(const exp_log *log, const char *path, const char *real, int force) {
  struct stat st;
  if (lstat(path, &st) != 0) return 0;
  if (S_ISLNK(st.st_mode)) {
    char *to = realpath(path, NULL);
    size_t n = strlen(real);
    int inside = to && strncmp(to, real, n) == 0 && (to[n] == '/' || strcmp(real, "/") == 0);
    free(to);
    if (!inside) {
      exp_say(log, EXP_SAY_ERROR,
              "%s is a symlink that leads outside the output folder (refused, also with --force)",
              path);
      return 1;
    }
  }
  if (!force) {
    exp_say(log, EXP_SAY_ERROR, "%s exists (use --force to overwrite, or another --out)", path);
    return 1;
  }
  return 0;
}

/* A figure page of section name: NAME-K.pdf or NAME-K.png, K one or more
 * numbers joined by '-' (a profile's NAME-2-1.pdf: tolerance 2, page 1). */
static int is_figure_page(const char *file, const char *name) {
  size_t n = strlen(name);
  if (strncmp(file, name, n) != 0 || file[n] != '-') return 0;
  const char *c = file + n;
  for (size_t d; *c == '-' && (d = strspn(c + 1, "0123456789")) > 0;) c += 1 + d;
  return c > file + n && (strcmp(c, ".pdf") == 0 || strcmp(c, ".png") == 0);
}

/* A figure's file path refused: one of the inputs (never replaced, also
 * with force), or as output_refused. */
static int figure_file_refused(const exp_log *log, const char *path, const char *real, int force,
                               const char *const *inputs) {
  for (int k = 0; inputs && inputs[k]; k++)
    if (io_same_file(path, inputs[k])) {
      exp_say(log, EXP_SAY_ERROR,
              "%s is an input of the figure: it is never overwritten (also with --force); "
              "choose another --out",
              path);
      return 1;
    }
  return output_refused(log, path, real, force);
}

/* The figures of section name: NAME.pdf, NAME.png and the pages in out;
 * inputs: NULL-terminated, or NULL. */
static int figures_refused(const exp_log *log, const char *out, const char *real, const char *name,
                           int force, const char *const *inputs) {
  char path[EXP_PATH_MAX + 128];
  static const char *const ext[] = { ".pdf", ".png" };
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s%s", out, name, ext[k]);
    if (figure_file_refused(log, path, real, force, inputs)) return 1;
  }
  DIR *d = opendir(out);
  int refused = 0;
  for (struct dirent *e; d && !refused && (e = readdir(d));)
    if (is_figure_page(e->d_name, name)) {
      snprintf(path, sizeof path, "%s/%s", out, e->d_name);
      refused = figure_file_refused(log, path, real, force, inputs);
    }
  if (d) closedir(d);
  return refused;
}

int exp_figure_check(const exp_log *log, const char *base, int force, const char *csv,
                     const char *csv2) {
  const char *slash = strrchr(base, '/'), *name = slash ? slash + 1 : base;
  char out[EXP_PATH_MAX];
  snprintf(out, sizeof out, "%.*s", slash ? (slash == base ? 1 : (int)(slash - base)) : 1,
           slash ? base : ".");
  char *real = realpath(out, NULL);
  if (!real) return 0; /* no folder: the figure cannot be written, and says so */
  const char *inputs[] = { csv, csv2, NULL };
  int refused = figures_refused(log, out, real, name, force, inputs);
  free(real);
  return refused;
}

int exp_outputs_check(const exp_config *cfg, const char *out, int force, int figures) {
  char *real = realpath(out, NULL);
  if (!real) return 0; /* not made yet: nothing in it */
  int refused = 0;
  for (int k = 0; k < cfg->nsec && !refused; k++) {
    const exp_section *s = &cfg->sec[k];
    char sfx[EXP_MAX_OUTPUTS][EXP_SUFFIX_MAX], path[EXP_PATH_MAX + 128];
    int n = exp_output_suffixes(s->kind, sfx, EXP_MAX_OUTPUTS);
    for (int j = 0; j < n && !refused; j++) {
      snprintf(path, sizeof path, "%s/%s%s", out, s->name, sfx[j]);
      refused = output_refused(&cfg->log, path, real, force);
    }
    if (!refused && figures) refused = figures_refused(&cfg->log, out, real, s->name, force, NULL);
  }
  free(real);
  return refused;
}

void exp_figures_remove(const char *out, const char *name) {
  char path[EXP_PATH_MAX + 128];
  static const char *const ext[] = { ".pdf", ".png" };
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s%s", out, name, ext[k]);
    remove(path);
  }
  DIR *d = opendir(out);
  for (struct dirent *e; d && (e = readdir(d));)
    if (is_figure_page(e->d_name, name)) {
      snprintf(path, sizeof path, "%s/%s", out, e->d_name);
      remove(path);
    }
  if (d) closedir(d);
}
