/* external.c -- external solvers in a campaign: a command that
 * reads the instance lcplab hands it and writes a solution file
 * (experiments/CAMPAIGNS.md, "External solvers").
 *
 *   external NAME [format=F] [time=KEY] [classes=C,...] [requires=PATH]
 *            command TEMPLATE...
 *
 * For each tolerance of the task:
 *   1. the instance in format F (dat: Siconos numerics .dat -- LCP, MLCP,
 *      relay or FC3D, whichever the problem is; blcp; lcp: lcplab's own;
 *      hdf5: FCLIB, cones only; mtx; own: the file the problem was read
 *      from, whatever its format, a global FCLIB file as it is): the
 *      problem's own file when it is already in F and holds the problem
 *      the row is judged in (a global problem is judged, and so handed, as
 *      the local one it condenses to), else written with io_write into the attempt's own
 *      scratch folder (exp_tctx_scratch: new for every run of the task,
 *      removed after it; another attempt's leftovers are never read); a
 *      format that cannot hold the problem is a refusal;
 *   2. the command: TEMPLATE run by /bin/sh -c in its own process group,
 *      with {in} (the instance), {out} (the solution file to write), {tol},
 *      {max_iter}, {n}, {class}, {time_limit} and the ${NAME} values as its
 *      positional parameters, which the template refers to ("${1}"...,
 *      config.c): no value is parsed by the shell
 *      (experiments/CAMPAIGNS.md, "No shell ever parses a value"); stdout
 *      read, stderr to the scratch folder;
 *   3. the solution: {out} holds x, n values (one a line, '#' comments), for
 *      a cone problem the reactions r (x = r, one triple per contact); it is
 *      judged by the library's own residual (slv_residual), exactly as a
 *      built-in solver's x: "converged" when the library's test holds
 *      (slv_residuals_met: res_scaled <= tol), else "unconverged" (with its
 *      residuals);
 *      no file, a file that is not a regular file (a FIFO is never opened
 *      for reading, so it cannot block the judge), a file that does not
 *      read, or a non-zero exit with no file: "failed", with empty residual
 *      fields (no solution was read), and the task's task_status says
 *      failed, so that collect counts it; NaN or inf in the file:
 *      "not_finite", residuals empty too;
 *   4. timing: the same repetition rule as the built-in solvers on the
 *      compared time, each run a new process; the processes' wall time
 *      stops the repeats at max_time only after min_runs runs.  The time compared (time_source) is what the program
 *      reports when time=KEY is given and every run printed a number for it
 *      ("KEY": V, KEY: V, KEY=V or KEY V on stdout): "reported"; otherwise
 *      the process's wall time from fork to exit (start-up and file reading
 *      included): "process".  With {repeat} in the template (time=KEY
 *      required) a probe process of one solve comes first, not counted,
 *      then each process times R = exp_repeat_count(probe's time) solves
 *      itself and reports one solve's time, counted as R runs.  A run that passes the section's time limit is
 *      killed (its process group, SIGKILL): time_limit, whether or not it
 *      closed its stdout; what a finished run left in its process group is
 *      killed too;
 *   5. with verdict=KEY, the true/false (1/0) the last process printed after
 *      KEY, the program's own verdict, is the row's reported_solved (empty
 *      when it printed none); it judges nothing (the agreement table of
 *      tables_counts.c counts it against err_siconos).
 */
#define _GNU_SOURCE

#include "exp_task.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct {
  const char *name, *ext;
  io_format fmt;
} formats[] = { { "dat", ".dat", IO_FMT_AUTO },
                { "blcp", ".blcp", IO_FMT_BLCP },
                { "lcp", ".lcp", IO_FMT_LCPLAB },
                { "hdf5", ".hdf5", IO_FMT_FCLIB },
                { "mtx", ".mtx", IO_FMT_MTX } };

/* The instance file in the external's format into path; 0, or -1 with why.
 * Every format but own hands over the problem the row is judged in: a
 * global problem (inst->global: a gfc3d .dat, an FCLIB /fclib_global) is
 * judged as the local one it condenses to, so it is written as that local
 * problem (a view of inst without its global part: both writers write an
 * instance that carries one back global), never handed as its own file. */
static int instance_file(exp_tctx *c, const exp_external *e, const io_instance *inst, char *path,
                         size_t len, char *why, size_t wl) {
  const char *own = c->prob->path;
  if (strcmp(e->format, "own") == 0) {
    snprintf(path, len, "%s", own);
    return 0;
  }
  int f = 0;
  while (f < 4 && strcmp(formats[f].name, e->format) != 0) f++; /* mtx: the last */
  size_t ol = strlen(own), el = strlen(formats[f].ext);
  /* an FCLIB file may hold a global problem (condensed when lcplab reads
   * it): .hdf5 is always written anew */
  if (f != 3 && !inst->global && ol > el && strcmp(own + ol - el, formats[f].ext) == 0) {
    snprintf(path, len, "%s", own);
    return 0;
  }
  snprintf(path, len, "%s/problem%s", c->scratch, formats[f].ext);
  if (exp_path_exists(path)) return 0;
  io_instance local = *inst;
  local.global = NULL;
  slv_status st = io_write(path, formats[f].fmt, &local, why, wl);
  if (st != SLV_OK) {
    if (!why[0])
      snprintf(why, wl, "cannot write the problem as %s: %s", e->format, slv_status_str(st));
    return -1;
  }
  return 0;
}

/* The shell's argv: sh -c TEMPLATE sh IN OUT TOL MAX_ITER N CLASS
 * TIME_LIMIT REPEAT VALUES..., each value a positional parameter that the
 * template refers to as "${K}" (config.c): the shell never parses it. */
typedef struct xargv {
  char *argv[4 + EXP_EXT_NKEYS + EXP_EXT_MAX_VALS + 1];
  char num[5][64];
} xargv;

static void external_argv(const exp_external *e, const char *in, const char *out_file, double tol,
                          long max_iter, int n, const char *cls, double limit, xargv *a) {
  snprintf(a->num[0], sizeof a->num[0], "%g", tol);
  snprintf(a->num[1], sizeof a->num[1], "%ld", max_iter);
  snprintf(a->num[2], sizeof a->num[2], "%d", n);
  snprintf(a->num[3], sizeof a->num[3], "%g", limit);
  snprintf(a->num[4], sizeof a->num[4], "1");
  const char *fixed[4 + EXP_EXT_NKEYS] = { "sh",      "-c",     e->command, "sh",
                                           in,        out_file, a->num[0],  a->num[1],
                                           a->num[2], cls,      a->num[3],  a->num[4] };
  int k = 0;
  for (; k < 4 + EXP_EXT_NKEYS; k++) a->argv[k] = (char *)fixed[k];
  const char *v = e->vals;
  for (int j = 0; j < e->nvals; j++, v += strlen(v) + 1) a->argv[k++] = (char *)v;
  a->argv[k] = NULL;
}

/* The value after the next whole-word key in text from *from ("key": v,
 * key: v, key=v, key v), *from moved past it; NULL if none. */
static const char *value_after(const char *text, const char *key, const char **from) {
  size_t kl = strlen(key);
  for (const char *p = strstr(*from, key); p; p = strstr(p + 1, key)) {
    *from = p + 1;
    if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
    const char *q = p + kl;
    if (*q == '"') q++;
    while (*q == ' ' || *q == ':' || *q == '=' || *q == '\t') q++;
    return q;
  }
  return NULL;
}

/* The number after key in text; NaN if none. */
static double reported_time(const char *text, const char *key) {
  const char *from = text, *q;
  while ((q = value_after(text, key, &from)) != NULL) {
    char *end;
    double v = strtod(q, &end);
    if (end != q && isfinite(v) && v >= 0) return v;
  }
  return NAN;
}

/* The verdict after key in text (true or 1: "1", false or 0: "0"); NULL if
 * none (experiments/README.md, "External solvers": verdict=KEY). */
static const char *reported_verdict(const char *text, const char *key) {
  static const struct {
    const char *word, *verdict;
  } words[] = { { "true", "1" }, { "false", "0" }, { "1", "1" }, { "0", "0" } };
  const char *from = text, *q;
  while ((q = value_after(text, key, &from)) != NULL)
    for (int k = 0; k < 4; k++) {
      size_t wl = strlen(words[k].word);
      if (strncmp(q, words[k].word, wl) == 0 && !isalnum((unsigned char)q[wl]) && q[wl] != '.')
        return words[k].verdict;
    }
  return NULL;
}

typedef struct xrun {
  int exit; /* exit status, -1 killed by a signal */
  int timed_out;
  double wall;         /* s, fork to exit */
  double reported;     /* NaN if none */
  const char *verdict; /* "1", "0", or NULL: none printed (or no verdict=KEY) */
  double iters;        /* its own count of iterations (iterations=KEY), NaN if none */
} xrun;

/* Waits for the child pid until t0 + limit (s): 0 when it ended (status
 * set), 1 when the limit passed first.  A child that closed its stdout
 * (the end of the loop in run_once) is still under the limit.  It sleeps
 * in poll on a pidfd, which wakes when the child ends (the wall time stays
 * exact), or in 1 ms steps where there is none. */
static int wait_child(pid_t pid, double t0, double limit, int *status) {
  int pfd = -1, ended = 0;
#ifdef SYS_pidfd_open
  pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
  for (;;) {
    pid_t w = waitpid(pid, status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) {
      ended = 1;
      break;
    }
    double left = limit - (exp_now_s() - t0);
    if (left <= 0) break;
    struct pollfd pf = { pfd, POLLIN, 0 };
    struct timespec ms = { 0, 1000000 };
    if (pfd < 0 || poll(&pf, 1, (int)fmin(left * 1000.0 + 1.0, 1000.0)) < 0) nanosleep(&ms, NULL);
  }
  if (pfd >= 0) close(pfd);
  return !ended;
}

/* Runs the command once under the time limit. */
static int run_once(exp_tctx *c, const xargv *cmd, const exp_external *e, double limit, xrun *r) {
  char out[65536];
  memset(r, 0, sizeof *r);
  if (exp_ext_exec(c, cmd->argv, e->time_key, limit, out, sizeof out, &r->exit, &r->timed_out,
                   &r->wall, &r->reported) != 0)
    return -1;
  r->verdict = e->verdict_key[0] ? reported_verdict(out, e->verdict_key) : NULL;
  r->iters = e->iter_key[0] ? reported_time(out, e->iter_key) : NAN;
  return 0;
}

int exp_ext_exec(exp_tctx *c, char *const *argv, const char *time_key, double limit,
                 char *stdout_text, size_t text_len, int *exit_status, int *timed_out, double *wall,
                 double *reported) {
  xrun rr, *r = &rr;
  char errpath[EXP_PATH_MAX + 32];
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", c->scratch);
  int fd[2];
  if (pipe(fd) != 0) return -1;
  double t0 = exp_now_s();
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    int ef = open(errpath, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (ef >= 0) dup2(ef, 2);
    execv("/bin/sh", argv);
    _exit(127);
  }
  setpgid(pid, pid);
  exp_wd_set_child(c->wd, pid);
  close(fd[1]);
  char out[65536];
  size_t used = 0;
  memset(r, 0, sizeof *r);
  for (;;) {
    double left = limit - (exp_now_s() - t0);
    if (left <= 0) {
      r->timed_out = 1;
      kill(-pid, SIGKILL);
      break;
    }
    struct pollfd pf = { fd[0], POLLIN, 0 };
    int pr = poll(&pf, 1, (int)fmin(left * 1000.0 + 1.0, 1000.0));
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    ssize_t n = read(fd[0], out + used, sizeof out - 1 - used);
    if (n <= 0) break;
    used += (size_t)n;
    if (used + 1 >= sizeof out) used = 0; /* keep reading; a time is printed near the end */
  }
  out[used] = '\0';
  close(fd[0]);
  int status = 0, reaped = 0;
  if (!r->timed_out) {
    r->timed_out = wait_child(pid, t0, limit, &status);
    reaped = !r->timed_out;
  }
  /* the run's process group: all of a run past the limit, and whatever a
   * finished run left behind (it must not write {out} while it is judged) */
  kill(-pid, SIGKILL);
  if (!reaped)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  r->wall = exp_now_s() - t0;
  exp_wd_set_child(c->wd, 0);
  r->exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r->reported = time_key[0] ? reported_time(out, time_key) : NAN;
  if (stdout_text && text_len) exp_fmt(stdout_text, text_len, "%s", out);
  *exit_status = r->exit;
  *timed_out = r->timed_out;
  *wall = r->wall;
  *reported = r->reported;
  return 0;
}

typedef struct xmeas {
  const char *status;
  int no_solution; /* nothing was read: the row's residuals stay empty */
  char note[256];
  exp_tsum t;
  int runs;
  const char *source;
  slv_residuals res;
  double wall;         /* the processes' wall time in all */
  const char *verdict; /* the last run's own verdict (xrun), NULL: none */
  int iterations;      /* the last run's own count (iterations=KEY), 0: none */
} xmeas;

/* 1 when the first token of the file fd (white space separated, '#'
 * comments) that is not a finite number is NaN or infinite: where the read
 * stopped.  The scan stops at the first token that is no number at all (a
 * binary or sparse file's first bytes), never reading on through it. */
static int holds_nonfinite(int fd) {
  FILE *f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(dup(fd), "r") : NULL;
  if (!f) return 0;
  char tok[64];
  int found = 0;
  while (!found && fscanf(f, "%63s", tok) == 1) {
    if (tok[0] == '#') {
      int ch;
      while ((ch = fgetc(f)) != EOF && ch != '\n') {}
      continue;
    }
    char *end;
    double v = strtod(tok, &end);
    if (*end != '\0' || end == tok) break; /* not a number: the read stopped here */
    found = !isfinite(v);
  }
  fclose(f);
  return found;
}

/* Reads the solution file into x: 0, or -1 with m's status and note set.
 * It is opened without blocking and read only when it is a regular file
 * (a FIFO left at {out} would block a reader), through the descriptor that
 * was checked (/proc/self/fd). */
static int read_solution(const io_instance *inst, const char *out_file, const xrun *r, double *x,
                         xmeas *m) {
  char err[256] = "", via[64];
  int fd = open(out_file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  m->status = "failed";
  m->no_solution = 1;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(m->note, sizeof m->note, "exit %d; no usable solution: %s", r->exit,
             fd < 0 ? strerror(errno) : "{out} is not a regular file (a FIFO, device or folder)");
    if (fd >= 0) close(fd);
    return -1;
  }
  snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
  int bad = io_read_vector(via, inst->n, x, err, sizeof err) != SLV_OK;
  if (bad && holds_nonfinite(fd)) {
    m->status = "not_finite";
    snprintf(m->note, sizeof m->note, "exit %d; the solution holds NaN or inf", r->exit);
  } else if (bad) {
    size_t vl = strlen(via);
    snprintf(m->note, sizeof m->note, "exit %d; no usable solution: solution file%s", r->exit,
             strncmp(err, via, vl) == 0 ? err + vl : err);
  }
  close(fd);
  return bad ? -1 : 0;
}

/* Reads and judges the solution of the last run. */
static void judge(const io_instance *inst, const char *out_file, const xrun *r, double tol,
                  double *x, xmeas *m) {
  m->verdict = r->verdict;
  m->iterations = isfinite(r->iters) && r->iters < 2e9 ? (int)r->iters : 0;
  if (read_solution(inst, out_file, r, x, m) != 0) return;
  m->no_solution = 0;
  slv_problem p = io_instance_problem(inst);
  m->res = slv_residual(&p, x, NULL);
  if (!isfinite(m->res.res_rel))
    m->status = "not_finite";
  else
    m->status = exp_judge(&p, &m->res, tol) ? "converged" : "unconverged";
  if (r->exit != 0) snprintf(m->note, sizeof m->note, "exit %d", r->exit);
}

/* The built-in rule on the compared time; the processes' wall time ends the
 * repeats at max_time only once min_runs runs are in, so that a peer whose
 * start-up dwarfs its reported solve time still has its min_runs runs. */
static int external_repeat_done(const exp_section *s, int runs, double compared, double wall) {
  if (exp_repeat_done(runs, compared, (int)s->min_runs, s->min_time, s->max_time)) return 1;
  return runs >= s->min_runs && wall >= s->max_time;
}

/* One process of the command: 0 with r set, or -1 with m's status and note
 * (it could not start, or the time limit killed it). */
static int run_process(exp_tctx *c, const exp_external *e, const xargv *cmd, const char *out_file,
                       xrun *r, xmeas *m) {
  double limit = exp_time_limit(c->pl, c->s);
  unlink(out_file);
  if (run_once(c, cmd, e, limit, r) != 0) {
    m->status = "failed";
    snprintf(m->note, sizeof m->note, "cannot start /bin/sh: %s", strerror(errno));
    return -1;
  }
  if (r->timed_out) {
    m->status = "time_limit";
    snprintf(m->note, sizeof m->note, "killed at the time limit %g s", limit);
    return -1;
  }
  m->wall += r->wall;
  return 0;
}

/* {repeat} (exp_repeat_count): a probe process of one solve, not counted
 * (the built-in solvers' warm-up), then processes of R solves each, until
 * their solves meet the repetition rule; a process's reported time is one
 * solve's (the program's own summary of its R solves).  1 when the probe
 * failed (its answer is judged, nothing timed), else 0; -1 as run_process. */
static int probe_repeat(exp_tctx *c, const exp_external *e, xargv *cmd, const char *out_file,
                        xrun *r, xmeas *m, long *per_process) {
  *per_process = 1;
  if (!e->uses_repeat) return 0;
  if (run_process(c, e, cmd, out_file, r, m) != 0) return -1;
  if (r->exit != 0 || !exp_path_exists(out_file)) return 1;
  if (!isfinite(r->reported)) return 0; /* no time of its own: one solve a process */
  const exp_section *s = c->s;
  *per_process =
      exp_repeat_count(r->reported, (int)s->min_runs, s->min_time, s->max_time, EXP_RUNS_MAX);
  snprintf(cmd->num[4], sizeof cmd->num[4], "%ld", *per_process);
  return 0;
}

static void measure_external(exp_tctx *c, const exp_external *e, const io_instance *inst,
                             xargv *cmd, const char *out_file, double tol, double *x, double *times,
                             int cap, xmeas *m) {
  double total = 0.0;
  int reported_all = e->time_key[0] != 0, procs = 0;
  long per = 1;
  xrun r;
  m->runs = 0;
  m->wall = 0.0;
  m->status = NULL;
  int probe = probe_repeat(c, e, cmd, out_file, &r, m, &per);
  if (probe < 0) return;
  if (probe > 0) { /* the failed probe is the row, as a failed first run */
    reported_all &= isfinite(r.reported);
    times[procs++] = isfinite(r.reported) ? r.reported : r.wall;
    m->runs = 1;
  }
  while (probe == 0 && procs < cap && !external_repeat_done(c->s, m->runs, total, m->wall)) {
    if (run_process(c, e, cmd, out_file, &r, m) != 0) return;
    reported_all &= isfinite(r.reported);
    double dt = isfinite(r.reported) && reported_all ? r.reported : r.wall;
    times[procs++] = dt;
    m->runs += (int)per;
    total += dt * (double)per;
    if (procs == 1 && (r.exit != 0 || !exp_path_exists(out_file)))
      break; /* a failed run is not repeated */
  }
  m->source = reported_all && procs > 0 ? "reported" : "process";
  if (procs > 0) exp_time_summary(times, procs, &m->t);
  judge(inst, out_file, &r, tol, x, m);
}

/* The watchdog, armed at the time limit + 30 s: the time limit is enforced
 * on the child (run_once); this is the backstop if lcplab itself hangs,
 * and then the row says failed. */
static void arm_backstop(exp_tctx *c, double tol) {
  exp_line l;
  exp_prow r = { .status = "failed",
                 .tol = tol,
                 .note = "lcplab did not finish running and judging the solver within the "
                         "time limit + 30 s" };
  exp_problem_row(c, &r, &l);
  char row[sizeof l.s + 1];
  snprintf(row, sizeof row, "%s\n", l.s);
  exp_wd_arm(c->wd, exp_time_limit(c->pl, c->s) + 30.0, row, 1);
}

/* A solve with no usable answer fails the task (task_status failed, the
 * first such solve as message), so that collect counts and names it. */
static void mark_failed(exp_tctx *c, const exp_external *e, double tol, const char *note) {
  if (strcmp(c->head->task_status, "ok") != 0) return;
  snprintf(c->head->task_status, sizeof c->head->task_status, "failed");
  exp_fmt(c->head->message, sizeof c->head->message, "external %s at tol %g: %s", e->name, tol,
          note);
}

/* The bit of {tol} in exp_external.told (exp_ext_keys[2]). */
#define EXT_TOLD_TOL (1u << 2)

/* The tolerance ladder (experiments/README.md, "One stopping rule"): the
 * solver is told tol, and while the judge rejects its answer
 * (unconverged: it ran and answered, but res_scaled > tol) and rungs are
 * left (ladder=K), it is asked again, told a tolerance ten times tighter;
 * the row is the last rung's answer, judged at tol, timed as it ran.  The
 * tolerance it was last told. */
/* A rung of the ladder the judge rejected, appended to buf: "tol T: S s unconverged"
 * (its told tolerance and median time; " / " between rungs: no comma in a note), so the row records every rung it took and
 * its time, not only the last one's, which is the answer judged and timed. */
static void ladder_rung(char *buf, size_t len, double told, const xmeas *m) {
  size_t l = strlen(buf);
  if (l + 1 < len)
    snprintf(buf + l, len - l, "%stol %g: %.3g s %s", l ? " / " : "", told, m->t.median,
             m->status ? m->status : "?");
}

static double measure_ladder(exp_tctx *c, const exp_external *e, const io_instance *inst,
                             const char *in, const char *out_file, double tol, double *x,
                             double *times, int cap, xmeas *m) {
  long max_iter = c->s->max_iter > 0 ? c->s->max_iter : 10000;
  double told = tol;
  char rungs[192] = "";
  for (int rung = 0;; rung++) {
    xargv cmd;
    external_argv(e, in, out_file, told, max_iter, inst->n, exp_class_str(c->prob->cls),
                  exp_time_limit(c->pl, c->s), &cmd);
    memset(m, 0, sizeof *m);
    arm_backstop(c, tol);
    measure_external(c, e, inst, &cmd, out_file, tol, x, times, cap, m);
    exp_wd_disarm(c->wd);
    if (rung >= e->ladder || !(e->told & EXT_TOLD_TOL) || !m->status ||
        strcmp(m->status, "unconverged") != 0 || told / 10.0 < 1e-16)
      break;
    ladder_rung(rungs, sizeof rungs, told, m);
    told /= 10.0;
  }
  if (told != tol && m->status) {
    size_t l = strlen(m->note);
    snprintf(m->note + l, sizeof m->note - l, "%stold tol %g (ladder; rungs before: %s)",
             l ? "; " : "", told, rungs);
  }
  return told;
}

int exp_external_run(exp_tctx *c, const io_instance *inst, const double *tols, int nt) {
  const exp_external *e = &c->pl->cfg.ext[c->t->solver.ext];
  char why[512] = "";
  for (int ti = 0; ti < nt; ti++) {
    exp_prow r = { .status = "refused", .tol = tols[ti], .note = why };
    exp_line l;
    if (!e->available) {
      snprintf(why, sizeof why, "external %s: %s not found on this host", e->name, e->requires);
    } else if (e->classes && !(e->classes & (1u << c->prob->cls))) {
      snprintf(why, sizeof why, "external %s does not take class %s", e->name,
               exp_class_str(c->prob->cls));
    } else {
      why[0] = '\0';
    }
    if (why[0]) {
      exp_problem_row(c, &r, &l);
      exp_tctx_row(c, &l);
      continue;
    }
    char in[EXP_PATH_MAX + 64], out_file[EXP_PATH_MAX + 64];
    if (exp_tctx_scratch(c) != 0) {
      exp_fmt(why, sizeof why, "%s/scratch: cannot create a folder: %s", c->pl->dir,
              exp_beneath_why(errno));
      r.status = "error";
      exp_problem_row(c, &r, &l);
      exp_tctx_row(c, &l);
      return 3;
    }
    if (instance_file(c, e, inst, in, sizeof in, why, sizeof why) != 0) {
      exp_problem_row(c, &r, &l);
      exp_tctx_row(c, &l);
      continue;
    }
    snprintf(out_file, sizeof out_file, "%s/solution.txt", c->scratch);
    int cap = 10000;
    double *x = malloc((size_t)(inst->n > 0 ? inst->n : 1) * sizeof *x);
    double *times = malloc((size_t)cap * sizeof *times);
    xmeas m;
    memset(&m, 0, sizeof m);
    double told = tols[ti];
    if (x && times) {
      told = measure_ladder(c, e, inst, in, out_file, tols[ti], x, times, cap, &m);
    } else {
      m.status = "error";
      snprintf(m.note, sizeof m.note, "out of memory");
    }
    int numbers = m.runs > 0 && strcmp(m.status, "time_limit") != 0;
    exp_prow pr = { m.status,
                    tols[ti],
                    m.iterations,
                    0,
                    m.runs,
                    m.t,
                    m.source,
                    e->name,
                    m.res.res_rel,
                    m.res.res_nat_inf,
                    numbers,
                    m.note,
                    m.wall,
                    m.no_solution,
                    m.no_solution ? NULL : &m.res,
                    NULL,
                    m.verdict,
                    (e->told & EXT_TOLD_TOL) ? told : 0.0 };
    exp_problem_row(c, &pr, &l);
    exp_tctx_row(c, &l);
    if (strcmp(m.status, "failed") == 0) mark_failed(c, e, tols[ti], m.note);
    c->nonconv |= strcmp(m.status, "converged") != 0;
    free(x);
    free(times);
    unlink(out_file);
    if (strncmp(in, c->scratch, strlen(c->scratch)) == 0 && ti == nt - 1) unlink(in);
  }
  return 0;
}
