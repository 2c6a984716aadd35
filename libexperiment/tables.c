/* tables.c -- the summaries of a section, each as a CSV and as a
 * booktabs LaTeX table (a bare tabular, every cell escaped by
 * exp_tex_escape) beside the section's CSV (experiments/README.md,
 * "Tables"):
 *
 *   NAME_profile.csv     Dolan-More curves per class and tolerance (profile)
 *   NAME_winners.*       per class, tolerance, solver: problems, solved, the
 *                        share solved, fastest alone, fastest tied (within
 *                        the tie tolerance), rho(2), rho(10), and the runs
 *                        that were another solver's algorithm (profile)
 *   NAME_leaders.csv     per class and tolerance, from the winners: the
 *                        fastest solver, the ties, who solves the most
 *                        (built-in and external), who solves under half
 *                        (exp_profile_leaders; profile)
 *   NAME_virtual_best.*  per class, tolerance, solver, then all classes:
 *                        of the problems some other solver solves, those
 *                        it accepts and solves too (exp_profile_vbest;
 *                        profile)
 *   NAME_failures.*      per class, tolerance, solver: the count of each
 *                        status (problem kinds)
 *   NAME_coverage.*      per class, solver: problems accepted and refused,
 *                        with the refusal reasons and their counts
 *   NAME_timings.*       per class, tolerance, solver: over the solved
 *                        problems, the median and geometric mean of time_s,
 *                        the median relative spread (q3 - q1) / median, and
 *                        the least and median number of runs (profile,
 *                        scaling)
 *   NAME_slopes.csv/.tex the fits of log t = a + s log n with the slope's
 *                        95 % interval (scaling)
 *   NAME_steps.*         per scene, friction, integrator, solver: steps run,
 *                        how the run ended, the count of each step status
 *                        and what the world applied (drift, accuracy)
 *   NAME_tex.csv         every text of the section that is not a number
 *                        (the CSV preamble's values, the rows' fields, the
 *                        coverage reasons) and its LaTeX form: what a
 *                        document (paper/gen.py) quotes, escaped once, here
 * The profile curves and winners take part only the solvers that accepted
 * at least one problem of the class: a refusal is coverage, not a failure.
 */
#define _GNU_SOURCE

#include "exp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers --------------------------------------------------------------------- */

static int index_of(char **names, int n, const char *s) {
  for (int k = 0; k < n; k++)
    if (strcmp(names[k], s) == 0) return k;
  return -1;
}

static int add_name(char **names, int *n, char *s) {
  int k = index_of(names, *n, s);
  if (k < 0) {
    names[*n] = s;
    k = (*n)++;
  }
  return k;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* BASE_NAME.EXT, one file of set; its stream, or NULL after the message. */
static FILE *open_table(exp_outset *set, const char *base, const char *name, const char *ext) {
  char path[EXP_PATH_MAX + 128];
  snprintf(path, sizeof path, "%s_%s.%s", base, name, ext);
  return exp_outset_open(set, path);
}

/* BASE_NAME.csv into *f and BASE_NAME.tex into *t: 0, or -1 after the
 * message (then exp_outset_done drops what was opened). */
static int open_pair(exp_outset *set, const char *base, const char *name, FILE **f, FILE **t) {
  *f = open_table(set, base, name, "csv");
  *t = *f ? open_table(set, base, name, "tex") : NULL;
  return *t ? 0 : exp_outset_done(set, -1);
}

/* One LaTeX cell, escaped, with the separator before it. */
static void tcell(FILE *t, int first, const char *s, int tt) {
  char esc[1024];
  exp_tex_escape(s, esc, sizeof esc);
  fprintf(t, "%s%s%s%s", first ? "" : " & ", tt ? "\\texttt{" : "", esc, tt ? "}" : "");
}

static void tnum(FILE *t, double v, const char *fmt) {
  if (isfinite(v)) {
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    fprintf(t, " & %s", b);
  } else {
    fprintf(t, " & --");
  }
}

static void tbegin(FILE *t, const char *spec, const char *const *head, int nh, const char *note) {
  fprintf(t, "%% %s\n\\begin{tabular}{%s}\n\\toprule\n", note, spec);
  for (int k = 0; k < nh; k++) tcell(t, k == 0, head[k], 0);
  fprintf(t, " \\\\\n\\midrule\n");
}

static void tend(FILE *t) { fprintf(t, "\\bottomrule\n\\end{tabular}\n"); }

/* Column indices of a section's CSV. */
typedef struct cols {
  int problem, solver, tol, status, time, q1, q3, runs, cls, method, note, final, family, n;
  int iterations, pivots, res_rel, res_nat, res_scaled, x_digest;
} cols;

static cols cols_of(exp_kind k) {
  cols c = { exp_col(k, "problem"),    exp_col(k, "solver"),  exp_col(k, "tol"),
             exp_col(k, "status"),     exp_col(k, "time_s"),  exp_col(k, "time_q1_s"),
             exp_col(k, "time_q3_s"),  exp_col(k, "repeats"), exp_col(k, "class"),
             exp_col(k, "method"),     exp_col(k, "note"),    exp_col(k, "final"),
             exp_col(k, "family"),     exp_col(k, "n"),       exp_col(k, "iterations"),
             exp_col(k, "pivots"),     exp_col(k, "res_rel"), exp_col(k, "res_nat_inf"),
             exp_col(k, "res_scaled"), exp_col(k, "x_digest") };
  return c;
}

static const char *fld(const exp_row *r, int c) { return (c >= 0 && c < r->nf) ? r->f[c] : ""; }

/* The rows that stand for one solve: every row but convergence history rows. */
static int is_result_row(const exp_row *r, const cols *c) {
  return c->final < 0 || strcmp(fld(r, c->final), "1") == 0;
}

/* ---- the profile matrix of one (class, tol) ----------------------------------------------- */

typedef struct pmat {
  char **probs, **solv;
  int np, ns;
  double *t, *r; /* time if converged else inf; ratios */
  int *alias;
  unsigned char *refused; /* the solver does not take the problem */
  char (*key)[160];       /* the run's trace (run_key) */
} pmat;

static void pmat_free(pmat *m) {
  free(m->probs);
  free(m->solv);
  free(m->t);
  free(m->r);
  free(m->alias);
  free(m->refused);
  free(m->key);
  memset(m, 0, sizeof *m);
}

/* The trace of a run, what identical algorithms share (exp_profile_same):
 * status, iterations, pivots and the digest of x, or without one the
 * residuals as printed; "" for a run without numbers or without work (0
 * iterations and 0 pivots: every solver returns the start there). */
static void run_key(const exp_row *r, const cols *c, char *out, size_t len) {
  const char *it = fld(r, c->iterations), *pv = fld(r, c->pivots), *xd = fld(r, c->x_digest);
  out[0] = '\0';
  if (!it[0] || !pv[0] || (atol(it) == 0 && atol(pv) == 0)) return;
  if (xd[0])
    snprintf(out, len, "%s %s %s x%s", fld(r, c->status), it, pv, xd);
  else
    snprintf(out, len, "%s %s %s r%s %s %s", fld(r, c->status), it, pv, fld(r, c->res_rel),
             fld(r, c->res_nat), fld(r, c->res_scaled));
}

/* The identical algorithms of m from its traces, then its ratios. */
static int pmat_alias(pmat *m) {
  size_t pn = (size_t)m->np * (size_t)m->ns;
  const char **keys = malloc((pn > 0 ? pn : 1) * sizeof *keys);
  if (!keys) return -1;
  for (size_t q = 0; q < pn; q++) keys[q] = m->key[q];
  exp_profile_same(m->np, m->ns, keys, m->alias);
  free(keys);
  exp_profile_ratios_alias(m->np, m->ns, m->t, m->alias, m->r);
  return 0;
}

static int pmat_build(exp_row *rows, int nrows, const cols *c, const char *cls, const char *tol,
                      pmat *m) {
  memset(m, 0, sizeof *m);
  m->probs = malloc((size_t)(nrows + 1) * sizeof *m->probs);
  m->solv = malloc((size_t)(nrows + 1) * sizeof *m->solv);
  if (!m->probs || !m->solv) return -1;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (strcmp(fld(r, c->cls), cls) != 0 || strcmp(fld(r, c->tol), tol) != 0 ||
        !is_result_row(r, c))
      continue;
    add_name(m->probs, &m->np, r->f[c->problem]);
    if (strcmp(fld(r, c->status), "refused") != 0) add_name(m->solv, &m->ns, r->f[c->solver]);
  }
  size_t pn = (size_t)(m->np > 0 ? m->np : 1) * (size_t)(m->ns > 0 ? m->ns : 1);
  m->t = malloc(pn * sizeof *m->t);
  m->r = malloc(pn * sizeof *m->r);
  m->alias = malloc(pn * sizeof *m->alias);
  m->refused = calloc(pn, sizeof *m->refused);
  m->key = calloc(pn, sizeof *m->key);
  if (!m->t || !m->r || !m->alias || !m->refused || !m->key) return -1;
  for (size_t q = 0; q < pn; q++) {
    m->t[q] = INFINITY;
    m->alias[q] = -1;
  }
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (strcmp(fld(r, c->cls), cls) != 0 || strcmp(fld(r, c->tol), tol) != 0 ||
        !is_result_row(r, c))
      continue;
    int p = index_of(m->probs, m->np, r->f[c->problem]);
    int s = index_of(m->solv, m->ns, r->f[c->solver]);
    if (p < 0 || s < 0) continue;
    size_t q = (size_t)p * m->ns + s;
    if (strcmp(fld(r, c->status), "converged") == 0 && fld(r, c->time)[0])
      m->t[q] = fmax(atof(fld(r, c->time)), 1e-9);
    m->refused[q] = strcmp(fld(r, c->status), "refused") == 0;
    run_key(r, c, m->key[q], sizeof m->key[q]);
    int a = index_of(m->solv, m->ns, fld(r, c->method));
    if (a >= 0 && a != s) m->alias[q] = a;
  }
  return pmat_alias(m);
}

/* The classes and tolerances present, in order. */
static void classes_tols(exp_row *rows, int nrows, const cols *c, char **cl, int *ncl, char **tl,
                         int *ntl) {
  *ncl = *ntl = 0;
  for (int k = 0; k < nrows; k++) {
    if (!is_result_row(&rows[k], c)) continue;
    if (c->cls >= 0 && rows[k].nf > c->cls) add_name(cl, ncl, rows[k].f[c->cls]);
    if (c->tol >= 0 && rows[k].nf > c->tol) add_name(tl, ntl, rows[k].f[c->tol]);
  }
}

int exp_profile_write(FILE *g, const exp_section *s, exp_row *rows, int nrows) {
  (void)s;
  cols c = cols_of(EXP_PROFILE);
  char *cl[EXP_CLASS_COUNT + 8], *tl[EXP_MAX_TOLS + 8];
  int ncl, ntl;
  classes_tols(rows, nrows, &c, cl, &ncl, tl, &ntl);
  for (int a = 0; a < ncl; a++)
    for (int b = 0; b < ntl; b++) {
      pmat m;
      if (pmat_build(rows, nrows, &c, cl[a], tl[b], &m)) {
        pmat_free(&m);
        return -1;
      }
      double rmax = 1.0, *taus = malloc((size_t)(m.np + 1) * sizeof *taus);
      for (size_t q = 0; q < (size_t)m.np * m.ns; q++)
        if (isfinite(m.r[q]) && m.r[q] > rmax) rmax = m.r[q];
      rmax *= 2.0; /* the curves end right of the last jump */
      for (int sv = 0; taus && sv < m.ns; sv++) {
        int nb = exp_profile_breaks(m.np, m.ns, m.r, sv, taus);
        int acc = exp_profile_accepted(m.np, m.ns, m.refused, sv);
        double share =
            nb > 0 ? exp_profile_rho_of(m.np, m.ns, m.r, m.refused, sv, taus[nb - 1]) : 0.0;
        double prev = 0.0;
        for (int k = -1; k <= nb; k++) {
          double tau = k < 0 ? 1.0 : k < nb ? taus[k] : rmax;
          if ((k >= 0 && k < nb && tau == 1.0) || (k >= 0 && tau < prev)) continue;
          prev = tau;
          /* the names as CSV fields (a solver of Python's lcplab.profile may be any text) */
          exp_csv_put(g, tl[b]);
          fputc(',', g);
          exp_csv_put(g, m.solv[sv]);
          fprintf(g, ",%.6e,%.6e,%.6e,%.6e,%d,", tau, log2(tau),
                  exp_profile_rho_of(m.np, m.ns, m.r, m.refused, sv, tau), share, acc);
          exp_csv_put(g, cl[a]);
          fprintf(g, ",%d\n", m.np - acc);
        }
      }
      free(taus);
      pmat_free(&m);
    }
  return 0;
}

/* ---- between-run noise and the tie ---------------------------------------------------------- */

/* The section's between-run noise: the median over its timed rows (two
 * runs or more) of (q3 - q1) / median (exp_rel_spread, exp_noise_median);
 * *used: how many rows had one.  NaN when none; -2 out of memory. */
static double section_noise(exp_row *rows, int nrows, const cols *c, int *used) {
  double *rel = malloc((size_t)(nrows + 1) * sizeof *rel);
  *used = 0;
  if (!rel) return -2.0;
  int k = 0;
  for (int i = 0; i < nrows; i++) {
    exp_row *r = &rows[i];
    if (!is_result_row(r, c) || !fld(r, c->time)[0] || !fld(r, c->q1)[0]) continue;
    rel[k] = exp_rel_spread(atof(fld(r, c->q1)), atof(fld(r, c->time)), atof(fld(r, c->q3)),
                            atoi(fld(r, c->runs)));
    *used += isfinite(rel[k]);
    k++;
  }
  double v = exp_noise_median(rel, k);
  free(rel);
  return v;
}

/* pinned (every task on its worker's own CPU), serial (one worker, one task
 * at a time), unpinned (GNU parallel, Slurm), or mixed. */
static const char *placement_word(const exp_placement *pc) {
  int kinds = (pc->pinned > 0) + (pc->serial > 0) + (pc->unpinned > 0);
  if (kinds > 1) return "mixed";
  return pc->pinned ? "pinned" : pc->serial ? "serial" : "unpinned";
}

double exp_section_tie(const exp_section *s, exp_row *rows, int nrows, const char **why) {
  cols c = cols_of(s->kind);
  int used;
  double noise = section_noise(rows, nrows, &c, &used);
  if (noise < -1.0) noise = NAN;
  *why = s->tie >= 0.0 ? "set by the section's tie"
         : isfinite(noise)
             ? "the measured between-run noise: median (q3 - q1) / median (NAME_timing.csv)"
             : "no noise measured: the default 0.05";
  return exp_tie_of(s->tie, noise, 0.05);
}

int exp_timing_write(const exp_section *s, const char *base, exp_row *rows, int nrows,
                     const exp_placement *pc, exp_outset *set) {
  cols c = cols_of(s->kind);
  int used;
  double noise = section_noise(rows, nrows, &c, &used);
  if (noise < -1.0) return -1;
  const char *why;
  double tie = exp_section_tie(s, rows, nrows, &why);
  FILE *f = open_table(set, base, "timing", "csv");
  if (!f) return -1;
  const char *how = placement_word(pc);
  fprintf(f, "# the timing protocol as run (experiments/README.md, \"Timing\"): workers: the "
             "distinct CPUs the section's tasks were pinned to (placement pinned: one worker per "
             "CPU, each on its own; serial: one worker, one task at a time); min_runs, min_time_s, "
             "max_time_s: the repetition rule; "
             "noise_rows: rows with two runs or more; noise: the median of their (q3 - q1) / "
             "median; tie: the winners' tie tolerance (tie_source)\n"
             "workers,placement,cpus,min_runs,min_time_s,max_time_s,noise_rows,noise,tie,"
             "tie_source\n");
  fprintf(f, "%d,%s,", pc->serial && !pc->pinned && !pc->unpinned ? 1 : pc->cpus, how);
  exp_csv_put(f, pc->list);
  fprintf(f, ",%ld,%g,%g,%d,", s->min_runs, s->min_time, s->max_time, used);
  if (isfinite(noise))
    fprintf(f, "%g,", noise);
  else
    fprintf(f, ",");
  fprintf(f, "%g,", tie);
  exp_csv_put(f, s->tie >= 0.0 ? "set" : isfinite(noise) ? "noise" : "default");
  fputc('\n', f);
  (void)why;
  return exp_outset_done(set, 0);
}

/* ---- winners ------------------------------------------------------------------------------ */

/* A space-separated list of the solvers sv with keep(sv) into out. */
static void name_list(char **solv, int ns, const int *keep, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int sv = 0; sv < ns && used < len; sv++)
    if (keep[sv]) {
      int w = snprintf(out + used, len - used, "%s%s", used ? " " : "", solv[sv]);
      if (w < 0) break;
      used += (size_t)w;
    }
}

/* One row of NAME_leaders.csv: the leaders (exp_profile_leaders) of one
 * class and tolerance, per-solver counts in wins, ties, solved, counted
 * (not another's algorithm on every problem it takes), r10 (rho(10)).  0, or -1 out of memory. */
static int leaders_row(FILE *L, const char *cls, const char *tol, const pmat *m, const int *wins,
                       const int *ties, const int *solved, const int *counted, const double *r10) {
  int *ext = calloc((size_t)m->ns + 1, sizeof *ext),
      *keep = calloc((size_t)m->ns + 1, sizeof *keep);
  if (!ext || !keep) {
    free(ext), free(keep);
    return -1;
  }
  for (int sv = 0; sv < m->ns; sv++) ext[sv] = slv_solver_find(m->solv[sv]) == NULL;
  exp_leaders l;
  exp_profile_leaders(m->ns, wins, ties, solved, counted, ext, &l);
  char most[2048], under[2048];
  for (int sv = 0; sv < m->ns; sv++) keep[sv] = solved[sv] == l.most_solved;
  name_list(m->solv, m->ns, keep, most, sizeof most);
  for (int sv = 0; sv < m->ns; sv++)
    keep[sv] = !ext[sv] && 2 * solved[sv] < exp_profile_accepted(m->np, m->ns, m->refused, sv);
  name_list(m->solv, m->ns, keep, under, sizeof under);
  int f = l.fastest, b = l.best_builtin, e = l.best_external;
  fprintf(L, "%s,%s,%d,%s,%d,%d,%d,", cls, tol, m->np, f >= 0 ? m->solv[f] : "",
          f >= 0 ? wins[f] : 0, f >= 0 ? ties[f] : 0, l.ties);
  exp_csv_put(L, most);
  fprintf(L, ",%d,%s,%d,%.4f,%s,", l.most_solved, b >= 0 ? m->solv[b] : "", b >= 0 ? solved[b] : 0,
          b >= 0 ? r10[b] : 0.0, e >= 0 ? m->solv[e] : "");
  if (e >= 0)
    fprintf(L, "%d,%.4f,", solved[e], r10[e]);
  else
    fprintf(L, ",,");
  exp_csv_put(L, under);
  fputc('\n', L);
  free(ext);
  free(keep);
  return 0;
}

static int write_winners(const exp_section *s, const char *base, exp_row *rows, int nrows,
                         exp_outset *set) {
  cols c = cols_of(EXP_PROFILE);
  FILE *f, *t, *L;
  const char *tie_why;
  double tie = exp_section_tie(s, rows, nrows, &tie_why);
  if (open_pair(set, base, "winners", &f, &t)) return -1;
  if (!(L = open_table(set, base, "leaders", "csv"))) return exp_outset_done(set, -1);
  fprintf(f,
          "# per class and tolerance; problems: those the solver accepts (refused: those it "
          "does not take, outside its share and its profile); fastest: alone within a factor "
          "%g of the best; tied: with others; same_as: runs of another solver's algorithm "
          "(the same trace: status, iterations, pivots, x), not counted\n"
          "# tie_tolerance: %g (%s)\n"
          "class,tol,solver,problems,solved,solved_share,fastest,tied,rho_2,rho_10,same_as,"
          "refused\n",
          1.0 + tie, tie, tie_why);
  fprintf(L,
          "# per class and tolerance, from %s_winners.csv (exp_profile_leaders): the fastest "
          "(most fastest alone, then most solved; a solver that ran another's algorithm on every "
          "problem it takes left out), "
          "the ties of those counted, the solvers that solve the most, the built-in and the "
          "external solver that solve the most, the built-in solvers under half solved\n"
          "class,tol,problems,fastest,fastest_alone,fastest_tied,ties,most_solved,"
          "solved_most,best_builtin,best_builtin_solved,best_builtin_rho_10,best_external,"
          "best_external_solved,best_external_rho_10,under_half\n",
          exp_basename(base));
  static const char *const head[] = { "class",   "tol",  "solver",     "problems",   "solved",
                                      "fastest", "tied", "$\\rho(2)$", "$\\rho(10)$" };
  fprintf(t,
          "%% fastest: alone within a factor %g of the best time; tied: within it with "
          "others; problems: those the solver accepts\n\\begin{tabular}{lllrrrrrr}\n"
          "\\toprule\n",
          1.0 + tie);
  for (int k = 0; k < 9; k++) fprintf(t, "%s%s", k ? " & " : "", head[k]);
  fprintf(t, " \\\\\n\\midrule\n");
  char *cl[EXP_CLASS_COUNT + 8], *tl[EXP_MAX_TOLS + 8];
  int ncl, ntl, rc = 0;
  classes_tols(rows, nrows, &c, cl, &ncl, tl, &ntl);
  for (int a = 0; a < ncl && rc == 0; a++)
    for (int b = 0; b < ntl && rc == 0; b++) {
      pmat m;
      int *wins = NULL, *ties = NULL, *solv_n = NULL, *counted = NULL;
      double *r10s = NULL;
      if (pmat_build(rows, nrows, &c, cl[a], tl[b], &m) ||
          !(wins = calloc((size_t)m.ns + 1, sizeof *wins)) ||
          !(ties = calloc((size_t)m.ns + 1, sizeof *ties)) ||
          !(solv_n = calloc((size_t)m.ns + 1, sizeof *solv_n)) ||
          !(counted = calloc((size_t)m.ns + 1, sizeof *counted)) ||
          !(r10s = calloc((size_t)m.ns + 1, sizeof *r10s))) {
        rc = -1;
      } else {
        exp_profile_winners(m.np, m.ns, m.r, m.alias, tie, wins, ties);
        for (int sv = 0; sv < m.ns; sv++) {
          int solved = 0, same = 0;
          char same_as[128] = "";
          for (int p = 0; p < m.np; p++) {
            solved += isfinite(m.t[(size_t)p * m.ns + sv]);
            int al = m.alias[(size_t)p * m.ns + sv];
            if (al >= 0) {
              same++;
              snprintf(same_as, sizeof same_as, "%s", m.solv[al]);
            }
          }
          char same_txt[160] = "";
          if (same) snprintf(same_txt, sizeof same_txt, "%s on %d", same_as, same);
          double r2 = exp_profile_rho_of(m.np, m.ns, m.r, m.refused, sv, 2.0);
          double r10 = exp_profile_rho_of(m.np, m.ns, m.r, m.refused, sv, 10.0);
          int acc = exp_profile_accepted(m.np, m.ns, m.refused, sv);
          fprintf(f, "%s,%s,%s,%d,%d,%.4f,%d,%d,%.4f,%.4f,%s,%d\n", cl[a], tl[b], m.solv[sv], acc,
                  solved, acc ? (double)solved / acc : 0.0, wins[sv], ties[sv], r2, r10, same_txt,
                  m.np - acc);
          tcell(t, 1, cl[a], 0);
          tcell(t, 0, tl[b], 0);
          char sname[256];
          snprintf(sname, sizeof sname, "%s%s%s%s", m.solv[sv], same ? " (= " : "",
                   same ? same_txt : "", same ? ")" : "");
          tcell(t, 0, sname, 0);
          fprintf(t, " & %d & %d & %d & %d & %.2f & %.2f \\\\\n", acc, solved, wins[sv], ties[sv],
                  r2, r10);
          solv_n[sv] = solved;
          counted[sv] = same < acc; /* left out: another's algorithm on all it takes */
          r10s[sv] = r10;
        }
        rc = leaders_row(L, cl[a], tl[b], &m, wins, ties, solv_n, counted, r10s);
      }
      free(wins);
      free(ties);
      free(solv_n);
      free(counted);
      free(r10s);
      pmat_free(&m);
    }
  tend(t);
  return exp_outset_done(set, rc);
}

/* ---- failures ------------------------------------------------------------------------------ */

typedef struct group {
  char *key[4]; /* class, tol, solver (and more for scenes) */
  int count[EXP_NSTATUS];
  int n;
} group;

static group *find_group(group *g, int *ng, char **key, int nk) {
  for (int k = 0; k < *ng; k++) {
    int same = 1;
    for (int j = 0; j < nk && same; j++) same = strcmp(g[k].key[j], key[j]) == 0;
    if (same) return &g[k];
  }
  group *n = &g[(*ng)++];
  memset(n, 0, sizeof *n);
  for (int j = 0; j < nk; j++) n->key[j] = key[j];
  return n;
}

static int write_failures(const exp_section *s, const char *base, exp_row *rows, int nrows,
                          exp_outset *set) {
  cols c = cols_of(s->kind);
  group *g = calloc((size_t)(nrows + 1), sizeof *g);
  if (!g) return -1;
  int ng = 0;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!is_result_row(r, &c) || r->nf <= c.cls) continue;
    char *key[3] = { r->f[c.cls], c.tol >= 0 ? r->f[c.tol] : (char *)"", r->f[c.solver] };
    group *e = find_group(g, &ng, key, 3);
    e->count[exp_status_column(fld(r, c.status))]++;
    e->n++;
  }
  int used[EXP_NSTATUS] = { 0 };
  for (int k = 0; k < ng; k++)
    for (int j = 0; j < EXP_NSTATUS; j++) used[j] |= g[k].count[j] > 0;
  used[0] = used[8] = 1; /* converged and refused always shown */
  FILE *f, *t;
  if (open_pair(set, base, "failures", &f, &t)) {
    free(g);
    return -1;
  }
  fprintf(f, "# status counts per class, tolerance and solver (refused: the solver does not "
             "take the problem; not a failure)\nclass,tol,solver,problems");
  char spec[64] = "lllr";
  size_t sl = strlen(spec);
  for (int j = 0; j < EXP_NSTATUS; j++) {
    fprintf(f, ",%s", exp_status_name(j));
    if (used[j] && sl + 2 < sizeof spec) spec[sl++] = 'r';
  }
  spec[sl] = '\0';
  fprintf(f, "\n");
  fprintf(t,
          "%% status counts per class, tolerance and solver; refused is coverage, not "
          "failure\n\\begin{tabular}{%s}\n\\toprule\nclass & tol & solver & problems",
          spec);
  for (int j = 0; j < EXP_NSTATUS; j++)
    if (used[j]) {
      char name[32];
      snprintf(name, sizeof name, "%s", exp_status_name(j));
      for (char *q = name; *q; q++)
        if (*q == '_') *q = ' ';
      fprintf(t, " & %s", name);
    }
  fprintf(t, " \\\\\n\\midrule\n");
  for (int k = 0; k < ng; k++) {
    fprintf(f, "%s,%s,%s,%d", g[k].key[0], g[k].key[1], g[k].key[2], g[k].n);
    tcell(t, 1, g[k].key[0], 0);
    tcell(t, 0, g[k].key[1], 0);
    tcell(t, 0, g[k].key[2], 1);
    fprintf(t, " & %d", g[k].n);
    for (int j = 0; j < EXP_NSTATUS; j++) {
      fprintf(f, ",%d", g[k].count[j]);
      if (used[j]) fprintf(t, " & %d", g[k].count[j]);
    }
    fprintf(f, "\n");
    fprintf(t, " \\\\\n");
  }
  tend(t);
  free(g);
  return exp_outset_done(set, 0);
}

/* ---- coverage ------------------------------------------------------------------------------ */

/* The classes and solvers of the coverage table, in order of appearance,
 * and the first tolerance (a problem counts once): 0, or -1 (no memory). */
typedef struct covset {
  char **cl, **sv, *first_tol;
  int ncl, nsv;
} covset;

static int coverage_names(exp_row *rows, int nrows, const cols *c, covset *cs) {
  memset(cs, 0, sizeof *cs);
  for (int k = 0; k < nrows && !cs->first_tol; k++)
    if (c->tol >= 0 && rows[k].nf > c->tol) cs->first_tol = rows[k].f[c->tol];
  cs->cl = malloc((size_t)(nrows + 1) * sizeof *cs->cl);
  cs->sv = malloc((size_t)(nrows + 1) * sizeof *cs->sv);
  if (!cs->cl || !cs->sv) return -1;
  for (int k = 0; k < nrows; k++)
    if (is_result_row(&rows[k], c) && rows[k].nf > c->cls) {
      add_name(cs->cl, &cs->ncl, rows[k].f[c->cls]);
      add_name(cs->sv, &cs->nsv, rows[k].f[c->solver]);
    }
  return 0;
}

static void covset_free(covset *cs) {
  free(cs->cl);
  free(cs->sv);
}

/* One (class, solver) of the coverage table: its problems n, accepted acc,
 * and the refusal reasons with their counts ("KEY (K); ..."). */
static void coverage_cell(exp_row *rows, int nrows, const cols *c, const char *first_tol,
                          const char *cls, const char *solver, int *n, int *acc, char *reasons,
                          size_t len) {
  char keys[16][160];
  int counts[16], nk = 0;
  *n = *acc = 0;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!is_result_row(r, c) || r->nf <= c->cls || strcmp(r->f[c->cls], cls) != 0 ||
        strcmp(r->f[c->solver], solver) != 0 ||
        (first_tol && strcmp(fld(r, c->tol), first_tol) != 0))
      continue;
    (*n)++;
    if (strcmp(fld(r, c->status), "refused") != 0) {
      (*acc)++;
      continue;
    }
    char key[160];
    exp_reason_key(solver, c->note >= 0 ? fld(r, c->note) : "", key, sizeof key);
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

static int write_coverage(const exp_section *s, const char *base, exp_row *rows, int nrows,
                          exp_outset *set) {
  cols c = cols_of(s->kind);
  FILE *f, *t;
  if (open_pair(set, base, "coverage", &f, &t)) return -1;
  fprintf(f, "# per class and solver: problems accepted and refused, with the reasons\n"
             "class,solver,problems,accepted,refused,reasons\n");
  static const char *const head[] = { "class", "solver", "problems", "accepted",
                                      "refused: reason" };
  tbegin(t, "llrrp{0.45\\linewidth}", head, 5,
         "coverage: a refusal is the solver declining a problem it cannot take");
  covset cs;
  int rc = coverage_names(rows, nrows, &c, &cs);
  for (int a = 0; rc == 0 && a < cs.ncl; a++)
    for (int b = 0; b < cs.nsv; b++) {
      int n, acc;
      char reasons[1024];
      coverage_cell(rows, nrows, &c, cs.first_tol, cs.cl[a], cs.sv[b], &n, &acc, reasons,
                    sizeof reasons);
      if (n == 0) continue;
      fprintf(f, "%s,%s,%d,%d,%d,", cs.cl[a], cs.sv[b], n, acc, n - acc);
      exp_csv_put(f, reasons); /* a reason may hold , or " (RFC 4180) */
      fputc('\n', f);
      tcell(t, 1, cs.cl[a], 0);
      tcell(t, 0, cs.sv[b], 1);
      fprintf(t, " & %d & %d", n, acc);
      char cell[1100];
      snprintf(cell, sizeof cell, "%d%s%s", n - acc, reasons[0] ? ": " : "", reasons);
      tcell(t, 0, cell, 0);
      fprintf(t, " \\\\\n");
    }
  tend(t);
  covset_free(&cs);
  return exp_outset_done(set, rc);
}

/* ---- timings ------------------------------------------------------------------------------- */

static int write_timings(const exp_section *s, const char *base, exp_row *rows, int nrows,
                         exp_outset *set) {
  cols c = cols_of(s->kind);
  FILE *f, *t;
  if (open_pair(set, base, "timings", &f, &t)) return -1;
  fprintf(f, "# over the solved problems of each class, tolerance and solver: time_s (the median "
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
  group *g = calloc((size_t)(nrows + 1), sizeof *g);
  double *tm = malloc((size_t)(nrows + 1) * sizeof *tm),
         *sp = malloc((size_t)(nrows + 1) * sizeof *sp);
  double *ru = malloc((size_t)(nrows + 1) * sizeof *ru);
  int ng = 0, rc = (!g || !tm || !sp || !ru) ? -1 : 0;
  for (int k = 0; rc == 0 && k < nrows; k++)
    if (is_result_row(&rows[k], &c) && rows[k].nf > c.cls) {
      char *key[3] = { rows[k].f[c.cls], c.tol >= 0 ? rows[k].f[c.tol] : (char *)"",
                       rows[k].f[c.solver] };
      find_group(g, &ng, key, 3);
    }
  for (int q = 0; rc == 0 && q < ng; q++) {
    int m = 0;
    double lsum = 0.0;
    for (int k = 0; k < nrows; k++) {
      exp_row *r = &rows[k];
      if (!is_result_row(r, &c) || r->nf <= c.cls || strcmp(r->f[c.cls], g[q].key[0]) != 0 ||
          strcmp(fld(r, c.tol), g[q].key[1]) != 0 || strcmp(r->f[c.solver], g[q].key[2]) != 0 ||
          strcmp(fld(r, c.status), "converged") != 0 || !fld(r, c.time)[0])
        continue;
      double med = atof(fld(r, c.time));
      tm[m] = med;
      sp[m] = med > 0 ? (atof(fld(r, c.q3)) - atof(fld(r, c.q1))) / med : NAN;
      ru[m] = atof(fld(r, c.runs));
      lsum += log(fmax(med, 1e-12));
      m++;
    }
    double tmed = NAN, gmean = NAN, smed = NAN, rmin = NAN, rmed = NAN;
    if (m > 0) {
      qsort(tm, (size_t)m, sizeof *tm, cmp_dbl);
      qsort(sp, (size_t)m, sizeof *sp, cmp_dbl);
      qsort(ru, (size_t)m, sizeof *ru, cmp_dbl);
      tmed = exp_quantile(tm, m, 0.5);
      gmean = exp(lsum / m);
      smed = exp_quantile(sp, m, 0.5);
      rmin = ru[0];
      rmed = exp_quantile(ru, m, 0.5);
    }
    fprintf(f, "%s,%s,%s,%d,%.6e,%.6e,%.4f,%.0f,%.1f\n", g[q].key[0], g[q].key[1], g[q].key[2], m,
            tmed, gmean, smed, rmin, rmed);
    tcell(t, 1, g[q].key[0], 0);
    tcell(t, 0, g[q].key[1], 0);
    tcell(t, 0, g[q].key[2], 1);
    fprintf(t, " & %d", m);
    tnum(t, tmed, "%.3g");
    tnum(t, gmean, "%.3g");
    tnum(t, smed, "%.3f");
    tnum(t, rmin, "%.0f");
    tnum(t, rmed, "%.0f");
    fprintf(t, " \\\\\n");
  }
  tend(t);
  free(g);
  free(tm);
  free(sp);
  free(ru);
  return exp_outset_done(set, rc);
}

/* ---- agreement ----------------------------------------------------------------------------- */

/* An external's own verdict (column reported_solved: its verdict=KEY) against
 * the library's err_siconos <= tol on the same answer: the harness checked
 * against a peer's own judgement (experiments/README.md, "Benchmark: make
 * bench-validate").  Rows without a verdict (refused, killed at the time
 * limit, nothing printed) are counted apart, never as agreement. */
typedef struct agree {
  int both, neither, only_reported, only_engine, no_verdict;
} agree;

static void agree_add(agree *a, const char *reported, const char *err, double tol) {
  if (!reported[0]) {
    a->no_verdict++;
    return;
  }
  int peer = strcmp(reported, "1") == 0;
  int engine = err[0] && atof(err) <= tol; /* empty or nan: not solved */
  if (peer && engine)
    a->both++;
  else if (!peer && !engine)
    a->neither++;
  else if (peer)
    a->only_reported++;
  else
    a->only_engine++;
}

static void agree_line(FILE *f, FILE *t, const char *tol, const char *solver, const agree *a) {
  int pairs = a->both + a->neither + a->only_reported + a->only_engine;
  int ok = a->both + a->neither;
  double share = pairs > 0 ? (double)ok / pairs : NAN;
  fprintf(f, "%s,%s,%d,%d,%.4f,%d,%d,%d,%d,%d\n", tol, solver, pairs, ok, share, a->both,
          a->neither, a->only_reported, a->only_engine, a->no_verdict);
  tcell(t, 1, tol, 0);
  tcell(t, 0, solver, 1);
  fprintf(t, " & %d & %d", pairs, ok);
  tnum(t, 100.0 * share, "%.1f");
  fprintf(t, " & %d & %d & %d & %d & %d \\\\\n", a->both, a->neither, a->only_reported,
          a->only_engine, a->no_verdict);
}

/* The groups (tol, solver) with at least one verdict, into g; their count. */
static int agree_groups(exp_row *rows, int nrows, const cols *c, int cv, group *g) {
  int ng = 0;
  for (int k = 0; k < nrows; k++)
    if (fld(&rows[k], cv)[0]) {
      char *key[2] = { (char *)fld(&rows[k], c->tol), (char *)fld(&rows[k], c->solver) };
      find_group(g, &ng, key, 2);
    }
  return ng;
}

static int write_agreement(const exp_section *s, const char *base, exp_row *rows, int nrows,
                           exp_outset *set) {
  cols c = cols_of(s->kind);
  int cv = exp_col(s->kind, "reported_solved"), ce = exp_col(s->kind, "err_siconos");
  FILE *f, *t;
  if (open_pair(set, base, "agreement", &f, &t)) return -1;
  fprintf(f, "# external solvers with verdict=KEY: their own verdict (reported_solved) against "
             "err_siconos <= tol computed by the library from the same answer; pairs: the rows "
             "with a verdict; no_verdict: refused, killed or silent rows\n"
             "tol,solver,pairs,agree,agree_share,both_solved,both_unsolved,only_reported,"
             "only_engine,no_verdict\n");
  static const char *const head[] = { "tol",       "solver",      "pairs",    "agree",
                                      "agree (%)", "both solved", "both not", "only its own",
                                      "only err",  "no verdict" };
  tbegin(t, "llrrrrrrrr", head, 10,
         "an external's own verdict against err_siconos <= tol from the same answer");
  group *g = calloc((size_t)(nrows + 1), sizeof *g);
  agree *a = calloc((size_t)(nrows + 1), sizeof *a);
  int rc = (!g || !a) ? -1 : 0, ng = rc ? 0 : agree_groups(rows, nrows, &c, cv, g);
  for (int q = 0; q < ng; q++) {
    for (int k = 0; k < nrows; k++)
      if (strcmp(fld(&rows[k], c.tol), g[q].key[0]) == 0 &&
          strcmp(fld(&rows[k], c.solver), g[q].key[1]) == 0)
        agree_add(&a[q], fld(&rows[k], cv), fld(&rows[k], ce), atof(g[q].key[0]));
    agree_line(f, t, g[q].key[0], g[q].key[1], &a[q]);
  }
  for (int q = 0; q < ng; q++) { /* one line "all" per tol, after its solvers */
    int first = 1;
    for (int j = 0; j < q && first; j++) first = strcmp(g[j].key[0], g[q].key[0]) != 0;
    if (!first) continue;
    agree all = { 0, 0, 0, 0, 0 };
    for (int j = q; j < ng; j++)
      if (strcmp(g[j].key[0], g[q].key[0]) == 0) {
        all.both += a[j].both;
        all.neither += a[j].neither;
        all.only_reported += a[j].only_reported;
        all.only_engine += a[j].only_engine;
        all.no_verdict += a[j].no_verdict;
      }
    agree_line(f, t, g[q].key[0], "all", &all);
  }
  tend(t);
  free(g);
  free(a);
  return exp_outset_done(set, rc);
}

/* ---- coverage against the virtual best ------------------------------------------------------ */

/* Per (class, tol, solver), then per tol over every class ("all"): of the
 * problems some other solver solves, the ones the solver accepts and the
 * ones it solves too (exp_profile_vbest); `make bench-auto` reads auto's
 * "all" row (experiments/BENCHMARKS.md). */
typedef struct vbsum {
  char **names;
  exp_vbest *v;
  int n;
} vbsum;

static void vbest_line(FILE *f, FILE *t, const char *cls, const char *tol, const char *solver,
                       const exp_vbest *v) {
  double share = v->accepted ? (double)v->solved / v->accepted : NAN;
  double all = v->others ? (double)v->solved / v->others : NAN;
  fprintf(f, "%s,%s,%s,%d,%d,%d,%.4f,%.4f,%d\n", cls, tol, solver, v->others, v->accepted,
          v->solved, share, all, v->alone);
  tcell(t, 1, cls, 0);
  tcell(t, 0, tol, 0);
  tcell(t, 0, solver, 1);
  fprintf(t, " & %d & %d & %d", v->others, v->accepted, v->solved);
  tnum(t, 100.0 * share, "%.1f");
  tnum(t, 100.0 * all, "%.1f");
  fprintf(t, " & %d \\\\\n", v->alone);
}

static void vbest_add(vbsum *sum, char *solver, const exp_vbest *v) {
  int k = add_name(sum->names, &sum->n, solver);
  sum->v[k].others += v->others;
  sum->v[k].accepted += v->accepted;
  sum->v[k].solved += v->solved;
  sum->v[k].alone += v->alone;
}

/* The rows of one class and tolerance, added to sum; 0, or -1 out of memory. */
static int vbest_class(FILE *f, FILE *t, exp_row *rows, int nrows, const cols *c, const char *cls,
                       const char *tol, vbsum *sum) {
  pmat m;
  int rc = pmat_build(rows, nrows, c, cls, tol, &m);
  for (int sv = 0; sv < m.ns && rc == 0; sv++) {
    exp_vbest v;
    exp_profile_vbest(m.np, m.ns, m.t, m.refused, sv, &v);
    vbest_line(f, t, cls, tol, m.solv[sv], &v);
    vbest_add(sum, m.solv[sv], &v);
  }
  pmat_free(&m);
  return rc;
}

static int write_virtual_best(const exp_section *s, const char *base, exp_row *rows, int nrows,
                              exp_outset *set) {
  (void)s;
  cols c = cols_of(EXP_PROFILE);
  FILE *f, *t;
  if (open_pair(set, base, "virtual_best", &f, &t)) return -1;
  fprintf(f, "# per class and tolerance, then all classes: of the problems some other solver "
             "solves (others_solve), those the solver accepts and those it solves too; share: "
             "solved / accepted (a refusal is coverage), share_all: solved / others_solve; "
             "alone: problems it solves and no other solver does\n"
             "class,tol,solver,others_solve,accepted,solved,share,share_all,alone\n");
  static const char *const head[] = { "class",        "tol",        "solver",
                                      "others solve", "accepted",   "solved",
                                      "share (%)",    "of all (%)", "alone" };
  tbegin(t, "lllrrrrrr", head, 9,
         "of the problems another solver solves, those this solver solves too");
  char *cl[EXP_CLASS_COUNT + 8], *tl[EXP_MAX_TOLS + 8];
  int ncl, ntl, rc = 0;
  classes_tols(rows, nrows, &c, cl, &ncl, tl, &ntl);
  vbsum sum = { calloc((size_t)nrows + 1, sizeof(char *)),
                calloc((size_t)nrows + 1, sizeof(exp_vbest)), 0 };
  if (!sum.names || !sum.v) rc = -1;
  for (int b = 0; b < ntl && rc == 0; b++) {
    sum.n = 0;
    memset(sum.v, 0, ((size_t)nrows + 1) * sizeof *sum.v);
    for (int a = 0; a < ncl && rc == 0; a++)
      rc = vbest_class(f, t, rows, nrows, &c, cl[a], tl[b], &sum);
    for (int k = 0; k < sum.n && rc == 0; k++)
      vbest_line(f, t, "all", tl[b], sum.names[k], &sum.v[k]);
  }
  tend(t);
  free(sum.names);
  free(sum.v);
  return exp_outset_done(set, rc);
}

/* ---- slopes -------------------------------------------------------------------------------- */

int exp_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows) {
  cols c = cols_of(EXP_SCALING);
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
          strcmp(fld(&rows[b], c.status), "converged") == 0 && atof(fld(&rows[b], c.time)) > 0) {
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
      tcell(tex, 1, ra->f[c.family], 0);
      tcell(tex, 0, ra->f[c.cls], 0);
      tcell(tex, 0, ra->f[c.solver], 1);
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
  if (tex) tend(tex);
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
      tcell(tex, 1, ra->f[col[0]], 0);
      tcell(tex, 0, ra->f[col[1]], 0);
      tcell(tex, 0, ra->f[col[2]], 1);
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
  if (tex) tend(tex);
  free(buf);
  return 0;
}

/* ---- scene steps --------------------------------------------------------------------------- */

static int write_steps(const exp_section *s, const char *base, exp_row *rows, int nrows,
                       exp_outset *set) {
  int cs = exp_col(s->kind, "scene"), cv = exp_col(s->kind, "solver");
  int ci = exp_col(s->kind, "integrator"), cf = exp_col(s->kind, "friction");
  int cstep = exp_col(s->kind, "step"), ct = exp_col(s->kind, "t");
  int cst = exp_col(s->kind, "status"), ca = exp_col(s->kind, "applied");
  group *g = calloc((size_t)(nrows + 1), sizeof *g);
  int *last = calloc((size_t)(nrows + 1), sizeof *last),
      *other = calloc((size_t)(nrows + 1), sizeof *other),
      *fallback = calloc((size_t)(nrows + 1), sizeof *fallback);
  char **end = calloc((size_t)(nrows + 1), sizeof *end);
  FILE *f = NULL, *t = NULL;
  if (!g || !last || !other || !fallback || !end || open_pair(set, base, "steps", &f, &t)) {
    free(g), free(last), free(other), free(fallback), free(end);
    return -1;
  }
  int ng = 0;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (r->nf <= ca) continue;
    char *key[4] = { r->f[cs], r->f[cf], r->f[ci], r->f[cv] };
    group *e = find_group(g, &ng, key, 4);
    int q = (int)(e - g);
    int col = exp_status_column(r->f[cst]);
    e->count[col]++;
    if (r->f[ct][0]) {
      e->n++;
      last[q] = atoi(r->f[cstep]);
      other[q] += strcmp(r->f[ca], "solver") != 0 && strcmp(r->f[ca], "none") != 0;
      fallback[q] += strncmp(r->f[ca], "fallback:", 9) == 0;
    } else {
      end[q] = r->f[cst]; /* a row without numbers ends the run */
      if (r->f[cstep][0]) last[q] = atoi(r->f[cstep]);
    }
  }
  fprintf(f, "# per scene, friction, integrator and solver: steps run, how the run ended, the "
             "status of each step and what the world applied (applied_fallback: the steps "
             "the fallback solver's x carried, of applied_other)\n"
             "scene,friction,integrator,solver,steps,last_step,end,applied_solution,applied_other");
  for (int j = 0; j < EXP_NSTATUS; j++) fprintf(f, ",%s", exp_status_name(j));
  fprintf(f, ",applied_fallback\n");
  static const char *const head[] = { "scene",        "friction",   "integrator", "solver",
                                      "steps",        "end",        "converged",  "max iter",
                                      "other status", "not applied" };
  tbegin(t, "llllrlrrrr", head, 10,
         "steps per run; end: ran (every step), or the status that ended it at its last step");
  for (int q = 0; q < ng; q++) {
    char endtxt[64];
    if (end[q] && last[q] > 0)
      snprintf(endtxt, sizeof endtxt, "%s at %d", end[q], last[q]);
    else if (end[q])
      snprintf(endtxt, sizeof endtxt, "%s", end[q]);
    else
      snprintf(endtxt, sizeof endtxt, "ran");
    fprintf(f, "%s,%s,%s,%s,%d,%d,%s,%d,%d", g[q].key[0], g[q].key[1], g[q].key[2], g[q].key[3],
            g[q].n, last[q], endtxt, g[q].n - other[q], other[q]);
    int rest = 0;
    for (int j = 0; j < EXP_NSTATUS; j++) {
      fprintf(f, ",%d", g[q].count[j]);
      if (j >= 2) rest += g[q].count[j];
    }
    fprintf(f, ",%d\n", fallback[q]);
    for (int k = 0; k < 4; k++) tcell(t, k == 0, g[q].key[k], k == 3);
    fprintf(t, " & %d", g[q].n);
    tcell(t, 0, endtxt, 0);
    fprintf(t, " & %d & %d & %d & %d \\\\\n", g[q].count[0], g[q].count[1], rest, other[q]);
  }
  tend(t);
  free(g);
  free(last);
  free(other);
  free(fallback);
  free(end);
  return exp_outset_done(set, 0);
}

/* ---- the tables of each kind ------------------------------------------------------------- */

/* NAME_slopes.tex (its CSV is the section's second CSV, NAME_slopes.csv). */
static int write_slopes_tex(const exp_section *s, const char *base, exp_row *rows, int nrows,
                            exp_outset *set) {
  FILE *t = open_table(set, base, "slopes", "tex");
  if (!t) return exp_outset_done(set, -1);
  return exp_outset_done(set, s->kind == EXP_SCENES ? exp_scene_slopes_write(NULL, t, rows, nrows)
                                                    : exp_slopes_write(NULL, t, rows, nrows));
}

static int kind_scene(exp_kind k) { return k == EXP_DRIFT || k == EXP_ACCURACY; }
static int kind_problems(exp_kind k) { return !exp_kind_is_scene(k); }
static int kind_profile(exp_kind k) { return k == EXP_PROFILE; }
static int kind_timed(exp_kind k) { return !exp_kind_is_scene(k) && k != EXP_CONVERGENCE; }
static int kind_scaling(exp_kind k) { return k == EXP_SCALING || k == EXP_SCENES; }

/* Every table, in the order written: its name, whether it has a CSV (all
 * have a .tex), the kinds it is written for.  exp_tables_write and
 * exp_output_suffixes both read this list. */
static const struct table_def {
  const char *name;
  int csv;
  int (*applies)(exp_kind k);
  int (*write)(const exp_section *s, const char *base, exp_row *rows, int nrows, exp_outset *set);
} table_defs[] = {
  { "failures", 1, kind_problems, write_failures },
  { "coverage", 1, kind_problems, write_coverage },
  { "winners", 1, kind_profile, write_winners },
  { "timings", 1, kind_timed, write_timings },
  { "agreement", 1, kind_profile, write_agreement },
  { "virtual_best", 1, kind_profile, write_virtual_best },
  { "slopes", 0, kind_scaling, write_slopes_tex },
  { "steps", 1, kind_scene, write_steps },
};
enum { NTABLES = sizeof table_defs / sizeof table_defs[0] };

int exp_tables_write(const exp_plan *pl, int section, const char *base, exp_row *rows, int nrows,
                     exp_outset *set) {
  const exp_section *s = &pl->cfg.sec[section];
  int rc = 0;
  for (int k = 0; k < NTABLES; k++)
    if (table_defs[k].applies(s->kind)) rc |= table_defs[k].write(s, base, rows, nrows, set);
  return rc;
}

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
  cols c = cols_of(s->kind);
  covset cs;
  int rc = coverage_names(rows, nrows, &c, &cs);
  for (int a = 0; rc == 0 && a < cs.ncl; a++)
    for (int b = 0; rc == 0 && b < cs.nsv; b++) {
      int n, acc;
      char reasons[1024];
      coverage_cell(rows, nrows, &c, cs.first_tol, cs.cl[a], cs.sv[b], &n, &acc, reasons,
                    sizeof reasons);
      if (reasons[0]) rc = text_add(ts, reasons, strlen(reasons));
    }
  covset_free(&cs);
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
  FILE *f = rc == 0 ? open_table(set, base, "tex", "csv") : NULL;
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

int exp_output_suffixes(exp_kind k, char sfx[][EXP_SUFFIX_MAX], int max) {
  int n = 0;
  const char *csv2 = exp_csv2_suffix(k);
  if (n < max) snprintf(sfx[n++], EXP_SUFFIX_MAX, ".csv");
  if (csv2 && n < max) snprintf(sfx[n++], EXP_SUFFIX_MAX, "%s.csv", csv2);
  for (int t = 0; t < NTABLES; t++) {
    if (!table_defs[t].applies(k)) continue;
    if (table_defs[t].csv && n < max)
      snprintf(sfx[n++], EXP_SUFFIX_MAX, "_%s.csv", table_defs[t].name);
    if (n < max) snprintf(sfx[n++], EXP_SUFFIX_MAX, "_%s.tex", table_defs[t].name);
  }
  if (k == EXP_PROFILE && n < max)
    snprintf(sfx[n++], EXP_SUFFIX_MAX, "_leaders.csv"); /* write_winners */
  if (kind_timed(k) && n < max)
    snprintf(sfx[n++], EXP_SUFFIX_MAX, "_timing.csv");         /* exp_timing_write */
  if (n < max) snprintf(sfx[n++], EXP_SUFFIX_MAX, "_tex.csv"); /* exp_text_write */
  return n;
}
