/*
 * assemble.c -- dyn_system: from constraint rows (dyn_rows) to the
 * libsolvers problem, and from its solution back to body velocities (the
 * system's buffers: system.c).
 *
 * Problem (the unified boxed LCP of docs/dynamics.md, "The world step";
 * sign convention of slv.h, docs/problem.md, "Sign convention"):
 *
 *     w = A x + b,   lo <= x <= hi (findex rows: |x_i| <= mu_i x_findex(i);
 *                                   cones: |x_t| <= mu x_n)
 *     A = J M^-1 J^T + diag(cfm)  (+ the friction pyramid's E, -E^T, mu)
 *     b = J (u + h M^-1 f) - rhs,   f = (f_ext + m g, t_ext) per body
 *     u+ = u + M^-1 (J^T x + h f)   (dyn_apply_impulse), so w = J u+ - rhs.
 *
 * J is nrows x 6nb, but each row touches at most two bodies: a row keeps
 * J_i = (J_i,0 on body[0], J_i,1 on body[1]), 6-vectors (linear, angular)
 * in the world frame.  M^-1 is block diagonal, one block per dynamic body:
 *     M_b^-1 = diag(m_b^-1 I3, R_b I_b^-1 R_b^T)   (world inverse inertia)
 * and zero for static bodies (and the index -1).  With G_i,k = M^-1 J_i,k^T
 * (kept per row: it is also the velocity change per unit impulse),
 *
 *     A_ij = sum over k, l with body_i[k] = body_j[l] = beta dynamic of
 *            J_i,k . G_j,l                                            (1)
 *
 * Factored storage (slv.h, SLV_FACTORED): A is not formed; the problem
 * points at the per-row J and G (as its J and K = J M^-1), the body of each
 * side (-1 for static) and the CFM diagonal, which is all a matrix-free
 * solver (pgs) needs.  The friction pyramid's auxiliary rows have no such
 * form and are refused.
 *
 * Dense storage: for each dynamic body beta, every pair (i, j) of rows in
 * its row list adds (1): O(sum_beta deg(beta)^2), then diag(cfm).  CSR
 * storage: row i's columns are the union of the row lists of its (at most
 * two) bodies, merged in order (the lists are sorted by construction), plus
 * the diagonal and the pyramid's auxiliary couplings; each entry is (1)
 * evaluated directly.  A dense A is never formed on that path, so dense and
 * CSR are two independent accumulations of the same numbers (test_assemble
 * compares them entry by entry).
 *
 * Friction pyramid (docs/contact.md, "Friction models"; rows of kind
 * DYN_ROW_AUX, contact.c): with
 * lambda the auxiliary row, n its normal and beta_1..beta_eta its
 * directions, A(lambda, n) += mu, A(lambda, beta_h) += -1,
 * A(beta_h, lambda) += 1; lambda has J = 0, so b_lambda = -rhs = 0.
 *
 * Source: docs/contact.md, "Contact Jacobian" and "CFM and ERP" (A = J M^-1
 * J^T, CFM added to the diagonal), "Friction models" (the pyramid's E / mu
 * blocks); ODE's quickstep/step for the row-per-body bookkeeping.
 *
 * Problems from rows alone (dyn_assemble_rows: no world, M^-1 diagonal,
 * given per body; the generated contact families, libexperiment/
 * generate.c): each side's R = J M^-1/2 is both J and G of (1), so the
 * same lists and entries give A = R R^T, exactly symmetric.  A dense J
 * with a diagonal M^-1 is jmjt.c's (dyn_jmjt_dense, by BLAS).
 *
 * Memory: every buffer is sized in dyn_system_new / dyn_system_reserve by
 * max_rows, nb and max_nnz; dyn_assemble, dyn_assemble_rows and
 * dyn_apply_impulse allocate nothing and return DYN_ERR_INPUT with a
 * message when a size is exceeded.
 * Gyroscopic terms: not here (the caller's, through t_ext or w).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_assemble_internal.h"
#include "dyn_system_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FAIL(s, ...)                                                                               \
  do {                                                                                             \
    dyn_msgf((s)->msg, sizeof(s)->msg, __VA_ARGS__);                                               \
    return DYN_ERR_INPUT;                                                                          \
  } while (0)

/* 1 iff the row's J, rhs, cfm and mu are all finite.  A double is Inf or
 * NaN iff its 11 exponent bits are all set, that is iff (bits & EXP) +
 * 2^52 reaches bit 63 (status.c's test in slv_all_finite): the 15 values
 * two to an SSE2 operation, OR-ed, one test of the sign bits, no branch.
 * Without SSE2: x * 0 is +-0 for a finite x and NaN for +-inf or NaN, so
 * the sum of the 15 products is 0 iff every entry is finite (in any
 * order: sums of +-0 are +-0). */
__attribute__((always_inline)) static inline int row_finite(const dyn_rows *r) {
#if defined(__SSE2__)
  const __m128i e = _mm_set1_epi64x(0x7ff0000000000000LL),
                one = _mm_set1_epi64x(0x0010000000000000LL);
  const double *J = &r->J[0][0];
  __m128i a = _mm_add_epi64(_mm_and_si128(_mm_castpd_si128(_mm_set_pd(r->cfm, r->rhs)), e), one);
  __m128i m = _mm_add_epi64(_mm_and_si128(_mm_castpd_si128(_mm_set_sd(r->mu)), e), one);
#pragma GCC unroll 6
  for (int c = 0; c < 12; c += 2)
    a = _mm_or_si128(a,
                     _mm_add_epi64(_mm_and_si128(_mm_castpd_si128(_mm_loadu_pd(J + c)), e), one));
  return _mm_movemask_pd(_mm_castsi128_pd(_mm_or_si128(a, m))) == 0;
#else
  double z[4] = { r->rhs * 0.0, r->cfm * 0.0, r->mu * 0.0, 0.0 };
  for (int k = 0; k < 2; k++)
    for (int c = 0; c < 6; c += 2) {
      z[2 * k] += r->J[k][c] * 0.0;
      z[2 * k + 1] += r->J[k][c + 1] * 0.0;
    }
  return (z[0] + z[1]) + (z[2] + z[3]) == 0.0;
#endif
}

#define ROW_FAIL(...)                                                                              \
  do {                                                                                             \
    dyn_msgf(msg, cap, __VA_ARGS__);                                                               \
    return DYN_ERR_INPUT;                                                                          \
  } while (0)

/* Row i's structure: indices, bounds, findex, aux and cone groups; the
 * message into msg[cap] (msg may be NULL).  r is row i's record, r[k] row
 * i + k's for the cones' neighbours (a cone's three rows together).
 * Inlined: dyn_assemble_pass calls it once a row, where msg is NULL and
 * the messages fold away. */
__attribute__((always_inline)) static inline dyn_err check_row(const dyn_rows *r, int i, int n,
                                                               int nb, char *msg, size_t cap) {
  for (int k = 0; k < 2; k++) /* -1 <= body[k] < nb in one unsigned compare */
    if ((unsigned)r->body[k] + 1u > (unsigned)nb)
      ROW_FAIL("row %d: body[%d]=%d outside [-1, %d)", i, k, r->body[k], nb);
  if (r->body[0] >= 0 && r->body[0] == r->body[1])
    ROW_FAIL("row %d: both sides are body %d", i, r->body[0]);
  if (!row_finite(r)) ROW_FAIL("row %d: a non-finite J, rhs, cfm or mu", i);
  if (!(r->cfm >= 0)) ROW_FAIL("row %d: cfm=%g < 0", i, r->cfm);
  if (r->base < 0 || r->base > i) ROW_FAIL("row %d: base=%d outside [0, %d]", i, r->base, i);
  switch (r->kind) {
  case DYN_ROW_PLAIN:
    if (r->findex >= 0) {
      int j = r->base + r->findex;
      if (j >= n || j == i)
        ROW_FAIL("row %d: findex %d (global %d) outside the %d rows or itself", i, r->findex, j, n);
      if (!(r->mu >= 0)) ROW_FAIL("row %d: mu=%g < 0", i, r->mu);
    } else if (!(r->lo <= r->hi) || r->lo == INFINITY || r->hi == -INFINITY || isnan(r->lo) ||
               isnan(r->hi)) {
      ROW_FAIL("row %d: bounds lo=%g, hi=%g", i, r->lo, r->hi);
    }
    break;
  case DYN_ROW_CONE_N:
    if (i + 2 >= n || r[1].kind != DYN_ROW_CONE_T || r[2].kind != DYN_ROW_CONE_T ||
        r[1].base != r->base || r[2].base != r->base)
      ROW_FAIL("row %d: a cone's normal row must be followed by its two tangent rows", i);
    if (!(r->mu >= 0)) ROW_FAIL("row %d: cone mu=%g < 0", i, r->mu);
    break;
  case DYN_ROW_CONE_T:
    if (!((i >= 1 && r[-1].kind == DYN_ROW_CONE_N) ||
          (i >= 2 && r[-2].kind == DYN_ROW_CONE_N && r[-1].kind == DYN_ROW_CONE_T)))
      ROW_FAIL("row %d: a cone tangent row without its normal row", i);
    break;
  case DYN_ROW_AUX: {
    int j = r->base + r->findex, f = r->base + r->aux_first;
    if (r->findex < 0 || j >= n || j == i)
      ROW_FAIL("row %d: aux normal row %d (global %d) out of range", i, r->findex, j);
    if (r->aux_count < 1 || r->aux_first < 0 || f + r->aux_count > n ||
        (i >= f && i < f + r->aux_count))
      ROW_FAIL("row %d: aux rows [%d, %d) out of range", i, f, f + r->aux_count);
    if (!(r->mu >= 0)) ROW_FAIL("row %d: aux mu=%g < 0", i, r->mu);
    if (r->body[0] >= 0 || r->body[1] >= 0) ROW_FAIL("row %d: an aux row has no bodies", i);
    break;
  }
  default: ROW_FAIL("row %d: kind=%d unknown", i, (int)r->kind);
  }
  return DYN_OK;
}

/* The nc cones' normal rows and mu into cone_rows and cone_mu, in row
 * order. */
static void cone_list(dyn_system *s, const dyn_rows *rows, int nc) {
  for (int i = 0, c = 0; c < nc; i++)
    if (rows[i].kind == DYN_ROW_CONE_N) {
      s->cone_rows[c] = i;
      s->cone_mu[c++] = rows[i].mu;
    }
}

/* The aux rows and cones of T runs (nas[t], ncs[t]) summed into *naux
 * and *ncones; the cones listed (cone_list). */
static void runs_counted(dyn_system *s, const dyn_rows *rows, const int *nas, const int *ncs, int T,
                         int *naux, int *ncones) {
  int na = 0, nc = 0;
  for (int t = 0; t < T; t++) {
    na += nas[t];
    nc += ncs[t];
  }
  cone_list(s, rows, nc);
  *naux = na;
  *ncones = nc;
}

/* Every row's structure (check_row), on the system's threads; a failure
 * is reported at its first row, as one thread would.  *naux: the number
 * of DYN_ROW_AUX rows (the later passes that only concern the pyramid are
 * skipped without them); *ncones the cones, whose normal rows and mu go to
 * cone_rows and cone_mu in row order. */
static dyn_err check_rows(dyn_system *s, const dyn_rows *rows, int n, int nb, int *naux,
                          int *ncones) {
  int T = dyn_par_threads(s->threads, n), first[DYN_PAR_MAX], nas[DYN_PAR_MAX], ncs[DYN_PAR_MAX];
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int t = 0; t < T; t++) {
    int i1 = (int)dyn_par_cut(n, t + 1, T), i = (int)dyn_par_cut(n, t, T), na = 0, nc = 0;
    /* counted in locals: nas[t] and ncs[t] share a cache line with the
     * other threads' counts, and a store per row made every row of the
     * pass wait for that line (3.5x the pass's time on two threads) */
    for (; i < i1 && check_row(&rows[i], i, n, nb, NULL, 0) == DYN_OK; i++) {
      na += rows[i].kind == DYN_ROW_AUX;
      nc += rows[i].kind == DYN_ROW_CONE_N;
    }
    nas[t] = na;
    ncs[t] = nc;
    first[t] = i < i1 ? i : n;
  }
  int bad = dyn_par_least(first, T, n);
  if (bad < n) return check_row(&rows[bad], bad, n, nb, s->msg, sizeof s->msg);
  runs_counted(s, rows, nas, ncs, T, naux, ncones);
  return DYN_OK;
}

/* A row side's body bi as rbody holds it: -1 for a static body or none
 * (bdyn[b] != 0 for a dynamic body; bdyn NULL: every index >= 0 counts as
 * dynamic). */
static inline int side_body(const int *bdyn, int bi) {
  return (bi >= 0 && (!bdyn || bdyn[bi])) ? bi : -1;
}

/* Row i's bodies in rbody (side_body). */
static inline void row_bodies(dyn_system *s, const int *bdyn, const dyn_rows *rows, int i) {
  for (int k = 0; k < 2; k++) s->rbody[2 * i + k] = side_body(bdyn, rows[i].body[k]);
}

/* The row lists by body on one thread, from rbody: a counting sort, each
 * list in row order. */
static void lists_serial(dyn_system *s, int n, int nb) {
  int *bptr = s->bptr;
  memset(bptr, 0, sizeof(int) * ((size_t)nb + 1));
  for (int i = 0; i < 2 * n; i++)
    if (s->rbody[i] >= 0) bptr[s->rbody[i] + 1]++;
  for (int bi = 0; bi < nb; bi++) bptr[bi + 1] += bptr[bi];
  /* place each entry at bptr[bi]++ (bptr[bi] then ends at the start of
   * body bi + 1's list), then shift bptr back by one body */
  for (int i = 0; i < 2 * n; i++) {
    int bi = s->rbody[i];
    if (bi >= 0) s->blist[bptr[bi]++] = i;
  }
  for (int bi = nb; bi > 0; bi--) bptr[bi] = bptr[bi - 1];
  bptr[0] = 0;
}

/* The same on T threads, the rows cut into T runs: each run counts its
 * entries per body (run t's counts at tcnt[t (nb + 1)]), the counts become
 * each run's first slot in each body's list (runs in order), and each run
 * places its entries: the lists of lists_serial, entry for entry. */
static void lists_split(dyn_system *s, int n, int nb, int T) {
  int *bptr = s->bptr, *tcnt = s->tcnt;
  const size_t stride = (size_t)nb + 1;
#pragma omp parallel num_threads(T)
  {
#pragma omp for schedule(static, 1)
    for (int t = 0; t < T; t++) {
      int *cnt = tcnt + stride * (size_t)t;
      memset(cnt, 0, sizeof(int) * stride);
      for (int i = 2 * (int)dyn_par_cut(n, t, T); i < 2 * (int)dyn_par_cut(n, t + 1, T); i++)
        if (s->rbody[i] >= 0) cnt[s->rbody[i]]++;
    }
#pragma omp for schedule(static)
    for (int bi = 0; bi < nb; bi++) {
      int sum = 0;
      for (int t = 0; t < T; t++) sum += tcnt[stride * (size_t)t + (size_t)bi];
      bptr[bi + 1] = sum;
    }
#pragma omp single
    {
      bptr[0] = 0;
      for (int bi = 0; bi < nb; bi++) bptr[bi + 1] += bptr[bi];
    }
#pragma omp for schedule(static)
    for (int bi = 0; bi < nb; bi++) {
      int at = bptr[bi];
      for (int t = 0; t < T; t++) {
        int *c = tcnt + stride * (size_t)t + (size_t)bi, m = *c;
        *c = at;
        at += m;
      }
    }
#pragma omp for schedule(static, 1)
    for (int t = 0; t < T; t++) {
      int *at = tcnt + stride * (size_t)t;
      for (int i = 2 * (int)dyn_par_cut(n, t, T); i < 2 * (int)dyn_par_cut(n, t + 1, T); i++) {
        int bi = s->rbody[i];
        if (bi >= 0) s->blist[at[bi]++] = i;
      }
    }
  }
}

/* Row lists of the dynamic bodies from rbody (each row's two sides, -1
 * for none; counting sort, so each list is in row order) and the beta ->
 * aux map.  On the system's threads when it has room for their counts
 * (dyn_system_threads_reserve). */
static dyn_err lists_of_rbody(dyn_system *s, const dyn_rows *rows, int n, int nb, int naux) {
  int T = dyn_par_threads(s->threads, n);
  if (T > 1 && (size_t)T * ((size_t)nb + 1) <= s->tcnt_cap)
    lists_split(s, n, nb, T);
  else
    lists_serial(s, n, nb);
  memset(s->aux_of, 0xff, sizeof(int) * (size_t)n); /* -1 in every row */
  for (int i = 0; naux > 0 && i < n; i++)
    if (rows[i].kind == DYN_ROW_AUX) {
      int f = rows[i].base + rows[i].aux_first;
      for (int h = f; h < f + rows[i].aux_count; h++) {
        if (s->aux_of[h] >= 0)
          FAIL(s, "row %d is a direction of two aux rows (%d and %d)", h, s->aux_of[h], i);
        s->aux_of[h] = i;
      }
    }
  return DYN_OK;
}

/* rbody of every row (row_bodies), then the lists (lists_of_rbody). */
static dyn_err build_lists(dyn_system *s, const int *bdyn, const dyn_rows *rows, int n, int nb,
                           int naux) {
  for (int i = 0; i < n; i++) row_bodies(s, bdyn, rows, i);
  return lists_of_rbody(s, rows, n, nb, naux);
}

static double dot6(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* (1): the J M^-1 J^T entry of rows i and j. */
static double jmj(const dyn_system *s, int i, int j) {
  double v = 0.0;
  for (int k = 0; k < 2; k++) {
    int bi = s->rbody[2 * i + k];
    if (bi < 0) continue;
    for (int l = 0; l < 2; l++)
      if (s->rbody[2 * j + l] == bi) v += dot6(s->J + 12 * i + 6 * k, s->G + 12 * j + 6 * l);
  }
  return v;
}

/* The pyramid's non-J entries of A(i, j) (E, -E^T, mu: docs/contact.md,
 * "Friction models"). */
static double aux_entry(const dyn_rows *rows, const dyn_system *s, int i, int j) {
  double v = 0.0;
  const dyn_rows *r = &rows[i];
  if (r->kind == DYN_ROW_AUX) {
    int f = r->base + r->aux_first;
    if (j == r->base + r->findex) v += r->mu;
    if (j >= f && j < f + r->aux_count) v -= 1.0;
  }
  if (s->aux_of[i] == j) v += 1.0;
  return v;
}

/* Columns of CSR row i into cols (or only counted when cols is NULL), in
 * increasing order; returns their number, or -1 if more than cap. */
static long csr_row_cols(dyn_system *s, const dyn_rows *rows, int i, int *cols, long cap) {
  long m = 0;
  int stamp = i + 1;
  const int *la = NULL, *lb = NULL;
  int na = 0, nbl = 0;
  int b0 = s->rbody[2 * i], b1 = s->rbody[2 * i + 1];
  if (b0 >= 0) {
    la = s->blist + s->bptr[b0];
    na = s->bptr[b0 + 1] - s->bptr[b0];
  }
  if (b1 >= 0) {
    lb = s->blist + s->bptr[b1];
    nbl = s->bptr[b1 + 1] - s->bptr[b1];
  }
  /* merge the two sorted lists (entries 2 row + side), dropping repeats */
  int p = 0, q = 0;
  while (p < na || q < nbl) {
    int ra = p < na ? la[p] / 2 : INT_MAX, rb = q < nbl ? lb[q] / 2 : INT_MAX;
    int c = ra < rb ? ra : rb;
    if (ra == c) p++;
    if (rb == c) q++;
    if (s->mark[c] == stamp) continue;
    s->mark[c] = stamp;
    if (cols) {
      if (m >= cap) return -1;
      cols[m] = c;
    }
    m++;
  }
  long sorted_upto = m;
  /* the diagonal, and the pyramid couplings */
  int extra[3];
  int ne = 0;
  extra[ne++] = i;
  if (s->aux_of[i] >= 0) extra[ne++] = s->aux_of[i];
  const dyn_rows *r = &rows[i];
  for (int e = 0; e < ne + (r->kind == DYN_ROW_AUX ? 1 + r->aux_count : 0); e++) {
    int c;
    if (e < ne)
      c = extra[e];
    else if (e == ne)
      c = r->base + r->findex;
    else
      c = r->base + r->aux_first + (e - ne - 1);
    if (s->mark[c] == stamp) continue;
    s->mark[c] = stamp;
    if (cols) {
      if (m >= cap) return -1;
      cols[m] = c;
    }
    m++;
  }
  if (cols && m > sorted_upto) {
    /* insertion sort of the few appended columns into the sorted prefix */
    for (long a = sorted_upto; a < m; a++) {
      int c = cols[a];
      long z = a;
      while (z > 0 && cols[z - 1] > c) {
        cols[z] = cols[z - 1];
        z--;
      }
      cols[z] = c;
    }
  }
  return m;
}

static dyn_err check_sizes(dyn_system *s, const dyn_rows *rows, int nrows, int nb) {
  if (nrows < 0 || nrows > s->max_rows)
    FAIL(s, "%d rows exceed the system's max_rows=%d (dyn_system_reserve grows it)", nrows,
         s->max_rows);
  if (nb < 0 || nb > s->max_nb)
    FAIL(s, "%d bodies exceed the system's nb=%d (dyn_system_reserve grows it)", nb, s->max_nb);
  if (nrows > 0 && !rows) FAIL(s, "rows is NULL with nrows=%d", nrows);
  return DYN_OK;
}

long dyn_system_csr_nnz(dyn_system *s, const dyn_rows *rows, int nrows) {
  if (!s) return -1;
  int nb = s->max_nb, naux = 0, ncones = 0;
  if (check_sizes(s, rows, nrows, nb) != DYN_OK ||
      check_rows(s, rows, nrows, nb, &naux, &ncones) != DYN_OK ||
      build_lists(s, NULL, rows, nrows, nb, naux) != DYN_OK)
    return -1;
  s->nrows = -1; /* the lists now describe these rows, not the last assembly */
  memset(s->mark, 0, sizeof(int) * (size_t)nrows);
  long nnz = 0;
  for (int i = 0; i < nrows; i++) nnz += csr_row_cols(s, rows, i, NULL, 0);
  return nnz;
}

/* h M^-1 (f_ext + m g, t_ext) = h (f_ext / m + g, I^-1 t_ext): the velocity
 * change of body B's external load and gravity over a step (dyn_assemble's
 * free velocity, dyn_apply_impulse's update); I = its world I^-1. */
static void load_dv(const dyn_body_state *B, const dyn_m3 *I, double inv_mass, dyn_v3 g, double h,
                    dyn_v3 *lin, dyn_v3 *ang) {
  *lin = dyn_v3_scale(dyn_v3_axpy(g, inv_mass, B->f_ext), h);
  *ang = dyn_v3_scale(dyn_m3_mulv(*I, B->t_ext), h);
}

/* The arguments of dyn_assemble; the rows are checked in dyn_assemble_pass. */
static dyn_err check_assembly(dyn_system *s, dyn_bodies bodies, int nb, const dyn_rows *rows,
                              int nrows, double h, dyn_v3 g, slv_storage storage) {
  dyn_err e = check_sizes(s, rows, nrows, nb);
  if (e != DYN_OK) return e;
  if (nb > 0 && (!bodies.c || !bodies.s)) FAIL(s, "dyn_assemble: bodies is NULL with nb=%d", nb);
  if (!(h > 0) || !isfinite(h) || !dyn_ai_v3_finite(g))
    FAIL(s, "dyn_assemble: h=%g must be > 0 and finite, g finite", h);
  if (storage == SLV_DENSE && !(s->storages & DYN_SYS_DENSE))
    FAIL(s, "dyn_assemble: dense storage not reserved (DYN_SYS_DENSE)");
  if (storage == SLV_CSR && !(s->storages & DYN_SYS_CSR))
    FAIL(s, "dyn_assemble: CSR storage not reserved (DYN_SYS_CSR)");
  if (storage != SLV_DENSE && storage != SLV_CSR && storage != SLV_FACTORED)
    FAIL(s, "dyn_assemble: storage=%d unknown", (int)storage);
  return DYN_OK;
}

/* The refusals that follow the rows' own checks: factored storage cannot
 * hold the pyramid's auxiliary rows (naux of them). */
static dyn_err check_storage_rows(dyn_system *s, const dyn_rows *rows, int nrows,
                                  slv_storage storage, int naux) {
  if (storage == SLV_FACTORED)
    for (int i = 0; naux > 0 && i < nrows; i++)
      if (rows[i].kind == DYN_ROW_AUX)
        FAIL(s,
             "row %d: the friction pyramid's auxiliary row has no J M^-1 J^T form; factored "
             "storage cannot hold it (use dense or CSR)",
             i);
  return DYN_OK;
}

/* Per dynamic body, once (not once per row side): the M^-1 block and the
 * free velocity u_free = u + h M^-1 (f_ext + m g, t_ext)
 *                      = u + h (f_ext/m + g, I^-1 t_ext)
 * that b = J u_free - rhs needs; and bdyn, which build_lists reads in
 * place of the (large, scattered) body records. */
static void body_blocks(dyn_system *s, dyn_bodies bodies, int nb, double h, dyn_v3 g) {
#pragma omp parallel for num_threads(dyn_par_threads(s->threads, nb)) schedule(static)
  for (int bi = 0; bi < nb; bi++) {
    double *Mi = s->Minv + 10 * bi, *uf = s->ufree + 6 * bi;
    const dyn_body_const *Bc = &bodies.c[bi];
    const dyn_body_state *B = &bodies.s[bi];
    s->bdyn[bi] = !Bc->is_static;
    if (Bc->is_static) {
      memset(Mi, 0, 10 * sizeof(double));
      continue;
    }
    dyn_m3 I = dyn_ai_inv_inertia_world(Bc, B);
    s->siso[bi] = dyn_m3_scalar(Bc->inv_I_b.m); /* I is s 1 then */
    Mi[0] = Bc->inv_mass;
    memcpy(Mi + 1, I.m, 9 * sizeof(double));
    dyn_v3 lin, ang;
    load_dv(B, &I, Mi[0], g, h, &lin, &ang);
    dyn_v3 vf = dyn_v3_add(B->v, lin), wf = dyn_v3_add(B->w, ang);
    uf[0] = vf.x;
    uf[1] = vf.y;
    uf[2] = vf.z;
    uf[3] = wf.x;
    uf[4] = wf.y;
    uf[5] = wf.z;
  }
}

/* One side of a row on dynamic body bi: the row's J (Jr) into Jk and
 * G = M^-1 J^T into Gk; returns J u_free.  The row's J is read once into
 * registers (read back from Jk, each product waited on the stores). */
__attribute__((always_inline)) static inline double
side_fill(const dyn_system *s, int bi, const double *Jr, double *Jk, double *Gk) {
  const double j0 = Jr[0], j1 = Jr[1], j2 = Jr[2], j3 = Jr[3], j4 = Jr[4], j5 = Jr[5];
  Jk[0] = j0, Jk[1] = j1, Jk[2] = j2, Jk[3] = j3, Jk[4] = j4, Jk[5] = j5;
  const double *Mi = s->Minv + 10 * (size_t)bi, *I = Mi + 1, *uf = s->ufree + 6 * (size_t)bi;
  /* G = (m^-1 J_lin, I^-1 J_ang); b's term J_lin . v_free + J_ang . w_free.
   * A world I^-1 of s 1 (an isotropic body's) gives s J_ang to the bit,
   * signs of zero too, which pgs_wide's sweep then forms itself
   * (pgs_wide.c, "Layout") */
  const double si = s->siso[bi], m = Mi[0];
  Gk[0] = m * j0;
  Gk[1] = m * j1;
  Gk[2] = m * j2;
  if (!isnan(si)) {
    Gk[3] = si * j3;
    Gk[4] = si * j4;
    Gk[5] = si * j5;
  } else {
    Gk[3] = I[0] * j3 + I[1] * j4 + I[2] * j5;
    Gk[4] = I[3] * j3 + I[4] * j4 + I[5] * j5;
    Gk[5] = I[6] * j3 + I[7] * j4 + I[8] * j5;
  }
  return (j0 * uf[0] + j1 * uf[1] + j2 * uf[2]) + (j3 * uf[3] + j4 * uf[4] + j5 * uf[5]);
}

/* Row i's bodies (side_body) into rbody, its J and G = M^-1 J^T per row
 * side; returns J u_free.  Row i has passed check_row (its bodies are
 * indices below nb or -1). */
static inline double row_sides(dyn_system *s, const dyn_rows *r, int i) {
  const int *bdyn = s->bdyn;
  double bi_sum = 0.0;
  for (int k = 0; k < 2; k++) {
    double *Jk = s->J + 12 * (size_t)i + 6 * k, *Gk = s->G + 12 * (size_t)i + 6 * k;
    const int bi = side_body(bdyn, r->body[k]);
    s->rbody[2 * i + k] = bi;
    if (bi < 0) {
      memset(Jk, 0, 6 * sizeof(double));
      memset(Gk, 0, 6 * sizeof(double));
      continue;
    }
    bi_sum += side_fill(s, bi, r->J[k], Jk, Gk);
  }
  return bi_sum;
}

/* Row i's bounds, findex and mu (a cone's rows: the cone is their
 * constraint, and slv.h ignores these bounds). */
static inline void row_bounds(dyn_system *s, const dyn_rows *r, int i) {
  s->findex[i] = -1;
  s->mu[i] = 0.0;
  switch (r->kind) {
  case DYN_ROW_PLAIN:
    if (r->findex >= 0) {
      s->findex[i] = r->base + r->findex;
      s->mu[i] = r->mu;
      s->lo[i] = -INFINITY;
      s->hi[i] = INFINITY;
    } else {
      s->lo[i] = r->lo;
      s->hi[i] = r->hi;
    }
    break;
  case DYN_ROW_AUX:
  case DYN_ROW_CONE_N:
    s->lo[i] = 0.0;
    s->hi[i] = INFINITY;
    break;
  default: /* DYN_ROW_CONE_T (check_rows admits no other kind) */
    s->lo[i] = -INFINITY;
    s->hi[i] = INFINITY;
    break;
  }
}

/* Rows [i0, i1) in one pass over their records r0[0 .. i1 - i0 - 1]:
 * each checked (check_row), then its rbody, J, G (row_sides), b = J
 * u_free - rhs, rhs (the energy rule's, dyn_system_energy_form), bounds
 * and cfm (factored storage's diagonal; dyn_system_velocity_form).  A
 * refused row ends the run, its message into msg[cap] (msg may be
 * NULL). */
dyn_row_pass dyn_assemble_pass(dyn_system *s, const dyn_rows *r0, int n, int nb, int i0, int i1,
                               char *msg, size_t cap) {
  dyn_row_pass o = { n, n, 0, 0 };
  for (int i = i0; i < i1; i++) {
    const dyn_rows *r = &r0[i - i0];
    if (check_row(r, i, n, nb, NULL, 0) != DYN_OK) {
      if (msg) check_row(r, i, n, nb, msg, cap);
      o.bad_row = i;
      break;
    }
    o.naux += r->kind == DYN_ROW_AUX;
    o.ncones += r->kind == DYN_ROW_CONE_N;
    s->b[i] = row_sides(s, r, i) - r->rhs; /* and rbody */
    s->rhs[i] = r->rhs;
    if (!isfinite(s->b[i]) && o.bad_b == n) o.bad_b = i;
    row_bounds(s, r, i);
    s->cfm[i] = r->cfm;
  }
  return o;
}

/* dyn_assemble_pass over every row on the system's threads (each row
 * alone; body_blocks first), the runs joined. */
static dyn_row_pass row_pass(dyn_system *s, const dyn_rows *rows, int nrows, int nb) {
  int T = dyn_par_threads(s->threads, nrows);
  dyn_row_pass run[DYN_PAR_MAX], all = { nrows, nrows, 0, 0 };
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int t = 0; t < T; t++)
    /* counted in the pass's locals, stored once per run: see check_rows */
    run[t] = dyn_assemble_pass(s, rows + dyn_par_cut(nrows, t, T), nrows, nb,
                               (int)dyn_par_cut(nrows, t, T), (int)dyn_par_cut(nrows, t + 1, T),
                               NULL, 0);
  for (int t = 0; t < T; t++) dyn_row_pass_join(&all, run[t]);
  return all;
}

/* What follows the pass: a refused row is reported at its first row, as
 * one thread would (check_rows' message); then the storage's refusals,
 * the row lists of dense and CSR storage (build_lists' refusal), and a b
 * that is not finite at its first row.  *ncones as check_rows gives it;
 * the cones listed. */
static dyn_err after_pass(dyn_system *s, const dyn_rows *rows, int nrows, int nb,
                          slv_storage storage, dyn_row_pass p, const char *bad_msg, int *ncones) {
  const int naux = p.naux;
  if (p.bad_row < nrows && bad_msg) FAIL(s, "%s", bad_msg);
  if (p.bad_row < nrows)
    return check_row(&rows[p.bad_row], p.bad_row, nrows, nb, s->msg, sizeof s->msg);
  cone_list(s, rows, p.ncones);
  *ncones = p.ncones;
  dyn_err e = check_storage_rows(s, rows, nrows, storage, naux);
  /* the lists are dense and CSR's (fill_dense, fill_csr): factored storage
   * forms no A, and dyn_apply_impulse goes by the rows */
  if (e == DYN_OK && storage != SLV_FACTORED) e = lists_of_rbody(s, rows, nrows, nb, naux);
  if (e != DYN_OK) return e;
  if (p.bad_b < nrows)
    FAIL(s, "row %d: b=%g is not finite (body state or load)", p.bad_b, s->b[p.bad_b]);
  return DYN_OK;
}

/* The dense A: body by body, every pair of rows sharing body beta, then
 * cfm and the pyramid's auxiliary entries. */
static void fill_dense(dyn_system *s, const dyn_rows *rows, int nrows, int nb) {
  size_t n = (size_t)nrows;
  double *A = s->A;
  memset(A, 0, sizeof(double) * n * n);
  for (int bi = 0; bi < nb; bi++)
    for (int p = s->bptr[bi]; p < s->bptr[bi + 1]; p++) {
      int i = s->blist[p] >> 1, k = s->blist[p] & 1; /* entries >= 0 */
      const double *Jik = s->J + 12 * i + 6 * k;
      for (int q = s->bptr[bi]; q < s->bptr[bi + 1]; q++) {
        int j = s->blist[q] >> 1, l = s->blist[q] & 1;
        A[i + n * j] += dot6(Jik, s->G + 12 * j + 6 * l);
      }
    }
  for (int i = 0; i < nrows; i++) {
    A[i + n * i] += rows[i].cfm;
    if (rows[i].kind == DYN_ROW_AUX) {
      int f = rows[i].base + rows[i].aux_first, nr = rows[i].base + rows[i].findex;
      A[i + n * nr] += rows[i].mu;
      for (int hh = f; hh < f + rows[i].aux_count; hh++) {
        A[i + n * hh] -= 1.0;
        A[hh + n * i] += 1.0;
      }
    }
  }
}

/* The CSR A, row by row through the body lists. */
static dyn_err fill_csr(dyn_system *s, const dyn_rows *rows, int nrows) {
  memset(s->mark, 0, sizeof(int) * (size_t)nrows);
  long nnz = 0;
  s->Ap[0] = 0;
  for (int i = 0; i < nrows; i++) {
    long m = csr_row_cols(s, rows, i, s->Aj + nnz, s->max_nnz - nnz);
    if (m < 0)
      FAIL(s,
           "CSR A needs more than max_nnz=%ld entries at row %d (dyn_system_csr_nnz counts, "
           "dyn_system_reserve grows)",
           s->max_nnz, i);
    for (long a = nnz; a < nnz + m; a++) {
      int j = s->Aj[a];
      double v = jmj(s, i, j) + aux_entry(rows, s, i, j);
      if (j == i) v += rows[i].cfm;
      s->Ax[a] = v;
    }
    nnz += m;
    s->Ap[i + 1] = (int)nnz;
  }
  return DYN_OK;
}

/* The borrowed problem view of the system's buffers. */
static slv_problem problem_view(dyn_system *s, int nrows, int nb, slv_storage storage, int ncones) {
  slv_problem p = slv_problem_empty();
  p.n = nrows;
  p.storage = storage;
  if (storage == SLV_DENSE) {
    p.A = s->A;
    p.lda = nrows > 1 ? nrows : 1;
  } else if (storage == SLV_FACTORED) {
    p.nblk = nb;
    p.fblk = s->rbody;
    p.fJ = s->J;
    p.fK = s->G;
    p.fd = s->cfm; /* G's linear columns are Mi[0] J's: pgs_wide finds the masses */
  } else {
    p.Ap = s->Ap;
    p.Aj = s->Aj;
    p.Ax = s->Ax;
  }
  p.b = s->b;
  p.lo = s->lo;
  p.hi = s->hi;
  p.findex = s->findex;
  p.mu = s->mu;
  p.ncones = ncones;
  p.cone_rows = ncones ? s->cone_rows : NULL;
  p.cone_mu = ncones ? s->cone_mu : NULL;
  p.cone_law = SLV_CONE_COULOMB;
  return p;
}

dyn_err dyn_assemble_begin(dyn_system *s, dyn_bodies bodies, int nb, const dyn_rows *rows,
                           int nrows, double h, dyn_v3 g, slv_storage storage) {
  if (!s) return DYN_ERR_INPUT;
  s->msg[0] = '\0';
  s->nrows = -1;
  dyn_err e = check_assembly(s, bodies, nb, rows, nrows, h, g, storage);
  if (e == DYN_OK) body_blocks(s, bodies, nb, h, g);
  return e;
}

dyn_err dyn_assemble_end(dyn_system *s, const dyn_rows *rows, int nrows, int nb,
                         slv_storage storage, dyn_row_pass pass, const char *bad_msg,
                         slv_problem *out) {
  int ncones = 0;
  dyn_err e = after_pass(s, rows, nrows, nb, storage, pass, bad_msg, &ncones);
  if (e != DYN_OK) return e;
  /* factored storage forms nothing: the problem is J, G = M^-1 J^T per
   * row side and the cfm the pass copied */
  if (storage == SLV_DENSE)
    fill_dense(s, rows, nrows, nb);
  else if (storage == SLV_CSR && (e = fill_csr(s, rows, nrows)) != DYN_OK)
    return e;
  *out = problem_view(s, nrows, nb, storage, ncones);
  s->nrows = nrows;
  s->nb = nb;
  return DYN_OK;
}

dyn_err dyn_assemble(dyn_system *s, dyn_bodies bodies, int nb, const dyn_rows *rows, int nrows,
                     double h, dyn_v3 g, slv_storage storage, slv_problem *out) {
  if (s && !out) {
    s->msg[0] = '\0';
    s->nrows = -1;
    FAIL(s, "dyn_assemble: out is NULL");
  }
  dyn_err e = dyn_assemble_begin(s, bodies, nb, rows, nrows, h, g, storage);
  if (e != DYN_OK) return e;
  return dyn_assemble_end(s, rows, nrows, nb, storage, row_pass(s, rows, nrows, nb), NULL, out);
}

dyn_err dyn_assemble_bounds(dyn_system *s, const dyn_rows *rows, int nrows, int nb, double **A,
                            double **b, slv_problem *out) {
  if (!s || !A || !b || !out) return DYN_ERR_INPUT;
  s->msg[0] = '\0';
  s->nrows = -1; /* nothing for dyn_apply_impulse */
  int naux = 0, ncones = 0;
  dyn_err e = check_sizes(s, rows, nrows, nb);
  if (e == DYN_OK && !(s->storages & DYN_SYS_DENSE))
    FAIL(s, "dyn_assemble_bounds: dense storage not reserved (DYN_SYS_DENSE)");
  if (e == DYN_OK) e = check_rows(s, rows, nrows, nb, &naux, &ncones);
  if (e != DYN_OK) return e;
  if (naux > 0) FAIL(s, "the friction pyramid's auxiliary rows have no joint-space form here");
  for (int i = 0; i < nrows; i++) {
    row_bounds(s, &rows[i], i);
    s->cfm[i] = rows[i].cfm;
  }
  *A = s->A;
  *b = s->b;
  *out = problem_view(s, nrows, nb, SLV_DENSE, ncones);
  return DYN_OK;
}

/* ---- problems from rows alone (no world's bodies) ------------------------------ */

/* Each side's R = J M^-1/2 (M^-1 diagonal: minv, 6 per body) as both the
 * system's J and G, b = -rhs, the bounds and the cfm of every row. */
static void scaled_rows(dyn_system *s, const dyn_rows *rows, int nrows, const double *minv) {
  for (int i = 0; i < nrows; i++) {
    const dyn_rows *r = &rows[i];
    for (int k = 0; k < 2; k++) {
      double *R = s->J + 12 * i + 6 * k;
      int bi = s->rbody[2 * i + k];
      for (int c = 0; c < 6; c++) R[c] = bi < 0 ? 0.0 : r->J[k][c] * sqrt(minv[6 * bi + c]);
      memcpy(s->G + 12 * i + 6 * k, R, 6 * sizeof(double));
    }
    s->b[i] = -r->rhs;
    row_bounds(s, r, i);
    s->cfm[i] = r->cfm;
  }
}

/* minv finite and >= 0; bdyn[b] = 0 for a body whose M^-1 is zero (fixed). */
static dyn_err check_minv(dyn_system *s, int nb, const double *minv) {
  if (nb > 0 && !minv) FAIL(s, "dyn_assemble_rows: minv is NULL with nb=%d", nb);
  for (int bi = 0; bi < nb; bi++) {
    s->bdyn[bi] = 0;
    for (int c = 0; c < 6; c++) {
      double m = minv[6 * bi + c];
      if (!(m >= 0) || !isfinite(m))
        FAIL(s, "dyn_assemble_rows: minv[%d]=%g must be finite and >= 0", 6 * bi + c, m);
      s->bdyn[bi] |= m > 0;
    }
  }
  return DYN_OK;
}

dyn_err dyn_assemble_rows(dyn_system *s, const dyn_rows *rows, int nrows, int nb,
                          const double *minv, slv_storage storage, slv_problem *out) {
  if (!s) return DYN_ERR_INPUT;
  s->msg[0] = '\0';
  s->nrows = -1; /* nothing for dyn_apply_impulse: no bodies' state */
  if (!out) FAIL(s, "dyn_assemble_rows: out is NULL");
  int naux = 0, ncones = 0;
  dyn_err e = check_sizes(s, rows, nrows, nb);
  if (e != DYN_OK) return e;
  if (storage != SLV_DENSE && storage != SLV_CSR)
    FAIL(s, "dyn_assemble_rows: storage=%d (dense or CSR only)", (int)storage);
  if (storage == SLV_DENSE && !(s->storages & DYN_SYS_DENSE))
    FAIL(s, "dyn_assemble_rows: dense storage not reserved (DYN_SYS_DENSE)");
  if (storage == SLV_CSR && !(s->storages & DYN_SYS_CSR))
    FAIL(s, "dyn_assemble_rows: CSR storage not reserved (DYN_SYS_CSR)");
  if ((e = check_minv(s, nb, minv)) != DYN_OK ||
      (e = check_rows(s, rows, nrows, nb, &naux, &ncones)) != DYN_OK ||
      (e = build_lists(s, s->bdyn, rows, nrows, nb, naux)) != DYN_OK)
    return e;
  scaled_rows(s, rows, nrows, minv);
  if (storage == SLV_DENSE)
    fill_dense(s, rows, nrows, nb);
  else if ((e = fill_csr(s, rows, nrows)) != DYN_OK)
    return e;
  *out = problem_view(s, nrows, nb, storage, ncones);
  return DYN_OK;
}

int dyn_system_velocity_form(const dyn_system *s, dyn_velocity_form *out) {
  if (!out) return 0;
  memset(out, 0, sizeof *out);
  if (!s || s->nrows < 0) return 0;
  *out = (dyn_velocity_form){ s->nrows, s->nb, s->rbody, s->J, s->Minv, s->ufree, s->cfm };
  return 1;
}

int dyn_system_energy_form(const dyn_system *s, dyn_energy_form *out) {
  memset(out, 0, sizeof *out);
  if (!s || s->nrows < 0) return 0;
  *out = (dyn_energy_form){ s->nrows, s->rhs };
  return 1;
}

/* Run [i, e) of rows on one body pair: side k's M^-1 J^T x summed in
 * registers from 0, row by row in row order, then added to that body's 6
 * sums d once (slv_fac_ktx's order for t = K^T x, K = G: the same bits). */
static inline void run_impulse(double *d, const double *G, const double *x, int i, int e) {
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
  for (; i < e; i++, G += 12) {
    double xi = x[i];
    a0 += G[0] * xi;
    a1 += G[1] * xi;
    a2 += G[2] * xi;
    a3 += G[3] * xi;
    a4 += G[4] * xi;
    a5 += G[5] * xi;
  }
  d[0] += a0, d[1] += a1, d[2] += a2, d[3] += a3, d[4] += a4, d[5] += a5;
}

/* The bodies [B0, B1) take u += t_b + h M^-1 f, t_b the body's 6 sums of
 * M^-1 J^T x (its block of t = K^T x). */
static void add_dv(const dyn_system *s, dyn_bodies bodies, const double *t, double h, dyn_v3 g,
                   int B0, int B1) {
  for (int bi = B0; bi < B1; bi++) {
    dyn_body_state *B = &bodies.s[bi];
    if (bodies.c[bi].is_static) continue;
    const double *Mi = s->Minv + 10 * bi;
    dyn_m3 I;
    memcpy(I.m, Mi + 1, 9 * sizeof(double));
    /* h M^-1 f: the external load and gravity over the step */
    dyn_v3 lin, ang;
    load_dv(B, &I, Mi[0], g, h, &lin, &ang);
    const double *d = t + 6 * (size_t)bi;
    B->v = dyn_v3_add(B->v, dyn_v3_make(d[0] + lin.x, d[1] + lin.y, d[2] + lin.z));
    B->w = dyn_v3_add(B->w, dyn_v3_make(d[3] + ang.x, d[4] + ang.y, d[5] + ang.z));
  }
}

/* The velocity changes of the bodies [B0, B1): each body's sums in s->dv
 * start at 0, then take each run of its rows (a pass over the rows in runs
 * on one body pair: a contact's rows), summed as run_impulse says: K^T x as
 * slv_fac_ktx sums it, whatever the threads; then add_dv. */
static void impulse_bodies(const dyn_system *s, dyn_bodies bodies, const double *x, double h,
                           dyn_v3 g, int B0, int B1) {
  double *dv = s->dv;
  if (B1 > B0) memset(dv + 6 * (size_t)B0, 0, 6 * (size_t)(B1 - B0) * sizeof *dv);
  const int *rb = s->rbody;
  for (int i = 0, e; i < s->nrows; i = e) {
    int b0 = rb[2 * i], b1 = rb[2 * i + 1]; /* -1 (static, none) is below B0 */
    for (e = i + 1; e < s->nrows && rb[2 * e] == b0 && rb[2 * e + 1] == b1; e++) {}
    /* b0 != b1 (check_row): the two sides' sums are apart */
    if (b0 >= B0 && b0 < B1) run_impulse(dv + 6 * (size_t)b0, s->G + 12 * (size_t)i, x, i, e);
    if (b1 >= B0 && b1 < B1) run_impulse(dv + 6 * (size_t)b1, s->G + 12 * (size_t)i + 6, x, i, e);
  }
  add_dv(s, bodies, dv, h, g, B0, B1);
}

/* t = K^T x of the last assembly's factored view p (K = G, its blocks the
 * bodies) from ws's solve of p, x the one it ended with; else NULL. */
static const double *solver_ktx(const dyn_system *s, int nb, const double *x,
                                const slv_workspace *ws, const slv_problem *p) {
  if (!ws || !p || p->storage != SLV_FACTORED || p->n != s->nrows || p->nblk != nb ||
      p->fK != s->G || p->fblk != s->rbody)
    return NULL;
  return slv_workspace_ktx(ws, p, x);
}

dyn_err dyn_apply_impulse_ws(const dyn_system *s, dyn_bodies bodies, int nb, const double *x,
                             const slv_workspace *ws, const slv_problem *p, double h, dyn_v3 g) {
  if (!s || s->nrows < 0 || nb != s->nb || (nb > 0 && (!bodies.c || !bodies.s)) ||
      (s->nrows > 0 && !x))
    return DYN_ERR_INPUT;
  if (!(h > 0) || !isfinite(h) || !dyn_ai_v3_finite(g)) return DYN_ERR_INPUT;
  for (int i = 0; i < s->nrows; i++)
    if (!isfinite(x[i])) return DYN_ERR_NUMERIC;
  /* M^-1 J^T x: the solver's K^T x of this x, else each thread's bodies
   * from a pass over every row (its rows in each body's row order,
   * whatever the threads) */
  const double *t = s->nrows > 0 ? solver_ktx(s, nb, x, ws, p) : NULL;
  int T = dyn_par_threads(s->threads, nb);
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int k = 0; k < T; k++) {
    int B0 = (int)dyn_par_cut(nb, k, T), B1 = (int)dyn_par_cut(nb, k + 1, T);
    if (t)
      add_dv(s, bodies, t, h, g, B0, B1);
    else
      impulse_bodies(s, bodies, x, h, g, B0, B1);
  }
  return DYN_OK;
}

dyn_err dyn_apply_impulse(const dyn_system *s, dyn_bodies bodies, int nb, const double *x, double h,
                          dyn_v3 g) {
  return dyn_apply_impulse_ws(s, bodies, nb, x, NULL, NULL, h, g);
}
