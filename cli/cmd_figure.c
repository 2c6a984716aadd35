/* cmd_figure.c -- `lcplab figure`: draws one figure of an `lcplab experiment`
 * CSV again, the way the experiment draws it (libexperiment/figure.c), so that
 * no name in the CSV and no path reaches a shell (experiments/README.md,
 * "Figures"; paper/build.sh draws the paper's figures with it).
 *
 *   lcplab figure KIND CSV --out BASE [--csv2 FILE] [--scripts DIR]
 *                 [--set KEY=VALUE]... [--force]
 *
 * KIND: convergence, profile, scaling, drift, accuracy, scenes (the script
 * exp_KIND.gp of --scripts, else $LCPLAB_EXPERIMENTS, else the program's own:
 * cli_scripts_dir, datadir.c); the figure options are
 * the CSV's "# figure:" line, then each --set (a later one wins); BASE.pdf,
 * BASE.png (BASE-2.pdf ... for more pages) are written, all of them or none
 * once each is whole (figure.c).  An existing one is replaced only with
 * --force, and the CSVs it is drawn from never (exp_figure_check).
 * Exit status: 0 drawn; 2 bad usage or input (an unknown KIND, an unreadable
 * CSV, a figure value other than title's outside letters, digits and
 * ._,+-:, a path holding a newline, an existing output without --force, an
 * output that is an input) or a write error (a full disk, a file size
 * limit: the old figure kept); 3 gnuplot failed or cannot be run.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "exp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab figure KIND CSV --out BASE [--csv2 FILE] [--scripts DIR]\n"
             "                     [--set KEY=VALUE]... [--force]\n"
             "\n"
             "Draws one figure of an `lcplab experiment` CSV again, as the experiment does.\n"
             "  KIND               convergence, profile, scaling, drift, accuracy or scenes\n"
             "  --out BASE         writes BASE.pdf and BASE.png (BASE-2.pdf ... for more pages)\n"
             "  --csv2 FILE        the section's second CSV (profile: NAME_profile.csv;\n"
             "                     scaling: NAME_slopes.csv)\n"
             "  --scripts DIR      the folder of exp_KIND.gp (default: $LCPLAB_EXPERIMENTS,\n"
             "                     else the program's own, below)\n"
             "  --set KEY=VALUE    a figure option, after the CSV's own `# figure:` ones\n"
             "  --force            replace existing BASE.pdf, BASE.png ... (never the CSVs)\n"
             "exit status: 0 drawn, 2 bad usage or input or a write error, 3 gnuplot failed.\n");
  fprintf(f, "the program's figure scripts: %s\n", cli_scripts_default());
}

typedef struct fargs {
  const char *kind, *csv, *csv2, *out, *scripts;
  int force;
  char figure[512], sets[512];
} fargs;

/* Appends --set kv to a->sets; -1 ok, else exit status. */
static int add_set(fargs *a, const char *kv) {
  size_t used = strlen(a->sets);
  if (strchr(kv, ' ') || !strchr(kv, '=') || used + strlen(kv) + 2 > sizeof a->sets) {
    cli_error("figure: --set '%s': expected one KEY=VALUE without blanks", kv);
    return CLI_EXIT_USAGE;
  }
  snprintf(a->sets + used, sizeof a->sets - used, "%s%s", used ? " " : "", kv);
  return -1;
}

static int parse_args(int argc, char **argv, fargs *a) {
  int rc = -1;
  for (int i = 1; i < argc && rc < 0; i++) {
    const char *v = NULL;
    int r;
    if ((r = cli_option_value("figure", argc, argv, &i, "out", &a->out)) != 0 ||
        (r = cli_option_value("figure", argc, argv, &i, "csv2", &a->csv2)) != 0 ||
        (r = cli_option_value("figure", argc, argv, &i, "scripts", &a->scripts)) != 0) {
      rc = r < 0 ? CLI_EXIT_USAGE : -1;
    } else if ((r = cli_option_value("figure", argc, argv, &i, "set", &v)) != 0) {
      rc = r < 0 ? CLI_EXIT_USAGE : add_set(a, v);
    } else if (strcmp(argv[i], "--force") == 0) {
      a->force = 1;
    } else if (argv[i][0] == '-') {
      cli_error("figure: unknown option '%s' (see 'lcplab figure --help')", argv[i]);
      rc = CLI_EXIT_USAGE;
    } else if (!a->kind || !a->csv) {
      *(a->kind ? &a->csv : &a->kind) = argv[i];
    } else {
      cli_error("figure: unexpected argument '%s'", argv[i]);
      rc = CLI_EXIT_USAGE;
    }
  }
  if (rc < 0 && (!a->csv || !a->out)) {
    cli_error("figure: expected KIND CSV --out BASE (see 'lcplab figure --help')");
    rc = CLI_EXIT_USAGE;
  }
  return rc;
}

/* The section the figure is drawn for; -1 ok, else exit status. */
static int section_of(const fargs *a, exp_section *s) {
  memset(s, 0, sizeof *s);
  int k = 0;
  while (k < EXP_KIND_COUNT && strcmp(exp_kind_str((exp_kind)k), a->kind) != 0) k++;
  if (k == EXP_KIND_COUNT || k == EXP_GRADIENTS ||
      k == EXP_FIDELITY) { /* gradients, fidelity: tables, no figure */
    cli_error("figure: unknown KIND '%s' (convergence, profile, scaling, drift, accuracy, scenes)",
              a->kind);
    return CLI_EXIT_USAGE;
  }
  s->kind = (exp_kind)k;
  snprintf(s->name, sizeof s->name, "%s", exp_basename(a->out));
  snprintf(s->figure, sizeof s->figure, "%s", a->figure);
  return -1;
}

int cli_cmd_figure(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  fargs a;
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &a);
  const char *paths[][2] = { { "figure: CSV", a.csv },
                             { "figure: --out", a.out },
                             { "figure: --csv2", a.csv2 },
                             { "figure: --scripts", a.scripts } };
  for (size_t k = 0; rc < 0 && k < sizeof paths / sizeof paths[0]; k++)
    if (paths[k][1] && exp_line_safe(cli_log(), paths[k][0], paths[k][1])) rc = CLI_EXIT_USAGE;
  if (rc < 0 && exp_figure_options(cli_log(), a.csv, a.sets, a.figure, sizeof a.figure) != 0)
    rc = CLI_EXIT_USAGE;
  if (rc < 0 && a.csv2 && access(a.csv2, R_OK) != 0) {
    cli_error("figure: --csv2 %s: cannot read", a.csv2);
    rc = CLI_EXIT_USAGE;
  }
  exp_section s;
  if (rc < 0) rc = section_of(&a, &s);
  if (rc >= 0) return rc;
  const char *scripts = cli_scripts_dir(a.scripts);
  char script[EXP_PATH_MAX + 64];
  snprintf(script, sizeof script, "%s/exp_%s.gp", scripts, a.kind);
  if (access(script, R_OK) != 0) {
    cli_error("figure: %s: cannot read (give --scripts DIR or set LCPLAB_EXPERIMENTS)", script);
    return CLI_EXIT_USAGE;
  }
  if (exp_figure_check(cli_log(), a.out, a.force, a.csv, a.csv2)) return CLI_EXIT_USAGE;
  int drawn = exp_figure_draw(cli_log(), &s, a.out, a.csv, a.csv2, scripts, exp_gnuplot_prog());
  return drawn == 0                        ? CLI_EXIT_OK
         : drawn == EXP_FIGURE_NOT_WRITTEN ? CLI_EXIT_USAGE
                                           : CLI_EXIT_NOCONV;
}
