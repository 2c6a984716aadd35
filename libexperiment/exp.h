/* exp.h -- the public interface of libexperiment, lcplab's comparison
 * engine: experiment files, plans, tasks, timed solves, scene runs, external
 * solvers and their judge, statistics, tables, figures and provenance.  The
 * lcplab program (`lcplab experiment`, `task`, `collect`, `figure`), the
 * tests and the fuzzers call it; it sits above libio, libdynamics and
 * libsolvers (docs/README.md, "The libraries"; experiments/README.md,
 * "Experiment files" and "Campaigns").
 *
 * The engine runs in five stages, each in its own file:
 *
 *   config    config.c    the .exp file -> exp_config (every error: one line
 *                         "FILE:LINE: KEY: what" to the sink, status 2, before
 *                         anything runs); a section's keys config_keys.c,
 *                         `external` lines config_external.c (the template
 *                         rule nested_shell.c), variables and values
 *                         config_parse.c, kinds' and classes' names names.c
 *   prepare   prepare.c   problems materialised as files (generated families,
 *                         scene exports) with metadata: class, n, nnz,
 *                         contacts, condition estimate
 *   plan      plan.c      problems x solvers x tols (scenes x friction x
 *                         integrators x solvers) -> tasks, written to a plan
 *                         folder (tasks.tsv, problems.tsv, run-parallel.sh,
 *                         slurm.sbatch); a task's key and whether it is done
 *                         task_done.c
 *   task      task.c      one task: its measurements, written as one result
 *                         file atomically (result.c), under a watchdog for the
 *                         time limit (watchdog.c); its rows rows.c, the
 *                         verdict judge.c, the scratch folder scratch.c;
 *                         scene_task.c runs a scene task, external.c an
 *                         external solver, scene_peer.c a scene peer
 *   collect   collect.c   results -> the section CSVs, the per-class profiles
 *                         and the tables (tables.c lists them, tables_*.c
 *                         write them), written as one set (outset.c,
 *                         outputs.c), the figures (figure.c)
 *
 * jobs.c runs the tasks of a plan on N local worker processes; prov.c
 * gathers the provenance (CPU, governor, load, compiler, BLAS, revision);
 * stats.c holds the pure computations (quantiles, profiles with ties and
 * identical algorithms, line fits with confidence intervals, status tallies,
 * LaTeX escaping), which tests/test_experiment_profile.c checks against
 * hand-worked examples; sha256.c the content hash of instances and task
 * keys, fnv1a.c the checksum of result files, fmt.c bounded text; shell.c
 * the quoting of values for scripts; util.c the clock, strict number
 * parsing and the message sink; generate.c the seeded instance families
 * (`generate` lines, `lcplab generate`); solve_options.c, solve_repeat.c and
 * solve_json.c the options, the timed repeats and the JSON of one solve
 * (`lcplab solve`; the repeats are lcplab.solve's too), export.c the files
 * of an exported step (`lcplab export`).
 *
 * The library never prints: every message is one line handed to the
 * caller's exp_log (exp_say).  Nothing here is global mutable state except
 * the signal flags of jobs.c (volatile sig_atomic_t, as signal handlers
 * require), set only while exp_jobs_run runs.
 */
#ifndef EXP_H
#define EXP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "dyn_run.h"
#include "dyn_world.h"
#include "slv.h"
#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* EXP_API marks the functions of the public interface (the library is
 * compiled with hidden visibility, Makefile.am "the libraries"). */
#ifndef EXP_API
#if defined(__GNUC__)
#define EXP_API __attribute__((visibility("default")))
#else
#define EXP_API
#endif
#endif

/* The statuses the engine's entry points return, the lcplab program's exit
 * statuses (docs/lcplab.1, "EXIT STATUS"): EXP_EXIT_USAGE for bad input
 * (the message names the file, line or field), EXP_EXIT_FAILED for results
 * missing, failed, corrupted or of mixed provenance. */
enum { EXP_EXIT_OK = 0, EXP_EXIT_USAGE = 2, EXP_EXIT_FAILED = 3 };

/* ---- messages and helpers (util.c) ----------------------------------------- */

/* The library never prints: every message is one line handed to the
 * caller's sink.  EXP_SAY_ERROR: why a call failed (the program prints it as
 * "lcplab: LINE"); EXP_SAY_NOTE: something the user should know that did not
 * stop the run ("lcplab: note: LINE"); EXP_SAY_INFO: a status line
 * ("lcplab: LINE"); EXP_SAY_PROGRESS: a progress line (the program rewrites
 * it in place on a terminal); EXP_SAY_OUTPUT: the name of a file written
 * (the program lists them on stdout). */
typedef enum exp_say_kind {
  EXP_SAY_ERROR = 0,
  EXP_SAY_NOTE = 1,
  EXP_SAY_INFO = 2,
  EXP_SAY_PROGRESS = 3,
  EXP_SAY_OUTPUT = 4
} exp_say_kind;

typedef struct exp_log {
  void (*say)(void *ctx, exp_say_kind kind, const char *line);
  void *ctx;
} exp_log;

/* Formats one line (any newline in the expansion becomes a space) and hands
 * it to log->say; nothing when log or log->say is NULL. */
EXP_API void exp_say(const exp_log *log, exp_say_kind kind, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* CLOCK_MONOTONIC in seconds. */
EXP_API double exp_now_s(void);
/* qsort comparator of doubles, ascending (medians of timings). */
EXP_API int exp_cmp_double(const void *pa, const void *pb);

/* Numbers from text: libsolvers' slv_parse_double / slv_parse_long (slv.h,
 * "numbers from text"), the toolkit's one strict parser. */
/* A byte count for --max-memory: a positive integer, optionally followed by
 * K, M, G or T (powers of 1024; lower case too, "KiB" ... accepted).
 * Returns 1 with *out set, 0 if s is not one (or does not fit size_t). */
EXP_API int exp_parse_bytes(const char *s, size_t *out);
/* A measured quantity the library wrote to one of its files (a condition
 * estimate, a friction coefficient): a number, inf, or nan for unknown,
 * as printf's %g writes them; anything else is an error. */
EXP_API slv_parse_error exp_parse_measured(const char *s, double *out);

/* 1 if something exists at path (file, directory, dangling link...). */
EXP_API int exp_path_exists(const char *path);
/* The last component of path (after the last '/'); never NULL. */
EXP_API const char *exp_basename(const char *path);

/* ---- problems to files (dump_solve.c) ------------------------------------------ */

/* One solve written so that `lcplab solve` reproduces it bit for bit:
 * DIR/stepN.lcp (p in its own storage, with the solver's name and opt),
 * DIR/stepN.warm (x_start, when opt->warm_start) and DIR/stepN.x
 * (x_solver); details in dump_solve.c.  Files are overwritten.  0, or -1
 * with the one-line reason in err. */
EXP_API int exp_dump_solve(const char *dir, long step, const slv_problem *p, const double *x_start,
                           const double *x_solver, const char *solver, const slv_options *opt,
                           char *err, size_t errlen);

/* ---- scene summaries (summary_parse.c) --------------------------------------------- */

/* A world's run, its per-step record, its metric columns and its summary
 * are libdynamics' (dyn_run.h: dyn_world_run, dyn_run_step, dyn_metric_*,
 * dyn_run_stats, dyn_run_summary); the engine adds what is about
 * comparing: a peer's summary line and the time per contact. */

/* step_s / contacts; NaN without contacts. */
EXP_API double exp_time_per_contact(double step_s, double contacts);

/* A scene peer's summary line (experiments/README.md, "Scene peers"): the
 * last line of text that starts with '{', a JSON object whose top-level
 * numbers steps, contacts_mean_timed, time_step_median_s, time_step_mean_s,
 * energy_start, energy_end and max_body_displacement are required,
 * max_penetration (or max_penetration_end), timed_steps, contacts_mean,
 * contacts_max, kinetic_end, max_settled_displacement, not_converged,
 * time_collide_mean_s, time_solve_mean_s and bodies read when present
 * (peer_scene's and `lcplab simulate`'s fields; null is NaN).  energy_drift
 * is left NaN: the caller has the scene's drift scale
 * (dyn_model_drift_scale).  0, or -1 with the reason in err. */
EXP_API int exp_run_summary_parse(const char *text, dyn_run_summary *o, char *err, size_t len);

/* ---- exported steps (export.c; `lcplab export`, docs/lcplab.1) ---------------- */

/* Where and how an export run writes its steps: DIR/SCENE_stepKKKKKK.EXT
 * (format: an index from exp_export_format), with global its form in the
 * bodies' velocities beside it (SCENE_stepKKKKKK.global.EXT); errors to log. */
typedef struct exp_export {
  const char *dir, *scene;
  int format, global;
  const exp_log *log;
  int condense; /* --condense-joints: the joint rows condensed at the step's answer
                   (slv_condense_rows; with global dyn_world_global_condensed_new;
                   docs/models.md, "Joint rows condensed") */
} exp_export;
/* The index of the export format `name` (dat, blcp, hdf5, mtx, lcplab) that
 * can hold the global form when `global`; -1 after the message (NULL name:
 * missing --format). */
EXP_API int exp_export_format(const exp_log *log, const char *name, int global);
EXP_API const char *exp_export_format_name(int f);
/* 1 (after the message naming --condense-joints) when w's steps can have
 * joint rows (dyn_world_joint_rows_possible) that the export's format
 * cannot hold with its contact rows (FCLIB, a global form, a Siconos .dat
 * with friction), and the export does not condense them: decided before
 * any file is written.  0 otherwise. */
EXP_API int exp_export_joint_rows_refused(const exp_export *e, const dyn_world *w);
/* 1 (after the message) if a file the export of step k would write exists. */
EXP_API int exp_export_step_exists(const exp_export *e, long k);
/* 1 (after the message: exp_output_is_input) if a file the export of step
 * k would write is one of the inputs in, force or not. */
typedef struct exp_inputs exp_inputs;
EXP_API int exp_export_step_is_input(const exp_export *e, long k, const exp_inputs *in);
/* Step st's problem p (and its global form, from w) and the impulses x the
 * world applied, to files, and their JSON line to json; 1, or 0 after the
 * message. */
EXP_API int exp_export_step(const exp_export *e, const dyn_world *w, const dyn_run_step *st,
                            const slv_problem *p, const double *x, FILE *json);

/* ---- pure computations (stats.c; no I/O, no allocation) --------- */

/* Dolan-More performance ratios (Dolan and More 2002, Math. Program. 91):
 * t[p*ns + s] is the cost (time) of solver s on problem p, with a failure
 * given as +INFINITY (any t that is not finite and > 0 counts as a failure).
 * r[p*ns + s] = t_ps / min_s' t_ps' (INFINITY for a failure, and for every
 * solver of a problem nobody solved). */
EXP_API void exp_profile_ratios(int np, int ns, const double *t, double *r);

/* The same with identical algorithms: alias[p*ns + s] = s' >= 0 when solver
 * s ran solver s''s own algorithm on problem p (res.method, e.g. pgs_wide on
 * a dense problem runs pgs), else -1 (alias may be NULL: no aliases).  The
 * minimum is taken over the runs that are not aliases; an alias whose s'
 * solved p gets r_ps = r_ps' (the same algorithm: one run, not two), an
 * alias whose s' did not is a run like any other. */
EXP_API void exp_profile_ratios_alias(int np, int ns, const double *t, const int *alias, double *r);

/* rho_s(tau) = #{p : r_ps <= tau} / np (0 when np = 0). */
EXP_API double exp_profile_rho(int np, int ns, const double *r, int s, double tau);

/* rho_s(tau) over the problems s accepts: #{p : not refused, r_ps <= tau} /
 * #{p : not refused}, refused[p*ns + s] = 1 when s refused p (status
 * refused: it does not take the problem, not a failure; refused may be
 * NULL: none), 0 when s accepts none.  A refused problem has r_ps = inf. */
EXP_API double exp_profile_rho_of(int np, int ns, const double *r, const unsigned char *refused,
                                  int s, double tau);

/* The problems solver s accepts: #{p : not refused[p*ns + s]} (np when
 * refused is NULL). */
EXP_API int exp_profile_accepted(int np, int ns, const unsigned char *refused, int s);

/* Identical algorithms from the traces: key[p*ns + s] is the run's trace
 * (status, iterations, pivots and the digest of x or the residuals as
 * printed; NULL or "" when there is none: refused, no numbers, no work).  A
 * run whose key equals an earlier solver's on the same problem ran that
 * solver's algorithm: alias[p*ns + s] = that solver (or the one it is an
 * alias of), unless alias already names one (res.method); a solver that an
 * earlier one's method names (auto listed before the solver it ran) stays
 * the algorithm, not an alias of itself. */
EXP_API void exp_profile_same(int np, int ns, const char *const *key, int *alias);

/* The breakpoints of rho_s: the distinct finite ratios of solver s, sorted
 * ascending, into taus (size >= np); returns their count. */
EXP_API int exp_profile_breaks(int np, int ns, const double *r, int s, double *taus);

/* Winners at tau = 1 with a tie tolerance: on problem p the solvers with
 * r_ps <= 1 + tie (tie >= 0), leaving out aliases (alias[p*ns+s] >= 0,
 * alias may be NULL), are the fastest; if there is one, it gets wins[s]++,
 * if there are several, each gets ties[s]++.  wins, ties: size ns, set to
 * the counts (not accumulated). */
EXP_API void exp_profile_winners(int np, int ns, const double *r, const int *alias, double tie,
                                 int *wins, int *ties);

/* The leaders of one class and tolerance of a winners table, over ns
 * solvers with their wins alone, ties and solved counts: counted[s] = 0 for
 * a solver whose runs were another's algorithm (same_as, left out of the
 * fastest), external[s] = 1 for an external solver.  The first solver in
 * order wins a tie of the keys.  -1: none. */
typedef struct exp_leaders {
  int fastest;       /* counted: the most wins alone, then the most solved */
  int ties;          /* the counted solvers' ties, summed */
  int most_solved;   /* the most problems solved by one solver */
  int best_builtin;  /* built-in: the most solved */
  int best_external; /* external: the most solved */
} exp_leaders;
EXP_API void exp_profile_leaders(int ns, const int *wins, const int *ties, const int *solved,
                                 const int *counted, const int *external, exp_leaders *out);

/* Coverage against the virtual best of one class and tolerance: solver s
 * against the best of the others, problem by problem.  t[p*ns + s] as
 * exp_profile_ratios (solved when finite and > 0), refused as
 * exp_profile_rho_of (may be NULL).  A problem no other solver solves is
 * in no denominator (experiments/README.md, "Tables": virtual_best). */
typedef struct exp_vbest {
  int others;   /* the problems some solver other than s solves */
  int accepted; /* of those, the ones s accepts */
  int solved;   /* of those, the ones s solves too */
  int alone;    /* the problems s solves and no other solver does */
} exp_vbest;
EXP_API void exp_profile_vbest(int np, int ns, const double *t, const unsigned char *refused, int s,
                               exp_vbest *out);

/* The between-run noise of a section: the relative spread of one row's
 * timed runs, (q3 - q1) / median (NaN when runs < 2 or the median is not
 * positive), and the median of the finite ones of k such spreads (rel is
 * reordered; NaN when none).  The tie tolerance: set >= 0 (the section's
 * `tie`), else the noise, else fallback (experiments/README.md, "Timing"). */
EXP_API double exp_rel_spread(double q1, double median, double q3, int runs);
EXP_API double exp_noise_median(double *rel, int k);
EXP_API double exp_tie_of(double set, double noise, double fallback);

/* The noise between independent passes over the timed set (a profile
 * section's `replicates`; experiments/README.md, "Timing"): dl[0..n) the
 * log ratios log(t_pass / t_first) of the same (problem, solver, tol) timed
 * in different passes.  The tie factor: exp(quantile q of |dl|) - 1, the
 * ratio by which two measurements of one solve differ in a share q of the
 * cells (the engine takes q = 0.9).  dl is replaced by |dl| and sorted;
 * NaN when n = 0. */
EXP_API double exp_tie_of_logs(double *dl, int n, double q);

/* Bootstrap interval of the win counts (exp_profile_winners) over B
 * resamples: each draws np problems with replacement and multiplies each
 * finite time by exp(+-dl[k] / sqrt 2) (a random pass-to-pass log ratio
 * of dl[0..nd), a random sign: one measurement's share of the difference
 * of two; nd = 0: times as measured), then counts the winners with the tie
 * tolerance.  lo[s], hi[s]: the 2.5 % and 97.5 % quantiles of solver s's
 * wins (type 7, rounded down and up).  t, alias as exp_profile_ratios_alias
 * (alias may be NULL); seed fixes the draws.  Work space: tw, rw (np*ns
 * doubles), aw (np*ns ints), wins (B*ns ints), tmp (2*ns ints), q (B
 * doubles).  No allocation. */
typedef struct exp_boot_work {
  double *tw, *rw, *q;
  int *aw, *wins, *tmp;
} exp_boot_work;
EXP_API void exp_profile_win_interval(int np, int ns, const double *t, const int *alias, double tie,
                                      const double *dl, int nd, int B, unsigned long long seed,
                                      exp_boot_work *w, int *lo, int *hi);

/* Quantile q in [0, 1] of the k >= 1 values x sorted ascending, by linear
 * interpolation between order statistics (Hyndman and Fan's type 7, R's
 * default): h = (k - 1) q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). */
EXP_API double exp_quantile(const double *x, int k, double q);

/* The timing summary of k >= 1 runs (t is sorted in place), with a sample
 * of the runs for pooling (the CSV's time_runs_s): all of them, ascending,
 * when k <= EXP_TSAMPLE, else their quantiles (j + 1/2) / EXP_TSAMPLE,
 * j = 0..EXP_TSAMPLE-1 (exp_quantile), each standing for k / nsample runs. */
enum { EXP_TSAMPLE = 16 };
typedef struct exp_tsum {
  double median, q1, q3, min, total;
  double sample[EXP_TSAMPLE];
  int nsample;
} exp_tsum;
EXP_API void exp_time_summary(double *t, int k, exp_tsum *out);

/* Runs pooled over identical algorithms (experiments/README.md, "Timing":
 * one algorithm under several names is one entry, timed by the median of
 * all its names' runs): n values v with weights w > 0 (a run's weight: the
 * runs it stands for).  The weighted quantile q in (0, 1): sorted by v,
 * the first v whose cumulative weight reaches q W (W the total weight),
 * the mean of it and the next when the cumulative weight equals q W
 * exactly (so equal weights give the ordinary median).  p is sorted in
 * place; NaN when n = 0. */
typedef struct exp_wpoint {
  double v, w;
} exp_wpoint;
EXP_API double exp_weighted_quantile(exp_wpoint *p, int n, double q);

/* The repetition rule: 1 when `runs` runs totalling `total` seconds are
 * enough: (runs >= min_runs and total >= min_time), or total >= max_time
 * (a slow solve: fewer runs, each reported), else 0. */
EXP_API int exp_repeat_done(int runs, double total, int min_runs, double min_time, double max_time);

/* The per-process repeat rule of an external whose template names {repeat}
 * (experiments/CAMPAIGNS.md, "External solvers"): after a probe process of one
 * solve that took t1 s, the number of solves one process times so that they
 * meet the repetition rule alone: max(min_runs, ceil(min_time / t1)), at
 * most floor(max_time / t1) (a slow solve) and at most cap, at least 1. */
EXP_API long exp_repeat_count(double t1, int min_runs, double min_time, double max_time, long cap);

/* Least squares y = a + b x over k points (x, y finite).  Returns 0 with a,
 * b and r2 (coefficient of determination; 1 when all y are equal) set, or -1
 * when k < 2 or all x are equal. */
EXP_API int exp_fit_line(const double *x, const double *y, int k, double *a, double *b, double *r2);

/* The same and the 95 % confidence interval of the slope, b +- t_{0.975,
 * k-2} se(b), se(b) = sqrt(SSres / (k - 2) / Sxx) (Student's t from GSL);
 * with k = 2 the interval is (-inf, inf): two points fix a line exactly. */
EXP_API int exp_fit_line_ci(const double *x, const double *y, int k, double *a, double *b,
                            double *r2, double *b_lo, double *b_hi);

/* The columns of the failure table, in order (status names as in the CSVs:
 * slv_status_str, plus the engine's own "refused", "time_limit" (also the library's), "interrupted",
 * "unconverged" (an external solver whose answer misses the tolerance),
 * "failed" (an external solver that wrote no usable answer), "error" (the
 * task could not run) and "crashed" (its worker died or it ran out of
 * memory: it runs again next time)); exp_status_column maps a status to its column
 * (EXP_NSTATUS - 1, "other", for anything else). */
enum { EXP_NSTATUS = 16 };
EXP_API const char *exp_status_name(int col);
EXP_API int exp_status_column(const char *status);

/* LaTeX text of s for a tabular cell: \ _ % & # $ { } ~ ^ < > | escaped,
 * control characters dropped; out (size len) always terminated; returns 0,
 * or -1 when truncated. */
EXP_API int exp_tex_escape(const char *s, char *out, size_t len);

/* The key under which refusal messages are grouped in the coverage table:
 * msg after the solver's own name ("NAME " or "NAME: "), up to the first ';'
 * or ':' outside parentheses, without the
 * parenthesised groups that hold a digit (this problem's details):
 * "pgs needs A(i,i) > 0; A(3,3)=0" -> "needs A(i,i) > 0",
 * "enum takes n <= 16 (n=200)" -> "takes n <= 16". */
EXP_API void exp_reason_key(const char *solver, const char *msg, char *out, size_t len);

/* ---- bounded text (fmt.c) ------------------------------------------------------ */

/* snprintf into buf (size len >= 1), always terminated; returns 1 when
 * the text was cut (paths and labels are bounded, so a cut is reported or
 * harmless, never a warning of the compiler's truncation check). */
EXP_API int exp_fmt(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- checksums (fnv1a.c) ------------------------------------------------------- */

/* FNV-1a, 64 bits, continued from h (start with EXP_FNV_INIT). */
#define EXP_FNV_INIT 0xcbf29ce484222325ull
EXP_API uint64_t exp_fnv1a(uint64_t h, const void *data, size_t len);

/* ---- content hashes (sha256.c) ------------------------------------------------- */

/* SHA-256 (FIPS 180-4), the content hash of instance files: init, add the
 * bytes, then hex (64 lowercase hex digits and a NUL; the state is used up).
 * Written here because no library lcplab links holds one (libcrypto, nettle
 * and GnuTLS are only dependencies of HDF5's dependencies). */
typedef struct exp_sha256 {
  uint32_t h[8];
  uint64_t bytes;
  unsigned char buf[64];
} exp_sha256;
EXP_API void exp_sha256_init(exp_sha256 *s);
EXP_API void exp_sha256_add(exp_sha256 *s, const void *data, size_t len);
EXP_API void exp_sha256_hex(exp_sha256 *s, char out[65]);
/* The SHA-256 of the file's bytes as hex into hex; 0, or -1 with err (size
 * len) "PATH: why" when it cannot be read or is not a regular file (opened
 * without blocking: a FIFO is never read). */
EXP_API int exp_sha256_file(const char *path, char hex[65], char *err, size_t len);

/* ---- one solve as JSON (solve_json.c; `lcplab solve`, docs/lcplab.1) ---------- */

/* A JSON string (RFC 8259: '"', '\\' and control characters escaped, bytes
 * that are not valid UTF-8 as U+FFFD; NULL as ""); a number with `digits`
 * significant digits, NaN and infinities as null. */
EXP_API void exp_json_string(FILE *f, const char *s);
EXP_API void exp_json_number(FILE *f, double v, int digits);

/* ---- the options of one solve (solve_options.c) ------------------------------- */

/* The options a command line gives for one solve; a field a flag does not
 * set comes from the file's record (io_instance.opt_given), else the
 * library's default.  time_limit 0: none; threads 0: the default; simd:
 * SLV_SIMD_AUTO or SLV_SIMD_OFF. */
typedef struct exp_solve_flags {
  int have_solver, have_tol, have_max_iter, have_omega, have_norm, norm, warm, history, simd;
  double tol, omega, time_limit;
  long max_iter, threads;
} exp_solve_flags;
/* 1 if the option bit (IO_OPT_*) comes from inst's record: recorded
 * there and no flag sets it. */
EXP_API int exp_solve_from_file(const exp_solve_flags *fl, const io_instance *inst, unsigned bit);
/* The options: the library's defaults, the file's record over them, the
 * flags over that. */
EXP_API slv_options exp_solve_options(const exp_solve_flags *fl, const io_instance *inst);

/* ---- the timed solve (solve_repeat.c; `lcplab solve`, lcplab.solve) ---------- */

/* The problem a solver gets (docs/plugins.md, "Safety"): p itself for a
 * built-in solver; for a registered one (a C plugin, a Python callable:
 * code the project did not write) a private copy owned by *c, so that what
 * it writes through a cast-away const reaches neither the caller's arrays
 * nor another solver's solve.  NULL when out of memory.  exp_copy_free
 * frees the copy (and accepts a zeroed c) after the solver's workspace
 * (its free function may still write it). */
typedef struct exp_copy {
  io_instance *inst; /* the copy, or NULL (a built-in solver: none made) */
  slv_problem p;     /* its view */
} exp_copy;
EXP_API const slv_problem *exp_problem_for(const slv_solver *sv, const slv_problem *p, exp_copy *c);
EXP_API void exp_copy_free(exp_copy *c);

/* Solves p `repeat` >= 1 times, each from x0 copied fresh into x (x0 NULL:
 * the first run starts from x as given, each later one from the x the run
 * before returned), timing only slv_solve (CLOCK_MONOTONIC) into
 * times[0..repeat-1]; sum: their median and minimum (exp_time_summary).
 * p: for a registered solver, its own copy (exp_problem_for).  Returns
 * slv_solve's status (a negative one stops at once: the solver refused
 * the problem; times[0..r] hold the runs so far, sum is not set).  A solve
 * that wrote its input (res->input_written) ends the runs, the next would
 * solve what it wrote: sum is of the runs made. */
EXP_API slv_status exp_solve_repeat(slv_workspace *ws, const slv_problem *p, const slv_options *opt,
                                    const double *x0, double *x, double *w, long repeat,
                                    double *times, slv_result *res, exp_tsum *sum);

/* ---- one solve as JSON, continued (solve_json.c) ------------------------------ */

/* What the JSON object of one solve reports (cli/cmd_solve.c lists its
 * fields in order). */
typedef struct exp_solve_report {
  const char *instance; /* the file's base name */
  const slv_solver *solver;
  const io_instance *inst;
  const slv_options *opt;
  const slv_result *res;
  const exp_solve_flags *flags;
  double t_median, t_min, read_s; /* read_s: the read, the condensation included */
  long repeat;
  /* a problem read from a global one (exp_solve_global); ndof 0: not one */
  int ndof;
  double v_norm_2, u_norm_2, res_vel, condense_s;
} exp_solve_report;
/* For inst read from a global problem: the 2-norms of v = M^-1 (H x + f)
 * and u = H' v + w, slv_velocity_residual and the condensation's time into
 * r (docs/problem.md, "Global problems"); r->ndof 0 otherwise.  0, or -1
 * out of memory. */
EXP_API int exp_solve_global(const io_instance *inst, const double *x, exp_solve_report *r);
/* The JSON object of r as one line to f; 0, or -1 on a write error. */
EXP_API int exp_solve_json(FILE *f, const exp_solve_report *r);

/* ---- problem classes ---------------------------------------------------------- */

typedef enum exp_class {
  EXP_CLASS_LCP = 0,    /* lo = 0, hi = +inf */
  EXP_CLASS_BOX,        /* finite bounds or findex friction rows (boxed LCP, relay) */
  EXP_CLASS_MLCP,       /* equality (free) rows and LCP rows: joints, Siconos MLCP */
  EXP_CLASS_FC3D,       /* Coulomb cones, De Saxce (FCLIB, Siconos FC3D) */
  EXP_CLASS_CONE_ASSOC, /* associated cones (CCP) */
  EXP_CLASS_COUNT
} exp_class;

EXP_API const char *exp_class_str(int c);      /* "lcp", "box", "mlcp", "fc3d", "cone-assoc" */
EXP_API int exp_class_from_str(const char *s); /* -1 if unknown */
EXP_API int exp_class_of(const io_instance *inst);

/* ---- configuration (config.c) -------------------------------------- */

typedef enum exp_kind {
  EXP_CONVERGENCE = 0,
  EXP_PROFILE,
  EXP_SCALING,
  EXP_DRIFT,
  EXP_ACCURACY,
  EXP_SCENES, /* one run summary per (scene, solver or scene peer) */
  EXP_KIND_COUNT
} exp_kind;

EXP_API const char *exp_kind_str(exp_kind k);
EXP_API int exp_kind_is_scene(exp_kind k);

typedef enum exp_src_kind {
  EXP_SRC_FILE = 0, /* a file, a folder (its instance files) or a glob pattern */
  EXP_SRC_GEN,      /* a generated family at one size and seed (exp_generate) */
  EXP_SRC_SCENE     /* a named scene (libdynamics) */
} exp_src_kind;

#define EXP_MAX_SOLVERS   64
#define EXP_MAX_TOLS      4
#define EXP_NAME_MAX      64
#define EXP_PATH_MAX      4096
#define EXP_PARAM_MAX     96
#define EXP_MAX_PARAMS    64 /* scene parameters of a source */
#define EXP_MAX_SETTINGS  32 /* world settings of a scene source */
#define EXP_MAX_EXTERNALS 32
#define EXP_MAX_VARS      256 /* variables of a plan (plan.vars lines) */
/* the longest #SBATCH --time written, in minutes: 365 days (experiments/CAMPAIGNS.md, "Campaigns") */
#define EXP_SBATCH_MAX_MIN 525600
/* the longest time_limit, max_time or min_time accepted (s): 1e6, 11.6 days
 * (experiments/README.md, "Keys") */
#define EXP_TIME_MAX_S 1e6

/* friction models of scene runs (dyn_friction values), -1 = auto */
#define EXP_FRICTION_AUTO (-1)

/* One source line's problem or scene.  A file of 40,000 `generate` lines
 * holds 40,000 of these: the variable parts (a path, a scene's parameters
 * and settings) are allocated only for the sources that have them
 * (exp_config_free frees them), so a source costs a few hundred bytes. */
typedef struct exp_source {
  exp_src_kind kind;
  int line;                      /* line of the config that named it */
  char *path;                    /* FILE: resolved path or pattern (malloc'd) */
  char family[32];               /* GEN: exp_generate_families() */
  long n;                        /* GEN: --n */
  unsigned long seed;            /* GEN: --seed */
  char scene[EXP_NAME_MAX];      /* SCENE: its name; a model file's name without folder
                                    and extension */
  char *model;                   /* SCENE: the model file of a line `scene model=FILE`
                                    (resolved, malloc'd), NULL for a named scene */
  int approximate;               /* SCENE with a model: the line's approximate=yes
                                    (libmodels' mdl_read_options.approximate) */
  int reduced;                   /* SCENE with a model: the line's coordinates=reduced
                                    (DYN_COORDINATES_REDUCED; mdl_read_options.reduced) */
  char (*params)[EXP_PARAM_MAX]; /* SCENE: "key=value", EXP_MAX_PARAMS of them (malloc'd
                                          with the first; NULL: none) */
  int nparams;
  long steps;                /* SCENE: 0 = the scene's default */
  long every;                /* SCENE as problems: export every E-th step (0: the last only) */
  int friction;              /* SCENE: -2 = the section's, else a dyn_friction / AUTO */
  char solver[EXP_NAME_MAX]; /* SCENE as a problem source: the world's solver ("" = auto) */
  /* SCENE: world settings given on the line, "key=value" as written, each
   * checked by dyn_world_settings_set when the file was read (exp_source_world);
   * EXP_MAX_SETTINGS of them, malloc'd with the first (NULL: none) */
  char (*settings)[EXP_PARAM_MAX];
  int nsettings;
} exp_source;

/* Applies the world settings of a scene source (its key=value words that
 * name a setting, dyn_world_settings_set) to set, in the order written.  -1 when all
 * are set, else the index of the first that is not, with dyn_world_settings_set's
 * reason in err. */
EXP_API int exp_source_world(const exp_source *src, dyn_world_settings *set, char *err, size_t len);

/* An external solver (a command template; experiments/README.md, "External
 * solvers"): declared once, anywhere in the file, used by name in `solvers`. */
typedef struct exp_external {
  char name[EXP_NAME_MAX];
  int line;
  char format[16];             /* the instance format handed over: dat, blcp, lcp, hdf5, mtx, own */
  char time_key[32];           /* "": the process's wall time; else a number it prints */
  char verdict_key[32];        /* "": none; else the true/false it prints after it, its own
                                  verdict (column reported_solved, table agreement) */
  unsigned classes;            /* bit c: takes class c; 0 = every class */
  char requires[EXP_PATH_MAX]; /* a program that must exist ("" = none) */
  /* the template, run by /bin/sh -c with its values as positional
   * parameters: {in} {out} {tol} {max_iter} {n} {class} {time_limit}
   * {repeat} are "${1}".."${8}" (exp_ext_keys), the k-th ${NAME} "${8+k}" */
  char command[EXP_PATH_MAX];
  char vals[EXP_PATH_MAX]; /* the ${NAME} values, each ending in '\0' */
  int nvals;
  int available;    /* requires found (or none) */
  int uses_repeat;  /* the template names {repeat}: a process times several solves */
  int scene;        /* kind=scene: a scene peer (exp_scene_ext_keys), for scenes sections */
  unsigned told;    /* bit k: the template names exp_ext_keys[k] (what the solver is told) */
  int ladder;       /* ladder=K: an answer the judge rejects is asked again with {tol} / 10, up
                      to K times (the tolerance ladder, experiments/README.md, "One stopping
                      rule"); 0: none */
  char version[64]; /* version=TEXT: the program's version as the file states it ("": none) */
  int takes_scene;  /* a scene peer whose template names {scene}: it runs the named scenes */
  int takes_model;  /* a scene peer whose template names {model}: it runs model files */
} exp_external;

/* An external's placeholders, in the order of their positional parameters
 * (experiments/CAMPAIGNS.md, "External solvers"). */
#define EXP_EXT_NKEYS    8
#define EXP_EXT_MAX_VALS 16
extern const char *const exp_ext_keys[EXP_EXT_NKEYS];
/* A scene peer's placeholders (kind=scene): {scene} {steps} {dt}
 * {max_iter} {friction} {time_limit} {model}, then {params}, the scene's
 * parameters as the words --KEY VALUE (experiments/CAMPAIGNS.md, "Scene
 * peers"). */
#define EXP_SCENE_EXT_NKEYS 7
extern const char *const exp_scene_ext_keys[EXP_SCENE_EXT_NKEYS];

/* What the world does with a failed step of a scene run (dyn_failure_policy,
 * docs/dynamics.md, "The world step"): keys on_failure, fallback_solver and
 * fallback_max_iter, per section or for the whole file (before the first
 * `experiment` line; a section's own keys win). */
typedef struct exp_failure {
  int on_failure; /* dyn_failure_policy, -1 = not given (the world's: fallback) */
  char fallback_solver[EXP_NAME_MAX]; /* "" = not given (the world's: pgs, nsgs for cones) */
  long fallback_max_iter;             /* 0 = not given (the world's: 200) */
} exp_failure;

/* A solver of a section: a registered one or an external. */
typedef struct exp_solver_ref {
  const slv_solver *sv; /* NULL for an external */
  int ext;              /* index into exp_config.ext, or -1 */
} exp_solver_ref;

typedef struct exp_section {
  exp_kind kind;
  char name[EXP_NAME_MAX];   /* output base name (default: the kind) */
  int line;                  /* line of its `experiment` key */
  int first_line, last_line; /* the config lines it spans (for the CSV preamble) */
  exp_solver_ref solvers[EXP_MAX_SOLVERS];
  int nsolvers;      /* 0 after parsing: every external it named is absent (absent) */
  int solvers_given; /* a `solvers` line was read */
  char absent[512];  /* the external solvers it names whose requires= is not found, left out
                        (", " between names; the CSV preamble's externals_absent) */
  exp_source *src;
  int nsrc, capsrc;
  unsigned classes; /* bit c: keep class c; 0 = every class */
  double tol[EXP_MAX_TOLS];
  int ntol;          /* 0: the default for the kind */
  long max_iter;     /* 0: the default for the kind */
  long max_pivots;   /* 0: the pivoting solvers' automatic budget (slv.h) */
  slv_options opt;   /* `option NAME=VALUE` lines over slv_options_default(): the solver
                        options without a key of their own (ppa_nsn's prox_*, omega, ...);
                        tol, max_iter, max_pivots, seed, time_limit are the keys' */
  long min_runs;     /* timed runs at least (key min_runs, alias repeat); default 5 */
  double min_time;   /* s: timed runs total at least; default 0.1 */
  double max_time;   /* s: stop repeating past this total (key max_time, alias budget); default 2 */
  double time_limit; /* s: a solve (problem kinds) / a run (scene kinds); default 60 / 600 */
  double tie;        /* tie tolerance of the fastest at tau = 1; default 0.05 */
  long replicates;   /* profile: independent passes over the timed set (key replicates); 1 */
  int integrators[3];      /* dyn_integrator */
  int nint;                /* 0: symplectic only */
  int friction[4];         /* scene kinds: the friction groups (dyn_friction / AUTO) */
  int nfriction;           /* 0: box and cone, a group each */
  int compare_integrators; /* scene kinds: `compare integrators` (presentation) */
  unsigned long seed;      /* opt.seed and the default seed of `generate`; default 1 */
  exp_failure failure;     /* scene kinds: the failed-step policy (file's, then own) */
  char figure[512];        /* `figure key=value...`, for the figure scripts */
  int tol_line;            /* the line of its `tol` key (0: none) */
  int allow_loose_tol;     /* `allow_loose_tol yes|no` in the section (1, 0), -1: the file's;
                              a tol >= 1 is refused without it (slv_tol_check) */
} exp_section;

typedef struct exp_config {
  char path[EXP_PATH_MAX];
  char dir[EXP_PATH_MAX]; /* the config's directory (relative paths resolve here) */
  char *text;             /* the file's contents (NUL-terminated) */
  exp_section *sec;
  int nsec;
  exp_external ext[EXP_MAX_EXTERNALS];
  int next;
  char *used_vars;     /* "NAME=VALUE\n" of every ${NAME} given a value (plan.vars);
                           malloc'd, NULL: none (exp_config_vars) */
  exp_failure failure; /* the file's failed-step policy (keys before any section) */
  exp_log log;         /* where the engine's messages about this experiment go */
  int allow_loose_tol; /* `allow_loose_tol yes` before any section: every section's default */
} exp_config;

/* Variables for ${NAME} (or ${NAME:-DEFAULT}) in values: `--var NAME=VALUE`
 * first, then the environment's LCPLAB_NAME, then DEFAULT. */
typedef struct exp_vars {
  const char *def[EXP_MAX_VARS]; /* "NAME=VALUE", borrowed */
  int ndef;
} exp_vars;

/* Parses path into *cfg (relative paths against dir, or path's folder when
 * dir is NULL).  Returns -1 on success, else the exit status (2) after
 * printing the one-line error.  Checks solver names, scene names, families,
 * numbers and that every instance path exists. */
EXP_API int exp_config_read(const char *path, const char *dir, const exp_vars *vars,
                            const exp_log *log, exp_config *cfg);
/* The same for a plan's own copy (plan.exp): the instance paths are not
 * looked for on the disk (the plan's problems.tsv lists the problems), so
 * a plan still reads when its instances have moved. */
EXP_API int exp_config_read_recorded(const char *path, const char *dir, const exp_vars *vars,
                                     const exp_log *log, exp_config *cfg);
EXP_API void exp_config_free(exp_config *cfg);

/* The variables the file was read with, "NAME=VALUE\n" lines ("" none). */
EXP_API const char *exp_config_vars(const exp_config *cfg);

/* The name of a section's solver (registry name or external name). */
EXP_API const char *exp_solver_name(const exp_config *cfg, const exp_solver_ref *r);

/* ---- provenance (prov.c) --------------------------------------------- */

typedef struct exp_prov {
  char cpu[128];     /* /proc/cpuinfo "model name" */
  int cores;         /* online CPUs */
  char governor[64]; /* cpufreq scaling_governor of cpu0, or "unknown (...)" */
  char compiler[128];
  char cflags[512];
  char blas[256];
  char blas_threads[96]; /* OPENBLAS_NUM_THREADS and openblas_get_num_threads() */
  char binary[40];       /* FNV-1a of the program and its two libraries */
  char host[128];
  char precision[32];          /* "double (binary64)" */
  char placement[64];          /* "cpu K" when the process may run on one CPU only (a pinned
                                  worker: jobs.c), "serial" (jobs.c's lone worker), else "any
                                  of N cpus" */
  double load_start, load_end; /* 1-minute load average */
  char memory_limit[32];       /* the address-space limit in force (getrlimit RLIMIT_AS, after
                                  exp_limit_memory): MB ("%.0f"), "none", or "" in a result
                                  written before it was recorded */
} exp_prov;

EXP_API void exp_prov_gather(exp_prov *p);
/* p and the revision rev as the '#' lines "# KEY: VALUE" that head the
 * engine's CSVs (cpu, cores, governor, compiler, cflags, blas, threads,
 * binary, precision, host, rev, lcplab, load), for a program outside the
 * engine that writes a CSV of its own (experiments/articulated.c). */
EXP_API void exp_prov_write(FILE *f, const exp_prov *p, const char *rev);
EXP_API double exp_loadavg(void);
/* The source revision: LCPLAB_REV, else git rev-parse in dir (+ -dirty). */
EXP_API void exp_git_rev(const char *dir, char *rev, size_t len);
/* Limits this process's address space to mb megabytes (RLIMIT_AS), unless
 * mb <= 0, LCPLAB_MEMORY_LIMIT=0 (valgrind) or an AddressSanitizer build;
 * LCPLAB_MEMORY_LIMIT=MB replaces mb.  A lower limit already in force (the
 * shell's `ulimit -v`, a scheduler's) is kept, and so is the hard limit.
 * exp_prov_gather records the limit in force afterwards. */
EXP_API void exp_limit_memory(double mb);
/* p's memory_limit: the limit exp_limit_memory(mb) would leave in force in
 * this process (for the record of a worker that died before its own). */
EXP_API void exp_prov_memory_limit(exp_prov *p, double mb);
/* Physical memory / online CPUs, in MB: the default limit of a task. */
EXP_API double exp_default_memory_mb(void);
/* Runs argv; stdout into out (NUL-terminated, may be NULL), stderr to
 * /dev/null when quiet.  Exit status (128 + the signal's number when a
 * signal ended it), or -1 if it could not run. */
EXP_API int exp_run_prog(char *const *argv, char *out, size_t len, int quiet);

/* ---- generated instances (generate.c) ------------------------------------ */

/* The seeded families of datasets/README.md, "Generated instances" (`lcplab
 * generate`, the `generate` lines of experiment files): dense ones take n
 * up to EXP_GEN_MAX_N rows, the sparse-* ones (A in CSR) up to
 * EXP_GEN_MAX_N_SPARSE; boxed-findex and sparse-findex at least 3, rounded
 * down to a multiple of 3 (rows normal, t1, t2 per contact). */
#define EXP_GEN_MAX_N        10000
#define EXP_GEN_MAX_N_SPARSE 1000000

/* The family names, NULL-terminated. */
EXP_API const char *const *exp_generate_families(void);

/* EXP_EXIT_OK if family is known and n in its range (*rows, unless NULL:
 * the rows it will have), else EXP_EXIT_USAGE with the reason in err. */
EXP_API int exp_generate_check(const char *family, long n, long *rows, char *err, size_t errlen);

/* The instance of family with n rows from the seed (*out; io_instance_free),
 * named name (NULL: FAMILY_N_sSEED), classified.  EXP_EXIT_OK; else *out is
 * NULL and err says why: EXP_EXIT_USAGE (exp_generate_check), EXP_EXIT_FAILED
 * (out of memory). */
EXP_API int exp_generate(const char *family, long n, unsigned long seed, const char *name,
                         io_instance **out, char *err, size_t errlen);

/* exp_generate written to path in lcplab's format, named by path's base name
 * without its extension.  The file appears whole or not at all (written
 * beside it, then moved into place); an existing path is kept unless force.
 * EXP_EXIT_OK; EXP_EXIT_USAGE for bad arguments, a missing or read-only
 * folder, an existing path, a write error (a full disk: the old file kept);
 * EXP_EXIT_FAILED when memory ran out; err names the path. */
EXP_API int exp_generate_file(const char *family, long n, unsigned long seed, const char *path,
                              int force, char *err, size_t errlen);

/* ---- problems (prepare.c) ---------------------------------------------- */

/* One problem of a plan's catalogue (problems.tsv). */
typedef struct exp_prob {
  int section;     /* index of its section */
  char label[128]; /* CSV name: file base name, FAMILY_N_sS, scene_..._kK */
  char family[48]; /* scaling: the generated family, else the label up to '_' */
  int cls;         /* exp_class */
  char kind[16];   /* io_instance kind */
  int n;
  long nnz;              /* stored nonzeros of A (dense: entries != 0) */
  int contacts;          /* cones, findex normal rows or the scene's contacts; 0 none */
  double cond;           /* 1-norm condition estimate (inf: singular) */
  double mu_min, mu_max; /* the friction coefficients' range: the cones' mu, else the findex
                              rows' mu; NaN both: no friction (an LCP, a box, an MLCP) */
  char origin[16];       /* file, generated, scene */
  char *path;            /* the instance file (malloc'd; exp_plan_free frees it) */
  char sha256[65];       /* the SHA-256 of its bytes when the plan was made (hex) */
} exp_prob;

typedef struct exp_env {
  const char *datadir; /* where generated instances and scene exports go */
  int tty;             /* progress on stderr */
  size_t max_memory;   /* --max-memory: the readers' cap, bytes (0: the default) */
  exp_log log;         /* progress lines (when tty), errors */
  int force;           /* --force: a DATADIR/problem-meta.tsv that is not lcplab's cache is
                          replaced (else refused) */
} exp_env;

/* Materialises the problems of every problem-kind section as files
 * (exp_generate_file for generated ones, scene exports) and reads each once for
 * its metadata (cached in DATADIR/problem-meta.tsv by path, size and mtime).
 * Scene sections only have their scenes built once (parameters checked).
 * Returns -1 on success (*probs, *np set; exp_probs_free), else the exit
 * status after the message.  Time and memory are linear in the number of
 * problems (a map finds a path or a label, never a scan). */
EXP_API int exp_prepare(const exp_config *cfg, const exp_env *env, exp_prob **probs, int *np);
/* Frees n problems (their paths) and the array. */
EXP_API void exp_probs_free(exp_prob *probs, int n);

/* ---- C plugins (plugin.c; docs/plugins.md, "C plugins") ------------------ */

/* How many plugins a process may load. */
#define EXP_MAX_PLUGINS 32

/* Loads the plugin at path (its links resolved) and registers its solvers:
 * 0 (also when that file is loaded already), or -1 with err naming the
 * plugin and what was wrong: not found, not a shared library, not an
 * lcplab plugin (no slv_plugin_abi or slv_plugin_init), built for another
 * solver ABI (both numbers), a registration refused (a name taken). */
EXP_API int exp_plugin_load(const char *path, char *err, size_t len);
/* Each plugin of a colon-separated list (LCPLAB_PLUGINS; empty entries
 * skipped), in order: 0, or -1 at the first failure with its err. */
EXP_API int exp_plugins_load_list(const char *list, char *err, size_t len);
/* The plugins loaded, in order: their real paths. */
EXP_API int exp_plugin_count(void);
EXP_API const char *exp_plugin_path(int i); /* NULL if out of range */
/* The SHA-256 (hex) of the loaded plugin at real path, as it was when it
 * was loaded; NULL if no plugin was loaded from there. */
EXP_API const char *exp_plugin_sha256_of(const char *real);

/* ---- plans and tasks (plan.c) ------------------------------------------- */

typedef struct exp_task {
  int section;
  int prob;              /* catalogue index (problem kinds), else -1 */
  int src;               /* scene source (scene kinds), else -1 */
  exp_solver_ref solver; /* a registered solver or an external */
  int integrator;        /* scene kinds: dyn_integrator */
  int friction;          /* scene kinds: dyn_friction */
  int rep;               /* profile: the replicate pass (0: the section's own rows;
                          * 1..replicates-1: the passes run again after every
                          * section, in another order: NAME_replicates.csv) */
} exp_task;

/* A file an external solver runs, hashed when the plan was made
 * (program.c; experiments/CAMPAIGNS.md, "External solvers"). */
typedef struct exp_program {
  int ext;         /* the external (index into exp_config.ext) */
  char *path;      /* the file, its links resolved (malloc'd) */
  char sha256[65]; /* the SHA-256 of its bytes (hex) */
} exp_program;

/* A file a model line's read opens, hashed when the plan was made
 * (plan_models.c; models.tsv). */
typedef struct exp_model_file {
  int section, src; /* the line: its section and its index there */
  char *path;       /* the file's real path (malloc'd) */
  char sha256[65];  /* the SHA-256 of its bytes (hex) */
} exp_model_file;

typedef struct exp_plan {
  exp_config cfg;
  exp_prob *probs;
  int nprobs;
  exp_task *tasks;
  int ntasks;
  char dir[EXP_PATH_MAX];         /* the plan folder */
  char id[24];                    /* FNV-1a of the plan's files, hex */
  char rev[160];                  /* the source revision when planned */
  char config_path[EXP_PATH_MAX]; /* the original config */
  double time_limit;              /* --time-limit (0: each section's own) */
  double memory_mb;               /* address-space limit of a task process (0: none) */
  size_t max_memory;              /* --max-memory: the readers' cap, bytes (0: the library's
                                   default, io_read_options_default) */
  char dump_dir[EXP_PATH_MAX];    /* --dump-failures: absolute folder ("" = none) */
  char program[EXP_PATH_MAX];     /* the lcplab program the plan's scripts run ("": this
                                     process's, exp_self_path) */
  exp_program *progs;             /* the externals' files and their hashes (programs.tsv) */
  int nprogs;
  exp_program *plugs; /* the solvers from outside its tasks use: a C plugin's real path and
                         SHA-256, a Python callable's origin and a hash of this process
                         (plugins.tsv; plan_plugins.c); ext is -1 */
  int nplugs;
  exp_model_file *mfiles; /* the files the model lines read (models.tsv; plan_models.c) */
  int nmfiles;
} exp_plan;

/* The files each model line of pl's sections reads (mdl_model_files: the
 * file, its includes, its meshes and other assets), hashed into pl->mfiles
 * (plan_models.c).  -1, or exit status 2 after the message (a file that
 * cannot be read, out of memory). */
EXP_API int exp_plan_models(exp_plan *pl);
/* The SHA-256 of the files a scene source's model read opens (each path
 * and SHA-256 with its NUL), "" for a named scene: the content an export
 * of the source was written from.  0, or -1 with err. */
EXP_API int exp_source_digest(const exp_source *src, char sha[65], char *err, size_t len);
/* 1 with err naming the file when a file task i's model line reads changed
 * (or is gone) since the plan hashed it, else 0. */
EXP_API int exp_models_changed(const exp_plan *pl, int i, char *err, size_t len);
/* Reads the plan folder dir's models.tsv into pl->mfiles (pl's config
 * read): -1 (also without the file: a plan without model lines), else exit
 * status 2 after the message. */
EXP_API int exp_plan_read_models(const char *dir, exp_plan *pl);
EXP_API void exp_plan_models_free(exp_plan *pl);

/* The effective tolerance list of a section (the kind's default when none
 * given) into tol (size EXP_MAX_TOLS); returns the count. */
EXP_API int exp_section_tols(const exp_section *s, double *tol);
/* The effective time limit of a section in a plan. */
EXP_API double exp_time_limit(const exp_plan *pl, const exp_section *s);
/* The friction groups of a scene section into fr (size 4); returns the count. */
EXP_API int exp_section_frictions(const exp_section *s, int *fr);

/* Expands the config and the problems into pl->tasks (pl->cfg, probs set)
 * and sets pl->id from the plan's files as exp_plan_write would write them.
 * 0, or -1 (out of memory). */
EXP_API int exp_plan_expand(exp_plan *pl);
/* The files the externals of pl's tasks run (program.c: the command word,
 * the files the template names, requires=), hashed into pl->progs.  0, or
 * -1 out of memory. */
EXP_API int exp_plan_programs(exp_plan *pl);
/* The SHA-256 of the file at path (links followed; its real path into
 * real): an external's program, a plugin.  0, or -1 with err. */
EXP_API int exp_program_hash(const char *path, char *real, size_t rlen, char sha[65], char *err,
                             size_t len);
/* The registered solvers from outside that pl's tasks use (plan_plugins.c):
 * each plugin's path and hash, or a Python callable's origin and a hash of
 * this process, into pl->plugs.  0, or -1 out of memory.  exp_plan_programs
 * calls it. */
EXP_API int exp_plan_plugins(exp_plan *pl);
/* The name of a Python callable among pl's solvers, or NULL: a plan for
 * GNU parallel or Slurm refuses it. */
EXP_API const char *exp_plan_python_solver(const exp_plan *pl);
/* pl's record of the plugin (or Python callable) solver sv comes from, or
 * NULL for a built-in solver. */
EXP_API const exp_program *exp_plan_plugin_of(const exp_plan *pl, const slv_solver *sv);
struct exp_rbuf; /* below (rows being built) */
/* plugins.tsv's text ("# plugin TAB sha256", a line per entry) into b:
 * 0, or nonzero out of memory. */
EXP_API int exp_plan_plugins_tsv(const exp_plan *pl, struct exp_rbuf *b);
/* Loads the plugins of the plan folder dir's plugins.tsv into this process
 * and records them in pl->plugs: -1 when done (or no such file), else exit
 * status 2 after the message (a plugin that cannot load, a Python
 * callable). */
EXP_API int exp_plan_load_plugins(const char *dir, exp_plan *pl);
/* 1 with err when the plugin of solver sv changed since the plan hashed
 * it (this process loaded other bytes), else 0. */
EXP_API int exp_plugin_changed(const exp_plan *pl, const slv_solver *sv, char *err, size_t len);
/* 1 with err naming the file when a file of external ext changed (or is
 * gone) since the plan hashed it, else 0. */
EXP_API int exp_programs_changed(const exp_plan *pl, int ext, char *err, size_t len);
/* Writes the plan folder pl->dir (created): plan.exp, plan.vars, plan.info,
 * problems.tsv, solvers.tsv, tasks.tsv, task-ids, run-parallel.sh,
 * slurm.sbatch, results/.  chunk: tasks per Slurm array element (0: automatic).  Returns
 * 0, or -1 after the message. */
EXP_API int exp_plan_write(const exp_plan *pl, int chunk);
/* The id recorded in DIR/plan.info into id (size 24); 0, or -1 if there is
 * no readable plan there. */
EXP_API int exp_plan_peek_id(const char *dir, char *id);
/* The path of this lcplab program (the libtool wrapper in a build tree). */
EXP_API void exp_self_path(char *out, size_t len);
/* Reads a plan folder (config re-parsed with the recorded variables).
 * Returns -1 on success, else the exit status (2) after the message. */
EXP_API int exp_plan_read(const char *dir, const exp_log *log, exp_plan *pl);
EXP_API void exp_plan_free(exp_plan *pl);
/* The tasks.tsv line of task i (without newline) into buf. */
EXP_API void exp_task_spec(const exp_plan *pl, int i, char *buf, size_t len);

/* ---- results (result.c) ------------------------------------------------- */

/* A result file (experiments/README.md, "Result files"): the header lines,
 * the CSV rows, and an end line with the row count and the FNV-1a of every
 * byte before it, so a truncated or altered file is found. */
typedef struct exp_result {
  int task;
  char plan[24];
  char key[65]; /* exp_task_key */
  char spec[512];
  char task_status[16]; /* ok, failed (no usable answer), error (could not run), crashed
                           (its worker died or it ran out of memory: runs again) */
  char message[512];
  exp_prov prov;
  char rev[160];
  double time_limit;
  double elapsed;
  char **rows;
  int nrows;
} exp_result;

/* Reads path; returns 0 (complete and intact), 1 missing, or -1 with why
 * (size len) set: truncated, checksum mismatch, unparsable. */
EXP_API int exp_result_read(const char *path, exp_result *r, char *why, size_t len);
EXP_API void exp_result_free(exp_result *r);

/* Rows being built (CSV lines, each ending in '\n'). */
typedef struct exp_rbuf {
  char *buf;
  size_t len, cap;
  int nrows;
} exp_rbuf;

/* models.tsv's text ("# section TAB source TAB path TAB sha256", a line
 * per file) into b: 0, or nonzero out of memory (plan_models.c). */
EXP_API int exp_plan_models_tsv(const exp_plan *pl, exp_rbuf *b);
/* The files of task i's model line (none for a problem task, a named
 * scene) added to a task key being computed (exp_task_key). */
EXP_API void exp_task_key_models(const exp_plan *pl, int i, exp_sha256 *h);
EXP_API int exp_rbuf_add(exp_rbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
EXP_API void exp_rbuf_free(exp_rbuf *b);

/* ---- whether a task is done (task_done.c) ------------------------------------- */

/* DIR/results/tNNNNNN.res */
EXP_API void exp_result_path(const exp_plan *pl, int i, char *buf, size_t len);
/* Task i's key (experiments/README.md, "Result files"): the SHA-256 (hex)
 * of the plan id, every variable's value, the task's tasks.tsv line, its
 * problem file's SHA-256 as the plan recorded it and, for an external
 * solver, its programs' paths and SHA-256 (programs.tsv). */
EXP_API void exp_task_key(const exp_plan *pl, int i, char key[65]);
/* Sets h's plan id, task, key, spec (tabs as blanks), rev and time limit
 * for task i of pl. */
EXP_API void exp_result_identify(const exp_plan *pl, int i, exp_result *h);
/* 1 when r is task i's own result in pl (plan id, task number and key),
 * else 0 with why (size len) set. */
EXP_API int exp_result_matches(const exp_plan *pl, int i, const exp_result *r, char *why,
                               size_t len);
/* 1 when r holds a completed verdict: task_status ok, or failed (an
 * external solver's answer judged unusable); not error (the task could not
 * run) nor crashed (its worker died, or it ran out of memory). */
EXP_API int exp_result_completed(const exp_result *r);
/* 1 when task i of the plan has its own intact result holding a completed
 * verdict (exp_result_read, exp_result_matches, exp_result_completed),
 * else 0: the task is to run. */
EXP_API int exp_task_done(const exp_plan *pl, int i);

/* ---- what lcplab wrote in a folder (owned.c) ------------------------------------ */

/* DIR/.lcplab-owned records the files lcplab wrote in DIR (or named for its
 * tasks to write), one name a line relative to DIR: only they are ever
 * replaced as lcplab's or removed (--force starts over by removing them and
 * nothing else; a stale output is removed by the same record).
 * experiments/CAMPAIGNS.md, "What lcplab owns in a folder". */
#define EXP_OWNED_FILE ".lcplab-owned"

/* A record as read: its names sorted, each once. */
typedef struct exp_owned {
  char **name;
  int n, cap;
  int exists; /* DIR had a record (an empty one included) */
} exp_owned;

/* Adds names[0..n) (relative to dir; an absolute one, one with a "." or
 * ".." component or a line break is skipped) to dir's record, written
 * whole under a temporary name and renamed over the old one.  0, or -1
 * with err ("PATH: why"). */
EXP_API int exp_owned_record(const char *dir, const char *const *names, int n, char *err,
                             size_t len);
/* dir's record into *o (no record: empty, o->exists 0).  0, or -1 with err
 * (unreadable, or not a record: nothing is lcplab's then). */
EXP_API int exp_owned_load(const char *dir, exp_owned *o, char *err, size_t len);
/* Appends a copy of name to o (a list of names to record; unsorted); 0,
 * or -1 out of memory. */
EXP_API int exp_owned_add(exp_owned *o, const char *name);
/* 1 when name is in o (as exp_owned_load gives it: sorted). */
EXP_API int exp_owned_has(const exp_owned *o, const char *name);
EXP_API void exp_owned_free(exp_owned *o);
/* Removes from dir the recorded files that pick says 1 for (pick NULL:
 * all), regular files and links only (a link itself, never its target),
 * with the temporaries their writers left beside them, and drops them
 * from the record.  The count removed, or -1 with err (a file that could
 * not be removed stays recorded). */
EXP_API int exp_owned_remove(const char *dir, int (*pick)(void *ctx, const char *name), void *ctx,
                             char *err, size_t len);

/* ---- the files a command reads, never replaced by its outputs (inputs.c) ---- */
/* The inputs of one command: paths as given. */
struct exp_inputs {
  char **path;
  unsigned long long *dev, *ino; /* each path's device and inode (links followed) */
  int n, cap;
};
/* Adds path (NULL, "", "-" and a path that does not exist are none); 0, or
 * -1 out of memory. */
EXP_API int exp_inputs_add(exp_inputs *in, const char *path);
/* Adds the problem file path and the files read beside it (MatrixMarket's
 * STEM.b, .lo, .hi, .findex, .mu that exist: io_write_sidecar); 0, or -1
 * out of memory. */
EXP_API int exp_inputs_add_problem(exp_inputs *in, const char *path);
/* Adds the model file and the files it reads besides itself (its
 * <include>s, meshes, textures: mdl_model_files); 0, or -1 out of memory. */
EXP_API int exp_inputs_add_model(exp_inputs *in, const char *model);
/* Adds the files a plan reads: its experiment file, its problems' files
 * and its scenes' model files (with theirs); 0, or -1 out of memory. */
EXP_API int exp_plan_inputs(const exp_plan *pl, exp_inputs *in);
/* The input that out names (by device and inode, links followed, as
 * io_same_file), or NULL (also when out does not exist). */
EXP_API const char *exp_inputs_match(const exp_inputs *in, const char *out);
/* 1 after the message "CMD: WHAT OUT: the output is the input IN (one file
 * under two names): refused, also with --force" when out is one of in
 * (what, the option, may be NULL); else 0.  The one check of every
 * command's every output (docs/usage.md, "Outputs"). */
EXP_API int exp_output_is_input(const exp_log *log, const char *cmd, const char *what,
                                const char *out, const exp_inputs *in);
EXP_API void exp_inputs_free(exp_inputs *in);

/* ---- removing inside a folder, never leaving it (beneath.c) ---- */
/* A new descriptor of the folder sub (relative, "" : dirfd's folder itself)
 * under dirfd, every component opened with O_DIRECTORY | O_NOFOLLOW: a
 * symbolic link on the way, an absolute sub or a "." or ".." component
 * fails (ELOOP for a link, EINVAL).  The fd, or -1 with errno. */
EXP_API int exp_beneath_open(int dirfd, const char *sub);
/* Makes the folder sub (relative) inside the folder top (a path, followed
 * as the user named it), each missing component made with mkdirat and
 * every component then opened with O_DIRECTORY | O_NOFOLLOW from its
 * parent's descriptor: a component that is a symbolic link (planted to a
 * folder elsewhere) fails with ELOOP and nothing is made through it.  For
 * every folder lcplab makes or enters inside an output, plan or dump
 * folder.  0, or -1 with errno and the path that failed in bad. */
EXP_API int exp_beneath_mkdir(const char *top, const char *sub, char *bad, size_t len);
/* The reason for errno e of exp_beneath_open / _mkdir in a message:
 * ELOOP says the path is a symbolic link, others strerror. */
EXP_API const char *exp_beneath_why(int e);
/* Removes name (relative to dirfd) when it is a regular file or a symbolic
 * link (the link, never its target), reached with exp_beneath_open: 1
 * removed, 0 absent, not a file or behind a link (left alone), -1 with
 * errno (EINVAL: absolute, or a "." or ".." component).  The one way
 * lcplab removes a file it recorded (experiments/CAMPAIGNS.md). */
EXP_API int exp_beneath_remove(int dirfd, const char *name);
/* Removes the folder name (relative to dirfd, reached with
 * exp_beneath_open) with everything in it, each folder inside opened with
 * O_NOFOLLOW and every entry removed relative to its folder's descriptor:
 * a link on the way (or swapped in) ends the walk, a link inside is
 * removed, never what it points to.  For lcplab's own temporary folders
 * (a task's scratch).  0, or -1 with errno. */
EXP_API int exp_beneath_remove_tree(int dirfd, const char *name);
/* exp_beneath_remove_tree of the folder dir (a path) from its parent's
 * descriptor: a temporary folder of lcplab's own (a figure's rows) that
 * somebody swapped for a link while it was in use is not followed.
 * Errors are ignored (what cannot be removed stays). */
EXP_API void exp_beneath_remove_folder(const char *dir);
/* Creates a new file named path, or "path.K" (K = 1, 2, ... 99) when that
 * name is taken (a killed writer's leftover, or an entry somebody planted):
 * O_CREAT | O_EXCL | O_NOFOLLOW, so a link or a hard link at the name is
 * never written through, and nothing there is removed.  The name made into
 * used (size len).  For the files lcplab names itself in folders others
 * may write (the lock's own file, a task's temporary result, a dump's
 * index).  The fd (write only), or -1 with errno. */
EXP_API int exp_create_new(const char *path, int mode, char *used, size_t len);
/* exp_create_new of name relative to the folder dirfd (used: relative too). */
EXP_API int exp_create_new_at(int dirfd, const char *name, int mode, char *used, size_t len);

/* ---- values as data (shell.c; experiments/README.md, "No shell
 * ever parses a value") ---- */
/* Appends s to b single-quoted for sh (' -> '\''); nonzero when out of memory. */
EXP_API int exp_sh_quote(exp_rbuf *b, const char *s);
/* Appends s to b as a single-quoted gnuplot string (' -> ''). */
EXP_API int exp_gp_quote(exp_rbuf *b, const char *s);
/* 0, or CLI_EXIT_USAGE with one line naming what and s when s holds a newline
 * or a carriage return. */
EXP_API int exp_line_safe(const exp_log *log, const char *what, const char *s);
/* Writes the reference to positional parameter index into out: "${N}", or
 * ${N} inside double quotes; its length, or -1 when it does not fit. */
EXP_API int exp_template_ref(char *out, size_t len, int index, int in_dquotes);
/* CSV fields (RFC 4180): whether s needs quotes (it holds , " CR or LF);
 * writes s to f, quoted when it does; splits line in place into at most max
 * fields, quotes undone, and returns their number. */
EXP_API int exp_csv_needs_quotes(const char *s);
EXP_API void exp_csv_put(FILE *f, const char *s);
EXP_API int exp_csv_split(char *line, char **f, int max);
/* Draws section s's figure base.pdf/.png ... from csv (and csv2, or NULL)
 * with the script scripts/exp_KIND.gp run by gnuplot (figure.c), replacing
 * the old files only once every new one is whole (all or none);
 * 0 drawn; gnuplot's exit status (128 + a signal's number), or 1 when
 * there is no script (a note); -1 when gnuplot cannot be run (a note);
 * EXP_FIGURE_NOT_WRITTEN when a file could not be written or would
 * replace csv or csv2 (an error naming it; the old figure kept). */
#define EXP_FIGURE_NOT_WRITTEN (-2)
EXP_API int exp_figure_draw(const exp_log *log, const exp_section *s, const char *base,
                            const char *csv, const char *csv2, const char *scripts,
                            const char *gnuplot);
/* Whether the figure option kv (len characters, key=value) may reach the
 * scripts: title= any text, other values letters, digits and ._,+-: only
 * (they reach awk programs and gnuplot commands), measure= all or
 * accepted (exp_profile.gp's curves). */
EXP_API int exp_figure_value_ok(const char *kv, size_t len);
/* NULL when exp_figure_value_ok, else why not (a static text). */
EXP_API const char *exp_figure_value_why(const char *kv, size_t len);
/* The figure options of `lcplab figure`: csv's "# figure: ..." line (the
 * last one of its '#' preamble), then sets (more key=value words, a later
 * one wins), each checked by exp_figure_value_ok, into out (size len).
 * EXP_EXIT_OK, or EXP_EXIT_USAGE after the message (csv unreadable, too
 * long, a value not allowed). */
EXP_API int exp_figure_options(const exp_log *log, const char *csv, const char *sets, char *out,
                               size_t len);
/* $GNUPLOT, else "gnuplot". */
EXP_API const char *exp_gnuplot_prog(void);
/* Writes the header fields of h (not its rows), then rows, then extra
 * (nextra more rows, e.g. a time_limit row; may be NULL) and the end line
 * to path atomically (tmp + rename).  Only open, write, rename and
 * snprintf, no allocation: safe from the watchdog thread.  0 or -1. */
EXP_API int exp_result_commit(const char *path, const exp_result *h, const exp_rbuf *rows,
                              int nextra, const char *extra);
/* 1 when the file name in the folder dfd is a result file lcplab wrote
 * (tNNNNNN.res whose first line is "lcplab-result N") or one its writer
 * left (.tNNNNNN.res.tmp.PID.TID: so, or empty), a regular file; else 0:
 * somebody else's, which --force never removes (experiments/CAMPAIGNS.md,
 * "What --force replaces"). */
EXP_API int exp_result_file_ours(int dfd, const char *name);

/* ---- running tasks (task.c) ------------------------------------------------ */

/* The problem most recently loaded by this process, kept for the next task
 * on the same problem. */
typedef struct exp_cache {
  int prob;
  io_instance *inst;
  exp_prov prov; /* gathered once per process */
  int have_prov;
} exp_cache;
EXP_API void exp_cache_free(exp_cache *c);

/* Runs task i of the plan and writes its result.  Returns 0 (result
 * written; the built-in solvers may have failed), 3 (the task could not
 * run, or an external solver left no usable answer: result written with
 * task_status error or failed), or -1 (the result could not be written;
 * message printed).  *nonconv (may be NULL) is set to 1 when a solve did not
 * converge. */
EXP_API int exp_task_run(const exp_plan *pl, int i, exp_cache *cache, int *nonconv);

/* The CSV header row of a section's main CSV (without newline), and of its
 * second CSV (profile: NAME_profile.csv, scaling: NAME_slopes.csv; NULL for
 * the other kinds). */
EXP_API const char *exp_csv_header(exp_kind k);
EXP_API const char *exp_csv2_suffix(exp_kind k); /* "_profile", "_slopes" or NULL */
EXP_API const char *exp_csv2_header(exp_kind k);

/* ---- local jobs (jobs.c) --------------------------------------------------- */

/* What the caller's stop callback says: go on; finish the running tasks
 * and stop; stop now (the running tasks are killed and run again next
 * time). */
typedef enum exp_stop { EXP_STOP_NONE = 0, EXP_STOP_FINISH = 1, EXP_STOP_NOW = 2 } exp_stop;

/* Around each fork of a worker (each may be NULL): before in the parent,
 * then parent in the parent or child in the new worker.  An embedding
 * interpreter keeps its state consistent across the fork with them (the
 * Python extension: the GIL taken over the fork, PyOS_AfterFork_Child in
 * the worker, so that a Python solver runs there; docs/plugins.md,
 * "Python solvers"). */
typedef struct exp_fork_hooks {
  void (*before)(void *ctx);
  void (*parent)(void *ctx);
  void (*child)(void *ctx);
  void *ctx;
} exp_fork_hooks;

typedef struct exp_jobs_opts {
  int jobs; /* worker processes */
  int tty;  /* one progress line (else plain lines) */
  /* polled at least every 200 ms: an exp_stop, and in *sig the signal that
   * asked for it (0: none); NULL: never stop */
  int (*stop)(void *ctx, int *sig);
  void *stop_ctx;
  const exp_fork_hooks *fork; /* NULL: none */
} exp_jobs_opts;

typedef struct exp_jobs_report {
  int total, skipped, done, nonconv, errors, left;
  int stopped_by;  /* the exp_stop that ended the run (EXP_STOP_NONE: it ran out) */
  int stopped_sig; /* the signal behind it, as the stop callback said (0: none) */
  double elapsed;
} exp_jobs_report;

/* Runs every task of the plan that has no valid result yet, on o->jobs
 * worker processes (forked), each task's result written by the worker.
 * Returns 0 (all run), 1 (stopped by the stop callback: *rep says where), or
 * -1 on a system error (message printed). */
EXP_API int exp_jobs_run(const exp_plan *pl, const exp_jobs_opts *o, exp_jobs_report *rep);

/* ---- campaigns (campaign.c) -------------------------------------------------------- */

/* An experiment file run as a campaign (experiments/CAMPAIGNS.md, "Campaigns"). */
typedef struct exp_campaign_opts {
  const char *config;   /* the .exp file */
  const exp_vars *vars; /* ${NAME} values (NULL: none) */
  const char *out;      /* exp_campaign_run: the output folder (made if missing); the plan
                           goes to OUT/campaign */
  const char *plan;     /* exp_campaign_plan: the plan folder */
  const char *data;     /* generated instances and scene exports (NULL: OUT/generated, or
                           PLAN/generated) */
  const char *scripts;  /* the folder of the figure scripts exp_KIND.gp (NULL: the config
                           file's folder) */
  const char *gnuplot;  /* NULL: exp_gnuplot_prog() */
  const char *dump;     /* --dump-failures: a folder (made if missing), or NULL */
  int force;            /* start over a plan of another configuration; replace outputs */
  int no_plot, allow_mixed;
  int jobs;            /* worker processes (>= 1) */
  int chunk;           /* exp_campaign_plan: tasks per Slurm array element (0: automatic) */
  int tty;             /* progress lines for a terminal */
  size_t max_memory;   /* the readers' cap, bytes (0: the library's default) */
  double time_limit;   /* seconds per task (0: each section's own) */
  const char *program; /* the lcplab program the plan's scripts name (NULL: this process's;
                          a caller that is not lcplab, as Python, gives it) */
  int (*stop)(void *ctx, int *sig); /* polled while the tasks run (exp_jobs_opts) */
  void *stop_ctx;
  const exp_fork_hooks *fork; /* around each worker's fork (exp_jobs_opts); NULL: none */
} exp_campaign_opts;

/* Reads the file, prepares its problems, writes the plan to OUT/campaign
 * (a plan of the same configuration is resumed: the tasks with a result
 * are not run again), runs the tasks on o->jobs processes and collects
 * the CSVs, tables and figures into OUT.  Returns EXP_EXIT_OK, EXP_EXIT_USAGE
 * (bad input: said), EXP_EXIT_FAILED (a task failed or a result is
 * missing), or 128 + the signal (130, 143) when the stop callback stopped
 * it (EXP_EXIT_FAILED for a stop without a signal). */
EXP_API int exp_campaign_run(const exp_campaign_opts *o, const exp_log *log);
/* The plan only, into o->plan (its files said as EXP_SAY_OUTPUT). */
EXP_API int exp_campaign_plan(const exp_campaign_opts *o, const exp_log *log);
/* Task n of the plan in dir (a task with its own intact result is not run
 * again unless force); dump and max_memory override the plan's (NULL, 0:
 * keep). */
EXP_API int exp_campaign_task(const char *dir, long n, int force, const char *dump,
                              size_t max_memory, const exp_log *log);
/* The results of the plan in dir into co->out (NULL: dir; co->scripts NULL:
 * the config file's folder): another folder's outputs are replaced only
 * with force. */
struct exp_collect_opts;
EXP_API int exp_campaign_collect(const char *dir, const struct exp_collect_opts *co, int force,
                                 const exp_log *log);
/* --dump-failures DIR: made if missing, its absolute path into out (size
 * EXP_PATH_MAX).  1, or 0 after the message (cmd names the command). */
EXP_API int exp_dump_folder(const exp_log *log, const char *cmd, const char *dir, char *out);

/* ---- collect (collect.c, outputs.c, outset.c, tables.c) ---------------- */

typedef struct exp_collect_opts {
  const char *out;     /* output folder */
  const char *scripts; /* folder of exp_KIND.gp ("" or NULL: no figures) */
  const char *gnuplot;
  int allow_mixed;
  int no_plot;
  int quiet;      /* no list of outputs on stdout */
  int start_over; /* experiment --force: every output lcplab recorded in out that this collect
                     does not write again is removed once the new ones are in place (a section
                     the file no longer has included); 0: those of the plan's sections only */
} exp_collect_opts;

/* Merges the results of the plan into the section CSVs, tables and figures.
 * Returns 0 (every task's result present and intact, one provenance), 3
 * (results missing, failed, corrupted or truncated: named on stderr and left
 * out; or mixed provenance without allow_mixed: nothing merged), or 2 on a
 * write error. */
EXP_API int exp_collect(const exp_plan *pl, const exp_collect_opts *o);

/* May the outputs of cfg's sections be written into the folder out?  Each
 * output collect writes (exp_output_suffixes; with figures, NAME.pdf,
 * NAME.png and the pages NAME-K.pdf / .png) is checked: 1 after a message
 * naming the file if one exists and not force, or if one is a symlink
 * leading outside out (also with force), or one of the inputs in (may be
 * NULL; also with force: exp_output_is_input); else 0 (docs/io.md,
 * "Replacing files"). */
EXP_API int exp_outputs_check(const exp_config *cfg, const char *out, int force, int figures,
                              const exp_inputs *in);

/* Records what a collect wrote into out as lcplab's (written: the names,
 * relative to out, of the files it published; drawn[k] nonzero when
 * section k's figures were drawn, which are added) and removes every
 * recorded output of cfg's sections that it did not write again: figures
 * not drawn again, tables no longer written (exp_owned_remove); with all,
 * every recorded output (a CSV, table, TeX file or figure of any name) it
 * did not write again.  0, or -1 after the message. */
EXP_API int exp_outputs_own(const exp_config *cfg, const char *out, exp_owned *written,
                            const int *drawn, int all);

/* May the figure base.pdf, base.png and its pages (base-K.pdf ...) be
 * written (`lcplab figure`)?  1 after a message naming the file when one
 * is csv or csv2 (never, also with force), exists and not force, or is a
 * symlink leading outside base's folder; else 0 (docs/io.md, "Replacing
 * files").  csv2 may be NULL. */
EXP_API int exp_figure_check(const exp_log *log, const char *base, int force, const char *csv,
                             const char *csv2);

/* Removes the figures of section name from out (NAME.pdf, NAME.png and the
 * pages NAME-K.*) before new ones are drawn: a figure never outlives the CSV
 * it was drawn from (exp_outputs_check refused any that was not ours). */
EXP_API void exp_figures_remove(const char *out, const char *name);

/* One parsed CSV row of a result: fields split at ',' (no quoting: the
 * engine never writes ',' or '"' inside a field). */
typedef struct exp_row {
  char *text; /* owned copy, split in place */
  char *f[48];
  int nf;
} exp_row;

/* The outputs of one collect (docs/io.md, "Replacing files"): each is
 * written under a temporary name and finished when its writer is done;
 * exp_outset_publish renames them all once every one is complete, or, if
 * any failed, drops them all: the old outputs stay together. */
typedef struct exp_outset {
  io_outfile **o;
  char **path;
  int n, cap, done; /* files; files finished (o[0..done)) */
  int failed;
  const exp_log *log; /* messages, and the published paths (EXP_SAY_OUTPUT) */
  int list;           /* 1: say each published path */
} exp_outset;
/* A new file of set at path: its stream, or NULL after the message. */
EXP_API FILE *exp_outset_open(exp_outset *set, const char *path);
/* The writer of the files opened since the last call is done (rc: its own
 * status); they are finished.  0, or -1 (after the message for a write
 * error) when rc != 0 or a write failed: then the set is not published. */
EXP_API int exp_outset_done(exp_outset *set, int rc);
/* Renames every file over its path (each path printed on set->list), or
 * drops them all when any failed (or not ok).  Frees the set.  0, or -1
 * after the message. */
EXP_API int exp_outset_publish(exp_outset *set, int ok);

/* Writes the tables of a section (failures, coverage, timings, winners,
 * slopes or steps) as CSV and booktabs .tex beside its CSVs; base is
 * OUT/NAME.  Returns 0 or -1 on a write error.  The rows are those of the
 * main CSV in exp_csv_header(kind)'s columns. */
EXP_API int exp_tables_write(const exp_plan *pl, int section, const char *base, exp_row *rows,
                             int nrows, exp_outset *set);

/* Where a section's tasks ran: results whose worker was pinned to one CPU
 * (prov placement "cpu K"), of a lone worker ("serial") and the others,
 * the distinct CPUs and their list ("0 1"). */
typedef struct exp_placement {
  int pinned, serial, unpinned, cpus;
  char list[256];
} exp_placement;

/* The tie tolerance of a profile or scaling section's winners (exp_tie_of:
 * the section's `tie`, else the between-run noise measured in its rows,
 * else 0.05) and in *why where it came from. */
EXP_API double exp_section_tie(const exp_section *s, exp_row *rows, int nrows, const char **why);

/* Writes OUT/NAME_timing.csv of a timed section: the timing protocol as run
 * (placement, the repetition rule), the between-run noise measured in its
 * rows and the winners' tie tolerance (experiments/README.md, "Timing").
 * 0, or -1 on a write error. */
EXP_API int exp_timing_write(const exp_section *s, const char *base, exp_row *rows, int nrows,
                             const exp_placement *pc, exp_outset *set);

/* Writes OUT/NAME_tex.csv (base is OUT/NAME): "text,tex" for every
 * distinct text of the section that is not a number -- the values of its
 * CSV preamble (the "# key: value" lines of preamble, the text after the
 * first ':'), the fields of its rows and the coverage table's reasons --
 * with its LaTeX form by exp_tex_escape, sorted.  0, or -1 on a write error. */
EXP_API int exp_text_write(const exp_section *s, const char *base, const char *preamble,
                           exp_row *rows, int nrows, exp_outset *set);

/* The names a section of kind k writes, after OUT/NAME: ".csv", its second
 * CSV ("_profile.csv", "_slopes.csv") and its tables ("_failures.csv",
 * "_failures.tex", ...), as exp_collect and exp_tables_write write them
 * (the figures aside: exp_outputs_check).  Their count (at most max). */
enum { EXP_SUFFIX_MAX = 24, EXP_MAX_OUTPUTS = 24 };
EXP_API int exp_output_suffixes(exp_kind k, char sfx[][EXP_SUFFIX_MAX], int max);

/* The Dolan-More curves of a profile section, per class and tolerance
 * (NAME_profile.csv rows, exp_csv2_header(EXP_PROFILE)); 0 or -1. */
EXP_API int exp_profile_write(FILE *g, const exp_section *s, exp_row *rows, int nrows);
/* The same curves, with their header line, of a profile section's CSV
 * given as text (its header, exp_csv_header(EXP_PROFILE), then rows; '#'
 * lines skipped): *out a malloc'd text (free it).  0, or -1 with err. */
EXP_API int exp_profile_of_csv(const char *csv, char **out, char *err, size_t len);
/* The profile figure of the same rows (exp_profile.gp of the folder
 * scripts, run by gnuplot, the section's figure options figure or NULL:
 * `figure` of an experiment file) as base.pdf and base.png (base-K-Q.*
 * for more tolerances and pages), as a profile section draws it.
 * EXP_EXIT_OK drawn; EXP_EXIT_USAGE csv is not a profile CSV, a figure
 * option is refused or base holds a newline; EXP_EXIT_FAILED no script,
 * the data could not be written, gnuplot failed or could not be run (the
 * messages say which). */
EXP_API int exp_profile_figure(const exp_log *log, const char *csv, const char *base,
                               const char *figure, const char *scripts, const char *gnuplot);
/* The scaling fits per (family, solver) as NAME_slopes.csv rows into g
 * and, when tex is not NULL, as a booktabs table; 0 or -1. */
EXP_API int exp_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows);

/* The step time against the contacts of a scenes section, per (scene,
 * settings, solver): the least squares of log time_step_median_s on log
 * contacts_mean_timed over its completed runs (exp_fit_line_ci) and the
 * median time per contact, as NAME_slopes.csv rows into g and, when tex is
 * not NULL, a booktabs table; 0 or -1. */
EXP_API int exp_scene_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows);

/* Column index of name in a kind's main CSV header (-1 if absent). */
EXP_API int exp_col(exp_kind k, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* EXP_H */
