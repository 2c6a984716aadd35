/* the C interface's costs: one solve, slv_sensitivity_new, one vjp (planted dense LCP) */
#include "slv.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static unsigned st = 12345u;
static double u01(void) {
  st = st * 1103515245u + 12345u;
  return (double)((st >> 8) % 100001) / 100000.0;
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  const char *solver = argv[2];
  double *B = malloc(sizeof(double) * n * n), *A = calloc((size_t)n * n, sizeof(double));
  double *x = calloc(n, 8), *w = calloc(n, 8), *b = calloc(n, 8), *xs = calloc(n, 8),
         *gx = calloc(n, 8), *gb = calloc(n, 8), *gA = malloc(sizeof(double) * n * n);
  for (long k = 0; k < (long)n * n; k++) B[k] = 2 * u01() - 1;
  for (int j = 0; j < n; j++)
    for (int k = 0; k < n; k++) {
      double bk = B[j + (long)k * n];
      for (int i = 0; i < n; i++) A[i + (long)j * n] += B[i + (long)k * n] * bk / n;
    }
  for (int i = 0; i < n; i++) {
    A[i + (long)i * n] += 0.5;
    double v = u01();
    if (v < 1.0 / 3) {
      xs[i] = 0;
      w[i] = 0.1 + u01();
    } else {
      xs[i] = 0.1 + u01();
      w[i] = 0;
    }
    gx[i] = 2 * u01() - 1;
  }
  for (int i = 0; i < n; i++) {
    double s = w[i];
    for (int j = 0; j < n; j++) s -= A[i + (long)j * n] * xs[j];
    b[i] = s;
  }
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.A = A;
  p.lda = n;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  slv_workspace *ws;
  slv_workspace_new(slv_solver_find(solver), n, &o, &ws);
  slv_result r;
  double best_solve = 1e9, best_new = 1e9, best_vjp = 1e9, best_vjpA = 1e9;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    slv_solve(ws, &p, &o, x, NULL, &r);
    double t1 = now();
    if (t1 - t0 < best_solve) best_solve = t1 - t0;
    slv_sensitivity *s;
    char msg[256];
    t0 = now();
    slv_status ss = slv_sensitivity_new(&p, x, o.tol, &s, msg, sizeof msg);
    t1 = now();
    if (ss) {
      printf("%s\n", msg);
      return 1;
    }
    if (t1 - t0 < best_new) best_new = t1 - t0;
    t0 = now();
    slv_sensitivity_vjp(s, n, gx, NULL, gb, NULL, NULL, NULL, msg, sizeof msg);
    t1 = now();
    if (t1 - t0 < best_vjp) best_vjp = t1 - t0;
    t0 = now();
    slv_sensitivity_vjp(s, n, gx, gA, gb, NULL, NULL, NULL, msg, sizeof msg);
    t1 = now();
    if (t1 - t0 < best_vjpA) best_vjpA = t1 - t0;
    slv_sensitivity_free(s);
  }
  printf("n=%d solver=%s status=%s solve_s=%.4g new_s=%.4g vjp_b_s=%.4g vjp_A_b_s=%.4g "
         "(new+vjp)/solve=%.3g vjp/solve=%.3g\n",
         n, solver, slv_status_str(r.status), best_solve, best_new, best_vjp, best_vjpA,
         (best_new + best_vjp) / best_solve, best_vjp / best_solve);
  return 0;
}
