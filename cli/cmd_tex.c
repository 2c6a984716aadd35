/* cmd_tex.c -- `lcplab tex`: the LaTeX form of texts, as the experiment
 * engine writes them into its tables (exp_tex_escape; experiments/README.md,
 * "Tables"), for the paper's generator (paper/gen.py) and any script that
 * puts the engine's names into LaTeX: one escaper, the library's.
 *
 *     lcplab tex TEXT...
 *
 * One line per TEXT: its LaTeX form (\ _ % & # $ { } ~ ^ < > | escaped,
 * control characters dropped).  Exit 0; 2 when a text is too long.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab tex TEXT...\n"
             "\n"
             "Print each TEXT's LaTeX form on a line, as the experiment tables write it\n"
             "(the paper's generator asks for the names it prints).\n");
}

int cli_cmd_tex(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  int first = 1;
  if (argc > 1 && strcmp(argv[1], "--") == 0) first = 2;
  for (int i = first; i < argc; i++) {
    char out[4096];
    if (exp_tex_escape(argv[i], out, sizeof out) != 0) {
      cli_error("tex: argument %d: longer than its LaTeX form may be (%zu bytes)", i,
                sizeof out - 1);
      return CLI_EXIT_USAGE;
    }
    printf("%s\n", out);
  }
  return CLI_EXIT_OK;
}
