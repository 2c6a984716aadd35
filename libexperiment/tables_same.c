/* tables_same.c -- identical algorithms as one entry of the tables
 * (experiments/README.md, "Tables", "One entry per algorithm"): a solver
 * whose every run of the section is an earlier solver's algorithm (the
 * same status and trace, exp_tab_run_key, on every problem and tolerance,
 * refusals included) is no rival of it.  Its rows are folded into the
 * earlier solver's, named "A=B" (every name listed), and the runs of all
 * the names are pooled: one algorithm timed by the median of all its runs
 * (exp_weighted_quantile over each row's sample, exp_tab_run_points).
 * The section's own CSV keeps every name's rows; the tables (profiles,
 * winners, leaders, virtual best, failures, coverage, timings, slopes)
 * count the folded ones.
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A row's identity within a solver: (family,) problem and tolerance. */
static int row_cmp_id(const exp_row *a, const exp_row *b, const exp_tab_cols *c) {
  int d = strcmp(exp_tab_field(a, c->family), exp_tab_field(b, c->family));
  if (!d) d = strcmp(exp_tab_field(a, c->problem), exp_tab_field(b, c->problem));
  if (!d) d = strcmp(exp_tab_field(a, c->tol), exp_tab_field(b, c->tol));
  return d;
}

typedef struct sctx {
  exp_row *rows;
  exp_tab_cols c;
} sctx;

static int cmp_idx(const void *pa, const void *pb, void *arg) {
  const sctx *x = arg;
  const exp_row *a = &x->rows[*(const int *)pa], *b = &x->rows[*(const int *)pb];
  return row_cmp_id(a, b, &x->c);
}

/* 1 when solvers a and b (their result rows ia[0..na), ib[0..nb), each
 * sorted by identity) ran the same algorithm everywhere: row for row the
 * same status and trace, with at least one trace. */
static int same_everywhere(const sctx *x, const int *ia, int na, const int *ib, int nb) {
  if (na != nb || na == 0) return 0;
  int traces = 0;
  for (int k = 0; k < na; k++) {
    const exp_row *a = &x->rows[ia[k]], *b = &x->rows[ib[k]];
    if (row_cmp_id(a, b, &x->c) != 0 ||
        strcmp(exp_tab_field(a, x->c.status), exp_tab_field(b, x->c.status)) != 0)
      return 0;
    char ka[160], kb[160];
    exp_tab_run_key(a, &x->c, ka, sizeof ka);
    exp_tab_run_key(b, &x->c, kb, sizeof kb);
    if (strcmp(ka, kb) != 0) return 0;
    traces += ka[0] != '\0';
  }
  return traces > 0;
}

/* A copy of the fields f[0..nf) as one owned row. */
static int row_of_fields(exp_row *dst, char *const *f, int nf) {
  size_t len = 0;
  for (int k = 0; k < nf; k++) len += strlen(f[k]) + 1;
  memset(dst, 0, sizeof *dst);
  dst->text = malloc(len + 1);
  if (!dst->text) return -1;
  char *o = dst->text;
  for (int k = 0; k < nf; k++) {
    size_t l = strlen(f[k]);
    memcpy(o, f[k], l + 1);
    dst->f[k] = o;
    o += l + 1;
  }
  dst->nf = nf;
  return 0;
}

/* The folded row of the group's rows g[0..ng) of one problem and
 * tolerance (g[0]: the first name's): its fields with the group's name and
 * the pooled runs. */
static int fold_row(const sctx *x, const int *g, int ng, const char *name, exp_row *dst) {
  const exp_row *r0 = &x->rows[g[0]];
  char *f[48], num[6][32], sample[EXP_TSAMPLE * 16 + 1] = "";
  int nf = r0->nf < 48 ? r0->nf : 48;
  for (int k = 0; k < nf; k++) f[k] = r0->f[k];
  if (x->c.solver >= 0 && x->c.solver < nf) f[x->c.solver] = (char *)name;
  exp_wpoint *p = malloc((size_t)ng * (EXP_TSAMPLE + 3) * sizeof *p);
  if (!p) return -1;
  int n = 0;
  double tmin = INFINITY, total = 0.0, runs = 0.0;
  for (int k = 0; k < ng; k++) {
    const exp_row *r = &x->rows[g[k]];
    n += exp_tab_run_points(r, &x->c, p + n);
    const char *mn = exp_tab_field(r, x->c.tmin);
    if (mn[0]) tmin = fmin(tmin, atof(mn));
    total += atof(exp_tab_field(r, x->c.ttotal));
    runs += atof(exp_tab_field(r, x->c.runs));
  }
  if (n > 0) {
    const int col[5] = { x->c.time, x->c.q1, x->c.q3, x->c.tmin, x->c.ttotal };
    double v[5] = { exp_weighted_quantile(p, n, 0.5), exp_weighted_quantile(p, n, 0.25),
                    exp_weighted_quantile(p, n, 0.75), tmin, total };
    for (int k = 0; k < 5; k++)
      if (col[k] >= 0 && col[k] < nf) {
        snprintf(num[k], sizeof num[k], "%.6e", v[k]);
        f[col[k]] = num[k];
      }
    if (x->c.runs >= 0 && x->c.runs < nf) {
      snprintf(num[5], sizeof num[5], "%.0f", runs);
      f[x->c.runs] = num[5];
    }
    size_t o = 0;
    for (int j = 0; j < EXP_TSAMPLE && x->c.sample >= 0 && x->c.sample < nf; j++)
      o += (size_t)snprintf(sample + o, sizeof sample - o, "%s%.6e", j ? " " : "",
                            exp_weighted_quantile(p, n, (j + 0.5) / EXP_TSAMPLE));
    if (x->c.sample >= 0 && x->c.sample < nf) f[x->c.sample] = sample;
  }
  free(p);
  return row_of_fields(dst, f, nf);
}

void exp_tab_rows_free(exp_row *rows, int n) {
  for (int k = 0; rows && k < n; k++) free(rows[k].text);
  free(rows);
}

/* The distinct solvers of the result rows, in order, and each one's rows
 * sorted by identity (idx[s][0..cnt[s])). */
typedef struct sgroups {
  char **solv;
  int ns, *cnt, **idx, *rep; /* rep[s]: the solver s folds into (s itself: none) */
} sgroups;

static void sgroups_free(sgroups *g) {
  for (int s = 0; g->idx && s < g->ns; s++) free(g->idx[s]);
  free(g->idx);
  free(g->cnt);
  free(g->rep);
  free(g->solv);
}

static int sgroups_build(const sctx *x, int nrows, sgroups *g) {
  memset(g, 0, sizeof *g);
  size_t k1 = (size_t)nrows + 1;
  g->solv = malloc(k1 * sizeof *g->solv);
  g->cnt = calloc(k1, sizeof *g->cnt);
  g->idx = calloc(k1, sizeof *g->idx);
  g->rep = malloc(k1 * sizeof *g->rep);
  if (!g->solv || !g->cnt || !g->idx || !g->rep) return -1;
  for (int k = 0; k < nrows; k++)
    if (exp_tab_is_result_row(&x->rows[k], &x->c) && x->c.solver < x->rows[k].nf)
      g->cnt[exp_tab_add_name(g->solv, &g->ns, x->rows[k].f[x->c.solver])]++;
  for (int s = 0; s < g->ns; s++) {
    g->rep[s] = s;
    g->idx[s] = malloc(((size_t)g->cnt[s] + 1) * sizeof **g->idx);
    if (!g->idx[s]) return -1;
    g->cnt[s] = 0;
  }
  for (int k = 0; k < nrows; k++)
    if (exp_tab_is_result_row(&x->rows[k], &x->c) && x->c.solver < x->rows[k].nf) {
      int s = exp_tab_index_of(g->solv, g->ns, x->rows[k].f[x->c.solver]);
      g->idx[s][g->cnt[s]++] = k;
    }
  for (int s = 0; s < g->ns; s++)
    qsort_r(g->idx[s], (size_t)g->cnt[s], sizeof **g->idx, cmp_idx, (void *)x);
  for (int s = 0; s < g->ns; s++)
    for (int a = 0; a < s && g->rep[s] == s; a++)
      if (g->rep[a] == a && same_everywhere(x, g->idx[a], g->cnt[a], g->idx[s], g->cnt[s]))
        g->rep[s] = a;
  return 0;
}

/* "A=B=C": the names of the group of representative a. */
static char *group_name(const sgroups *g, int a) {
  size_t len = 1;
  for (int s = 0; s < g->ns; s++)
    if (g->rep[s] == a) len += strlen(g->solv[s]) + 1;
  char *n = malloc(len);
  if (!n) return NULL;
  n[0] = '\0';
  for (int s = 0; s < g->ns; s++)
    if (g->rep[s] == a) {
      if (n[0]) strcat(n, "=");
      strcat(n, g->solv[s]);
    }
  return n;
}

/* The folded row of representative a's k-th row (its group's rows of the
 * same problem and tolerance pooled). */
static int fold_group_row(const sctx *x, const sgroups *g, int a, int k, const char *name,
                          exp_row *dst) {
  int *grp = malloc(((size_t)g->ns + 1) * sizeof *grp), ng = 0;
  if (!grp) return -1;
  for (int s = 0; s < g->ns; s++)
    if (g->rep[s] == a) grp[ng++] = g->idx[s][k]; /* rows in the same order: same_everywhere */
  int rc = fold_row(x, grp, ng, name, dst);
  free(grp);
  return rc;
}

int exp_tab_merge_same(exp_kind kind, exp_row *rows, int nrows, exp_row **out, int *nout) {
  sctx x = { rows, exp_tab_cols_of(kind) };
  sgroups g;
  memset(&g, 0, sizeof g);
  *out = calloc((size_t)nrows + 1, sizeof **out);
  *nout = 0;
  int rc = *out && x.c.solver >= 0 ? sgroups_build(&x, nrows, &g) : -1;
  char **names = rc == 0 ? calloc((size_t)g.ns + 1, sizeof *names) : NULL;
  if (!names) rc = -1;
  for (int s = 0; rc == 0 && s < g.ns; s++)
    for (int o = s + 1; o < g.ns && !names[s]; o++)
      if (g.rep[o] == s && !(names[s] = group_name(&g, s))) rc = -1;
  for (int k = 0; rc == 0 && k < nrows; k++) {
    exp_row *r = &rows[k];
    int s = exp_tab_is_result_row(r, &x.c) && x.c.solver < r->nf
                ? exp_tab_index_of(g.solv, g.ns, r->f[x.c.solver])
                : -1;
    if (s >= 0 && g.rep[s] != s) continue; /* folded into its representative's row */
    if (s >= 0 && names[s]) {
      int pos = 0;
      while (g.idx[s][pos] != k) pos++;
      rc = fold_group_row(&x, &g, s, pos, names[s], &(*out)[*nout]);
    } else {
      rc = row_of_fields(&(*out)[*nout], r->f, r->nf);
    }
    if (rc == 0) (*nout)++;
  }
  for (int s = 0; names && s < g.ns; s++) free(names[s]);
  free(names);
  sgroups_free(&g);
  if (rc) {
    exp_tab_rows_free(*out, *nout);
    *out = NULL;
    *nout = 0;
  }
  return rc;
}

/* ---- the same-trace groups of each problem (NAME_same.csv) -------------------------------- */

typedef struct gctx {
  const exp_row *rows;
  const exp_tab_cols *c;
  char (*key)[160];
} gctx;

/* By tolerance, problem, trace, then the row's place. */
static int cmp_trace(const void *pa, const void *pb, void *arg) {
  const gctx *x = arg;
  int a = *(const int *)pa, b = *(const int *)pb;
  int d = strcmp(exp_tab_field(&x->rows[a], x->c->tol), exp_tab_field(&x->rows[b], x->c->tol));
  if (!d)
    d = strcmp(exp_tab_field(&x->rows[a], x->c->problem),
               exp_tab_field(&x->rows[b], x->c->problem));
  if (!d) d = strcmp(x->key[a], x->key[b]);
  return d ? d : (a > b) - (a < b);
}

/* 1 when rows a and b are one run group: the same tolerance, problem and trace. */
static int same_trace(const gctx *x, int a, int b) {
  const exp_row *ra = &x->rows[a], *rb = &x->rows[b];
  return strcmp(exp_tab_field(ra, x->c->tol), exp_tab_field(rb, x->c->tol)) == 0 &&
         strcmp(exp_tab_field(ra, x->c->problem), exp_tab_field(rb, x->c->problem)) == 0 &&
         strcmp(x->key[a], x->key[b]) == 0;
}

/* One row of NAME_same.csv: the group g[0..n) (n >= 2). */
static void put_group(FILE *f, const gctx *x, const int *g, int n, int csrc) {
  const exp_row *r0 = &x->rows[g[0]];
  const exp_tab_cols *c = x->c;
  int fields[6] = { c->tol, c->cls, c->problem, c->status, c->iterations, c->pivots };
  for (int k = 0; k < 6; k++) {
    if (k) fputc(',', f);
    exp_csv_put(f, exp_tab_field(r0, fields[k]));
  }
  fputc(',', f);
  exp_csv_put(f, x->key[g[0]]);
  fprintf(f, ",%d,", n);
  size_t len = 1;
  for (int k = 0; k < n; k++) len += strlen(exp_tab_field(&x->rows[g[k]], c->solver)) + 1;
  char *names = calloc(len, 1);
  double tmin = INFINITY, tmax = 0.0;
  int timed = 0;
  for (int k = 0; k < n; k++) {
    const exp_row *r = &x->rows[g[k]];
    if (names && k) strcat(names, "=");
    if (names) strcat(names, exp_tab_field(r, c->solver));
    const char *src = exp_tab_field(r, csrc);
    double t = atof(exp_tab_field(r, c->time));
    if ((!src[0] || strcmp(src, "library") == 0) && t > 0.0 && isfinite(t)) {
      timed++;
      tmin = fmin(tmin, t);
      tmax = fmax(tmax, t);
    }
  }
  exp_csv_put(f, names ? names : "");
  free(names);
  fprintf(f, ",%d,", timed);
  if (timed >= 2) fprintf(f, "%.17g", tmax / tmin); /* exact: a reader compares it */
  fputc('\n', f);
}

int exp_tab_same_groups_write(FILE *f, exp_kind kind, const exp_row *rows, int nrows) {
  exp_tab_cols c = exp_tab_cols_of(kind);
  gctx x = { rows, &c, calloc((size_t)nrows + 1, sizeof *x.key) };
  int *idx = malloc(((size_t)nrows + 1) * sizeof *idx), n = 0;
  if (!x.key || !idx) {
    free(x.key);
    free(idx);
    return -1;
  }
  for (int k = 0; k < nrows; k++) {
    if (!exp_tab_is_result_row(&rows[k], &c) || exp_tab_verdicts_differ(&rows[k], &c)) continue;
    exp_tab_run_key(&rows[k], &c, x.key[k], sizeof x.key[k]);
    if (x.key[k][0]) idx[n++] = k;
  }
  qsort_r(idx, (size_t)n, sizeof *idx, cmp_trace, &x);
  fprintf(f, "tol,class,problem,status,iterations,pivots,trace,runs,solvers,timed,time_ratio\n");
  int csrc = exp_col(kind, "time_source");
  for (int a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && same_trace(&x, idx[a], idx[b]); b++) continue;
    if (b - a >= 2) put_group(f, &x, idx + a, b - a, csrc);
  }
  free(idx);
  free(x.key);
  return 0;
}
