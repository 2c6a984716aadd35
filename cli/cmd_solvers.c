/* cmd_solvers.c -- `lcplab solvers`: list the registered solvers.
 *
 *     lcplab solvers [--help]
 *
 * One line per solver of the libsolvers registry, in registry order:
 *
 *     NAME  CAPS  SUMMARY
 *
 * NAME is what `lcplab solve --solver` takes, CAPS what problems the solver
 * accepts (slv_solver_caps_str, e.g. "lcp box free findex dense"), SUMMARY
 * its one-line description.  Columns are separated by at least two spaces,
 * so `awk '{print $1}'` gives the names.  Exit 0; 2 on any argument.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "slv.h"

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab solvers\n"
             "\n"
             "List the registered solvers, one per line: name, the problems it accepts,\n"
             "summary.  The name is what 'lcplab solve --solver NAME' takes.\n");
}

int cli_cmd_solvers(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
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
