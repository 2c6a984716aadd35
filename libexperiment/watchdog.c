/* watchdog.c -- the watchdog of a task: a thread of the task's process
 * that writes the task's result itself when a solve does not come back in
 * time (experiments/README.md, "Timing"; the time limit of a task).
 *
 * The task appends its rows here (exp_tctx_row, under the watchdog's lock)
 * and arms the watchdog around each solve with the rows its result gets if
 * the limit passes first (exp_wd_arm).  When it fires, the watchdog kills
 * an external solver's process group (exp_wd_set_child), writes the result
 * -- the rows so far and those -- atomically (exp_result_commit) and ends
 * the process (_exit): a built-in solver in the middle of a solve cannot be
 * stopped any other way.  A task that ends normally commits the same way
 * (exp_wd_commit), the watchdog disarmed first, so the two never both write.
 * The deadline is CLOCK_MONOTONIC seconds (exp_now_s).
 */
#define _GNU_SOURCE

#include "exp_task.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct exp_wd {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t th;
  int running, stop;
  int parked;       /* 1 once the thread waits on cv (exp_wd_start waits for it) */
  double deadline;  /* CLOCK_MONOTONIC s; 0: disarmed */
  const char *path; /* the result file */
  exp_result *head;
  exp_rbuf rows; /* committed rows */
  char *extra;   /* rows if it fires */
  int nextra;
  pid_t child; /* an external solver's process group */
  double t0;
};

/* The result as it stands, with `extra` rows after the committed ones:
 * head's load at the end and the task's elapsed time set first.  Called
 * with the lock held.  0, or nonzero on a write error (errno). */
static int commit_locked(exp_wd *wd, int nextra, const char *extra) {
  wd->head->prov.load_end = exp_loadavg();
  wd->head->elapsed = exp_now_s() - wd->t0;
  return exp_result_commit(wd->path, wd->head, &wd->rows, nextra, extra);
}

static void *wd_main(void *arg) {
  exp_wd *wd = arg;
  pthread_mutex_lock(&wd->mu);
  wd->parked = 1; /* exp_wd_start goes on once this thread waits below */
  pthread_cond_broadcast(&wd->cv);
  while (!wd->stop) {
    if (wd->deadline <= 0) {
      pthread_cond_wait(&wd->cv, &wd->mu);
      continue;
    }
    struct timespec ts;
    ts.tv_sec = (time_t)wd->deadline;
    ts.tv_nsec = (long)((wd->deadline - (double)ts.tv_sec) * 1e9);
    int r = pthread_cond_timedwait(&wd->cv, &wd->mu, &ts);
    if (r != ETIMEDOUT || wd->stop || wd->deadline <= 0 || exp_now_s() < wd->deadline) continue;
    /* the limit passed while the task's own thread is still solving */
    if (wd->child > 0) kill(-wd->child, SIGKILL);
    int bad = commit_locked(wd, wd->nextra, wd->extra);
    _exit(bad ? 3 : 0);
  }
  pthread_mutex_unlock(&wd->mu);
  return NULL;
}

/* Returns once the watchdog's thread waits on its condition variable, its
 * start done.  A task forks (the model probe, libmodels/mujoco_probe.c;
 * external solvers) right after exp_wd_start: a fork while the new thread
 * was still starting, inside an allocator's lock (AddressSanitizer's has no
 * fork handler in gcc 12), left the child blocked on that lock for good,
 * and the task waiting for the child (test_energy_step.sh under the
 * sanitizers, experiments/records/2026-11-28-test-time-4.md). */
static void wait_until_parked(exp_wd *wd) {
  pthread_mutex_lock(&wd->mu);
  while (!wd->parked) pthread_cond_wait(&wd->cv, &wd->mu);
  pthread_mutex_unlock(&wd->mu);
}

exp_wd *exp_wd_start(const char *path, exp_result *head) {
  exp_wd *wd = calloc(1, sizeof *wd);
  if (!wd) {
    errno = ENOMEM;
    return NULL;
  }
  wd->path = path;
  wd->head = head;
  wd->t0 = exp_now_s();
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&wd->mu, NULL);
  pthread_cond_init(&wd->cv, &ca);
  pthread_condattr_destroy(&ca);
  int e = pthread_create(&wd->th, NULL, wd_main, wd);
  if (e != 0) {
    exp_wd_stop(wd);
    errno = e;
    return NULL;
  }
  wd->running = 1;
  wait_until_parked(wd);
  return wd;
}

int exp_wd_commit(exp_wd *wd) {
  pthread_mutex_lock(&wd->mu);
  wd->deadline = 0;
  int bad = commit_locked(wd, 0, NULL);
  pthread_mutex_unlock(&wd->mu);
  return bad;
}

void exp_wd_stop(exp_wd *wd) {
  if (!wd) return;
  if (wd->running) {
    pthread_mutex_lock(&wd->mu);
    wd->stop = 1;
    pthread_cond_signal(&wd->cv);
    pthread_mutex_unlock(&wd->mu);
    pthread_join(wd->th, NULL);
  }
  pthread_mutex_destroy(&wd->mu);
  pthread_cond_destroy(&wd->cv);
  free(wd->extra);
  exp_rbuf_free(&wd->rows);
  free(wd);
}

void exp_wd_arm(exp_wd *wd, double seconds, const char *extra, int nextra) {
  char *copy = strdup(extra ? extra : "");
  pthread_mutex_lock(&wd->mu);
  free(wd->extra);
  wd->extra = copy;
  wd->nextra = copy ? nextra : 0;
  wd->deadline = exp_now_s() + seconds;
  pthread_cond_signal(&wd->cv);
  pthread_mutex_unlock(&wd->mu);
}

void exp_wd_disarm(exp_wd *wd) {
  pthread_mutex_lock(&wd->mu);
  wd->deadline = 0;
  pthread_mutex_unlock(&wd->mu);
}

void exp_wd_set_child(exp_wd *wd, pid_t pgid) {
  pthread_mutex_lock(&wd->mu);
  wd->child = pgid;
  pthread_mutex_unlock(&wd->mu);
}

void exp_tctx_row(exp_tctx *c, const exp_line *l) {
  pthread_mutex_lock(&c->wd->mu);
  if (exp_rbuf_add(&c->wd->rows, "%s\n", l->s) == 0) c->wd->rows.nrows++;
  pthread_mutex_unlock(&c->wd->mu);
}
