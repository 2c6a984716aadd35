/*
 * mujoco_probe.c -- a model file is first compiled in a child process, so
 * that a crash of libmujoco on it is the file's error, not the end of the
 * program (mdl_internal.h, "the probe"; docs/models.md, "A crash inside
 * libmujoco").
 *
 * libmujoco 2.2.2 crashes on some files its compiler should refuse: a URDF
 * joint of a type it does not know (pybullet's "spherical") builds no joint,
 * and the reader then writes through the null joint (mj_loadXML: SIGSEGV;
 * MuJoCo's own compile sample crashes the same way, and MuJoCo 3 fixed it).
 * No guard can catch that, and no check of lcplab's can know every such
 * file.  So before the file is compiled in the caller's process, a child
 * (fork) compiles it and makes its data and kinematics, the calls the
 * reader makes, and says by one byte on a pipe that it got through; a
 * child that ends without the byte crashed (a signal, or a sanitizer's
 * exit), and the caller gets MDL_ERR_MUJOCO naming the file and the signal.
 * A file the child got through is then read as before, in the caller.
 *
 * The child runs inside the caller's guard (its copy): MuJoCo's errors jump
 * to the child's own setjmp and are reported by their byte; it calls
 * nothing but libmujoco, write and _exit (no stdio, no atexit handlers),
 * restores the default action of the crash signals (a host's handler, such
 * as Python's faulthandler, would run in the child), dumps no core and
 * writes its standard output and error to /dev/null.
 * Forking in a threaded host: a child starts with one thread and every lock
 * as it was at the fork; glibc's malloc is made consistent by fork itself,
 * and mj_loadXML's own lock (its global model) is never held at a fork of
 * this file, because libmodels compiles files only under load_lock, which
 * the fork takes too (mdl_load_xml).  What the child allocated dies with
 * it.  The pipe is close-on-exec, so that a program another thread starts
 * meanwhile does not hold its end open.
 */
#define _GNU_SOURCE /* pipe2, O_CLOEXEC */

#include "mdl_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* libmodels' compilations and forks, one at a time (see above) */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

enum { PROBE_LOADED = 'L', PROBE_REFUSED = 'R', PROBE_MUJOCO_ERROR = 'E' };

mjModel *mdl_load_xml(const mdl_mujoco *mj, const char *path, char *err, int errsz) {
  pthread_mutex_lock(&load_lock);
  mjModel *m = mj->loadXML(path, NULL, err, errsz);
  pthread_mutex_unlock(&load_lock);
  return m;
}

/* The child's signals: the default action of every crash signal, none
 * blocked, no core file; its output to /dev/null (a sanitizer's report
 * of the crash is the child's: the caller reports it). */
static void child_setup(void) {
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
  }
  static const int crash[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
  sigset_t set;
  sigemptyset(&set);
  for (size_t k = 0; k < sizeof crash / sizeof crash[0]; k++) {
    signal(crash[k], SIG_DFL);
    sigaddset(&set, crash[k]);
  }
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  struct rlimit none = { 0, 0 };
  setrlimit(RLIMIT_CORE, &none);
}

/* The child: compile path, make its data, run the kinematics, say how it
 * went on fd, end. */
static void child_compile(mdl_guard *g, const char *path, size_t max_bytes, int fd) {
  child_setup();
  volatile char said = PROBE_MUJOCO_ERROR;
  if (setjmp(g->jb) == 0) {
    char err[1000] = "";
    mjModel *m = g->mj->loadXML(path, NULL, err, sizeof err);
    said = m ? PROBE_LOADED : PROBE_REFUSED;
    if (m && mdl_model_bytes(m) <= (double)max_bytes) { /* else refused by the caller */
      mjData *d = g->mj->makeData(m);
      g->mj->kinematics(m, d);
      g->mj->deleteData(d);
    }
    if (m) g->mj->deleteModel(m);
  }
  char c = said;
  ssize_t w;
  do {
    w = write(fd, &c, 1);
  } while (w < 0 && errno == EINTR);
  _exit(0);
}

/* The byte the child wrote on fd, or 0 when it ended without one. */
static char child_said(int fd) {
  char c = 0;
  ssize_t r;
  do {
    r = read(fd, &c, 1);
  } while (r < 0 && errno == EINTR);
  return r == 1 ? c : 0;
}

/* "signal 11, Segmentation fault" or "exit status 1" of the child pid
 * (reaped here), in buf. */
static void child_end(pid_t pid, char *buf, size_t cap) {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  if (r != pid)
    mdl_msg(buf, cap, "its status lost: %s", strerror(errno));
  else if (WIFSIGNALED(status))
    mdl_msg(buf, cap, "signal %d, %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    mdl_msg(buf, cap, "exit status %d", WEXITSTATUS(status));
}

mdl_err mdl_probe_load(mdl_guard *g, const char *path, size_t max_bytes, char *msg, size_t cap) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    mdl_msg(msg, cap, "%s: no pipe to the process that compiles it first: %s", path,
            strerror(errno));
    return MDL_ERR_MUJOCO;
  }
  pthread_mutex_lock(&load_lock);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]); /* the pipe's end above 2: the child's 1 and 2 go to /dev/null */
    child_compile(g, path, max_bytes, fds[1] > 2 ? fds[1] : fcntl(fds[1], F_DUPFD, 3));
  }
  int fork_errno = errno;
  pthread_mutex_unlock(&load_lock);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    mdl_msg(msg, cap, "%s: no process to compile it first: %s", path, strerror(fork_errno));
    return MDL_ERR_MUJOCO;
  }
  char said = child_said(fds[0]);
  close(fds[0]);
  char how[128];
  child_end(pid, how, sizeof how);
  if (said) return MDL_OK; /* loaded, or refused with a message the caller's load gives */
  mdl_msg(msg, cap,
          "libmujoco crashed reading %s (MuJoCo %s, %s; contained: a model file is compiled "
          "first in a child process)",
          path, g->mj->versionString(), how);
  return MDL_ERR_MUJOCO;
}
