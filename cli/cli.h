/* cli.h -- private interface between the pieces of the `lcplab` program.
 *
 * lcplab.c holds main(), the subcommand table and the helpers every
 * subcommand shares (strict number parsing, the one-line error printer, JSON
 * string/number output); each cmd_*.c file implements one subcommand as
 *
 *     int cli_cmd_NAME(int argc, char **argv);
 *
 * where argv[0] is the subcommand's own name and the return value is the
 * process exit status.  The exit statuses are a contract (README.md and
 * each subcommand's --help): experiments and outside scripts rely on them.
 *
 *     CLI_EXIT_OK       0  success; for `solve`: the solver converged
 *     CLI_EXIT_USAGE    2  bad input or usage: one line "lcplab: ..." on
 *                          stderr naming the file, line or option, nothing
 *                          on stdout
 *     CLI_EXIT_NOCONV   3  `solve`: the solver ran but did not converge
 *                          (any positive slv_status); the JSON is printed;
 *                          `collect` / `experiment`: results missing,
 *                          failed, corrupted or of mixed provenance
 *
 * Nothing here is global mutable state: every helper works on its arguments.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdio.h>

#include "exp.h"
#include "slv.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  CLI_EXIT_OK = EXP_EXIT_OK,
  CLI_EXIT_USAGE = EXP_EXIT_USAGE,
  CLI_EXIT_NOCONV = EXP_EXIT_FAILED
};

/* ---- subcommands (argv[0] = the subcommand name) ------------------------- */
int cli_cmd_solvers(int argc, char **argv);
int cli_cmd_solve(int argc, char **argv);
int cli_cmd_convert(int argc, char **argv);
int cli_cmd_simulate(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
int cli_cmd_experiment(int argc, char **argv);
int cli_cmd_task(int argc, char **argv);
int cli_cmd_collect(int argc, char **argv);
int cli_cmd_figure(int argc, char **argv);
int cli_cmd_generate(int argc, char **argv);
int cli_cmd_tex(int argc, char **argv);

/* ---- progress (lcplab.c) ----------------------------------------------------- */

/* The progress line of a long run on stderr: "lcplab: CMD: step k/K (p%),
 * t s", rewritten in place ("\r", erase line) at most every
 * CLI_PROGRESS_EVERY_S, from CLI_PROGRESS_AFTER_S into the run, when stderr
 * is a terminal; cleared at the end.  LCPLAB_PROGRESS=1 shows it always
 * and from the first step (logs, tests), 0 never, auto (or unset) as
 * above. */
#define CLI_PROGRESS_AFTER_S 1.0
#define CLI_PROGRESS_EVERY_S 0.2
typedef struct cli_progress {
  int mode;
  int shown; /* a line is on the terminal */
  double t0, last;
} cli_progress;
/* Reads LCPLAB_PROGRESS; -1 to go on, else the exit status after the message. */
int cli_progress_init(cli_progress *p, const char *cmd);
/* Step k of total done (the last one is always shown once a line is). */
void cli_progress_step(cli_progress *p, const char *cmd, long k, long total);
/* Erases the line, if one is shown. */
void cli_progress_clear(cli_progress *p);

/* ---- scene options shared by simulate and export (cmd_simulate.c) -------- */

#define CLI_MAX_PARAMS EXP_MAX_PARAMS

/* The options that choose a scene and the world's settings: --scene,
 * --param, --steps, and every setting by name (--KEY VALUE, KEY with dashes
 * for underscores: dyn_world_settings_set), over
 * dyn_world_settings_default(); the scene may change the defaults it needs
 * (dyn_scene_new). */
typedef struct cli_world_args {
  const char *scene;
  const char *model;                  /* --model FILE: a scene model file (MJCF; cli_model.c) */
  char model_name[128];               /* the model file's name without folder and extension */
  int approximate;                    /* --approximate: a model file's features lcplab cannot
                                         map exactly approximated, each said (docs/models.md) */
  int reduced;                        /* --coordinates reduced (1): the world in joint
                                         coordinates (DYN_COORDINATES_REDUCED); maximal (0);
                                         neither (MDL_COORDINATES_FILE, -1, the default):
                                         a model file's own (reduced for a kinematic tree,
                                         docs/models.md), maximal for a built-in scene */
  const char *ctrl;                   /* --ctrl NAME=VALUE,...: actuator controls (NULL: 0) */
  size_t max_memory;                  /* --max-memory: a model file's memory cap (0: libmodels'
                                         default, MDL_DEFAULT_MAX_MEMORY) */
  const char *params[CLI_MAX_PARAMS]; /* "key=value", borrowed from argv */
  int nparams;
  const char *solver;          /* --solver as given (NULL: not given) */
  long steps;                  /* 0: the scene's default (dyn_model_default_steps) */
  dyn_world_settings set;      /* the defaults, then each --KEY VALUE
                                  (dyn_world_settings_set) */
  slv_log_level_fn solver_log; /* NULL, or the solves' log callback (at SLV_LOG_DEBUG) */
  void *solver_log_ctx;
} cli_world_args;

/* Set every field to "not given". */
void cli_world_args_init(cli_world_args *a);

/* The files the world of a reads (--model FILE, its <include>s and
 * meshes: exp_inputs_add_model) into *in (the caller frees it with
 * exp_inputs_free); 0, or -1 after the message. */
int cli_world_inputs(const cli_world_args *a, exp_inputs *in);
/* 1 (after the message naming both; exp_output_is_input) when one of the
 * n outputs out[k] (given by option what[k]) is one of the files the
 * world of a reads, force or not; else 0. */
int cli_world_output_is_input(const char *cmd, const cli_world_args *a, int n,
                              const char *const *what, const char *const *out);

/* If argv[*i] is one of the scene/world options (--scene, --param, --solver,
 * --steps, --dt, --friction, --eta, --integrator, --gyro, --orient,
 * --max-iter, --tol, --omega, --margin, --storage, --cone-law,
 * --warm-start, --warm-factor, --contact-order, --on-failure, --fallback-solver,
 * --fallback-max-iter, --threads), consume it (and its value), store it in *a and return 1;
 * 0 if it is another option; -1 after printing the one-line error for a bad
 * value.  cmd names the subcommand in messages. */
int cli_world_option(const char *cmd, int argc, char **argv, int *i, cli_world_args *a);

/* The solver a world in coordinates c gets when --solver is not given:
 * dyn_world_default_solver's (pgs; nsgs for cones; auto in reduced
 * coordinates without cones). */
const char *cli_world_default_solver(const cli_world_args *a, dyn_coordinates c);

/* When --solver was not given: the note "lcplab: note: CMD: no --solver
 * given: NAME, which takes --friction MODEL" on stderr (after a run that
 * succeeded, so that an error stays one line). */
void cli_world_note_solver(const char *cmd, const cli_world_args *a, const struct dyn_world *w);

/* The usage lines of those options, for --help texts. */
void cli_world_usage(FILE *f);

/* Build the scene's world with the settings the options ask for; *steps
 * gets the step count (given or the scene's default).  Returns -1 on
 * success (with *w set, to be freed with dyn_world_free), else the exit
 * status after printing the one-line error. */
struct dyn_world;
int cli_world_build(const char *cmd, const cli_world_args *a, struct dyn_world **w, long *steps);

/* The scene's name for messages, JSON and file names: --scene's, or the
 * --model file's name without its folder and extension. */
const char *cli_world_name(const cli_world_args *a);

/* ---- scene models as files (cli_model.c; docs/models.md) ------------------------ */

/* The model the options ask for: --scene NAME with its --param, or the
 * --model FILE read through libmodels (mdl_read_mjcf), into *m (the
 * caller frees it); *s gets a's settings with the model's
 * (dyn_world_settings_for_model): the file's timestep as dt unless --dt
 * was given, the model's gravity unless --gravity was; *reduced (NULL: a
 * file without --coordinates is read maximal, as --save-model writes) the
 * representation read (1 reduced).  -1 on success, else the exit status
 * after the one-line error (MuJoCo's warnings go to stderr as a note). */
struct dyn_model;
int cli_world_model(const char *cmd, const cli_world_args *a, struct dyn_model **m,
                    dyn_world_settings *s, int *reduced);

/* ,"gravity":[X,Y,Z],"overrides":["dt",...]: the run's gravity and the
 * settings a model also holds that the user gave over the model's
 * (dyn_world_settings_overrides), for the summaries of simulate and
 * export. */
void cli_json_model_settings(FILE *o, const dyn_world_settings *s);

/* --save-model FILE: the model of a (cli_world_model) written as MJCF at
 * the settings' dt and gravity (refused if FILE exists, unless force; written under a
 * temporary name and renamed when complete), then one JSON line on
 * stdout.  The exit status. */
int cli_save_model(const char *cmd, const cli_world_args *a, const char *path, int force);


/* ---- the figure scripts (datadir.c) ---------------------------------------- */

/* The folder of the exp_KIND.gp scripts when neither --scripts nor
 * LCPLAB_EXPERIMENTS names one: the source tree's experiments/ for the
 * build tree's program, $(pkgdatadir) for an installed one. */
const char *cli_scripts_default(void);
/* given (--scripts), else $LCPLAB_EXPERIMENTS, else cli_scripts_default(). */
const char *cli_scripts_dir(const char *given);

/* ---- shared helpers (lcplab.c) -------------------------------------------- */

/* The sink of the experiment library's messages: the program's stderr and
 * stdout (lcplab.c, cli_say). */
const exp_log *cli_log(void);

/* Print "lcplab: <formatted message>\n" on stderr (one line: any newline in
 * the expansion is replaced by a space). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Print a library message err about path as one line "lcplab: ...".  The
 * library's reader messages already start with "PATH:LINE: "; when err does
 * not start with path, "PATH: " is prepended so that the file is named. */
void cli_error_lib(const char *path, const char *err);

/* When solver s comes from a plugin (slv_solver_origin), a fatal signal in
 * it (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) writes one line naming the
 * solver and the plugin and ends the program by that signal; nothing for a
 * built-in solver.  docs/plugins.md, "Safety". */
void cli_guard_plugin(const slv_solver *s);


/* The usage line of --max-memory (default IO_DEFAULT_MAX_MEMORY). */
#define CLI_MAX_MEMORY_USAGE                                                                       \
  "  --max-memory B    refuse a file whose sizes need more than B bytes in memory\n"               \
  "                    (K, M, G, T: powers of 1024; default 4G)\n"

/* If argv[*i] is the option `name` given as "--name VALUE" or
 * "--name=VALUE", set *value, advance *i past the value and return 1.
 * Return 0 if argv[*i] is another option.  Return -1 (after printing
 * "lcplab: CMD: option --name needs a value") if the value is missing. */
int cli_option_value(const char *cmd, int argc, char **argv, int *i, const char *name,
                     const char **value);

/* 1 if --help or -h appears among argv[1..argc) before any "--" (after
 * which it would be a file name). */
int cli_wants_help(int argc, char **argv);


/* 1 if the output path is "-", the standard output (libio's io_outfile). */
int cli_is_stdout(const char *path);

/* 1 (after the message "PATH exists (use --force to overwrite)") if the
 * output path exists and force is 0; never for "-" (the standard output). */
int cli_output_refused(const char *path, int force);

/* 1 (after the message "OUT: the output is the input IN (one file under
 * two names)") if out names the problem file in or a file read beside it
 * (MatrixMarket's STEM.b, ...: exp_inputs_add_problem): by device and
 * inode, so a symlink, a hard link or "./" count (exp_inputs_match,
 * docs/io.md "Replacing files"); in may be NULL. */
int cli_output_is_input(const char *out, const char *in);

/* `solve --sensitivity GX --gradient OUT` (solve_gradient.c): GX read into
 * *gx (exactly n finite values; malloc'd, the caller frees it even on
 * error): -1 ok, else the exit status after the message; the gradients
 * of <gx, x> at x written to OUT as CSV: 0, or -1 after the message. */
int cli_gradient_read(const char *gxfile, int n, double **gx);
int cli_gradient_write(const char *out, const slv_problem *p, const double *x, double tol,
                       const double *gx);


/* JSON values: the library's writers (exp.h, exp_json_string). */
#define cli_json_string exp_json_string
#define cli_json_number exp_json_number

#ifdef __cplusplus
}
#endif
#endif /* CLI_H */
