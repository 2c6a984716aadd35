/* outputs.c -- the files `lcplab collect` may write (docs/io.md,
 * "Replacing files"): each output of each section (exp_output_suffixes, the
 * figures and their pages) is checked before anything runs
 * (exp_outputs_check: an existing one only with --force, a symlink leading
 * outside the output folder never); a section's old figures are removed
 * before new ones are drawn (exp_figures_remove); `lcplab figure`'s files
 * are checked the same way, and never replace the figure's own CSVs
 * (exp_figure_check).  outset.c writes the files as one set.
 *
 * What a collect wrote is recorded as lcplab's in the output folder
 * (exp_outputs_own, owned.c), and every recorded output of the same
 * sections that this collect did not write again is removed: a figure,
 * table or TeX file never outlives the CSV it was drawn from (a --no-plot
 * collect after an edit removes the old figures; a table a section no
 * longer writes goes), while a file lcplab never wrote stays
 * (experiments/CAMPAIGNS.md, "What lcplab owns in a folder").
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "exp_strmap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The length of file's figure stem: file is STEM.pdf or STEM.png, or
 * STEM-K.pdf, STEM-K-Q.png ... (K, Q digits: a figure's pages and
 * tolerances, exp_profile_figure); 0 when file is no figure's.  *pages: 1
 * for a page (STEM-K...). */
static size_t figure_stem(const char *file, int *pages) {
  size_t n = strlen(file);
  if (n < 5 || (strcmp(file + n - 4, ".pdf") != 0 && strcmp(file + n - 4, ".png") != 0)) return 0;
  size_t e = n - 4;
  *pages = 0;
  for (;;) {
    size_t d = e;
    while (d > 0 && file[d - 1] >= '0' && file[d - 1] <= '9') d--;
    if (d == e || d < 2 || file[d - 1] != '-') return e;
    e = d - 1;
    *pages = 1;
  }
}

/* A figure page of section name: NAME-K.pdf or NAME-K-Q.png ... (digits). */
static int is_figure_page(const char *file, const char *name) {
  int pages = 0;
  size_t e = figure_stem(file, &pages);
  return pages && e == strlen(name) && strncmp(file, name, e) == 0;
}

/* A figure's file path refused: one of the inputs (never replaced, also
 * with force: exp_output_is_input), or as output_refused. */
static int figure_file_refused(const exp_log *log, const char *path, const char *real, int force,
                               const exp_inputs *inputs) {
  if (inputs && exp_output_is_input(log, "figure", "--out", path, inputs)) return 1;
  return output_refused(log, path, real, force);
}

/* The figures of section name: NAME.pdf, NAME.png and the pages in out;
 * inputs may be NULL. */
static int figures_refused(const exp_log *log, const char *out, const char *real, const char *name,
                           int force, const exp_inputs *inputs) {
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
  exp_inputs inputs = { 0 };
  int refused = exp_inputs_add(&inputs, csv) != 0 || exp_inputs_add(&inputs, csv2) != 0;
  if (refused)
    exp_say(log, EXP_SAY_ERROR, "figure: out of memory");
  else
    refused = figures_refused(log, out, real, name, force, &inputs);
  exp_inputs_free(&inputs);
  free(real);
  return refused;
}

int exp_outputs_check(const exp_config *cfg, const char *out, int force, int figures,
                      const exp_inputs *in) {
  char *real = realpath(out, NULL);
  if (!real) return 0; /* not made yet: nothing in it */
  int refused = 0;
  for (int k = 0; k < cfg->nsec && !refused; k++) {
    const exp_section *s = &cfg->sec[k];
    char sfx[EXP_MAX_OUTPUTS][EXP_SUFFIX_MAX], path[EXP_PATH_MAX + 128];
    int n = exp_output_suffixes(s->kind, sfx, EXP_MAX_OUTPUTS);
    for (int j = 0; j < n && !refused; j++) {
      snprintf(path, sizeof path, "%s/%s%s", out, s->name, sfx[j]);
      refused = (in && exp_output_is_input(&cfg->log, "experiment", "--out", path, in)) ||
                output_refused(&cfg->log, path, real, force);
    }
    if (!refused && figures) refused = figures_refused(&cfg->log, out, real, s->name, force, in);
  }
  free(real);
  return refused;
}

void exp_figures_remove(const char *out, const char *name) {
  char file[EXP_PATH_MAX + 128];
  static const char *const ext[] = { ".pdf", ".png" };
  int fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  for (int k = 0; k < 2; k++) {
    snprintf(file, sizeof file, "%s%s", name, ext[k]);
    exp_beneath_remove(dirfd(d), file);
  }
  for (struct dirent *e; (e = readdir(d));)
    if (is_figure_page(e->d_name, name)) exp_beneath_remove(dirfd(d), e->d_name);
  closedir(d);
}

/* ---- what a collect wrote, and what it leaves stale ------------------------------------- */

/* The names every kind of section writes after NAME (exp_output_suffixes
 * of each kind, once each), into sfx; their count. */
static int all_suffixes(char sfx[][EXP_SUFFIX_MAX], int max) {
  int n = 0;
  for (int k = 0; k < EXP_KIND_COUNT; k++) {
    char one[EXP_MAX_OUTPUTS][EXP_SUFFIX_MAX];
    int m = exp_output_suffixes((exp_kind)k, one, EXP_MAX_OUTPUTS);
    for (int j = 0; j < m; j++) {
      int seen = 0;
      for (int q = 0; q < n && !seen; q++) seen = strcmp(sfx[q], one[j]) == 0;
      if (!seen && n < max) exp_fmt(sfx[n++], EXP_SUFFIX_MAX, "%s", one[j]);
    }
  }
  return n;
}

typedef struct stale_ctx {
  int all;                    /* any recorded output, whatever its section */
  const exp_strmap *sections; /* the config's section names */
  const exp_strmap *written;  /* the names this collect wrote */
  char sfx[4 * EXP_MAX_OUTPUTS][EXP_SUFFIX_MAX];
  int nsfx;
} stale_ctx;

/* 1 when the first len characters of file name a section of the map. */
static int names_section(const exp_strmap *sections, const char *file, size_t len) {
  char stem[EXP_NAME_MAX];
  if (len == 0 || len >= sizeof stem) return 0;
  memcpy(stem, file, len);
  stem[len] = '\0';
  return exp_strmap_get(sections, 0, stem) >= 0;
}

/* 1 when file is a figure of a section of the map: STEM.pdf / .png with
 * STEM the section's name (its figure), or the name followed by -K... (a
 * page); a section named "pa-2" and a page of "pa" share a file name, and
 * either claims it. */
static int figure_of(const exp_strmap *sections, const char *file) {
  size_t n = strlen(file);
  if (n < 5 || (strcmp(file + n - 4, ".pdf") != 0 && strcmp(file + n - 4, ".png") != 0)) return 0;
  for (size_t e = n - 4;;) {
    if (names_section(sections, file, e)) return 1;
    size_t d = e;
    while (d > 0 && file[d - 1] >= '0' && file[d - 1] <= '9') d--;
    if (d == e || d < 2 || file[d - 1] != '-') return 0;
    e = d - 1;
  }
}

/* A name a collect may write, whatever the section: a figure (STEM.pdf,
 * .png) or a name ending in an output suffix of some kind. */
static int is_output_name(const stale_ctx *c, const char *file) {
  size_t n = strlen(file);
  if (n > 4 && (strcmp(file + n - 4, ".pdf") == 0 || strcmp(file + n - 4, ".png") == 0)) return 1;
  for (int k = 0; k < c->nsfx; k++) {
    size_t l = strlen(c->sfx[k]);
    if (n > l && strcmp(file + n - l, c->sfx[k]) == 0) return 1;
  }
  return 0;
}

/* A recorded name that is an output of one of the sections (a figure, or
 * a section name followed by an output suffix of any kind) and that this
 * collect did not write: stale (exp_owned_remove's pick). */
static int is_stale(void *arg, const char *file) {
  const stale_ctx *c = arg;
  if (strchr(file, '/') || exp_strmap_get(c->written, 0, file) >= 0) return 0;
  if (c->all) return is_output_name(c, file);
  if (figure_of(c->sections, file)) return 1;
  size_t n = strlen(file);
  for (int k = 0; k < c->nsfx; k++) {
    size_t l = strlen(c->sfx[k]);
    if (n > l && strcmp(file + n - l, c->sfx[k]) == 0 && names_section(c->sections, file, n - l))
      return 1;
  }
  return 0;
}

/* Adds the figures of the sections in drawn that are in out to names;
 * 0, or -1 out of memory. */
static int add_figures(const char *out, const exp_strmap *drawn, exp_owned *names) {
  DIR *d = opendir(out);
  int bad = 0;
  for (struct dirent *e; d && !bad && (e = readdir(d));) {
    if (figure_of(drawn, e->d_name)) bad = exp_owned_add(names, e->d_name);
  }
  if (d) closedir(d);
  return bad;
}

int exp_outputs_own(const exp_config *cfg, const char *out, exp_owned *written, const int *drawn,
                    int all) {
  exp_strmap secs = { 0 }, plotted = { 0 }, wmap = { 0 };
  stale_ctx c = { all, &secs, &wmap, { { 0 } }, 0 };
  char err[EXP_PATH_MAX + 256] = "";
  int bad = 0;
  for (int k = 0; k < cfg->nsec && !bad; k++)
    bad = exp_strmap_put(&secs, 0, cfg->sec[k].name, k) != 0 ||
          (drawn[k] && exp_strmap_put(&plotted, 0, cfg->sec[k].name, k) != 0);
  if (!bad) bad = add_figures(out, &plotted, written);
  for (int k = 0; k < written->n && !bad; k++) bad = exp_strmap_put(&wmap, 0, written->name[k], k);
  if (bad) {
    exp_say(&cfg->log, EXP_SAY_ERROR, "collect: out of memory recording the outputs");
  } else {
    if (exp_owned_record(out, (const char *const *)written->name, written->n, err, sizeof err))
      exp_say(&cfg->log, EXP_SAY_NOTE, "collect: %s: the outputs are not recorded as lcplab's",
              err);
    c.nsfx = all_suffixes(c.sfx, 4 * EXP_MAX_OUTPUTS);
    if (exp_owned_remove(out, is_stale, &c, err, sizeof err) < 0) {
      exp_say(&cfg->log, EXP_SAY_ERROR, "collect: %s", err);
      bad = 1;
    }
  }
  exp_strmap_free(&secs);
  exp_strmap_free(&plotted);
  exp_strmap_free(&wmap);
  return bad ? -1 : 0;
}
