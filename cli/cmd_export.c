/* cmd_export.c -- `lcplab export`: run a named scene and write the
 * constraint problems of its steps (joint rows, then contact rows) as
 * instance files, for other tools.
 *
 *     lcplab export --scene NAME [--param k=v ...] --format dat|blcp|hdf5|mtx|lcplab
 *                   --out DIR [--steps K] [--every E] [--solver NAME] [--force] [--global]
 *                   [scene and world options as for simulate]
 *     lcplab export --model FILE ... (a scene model file, cli_model.c: SCENE in the
 *                   file names is FILE's name without folder and extension)
 *
 * The world is stepped exactly as `lcplab simulate` steps it (same options,
 * same defaults; --solver defaults to dyn_world_default_solver's: pgs, nsgs
 * with --friction cone, lemke with pyramid, auto in reduced coordinates
 * without cones: a solver that takes the friction model, named in a note
 * on stderr).  After step k (k = 1..K) with
 * k mod E = 0 and at least one row, the problem that step solved,
 *     w = A x + b,  lo <= x <= hi, findex rows, Coulomb cones
 * (the joint rows of an articulated scene first: equality rows with lo =
 * -inf, hi = +inf, limit rows, motor rows boxed at +-F h; so a scene with
 * joints has rows at every step, and formats that take only lo = 0, hi =
 * +inf, such as a Siconos LCP .dat, refuse them),
 * is written to DIR/SCENE_stepKKKKKK.EXT through libsolvers' writer
 * (io_write) -- EXT dat (Siconos: siconos-lcp for the frictionless LCP,
 * siconos-fc3d for cones), blcp, hdf5 (FCLIB, cones only), mtx (plus the
 * sidecars .b/.lo/.hi/.findex/.mu), lcp (lcplab) -- and the impulses the
 * world applied (the step's solution by that solver, started from the
 * warm-start guess unless --warm-start off; when the solve failed, what the
 * failure policy --on-failure picked) to DIR/SCENE_stepKKKKKK.x, one
 * value per line (%.17g).  Steps without rows are skipped.  One JSON
 * line per file goes to stdout (file, step, n, kind, status, applied:
 * solver, fallback:SOLVER, warm or zero, solution), and a last line with the
 * counts (written, skipped_empty), the run's gravity and its overrides
 * (dt, gravity given over the model's: cli_json_model_settings).  A
 * factored problem (a large scene) is
 * written as its explicit CSR, which every format holds.
 *
 * --global (with --format hdf5 or dat) also writes each step's problem in
 * the bodies' velocities (M v = H r + f, u = H' v + w; dyn_world_global_new):
 * FCLIB's /fclib_global to DIR/SCENE_stepKKKKKK.global.hdf5 beside the local
 * DIR/SCENE_stepKKKKKK.hdf5 (libfclib keeps one problem per file), or a
 * Siconos gfc3d .dat to SCENE_stepKKKKKK.global.dat; its condensation
 * H' M^-1 H, w + H' M^-1 f is the local file's W, q.  The
 * JSON line then names it ("global").  A step whose rows the global form
 * cannot hold (cfm > 0, joint rows; but see --condense-joints) is refused
 * with exit 2.
 *
 * --condense-joints writes, for a step with joint rows, the contact rows'
 * problem alone: the joint rows condensed at the step's answer (the
 * equality rows, the limits that push and the motors below their force
 * eliminated by a Schur complement, the other limit and motor rows fixed at
 * their bound: slv_condense_rows), exact at that active set; .x holds the
 * contact rows' impulses, and an FCLIB file's title says so
 * (docs/models.md, "Joint rows condensed").  A step with joint rows and no
 * contact row is skipped, counted as empty.  With --global the global
 * form of those contact rows (dyn_world_global_condensed_new): springs
 * folded into M, hard joint rows removed by a null-space basis, so that v
 * holds those coordinates, not the bodies' velocities (the FCLIB title says
 * so); condensed, it is the local file's W and q.
 *
 * A format that cannot hold the problem kind is refused by the writer
 * (e.g. box friction (findex rows) in a Siconos .dat, a problem without
 * cones in FCLIB, cones in .blcp): its message is passed on, exit 2.
 * DIR is created if missing (its parent must exist).  Without --force no
 * file that would be written may exist (all candidate names are checked
 * before the run).  Exit 0 done, 2 bad input or usage (one line on stderr),
 * 3 a step failed numerically (--on-failure keep or stop, or a failed
 * step whose replacement breaks the energy rule; docs/dynamics.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cli.h"
#include "dyn_run.h"
#include "dyn_world.h"
#include "slv.h"
#include "io.h"

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab export --scene NAME [--param KEY=VALUE ...] --format FMT --out DIR\n"
             "                     [--steps K] [--every E] [--force] [options]\n"
             "       lcplab export --model FILE --format FMT --out DIR [...]\n"
             "\n"
             "Run a scene and write the problem (joint, then contact rows) of every E-th step\n"
             "that has rows to DIR/SCENE_stepKKKKKK.EXT, and the impulses the world applied\n"
             "to .x beside it.\n"
             "\n"
             "  --format FMT        dat (Siconos LCP / FC3D), blcp, hdf5 (FCLIB, cones only),\n"
             "                      mtx (MatrixMarket + sidecars), lcplab (.lcp)\n"
             "  --out DIR           output directory (created if missing)\n"
             "  --every E           export every E-th step (default 1)\n"
             "  --global            with --format hdf5 or dat: also the global problem (M, H,\n"
             "                      f, w) of each step to SCENE_stepKKKKKK.global.EXT\n"
             "  --condense-joints   the contact rows alone: the joint rows condensed at the\n"
             "                      step's answer (exact at its active set; docs/models.md),\n"
             "                      for formats and peers that hold contacts only; with\n"
             "                      --global also their global form (v: null-space coordinates)\n"
             "  --force             overwrite files that exist\n"
             "  --solver NAME       default pgs, nsgs with --friction cone, lemke with\n"
             "                      pyramid, auto in reduced coordinates without cones\n"
             "                      (noted on stderr)\n"
             "\n");
  cli_world_usage(f);
  fprintf(f, "\nexit status: 0 done, 2 bad input or usage (one line on stderr), 3 a step\n"
             "failed numerically (--on-failure keep or stop, or a failed step whose\n"
             "replacement breaks the energy rule).\n");
}

/* The state of an export run between its steps. */
typedef struct export_state {
  const cli_world_args *wa;
  exp_export out;
  long every;
  long written, empty;
  int rc; /* the exit status when the run stops early */
} export_state;

/* One step of the run (dyn_world_run): every `every` steps, its problem
 * written (a step without rows counted as skipped). */
static int export_step(void *ctx, dyn_world *w, const dyn_run_step *st) {
  export_state *q = ctx;
  if (st->err != DYN_OK) {
    cli_error("export: scene %s: %s", cli_world_name(q->wa), dyn_world_message(w));
    q->rc = st->err == DYN_ERR_NUMERIC ? CLI_EXIT_NOCONV : CLI_EXIT_USAGE;
    return 1;
  }
  if (st->k % q->every != 0) return 0;
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  if (p.n == 0 || (q->out.condense && st->m.joint_rows >= p.n)) { /* no contact row to keep */
    q->empty++;
    return 0;
  }
  if (!exp_export_step(&q->out, w, st, &p, x, stdout)) {
    q->rc = CLI_EXIT_USAGE;
    return 1;
  }
  q->written++;
  return 0;
}

static int export_run(const cli_world_args *wa0, const char *fmt_name, const char *dir, long every,
                      int force, int global, int condense, dyn_world **wp) {
  cli_world_args wa = *wa0;
  int f = exp_export_format(cli_log(), fmt_name, global);
  if (f < 0) return CLI_EXIT_USAGE;
  if (!dir || !dir[0]) {
    cli_error("export: missing --out DIR");
    return CLI_EXIT_USAGE;
  }
  long K = 0;
  int rc = cli_world_build("export", &wa, wp, &K);
  if (rc >= 0) return rc;
  dyn_world *w = *wp;
  export_state q = { &wa, { dir, cli_world_name(&wa), f, global, cli_log(), condense }, every, 0, 0,
                     0 };

  if (exp_export_joint_rows_refused(&q.out, w)) return CLI_EXIT_USAGE;
  exp_inputs in;
  if (cli_world_inputs(&wa, &in) != 0) return CLI_EXIT_USAGE;
  for (long k = every; k <= K && rc < 0; k += every)
    if (exp_export_step_is_input(&q.out, k, &in)) rc = CLI_EXIT_USAGE;
  exp_inputs_free(&in);
  if (rc >= 0) return rc;
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      cli_error("%s exists and is not a directory", dir);
      return CLI_EXIT_USAGE;
    }
    if (!force)
      for (long k = every; k <= K; k += every)
        if (exp_export_step_exists(&q.out, k)) return CLI_EXIT_USAGE;
  } else if (mkdir(dir, 0777) != 0) {
    cli_error("%s: cannot create the directory: %s", dir, strerror(errno));
    return CLI_EXIT_USAGE;
  }

  rc = dyn_world_run(w, K, export_step, &q, NULL);
  if (rc != 0) return q.rc;
  long written = q.written, empty = q.empty;
  fputs("{\"scene\":", stdout);
  cli_json_string(stdout, cli_world_name(&wa));
  fprintf(stdout, ",\"steps\":%ld,\"every\":%ld,\"format\":", K, every);
  cli_json_string(stdout, exp_export_format_name(f));
  cli_json_model_settings(stdout, dyn_world_get_settings(w));
  fprintf(stdout, ",\"written\":%ld,\"skipped_empty\":%ld}\n", written, empty);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    cli_error("export: cannot write to standard output");
    return CLI_EXIT_USAGE;
  }
  cli_world_note_solver("export", &wa, w);
  return CLI_EXIT_OK;
}

int cli_cmd_export(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  cli_world_args wa;
  cli_world_args_init(&wa);
  const char *fmt = NULL, *dir = NULL;
  long every = 1;
  int force = 0, global = 0, condense = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v = NULL;
    int r = cli_world_option("export", argc, argv, &i, &wa);
    if (r < 0) return CLI_EXIT_USAGE;
    if (r > 0) continue;
    if (strcmp(arg, "--force") == 0) {
      force = 1;
    } else if (strcmp(arg, "--global") == 0) {
      global = 1;
    } else if (strcmp(arg, "--condense-joints") == 0) {
      condense = 1;
    } else if ((r = cli_option_value("export", argc, argv, &i, "format", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      fmt = v;
    } else if ((r = cli_option_value("export", argc, argv, &i, "out", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      dir = v;
    } else if ((r = cli_option_value("export", argc, argv, &i, "every", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (slv_parse_long(v, &every) != SLV_PARSE_OK || every < 1 || every > 1000000000L) {
        cli_error("export: --every must be an integer between 1 and 1000000000, got '%s'", v);
        return CLI_EXIT_USAGE;
      }
    } else if (arg[0] == '-') {
      cli_error("export: unknown option '%s' (see 'lcplab export --help')", arg);
      return CLI_EXIT_USAGE;
    } else {
      cli_error("export: unexpected argument '%s' (see 'lcplab export --help')", arg);
      return CLI_EXIT_USAGE;
    }
  }
  dyn_world *w = NULL;
  int rc = export_run(&wa, fmt, dir, every, force, global, condense, &w);
  dyn_world_free(w);
  return rc;
}
