/* profile_csv.c -- the per-class performance profiles of results given as
 * CSV text, and their figure, for callers that hold a profile section's
 * rows but no plan (Python's lcplab.profile; exp.h, "profiles of CSV
 * text").  The curves are exp_profile_write's, the same the engine writes
 * as NAME_profile.csv; the figure is exp_figure_draw's with
 * exp_profile.gp, the same a profile section draws.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp_internal.h"
#include "exp_tables.h"

/* The rows of text after its header (lines starting with '#' and empty
 * lines skipped), split in place into rows (at most cap); their count. */
static int split_rows(char *text, exp_row *rows, int cap) {
  int n = 0;
  char *save = NULL;
  for (char *l = strtok_r(text, "\n", &save); l && n < cap; l = strtok_r(NULL, "\n", &save)) {
    size_t len = strlen(l);
    if (len && l[len - 1] == '\r') l[len - 1] = '\0';
    if (!l[0] || l[0] == '#') continue;
    rows[n].text = NULL;
    rows[n].nf = exp_csv_split(l, rows[n].f, (int)(sizeof rows[n].f / sizeof rows[n].f[0]));
    n++;
  }
  return n;
}

/* The first line of text that is not a comment: its length into *len, or
 * NULL. */
static const char *header_line(const char *text, size_t *len) {
  for (const char *l = text; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t n = e ? (size_t)(e - l) : strlen(l);
    if (n && l[n - 1] == '\r') n--;
    if (n && l[0] != '#') {
      *len = n;
      return l;
    }
    l = e ? e + 1 : NULL;
  }
  return NULL;
}

int exp_profile_of_csv(const char *csv, char **out, char *err, size_t len) {
  *out = NULL;
  const char *want = exp_csv_header(EXP_PROFILE);
  size_t hl = 0;
  const char *h = header_line(csv, &hl);
  /* rows of a revision before x_digest, reported_solved, time_runs_s,
   * replicate and peer_tol (the last five columns) are read too: the header
   * up to res_rel_1q, or the first one to four of them */
  size_t full = strlen(want), ptol = full - strlen(",peer_tol"), rep = ptol - strlen(",replicate"),
         runs = rep - strlen(",time_runs_s");
  size_t old = runs - strlen(",x_digest,reported_solved");
  size_t mid = runs - strlen(",reported_solved");
  if (!h || (hl != full && hl != ptol && hl != rep && hl != runs && hl != mid && hl != old) ||
      strncmp(h, want, hl) != 0) {
    snprintf(err, len, "not a profile CSV: the header must be the profile section's (%s)", want);
    return -1;
  }
  size_t nlines = 1;
  for (const char *c = csv; *c; c++) nlines += *c == '\n';
  char *text = strdup(h + hl);
  exp_row *rows = calloc(nlines, sizeof *rows);
  size_t size = 0;
  char *buf = NULL;
  FILE *g = text && rows ? open_memstream(&buf, &size) : NULL;
  int rc = -1;
  if (!g) {
    snprintf(err, len, "out of memory");
  } else {
    int n = split_rows(text, rows, (int)nlines), nm = 0;
    exp_section s;
    memset(&s, 0, sizeof s);
    s.kind = EXP_PROFILE;
    fprintf(g, "%s\n", exp_csv2_header(EXP_PROFILE));
    exp_row *merged = NULL; /* one entry per algorithm, as the engine's tables */
    rc = exp_tab_merge_same(EXP_PROFILE, rows, n, &merged, &nm);
    if (rc == 0) rc = exp_profile_write(g, &s, merged, nm);
    exp_tab_rows_free(merged, nm);
    if (fclose(g) != 0) rc = -1;
    if (rc != 0) snprintf(err, len, "out of memory");
  }
  free(rows);
  free(text);
  if (rc == 0)
    *out = buf;
  else
    free(buf);
  return rc;
}

/* The text s into the new file name of the folder dirfd (created
 * exclusively, following no link); 0, or -1. */
static int write_text(int dirfd, const char *name, const char *s) {
  int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    return -1;
  }
  size_t n = strlen(s);
  int bad = fwrite(s, 1, n, f) != n;
  return (fclose(f) != 0 || bad) ? -1 : 0;
}

/* The rows and their curves as dir/rows.csv and dir/rows_profile.csv
 * (written beneath dir's descriptor), and the figure drawn from them. */
static int draw_from(const exp_log *log, const char *dir, const char *csv, const char *curves,
                     const char *base, const char *figure, const char *scripts,
                     const char *gnuplot) {
  char rows[EXP_PATH_MAX + 64], prof[EXP_PATH_MAX + 64];
  snprintf(rows, sizeof rows, "%s/rows.csv", dir);
  snprintf(prof, sizeof prof, "%s/rows_profile.csv", dir);
  int rc = EXP_EXIT_FAILED;
  exp_section s;
  memset(&s, 0, sizeof s);
  s.kind = EXP_PROFILE;
  snprintf(s.name, sizeof s.name, "%s", exp_basename(base));
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int bad = fd < 0 || write_text(fd, "rows.csv", csv) != 0 ||
            write_text(fd, "rows_profile.csv", curves) != 0;
  if (fd >= 0) close(fd);
  if (bad)
    exp_say(log, EXP_SAY_ERROR, "%s: cannot write the figure's rows: %s", dir, strerror(errno));
  else if (exp_figure_options(log, rows, figure, s.figure, sizeof s.figure) != EXP_EXIT_OK)
    rc = EXP_EXIT_USAGE;
  else
    rc = exp_figure_draw(log, &s, base, rows, prof, scripts, gnuplot) == 0 ? EXP_EXIT_OK
                                                                           : EXP_EXIT_FAILED;
  return rc;
}

int exp_profile_figure(const exp_log *log, const char *csv, const char *base, const char *figure,
                       const char *scripts, const char *gnuplot) {
  char script[EXP_PATH_MAX + 32], err[512];
  if (exp_line_safe(log, "figure", base) != 0) return EXP_EXIT_USAGE;
  snprintf(script, sizeof script, "%s/exp_profile.gp", scripts ? scripts : "");
  if (!scripts || access(script, R_OK) != 0) {
    exp_say(log, EXP_SAY_ERROR,
            "%s: cannot read: no figure (LCPLAB_EXPERIMENTS names the scripts' folder)", script);
    return EXP_EXIT_FAILED;
  }
  char *curves = NULL;
  if (exp_profile_of_csv(csv, &curves, err, sizeof err) != 0) {
    exp_say(log, EXP_SAY_ERROR, "%s", err);
    return EXP_EXIT_USAGE;
  }
  /* the rows' folder beside base, as exp_figure_draw's own */
  const char *slash = strrchr(base, '/');
  char dir[EXP_PATH_MAX + 32];
  snprintf(dir, sizeof dir, "%.*s.profile-XXXXXX", slash ? (int)(slash - base + 1) : 0, base);
  int rc = EXP_EXIT_FAILED;
  if (!mkdtemp(dir)) {
    exp_say(log, EXP_SAY_ERROR, "%s: cannot make the figure's folder: %s", dir, strerror(errno));
  } else {
    rc = draw_from(log, dir, csv, curves, base, figure, scripts, gnuplot);
    exp_beneath_remove_folder(dir); /* the rows with it, following no link */
  }
  free(curves);
  return rc;
}
