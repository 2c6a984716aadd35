/* cmd_simulate.c -- `lcplab simulate`: run a named scene (libdynamics'
 * dyn_world) and write its per-step metrics as CSV; also the scene/world
 * options that `lcplab export` shares (cli.h: cli_world_*).
 *
 *     lcplab simulate --scene NAME [--param k=v ...] [--solver NAME] [--csv FILE]
 *                     [--steps K] [--dt H] [--friction none|box|pyramid|cone]
 *                     [--integrator symplectic|explicit|verlet]
 *                     [--gyro none|explicit|implicit] [--trace FILE]
 *                     [--on-failure fallback|best|keep|stop]
 *                     [--dump-failures DIR] [--force] ...
 *
 * Each step of the world (libdynamics/world_step.c) is: collision, contact
 * rows, w = A x + b assembled (dense, CSR or factored), solved by the named
 * solver, the solve judged (a failed one goes to the failure policy,
 * --on-failure; docs/dynamics.md, "The world step"), impulses applied,
 * positions integrated.  The CSV has a header row and one row per step
 * k = 1..K, the columns DYN_METRICS_SIMULATE of libdynamics' one table of
 * per-step metrics (dyn_run.h; their text dyn_metric_text):
 *     step, t, kinetic, potential, energy, max_penetration, contacts, rows,
 *     iterations, res_nat_inf, solve_time_s, joint_error, status, applied,
 *     energy_excess
 * (t = k H after the step; energies after the step, potential m g z with the
 * floor at z = 0; max_penetration = the deepest contact found at the start
 * of the step; res_nat_inf = the library's natural-map residual of the
 * step's solve; solve_time_s = wall time of slv_solve alone; joint_error =
 * the largest anchor separation of the scene's joints after the step, m,
 * dyn_joint_anchor_error; 0 for scenes without joints; status = the
 * solver's slv_status, "converged" for a step without rows; applied = the
 * impulses the step applied: solver, fallback:SOLVER (the fallback's x),
 * warm (the warm start), zero (no impulse) or none (no rows); energy_excess =
 * the kinetic energy the solver's impulses add beyond the stabilisation's
 * work, J, <= 0 for an exact answer, the step failed above tol times its
 * scale: docs/dynamics.md, "The per-step energy bound").  rows counts
 * the joint rows too (they come first in each step's problem).  Only
 * solve_time_s depends on the run: the same command gives the same CSV and
 * trace byte for byte otherwise (tests/test_simulate.sh).  --trace FILE
 * writes one row per step and dynamic body:
 *     step, t, body, x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz
 * (body = its index in the scene, dynamic bodies first).  Numbers are %.17g,
 * times %.6g.  Without --csv no CSV is written (the summary alone); FILE "-"
 * (--csv or --trace, not both) is the standard output, and the summary
 * then goes to stderr.  Without --solver the world gets pgs, nsgs with
 * --friction cone, auto in reduced coordinates without cones
 * (cli_world_default_solver), and a note on stderr says so after the run.  On a terminal, a progress line on stderr from one second
 * into the run (LCPLAB_PROGRESS, cli.h).  At the end one JSON object goes to
 * stdout: scene, solver,
 * friction, steps, dt, gravity ([x,y,z]), overrides (of dt and gravity,
 * those given over the scene's or the model file's: dyn_world_settings_for_model),
 * max_iter, threads (--threads: the world's and the
 * solves' opt.threads), threaded_solves (the solves that did run on those threads:
 * pgs_wide's, pgs_color's or pgs_part's plan split, a large world; docs/solver-machinery.md,
 * "Threads"), omega, margin, warm_factor, slop, bodies, contacts_mean
 * (all steps), contacts_mean_timed (the last 80 %), contacts_max,
 * not_converged (steps whose solve did not converge), energy_start, energy_end, kinetic_end,
 * max_penetration_end (an extra collision pass on the final state, as the
 * peers do), max_body_displacement (the largest |r_end - r_start| of a
 * body, the peers' field), max_settled_displacement (the largest
 * |r_end - r_rest| of a dynamic body, r_rest its position with the scene's
 * start gaps closed (the scene model's, dyn_model_rest_positions): stack and pyramid start
 * each layer gz = 1 mm above the one below, so an intact pyramid of L
 * layers has max_body_displacement ~ L mm and this field ~ 0, while a box
 * that slid or fell shows; r_rest = r_start in the other scenes, where the
 * two fields are equal), joints (the model's number, in reduced coordinates too,
 * where they are coordinates), joint_error_max (the largest
 * joint_error of the run), time_step_median_s, time_step_mean_s, time_collide_mean_s,
 * time_solve_mean_s, time_stage_mean_s (each stage of the step by its name,
 * dyn_world_stage_name with "_" for " ": prepare, collide, build_rows,
 * assemble, solve, judge, apply, integrate, metrics; their sum is at most
 * the step's) (over the last 80 % of the steps, the peers' rule),
 * wall_total_s, on_failure (the policy), failed_steps (steps that failed:
 * their solve, or the integrator's energy rule), failed_energy_steps (of
 * those, the steps failed by the per-step energy bound: docs/dynamics.md,
 * "The per-step energy bound"), failed_integrator_steps (of those, the
 * steps failed by the integrator's energy rule, "The integrator's energy
 * rule": under --on-failure fallback or best applied and counted, with a
 * note on stderr),
 * status_counts (steps per status, e.g. {"converged":9,
 * "singular_pivot":487}), applied_counts (steps per applied candidate, e.g.
 * {"solver":7,"fallback:pgs":591}) and, with --dump-failures, dumped.
 *
 * --dump-failures DIR writes each failed step's problem (DIR/stepN.lcp, in
 * the storage the solver got, with the solver's name and options), its
 * warm start (DIR/stepN.warm) and the solver's x (DIR/stepN.x): `lcplab
 * solve DIR/stepN.lcp --warm DIR/stepN.warm` repeats the solve bit for bit
 * (dump_solve.c).  DIR is made if missing; step files already there are
 * refused without --force.
 *
 * Exit status: 0 the run completed (steps whose solver did not converge are
 * counted in the JSON, not an error: pgs at 50 sweeps rarely meets 1e-8);
 * 2 bad input or usage -- unknown scene or key, a bad value (mu < 0,
 * dt <= 0, a negative mass...), an existing --csv / --trace FILE without
 * --force, --csv and --trace naming one file (by device and inode), a
 * solver that refuses the scene's problem kind (e.g. pgs with --friction
 * cone), a write that fails (a full disk) -- with one line "lcplab: ..." on
 * stderr; the CSV and the trace are written under temporary names and
 * renamed over FILE only once complete (docs/io.md, "Replacing files"), so
 * then FILE is as it was (also when the refusal comes at a later step, e.g.
 * enum once the rows pass 16);
 * 3 a step failed numerically (--on-failure stop, or keep with an x worse
 * than no impulse, or under any policy a failed step whose replacement --
 * the fallback's budget stop, the warm start or no impulse -- breaks the
 * energy rule; libdynamics/world_judge.c): the message names the
 * step, the CSV and trace keep the rows of the steps before it (and the
 * failed step is dumped with --dump-failures), and no JSON is written.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cli.h"
#include "dyn_run.h"
#include "dyn_world.h"
#include "slv.h"
#include "io.h"
#include "mdl.h"

/* ---- shared scene / world options ----------------------------------------------- */

void cli_world_args_init(cli_world_args *a) {
  memset(a, 0, sizeof *a);
  a->reduced = MDL_COORDINATES_FILE; /* a model file's own representation */
  a->set = dyn_world_settings_default();
}

int cli_world_option(const char *cmd, int argc, char **argv, int *i, cli_world_args *a) {
  const char *arg = argv[*i], *v = NULL;
  if (strncmp(arg, "--", 2) != 0) return 0;
  if (!strcmp(arg, "--approximate")) {
    a->approximate = 1;
    return 1;
  }
  int cr = cli_option_value(cmd, argc, argv, i, "coordinates", &v);
  if (cr != 0) {
    if (cr > 0 && (!strcmp(v, "reduced") || !strcmp(v, "maximal"))) {
      a->reduced = !strcmp(v, "reduced");
      return 1;
    }
    if (cr > 0) cli_error("%s: --coordinates must be reduced or maximal, got '%s'", cmd, v);
    return -1;
  }
  int cc = cli_option_value(cmd, argc, argv, i, "ctrl", &v);
  if (cc != 0) {
    if (cc > 0) a->ctrl = v;
    return cc > 0 ? 1 : -1;
  }
  int mr = cli_option_value(cmd, argc, argv, i, "max-memory", &v);
  if (mr != 0) {
    if (mr > 0 && exp_parse_bytes(v, &a->max_memory)) return 1;
    if (mr > 0)
      cli_error("%s: --max-memory must be a byte count > 0 (K, M, G, T: powers of 1024), got '%s'",
                cmd, v);
    return -1;
  }
  char key[64];
  size_t n = strcspn(arg + 2, "=");
  if (n == 0 || n >= sizeof key) return 0;
  memcpy(key, arg + 2, n);
  key[n] = '\0';
  int scene_key = !strcmp(key, "scene") || !strcmp(key, "param") || !strcmp(key, "steps") ||
                  !strcmp(key, "model");
  char err[640] = "";
  if (!scene_key && !dyn_world_settings_is_key(key)) return 0;
  int r = cli_option_value(cmd, argc, argv, i, key, &v);
  if (r <= 0) return r;
  if (!strcmp(key, "scene")) {
    a->scene = v;
  } else if (!strcmp(key, "model")) {
    if (!v[0]) {
      cli_error("%s: --model needs a file name", cmd);
      return -1;
    }
    a->model = v; /* its name: no folder, no extension */
    const char *base = strrchr(v, '/') ? strrchr(v, '/') + 1 : v;
    snprintf(a->model_name, sizeof a->model_name, "%s", base);
    char *dot = strrchr(a->model_name, '.');
    if (dot && dot != a->model_name) *dot = '\0';
  } else if (!strcmp(key, "param")) {
    if (a->nparams >= CLI_MAX_PARAMS) {
      cli_error("%s: more than %d --param options", cmd, CLI_MAX_PARAMS);
      return -1;
    }
    a->params[a->nparams++] = v;
  } else if (!strcmp(key, "steps")) {
    if (slv_parse_long(v, &a->steps) != SLV_PARSE_OK || a->steps < 1 || a->steps > 1000000000L) {
      cli_error("%s: --steps must be an integer between 1 and 1000000000, got '%s'", cmd, v);
      return -1;
    }
  } else if (dyn_world_settings_set(&a->set, key, v, err, sizeof err) < 0) {
    cli_error("%s: --%s %s", cmd, key, err);
    return -1;
  } else if (!strcmp(key, "solver")) {
    a->solver = v;
  }
  return 1;
}

void cli_world_usage(FILE *f) {
  fprintf(f, "scene and world options:\n"
             "  --scene NAME        scene to build (this or --model; list below)\n"
             "  --param KEY=VALUE   scene parameter (repeatable; keys below)\n"
             "  --model FILE        a scene model file (MJCF, read through MuJoCo's compiler;\n"
             "                      or URDF; its timestep is the dt unless --dt is given;\n"
             "                      docs/models.md)\n"
             "  --approximate       a model file's features lcplab cannot map exactly\n"
             "                      (cylinders, joint chains, armature, tendons, ...) are\n"
             "                      approximated or dropped, each named in a note\n"
             "  --coordinates C     reduced (joint coordinates of the tree, contacts mapped\n"
             "                      to joint space; armature mapped; loops as rows) or\n"
             "                      maximal (every body its six velocities, joints as\n"
             "                      rows); default: a model file's own, reduced for a\n"
             "                      kinematic tree (loops too), maximal for the others\n"
             "                      (and for files lcplab wrote); docs/models.md\n"
             "  --ctrl LIST         a model file's actuator controls, NAME=VALUE,...\n"
             "                      (NAME an actuator's name or index; the rest 0),\n"
             "                      held over the run (reduced coordinates; docs/models.md)\n"
             "  --max-memory B      refuse a model file whose bodies, geoms, joints and\n"
             "                      meshes need more than B bytes (K, M, G, T: powers of\n"
             "                      1024; default 4G)\n"
             "  --solver NAME       solver of the contact problems (see 'lcplab solvers');\n"
             "                      default: pgs, nsgs with --friction cone, lemke with\n"
             "                      pyramid; auto (dantzig, exact fallbacks) in reduced\n"
             "                      coordinates without\n"
             "                      cones (a note on\n"
             "                      stderr at the end says which)\n"
             "  --steps K           steps to run (default: 600; incline: round(1 s / H))\n"
             "  --dt H              time step in s, a number or A/B (default 1/120)\n"
             "  --friction MODEL    none, box (default), pyramid (the (eta+2)K LCP), cone\n"
             "  --eta N             pyramid: friction directions (default 4)\n"
             "  --integrator I      symplectic (default), explicit, verlet\n"
             "  --gyro G            none, explicit, implicit (default)\n"
             "  --orient O          exp (default), linear (reduced coordinates run\n"
             "                      symplectic, exp and gyro explicit, and refuse the others)\n"
             "  --max-iter N        solver iterations per step (default 50)\n"
             "  --max-pivots N      pivots per step of lemke and dantzig (default: their\n"
             "                      automatic budget, which grows with the size)\n"
             "  --tol T             solver tolerance (default: library's, 1e-8)\n"
             "  --time-limit S      seconds per solve (S > 0; default: none): a solve\n"
             "                      stopped there is a failed solve (--on-failure)\n"
             "  --omega W           pgs, pgs_wide, pgs_color, pgs_part relaxation (default 0.8)\n"
             "  --threads T         OpenMP threads of the step and its solves (default 1):\n"
             "                      collision, rows, assembly and integration split over\n"
             "                      T threads from 1024 bodies or contacts, with the same\n"
             "                      results as on 1 (docs/dynamics.md, \"Threads\");\n"
             "                      pgs_wide and pgs_color sweep a large world's\n"
             "                      independent rows on T threads, with the same results\n"
             "                      as on 1; pgs_part sweeps T parts of the bodies at once,\n"
             "                      deterministic for each T (docs/solvers.md, \"pgs_part\")\n"
             "  --warm-start on|off start each solve from the last step's impulses (default on)\n"
             "  --margin M          collision margin in m: speculative contacts (default 0.002)\n"
             "  --warm-factor F     scale of the kept impulses, in [0, 1] (default 1)\n"
             "  --slop M            penetration in m left without a Baumgarte push (default\n"
             "                      0.0005); the four stacking defaults work together; before\n"
             "                      them: --margin 0 --warm-factor 0.7 --omega 1 --slop 0\n"
             "  --contact-order O   order of the contact rows: broadphase (default: sweep and\n"
             "                      prune's, along x) or top-down (highest pair first)\n"
             "  --coarse-corrections N  pgs, pgs_wide, pgs_color, pgs_part with friction box\n"
             "                      or none: the sweeps split into N + 1 rounds with a\n"
             "                      coarse correction of the impulses, one rigid aggregate\n"
             "                      per contact level, between them, on steps whose levels\n"
             "                      are more than 3/4 of the sweeps (default 2; 0: off)\n"
             "  --islands M         contact islands: auto (default: on in reduced coordinates),\n"
             "                      on (any dense problem), off; rows that share no moving\n"
             "                      body or tree solved apart, on --threads T side by side\n"
             "                      (docs/dynamics.md, \"Contact islands\")\n"
             "  --storage S         auto (dense up to 256 rows; above, factored if the solver\n"
             "                      takes it and friction is not pyramid, else CSR), dense,\n"
             "                      csr, factored (matrix-free J, M^-1 J^T: pgs)\n"
             "  --cone-law L        coulomb (default, De Saxce) or associated\n"
             "  --on-failure P      what a step does when its solve failed (any status but\n"
             "                      converged, except any iterative solver's budget stop,\n"
             "                      which is applied unless its impulses would raise the\n"
             "                      run's energy beyond what gravity, loads, motors and\n"
             "                      springs gave it by more than the run's scale: the\n"
             "                      energy rule, docs/dynamics.md):\n"
             "                      fallback (default: solve again with the fallback solver\n"
             "                      from the better of x and the warm start, then apply the\n"
             "                      best of its x, the solver's x, the warm start and no\n"
             "                      impulse, by res_nat_inf), best (the best of the last three),\n"
             "                      keep (x if no worse than no impulse, else stop), stop\n"
             "                      (end the run, exit 3, naming the step)\n"
             "  --fallback-solver S the fallback's solver (default pgs; nsgs with --friction\n"
             "                      cone)\n"
             "  --fallback-max-iter N  the fallback's iterations (default 200)\n"
             "  --gravity X,Y,Z     gravity in m/s^2 (default: the scene's or the model\n"
             "                      file's, 0,0,-9.81 for most scenes)\n"
             "  --k-erp K           contact error reduction in [0, 1] (default 0.2)\n"
             "  --cfm C             constraint force mixing on the contact rows (default 0)\n"
             "  --max-correct-vel V cap of the Baumgarte push, m/s (default: none)\n"
             "  --dense-max-rows N  storage auto: dense up to N rows (default 256)\n"
             "environment: LCPLAB_NO_AVX2=1 runs pgs_wide, pgs_color, pgs_part without AVX2\n"
             "lanes (the same iterates; to time that path)\n"
             "\n"
             "scenes:\n");
  for (int i = 0; i < dyn_scene_count(); i++)
    fprintf(f, "  %-9s %s\n", dyn_scene_name(i), dyn_scene_summary(i));
}

/* LCPLAB_NO_AVX2 set and not "" or "0": the library's opt.simd =
 * SLV_SIMD_OFF (pgs_wide without its AVX2 lanes, the path of a CPU without
 * them, to time it; the library itself reads no environment). */
static int simd_from_env(void) {
  const char *v = getenv("LCPLAB_NO_AVX2");
  return v && *v && strcmp(v, "0") != 0 ? SLV_SIMD_OFF : SLV_SIMD_AUTO;
}

const char *cli_world_default_solver(const cli_world_args *a, dyn_coordinates c) {
  return dyn_world_default_solver(c, a->set.contact.friction); /* libdynamics' one rule */
}

void cli_world_note_solver(const char *cmd, const cli_world_args *a, const dyn_world *w) {
  if (a->solver) return;
  cli_error("note: %s: no --solver given: %s, which takes --friction %s", cmd,
            dyn_world_get_settings(w)->solver,
            dyn_world_settings_enum_name("friction", (int)a->set.contact.friction));
}

/* The settings every world of the command gets (solver, log, SIMD). */
static void command_settings(const cli_world_args *a, dyn_world_settings *s) {
  if (!a->solver)
    snprintf(s->solver, sizeof s->solver, "%s", cli_world_default_solver(a, s->coordinates));
  cli_guard_plugin(slv_solver_find(s->solver)); /* a plugin's crash named (docs/plugins.md) */
  if (a->solver_log) {
    s->opt.log_level_fn = a->solver_log;
    s->opt.log_ctx = a->solver_log_ctx;
    s->opt.log_level = SLV_LOG_DEBUG;
  }
  s->opt.simd = simd_from_env();
}

/* --ctrl into world w (cli_world_args.ctrl); 0, or -1 after the message
 * naming the file and the item. */
static int set_ctrl(const char *cmd, const cli_world_args *a, dyn_world *w) {
  if (!a->ctrl) return 0;
  const dyn_model *m = dyn_world_model(w);
  int n = dyn_model_actuator_count(m);
  double *ctrl = calloc((size_t)n + 1, sizeof *ctrl);
  char msg[512] = "";
  int bad = !ctrl ? (snprintf(msg, sizeof msg, "out of memory"), 1)
                  : dyn_model_parse_ctrl(m, a->ctrl, ctrl, msg, sizeof msg) != DYN_OK;
  if (!bad && dyn_world_set_ctrl(w, ctrl, n) != DYN_OK) {
    snprintf(msg, sizeof msg, "%s", dyn_world_message(w));
    bad = 1;
  }
  free(ctrl);
  if (bad) cli_error("%s: %s: --ctrl: %s", cmd, a->model ? a->model : a->scene, msg);
  return bad ? -1 : 0;
}

/* cli_world_build for --model FILE (and the usage errors of neither or
 * both): the model read (cli_model.c), its world. */
static int build_from_model(const char *cmd, const cli_world_args *a, dyn_world **w, long *steps) {
  dyn_model *m = NULL;
  dyn_world_settings s;
  int reduced = 0;
  int rc = cli_world_model(cmd, a, &m, &s, &reduced);
  if (rc >= 0) return rc;
  if (reduced) s.coordinates = DYN_COORDINATES_REDUCED;
  command_settings(a, &s);
  char msg[512] = "";
  dyn_err e = dyn_world_new_from_model(m, &s, w, msg, sizeof msg);
  if (e != DYN_OK) {
    cli_error("%s: %s: %s", cmd, a->model ? a->model : a->scene,
              msg[0] ? msg : "cannot build its world");
    dyn_model_free(m);
    return CLI_EXIT_USAGE;
  }
  dyn_model_free(m);
  if (set_ctrl(cmd, a, *w) != 0) {
    dyn_world_free(*w);
    *w = NULL;
    return CLI_EXIT_USAGE;
  }
  *steps = a->steps > 0 ? a->steps : dyn_model_default_steps(dyn_world_model(*w), s.dt);
  if (*steps < 1) {
    dyn_world_free(*w);
    *w = NULL;
    cli_error("%s: no default step count for dt=%g: give --steps", cmd, s.dt);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

int cli_world_build(const char *cmd, const cli_world_args *a, dyn_world **w, long *steps) {
  *w = NULL;
  if (a->model || !a->scene || a->reduced == 1) return build_from_model(cmd, a, w, steps);
  if (a->ctrl) {
    cli_error("%s: --ctrl sets a model file's actuator controls; a built-in scene has none", cmd);
    return CLI_EXIT_USAGE;
  }
  dyn_world_settings s = a->set;
  command_settings(a, &s);
  char msg[512] = "";
  if (dyn_scene_new(a->scene, a->params, a->nparams, &s, w, msg, sizeof msg) != DYN_OK) {
    cli_error("%s: %s", cmd, msg[0] ? msg : "cannot build the scene");
    return CLI_EXIT_USAGE;
  }
  *steps = a->steps > 0 ? a->steps : dyn_model_default_steps(dyn_world_model(*w), s.dt);
  if (*steps < 1) {
    dyn_world_free(*w);
    *w = NULL;
    cli_error("%s: no default step count for dt=%g: give --steps", cmd, s.dt);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* ---- simulate ---------------------------------------------------------------------- */

static void usage(FILE *f) {
  fprintf(f,
          "usage: lcplab simulate --scene NAME [--param KEY=VALUE ...] [--solver NAME]\n"
          "                       [--csv FILE] [--trace FILE] [--force] [options]\n"
          "       lcplab simulate --model FILE [...]\n"
          "       lcplab simulate --scene NAME [--param KEY=VALUE ...] --save-model FILE\n"
          "\n"
          "Run a scene and write one CSV row of metrics per step: step, t, kinetic,\n"
          "potential, energy, max_penetration, contacts, rows, iterations, res_nat_inf,\n"
          "solve_time_s, joint_error (max anchor separation of the joints, m), status (the\n"
          "solver's), applied (the impulses the step applied: solver, fallback:SOLVER, warm,\n"
          "zero or none; see --on-failure), energy_excess (J the solver's impulses add\n"
          "beyond the stabilisation's work; <= 0 for an exact answer).  A JSON summary\n"
          "goes to stdout (to stderr when --csv or --trace is -).  On a terminal, a\n"
          "progress line on stderr for runs over a second (LCPLAB_PROGRESS=0 never, 1\n"
          "always).\n"
          "\n"
          "  --csv FILE          the per-step metrics (default: none, the summary only;\n"
          "                      - : stdout)\n"
          "  --trace FILE        per step and dynamic body: step, t, body, x, y, z, qw, qx, qy,\n"
          "                      qz, vx, vy, vz, wx, wy, wz (- : stdout)\n"
          "  --dump-failures DIR write each failed step's problem, solver and options to\n"
          "                      DIR/stepN.lcp, its warm start to DIR/stepN.warm and the\n"
          "                      solver's x to DIR/stepN.x: 'lcplab solve DIR/stepN.lcp\n"
          "                      --warm DIR/stepN.warm' repeats that solve bit for bit\n"
          "  --save-model FILE   write the scene's model as MJCF (MuJoCo loads it unchanged;\n"
          "                      timestep: --dt) and exit without running it: one JSON line\n"
          "                      on stdout (docs/models.md)\n"
          "  --force             overwrite FILEs (and DIR's step files) that exist\n"
          "\n");
  cli_world_usage(f);
  fprintf(f, "\nexit status: 0 done, 2 bad input or usage (one line on stderr), 3 a step failed\n"
             "numerically (--on-failure keep or stop, or a failed step whose replacement breaks\n"
             "the energy rule, or a state above the state bound: the integrator made it\n"
             "unstable; the CSV keeps the steps before it).\n");
}

/* Starts the output path (written under a temporary name, published by
 * publish_outputs: docs/io.md, "Replacing files"); its stream, or NULL after
 * the message. */
static FILE *open_out(const char *path, io_outfile **o) {
  char err[512] = "";
  if (!(*o = io_outfile_open(path, err, sizeof err))) cli_error("%s", err);
  return io_outfile_stream(*o);
}

/* every slv_status, SLV_ERR_OPTIONS (the first) to SLV_ERROR (the last) */
enum { SIM_NSTATUS = SLV_ERROR - SLV_ERR_OPTIONS + 1, SIM_NFALLBACK = 4 };

/* What the steps were and what they applied (the JSON's counts). */
typedef struct sim_counts {
  long status[SIM_NSTATUS];           /* by slv_status - SLV_ERR_OPTIONS */
  long applied[DYN_APPLIED_ZERO + 1]; /* by dyn_applied, FALLBACK split below */
  const char *fb_name[SIM_NFALLBACK];
  long fb_count[SIM_NFALLBACK];
  int nfb;
  long failed, dumped;
  long failed_energy; /* of failed, those failed by the per-step energy bound */
  long failed_int;    /* of failed, those failed by the integrator's energy rule */
  long first_int;     /* the first of them (0: none) */
  long split;         /* solves whose plan line says they ran on threads (pgs_wide) */
} sim_counts;

typedef struct sim_state {
  dyn_world *w;
  FILE *csv, *trace;               /* the streams of csv_out, trace_out */
  io_outfile *csv_out, *trace_out; /* until published */
  dyn_run_stats stats;             /* the summary's per-step record (dyn_run.h) */
  dyn_metric_set cols;             /* the CSV's columns (DYN_METRICS_SIMULATE) */
  const char *csv_path, *trace_path, *dump_dir;
  dyn_err rejected; /* why the world rejected the last step (DYN_OK: none) */
  long steps;       /* the run's step count (the progress line's total) */
  sim_counts n;
  cli_progress progress; /* the progress line on a terminal */
} sim_state;

/* The CSV and the trace renamed over their paths, both complete: both are
 * finished (every write checked) before either is renamed, so a failure (a
 * full disk) leaves both old files as they were.  0, or -1 after the
 * message (sim_free drops what is left). */
static int publish_outputs(sim_state *s) {
  char err[512] = "";
  s->csv = s->trace = NULL;
  slv_status st = s->csv_out ? io_outfile_finish(s->csv_out, err, sizeof err) : SLV_OK;
  if (st == SLV_OK && s->trace_out) st = io_outfile_finish(s->trace_out, err, sizeof err);
  if (st == SLV_OK && s->csv_out) {
    st = io_outfile_publish(s->csv_out, err, sizeof err);
    s->csv_out = NULL;
  }
  if (st == SLV_OK && s->trace_out) {
    st = io_outfile_publish(s->trace_out, err, sizeof err);
    s->trace_out = NULL;
  }
  if (st != SLV_OK) cli_error("%s", err);
  return st == SLV_OK ? 0 : -1;
}

/* Release everything; outputs not published are dropped (their paths as
 * they were). */
static void sim_free(sim_state *s) {
  io_outfile_discard(s->csv_out);
  io_outfile_discard(s->trace_out);
  dyn_world_free(s->w);
  dyn_run_stats_free(&s->stats);
}

static void trace_rows(FILE *f, dyn_world *w, long step, double t) {
  const dyn_body_state *b = dyn_world_body_states(w);
  const dyn_body_const *bc = dyn_world_body_consts(w);
  for (int i = 0; i < dyn_world_body_count(w); i++) {
    if (bc[i].is_static) continue;
    double s[DYN_BODY_STATE];
    dyn_body_get_state(&b[i], s);
    fprintf(f, "%ld,%.17g,%d", step, t, i);
    for (int k = 0; k < DYN_BODY_STATE; k++) fprintf(f, ",%.17g", s[k]);
    fputc('\n', f);
  }
}

/* 1 if DIR holds a file a dump would write (stepN.lcp / .warm / .x). */
static int dump_files_exist(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
    long k;
    char sfx[8];
    found = sscanf(e->d_name, "step%ld.%7s", &k, sfx) == 2 &&
            (strcmp(sfx, "lcp") == 0 || strcmp(sfx, "warm") == 0 || strcmp(sfx, "x") == 0);
  }
  closedir(d);
  return found;
}

/* The dump directory: made if missing; refused if it holds step files and
 * not force.  0 after the message on failure. */
static int dump_dir_ready(const char *dir, int force) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    if (mkdir(dir, 0777) != 0) {
      cli_error("%s: cannot create the directory: %s", dir, strerror(errno));
      return 0;
    }
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    cli_error("%s exists and is not a directory", dir);
    return 0;
  }
  if (!force && dump_files_exist(dir)) {
    cli_error("%s holds step files of an earlier dump (use --force to overwrite)", dir);
    return 0;
  }
  return 1;
}

/* The last solve of w, if it belongs to step k, into DIR (--dump-failures).
 * 0 after the message if it cannot be written. */
static int dump_failure(sim_state *s, long k) {
  dyn_world_solve ls;
  if (!s->dump_dir || !dyn_world_last_solve(s->w, &ls) || ls.step != k) return 1;
  if (ls.input_written) { /* the arrays are the solver's now, not the step's problem */
    cli_error("note: step %ld not dumped: %s wrote its problem, so no file can reproduce the step",
              k, ls.solver);
    return 1;
  }
  char err[512] = "";
  if (exp_dump_solve(s->dump_dir, k, &ls.prob, ls.x_start, ls.x_solver, ls.solver, &ls.opt, err,
                     sizeof err) != 0) {
    cli_error("%s", err[0] ? err : "cannot write the failed step");
    return 0;
  }
  s->n.dumped++;
  return 1;
}

/* The CSV row of step st: the table's DYN_METRICS_SIMULATE columns
 * (dyn_metric_values, dyn_metric_text: integers, %.17g, times %.6g, names). */
static void csv_row(sim_state *s, const dyn_run_step *st) {
  dyn_metric_value v[DYN_METRIC_SET_MAX];
  char text[64];
  dyn_metric_values(&s->cols, s->w, st, v);
  for (int i = 0; i < s->cols.n; i++) {
    dyn_metric_text(dyn_metric_at(s->cols.col[i]), &v[i], text, sizeof text);
    if (i) fputc(',', s->csv);
    fputs(text, s->csv);
  }
  fputc('\n', s->csv);
}

/* One step's CSV row and its counts. */
static void record_step(sim_state *s, const dyn_run_step *st) {
  const dyn_world_metrics *m = &st->m;
  if (s->csv) csv_row(s, st);
  if (s->trace) trace_rows(s->trace, s->w, m->step, m->t);
  dyn_run_stats_add(&s->stats, m);
  sim_counts *n = &s->n;
  int si = m->status - SLV_ERR_OPTIONS;
  if (si >= 0 && si < SIM_NSTATUS) n->status[si]++; /* never past the array */
  n->failed += m->failed;
  n->failed_energy += m->failed_step_energy;
  n->failed_int += m->failed_integrator;
  if (m->failed_integrator && !n->first_int) n->first_int = m->step;
  if (m->applied != DYN_APPLIED_FALLBACK) {
    n->applied[m->applied]++;
    return;
  }
  int j = 0;
  while (j < n->nfb && strcmp(n->fb_name[j], m->fallback_solver) != 0) j++;
  if (j == n->nfb && n->nfb < SIM_NFALLBACK) n->fb_name[n->nfb++] = m->fallback_solver;
  if (j < n->nfb) n->fb_count[j]++;
}

/* ,"on_failure":...,"failed_steps":N,"status_counts":{...},"applied_counts":{...} */
static void print_counts(FILE *o, const sim_state *s) {
  const sim_counts *n = &s->n;
  fputs(",\"on_failure\":", o);
  cli_json_string(o, dyn_failure_policy_str(dyn_world_get_settings(s->w)->on_failure));
  fprintf(o,
          ",\"failed_steps\":%ld,\"failed_energy_steps\":%ld,\"failed_integrator_steps\":%ld,"
          "\"status_counts\":{",
          n->failed, n->failed_energy, n->failed_int);
  for (int i = 0, first = 1; i < SIM_NSTATUS; i++)
    if (n->status[i]) {
      fprintf(o, "%s\"%s\":%ld", first ? "" : ",",
              slv_status_str((slv_status)(i + SLV_ERR_OPTIONS)), n->status[i]);
      first = 0;
    }
  fputs("},\"applied_counts\":{", o);
  int first = 1;
  for (int a = DYN_APPLIED_NONE; a <= DYN_APPLIED_ZERO; a++) {
    if (a == DYN_APPLIED_FALLBACK) {
      for (int j = 0; j < n->nfb; j++, first = 0)
        fprintf(o, "%s\"fallback:%s\":%ld", first ? "" : ",", n->fb_name[j], n->fb_count[j]);
    } else if (n->applied[a]) {
      fprintf(o, "%s\"%s\":%ld", first ? "" : ",", dyn_applied_str((dyn_applied)a), n->applied[a]);
      first = 0;
    }
  }
  fputc('}', o);
  if (s->dump_dir) fprintf(o, ",\"dumped\":%ld", n->dumped);
}

/* ,"time_stage_mean_s":{"prepare":...,...}: each stage's mean over the
 * timed steps, named as dyn_world_stage_name names it, "_" for " ". */
static void print_stage_means(FILE *o, const dyn_run_summary *r) {
  fputs(",\"time_stage_mean_s\":{", o);
  for (int i = 0; i < DYN_WORLD_STAGES; i++) {
    char key[32];
    snprintf(key, sizeof key, "%s", dyn_world_stage_name(i));
    for (char *c = key; *c; c++)
      if (*c == ' ') *c = '_';
    fprintf(o, "%s", i ? "," : "");
    cli_json_string(o, key);
    fputc(':', o);
    cli_json_number(o, r->time_stage_mean_s[i], 6);
  }
  fputc('}', o);
}

/* The JSON summary after the run (the header lists its fields; computed by
 * dyn_run_stats_summary). */
static int print_summary(sim_state *s, const cli_world_args *wa, double wall) {
  dyn_world *w = s->w;
  const dyn_world_settings *set = dyn_world_get_settings(w);
  dyn_run_summary r;
  if (dyn_run_stats_summary(&s->stats, w, &r) != 0) {
    cli_error("simulate: no step to summarise");
    return CLI_EXIT_USAGE;
  }
  long K = r.steps;

  /* stderr when stdout holds the CSV or the trace ("-") */
  FILE *o = cli_is_stdout(s->csv_path) || cli_is_stdout(s->trace_path) ? stderr : stdout;
  fputs("{\"scene\":", o);
  cli_json_string(o, cli_world_name(wa));
  if (wa->model) {
    fputs(",\"model\":", o);
    cli_json_string(o, wa->model);
  }
  fputs(",\"coordinates\":", o); /* as export's lines say it (docs/models.md) */
  cli_json_string(o, dyn_world_is_reduced(s->w) ? "reduced" : "maximal");
  fputs(",\"solver\":", o);
  cli_json_string(o, set->solver);
  fputs(",\"friction\":", o);
  cli_json_string(o, dyn_world_settings_enum_name("friction", (int)set->contact.friction));
  fprintf(o, ",\"steps\":%ld,\"dt\":", K);
  cli_json_number(o, set->dt, 17);
  cli_json_model_settings(o, set);
  fprintf(o,
          ",\"max_iter\":%d,\"threads\":%d,\"threaded_solves\":%ld,\"omega\":", set->opt.max_iter,
          set->opt.threads, s->n.split);
  cli_json_number(o, set->opt.omega, 15);
  fputs(",\"margin\":", o);
  cli_json_number(o, set->margin, 15);
  fputs(",\"warm_factor\":", o);
  cli_json_number(o, set->warm_factor, 15);
  fputs(",\"slop\":", o);
  cli_json_number(o, set->contact.slop, 15);
  /* the model's joints: in reduced coordinates they are coordinates, not
   * joints of the world (dyn_world_joint_count 0) */
  exp_run_summary_put(o, &r, dyn_model_joint_count(dyn_world_model(w)));
  print_stage_means(o, &r);
  fputs(",\"wall_total_s\":", o);
  cli_json_number(o, wall, 6);
  print_counts(o, s);
  fputs("}\n", o);
  if (fflush(o) != 0 || ferror(o)) {
    cli_error("simulate: cannot write the summary to standard output");
    return CLI_EXIT_USAGE;
  }
  cli_world_note_solver("simulate", wa, w);
  if (s->n.failed_int)
    cli_error("note: simulate: %ld steps failed by the integrator's energy rule, the first at step "
              "%ld: the run's free motion gained more than the run's scale beyond its sources "
              "(docs/dynamics.md, \"The integrator's energy rule\")",
              s->n.failed_int, s->n.first_int);
  return CLI_EXIT_OK;
}

/* Checks and allocations before the first step; -1 to go on, else the
 * exit status after the message. */
static int sim_setup(const cli_world_args *wa, const char *csv, const char *trace, int force,
                     sim_state *s, long *K) {
  if (csv && trace && io_same_file(trace, csv)) {
    cli_error("simulate: --csv and --trace name the same file '%s'%s", csv,
              cli_is_stdout(csv) ? " (the standard output)" : "");
    return CLI_EXIT_USAGE;
  }
  const char *what[3] = { "--csv", "--trace", "--dump-failures" };
  const char *out[3] = { csv, trace, s->dump_dir };
  if (cli_world_output_is_input("simulate", wa, 3, what, out)) return CLI_EXIT_USAGE;
  int rc = cli_progress_init(&s->progress, "simulate");
  if (rc >= 0) return rc;
  rc = cli_world_build("simulate", wa, &s->w, K);
  if (rc >= 0) return rc;
  /* checked before any work is done */
  if (cli_output_refused(csv, force) || cli_output_refused(trace, force)) return CLI_EXIT_USAGE;
  if (s->dump_dir && !dump_dir_ready(s->dump_dir, force)) return CLI_EXIT_USAGE;
  char err[320] = "";
  if (dyn_run_stats_init(&s->stats, s->w, *K, err, sizeof err) != DYN_OK ||
      dyn_metric_set_init(&s->cols, DYN_METRICS_SIMULATE, err, sizeof err) != DYN_OK) {
    cli_error("simulate: %s", err);
    return CLI_EXIT_USAGE;
  }
  s->csv_path = csv;
  s->trace_path = trace;
  if (csv && !(s->csv = open_out(csv, &s->csv_out))) return CLI_EXIT_USAGE;
  if (trace && !(s->trace = open_out(trace, &s->trace_out))) return CLI_EXIT_USAGE;
  return -1;
}

/* A step that failed: numerically (exit 3, the files kept with the steps
 * before it) or as a usage error (exit 2). */
static int step_failed(sim_state *s, const cli_world_args *wa, dyn_err e, long k) {
  cli_progress_clear(&s->progress);
  if (e != DYN_ERR_NUMERIC) {
    cli_error("simulate: scene %s: %s", cli_world_name(wa), dyn_world_message(s->w));
    return CLI_EXIT_USAGE;
  }
  /* the run went wrong, not the request: steps 1..k stay (flushed, the
   * files kept) to show how it got there */
  const char *kept = s->csv_path ? s->csv_path : "no CSV";
  if (publish_outputs(s) != 0) return CLI_EXIT_USAGE;
  if (!dump_failure(s, k + 1)) return CLI_EXIT_USAGE;
  if (k > 0)
    cli_error("simulate: scene %s: %s (%s keeps steps 1..%ld)", cli_world_name(wa),
              dyn_world_message(s->w), kept, k);
  else
    cli_error("simulate: scene %s: %s (%s has no step)", cli_world_name(wa),
              dyn_world_message(s->w), kept);
  return CLI_EXIT_NOCONV;
}

/* One step of the run (dyn_world_run): its row and counts, the dump of a
 * failed solve, the largest joint error; a rejected step is kept for
 * step_failed. */
static int sim_step(void *ctx, dyn_world *w, const dyn_run_step *st) {
  sim_state *s = ctx;
  (void)w;
  cli_progress_step(&s->progress, "simulate", st->k, s->steps);
  if (st->err != DYN_OK) {
    s->rejected = st->err;
    return 0;
  }
  record_step(s, st);
  if (st->m.failed && !dump_failure(s, st->k)) return CLI_EXIT_USAGE;
  return 0;
}

static int sim_run(const cli_world_args *wa, const char *csv, const char *trace, int force,
                   sim_state *s) {
  long K = 0;
  int rc = sim_setup(wa, csv, trace, force, s, &K);
  if (rc >= 0) return rc;
  dyn_world *w = s->w;
  if (s->csv) fputs(DYN_METRICS_SIMULATE "\n", s->csv);
  if (s->trace) fputs("step,t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n", s->trace);
  double wall0 = exp_now_s();
  long done = 0;
  s->steps = K;
  rc = dyn_world_run(w, K, sim_step, s, &done);
  cli_progress_clear(&s->progress);
  if (rc == -1) return step_failed(s, wa, s->rejected, done);
  if (rc != 0) return rc;
  double wall = exp_now_s() - wall0;
  if (publish_outputs(s) != 0) return CLI_EXIT_USAGE;
  return print_summary(s, wa, wall);
}

/* The solves' log (opt.log_level_fn): counts the pgs_wide, pgs_color and
 * pgs_part plans that ran on threads ("... N levels on T threads: ...",
 * "... N colours on T threads: ...", "... N parts on T threads, ..."), for the JSON's
 * threaded_solves; the other lines are dropped, as without a callback. */
static void count_split(void *ctx, slv_log_level level, const char *line) {
  (void)level;
  if ((strncmp(line, "pgs_wide:", 9) == 0 && strstr(line, " levels on ")) ||
      (strncmp(line, "pgs_color:", 10) == 0 && strstr(line, " colours on ")) ||
      (strncmp(line, "pgs_part:", 9) == 0 && strstr(line, " parts on ")))
    ((sim_counts *)ctx)->split++;
}

int cli_cmd_simulate(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  cli_world_args wa;
  cli_world_args_init(&wa);
  const char *csv = NULL, *trace = NULL, *dump = NULL, *save = NULL;
  int force = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v = NULL;
    int r = cli_world_option("simulate", argc, argv, &i, &wa);
    if (r < 0) return CLI_EXIT_USAGE;
    if (r > 0) continue;
    if (strcmp(arg, "--force") == 0) {
      force = 1;
    } else if ((r = cli_option_value("simulate", argc, argv, &i, "csv", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!v[0]) {
        cli_error("simulate: --csv needs a file name");
        return CLI_EXIT_USAGE;
      }
      csv = v;
    } else if ((r = cli_option_value("simulate", argc, argv, &i, "dump-failures", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!v[0]) {
        cli_error("simulate: --dump-failures needs a directory");
        return CLI_EXIT_USAGE;
      }
      dump = v;
    } else if ((r = cli_option_value("simulate", argc, argv, &i, "save-model", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      save = v;
    } else if ((r = cli_option_value("simulate", argc, argv, &i, "trace", &v)) != 0) {
      if (r < 0) return CLI_EXIT_USAGE;
      if (!v[0]) {
        cli_error("simulate: --trace needs a file name");
        return CLI_EXIT_USAGE;
      }
      trace = v;
    } else if (arg[0] == '-') {
      cli_error("simulate: unknown option '%s' (see 'lcplab simulate --help')", arg);
      return CLI_EXIT_USAGE;
    } else {
      cli_error("simulate: unexpected argument '%s' (see 'lcplab simulate --help')", arg);
      return CLI_EXIT_USAGE;
    }
  }
  if (save) return cli_save_model("simulate", &wa, save, force);
  sim_state s;
  memset(&s, 0, sizeof s);
  s.dump_dir = dump;
  if (wa.set.opt.threads > 1) { /* only then can a plan split */
    wa.solver_log = count_split;
    wa.solver_log_ctx = &s.n;
  }
  int rc = sim_run(&wa, csv, trace, force, &s);
  sim_free(&s);
  return rc;
}
