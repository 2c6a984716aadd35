/* experiment_scene.c -- the scene tasks of drift and accuracy sections: one
 * run of a scene (libdynamics dyn_scene_new, dyn_world_step) with one solver,
 * one friction model and one integrator, one CSV row per step
 * (experiments/README.md, "drift" and "accuracy").
 *
 * Friction groups: a section compares the solvers on one friction model at
 * a time (`friction box cone` by default: the pivoting and PGS-type solvers
 * on box friction with findex rows, the cone solvers on Coulomb cones;
 * `friction pyramid` is the one model every LCP solver takes).  A solver
 * that cannot take the group's model gets one row with status "refused"
 * and the reason, and no run: it is coverage, not a failure.  `friction
 * none` runs every solver (direct included: on joint-only scenes it is the
 * exact reference); a step whose problem the solver refuses ends the run
 * with a "refused" row naming the step.
 *
 *   drift: energy E (kinetic + potential, floor at z = 0) and its relative
 *     drift (E - E0) / S with E0 before the first step and the scale
 *     S = max(|E0|, M |g| D) fixed then: M the dynamic bodies' total mass, D
 *     the diagonal of the box around their centres (the potential energy a
 *     fall across the scene's own extent releases); |E0| alone is
 *     meaningless when a scene starts at E0 = 0, as the chain released at
 *     rest at z = 0 does; a fixed S keeps a blow-up visible (empty if S = 0);
 *     the deepest penetration of the step, contacts, iterations,
 *     res_nat_inf;
 *   accuracy: penetration, joint error (dyn_world_metrics.joint_error: the
 *     largest anchor error after the step, m; empty when the scene has no
 *     joint), and the complementarity and infeasibility of the step's solve,
 *     recomputed with slv_residual from the step's problem and the impulses
 *     applied (dyn_world_last_problem).
 * Every step row has the step's solve status and what the world applied
 * (step_outcome below).  The whole run is under the watchdog with the
 * section's time limit: a run that passes it ends with a time_limit row at
 * the step in progress.
 */
#define _GNU_SOURCE

#include "experiment_task.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_world.h"

static const char *const friction_str[] = {"none", "box", "pyramid", "cone"};
static const char *const integrator_str[] = {"symplectic", "explicit", "verlet"};

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

/* Whether sv takes the rows of friction model fr; the reason if not. */
static int takes_friction(const slv_solver *sv, int fr, char *why, size_t len)
{
  const char *need = NULL;
  if (fr == DYN_FRICTION_BOX && !(sv->caps & SLV_CAP_FINDEX))
    need = "findex friction rows (box friction)";
  else if (fr == DYN_FRICTION_CONE && !(sv->caps & SLV_CAP_CONE))
    need = "Coulomb cones";
  else if (fr == DYN_FRICTION_PYRAMID && (sv->caps & SLV_CAP_ONLY_FREE))
    need = "contact rows (lo = 0: the pyramid LCP)";
  if (need)
    snprintf(why, len, "%s does not take %s: not in this friction group", sv->name, need);
  return need == NULL;
}

static dyn_world_settings settings_of(const exp_section *s, const exp_source *src,
                                      const slv_solver *sv, int fr, int integrator)
{
  dyn_world_settings set = dyn_world_settings_default();
  snprintf(set.solver, sizeof set.solver, "%s", sv->name);
  set.contact.friction = (dyn_friction)fr;
  set.integrator = (dyn_integrator)integrator;
  if (src->cone_law >= 0)
    set.cone_law = (slv_cone_law)src->cone_law;
  if (src->dt > 0)
    set.dt = src->dt;
  if (s->max_iter > 0)
    set.opt.max_iter = (int)s->max_iter;
  if (s->ntol > 0)
    set.opt.tol = s->tol[0];
  set.opt.seed = s->seed;
  return set;
}

/* The drift scale S = max(|E0|, M |g| D) (header). */
static double drift_scale(dyn_world *w, double E0)
{
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

/* What a step did: the solve's status and what the world applied.  The
 * world is to report its failure policy's action per step
 * (dyn_world_metrics status/applied, `--on-failure`); until then a step
 * that returns DYN_OK applied the solver's impulses ("solution"), and one
 * that does not ends the run ("none"). */
static void step_outcome(dyn_err e, const dyn_world_metrics *m, const char **status,
                         const char **applied)
{
  if (e == DYN_OK) {
    *status = slv_status_str(m->status);
    *applied = "solution";
  } else {
    *status = e == DYN_ERR_NUMERIC ? "failed" : "refused";
    *applied = "none";
  }
}

typedef struct srun {
  exp_tctx *c;
  const char *scene, *solver, *integ, *fric;
} srun;

static void row_head(const srun *r, exp_line *l)
{
  memset(l, 0, sizeof *l);
  exp_line_str(l, r->scene);
  exp_line_str(l, r->solver);
  exp_line_str(l, r->integ);
  exp_line_str(l, r->fric);
}

/* A row without numbers: step (0: none), status, applied, note. */
static void bare_row(const srun *r, long step, const char *status, const char *applied,
                     const char *note, exp_line *l)
{
  row_head(r, l);
  if (step > 0)
    exp_line_int(l, step);
  else
    exp_line_empty(l);
  for (int k = 0; k < 7; k++)
    exp_line_empty(l);
  exp_line_str(l, status);
  exp_line_str(l, applied);
  exp_line_str(l, note);
}

static void step_row(const srun *r, dyn_world *w, const dyn_world_metrics *m, double E0,
                     double scale, const char *status, const char *applied, exp_line *l)
{
  row_head(r, l);
  exp_line_int(l, m->step);
  exp_line_num(l, m->t);
  if (r->c->s->kind == EXP_DRIFT) {
    exp_line_num(l, m->energy);
    if (scale > 0.0)
      exp_line_num(l, (m->energy - E0) / scale);
    else
      exp_line_empty(l);
    exp_line_num(l, m->max_penetration);
    exp_line_int(l, m->contacts);
    exp_line_int(l, m->iterations);
    exp_line_num(l, m->res_nat_inf);
  } else {
    exp_line_num(l, m->max_penetration);
    if (dyn_world_joint_count(w) > 0)
      exp_line_num(l, m->joint_error);
    else
      exp_line_empty(l); /* no joints: no joint error */
    slv_problem p;
    const double *x;
    dyn_world_last_problem(w, &p, &x);
    slv_residuals res = {0};
    if (p.n > 0)
      res = slv_residual(&p, x, NULL);
    exp_line_num(l, res.compl);
    exp_line_num(l, res.infeas);
    exp_line_num(l, m->res_nat_inf);
    exp_line_int(l, m->iterations);
  }
  exp_line_str(l, status);
  exp_line_str(l, applied);
  exp_line_str(l, "");
}

static void arm_for_step(srun *r, long step, double limit, double t_end)
{
  exp_line l;
  char note[96];
  snprintf(note, sizeof note, "time limit %g s reached during step %ld", limit, step);
  bare_row(r, step, "time_limit", "none", note, &l);
  char buf[sizeof l.s + 2];
  snprintf(buf, sizeof buf, "%s\n", l.s);
  exp_wd_arm(r->c->wd, t_end - cli_now_s(), buf, 1);
}

static void build_params(const exp_source *src, const char **params)
{
  for (int k = 0; k < src->nparams; k++)
    params[k] = src->params[k];
}

int exp_scene_run(exp_tctx *c)
{
  const exp_task *t = c->t;
  const exp_source *src = &c->s->src[t->src];
  const slv_solver *sv = t->solver.sv;
  int fr = t->friction == EXP_FRICTION_AUTO ? auto_friction(sv) : t->friction;
  srun r = {c, src->scene, sv->name, integrator_str[t->integrator], fr >= 0 ? friction_str[fr] : "auto"};
  exp_line l;
  char why[256];
  if (fr < 0 || !takes_friction(sv, fr, why, sizeof why)) {
    if (fr < 0)
      snprintf(why, sizeof why, "%s takes no contact rows", sv->name);
    bare_row(&r, 0, "refused", "none", why, &l);
    exp_tctx_row(c, &l);
    return 0;
  }
  dyn_world_settings set = settings_of(c->s, src, sv, fr, t->integrator);
  const char *params[CLI_MAX_PARAMS];
  build_params(src, params);
  dyn_world *w = NULL;
  char msg[512] = "";
  if (dyn_scene_new(src->scene, params, src->nparams, &set, &w, msg, sizeof msg) != DYN_OK) {
    bare_row(&r, 0, "refused", "none", msg[0] ? msg : "cannot build the scene", &l);
    exp_tctx_row(c, &l);
    dyn_world_free(w);
    return 0;
  }
  long K = src->steps > 0 ? src->steps
                          : dyn_scene_default_steps(src->scene, dyn_world_get_settings(w)->dt);
  double E0 = dyn_world_energy(w, NULL, NULL), scale = drift_scale(w, E0);
  double limit = exp_time_limit(c->pl, c->s), t_end = cli_now_s() + limit;
  for (long k = 0; k < K; k++) {
    arm_for_step(&r, k + 1, limit, t_end);
    dyn_world_metrics m;
    dyn_err e = dyn_world_step(w, &m);
    const char *status, *applied;
    step_outcome(e, &m, &status, &applied);
    if (e != DYN_OK) {
      bare_row(&r, k + 1, status, applied, dyn_world_message(w), &l);
      exp_tctx_row(c, &l);
      c->nonconv = 1;
      break;
    }
    c->nonconv |= m.status != SLV_CONVERGED;
    step_row(&r, w, &m, E0, scale, status, applied, &l);
    exp_tctx_row(c, &l);
  }
  exp_wd_disarm(c->wd);
  dyn_world_free(w);
  return 0;
}
