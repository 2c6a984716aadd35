/* scene_task.c -- the scene tasks of a comparison (the scenes, the step
 * loop, the metric columns and the run summary are libdynamics': scenes.c,
 * dyn_run.h): in drift and accuracy sections one run of a scene
 * (dyn_scene_new, dyn_world_run) with one solver, one friction model and
 * one integrator, one CSV row per step whose metric columns are the table's
 * DYN_METRICS_DRIFT or DYN_METRICS_ACCURACY (experiments/README.md, "drift"
 * and "accuracy"); in a scenes section a built-in solver's run, summarised
 * in one row (dyn_run_stats; exp_scene_summary_run; a scene peer's is
 * scene_peer.c's).
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
 *   drift: energy E (kinetic + potential, floor at z = 0) and its drift
 *     rel_drift (dyn_energy_drift: (E - E0) / S with E0 before the first
 *     step and S = max(|E0|, M |g| D) fixed then; docs/dynamics.md, "Energy
 *     drift"; empty if S = 0), the deepest penetration of the step,
 *     contacts, iterations, res_nat_inf;
 *   accuracy: penetration, joint error (the largest anchor error after the
 *     step, m; empty when the scene has no joint), and the complementarity
 *     and infeasibility of the step's solve, recomputed with slv_residual
 *     from the step's problem and the impulses applied
 *     (dyn_world_last_residual).
 * Every step row has the step's solve status and what the world applied
 * (dyn_applied_label, policy_note): a failed solve goes to the world's failure policy
 * (the section's on_failure, fallback_solver, fallback_max_iter;
 * docs/dynamics.md, "The world step"), and the row says which impulses the
 * step applied -- solver (its x), none (no rows), fallback:SOLVER, warm, zero --
 * with the policy's verdict in note.  A step the policy stops (stop, or
 * keep with an x worse than no impulse) ends the run with a row of the
 * solver's status, applied none.  With --dump-failures DIR every failed
 * step's problem, solver, options and start are written (exp_dump_solve)
 * to DIR/SECTION/tNNNNNN_SCENE_SOLVER_INTEGRATOR_FRICTION/stepK.*, listed
 * with the status and res_nat_inf (%.17g) in failures.csv there, so that
 * `lcplab solve stepK.lcp --warm stepK.warm` repeats them bit for bit.  The
 * whole run is under the watchdog with the section's time limit: a run
 * that passes it ends with a time_limit row at the step in progress.
 */
#define _GNU_SOURCE

#include "exp_task.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dyn_world.h"

/* The name of friction model fr (libdynamics' settings' names), "auto"
 * for none. */
static const char *friction_name(int fr) {
  const char *s = fr >= 0 ? dyn_world_settings_enum_name("friction", fr) : NULL;
  return s ? s : "auto";
}

/* The friction model a solver gets under "auto", or -1 if it takes none. */
static int auto_friction(const slv_solver *sv) {
  if (sv->caps & SLV_CAP_ONLY_FREE) return -1;
  if (sv->caps & SLV_CAP_FINDEX) return DYN_FRICTION_BOX;
  if (sv->caps & SLV_CAP_CONE) return DYN_FRICTION_CONE;
  return DYN_FRICTION_PYRAMID;
}

/* Whether sv takes the rows of friction model fr; the reason if not. */
static int takes_friction(const slv_solver *sv, int fr, char *why, size_t len) {
  const char *need = NULL;
  if (fr == DYN_FRICTION_BOX && !(sv->caps & SLV_CAP_FINDEX))
    need = "findex friction rows (box friction)";
  else if (fr == DYN_FRICTION_CONE && !(sv->caps & SLV_CAP_CONE))
    need = "Coulomb cones";
  else if (fr == DYN_FRICTION_PYRAMID && (sv->caps & SLV_CAP_ONLY_FREE))
    need = "contact rows (lo = 0: the pyramid LCP)";
  if (need) snprintf(why, len, "%s does not take %s: not in this friction group", sv->name, need);
  return need == NULL;
}

/* The world settings of a scene task: the defaults, the section's keys
 * (max_iter and max_pivots as every solve's budget: exp_options_budget;
 * tol, seed, the failed-step policy), the scene
 * line's own settings (exp_source_world: checked when the file was read),
 * then the task's solver, friction model and integrator (integrator < 0:
 * the world's, as the line set it). */
dyn_world_settings exp_scene_settings(const exp_section *s, const exp_source *src,
                                      const char *solver, int fr, int integrator) {
  dyn_world_settings set = dyn_world_settings_default();
  char err[256];
  exp_options_budget(&set.opt, s->max_iter, s->max_pivots); /* max_iter: sweeps and pivots */
  if (s->ntol > 0) set.opt.tol = s->tol[0];
  set.opt.seed = s->seed;
  if (s->failure.on_failure >= 0) set.on_failure = (dyn_failure_policy)s->failure.on_failure;
  if (s->failure.fallback_solver[0])
    exp_fmt(set.fallback_solver, sizeof set.fallback_solver, "%s", s->failure.fallback_solver);
  if (s->failure.fallback_max_iter > 0) set.fallback_max_iter = (int)s->failure.fallback_max_iter;
  exp_source_world(src, &set, err, sizeof err);
  if (solver) snprintf(set.solver, sizeof set.solver, "%s", solver);
  set.contact.friction = (dyn_friction)fr;
  if (integrator >= 0) set.integrator = (dyn_integrator)integrator;
  return set;
}

/* The note of a failed solve (none when the step's solve did not fail). */
static void solve_note(const dyn_world *w, const dyn_world_metrics *m, const char *applied,
                       char *buf, size_t len) {
  dyn_world_solve ls;
  buf[0] = '\0';
  if (m->failed_integrator && !(dyn_world_last_solve(w, &ls) && ls.step == m->step && ls.failed))
    return; /* failed by the integrator's energy rule alone */
  const char *pol = dyn_failure_policy_str(dyn_world_get_settings(w)->on_failure);
  const char *why = m->failed_energy        ? "energy rule; "
                    : m->failed_step_energy ? "energy bound; "
                                            : "";
  if (m->fallback_solver)
    snprintf(buf, len,
             "failed solve (%son_failure %s; fallback %s: %s): applied %s res_nat_inf "
             "%.3e",
             why, pol, m->fallback_solver, slv_status_str(m->fallback_status), applied,
             m->res_applied);
  else
    snprintf(buf, len, "failed solve (%son_failure %s): applied %s res_nat_inf %.3e", why, pol,
             applied, m->res_applied);
}

/* The applied column: what the step applied (a step without rows applied
 * its empty solution), and why a failed step failed: its solve, the
 * integrator's energy rule (docs/dynamics.md), or both. */
static void policy_note(const dyn_world *w, const dyn_world_metrics *m, const char *applied,
                        char *buf, size_t len) {
  char sv[512];
  buf[0] = '\0';
  if (!m->failed) return;
  solve_note(w, m, applied, sv, sizeof sv);
  if (!m->failed_integrator) {
    snprintf(buf, len, "%s", sv);
    return;
  }
  snprintf(buf, len, "the integrator's energy rule (integrator_excess %.3e J; on_failure %s)%s%s",
           m->integrator_excess, dyn_failure_policy_str(dyn_world_get_settings(w)->on_failure),
           sv[0] ? "; " : "", sv);
}

typedef struct srun {
  exp_tctx *c;
  const char *scene, *solver, *integ, *fric;
  dyn_metric_set cols;     /* the section kind's metric columns (DYN_METRICS_DRIFT, _ACCURACY) */
  char dump[EXP_PATH_MAX]; /* --dump-failures: this run's folder ("" = none) */
  FILE *index;             /* its failures.csv, open from the first dump */
} srun;

static void row_head(const srun *r, exp_line *l) {
  memset(l, 0, sizeof *l);
  exp_line_str(l, r->scene);
  exp_line_str(l, r->solver);
  exp_line_str(l, r->integ);
  exp_line_str(l, r->fric);
}

/* A row without numbers: step (0: none), status, applied, note; the other
 * metric columns empty. */
static void bare_row(const srun *r, long step, const char *status, const char *applied,
                     const char *note, exp_line *l) {
  row_head(r, l);
  for (int i = 0; i < r->cols.n; i++) {
    const char *name = dyn_metric_at(r->cols.col[i])->name;
    if (strcmp(name, "step") == 0 && step > 0)
      exp_line_int(l, step);
    else if (strcmp(name, "status") == 0)
      exp_line_str(l, status);
    else if (strcmp(name, "applied") == 0)
      exp_line_str(l, applied);
    else
      exp_line_empty(l);
  }
  exp_line_str(l, note);
}

/* One metric value as a field: integers as integers, numbers as %.6e
 * (exp_line_num), names as text, a measure that does not exist empty. */
static void metric_field(exp_line *l, const dyn_metric_column *c, const dyn_metric_value *v) {
  if (v->none)
    exp_line_empty(l);
  else if (c->type == DYN_METRIC_INT)
    exp_line_int(l, (long)v->x);
  else if (c->type == DYN_METRIC_STATUS || c->type == DYN_METRIC_APPLIED)
    exp_line_str(l, v->text);
  else
    exp_line_num(l, v->x);
}

/* A step's row: the section's metric columns from libdynamics' table
 * (dyn_metric_values), then the policy's note.  joint_error is empty when
 * the scene has no joint (experiments/README.md, "accuracy"). */
static void step_row(const srun *r, dyn_world *w, const dyn_run_step *st, const char *note,
                     exp_line *l) {
  dyn_metric_value v[DYN_METRIC_SET_MAX];
  dyn_metric_values(&r->cols, w, st, v);
  int no_joints = dyn_world_joint_count(w) == 0;
  row_head(r, l);
  for (int i = 0; i < r->cols.n; i++) {
    const dyn_metric_column *c = dyn_metric_at(r->cols.col[i]);
    if (no_joints && strcmp(c->name, "joint_error") == 0) v[i].none = 1;
    metric_field(l, c, &v[i]);
  }
  exp_line_str(l, note);
}

static void arm_for_step(srun *r, long step, double limit, double t_end) {
  exp_line l;
  char note[96];
  snprintf(note, sizeof note, "time limit %g s reached during step %ld", limit, step);
  bare_row(r, step, "time_limit", "none", note, &l);
  char buf[sizeof l.s + 2];
  snprintf(buf, sizeof buf, "%s\n", l.s);
  exp_wd_arm(r->c->wd, t_end - exp_now_s(), buf, 1);
}

long exp_source_default_steps(const exp_source *src, const dyn_world_settings *set) {
  dyn_model *m = NULL;
  double ts = 0.0;
  long K = exp_source_model(src, &m, &ts, NULL, 0) == DYN_OK
               ? dyn_model_default_steps(m, dyn_world_settings_for_model(set, m, ts).dt)
               : 0;
  dyn_model_free(m);
  return K;
}

double exp_source_drift_scale(const exp_source *src, double E0) {
  dyn_model *m = NULL;
  double S =
      exp_source_model(src, &m, NULL, NULL, 0) == DYN_OK ? dyn_model_drift_scale(m, E0) : NAN;
  dyn_model_free(m);
  return S;
}

/* "x", or "lo..hi" when they differ ("-": NaN, no shape). */
static void value_range(char *buf, size_t len, double lo, double hi) {
  if (isnan(lo))
    snprintf(buf, len, "-");
  else if (lo == hi)
    snprintf(buf, len, "%g", lo);
  else
    snprintf(buf, len, "%g..%g", lo, hi);
}

/* The settings of g the user gave over the model's, "dt,gravity"; "none". */
static void overrides_list(const dyn_world_settings *g, char *buf, size_t len) {
  const char *key;
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; (key = dyn_world_settings_key(i)) != NULL; i++)
    if (dyn_world_settings_overrides(g, key) && at < len)
      at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", key);
  if (!buf[0]) snprintf(buf, len, "none");
}

/* One "# world:" line (experiments/README.md, "Provenance"): the settings
 * the world runs with once the scene has built it from SET
 * (dyn_world_get_settings: the model's gravity unless the line gives one),
 * the friction and restitution its contacts take (dyn_world_material_range:
 * the model's materials; lo..hi when they differ), its dynamic bodies'
 * masses, for an export (with_solver) the world's solver, and the settings
 * the line gave over the model's (overrides=dt,gravity; none). */
static void world_line(FILE *f, const exp_source *src, dyn_world_settings set, int with_solver) {
  dyn_world *w = NULL;
  char msg[256] = "";
  if (exp_source_new_world(src, &set, &w, msg, sizeof msg) != DYN_OK) {
    fprintf(f, "# world: line %d %s: not built (%s)\n", src->line, src->scene, msg);
    dyn_world_free(w);
    return;
  }
  const dyn_world_settings *g = dyn_world_get_settings(w);
  const dyn_body_const *b = dyn_world_body_consts(w);
  double lo = INFINITY, hi = 0.0;
  int nd = 0;
  for (int i = 0; i < dyn_world_body_count(w); i++) {
    if (b[i].is_static) continue;
    lo = fmin(lo, b[i].mass);
    hi = fmax(hi, b[i].mass);
    nd++;
  }
  double mat[4];
  char mu[64], e[64], given[64];
  dyn_world_material_range(w, mat);
  value_range(mu, sizeof mu, mat[0], mat[1]);
  value_range(e, sizeof e, mat[2], mat[3]);
  overrides_list(g, given, sizeof given);
  fprintf(f,
          "# world: line %d %s: dt=%g gravity=%g,%g,%g mu=%s restitution=%s k_erp=%g cfm=%g "
          "slop=%g margin=%g warm_start=%d warm_factor=%g omega=%g max_iter=%d tol=%g "
          "integrator=%s bodies=%d mass_min=%g mass_max=%g%s%s overrides=%s coordinates=%s\n",
          src->line, src->scene, g->dt, g->gravity.x, g->gravity.y, g->gravity.z, mu, e,
          g->contact.k_erp, g->contact.cfm, g->contact.slop, g->margin, g->warm_start,
          g->warm_factor, g->opt.omega, g->opt.max_iter, g->opt.tol,
          dyn_world_settings_enum_name("integrator", (int)g->integrator), nd, nd ? lo : 0.0, hi,
          with_solver ? " solver=" : "", with_solver ? g->solver : "", given,
          dyn_world_is_reduced(w) ? "reduced" : "maximal");
  dyn_world_free(w);
}

static int source_friction(const exp_source *src) {
  return src->friction >= DYN_FRICTION_NONE && src->friction <= DYN_FRICTION_CONE
             ? src->friction
             : DYN_FRICTION_BOX;
}

/* A scene section's world line: the friction model and the solver are the
 * rows'. */
void exp_scene_world_line(FILE *f, const exp_section *s, const exp_source *src) {
  world_line(f, src, exp_scene_settings(s, src, NULL, source_friction(src), -1), 0);
}

/* A problem section's scene export: the world that wrote its problems. */
void exp_export_world_line(FILE *f, const exp_source *src) {
  world_line(f, src, exp_export_settings(src, source_friction(src)), 1);
}

/* ---- --dump-failures -------------------------------------------------------------------- */

/* The run's dump folder DUMP/SECTION/tNNNNNN_SCENE_SOLVER_INTEGRATOR_FRICTION
 * and its failures.csv (made at the first failed step).  0, or -1 with err. */
static int dump_open(srun *r, char *err, size_t len) {
  const exp_tctx *c = r->c;
  char sub[EXP_PATH_MAX], path[EXP_PATH_MAX + 32], bad[EXP_PATH_MAX + 32];
  /* DUMP as named; SECTION and the run's folder made beneath it, no link
   * followed (exp_beneath_mkdir): a SECTION somebody made a link is refused */
  if (exp_fmt(sub, sizeof sub, "%s/t%06d_%s_%s_%s_%s", c->s->name, c->index, r->scene, r->solver,
              r->integ, r->fric) ||
      exp_fmt(r->dump, sizeof r->dump, "%s/%s", c->pl->dump_dir, sub)) {
    exp_fmt(err, len, "--dump-failures: cannot create %s: the name is too long", r->dump);
    return -1;
  }
  exp_fmt(bad, sizeof bad, "%s", c->pl->dump_dir);
  if ((mkdir(c->pl->dump_dir, 0777) != 0 && errno != EEXIST) ||
      exp_beneath_mkdir(c->pl->dump_dir, sub, bad, sizeof bad) != 0) {
    exp_fmt(err, len, "--dump-failures: cannot create %s: %s", bad, exp_beneath_why(errno));
    return -1;
  }
  /* the dump folder may be shared: a new file (exp_create_new) renamed over
   * the name, so a link planted at failures.csv is replaced, never written through */
  char made[EXP_PATH_MAX + 48];
  exp_fmt(path, sizeof path, "%s/.failures.csv.new", r->dump);
  int fd = exp_create_new(path, 0666, made, sizeof made);
  exp_fmt(path, sizeof path, "%s/failures.csv", r->dump);
  if (fd >= 0 && rename(made, path) != 0) {
    unlink(made);
    close(fd);
    fd = -1;
  }
  r->index = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!r->index && fd >= 0) close(fd);
  if (!r->index) {
    exp_fmt(err, len, "--dump-failures: %s: %s", path, strerror(errno));
    return -1;
  }
  fprintf(r->index, "step,solver,status,iterations,res_nat_inf,warm,applied\n");
  fflush(r->index);
  return 0;
}

/* The solve of step k, if it failed, into the run's dump folder (header).
 * 0 (written or nothing to write), or -1 with err. */
static int dump_step(srun *r, dyn_world *w, long k, const char *applied, char *err, size_t len) {
  dyn_world_solve ls;
  if (!r->c->pl->dump_dir[0] || !dyn_world_last_solve(w, &ls) || ls.step != k || !ls.failed)
    return 0;
  if (ls.input_written) return 0; /* its arrays are the solver's now: nothing reproduces it */
  if (!r->index && dump_open(r, err, len) != 0) return -1;
  if (exp_dump_solve(r->dump, k, &ls.prob, ls.x_start, ls.x_solver, ls.solver, &ls.opt, err, len) !=
      0)
    return -1;
  fprintf(r->index, "%ld,%s,%s,%d,%.17g,%d,%s\n", k, ls.solver, slv_status_str(ls.status),
          ls.iterations, ls.res_nat_inf, ls.opt.warm_start ? 1 : 0, applied);
  if (fflush(r->index) != 0) {
    exp_fmt(err, len, "--dump-failures: %s/failures.csv: %s", r->dump, strerror(errno));
    return -1;
  }
  return 0;
}

/* The state of a scene task's run between its steps. */
typedef struct steps_ctx {
  srun *r;
  long K;
  double limit, t_end;
  int rc; /* 3 when a dump could not be written */
} steps_ctx;

/* One step of a scene task (dyn_world_run): the dump of a failed solve,
 * the row (a rejected step's ends the run), the watchdog for the next. */
static int scene_step(void *ctx, dyn_world *w, const dyn_run_step *st) {
  steps_ctx *q = ctx;
  srun *r = q->r;
  exp_tctx *c = r->c;
  exp_line l;
  char note[160], err[512] = "";
  if (dump_step(r, w, st->k, st->applied, err, sizeof err) != 0) {
    bare_row(r, st->k, "error", "none", err, &l);
    exp_tctx_row(c, &l);
    exp_fmt(c->head->message, sizeof c->head->message, "%s", err);
    q->rc = 3;
    return 1;
  }
  if (st->err != DYN_OK) {
    bare_row(r, st->k, st->status, "none", dyn_world_message(w), &l);
    exp_tctx_row(c, &l);
    c->nonconv = 1;
    return 0;
  }
  c->nonconv |= st->m.status != SLV_CONVERGED;
  policy_note(w, &st->m, st->applied, note, sizeof note);
  step_row(r, w, st, note, &l);
  exp_tctx_row(c, &l);
  if (st->k < q->K) arm_for_step(r, st->k + 1, q->limit, q->t_end);
  return 0;
}

/* The steps of a built scene; 0, or 3 when a dump could not be written. */
static int run_steps(srun *r, dyn_world *w, const exp_source *src) {
  exp_tctx *c = r->c;
  steps_ctx q = { r, 0, 0, 0, 0 };
  q.K = src->steps > 0 ? src->steps
                       : dyn_model_default_steps(dyn_world_model(w), dyn_world_get_settings(w)->dt);
  q.limit = exp_time_limit(c->pl, c->s);
  q.t_end = exp_now_s() + q.limit;
  arm_for_step(r, 1, q.limit, q.t_end);
  dyn_world_run(w, q.K, scene_step, &q, NULL);
  exp_wd_disarm(c->wd);
  return q.rc;
}

int exp_scene_run(exp_tctx *c) {
  const exp_task *t = c->t;
  const exp_source *src = &c->s->src[t->src];
  const slv_solver *sv = t->solver.sv;
  int fr = t->friction == EXP_FRICTION_AUTO ? auto_friction(sv) : t->friction;
  srun r = { .c = c,
             .scene = src->scene,
             .solver = sv->name,
             .integ = dyn_world_settings_enum_name("integrator", t->integrator),
             .fric = friction_name(fr) };
  exp_line l;
  char why[256];
  /* the table's own lists: they resolve (tests/test_world_run.c) */
  dyn_metric_set_init(&r.cols, c->s->kind == EXP_DRIFT ? DYN_METRICS_DRIFT : DYN_METRICS_ACCURACY,
                      NULL, 0);
  if (fr < 0 || !takes_friction(sv, fr, why, sizeof why)) {
    if (fr < 0) snprintf(why, sizeof why, "%s takes no contact rows", sv->name);
    bare_row(&r, 0, "refused", "none", why, &l);
    exp_tctx_row(c, &l);
    return 0;
  }
  dyn_world_settings set = exp_scene_settings(c->s, src, sv->name, fr, t->integrator);
  dyn_world *w = NULL;
  char msg[512] = "";
  if (exp_source_new_world(src, &set, &w, msg, sizeof msg) != DYN_OK) {
    bare_row(&r, 0, "refused", "none", msg[0] ? msg : "cannot build the scene", &l);
    exp_tctx_row(c, &l);
    dyn_world_free(w);
    return 0;
  }
  int rc = run_steps(&r, w, src);
  if (r.index) fclose(r.index);
  dyn_world_free(w);
  return rc;
}

int exp_scene_bare_rows(const exp_tctx *c, const char *status, const char *note, exp_rbuf *out) {
  const exp_task *t = c->t;
  const exp_source *src = &c->s->src[t->src];
  const slv_solver *sv = t->solver.sv;
  int fr = t->friction == EXP_FRICTION_AUTO && sv ? auto_friction(sv) : t->friction;
  const char *name = exp_solver_name(&c->pl->cfg, &t->solver);
  const char *fric = friction_name(fr);
  exp_line l;
  if (c->s->kind == EXP_FIDELITY) return exp_fidelity_bare_rows(c, status, note, out);
  if (c->s->kind == EXP_SCENES) {
    exp_scene_summary_row(c, name, fric, NULL, status, note, &l);
  } else {
    srun r = { .c = (exp_tctx *)c,
               .scene = src->scene,
               .solver = name,
               .integ = dyn_world_settings_enum_name("integrator", t->integrator),
               .fric = fric };
    dyn_metric_set_init(&r.cols, c->s->kind == EXP_DRIFT ? DYN_METRICS_DRIFT : DYN_METRICS_ACCURACY,
                        NULL, 0);
    bare_row(&r, 0, status, "none", note, &l);
  }
  if (exp_rbuf_add(out, "%s\n", l.s) != 0) return -1;
  out->nrows++;
  return 0;
}

/* ---- scenes sections: one run summary per (scene, solver) ------------------------------ */

/* "k=v k=v" of n words into out. */
static void join_words(char (*w)[EXP_PARAM_MAX], int n, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int k = 0; k < n && used < len; k++)
    used += (size_t)snprintf(out + used, len - used, "%s%s", k ? " " : "", w[k]);
}

/* A number, or an empty field when it is NaN (a measure the run has not). */
static void num_or_empty(exp_line *l, double v) {
  if (isnan(v))
    exp_line_empty(l);
  else
    exp_line_num(l, v);
}

static void count_or_empty(exp_line *l, long v) {
  if (v < 0)
    exp_line_empty(l);
  else
    exp_line_int(l, v);
}

void exp_scene_summary_row(const exp_tctx *c, const char *solver, const char *friction,
                           const dyn_run_summary *r, const char *status, const char *note,
                           exp_line *l) {
  const exp_source *src = &c->s->src[c->t->src];
  char params[EXP_MAX_PARAMS * 8], settings[EXP_MAX_SETTINGS * 8];
  join_words((char(*)[EXP_PARAM_MAX])src->params, src->nparams, params, sizeof params);
  if (src->model) { /* a model line's params: its file, as read */
    const char *base = strrchr(src->model, '/') ? strrchr(src->model, '/') + 1 : src->model;
    snprintf(params, sizeof params, "model=%s%s%s", base,
             src->approximate ? " approximate=yes" : "",
             src->reduced == 1   ? " coordinates=reduced"
             : src->reduced == 0 ? " coordinates=maximal"
                                 : "");
  }
  join_words((char(*)[EXP_PARAM_MAX])src->settings, src->nsettings, settings, sizeof settings);
  memset(l, 0, sizeof *l);
  exp_line_str(l, src->scene);
  exp_line_str(l, params);
  exp_line_str(l, settings);
  exp_line_str(l, solver);
  exp_line_str(l, friction);
  if (r) {
    exp_line_int(l, r->steps);
    num_or_empty(l, r->contacts_mean_timed);
    count_or_empty(l, r->contacts_max);
    num_or_empty(l, r->time_step_median_s);
    num_or_empty(l, r->time_step_mean_s);
    num_or_empty(l, exp_time_per_contact(r->time_step_median_s, r->contacts_mean_timed));
    num_or_empty(l, r->energy_start);
    num_or_empty(l, r->energy_end);
    num_or_empty(l, r->energy_drift);
    num_or_empty(l, r->max_penetration_end);
    num_or_empty(l, r->max_body_displacement);
    num_or_empty(l, r->max_settled_displacement);
    count_or_empty(l, r->not_converged);
    count_or_empty(l, r->fallback_steps);
  } else {
    for (int k = 0; k < 14; k++) exp_line_empty(l);
  }
  exp_line_str(l, status);
  exp_line_str(l, note);
  /* after note: the columns before it keep their places (exp_scenes.gp) */
  if (r)
    num_or_empty(l, r->joint_error_max);
  else
    exp_line_empty(l);
}

/* The state of a summary run between its steps. */
typedef struct summary_ctx {
  dyn_run_stats st;
  const char *status; /* a rejected step's */
  char note[256];
} summary_ctx;

static int summary_step(void *ctx, dyn_world *w, const dyn_run_step *st) {
  summary_ctx *q = ctx;
  if (st->err != DYN_OK) {
    q->status = st->status;
    exp_fmt(q->note, sizeof q->note, "step %ld: %s", st->k, dyn_world_message(w));
    return 0;
  }
  dyn_run_stats_add(&q->st, &st->m);
  return 0;
}

/* The run of a built world and its summary row. */
static void summary_steps(exp_tctx *c, dyn_world *w, const char *solver, const char *fric, long K) {
  summary_ctx q;
  exp_line l;
  char err[256] = "", extra[sizeof l.s + 2];
  if (dyn_run_stats_init(&q.st, w, K, err, sizeof err) != DYN_OK) {
    exp_scene_summary_row(c, solver, fric, NULL, "error", err, &l);
    exp_tctx_row(c, &l);
    return;
  }
  q.status = NULL;
  q.note[0] = '\0';
  double limit = exp_time_limit(c->pl, c->s);
  exp_fmt(err, sizeof err, "time limit %g s reached during the run", limit);
  exp_scene_summary_row(c, solver, fric, NULL, "time_limit", err, &l);
  snprintf(extra, sizeof extra, "%s\n", l.s);
  exp_wd_arm(c->wd, limit, extra, 1);
  dyn_world_run(w, K, summary_step, &q, NULL);
  exp_wd_disarm(c->wd);
  dyn_run_summary r;
  int have = dyn_run_stats_summary(&q.st, w, &r) == 0;
  c->nonconv |= have && r.not_converged > 0;
  exp_scene_summary_row(c, solver, fric, have ? &r : NULL, q.status ? q.status : "ok", q.note, &l);
  exp_tctx_row(c, &l);
  dyn_run_stats_free(&q.st);
}

/* A built-in solver's task of a scenes section. */
int exp_scene_summary_run(exp_tctx *c) {
  const exp_source *src = &c->s->src[c->t->src];
  const slv_solver *sv = c->t->solver.sv;
  int fr = c->t->friction == EXP_FRICTION_AUTO ? auto_friction(sv) : c->t->friction;
  const char *fric = friction_name(fr);
  exp_line l;
  char why[512] = "";
  if (fr < 0 || !takes_friction(sv, fr, why, sizeof why)) {
    if (fr < 0) snprintf(why, sizeof why, "%s takes no contact rows", sv->name);
    exp_scene_summary_row(c, sv->name, fric, NULL, "refused", why, &l);
    exp_tctx_row(c, &l);
    return 0;
  }
  dyn_world_settings set = exp_scene_settings(c->s, src, sv->name, fr, -1);
  dyn_world *w = NULL;
  if (exp_source_new_world(src, &set, &w, why, sizeof why) != DYN_OK) {
    exp_scene_summary_row(c, sv->name, fric, NULL, "refused", why[0] ? why : "cannot build it", &l);
    exp_tctx_row(c, &l);
    dyn_world_free(w);
    return 0;
  }
  long K = src->steps > 0 ? src->steps : dyn_model_default_steps(dyn_world_model(w), set.dt);
  summary_steps(c, w, sv->name, fric, K);
  dyn_world_free(w);
  return 0;
}
