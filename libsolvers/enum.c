/* enum.c -- exhaustive enumeration of the active sets: a slow, exact oracle
 * for small boxed LCPs (the reference the other solvers are tested against).
 *
 * Problem: w = A x + b;  lo <= x <= hi;  x_i = lo_i => w_i >= 0;
 * x_i = hi_i => w_i <= 0;  lo_i < x_i < hi_i => w_i = 0  (slv.h).
 * No findex rows (SLV_CAP_FINDEX is not set: refused by the generic layer),
 * no cones.  Dense or CSR storage (the operator copies A into the
 * workspace, dense: slv_op_to_dense).
 *
 * Method ([cottle1992]; docs/solvers.md, "Enumeration"): every solution
 * lies in one "complementary cone": each row is either strictly inside its bounds (basic: w_i = 0,
 * x_i unknown) or at one of its bounds (non-basic: x_i = lo_i or hi_i known,
 * w_i only sign-constrained).  Row kinds and their states:
 *     free   lo = -inf, hi = +inf     1 state: basic
 *     fixed  lo = hi                   1 state: x = lo, any w (the natural
 *                                      map mid(0, w, 0) is 0 for every w)
 *     lower  lo finite, hi = +inf      2 states: at lo (w >= 0) | basic
 *     upper  lo = -inf, hi finite      2 states: at hi (w <= 0) | basic
 *     box    both finite, lo < hi      3 states: at lo | basic | at hi
 * so there are 2^(#lower + #upper) * 3^(#box) cases.  For a case with basic
 * set B and non-basic set N (x_N at its bounds) the basic unknowns solve
 *     A_BB x_B = -(b_B + A_BN x_N)                                      (1)
 * (LAPACKE dgetrf_work/dgetrs_work, LU with partial pivoting, on a copy in
 * the workspace; one factorization per B serves all 2^(#box rows in N)
 * choices of lo/hi for N).  The case is a solution iff x_B lies within its
 * bounds and w_N = A_N. x + b has the signs above.  Both tests are made at
 * once on the natural-map residual r = mid(x - hi, w, x - lo) of the
 * candidate (unclipped x_B, w recomputed from A, b and x):
 *
 *   accept iff res_scaled <= tau = 1e3 n eps
 *
 * (res_scaled: the library's scale-invariant measure, each row's natural
 * map with its x side over ||x||_inf and its w side over |b_i| + |(A x)_i|,
 * docs/convergence.md), i.e. the candidate solves the problem up to the
 * rounding of (1) and of the product A x (a c n eps scale, the usual bound
 * on a direct method's rounding), whatever the problem's scale.  A basis whose LU has a pivot |U_kk| <=
 * opt->pivot_tol * max|A_ij| is singular and skipped (all of its lo/hi
 * choices).  If no case passes tau, the case with the smallest
 * res_scaled is taken when that is <= opt->tol
 * (an ill-conditioned A_BB: accurate to the user's tolerance, not to
 * rounding); otherwise there is no solution.
 *
 * Order (documented because a non-P matrix may have several solutions, and
 * the one returned is the FIRST accepted in this order): by increasing number
 * k of non-free rows that are basic (strictly inside their bounds), k = 0, 1,
 * ..., #lower+#upper+#box; for each k the basic sets in lexicographic order of
 * their row indices; for each basic set the box rows at a bound take their
 * lo/hi choices as a binary counter, least row = least significant bit, 0 =
 * at lo (so all-at-lo first).  For a standard LCP this returns the solution
 * with the smallest support {i : x_i > 0}, ties broken lexicographically
 * (A = [[1,1],[1,1]], b = (-1,-1), whose solutions are x1 + x2 = 1, x >= 0,
 * gives x = (1, 0)).  Free rows are always basic.  The initial x (warm
 * start) is not used; opt->max_iter does not limit the enumeration.
 *
 * The accepted case is refined: two steps of iterative refinement on its
 * basis, d = A_BB^-1 (-(b_B + A_B. x)) with the residual accumulated in long
 * double, x_B += d; then basic rows are clipped into [lo, hi] (they can be
 * outside by rounding only), so res_rel reaches ~1e-15 on well-conditioned
 * bases.
 *
 * Limits: n <= 16 (descriptor max_n: larger n is refused by the generic
 * layer), and solve refuses (SLV_ERR_UNSUPPORTED, with the count) problems
 * with more than ENUM_MAX_CASES = 2^18 = 262144 cases, e.g. 16 lower rows
 * (2^16) pass, 16 box rows (3^16 = 43 046 721) do not; 2^18 cases of size
 * <= 16 take about a second.
 *
 * Result: x (refined, clipped), w = A x + b; res->iterations = cases
 * examined; res->pivots = bases factorized; res->solver_residual = ||r||_inf
 * of the returned x.
 * Statuses: SLV_CONVERGED; SLV_NO_SOLUTION (every case examined, every
 * basis nonsingular, none within tolerance: a proof, up to rounding, that no
 * solution exists); SLV_SINGULAR_PIVOT (no case accepted, but some bases
 * were singular and skipped, so a solution on a singular basis is not
 * excluded); SLV_ERR_UNSUPPORTED (too many cases); SLV_TIME_LIMIT,
 * SLV_INTERRUPTED (polled before each basic set: the closest case so far).
 */
#include "slv_internal.h"

#include <float.h>
#include <limits.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

enum { ENUM_MAX_N = 16 };
#define ENUM_MAX_CASES 262144L /* 2^18: refuse larger enumerations */
#define ENUM_TOL_C     1e3     /* tau = ENUM_TOL_C * n * eps * scale */

enum { K_FREE, K_FIXED, K_LOWER, K_UPPER, K_BOX }; /* row kinds */
enum { S_AT_LO, S_BASIC, S_AT_HI };                /* row states */

typedef struct {
  int m;            /* capacity: min(n_max, ENUM_MAX_N) */
  double *D;        /* m x m dense copy of A (ld = n) */
  double *F;        /* m x m LU of A_BB (ld = nb) */
  lapack_int *ipiv; /* m */
  double *lo, *hi;  /* m: the bounds with the NULL defaults */
  double *x, *w;    /* m: candidate */
  double *rhs;      /* m: right-hand side / correction of (1) */
  int *kind;        /* m: K_* */
  int *state;       /* m: S_* of the current case */
  int *best;        /* m: states of the smallest-residual case */
  int *var;         /* m: rows with a choice (lower, upper, box) */
  int *comb;        /* m: positions in var of the basic ones */
  int *B;           /* m: basic rows, increasing */
  int *bo;          /* m: box rows at a bound in the current case */
} enum_state;

static void enum_free(void *st) {
  enum_state *s = st;
  free(s->D);
  free(s->F);
  free(s->ipiv);
  free(s->lo);
  free(s->hi);
  free(s->x);
  free(s->w);
  free(s->rhs);
  free(s->kind);
  free(s->state);
  free(s->best);
  free(s->var);
  free(s->comb);
  free(s->B);
  free(s->bo);
  memset(s, 0, sizeof *s);
}

static slv_status enum_init(void *st, int n_max, const slv_options *opt) {
  (void)opt;
  enum_state *s = st;
  /* the generic layer refuses n > max_n before solve: no need for more */
  int m = n_max < ENUM_MAX_N ? n_max : ENUM_MAX_N;
  size_t mm = (size_t)(m > 0 ? m : 1);
  s->m = m;
  s->D = malloc(mm * mm * sizeof *s->D);
  s->F = malloc(mm * mm * sizeof *s->F);
  s->ipiv = malloc(mm * sizeof *s->ipiv);
  s->lo = malloc(mm * sizeof *s->lo);
  s->hi = malloc(mm * sizeof *s->hi);
  s->x = malloc(mm * sizeof *s->x);
  s->w = malloc(mm * sizeof *s->w);
  s->rhs = malloc(mm * sizeof *s->rhs);
  s->kind = malloc(mm * sizeof *s->kind);
  s->state = malloc(mm * sizeof *s->state);
  s->best = malloc(mm * sizeof *s->best);
  s->var = malloc(mm * sizeof *s->var);
  s->comb = malloc(mm * sizeof *s->comb);
  s->B = malloc(mm * sizeof *s->B);
  s->bo = malloc(mm * sizeof *s->bo);
  if (!s->D || !s->F || !s->ipiv || !s->lo || !s->hi || !s->x || !s->w || !s->rhs || !s->kind ||
      !s->state || !s->best || !s->var || !s->comb || !s->B || !s->bo) {
    enum_free(s);
    return SLV_ERR_NOMEM;
  }
  return SLV_OK;
}

/* D = A (n x n, ld n), dense or CSR; returns max |A_ij|. */
static double load(const slv_op *op, double *D) {
  int n = op->n;
  double amax = 0;
  slv_op_to_dense(op, D, n);
  for (size_t k = 0; k < (size_t)n * n; k++) amax = fmax(amax, fabs(D[k]));
  return amax;
}

/* The basic rows of s->state into s->B (increasing); returns their count. */
static int basis(enum_state *s, int n) {
  int nb = 0;
  for (int i = 0; i < n; i++)
    if (s->state[i] == S_BASIC) s->B[nb++] = i;
  return nb;
}

/* LU of A_BB into s->F; 0 if every pivot exceeds ptol, 1 if singular. */
static int factor(enum_state *s, int n, int nb, double ptol) {
  if (nb == 0) return 0;
  for (int j = 0; j < nb; j++)
    for (int i = 0; i < nb; i++) s->F[i + (size_t)j * nb] = s->D[s->B[i] + (size_t)s->B[j] * n];
  lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, nb, nb, s->F, nb, s->ipiv);
  if (info < 0) return 1;
  for (int k = 0; k < nb; k++)
    if (!(fabs(s->F[k + (size_t)k * nb]) > ptol)) return 1;
  return 0;
}

/* The candidate of the current states: x_N at its bounds, x_B from (1), then
 * w = A x + b.  Needs the LU of the current basis. */
static void candidate(enum_state *s, const double *b, int n, int nb) {
  double *x = s->x, *D = s->D;
  for (int i = 0; i < n; i++)
    x[i] = s->state[i] == S_BASIC ? 0.0 : (s->state[i] == S_AT_HI ? s->hi[i] : s->lo[i]);
  /* rhs = -(b_B + A_BN x_N), x_B being 0 here */
  for (int k = 0; k < nb; k++) s->rhs[k] = -b[s->B[k]];
  for (int j = 0; j < n; j++) {
    if (x[j] == 0.0) continue;
    const double *col = D + (size_t)j * n;
    for (int k = 0; k < nb; k++) s->rhs[k] -= col[s->B[k]] * x[j];
  }
  if (nb > 0) LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nb, 1, s->F, nb, s->ipiv, s->rhs, nb);
  for (int k = 0; k < nb; k++) x[s->B[k]] = s->rhs[k];
  for (int i = 0; i < n; i++) s->w[i] = b[i];
  for (int j = 0; j < n; j++) {
    if (x[j] == 0.0) continue;
    const double *col = D + (size_t)j * n;
    for (int i = 0; i < n; i++) s->w[i] += col[i] * x[j];
  }
}

/* ||mid(x - hi, w, x - lo)||_inf of the candidate; NaN stays NaN (never
 * accepted: every comparison with it is false). */
/* The candidate's res_scaled (residual.c's rows, slv_scaled_row with
 * slv_reaction), NaN if x or w is not finite. */
static double natres(const enum_state *s, const slv_problem *p, const slv_rowscale *rs) {
  double r = 0;
  slv_xscale sc = slv_xscale_rows(rs, p->n, s->x, 0.0);
  for (int i = 0; i < p->n; i++) {
    double x = s->x[i], w = s->w[i];
    if (!isfinite(x) || !isfinite(w)) return NAN;
    r = fmax(r, slv_scaled_row(x, w, p->b[i], slv_reaction(p, i, &sc), s->lo[i], s->hi[i], sc.xs));
  }
  return r;
}

/* Two steps of iterative refinement of x_B on the current basis (LU in
 * s->F), the residual b_B + A_B. x accumulated in long double; then basic
 * rows clipped into their bounds and w = A x + b recomputed. */
static void refine(enum_state *s, const double *b, int n, int nb) {
  double *x = s->x, *D = s->D;
  for (int step = 0; step < 2 && nb > 0; step++) {
    for (int k = 0; k < nb; k++) {
      int i = s->B[k];
      long double r = b[i];
      for (int j = 0; j < n; j++) r += (long double)D[i + (size_t)j * n] * x[j];
      s->rhs[k] = -(double)r;
    }
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nb, 1, s->F, nb, s->ipiv, s->rhs, nb);
    for (int k = 0; k < nb; k++) x[s->B[k]] += s->rhs[k];
  }
  for (int k = 0; k < nb; k++) {
    int i = s->B[k];
    x[i] = fmax(s->lo[i], fmin(s->hi[i], x[i]));
  }
  for (int i = 0; i < n; i++) {
    long double r = b[i];
    for (int j = 0; j < n; j++) r += (long double)D[i + (size_t)j * n] * x[j];
    s->w[i] = (double)r;
  }
}

/* Row kinds and bounds, the rows with a choice (var, nv of them); returns
 * nv; *nlu the one-sided rows, *nbox the box rows, *bnorm ||b||_inf. */
static int classify(enum_state *s, const slv_problem *p, int *nlu, int *nbox, double *bnorm) {
  int nv = 0;
  *nlu = *nbox = 0;
  *bnorm = 0;
  for (int i = 0; i < p->n; i++) {
    double lo = slv_lo_of(p, i), hi = slv_hi_of(p, i);
    s->lo[i] = lo;
    s->hi[i] = hi;
    *bnorm = fmax(*bnorm, fabs(p->b[i]));
    if (lo == -INFINITY && hi == INFINITY)
      s->kind[i] = K_FREE;
    else if (lo == hi)
      s->kind[i] = K_FIXED;
    else if (hi == INFINITY)
      s->kind[i] = K_LOWER;
    else if (lo == -INFINITY)
      s->kind[i] = K_UPPER;
    else
      s->kind[i] = K_BOX;
    if (s->kind[i] == K_LOWER || s->kind[i] == K_UPPER) (*nlu)++;
    if (s->kind[i] == K_BOX) (*nbox)++;
    if (s->kind[i] >= K_LOWER) s->var[nv++] = i;
  }
  return nv;
}

/* The search's state and counts. */
typedef struct {
  int n, nv, bases, found, have_best;
  long cases, skipped;
  double ptol, amax, bnorm, best, acc_r;
  const slv_problem *p;
  const slv_rowscale *rs; /* p's row scales, for natres (slv_op_rowscale) */
  slv_op *op;             /* polled once per basic set (slv_should_stop) */
  slv_status stop;        /* its verdict: 0, or why the search stopped */
} search;

/* The cases of the current basic set (states of s): its box rows at a
 * bound take both bounds in turn; a case whose candidate has a natural
 * map at rounding level is taken (refined; *found), else the smallest
 * res_rel so far is remembered.  A singular A_BB skips them all. */
static void basis_cases(enum_state *s, const double *b, search *q) {
  int n = q->n, nb = basis(s, n), nbo = 0;
  for (int i = 0; i < n; i++)
    if (s->kind[i] == K_BOX && s->state[i] != S_BASIC) s->bo[nbo++] = i;
  long nsub = 1L << nbo;
  q->bases++;
  if (factor(s, n, nb, q->ptol)) {
    q->cases += nsub;
    q->skipped += nsub;
    return;
  }
  for (long mask = 0; mask < nsub; mask++) {
    for (int t = 0; t < nbo; t++) s->state[s->bo[t]] = (mask >> t) & 1 ? S_AT_HI : S_AT_LO;
    candidate(s, b, n, nb);
    q->cases++;
    double r = natres(s, q->p, q->rs);
    if (r <= ENUM_TOL_C * n * DBL_EPSILON) {
      q->found = 1;
      q->acc_r = r;
      refine(s, b, n, nb);
      return;
    }
    if (r < q->best) {
      q->best = r;
      q->have_best = 1;
      memcpy(s->best, s->state, (size_t)n * sizeof *s->best);
    }
  }
}

/* Every basic set of k choice rows, k = 0, 1, ..., until a case is found. */
static void enumerate(enum_state *s, const double *b, search *q) {
  int n = q->n, nv = q->nv;
  for (int k = 0; k <= nv && !q->found && !q->stop; k++) {
    for (int c = 0; c < k; c++) s->comb[c] = c;
    for (;;) {
      q->stop = slv_should_stop(q->op, (double)n * n * n); /* a basic set: one LU */
      if (q->stop) break;
      /* states: free rows basic, the k chosen rows basic, others at a bound */
      for (int i = 0; i < n; i++)
        s->state[i] = s->kind[i] == K_FREE ? S_BASIC : (s->kind[i] == K_UPPER ? S_AT_HI : S_AT_LO);
      for (int c = 0; c < k; c++) s->state[s->var[s->comb[c]]] = S_BASIC;
      basis_cases(s, b, q);
      if (q->found) break;
      /* next k-combination of 0..nv-1 in lexicographic order */
      int c = k - 1;
      while (c >= 0 && s->comb[c] == nv - k + c) c--;
      if (c < 0) break;
      s->comb[c]++;
      for (int d = c + 1; d < k; d++) s->comb[d] = s->comb[d - 1] + 1;
    }
  }
}

/* The candidate of the remembered best case into s (x, w). */
static void best_case(enum_state *s, const double *b, const search *q) {
  memcpy(s->state, s->best, (size_t)q->n * sizeof *s->state);
  int nb = basis(s, q->n);
  factor(s, q->n, nb, q->ptol);
  candidate(s, b, q->n, nb);
}

static slv_status enum_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  (void)h;
  enum_state *s = st;
  const slv_problem *p = op->p;
  int n = p->n;
  if (n == 0) return SLV_CONVERGED;
  if (n > s->m) { /* the generic layer's max_n check makes this unreachable */
    slv_msgf(res->message, sizeof res->message, "enum: n=%d exceeds the workspace (%d)", n, s->m);
    return SLV_ERR_DIM;
  }
  search q = {
    .n = n, .best = INFINITY, .acc_r = NAN, .p = p, .rs = slv_op_rowscale(op), .op = op
  };
  int nlu, nbox;
  q.nv = classify(s, p, &nlu, &nbox, &q.bnorm);
  double ncases = ldexp(pow(3.0, nbox), nlu);
  if (ncases > (double)ENUM_MAX_CASES) {
    slv_msgf(res->message, sizeof res->message,
             "enum: 2^%d * 3^%d = %.0f cases (%d one-sided, %d box rows) exceed the limit %ld, "
             "an implementation limit",
             nlu, nbox, ncases, nlu, nbox, ENUM_MAX_CASES);
    return SLV_ERR_UNSUPPORTED;
  }
  q.amax = load(op, s->D);
  q.ptol = opt->pivot_tol * q.amax;
  enumerate(s, p->b, &q);
  res->iterations = q.cases > INT_MAX ? INT_MAX : (int)q.cases;
  res->pivots = q.bases;
  if (!q.found && q.have_best && q.best <= opt->tol) {
    /* no case at rounding level; the best one meets the user's tolerance */
    best_case(s, p->b, &q);
    q.acc_r = natres(s, p, q.rs);
    refine(s, p->b, n, basis(s, n));
    q.found = 1;
    slv_logf(opt, "enum: no case at rounding level; best case res_scaled %.3g <= tol %.3g taken",
             q.best, opt->tol);
  }
  if (q.found) {
    memcpy(x, s->x, (size_t)n * sizeof *x);
    memcpy(w, s->w, (size_t)n * sizeof *w);
    res->solver_residual = natres(s, p, q.rs);
    slv_logf(opt, "enum: solution at case %ld of %.0f (candidate residual %.3g, refined %.3g)",
             q.cases, ncases, q.acc_r, res->solver_residual);
    return SLV_CONVERGED;
  }
  /* nothing accepted: report the closest case (x of that case, for
   * diagnosis) */
  if (q.have_best) {
    best_case(s, p->b, &q);
    memcpy(x, s->x, (size_t)n * sizeof *x);
    memcpy(w, s->w, (size_t)n * sizeof *w);
  }
  res->solver_residual = q.have_best ? q.best : NAN;
  if (q.stop) return q.stop; /* the closest case so far, or the start point */
  if (q.skipped > 0) {
    slv_msgf(res->message, sizeof res->message,
             "enum: no solution among the %ld nonsingular cases; %ld of %ld cases have a singular "
             "A_BB (pivot <= %.3g) and were skipped",
             q.cases - q.skipped, q.skipped, q.cases, q.ptol);
    return SLV_SINGULAR_PIVOT;
  }
  slv_msgf(res->message, sizeof res->message,
           "enum: no solution: none of the %ld cases meets tol %.3g (smallest res_scaled %.3g)",
           q.cases, opt->tol, q.best);
  return SLV_NO_SOLUTION;
}

static const slv_impl enum_impl = {
  .state_size = sizeof(enum_state),
  .init = enum_init,
  .free = enum_free,
  .solve = enum_solve,
};

/* the params line below quotes these */
_Static_assert(ENUM_MAX_N == 16 && ENUM_MAX_CASES == 262144L, "enum params");

const slv_solver slv_solver_enum = {
  .name = "enum",
  .summary = "exhaustive enumeration of the active sets (n <= 16, <= 2^18 cases): exact oracle",
  .cite = "cottle1992",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_SPARSE,
  .max_n = ENUM_MAX_N,
  /* clang-format off */
  .params =
      "n <= 16, <= 2^18 cases; accept res_scaled <= " SLV_STR(ENUM_TOL_C) " n eps, else the best "
      "if <= options.tol (" SLV_STR(SLV_DEFAULT_TOL) "); pivot <= pivot_tol ("
      SLV_STR(SLV_DEFAULT_PIVOT_TOL) ") max|A_ij|: singular; 2 refinements",
  /* clang-format on */
  .impl = &enum_impl,
};
