/* exp_internal.h -- libexperiment's internal interface: what the engine's
 * files share and what the tests check directly (the stages' structures,
 * the pure computations of stats.c, plans and results, tables, the text
 * and file helpers), none of it exported from the shared library nor
 * installed.  The program, Python and the experiments use exp.h alone;
 * a test that needs an internal includes this header explicitly.  The
 * engine's stages and files are described in exp.h.
 */
#ifndef EXP_INTERNAL_H
#define EXP_INTERNAL_H

#include "exp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- messages and helpers (util.c) ----------------------------------------- */

/* qsort comparator of doubles, ascending (medians of timings). */
int exp_cmp_double(const void *pa, const void *pb);

/* A measured quantity the library wrote to one of its files (a condition
 * estimate, a friction coefficient): a number, inf, or nan for unknown,
 * as printf's %g writes them; anything else is an error. */
slv_parse_error exp_parse_measured(const char *s, double *out);

/* ---- scene summaries (summary_parse.c) --------------------------------------------- */

/* A world's run, its per-step record, its metric columns and its summary
 * are libdynamics' (dyn_run.h: dyn_world_run, dyn_run_step, dyn_metric_*,
 * dyn_run_stats, dyn_run_summary); the engine adds what is about
 * comparing: a peer's summary line and the time per contact. */

/* step_s / contacts; NaN without contacts. */
double exp_time_per_contact(double step_s, double contacts);

/* The solver and options a written problem records (its sections
 * 'solver' and 'options': `lcplab solve` takes them as the file's
 * defaults). */
typedef struct exp_solve_record {
  const char *solver;
  const slv_options *opt;
} exp_solve_record;
/* A step's problem p to path in format fmt, named name (export.c: the one
 * writer of a step's problem, for export, a problem section's scene source
 * and simulate --dump-failures): libio's instance of it
 * (io_instance_of_problem), io_write.  rec NULL: a factored A as CSR; else
 * the storage the solver got, with rec's solver and every option.  keep:
 * the instance handed to the caller (free with io_instance_free; NULL when
 * out of memory), else freed.  SLV_OK, or the status with the reason in
 * err. */
slv_status exp_step_problem_write(const char *path, io_format fmt, const slv_problem *p,
                                  const char *name, const exp_solve_record *rec, io_instance **keep,
                                  char *err, size_t len);

/* One field of the run summary (summary_parse.c's table, the one list):
 * its JSON key, its place in dyn_run_summary, its type ('d' double, 'l'
 * long, 'i' int; 'j' the model's joint count, given by the caller), the
 * significant digits written, EXP_SUM_BLOCK when exp_run_summary_put
 * writes it (in the table's order) and EXP_SUM_REQUIRED when a scene
 * peer's line must give it. */
enum { EXP_SUM_BLOCK = 1, EXP_SUM_REQUIRED = 2 };
typedef struct exp_summary_field {
  const char *name;
  size_t offset;
  char type;
  int digits, flags;
} exp_summary_field;
/* The table and its length in *n. */
const exp_summary_field *exp_run_summary_fields(int *n);

/* A scene peer's summary line (experiments/README.md, "Scene peers"): the
 * last line of text that starts with '{', a JSON object whose top-level
 * numbers steps, contacts_mean_timed, time_step_median_s, time_step_mean_s,
 * energy_start, energy_end and max_body_displacement are required,
 * max_penetration (or max_penetration_end), timed_steps, contacts_mean,
 * contacts_max, kinetic_end, max_settled_displacement, not_converged,
 * time_collide_mean_s, time_solve_mean_s and bodies read when present
 * (exp_run_summary_fields: the table `lcplab simulate`'s JSON is written
 * from; null is NaN).  energy_drift
 * is left NaN: the caller has the scene's drift scale
 * (dyn_model_drift_scale).  0, or -1 with the reason in err. */
int exp_run_summary_parse(const char *text, dyn_run_summary *o, char *err, size_t len);

/* ---- pure computations (stats.c; no I/O, no allocation) --------- */

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

/* rho_s(tau) over the problems s accepts: #{p : not refused, r_ps <= tau} /
 * #{p : not refused}, refused[p*ns + s] = 1 when s refused p (status
 * refused: it does not take the problem, not a failure; refused may be
 * NULL: none), 0 when s accepts none.  A refused problem has r_ps = inf. */
double exp_profile_rho_of(int np, int ns, const double *r, const unsigned char *refused, int s,
                          double tau);

/* The problems solver s accepts: #{p : not refused[p*ns + s]} (np when
 * refused is NULL). */
int exp_profile_accepted(int np, int ns, const unsigned char *refused, int s);

/* Identical algorithms from the traces: key[p*ns + s] is the run's trace
 * (status, iterations, pivots and the digest of x or the residuals as
 * printed; NULL or "" when there is none: refused, no numbers, no work).  A
 * run whose key equals an earlier solver's on the same problem ran that
 * solver's algorithm: alias[p*ns + s] = that solver (or the one it is an
 * alias of), unless alias already names one (res.method); a solver that an
 * earlier one's method names (auto listed before the solver it ran) stays
 * the algorithm, not an alias of itself. */
void exp_profile_same(int np, int ns, const char *const *key, int *alias);

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

void exp_profile_leaders(int ns, const int *wins, const int *ties, const int *solved,
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

void exp_profile_vbest(int np, int ns, const double *t, const unsigned char *refused, int s,
                       exp_vbest *out);

/* The between-run noise of a section: the relative spread of one row's
 * timed runs, (q3 - q1) / median (NaN when runs < 2 or the median is not
 * positive), and the median of the finite ones of k such spreads (rel is
 * reordered; NaN when none).  The tie tolerance: set >= 0 (the section's
 * `tie`), else the noise, else fallback (experiments/README.md, "Timing"). */
double exp_rel_spread(double q1, double median, double q3, int runs);

double exp_noise_median(double *rel, int k);

double exp_tie_of(double set, double noise, double fallback);

/* The noise between independent passes over the timed set (a profile
 * section's `replicates`; experiments/README.md, "Timing"): dl[0..n) the
 * log ratios log(t_pass / t_first) of the same (problem, solver, tol) timed
 * in different passes.  The tie factor: exp(quantile q of |dl|) - 1, the
 * ratio by which two measurements of one solve differ in a share q of the
 * cells (the engine takes q = 0.9).  dl is replaced by |dl| and sorted;
 * NaN when n = 0. */
double exp_tie_of_logs(double *dl, int n, double q);

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

void exp_profile_win_interval(int np, int ns, const double *t, const int *alias, double tie,
                              const double *dl, int nd, int B, unsigned long long seed,
                              exp_boot_work *w, int *lo, int *hi);

void exp_time_summary(double *t, int k, exp_tsum *out);

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

double exp_weighted_quantile(exp_wpoint *p, int n, double q);

/* The repetition rule: 1 when `runs` runs totalling `total` seconds are
 * enough: (runs >= min_runs and total >= min_time), or total >= max_time
 * (a slow solve: fewer runs, each reported), else 0. */
int exp_repeat_done(int runs, double total, int min_runs, double min_time, double max_time);

/* The precision of a median of k timed runs: the half-width of the
 * distribution-free 95 % interval of the median (the order statistics
 * x_(j) and x_(l), j = floor((k - 1.96 sqrt k) / 2), l = ceil(1 + (k +
 * 1.96 sqrt k) / 2), 1-based, clipped to [1, k]) over the median, i.e.
 * (x_(l) - x_(j)) / (2 median); NaN when k < 6 (the interval is then the
 * whole range) or the median is not positive.  t is left as it is; work
 * holds k doubles. */
double exp_median_precision(const double *t, int k, double *work);

/* The per-process repeat rule of an external whose template names {repeat}
 * (experiments/CAMPAIGNS.md, "External solvers"): after a probe process of one
 * solve that took t1 s, the number of solves one process times so that they
 * meet the repetition rule alone: max(min_runs, ceil(min_time / t1)), at
 * most floor(max_time / t1) (a slow solve) and at most cap, at least 1. */
long exp_repeat_count(double t1, int min_runs, double min_time, double max_time, long cap);

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
 * slv_status_str, plus the engine's own "refused", "time_limit" (also the library's), "interrupted",
 * "unconverged" (an external solver whose answer misses the tolerance),
 * "failed" (an external solver that wrote no usable answer), "error" (the
 * task could not run) and "crashed" (its worker died or it ran out of
 * memory: it runs again next time)); exp_status_column maps a status to its column
 * (EXP_NSTATUS - 1, "other", for anything else). */
enum { EXP_NSTATUS = 16 };

const char *exp_status_name(int col);

int exp_status_column(const char *status);

/* The key under which refusal messages are grouped in the coverage table:
 * msg after the solver's own name ("NAME " or "NAME: "), up to the first ';'
 * or ':' outside parentheses, without the
 * parenthesised groups that hold a digit (this problem's details):
 * "pgs needs A(i,i) > 0; A(3,3)=0" -> "needs A(i,i) > 0",
 * "enum takes n <= 16 (n=200)" -> "takes n <= 16". */
void exp_reason_key(const char *solver, const char *msg, char *out, size_t len);

/* ---- bounded text (fmt.c) ------------------------------------------------------ */

/* snprintf into buf (size len >= 1), always terminated; returns 1 when
 * the text was cut (paths and labels are bounded, so a cut is reported or
 * harmless, never a warning of the compiler's truncation check). */
int exp_fmt(char *buf, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- checksums (fnv1a.c) ------------------------------------------------------- */

/* FNV-1a, 64 bits, continued from h (start with EXP_FNV_INIT). */
#define EXP_FNV_INIT 0xcbf29ce484222325ull

uint64_t exp_fnv1a(uint64_t h, const void *data, size_t len);

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

void exp_sha256_init(exp_sha256 *s);

void exp_sha256_add(exp_sha256 *s, const void *data, size_t len);

void exp_sha256_hex(exp_sha256 *s, char out[65]);

/* The SHA-256 of the file's bytes as hex into hex; 0, or -1 with err (size
 * len) "PATH: why" when it cannot be read or is not a regular file (opened
 * without blocking: a FIFO is never read). */
int exp_sha256_file(const char *path, char hex[65], char *err, size_t len);

/* ---- the options of one solve (solve_options.c) ------------------------------- */

/* 1 if the option bit (IO_OPT_*) comes from inst's record: recorded
 * there and no flag sets it. */
int exp_solve_from_file(const exp_solve_flags *fl, const io_instance *inst, unsigned bit);

/* ---- the options of one solve (solve_options.c) ------------------------------- */


/* ---- problem classes ---------------------------------------------------------- */

typedef enum exp_class {
  EXP_CLASS_LCP = 0,    /* lo = 0, hi = +inf */
  EXP_CLASS_BOX,        /* finite bounds or findex friction rows (boxed LCP, relay) */
  EXP_CLASS_MLCP,       /* equality (free) rows and LCP rows: joints, Siconos MLCP */
  EXP_CLASS_FC3D,       /* Coulomb cones, De Saxce (FCLIB, Siconos FC3D) */
  EXP_CLASS_CONE_ASSOC, /* associated cones (CCP) */
  EXP_CLASS_COUNT
} exp_class;

const char *exp_class_str(int c); /* "lcp", "box", "mlcp", "fc3d", "cone-assoc" */

int exp_class_from_str(const char *s); /* -1 if unknown */

int exp_class_of(const io_instance *inst);

/* ---- configuration (config.c) -------------------------------------- */

int exp_kind_is_scene(exp_kind k);

#define EXP_MAX_SETTINGS 32 /* world settings of a scene source */

#define EXP_MAX_EXTERNALS 32

/* the longest #SBATCH --time written, in minutes: 365 days (experiments/CAMPAIGNS.md, "Campaigns") */
#define EXP_SBATCH_MAX_MIN 525600

/* friction models of scene runs (dyn_friction values), -1 = auto */
#define EXP_FRICTION_AUTO (-1)

/* Applies the world settings of a scene source (its key=value words that
 * name a setting, dyn_world_settings_set) to set, in the order written.  -1 when all
 * are set, else the index of the first that is not, with dyn_world_settings_set's
 * reason in err. */
int exp_source_world(const exp_source *src, dyn_world_settings *set, char *err, size_t len);

/* An external solver (a command template; experiments/README.md, "External
 * solvers"): declared once, anywhere in the file, used by name in `solvers`. */
typedef struct exp_external {
  char name[EXP_NAME_MAX];
  int line;
  char format[16];             /* the instance format handed over: dat, blcp, lcp, hdf5, mtx, own */
  char time_key[32];           /* "": the process's wall time; else a number it prints */
  char verdict_key[32];        /* "": none; else the true/false it prints after it, its own
                                  verdict (column reported_solved, table agreement) */
  char iter_key[32];           /* "": none; else the number it prints after it, its own count
                                  of iterations (column iterations; issue 84) */
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
#define EXP_EXT_NKEYS 8

#define EXP_EXT_MAX_VALS 16

extern const char *const exp_ext_keys[EXP_EXT_NKEYS];

/* A scene peer's placeholders (kind=scene): {scene} {steps} {dt}
 * {max_iter} {friction} {time_limit} {model}, then {params}, the scene's
 * parameters as the words --KEY VALUE (experiments/CAMPAIGNS.md, "Scene
 * peers"). */
#define EXP_SCENE_EXT_NKEYS 7

extern const char *const exp_scene_ext_keys[EXP_SCENE_EXT_NKEYS];

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

/* Parses path into *cfg (relative paths against dir, or path's folder when
 * dir is NULL).  Returns -1 on success, else the exit status (2) after
 * printing the one-line error.  Checks solver names, scene names, families,
 * numbers and that every instance path exists. */
int exp_config_read(const char *path, const char *dir, const exp_vars *vars, const exp_log *log,
                    exp_config *cfg);

/* The same for a plan's own copy (plan.exp): the instance paths are not
 * looked for on the disk (the plan's problems.tsv lists the problems), so
 * a plan still reads when its instances have moved. */
int exp_config_read_recorded(const char *path, const char *dir, const exp_vars *vars,
                             const exp_log *log, exp_config *cfg);

void exp_config_free(exp_config *cfg);

/* The variables the file was read with, "NAME=VALUE\n" lines ("" none). */
const char *exp_config_vars(const exp_config *cfg);

/* The name of a section's solver (registry name or external name). */
const char *exp_solver_name(const exp_config *cfg, const exp_solver_ref *r);

/* ---- provenance (prov.c) --------------------------------------------- */

double exp_loadavg(void);

/* Limits this process's address space to mb megabytes (RLIMIT_AS), unless
 * mb <= 0, LCPLAB_MEMORY_LIMIT=0 (valgrind) or an AddressSanitizer build;
 * LCPLAB_MEMORY_LIMIT=MB replaces mb.  A lower limit already in force (the
 * shell's `ulimit -v`, a scheduler's) is kept, and so is the hard limit.
 * exp_prov_gather records the limit in force afterwards. */
void exp_limit_memory(double mb);

/* p's memory_limit: the limit exp_limit_memory(mb) would leave in force in
 * this process (for the record of a worker that died before its own). */
void exp_prov_memory_limit(exp_prov *p, double mb);

/* Physical memory / online CPUs, in MB: the default limit of a task. */
double exp_default_memory_mb(void);

/* Runs argv; stdout into out (NUL-terminated, may be NULL), stderr to
 * /dev/null when quiet.  Exit status (128 + the signal's number when a
 * signal ended it), or -1 if it could not run. */
int exp_run_prog(char *const *argv, char *out, size_t len, int quiet);

/* ---- generated instances (generate.c) ------------------------------------ */

/* EXP_EXIT_OK if family is known and n in its range (*rows, unless NULL:
 * the rows it will have), else EXP_EXIT_USAGE with the reason in err. */
int exp_generate_check(const char *family, long n, long *rows, char *err, size_t errlen);

/* The instance of family with n rows from the seed (*out; io_instance_free),
 * named name (NULL: FAMILY_N_sSEED), classified.  EXP_EXIT_OK; else *out is
 * NULL and err says why: EXP_EXIT_USAGE (exp_generate_check), EXP_EXIT_FAILED
 * (out of memory). */
int exp_generate(const char *family, long n, unsigned long seed, const char *name,
                 io_instance **out, char *err, size_t errlen);

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
int exp_prepare(const exp_config *cfg, const exp_env *env, exp_prob **probs, int *np);

/* Frees n problems (their paths) and the array. */
void exp_probs_free(exp_prob *probs, int n);

/* ---- C plugins (plugin.c; docs/plugins.md, "C plugins") ------------------ */

/* The SHA-256 (hex) of the loaded plugin at real path, as it was when it
 * was loaded; NULL if no plugin was loaded from there. */
const char *exp_plugin_sha256_of(const char *real);

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
int exp_plan_models(exp_plan *pl);

/* The SHA-256 of the files a scene source's model read opens (each path
 * and SHA-256 with its NUL), "" for a named scene: the content an export
 * of the source was written from.  0, or -1 with err. */
int exp_source_digest(const exp_source *src, char sha[65], char *err, size_t len);

/* 1 with err naming the file when a file task i's model line reads changed
 * (or is gone) since the plan hashed it, else 0. */
int exp_models_changed(const exp_plan *pl, int i, char *err, size_t len);

/* Reads the plan folder dir's models.tsv into pl->mfiles (pl's config
 * read): -1 (also without the file: a plan without model lines), else exit
 * status 2 after the message. */
int exp_plan_read_models(const char *dir, exp_plan *pl);

void exp_plan_models_free(exp_plan *pl);

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

/* The files the externals of pl's tasks run (program.c: the command word,
 * the files the template names, requires=), hashed into pl->progs.  0, or
 * -1 out of memory. */
int exp_plan_programs(exp_plan *pl);

/* The SHA-256 of the file at path (links followed; its real path into
 * real): an external's program, a plugin.  0, or -1 with err. */
int exp_program_hash(const char *path, char *real, size_t rlen, char sha[65], char *err,
                     size_t len);

/* The registered solvers from outside that pl's tasks use (plan_plugins.c):
 * each plugin's path and hash, or a Python callable's origin and a hash of
 * this process, into pl->plugs.  0, or -1 out of memory.  exp_plan_programs
 * calls it. */
int exp_plan_plugins(exp_plan *pl);

/* The name of a Python callable among pl's solvers, or NULL: a plan for
 * GNU parallel or Slurm refuses it. */
const char *exp_plan_python_solver(const exp_plan *pl);

/* pl's record of the plugin (or Python callable) solver sv comes from, or
 * NULL for a built-in solver. */
const exp_program *exp_plan_plugin_of(const exp_plan *pl, const slv_solver *sv);

/* plugins.tsv's text ("# plugin TAB sha256", a line per entry) into b:
 * 0, or nonzero out of memory. */
int exp_plan_plugins_tsv(const exp_plan *pl, struct exp_rbuf *b);

/* Loads the plugins of the plan folder dir's plugins.tsv into this process
 * and records them in pl->plugs: -1 when done (or no such file), else exit
 * status 2 after the message (a plugin that cannot load, a Python
 * callable). */
int exp_plan_load_plugins(const char *dir, exp_plan *pl);

/* 1 with err when the plugin of solver sv changed since the plan hashed
 * it (this process loaded other bytes), else 0. */
int exp_plugin_changed(const exp_plan *pl, const slv_solver *sv, char *err, size_t len);

/* 1 with err naming the file when a file of external ext changed (or is
 * gone) since the plan hashed it, else 0. */
int exp_programs_changed(const exp_plan *pl, int ext, char *err, size_t len);

/* Writes the plan folder pl->dir (created): plan.exp, plan.vars, plan.info,
 * problems.tsv, solvers.tsv, tasks.tsv, task-ids, run-parallel.sh,
 * slurm.sbatch, results/.  chunk: tasks per Slurm array element (0: automatic).  Returns
 * 0, or -1 after the message. */
int exp_plan_write(const exp_plan *pl, int chunk);

/* The id recorded in DIR/plan.info into id (size 24); 0, or -1 if there is
 * no readable plan there. */
int exp_plan_peek_id(const char *dir, char *id);

/* The path of this lcplab program (the libtool wrapper in a build tree). */
void exp_self_path(char *out, size_t len);

/* Reads a plan folder (config re-parsed with the recorded variables).
 * Returns -1 on success, else the exit status (2) after the message. */
int exp_plan_read(const char *dir, const exp_log *log, exp_plan *pl);

void exp_plan_free(exp_plan *pl);

/* The tasks.tsv line of task i (without newline) into buf. */
void exp_task_spec(const exp_plan *pl, int i, char *buf, size_t len);

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
  long speed[4]; /* the task's speed checks, slow checks, runs made again and runs kept
                    though slow (speed.c; "speed" line; 0 0 0 0: none, or an older result) */
  char **rows;
  int nrows;
} exp_result;

/* Reads path; returns 0 (complete and intact), 1 missing, or -1 with why
 * (size len) set: truncated, checksum mismatch, unparsable. */
int exp_result_read(const char *path, exp_result *r, char *why, size_t len);

void exp_result_free(exp_result *r);

/* models.tsv's text ("# section TAB source TAB path TAB sha256", a line
 * per file) into b: 0, or nonzero out of memory (plan_models.c). */
int exp_plan_models_tsv(const exp_plan *pl, exp_rbuf *b);

/* The files of task i's model line (none for a problem task, a named
 * scene) added to a task key being computed (exp_task_key). */
void exp_task_key_models(const exp_plan *pl, int i, exp_sha256 *h);

/* ---- whether a task is done (task_done.c) ------------------------------------- */

/* DIR/results/tNNNNNN.res */
void exp_result_path(const exp_plan *pl, int i, char *buf, size_t len);

/* Task i's key (experiments/README.md, "Result files"): the SHA-256 (hex)
 * of the plan id, every variable's value, the task's tasks.tsv line, its
 * problem file's SHA-256 as the plan recorded it and, for an external
 * solver, its programs' paths and SHA-256 (programs.tsv). */
void exp_task_key(const exp_plan *pl, int i, char key[65]);

/* Sets h's plan id, task, key, spec (tabs as blanks), rev and time limit
 * for task i of pl. */
void exp_result_identify(const exp_plan *pl, int i, exp_result *h);

/* 1 when r is task i's own result in pl (plan id, task number and key),
 * else 0 with why (size len) set. */
int exp_result_matches(const exp_plan *pl, int i, const exp_result *r, char *why, size_t len);

/* 1 when r holds a completed verdict: task_status ok, or failed (an
 * external solver's answer judged unusable); not error (the task could not
 * run) nor crashed (its worker died, or it ran out of memory). */
int exp_result_completed(const exp_result *r);

/* 1 when task i of the plan has its own intact result holding a completed
 * verdict (exp_result_read, exp_result_matches, exp_result_completed),
 * else 0: the task is to run. */
int exp_task_done(const exp_plan *pl, int i);

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
int exp_owned_record(const char *dir, const char *const *names, int n, char *err, size_t len);

/* dir's record into *o (no record: empty, o->exists 0).  0, or -1 with err
 * (unreadable, or not a record: nothing is lcplab's then). */
int exp_owned_load(const char *dir, exp_owned *o, char *err, size_t len);

/* Appends a copy of name to o (a list of names to record; unsorted); 0,
 * or -1 out of memory. */
int exp_owned_add(exp_owned *o, const char *name);

/* 1 when name is in o (as exp_owned_load gives it: sorted). */
int exp_owned_has(const exp_owned *o, const char *name);

void exp_owned_free(exp_owned *o);

/* Removes from dir the recorded files that pick says 1 for (pick NULL:
 * all), regular files and links only (a link itself, never its target),
 * with the temporaries their writers left beside them, and drops them
 * from the record.  The count removed, or -1 with err (a file that could
 * not be removed stays recorded). */
int exp_owned_remove(const char *dir, int (*pick)(void *ctx, const char *name), void *ctx,
                     char *err, size_t len);

/* ---- the files a command reads, never replaced by its outputs (inputs.c) ---- */

/* Adds path (NULL, "", "-" and a path that does not exist are none); 0, or
 * -1 out of memory. */
int exp_inputs_add(exp_inputs *in, const char *path);

/* Adds the files a plan reads: its experiment file, its problems' files
 * and its scenes' model files (with theirs); 0, or -1 out of memory. */
int exp_plan_inputs(const exp_plan *pl, exp_inputs *in);

/* ---- removing inside a folder, never leaving it (beneath.c) ---- */

/* A new descriptor of the folder sub (relative, "" : dirfd's folder itself)
 * under dirfd, every component opened with O_DIRECTORY | O_NOFOLLOW: a
 * symbolic link on the way, an absolute sub or a "." or ".." component
 * fails (ELOOP for a link, EINVAL).  The fd, or -1 with errno. */
int exp_beneath_open(int dirfd, const char *sub);

/* Makes the folder sub (relative) inside the folder top (a path, followed
 * as the user named it), each missing component made with mkdirat and
 * every component then opened with O_DIRECTORY | O_NOFOLLOW from its
 * parent's descriptor: a component that is a symbolic link (planted to a
 * folder elsewhere) fails with ELOOP and nothing is made through it.  For
 * every folder lcplab makes or enters inside an output, plan or dump
 * folder.  0, or -1 with errno and the path that failed in bad. */
int exp_beneath_mkdir(const char *top, const char *sub, char *bad, size_t len);

/* The reason for errno e of exp_beneath_open / _mkdir in a message:
 * ELOOP says the path is a symbolic link, others strerror. */
const char *exp_beneath_why(int e);

/* Removes name (relative to dirfd) when it is a regular file or a symbolic
 * link (the link, never its target), reached with exp_beneath_open: 1
 * removed, 0 absent, not a file or behind a link (left alone), -1 with
 * errno (EINVAL: absolute, or a "." or ".." component).  The one way
 * lcplab removes a file it recorded (experiments/CAMPAIGNS.md). */
int exp_beneath_remove(int dirfd, const char *name);

/* Removes the folder name (relative to dirfd, reached with
 * exp_beneath_open) with everything in it, each folder inside opened with
 * O_NOFOLLOW and every entry removed relative to its folder's descriptor:
 * a link on the way (or swapped in) ends the walk, a link inside is
 * removed, never what it points to.  For lcplab's own temporary folders
 * (a task's scratch).  0, or -1 with errno. */
int exp_beneath_remove_tree(int dirfd, const char *name);

/* exp_beneath_remove_tree of the folder dir (a path) from its parent's
 * descriptor: a temporary folder of lcplab's own (a figure's rows) that
 * somebody swapped for a link while it was in use is not followed.
 * Errors are ignored (what cannot be removed stays). */
void exp_beneath_remove_folder(const char *dir);

/* Creates a new file named path, or "path.K" (K = 1, 2, ... 99) when that
 * name is taken (a killed writer's leftover, or an entry somebody planted):
 * O_CREAT | O_EXCL | O_NOFOLLOW, so a link or a hard link at the name is
 * never written through, and nothing there is removed.  The name made into
 * used (size len).  For the files lcplab names itself in folders others
 * may write (the lock's own file, a task's temporary result, a dump's
 * index).  The fd (write only), or -1 with errno. */
int exp_create_new(const char *path, int mode, char *used, size_t len);

/* exp_create_new of name relative to the folder dirfd (used: relative too). */
int exp_create_new_at(int dirfd, const char *name, int mode, char *used, size_t len);

/* ---- values as data (shell.c; experiments/README.md, "No shell
 * ever parses a value") ---- */

/* Appends s to b single-quoted for sh (' -> '\''); nonzero when out of memory. */
int exp_sh_quote(exp_rbuf *b, const char *s);

/* Appends s to b as a single-quoted gnuplot string (' -> ''). */
int exp_gp_quote(exp_rbuf *b, const char *s);

/* Writes the reference to positional parameter index into out: "${N}", or
 * ${N} inside double quotes; its length, or -1 when it does not fit. */
int exp_template_ref(char *out, size_t len, int index, int in_dquotes);

/* CSV fields (RFC 4180): whether s needs quotes (it holds , " CR or LF);
 * writes s to f, quoted when it does; splits line in place into at most max
 * fields, quotes undone, and returns their number. */
int exp_csv_needs_quotes(const char *s);

void exp_csv_put(FILE *f, const char *s);

int exp_csv_split(char *line, char **f, int max);

/* Whether the figure option kv (len characters, key=value) may reach the
 * scripts: title= any text, other values letters, digits and ._,+-: only
 * (they reach awk programs and gnuplot commands), measure= all or
 * accepted (exp_profile.gp's curves). */
int exp_figure_value_ok(const char *kv, size_t len);

/* NULL when exp_figure_value_ok, else why not (a static text). */
const char *exp_figure_value_why(const char *kv, size_t len);

/* Writes the header fields of h (not its rows), then rows, then extra
 * (nextra more rows, e.g. a time_limit row; may be NULL) and the end line
 * to path atomically (tmp + rename).  Only open, write, rename and
 * snprintf, no allocation: safe from the watchdog thread.  0 or -1. */
int exp_result_commit(const char *path, const exp_result *h, const exp_rbuf *rows, int nextra,
                      const char *extra);

/* 1 when the file name in the folder dfd is a result file lcplab wrote
 * (tNNNNNN.res whose first line is "lcplab-result N") or one its writer
 * left (.tNNNNNN.res.tmp.PID.TID: so, or empty), a regular file; else 0:
 * somebody else's, which --force never removes (experiments/CAMPAIGNS.md,
 * "What --force replaces"). */
int exp_result_file_ours(int dfd, const char *name);

/* ---- running tasks (task.c) ------------------------------------------------ */

/* The problem most recently loaded by this process, kept for the next task
 * on the same problem. */
/* The CPU's speed while tasks are timed (speed.c): the worker's fastest
 * reference loop, and how often it was checked and found slow. */
#define EXP_SPEED_WORDS 8192 /* doubles the reference loop reads (speed.c) */
typedef struct exp_speed {
  double *buf; /* the reference loop's input, EXP_SPEED_WORDS zeros (the first check's) */
  double best_s;
  double slow_since; /* when the checks began to find it slow; 0: at speed */
  long checks, slow, discarded, kept_slow; /* runs made again; runs kept though slow */
} exp_speed;

typedef struct exp_cache {
  int prob;
  io_instance *inst;
  exp_prov prov; /* gathered once per process */
  int have_prov;
  exp_speed speed; /* the CPU's speed while timed (speed.c) */
  /* a gradients section's reference of inst (gradients_task.c): made once
   * for the solvers of one (problem, section) in a row */
  struct exp_grad_ref *grad_ref;
  int grad_have, grad_section, grad_rc;
  char grad_msg[256];
} exp_cache;

/* Lets go of the cached problem (a worker's speed checks are kept: the
 * caller frees c->speed.buf when the worker ends). */
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

/* ---- local jobs (jobs.c) --------------------------------------------------- */

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
int exp_jobs_run(const exp_plan *pl, const exp_jobs_opts *o, exp_jobs_report *rep);

/* ---- campaigns (campaign.c) -------------------------------------------------------- */

/* --dump-failures DIR: made if missing, its absolute path into out (size
 * EXP_PATH_MAX).  1, or 0 after the message (cmd names the command). */
int exp_dump_folder(const exp_log *log, const char *cmd, const char *dir, char *out);

/* ---- collect (collect.c, outputs.c, outset.c, tables.c) ---------------- */

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
 * leading outside out (also with force), or one of the inputs in (may be
 * NULL; also with force: exp_output_is_input); else 0 (docs/io.md,
 * "Replacing files"). */
int exp_outputs_check(const exp_config *cfg, const char *out, int force, int figures,
                      const exp_inputs *in);

/* Records what a collect wrote into out as lcplab's (written: the names,
 * relative to out, of the files it published; drawn[k] nonzero when
 * section k's figures were drawn, which are added) and removes every
 * recorded output of cfg's sections that it did not write again: figures
 * not drawn again, tables no longer written (exp_owned_remove); with all,
 * every recorded output (a CSV, table, TeX file or figure of any name) it
 * did not write again.  0, or -1 after the message. */
int exp_outputs_own(const exp_config *cfg, const char *out, exp_owned *written, const int *drawn,
                    int all);

/* Removes the figures of section name from out (NAME.pdf, NAME.png and the
 * pages NAME-K.*) before new ones are drawn: a figure never outlives the CSV
 * it was drawn from (exp_outputs_check refused any that was not ours). */
void exp_figures_remove(const char *out, const char *name);

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

/* Where a section's tasks ran: results whose worker was pinned to one CPU
 * (prov placement "cpu K"), of a lone worker ("serial") and the others,
 * the distinct CPUs and their list ("0 1"). */
typedef struct exp_placement {
  int pinned, serial, unpinned, cpus;
  char list[256];
  long speed[4]; /* the tasks' exp_result speed counts, summed */
} exp_placement;

/* The tie tolerance of a profile or scaling section's winners (exp_tie_of:
 * the section's `tie`, else the between-run noise measured in its rows,
 * else 0.05) and in *why where it came from. */
double exp_section_tie(const exp_section *s, exp_row *rows, int nrows, const char **why);

/* Writes OUT/NAME_timing.csv of a timed section: the timing protocol as run
 * (placement, the repetition rule), the between-run noise measured in its
 * rows and the winners' tie tolerance (experiments/README.md, "Timing").
 * 0, or -1 on a write error. */
int exp_timing_write(const exp_section *s, const char *base, exp_row *rows, int nrows,
                     const exp_placement *pc, exp_outset *set);

/* Writes OUT/NAME_tex.csv (base is OUT/NAME): "text,tex" for every
 * distinct text of the section that is not a number -- the values of its
 * CSV preamble (the "# key: value" lines of preamble, the text after the
 * first ':'), the fields of its rows and the coverage table's reasons --
 * with its LaTeX form by exp_tex_escape, sorted.  0, or -1 on a write error. */
int exp_text_write(const exp_section *s, const char *base, const char *preamble, exp_row *rows,
                   int nrows, exp_outset *set);

/* The names a section of kind k writes, after OUT/NAME: ".csv", its second
 * CSV ("_profile.csv", "_slopes.csv") and its tables ("_failures.csv",
 * "_failures.tex", ...), as exp_collect and exp_tables_write write them
 * (the figures aside: exp_outputs_check).  Their count (at most max). */
enum { EXP_SUFFIX_MAX = 24, EXP_MAX_OUTPUTS = 32 };

int exp_output_suffixes(exp_kind k, char sfx[][EXP_SUFFIX_MAX], int max);

/* The Dolan-More curves of a profile section, per class and tolerance
 * (NAME_profile.csv rows, exp_csv2_header(EXP_PROFILE)); 0 or -1. */
int exp_profile_write(FILE *g, const exp_section *s, exp_row *rows, int nrows);

/* The scaling fits per (family, solver) as NAME_slopes.csv rows into g
 * and, when tex is not NULL, as a booktabs table; 0 or -1. */
int exp_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows);

/* The step time against the contacts of a scenes section, per (scene,
 * settings, solver): the least squares of log time_step_median_s on log
 * contacts_mean_timed over its completed runs (exp_fit_line_ci) and the
 * median time per contact, as NAME_slopes.csv rows into g and, when tex is
 * not NULL, a booktabs table; 0 or -1. */
int exp_scene_slopes_write(FILE *g, FILE *tex, exp_row *rows, int nrows);

/* Column index of name in a kind's main CSV header (-1 if absent). */
int exp_col(exp_kind k, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* EXP_INTERNAL_H */
