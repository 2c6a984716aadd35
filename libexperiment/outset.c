/* outset.c -- the outputs of one `lcplab collect` as a set (docs/io.md,
 * "Replacing files"): each file is written under a temporary name
 * (exp_outset_open; io_outfile) and finished when its writer is done
 * (exp_outset_done); exp_outset_publish renames them all into place once
 * every one is complete, or drops them all if any failed, so the old
 * outputs stay together.  collect.c writes the section CSVs into a set,
 * tables.c the tables.
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FILE *exp_outset_open(exp_outset *set, const char *path) {
  char err[EXP_PATH_MAX + 256] = "";
  if (set->n == set->cap) {
    int cap = set->cap ? 2 * set->cap : 16;
    io_outfile **o = realloc(set->o, (size_t)cap * sizeof *o);
    if (o) set->o = o;
    char **p = o ? realloc(set->path, (size_t)cap * sizeof *p) : NULL;
    if (p) set->path = p;
    if (!o || !p) {
      set->failed = 1;
      exp_say(set->log, EXP_SAY_ERROR, "collect: out of memory");
      return NULL;
    }
    set->cap = cap;
  }
  io_outfile *o = io_outfile_open(path, err, sizeof err);
  char *copy = o ? strdup(path) : NULL;
  if (!copy) {
    io_outfile_discard(o);
    set->failed = 1;
    exp_say(set->log, EXP_SAY_ERROR, "%s", o ? "collect: out of memory" : err);
    return NULL;
  }
  set->o[set->n] = o;
  set->path[set->n++] = copy;
  return io_outfile_stream(o);
}

int exp_outset_done(exp_outset *set, int rc) {
  char err[EXP_PATH_MAX + 256] = "";
  for (; set->done < set->n; set->done++)
    if (io_outfile_finish(set->o[set->done], err, sizeof err) != SLV_OK && !set->failed) {
      exp_say(set->log, EXP_SAY_ERROR, "%s", err);
      set->failed = 1;
    }
  if (rc != 0) set->failed = 1;
  return set->failed ? -1 : 0;
}

int exp_outset_publish(exp_outset *set, int ok) {
  char err[EXP_PATH_MAX + 256] = "";
  int rc = exp_outset_done(set, ok ? 0 : -1);
  for (int k = 0; k < set->n; k++) {
    if (rc != 0) {
      io_outfile_discard(set->o[k]);
    } else if (io_outfile_publish(set->o[k], err, sizeof err) != SLV_OK) {
      exp_say(set->log, EXP_SAY_ERROR, "%s", err);
      rc = -1;
    } else if (set->list) {
      exp_say(set->log, EXP_SAY_OUTPUT, "%s", set->path[k]);
    }
    free(set->path[k]);
  }
  free(set->o);
  free(set->path);
  set->o = NULL;
  set->path = NULL;
  set->n = set->cap = set->done = 0;
  return rc;
}
