/* lcplab.c -- main() of the `lcplab` program: subcommand dispatch, --version,
 * --help, and the helpers the subcommands share (cli.h).
 *
 *     lcplab --version | --help | help [COMMAND]
 *     lcplab solvers   [--help]
 *     lcplab solve     FILE --solver NAME [options]     (cmd_solve.c)
 *     lcplab convert   IN OUT [options]                 (cmd_convert.c)
 *     lcplab simulate  --scene NAME --solver NAME [...]  (cmd_simulate.c)
 *     lcplab export    --scene NAME --format F --out DIR  (cmd_export.c)
 *     lcplab experiment CONFIG [--out DIR] [--jobs N] [--plan DIR] ... (cmd_experiment.c)
 *     lcplab task       DIR N                           (cmd_experiment.c)
 *     lcplab collect    DIR [--out OUT]                 (cmd_experiment.c)
 *     lcplab figure     KIND CSV --out BASE             (cmd_figure.c)
 *     lcplab generate   --type F --n N --out FILE       (cmd_generate.c)
 *
 * The command line is a contract (lcplab(1), docs/lcplab.1, "EXIT STATUS"): exit 0 on
 * success, 2 on bad input or usage with exactly one line "lcplab: ..." on
 * stderr, 3 when `solve` ran but did not converge.  With no arguments or an
 * unknown subcommand the usage goes to stderr and the exit status is 2.
 *
 * Number parsing is strict (libsolvers' slv_parse_double / slv_parse_long, slv.h
 * "numbers from text"): "1e-8x", " 3", "" and "nan" are errors, never silently 0
 * or a prefix.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "io.h"

#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "slv.h"

/* ---- usage ------------------------------------------------------------------ */

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab COMMAND [ARGS]\n"
             "\n"
             "Complementarity problems (LCP, boxed LCP, friction) for contact dynamics.\n"
             "\n"
             "commands:\n"
             "  solvers      list the registered solvers and the problems they accept\n"
             "  solve        solve one instance file, print one JSON object\n"
             "  convert      convert an instance file between the supported formats\n"
             "  export       write the problems of a simulated scene, step by step\n"
             "  simulate     run a scene, write per-step metrics as CSV\n"
             "  experiment   run an experiment file: solver comparisons, CSVs, tables, figures\n"
             "  task         run one task of a campaign plan (GNU parallel, Slurm arrays)\n"
             "  collect      merge a campaign's task results into CSVs, tables, figures\n"
             "  figure       draw one figure of an experiment's CSV again\n"
             "  generate     write one instance of a seeded family (spd, contact, ...)\n"
             "  tex          print texts in LaTeX, as the experiment tables write them\n"
             "\n"
             "options:\n"
             "  --plugin PATH  load a C plugin's solvers first (any command; repeatable;\n"
             "               LCPLAB_PLUGINS=P1:P2 too; docs/plugins.md)\n"
             "  --help       this text\n"
             "  --version    print the version\n"
             "\n"
             "'lcplab help COMMAND' (or 'lcplab COMMAND --help') describes each command.\n"
             "exit status: 0 success, 2 bad input or usage, 3 solver did not converge.\n");
}

/* ---- timing ---------------------------------------------------------------------- */

/* ---- progress line ------------------------------------------------------------- */

enum { PROGRESS_OFF, PROGRESS_AUTO, PROGRESS_ON };

int cli_progress_init(cli_progress *p, const char *cmd) {
  const char *v = getenv("LCPLAB_PROGRESS");
  memset(p, 0, sizeof *p);
  p->t0 = exp_now_s();
  if (!v || !v[0] || strcmp(v, "auto") == 0)
    p->mode = isatty(STDERR_FILENO) ? PROGRESS_AUTO : PROGRESS_OFF;
  else if (strcmp(v, "0") == 0)
    p->mode = PROGRESS_OFF;
  else if (strcmp(v, "1") == 0)
    p->mode = PROGRESS_ON;
  else {
    cli_error("%s: LCPLAB_PROGRESS must be 0, 1 or auto, got '%s'", cmd, v);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

void cli_progress_step(cli_progress *p, const char *cmd, long k, long total) {
  if (p->mode == PROGRESS_OFF) return;
  double now = exp_now_s();
  if (p->mode == PROGRESS_AUTO && now - p->t0 < CLI_PROGRESS_AFTER_S) return;
  if (k < total && p->shown && now - p->last < CLI_PROGRESS_EVERY_S) return;
  fprintf(stderr, "\r\033[Klcplab: %s: step %ld/%ld (%.0f%%), %.1f s", cmd, k, total,
          100.0 * (double)k / (double)total, now - p->t0);
  fflush(stderr);
  p->last = now;
  p->shown = 1;
}

void cli_progress_clear(cli_progress *p) {
  if (!p->shown) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->shown = 0;
}


/* ---- dispatch ----------------------------------------------------------------- */

typedef struct cli_command {
  const char *name;
  int (*run)(int argc, char **argv); /* NULL: not yet available */
} cli_command;

static const cli_command cli_commands[] = {
  { "solvers", cli_cmd_solvers },   { "solve", cli_cmd_solve },
  { "convert", cli_cmd_convert },   { "export", cli_cmd_export },
  { "simulate", cli_cmd_simulate }, { "experiment", cli_cmd_experiment },
  { "task", cli_cmd_task },         { "collect", cli_cmd_collect },
  { "figure", cli_cmd_figure },     { "generate", cli_cmd_generate },
  { "tex", cli_cmd_tex },
};

/* `lcplab help CMD`: CMD's own --help. */
static int help_of(const char *name) {
  for (size_t k = 0; k < sizeof cli_commands / sizeof cli_commands[0]; k++)
    if (strcmp(name, cli_commands[k].name) == 0) {
      char *argv[3] = { (char *)cli_commands[k].name, (char *)"--help", NULL };
      return cli_commands[k].run(2, argv);
    }
  cli_error("help: unknown command '%s' (see 'lcplab help')", name);
  return CLI_EXIT_USAGE;
}

/* The plugins (docs/plugins.md, "C plugins"): LCPLAB_PLUGINS (a
 * colon-separated list), then each `--plugin PATH` (or --plugin=PATH)
 * before a `--`, wherever it stands, taken out of argv so that every
 * command sees its own arguments only.  -1 when all loaded, else the exit
 * status after the message. */
static int load_plugins(int *argc, char **argv) {
  char err[EXP_PATH_MAX + 512];
  if (exp_plugins_load_list(getenv("LCPLAB_PLUGINS"), err, sizeof err) != 0) {
    cli_error("LCPLAB_PLUGINS: %s", err);
    return CLI_EXIT_USAGE;
  }
  int out = 1, args_done = 0;
  for (int i = 1; i < *argc; i++) {
    const char *path = NULL;
    if (!args_done && strcmp(argv[i], "--") == 0) args_done = 1;
    if (!args_done && strncmp(argv[i], "--plugin=", 9) == 0) {
      path = argv[i] + 9;
    } else if (!args_done && strcmp(argv[i], "--plugin") == 0) {
      if (i + 1 >= *argc) {
        cli_error("option --plugin needs a value (the plugin's path)");
        return CLI_EXIT_USAGE;
      }
      path = argv[++i];
    }
    if (!path) {
      argv[out++] = argv[i];
      continue;
    }
    if (exp_plugin_load(path, err, sizeof err) != 0) {
      cli_error("%s", err);
      return CLI_EXIT_USAGE;
    }
  }
  argv[out] = NULL;
  *argc = out;
  return -1;
}

int main(int argc, char **argv) {
  /* Under a file size limit (ulimit -f) a write past it raises SIGXFSZ,
   * whose default action kills the program with no message and a temporary
   * file left; ignored, the write fails with EFBIG, which every writer
   * reports as any write error (exit 2 naming the file, the old file
   * intact; docs/io.md, "Replacing files").  Programs lcplab runs (gnuplot,
   * external solvers) inherit it: their figures are checked before they
   * replace old ones (libexperiment/figure.c). */
  signal(SIGXFSZ, SIG_IGN);
  int rc = load_plugins(&argc, argv);
  if (rc >= 0) return rc;
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("lcplab %s\n", SLV_VERSION);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "help") == 0 && argc > 2) return help_of(argv[2]);
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  for (size_t k = 0; k < sizeof cli_commands / sizeof cli_commands[0]; k++) {
    if (strcmp(cmd, cli_commands[k].name) != 0) continue;
    if (!cli_commands[k].run) {
      cli_error("'%s' is not implemented yet", cmd);
      return CLI_EXIT_USAGE;
    }
    return cli_commands[k].run(argc - 1, argv + 1);
  }
  if (cmd[0] == '-')
    cli_error("unknown option '%s'", cmd);
  else
    cli_error("unknown command '%s'", cmd);
  usage(stderr);
  return CLI_EXIT_USAGE;
}

/* ---- shared helpers ------------------------------------------------------------- */

/* The line a crash in a plugin's solver writes (cli_guard_plugin). */
static char crash_line[EXP_PATH_MAX + 256];
static size_t crash_len;

static void on_crash(int sig) {
  ssize_t r = write(STDERR_FILENO, crash_line, crash_len);
  (void)r;
  signal(sig, SIG_DFL);
  raise(sig); /* the exit status says the signal (128 + sig in a shell) */
}

void cli_guard_plugin(const slv_solver *s) {
  const char *origin = slv_solver_origin(s);
  if (!origin) return;
  int n = snprintf(crash_line, sizeof crash_line,
                   "lcplab: solver '%s' from plugin %s crashed (a fatal signal in the "
                   "plugin's code); no result\n",
                   s->name, origin[0] ? origin : "(no path)");
  crash_len = n > 0 && (size_t)n < sizeof crash_line ? (size_t)n : 0;
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) signal(sigs[k], on_crash);
}

/* The sink of the library's messages (exp.h, exp_log): errors and status
 * lines as "lcplab: LINE", notes as "lcplab: note: LINE" on stderr; a
 * progress line rewritten in place when stderr is a terminal (and left out
 * when it is not); the names of written files on stdout. */
static void cli_say(void *ctx, exp_say_kind kind, const char *line) {
  (void)ctx;
  int tty = isatty(STDERR_FILENO);
  switch (kind) {
  case EXP_SAY_OUTPUT:
    fprintf(stdout, "%s\n", line);
    fflush(stdout);
    return;
  case EXP_SAY_PROGRESS:
    if (tty) fprintf(stderr, "\r\033[Klcplab: %s", line);
    fflush(stderr);
    return;
  default:
    fprintf(stderr, "%slcplab: %s%s\n", tty ? "\r\033[K" : "", kind == EXP_SAY_NOTE ? "note: " : "",
            line);
  }
}

static const exp_log cli_sink = { cli_say, NULL };

const exp_log *cli_log(void) { return &cli_sink; }

void cli_error(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  exp_say(&cli_sink, EXP_SAY_ERROR, "%s", line);
}

void cli_error_lib(const char *path, const char *err) {
  if (!err || !err[0]) err = "unknown error";
  size_t len = strlen(path);
  if (strncmp(err, path, len) == 0 && err[len] == ':')
    cli_error("%s", err);
  else
    cli_error("%s: %s", path, err);
}


int cli_option_value(const char *cmd, int argc, char **argv, int *i, const char *name,
                     const char **value) {
  const char *arg = argv[*i];
  if (strncmp(arg, "--", 2) != 0) return 0;
  size_t len = strlen(name);
  if (strncmp(arg + 2, name, len) != 0) return 0;
  if (arg[2 + len] == '=') {
    *value = arg + 3 + len;
    return 1;
  }
  if (arg[2 + len] != '\0') return 0;
  if (*i + 1 >= argc) {
    cli_error("%s: option --%s needs a value", cmd, name);
    return -1;
  }
  *i += 1;
  *value = argv[*i];
  return 1;
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}

int cli_is_stdout(const char *path) { return path && strcmp(path, "-") == 0; }

int cli_output_refused(const char *path, int force) {
  if (!path || force || cli_is_stdout(path) || !exp_path_exists(path)) return 0;
  cli_error("%s exists (use --force to overwrite)", path);
  return 1;
}


int cli_output_is_input(const char *out, const char *in) {
  exp_inputs set = { 0 };
  if (!out || !in) return 0;
  if (exp_inputs_add_problem(&set, in) != 0) {
    exp_inputs_free(&set);
    cli_error("out of memory listing the input files");
    return 1;
  }
  const char *hit = exp_inputs_match(&set, out);
  if (hit) cli_error("%s: the output is the input %s (one file under two names)", out, hit);
  exp_inputs_free(&set);
  return hit != NULL;
}
