/* figure.c -- a section's figure, drawn by gnuplot from files the
 * engine wrote (experiments/README.md, "Figures" and "No shell ever parses a
 * value").
 *
 * The figure scripts (experiments/exp_KIND.gp) select rows with awk through
 * gnuplot's system(), pasting file names and field values into the command.
 * So that no name written by someone else reaches that shell or awk, and no
 * script has to read a CSV, the figure is drawn in a folder of its own
 * inside the output folder (.figure-XXXXXX, made by mkdtemp):
 *   data.dat, data2.dat  the rows of NAME.csv and of its second CSV as the
 *                        figure's data: the fields split once, here, as
 *                        RFC 4180 says (exp_csv_split), and written
 *                        tab-separated, with every field holding a character
 *                        other than a letter, a digit or ._+-:/= replaced by
 *                        the token @K; so no field holds a tab, a quote or a
 *                        blank, and gnuplot (`set datafile separator "\t"`)
 *                        and awk -F'\t' split the lines without any quoting
 *                        rule ('#' lines verbatim, then the header);
 *   params.gp            gnuplot assignments, every string single-quoted
 *                        for gnuplot (' -> ''): cd to the folder, dat, dat2,
 *                        out = 'fig', gpdir, box_solvers (the registered
 *                        solvers that take no Coulomb cone, ",a,b,": the
 *                        scripts' box group, from the registry), fig_KEY of
 *                        `figure key=value`, and fig_text_K, the text of
 *                        token @K, which the scripts show through txt()
 *                        (exp_style.gp);
 * gnuplot is run as `gnuplot params.gp SCRIPT` (no -e, no text parsed but
 * the engine's own), and its fig.pdf, fig.png, fig-2.pdf ... are renamed
 * to NAME.pdf, NAME.png, NAME-2.pdf ... in the output folder, all of them
 * or none (docs/io.md, "Replacing files"): only when gnuplot exited 0, each
 * file is whole (a PDF ends in %%EOF, a PNG in its IEND chunk: gnuplot may
 * exit 0 with a file cut short by a full disk or a file size limit), and
 * none would replace the figure's own CSVs (never, also with --force); the
 * folder is then removed.  A file that cannot be written is an error
 * naming it (EXP_FIGURE_NOT_WRITTEN), a gnuplot that fails a note.
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The distinct field values that are not plain, in order of appearance. */
typedef struct texts {
  char **v;
  int n, cap;
} texts;

static void texts_free(texts *t) {
  for (int k = 0; k < t->n; k++) free(t->v[k]);
  free(t->v);
}

/* Letters, digits and ._+-:/= only: inert in sh, in awk strings and in
 * gnuplot's word lists. */
static int is_plain(const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 128 || !(isalnum(c) || strchr("._+-:/=", c))) return 0;
  }
  return 1;
}

/* The token number of s (added when new); -1 when out of memory. */
static int text_token(texts *t, const char *s) {
  for (int k = 0; k < t->n; k++)
    if (strcmp(t->v[k], s) == 0) return k + 1;
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    char **v = realloc(t->v, (size_t)cap * sizeof *v);
    if (!v) return -1;
    t->v = v;
    t->cap = cap;
  }
  if (!(t->v[t->n] = strdup(s))) return -1;
  return ++t->n;
}

/* One line of the CSV src as the figure's data line (split as RFC 4180
 * says): tab-separated, plain fields as they are, the others @K. */
static int copy_row(FILE *out, char *line, texts *t) {
  char *f[256];
  int nf = exp_csv_split(line, f, 256);
  for (int j = 0; j < nf; j++) {
    int k = is_plain(f[j]) ? 0 : text_token(t, f[j]);
    if (k < 0) return -1;
    if (k)
      fprintf(out, "%s@%d", j ? "\t" : "", k);
    else
      fprintf(out, "%s%s", j ? "\t" : "", f[j]);
  }
  fputc('\n', out);
  return 0;
}

/* "PATH: cannot read|write: the errno's text" into why. */
static int file_error(char *why, size_t wl, const char *path, const char *what) {
  snprintf(why, wl, "%s: cannot %s: %s", path, what, strerror(errno ? errno : EIO));
  return -1;
}

/* The figure's data file dst of the CSV src: its '#' lines verbatim, then
 * the header and the rows as data lines.  0, or -1 with why. */
static int write_data(const char *src, const char *dst, texts *t, char *why, size_t wl) {
  FILE *in = fopen(src, "r");
  if (!in) return file_error(why, wl, src, "read");
  FILE *out = fopen(dst, "w");
  if (!out) {
    fclose(in);
    return file_error(why, wl, dst, "write");
  }
  char *line = NULL;
  size_t cap = 0;
  int bad = 0;
  errno = 0;
  while (!bad && !ferror(out) && getline(&line, &cap, in) >= 0) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#')
      fprintf(out, "%s\n", line);
    else
      bad = copy_row(out, line, t) != 0;
  }
  free(line);
  fclose(in);
  bad |= ferror(out) != 0 || fflush(out) != 0;
  int e = errno;
  bad |= fclose(out) != 0;
  errno = e ? e : errno;
  return bad ? file_error(why, wl, dst, "write") : 0;
}

const char *exp_figure_value_why(const char *kv, size_t len) {
  static const char chars[] = "a value other than title's is letters, digits and ._,+-: only";
  const char *eq = memchr(kv, '=', len);
  if (!eq || eq == kv) return "expected key=value";
  size_t kl = (size_t)(eq - kv), vl = len - kl - 1;
  if (kl == 5 && strncmp(kv, "title", 5) == 0) return NULL;
  for (size_t k = 0; k < vl; k++) {
    unsigned char c = (unsigned char)eq[1 + k];
    if (c >= 128 || !(isalnum(c) || strchr("._,+-:", c))) return chars;
  }
  /* the profile's curves (exp_profile.gp): a value it would not know is
   * not drawn as the default */
  if (kl == 7 && strncmp(kv, "measure", 7) == 0 && !(vl == 3 && strncmp(eq + 1, "all", 3) == 0) &&
      !(vl == 8 && strncmp(eq + 1, "accepted", 8) == 0))
    return "measure is all (a refusal counted as a failure) or accepted (each solver over the "
           "problems it accepted)";
  return NULL;
}

int exp_figure_value_ok(const char *kv, size_t len) {
  return exp_figure_value_why(kv, len) == NULL;
}

/* The last "# figure: ..." line of csv's '#' preamble into out; 0, or -1
 * when csv cannot be read. */
static int csv_figure_line(const char *csv, char *out, size_t len) {
  FILE *f = fopen(csv, "r");
  if (!f) return -1;
  char line[1024];
  out[0] = '\0';
  while (fgets(line, sizeof line, f) && line[0] == '#')
    if (strncmp(line, "# figure: ", 10) == 0)
      snprintf(out, len, "%.*s", (int)strcspn(line + 10, "\r\n"), line + 10);
  fclose(f);
  return 0;
}

int exp_figure_options(const exp_log *log, const char *csv, const char *sets, char *out,
                       size_t len) {
  if (csv_figure_line(csv, out, len) != 0) {
    exp_say(log, EXP_SAY_ERROR, "figure: %s: cannot read", csv);
    return EXP_EXIT_USAGE;
  }
  size_t used = strlen(out);
  if (sets && sets[0] && exp_fmt(out + used, len - used, "%s%s", used ? " " : "", sets) != 0) {
    exp_say(log, EXP_SAY_ERROR, "figure: the figure options are longer than %zu characters",
            len - 1);
    return EXP_EXIT_USAGE;
  }
  for (const char *kv = out; *kv;) {
    size_t wl = strcspn(kv, " ");
    const char *why = wl ? exp_figure_value_why(kv, wl) : NULL;
    if (why) {
      exp_say(log, EXP_SAY_ERROR, "figure: option '%.*s': %s", (int)wl, kv, why);
      return EXP_EXIT_USAGE;
    }
    kv += wl + (kv[wl] == ' ');
  }
  return EXP_EXIT_OK;
}

/* fig_KEY = 'VALUE' for each key=value of the section's figure line whose
 * key is lower-case letters and '_'; -1 when a value is not
 * exp_figure_value_ok (a CSV's "# figure:" line may have been edited). */
static int figure_params(exp_rbuf *b, const char *figure) {
  int bad = 0;
  for (const char *kv = figure; *kv && !bad;) {
    size_t wl = strcspn(kv, " "), kl = strcspn(kv, "=");
    if (kl < wl && strspn(kv, "abcdefghijklmnopqrstuvwxyz_") == kl) {
      char val[512];
      snprintf(val, sizeof val, "%.*s", (int)(wl - kl - 1), kv + kl + 1);
      bad = !exp_figure_value_ok(kv, wl) || exp_rbuf_add(b, "fig_%.*s = ", (int)kl, kv) ||
            exp_gp_quote(b, val) || exp_rbuf_add(b, "\n");
    }
    kv += wl + (kv[wl] == ' ');
  }
  return bad;
}

/* box_solvers = ',a,b,...,': the registered solvers that take no Coulomb
 * cone, the box group of the scripts' panels (exp_style.gp, gfilter). */
static int box_solvers(exp_rbuf *b) {
  int bad = exp_rbuf_add(b, "box_solvers = ',");
  for (int k = 0; k < slv_solver_count() && !bad; k++) {
    const slv_solver *sv = slv_solver_at(k);
    if (!(sv->caps & SLV_CAP_CONE)) bad = exp_rbuf_add(b, "%s,", sv->name);
  }
  return bad || exp_rbuf_add(b, "'\n");
}

static int write_params(const char *dir, const char *gpdir, const char *figure, int has_csv2,
                        const texts *t, char *why, size_t wl) {
  exp_rbuf b = { 0 };
  int bad = exp_rbuf_add(&b, "cd ") || exp_gp_quote(&b, dir) ||
            exp_rbuf_add(&b, "\ndat = 'data.dat'\ndat2 = '%s'\nout = 'fig'\ngpdir = ",
                         has_csv2 ? "data2.dat" : "") ||
            exp_gp_quote(&b, gpdir) || exp_rbuf_add(&b, "\n") || box_solvers(&b) ||
            figure_params(&b, figure);
  for (int k = 0; k < t->n && !bad; k++)
    bad = exp_rbuf_add(&b, "fig_text_%d = ", k + 1) || exp_gp_quote(&b, t->v[k]) ||
          exp_rbuf_add(&b, "\n");
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/params.gp", dir);
  errno = bad ? ENOMEM : 0;
  FILE *f = bad ? NULL : fopen(path, "w");
  bad = !f || fwrite(b.buf, 1, b.len, f) != b.len || fflush(f) != 0;
  int e = errno;
  if (f) bad |= fclose(f) != 0;
  errno = e ? e : errno;
  exp_rbuf_free(&b);
  return bad ? file_error(why, wl, path, "write") : 0;
}

/* Whether path ends as its format says a whole file ends: a PDF in %%EOF
 * (blanks after it allowed), a PNG in its IEND chunk.  gnuplot may exit 0
 * with its output cut short by a full disk or a file size limit (ulimit
 * -f).  NULL when complete, else what is wrong. */
static const char *figure_incomplete(const char *path) {
  static const unsigned char iend[12] = { 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82 };
  size_t n = strlen(path);
  int pdf = n > 4 && strcmp(path + n - 4, ".pdf") == 0;
  int png = n > 4 && strcmp(path + n - 4, ".png") == 0;
  if (!pdf && !png) return "neither a PDF nor a PNG file";
  FILE *f = fopen(path, "rb");
  unsigned char head[8] = { 0 }, tail[64];
  size_t nt = 0;
  if (f && fread(head, 1, 8, f) == 8 && fseek(f, -(long)sizeof tail, SEEK_END) != 0)
    fseek(f, 0, SEEK_SET);
  if (f) nt = fread(tail, 1, sizeof tail, f);
  if (f) fclose(f);
  if (!f) return "cannot be read";
  if (png)
    return memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && nt >= 12 &&
                   memcmp(tail + nt - 12, iend, 12) == 0
               ? NULL
               : "a PNG without its IEND chunk";
  while (nt > 0 && tail[nt - 1] && strchr(" \t\r\n", tail[nt - 1])) nt--;
  return memcmp(head, "%PDF-", 5) == 0 && nt >= 5 && memcmp(tail + nt - 5, "%%EOF", 5) == 0
             ? NULL
             : "a PDF without its %%EOF";
}

/* The name gnuplot's file fig... of the figure's folder gets: base...;
 * 0, or -1 when it is not a figure file or the name does not fit. */
static int figure_name(const char *file, const char *base, char *to, size_t len) {
  if (strncmp(file, "fig", 3) != 0) return -1;
  int r = snprintf(to, len, "%s%s", base, file + 3);
  return r < 0 || (size_t)r >= len ? -1 : 0;
}

/* Checks gnuplot's figures in dir: each whole (figure_incomplete), none
 * to be renamed over an input (csv, csv2: never, also with force).  Their
 * count, or -1 after the message. */
static int figures_ready(const exp_log *log, const char *dir, const char *base, const char *csv,
                         const char *csv2) {
  exp_inputs inputs = { 0 };
  if (exp_inputs_add(&inputs, csv) != 0 || exp_inputs_add(&inputs, csv2) != 0) {
    exp_inputs_free(&inputs);
    exp_say(log, EXP_SAY_ERROR, "figure: out of memory");
    return -1;
  }
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && n >= 0 && (e = readdir(d)) != NULL;) {
    char from[PATH_MAX + 256], to[EXP_PATH_MAX + 352];
    if (figure_name(e->d_name, base, to, sizeof to) != 0) continue;
    snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
    const char *why = figure_incomplete(from);
    if (why) {
      exp_say(log, EXP_SAY_ERROR,
              "%s: cannot write: gnuplot's file is %s (a full disk or a file size limit?); "
              "no file of the figure is replaced",
              to, why);
      n = -1;
    } else if (exp_output_is_input(log, "figure", "--out", to, &inputs)) {
      n = -1;
    } else {
      n++;
    }
  }
  if (d) closedir(d);
  exp_inputs_free(&inputs);
  return n;
}

/* Renames the figures of dir to base... (figures_ready checked them);
 * 0, or -1 after the message. */
static int publish_figures(const exp_log *log, const char *dir, const char *base) {
  DIR *d = opendir(dir);
  int rc = d ? 0 : -1;
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    char from[PATH_MAX + 256], to[EXP_PATH_MAX + 352];
    if (figure_name(e->d_name, base, to, sizeof to) != 0) continue;
    snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
    if (rename(from, to) != 0 && rc == 0) {
      exp_say(log, EXP_SAY_ERROR, "%s: cannot write: %s", to, strerror(errno));
      rc = -1;
    }
  }
  if (d) closedir(d);
  return rc;
}

/* The figure's folder with its data and params.gp; 0, or -1 with why
 * (folder removed). */
static int prepare(char *dir, const char *base, const char *csv, const char *csv2,
                   const char *gpdir, const char *figure, char *why, size_t wl) {
  const char *slash = strrchr(base, '/');
  char tmpl[EXP_PATH_MAX + 32], data[PATH_MAX + 16], data2[PATH_MAX + 16];
  snprintf(tmpl, sizeof tmpl, "%.*s.figure-XXXXXX", slash ? (int)(slash - base + 1) : 0, base);
  if (!mkdtemp(tmpl)) return file_error(why, wl, tmpl, "create the folder");
  if (!realpath(tmpl, dir)) {
    rmdir(tmpl);
    return file_error(why, wl, tmpl, "read");
  }
  snprintf(data, sizeof data, "%s/data.dat", dir);
  snprintf(data2, sizeof data2, "%s/data2.dat", dir);
  texts t = { 0 };
  int bad = write_data(csv, data, &t, why, wl) || (csv2 && write_data(csv2, data2, &t, why, wl)) ||
            write_params(dir, gpdir, figure, csv2 != NULL, &t, why, wl);
  texts_free(&t);
  if (bad) exp_beneath_remove_folder(dir);
  return bad ? -1 : 0;
}

/* Runs gnuplot on the figure's folder dir: 0, -1 when it cannot be run,
 * or its exit status (128 + a signal's number), after a note. */
static int run_gnuplot(const exp_log *log, const char *gnuplot, const char *dir, const char *script,
                       const char *name) {
  char params[PATH_MAX + 16];
  snprintf(params, sizeof params, "%s/params.gp", dir);
  char *argv[] = { (char *)gnuplot, params, (char *)script, NULL };
  int rc = exp_run_prog(argv, NULL, 0, 0);
  if (rc < 0)
    exp_say(log, EXP_SAY_NOTE,
            "cannot run %s (install gnuplot-nox, or set GNUPLOT): no "
            "figures; draw them later with lcplab collect",
            gnuplot);
  else if (rc != 0)
    exp_say(log, EXP_SAY_NOTE, "%s exited with %d for %s (the CSV is complete; no figure)", script,
            rc, name);
  return rc;
}

int exp_figure_draw(const exp_log *log, const exp_section *s, const char *base, const char *csv,
                    const char *csv2, const char *scripts, const char *gnuplot) {
  char gpdir[PATH_MAX], script[PATH_MAX + 64], dir[PATH_MAX], why[2 * PATH_MAX];
  if (!realpath(scripts, gpdir)) {
    exp_say(log, EXP_SAY_NOTE, "%s: %s: no figure for %s", scripts, strerror(errno), s->name);
    return 0;
  }
  snprintf(script, sizeof script, "%s/exp_%s.gp", gpdir, exp_kind_str(s->kind));
  if (access(script, R_OK) != 0) {
    exp_say(log, EXP_SAY_NOTE, "%s: %s: no figure for %s", script, strerror(errno), s->name);
    return 1;
  }
  if (prepare(dir, base, csv, csv2, gpdir, s->figure, why, sizeof why) != 0) {
    exp_say(log, EXP_SAY_ERROR, "%s: no figure for %s: %s", base, s->name, why);
    return EXP_FIGURE_NOT_WRITTEN;
  }
  int rc = run_gnuplot(log, gnuplot, dir, script, s->name);
  if (rc == 0 && (figures_ready(log, dir, base, csv, csv2) < 0 || publish_figures(log, dir, base)))
    rc = EXP_FIGURE_NOT_WRITTEN;
  exp_beneath_remove_folder(dir);
  return rc;
}

const char *exp_gnuplot_prog(void) {
  const char *g = getenv("GNUPLOT");
  return g && g[0] ? g : "gnuplot";
}
