/* tables_counts.c -- the tables of a section that count outcomes
 * (experiments/README.md, "Tables"): the status of each solve per class,
 * tolerance and solver (NAME_failures.*), the problems each solver accepts
 * and refuses with the reasons (NAME_coverage.*), an external solver's own
 * verdict against the engine's (NAME_agreement.*) and the step statuses of
 * each scene run (NAME_steps.*).
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int exp_tab_write_failures(const exp_section *s, const char *base, exp_row *rows, int nrows,
                           exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  exp_tab_group *g = calloc((size_t)(nrows + 1), sizeof *g);
  if (!g) return -1;
  int ng = 0;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!exp_tab_is_result_row(r, &c) || r->nf <= c.cls) continue;
    char *key[3] = { r->f[c.cls], c.tol >= 0 ? r->f[c.tol] : (char *)"", r->f[c.solver] };
    exp_tab_group *e = exp_tab_find_group(g, &ng, key, 3);
    e->count[exp_status_column(exp_tab_field(r, c.status))]++;
    e->n++;
  }
  int used[EXP_NSTATUS] = { 0 };
  for (int k = 0; k < ng; k++)
    for (int j = 0; j < EXP_NSTATUS; j++) used[j] |= g[k].count[j] > 0;
  used[0] = used[8] = 1; /* converged and refused always shown */
  FILE *f, *t;
  if (exp_tab_open_pair(set, base, "failures", &f, &t)) {
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
    exp_tab_cell(t, 1, g[k].key[0], 0);
    exp_tab_cell(t, 0, g[k].key[1], 0);
    exp_tab_cell(t, 0, g[k].key[2], 1);
    fprintf(t, " & %d", g[k].n);
    for (int j = 0; j < EXP_NSTATUS; j++) {
      fprintf(f, ",%d", g[k].count[j]);
      if (used[j]) fprintf(t, " & %d", g[k].count[j]);
    }
    fprintf(f, "\n");
    fprintf(t, " \\\\\n");
  }
  exp_tab_end(t);
  free(g);
  return exp_outset_done(set, 0);
}

int exp_tab_write_coverage(const exp_section *s, const char *base, exp_row *rows, int nrows,
                           exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  FILE *f, *t;
  if (exp_tab_open_pair(set, base, "coverage", &f, &t)) return -1;
  fprintf(f, "# per class and solver: problems accepted and refused, with the reasons; "
             "limits: the refusals that are an implementation limit of lcplab, not a property "
             "of the method (docs/solvers.md, \"Storage\")\n"
             "class,solver,problems,accepted,refused,reasons,limits\n");
  static const char *const head[] = { "class", "solver", "problems", "accepted",
                                      "refused: reason" };
  exp_tab_begin(t, "llrrp{0.45\\linewidth}", head, 5,
                "coverage: a refusal is the solver declining a problem it cannot take");
  exp_tab_covset cs;
  int rc = exp_tab_coverage_names(rows, nrows, &c, &cs);
  for (int a = 0; rc == 0 && a < cs.ncl; a++)
    for (int b = 0; b < cs.nsv; b++) {
      int n, acc;
      char reasons[1024];
      exp_tab_coverage_cell(rows, nrows, &c, cs.first_tol, cs.cl[a], cs.sv[b], &n, &acc, reasons,
                            sizeof reasons);
      if (n == 0) continue;
      fprintf(f, "%s,%s,%d,%d,%d,", cs.cl[a], cs.sv[b], n, acc, n - acc);
      exp_csv_put(f, reasons); /* a reason may hold , or " (RFC 4180) */
      fprintf(f, ",%d\n",
              exp_tab_coverage_limits(rows, nrows, &c, cs.first_tol, cs.cl[a], cs.sv[b]));
      exp_tab_cell(t, 1, cs.cl[a], 0);
      exp_tab_cell(t, 0, cs.sv[b], 1);
      fprintf(t, " & %d & %d", n, acc);
      char cell[1100];
      snprintf(cell, sizeof cell, "%d%s%s", n - acc, reasons[0] ? ": " : "", reasons);
      exp_tab_cell(t, 0, cell, 0);
      fprintf(t, " \\\\\n");
    }
  exp_tab_end(t);
  exp_tab_covset_free(&cs);
  return exp_outset_done(set, rc);
}

/* ---- disagreements ---------------------------------------------------------------------------- */

int exp_tab_write_disagreements(const exp_section *s, const char *base, exp_row *rows, int nrows,
                                exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  int ce = exp_col(s->kind, "err_siconos"), ct = exp_col(s->kind, "peer_tol");
  FILE *f, *t;
  if (exp_tab_open_pair(set, base, "disagreements", &f, &t)) return -1;
  fprintf(f, "# the rows where a solver's own verdict (reported_solved, verdict=KEY) is not the "
             "judge's (solved: res_scaled <= tol): each counts as unsolved for its solver in the "
             "profile, the winners, the leaders, the timings and the virtual best of its class "
             "and tolerance, whose problems stay for every other solver (experiments/README.md, "
             "\"One stopping rule\"); peer_tol: the tolerance the solver was last told (the "
             "ladder)\n"
             "class,tol,problem,solver,status,solved,reported_solved,res_scaled,err_siconos,"
             "peer_tol\n");
  static const char *const head[] = { "class",   "tol",        "problem",     "solver",  "judge",
                                      "its own", "res_scaled", "err_siconos", "told tol" };
  exp_tab_begin(t, "llllllrrr", head, 9,
                "a solver's own verdict against the judge's: unsolved for that solver alone");
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (!exp_tab_verdicts_differ(r, &c)) continue;
    const char *solved = strcmp(exp_tab_field(r, c.status), "converged") == 0 ? "1" : "0";
    const char *v[10] = { exp_tab_field(r, c.cls),      exp_tab_field(r, c.tol),
                          exp_tab_field(r, c.problem),  exp_tab_field(r, c.solver),
                          exp_tab_field(r, c.status),   solved,
                          exp_tab_field(r, c.reported), exp_tab_field(r, c.res_scaled),
                          exp_tab_field(r, ce),         exp_tab_field(r, ct) };
    for (int j = 0; j < 10; j++) {
      if (j) fputc(',', f);
      exp_csv_put(f, v[j]);
    }
    fputc('\n', f);
    const char *judge = solved[0] == '1' ? "solved" : v[4];
    const char *own = atoi(v[6]) ? "solved" : "not solved";
    const char *cells[9] = { v[0], v[1], v[2], v[3], judge, own, v[7], v[8], v[9] };
    for (int j = 0; j < 9; j++) exp_tab_cell(t, j == 0, cells[j], j == 3);
    fprintf(t, " \\\\\n");
  }
  exp_tab_end(t);
  return exp_outset_done(set, 0);
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
  exp_tab_cell(t, 1, tol, 0);
  exp_tab_cell(t, 0, solver, 1);
  fprintf(t, " & %d & %d", pairs, ok);
  exp_tab_num(t, 100.0 * share, "%.1f");
  fprintf(t, " & %d & %d & %d & %d & %d \\\\\n", a->both, a->neither, a->only_reported,
          a->only_engine, a->no_verdict);
}

/* The groups (tol, solver) with at least one verdict, into g; their count. */
static int agree_groups(exp_row *rows, int nrows, const exp_tab_cols *c, int cv, exp_tab_group *g) {
  int ng = 0;
  for (int k = 0; k < nrows; k++)
    if (exp_tab_is_result_row(&rows[k], c) && exp_tab_field(&rows[k], cv)[0]) {
      char *key[2] = { (char *)exp_tab_field(&rows[k], c->tol),
                       (char *)exp_tab_field(&rows[k], c->solver) };
      exp_tab_find_group(g, &ng, key, 2);
    }
  return ng;
}

int exp_tab_write_agreement(const exp_section *s, const char *base, exp_row *rows, int nrows,
                            exp_outset *set) {
  exp_tab_cols c = exp_tab_cols_of(s->kind);
  int cv = exp_col(s->kind, "reported_solved"), ce = exp_col(s->kind, "err_siconos");
  FILE *f, *t;
  if (exp_tab_open_pair(set, base, "agreement", &f, &t)) return -1;
  fprintf(f, "# external solvers with verdict=KEY: their own verdict (reported_solved) against "
             "err_siconos <= tol computed by the library from the same answer; pairs: the rows "
             "with a verdict; no_verdict: refused, killed or silent rows\n"
             "tol,solver,pairs,agree,agree_share,both_solved,both_unsolved,only_reported,"
             "only_engine,no_verdict\n");
  static const char *const head[] = { "tol",       "solver",      "pairs",    "agree",
                                      "agree (%)", "both solved", "both not", "only its own",
                                      "only err",  "no verdict" };
  exp_tab_begin(t, "llrrrrrrrr", head, 10,
                "an external's own verdict against err_siconos <= tol from the same answer");
  exp_tab_group *g = calloc((size_t)(nrows + 1), sizeof *g);
  agree *a = calloc((size_t)(nrows + 1), sizeof *a);
  int rc = (!g || !a) ? -1 : 0, ng = rc ? 0 : agree_groups(rows, nrows, &c, cv, g);
  for (int q = 0; q < ng; q++) {
    for (int k = 0; k < nrows; k++)
      if (exp_tab_is_result_row(&rows[k], &c) &&
          strcmp(exp_tab_field(&rows[k], c.tol), g[q].key[0]) == 0 &&
          strcmp(exp_tab_field(&rows[k], c.solver), g[q].key[1]) == 0)
        agree_add(&a[q], exp_tab_field(&rows[k], cv), exp_tab_field(&rows[k], ce),
                  atof(g[q].key[0]));
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
  exp_tab_end(t);
  free(g);
  free(a);
  return exp_outset_done(set, rc);
}

/* ---- scene steps --------------------------------------------------------------------------- */

int exp_tab_write_steps(const exp_section *s, const char *base, exp_row *rows, int nrows,
                        exp_outset *set) {
  int cs = exp_col(s->kind, "scene"), cv = exp_col(s->kind, "solver");
  int ci = exp_col(s->kind, "integrator"), cf = exp_col(s->kind, "friction");
  int cstep = exp_col(s->kind, "step"), ct = exp_col(s->kind, "t");
  int cst = exp_col(s->kind, "status"), ca = exp_col(s->kind, "applied");
  exp_tab_group *g = calloc((size_t)(nrows + 1), sizeof *g);
  int *last = calloc((size_t)(nrows + 1), sizeof *last),
      *other = calloc((size_t)(nrows + 1), sizeof *other),
      *fallback = calloc((size_t)(nrows + 1), sizeof *fallback);
  char **end = calloc((size_t)(nrows + 1), sizeof *end);
  FILE *f = NULL, *t = NULL;
  if (!g || !last || !other || !fallback || !end || exp_tab_open_pair(set, base, "steps", &f, &t)) {
    free(g), free(last), free(other), free(fallback), free(end);
    return -1;
  }
  int ng = 0;
  for (int k = 0; k < nrows; k++) {
    exp_row *r = &rows[k];
    if (r->nf <= ca) continue;
    char *key[4] = { r->f[cs], r->f[cf], r->f[ci], r->f[cv] };
    exp_tab_group *e = exp_tab_find_group(g, &ng, key, 4);
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
  exp_tab_begin(
      t, "llllrlrrrr", head, 10,
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
    for (int k = 0; k < 4; k++) exp_tab_cell(t, k == 0, g[q].key[k], k == 3);
    fprintf(t, " & %d", g[q].n);
    exp_tab_cell(t, 0, endtxt, 0);
    fprintf(t, " & %d & %d & %d & %d \\\\\n", g[q].count[0], g[q].count[1], rest, other[q]);
  }
  exp_tab_end(t);
  free(g);
  free(last);
  free(other);
  free(fallback);
  free(end);
  return exp_outset_done(set, 0);
}
