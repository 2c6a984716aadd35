/* plan.c -- an experiment as independent tasks, in a plan folder
 * (experiments/CAMPAIGNS.md, "Campaigns").
 *
 * A task is one unit of work whose result is one file:
 *   problem kinds: (problem, solver), every tolerance of the section in it,
 *     loosest first (a solver that reaches the time limit at one tolerance
 *     is not run at the stricter ones: their rows say time_limit too), every
 *     timed run of each;
 *   scene kinds: (scene, friction model, integrator, solver), every step;
 *     fidelity: (scene, solver), every budget of the section.
 * Tasks are numbered 0..T-1 problem by problem (all solvers of a problem in
 * a row, so that a worker keeps the problem loaded between them).
 *
 * The plan folder:
 *   plan.info        lcplab-plan 1, id, rev, config, dir, time_limit, memory_mb,
 *                    max_memory (--max-memory, 0: the default), dump_failures
 *                    (--dump-failures, empty: none), tasks
 *   plan.exp         the experiment file, verbatim
 *   plan.vars        the ${NAME} values it was read with (NAME=VALUE)
 *   problems.tsv     the problems (prepare.c): id, section, label,
 *                    family, class, kind, n, nnz, contacts, cond_est, mu_min,
 *                    mu_max (nan: no friction), origin, path (absolute),
 *                    sha256 (of the file's bytes)
 *   solvers.tsv      the registered solvers the sections use: solver,
 *                    sections, summary, params (the defaults it runs with),
 *                    cite (slv.h's descriptor); not part of the id
 *   tasks.tsv        one line per task: task, section, kind, problem (or
 *                    srcK for a scene), solver, integrator, friction, label
 *   programs.tsv     external, path, sha256: the files each external solver
 *                    runs (program.c), in its tasks' keys; not part of the id
 *   plugins.tsv      path, sha256: the C plugins whose solvers the tasks use
 *                    (plan_plugins.c), loaded by `lcplab task` before
 *                    plan.exp is read, in their tasks' keys; not part of the id
 *   models.tsv       section, source, path, sha256: the files each model
 *                    line's read opens (plan_models.c), in its tasks' keys;
 *                    not part of the id
 *   task-ids         0..T-1, one a line (GNU parallel's input)
 *   run-parallel.sh  GNU parallel over the task ids, --joblog, --resume-failed
 *   slurm.sbatch     a job array, C tasks per array element, the time limit
 *                    of C tasks
 *   results/         tNNNNNN.res, one per task (result.c)
 * The id is the FNV-1a of plan.exp, the problem list (problems.tsv's id,
 * section, label, family, origin and path), tasks.tsv and the time limit:
 * the plan's shape.  Each task has a key as
 * well, the SHA-256 of the plan id, plan.vars, its tasks.tsv line and its
 * problem file's SHA-256, an external's programs' and a model line's
 * files' too (exp_task_key,
 * task_done.c): a result is the task's
 * only with both (exp_result_matches), so an edited instance or a changed
 * variable reruns the tasks it touches while the plan stays the same.
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "exp_strmap.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const friction_names[] = { "none", "box", "pyramid", "cone" };
static const char *const integrator_names[] = { "symplectic", "explicit", "verlet" };

int exp_section_tols(const exp_section *s, double *tol) {
  int n = s->ntol;
  if (n == 0) {
    if (s->kind == EXP_PROFILE) {
      tol[0] = 1e-4;
      tol[1] = 1e-8;
      return 2;
    }
    tol[0] = 1e-8;
    return 1;
  }
  for (int k = 0; k < n; k++) tol[k] = s->tol[k];
  /* loosest first (task rule above) */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && tol[j] > tol[j - 1]; j--) {
      double t = tol[j];
      tol[j] = tol[j - 1];
      tol[j - 1] = t;
    }
  return n;
}

double exp_time_limit(const exp_plan *pl, const exp_section *s) {
  return pl->time_limit > 0 ? pl->time_limit : s->time_limit;
}

int exp_section_frictions(const exp_section *s, int *fr) {
  if (s->nfriction == 0) {
    fr[0] = 1; /* DYN_FRICTION_BOX */
    fr[1] = 3; /* DYN_FRICTION_CONE */
    return 2;
  }
  for (int k = 0; k < s->nfriction; k++) fr[k] = s->friction[k];
  return s->nfriction;
}

static int add_task(exp_plan *pl, int *cap, exp_task t) {
  if (pl->ntasks == *cap) {
    int c = *cap ? 2 * *cap : 256;
    exp_task *n = realloc(pl->tasks, (size_t)c * sizeof *n);
    if (!n) return -1;
    pl->tasks = n;
    *cap = c;
  }
  pl->tasks[pl->ntasks++] = t;
  return 0;
}

/* A scenes section: one task per (scene line, solver or scene peer), the
 * friction model the line's (auto by default: each solver's own), the
 * integrator the world's; a fidelity section's the same (each task runs
 * every budget: fidelity_task.c). */
static int expand_scenes_section(exp_plan *pl, int si, int *cap) {
  const exp_section *s = &pl->cfg.sec[si];
  for (int ci = 0; ci < s->nsrc; ci++) {
    int fr = s->src[ci].friction != -2 ? s->src[ci].friction : EXP_FRICTION_AUTO;
    for (int k = 0; k < s->nsolvers; k++) {
      exp_task t = { si, -1, ci, s->solvers[k], 0, fr, 0 };
      if (add_task(pl, cap, t)) return -1;
    }
  }
  return 0;
}

static int expand_scene_section(exp_plan *pl, int si, int *cap) {
  const exp_section *s = &pl->cfg.sec[si];
  if (s->kind == EXP_SCENES || s->kind == EXP_FIDELITY) return expand_scenes_section(pl, si, cap);
  int nint = s->nint ? s->nint : 1;
  int ints[3] = { 0, 0, 0 };
  if (s->nint) memcpy(ints, s->integrators, sizeof ints);
  if (s->kind == EXP_ACCURACY) nint = 1;
  int fr[4], nfr = exp_section_frictions(s, fr);
  for (int ci = 0; ci < s->nsrc; ci++) {
    const exp_source *src = &s->src[ci];
    int nf = src->friction != -2 ? 1 : nfr;
    for (int fi = 0; fi < nf; fi++)
      for (int ii = 0; ii < nint; ii++)
        for (int k = 0; k < s->nsolvers; k++) {
          exp_task t = {
            si, -1, ci, s->solvers[k], ints[ii], src->friction != -2 ? src->friction : fr[fi], 0
          };
          if (add_task(pl, cap, t)) return -1;
        }
  }
  return 0;
}

static int plan_id(exp_plan *pl);

/* The problems of each section, in catalogue order: section si's are
 * order[start[si] .. start[si + 1]) (one pass, not one per section). */
static int by_section(const exp_plan *pl, int **start, int **order) {
  int ns = pl->cfg.nsec;
  *start = calloc((size_t)ns + 2, sizeof **start);
  *order = malloc((size_t)(pl->nprobs > 0 ? pl->nprobs : 1) * sizeof **order);
  int *next = calloc((size_t)ns + 1, sizeof *next);
  if (!*start || !*order || !next) {
    free(next);
    return -1;
  }
  for (int p = 0; p < pl->nprobs; p++)
    if (pl->probs[p].section >= 0 && pl->probs[p].section < ns)
      (*start)[pl->probs[p].section + 1]++;
  for (int si = 0; si < ns; si++) (*start)[si + 1] += (*start)[si];
  for (int p = 0; p < pl->nprobs; p++) {
    int si = pl->probs[p].section;
    if (si >= 0 && si < ns) (*order)[(*start)[si] + next[si]++] = p;
  }
  free(next);
  return 0;
}

/* The replicate passes of a profile section with `replicates R` (issue
 * 65, experiments/README.md, "Timing", "Between-run noise"): its tasks
 * again R - 1 times, after every section's own tasks (another time), each
 * pass in its own order (a Fisher-Yates shuffle by a fixed LCG of the pass
 * and the section: the plan is the same every time it is made). */
static int add_replicates(exp_plan *pl, int *cap) {
  int base = pl->ntasks;
  for (int si = 0; si < pl->cfg.nsec; si++) {
    const exp_section *s = &pl->cfg.sec[si];
    if (s->kind != EXP_PROFILE || s->replicates < 2) continue;
    int *idx = malloc((size_t)(base > 0 ? base : 1) * sizeof *idx), n = 0;
    if (!idx) return -1;
    for (int i = 0; i < base; i++)
      if (pl->tasks[i].section == si) idx[n++] = i;
    for (long r = 1; r < s->replicates; r++) {
      uint64_t st = 0x9e3779b97f4a7c15ull ^ ((uint64_t)r << 32) ^ (uint64_t)si;
      for (int k = n - 1; k > 0; k--) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        int j = (int)((st >> 33) % (uint64_t)(k + 1)), tmp = idx[k];
        idx[k] = idx[j];
        idx[j] = tmp;
      }
      for (int k = 0; k < n; k++) {
        exp_task t = pl->tasks[idx[k]];
        t.rep = (int)r;
        if (add_task(pl, cap, t)) {
          free(idx);
          return -1;
        }
      }
    }
    free(idx);
  }
  return 0;
}

int exp_plan_expand(exp_plan *pl) {
  int cap = 0, *start = NULL, *order = NULL, bad = 0;
  free(pl->tasks);
  pl->tasks = NULL;
  pl->ntasks = 0;
  bad = by_section(pl, &start, &order);
  for (int si = 0; si < pl->cfg.nsec && !bad; si++) {
    const exp_section *s = &pl->cfg.sec[si];
    if (exp_kind_is_scene(s->kind)) {
      bad = expand_scene_section(pl, si, &cap);
      continue;
    }
    for (int q = start[si]; q < start[si + 1] && !bad; q++)
      for (int k = 0; k < s->nsolvers && !bad; k++) {
        exp_task t = { si, order[q], -1, s->solvers[k], 0, 0, 0 };
        bad = add_task(pl, &cap, t);
      }
  }
  if (!bad) bad = add_replicates(pl, &cap);
  free(start);
  free(order);
  return bad ? -1 : plan_id(pl);
}

/* ---- rendering ------------------------------------------------------------------------- */

static const char *fr_name(int f) { return f >= 0 && f < 4 ? friction_names[f] : "auto"; }

void exp_task_spec(const exp_plan *pl, int i, char *buf, size_t len) {
  const exp_task *t = &pl->tasks[i];
  const exp_section *s = &pl->cfg.sec[t->section];
  const char *name = exp_solver_name(&pl->cfg, &t->solver);
  if (t->prob >= 0 && t->rep > 0) /* a replicate pass: a ninth field */
    snprintf(buf, len, "%d\t%s\t%s\t%d\t%s\t-\t-\t%s\trep%d", i, s->name, exp_kind_str(s->kind),
             t->prob, name, pl->probs[t->prob].label, t->rep);
  else if (t->prob >= 0)
    snprintf(buf, len, "%d\t%s\t%s\t%d\t%s\t-\t-\t%s", i, s->name, exp_kind_str(s->kind), t->prob,
             name, pl->probs[t->prob].label);
  else
    snprintf(buf, len, "%d\t%s\t%s\tsrc%d\t%s\t%s\t%s\t%s", i, s->name, exp_kind_str(s->kind),
             t->src, name, integrator_names[t->integrator], fr_name(t->friction),
             s->src[t->src].scene);
}

static int render_tasks(const exp_plan *pl, exp_rbuf *b) {
  int bad =
      exp_rbuf_add(b, "# task\tsection\tkind\tproblem\tsolver\tintegrator\tfriction\tlabel\n");
  for (int i = 0; i < pl->ntasks && !bad; i++) {
    char line[1024];
    exp_task_spec(pl, i, line, sizeof line);
    bad = exp_rbuf_add(b, "%s\n", line);
  }
  return bad;
}

static int render_problems(const exp_plan *pl, exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "# id\tsection\tlabel\tfamily\tclass\tkind\tn\tnnz\tcontacts\tcond_est"
                            "\tmu_min\tmu_max\torigin\tpath\tsha256\n");
  for (int i = 0; i < pl->nprobs && !bad; i++) {
    const exp_prob *p = &pl->probs[i];
    bad = exp_rbuf_add(b, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%ld\t%d\t%.6e\t%.6g\t%.6g\t%s\t%s\t%s\n", i,
                       pl->cfg.sec[p->section].name, p->label, p->family, exp_class_str(p->cls),
                       p->kind, p->n, p->nnz, p->contacts, p->cond, p->mu_min, p->mu_max, p->origin,
                       p->path, p->sha256);
  }
  return bad;
}

/* The registered solvers the sections use, each once, in the order the
 * sections name them: solver, sections (", " between them), summary,
 * params, cite (slv.h's descriptor: the paper's table of the solvers and
 * their default parameters reads it).  Externals are not listed: their
 * parameters are their command templates, in plan.exp. */
static int render_solvers(const exp_plan *pl, exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "# solver\tsections\tsummary\tparams\tcite\n");
  for (int si = 0; si < pl->cfg.nsec && !bad; si++) {
    const exp_section *s = &pl->cfg.sec[si];
    for (int k = 0; k < s->nsolvers && !bad; k++) {
      const slv_solver *sv = s->solvers[k].sv;
      int seen = !sv;
      for (int sj = 0; sj <= si && !seen; sj++)
        for (int j = 0; j < (sj < si ? pl->cfg.sec[sj].nsolvers : k) && !seen; j++)
          seen = pl->cfg.sec[sj].solvers[j].sv == sv;
      if (seen) continue;
      bad = exp_rbuf_add(b, "%s\t", sv->name);
      for (int sj = si, first = 1; sj < pl->cfg.nsec && !bad; sj++)
        for (int j = 0; j < pl->cfg.sec[sj].nsolvers && !bad; j++)
          if (pl->cfg.sec[sj].solvers[j].sv == sv) {
            bad = exp_rbuf_add(b, "%s%s", first ? "" : ", ", pl->cfg.sec[sj].name);
            first = 0;
            break;
          }
      if (!bad)
        bad = exp_rbuf_add(b, "\t%s\t%s\t%s\n", sv->summary ? sv->summary : "",
                           sv->params ? sv->params : "", sv->cite ? sv->cite : "");
    }
  }
  return bad;
}

/* programs.tsv: external, path, sha256 of each file an external runs
 * (program.c); not part of the id (the tasks' keys hold the hashes). */
static int render_programs(const exp_plan *pl, exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "# external\tpath\tsha256\n");
  for (int k = 0; k < pl->nprogs && !bad; k++)
    bad = exp_rbuf_add(b, "%s\t%s\t%s\n", pl->cfg.ext[pl->progs[k].ext].name, pl->progs[k].path,
                       pl->progs[k].sha256);
  return bad;
}

/* The problems as the plan id sees them: which files, under which labels,
 * in which sections; not what the files hold (their metadata and hashes
 * are the tasks' keys' business, exp_task_key). */
static int render_problem_list(const exp_plan *pl, exp_rbuf *b) {
  int bad = 0;
  for (int i = 0; i < pl->nprobs && !bad; i++) {
    const exp_prob *p = &pl->probs[i];
    bad = exp_rbuf_add(b, "%d\t%s\t%s\t%s\t%s\t%s\n", i, pl->cfg.sec[p->section].name, p->label,
                       p->family, p->origin, p->path);
  }
  return bad;
}

static void compute_id(exp_plan *pl, const exp_rbuf *probs, const exp_rbuf *tasks) {
  uint64_t h = EXP_FNV_INIT;
  h = exp_fnv1a(h, pl->cfg.text, strlen(pl->cfg.text) + 1);
  h = exp_fnv1a(h, probs->buf ? probs->buf : "", probs->len);
  h = exp_fnv1a(h, tasks->buf ? tasks->buf : "", tasks->len);
  char tl[64];
  snprintf(tl, sizeof tl, "time_limit %.17g", pl->time_limit);
  h = exp_fnv1a(h, tl, strlen(tl));
  snprintf(pl->id, sizeof pl->id, "%016llx", (unsigned long long)h);
}

int exp_plan_peek_id(const char *dir, char *id) {
  char path[EXP_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/plan.info", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[1024];
  int ok = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "id %23s", id) == 1) ok = 1;
  fclose(f);
  return ok ? 0 : -1;
}

void exp_self_path(char *out, size_t len) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    snprintf(out, len, "lcplab");
    return;
  }
  exe[n] = '\0';
  /* a libtool build tree runs DIR/.libs/lcplab (or lt-lcplab) through the
   * wrapper script DIR/lcplab, which sets the library path */
  char *slash = strrchr(exe, '/');
  if (slash && slash - exe >= 6 && strncmp(slash - 6, "/.libs", 6) == 0) {
    const char *base = slash + 1;
    if (strncmp(base, "lt-", 3) == 0) base += 3;
    char wrap[PATH_MAX + 64];
    snprintf(wrap, sizeof wrap, "%.*s/%s", (int)(slash - 6 - exe), exe, base);
    if (access(wrap, X_OK) == 0) {
      snprintf(out, len, "%s", wrap);
      return;
    }
  }
  snprintf(out, len, "%s", exe);
}

/* DIR/NAME replaced by text only once complete (io_outfile; docs/io.md,
 * "Replacing files"); exec: mode 0755.  0, or -1 after the message. */
static int write_file(const exp_log *log, const char *dir, const char *name, const char *text,
                      size_t len, int exec) {
  char path[EXP_PATH_MAX + 64], err[EXP_PATH_MAX + 256] = "";
  snprintf(path, sizeof path, "%s/%s", dir, name);
  io_outfile *o = io_outfile_open(path, err, sizeof err);
  if (!o) {
    exp_say(log, EXP_SAY_ERROR, "%s", err);
    return -1;
  }
  FILE *f = io_outfile_stream(o);
  int bad = fwrite(text, 1, len, f) != len || (exec && fchmod(fileno(f), 0755) != 0);
  if (bad) {
    io_outfile_discard(o);
    exp_say(log, EXP_SAY_ERROR, "%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  if (io_outfile_publish(o, err, sizeof err) != SLV_OK) {
    exp_say(log, EXP_SAY_ERROR, "%s", err);
    return -1;
  }
  return 0;
}

/* The longest a task of the plan may take (s): per tolerance a warm-up and
 * the timed runs (each under the limit, stopped past max_time), or a scene
 * run; plus loading. */
static double task_bound(const exp_plan *pl) {
  double worst = 0.0;
  for (int si = 0; si < pl->cfg.nsec; si++) {
    const exp_section *s = &pl->cfg.sec[si];
    double L = exp_time_limit(pl, s), tol[EXP_MAX_TOLS];
    int nt = exp_section_tols(s, tol);
    double b = exp_kind_is_scene(s->kind) ? L : nt * (2.0 * L + s->max_time);
    worst = fmax(worst, b + 60.0);
  }
  return worst;
}

/* Slurm's --time in minutes: chunk tasks of at most task_bound s each, at
 * most EXP_SBATCH_MAX_MIN (experiments/CAMPAIGNS.md, "Campaigns"). */
static long sbatch_minutes(const exp_plan *pl, int chunk) {
  double m = ceil(chunk * task_bound(pl) / 60.0);
  return m < EXP_SBATCH_MAX_MIN ? (long)m : (long)EXP_SBATCH_MAX_MIN;
}

/* dir='PLAN' and LCPLAB=${LCPLAB:-'SELF'}, both single-quoted for sh. */
static int render_dir_lines(const exp_plan *pl, const char *self, exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "dir=") | exp_sh_quote(b, pl->dir);
  bad |= exp_rbuf_add(b, "\nLCPLAB=${LCPLAB:-") | exp_sh_quote(b, self);
  return bad | exp_rbuf_add(b, "}\n");
}

static int render_parallel(const exp_plan *pl, const char *self, exp_rbuf *par) {
  int bad = exp_rbuf_add(
      par,
      "#!/bin/sh\n"
      "# run-parallel.sh -- the %d tasks of this lcplab plan under GNU parallel\n"
      "# (experiments/README.md, \"Campaigns\").\n"
      "#   sh run-parallel.sh [PARALLEL OPTIONS]    e.g. -j 8, or --sshloginfile HOSTS\n"
      "# Every task writes its own result under results/; running this again resumes:\n"
      "# --resume-failed reruns the failed and the missing tasks, and a task whose\n"
      "# result exists returns at once.  Then: lcplab collect \"$dir\"\n"
      "# Across ssh hosts the plan folder, the problem files and lcplab must have the\n"
      "# same paths on every host (a shared file system).\n"
      "set -eu\n",
      pl->ntasks);
  bad |= render_dir_lines(pl, self, par);
  /* parallel gets the task through {} and the paths as its own arguments,
   * each quoted by parallel itself (--quote) */
  return bad |
         exp_rbuf_add(par, "exec parallel --joblog \"$dir/joblog\" --resume-failed --halt never "
                           "\"$@\" \\\n"
                           "  --quote env OPENBLAS_NUM_THREADS=1 \"$LCPLAB\" task \"$dir\" {} "
                           ":::: \"$dir/task-ids\"\n");
}

static int render_sbatch(const exp_plan *pl, int chunk, const char *self, exp_rbuf *sb) {
  int T = pl->ntasks, A = T > 0 ? (T + chunk - 1) / chunk : 1;
  int bad = exp_rbuf_add(
      sb,
      "#!/bin/sh\n"
      "# slurm.sbatch -- the %d tasks of this lcplab plan as a Slurm job array\n"
      "# (experiments/README.md, \"Campaigns\"): %d tasks per array element,\n"
      "# each task under its own time limit (at most %.0f s a task).\n"
      "#   sbatch slurm.sbatch        then, when the array is done: lcplab collect \"$dir\"\n"
      "# Submitting it again reruns only the tasks without a result.  The plan's\n"
      "# path is in no #SBATCH line (sbatch does not parse shell quotes): the\n"
      "# script sends its output to $dir/slurm/JOB_ELEMENT.out itself.\n"
      "#SBATCH --job-name=lcplab-%s\n"
      "#SBATCH --array=0-%d\n"
      "#SBATCH --time=%ld\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --output=/dev/null\n"
      "set -u\n",
      T, chunk, task_bound(pl), pl->id, A - 1, sbatch_minutes(pl, chunk));
  bad |= render_dir_lines(pl, self, sb);
  return bad | exp_rbuf_add(sb,
                            "exec >>\"$dir/slurm/${SLURM_ARRAY_JOB_ID:-0}_${SLURM_ARRAY_TASK_ID}"
                            ".out\" 2>&1\n"
                            "export OPENBLAS_NUM_THREADS=1\n"
                            "first=$((SLURM_ARRAY_TASK_ID * %d))\n"
                            "last=$((first + %d - 1))\n"
                            "if [ \"$last\" -ge %d ]; then last=%d; fi\n"
                            "rc=0\n"
                            "t=$first\n"
                            "while [ \"$t\" -le \"$last\" ]; do\n"
                            "  \"$LCPLAB\" task \"$dir\" \"$t\" || rc=$?\n"
                            "  t=$((t + 1))\n"
                            "done\n"
                            "exit $rc\n",
                            chunk, chunk, T, T - 1);
}

static int render_scripts(const exp_plan *pl, int chunk, const char *self, exp_rbuf *par,
                          exp_rbuf *sb) {
  int T = pl->ntasks;
  if (chunk <= 0) chunk = T > 1000 ? (T + 999) / 1000 : 1;
  return render_parallel(pl, self, par) | render_sbatch(pl, chunk, self, sb);
}

static int render_info(const exp_plan *pl, exp_rbuf *b) {
  char date[64] = "unknown";
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return exp_rbuf_add(b,
                      "lcplab-plan 1\nid %s\nrev %s\nconfig %s\ndir %s\ntime_limit %.17g\n"
                      "memory_mb %.0f\nmax_memory %zu\ndump_failures %s\ntasks %d\nproblems %d\n"
                      "created %s\n",
                      pl->id, pl->rev, pl->config_path, pl->cfg.dir, pl->time_limit, pl->memory_mb,
                      pl->max_memory, pl->dump_dir, pl->ntasks, pl->nprobs, date);
}

/* DIR/SUB made, or there, and no link (exp_beneath_mkdir): a results/ or
 * slurm/ somebody made a link to a folder elsewhere is refused. */
static int mkdir_one(const exp_log *log, const char *dir, const char *sub) {
  char p[EXP_PATH_MAX + 32];
  if (exp_beneath_mkdir(dir, sub, p, sizeof p) != 0) {
    exp_say(log, EXP_SAY_ERROR, "%s: cannot create the folder: %s", p, exp_beneath_why(errno));
    return -1;
  }
  return 0;
}

/* The names of the plan's files, its tasks' results and GNU parallel's
 * joblog (run-parallel.sh writes it there), recorded as lcplab's in the
 * plan folder (owned.c): --force starts over by removing these and
 * nothing else.  0, or -1 after the message. */
static int record_plan(const exp_plan *pl) {
  static const char *const files[] = { "plan.exp",     "plan.vars",       "plan.info",
                                       "problems.tsv", "solvers.tsv",     "tasks.tsv",
                                       "task-ids",     "run-parallel.sh", "slurm.sbatch",
                                       "programs.tsv", "plugins.tsv",     "joblog" };
  int nf = (int)(sizeof files / sizeof files[0]), n = nf + pl->ntasks;
  const char **names = malloc((size_t)n * sizeof *names);
  char *res = malloc((size_t)(pl->ntasks > 0 ? pl->ntasks : 1) * 24);
  char err[EXP_PATH_MAX + 256] = "out of memory";
  int rc = -1;
  if (names && res) {
    for (int k = 0; k < nf; k++) names[k] = files[k];
    for (int i = 0; i < pl->ntasks; i++) {
      snprintf(res + 24 * (size_t)i, 24, "results/t%06d.res", i);
      names[nf + i] = res + 24 * (size_t)i;
    }
    rc = exp_owned_record(pl->dir, names, n, err, sizeof err);
  }
  if (rc != 0) exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: %s", pl->dir, err);
  free(names);
  free(res);
  return rc;
}

int exp_plan_write(const exp_plan *pl, int chunk) {
  exp_rbuf probs = { 0 }, tasks = { 0 }, ids = { 0 }, par = { 0 }, sb = { 0 }, info = { 0 },
           solvers = { 0 }, progs = { 0 }, plugs = { 0 }, models = { 0 };
  char self[PATH_MAX];
  if (pl->program[0])
    snprintf(self, sizeof self, "%s", pl->program);
  else
    exp_self_path(self, sizeof self);
  int bad = render_problems(pl, &probs) | render_solvers(pl, &solvers) | render_tasks(pl, &tasks) |
            render_info(pl, &info) | render_scripts(pl, chunk, self, &par, &sb) |
            render_programs(pl, &progs) | exp_plan_plugins_tsv(pl, &plugs) |
            exp_plan_models_tsv(pl, &models);
  for (int i = 0; i < pl->ntasks && !bad; i++) bad = exp_rbuf_add(&ids, "%d\n", i);
  if (bad) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "out of memory writing the plan");
  } else if (mkdir(pl->dir, 0777) != 0 && errno != EEXIST) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: cannot create the plan folder: %s", pl->dir,
            strerror(errno));
    bad = 1;
  } else {
    bad = mkdir_one(&pl->cfg.log, pl->dir, "results") ||
          mkdir_one(&pl->cfg.log, pl->dir, "slurm") ||
          write_file(&pl->cfg.log, pl->dir, "plan.exp", pl->cfg.text, strlen(pl->cfg.text), 0) ||
          write_file(&pl->cfg.log, pl->dir, "plan.vars", exp_config_vars(&pl->cfg),
                     strlen(exp_config_vars(&pl->cfg)), 0) ||
          write_file(&pl->cfg.log, pl->dir, "problems.tsv", probs.buf, probs.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "solvers.tsv", solvers.buf, solvers.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "tasks.tsv", tasks.buf, tasks.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "programs.tsv", progs.buf, progs.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "plugins.tsv", plugs.buf, plugs.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "models.tsv", models.buf, models.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "task-ids", ids.buf ? ids.buf : "", ids.len, 0) ||
          write_file(&pl->cfg.log, pl->dir, "run-parallel.sh", par.buf, par.len, 1) ||
          write_file(&pl->cfg.log, pl->dir, "slurm.sbatch", sb.buf, sb.len, 1) ||
          write_file(&pl->cfg.log, pl->dir, "plan.info", info.buf, info.len, 0) || record_plan(pl);
  }
  exp_rbuf_free(&probs);
  exp_rbuf_free(&solvers);
  exp_rbuf_free(&tasks);
  exp_rbuf_free(&ids);
  exp_rbuf_free(&par);
  exp_rbuf_free(&sb);
  exp_rbuf_free(&info);
  exp_rbuf_free(&progs);
  exp_rbuf_free(&plugs);
  exp_rbuf_free(&models);
  return bad ? -1 : 0;
}

/* exp_plan_expand's id: the files rendered in memory. */
static int plan_id(exp_plan *pl) {
  exp_rbuf probs = { 0 }, tasks = { 0 };
  int bad = render_problem_list(pl, &probs) | render_tasks(pl, &tasks);
  if (!bad) compute_id(pl, &probs, &tasks);
  exp_rbuf_free(&probs);
  exp_rbuf_free(&tasks);
  return bad ? -1 : 0;
}

/* ---- reading ---------------------------------------------------------------------------- */

/* A plan file's numbers, read strictly (slv_parse_double, slv.h, "numbers
 * from text"): a plan edited by hand or cut short is refused, never read as
 * 0.  Each returns 0, or 1 after a message naming the file and the field. */
static int plan_field_bad(const exp_plan *pl, const char *path, const char *field,
                          const char *value, slv_parse_error e) {
  exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: %s '%s': %s (a plan lcplab did not write?)", path,
          field, value, slv_parse_error_str(e));
  return 1;
}

/* A time or memory amount: finite and >= 0. */
static int info_amount(const exp_plan *pl, const char *path, const char *field, const char *s,
                       double *out) {
  slv_parse_error e = slv_parse_double(s, SLV_PARSE_FINITE, out);
  if (e == SLV_PARSE_OK && *out < 0) e = SLV_PARSE_RANGE;
  return e == SLV_PARSE_OK ? 0 : plan_field_bad(pl, path, field, s, e);
}

static int info_bytes(const exp_plan *pl, const char *path, const char *s, size_t *out) {
  unsigned long v = 0;
  slv_parse_error e = slv_parse_ulong(s, &v);
  if (e == SLV_PARSE_OK && v > (unsigned long)SIZE_MAX) e = SLV_PARSE_RANGE;
  if (e != SLV_PARSE_OK) return plan_field_bad(pl, path, "max_memory", s, e);
  *out = (size_t)v;
  return 0;
}

static int read_info(const char *dir, exp_plan *pl, char *cfgdir, size_t len) {
  char path[EXP_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/plan.info", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: not a plan folder (no plan.info: %s)", dir,
            strerror(errno));
    return EXP_EXIT_USAGE;
  }
  char line[EXP_PATH_MAX + 64];
  int magic = 0, bad = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (strcmp(line, "lcplab-plan 1") == 0)
      magic = 1;
    else if (strncmp(line, "id ", 3) == 0)
      exp_fmt(pl->id, sizeof pl->id, "%s", line + 3);
    else if (strncmp(line, "rev ", 4) == 0)
      exp_fmt(pl->rev, sizeof pl->rev, "%s", line + 4);
    else if (strncmp(line, "config ", 7) == 0)
      exp_fmt(pl->config_path, sizeof pl->config_path, "%s", line + 7);
    else if (strncmp(line, "dir ", 4) == 0)
      exp_fmt(cfgdir, len, "%s", line + 4);
    else if (strncmp(line, "time_limit ", 11) == 0)
      bad = bad || info_amount(pl, path, "time_limit", line + 11, &pl->time_limit);
    else if (strncmp(line, "memory_mb ", 10) == 0)
      bad = bad || info_amount(pl, path, "memory_mb", line + 10, &pl->memory_mb);
    else if (strncmp(line, "max_memory ", 11) == 0)
      bad = bad || info_bytes(pl, path, line + 11, &pl->max_memory);
    else if (strncmp(line, "dump_failures ", 14) == 0)
      exp_fmt(pl->dump_dir, sizeof pl->dump_dir, "%s", line + 14);
  }
  fclose(f);
  if (bad) return EXP_EXIT_USAGE;
  if (!magic || !pl->id[0]) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: not an lcplab plan (plan.info)", path);
    return EXP_EXIT_USAGE;
  }
  return -1;
}

/* plan.vars as "--var" definitions (pointers into *text, which the caller
 * frees), every line of it whatever its length.  -1 ok, else exit 2 after
 * the message. */
static int read_vars(const exp_log *log, const char *dir, exp_vars *v, char **text) {
  char path[EXP_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/plan.vars", dir);
  memset(v, 0, sizeof *v);
  *text = NULL;
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  exp_rbuf b = { 0 };
  char chunk[4096];
  size_t n;
  int bad = 0;
  while (!bad && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
    bad = exp_rbuf_add(&b, "%.*s", (int)n, chunk);
  bad |= ferror(f);
  fclose(f);
  char *save = NULL;
  for (char *l = b.buf ? strtok_r(b.buf, "\n", &save) : NULL; l && !bad;
       l = strtok_r(NULL, "\n", &save)) {
    bad = v->ndef == EXP_MAX_VARS;
    if (!bad) v->def[v->ndef++] = l;
  }
  *text = b.buf;
  if (bad)
    exp_say(log, EXP_SAY_ERROR, "%s: unreadable, or more than %d variables", path, EXP_MAX_VARS);
  return bad ? EXP_EXIT_USAGE : -1;
}

/* Splits line at tabs into f (max n); returns the count. */
static int split_tabs(char *line, char **f, int n) {
  int k = 0;
  line[strcspn(line, "\r\n")] = '\0';
  for (char *c = line; k < n;) {
    f[k++] = c;
    char *t = strchr(c, '\t');
    if (!t) break;
    *t = '\0';
    c = t + 1;
  }
  return k;
}

/* The index of the section named name (secs: the sections by name), or -1. */
static int section_named(const exp_strmap *secs, const char *name) {
  return exp_strmap_get(secs, 0, name);
}

/* The numbers of a problems.tsv line (fields 6 to 11): 0, or 1 after the
 * message naming the problem and the field. */
static int problem_numbers(const exp_plan *pl, const char *path, char **c, exp_prob *p) {
  static const char *const names[] = { "n", "nnz", "contacts", "cond_est", "mu_min", "mu_max" };
  long v[3] = { 0, 0, 0 };
  double *d[3] = { &p->cond, &p->mu_min, &p->mu_max };
  for (int k = 0; k < 6; k++) {
    slv_parse_error e =
        k < 3 ? slv_parse_long(c[6 + k], &v[k]) : exp_parse_measured(c[6 + k], d[k - 3]);
    if (e == SLV_PARSE_OK && k < 3 && (v[k] < 0 || (k != 1 && v[k] > INT_MAX))) e = SLV_PARSE_RANGE;
    if (e != SLV_PARSE_OK) {
      char field[64];
      snprintf(field, sizeof field, "problem %s, %s", c[0], names[k]);
      return plan_field_bad(pl, path, field, c[6 + k], e);
    }
  }
  p->n = (int)v[0];
  p->nnz = v[1];
  p->contacts = (int)v[2];
  return 0;
}

static int read_problems(const char *dir, exp_plan *pl, const exp_strmap *secs) {
  char path[EXP_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/problems.tsv", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: %s", path, strerror(errno));
    return EXP_EXIT_USAGE;
  }
  char line[EXP_PATH_MAX + 512];
  int cap = 0, rc = -1;
  while (rc < 0 && fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char *c[15];
    if (split_tabs(line, c, 15) != 15) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR,
              "%s: a line without 15 fields (a plan of an older lcplab: make it again)", path);
      rc = EXP_EXIT_USAGE;
      break;
    }
    if (pl->nprobs == cap) {
      cap = cap ? 2 * cap : 64;
      exp_prob *n = realloc(pl->probs, (size_t)cap * sizeof *n);
      if (!n) {
        rc = EXP_EXIT_USAGE;
        break;
      }
      pl->probs = n;
    }
    exp_prob *p = &pl->probs[pl->nprobs++];
    memset(p, 0, sizeof *p);
    p->section = section_named(secs, c[1]);
    snprintf(p->label, sizeof p->label, "%s", c[2]);
    snprintf(p->family, sizeof p->family, "%s", c[3]);
    p->cls = exp_class_from_str(c[4]);
    snprintf(p->kind, sizeof p->kind, "%s", c[5]);
    if (problem_numbers(pl, path, c, p)) {
      rc = EXP_EXIT_USAGE;
      break;
    }
    snprintf(p->origin, sizeof p->origin, "%s", c[12]);
    if (!(p->path = strdup(c[13]))) {
      rc = EXP_EXIT_USAGE;
      break;
    }
    snprintf(p->sha256, sizeof p->sha256, "%s", c[14]);
    if (p->section < 0 || p->cls < 0) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: problem %d: unknown section '%s' or class '%s'",
              path, pl->nprobs - 1, c[1], c[4]);
      rc = EXP_EXIT_USAGE;
    }
  }
  fclose(f);
  return rc;
}

/* The solver of a tasks.tsv line: registered, or an external declared in
 * the config (available here or not). */
static int find_solver(const exp_config *cfg, const char *name, exp_solver_ref *r) {
  const slv_solver *sv = slv_solver_find(name);
  if (sv) {
    *r = (exp_solver_ref){ sv, -1 };
    return 0;
  }
  for (int i = 0; i < cfg->next; i++)
    if (strcmp(cfg->ext[i].name, name) == 0) {
      *r = (exp_solver_ref){ NULL, i };
      return 0;
    }
  return -1;
}

static int parse_task(exp_plan *pl, const exp_strmap *secs, char **c, exp_task *t) {
  memset(t, 0, sizeof *t);
  t->section = section_named(secs, c[1]);
  if (t->section < 0 || find_solver(&pl->cfg, c[4], &t->solver)) return -1;
  if (strncmp(c[3], "src", 3) == 0) {
    t->prob = -1;
    if (slv_parse_int(c[3] + 3, &t->src) != SLV_PARSE_OK) return -1;
    t->integrator = 0;
    for (int k = 0; k < 3; k++)
      if (strcmp(c[5], integrator_names[k]) == 0) t->integrator = k;
    t->friction = -1;
    for (int k = 0; k < 4; k++)
      if (strcmp(c[6], friction_names[k]) == 0) t->friction = k;
    return t->src >= 0 && t->src < pl->cfg.sec[t->section].nsrc ? 0 : -1;
  }
  t->src = -1;
  if (slv_parse_int(c[3], &t->prob) != SLV_PARSE_OK) return -1;
  return t->prob >= 0 && t->prob < pl->nprobs ? 0 : -1;
}

static int read_tasks(const char *dir, exp_plan *pl, const exp_strmap *secs) {
  char path[EXP_PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/tasks.tsv", dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: %s", path, strerror(errno));
    return EXP_EXIT_USAGE;
  }
  char line[2048];
  int cap = 0, rc = -1;
  while (rc < 0 && fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char *c[9];
    exp_task t;
    int nc = split_tabs(line, c, 9);
    int id = -1;
    if (nc < 8 || slv_parse_int(c[0], &id) != SLV_PARSE_OK || id != pl->ntasks ||
        parse_task(pl, secs, c, &t) ||
        (nc == 9 && (strncmp(c[8], "rep", 3) != 0 ||
                     slv_parse_int(c[8] + 3, &t.rep) != SLV_PARSE_OK || t.rep < 1)) ||
        add_task(pl, &cap, t)) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: task %d: not a task of this plan's config", path,
              pl->ntasks);
      rc = EXP_EXIT_USAGE;
    }
  }
  fclose(f);
  return rc;
}

/* programs.tsv (program.c): the externals' files and hashes; a plan made
 * before it has none.  -1 ok, else exit 2 after the message. */
static int read_programs(const char *dir, exp_plan *pl) {
  char path[EXP_PATH_MAX + 32], line[EXP_PATH_MAX + 256];
  snprintf(path, sizeof path, "%s/programs.tsv", dir);
  FILE *f = fopen(path, "r");
  int rc = -1;
  while (f && rc < 0 && fgets(line, sizeof line, f)) {
    char *c[3];
    if (line[0] == '#') continue;
    int x = -1;
    if (split_tabs(line, c, 3) == 3)
      for (int k = 0; k < pl->cfg.next && x < 0; k++)
        if (strcmp(pl->cfg.ext[k].name, c[0]) == 0) x = k;
    exp_program *p = x >= 0 ? realloc(pl->progs, (size_t)(pl->nprogs + 1) * sizeof *p) : NULL;
    if (p) pl->progs = p;
    if (!p || strlen(c[2]) != 64 || !(pl->progs[pl->nprogs].path = strdup(c[1]))) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: a line that is not external, path, sha256", path);
      rc = EXP_EXIT_USAGE;
      break;
    }
    pl->progs[pl->nprogs].ext = x;
    snprintf(pl->progs[pl->nprogs++].sha256, 65, "%s", c[2]);
  }
  if (f) fclose(f);
  return rc;
}

int exp_plan_read(const char *dir, const exp_log *log, exp_plan *pl) {
  memset(pl, 0, sizeof *pl);
  if (log) pl->cfg.log = *log;
  snprintf(pl->dir, sizeof pl->dir, "%s", dir);
  char cfgdir[EXP_PATH_MAX] = ".", path[EXP_PATH_MAX + 32];
  int rc = read_info(dir, pl, cfgdir, sizeof cfgdir);
  if (rc >= 0) return rc;
  /* the plugins first: the experiment file names their solvers */
  if ((rc = exp_plan_load_plugins(dir, pl)) >= 0) return rc;
  exp_vars vars;
  char *vtext = NULL;
  rc = read_vars(&pl->cfg.log, dir, &vars, &vtext);
  snprintf(path, sizeof path, "%s/plan.exp", dir);
  if (rc < 0) rc = exp_config_read_recorded(path, cfgdir, &vars, log, &pl->cfg);
  free(vtext);
  if (rc >= 0) return rc;
  exp_strmap secs = { 0 };
  for (int k = 0; k < pl->cfg.nsec && rc < 0; k++)
    if (exp_strmap_put(&secs, 0, pl->cfg.sec[k].name, k) != 0) {
      exp_say(&pl->cfg.log, EXP_SAY_ERROR, "%s: out of memory", dir);
      rc = EXP_EXIT_USAGE;
    }
  if (rc < 0 && (rc = read_problems(dir, pl, &secs)) < 0 && (rc = read_tasks(dir, pl, &secs)) < 0)
    if ((rc = read_programs(dir, pl)) < 0) rc = exp_plan_read_models(dir, pl);
  exp_strmap_free(&secs);
  return rc;
}

void exp_plan_free(exp_plan *pl) {
  for (int k = 0; k < pl->nprogs; k++) free(pl->progs[k].path);
  free(pl->progs);
  for (int k = 0; k < pl->nplugs; k++) free(pl->plugs[k].path);
  free(pl->plugs);
  exp_plan_models_free(pl);
  exp_config_free(&pl->cfg);
  exp_probs_free(pl->probs, pl->nprobs);
  free(pl->tasks);
  memset(pl, 0, sizeof *pl);
}
