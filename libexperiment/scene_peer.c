/* scene_peer.c -- scene peers in scenes sections: an external program that
 * runs a named scene in another physics engine and prints one summary line
 * (experiments/CAMPAIGNS.md, "Scene peers").
 *
 *   external NAME kind=scene [requires=PATH] command TEMPLATE...
 *
 * TEMPLATE is run once per (scene line, peer) by /bin/sh -c in its own
 * process group under the section's time limit (exp_ext_exec), with
 * {scene}, {steps} (the line's steps=, else the scene's default), {dt} and
 * {max_iter} (the world settings the line and the section give lcplab's
 * own runs: a model file's timestep unless the line sets dt=), {friction}
 * (the line's friction=, else auto), {time_limit}, {model} (the model
 * file of a line `scene model=FILE`, unchanged; "" for a named scene) and
 * the ${NAME} values as positional parameters, and {params} as the words
 * --KEY VALUE of the line's scene parameters (config.c): no value is
 * parsed by the shell.  A peer runs the named scenes if its template names
 * {scene}, model files if it names {model}; it refuses the other lines, and
 * a line that sets gravity= (a peer is given none: the row would compare
 * its engine's gravity with the line's).
 * Its standard output's last line that starts with
 * '{' is its summary (exp_run_summary_parse): the row beside lcplab's own
 * runs of the same line.  A run that exits non-zero, prints no summary or
 * passes the time limit is a row failed (or time_limit) with the reason,
 * and the task's status says failed.
 */
#define _GNU_SOURCE

#include "exp_task.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shell's argv: sh -c COMMAND sh SCENE STEPS DT MAX_ITER FRICTION
 * TIME_LIMIT MODEL VALUES... --KEY VALUE... */
typedef struct pargv {
  char *argv[4 + EXP_SCENE_EXT_NKEYS + EXP_EXT_MAX_VALS + 2 * EXP_MAX_PARAMS + 1];
  char num[4][64];
  char words[2 * EXP_MAX_PARAMS][EXP_PARAM_MAX + 2];
} pargv;

static void peer_argv(const exp_external *e, const exp_source *src, long K,
                      const dyn_world_settings *set, const char *fric, double limit, pargv *a) {
  snprintf(a->num[0], sizeof a->num[0], "%ld", K);
  snprintf(a->num[1], sizeof a->num[1], "%.17g", set->dt);
  snprintf(a->num[2], sizeof a->num[2], "%d", set->opt.max_iter);
  snprintf(a->num[3], sizeof a->num[3], "%g", limit);
  const char *model = src->model ? src->model : "";
  const char *fixed[4 + EXP_SCENE_EXT_NKEYS] = { "sh",       "-c",      e->command, "sh",
                                                 src->scene, a->num[0], a->num[1],  a->num[2],
                                                 fric,       a->num[3], model };
  int k = 0;
  for (; k < 4 + EXP_SCENE_EXT_NKEYS; k++) a->argv[k] = (char *)fixed[k];
  const char *v = e->vals;
  for (int j = 0; j < e->nvals; j++, v += strlen(v) + 1) a->argv[k++] = (char *)v;
  for (int j = 0; j < src->nparams; j++) {
    const char *kv = src->params[j], *eq = strchr(kv, '=');
    size_t kl = eq ? (size_t)(eq - kv) : strlen(kv);
    snprintf(a->words[2 * j], sizeof a->words[0], "--%.*s", (int)kl, kv);
    snprintf(a->words[2 * j + 1], sizeof a->words[0], "%s", eq ? eq + 1 : "");
    a->argv[k++] = a->words[2 * j];
    a->argv[k++] = a->words[2 * j + 1];
  }
  a->argv[k] = NULL;
}

/* The row of a run that left no summary; the task failed. */
static void failed_row(exp_tctx *c, const char *name, const char *fric, const char *status,
                       const char *note) {
  exp_line l;
  exp_scene_summary_row(c, name, fric, NULL, status, note, &l);
  exp_tctx_row(c, &l);
  snprintf(c->head->task_status, sizeof c->head->task_status, "failed");
  exp_fmt(c->head->message, sizeof c->head->message, "%s: %s", name, note);
}

int exp_scene_peer_run(exp_tctx *c) {
  const exp_external *e = &c->pl->cfg.ext[c->t->solver.ext];
  const exp_source *src = &c->s->src[c->t->src];
  int fr = c->t->friction;
  const char *fric = fr >= 0 ? dyn_world_settings_enum_name("friction", fr) : NULL;
  if (!fric) fric = "auto";
  dyn_world_settings set = exp_scene_settings(c->s, src, NULL, fr >= 0 ? fr : DYN_FRICTION_BOX, -1);
  set = exp_source_settings(src, &set);
  long K = src->steps > 0 ? src->steps : exp_source_default_steps(src, &set);
  double limit = exp_time_limit(c->pl, c->s);
  char note[512];
  if (src->model ? !e->takes_model : !e->takes_scene) {
    exp_line l;
    exp_scene_summary_row(c, e->name, fric, NULL, "refused",
                          src->model ? "this peer builds the named scenes (its command names no "
                                       "{model}); a model file is not its"
                                     : "this peer runs model files (its command names no "
                                       "{scene}); a named scene is not its",
                          &l);
    exp_tctx_row(c, &l);
    return 0;
  }
  if (dyn_world_settings_overrides(&set, "gravity")) { /* its template has no {gravity} */
    exp_line l;
    exp_scene_summary_row(c, e->name, fric, NULL, "refused",
                          "a peer is given no gravity: the line's gravity= would not apply to it",
                          &l);
    exp_tctx_row(c, &l);
    return 0;
  }
  if (exp_tctx_scratch(c) != 0) {
    exp_fmt(note, sizeof note, "%s/scratch: cannot create a folder: %s", c->pl->dir,
            exp_beneath_why(errno));
    failed_row(c, e->name, fric, "error", note);
    return 3;
  }
  pargv *a = calloc(1, sizeof *a);
  char *out = malloc(65536);
  int code = 0, timed_out = 0;
  double wall = 0, reported = 0;
  if (!a || !out) {
    free(a);
    free(out);
    failed_row(c, e->name, fric, "error", "out of memory");
    return 3;
  }
  peer_argv(e, src, K, &set, fric, limit, a);
  dyn_run_summary r;
  if (exp_ext_exec(c, a->argv, "", limit, out, 65536, &code, &timed_out, &wall, &reported) != 0) {
    failed_row(c, e->name, fric, "error", "cannot run /bin/sh");
  } else if (timed_out) {
    exp_fmt(note, sizeof note, "time limit %g s reached", limit);
    failed_row(c, e->name, fric, "time_limit", note);
  } else if (code != 0) {
    exp_fmt(note, sizeof note, "exit status %d (its stderr: %s/stderr.txt)", code, c->scratch);
    failed_row(c, e->name, fric, "failed", note);
  } else if (exp_run_summary_parse(out, &r, note, sizeof note) != 0) {
    failed_row(c, e->name, fric, "failed", note);
  } else {
    exp_line l;
    /* the one drift (dyn_energy_drift), with the scene's scale */
    r.energy_drift =
        dyn_energy_drift(r.energy_end, r.energy_start, exp_source_drift_scale(src, r.energy_start));
    exp_scene_summary_row(c, e->name, fric, &r, "ok", "", &l);
    exp_tctx_row(c, &l);
  }
  free(a);
  free(out);
  return 0;
}
