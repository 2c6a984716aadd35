#define _POSIX_C_SOURCE 200809L
/* tst_util.c -- see tst_util.h. */
#include "tst_util.h"

#include <CUnit/Basic.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static int close1(double a, double e, double atol, double rtol) {
  if (isnan(a) || isnan(e)) return 0;
  if (isinf(a) || isinf(e)) return a == e;
  return fabs(a - e) <= atol + rtol * fabs(e);
}

int tst_close(double actual, double expected, double atol, double rtol, const char *expr,
              const char *file, int line) {
  if (close1(actual, expected, atol, rtol)) return 1;
  fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (atol %g, rtol %g, diff %.3g)\n", file, line,
          expr, actual, expected, atol, rtol, fabs(actual - expected));
  return 0;
}

int tst_vec_close(const double *a, const double *e, int n, double atol, double rtol,
                  const char *expr, const char *file, int line) {
  int bad = 0, worst = -1;
  double wdiff = -1;
  for (int i = 0; i < n; i++) {
    if (!close1(a[i], e[i], atol, rtol)) {
      bad++;
      double d = isnan(a[i]) || isnan(e[i]) ? INFINITY : fabs(a[i] - e[i]);
      if (d > wdiff) {
        wdiff = d;
        worst = i;
      }
    }
  }
  if (!bad) return 1;
  fprintf(stderr, "%s:%d: %s: %d of %d entries differ; worst [%d] = %.17g, expected %.17g\n", file,
          line, expr, bad, n, worst, a[worst], e[worst]);
  return 0;
}

int tst_run(void) {
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures();
  unsigned failed_tests = CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return (failed || failed_tests) ? 1 : 0;
}

/* AddressSanitizer in this build: gcc defines __SANITIZE_ADDRESS__, clang
 * answers __has_feature(address_sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
#define TST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TST_ASAN 1
#endif
#endif
#ifndef TST_ASAN
#define TST_ASAN 0
#endif

/* 1 when the environment variable name is "1". */
static int env_is_1(const char *name) {
  const char *v = getenv(name);
  return v != NULL && strcmp(v, "1") == 0;
}

int tst_under_memcheck(void) { return env_is_1("LCPLAB_VALGRIND"); }

int tst_short_runs(void) {
  return TST_ASAN || env_is_1("LCPLAB_VALGRIND") || env_is_1("LCPLAB_SHORT_RUNS");
}

int tst_shared_path(const char *rel, char *buf, size_t len) {
  const char *root = getenv("LCPLAB_SHARED");
  if (!root || !*root) root = "../shared";
  snprintf(buf, len, "%s/%s", root, rel);
  struct stat st;
  char probe[4096];
  snprintf(probe, sizeof probe, "%s/datasets", root);
  return stat(probe, &st) == 0 && S_ISDIR(st.st_mode);
}

void tst_planted_spd(int n, double eps, unsigned long seed, const double *lo, const double *hi,
                     double *A, double *b, double *xstar) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  double *B = malloc((size_t)n * n * sizeof *B);
  for (size_t k = 0; k < (size_t)n * n; k++) B[k] = gsl_rng_uniform(r) * 2 - 1;
  /* A = B B^T / n + eps I, exactly symmetric: the lower triangle's sums
   * over k with k outermost (each entry's terms in increasing k, the bits
   * of a dot product; B read by columns), then / n, + eps, mirrored */
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) A[i + (size_t)j * n] = 0.0;
  for (int k = 0; k < n; k++) {
    const double *bk = B + (size_t)k * n;
    for (int j = 0; j < n; j++) {
      double *a = A + (size_t)j * n, bj = bk[j];
      for (int i = j; i < n; i++) a[i] += bk[i] * bj;
    }
  }
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      double s = A[i + (size_t)j * n] / n;
      if (i == j) s += eps;
      A[i + (size_t)j * n] = s;
      A[j + (size_t)i * n] = s;
    }
  free(B);
  double *w = malloc((size_t)n * sizeof *w);
  for (int i = 0; i < n; i++) {
    double l = lo ? lo[i] : 0.0, h = hi ? hi[i] : INFINITY;
    double u = gsl_rng_uniform(r);
    int fl = isfinite(l), fh = isfinite(h);
    if (fl && u < 1.0 / 3) {
      xstar[i] = l;
      w[i] = gsl_rng_uniform(r) + 0.1;
    } else if (fh && u > 2.0 / 3) {
      xstar[i] = h;
      w[i] = -(gsl_rng_uniform(r) + 0.1);
    } else {
      double a = fl ? l : (fh ? h - 2 : -1), c = fh ? h : a + 2;
      xstar[i] = a + (c - a) * (0.1 + 0.8 * gsl_rng_uniform(r));
      w[i] = 0;
    }
  }
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += A[i + (size_t)j * n] * xstar[j];
    b[i] = w[i] - s;
  }
  free(w);
  gsl_rng_free(r);
}

int tst_dense_to_csr(int n, const double *A, int *Ap, int *Aj, double *Ax) {
  int nz = 0;
  for (int i = 0; i < n; i++) {
    Ap[i] = nz;
    for (int j = 0; j < n; j++)
      if (A[i + (size_t)n * j] != 0.0) {
        Aj[nz] = j;
        Ax[nz++] = A[i + (size_t)n * j];
      }
  }
  Ap[n] = nz;
  return nz;
}

double tst_natres_dense(int n, const double *A, const double *b, const double *lo, const double *hi,
                        const double *x) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    long double w = b[i];
    for (int j = 0; j < n; j++) w += (long double)A[i + (size_t)j * n] * x[j];
    double l = lo ? lo[i] : 0.0, h = hi ? hi[i] : INFINITY;
    double r = fmax(x[i] - h, fmin((double)w, x[i] - l));
    if (isnan(r)) return NAN;
    if (fabs(r) > m) m = fabs(r);
  }
  return m;
}

double tst_scaled_row(double x, double ax, double b, double react, double lo, double hi,
                      double xs) {
  double s = react + fabs(b) + fabs(ax), w = b + ax;
  double wq = w == 0 ? 0 : w / s, a = x - hi == 0 ? 0 : (x - hi) / xs;
  double c = x - lo == 0 ? 0 : (x - lo) / xs;
  return fabs(fmax(a, fmin(wq, c)));
}

static double row_1norm(int n, const double *A, int i) {
  double a = 0;
  for (int j = 0; j < n; j++) a += fabs(A[i + (size_t)j * n]);
  return a;
}

double tst_reaction(int n, const double *A, int i, double xs, double xd) {
  double a = fabs(A[i + (size_t)i * n]);
  return (a != 0 ? a : row_1norm(n, A, i)) * fmin(xs, xd);
}

double tst_alone(int n, const double *A, const double *b, double lo, double hi, int i) {
  double a = A[i + (size_t)i * n];
  if (a == 0) {
    double r = row_1norm(n, A, i);
    return r > 0 ? fabs(b[i]) / r : 0;
  }
  return fabs(fmin(hi, fmax(lo, -b[i] / a)));
}

double tst_scaled_dense_findex(int n, const double *A, const double *b, const double *lo,
                               const double *hi, const int *findex, const double *mu,
                               const double *x) {
  double m = 0, xs = 0, xd = 0;
  for (int i = 0; i < n; i++) {
    int fr = findex && findex[i] >= 0;
    xs = fmax(xs, fabs(x[i]));
    xd = fmax(xd, tst_alone(n, A, b, fr || !lo ? (fr ? -INFINITY : 0.0) : lo[i],
                            fr || !hi ? INFINITY : hi[i], i));
  }
  for (int i = 0; i < n; i++) {
    long double ax = 0;
    for (int j = 0; j < n; j++) ax += (long double)A[i + (size_t)j * n] * x[j];
    double l = lo ? lo[i] : 0.0, h = hi ? hi[i] : INFINITY;
    if (findex && findex[i] >= 0) {
      h = mu[i] * fabs(x[findex[i]]);
      l = -h;
    }
    double r = tst_scaled_row(x[i], (double)ax, b[i], tst_reaction(n, A, i, xs, xd), l, h, xs);
    if (isnan(r)) return NAN;
    m = fmax(m, r);
  }
  return m;
}

double tst_scaled_dense(int n, const double *A, const double *b, const double *lo, const double *hi,
                        const double *x) {
  return tst_scaled_dense_findex(n, A, b, lo, hi, NULL, NULL, x);
}

int tst_tmpdir_make(char *dir, size_t len, const char *name) {
  int r = snprintf(dir, len, "/tmp/lcplab_%s_XXXXXX", name);
  if (r < 0 || (size_t)r >= len) return -1;
  return mkdtemp(dir) ? 0 : -1;
}

int tst_tmpdir_remove(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  char p[512];
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    remove(p);
  }
  closedir(d);
  rmdir(dir);
  return 0;
}

void tst_tmp_path(char *buf, size_t len, const char *dir, const char *name) {
  snprintf(buf, len, "%s/%s", dir, name);
}

int tst_count_and_fire(void *ctx) {
  tst_counter *c = ctx;
  c->calls++;
  return c->fire > 0 && c->calls >= c->fire;
}
