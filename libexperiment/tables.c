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
 *   NAME_same.csv        per problem and tolerance, the runs with one
 *                        trace (status, iterations, pivots, x): one
 *                        algorithm there, and the ratio of their times
 *                        (collect.c, exp_tab_same_groups_write; profile)
 *   NAME_tex.csv         every text of the section that is not a number
 *                        (the CSV preamble's values, the rows' fields, the
 *                        coverage reasons) and its LaTeX form: what a
 *                        document (paper/gen.py) quotes, escaped once, here
 * The profile curves and winners take part only the solvers that accepted
 * at least one problem of the class: a refusal is coverage, not a failure.
 *
 * This file holds the list of tables and the kinds each is written for
 * (exp_tables_write, exp_output_suffixes); the writers share
 * tables_shared.c (exp_tables.h) and are in tables_profile.c (profile,
 * winners and leaders, virtual best), tables_counts.c (failures, coverage,
 * agreement, steps), tables_timing.c (timing, timings), tables_slopes.c
 * (slopes) and tables_text.c (NAME_tex.csv).
 */
#define _GNU_SOURCE

#include "exp_tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the tables of each kind ------------------------------------------------------------- */

/* NAME_slopes.tex (its CSV is the section's second CSV, NAME_slopes.csv). */
static int write_slopes_tex(const exp_section *s, const char *base, exp_row *rows, int nrows,
                            exp_outset *set) {
  FILE *t = exp_tab_open(set, base, "slopes", "tex");
  if (!t) return exp_outset_done(set, -1);
  return exp_outset_done(set, s->kind == EXP_SCENES ? exp_scene_slopes_write(NULL, t, rows, nrows)
                                                    : exp_slopes_write(NULL, t, rows, nrows));
}

static int kind_scene(exp_kind k) { return k == EXP_DRIFT || k == EXP_ACCURACY; }
static int kind_problems(exp_kind k) { return !exp_kind_is_scene(k) && k != EXP_GRADIENTS; }
static int kind_profile(exp_kind k) { return k == EXP_PROFILE; }
static int kind_timed(exp_kind k) {
  return !exp_kind_is_scene(k) && k != EXP_CONVERGENCE && k != EXP_GRADIENTS;
}
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
  { "failures", 1, kind_problems, exp_tab_write_failures },
  { "coverage", 1, kind_problems, exp_tab_write_coverage },
  { "winners", 1, kind_profile, exp_tab_write_winners },
  { "timings", 1, kind_timed, exp_tab_write_timings },
  { "agreement", 1, kind_profile, exp_tab_write_agreement },
  { "disagreements", 1, kind_profile, exp_tab_write_disagreements },
  { "virtual_best", 1, kind_profile, exp_tab_write_virtual_best },
  { "slopes", 0, kind_scaling, write_slopes_tex },
  { "steps", 1, kind_scene, exp_tab_write_steps },
};
enum { NTABLES = sizeof table_defs / sizeof table_defs[0] };

/* The told placeholders of e, blank-separated, into out. */
static void told_words(const exp_external *e, char *out, size_t len) {
  size_t o = 0;
  out[0] = '\0';
  for (int k = 2; k < EXP_EXT_NKEYS && o + 1 < len; k++) /* {in} and {out}: every external's */
    if (e->told & (1u << k))
      o += (size_t)snprintf(out + o, len - o, "%s%s", o ? " " : "", exp_ext_keys[k]);
}

/* NAME_peers.csv (profile): every external solver of the section, what it
 * is (its version as the file states it, its programs and their SHA-256,
 * programs.tsv), how it runs (the command template, the instance format)
 * and what it is told (the placeholders it names, its tolerance ladder, the
 * keys of its time and of its own verdict); experiments/README.md, "One
 * stopping rule". */
static int write_peers(const exp_plan *pl, const exp_section *s, const char *base,
                       exp_outset *set) {
  FILE *f = exp_tab_open(set, base, "peers", "csv");
  if (!f) return -1;
  fprintf(f, "# every external solver of the section: version (version=, as the file states "
             "it), programs (requires= and the files its command names) with their SHA-256, the "
             "instance format, the command template, told (the values it is given), ladder "
             "(rungs of a tolerance ten times tighter), time_key, verdict_key\n"
             "solver,version,programs,sha256,format,command,told,ladder,time_key,verdict_key\n");
  for (int k = 0; k < s->nsolvers; k++) {
    int x = s->solvers[k].ext;
    if (x < 0 || x >= pl->cfg.next) continue;
    const exp_external *e = &pl->cfg.ext[x];
    char progs[2048] = "", sums[2048] = "", told[256];
    size_t po = 0, so = 0;
    for (int j = 0; j < pl->nprogs; j++)
      if (pl->progs[j].ext == x && po + 1 < sizeof progs && so + 1 < sizeof sums) {
        po += (size_t)snprintf(progs + po, sizeof progs - po, "%s%s", po ? " " : "",
                               pl->progs[j].path);
        so += (size_t)snprintf(sums + so, sizeof sums - so, "%s%s", so ? " " : "",
                               pl->progs[j].sha256);
      }
    told_words(e, told, sizeof told);
    const char *v[7] = { e->name, e->version, progs, sums, e->format, e->command, told };
    for (int j = 0; j < 7; j++) {
      if (j) fputc(',', f);
      exp_csv_put(f, v[j]);
    }
    fprintf(f, ",%d,", e->ladder);
    exp_csv_put(f, e->time_key);
    fputc(',', f);
    exp_csv_put(f, e->verdict_key);
    fputc('\n', f);
  }
  return exp_outset_done(set, 0);
}

int exp_tables_write(const exp_plan *pl, int section, const char *base, exp_row *rows, int nrows,
                     exp_outset *set) {
  const exp_section *s = &pl->cfg.sec[section];
  int rc = 0;
  for (int k = 0; k < NTABLES; k++)
    if (table_defs[k].applies(s->kind)) rc |= table_defs[k].write(s, base, rows, nrows, set);
  if (s->kind == EXP_PROFILE && rc == 0) rc = write_peers(pl, s, base, set);
  return rc;
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
  if (k == EXP_PROFILE && n < max)
    snprintf(sfx[n++], EXP_SUFFIX_MAX, "_replicates.csv");                          /* collect.c */
  if (k == EXP_PROFILE && n < max) snprintf(sfx[n++], EXP_SUFFIX_MAX, "_same.csv"); /* collect.c */
  if (k == EXP_PROFILE && n < max)
    snprintf(sfx[n++], EXP_SUFFIX_MAX, "_peers.csv"); /* write_peers */
  if (kind_timed(k) && n < max)
    snprintf(sfx[n++], EXP_SUFFIX_MAX, "_timing.csv");         /* exp_timing_write */
  if (n < max) snprintf(sfx[n++], EXP_SUFFIX_MAX, "_tex.csv"); /* exp_text_write */
  return n;
}
