/* factored.c -- the factored (matrix-free) storage of slv.h (docs/problem.md,
 * "Storage"):
 *
 *     A = J K^T + diag(d),   J, K: n x 6 nblk, row i nonzero on the two
 *                            6-column blocks fblk[2i], fblk[2i+1] (or -1)
 *
 * the form of a contact problem A = J M^-1 J^T + diag(cfm) with K = J M^-1
 * (ODE quickstep, Box2D: the solver works on body velocities, never on A).
 * Here: the product t = K^T x that every row access needs (operator.h
 * declares these kernels), w = A x + b with t of any size, and the
 * expansion into CSR for the tools that need an explicit A (export, the
 * solvers without SLV_CAP_FACTORED).
 *
 * Expansion: A(i,j) = sum over slots k of row i and l of row j on the same
 * block beta of J_i,k . K_j,l.  With the list of (row, slot) entries of each
 * block (a counting sort over fblk), row i's columns are the rows on the
 * blocks of its two slots: O(sum_beta deg(beta)^2) work, never O(n^2).
 * Columns are sorted within each row, the diagonal is always stored.
 */
#include "operator.h"
#include "slv_internal.h"
#include "par.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

slv_fac slv_fac_of(const slv_problem *p) {
  slv_fac f = { p->n, p->nblk, p->fblk, p->fJ, p->fK, p->fd };
  return f;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FAC_X86 1
#else
#define FAC_X86 0
#endif

/* The end of the run of rows from i on i's block pair (b0, b1). */
static inline int run_end(const int *fb, int n, int i, int b0, int b1) {
  int e = i + 1;
  while (e < n && fb[2 * e] == b0 && fb[2 * e + 1] == b1) e++;
  return e;
}

/* slv_fac_ktx's loop, scalar: twelve named sums, not an array (gcc kept
 * a[12] on the stack, and each row's additions then waited on the last
 * row's stores). */
static void ktx_scalar(const slv_fac *f, const double *x, double *t, int B0, int B1) {
  const int *fb = f->blk;
  for (int i = 0, e; i < f->n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    e = run_end(fb, f->n, i, b0, b1);
    if (!(b0 >= B0 && b0 < B1) && !(b1 >= B0 && b1 < B1)) continue; /* a run outside */
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
    double a6 = 0, a7 = 0, a8 = 0, a9 = 0, a10 = 0, a11 = 0;
    for (int r = i; r < e; r++) {
      const double *K = f->K + 12 * (size_t)r, xe = x[r];
      a0 += K[0] * xe, a1 += K[1] * xe, a2 += K[2] * xe, a3 += K[3] * xe;
      a4 += K[4] * xe, a5 += K[5] * xe, a6 += K[6] * xe, a7 += K[7] * xe;
      a8 += K[8] * xe, a9 += K[9] * xe, a10 += K[10] * xe, a11 += K[11] * xe;
    }
    const double a[12] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 };
    /* a static slot (-1) has no block; its K is never read into t */
    if (b0 >= B0 && b0 < B1)
      for (int c = 0; c < 6; c++) t[6 * (size_t)(b0 - B0) + c] += a[c];
    if (b1 >= B0 && b1 < B1)
      for (int c = 0; c < 6; c++) t[6 * (size_t)(b1 - B0) + c] += a[6 + c];
  }
}

#if FAC_X86
/* The same in AVX2: a run's twelve sums as three 4-lane sums, each lane
 * one of ktx_scalar's (K_rc x_r added in turn from 0, a product then a
 * sum: no fused multiply-add), so the same bits. */
__attribute__((target("avx2"))) static void ktx_avx2(const slv_fac *f, const double *x, double *t,
                                                     int B0, int B1) {
  const int *fb = f->blk;
  for (int i = 0, e; i < f->n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    int in0 = b0 >= B0 && b0 < B1, in1 = b1 >= B0 && b1 < B1;
    if (!in0 && !in1) {
      e = run_end(fb, f->n, i, b0, b1);
      continue;
    }
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0;
    e = i;
    do { /* the run's rows, its end found on the way */
      const double *K = f->K + 12 * (size_t)e;
      __m256d xe = _mm256_broadcast_sd(x + e);
      a0 = _mm256_add_pd(a0, _mm256_mul_pd(_mm256_loadu_pd(K), xe));
      a1 = _mm256_add_pd(a1, _mm256_mul_pd(_mm256_loadu_pd(K + 4), xe));
      a2 = _mm256_add_pd(a2, _mm256_mul_pd(_mm256_loadu_pd(K + 8), xe));
      e++;
    } while (e < f->n && fb[2 * e] == b0 && fb[2 * e + 1] == b1);
    if (in0) { /* a[0..5]: a0, a1's low half */
      double *tb = t + 6 * (size_t)(b0 - B0);
      _mm256_storeu_pd(tb, _mm256_add_pd(_mm256_loadu_pd(tb), a0));
      _mm_storeu_pd(tb + 4, _mm_add_pd(_mm_loadu_pd(tb + 4), _mm256_castpd256_pd128(a1)));
    }
    if (in1) { /* a[6..11]: a1's high half, a2 */
      double *tb = t + 6 * (size_t)(b1 - B0);
      _mm_storeu_pd(tb, _mm_add_pd(_mm_loadu_pd(tb), _mm256_extractf128_pd(a1, 1)));
      _mm256_storeu_pd(tb + 2, _mm256_add_pd(_mm256_loadu_pd(tb + 2), a2));
    }
  }
}
#endif

/* t = K^T x over the blocks [B0, B1).  Consecutive rows on the same pair
 * of blocks (a contact's rows, a manifold's points) are summed in
 * registers first and added to t once per run: adding each row into t
 * directly made every row wait for the previous row's store to the same
 * block.  In AVX2 where the CPU has it (the same bits). */
void slv_fac_ktx(const slv_fac *f, const double *x, double *t, int B0, int B1) {
  memset(t, 0, sizeof(double) * 6 * (size_t)(B1 - B0));
#if FAC_X86
  if (__builtin_cpu_supports("avx2")) {
    ktx_avx2(f, x, t, B0, B1);
    return;
  }
#endif
  ktx_scalar(f, x, t, B0, B1);
}

/* Rows [i0, i1) of w = A x + b into w[0 .. i1 - i0), with t holding tcap
 * blocks: for each slice [B0, B1) of tcap blocks, t = K^T x of the slice
 * (a pass over every row), and each row adds J . t over its slots in the
 * slice.  A row's slots may fall in two slices: the first one sets w_i
 * (slot 0's product plus slot 1's, 0 for a slot elsewhere), the second
 * adds.  With one slice (nb <= tcap) that is slv_fac_row's sum, s0 + s1;
 * and then w_i = b_i + (d_i x_i + that). */
void slv_fac_w_rows(const slv_fac *f, const double *x, const double *b, int i0, int i1, double *w,
                    double *t, int tcap) {
  if (i1 <= i0) return;
  memset(w, 0, (size_t)(i1 - i0) * sizeof *w);
  for (int B0 = 0; B0 < f->nb; B0 += tcap) {
    int B1 = f->nb - B0 > tcap ? B0 + tcap : f->nb;
    slv_fac_ktx(f, x, t, B0, B1);
    for (int i = i0; i < i1; i++) {
      int b0 = f->blk[2 * i], b1 = f->blk[2 * i + 1];
      int in0 = b0 >= B0 && b0 < B1, in1 = b1 >= B0 && b1 < B1;
      if (!in0 && !in1) continue;
      const double *J = f->J + 12 * (size_t)i;
      double s0 = in0 ? slv_dot6(J, t + 6 * (size_t)(b0 - B0)) : 0.0;
      double s1 = in1 ? slv_dot6(J + 6, t + 6 * (size_t)(b1 - B0)) : 0.0;
      /* first slice of this row: no live slot on a block below B0 */
      int first = !((b0 >= 0 && b0 < B0) || (b1 >= 0 && b1 < B0));
      w[i - i0] = first ? s0 + s1 : w[i - i0] + (s0 + s1);
    }
  }
  for (int i = i0; i < i1; i++) {
    double r = (f->d ? f->d[i] * x[i] : 0.0) + w[i - i0];
    w[i - i0] = b ? b[i] + r : r;
  }
}

void slv_fac_w(const slv_fac *f, const double *x, const double *b, double *w, double *t, int tcap) {
  slv_fac_w_rows(f, x, b, 0, f->n, w, t, tcap);
}

void slv_fac_ktx_threads(const slv_fac *f, const double *x, double *t, int threads) {
  int nt = slv_par_threads(threads, f->n);
  if (nt == 1) {
    slv_fac_ktx(f, x, t, 0, f->nb);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int v = 0; v < nt; v++) {
    int B0 = (int)((long long)f->nb * v / nt), B1 = (int)((long long)f->nb * (v + 1) / nt);
    slv_fac_ktx(f, x, t + 6 * (size_t)B0, B0, B1);
  }
}

/* Rows [i0, i1) of w from t = K^T x: slv_fac_w_rows's sums with one slice. */
static void w_rows_scalar(const slv_fac *f, const double *x, const double *b, double *w,
                          const double *t, int i0, int i1) {
  for (int i = i0; i < i1; i++) {
    double r = slv_fac_row(f, i, t, x[i]);
    w[i] = b ? b[i] + r : r;
  }
}

#if FAC_X86
/* The same in AVX2, both slots' slv_dot6 side by side: the products
 * p_c = J_c t_c, then hadd's p0 + p1 and p2 + p3 of each slot, their sum,
 * and p4 + p5 added last: slv_dot6's ((p0 + p1) + (p2 + p3)) + (p4 + p5);
 * a static slot's s is 0.0 (masked); then slv_fac_row's d x + (s0 + s1)
 * and b + that, in scalars.  The same IEEE operations, so the same bits. */
__attribute__((target("avx2"))) static void w_rows_avx2(const slv_fac *f, const double *x,
                                                        const double *b, double *w, const double *t,
                                                        int i0, int i1) {
  static const double zero6[6] = { 0 };
  const __m128i none = _mm_set1_epi64x(-1);
  const double *fJ = f->J, *d = f->d; /* in locals: the stores to w may alias f */
  const int *blk = f->blk;
  for (int i = i0; i < i1; i++) {
    const double *J = fJ + 12 * (size_t)i;
    int b0 = blk[2 * i], b1 = blk[2 * i + 1];
    const double *t0 = b0 >= 0 ? t + 6 * (size_t)b0 : zero6;
    const double *t1 = b1 >= 0 ? t + 6 * (size_t)b1 : zero6;
    __m256d v0 = _mm256_mul_pd(_mm256_loadu_pd(J), _mm256_loadu_pd(t0));
    __m256d v1 = _mm256_mul_pd(_mm256_loadu_pd(J + 6), _mm256_loadu_pd(t1));
    __m128d u0 = _mm_mul_pd(_mm_loadu_pd(J + 4), _mm_loadu_pd(t0 + 4));
    __m128d u1 = _mm_mul_pd(_mm_loadu_pd(J + 10), _mm_loadu_pd(t1 + 4));
    __m256d h = _mm256_hadd_pd(v0, v1); /* (p0 + p1, q0 + q1, p2 + p3, q2 + q3) */
    __m128d s = _mm_add_pd(_mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1)),
                           _mm_hadd_pd(u0, u1));
    /* slot 0 in the low lane, slot 1 in the high one: live where its block is */
    __m128i live = _mm_cmpgt_epi64(_mm_set_epi64x(b1, b0), none);
    s = _mm_and_pd(s, _mm_castsi128_pd(live));
    double r = (d ? d[i] * x[i] : 0.0) + (_mm_cvtsd_f64(s) + _mm_cvtsd_f64(_mm_unpackhi_pd(s, s)));
    w[i] = b ? b[i] + r : r;
  }
}
#endif

static void w_rows(const slv_fac *f, const double *x, const double *b, double *w, const double *t,
                   int i0, int i1) {
#if FAC_X86
  if (__builtin_cpu_supports("avx2")) {
    w_rows_avx2(f, x, b, w, t, i0, i1);
    return;
  }
#endif
  w_rows_scalar(f, x, b, w, t, i0, i1);
}

void slv_fac_w_threads(const slv_fac *f, const double *x, const double *b, double *w, double *t,
                       int threads) {
  slv_fac_ktx_threads(f, x, t, threads);
  slv_fac_rows_threads(f, x, b, w, t, threads);
}

void slv_fac_rows_threads(const slv_fac *f, const double *x, const double *b, double *w,
                          const double *t, int threads) {
  int nt = slv_par_threads(threads, f->n);
  if (nt == 1) {
    w_rows(f, x, b, w, t, 0, f->n);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int v = 0; v < nt; v++)
    w_rows(f, x, b, w, t, (int)((long long)f->n * v / nt), (int)((long long)f->n * (v + 1) / nt));
}

/* Sort one row's columns (and values) by insertion: rows hold the contacts
 * of two bodies, tens of entries. */
static void sort_row(int *col, double *val, int m) {
  for (int a = 1; a < m; a++) {
    int c = col[a];
    double v = val[a];
    int b = a - 1;
    for (; b >= 0 && col[b] > c; b--) {
      col[b + 1] = col[b];
      val[b + 1] = val[b];
    }
    col[b + 1] = c;
    val[b + 1] = v;
  }
}

/* Columns of row i into cols (if non-NULL; vals too) and their number;
 * mark: size n, != i on entry for every column (uses row stamps). */
static int row_entries(const slv_problem *p, const int *bptr, const int *blist, int i, int *mark,
                       int *pos, int *cols, double *vals) {
  int m = 0;
  /* the diagonal first, so that it is stored even when J_i = 0 */
  mark[i] = i;
  pos[i] = m;
  if (cols) {
    cols[m] = i;
    vals[m] = p->fd ? p->fd[i] : 0.0;
  }
  m++;
  for (int k = 0; k < 2; k++) {
    int b = p->fblk[2 * i + k];
    if (b < 0) continue;
    const double *Jik = p->fJ + 12 * (size_t)i + 6 * k;
    for (int q = bptr[b]; q < bptr[b + 1]; q++) {
      int j = blist[q] / 2, l = blist[q] % 2;
      if (mark[j] != i) {
        mark[j] = i;
        pos[j] = m;
        if (cols) {
          cols[m] = j;
          vals[m] = 0.0;
        }
        m++;
      }
      if (cols) {
        const double *Kjl = p->fK + 12 * (size_t)j + 6 * l;
        vals[pos[j]] += Jik[0] * Kjl[0] + Jik[1] * Kjl[1] + Jik[2] * Kjl[2] + Jik[3] * Kjl[3] +
                        Jik[4] * Kjl[4] + Jik[5] * Kjl[5];
      }
    }
  }
  return m;
}

slv_status slv_factored_csr_new(const slv_problem *p, int **Ap_out, int **Aj_out, double **Ax_out,
                                char *msg, size_t len) {
  *Ap_out = *Aj_out = NULL;
  *Ax_out = NULL;
  slv_status st = slv_problem_validate(p, msg, len);
  if (st) return st;
  if (p->storage != SLV_FACTORED) {
    slv_msgf(msg, len, "slv_factored_csr_new: storage=%d is not factored", (int)p->storage);
    return SLV_ERR_INVALID;
  }
  int n = p->n, nb = p->nblk;
  size_t un = (size_t)(n > 0 ? n : 1);
  int *bptr = calloc((size_t)nb + 2, sizeof *bptr);
  int *blist = malloc(2 * un * sizeof *blist);
  int *mark = malloc(un * sizeof *mark), *pos = malloc(un * sizeof *pos);
  int *Ap = malloc((un + 1) * sizeof *Ap), *Aj = NULL;
  double *Ax = NULL;
  if (!bptr || !blist || !mark || !pos || !Ap) goto nomem;

  /* (row, slot) entries of each block, in row order: bptr[b] .. bptr[b+1] */
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (p->fblk[2 * i + k] >= 0) bptr[p->fblk[2 * i + k] + 2]++;
  for (int b = 0; b < nb; b++) bptr[b + 2] += bptr[b + 1];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      if (p->fblk[2 * i + k] >= 0) blist[bptr[p->fblk[2 * i + k] + 1]++] = 2 * i + k;

  /* pass 1: the row lengths; pass 2: the entries */
  for (int i = 0; i < n; i++) mark[i] = -1;
  long nnz = 0;
  Ap[0] = 0;
  for (int i = 0; i < n; i++) {
    nnz += row_entries(p, bptr, blist, i, mark, pos, NULL, NULL);
    if (nnz > INT_MAX) {
      slv_msgf(msg, len, "slv_factored_csr_new: more than %d entries", INT_MAX);
      st = SLV_ERR_INVALID;
      goto out;
    }
    Ap[i + 1] = (int)nnz;
  }
  Aj = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *Aj);
  Ax = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *Ax);
  if (!Aj || !Ax) goto nomem;
  for (int i = 0; i < n; i++) mark[i] = -1;
  for (int i = 0; i < n; i++) {
    int m = row_entries(p, bptr, blist, i, mark, pos, Aj + Ap[i], Ax + Ap[i]);
    sort_row(Aj + Ap[i], Ax + Ap[i], m);
  }
  *Ap_out = Ap;
  *Aj_out = Aj;
  *Ax_out = Ax;
  Ap = Aj = NULL;
  Ax = NULL;
  st = SLV_OK;
  goto out;
nomem:
  slv_msgf(msg, len, "slv_factored_csr_new: out of memory (n=%d)", n);
  st = SLV_ERR_NOMEM;
out:
  free(bptr);
  free(blist);
  free(mark);
  free(pos);
  free(Ap);
  free(Aj);
  free(Ax);
  return st;
}
