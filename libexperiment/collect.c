/* collect.c -- `lcplab collect`: the results of a plan merged
 * into the section CSVs, the per-class profiles, the tables and the
 * figures (experiments/CAMPAIGNS.md, "Campaigns" and "Outputs"); the
 * files are written as one set (outputs.c), the tables by tables.c.
 *
 * Every task's result is read and checked (result.c): a file of
 * another plan is stale, a file without its end line truncated, one whose
 * checksum or row count does not match corrupted; such files are named on
 * stderr and left out, and so are missing tasks (listed as ranges).  A task
 * whose result says task_status failed (an external solver left no usable
 * answer: no file, a FIFO, a file that does not read), error (the problem
 * could not be read) or crashed (its worker died or it ran out of memory)
 * is merged (its rows say failed, error or crashed) and listed: failed, or
 * not finished (error, crashed: such a task runs again on the next run).
 *
 * Provenance: the results must agree on cpu, compiler, cflags, blas, BLAS
 * threads, binary, precision, revision and time limit; results that differ
 * are not merged (a comparison across machines or builds is not one
 * comparison) unless allow_mixed, and then the preamble lists every value
 * with its count.  Hosts may differ (GNU parallel over ssh, Slurm nodes):
 * they are listed.
 *
 * Rows are merged in task order, so the CSV does not depend on how the
 * tasks were run (one process, N workers, GNU parallel, a Slurm array),
 * apart from the timing columns.
 */
#define _GNU_SOURCE

#include "exp_grad.h"
#include "exp_internal.h"
#include "exp_task.h"
#include "exp_tables.h"

#include "dyn_world.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct loaded {
  exp_result *res; /* per task; NULL when left out */
  char **why;      /* per task: why left out (NULL: missing or ok) */
  int missing, bad, failed, ok;
} loaded;

static void load_all(const exp_plan *pl, loaded *L) {
  for (int i = 0; i < pl->ntasks; i++) {
    char path[EXP_PATH_MAX + 64], why[256] = "";
    exp_result_path(pl, i, path, sizeof path);
    exp_result *r = &L->res[i];
    int rc = exp_result_read(path, r, why, sizeof why);
    if (rc == 1) {
      L->missing++;
      r->task = -1;
      continue;
    }
    if (rc == 0 && !exp_result_matches(pl, i, r, why, sizeof why)) {
      exp_result_free(r);
      rc = -1;
    }
    if (rc < 0) {
      L->why[i] = strdup(why);
      L->bad++;
      r->task = -1;
      continue;
    }
    L->ok++;
    L->failed += strcmp(r->task_status, "ok") != 0;
  }
}

/* ---- provenance ----------------------------------------------------------------------- */

typedef struct pkey {
  const char *name;
  size_t off; /* offset of a char[] in exp_result, or of prov's */
  int in_prov;
} pkey;

static const pkey identity[] = {
  { "cpu", offsetof(exp_prov, cpu), 1 },
  { "compiler", offsetof(exp_prov, compiler), 1 },
  { "cflags", offsetof(exp_prov, cflags), 1 },
  { "blas", offsetof(exp_prov, blas), 1 },
  { "blas_threads", offsetof(exp_prov, blas_threads), 1 },
  { "binary", offsetof(exp_prov, binary), 1 },
  { "precision", offsetof(exp_prov, precision), 1 },
  { "rev", offsetof(exp_result, rev), 0 },
};
enum { NIDENT = (int)(sizeof identity / sizeof identity[0]) };

/* Beyond the identity keys: the section's time limit (NIDENT, compared
 * within a section) and the memory limit the task ran under (MEMLIM,
 * reported, never refused as mixed). */
enum { MEMLIM = NIDENT + 1 };

static const char *key_of(const exp_result *r, int k, char *buf, size_t len) {
  if (k == NIDENT) {
    snprintf(buf, len, "%g", r->time_limit);
    return buf;
  }
  if (k == MEMLIM) return r->prov.memory_limit[0] ? r->prov.memory_limit : "unknown";
  const char *base = identity[k].in_prov ? (const char *)&r->prov : (const char *)r;
  return base + identity[k].off;
}

static const char *key_name(int k) {
  return k == NIDENT ? "time_limit" : k == MEMLIM ? "memory_limit_mb" : identity[k].name;
}

/* Distinct values of key k over the results of tasks in [from, to) with
 * counts, "v1 (n1 tasks); v2 (n2)"; returns the number of distinct values. */
static int distinct(const loaded *L, int ntasks, int k, const int *sel, char *out, size_t len) {
  int nd = 0;
  const char *vals[16];
  int counts[16];
  char bufs[16][64];
  for (int i = 0; i < ntasks; i++) {
    if (L->res[i].task < 0 || (sel && !sel[i])) continue;
    char b[64];
    const char *v = key_of(&L->res[i], k, b, sizeof b);
    int j = 0;
    while (j < nd && strcmp(vals[j], v) != 0) j++;
    if (j == nd && nd < 16) {
      snprintf(bufs[nd], sizeof bufs[nd], "%s", k == NIDENT ? v : "");
      vals[nd] = k == NIDENT ? bufs[nd] : v;
      counts[nd++] = 0;
    }
    if (j < 16) counts[j]++;
  }
  size_t used = 0;
  out[0] = '\0';
  for (int j = 0; j < nd && used < len; j++) {
    int r = nd == 1 ? snprintf(out + used, len - used, "%s", vals[j])
                    : snprintf(out + used, len - used, "%s%s (%d tasks)", j ? "; " : "", vals[j],
                               counts[j]);
    if (r < 0) break;
    used += (size_t)r;
  }
  return nd;
}

static int check_mixed(const exp_plan *pl, const loaded *L, int allow) {
  int mixed = 0;
  int *sel = calloc((size_t)(pl->ntasks > 0 ? pl->ntasks : 1), sizeof *sel);
  if (!sel) return 1;
  /* the time limit within each section (sections have their own) */
  for (int si = 0; si <= pl->cfg.nsec; si++) {
    for (int i = 0; i < pl->ntasks; i++) sel[i] = si == pl->cfg.nsec || pl->tasks[i].section == si;
    int k0 = si == pl->cfg.nsec ? 0 : NIDENT, k1 = si == pl->cfg.nsec ? NIDENT - 1 : NIDENT;
    for (int k = k0; k <= k1; k++) {
      char vals[2048];
      if (distinct(L, pl->ntasks, k, sel, vals, sizeof vals) > 1) {
        mixed = 1;
        if (!allow)
          exp_say(&pl->cfg.log, EXP_SAY_ERROR,
                  "collect: %s: mixed provenance: the results differ in %s: %s (merge them "
                  "anyway with --allow-mixed)",
                  pl->dir, key_name(k), vals);
      }
    }
  }
  free(sel);
  return mixed;
}

/* ---- the section CSVs ---------------------------------------------------------------------- */

static void section_lines(FILE *f, const exp_config *cfg, const exp_section *s) {
  fprintf(f, "# config: %s (lines %d-%d)\n", cfg->path, s->first_line, s->last_line);
  const char *p = cfg->text;
  for (int line = 1; *p && line <= s->last_line; line++) {
    const char *e = strchr(p, '\n');
    int ll = e ? (int)(e - p) : (int)strlen(p);
    if (line >= s->first_line && ll > 0) fprintf(f, "# config> %.*s\n", ll, p);
    p += ll + (e ? 1 : 0);
  }
}

/* The failed-step policy of a scene section (docs/dynamics.md, "The world
 * step"): what the file or the section set, else the world's defaults. */
static void failure_line(FILE *f, const exp_failure *fl) {
  char it[32];
  if (fl->fallback_max_iter > 0)
    snprintf(it, sizeof it, "%ld", fl->fallback_max_iter);
  else
    snprintf(it, sizeof it, "200");
  fprintf(f,
          "# on_failure: %s (fallback solver %s, %s iterations; a failed step's row says "
          "what it applied; energy rule: a budget stop whose impulses would add more than the "
          "run's drift scale beyond gravity, loads, motors and springs is a failed step; "
          "energy bound: so is a step whose solver's impulses add more kinetic energy beyond "
          "the stabilisation's work than tol times the step's scale)\n",
          fl->on_failure >= 0 ? dyn_failure_policy_str((dyn_failure_policy)fl->on_failure)
                              : "fallback",
          fl->fallback_solver[0] ? fl->fallback_solver
                                 : "direct for equality rows only, nsgs for cones, else pgs",
          it);
}

static void load_summary(const loaded *L, const int *sel, int ntasks, FILE *f) {
  double lo = INFINITY, hi = -INFINITY, first = NAN, last = NAN;
  for (int i = 0; i < ntasks; i++) {
    const exp_result *r = &L->res[i];
    if (r->task < 0 || !sel[i]) continue;
    if (isnan(first)) first = r->prov.load_start;
    last = r->prov.load_end;
    lo = fmin(lo, fmin(r->prov.load_start, r->prov.load_end));
    hi = fmax(hi, fmax(r->prov.load_start, r->prov.load_end));
  }
  if (isnan(first))
    fprintf(f, "# load: no task ran\n");
  else
    fprintf(f,
            "# load: %.2f at the start of the first task, %.2f at the end of the last; "
            "%.2f to %.2f over the tasks (1-minute load average)\n",
            first, last, lo, hi);
}

/* The build and machine lines: each identity key's value (distinct(), or
 * "unknown" without a result), lcplab's version, the cores, governor and
 * hosts of the first result. */
static void identity_lines(FILE *f, const exp_plan *pl, const loaded *L, const int *sel) {
  char v[2048];
  int first = -1;
  for (int i = 0; i < pl->ntasks && first < 0; i++)
    if (sel[i] && L->res[i].task >= 0) first = i;
  const exp_result *r0 = first >= 0 ? &L->res[first] : NULL;
  static const char *const names[] = { "cpu",     "compiler", "cflags",    "blas",
                                       "threads", "binary",   "precision", "rev" };
  for (int k = 0; k < NIDENT; k++) {
    if (r0)
      distinct(L, pl->ntasks, k, sel, v, sizeof v);
    else
      snprintf(v, sizeof v, "%s", k == NIDENT - 1 ? pl->rev : "unknown (no result)");
    if (k == 4)
      fprintf(f,
              "# threads: OpenBLAS threads %s per task (every task sets 1; lcplab's solvers "
              "are single-threaded)\n",
              v);
    else
      fprintf(f, "# %s: %s\n", names[k], v);
  }
  fprintf(f, "# lcplab: %s\n", SLV_VERSION);
  if (!r0) return;
  fprintf(f, "# cores: %d\n# governor: %s\n", r0->prov.cores, r0->prov.governor);
  char hosts[2048] = "";
  size_t used = 0;
  for (int i = 0; i < pl->ntasks && used < sizeof hosts - 200; i++) {
    if (!sel[i] || L->res[i].task < 0 || strstr(hosts, L->res[i].prov.host)) continue;
    used += (size_t)snprintf(hosts + used, sizeof hosts - used, "%s%s", used ? "; " : "",
                             L->res[i].prov.host);
  }
  fprintf(f, "# host: %s\n", hosts);
}

/* The settings of a scene section's runs: solver settings, time limit, what
 * is compared, the failed-step policy and each scene's world. */
static void scene_lines(FILE *f, const exp_plan *pl, const exp_section *s) {
  fprintf(f,
          "# solver settings: tol %s max_iter %s per step (world defaults: 1e-08, 50), warm "
          "start from the previous step\n",
          s->ntol ? "given" : "default", s->max_iter ? "given" : "default");
  fprintf(f, "# time_limit_s: %g (a whole scene run)\n", exp_time_limit(pl, s));
  fprintf(f, "# comparison: %s\n", s->compare_integrators ? "integrators" : "solvers");
  failure_line(f, &s->failure);
  for (int k = 0; k < s->nsrc; k++)
    if (s->src[k].kind == EXP_SRC_SCENE) exp_scene_world_line(f, s, &s->src[k]);
}

/* The precision clause of the timing line: empty without `precision`. */
static const char *precision_text(const exp_section *s, char *buf, size_t len) {
  buf[0] = '\0';
  if (s->precision > 0.0)
    snprintf(buf, len, " and the median's 95 %% interval within %g %% of it (its half-width)",
             100.0 * s->precision);
  return buf;
}

/* The settings of a problem section's solves: tolerances, limits, the
 * timing protocol, the winners' tie tolerance and the condition estimate. */
static void solve_lines(FILE *f, const exp_plan *pl, const exp_section *s, double tie,
                        const char *memlim) {
  char prec[96];
  double tols[EXP_MAX_TOLS];
  int nt = exp_section_tols(s, tols);
  fprintf(f, "# tol:");
  for (int k = 0; k < nt; k++) fprintf(f, " %g", tols[k]);
  fprintf(f, "  max_iter: %ld\n", s->max_iter ? s->max_iter : 10000L);
  fprintf(f, "# time_limit_s: %g (each solve)\n", exp_time_limit(pl, s));
  fprintf(f,
          "# memory_limit_mb: %s per task (RLIMIT_AS as in force in the tasks: a solver whose "
          "workspace does not fit is refused, out_of_memory)\n",
          memlim);
  fprintf(f,
          "# timing: clock_gettime(CLOCK_MONOTONIC) around slv_solve only (external "
          "solvers: see time_source), cold start, one warm-up, then runs until >= %ld runs "
          "and >= %g s in all%s, or %g s in all (the budget; one run when the warm-up takes "
          "that long), at most %d runs; "
          "median (time_s), quartiles (time_q1_s, time_q3_s: type 7), min; one timed task at a "
          "time (untimed tasks beside it), replicate passes interleaved with the first\n",
          s->min_runs, s->min_time, precision_text(s, prec, sizeof prec), s->max_time,
          EXP_RUNS_MAX);
  fprintf(f, "# tie_tolerance: %g (fastest at tau = 1: within a factor %g of the best; %s)\n", tie,
          1.0 + tie, s->tie >= 0.0 ? "the section's tie" : "the noise, NAME_timing.csv");
  fprintf(f, "# cond_est: 1-norm condition estimate of A (slv_condition_estimate: "
             "LAPACK dlacn2 Hager-Higham), inf when A is singular\n");
  for (int k = 0; k < s->nsrc; k++)
    if (s->src[k].kind == EXP_SRC_SCENE) exp_export_world_line(f, &s->src[k]);
}

/* "# date: ... (collected)": now, in UTC. */
static void date_line(FILE *f) {
  char date[64] = "unknown";
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(f, "# date: %s (collected)\n", date);
}

/* "# program: NAME PATH sha256 HEX" for each file an external solver of
 * the section runs (program.c; the hashes are in its tasks' keys). */
static void program_lines(FILE *f, const exp_plan *pl, const exp_section *s) {
  for (int j = 0; j < s->nsolvers; j++)
    for (int k = 0; k < pl->nprogs; k++)
      if (s->solvers[j].ext >= 0 && pl->progs[k].ext == s->solvers[j].ext)
        fprintf(f, "# program: %s %s sha256 %s\n", pl->cfg.ext[pl->progs[k].ext].name,
                pl->progs[k].path, pl->progs[k].sha256);
}

/* The CSV preamble of a section (experiments/README.md, "Provenance"):
 * what ran, with which settings, where and when. */
static void preamble(FILE *f, const exp_plan *pl, const exp_section *s, const loaded *L,
                     const int *sel, int ntask, int nres, int nmiss, int nfail, double tie) {
  fprintf(f, "# lcplab experiment: %s %s (experiments/README.md)\n", exp_kind_str(s->kind),
          s->name);
  section_lines(f, &pl->cfg, s);
  fprintf(f, "# plan: %s (id %s)\n", pl->dir, pl->id);
  if (s->absent[0])
    fprintf(f, "# externals_absent: %s (requires= not found: left out)\n", s->absent);
  program_lines(f, pl, s);
  identity_lines(f, pl, L, sel);
  char memlim[2048] = "unknown (no result)";
  if (nres > 0) distinct(L, pl->ntasks, MEMLIM, sel, memlim, sizeof memlim);
  load_summary(L, sel, pl->ntasks, f);
  fprintf(f, "# seed: %lu\n", s->seed);
  if (s->kind == EXP_FIDELITY)
    exp_fidelity_lines(f, pl, s);
  else if (exp_kind_is_scene(s->kind))
    scene_lines(f, pl, s);
  else
    solve_lines(f, pl, s, tie, memlim);
  if (s->figure[0]) fprintf(f, "# figure: %s\n", s->figure);
  date_line(f);
  fprintf(f, "# tasks: %d of %d with a result (%d missing or left out, %d failed)\n", nres, ntask,
          nmiss, nfail);
}

/* The rows of the section, parsed (owned copies). */
static int gather_rows(const exp_plan *pl, const loaded *L, int si, exp_row **rows, int *nrows) {
  int n = 0;
  for (int i = 0; i < pl->ntasks; i++)
    if (pl->tasks[i].section == si && L->res[i].task >= 0) n += L->res[i].nrows;
  *rows = calloc((size_t)(n > 0 ? n : 1), sizeof **rows);
  if (!*rows) return -1;
  int k = 0;
  for (int i = 0; i < pl->ntasks; i++) {
    if (pl->tasks[i].section != si || L->res[i].task < 0) continue;
    for (int j = 0; j < L->res[i].nrows; j++) {
      exp_row *r = &(*rows)[k++];
      r->text = strdup(L->res[i].rows[j]);
      if (!r->text) return -1;
      r->nf = exp_csv_split(r->text, r->f, 48);
    }
  }
  *nrows = k;
  return 0;
}

static void free_rows(exp_row *rows, int n) {
  for (int k = 0; rows && k < n; k++) free(rows[k].text);
  free(rows);
}

/* The kinds whose tables fold identical algorithms into one entry. */
static int count_same(exp_kind k) { return k == EXP_PROFILE || k == EXP_SCALING; }

/* Writes a parsed row back as CSV. */
static void put_row(FILE *f, const exp_row *r) {
  for (int k = 0; k < r->nf; k++) {
    if (k) fputc(',', f);
    exp_csv_put(f, r->f[k]);
  }
  fputc('\n', f);
}

static int plot(const exp_log *log, const exp_section *s, const char *base, const char *csv,
                const char *csv2, const exp_collect_opts *o) {
  return exp_figure_draw(log, s, base, csv, csv2, o->scripts, o->gnuplot);
}

/* Where the selected tasks ran (exp_placement): their results' prov
 * placement. */
static void placement_of(const exp_plan *pl, const loaded *L, const int *sel, exp_placement *pc) {
  memset(pc, 0, sizeof *pc);
  int seen[1024] = { 0 };
  for (int i = 0; i < pl->ntasks; i++) {
    if (!sel[i] || L->res[i].task < 0) continue;
    for (int k = 0; k < 4; k++) pc->speed[k] += L->res[i].speed[k];
    int cpu;
    if (strcmp(L->res[i].prov.placement, "serial") == 0) {
      pc->serial++;
      continue;
    }
    if (sscanf(L->res[i].prov.placement, "cpu %d", &cpu) != 1 || cpu < 0 || cpu >= 1024) {
      pc->unpinned++;
      continue;
    }
    pc->pinned++;
    if (seen[cpu]++) continue;
    pc->cpus++;
  }
  size_t used = 0;
  for (int cpu = 0; cpu < 1024 && used + 8 < sizeof pc->list; cpu++)
    if (seen[cpu])
      used +=
          (size_t)snprintf(pc->list + used, sizeof pc->list - used, "%s%d", used ? " " : "", cpu);
}

static void list_out(const exp_log *log, int list, const char *path) {
  struct stat st;
  if (list && stat(path, &st) == 0 && st.st_size > 0) exp_say(log, EXP_SAY_OUTPUT, "%s", path);
}

/* BASE_same.csv: the preamble, then every group of runs of one problem
 * with one trace (exp_tab_same_groups_write), from every name's rows.  0,
 * or -1 after the message. */
static int write_same_groups(exp_outset *set, const char *base, const char *pre,
                             const exp_row *rows, int nrows) {
  FILE *g = exp_tab_open(set, base, "same", "csv");
  if (!g) return -1;
  fputs(pre, g);
  fprintf(g, "# the runs of one problem and tolerance with one trace (status, iterations, "
             "pivots, x): one algorithm there; time_ratio over the runs the library timed\n");
  return exp_outset_done(set, exp_tab_same_groups_write(g, EXP_PROFILE, rows, nrows));
}

/* A gradients section's NAME_vjp_goal.csv: the VJP goal per problem
 * (exp_grad.h). */
static int write_vjp_goal(exp_outset *set, const char *base, const char *pre, const exp_row *rows,
                          int nrows) {
  FILE *g = exp_tab_open(set, base, "vjp_goal", "csv");
  if (!g) return -1;
  fputs(pre, g);
  fprintf(g,
          "# the VJP goal (issue 83): each solver's fastest VJP within the fastest "
          "converged solve of lemke, dantzig, enum or nsn_ac, n <= 1000\n%s\n",
          exp_grad_goal_header);
  return exp_outset_done(set, exp_grad_goal_write(g, rows, nrows));
}

/* The CSVs and tables of section si into set (published by exp_collect);
 * *rows_out: its row count.  0, or -1 after the message. */
static int write_section(const exp_plan *pl, const loaded *L, int si, const exp_collect_opts *o,
                         exp_outset *set, int *rows_out) {
  const exp_section *s = &pl->cfg.sec[si];
  int *sel = calloc((size_t)(pl->ntasks > 0 ? pl->ntasks : 1), sizeof *sel);
  int ntask = 0, nres = 0, nfail = 0;
  for (int i = 0; sel && i < pl->ntasks; i++)
    if (pl->tasks[i].section == si) {
      sel[i] = 1;
      ntask++;
      nres += L->res[i].task >= 0;
      nfail += L->res[i].task >= 0 && strcmp(L->res[i].task_status, "ok") != 0;
    }
  exp_row *rows = NULL;
  int nrows = 0;
  if (!sel || gather_rows(pl, L, si, &rows, &nrows)) {
    free(sel);
    free_rows(rows, nrows);
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: out of memory");
    return -1;
  }
  *rows_out = nrows;
  /* the tables count one entry per algorithm (tables_same.c); the section's
   * CSV keeps every name's rows, NAME_tex.csv both */
  exp_row *trows = rows, *both = NULL;
  int ntrows = nrows;
  if (count_same(s->kind) && exp_tab_merge_same(s->kind, rows, nrows, &trows, &ntrows)) {
    free(sel);
    free_rows(rows, nrows);
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: out of memory");
    return -1;
  }
  char base[EXP_PATH_MAX + 80], csv[EXP_PATH_MAX + 96], csv2[EXP_PATH_MAX + 112];
  snprintf(base, sizeof base, "%s/%s", o->out, s->name);
  snprintf(csv, sizeof csv, "%s.csv", base);
  const char *suf = exp_csv2_suffix(s->kind);
  snprintf(csv2, sizeof csv2, "%s%s.csv", base, suf ? suf : "");
  int rc = -1;
  char *pre = NULL; /* the preamble once, for the CSVs and NAME_tex.csv */
  size_t prelen = 0;
  FILE *pf = open_memstream(&pre, &prelen);
  if (pf) {
    const char *why;
    double tie = exp_section_tie(s, trows, ntrows, &why);
    preamble(pf, pl, s, L, sel, ntask, nres, ntask - nres, nfail, tie);
    if (fclose(pf) != 0) pre = NULL;
  }
  if (!pre) exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: out of memory");
  exp_tab_cols tc = exp_tab_cols_of(s->kind);
  FILE *f = pre ? exp_outset_open(set, csv) : NULL;
  if (f) { /* the section's own rows; a profile's replicate passes beside them */
    fputs(pre, f);
    fprintf(f, "%s\n", exp_csv_header(s->kind));
    for (int k = 0; k < nrows; k++)
      if (!exp_tab_is_replicate_row(&rows[k], &tc)) put_row(f, &rows[k]);
    rc = exp_outset_done(set, 0);
  }
  if (rc == 0 && s->kind == EXP_PROFILE) {
    char rcsv[EXP_PATH_MAX + 112];
    snprintf(rcsv, sizeof rcsv, "%s_replicates.csv", base);
    FILE *g = exp_outset_open(set, rcsv);
    rc = -1;
    if (g) {
      fputs(pre, g);
      fprintf(g,
              "# the replicate passes (replicates %ld): the timed set run again after every "
              "section, each pass in another order; the noise between passes and the tie "
              "are NAME_timing.csv's\n%s\n",
              s->replicates, exp_csv_header(s->kind));
      for (int k = 0; k < nrows; k++)
        if (exp_tab_is_replicate_row(&rows[k], &tc)) put_row(g, &rows[k]);
      rc = exp_outset_done(set, 0);
    }
    if (rc == 0) rc = write_same_groups(set, base, pre, rows, nrows);
  }
  if (rc == 0 && suf) {
    FILE *g = exp_outset_open(set, csv2);
    rc = -1;
    if (g) {
      fputs(pre, g);
      fprintf(g, "# computed from %s\n%s\n", exp_basename(csv), exp_csv2_header(s->kind));
      rc = exp_outset_done(set,
                           s->kind == EXP_PROFILE  ? exp_profile_write(g, s, trows, ntrows)
                           : s->kind == EXP_SCENES ? exp_scene_slopes_write(g, NULL, trows, ntrows)
                           : s->kind == EXP_GRADIENTS ? exp_grad_quality_write(g, trows, ntrows)
                                                      : exp_slopes_write(g, NULL, trows, ntrows));
    }
  }
  if (rc == 0 && s->kind == EXP_GRADIENTS) rc = write_vjp_goal(set, base, pre, trows, ntrows);
  if (rc == 0) rc = exp_tables_write(pl, si, base, trows, ntrows, set);
  if (rc == 0 && !exp_kind_is_scene(s->kind) && s->kind != EXP_CONVERGENCE &&
      s->kind != EXP_GRADIENTS) {
    exp_placement pc;
    placement_of(pl, L, sel, &pc);
    rc = exp_timing_write(s, base, trows, ntrows, &pc, set);
  }
  if (rc == 0 && trows != rows && !(both = malloc(((size_t)nrows + ntrows + 1) * sizeof *both)))
    rc = -1;
  if (both) {
    memcpy(both, rows, (size_t)nrows * sizeof *both);
    memcpy(both + nrows, trows, (size_t)ntrows * sizeof *both);
  }
  if (rc == 0)
    rc = exp_text_write(s, base, pre, both ? both : rows, both ? nrows + ntrows : nrows, set);
  free(both);
  if (trows != rows) exp_tab_rows_free(trows, ntrows);
  free(pre);
  free_rows(rows, nrows);
  free(sel);
  return rc;
}

/* The figures of section si, drawn from its published CSVs (a section
 * with rows, when figures are wanted): 1 drawn; -1 when one could not be
 * written (figure.c said which), else 0. */
static int plot_section(const exp_plan *pl, int si, const exp_collect_opts *o, int *plot_ok,
                        int list) {
  const exp_section *s = &pl->cfg.sec[si];
  if (o->no_plot || !*plot_ok || !o->scripts || !o->scripts[0]) return 0;
  if (s->kind == EXP_GRADIENTS || s->kind == EXP_FIDELITY)
    return 0; /* their tables are the paper's (paper/gen.py) */
  char base[EXP_PATH_MAX + 80], csv[EXP_PATH_MAX + 96], csv2[EXP_PATH_MAX + 112];
  snprintf(base, sizeof base, "%s/%s", o->out, s->name);
  snprintf(csv, sizeof csv, "%s.csv", base);
  const char *suf = exp_csv2_suffix(s->kind);
  snprintf(csv2, sizeof csv2, "%s%s.csv", base, suf ? suf : "");
  char pdf[EXP_PATH_MAX + 96], png[EXP_PATH_MAX + 96];
  snprintf(pdf, sizeof pdf, "%s.pdf", base);
  snprintf(png, sizeof png, "%s.png", base);
  exp_figures_remove(o->out, s->name);
  int drawn = plot(&pl->cfg.log, s, base, csv, suf ? csv2 : NULL, o);
  if (drawn < 0) *plot_ok = 0;
  list_out(&pl->cfg.log, list, pdf);
  list_out(&pl->cfg.log, list, png);
  return drawn == EXP_FIGURE_NOT_WRITTEN ? -1 : drawn == 0;
}

/* The names (relative to the output folder) of the files in set, into
 * names; 0, or -1 out of memory. */
static int set_names(const exp_outset *set, exp_owned *names) {
  int bad = 0;
  for (int k = 0; k < set->n && !bad; k++) bad = exp_owned_add(names, exp_basename(set->path[k]));
  return bad;
}

/* Every section's CSVs and tables, published together once all are
 * complete, then the figures; what was written is recorded as lcplab's
 * and the sections' outputs it did not write again are removed
 * (exp_outputs_own).  0, or -1 after the message (no output replaced). */
static int write_outputs(const exp_plan *pl, const loaded *L, const exp_collect_opts *o, int list) {
  int nsec = pl->cfg.nsec, rc = 0;
  int *nrows = calloc((size_t)(nsec > 0 ? nsec : 1), sizeof *nrows);
  int *drawn = calloc((size_t)(nsec > 0 ? nsec : 1), sizeof *drawn);
  exp_outset set = { NULL, NULL, 0, 0, 0, 0, &pl->cfg.log, list };
  exp_owned written = { NULL, 0, 0, 0 };
  if (!nrows || !drawn) exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: out of memory");
  for (int si = 0; nrows && drawn && si < nsec && rc == 0; si++)
    rc = write_section(pl, L, si, o, &set, &nrows[si]);
  if (rc == 0 && nrows && drawn && set_names(&set, &written) != 0) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: out of memory");
    rc = -1;
  }
  rc = exp_outset_publish(&set, nrows && drawn && rc == 0);
  int plot_ok = 1, published = rc == 0;
  for (int si = 0; published && si < nsec; si++)
    if (nrows[si] > 0) drawn[si] = plot_section(pl, si, o, &plot_ok, list);
  for (int si = 0; published && si < nsec; si++)
    if (drawn[si] < 0) rc = -1;
  /* the CSVs published: recorded, with the figures drawn; stale outputs go */
  if (published && exp_outputs_own(&pl->cfg, o->out, &written, drawn, o->start_over) != 0) rc = -1;
  exp_owned_free(&written);
  free(nrows);
  free(drawn);
  return rc;
}

/* "3-7, 9, 12" of the tasks with flag set. */
static void ranges(const int *flag, int n, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n && used + 32 < len; i++) {
    if (!flag[i] || (i > 0 && flag[i - 1])) continue;
    int j = i;
    while (j + 1 < n && flag[j + 1]) j++;
    used += (size_t)(j > i ? snprintf(out + used, len - used, "%s%d-%d", used ? ", " : "", i, j)
                           : snprintf(out + used, len - used, "%s%d", used ? ", " : "", i));
  }
  if (used + 32 >= len) snprintf(out + used, len - used, ", ...");
}

static void report(const exp_plan *pl, const loaded *L) {
  int *flag = calloc((size_t)(pl->ntasks > 0 ? pl->ntasks : 1), sizeof *flag);
  if (!flag) return;
  char list[1024];
  if (L->missing) {
    for (int i = 0; i < pl->ntasks; i++) flag[i] = L->res[i].task < 0 && !L->why[i];
    ranges(flag, pl->ntasks, list, sizeof list);
    exp_say(&pl->cfg.log, EXP_SAY_ERROR,
            "collect: %d of %d tasks have no result (run the plan again to finish it): %s",
            L->missing, pl->ntasks, list);
  }
  int shown = 0;
  for (int i = 0; i < pl->ntasks; i++) {
    if (L->why[i] && shown++ < 20) {
      char path[EXP_PATH_MAX + 64];
      exp_result_path(pl, i, path, sizeof path);
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: %s: %s: left out", path, L->why[i]);
    }
    flag[i] = L->res[i].task >= 0 && strcmp(L->res[i].task_status, "ok") != 0;
    if (flag[i] && shown++ < 20)
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: task %d %s: %s%s", i,
              strcmp(L->res[i].task_status, "crashed") == 0 ? "did not finish"
              : strcmp(L->res[i].task_status, "error") == 0 ? "could not run"
                                                            : "failed",
              L->res[i].message,
              exp_result_completed(&L->res[i]) ? "" : " (it runs again on the next run)");
  }
  if (shown > 20)
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: ... and %d more left out or failed", shown - 20);
  free(flag);
}

int exp_collect(const exp_plan *pl, const exp_collect_opts *o) {
  loaded L;
  memset(&L, 0, sizeof L);
  size_t nt = (size_t)(pl->ntasks > 0 ? pl->ntasks : 1);
  L.res = calloc(nt, sizeof *L.res);
  L.why = calloc(nt, sizeof *L.why);
  if (!L.res || !L.why) {
    free(L.res);
    free(L.why);
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "collect: out of memory");
    return EXP_EXIT_USAGE;
  }
  load_all(pl, &L);
  int rc = 0;
  if (check_mixed(pl, &L, o->allow_mixed) && !o->allow_mixed) {
    rc = EXP_EXIT_FAILED;
  } else {
    if (write_outputs(pl, &L, o, !o->quiet)) rc = EXP_EXIT_USAGE;
    report(pl, &L);
    if (rc == 0 && (L.missing || L.bad || L.failed)) rc = EXP_EXIT_FAILED;
  }
  for (int i = 0; i < pl->ntasks; i++) {
    if (L.res[i].task >= 0) exp_result_free(&L.res[i]);
    free(L.why[i]);
  }
  free(L.res);
  free(L.why);
  return rc;
}
