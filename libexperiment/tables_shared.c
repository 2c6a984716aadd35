/* tables_shared.c -- what the table writers share (exp_tables.h): name
 * lists, the pair of files a table is (CSV and booktabs .tex, in the
 * collect's set), LaTeX cells escaped by exp_tex_escape, the columns of a
 * section's rows, status groups and the cells of the coverage table (which
 * tables_text.c quotes too).
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers --------------------------------------------------------------------- */

int exp_tab_index_of(char **names, int n, const char *s) {
  for (int k = 0; k < n; k++)
    if (strcmp(names[k], s) == 0) return k;
  return -1;
}

int exp_tab_add_name(char **names, int *n, char *s) {
  int k = exp_tab_index_of(names, *n, s);
  if (k < 0) {
    names[*n] = s;
    k = (*n)++;
  }
  return k;
}

/* BASE_NAME.EXT, one file of set; its stream, or NULL after the message. */
FILE *exp_tab_open(exp_outset *set, const char *base, const char *name, const char *ext) {
  char path[EXP_PATH_MAX + 128];
  snprintf(path, sizeof path, "%s_%s.%s", base, name, ext);
  return exp_outset_open(set, path);
}

/* BASE_NAME.csv into *f and BASE_NAME.tex into *t: 0, or -1 after the
 * message (then exp_outset_done drops what was opened). */
int exp_tab_open_pair(exp_outset *set, const char *base, const char *name, FILE **f, FILE **t) {
  *f = exp_tab_open(set, base, name, "csv");
  *t = *f ? exp_tab_open(set, base, name, "tex") : NULL;
  return *t ? 0 : exp_outset_done(set, -1);
}

/* One LaTeX cell, escaped, with the separator before it. */
void exp_tab_cell(FILE *t, int first, const char *s, int tt) {
  char esc[1024];
  exp_tex_escape(s, esc, sizeof esc);
  fprintf(t, "%s%s%s%s", first ? "" : " & ", tt ? "\\texttt{" : "", esc, tt ? "}" : "");
}

void exp_tab_num(FILE *t, double v, const char *fmt) {
  if (isfinite(v)) {
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    fprintf(t, " & %s", b);
  } else {
    fprintf(t, " & --");
  }
}

void exp_tab_begin(FILE *t, const char *spec, const char *const *head, int nh, const char *note) {
  fprintf(t, "%% %s\n\\begin{tabular}{%s}\n\\toprule\n", note, spec);
  for (int k = 0; k < nh; k++) exp_tab_cell(t, k == 0, head[k], 0);
  fprintf(t, " \\\\\n\\midrule\n");
}

void exp_tab_end(FILE *t) { fprintf(t, "\\bottomrule\n\\end{tabular}\n"); }

exp_tab_cols exp_tab_cols_of(exp_kind k) {
  exp_tab_cols c = { exp_col(k, "problem"),     exp_col(k, "solver"),
                     exp_col(k, "tol"),         exp_col(k, "status"),
                     exp_col(k, "time_s"),      exp_col(k, "time_q1_s"),
                     exp_col(k, "time_q3_s"),   exp_col(k, "repeats"),
                     exp_col(k, "class"),       exp_col(k, "method"),
                     exp_col(k, "note"),        exp_col(k, "final"),
                     exp_col(k, "family"),      exp_col(k, "n"),
                     exp_col(k, "iterations"),  exp_col(k, "pivots"),
                     exp_col(k, "res_rel"),     exp_col(k, "res_nat_inf"),
                     exp_col(k, "res_scaled"),  exp_col(k, "x_digest"),
                     exp_col(k, "time_min_s"),  exp_col(k, "time_total_s"),
                     exp_col(k, "time_runs_s"), exp_col(k, "replicate"),
                     exp_col(k, "solved"),      exp_col(k, "reported_solved") };
  return c;
}

const char *exp_tab_field(const exp_row *r, int c) { return (c >= 0 && c < r->nf) ? r->f[c] : ""; }

/* The rows that stand for one solve: every row but convergence history rows. */
int exp_tab_is_result_row(const exp_row *r, const exp_tab_cols *c) {
  return (c->final < 0 || strcmp(exp_tab_field(r, c->final), "1") == 0) &&
         !exp_tab_is_replicate_row(r, c);
}

int exp_tab_is_replicate_row(const exp_row *r, const exp_tab_cols *c) {
  return atoi(exp_tab_field(r, c->rep)) > 0;
}

int exp_tab_verdicts_differ(const exp_row *r, const exp_tab_cols *c) {
  const char *own = exp_tab_field(r, c->reported);
  return exp_tab_is_result_row(r, c) && own[0] &&
         (atoi(own) != 0) != (strcmp(exp_tab_field(r, c->status), "converged") == 0);
}

int exp_tab_row_solved(const exp_row *r, const exp_tab_cols *c) {
  return strcmp(exp_tab_field(r, c->status), "converged") == 0 && !exp_tab_verdicts_differ(r, c);
}

void exp_tab_run_key(const exp_row *r, const exp_tab_cols *c, char *out, size_t len) {
  const char *it = exp_tab_field(r, c->iterations), *pv = exp_tab_field(r, c->pivots),
             *xd = exp_tab_field(r, c->x_digest);
  out[0] = '\0';
  if (!it[0] || !pv[0] || (atol(it) == 0 && atol(pv) == 0)) return;
  if (xd[0])
    snprintf(out, len, "%s %s %s x%s", exp_tab_field(r, c->status), it, pv, xd);
  else
    snprintf(out, len, "%s %s %s r%s %s %s", exp_tab_field(r, c->status), it, pv,
             exp_tab_field(r, c->res_rel), exp_tab_field(r, c->res_nat),
             exp_tab_field(r, c->res_scaled));
}

int exp_tab_run_points(const exp_row *r, const exp_tab_cols *c, exp_wpoint *p) {
  const char *t = exp_tab_field(r, c->time);
  if (!t[0] || !(atof(t) > 0.0)) return 0;
  double runs = fmax(atof(exp_tab_field(r, c->runs)), 1.0);
  int n = 0;
  const char *s = exp_tab_field(r, c->sample);
  for (char *e; *s && n < EXP_TSAMPLE; s = e) {
    double v = strtod(s, &e);
    if (e == s) break;
    if (v > 0.0 && isfinite(v)) p[n++].v = v;
  }
  if (n == 0) {
    const char *q[3] = { exp_tab_field(r, c->q1), t, exp_tab_field(r, c->q3) };
    for (int k = 0; k < 3; k++)
      if (q[k][0] && atof(q[k]) > 0.0) p[n++].v = atof(q[k]);
    if (n != 3) {
      n = 1;
      p[0].v = atof(t);
    }
  }
  for (int k = 0; k < n; k++) p[k].w = runs / n;
  return n;
}

const char *exp_tab_first_name(const char *solver, char *out, size_t len) {
  size_t k = strcspn(solver, "=");
  if (k >= len) k = len - 1;
  memcpy(out, solver, k);
  out[k] = '\0';
  return out;
}

/* ---- status groups ---------------------------------------------------------------------- */

exp_tab_group *exp_tab_find_group(exp_tab_group *g, int *ng, char **key, int nk) {
  for (int k = 0; k < *ng; k++) {
    int same = 1;
    for (int j = 0; j < nk && same; j++) same = strcmp(g[k].key[j], key[j]) == 0;
    if (same) return &g[k];
  }
  exp_tab_group *n = &g[(*ng)++];
  memset(n, 0, sizeof *n);
  for (int j = 0; j < nk; j++) n->key[j] = key[j];
  return n;
}

/* ---- the classes and solvers of the coverage table ------------------------------------- */

int exp_tab_coverage_names(exp_row *rows, int nrows, const exp_tab_cols *c, exp_tab_covset *cs) {
  memset(cs, 0, sizeof *cs);
  for (int k = 0; k < nrows && !cs->first_tol; k++)
    if (c->tol >= 0 && rows[k].nf > c->tol) cs->first_tol = rows[k].f[c->tol];
  cs->cl = malloc((size_t)(nrows + 1) * sizeof *cs->cl);
  cs->sv = malloc((size_t)(nrows + 1) * sizeof *cs->sv);
  if (!cs->cl || !cs->sv) return -1;
  for (int k = 0; k < nrows; k++) /* a kind without classes (gradients): no cells */
    if (exp_tab_is_result_row(&rows[k], c) && c->cls >= 0 && rows[k].nf > c->cls) {
      exp_tab_add_name(cs->cl, &cs->ncl, rows[k].f[c->cls]);
      exp_tab_add_name(cs->sv, &cs->nsv, rows[k].f[c->solver]);
    }
  return 0;
}

void exp_tab_covset_free(exp_tab_covset *cs) {
  free(cs->cl);
  free(cs->sv);
}

int exp_tab_coverage_limits(exp_row *rows, int nrows, const exp_tab_cols *c, const char *first_tol,
                            const char *cls, const char *solver) {
  int k = 0;
  for (int i = 0; i < nrows; i++) {
    exp_row *r = &rows[i];
    k += exp_tab_is_result_row(r, c) && r->nf > c->cls && strcmp(r->f[c->cls], cls) == 0 &&
         strcmp(r->f[c->solver], solver) == 0 &&
         (!first_tol || strcmp(exp_tab_field(r, c->tol), first_tol) == 0) &&
         strcmp(exp_tab_field(r, c->status), "refused") == 0 &&
         strstr(exp_tab_field(r, c->note), "an implementation limit") != NULL;
  }
  return k;
}

void exp_tab_coverage_cell(exp_row *rows, int nrows, const exp_tab_cols *c, const char *first_tol,
                           const char *cls, const char *solver, int *n, int *acc, char *reasons,
                           size_t len) {
  char keys[16][160];
  int counts[16], nk = 0;
  *n = *acc = 0;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!exp_tab_is_result_row(r, c) || r->nf <= c->cls || strcmp(r->f[c->cls], cls) != 0 ||
        strcmp(r->f[c->solver], solver) != 0 ||
        (first_tol && strcmp(exp_tab_field(r, c->tol), first_tol) != 0))
      continue;
    (*n)++;
    if (strcmp(exp_tab_field(r, c->status), "refused") != 0) {
      (*acc)++;
      continue;
    }
    char key[160];
    exp_reason_key(solver, c->note >= 0 ? exp_tab_field(r, c->note) : "", key, sizeof key);
    int j = 0;
    while (j < nk && strcmp(keys[j], key) != 0) j++;
    if (j == nk && nk < 16) {
      snprintf(keys[nk], sizeof keys[nk], "%s", key);
      counts[nk++] = 0;
    }
    if (j < 16) counts[j]++;
  }
  size_t used = 0;
  reasons[0] = '\0';
  for (int j = 0; j < nk && used < len; j++) {
    int w = snprintf(reasons + used, len - used, "%s%s (%d)", j ? "; " : "",
                     keys[j][0] ? keys[j] : "no reason given", counts[j]);
    if (w < 0) break;
    used += (size_t)w;
  }
}
