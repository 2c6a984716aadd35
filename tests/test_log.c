/* test_log.c -- the library's only output, the log callback with levels
 * (slv.h, "logging"):
 *   - one line per solve: info when converged, warning when it ran and
 *     failed, error when refused, with the solver's name and the message;
 *   - opt.log_level filters: nothing finer than it arrives;
 *   - solver internals at debug (pgs_wide's plan, on a factored problem);
 *   - the plain callback of 0.1 still gets the lines, without the level;
 *     with both set only the leveled one is called;
 *   - slv_log: nothing for options that fail validation (their pointers
 *     are never called), nothing without a callback; the level's range is
 *     validated; the level names.
 */
#include "slv.h"
#include "tst_fprob.h"
#include "tst_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int count[4]; /* lines per level */
  int plain;    /* lines through the plain callback */
  slv_log_level last_level;
  char last[256];
} log_record;

static void leveled(void *ctx, slv_log_level level, const char *line) {
  log_record *r = ctx;
  if (level >= SLV_LOG_ERROR && level <= SLV_LOG_DEBUG) r->count[level]++;
  r->last_level = level;
  snprintf(r->last, sizeof r->last, "%s", line);
}

static void plain(void *ctx, const char *line) {
  log_record *r = ctx;
  r->plain++;
  snprintf(r->last, sizeof r->last, "%s", line);
}

static int total(const log_record *r) {
  return r->count[0] + r->count[1] + r->count[2] + r->count[3];
}

/* the 2 x 2 LCP A = [2 1; 1 2], b = (-1, -1): x = (1/3, 1/3), w = 0 */
static const double A2[4] = { 2, 1, 1, 2 }, b2[2] = { -1, -1 };

static slv_problem lcp2(void) {
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A2;
  p.lda = 2;
  p.b = b2;
  return p;
}

static slv_status solve_with(const char *name, const slv_problem *p, const slv_options *o,
                             slv_result *res) {
  slv_workspace *ws = NULL;
  double x[8] = { 0 };
  if (slv_workspace_new(slv_solver_find(name), 8, o, &ws) != SLV_CONVERGED) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static void test_one_line_per_solve(void) {
  slv_problem p = lcp2();
  log_record r;
  memset(&r, 0, sizeof r);
  slv_options o = slv_options_default();
  o.log_level_fn = leveled;
  o.log_ctx = &r;
  slv_result res;
  /* converged: one info line naming the solver */
  CU_ASSERT_EQUAL(solve_with("lemke", &p, &o, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_INFO], 1);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_WARNING] + r.count[SLV_LOG_ERROR], 0);
  CU_ASSERT_EQUAL(r.last_level, SLV_LOG_INFO);
  CU_ASSERT(strncmp(r.last, "slv_solve(lemke): converged", 27) == 0);
  /* ran and failed: pgs, one sweep from 0 cannot meet 1e-8 here (the
   * first sweep gives x = (0.5, 0.25): w_1 = 0.25) */
  memset(&r, 0, sizeof r);
  o.max_iter = 1;
  CU_ASSERT_EQUAL(solve_with("pgs", &p, &o, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_WARNING], 1);
  CU_ASSERT_EQUAL(r.last_level, SLV_LOG_WARNING);
  CU_ASSERT(strstr(r.last, "slv_solve(pgs): max_iter after 1 iterations") == r.last);
  /* refused: lo > hi, an error line carrying res.message */
  memset(&r, 0, sizeof r);
  o.max_iter = 1000;
  double lo[2] = { 0, 2 }, hi[2] = { 1, 1 };
  p.lo = lo;
  p.hi = hi;
  CU_ASSERT_EQUAL(solve_with("pgs", &p, &o, &res), SLV_ERR_INVALID);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_ERROR], 1);
  CU_ASSERT_EQUAL(total(&r), 1);
  CU_ASSERT(strstr(r.last, "invalid_problem") != NULL);
  CU_ASSERT(res.message[0] && strstr(r.last, res.message) != NULL);
}

static void test_level_filter(void) {
  slv_problem p = lcp2();
  log_record r;
  memset(&r, 0, sizeof r);
  slv_options o = slv_options_default();
  o.log_level_fn = leveled;
  o.log_ctx = &r;
  o.log_level = SLV_LOG_WARNING;
  slv_result res;
  CU_ASSERT_EQUAL(solve_with("lemke", &p, &o, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(total(&r), 0); /* info is finer than warning */
  o.max_iter = 1;
  CU_ASSERT_EQUAL(solve_with("pgs", &p, &o, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_WARNING], 1);
  CU_ASSERT_EQUAL(total(&r), 1);
  o.log_level = SLV_LOG_ERROR;
  CU_ASSERT_EQUAL(solve_with("pgs", &p, &o, &res), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(total(&r), 1); /* nothing new */
}

static void test_debug_internals(void) {
  /* pgs_wide plans its lanes on a factored problem and says so at debug */
  fprob f;
  fprob_make(&f, 12, 6, 1);
  log_record r;
  memset(&r, 0, sizeof r);
  slv_options o = slv_options_default();
  o.log_level_fn = leveled;
  o.log_ctx = &r;
  o.max_iter = 5;
  slv_workspace *ws = NULL;
  double *x = calloc((size_t)f.n, sizeof *x);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), f.n, &o, &ws),
                        SLV_CONVERGED);
  slv_result res;
  slv_solve(ws, &f.p, &o, x, NULL, &res);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_DEBUG], 1);
  CU_ASSERT_EQUAL(total(&r), 2); /* the plan and the outcome */
  /* at info, the plan is filtered and the outcome stays */
  memset(&r, 0, sizeof r);
  o.log_level = SLV_LOG_INFO;
  slv_solve(ws, &f.p, &o, x, NULL, &res);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_DEBUG], 0);
  CU_ASSERT_EQUAL(total(&r), 1);
  slv_workspace_free(ws);
  free(x);
  fprob_free(&f);
}

static void test_plain_callback(void) {
  slv_problem p = lcp2();
  log_record r;
  memset(&r, 0, sizeof r);
  slv_options o = slv_options_default();
  o.log_fn = plain;
  o.log_ctx = &r;
  slv_result res;
  CU_ASSERT_EQUAL(solve_with("lemke", &p, &o, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r.plain, 1);
  CU_ASSERT(strncmp(r.last, "slv_solve(lemke): converged", 27) == 0);
  /* both set: the leveled one only */
  memset(&r, 0, sizeof r);
  o.log_level_fn = leveled;
  CU_ASSERT_EQUAL(solve_with("lemke", &p, &o, &res), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r.plain, 0);
  CU_ASSERT_EQUAL(r.count[SLV_LOG_INFO], 1);
}

static void must_not_be_called(void *ctx, slv_log_level level, const char *line) {
  (void)ctx;
  (void)level;
  (void)line;
  CU_FAIL("a callback of invalid options was called");
}

static void test_slv_log(void) {
  log_record r;
  memset(&r, 0, sizeof r);
  slv_options o = slv_options_default();
  o.log_level_fn = leveled;
  o.log_ctx = &r;
  slv_log(&o, SLV_LOG_WARNING, "step %d: %s", 7, "restored");
  CU_ASSERT_EQUAL(r.count[SLV_LOG_WARNING], 1);
  CU_ASSERT_STRING_EQUAL(r.last, "step 7: restored");
  slv_log(NULL, SLV_LOG_ERROR, "nothing");
  /* options not from slv_options_default: never called */
  slv_options bad;
  memset(&bad, 0, sizeof bad);
  bad.log_level_fn = must_not_be_called;
  bad.log_level = SLV_LOG_DEBUG;
  slv_log(&bad, SLV_LOG_ERROR, "nothing");
  /* a refused solve with such options logs nothing either */
  slv_problem p = lcp2();
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), 2, &o, &ws), SLV_CONVERGED);
  double x[2] = { 0, 0 };
  slv_result res;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &bad, x, NULL, &res), SLV_ERR_OPTIONS);
  slv_workspace_free(ws);
  /* the range of log_level, and the names */
  char msg[160] = "";
  o.log_level = 4;
  CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_ERR_OPTIONS);
  CU_ASSERT(strstr(msg, "log_level=4") != NULL);
  o.log_level = -1;
  CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_ERR_OPTIONS);
  CU_ASSERT_STRING_EQUAL(slv_log_level_str(SLV_LOG_ERROR), "error");
  CU_ASSERT_STRING_EQUAL(slv_log_level_str(SLV_LOG_WARNING), "warning");
  CU_ASSERT_STRING_EQUAL(slv_log_level_str(SLV_LOG_INFO), "info");
  CU_ASSERT_STRING_EQUAL(slv_log_level_str(SLV_LOG_DEBUG), "debug");
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("log", NULL, NULL);
  CU_add_test(s, "one line per solve: info, warning, error", test_one_line_per_solve);
  CU_add_test(s, "log_level filters", test_level_filter);
  CU_add_test(s, "solver internals at debug", test_debug_internals);
  CU_add_test(s, "the plain callback of 0.1", test_plain_callback);
  CU_add_test(s, "slv_log, invalid options, level names", test_slv_log);
  return tst_run();
}
