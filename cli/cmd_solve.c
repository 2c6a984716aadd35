/* cmd_solve.c -- `lcplab solve`: read one instance file, solve it with a
 * solver chosen by name, print one JSON object.
 *
 *     lcplab solve FILE [--solver NAME] [--tol T] [--allow-loose-tol] [--max-iter N]
 *                  [--time-limit S] [--repeat R]
 *                  [--omega W] [--opt NAME=VALUE]... [--norm inf|2] [--format FMT]
 *                  [--warm XFILE]
 *                  [--solution OUT] [--max-memory B] [--force] [--history] [--json]
 *                  [--sensitivity GX --gradient GOUT]
 *
 * The problem (sign convention w = A x + b):
 *     lo <= x <= hi;  x_i = lo_i => w_i >= 0;  x_i = hi_i => w_i <= 0;
 *     lo_i < x_i < hi_i => w_i = 0;   findex rows: bounds -+mu_i |x_j|.
 *
 * Steps, in this order, so that nothing is solved or written on bad input:
 *   1. parse the options strictly (options may come before or after FILE);
 *   2. find the solver in the registry; build and validate the options (a
 *      tol >= 1, the flag's or the file's, only with --allow-loose-tol:
 *      slv_tol_check);
 *   3. refuse an existing --solution OUT unless --force;
 *   4. read FILE (io_read, IO_FMT_AUTO unless --format), validate the
 *      problem, check that the solver accepts it (slv_solver_accepts);
 *   5. check that --solution's format can hold the problem (FCLIB: cones);
 *      read the --warm start (exactly n values: a plain vector, FCLIB's
 *      /solution/r or /guesses/1/r, or a ContactBench .npz's lam0);
 *   6. create the workspace, then solve R times, each repeat from the same
 *      start (zeros, or the --warm vector, copied fresh), timing only
 *      slv_solve with CLOCK_MONOTONIC (I/O and workspace creation excluded);
 *   6b. with --sensitivity GX --gradient GOUT: the gradients of <gx, x>
 *      on b, lo, hi, mu at the answer, as CSV (solve_gradient.c; GX read
 *      and checked in step 5, GOUT in step 3; an unconverged answer gets
 *      none);
 *   7. write --solution (x of the last repeat: %.17g one per line, "-" for
 *      stdout, the JSON then going to stderr; or by
 *      its extension .hdf5 / .h5 an FCLIB file with the problem, /solution
 *      and the --warm start as /guesses/1), print the JSON object.
 *
 * JSON fields, in this order: instance (FILE's base name), solver, kind, n,
 * status, iterations, time_s (median over the repeats), res_nat_inf,
 * res_rel, compl, infeas (all recomputed by the library from (A, b, lo, hi,
 * x)), then, for a problem with Coulomb cones (kind "cone"), cone_law (the
 * law the residuals and the solver refer to: "coulomb" = De Saxce, FCLIB;
 * "associated" = CCP), merit_fclib (FCLIB's MERIT_1, slv.h) and
 * ContactBench's criteria signorini, conic_compl, ncp_compl, dual_feas,
 * primal_feas, mdp_gap (docs/problem.md, "Contact metrics"), then
 * res_rel_2 (the natural map's 2-norm over max(1, ||b||_2)), then, for a
 * problem read from a global one (io_instance.global: FCLIB /fclib_global,
 * Siconos gfc3d .dat), ndof, v_norm_2 and u_norm_2 (the 2-norms of the
 * velocities v = M^-1 (H x + f) and u = H' v + w), res_vel (slv_velocity_
 * residual: the accuracy that does not depend on null(H)), read_s (the
 * wall time of reading the file, the condensation included) and condense_s
 * (the condensation alone), pivots,
 * solver_residual, solver_status (only when the solver's own status is not
 * the verdict: docs/convergence.md, "The verdict on the final iterate"),
 * time_min_s, repeat, tol, norm ("inf" or "2"), max_iter,
 * omega, warm_start, format, message (only when not converged, or with
 * solver_status) and history
 * (only with --history).  Numbers are %.17g (times %.6g); NaN and infinities
 * are null.
 *
 * A file that records the solve it came from (lcplab format, sections
 * 'solver' and 'options', e.g. a step written by simulate --dump-failures)
 * gives the defaults for that file: its solver when --solver is not given
 * (else auto, whose JSON adds chosen and choice: docs/solver-machinery.md, "auto"),
 * and its options (tol, max_iter, max_pivots, omega, norm, warm_start, ...)
 * where no flag sets them (--max-iter sets max_iter and max_pivots; --warm
 * sets warm_start).  The JSON then lists what it took from the file in
 * options_from_file, e.g. ["solver","max_iter","tol","warm_start"].
 *
 * Exit status: 0 converged; 3 the solver ran but did not converge (the JSON
 * is printed); 2 usage or input error (one line "lcplab: ..." on stderr, no
 * JSON), which includes a solver that refuses the problem kind.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "slv.h"
#include "io.h"

#define SOLVE_MAX_REPEAT 1000000L
#define SOLVE_MAX_OPTS   32

/* LCPLAB_NO_AVX2 set and not "" or "0": the library's opt.simd =
 * SLV_SIMD_OFF (pgs_wide without its AVX2 lanes, the path of a CPU without
 * them, to time it; the library itself reads no environment). */
static int simd_from_env(void) {
  const char *v = getenv("LCPLAB_NO_AVX2");
  return v && *v && strcmp(v, "0") != 0 ? SLV_SIMD_OFF : SLV_SIMD_AUTO;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: lcplab solve FILE [--solver NAME] [options]\n"
          "\n"
          "Read FILE (format from its extension, else its content), solve it and print\n"
          "one JSON object on stdout: instance, solver, kind, n, status, iterations,\n"
          "time_s (median solve time, I/O excluded), res_nat_inf, res_rel, compl, infeas,\n"
          "res_scaled (the test), siconos_err, err_siconos, res_rel_1q (the literature's), ...\n"
          "\n"
          "options (before or after FILE):\n"
          "  --solver NAME     solver to use (see 'lcplab solvers'); default: the one FILE\n"
          "                    names (a file written by simulate --dump-failures names\n"
          "                    its solver and options: they are the defaults for it),\n"
          "                    else auto (JSON: chosen, choice)\n"
          "  --tol T           converged iff res_scaled <= T, the scale-invariant test,\n"
          "                    and on a global problem res_global <= T too\n"
          "                    (docs/convergence.md; 0 < T < 1; default: library's)\n"
          "  --allow-loose-tol accept a tol >= 1 (--tol's or the file's), which x = 0\n"
          "                    meets after 0 iterations on every problem\n"
          "  --max-iter N      iteration / pivot limit (N >= 1; default: library's)\n"
          "  --time-limit S    stop each solve after S seconds (S > 0; default: none):\n"
          "                    status time_limit, the solver's iterate, exit 3\n"
          "  --omega W         relaxation (pgs: SOR factor in (0, 2))\n"
          "  --opt NAME=VALUE  any option of the library by name (repeatable, after the\n"
          "                    flags): e.g. ppa_nsn's prox_sigma, prox_nu, prox_grow,\n"
          "                    prox_inner_max, prox_outer_max (docs/cone-solvers.md)\n"
          "  --threads T       OpenMP threads (default 1): the CSR product,\n"
          "                    pjacobi_cone's contact steps, apgd, pgs_wide and\n"
          "                    pgs_color on a large factored problem; x is the same for\n"
          "                    every T (pgs_part: the same for a given T); admm and\n"
          "                    ipm (auto's choice for large cone problems) take about\n"
          "                    the same time on any T: their factorizations do not split\n"
          "  --norm inf|2      inf (default): the test above; 2: also res_rel_2 <= T,\n"
          "                    the 2-norm residual of Siconos and Acary et al. 2018\n"
          "  --repeat R        solve R times (1..1000000), report the median time\n"
          "  --format FMT      read FILE as FMT: siconos-lcp, siconos-mlcp, siconos-relay,\n"
          "                    siconos-fc3d, siconos-gfc3d, blcp, mtx, lcplab, fclib, npz,\n"
          "                    mat\n"
          "                    (default: auto)\n"
          "  --warm XFILE      start from XFILE: n values, one per line; an FCLIB .hdf5\n"
          "                    (its /solution/r, else /guesses/1/r); a ContactBench .npz (lam0)\n"
          "  --solution OUT    write x to OUT, one value per line (%%.17g); - : stdout (the\n"
          "                    JSON then goes to stderr); OUT.hdf5: an FCLIB\n"
          "                    file with the problem, /solution (r = x, u = w) and the\n"
          "                    --warm start as /guesses/1\n" CLI_MAX_MEMORY_USAGE
          "  --force           overwrite OUT if it exists\n"
          "  --history         add \"history\": the test's measure after each iteration\n"
          "  --sensitivity GX  with --gradient GOUT: the gradients of <gx, x> on b, lo, hi\n"
          "                    and mu at the answer (GX: the cotangent, n finite values)\n"
          "                    written to GOUT as CSV row,mode,gb,glo,ghi,gmu\n"
          "                    (docs/gradients.md); none for an unconverged answer\n"
          "  --json            accepted for compatibility (the output is always JSON)\n"
          "  --help            this text\n"
          "\n"
          "environment: LCPLAB_NO_AVX2=1 runs pgs_wide, pgs_color, pgs_part without AVX2\n"
          "lanes (the same iterates; to time that path).\n"
          "\n"
          "exit status: 0 converged, 3 did not converge (JSON still printed),\n"
          "2 bad input or usage (one line on stderr, no JSON).\n");
}

typedef struct solve_args {
  const char *file;
  const char *solver;
  const char *solution;
  const char *warm;
  const char *sensitivity; /* --sensitivity GX: the cotangent's file */
  const char *gradient;    /* --gradient GOUT */
  io_format format;
  io_read_options read; /* --max-memory */
  exp_solve_flags fl;   /* the flags over the file's record (exp_solve_options) */
  long repeat;
  int force;
  int allow_loose_tol; /* --allow-loose-tol: a tol >= 1 is not refused (slv_tol_check) */
  const char *opts[SOLVE_MAX_OPTS]; /* --opt NAME=VALUE, in order (applied last) */
  int nopts;
} solve_args;

/* "auto, siconos-lcp, ..." for messages. */
static void format_list(char *buf, size_t len) {
  buf[0] = '\0';
  size_t used = 0;
  for (int f = IO_FMT_AUTO; f <= IO_FMT_LAST; f++) {
    int k = snprintf(buf + used, len - used, "%s%s", f ? ", " : "", io_format_str((io_format)f));
    if (k < 0 || (size_t)k >= len - used) return;
    used += (size_t)k;
  }
}

/* "pgs, pjacobi, direct" for messages. */
static void solver_list(char *buf, size_t len) {
  buf[0] = '\0';
  size_t used = 0;
  int count = slv_solver_count();
  for (int i = 0; i < count; i++) {
    const slv_solver *s = slv_solver_at(i);
    if (!s || !s->name) continue;
    int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", s->name);
    if (k < 0 || (size_t)k >= len - used) return;
    used += (size_t)k;
  }
}

/* ---- the flags ------------------------------------------------------------------ */

/* Each flag with a value: v into a, checked.  -1 ok, else the exit status
 * after the message. */
typedef int (*flag_fn)(const char *v, solve_args *a);

static int flag_solver(const char *v, solve_args *a) {
  a->solver = v;
  a->fl.have_solver = 1;
  return -1;
}

static int flag_solution(const char *v, solve_args *a) {
  if (!v[0]) {
    cli_error("solve: --solution needs a file name");
    return CLI_EXIT_USAGE;
  }
  a->solution = v;
  return -1;
}

static int flag_warm(const char *v, solve_args *a) {
  if (!v[0]) {
    cli_error("solve: --warm needs a file name");
    return CLI_EXIT_USAGE;
  }
  a->warm = v;
  a->fl.warm = 1;
  return -1;
}

static int flag_sensitivity(const char *v, solve_args *a) {
  if (!v[0]) {
    cli_error("solve: --sensitivity needs a file name");
    return CLI_EXIT_USAGE;
  }
  a->sensitivity = v;
  return -1;
}

static int flag_gradient(const char *v, solve_args *a) {
  if (!v[0]) {
    cli_error("solve: --gradient needs a file name");
    return CLI_EXIT_USAGE;
  }
  a->gradient = v;
  return -1;
}

static int flag_tol(const char *v, solve_args *a) {
  if (slv_parse_double(v, SLV_PARSE_FINITE, &a->fl.tol) != SLV_PARSE_OK || !(a->fl.tol > 0)) {
    cli_error("solve: --tol must be a finite number > 0, got '%s'", v);
    return CLI_EXIT_USAGE;
  }
  a->fl.have_tol = 1;
  return -1;
}

static int flag_max_iter(const char *v, solve_args *a) {
  if (slv_parse_long(v, &a->fl.max_iter) != SLV_PARSE_OK || a->fl.max_iter < 1 ||
      a->fl.max_iter > INT_MAX) {
    cli_error("solve: --max-iter must be an integer between 1 and %d, got '%s'", INT_MAX, v);
    return CLI_EXIT_USAGE;
  }
  a->fl.have_max_iter = 1;
  return -1;
}

static int flag_time_limit(const char *v, solve_args *a) {
  if (slv_parse_double(v, SLV_PARSE_FINITE, &a->fl.time_limit) != SLV_PARSE_OK ||
      !(a->fl.time_limit > 0)) {
    cli_error("solve: --time-limit must be a finite number of seconds > 0, got '%s'", v);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int flag_repeat(const char *v, solve_args *a) {
  if (slv_parse_long(v, &a->repeat) != SLV_PARSE_OK || a->repeat < 1 ||
      a->repeat > SOLVE_MAX_REPEAT) {
    cli_error("solve: --repeat must be an integer between 1 and %ld, got '%s'", SOLVE_MAX_REPEAT,
              v);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int flag_norm(const char *v, solve_args *a) {
  a->fl.have_norm = 1;
  if (strcmp(v, "inf") == 0) {
    a->fl.norm = SLV_NORM_INF;
  } else if (strcmp(v, "2") == 0) {
    a->fl.norm = SLV_NORM_2;
  } else {
    cli_error("solve: --norm must be 'inf' or '2', got '%s'", v);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int flag_omega(const char *v, solve_args *a) {
  if (slv_parse_double(v, SLV_PARSE_FINITE, &a->fl.omega) != SLV_PARSE_OK) {
    cli_error("solve: --omega must be a finite number, got '%s'", v);
    return CLI_EXIT_USAGE;
  }
  a->fl.have_omega = 1;
  return -1;
}

static int flag_threads(const char *v, solve_args *a) {
  if (slv_parse_long(v, &a->fl.threads) != SLV_PARSE_OK || a->fl.threads < 1 ||
      a->fl.threads > SLV_THREADS_MAX) {
    cli_error("solve: --threads must be an integer between 1 and %d, got '%s'", SLV_THREADS_MAX, v);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int flag_max_memory(const char *v, solve_args *a) {
  if (!exp_parse_bytes(v, &a->read.max_memory)) {
    cli_error("solve: --max-memory must be a byte count > 0 (K, M, G, T: powers of 1024), "
              "got '%s'",
              v);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int flag_format(const char *v, solve_args *a) {
  int f = io_format_from_str(v);
  if (f < 0) {
    char list[256];
    format_list(list, sizeof list);
    cli_error("solve: unknown --format '%s' (one of: %s)", v, list);
    return CLI_EXIT_USAGE;
  }
  a->format = (io_format)f;
  return -1;
}

/* --opt NAME=VALUE: one of libsolvers' options by name (slv.h; e.g.
 * ppa_nsn's prox_sigma), its text checked by slv_options_set now, its range
 * by slv_options_validate with the others (choose). */
static int flag_opt(const char *v, solve_args *a) {
  const char *eq = strchr(v, '=');
  char name[64], err[384];
  if (!eq || eq == v || (size_t)(eq - v) >= sizeof name) {
    cli_error("solve: --opt expects NAME=VALUE (one of the library's options by name: "
              "docs/usage.md), got "
              "'%s'",
              v);
    return CLI_EXIT_USAGE;
  }
  memcpy(name, v, (size_t)(eq - v));
  name[eq - v] = '\0';
  slv_options scratch = slv_options_default();
  if (slv_options_set(&scratch, name, eq + 1, err, sizeof err) != SLV_OK) {
    cli_error("solve: --opt %s: %s", v, err);
    return CLI_EXIT_USAGE;
  }
  if (a->nopts >= SOLVE_MAX_OPTS) {
    cli_error("solve: at most %d --opt flags", SOLVE_MAX_OPTS);
    return CLI_EXIT_USAGE;
  }
  a->opts[a->nopts++] = v;
  return -1;
}

/* The --opt flags over opt, in order (each parsed by flag_opt already). */
static void apply_opts(const solve_args *a, slv_options *opt) {
  for (int k = 0; k < a->nopts; k++) {
    const char *v = a->opts[k], *eq = strchr(v, '=');
    char name[64];
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = '\0';
    slv_options_set(opt, name, eq + 1, NULL, 0);
  }
}

static const struct {
  const char *name;
  flag_fn set;
} value_flags[] = { { "opt", flag_opt },
                    { "solver", flag_solver },
                    { "solution", flag_solution },
                    { "warm", flag_warm },
                    { "sensitivity", flag_sensitivity },
                    { "gradient", flag_gradient },
                    { "tol", flag_tol },
                    { "max-iter", flag_max_iter },
                    { "time-limit", flag_time_limit },
                    { "repeat", flag_repeat },
                    { "norm", flag_norm },
                    { "omega", flag_omega },
                    { "threads", flag_threads },
                    { "max-memory", flag_max_memory },
                    { "format", flag_format } };

/* The flags without a value: 1 when arg is one (set in a), else 0. */
static int bare_flag(const char *arg, solve_args *a) {
  if (strcmp(arg, "--json") == 0) return 1;
  if (strcmp(arg, "--history") == 0) return a->fl.history = 1;
  if (strcmp(arg, "--force") == 0) return a->force = 1;
  if (strcmp(arg, "--allow-loose-tol") == 0) return a->allow_loose_tol = 1;
  return 0;
}

/* The option at argv[*i] (its value may be the next word: *i moves on).
 * -1 ok, else the exit status after the message. */
static int one_option(int argc, char **argv, int *i, solve_args *a) {
  const char *arg = argv[*i], *v = NULL;
  if (bare_flag(arg, a)) return -1;
  for (size_t k = 0; k < sizeof value_flags / sizeof value_flags[0]; k++) {
    int r = cli_option_value("solve", argc, argv, i, value_flags[k].name, &v);
    if (r < 0) return CLI_EXIT_USAGE;
    if (r > 0) return value_flags[k].set(v, a);
  }
  cli_error("solve: unknown option '%s' (see 'lcplab solve --help')", arg);
  return CLI_EXIT_USAGE;
}

/* Returns -1 on success (continue), else the exit status to return. */
static int parse_args(int argc, char **argv, solve_args *a) {
  memset(a, 0, sizeof *a);
  a->format = IO_FMT_AUTO;
  a->read = io_read_options_default();
  a->repeat = 1;
  a->fl.simd = simd_from_env();

  /* --help wins wherever it is (but not after "--", where it is a file). */
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }

  int options_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (options_done || arg[0] != '-' || arg[1] == '\0') {
      if (a->file) {
        cli_error("solve: unexpected argument '%s' (FILE is already '%s')", arg, a->file);
        return CLI_EXIT_USAGE;
      }
      a->file = arg;
    } else if (strcmp(arg, "--") == 0) {
      options_done = 1;
    } else {
      int rc = one_option(argc, argv, &i, a);
      if (rc >= 0) return rc;
    }
  }

  if (!a->file) {
    cli_error("solve: missing FILE (usage: lcplab solve FILE [--solver NAME] [options])");
    return CLI_EXIT_USAGE;
  }
  if (!a->sensitivity != !a->gradient) {
    cli_error("solve: --%s needs --%s", a->sensitivity ? "sensitivity GX" : "gradient GOUT",
              a->sensitivity ? "gradient GOUT" : "sensitivity GX");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* ---- the solve ------------------------------------------------------------------ */

/* Everything a solve allocates; released in one place (solve_free), so every
 * early return of solve_run leaks nothing. */
typedef struct solve_state {
  io_instance *inst;
  slv_workspace *ws;
  double *x0, *x, *w, *times;
  double *gx;    /* --sensitivity's cotangent */
  double read_s; /* wall time of io_read_with */
  exp_copy own;  /* a registered solver's copy of the problem (exp_problem_for) */
} solve_state;

static void solve_free(solve_state *s) {
  slv_workspace_free(s->ws);
  exp_copy_free(&s->own); /* after the workspace: a solver's free may still write it */
  io_instance_free(s->inst);
  free(s->times);
  free(s->gx);
  free(s->w);
  free(s->x);
  free(s->x0);
}

/* Step 2's first check: --solver names a registered solver.  -1 ok, else
 * the exit status. */
static int check_solver_flag(const solve_args *a) {
  if (a->solver && !slv_solver_find(a->solver)) {
    char list[256];
    solver_list(list, sizeof list);
    cli_error("solve: unknown solver '%s' (known: %s)", a->solver, list);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* Step 3: never overwrite an input, nor a file without --force.  -1 ok,
 * else the exit status. */
static int check_outputs(const solve_args *a) {
  if (cli_output_is_input(a->solution, a->file) || cli_output_is_input(a->solution, a->warm))
    return CLI_EXIT_USAGE;
  if (cli_output_refused(a->solution, a->force)) return CLI_EXIT_USAGE;
  if (a->gradient &&
      (cli_output_is_input(a->gradient, a->file) || cli_output_is_input(a->gradient, a->warm) ||
       cli_output_is_input(a->gradient, a->sensitivity) ||
       cli_output_is_input(a->gradient, a->solution) || cli_output_refused(a->gradient, a->force)))
    return CLI_EXIT_USAGE;
  return -1;
}

/* Step 4's reading: FILE into s->inst, timed (s->read_s).  -1 ok, else the
 * exit status. */
static int read_file(const solve_args *a, solve_state *s) {
  char err[512] = "";
  double r0 = exp_now_s();
  if (io_read_with(a->file, a->format, &a->read, &s->inst, err, sizeof err) != SLV_OK || !s->inst) {
    cli_error_lib(a->file, err);
    return CLI_EXIT_USAGE;
  }
  s->read_s = exp_now_s() - r0;
  return -1;
}

/* Step 2 and the rest of 4: the solver (the flag's, the file's, else auto),
 * the options, the problem validated and accepted by the solver.  -1 ok,
 * else the exit status. */
static int choose(const solve_args *a, const io_instance *inst, const slv_solver **solver,
                  slv_options *opt, slv_problem *prob) {
  char msg[512] = "";
  const char *name = a->solver ? a->solver : inst->solver[0] ? inst->solver : "auto";
  if (!(*solver = slv_solver_find(name))) {
    cli_error("%s: the file's solver '%s' is not a known solver (give --solver)", a->file, name);
    return CLI_EXIT_USAGE;
  }
  cli_guard_plugin(*solver);
  *opt = exp_solve_options(&a->fl, inst);
  apply_opts(a, opt);
  if (slv_options_validate(opt, msg, sizeof msg) != SLV_OK) {
    cli_error("solve: invalid options%s: %s", a->nopts ? " (--opt)" : "",
              msg[0] ? msg : "rejected by the library");
    return CLI_EXIT_USAGE;
  }
  if (slv_tol_check(opt->tol, a->allow_loose_tol, msg, sizeof msg) != SLV_OK) {
    if (a->fl.have_tol)
      cli_error("solve: --tol: %s; give --allow-loose-tol to run it anyway", msg);
    else
      cli_error("%s: the file's recorded tol: %s; give --tol, or --allow-loose-tol to run it",
                a->file, msg);
    return CLI_EXIT_USAGE;
  }
  *prob = io_instance_problem(inst);
  msg[0] = '\0';
  if (slv_problem_validate(prob, msg, sizeof msg) != SLV_OK) {
    cli_error("%s: invalid problem: %s", a->file, msg[0] ? msg : "rejected by the library");
    return CLI_EXIT_USAGE;
  }
  msg[0] = '\0';
  if (slv_solver_accepts(*solver, prob, msg, sizeof msg) != SLV_OK) {
    /* The library's message names the solver and the offending row. */
    if (msg[0])
      cli_error("%s: %s", a->file, msg);
    else
      cli_error("%s: solver %s cannot take this %s problem", a->file, (*solver)->name, inst->kind);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* Step 5: --solution's format can hold the problem (FCLIB: cones only);
 * the buffers and the start (zeros, or --warm).  -1 ok, else the exit
 * status. */
static int prepare_start(const solve_args *a, solve_state *s) {
  char err[512] = "";
  const io_instance *inst = s->inst;
  if (a->solution && io_can_write_solution(a->solution, inst, err, sizeof err) != SLV_OK) {
    cli_error_lib(a->solution, err);
    return CLI_EXIT_USAGE;
  }
  int n = inst->n;
  size_t nalloc = n > 0 ? (size_t)n : 1;
  s->x0 = calloc(nalloc, sizeof *s->x0);
  s->x = calloc(nalloc, sizeof *s->x);
  s->w = calloc(nalloc, sizeof *s->w);
  s->times = calloc((size_t)a->repeat, sizeof *s->times);
  if (!s->x0 || !s->x || !s->w || !s->times) {
    cli_error("%s: out of memory for n=%d, repeat=%ld", a->file, n, a->repeat);
    return CLI_EXIT_USAGE;
  }
  err[0] = '\0';
  if (a->warm && io_read_start(a->warm, n, s->x0, err, sizeof err) != SLV_OK) {
    cli_error_lib(a->warm, err);
    return CLI_EXIT_USAGE;
  }
  return a->sensitivity ? cli_gradient_read(a->sensitivity, n, &s->gx) : -1;
}

/* Step 6: the workspace, then the repeats (exp_solve_repeat: each from the
 * same start, copied fresh; only slv_solve timed).  -1 ok, else the exit
 * status. */
static int solve_timed(const solve_args *a, solve_state *s, const slv_solver *solver,
                       const slv_options *opt, const slv_problem *prob, slv_result *res,
                       exp_tsum *sum) {
  int n = s->inst->n;
  slv_status st = slv_workspace_new(solver, n > 0 ? n : 1, opt, &s->ws);
  if (st != SLV_OK || !s->ws) {
    cli_error("%s: cannot create the workspace of solver '%s' for n=%d: %s", a->file, solver->name,
              n, slv_status_str(st));
    return CLI_EXIT_USAGE;
  }
  memset(res, 0, sizeof *res);
  /* code the project did not write solves its own copy: the file's
   * arrays stay as read for what follows (the report, the global v) */
  const slv_problem *q = exp_problem_for(solver, prob, &s->own);
  if (!q) {
    cli_error("%s: out of memory for the solver's copy of the problem", a->file);
    return CLI_EXIT_USAGE;
  }
  st = exp_solve_repeat(s->ws, q, opt, s->x0, s->x, s->w, a->repeat, s->times, res, sum);
  if (st < 0) {
    /* Refused to run (unsupported kind, invalid data...): a bad-input error. */
    cli_error("%s: solver '%s' refused the problem (%s): %s", a->file, solver->name,
              slv_status_str(st), res->message[0] ? res->message : "no detail");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* Step 7: --solution, then the JSON object.  The exit status. */
static int write_answer(const solve_args *a, const solve_state *s, const slv_solver *solver,
                        const slv_options *opt, const slv_result *res, const exp_tsum *sum) {
  const io_instance *inst = s->inst;
  char err[512] = "";
  if (a->solution && io_write_solution(a->solution, inst, s->x, a->warm ? s->x0 : NULL, err,
                                       sizeof err) != SLV_OK) {
    cli_error_lib(a->solution, err);
    return CLI_EXIT_USAGE;
  }
  exp_solve_report rep = { .instance = exp_basename(a->file),
                           .solver = solver,
                           .inst = inst,
                           .opt = opt,
                           .res = res,
                           .flags = &a->fl,
                           .t_median = sum->median,
                           .t_min = sum->min,
                           .read_s = s->read_s,
                           .repeat = a->repeat };
  if (exp_solve_global(inst, s->x, &rep)) {
    cli_error("%s: out of memory for the velocities (ndof = %d)", a->file, inst->global->ndof);
    return CLI_EXIT_USAGE;
  }
  /* The history points into the workspace: written before it is freed;
   * stdout holds x with --solution -. */
  exp_solve_json(cli_is_stdout(a->solution) ? stderr : stdout, &rep);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    cli_error("solve: cannot write the result to standard output");
    return CLI_EXIT_USAGE;
  }
  return (res->status == SLV_CONVERGED) ? CLI_EXIT_OK : CLI_EXIT_NOCONV;
}

/* Steps 2..7 of the header; returns the exit status. */
static int solve_run(const solve_args *a, solve_state *s) {
  const slv_solver *solver = NULL;
  slv_options opt;
  slv_problem prob;
  slv_result res;
  exp_tsum sum;
  int rc;
  if ((rc = check_solver_flag(a)) >= 0 || (rc = check_outputs(a)) >= 0 ||
      (rc = read_file(a, s)) >= 0 || (rc = choose(a, s->inst, &solver, &opt, &prob)) >= 0 ||
      (rc = prepare_start(a, s)) >= 0 ||
      (rc = solve_timed(a, s, solver, &opt, &prob, &res, &sum)) >= 0)
    return rc;
  if (a->gradient && res.status != SLV_CONVERGED)
    cli_error("%s: no gradient: the answer did not converge (status %s)", a->gradient,
              slv_status_str(res.status));
  else if (a->gradient && cli_gradient_write(a->gradient, &prob, s->x, opt.tol, s->gx) != 0)
    return CLI_EXIT_USAGE;
  return write_answer(a, s, solver, &opt, &res, &sum);
}

int cli_cmd_solve(int argc, char **argv) {
  solve_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  solve_state s = { 0 };
  rc = solve_run(&a, &s);
  solve_free(&s);
  return rc;
}
