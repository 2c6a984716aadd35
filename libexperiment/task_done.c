/* task_done.c -- whether a task of a plan is done: where its result file
 * is, the task's key, and whether the result there is this task's own
 * (experiments/CAMPAIGNS.md, "Campaigns: plans, tasks, results, collect").
 *
 * A task's key is the SHA-256 of the plan's id, every variable's value
 * (plan.vars), the task's tasks.tsv line, its problem file's SHA-256 as
 * the plan recorded it, for an external solver the path and SHA-256 of
 * each file it runs (programs.tsv, program.c), for a model line's task the
 * path and SHA-256 of each file its model read opens (models.tsv,
 * plan_models.c), each part with its NUL.  A result is the task's
 * only when its plan id, task number and key are the task's, so an edited
 * instance or a changed variable reruns the tasks it touches while the plan
 * stays the same; exp_task_done, which jobs.c and campaign.c ask before
 * running a task (resume), also wants the file complete and intact
 * (exp_result_read) and a completed verdict in it (task_status ok, or
 * failed: an external solver's answer judged unusable); a task that could
 * not run (error) or did not finish (crashed: its worker died or ran out
 * of memory) runs again.
 */
#include "exp_internal.h"

#include <stdio.h>
#include <string.h>

void exp_result_path(const exp_plan *pl, int i, char *buf, size_t len) {
  snprintf(buf, len, "%s/results/t%06d.res", pl->dir, i);
}

void exp_task_key(const exp_plan *pl, int i, char key[65]) {
  char spec[1024];
  exp_task_spec(pl, i, spec, sizeof spec);
  const char *vars = exp_config_vars(&pl->cfg);
  int prob = pl->tasks[i].prob;
  const char *sha = prob >= 0 ? pl->probs[prob].sha256 : "";
  exp_sha256 h;
  exp_sha256_init(&h);
  /* each part with its NUL, so that no two lists of parts hash alike */
  exp_sha256_add(&h, pl->id, strlen(pl->id) + 1);
  exp_sha256_add(&h, vars, strlen(vars) + 1);
  exp_sha256_add(&h, spec, strlen(spec) + 1);
  exp_sha256_add(&h, sha, strlen(sha) + 1);
  /* an external's programs (program.c): another version is another solver */
  for (int k = 0; k < pl->nprogs; k++)
    if (pl->progs[k].ext == pl->tasks[i].solver.ext && pl->tasks[i].solver.ext >= 0) {
      exp_sha256_add(&h, pl->progs[k].path, strlen(pl->progs[k].path) + 1);
      exp_sha256_add(&h, pl->progs[k].sha256, strlen(pl->progs[k].sha256) + 1);
    }
  /* a model line's files (plan_models.c): another model is another task */
  exp_task_key_models(pl, i, &h);
  /* a plugin's (or a Python callable's) content: another version is another solver */
  const exp_program *plug = exp_plan_plugin_of(pl, pl->tasks[i].solver.sv);
  if (plug) {
    exp_sha256_add(&h, plug->path, strlen(plug->path) + 1);
    exp_sha256_add(&h, plug->sha256, strlen(plug->sha256) + 1);
  }
  exp_sha256_hex(&h, key);
}

void exp_result_identify(const exp_plan *pl, int i, exp_result *h) {
  h->task = i;
  snprintf(h->plan, sizeof h->plan, "%s", pl->id);
  exp_task_key(pl, i, h->key);
  exp_task_spec(pl, i, h->spec, sizeof h->spec);
  for (char *s = h->spec; *s; s++)
    if (*s == '\t') *s = ' ';
  snprintf(h->rev, sizeof h->rev, "%s", pl->rev);
  h->time_limit = exp_time_limit(pl, &pl->cfg.sec[pl->tasks[i].section]);
}

int exp_result_matches(const exp_plan *pl, int i, const exp_result *r, char *why, size_t len) {
  char key[65];
  exp_task_key(pl, i, key);
  if (strcmp(r->plan, pl->id) != 0 || r->task != i) {
    snprintf(why, len, "stale (plan %s, task %d: not this plan's task %d)", r->plan, r->task, i);
    return 0;
  }
  if (strcmp(r->key, key) != 0) {
    snprintf(why, len,
             "stale (task %d of another instance or model content, program or variables: key "
             "%.12s, "
             "the task's is %.12s)",
             i, r->key[0] ? r->key : "(none)", key);
    return 0;
  }
  return 1;
}

int exp_result_completed(const exp_result *r) {
  return strcmp(r->task_status, "ok") == 0 || strcmp(r->task_status, "failed") == 0;
}

int exp_task_done(const exp_plan *pl, int i) {
  char path[EXP_PATH_MAX + 64], why[256];
  exp_result_path(pl, i, path, sizeof path);
  exp_result r;
  int rc = exp_result_read(path, &r, why, sizeof why);
  int ok = rc == 0 && exp_result_matches(pl, i, &r, why, sizeof why) && exp_result_completed(&r);
  if (rc == 0) exp_result_free(&r);
  return ok;
}
