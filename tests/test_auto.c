/* test_auto.c -- the automatic solver (auto.c): for each kind of problem
 * it runs the solver its rule names (res.method), says why (res.choice),
 * and the answer is the planted one, judged by this test's own residual:
 *   - Coulomb cones (planted, dense)                 -> nsgs_newton
 *   - Coulomb cones, sparse CSR, n > 600, symmetric,
 *     3 blocks a contact (weakly coupled)            -> ipm
 *   - the same, condensed from a global problem
 *     (p.condensed)                                  -> nsgs_newton
 *   - Coulomb cones, dense, n > 600, symmetric,
 *     every contact coupled                          -> admm
 *     the same with ADMM stalled at once             -> ipm, from the start
 *   - the same two made nonsymmetric                 -> nsgs_newton, admm (its LU)
 *   - associated cones, symmetric A, n <= 600        -> admm
 *   - associated cones, symmetric A, n > 600         -> ipm
 *   - a dense symmetric LCP, n <= 300                -> dantzig
 *   - the same LCP in CSR                            -> pgs
 *   - a dense LCP with a nonsymmetric A, n <= 300    -> lemke (dantzig refuses)
 *   - the same with a zero diagonal entry            -> lemke (pgs would refuse)
 *   - a dense nonsymmetric LCP with n = 310 > 300    -> pgs
 *   - the zero-diagonal LCP in CSR (pgs refuses it)  -> a solver that accepts it
 *   - n = 310, 2x2 blocks [1 3; -3 1] (PGS diverges) -> pgs, then a fallback that
 *                                                       converges, named in res.choice
 *   - no candidate accepts the problem               -> SLV_ERR_UNSUPPORTED */
#include "slv.h"
#include "slv_internal.h"
#include "tst_cone.h"
#include "tst_util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* auto on p; admm_stall > 0 replaces the stall window auto gives ADMM. */
static slv_status run_auto_stall(const slv_problem *p, double tol, double *x, slv_result *res,
                                 int admm_stall) {
  slv_options o = slv_options_default();
  o.tol = tol;
  o.max_iter = 100000;
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("auto"), p->n, &o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  if (admm_stall > 0) slv_auto_set_admm_stall(ws->state, admm_stall);
  slv_status st = slv_solve(ws, p, &o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

static slv_status run_auto(const slv_problem *p, double tol, double *x, slv_result *res) {
  return run_auto_stall(p, tol, x, res, 0);
}

/* auto on a planted cone problem: the solver it runs (expect), its reason
 * (naming the law, and containing why_part if not NULL), x*. */
static void cone_case_why(slv_cone_law law, int nc, int sparse, const char *expect,
                          const char *why_part) {
  tst_cone_case P;
  tst_cone_case_plant(&P, nc, 3, 0.3, law, sparse, 51 + (unsigned long)nc);
  slv_problem p = tst_cone_case_view(&P, law, sparse);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_result res;
  slv_status st = run_auto(&p, 1e-10, x, &res);
  if (st != SLV_CONVERGED) fprintf(stderr, "auto: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, expect);
  CU_ASSERT(strlen(res.choice) > 10);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, law == SLV_CONE_COULOMB ? "Coulomb" : "associated"));
  if (why_part) CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, why_part));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x);
  tst_cone_case_free(&P);
}

static void cone_case(slv_cone_law law, int nc, int sparse, const char *expect) {
  cone_case_why(law, nc, sparse, expect, NULL);
}

/* The weakly coupled sparse plant marked as a condensed global problem
 * (p.condensed: every row in a cone): nsgs_newton, not the interior point,
 * and the reason says why; the answer is the planted one. */
static void test_condensed(void) {
  if (tst_under_memcheck()) return; /* a size threshold (46 s of wall there): as test_cones */
  tst_cone_case P;
  tst_cone_case_plant(&P, 211, 0, 0.3, SLV_CONE_COULOMB, 1, 51 + 210);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
  p.condensed = 1;
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_result res;
  slv_status st = run_auto(&p, 1e-10, x, &res);
  if (st != SLV_CONVERGED) fprintf(stderr, "auto: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "nsgs_newton");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, "condensed from a global problem"));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x);
  tst_cone_case_free(&P);
}

/* n = 633 either way.  The sparse plant (G G' with G on 3 diagonals: 9
 * nonzeros a row, 3 blocks a contact) is weakly coupled and symmetric: the
 * interior point.  The dense plant couples every contact to every other
 * (211 blocks a contact): ADMM first (below AUTO_IPM_COUPLED_MIN rows). */
static void test_cones(void) {
  cone_case(SLV_CONE_COULOMB, 12, 0, "nsgs_newton");
  cone_case(SLV_CONE_ASSOCIATED, 12, 0, "admm");
  /* the large cases are about auto's size thresholds: under memcheck
   * (131 s of wall there) the sanitizer and plain builds run them */
  if (tst_under_memcheck()) return;
  cone_case_why(SLV_CONE_COULOMB, 210, 1, "ipm", "interior point");
  cone_case_why(SLV_CONE_COULOMB, 210, 0, "admm", "211.0 blocks a contact");
  cone_case_why(SLV_CONE_ASSOCIATED, 210, 1, "ipm", "interior point");
}

/* n = 633, symmetric Coulomb, every contact coupled to 12 or more (auto's
 * ADMM rule) by the banded plant (CSR, 43 nonzeros a row; the dense
 * plant's 300 factorizations took 12 minutes under memcheck): with a stall
 * window of one iteration ADMM hands over at once, and ipm (A symmetric),
 * restarted from the caller's start, reaches the planted solution; the
 * message names both phases. */
static void test_admm_stalls(void) {
  if (tst_under_memcheck()) return; /* a size threshold (large: ADMM first), as test_cones */
  tst_cone_case P;
  tst_cone_case_plant(&P, 210, 3, 0.3, SLV_CONE_COULOMB, 2, 261);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_result res;
  slv_status st = run_auto_stall(&p, 1e-10, x, &res, 1);
  if (st != SLV_CONVERGED) fprintf(stderr, "auto: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "ipm");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "ADMM iterations"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "stalled"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, "ADMM"));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x);
  tst_cone_case_free(&P);
}

/* slv_poll_share: the deadline moved to the share of the time left, the
 * whole one kept; slv_poll_unshare puts it back and lifts the share's
 * stop, but not a stop at a whole deadline that passed; no deadline, no
 * share. */
static void test_poll_share(void) {
  slv_options o = slv_options_default();
  struct timespec t0, whole, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  slv_poll q;
  o.time_limit = 100;
  slv_poll_begin(&q, &o, &t0);
  struct timespec full = q.deadline;
  CU_ASSERT_EQUAL(slv_poll_share(&q, 0.25, &whole), 1);
  clock_gettime(CLOCK_MONOTONIC, &now);
  double to_share =
      (double)(q.deadline.tv_sec - now.tv_sec) + 1e-9 * (double)(q.deadline.tv_nsec - now.tv_nsec);
  CU_ASSERT(to_share > 24 && to_share <= 25); /* a quarter of the 100 s left */
  CU_ASSERT(whole.tv_sec == full.tv_sec && whole.tv_nsec == full.tv_nsec);
  q.stop = SLV_TIME_LIMIT; /* as a poll after the share's deadline sets it */
  q.every = 0;
  slv_poll_unshare(&q, &whole);
  CU_ASSERT_EQUAL(q.stop, SLV_CONVERGED);
  CU_ASSERT(q.every > 0);
  CU_ASSERT(q.deadline.tv_sec == full.tv_sec && q.deadline.tv_nsec == full.tv_nsec);
  /* a whole deadline that passed: no share, and its stop stays */
  struct timespec past = t0;
  past.tv_sec -= 10;
  o.time_limit = 1;
  slv_poll_begin(&q, &o, &past);
  CU_ASSERT_EQUAL(slv_poll_share(&q, 0.5, &whole), 0);
  CU_ASSERT_EQUAL(slv_poll_slow(&q), SLV_TIME_LIMIT);
  slv_poll_unshare(&q, &q.deadline);
  CU_ASSERT_EQUAL(q.stop, SLV_TIME_LIMIT);
  o.time_limit = 0; /* no limit */
  slv_poll_begin(&q, &o, &t0);
  CU_ASSERT_EQUAL(slv_poll_share(&q, 0.5, &whole), 0);
}

/* auto on the 210-cone Coulomb plant (ipm's rule) with the share's
 * threshold lowered to 0 rows (slv_auto_set_ipm_share) and the given
 * time limit and share (-1: by the coupling), nsgs's chunk (0: the
 * default) and ipm's iterations on weakly coupled contacts
 * (slv_auto_set_ipm_iters; 0: the default). */
static slv_status run_auto_share(const tst_cone_case *P, const slv_problem *p, double limit,
                                 double share, int chunk, int iters, int max_iter, double *x,
                                 slv_result *res) {
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  o.max_iter = max_iter;
  o.time_limit = limit;
  slv_workspace *ws = NULL;
  if (slv_workspace_new(slv_solver_find("auto"), P->n, &o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_auto_set_ipm_share(ws->state, 0, share, chunk);
  slv_auto_set_ipm_iters(ws->state, iters);
  slv_status st = slv_solve(ws, p, &o, x, NULL, res);
  slv_workspace_free(ws);
  return st;
}

/* ipm's share of a time limit on a large Coulomb problem (the threshold
 * lowered to this plant's 630 rows): with a share of 0 ipm's time ends at
 * its first poll, and nsgs, from ipm's iterate, reaches the planted answer
 * within the whole limit, the message naming both; without a time limit
 * there is no share and ipm solves it alone. */
static void test_ipm_shares_time(void) {
  if (tst_under_memcheck()) return; /* the 630-row solves: as test_cones' large cases */
  tst_cone_case P;
  tst_cone_case_plant(&P, 210, 3, 0.3, SLV_CONE_COULOMB, 1, 261);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_result res;
  slv_status st = run_auto_share(&P, &p, 600, 0, 0, 0, 100000, x, &res);
  if (st != SLV_CONVERGED) fprintf(stderr, "auto: %s (%s)\n", slv_status_str(st), res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "nsgs");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "then nsgs from its best iterate"));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  st = run_auto_share(&P, &p, 0, 0, 0, 0, 100000, x, &res);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "ipm");
  CU_ASSERT_PTR_NULL(strstr(res.message, "then nsgs"));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x);
  tst_cone_case_free(&P);
}

/* Without a test's share, ipm's share of the time limit follows the
 * contacts' coupling (auto.c, ipm_share_of): the plant's sparse G gives
 * about 2.3 blocks a contact, under auto's threshold of 12, so 30 iterations
 * within 30 %, and res.choice names both.  A tol no iterate meets keeps the hand-over to the
 * sweeps whatever the machine's speed (the whole limit, 0.3 s, ends them). */
static void test_ipm_share_by_coupling(void) {
  if (tst_under_memcheck()) return; /* the 630-row solves: as test_cones' large cases */
  tst_cone_case P;
  tst_cone_case_plant(&P, 210, 3, 0.3, SLV_CONE_COULOMB, 1, 261);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
  double *x = calloc((size_t)P.n, sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-300;
  o.max_iter = 100000000;
  o.time_limit = 0.3;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("auto"), P.n, &o, &ws), SLV_OK);
  slv_auto_set_ipm_share(ws->state, 0, -1, 0); /* the rows' threshold alone lowered */
  slv_result res;
  CU_ASSERT_EQUAL(slv_solve(ws, &p, &o, x, NULL, &res), SLV_TIME_LIMIT);
  CU_ASSERT_STRING_EQUAL(res.method, "nsgs"); /* the sweeps took over */
  CU_ASSERT_PTR_NOT_NULL(
      strstr(res.choice, "after 30 interior-point iterations or 30 % of it: 2."));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, " blocks a contact < 12)"));
  if (!strstr(res.choice, "after 30 interior")) fprintf(stderr, "auto: %s\n", res.choice);
  slv_workspace_free(ws);
  free(x);
  tst_cone_case_free(&P);
}

/* On weakly coupled contacts ipm's part ends by its work, not the clock
 * (auto.c, AUTO_IPM_ITERS_WEAK): capped at 3 interior-point iterations,
 * ipm hands over after exactly 3 and nsgs reaches the planted answer;
 * under a limit of 600 s and of 60 s (shares of 180 and 18 s, neither
 * binding) the answer is the same bits after the same iterations.  With
 * the cap out of reach ipm solves it alone. */
static void test_ipm_iters_weak(void) {
  if (tst_under_memcheck()) return; /* the 630-row solves: as test_cones' large cases */
  tst_cone_case P;
  tst_cone_case_plant(&P, 210, 3, 0.3, SLV_CONE_COULOMB, 1, 261);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
  size_t bytes = (size_t)P.n * sizeof(double);
  double *x = malloc(bytes), *y = malloc(bytes);
  slv_result res, rey;
  CU_ASSERT_EQUAL(run_auto_share(&P, &p, 600, -1, 0, 3, 100000, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "nsgs");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, ", 3 interior-point iterations"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "then nsgs from its best iterate"));
  if (!strstr(res.message, ", 3 interior-point")) fprintf(stderr, "auto: %s\n", res.message);
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  CU_ASSERT_EQUAL(run_auto_share(&P, &p, 60, -1, 0, 3, 100000, y, &rey), SLV_CONVERGED);
  CU_ASSERT_EQUAL(rey.iterations, res.iterations);
  CU_ASSERT(memcmp(x, y, bytes) == 0);
  CU_ASSERT_EQUAL(run_auto_share(&P, &p, 600, -1, 0, 1000, 100000, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "ipm");
  CU_ASSERT_PTR_NULL(strstr(res.message, "then nsgs"));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x), free(y);
  tst_cone_case_free(&P);
}

/* The measure of the test (slv_test_measure) at x on p. */
static double test_measure_at(const slv_problem *p, const double *x) {
  slv_options o = slv_options_default();
  slv_residuals r = slv_residual(p, x, NULL);
  return slv_test_measure(&o, &r);
}

/* nsgs on p with o from y (in/out). */
static void nsgs_from(const slv_problem *p, const slv_options *o, double *y) {
  slv_workspace *ws = NULL;
  slv_result r;
  if (slv_workspace_new(slv_solver_find("nsgs"), p->n, o, &ws) != SLV_OK) return;
  slv_solve(ws, p, o, y, NULL, &r);
  slv_workspace_free(ws);
}

/* nsgs after ipm's share in chunks of 5 sweeps (a share of 0: ipm's
 * iterate is the start, the projection of 0): the plant takes 18 sweeps,
 * so 4 chunks, each warm from the last one's end (from 0 each, 5 sweeps
 * would not converge); auto's x is that of nsgs run here in chunks of 5,
 * 5, 5 and 3 sweeps, the last converged, up to rounding (auto's sweeps
 * use the operator ipm packed), and each chunk's end has the smallest
 * measure so far. */
static void test_sweep_chunks(void) {
  if (tst_under_memcheck()) return;
  tst_cone_case P;
  tst_cone_case_plant(&P, 210, 3, 0.3, SLV_CONE_COULOMB, 1, 261);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 1);
  size_t bytes = (size_t)P.n * sizeof(double);
  double *x = malloc(bytes), *y = malloc(bytes);
  slv_result res;
  slv_status st = run_auto_share(&P, &p, 600, 0, 5, 0, 100000, x, &res);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "nsgs");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "in 4 chunks of up to 5"));
  slv_options o = slv_options_default();
  o.tol = 1e-10;
  double m_prev = INFINITY;
  int sweeps[4] = { 5, 5, 5, 5 };
  for (int k = 0; k < 4; k++) {
    o.max_iter = sweeps[k];
    o.warm_start = k > 0; /* the first from the projection of 0, as ipm's iterate */
    nsgs_from(&p, &o, y);
    double m = test_measure_at(&p, y);
    CU_ASSERT(m < m_prev); /* each chunk's end the best so far: each kept */
    m_prev = m;
  }
  CU_ASSERT(m_prev <= 1e-10);
  TST_VEC_CLOSE(x, y, P.n, 1e-8, 0); /* rounding: auto's operator is ipm's packed one */
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x), free(y);
  tst_cone_case_free(&P);
}

/* A 633-row plant made nonsymmetric (A(i,i+1) += 1e-3 where stored, b
 * moved so that x* stays the solution: b' = b - dA x*), in both plants:
 * the sparse one (weakly coupled) goes to nsgs_newton, the dense one
 * (every contact coupled) to ADMM's LU path, and the reason says so. */
static void nonsymmetric_case(int sparse, const char *expect, const char *why_part) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 210, 3, 0.3, SLV_CONE_COULOMB, sparse, 262);
  for (int i = 0; i + 1 < P.n; i++)
    if (P.A[i + (size_t)(i + 1) * P.n] != 0) {
      P.A[i + (size_t)(i + 1) * P.n] += 1e-3;
      P.b[i] -= 1e-3 * P.xs[i + 1];
      for (int k = P.Ap[i]; k < P.Ap[i + 1]; k++)
        if (P.Aj[k] == i + 1) P.Ax[k] += 1e-3;
    }
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, sparse);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_result res;
  CU_ASSERT_EQUAL(run_auto(&p, 1e-10, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, expect);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, why_part));
  TST_VEC_CLOSE(x, P.xs, P.n, 1e-7, 0);
  free(x);
  tst_cone_case_free(&P);
}

static void test_nonsymmetric(void) {
  nonsymmetric_case(1, "nsgs_newton", "fewer than 12 blocks");
  nonsymmetric_case(0, "admm", "LU (A not symmetric)");
}

static void test_lcp(void) {
  enum { N = 40 };
  double A[N * N], b[N], xs[N], x[N];
  tst_planted_spd(N, 0.1, 61, NULL, NULL, A, b, xs);
  slv_problem p = slv_problem_empty();
  p.n = N, p.A = A, p.lda = N, p.b = b;
  slv_result res;
  CU_ASSERT_EQUAL(run_auto(&p, 1e-10, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "dantzig");
  CU_ASSERT(tst_natres_dense(N, A, b, NULL, NULL, x) <= 1e-9);
  TST_VEC_CLOSE(x, xs, N, 1e-7, 0);
  /* the same problem in CSR: pgs */
  int Ap[N + 1], Aj[N * N];
  Ap[0] = 0;
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) Aj[i * N + j] = j;
    Ap[i + 1] = (i + 1) * N;
  }
  double Ax[N * N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) Ax[i * N + j] = A[i + j * N];
  slv_problem q = slv_problem_empty();
  q.n = N, q.storage = SLV_CSR, q.Ap = Ap, q.Aj = Aj, q.Ax = Ax, q.b = b;
  CU_ASSERT_EQUAL(run_auto(&q, 1e-10, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "pgs");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, "CSR"));
  TST_VEC_CLOSE(x, xs, N, 1e-7, 0);
  /* nonsymmetric: lemke, and the reason names dantzig's refusal */
  for (int i = 0; i < N; i++) A[i + ((i + 1) % N) * N] += 0.05;
  CU_ASSERT_EQUAL(run_auto(&p, 1e-10, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "lemke");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, "dantzig refuses"));
  CU_ASSERT(tst_natres_dense(N, A, b, NULL, NULL, x) <= 1e-9);
}

/* A = [0 1; -1 1] (not symmetric, a zero diagonal entry), b = (-1, 2):
 * w1 = x2 - 1, w2 = -x1 + x2 + 2.  By cases: x2 = 0 gives w1 = -1 < 0;
 * x1 = 0 < x2 needs w2 = 0, but w1 >= 0 gives x2 >= 1 and w2 >= 3; so
 * x1, x2 > 0, w = 0: the unique solution x = (3, 1). */
static void test_zero_diagonal(void) {
  double A[4] = { 0.0, -1.0, 1.0, 1.0 }, b[2] = { -1.0, 2.0 }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2, p.A = A, p.lda = 2, p.b = b;
  slv_result res;
  CU_ASSERT_EQUAL(run_auto(&p, 1e-12, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "lemke");
  CU_ASSERT_DOUBLE_EQUAL(x[0], 3.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(x[1], 1.0, 1e-12);
}

/* The same problem in CSR: pgs, nsgs and pjacobi refuse A(0,0) = 0 and the
 * pivoting solvers CSR, so auto must pick one that takes it (it ran pgs,
 * which ended not_finite at x = (inf, 0)). */
static void test_zero_diagonal_csr(void) {
  int Ap[3] = { 0, 2, 4 }, Aj[4] = { 0, 1, 0, 1 };
  double Ax[4] = { 0.0, 1.0, -1.0, 1.0 }, b[2] = { -1.0, 2.0 }, x[2];
  slv_problem p = slv_problem_empty();
  p.n = 2, p.storage = SLV_CSR, p.Ap = Ap, p.Aj = Aj, p.Ax = Ax, p.b = b;
  slv_result res;
  slv_status st = run_auto(&p, 1e-10, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "auto: %s by %s (%s; %s)\n", slv_status_str(st), res.method, res.choice,
            res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_NOT_EQUAL(res.method, "pgs");
  char msg[160];
  CU_ASSERT_EQUAL(slv_solver_accepts(slv_solver_find(res.method), &p, msg, sizeof msg), SLV_OK);
  CU_ASSERT_DOUBLE_EQUAL(x[0], 3.0, 1e-8);
  CU_ASSERT_DOUBLE_EQUAL(x[1], 1.0, 1e-8);
}

/* n = 310 > AUTO_PIVOT_MAX, dense, nonsymmetric: auto's rule gives pgs.
 * A is block-diagonal with the 2x2 blocks [1 3; -3 1] (positive definite:
 * x'Ax = |x|^2, so one solution; Gauss-Seidel's iteration matrix on a
 * block has spectral radius 9, so pgs runs away).  b = -A x* with x* > 0:
 * w = 0 at x*.  auto must fall back to a solver that converges, and say
 * in res.choice that pgs was tried and what it ended with. */
static void test_fallback(void) {
  /* a size threshold (dense nonsymmetric over 300 rows: pgs first), as test_cones */
  if (tst_under_memcheck()) return;
  enum { M = 310 };
  double *A = calloc((size_t)M * M, sizeof *A), *b = malloc(M * sizeof *b);
  double *xs = malloc(M * sizeof *xs), *x = malloc(M * sizeof *x);
  for (int i = 0; i < M; i++) xs[i] = 1.0 + 0.01 * i;
  for (int k = 0; k < M; k += 2) {
    A[k + (size_t)k * M] = A[k + 1 + (size_t)(k + 1) * M] = 1.0;
    A[k + (size_t)(k + 1) * M] = 3.0;
    A[k + 1 + (size_t)k * M] = -3.0;
  }
  for (int i = 0; i < M; i++) {
    b[i] = 0.0;
    for (int j = 0; j < M; j++) b[i] -= A[i + (size_t)j * M] * xs[j];
  }
  slv_problem p = slv_problem_empty();
  p.n = M, p.A = A, p.lda = M, p.b = b;
  slv_result res;
  slv_status st = run_auto(&p, 1e-10, x, &res);
  if (st != SLV_CONVERGED)
    fprintf(stderr, "auto: %s by %s (%s; %s)\n", slv_status_str(st), res.method, res.choice,
            res.message);
  CU_ASSERT_EQUAL(st, SLV_CONVERGED);
  CU_ASSERT_STRING_NOT_EQUAL(res.method, "pgs");
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, "pgs ended"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, res.method));
  CU_ASSERT(tst_natres_dense(M, A, b, NULL, NULL, x) <= 1e-8);
  TST_VEC_CLOSE(x, xs, M, 1e-6, 0);
  free(A), free(b), free(xs), free(x);
}

/* The cancel callback of test_fallback_stopped: counts its calls (c[0])
 * and asks to stop from call c[1] on. */
static int stop_at_call(void *ctx) {
  long *c = ctx;
  return ++c[0] >= c[1];
}

/* A stop from outside during a fallback ends auto there.  A planted
 * Coulomb problem with max_iter (and ppa_nsn's budgets) too small for any
 * solver: the chosen
 * solver and every fallback end max_iter (an undisturbed solve makes
 * `total` cancel calls; the iterate it keeps comes with its own solver's
 * message).  With the stop asked at each call k in turn, every run returns
 * interrupted (never the status of an earlier attempt), makes no call
 * after the k-th, tries no solver after the one it stopped, and hands back
 * a finite iterate; some k fall inside a fallback that has another after
 * it (the case this guards). */
static void test_fallback_stopped(void) {
  tst_cone_case P;
  tst_cone_case_plant(&P, 40, 0, 0.3, SLV_CONE_COULOMB, 0, 71);
  slv_problem p = tst_cone_case_view(&P, SLV_CONE_COULOMB, 0);
  double *x = malloc((size_t)P.n * sizeof *x);
  slv_options o = slv_options_default();
  o.tol = 1e-14;
  o.max_iter = 3;
  /* ppa_nsn, a fallback, gets 4 max_iter Newton iterations: one here */
  o.prox_outer_max = o.prox_inner_max = 1;
  long calls[2] = { 0, LONG_MAX };
  o.cancel = stop_at_call, o.cancel_ctx = calls;
  slv_workspace *ws = NULL;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("auto"), P.n, &o, &ws), SLV_OK);
  slv_result res;
  slv_status st = slv_solve(ws, &p, &o, x, NULL, &res);
  CU_ASSERT(st != SLV_CONVERGED && st != SLV_INTERRUPTED);
  if (st == SLV_CONVERGED) fprintf(stderr, "auto converged: %s\n", res.choice);
  /* the message is the kept iterate's solver's, not the last fallback's */
  CU_ASSERT_PTR_NOT_NULL(strstr(res.choice, "kept"));
  CU_ASSERT(strncmp(res.message, res.method, strlen(res.method)) == 0);
  long total = calls[0];
  int inner = 0; /* stops inside ipm, the fallback with admm after it */
  for (long k = 1; k <= total; k++) {
    calls[0] = 0, calls[1] = k;
    st = slv_solve(ws, &p, &o, x, NULL, &res);
    if (st != SLV_INTERRUPTED)
      fprintf(stderr, "auto stopped at call %ld of %ld: %s (%s)\n", k, total, slv_status_str(st),
              res.choice);
    CU_ASSERT_EQUAL(st, SLV_INTERRUPTED);
    CU_ASSERT_EQUAL(calls[0], k);
    const char *at = strstr(res.choice, "ended interrupted");
    if (at) CU_ASSERT_PTR_NULL(strstr(at + 1, "ended"));
    inner += strstr(res.choice, "ipm ended interrupted") != NULL;
    int finite = 1;
    for (int i = 0; i < P.n; i++) finite &= isfinite(x[i]) != 0;
    CU_ASSERT(finite);
  }
  CU_ASSERT(inner >= 1);
  slv_workspace_free(ws);
  free(x);
  tst_cone_case_free(&P);
}

/* A findex problem in CSR whose normal row has A(0,0) = 0: every solver
 * that takes findex rows either needs a positive diagonal (pgs, pjacobi) or
 * dense storage (lemke, dantzig): auto refuses it, naming the problem,
 * rather than running one that refuses it. */
static void test_nothing_accepts(void) {
  int Ap[3] = { 0, 2, 4 }, Aj[4] = { 0, 1, 0, 1 }, findex[2] = { -1, 0 };
  double Ax[4] = { 0.0, 1.0, 1.0, 2.0 }, b[2] = { -1.0, 0.5 }, mu[2] = { 0.0, 0.5 }, x[2];
  double lo[2] = { 0.0, 0.0 }, hi[2] = { INFINITY, 0.0 };
  slv_problem p = slv_problem_empty();
  p.n = 2, p.storage = SLV_CSR, p.Ap = Ap, p.Aj = Aj, p.Ax = Ax, p.b = b;
  p.lo = lo, p.hi = hi, p.findex = findex, p.mu = mu;
  slv_result res;
  slv_status st = run_auto(&p, 1e-10, x, &res);
  if (st != SLV_ERR_UNSUPPORTED)
    fprintf(stderr, "auto: %s by %s (%s; %s)\n", slv_status_str(st), res.method, res.choice,
            res.message);
  CU_ASSERT_EQUAL(st, SLV_ERR_UNSUPPORTED);
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "auto"));
  CU_ASSERT_PTR_NOT_NULL(strstr(res.message, "pgs"));
}

/* over AUTO_PIVOT_MAX rows the pivoting candidates are not allocated: pgs */
static void test_large_nonsymmetric(void) {
  enum { M = 310 };
  double *A = malloc((size_t)M * M * sizeof *A), *b = malloc(M * sizeof *b);
  double *xs = malloc(M * sizeof *xs), *x = malloc(M * sizeof *x);
  tst_planted_spd(M, 0.1, 62, NULL, NULL, A, b, xs);
  for (int i = 0; i < M; i++) A[i + ((i + 1) % M) * M] += 0.05;
  slv_problem p = slv_problem_empty();
  p.n = M, p.A = A, p.lda = M, p.b = b;
  slv_result res;
  CU_ASSERT_EQUAL(run_auto(&p, 1e-10, x, &res), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(res.method, "pgs");
  CU_ASSERT(tst_natres_dense(M, A, b, NULL, NULL, x) <= 1e-9);
  free(A), free(b), free(xs), free(x);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("auto", NULL, NULL);
  CU_add_test(
      s,
      "cones: Coulomb -> nsgs_newton (large symmetric: ipm, or admm when coupled), associated "
      "-> admm (large: ipm)",
      test_cones);
  CU_add_test(s, "large symmetric Coulomb: ADMM stalls -> ipm from the start", test_admm_stalls);
  CU_add_test(s, "slv_poll_share: a share of the time left, then the whole", test_poll_share);
  CU_add_test(s, "large Coulomb under a time limit: ipm's share, then nsgs", test_ipm_shares_time);
  CU_add_test(s, "ipm's share by the contacts' coupling: 30 iterations on weakly coupled ones",
              test_ipm_share_by_coupling);
  CU_add_test(s, "weakly coupled: ipm hands over after its iterations, the same bits at any limit",
              test_ipm_iters_weak);
  CU_add_test(s, "nsgs after ipm in chunks, warm from each other", test_sweep_chunks);
  CU_add_test(s, "large weakly coupled condensed global problem -> nsgs_newton", test_condensed);
  CU_add_test(s, "large nonsymmetric Coulomb: weakly coupled -> nsgs_newton, coupled -> admm (LU)",
              test_nonsymmetric);
  CU_add_test(s, "LCP: dense symmetric -> dantzig, CSR -> pgs, nonsymmetric -> lemke", test_lcp);
  CU_add_test(s, "LCP with a zero diagonal entry -> lemke, x by hand", test_zero_diagonal);
  CU_add_test(s, "dense nonsymmetric LCP over 300 rows -> pgs", test_large_nonsymmetric);
  CU_add_test(s, "CSR LCP with a zero diagonal entry -> a solver that accepts it",
              test_zero_diagonal_csr);
  CU_add_test(s, "pgs runs away -> a fallback that converges, named in choice", test_fallback);
  CU_add_test(s, "a stop from outside in a fallback: interrupted, no later fallback",
              test_fallback_stopped);
  CU_add_test(s, "no candidate accepts the problem -> unsupported, not a refused solver",
              test_nothing_accepts);
  return tst_run();
}
