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
 * one); 3 results missing, failed, corrupted or of mixed provenance
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
#include "experiment.h"

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
          "  --force            start over: discard earlier results (only in a folder\n"
          "                     lcplab made a plan in) and replace existing outputs;\n"
          "                     with collect: replace existing outputs in OUT\n"
          "  --var NAME=VALUE   value of ${NAME} in CONFIG (default: env LCPLAB_NAME;\n"
          "                     ${SHARED}: also ../shared beside lcplab's source tree)\n"
          "  --data DIR         generated instances and scene exports (default:\n"
          "                     OUT/generated); existing files there are reused\n"
          "  --scripts DIR      folder of the exp_KIND.gp scripts (default: env\n"
          "                     LCPLAB_EXPERIMENTS, else CONFIG's folder if it has them,\n"
          "                     else lcplab's own: its source tree's, or the installed)\n"
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
          "environment: GNUPLOT, LCPLAB_GEN_INSTANCES (datasets/gen_instances), LCPLAB_REV.\n"
          "exit status: 0 done, 2 bad input or usage, 3 tasks missing or failed or results\n"
          "corrupted or of mixed provenance, 130 / 143 interrupted (resume by running again).\n");
}

/* ---- helpers ------------------------------------------------------------------------------ */

static int is_exec(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* datasets/gen_instances: LCPLAB_GEN_INSTANCES, else next to this program in
 * the build tree (cli/lcplab or, under libtool, cli/.libs/lcplab). */
static void find_gen(char *out, size_t len) {
  out[0] = '\0';
  const char *env = getenv("LCPLAB_GEN_INSTANCES");
  if (env && env[0]) {
    snprintf(out, len, "%s", env);
    return;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return;
  *slash = '\0';
  static const char *const rel[] = { "/../datasets/gen_instances", "/../../datasets/gen_instances",
                                     "/gen_instances", NULL };
  for (int k = 0; rel[k]; k++) {
    char c[PATH_MAX + 64];
    snprintf(c, sizeof c, "%s%s", exe, rel[k]);
    if (is_exec(c)) {
      exp_fmt(out, len, "%s", c);
      return;
    }
  }
}

static int mkdir_p(const char *path) {
  char buf[EXP_PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *c = buf + 1; *c; c++)
    if (*c == '/') {
      *c = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      *c = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  struct stat st;
  return (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) ? 0 : -1;
}

static void abs_path(const char *p, char *out, size_t len) {
  char r[PATH_MAX];
  exp_fmt(out, len, "%s", realpath(p, r) ? r : p);
}

/* ---- the plan folder's marker (experiments/README.md, "Campaigns") ------------------------ */

/* Written into a plan folder when lcplab makes it: --force clears only a
 * folder that carries it (or, made before the marker, a plan.info). */
#define PLAN_MARKER ".lcplab-plan"

static int is_plan_folder(const char *dir) {
  char path[EXP_PATH_MAX + 32], id[24];
  snprintf(path, sizeof path, "%s/" PLAN_MARKER, dir);
  return cli_path_exists(path) || exp_plan_peek_id(dir, id) == 0;
}

/* Does dir hold anything (a missing folder holds nothing)? */
static int has_entries(const char *dir) {
  DIR *d = opendir(dir);
  int any = 0;
  for (struct dirent *e; d && !any && (e = readdir(d));)
    any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  if (d) closedir(d);
  return any;
}

/* Creates dir (and its parents) with the marker in it: 0, or -1 after the
 * message; flag names the option in the message. */
static int make_plan_folder(const char *dir, const char *flag) {
  char path[EXP_PATH_MAX + 32], err[EXP_PATH_MAX + 256] = "";
  snprintf(path, sizeof path, "%s/" PLAN_MARKER, dir);
  if (mkdir_p(dir) != 0) {
    cli_error("experiment: %s %s: cannot create the folder: %s", flag, dir, strerror(errno));
    return -1;
  }
  slv_outfile *o = slv_outfile_open(path, err, sizeof err);
  if (o)
    fputs("a plan folder of lcplab experiment: --force may clear its results\n",
          slv_outfile_stream(o));
  if (!o || slv_outfile_publish(o, err, sizeof err) != SLV_OK) {
    cli_error("experiment: %s", err);
    return -1;
  }
  return 0;
}

/* Refuses (1 after the message) to start over in dir when it holds files
 * but no marker: they are not lcplab's to delete, --force or not. */
static int refuse_foreign(const char *dir, const char *flag) {
  if (!has_entries(dir) || is_plan_folder(dir)) return 0;
  cli_error("experiment: %s %s is not a plan folder (no " PLAN_MARKER
            " marker): nothing there is cleared, also with --force; use another folder",
            flag, dir);
  return 1;
}

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
 * --var SHARED=... still wins (experiment_config.c, var_ref). */
static void default_shared(void) {
#ifdef LCPLAB_SRC_SHARED
  struct stat st;
  const char *env = getenv("LCPLAB_SHARED");
  if ((!env || !env[0]) && stat(LCPLAB_SRC_SHARED, &st) == 0 && S_ISDIR(st.st_mode))
    setenv("LCPLAB_SHARED", LCPLAB_SRC_SHARED, 1);
#endif
}

/* Removes DIR/results/\* (files only) before a plan is started over. */
static void clear_results(const char *dir) {
  char cmd[EXP_PATH_MAX + 64];
  snprintf(cmd, sizeof cmd, "%s/results", dir);
  char *argv[] = { "find", cmd, "-mindepth", "1", "-maxdepth", "1", "-type", "f", "-delete", NULL };
  exp_run_prog(argv, NULL, 0, 1);
}

/* 1 if dir holds the figures' shared style, experiments/exp_style.gp. */
static int has_scripts(const char *dir) {
  char p[EXP_PATH_MAX + 16];
  snprintf(p, sizeof p, "%s/exp_style.gp", dir);
  return access(p, R_OK) == 0;
}

/* The folder of the exp_KIND.gp scripts: --scripts, LCPLAB_EXPERIMENTS,
 * CONFIG's folder if it holds them (the project's experiments/), else the
 * source tree's experiments/ of this build, else the installed copy
 * ($(pkgdatadir)/experiments): a first experiment file in a folder of its
 * own gets its figures without --scripts. */
static const char *scripts_dir(const char *given, const char *cfgdir) {
  const char *env = getenv("LCPLAB_EXPERIMENTS");
  if (given) return given;
  if (env && env[0]) return env;
  if (has_scripts(cfgdir)) return cfgdir;
#ifdef LCPLAB_SRC_EXPERIMENTS
  if (has_scripts(LCPLAB_SRC_EXPERIMENTS)) return LCPLAB_SRC_EXPERIMENTS;
#endif
#ifdef LCPLAB_DATA_EXPERIMENTS
  if (has_scripts(LCPLAB_DATA_EXPERIMENTS)) return LCPLAB_DATA_EXPERIMENTS;
#endif
  return cfgdir;
}

/* ---- writing the outputs under SIGINT / SIGTERM ------------------------------------------- */

/* exp_collect with SIGINT and SIGTERM held back: a signal that comes while
 * the CSVs, tables and figures are written waits until they are complete
 * (a CSV is never left half written), then is taken here (sigtimedwait):
 * *late = that signal, or 0.  Children (gnuplot) inherit the mask, so the
 * terminal's Ctrl-C does not cut a figure either. */
static int collect_held(const exp_plan *pl, const exp_collect_opts *co, int *late) {
  sigset_t hold, old;
  sigemptyset(&hold);
  sigaddset(&hold, SIGINT);
  sigaddset(&hold, SIGTERM);
  sigprocmask(SIG_BLOCK, &hold, &old);
  int rc = exp_collect(pl, co);
  const struct timespec now = { 0, 0 };
  int sig;
  *late = 0;
  while ((sig = sigtimedwait(&hold, NULL, &now)) > 0) *late = *late == SIGTERM ? SIGTERM : sig;
  sigprocmask(SIG_SETMASK, &old, NULL);
  return rc;
}

static int task_left(const exp_plan *pl, int i) { return !exp_task_done(pl, i); }

/* A result file is there, but it is not the task's own (stale: other
 * instance contents or variable values; or damaged). */
static int task_stale(const exp_plan *pl, int i) {
  char path[EXP_PATH_MAX + 64];
  exp_result_path(pl, i, path, sizeof path);
  return cli_path_exists(path) && !exp_task_done(pl, i);
}

/* The tasks that pick picks, as ranges "3, 7-12, ..." (at most len), their
 * count into *n (may be NULL), and the first of them (-1: none). */
static int task_ranges(const exp_plan *pl, int (*pick)(const exp_plan *, int), char *buf,
                       size_t len, int *n) {
  int first = -1, count = 0;
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < pl->ntasks; i++) {
    if (!pick(pl, i)) continue;
    int j = i;
    while (j + 1 < pl->ntasks && pick(pl, j + 1)) j++;
    count += j - i + 1;
    if (first < 0) first = i;
    char r[48];
    if (j > i)
      snprintf(r, sizeof r, "%s%d-%d", used ? ", " : "", i, j);
    else
      snprintf(r, sizeof r, "%s%d", used ? ", " : "", i);
    if (used + strlen(r) + 5 >= len) {
      snprintf(buf + used, len - used, ", ...");
      break;
    }
    used += (size_t)snprintf(buf + used, len - used, "%s", r);
    i = j;
  }
  if (n) *n = count;
  return first;
}

/* Says which results of an earlier run of the campaign are not their
 * tasks' own, before those tasks run again (experiments/README.md,
 * "Results keyed by content"). */
static void note_stale(const exp_plan *pl) {
  char list[512];
  int n = 0;
  if (task_ranges(pl, task_stale, list, sizeof list, &n) < 0) return;
  fprintf(stderr,
          "lcplab: %d %s not %s own (other instance contents or ${NAME} values, or damaged): "
          "%s %s run%s again\n",
          n, n == 1 ? "result is" : "results are", n == 1 ? "its task's" : "their tasks'",
          n == 1 ? "task" : "tasks", list, n == 1 ? "s" : "");
}

/* The message of a campaign stopped by a signal (where it stopped, how to
 * go on); returns the exit status 130 / 143. */
static int report_stop(const exp_plan *pl, int sig, const exp_jobs_report *rep, const char *out) {
  char left[512], spec[512];
  int first = task_ranges(pl, task_left, left, sizeof left, NULL);
  const char *name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
  if (first < 0) {
    fprintf(stderr,
            "lcplab: experiment: %s came while the outputs were written; they were "
            "finished first: every task has a result and the CSVs in %s are complete\n",
            name, out);
  } else {
    exp_task_spec(pl, first, spec, sizeof spec);
    for (char *c = spec; *c; c++)
      if (*c == '\t') *c = ' ';
    fprintf(stderr,
            "lcplab: experiment stopped by %s: %d of %d tasks have a result, %d left "
            "(tasks %s; the first: %s); the CSVs in %s hold the tasks done (no "
            "figures); run the same command again to finish\n",
            name, rep->total - rep->left, rep->total, rep->left, left, spec, out);
  }
  return sig == SIGTERM ? 143 : 130;
}

/* ---- lcplab experiment -------------------------------------------------------------------- */

/* --max-memory B into *out; 0 after the message if B is not a byte count. */
static int max_memory_arg(const char *cmd, const char *v, size_t *out) {
  if (cli_parse_bytes(v, out)) return 1;
  cli_error("%s: --max-memory must be a byte count > 0 (K, M, G, T: powers of 1024), got '%s'", cmd,
            v);
  return 0;
}

/* --dump-failures DIR: made if missing, its absolute path into out (size
 * EXP_PATH_MAX).  0 after the message on failure. */
static int dump_dir_arg(const char *cmd, const char *dir, char *out) {
  struct stat st;
  if (!dir[0] || (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))) {
    cli_error("%s: --dump-failures %s: not a folder", cmd, dir);
    return 0;
  }
  if (mkdir_p(dir) != 0) {
    cli_error("%s: --dump-failures %s: cannot create the folder: %s", cmd, dir, strerror(errno));
    return 0;
  }
  abs_path(dir, out, EXP_PATH_MAX);
  return 1;
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
    if (r < 0 || !cli_parse_long(v, &n) || n < 1 || n > 1024) {
      if (r > 0) cli_error("experiment: --jobs expects an integer in 1..1024, got '%s'", v);
      return CLI_EXIT_USAGE;
    }
    a->jobs = (int)n;
    return -1;
  }
  if ((r = cli_option_value("experiment", argc, argv, i, "chunk", &v)) != 0) {
    if (r < 0 || !cli_parse_long(v, &n) || n < 1 || n > 1000000) {
      if (r > 0) cli_error("experiment: --chunk expects a positive integer, got '%s'", v);
      return CLI_EXIT_USAGE;
    }
    a->chunk = (int)n;
    return -1;
  }
  if ((r = cli_option_value("experiment", argc, argv, i, "time-limit", &v)) != 0) {
    if (r < 0 || !cli_parse_double(v, &a->time_limit) || !(a->time_limit > 0) ||
        a->time_limit > EXP_TIME_MAX_S) {
      if (r > 0)
        cli_error("experiment: --time-limit expects seconds in (0, %g], got '%s'", EXP_TIME_MAX_S,
                  v);
      return CLI_EXIT_USAGE;
    }
    return -1;
  }
  if ((r = cli_option_value("experiment", argc, argv, i, "var", &v)) != 0) {
    if (r < 0 || exp_line_safe("experiment: --var", v)) return CLI_EXIT_USAGE;
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
    if (paths[k][1] && exp_line_safe(paths[k][0], paths[k][1])) return CLI_EXIT_USAGE;
  if (a->jobs == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = n > 0 ? (int)n : 1;
  }
  return -1;
}

static void note_absent_externals(const exp_config *cfg) {
  char list[1024] = "";
  size_t used = 0;
  for (int i = 0; i < cfg->next; i++)
    if (!cfg->ext[i].available && used < sizeof list - 100)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                               cfg->ext[i].name);
  if (used)
    fprintf(stderr,
            "lcplab: note: external solvers left out (their programs are not built or "
            "not found; see requires= in %s): %s\n",
            cfg->path, list);
}

/* Decides what to do with the campaign's plan folder and the outputs in
 * --out: -1 go on (resume or new), else the exit status.  A new campaign
 * replaces no output without --force; a resumed one replaces its own; none
 * writes through a symlink leading outside --out (exp_outputs_check). */
static int check_plan_dir(const exp_plan *pl, const args *a) {
  char id[24];
  int fresh = !cli_path_exists(pl->dir);
  if (exp_outputs_check(&pl->cfg, a->out, a->force || !fresh, !a->no_plot)) return CLI_EXIT_USAGE;
  if (fresh) return -1;
  if (refuse_foreign(pl->dir, "--out")) return CLI_EXIT_USAGE;
  if (exp_plan_peek_id(pl->dir, id) == 0 && strcmp(id, pl->id) == 0 && !a->force) {
    fprintf(stderr, "lcplab: resuming the campaign in %s (plan %s)\n", pl->dir, pl->id);
    return -1;
  }
  if (!a->force) {
    cli_error("experiment: %s holds a plan of another configuration (or other problems); use "
              "--force to start over, or another --out",
              pl->dir);
    return CLI_EXIT_USAGE;
  }
  clear_results(pl->dir);
  return -1;
}

static int prepare_plan(const args *a, exp_plan *pl, const char *plan_dir) {
  int rc = exp_config_read(a->config, NULL, &a->vars, &pl->cfg);
  if (rc >= 0) return rc;
  note_absent_externals(&pl->cfg);
  char gen[EXP_PATH_MAX] = "", data[EXP_PATH_MAX + 32];
  find_gen(gen, sizeof gen);
  if (a->data)
    snprintf(data, sizeof data, "%s", a->data);
  else
    snprintf(data, sizeof data, "%s/generated", a->plan ? a->plan : a->out);
  if (mkdir_p(data) != 0) {
    cli_error("experiment: %s: cannot create the folder: %s", data, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  char adata[EXP_PATH_MAX];
  abs_path(data, adata, sizeof adata);
  exp_env env = { gen, adata, isatty(STDERR_FILENO), a->max_memory };
  if ((rc = exp_prepare(&pl->cfg, &env, &pl->probs, &pl->nprobs)) >= 0) return rc;
  pl->time_limit = a->time_limit;
  pl->memory_mb = exp_default_memory_mb();
  pl->max_memory = a->max_memory;
  if (a->dump && !dump_dir_arg("experiment", a->dump, pl->dump_dir)) return CLI_EXIT_USAGE;
  char adir[EXP_PATH_MAX];
  abs_path(pl->cfg.dir, adir, sizeof adir);
  exp_fmt(pl->cfg.dir, sizeof pl->cfg.dir, "%s", adir);
  exp_git_rev(pl->cfg.dir, pl->rev, sizeof pl->rev);
  abs_path(a->config, pl->config_path, sizeof pl->config_path);
  snprintf(pl->dir, sizeof pl->dir, "%s", plan_dir);
  if (exp_plan_expand(pl)) {
    cli_error("experiment: out of memory expanding the tasks");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int plan_only(const args *a) {
  exp_plan pl;
  memset(&pl, 0, sizeof pl);
  char dir[EXP_PATH_MAX];
  int existed = cli_path_exists(a->plan);
  if (existed && !a->force) {
    cli_error("experiment: --plan %s exists (use --force to replace it)", a->plan);
    return CLI_EXIT_USAGE;
  }
  if (refuse_foreign(a->plan, "--plan") || make_plan_folder(a->plan, "--plan") != 0)
    return CLI_EXIT_USAGE;
  abs_path(a->plan, dir, sizeof dir);
  int rc = prepare_plan(a, &pl, dir);
  if (rc < 0 && existed) clear_results(dir);
  if (rc < 0 && exp_plan_write(&pl, a->chunk) != 0) rc = CLI_EXIT_USAGE;
  if (rc < 0) {
    printf("%s/tasks.tsv\n%s/run-parallel.sh\n%s/slurm.sbatch\n", dir, dir, dir);
    fprintf(stderr,
            "lcplab: plan %s: %d tasks over %d problems; run them with 'sh "
            "%s/run-parallel.sh', 'sbatch %s/slurm.sbatch' or 'lcplab task %s N', then "
            "'lcplab collect %s'\n",
            dir, pl.ntasks, pl.nprobs, dir, dir, dir, dir);
    rc = CLI_EXIT_OK;
  }
  exp_plan_free(&pl);
  return rc;
}

static int run_campaign(const args *a) {
  if (mkdir_p(a->out) != 0) {
    cli_error("experiment: --out %s: cannot create the folder: %s", a->out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  char out[EXP_PATH_MAX], dir[EXP_PATH_MAX + 16];
  abs_path(a->out, out, sizeof out);
  snprintf(dir, sizeof dir, "%s/campaign", out);
  exp_plan pl;
  memset(&pl, 0, sizeof pl);
  int rc = prepare_plan(a, &pl, dir);
  if (rc < 0) rc = check_plan_dir(&pl, a);
  if (rc < 0) note_stale(&pl);
  if (rc < 0 && make_plan_folder(dir, "--out") != 0) rc = CLI_EXIT_USAGE;
  if (rc < 0 && exp_plan_write(&pl, 0) != 0) rc = CLI_EXIT_USAGE;
  if (rc >= 0) {
    exp_plan_free(&pl);
    return rc;
  }
  exp_jobs_opts jo = { a->jobs, isatty(STDERR_FILENO) };
  exp_jobs_report rep;
  int jr = exp_jobs_run(&pl, &jo, &rep);
  exp_collect_opts co = { out,
                          scripts_dir(a->scripts, pl.cfg.dir),
                          exp_gnuplot_prog(),
                          a->allow_mixed,
                          a->no_plot || jr != 0,
                          0 };
  int late = 0;
  rc = jr < 0 ? CLI_EXIT_USAGE : collect_held(&pl, &co, &late);
  if (jr == 1 || late) {
    int sig = jr == 1 ? rep.stopped_by : late;
    if (late == SIGTERM) sig = SIGTERM;
    rc = report_stop(&pl, sig, &rep, out);
  } else if (rc == 0) {
    fprintf(stderr, "lcplab: experiment: %d tasks (%d resumed) in %.1f s on %d processes\n",
            rep.total, rep.skipped, rep.elapsed, a->jobs);
  }
  exp_plan_free(&pl);
  return rc;
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
  return a.plan ? plan_only(&a) : run_campaign(&a);
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
  if (!cli_parse_long(num, &n)) {
    cli_error("task: N must be a task number, got '%s'", num);
    return CLI_EXIT_USAGE;
  }
  blas_one_thread();
  exp_plan pl;
  int rc = exp_plan_read(dir, &pl);
  if (rc >= 0) {
    exp_plan_free(&pl);
    return rc;
  }
  if (n < 0 || n >= pl.ntasks) {
    cli_error("task: %s: task %ld out of range (the plan has tasks 0..%d)", dir, n, pl.ntasks - 1);
    exp_plan_free(&pl);
    return CLI_EXIT_USAGE;
  }
  if (max_memory > 0) pl.max_memory = max_memory;
  if (dump && !dump_dir_arg("task", dump, pl.dump_dir)) {
    exp_plan_free(&pl);
    return CLI_EXIT_USAGE;
  }
  char path[EXP_PATH_MAX + 64], why[256];
  exp_result_path(&pl, (int)n, path, sizeof path);
  exp_result r;
  if (!force && exp_result_read(path, &r, why, sizeof why) == 0) {
    int same = exp_result_matches(&pl, (int)n, &r, why, sizeof why);
    exp_result_free(&r);
    if (same) {
      exp_plan_free(&pl);
      return CLI_EXIT_OK; /* done before: resume */
    }
  }
  exp_limit_memory(pl.memory_mb);
  exp_cache cache;
  memset(&cache, 0, sizeof cache);
  cache.prob = -1;
  rc = exp_task_run(&pl, (int)n, &cache, NULL);
  exp_cache_free(&cache);
  exp_plan_free(&pl);
  return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_NOCONV;
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
  if ((out && exp_line_safe("collect: --out", out)) ||
      (scripts && exp_line_safe("collect: --scripts", scripts)))
    return CLI_EXIT_USAGE;
  exp_plan pl;
  int rc = exp_plan_read(dir, &pl);
  if (rc >= 0) {
    exp_plan_free(&pl);
    return rc;
  }
  if (!out) out = dir;
  if (mkdir_p(out) != 0) {
    cli_error("collect: --out %s: cannot create the folder: %s", out, strerror(errno));
    exp_plan_free(&pl);
    return CLI_EXIT_USAGE;
  }
  /* the plan folder's own outputs are replaced; any other folder's only with --force */
  if (exp_outputs_check(&pl.cfg, out, force || slv_same_file(out, dir), !no_plot)) {
    exp_plan_free(&pl);
    return CLI_EXIT_USAGE;
  }
  exp_collect_opts co = { out, scripts_dir(scripts, pl.cfg.dir), exp_gnuplot_prog(), allow, no_plot,
                          0 };
  int late;
  rc = collect_held(&pl, &co, &late);
  exp_plan_free(&pl);
  if (late)
    fprintf(stderr,
            "lcplab: collect: %s came while the outputs were written; they were finished "
            "first\n",
            late == SIGTERM ? "SIGTERM" : "SIGINT");
  return late ? (late == SIGTERM ? 143 : 130) : rc;
}
