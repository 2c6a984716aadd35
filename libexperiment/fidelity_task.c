/* fidelity_task.c -- the tasks of a fidelity section (issue 84, item 4;
 * experiments/README.md, "fidelity"): one task per (scene line, solver or
 * scene peer).
 *
 * A built-in solver's task runs its scene (exp_fid_build) once per budget
 * of the section (`budgets`, max_iter and max_pivots of every step's
 * solve: exp_options_budget), friction auto (the solver's own model:
 * findex rows, else cones, else the pyramid; a solver of free rows only
 * gets friction none and is refused at the first contact), tol 1e-8
 * unless the section's `tol`, and on_failure best unless the section's:
 * a failed solve applies the solver's own best iterate, never another
 * solver's answer.  It records each step (exp_fid_trace) and judges the
 * run against the scene's analytic answer (exp_fid_judge), with the
 * mean step time and the share of steps with rows whose solve converged.
 * The whole run of one budget is under the section's time limit.
 *
 * A scene peer (external kind=scene) runs the scenes the peers' harness has
 * (exp_fid_scene.peer: peer_scene's incline and stack) with {scene} that
 * name, {params} the scene's peer words, {steps} and {dt} the scene's,
 * {max_iter} the section's max_iter (50 by default: the peers' default);
 * its template must give --trace, whose lines on stderr ("step K contacts
 * C ... body0 p X Y Z v VX VY VZ") are body 0's record, judged by the same
 * judge; the stack by the peer's own largest displacement from the start
 * (its summary's max_body_displacement).  Its version is its summary's
 * engine_info.lib.  The other scenes are a row refused.
 */
#define _GNU_SOURCE

#include "exp_fidelity.h"
#include "exp_task.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_world.h"

/* The numbers of a judged run. */
typedef struct fid_out {
  long steps;
  exp_fid_verdict v;
  double step_mean;  /* s; NaN: not measured */
  long conv, solved; /* steps whose solve converged, steps with rows (-1: not known) */
  char version[96];
} fid_out;

static const char *fric_name(int fr) {
  const char *s = fr >= 0 ? dyn_world_settings_enum_name("friction", fr) : NULL;
  return s ? s : "auto";
}

static const exp_fid_scene *task_scene(const exp_tctx *c) {
  return exp_fid_scene_at(exp_fid_scene_find(c->s->src[c->t->src].scene));
}

static void num_or_empty(exp_line *l, double v) {
  if (isfinite(v))
    exp_line_num(l, v);
  else
    exp_line_empty(l);
}

/* One row: r NULL for a row without numbers; a refused run has no verdict. */
static void fid_row(const exp_tctx *c, const char *solver, const char *fric, long budget,
                    const fid_out *r, const char *status, const char *note, exp_line *l) {
  const exp_fid_scene *sc = task_scene(c);
  const exp_fid_judge_def *j = &exp_fid_judges[sc->judge];
  memset(l, 0, sizeof *l);
  exp_line_str(l, sc->name);
  exp_line_str(l, j->name);
  exp_line_str(l, solver);
  exp_line_str(l, fric);
  exp_line_int(l, budget);
  if (r) {
    exp_line_int(l, r->steps);
    num_or_empty(l, r->v.measured);
    num_or_empty(l, r->v.analytic);
    num_or_empty(l, r->v.error);
  } else {
    for (int k = 0; k < 4; k++) exp_line_empty(l);
  }
  exp_line_num(l, j->tol);
  exp_line_str(l, j->relative ? "relative" : j->unit);
  /* refused (rows the solver does not take): coverage, no verdict */
  int judged = r && strcmp(status, "refused") != 0;
  exp_line_str(l, judged ? (r->v.pass ? "yes" : "no") : "");
  if (r) {
    num_or_empty(l, r->step_mean);
    if (r->solved >= 0) {
      exp_line_int(l, r->conv);
      exp_line_int(l, r->solved);
      num_or_empty(l, r->solved > 0 ? (double)r->conv / (double)r->solved : NAN);
    } else {
      for (int k = 0; k < 3; k++) exp_line_empty(l);
    }
  } else {
    for (int k = 0; k < 4; k++) exp_line_empty(l);
  }
  exp_line_str(l, r ? r->version : "");
  exp_line_str(l, status);
  exp_line_str(l, note);
}

/* The budgets of the section (10, 50, 200 unless `budgets`). */
static int section_budgets(const exp_section *s, long *b) {
  static const long dflt[3] = { 10, 50, 200 };
  int n = s->nbudgets > 0 ? s->nbudgets : 3;
  for (int k = 0; k < n; k++) b[k] = s->nbudgets > 0 ? s->budgets[k] : dflt[k];
  return n;
}

static long peer_iters(const exp_section *s) { return s->max_iter > 0 ? s->max_iter : 50; }

/* The friction model a solver runs under (scene_task.c's auto rule; free
 * rows only: none). */
static int solver_friction(const slv_solver *sv) {
  if (sv->caps & SLV_CAP_ONLY_FREE) return DYN_FRICTION_NONE;
  if (sv->caps & SLV_CAP_FINDEX) return DYN_FRICTION_BOX;
  if (sv->caps & SLV_CAP_CONE) return DYN_FRICTION_CONE;
  return DYN_FRICTION_PYRAMID;
}

int exp_fidelity_bare_rows(const exp_tctx *c, const char *status, const char *note, exp_rbuf *out) {
  const slv_solver *sv = c->t->solver.sv;
  const char *name = exp_solver_name(&c->pl->cfg, &c->t->solver);
  long b[EXP_MAX_BUDGETS];
  int nb = sv ? section_budgets(c->s, b) : 1;
  if (!sv) b[0] = peer_iters(c->s);
  for (int k = 0; k < nb; k++) {
    exp_line l;
    fid_row(c, name, sv ? fric_name(solver_friction(sv)) : "", b[k], NULL, status, note, &l);
    if (out) {
      if (exp_rbuf_add(out, "%s\n", l.s) != 0) return -1;
      out->nrows++;
    } else {
      exp_tctx_row((exp_tctx *)c, &l);
    }
  }
  return 0;
}

/* ---- a built-in solver's runs ------------------------------------------------------------ */

/* The record of step k of world w into tr (the dynamic bodies dyn[0..nd)). */
static void record_step(exp_fid_trace *tr, dyn_world *w, const int *dyn,
                        const dyn_world_metrics *m) {
  const dyn_body_state *st = dyn_world_body_states(w);
  int k = tr->nsteps++;
  for (int b = 0; b < tr->nbodies; b++) {
    const dyn_body_state *s = &st[dyn[b]];
    double *p = tr->p + ((size_t)k * tr->nbodies + b) * 3,
           *v = tr->v + ((size_t)k * tr->nbodies + b) * 3;
    p[0] = s->r.x, p[1] = s->r.y, p[2] = s->r.z;
    v[0] = s->v.x, v[1] = s->v.y, v[2] = s->v.z;
  }
  tr->pen[k] = m->max_penetration;
  tr->joint[k] = m->joint_error;
  tr->contacts[k] = m->contacts;
}

/* The most dynamic bodies a fidelity scene has (the chain's six, with room). */
#define FID_MAX_BODIES 16

/* The dynamic bodies of model m into dyn[FID_MAX_BODIES] (their count; -1 more than that). */
static int dynamic_bodies(const dyn_model *m, int *dyn) {
  const dyn_body_def *b = dyn_model_bodies(m);
  int n = 0;
  for (int i = 0; i < dyn_model_body_count(m); i++)
    if (!b[i].is_static) {
      if (n == FID_MAX_BODIES) return -1;
      dyn[n++] = i;
    }
  return n;
}

/* The steps of a built world: 0 all run, else the step's status and note. */
static int step_world(dyn_world *w, long K, exp_fid_trace *tr, const int *dyn, fid_out *o,
                      char *status, size_t slen, char *note, size_t nlen) {
  double tsum = 0;
  for (long k = 1; k <= K; k++) {
    dyn_world_metrics m;
    dyn_err e = dyn_world_step(w, &m);
    if (e != DYN_OK) {
      snprintf(status, slen, "%s",
               e == DYN_ERR_INPUT     ? "refused"
               : e == DYN_ERR_NUMERIC ? "failed"
                                      : "error");
      exp_fmt(note, nlen, "%s", dyn_world_message(w)); /* it names the step */
      break;
    }
    record_step(tr, w, dyn, &m);
    tsum += m.step_time_s;
    o->solved += m.rows > 0;
    o->conv += m.rows > 0 && m.status == SLV_CONVERGED;
  }
  o->steps = tr->nsteps;
  o->step_mean = tr->nsteps > 0 ? tsum / tr->nsteps : NAN;
  return tr->nsteps < K;
}

/* The world of setup su for solver sv at budget b: DYN_OK, or the refusal in msg. */
static dyn_err fid_world(const exp_tctx *c, const exp_fid_setup *su, const slv_solver *sv, int fr,
                         long b, dyn_world **w, char *msg, size_t len) {
  dyn_world_settings set = exp_scene_settings(c->s, &c->s->src[c->t->src], sv->name, fr, -1);
  exp_options_budget(&set.opt, b, c->s->max_pivots);
  if (c->s->failure.on_failure < 0) set.on_failure = DYN_ON_FAILURE_BEST;
  dyn_err e = dyn_world_new_from_model(su->model, &set, w, msg, len);
  if (e != DYN_OK) return e;
  dyn_body_state *st = dyn_world_body_states(*w);
  for (int k = 0; k < su->nloads; k++) st[su->load_body[k]].f_ext = su->load[k];
  return DYN_OK;
}

/* The time_limit rows of budgets b[k..nb) into extra (the watchdog's). */
static int limit_rows(const exp_tctx *c, const char *name, const char *fric, const long *b, int k,
                      int nb, double limit, char *extra, size_t len) {
  size_t o = 0;
  char note[128];
  snprintf(note, sizeof note, "time limit %g s reached during the run", limit);
  for (int j = k; j < nb && o < len; j++) {
    exp_line l;
    fid_row(c, name, fric, b[j], NULL, "time_limit",
            j == k ? note : "not run: an earlier budget reached the time limit", &l);
    o += (size_t)snprintf(extra + o, len - o, "%s\n", l.s);
  }
  return nb - k;
}

/* One budget's run and its row. */
static void run_budget(exp_tctx *c, const exp_fid_scene *sc, const slv_solver *sv, int fr,
                       const long *b, int k, int nb, char *extra, size_t xlen) {
  exp_fid_setup su;
  exp_fid_trace tr = { 0 };
  dyn_world *w = NULL;
  fid_out o = { 0 };
  char msg[512] = "", status[32] = "ok";
  exp_line l;
  int dyn[FID_MAX_BODIES], nd = 0;
  if (exp_fid_build(exp_fid_scene_find(sc->name), &su, msg, sizeof msg) != 0) {
    fid_row(c, sv->name, fric_name(fr), b[k], NULL, "error", msg, &l);
    exp_tctx_row(c, &l);
    return;
  }
  if (fid_world(c, &su, sv, fr, b[k], &w, msg, sizeof msg) != DYN_OK) {
    fid_row(c, sv->name, fric_name(fr), b[k], NULL, "refused", msg, &l);
  } else if ((nd = dynamic_bodies(su.model, dyn)) < 1 ||
             exp_fid_trace_alloc(&tr, (int)sc->steps, nd, dyn_world_get_settings(w)->dt) != 0) {
    fid_row(c, sv->name, fric_name(fr), b[k], NULL, "error",
            nd < 1 ? "no dynamic body, or more than the trace holds" : "out of memory", &l);
  } else {
    const dyn_body_state *st = dyn_world_body_states(w);
    for (int j = 0; j < nd; j++) {
      tr.p0[3 * j] = st[dyn[j]].r.x, tr.p0[3 * j + 1] = st[dyn[j]].r.y;
      tr.p0[3 * j + 2] = st[dyn[j]].r.z;
    }
    double limit = exp_time_limit(c->pl, c->s);
    int nx = limit_rows(c, sv->name, fric_name(fr), b, k, nb, limit, extra, xlen);
    exp_wd_arm(c->wd, limit, extra, nx);
    int ended = step_world(w, sc->steps, &tr, dyn, &o, status, sizeof status, msg, sizeof msg);
    exp_wd_disarm(c->wd);
    exp_fid_judge(sc->judge, &tr, su.along, su.analytic, su.allowance, &o.v);
    if (ended) o.v.pass = 0; /* a run that ended early is no answer */
    snprintf(o.version, sizeof o.version, "lcplab %s", SLV_VERSION);
    c->nonconv |= o.conv < o.solved;
    /* a run refused at its first step has no numbers: coverage, not a verdict */
    fid_row(c, sv->name, fric_name(fr), b[k], o.steps > 0 ? &o : NULL, status, msg, &l);
  }
  exp_tctx_row(c, &l);
  exp_fid_trace_free(&tr);
  dyn_world_free(w);
  exp_fid_setup_free(&su);
}

static int run_builtin(exp_tctx *c) {
  const slv_solver *sv = c->t->solver.sv;
  const exp_fid_scene *sc = task_scene(c);
  long b[EXP_MAX_BUDGETS];
  int nb = section_budgets(c->s, b);
  size_t xlen = (size_t)nb * 4200;
  char *extra = malloc(xlen);
  if (!extra) {
    exp_fidelity_bare_rows(c, "error", "out of memory", NULL);
    return 3;
  }
  for (int k = 0; k < nb; k++) run_budget(c, sc, sv, solver_friction(sv), b, k, nb, extra, xlen);
  free(extra);
  return 0;
}

/* ---- a scene peer's run ------------------------------------------------------------------ */

/* The shell's argv: sh -c COMMAND sh SCENE STEPS DT MAX_ITER FRICTION
 * TIME_LIMIT MODEL VALUES... then the scene's peer words ("$@"). */
typedef struct fargv {
  char *argv[4 + EXP_SCENE_EXT_NKEYS + EXP_EXT_MAX_VALS + 17];
  char num[4][64];
  char words[256];
} fargv;

static void peer_argv(const exp_external *e, const exp_fid_scene *sc, long iters, double limit,
                      fargv *a) {
  snprintf(a->num[0], sizeof a->num[0], "%ld", sc->steps);
  snprintf(a->num[1], sizeof a->num[1], "%.17g", 1.0 / 120.0);
  snprintf(a->num[2], sizeof a->num[2], "%ld", iters);
  snprintf(a->num[3], sizeof a->num[3], "%g", limit);
  const char *fixed[4 + EXP_SCENE_EXT_NKEYS] = { "sh",     "-c",      e->command, "sh",
                                                 sc->peer, a->num[0], a->num[1],  a->num[2],
                                                 "auto",   a->num[3], "" };
  int k = 0;
  for (; k < 4 + EXP_SCENE_EXT_NKEYS; k++) a->argv[k] = (char *)fixed[k];
  const char *v = e->vals;
  for (int j = 0; j < e->nvals; j++, v += strlen(v) + 1) a->argv[k++] = (char *)v;
  snprintf(a->words, sizeof a->words, "%s", sc->peer_args);
  char *save = NULL;
  for (char *w = strtok_r(a->words, " ", &save);
       w && k < (int)(sizeof a->argv / sizeof *a->argv) - 1; w = strtok_r(NULL, " ", &save))
    a->argv[k++] = w;
  a->argv[k] = NULL;
}

/* Body 0's record from the peer's --trace lines in file path (at most
 * tr->cap steps): the number of steps read. */
static int read_peer_trace(const char *path, exp_fid_trace *tr) {
  FILE *f = fopen(path, "r");
  char line[512];
  while (f && tr->nsteps < tr->cap && fgets(line, sizeof line, f)) {
    long k;
    int nc;
    double *p = tr->p + (size_t)tr->nsteps * 3, *v = tr->v + (size_t)tr->nsteps * 3;
    if (sscanf(line, "step %ld contacts %d t_step %*s t_col %*s body0 p %lf %lf %lf v %lf %lf %lf",
               &k, &nc, &p[0], &p[1], &p[2], &v[0], &v[1], &v[2]) != 8)
      continue;
    tr->contacts[tr->nsteps] = nc;
    tr->pen[tr->nsteps] = tr->joint[tr->nsteps] = 0.0;
    tr->nsteps++;
  }
  if (f) fclose(f);
  return tr->nsteps;
}

/* The value of "lib" in the summary's engine_info, into buf ("" none). */
static void peer_version(const char *out, char *buf, size_t len) {
  const char *s = strstr(out, "\"lib\":\"");
  buf[0] = '\0';
  if (!s) return;
  s += 7;
  size_t n = strcspn(s, "\"");
  snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s);
}

/* The judged run of a peer that printed summary out. */
static int judge_peer(exp_tctx *c, const exp_fid_scene *sc, const char *out, fid_out *o, char *note,
                      size_t nlen) {
  dyn_run_summary r;
  exp_fid_setup su;
  if (exp_run_summary_parse(out, &r, note, nlen) != 0) return -1;
  if (exp_fid_build(exp_fid_scene_find(sc->name), &su, note, nlen) != 0) return -1;
  peer_version(out, o->version, sizeof o->version);
  o->step_mean = r.time_step_mean_s;
  o->steps = r.steps;
  o->solved = -1;
  int rc = 0;
  if (sc->judge == EXP_FID_SETTLE) {
    exp_fid_judge_settle(r.max_body_displacement, su.allowance, &o->v);
  } else {
    exp_fid_trace tr = { 0 };
    char path[EXP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/stderr.txt", c->scratch);
    if (exp_fid_trace_alloc(&tr, (int)sc->steps, 1, 1.0 / 120.0) != 0) {
      snprintf(note, nlen, "out of memory");
      rc = -1;
    } else if (read_peer_trace(path, &tr) < 2) {
      snprintf(note, nlen, "no --trace lines on its stderr (the template must give --trace)");
      rc = -1;
    } else {
      memcpy(tr.p0, tr.p, 3 * sizeof *tr.p0);
      exp_fid_judge(sc->judge, &tr, su.along, su.analytic, su.allowance, &o->v);
    }
    exp_fid_trace_free(&tr);
  }
  exp_fid_setup_free(&su);
  return rc;
}

static void peer_failed(exp_tctx *c, const char *name, const char *status, const char *note) {
  exp_line l;
  fid_row(c, name, "", peer_iters(c->s), NULL, status, note, &l);
  exp_tctx_row(c, &l);
  snprintf(c->head->task_status, sizeof c->head->task_status, "failed");
  exp_fmt(c->head->message, sizeof c->head->message, "%s: %s", name, note);
}

static int run_peer(exp_tctx *c) {
  const exp_external *e = &c->pl->cfg.ext[c->t->solver.ext];
  const exp_fid_scene *sc = task_scene(c);
  double limit = exp_time_limit(c->pl, c->s);
  char note[512];
  exp_line l;
  if (!sc->peer || !e->takes_scene) {
    fid_row(c, e->name, "", peer_iters(c->s), NULL, "refused",
            "the scene peers have no such scene (peer_scene: incline, stack)", &l);
    exp_tctx_row(c, &l);
    return 0;
  }
  if (exp_tctx_scratch(c) != 0) {
    exp_fmt(note, sizeof note, "%s/scratch: cannot create a folder: %s", c->pl->dir,
            exp_beneath_why(errno));
    peer_failed(c, e->name, "error", note);
    return 3;
  }
  fargv *a = calloc(1, sizeof *a);
  char *out = malloc(65536);
  int code = 0, timed_out = 0;
  double wall = 0, reported = 0;
  fid_out o = { 0 };
  if (!a || !out)
    peer_failed(c, e->name, "error", "out of memory");
  else if ((peer_argv(e, sc, peer_iters(c->s), limit, a),
            exp_ext_exec(c, a->argv, "", limit, out, 65536, &code, &timed_out, &wall, &reported)) !=
           0)
    peer_failed(c, e->name, "error", "cannot run /bin/sh");
  else if (timed_out)
    peer_failed(c, e->name, "time_limit", "time limit reached");
  else if (code != 0) {
    exp_fmt(note, sizeof note, "exit status %d (its stderr: %s/stderr.txt)", code, c->scratch);
    peer_failed(c, e->name, "failed", note);
  } else if (judge_peer(c, sc, out, &o, note, sizeof note) != 0) {
    peer_failed(c, e->name, "failed", note);
  } else {
    fid_row(c, e->name, "", peer_iters(c->s), &o, "ok", "", &l);
    exp_tctx_row(c, &l);
  }
  free(a);
  free(out);
  return 0;
}

int exp_fidelity_run(exp_tctx *c) { return c->t->solver.sv ? run_builtin(c) : run_peer(c); }

void exp_fidelity_lines(FILE *f, const exp_plan *pl, const exp_section *s) {
  long b[EXP_MAX_BUDGETS];
  int nb = section_budgets(s, b);
  fprintf(f, "# budgets:");
  for (int k = 0; k < nb; k++) fprintf(f, " %ld", b[k]);
  fprintf(f, " (max_iter and max_pivots of every step's solve; scene peers: %ld iterations)\n",
          peer_iters(s));
  fprintf(f, "# solver settings: tol %g, dt 1/120 s, friction auto, on_failure %s\n",
          s->ntol ? s->tol[0] : 1e-8,
          s->failure.on_failure >= 0
              ? dyn_failure_policy_str((dyn_failure_policy)s->failure.on_failure)
              : "best");
  fprintf(f, "# time_limit_s: %g (a whole run of one budget)\n", exp_time_limit(pl, s));
  for (int k = 0; k < s->nsrc; k++) {
    const exp_fid_scene *sc = exp_fid_scene_at(exp_fid_scene_find(s->src[k].scene));
    if (sc)
      fprintf(f, "# scene %s: %s (judge %s; %ld steps%s%s)\n", sc->name, sc->summary,
              exp_fid_judges[sc->judge].name, sc->steps, sc->peer ? "; peer_scene " : "",
              sc->peer ? sc->peer : "");
  }
  for (int k = 0; k < EXP_FID_NJUDGES; k++)
    fprintf(f, "# judge %s: %s; passes when the error <= %g %s\n", exp_fid_judges[k].name,
            exp_fid_judges[k].what, exp_fid_judges[k].tol,
            exp_fid_judges[k].relative ? "(relative)" : exp_fid_judges[k].unit);
}
