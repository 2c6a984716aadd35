/* scratch.c -- a task attempt's own scratch folder, PLAN/scratch/tNNNNNN.XXXXXX
 * (mkdtemp: new for every attempt, so another attempt's leftovers are never
 * read), where external solvers get their instance, write their solution
 * and their stderr (external.c, scene_peer.c); removed with what the
 * solvers left in it when the task ends (exp_task_run).
 */
#define _GNU_SOURCE

#include "exp_task.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int exp_tctx_scratch(exp_tctx *c) {
  if (c->scratch[0]) return 0;
  char dir[EXP_PATH_MAX];
  if (exp_fmt(dir, sizeof dir, "%s/scratch", c->pl->dir) ||
      exp_fmt(c->scratch, sizeof c->scratch, "%s/t%06d.XXXXXX", dir, c->index)) {
    c->scratch[0] = '\0';
    errno = ENAMETOOLONG;
    return -1;
  }
  /* PLAN/scratch made beneath the plan folder, no link followed: a
   * scratch/ somebody made a link is refused (ELOOP, exp_beneath_why) */
  char bad[EXP_PATH_MAX + 16];
  if (exp_beneath_mkdir(c->pl->dir, "scratch", bad, sizeof bad) != 0 || !mkdtemp(c->scratch)) {
    c->scratch[0] = '\0';
    return -1;
  }
  return 0;
}

/* Removed from the plan folder's descriptor (exp_beneath_remove_tree): a
 * scratch/ swapped for a link while the task ran is not followed. */
void exp_tctx_scratch_remove(const exp_tctx *c) {
  if (!c->scratch[0]) return;
  const char *base = strrchr(c->scratch, '/');
  char name[EXP_PATH_MAX];
  int fd = open(c->pl->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || exp_fmt(name, sizeof name, "scratch/%s", base ? base + 1 : c->scratch)) {
    if (fd >= 0) close(fd);
    return;
  }
  exp_beneath_remove_tree(fd, name);
  close(fd);
}
