/* profile_csv.c -- the per-class performance profiles of results given as
 * CSV text, for callers that hold a profile section's rows but no plan
 * (Python's lcplab.profile; exp.h, "profiles of CSV text").  The curves are
 * exp_profile_write's, the same the engine writes as NAME_profile.csv.
 */
#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp.h"

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
  /* rows of a revision before x_digest and reported_solved (the last two
   * columns) are read too: the header up to res_rel_1q, or one of them */
  size_t full = strlen(want), old = full - strlen(",x_digest,reported_solved");
  size_t mid = full - strlen(",reported_solved");
  if (!h || (hl != full && hl != mid && hl != old) || strncmp(h, want, hl) != 0) {
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
    int n = split_rows(text, rows, (int)nlines);
    exp_section s;
    memset(&s, 0, sizeof s);
    s.kind = EXP_PROFILE;
    fprintf(g, "%s\n", exp_csv2_header(EXP_PROFILE));
    rc = exp_profile_write(g, &s, rows, n);
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
