/*
 * mujoco_model.c -- peer_mujoco_model: a model file (MJCF or URDF) run in
 * MuJoCo's own step (mj_step), loaded unchanged, for the scene comparison
 * (experiments/CAMPAIGNS.md, "Scene peers"; docs/models.md, "Compared with
 * MuJoCo").  It prints one summary line, the JSON object that lcplab's own
 * runs print (`lcplab simulate`'s summary: exp_run_summary_parse reads it),
 * so that MuJoCo's row of a scenes section has lcplab's columns:
 *
 *   peer_mujoco_model FILE [--solver pgs|cg|newton] [--cone pyramidal|elliptic]
 *                     [--dt H] [--steps K] [--iters I] [--tol T] [--ctrl NAME=VALUE,...]
 *                     [--trace FILE]
 *
 * The one source compiles against MuJoCo 2.2.2 (Debian's, built by make as
 * peer_mujoco_model) and 3.x (`make bench-models` links it against the
 * 3.12.0 of ../shared/peers/mujoco3 as peer_mujoco3_model): 3.x solves each
 * constraint island on its own (on by default, kept: it is how 3.x runs) and
 * keeps its solver statistics per island; its PGS is Nesterov-accelerated.
 *
 * What the file says stays (its solver, cone, iterations, softness, sizes)
 * unless an option above replaces it: --dt is lcplab's run's step (the
 * comparison's "same time step"), --solver picks MuJoCo's PGS, CG or Newton,
 * --ctrl sets d->ctrl (NAME an actuator's name or index, the rest 0: the
 * spelling of lcplab's --ctrl) for the whole run.  --tol replaces the file's
 * solver tolerance (opt.tolerance; the converged reference of `make
 * bench-models`: Newton at 1e-12).  --trace FILE writes, after each step and
 * for each body that moves, "step,t,body,x,y,z" (its centre of mass at the
 * state the step reached, %.17g; the positions of lcplab's --trace, its
 * first six columns), under that header line; FILE - is the standard
 * output, and the summary goes to stderr then.
 *
 * Measured as lcplab measures (libdynamics/world_summary.c):
 *   time_step_median_s, _mean_s  CLOCK_MONOTONIC around mj_step, over the
 *                                last 80 % of the steps;
 *   contacts_*                   d->ncon of each step;
 *   energy_*                     sum over bodies that move of m |v_c|^2 / 2 +
 *                                w.(I w) / 2 - m g.c (c the centre of mass,
 *                                I the world inertia): dyn_world_energy's sum;
 *   max_penetration              one collision pass on the final state
 *                                (mj_forward: mj_step leaves positions,
 *                                velocities and contacts of the state
 *                                before its step), the largest -dist;
 *   max_body_displacement        the largest |c_end - c_start|;
 *   joint_error_max              the largest distance by which a connect or
 *                                weld equality is open (|efc_pos| of its
 *                                three position rows) over the steps: the
 *                                joints of MuJoCo's tree hold exactly
 *                                (reduced coordinates), so a model without
 *                                equalities reports 0;
 *   not_converged                the steps whose solver used all its
 *                                iterations without meeting the file's
 *                                tolerance (d->solver_iter; 3.x: any
 *                                island's solver_niter, of the first
 *                                mjNISLAND islands, the ones 3.x records);
 *   islands_max                  3.x: the most islands of a step (-1: 2.x);
 *   mj_warnings                  MuJoCo's warning counters after the run
 *                                (a full contact buffer, a bad acceleration
 *                                that MuJoCo answers by a reset, ...).
 * Exit: 0 with the summary; 2 bad arguments or a file MuJoCo does not load
 * (its message); 3 MuJoCo stopped with an error (mju_error), or a step that
 * MuJoCo reset (non-finite acceleration: the run is not comparable).
 */
#define _POSIX_C_SOURCE 200809L

#include <mujoco/mujoco.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *prog = "peer_mujoco_model";

typedef struct args {
  const char *file;
  int solver; /* mjtSolver, -1: the file's */
  int cone;   /* mjtCone, -1: the file's */
  double dt;  /* <= 0: the file's */
  long steps;
  int iters;         /* <= 0: the file's */
  double tol;        /* <= 0: the file's */
  const char *ctrl;  /* NULL: all 0 */
  const char *trace; /* NULL: none; "-": stdout */
} args;

/* mju_error does not return: the message and exit 3 (a program may exit;
 * libmodels' guard is the library's way). */
static void on_error(const char *msg) {
  fprintf(stderr, "%s: MuJoCo error: %s\n", prog, msg);
  exit(3);
}

static void on_warning(const char *msg) { fprintf(stderr, "%s: MuJoCo warning: %s\n", prog, msg); }

static int usage(const char *why) {
  fprintf(stderr,
          "%s: %s\nusage: %s FILE [--solver pgs|cg|newton] [--cone pyramidal|elliptic] "
          "[--dt H] [--steps K] [--iters I] [--tol T] [--ctrl NAME=VALUE,...] [--trace FILE]\n",
          prog, why, prog);
  return 2;
}

/* A positive number: "0.005" or "1/200". */
static int positive(const char *s, double *out) {
  char *end;
  double x = strtod(s, &end);
  if (*end == '/') {
    double d = strtod(end + 1, &end);
    x = d > 0 ? x / d : NAN;
  }
  if (end == s || *end || !(x > 0) || !isfinite(x)) return -1;
  *out = x;
  return 0;
}

static int parse_args(int argc, char **argv, args *a) {
  a->file = NULL;
  a->solver = a->cone = a->iters = -1;
  a->dt = a->tol = 0;
  a->steps = 600;
  a->ctrl = a->trace = NULL;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    double x;
    if (o[0] != '-' || strcmp(o, "-") == 0) {
      if (a->file) return usage("more than one FILE");
      a->file = o;
      continue;
    }
    if (!v) return usage("an option without its value");
    i++;
    if (strcmp(o, "--solver") == 0) {
      a->solver = strcmp(v, "pgs") == 0      ? mjSOL_PGS
                  : strcmp(v, "cg") == 0     ? mjSOL_CG
                  : strcmp(v, "newton") == 0 ? mjSOL_NEWTON
                                             : -2;
      if (a->solver == -2) return usage("--solver: expected pgs, cg or newton");
    } else if (strcmp(o, "--cone") == 0) {
      a->cone = strcmp(v, "pyramidal") == 0  ? mjCONE_PYRAMIDAL
                : strcmp(v, "elliptic") == 0 ? mjCONE_ELLIPTIC
                                             : -2;
      if (a->cone == -2) return usage("--cone: expected pyramidal or elliptic");
    } else if (strcmp(o, "--ctrl") == 0) {
      a->ctrl = v;
    } else if (strcmp(o, "--trace") == 0) {
      a->trace = v;
    } else if (strcmp(o, "--tol") == 0) {
      if (positive(v, &a->tol) != 0) return usage("--tol: expected a positive number");
    } else if (strcmp(o, "--dt") == 0) {
      if (positive(v, &a->dt) != 0) return usage("--dt: expected a positive number");
    } else if (strcmp(o, "--steps") == 0 || strcmp(o, "--iters") == 0) {
      if (positive(v, &x) != 0 || x != floor(x) || x > 1e8)
        return usage("--steps, --iters: expected a whole number >= 1");
      if (o[2] == 's')
        a->steps = (long)x;
      else
        a->iters = (int)x;
    } else {
      return usage("unknown option");
    }
  }
  return a->file ? 0 : usage("no FILE");
}

/* --ctrl's list into d->ctrl; 0, or 2 after the message. */
static int set_ctrl(const mjModel *m, mjData *d, const char *spec) {
  for (const char *p = spec; p && *p;) {
    size_t len = strcspn(p, ",");
    char item[256];
    if (len >= sizeof item) return usage("--ctrl: an item is too long");
    memcpy(item, p, len);
    item[len] = '\0';
    char *eq = strchr(item, '='), *end;
    if (!eq) return usage("--ctrl: expected NAME=VALUE,...");
    *eq = '\0';
    int u = mj_name2id(m, mjOBJ_ACTUATOR, item);
    if (u < 0 && item[0] && strspn(item, "0123456789") == strlen(item)) u = atoi(item);
    double x = strtod(eq + 1, &end);
    if (u < 0 || u >= m->nu || end == eq + 1 || *end || !isfinite(x))
      return usage("--ctrl: an unknown actuator or a value that is not a number");
    d->ctrl[u] = x;
    p += len + (p[len] ? 1 : 0);
  }
  return 0;
}

/* A body that moves: not welded to the world, with mass. */
static int moves(const mjModel *m, int b) { return m->body_weldid[b] != 0 && m->body_mass[b] > 0; }

/* dyn_world_energy's sum (the file header). */
static double energy(const mjModel *m, mjData *d, double *kinetic) {
  double T = 0, V = 0;
  for (int b = 1; b < m->nbody; b++) {
    if (!moves(m, b)) continue;
    mjtNum vel[6], w[3], v[3], r[3], Iw[3], wl[3];
    mj_objectVelocity(m, d, mjOBJ_BODY, b, vel, 0); /* at xpos, world axes */
    mju_copy3(w, vel);
    mju_sub3(r, d->xipos + 3 * b, d->xpos + 3 * b);
    mju_cross(v, w, r);
    mju_addTo3(v, vel + 3);
    mju_mulMatTVec(wl, d->ximat + 9 * b, w, 3, 3); /* w in the inertia frame */
    for (int k = 0; k < 3; k++) Iw[k] = m->body_inertia[3 * b + k] * wl[k];
    double mass = m->body_mass[b];
    T += 0.5 * mass * mju_dot3(v, v) + 0.5 * mju_dot3(wl, Iw);
    V -= mass * mju_dot3(m->opt.gravity, d->xipos + 3 * b);
  }
  if (kinetic) *kinetic = T;
  return T + V;
}

/* The largest distance by which a connect or weld equality is open now
 * (its first three efc rows: the anchor's position). */
static double joint_error(const mjModel *m, const mjData *d) {
  double err = 0, s = 0;
  int rows = 0;
  for (int i = 0; i < d->nefc; i++) {
    if (d->efc_type[i] != mjCNSTR_EQUALITY) continue;
    int id = d->efc_id[i];
    int first = i == 0 || d->efc_type[i - 1] != mjCNSTR_EQUALITY || d->efc_id[i - 1] != id;
    if (first) s = 0, rows = 0;
    int kind = m->eq_type[id];
    if ((kind == mjEQ_CONNECT || kind == mjEQ_WELD) && rows < 3) {
      s += d->efc_pos[i] * d->efc_pos[i];
      if (sqrt(s) > err) err = sqrt(s);
    }
    rows++;
  }
  return err;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* What the run records. */
typedef struct run {
  const char *file;
  long K, timed, ncmax, not_converged, resets;
  int islands_max; /* -1: 2.x, no islands */
  double *t, c_all, c_timed, jerr, E0;
  double *c0;  /* 3 per body: the start centres of mass */
  FILE *trace; /* NULL: no --trace */
} run;

/* 1 when the last step's solver used all its iterations (3.x: in any of
 * the islands it records); islands: the step's island count (-1 in 2.x). */
static int used_all_iterations(const mjModel *m, const mjData *d, int *islands) {
#if mjVERSION_HEADER >= 300
  int n = d->nisland > 0 ? d->nisland : 1; /* no islands: the statistics in slot 0 */
  *islands = d->nisland;
  if (d->nefc == 0) return 0;
  if (n > mjNISLAND) n = mjNISLAND;
  for (int i = 0; i < n; i++)
    if (d->solver_niter[i] >= m->opt.iterations) return 1;
  return 0;
#else
  *islands = -1;
  return d->nefc > 0 && d->solver_iter >= m->opt.iterations;
#endif
}

/* --trace's rows of step k: each moving body's centre of mass at the state
 * the step reached (mj_kinematics: mj_step leaves the positions of the
 * state before it; the next mj_step recomputes them all, so the run is the
 * same with or without the trace). */
static void trace_rows(const mjModel *m, mjData *d, FILE *f, long k) {
  mj_kinematics(m, d);
  for (int b = 1; b < m->nbody; b++) {
    if (!moves(m, b)) continue;
    const mjtNum *c = d->xipos + 3 * b;
    fprintf(f, "%ld,%.17g,%d,%.17g,%.17g,%.17g\n", k, d->time, b, c[0], c[1], c[2]);
  }
}

static int step_all(const mjModel *m, mjData *d, run *r) {
  r->resets = 0;
  r->islands_max = mjVERSION_HEADER >= 300 ? 0 : -1;
  for (long k = 0; k < r->K; k++) {
    int bad0 = d->warning[mjWARN_BADQACC].number;
    double t0 = now();
    mj_step(m, d);
    double t1 = now();
    if (d->warning[mjWARN_BADQACC].number != bad0) {
      fprintf(stderr, "%s: %s: step %ld: MuJoCo reset the state (a non-finite acceleration)\n",
              prog, r->file, k + 1);
      return 3;
    }
    r->t[k] = t1 - t0;
    r->c_all += d->ncon;
    if (d->ncon > r->ncmax) r->ncmax = d->ncon;
    if (k >= r->K - r->timed) r->c_timed += d->ncon;
    int islands;
    r->not_converged += used_all_iterations(m, d, &islands);
    if (islands > r->islands_max) r->islands_max = islands;
    double e = joint_error(m, d);
    if (e > r->jerr || isnan(e)) r->jerr = e;
    if (r->trace) trace_rows(m, d, r->trace, k + 1);
  }
  return 0;
}

/* After mj_forward on the final state. */
static double max_penetration(const mjData *d) {
  double p = 0;
  for (int i = 0; i < d->ncon; i++)
    if (-d->contact[i].dist > p) p = -d->contact[i].dist;
  return p;
}

static double max_displacement(const mjModel *m, const mjData *d, const double *c0) {
  double D = 0;
  for (int b = 1; b < m->nbody; b++) {
    if (!moves(m, b)) continue;
    mjtNum dv[3];
    mju_sub3(dv, d->xipos + 3 * b, c0 + 3 * b);
    if (mju_norm3(dv) > D) D = mju_norm3(dv);
  }
  return D;
}

static void print_summary(const mjModel *m, mjData *d, run *r, FILE *out) {
  qsort(r->t + (r->K - r->timed), (size_t)r->timed, sizeof *r->t, cmp_double);
  const double *tt = r->t + (r->K - r->timed);
  double med = r->timed % 2 ? tt[r->timed / 2] : 0.5 * (tt[r->timed / 2 - 1] + tt[r->timed / 2]);
  double mean = 0, wall = 0;
  for (long k = 0; k < r->timed; k++) mean += tt[k] / (double)r->timed;
  for (long k = 0; k < r->K; k++) wall += r->t[k];
  mj_forward(m, d); /* mj_step leaves the derived quantities of the state before its step */
  double kin, E1 = energy(m, d, &kin);
  double disp = max_displacement(m, d, r->c0), pen = max_penetration(d);
  int nbod = 0, nwarn = 0;
  for (int b = 1; b < m->nbody; b++) nbod += moves(m, b);
  for (int i = 0; i < mjNWARNING; i++) nwarn += d->warning[i].number;
  static const char *sol[] = { "pgs", "cg", "newton" };
  fprintf(out,
          "{\"engine\":\"mujoco\",\"mujoco_version\":%d,\"mujoco_version_string\":\"%s\","
          "\"solver\":\"%s\",\"cone\":\"%s\",\"dt\":%.17g,\"iterations\":%d,\"tolerance\":%.17g,"
          "\"islands_max\":%d,\"steps\":%ld,\"timed_steps\":%ld,\"bodies\":%d,"
          "\"contacts_mean\":%.17g,\"contacts_mean_timed\":%.17g,\"contacts_max\":%ld,"
          "\"time_step_median_s\":%.9g,\"time_step_mean_s\":%.9g,\"wall_steps_s\":%.9g,"
          "\"energy_start\":%.17g,\"energy_end\":%.17g,\"kinetic_end\":%.17g,"
          "\"max_penetration\":%.17g,\"max_body_displacement\":%.17g,"
          "\"joint_error_max\":%.17g,\"not_converged\":%ld,\"mj_warnings\":%d}\n",
          mj_version(), mj_versionString(), sol[m->opt.solver],
          m->opt.cone == mjCONE_ELLIPTIC ? "elliptic" : "pyramidal", m->opt.timestep,
          m->opt.iterations, m->opt.tolerance, r->islands_max, r->K, r->timed, nbod,
          r->c_all / (double)r->K, r->c_timed / (double)r->timed, r->ncmax, med, mean, wall, r->E0,
          E1, kin, pen, disp, r->jerr, r->not_converged, nwarn);
}

/* --trace's stream: stdout for "-", else a new file (one that exists is
 * refused, never overwritten); NULL after the message. */
static FILE *open_trace(const char *path) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "wx");
  if (!f) fprintf(stderr, "%s: --trace %s: cannot create it (it exists?)\n", prog, path);
  if (f) fputs("step,t,body,x,y,z\n", f);
  return f;
}

int main(int argc, char **argv) {
  args a;
  if (parse_args(argc, argv, &a) != 0) return 2;
  FILE *trace = a.trace ? open_trace(a.trace) : NULL;
  if (a.trace && !trace) return 2;
  mju_user_error = on_error;
  mju_user_warning = on_warning;
  char err[1000] = "";
  mjModel *m = mj_loadXML(a.file, NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "%s: %s: %s\n", prog, a.file, err);
    if (trace && trace != stdout) fclose(trace);
    return 2;
  }
  if (a.solver >= 0) m->opt.solver = a.solver;
  if (a.cone >= 0) m->opt.cone = a.cone;
  if (a.dt > 0) m->opt.timestep = a.dt;
  if (a.iters > 0) m->opt.iterations = a.iters;
  if (a.tol > 0) m->opt.tolerance = a.tol;
  mjData *d = mj_makeData(m);
  run r = { .file = a.file, .K = a.steps, .timed = a.steps - a.steps / 5, .trace = trace };
  r.t = calloc((size_t)r.K, sizeof *r.t);
  r.c0 = calloc(3 * (size_t)m->nbody, sizeof *r.c0);
  int rc = 3;
  if (d && a.ctrl && set_ctrl(m, d, a.ctrl) != 0) {
    rc = 2;
  } else if (d && r.t && r.c0) {
    mj_forward(m, d);
    r.E0 = energy(m, d, NULL);
    mju_copy(r.c0, d->xipos, 3 * m->nbody);
    rc = step_all(m, d, &r);
    if (rc == 0) print_summary(m, d, &r, trace == stdout ? stderr : stdout);
  } else {
    fprintf(stderr, "%s: %s: out of memory\n", prog, a.file);
  }
  free(r.t);
  free(r.c0);
  if (trace && trace != stdout && fclose(trace) != 0) rc = 3;
  if (d) mj_deleteData(d);
  mj_deleteModel(m);
  return rc;
}
