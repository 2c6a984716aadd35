/* test_block_pivot.c -- the rounds of block principal pivoting that give
 * lemke and dantzig their first active set (libsolvers/block_pivot.h;
 * docs/solvers.md, "A first active set").
 *
 * Planted problems (tst_planted_spd: A = B B^T / n + 0.1 I, x* and w*
 * drawn, b = w* - A x*), LCP and boxed, n = 90 .. 250, from the start
 * x = mid(lo, hi, 0) and the guess of the rows broken there: the rounds
 * must end with no row broken, at the planted x* (1e-9) and its active set,
 * with w = A x + b kept up to rounding, and with a factor in F equal to a
 * fresh Cholesky factor of A(C, C) (1e-10 of its largest entry): the
 * factor is updated from round to round (rows deleted by rank-one updates,
 * heads kept and the rest factored against them), and both kinds of update
 * must have run over the cases.  A 4 x 4 SPD problem on which the rounds
 * cycle (sets {0} -> {0, 1, 2} -> {1} -> {0}, found by search and checked
 * by enumeration: its solution has C = {0, 1, 3}) must stop by the
 * patience rule, short of SLV_BPP_ROUNDS, with a valid factor.  Two equal
 * rows in the guess: the second's pivot is zero, C is cut there.  A
 * non-symmetric P-matrix takes LU rounds to its planted answer.  The pivot
 * budget stops the rounds before a round that would pass it.
 * slv_sort_by_key sorts and keeps the permutation.
 */
#include "block_pivot.h"
#include "tst_util.h"

#include <CUnit/CUnit.h>
#include <cblas.h>
#include <gsl/gsl_rng.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The arrays of one run. */
typedef struct {
  int n;
  double *A, *b, *lo, *hi, *xs, *x, *w, *F, *dx, *key, *sq, *pend;
  int *set, *flips, *watch;
  signed char *in;
  lapack_int *ipiv;
  slv_problem p;
  slv_op_buf buf;
  slv_op op;
} run_t;

static void run_alloc(run_t *t, int n) {
  memset(t, 0, sizeof *t);
  t->n = n;
  t->A = calloc((size_t)n * n, sizeof *t->A);
  t->F = calloc((size_t)n * n, sizeof *t->F);
  double **v[] = { &t->b, &t->lo, &t->hi, &t->xs, &t->x, &t->w, &t->dx, &t->key, &t->sq, &t->pend };
  for (size_t k = 0; k < sizeof v / sizeof *v; k++) *v[k] = calloc((size_t)n, sizeof(double));
  t->set = calloc((size_t)n, sizeof *t->set);
  t->watch = calloc((size_t)n, sizeof *t->watch);
  t->flips = calloc((size_t)n, sizeof *t->flips);
  t->in = calloc((size_t)n, sizeof *t->in);
  t->ipiv = calloc((size_t)n, sizeof *t->ipiv);
  CU_ASSERT_EQUAL_FATAL(slv_op_buf_alloc(&t->buf, n), SLV_OK);
}

static void run_free(run_t *t) {
  free(t->A);
  free(t->F);
  double *v[] = { t->b, t->lo, t->hi, t->xs, t->x, t->w, t->dx, t->key, t->sq, t->pend };
  for (size_t k = 0; k < sizeof v / sizeof *v; k++) free(v[k]);
  free(t->set);
  free(t->watch);
  free(t->flips);
  free(t->in);
  free(t->ipiv);
  slv_op_buf_free(&t->buf);
}

/* run_alloc, the boxes every planted case uses, and a planted spd problem
 * (tst_planted_spd: its shift and seed; the boxes only where boxed). */
static void run_planted(run_t *t, int n, double shift, unsigned long seed, int boxed) {
  run_alloc(t, n);
  for (int i = 0; i < n; i++) {
    t->lo[i] = -0.5 - 0.5 * ((i * 7) % 5) / 4.0;
    t->hi[i] = 0.5 + 0.5 * ((i * 3) % 7) / 6.0;
  }
  tst_planted_spd(n, shift, seed, boxed ? t->lo : NULL, boxed ? t->hi : NULL, t->A, t->b, t->xs);
}

/* The problem's operator (no packing, no poll) and the rounds' view. */
static slv_bpp bpp_of(run_t *t, int boxed, int general) {
  t->p = slv_problem_empty();
  t->p.n = t->n;
  t->p.A = t->A;
  t->p.lda = t->n;
  t->p.b = t->b;
  t->p.lo = boxed ? t->lo : NULL;
  t->p.hi = boxed ? t->hi : NULL;
  slv_op_begin(&t->op, &t->p, &t->buf);
  for (int i = 0; i < t->n; i++) {
    double a = t->A[i + (size_t)i * t->n];
    t->sq[i] = a > 0 ? sqrt(a) : 1.0;
  }
  slv_bpp q = { .n = t->n,
                .A = t->A,
                .lda = (size_t)t->n,
                .b = t->b,
                .lo = t->p.lo,
                .hi = t->p.hi,
                .op = &t->op,
                .sq = t->sq,
                .general = general,
                .prel = 1e-13,
                .zero_abs = 1e-13,
                .given = 0,
                .budget = INT_MAX,
                .F = t->F,
                .ldf = t->n,
                .ipiv = t->ipiv,
                .dx = t->dx,
                .key = t->key,
                .set = t->set,
                .flips = t->flips,
                .in = t->in };
  return q;
}

/* x = mid(lo, hi, 0), w = A x + b, and the guess: the rows broken there
 * (dantzig's rule); returns its size. */
static int start(run_t *t, const slv_bpp *q) {
  int n = t->n, m = 0;
  for (int i = 0; i < n; i++) {
    double lo = q->lo ? q->lo[i] : 0.0, hi = q->hi ? q->hi[i] : INFINITY;
    t->x[i] = lo > 0 ? lo : (hi < 0 ? hi : 0.0);
  }
  slv_problem_w(&t->p, t->x, t->w);
  for (int i = 0; i < n; i++) {
    double lo = q->lo ? q->lo[i] : 0.0, hi = q->hi ? q->hi[i] : INFINITY, x = t->x[i];
    if ((x <= lo && t->w[i] < 0) || (x >= hi && t->w[i] > 0) || (lo < x && x < hi)) t->set[m++] = i;
  }
  return m;
}

/* max |F - fresh Cholesky factor of A(set, set)| over the lower triangle,
 * relative to the largest entry of the fresh one. */
static double factor_error(const run_t *t, int m) {
  double *G = malloc((size_t)(m > 0 ? m : 1) * (m > 0 ? m : 1) * sizeof *G), e = 0, gm = 0;
  for (int c = 0; c < m; c++)
    for (int r = c; r < m; r++) G[r + (size_t)c * m] = t->A[t->set[r] + (size_t)t->set[c] * t->n];
  if (m > 0) CU_ASSERT_EQUAL(LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', m, G, m), 0);
  for (int c = 0; c < m; c++)
    for (int r = c; r < m; r++) {
      double g = G[r + (size_t)c * m];
      gm = fmax(gm, fabs(g));
      e = fmax(e, fabs(g - t->F[r + (size_t)c * t->n]));
    }
  free(G);
  return gm > 0 ? e / gm : e;
}

/* max |w - (A x + b)| relative to max(1, |b|_inf). */
static double w_error(run_t *t) {
  double *w = malloc((size_t)t->n * sizeof *w), e = 0, bm = 1;
  slv_problem_w(&t->p, t->x, w);
  for (int i = 0; i < t->n; i++) {
    e = fmax(e, fabs(w[i] - t->w[i]));
    bm = fmax(bm, fabs(t->b[i]));
  }
  free(w);
  return e / bm;
}

static void test_planted_rounds(void) {
  int deleted = 0, by_lq = 0, kept = 0, cases = 0;
  for (int boxed = 0; boxed <= 1; boxed++)
    for (int n = 90; n <= 250; n += 80)
      for (unsigned long seed = 1; seed <= 4; seed++) {
        run_t t;
        run_planted(&t, n, 0.1, seed + 40 * (unsigned long)n, boxed);
        slv_bpp q = bpp_of(&t, boxed, 0);
        int m = start(&t, &q);
        slv_bpp_result r;
        CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
        CU_ASSERT_EQUAL(r.broken, 0);
        CU_ASSERT(r.rounds >= 2 && r.rounds < SLV_BPP_ROUNDS);
        TST_VEC_CLOSE(t.x, t.xs, n, 1e-9, 1e-9);
        int clamped = 0;
        for (int i = 0; i < n; i++) {
          double lo = boxed ? t.lo[i] : 0.0, hi = boxed ? t.hi[i] : INFINITY;
          int inside = t.xs[i] > lo && t.xs[i] < hi;
          clamped += inside;
          CU_ASSERT_EQUAL(t.in[i] != 0, inside);
        }
        CU_ASSERT_EQUAL(r.m, clamped);
        CU_ASSERT(factor_error(&t, r.m) <= 1e-10);
        CU_ASSERT(w_error(&t) <= 1e-11);
        deleted += r.deleted;
        by_lq += r.by_lq;
        kept += r.kept;
        cases++;
        run_free(&t);
      }
  printf("\n    %d planted problems: %d rows deleted by updates (%d by LQ), %d head rows kept",
         cases, deleted, by_lq, kept);
  CU_ASSERT(by_lq > 0);
  CU_ASSERT(deleted - by_lq > 0);
  CU_ASSERT(kept > 0);
}

/* Rows of set[0..m) not in the planted answer's set (x* strictly inside
 * its bounds), plus the answer's rows missing from it; -1 if set holds a
 * row twice. */
static int set_misses(const run_t *t, int boxed, int m) {
  int n = t->n, miss = 0;
  signed char *mark = calloc((size_t)n, 1);
  for (int c = 0; c < m; c++) {
    if (mark[t->set[c]]++) miss = -1;
  }
  for (int i = 0; i < n && miss >= 0; i++) {
    double lo = boxed ? t->lo[i] : 0.0, hi = boxed ? t->hi[i] : INFINITY;
    miss += (t->xs[i] > lo && t->xs[i] < hi) != (mark[i] != 0);
  }
  free(mark);
  return miss;
}

/* The sweeps' guess (slv_bpp_sweep_guess) on planted problems, n = 250:
 * x and w untouched, the given rows kept in front, no row twice, fewer
 * rows wrong than the guess of the rows broken at the start, and the
 * rounds from it end at x*.  Not applied below SLV_BPP_SWEEP_MIN rows nor
 * to a non-symmetric A (-1). */
static void test_sweep_guess(void) {
  for (int boxed = 0; boxed <= 1; boxed++)
    for (unsigned long seed = 1; seed <= 2; seed++) {
      int n = 250;
      run_t t;
      run_planted(&t, n, 0.1, seed + 70, boxed);
      slv_bpp q = bpp_of(&t, boxed, 0);
      int broken_miss = set_misses(&t, boxed, start(&t, &q));
      double *x0 = malloc(sizeof(double) * n), *w0 = malloc(sizeof(double) * n);
      memcpy(x0, t.x, sizeof(double) * n);
      memcpy(w0, t.w, sizeof(double) * n);
      t.set[0] = 5; /* two given rows */
      t.set[1] = 7;
      int m = slv_bpp_sweep_guess(&q, t.x, t.w, 2);
      CU_ASSERT(memcmp(x0, t.x, sizeof(double) * n) == 0 &&
                memcmp(w0, t.w, sizeof(double) * n) == 0);
      CU_ASSERT(m > 2 && t.set[0] == 5 && t.set[1] == 7);
      t.set[0] = t.set[--m]; /* the given rows out of the count */
      t.set[1] = t.set[--m];
      int sweep_miss = set_misses(&t, boxed, m);
      printf("\n    %s seed %lu: rows wrong, broken at start %d, sweeps %d", boxed ? "box" : "LCP",
             seed, broken_miss, sweep_miss);
      CU_ASSERT(sweep_miss >= 0 && sweep_miss < broken_miss);
      slv_bpp_result r;
      CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
      CU_ASSERT_EQUAL(r.broken, 0);
      TST_VEC_CLOSE(t.x, t.xs, n, 1e-9, 1e-9);
      CU_ASSERT(factor_error(&t, r.m) <= 1e-10);
      q.general = 1;
      CU_ASSERT_EQUAL(slv_bpp_sweep_guess(&q, t.x, t.w, 0), -1);
      q.general = 0;
      q.n = SLV_BPP_SWEEP_MIN - 1;
      CU_ASSERT_EQUAL(slv_bpp_sweep_guess(&q, t.x, t.w, 0), -1);
      free(x0);
      free(w0);
      run_free(&t);
    }
}

/* The rounds with a watch (q->pend, q->watch: between passes over A only
 * the rows of C and the watched rows are judged, w waits) from the sweeps'
 * guess, planted problems, LCP and boxes, n = 250 and 400: each run ends
 * at x* (1e-9) and its active set, as the rounds without a watch do from
 * the same guess, with w = A x + b up to rounding (the moves that waited
 * all in it once: a leaving row's and a joining row's w corrected for
 * them), an updated factor, and no more passes over A than rounds; over
 * the runs, rounds that judged the watched rows alone must have run.
 * Under memcheck n = 250 alone: the same paths, and the aggregate still
 * holds on those six problems (experiments/records/2026-11-29-test-time-8.md). */
static void test_watched_rounds(void) {
  int rounds = 0, passes = 0, classic = 0, nmax = tst_under_memcheck() ? 250 : 400;
  for (int boxed = 0; boxed <= 1; boxed++)
    for (int n = 250; n <= nmax; n += 150)
      for (unsigned long seed = 1; seed <= 3; seed++) {
        run_t t;
        run_planted(&t, n, 0.05, seed + 90 * (unsigned long)n, boxed);
        signed char *in0 = malloc((size_t)n);
        slv_bpp_result r;
        for (int watched = 0; watched <= 1; watched++) {
          slv_bpp q = bpp_of(&t, boxed, 0);
          q.pend = watched ? t.pend : NULL;
          q.watch = watched ? t.watch : NULL;
          start(&t, &q);
          int m = slv_bpp_sweep_guess(&q, t.x, t.w, 0);
          CU_ASSERT_FATAL(m > 0);
          CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
          CU_ASSERT_EQUAL(r.broken, 0);
          TST_VEC_CLOSE(t.x, t.xs, n, 1e-9, 1e-9);
          CU_ASSERT(w_error(&t) <= 1e-11);
          CU_ASSERT(factor_error(&t, r.m) <= 1e-10);
          CU_ASSERT(r.passes >= 1 && r.passes <= r.rounds);
          if (!watched) {
            memcpy(in0, t.in, (size_t)n);
            classic += r.rounds;
            CU_ASSERT_EQUAL(r.passes, r.rounds);
          } else {
            for (int i = 0; i < n; i++) CU_ASSERT_EQUAL(t.in[i] != 0, in0[i] != 0);
            rounds += r.rounds;
            passes += r.passes;
          }
        }
        free(in0);
        run_free(&t);
      }
  printf("\n    %d planted problems: %d rounds without a watch; with one %d rounds, %d passes",
         nmax == 400 ? 12 : 6, classic, rounds, passes);
  CU_ASSERT(passes < rounds);
}

/* The 4 x 4 SPD problem on which full-flip rounds cycle (see the header). */
/* Five whole sweeps of projected Gauss-Seidel (pgs's move, every column
 * whole: the sweeps as documented, without slv_bpp_sweep_guess's half
 * last sweep) from x, w into xt; the set the guess takes from them (the
 * given rows set[0..m), then the rows strictly inside in row order) into
 * ref_set, its keys (key_of: -inf for a free row, the distance to the
 * nearer bound times sqrt(A_rr) for a row inside, -|w_r| / sqrt(A_rr) for
 * a given row at a bound) into ref_key; returns the set's size. */
static int whole_sweeps(const run_t *t, const slv_bpp *q, int m, double *xt, int *ref_set,
                        double *ref_key) {
  int n = t->n;
  double *wt = malloc(sizeof(double) * n);
  memcpy(xt, t->x, sizeof(double) * n);
  memcpy(wt, t->w, sizeof(double) * n);
  for (int k = 0; k < SLV_BPP_SWEEPS; k++)
    for (int r = 0; r < n; r++) {
      double lo = q->lo ? q->lo[r] : 0.0, hi = q->hi ? q->hi[r] : INFINITY, xn;
      slv_pgs_move(xt[r], wt[r], slv_pgs_step(1.0, t->A[r + (size_t)r * n]), lo, hi, &xn);
      double d = xn - xt[r];
      if (d == 0.0) continue;
      xt[r] = xn;
      cblas_daxpy(n, d, t->A + (size_t)r * n, 1, wt, 1);
    }
  int k = 0;
  for (int c = 0; c < m; c++) ref_set[k++] = t->set[c];
  for (int r = 0; r < n; r++) {
    double lo = q->lo ? q->lo[r] : 0.0, hi = q->hi ? q->hi[r] : INFINITY;
    int given = 0;
    for (int c = 0; c < m; c++) given |= t->set[c] == r;
    if (!given && lo < xt[r] && xt[r] < hi) ref_set[k++] = r;
  }
  for (int c = 0; c < k; c++) {
    int r = ref_set[c];
    double lo = q->lo ? q->lo[r] : 0.0, hi = q->hi ? q->hi[r] : INFINITY;
    if (lo == -INFINITY && hi == INFINITY)
      ref_key[c] = -INFINITY;
    else if (lo < xt[r] && xt[r] < hi)
      ref_key[c] = -fmin(xt[r] - lo, hi - xt[r]) * t->sq[r];
    else /* a given row at a bound: by its w */
      ref_key[c] = -fabs(wt[r]) / t->sq[r];
  }
  free(wt);
  return k;
}

/* The sweeps' last pass updates w only below each moved row (its rows
 * after it, from a multiple of 64 on), where no given row needs its w for
 * a key: the guess and its keys must be those of five whole sweeps, to the
 * bit (n = 250 and 263, not multiples of 64; LCP, and boxes with free
 * given rows, which take the half pass; boxes with bounded given rows,
 * which take the whole one). */
static void test_sweep_half_last(void) {
  for (int kind = 0; kind < 3; kind++)
    for (int n = 250; n <= 263; n += 13) {
      run_t t;
      run_alloc(&t, n);
      int boxed = kind > 0, m = kind == 0 ? 0 : 3;
      for (int i = 0; i < n; i++) {
        int free_row = kind == 1 && i % 50 == 3;
        t.lo[i] = free_row ? -INFINITY : -0.5 - 0.5 * ((i * 7) % 5) / 4.0;
        t.hi[i] = free_row ? INFINITY : 0.5 + 0.5 * ((i * 3) % 7) / 6.0;
      }
      tst_planted_spd(n, 0.1, 90 + (unsigned long)(n + kind), boxed ? t.lo : NULL,
                      boxed ? t.hi : NULL, t.A, t.b, t.xs);
      slv_bpp q = bpp_of(&t, boxed, 0);
      start(&t, &q);
      for (int c = 0; c < m; c++) t.set[c] = 3 + 50 * c; /* the free rows of kind 1 */
      double *xt = malloc(sizeof(double) * n), *ref_key = malloc(sizeof(double) * n);
      int *ref_set = malloc(sizeof(int) * n);
      int k = whole_sweeps(&t, &q, m, xt, ref_set, ref_key);
      int g = slv_bpp_sweep_guess(&q, t.x, t.w, m), same_set = g == k, same_keys = g == k;
      for (int c = 0; c < k && c < g; c++) {
        same_set &= t.set[c] == ref_set[c];
        same_keys &= memcmp(&t.key[t.set[c]], &ref_key[c], sizeof(double)) == 0;
      }
      printf("\n    kind %d, n = %d: %d rows in the guess, the whole sweeps' %d", kind, n, g, k);
      CU_ASSERT(k > m + n / 10);
      CU_ASSERT(same_set);
      CU_ASSERT(same_keys);
      free(xt);
      free(ref_key);
      free(ref_set);
      run_free(&t);
    }
}

static const double cyc_A[16] = { 1.1146, -0.7486, -1.2796, -0.123, -0.7486, 0.8244,
                                  1.1689, -0.0909, -1.2796, 1.1689, 1.8993,  -0.0844,
                                  -0.123, -0.0909, -0.0844, 0.6411 };
static const double cyc_b[4] = { -2.5153, 0.0407, 2.8439, 0.9651 };

static void test_cycle_stops(void) {
  run_t t;
  run_alloc(&t, 4);
  memcpy(t.A, cyc_A, sizeof cyc_A);
  memcpy(t.b, cyc_b, sizeof cyc_b);
  slv_bpp q = bpp_of(&t, 0, 0);
  int m = start(&t, &q);
  CU_ASSERT_EQUAL(m, 1); /* only b_0 < 0 */
  slv_bpp_result r;
  CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
  CU_ASSERT(r.broken > 0);
  CU_ASSERT(r.rounds <= 1 + 2 * SLV_BPP_PATIENCE);
  CU_ASSERT(factor_error(&t, r.m) <= 1e-12);
  CU_ASSERT(w_error(&t) <= 1e-14);
  run_free(&t);
}

static void test_zero_pivot_cut(void) {
  /* rows 0 and 2 are equal: A = [[1, .5, 1], [.5, 2, .5], [1, .5, 1]],
   * b = (-1, 1, -1): the guess {0, 2}; the pivot of the second in C's
   * order is zero, it leaves C and the rounds go on with the first: x = e_0
   * or e_2, w = (0, 1.5, 0), both solutions */
  run_t t;
  run_alloc(&t, 3);
  const double A[9] = { 1, 0.5, 1, 0.5, 2, 0.5, 1, 0.5, 1 }, b[3] = { -1, 1, -1 };
  memcpy(t.A, A, sizeof A);
  memcpy(t.b, b, sizeof b);
  slv_bpp q = bpp_of(&t, 0, 0);
  int m = start(&t, &q);
  CU_ASSERT_EQUAL(m, 2);
  slv_bpp_result r;
  CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r.m, 1);
  CU_ASSERT_EQUAL(r.broken, 0);
  double we[3] = { 0, 1.5, 0 };
  TST_CLOSE(t.x[0] + t.x[2], 1.0, 1e-15, 0);
  CU_ASSERT(t.x[0] * t.x[2] == 0 && t.x[1] == 0);
  TST_VEC_CLOSE(t.w, we, 3, 1e-15, 0);
  run_free(&t);
}

static void test_lu_rounds(void) {
  /* A = S + (C - C^T) / sqrt(n), S planted SPD: x'Ax = x'Sx > 0, a
   * non-symmetric P-matrix; b = w* - A x* for the planted x*, w* */
  int n = 120;
  run_t t;
  run_alloc(&t, n);
  tst_planted_spd(n, 0.1, 77, NULL, NULL, t.A, t.b, t.xs);
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 5);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++) {
      double c = (2 * gsl_rng_uniform(g) - 1) / sqrt(n);
      t.A[i + (size_t)j * n] += c;
      t.A[j + (size_t)i * n] -= c;
    }
  gsl_rng_free(g);
  /* b again for the new A: w* = 0 where x* > 0, w* > 0 elsewhere */
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += t.A[i + (size_t)j * n] * t.xs[j];
    double wstar = t.xs[i] > 0 ? 0.0 : 0.2 + 0.01 * (i % 7);
    t.b[i] = wstar - s;
  }
  slv_bpp q = bpp_of(&t, 0, 1);
  int m = start(&t, &q);
  slv_bpp_result r;
  CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r.singular, 0);
  CU_ASSERT_EQUAL(r.broken, 0);
  CU_ASSERT_EQUAL(r.deleted, 0); /* an LU is formed anew each round */
  TST_VEC_CLOSE(t.x, t.xs, n, 1e-9, 1e-9);
  run_free(&t);
}

static void test_budget(void) {
  int n = 150;
  run_t t;
  run_alloc(&t, n);
  tst_planted_spd(n, 0.1, 3, NULL, NULL, t.A, t.b, t.xs);
  slv_bpp q = bpp_of(&t, 0, 0);
  int m = start(&t, &q);
  slv_bpp_result r;
  CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
  int full = r.pivots;
  CU_ASSERT(full > m && r.rounds >= 3);
  /* the guess's rows plus a little: no round's flips fit */
  q.budget = m + 1;
  m = start(&t, &q);
  CU_ASSERT_EQUAL(slv_bpp_run(&q, t.x, t.w, m, &r), SLV_CONVERGED);
  CU_ASSERT_EQUAL(r.rounds, 1);
  CU_ASSERT_EQUAL(r.pivots, m);
  CU_ASSERT(r.broken > 1);
  CU_ASSERT(factor_error(&t, r.m) <= 1e-10);
  run_free(&t);
}

static void test_sort(void) {
  enum { N = 257 };
  int v[N], seen[N] = { 0 };
  double key[N];
  for (int i = 0; i < N; i++) {
    v[i] = i;
    key[i] = sin(1.7 * i) * (i % 3 ? 1 : -2);
  }
  slv_sort_by_key(v, N, key);
  for (int i = 0; i < N; i++) seen[v[i]]++;
  for (int i = 0; i < N; i++) CU_ASSERT_EQUAL(seen[i], 1);
  for (int i = 1; i < N; i++) CU_ASSERT(key[v[i - 1]] <= key[v[i]]);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("block_pivot", NULL, NULL);
  CU_add_test(s, "planted LCP and boxes: the answer, its set, an updated factor",
              test_planted_rounds);
  CU_add_test(s, "the sweeps' guess: fewer rows wrong, x and w untouched", test_sweep_guess);
  CU_add_test(s, "the sweeps' half last pass: the guess and keys of whole sweeps",
              test_sweep_half_last);
  CU_add_test(s, "rounds with a watch: the answer, w = A x + b, fewer passes", test_watched_rounds);
  CU_add_test(s, "a 4 x 4 cycle stops by patience", test_cycle_stops);
  CU_add_test(s, "equal rows: a zero pivot cuts C", test_zero_pivot_cut);
  CU_add_test(s, "non-symmetric P-matrix: LU rounds", test_lu_rounds);
  CU_add_test(s, "the pivot budget stops the rounds", test_budget);
  CU_add_test(s, "slv_sort_by_key", test_sort);
  return tst_run();
}
