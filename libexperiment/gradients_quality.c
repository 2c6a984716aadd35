/* gradients_quality.c -- the quality table of a gradients section's rows
 * (NAME_quality.csv; experiments/README.md, "What each kind writes"), the
 * one summary `make bench-gradients` prints too (exp_grad_quality_of_csv,
 * through the Python extension) and the paper's table formats
 * (paper/gen.py).  Per solver (in the rows' order) and row class (free, at
 * a bound, separated, sticking, sliding, degenerate):
 *   problems        rows of the class (one per problem);
 *   stable          of them, the stable ones (modes hold, the reference's answer);
 *   accepted        of them, the ones whose solve converged at 1e-10;
 *   median_err_all  the median relative error over every row with a VJP;
 *   max_err_accepted_stable, within_1e-6_accepted_stable   the largest
 *                   error and the share within 1e-6 over the accepted and
 *                   stable rows (the goal);
 *   max_err_unconverged   the largest error of a budget-stopped answer;
 *   vjp_problems, median_vjp_ratio, max_vjp_ratio   per solver (the same
 *                   on each of its classes): vjp_s / solve_s of the first
 *                   row with a VJP of each problem.
 * nan where nothing is counted.
 */
#define _GNU_SOURCE

#include "exp_grad.h"
#include "exp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const exp_grad_quality_header =
    "solver,mode,problems,stable,accepted,median_err_all,max_err_accepted_stable,"
    "within_1e-6_accepted_stable,max_err_unconverged,vjp_problems,median_vjp_ratio,"
    "max_vjp_ratio,vjp_goal_problems,vjp_goal_met";

const char *const exp_grad_goal_header =
    "problem,n,fastest_exact,fastest_exact_solve_s,vjp_solvers,vjp_goal_met,worst_solver,"
    "worst_vjp_over_fastest,goal";

/* The exact solvers of the VJP goal (issue 83: the backward pass costs no
 * more than the fastest of their solves of the problem, n <= 1000). */
static const char *const exact_solvers[] = { "lemke", "dantzig", "enum", "nsn_ac", NULL };

/* The columns of a gradients row. */
typedef struct gcols {
  int problem, solver, status, mode, stable, err, solve, vjp, n;
} gcols;

static gcols gcols_of(void) {
  gcols c = { exp_col(EXP_GRADIENTS, "problem"), exp_col(EXP_GRADIENTS, "solver"),
              exp_col(EXP_GRADIENTS, "status"),  exp_col(EXP_GRADIENTS, "mode"),
              exp_col(EXP_GRADIENTS, "stable"),  exp_col(EXP_GRADIENTS, "rel_err"),
              exp_col(EXP_GRADIENTS, "solve_s"), exp_col(EXP_GRADIENTS, "vjp_s"),
              exp_col(EXP_GRADIENTS, "n") };
  return c;
}

static const char *fld(const exp_row *r, int c) { return c >= 0 && c < r->nf ? r->f[c] : ""; }

static double numf(const exp_row *r, int c) {
  const char *s = fld(r, c);
  char *e;
  double v = strtod(s, &e);
  return *s && e != s ? v : NAN;
}

/* The median of v[n] (reordered); NaN when n is 0. */
static double median_of(double *v, int n) {
  if (n == 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, exp_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void put_num(FILE *g, double v) {
  if (isnan(v))
    fputs(",nan", g);
  else
    fprintf(g, ",%.6e", v);
}

/* Solver s's VJP / solve ratios, one per problem, into w: their count. */
static int vjp_ratios(const exp_row *rows, int n, const gcols *c, const char *s, double *w) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(fld(&rows[i], c->solver), s) != 0) continue;
    double r = numf(&rows[i], c->vjp) / numf(&rows[i], c->solve);
    if (!isfinite(r)) continue;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = strcmp(fld(&rows[j], c->solver), s) == 0 &&
             strcmp(fld(&rows[j], c->problem), fld(&rows[i], c->problem)) == 0 &&
             isfinite(numf(&rows[j], c->vjp) / numf(&rows[j], c->solve));
    if (!seen) w[k++] = r;
  }
  return k;
}

static int is_exact(const char *s) {
  for (const char *const *e = exact_solvers; *e; e++)
    if (strcmp(*e, s) == 0) return 1;
  return 0;
}

/* The fastest solve of problem pr by an exact solver whose answer
 * converged (NaN: none), its solver into *who; n > 1000: NaN too. */
static double fastest_exact(const exp_row *rows, int n, const gcols *c, const char *pr,
                            const char **who) {
  double best = NAN;
  *who = "";
  for (int i = 0; i < n; i++) {
    const exp_row *r = &rows[i];
    if (strcmp(fld(r, c->problem), pr) != 0 || !is_exact(fld(r, c->solver)) ||
        strcmp(fld(r, c->status), "converged") != 0 || numf(r, c->n) > 1000)
      continue;
    double t = numf(r, c->solve);
    if (isfinite(t) && !(t >= best)) best = t, *who = fld(r, c->solver);
  }
  return best;
}

/* Solver s's fastest VJP on problem pr (NaN: none): each row's VJP is a
 * whole backward pass (modes read, free block factored, one solve), the
 * same work per class; the fastest of them, as of `repeat` runs, is the
 * least disturbed by the machine's other work. */
static double fastest_vjp(const exp_row *rows, int n, const gcols *c, const char *pr, const char *s) {
  double v = NAN;
  for (int i = 0; i < n; i++)
    if (strcmp(fld(&rows[i], c->problem), pr) == 0 && strcmp(fld(&rows[i], c->solver), s) == 0 &&
        isfinite(numf(&rows[i], c->vjp)))
      v = isnan(v) ? numf(&rows[i], c->vjp) : fmin(v, numf(&rows[i], c->vjp));
  return v;
}

/* 1 when row i is the first of its (problem, solver) [of its problem when
 * by_problem]. */
static int first_of(const exp_row *rows, int i, const gcols *c, int by_problem) {
  for (int j = 0; j < i; j++)
    if (strcmp(fld(&rows[j], c->problem), fld(&rows[i], c->problem)) == 0 &&
        (by_problem || strcmp(fld(&rows[j], c->solver), fld(&rows[i], c->solver)) == 0))
      return 0;
  return 1;
}

/* Solver s's VJP goal: the problems counted (a fastest exact solve, a VJP
 * of s) into *probs, the ones whose fastest VJP is within it into *met. */
static void solver_goal(const exp_row *rows, int n, const gcols *c, const char *s, int *probs,
                        int *met) {
  *probs = *met = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(fld(&rows[i], c->solver), s) != 0 || !first_of(rows, i, c, 0)) continue;
    const char *who, *pr = fld(&rows[i], c->problem);
    double f = fastest_exact(rows, n, c, pr, &who), v = fastest_vjp(rows, n, c, pr, s);
    if (isnan(f) || isnan(v)) continue;
    (*probs)++, *met += v <= f;
  }
}

/* The line of (solver s, class m); w scratch of n. */
static void quality_line(FILE *g, const exp_row *rows, int n, const gcols *c, const char *s,
                         const char *m, double *w) {
  int probs = 0, stable = 0, acc = 0, nall = 0, nok = 0, within = 0;
  double maxok = NAN, maxbad = NAN;
  for (int i = 0; i < n; i++) {
    const exp_row *r = &rows[i];
    if (strcmp(fld(r, c->solver), s) != 0 || strcmp(fld(r, c->mode), m) != 0) continue;
    int st = strcmp(fld(r, c->stable), "1") == 0,
        conv = strcmp(fld(r, c->status), "converged") == 0;
    double e = numf(r, c->err);
    probs++, stable += st, acc += conv;
    if (!isfinite(e)) continue;
    w[nall++] = e;
    if (st && conv) nok++, within += e <= 1e-6, maxok = isnan(maxok) ? e : fmax(maxok, e);
    if (!conv) maxbad = isnan(maxbad) ? e : fmax(maxbad, e);
  }
  fputs(s, g);
  fprintf(g, ",%s,%d,%d,%d", m, probs, stable, acc);
  put_num(g, median_of(w, nall));
  put_num(g, maxok);
  put_num(g, nok ? (double)within / nok : NAN);
  put_num(g, maxbad);
  int nr = vjp_ratios(rows, n, c, s, w);
  double mx = NAN;
  for (int k = 0; k < nr; k++) mx = isnan(mx) ? w[k] : fmax(mx, w[k]);
  fprintf(g, ",%d", nr);
  put_num(g, median_of(w, nr));
  put_num(g, mx);
  int gp, gm;
  solver_goal(rows, n, c, s, &gp, &gm);
  fprintf(g, ",%d,%d\n", gp, gm);
}

/* 1 when row i is the first of its solver. */
static int first_of_solver(const exp_row *rows, int i, const gcols *c) {
  for (int j = 0; j < i; j++)
    if (strcmp(fld(&rows[j], c->solver), fld(&rows[i], c->solver)) == 0) return 0;
  return 1;
}

/* 1 when solver s has a row of class m. */
static int has_class(const exp_row *rows, int n, const gcols *c, const char *s, const char *m) {
  for (int i = 0; i < n; i++)
    if (strcmp(fld(&rows[i], c->solver), s) == 0 && strcmp(fld(&rows[i], c->mode), m) == 0)
      return 1;
  return 0;
}

int exp_grad_quality_write(FILE *g, const exp_row *rows, int n) {
  const gcols c = gcols_of();
  double *w = malloc(((size_t)n + 1) * sizeof *w);
  if (!w) return -1;
  /* the solvers in the rows' order, each one's classes in exp_grad_mode_names' order (a
   * row without numbers -- skipped, refused -- has no class) */
  for (int i = 0; i < n; i++) {
    if (!first_of_solver(rows, i, &c)) continue;
    const char *s = fld(&rows[i], c.solver);
    for (int k = 0; k < EXP_GRAD_MODES; k++)
      if (has_class(rows, n, &c, s, exp_grad_mode_names[k]))
        quality_line(g, rows, n, &c, s, exp_grad_mode_names[k], w);
  }
  free(w);
  return ferror(g) ? -1 : 0;
}

/* Problem pr's goal line (row i its first). */
static void goal_line(FILE *g, const exp_row *rows, int n, const gcols *c, int i) {
  const char *who, *pr = fld(&rows[i], c->problem), *worst = "";
  double f = fastest_exact(rows, n, c, pr, &who), wr = NAN;
  int solvers = 0, met = 0;
  for (int k = 0; k < n; k++) {
    if (strcmp(fld(&rows[k], c->problem), pr) != 0 || !first_of(rows, k, c, 0)) continue;
    double v = fastest_vjp(rows, n, c, pr, fld(&rows[k], c->solver));
    if (isnan(v)) continue;
    solvers++, met += v <= f;
    if (isfinite(f) && !(v / f <= wr)) wr = v / f, worst = fld(&rows[k], c->solver);
  }
  const char *goal = numf(&rows[i], c->n) > 1000 ? "n > 1000"
                     : isnan(f)                  ? "no exact answer"
                     : solvers == 0              ? "no VJP"
                     : met == solvers            ? "met"
                                                 : "missed";
  fprintf(g, "%s,%s,%s", pr, fld(&rows[i], c->n), who);
  put_num(g, f);
  fprintf(g, ",%d,%d,%s", solvers, isnan(f) ? 0 : met, worst);
  put_num(g, wr);
  fprintf(g, ",%s\n", goal);
}

int exp_grad_goal_write(FILE *g, const exp_row *rows, int n) {
  const gcols c = gcols_of();
  for (int i = 0; i < n; i++)
    if (first_of(rows, i, &c, 1) && fld(&rows[i], c.problem)[0]) goal_line(g, rows, n, &c, i);
  return ferror(g) ? -1 : 0;
}

/* The table of writer (its header hdr) of a gradients CSV's rows. */
static int table_of_csv(const char *csv, const char *hdr,
                        int (*writer)(FILE *, const exp_row *, int), char **out, char *err,
                        size_t len) {
  *out = NULL;
  const char *want = exp_csv_header(EXP_GRADIENTS);
  const char *h = csv;
  while (*h == '#') h = strchr(h, '\n') ? strchr(h, '\n') + 1 : h + strlen(h);
  size_t wl = strlen(want);
  if (strncmp(h, want, wl) != 0 || (h[wl] != '\n' && h[wl] != '\0' && h[wl] != '\r')) {
    snprintf(err, len, "not a gradients CSV: the header must be %s", want);
    return -1;
  }
  size_t nl = 1;
  for (const char *p = h; *p; p++) nl += *p == '\n';
  char *text = strdup(h + wl), *buf = NULL, *save = NULL;
  exp_row *rows = calloc(nl, sizeof *rows);
  size_t size = 0;
  FILE *g = text && rows ? open_memstream(&buf, &size) : NULL;
  int n = 0, rc = -1;
  if (g) {
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
      size_t ll = strlen(l);
      if (ll && l[ll - 1] == '\r') l[ll - 1] = '\0';
      if (l[0] && l[0] != '#') rows[n].nf = exp_csv_split(l, rows[n].f, 48), n++;
    }
    fprintf(g, "%s\n", hdr);
    rc = writer(g, rows, n);
    if (fclose(g) != 0) rc = -1;
  }
  if (rc != 0) snprintf(err, len, "out of memory");
  free(rows), free(text);
  if (rc == 0)
    *out = buf;
  else
    free(buf);
  return rc;
}

int exp_grad_quality_of_csv(const char *csv, char **out, char *err, size_t len) {
  return table_of_csv(csv, exp_grad_quality_header, exp_grad_quality_write, out, err, len);
}

int exp_grad_goal_of_csv(const char *csv, char **out, char *err, size_t len) {
  return table_of_csv(csv, exp_grad_goal_header, exp_grad_goal_write, out, err, len);
}
