/* test_options.c -- the options by name (libsolvers/options.c, slv.h
 * "options by name") and the result of a refused solve:
 *   - the table: unique names, the .lcp format's ten first in the order of
 *     io.h's IO_OPT_* bits, and every row's range the words of
 *     slv_options_validate's message for a value outside it (so the table
 *     cannot drift from the judge);
 *   - slv_options_set on hand cases per type: integers within int, the
 *     unsigned seed, finite doubles, the bool, the choices by name and by
 *     number; refusals name the option and the text and leave the options
 *     as they were; unknown names and options without the cookie;
 *   - slv_options_get then slv_options_set gives back every field bit for
 *     bit;
 *   - a refused solve has no residuals: every measure NaN, res_contact_at
 *     -1 (slv_result_refuse, and slv_solve's own refusals).
 */
#include "slv.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_table(void) {
  static const char *const lcp_order[10] = { "max_iter",   "tol",       "norm",       "omega",
                                             "damping",    "pivot_tol", "warm_start", "check_every",
                                             "max_pivots", "seed" };
  int n = slv_option_count();
  CU_ASSERT(n >= 10);
  for (int k = 0; k < 10; k++) CU_ASSERT_STRING_EQUAL(slv_option_at(k)->name, lcp_order[k]);
  for (int i = 0; i < n; i++) {
    const slv_option_info *a = slv_option_at(i);
    CU_ASSERT(a->values && a->range && a->meaning && a->meaning[0]);
    CU_ASSERT_PTR_EQUAL(slv_option_find(a->name), a);
    for (int j = i + 1; j < n; j++) CU_ASSERT(strcmp(a->name, slv_option_at(j)->name) != 0);
  }
  CU_ASSERT_PTR_NULL(slv_option_at(n));
  CU_ASSERT_PTR_NULL(slv_option_at(-1));
  CU_ASSERT_PTR_NULL(slv_option_find("omgea"));
}

/* validate's message for o names the option and says the table's range. */
static void expect_range(const slv_options *o, const char *name) {
  char msg[200] = "", head[64];
  CU_ASSERT_EQUAL(slv_options_validate(o, msg, sizeof msg), SLV_ERR_OPTIONS);
  snprintf(head, sizeof head, "%s=", name);
  const slv_option_info *d = slv_option_find(name);
  CU_ASSERT(strncmp(msg, head, strlen(head)) == 0 && strstr(msg, d->range) != NULL);
  if (!strstr(msg, d->range)) printf("\n  %s: '%s' does not say '%s'", name, msg, d->range);
}

static void test_ranges_are_validates(void) {
  /* a text each option's type takes but its range does not */
  static const char *const bad[][2] = {
    { "max_iter", "0" },
    { "tol", "-1" },
    { "omega", "2.5" },
    { "damping", "-1" },
    { "pivot_tol", "1" },
    { "check_every", "0" },
    { "max_pivots", "-1" },
    { "threads", "0" },
    { "threads", "257" },
    { "time_limit", "-1" },
    /* ppa_nsn's: a proximal parameter <= 0 refused by name (issue 80) */
    { "prox_sigma", "0" },
    { "prox_sigma", "-5" },
    { "prox_nu", "0" },
    { "prox_nu", "2.5" },
    { "prox_grow", "1" },
    { "prox_inner_max", "0" },
    { "prox_outer_max", "-1" },
  };
  int covered = 0;
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    slv_options o = slv_options_default();
    CU_ASSERT_EQUAL(slv_options_set(&o, bad[k][0], bad[k][1], NULL, 0), SLV_OK);
    expect_range(&o, bad[k][0]);
  }
  /* the choices hold no out-of-range text: set the fields in C */
  slv_options o = slv_options_default();
  o.norm = 1;
  expect_range(&o, "norm");
  o = slv_options_default();
  o.simd = 3;
  expect_range(&o, "simd");
  /* every row is either judged above or says "any" */
  for (int i = 0; i < slv_option_count(); i++) {
    const char *name = slv_option_at(i)->name;
    int judged = !strcmp(name, "norm") || !strcmp(name, "simd");
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) judged |= !strcmp(name, bad[k][0]);
    CU_ASSERT(judged || strcmp(slv_option_at(i)->range, "any") == 0);
    covered += judged;
  }
  CU_ASSERT_EQUAL(covered, slv_option_count() - 2); /* warm_start and seed: any */
}

/* set must refuse text for name, naming both, and leave o as it was. */
static void refuse(const char *name, const char *text, const char *why) {
  slv_options o = slv_options_default(), before = o;
  char err[200] = "";
  CU_ASSERT_EQUAL(slv_options_set(&o, name, text, err, sizeof err), SLV_ERR_OPTIONS);
  CU_ASSERT(strstr(err, name) != NULL && strstr(err, why) != NULL);
  if (!strstr(err, why)) printf("\n  %s=%s: '%s' does not say '%s'", name, text, err, why);
  char a[64], b[64];
  slv_options_get(&o, name, a, sizeof a);
  slv_options_get(&before, name, b, sizeof b);
  CU_ASSERT_STRING_EQUAL(a, b);
}

static void test_set(void) {
  slv_options o = slv_options_default();
  CU_ASSERT(slv_options_set(&o, "max_iter", "77", NULL, 0) == SLV_OK && o.max_iter == 77);
  CU_ASSERT(slv_options_set(&o, "tol", "1e-12", NULL, 0) == SLV_OK && o.tol == 1e-12);
  CU_ASSERT(slv_options_set(&o, "omega", "0x1p-1", NULL, 0) == SLV_OK && o.omega == 0.5);
  CU_ASSERT(slv_options_set(&o, "seed", "18446744073709551615", NULL, 0) == SLV_OK &&
            o.seed == 18446744073709551615UL);
  CU_ASSERT(slv_options_set(&o, "norm", "2", NULL, 0) == SLV_OK && o.norm == SLV_NORM_2);
  CU_ASSERT(slv_options_set(&o, "norm", "inf", NULL, 0) == SLV_OK && o.norm == SLV_NORM_INF);
  CU_ASSERT(slv_options_set(&o, "norm", "2", NULL, 0) == SLV_OK);
  CU_ASSERT(slv_options_set(&o, "norm", "0", NULL, 0) == SLV_OK && o.norm == SLV_NORM_INF);
  CU_ASSERT(slv_options_set(&o, "simd", "off", NULL, 0) == SLV_OK && o.simd == SLV_SIMD_OFF);
  CU_ASSERT(slv_options_set(&o, "simd", "avx2", NULL, 0) == SLV_OK && o.simd == SLV_SIMD_AVX2);
  CU_ASSERT(slv_options_set(&o, "simd", "0", NULL, 0) == SLV_OK && o.simd == SLV_SIMD_AUTO);
  CU_ASSERT(slv_options_set(&o, "warm_start", "1", NULL, 0) == SLV_OK && o.warm_start == 1);
  CU_ASSERT(slv_options_set(&o, "threads", "3", NULL, 0) == SLV_OK && o.threads == 3);
  CU_ASSERT(slv_options_set(&o, "prox_sigma", "5", NULL, 0) == SLV_OK && o.prox_sigma == 5);
  CU_ASSERT(slv_options_set(&o, "prox_inner_max", "50", NULL, 0) == SLV_OK &&
            o.prox_inner_max == 50);
  CU_ASSERT_EQUAL(slv_options_validate(&o, NULL, 0), SLV_OK);
  refuse("max_iter", "2.5", "characters after the number");
  refuse("max_iter", "2147483648", "out of range"); /* INT_MAX + 1 */
  refuse("check_every", "-2147483649", "out of range");
  refuse("max_iter", " 3", "white space");
  refuse("seed", "-1", "out of range");
  refuse("tol", "nan", "NaN");
  refuse("tol", "inf", "infinite");
  refuse("omega", "1e999", "out of range");
  refuse("prox_sigma", "nan", "NaN"); /* the proximal parameter non-finite: by name */
  refuse("prox_sigma", "inf", "infinite");
  refuse("omega", "", "empty");
  refuse("norm", "1", "inf or 2");
  refuse("norm", "Inf", "inf or 2");
  refuse("simd", "on", "auto, off or avx2");
  refuse("warm_start", "2", "0 or 1");
  refuse("omgea", "1", "unknown option 'omgea' (options: max_iter, tol,");
  /* options not from slv_options_default */
  slv_options raw;
  memset(&raw, 0, sizeof raw);
  char err[120] = "";
  CU_ASSERT_EQUAL(slv_options_set(&raw, "tol", "1", err, sizeof err), SLV_ERR_OPTIONS);
  CU_ASSERT(strstr(err, "slv_options_default") != NULL);
  CU_ASSERT_EQUAL(slv_options_set(NULL, "tol", "1", NULL, 0), SLV_ERR_OPTIONS);
}

/* get, then set on the defaults: every field as it was, bit for bit. */
static void test_get_reads_back(void) {
  slv_options o = slv_options_default();
  o.max_iter = 123;
  o.tol = 0.1; /* 0.10000000000000001 */
  o.norm = SLV_NORM_2;
  o.omega = 1.0 / 3.0;
  o.damping = 5e-324;
  o.pivot_tol = 1e-300;
  o.warm_start = 1;
  o.check_every = 7;
  o.max_pivots = 2147483647;
  o.seed = 18446744073709551615UL;
  o.simd = SLV_SIMD_OFF;
  o.threads = 4;
  o.time_limit = 2.5;
  slv_options back = slv_options_default();
  char text[64];
  for (int i = 0; i < slv_option_count(); i++) {
    const char *name = slv_option_at(i)->name;
    CU_ASSERT_EQUAL(slv_options_get(&o, name, text, sizeof text), SLV_OK);
    CU_ASSERT_EQUAL(slv_options_set(&back, name, text, NULL, 0), SLV_OK);
  }
  CU_ASSERT(back.max_iter == o.max_iter && back.norm == o.norm && back.warm_start == 1 &&
            back.check_every == 7 && back.max_pivots == o.max_pivots && back.seed == o.seed &&
            back.simd == o.simd && back.threads == 4);
  CU_ASSERT(memcmp(&back.tol, &o.tol, sizeof o.tol) == 0);
  CU_ASSERT(memcmp(&back.omega, &o.omega, sizeof o.omega) == 0);
  CU_ASSERT(memcmp(&back.damping, &o.damping, sizeof o.damping) == 0);
  CU_ASSERT(memcmp(&back.pivot_tol, &o.pivot_tol, sizeof o.pivot_tol) == 0);
  CU_ASSERT(memcmp(&back.time_limit, &o.time_limit, sizeof o.time_limit) == 0);
  /* the texts themselves: what the .lcp writer has always written */
  CU_ASSERT(slv_options_get(&o, "tol", text, sizeof text) == SLV_OK &&
            strcmp(text, "0.10000000000000001") == 0);
  CU_ASSERT(slv_options_get(&o, "norm", text, sizeof text) == SLV_OK && strcmp(text, "2") == 0);
  o.norm = 1; /* no choice: the first, inf (0) */
  CU_ASSERT(slv_options_get(&o, "norm", text, sizeof text) == SLV_OK && strcmp(text, "0") == 0);
  o.warm_start = 5;
  CU_ASSERT(slv_options_get(&o, "warm_start", text, sizeof text) == SLV_OK &&
            strcmp(text, "1") == 0);
  CU_ASSERT_EQUAL(slv_options_get(&o, "seed", text, 4), SLV_ERR_OPTIONS); /* too small */
  CU_ASSERT_STRING_EQUAL(text, "");
  CU_ASSERT_EQUAL(slv_options_get(&o, "nope", text, sizeof text), SLV_ERR_OPTIONS);
}

/* Every measure of a refused result NaN, res_contact_at -1. */
static void expect_no_residuals(const slv_result *r) {
  const slv_residuals *m = &r->res;
  const double v[] = { m->res_nat_inf,
                       m->res_rel,
                       m->res_rel_2,
                       m->compl,
                       m->infeas,
                       m->b_inf,
                       m->merit_fclib,
                       m->res_scaled,
                       m->siconos_err,
                       m->err_siconos,
                       m->res_rel_1q,
                       m->res_contact,
                       m->res_global,
                       m->contact.signorini,
                       m->contact.conic_compl,
                       m->contact.ncp_compl,
                       m->contact.dual_feas,
                       m->contact.primal_feas,
                       m->contact.mdp_gap,
                       r->solver_residual };
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
    CU_ASSERT(isnan(v[k]));
    if (!isnan(v[k])) printf("\n  measure %zu of a refused solve is %g", k, v[k]);
  }
  CU_ASSERT_EQUAL(m->res_contact_at, -1);
  CU_ASSERT(r->status < 0 && r->message[0] != '\0');
}

static void test_refused_result(void) {
  slv_result r;
  memset(&r, 0, sizeof r);
  snprintf(r.message, sizeof r.message, "kept");
  r.iterations = 3;
  slv_result_refuse(&r, SLV_ERR_INVALID);
  expect_no_residuals(&r);
  CU_ASSERT(r.status == SLV_ERR_INVALID && r.iterations == 3 && !strcmp(r.message, "kept"));
  slv_result_refuse(NULL, SLV_ERR_INVALID); /* nothing to fill */
  /* slv_solve's refusals: options out of range, a capability, a bad warm start */
  double A[4] = { 2, 0, 1, 2 }, b[2] = { -1, -1 }, x[2] = { 0, 0 };
  slv_problem p = slv_problem_empty();
  p.n = 2;
  p.A = A;
  p.lda = 2;
  p.b = b;
  const slv_solver *dantzig = slv_solver_find("dantzig"), *pgs = slv_solver_find("pgs");
  slv_options o = slv_options_default();
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(dantzig, 2, &o, &ws), SLV_OK);
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r), SLV_ERR_UNSUPPORTED); /* A not symmetric */
  expect_no_residuals(&r);
  slv_workspace_free(ws);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(pgs, 2, &o, &ws), SLV_OK);
  o.max_iter = 0;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r), SLV_ERR_OPTIONS);
  expect_no_residuals(&r);
  o = slv_options_default();
  o.warm_start = 1;
  x[1] = NAN;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &r), SLV_ERR_INVALID);
  expect_no_residuals(&r);
  slv_workspace_free(ws);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("options by name", NULL, NULL);
  CU_add_test(s, "the table", test_table);
  CU_add_test(s, "the table's ranges are validate's", test_ranges_are_validates);
  CU_add_test(s, "slv_options_set: hand cases", test_set);
  CU_add_test(s, "slv_options_get reads back", test_get_reads_back);
  CU_add_test(s, "a refused solve has no residuals", test_refused_result);
  return tst_run();
}
