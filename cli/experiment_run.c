/* experiment_run.c -- loading the problems of an experiment section and
 * running it: the five kinds of `lcplab experiment` (experiments/README.md).
 *
 * Problem kinds (convergence, profile, scaling) run every solver of the
 * section on every problem, the rules of exp_compare (experiments/README.md,
 * "exp_compare"): a solver that does not accept the problem
 * (slv_solver_accepts) gets a row with status "unsupported" and empty
 * numbers, never no row; otherwise one workspace, one warm-up slv_solve, then
 * R timed slv_solve calls from the cold start (opt.warm_start = 0) with
 * clock_gettime(CLOCK_MONOTONIC) around slv_solve only; the median and the
 * minimum are reported.  When the warm-up alone takes longer than the
 * section's budget / R, it is the one measurement (repeats = 1 in the row).
 * "converged" is the library's promise (slv.h): res_rel <= tol recomputed from
 * (A, b, lo, hi, x) by slv_residual, the same code for every solver.
 *
 *   convergence: opt.record_history = 1; the history holds res_rel per
 *     iteration k = 0..K (K = the iterations done).  Time at iteration k is
 *     estimated as t_k = T k / K with T the median solve time (the cost of an
 *     iteration is taken as constant; the recording itself is one store per
 *     iteration).  Rows are thinned to a geometric grid (k <= 20, then every
 *     5 %), plus a final row (final = 1) with the library's res_rel; solvers
 *     without a history (pivoting, direct) have only the final row.
 *   profile: one row per (problem, tol, solver); the second CSV holds the
 *     Dolan-More curves (experiment_stats.c) with time as the cost and
 *     "converged" as success.
 *   scaling: rows per (problem, solver); the second CSV holds, per (family,
 *     solver), the least-squares slope s of log t = a + s log n over the
 *     converged points.
 *
 * Scene kinds run the named scene (libdynamics dyn_scene_new / dyn_world_step)
 * once per (scene, integrator, solver), one row per step:
 *   drift: energy E (kinetic + potential, floor at z = 0) and its relative
 *     drift (E - E0) / S with E0 before the first step and the scale
 *     S = max(|E0|, M |g| D) fixed then: M the dynamic bodies' total mass, D
 *     the diagonal of the box around their centres (the potential energy a
 *     fall across the scene's own extent releases).  |E0| alone is
 *     meaningless when a scene starts at E0 = 0, as the chain released at
 *     rest at z = 0 does; a fixed S keeps a blow-up visible (empty if S = 0),
 *     the
 *     deepest penetration of the step, contacts, iterations, res_nat_inf;
 *   accuracy: penetration, joint error (dyn_world_metrics.joint_error: the
 *     largest anchor error after the step, m; empty when the scene has no
 *     joint), and the complementarity and
 *     infeasibility of the step's solve, recomputed with slv_residual from
 *     the step's problem and the impulses applied (dyn_world_last_problem).
 * friction "auto" picks, per solver, box (findex rows) if the solver takes
 * them, else cone if it takes cones, else the pyramid LCP; a solver that
 * takes none of these (direct: equality rows only) is "unsupported".  A
 * world step that fails ends that run with a row of status "refused" (the
 * solver refuses the step's problem, e.g. enum beyond 16 rows) or "failed"
 * (the solve was non-finite or worse than no impulse, DYN_ERR_NUMERIC) and
 * a "# note:" line giving the library's message.
 *
 * Interruption: *env->stop is checked between runs (and between steps of a
 * scene run); the rows written so far stay (each run's rows are flushed).
 */
#define _POSIX_C_SOURCE 200809L

#include "experiment.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "dyn_world.h"

extern char **environ;

/* ---- CSV layout -------------------------------------------------------------------- */

const char *exp_csv_header(exp_kind k)
{
  switch (k) {
  case EXP_CONVERGENCE:
    return "problem,kind,n,solver,status,iteration,time_s,res_rel,final";
  case EXP_PROFILE:
    return "problem,kind,n,solver,tol,status,iterations,pivots,time_s,time_min_s,repeats,"
           "res_rel,res_nat_inf,solved";
  case EXP_SCALING:
    return "family,problem,kind,n,solver,status,iterations,pivots,time_s,time_min_s,repeats,"
           "res_rel";
  case EXP_DRIFT:
    return "scene,solver,integrator,friction,step,t,energy,rel_drift,max_penetration,contacts,"
           "iterations,res_nat_inf,status";
  case EXP_ACCURACY:
    return "scene,solver,integrator,friction,step,t,max_penetration,joint_error,compl,infeas,"
           "res_nat_inf,iterations,status";
  default:
    return "";
  }
}

const char *exp_csv2_suffix(exp_kind k)
{
  return k == EXP_PROFILE ? "_profile" : k == EXP_SCALING ? "_slopes" : NULL;
}

const char *exp_csv2_header(exp_kind k)
{
  if (k == EXP_PROFILE)
    return "tol,solver,tau,log2_tau,rho,solved_share,problems";
  if (k == EXP_SCALING)
    return "family,solver,points,slope,intercept,r2";
  return NULL;
}

static const char *const friction_str[] = {"none", "box", "pyramid", "cone"};
static const char *const integrator_str[] = {"symplectic", "explicit", "verlet"};

/* ---- helpers ------------------------------------------------------------------------ */

static int cmp_str(const void *pa, const void *pb)
{
  return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* Replaces characters that would break a CSV field. */
static void sanitize(char *s)
{
  for (; *s; s++)
    if (*s == ',' || *s == '"' || *s == '\n' || *s == '\r' || *s == ' ')
      *s = '_';
}

/* ",v" with %.6e; nan / inf spelled out; "," alone (empty) for no value. */
static void put_num(FILE *f, double v)
{
  if (isnan(v))
    fputs(",nan", f);
  else if (isinf(v))
    fputs(v > 0 ? ",inf" : ",-inf", f);
  else
    fprintf(f, ",%.6e", v);
}

static void progress(const exp_env *env, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

static void progress(const exp_env *env, const char *fmt, ...)
{
  if (!env->tty)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("lcplab experiment: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int known_ext(const char *name)
{
  static const char *const ext[] = {".dat", ".lcp", ".blcp", ".mtx", ".hdf5", ".h5", NULL};
  size_t n = strlen(name);
  for (int k = 0; ext[k]; k++) {
    size_t e = strlen(ext[k]);
    if (n > e && strcmp(name + n - e, ext[k]) == 0)
      return 1;
  }
  return 0;
}

static int add_problem(exp_problem **probs, int *np, int *cap, slv_instance *inst,
                       const char *label)
{
  if (*np == *cap) {
    int c = *cap ? 2 * *cap : 16;
    exp_problem *n = realloc(*probs, (size_t)c * sizeof *n);
    if (!n)
      return -1;
    *probs = n;
    *cap = c;
  }
  exp_problem *p = &(*probs)[(*np)++];
  memset(p, 0, sizeof *p);
  p->inst = inst;
  snprintf(p->label, sizeof p->label, "%s", label[0] ? label : "unnamed");
  sanitize(p->label);
  size_t fl = strcspn(p->label, "_"); /* the family: the name up to its first '_' */
  if (fl >= sizeof p->family)
    fl = sizeof p->family - 1;
  memcpy(p->family, p->label, fl);
  p->family[fl] = '\0';
  return 0;
}

static int read_one(const exp_config *cfg, const exp_source *src, const char *path,
                    exp_problem **probs, int *np, int *cap)
{
  slv_instance *inst = NULL;
  char err[512] = "";
  slv_status st = slv_read(path, SLV_FMT_AUTO, &inst, err, sizeof err);
  if (st != SLV_OK) {
    cli_error("%s:%d: instances: %s", cfg->path, src->line, err[0] ? err : slv_status_str(st));
    return CLI_EXIT_USAGE;
  }
  if (add_problem(probs, np, cap, inst, inst->name)) {
    slv_instance_free(inst);
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

static int load_path(const exp_config *cfg, const exp_source *src, exp_problem **probs, int *np,
                     int *cap)
{
  struct stat st;
  if (stat(src->path, &st) != 0) {
    cli_error("%s:%d: instances: %s: %s", cfg->path, src->line, src->path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  if (!S_ISDIR(st.st_mode))
    return read_one(cfg, src, src->path, probs, np, cap);
  /* a folder: its instance files (known extensions), sorted by name, not recursive */
  DIR *d = opendir(src->path);
  if (!d) {
    cli_error("%s:%d: instances: %s: %s", cfg->path, src->line, src->path, strerror(errno));
    return CLI_EXIT_USAGE;
  }
  char **names = NULL;
  int nn = 0, cn = 0, rc = -1;
  for (struct dirent *e = readdir(d); e; e = readdir(d)) {
    if (e->d_name[0] == '.' || !known_ext(e->d_name))
      continue;
    if (nn == cn) {
      cn = cn ? 2 * cn : 64;
      char **n = realloc(names, (size_t)cn * sizeof *n);
      if (!n) {
        rc = CLI_EXIT_USAGE;
        cli_error("out of memory");
        break;
      }
      names = n;
    }
    if (!(names[nn] = strdup(e->d_name))) {
      rc = CLI_EXIT_USAGE;
      cli_error("out of memory");
      break;
    }
    nn++;
  }
  closedir(d);
  if (rc < 0 && nn == 0) {
    cli_error("%s:%d: instances: %s: no instance file (.dat .lcp .blcp .mtx .hdf5 .h5) in it",
              cfg->path, src->line, src->path);
    rc = CLI_EXIT_USAGE;
  }
  if (rc < 0)
    qsort(names, (size_t)nn, sizeof *names, cmp_str);
  for (int k = 0; k < nn && rc < 0; k++) {
    char full[EXP_PATH_MAX + 256];
    snprintf(full, sizeof full, "%s/%s", src->path, names[k]);
    struct stat fs;
    if (stat(full, &fs) == 0 && S_ISDIR(fs.st_mode))
      continue;
    rc = read_one(cfg, src, full, probs, np, cap);
  }
  for (int k = 0; k < nn; k++)
    free(names[k]);
  free(names);
  return rc;
}

/* Runs gen_instances (as a program) into path.  -1 ok, else exit status. */
static int generate(const exp_config *cfg, const exp_source *src, const exp_env *env,
                    const char *path)
{
  if (!env->gen || !env->gen[0]) {
    cli_error("%s:%d: generate: datasets/gen_instances not found (set LCPLAB_GEN_INSTANCES to "
              "its path)", cfg->path, src->line);
    return CLI_EXIT_USAGE;
  }
  char n[32], seed[32];
  snprintf(n, sizeof n, "%ld", src->n);
  snprintf(seed, sizeof seed, "%lu", src->seed);
  char *argv[] = {(char *)env->gen, "--type", (char *)src->family, "--n", n, "--seed", seed,
                  "--out", (char *)path, NULL};
  pid_t pid;
  int err = posix_spawn(&pid, env->gen, NULL, NULL, argv, environ);
  if (err != 0) {
    cli_error("%s:%d: generate: cannot run %s: %s", cfg->path, src->line, env->gen, strerror(err));
    return CLI_EXIT_USAGE;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      cli_error("%s:%d: generate: waitpid: %s", cfg->path, src->line, strerror(errno));
      return CLI_EXIT_USAGE;
    }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    cli_error("%s:%d: generate: %s --type %s --n %ld failed (status %d)", cfg->path, src->line,
              env->gen, src->family, src->n, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* Settings for a scene run; friction < 0: keep the default (box). */
static dyn_world_settings scene_settings(const exp_section *s, const exp_source *src,
                                         const char *solver, int friction, int integrator)
{
  dyn_world_settings set = dyn_world_settings_default();
  if (solver)
    snprintf(set.solver, sizeof set.solver, "%s", solver);
  if (friction >= 0)
    set.contact.friction = (dyn_friction)friction;
  set.integrator = (dyn_integrator)integrator;
  if (src->dt > 0)
    set.dt = src->dt;
  if (s->max_iter > 0)
    set.opt.max_iter = (int)s->max_iter;
  if (s->ntol > 0)
    set.opt.tol = s->tol[0];
  set.opt.seed = s->seed;
  return set;
}

static int build_scene(const exp_source *src, const dyn_world_settings *set, dyn_world **w,
                       char *msg, size_t len)
{
  const char *params[CLI_MAX_PARAMS];
  for (int k = 0; k < src->nparams; k++)
    params[k] = src->params[k];
  return dyn_scene_new(src->scene, params, src->nparams, set, w, msg, len) == DYN_OK ? 0 : -1;
}

static long scene_steps(const exp_source *src, double dt)
{
  return src->steps > 0 ? src->steps : dyn_scene_default_steps(src->scene, dt);
}

/* A deep copy of the last step's problem as an owned instance (dense A). */
static slv_instance *copy_problem(const slv_problem *p)
{
  slv_instance *inst = slv_instance_new_dense(p->n);
  if (!inst)
    return NULL;
  int n = p->n;
  if (p->storage == SLV_DENSE) {
    for (int j = 0; j < n; j++)
      memcpy(inst->A + (size_t)j * n, p->A + (size_t)j * p->lda, (size_t)n * sizeof(double));
  } else {
    for (int i = 0; i < n; i++)
      for (int k = p->Ap[i]; k < p->Ap[i + 1]; k++)
        inst->A[i + (size_t)p->Aj[k] * n] += p->Ax[k];
  }
  memcpy(inst->b, p->b, (size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) {
    inst->lo[i] = p->lo ? p->lo[i] : 0.0;
    inst->hi[i] = p->hi ? p->hi[i] : INFINITY;
  }
  if (p->findex) {
    inst->findex = malloc((size_t)n * sizeof(int));
    inst->mu = calloc((size_t)n, sizeof(double));
    if (!inst->findex || !inst->mu)
      goto fail;
    memcpy(inst->findex, p->findex, (size_t)n * sizeof(int));
    if (p->mu)
      memcpy(inst->mu, p->mu, (size_t)n * sizeof(double));
  }
  if (p->ncones > 0) {
    inst->cone_rows = malloc((size_t)p->ncones * sizeof(int));
    inst->cone_mu = malloc((size_t)p->ncones * sizeof(double));
    if (!inst->cone_rows || !inst->cone_mu)
      goto fail;
    memcpy(inst->cone_rows, p->cone_rows, (size_t)p->ncones * sizeof(int));
    memcpy(inst->cone_mu, p->cone_mu, (size_t)p->ncones * sizeof(double));
    inst->ncones = p->ncones;
  }
  inst->cone_law = p->cone_law;
  slv_instance_classify(inst);
  return inst;
fail:
  slv_instance_free(inst);
  return NULL;
}

/* A scene as a problem source: simulate to its last step, keep that problem. */
static int scene_problem(const exp_config *cfg, const exp_section *s, const exp_source *src,
                         exp_problem **probs, int *np, int *cap)
{
  int fr = src->friction >= 0 ? src->friction : DYN_FRICTION_BOX;
  const char *solver = src->solver[0] ? src->solver : (fr == DYN_FRICTION_CONE ? "nsgs" : "pgs");
  dyn_world_settings set = scene_settings(s, src, solver, fr, DYN_INT_SYMPLECTIC_EULER);
  set.opt = slv_options_default();
  set.opt.max_iter = 50;
  dyn_world *w = NULL;
  char msg[512] = "";
  if (build_scene(src, &set, &w, msg, sizeof msg)) {
    cli_error("%s:%d: scene: %s", cfg->path, src->line, msg[0] ? msg : "cannot build the scene");
    return CLI_EXIT_USAGE;
  }
  long K = scene_steps(src, dyn_world_get_settings(w)->dt);
  for (long k = 0; k < K; k++)
    if (dyn_world_step(w, NULL) != DYN_OK) {
      cli_error("%s:%d: scene: %s", cfg->path, src->line, dyn_world_message(w));
      dyn_world_free(w);
      return CLI_EXIT_USAGE;
    }
  slv_problem p;
  const double *x;
  dyn_world_last_problem(w, &p, &x);
  if (p.n == 0) {
    cli_error("%s:%d: scene: %s has no contact at step %ld: no problem to take (change steps=)",
              cfg->path, src->line, src->scene, K);
    dyn_world_free(w);
    return CLI_EXIT_USAGE;
  }
  slv_instance *inst = copy_problem(&p);
  dyn_world_free(w);
  char label[128];
  snprintf(label, sizeof label, "%s-%s-k%ld", src->scene, friction_str[fr], K);
  for (int k = 0; k < src->nparams; k++) {
    size_t l = strlen(label);
    snprintf(label + l, sizeof label - l, "-%s", src->params[k]);
  }
  if (!inst || add_problem(probs, np, cap, inst, label)) {
    slv_instance_free(inst);
    cli_error("out of memory");
    return CLI_EXIT_USAGE;
  }
  return -1;
}

int exp_section_prepare(const exp_config *cfg, const exp_section *s, const exp_env *env,
                        exp_problem **probs, int *nprob)
{
  *probs = NULL;
  *nprob = 0;
  int cap = 0, rc = -1;
  for (int k = 0; k < s->nsrc && rc < 0; k++) {
    const exp_source *src = &s->src[k];
    if (src->kind == EXP_SRC_FILE) {
      rc = load_path(cfg, src, probs, nprob, &cap);
    } else if (src->kind == EXP_SRC_GEN) {
      char path[EXP_PATH_MAX + 128];
      snprintf(path, sizeof path, "%s/%s_%ld_s%lu.lcp", env->datadir, src->family, src->n,
               src->seed);
      if (!cli_path_exists(path)) {
        progress(env, "generating %s", path);
        rc = generate(cfg, src, env, path);
      }
      if (rc < 0) {
        rc = read_one(cfg, src, path, probs, nprob, &cap);
        if (rc < 0) {
          exp_problem *p = &(*probs)[*nprob - 1];
          snprintf(p->family, sizeof p->family, "%s", src->family);
        }
      }
    } else if (s->kind == EXP_DRIFT || s->kind == EXP_ACCURACY) {
      /* checked now so that a bad parameter fails before any run */
      dyn_world_settings set = scene_settings(s, src, NULL, -1, DYN_INT_SYMPLECTIC_EULER);
      dyn_world *w = NULL;
      char msg[512] = "";
      if (build_scene(src, &set, &w, msg, sizeof msg)) {
        cli_error("%s:%d: scene: %s", cfg->path, src->line, msg[0] ? msg : "cannot build it");
        rc = CLI_EXIT_USAGE;
      } else if (scene_steps(src, dyn_world_get_settings(w)->dt) < 1) {
        cli_error("%s:%d: scene: no default step count: give steps=", cfg->path, src->line);
        rc = CLI_EXIT_USAGE;
      }
      dyn_world_free(w);
    } else {
      rc = scene_problem(cfg, s, src, probs, nprob, &cap);
    }
  }
  if (rc >= 0) {
    exp_problems_free(*probs, *nprob);
    *probs = NULL;
    *nprob = 0;
  }
  return rc;
}

void exp_problems_free(exp_problem *probs, int nprob)
{
  for (int k = 0; k < nprob; k++)
    slv_instance_free(probs[k].inst);
  free(probs);
}

/* ---- one measured solve --------------------------------------------------------------- */

typedef struct meas {
  int unsupported;      /* slv_solver_accepts refused: no numbers */
  slv_status status;
  int iterations, pivots, repeats;
  double tmed, tmin;
  slv_residuals res;
  const double *history;
  int history_len;
  char msg[256];
} meas;

/* Buffers for one problem: x, w (n) and the repeat times (R). */
typedef struct bufs {
  double *x, *w, *t;
} bufs;

static int bufs_new(bufs *b, int n, long repeat)
{
  size_t m = (size_t)(n > 0 ? n : 1);
  b->x = malloc(m * sizeof(double));
  b->w = malloc(m * sizeof(double));
  b->t = malloc((size_t)repeat * sizeof(double));
  return (b->x && b->w && b->t) ? 0 : -1;
}

static void bufs_free(bufs *b)
{
  free(b->x);
  free(b->w);
  free(b->t);
}

/* Warm-up + R timed solves (see the header).  *ws is the workspace kept for
 * the history (the caller frees it). */
static void measure(const exp_section *s, const slv_solver *sv, const slv_problem *p,
                    const slv_options *opt, bufs *b, slv_workspace **ws, meas *m)
{
  memset(m, 0, sizeof *m);
  *ws = NULL;
  if (slv_solver_accepts(sv, p, m->msg, sizeof m->msg) != SLV_OK) {
    m->unsupported = 1;
    return;
  }
  slv_status st = slv_workspace_new(sv, p->n > 0 ? p->n : 1, opt, ws);
  if (st != SLV_OK) {
    m->status = st;
    snprintf(m->msg, sizeof m->msg, "workspace: %s", slv_status_str(st));
    return;
  }
  slv_result res;
  double t0 = cli_now_s();
  st = slv_solve(*ws, p, opt, b->x, b->w, &res);
  double twarm = cli_now_s() - t0;
  long R = s->repeat;
  if (st >= 0 && twarm * (double)R > s->budget) {
    b->t[0] = twarm; /* too slow to repeat within the budget: the warm-up is the measurement */
    R = 1;
  } else {
    for (long r = 0; st >= 0 && r < R; r++) {
      t0 = cli_now_s();
      st = slv_solve(*ws, p, opt, b->x, b->w, &res);
      b->t[r] = cli_now_s() - t0;
    }
  }
  m->status = st;
  if (st < 0) {
    snprintf(m->msg, sizeof m->msg, "%s", res.message);
    return;
  }
  m->iterations = res.iterations;
  m->pivots = res.pivots;
  m->res = res.res;
  m->history = res.history;
  m->history_len = res.history_len;
  m->repeats = (int)R;
  m->tmin = b->t[0];
  for (long r = 1; r < R; r++)
    if (b->t[r] < m->tmin)
      m->tmin = b->t[r];
  qsort(b->t, (size_t)R, sizeof *b->t, cli_cmp_double);
  m->tmed = (R % 2) ? b->t[R / 2] : 0.5 * (b->t[R / 2 - 1] + b->t[R / 2]);
}

static slv_options base_options(const exp_section *s, double tol)
{
  slv_options opt = slv_options_default();
  opt.tol = tol;
  opt.max_iter = s->max_iter > 0 ? (int)s->max_iter : 10000;
  opt.seed = s->seed;
  opt.warm_start = 0;
  return opt;
}

static int flush_check(FILE *f)
{
  if (fflush(f) != 0 || ferror(f)) {
    cli_error("cannot write the CSV: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* ---- convergence ------------------------------------------------------------------------ */

static int run_convergence(const exp_section *s, const exp_problem *probs, int np,
                           const exp_env *env, FILE *f)
{
  double tol = s->ntol ? s->tol[0] : 1e-8;
  slv_options opt = base_options(s, tol);
  opt.record_history = 1;
  for (int pi = 0; pi < np; pi++) {
    const exp_problem *pr = &probs[pi];
    slv_problem p = slv_instance_problem(pr->inst);
    bufs b;
    if (bufs_new(&b, p.n, s->repeat)) {
      bufs_free(&b);
      cli_error("out of memory for n = %d", p.n);
      return -1;
    }
    for (int si = 0; si < s->nsolvers; si++) {
      if (*env->stop) {
        bufs_free(&b);
        return 1;
      }
      const slv_solver *sv = s->solvers[si];
      slv_workspace *ws = NULL;
      meas m;
      measure(s, sv, &p, &opt, &b, &ws, &m);
      const char *head = pr->label;
      if (m.unsupported || m.status < 0) {
        fprintf(f, "%s,%s,%d,%s,%s,,,,1\n", head, pr->inst->kind, p.n, sv->name,
                m.unsupported ? "unsupported" : slv_status_str(m.status));
      } else {
        const char *st = slv_status_str(m.status);
        int K = m.history_len - 1;
        double last_grid = -1.0;
        for (int k = 0; k <= K; k++) {
          /* geometric thinning: every k <= 20, then steps of 5 % */
          if (k > 20 && k < K && (double)k < last_grid * 1.05)
            continue;
          last_grid = k;
          fprintf(f, "%s,%s,%d,%s,%s,%d", head, pr->inst->kind, p.n, sv->name, st, k);
          put_num(f, K > 0 ? m.tmed * k / K : 0.0);
          put_num(f, m.history[k]);
          fputs(",0\n", f);
        }
        fprintf(f, "%s,%s,%d,%s,%s,%d", head, pr->inst->kind, p.n, sv->name, st,
                m.iterations > 0 ? m.iterations : m.pivots);
        put_num(f, m.tmed);
        put_num(f, m.res.res_rel);
        fputs(",1\n", f);
      }
      slv_workspace_free(ws);
      progress(env, "%s [%d/%d] %s %s: %s", s->name, pi + 1, np, pr->label, sv->name,
               m.unsupported ? "unsupported" : slv_status_str(m.status));
      if (flush_check(f)) {
        bufs_free(&b);
        return -1;
      }
    }
    bufs_free(&b);
  }
  return 0;
}

/* ---- profile ------------------------------------------------------------------------------ */

static int write_profile(const exp_section *s, int np, const double *T, FILE *g)
{
  int ns = s->nsolvers;
  size_t pn = (size_t)(np > 0 ? np : 1) * (size_t)ns;
  double *r = malloc(pn * sizeof *r);
  double *taus = malloc((size_t)(np > 0 ? np : 1) * sizeof *taus);
  if (!r || !taus) {
    free(r);
    free(taus);
    cli_error("out of memory for the profile");
    return -1;
  }
  for (int ti = 0; ti < s->ntol; ti++) {
    const double *Tt = T + (size_t)ti * pn;
    exp_profile_ratios(np, ns, Tt, r);
    double rmax = 1.0;
    for (size_t k = 0; k < (size_t)np * (size_t)ns; k++)
      if (isfinite(r[k]) && r[k] > rmax)
        rmax = r[k];
    rmax *= 2.0; /* the curves end right of the last jump */
    for (int si = 0; si < ns; si++) {
      int nb = exp_profile_breaks(np, ns, r, si, taus);
      /* share solved: rho at the largest finite ratio (INFINITY would count failures) */
      double share = nb > 0 ? exp_profile_rho(np, ns, r, si, taus[nb - 1]) : 0.0;
      /* tau = 1 first (rho(1): fastest share), then each jump, then rmax */
      double prev = 0.0;
      for (int k = -1; k <= nb; k++) {
        double tau = k < 0 ? 1.0 : k < nb ? taus[k] : rmax;
        if (k >= 0 && k < nb && tau == 1.0)
          continue;
        if (k >= 0 && tau < prev)
          continue;
        prev = tau;
        fprintf(g, "%g,%s", s->tol[ti], s->solvers[si]->name);
        put_num(g, tau);
        put_num(g, log2(tau));
        put_num(g, exp_profile_rho(np, ns, r, si, tau));
        put_num(g, share);
        fprintf(g, ",%d\n", np);
      }
    }
  }
  free(r);
  free(taus);
  return flush_check(g);
}

static int run_profile(const exp_section *s, const exp_problem *probs, int np,
                       const exp_env *env, FILE *f, FILE *g)
{
  double deft[2] = {1e-4, 1e-8};
  exp_section loc = *s;
  if (loc.ntol == 0) {
    loc.ntol = 2;
    loc.tol[0] = deft[0];
    loc.tol[1] = deft[1];
  }
  int ns = s->nsolvers;
  size_t pn = (size_t)(np > 0 ? np : 1) * (size_t)ns;
  double *T = malloc((size_t)loc.ntol * pn * sizeof *T);
  if (!T) {
    cli_error("out of memory");
    return -1;
  }
  for (size_t k = 0; k < (size_t)loc.ntol * pn; k++)
    T[k] = INFINITY;
  int done = 0, rc = 0;
  for (int pi = 0; pi < np && rc == 0; pi++) {
    const exp_problem *pr = &probs[pi];
    slv_problem p = slv_instance_problem(pr->inst);
    bufs b;
    if (bufs_new(&b, p.n, s->repeat)) {
      bufs_free(&b);
      cli_error("out of memory for n = %d", p.n);
      rc = -1;
      break;
    }
    for (int ti = 0; ti < loc.ntol && rc == 0; ti++) {
      slv_options opt = base_options(s, loc.tol[ti]);
      for (int si = 0; si < ns; si++) {
        if (*env->stop) {
          rc = 1;
          break;
        }
        const slv_solver *sv = s->solvers[si];
        slv_workspace *ws = NULL;
        meas m;
        measure(s, sv, &p, &opt, &b, &ws, &m);
        slv_workspace_free(ws);
        fprintf(f, "%s,%s,%d,%s,%g", pr->label, pr->inst->kind, p.n, sv->name, loc.tol[ti]);
        if (m.unsupported || m.status < 0) {
          fprintf(f, ",%s,,,,,,,,0\n", m.unsupported ? "unsupported" : slv_status_str(m.status));
        } else {
          int ok = m.status == SLV_OK;
          fprintf(f, ",%s,%d,%d", slv_status_str(m.status), m.iterations, m.pivots);
          put_num(f, m.tmed);
          put_num(f, m.tmin);
          fprintf(f, ",%d", m.repeats);
          put_num(f, m.res.res_rel);
          put_num(f, m.res.res_nat_inf);
          fprintf(f, ",%d\n", ok);
          if (ok)
            T[(size_t)ti * pn + (size_t)pi * ns + si] = m.tmed > 0 ? m.tmed : 1e-9;
        }
        progress(env, "%s [%d/%d] %s tol %g %s: %s", s->name, pi + 1, np, pr->label,
                 loc.tol[ti], sv->name, m.unsupported ? "unsupported" : slv_status_str(m.status));
        if (flush_check(f)) {
          rc = -1;
          break;
        }
      }
    }
    bufs_free(&b);
    if (rc == 0)
      done = pi + 1;
  }
  /* the profile over the problems completed (all of them unless interrupted) */
  if (rc >= 0 && write_profile(&loc, done, T, g))
    rc = -1;
  free(T);
  return rc;
}

/* ---- scaling ------------------------------------------------------------------------------ */

static int run_scaling(const exp_section *s, const exp_problem *probs, int np,
                       const exp_env *env, FILE *f, FILE *g)
{
  double tol = s->ntol ? s->tol[0] : 1e-8;
  slv_options opt = base_options(s, tol);
  int ns = s->nsolvers;
  size_t pn = (size_t)(np > 0 ? np : 1) * (size_t)ns;
  double *T = malloc(pn * sizeof *T);
  double *lx = malloc((size_t)(np > 0 ? np : 1) * sizeof *lx);
  double *ly = malloc((size_t)(np > 0 ? np : 1) * sizeof *ly);
  if (!T || !lx || !ly) {
    free(T);
    free(lx);
    free(ly);
    cli_error("out of memory");
    return -1;
  }
  for (size_t k = 0; k < pn; k++)
    T[k] = NAN;
  int rc = 0, done = 0;
  for (int pi = 0; pi < np && rc == 0; pi++) {
    const exp_problem *pr = &probs[pi];
    slv_problem p = slv_instance_problem(pr->inst);
    bufs b;
    if (bufs_new(&b, p.n, s->repeat)) {
      bufs_free(&b);
      cli_error("out of memory for n = %d", p.n);
      rc = -1;
      break;
    }
    for (int si = 0; si < ns; si++) {
      if (*env->stop) {
        rc = 1;
        break;
      }
      const slv_solver *sv = s->solvers[si];
      slv_workspace *ws = NULL;
      meas m;
      measure(s, sv, &p, &opt, &b, &ws, &m);
      slv_workspace_free(ws);
      fprintf(f, "%s,%s,%s,%d,%s", pr->family, pr->label, pr->inst->kind, p.n, sv->name);
      if (m.unsupported || m.status < 0) {
        fprintf(f, ",%s,,,,,,\n", m.unsupported ? "unsupported" : slv_status_str(m.status));
      } else {
        fprintf(f, ",%s,%d,%d", slv_status_str(m.status), m.iterations, m.pivots);
        put_num(f, m.tmed);
        put_num(f, m.tmin);
        fprintf(f, ",%d", m.repeats);
        put_num(f, m.res.res_rel);
        fputc('\n', f);
        if (m.status == SLV_OK && m.tmed > 0)
          T[(size_t)pi * ns + si] = m.tmed;
      }
      progress(env, "%s [%d/%d] %s %s: %s", s->name, pi + 1, np, pr->label, sv->name,
               m.unsupported ? "unsupported" : slv_status_str(m.status));
      if (flush_check(f)) {
        rc = -1;
        break;
      }
    }
    bufs_free(&b);
    if (rc == 0)
      done = pi + 1;
  }
  /* slopes per (family, solver) over the converged points, families in order */
  for (int pi = 0; rc >= 0 && pi < done; pi++) {
    int first = 1;
    for (int q = 0; q < pi; q++)
      if (strcmp(probs[q].family, probs[pi].family) == 0)
        first = 0;
    if (!first)
      continue;
    for (int si = 0; si < ns; si++) {
      int k = 0;
      for (int q = pi; q < done; q++)
        if (strcmp(probs[q].family, probs[pi].family) == 0 && isfinite(T[(size_t)q * ns + si])) {
          lx[k] = log((double)probs[q].inst->n);
          ly[k] = log(T[(size_t)q * ns + si]);
          k++;
        }
      double a, sl, r2;
      fprintf(g, "%s,%s,%d", probs[pi].family, s->solvers[si]->name, k);
      if (exp_fit_line(lx, ly, k, &a, &sl, &r2) == 0) {
        put_num(g, sl);
        put_num(g, a);
        put_num(g, r2);
        fputc('\n', g);
      } else {
        fputs(",,,\n", g);
      }
    }
  }
  if (rc >= 0 && flush_check(g))
    rc = -1;
  free(T);
  free(lx);
  free(ly);
  return rc;
}

/* ---- scene kinds -------------------------------------------------------------------------- */

/* The friction model a solver gets under "auto", or -1 if it takes none. */
static int auto_friction(const slv_solver *sv)
{
  if (sv->caps & SLV_CAP_ONLY_FREE)
    return -1;
  if (sv->caps & SLV_CAP_FINDEX)
    return DYN_FRICTION_BOX;
  if (sv->caps & SLV_CAP_CONE)
    return DYN_FRICTION_CONE;
  return DYN_FRICTION_PYRAMID;
}

/* The drift scale S = max(|E0|, M |g| D): M the moving bodies' mass, D the
 * diagonal of the box around their centres (header comment). */
static double drift_scale(dyn_world *w, double E0) {
  const dyn_body *bd = dyn_world_bodies(w);
  double M = 0, lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < dyn_world_body_count(w); i++) {
    if (bd[i].is_static)
      continue;
    double c[3] = {bd[i].r.x, bd[i].r.y, bd[i].r.z};
    M += bd[i].mass;
    for (int a = 0; a < 3; a++) {
      lo[a] = fmin(lo[a], c[a]);
      hi[a] = fmax(hi[a], c[a]);
    }
  }
  if (!(M > 0))
    return fabs(E0);
  dyn_v3 g = dyn_world_get_settings(w)->gravity;
  double d0 = hi[0] - lo[0], d1 = hi[1] - lo[1], d2 = hi[2] - lo[2];
  double D = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  return fmax(fabs(E0), M * sqrt(g.x * g.x + g.y * g.y + g.z * g.z) * D);
}

static int run_scenes(const exp_section *s, const exp_env *env, FILE *f)
{
  int nint = s->nint ? s->nint : 1;
  int ints[3] = {DYN_INT_SYMPLECTIC_EULER, 0, 0};
  if (s->nint)
    memcpy(ints, s->integrators, sizeof ints);
  if (s->kind == EXP_ACCURACY)
    nint = 1;
  int total = s->nsrc * nint * s->nsolvers, run = 0;
  for (int ci = 0; ci < s->nsrc; ci++) {
    const exp_source *src = &s->src[ci];
    for (int ii = 0; ii < nint; ii++) {
      for (int si = 0; si < s->nsolvers; si++) {
        if (*env->stop)
          return 1;
        run++;
        const slv_solver *sv = s->solvers[si];
        int want = src->friction != -2 ? src->friction : s->friction;
        int fr = want == EXP_FRICTION_AUTO ? auto_friction(sv) : want;
        const char *integ = integrator_str[ints[ii]];
        if (fr < 0) {
          fprintf(f, "%s,%s,%s,auto,,,,,,,,,unsupported\n", src->scene, sv->name, integ);
          progress(env, "%s [%d/%d] %s %s %s: unsupported", s->name, run, total, src->scene,
                   sv->name, integ);
          if (flush_check(f))
            return -1;
          continue;
        }
        dyn_world_settings set = scene_settings(s, src, sv->name, fr, ints[ii]);
        dyn_world *w = NULL;
        char msg[512] = "";
        if (build_scene(src, &set, &w, msg, sizeof msg)) {
          fprintf(f, "%s,%s,%s,%s,,,,,,,,,refused\n# note: %s\n", src->scene, sv->name, integ,
                  friction_str[fr], msg);
          dyn_world_free(w);
          if (flush_check(f))
            return -1;
          continue;
        }
        long K = scene_steps(src, dyn_world_get_settings(w)->dt);
        double E0 = dyn_world_energy(w, NULL, NULL), scale = drift_scale(w, E0);
        const char *last = "converged";
        for (long k = 0; k < K; k++) {
          if (*env->stop)
            break;
          dyn_world_metrics m;
          dyn_err e = dyn_world_step(w, &m);
          if (e != DYN_OK) {
            /* the solver turned the step's problem down, or solved it into
             * something worse than no impulse (world.c): say which */
            last = e == DYN_ERR_NUMERIC ? "failed" : "refused";
            fprintf(f, "%s,%s,%s,%s,%ld,,,,,,,,%s\n# note: %s\n", src->scene, sv->name, integ,
                    friction_str[fr], k + 1, last, dyn_world_message(w));
            break;
          }
          fprintf(f, "%s,%s,%s,%s,%ld", src->scene, sv->name, integ, friction_str[fr], m.step);
          put_num(f, m.t);
          if (s->kind == EXP_DRIFT) {
            put_num(f, m.energy);
            if (scale > 0.0)
              put_num(f, (m.energy - E0) / scale);
            else
              fputc(',', f);
            put_num(f, m.max_penetration);
            fprintf(f, ",%d,%d", m.contacts, m.iterations);
            put_num(f, m.res_nat_inf);
          } else {
            put_num(f, m.max_penetration);
            if (dyn_world_joint_count(w) > 0)
              put_num(f, m.joint_error);
            else
              fputc(',', f); /* no joints: no joint error */
            slv_problem p;
            const double *x;
            dyn_world_last_problem(w, &p, &x);
            slv_residuals r = {0};
            if (p.n > 0)
              r = slv_residual(&p, x, NULL);
            put_num(f, r.compl);
            put_num(f, r.infeas);
            put_num(f, m.res_nat_inf);
            fprintf(f, ",%d", m.iterations);
          }
          last = slv_status_str(m.status);
          fprintf(f, ",%s\n", last);
        }
        dyn_world_free(w);
        progress(env, "%s [%d/%d] %s %s %s %s: %ld steps, last %s", s->name, run, total,
                 src->scene, sv->name, integ, friction_str[fr], K, last);
        if (flush_check(f))
          return -1;
      }
    }
  }
  return *env->stop ? 1 : 0;
}

int exp_section_run(const exp_section *s, const exp_problem *probs, int nprob,
                    const exp_env *env, FILE *csv, FILE *csv2)
{
  switch (s->kind) {
  case EXP_CONVERGENCE:
    return run_convergence(s, probs, nprob, env, csv);
  case EXP_PROFILE:
    return run_profile(s, probs, nprob, env, csv, csv2);
  case EXP_SCALING:
    return run_scaling(s, probs, nprob, env, csv, csv2);
  case EXP_DRIFT:
  case EXP_ACCURACY:
    return run_scenes(s, env, csv);
  default:
    return -1;
  }
}
