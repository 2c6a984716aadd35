/* exp_tables.h -- private to the table writers (tables.c and
 * tables_*.c): the helpers they share (tables_shared.c) and each writer of
 * the list in tables.c.  A writer takes a section, base = OUT/NAME and the rows of the
 * section's CSV (exp_csv_header's columns), opens its files in set and
 * returns exp_outset_done's status (0, or -1 after the message).
 */
#ifndef EXP_TABLES_H
#define EXP_TABLES_H

#include <stdio.h>

#include "exp_internal.h"

/* ---- names ---- */

/* Index of s in names[0..n), or -1. */
int exp_tab_index_of(char **names, int n, const char *s);
/* Index of s in names, appended (the pointer kept) when absent. */
int exp_tab_add_name(char **names, int *n, char *s);

/* ---- files ---- */

/* BASE_NAME.EXT, one file of set; its stream, or NULL after the message. */
FILE *exp_tab_open(exp_outset *set, const char *base, const char *name, const char *ext);
/* BASE_NAME.csv into *f and BASE_NAME.tex into *t: 0, or -1 after the
 * message (then exp_outset_done drops what was opened). */
int exp_tab_open_pair(exp_outset *set, const char *base, const char *name, FILE **f, FILE **t);

/* ---- LaTeX (booktabs; every cell escaped by exp_tex_escape) ---- */

/* One cell, with the separator before it unless first; tt: \texttt. */
void exp_tab_cell(FILE *t, int first, const char *s, int tt);
/* " & v" by fmt, or " & --" when v is not finite. */
void exp_tab_num(FILE *t, double v, const char *fmt);
/* The tabular's start: a comment line (note), the column spec, the head row. */
void exp_tab_begin(FILE *t, const char *spec, const char *const *head, int nh, const char *note);
void exp_tab_end(FILE *t);

/* ---- the section's rows ---- */

/* Column indices of a section's CSV. */
typedef struct exp_tab_cols {
  int problem, solver, tol, status, time, q1, q3, runs, cls, method, note, final, family, n;
  int iterations, pivots, res_rel, res_nat, res_scaled, x_digest;
  int tmin, ttotal, sample; /* time_min_s, time_total_s, time_runs_s */
  int rep;                  /* replicate (profile): > 0 a replicate pass's row */
  int solved, reported;     /* solved (the judge), reported_solved (the solver's own) */
} exp_tab_cols;
exp_tab_cols exp_tab_cols_of(exp_kind k);
/* Field c of r, "" when the row has none. */
const char *exp_tab_field(const exp_row *r, int c);
/* The rows that stand for one solve: every row but convergence history rows
 * and the replicate passes' rows (exp_tab_is_replicate_row). */
int exp_tab_is_result_row(const exp_row *r, const exp_tab_cols *c);
/* A row of a replicate pass (column replicate > 0): the between-run noise's. */
int exp_tab_is_replicate_row(const exp_row *r, const exp_tab_cols *c);
/* A result row whose solver's own verdict (reported_solved) is given and
 * is not the judge's (solved): experiments/README.md, "One stopping rule". */
int exp_tab_verdicts_differ(const exp_row *r, const exp_tab_cols *c);
/* 1 when row r counts as solved in the counts, winners, leaders, profiles
 * and the virtual best: the judge's verdict is converged and the solver's
 * own verdict, where given, agrees.  A disagreement costs only its own
 * row: the problem stays for every other solver (experiments/README.md,
 * "One stopping rule"). */
int exp_tab_row_solved(const exp_row *r, const exp_tab_cols *c);
/* The trace of a run, what identical algorithms share (exp_profile_same):
 * status, iterations, pivots and the digest of x, or without one the
 * residuals as printed; "" for a run without numbers or without work (0
 * iterations and 0 pivots: every solver returns the start there). */
void exp_tab_run_key(const exp_row *r, const exp_tab_cols *c, char *out, size_t len);
/* Row r's timed runs as weighted points into p (room for EXP_TSAMPLE + 3):
 * its time_runs_s sample, each point standing for repeats / (sample size)
 * runs; a row written before that column gives its quartiles and median,
 * a third of the runs each, or its median alone.  Their count (0: no time). */
int exp_tab_run_points(const exp_row *r, const exp_tab_cols *c, exp_wpoint *p);

/* The pass-to-pass log ratios of a section with replicate passes
 * (tables_timing.c): for each replicate row that converged with a time,
 * log(its time / the same (problem, solver, tol)'s time in the section's
 * own rows), when that converged too.  *out malloc'd (free it); their
 * count, 0 without replicate rows, -1 out of memory. */
int exp_tab_rep_logs(exp_row *rows, int nrows, const exp_tab_cols *c, double **out);

/* ---- identical algorithms: one entry (tables_same.c) ---- */

/* The rows the tables count (experiments/README.md, "Tables", "One entry
 * per algorithm"): rows with every solver that ran the same algorithm as
 * an earlier one on every problem and tolerance of the section (the same
 * status and trace, exp_tab_run_key, row for row, at least one trace)
 * folded into that earlier solver's rows, named "A=B=C" (every name), with
 * the runs of all its names pooled: time_s their weighted median, the
 * quartiles theirs, the least minimum, the repeats and total time summed
 * (exp_weighted_quantile).  *out: new rows (free with exp_tab_rows_free);
 * 0, or -1 out of memory. */
int exp_tab_merge_same(exp_kind k, exp_row *rows, int nrows, exp_row **out, int *nout);
/* NAME_same.csv's header and rows (experiments/README.md, "Tables",
 * `same`): one row per group of two runs or more of one problem and
 * tolerance with the same trace (exp_tab_run_key, the key the profiles'
 * identical algorithms use: status included; a run whose own verdict is
 * not the judge's has none).  Columns: tol, class, problem, status,
 * iterations, pivots, trace, runs, solvers ("a=b", in row order), timed
 * (the runs timed by the library, time_s > 0) and time_ratio (their
 * largest time over their least; empty under two).  rows: every name's,
 * unfolded.  0, or -1 out of memory. */
int exp_tab_same_groups_write(FILE *f, exp_kind kind, const exp_row *rows, int nrows);
void exp_tab_rows_free(exp_row *rows, int n);
/* The solver field's first name (before '='): the registry's name of a
 * merged entry, into out. */
const char *exp_tab_first_name(const char *solver, char *out, size_t len);

/* A key of up to four fields (class, tol, solver; and more for scenes) and
 * its count of each status (exp_status_column). */
typedef struct exp_tab_group {
  char *key[4]; /* class, tol, solver (and more for scenes) */
  int count[EXP_NSTATUS];
  int n;
} exp_tab_group;
/* The group of key in g[0..*ng), appended (zeroed) when absent. */
exp_tab_group *exp_tab_find_group(exp_tab_group *g, int *ng, char **key, int nk);

/* The classes and solvers of the coverage table, in order of appearance,
 * and the first tolerance (a problem counts once): 0, or -1 (no memory). */
typedef struct exp_tab_covset {
  char **cl, **sv, *first_tol;
  int ncl, nsv;
} exp_tab_covset;
int exp_tab_coverage_names(exp_row *rows, int nrows, const exp_tab_cols *c, exp_tab_covset *cs);
void exp_tab_covset_free(exp_tab_covset *cs);
/* One (class, solver) of the coverage table: its problems n, accepted acc,
 * and the refusal reasons with their counts ("KEY (K); ..."). */
/* Of those refusals, the ones that are an implementation limit of lcplab, not a
 * property of the method (the message says "an implementation limit":
 * slv_solver_accepts, docs/solvers.md, "Storage"). */
int exp_tab_coverage_limits(exp_row *rows, int nrows, const exp_tab_cols *c, const char *first_tol,
                            const char *cls, const char *solver);
void exp_tab_coverage_cell(exp_row *rows, int nrows, const exp_tab_cols *c, const char *first_tol,
                           const char *cls, const char *solver, int *n, int *acc, char *reasons,
                           size_t len);

/* ---- the writers (tables.c lists them) ---- */

int exp_tab_write_failures(const exp_section *s, const char *base, exp_row *rows, int nrows,
                           exp_outset *set);
int exp_tab_write_coverage(const exp_section *s, const char *base, exp_row *rows, int nrows,
                           exp_outset *set);
int exp_tab_write_agreement(const exp_section *s, const char *base, exp_row *rows, int nrows,
                            exp_outset *set);
int exp_tab_write_steps(const exp_section *s, const char *base, exp_row *rows, int nrows,
                        exp_outset *set);
int exp_tab_write_winners(const exp_section *s, const char *base, exp_row *rows, int nrows,
                          exp_outset *set);
int exp_tab_write_disagreements(const exp_section *s, const char *base, exp_row *rows, int nrows,
                                exp_outset *set);
int exp_tab_write_virtual_best(const exp_section *s, const char *base, exp_row *rows, int nrows,
                               exp_outset *set);
int exp_tab_write_timings(const exp_section *s, const char *base, exp_row *rows, int nrows,
                          exp_outset *set);

#endif /* EXP_TABLES_H */
