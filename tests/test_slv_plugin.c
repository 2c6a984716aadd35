/* test_slv_plugin.c -- a program linking libsolvers alone (its shared
 * library; no libexperiment) loads C plugins (slv.h, slv_plugin_load;
 * docs/plugins.md, "C plugins"), the test plugins that `make check` builds
 * in tests/plugins/.libs:
 *
 *   - my_jacobi loads: its solver is found, with the plugin's real path as
 *     its origin; it converges on a planted SPD LCP to the planted x and
 *     agrees with pgs; loading the file again (or through a list with
 *     empty entries) changes nothing; slv_plugin_count / slv_plugin_path
 *     list it once;
 *   - refused, with a message naming the plugin: another solver ABI (both
 *     numbers), no slv_plugin_init, a missing file, an empty path; a list
 *     stops at its first bad entry and names it.
 * SKIP (77) where no plugin was built (a build without shared libraries).
 */
#define _DEFAULT_SOURCE /* realpath */

#include "slv.h"
#include "tst_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 20 };

static double A[N * N], b[N], xstar[N];
static char dir[PATH_MAX];

static const char *plugin(const char *name) {
  static char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s.so", dir, name);
  return path;
}

static slv_status solve_with(const char *name, double *x) {
  const slv_solver *sv = slv_solver_find(name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sv);
  slv_problem p = slv_problem_empty();
  p.n = N, p.A = A, p.lda = N, p.b = b;
  slv_options o = slv_options_default();
  o.tol = 1e-12;
  o.max_iter = 100000;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, N, &o, &ws), SLV_OK);
  double w[N];
  slv_result res;
  slv_status st = slv_solve(ws, &p, &o, x, w, &res);
  slv_workspace_free(ws);
  return st;
}

static void test_loads_and_solves(void) {
  char err[1024] = "", real[PATH_MAX];
  CU_ASSERT_EQUAL(slv_plugin_count(), 0);
  CU_ASSERT_PTR_NULL(slv_solver_find("my_jacobi"));
  CU_ASSERT_EQUAL_FATAL(slv_plugin_load(plugin("my_jacobi"), err, sizeof err), SLV_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(plugin("my_jacobi"), real));
  CU_ASSERT_EQUAL(slv_plugin_count(), 1);
  CU_ASSERT_STRING_EQUAL(slv_plugin_path(0), real);
  CU_ASSERT_PTR_NULL(slv_plugin_path(1));
  const slv_solver *s = slv_solver_find("my_jacobi");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(slv_solver_origin(s), real);

  double x[N], xp[N];
  CU_ASSERT_EQUAL(solve_with("my_jacobi", x), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xstar, N, 1e-8, 1e-8);
  CU_ASSERT_EQUAL(solve_with("pgs", xp), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xp, N, 1e-8, 1e-8);

  int nsolvers = slv_solver_count();
  CU_ASSERT_EQUAL(slv_plugin_load(plugin("my_jacobi"), err, sizeof err), SLV_OK);
  char list[2 * PATH_MAX + 8];
  snprintf(list, sizeof list, "::%s:", plugin("my_jacobi"));
  CU_ASSERT_EQUAL(slv_plugins_load_list(list, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL(slv_plugins_load_list(NULL, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL(slv_plugin_count(), 1);
  CU_ASSERT_EQUAL(slv_solver_count(), nsolvers);
}

/* status SLV_ERR_INVALID and err holding each of the words */
static void refused(slv_status st, const char *err, const char *w1, const char *w2) {
  CU_ASSERT_EQUAL(st, SLV_ERR_INVALID);
  if (!strstr(err, w1) || (w2 && !strstr(err, w2))) printf("\n  message: %s\n", err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, w1));
  if (w2) CU_ASSERT_PTR_NOT_NULL(strstr(err, w2));
}

static void test_refused(void) {
  char err[1024] = "", abi[64], list[3 * PATH_MAX];
  int before = slv_plugin_count();
  snprintf(abi, sizeof abi, "ABI %d, this lcplab has solver ABI %d", SLV_SOLVER_ABI + 1,
           SLV_SOLVER_ABI);
  refused(slv_plugin_load(plugin("plug_abi"), err, sizeof err), err, "plug_abi.so", abi);
  refused(slv_plugin_load(plugin("plug_noinit"), err, sizeof err), err, "plug_noinit.so",
          "not an lcplab plugin");
  refused(slv_plugin_load("/nonexistent/plug.so", err, sizeof err), err,
          "plugin /nonexistent/plug.so: not found", NULL);
  refused(slv_plugin_load("", err, sizeof err), err, "an empty path", NULL);
  /* plugin() returns one static buffer: each path copied before the next
   * call (two calls in one argument list were evaluated in the compiler's
   * order: clang's made the list start with plug_abi) */
  char first[PATH_MAX + 64];
  snprintf(first, sizeof first, "%s", plugin("my_jacobi"));
  snprintf(list, sizeof list, "%s:/nonexistent/second.so:%s", first, plugin("plug_abi"));
  refused(slv_plugins_load_list(list, err, sizeof err), err, "/nonexistent/second.so: not found",
          NULL);
  CU_ASSERT_EQUAL(slv_plugin_count(), before);
}

static int suite_init(void) {
  tst_planted_spd(N, 0.02, 7, NULL, NULL, A, b, xstar);
  return 0;
}

int main(void) {
  const char *build = getenv("LCPLAB_BUILDDIR");
  snprintf(dir, sizeof dir, "%s/tests/plugins/.libs", build ? build : ".");
  FILE *f = fopen(plugin("my_jacobi"), "rb");
  if (!f) {
    printf("SKIP: no plugin modules in %s (a build without shared libraries)\n", dir);
    return 77;
  }
  fclose(f);
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("slv_plugin", suite_init, NULL);
  CU_add_test(s, "a program on libsolvers alone loads my_jacobi, solves with it, once",
              test_loads_and_solves);
  CU_add_test(s, "refused plugins and lists, named", test_refused);
  return tst_run();
}
