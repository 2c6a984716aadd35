/* shell.c -- values reach a shell or gnuplot as data, never as
 * code (experiments/CAMPAIGNS.md, "No shell ever parses a value"):
 *   - exp_sh_quote: a value in a generated script, single-quoted (' -> '\'');
 *   - exp_gp_quote: a value in a gnuplot file, single-quoted (' -> '');
 *   - exp_line_safe: a path, label or value holding a newline or a carriage
 *     return is refused (it would end a script's, a CSV's or a list's line);
 *   - exp_template_ref: a placeholder of an external's template as a quoted
 *     reference to a positional parameter ("${N}"), whose value the shell
 *     takes from its arguments and never parses.
 */
#include "exp_internal.h"

#include <stdio.h>
#include <string.h>

int exp_sh_quote(exp_rbuf *b, const char *s) {
  int bad = exp_rbuf_add(b, "'");
  for (const char *q; !bad && (q = strchr(s, '\'')) != NULL; s = q + 1)
    bad = exp_rbuf_add(b, "%.*s'\\''", (int)(q - s), s);
  return bad | exp_rbuf_add(b, "%s'", bad ? "" : s);
}

int exp_gp_quote(exp_rbuf *b, const char *s) {
  int bad = exp_rbuf_add(b, "'");
  for (const char *q; !bad && (q = strchr(s, '\'')) != NULL; s = q + 1)
    bad = exp_rbuf_add(b, "%.*s''", (int)(q - s), s);
  return bad | exp_rbuf_add(b, "%s'", bad ? "" : s);
}

int exp_line_safe(const exp_log *log, const char *what, const char *s) {
  const char *bad = strchr(s, '\n') ? "a newline" : (strchr(s, '\r') ? "a carriage return" : NULL);
  if (!bad) return 0;
  char shown[80];
  size_t k = 0;
  for (; s[k] && k + 1 < sizeof shown; k++) shown[k] = (s[k] == '\n' || s[k] == '\r') ? '?' : s[k];
  shown[k] = '\0';
  exp_say(log, EXP_SAY_ERROR,
          "%s '%s%s' holds %s: refused (it would end a line of a script or a CSV)", what, shown,
          s[k] ? "..." : "", bad);
  return EXP_EXIT_USAGE;
}

int exp_template_ref(char *out, size_t len, int index, int in_dquotes) {
  int r = snprintf(out, len, in_dquotes ? "${%d}" : "\"${%d}\"", index);
  return r < 0 || (size_t)r >= len ? -1 : r;
}

/* ---- CSV fields (RFC 4180) ---- */

int exp_csv_needs_quotes(const char *s) { return strpbrk(s, ",\"\r\n") != NULL; }

void exp_csv_put(FILE *f, const char *s) {
  if (!exp_csv_needs_quotes(s)) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

int exp_csv_split(char *line, char **f, int max) {
  int nf = 0;
  for (char *c = line;; c++) {
    char *start = c, *o = c;
    if (*c == '"') {
      for (c++; *c && !(c[0] == '"' && c[1] != '"'); c++) {
        c += c[0] == '"';
        *o++ = *c;
      }
      c += *c == '"';
    }
    for (; *c && *c != ','; c++) *o++ = *c;
    int last = *c == '\0';
    *o = '\0';
    if (nf < max) f[nf++] = start;
    if (last) return nf;
  }
}
