/* cmd_solvers.c -- `lcplab solvers`: list the registered solvers.
 *
 *     lcplab solvers [--json] [--help]
 *
 * One line per solver of the libsolvers registry, in registry order:
 *
 *     NAME  CAPS  SUMMARY
 *
 * NAME is what `lcplab solve --solver` takes, CAPS what problems the solver
 * accepts (slv_solver_caps_str, e.g. "lcp box free findex dense"), SUMMARY
 * its one-line description.  Columns are separated by at least two spaces,
 * so `awk '{print $1}'` gives the names.  With --json: one JSON array, an
 * object per solver in registry order: name, accepts (CAPS's words),
 * summary, cite (its key in docs/references.bib), params (the constants and
 * rules it runs with by default, slv.h), and for a solver registered at run
 * time its origin (a plugin's path, python:NAME; docs/plugins.md).  The
 * plain listing leaves params
 * out: at up to ~150 characters a line it would wrap every row.  Exit 0; 2
 * on any other argument.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "slv.h"

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab solvers [--json]\n"
             "\n"
             "List the registered solvers, one per line: name, the problems it accepts,\n"
             "summary.  The name is what 'lcplab solve --solver NAME' takes.\n"
             "\n"
             "  --json   one JSON array instead: {name, accepts: [...], summary, cite,\n"
             "           params} each (params: its default constants and rules; a\n"
             "           plugin's solver also has origin, the plugin's path)\n");
}

/* "lcp box free" -> ["lcp","box","free"] */
static void print_words(FILE *f, const char *words) {
  char w[64];
  int first = 1;
  for (const char *c = words; *c;) {
    size_t k = strcspn(c, " ");
    if (k > 0 && k < sizeof w) {
      memcpy(w, c, k);
      w[k] = 0;
      fputs(first ? "" : ",", f);
      cli_json_string(f, w);
      first = 0;
    }
    c += k + (c[k] == ' ');
  }
}

/* The registry as one JSON array (the header). */
static int print_json(void) {
  char caps[256];
  fputc('[', stdout);
  for (int i = 0, first = 1; i < slv_solver_count(); i++) {
    const slv_solver *s = slv_solver_at(i);
    if (!s) continue;
    slv_solver_caps_str(s, caps, sizeof caps);
    fputs(first ? "{\"name\":" : ",\n{\"name\":", stdout);
    cli_json_string(stdout, s->name);
    fputs(",\"accepts\":[", stdout);
    print_words(stdout, caps);
    fputs("],\"summary\":", stdout);
    cli_json_string(stdout, s->summary);
    fputs(",\"cite\":", stdout);
    cli_json_string(stdout, s->cite);
    fputs(",\"params\":", stdout);
    cli_json_string(stdout, s->params ? s->params : "");
    if (slv_solver_origin(s)) { /* a registered solver: where it came from (docs/plugins.md) */
      fputs(",\"origin\":", stdout);
      cli_json_string(stdout, slv_solver_origin(s));
    }
    fputc('}', stdout);
    first = 0;
  }
  fputs("]\n", stdout);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    cli_error("solvers: cannot write to standard output");
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}

int cli_cmd_solvers(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (argc == 2 && strcmp(argv[1], "--json") == 0) return print_json();
  if (argc > 1) {
    if (argv[1][0] == '-')
      cli_error("solvers: unknown option '%s' (see 'lcplab solvers --help')", argv[1]);
    else
      cli_error("solvers: unexpected argument '%s' (see 'lcplab solvers --help')", argv[1]);
    return CLI_EXIT_USAGE;
  }

  /* Column widths from the data, so long names or capability lists stay
   * aligned without truncation. */
  int count = slv_solver_count();
  size_t wname = 4, wcaps = 4;
  char caps[256];
  for (int i = 0; i < count; i++) {
    const slv_solver *s = slv_solver_at(i);
    if (!s) continue;
    size_t len = strlen(s->name ? s->name : "");
    if (len > wname) wname = len;
    slv_solver_caps_str(s, caps, sizeof caps);
    len = strlen(caps);
    if (len > wcaps) wcaps = len;
  }
  for (int i = 0; i < count; i++) {
    const slv_solver *s = slv_solver_at(i);
    if (!s) continue;
    slv_solver_caps_str(s, caps, sizeof caps);
    printf("%-*s  %-*s  %s\n", (int)wname, s->name ? s->name : "", (int)wcaps, caps,
           s->summary ? s->summary : "");
  }
  return CLI_EXIT_OK;
}
