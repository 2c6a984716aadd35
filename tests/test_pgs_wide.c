/* test_pgs_wide.c -- pgs_wide against pgs.
 *
 * pgs_wide claims (libsolvers/pgs_wide.c): on factored storage its sweep is
 * pgs's Gauss-Seidel sweep in pgs's own row order, bit for bit, except
 * that groups reading the x of a later group's row (findex pointing
 * forward) go last.  The test builds that order itself from the documented
 * rule (wide_order below), permutes the problem's rows into it, and runs
 * pgs on the permuted problem:
 *   - same status and sweep count; x equal bit for bit after 7 sweeps from
 *     zero, and after 45 (past the exact recomputations of t = K^T x at 20
 *     and 40) and from a warm start when the order is the row order, else
 *     to 1e-12 (pgs sums K^T x over the permuted rows); on random
 *     contact-like problems (tst_fprob.h, where the order is the row
 *     order), on one where a few bodies carry hundreds of rows (long
 *     chains of batches with idle lanes), on one whose friction rows come
 *     before their normal rows (findex pointing forward: the sequential
 *     group) and on one with contacts sorted by body pair (manifold-like
 *     runs of several contacts on one pair, the longest over 12 rows:
 *     groups of many lengths, and runs cut at 12);
 *   - converged at 1e-10, the test's own natural-map residual with findex
 *     bounds is below 1e-10;
 *   - dense storage is solved by pgs itself: the same x, bit for bit;
 *   - an overflowing problem ends in SLV_NOT_FINITE, never "converged";
 *   - each solve's plan line (opt.log_fn) names the sweep taken: the lanes
 *     in the compact layout exactly for the rigid-body problems (whose
 *     masses pgs_wide finds in J and K), the full layout otherwise (also
 *     when one row of a block has another mass); and its counts add up;
 *   - result.method names the algorithm that ran: "pgs" where pgs_wide
 *     hands the problem to pgs (dense, CSR, or no lanes in row order);
 *   - a second suite runs with opt.simd = SLV_SIMD_OFF, the path of CPUs
 *     without AVX2, to the same iterates: pgs's own sweep in the row
 *     order, the plan one row at a time with sequential groups
 *     (SLV_SIMD_AUTO keeps the lanes; other values are refused);
 *   - on a CPU with AVX-512 (where the lanes run eight wide), a suite
 *     with opt.simd = SLV_SIMD_AVX2 runs the four-wide lanes of CPUs
 *     without it, to the same iterates.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slv.h"
#include "tst_fprob.h"
#include "tst_util.h"

/* The documented sweep order of pgs_wide, as a permutation that pgs can
 * run: ord[k] = row visited k-th.  Groups: runs of consecutive rows on the
 * same block pair, cut every 12 rows.  A group with a row whose findex row
 * lies in a later group is sequential.  The batches are a topological
 * order of the other groups (a group follows every earlier group on its
 * blocks and the groups of its findex rows), which computes what row order
 * computes; so the order is: the other groups' rows in row order, then the
 * sequential groups' rows in row order.  Returns 1 if that is the
 * identity (then pgs_wide is pgs on f itself). */
enum { GMAX = 12 };
static int wide_order(const slv_problem *p, int *ord) {
  int n = p->n, k = 0;
  char *seq = calloc((size_t)n, 1);
  for (int i = 0, e; i < n; i = e) {
    int b0 = p->fblk[2 * i], b1 = p->fblk[2 * i + 1], sq = 0;
    for (e = i + 1; e < n && e - i < GMAX; e++)
      if (p->fblk[2 * e] != b0 || p->fblk[2 * e + 1] != b1) break;
    for (int r = i; r < e; r++)
      if (p->findex && p->findex[r] >= e) sq = 1;
    for (int r = i; r < e; r++) seq[r] = (char)sq;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++)
      if (seq[i] == pass) ord[k++] = i;
  int identity = 1;
  for (int i = 0; i < n; i++) identity &= ord[i] == i;
  free(seq);
  return identity;
}

/* The rows of f permuted: row k of *q is row ord[k] of f (findex remapped). */
typedef struct {
  int *fblk, *findex;
  double *fJ, *fK, *fd, *b, *lo, *hi, *mu;
  slv_problem p;
} permuted;

static void permute(const fprob *f, const int *ord, permuted *q) {
  int n = f->n;
  int *pos = malloc((size_t)n * sizeof(int));
  for (int k = 0; k < n; k++) pos[ord[k]] = k;
  q->fblk = malloc(2 * (size_t)n * sizeof(int));
  q->findex = malloc((size_t)n * sizeof(int));
  q->fJ = malloc(12 * (size_t)n * sizeof(double));
  q->fK = malloc(12 * (size_t)n * sizeof(double));
  double **v[] = { &q->fd, &q->b, &q->lo, &q->hi, &q->mu };
  const double *src[] = { f->fd, f->b, f->lo, f->hi, f->mu };
  for (int a = 0; a < 5; a++) {
    *v[a] = malloc((size_t)n * sizeof(double));
    for (int k = 0; k < n; k++) (*v[a])[k] = src[a][ord[k]];
  }
  for (int k = 0; k < n; k++) {
    int i = ord[k];
    q->fblk[2 * k] = f->fblk[2 * i];
    q->fblk[2 * k + 1] = f->fblk[2 * i + 1];
    q->findex[k] = f->findex[i] >= 0 ? pos[f->findex[i]] : -1;
    memcpy(q->fJ + 12 * k, f->fJ + 12 * i, 12 * sizeof(double));
    memcpy(q->fK + 12 * k, f->fK + 12 * i, 12 * sizeof(double));
  }
  q->p = f->p;
  q->p.fblk = q->fblk;
  q->p.findex = q->findex;
  q->p.fJ = q->fJ;
  q->p.fK = q->fK;
  q->p.fd = q->fd;
  q->p.b = q->b;
  q->p.lo = q->lo;
  q->p.hi = q->hi;
  q->p.mu = q->mu;
  free(pos);
}

/* f with its rows replaced by q's (f keeps ownership of the rest: A). */
static fprob permuted_view(const fprob *f, const permuted *q) {
  fprob g = *f;
  g.fblk = q->fblk;
  g.findex = q->findex;
  g.fJ = q->fJ;
  g.fK = q->fK;
  g.fd = q->fd;
  g.b = q->b;
  g.lo = q->lo;
  g.hi = q->hi;
  g.mu = q->mu;
  g.p = q->p;
  return g;
}

static void permuted_free(permuted *q) {
  free(q->fblk);
  free(q->findex);
  free(q->fJ);
  free(q->fK);
  free(q->fd);
  free(q->b);
  free(q->lo);
  free(q->hi);
  free(q->mu);
}

/* The suite's opt.simd (the second suite: SLV_SIMD_OFF). */
static int simd = SLV_SIMD_AUTO;

/* Whether the CPU has AVX-512 F and DQ (pgs_wide's lanes eight wide). */
static int has_avx512(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512dq");
#else
  return 0;
#endif
}

/* Whether pgs_wide sweeps in its AVX2 lanes: the CPU has them and
 * opt.simd lets it (auto, or avx2). */
static int lanes(void) {
  int avx2 = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  avx2 = __builtin_cpu_supports("avx2");
#endif
  return avx2 && simd != SLV_SIMD_OFF;
}

/* The sweep pgs_wide must log taking: rows one at a time without the
 * lanes, else the lanes in the layout (0 full; 1 compact, for a problem in
 * rigid-body form; 2 isotropic, for one in rigid-body form with isotropic
 * bodies). */
enum { LAY_FULL, LAY_COMPACT, LAY_ISO };
static const char *expected_sweep(int layout) {
  static const char *const rows[2][3] = {
    { "AVX2 lanes, full rows", "AVX2 lanes, compact rigid-body rows",
      "AVX2 lanes, isotropic rigid-body rows" },
    { "AVX-512 lanes, full rows", "AVX-512 lanes, compact rigid-body rows",
      "AVX-512 lanes, isotropic rigid-body rows" }
  };
  if (!lanes()) return "rows one at a time (no AVX2 lanes)";
  return rows[has_avx512() && simd == SLV_SIMD_AUTO][layout];
}

/* pgs_wide's plan lines (opt.log_fn): how many, and the last one. */
typedef struct {
  int count;
  char line[256];
} plan_log;

static void log_plan(void *ctx, const char *line) {
  plan_log *l = ctx;
  if (strncmp(line, "pgs_wide:", 9) != 0) return;
  l->count++;
  snprintf(l->line, sizeof l->line, "%s", line);
}

/* One solve's plan line: one line, about n rows of which none sequential
 * when pgs_wide's order is the row order (the others are in the lanes),
 * the lanes not overfull, and the sweep named as expected_sweep says;
 * without the lanes and in the row order, pgs's own sweep. */
static void check_plan(const plan_log *l, int n, int identity, int compact) {
  CU_ASSERT_EQUAL(l->count, 1);
  int rows = -1, nbat = -1, busy = -1, ncol = -1, seq = -1;
  if (identity && !lanes()) {
    char tail[64] = "";
    CU_ASSERT_EQUAL(sscanf(l->line, "pgs_wide: %d rows, no AVX2 lanes, %63[^\n]", &rows, tail), 2);
    CU_ASSERT_EQUAL(rows, n);
    CU_ASSERT_STRING_EQUAL(tail, "row order: pgs's own sweep");
    return;
  }
  CU_ASSERT_EQUAL(sscanf(l->line,
                         "pgs_wide: %d rows, %d batches, %d of %d lane slots busy, %d sequential",
                         &rows, &nbat, &busy, &ncol, &seq),
                  5);
  CU_ASSERT_EQUAL(rows, n);
  CU_ASSERT_EQUAL(busy + seq, n);
  CU_ASSERT(identity ? seq == 0 : seq > 0);
  CU_ASSERT(nbat > 0 && busy <= ncol && ncol <= 8 * n);
  const char *how = strstr(l->line, ": ");
  how = how ? strstr(how + 2, ": ") : NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(how);
  CU_ASSERT_STRING_EQUAL(how + 2, expected_sweep(compact));
}

/* pgs_wide on f and pgs on f's rows in pgs_wide's order: `sweeps` sweeps
 * (tol unreachable), from x0 (NULL: zero).  Returns the number of rows
 * whose x differ in any bit; *dmax gets the largest |difference|.  (Bits
 * agree until the first exact recomputation of t = K^T x, at start from a
 * warm x or at sweep 20: the two problems sum K^T x over their rows in
 * different orders.) */
static int mismatches(const fprob *f, int sweeps, const double *x0, int compact, double *dmax) {
  int n = f->n, *ord = malloc((size_t)n * sizeof(int));
  int identity = wide_order(&f->p, ord);
  permuted q;
  permute(f, ord, &q);
  slv_options opt = slv_options_default();
  opt.tol = 1e-300;
  opt.max_iter = sweeps;
  opt.warm_start = x0 != NULL;
  opt.simd = simd;
  slv_workspace *ww, *wp;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), n, &opt, &ww), SLV_OK);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), n, &opt, &wp), SLV_OK);
  double *xw = calloc((size_t)n, sizeof(double)), *xp = calloc((size_t)n, sizeof(double));
  if (x0)
    for (int k = 0; k < n; k++) {
      xw[k] = x0[k];
      xp[k] = x0[ord[k]];
    }
  slv_result rw, rp;
  plan_log log = { 0 };
  slv_options lopt = opt;
  lopt.log_fn = log_plan;
  lopt.log_ctx = &log;
  CU_ASSERT_EQUAL(slv_solve(ww, &f->p, &lopt, xw, NULL, &rw), SLV_MAX_ITER);
  check_plan(&log, n, identity, compact);
  CU_ASSERT_STRING_EQUAL(rw.method, identity && !lanes() ? "pgs" : "pgs_wide");
  CU_ASSERT_EQUAL(slv_solve(wp, &q.p, &opt, xp, NULL, &rp), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(rw.iterations, sweeps);
  CU_ASSERT_EQUAL(rp.iterations, sweeps);
  int bad = 0, moved = 0;
  *dmax = 0;
  for (int k = 0; k < n; k++) {
    bad += memcmp(&xw[ord[k]], &xp[k], sizeof(double)) != 0;
    *dmax = fmax(*dmax, fabs(xw[ord[k]] - xp[k]));
    moved += xp[k] != 0.0;
  }
  CU_ASSERT(moved > n / 4); /* the sweeps did something to compare */
  slv_workspace_free(ww);
  slv_workspace_free(wp);
  free(xw);
  free(xp);
  free(ord);
  permuted_free(&q);
  return bad;
}

/* Bit for bit over 7 sweeps from zero.  After a recomputation of t (45
 * sweeps, or a warm start) bit for bit too when pgs_wide's order is the
 * row order; else to rounding (|x| is O(1) here): the two problems sum
 * K^T x over their rows in different orders.  Returns 1 if the order was
 * the row order. */
static int check_same(const fprob *f, int compact) {
  double d;
  int *ord = malloc((size_t)f->n * sizeof(int));
  int identity = wide_order(&f->p, ord);
  free(ord);
  CU_ASSERT_EQUAL(mismatches(f, 7, NULL, compact, &d), 0);
  int bad = mismatches(f, 45, NULL, compact, &d);
  CU_ASSERT(identity ? bad == 0 : d <= 1e-12);
  double *x0 = calloc((size_t)f->n, sizeof(double)); /* calloc: no maybe-uninitialized for n = 0 */
  for (int i = 0; i < f->n; i++) x0[i] = f->findex[i] < 0 ? 0.1 * (i % 7) : 0.01 * (i % 5 - 2);
  bad = mismatches(f, 7, x0, compact, &d);
  CU_ASSERT(identity ? bad == 0 : d <= 1e-12);
  free(x0);
  return identity;
}

typedef void (*maker)(fprob *, int, int, unsigned long);
static const maker makers[] = { fprob_make, fprob_make_rigid };

/* Normal rows before their friction rows: no sequential group, so
 * pgs_wide is pgs on the problem itself; in general and in rigid-body
 * form (pgs_wide's compact layout). */
static void test_same_iterates(void) {
  for (int v = 0; v < 2; v++) {
    fprob f;
    makers[v](&f, 300, 80, 31);
    CU_ASSERT_EQUAL(check_same(&f, v == 1), 1);
    fprob_free(&f);
  }
}

/* The problem's optional arrays left out (lo = hi = NULL: the standard
 * LCP; fd, findex and mu NULL): pgs_wide's plan fills its rows' data
 * from what is there (the lanes' positions by gathers, pgs_plan.c
 * fill_rows4), so still pgs's iterates bit for bit; the row order is
 * pgs_wide's (no findex: no sequential group). */
static void test_optional_arrays(void) {
  for (int v = 0; v < 2; v++) {
    fprob f;
    makers[v](&f, 300, 80, 37);
    slv_problem p = f.p;
    p.lo = p.hi = NULL;
    p.fd = NULL;
    p.findex = NULL;
    p.mu = NULL;
    if (v == 1) { /* bounds but no findex: a box on every row */
      p.lo = f.lo;
      p.hi = f.hi;
    }
    slv_options opt = slv_options_default();
    opt.tol = 1e-300;
    opt.max_iter = 7;
    opt.simd = simd;
    slv_workspace *ww, *wp;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), p.n, &opt, &ww), SLV_OK);
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), p.n, &opt, &wp), SLV_OK);
    double *xw = calloc((size_t)p.n, sizeof(double)), *xp = calloc((size_t)p.n, sizeof(double));
    slv_result rw, rp;
    CU_ASSERT_EQUAL(slv_solve(ww, &p, &opt, xw, NULL, &rw), SLV_MAX_ITER);
    CU_ASSERT_EQUAL(slv_solve(wp, &p, &opt, xp, NULL, &rp), SLV_MAX_ITER);
    int bad = 0, moved = 0;
    for (int i = 0; i < p.n; i++) {
      bad += memcmp(&xw[i], &xp[i], sizeof(double)) != 0;
      moved += xp[i] != 0.0;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(moved > p.n / 8);
    free(xw);
    free(xp);
    slv_workspace_free(ww);
    slv_workspace_free(wp);
    fprob_free(&f);
  }
}

/* Not quite the rigid-body form, which pgs_wide must notice (else its
 * compact sweep computes another problem's iterates): one row's K with
 * twice its block's inverse mass on the linear columns (no one scalar
 * fits the block); one row's linear J on slot 1 not minus slot 0's (K
 * kept finvm J).  Still pgs's iterates, in the full layout. */
static void test_rigid_claim_false(void) {
  for (int v = 0; v < 2; v++) {
    fprob f;
    fprob_make_rigid(&f, 300, 80, 61);
    if (v == 0) {
      int i = 0;
      while (f.fblk[2 * i] < 0) i++;
      for (int c = 0; c < 3; c++)
        f.fK[12 * i + c] = 2.0 * f.finvm[f.fblk[2 * i]] * f.fJ[12 * i + c];
    } else {
      int i = 0;
      while (f.fblk[2 * i + 1] < 0) i++;
      f.fJ[12 * i + 6] *= 1.5;
      f.fK[12 * i + 6] = f.finvm[f.fblk[2 * i + 1]] * f.fJ[12 * i + 6];
    }
    CU_ASSERT_EQUAL(check_same(&f, 0), 1);
    fprob_free(&f);
  }
}

/* The first row with a slot on a body whose angular J entry c is a
 * nonzero (zero: zero of sign neg) number; its K entry's place in *at. */
static int iso_entry(const fprob *f, int zero, int neg, int *at) {
  for (int i = 0; i < f->n; i++)
    for (int slot = 0; slot < 2; slot++)
      for (int c = 3; c < 6; c++) {
        double j = f->fJ[12 * i + 6 * slot + c];
        if (f->fblk[2 * i + slot] < 0 || (j == 0.0) != zero || (zero && !signbit(j) != !neg))
          continue;
        *at = 12 * i + 6 * slot + c;
        return 1;
      }
  return 0;
}

/* Isotropic bodies (tst_fprob.h, fprob_make_isotropic): the isotropic
 * layout (K's angular columns formed in the lanes, a scalar a block times
 * J's), pgs's iterates bit for bit.  Then problems not quite in that form,
 * which pgs_wide must notice (else its sweep computes another problem's
 * iterates) and sweep in the compact layout, to pgs's bits: one row's K
 * angular entry one ulp up; one angular K entry +0 where J's is -0 (the
 * values agree, the bits do not: the lanes would form -0). */
static void test_isotropic(void) {
  for (int v = 0; v < 3; v++) {
    fprob f;
    fprob_make_isotropic(&f, 300, 80, 67);
    int at = -1;
    if (v == 1) {
      CU_ASSERT_FATAL(iso_entry(&f, 0, 0, &at));
      f.fK[at] = nextafter(f.fK[at], INFINITY);
    } else if (v == 2) {
      CU_ASSERT_FATAL(iso_entry(&f, 1, 1, &at));
      CU_ASSERT(f.fK[at] == 0.0 && signbit(f.fK[at]));
      f.fK[at] = 0.0;
    }
    CU_ASSERT_EQUAL(check_same(&f, v == 0 ? LAY_ISO : LAY_COMPACT), 1);
    fprob_free(&f);
  }
}

/* 20 sweeps of pgs_wide on f in workspace ws from zero into x; returns
 * the sweep its plan line names. */
static const char *sweeps_in(slv_workspace *ws, const fprob *f, double *x, plan_log *log) {
  slv_options opt = slv_options_default();
  opt.tol = 1e-300;
  opt.max_iter = 20;
  opt.simd = simd;
  opt.log_fn = log_plan;
  opt.log_ctx = log;
  memset(log, 0, sizeof *log);
  memset(x, 0, (size_t)f->n * sizeof *x);
  slv_result r;
  CU_ASSERT_EQUAL(slv_solve(ws, &f->p, &opt, x, NULL, &r), SLV_MAX_ITER);
  const char *how = strstr(log->line, ": ");
  how = how ? strstr(how + 2, ": ") : NULL;
  return how ? how + 2 : "";
}

/* f solved by the workspace kept across solves (x in xk) and by a fresh
 * one (xf), to the sweeps expected_sweep(kept_lay) and (fresh_lay) name:
 * the same plan line when they are the same layout, and the same bits. */
static void kept_fresh_in(slv_workspace *kept, const fprob *f, int nmax, int kept_lay,
                          int fresh_lay, double *xk, double *xf) {
  slv_options opt = slv_options_default();
  slv_workspace *fresh;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), nmax, &opt, &fresh), SLV_OK);
  plan_log lk, lf;
  CU_ASSERT_STRING_EQUAL(sweeps_in(kept, f, xk, &lk), expected_sweep(kept_lay));
  CU_ASSERT_STRING_EQUAL(sweeps_in(fresh, f, xf, &lf), expected_sweep(fresh_lay));
  if (kept_lay == fresh_lay) CU_ASSERT_STRING_EQUAL(lk.line, lf.line);
  CU_ASSERT(memcmp(xk, xf, (size_t)f->n * sizeof(double)) == 0);
  slv_workspace_free(fresh);
}

/* The m problems of seq in turn by one kept workspace and each by a fresh
 * one (kept_fresh_in, to the layouts kept_lay[k] and fresh_lay[k]); the
 * solves did something (x of the last moved). */
static void kept_sequence(const fprob *const *seq, const int *kept_lay, const int *fresh_lay,
                          size_t m) {
  int nmax = 0;
  for (size_t k = 0; k < m; k++)
    if (seq[k]->n > nmax) nmax = seq[k]->n;
  slv_options opt = slv_options_default();
  slv_workspace *kept;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), nmax, &opt, &kept), SLV_OK);
  double *xk = malloc((size_t)nmax * sizeof(double)), *xf = malloc((size_t)nmax * sizeof(double));
  for (size_t k = 0; k < m; k++)
    kept_fresh_in(kept, seq[k], nmax, kept_lay[k], fresh_lay[k], xk, xf);
  int moved = 0, n = seq[m - 1]->n;
  for (int i = 0; i < n; i++) moved += xk[i] != 0.0;
  CU_ASSERT(moved > n / 4);
  slv_workspace_free(kept);
  free(xk);
  free(xf);
}

/* A workspace keeps the blocks' scalars of its last compact solve and
 * tries them first (a world's bodies keep their masses).  Whatever came
 * before, a solve gives the bits a fresh workspace gives, in the layout
 * the problem allows: the same problem again; another rigid problem (other
 * masses, other blocks); the first with one block's mass doubled (K's
 * linear columns of that block 2 finvm J: only that block's scalar is
 * wrong); a problem not in rigid-body form; then the rigid one again. */
static void test_masses_kept(void) {
  fprob a, b, c, d;
  fprob_make_rigid(&a, 300, 80, 31);
  fprob_make_rigid(&b, 280, 70, 32);
  fprob_make_rigid(&c, 300, 80, 31);
  fprob_make(&d, 300, 80, 33);
  int blk = c.fblk[0] >= 0 ? c.fblk[0] : c.fblk[1];
  for (int i = 0; i < c.n; i++)
    for (int slot = 0; slot < 2; slot++)
      if (c.fblk[2 * i + slot] == blk)
        for (int k = 0; k < 3; k++)
          c.fK[12 * i + 6 * slot + k] = 2.0 * c.finvm[blk] * c.fJ[12 * i + 6 * slot + k];
  const fprob *seq[] = { &a, &a, &b, &c, &d, &a };
  const int rigid[] = { 1, 1, 1, 1, 0, 1 };
  kept_sequence(seq, rigid, rigid, sizeof seq / sizeof *seq);
  fprob_free(&a);
  fprob_free(&b);
  fprob_free(&c);
  fprob_free(&d);
}

/* The same for the angular scalars of the isotropic layout: isotropic a
 * twice (the second on the kept scalars); rigid b (compact); a again; a
 * with one block's angular scalar doubled (c: only that block's kept
 * scalar is wrong, derived again); general d (full); a again; a with one
 * block not isotropic (e: K's first angular column of that block twice
 * the scalar's, so no scalar fits it; compact); a again, which the kept
 * workspace sweeps compact (a block found not isotropic stays so while
 * the kept masses fit: a world's bodies keep their inertias) and a fresh
 * one isotropic, to the same bits; b, whose masses make the kept
 * workspace derive its scalars again; and a, isotropic in both. */
static void test_angular_kept(void) {
  fprob a, b, c, d, e;
  fprob_make_isotropic(&a, 300, 80, 43);
  fprob_make_rigid(&b, 280, 70, 44);
  fprob_make_isotropic(&c, 300, 80, 43);
  fprob_make(&d, 300, 80, 45);
  fprob_make_isotropic(&e, 300, 80, 43);
  int blk = a.fblk[0] >= 0 ? a.fblk[0] : a.fblk[1];
  for (int i = 0; i < a.n; i++)
    for (int slot = 0; slot < 2; slot++)
      if (a.fblk[2 * i + slot] == blk) {
        double *J = a.fJ + 12 * i + 6 * slot;
        for (int k = 3; k < 6; k++) c.fK[12 * i + 6 * slot + k] = 2.0 * c.finvi[blk] * J[k];
        e.fK[12 * i + 6 * slot + 3] = 2.0 * e.finvi[blk] * J[3];
      }
  const fprob *seq[] = { &a, &a, &b, &a, &c, &d, &a, &e, &a, &b, &a };
  const int lay[] = { LAY_ISO, LAY_ISO,     LAY_COMPACT, LAY_ISO,     LAY_ISO, LAY_FULL,
                      LAY_ISO, LAY_COMPACT, LAY_COMPACT, LAY_COMPACT, LAY_ISO };
  int fresh[sizeof lay / sizeof *lay];
  memcpy(fresh, lay, sizeof lay);
  fresh[8] = LAY_ISO;
  kept_sequence(seq, lay, fresh, sizeof seq / sizeof *seq);
  fprob_free(&a);
  fprob_free(&b);
  fprob_free(&c);
  fprob_free(&d);
  fprob_free(&e);
}

/* A workspace keeps its last first-fit plan (groups, batches, layout) and
 * reuses it when the next problem has the same rows on the same block
 * pairs with the same findex (libsolvers/pgs_plan.c, plan_kept).  Whatever
 * came before, a solve gives the bits a fresh workspace gives: the same
 * problem again (kept); new values on the same structure (kept: other b,
 * other x); another problem of the same size (other block pairs: made
 * anew); the first again; the first with one friction row's findex moved
 * to a later contact's normal (its group becomes sequential: made anew);
 * the first again (anew) and again (kept). */
static void test_plan_kept(void) {
  fprob a, v, o, f;
  fprob_make_rigid(&a, 300, 80, 41);
  fprob_make_rigid(&v, 300, 80, 41);
  fprob_make_rigid(&o, 300, 80, 42);
  fprob_make_rigid(&f, 300, 80, 41);
  for (int i = 0; i < v.n; i++) v.b[i] = 0.5 - 0.7 * v.b[i];
  CU_ASSERT_EQUAL_FATAL(f.findex[3 * 2 + 1], 3 * 2);
  f.findex[3 * 2 + 1] = 3 * 40;
  CU_ASSERT_EQUAL_FATAL(o.n, a.n);
  const fprob *seq[] = { &a, &a, &v, &o, &a, &f, &a, &a };
  int n = a.n;
  slv_options opt = slv_options_default();
  slv_workspace *kept;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), n, &opt, &kept), SLV_OK);
  double *xk = malloc((size_t)n * sizeof(double)), *xf = malloc((size_t)n * sizeof(double));
  double *xa = malloc((size_t)n * sizeof(double));
  for (size_t k = 0; k < sizeof seq / sizeof *seq; k++) {
    kept_fresh_in(kept, seq[k], n, LAY_COMPACT, LAY_COMPACT, xk, xf);
    if (k == 0) memcpy(xa, xk, (size_t)n * sizeof(double));
    /* the other problems are other problems: their x differ from a's */
    if (seq[k] != &a) CU_ASSERT(memcmp(xk, xa, (size_t)n * sizeof(double)) != 0);
  }
  slv_workspace_free(kept);
  free(xk);
  free(xf);
  free(xa);
  fprob_free(&a);
  fprob_free(&v);
  fprob_free(&o);
  fprob_free(&f);
}

/* 4 bodies, 150 contacts: each body is on ~225 rows, so the batches form
 * long chains, most of them with one or two lanes busy. */
static void test_crowded_bodies(void) {
  fprob f;
  fprob_make(&f, 150, 4, 37);
  CU_ASSERT_EQUAL(check_same(&f, 0), 1);
  fprob_free(&f);
}

/* Friction rows before their normal rows.  Reversed rows: each contact's
 * findex points forward inside its own group, which does not count, so
 * the order is still the row order.  All normal rows moved after all
 * friction rows: every friction group reads a later group's x, so it is
 * sequential and the order is not the row order. */
static void test_findex_forward(void) {
  fprob f;
  fprob_make(&f, 80, 30, 41);
  int n = f.n, *ord = malloc((size_t)n * sizeof(int));
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < n; k++) ord[k] = n - 1 - k;
    if (pass == 1) {
      int k = 0;
      for (int i = 0; i < n; i++)
        if (f.findex[i] >= 0) ord[k++] = i;
      for (int i = 0; i < n; i++)
        if (f.findex[i] < 0) ord[k++] = i;
    }
    permuted q;
    permute(&f, ord, &q);
    fprob g = permuted_view(&f, &q);
    CU_ASSERT_EQUAL(check_same(&g, 0), pass == 0);
    permuted_free(&q);
  }
  free(ord);
  fprob_free(&f);
}

/* Friction rows bounded by the normal row of another contact (the one
 * before; findex may name any row): the group of that row is on other
 * blocks, so only the findex rule keeps the two groups in order. */
static void test_findex_other_pair(void) {
  fprob f;
  fprob_make(&f, 200, 60, 47);
  int moved = 0;
  for (int i = 3; i < f.n; i++)
    if (f.findex[i] >= 0) {
      f.findex[i] -= 3;
      int g = f.findex[i];
      moved += f.fblk[2 * i] != f.fblk[2 * g] || f.fblk[2 * i + 1] != f.fblk[2 * g + 1];
    }
  CU_ASSERT(moved > f.n / 2);
  CU_ASSERT_EQUAL(check_same(&f, 0), 1);
  fprob_free(&f);
}

/* Unused slots (fblk -1) with junk in fJ and fK, which pgs never reads:
 * half of the one-body contacts move their body to slot 1 (slot 0 unused),
 * so that both slots' masks in the lanes' columns are exercised. */
static void unused_slots(maker make, double scale) {
  fprob f;
  make(&f, 300, 80, 43);
  int moved = 0, kept = 0;
  for (int c = 0; c < f.n / 3; c++) {
    if (f.fblk[6 * c + 1] >= 0) continue;
    int swap = (moved + kept) % 2 == 0;
    for (int i = 3 * c; i < 3 * c + 3; i++) {
      double *J = f.fJ + 12 * i, *K = f.fK + 12 * i;
      if (swap) {
        f.fblk[2 * i + 1] = f.fblk[2 * i];
        f.fblk[2 * i] = -1;
        memcpy(J + 6, J, 6 * sizeof *J);
        memcpy(K + 6, K, 6 * sizeof *K);
      }
      int u = swap ? 0 : 6; /* the unused slot's first column */
      for (int e = 0; e < 6; e++) {
        J[u + e] = (7.0 + e) * scale;
        K[u + e] = (-3.0 - e) * scale;
      }
    }
    swap ? moved++ : kept++;
  }
  CU_ASSERT(moved > 10 && kept > 10);
  CU_ASSERT_EQUAL(check_same(&f, make == fprob_make_rigid), 1);
  fprob_free(&f);
}

static void test_unused_slots(void) {
  unused_slots(fprob_make, 1.0);
  unused_slots(fprob_make_rigid, 1.0);
  /* junk whose products J_c K_c overflow: slv_solve's validation then
   * leaves no A_ii (problem.c, factored_all_ok), and the plan forms them */
  unused_slots(fprob_make, 1e200);
  unused_slots(fprob_make_rigid, 1e200);
}

/* Contacts sorted by block pair, as a collision pass emits manifolds: runs
 * of several contacts on one pair (3 rows each), the longest over 12 rows,
 * so groups of several lengths and runs cut at 12. */
static void manifolds(maker make) {
  fprob f;
  make(&f, 240, 10, 59);
  int nc = f.n / 3, *cs = malloc((size_t)nc * sizeof(int)),
      *ord = malloc((size_t)f.n * sizeof(int));
  for (int c = 0; c < nc; c++) cs[c] = c;
  for (int a = 1; a < nc; a++) /* insertion sort by (slot 0, slot 1): stable */
    for (int b = a; b > 0; b--) {
      const int *p = f.fblk + 6 * cs[b - 1], *q = f.fblk + 6 * cs[b];
      if (p[0] < q[0] || (p[0] == q[0] && p[1] <= q[1])) break;
      int t = cs[b];
      cs[b] = cs[b - 1];
      cs[b - 1] = t;
    }
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < 3; j++) ord[3 * c + j] = 3 * cs[c] + j;
  permuted q;
  permute(&f, ord, &q);
  int longest = 0;
  for (int i = 0, run = 0; i < f.n; i++) {
    run = i > 0 && q.fblk[2 * i] == q.fblk[2 * i - 2] && q.fblk[2 * i + 1] == q.fblk[2 * i - 1]
              ? run + 1
              : 1;
    if (run > longest) longest = run;
  }
  CU_ASSERT(longest > 12); /* the cut at 12 rows is exercised */
  fprob g = permuted_view(&f, &q);
  CU_ASSERT_EQUAL(check_same(&g, make == fprob_make_rigid), 1);
  permuted_free(&q);
  free(cs);
  free(ord);
  fprob_free(&f);
}

static void test_manifolds(void) {
  manifolds(fprob_make);
  manifolds(fprob_make_rigid);
}

static void test_converges(void) {
  fprob f;
  fprob_make(&f, 120, 40, 43);
  int n = f.n;
  slv_options opt = slv_options_default();
  opt.tol = 1e-10;
  opt.max_iter = 20000;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), n, &opt, &ws), SLV_OK);
  double *x = calloc((size_t)n, sizeof(double));
  slv_result r;
  CU_ASSERT_EQUAL(slv_solve(ws, &f.p, &opt, x, NULL, &r), SLV_CONVERGED);
  CU_ASSERT(r.iterations > 5);
  CU_ASSERT(fprob_residual(&f, x) <= 1e-10); /* ||b||_inf <= 1: relative = absolute */
  slv_workspace_free(ws);
  free(x);
  fprob_free(&f);
}

/* The exact measures the sweeping solvers stop on (pgs_wide's and
 * pgs_part's in the lanes or one row at a time, pgs_color's from its own
 * K^T x, pgs's) are the library's: at an exact check the solver's own
 * number (result.solver_residual, the test's measure there) is, bit for
 * bit, the measure slv_solve takes of the x it returns (result.res).
 * max_iter = check_every = 20 puts a check on the last sweep (also under
 * the 2-norm option); tol 1e-3 converges on the trigger or a check; a
 * warm start at that answer is decided by the start's check.  And the w
 * slv_solve returns is slv_problem_w's of that x, bit for bit, after each
 * of these endings (slv_solve keeps K^T x from a solver's last check where
 * the solver says it is x's: slv_op.t_current) and after max_iter = 25,
 * five sweeps past the last check (x moved since: K^T x is formed again;
 * a library that kept the check's fails here). */
static void test_check_is_the_judges(void) {
  const char *names[] = { "pgs_wide", "pgs_color", "pgs_part", "pgs" };
  for (int v = 0; v < 3; v++) {
    /* v = 2: the rigid problem with d = 0, so that its normal and friction
     * rows are the row kinds the AVX-512 lanes read by their kind alone
     * (lo, hi and d not loaded; x_f from the row steps before) */
    int rigid = v > 0;
    fprob f;
    (rigid ? fprob_make_rigid : fprob_make)(&f, 90, 30, 71 + (unsigned long)rigid);
    if (v == 2) f.p.fd = NULL;
    int n = f.n;
    double *x = calloc((size_t)n, sizeof *x), *xs = calloc((size_t)n, sizeof *xs);
    double *w = calloc((size_t)n, sizeof *w), *wp = calloc((size_t)n, sizeof *wp);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
      slv_options opt = slv_options_default();
      slv_workspace *ws;
      CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(names[k]), n, &opt, &ws), SLV_OK);
      for (int c = 0; c < 5; c++) {
        opt = slv_options_default();
        opt.simd = simd;
        opt.check_every = 20;
        opt.max_iter = c < 2 ? 20 : c == 4 ? 25 : 1000;
        opt.tol = c < 2 || c == 4 ? 1e-14 : 1e-3;
        opt.norm = c == 1 ? SLV_NORM_2 : SLV_NORM_INF;
        opt.warm_start = c == 3;
        if (c == 3)
          memcpy(x, xs, (size_t)n * sizeof *x);
        else
          memset(x, 0, (size_t)n * sizeof *x);
        slv_result r;
        slv_status st = slv_solve(ws, &f.p, &opt, x, w, &r);
        CU_ASSERT_EQUAL(st, c < 2 || c == 4 ? SLV_MAX_ITER : SLV_CONVERGED);
        if (c != 2) CU_ASSERT_EQUAL(r.iterations, c < 2 ? 20 : c == 4 ? 25 : 0);
        double judge = c == 1 ? fmax(r.res.res_scaled, r.res.res_rel_2) : r.res.res_scaled;
        if (c < 4) CU_ASSERT(memcmp(&r.solver_residual, &judge, sizeof judge) == 0);
        slv_problem_w(&f.p, x, wp);
        int bad = 0;
        for (int i = 0; i < n; i++) bad += memcmp(&w[i], &wp[i], sizeof *w) != 0;
        CU_ASSERT_EQUAL(bad, 0);
        if (c == 2) memcpy(xs, x, (size_t)n * sizeof *x);
      }
      slv_workspace_free(ws);
    }
    free(x);
    free(xs);
    free(w);
    free(wp);
    fprob_free(&f);
  }
}

static void test_dense_is_pgs(void) {
  fprob f;
  fprob_make(&f, 40, 15, 47);
  slv_problem d = fprob_dense(&f);
  int n = f.n;
  slv_options opt = slv_options_default();
  opt.tol = 1e-9;
  opt.max_iter = 5000;
  slv_workspace *ww, *wp;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), n, &opt, &ww), SLV_OK);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), n, &opt, &wp), SLV_OK);
  double *xw = calloc((size_t)n, sizeof(double)), *xp = calloc((size_t)n, sizeof(double));
  slv_result rw, rp;
  CU_ASSERT_EQUAL(slv_solve(ww, &d, &opt, xw, NULL, &rw), SLV_CONVERGED);
  CU_ASSERT_EQUAL(slv_solve(wp, &d, &opt, xp, NULL, &rp), SLV_CONVERGED);
  CU_ASSERT_STRING_EQUAL(rw.method, "pgs");
  CU_ASSERT_STRING_EQUAL(rp.method, "pgs");
  CU_ASSERT_EQUAL(rw.iterations, rp.iterations);
  CU_ASSERT(memcmp(xw, xp, (size_t)n * sizeof(double)) == 0);
  slv_workspace_free(ww);
  slv_workspace_free(wp);
  free(xw);
  free(xp);
  fprob_free(&f);
}

/* Contact 0's J and K scaled by 1e160: A(0,0) overflows, and from a warm
 * start w does; the solve must say so. */
static void test_not_finite(void) {
  fprob f;
  fprob_make(&f, 30, 10, 53);
  int n = f.n;
  for (int e = 0; e < 36; e++) {
    f.fJ[e] *= 1e160;
    f.fK[e] *= 1e160;
  }
  slv_options opt = slv_options_default();
  opt.warm_start = 1;
  opt.simd = simd;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_wide"), n, &opt, &ws), SLV_OK);
  double *x = calloc((size_t)n, sizeof(double));
  x[0] = 1.0;
  slv_result r;
  slv_status st = slv_solve(ws, &f.p, &opt, x, NULL, &r);
  CU_ASSERT_EQUAL(st, SLV_NOT_FINITE);
  slv_workspace_free(ws);
  free(x);
  fprob_free(&f);
}

/* A large world-like problem for the threaded plan (the dense reference
 * of tst_fprob would not fit): bodies on an NX x NY x NZ lattice, a
 * contact (normal, two friction rows findex'ed to it, mu 0.5) between
 * each body and its +x, +y and +z neighbours and one with the ground
 * (static slot) under the bottom layer, in a shuffled order (a
 * broadphase's order is not the lattice's); with manifolds, every fifth
 * contact has four points (12 rows on one pair, as a box-box manifold:
 * batches of unequal work, which the threads' parts must balance; the
 * random points make it slow to converge); rigid form as in
 * tst_fprob.h when rigid (the compact lanes), else K = W J with a full 6x6
 * W per body.  With 28 x 28 x 4 bodies: 9184 contacts (groups), 27,552
 * rows (44,085 with manifolds), in 21-23 levels of 50-55 batches: above
 * pgs_wide's thresholds for threads (4096 groups, 16 batches per thread
 * and level, also at 3 threads). */
enum { LNX = 28, LNY = 28, LNZ = 4 };
typedef struct {
  int n, nblk, *fblk, *findex;
  double *fJ, *fK, *fd, *b, *lo, *hi, *mu;
  slv_problem p;
} lattice;

static double lcg(uint64_t *st) {
  *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*st >> 11) * 0x1.0p-53;
}

static void lattice_make(lattice *L, int rigid, int manifolds, uint64_t seed) {
  int nb = LNX * LNY * LNZ, nc = 0, cap = 4 * nb;
  int(*pr)[2] = malloc((size_t)cap * sizeof *pr);
  for (int z = 0; z < LNZ; z++)
    for (int y = 0; y < LNY; y++)
      for (int x = 0; x < LNX; x++) {
        int b = x + LNX * (y + LNY * z);
        if (x + 1 < LNX) pr[nc][0] = b, pr[nc++][1] = b + 1;
        if (y + 1 < LNY) pr[nc][0] = b, pr[nc++][1] = b + LNX;
        if (z + 1 < LNZ) pr[nc][0] = b, pr[nc++][1] = b + LNX * LNY;
        if (z == 0) pr[nc][0] = b, pr[nc++][1] = -1;
      }
  uint64_t st = seed;
  for (int c = nc - 1; c > 0; c--) { /* Fisher-Yates */
    int j = (int)(lcg(&st) * (c + 1)), t0 = pr[c][0], t1 = pr[c][1];
    pr[c][0] = pr[j][0], pr[c][1] = pr[j][1], pr[j][0] = t0, pr[j][1] = t1;
  }
  int n = 0;
  for (int c = 0; c < nc; c++) n += manifolds && c % 5 == 0 ? 12 : 3; /* a 4-point manifold */
  memset(L, 0, sizeof *L);
  L->n = n;
  L->nblk = nb;
  L->fblk = malloc(2 * (size_t)n * sizeof(int));
  L->findex = malloc((size_t)n * sizeof(int));
  L->fJ = calloc(12 * (size_t)n, sizeof(double));
  L->fK = calloc(12 * (size_t)n, sizeof(double));
  double **v[] = { &L->fd, &L->b, &L->lo, &L->hi, &L->mu };
  for (int a = 0; a < 5; a++) *v[a] = malloc((size_t)n * sizeof(double));
  double *W = malloc(36 * (size_t)nb * sizeof(double)), *im = malloc((size_t)nb * sizeof(double));
  for (int b = 0; b < nb; b++) {
    double B[36];
    for (int k = 0; k < 36; k++) B[k] = lcg(&st) - 0.5;
    im[b] = 0.5 + lcg(&st);
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
        double t = i == j ? 0.5 : 0.0;
        for (int k = 0; k < 6; k++) t += B[i * 6 + k] * B[j * 6 + k] / 6.0;
        if (rigid && (i < 3 || j < 3)) t = i == j ? im[b] : 0.0;
        W[36 * b + 6 * i + j] = t;
      }
  }
  for (int c = 0, i = 0; c < nc; c++)
    for (int q = 0; q < (manifolds && c % 5 == 0 ? 12 : 3); q++, i++) {
      int q3 = q % 3;
      L->fblk[2 * i] = pr[c][0];
      L->fblk[2 * i + 1] = pr[c][1];
      for (int k = 0; k < 2; k++) {
        int b = pr[c][k];
        if (b < 0) continue;
        double *J = L->fJ + 12 * i + 6 * k, *K = L->fK + 12 * i + 6 * k;
        for (int e = 0; e < 6; e++) J[e] = lcg(&st) - 0.5;
        if (rigid && k == 1)
          for (int e = 0; e < 3; e++) J[e] = -J[e - 6];
        for (int e = 0; e < 6; e++) {
          K[e] = 0;
          for (int g = 0; g < 6; g++) K[e] += W[36 * b + 6 * e + g] * J[g];
        }
        if (rigid)
          for (int e = 0; e < 3; e++) K[e] = im[b] * J[e];
      }
      L->fd[i] = 1e-3 * lcg(&st);
      L->b[i] = 2.0 * lcg(&st) - 1.0;
      L->lo[i] = q3 == 0 ? 0.0 : -INFINITY;
      L->hi[i] = INFINITY;
      L->findex[i] = q3 == 0 ? -1 : i - q3;
      L->mu[i] = q3 == 0 ? 0.0 : 0.5;
    }
  free(W);
  free(im);
  free(pr);
  slv_problem p = slv_problem_empty();
  p.n = n;
  p.storage = SLV_FACTORED;
  p.nblk = nb;
  p.fblk = L->fblk;
  p.fJ = L->fJ;
  p.fK = L->fK;
  p.fd = L->fd;
  p.b = L->b;
  p.lo = L->lo;
  p.hi = L->hi;
  p.findex = L->findex;
  p.mu = L->mu;
  L->p = p;
}

/* Every 40th contact's normal row moved to the end of the problem: its
 * friction rows then read the x of a later group (a sequential group,
 * swept after the levels, on one thread). */
static void lattice_move_normals(lattice *L) {
  int n = L->n, k = 0, *ord = malloc((size_t)n * sizeof(int)),
      *pos = malloc((size_t)n * sizeof(int));
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      int moved = L->findex[i] < 0 && (i / 3) % 40 == 0;
      if (moved == pass) ord[k++] = i;
    }
  for (int j = 0; j < n; j++) pos[ord[j]] = j;
  int *ib = malloc(2 * (size_t)n * sizeof(int)), *fx = malloc((size_t)n * sizeof(int));
  double *jk = malloc(24 * (size_t)n * sizeof(double)), *v = malloc(5 * (size_t)n * sizeof(double));
  double *arr[] = { L->fd, L->b, L->lo, L->hi, L->mu };
  for (int j = 0; j < n; j++) {
    int i = ord[j];
    ib[2 * j] = L->fblk[2 * i], ib[2 * j + 1] = L->fblk[2 * i + 1];
    fx[j] = L->findex[i] >= 0 ? pos[L->findex[i]] : -1;
    memcpy(jk + 12 * (size_t)j, L->fJ + 12 * (size_t)i, 12 * sizeof(double));
    memcpy(jk + 12 * ((size_t)n + j), L->fK + 12 * (size_t)i, 12 * sizeof(double));
    for (int a = 0; a < 5; a++) v[(size_t)a * n + j] = arr[a][i];
  }
  memcpy(L->fblk, ib, 2 * (size_t)n * sizeof(int));
  memcpy(L->findex, fx, (size_t)n * sizeof(int));
  memcpy(L->fJ, jk, 12 * (size_t)n * sizeof(double));
  memcpy(L->fK, jk + 12 * (size_t)n, 12 * (size_t)n * sizeof(double));
  for (int a = 0; a < 5; a++) memcpy(arr[a], v + (size_t)a * n, (size_t)n * sizeof(double));
  free(ord);
  free(pos);
  free(ib);
  free(fx);
  free(jk);
  free(v);
}

static void lattice_free(lattice *L) {
  free(L->fblk);
  free(L->findex);
  free(L->fJ);
  free(L->fK);
  double *v[] = { L->fd, L->b, L->lo, L->hi, L->mu };
  for (int a = 0; a < 5; a++) free(v[a]);
}

/* The three lattices of the threaded tests, by v: 0 general; 1 rigid form
 * with four-point manifolds; 2 general with every 40th normal row moved
 * to the end (friction groups on later groups). */
static void lattice_variant(lattice *L, int v) {
  lattice_make(L, v == 1, v == 1, 71 + (uint64_t)v);
  if (v == 2) lattice_move_normals(L);
}

/* One solve of the lattice by `name` on `threads`: x from zero (or x0),
 * the plan line in *log. */
static slv_status lattice_solve(const lattice *L, const char *name, int threads, double tol,
                                int max_iter, const double *x0, double *x, slv_result *r,
                                plan_log *log) {
  slv_options opt = slv_options_default();
  opt.tol = tol;
  opt.max_iter = max_iter;
  opt.check_every = 5; /* the recomputations of t within few sweeps */
  opt.simd = simd;
  opt.threads = threads;
  opt.warm_start = x0 != NULL;
  opt.log_fn = log_plan;
  opt.log_ctx = log;
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(name), L->n, &opt, &ws), SLV_OK);
  for (int i = 0; i < L->n; i++) x[i] = x0 ? x0[i] : 0.0;
  slv_status st = slv_solve(ws, &L->p, &opt, x, NULL, r);
  slv_workspace_free(ws);
  return st;
}

/* Rows of x and y that differ in any bit. */
static int differ(const double *x, const double *y, int n) {
  int bad = 0;
  for (int i = 0; i < n; i++) bad += memcmp(&x[i], &y[i], sizeof(double)) != 0;
  return bad;
}

/* opt.threads (docs/solvers.md, "pgs_wide", "Threads"): on 1, 2 and 3
 * threads the same x bit for bit, the same sweep count and the same
 * residual; 12 sweeps from zero (check_every 5: past the recomputations
 * of t at 5 and 10), 8 from a warm start, and, on the first lattice, a
 * solve to convergence (tol 5e-2, ~70 sweeps).  The fixed-sweep runs of
 * the first two also give pgs's x bit for bit (pgs_wide's order is their
 * row order: no sequential group); the converging one is compared between thread counts
 * only, as pgs also stops on the exact residual of its check sweeps and
 * pgs_wide does not (then their sweep counts may differ).  The plan line
 * says whether the levels ran on threads: on 2 and 3 (in the lanes), with
 * more than one level; not on 1.  Three lattices: general, rigid form with
 * manifolds, and general with every 40th normal row moved to the end
 * (sequential groups, swept after the levels on one thread; not pgs's row
 * order, so compared between thread counts only).  Few sweeps: on a loaded
 * machine each level's barrier may wait for a descheduled thread. */
static void test_threads(void) {
  const struct {
    double tol;
    int max_iter, warm;
    slv_status st;
  } runs[] = { { 1e-300, 12, 0, SLV_MAX_ITER },
               { 1e-300, 8, 1, SLV_MAX_ITER },
               { 5e-2, 300, 0, SLV_CONVERGED } };
  for (int v = 0; v < 3; v++) {
    int seq = v == 2; /* seq: sequential groups (not pgs's row order) */
    lattice L;
    lattice_variant(&L, v);
    int n = L.n;
    size_t sz = (size_t)n * sizeof(double);
    double *x0 = malloc(sz), *ref = malloc(sz), *x1 = malloc(sz), *x = malloc(sz);
    for (int i = 0; i < n; i++) x0[i] = L.findex[i] < 0 ? 0.1 * (i % 7) : 0.01 * (i % 5 - 2);
    for (int k = 0; k < (v ? 2 : 3); k++) { /* one converging run (the slow part) */
      slv_result rp, r1, r;
      plan_log lg = { 0 };
      const double *w0 = runs[k].warm ? x0 : NULL;
      double tol = runs[k].tol;
      int it = runs[k].max_iter;
      if (runs[k].st == SLV_MAX_ITER && !seq) {
        CU_ASSERT_EQUAL(lattice_solve(&L, "pgs", 1, tol, it, w0, ref, &rp, &lg), SLV_MAX_ITER);
      }
      for (int th = 1; th <= 3; th++) {
        int split = th > 1 && lanes(); /* without the lanes: pgs itself, on one thread */
        slv_result *rr = th == 1 ? &r1 : &r;
        memset(&lg, 0, sizeof lg);
        slv_status st = lattice_solve(&L, "pgs_wide", th, tol, it, w0, th == 1 ? x1 : x, rr, &lg);
        CU_ASSERT_EQUAL(st, runs[k].st);
        CU_ASSERT_EQUAL(lg.count, 1);
        int lev = 0, on = 0;
        const char *at = strstr(lg.line, "sequential rows, ");
        if (split) {
          CU_ASSERT(at && sscanf(at, "sequential rows, %d levels on %d threads", &lev, &on) == 2);
          CU_ASSERT_EQUAL(on, th);
          CU_ASSERT(lev > 1);
        } else {
          CU_ASSERT_PTR_NULL(at);
        }
        CU_ASSERT_STRING_EQUAL(rr->method, lanes() || seq ? "pgs_wide" : "pgs");
        const char *sq = strstr(lg.line, "busy, ");
        int nseq = -1;
        if (lanes() || seq) CU_ASSERT(sq && sscanf(sq, "busy, %d sequential", &nseq) == 1);
        if (seq) CU_ASSERT(nseq > 0);
        if (th > 1) {
          CU_ASSERT_EQUAL(r.iterations, r1.iterations);
          CU_ASSERT(memcmp(&r.solver_residual, &r1.solver_residual, sizeof(double)) == 0);
          int bad = differ(x, x1, n);
          CU_ASSERT_EQUAL(bad, 0);
          if (bad)
            printf("\n  variant %d, run %d, %d threads: %d of %d rows differ from 1 thread", v, k,
                   th, bad, n);
        }
      }
      CU_ASSERT(r1.iterations >= 8);
      if (runs[k].st == SLV_MAX_ITER && !seq) {
        int bad = differ(x1, ref, n);
        CU_ASSERT_EQUAL(bad, 0);
        if (bad) printf("\n  variant %d, run %d: %d of %d rows differ from pgs", v, k, bad, n);
      }
    }
    free(x0);
    free(ref);
    free(x1);
    free(x);
    lattice_free(&L);
  }
}

/* ---- pgs_color ------------------------------------------------------------
 * pgs_color claims (libsolvers/pgs_wide.c, "pgs_color"; docs/solvers.md,
 * "pgs_color"): the groups of pgs_wide, each given, in group order, the
 * smallest of 64 colours that no earlier group on either of its blocks
 * holds, nor an earlier group it shares a findex dependency with (either
 * direction); a group without a free colour overflows; the sweep is
 * colour 0, 1, ... (each colour's groups in group order) and then the
 * overflow groups' rows in row order, one row at a time as pgs would
 * sweep them.  The test colours the groups itself from that rule
 * (color_groups), checks that its colouring has the property the sweep
 * relies on (no two groups of a colour on one block or findex-coupled),
 * permutes the rows into that order and runs pgs there: pgs_color's x
 * must be those bits.  That fails if the solver puts two dependent groups
 * into one colour (the lanes of a batch then clobber each other's t, or
 * read each other's x mid-step), or sweeps another order. */
enum { NCOLORS = 64 };
typedef struct {
  int ng, ncolors, noverflow; /* groups, colours used, rows of overflow groups */
  int *gfirst, *gcol;         /* ng + 1: first row of each group; ng: colour, -1 overflow */
} coloring;

/* The groups (as wide_order) and their colours, by the documented rule;
 * the findex dependencies between groups as a list of (group, group)
 * edges, scanned whole for each group (few here).  Only the groups g with
 * gmask[g] set take part (gmask NULL: all; the others get colour -2, mark
 * no block and constrain no group: pgs_part's separator). */
static void color_some_groups(const slv_problem *p, coloring *c, const char *gmask) {
  int n = p->n, ng = 0, ne = 0;
  c->gfirst = malloc(((size_t)n + 1) * sizeof(int));
  c->gcol = malloc(((size_t)n + 1) * sizeof(int));
  int *gid = malloc(((size_t)n + 1) * sizeof(int)),
      (*edge)[2] = malloc(((size_t)n + 1) * sizeof *edge);
  for (int i = 0, e; i < n; i = e) {
    for (e = i + 1; e < n && e - i < GMAX; e++)
      if (p->fblk[2 * e] != p->fblk[2 * i] || p->fblk[2 * e + 1] != p->fblk[2 * i + 1]) break;
    for (int r = i; r < e; r++) gid[r] = ng;
    c->gfirst[ng++] = i;
  }
  c->gfirst[ng] = n;
  for (int r = 0; p->findex && r < n; r++)
    if (p->findex[r] >= 0 && gid[p->findex[r]] != gid[r]) {
      edge[ne][0] = gid[r];
      edge[ne++][1] = gid[p->findex[r]];
    }
  char *used = calloc((size_t)p->nblk * NCOLORS + 1, 1);
  c->ng = ng;
  c->ncolors = c->noverflow = 0;
  for (int g = 0; g < ng; g++) {
    char taken[NCOLORS] = { 0 };
    int i = c->gfirst[g];
    if (gmask && !gmask[g]) {
      c->gcol[g] = -2;
      continue;
    }
    for (int s = 0; s < 2; s++) {
      int b = p->fblk[2 * i + s];
      for (int k = 0; b >= 0 && k < NCOLORS; k++) taken[k] |= used[(size_t)b * NCOLORS + k];
    }
    for (int k = 0; k < ne; k++) {
      int other = edge[k][0] == g ? edge[k][1] : edge[k][1] == g ? edge[k][0] : -1;
      if (other >= 0 && other < g && c->gcol[other] >= 0) taken[c->gcol[other]] = 1;
    }
    int col = 0;
    while (col < NCOLORS && taken[col]) col++;
    c->gcol[g] = col < NCOLORS ? col : -1;
    if (col == NCOLORS) {
      c->noverflow += c->gfirst[g + 1] - i;
      continue;
    }
    if (col + 1 > c->ncolors) c->ncolors = col + 1;
    for (int s = 0; s < 2; s++)
      if (p->fblk[2 * i + s] >= 0) used[(size_t)p->fblk[2 * i + s] * NCOLORS + col] = 1;
  }
  /* the property the sweep relies on, checked on the test's own colouring:
   * no block and no findex edge inside a colour */
  int clash = 0;
  memset(used, 0, (size_t)p->nblk * NCOLORS);
  for (int g = 0; g < ng; g++) {
    int i = c->gfirst[g], col = c->gcol[g];
    for (int s = 0; col >= 0 && s < 2; s++) {
      int b = p->fblk[2 * i + s];
      if (b < 0 || (s == 1 && b == p->fblk[2 * i])) continue;
      clash += used[(size_t)b * NCOLORS + col];
      used[(size_t)b * NCOLORS + col] = 1;
    }
  }
  for (int k = 0; k < ne; k++)
    clash += c->gcol[edge[k][0]] >= 0 && c->gcol[edge[k][0]] == c->gcol[edge[k][1]];
  CU_ASSERT_EQUAL(clash, 0);
  free(used);
  free(gid);
  free(edge);
}

static void color_groups(const slv_problem *p, coloring *c) { color_some_groups(p, c, NULL); }

static void coloring_free(coloring *c) {
  free(c->gfirst);
  free(c->gcol);
}

/* The documented sweep order as a permutation (ord[k] = row visited k-th):
 * colour by colour, each colour's groups in group order, then the
 * overflow groups' rows in row order. */
static void color_order(const coloring *c, int *ord) {
  int k = 0;
  for (int col = -1; col < c->ncolors; col++) /* -1 (overflow) last, below */
    for (int g = 0; col >= 0 && g < c->ng; g++)
      if (c->gcol[g] == col)
        for (int i = c->gfirst[g]; i < c->gfirst[g + 1]; i++) ord[k++] = i;
  for (int g = 0; g < c->ng; g++)
    if (c->gcol[g] < 0)
      for (int i = c->gfirst[g]; i < c->gfirst[g + 1]; i++) ord[k++] = i;
}

/* pgs_color's plan line (opt.log_fn): its counts against the test's
 * colouring, the sweep it names, the threads it names (0: none). */
static void log_color(void *ctx, const char *line) {
  plan_log *l = ctx;
  if (strncmp(line, "pgs_color:", 10) != 0) return;
  l->count++;
  snprintf(l->line, sizeof l->line, "%s", line);
}

static void check_color_plan(const plan_log *l, int n, const coloring *c, int compact, int on) {
  CU_ASSERT_EQUAL(l->count, 1);
  int rows = -1, nbat = -1, busy = -1, ncol = -1, over = -1, ncolors = -1, th = 0;
  int got = sscanf(l->line,
                   "pgs_color: %d rows, %d batches, %d of %d lane slots busy, %d overflow rows, "
                   "%d colours on %d threads",
                   &rows, &nbat, &busy, &ncol, &over, &ncolors, &th);
  CU_ASSERT_EQUAL(got, on > 1 ? 7 : 6);
  CU_ASSERT_EQUAL(rows, n);
  CU_ASSERT_EQUAL(busy + over, n);
  CU_ASSERT_EQUAL(over, c->noverflow);
  CU_ASSERT_EQUAL(ncolors, c->ncolors);
  CU_ASSERT(nbat >= c->ncolors && busy <= ncol && ncol <= 8 * n);
  if (on > 1) CU_ASSERT_EQUAL(th, on);
  const char *how = strstr(l->line, ": ");
  how = how ? strstr(how + 2, ": ") : NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(how);
  CU_ASSERT_STRING_EQUAL(how + 2, expected_sweep(compact));
}

/* `sweeps` sweeps (tol unreachable) of pgs_color on f on `threads` threads
 * and of pgs on f's rows in the documented colour order, from x0 (NULL:
 * zero); x of pgs_color into xc.  Returns the rows whose x differ in any
 * bit, *dmax the largest difference.  (Bits agree until the first exact
 * recomputation of t = K^T x, at a warm start or at sweep 20: the two
 * problems sum K^T x over their rows in different orders.) */
static int color_mismatches(const fprob *f, int sweeps, const double *x0, int threads, int compact,
                            double *xc, double *dmax) {
  int n = f->n, *ord = malloc((size_t)n * sizeof(int));
  coloring c;
  color_groups(&f->p, &c);
  color_order(&c, ord);
  permuted q;
  permute(f, ord, &q);
  slv_options opt = slv_options_default();
  opt.tol = 1e-300;
  opt.max_iter = sweeps;
  opt.warm_start = x0 != NULL;
  opt.simd = simd;
  opt.threads = threads;
  slv_workspace *wc, *wp;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_color"), n, &opt, &wc), SLV_OK);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), n, &opt, &wp), SLV_OK);
  double *xp = calloc((size_t)n, sizeof(double));
  for (int k = 0; k < n; k++) {
    xc[k] = x0 ? x0[k] : 0.0;
    xp[k] = x0 ? x0[ord[k]] : 0.0;
  }
  slv_result rc, rp;
  plan_log log = { 0 };
  slv_options lopt = opt;
  lopt.log_fn = log_color;
  lopt.log_ctx = &log;
  CU_ASSERT_EQUAL(slv_solve(wc, &f->p, &lopt, xc, NULL, &rc), SLV_MAX_ITER);
  int split = threads > 1 && n >= 4096; /* the lattices: large and wide enough */
  check_color_plan(&log, n, &c, compact, split ? threads : 1);
  CU_ASSERT_STRING_EQUAL(rc.method, "pgs_color");
  CU_ASSERT_EQUAL(slv_solve(wp, &q.p, &opt, xp, NULL, &rp), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(rc.iterations, sweeps);
  int bad = 0, moved = 0;
  *dmax = 0;
  for (int k = 0; k < n; k++) {
    bad += memcmp(&xc[ord[k]], &xp[k], sizeof(double)) != 0;
    *dmax = fmax(*dmax, fabs(xc[ord[k]] - xp[k]));
    moved += xp[k] != 0.0;
  }
  CU_ASSERT(moved > n / 4); /* the sweeps did something to compare */
  slv_workspace_free(wc);
  slv_workspace_free(wp);
  free(xp);
  free(ord);
  permuted_free(&q);
  coloring_free(&c);
  return bad;
}

/* Bit for bit over 7 sweeps from zero; after the recomputations of t (45
 * sweeps, or a warm start) to rounding.  Returns the colouring's counts
 * for the caller's expectations. */
static coloring color_same(const fprob *f, int compact) {
  double d, *x = malloc((size_t)f->n * sizeof(double));
  CU_ASSERT_EQUAL(color_mismatches(f, 7, NULL, 1, compact, x, &d), 0);
  color_mismatches(f, 45, NULL, 1, compact, x, &d);
  CU_ASSERT(d <= 1e-12);
  double *x0 = calloc((size_t)f->n, sizeof(double));
  for (int i = 0; i < f->n; i++) x0[i] = f->findex[i] < 0 ? 0.1 * (i % 7) : 0.01 * (i % 5 - 2);
  color_mismatches(f, 7, x0, 1, compact, x, &d);
  CU_ASSERT(d <= 1e-12);
  free(x0);
  free(x);
  coloring c;
  color_groups(&f->p, &c);
  return c;
}

/* The colour order's iterates on the problems of the pgs_wide tests: random
 * contacts (general and rigid form); 4 crowded bodies (~110 groups each:
 * colours run out, the overflow group rows are swept last); all normal rows
 * after all friction rows (every findex dependency between groups, forward
 * in the row order); friction rows on another pair's normal row; manifold
 * runs (groups of 3 to 12 rows). */
static void test_color_iterates(void) {
  for (int v = 0; v < 2; v++) {
    fprob f;
    makers[v](&f, 300, 80, 31);
    coloring c = color_same(&f, v == 1);
    CU_ASSERT(c.ncolors > 4 && c.noverflow == 0);
    coloring_free(&c);
    fprob_free(&f);
  }
  fprob f;
  fprob_make(&f, 150, 4, 37);
  coloring c = color_same(&f, 0);
  CU_ASSERT_EQUAL(c.ncolors, NCOLORS);
  CU_ASSERT(c.noverflow > 0);
  coloring_free(&c);
  fprob_free(&f);
}

static void test_color_findex(void) {
  /* all normal rows after all friction rows */
  fprob f;
  fprob_make(&f, 80, 30, 41);
  int n = f.n, *ord = malloc((size_t)n * sizeof(int)), k = 0;
  for (int i = 0; i < n; i++)
    if (f.findex[i] >= 0) ord[k++] = i;
  for (int i = 0; i < n; i++)
    if (f.findex[i] < 0) ord[k++] = i;
  permuted q;
  permute(&f, ord, &q);
  fprob g = permuted_view(&f, &q);
  coloring c = color_same(&g, 0);
  CU_ASSERT(c.noverflow == 0);
  coloring_free(&c);
  permuted_free(&q);
  free(ord);
  fprob_free(&f);
  /* friction rows bounded by the previous contact's normal row, then by
   * the next one's (another pair's group: only the findex rule keeps the
   * two groups apart, backward and forward) */
  for (int dir = -1; dir <= 1; dir += 2) {
    fprob_make(&f, 200, 60, 47);
    int other = 0;
    for (int i = 3; i < f.n - 3; i++)
      if (f.findex[i] >= 0) {
        int j = f.findex[i] += 3 * dir;
        other += f.fblk[2 * i] != f.fblk[2 * j] || f.fblk[2 * i + 1] != f.fblk[2 * j + 1];
      }
    CU_ASSERT(other > f.n / 2);
    c = color_same(&f, 0);
    coloring_free(&c);
    fprob_free(&f);
  }
}

static void test_color_manifolds(void) {
  fprob f;
  fprob_make_rigid(&f, 240, 10, 59);
  int nc = f.n / 3, *cs = malloc((size_t)nc * sizeof(int)),
      *ord = malloc((size_t)f.n * sizeof(int));
  for (int c = 0; c < nc; c++) cs[c] = c;
  for (int a = 1; a < nc; a++) /* insertion sort by (slot 0, slot 1): stable */
    for (int b = a; b > 0; b--) {
      const int *p = f.fblk + 6 * cs[b - 1], *q = f.fblk + 6 * cs[b];
      if (p[0] < q[0] || (p[0] == q[0] && p[1] <= q[1])) break;
      int t = cs[b];
      cs[b] = cs[b - 1];
      cs[b - 1] = t;
    }
  for (int c = 0; c < nc; c++)
    for (int j = 0; j < 3; j++) ord[3 * c + j] = 3 * cs[c] + j;
  permuted q;
  permute(&f, ord, &q);
  fprob g = permuted_view(&f, &q);
  coloring c = color_same(&g, 1);
  int longest = 0, shortest = GMAX;
  for (int h = 0; h < c.ng; h++) {
    int len = c.gfirst[h + 1] - c.gfirst[h];
    if (len > longest) longest = len;
    if (len < shortest) shortest = len;
  }
  CU_ASSERT(longest == GMAX && shortest < GMAX); /* groups of several lengths, runs cut */
  coloring_free(&c);
  permuted_free(&q);
  free(cs);
  free(ord);
  fprob_free(&f);
}

/* The lattice as an fprob without its dense A (permute reads the rows). */
static fprob lattice_fprob(const lattice *L) {
  fprob f;
  memset(&f, 0, sizeof f);
  f.n = L->n;
  f.nblk = L->nblk;
  f.fblk = L->fblk;
  f.findex = L->findex;
  f.fJ = L->fJ;
  f.fK = L->fK;
  f.fd = L->fd;
  f.b = L->b;
  f.lo = L->lo;
  f.hi = L->hi;
  f.mu = L->mu;
  f.p = L->p;
  return f;
}

/* One pgs_color solve of the lattice on `threads` (check_every 5), the plan
 * line in *log. */
static slv_status color_solve(const lattice *L, int threads, double tol, int max_iter,
                              const double *x0, double *x, slv_result *r, plan_log *log) {
  slv_options opt = slv_options_default();
  opt.tol = tol;
  opt.max_iter = max_iter;
  opt.check_every = 5;
  opt.simd = simd;
  opt.threads = threads;
  opt.warm_start = x0 != NULL;
  opt.log_fn = log_color;
  opt.log_ctx = log;
  memset(log, 0, sizeof *log);
  slv_workspace *ws;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_color"), L->n, &opt, &ws), SLV_OK);
  for (int i = 0; i < L->n; i++) x[i] = x0 ? x0[i] : 0.0;
  slv_status st = slv_solve(ws, &L->p, &opt, x, NULL, r);
  slv_workspace_free(ws);
  return st;
}

/* The determinism promise (docs/solvers.md, "pgs_color"): on the lattices
 * of test_threads (general; rigid form with four-point manifolds; general
 * with every 40th normal row moved to the end, so friction groups depend
 * on later groups), on 1, 2 and 3 threads:
 *   - 12 sweeps from zero: x is the colour order's reference (pgs on the
 *     permuted rows) bit for bit on every T, the plan line splits on 2 and
 *     3 threads;
 *   - 8 sweeps from a warm start and, on the first lattice, a solve to
 *     tol 5e-2 (check_every 5: t recomputed on the way): status, sweep
 *     count, the solver's residual and the library's residual and x the
 *     same bits on every T;
 *   - every friction row within mu |normal| at the end;
 *   - from the converged x: converged at the start (no sweep) on every T.
 * Fails when a colour holds two groups on one block or findex-coupled
 * (threads race on t or x), or when the colouring or the batches depend
 * on T. */
static void test_color_threads(void) {
  for (int v = 0; v < 3; v++) {
    int rigid = v == 1;
    lattice L;
    lattice_variant(&L, v);
    fprob f = lattice_fprob(&L);
    int n = L.n;
    size_t sz = (size_t)n * sizeof(double);
    double *x0 = malloc(sz), *x1 = malloc(sz), *x = malloc(sz), d;
    for (int th = 1; th <= 3; th++) {
      int bad = color_mismatches(&f, 12, NULL, th, rigid, th == 1 ? x1 : x, &d);
      CU_ASSERT_EQUAL(bad, 0);
      if (bad)
        printf("\n  lattice %d, %d threads: %d of %d rows off the colour order", v, th, bad, n);
      if (th > 1) CU_ASSERT_EQUAL(differ(x, x1, n), 0);
    }
    for (int i = 0; i < n; i++) x0[i] = L.findex[i] < 0 ? 0.1 * (i % 7) : 0.01 * (i % 5 - 2);
    for (int k = 0; k < (v ? 1 : 2); k++) {
      double tol = k ? 5e-2 : 1e-300;
      int it = k ? 300 : 8;
      slv_result r1, r;
      plan_log lg;
      for (int th = 1; th <= 3; th++) {
        slv_result *rr = th == 1 ? &r1 : &r;
        slv_status st = color_solve(&L, th, tol, it, k ? NULL : x0, th == 1 ? x1 : x, rr, &lg);
        CU_ASSERT_EQUAL(st, k ? SLV_CONVERGED : SLV_MAX_ITER);
        CU_ASSERT_EQUAL(lg.count, 1);
        CU_ASSERT_EQUAL(strstr(lg.line, " colours on ") != NULL, th > 1);
        if (th == 1) continue;
        CU_ASSERT_EQUAL(r.iterations, r1.iterations);
        CU_ASSERT(memcmp(&r.solver_residual, &r1.solver_residual, sizeof(double)) == 0);
        CU_ASSERT(memcmp(&r.res, &r1.res, sizeof r.res) == 0);
        int bad = differ(x, x1, n);
        CU_ASSERT_EQUAL(bad, 0);
        if (bad)
          printf("\n  lattice %d, run %d, %d threads: %d of %d rows differ", v, k, th, bad, n);
      }
      CU_ASSERT(r1.iterations >= 8);
      int out = 0; /* friction within mu |normal| (the bound the sweep last applied) */
      for (int i = 0; i < n; i++)
        if (L.findex[i] >= 0 && v != 2) out += !(fabs(x1[i]) <= L.mu[i] * fabs(x1[L.findex[i]]));
      CU_ASSERT_EQUAL(out, 0);
      if (k == 0) continue;
      /* from the converged x: converged at the start, no sweep, on every T */
      memcpy(x0, x1, sz);
      for (int th = 1; th <= 3; th++) {
        CU_ASSERT_EQUAL(color_solve(&L, th, tol, it, x0, x, &r, &lg), SLV_CONVERGED);
        CU_ASSERT_EQUAL(r.iterations, 0);
        CU_ASSERT_EQUAL(differ(x, x0, n), 0);
      }
    }
    free(x0);
    free(x1);
    free(x);
    lattice_free(&L);
  }
}

/* pgs_color and pgs converge to the same x (a different row order, the
 * same solution): random contacts with findex rows in their own group and
 * on another pair's normal row, tol 1e-11; x within 1e-8, both judged by
 * the test's own residual, and every friction row within mu |normal| (to
 * the tolerance when the normal row's group is swept after it). */
static void test_color_agrees_with_pgs(void) {
  for (int v = 0; v < 2; v++) {
    fprob f;
    fprob_make(&f, 300, 80, 83 + (unsigned long)v);
    if (v == 1)
      for (int i = 3; i < f.n; i++)
        if (f.findex[i] >= 0) f.findex[i] -= 3;
    int n = f.n;
    slv_options opt = slv_options_default();
    opt.tol = 1e-11;
    opt.max_iter = 100000;
    opt.simd = simd;
    double *xc = calloc((size_t)n, sizeof(double)), *xp = calloc((size_t)n, sizeof(double));
    const char *names[] = { "pgs_color", "pgs" };
    double *xs[] = { xc, xp };
    slv_result r[2];
    for (int k = 0; k < 2; k++) {
      slv_workspace *ws;
      CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(names[k]), n, &opt, &ws), SLV_OK);
      CU_ASSERT_EQUAL(slv_solve(ws, &f.p, &opt, xs[k], NULL, &r[k]), SLV_CONVERGED);
      CU_ASSERT(fprob_residual(&f, xs[k]) <= 1e-11);
      slv_workspace_free(ws);
    }
    CU_ASSERT(r[0].iterations > 20);
    double dmax = 0, xmax = 0;
    int out = 0;
    for (int i = 0; i < n; i++) {
      dmax = fmax(dmax, fabs(xc[i] - xp[i]));
      xmax = fmax(xmax, fabs(xp[i]));
      if (f.findex[i] >= 0)
        out += !(fabs(xc[i]) <= f.mu[i] * fabs(xc[f.findex[i]]) + (v ? 1e-10 : 0.0));
    }
    CU_ASSERT(xmax > 0.1);
    CU_ASSERT(dmax <= 1e-8);
    CU_ASSERT_EQUAL(out, 0);
    free(xc);
    free(xp);
    fprob_free(&f);
  }
}

/* Dense storage goes to pgs: the same x bit for bit, result.method "pgs". */
static void test_color_dense(void) {
  fprob f;
  fprob_make(&f, 40, 15, 47);
  slv_problem d = fprob_dense(&f);
  int n = f.n;
  slv_options opt = slv_options_default();
  opt.tol = 1e-9;
  opt.max_iter = 5000;
  double *x[2] = { calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double)) };
  slv_result r[2];
  const char *names[] = { "pgs_color", "pgs" };
  for (int k = 0; k < 2; k++) {
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(names[k]), n, &opt, &ws), SLV_OK);
    CU_ASSERT_EQUAL(slv_solve(ws, &d, &opt, x[k], NULL, &r[k]), SLV_CONVERGED);
    CU_ASSERT_STRING_EQUAL(r[k].method, "pgs");
    slv_workspace_free(ws);
  }
  CU_ASSERT_EQUAL(r[0].iterations, r[1].iterations);
  CU_ASSERT(memcmp(x[0], x[1], (size_t)n * sizeof(double)) == 0);
  free(x[0]);
  free(x[1]);
  fprob_free(&f);
}

/* ---- pgs_part ------------------------------------------------------------
 * pgs_part claims (libsolvers/pgs_wide.c, "pgs_part"; docs/solvers.md,
 * "pgs_part"): on one thread it is pgs_wide.  On T > 1 threads, when its
 * plan splits: the groups of pgs_wide; each block's first row (the first
 * row of the first group on it); each group's span [glo, ghi] of its
 * blocks' first rows; cuts c_0 = 0 <= c_1 <= ... <= c_T = n + 1, c_{u+1}
 * the first row c >= c_u at which (T - u - 1) times the rows of the groups
 * with glo >= c_u and ghi < c reach the rows of the groups with glo >= c;
 * a group whose span lies in one [c_u, c_{u+1}) and whose findex rows are
 * its own is interior to part u, any other one is on the separator,
 * coloured by pgs_color's rule among the separator's groups only.  The
 * sweep: part 0's interior groups in group order, part 1's, ..., then the
 * separator colour by colour (each in group order), then the overflow
 * groups' rows.  The test partitions the groups itself from that rule,
 * checks what the sweep relies on (no block of one part's interior in
 * another's, no colour with two groups on a block), permutes the rows
 * into that order and runs pgs there: pgs_part's x must be those bits. */
typedef struct {
  int np, nsep, noverflow_rows, *gpart; /* gpart: part of each group, -1 separator */
  coloring c;                           /* the groups; colours of the separator's */
} partition;

/* The cuts of the documented rule from the groups' spans. */
static void part_cuts(int n, int ng, const int *gfirst, const int *glo, const int *ghi, int np,
                      int *cut) {
  long long *in = calloc((size_t)n + 2, sizeof *in), *past = calloc((size_t)n + 2, sizeof *past);
  for (int g = 0; g < ng; g++) past[glo[g]] += gfirst[g + 1] - gfirst[g];
  for (int c = n; c >= 0; c--) past[c] += past[c + 1];
  cut[0] = 0;
  for (int u = 0; u + 1 < np; u++) {
    memset(in, 0, ((size_t)n + 2) * sizeof *in); /* in[c + 1]: rows with ghi = c */
    for (int g = 0; g < ng; g++)
      if (glo[g] >= cut[u]) in[ghi[g] + 1] += gfirst[g + 1] - gfirst[g];
    long long acc = 0;
    int c = cut[u];
    for (int v = 0; v <= cut[u]; v++) acc += in[v];
    while (c <= n && acc * (np - u - 1) < past[c]) acc += in[++c];
    cut[u + 1] = c;
  }
  cut[np] = n + 1;
  free(in);
  free(past);
}

static void partition_make(const slv_problem *p, int np, partition *P) {
  int n = p->n;
  coloring all;
  color_groups(p, &all); /* the groups */
  int ng = all.ng, *first = malloc((size_t)p->nblk * sizeof(int)), cut[17];
  int *glo = malloc((size_t)ng * sizeof(int)), *ghi = malloc((size_t)ng * sizeof(int));
  for (int b = 0; b < p->nblk; b++) first[b] = -1;
  for (int g = 0; g < ng; g++) {
    int i = all.gfirst[g], f[2];
    for (int s = 0; s < 2; s++) {
      int b = p->fblk[2 * i + s];
      if (b >= 0 && first[b] < 0) first[b] = i;
      f[s] = b >= 0 ? first[b] : -1;
    }
    if (f[0] < 0) f[0] = f[1] >= 0 ? f[1] : i;
    if (f[1] < 0) f[1] = f[0];
    glo[g] = f[0] < f[1] ? f[0] : f[1];
    ghi[g] = f[0] < f[1] ? f[1] : f[0];
  }
  part_cuts(n, ng, all.gfirst, glo, ghi, np, cut);
  P->np = np;
  P->gpart = malloc((size_t)ng * sizeof(int));
  char *sep = calloc((size_t)ng, 1);
  P->nsep = 0;
  for (int g = 0; g < ng; g++) {
    int u = 0, own = 1;
    while (u + 1 < np && glo[g] >= cut[u + 1]) u++;
    for (int i = all.gfirst[g]; p->findex && i < all.gfirst[g + 1]; i++)
      own &=
          p->findex[i] < 0 || (p->findex[i] >= all.gfirst[g] && p->findex[i] < all.gfirst[g + 1]);
    P->gpart[g] = ghi[g] < cut[u + 1] && own ? u : -1;
    sep[g] = P->gpart[g] < 0;
    if (sep[g]) P->nsep += all.gfirst[g + 1] - all.gfirst[g];
  }
  color_some_groups(p, &P->c, sep);
  P->noverflow_rows = P->c.noverflow;
  /* what the sweep relies on: no block in two parts' interiors */
  int *owner = malloc((size_t)p->nblk * sizeof(int)), shared = 0;
  for (int b = 0; b < p->nblk; b++) owner[b] = -1;
  for (int g = 0; g < ng; g++)
    for (int s = 0; P->gpart[g] >= 0 && s < 2; s++) {
      int b = p->fblk[2 * all.gfirst[g] + s];
      if (b < 0) continue;
      shared += owner[b] >= 0 && owner[b] != P->gpart[g];
      owner[b] = P->gpart[g];
    }
  CU_ASSERT_EQUAL(shared, 0);
  free(owner);
  free(sep);
  free(first);
  free(glo);
  free(ghi);
  coloring_free(&all);
}

static void partition_free(partition *P) {
  free(P->gpart);
  coloring_free(&P->c);
}

/* The documented sweep order as a permutation: the parts' interiors, the
 * separator's colours, its overflow groups. */
static void part_order(const partition *P, int *ord) {
  const coloring *c = &P->c;
  int k = 0;
  for (int u = 0; u < P->np; u++)
    for (int g = 0; g < c->ng; g++)
      if (P->gpart[g] == u)
        for (int i = c->gfirst[g]; i < c->gfirst[g + 1]; i++) ord[k++] = i;
  for (int col = 0; col < c->ncolors; col++)
    for (int g = 0; g < c->ng; g++)
      if (P->gpart[g] < 0 && c->gcol[g] == col)
        for (int i = c->gfirst[g]; i < c->gfirst[g + 1]; i++) ord[k++] = i;
  for (int g = 0; g < c->ng; g++)
    if (P->gpart[g] < 0 && c->gcol[g] == -1)
      for (int i = c->gfirst[g]; i < c->gfirst[g + 1]; i++) ord[k++] = i;
}

static void log_part(void *ctx, const char *line) {
  plan_log *l = ctx;
  if (strncmp(line, "pgs_part:", 9) != 0) return;
  l->count++;
  snprintf(l->line, sizeof l->line, "%s", line);
}

/* pgs_part's plan line on T threads against the test's partition. */
static void check_part_plan(const plan_log *l, int n, const partition *P, int compact) {
  CU_ASSERT_EQUAL(l->count, 1);
  int rows = -1, nbat = -1, busy = -1, ncol = -1, parts = -1, th = -1, sep = -1, colours = -1,
      over = -1;
  int got = sscanf(l->line,
                   "pgs_part: %d rows, %d batches, %d of %d lane slots busy, %d parts on %d "
                   "threads, %d separator rows in %d colours, %d overflow rows",
                   &rows, &nbat, &busy, &ncol, &parts, &th, &sep, &colours, &over);
  CU_ASSERT_EQUAL_FATAL(got, 9);
  CU_ASSERT_EQUAL(rows, n);
  CU_ASSERT_EQUAL(parts, P->np);
  CU_ASSERT_EQUAL(th, P->np);
  CU_ASSERT_EQUAL(over, P->noverflow_rows);
  CU_ASSERT_EQUAL(sep + over, P->nsep);
  CU_ASSERT_EQUAL(colours, P->c.ncolors);
  CU_ASSERT_EQUAL(busy + over, n);
  const char *how = strstr(l->line, "rows: ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(how);
  CU_ASSERT_STRING_EQUAL(how + 6, expected_sweep(compact));
}

/* `sweeps` sweeps (tol unreachable) of pgs_part on T threads from zero,
 * into x, and of pgs on the rows in the documented order; returns the rows
 * whose x differ in any bit. */
static int part_mismatches(const fprob *f, int sweeps, int threads, int compact, double *x) {
  int n = f->n, *ord = malloc((size_t)n * sizeof(int));
  partition P;
  partition_make(&f->p, threads, &P);
  part_order(&P, ord);
  permuted q;
  permute(f, ord, &q);
  slv_options opt = slv_options_default();
  opt.tol = 1e-300;
  opt.max_iter = sweeps;
  opt.simd = simd;
  opt.threads = threads;
  plan_log log = { 0 };
  slv_options lopt = opt;
  lopt.log_fn = log_part;
  lopt.log_ctx = &log;
  slv_workspace *wk, *wp;
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs_part"), n, &opt, &wk), SLV_OK);
  CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find("pgs"), n, &opt, &wp), SLV_OK);
  double *xp = calloc((size_t)n, sizeof(double));
  memset(x, 0, (size_t)n * sizeof(double));
  slv_result rk, rp;
  CU_ASSERT_EQUAL(slv_solve(wk, &f->p, &lopt, x, NULL, &rk), SLV_MAX_ITER);
  CU_ASSERT_STRING_EQUAL(rk.method, "pgs_part");
  check_part_plan(&log, n, &P, compact);
  CU_ASSERT_EQUAL(slv_solve(wp, &q.p, &opt, xp, NULL, &rp), SLV_MAX_ITER);
  int bad = 0, moved = 0;
  for (int k = 0; k < n; k++) {
    bad += memcmp(&x[ord[k]], &xp[k], sizeof(double)) != 0;
    moved += xp[k] != 0.0;
  }
  CU_ASSERT(moved > n / 4);
  CU_ASSERT(P.nsep > 0 && P.nsep < n);
  slv_workspace_free(wk);
  slv_workspace_free(wp);
  free(xp);
  free(ord);
  permuted_free(&q);
  partition_free(&P);
  return bad;
}

/* On the three lattices of test_threads (general; rigid form with
 * manifolds; general with normal rows moved to the end, whose friction
 * groups go to the separator):
 *   - one thread: pgs_wide's x, sweep count and residuals, bit for bit
 *     (12 sweeps; but on the manifold lattice also a solve to tol 5e-2);
 *   - 2 and 3 threads, 12 sweeps from zero: the documented order's
 *     iterates bit for bit, the plan line's parts, separator rows and
 *     colours the test's own;
 *   - 2 threads, a solve to tol 5e-2 with t recomputed every 5 sweeps
 *     (not on the slow manifold lattice): converged by the library's
 *     residual, the same bits when run again, friction within mu |normal|.
 * Fails when the parts share a block, when the cuts, the classes or the
 * colours differ from the documented rule, or when a thread reads what
 * another one writes in the same level. */
static void test_part_threads(void) {
  for (int v = 0; v < 3; v++) {
    int rigid = v == 1;
    lattice L;
    lattice_variant(&L, v);
    fprob f = lattice_fprob(&L);
    int n = L.n;
    size_t sz = (size_t)n * sizeof(double);
    double *x = malloc(sz), *y = malloc(sz);
    slv_result r, s;
    plan_log lg;
    /* one thread: pgs_wide (the manifold lattice converges slowly: sweeps only) */
    for (int k = 0; k < (v == 1 ? 1 : 2); k++) {
      double tol = k ? 5e-2 : 1e-300;
      int it = k ? 300 : 12;
      slv_status a = lattice_solve(&L, "pgs_part", 1, tol, it, NULL, x, &r, &lg);
      slv_status b = lattice_solve(&L, "pgs_wide", 1, tol, it, NULL, y, &s, &lg);
      CU_ASSERT_EQUAL(a, b);
      CU_ASSERT_EQUAL(r.iterations, s.iterations);
      CU_ASSERT(memcmp(&r.res, &s.res, sizeof r.res) == 0);
      CU_ASSERT_EQUAL(differ(x, y, n), 0);
    }
    for (int th = 2; th <= 3; th++) {
      int bad = part_mismatches(&f, 12, th, rigid, x);
      CU_ASSERT_EQUAL(bad, 0);
      if (bad) printf("\n  lattice %d, %d threads: %d of %d rows off the order", v, th, bad, n);
    }
    if (v == 1) { /* its random manifold points converge slowly (test_threads) */
      free(x);
      free(y);
      lattice_free(&L);
      continue;
    }
    CU_ASSERT_EQUAL(lattice_solve(&L, "pgs_part", 2, 5e-2, 400, NULL, x, &r, &lg), SLV_CONVERGED);
    CU_ASSERT_EQUAL(lattice_solve(&L, "pgs_part", 2, 5e-2, 400, NULL, y, &s, &lg), SLV_CONVERGED);
    CU_ASSERT(r.res.res_scaled <= 5e-2 && r.iterations >= 8);
    CU_ASSERT_EQUAL(r.iterations, s.iterations);
    CU_ASSERT_EQUAL(differ(x, y, n), 0);
    int out = 0;
    for (int i = 0; i < n; i++)
      if (L.findex[i] >= 0 && v != 2) out += !(fabs(x[i]) <= L.mu[i] * fabs(x[L.findex[i]]));
    CU_ASSERT_EQUAL(out, 0);
    free(x);
    free(y);
    lattice_free(&L);
  }
}

/* Without the lanes (the second suite, opt.simd off) nothing splits:
 * pgs_part on 2 threads is pgs_wide on one, bit for bit, on the general
 * lattice (12 sweeps from zero). */
static void test_part_no_lanes(void) {
  lattice L;
  lattice_make(&L, 0, 0, 71);
  size_t sz = (size_t)L.n * sizeof(double);
  double *x = malloc(sz), *y = malloc(sz);
  slv_result r, s;
  plan_log lg;
  CU_ASSERT_EQUAL(lattice_solve(&L, "pgs_part", 2, 1e-300, 12, NULL, x, &r, &lg), SLV_MAX_ITER);
  CU_ASSERT_EQUAL(lattice_solve(&L, "pgs_wide", 1, 1e-300, 12, NULL, y, &s, &lg), SLV_MAX_ITER);
  CU_ASSERT_STRING_EQUAL(r.method, s.method);
  CU_ASSERT(memcmp(&r.res, &s.res, sizeof r.res) == 0);
  CU_ASSERT_EQUAL(differ(x, y, L.n), 0);
  int moved = 0;
  for (int i = 0; i < L.n; i++) moved += x[i] != 0.0;
  CU_ASSERT(moved > L.n / 4);
  free(x);
  free(y);
  lattice_free(&L);
}

/* Dense storage goes to pgs, and a factored problem below the threaded
 * plan's size is pgs_wide's on any thread count (nothing to split). */
static void test_part_small(void) {
  fprob f;
  fprob_make(&f, 40, 15, 47);
  slv_problem d = fprob_dense(&f);
  int n = f.n;
  slv_options opt = slv_options_default();
  opt.tol = 1e-9;
  opt.max_iter = 5000;
  opt.threads = 2;
  double *x[3];
  slv_result r[3];
  const char *names[] = { "pgs_part", "pgs", "pgs_part" };
  for (int k = 0; k < 3; k++) {
    x[k] = calloc((size_t)n, sizeof(double));
    slv_workspace *ws;
    CU_ASSERT_EQUAL_FATAL(slv_workspace_new(slv_solver_find(names[k]), n, &opt, &ws), SLV_OK);
    CU_ASSERT_EQUAL(slv_solve(ws, k < 2 ? &d : &f.p, &opt, x[k], NULL, &r[k]), SLV_CONVERGED);
    slv_workspace_free(ws);
  }
  CU_ASSERT_STRING_EQUAL(r[0].method, "pgs");
  CU_ASSERT_EQUAL(r[0].iterations, r[1].iterations);
  CU_ASSERT(memcmp(x[0], x[1], (size_t)n * sizeof(double)) == 0);
  CU_ASSERT(fprob_residual(&f, x[2]) <= 1e-9);
  for (int k = 0; k < 3; k++) free(x[k]);
  fprob_free(&f);
}

/* The second suite runs with opt.simd = SLV_SIMD_OFF: the row-at-a-time
 * sweep that CPUs without AVX2 take, which must give the same iterates. */
static int simd_off(void) {
  simd = SLV_SIMD_OFF;
  return 0;
}
static int simd_auto(void) {
  simd = SLV_SIMD_AUTO;
  return 0;
}

/* The AVX2 suite runs with opt.simd = SLV_SIMD_AVX2: on a CPU with AVX-512
 * the four-wide lanes that a CPU without it takes, which must give the same
 * iterates as the eight-wide ones (both are pgs's). */
static int simd_avx2(void) {
  simd = SLV_SIMD_AVX2;
  return 0;
}

/* SLV_SIMD_AUTO gives the lanes back (the plan line says which sweep ran);
 * other values than the three are refused, naming the field. */
static void test_simd_values(void) {
  fprob f;
  fprob_make_rigid(&f, 60, 20, 67);
  simd = SLV_SIMD_AUTO;
  double d;
  CU_ASSERT_EQUAL(mismatches(&f, 7, NULL, 1, &d), 0);
  simd = SLV_SIMD_OFF;
  slv_options opt = slv_options_default();
  char msg[160];
  opt.simd = SLV_SIMD_AVX2;
  CU_ASSERT_EQUAL(slv_options_validate(&opt, msg, sizeof msg), SLV_OK);
  opt.simd = 3;
  CU_ASSERT_EQUAL(slv_options_validate(&opt, msg, sizeof msg), SLV_ERR_OPTIONS);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "simd"));
  fprob_free(&f);
}

/* The tests of whichever lanes the suite's opt.simd runs: the first suite
 * (auto) and, on an AVX-512 CPU, the AVX2 suite. */
static void add_lane_tests(CU_pSuite s) {
  CU_add_test(s, "factored: pgs's iterates, bit for bit (also rigid form)", test_same_iterates);
  CU_add_test(s, "lo, hi, fd, findex, mu left out: pgs's iterates", test_optional_arrays);
  CU_add_test(s, "crowded bodies: long chains of batches", test_crowded_bodies);
  CU_add_test(s, "findex pointing forward: the sequential group", test_findex_forward);
  CU_add_test(s, "findex on another body pair", test_findex_other_pair);
  CU_add_test(s, "manifold runs: groups of 3 to 12 rows", test_manifolds);
  CU_add_test(s, "unused slots hold junk: never read", test_unused_slots);
  CU_add_test(s, "rigid form broken: noticed", test_rigid_claim_false);
  CU_add_test(s, "isotropic form: pgs's bits; broken by an ulp or a zero's sign: noticed",
              test_isotropic);
  CU_add_test(s, "the checks' exact measures are the library's", test_check_is_the_judges);
  CU_add_test(s, "threads 1, 2, 3: the same bits, pgs's", test_threads);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("pgs_wide", NULL, NULL);
  add_lane_tests(s);
  CU_add_test(s, "masses kept across solves: the bits of a fresh workspace", test_masses_kept);
  CU_add_test(s, "angular scalars kept across solves: the bits of a fresh workspace",
              test_angular_kept);
  CU_add_test(s, "plan kept across solves: the bits of a fresh workspace", test_plan_kept);
  CU_add_test(s, "converges; the test's own residual", test_converges);
  CU_add_test(s, "dense storage: pgs itself", test_dense_is_pgs);
  CU_add_test(s, "overflow: not_finite", test_not_finite);
  s = CU_add_suite("pgs_wide, opt.simd off: without the lanes", simd_off, simd_auto);
  CU_add_test(s, "findex pointing forward: the sequential group", test_findex_forward);
  if (!tst_short_runs()) {
    /* pgs itself (test_pgs runs it under memcheck); 40 s more there */
    CU_add_test(s, "factored: pgs's iterates, bit for bit (also rigid form)", test_same_iterates);
    CU_add_test(s, "manifold runs: groups of 3 to 12 rows", test_manifolds);
    CU_add_test(s, "unused slots hold junk: never read", test_unused_slots);
  }
  CU_add_test(s, "overflow: not_finite", test_not_finite);
  CU_add_test(s, "the checks' exact measures are the library's", test_check_is_the_judges);
  CU_add_test(s, "threads 1, 2, 3 without the lanes: pgs itself, the same bits", test_threads);
  CU_add_test(s, "opt.simd: auto gives the lanes back, bad values refused", test_simd_values);
  if (has_avx512()) { /* else the same lanes as the first suite */
    s = CU_add_suite("pgs_wide, opt.simd avx2: the AVX2 lanes on an AVX-512 CPU", simd_avx2,
                     simd_auto);
    add_lane_tests(s);
    CU_add_test(s, "pgs_color: the colour order's iterates", test_color_iterates);
    CU_add_test(s, "pgs_part: threads 1, 2, 3", test_part_threads);
  }
  s = CU_add_suite("pgs_color", NULL, NULL);
  CU_add_test(s, "the colour order's iterates (also rigid form; overflow)", test_color_iterates);
  CU_add_test(s, "findex across groups, forward and backward: edges", test_color_findex);
  CU_add_test(s, "manifold runs: groups of 3 to 12 rows", test_color_manifolds);
  CU_add_test(s, "threads 1, 2, 3: the same bits, the colour order's", test_color_threads);
  CU_add_test(s, "converges to pgs's x; friction within mu |normal|", test_color_agrees_with_pgs);
  CU_add_test(s, "dense storage: pgs itself", test_color_dense);
  s = CU_add_suite("pgs_part", NULL, NULL);
  CU_add_test(s, "threads 1, 2, 3: pgs_wide's bits, then the parts' order's", test_part_threads);
  CU_add_test(s, "dense storage and small problems", test_part_small);
  s = CU_add_suite("pgs_part, opt.simd off: without the lanes", simd_off, simd_auto);
  CU_add_test(s, "threads 2 without the lanes: pgs_wide's bits", test_part_no_lanes);
  s = CU_add_suite("pgs_color, opt.simd off: without the lanes", simd_off, simd_auto);
  CU_add_test(s, "the colour order's iterates (also rigid form; overflow)", test_color_iterates);
  CU_add_test(s, "findex across groups, forward and backward: edges", test_color_findex);
  CU_add_test(s, "threads 1, 2, 3: the same bits, the colour order's", test_color_threads);
  return tst_run();
}
