/* plan_plugins.c -- the solvers from outside in a plan: C plugins and
 * Python callables (docs/plugins.md, "Campaigns"; experiments/CAMPAIGNS.md,
 * "Results keyed by content").
 *
 * When the plan is made, each solver of its tasks registered at run time
 * is recorded with where it came from (slv_solver_origin) and a hash:
 *   - a C plugin: its real path and the SHA-256 of its bytes as loaded
 *     (plugin.c), in plugins.tsv; `lcplab task` and `lcplab collect` load
 *     those plugins before they read the plan's experiment file, so every
 *     worker (GNU parallel, Slurm) runs the plugins the plan was made with;
 *   - a Python callable (origin "python:NAME"): a hash new each time the
 *     plan is made, so that no result of a callable is ever taken for
 *     another's (a resumed campaign runs its tasks again); a plan for GNU parallel or
 *     Slurm naming one is refused (its `lcplab task` processes cannot
 *     reach a Python object: exp_plan_python_solver).
 * The hash is part of the tasks' keys (exp_task_key), so a changed plugin
 * reruns its tasks and only those; a task whose plugin changed since the
 * plan was made does not run (exp_plugin_changed), as an external's.
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PYTHON_ORIGIN "python:"

/* A per-process hash for the Python callables' tasks. */
static void process_nonce(char sha[65]) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  char seed[96];
  int n =
      snprintf(seed, sizeof seed, "%ld %lld %ld", (long)getpid(), (long long)t.tv_sec, t.tv_nsec);
  exp_sha256 h;
  exp_sha256_init(&h);
  exp_sha256_add(&h, seed, (size_t)n);
  exp_sha256_hex(&h, sha);
}

static int has_plugin(const exp_plan *pl, const char *path) {
  for (int k = 0; k < pl->nplugs; k++)
    if (strcmp(pl->plugs[k].path, path) == 0) return 1;
  return 0;
}

static int add_plugin(exp_plan *pl, const char *path, const char *sha) {
  exp_program *p = realloc(pl->plugs, (size_t)(pl->nplugs + 1) * sizeof *p);
  if (!p) return -1;
  pl->plugs = p;
  p = &pl->plugs[pl->nplugs];
  if (!(p->path = strdup(path))) return -1;
  p->ext = -1;
  snprintf(p->sha256, sizeof p->sha256, "%s", sha);
  pl->nplugs++;
  return 0;
}

int exp_plan_plugins(exp_plan *pl) {
  char nonce[65] = "";
  for (int i = 0; i < pl->ntasks; i++) {
    const char *o = slv_solver_origin(pl->tasks[i].solver.sv);
    if (!o || !o[0] || has_plugin(pl, o)) continue;
    const char *sha = exp_plugin_sha256_of(o);
    if (!sha && strncmp(o, PYTHON_ORIGIN, strlen(PYTHON_ORIGIN)) == 0) {
      if (!nonce[0]) process_nonce(nonce);
      sha = nonce;
    }
    if (sha && add_plugin(pl, o, sha) != 0) return -1;
  }
  return 0;
}

const char *exp_plan_python_solver(const exp_plan *pl) {
  for (int i = 0; i < pl->ntasks; i++) {
    const char *o = slv_solver_origin(pl->tasks[i].solver.sv);
    if (o && strncmp(o, PYTHON_ORIGIN, strlen(PYTHON_ORIGIN)) == 0)
      return pl->tasks[i].solver.sv->name;
  }
  return NULL;
}

const exp_program *exp_plan_plugin_of(const exp_plan *pl, const slv_solver *sv) {
  const char *o = slv_solver_origin(sv);
  for (int k = 0; o && k < pl->nplugs; k++)
    if (strcmp(pl->plugs[k].path, o) == 0) return &pl->plugs[k];
  return NULL;
}

int exp_plan_plugins_tsv(const exp_plan *pl, exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "# plugin\tsha256\n");
  for (int k = 0; k < pl->nplugs && !bad; k++)
    bad = exp_rbuf_add(b, "%s\t%s\n", pl->plugs[k].path, pl->plugs[k].sha256);
  return bad;
}

int exp_plan_load_plugins(const char *dir, exp_plan *pl) {
  char path[EXP_PATH_MAX + 32], line[EXP_PATH_MAX + 128], err[EXP_PATH_MAX + 512];
  snprintf(path, sizeof path, "%s/plugins.tsv", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1; /* a plan made before plugins, or without any */
  int rc = -1, no = 0;
  while (rc < 0 && fgets(line, sizeof line, f)) {
    no++;
    if (line[0] == '#') continue;
    line[strcspn(line, "\r\n")] = 0;
    char *tab = strchr(line, '\t');
    if (!tab || strlen(tab + 1) != 64) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s:%d: not a line 'path TAB sha256'", path, no);
      rc = EXP_EXIT_USAGE;
      break;
    }
    *tab = 0;
    if (strncmp(line, PYTHON_ORIGIN, strlen(PYTHON_ORIGIN)) == 0) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR,
              "%s:%d: the plan has a Python solver (%s), which only the Python process that "
              "made it can run",
              path, no, line);
      rc = EXP_EXIT_USAGE;
    } else if (exp_plugin_load(line, err, sizeof err) != 0) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s:%d: %s", path, no, err);
      rc = EXP_EXIT_USAGE;
    } else if (add_plugin(pl, line, tab + 1) != 0) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: out of memory", path);
      rc = EXP_EXIT_USAGE;
    }
  }
  fclose(f);
  return rc;
}

int exp_plugin_changed(const exp_plan *pl, const slv_solver *sv, char *err, size_t len) {
  const exp_program *p = exp_plan_plugin_of(pl, sv);
  /* a Python callable's entry is this process's own (no file to compare) */
  if (!p || strncmp(p->path, PYTHON_ORIGIN, strlen(PYTHON_ORIGIN)) == 0) return 0;
  const char *now = exp_plugin_sha256_of(p->path);
  if (now && strcmp(now, p->sha256) == 0) return 0;
  exp_fmt(err, len,
          "plugin %s changed since the plan was made (SHA-256 %.12s, the plan's %.12s): make "
          "the plan again (lcplab experiment ... --plan DIR --force)",
          p->path, now ? now : "(not loaded)", p->sha256);
  return 1;
}
