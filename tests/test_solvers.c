/* test_solvers.c -- cross-solver agreement: every registered solver that
 * accepts a problem must solve it and agree with the planted solution and
 * with the other solvers (SPD A: the solution is unique).  Loops over the
 * registry, so a new solver is tested here without touching this file.  */
#include "slv.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 36 };

static void family(int kind, unsigned long seed) {
  /* 0: LCP, 1: box, 2: all free, 3: mixed LCP / box / free */
  double *A = malloc(sizeof(double) * N * N), b[N], xs[N], lo[N], hi[N];
  double xall[16][N];
  for (int i = 0; i < N; i++) {
    int k = kind == 3 ? i % 3 : kind;
    lo[i] = k == 1 ? -0.4 : (k == 2 ? -INFINITY : 0);
    hi[i] = k == 1 ? 0.6 : INFINITY;
  }
  tst_planted_spd(N, 0.5, seed, lo, hi, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = N; p.A = A; p.lda = N; p.b = b; p.lo = lo; p.hi = hi;
  slv_options o = slv_options_default();
  o.tol = 1e-11; o.max_iter = 100000;
  int nsolved = 0;
  for (int s = 0; s < slv_solver_count() && s < 16; s++) {
    const slv_solver *sv = slv_solver_at(s);
    char msg[160];
    if (slv_solver_accepts(sv, &p, msg, sizeof msg) != SLV_CONVERGED) continue;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, N, &o, &ws), SLV_CONVERGED);
    slv_result res;
    slv_status st = slv_solve(ws, &p, &o, xall[nsolved], NULL, &res);
    if (st != SLV_CONVERGED)
      fprintf(stderr, "%s on family %d: %s (%s)\n", sv->name, kind, slv_status_str(st), res.message);
    CU_ASSERT_EQUAL(st, SLV_CONVERGED);
    TST_VEC_CLOSE(xall[nsolved], xs, N, 1e-8, 0);
    for (int t = 0; t < nsolved; t++) TST_VEC_CLOSE(xall[nsolved], xall[t], N, 2e-8, 0);
    nsolved++;
    slv_workspace_free(ws);
  }
  /* who must have taken part: pgs and pjacobi everywhere, direct on kind 2 */
  CU_ASSERT(nsolved >= (kind == 2 ? 3 : 2));
  free(A);
}

/* Small problems (n = 12), where enum (n <= 16) takes part as the oracle.
 * SPD: every solver that accepts must agree with x* and with enum.
 * Non-symmetric P-matrix A = B B^T/n + eps I + (C - C^T)/sqrt(n) (positive
 * definite, so a P-matrix: unique solution): the solvers guaranteed on
 * P-matrices (table below) must solve it; the others may refuse (symmetric
 * only) or fail, but never claim convergence wrongly (the generic layer's
 * promise, checked against x* here). */
static const char *const p_matrix_solvers[] = {"lemke", "enum", NULL};

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
  p.n = M; p.A = A; p.lda = M; p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-11; o.max_iter = 100000;
  int took_part = 0, enum_ran = 0;
  for (int s = 0; s < slv_solver_count(); s++) {
    const slv_solver *sv = slv_solver_at(s);
    char msg[160];
    if (slv_solver_accepts(sv, &p, msg, sizeof msg) != SLV_CONVERGED) continue;
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, M, &o, &ws), SLV_CONVERGED);
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
  double A[4] = {2, 1, 1, 2}, b[2] = {-1, NAN}, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2; p.A = A; p.lda = 2; p.b = b;
  slv_options o = slv_options_default();
  for (int s = 0; s < slv_solver_count(); s++) {
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_at(s), 2, &o, &ws), SLV_CONVERGED);
    slv_result res;
    CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_ERR_INVALID);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "b[1]"));
    CU_ASSERT(isnan(res.res.res_rel));
    slv_workspace_free(ws);
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("cross-solver", NULL, NULL);
  CU_add_test(s, "LCP: all agree with x*", test_lcp);
  CU_add_test(s, "box: all agree with x*", test_box);
  CU_add_test(s, "free rows: all agree with x*", test_free);
  CU_add_test(s, "mixed rows: all agree with x*", test_mixed);
  CU_add_test(s, "small SPD: all agree with x* and enum", test_small_spd);
  CU_add_test(s, "small P-matrix: lemke and enum find x*", test_small_p_matrix);
  CU_add_test(s, "invalid data refused by every solver", test_every_solver_refuses_bad_input);
  return tst_run();
}
