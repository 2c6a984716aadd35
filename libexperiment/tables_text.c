/* tables_text.c -- NAME_tex.csv: every text of a section that is not a
 * number (the CSV preamble's values, the rows' fields, the coverage
 * reasons) with its LaTeX form (exp_tex_escape), what a document quotes,
 * escaped once, here (experiments/README.md, "Tables").
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the texts a document quotes ------------------------------------------------------ */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when s is empty or a number (it needs no escaping and is left out). */
static int is_number(const char *s) {
  char *end;
  if (!s[0]) return 1;
  (void)strtod(s, &end);
  return *end == '\0';
}

typedef struct textset {
  char **s;
  int n, cap;
} textset;

static int text_add(textset *ts, const char *s, size_t len) {
  char *copy = strndup(s, len);
  if (!copy) return -1;
  if (is_number(copy)) {
    free(copy);
    return 0;
  }
  if (ts->n == ts->cap) {
    int cap = ts->cap ? 2 * ts->cap : 256;
    char **ns = realloc(ts->s, (size_t)cap * sizeof *ns);
    if (!ns) {
      free(copy);
      return -1;
    }
    ts->s = ns;
    ts->cap = cap;
  }
  ts->s[ts->n++] = copy;
  return 0;
}

/* The values of the preamble's "# key: value" lines, as a reader takes
 * them: the text after the first ':', blanks trimmed. */
static int text_preamble(textset *ts, const char *pre) {
  for (const char *l = pre; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    const char *e = strchr(l, '\n') ? strchr(l, '\n') : l + strlen(l);
    const char *v = memchr(l, ':', (size_t)(e - l));
    if (l[0] != '#' || !v) continue;
    for (v++; v < e && (*v == ' ' || *v == '\t'); v++) {}
    size_t len = (size_t)(e - v);
    while (len && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\r')) len--;
    if (len && text_add(ts, v, len)) return -1;
  }
  return 0;
}

/* The coverage table's reasons cells (problem kinds). */
static int text_reasons(textset *ts, const exp_section *s, exp_row *rows, int nrows) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  exp_tab_covset cs;
  int rc = exp_tab_coverage_names(rows, nrows, &c, &cs);
  for (int a = 0; rc == 0 && a < cs.ncl; a++)
    for (int b = 0; rc == 0 && b < cs.nsv; b++) {
      int n, acc;
      char reasons[1024];
      exp_tab_coverage_cell(rows, nrows, &c, cs.first_tol, cs.cl[a], cs.sv[b], &n, &acc, reasons,
                            sizeof reasons);
      if (reasons[0]) rc = text_add(ts, reasons, strlen(reasons));
    }
  exp_tab_covset_free(&cs);
  return rc;
}

/* Writes the sorted distinct texts of ts as "text,tex" rows. */
static void text_rows(FILE *f, textset *ts) {
  qsort(ts->s, (size_t)ts->n, sizeof *ts->s, cmp_str);
  for (int k = 0; k < ts->n; k++) {
    if (k > 0 && strcmp(ts->s[k], ts->s[k - 1]) == 0) continue;
    char esc[8192];
    exp_tex_escape(ts->s[k], esc, sizeof esc);
    exp_csv_put(f, ts->s[k]);
    fputc(',', f);
    exp_csv_put(f, esc);
    fputc('\n', f);
  }
}

int exp_text_write(const exp_section *s, const char *base, const char *preamble, exp_row *rows,
                   int nrows, exp_outset *set) {
  textset ts = { NULL, 0, 0 };
  int rc = text_preamble(&ts, preamble);
  for (int k = 0; rc == 0 && k < nrows; k++)
    for (int j = 0; rc == 0 && j < rows[k].nf; j++)
      rc = text_add(&ts, rows[k].f[j], strlen(rows[k].f[j]));
  if (rc == 0 && !exp_kind_is_scene(s->kind)) rc = text_reasons(&ts, s, rows, nrows);
  FILE *f = rc == 0 ? exp_tab_open(set, base, "tex", "csv") : NULL;
  if (f) {
    fprintf(f,
            "# every text of %s.csv that is not a number (its preamble's values, its "
            "fields, the coverage reasons) and its LaTeX form (exp_tex_escape), for "
            "documents that quote them\ntext,tex\n",
            exp_basename(base));
    text_rows(f, &ts);
  }
  for (int k = 0; k < ts.n; k++) free(ts.s[k]);
  free(ts.s);
  return f ? exp_outset_done(set, 0) : exp_outset_done(set, -1);
}
