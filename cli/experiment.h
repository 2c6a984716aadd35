/* experiment.h -- private interface of `lcplab experiment` (cmd_experiment.c,
 * experiment_config.c, experiment_run.c, experiment_stats.c).
 *
 * An experiment file (experiments/README.md, "Experiment files") holds one or
 * more sections, each opened by `experiment KIND [NAME]`.  experiment_config.c
 * parses it into an exp_config (every error: one line
 * "lcplab: FILE:LINE: KEY: ..." and exit status 2, before anything runs);
 * experiment_run.c loads the problems of each section (files, generated
 * families, scenes) and runs it, writing CSV rows as they are produced;
 * experiment_stats.c holds the pure computations (Dolan-More performance
 * profile, least-squares line), which tests/test_experiment_profile.c checks
 * against hand-worked examples.  Nothing here is global mutable state except
 * the interrupt flag that cmd_experiment.c's SIGINT handler sets, which is
 * handed to the runners as a pointer.
 */
#ifndef CLI_EXPERIMENT_H
#define CLI_EXPERIMENT_H

#include <signal.h>
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

/* rho_s(tau) = #{p : r_ps <= tau} / np (0 when np = 0). */
double exp_profile_rho(int np, int ns, const double *r, int s, double tau);

/* The breakpoints of rho_s: the distinct finite ratios of solver s, sorted
 * ascending, into taus (size >= np); returns their count.  rho_s is a right-
 * continuous step function that jumps exactly there. */
int exp_profile_breaks(int np, int ns, const double *r, int s, double *taus);

/* Least squares y = a + b x over k points (x, y finite).  Returns 0 with a,
 * b and r2 (coefficient of determination; 1 when all y are equal) set, or -1
 * when k < 2 or all x are equal. */
int exp_fit_line(const double *x, const double *y, int k, double *a, double *b, double *r2);

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

typedef enum exp_src_kind {
  EXP_SRC_FILE = 0, /* a file or a folder (every known instance file in it) */
  EXP_SRC_GEN,      /* a generated family at one size (datasets/gen_instances) */
  EXP_SRC_SCENE     /* a named scene (libdynamics) */
} exp_src_kind;

#define EXP_MAX_SOLVERS 64
#define EXP_MAX_TOLS 4
#define EXP_NAME_MAX 64
#define EXP_PATH_MAX 4096
#define EXP_PARAM_MAX 96

/* friction models: -1 = auto (per solver: box if it takes findex rows, cone if
 * it takes cones, pyramid if it takes plain LCPs) */
#define EXP_FRICTION_AUTO (-1)

typedef struct exp_source {
  exp_src_kind kind;
  int line;                     /* line of the config that named it */
  char path[EXP_PATH_MAX];      /* FILE: resolved path; GEN: file (set when prepared) */
  char family[32];              /* GEN: gen_instances --type */
  long n;                       /* GEN: --n */
  unsigned long seed;           /* GEN: --seed */
  char scene[EXP_NAME_MAX];     /* SCENE */
  char params[CLI_MAX_PARAMS][EXP_PARAM_MAX]; /* SCENE: "key=value" */
  int nparams;
  long steps;                   /* SCENE: 0 = the scene's default */
  double dt;                    /* SCENE: 0 = default */
  int friction;                 /* SCENE: -2 = the section's, else a dyn_friction / AUTO */
  char solver[EXP_NAME_MAX];    /* SCENE as a problem source: the world's solver ("" = auto) */
} exp_source;

typedef struct exp_section {
  exp_kind kind;
  char name[EXP_NAME_MAX];      /* output base name (default: the kind) */
  int line;                     /* line of its `experiment` key */
  int first_line, last_line;    /* the config lines it spans (for the CSV preamble) */
  const slv_solver *solvers[EXP_MAX_SOLVERS];
  int nsolvers;                 /* 0 after parsing: every registered solver */
  exp_source *src;
  int nsrc, capsrc;
  double tol[EXP_MAX_TOLS];
  int ntol;                     /* 0: the default for the kind */
  long max_iter;                /* 0: the default for the kind */
  long repeat;                  /* timed repeats after the warm-up; default 3 */
  double budget;                /* s: one timed solve when the warm-up takes longer; default 2 */
  int integrators[3];           /* dyn_integrator */
  int nint;                     /* 0: symplectic only */
  int friction;                 /* dyn_friction or EXP_FRICTION_AUTO (default) */
  unsigned long seed;           /* opt.seed and the default seed of `generate`; default 1 */
} exp_section;

typedef struct exp_config {
  char path[EXP_PATH_MAX];
  char dir[EXP_PATH_MAX];       /* the config's directory (relative paths resolve here) */
  char *text;                   /* the file's contents (NUL-terminated) */
  exp_section *sec;
  int nsec;
} exp_config;

/* Variables for ${NAME} in values: `--var NAME=VALUE` first, then the
 * environment's LCPLAB_NAME. */
typedef struct exp_vars {
  const char *def[32];          /* "NAME=VALUE", borrowed */
  int ndef;
} exp_vars;

/* Parses path into *cfg.  Returns -1 on success, else the exit status (2)
 * after printing the one-line error.  Checks solver names, scene names,
 * families, numbers and that every instance path exists. */
int exp_config_read(const char *path, const exp_vars *vars, exp_config *cfg);
void exp_config_free(exp_config *cfg);

/* ---- running (experiment_run.c) ------------------------------------------------ */

/* One loaded problem of a section. */
typedef struct exp_problem {
  char label[128];              /* CSV name: file base name, FAMILY_N_sS, scene_..._kK */
  char family[32];              /* scaling: the family (name up to the first '_') */
  slv_instance *inst;
} exp_problem;

typedef struct exp_env {
  const char *gen;              /* path of gen_instances ("" if not found) */
  const char *datadir;          /* where generated instances go */
  int tty;                      /* progress on stderr */
  volatile sig_atomic_t *stop;  /* set by SIGINT: finish the current run, then stop */
} exp_env;

/* Loads the problems of a problem-kind section (convergence, profile,
 * scaling): reads files, runs gen_instances for missing generated files,
 * simulates scene sources to their last step.  For drift / accuracy it only
 * checks that each scene builds.  Returns -1 on success (*probs, *nprob set;
 * free with exp_problems_free), else the exit status after the message. */
int exp_section_prepare(const exp_config *cfg, const exp_section *s, const exp_env *env,
                        exp_problem **probs, int *nprob);
void exp_problems_free(exp_problem *probs, int nprob);

/* The CSV header row of a section's main CSV (without newline), and of its
 * second CSV (profile: NAME_profile.csv, scaling: NAME_slopes.csv; NULL for
 * the other kinds). */
const char *exp_csv_header(exp_kind k);
const char *exp_csv2_suffix(exp_kind k);  /* "_profile", "_slopes" or NULL */
const char *exp_csv2_header(exp_kind k);

/* Runs the section, writing rows to csv (flushed after each run) and, for
 * profile / scaling, the summary to csv2 at the end (also after an
 * interrupt, over the rows done).  Returns 0, or 1 when interrupted, or -1
 * on a write or memory error (message printed). */
int exp_section_run(const exp_section *s, const exp_problem *probs, int nprob,
                    const exp_env *env, FILE *csv, FILE *csv2);

#ifdef __cplusplus
}
#endif
#endif /* CLI_EXPERIMENT_H */
