/* cmd_export.c -- `lcplab export`: run a named scene and write the
 * constraint problems of its steps (joint rows, then contact rows) as
 * instance files, for other tools.
 *
 *     lcplab export --scene NAME [--param k=v ...] --format dat|blcp|hdf5|mtx|lcplab
 *                   --out DIR [--steps K] [--every E] [--solver NAME] [--force] [--global]
 *                   [scene and world options as for simulate]
 *
 * The world is stepped exactly as `lcplab simulate` steps it (same options,
 * same defaults; --solver defaults to pgs, nsgs with --friction cone: a
 * solver that takes the friction model, named in a note on stderr).  After step k (k = 1..K) with
 * k mod E = 0 and at least one row, the problem that step solved,
 *     w = A x + b,  lo <= x <= hi, findex rows, Coulomb cones
 * (the joint rows of an articulated scene first: equality rows with lo =
 * -inf, hi = +inf, limit rows, motor rows boxed at +-F h; so a scene with
 * joints has rows at every step, and formats that take only lo = 0, hi =
 * +inf, such as a Siconos LCP .dat, refuse them),
 * is written to DIR/SCENE_stepKKKKKK.EXT through libsolvers' writer
 * (slv_write) -- EXT dat (Siconos: siconos-lcp for the frictionless LCP,
 * siconos-fc3d for cones), blcp, hdf5 (FCLIB, cones only), mtx (plus the
 * sidecars .b/.lo/.hi/.findex/.mu), lcp (lcplab) -- and the impulses the
 * world applied (the step's solution by that solver, started from the
 * warm-start guess unless --warm-start off; when the solve failed, what the
 * failure policy --on-failure picked) to DIR/SCENE_stepKKKKKK.x, one
 * value per line (%.17g).  Steps without rows are skipped.  One JSON
 * line per file goes to stdout (file, step, n, kind, status, applied:
 * solver, fallback:SOLVER, warm or zero, solution), and a last line with the
 * counts (written, skipped_empty).  A factored problem (a large scene) is
 * written as its explicit CSR, which every format holds.
 *
 * --global (with --format hdf5 or dat) also writes each step's problem in
 * the bodies' velocities (M v = H r + f, u = H' v + w; libexperiment/world_global.c):
 * FCLIB's /fclib_global to DIR/SCENE_stepKKKKKK.global.hdf5 beside the local
 * DIR/SCENE_stepKKKKKK.hdf5 (libfclib keeps one problem per file), or a
 * Siconos gfc3d .dat to SCENE_stepKKKKKK.global.dat; its condensation
 * H' M^-1 H, w + H' M^-1 f is the local file's W, q.  The
 * JSON line then names it ("global").  A step whose rows the global form
 * cannot hold (cfm > 0, joint rows) is refused with exit 2.
 *
 * A format that cannot hold the problem kind is refused by the writer
 * (e.g. box friction (findex rows) in a Siconos .dat, a problem without
 * cones in FCLIB, cones in .blcp): its message is passed on, exit 2.
 * DIR is created if missing (its parent must exist).  Without --force no
 * file that would be written may exist (all candidate names are checked
 * before the run).  Exit 0 done, 2 bad input or usage (one line on stderr),
 * 3 a step failed numerically (--on-failure keep or stop).
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
#include "dyn_world.h"
#include "slv.h"
#include "slv_io.h"

static void usage(FILE *f) {
  fprintf(f, "usage: lcplab export --scene NAME [--param KEY=VALUE ...] --format FMT --out DIR\n"
             "                     [--steps K] [--every E] [--force] [options]\n"
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
             "  --force             overwrite files that exist\n"
             "  --solver NAME       default pgs, or nsgs with --friction cone (noted on stderr)\n"
             "\n");
  cli_world_usage(f);
  fprintf(f, "\nexit status: 0 done, 2 bad input or usage (one line on stderr), 3 a step\n"
             "failed numerically (--on-failure keep or stop).\n");
}

typedef struct fmt_def {
  const char *name, *ext;
  slv_format fmt;
} fmt_def;

static const fmt_def formats[] = {
  { "dat", "dat", SLV_FMT_AUTO }, /* the writer picks the Siconos layout from the problem */
  { "blcp", "blcp", SLV_FMT_BLCP }, { "hdf5", "hdf5", SLV_FMT_FCLIB },
  { "mtx", "mtx", SLV_FMT_MTX },    { "lcplab", "lcp", SLV_FMT_LCPLAB },
};
enum { NFORMATS = (int)(sizeof formats / sizeof formats[0]) };

/* DIR/SCENE_stepKKKKKK.SUFFIX into buf; 0 if too long (after the message). */
static int out_name(char *buf, size_t len, const char *dir, const char *scene, long k,
                    const char *suffix) {
  int r = snprintf(buf, len, "%s/%s_step%06ld.%s", dir, scene, k, suffix);
  if (r < 0 || (size_t)r >= len) {
    cli_error("export: output path for step %ld is too long", k);
    return 0;
  }
  return 1;
}

/* The suffix of the global file beside a step's file of format fd, or
 * NULL when fd has no global form. */
static const char *global_sfx(const fmt_def *fd) {
  if (fd->fmt == SLV_FMT_FCLIB) return "global.hdf5";
  return strcmp(fd->name, "dat") == 0 ? "global.dat" : NULL;
}

/* 1 (after the message) if a file the export of step k would write exists. */
static int step_files_exist(const char *dir, const char *scene, long k, const fmt_def *fd,
                            int global) {
  static const char *const mtx_sfx[] = { "b", "lo", "hi", "findex", "mu" };
  char path[4096];
  const char *sfx[8];
  int ns = 0;
  sfx[ns++] = fd->ext;
  sfx[ns++] = "x";
  if (global) sfx[ns++] = global_sfx(fd);
  if (fd->fmt == SLV_FMT_MTX)
    for (int j = 0; j < 5; j++) sfx[ns++] = mtx_sfx[j];
  for (int j = 0; j < ns; j++) {
    if (!out_name(path, sizeof path, dir, scene, k, sfx[j])) return 1;
    if (exp_path_exists(path)) {
      cli_error("%s exists (use --force to overwrite)", path);
      return 1;
    }
  }
  return 0;
}

/* The global form of the world's last step (problem p, instance inst) to
 * gpath: 1, or 0 after the message. */
static int write_global(const dyn_world *w, const slv_problem *p, slv_instance *inst,
                        const char *gpath, long k) {
  char err[512] = "";
  slv_global *g = exp_world_global(w, p, err, sizeof err);
  if (!g) {
    cli_error("export: step %ld: %s", k, err);
    return 0;
  }
  inst->global = g;
  slv_status s = slv_write(gpath, SLV_FMT_AUTO, inst, err, sizeof err);
  inst->global = NULL;
  slv_global_free(g);
  if (s != SLV_OK) cli_error_lib(gpath, err);
  return s == SLV_OK;
}

/* The state of an export run between its steps. */
typedef struct export_state {
  const cli_world_args *wa;
  const fmt_def *fd;
  const char *dir;
  long every;
  int global;
  long written, empty;
  int rc; /* the exit status when the run stops early */
} export_state;

/* The JSON line of a written step. */
static void print_step_line(const char *path, const char *xpath, const char *gpath,
                            const exp_step *st, int n, const char *kind) {
  fputs("{\"file\":", stdout);
  cli_json_string(stdout, path);
  fprintf(stdout, ",\"step\":%ld,\"n\":%d,\"kind\":", st->k, n);
  cli_json_string(stdout, kind);
  fputs(",\"status\":", stdout);
  cli_json_string(stdout, st->status);
  fputs(",\"applied\":", stdout);
  cli_json_string(stdout, st->applied);
  fputs(",\"solution\":", stdout);
  cli_json_string(stdout, xpath);
  if (gpath) {
    fputs(",\"global\":", stdout);
    cli_json_string(stdout, gpath);
  }
  fputs("}\n", stdout);
}

/* Step k's problem (and its global form) and the impulses applied, to
 * files; 1, or 0 after the message. */
static int write_step(export_state *q, dyn_world *w, const exp_step *st, const slv_problem *p,
                      const double *x) {
  char path[4096], xpath[4096], gpath[4096], name[128], err[512] = "";
  const fmt_def *fd = q->fd;
  long k = st->k;
  if (!out_name(path, sizeof path, q->dir, q->wa->scene, k, fd->ext) ||
      !out_name(xpath, sizeof xpath, q->dir, q->wa->scene, k, "x") ||
      (q->global && !out_name(gpath, sizeof gpath, q->dir, q->wa->scene, k, global_sfx(fd))))
    return 0;
  snprintf(name, sizeof name, "%s_step%06ld", q->wa->scene, k);
  slv_instance *inst = exp_instance_of(p, name, 0);
  if (!inst) {
    cli_error("export: out of memory for the problem of step %ld (n=%d)", k, p->n);
    return 0;
  }
  slv_status s = slv_write(path, fd->fmt, inst, err, sizeof err);
  char kind[sizeof inst->kind];
  memcpy(kind, inst->kind, sizeof kind);
  if (s != SLV_OK) cli_error_lib(path, err);
  int ok = s == SLV_OK && (!q->global || write_global(w, p, inst, gpath, k));
  slv_instance_free(inst);
  if (!ok) return 0;
  err[0] = '\0';
  if (slv_write_vector(xpath, p->n, x, err, sizeof err) != SLV_OK) {
    cli_error_lib(xpath, err);
    return 0;
  }
  print_step_line(path, xpath, q->global ? gpath : NULL, st, p->n, kind);
  return 1;
}

/* One step of the run (exp_run_steps): every `every` steps, its problem
 * written (a step without rows counted as skipped). */
static int export_step(void *ctx, dyn_world *w, const exp_step *st) {
  export_state *q = ctx;
  if (st->err != DYN_OK) {
    cli_error("export: scene %s: %s", q->wa->scene, dyn_world_message(w));
    q->rc = st->err == DYN_ERR_NUMERIC ? CLI_EXIT_NOCONV : CLI_EXIT_USAGE;
    return 1;
  }
  if (st->k % q->every != 0) return 0;
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  if (p.n == 0) {
    q->empty++;
    return 0;
  }
  if (!write_step(q, w, st, &p, x)) {
    q->rc = CLI_EXIT_USAGE;
    return 1;
  }
  q->written++;
  return 0;
}

static int export_run(const cli_world_args *wa0, const char *fmt_name, const char *dir, long every,
                      int force, int global, dyn_world **wp) {
  cli_world_args wa = *wa0;
  if (!fmt_name) {
    cli_error("export: missing --format (dat, blcp, hdf5, mtx or lcplab)");
    return CLI_EXIT_USAGE;
  }
  const fmt_def *fd = NULL;
  for (int k = 0; k < NFORMATS; k++)
    if (strcmp(formats[k].name, fmt_name) == 0) fd = &formats[k];
  if (!fd) {
    cli_error("export: --format must be one of dat, blcp, hdf5, mtx, lcplab, got '%s'", fmt_name);
    return CLI_EXIT_USAGE;
  }
  if (!dir || !dir[0]) {
    cli_error("export: missing --out DIR");
    return CLI_EXIT_USAGE;
  }
  if (global && !global_sfx(fd)) {
    cli_error(
        "export: --global needs --format hdf5 (FCLIB) or dat (Siconos gfc3d), got --format %s",
        fmt_name);
    return CLI_EXIT_USAGE;
  }
  long K = 0;
  int rc = cli_world_build("export", &wa, wp, &K);
  if (rc >= 0) return rc;
  dyn_world *w = *wp;

  struct stat st;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      cli_error("%s exists and is not a directory", dir);
      return CLI_EXIT_USAGE;
    }
    if (!force)
      for (long k = every; k <= K; k += every)
        if (step_files_exist(dir, wa.scene, k, fd, global)) return CLI_EXIT_USAGE;
  } else if (mkdir(dir, 0777) != 0) {
    cli_error("%s: cannot create the directory: %s", dir, strerror(errno));
    return CLI_EXIT_USAGE;
  }

  export_state q = { &wa, fd, dir, every, global, 0, 0, 0 };
  rc = exp_run_steps(w, K, export_step, &q, NULL);
  if (rc != 0) return q.rc;
  long written = q.written, empty = q.empty;
  fputs("{\"scene\":", stdout);
  cli_json_string(stdout, wa.scene);
  fprintf(stdout, ",\"steps\":%ld,\"every\":%ld,\"format\":", K, every);
  cli_json_string(stdout, fd->name);
  fprintf(stdout, ",\"written\":%ld,\"skipped_empty\":%ld}\n", written, empty);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    cli_error("export: cannot write to standard output");
    return CLI_EXIT_USAGE;
  }
  cli_world_note_solver("export", &wa);
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
  int force = 0, global = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v = NULL;
    int r = cli_world_option("export", argc, argv, &i, &wa);
    if (r < 0) return CLI_EXIT_USAGE;
    if (r > 0) continue;
    if (strcmp(arg, "--force") == 0) {
      force = 1;
    } else if (strcmp(arg, "--global") == 0) {
      global = 1;
    } else if ((r = cli_option_value("export", argc, argv, &i, "format", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      fmt = v;
    } else if ((r = cli_option_value("export", argc, argv, &i, "out", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      dir = v;
    } else if ((r = cli_option_value("export", argc, argv, &i, "every", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!exp_parse_long(v, &every) || every < 1 || every > 1000000000L) {
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
  int rc = export_run(&wa, fmt, dir, every, force, global, &w);
  dyn_world_free(w);
  return rc;
}
