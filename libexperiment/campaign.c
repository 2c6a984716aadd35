/* campaign.c -- an experiment file run as a campaign: the steps behind
 * `lcplab experiment`, `lcplab task`, `lcplab collect` and Python's
 * lcplab.run_experiment (exp.h, "campaigns"; experiments/CAMPAIGNS.md,
 * "Campaigns").
 *
 *   exp_campaign_run    read the file, prepare the problems, write the plan
 *                       to OUT/campaign (resuming one of the same plan), run
 *                       its tasks on N local processes, collect into OUT
 *   exp_campaign_plan   the same up to the plan, written to a folder of its
 *                       own (for GNU parallel or Slurm)
 *   exp_campaign_task   one task of a plan folder
 *   exp_campaign_collect  a plan folder's results into the CSVs, tables and
 *                       figures
 *
 * A plan folder carries a marker (.lcplab-plan) when lcplab made it: force
 * starts over only in such a folder (or, made before the marker, one with
 * a plan.info); a folder of other files is never touched.  Starting over
 * removes exactly the files lcplab recorded as its own there (owned.c: the
 * plan's files, its tasks' results, the outputs collected there) and the
 * result files lcplab wrote (exp_result_file_ours: a plan made before the
 * record has them too); with --out, the outputs recorded in the output
 * folder go once the new ones are in place (exp_collect_opts.start_over:
 * one of a section the file no longer has included), so a run that fails
 * to write leaves the old outputs whole.  The outputs are
 * written with SIGINT and SIGTERM held back, so a CSV is never left half
 * written; a signal that came meanwhile is reported after them.  Stopping
 * the tasks is the caller's stop callback's decision (exp_jobs_opts): the
 * library installs no signal handler.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exp_internal.h"
#include "exp_lock.h"

/* ---- folders --------------------------------------------------------------------------------- */

static int mkdir_p(const char *path) {
  char buf[EXP_PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *c = buf + 1; *c; c++)
    if (*c == '/') {
      *c = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      *c = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  struct stat st;
  return (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) ? 0 : -1;
}

static void abs_path(const char *p, char *out, size_t len) {
  char r[PATH_MAX];
  exp_fmt(out, len, "%s", realpath(p, r) ? r : p);
}

/* Written into a plan folder when lcplab makes it: force clears only a
 * folder that carries it (or, made before the marker, a plan.info). */
#define PLAN_MARKER ".lcplab-plan"

static int is_plan_folder(const char *dir) {
  char path[EXP_PATH_MAX + 32], id[24];
  snprintf(path, sizeof path, "%s/" PLAN_MARKER, dir);
  return exp_path_exists(path) || exp_plan_peek_id(dir, id) == 0;
}

/* Does dir hold anything (a missing folder holds nothing; a lock of
 * lcplab's, lock.c, is nothing)? */
static int has_entries(const char *dir) {
  DIR *d = opendir(dir);
  int any = 0;
  for (struct dirent *e; d && !any && (e = readdir(d));)
    any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
          strncmp(e->d_name, ".lcplab-lock", 12) != 0;
  if (d) closedir(d);
  return any;
}

/* Creates dir (and its parents) with the marker in it: 0, or -1 after the
 * message; flag names the option in the message. */
static int make_plan_folder(const exp_log *log, const char *dir, const char *flag) {
  char path[EXP_PATH_MAX + 32], err[EXP_PATH_MAX + 256] = "";
  snprintf(path, sizeof path, "%s/" PLAN_MARKER, dir);
  if (mkdir_p(dir) != 0) {
    exp_say(log, EXP_SAY_ERROR, "experiment: %s %s: cannot create the folder: %s", flag, dir,
            strerror(errno));
    return -1;
  }
  io_outfile *o = io_outfile_open(path, err, sizeof err);
  if (o)
    fputs("a plan folder of lcplab experiment: --force may clear its results\n",
          io_outfile_stream(o));
  if (!o || io_outfile_publish(o, err, sizeof err) != SLV_OK) {
    exp_say(log, EXP_SAY_ERROR, "experiment: %s", err);
    return -1;
  }
  return 0;
}

/* Refuses (1 after the message) to start over in dir when it holds files
 * but no marker: they are not lcplab's to delete, force or not. */
static int refuse_foreign(const exp_log *log, const char *dir, const char *flag) {
  if (!has_entries(dir) || is_plan_folder(dir)) return 0;
  exp_say(log, EXP_SAY_ERROR,
          "experiment: %s %s is not a plan folder (no " PLAN_MARKER
          " marker): nothing there is cleared, also with --force; use another folder",
          flag, dir);
  return 1;
}

/* Removes the result files lcplab wrote in DIR/results before a plan is
 * started over (exp_result_file_ours), with exp_beneath_remove: a results
 * that is a link is not followed; anything else there is left, named in a
 * note. */
static void clear_results(const exp_log *log, const char *dir) {
  char path[EXP_PATH_MAX + 64], left[512] = "";
  size_t nl = 0;
  snprintf(path, sizeof path, "%s/results", dir);
  int top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int fd = top >= 0 ? exp_beneath_open(top, "results") : -1;
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d && fd >= 0) close(fd);
  if (top >= 0) close(top);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (exp_result_file_ours(dirfd(d), e->d_name))
      exp_beneath_remove(dirfd(d), e->d_name);
    else if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && nl < sizeof left)
      nl += (size_t)snprintf(left + nl, sizeof left - nl, "%s%s", nl ? ", " : "", e->d_name);
  }
  if (d) closedir(d);
  if (nl)
    exp_say(log, EXP_SAY_NOTE, "%s holds files lcplab did not write, left as they are: %s%s", path,
            left, nl >= sizeof left ? "..." : "");
}

/* Starting over in the plan folder dir (--force): the files lcplab
 * recorded there are removed, and nothing else (owned.c); then the result
 * files lcplab wrote (by name and content: a plan made before the record
 * has them too), the other files of results/ named in a note.  0, or -1
 * after the message. */
static int start_over(const exp_log *log, const char *dir) {
  char err[EXP_PATH_MAX + 256] = "";
  if (exp_owned_remove(dir, NULL, NULL, err, sizeof err) < 0) {
    exp_say(log, EXP_SAY_ERROR, "experiment: --force: %s (nothing else was removed)", err);
    return -1;
  }
  clear_results(log, dir);
  return 0;
}

int exp_dump_folder(const exp_log *log, const char *cmd, const char *dir, char *out) {
  struct stat st;
  if (!dir[0] || (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))) {
    exp_say(log, EXP_SAY_ERROR, "%s: --dump-failures %s: not a folder", cmd, dir);
    return 0;
  }
  if (mkdir_p(dir) != 0) {
    exp_say(log, EXP_SAY_ERROR, "%s: --dump-failures %s: cannot create the folder: %s", cmd, dir,
            strerror(errno));
    return 0;
  }
  abs_path(dir, out, EXP_PATH_MAX);
  return 1;
}

/* ---- writing the outputs under SIGINT / SIGTERM ------------------------------------------- */

/* exp_collect with SIGINT and SIGTERM held back: a signal that comes while
 * the CSVs, tables and figures are written waits until they are complete
 * (a CSV is never left half written), then is taken here (sigtimedwait):
 * *late = that signal, or 0.  Children (gnuplot) inherit the mask, so the
 * terminal's Ctrl-C does not cut a figure either. */
static int collect_held(const exp_plan *pl, const exp_collect_opts *co, int *late) {
  sigset_t hold, old;
  sigemptyset(&hold);
  sigaddset(&hold, SIGINT);
  sigaddset(&hold, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &hold, &old);
  int rc = exp_collect(pl, co);
  const struct timespec now = { 0, 0 };
  int sig;
  *late = 0;
  while ((sig = sigtimedwait(&hold, NULL, &now)) > 0) *late = *late == SIGTERM ? SIGTERM : sig;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

/* ---- the tasks left, as ranges -------------------------------------------------------------- */

static int task_left(const exp_plan *pl, int i) { return !exp_task_done(pl, i); }

/* What the result file of task i says: 0 none, 1 the task's own with a
 * completed verdict, 2 its own without one (error, crashed), 3 not its own
 * (stale: other instance or model contents, program files or variable
 * values; or damaged). */
static int result_state(const exp_plan *pl, int i) {
  char path[EXP_PATH_MAX + 64], why[256];
  exp_result r;
  exp_result_path(pl, i, path, sizeof path);
  int rc = exp_result_read(path, &r, why, sizeof why);
  if (rc == 1) return 0;
  if (rc != 0) return 3;
  int st = !exp_result_matches(pl, i, &r, why, sizeof why) ? 3 : exp_result_completed(&r) ? 1 : 2;
  exp_result_free(&r);
  return st;
}

static int task_stale(const exp_plan *pl, int i) { return result_state(pl, i) == 3; }
static int task_unfinished(const exp_plan *pl, int i) { return result_state(pl, i) == 2; }

/* The tasks that pick picks, as ranges "3, 7-12, ..." (at most len), their
 * count into *n (may be NULL), and the first of them (-1: none). */
static int task_ranges(const exp_plan *pl, int (*pick)(const exp_plan *, int), char *buf,
                       size_t len, int *n) {
  int first = -1, count = 0;
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < pl->ntasks; i++) {
    if (!pick(pl, i)) continue;
    int j = i;
    while (j + 1 < pl->ntasks && pick(pl, j + 1)) j++;
    count += j - i + 1;
    if (first < 0) first = i;
    char r[48];
    if (j > i)
      snprintf(r, sizeof r, "%s%d-%d", used ? ", " : "", i, j);
    else
      snprintf(r, sizeof r, "%s%d", used ? ", " : "", i);
    if (used + strlen(r) + 5 >= len) {
      snprintf(buf + used, len - used, ", ...");
      break;
    }
    used += (size_t)snprintf(buf + used, len - used, "%s", r);
    i = j;
  }
  if (n) *n = count;
  return first;
}

/* Says which results of an earlier run of the campaign are not their
 * tasks' own, before those tasks run again (experiments/README.md,
 * "Results keyed by content"). */
static void note_stale(const exp_plan *pl, const exp_log *log) {
  char list[512];
  int n = 0;
  if (task_ranges(pl, task_stale, list, sizeof list, &n) >= 0)
    exp_say(log, EXP_SAY_INFO,
            "%d %s not %s own (other instance or model contents, programs or ${NAME} values, or "
            "damaged): "
            "%s %s "
            "run%s again",
            n, n == 1 ? "result is" : "results are", n == 1 ? "its task's" : "their tasks'",
            n == 1 ? "task" : "tasks", list, n == 1 ? "s" : "");
  if (task_ranges(pl, task_unfinished, list, sizeof list, &n) >= 0)
    exp_say(log, EXP_SAY_INFO,
            "%d %s not finish last time (a worker died, memory ran out, or %s could not run): "
            "%s %s run%s again",
            n, n == 1 ? "task did" : "tasks did", n == 1 ? "it" : "they", n == 1 ? "task" : "tasks",
            list, n == 1 ? "s" : "");
}

/* The name of the signal behind a stop ("a stop request" without one). */
static const char *stop_name(int sig) {
  return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "a stop request";
}

/* The status of a campaign stopped by sig: 128 + sig as a shell says it
 * (130 SIGINT, 143 SIGTERM), EXP_EXIT_FAILED without a signal. */
static int stop_status(int sig) { return sig > 0 ? 128 + sig : EXP_EXIT_FAILED; }

/* The message of a campaign stopped (where it stopped, how to go on);
 * returns its status. */
static int report_stop(const exp_plan *pl, const exp_log *log, int sig, const exp_jobs_report *rep,
                       const char *out) {
  char left[512], spec[512];
  int first = task_ranges(pl, task_left, left, sizeof left, NULL);
  if (first < 0) {
    exp_say(log, EXP_SAY_INFO,
            "experiment: %s came while the outputs were written; they were finished first: "
            "every task has a result and the CSVs in %s are complete",
            stop_name(sig), out);
  } else {
    exp_task_spec(pl, first, spec, sizeof spec);
    for (char *c = spec; *c; c++)
      if (*c == '\t') *c = ' ';
    exp_say(log, EXP_SAY_INFO,
            "experiment stopped by %s: %d of %d tasks have a result, %d left (tasks %s; the "
            "first: %s); the CSVs in %s hold the tasks done (no figures); run the same command "
            "again to finish",
            stop_name(sig), rep->total - rep->left, rep->total, rep->left, left, spec, out);
  }
  return stop_status(sig);
}

/* ---- preparing a plan ---------------------------------------------------------------------- */

static void note_absent_externals(const exp_config *cfg) {
  char list[1024] = "";
  size_t used = 0;
  for (int i = 0; i < cfg->next; i++)
    if (!cfg->ext[i].available && used < sizeof list - 100)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                               cfg->ext[i].name);
  if (used)
    exp_say(&cfg->log, EXP_SAY_NOTE,
            "external solvers left out (their programs are not built or not found; see "
            "requires= in %s): %s",
            cfg->path, list);
}

/* exp_outputs_check of the outputs in out, none of them one of the files
 * the plan reads (exp_plan_inputs); 1 after the message, else 0. */
static int outputs_refused(const exp_plan *pl, const char *out, int force, int figures) {
  exp_inputs in = { 0 };
  int r = exp_plan_inputs(pl, &in) != 0;
  if (r)
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "experiment: out of memory listing the input files");
  else
    r = exp_outputs_check(&pl->cfg, out, force, figures, &in);
  exp_inputs_free(&in);
  return r;
}

/* Decides what to do with the campaign's plan folder and the outputs in
 * out: -1 go on (resume or new), else the status.  A new campaign replaces
 * no output without force; a resumed one replaces its own; none writes
 * through a symlink leading outside out (exp_outputs_check). */
static int check_plan_dir(const exp_plan *pl, const exp_campaign_opts *o) {
  const exp_log *log = &pl->cfg.log;
  char id[24];
  int fresh = !exp_path_exists(pl->dir);
  if (outputs_refused(pl, o->out, o->force || !fresh, !o->no_plot)) return EXP_EXIT_USAGE;
  if (!fresh && refuse_foreign(log, pl->dir, "--out")) return EXP_EXIT_USAGE;
  if (!fresh && exp_plan_peek_id(pl->dir, id) == 0 && strcmp(id, pl->id) == 0 && !o->force) {
    exp_say(log, EXP_SAY_INFO, "resuming the campaign in %s (plan %s)", pl->dir, pl->id);
    return -1;
  }
  if (!fresh && !o->force) {
    exp_say(log, EXP_SAY_ERROR,
            "experiment: %s holds a plan of another configuration (or other problems); use "
            "--force to start over, or another --out",
            pl->dir);
    return EXP_EXIT_USAGE;
  }
  /* starting over: the old plan's files and results now; the outputs
   * lcplab recorded in OUT once the new ones are in place (collect's
   * start_over: a section the file no longer has included), so that a
   * failed run leaves the old ones whole */
  if (o->force && !fresh && start_over(log, pl->dir) != 0) return EXP_EXIT_USAGE;
  return -1;
}

/* The folder of generated instances and scene exports: data, else
 * BASE/generated; made, its absolute path into adata.  0, or -1 after the
 * message. */
static int data_folder(const exp_log *log, const exp_campaign_opts *o, char *adata, size_t len) {
  char data[EXP_PATH_MAX + 32];
  char bad[EXP_PATH_MAX + 64];
  if (o->data)
    snprintf(data, sizeof data, "%s", o->data);
  else
    snprintf(data, sizeof data, "%s/generated", o->plan ? o->plan : o->out);
  /* BASE/generated inside the output folder: no link followed */
  snprintf(bad, sizeof bad, "%s", data);
  if (!o->data && (mkdir_p(o->plan ? o->plan : o->out) != 0 ||
                   exp_beneath_mkdir(o->plan ? o->plan : o->out, "generated", bad, sizeof bad))) {
    exp_say(log, EXP_SAY_ERROR, "experiment: %s: cannot create the folder: %s", bad,
            exp_beneath_why(errno));
    return -1;
  }
  if (mkdir_p(data) != 0) {
    exp_say(log, EXP_SAY_ERROR, "experiment: %s: cannot create the folder: %s", data,
            strerror(errno));
    return -1;
  }
  abs_path(data, adata, len);
  return 0;
}

static int prepare_plan(const exp_campaign_opts *o, const exp_log *log, exp_plan *pl,
                        const char *plan_dir) {
  int rc = exp_config_read(o->config, NULL, o->vars, log, &pl->cfg);
  if (rc >= 0) return rc;
  note_absent_externals(&pl->cfg);
  char adata[EXP_PATH_MAX];
  if (data_folder(log, o, adata, sizeof adata) != 0) return EXP_EXIT_USAGE;
  exp_env env = { adata, o->tty, o->max_memory, *log, o->force };
  if ((rc = exp_prepare(&pl->cfg, &env, &pl->probs, &pl->nprobs)) >= 0) return rc;
  pl->time_limit = o->time_limit;
  pl->memory_mb = exp_default_memory_mb();
  pl->max_memory = o->max_memory;
  if (o->dump && !exp_dump_folder(log, "experiment", o->dump, pl->dump_dir)) return EXP_EXIT_USAGE;
  char adir[EXP_PATH_MAX];
  abs_path(pl->cfg.dir, adir, sizeof adir);
  exp_fmt(pl->cfg.dir, sizeof pl->cfg.dir, "%s", adir);
  exp_git_rev(pl->cfg.dir, pl->rev, sizeof pl->rev);
  abs_path(o->config, pl->config_path, sizeof pl->config_path);
  snprintf(pl->dir, sizeof pl->dir, "%s", plan_dir);
  if (o->program) exp_fmt(pl->program, sizeof pl->program, "%s", o->program);
  if (exp_plan_expand(pl) || exp_plan_programs(pl)) {
    exp_say(log, EXP_SAY_ERROR, "experiment: out of memory expanding the tasks");
    return EXP_EXIT_USAGE;
  }
  return exp_plan_models(pl);
}

/* ---- the entry points ---------------------------------------------------------------------- */

/* How to run the plan in dir: commands with dir shell-quoted (exp_sh_quote),
 * so that pasting one runs nothing of the path (experiments/CAMPAIGNS.md,
 * "No shell ever parses a value"). */
static void say_plan_commands(const exp_log *log, const exp_plan *pl, const char *dir) {
  exp_rbuf q = { 0 };
  if (exp_sh_quote(&q, dir) != 0) {
    exp_rbuf_free(&q);
    exp_say(log, EXP_SAY_INFO, "plan %s: %d tasks over %d problems", dir, pl->ntasks, pl->nprobs);
    return;
  }
  exp_say(log, EXP_SAY_INFO,
          "plan %s: %d tasks over %d problems; run them with: sh %s/run-parallel.sh, or: sbatch "
          "%s/slurm.sbatch, or: lcplab task %s N; then: lcplab collect %s",
          dir, pl->ntasks, pl->nprobs, q.buf, q.buf, q.buf, q.buf);
  exp_rbuf_free(&q);
}

int exp_campaign_plan(const exp_campaign_opts *o, const exp_log *log) {
  exp_plan *pl = calloc(1, sizeof *pl);
  if (!pl) {
    exp_say(log, EXP_SAY_ERROR, "experiment: out of memory");
    return EXP_EXIT_USAGE;
  }
  char dir[EXP_PATH_MAX];
  int existed = exp_path_exists(o->plan), rc = EXP_EXIT_USAGE;
  exp_lock lk = { "", "", 0 };
  if (existed && !o->force)
    exp_say(log, EXP_SAY_ERROR, "experiment: --plan %s exists (use --force to replace it)",
            o->plan);
  else if (!refuse_foreign(log, o->plan, "--plan") && make_plan_folder(log, o->plan, "--plan") == 0)
    rc = exp_lock_take(&lk, o->plan, "experiment", log) == 0 ? -1 : EXP_EXIT_USAGE;
  if (rc < 0) {
    abs_path(o->plan, dir, sizeof dir);
    rc = prepare_plan(o, log, pl, dir);
  }
  if (rc < 0 && exp_plan_python_solver(pl)) {
    exp_say(log, EXP_SAY_ERROR,
            "experiment: --plan: solver '%s' is a Python callable, which the plan's `lcplab "
            "task` processes cannot reach: run the experiment from Python (run_experiment, "
            "compare), or make it a C plugin (docs/plugins.md)",
            exp_plan_python_solver(pl));
    rc = EXP_EXIT_USAGE;
  }
  if (rc < 0 && existed && start_over(log, dir) != 0) rc = EXP_EXIT_USAGE;
  if (rc < 0 && exp_plan_write(pl, o->chunk) != 0) rc = EXP_EXIT_USAGE;
  if (rc < 0) {
    exp_say(log, EXP_SAY_OUTPUT, "%s/tasks.tsv", dir);
    exp_say(log, EXP_SAY_OUTPUT, "%s/run-parallel.sh", dir);
    exp_say(log, EXP_SAY_OUTPUT, "%s/slurm.sbatch", dir);
    say_plan_commands(log, pl, dir);
    rc = EXP_EXIT_OK;
  }
  exp_lock_release(&lk);
  exp_plan_free(pl);
  free(pl);
  return rc;
}

/* The plan of a campaign in OUT/campaign, written (new, resumed or started
 * over): -1 to run it, else the status. */
static int campaign_plan_ready(const exp_campaign_opts *o, const exp_log *log, exp_plan *pl,
                               const char *dir) {
  int rc = prepare_plan(o, log, pl, dir);
  if (rc < 0) rc = check_plan_dir(pl, o);
  if (rc < 0) note_stale(pl, log);
  if (rc < 0 && make_plan_folder(log, dir, "--out") != 0) rc = EXP_EXIT_USAGE;
  if (rc < 0 && exp_plan_write(pl, 0) != 0) rc = EXP_EXIT_USAGE;
  return rc;
}

/* Runs the plan's tasks and collects; the status. */
static int campaign_tasks(const exp_campaign_opts *o, const exp_log *log, const exp_plan *pl,
                          const char *out) {
  exp_jobs_opts jo = { o->jobs > 0 ? o->jobs : 1, o->tty, o->stop, o->stop_ctx, o->fork };
  exp_jobs_report rep;
  int jr = exp_jobs_run(pl, &jo, &rep);
  exp_collect_opts co = { out,
                          o->scripts ? o->scripts : pl->cfg.dir,
                          o->gnuplot ? o->gnuplot : exp_gnuplot_prog(),
                          o->allow_mixed,
                          o->no_plot || jr != 0,
                          0,
                          o->force };
  int late = 0;
  int rc = jr < 0 ? EXP_EXIT_USAGE : collect_held(pl, &co, &late);
  if (jr == 1 || late) {
    int sig = jr == 1 ? rep.stopped_sig : late;
    if (late == SIGTERM) sig = SIGTERM;
    rc = report_stop(pl, log, sig, &rep, out);
  } else if (rc == 0) {
    exp_say(log, EXP_SAY_INFO, "experiment: %d tasks (%d resumed) in %.1f s on %d processes",
            rep.total, rep.skipped, rep.elapsed, jo.jobs);
  }
  return rc;
}

/* OUT/SUB absent, or a folder and no link: a campaign/ somebody made a
 * link to a folder elsewhere is refused, nothing written through it
 * (exp_beneath_open; made later by the plan, under the lock on OUT).  0,
 * or -1 after the message. */
static int out_folder(const exp_log *log, const char *out, const char *sub) {
  int top = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int fd = top >= 0 ? exp_beneath_open(top, sub) : -1;
  int e = errno;
  if (top >= 0) close(top);
  if (fd >= 0) close(fd);
  if (fd >= 0 || e == ENOENT) return 0;
  exp_say(log, EXP_SAY_ERROR, "experiment: %s/%s: cannot use the folder: %s", out, sub,
          exp_beneath_why(e));
  return -1;
}

int exp_campaign_run(const exp_campaign_opts *o, const exp_log *log) {
  if (mkdir_p(o->out) != 0) {
    exp_say(log, EXP_SAY_ERROR, "experiment: --out %s: cannot create the folder: %s", o->out,
            strerror(errno));
    return EXP_EXIT_USAGE;
  }
  char out[EXP_PATH_MAX], dir[EXP_PATH_MAX + 16];
  abs_path(o->out, out, sizeof out);
  snprintf(dir, sizeof dir, "%s/campaign", out);
  exp_plan *pl = calloc(1, sizeof *pl);
  if (!pl) {
    exp_say(log, EXP_SAY_ERROR, "experiment: out of memory");
    return EXP_EXIT_USAGE;
  }
  exp_lock lk;
  int rc = exp_lock_take(&lk, out, "experiment", log) == 0 ? -1 : EXP_EXIT_USAGE;
  if (rc < 0 && out_folder(log, out, "campaign") != 0) rc = EXP_EXIT_USAGE;
  if (rc < 0) rc = campaign_plan_ready(o, log, pl, dir);
  if (rc < 0) rc = campaign_tasks(o, log, pl, out);
  exp_lock_release(&lk);
  exp_plan_free(pl);
  free(pl);
  return rc;
}

int exp_campaign_task(const char *dir, long n, int force, const char *dump, size_t max_memory,
                      const exp_log *log) {
  exp_plan *pl = calloc(1, sizeof *pl);
  if (!pl) {
    exp_say(log, EXP_SAY_ERROR, "task: out of memory");
    return EXP_EXIT_USAGE;
  }
  int rc = exp_plan_read(dir, log, pl);
  if (rc < 0 && (n < 0 || n >= pl->ntasks)) {
    exp_say(log, EXP_SAY_ERROR, "task: %s: task %ld out of range (the plan has tasks 0..%d)", dir,
            n, pl->ntasks - 1);
    rc = EXP_EXIT_USAGE;
  }
  if (rc < 0 && max_memory > 0) pl->max_memory = max_memory;
  if (rc < 0 && dump && !exp_dump_folder(log, "task", dump, pl->dump_dir)) rc = EXP_EXIT_USAGE;
  if (rc < 0 && !force && exp_task_done(pl, (int)n)) rc = EXP_EXIT_OK; /* done before: resume */
  if (rc < 0) {
    exp_limit_memory(pl->memory_mb);
    exp_cache cache;
    memset(&cache, 0, sizeof cache);
    cache.prob = -1;
    /* a result that cannot be written is a write error as every writer's
     * (lcplab(1), EXIT STATUS: 2, the file named); 3 a task that could not run */
    int r = exp_task_run(pl, (int)n, &cache, NULL);
    rc = r == 0 ? EXP_EXIT_OK : r < 0 ? EXP_EXIT_USAGE : EXP_EXIT_FAILED;
    exp_cache_free(&cache);
    free(cache.speed.buf);
  }
  exp_plan_free(pl);
  free(pl);
  return rc;
}

int exp_campaign_collect(const char *dir, const exp_collect_opts *co0, int force,
                         const exp_log *log) {
  exp_plan *pl = calloc(1, sizeof *pl);
  if (!pl) {
    exp_say(log, EXP_SAY_ERROR, "collect: out of memory");
    return EXP_EXIT_USAGE;
  }
  exp_collect_opts co = *co0;
  if (!co.out) co.out = dir;
  int rc = exp_plan_read(dir, log, pl);
  exp_lock lk = { "", "", 0 };
  if (rc < 0 && mkdir_p(co.out) != 0) {
    exp_say(log, EXP_SAY_ERROR, "collect: --out %s: cannot create the folder: %s", co.out,
            strerror(errno));
    rc = EXP_EXIT_USAGE;
  }
  if (rc < 0 && exp_lock_take(&lk, co.out, "collect", log) != 0) rc = EXP_EXIT_USAGE;
  /* the plan folder's own outputs are replaced; any other folder's only with force */
  if (rc < 0 && outputs_refused(pl, co.out, force || io_same_file(co.out, dir), !co.no_plot))
    rc = EXP_EXIT_USAGE;
  int late = 0;
  if (rc < 0 && !co.scripts) co.scripts = pl->cfg.dir;
  if (rc < 0) rc = collect_held(pl, &co, &late);
  exp_lock_release(&lk);
  exp_plan_free(pl);
  free(pl);
  if (late)
    exp_say(log, EXP_SAY_INFO,
            "collect: %s came while the outputs were written; they were finished first",
            stop_name(late));
  return late ? stop_status(late) : rc;
}
