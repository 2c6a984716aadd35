/* cmd_generate.c -- `lcplab generate`: one instance of a seeded family
 * (datasets/README.md, "Generated instances"), written in lcplab's format.
 *
 *     lcplab generate --type FAMILY --n N [--seed S] --out FILE [--force]
 *
 * The families and the file are libexperiment's (exp_generate_file,
 * libexperiment/generate.c); the `generate` lines of experiment files write
 * the same bytes for the same (FAMILY, N, S).  FILE appears whole or not at
 * all; an existing FILE is kept unless --force.
 *
 * Exit status: 0 written; 2 bad usage (unknown family, N out of range, S
 * not a number, FILE exists, its folder missing or read-only) or a write
 * error (a full disk: the old FILE kept), as every writer (docs/lcplab.1,
 * EXIT STATUS); 3 out of memory building the instance.  One line
 * "lcplab: ..." on stderr for each error.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f) {
  char list[256] = "";
  size_t used = 0;
  for (const char *const *fam = exp_generate_families(); *fam && used < sizeof list; fam++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? " " : "", *fam);
  fprintf(f,
          "usage: lcplab generate --type FAMILY --n N [--seed S] --out FILE [--force]\n"
          "\n"
          "Write one instance of a seeded family in lcplab's text format (.lcp), with\n"
          "its planted solution where it has one (datasets/README.md, \"Generated\n"
          "instances\"); the same FAMILY, N and S give the same file.\n"
          "\n"
          "  --type FAMILY  %s\n"
          "  --n N          rows: 1..%d (sparse-*: up to %d; the findex families at\n"
          "                 least 3, rounded down to a multiple of 3)\n"
          "  --seed S       the generator's seed, a non-negative integer (default 1)\n"
          "  --out FILE     the file to write (its folder must exist)\n"
          "  --force        replace FILE if it exists\n"
          "\n"
          "exit status: 0 written, 2 bad input or usage or a write error, 3 out of memory.\n",
          list, EXP_GEN_MAX_N, EXP_GEN_MAX_N_SPARSE);
}

typedef struct args {
  const char *type, *out;
  long n, seed;
  int force;
} args;

/* The value of --n / --seed into *v: 0, or -1 after the message. */
static int number_arg(const char *opt, const char *s, long *v) {
  if (slv_parse_long(s, v) == SLV_PARSE_OK && *v >= 0) return 0;
  cli_error("generate: %s must be a non-negative integer, got '%s'", opt, s);
  return -1;
}

/* Parses argv into a: -1 ok, else the exit status after the message. */
static int parse_args(int argc, char **argv, args *a) {
  memset(a, 0, sizeof *a);
  a->n = -1;
  a->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int r;
    if (strcmp(argv[i], "--force") == 0) {
      a->force = 1;
    } else if ((r = cli_option_value("generate", argc, argv, &i, "type", &a->type)) != 0 ||
               (r = cli_option_value("generate", argc, argv, &i, "out", &a->out)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
    } else if ((r = cli_option_value("generate", argc, argv, &i, "n", &v)) != 0) {
      if (r < 0 || number_arg("--n", v, &a->n) < 0) return CLI_EXIT_USAGE;
    } else if ((r = cli_option_value("generate", argc, argv, &i, "seed", &v)) != 0) {
      if (r < 0 || number_arg("--seed", v, &a->seed) < 0) return CLI_EXIT_USAGE;
    } else {
      cli_error("generate: unknown argument '%s' (see 'lcplab generate --help')", argv[i]);
      return CLI_EXIT_USAGE;
    }
  }
  if (!a->type || a->n < 0 || !a->out || !a->out[0]) {
    cli_error("generate: --type, --n and --out are required (see 'lcplab generate --help')");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

int cli_cmd_generate(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  char err[1024] = "";
  rc = exp_generate_file(a.type, a.n, (unsigned long)a.seed, a.out, a.force, err, sizeof err);
  if (rc != EXP_EXIT_OK) cli_error("generate: %s", err);
  return rc;
}
