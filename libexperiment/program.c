/* program.c -- the content of the programs an external solver runs, in its
 * tasks' keys and in the provenance (experiments/CAMPAIGNS.md, "External
 * solvers", "Results keyed by content").
 *
 * Two versions of a program are two solvers: a result computed with one is
 * never merged with results of the other.  When the plan is made, the files
 * an external's template names are hashed (SHA-256 of their bytes,
 * exp_program_hash, which takes any path: a C plugin is keyed the same way)
 * and recorded in the plan's programs.tsv; a task's key holds the hashes of
 * its external's files (task_done.c), a task refuses to run when one of
 * them changed since the plan was made, and the CSV preamble names them.
 *
 * The files, from the `external` line of the experiment file, its ${NAME}
 * values as the plan has them, words split at blanks with their quote
 * characters dropped and a trailing ; & | cut:
 *   - the command word: the first word that is not NAME=VALUE nor one of
 *     env, exec, command, nice, nohup, time; a word with a '/' is that file
 *     (relative to the folder lcplab runs in, as the shell sees it), a bare
 *     name is looked up in PATH as the shell would (a shell builtin such as
 *     ':' is no file: nothing is hashed for it);
 *   - every other word with a '/' that names a regular file (a script, the
 *     program's own data): `python3 /path/mysolver.py {in} {out}` hashes
 *     python3 and mysolver.py, `sh run.sh {in} {out}` only sh (run.sh has
 *     no '/': write ./run.sh to have it hashed);
 *   - requires=PATH.
 * Each file is taken through its links (realpath: the file run, once).  Not
 * hashed: the shared libraries a program loads, files a script opens by
 * itself, anything inside a nested sh -c '...' string.
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* at most so many files per external */
#define PROGRAM_FILES 8

int exp_program_hash(const char *path, char *real, size_t rlen, char sha[65], char *err,
                     size_t len) {
  char r[PATH_MAX];
  if (!realpath(path, r)) {
    exp_fmt(err, len, "%s: not found", path);
    return -1;
  }
  if (exp_sha256_file(r, sha, err, len) != 0) return -1;
  exp_fmt(real, rlen, "%s", r);
  return 0;
}

/* ---- the template's words ----------------------------------------------------------------- */

/* The value of ${name} (nl characters) as the plan has it: a value given
 * (exp_config_vars), else dflt (NULL: none); into out. */
static int var_value(const exp_config *cfg, const char *name, size_t nl, const char *dflt,
                     size_t dl, char *out, size_t len) {
  for (const char *l = exp_config_vars(cfg); *l;) {
    const char *e = strchr(l, '\n');
    size_t ll = e ? (size_t)(e - l) : strlen(l);
    if (ll > nl && strncmp(l, name, nl) == 0 && l[nl] == '=')
      return exp_fmt(out, len, "%.*s", (int)(ll - nl - 1), l + nl + 1) ? -1 : 0;
    l += ll + (e ? 1 : 0);
  }
  return dflt ? (exp_fmt(out, len, "%.*s", (int)dl, dflt) ? -1 : 0) : -1;
}

/* word with its ${NAME} expanded, its quote characters dropped and a
 * trailing ; & | cut, into out; 0, or -1 (too long, an undefined name). */
static int clean_word(const exp_config *cfg, const char *word, char *out, size_t len) {
  size_t o = 0;
  for (const char *c = word; *c;) {
    char val[EXP_PATH_MAX];
    const char *end = c[0] == '$' && c[1] == '{' ? strchr(c, '}') : NULL;
    if (end) {
      const char *name = c + 2, *colon = memchr(name, ':', (size_t)(end - name));
      size_t nl = colon && colon[1] == '-' ? (size_t)(colon - name) : (size_t)(end - name);
      const char *dflt = colon && colon[1] == '-' ? colon + 2 : NULL;
      if (var_value(cfg, name, nl, dflt, dflt ? (size_t)(end - dflt) : 0, val, sizeof val) != 0 ||
          o + strlen(val) >= len)
        return -1;
      memcpy(out + o, val, strlen(val));
      o += strlen(val);
      c = end + 1;
    } else {
      if (*c != '\'' && *c != '"') {
        if (o + 1 >= len) return -1;
        out[o++] = *c;
      }
      c++;
    }
  }
  while (o > 0 && strchr(";&|", out[o - 1])) o--;
  out[o] = '\0';
  return 0;
}

/* A word that only sets up the command after it. */
static int wrapper_word(const char *w) {
  static const char *const wrappers[] = { "env", "exec", "command", "nice", "nohup", "time", NULL };
  const char *eq = strchr(w, '=');
  if (eq && eq > w &&
      strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
          (size_t)(eq - w))
    return 1;
  for (int k = 0; wrappers[k]; k++)
    if (strcmp(w, wrappers[k]) == 0) return 1;
  return 0;
}

/* The file a bare command name runs: the first executable regular file
 * DIR/name of PATH, into out; 0, or -1. */
static int in_path(const char *name, char *out, size_t len) {
  const char *path = getenv("PATH");
  for (const char *d = path ? path : "/usr/bin:/bin"; d && *d;) {
    const char *colon = strchr(d, ':');
    size_t dl = colon ? (size_t)(colon - d) : strlen(d);
    struct stat st;
    if (!exp_fmt(out, len, "%.*s/%s", (int)(dl ? dl : 1), dl ? d : ".", name) &&
        stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
      return 0;
    d = colon ? colon + 1 : NULL;
  }
  return -1;
}

/* The text of line k (1-based) of text into out. */
static void line_of(const char *text, int k, char *out, size_t len) {
  for (int n = 1; n < k && text; n++) {
    text = strchr(text, '\n');
    if (text) text++;
  }
  size_t ll = text ? strcspn(text, "\n") : 0;
  exp_fmt(out, len, "%.*s", (int)ll, text ? text : "");
}

/* The files of external e (header) into files (at most max); their count. */
static int external_files(const exp_config *cfg, const exp_external *e, char files[][EXP_PATH_MAX],
                          int max) {
  char line[4096], word[EXP_PATH_MAX];
  int n = 0, command = 0, seen_cmd = 0;
  if (e->requires[0] && n < max) exp_fmt(files[n++], EXP_PATH_MAX, "%s", e->requires);
  line_of(cfg->text, e->line, line, sizeof line);
  char *save = NULL;
  for (char *t = strtok_r(line, " \t\r\f\v", &save); t && n < max;
       t = strtok_r(NULL, " \t\r\f\v", &save)) {
    if (t[0] == '#') break;
    if (!command) {
      command = strcmp(t, "command") == 0;
      continue;
    }
    if (clean_word(cfg, t, word, sizeof word) != 0 || !word[0] || strchr(word, '{')) continue;
    struct stat st;
    if (!seen_cmd && wrapper_word(word)) continue;
    if (!seen_cmd++ && !strchr(word, '/')) {
      if (in_path(word, files[n], EXP_PATH_MAX) == 0) n++;
    } else if (strchr(word, '/') && stat(word, &st) == 0 && S_ISREG(st.st_mode)) {
      exp_fmt(files[n++], EXP_PATH_MAX, "%s", word);
    }
  }
  return n;
}

/* ---- the plan's programs ------------------------------------------------------------------ */

static int add_program(exp_plan *pl, int ext, const char *path, const char *sha) {
  for (int k = 0; k < pl->nprogs; k++)
    if (pl->progs[k].ext == ext && strcmp(pl->progs[k].path, path) == 0) return 0;
  exp_program *p = realloc(pl->progs, (size_t)(pl->nprogs + 1) * sizeof *p);
  if (!p) return -1;
  pl->progs = p;
  p = &pl->progs[pl->nprogs];
  if (!(p->path = strdup(path))) return -1;
  p->ext = ext;
  snprintf(p->sha256, sizeof p->sha256, "%s", sha);
  pl->nprogs++;
  return 0;
}

int exp_plan_programs(exp_plan *pl) {
  unsigned char used[EXP_MAX_EXTERNALS] = { 0 };
  for (int i = 0; i < pl->ntasks; i++)
    if (pl->tasks[i].solver.ext >= 0) used[pl->tasks[i].solver.ext] = 1;
  for (int x = 0; x < pl->cfg.next; x++) {
    if (!used[x] || !pl->cfg.ext[x].available) continue;
    char(*files)[EXP_PATH_MAX] = malloc(PROGRAM_FILES * sizeof *files);
    if (!files) return -1;
    int nf = external_files(&pl->cfg, &pl->cfg.ext[x], files, PROGRAM_FILES), bad = 0;
    for (int k = 0; k < nf && !bad; k++) {
      char real[EXP_PATH_MAX], sha[65], err[EXP_PATH_MAX + 64];
      if (exp_program_hash(files[k], real, sizeof real, sha, err, sizeof err) == 0)
        bad = add_program(pl, x, real, sha);
    }
    free(files);
    if (bad) return -1;
  }
  return exp_plan_plugins(pl);
}

int exp_programs_changed(const exp_plan *pl, int ext, char *err, size_t len) {
  for (int k = 0; k < pl->nprogs; k++) {
    const exp_program *p = &pl->progs[k];
    char real[EXP_PATH_MAX], sha[65];
    if (p->ext != ext) continue;
    if (exp_program_hash(p->path, real, sizeof real, sha, err, len) != 0) return 1;
    if (strcmp(sha, p->sha256) != 0) {
      exp_fmt(err, len,
              "%s changed since the plan was made (SHA-256 %.12s, the plan's %.12s): make the "
              "plan again (lcplab experiment ... --plan DIR --force)",
              p->path, sha, p->sha256);
      return 1;
    }
  }
  return 0;
}
