/* pgs_lanes.c -- the sweeps, the check and the solve of pgs_wide, pgs_color
 * and pgs_part (pgs_lanes.h): a sweep in the AVX2 lanes or one row at a
 * time over the plan (pgs_plan.c), the stopping rule and its exact
 * measures in the lanes ("The check" in pgs_wide.c), the solve on one
 * thread or one team of threads, and the state's allocation.  The design:
 * pgs_wide.c ("Order", "Why", "Threads"), pgs_color.c, pgs_part.c.
 */
#include "pgs_lanes.h"

extern const slv_solver slv_solver_pgs;

void wide_free(void *st) {
  wide_state *s = st;
  if (s->pgs) {
    slv_solver_pgs.impl->free(s->pgs);
    free(s->pgs);
  }
  int *iv[] = { s->row_batch,   s->group_first,  s->group_order, s->next_free,
                s->batch_count, s->order,        s->findex_pos,  s->batch_first,
                s->batch_steps, s->batch_halves, s->key_blk,     s->key_fx };
  for (size_t k = 0; k < sizeof iv / sizeof iv[0]; k++) free(iv[k]);
  double *dv[] = { s->plan_x,     s->plan_b,
                   s->invd,       s->lo,
                   s->hi,         s->mu,
                   s->plan_d,     s->JK,
                   s->inv_mass,   s->ang_scalar,
                   s->block_mass, s->block_mass_top,
                   s->block_ang,  s->block_ang_top,
                   s->idle,       s->aii };
  for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) free(dv[k]);
  free(s->part_measures);
  free(s->findex_sel);
  free(s->row_kind);
  free(s->batch_scalars);
  free(s->batch_t);
  free(s->entry_block);
  free(s->level_first);
  free(s->part_first);
  memset(s, 0, sizeof *s);
}

#if PGS_WIDE_X86

/* PREFETCHW (CPUID 0x80000001, ECX bit 8), read from CPUID itself: clang 14's
   __builtin_cpu_supports knows no "prfchw". */
static int cpu_has_prefetchw(void) {
  unsigned a, b, c, d;
  return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & bit_PRFCHW) != 0;
}

#endif

slv_status wide_init(void *st, int n_max, const slv_options *opt) {
  wide_state *s = st;
  s->pgs = calloc(1, slv_solver_pgs.impl->state_size);
  if (!s->pgs) return SLV_ERR_NOMEM;
  slv_status r = slv_solver_pgs.impl->init(s->pgs, n_max, opt);
  if (r != SLV_OK) {
    free(s->pgs);
    s->pgs = NULL;
    return r;
  }
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  if (m > (size_t)INT_MAX / 8 - 8) {
    wide_free(s);
    return SLV_ERR_NOMEM;
  }
  size_t cap = 8 * m;
  s->cap = (int)cap;
  s->row_batch = malloc(m * sizeof(int));
  s->group_first = malloc((m + 1) * sizeof(int));
  s->group_order = malloc(m * sizeof(int));
  s->next_free = malloc((m + 1) * sizeof(int));
  s->batch_count = malloc((m + 2) * sizeof(int));
  s->order = malloc(cap * sizeof(int));
  s->findex_pos = malloc(cap * sizeof(int));
  s->findex_sel = malloc(cap / 4);
  s->row_kind = malloc(cap / 4);
  s->batch_scalars = malloc(m * sizeof *s->batch_scalars);
  s->batch_first = malloc(m * sizeof(int));
  s->batch_steps = malloc(m * sizeof(int));
  s->batch_halves = malloc(m * sizeof(int));
  s->key_blk = malloc(2 * m * sizeof(int));
  s->key_fx = malloc(m * sizeof(int));
  s->key_n = -1;
  int fail = !s->key_blk || !s->key_fx || !s->row_batch || !s->group_first || !s->group_order ||
             !s->next_free || !s->batch_count || !s->order || !s->findex_pos || !s->findex_sel ||
             !s->row_kind || !s->batch_scalars || !s->batch_first || !s->batch_steps ||
             !s->batch_halves;
  double **d[] = { &s->plan_x, &s->plan_b, &s->invd, &s->lo, &s->hi, &s->mu, &s->plan_d, &s->aii };
  for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
    *d[k] = slv_alloc_large(cap * sizeof(double));
    fail |= !*d[k];
  }
  s->JK = slv_alloc_large(cap * WIDE_FULL * sizeof(double));
  s->batch_t = malloc(m * 16 * sizeof *s->batch_t);
  s->inv_mass = slv_alloc_large(m * 16 * sizeof(double));
  s->ang_scalar = slv_alloc_large(m * 16 * sizeof(double));
  s->idle = aligned_alloc(64, WIDE_PAD * SLV_THREADS_MAX * sizeof(double));
  s->part_measures = aligned_alloc(64, WIDE_PAD * SLV_THREADS_MAX * sizeof(double));
  s->level_first = malloc((m + 2) * sizeof *s->level_first);
  s->part_first = malloc((m + 2) * sizeof *s->part_first);
  s->entry_block = malloc(m * 16 * sizeof *s->entry_block);
  s->block_mass = calloc(2 * m, sizeof(double)); /* defined before the first derive */
  s->block_mass_top = calloc(2 * m, sizeof(double));
  s->block_ang = calloc(2 * m, sizeof(double));
  s->block_ang_top = calloc(2 * m, sizeof(double));
  if (fail || !s->JK || !s->batch_t || !s->inv_mass || !s->ang_scalar || !s->entry_block ||
      !s->idle || !s->part_measures || !s->level_first || !s->part_first || !s->block_mass ||
      !s->block_mass_top || !s->block_ang || !s->block_ang_top) {
    wide_free(s);
    return SLV_ERR_NOMEM;
  }
#if PGS_WIDE_X86
  __builtin_cpu_init();
  s->have_avx2 = __builtin_cpu_supports("avx2");
  s->have_avx512 =
      s->have_avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  s->prfchw = cpu_has_prefetchw();
#endif
  return SLV_OK;
}

/* One row at plan position k, as pgs's factored sweep does it; returns the
 * row's residual and adds w * 0 to *poison. */
static inline double row_one(wide_state *s, const slv_fac *f, int k, double *t, double *poison) {
  int i = s->order[k];
  if (i < 0) return 0.0;
  double lo = s->lo[k], hi = s->hi[k];
  if (s->mu[k] >= 0) {
    double h = s->mu[k] * fabs(s->plan_x[s->findex_pos[k]]);
    lo = -h;
    hi = h;
  }
  double xi = s->plan_x[k];
  double wi = (s->plan_b[k] + s->plan_d[k] * xi) + slv_fac_dots(f, i, t);
  *poison += wi * 0.0;
  double r = slv_mid_res(xi, wi, lo, hi);
  double xn, e = slv_pgs_move(xi, wi, s->invd[k], lo, hi, &xn);
  if (e == 0.0) return r;
  s->plan_x[k] = xn;
  int b0 = f->blk[2 * i], b1 = f->blk[2 * i + 1];
  const double *K = f->K + 12 * (size_t)i;
  if (b0 >= 0)
    for (int c = 0; c < 6; c++) t[6 * (size_t)b0 + c] -= e * K[c];
  if (b1 >= 0)
    for (int c = 0; c < 6; c++) t[6 * (size_t)b1 + c] -= e * K[6 + c];
  return r;
}

/* Plan positions [k0, k1) one row at a time. */
static double sweep_rows(wide_state *s, const slv_op *op, int k0, int k1, double *poison) {
  double m = 0;
  for (int k = k0; k < k1; k++) {
    double r = row_one(s, &op->f, k, op->t, poison);
    if (r > m) m = r;
  }
  return m;
}

#if PGS_WIDE_X86

/* J . T over one slot (column c at J + cs c), in slv_dot6's association. */
__attribute__((target("avx2"))) static inline __m256d dot6(const double *J, int cs,
                                                           const __m256d T[6]) {
  __m256d a = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J), T[0]),
                            _mm256_mul_pd(_mm256_load_pd(J + cs), T[1]));
  __m256d b = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J + 2 * cs), T[2]),
                            _mm256_mul_pd(_mm256_load_pd(J + 3 * cs), T[3]));
  __m256d c = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J + 4 * cs), T[4]),
                            _mm256_mul_pd(_mm256_load_pd(J + 5 * cs), T[5]));
  return _mm256_add_pd(_mm256_add_pd(a, b), c);
}

/* The bounds of the four lanes at plan position k: lo and hi, findex
 * lanes (mu >= 0) -mu |x_f| .. mu |x_f| (slv_bounds_at). */
__attribute__((target("avx2"), always_inline)) static inline void
lane_bounds(const lane_arrays *a, int k, __m256d *lo, __m256d *hi) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d mu = _mm256_load_pd(a->mu + k);
  *lo = _mm256_load_pd(a->lo + k);
  *hi = _mm256_load_pd(a->hi + k);
  if (_mm256_movemask_pd(mu) != 0xf) {
    const int *f = a->findex_pos + k;
    __m256d xf = _mm256_set_pd(a->plan_x[f[3]], a->plan_x[f[2]], a->plan_x[f[1]], a->plan_x[f[0]]);
    __m256d h = _mm256_mul_pd(mu, _mm256_andnot_pd(sign, xf));
    *hi = _mm256_blendv_pd(h, *hi, mu);
    *lo = _mm256_blendv_pd(_mm256_xor_pd(h, sign), *lo, mu);
  }
}

/* lane_bounds in a sweep of a batch of h halves: where fsel says every
 * findex lane's findex row is the same lane's row one (or every one two)
 * row steps before, x_f is read as the whole 4-lane row of x stored
 * there, one load of the shape of that store (the CPU forwards it whole);
 * else from the plan's x at the findex positions, loads of 8 bytes out of
 * such stores.  The AVX-512 lanes keep those rows in registers
 * (pgs_sweep512.c). */
__attribute__((target("avx2"), always_inline)) static inline void
lane_bounds_sweep(const lane_arrays *a, int k, int h, __m256d *lo, __m256d *hi) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d mu = _mm256_load_pd(a->mu + k);
  *lo = _mm256_load_pd(a->lo + k);
  *hi = _mm256_load_pd(a->hi + k);
  unsigned plain = (unsigned)_mm256_movemask_pd(mu); /* sign set: no findex */
  if (plain == 0xf) return;
  unsigned fx = plain ^ 0xf, v = a->findex_sel[(unsigned)k >> 2];
  __m256d xf;
  if ((v & 0xf) == fx) /* every findex lane's normal one row step before: a contact's t1 */
    xf = _mm256_load_pd(a->plan_x + k - 4 * h);
  else if (v >> 4 == fx) /* two before: its t2 */
    xf = _mm256_load_pd(a->plan_x + k - 8 * h);
  else {
    const int *f = a->findex_pos + k;
    xf = _mm256_set_pd(a->plan_x[f[3]], a->plan_x[f[2]], a->plan_x[f[1]], a->plan_x[f[0]]);
  }
  __m256d g = _mm256_mul_pd(mu, _mm256_andnot_pd(sign, xf));
  *hi = _mm256_blendv_pd(g, *hi, mu);
  *lo = _mm256_blendv_pd(_mm256_xor_pd(g, sign), *lo, mu);
}

/* J . t of the four lanes whose columns start at JK (column c at JK + cs
 * c) over both slots, t of the lanes' blocks in T0 (slot 0) and T1 (slot
 * 1): slv_fac_dots's s0 + s1.  In the compact and isotropic layouts (their
 * first nine columns, J's, are the same) the products and sums are the
 * full layout's, with J slot 1's linear columns -JL (the same IEEE
 * results, signs of zero aside), and jl gets JL's three columns. */
__attribute__((target("avx2"), always_inline)) static inline __m256d
lane_dots(const double *JK, int cs, int layout, const __m256d T0[6], const __m256d T1[6],
          __m256d jl[3]) {
  if (layout == WIDE_LAY_FULL) return _mm256_add_pd(dot6(JK, cs, T0), dot6(JK + 6 * cs, cs, T1));
  /* dot6 of each slot, slot 1's linear products negated: (-p) + q = q - p */
  for (int c = 0; c < 3; c++) jl[c] = _mm256_load_pd(JK + cs * c);
  __m256d a0 = _mm256_add_pd(_mm256_mul_pd(jl[0], T0[0]), _mm256_mul_pd(jl[1], T0[1]));
  __m256d b0 =
      _mm256_add_pd(_mm256_mul_pd(jl[2], T0[2]), _mm256_mul_pd(_mm256_load_pd(JK + 3 * cs), T0[3]));
  __m256d c0 = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(JK + 4 * cs), T0[4]),
                             _mm256_mul_pd(_mm256_load_pd(JK + 5 * cs), T0[5]));
  __m256d a1 = _mm256_add_pd(_mm256_mul_pd(jl[0], T1[0]), _mm256_mul_pd(jl[1], T1[1]));
  __m256d b1 =
      _mm256_sub_pd(_mm256_mul_pd(_mm256_load_pd(JK + 6 * cs), T1[3]), _mm256_mul_pd(jl[2], T1[2]));
  __m256d c1 = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(JK + 7 * cs), T1[4]),
                             _mm256_mul_pd(_mm256_load_pd(JK + 8 * cs), T1[5]));
  return _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, b0), c0),
                       _mm256_add_pd(_mm256_sub_pd(b1, a1), c1));
}

/* slv_mid_res of the four lanes: |max(min(w, x - lo), x - hi)|. */
__attribute__((target("avx2"), always_inline)) static inline __m256d
lane_mid_res(__m256d x, __m256d w, __m256d lo, __m256d hi) {
  __m256d r = _mm256_max_pd(_mm256_min_pd(w, _mm256_sub_pd(x, lo)), _mm256_sub_pd(x, hi));
  return _mm256_andnot_pd(_mm256_set1_pd(-0.0), r);
}

/* One row step of one half (four lanes) at plan position k, its columns
 * from JK (column c at JK + cs c), t of the lanes' blocks in T0 (slot 0)
 * and T1 (slot 1): each lane does what row_one does, in the same
 * operation order (t + d K with d = 0 leaves t as pgs's skip does).
 * Compact and isotropic layouts: sc[0] and sc[1] the lanes' inverse
 * masses of slot 0 and slot 1, K's linear columns bm J (the same IEEE
 * results, signs of zero aside); isotropic: sc[2] and sc[3] their angular
 * scalars, K's angular columns ba J (the same bits: pgs_plan.c checks
 * them so).  Returns max(m, the lanes' residuals). */
__attribute__((target("avx2"), always_inline)) static inline __m256d
row_step(const lane_arrays *a, int k, const double *JK, int cs, int layout, __m256d T0[6],
         __m256d T1[6], const __m256d sc[4], __m256d m) {
  const __m256d zero = _mm256_setzero_pd();
  __m256d x = _mm256_load_pd(a->plan_x + k), lo, hi, jl[3];
  lane_bounds_sweep(a, k, cs / 4, &lo, &hi);
  /* b + fd x off the chain through t, as pgs */
  __m256d bx =
      _mm256_add_pd(_mm256_load_pd(a->plan_b + k), _mm256_mul_pd(_mm256_load_pd(a->plan_d + k), x));
  __m256d w = _mm256_add_pd(bx, lane_dots(JK, cs, layout, T0, T1, jl));
  /* + w * 0 makes m NaN for good if w is not finite (max_pd returns its
   * second operand on NaN) */
  m = _mm256_add_pd(_mm256_max_pd(lane_mid_res(x, w, lo, hi), m), _mm256_mul_pd(w, zero));
  /* slv_pgs_move: e = mid(x - hi, w omega / A_ii, x - lo) */
  __m256d e = _mm256_mul_pd(w, _mm256_load_pd(a->invd + k));
  e = _mm256_max_pd(_mm256_sub_pd(x, hi), _mm256_min_pd(_mm256_sub_pd(x, lo), e));
  __m256d xn = _mm256_max_pd(lo, _mm256_min_pd(hi, _mm256_sub_pd(x, e)));
  __m256d moved = _mm256_cmp_pd(e, zero, _CMP_NEQ_UQ);
  _mm256_store_pd(a->plan_x + k, _mm256_blendv_pd(x, xn, moved)); /* as pgs: x kept where e = 0 */
  if (layout != WIDE_LAY_FULL) {
    /* K slot 1's linear columns im1 (-JL): t - e (-q) = t + e q; the
     * isotropic layout's angular K: ia J, J's columns read again (the
     * loads go into the products) */
#pragma GCC unroll 3
    for (int c = 0; c < 3; c++) {
      __m256d k0 = layout == WIDE_LAY_ISO ? _mm256_mul_pd(sc[2], _mm256_load_pd(JK + cs * (3 + c)))
                                          : _mm256_load_pd(JK + cs * (9 + c));
      __m256d k1 = layout == WIDE_LAY_ISO ? _mm256_mul_pd(sc[3], _mm256_load_pd(JK + cs * (6 + c)))
                                          : _mm256_load_pd(JK + cs * (12 + c));
      T0[c] = _mm256_sub_pd(T0[c], _mm256_mul_pd(e, _mm256_mul_pd(sc[0], jl[c])));
      T1[c] = _mm256_add_pd(T1[c], _mm256_mul_pd(e, _mm256_mul_pd(sc[1], jl[c])));
      T0[3 + c] = _mm256_sub_pd(T0[3 + c], _mm256_mul_pd(e, k0));
      T1[3 + c] = _mm256_sub_pd(T1[3 + c], _mm256_mul_pd(e, k1));
    }
  } else {
#pragma GCC unroll 6
    for (int c = 0; c < 6; c++) {
      T0[c] = _mm256_sub_pd(T0[c], _mm256_mul_pd(e, _mm256_load_pd(JK + cs * (12 + c))));
      T1[c] = _mm256_sub_pd(T1[c], _mm256_mul_pd(e, _mm256_load_pd(JK + cs * (18 + c))));
    }
  }
  return m;
}

/* The lanes: batch by batch, t of the lanes' blocks in registers across the
 * batch's row steps.  A batch of two halves runs them in the same loop:
 * their rows are independent chains, so one's latency hides the other's. */
__attribute__((target("avx2"), always_inline)) static inline double
sweep_lanes_as(wide_state *s, int bt0, int bt1, double *poison, int layout, int ahead) {
  const lane_arrays a = { s->plan_x, s->lo, s->hi,         s->mu,         s->plan_b, s->plan_d,
                          s->invd,   s->JK, s->findex_pos, s->findex_sel, NULL };
  const size_t S = wide_cols(layout);
  __m256d m = _mm256_setzero_pd(), mb = m;
  const int *restrict pbk = s->batch_first, *restrict pbL = s->batch_steps,
                      *restrict pbh = s->batch_halves;
  double *const *restrict ptp = s->batch_t;
  const double *restrict pim = s->inv_mass, *restrict pia = s->ang_scalar;
  for (int bt = bt0; bt < bt0 + ahead && bt < bt1; bt++) prefetch_blocks(ptp + 16 * (size_t)bt);
  for (int bt = bt0; bt < bt1; bt++) {
    double *const *tp = ptp + 16 * (size_t)bt;
    const double *im = pim + 16 * (size_t)bt, *ia = pia + 16 * (size_t)bt;
    if (ahead && bt + ahead < bt1) prefetch_blocks(tp + 16 * (size_t)ahead);
    int k = pbk[bt], L = pbL[bt];
    const double *JK = a.JK + S * (size_t)k;
    __m256d A0[6], A1[6];
    /* half 0's scalars: slot 0's and slot 1's inverse masses, then angular */
    const __m256d sa[4] = { _mm256_load_pd(im), _mm256_load_pd(im + 4), _mm256_load_pd(ia),
                            _mm256_load_pd(ia + 4) };
    gather6(tp, A0);
    gather6(tp + 4, A1);
    if (pbh[bt] == 1) {
      for (int r = 0; r < L; r++, k += 4, JK += 4 * S)
        m = row_step(&a, k, JK, 4, layout, A0, A1, sa, m);
    } else {
      __m256d B0[6], B1[6];
      const __m256d sb[4] = { _mm256_load_pd(im + 8), _mm256_load_pd(im + 12),
                              _mm256_load_pd(ia + 8), _mm256_load_pd(ia + 12) };
      gather6(tp + 8, B0);
      gather6(tp + 12, B1);
      for (int r = 0; r < L; r++, k += 8, JK += 8 * S) {
        m = row_step(&a, k, JK, 8, layout, A0, A1, sa, m);
        mb = row_step(&a, k + 4, JK + 4, 8, layout, B0, B1, sb, mb);
      }
      scatter6(tp + 8, B0);
      scatter6(tp + 12, B1);
    }
    scatter6(tp, A0);
    scatter6(tp + 4, A1);
  }
  double mm[8];
  _mm256_storeu_pd(mm, m);
  _mm256_storeu_pd(mm + 4, mb);
  double r = mm[0];
  for (int l = 0; l < 8; l++) {
    *poison += mm[l] * 0.0;
    if (mm[l] > r) r = mm[l];
  }
  return r;
}

/* The threaded plan's lanes on a CPU with PREFETCHW: its prefetches for
 * writing (WIDE_PREFETCH). */
__attribute__((target("avx2,prfchw"))) static double sweep_lanes_w(wide_state *s, int bt0, int bt1,
                                                                   double *poison) {
  if (s->layout == WIDE_LAY_ISO)
    return sweep_lanes_as(s, bt0, bt1, poison, WIDE_LAY_ISO, WIDE_PREFETCH);
  return s->layout == WIDE_LAY_COMPACT
             ? sweep_lanes_as(s, bt0, bt1, poison, WIDE_LAY_COMPACT, WIDE_PREFETCH)
             : sweep_lanes_as(s, bt0, bt1, poison, WIDE_LAY_FULL, WIDE_PREFETCH);
}

/* Batches [bt0, bt1) in the lanes; a threaded plan's fetched ahead, one
 * thread's not (its blocks are in its own cache). */
__attribute__((target("avx2"))) static double sweep_lanes(wide_state *s, int bt0, int bt1,
                                                          double *poison) {
  if (s->np > 1 && s->prfchw) return sweep_lanes_w(s, bt0, bt1, poison);
  int ahead = s->np > 1 ? WIDE_PREFETCH : 0;
  if (s->layout == WIDE_LAY_ISO) return sweep_lanes_as(s, bt0, bt1, poison, WIDE_LAY_ISO, ahead);
  return s->layout == WIDE_LAY_COMPACT
             ? sweep_lanes_as(s, bt0, bt1, poison, WIDE_LAY_COMPACT, ahead)
             : sweep_lanes_as(s, bt0, bt1, poison, WIDE_LAY_FULL, ahead);
}

/* The convergence test's exact measures, checked in the lanes (see the
 * header, "The check"): what slv_residual_test_op takes from x and the w
 * of slv_op_w, here from the plan's x (xp) and op->t = K^T x as slv_op_ktx
 * forms it.  Per lane w = (d x + J . t) + b, slv_fac_row's sum and then b
 * as slv_op_w adds it; then slv_mid_res and slv_scaled_row (row size
 * A_ii, the lane's aii: A_ii > 0, SLV_CAP_NEEDS_POS_DIAG), the same IEEE
 * operations, so the same bits but for signs of zero, which neither
 * measure reads; their maxima are exact in any order.  acc: the natural
 * map's maximum, the scale-invariant one's, the poison (x + w) * 0 and
 * max |b|, each four lanes. */
typedef struct {
  __m256d res, scaled, poison, bmax;
} lane_check_acc;

/* slv_quot of the four lanes: a / s, 0 where a = 0. */
__attribute__((target("avx2"), always_inline)) static inline __m256d lane_quot(__m256d a,
                                                                               __m256d s) {
  return _mm256_andnot_pd(_mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_EQ_OQ), _mm256_div_pd(a, s));
}

/* One row step of the check at plan position k (t of the lanes' blocks in
 * T0, T1; xs = ||x||_inf, cap = min(xs, xd), each in four lanes). */
__attribute__((target("avx2"), always_inline)) static inline void
check_step(const lane_arrays *a, const double *aii, int k, const double *JK, int cs, int layout,
           const __m256d T0[6], const __m256d T1[6], __m256d xs, __m256d cap, lane_check_acc *acc) {
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  __m256d x = _mm256_load_pd(a->plan_x + k), b = _mm256_load_pd(a->plan_b + k), lo, hi, jl[3];
  lane_bounds(a, k, &lo, &hi);
  __m256d dx = _mm256_mul_pd(_mm256_load_pd(a->plan_d + k), x);
  __m256d w = _mm256_add_pd(_mm256_add_pd(dx, lane_dots(JK, cs, layout, T0, T1, jl)), b);
  acc->poison = _mm256_add_pd(acc->poison, _mm256_mul_pd(_mm256_add_pd(x, w), zero));
  acc->res = _mm256_max_pd(acc->res, lane_mid_res(x, w, lo, hi));
  acc->bmax = _mm256_max_pd(acc->bmax, _mm256_andnot_pd(sign, b));
  /* slv_scaled_row: s = |b| + |w - b| + A_ii min(xs, xd) */
  __m256d s = _mm256_add_pd(
      _mm256_add_pd(_mm256_andnot_pd(sign, b), _mm256_andnot_pd(sign, _mm256_sub_pd(w, b))),
      _mm256_mul_pd(_mm256_load_pd(aii + k), cap));
  __m256d wh = lane_quot(w, s), xa = lane_quot(_mm256_sub_pd(x, hi), xs);
  __m256d xc = lane_quot(_mm256_sub_pd(x, lo), xs);
  __m256d m = _mm256_max_pd(_mm256_min_pd(wh, xc), xa);
  acc->scaled = _mm256_max_pd(acc->scaled, _mm256_andnot_pd(sign, m));
}

/* The check over the lanes' batches, t gathered as the sweep gathers it
 * (nothing is written back), into pm (check_rows's layout). */
__attribute__((target("avx2"))) static void check_lanes(const wide_state *s, double xs, double cap,
                                                        double *pm) {
  const lane_arrays a = { s->plan_x, s->lo, s->hi,         s->mu,         s->plan_b, s->plan_d,
                          s->invd,   s->JK, s->findex_pos, s->findex_sel, NULL };
  const __m256d vxs = _mm256_set1_pd(xs), vcap = _mm256_set1_pd(cap), zero = _mm256_setzero_pd();
  lane_check_acc acc = { zero, zero, zero, zero };
  const size_t S = wide_cols(s->layout);
  for (int bt = 0; bt < s->nbat; bt++) {
    double *const *tp = s->batch_t + 16 * (size_t)bt;
    int k = s->batch_first[bt], L = s->batch_steps[bt], h = s->batch_halves[bt];
    const double *JK = s->JK + S * (size_t)k;
    __m256d A0[6], A1[6];
    gather6(tp, A0);
    gather6(tp + 4, A1);
    if (h == 1) {
      for (int r = 0; r < L; r++, k += 4, JK += 4 * S)
        check_step(&a, s->aii, k, JK, 4, s->layout, A0, A1, vxs, vcap, &acc);
      continue;
    }
    __m256d B0[6], B1[6];
    gather6(tp + 8, B0);
    gather6(tp + 12, B1);
    for (int r = 0; r < L; r++, k += 8, JK += 8 * S) {
      check_step(&a, s->aii, k, JK, 8, s->layout, A0, A1, vxs, vcap, &acc);
      check_step(&a, s->aii, k + 4, JK + 4, 8, s->layout, B0, B1, vxs, vcap, &acc);
    }
  }
  double v[4][4];
  _mm256_storeu_pd(v[0], acc.res);
  _mm256_storeu_pd(v[1], acc.scaled);
  _mm256_storeu_pd(v[2], acc.poison);
  _mm256_storeu_pd(v[3], acc.bmax);
  wide_check_fold(pm, v[0], 4);
}

/* K^T x of one half's rows (four lanes) into A0 (slot 0) and A1 (slot 1):
 * per lane the sum over its group's rows in row order of K_i x_i, as
 * slv_fac_ktx sums a run (from 0, each product K_ic x_i, added in turn; an
 * idle position adds 0 x 0).  Compact and isotropic layouts: K's columns
 * as the sweep forms them (sc: row_step's scalars), slot 1's linear ones
 * -(im1 JL): a - (q x) is a + (-q) x to the bit. */
__attribute__((target("avx2"), always_inline)) static inline void
ktx_half(const double *xp, int k, const double *JK, int L, int h, int layout, const __m256d sc[4],
         __m256d A0[6], __m256d A1[6]) {
  const size_t S = wide_cols(layout);
  const int cs = 4 * h;
  /* unrolled, so the sums stay in registers: as a loop gcc made it two
   * rep stos on the stack, a quarter of this function's time */
#pragma GCC unroll 6
  for (int c = 0; c < 6; c++) A0[c] = A1[c] = _mm256_setzero_pd();
  for (int r = 0; r < L; r++, k += 4 * h, JK += 4 * h * S) {
    __m256d x = _mm256_load_pd(xp + k);
    if (layout != WIDE_LAY_FULL) {
#pragma GCC unroll 3
      for (int c = 0; c < 3; c++) {
        __m256d jl = _mm256_load_pd(JK + cs * c);
        __m256d k0 = layout == WIDE_LAY_ISO
                         ? _mm256_mul_pd(sc[2], _mm256_load_pd(JK + cs * (3 + c)))
                         : _mm256_load_pd(JK + cs * (9 + c));
        __m256d k1 = layout == WIDE_LAY_ISO
                         ? _mm256_mul_pd(sc[3], _mm256_load_pd(JK + cs * (6 + c)))
                         : _mm256_load_pd(JK + cs * (12 + c));
        A0[c] = _mm256_add_pd(A0[c], _mm256_mul_pd(_mm256_mul_pd(sc[0], jl), x));
        A1[c] = _mm256_sub_pd(A1[c], _mm256_mul_pd(_mm256_mul_pd(sc[1], jl), x));
        A0[3 + c] = _mm256_add_pd(A0[3 + c], _mm256_mul_pd(k0, x));
        A1[3 + c] = _mm256_add_pd(A1[3 + c], _mm256_mul_pd(k1, x));
      }
    } else {
#pragma GCC unroll 6
      for (int c = 0; c < 6; c++) {
        A0[c] = _mm256_add_pd(A0[c], _mm256_mul_pd(_mm256_load_pd(JK + cs * (12 + c)), x));
        A1[c] = _mm256_add_pd(A1[c], _mm256_mul_pd(_mm256_load_pd(JK + cs * (18 + c)), x));
      }
    }
  }
}

/* t += A for the four blocks at tp (their 6-blocks; the idle block gets
 * zeros). */
__attribute__((target("avx2"), always_inline)) static inline void ktx_add(double *const *tp,
                                                                          const __m256d A[6]) {
  __m256d T[6];
  gather6(tp, T);
  for (int c = 0; c < 6; c++) T[c] = _mm256_add_pd(T[c], A[c]);
  scatter6(tp, T);
}

__attribute__((target("avx2"), always_inline)) static inline void ktx_lanes_as(const wide_state *s,
                                                                               int layout) {
  const size_t S = wide_cols(layout);
  for (int bt = 0; bt < s->nbat; bt++) {
    double *const *tp = s->batch_t + 16 * (size_t)bt;
    const double *im = s->inv_mass + 16 * (size_t)bt, *ia = s->ang_scalar + 16 * (size_t)bt;
    int k = s->batch_first[bt], L = s->batch_steps[bt], h = s->batch_halves[bt];
    for (int u = 0; u < h; u++) {
      __m256d A0[6], A1[6];
      const __m256d sc[4] = { _mm256_load_pd(im + 8 * u), _mm256_load_pd(im + 8 * u + 4),
                              _mm256_load_pd(ia + 8 * u), _mm256_load_pd(ia + 8 * u + 4) };
      ktx_half(s->plan_x, k + 4 * u, s->JK + S * (size_t)k + 4 * u, L, h, layout, sc, A0, A1);
      ktx_add(tp + 8 * u, A0);
      ktx_add(tp + 8 * u + 4, A1);
    }
  }
}

/* op->t = K^T x, summed in the lanes from the plan's x (where ktx_lanes
 * says that gives slv_op_ktx's bits): t zeroed, then each batch's groups'
 * sums added to their blocks, batch after batch (a block's groups in row
 * order). */
__attribute__((target("avx2"))) static void ktx_lanes(const wide_state *s, slv_op *op) {
  memset(op->t, 0, 6 * (size_t)op->f.nb * sizeof *op->t);
  if (s->lanes512)
    wide_ktx_lanes512(s);
  else if (s->layout == WIDE_LAY_ISO)
    ktx_lanes_as(s, WIDE_LAY_ISO);
  else if (s->layout == WIDE_LAY_COMPACT)
    ktx_lanes_as(s, WIDE_LAY_COMPACT);
  else
    ktx_lanes_as(s, WIDE_LAY_FULL);
}

/* The largest |x_k| over the plan, four lanes at a time. */
__attribute__((target("avx2"))) static double plan_xscale_lanes(const wide_state *s) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d m = _mm256_setzero_pd();
  int k = 0;
  for (; k + 4 <= s->len; k += 4)
    m = _mm256_max_pd(m, _mm256_andnot_pd(sign, _mm256_loadu_pd(s->plan_x + k)));
  double v[4], xs = 0;
  _mm256_storeu_pd(v, m);
  for (int l = 0; l < 4; l++) xs = fmax(xs, v[l]);
  for (; k < s->len; k++) xs = fmax(xs, fabs(s->plan_x[k]));
  return xs;
}

#endif

/* Batches [bt0, bt1): in the lanes, or their plan positions one row at a
 * time.  Returns the residual of their rows, adds w * 0 to *poison. */
static double sweep_batches(wide_state *s, const slv_op *op, int bt0, int bt1, double *poison) {
  if (bt0 >= bt1) return 0.0;
#if PGS_WIDE_X86
  if (s->lanes512) return wide_sweep_lanes512(s, bt0, bt1, poison);
  if (s->lanes) return sweep_lanes(s, bt0, bt1, poison);
#endif
  return sweep_rows(s, op, s->batch_first[bt0], bt1 < s->nbat ? s->batch_first[bt1] : s->ncol,
                    poison);
}

/* One sweep in plan order; the natural-map residual (inf-norm) of the w_i
 * met at each row, NaN if a value was not finite. */
static double sweep(wide_state *s, const slv_op *op) {
  double poison = 0;
  double m = sweep_batches(s, op, 0, s->nbat, &poison);
  double r = sweep_rows(s, op, s->ncol, s->len, &poison);
  if (r > m) m = r;
  return poison == 0.0 ? m : NAN;
}

/* The threaded plan's batches, from inside the team (wide_sweeps_par):
 * level by level, the parts of a level shared out by the worksharing loop
 * (its implicit barrier ends the level, so a level's rows see every move
 * of the levels before).  Part u keeps its residual and poison in
 * s->part_measures[WIDE_PAD u ..] (s->part_measures is reset before the sweep): whichever
 * thread runs it, one at a time, with barriers between. */
static void sweep_levels(wide_state *s, const slv_op *op) {
  const int np = s->np;
  for (int l = 0; l < s->nlev; l++) {
#pragma omp for schedule(static)
    for (int u = 0; u < np; u++) {
      const int *pst = s->part_first + np * l + u;
      double *pm = s->part_measures + WIDE_PAD * (size_t)u;
      double r = sweep_batches(s, op, pst[0], pst[1], pm + 1);
      if (r > pm[0]) pm[0] = r;
    }
  }
}

/* After sweep_levels: the sequential rows (one thread), and the sweep's
 * residual from the parts' (a maximum, exact in any order), NaN if a value
 * was not finite. */
static double sweep_rest(wide_state *s, const slv_op *op) {
  double poison = 0;
  double m = sweep_rows(s, op, s->ncol, s->len, &poison);
  for (int u = 0; u < s->np; u++) {
    const double *pm = s->part_measures + WIDE_PAD * (size_t)u;
    poison += pm[1];
    if (pm[0] > m) m = pm[0];
  }
  return poison == 0.0 ? m : NAN;
}

static void reset_parts(wide_state *s) {
  memset(s->part_measures, 0, WIDE_PAD * (size_t)s->np * sizeof *s->part_measures);
}

/* op->t = K^T x, x the plan's (and x's, in row order): in the lanes where
 * that gives slv_op_ktx's bits, else by it. */
static void wide_ktx(const wide_state *s, slv_op *op, const double *x) {
#if PGS_WIDE_X86
  if (s->ktx_lanes) {
    ktx_lanes(s, op);
    return;
  }
#endif
  slv_op_ktx(op, x);
}

/* x from the plan's x, row by row through each row's position (rowb). */
static void unpermute(const wide_state *s, double *x) {
  for (int i = 0; i < s->n; i++) x[i] = s->plan_x[s->row_batch[i]];
}

/* The problem to pgs itself, which computes the same iterates (dense and
 * CSR; factored without the lanes in row order): result.method says so. */
static slv_status to_pgs(wide_state *s, slv_op *op, const slv_options *opt, double *x, double *w,
                         slv_result *res, slv_hist *h) {
  res->method = slv_solver_pgs.name;
  return slv_solver_pgs.impl->solve(s->pgs, op, opt, x, w, res, h);
}

/* What follows a sweep whose own residual was m (the stopping rule is
 * pgs's): the checks, the history, and the verdict; WIDE_GO_ON to sweep
 * again. */
enum { WIDE_GO_ON = -1000 };

typedef struct {
  slv_op *op;
  const slv_options *opt;
  double *x, *w, units; /* units: slv_units_of */
  slv_result *res;
  slv_hist *h;
  slv_residuals r;
} sweep_ctx;

/* The check's rows [k0, k1) of the plan one at a time (check_lanes's
 * measures, with slv_fac_row and the scalar slv_mid_res, slv_scaled_row):
 * pm[0] the natural map's maximum, pm[1] the scale-invariant one's, pm[2]
 * the poison, pm[3] max |b|. */
static void check_rows(const wide_state *s, const slv_op *op, int k0, int k1, double xs, double cap,
                       double *pm) {
  for (int k = k0; k < k1; k++) {
    int i = s->order[k];
    if (i < 0) continue;
    double x = s->plan_x[k], b = s->plan_b[k], lo = s->lo[k], hi = s->hi[k];
    if (s->mu[k] >= 0) {
      double h = s->mu[k] * fabs(s->plan_x[s->findex_pos[k]]);
      lo = -h;
      hi = h;
    }
    double w = slv_fac_row(&op->f, i, op->t, x) + b;
    pm[2] += (x + w) * 0.0;
    double r = slv_mid_res(x, w, lo, hi), sc = slv_scaled_row(x, w, b, s->aii[k] * cap, lo, hi, xs);
    if (r > pm[0]) pm[0] = r;
    if (sc > pm[1]) pm[1] = sc;
    if (fabs(b) > pm[3]) pm[3] = fabs(b);
  }
}

/* xs = ||x||_inf over the plan's x (idle positions hold 0). */
static double plan_xscale(const wide_state *s) {
  double xs = 0;
#if PGS_WIDE_X86
  if (s->have_avx2) return plan_xscale_lanes(s);
#endif
  for (int k = 0; k < s->len; k++) xs = fmax(xs, fabs(s->plan_x[k]));
  return xs;
}

/* The exact measures of the test at the plan's x (pgs_wide.c, "The
 * check"): with op->t = K^T x as slv_op_ktx forms it (t_formed), in the
 * lanes and then the sequential rows one at a time; else (pgs_color's
 * own t), or under the 2-norm option (res_rel_2: its sums go in
 * residual.c's chunks), slv_residual_test_op on x, which must then be
 * unpermuted. */
static slv_residuals wide_measure(const wide_state *s, sweep_ctx *c, int t_formed) {
  if (!t_formed || c->opt->norm == SLV_NORM_2)
    return slv_residual_test_op(c->op, c->x, NULL, t_formed);
  double xs = plan_xscale(s), cap = fmin(xs, c->op->rs.xd), pm[4] = { 0, 0, 0, 0 };
  slv_xscale_floor(&xs, &cap, c->op->rs.xf);
  int k0 = 0;
#if PGS_WIDE_X86
  if (s->lanes) {
    if (s->lanes512)
      wide_check_lanes512(s, xs, cap, pm);
    else
      check_lanes(s, xs, cap, pm);
    k0 = s->ncol;
  }
#endif
  check_rows(s, c->op, k0, s->len, xs, cap, pm);
  return slv_residuals_test(pm[2] == 0.0 ? pm[0] : NAN, pm[1], pm[3]);
}

static void start_copy_all(wide_state *s, const double *x);

/* A pause of slv_solve_paused after a sweep (the plan's own t: never
 * pgs_color's): x out of the plan, the exact w = A x + b for the pause's
 * function, and where that moved x, the plan's x and t from the new x. */
static void wide_pause(wide_state *s, sweep_ctx *c) {
  unpermute(s, c->x);
  slv_op_w(c->op, c->x, c->w);
  if (!c->op->pauses->fn(c->op->pauses->ctx, c->x, c->w)) return;
  start_copy_all(s, c->x);
  wide_ktx(s, c->op, c->x);
}

/* Whether a check's K^T x (t_formed: wide_ktx's) and measure read the
 * plan's x alone, not x in row order: the lanes' K^T x (ktx_lanes) and
 * wide_measure's own rows (not the 2-norm option's slv_residual_test_op). */
static int measured_in_plan(const wide_state *s, const slv_options *opt, int t_formed) {
  return t_formed && s->ktx_lanes && opt->norm != SLV_NORM_2;
}

static int after_sweep(wide_state *s, sweep_ctx *c, int it, double m) {
  const slv_options *opt = c->opt;
  slv_result *res = c->res;
  int due = 0, exact = 0;
  s->ktx_due = 0;
  res->iterations = it;
  if (isnan(m)) {
    unpermute(s, c->x);
    slv_msgf(res->message, sizeof res->message, "%s: iterate became non-finite at sweep %d",
             wide_name(s), it);
    return SLV_NOT_FINITE;
  }
  if (slv_cheap_met(opt, m, c->units) || it % opt->check_every == 0) {
    /* the exact measures: at the trigger, to confirm convergence as the
     * generic layer will, else to give the trigger its units (and the
     * history its exact points); t = K^T x afresh, which also drops the
     * rounding drift of the sweeps' t.  pgs_color's t between two of its
     * sweeps goes by its caller, on the plan's threads (wide_color_ktx): its
     * sums go in another order, so the measure forms its own (wide_measure) */
    due = s->own_ktx && !slv_cheap_met(opt, m, c->units);
    /* x in row order only where the measure reads it (wide_ktx without
     * the lanes' K^T x, slv_residual_test_op) or the solve ends here */
    if (!measured_in_plan(s, opt, !due)) unpermute(s, c->x);
    if (!due) wide_ktx(s, c->op, c->x);
    c->r = wide_measure(s, c, !due);
    c->units = slv_units_of(&c->r, c->units);
    exact = 1;
  }
  res->solver_residual = exact ? slv_test_measure(opt, &c->r) : m / c->units;
  slv_history_push(c->h, res, res->solver_residual);
  /* a solve that ends here returns the x whose K^T x the check formed
   * as slv_op_ktx does (unless pgs_color's t was due): slv_solve's w keeps it */
  c->op->t_current = exact && !due;
  if (exact && slv_met(c->op->p, opt, &c->r)) {
    unpermute(s, c->x);
    return SLV_CONVERGED;
  }
  slv_status stop = slv_should_stop(c->op, slv_op_nnz(c->op));
  if (stop) { /* the last iterate */
    unpermute(s, c->x);
    return stop;
  }
  if (it == opt->max_iter) {
    unpermute(s, c->x);
    /* slv_solve's w then forms only the rows: K^T x from the plan's
     * compact columns costs less than slv_op_ktx's pass over K */
    if (!c->op->t_current && s->ktx_lanes) {
      wide_ktx(s, c->op, c->x);
      c->op->t_current = 1;
    }
    slv_msgf(res->message, sizeof res->message, "%s: %d sweeps, res_scaled=%.3g > tol=%.3g",
             wide_name(s), opt->max_iter, res->solver_residual, opt->tol);
    return SLV_MAX_ITER;
  }
  s->ktx_due = due;
  c->op->t_current = 0; /* the sweeps go on: x moves */
  if (!s->own_ktx && slv_pause_due(c->op, it, opt->max_iter)) wide_pause(s, c);
  return WIDE_GO_ON;
}

/* The start: x into xp at plan positions [k0, k1) (0 at idle ones). */
static void start_copy(wide_state *s, const double *x, int k0, int k1) {
  for (int k = k0; k < k1; k++) s->plan_x[k] = s->order[k] >= 0 ? x[s->order[k]] : 0.0;
}

/* The same for the whole plan, row by row through each row's position
 * (the idle positions' 0 is fill_rows's). */
static void start_copy_all(wide_state *s, const double *x) {
  for (int i = 0; i < s->n; i++) s->plan_x[s->row_batch[i]] = x[i];
}

/* Part v of pgs_color's start: its batches' positions of every colour (and
 * for part 0 the overflow rows) copied into xp (all of them without parts). */
static void start_part(wide_state *s, const sweep_ctx *c, int v) {
  const int np = s->np;
  if (np == 1) {
    start_copy_all(s, c->x);
    return;
  }
  for (int l = 0, k0, k1; l < s->nlev; l++) {
    batch_span(s, s->part_first[np * l + v], s->part_first[np * l + v + 1], &k0, &k1);
    start_copy(s, c->x, k0, k1);
  }
  if (v == 0) start_copy(s, c->x, s->ncol, s->len);
}

/* The start's verdict, on the exact measures as pgs's (a start that met
 * tol sweeps nowhere; wide_measure, t_formed as there), and the trigger's
 * first units, max(1, ||b||_inf) where the measures give none. */
static int start_exact(const wide_state *s, sweep_ctx *c, int t_formed) {
  c->r = wide_measure(s, c, t_formed);
  c->units = slv_units_of(&c->r, fmax(1.0, c->r.b_inf));
  c->res->solver_residual = slv_test_measure(c->opt, &c->r);
  return slv_met(c->op->p, c->opt, &c->r) ? SLV_CONVERGED : WIDE_GO_ON;
}

/* The threaded plan's sweeps: one team for the whole solve (not one per
 * sweep or level), the levels' batches shared out in sweep_levels, the
 * rest (sequential rows, checks, history, verdict) on one thread between
 * two barriers.  Every thread leaves the loop at the same sweep: `done` is
 * written inside the single construct and read after its barrier. */
static slv_status wide_sweeps_par(wide_state *s, sweep_ctx *c) {
  int done = WIDE_GO_ON;
  reset_parts(s);
#pragma omp parallel num_threads(s->np) shared(done)
  {
    if (s->own_ktx) { /* the start: xp and t = K^T x by parts, then its measure */
#pragma omp for schedule(static)
      for (int v = 0; v < s->np; v++) start_part(s, c, v);
      wide_color_ktx_team(s, c->op);
#pragma omp single
      done = start_exact(s, c, 0);
    }
    for (int it = 1; done == WIDE_GO_ON; it++) {
      sweep_levels(s, c->op);
#pragma omp single
      {
        double m = sweep_rest(s, c->op);
        reset_parts(s);
        done = after_sweep(s, c, it, m);
      }
      if (s->ktx_due) wide_color_ktx_team(s, c->op); /* read by all before the next single */
    }
  }
  return (slv_status)done;
}

/* The sweeps from the plan (the stopping rule is pgs's). */
static slv_status wide_sweeps(wide_state *s, slv_op *op, const slv_options *opt, double *x,
                              double *w, slv_result *res, slv_hist *h) {
  sweep_ctx c = { .op = op, .opt = opt, .x = x, .w = w, .res = res, .h = h };
  if (s->own_ktx) { /* its own start: t summed in colour order (wide_color_ktx) */
    if (s->np > 1) return wide_sweeps_par(s, &c);
    start_part(s, &c, 0);
    wide_color_ktx(s, op);
    int done = start_exact(s, &c, 0);
    for (int it = 1; done == WIDE_GO_ON; it++) {
      done = after_sweep(s, &c, it, sweep(s, op));
      if (s->ktx_due) wide_color_ktx(s, op);
    }
    return (slv_status)done;
  }
  start_copy_all(s, x);
  wide_ktx(s, op, x); /* the sweeps keep op->t = K^T x current */
  if (start_exact(s, &c, 1) == SLV_CONVERGED) {
    op->t_current = 1; /* x is the start, t its K^T x (wide_ktx) */
    return SLV_CONVERGED;
  }
  if (s->np > 1) return wide_sweeps_par(s, &c);
  int done = WIDE_GO_ON;
  for (int it = 1; done == WIDE_GO_ON; it++) done = after_sweep(s, &c, it, sweep(s, op));
  return (slv_status)done;
}

slv_status wide_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                      slv_result *res, slv_hist *h) {
  wide_state *s = st;
  if (!op->fac) return to_pgs(s, op, opt, x, w, res, h);
  s->lanes = s->have_avx2 && (opt->simd == SLV_SIMD_AUTO || opt->simd == SLV_SIMD_AVX2);
  s->lanes512 = s->lanes && s->have_avx512 && opt->simd == SLV_SIMD_AUTO;
  if (!s->color && !s->lanes && !wide_has_sequential(op)) {
    /* one row at a time in the row order: that is pgs's sweep, and pgs
     * runs it without the plan's indirections */
    slv_logf(opt, "%s: %d rows, no AVX2 lanes, row order: pgs's own sweep", wide_name(s), op->n);
    return to_pgs(s, op, opt, x, w, res, h);
  }
  /* threads in the lanes only: without them the row order is pgs's own
   * sweep (above), which stops by pgs's rule (it also stops on the exact
   * residual of its check sweeps), so a threaded plan there would change
   * the sweep count with the thread count; pgs_color's plan is never pgs's
   * loop, so it takes the threads either way.  Before K^T x: op->t is
   * scratch. */
  wide_plan(s, op, opt->omega, s->lanes || s->color ? opt->threads : 1);
  wide_plan_rowscale(s, op);
  if (opt->log_fn || opt->log_level_fn) wide_log_plan(s, op->p, opt);
  return wide_sweeps(s, op, opt, x, w, res, h);
}
