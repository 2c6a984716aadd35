/*
 * mujoco_guard.c -- MuJoCo's errors and warnings turned into return values
 * (mdl_internal.h, "the guard"; docs/models.md, "MuJoCo's error handler").
 *
 * MuJoCo reports a fatal error through mju_error, which calls the
 * process-wide handler mju_user_error or, when none is set, writes
 * MUJOCO_LOG.TXT, prints, waits for Enter and exits; the handler is
 * documented never to return (mju_error goes on after it).  Warnings go to
 * mju_user_warning or are printed and logged the same way.  A library must
 * do neither, so every libmujoco call of libmodels runs inside a guard:
 *   - while at least one guard is entered (on any thread), MuJoCo's two
 *     handlers are this file's; the last guard to leave puts back the
 *     handlers that were there before;
 *   - the error handler longjmps to the innermost guard of the calling
 *     thread (a thread-local pointer), which returns MDL_ERR_MUJOCO with
 *     MuJoCo's text;
 *   - the warning handler appends the text to the guard's warnings.
 * An error or warning of a thread that is in no guard (another part of the
 * program calling MuJoCo meanwhile) goes to the handler that was installed
 * before, or, when there was none, is MuJoCo's default after all: the
 * handlers are put back for that call and mju_error called again.
 *
 * Why a jump and not the compiler in a child process: the compiled model
 * must come back to the caller (a child would have to send the mjModel
 * back through MuJoCo's binary format, whose loader has error paths of its
 * own), fork() is unsafe in a threaded host such as Python, and the paths
 * that can reach mju_error are C: mj_loadXML's compiler turns its own
 * errors into text with a thread-local handler of its own and returns NULL,
 * so what is left is mj_makeData's allocation, mj_kinematics and mj_step,
 * all of libmujoco's C engine, where a longjmp skips no C++ destructor.
 * What a jump leaves allocated inside MuJoCo (the partly made mjData) is
 * lost; it happens only when MuJoCo itself gives up.  A crash, which no
 * handler sees, is contained by a first compilation of the file in a child
 * process (mujoco_probe.c), which sends nothing back but whether it got
 * through.
 */
#define _POSIX_C_SOURCE 200809L

#include "mdl_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guards_entered;                /* under guard_lock */
static void (*saved_error)(const char *); /* the handlers before ours */
static void (*saved_warning)(const char *);
static _Thread_local mdl_guard *innermost;

static void append_line(char *buf, size_t cap, const char *text) {
  size_t used = strlen(buf);
  if (used + 1 >= cap) return;
  snprintf(buf + used, cap - used, "%s%s", used ? "\n" : "", text ? text : "");
}

static void on_mujoco_error(const char *text) {
  mdl_guard *g = innermost;
  if (g) {
    snprintf(g->error, sizeof g->error, "%s", text ? text : "");
    innermost = g->outer; /* the guard is left by its owner after the jump */
    longjmp(g->jb, 1);
  }
  pthread_mutex_lock(&guard_lock);
  void (*prev)(const char *) = saved_error;
  pthread_mutex_unlock(&guard_lock);
  if (prev) {
    prev(text);
    return;
  }
  /* a thread outside every guard, with no handler of its own: MuJoCo's
   * default (it does not return); the table is loaded, or no handler of
   * this file would have been installed */
  const mdl_mujoco *mj = mdl_mujoco_load(NULL, 0);
  *mj->user_error = NULL;
  mj->error(text);
}

static void on_mujoco_warning(const char *text) {
  mdl_guard *g = innermost;
  if (g) {
    append_line(g->warnings, sizeof g->warnings, text);
    return;
  }
  pthread_mutex_lock(&guard_lock);
  void (*prev)(const char *) = saved_warning;
  pthread_mutex_unlock(&guard_lock);
  if (prev) prev(text);
}

int mdl_guard_enter(mdl_guard *g) {
  g->error[0] = '\0';
  g->warnings[0] = '\0';
  g->outer = NULL;
  if (!(g->mj = mdl_mujoco_load(g->error, sizeof g->error))) return -1;
  const mdl_mujoco *mj = g->mj;
  pthread_mutex_lock(&guard_lock);
  if (guards_entered++ == 0) {
    saved_error = *mj->user_error;
    saved_warning = *mj->user_warning;
    *mj->user_error = on_mujoco_error;
    *mj->user_warning = on_mujoco_warning;
  }
  pthread_mutex_unlock(&guard_lock);
  g->outer = innermost;
  innermost = g;
  return 0;
}

void mdl_guard_leave(mdl_guard *g) {
  if (!g->mj) return; /* never entered: libmujoco did not load */
  if (innermost == g) innermost = g->outer;
  pthread_mutex_lock(&guard_lock);
  if (--guards_entered == 0) {
    *g->mj->user_error = saved_error;
    *g->mj->user_warning = saved_warning;
  }
  pthread_mutex_unlock(&guard_lock);
}

const char *mdl_mujoco_version(void) {
  const mdl_mujoco *mj = mdl_mujoco_load(NULL, 0);
  return mj ? mj->versionString() : "unavailable";
}
