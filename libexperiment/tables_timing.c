/* tables_timing.c -- the timing tables of a timed section
 * (experiments/README.md, "Timing" and "Tables"): the protocol as run, the
 * between-run noise and the winners' tie tolerance (NAME_timing.csv,
 * exp_section_tie, exp_timing_write), and per class, tolerance and solver
 * the solved problems' times and their spread (NAME_timings.*).
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- between-run noise and the tie ---------------------------------------------------------- */

/* The section's between-run noise: the median over its timed rows (two
 * runs or more) of (q3 - q1) / median (exp_rel_spread, exp_noise_median);
 * *used: how many rows had one.  NaN when none; -2 out of memory. */
static double section_noise(exp_row *rows, int nrows, const exp_tab_cols *c, int *used) {
  double *rel = malloc((size_t)(nrows + 1) * sizeof *rel);
  *used = 0;
  if (!rel) return -2.0;
  int k = 0;
  for (int i = 0; i < nrows; i++) {
    exp_row *r = &rows[i];
    if (!exp_tab_is_result_row(r, c) || !exp_tab_field(r, c->time)[0] ||
        !exp_tab_field(r, c->q1)[0])
      continue;
    rel[k] = exp_rel_spread(atof(exp_tab_field(r, c->q1)), atof(exp_tab_field(r, c->time)),
                            atof(exp_tab_field(r, c->q3)), atoi(exp_tab_field(r, c->runs)));
    *used += isfinite(rel[k]);
    k++;
  }
  double v = exp_noise_median(rel, k);
  free(rel);
  return v;
}

/* ---- the noise between independent passes ------------------------------------------------ */

typedef struct rctx {
  exp_row *rows;
  const exp_tab_cols *c;
} rctx;

static int cmp_cell(const exp_row *a, const exp_row *b, const exp_tab_cols *c) {
  int d = strcmp(exp_tab_field(a, c->problem), exp_tab_field(b, c->problem));
  if (!d) d = strcmp(exp_tab_field(a, c->solver), exp_tab_field(b, c->solver));
  if (!d) d = strcmp(exp_tab_field(a, c->tol), exp_tab_field(b, c->tol));
  return d;
}

static int cmp_cell_idx(const void *pa, const void *pb, void *arg) {
  const rctx *x = arg;
  return cmp_cell(&x->rows[*(const int *)pa], &x->rows[*(const int *)pb], x->c);
}

/* The converged time of r, or 0. */
static double conv_time(const exp_row *r, const exp_tab_cols *c) {
  if (strcmp(exp_tab_field(r, c->status), "converged") != 0) return 0.0;
  double t = atof(exp_tab_field(r, c->time));
  return t > 0.0 && isfinite(t) ? t : 0.0;
}

int exp_tab_rep_logs(exp_row *rows, int nrows, const exp_tab_cols *c, double **out) {
  *out = NULL;
  if (c->rep < 0) return 0;
  int *idx = malloc((size_t)(nrows + 1) * sizeof *idx), n = 0, k = 0;
  *out = malloc((size_t)(nrows + 1) * sizeof **out);
  if (!idx || !*out) {
    free(idx);
    free(*out);
    *out = NULL;
    return -1;
  }
  for (int i = 0; i < nrows; i++)
    if (exp_tab_is_result_row(&rows[i], c)) idx[n++] = i;
  rctx x = { rows, c };
  qsort_r(idx, (size_t)n, sizeof *idx, cmp_cell_idx, &x);
  for (int i = 0; i < nrows; i++) {
    double tr = exp_tab_is_replicate_row(&rows[i], c) ? conv_time(&rows[i], c) : 0.0;
    int lo = 0, hi = n;
    while (tr > 0.0 && lo < hi) { /* the section's own row of the same cell */
      int mid = (lo + hi) / 2;
      if (cmp_cell(&rows[idx[mid]], &rows[i], c) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    double t0 = tr > 0.0 && lo < n && cmp_cell(&rows[idx[lo]], &rows[i], c) == 0
                    ? conv_time(&rows[idx[lo]], c)
                    : 0.0;
    if (t0 > 0.0) (*out)[k++] = log(tr / t0);
  }
  free(idx);
  return k;
}

/* The tie factor from the passes (exp_tie_of_logs at q = 0.9) and at the
 * median, and the cells it rests on; NaN, NaN, 0 without replicates. */
static void rep_noise(exp_row *rows, int nrows, const exp_tab_cols *c, double *tie90, double *tie50,
                      int *cells) {
  double *dl = NULL;
  int n = exp_tab_rep_logs(rows, nrows, c, &dl);
  *cells = n > 0 ? n : 0;
  *tie90 = *tie50 = NAN;
  if (n > 0) {
    *tie90 = exp_tie_of_logs(dl, n, 0.9);
    *tie50 = exp(exp_quantile(dl, n, 0.5)) - 1.0; /* dl is |dl|, sorted */
  }
  free(dl);
}

/* pinned (every task on its worker's own CPU), serial (one worker, one task
 * at a time), unpinned (GNU parallel, Slurm), or mixed. */
static const char *placement_word(const exp_placement *pc) {
  int kinds = (pc->pinned > 0) + (pc->serial > 0) + (pc->unpinned > 0);
  if (kinds > 1) return "mixed";
  return pc->pinned ? "pinned" : pc->serial ? "serial" : "unpinned";
}

/* The tie as every table prints it (%g: six significant digits).  The tables
 * and paper/gen.py print the factor 1 + tie; from the unrounded tie and from
 * its printed value the two could round apart (0.1921354999: "within a
 * factor 1.19214" beside "tie_tolerance: 0.192135", whose 1 + tie prints
 * 1.19213), and the paper stated both.  Rounded here, once, every factor
 * printed is one value, and the ties decided are the ones stated. */
static double tie_as_printed(double tie) {
  char buf[32];
  if (!isfinite(tie)) return tie;
  snprintf(buf, sizeof buf, "%g", tie);
  return strtod(buf, NULL);
}

static double section_tie_unrounded(const exp_section *s, exp_row *rows, int nrows,
                                    const char **why) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  int used, cells;
  double noise = section_noise(rows, nrows, &c, &used), t90, t50;
  if (noise < -1.0) noise = NAN;
  rep_noise(rows, nrows, &c, &t90, &t50, &cells);
  if (s->tie < 0.0 && isfinite(t90)) {
    *why = "the noise between independent passes over the timed set: 90 % of the cells' "
           "pass-to-pass ratios are within it (NAME_timing.csv, replicate_tie)";
    return t90;
  }
  *why = s->tie >= 0.0 ? "set by the section's tie"
         : isfinite(noise)
             ? "the measured between-run noise: median (q3 - q1) / median (NAME_timing.csv)"
             : "no noise measured: the default 0.05";
  return exp_tie_of(s->tie, noise, 0.05);
}

double exp_section_tie(const exp_section *s, exp_row *rows, int nrows, const char **why) {
  return tie_as_printed(section_tie_unrounded(s, rows, nrows, why));
}

int exp_timing_write(const exp_section *s, const char *base, exp_row *rows, int nrows,
                     const exp_placement *pc, exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  int used;
  double noise = section_noise(rows, nrows, &c, &used);
  if (noise < -1.0) return -1;
  const char *why;
  double tie = exp_section_tie(s, rows, nrows, &why);
  FILE *f = exp_tab_open(set, base, "timing", "csv");
  if (!f) return -1;
  const char *how = placement_word(pc);
  fprintf(f, "# the timing protocol as run (experiments/README.md, \"Timing\"): workers: the "
             "distinct CPUs the section's tasks were pinned to (placement pinned: one worker per "
             "CPU, each on its own; serial: one worker, one task at a time); min_runs, min_time_s, "
             "max_time_s: the repetition rule; "
             "noise_rows: rows with two runs or more; noise: the median of their (q3 - q1) / "
             "median; tie: the winners' tie tolerance (tie_source); replicates: the passes over "
             "the timed set (the section's own and its replicate passes, run after every "
             "section in another order); replicate_cells: the (problem, solver, tol) timed "
             "converged in two passes; replicate_noise_median, replicate_tie: the ratio by which "
             "such two times differ in half and in 90 %% of them; speed_checks, slow_checks: "
             "the checks of the CPU's speed between blocks of timed runs and those that found "
             "it slow (a reference loop over 64 KB more than 3 %% slower than its fastest); "
             "runs_again: timed runs discarded for it and made again; runs_kept_slow: runs kept "
             "though slow, the spell having lasted over 1 s\n"
             "workers,placement,cpus,min_runs,min_time_s,max_time_s,noise_rows,noise,tie,"
             "tie_source,replicates,replicate_cells,replicate_noise_median,replicate_tie,"
             "speed_checks,slow_checks,runs_again,runs_kept_slow\n");
  fprintf(f, "%d,%s,", pc->serial && !pc->pinned && !pc->unpinned ? 1 : pc->cpus, how);
  exp_csv_put(f, pc->list);
  fprintf(f, ",%ld,%g,%g,%d,", s->min_runs, s->min_time, s->max_time, used);
  if (isfinite(noise))
    fprintf(f, "%g,", noise);
  else
    fprintf(f, ",");
  fprintf(f, "%g,", tie);
  double t90, t50;
  int cells;
  rep_noise(rows, nrows, &c, &t90, &t50, &cells);
  exp_csv_put(f, s->tie >= 0.0     ? "set"
                 : isfinite(t90)   ? "replicates"
                 : isfinite(noise) ? "noise"
                                   : "default");
  fprintf(f, ",%ld,%d,", s->replicates > 0 ? s->replicates : 1, cells);
  if (isfinite(t90))
    fprintf(f, "%g,%g,", t50, t90);
  else
    fprintf(f, ",,");
  fprintf(f, "%ld,%ld,%ld,%ld\n", pc->speed[0], pc->speed[1], pc->speed[2], pc->speed[3]);
  (void)why;
  return exp_outset_done(set, 0);
}

/* ---- timings ------------------------------------------------------------------------------- */

int exp_tab_write_timings(const exp_section *s, const char *base, exp_row *rows, int nrows,
                          exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  FILE *f, *t;
  if (exp_tab_open_pair(set, base, "timings", &f, &t)) return -1;
  fprintf(f, "# over the solved problems of each class, tolerance and solver (exp_tab_row_solved: "
             "a row whose own verdict disagrees is not solved): time_s (the median "
             "of a problem's runs) summarised; spread = (q3 - q1) / median of a problem's runs\n"
             "class,tol,solver,solved,time_median_s,time_gmean_s,spread_median,runs_min,"
             "runs_median\n");
  static const char *const head[] = { "class",  "tol",        "solver",
                                      "solved", "median (s)", "geo.\\ mean (s)",
                                      "spread", "runs (min)", "runs (median)" };
  fprintf(t, "%% over the solved problems; spread: median of (q3 - q1) / median of a problem's "
             "runs\n\\begin{tabular}{lllrrrrrr}\n\\toprule\n");
  for (int k = 0; k < 9; k++) fprintf(t, "%s%s", k ? " & " : "", head[k]);
  fprintf(t, " \\\\\n\\midrule\n");
  exp_tab_group *g = calloc((size_t)(nrows + 1), sizeof *g);
  double *tm = malloc((size_t)(nrows + 1) * sizeof *tm),
         *sp = malloc((size_t)(nrows + 1) * sizeof *sp);
  double *ru = malloc((size_t)(nrows + 1) * sizeof *ru);
  int ng = 0, rc = (!g || !tm || !sp || !ru) ? -1 : 0;
  for (int k = 0; rc == 0 && k < nrows; k++)
    if (exp_tab_is_result_row(&rows[k], &c) && rows[k].nf > c.cls) {
      char *key[3] = { rows[k].f[c.cls], c.tol >= 0 ? rows[k].f[c.tol] : (char *)"",
                       rows[k].f[c.solver] };
      exp_tab_find_group(g, &ng, key, 3);
    }
  for (int q = 0; rc == 0 && q < ng; q++) {
    int m = 0;
    double lsum = 0.0;
    for (int k = 0; k < nrows; k++) {
      exp_row *r = &rows[k];
      if (!exp_tab_is_result_row(r, &c) || r->nf <= c.cls ||
          strcmp(r->f[c.cls], g[q].key[0]) != 0 ||
          strcmp(exp_tab_field(r, c.tol), g[q].key[1]) != 0 ||
          strcmp(r->f[c.solver], g[q].key[2]) != 0 ||
          !exp_tab_row_solved(r, &c) || !exp_tab_field(r, c.time)[0])
        continue;
      double med = atof(exp_tab_field(r, c.time));
      tm[m] = med;
      sp[m] = med > 0 ? (atof(exp_tab_field(r, c.q3)) - atof(exp_tab_field(r, c.q1))) / med : NAN;
      ru[m] = atof(exp_tab_field(r, c.runs));
      lsum += log(fmax(med, 1e-12));
      m++;
    }
    double tmed = NAN, gmean = NAN, smed = NAN, rmin = NAN, rmed = NAN;
    if (m > 0) {
      qsort(tm, (size_t)m, sizeof *tm, exp_cmp_double);
      qsort(sp, (size_t)m, sizeof *sp, exp_cmp_double);
      qsort(ru, (size_t)m, sizeof *ru, exp_cmp_double);
      tmed = exp_quantile(tm, m, 0.5);
      gmean = exp(lsum / m);
      smed = exp_quantile(sp, m, 0.5);
      rmin = ru[0];
      rmed = exp_quantile(ru, m, 0.5);
    }
    fprintf(f, "%s,%s,%s,%d,%.6e,%.6e,%.4f,%.0f,%.1f\n", g[q].key[0], g[q].key[1], g[q].key[2], m,
            tmed, gmean, smed, rmin, rmed);
    exp_tab_cell(t, 1, g[q].key[0], 0);
    exp_tab_cell(t, 0, g[q].key[1], 0);
    exp_tab_cell(t, 0, g[q].key[2], 1);
    fprintf(t, " & %d", m);
    exp_tab_num(t, tmed, "%.3g");
    exp_tab_num(t, gmean, "%.3g");
    exp_tab_num(t, smed, "%.3f");
    exp_tab_num(t, rmin, "%.0f");
    exp_tab_num(t, rmed, "%.0f");
    fprintf(t, " \\\\\n");
  }
  exp_tab_end(t);
  free(g);
  free(tm);
  free(sp);
  free(ru);
  return exp_outset_done(set, rc);
}
