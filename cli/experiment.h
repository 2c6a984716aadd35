/* experiment.h -- private interface of the experiment engine behind
 * `lcplab experiment`, `lcplab task` and `lcplab collect`
 * (experiments/README.md, "Experiment files" and "Campaigns").
 *
 * The engine runs in five stages, each in its own file:
 *
 *   config    experiment_config.c   the .exp file -> exp_config (every error:
 *                                   one line "lcplab: FILE:LINE: KEY: what",
 *                                   exit 2, before anything runs)
 *   prepare   experiment_prepare.c  problems materialised as files (generated
 *                                   families, scene exports) with metadata:
 *                                   class, n, nnz, contacts, condition estimate
 *   plan      experiment_plan.c     problems x solvers x tols (scenes x friction
 *                                   x integrators x solvers) -> tasks, written
 *                                   to a plan folder (tasks.tsv, problems.tsv,
 *                                   run-parallel.sh, slurm.sbatch)
 *   task      experiment_task.c     one task: its measurements, written as one
 *                                   result file atomically (experiment_result.c),
 *                                   under a watchdog for the time limit
 *   collect   experiment_collect.c  results -> the section CSVs, the per-class
 *                                   profiles and the tables (experiment_tables.c)
 *
 * experiment_jobs.c runs the tasks of a plan on N local worker processes;
 * experiment_prov.c gathers the provenance (CPU, governor, load, compiler,
 * BLAS, revision); experiment_stats.c holds the pure computations
 * (quantiles, profiles with ties and identical algorithms, line fits with
 * confidence intervals, status tallies, LaTeX escaping), which
 * tests/test_experiment_profile.c checks against hand-worked examples.
 * Nothing here is global mutable state except the signal flags of
 * experiment_jobs.c (volatile sig_atomic_t, as signal handlers require).
 */
#ifndef CLI_EXPERIMENT_H
#define CLI_EXPERIMENT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "slv.h"
#include "slv_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- pure computations (experiment_stats.c; no I/O, no allocation) --------- */

/* Dolan-More performance ratios (Dolan and More 2002, Math. Program. 91):
 * t[p*ns + s] is the cost (time) of solver s on problem p, with a failure
 * given as +INFINITY (any t that is not finite and > 0 counts as a failure).
 * r[p*ns + s] = t_ps / min_s' t_ps' (INFINITY for a failure, and for every
 * solver of a problem nobody solved). */
void exp_profile_ratios(int np, int ns, const double *t, double *r);

/* The same with identical algorithms: alias[p*ns + s] = s' >= 0 when solver
 * s ran solver s''s own algorithm on problem p (res.method, e.g. pgs_wide on
 * a dense problem runs pgs), else -1 (alias may be NULL: no aliases).  The
 * minimum is taken over the runs that are not aliases; an alias whose s'
 * solved p gets r_ps = r_ps' (the same algorithm: one run, not two), an
 * alias whose s' did not is a run like any other. */
void exp_profile_ratios_alias(int np, int ns, const double *t, const int *alias, double *r);

/* rho_s(tau) = #{p : r_ps <= tau} / np (0 when np = 0). */
double exp_profile_rho(int np, int ns, const double *r, int s, double tau);

/* The breakpoints of rho_s: the distinct finite ratios of solver s, sorted
 * ascending, into taus (size >= np); returns their count. */
int exp_profile_breaks(int np, int ns, const double *r, int s, double *taus);

/* Winners at tau = 1 with a tie tolerance: on problem p the solvers with
 * r_ps <= 1 + tie (tie >= 0), leaving out aliases (alias[p*ns+s] >= 0,
 * alias may be NULL), are the fastest; if there is one, it gets wins[s]++,
 * if there are several, each gets ties[s]++.  wins, ties: size ns, set to
 * the counts (not accumulated). */
void exp_profile_winners(int np, int ns, const double *r, const int *alias, double tie, int *wins,
                         int *ties);

/* Quantile q in [0, 1] of the k >= 1 values x sorted ascending, by linear
 * interpolation between order statistics (Hyndman and Fan's type 7, R's
 * default): h = (k - 1) q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). */
double exp_quantile(const double *x, int k, double q);

/* The timing summary of k >= 1 runs (t is sorted in place). */
typedef struct exp_tsum {
  double median, q1, q3, min, total;
} exp_tsum;
void exp_time_summary(double *t, int k, exp_tsum *out);

/* The repetition rule: 1 when `runs` runs totalling `total` seconds are
 * enough: (runs >= min_runs and total >= min_time), or total >= max_time
 * (a slow solve: fewer runs, each reported), else 0. */
int exp_repeat_done(int runs, double total, int min_runs, double min_time, double max_time);

/* Least squares y = a + b x over k points (x, y finite).  Returns 0 with a,
 * b and r2 (coefficient of determination; 1 when all y are equal) set, or -1
 * when k < 2 or all x are equal. */
int exp_fit_line(const double *x, const double *y, int k, double *a, double *b, double *r2);

/* The same and the 95 % confidence interval of the slope, b +- t_{0.975,
 * k-2} se(b), se(b) = sqrt(SSres / (k - 2) / Sxx) (Student's t from GSL);
 * with k = 2 the interval is (-inf, inf): two points fix a line exactly. */
int exp_fit_line_ci(const double *x, const double *y, int k, double *a, double *b, double *r2,
                    double *b_lo, double *b_hi);

/* The columns of the failure table, in order (status names as in the CSVs:
 * slv_status_str, plus the engine's own "refused", "time_limit",
 * "unconverged" (an external solver whose answer misses the tolerance),
 * "failed" (an external solver that wrote no usable answer) and "error" (the
 * task could not run)); exp_status_column maps a status to its column
 * (EXP_NSTATUS - 1, "other", for anything else). */
enum { EXP_NSTATUS = 14 };
const char *exp_status_name(int col);
int exp_status_column(const char *status);

/* LaTeX text of s for a tabular cell: \ _ % & # $ { } ~ ^ < > | escaped,
 * control characters dropped; out (size len) always terminated; returns 0,
 * or -1 when truncated. */
int exp_tex_escape(const char *s, char *out, size_t len);

/* The key under which refusal messages are grouped in the coverage table:
 * msg after the solver's own name ("NAME " or "NAME: "), up to the first ';'
 * or ':' outside parentheses, without the
 * parenthesised groups that hold a digit (this problem's details):
 * "pgs needs A(i,i) > 0; A(3,3)=0" -> "needs A(i,i) > 0",
 * "enum takes n <= 16 (n=200)" -> "takes n <= 16". */
void exp_reason_key(const char *solver, const char *msg, char *out, size_t len);

/* snprintf into buf (size len >= 1), always terminated; returns 1 when
 * the text was cut (paths and labels are bounded, so a cut is reported or
 * harmless, never a warning of the compiler's truncation check). */
int exp_fmt(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* FNV-1a, 64 bits, continued from h (start with EXP_FNV_INIT). */
#define EXP_FNV_INIT 0xcbf29ce484222325ull
uint64_t exp_fnv1a(uint64_t h, const void *data, size_t len);

/* SHA-256 (FIPS 180-4), the content hash of instance files: init, add the
 * bytes, then hex (64 lowercase hex digits and a NUL; the state is used up).
 * Written here because no library lcplab links holds one (libcrypto, nettle
 * and GnuTLS are only dependencies of HDF5's dependencies). */
typedef struct exp_sha256 {
  uint32_t h[8];
  uint64_t bytes;
  unsigned char buf[64];
} exp_sha256;
void exp_sha256_init(exp_sha256 *s);
void exp_sha256_add(exp_sha256 *s, const void *data, size_t len);
void exp_sha256_hex(exp_sha256 *s, char out[65]);

/* ---- problem classes ---------------------------------------------------------- */

typedef enum exp_class {
  EXP_CLASS_LCP = 0,    /* lo = 0, hi = +inf */
  EXP_CLASS_BOX,        /* finite bounds or findex friction rows (boxed LCP, relay) */
  EXP_CLASS_MLCP,       /* equality (free) rows and LCP rows: joints, Siconos MLCP */
  EXP_CLASS_FC3D,       /* Coulomb cones, De Saxce (FCLIB, Siconos FC3D) */
  EXP_CLASS_CONE_ASSOC, /* associated cones (CCP) */
  EXP_CLASS_COUNT
} exp_class;

const char *exp_class_str(int c);      /* "lcp", "box", "mlcp", "fc3d", "cone-assoc" */
int exp_class_from_str(const char *s); /* -1 if unknown */
int exp_class_of(const slv_instance *inst);

/* ---- configuration (experiment_config.c) -------------------------------------- */

typedef enum exp_kind {
  EXP_CONVERGENCE = 0,
  EXP_PROFILE,
  EXP_SCALING,
  EXP_DRIFT,
  EXP_ACCURACY,
  EXP_KIND_COUNT
} exp_kind;

const char *exp_kind_str(exp_kind k);
int exp_kind_is_scene(exp_kind k);

typedef enum exp_src_kind {
  EXP_SRC_FILE = 0, /* a file, a folder (its instance files) or a glob pattern */
  EXP_SRC_GEN,      /* a generated family at one size and seed (datasets/gen_instances) */
  EXP_SRC_SCENE     /* a named scene (libdynamics) */
} exp_src_kind;

#define EXP_MAX_SOLVERS   64
#define EXP_MAX_TOLS      4
#define EXP_NAME_MAX      64
#define EXP_PATH_MAX      4096
#define EXP_PARAM_MAX     96
#define EXP_MAX_EXTERNALS 32
#define EXP_MAX_VARS      256 /* variables of a plan (plan.vars lines) */
/* the longest #SBATCH --time written, in minutes: 365 days (experiments/README.md, "Campaigns") */
#define EXP_SBATCH_MAX_MIN 525600
/* the longest time_limit, max_time or min_time accepted (s): 1e6, 11.6 days
 * (experiments/README.md, "Keys") */
#define EXP_TIME_MAX_S 1e6

/* friction models of scene runs (dyn_friction values), -1 = auto */
#define EXP_FRICTION_AUTO (-1)

typedef struct exp_source {
  exp_src_kind kind;
  int line;                                   /* line of the config that named it */
  char path[EXP_PATH_MAX];                    /* FILE: resolved path or pattern */
  char family[32];                            /* GEN: gen_instances --type */
  long n;                                     /* GEN: --n */
  unsigned long seed;                         /* GEN: --seed */
  char scene[EXP_NAME_MAX];                   /* SCENE */
  char params[CLI_MAX_PARAMS][EXP_PARAM_MAX]; /* SCENE: "key=value" */
  int nparams;
  long steps;                /* SCENE: 0 = the scene's default */
  long every;                /* SCENE as problems: export every E-th step (0: the last only) */
  double dt;                 /* SCENE: 0 = default */
  int friction;              /* SCENE: -2 = the section's, else a dyn_friction / AUTO */
  int cone_law;              /* SCENE: -1 default, else slv_cone_law */
  char solver[EXP_NAME_MAX]; /* SCENE as a problem source: the world's solver ("" = auto) */
} exp_source;

/* An external solver (a command template; experiments/README.md, "External
 * solvers"): declared once, anywhere in the file, used by name in `solvers`. */
typedef struct exp_external {
  char name[EXP_NAME_MAX];
  int line;
  char format[16];             /* the instance format handed over: dat, blcp, lcp, hdf5, mtx */
  char time_key[32];           /* "": the process's wall time; else a number it prints */
  unsigned classes;            /* bit c: takes class c; 0 = every class */
  char requires[EXP_PATH_MAX]; /* a program that must exist ("" = none) */
  /* the template, run by /bin/sh -c with its values as positional
   * parameters: {in} {out} {tol} {max_iter} {n} {class} {time_limit} are
   * "${1}".."${7}" (exp_ext_keys), the k-th ${NAME} "${7+k}" */
  char command[EXP_PATH_MAX];
  char vals[EXP_PATH_MAX]; /* the ${NAME} values, each ending in '\0' */
  int nvals;
  int available; /* requires found (or none) */
} exp_external;

/* An external's placeholders, in the order of their positional parameters
 * (experiments/README.md, "External solvers"). */
#define EXP_EXT_NKEYS    7
#define EXP_EXT_MAX_VALS 16
extern const char *const exp_ext_keys[EXP_EXT_NKEYS];

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
  int nsolvers;      /* 0 after parsing: every registered solver */
  int solvers_given; /* a `solvers` line was read */
  exp_source *src;
  int nsrc, capsrc;
  unsigned classes; /* bit c: keep class c; 0 = every class */
  double tol[EXP_MAX_TOLS];
  int ntol;          /* 0: the default for the kind */
  long max_iter;     /* 0: the default for the kind */
  long max_pivots;   /* 0: the pivoting solvers' automatic budget (slv.h) */
  long min_runs;     /* timed runs at least (key min_runs, alias repeat); default 5 */
  double min_time;   /* s: timed runs total at least; default 0.1 */
  double max_time;   /* s: stop repeating past this total (key max_time, alias budget); default 2 */
  double time_limit; /* s: a solve (problem kinds) / a run (scene kinds); default 60 / 600 */
  double tie;        /* tie tolerance of the fastest at tau = 1; default 0.05 */
  int integrators[3];      /* dyn_integrator */
  int nint;                /* 0: symplectic only */
  int friction[4];         /* scene kinds: the friction groups (dyn_friction / AUTO) */
  int nfriction;           /* 0: box and cone, a group each */
  int compare_integrators; /* scene kinds: `compare integrators` (presentation) */
  unsigned long seed;      /* opt.seed and the default seed of `generate`; default 1 */
  exp_failure failure;     /* scene kinds: the failed-step policy (file's, then own) */
  char figure[512];        /* `figure key=value...`, for the figure scripts */
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
int exp_config_read(const char *path, const char *dir, const exp_vars *vars, exp_config *cfg);
/* The same for a plan's own copy (plan.exp): the instance paths are not
 * looked for on the disk (the plan's problems.tsv lists the problems), so
 * a plan still reads when its instances have moved. */
int exp_config_read_recorded(const char *path, const char *dir, const exp_vars *vars,
                             exp_config *cfg);
void exp_config_free(exp_config *cfg);

/* The variables the file was read with, "NAME=VALUE\n" lines ("" none). */
const char *exp_config_vars(const exp_config *cfg);

/* The name of a section's solver (registry name or external name). */
const char *exp_solver_name(const exp_config *cfg, const exp_solver_ref *r);

/* ---- provenance (experiment_prov.c) --------------------------------------------- */

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
  double load_start, load_end; /* 1-minute load average */
} exp_prov;

void exp_prov_gather(exp_prov *p);
double exp_loadavg(void);
/* The source revision: LCPLAB_REV, else git rev-parse in dir (+ -dirty). */
void exp_git_rev(const char *dir, char *rev, size_t len);
/* The SHA-256 of the file's bytes as hex into hex; 0, or -1 with err (size
 * len) "PATH: why" when it cannot be read or is not a regular file (opened
 * without blocking: a FIFO is never read). */
int exp_sha256_file(const char *path, char hex[65], char *err, size_t len);
/* Limits this process's address space to mb megabytes (RLIMIT_AS), unless
 * mb <= 0, LCPLAB_MEMORY_LIMIT=0 (valgrind) or an AddressSanitizer build. */
void exp_limit_memory(double mb);
/* Physical memory / online CPUs, in MB: the default limit of a task. */
double exp_default_memory_mb(void);
/* Runs argv; stdout into out (NUL-terminated, may be NULL), stderr to
 * /dev/null when quiet.  Exit status, or -1 if it could not run. */
int exp_run_prog(char *const *argv, char *out, size_t len, int quiet);

/* ---- problems (experiment_prepare.c) ---------------------------------------------- */

/* One problem of a plan's catalogue (problems.tsv). */
typedef struct exp_prob {
  int section;     /* index of its section */
  char label[128]; /* CSV name: file base name, FAMILY_N_sS, scene_..._kK */
  char family[48]; /* scaling: the generated family, else the label up to '_' */
  int cls;         /* exp_class */
  char kind[16];   /* slv_instance kind */
  int n;
  long nnz;                /* stored nonzeros of A (dense: entries != 0) */
  int contacts;            /* cones, findex normal rows or the scene's contacts; 0 none */
  double cond;             /* 1-norm condition estimate (inf: singular) */
  char origin[16];         /* file, generated, scene */
  char path[EXP_PATH_MAX]; /* the instance file */
  char sha256[65];         /* the SHA-256 of its bytes when the plan was made (hex) */
} exp_prob;

typedef struct exp_env {
  const char *gen;     /* path of gen_instances ("" if not found) */
  const char *datadir; /* where generated instances and scene exports go */
  int tty;             /* progress on stderr */
  size_t max_memory;   /* --max-memory: the readers' cap, bytes (0: the default) */
} exp_env;

/* Materialises the problems of every problem-kind section as files
 * (gen_instances for generated ones, scene exports) and reads each once for
 * its metadata (cached in DATADIR/problem-meta.tsv by path, size and mtime).
 * Scene sections only have their scenes built once (parameters checked).
 * Returns -1 on success (*probs, *np set; free()), else the exit status
 * after the message. */
int exp_prepare(const exp_config *cfg, const exp_env *env, exp_prob **probs, int *np);

/* ---- plans and tasks (experiment_plan.c) ------------------------------------------- */

typedef struct exp_task {
  int section;
  int prob;              /* catalogue index (problem kinds), else -1 */
  int src;               /* scene source (scene kinds), else -1 */
  exp_solver_ref solver; /* a registered solver or an external */
  int integrator;        /* scene kinds: dyn_integrator */
  int friction;          /* scene kinds: dyn_friction */
} exp_task;

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
                                   default, slv_read_options_default) */
  char dump_dir[EXP_PATH_MAX];    /* --dump-failures: absolute folder ("" = none) */
} exp_plan;

/* The effective tolerance list of a section (the kind's default when none
 * given) into tol (size EXP_MAX_TOLS); returns the count. */
int exp_section_tols(const exp_section *s, double *tol);
/* The effective time limit of a section in a plan. */
double exp_time_limit(const exp_plan *pl, const exp_section *s);
/* The friction groups of a scene section into fr (size 4); returns the count. */
int exp_section_frictions(const exp_section *s, int *fr);

/* Expands the config and the problems into pl->tasks (pl->cfg, probs set)
 * and sets pl->id from the plan's files as exp_plan_write would write them.
 * 0, or -1 (out of memory). */
int exp_plan_expand(exp_plan *pl);
/* Writes the plan folder pl->dir (created): plan.exp, plan.vars, plan.info,
 * problems.tsv, tasks.tsv, task-ids, run-parallel.sh, slurm.sbatch,
 * results/.  chunk: tasks per Slurm array element (0: automatic).  Returns
 * 0, or -1 after the message. */
int exp_plan_write(const exp_plan *pl, int chunk);
/* The id recorded in DIR/plan.info into id (size 24); 0, or -1 if there is
 * no readable plan there. */
int exp_plan_peek_id(const char *dir, char *id);
/* The path of this lcplab program (the libtool wrapper in a build tree). */
void exp_self_path(char *out, size_t len);
/* Reads a plan folder (config re-parsed with the recorded variables).
 * Returns -1 on success, else the exit status (2) after the message. */
int exp_plan_read(const char *dir, exp_plan *pl);
void exp_plan_free(exp_plan *pl);
/* The tasks.tsv line of task i (without newline) into buf. */
void exp_task_spec(const exp_plan *pl, int i, char *buf, size_t len);
/* DIR/results/tNNNNNN.res */
void exp_result_path(const exp_plan *pl, int i, char *buf, size_t len);
/* Task i's key (experiments/README.md, "Result files"): the SHA-256 (hex)
 * of the plan id, every variable's value, the task's tasks.tsv line and its
 * problem file's SHA-256 as the plan recorded it. */
void exp_task_key(const exp_plan *pl, int i, char key[65]);

/* ---- results (experiment_result.c) ------------------------------------------------- */

/* A result file (experiments/README.md, "Result files"): the header lines,
 * the CSV rows, and an end line with the row count and the FNV-1a of every
 * byte before it, so a truncated or altered file is found. */
typedef struct exp_result {
  int task;
  char plan[24];
  char key[65]; /* exp_task_key */
  char spec[512];
  char task_status[16]; /* ok, error (could not run), failed (no usable answer) */
  char message[512];
  exp_prov prov;
  char rev[160];
  double time_limit;
  double elapsed;
  char **rows;
  int nrows;
} exp_result;

/* Sets h's plan id, task, key, spec (tabs as blanks), rev and time limit
 * for task i of pl. */
void exp_result_identify(const exp_plan *pl, int i, exp_result *h);
/* 1 when r is task i's own result in pl (plan id, task number and key),
 * else 0 with why (size len) set. */
int exp_result_matches(const exp_plan *pl, int i, const exp_result *r, char *why, size_t len);

/* Reads path; returns 0 (complete and intact), 1 missing, or -1 with why
 * (size len) set: truncated, checksum mismatch, unparsable. */
int exp_result_read(const char *path, exp_result *r, char *why, size_t len);
void exp_result_free(exp_result *r);

/* Rows being built (CSV lines, each ending in '\n'). */
typedef struct exp_rbuf {
  char *buf;
  size_t len, cap;
  int nrows;
} exp_rbuf;
int exp_rbuf_add(exp_rbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void exp_rbuf_free(exp_rbuf *b);

/* ---- values as data (experiment_shell.c; experiments/README.md, "No shell
 * ever parses a value") ---- */
/* Appends s to b single-quoted for sh (' -> '\''); nonzero when out of memory. */
int exp_sh_quote(exp_rbuf *b, const char *s);
/* Appends s to b as a single-quoted gnuplot string (' -> ''). */
int exp_gp_quote(exp_rbuf *b, const char *s);
/* 0, or CLI_EXIT_USAGE with one line naming what and s when s holds a newline
 * or a carriage return. */
int exp_line_safe(const char *what, const char *s);
/* Writes the reference to positional parameter index into out: "${N}", or
 * ${N} inside double quotes; its length, or -1 when it does not fit. */
int exp_template_ref(char *out, size_t len, int index, int in_dquotes);
/* CSV fields (RFC 4180): whether s needs quotes (it holds , " CR or LF);
 * writes s to f, quoted when it does; splits line in place into at most max
 * fields, quotes undone, and returns their number. */
int exp_csv_needs_quotes(const char *s);
void exp_csv_put(FILE *f, const char *s);
int exp_csv_split(char *line, char **f, int max);
/* Draws section s's figure base.pdf/.png ... from csv (and csv2, or NULL)
 * with the script scripts/exp_KIND.gp run by gnuplot (experiment_figure.c);
 * 0 drawn; gnuplot's exit status, or 1 when there is no script or the data
 * cannot be written (a note on stderr); -1 when gnuplot cannot be run. */
int exp_figure_draw(const exp_section *s, const char *base, const char *csv, const char *csv2,
                    const char *scripts, const char *gnuplot);
/* Whether the figure option kv (len characters, key=value) may reach the
 * scripts: title= any text, other values letters, digits and ._,+-: only
 * (they reach awk programs and gnuplot commands). */
int exp_figure_value_ok(const char *kv, size_t len);
/* $GNUPLOT, else "gnuplot". */
const char *exp_gnuplot_prog(void);
/* Writes the header fields of h (not its rows), then rows, then extra
 * (nextra more rows, e.g. a time_limit row; may be NULL) and the end line
 * to path atomically (tmp + rename).  Only open, write, rename and
 * snprintf, no allocation: safe from the watchdog thread.  0 or -1. */
int exp_result_commit(const char *path, const exp_result *h, const exp_rbuf *rows, int nextra,
                      const char *extra);

/* ---- running tasks (experiment_task.c) ------------------------------------------------ */

/* The problem most recently loaded by this process, kept for the next task
 * on the same problem. */
typedef struct exp_cache {
  int prob;
  slv_instance *inst;
  exp_prov prov; /* gathered once per process */
  int have_prov;
} exp_cache;
void exp_cache_free(exp_cache *c);

/* Runs task i of the plan and writes its result.  Returns 0 (result
 * written; the built-in solvers may have failed), 3 (the task could not
 * run, or an external solver left no usable answer: result written with
 * task_status error or failed), or -1 (the result could not be written;
 * message printed).  *nonconv (may be NULL) is set to 1 when a solve did not
 * converge. */
int exp_task_run(const exp_plan *pl, int i, exp_cache *cache, int *nonconv);

/* The CSV header row of a section's main CSV (without newline), and of its
 * second CSV (profile: NAME_profile.csv, scaling: NAME_slopes.csv; NULL for
 * the other kinds). */
const char *exp_csv_header(exp_kind k);
const char *exp_csv2_suffix(exp_kind k); /* "_profile", "_slopes" or NULL */
const char *exp_csv2_header(exp_kind k);

/* ---- local jobs (experiment_jobs.c) --------------------------------------------------- */

typedef struct exp_jobs_opts {
  int jobs; /* worker processes */
  int tty;  /* one progress line (else plain lines) */
} exp_jobs_opts;

typedef struct exp_jobs_report {
  int total, skipped, done, nonconv, errors, left;
  int stopped_by; /* 0, SIGINT or SIGTERM */
  double elapsed;
} exp_jobs_report;

/* 1 when task i of the plan has its own intact result (exp_result_read,
 * exp_result_matches), else 0: the task is to run. */
int exp_task_done(const exp_plan *pl, int i);

/* Runs every task of the plan that has no valid result yet, on o->jobs
 * worker processes (forked), each task's result written by the worker.
 * Returns 0 (all run), 1 (stopped by SIGINT / SIGTERM: *rep says where), or
 * -1 on a system error (message printed). */
int exp_jobs_run(const exp_plan *pl, const exp_jobs_opts *o, exp_jobs_report *rep);

/* ---- collect (experiment_collect.c, experiment_tables.c) ----------------------------- */

typedef struct exp_collect_opts {
  const char *out;     /* output folder */
  const char *scripts; /* folder of exp_KIND.gp ("" or NULL: no figures) */
  const char *gnuplot;
  int allow_mixed;
  int no_plot;
  int quiet; /* no list of outputs on stdout */
} exp_collect_opts;

/* Merges the results of the plan into the section CSVs, tables and figures.
 * Returns 0 (every task's result present and intact, one provenance), 3
 * (results missing, failed, corrupted or truncated: named on stderr and left
 * out; or mixed provenance without allow_mixed: nothing merged), or 2 on a
 * write error. */
int exp_collect(const exp_plan *pl, const exp_collect_opts *o);

/* May the outputs of cfg's sections be written into the folder out?  Each
 * output collect writes (exp_output_suffixes; with figures, NAME.pdf,
 * NAME.png and the pages NAME-K.pdf / .png) is checked: 1 after a message
 * naming the file if one exists and not force, or if one is a symlink
 * leading outside out (also with force); else 0 (docs/io.md, "Replacing
 * files"). */
int exp_outputs_check(const exp_config *cfg, const char *out, int force, int figures);

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
  slv_outfile **o;
  char **path;
  int n, cap, done; /* files; files finished (o[0..done)) */
  int failed;
  FILE *list; /* the published paths are printed here (NULL: nowhere) */
} exp_outset;
/* A new file of set at path: its stream, or NULL after the message. */
FILE *exp_outset_open(exp_outset *set, const char *path);
/* The writer of the files opened since the last call is done (rc: its own
 * status); they are finished.  0, or -1 (after the message for a write
 * error) when rc != 0 or a write failed: then the set is not published. */
int exp_outset_done(exp_outset *set, int rc);
/* Renames every file over its path (each path printed on set->list), or
 * drops them all when any failed (or not ok).  Frees the set.  0, or -1
 * after the message. */
int exp_outset_publish(exp_outset *set, int ok);

/* Writes the tables of a section (failures, coverage, timings, winners,
 * slopes or steps) as CSV and booktabs .tex beside its CSVs; base is
 * OUT/NAME.  Returns 0 or -1 on a write error.  The rows are those of the
 * main CSV in exp_csv_header(kind)'s columns. */
int exp_tables_write(const exp_plan *pl, int section, const char *base, exp_row *rows, int nrows,
                     exp_outset *set);

/* The names a section of kind k writes, after OUT/NAME: ".csv", its second
 * CSV ("_profile.csv", "_slopes.csv") and its tables ("_failures.csv",
 * "_failures.tex", ...), as exp_collect and exp_tables_write write them
 * (the figures aside: exp_outputs_check).  Their count (at most max). */
enum { EXP_SUFFIX_MAX = 24, EXP_MAX_OUTPUTS = 16 };
int exp_output_suffixes(exp_kind k, char sfx[][EXP_SUFFIX_MAX], int max);

/* The Dolan-More curves of a profile section, per class and tolerance
 * (NAME_profile.csv rows, exp_csv2_header(EXP_PROFILE)); 0 or -1. */
int exp_profile_write(FILE *g, const exp_section *s, exp_row *rows, int nrows);
/* The scaling fits per (family, solver) as NAME_slopes.csv rows into g
 * and, when tex is not NULL, as a booktabs table; 0 or -1. */
int exp_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows);

/* Column index of name in a kind's main CSV header (-1 if absent). */
int exp_col(exp_kind k, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* CLI_EXPERIMENT_H */
