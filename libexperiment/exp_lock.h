/* exp_lock.h -- private to libexperiment: the lock of an output or plan
 * folder (lock.c; experiments/CAMPAIGNS.md, "One run per folder"), taken
 * by campaign.c around `lcplab experiment` and `lcplab collect`.
 */
#ifndef EXP_LOCK_H
#define EXP_LOCK_H

#include "exp_internal.h"

typedef struct exp_lock {
  char path[EXP_PATH_MAX + 32]; /* DIR/.lcplab-lock */
  char text[1024];              /* what this process wrote there */
  int held;
} exp_lock;

/* Takes dir's lock for the command what ("experiment", "collect"); a lock
 * whose holder is gone (lock.c) is taken over with a note.  0, or
 * EXP_EXIT_USAGE after the message naming the holder (pid, host, start
 * time) or the reason. */
int exp_lock_take(exp_lock *lk, const char *dir, const char *what, const exp_log *log);
/* Removes the lock if it is still this process's; nothing when not held. */
void exp_lock_release(exp_lock *lk);

#endif /* EXP_LOCK_H */
