/* cmd_experiment.c -- `lcplab experiment`, `lcplab task` and `lcplab
 * collect`: an experiment file run as a campaign of tasks
 * (experiments/README.md, "Experiment files" and "Campaigns").
 *
 *   lcplab experiment CONFIG [--out DIR] [--jobs N] [--time-limit S] [--force]
 *                            [--var NAME=VALUE]... [--data DIR] [--scripts DIR]
 *                            [--no-plot] [--allow-mixed] [--dump-failures D]
 *                            [--max-memory B]
 *       prepares the problems, writes the plan to DIR/campaign, runs its
 *       tasks on N local processes (default: the online CPUs), then collects
 *       into DIR.  Run again, it resumes: the tasks with a result are not
 *       run again (the plan must be the same: same file, same variables,
 *       same problems; else exit 2, or --force to start over).
 *   lcplab experiment CONFIG --plan DIR [--time-limit S] [--chunk K] [--force] ...
 *       writes the plan only: DIR/tasks.tsv, DIR/run-parallel.sh (GNU
 *       parallel), DIR/slurm.sbatch (a job array of K tasks per element).
 *   lcplab task DIR N [--force] [--dump-failures D] [--max-memory B]
 *       runs task N of the plan in DIR, writes DIR/results/tNNNNNN.res
 *       atomically; a task with an intact result is not run again.
 *   lcplab collect DIR [--out OUT] [--allow-mixed] [--scripts DIR] [--no-plot]
 *       merges the results into OUT (default DIR): CSVs, tables, figures.
 *
 * Exit status: 0 done; 2 bad usage or input (one line "lcplab: ..."; --plan
 * DIR exists without --force; task N out of range; the plan folder is not
 * one; the folder is in use by another experiment or collect, its
 * .lcplab-lock); 3 results missing, failed, unfinished, corrupted or of mixed provenance
 * (collect; experiment when a task failed); 130 / 143 interrupted by
 * SIGINT / SIGTERM (the CSVs are then written from the tasks done, and the
 * message says how many are left).
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exp.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: lcplab experiment CONFIG [--out DIR] [--jobs N] [--time-limit S] [--force]\n"
          "                                [--var NAME=VALUE]... [--data DIR] [--scripts DIR]\n"
          "                                [--no-plot] [--allow-mixed] [--dump-failures D]\n"
          "                                [--max-memory B]\n"
          "       lcplab experiment CONFIG --plan DIR [--chunk K] [--time-limit S] [--force] ...\n"
          "       lcplab task DIR N [--force] [--dump-failures D] [--max-memory B]\n"
          "       lcplab collect DIR [--out OUT] [--force] [--allow-mixed] [--scripts DIR]\n"
          "                      [--no-plot]\n"
          "\n"
          "Run the experiment sections of CONFIG (experiments/*.exp; format in\n"
          "experiments/README.md) as a campaign of independent tasks: the problems are\n"
          "prepared (generated, exported from scenes), each (problem, solver) or (scene,\n"
          "friction, integrator, solver) is a task whose result is one file, and the\n"
          "results are merged into DIR/NAME.csv per section, its tables (.csv and .tex)\n"
          "and figures (.pdf, .png); the paths are printed at the end.\n"
          "\n"
          "  --out DIR          output folder (created; default .); the plan and the\n"
          "                     task results go to DIR/campaign; run again to resume\n"
          "  --jobs N           tasks at once, each in its own process (default: online CPUs)\n"
          "  --time-limit S     the limit of each solve (each scene run), enforced by the\n"
          "                     task itself: status time_limit (default: the sections')\n"
          "  --plan DIR         write the plan only (tasks.tsv, run-parallel.sh for GNU\n"
          "                     parallel, slurm.sbatch for a Slurm array); then lcplab task,\n"
          "                     then lcplab collect DIR\n"
          "  --chunk K          tasks per Slurm array element (default: T/1000 rounded up)\n"
          "  --force            start over: remove the files lcplab recorded in the\n"
          "                     folder (.lcplab-owned; nothing else) and replace existing\n"
          "                     outputs; with collect: replace existing outputs in OUT\n"
          "  --var NAME=VALUE   value of ${NAME} in CONFIG (default: env LCPLAB_NAME;\n"
          "                     ${SHARED}: also ../shared beside lcplab's source tree)\n"
          "  --data DIR         generated instances and scene exports (default:\n"
          "                     OUT/generated); existing files there are reused\n"
          "  --scripts DIR      folder of the exp_KIND.gp scripts (default: env\n"
          "                     LCPLAB_EXPERIMENTS, else %s)\n"
          "  --no-plot          CSV and tables only\n"
          "  --allow-mixed      merge results of differing provenance (listed in the CSVs)\n"
          "  --dump-failures D  write every failed step of the scene runs (its problem,\n"
          "                     solver, options, start) to D/SECTION/tN_SCENE_SOLVER_.../\n"
          "                     stepK.lcp, .warm, .x, listed in failures.csv there: 'lcplab\n"
          "                     solve stepK.lcp --warm stepK.warm' repeats it bit for bit;\n"
          "                     with --plan, the tasks of the plan dump there too\n"
          "  --max-memory B     refuse a problem file whose sizes need more than B bytes\n"
          "                     (K, M, G, T: powers of 1024; default 4G); with --plan, the\n"
          "                     tasks of the plan take it too\n"
          "\n"
          "A task (lcplab task) takes --dump-failures and --max-memory as well; they\n"
          "replace those recorded in the plan.\n"
          "\n"
          "environment: GNUPLOT, LCPLAB_EXPERIMENTS (the --scripts default), LCPLAB_REV.\n"
          "exit status: 0 done, 2 bad input or usage, 3 tasks missing or failed or results\n"
          "corrupted or of mixed provenance, 130 / 143 interrupted (resume by running again).\n",
          cli_scripts_default());
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* Every task process runs BLAS on one thread (the timings of a comparison;
 * lcplab's solvers are single-threaded, and N tasks run at once). */
static void blas_one_thread(void) {
  void (*set)(int);
  *(void **)&set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set) set(1);
}

/* ${SHARED}'s default: the shared tree beside this build's source tree
 * (../shared, where the project's experiment files and tests find the
 * datasets), when LCPLAB_SHARED is unset or empty and that folder exists;
 * --var SHARED=... still wins (libexperiment/config_parse.c, exp_cfg_var_ref). */
static void default_shared(void) {
#ifdef LCPLAB_SRC_SHARED
  struct stat st;
  const char *env = getenv("LCPLAB_SHARED");
  if ((!env || !env[0]) && stat(LCPLAB_SRC_SHARED, &st) == 0 && S_ISDIR(st.st_mode))
    setenv("LCPLAB_SHARED", LCPLAB_SRC_SHARED, 1);
#endif
}


/* ---- lcplab experiment -------------------------------------------------------------------- */

/* --max-memory B into *out; 0 after the message if B is not a byte count. */
static int max_memory_arg(const char *cmd, const char *v, size_t *out) {
  if (exp_parse_bytes(v, out)) return 1;
  cli_error("%s: --max-memory must be a byte count > 0 (K, M, G, T: powers of 1024), got '%s'", cmd,
            v);
  return 0;
}

typedef struct args {
  const char *config, *out, *data, *scripts, *plan, *dump;
  int force, no_plot, allow_mixed, jobs, chunk;
  size_t max_memory;
  double time_limit;
  exp_vars vars;
} args;

static int parse_value(int argc, char **argv, int *i, args *a) {
  const char *v = NULL;
  int r;
  struct {
    const char *name;
    const char **dst;
  } strs[] = { { "out", &a->out },
               { "data", &a->data },
               { "scripts", &a->scripts },
               { "plan", &a->plan },
               { "dump-failures", &a->dump } };
  for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
    if ((r = cli_option_value("experiment", argc, argv, i, strs[k].name, strs[k].dst)) != 0)
      return r < 0 ? CLI_EXIT_USAGE : -1;
  long n;
  if ((r = cli_option_value("experiment", argc, argv, i, "max-memory", &v)) != 0)
    return r < 0 || !max_memory_arg("experiment", v, &a->max_memory) ? CLI_EXIT_USAGE : -1;
  if ((r = cli_option_value("experiment", argc, argv, i, "jobs", &v)) != 0) {
    if (r < 0 || slv_parse_long(v, &n) != SLV_PARSE_OK || n < 1 || n > 1024) {
      if (r > 0) cli_error("experiment: --jobs expects an integer in 1..1024, got '%s'", v);
      return CLI_EXIT_USAGE;
    }
    a->jobs = (int)n;
    return -1;
  }
  if ((r = cli_option_value("experiment", argc, argv, i, "chunk", &v)) != 0) {
    if (r < 0 || slv_parse_long(v, &n) != SLV_PARSE_OK || n < 1 || n > 1000000) {
      if (r > 0) cli_error("experiment: --chunk expects a positive integer, got '%s'", v);
      return CLI_EXIT_USAGE;
    }
    a->chunk = (int)n;
    return -1;
  }
  if ((r = cli_option_value("experiment", argc, argv, i, "time-limit", &v)) != 0) {
    if (r < 0 || slv_parse_double(v, SLV_PARSE_FINITE, &a->time_limit) != SLV_PARSE_OK ||
        !(a->time_limit > 0) || a->time_limit > EXP_TIME_MAX_S) {
      if (r > 0)
        cli_error("experiment: --time-limit expects seconds in (0, %g], got '%s'", EXP_TIME_MAX_S,
                  v);
      return CLI_EXIT_USAGE;
    }
    return -1;
  }
  if ((r = cli_option_value("experiment", argc, argv, i, "var", &v)) != 0) {
    if (r < 0 || exp_line_safe(cli_log(), "experiment: --var", v)) return CLI_EXIT_USAGE;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v) {
      cli_error("experiment: --var expects NAME=VALUE, got '%s'", v);
      return CLI_EXIT_USAGE;
    }
    if (a->vars.ndef == 32) {
      cli_error("experiment: more than 32 --var options");
      return CLI_EXIT_USAGE;
    }
    a->vars.def[a->vars.ndef++] = v;
    return -1;
  }
  return 0;
}

static int parse_args(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->out = ".";
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    int r;
    if (strcmp(arg, "--force") == 0) {
      a->force = 1;
    } else if (strcmp(arg, "--no-plot") == 0) {
      a->no_plot = 1;
    } else if (strcmp(arg, "--allow-mixed") == 0) {
      a->allow_mixed = 1;
    } else if ((r = parse_value(argc, argv, &i, a)) != 0) {
      if (r > 0) return r;
    } else if (arg[0] == '-' && strcmp(arg, "-") != 0) {
      cli_error("experiment: unknown option '%s' (see 'lcplab experiment --help')", arg);
      return CLI_EXIT_USAGE;
    } else if (a->config) {
      cli_error("experiment: unexpected argument '%s' (one CONFIG only)", arg);
      return CLI_EXIT_USAGE;
    } else {
      a->config = arg;
    }
  }
  if (!a->config) {
    cli_error("experiment: missing CONFIG (see 'lcplab experiment --help')");
    return CLI_EXIT_USAGE;
  }
  if (!a->out[0] || (a->plan && !a->plan[0])) {
    cli_error("experiment: --out and --plan need a folder name");
    return CLI_EXIT_USAGE;
  }
  const char *paths[][2] = {
    { "experiment: CONFIG", a->config },     { "experiment: --out", a->out },
    { "experiment: --plan", a->plan },       { "experiment: --data", a->data },
    { "experiment: --scripts", a->scripts }, { "experiment: --dump-failures", a->dump }
  };
  for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++)
    if (paths[k][1] && exp_line_safe(cli_log(), paths[k][0], paths[k][1])) return CLI_EXIT_USAGE;
  if (a->jobs == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = n > 0 ? (int)n : 1;
  }
  return -1;
}

/* ---- signals: the campaign's stop callback ---------------------------------------------- */

/* The signals the program got while a campaign ran (set by the handlers,
 * read by campaign_stop): the first SIGINT finishes the running tasks, a
 * second SIGINT or a SIGTERM stops them now. */
static volatile sig_atomic_t got_int = 0, got_term = 0;

static void on_int(int sig) {
  (void)sig;
  got_int++;
}

static void on_term(int sig) {
  (void)sig;
  got_term = 1;
}

static int campaign_stop(void *ctx, int *sig) {
  (void)ctx;
  *sig = got_term ? SIGTERM : got_int ? SIGINT : 0;
  return got_term || got_int >= 2 ? EXP_STOP_NOW : got_int ? EXP_STOP_FINISH : EXP_STOP_NONE;
}

/* exp_campaign_run with the handlers installed (the old ones back after). */
static int run_with_signals(const exp_campaign_opts *o) {
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_int;
  sigaction(SIGINT, &sa, &old_int);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, &old_term);
  int rc = exp_campaign_run(o, cli_log());
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  return rc;
}

/* The campaign's options from the command line's. */
static void campaign_opts(const args *a, exp_campaign_opts *o) {
  memset(o, 0, sizeof *o);
  o->config = a->config;
  o->vars = &a->vars;
  o->out = a->out;
  o->plan = a->plan;
  o->data = a->data;
  o->scripts = cli_scripts_dir(a->scripts);
  o->dump = a->dump;
  o->force = a->force;
  o->no_plot = a->no_plot;
  o->allow_mixed = a->allow_mixed;
  o->jobs = a->jobs;
  o->chunk = a->chunk;
  o->tty = isatty(STDERR_FILENO);
  o->max_memory = a->max_memory;
  o->time_limit = a->time_limit;
  o->stop = campaign_stop;
}

int cli_cmd_experiment(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  blas_one_thread();
  default_shared();
  exp_campaign_opts o;
  campaign_opts(&a, &o);
  return a.plan ? exp_campaign_plan(&o, cli_log()) : run_with_signals(&o);
}

/* ---- lcplab task --------------------------------------------------------------------------- */

int cli_cmd_task(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  const char *dir = NULL, *num = NULL, *dump = NULL, *v = NULL;
  int force = 0, ov;
  size_t max_memory = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--force") == 0)
      force = 1;
    else if ((ov = cli_option_value("task", argc, argv, &i, "dump-failures", &dump)) != 0) {
      if (ov < 0) return CLI_EXIT_USAGE;
    } else if ((ov = cli_option_value("task", argc, argv, &i, "max-memory", &v)) != 0) {
      if (ov < 0 || !max_memory_arg("task", v, &max_memory)) return CLI_EXIT_USAGE;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0' &&
               !(argv[i][1] >= '0' && argv[i][1] <= '9')) {
      cli_error("task: unknown option '%s' (see 'lcplab task --help')", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (!dir)
      dir = argv[i];
    else if (!num)
      num = argv[i];
    else {
      cli_error("task: unexpected argument '%s' (DIR N)", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  long n;
  if (!dir || !num) {
    cli_error("task: expected DIR N (see 'lcplab task --help')");
    return CLI_EXIT_USAGE;
  }
  if (slv_parse_long(num, &n) != SLV_PARSE_OK) {
    cli_error("task: N must be a task number, got '%s'", num);
    return CLI_EXIT_USAGE;
  }
  blas_one_thread();
  return exp_campaign_task(dir, n, force, dump, max_memory, cli_log());
}

/* ---- lcplab collect ------------------------------------------------------------------------ */

int cli_cmd_collect(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  const char *dir = NULL, *out = NULL, *scripts = NULL;
  int allow = 0, no_plot = 0, force = 0;
  for (int i = 1; i < argc; i++) {
    int r;
    if (strcmp(argv[i], "--allow-mixed") == 0)
      allow = 1;
    else if (strcmp(argv[i], "--force") == 0)
      force = 1;
    else if (strcmp(argv[i], "--no-plot") == 0)
      no_plot = 1;
    else if ((r = cli_option_value("collect", argc, argv, &i, "out", &out)) != 0 ||
             (r = cli_option_value("collect", argc, argv, &i, "scripts", &scripts)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
    } else if (argv[i][0] == '-') {
      cli_error("collect: unknown option '%s' (see 'lcplab collect --help')", argv[i]);
      return CLI_EXIT_USAGE;
    } else if (!dir) {
      dir = argv[i];
    } else {
      cli_error("collect: unexpected argument '%s' (one DIR)", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  if (!dir) {
    cli_error("collect: expected the plan folder DIR");
    return CLI_EXIT_USAGE;
  }
  if ((out && exp_line_safe(cli_log(), "collect: --out", out)) ||
      (scripts && exp_line_safe(cli_log(), "collect: --scripts", scripts)))
    return CLI_EXIT_USAGE;
  exp_collect_opts co = { out, NULL, exp_gnuplot_prog(), allow, no_plot, 0, 0 };
  co.scripts = cli_scripts_dir(scripts);
  return exp_campaign_collect(dir, &co, force, cli_log());
}
