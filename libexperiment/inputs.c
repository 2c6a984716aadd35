/* inputs.c -- the files a command reads, and the one check that none of
 * its outputs is one of them (docs/usage.md, "Outputs": an output that is
 * one of the inputs is refused, also with --force).
 *
 * The inputs are the files named on the command line (problem files with
 * the files read beside them: MatrixMarket's STEM.b, .lo, ...; the model
 * file) and the files a model file reads besides itself (its
 * <include>s and the meshes, textures and height fields it names:
 * mdl_model_files).  Each input is stat'ed once when added; an output is
 * compared by device and inode (links followed, as io_same_file), so a
 * symbolic link, a hard link, "./" or a folder reached through a link name
 * the file they name; an output that does not exist yet is no input.
 */
#define _GNU_SOURCE

#include "exp_internal.h"
#include "mdl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Room for one more input; 0, or -1 out of memory. */
static int grow(exp_inputs *in) {
  if (in->n < in->cap) return 0;
  int cap = in->cap ? 2 * in->cap : 16;
  char **p = realloc(in->path, (size_t)cap * sizeof *p);
  if (p) in->path = p;
  unsigned long long *d = p ? realloc(in->dev, (size_t)cap * sizeof *d) : NULL;
  if (d) in->dev = d;
  unsigned long long *i = d ? realloc(in->ino, (size_t)cap * sizeof *i) : NULL;
  if (i) in->ino = i;
  if (!i) return -1;
  in->cap = cap;
  return 0;
}

int exp_inputs_add(exp_inputs *in, const char *path) {
  struct stat st;
  /* a file that is not there is no input an output could replace */
  if (!path || !path[0] || strcmp(path, "-") == 0 || stat(path, &st) != 0) return 0;
  if (grow(in) != 0 || !(in->path[in->n] = strdup(path))) return -1;
  in->dev[in->n] = (unsigned long long)st.st_dev;
  in->ino[in->n] = (unsigned long long)st.st_ino;
  in->n++;
  return 0;
}

int exp_inputs_add_problem(exp_inputs *in, const char *path) {
  if (!path || exp_inputs_add(in, path) != 0) return path ? -1 : 0;
  size_t n = strlen(path);
  if (n < 4 || strcmp(path + n - 4, ".mtx") != 0) return 0;
  char side[EXP_PATH_MAX];
  for (int k = 0; io_write_sidecar(path, IO_FMT_MTX, k, side, sizeof side) == 1; k++)
    if (exp_inputs_add(in, side) != 0) return -1;
  return 0;
}

int exp_inputs_add_model(exp_inputs *in, const char *model) {
  char **files = NULL, msg[256];
  int n = 0;
  if (!model || !model[0]) return 0;
  if (exp_inputs_add(in, model) != 0) return -1;
  /* a model that cannot be read is named by its reader, not here */
  if (mdl_model_files(model, &files, &n, msg, sizeof msg) == MDL_ERR_NOMEM) return -1;
  int bad = 0;
  for (int k = 0; k < n && !bad; k++) bad = exp_inputs_add(in, files[k]);
  mdl_model_files_free(files, n);
  return bad ? -1 : 0;
}

int exp_plan_inputs(const exp_plan *pl, exp_inputs *in) {
  int bad = exp_inputs_add(in, pl->cfg.path);
  for (int k = 0; k < pl->nprobs && !bad; k++) bad = exp_inputs_add_problem(in, pl->probs[k].path);
  for (int k = 0; k < pl->cfg.nsec && !bad; k++)
    for (int j = 0; j < pl->cfg.sec[k].nsrc && !bad; j++)
      bad = exp_inputs_add_model(in, pl->cfg.sec[k].src[j].model);
  return bad ? -1 : 0;
}

const char *exp_inputs_match(const exp_inputs *in, const char *out) {
  struct stat st;
  if (!out || strcmp(out, "-") == 0 || stat(out, &st) != 0) return NULL; /* no file yet */
  for (int k = 0; k < in->n; k++)
    if (in->dev[k] == (unsigned long long)st.st_dev && in->ino[k] == (unsigned long long)st.st_ino)
      return in->path[k];
  return NULL;
}

int exp_output_is_input(const exp_log *log, const char *cmd, const char *what, const char *out,
                        const exp_inputs *in) {
  const char *hit = exp_inputs_match(in, out);
  if (!hit) return 0;
  exp_say(log, EXP_SAY_ERROR,
          "%s: %s%s%s: the output is the input %s (one file under two names): refused, also "
          "with --force",
          cmd, what ? what : "", what ? " " : "", out, hit);
  return 1;
}

void exp_inputs_free(exp_inputs *in) {
  for (int k = 0; k < in->n; k++) free(in->path[k]);
  free(in->path);
  free(in->dev);
  free(in->ino);
  memset(in, 0, sizeof *in);
}
