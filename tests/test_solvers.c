/* test_solvers.c -- cross-solver agreement: every registered solver that
 * accepts a problem must solve it and agree with the planted solution and
 * with the other solvers (SPD A: the solution is unique).  Loops over the
 * whole registry (no cap on its size), so a new solver is tested here
 * without touching this file; the last test checks that every registered
 * solver solved at least one problem.  Also, for every solver: the history
 * (res_rel and its measured time per entry, nondecreasing, within the
 * solve's own duration) and result.method; and one problem, factored and
 * dense, solved by two threads at once with a workspace each, bit for bit
 * as the same solve alone (slv.h: the library only reads the problem). */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t, clock_gettime */
#include "slv.h"
#include "tst_fprob.h"
#include "tst_util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 36 };

/* Problems each registered solver converged on, by registry index. */
static int *solved;

static int suite_init(void) {
  solved = calloc((size_t)slv_solver_count() + 1, sizeof *solved);
  return solved ? 0 : 1;
}
static int suite_clean(void) {
  free(solved);
  return 0;
}

static void family(int kind, unsigned long seed) {
  /* 0: LCP, 1: box, 2: all free, 3: mixed LCP / box / free */
  double *A = malloc(sizeof(double) * N * N), b[N], xs[N], lo[N], hi[N];
  double(*xall)[N] = malloc((size_t)slv_solver_count() * sizeof *xall);
  for (int i = 0; i < N; i++) {
    int k = kind == 3 ? i % 3 : kind;
    lo[i] = k == 1 ? -0.4 : (k == 2 ? -INFINITY : 0);
    hi[i] = k == 1 ? 0.6 : INFINITY;
  }
  tst_planted_spd(N, 0.5, seed, lo, hi, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  p.lo = lo;
  p.hi = hi;
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 100000;
  int nsolved = 0;
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    char msg[160];
    if (slv_solver_accepts(sv, &p, msg, sizeof msg) != SLV_OK) continue;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, N, &o, &ws), SLV_OK);
    slv_result res;
    slv_status st = slv_solve(ws, &p, &o, xall[nsolved], NULL, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s on family %d: %s (%s)\n", sv->name, kind, slv_status_str(st),
              res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    solved[s] += st == SLV_CONVERGED;
    TST_VEC_CLOSE(xall[nsolved], xs, N, 1e-8, 0);
    for (int t = 0; t < nsolved; t++) TST_VEC_CLOSE(xall[nsolved], xall[t], N, 2e-8, 0);
    nsolved++;
    slv_workspace_free(ws);
  }
  /* who must have taken part: pgs and pjacobi everywhere, direct on kind 2 */
  CU_ASSERT(nsolved >= (kind == 2 ? 3 : 2));
  free(xall);
  free(A);
}

/* Small problems (n = 12), where enum (n <= 16) takes part as the oracle.
 * SPD: every solver that accepts must agree with x* and with enum.
 * Non-symmetric P-matrix A = B B^T/n + eps I + (C - C^T)/sqrt(n) (positive
 * definite, so a P-matrix: unique solution): the solvers guaranteed on
 * P-matrices (table below) must solve it; the others may refuse (symmetric
 * only) or fail, but never claim convergence wrongly (the generic layer's
 * promise, checked against x* here). */
static const char *const p_matrix_solvers[] = { "lemke", "enum", NULL };

static int guaranteed_on_p(const char *name) {
  for (int k = 0; p_matrix_solvers[k]; k++)
    if (!strcmp(p_matrix_solvers[k], name)) return 1;
  return 0;
}

static void small_family(int nonsym, unsigned long seed) {
  enum { M = 12 };
  double A[M * M], b[M], xs[M], x[M];
  tst_planted_spd(M, 0.2, seed, NULL, NULL, A, b, xs);
  if (nonsym) {
    /* add a skew part S and keep x* planted: b -= S x* */
    for (int j = 0; j < M; j++)
      for (int i = 0; i < j; i++) {
        double c = 0.6 * sin(1.0 + i * 7.0 + j * 3.0 + (double)seed) / sqrt((double)M);
        A[i + j * M] += c;
        A[j + i * M] -= c;
        b[i] -= c * xs[j];
        b[j] += c * xs[i];
      }
  }
  slv_problem p = slv_problem_empty();
  p.n = M;
  p.A = A;
  p.lda = M;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 100000;
  int took_part = 0, enum_ran = 0;
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    char msg[160];
    if (slv_solver_accepts(sv, &p, msg, sizeof msg) != SLV_OK) continue;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, M, &o, &ws), SLV_OK);
    slv_result res;
    slv_status st = slv_solve(ws, &p, &o, x, NULL, &res);
    slv_workspace_free(ws);
    int must = !nonsym || guaranteed_on_p(sv->name);
    if (must && st != SLV_CONVERGED)
      fprintf(stderr, "%s on small %s: %s (%s)\n", sv->name, nonsym ? "P-matrix" : "SPD",
              slv_status_str(st), res.message);
    if (must) CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    if (st == SLV_CONVERGED) {
      TST_VEC_CLOSE(x, xs, M, 1e-8, 0);
      took_part++;
      solved[s]++;
    }
    if (!strcmp(sv->name, "enum")) enum_ran = st == SLV_CONVERGED;
  }
  CU_ASSERT(enum_ran);
  CU_ASSERT(took_part >= (nonsym ? 2 : 4));
}

static void test_small_spd(void) { small_family(0, 201); }
static void test_small_p_matrix(void) {
  small_family(1, 202);
  small_family(1, 203);
}

static void test_lcp(void) { family(0, 101); }
static void test_box(void) { family(1, 102); }
static void test_free(void) { family(2, 103); }
static void test_mixed(void) { family(3, 104); }

static void test_every_solver_refuses_bad_input(void) {
  double A[4] = { 2, 1, 1, 2 }, b[2] = { -1, NAN }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A;
  p.lda = 2;
  p.b = b;
  slv_options o = slv_options_default();
  for (int s = 0; s < slv_solver_count(); s++) {
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_at(s), 2, &o, &ws), SLV_OK);
    slv_result res;
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "b[1]"));
    CU_ASSERT(isnan(res.res.res_rel));
    slv_workspace_free(ws);
  }
}

/* Seconds on CLOCK_MONOTONIC. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every solver that accepts a family-0 problem, with record_history: the
 * history's times are measured (>= 0, nondecreasing, within the duration
 * the test measures around slv_solve), one per value; result.method is
 * the solver's name, or "pgs" for pgs_wide and pgs_color on dense storage. */
static void test_history_and_method(void) {
  double *A = malloc(sizeof(double) * N * N), b[N], xs[N], x[N];
  tst_planted_spd(N, 0.5, 105, NULL, NULL, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = A;
  p.lda = N;
  p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-11;
  o.max_iter = 100000;
  o.record_history = 1;
  int recorded = 0;
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    if (slv_solver_accepts(sv, &p, NULL, 0) != SLV_OK) continue;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, N, &o, &ws), SLV_OK);
    slv_result res;
    double t0 = now();
    slv_status st = slv_solve(ws, &p, &o, x, NULL, &res);
    double dt = now() - t0;
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.method);
    if (strcmp(sv->name, "auto") == 0) { /* the solver it chose, and why */
      CU_ASSERT_PTR_NOT_NULL(slv_solver_find(res.method));
      CU_ASSERT(strcmp(res.method, "auto") != 0 && res.choice[0] != '\0');
    } else {
      int to_pgs = !strcmp(sv->name, "pgs_wide") || !strcmp(sv->name, "pgs_color") ||
                   !strcmp(sv->name, "pgs_part");
      CU_ASSERT_STRING_EQUAL(res.method, to_pgs ? "pgs" : sv->name);
    }
    CU_ASSERT(res.history_len <= res.history_cap);
    for (int k = 0; k < res.history_len; k++) {
      CU_ASSERT(res.history_time[k] >= 0 && res.history_time[k] <= dt);
      if (k > 0) CU_ASSERT(res.history_time[k] >= res.history_time[k - 1]);
      CU_ASSERT(isfinite(res.history[k]));
    }
    recorded += res.history_len > 1;
    slv_workspace_free(ws);
  }
  CU_ASSERT(recorded >= 5); /* the iterative solvers */
  free(A);
}

/* One solve of a shared problem, repeated, in a thread of its own. */
typedef struct {
  const slv_problem *p;
  const slv_solver *sv;
  pthread_barrier_t *start;
  double *x;
  slv_status st;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = 300;
  slv_workspace *ws = NULL;
  j->st = slv_workspace_new(j->sv, j->p->n, &o, &ws);
  pthread_barrier_wait(j->start); /* both threads solve at once */
  for (int r = 0; r < 4 && ws; r++) j->st = slv_solve(ws, j->p, &o, j->x, NULL, NULL);
  slv_workspace_free(ws);
  return NULL;
}

/* Two threads, one problem, a workspace each: each thread's x is the
 * sequential solve's, bit for bit (with the factored form's old writable
 * scratch in the problem, the threads overwrote each other's K^T x). */
static void shared_problem(const slv_problem *p, const char *name) {
  const slv_solver *sv = slv_solver_find(name);
  int n = p->n;
  double *xs = calloc((size_t)n, sizeof(double)), *x[2];
  job seq = { p, sv, NULL, xs, SLV_ERR_INVALID };
  pthread_barrier_t start;
  CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&start, NULL, 1), 0);
  seq.start = &start;
  run_job(&seq);
  pthread_barrier_destroy(&start);
  CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&start, NULL, 2), 0);
  pthread_t th[2];
  job jobs[2];
  for (int k = 0; k < 2; k++) {
    x[k] = calloc((size_t)n, sizeof(double));
    jobs[k] = (job){ p, sv, &start, x[k], SLV_ERR_INVALID };
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th[k], NULL, run_job, &jobs[k]), 0);
  }
  for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
  pthread_barrier_destroy(&start);
  CU_ASSERT(seq.st == SLV_CONVERGED || seq.st == SLV_MAX_ITER);
  for (int k = 0; k < 2; k++) {
    CU_ASSERT_EQUAL(jobs[k].st, seq.st);
    CU_ASSERT(memcmp(x[k], xs, (size_t)n * sizeof(double)) == 0);
    free(x[k]);
  }
  free(xs);
}

static void test_shared_problem(void) {
  fprob f;
  fprob_make(&f, 120, 40, 71);
  slv_problem d = fprob_dense(&f);
  shared_problem(&f.p, "pgs_wide");
  shared_problem(&f.p, "pgs_color");
  shared_problem(&f.p, "pgs");
  shared_problem(&d, "pgs");
  shared_problem(&d, "dantzig");
  fprob_free(&f);
}

/* After the tests above: every registered solver solved a problem. */
static void test_every_solver_took_part(void) {
  for (int s = 0; s < slv_solver_count(); s++) {
    if (!solved[s])
      fprintf(stderr, "%s solved no problem of test_solvers\n", slv_solver_at(s)->name);
    CU_ASSERT(solved[s] > 0);
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("cross-solver", suite_init, suite_clean);
  CU_add_test(s, "LCP: all agree with x*", test_lcp);
  CU_add_test(s, "box: all agree with x*", test_box);
  CU_add_test(s, "free rows: all agree with x*", test_free);
  CU_add_test(s, "mixed rows: all agree with x*", test_mixed);
  CU_add_test(s, "small SPD: all agree with x* and enum", test_small_spd);
  CU_add_test(s, "small P-matrix: lemke and enum find x*", test_small_p_matrix);
  CU_add_test(s, "invalid data refused by every solver", test_every_solver_refuses_bad_input);
  CU_add_test(s, "history: measured times; result.method", test_history_and_method);
  CU_add_test(s, "one problem, two threads at once: bit for bit", test_shared_problem);
  CU_add_test(s, "every registered solver solved a problem", test_every_solver_took_part);
  return tst_run();
}
