/* cmd_convert.c -- `lcplab convert`: rewrite an instance file in another
 * format.
 *
 *     lcplab convert IN OUT [--from FMT] [--to FMT] [--max-memory B] [--force]
 *
 * IN is read with io_read (format from --from, else its extension, else its
 * content); OUT is written with io_write in the format --to names, else the
 * one OUT's extension implies (io_format_for_path: .dat -> the Siconos
 * FC3D layout for a frictional-contact problem, else the LCP / MLCP / relay
 * layout that fits the bounds; .blcp, .mtx, .lcp; .hdf5 / .h5 -> FCLIB;
 * .npz -> ContactBench's G, g, mus, each contact permuted between
 * ContactBench's normal-last and lcplab's normal-first order).  OUT "-" is
 * the standard output: the lcplab format unless --to names another text
 * format (FCLIB, npz and MatrixMarket's sidecars are refused there).
 * The writers use %.17g (FCLIB, npz: binary doubles), so IN and the re-read OUT
 * are the same problem bit for bit (the sign change of .blcp, b = -b_ode,
 * is exact).  A global FCLIB problem is read condensed to its local form
 * (libio/io_fclib_read.c) and written as that.
 *
 * IN is read with the memory cap --max-memory (io_read_options.max_memory,
 * default 4 GiB): a file whose sizes need more is refused before anything
 * of that size is allocated.
 *
 * Nothing is written when: OUT exists and --force is not given (checked
 * before reading IN; for MatrixMarket also its sidecars STEM.b, .lo, .hi,
 * .findex, .mu), IN is unreadable or malformed, OUT's extension is
 * unknown and --to is not given, or the target format cannot hold the
 * problem (findex rows in a Siconos LCP file, an LCP in an FCLIB file,
 * cones in a .blcp...: the library's SLV_ERR_UNSUPPORTED message).  Each
 * gives one line "lcplab: ..." on stderr and exit status 2.  Success: exit
 * 0, nothing on stdout.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "slv.h"
#include "io.h"

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab convert IN OUT [--from FMT] [--to FMT] [--max-memory B] [--force]\n"
             "\n"
             "Read IN and write the same problem to OUT; OUT - writes to stdout (lcplab\n"
             "format unless --to names another text format).\n"
             "\n"
             "options (before or after IN OUT):\n"
             "  --from FMT   read IN as FMT (default: from its extension, then its content)\n"
             "  --to FMT     write OUT as FMT (default: from OUT's extension:\n"
             "               .dat siconos-gfc3d/fc3d/lcp/mlcp/relay, .blcp, .mtx, .lcp lcplab,\n"
             "               .hdf5 fclib, .npz ContactBench)\n"
             "  --max-memory B  refuse an IN whose sizes need more than B bytes in memory\n"
             "               (K, M, G, T: powers of 1024; default 4G)\n"
             "  --force      overwrite OUT if it exists\n"
             "  --help       this text\n"
             "\n"
             "formats: siconos-lcp, siconos-mlcp, siconos-relay, siconos-fc3d, siconos-gfc3d,\n"
             "         blcp, mtx, lcplab,\n"
             "         fclib, npz (ContactBench: G, g, mus, the normal last in each contact),\n"
             "         mat (MATLAB v5 or v7.3: M, q; read only)\n"
             "exit status: 0 written, 2 error (one line on stderr, nothing written).\n");
}

/* Parses the value of --from / --to; -1 (after the message) if unknown. */
static int parse_format(const char *opt, const char *v, io_format *out) {
  int f = io_format_from_str(v);
  if (f < 0) {
    cli_error("convert: unknown %s format '%s' (one of: siconos-lcp, siconos-mlcp, "
              "siconos-relay, siconos-fc3d, siconos-gfc3d, blcp, mtx, lcplab, fclib, npz, mat)",
              opt, v);
    return -1;
  }
  *out = (io_format)f;
  return 0;
}

/* The files beside OUT that the writer also writes (io_write_sidecar:
 * MatrixMarket's STEM.b, .lo, ...) may not be IN under another name, nor,
 * without --force, exist.  1 (after the message naming the first) if one is. */
static int sidecar_refused(const char *out, io_format to, const char *in, int force) {
  char path[4096];
  for (int k = 0; io_write_sidecar(out, to, k, path, sizeof path) == 1; k++) {
    if (cli_output_is_input(path, in)) return 1;
    if (!force && exp_path_exists(path)) {
      cli_error("%s exists (it would be written with %s; use --force to overwrite)", path, out);
      return 1;
    }
  }
  return 0;
}

int cli_cmd_convert(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  io_format from = IO_FMT_AUTO, to = IO_FMT_AUTO;
  io_read_options ropt = io_read_options_default();
  int force = 0;

  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }

  int options_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *v = NULL;
    int r;
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      if (!in) {
        in = arg;
      } else if (!out) {
        out = arg;
      } else {
        cli_error("convert: unexpected argument '%s' (IN and OUT are already given)", arg);
        return CLI_EXIT_USAGE;
      }
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      options_done = 1;
    } else if (strcmp(arg, "--force") == 0) {
      force = 1;
    } else if ((r = cli_option_value("convert", argc, argv, &i, "from", &v)) != 0) {
      if (r < 0 || parse_format("--from", v, &from) < 0) return CLI_EXIT_USAGE;
    } else if ((r = cli_option_value("convert", argc, argv, &i, "to", &v)) != 0) {
      if (r < 0 || parse_format("--to", v, &to) < 0) return CLI_EXIT_USAGE;
    } else if ((r = cli_option_value("convert", argc, argv, &i, "max-memory", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!exp_parse_bytes(v, &ropt.max_memory)) {
        cli_error("convert: --max-memory must be a byte count > 0 (K, M, G, T: powers of "
                  "1024), got '%s'",
                  v);
        return CLI_EXIT_USAGE;
      }
    } else {
      cli_error("convert: unknown option '%s' (see 'lcplab convert --help')", arg);
      return CLI_EXIT_USAGE;
    }
  }
  if (!in || !out) {
    cli_error("convert: missing %s (usage: lcplab convert IN OUT [options])", in ? "OUT" : "IN");
    return CLI_EXIT_USAGE;
  }

  if (to == IO_FMT_AUTO && !cli_is_stdout(out) && io_format_for_path(out) == IO_FMT_AUTO) {
    cli_error("%s: unknown extension, cannot choose the output format (use --to FMT)", out);
    return CLI_EXIT_USAGE;
  }
  if (cli_output_is_input(out, in) ||
      (!cli_is_stdout(out) && sidecar_refused(out, to, in, force)) ||
      cli_output_refused(out, force))
    return CLI_EXIT_USAGE;

  char err[512] = "";
  io_instance *inst = NULL;
  if (io_read_with(in, from, &ropt, &inst, err, sizeof err) != SLV_OK || !inst) {
    cli_error_lib(in, err);
    return CLI_EXIT_USAGE;
  }
  err[0] = '\0';
  slv_status st = io_write(out, to, inst, err, sizeof err);
  io_instance_free(inst);
  if (st != SLV_OK) {
    cli_error_lib(out, err);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
}
