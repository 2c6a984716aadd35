/* exp.h -- the public interface of libexperiment, lcplab's comparison
 * engine: experiment files, plans, tasks, timed solves, scene runs, external
 * solvers and their judge, statistics, tables, figures and provenance.  It
 * holds what the lcplab program (`lcplab experiment`, `task`, `collect`,
 * `figure`), Python's extension and the experiments call (48 functions);
 * the rest, shared by the engine's files and checked by the tests, is in
 * exp_internal.h, which is not installed.  The engine sits above libio,
 * libdynamics and libsolvers (docs/README.md, "The libraries";
 * experiments/README.md, "Experiment files" and "Campaigns").
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

/* Numbers from text: libsolvers' slv_parse_double / slv_parse_long (slv.h,
 * "numbers from text"), the toolkit's one strict parser. */
/* A byte count for --max-memory: a positive integer, optionally followed by
 * K, M, G or T (powers of 1024; lower case too, "KiB" ... accepted).
 * Returns 1 with *out set, 0 if s is not one (or does not fit size_t). */
EXP_API int exp_parse_bytes(const char *s, size_t *out);

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

/* The global form (M, H, f, w) of w's last step, what export --global
 * writes (io_instance.global) and Python's World.global_problem reads:
 * with jr > 0 joint rows condensed at x, the whole step's answer
 * (dyn_world_global_condensed_new, *ci saying what), else as it is
 * (dyn_world_global_new; *ci zeroed).  *out: free with
 * slv_global_form_free; *mu (unless mu is NULL): the contacts' friction
 * coefficients, n / 3, malloc'd.  DYN_OK, or the refusal with its reason
 * in msg (*out zeroed). */
EXP_API dyn_err exp_world_global(const dyn_world *w, int jr, const double *x, slv_global_form *out,
                                 double **mu, slv_condense_global_info *ci, char *msg, size_t len);

/* Step st's problem p (and its global form, from w) and the impulses x the
 * world applied, to files, and their JSON line to json; 1, or 0 after the
 * message. */
EXP_API int exp_export_step(const exp_export *e, const dyn_world *w, const dyn_run_step *st,
                            const slv_problem *p, const double *x, FILE *json);

/* ---- pure computations (stats.c; no I/O, no allocation) --------- */

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

/* LaTeX text of s for a tabular cell: \ _ % & # $ { } ~ ^ < > | escaped,
 * control characters dropped; out (size len) always terminated; returns 0,
 * or -1 when truncated. */
EXP_API int exp_tex_escape(const char *s, char *out, size_t len);

/* ---- one solve as JSON (solve_json.c; `lcplab solve`, docs/lcplab.1) ---------- */

/* A JSON string (RFC 8259: '"', '\\' and control characters escaped, bytes
 * that are not valid UTF-8 as U+FFFD; NULL as ""); a number with `digits`
 * significant digits, NaN and infinities as null. */
EXP_API void exp_json_string(FILE *f, const char *s);

EXP_API void exp_json_number(FILE *f, double v, int digits);

/* ---- the run summary (summary_parse.c) --------------------------------------- */

/* The run summary's fields from bodies to the stage times' mean, each as
 * ,"KEY":VALUE in the one table's order (exp_run_summary_fields; the
 * summary line of `lcplab simulate`, docs/lcplab.1); joints: the model's
 * joint count. */
EXP_API void exp_run_summary_put(FILE *f, const dyn_run_summary *r, int joints);

/* ---- a solve's budget (solve_options.c) --------------------------------------- */

/* A solve's iteration budget, the one rule: max_iter > 0 sets max_iter and
 * max_pivots (sweeps for the iterative solvers, pivots for the pivoting
 * ones: `lcplab solve --max-iter`, an experiment file's `max_iter`,
 * lcplab.solve's max_iter through the extension), then max_pivots > 0 sets
 * max_pivots alone; 0 leaves opt's. */
EXP_API void exp_options_budget(slv_options *opt, long max_iter, long max_pivots);

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

/* ---- configuration (config.c) -------------------------------------- */

typedef enum exp_kind {
  EXP_CONVERGENCE = 0,
  EXP_PROFILE,
  EXP_SCALING,
  EXP_DRIFT,
  EXP_ACCURACY,
  EXP_SCENES,    /* one run summary per (scene, solver or scene peer) */
  EXP_GRADIENTS, /* a gradient's error per (problem, solver, row class): exp_grad.h */
  EXP_FIDELITY,  /* a scene judged against its analytic answer per (scene, solver, budget) */
  EXP_KIND_COUNT
} exp_kind;

EXP_API const char *exp_kind_str(exp_kind k);

typedef enum exp_src_kind {
  EXP_SRC_FILE = 0, /* a file, a folder (its instance files) or a glob pattern */
  EXP_SRC_GEN,      /* a generated family at one size and seed (exp_generate) */
  EXP_SRC_SCENE     /* a named scene (libdynamics) */
} exp_src_kind;

#define EXP_MAX_SOLVERS 64

#define EXP_MAX_TOLS 4
/* budgets of a fidelity section, at most */
#define EXP_MAX_BUDGETS 8

#define EXP_NAME_MAX 64

#define EXP_PATH_MAX 4096

#define EXP_PARAM_MAX 96

#define EXP_MAX_PARAMS 64 /* scene parameters of a source */

#define EXP_MAX_VARS 256 /* variables of a plan (plan.vars lines) */

/* the longest time_limit, max_time or min_time accepted (s): 1e6, 11.6 days
 * (experiments/README.md, "Keys") */
#define EXP_TIME_MAX_S 1e6

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
  int reduced;                   /* SCENE with a model: the line's coordinates=reduced (1),
                                    maximal (0), or neither (MDL_COORDINATES_FILE, -1: the
                                    file's own; mdl_read_options.reduced) */
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
  double precision;  /* profile, scaling: repeat until the median's 95 % interval is within
                      * this share of it (exp_median_precision), or max_time (key precision);
                      * 0: off (min_runs and min_time are enough) */
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
  /* fidelity: each run's max_iter and max_pivots (key budgets; nbudgets 0: 10, 50, 200) */
  long budgets[EXP_MAX_BUDGETS];
  int nbudgets;
} exp_section;

/* Variables for ${NAME} (or ${NAME:-DEFAULT}) in values: `--var NAME=VALUE`
 * first, then the environment's LCPLAB_NAME, then DEFAULT. */
typedef struct exp_vars {
  const char *def[EXP_MAX_VARS]; /* "NAME=VALUE", borrowed */
  int ndef;
} exp_vars;

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

/* The source revision: LCPLAB_REV, else git rev-parse in dir (+ -dirty). */
EXP_API void exp_git_rev(const char *dir, char *rev, size_t len);

/* ---- generated instances (generate.c) ------------------------------------ */

/* The seeded families of datasets/README.md, "Generated instances" (`lcplab
 * generate`, the `generate` lines of experiment files): dense ones take n
 * up to EXP_GEN_MAX_N rows, the sparse-* ones (A in CSR) up to
 * EXP_GEN_MAX_N_SPARSE; boxed-findex and sparse-findex at least 3, rounded
 * down to a multiple of 3 (rows normal, t1, t2 per contact). */
#define EXP_GEN_MAX_N 10000

#define EXP_GEN_MAX_N_SPARSE 1000000

/* The family names, NULL-terminated. */
EXP_API const char *const *exp_generate_families(void);

/* exp_generate written to path in lcplab's format, named by path's base name
 * without its extension.  The file appears whole or not at all (written
 * beside it, then moved into place); an existing path is kept unless force.
 * EXP_EXIT_OK; EXP_EXIT_USAGE for bad arguments, a missing or read-only
 * folder, an existing path, a write error (a full disk: the old file kept);
 * EXP_EXIT_FAILED when memory ran out; err names the path. */
EXP_API int exp_generate_file(const char *family, long n, unsigned long seed, const char *path,
                              int force, char *err, size_t errlen);

/* ---- C plugins (plugin.c; docs/plugins.md, "C plugins") ------------------ */

/* Loads the plugin at path (libsolvers' slv_plugin_load) and records the
 * SHA-256 of its bytes as loaded (which keys its tasks):
 * 0 (also when that file is loaded already), or -1 with err naming the
 * plugin and what was wrong: not found, not a shared library, not an
 * lcplab plugin (no slv_plugin_abi or slv_plugin_init), built for another
 * solver ABI (both numbers), a registration refused (a name taken). */
EXP_API int exp_plugin_load(const char *path, char *err, size_t len);

/* Each plugin of a colon-separated list (LCPLAB_PLUGINS; empty entries
 * skipped), in order: 0, or -1 at the first failure with its err. */
EXP_API int exp_plugins_load_list(const char *list, char *err, size_t len);

/* ---- plans and tasks (plan.c) ------------------------------------------- */

struct exp_rbuf; /* below (rows being built) */

/* ---- results (result.c) ------------------------------------------------- */

/* Rows being built (CSV lines, each ending in '\n'). */
typedef struct exp_rbuf {
  char *buf;
  size_t len, cap;
  int nrows;
} exp_rbuf;

EXP_API int exp_rbuf_add(exp_rbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

EXP_API void exp_rbuf_free(exp_rbuf *b);

/* ---- the files a command reads, never replaced by its outputs (inputs.c) ---- */

/* The inputs of one command: paths as given. */
struct exp_inputs {
  char **path;
  unsigned long long *dev, *ino; /* each path's device and inode (links followed) */
  int n, cap;
};

/* Adds the problem file path and the files read beside it (MatrixMarket's
 * STEM.b, .lo, .hi, .findex, .mu that exist: io_write_sidecar); 0, or -1
 * out of memory. */
EXP_API int exp_inputs_add_problem(exp_inputs *in, const char *path);

/* Adds the model file and the files it reads besides itself (its
 * <include>s, meshes, textures: mdl_model_files); 0, or -1 out of memory. */
EXP_API int exp_inputs_add_model(exp_inputs *in, const char *model);

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

/* ---- values as data (shell.c; experiments/README.md, "No shell
 * ever parses a value") ---- */

/* 0, or CLI_EXIT_USAGE with one line naming what and s when s holds a newline
 * or a carriage return. */
EXP_API int exp_line_safe(const exp_log *log, const char *what, const char *s);

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

/* The figure options of `lcplab figure`: csv's "# figure: ..." line (the
 * last one of its '#' preamble), then sets (more key=value words, a later
 * one wins), each checked by exp_figure_value_ok, into out (size len).
 * EXP_EXIT_OK, or EXP_EXIT_USAGE after the message (csv unreadable, too
 * long, a value not allowed). */
EXP_API int exp_figure_options(const exp_log *log, const char *csv, const char *sets, char *out,
                               size_t len);

/* $GNUPLOT, else "gnuplot". */
EXP_API const char *exp_gnuplot_prog(void);

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

/* May the figure base.pdf, base.png and its pages (base-K.pdf ...) be
 * written (`lcplab figure`)?  1 after a message naming the file when one
 * is csv or csv2 (never, also with force), exists and not force, or is a
 * symlink leading outside base's folder; else 0 (docs/io.md, "Replacing
 * files").  csv2 may be NULL. */
EXP_API int exp_figure_check(const exp_log *log, const char *base, int force, const char *csv,
                             const char *csv2);

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

/* ---- gradient quality (a gradients section; libexperiment/gradients.c) ----
 * The measure of a gradients section, called by the section's tasks and by
 * experiments/bench_gradients.py (through the Python extension): one
 * calculation.  A row's classes, in the order of the rows: free, at a
 * bound, separated, sticking, sliding, degenerate. */
#define EXP_GRAD_MODES 6

/* A problem's reference answer, its rows' classes, the direction d on b,
 * the cotangent of each class present and the central difference of the
 * reference along d. */
typedef struct exp_grad_ref exp_grad_ref;

/* The reference of p (borrowed: unchanged while *out lives), its random
 * seeds drawn from seed.  0; 1 with msg when there is none (no reference
 * solver converged at 1e-12 at b or at b +- e d, d random or A z, or no
 * derivative at its answer: the problem is skipped); 2 with msg when the
 * free block at its answer is singular (the derivative is not unique); -1
 * out of memory. */
EXP_API int exp_grad_reference_new(const slv_problem *p, unsigned long seed, exp_grad_ref **out,
                                   char *msg, size_t cap);
/* The rows' status of exp_grad_reference_new's rc other than 0: "skipped"
 * (1), "not_unique" (2), "error" (-1). */
EXP_API const char *exp_grad_reference_status(int rc);
EXP_API void exp_grad_reference_free(exp_grad_ref *r); /* NULL is fine */

/* One class's measure of one solver's gradient. */
typedef struct exp_grad_row {
  const char *mode;   /* one of the classes above */
  const char *status; /* the solver's: "converged", else slv_status_str */
  int stable;         /* the modes hold at b +- e d, the answer is the reference's */
  double rel_err;     /* |<gb, d> - fd| / max(|fd|, 1e-6 |gx| |dx|); NaN: no VJP (note) */
  double solve_s;     /* the solve at 1e-10, the fastest of repeat */
  double vjp_s;       /* the VJP at its answer, the fastest of repeat; NaN: none */
  double fd_step;     /* k of the central difference (e = k (1 + |b|_inf) / |d|_inf) */
  char note[64];      /* "another answer", the VJP's refusal, or "" */
} exp_grad_row;

/* sv's solve of p at tol 1e-10 (time_limit s; repeat >= 1 solves, the
 * fastest timed) and its gradient per class of r into rows
 * (EXP_GRAD_MODES at most): their count; 0 with msg when sv refuses p or
 * returns no finite answer; -1 out of memory. */
EXP_API int exp_grad_solver_rows(const slv_problem *p, const exp_grad_ref *r, const slv_solver *sv,
                                 double time_limit, int repeat, exp_grad_row *rows, char *msg,
                                 size_t cap);

/* The quality table of a gradients CSV given as text ('#' lines before the
 * header skipped), header first: *out malloc'd (free it).  0, or -1 with
 * err (not a gradients CSV; out of memory). */
EXP_API int exp_grad_quality_of_csv(const char *csv, char **out, char *err, size_t len);

/* The VJP goal per problem of a gradients CSV given as text (the section's
 * NAME_vjp_goal.csv; exp_grad.h), as exp_grad_quality_of_csv. */
EXP_API int exp_grad_goal_of_csv(const char *csv, char **out, char *err, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* EXP_H */
