/* pgs_sweep512.c -- the sweep of pgs_wide, pgs_color and pgs_part in AVX-512
 * lanes (pgs_lanes.h): a batch's two halves as one row of eight lanes; and
 * pgs_wide's exact check and K^T x in the same lanes (at the end).
 *
 * The same sweep as the AVX2 lanes of pgs_lanes.c (pgs_wide.c, "Order",
 * "Why"; each lane does row_one's operations in its order and association,
 * no fused multiply-add), on a CPU with AVX-512 F and DQ: a row step of a
 * batch of two halves is one 8-lane operation where the AVX2 lanes take two
 * 4-lane ones, and its t (two 6-blocks a lane) fits in twelve of the 32
 * registers, where the AVX2 lanes' 24 columns spill from their 16.  The
 * plan lays a row step's eight lanes out side by side for this (pgs_wide.c,
 * "Layout"): x, b, the bounds, omega / A_ii at 8 h r + l, column c of J and
 * K at 8 c + l, the row step on a 64-byte line.  A batch of one half runs
 * in the low four lanes, the high four masked off (loaded as zeros, never
 * stored): zero J, K, x, b and bounds there move nothing and add nothing
 * to the residual.  The iterates are the AVX2 lanes', which are pgs's, bit
 * for bit (tests/test_pgs_wide.c runs whichever lanes the CPU has).
 *
 * Row kinds.  A row step whose lanes are all a contact's normal rows (plain,
 * lo and d +0, hi +inf or +0) or all its friction rows (findex, d +0) reads
 * neither lo, hi nor d, and the first not mu: the plan's rk byte of each
 * half (pgs_lanes.h, WIDE_RK_N) says so, and the row step uses the same
 * values as constants (+0 times x is the product d x with d = +0 loaded;
 * the friction bounds replace lo and hi in every lane).  What it saves is
 * bytes: a sweep of a large pile streams its rows from beyond the second
 * cache.
 */
#include "pgs_lanes.h"

#if PGS_WIDE_X86

#define PGS512 __attribute__((target("avx512f,avx512dq"), always_inline)) static inline

/* The 6-blocks of half 0 (tp[0..3]) and half 1 (tp[8..11]) of one slot as
 * six 8-lane columns (a 4x4 transpose in each 256-bit half, then the pairs
 * of columns 4 and 5); with one half (h = 1) the high lanes are 0. */
PGS512 void gather8(double *const *tp, int h, __m512d T[6]) {
  if (h == 1) {
    __m256d lo[6];
    gather6(tp, lo);
#pragma GCC unroll 6
    for (int c = 0; c < 6; c++) T[c] = _mm512_insertf64x4(_mm512_setzero_pd(), lo[c], 0);
    return;
  }
  const __m512i i02 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i i13 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  __m512d r[4];
#pragma GCC unroll 4
  for (int l = 0; l < 4; l++)
    r[l] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(tp[l])),
                              _mm256_loadu_pd(tp[8 + l]), 1);
  __m512d t0 = _mm512_unpacklo_pd(r[0], r[1]), t1 = _mm512_unpackhi_pd(r[0], r[1]);
  __m512d t2 = _mm512_unpacklo_pd(r[2], r[3]), t3 = _mm512_unpackhi_pd(r[2], r[3]);
  T[0] = _mm512_permutex2var_pd(t0, i02, t2);
  T[1] = _mm512_permutex2var_pd(t1, i02, t3);
  T[2] = _mm512_permutex2var_pd(t0, i13, t2);
  T[3] = _mm512_permutex2var_pd(t1, i13, t3);
  /* [b0, b2 | b8, b10] and [b1, b3 | b9, b11] of columns 4, 5 */
  __m512d u = _mm512_castpd256_pd512(_mm256_insertf128_pd(
      _mm256_castpd128_pd256(_mm_loadu_pd(tp[0] + 4)), _mm_loadu_pd(tp[2] + 4), 1));
  __m512d v = _mm512_castpd256_pd512(_mm256_insertf128_pd(
      _mm256_castpd128_pd256(_mm_loadu_pd(tp[1] + 4)), _mm_loadu_pd(tp[3] + 4), 1));
  u = _mm512_insertf64x4(u,
                         _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(tp[8] + 4)),
                                              _mm_loadu_pd(tp[10] + 4), 1),
                         1);
  v = _mm512_insertf64x4(v,
                         _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(tp[9] + 4)),
                                              _mm_loadu_pd(tp[11] + 4), 1),
                         1);
  T[4] = _mm512_unpacklo_pd(u, v);
  T[5] = _mm512_unpackhi_pd(u, v);
}

/* The inverse of gather8. */
PGS512 void scatter8(double *const *tp, int h, const __m512d T[6]) {
  if (h == 1) {
    __m256d lo[6];
#pragma GCC unroll 6
    for (int c = 0; c < 6; c++) lo[c] = _mm512_castpd512_pd256(T[c]);
    scatter6(tp, lo);
    return;
  }
  const __m512i i02 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i i13 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  /* the transpose is its own inverse: rows back from the columns */
  __m512d t0 = _mm512_unpacklo_pd(T[0], T[1]), t1 = _mm512_unpackhi_pd(T[0], T[1]);
  __m512d t2 = _mm512_unpacklo_pd(T[2], T[3]), t3 = _mm512_unpackhi_pd(T[2], T[3]);
  __m512d r0 = _mm512_permutex2var_pd(t0, i02, t2), r1 = _mm512_permutex2var_pd(t1, i02, t3);
  __m512d r2 = _mm512_permutex2var_pd(t0, i13, t2), r3 = _mm512_permutex2var_pd(t1, i13, t3);
  __m512d u = _mm512_unpacklo_pd(T[4], T[5]), v = _mm512_unpackhi_pd(T[4], T[5]);
  _mm256_storeu_pd(tp[0], _mm512_castpd512_pd256(r0));
  _mm256_storeu_pd(tp[1], _mm512_castpd512_pd256(r1));
  _mm256_storeu_pd(tp[2], _mm512_castpd512_pd256(r2));
  _mm256_storeu_pd(tp[3], _mm512_castpd512_pd256(r3));
  _mm_storeu_pd(tp[0] + 4, _mm512_castpd512_pd128(u));
  _mm_storeu_pd(tp[1] + 4, _mm512_castpd512_pd128(v));
  _mm_storeu_pd(tp[2] + 4, _mm512_extractf64x2_pd(u, 1));
  _mm_storeu_pd(tp[3] + 4, _mm512_extractf64x2_pd(v, 1));
  _mm256_storeu_pd(tp[8], _mm512_extractf64x4_pd(r0, 1));
  _mm256_storeu_pd(tp[9], _mm512_extractf64x4_pd(r1, 1));
  _mm256_storeu_pd(tp[10], _mm512_extractf64x4_pd(r2, 1));
  _mm256_storeu_pd(tp[11], _mm512_extractf64x4_pd(r3, 1));
  _mm_storeu_pd(tp[8] + 4, _mm512_extractf64x2_pd(u, 2));
  _mm_storeu_pd(tp[9] + 4, _mm512_extractf64x2_pd(v, 2));
  _mm_storeu_pd(tp[10] + 4, _mm512_extractf64x2_pd(u, 3));
  _mm_storeu_pd(tp[11] + 4, _mm512_extractf64x2_pd(v, 3));
}

/* Eight doubles at p: the row step's lanes (h = 2, p on a 64-byte line),
 * or the low four (h = 1), the rest 0. */
PGS512 __m512d load8(const double *p, int h) {
  return h == 2 ? _mm512_load_pd(p) : _mm512_maskz_loadu_pd(0x0f, p);
}

PGS512 __m512d abs8(__m512d v) { return _mm512_andnot_pd(_mm512_set1_pd(-0.0), v); }

/* x_f of the findex lanes fx at plan position k: from the registers where
 * fsel says so (x1, x2: the lanes' x of the row step one and two before),
 * else from the plan's x at the findex positions: a load waiting on the
 * store that wrote x a row step before costs more than the row step's
 * arithmetic. */
PGS512 __m512d findex_x8(const lane_arrays *a, int k, int h, __mmask8 fx, __m512d x1, __m512d x2) {
  unsigned v = a->findex_sel[k / 4] | (h == 2 ? (unsigned)a->findex_sel[k / 4 + 1] << 8 : 0u);
  __mmask8 s1 = (__mmask8)((v & 0xf) | ((v >> 4) & 0xf0));
  __mmask8 s2 = (__mmask8)(((v >> 4) & 0xf) | ((v >> 8) & 0xf0));
  __m512d xf = _mm512_mask_blend_pd(s2, x1, x2);
  __mmask8 mem = (__mmask8)(fx & ~(s1 | s2));
  if (mem) {
    __m256i f = h == 2
                    ? _mm256_loadu_si256((const __m256i *)(a->findex_pos + k))
                    : _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(a->findex_pos + k)));
    xf = _mm512_mask_i32gather_pd(xf, mem, f, a->plan_x, 8);
  }
  return xf;
}

/* lane_bounds of the eight lanes at plan position k: findex lanes (mu >=
 * 0) -mu |x_f| .. mu |x_f| (findex_x8). */
PGS512 void bounds8(const lane_arrays *a, int k, int h, __m512d x1, __m512d x2, __m512d *lo,
                    __m512d *hi) {
  __m512d mu = load8(a->mu + k, h);
  *lo = load8(a->lo + k, h);
  *hi = load8(a->hi + k, h);
  __mmask8 plain = _mm512_movepi64_mask(_mm512_castpd_si512(mu)); /* sign set: no findex */
  __mmask8 lanes = h == 2 ? 0xff : 0x0f, fx = (__mmask8)(~plain & lanes);
  if (!fx) return;
  __m512d hh = _mm512_mul_pd(mu, abs8(findex_x8(a, k, h, fx, x1, x2)));
  *hi = _mm512_mask_blend_pd(plain, hh, *hi);
  *lo = _mm512_mask_blend_pd(plain, _mm512_xor_pd(hh, _mm512_set1_pd(-0.0)), *lo);
}

/* bounds8 of a row step whose every lane is a findex row (WIDE_RK_F): lo
 * and hi are not read, the findex bounds replace them in every lane (in
 * the masked-off high lanes of one half too: mu loads as +0 there). */
PGS512 void bounds8f(const lane_arrays *a, int k, int h, __m512d x1, __m512d x2, __m512d *lo,
                     __m512d *hi) {
  __m512d mu = load8(a->mu + k, h);
  __mmask8 lanes = h == 2 ? 0xff : 0x0f;
  __m512d hh = _mm512_mul_pd(mu, abs8(findex_x8(a, k, h, lanes, x1, x2)));
  *hi = hh;
  *lo = _mm512_xor_pd(hh, _mm512_set1_pd(-0.0));
}

/* The bounds and d of the row step at plan position k by its row kinds
 * (the plan's rk bytes of its halves): a contact's normal rows lo = d =
 * +0, hi +0 or +inf as the byte's mask says; its friction rows bounds8f, d
 * +0; else bounds8 and d loaded. */
PGS512 void kind_bounds8(const lane_arrays *a, int k, int h, const __m512d X[2], __m512d *lo,
                         __m512d *hi, __m512d *d) {
  const __m512d zero = _mm512_setzero_pd();
  unsigned kind = a->row_kind[k / 4] | (h == 2 ? (unsigned)a->row_kind[k / 4 + 1] << 8 : 0u);
  const unsigned both = h == 2 ? 0x101u : 1u;
  if ((kind & WIDE_RK_N * both) == WIDE_RK_N * both) {
    *lo = *d = zero;
    *hi = _mm512_maskz_mov_pd((__mmask8)((kind & 0xf) | ((kind >> 4) & 0xf0)),
                              _mm512_set1_pd(__builtin_inf()));
  } else if ((kind & WIDE_RK_F * both) == WIDE_RK_F * both) {
    bounds8f(a, k, h, X[0], X[1], lo, hi);
    *d = zero;
  } else {
    bounds8(a, k, h, X[0], X[1], lo, hi);
    *d = load8(a->plan_d + k, h);
  }
}

/* J . T over one slot, column c at J + 8 c (h = 2) or 4 c (h = 1):
 * slv_dot6's association. */
PGS512 __m512d dot6x8(const double *J, int h, const __m512d T[6]) {
  const int cs = 4 * h;
  __m512d a =
      _mm512_add_pd(_mm512_mul_pd(load8(J, h), T[0]), _mm512_mul_pd(load8(J + cs, h), T[1]));
  __m512d b = _mm512_add_pd(_mm512_mul_pd(load8(J + 2 * cs, h), T[2]),
                            _mm512_mul_pd(load8(J + 3 * cs, h), T[3]));
  __m512d c = _mm512_add_pd(_mm512_mul_pd(load8(J + 4 * cs, h), T[4]),
                            _mm512_mul_pd(load8(J + 5 * cs, h), T[5]));
  return _mm512_add_pd(_mm512_add_pd(a, b), c);
}

/* lane_dots in eight lanes (the same products and sums); compact and
 * isotropic layouts: jl gets J's nine columns (JL, slot 0's angular, slot
 * 1's), which the update reuses. */
PGS512 __m512d dots8(const double *JK, int h, int layout, const __m512d T0[6], const __m512d T1[6],
                     __m512d jl[9]) {
  const int cs = 4 * h;
  if (layout == WIDE_LAY_FULL) return _mm512_add_pd(dot6x8(JK, h, T0), dot6x8(JK + 6 * cs, h, T1));
#pragma GCC unroll 9
  for (int c = 0; c < 9; c++) jl[c] = load8(JK + cs * c, h);
  __m512d a0 = _mm512_add_pd(_mm512_mul_pd(jl[0], T0[0]), _mm512_mul_pd(jl[1], T0[1]));
  __m512d b0 = _mm512_add_pd(_mm512_mul_pd(jl[2], T0[2]), _mm512_mul_pd(jl[3], T0[3]));
  __m512d c0 = _mm512_add_pd(_mm512_mul_pd(jl[4], T0[4]), _mm512_mul_pd(jl[5], T0[5]));
  __m512d a1 = _mm512_add_pd(_mm512_mul_pd(jl[0], T1[0]), _mm512_mul_pd(jl[1], T1[1]));
  __m512d b1 = _mm512_sub_pd(_mm512_mul_pd(jl[6], T1[3]), _mm512_mul_pd(jl[2], T1[2]));
  __m512d c1 = _mm512_add_pd(_mm512_mul_pd(jl[7], T1[4]), _mm512_mul_pd(jl[8], T1[5]));
  return _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a0, b0), c0),
                       _mm512_add_pd(_mm512_sub_pd(b1, a1), c1));
}

/* row_step (pgs_lanes.c) in eight lanes: the row step at plan position k,
 * its columns at JK, sc the lanes' scalars (slot 0's and slot 1's inverse
 * masses, then angular scalars).  Returns max(m, the lanes' residuals),
 * + w * 0. */
PGS512 __m512d row_step8(const lane_arrays *a, int k, const double *JK, int h, int layout,
                         __m512d T0[6], __m512d T1[6], const __m512d sc[4], __m512d X[2],
                         __m512d m) {
  const __m512d zero = _mm512_setzero_pd();
  const int cs = 4 * h;
  __m512d x = load8(a->plan_x + k, h), lo, hi, d, jl[9];
  kind_bounds8(a, k, h, X, &lo, &hi, &d);
  __m512d bx = _mm512_add_pd(load8(a->plan_b + k, h), _mm512_mul_pd(d, x));
  __m512d w = _mm512_add_pd(bx, dots8(JK, h, layout, T0, T1, jl));
  __m512d r = abs8(_mm512_max_pd(_mm512_min_pd(w, _mm512_sub_pd(x, lo)), _mm512_sub_pd(x, hi)));
  m = _mm512_add_pd(_mm512_max_pd(r, m), _mm512_mul_pd(w, zero));
  __m512d e = _mm512_mul_pd(w, load8(a->invd + k, h));
  e = _mm512_max_pd(_mm512_sub_pd(x, hi), _mm512_min_pd(_mm512_sub_pd(x, lo), e));
  __m512d xn = _mm512_max_pd(lo, _mm512_min_pd(hi, _mm512_sub_pd(x, e)));
  __mmask8 moved = _mm512_cmp_pd_mask(e, zero, _CMP_NEQ_UQ);
  __m512d xk = _mm512_mask_blend_pd(moved, x, xn); /* as pgs: x kept where e = 0 */
  if (h == 2)
    _mm512_store_pd(a->plan_x + k, xk);
  else
    _mm512_mask_storeu_pd(a->plan_x + k, 0x0f, xk);
  X[1] = X[0];
  X[0] = xk;
  if (layout != WIDE_LAY_FULL) {
#pragma GCC unroll 3
    for (int c = 0; c < 3; c++) {
      __m512d k0 =
          layout == WIDE_LAY_ISO ? _mm512_mul_pd(sc[2], jl[3 + c]) : load8(JK + cs * (9 + c), h);
      __m512d k1 =
          layout == WIDE_LAY_ISO ? _mm512_mul_pd(sc[3], jl[6 + c]) : load8(JK + cs * (12 + c), h);
      T0[c] = _mm512_sub_pd(T0[c], _mm512_mul_pd(e, _mm512_mul_pd(sc[0], jl[c])));
      T1[c] = _mm512_add_pd(T1[c], _mm512_mul_pd(e, _mm512_mul_pd(sc[1], jl[c])));
      T0[3 + c] = _mm512_sub_pd(T0[3 + c], _mm512_mul_pd(e, k0));
      T1[3 + c] = _mm512_sub_pd(T1[3 + c], _mm512_mul_pd(e, k1));
    }
  } else {
#pragma GCC unroll 6
    for (int c = 0; c < 6; c++) {
      T0[c] = _mm512_sub_pd(T0[c], _mm512_mul_pd(e, load8(JK + cs * (12 + c), h)));
      T1[c] = _mm512_sub_pd(T1[c], _mm512_mul_pd(e, load8(JK + cs * (18 + c), h)));
    }
  }
  return m;
}

/* Slot s's scalars of the batch's eight lanes (im: the batch's 16 inverse
 * masses, or angular scalars). */
PGS512 __m512d masses8(const double *im, int slot, int h) {
  __m256d lo = _mm256_load_pd(im + 4 * slot);
  if (h == 1) return _mm512_insertf64x4(_mm512_setzero_pd(), lo, 0);
  return _mm512_insertf64x4(_mm512_castpd256_pd512(lo), _mm256_load_pd(im + 8 + 4 * slot), 1);
}

/* masses8 of a batch whose 16 scalars are +0 or c (wide_bsc): the same
 * eight values. */
PGS512 __m512d scalars8(double c, unsigned mask, int slot, int h) {
  unsigned m8 = ((mask >> 4 * slot) & 0xf) | (h == 2 ? ((mask >> (8 + 4 * slot)) & 0xf) << 4 : 0);
  return _mm512_maskz_mov_pd((__mmask8)m8, _mm512_set1_pd(c));
}

/* One batch of h halves: gather, its row steps, scatter; its scalars from
 * q where it has them in short, else from im and ia. */
PGS512 __m512d batch8(const lane_arrays *a, double *const *tp, const double *im, const double *ia,
                      const wide_bsc *q, int k, int L, int h, int layout, __m512d m) {
  const size_t S = wide_cols(layout);
  const double *JK = a->JK + S * (size_t)k;
  __m512d T0[6], T1[6], X[2] = { _mm512_setzero_pd(), _mm512_setzero_pd() };
  __m512d sc[4];
  if (layout != WIDE_LAY_FULL) {
    if (q->ok_m) {
      sc[0] = scalars8(q->cm, q->mm, 0, h);
      sc[1] = scalars8(q->cm, q->mm, 1, h);
    } else {
      sc[0] = masses8(im, 0, h);
      sc[1] = masses8(im, 1, h);
    }
  }
  if (layout == WIDE_LAY_ISO) {
    if (q->ok_a) {
      sc[2] = scalars8(q->ca, q->ma, 0, h);
      sc[3] = scalars8(q->ca, q->ma, 1, h);
    } else {
      sc[2] = masses8(ia, 0, h);
      sc[3] = masses8(ia, 1, h);
    }
  }
  gather8(tp, h, T0);
  gather8(tp + 4, h, T1);
  for (int r = 0; r < L; r++, k += 4 * h, JK += 4 * h * S)
    m = row_step8(a, k, JK, h, layout, T0, T1, sc, X, m);
  scatter8(tp, h, T0);
  scatter8(tp + 4, h, T1);
  return m;
}

/* Batches [bt0, bt1) (the AVX2 lanes' sweep_lanes_as). */
PGS512 double sweep8_as(wide_state *s, int bt0, int bt1, double *poison, int layout, int ahead) {
  const lane_arrays a = { s->plan_x, s->lo, s->hi,         s->mu,         s->plan_b,  s->plan_d,
                          s->invd,   s->JK, s->findex_pos, s->findex_sel, s->row_kind };
  __m512d m = _mm512_setzero_pd();
  double *const *ptp = s->batch_t;
  for (int bt = bt0; bt < bt0 + ahead && bt < bt1; bt++) prefetch_blocks(ptp + 16 * (size_t)bt);
  for (int bt = bt0; bt < bt1; bt++) {
    double *const *tp = ptp + 16 * (size_t)bt;
    const double *im = s->inv_mass + 16 * (size_t)bt, *ia = s->ang_scalar + 16 * (size_t)bt;
    if (ahead && bt + ahead < bt1) prefetch_blocks(tp + 16 * (size_t)ahead);
    if (s->batch_halves[bt] == 2)
      m = batch8(&a, tp, im, ia, s->batch_scalars + bt, s->batch_first[bt], s->batch_steps[bt], 2,
                 layout, m);
    else
      m = batch8(&a, tp, im, ia, s->batch_scalars + bt, s->batch_first[bt], s->batch_steps[bt], 1,
                 layout, m);
  }
  double mm[8];
  _mm512_storeu_pd(mm, m);
  double r = mm[0];
  for (int l = 0; l < 8; l++) {
    *poison += mm[l] * 0.0;
    if (mm[l] > r) r = mm[l];
  }
  return r;
}

__attribute__((target("avx512f,avx512dq,prfchw"))) static double sweep8_w(wide_state *s, int bt0,
                                                                          int bt1, double *poison) {
  if (s->layout == WIDE_LAY_ISO) return sweep8_as(s, bt0, bt1, poison, WIDE_LAY_ISO, WIDE_PREFETCH);
  return s->layout == WIDE_LAY_COMPACT
             ? sweep8_as(s, bt0, bt1, poison, WIDE_LAY_COMPACT, WIDE_PREFETCH)
             : sweep8_as(s, bt0, bt1, poison, WIDE_LAY_FULL, WIDE_PREFETCH);
}

__attribute__((target("avx512f,avx512dq"))) double wide_sweep_lanes512(wide_state *s, int bt0,
                                                                       int bt1, double *poison) {
  if (s->np > 1 && s->prfchw) return sweep8_w(s, bt0, bt1, poison);
  int ahead = s->np > 1 ? WIDE_PREFETCH : 0;
  if (s->layout == WIDE_LAY_ISO) return sweep8_as(s, bt0, bt1, poison, WIDE_LAY_ISO, ahead);
  return s->layout == WIDE_LAY_COMPACT ? sweep8_as(s, bt0, bt1, poison, WIDE_LAY_COMPACT, ahead)
                                       : sweep8_as(s, bt0, bt1, poison, WIDE_LAY_FULL, ahead);
}


/* ---- the check and K^T x in eight lanes ---- */

/* The check's four maxima (and the poison) in eight lanes: check_lanes's
 * lane_check_acc (pgs_lanes.c). */
typedef struct {
  __m512d res, scaled, poison, bmax;
} check_acc8;

/* slv_quot of eight lanes: a / s, +0 where a = 0 (lane_quot's bits). */
PGS512 __m512d quot8(__m512d a, __m512d s) {
  return _mm512_maskz_div_pd(_mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_NEQ_UQ), a, s);
}

/* check_step (pgs_lanes.c) in eight lanes at plan position k: w = (d x +
 * J . t) + b, slv_fac_row's sum and then b; the natural map's and the
 * scale-invariant measure's terms of the lanes, the poison (x + w) * 0
 * and |b| into acc, with check_step's operations in its order (xs, cap in
 * every lane).  The bounds and d by the row kinds as the sweep reads them
 * (kind_bounds8: the same values, fewer bytes); X as the sweep's, x
 * unchanged. */
PGS512 void check_step8(const lane_arrays *a, const double *aii, int k, const double *JK, int h,
                        int layout, const __m512d T0[6], const __m512d T1[6], __m512d X[2],
                        __m512d xs, __m512d cap, check_acc8 *acc) {
  const __m512d zero = _mm512_setzero_pd();
  __m512d x = load8(a->plan_x + k, h), b = load8(a->plan_b + k, h), lo, hi, d, jl[9];
  kind_bounds8(a, k, h, X, &lo, &hi, &d);
  X[1] = X[0];
  X[0] = x;
  __m512d w =
      _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(d, x), dots8(JK, h, layout, T0, T1, jl)), b);
  acc->poison = _mm512_add_pd(acc->poison, _mm512_mul_pd(_mm512_add_pd(x, w), zero));
  __m512d r = _mm512_max_pd(_mm512_min_pd(w, _mm512_sub_pd(x, lo)), _mm512_sub_pd(x, hi));
  acc->res = _mm512_max_pd(acc->res, abs8(r));
  acc->bmax = _mm512_max_pd(acc->bmax, abs8(b));
  __m512d s = _mm512_add_pd(_mm512_add_pd(abs8(b), abs8(_mm512_sub_pd(w, b))),
                            _mm512_mul_pd(load8(aii + k, h), cap));
  __m512d wh = quot8(w, s), xa = quot8(_mm512_sub_pd(x, hi), xs);
  __m512d xc = quot8(_mm512_sub_pd(x, lo), xs);
  acc->scaled = _mm512_max_pd(acc->scaled, abs8(_mm512_max_pd(_mm512_min_pd(wh, xc), xa)));
}

PGS512 void check8_as(const wide_state *s, double xs, double cap, double *pm, int layout) {
  const lane_arrays a = { s->plan_x, s->lo, s->hi,         s->mu,         s->plan_b,  s->plan_d,
                          s->invd,   s->JK, s->findex_pos, s->findex_sel, s->row_kind };
  const __m512d vxs = _mm512_set1_pd(xs), vcap = _mm512_set1_pd(cap), zero = _mm512_setzero_pd();
  check_acc8 acc = { zero, zero, zero, zero };
  const size_t S = wide_cols(layout);
  for (int bt = 0; bt < s->nbat; bt++) {
    double *const *tp = s->batch_t + 16 * (size_t)bt;
    int k = s->batch_first[bt], L = s->batch_steps[bt], h = s->batch_halves[bt];
    const double *JK = s->JK + S * (size_t)k;
    __m512d T0[6], T1[6], X[2] = { zero, zero };
    gather8(tp, h, T0);
    gather8(tp + 4, h, T1);
    for (int r = 0; r < L; r++, k += 4 * h, JK += 4 * h * S)
      check_step8(&a, s->aii, k, JK, h, layout, T0, T1, X, vxs, vcap, &acc);
  }
  double v[4][8];
  _mm512_storeu_pd(v[0], acc.res);
  _mm512_storeu_pd(v[1], acc.scaled);
  _mm512_storeu_pd(v[2], acc.poison);
  _mm512_storeu_pd(v[3], acc.bmax);
  wide_check_fold(pm, v[0], 8);
}

__attribute__((target("avx512f,avx512dq"))) void wide_check_lanes512(const wide_state *s, double xs,
                                                                     double cap, double *pm) {
  if (s->layout == WIDE_LAY_ISO)
    check8_as(s, xs, cap, pm, WIDE_LAY_ISO);
  else if (s->layout == WIDE_LAY_COMPACT)
    check8_as(s, xs, cap, pm, WIDE_LAY_COMPACT);
  else
    check8_as(s, xs, cap, pm, WIDE_LAY_FULL);
}

/* ktx_half (pgs_lanes.c) over both halves at once: per lane the sum over
 * its group's rows in row order of K_i x_i from 0 (slot 0 in A0, slot 1 in
 * A1), then added to the lanes' blocks (slot 0's, then slot 1's: a batch's
 * lanes hold distinct blocks but for the idle one, to which every lane
 * adds +0). */
PGS512 void ktx_batch8(const double *xp, double *const *tp, const double *JK, int k, int L, int h,
                       int layout, const __m512d sc[4]) {
  const size_t S = wide_cols(layout);
  const int cs = 4 * h;
  __m512d A0[6], A1[6], T[6];
#pragma GCC unroll 6
  for (int c = 0; c < 6; c++) A0[c] = A1[c] = _mm512_setzero_pd();
  for (int r = 0; r < L; r++, k += 4 * h, JK += 4 * h * S) {
    __m512d x = load8(xp + k, h);
    if (layout != WIDE_LAY_FULL) {
#pragma GCC unroll 3
      for (int c = 0; c < 3; c++) {
        __m512d jl = load8(JK + cs * c, h);
        __m512d k0 = layout == WIDE_LAY_ISO ? _mm512_mul_pd(sc[2], load8(JK + cs * (3 + c), h))
                                            : load8(JK + cs * (9 + c), h);
        __m512d k1 = layout == WIDE_LAY_ISO ? _mm512_mul_pd(sc[3], load8(JK + cs * (6 + c), h))
                                            : load8(JK + cs * (12 + c), h);
        A0[c] = _mm512_add_pd(A0[c], _mm512_mul_pd(_mm512_mul_pd(sc[0], jl), x));
        A1[c] = _mm512_sub_pd(A1[c], _mm512_mul_pd(_mm512_mul_pd(sc[1], jl), x));
        A0[3 + c] = _mm512_add_pd(A0[3 + c], _mm512_mul_pd(k0, x));
        A1[3 + c] = _mm512_add_pd(A1[3 + c], _mm512_mul_pd(k1, x));
      }
    } else {
#pragma GCC unroll 6
      for (int c = 0; c < 6; c++) {
        A0[c] = _mm512_add_pd(A0[c], _mm512_mul_pd(load8(JK + cs * (12 + c), h), x));
        A1[c] = _mm512_add_pd(A1[c], _mm512_mul_pd(load8(JK + cs * (18 + c), h), x));
      }
    }
  }
  gather8(tp, h, T);
#pragma GCC unroll 6
  for (int c = 0; c < 6; c++) T[c] = _mm512_add_pd(T[c], A0[c]);
  scatter8(tp, h, T);
  gather8(tp + 4, h, T);
#pragma GCC unroll 6
  for (int c = 0; c < 6; c++) T[c] = _mm512_add_pd(T[c], A1[c]);
  scatter8(tp + 4, h, T);
}

PGS512 void ktx8_as(const wide_state *s, int layout) {
  const size_t S = wide_cols(layout);
  for (int bt = 0; bt < s->nbat; bt++) {
    const double *im = s->inv_mass + 16 * (size_t)bt, *ia = s->ang_scalar + 16 * (size_t)bt;
    int k = s->batch_first[bt], h = s->batch_halves[bt];
    __m512d sc[4] = { masses8(im, 0, h), masses8(im, 1, h), masses8(ia, 0, h), masses8(ia, 1, h) };
    ktx_batch8(s->plan_x, s->batch_t + 16 * (size_t)bt, s->JK + S * (size_t)k, k,
               s->batch_steps[bt], h, layout, sc);
  }
}

__attribute__((target("avx512f,avx512dq"))) void wide_ktx_lanes512(const wide_state *s) {
  if (s->layout == WIDE_LAY_ISO)
    ktx8_as(s, WIDE_LAY_ISO);
  else if (s->layout == WIDE_LAY_COMPACT)
    ktx8_as(s, WIDE_LAY_COMPACT);
  else
    ktx8_as(s, WIDE_LAY_FULL);
}

#endif
