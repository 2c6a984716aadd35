/* nested_shell.c -- no value of an external's template reaches text that a
 * nested shell parses (experiments/CAMPAIGNS.md, "No shell ever parses a
 * value", "The template rule").
 *
 * config_external.c makes each placeholder a quoted reference "${K}" to a
 * positional parameter of /bin/sh -c and refuses one inside quotes, so the
 * template's own shell takes every value as data.  What that cannot stop
 * is a program of the template that parses one of its arguments as shell
 * text.  exp_nested_shell_check reads the command as /bin/sh splits it --
 * simple commands at ; & | ( ) and line ends, words with their quotes
 * removed, the commands inside $(...) and `...` as commands too -- and
 * refuses, with why:
 *
 *   - a shell -- a word sh, bash, dash, ksh, mksh, zsh, ash, yash, posh,
 *     csh, tcsh or fish, by name or path, wherever it stands in a simple
 *     command (after env, xargs, find -exec, nice, timeout, ...) -- whose
 *     -c script holds an expansion ($NAME, ${...}, $(...), `...`: a value
 *     or anything made from one), find's {} or xargs -I's string (replaced
 *     by a name they read), or that gets no script from the template (-c
 *     with none, -s, or no operand: xargs, find or its standard input
 *     would hand it one);
 *   - eval with an argument that holds an expansion;
 *   - ssh with a word after it that holds one (the remote shell parses
 *     the command it is given).
 * A shell's -c script, literal in the template, is read by the same rules
 * in turn (its own nested shells, where its "$1" are the values), at most
 * MAX_DEPTH shells deep.  The words after a shell's script (its $0, $1,
 * ...) and a script file (sh FILE ARGS) may hold values: they are data
 * there, as a program's path is.
 *
 * Limits: a shell is known by its name; one named through a variable
 * ($SHELL -c) is not, nor is a program that parses an unquoted argument of
 * its own (awk {in}, python3 -c {in}); values inside quotes, where program
 * texts are written, are refused before this (config_external.c).
 */
#define _POSIX_C_SOURCE 200809L

#include "exp_config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 8, MAX_FRAMES = 64 };

static const char *const shells[] = { "sh",   "bash", "dash", "ksh",  "ksh93", "mksh",
                                      "lksh", "zsh",  "ash",  "yash", "posh",  "rbash",
                                      "csh",  "tcsh", "fish", NULL };

typedef struct nscan {
  char *why;
  size_t wl;
  int frames; /* pieces of text being read, nested */
} nscan;

/* A word as the shell sees it after quote removal, expansions unexpanded. */
typedef struct word {
  char t[EXP_PATH_MAX];
  size_t n;
  int started, expands, quoted;
} word;

/* What the words of a simple command are, so far. */
enum { M_CMD, M_SHELL, M_SHELL_OPTARG, M_EVAL, M_SSH, M_DONE };

typedef struct simple {
  int mode, has_c, stdin_script, opts_done, redirect, xargs, xargs_arg;
  const char *shell; /* the shell's name, for the message */
  char repl[64];     /* xargs -I's string, "" none */
  char eval[EXP_PATH_MAX];
  size_t elen;
} simple;

typedef struct frame {
  word w;
  simple c;
  int depth, parens;
} frame;

static int scan_text(nscan *s, const char *p, int depth, int in_subst, const char **end);

static int fail(nscan *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(nscan *s, const char *fmt, ...) {
  if (!s->why[0]) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, s->wl, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static void put(word *w, char ch) {
  if (w->n + 1 < sizeof w->t) w->t[w->n++] = ch;
  w->t[w->n] = '\0';
  w->started = 1;
}

static void put_raw(word *w, const char *a, const char *b) {
  while (a < b) put(w, *a++);
  w->expands = 1;
}

/* ---- a word's end, by what the simple command is so far ---------------------------------- */

/* An option of xargs: -I STR, -ISTR, -i[STR], --replace[=STR] set the
 * string xargs replaces in its command's words. */
static void xargs_option(simple *c, const char *t) {
  const char *r = NULL;
  if (strcmp(t, "-I") == 0)
    c->xargs_arg = 1;
  else if (strncmp(t, "-I", 2) == 0)
    r = t + 2;
  else if (strncmp(t, "-i", 2) == 0)
    r = t[2] ? t + 2 : "{}";
  else if (strncmp(t, "--replace", 9) == 0)
    r = t[9] == '=' ? t + 10 : "{}";
  if (r) snprintf(c->repl, sizeof c->repl, "%s", r);
}

static int command_word(frame *f) {
  simple *c = &f->c;
  const char *t = f->w.t;
  if (c->xargs_arg) {
    snprintf(c->repl, sizeof c->repl, "%.63s", t);
    c->xargs_arg = 0;
    return 0;
  }
  if (c->xargs && t[0] == '-') xargs_option(c, t);
  if (f->w.expands || t[0] == '-' || strchr(t, '=')) return 0;
  const char *base = strrchr(t, '/');
  base = base ? base + 1 : t;
  for (int k = 0; shells[k]; k++)
    if (strcmp(base, shells[k]) == 0) {
      c->mode = M_SHELL;
      c->shell = shells[k];
      return 0;
    }
  if (strcmp(base, "eval") == 0) c->mode = M_EVAL;
  if (strcmp(base, "ssh") == 0) c->mode = M_SSH;
  if (strcmp(base, "xargs") == 0) c->xargs = 1;
  return 0;
}

/* The script of a shell's -c: literal text, read by the same rules. */
static int shell_script(nscan *s, frame *f, const char *text, int expands) {
  const char *sh = f->c.shell;
  if (expands)
    return fail(s,
                "%s -c: its script holds a value or a $ expansion, which %s would parse as "
                "code; write the script in single quotes and pass each value after it as an "
                "argument: %s -c '... \"$1\" ...' %s {in}",
                sh, sh, sh, sh);
  const char *repl = strstr(text, "{}") ? "{}" : NULL;
  if (!repl && f->c.repl[0] && strstr(text, f->c.repl)) repl = f->c.repl;
  if (repl)
    return fail(s,
                "%s -c: its script holds %s, which find or xargs replace with a name they read "
                "(then parsed as code); pass it after the script as an argument (\"$1\")",
                sh, repl);
  if (f->depth + 1 > MAX_DEPTH) return fail(s, "shells nested more than %d deep", MAX_DEPTH);
  return scan_text(s, text, f->depth + 1, 0, NULL);
}

/* An option word of a shell (before its operand). */
static void shell_option(simple *c, const char *t) {
  if (strcmp(t, "--") == 0) {
    c->opts_done = 1;
  } else if (t[0] == '-' && t[1] == '-') {
    if (strcmp(t, "--command") == 0) c->has_c = 1; /* fish */
    if (strcmp(t, "--rcfile") == 0 || strcmp(t, "--init-file") == 0) c->mode = M_SHELL_OPTARG;
  } else {
    for (const char *l = t + 1; *l; l++) {
      c->has_c |= *l == 'c';
      c->stdin_script |= *l == 's';
      if (*l == 'o' || *l == 'O') c->mode = M_SHELL_OPTARG;
    }
  }
}

static int shell_word(nscan *s, frame *f) {
  simple *c = &f->c;
  const char *t = f->w.t;
  if (!c->opts_done && strncmp(t, "--command=", 10) == 0) { /* fish */
    c->mode = M_DONE;
    return shell_script(s, f, t + 10, f->w.expands);
  }
  if (!c->opts_done && !f->w.expands && (t[0] == '-' || t[0] == '+') && t[1]) {
    shell_option(c, t);
    return 0;
  }
  c->mode = M_DONE; /* the operand: the script, or a script file; the rest are arguments */
  if (c->has_c) return shell_script(s, f, t, f->w.expands);
  if (c->stdin_script)
    return fail(s, "%s -s reads its commands from standard input (give it -c '...' or a file)",
                c->shell);
  return 0;
}

static int word_done(nscan *s, frame *f) {
  simple *c = &f->c;
  word *w = &f->w;
  if (c->redirect) {
    c->redirect = 0;
    return 0;
  }
  switch (c->mode) {
  case M_CMD: return command_word(f);
  case M_SHELL_OPTARG: c->mode = M_SHELL; return 0;
  case M_SHELL: return shell_word(s, f);
  case M_EVAL:
    if (w->expands)
      return fail(s, "eval parses its arguments as shell code, and one holds a value or a $ "
                     "expansion");
    if (c->elen + w->n + 2 < sizeof c->eval)
      c->elen += (size_t)snprintf(c->eval + c->elen, sizeof c->eval - c->elen, "%s%s",
                                  c->elen ? " " : "", w->t);
    return 0;
  case M_SSH:
    if (w->expands)
      return fail(s, "ssh: the remote shell parses the command it is given, and a word after ssh "
                     "holds a value or a $ expansion");
    return 0;
  default: return 0;
  }
}

static int end_word(nscan *s, frame *f) {
  int rc = f->w.started ? word_done(s, f) : 0;
  memset(&f->w, 0, sizeof f->w);
  return rc;
}

/* The end of a simple command: a shell still waiting for its script gets
 * none from the template; eval's words are read as the text it parses. */
static int end_command(nscan *s, frame *f) {
  if (end_word(s, f) != 0) return -1;
  simple *c = &f->c;
  int rc = 0;
  if (c->mode == M_SHELL || c->mode == M_SHELL_OPTARG)
    rc = fail(s,
              c->has_c ? "%s -c without its script in the template: xargs, find or a value would "
                         "hand it one, parsed as code"
                       : "%s without a script (-c '...' or a file): it would read its commands "
                         "from standard input",
              c->shell);
  else if (c->mode == M_EVAL && c->elen)
    rc = f->depth + 1 > MAX_DEPTH ? fail(s, "shells nested more than %d deep", MAX_DEPTH)
                                  : scan_text(s, c->eval, f->depth + 1, 0, NULL);
  memset(c, 0, sizeof *c);
  return rc;
}

/* ---- expansions and quotes ----------------------------------------------------------------- */

/* The $ at p: an expansion (copied as written, the word marked), or a plain
 * '$'; the character after it, NULL on failure. */
static const char *dollar(nscan *s, frame *f, const char *p) {
  const char *e = p + 1;
  if (p[1] == '(') {
    if (scan_text(s, p + 2, f->depth, 1, &e) != 0) return NULL;
  } else if (p[1] == '{') {
    int open = 1;
    for (e = p + 2; *e && open; e++) open += (*e == '{') - (*e == '}');
    if (open) return fail(s, "an unclosed ${"), NULL;
  } else if (isalpha((unsigned char)p[1]) || p[1] == '_') {
    for (e = p + 1; isalnum((unsigned char)*e) || *e == '_';) e++;
  } else if (p[1] && (isdigit((unsigned char)p[1]) || strchr("@*#?$!-", p[1]))) {
    e = p + 2;
  } else {
    put(&f->w, '$');
    return p + 1;
  }
  put_raw(&f->w, p, e);
  return e;
}

/* The command substitution `...` at p: its text (\` \$ \\ undone) read as
 * commands; the character after it, NULL on failure. */
static const char *backquote(nscan *s, frame *f, const char *p) {
  const char *e = p + 1;
  while (*e && *e != '`') e += (*e == '\\' && e[1]) ? 2 : 1;
  if (!*e) return fail(s, "an unclosed backquote"), NULL;
  char *text = malloc((size_t)(e - p));
  if (!text) return fail(s, "out of memory"), NULL;
  size_t n = 0;
  for (const char *q = p + 1; q < e; q++) {
    if (*q == '\\' && strchr("`$\\", q[1])) q++;
    text[n++] = *q;
  }
  text[n] = '\0';
  int rc = scan_text(s, text, f->depth, 0, NULL);
  free(text);
  put_raw(&f->w, p, e + 1);
  return rc == 0 ? e + 1 : NULL;
}

/* The double-quoted string after the '"' at p; the character after its
 * closing quote, NULL on failure. */
static const char *dquote(nscan *s, frame *f, const char *p) {
  f->w.started = f->w.quoted = 1;
  for (p++; p && *p != '"';) {
    if (!*p) return fail(s, "an unclosed double quote"), NULL;
    if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
      if (p[1] != '\n') put(&f->w, p[1]);
      p += 2;
    } else if (*p == '$') {
      p = dollar(s, f, p);
    } else if (*p == '`') {
      p = backquote(s, f, p);
    } else {
      put(&f->w, *p++);
    }
  }
  return p ? p + 1 : NULL;
}

/* ---- the text ------------------------------------------------------------------------------ */

/* The operator at p (; & | ( ) < > or a line end) ends the word, and all
 * but a redirection the simple command; the character after it. */
static const char *operator(nscan *s, frame *f, const char *p, int *rc) {
  if (*p == '<' || *p == '>') {
    if (!f->w.quoted && !f->w.expands && f->w.n && strspn(f->w.t, "0123456789") == f->w.n)
      memset(&f->w, 0, sizeof f->w); /* 2>: a descriptor's number */
    *rc = end_word(s, f);
    f->c.redirect = 1;
    return p + strspn(p, "<>&|");
  }
  *rc = end_command(s, f);
  f->parens += (*p == '(') - (*p == ')' && f->parens > 0);
  return p + 1;
}

/* One character or construct at p; the next, NULL on failure. */
static const char *step(nscan *s, frame *f, const char *p) {
  int rc = 0;
  switch (*p) {
  case ' ':
  case '\t':
    rc = end_word(s, f);
    p++;
    break;
  case '\n':
  case ';':
  case '&':
  case '|':
  case '(':
  case ')':
  case '<':
  case '>': p = operator(s, f, p, &rc); break;
  case '\\':
    if (p[1] && p[1] != '\n') put(&f->w, p[1]);
    p += p[1] ? 2 : 1;
    break;
  case '\'': {
    const char *e = strchr(p + 1, '\'');
    if (!e) return fail(s, "an unclosed single quote"), NULL;
    for (p++; p < e; p++) put(&f->w, *p);
    f->w.started = f->w.quoted = 1;
    p++;
    break;
  }
  case '"': return dquote(s, f, p);
  case '$': return dollar(s, f, p);
  case '`': return backquote(s, f, p);
  case '#':
    if (!f->w.started) return p + strcspn(p, "\n");
    put(&f->w, *p++);
    break;
  default: put(&f->w, *p++);
  }
  return rc == 0 ? p : NULL;
}

/* Reads the shell text p (depth: shells nested around it); in_subst: the
 * inside of $(...), which ends at its unmatched ')' (*end: after it).
 * 0, or -1 with s->why. */
static int scan_text(nscan *s, const char *p, int depth, int in_subst, const char **end) {
  if (s->frames >= MAX_FRAMES) return fail(s, "command substitutions nested too deep");
  frame *f = calloc(1, sizeof *f);
  if (!f) return fail(s, "out of memory");
  s->frames++;
  f->depth = depth;
  int rc = 0;
  while (p && *p && !(in_subst && *p == ')' && f->parens == 0)) p = step(s, f, p);
  if (!p)
    rc = -1;
  else if (in_subst && *p != ')')
    rc = fail(s, "an unclosed $(");
  else
    rc = end_command(s, f);
  if (rc == 0 && end) *end = p + 1;
  free(f);
  s->frames--;
  return rc;
}

int exp_nested_shell_check(const char *command, char *why, size_t len) {
  nscan s = { why, len, 0 };
  why[0] = '\0';
  return scan_text(&s, command, 0, 0, NULL);
}
