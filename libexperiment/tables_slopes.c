/* tables_slopes.c -- the fits of a section (experiments/README.md,
 * "Tables"): log t = a + s log n per (family, solver) of a scaling section,
 * and log step time on log contacts per (scene, settings, solver) of a
 * scenes section, each slope with its 95 % interval (exp_fit_line_ci),
 * as the second CSV (NAME_slopes.csv) and as a booktabs table.
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- slopes -------------------------------------------------------------------------------- */

int exp_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows) {
  exp_tab_cols c = exp_tab_cols_of(EXP_SCALING);
  double *lx = malloc((size_t)(nrows + 1) * sizeof *lx),
         *ly = malloc((size_t)(nrows + 1) * sizeof *ly);
  if (!lx || !ly) {
    free(lx);
    free(ly);
    return -1;
  }
  if (tex) {
    static const char *const head[] = { "family", "class",     "solver",
                                        "points", "slope $s$", "95\\,\\% interval",
                                        "$R^2$" };
    fprintf(tex, "%% least squares of log t = a + s log n over the converged points\n"
                 "\\begin{tabular}{lllrrrr}\n\\toprule\n");
    for (int k = 0; k < 7; k++) fprintf(tex, "%s%s", k ? " & " : "", head[k]);
    fprintf(tex, " \\\\\n\\midrule\n");
  }
  for (int a = 0; a < nrows; a++) {
    exp_row *ra = &rows[a];
    if (ra->nf <= c.cls) continue;
    int first = 1;
    for (int b = 0; b < a && first; b++)
      first = !(strcmp(rows[b].f[c.family], ra->f[c.family]) == 0 &&
                strcmp(rows[b].f[c.solver], ra->f[c.solver]) == 0);
    if (!first) continue;
    int k = 0;
    for (int b = a; b < nrows; b++)
      if (strcmp(rows[b].f[c.family], ra->f[c.family]) == 0 &&
          strcmp(rows[b].f[c.solver], ra->f[c.solver]) == 0 &&
          strcmp(exp_tab_field(&rows[b], c.status), "converged") == 0 &&
          atof(exp_tab_field(&rows[b], c.time)) > 0) {
        lx[k] = log(atof(rows[b].f[c.n]));
        ly[k] = log(atof(rows[b].f[c.time]));
        k++;
      }
    double A, B, r2, lo, hi;
    int ok = exp_fit_line_ci(lx, ly, k, &A, &B, &r2, &lo, &hi) == 0;
    if (g) {
      fprintf(g, "%s,%s,%d", ra->f[c.family], ra->f[c.solver], k);
      if (ok)
        fprintf(g, ",%.6e,%.6e,%.6e,%.6e,%.6e,%s\n", B, A, r2, lo, hi, ra->f[c.cls]);
      else
        fprintf(g, ",,,,,,%s\n", ra->f[c.cls]);
    }
    if (tex) {
      exp_tab_cell(tex, 1, ra->f[c.family], 0);
      exp_tab_cell(tex, 0, ra->f[c.cls], 0);
      exp_tab_cell(tex, 0, ra->f[c.solver], 1);
      fprintf(tex, " & %d", k);
      if (ok) {
        fprintf(tex, " & %.2f", B);
        if (isfinite(lo))
          fprintf(tex, " & [%.2f, %.2f]", lo, hi);
        else
          fprintf(tex, " & --");
        fprintf(tex, " & %.3f \\\\\n", r2);
      } else {
        fprintf(tex, " & -- & -- & -- \\\\\n");
      }
    }
  }
  if (tex) exp_tab_end(tex);
  free(lx);
  free(ly);
  return 0;
}

/* ---- scenes: step time against contacts ------------------------------------------------------ */

/* The points of the group of row a (same scene, settings and solver, run
 * completed with contacts): log contacts into lx, log median step time
 * into ly, the time per contact into tpc; their count. */
static int scene_points(exp_row *rows, int nrows, int a, const int *col, double *lx, double *ly,
                        double *tpc) {
  int k = 0;
  for (int b = a; b < nrows; b++) {
    exp_row *r = &rows[b];
    if (r->nf <= col[5] || strcmp(r->f[col[0]], rows[a].f[col[0]]) != 0 ||
        strcmp(r->f[col[1]], rows[a].f[col[1]]) != 0 ||
        strcmp(r->f[col[2]], rows[a].f[col[2]]) != 0 || strcmp(r->f[col[5]], "ok") != 0)
      continue;
    double c = atof(r->f[col[3]]), t = atof(r->f[col[4]]);
    if (!(c > 0) || !(t > 0)) continue;
    lx[k] = log(c);
    ly[k] = log(t);
    tpc[k++] = exp_time_per_contact(t, c);
  }
  return k;
}

int exp_scene_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows) {
  int col[6] = { exp_col(EXP_SCENES, "scene"),
                 exp_col(EXP_SCENES, "settings"),
                 exp_col(EXP_SCENES, "solver"),
                 exp_col(EXP_SCENES, "contacts_mean_timed"),
                 exp_col(EXP_SCENES, "time_step_median_s"),
                 exp_col(EXP_SCENES, "status") };
  double *buf = malloc(3 * (size_t)(nrows + 1) * sizeof *buf);
  if (!buf) return -1;
  double *lx = buf, *ly = buf + nrows + 1, *tpc = buf + 2 * (nrows + 1);
  if (tex)
    fprintf(tex, "%% least squares of log t = a + s log c (t the median step time, c the "
                 "contacts per step) over the completed runs\n\\begin{tabular}{lllrrrrr}\n"
                 "\\toprule\nscene & settings & solver & points & slope $s$ & 95\\,\\%% "
                 "interval & $R^2$ & $\\mu$s/contact \\\\\n\\midrule\n");
  for (int a = 0; a < nrows; a++) {
    exp_row *ra = &rows[a];
    if (ra->nf <= col[5]) continue;
    int first = 1;
    for (int b = 0; b < a && first; b++)
      first = !(strcmp(rows[b].f[col[0]], ra->f[col[0]]) == 0 &&
                strcmp(rows[b].f[col[1]], ra->f[col[1]]) == 0 &&
                strcmp(rows[b].f[col[2]], ra->f[col[2]]) == 0);
    if (!first) continue;
    int k = scene_points(rows, nrows, a, col, lx, ly, tpc);
    double A, B, r2, lo, hi, med = NAN;
    int ok = exp_fit_line_ci(lx, ly, k, &A, &B, &r2, &lo, &hi) == 0;
    if (k > 0) {
      qsort(tpc, (size_t)k, sizeof *tpc, exp_cmp_double);
      med = exp_quantile(tpc, k, 0.5);
    }
    if (g) {
      fprintf(g, "%s,%s,%s,%d", ra->f[col[0]], ra->f[col[1]], ra->f[col[2]], k);
      if (ok)
        fprintf(g, ",%.6e,%.6e,%.6e,%.6e,%.6e", B, A, r2, lo, hi);
      else
        fprintf(g, ",,,,,");
      if (k > 0)
        fprintf(g, ",%.6e\n", med);
      else
        fprintf(g, ",\n");
    }
    if (tex) {
      exp_tab_cell(tex, 1, ra->f[col[0]], 0);
      exp_tab_cell(tex, 0, ra->f[col[1]], 0);
      exp_tab_cell(tex, 0, ra->f[col[2]], 1);
      fprintf(tex, " & %d", k);
      if (ok && isfinite(lo))
        fprintf(tex, " & %.2f & [%.2f, %.2f] & %.3f", B, lo, hi, r2);
      else if (ok)
        fprintf(tex, " & %.2f & -- & %.3f", B, r2);
      else
        fprintf(tex, " & -- & -- & --");
      if (k > 0)
        fprintf(tex, " & %.3g \\\\\n", med * 1e6);
      else
        fprintf(tex, " & -- \\\\\n");
    }
  }
  if (tex) exp_tab_end(tex);
  free(buf);
  return 0;
}
