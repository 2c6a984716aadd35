/* exp_config.h -- private to the parser of experiment files: config.c
 * (lines and sections), config_parse.c (errors, variables, values),
 * config_keys.c (the keys of a section), config_external.c (`external`
 * lines), nested_shell.c (the template rule) and names.c.  Each parse function returns -1 when the line is
 * fine, else the exit status (2) after its one-line message.
 */
#ifndef EXP_CONFIG_H
#define EXP_CONFIG_H

#include <stddef.h>

#include "exp_internal.h"

/* The kinds' and the classes' names, NULL-terminated (names.c). */
extern const char *const exp_cfg_kind_names[EXP_KIND_COUNT + 1];
extern const char *const exp_cfg_class_names[EXP_CLASS_COUNT + 1];

/* Where the parser is. */
typedef struct exp_cfg_parser {
  const char *file;
  int line;
  const exp_vars *vars;
  exp_config *cfg;
  int recorded;                /* a plan's copy: its problems are in problems.tsv, not looked for */
  struct exp_strmap *sections; /* the sections' names so far (config.c; NULL: none kept) */
} exp_cfg_parser;

/* Says "FILE:LINE: KEY: what" through cfg's log; returns EXP_EXIT_USAGE. */
int exp_cfg_error(const exp_cfg_parser *ps, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The index of v in the NULL-terminated names, or -1; "a, b, c" into buf. */
int exp_cfg_find_name(const char *v, const char *const *names);
void exp_cfg_join_names(const char *const *names, char *buf, size_t len);

/* The ${NAME} or ${NAME:-DEFAULT} at c (in word): its value (--var,
 * LCPLAB_NAME, else DEFAULT copied into dbuf) in *val, a given one recorded
 * for plan.vars (a line break in it refused), and the character after it in
 * *next. */
int exp_cfg_var_ref(const exp_cfg_parser *ps, const char *key, const char *word, const char *c,
                    const char **next, const char **val, char *dbuf, size_t dl);
/* Expands ${NAME} and ${NAME:-DEFAULT} in word into out (size len). */
int exp_cfg_expand(const exp_cfg_parser *ps, const char *key, const char *word, char *out,
                   size_t len);

/* A finite number > lo; the same, at most EXP_TIME_MAX_S (a time that
 * reaches a generated script); an integer in [lo, hi]; exactly one value
 * after the key (nw == 2); a comma-separated class list into a bit mask. */
int exp_cfg_num(const exp_cfg_parser *ps, const char *key, const char *v, double lo, double *out);
int exp_cfg_seconds(const exp_cfg_parser *ps, const char *key, const char *v, double lo,
                    double *out);
int exp_cfg_whole(const exp_cfg_parser *ps, const char *key, const char *v, long lo, long hi,
                  long *out);
int exp_cfg_one_value(const exp_cfg_parser *ps, const char *key, int nw);
int exp_cfg_class_mask(const exp_cfg_parser *ps, const char *key, const char *v, unsigned *mask);

/* A key of the current section, or a failed-step policy key (config_keys.c). */
int exp_cfg_key(const exp_cfg_parser *ps, exp_config *cfg, char **w, int nw);
/* A section's failed-step policy: its own keys, else the file's. */
void exp_cfg_inherit_failure(exp_failure *s, const exp_failure *file);

/* An `external` line (config_external.c). */
int exp_cfg_external(const exp_cfg_parser *ps, exp_config *cfg, char **w, int nw);

/* Whether an external's command (its placeholders already quoted
 * references) hands a nested shell, eval or ssh no text made from a value
 * (nested_shell.c; experiments/CAMPAIGNS.md, "The template rule"): 0, or
 * -1 with why (size len) naming the program and what it would parse. */
int exp_nested_shell_check(const char *command, char *why, size_t len);

#endif /* EXP_CONFIG_H */
