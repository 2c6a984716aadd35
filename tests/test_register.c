/* test_register.c -- solvers registered at run time (slv.h, "solvers added
 * at run time"; docs/plugins.md): the same checks, judge, stop conditions
 * and status codes as the built-in ones.
 *
 *   - an honest projected Jacobi written against the public interface only
 *     converges on a planted SPD LCP to the planted x, and agrees with pgs;
 *   - a solver that says converged on a wrong x (x = 0 where x* != 0) is
 *     overruled: stagnated, solver_status converged; and on the problem
 *     scaled by 1e-12 the verdict is the same (the scale-invariant test);
 *     the same liar returning the planted x is converged at both scales;
 *   - one that returns NaN and says converged: not_finite;
 *   - one returning a status slv.h does not have: stagnated, the message
 *     saying so;
 *   - a solver that loops until its poll says stop: interrupted by the
 *     cancel callback;
 *   - caps: a box problem is refused (unsupported) for a solver without
 *     SLV_CAP_BOX;
 *   - registration refused: a built-in's name, a registered name, a wrong
 *     ABI (both versions in the message), bad names, no solve function;
 *   - slv_solver_set_caps: the registrant's new caps are the descriptor's
 *     and slv_solve's (a box problem taken, then refused again); another
 *     origin, a built-in, an unknown name, unknown bits refused;
 *   - slv_solver_find / slv_solver_at / slv_solver_origin see it.
 */
#include "slv.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { N = 30 };

static double A[N * N], b[N], xstar[N];

static int suite_init(void) {
  tst_planted_spd(N, 0.02, 63, NULL, NULL, A, b, xstar);
  return 0;
}

static slv_problem view(const double *Am, const double *bv) {
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.A = Am;
  p.lda = N;
  p.b = bv;
  return p;
}

/* ---- solvers written against slv.h alone ------------------------------------------------------ */

typedef struct {
  double *xo;
} pj_state;
static double pj_buf[N];

static slv_status pj_init(void *st, int n_max, const slv_options *opt, void *ctx) {
  (void)opt;
  (void)ctx;
  if (n_max > N) return SLV_ERR_NOMEM;
  ((pj_state *)st)->xo = pj_buf;
  return SLV_OK;
}

/* projected Jacobi, theta = 1/2 (A diagonally dominant here), dense LCP rows */
static slv_status pj_solve(void *st, slv_call *c, const slv_problem *p, const slv_options *opt,
                           double *x, double *w, void *ctx) {
  (void)ctx;
  pj_state *s = st;
  int n = p->n;
  for (int it = 0;; it++) {
    slv_problem_w(p, x, w);
    slv_residuals r = slv_residual(p, x, w);
    slv_call_iteration(c, it, r.res_scaled);
    if (slv_residuals_met(&r, opt->tol, opt->norm)) return SLV_CONVERGED;
    if (it == opt->max_iter) return SLV_MAX_ITER;
    slv_status stop = slv_call_poll(c, (double)n * n);
    if (stop) return stop;
    memcpy(s->xo, x, (size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) {
      double v = s->xo[i] - 0.5 * w[i] / p->A[i + (size_t)i * p->lda];
      x[i] = v > 0 ? v : 0;
    }
  }
}

static int lie_mode; /* 0: x = 0, 1: x = NaN, 2: x = x*, 3: status 42, 4: loop until stopped */

static slv_status liar_solve(void *st, slv_call *c, const slv_problem *p, const slv_options *opt,
                             double *x, double *w, void *ctx) {
  (void)st;
  (void)opt;
  (void)w;
  double scale = ctx ? *(const double *)ctx : 1.0;
  for (int i = 0; i < p->n; i++) x[i] = lie_mode == 1 ? NAN : lie_mode == 2 ? xstar[i] / scale : 0;
  if (lie_mode == 3) return (slv_status)42;
  if (lie_mode == 4)
    for (int k = 0;; k++) {
      slv_call_iteration(c, k, 1.0);
      slv_status stop = slv_call_poll(c, 1e9);
      if (stop) return stop;
    }
  return SLV_CONVERGED;
}

static double liar_scale = 1.0;

static slv_solver_def def_of(const char *name,
                             slv_status (*solve)(void *, slv_call *, const slv_problem *,
                                                 const slv_options *, double *, double *, void *)) {
  slv_solver_def d;
  memset(&d, 0, sizeof d);
  d.abi = SLV_SOLVER_ABI;
  d.name = name;
  d.summary = "a test solver";
  d.solve = solve;
  return d;
}

static int registered_once;

static void register_ours(void) {
  if (registered_once++) return;
  char msg[256];
  slv_solver_def d = def_of("t_pj", pj_solve);
  d.state_size = sizeof(pj_state);
  d.init = pj_init;
  d.caps = SLV_CAP_NEEDS_POS_DIAG;
  CU_ASSERT_EQUAL_FATAL(slv_solver_register(&d, "/plugins/t_pj.so", msg, sizeof msg), SLV_OK);
  d = def_of("t_liar", liar_solve);
  d.ctx = &liar_scale;
  CU_ASSERT_EQUAL_FATAL(slv_solver_register(&d, NULL, msg, sizeof msg), SLV_OK);
}

static slv_status solve_with(const char *name, const slv_problem *p, slv_options *o, double *x,
                             slv_result *res) {
  const slv_solver *sv = slv_solver_find(name);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sv);
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(sv, N, o, &ws), SLV_OK);
  double w[N];
  slv_status st = slv_solve(ws, p, o, x, w, res);
  slv_workspace_free(ws);
  return st;
}

static void test_honest(void) {
  register_ours();
  slv_problem p = view(A, b);
  slv_options o = slv_options_default();
  o.max_iter = 5000;
  double x[N], xp[N];
  slv_result res, rp;
  CU_ASSERT_EQUAL(solve_with("t_pj", &p, &o, x, &res), SLV_CONVERGED);
  CU_ASSERT(res.iterations > 0);
  CU_ASSERT_STRING_EQUAL(res.method, "t_pj");
  TST_VEC_CLOSE(x, xstar, N, 1e-6, 1e-6);
  CU_ASSERT_EQUAL(solve_with("pgs", &p, &o, xp, &rp), SLV_CONVERGED);
  TST_VEC_CLOSE(x, xp, N, 1e-6, 1e-6);
}

static void test_liar_overruled(void) {
  register_ours();
  double As[N * N], bs[N];
  for (int k = 0; k < N * N; k++) As[k] = A[k] * 1e-12;
  for (int i = 0; i < N; i++) bs[i] = b[i] * 1e-12;
  slv_options o = slv_options_default();
  double x[N];
  slv_result res;
  int some = 0;
  for (int i = 0; i < N; i++) some += xstar[i] > 0;
  CU_ASSERT(some > 0); /* x = 0 is wrong */
  for (int k = 0; k < 2; k++) {
    slv_problem p = k ? view(As, bs) : view(A, b);
    lie_mode = 0;
    CU_ASSERT_EQUAL(solve_with("t_liar", &p, &o, x, &res), SLV_STAGNATED);
    CU_ASSERT_EQUAL(res.solver_status, SLV_CONVERGED);
    CU_ASSERT(res.res.res_scaled > o.tol);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "t_liar stopped on its own test"));
    lie_mode = 2; /* the planted x of A, b: the answer at both scales (x* does not scale) */
    CU_ASSERT_EQUAL(solve_with("t_liar", &p, &o, x, &res), SLV_CONVERGED);
    lie_mode = 1;
    CU_ASSERT_EQUAL(solve_with("t_liar", &p, &o, x, &res), SLV_NOT_FINITE);
    CU_ASSERT_EQUAL(res.solver_status, SLV_CONVERGED);
  }
}

static void test_unknown_status(void) {
  register_ours();
  slv_problem p = view(A, b);
  slv_options o = slv_options_default();
  double x[N];
  slv_result res;
  lie_mode = 3;
  CU_ASSERT_EQUAL(solve_with("t_liar", &p, &o, x, &res), SLV_STAGNATED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "returned status 42"));
}

static int cancel_after(void *ctx) { return ++*(int *)ctx >= 3; }

static void test_stopped(void) {
  register_ours();
  slv_problem p = view(A, b);
  slv_options o = slv_options_default();
  int calls = 0;
  o.cancel = cancel_after;
  o.cancel_ctx = &calls;
  double x[N];
  slv_result res;
  lie_mode = 4;
  CU_ASSERT_EQUAL(solve_with("t_liar", &p, &o, x, &res), SLV_INTERRUPTED);
  CU_ASSERT_EQUAL(calls, 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "interrupted"));
}

static void test_caps(void) {
  register_ours();
  double lo[N], hi[N];
  for (int i = 0; i < N; i++) lo[i] = -1, hi[i] = 1;
  slv_problem p = view(A, b);
  p.lo = lo;
  p.hi = hi;
  slv_options o = slv_options_default();
  double x[N];
  slv_result res;
  CU_ASSERT_EQUAL(solve_with("t_pj", &p, &o, x, &res), SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "t_pj solves only lo=0, hi=inf rows"));
}

/* slv_solver_set_caps: the registrant (its origin) sets its solver's caps,
 * which the descriptor found before sees and slv_solve checks; another
 * origin, a built-in, an unknown name and unknown bits are refused. */
static void test_set_caps(void) {
  register_ours();
  const slv_solver *s = slv_solver_find("t_pj");
  double lo[N], hi[N], x[N];
  for (int i = 0; i < N; i++) lo[i] = -1, hi[i] = 1;
  slv_problem p = view(A, b);
  p.lo = lo;
  p.hi = hi;
  slv_options o = slv_options_default();
  slv_result res;
  char msg[256];
  unsigned caps = SLV_CAP_BOX | SLV_CAP_NEEDS_POS_DIAG;
  CU_ASSERT_EQUAL(slv_solver_set_caps("t_pj", "elsewhere.so", caps, msg, sizeof msg),
                  SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "registered from /plugins/t_pj.so, not from elsewhere.so"));
  CU_ASSERT_EQUAL(s->caps, SLV_CAP_NEEDS_POS_DIAG);
  CU_ASSERT_EQUAL(slv_solver_set_caps("pgs", "", caps, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_EQUAL(slv_solver_set_caps("t_nobody", "", caps, msg, sizeof msg), SLV_ERR_INVALID);
  CU_ASSERT_EQUAL(slv_solver_set_caps("t_pj", "/plugins/t_pj.so", 1u << 20, msg, sizeof msg),
                  SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "has bits no SLV_CAP_* names"));
  CU_ASSERT_EQUAL(slv_solver_set_caps("t_pj", "/plugins/t_pj.so", caps, msg, sizeof msg), SLV_OK);
  CU_ASSERT_PTR_EQUAL(slv_solver_find("t_pj"), s);
  CU_ASSERT_EQUAL(s->caps, caps);
  /* the box problem test_caps saw refused is taken now: the solver runs
   * (projected on [0, inf), it does not meet the box's answer: not converged) */
  for (int i = 0; i < N; i++) x[i] = 0;
  slv_status st = solve_with("t_pj", &p, &o, x, &res);
  CU_ASSERT_NOT_EQUAL(st, SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NULL(strstr(res.message, "solves only lo=0"));
  CU_ASSERT_EQUAL(
      slv_solver_set_caps("t_pj", "/plugins/t_pj.so", SLV_CAP_NEEDS_POS_DIAG, msg, sizeof msg),
      SLV_OK);
  CU_ASSERT_EQUAL(solve_with("t_pj", &p, &o, x, &res), SLV_ERR_UNSUPPORTED);
}

static void expect_refused(const slv_solver_def *d, const char *part) {
  char msg[256];
  CU_ASSERT_EQUAL(slv_solver_register(d, "x", msg, sizeof msg), SLV_ERR_INVALID);
  if (!strstr(msg, part)) printf("\nmessage '%s' lacks '%s'\n", msg, part);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, part));
}

static void test_refused(void) {
  register_ours();
  int before = slv_solver_count();
  slv_solver_def d = def_of("pgs", liar_solve);
  expect_refused(&d, "'pgs' is taken by a built-in solver");
  d.name = "t_pj";
  expect_refused(&d, "'t_pj' is taken by a registered solver from /plugins/t_pj.so");
  d.name = "t_new";
  d.abi = SLV_SOLVER_ABI + 7;
  char both[96];
  snprintf(both, sizeof both, "built for solver ABI %d; this library has ABI %d",
           SLV_SOLVER_ABI + 7, SLV_SOLVER_ABI);
  expect_refused(&d, both);
  d.abi = SLV_SOLVER_ABI;
  d.name = "a b";
  expect_refused(&d, "solver name 'a b'");
  d.name = "all";
  expect_refused(&d, "solver name 'all'");
  d.name = "";
  expect_refused(&d, "solver name ''");
  d.name = "t_none";
  d.solve = NULL;
  expect_refused(&d, "no solve function");
  d.solve = liar_solve;
  d.caps = 1u << 20;
  expect_refused(&d, "has bits no SLV_CAP_* names");
  CU_ASSERT_EQUAL(slv_solver_count(), before);
}

static void test_lookup(void) {
  register_ours();
  const slv_solver *s = slv_solver_find("t_pj");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(slv_solver_origin(s), "/plugins/t_pj.so");
  CU_ASSERT_STRING_EQUAL(slv_solver_origin(slv_solver_find("t_liar")), "");
  CU_ASSERT_PTR_NULL(slv_solver_origin(slv_solver_find("pgs")));
  int n = slv_solver_count(), seen = 0;
  for (int i = 0; i < n; i++) seen += slv_solver_at(i) == s;
  CU_ASSERT_EQUAL(seen, 1);
  CU_ASSERT_PTR_EQUAL(slv_solver_at(n - 1), slv_solver_find("t_liar"));
  CU_ASSERT_PTR_NULL(slv_solver_at(n));
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("register", suite_init, NULL);
  CU_add_test(s, "an honest registered solver converges to x* and agrees with pgs", test_honest);
  CU_add_test(s, "converged on a wrong x is overruled, at any scale; NaN is not_finite",
              test_liar_overruled);
  CU_add_test(s, "a status slv.h does not have is stagnated", test_unknown_status);
  CU_add_test(s, "the cancel callback stops a registered solver", test_stopped);
  CU_add_test(s, "caps are checked for registered solvers", test_caps);
  CU_add_test(s, "the registrant sets its solver's caps; no one else", test_set_caps);
  CU_add_test(s, "registration refused: clashes, ABI, names, no solve", test_refused);
  CU_add_test(s, "find, at and origin see registered solvers", test_lookup);
  return tst_run();
}
