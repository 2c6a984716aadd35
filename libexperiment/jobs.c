/* jobs.c -- the tasks of a plan on N local worker processes
 * (`lcplab experiment --jobs N`; experiments/CAMPAIGNS.md, "Campaigns").
 *
 * The parent forks N workers.  Each reads task numbers from a pipe, runs
 * each (exp_task_run: the task writes its own result file atomically) and
 * answers "done I RC NONCONV" on a second pipe; it keeps the last problem
 * it loaded, and the parent gives a worker the next task on the problem it
 * has loaded when there is one (tasks are numbered problem by problem).
 * A worker that ends without answering -- the watchdog ended it after
 * writing a time_limit result, or it crashed, was killed or ran out of
 * memory -- is replaced; if the task has no result of its own then, the
 * parent writes one with task_status crashed, the signal and rows that say
 * crashed, so a dead worker is a row, not a hole, and the task runs again
 * on the next run (only completed verdicts are kept: exp_task_done).
 *
 * Timing protocol (experiments/README.md, "Timing"): with several workers
 * worker k is pinned to the k-th CPU the parent may run on
 * (sched_setaffinity), and there are at most as many workers as such CPUs,
 * so no two timed tasks ever share a CPU and a task's timed repeats never
 * migrate; one worker runs the tasks one at a time, unpinned (pinning every
 * --jobs 1 run to the first CPU would pile concurrent runs onto it).  Only
 * one timed task (task_timed) runs at a time: the other workers take
 * untimed tasks meanwhile, or wait; a profile section's replicate passes
 * are interleaved with its first pass (pick_replicate).  What pinning and
 * that rule cannot remove (other processes, hyperthread
 * siblings, shared caches) shows in the between-run noise each section
 * measures (NAME_timing.csv).  The worker's CPU is in its results' prov
 * placement ("cpu K"; "serial" for a lone worker).
 *
 * Tasks that already have an intact result of this plan are skipped
 * (resume); a corrupted or stale one is run again.
 *
 * Stopping: the caller's stop callback (exp_jobs_opts), polled between
 * the workers' answers (at least every 200 ms), decides; the library
 * installs no signal handler.  EXP_STOP_FINISH (the program says it on the
 * first SIGINT) stops handing out tasks and waits for the running ones
 * (each writes its result); EXP_STOP_NOW (a second SIGINT, or SIGTERM)
 * kills the workers at once (their tasks are left without a result and
 * run again next time).  Workers ignore SIGINT (the terminal sends it to
 * the whole process group): the parent decides.
 *
 * Progress on stderr: one line rewritten in place on a terminal (done /
 * total, not converged, errors, elapsed, ETA), plain lines otherwise (every
 * 5 % of the tasks, or every minute with progress).
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "exp_task.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct worker {
  pid_t pid;
  int to, from; /* task numbers down, answers up */
  int task;     /* running, or -1 */
  int prob;     /* last problem handed to it */
  int closed;   /* no more tasks for it: `to` closed */
  char buf[256];
  size_t used;
} worker;

enum { T_PENDING = 0, T_RUNNING, T_DONE, T_SKIP };

typedef struct pool {
  const exp_plan *pl;
  worker *w;
  int nw;
  unsigned char *state;
  int first;     /* first task that may be pending */
  int first_rep; /* first task that may be a pending replicate-pass task */
  int rep_turn;  /* 1: the next timed task is a replicate pass's (pick_replicate) */
  const exp_jobs_opts *o;
  exp_jobs_report *rep;
  int tty;
  int stop; /* the strongest exp_stop the caller's stop callback said */
  double t0, last_line;
  int last_done;
} pool;

/* ---- the worker ------------------------------------------------------------------------ */

/* The slot-th CPU of the set (slot < CPU_COUNT), -1 if none. */
static int nth_cpu(const cpu_set_t *set, int slot) {
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, set) && slot-- == 0) return c;
  return -1;
}

/* Pins the calling process to the slot-th CPU it may run on (header). */
static void pin_worker(int slot) {
  cpu_set_t set, one;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  int c = nth_cpu(&set, slot);
  if (c < 0) return;
  CPU_ZERO(&one);
  CPU_SET(c, &one);
  sched_setaffinity(0, sizeof one, &one);
}

/* The CPUs this process may run on (1 when unknown). */
static int allowed_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

/* The worker: pinned when there are several (header), alone it runs the
 * tasks one after the other and says so in its results' placement. */
static void worker_main(const exp_plan *pl, int in, int out, int slot, int nw) {
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_DFL);
  exp_limit_memory(pl->memory_mb);
  exp_cache cache;
  memset(&cache, 0, sizeof cache);
  cache.prob = -1;
  if (nw > 1) pin_worker(slot);
  exp_prov_gather(&cache.prov);
  cache.have_prov = 1;
  if (nw == 1) snprintf(cache.prov.placement, sizeof cache.prov.placement, "serial");
  FILE *f = fdopen(in, "r");
  char line[64];
  while (f && fgets(line, sizeof line, f)) {
    int i = atoi(line), nonconv = 0;
    int rc = exp_task_run(pl, i, &cache, &nonconv);
    char ans[64];
    int n = snprintf(ans, sizeof ans, "done %d %d %d\n", i, rc, nonconv);
    if (write(out, ans, (size_t)n) != n) break;
  }
  _exit(0);
}

static int spawn(pool *p, worker *w) {
  int down[2], up[2];
  if (pipe(down) != 0) return -1;
  if (pipe(up) != 0) {
    close(down[0]);
    close(down[1]);
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  const exp_fork_hooks *hk = p->o->fork;
  if (hk && hk->before) hk->before(hk->ctx);
  pid_t pid = fork();
  if (hk && pid != 0 && hk->parent) hk->parent(hk->ctx);
  if (hk && pid == 0 && hk->child) hk->child(hk->ctx);
  if (pid < 0) {
    close(down[0]), close(down[1]), close(up[0]), close(up[1]);
    return -1;
  }
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    /* not inherited by what a task runs (an external solver): a worker that
     * dies must close its pipe, whatever its children go on doing */
    fcntl(down[0], F_SETFD, FD_CLOEXEC);
    fcntl(up[1], F_SETFD, FD_CLOEXEC);
    for (int k = 0; k < p->nw; k++)
      if (p->w[k].pid > 0) {
        if (!p->w[k].closed) close(p->w[k].to);
        close(p->w[k].from);
      }
    worker_main(p->pl, down[0], up[1], (int)(w - p->w), p->nw);
  }
  close(down[0]);
  close(up[1]);
  fcntl(down[1], F_SETFD, FD_CLOEXEC);
  fcntl(up[0], F_SETFD, FD_CLOEXEC);
  w->pid = pid;
  w->to = down[1];
  w->from = up[0];
  w->task = -1;
  w->used = 0;
  w->closed = 0;
  return 0;
}

/* ---- bookkeeping ----------------------------------------------------------------------- */

/* The result of a task whose worker died without writing one: task_status
 * crashed (not a verdict: the task runs again on the next run,
 * exp_task_done), its rows there with status crashed and why, so the CSV
 * and the failure table show it (issue 63's rule for a dead worker). */
static void write_crash(const pool *p, int i, const char *msg) {
  char path[EXP_PATH_MAX + 64];
  exp_result_path(p->pl, i, path, sizeof path);
  exp_result *h = calloc(1, sizeof *h);
  exp_rbuf rows = { 0 };
  if (h && exp_task_bare_rows(p->pl, i, "crashed", msg, &rows) == 0) {
    exp_result_identify(p->pl, i, h);
    snprintf(h->task_status, sizeof h->task_status, "crashed");
    snprintf(h->message, sizeof h->message, "%s", msg);
    exp_prov_gather(&h->prov);
    exp_prov_memory_limit(&h->prov, p->pl->memory_mb); /* the worker's, not this process's */
    exp_result_commit(path, h, &rows, 0, NULL);
  }
  exp_rbuf_free(&rows);
  free(h);
}

static void progress(pool *p, int final) {
  exp_jobs_report *r = p->rep;
  double now = exp_now_s(), el = now - p->t0;
  int todo = r->total - r->skipped, done = r->done;
  double eta = done > 0 ? el / done * (todo - done) : NAN;
  char etas[32] = "--";
  if (eta == eta) snprintf(etas, sizeof etas, "%d:%02d", (int)(eta / 60), (int)eta % 60);
  const exp_log *log = &p->pl->cfg.log;
  if (p->tty) {
    exp_say(log, final ? EXP_SAY_INFO : EXP_SAY_PROGRESS,
            "tasks %d/%d (%d resumed)  not converged %d  errors %d  %d:%02d  ETA %s",
            done + r->skipped, r->total, r->skipped, r->nonconv, r->errors, (int)(el / 60),
            (int)el % 60, etas);
    return;
  }
  int step = todo / 20 > 0 ? todo / 20 : 1;
  if (final || done - p->last_done >= step || (done > p->last_done && now - p->last_line > 60)) {
    exp_say(log, EXP_SAY_INFO,
            "tasks %d/%d done (%d resumed), %d not converged, %d errors, %.0f s, ETA %s",
            done + r->skipped, r->total, r->skipped, r->nonconv, r->errors, el, etas);
    p->last_done = done;
    p->last_line = now;
  }
}

/* A task whose times are compared (experiments/README.md, "Timing"): a
 * profile, scaling, convergence, scenes or gradients section's (a
 * gradients row's VJP time against the solve's).  Drift and accuracy tasks
 * are untimed: they may run beside a timed one. */
static int task_timed(const exp_plan *pl, int i) {
  exp_kind k = pl->cfg.sec[pl->tasks[i].section].kind;
  return k == EXP_PROFILE || k == EXP_SCALING || k == EXP_CONVERGENCE || k == EXP_SCENES ||
         k == EXP_GRADIENTS || k == EXP_FIDELITY;
}

/* 1 when some worker runs a timed task now: no other timed task may start
 * beside it (the header's timing protocol). */
static int timed_running(const pool *p) {
  for (int k = 0; k < p->nw; k++)
    if (p->w[k].pid > 0 && p->w[k].task >= 0 && task_timed(p->pl, p->w[k].task)) return 1;
  return 0;
}

/* The interleaving of a profile section's passes: after a timed task of the
 * first pass, the next pending task of a replicate pass (they follow every
 * section's own tasks in the plan), so the passes alternate in time and a
 * change of the machine's load reaches both alike; -1 when it is the first
 * pass's turn or no replicate task is pending. */
static int pick_replicate(pool *p) {
  if (!p->rep_turn) return -1;
  const exp_plan *pl = p->pl;
  while (p->first_rep < pl->ntasks &&
         (p->state[p->first_rep] != T_PENDING || pl->tasks[p->first_rep].rep == 0))
    p->first_rep++;
  if (p->first_rep < pl->ntasks) return p->first_rep;
  p->rep_turn = 0;
  return -1;
}

/* The next task for worker w: the replicate pass's when it is its turn;
 * else on its problem if one is pending, else on a problem no other worker
 * has, else any; a timed task only when no timed task runs; -1 if none. */
static int pick(pool *p, const worker *w) {
  const exp_plan *pl = p->pl;
  while (p->first < pl->ntasks && p->state[p->first] != T_PENDING) p->first++;
  int block = p->nw > 1 && timed_running(p);
  int r = block ? -1 : pick_replicate(p);
  if (r >= 0) return r;
  int any = -1, fresh = -1;
  for (int i = p->first; i < pl->ntasks; i++) {
    if (p->state[i] != T_PENDING || (block && task_timed(pl, i))) continue;
    if (p->rep_turn == 0 && pl->tasks[i].rep > 0 && p->first_rep < pl->ntasks) continue;
    int pr = pl->tasks[i].prob;
    if (pr >= 0 && pr == w->prob) return i;
    if (any < 0) any = i;
    if (fresh < 0) {
      int busy = 0;
      for (int k = 0; k < p->nw; k++) busy |= p->w[k].pid > 0 && p->w[k].prob == pr && pr >= 0;
      if (!busy) fresh = i;
    }
    if (!block && any >= 0 && fresh >= 0 && i > p->first + 4 * p->nw * 64) break;
  }
  if (fresh < 0 && any < 0 && !block) { /* the first pass is done: the replicates' turn */
    p->rep_turn = 1;
    return pick_replicate(p);
  }
  return fresh >= 0 ? fresh : any;
}

/* 1 when some task is pending (a worker with none to take now waits for a
 * timed one to end rather than exit). */
static int any_pending(pool *p) {
  for (int i = p->first; i < p->pl->ntasks; i++)
    if (p->state[i] == T_PENDING) return 1;
  return 0;
}

/* Hands worker w its next task: 1, 2 when it must wait (only timed tasks are
 * pending and one runs), 0 when none is left, -1 on a write error. */
static int dispatch(pool *p, worker *w) {
  int i = pick(p, w);
  if (i < 0) return any_pending(p) ? 2 : 0;
  char line[32];
  int n = snprintf(line, sizeof line, "%d\n", i);
  if (write(w->to, line, (size_t)n) != n) return -1;
  p->state[i] = T_RUNNING;
  w->task = i;
  w->prob = p->pl->tasks[i].prob;
  if (task_timed(p->pl, i)) p->rep_turn = p->pl->tasks[i].rep == 0;
  return 1;
}

/* Why a worker ended (its wait status), for a crashed result. */
static void death_of(int status, char *msg, size_t len) {
  if (WIFSIGNALED(status))
    snprintf(msg, len, "the worker died of signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else
    snprintf(msg, len, "the worker exited with status %d without a result",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void finish_task(pool *p, int i, int rc, int nonconv) {
  p->state[i] = T_DONE;
  p->rep->done++;
  p->rep->nonconv += nonconv != 0;
  p->rep->errors += rc != 0;
  progress(p, 0);
}

/* Reads a worker's answers; returns -1 at EOF (the worker ended). */
static int read_answers(pool *p, worker *w) {
  ssize_t n = read(w->from, w->buf + w->used, sizeof w->buf - 1 - w->used);
  if (n < 0 && errno == EINTR) return 0;
  if (n <= 0) return -1;
  w->used += (size_t)n;
  w->buf[w->used] = '\0';
  char *nl;
  while ((nl = strchr(w->buf, '\n'))) {
    int i, rc, nonconv;
    if (sscanf(w->buf, "done %d %d %d", &i, &rc, &nonconv) == 3 && i == w->task) {
      char path[EXP_PATH_MAX + 64];
      exp_result_path(p->pl, i, path, sizeof path);
      if (rc < 0 && !exp_path_exists(path)) /* its result could not be written */
        write_crash(p, i, "the task could not write its result (out of memory, or a write error)");
      finish_task(p, i, rc, nonconv);
      w->task = -1;
    }
    size_t rest = w->used - (size_t)(nl + 1 - w->buf);
    memmove(w->buf, nl + 1, rest);
    w->used = rest;
    w->buf[rest] = '\0';
  }
  return 0;
}

/* A worker ended with status (waitpid's, reaped): account for its task. */
static void reaped(pool *p, worker *w, int status) {
  if (!w->closed) close(w->to);
  close(w->from);
  w->pid = 0;
  if (w->task >= 0) {
    int i = w->task;
    if (!exp_task_done(p->pl, i) && p->stop != EXP_STOP_NOW) {
      char msg[160];
      death_of(status, msg, sizeof msg);
      write_crash(p, i, msg);
      finish_task(p, i, 3, 1);
    } else if (exp_task_done(p->pl, i)) {
      finish_task(p, i, 0, 1); /* the watchdog wrote a time_limit result */
    } else {
      p->state[i] = T_PENDING; /* killed by us: not done */
    }
    w->task = -1;
  }
}

/* A worker whose pipe ended: reap it. */
static void reap(pool *p, worker *w) {
  int status = 0;
  while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {}
  reaped(p, w, status);
}

/* Workers that exited while their pipe stays open (a child of theirs
 * holds it): their answers read, then reaped. */
static void reap_exited(pool *p) {
  for (int k = 0; k < p->nw; k++) {
    worker *w = &p->w[k];
    int status = 0;
    if (w->pid <= 0 || waitpid(w->pid, &status, WNOHANG) != w->pid) continue;
    for (;;) {
      struct pollfd q = { w->from, POLLIN, 0 };
      if (poll(&q, 1, 0) <= 0 || !(q.revents & (POLLIN | POLLHUP)) || read_answers(p, w) < 0) break;
    }
    reaped(p, w, status);
  }
}

static void kill_all(pool *p) {
  for (int k = 0; k < p->nw; k++)
    if (p->w[k].pid > 0) kill(p->w[k].pid, SIGKILL);
}

static int loop(pool *p) {
  struct pollfd *pf = calloc((size_t)p->nw, sizeof *pf);
  if (!pf) return -1;
  int stopping = 0, killed = 0, rc = 0;
  for (;;) {
    int sig = 0, stop = p->o->stop ? p->o->stop(p->o->stop_ctx, &sig) : EXP_STOP_NONE;
    if (stop > p->stop) {
      p->stop = stop;
      p->rep->stopped_sig = sig;
    }
    if (p->stop == EXP_STOP_NOW) {
      if (!killed) kill_all(p);
      killed = stopping = 1;
    } else if (p->stop == EXP_STOP_FINISH && !stopping) {
      stopping = 1;
      exp_say(&p->pl->cfg.log, EXP_SAY_INFO,
              "interrupted: finishing the running tasks (Ctrl-C again to stop them now)");
    }
    int alive = 0;
    for (int k = 0; k < p->nw; k++) {
      worker *w = &p->w[k];
      if (w->pid <= 0 && !stopping && p->rep->done + p->rep->skipped < p->rep->total) {
        int more = 0;
        for (int i = p->first; i < p->pl->ntasks && !more; i++) more = p->state[i] == T_PENDING;
        if (more && spawn(p, w) != 0) {
          exp_say(&p->pl->cfg.log, EXP_SAY_ERROR, "experiment: cannot start a worker: %s",
                  strerror(errno));
          rc = -1;
          stopping = 1;
        }
      }
      if (w->pid > 0 && w->task < 0 && !w->closed) {
        int d = stopping ? 0 : dispatch(p, w);
        if (d <= 0) {
          close(w->to); /* nothing more for it: it exits */
          w->closed = 1;
        }
      }
      pf[k].fd = w->pid > 0 ? w->from : -1;
      pf[k].events = POLLIN;
      alive += w->pid > 0;
    }
    if (!alive) break;
    int r = poll(pf, (nfds_t)p->nw, 200);
    if (r < 0 && errno != EINTR) {
      rc = -1;
      break;
    }
    for (int k = 0; r > 0 && k < p->nw; k++)
      if (p->w[k].pid > 0 && (pf[k].revents & (POLLIN | POLLHUP | POLLERR)) &&
          read_answers(p, &p->w[k]) < 0)
        reap(p, &p->w[k]);
    reap_exited(p);
    if (p->tty) progress(p, 0);
  }
  free(pf);
  return rc;
}

int exp_jobs_run(const exp_plan *pl, const exp_jobs_opts *o, exp_jobs_report *rep) {
  memset(rep, 0, sizeof *rep);
  rep->total = pl->ntasks;
  pool p;
  memset(&p, 0, sizeof p);
  p.pl = pl;
  p.o = o;
  p.rep = rep;
  p.tty = o->tty;
  p.t0 = p.last_line = exp_now_s();
  p.state = calloc((size_t)(pl->ntasks > 0 ? pl->ntasks : 1), 1);
  p.nw = o->jobs > 0 ? o->jobs : 1;
  int ncpu = allowed_cpus();
  if (p.nw > ncpu) {
    exp_say(&pl->cfg.log, EXP_SAY_INFO,
            "experiment: %d workers, not %d: one per CPU, each pinned to its own (timed tasks "
            "never share a CPU; experiments/README.md, \"Timing\")",
            ncpu, p.nw);
    p.nw = ncpu;
  }
  p.w = calloc((size_t)p.nw, sizeof *p.w);
  if (!p.state || !p.w) {
    free(p.state);
    free(p.w);
    exp_say(&pl->cfg.log, EXP_SAY_ERROR, "experiment: out of memory");
    return -1;
  }
  for (int i = 0; i < pl->ntasks; i++)
    if (exp_task_done(pl, i)) {
      p.state[i] = T_SKIP;
      rep->skipped++;
    }
  for (int k = 0; k < p.nw; k++) {
    p.w[k].task = -1;
    p.w[k].prob = -2;
  }
  int rc = rep->skipped == rep->total ? 0 : loop(&p);
  if (rep->skipped < rep->total) progress(&p, 1);
  rep->stopped_by = p.stop;
  rep->left = rep->total - rep->skipped - rep->done;
  rep->elapsed = exp_now_s() - p.t0;
  free(p.state);
  free(p.w);
  if (rc < 0) return -1;
  return rep->stopped_by ? 1 : 0;
}
