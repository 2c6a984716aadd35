/*
 * test_threads.c -- opt.threads (docs/solver-machinery.md, "Threads"): the work that
 * splits over OpenMP threads splits without changing the arithmetic, so x
 * is the same bit for bit for every thread count.
 *
 * The problem: a chain of nc contacts between nc + 1 bodies, contact c
 * between bodies c and c + 1, each with a random 3 x 6 Jacobian per body
 * (uniform in [-0.5, 0.5)), unit masses, so W = J J^T + 1e-2 I is
 * block-tridiagonal and symmetric positive definite, stored CSR by this
 * file (three 3 x 3 blocks per block row, in column order); b uniform in
 * [-1, 1), mu 0.5, Coulomb's law.  With nc = 3000 it has 80,982 nonzeros,
 * 9000 rows and 3000 contacts: above every threshold at which the library
 * splits (the CSR and block-row products from 65,536 entries,
 * pjacobi_cone's contact steps from 2048 contacts, apgd's vector stages
 * from 8192 rows), so two threads really run.  Built without OpenMP, every
 * count runs on one thread and the comparisons hold trivially.
 *
 * Checks: pjacobi_cone and apgd, 40 iterations from the same start, give
 * the same x (memcmp), iterations and residual with 1, 2 and 3 threads,
 * and twice with 2; so do admm and ipm, which factor the chain with
 * CHOLMOD, and they leave the calling thread's OpenMP dynamic adjustment
 * as they found it (on or off); the products of the solve's operator agree with the
 * library's serial slv_problem_w; threads 0 and SLV_THREADS_MAX + 1 are
 * refused by slv_options_validate.  The operator's packed products
 * (operator.h): by block columns and by block rows, from dense and from CSR
 * storage whose rows name their entries out of order and keep an explicit
 * zero, against a product summed here; their symmetry test
 * (slv_op_is_symmetric) against slv_is_symmetric; the block-row product of the chain
 * on 2 and 3 threads bit for bit the one on 1; the chunked dot products
 * (par.h) against their definition, on 1, 2 and 3 threads.  slv_solve's
 * own work on threads: slv_residual's chunked measures (the same bits on
 * 1, 2 and 3 threads and without w; the maxima of a one-pass natural map,
 * with a cone across the first chunk boundary); on a factored problem of
 * 15,000 rows (tst_fprob's, findex friction rows) the same x, w and
 * measures on every count, pgs_color's plan split, and each broken
 * rule, planted in the second half, refused with one thread's message; the
 * CSR symmetry test's answer and first pair on every count.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "operator.h" /* the packed products, private to libsolvers */
#include "par.h"      /* the chunked sums, private too */
#include "slv.h"
#include "slv_internal.h" /* slv_is_symmetric */
#include "tst_fprob.h"
#include "tst_util.h"

enum { NC = 3000 };

typedef struct {
  int n;
  int *Ap, *Aj;
  double *Ax, *b, *mu;
  int *rows;
  slv_problem p;
} chain;

static double unif(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * 0x1.0p-53;
}

/* C = P Q^T for 3 x 6 row-major P, Q: C row-major 3 x 3. */
static void blk_ppt(const double *P, const double *Q, double C[9]) {
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += P[6 * r + k] * Q[6 * c + k];
      C[3 * r + c] = s;
    }
}

/* Append row r of the 3 x 3 block B, in block column cc, to the CSR arrays. */
static void put_block(chain *h, int *nz, int cc, const double B[9], int r) {
  for (int c = 0; c < 3; c++) {
    h->Aj[*nz] = 3 * cc + c;
    h->Ax[*nz] = B[3 * r + c];
    (*nz)++;
  }
}

static int chain_make(chain *h, int nc, uint64_t seed) {
  memset(h, 0, sizeof *h);
  int n = 3 * nc;
  h->n = n;
  size_t nnz = (size_t)9 * (3 * (size_t)nc);
  double *Ja = malloc((size_t)nc * 18 * sizeof *Ja), *Jb = malloc((size_t)nc * 18 * sizeof *Jb);
  h->Ap = malloc((size_t)(n + 1) * sizeof *h->Ap);
  h->Aj = malloc(nnz * sizeof *h->Aj);
  h->Ax = malloc(nnz * sizeof *h->Ax);
  h->b = malloc((size_t)n * sizeof *h->b);
  h->mu = malloc((size_t)nc * sizeof *h->mu);
  h->rows = malloc((size_t)nc * sizeof *h->rows);
  if (!Ja || !Jb || !h->Ap || !h->Aj || !h->Ax || !h->b || !h->mu || !h->rows) {
    free(Ja);
    free(Jb);
    return 0;
  }
  uint64_t s = seed;
  for (int i = 0; i < 18 * nc; i++) Ja[i] = unif(&s) - 0.5;
  for (int i = 0; i < 18 * nc; i++) Jb[i] = unif(&s) - 0.5;
  for (int i = 0; i < n; i++) h->b[i] = 2 * unif(&s) - 1;
  int nz = 0;
  h->Ap[0] = 0;
  for (int c = 0; c < nc; c++) {
    double Bl[9], Bd[9], Bd2[9], Br[9];
    /* body c is contact c's a and contact c-1's b; body c+1 is c's b and c+1's a */
    if (c > 0) blk_ppt(Ja + 18 * c, Jb + 18 * (c - 1), Bl);
    blk_ppt(Ja + 18 * c, Ja + 18 * c, Bd);
    blk_ppt(Jb + 18 * c, Jb + 18 * c, Bd2);
    for (int k = 0; k < 9; k++) Bd[k] += Bd2[k] + (k % 4 == 0 ? 1e-2 : 0.0);
    if (c + 1 < nc) blk_ppt(Jb + 18 * c, Ja + 18 * (c + 1), Br);
    for (int r = 0; r < 3; r++) {
      if (c > 0) put_block(h, &nz, c - 1, Bl, r);
      put_block(h, &nz, c, Bd, r);
      if (c + 1 < nc) put_block(h, &nz, c + 1, Br, r);
      h->Ap[3 * c + r + 1] = nz;
    }
    h->mu[c] = 0.5;
    h->rows[c] = 3 * c;
  }
  free(Ja);
  free(Jb);
  h->p = slv_problem_empty();
  h->p.n = n;
  h->p.storage = SLV_CSR;
  h->p.Ap = h->Ap;
  h->p.Aj = h->Aj;
  h->p.Ax = h->Ax;
  h->p.b = h->b;
  h->p.ncones = nc;
  h->p.cone_rows = h->rows;
  h->p.cone_mu = h->mu;
  h->p.cone_law = SLV_CONE_COULOMB;
  return 1;
}

static void chain_free(chain *h) {
  free(h->Ap);
  free(h->Aj);
  free(h->Ax);
  free(h->b);
  free(h->mu);
  free(h->rows);
}

/* A split plan's line through the log (pgs_wide, pgs_color): ctx counts
 * the solves whose sweep ran on threads. */
static void count_split(void *ctx, slv_log_level level, const char *line) {
  (void)level;
  if (strstr(line, " threads: ")) ++*(int *)ctx;
}

/* slv_solve of p with `name` on `threads` threads, max_iter iterations
 * from x = 0 (w may be NULL); *split (if not NULL) counts a plan that split. */
static slv_status solve_p(const slv_problem *p, const char *name, int threads, int max_iter,
                          double *x, double *w, slv_result *r, int *split) {
  slv_options o = slv_options_default();
  o.max_iter = max_iter;
  o.threads = threads;
  if (split) {
    o.log_level_fn = count_split;
    o.log_ctx = split;
  }
  slv_workspace *ws = NULL;
  memset(x, 0, (size_t)p->n * sizeof *x);
  if (slv_workspace_new(slv_solver_find(name), p->n, &o, &ws) != SLV_OK) return SLV_ERR_NOMEM;
  slv_status st = slv_solve(ws, p, &o, x, w, r);
  slv_workspace_free(ws);
  return st;
}

/* The chain with `name` on `threads` threads, 40 iterations from x = 0. */
static slv_status solve(const chain *h, const char *name, int threads, double *x, slv_result *r) {
  return solve_p(&h->p, name, threads, 40, x, NULL, r, NULL);
}

static void same_for_every_count(const char *name) {
  chain h;
  CU_ASSERT_FATAL(chain_make(&h, NC, 29));
  CU_ASSERT(h.Ap[h.n] >= 65536);
  CU_ASSERT_EQUAL(slv_problem_validate(&h.p, NULL, 0), SLV_OK);
  size_t bytes = (size_t)h.n * sizeof(double);
  double *x1 = malloc(bytes), *xt = malloc(bytes);
  CU_ASSERT_FATAL(x1 && xt);
  slv_result r1, rt;
  slv_status s1 = solve(&h, name, 1, x1, &r1);
  CU_ASSERT(s1 == SLV_CONVERGED || s1 == SLV_MAX_ITER);
  CU_ASSERT(isfinite(r1.res.res_nat_inf));
  const int counts[4] = { 2, 3, 2, 1 };
  for (int k = 0; k < 4; k++) {
    slv_status st = solve(&h, name, counts[k], xt, &rt);
    CU_ASSERT_EQUAL(st, s1);
    CU_ASSERT_EQUAL(rt.iterations, r1.iterations);
    CU_ASSERT_EQUAL(memcmp(x1, xt, bytes), 0);
    CU_ASSERT_EQUAL(memcmp(&rt.res.res_nat_inf, &r1.res.res_nat_inf, sizeof(double)), 0);
  }
  printf("\n  %s, %d rows, %d nonzeros: res_nat_inf %.3e after %d iterations, the same x "
         "with 1, 2 and 3 threads",
         name, h.n, h.Ap[h.n], r1.res.res_nat_inf, r1.iterations);
  free(x1);
  free(xt);
  chain_free(&h);
}

static void test_pjacobi_cone(void) { same_for_every_count("pjacobi_cone"); }
static void test_apgd(void) { same_for_every_count("apgd"); }

/* admm and ipm factor the chain with CHOLMOD (n > 600, a packed A), whose
 * own OpenMP teams the library shrinks to the idle cores around each call
 * (par.h, slv_par_foreign_begin): the same x on every count, and the
 * calling thread's dynamic adjustment as it was before the solve, on or
 * off. */
static void same_dynamic_after(const char *name, int dynamic) {
#ifdef _OPENMP
  chain h; /* 900 rows: above 600, so CHOLMOD still factors it */
  CU_ASSERT_FATAL(chain_make(&h, 300, 29));
  double *x = malloc((size_t)h.n * sizeof *x);
  CU_ASSERT_FATAL(x != NULL);
  int saved = omp_get_dynamic();
  omp_set_dynamic(dynamic);
  for (int t = 1; t <= 2; t++) {
    slv_result r;
    slv_status st = solve(&h, name, t, x, &r);
    CU_ASSERT(st == SLV_CONVERGED || st == SLV_MAX_ITER);
    CU_ASSERT_EQUAL(omp_get_dynamic() != 0, dynamic != 0);
  }
  omp_set_dynamic(saved);
  free(x);
  chain_free(&h);
#else
  (void)name;
  (void)dynamic;
#endif
}

static void test_cholmod_solvers(void) {
  same_for_every_count("admm");
  same_for_every_count("ipm");
  for (int d = 0; d <= 1; d++) {
    same_dynamic_after("admm", d);
    same_dynamic_after("ipm", d);
  }
}

/* The chain's CSR arrays against the library's serial product, and one
 * mirrored pair of entries of the symmetric W. */
static void test_product(void) {
  chain h;
  CU_ASSERT_FATAL(chain_make(&h, NC, 31));
  size_t bytes = (size_t)h.n * sizeof(double);
  double *x = malloc(bytes), *w = malloc(bytes);
  CU_ASSERT_FATAL(x && w);
  uint64_t s = 5;
  for (int i = 0; i < h.n; i++) x[i] = unif(&s) - 0.5;
  slv_problem_w(&h.p, x, w);
  double err = 0;
  for (int i = 0; i < h.n; i++) {
    double t = h.b[i];
    for (int k = h.Ap[i]; k < h.Ap[i + 1]; k++) t += h.Ax[k] * x[h.Aj[k]];
    err = fmax(err, fabs(w[i] - t));
  }
  CU_ASSERT(err <= 1e-14);
  /* symmetric: the (0, 1) and (1, 0) blocks mirror each other */
  double a01 = NAN, a10 = NAN;
  for (int k = h.Ap[0]; k < h.Ap[1]; k++)
    if (h.Aj[k] == 3) a01 = h.Ax[k];
  for (int k = h.Ap[3]; k < h.Ap[4]; k++)
    if (h.Aj[k] == 0) a10 = h.Ax[k];
  CU_ASSERT_EQUAL(a01, a10);
  free(x);
  free(w);
  chain_free(&h);
}

/* A 4-contact problem with 8 nonzero 3x3 blocks of 16 (the rest exactly
 * zero), dense and CSR; the CSR rows list their entries last column first
 * and keep an explicit zero where a whole block is zero.  Its products by
 * both packed layouts against the dense sum. */
enum { PK_NC = 4, PK_N = 3 * PK_NC };

static int planted_block(int I, int J) { return I == J || J == I + 1 || (I == 3 && J == 0); }

/* The 4-contact problem's fields but A: b, its PK_NC cones (mu 0.5). */
static slv_problem pk_problem(double *b, int *rows, double *mu) {
  for (int c = 0; c < PK_NC; c++) mu[c] = 0.5, rows[c] = 3 * c;
  slv_problem p = slv_problem_empty();
  p.n = PK_N;
  p.b = b;
  p.ncones = PK_NC;
  p.cone_rows = rows;
  p.cone_mu = mu;
  return p;
}

static void packed_product_check(const slv_problem *p, const double *Aref, const double *x) {
  double ref[PK_N], y[PK_N];
  for (int i = 0; i < PK_N; i++) {
    ref[i] = p->b[i];
    for (int j = 0; j < PK_N; j++) ref[i] += Aref[i + PK_N * j] * x[j];
  }
  slv_op_buf buf;
  memset(&buf, 0, sizeof buf);
  CU_ASSERT_FATAL(slv_op_buf_alloc(&buf, PK_N) == SLV_OK);
  slv_op op;
  slv_op_begin(&op, p, &buf);
  CU_ASSERT_EQUAL(slv_op_pack_rows(&op), SLV_OP_BLOCK_ROWS);
  CU_ASSERT_EQUAL(op.colptr[PK_NC], 8);
  slv_op_matvec(&op, x, p->b, y);
  for (int i = 0; i < PK_N; i++) CU_ASSERT_DOUBLE_EQUAL(y[i], ref[i], 1e-14);
  CU_ASSERT_EQUAL(slv_op_pack(&op), SLV_OP_BLOCKS); /* the other layout on request */
  CU_ASSERT_EQUAL(op.colptr[PK_NC], 8);
  slv_op_matvec(&op, x, p->b, y);
  for (int i = 0; i < PK_N; i++) CU_ASSERT_DOUBLE_EQUAL(y[i], ref[i], 1e-14);
  slv_op_buf_free(&buf);
}

static void test_packed_layouts(void) {
  double A[PK_N * PK_N], b[PK_N], x[PK_N], Ax[PK_N * PK_N + 1], mu[PK_NC];
  int Ap[PK_N + 1], Aj[PK_N * PK_N + 1], rows[PK_NC];
  uint64_t s = 11;
  for (int j = 0; j < PK_N; j++)
    for (int i = 0; i < PK_N; i++)
      A[i + PK_N * j] = planted_block(i / 3, j / 3) ? unif(&s) - 0.5 + (i == j ? 4.0 : 0.0) : 0.0;
  for (int i = 0; i < PK_N; i++) b[i] = unif(&s) - 0.5, x[i] = unif(&s) - 0.5;
  int nz = 0;
  for (int i = 0; i < PK_N; i++) {
    Ap[i] = nz;
    for (int j = PK_N - 1; j >= 0; j--)
      if (A[i + PK_N * j] != 0.0 || (i == 4 && j == 11)) { /* (1, 3): an explicit zero */
        Aj[nz] = j;
        Ax[nz++] = A[i + PK_N * j];
      }
  }
  Ap[PK_N] = nz;
  slv_problem p = pk_problem(b, rows, mu);
  p.storage = SLV_DENSE;
  p.A = A;
  p.lda = PK_N;
  CU_ASSERT_EQUAL_FATAL(slv_problem_validate(&p, NULL, 0), SLV_OK);
  packed_product_check(&p, A, x);
  p.storage = SLV_CSR;
  p.A = NULL;
  p.lda = 0;
  p.Ap = Ap;
  p.Aj = Aj;
  p.Ax = Ax;
  CU_ASSERT_EQUAL_FATAL(slv_problem_validate(&p, NULL, 0), SLV_OK);
  packed_product_check(&p, A, x);
}

/* Dense packing by columns at its limit (n^2 / 4 nonzeros, counted before
 * the copy, eight a step with AVX2): n = 67 (columns of 8 steps and 3
 * rows of rest), cap = 1122 nonzeros planted at distinct places (k 7919
 * mod n^2) and a -0.0 (a zero): packed, every column's rows and values as
 * planted; one more nonzero in a column's rest rows: not packed. */
static int dense_pack(const slv_problem *p, slv_op_buf *buf, slv_op *op) {
  slv_op_begin(op, p, buf);
  return slv_op_pack(op);
}

/* The number of places where op's packed columns differ from A's
 * nonzeros (n x n, lda n). */
static int pack_differs(const slv_op *op, const double *A, int n) {
  int wrong = 0;
  for (int j = 0; j < n; j++) {
    int e = op->colptr[j];
    for (int i = 0; i < n; i++)
      if (A[i + n * j] != 0.0) {
        wrong += e >= op->colptr[j + 1] || op->rowind[e] != i || op->val[e] != A[i + n * j];
        e++;
      }
    wrong += e != op->colptr[j + 1];
  }
  return wrong;
}

/* A of the chunk cases: nz[c] nonzeros in the columns of chunk c (32
 * columns each, the last 3), filled column by column from the top. */
static void fill_chunks(double *A, int n, const int *nz) {
  memset(A, 0, sizeof *A * (size_t)n * n);
  for (int c = 0; c < 3; c++)
    for (int k = 0; k < nz[c]; k++) A[(size_t)32 * c * n + k] = 2.0 + k % 7;
}

static void test_dense_pack_limit(void) {
  enum { N = 67, NN = N * N, CAP = NN / 4 };
  static double A[NN];
  double b[N] = { 0 };
  memset(A, 0, sizeof A);
  for (int k = 0; k < CAP; k++) A[(size_t)k * 7919 % NN] = 1.0 + k;
  int zero_at = -1;
  for (int k = 0; k < NN && zero_at < 0; k++)
    if (A[k] == 0.0 && k % N >= 64) zero_at = k; /* a zero in the rest rows */
  CU_ASSERT_FATAL(zero_at >= 0);
  for (int k = 0; k < NN; k++)
    if (A[k] == 0.0 && k != zero_at) {
      A[k] = -0.0;
      break;
    }
  slv_problem p = slv_problem_empty();
  p.n = N;
  p.storage = SLV_DENSE;
  p.A = A;
  p.lda = N;
  p.b = b;
  slv_op_buf buf;
  memset(&buf, 0, sizeof buf);
  CU_ASSERT_FATAL(slv_op_buf_alloc(&buf, N) == SLV_OK);
  slv_op op;
  CU_ASSERT_EQUAL(dense_pack(&p, &buf, &op), SLV_OP_COLS);
  CU_ASSERT_EQUAL(op.colptr[N], CAP);
  CU_ASSERT_EQUAL(pack_differs(&op, A, N), 0);
  A[zero_at] = 0.5;
  CU_ASSERT_EQUAL(dense_pack(&p, &buf, &op), SLV_OP_UNPACKED);
  /* the copy stopped by the count's projection and made at the end: all
   * cap nonzeros in the first chunk (its count, scaled to 67 columns,
   * is past cap); 10 in the first chunk (copied as counted), 1100 in the
   * second (the projection stops the copy), 12 in the last: packed as
   * planted, and one more in the last chunk: not packed */
  int all_first[3] = { CAP, 0, 0 }, spread[3] = { 10, 1100, 12 };
  fill_chunks(A, N, all_first);
  CU_ASSERT_EQUAL(dense_pack(&p, &buf, &op), SLV_OP_COLS);
  CU_ASSERT_EQUAL(op.colptr[N], CAP);
  CU_ASSERT_EQUAL(pack_differs(&op, A, N), 0);
  fill_chunks(A, N, spread);
  CU_ASSERT_EQUAL(dense_pack(&p, &buf, &op), SLV_OP_COLS);
  CU_ASSERT_EQUAL(op.colptr[N], CAP);
  CU_ASSERT_EQUAL(pack_differs(&op, A, N), 0);
  spread[2]++;
  fill_chunks(A, N, spread);
  CU_ASSERT_EQUAL(dense_pack(&p, &buf, &op), SLV_OP_UNPACKED);
  slv_op_buf_free(&buf);
}

/* slv_op_is_symmetric by the packed copy against slv_is_symmetric by the
 * storage: the same verdict and the same first offending pair.  Blocks
 * (a 4-contact problem, dense and CSR): symmetric; one entry moved by
 * 1e-3 (its mirror not); an entry whose mirror block is not stored; a
 * move of 1e-14, within 1e-12 max|A|.  Columns (n = 64, no cones, a band
 * of width 2): symmetric, then one entry moved.  A pair may come in
 * either order. */
static int op_symmetric(const slv_problem *p, int layout, int *ii, int *jj) {
  slv_op_buf buf;
  memset(&buf, 0, sizeof buf);
  CU_ASSERT_FATAL(slv_op_buf_alloc(&buf, p->n) == SLV_OK);
  slv_op op;
  slv_op_begin(&op, p, &buf);
  CU_ASSERT_EQUAL(slv_op_pack(&op), layout);
  int yes = slv_op_is_symmetric(&op, 1e-12, ii, jj);
  slv_op_buf_free(&buf);
  return yes;
}

static void symmetry_agrees(const slv_problem *p, int layout, int want) {
  int i1, j1, i2, j2;
  CU_ASSERT_EQUAL(slv_is_symmetric(p, 1e-12, &i1, &j1), want);
  CU_ASSERT_EQUAL(op_symmetric(p, layout, &i2, &j2), want);
  if (!want) {
    /* the pair, in either order (CSR storage names the upper one) */
    CU_ASSERT((i1 == i2 && j1 == j2) || (i1 == j2 && j1 == i2));
  }
}

static void block_symmetry_both_storages(slv_problem *p, double *A, int *Ap, int *Aj, double *Ax,
                                         int want) {
  p->storage = SLV_DENSE;
  p->A = A;
  p->lda = PK_N;
  p->Ap = p->Aj = NULL;
  p->Ax = NULL;
  symmetry_agrees(p, SLV_OP_BLOCKS, want);
  tst_dense_to_csr(PK_N, A, Ap, Aj, Ax);
  p->storage = SLV_CSR;
  p->A = NULL;
  p->lda = 0;
  p->Ap = Ap;
  p->Aj = Aj;
  p->Ax = Ax;
  symmetry_agrees(p, SLV_OP_BLOCKS, want);
}

static void test_packed_symmetry(void) {
  double A[PK_N * PK_N], b[PK_N] = { 0 }, Ax[PK_N * PK_N], mu[PK_NC];
  int Ap[PK_N + 1], Aj[PK_N * PK_N], rows[PK_NC];
  uint64_t s = 13;
  for (int j = 0; j < PK_N; j++)
    for (int i = j; i < PK_N; i++) {
      int on = planted_block(i / 3, j / 3) || planted_block(j / 3, i / 3);
      A[i + PK_N * j] = A[j + PK_N * i] = on ? unif(&s) - 0.5 + (i == j ? 4.0 : 0.0) : 0.0;
    }
  slv_problem p = pk_problem(b, rows, mu);
  block_symmetry_both_storages(&p, A, Ap, Aj, Ax, 1);
  A[4 + PK_N * 2] += 1e-3; /* A(4,2), block (1,0); its mirror in block (0,1) */
  block_symmetry_both_storages(&p, A, Ap, Aj, Ax, 0);
  A[4 + PK_N * 2] -= 1e-3;
  A[0 + PK_N * 6] = 0.1; /* block (0,2) stored, block (2,0) all zero */
  block_symmetry_both_storages(&p, A, Ap, Aj, Ax, 0);
  A[0 + PK_N * 6] = 0.0;
  A[4 + PK_N * 2] *= 1 + 1e-14;
  block_symmetry_both_storages(&p, A, Ap, Aj, Ax, 1);

  enum { NB = 64 };
  double *B = calloc(NB * NB, sizeof *B), bb[NB] = { 0 };
  CU_ASSERT_FATAL(B != NULL);
  for (int j = 0; j < NB; j++)
    for (int i = j; i < NB && i <= j + 2; i++)
      B[i + NB * j] = B[j + NB * i] = (i == j ? 5.0 : unif(&s) - 0.5);
  slv_problem q = slv_problem_empty();
  q.n = NB;
  q.b = bb;
  q.storage = SLV_DENSE;
  q.A = B;
  q.lda = NB;
  symmetry_agrees(&q, SLV_OP_COLS, 1);
  B[40 + NB * 41] += 1e-3; /* A(40,41): named as A(41,40), the lower triangle */
  symmetry_agrees(&q, SLV_OP_COLS, 0);
  free(B);
}

/* The chain's block-row product on 1, 2 and 3 threads: the same bits. */
static void test_block_rows_threads(void) {
  chain h;
  CU_ASSERT_FATAL(chain_make(&h, NC, 37));
  size_t bytes = (size_t)h.n * sizeof(double);
  double *x = malloc(bytes), *y1 = malloc(bytes), *yt = malloc(bytes);
  CU_ASSERT_FATAL(x && y1 && yt);
  uint64_t s = 7;
  for (int i = 0; i < h.n; i++) x[i] = unif(&s) - 0.5;
  slv_op_buf buf;
  memset(&buf, 0, sizeof buf);
  CU_ASSERT_FATAL(slv_op_buf_alloc(&buf, h.n) == SLV_OK);
  slv_op op;
  slv_op_begin(&op, &h.p, &buf);
  CU_ASSERT_EQUAL(slv_op_pack_rows(&op), SLV_OP_BLOCK_ROWS);
  CU_ASSERT(9 * op.colptr[NC] >= 65536); /* above the threshold at which it splits */
  slv_op_matvec(&op, x, h.b, y1);
  slv_problem_w(&h.p, x, yt);
  double err = 0;
  for (int i = 0; i < h.n; i++) err = fmax(err, fabs(y1[i] - yt[i]));
  CU_ASSERT(err <= 1e-14);
  for (int t = 2; t <= 3; t++) {
    op.threads = t;
    slv_op_matvec(&op, x, h.b, yt);
    CU_ASSERT_EQUAL(memcmp(y1, yt, bytes), 0);
  }
  slv_op_buf_free(&buf);
  free(x);
  free(y1);
  free(yt);
  chain_free(&h);
}

/* slv_par_dot and slv_par_dot_diff: the chunk sums of par.h, in chunk
 * order, recomputed here; the same bits on 1, 2 and 3 threads. */
static void test_chunked_dots(void) {
  enum { N = 50001 };
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *g = malloc(N * sizeof *g);
  double *part = malloc(slv_par_chunks(N) * sizeof *part);
  CU_ASSERT_FATAL(a && b && g && part);
  uint64_t s = 13;
  for (int i = 0; i < N; i++) a[i] = unif(&s) - 0.5, b[i] = unif(&s) - 0.5, g[i] = unif(&s) - 0.5;
  double ref = 0, ref_diff = 0;
  for (int c0 = 0; c0 < N; c0 += SLV_PAR_CHUNK) {
    double sc = 0, sd = 0;
    for (int i = c0; i < N && i < c0 + SLV_PAR_CHUNK; i++) {
      sc += a[i] * b[i];
      sd += g[i] * (a[i] - b[i]);
    }
    ref += sc;
    ref_diff += sd;
  }
  for (int t = 1; t <= 3; t++) {
    double d = slv_par_dot(N, a, b, part, t), dd = slv_par_dot_diff(N, g, a, b, part, t);
    CU_ASSERT_EQUAL(memcmp(&d, &ref, sizeof d), 0);
    CU_ASSERT_EQUAL(memcmp(&dd, &ref_diff, sizeof dd), 0);
  }
  CU_ASSERT_EQUAL(slv_par_dot(0, a, b, part, 2), 0.0);
  free(a);
  free(b);
  free(g);
  free(part);
}

/* ---- the checks and measures of slv_solve on threads --------------------- */

/* slv_residual in chunks: on 1, 2 and 3 threads the same bits, with w
 * given or formed slice by slice; its maxima exactly those of
 * slv_natmap_of (one pass, no chunks; res_scaled too) and its 2-norm within rounding of
 * that pass's.  The chain's n = 9000 puts the first chunk boundary (2048)
 * inside cone 682 (rows 2046..2048), whose impulse is planted far outside
 * its cone so that it holds the largest residual: a chunk that cut the
 * cone would measure rows 2047 and 2048 as scalar rows. */
static void test_residual_chunks(void) {
  chain h;
  CU_ASSERT_FATAL(chain_make(&h, NC, 31));
  double *x = malloc(h.n * sizeof *x), *w = malloc(h.n * sizeof *w);
  CU_ASSERT_FATAL(x && w);
  uint64_t s = 5;
  for (int i = 0; i < h.n; i++) x[i] = 0.2 * (unif(&s) - 0.5);
  x[2046] = 0.0, x[2047] = 40.0, x[2048] = -30.0;
  slv_problem_w(&h.p, x, w);
  slv_natmap nm = slv_natmap_of(&h.p, x, w, NULL);
  double n2 = nm.n2, m = nm.inf, bn2 = 0;
  for (int i = 0; i < h.n; i++) bn2 += h.b[i] * h.b[i];
  slv_residuals r1 = slv_residual_threads(&h.p, x, w, 1);
  CU_ASSERT(m > 10.0); /* the planted cone's */
  CU_ASSERT_EQUAL(memcmp(&r1.res_nat_inf, &m, sizeof m), 0);
  CU_ASSERT_EQUAL(memcmp(&r1.res_scaled, &nm.scaled, sizeof m), 0);
  CU_ASSERT(r1.res_scaled > 0.1); /* the planted cone, against its own scale */
  CU_ASSERT_DOUBLE_EQUAL(r1.res_rel_2, n2 / fmax(1.0, sqrt(bn2)), 1e-12 * r1.res_rel_2);
  slv_residuals rn = slv_residual(&h.p, x, NULL);
  /* the bitwise comparisons below need a struct without padding (a field
   * narrower than the doubles left bytes that clang did not zero) */
  CU_ASSERT_EQUAL(sizeof rn, offsetof(slv_residuals, res_contact_at) + sizeof rn.res_contact_at);
  CU_ASSERT_EQUAL(memcmp(&rn, &r1, sizeof rn), 0);
  for (int t = 2; t <= 3; t++) {
    slv_residuals rt = slv_residual_threads(&h.p, x, w, t);
    CU_ASSERT_EQUAL(memcmp(&rt, &r1, sizeof rt), 0);
  }
  free(x);
  free(w);
  chain_free(&h);
}

/* The same refusal, and the same message, on 1, 2 and 3 threads; the
 * message names `what`. */
static void same_refusal(const slv_problem *p, const char *name, slv_status want,
                         const char *what) {
  double *x = malloc(p->n * sizeof *x), *w = malloc(p->n * sizeof *w);
  CU_ASSERT_FATAL(x && w);
  slv_result r1, rt;
  CU_ASSERT_EQUAL(solve_p(p, name, 1, 20, x, w, &r1, NULL), want);
  if (!strstr(r1.message, what)) printf("\n  message: %s (wanted %s)", r1.message, what);
  CU_ASSERT(strstr(r1.message, what) != NULL);
  for (int t = 2; t <= 3; t++) {
    CU_ASSERT_EQUAL(solve_p(p, name, t, 20, x, w, &rt, NULL), want);
    CU_ASSERT_STRING_EQUAL(rt.message, r1.message);
  }
  free(x);
  free(w);
}

/* slv_solve's checks and measures on threads (docs/solver-machinery.md, "Threads"):
 * a valid factored problem gives the same x, w and measures on 1, 2 and 3
 * threads (pgs_color, whose plan splits, and pgs, which takes no threads:
 * only the checks and the measures around it do); each broken rule, planted
 * in the second half of the rows, is refused with the message one thread
 * gives, naming the row; of two broken rows the first is named. */
static void test_solve_checks(void) {
  fprob f; /* 5000 contacts of a normal and two findex rows on 2500 blocks */
  fprob_make_large(&f, 5000, 2500, 17);
  CU_ASSERT(f.n >= SLV_PAR_MIN_N);
  size_t bytes = (size_t)f.n * sizeof(double);
  double *x1 = malloc(bytes), *w1 = malloc(bytes), *xt = malloc(bytes), *wt = malloc(bytes);
  CU_ASSERT_FATAL(x1 && w1 && xt && wt);
  const char *names[2] = { "pgs_color", "pgs" };
  for (int k = 0; k < 2; k++) {
    slv_result r1, rt;
    slv_status s1 = solve_p(&f.p, names[k], 1, 20, x1, w1, &r1, NULL);
    CU_ASSERT(s1 == SLV_CONVERGED || s1 == SLV_MAX_ITER);
    CU_ASSERT(isfinite(r1.res.res_nat_inf));
    for (int t = 2; t <= 3; t++) {
      int split = 0;
      CU_ASSERT_EQUAL(solve_p(&f.p, names[k], t, 20, xt, wt, &rt, &split), s1);
      CU_ASSERT_EQUAL(split, k == 0); /* pgs_color's sweep on the threads; pgs's on one */
      CU_ASSERT_EQUAL(memcmp(x1, xt, bytes), 0);
      CU_ASSERT_EQUAL(memcmp(w1, wt, bytes), 0);
      CU_ASSERT_EQUAL(memcmp(&rt.res, &r1.res, sizeof rt.res), 0);
    }
    /* w is A x + b as the library's serial product forms it */
    slv_problem_w(&f.p, x1, wt);
    CU_ASSERT_EQUAL(memcmp(w1, wt, bytes), 0);
  }

  double j12 = f.fJ[12 * 12000 + 3], k11 = f.fK[12 * 11000];
  f.fJ[12 * 12000 + 3] = NAN;
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "row 12000:");
  f.fK[12 * 11000] = INFINITY; /* the first of two */
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "row 11000:");
  f.fK[12 * 11000] = k11;
  f.fJ[12 * 12000 + 3] = j12;

  int slot1 = f.fblk[2 * 13000 + 1];
  f.fblk[2 * 13000 + 1] = f.nblk;
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "(row 13000, slot 1)");
  f.fblk[2 * 13000 + 1] = f.fblk[2 * 13000];
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "row 13000: both");
  f.fblk[2 * 13000 + 1] = slot1;

  f.lo[14001] = 2.0, f.hi[14001] = 1.0; /* a normal row: its own bounds */
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "lo[14001]=2");
  f.lo[14001] = 0.0, f.hi[14001] = INFINITY;
  double b9 = f.b[9000];
  f.b[9000] = NAN;
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "b[9000]");
  f.b[9000] = b9;
  int fx9500 = f.findex[9500];
  f.findex[9500] = 9500;
  same_refusal(&f.p, "pgs", SLV_ERR_INVALID, "findex[9500]=9500 refers to itself");
  f.findex[9500] = fx9500;

  /* A_ii = 0: the row's J and fd zero (a valid problem, refused by the
   * solvers that divide by A_ii) */
  double saved[12], d = f.fd[14500];
  memcpy(saved, f.fJ + 12 * 14500, sizeof saved);
  memset(f.fJ + 12 * 14500, 0, sizeof saved);
  f.fd[14500] = 0.0;
  CU_ASSERT_EQUAL(slv_problem_validate(&f.p, NULL, 0), SLV_OK);
  same_refusal(&f.p, "pgs", SLV_ERR_UNSUPPORTED, "A(14500,14500)=0");
  same_refusal(&f.p, "pgs_color", SLV_ERR_UNSUPPORTED, "A(14500,14500)=0");
  memcpy(f.fJ + 12 * 14500, saved, sizeof saved);
  f.fd[14500] = d;
  CU_ASSERT_EQUAL(slv_problem_validate(&f.p, NULL, 0), SLV_OK);

  free(x1);
  free(w1);
  free(xt);
  free(wt);
  fprob_free(&f);

  /* a row kind the solver does not take (every factored solver takes them
   * all): the chain with its last 2000 contacts as plain rows and a findex
   * row among them, which nsgs refuses */
  chain h;
  CU_ASSERT_FATAL(chain_make(&h, NC, 37));
  int *fx = malloc(h.n * sizeof *fx);
  double *fmu = calloc(h.n, sizeof *fmu);
  CU_ASSERT_FATAL(fx && fmu);
  for (int i = 0; i < h.n; i++) fx[i] = -1;
  fx[8000] = 7999;
  fmu[8000] = 0.5;
  h.p.ncones = 1000;
  h.p.findex = fx;
  h.p.mu = fmu;
  same_refusal(&h.p, "nsgs", SLV_ERR_UNSUPPORTED, "row 8000 has findex 7999");
  free(fx);
  free(fmu);
  chain_free(&h);
}

/* slv_is_symmetric_threads: on 1, 2 and 3 threads the same answer and the
 * same first differing pair as slv_is_symmetric, on the chain's sorted
 * rows and after two entries of a row swap places (the unsorted test):
 * symmetric; one entry in the second half perturbed; two perturbed (the
 * first in row order is named). */
static void symmetry_same(const slv_problem *p, int want) {
  int i1, j1;
  CU_ASSERT_EQUAL(slv_is_symmetric(p, 1e-12, &i1, &j1), want);
  for (int t = 1; t <= 3; t++) {
    int i, j;
    CU_ASSERT_EQUAL(slv_is_symmetric_threads(p, 1e-12, &i, &j, t), want);
    CU_ASSERT_EQUAL(i, i1);
    CU_ASSERT_EQUAL(j, j1);
  }
}

static void test_symmetry_threads(void) {
  chain h;
  CU_ASSERT_FATAL(chain_make(&h, NC, 41));
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) { /* row 100's first two entries swapped: unsorted */
      int k = h.Ap[100], tj = h.Aj[k];
      double tx = h.Ax[k];
      h.Aj[k] = h.Aj[k + 1], h.Ax[k] = h.Ax[k + 1];
      h.Aj[k + 1] = tj, h.Ax[k + 1] = tx;
    }
    symmetry_same(&h.p, 1);
    int k8 = h.Ap[8000] + 1, k5 = h.Ap[5000] + 1; /* off-diagonal entries */
    CU_ASSERT(h.Aj[k8] != 8000 && h.Aj[k5] != 5000);
    double s8 = h.Ax[k8], s5 = h.Ax[k5];
    h.Ax[k8] += 1e-3;
    symmetry_same(&h.p, 0);
    int i, j;
    CU_ASSERT_EQUAL(slv_is_symmetric_threads(&h.p, 1e-12, &i, &j, 2), 0);
    CU_ASSERT(i == 8000 || j == 8000);
    h.Ax[k5] += 1e-3;
    symmetry_same(&h.p, 0);
    CU_ASSERT_EQUAL(slv_is_symmetric_threads(&h.p, 1e-12, &i, &j, 2), 0);
    CU_ASSERT(i == 5000 || j == 5000 || (i < 5000 && h.Aj[k5] == i));
    h.Ax[k8] = s8, h.Ax[k5] = s5;
  }
  chain_free(&h);
}

static void test_validate(void) {
  slv_options o = slv_options_default();
  char msg[128];
  CU_ASSERT_EQUAL(o.threads, 1);
  o.threads = 0;
  CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_ERR_OPTIONS);
  CU_ASSERT(strstr(msg, "threads=0") != NULL);
  o.threads = SLV_THREADS_MAX + 1;
  CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_ERR_OPTIONS);
  o.threads = SLV_THREADS_MAX;
  CU_ASSERT_EQUAL(slv_options_validate(&o, msg, sizeof msg), SLV_OK);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("threads", NULL, NULL);
  CU_add_test(s, "threads: 0 and above the maximum refused", test_validate);
  CU_add_test(s, "the chain's CSR product, checked here", test_product);
  CU_add_test(s, "packed block columns and block rows, dense and CSR", test_packed_layouts);
  CU_add_test(s, "symmetry by the packed copy: as slv_is_symmetric", test_packed_symmetry);
  CU_add_test(s, "dense packing by columns: n^2 / 4 nonzeros packed, one more not",
              test_dense_pack_limit);
  CU_add_test(s, "block-row product: the same bits on 1, 2 and 3 threads", test_block_rows_threads);
  CU_add_test(s, "chunked dot products: the same bits on 1, 2 and 3 threads", test_chunked_dots);
  CU_add_test(s, "pjacobi_cone: the same x with 1, 2 and 3 threads", test_pjacobi_cone);
  CU_add_test(s, "apgd: the same x with 1, 2 and 3 threads", test_apgd);
  CU_add_test(s, "admm and ipm (CHOLMOD): the same x with 1, 2 and 3 threads, dyn-var kept",
              test_cholmod_solvers);
  CU_add_test(s, "slv_residual's chunks: the same bits on 1, 2 and 3 threads",
              test_residual_chunks);
  CU_add_test(s, "slv_solve's checks and measures on 1, 2 and 3 threads", test_solve_checks);
  CU_add_test(s, "the CSR symmetry test on 1, 2 and 3 threads", test_symmetry_threads);
  return tst_run();
}
