/* cmd_experiment.c -- `lcplab experiment`: run the sections of an experiment
 * file (experiments/NAME.exp), write one CSV per section with a provenance
 * preamble, and draw its figures with the section kind's gnuplot script.
 *
 *     lcplab experiment CONFIG [--out DIR] [--force] [--var NAME=VALUE]...
 *                              [--data DIR] [--scripts DIR] [--no-plot]
 *
 * Outputs, for each section NAME of kind KIND (experiments/README.md):
 *   DIR/NAME.csv               the rows (experiment_run.c has the columns)
 *   DIR/NAME_profile.csv       profile: the Dolan-More curves
 *   DIR/NAME_slopes.csv        scaling: the fitted log-log slopes
 *   DIR/NAME.pdf, DIR/NAME.png the figure (gnuplot SCRIPTS/exp_KIND.gp)
 * and their paths on stdout, one per line, when done.  Existing outputs are
 * refused (exit 2, before anything runs) unless --force.
 *
 * Provenance ('# key: value' lines before the header): the config and the
 * section's own lines, git revision (LCPLAB_REV, else `git rev-parse` in the
 * config's folder with "-dirty" when `git status` lists changes, else the
 * build-time LCPLAB_GIT_REV, else "unknown"), lcplab version, compiler
 * (__VERSION__) and flags (the build-time LCPLAB_CFLAGS define, else what the
 * compiler macros tell: optimisation, sanitizers), BLAS (OpenBLAS's
 * openblas_get_config(), looked up with dlsym), threads (OPENBLAS_NUM_THREADS,
 * openblas_get_num_threads(), online CPUs), seed, tolerances, timing rule,
 * UTC date, host.
 *
 * Rows are flushed after every run.  SIGINT sets a flag (the only global
 * state: a volatile sig_atomic_t, as signal handlers require) that the
 * runners check between runs; the current section's CSV is then completed
 * with a "# interrupted" line, no figure is drawn, the paths written so far
 * are printed and the exit status is 130.  A second SIGINT kills at once
 * (SA_RESETHAND).  Progress goes to stderr only when it is a terminal.
 *
 * Exit status: 0 done (whatever the solvers did: experiments never assert;
 * a missing gnuplot or a failing script is a note on stderr); 2 bad usage or
 * config (one line "lcplab: ..."); 130 interrupted.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "experiment.h"

extern char **environ;

static volatile sig_atomic_t exp_interrupted = 0;

/* snprintf that reports truncation (1) instead of warning about it. */
static int fmt(char *buf, size_t len, const char *f, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;

static int fmt(char *buf, size_t len, const char *f, ...)
{
  va_list ap;
  va_start(ap, f);
  int r = vsnprintf(buf, len, f, ap);
  va_end(ap);
  return (r < 0 || (size_t)r >= len) ? 1 : 0;
}

static void on_sigint(int sig)
{
  (void)sig;
  exp_interrupted = 1;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: lcplab experiment CONFIG [--out DIR] [--force] [--var NAME=VALUE]...\n"
          "                                [--data DIR] [--scripts DIR] [--no-plot]\n"
          "\n"
          "Run the experiment sections of CONFIG (experiments/*.exp; format in\n"
          "experiments/README.md): convergence, profile, scaling, drift, accuracy.\n"
          "Each section NAME writes DIR/NAME.csv (provenance preamble, header, rows),\n"
          "NAME_profile.csv or NAME_slopes.csv for profile / scaling, and the figure\n"
          "DIR/NAME.pdf and .png with gnuplot; their paths are printed at the end.\n"
          "\n"
          "  --out DIR          output folder (created; default: .)\n"
          "  --force            overwrite existing outputs (default: refuse, exit 2)\n"
          "  --var NAME=VALUE   value of ${NAME} in CONFIG (default: env LCPLAB_NAME)\n"
          "  --data DIR         where generated instances go (default: DIR/generated);\n"
          "                     existing files there are reused\n"
          "  --scripts DIR      folder of the exp_KIND.gp scripts (default: env\n"
          "                     LCPLAB_EXPERIMENTS, else CONFIG's folder)\n"
          "  --no-plot          CSV only\n"
          "\n"
          "environment: GNUPLOT (the gnuplot program), LCPLAB_GEN_INSTANCES (path of\n"
          "datasets/gen_instances; default: found next to lcplab in the build tree),\n"
          "LCPLAB_REV (the revision for the preamble).\n"
          "exit status: 0 done, 2 bad input or usage, 130 interrupted.\n");
}

/* ---- running a program -------------------------------------------------------------- */

/* Runs argv; stdout into out (size len, NUL-terminated, may be NULL: then
 * stdout is kept), stderr to /dev/null when quiet.  Returns the exit status,
 * or -1 if it could not run. */
static int run_prog(char *const *argv, char *out, size_t len, int quiet)
{
  int fd[2] = {-1, -1};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out) {
    if (pipe(fd) != 0) {
      posix_spawn_file_actions_destroy(&fa);
      return -1;
    }
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
  }
  if (quiet)
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (out)
    close(fd[1]);
  if (err != 0) {
    if (out)
      close(fd[0]);
    return -1;
  }
  if (out) {
    size_t used = 0;
    for (;;) {
      ssize_t r = read(fd[0], out + used, len - 1 - used);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      used += (size_t)r;
      if (used + 1 >= len) {
        char sink[256]; /* drain the rest */
        while (read(fd[0], sink, sizeof sink) > 0) {
        }
        break;
      }
    }
    out[used] = '\0';
    close(fd[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  /* gnuplot killed by the user's SIGINT etc. */
  return -1;
}

static void chomp(char *s)
{
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
}

/* ---- provenance --------------------------------------------------------------------- */

static void git_rev(const char *dir, char *rev, size_t len)
{
  const char *env = getenv("LCPLAB_REV");
  if (env && env[0]) {
    fmt(rev, len, "%s", env);
    return;
  }
  char out[256] = "";
  char *a1[] = {"git", "-C", (char *)dir, "rev-parse", "--short=12", "HEAD", NULL};
  if (run_prog(a1, out, sizeof out, 1) == 0 && out[0]) {
    chomp(out);
    char st[64] = "";
    /* --no-optional-locks: never write the index (status would refresh it) */
    char *a2[] = {"git", "--no-optional-locks", "-C", (char *)dir, "status", "--porcelain", NULL};
    int dirty = run_prog(a2, st, sizeof st, 1) == 0 && st[0];
    fmt(rev, len, "%s%s", out, dirty ? "-dirty" : "");
    return;
  }
#ifdef LCPLAB_GIT_REV
  fmt(rev, len, "%s (build time)", LCPLAB_GIT_REV);
#else
  fmt(rev, len, "unknown (no git checkout at %s; set LCPLAB_REV)", dir);
#endif
}

static void preamble(FILE *f, const exp_config *cfg, const exp_section *s, const char *rev)
{
  fprintf(f, "# lcplab experiment: %s %s (experiments/README.md)\n", exp_kind_str(s->kind),
          s->name);
  fprintf(f, "# config: %s (lines %d-%d)\n", cfg->path, s->first_line, s->last_line);
  /* the section's own lines, verbatim, so the CSV says what produced it */
  const char *p = cfg->text;
  for (int line = 1; *p && line <= s->last_line; line++) {
    const char *e = strchr(p, '\n');
    int ll = e ? (int)(e - p) : (int)strlen(p);
    if (line >= s->first_line && ll > 0)
      fprintf(f, "# config> %.*s\n", ll, p);
    p += ll + (e ? 1 : 0);
  }
  fprintf(f, "# rev: %s\n", rev);
  fprintf(f, "# lcplab: %s\n", SLV_VERSION);
#if defined(__clang__)
  fprintf(f, "# compiler: clang %s\n", __VERSION__);
#elif defined(__GNUC__)
  fprintf(f, "# compiler: gcc %s\n", __VERSION__);
#else
  fprintf(f, "# compiler: unknown\n");
#endif
#ifdef LCPLAB_CFLAGS
  fprintf(f, "# cflags: %s\n", LCPLAB_CFLAGS);
#else
  fprintf(f, "# cflags: not recorded at build time;%s%s%s\n",
#ifdef __OPTIMIZE__
          " optimized (-O1 or more)",
#else
          " not optimized (-O0)",
#endif
#ifdef __SANITIZE_ADDRESS__
          ", -fsanitize=address",
#else
          "",
#endif
#ifdef NDEBUG
          ", -DNDEBUG"
#else
          ""
#endif
  );
#endif
  const char *blas = "unknown (not OpenBLAS: no openblas_get_config symbol)";
  char *(*get_config)(void);
  int (*get_threads)(void);
  *(void **)&get_config = dlsym(RTLD_DEFAULT, "openblas_get_config");
  *(void **)&get_threads = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  if (get_config)
    blas = get_config();
  fprintf(f, "# blas: %s\n", blas);
  const char *nt = getenv("OPENBLAS_NUM_THREADS");
  fprintf(f, "# threads: OPENBLAS_NUM_THREADS=%s openblas_get_num_threads=%d online_cpus=%ld "
             "(lcplab's solvers are single-threaded)\n",
          nt ? nt : "(unset)", get_threads ? get_threads() : -1, sysconf(_SC_NPROCESSORS_ONLN));
  fprintf(f, "# seed: %lu\n", s->seed);
  if (s->kind == EXP_DRIFT || s->kind == EXP_ACCURACY) {
    fprintf(f, "# solver settings: tol %s max_iter %s per step (world defaults: 1e-08, 50), "
               "warm start from the previous step\n",
            s->ntol ? "given" : "default", s->max_iter ? "given" : "default");
    fprintf(f, "# timing: none (per-step metrics; see lcplab simulate for step times)\n");
  } else {
    fprintf(f, "# tol:");
    if (s->ntol)
      for (int k = 0; k < s->ntol; k++)
        fprintf(f, " %g", s->tol[k]);
    else
      fprintf(f, s->kind == EXP_PROFILE ? " 0.0001 1e-08" : " 1e-08");
    fprintf(f, "  max_iter: %ld  repeat: %ld  budget_s: %g\n",
            s->max_iter ? s->max_iter : 10000L, s->repeat, s->budget);
    fprintf(f, "# timing: clock_gettime(CLOCK_MONOTONIC) around slv_solve only, cold start, "
               "one warm-up then repeat solves (one when warm-up x repeat > budget); "
               "median (time_s) and min\n");
  }
  char date[64] = "unknown";
  time_t t = time(NULL);
  struct tm tm;
  if (gmtime_r(&t, &tm))
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(f, "# date: %s\n", date);
  struct utsname u;
  if (uname(&u) == 0)
    fprintf(f, "# host: %s %s %s %s\n", u.nodename, u.sysname, u.release, u.machine);
  else
    fprintf(f, "# host: unknown\n");
}

/* ---- locating helpers ------------------------------------------------------------------- */

static int is_exec(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* datasets/gen_instances: LCPLAB_GEN_INSTANCES, else next to this program
 * in the build tree (cli/lcplab or, under libtool, cli/.libs/lcplab). */
static void find_gen(char *out, size_t len)
{
  out[0] = '\0';
  const char *env = getenv("LCPLAB_GEN_INSTANCES");
  if (env && env[0]) {
    fmt(out, len, "%s", env);
    return;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash)
    return;
  *slash = '\0';
  static const char *const rel[] = {"/../datasets/gen_instances",
                                    "/../../datasets/gen_instances", "/gen_instances", NULL};
  for (int k = 0; rel[k]; k++) {
    char c[PATH_MAX + 64];
    fmt(c, sizeof c, "%s%s", exe, rel[k]);
    if (is_exec(c)) {
      fmt(out, len, "%s", c);
      return;
    }
  }
}

static int mkdir_p(const char *path)
{
  char buf[EXP_PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return -1;
  for (char *c = buf + 1; *c; c++)
    if (*c == '/') {
      *c = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
      *c = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST)
    return -1;
  struct stat st;
  return (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) ? 0 : -1;
}

/* ---- the outputs of a section --------------------------------------------------------- */

typedef struct outs {
  char csv[EXP_PATH_MAX + 80], csv2[EXP_PATH_MAX + 96];
  char pdf[EXP_PATH_MAX + 80], png[EXP_PATH_MAX + 80], base[EXP_PATH_MAX + 80];
  int have2;
} outs;

static void section_outs(const char *dir, const exp_section *s, outs *o)
{
  fmt(o->base, sizeof o->base, "%s/%s", dir, s->name);
  fmt(o->csv, sizeof o->csv, "%s.csv", o->base);
  const char *suf = exp_csv2_suffix(s->kind);
  o->have2 = suf != NULL;
  fmt(o->csv2, sizeof o->csv2, "%s%s.csv", o->base, suf ? suf : "");
  fmt(o->pdf, sizeof o->pdf, "%s.pdf", o->base);
  fmt(o->png, sizeof o->png, "%s.png", o->base);
}

static FILE *open_out(const char *path, int force)
{
  FILE *f = fopen(path, force ? "w" : "wx");
  if (!f)
    cli_error("%s: cannot open for writing: %s%s", path, strerror(errno),
              (!force && errno == EEXIST) ? " (use --force to overwrite)" : "");
  return f;
}

static int nonempty(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && st.st_size > 0;
}

/* Draws the figure; prints a note and returns 0 when it cannot. */
static int plot(const exp_section *s, const outs *o, const char *scripts_dir, const char *gnuplot)
{
  char script[EXP_PATH_MAX + 64];
  fmt(script, sizeof script, "%s/exp_%s.gp", scripts_dir, exp_kind_str(s->kind));
  if (access(script, R_OK) != 0) {
    fprintf(stderr, "lcplab: note: %s: %s: no figure for %s\n", script, strerror(errno), s->name);
    return 0;
  }
  if (strchr(o->base, '\'') || strchr(scripts_dir, '\'')) {
    fprintf(stderr, "lcplab: note: a path contains a quote: no figure for %s\n", s->name);
    return 0;
  }
  char expr[4 * EXP_PATH_MAX + 512];
  fmt(expr, sizeof expr, "csv='%s'; csv2='%s'; out='%s'; gpdir='%s'", o->csv,
           o->have2 ? o->csv2 : "", o->base, scripts_dir);
  char *argv[] = {(char *)gnuplot, "-e", expr, script, NULL};
  int rc = run_prog(argv, NULL, 0, 0);
  if (rc < 0) {
    fprintf(stderr, "lcplab: note: cannot run %s (install gnuplot-nox, or set GNUPLOT): no "
                    "figure for %s; draw it later with: gnuplot -e \"%s\" %s\n",
            gnuplot, s->name, expr, script);
    return -1;
  }
  if (rc != 0)
    fprintf(stderr, "lcplab: note: %s exited with %d for %s (the CSV is complete)\n", script, rc,
            s->name);
  return 0;
}

/* ---- the command ------------------------------------------------------------------------ */

typedef struct args {
  const char *config, *out, *data, *scripts;
  int force, no_plot;
  exp_vars vars;
} args;

static int parse_args(int argc, char **argv, args *a)
{
  memset(a, 0, sizeof *a);
  a->out = ".";
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v = NULL;
    int r;
    if (strcmp(arg, "--force") == 0) {
      a->force = 1;
    } else if (strcmp(arg, "--no-plot") == 0) {
      a->no_plot = 1;
    } else if ((r = cli_option_value("experiment", argc, argv, &i, "out", &v)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      a->out = v;
    } else if ((r = cli_option_value("experiment", argc, argv, &i, "data", &v)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      a->data = v;
    } else if ((r = cli_option_value("experiment", argc, argv, &i, "scripts", &v)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      a->scripts = v;
    } else if ((r = cli_option_value("experiment", argc, argv, &i, "var", &v)) != 0) {
      if (r < 0)
        return CLI_EXIT_USAGE;
      const char *eq = strchr(v, '=');
      if (!eq || eq == v) {
        cli_error("experiment: --var expects NAME=VALUE, got '%s'", v);
        return CLI_EXIT_USAGE;
      }
      if (a->vars.ndef == (int)(sizeof a->vars.def / sizeof a->vars.def[0])) {
        cli_error("experiment: more than 32 --var options");
        return CLI_EXIT_USAGE;
      }
      a->vars.def[a->vars.ndef++] = v;
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
  if (!a->out[0]) {
    cli_error("experiment: --out needs a folder name");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

typedef struct state {
  exp_config cfg;
  exp_problem **probs;
  int *nprob;
  outs *o;
  int *written; /* per section: 0 nothing, 1 CSV(s) written, 2 figures too */
} state;

static void state_free(state *st)
{
  for (int k = 0; k < st->cfg.nsec; k++)
    if (st->probs)
      exp_problems_free(st->probs[k], st->nprob[k]);
  free(st->probs);
  free(st->nprob);
  free(st->o);
  free(st->written);
  exp_config_free(&st->cfg);
}

static void print_paths(const state *st)
{
  for (int k = 0; k < st->cfg.nsec; k++) {
    if (!st->written[k])
      continue;
    const outs *o = &st->o[k];
    printf("%s\n", o->csv);
    if (o->have2 && nonempty(o->csv2))
      printf("%s\n", o->csv2);
    if (st->written[k] == 2) {
      if (nonempty(o->pdf))
        printf("%s\n", o->pdf);
      if (nonempty(o->png))
        printf("%s\n", o->png);
    }
  }
  fflush(stdout);
}

static int run(const args *a, state *st)
{
  int rc = exp_config_read(a->config, &a->vars, &st->cfg);
  if (rc >= 0)
    return rc;
  exp_config *cfg = &st->cfg;
  int ns = cfg->nsec;
  st->probs = calloc((size_t)ns, sizeof *st->probs);
  st->nprob = calloc((size_t)ns, sizeof *st->nprob);
  st->o = calloc((size_t)ns, sizeof *st->o);
  st->written = calloc((size_t)ns, sizeof *st->written);
  if (!st->probs || !st->nprob || !st->o || !st->written) {
    cli_error("experiment: out of memory");
    return CLI_EXIT_USAGE;
  }
  if (mkdir_p(a->out) != 0) {
    cli_error("experiment: --out %s: cannot create the folder: %s", a->out, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  /* refuse to overwrite, before anything runs */
  for (int k = 0; k < ns; k++) {
    section_outs(a->out, &cfg->sec[k], &st->o[k]);
    const outs *o = &st->o[k];
    const char *paths[4] = {o->csv, o->have2 ? o->csv2 : NULL, o->pdf, o->png};
    for (int j = 0; j < 4 && !a->force; j++)
      if (paths[j] && cli_path_exists(paths[j])) {
        cli_error("%s exists (use --force to overwrite, or another --out)", paths[j]);
        return CLI_EXIT_USAGE;
      }
  }
  char gen[EXP_PATH_MAX] = "", data[EXP_PATH_MAX];
  find_gen(gen, sizeof gen);
  fmt(data, sizeof data, "%s", a->data ? a->data : "");
  if (!a->data)
    fmt(data, sizeof data, "%s/generated", a->out);
  int need_gen = 0;
  for (int k = 0; k < ns; k++)
    for (int j = 0; j < cfg->sec[k].nsrc; j++)
      need_gen |= cfg->sec[k].src[j].kind == EXP_SRC_GEN;
  if (need_gen && mkdir_p(data) != 0) {
    cli_error("experiment: %s: cannot create the folder: %s", data, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  exp_env env = {gen, data, isatty(STDERR_FILENO), &exp_interrupted};

  /* every problem loaded and every scene built before the first run */
  for (int k = 0; k < ns; k++) {
    rc = exp_section_prepare(cfg, &cfg->sec[k], &env, &st->probs[k], &st->nprob[k]);
    if (rc >= 0)
      return rc;
  }

  char scripts[EXP_PATH_MAX] = "";
  const char *env_scripts = getenv("LCPLAB_EXPERIMENTS");
  fmt(scripts, sizeof scripts, "%s",
           a->scripts ? a->scripts : (env_scripts && env_scripts[0]) ? env_scripts : cfg->dir);
  const char *gnuplot = getenv("GNUPLOT");
  if (!gnuplot || !gnuplot[0])
    gnuplot = "gnuplot";
  char rev[256];
  git_rev(cfg->dir, rev, sizeof rev);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C ends the program at once */
  sigaction(SIGINT, &sa, &old);

  int plot_ok = !a->no_plot;
  rc = CLI_EXIT_OK;
  for (int k = 0; k < ns && rc == CLI_EXIT_OK; k++) {
    const exp_section *s = &cfg->sec[k];
    outs *o = &st->o[k];
    FILE *f = open_out(o->csv, a->force), *g = NULL;
    if (!f) {
      rc = CLI_EXIT_USAGE;
      break;
    }
    if (o->have2 && !(g = open_out(o->csv2, a->force))) {
      fclose(f);
      rc = CLI_EXIT_USAGE;
      break;
    }
    preamble(f, cfg, s, rev);
    fprintf(f, "%s\n", exp_csv_header(s->kind));
    if (g) {
      preamble(g, cfg, s, rev);
      fprintf(g, "# computed from %s\n%s\n", cli_basename(o->csv), exp_csv2_header(s->kind));
    }
    fflush(f);
    if (env.tty)
      fprintf(stderr, "lcplab experiment: section %s (%s) -> %s\n", s->name,
              exp_kind_str(s->kind), o->csv);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int r = exp_section_run(s, st->probs[k], st->nprob[k], &env, f, g);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(f, "# elapsed_s: %.1f (wall time of the section)\n",
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    if (r == 1) {
      fprintf(f, "# interrupted (SIGINT): the rows above were written before it (a scene run stops between steps)\n");
      if (g)
        fprintf(g, "# interrupted (SIGINT): computed over the problems completed\n");
    }
    int bad = (fclose(f) != 0);
    if (g)
      bad |= (fclose(g) != 0);
    st->written[k] = 1;
    if (r < 0 || bad) {
      if (bad)
        cli_error("%s: write error", o->csv);
      rc = CLI_EXIT_USAGE;
      break;
    }
    if (r == 1) {
      rc = 130;
      break;
    }
    if (plot_ok) {
      if (a->force) {
        remove(o->pdf);
        remove(o->png);
      }
      if (plot(s, o, scripts, gnuplot) < 0)
        plot_ok = 0; /* no gnuplot: said once */
      st->written[k] = 2;
    }
  }
  sigaction(SIGINT, &old, NULL);
  print_paths(st);
  if (rc == 130)
    fprintf(stderr, "lcplab: experiment interrupted: the CSVs above hold the completed runs\n");
  return rc;
}

int cli_cmd_experiment(int argc, char **argv)
{
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0)
    return rc;
  state st;
  memset(&st, 0, sizeof st);
  rc = run(&a, &st);
  state_free(&st);
  return rc;
}
