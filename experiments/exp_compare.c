/* exp_compare.c -- every registered solver on every given instance: one CSV.
 *
 *   exp_compare --out CSV [--tol T] [--max-iter N] [--repeat R]
 *               [--solver-max-iter NAME=N]... [--solvers a,b,...]
 *               [--rev REV] [--cflags STR] [--seed S] [--force] FILE...
 *
 * For each instance FILE (any format slv_read knows, chosen by extension then
 * content) and each solver of the registry (slv_solver_count/slv_solver_at,
 * in registry order, or only those named by --solvers):
 *   - if slv_solver_accepts refuses the problem, one row with status
 *     "unsupported" and every measured field empty (the row keeps the table
 *     rectangular, so a missing solver/instance pair is visible);
 *   - else one workspace, one warm-up slv_solve, then R timed slv_solve calls
 *     (each from the cold start, opt.warm_start = 0), clock_gettime
 *     (CLOCK_MONOTONIC) around slv_solve only; median and minimum over the R
 *     repeats.  Status, iterations and accuracy come from the last repeat
 *     (the solvers are deterministic).  The accuracy columns are the
 *     library's own slv_residuals (slv.h), recomputed from (A, b, lo, hi, x)
 *     after every solve, the same code for every solver.
 *
 * CSV (RFC 4180 without quoting: names are sanitised to contain no comma):
 *   '# ' preamble lines: program, git revision (--rev), compiler (__VERSION__)
 *   and flags (--cflags), BLAS (openblas_get_config() when the running BLAS
 *   is OpenBLAS, found with dlsym), OPENBLAS_NUM_THREADS, seed (--seed: the
 *   instances' generator seed, also opt.seed), tol/max-iter/repeat, date
 *   (UTC), host (uname), then the header row and one row per pair:
 *     instance, kind, n, solver, status, iterations, time_median_s,
 *     time_min_s, res_nat_inf, res_rel, compl, infeas, dx_ref_inf, pivots
 *   status is slv_status_str() or "unsupported"; dx_ref_inf is
 *   ||x - x_ref||_inf when the file carries a reference solution, else empty.
 *   Non-finite numbers are written as nan / inf.  Rows are flushed as they
 *   are written, so an interrupted run keeps the rows it finished.
 *
 * An experiment never asserts: exit 0 whatever the solvers do; exit 2 for
 * usage errors, a FILE that cannot be opened or parsed (the others are still
 * run and written), or an existing --out without --force.  Progress goes to
 * stderr, and only when stderr is a terminal.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "slv.h"
#include "slv_io.h"

#define EXP_MAX_OVERRIDES 16

typedef struct exp_override {
  const char *name;
  int max_iter;
} exp_override;

typedef struct exp_args {
  const char *out, *rev, *cflags, *solvers;
  double tol;
  int max_iter, repeat, force, have_tol, have_max_iter;
  unsigned long seed;
  int have_seed;
  exp_override ov[EXP_MAX_OVERRIDES];
  int nov;
  char **files;
  int nfiles;
} exp_args;

static void usage(FILE *f) {
  fprintf(f, "usage: exp_compare --out CSV [--tol T] [--max-iter N] [--repeat R]\n"
             "                   [--solver-max-iter NAME=N]... [--solvers a,b,...]\n"
             "                   [--rev REV] [--cflags STR] [--seed S] [--force] FILE...\n"
             "  every registered solver on every FILE: warm-up + R timed solves, one CSV row\n"
             "  per (instance, solver); defaults: tol and max-iter of slv_options_default(),\n"
             "  R = 3.  See experiments/README.md.\n");
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* Returns 0 on success, 2 on a usage error (message printed). */
static int parse_args(int argc, char **argv, exp_args *a) {
  memset(a, 0, sizeof *a);
  a->repeat = 3;
  a->rev = "unknown";
  a->cflags = "unknown";
  int i;
  for (i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (s[0] != '-' || s[1] != '-') break;
    if (!strcmp(s, "--")) {
      i++;
      break;
    }
    if (!strcmp(s, "--help")) {
      usage(stdout);
      exit(0);
    }
    if (!strcmp(s, "--force")) {
      a->force = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "exp_compare: %s needs a value\n", s);
      return 2;
    }
    const char *v = argv[++i];
    long k;
    if (!strcmp(s, "--out")) {
      a->out = v;
    } else if (!strcmp(s, "--rev")) {
      a->rev = v;
    } else if (!strcmp(s, "--cflags")) {
      a->cflags = v;
    } else if (!strcmp(s, "--solvers")) {
      a->solvers = v;
    } else if (!strcmp(s, "--tol")) {
      char *end;
      errno = 0;
      a->tol = strtod(v, &end);
      if (errno || end == v || *end || !(a->tol > 0) || !isfinite(a->tol)) {
        fprintf(stderr, "exp_compare: --tol '%s': expected a positive number\n", v);
        return 2;
      }
      a->have_tol = 1;
    } else if (!strcmp(s, "--max-iter")) {
      if (parse_int(v, 1, 1000000000L, &k)) {
        fprintf(stderr, "exp_compare: --max-iter '%s': expected an integer >= 1\n", v);
        return 2;
      }
      a->max_iter = (int)k;
      a->have_max_iter = 1;
    } else if (!strcmp(s, "--repeat")) {
      if (parse_int(v, 1, 1000000L, &k)) {
        fprintf(stderr, "exp_compare: --repeat '%s': expected an integer >= 1\n", v);
        return 2;
      }
      a->repeat = (int)k;
    } else if (!strcmp(s, "--seed")) {
      char *end;
      errno = 0;
      a->seed = strtoul(v, &end, 10);
      if (errno || end == v || *end || v[0] == '-') {
        fprintf(stderr, "exp_compare: --seed '%s': expected a non-negative integer\n", v);
        return 2;
      }
      a->have_seed = 1;
    } else if (!strcmp(s, "--solver-max-iter")) {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v || parse_int(eq + 1, 1, 1000000000L, &k)) {
        fprintf(stderr, "exp_compare: --solver-max-iter '%s': expected NAME=N with N >= 1\n", v);
        return 2;
      }
      if (a->nov == EXP_MAX_OVERRIDES) {
        fprintf(stderr, "exp_compare: more than %d --solver-max-iter options\n", EXP_MAX_OVERRIDES);
        return 2;
      }
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(eq - v), v);
      const slv_solver *sv = slv_solver_find(name);
      if (!sv) {
        fprintf(stderr, "exp_compare: --solver-max-iter '%s': no solver named '%s'\n", v, name);
        return 2;
      }
      a->ov[a->nov].name = sv->name;
      a->ov[a->nov].max_iter = (int)k;
      a->nov++;
    } else {
      fprintf(stderr, "exp_compare: unknown option '%s'\n", s);
      return 2;
    }
  }
  a->files = argv + i;
  a->nfiles = argc - i;
  if (!a->out || !*a->out) {
    fprintf(stderr, "exp_compare: --out CSV is required\n");
    return 2;
  }
  if (a->nfiles == 0) {
    fprintf(stderr, "exp_compare: no instance FILE given\n");
    return 2;
  }
  if (a->solvers) { /* every listed name must exist */
    const char *p = a->solvers;
    while (*p) {
      size_t len = strcspn(p, ",");
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)len, p);
      if (!slv_solver_find(name)) {
        fprintf(stderr, "exp_compare: --solvers: no solver named '%s'\n", name);
        return 2;
      }
      p += len;
      if (*p == ',') p++;
    }
  }
  return 0;
}

/* Is solver name in the comma-separated list (NULL list = every solver)? */
static int selected(const char *list, const char *name) {
  if (!list) return 1;
  size_t n = strlen(name);
  const char *p = list;
  while (*p) {
    size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, name, n)) return 1;
    p += len;
    if (*p == ',') p++;
  }
  return 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Median of t[0..k-1] (sorts t); mean of the two middle values for even k. */
static double median(double *t, int k) {
  qsort(t, (size_t)k, sizeof *t, cmp_double);
  return k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
}

/* Replaces characters that would break a CSV field. */
static void sanitize(char *s) {
  for (; *s; s++)
    if (*s == ',' || *s == '"' || *s == '\n' || *s == '\r') *s = '_';
}

/* Prints one number field (%.6e; nan / inf spelled as such). */
static void put_num(FILE *f, double v) {
  if (isnan(v))
    fputs(",nan", f);
  else if (isinf(v))
    fputs(v > 0 ? ",inf" : ",-inf", f);
  else
    fprintf(f, ",%.6e", v);
}

static void preamble(FILE *f, const exp_args *a, const slv_options *opt) {
  char date[64] = "unknown";
  time_t t = time(NULL);
  struct tm tm;
  if (gmtime_r(&t, &tm)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  struct utsname u;
  int have_u = uname(&u) == 0;

  /* The BLAS actually loaded: OpenBLAS exports openblas_get_config(). */
  const char *blas = "unknown (not OpenBLAS: no openblas_get_config symbol)";
  char *(*get_config)(void);
  *(void **)&get_config = dlsym(RTLD_DEFAULT, "openblas_get_config");
  if (get_config) blas = get_config();
  const char *nt = getenv("OPENBLAS_NUM_THREADS");

  fprintf(
      f,
      "# lcplab exp_compare: every registered solver on every instance (experiments/README.md)\n");
  fprintf(f, "# rev: %s\n", a->rev);
  fprintf(f, "# lcplab: %s\n", SLV_VERSION);
#ifdef __VERSION__
  fprintf(f, "# compiler: %s %s\n",
#ifdef __clang__
          "clang",
#elif defined(__GNUC__)
          "gcc",
#else
          "cc",
#endif
          __VERSION__);
#else
  fprintf(f, "# compiler: unknown\n");
#endif
  fprintf(f, "# cflags: %s\n", a->cflags);
  fprintf(f, "# blas: %s\n", blas);
  fprintf(f, "# OPENBLAS_NUM_THREADS: %s\n", nt ? nt : "(unset)");
  if (a->have_seed)
    fprintf(f, "# seed: %lu\n", a->seed);
  else
    fprintf(f, "# seed: (not given)\n");
  fprintf(f, "# tol: %g  max_iter: %d  repeat: %d (after one warm-up solve)\n", opt->tol,
          opt->max_iter, a->repeat);
  for (int k = 0; k < a->nov; k++)
    fprintf(f, "# max_iter override: %s=%d\n", a->ov[k].name, a->ov[k].max_iter);
  fprintf(f, "# timing: clock_gettime(CLOCK_MONOTONIC) around slv_solve only; median and min over "
             "repeats\n");
  fprintf(f, "# date: %s\n", date);
  if (have_u)
    fprintf(f, "# host: %s %s %s %s\n", u.nodename, u.sysname, u.release, u.machine);
  else
    fprintf(f, "# host: unknown\n");
  fprintf(f, "instance,kind,n,solver,status,iterations,time_median_s,time_min_s,"
             "res_nat_inf,res_rel,compl,infeas,dx_ref_inf,pivots\n");
  fflush(f);
}

/* Runs every selected solver on inst and writes its rows.  Returns 0, or -1
 * if out of memory (the rows written so far stay). */
static int run_instance(FILE *f, const exp_args *a, const slv_options *base,
                        const slv_instance *inst, int file_idx, int tty) {
  int n = inst->n;
  slv_problem p = slv_instance_problem(inst);
  char name[sizeof inst->name];
  snprintf(name, sizeof name, "%s", inst->name[0] ? inst->name : "unnamed");
  sanitize(name);
  char kind[sizeof inst->kind];
  snprintf(kind, sizeof kind, "%s", inst->kind);
  sanitize(kind);

  double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
  double *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
  double *t = malloc((size_t)a->repeat * sizeof *t);
  if (!x || !w || !t) {
    free(x);
    free(w);
    free(t);
    return -1;
  }
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    if (!selected(a->solvers, sv->name)) continue;
    char msg[256];
    fprintf(f, "%s,%s,%d,%s", name, kind, n, sv->name);
    if (slv_solver_accepts(sv, &p, msg, sizeof msg) != SLV_OK) {
      fputs(",unsupported,,,,,,,,,\n", f);
      fflush(f);
      if (tty)
        fprintf(stderr, "[%d/%d] %s %s: unsupported (%s)\n", file_idx + 1, a->nfiles, name,
                sv->name, msg);
      continue;
    }
    slv_options opt = *base;
    for (int k = 0; k < a->nov; k++)
      if (!strcmp(a->ov[k].name, sv->name)) opt.max_iter = a->ov[k].max_iter;

    slv_workspace *ws = NULL;
    slv_status st = slv_workspace_new(sv, n > 0 ? n : 1, &opt, &ws);
    if (st != SLV_OK) {
      fprintf(f, ",%s,,,,,,,,,\n", slv_status_str(st));
      fflush(f);
      if (tty)
        fprintf(stderr, "[%d/%d] %s %s: workspace: %s\n", file_idx + 1, a->nfiles, name, sv->name,
                slv_status_str(st));
      continue;
    }
    slv_result res;
    st = slv_solve(ws, &p, &opt, x, w, &res); /* warm-up: caches, page faults */
    for (int r = 0; st >= 0 && r < a->repeat; r++) {
      double t0 = now_s();
      st = slv_solve(ws, &p, &opt, x, w, &res);
      t[r] = now_s() - t0;
    }
    if (st < 0) { /* refused to run (invalid data, ...): no measurements */
      fprintf(f, ",%s,,,,,,,,,\n", slv_status_str(st));
      if (tty)
        fprintf(stderr, "[%d/%d] %s %s: %s: %s\n", file_idx + 1, a->nfiles, name, sv->name,
                slv_status_str(st), res.message);
    } else {
      double tmin = t[0];
      for (int r = 1; r < a->repeat; r++)
        if (t[r] < tmin) tmin = t[r];
      double tmed = median(t, a->repeat);
      fprintf(f, ",%s,%d,%.6e,%.6e", slv_status_str(st), res.iterations, tmed, tmin);
      put_num(f, res.res.res_nat_inf);
      put_num(f, res.res.res_rel);
      put_num(f, res.res.compl );
      put_num(f, res.res.infeas);
      if (inst->x_ref) {
        double d = 0.0;
        for (int i = 0; i < n; i++) {
          double e = fabs(x[i] - inst->x_ref[i]);
          if (!(e <= d)) d = e; /* keeps a NaN */
          if (isnan(d)) break;
        }
        put_num(f, d);
      } else {
        fputc(',', f);
      }
      fprintf(f, ",%d\n", res.pivots);
      if (tty)
        fprintf(stderr, "[%d/%d] %s %s: %s, %d it, %.3g s, res_rel %.2e\n", file_idx + 1, a->nfiles,
                name, sv->name, slv_status_str(st), res.iterations, tmed, res.res.res_rel);
    }
    fflush(f);
    slv_workspace_free(ws);
  }
  free(x);
  free(w);
  free(t);
  return 0;
}

int main(int argc, char **argv) {
  exp_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) {
    usage(stderr);
    return rc;
  }
  slv_options opt = slv_options_default();
  if (a.have_tol) opt.tol = a.tol;
  if (a.have_max_iter) opt.max_iter = a.max_iter;
  if (a.have_seed) opt.seed = a.seed;
  opt.warm_start = 0;
  opt.record_history = 0;
  char msg[256];
  if (slv_options_validate(&opt, msg, sizeof msg) != SLV_OK) {
    fprintf(stderr, "exp_compare: options: %s\n", msg);
    return 2;
  }

  /* Every file must at least be readable before anything is run. */
  for (int k = 0; k < a.nfiles; k++)
    if (access(a.files[k], R_OK) != 0) {
      fprintf(stderr, "exp_compare: %s: %s\n", a.files[k], strerror(errno));
      return 2;
    }

  FILE *f = fopen(a.out, a.force ? "w" : "wx");
  if (!f) {
    if (errno == EEXIST)
      fprintf(stderr, "exp_compare: --out %s: file exists (use --force to overwrite)\n", a.out);
    else
      fprintf(stderr, "exp_compare: --out %s: %s\n", a.out, strerror(errno));
    return 2;
  }
  preamble(f, &a, &opt);

  int tty = isatty(STDERR_FILENO);
  rc = 0;
  for (int k = 0; k < a.nfiles; k++) {
    slv_instance *inst = NULL;
    char err[512];
    slv_status st = slv_read(a.files[k], SLV_FMT_AUTO, &inst, err, sizeof err);
    if (st != SLV_OK) {
      fprintf(stderr, "exp_compare: %s (%s); skipped\n", err, slv_status_str(st));
      rc = 2;
      continue;
    }
    if (run_instance(f, &a, &opt, inst, k, tty)) {
      fprintf(stderr, "exp_compare: %s: out of memory for n = %d; skipped\n", a.files[k], inst->n);
      rc = 2;
    }
    slv_instance_free(inst);
  }
  if (fclose(f) != 0) {
    fprintf(stderr, "exp_compare: --out %s: %s\n", a.out, strerror(errno));
    rc = 2;
  }
  return rc;
}
