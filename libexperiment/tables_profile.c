/* tables_profile.c -- the tables of a profile section that compare the
 * solvers' times (experiments/README.md, "Tables"): the Dolan-More curves
 * per class and tolerance (NAME_profile.csv, exp_profile_write), the
 * winners and the leaders drawn from them (NAME_winners.*, NAME_leaders.csv)
 * and the coverage against the virtual best (NAME_virtual_best.*).  The
 * computations are stats.c's (exp_profile_*); here they are gathered per
 * (class, tol) from the section's rows and written.
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bootstrap resamples of the win counts (exp_profile_win_interval). */
enum { BOOT_RESAMPLES = 999 };

/* ---- the profile matrix of one (class, tol) ----------------------------------------------- */

typedef struct pmat {
  char **probs, **solv;
  int np, ns;
  double *t, *r; /* time if converged else inf; ratios */
  int *alias;
  unsigned char *refused; /* the solver does not take the problem */
  char (*key)[160];       /* the run's trace (exp_tab_run_key) */
  const exp_row **row;    /* the run's row (NULL: none) */
  const exp_tab_cols *c;
} pmat;

static void pmat_free(pmat *m) {
  free(m->probs);
  free(m->solv);
  free(m->t);
  free(m->r);
  free(m->alias);
  free(m->refused);
  free(m->key);
  free(m->row);
  memset(m, 0, sizeof *m);
}

/* One algorithm, one time (point 3 of experiments/README.md, "Timing"): on
 * problem p the solved runs of solver a and of the solvers that ran a's
 * algorithm there are pooled, and each of them gets the weighted median of
 * all their runs (exp_weighted_quantile), not a's alone.  pts: room for
 * ns * (EXP_TSAMPLE + 3) points. */
static void pool_aliases(pmat *m, int p, int a, exp_wpoint *pts) {
  size_t row = (size_t)p * m->ns;
  int n = 0;
  for (int s = 0; s < m->ns; s++)
    if ((s == a || m->alias[row + s] == a) && isfinite(m->t[row + s]) && m->row[row + s])
      n += exp_tab_run_points(m->row[row + s], m->c, pts + n);
  if (n == 0) return;
  double t = fmax(exp_weighted_quantile(pts, n, 0.5), 1e-9);
  for (int s = 0; s < m->ns; s++)
    if ((s == a || m->alias[row + s] == a) && isfinite(m->t[row + s])) m->t[row + s] = t;
}

/* The identical algorithms of m from its traces, their runs pooled, then
 * its ratios. */
static int pmat_alias(pmat *m) {
  size_t pn = (size_t)m->np * (size_t)m->ns;
  const char **keys = malloc((pn > 0 ? pn : 1) * sizeof *keys);
  exp_wpoint *pts = malloc(((size_t)m->ns + 1) * (EXP_TSAMPLE + 3) * sizeof *pts);
  if (!keys || !pts) {
    free(keys);
    free(pts);
    return -1;
  }
  for (size_t q = 0; q < pn; q++) keys[q] = m->key[q];
  exp_profile_same(m->np, m->ns, keys, m->alias);
  free(keys);
  for (int p = 0; p < m->np; p++)
    for (int a = 0; a < m->ns; a++) {
      int has = 0;
      for (int s = 0; s < m->ns && !has; s++) has = m->alias[(size_t)p * m->ns + s] == a;
      if (has && m->alias[(size_t)p * m->ns + a] < 0 && isfinite(m->t[(size_t)p * m->ns + a]))
        pool_aliases(m, p, a, pts);
    }
  free(pts);
  exp_profile_ratios_alias(m->np, m->ns, m->t, m->alias, m->r);
  return 0;
}

/* 1 when row r is of class cls and tolerance tol and a result. */
static int pmat_row(const exp_row *r, const exp_tab_cols *c, const char *cls, const char *tol) {
  return strcmp(exp_tab_field(r, c->cls), cls) == 0 && strcmp(exp_tab_field(r, c->tol), tol) == 0 &&
         exp_tab_is_result_row(r, c);
}

/* The profile matrix of class cls at tolerance tol: every problem of the
 * class stays; a row whose own verdict disagrees with the judge's counts
 * as unsolved for its solver alone, and is nobody's identical algorithm
 * (exp_tab_row_solved; experiments/README.md, "One stopping rule"). */
static int pmat_build(exp_row *rows, int nrows, const exp_tab_cols *c, const char *cls,
                      const char *tol, pmat *m) {
  memset(m, 0, sizeof *m);
  m->probs = malloc((size_t)(nrows + 1) * sizeof *m->probs);
  m->solv = malloc((size_t)(nrows + 1) * sizeof *m->solv);
  if (!m->probs || !m->solv) return -1;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!pmat_row(r, c, cls, tol)) continue;
    exp_tab_add_name(m->probs, &m->np, r->f[c->problem]);
    if (strcmp(exp_tab_field(r, c->status), "refused") != 0)
      exp_tab_add_name(m->solv, &m->ns, r->f[c->solver]);
  }
  size_t pn = (size_t)(m->np > 0 ? m->np : 1) * (size_t)(m->ns > 0 ? m->ns : 1);
  m->t = malloc(pn * sizeof *m->t);
  m->r = malloc(pn * sizeof *m->r);
  m->alias = malloc(pn * sizeof *m->alias);
  m->refused = calloc(pn, sizeof *m->refused);
  m->key = calloc(pn, sizeof *m->key);
  m->row = calloc(pn, sizeof *m->row);
  m->c = c;
  if (!m->t || !m->r || !m->alias || !m->refused || !m->key || !m->row) return -1;
  for (size_t q = 0; q < pn; q++) {
    m->t[q] = INFINITY;
    m->alias[q] = -1;
  }
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!pmat_row(r, c, cls, tol)) continue;
    int p = exp_tab_index_of(m->probs, m->np, r->f[c->problem]);
    int s = exp_tab_index_of(m->solv, m->ns, r->f[c->solver]);
    if (p < 0 || s < 0) continue;
    size_t q = (size_t)p * m->ns + s;
    if (exp_tab_row_solved(r, c) && exp_tab_field(r, c->time)[0])
      m->t[q] = fmax(atof(exp_tab_field(r, c->time)), 1e-9);
    m->refused[q] = strcmp(exp_tab_field(r, c->status), "refused") == 0;
    if (!exp_tab_verdicts_differ(r, c)) exp_tab_run_key(r, c, m->key[q], sizeof m->key[q]);
    m->row[q] = r;
    int a = exp_tab_index_of(m->solv, m->ns, exp_tab_field(r, c->method));
    if (a >= 0 && a != s && !exp_tab_verdicts_differ(r, c)) m->alias[q] = a;
  }
  return pmat_alias(m);
}

/* The classes and tolerances present, in order. */
static void classes_tols(exp_row *rows, int nrows, const exp_tab_cols *c, char **cl, int *ncl,
                         char **tl, int *ntl) {
  *ncl = *ntl = 0;
  for (int k = 0; k < nrows; k++) {
    if (!exp_tab_is_result_row(&rows[k], c)) continue;
    if (c->cls >= 0 && rows[k].nf > c->cls) exp_tab_add_name(cl, ncl, rows[k].f[c->cls]);
    if (c->tol >= 0 && rows[k].nf > c->tol) exp_tab_add_name(tl, ntl, rows[k].f[c->tol]);
  }
}

int exp_profile_write(FILE *g, const exp_section *s, exp_row *rows, int nrows) {
  (void)s;
  exp_tab_cols c = exp_tab_cols_of(EXP_PROFILE);
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
          /* beside: refusals counted as failures, over all the class's problems */
          fprintf(g, ",%d,%.6e,%.6e,%d\n", m.np - acc, exp_profile_rho(m.np, m.ns, m.r, sv, tau),
                  nb > 0 ? exp_profile_rho(m.np, m.ns, m.r, sv, taus[nb - 1]) : 0.0, m.np);
        }
      }
      free(taus);
      pmat_free(&m);
    }
  return 0;
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

/* The heads of NAME_winners.csv, NAME_leaders.csv and NAME_winners.tex. */
static void winners_heads(FILE *f, FILE *t, FILE *L, const char *base, double tie,
                          const char *tie_why) {
  fprintf(f,
          "# per class and tolerance; problems: those the solver accepts (refused: those it "
          "does not take, outside its share and its profile); fastest: alone within a factor "
          "%g of the best; tied: with others; same_as: runs of another solver's algorithm "
          "(the same trace: status, iterations, pivots, x), not counted; fastest_lo, fastest_hi: "
          "the 95 %% bootstrap interval of fastest (%d resamples of the problems, each time "
          "perturbed by a pass-to-pass ratio of the section's replicate passes)\n"
          "# tie_tolerance: %g (%s)\n"
          "class,tol,solver,problems,solved,solved_share,fastest,tied,rho_2,rho_10,same_as,"
          "refused,fastest_lo,fastest_hi\n",
          1.0 + tie, (int)BOOT_RESAMPLES, tie, tie_why);
  fprintf(L,
          "# per class and tolerance, from %s_winners.csv (exp_profile_leaders): the fastest "
          "(most fastest alone, then most solved; a solver that ran another's algorithm on every "
          "problem it takes left out), "
          "the ties of those counted, the solvers that solve the most, the built-in and the "
          "external solver that solve the most, the built-in solvers under half solved; "
          "fastest_lo, fastest_hi: the fastest's 95 %% bootstrap interval of wins; "
          "fastest_distinct: 1 when it is above every other counted solver's, else 0: a tie "
          "within the noise\n"
          "class,tol,problems,fastest,fastest_alone,fastest_tied,ties,most_solved,"
          "solved_most,best_builtin,best_builtin_solved,best_builtin_rho_10,best_external,"
          "best_external_solved,best_external_rho_10,under_half,fastest_lo,fastest_hi,"
          "fastest_distinct\n",
          exp_basename(base));
  static const char *const head[] = { "class",   "tol",  "solver",     "problems",   "solved",
                                      "fastest", "tied", "$\\rho(2)$", "$\\rho(10)$" };
  fprintf(t,
          "%% fastest: alone within a factor %g of the best time [95 %% bootstrap interval]; "
          "tied: within it with others; problems: those the solver "
          "accepts\n\\begin{tabular}{lllrrrrrr}\n"
          "\\toprule\n",
          1.0 + tie);
  for (int k = 0; k < 9; k++) fprintf(t, "%s%s", k ? " & " : "", head[k]);
  fprintf(t, " \\\\\n\\midrule\n");
}

/* Per solver of one (class, tol): its wins and ties at tau = 1, the
 * problems it solves, whether it counts for the leaders (not another's
 * algorithm on every problem it takes) and its rho(10). */
typedef struct wcounts {
  int *wins, *ties, *solved, *counted, *lo, *hi; /* lo, hi: the wins' bootstrap interval */
  double *r10;
} wcounts;

static int wcounts_alloc(wcounts *w, int ns) {
  size_t k = (size_t)ns + 1;
  w->wins = calloc(k, sizeof *w->wins);
  w->ties = calloc(k, sizeof *w->ties);
  w->solved = calloc(k, sizeof *w->solved);
  w->counted = calloc(k, sizeof *w->counted);
  w->lo = calloc(k, sizeof *w->lo);
  w->hi = calloc(k, sizeof *w->hi);
  w->r10 = calloc(k, sizeof *w->r10);
  return w->wins && w->ties && w->solved && w->counted && w->lo && w->hi && w->r10 ? 0 : -1;
}

static void wcounts_free(wcounts *w) {
  free(w->wins);
  free(w->ties);
  free(w->solved);
  free(w->counted);
  free(w->lo);
  free(w->hi);
  free(w->r10);
}

/* The 95 % bootstrap intervals of m's win counts into w->lo, w->hi, the
 * times perturbed by the pass-to-pass log ratios dl[0..nd).  0, or -1 out
 * of memory. */
static int win_intervals(const pmat *m, double tie, const double *dl, int nd, wcounts *w) {
  size_t pn = (size_t)(m->np > 0 ? m->np : 1) * (size_t)(m->ns > 0 ? m->ns : 1);
  exp_boot_work b = { malloc(pn * sizeof(double)),
                      malloc(pn * sizeof(double)),
                      malloc(BOOT_RESAMPLES * sizeof(double)),
                      malloc(pn * sizeof(int)),
                      malloc((size_t)BOOT_RESAMPLES * ((size_t)m->ns + 1) * sizeof(int)),
                      malloc(2 * ((size_t)m->ns + 1) * sizeof(int)) };
  int rc = b.tw && b.rw && b.q && b.aw && b.wins && b.tmp ? 0 : -1;
  if (rc == 0)
    exp_profile_win_interval(m->np, m->ns, m->t, m->alias, tie, dl, nd, BOOT_RESAMPLES,
                             0x65u + (unsigned long long)m->np * 1000003u, &b, w->lo, w->hi);
  free(b.tw), free(b.rw), free(b.q), free(b.aw), free(b.wins), free(b.tmp);
  return rc;
}

/* 1 when the fastest f's wins are told from every other counted solver's
 * by the bootstrap: its interval's low end above their high ends. */
static int fastest_distinct(int f, int ns, const int *counted, const int *lo, const int *hi) {
  if (f < 0) return 0;
  for (int s = 0; s < ns; s++)
    if (s != f && counted[s] && hi[s] >= lo[f]) return 0;
  return 1;
}

/* One row of NAME_leaders.csv: the leaders (exp_profile_leaders) of one
 * class and tolerance from w's per-solver counts: wins, ties, solved,
 * counted (not another's algorithm on every problem it takes), r10
 * (rho(10)), the wins' bootstrap intervals.  0, or -1 out of memory. */
static int leaders_row(FILE *L, const char *cls, const char *tol, const pmat *m, const wcounts *w) {
  const int *wins = w->wins, *ties = w->ties, *solved = w->solved, *counted = w->counted;
  const double *r10 = w->r10;
  int *ext = calloc((size_t)m->ns + 1, sizeof *ext),
      *keep = calloc((size_t)m->ns + 1, sizeof *keep);
  if (!ext || !keep) {
    free(ext), free(keep);
    return -1;
  }
  for (int sv = 0; sv < m->ns; sv++) {
    char first[128];
    ext[sv] = slv_solver_find(exp_tab_first_name(m->solv[sv], first, sizeof first)) == NULL;
  }
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
  fprintf(L, ",%d,%d,%d\n", f >= 0 ? w->lo[f] : 0, f >= 0 ? w->hi[f] : 0,
          fastest_distinct(f, m->ns, counted, w->lo, w->hi));
  free(ext);
  free(keep);
  return 0;
}

/* Solver sv's row of NAME_winners.csv and .tex in class cls, tolerance tol;
 * its counts into w. */
static void winners_row(FILE *f, FILE *t, const char *cls, const char *tol, const pmat *m, int sv,
                        wcounts *w) {
  int solved = 0, same = 0;
  char same_as[128] = "";
  for (int p = 0; p < m->np; p++) {
    solved += isfinite(m->t[(size_t)p * m->ns + sv]);
    int al = m->alias[(size_t)p * m->ns + sv];
    if (al >= 0) {
      same++;
      snprintf(same_as, sizeof same_as, "%s", m->solv[al]);
    }
  }
  char same_txt[160] = "";
  if (same) snprintf(same_txt, sizeof same_txt, "%s on %d", same_as, same);
  double r2 = exp_profile_rho_of(m->np, m->ns, m->r, m->refused, sv, 2.0);
  double r10 = exp_profile_rho_of(m->np, m->ns, m->r, m->refused, sv, 10.0);
  int acc = exp_profile_accepted(m->np, m->ns, m->refused, sv);
  fprintf(f, "%s,%s,%s,%d,%d,%.4f,%d,%d,%.4f,%.4f,%s,%d,%d,%d\n", cls, tol, m->solv[sv], acc,
          solved, acc ? (double)solved / acc : 0.0, w->wins[sv], w->ties[sv], r2, r10, same_txt,
          m->np - acc, w->lo[sv], w->hi[sv]);
  exp_tab_cell(t, 1, cls, 0);
  exp_tab_cell(t, 0, tol, 0);
  char sname[256];
  snprintf(sname, sizeof sname, "%s%s%s%s", m->solv[sv], same ? " (= " : "", same ? same_txt : "",
           same ? ")" : "");
  exp_tab_cell(t, 0, sname, 0);
  fprintf(t, " & %d & %d & %d [%d, %d] & %d & %.2f & %.2f \\\\\n", acc, solved, w->wins[sv],
          w->lo[sv], w->hi[sv], w->ties[sv], r2, r10);
  w->solved[sv] = solved;
  w->counted[sv] = same < acc; /* left out: another's algorithm on all it takes */
  w->r10[sv] = r10;
}

/* The winners' rows of one (class, tol) and its leaders' row.  0, or -1
 * out of memory. */
static int winners_of(FILE *f, FILE *t, FILE *L, exp_row *rows, int nrows, const exp_tab_cols *c,
                      const char *cls, const char *tol, double tie, const double *dl, int nd) {
  pmat m;
  wcounts w = { 0 };
  int rc = -1;
  if (pmat_build(rows, nrows, c, cls, tol, &m) == 0 && wcounts_alloc(&w, m.ns) == 0 &&
      win_intervals(&m, tie, dl, nd, &w) == 0) {
    exp_profile_winners(m.np, m.ns, m.r, m.alias, tie, w.wins, w.ties);
    for (int sv = 0; sv < m.ns; sv++) winners_row(f, t, cls, tol, &m, sv, &w);
    rc = leaders_row(L, cls, tol, &m, &w);
  }
  wcounts_free(&w);
  pmat_free(&m);
  return rc;
}

int exp_tab_write_winners(const exp_section *s, const char *base, exp_row *rows, int nrows,
                          exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(EXP_PROFILE);
  FILE *f, *t, *L;
  const char *tie_why;
  double tie = exp_section_tie(s, rows, nrows, &tie_why);
  if (exp_tab_open_pair(set, base, "winners", &f, &t)) return -1;
  if (!(L = exp_tab_open(set, base, "leaders", "csv"))) return exp_outset_done(set, -1);
  winners_heads(f, t, L, base, tie, tie_why);
  char *cl[EXP_CLASS_COUNT + 8], *tl[EXP_MAX_TOLS + 8];
  int ncl, ntl, rc = 0;
  double *dl = NULL;
  int nd = exp_tab_rep_logs(rows, nrows, &c, &dl);
  if (nd < 0) rc = -1;
  classes_tols(rows, nrows, &c, cl, &ncl, tl, &ntl);
  for (int a = 0; a < ncl && rc == 0; a++)
    for (int b = 0; b < ntl && rc == 0; b++)
      rc = winners_of(f, t, L, rows, nrows, &c, cl[a], tl[b], tie, dl, nd > 0 ? nd : 0);
  free(dl);
  exp_tab_end(t);
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
  exp_tab_cell(t, 1, cls, 0);
  exp_tab_cell(t, 0, tol, 0);
  exp_tab_cell(t, 0, solver, 1);
  fprintf(t, " & %d & %d & %d", v->others, v->accepted, v->solved);
  exp_tab_num(t, 100.0 * share, "%.1f");
  exp_tab_num(t, 100.0 * all, "%.1f");
  fprintf(t, " & %d \\\\\n", v->alone);
}

static void vbest_add(vbsum *sum, char *solver, const exp_vbest *v) {
  int k = exp_tab_add_name(sum->names, &sum->n, solver);
  sum->v[k].others += v->others;
  sum->v[k].accepted += v->accepted;
  sum->v[k].solved += v->solved;
  sum->v[k].alone += v->alone;
}

/* The rows of one class and tolerance, added to sum; 0, or -1 out of memory. */
static int vbest_class(FILE *f, FILE *t, exp_row *rows, int nrows, const exp_tab_cols *c,
                       const char *cls, const char *tol, vbsum *sum) {
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

int exp_tab_write_virtual_best(const exp_section *s, const char *base, exp_row *rows, int nrows,
                               exp_outset *set) {
  (void)s;
  exp_tab_cols c = exp_tab_cols_of(EXP_PROFILE);
  FILE *f, *t;
  if (exp_tab_open_pair(set, base, "virtual_best", &f, &t)) return -1;
  fprintf(f, "# per class and tolerance, then all classes: of the problems some other solver "
             "solves (others_solve), those the solver accepts and those it solves too; share: "
             "solved / accepted (a refusal is coverage), share_all: solved / others_solve; "
             "alone: problems it solves and no other solver does\n"
             "class,tol,solver,others_solve,accepted,solved,share,share_all,alone\n");
  static const char *const head[] = { "class",        "tol",        "solver",
                                      "others solve", "accepted",   "solved",
                                      "share (%)",    "of all (%)", "alone" };
  exp_tab_begin(t, "lllrrrrrr", head, 9,
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
  exp_tab_end(t);
  free(sum.names);
  free(sum.v);
  return exp_outset_done(set, rc);
}
