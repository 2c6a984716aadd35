/* pgs_plan.c -- the plan of pgs_wide, pgs_color and pgs_part (pgs_lanes.h):
 * the groups' batches in sweep order and laid out in plan positions, each
 * position's row data, the lanes' J and K columns (full or compact), the
 * rigid-body masses behind the compact layout, and the row sizes of the
 * convergence measure.  Built once per solve into the state's buffers,
 * nothing allocated; the design: pgs_wide.c ("Layout", "Threads"),
 * pgs_color.c, pgs_part.c.
 */
#include "pgs_lanes.h"

/* The batches of levels (or colours) 0 .. nl - 1 of the ng groups: each
 * level's groups, held in rowb by their level and counted in s->next_free,
 * cut into batches of up to eight in group order.  Sets s->level_first[l] (the
 * first batch of level l, s->level_first[nl] = nbat), s->nbat, s->nlev, s->batch_count[bt]
 * (the groups of batch bt) and rowb (the batch of each row's group). */
void wide_levels_into_batches(wide_state *s, int ng, int nl) {
  int *per = s->next_free;
  s->level_first[0] = 0;
  for (int l = 0; l < nl; l++) {
    s->level_first[l + 1] = s->level_first[l] + (per[l] + WIDE_BATCH - 1) / WIDE_BATCH;
    per[l] = 0;
  }
  s->nbat = s->level_first[nl];
  s->nlev = nl;
  memset(s->batch_count, 0, ((size_t)s->nbat + 1) * sizeof *s->batch_count);
  for (int g = 0; g < ng; g++) { /* the level's next batch with a free lane, in group order */
    int i = s->group_first[g], l = s->row_batch[i];
    if (l == WIDE_SEQ) continue;
    int bt = s->level_first[l] + per[l]++ / WIDE_BATCH;
    s->batch_count[bt]++;
    for (int r = i; r < s->group_first[g + 1]; r++) s->row_batch[r] = bt;
  }
}

#if PGS_WIDE_X86

/* Columns c0..c0+3 of the rows at r[0..3] into four 4-lane columns at
 * out, out + cs, out + 2 cs, out + 3 cs (a 4x4 transpose); lane l of the
 * first two columns kept where ma has it set, of the last two where mb
 * has, else 0. */
__attribute__((target("avx2"))) static inline void tr4(const double *const r[4], int c0, __m256d ma,
                                                       __m256d mb, double *out, int cs) {
  __m256d a = _mm256_loadu_pd(r[0] + c0), b = _mm256_loadu_pd(r[1] + c0);
  __m256d c = _mm256_loadu_pd(r[2] + c0), d = _mm256_loadu_pd(r[3] + c0);
  __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
  __m256d t2 = _mm256_unpacklo_pd(c, d), t3 = _mm256_unpackhi_pd(c, d);
  _mm256_store_pd(out, _mm256_and_pd(ma, _mm256_permute2f128_pd(t0, t2, 0x20)));
  _mm256_store_pd(out + cs, _mm256_and_pd(ma, _mm256_permute2f128_pd(t1, t3, 0x20)));
  _mm256_store_pd(out + 2 * cs, _mm256_and_pd(mb, _mm256_permute2f128_pd(t0, t2, 0x31)));
  _mm256_store_pd(out + 3 * cs, _mm256_and_pd(mb, _mm256_permute2f128_pd(t1, t3, 0x31)));
}

/* J . K over one slot of the four lanes, from their columns (column c at
 * J + cs c, K + cs c): slv_dot6's products and association. */
__attribute__((target("avx2"))) static inline __m256d diag6(const double *J, const double *K,
                                                            int cs) {
  __m256d p[6];
  for (int c = 0; c < 6; c++)
    p[c] = _mm256_mul_pd(_mm256_load_pd(J + cs * c), _mm256_load_pd(K + cs * c));
  __m256d a = _mm256_add_pd(p[0], p[1]), b = _mm256_add_pd(p[2], p[3]);
  return _mm256_add_pd(_mm256_add_pd(a, b), _mm256_add_pd(p[4], p[5]));
}

/* All ones in the lanes where a and b have the same 64 bits. */
__attribute__((target("avx2"), always_inline)) static inline __m256d same_bits(__m256d a,
                                                                               __m256d b) {
  return _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_castpd_si256(a), _mm256_castpd_si256(b)));
}

/* wide_plan()'s J and K columns of the four lanes at plan position k, by 4x4
 * transposes: the same values as its scalar loop (moves and masks only).
 * A row's 12 columns are slot 0's six then slot 1's; a static slot
 * (fblk < 0) and an idle lane get zeros, whatever fJ, fK hold there.  out:
 * the half's first column in JK, column c at out + cs c (pgs_wide.c,
 * "Layout": cs = 4 h, the lanes of a row step's halves side by side).  lb,
 * im and ia: the half's blocks of slot 0 then slot 1, their inverse masses
 * and angular scalars (lay_out, lane_scalars; a lane's rows share its
 * blocks), which hold for the lane's busy positions.  It also sets A_ii
 * (aii) and omega / A_ii, four lanes per operation: A_ii from aii when
 * slv_solve's validation left them (operator.h, slv_op), else formed from
 * the columns while they are in cache as slv_fac_diag's d + (s0 + s1) (a
 * static slot's zeros give its s = 0.0); omega / A_ii as slv_pgs_step's
 * omega * (1 / A_ii), the same IEEE operations, so the same bits; 0 on
 * idle lanes.  layout compact or isotropic: writes that layout instead
 * (pgs_wide.c, "Layout") and returns ok and-ed with whether each lane's
 * row has the form it needs (else JK is unusable). */
__attribute__((target("avx2"), always_inline)) static inline __m256d
fill_jk_step(wide_state *s, const slv_fac *f, const double *aii, int k, double *out, int cs,
             const int *lb, const double *im, const double *ia, __m256d om, int layout,
             __m256d ok) {
  const int compact = layout != WIDE_LAY_FULL;
  const __m256d one = _mm256_set1_pd(1.0), sign = _mm256_set1_pd(-0.0);
  const __m256d all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  const __m256i none = _mm256_set1_epi64x(-1);
  static const double zero_row[12] = { 0 };
  double tmp[96] __attribute__((aligned(32)));
  const double *J[4], *K[4];
  for (int l = 0; l < 4; l++) {
    int i = s->order[k + l];
    J[l] = i >= 0 ? f->J + 12 * (size_t)i : zero_row;
    K[l] = i >= 0 ? f->K + 12 * (size_t)i : zero_row;
  }
  /* 64-bit masks: the position is busy, and its slot is on a block */
  __m256d busy = _mm256_castsi256_pd(_mm256_cmpgt_epi64(
      _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(s->order + k))), none));
  __m256d M0 =
      _mm256_and_pd(busy, _mm256_castsi256_pd(_mm256_cmpgt_epi64(
                              _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)lb)), none)));
  __m256d M1 = _mm256_and_pd(
      busy, _mm256_castsi256_pd(_mm256_cmpgt_epi64(
                _mm256_cvtepi32_epi64(_mm_loadu_si128((const __m128i *)(lb + 4))), none)));
  /* the full layout: J's 12 columns, then K's; compact: that in tmp
   * (4 doubles a column), then the compact columns from it */
  double *JK = compact ? tmp : out;
  const int w = compact ? 4 : cs;
  for (int h = 0; h < 2; h++) { /* J, then K 12 columns further */
    const double *const *src = h ? K : J;
    tr4(src, 0, M0, M0, JK + 12 * w * h, w);
    tr4(src, 4, M0, M1, JK + 12 * w * h + 4 * w, w);
    tr4(src, 8, M1, M1, JK + 12 * w * h + 8 * w, w);
  }
  __m256d d =
      aii /* the validation's A_ii (0 at idle positions), or formed here */
          ? _mm256_mask_i32gather_pd(_mm256_setzero_pd(), aii,
                                     _mm_loadu_si128((const __m128i *)(s->order + k)), busy, 8)
          : _mm256_add_pd(
                _mm256_load_pd(s->plan_d + k),
                _mm256_add_pd(diag6(JK, JK + 12 * w, w), diag6(JK + 6 * w, JK + 18 * w, w)));
  _mm256_store_pd(s->invd + k, _mm256_and_pd(busy, _mm256_mul_pd(om, _mm256_div_pd(one, d))));
  _mm256_store_pd(s->aii + k, _mm256_and_pd(busy, d));
  if (!compact) return ok;
  /* the compact form: K's linear columns bm J's, and J's of slot 1
   * minus slot 0's when both are bodies (a static slot's are zeros);
   * isotropic, K's angular columns ba J's too, to the bit (signs of zero:
   * the sweep forms them so) */
  __m256d I0 = _mm256_and_pd(M0, _mm256_loadu_pd(im)),
          I1 = _mm256_and_pd(M1, _mm256_loadu_pd(im + 4));
  __m256d A0 = _mm256_and_pd(M0, _mm256_loadu_pd(ia)),
          A1 = _mm256_and_pd(M1, _mm256_loadu_pd(ia + 4));
  __m256d both = _mm256_and_pd(M0, M1);
  for (int c = 0; c < 3; c++) {
    __m256d j0 = _mm256_load_pd(tmp + 4 * c), j1 = _mm256_load_pd(tmp + 24 + 4 * c);
    __m256d k0 = _mm256_load_pd(tmp + 48 + 4 * c), k1 = _mm256_load_pd(tmp + 72 + 4 * c);
    __m256d nj1 = _mm256_xor_pd(j1, sign);
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(k0, _mm256_mul_pd(I0, j0), _CMP_EQ_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(k1, _mm256_mul_pd(I1, j1), _CMP_EQ_OQ));
    ok = _mm256_and_pd(
        ok, _mm256_or_pd(_mm256_cmp_pd(j0, nj1, _CMP_EQ_OQ), _mm256_andnot_pd(both, all)));
    _mm256_store_pd(out + cs * c, _mm256_blendv_pd(nj1, j0, M0)); /* JL */
    /* J slot 0's, J slot 1's, K slot 0's and K slot 1's angular columns */
    __m256d a0 = _mm256_load_pd(tmp + 12 + 4 * c), a1 = _mm256_load_pd(tmp + 36 + 4 * c);
    __m256d g0 = _mm256_load_pd(tmp + 60 + 4 * c), g1 = _mm256_load_pd(tmp + 84 + 4 * c);
    _mm256_store_pd(out + cs * (3 + c), a0);
    _mm256_store_pd(out + cs * (6 + c), a1);
    if (layout == WIDE_LAY_ISO) {
      ok = _mm256_and_pd(ok, same_bits(g0, _mm256_mul_pd(A0, a0)));
      ok = _mm256_and_pd(ok, same_bits(g1, _mm256_mul_pd(A1, a1)));
    } else {
      _mm256_store_pd(out + cs * (9 + c), g0);
      _mm256_store_pd(out + cs * (12 + c), g1);
    }
  }
  return ok;
}

/* The fsel byte of the half row step at position k (row step r of a
 * batch of h halves): bit l when lane l's findex row sits one row step
 * before in the same lane (a contact's normal before its friction rows),
 * bit 4 + l two row steps before; only for busy findex positions (mu >= 0;
 * an idle one's mu is -1). */
__attribute__((target("avx2"), always_inline)) static inline unsigned
findex_in_lane(const wide_state *s, int k, int r, int h) {
  __m128i f = _mm_loadu_si128((const __m128i *)(s->findex_pos + k));
  __m128i own = _mm_add_epi32(_mm_set1_epi32(k), _mm_setr_epi32(0, 1, 2, 3));
  unsigned fx = ~(unsigned)_mm256_movemask_pd(_mm256_load_pd(s->mu + k)) & 0xf;
  unsigned one = (unsigned)_mm_movemask_ps(
      _mm_castsi128_ps(_mm_cmpeq_epi32(f, _mm_sub_epi32(own, _mm_set1_epi32(4 * h)))));
  unsigned two = (unsigned)_mm_movemask_ps(
      _mm_castsi128_ps(_mm_cmpeq_epi32(f, _mm_sub_epi32(own, _mm_set1_epi32(8 * h)))));
  return (r >= 1 ? one & fx : 0) | (r >= 2 ? (two & fx) << 4 : 0);
}

/* The rk byte of the half row step at position k (pgs_lanes.h, WIDE_RK_N),
 * from the bits fill_rows stored. */
__attribute__((target("avx2"), always_inline)) static inline unsigned row_kind(const wide_state *s,
                                                                               int k) {
  const __m256i zero = _mm256_setzero_si256(), inf = _mm256_set1_epi64x(0x7ff0000000000000);
  __m256i lo = _mm256_load_si256((const __m256i *)(s->lo + k));
  __m256i hi = _mm256_load_si256((const __m256i *)(s->hi + k));
  __m256i fd = _mm256_load_si256((const __m256i *)(s->plan_d + k));
  unsigned plain = (unsigned)_mm256_movemask_pd(_mm256_load_pd(s->mu + k));
  unsigned lo0 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(lo, zero)));
  unsigned fd0 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(fd, zero)));
  unsigned hinf = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(hi, inf)));
  unsigned hi0 = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(hi, zero)));
  unsigned n = plain == 0xf && lo0 == 0xf && fd0 == 0xf && (hinf | hi0) == 0xf;
  unsigned f = plain == 0 && fd0 == 0xf;
  return hinf | (n ? WIDE_RK_N : 0u) | (f ? WIDE_RK_F : 0u);
}

/* The one value other than +0 of the n scalars at v (*c, 0 if none) and
 * the mask of the entries that hold it; 0 if they hold two or more. */
static int one_scalar(const double *v, int n, double *c, uint16_t *mask) {
  uint64_t cb = 0;
  unsigned m = 0;
  for (int at = 0; at < n; at++) {
    uint64_t u;
    memcpy(&u, v + at, sizeof u);
    if (u == 0) continue;
    if (cb != 0 && u != cb) return 0;
    cb = u;
    m |= 1u << at;
  }
  memcpy(c, &cb, sizeof cb);
  *mask = (uint16_t)m;
  return 1;
}

/* Batch bt's wide_bsc (pgs_lanes.h) from its im and ia, the 8 h entries a
 * batch of h halves uses. */
static void batch_scalars(wide_state *s, int bt, int h) {
  wide_bsc *q = s->batch_scalars + bt;
  q->ok_m = (uint8_t)one_scalar(s->inv_mass + 16 * (size_t)bt, 8 * h, &q->cm, &q->mm);
  q->ok_a = (uint8_t)one_scalar(s->ang_scalar + 16 * (size_t)bt, 8 * h, &q->ca, &q->ma);
}

/* fill_jk over batches [bt0, bt1) of the layout and halves (h) given:
 * the column stride 4 h and the layout known to the compiler. */
__attribute__((target("avx2"), always_inline)) static inline __m256d
fill_jk_as(wide_state *s, const slv_fac *f, const double *aii, __m256d om, int layout, int h,
           int bt0, int bt1, __m256d ok) {
  const size_t S = wide_cols(layout);
  const int w512 = s->lanes512; /* rk and bsc are the AVX-512 sweep's only */
  for (int bt = bt0; bt < bt1; bt++) {
    if (s->batch_halves[bt] != h) continue;
    if (w512 && layout != WIDE_LAY_FULL) batch_scalars(s, bt, h); /* else im, ia not made */
    const int *lb = s->entry_block + 16 * (size_t)bt;
    const double *im = s->inv_mass + 16 * (size_t)bt, *ia = s->ang_scalar + 16 * (size_t)bt;
    for (int r = 0, k = s->batch_first[bt]; r < s->batch_steps[bt]; r++, k += 4 * h)
      for (int u = 0; u < h; u++) {
        ok = fill_jk_step(s, f, aii, k + 4 * u, s->JK + S * (size_t)k + 4 * u, 4 * h, lb + 8 * u,
                          im + 8 * u, ia + 8 * u, om, layout, ok);
        s->findex_sel[(k + 4 * u) / 4] = (unsigned char)findex_in_lane(s, k + 4 * u, r, h);
        if (w512) s->row_kind[(k + 4 * u) / 4] = (unsigned char)row_kind(s, k + 4 * u);
      }
  }
  return ok;
}

/* fill_jk_step over the positions of batches [bt0, bt1), and each half
 * row step's fsel and rk; compact or isotropic layout: 1 if every row has its
 * form, else 0. */
__attribute__((target("avx2"))) static int fill_jk(wide_state *s, const slv_fac *f,
                                                   const double *aii, double omega, int layout,
                                                   int bt0, int bt1) {
  const __m256d om = _mm256_set1_pd(omega);
  __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  if (layout == WIDE_LAY_ISO) {
    ok = fill_jk_as(s, f, aii, om, WIDE_LAY_ISO, 1, bt0, bt1, ok);
    ok = fill_jk_as(s, f, aii, om, WIDE_LAY_ISO, 2, bt0, bt1, ok);
  } else if (layout == WIDE_LAY_COMPACT) {
    ok = fill_jk_as(s, f, aii, om, WIDE_LAY_COMPACT, 1, bt0, bt1, ok);
    ok = fill_jk_as(s, f, aii, om, WIDE_LAY_COMPACT, 2, bt0, bt1, ok);
  } else {
    ok = fill_jk_as(s, f, aii, om, WIDE_LAY_FULL, 1, bt0, bt1, ok);
    ok = fill_jk_as(s, f, aii, om, WIDE_LAY_FULL, 2, bt0, bt1, ok);
  }
  return _mm256_movemask_pd(ok) == 0xf;
}

#endif

/* The groups in sweep order: by batch, stable, the sequential groups last
 * (a counting sort; cnt[b] holds batch b's group count on entry, where
 * batch b ends in gsorted on return). */
static void sort_groups(wide_state *s, int ng) {
  int *cnt = s->batch_count;
  const int *gf = s->group_first;
  for (int b = 0, acc = 0; b < s->nbat; b++) {
    int c = cnt[b];
    cnt[b] = acc;
    acc += c;
  }
  int q = 0;
  for (int g = 0; g < ng; g++)
    if (s->row_batch[gf[g]] != WIDE_SEQ) s->group_order[cnt[s->row_batch[gf[g]]]++] = g, q++;
  for (int g = 0; g < ng; g++)
    if (s->row_batch[gf[g]] == WIDE_SEQ) s->group_order[q++] = g;
}

/* The threaded plan's parts (s->part_first): each level's batches cut into s->np
 * contiguous runs of about equal work, a batch's work taken as its plan
 * positions (halves x row steps: a batch of four-point box manifolds,
 * 12 row steps, is four times one of single contacts).  Uses s->batch_first as
 * scratch (lay_out sets it afterwards). */
static void split_levels(wide_state *s, int from) {
  const int np = s->np, *gf = s->group_first;
  int *w = s->batch_first;
  for (int bt = 0, q = 0; bt < s->nbat; bt++) {
    int m = s->batch_count[bt] - q, L = 0; /* cnt[bt]: the end of batch bt in gsorted */
    for (int l = 0; l < m; l++) {
      int g = s->group_order[q + l];
      if (gf[g + 1] - gf[g] > L) L = gf[g + 1] - gf[g];
    }
    w[bt] = (m > 4 ? 2 : 1) * L;
    q += m;
  }
  for (int l = from; l < s->nlev; l++) {
    int b0 = s->level_first[l], b1 = s->level_first[l + 1], u = 0;
    long long tot = 0, acc = 0;
    for (int bt = b0; bt < b1; bt++) tot += w[bt];
    for (int bt = b0; bt < b1; acc += w[bt++])
      while (u < np && acc * np >= tot * u) s->part_first[np * l + u++] = bt;
    while (u < np) s->part_first[np * l + u++] = b1;
  }
  s->part_first[np * s->nlev] = s->nbat;
}

/* The batches: up to eight groups each, in one or two halves of four
 * lanes, each lane's t blocks and their blocks' numbers; then the
 * sequential rows.  Sets order, bk, bL, bh, tp, lblk, ncol and len.  A
 * batch of two halves starts at a position that is a multiple of 8 (four
 * idle positions before it if need be, in no batch), so that its row
 * steps' x, b, bounds and columns lie on 64-byte lines (the AVX-512
 * lanes load a row step whole: pgs_sweep512.c).
 * Static slots and idle lanes point at the idle block of the part that
 * sweeps their batch (the threaded plan), so no two threads store to it. */
static void lay_out(wide_state *s, const slv_op *op, int ng) {
  const int *gf = s->group_first, *cnt = s->batch_count;
  int k = 0, q = 0, part = 0;
  memset(s->idle, 0, WIDE_PAD * (size_t)s->np * sizeof *s->idle);
  for (int bt = 0; bt < s->nbat; bt++) {
    if (s->np > 1) /* the part (of a level) that holds batch bt */
      while (bt >= s->part_first[part + 1]) part++;
    double *idle = s->idle + WIDE_PAD * (size_t)(part % s->np);
    int m = cnt[bt] - q, L = 0; /* cnt[bt] is the end of batch bt in gsorted */
    for (int l = 0; l < m; l++) {
      int g = s->group_order[q + l];
      if (gf[g + 1] - gf[g] > L) L = gf[g + 1] - gf[g];
    }
    int h = m > 4 ? 2 : 1;    /* halves; lane l of half u is column 4 u + l of a row step */
    if (h == 2 && k % 8 != 0) /* a row step of eight on a 64-byte line: 4 idle positions */
      for (int l = 0; l < 4; l++) s->order[k++] = -1;
    double **tp = s->batch_t + 16 * (size_t)bt;
    int *lb = s->entry_block + 16 * (size_t)bt;
    for (int at = 0; at < 16; at++) lb[at] = -1; /* a batch of one half uses 8 */
    for (int l = 0; l < 4 * h; l++) {
      int g = l < m ? s->group_order[q + l] : -1, i0 = g >= 0 ? gf[g] : 0;
      int len = g >= 0 ? gf[g + 1] - i0 : 0;
      for (int r = 0; r < L; r++) s->order[k + 4 * h * r + l] = r < len ? i0 + r : -1;
      for (int slot = 0; slot < 2; slot++) {
        int b = g >= 0 ? op->f.blk[2 * i0 + slot] : -1, at = 8 * (l / 4) + 4 * slot + l % 4;
        tp[at] = b >= 0 ? op->t + 6 * (size_t)b : idle;
        lb[at] = b;
      }
    }
    s->batch_first[bt] = k;
    s->batch_steps[bt] = L;
    s->batch_halves[bt] = h;
    k += 4 * h * L;
    q += m;
  }
  s->ncol = k;
  for (; q < ng; q++)
    for (int i = gf[s->group_order[q]]; i < gf[s->group_order[q] + 1]; i++) s->order[k++] = i;
  s->len = k;
}

/* rowb[] becomes the plan position of each row of positions [k0, k1). */
static void mark_rows(wide_state *s, int k0, int k1) {
  for (int k = k0; k < k1; k++)
    if (s->order[k] >= 0) s->row_batch[s->order[k]] = k;
}

#if PGS_WIDE_X86

/* fill_rows at the lanes' positions [k, k + 4) (below ncol, where
 * fill_jk forms A_ii and omega / A_ii of the busy ones), by AVX2 gathers:
 * the same values (copies, and fabs of mu).  An idle position's A_ii,
 * omega / A_ii and x are 0 (stored only there: a busy position's x is the
 * start's). */
__attribute__((target("avx2"), always_inline)) static inline void
fill_rows4(wide_state *s, const slv_op *op, int k) {
  const slv_problem *p = op->p;
  const __m128i m1 = _mm_set1_epi32(-1),
                own = _mm_add_epi32(_mm_set1_epi32(k), _mm_setr_epi32(0, 1, 2, 3));
  const __m256d zero = _mm256_setzero_pd(), inf = _mm256_set1_pd(INFINITY);
  __m128i i = _mm_loadu_si128((const __m128i *)(s->order + k));
  __m128i busy = _mm_cmpgt_epi32(i, m1);
  __m256d busyd = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(busy));
  __m128i f = p->findex ? _mm_mask_i32gather_epi32(m1, p->findex, i, busy, 4) : m1;
  __m128i fr = _mm_cmpgt_epi32(f, m1); /* a findex row */
  __m256d frd = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(fr));
  /* non-findex rows (and idle positions) read their own x (unused) */
  _mm_storeu_si128((__m128i *)(s->findex_pos + k),
                   _mm_mask_i32gather_epi32(own, s->row_batch, f, fr, 4));
  _mm256_storeu_pd(s->plan_b + k, _mm256_mask_i32gather_pd(zero, p->b, i, busyd, 8));
  _mm256_storeu_pd(s->lo + k, p->lo ? _mm256_mask_i32gather_pd(zero, p->lo, i, busyd, 8) : zero);
  _mm256_storeu_pd(s->hi + k, p->hi ? _mm256_mask_i32gather_pd(zero, p->hi, i, busyd, 8)
                                    : _mm256_and_pd(busyd, inf));
  /* mu: |mu_i| on findex rows, -1 elsewhere (the sign says "no findex") */
  __m256d mu = p->findex && p->mu ? _mm256_mask_i32gather_pd(zero, p->mu, i, frd, 8) : zero;
  _mm256_storeu_pd(s->mu + k, _mm256_blendv_pd(_mm256_set1_pd(-1.0),
                                               _mm256_andnot_pd(_mm256_set1_pd(-0.0), mu), frd));
  _mm256_storeu_pd(s->plan_d + k,
                   op->f.d ? _mm256_mask_i32gather_pd(zero, op->f.d, i, busyd, 8) : zero);
  if (_mm_movemask_ps(_mm_castsi128_ps(busy)) != 0xf) { /* idle positions: 0 */
    __m256i idle =
        _mm256_castpd_si256(_mm256_xor_pd(busyd, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))));
    _mm256_maskstore_pd(s->aii + k, idle, zero);
    _mm256_maskstore_pd(s->invd + k, idle, zero);
    _mm256_maskstore_pd(s->plan_x + k, idle, zero);
  }
}


/* fill_rows4 over the lanes' positions [k0, k1) while four are left;
 * returns the first position not filled. */
__attribute__((target("avx2"))) static int fill_rows_lanes(wide_state *s, const slv_op *op, int k0,
                                                           int k1) {
  for (; k0 + 4 <= k1; k0 += 4) fill_rows4(s, op, k0);
  return k0;
}
#endif

/* Plan positions [k0, k1)'s row data (after mark_rows of every position):
 * x's findex position, b, bounds, mu, d, and A_ii and omega / A_ii (except
 * in the lanes, where fill_jk forms them); an idle position's are 0, and
 * its x too, which no sweep moves (start_copy_all leaves it). */
static void fill_rows(wide_state *s, const slv_op *op, double omega, int k0, int k1) {
  const slv_problem *p = op->p;
#if PGS_WIDE_X86
  if (s->lanes) k0 = fill_rows_lanes(s, op, k0, k1 < s->ncol ? k1 : s->ncol);
#endif
  /* the state's fields in locals: the int stores (fpos) would make the
   * compiler read them again at every position */
  const int *order = s->order, *rowb = s->row_batch, *findex = p->findex;
  int *fpos = s->findex_pos;
  double *bp = s->plan_b, *invd = s->invd, *lo = s->lo, *hi = s->hi, *fd = s->plan_d, *aii = s->aii;
  double *mu = s->mu, *xp = s->plan_x;
  const int diag_from = s->lanes ? s->ncol : 0; /* fill_jk forms the lanes' */
  for (int k = k0; k < k1; k++) {
    int i = order[k];
    if (i < 0) {
      fpos[k] = k;
      bp[k] = invd[k] = lo[k] = hi[k] = fd[k] = aii[k] = xp[k] = 0.0; /* x stays 0 */
      mu[k] = -1.0;
      continue;
    }
    int f = findex ? findex[i] : -1;
    fpos[k] = f >= 0 ? rowb[f] : k; /* non-findex rows read their own x (unused) */
    bp[k] = p->b[i];
    if (k >= diag_from) {
      aii[k] = op->aii ? op->aii[i] : slv_fac_diag(&op->f, i);
      invd[k] = slv_pgs_step(omega, aii[k]);
    }
    lo[k] = slv_lo_of(p, i);
    hi[k] = slv_hi_of(p, i);
    mu[k] = f >= 0 ? fabs(p->mu[i]) : -1.0; /* the sign says "no findex" */
    fd[k] = op->f.d ? op->f.d[i] : 0.0;
  }
}

/* The rows' data of every plan position: on the plan's threads when it
 * has parts (part v of every level by one thread, the sequential rows as
 * part np; each position is written by one thread, with what one thread
 * would write). */
static void fill_all_rows(wide_state *s, const slv_op *op, double omega) {
  if (s->np == 1) {
    mark_rows(s, 0, s->len);
    fill_rows(s, op, omega, 0, s->len);
    return;
  }
  /* np + 1 pieces, the last the overflow rows: dealt round robin
   * (schedule(static, 1)), as plain static gives the first thread the
   * first two parts whole */
#pragma omp parallel num_threads(s->np)
  {
#pragma omp for schedule(static, 1)
    for (int v = 0; v <= s->np; v++) {
      if (v == s->np) mark_rows(s, s->ncol, s->len);
      for (int l = 0, k0, k1; v < s->np && l < s->nlev; l++) {
        batch_span(s, s->part_first[s->np * l + v], s->part_first[s->np * l + v + 1], &k0, &k1);
        mark_rows(s, k0, k1);
      }
    }
#pragma omp for schedule(static, 1)
    for (int v = 0; v <= s->np; v++) {
      if (v == s->np) fill_rows(s, op, omega, s->ncol, s->len);
      for (int l = 0, k0, k1; v < s->np && l < s->nlev; l++) {
        batch_span(s, s->part_first[s->np * l + v], s->part_first[s->np * l + v + 1], &k0, &k1);
        fill_rows(s, op, omega, k0, k1);
      }
    }
  }
}

/* The next double after m towards dir (+-inf), nextafter's answer for the
 * finite m these loops see, without the call into libm. */
static inline double next_toward(double m, double dir) {
  if (m == 0.0 || !isfinite(m)) return nextafter(m, dir);
  uint64_t u;
  memcpy(&u, &m, sizeof u);
  u += (m > 0) == (dir > 0) ? 1 : (uint64_t)-1; /* away from 0 or towards it */
  memcpy(&m, &u, sizeof m);
  return m;
}

/* Step m up (dir = +inf) or down until fl(m j) = k, at most 16 ulps:
 * fl(m j) is monotone in m, so {m : fl(m j) = k} is an interval. */
static double mass_seek(double m, double j, double k, double dir) {
  for (int step = 0; step < 16 && m * j != k; step++) m = next_toward(m, dir);
  return m;
}

/* Widen m in direction dir while fl(m j) = k still holds (16 ulps at most). */
static double mass_widen(double m, double j, double k, double dir) {
  for (int step = 0; step < 16 && next_toward(m, dir) * j == k; step++) m = next_toward(m, dir);
  return m;
}

/* One entry (j of J, k of K) of a block into its interval of scalars
 * [*lo, *hi] with fl(m j) = k; returns 0 if none is left. */
static int scalar_entry(double *lo, double *hi, double j, double k) {
  if (j == 0.0) return k == 0.0;
  if (*lo > *hi) { /* the block's first entry: the interval around k / j */
    double m = mass_seek(k / j, j, k, INFINITY);
    if (m * j != k) m = mass_seek(k / j, j, k, -INFINITY);
    if (m * j != k) return 0;
    *lo = mass_widen(m, j, k, -INFINITY);
    *hi = mass_widen(m, j, k, INFINITY);
    return 1;
  }
  if (*lo * j == k && *hi * j == k) return 1; /* the interval reproduces it already */
  *lo = mass_seek(*lo, j, k, INFINITY);
  *hi = mass_seek(*hi, j, k, -INFINITY);
  return *lo <= *hi && *lo * j == k && *hi * j == k;
}

/* Whether a and b have the same 64 bits. */
static int same_bits1(double a, double b) {
  uint64_t u, v;
  memcpy(&u, &a, sizeof u);
  memcpy(&v, &b, sizeof v);
  return u == v;
}

/* One block's angular entries J[0..2], K[0..2] into its interval of
 * angular scalars [*lo, *hi] (NaN: none left, the block not isotropic):
 * fl(m j) = k to the bit for every m of it.  The scalar is positive (an
 * inverse inertia), so fl(m j) has j's sign, zeros too: a k of another
 * sign is not reproduced. */
static void ang_entries(double *lo, double *hi, const double *J, const double *K) {
  if (isnan(*lo)) return;
  if (*lo <= *hi && same_bits1(*lo * J[0], K[0]) && same_bits1(*hi * J[0], K[0]) &&
      same_bits1(*lo * J[1], K[1]) && same_bits1(*hi * J[1], K[1]) &&
      same_bits1(*lo * J[2], K[2]) && same_bits1(*hi * J[2], K[2]))
    return; /* the usual case: the block's interval reproduces all three */
  for (int c = 0; c < 3; c++)
    if (signbit(J[c]) != signbit(K[c]) || !scalar_entry(lo, hi, J[c], K[c])) {
      *lo = *hi = NAN;
      return;
    }
}

/* The rigid-body form the compact layout needs (pgs_wide.c, "Layout"): for every
 * block a scalar m with K's linear columns fl(m J) on each of its row
 * slots, exactly.  The scalars that reproduce one entry form an interval
 * of doubles (around k / j: the quotient may miss the mass by an ulp); a
 * block's scalar is any point in the intersection over its entries, bm[b]
 * (0 for a block with no nonzero entry).  Returns 0 at the first entry no
 * scalar of its block reproduces (then the full layout is used).  The
 * isotropic layout's angular scalars in the same pass (ang_entries): ba[b]
 * with K's angular columns fl(ba J), to the bit; NaN for a block with none
 * (not isotropic: that block's rows keep the compact layout), 0 with bahi
 * = -inf for a block with no nonzero angular entry. */
static int derive_masses(wide_state *s, const slv_fac *f) {
  for (int b = 0; b < f->nb; b++) {
    s->block_mass[b] = s->block_ang[b] = 1.0; /* empty: bm > bhi */
    s->block_mass_top[b] = s->block_ang_top[b] = 0.0;
  }
  for (int i = 0; i < f->n; i++)
    for (int slot = 0; slot < 2; slot++) {
      int b = f->blk[2 * i + slot];
      if (b < 0) continue;
      const double *J = f->J + 12 * (size_t)i + 6 * slot, *K = f->K + 12 * (size_t)i + 6 * slot;
      ang_entries(s->block_ang + b, s->block_ang_top + b, J + 3, K + 3);
      double lo = s->block_mass[b], hi = s->block_mass_top[b];
      if (lo <= hi && lo * J[0] == K[0] && hi * J[0] == K[0] && lo * J[1] == K[1] &&
          hi * J[1] == K[1] && lo * J[2] == K[2] && hi * J[2] == K[2])
        continue; /* the usual case: the block's interval reproduces all three */
      for (int c = 0; c < 3; c++)
        if (!scalar_entry(s->block_mass + b, s->block_mass_top + b, J[c], K[c])) return 0;
    }
  for (int b = 0; b < f->nb; b++) {
    if (s->block_mass[b] >
        s->block_mass_top[b]) { /* no nonzero entry: any scalar, none known (lane_scalars) */
      s->block_mass[b] = 0.0;
      s->block_mass_top[b] = -INFINITY;
    }
    if (s->block_ang[b] > s->block_ang_top[b]) {
      s->block_ang[b] = 0.0;
      s->block_ang_top[b] = -INFINITY;
    } else if (!(s->block_ang[b] > 0.0)) /* the interval reached 0 (zeros of K on nonzero J) */
      s->block_ang[b] = s->block_ang_top[b] = NAN;
  }
  return 1;
}

#if PGS_WIDE_X86

/* What lane_scalars found of the lanes' blocks. */
enum {
  LANES_MASSES = 1,  /* every block has its inverse mass */
  LANES_NOT_ISO = 2, /* some block has no angular scalar (NaN: not isotropic) */
};

/* Each lane's inverse masses (im) and angular scalars (ia) from the
 * blocks' scalars bm and ba; 0 when a lane's block had no nonzero entry at
 * the last derivation (bhi = -inf), whose scalar 0.0 is no mass: kept, it
 * would fail fill_jk's check as soon as the block has an entry (a body
 * that has come into contact), after a whole pass.  An angular scalar 0
 * is kept: a block with no nonzero angular entry (a sphere's normal rows,
 * which pass through its centre) may well have none next time either.
 * Returns LANES_ bits. */
static int lane_scalars(wide_state *s) {
  int masses = 1, not_iso = 0;
  for (int k = 0; k < 16 * s->nbat; k++) {
    int b = s->entry_block[k];
    s->inv_mass[k] = b >= 0 ? s->block_mass[b] : 0.0;
    s->ang_scalar[k] = b >= 0 ? s->block_ang[b] : 0.0;
    masses &= b < 0 || s->block_mass_top[b] != -INFINITY;
    not_iso |= b >= 0 && isnan(s->block_ang[b]);
  }
  return (masses ? LANES_MASSES : 0) | (not_iso ? LANES_NOT_ISO : 0);
}

/* fill_jk over all the lanes' positions: on the plan's threads when it has
 * parts, as fill_all_rows splits them (the same values: each position is
 * formed alone); 1 if every part's rows have the layout's form. */
static int fill_all_jk(wide_state *s, const slv_op *op, double omega, int layout) {
  const slv_fac *f = &op->f;
  if (s->np == 1) return fill_jk(s, f, op->aii, omega, layout, 0, s->nbat);
  /* each part's verdict in its own slot, and-ed after: not an OpenMP
   * reduction clause, which clang implements with a lock symbol that the
   * shared library would export (tests/test_exports.sh) */
  int oks[SLV_THREADS_MAX];
#pragma omp parallel for num_threads(s->np) schedule(static)
  for (int v = 0; v < s->np; v++) {
    int ok = 1;
    for (int l = 0; l < s->nlev; l++) {
      int r = fill_jk(s, f, op->aii, omega, layout, s->part_first[s->np * l + v],
                      s->part_first[s->np * l + v + 1]);
      ok = ok && r;
    }
    oks[v] = ok;
  }
  int ok = 1;
  for (int v = 0; v < s->np; v++) ok = ok && oks[v];
  return ok;
}

/* The layout the last solve's scalars promise for this one's lanes: none
 * (WIDE_LAY_FULL) if a lane block's inverse mass is unknown (no nonzero
 * entry at the last derivation), the compact one if a block has no
 * angular scalar (not isotropic), else the isotropic one. */
static int kept_layout(wide_state *s) {
  int found = lane_scalars(s);
  if (!(found & LANES_MASSES)) return WIDE_LAY_FULL;
  return found & LANES_NOT_ISO ? WIDE_LAY_COMPACT : WIDE_LAY_ISO;
}

/* The lanes' J and K (pgs_wide.c, "Layout"): isotropic when the blocks'
 * scalars bm and ba hold for every lane row, else compact when bm do,
 * else the full layout.  A world's bodies keep their masses and inertias
 * from one step to the next, so the last solve's scalars are tried first
 * (kept_layout): fill_jk checks every entry the lanes use, so a scalar that
 * no longer fits only costs the derivation it would have cost anyway. */
static void lanes_jk(wide_state *s, const slv_op *op, double omega) {
  s->layout = WIDE_LAY_FULL;
  if (s->masses_kept) {
    int want = kept_layout(s);
    if (want != WIDE_LAY_FULL && fill_all_jk(s, op, omega, want)) s->layout = want;
  }
  if (s->layout == WIDE_LAY_FULL && derive_masses(s, &op->f)) {
    if (!(lane_scalars(s) & LANES_NOT_ISO) && fill_all_jk(s, op, omega, WIDE_LAY_ISO))
      s->layout = WIDE_LAY_ISO;
    else if (fill_all_jk(s, op, omega, WIDE_LAY_COMPACT))
      s->layout = WIDE_LAY_COMPACT;
  }
  s->masses_kept = s->layout != WIDE_LAY_FULL;
  if (s->layout == WIDE_LAY_FULL) fill_all_jk(s, op, omega, WIDE_LAY_FULL);
}

/* The largest slv_alone over the lanes' positions [0, ncol), four at a
 * time: the same IEEE operations (-b / d, then max(lo, min(hi, t)), which
 * is its clip for lo <= hi), 0 at idle positions (A_ii = 0 there). */
__attribute__((target("avx2"))) static double lanes_alone(const wide_state *s) {
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  __m256d m = zero;
  for (int k = 0; k < s->ncol; k += 4) {
    __m256d d = _mm256_load_pd(s->aii + k);
    __m256d t = _mm256_div_pd(_mm256_xor_pd(_mm256_load_pd(s->plan_b + k), sign), d);
    __m256d c =
        _mm256_max_pd(_mm256_load_pd(s->lo + k), _mm256_min_pd(_mm256_load_pd(s->hi + k), t));
    __m256d v = _mm256_blendv_pd(t, c, _mm256_load_pd(s->mu + k)); /* findex (mu >= 0): t */
    __m256d busy = _mm256_cmp_pd(d, zero, _CMP_GT_OQ);
    m = _mm256_max_pd(m, _mm256_and_pd(busy, _mm256_andnot_pd(sign, v)));
  }
  double v[4], xd = 0;
  _mm256_storeu_pd(v, m);
  for (int l = 0; l < 4; l++) xd = fmax(xd, v[l]);
  return xd;
}

#endif

/* Whether slv_fac_ktx's runs are the plan's groups: every run of rows on
 * one block pair is one group (none cut at WIDE_GMAX rows). */
static int groups_are_runs(const wide_state *s, const slv_fac *f, int ng) {
  const int *fb = f->blk;
  for (int g = 1; g < ng; g++) {
    int i = s->group_first[g];
    if (fb[2 * i] == fb[2 * i - 2] && fb[2 * i + 1] == fb[2 * i - 1]) return 0;
  }
  return 1;
}

static void fill_plan(wide_state *s, const slv_op *op, double omega, int ng);

/* Whether the kept schedule and layout (the last first-fit plan of this
 * state) are this problem's: they are a function of the rows' block pairs
 * and findex alone (the groups, their batches, sort_groups' order,
 * lay_out's positions, blocks and pointers into the operator's t), so the
 * same n, the same pairs row by row, the same findex and the same t give
 * the same plan, bit for bit.  A world's contacts come in the same order
 * in some steps, not all (about half the steps of a settled pyramid, few
 * of a pile's); two comparisons of O(n) ints then replace the schedule
 * and the layout, about 2 % of the step
 * (experiments/records/2026-11-26-world-step-outside-sweep.md). */
static int plan_kept(const wide_state *s, const slv_op *op) {
  int n = op->n;
  if (s->key_n != n || s->key_t != op->t) return 0;
  if (memcmp(s->key_blk, op->f.blk, 2 * (size_t)n * sizeof(int)) != 0) return 0;
  const int *fx = op->p->findex;
  return (fx != NULL) == s->key_hasfx &&
         (!fx || memcmp(s->key_fx, fx, (size_t)n * sizeof(int)) == 0);
}

/* Keeps the key of the plan just made (plan_kept). */
static void keep_plan(wide_state *s, const slv_op *op, int ng) {
  int n = op->n;
  const int *fx = op->p->findex;
  memcpy(s->key_blk, op->f.blk, 2 * (size_t)n * sizeof(int));
  if (fx) memcpy(s->key_fx, fx, (size_t)n * sizeof(int));
  s->key_hasfx = fx != NULL;
  s->key_n = n;
  s->key_ng = ng;
  s->key_t = op->t;
}

/* Groups, batches and the plan layout (pgs_wide.c, "Layout"); before K^T x, as
 * the scheduling uses the operator's t as scratch.  Only the lanes read J
 * and K by columns: without them the sweep reads the rows of J and K
 * (row_one). */
void wide_plan(wide_state *s, const slv_op *op, double omega, int threads) {
  int ng = -1;
  s->n = op->n;
  s->np = 1;
  s->nlev = 0;
  /* pgs_wide's first fit on one thread: the plan of the last solve is kept
   * when its key matches (plan_kept); any other plan overwrites it */
  int first_fit = !s->color && !(threads > 1 && op->n >= WIDE_PAR_MIN_GROUPS);
  if (first_fit && plan_kept(s, op)) {
    ng = s->key_ng;
    s->own_ktx = 0;
    memset(s->idle, 0, WIDE_PAD * sizeof *s->idle); /* as lay_out leaves it */
    fill_plan(s, op, omega, ng);
    return;
  }
  s->key_n = -1;
  if (s->color) {
    /* the colours, whatever the threads; split on the thresholds of the
     * threaded plan (the parts only say which thread sweeps which batch
     * of a colour, so whether it splits does not change x) */
    ng = wide_group_and_color(s, op);
    if (threads > 1 && ng >= WIDE_PAR_MIN_GROUPS && s->nlev >= 1 && threads * s->nlev < op->n &&
        s->nbat >= WIDE_PAR_MIN_BATCHES * threads * s->nlev)
      s->np = threads;
  } else if (s->part && threads > 1 && op->n >= WIDE_PAR_MIN_GROUPS) {
    /* parts and a separator, if every part is large enough; else one
     * thread's first fit, pgs_wide's plan */
    ng = wide_group_and_partition(s, op, threads);
    if (ng >= 0 && threads * s->nlev < op->n) /* pst holds np nlev + 1 entries */
      s->np = threads;
    else
      ng = -1;
  } else if (threads > 1 && op->n >= WIDE_PAR_MIN_GROUPS) {
    /* the level schedule, kept if it is large and wide enough to split
     * (then nlev >= 1: wide_sweeps_par relies on a barrier per level) */
    ng = wide_group_and_level(s, op);
    if (ng >= WIDE_PAR_MIN_GROUPS && s->nbat >= WIDE_PAR_MIN_BATCHES * threads * s->nlev &&
        s->nlev >= 1)
      s->np = threads;
    else
      ng = -1;
  }
  if (ng < 0) {
    ng = wide_group_and_schedule(s, op);
    s->nlev = 0;
  }
  sort_groups(s, ng);
  s->own_ktx = s->color || (s->part && s->np > 1);
  if (s->np > 1) split_levels(s, s->part ? 1 : 0); /* pgs_part's level 0: its parts */
  lay_out(s, op, ng);
  if (first_fit && s->np == 1) keep_plan(s, op, ng);
  fill_plan(s, op, omega, ng);
}

/* The plan's values over its layout: each position's row data, the lanes'
 * J and K, and whether t = K^T x may be summed in the lanes. */
static void fill_plan(wide_state *s, const slv_op *op, double omega, int ng) {
  fill_all_rows(s, op, omega);
  s->layout = WIDE_LAY_FULL;
#if PGS_WIDE_X86
  if (s->lanes) lanes_jk(s, op, omega);
#endif
  /* slv_fac_ktx sums each run in row order and adds the runs into t in row
   * order; the lanes do the same where each group is a run, and a block's
   * groups come in row order (first fit) */
  s->ktx_lanes =
      s->lanes && s->np == 1 && !s->own_ktx && s->ncol == s->len && groups_are_runs(s, &op->f, ng);
}

/* The row sizes and xd of the convergence measure (slv_op_rowscale) from
 * the A_ii the validation left (op->aii, used in place), else from the
 * plan's, which fill_jk and fill_rows formed as slv_diag does (with
 * A_ii > 0, SLV_CAP_NEEDS_POS_DIAG, a row's size is A_ii): not read
 * from A again, here or by the generic layer's measures at the end of
 * the solve.  xd, the largest slv_alone, from the plan's arrays, in the
 * lanes four positions at a time. */
void wide_plan_rowscale(const wide_state *s, slv_op *op) {
  double *a = slv_op_rowsize_buf(op), xd = 0;
  int k0 = 0;
  if (!op->aii) /* else the validation's A_ii, the plan's (the same bits) */
    for (int i = 0; i < s->n; i++) a[i] = s->aii[s->row_batch[i]];
#if PGS_WIDE_X86
  if (s->lanes) {
    xd = lanes_alone(s);
    k0 = s->ncol;
  }
#endif
  for (int k = k0; k < s->len; k++)
    if (s->order[k] >= 0)
      xd = fmax(xd, slv_alone(s->plan_b[k], s->aii[k], s->lo[k], s->hi[k], s->mu[k] >= 0));
  slv_op_rowscale_use(op, op->aii ? op->aii : a, xd);
}

/* The plan, through the log callback at SLV_LOG_DEBUG (once a solve, only
 * if one is set): what the lanes hold and which sweep runs, so that a
 * caller (and the tests) can see the path taken. */
void wide_log_plan(const wide_state *s, const slv_problem *p, const slv_options *opt) {
  int busy = 0, slots = 0; /* the batches' positions (not the idle ones between them) */
  for (int k = 0; k < s->ncol; k++) busy += s->order[k] >= 0;
  for (int bt = 0; bt < s->nbat; bt++) slots += 4 * s->batch_halves[bt] * s->batch_steps[bt];
  static const char *const lanes[2][3] = {
    { "AVX2 lanes, full rows", "AVX2 lanes, compact rigid-body rows",
      "AVX2 lanes, isotropic rigid-body rows" },
    { "AVX-512 lanes, full rows", "AVX-512 lanes, compact rigid-body rows",
      "AVX-512 lanes, isotropic rigid-body rows" }
  };
  const char *how =
      s->lanes ? lanes[s->lanes512 != 0][s->layout] : "rows one at a time (no AVX2 lanes)";
  if (s->part && s->np > 1) {
    int k0, k1, sep = 0;
    batch_span(s, s->level_first[1], s->nbat, &k0, &k1);
    for (int k = k0; k < k1; k++) sep += s->order[k] >= 0;
    slv_logf(opt,
             "pgs_part: %d rows, %d batches, %d of %d lane slots busy, %d parts on %d threads, "
             "%d separator rows in %d colours, %d overflow rows: %s",
             p->n, s->nbat, busy, slots, s->np, s->np, sep, s->nlev - 1, s->len - s->ncol, how);
  } else if (s->color && s->np > 1)
    slv_logf(opt,
             "pgs_color: %d rows, %d batches, %d of %d lane slots busy, %d overflow rows, "
             "%d colours on %d threads: %s",
             p->n, s->nbat, busy, slots, s->len - s->ncol, s->nlev, s->np, how);
  else if (s->color)
    slv_logf(opt,
             "pgs_color: %d rows, %d batches, %d of %d lane slots busy, %d overflow rows, "
             "%d colours: %s",
             p->n, s->nbat, busy, slots, s->len - s->ncol, s->nlev, how);
  else if (s->np > 1)
    slv_logf(opt,
             "%s: %d rows, %d batches, %d of %d lane slots busy, %d sequential rows, "
             "%d levels on %d threads: %s",
             wide_name(s), p->n, s->nbat, busy, slots, s->len - s->ncol, s->nlev, s->np, how);
  else
    slv_logf(opt, "%s: %d rows, %d batches, %d of %d lane slots busy, %d sequential rows: %s",
             wide_name(s), p->n, s->nbat, busy, slots, s->len - s->ncol, how);
}
