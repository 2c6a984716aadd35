/* pgs_wide.c -- projected Gauss-Seidel on factored storage, rows swept in
 * graph-coloured batches of four, one row per SIMD lane.
 *
 * The sweep is pgs's factored sweep (pgs.c: t = K^T x kept current, row i
 * reads w_i = b_i + J_i . t + d_i x_i and moves x_i <- mid(lo_i, hi_i,
 * x_i - omega w_i / A_ii), adding the change times K_i to t), with the rows
 * visited in another order.  Rows that touch no common body (block) commute:
 * their updates read and write disjoint parts of t.  So the rows are
 * coloured first (greedy first fit in row order: row i takes the smallest
 * colour that no earlier row on either of its bodies took, and, when its
 * findex row comes before it, not that row's colour), and a sweep visits
 * colour 0's rows, then colour 1's, ... .  Within a colour, four rows at a
 * time go through the AVX2 lanes: gather the two 6-blocks of t of each lane
 * (4x4 transposes), 24 products, clamp, scatter back.  This is Gauss-Seidel
 * in the order (colour, row): the iterates are those of pgs on the problem
 * whose rows are permuted to that order, bit for bit (the lanes do the same
 * operations in the same association as pgs; no fused multiply-add).
 * [Graph colouring for parallel Gauss-Seidel: Adams 2001; the wide,
 * coloured contact solver of Box2D v3 (Catto 2024, "Solver2D") and PhysX.]
 *
 * Why: a contact's three rows and the four points of a box-box manifold all
 * act on the same two bodies, so pgs's natural order is a chain of
 * dependent updates; the lanes here do four unrelated rows per
 * instruction.  The colouring costs O(rows) per solve; the per-body colour
 * masks live in p->fwork before it gets K^T x (so nothing is allocated).
 *
 * Layout, built once per solve (sized at init for n_max rows): every colour
 * is padded to a multiple of 4 with idle lanes (zero J and K, bounds 0..0,
 * 1 / A_ii = 0: they never move); x, b, the bounds and 1 / A_ii are copied
 * into the sweep order, and J, K into 4-lane columns.  Colours beyond 62
 * (rows with more than 62 coloured neighbours on their bodies) and rows
 * whose findex row comes later go to a last, sequential group, visited one
 * by one after the coloured ones.  On a CPU without AVX2 the same order is
 * swept one row at a time (same iterates).
 *
 * Dense and CSR problems have no bodies to colour: they are solved by pgs
 * itself (same options, same result).  Statuses and the stopping rule are
 * pgs's: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE.
 */
#include "slv_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PGS_WIDE_X86 1
#else
#define PGS_WIDE_X86 0
#endif

extern const slv_solver slv_solver_pgs;

enum { WIDE_COLORS = 63, WIDE_SEQ = 63 }; /* colours 0..62 in lanes; group 63 sequential */

typedef struct {
  void *pgs;       /* pgs's state, for dense and CSR problems */
  int cap;         /* plan length: n_max + 3 per colour of padding */
  int have_avx2;
  int *color;      /* n_max: colour of each row */
  int *order;      /* cap: row at each plan position, -1 for an idle lane */
  int *fpos;       /* cap: plan position of the findex row (own position if none) */
  double *xp, *bp, *invd, *lo, *hi, *fd; /* cap, in plan order */
  double *mu;      /* cap: friction coefficient of findex rows, -1 for other rows */
  double *JK;      /* cap / 4 batches x 96: J slot 0 (6 columns x 4 lanes), J slot 1, then
                      K by lanes (lane l: 12 values, slot 0 then slot 1) */
  double **tp;     /* cap / 4 batches x 8: the t block of slot 0 of lanes 0..3, of slot 1 */
  double *idle;    /* 6 doubles: the t block of static slots and idle lanes (stays 0) */
  int ncol;        /* plan positions [0, ncol) are in lanes, [ncol, len) sequential */
  int len;
} wide_state;

static void wide_free(void *st) {
  wide_state *s = st;
  if (s->pgs) {
    slv_solver_pgs.free(s->pgs);
    free(s->pgs);
  }
  free(s->color);
  free(s->order);
  free(s->fpos);
  free(s->xp);
  free(s->bp);
  free(s->invd);
  free(s->lo);
  free(s->hi);
  free(s->mu);
  free(s->fd);
  free(s->JK);
  free(s->tp);
  free(s->idle);
  memset(s, 0, sizeof *s);
}

static slv_status wide_init(void *st, int n_max, const slv_options *opt) {
  wide_state *s = st;
  s->pgs = calloc(1, slv_solver_pgs.state_size);
  if (!s->pgs) return SLV_ERR_NOMEM;
  slv_status r = slv_solver_pgs.init(s->pgs, n_max, opt);
  if (r != SLV_CONVERGED) {
    free(s->pgs);
    s->pgs = NULL;
    return r;
  }
  size_t m = (size_t)(n_max > 0 ? n_max : 1);
  size_t cap = m + 3 * WIDE_COLORS + 4;
  cap = (cap + 3) / 4 * 4;
  s->cap = (int)cap;
  s->color = malloc(m * sizeof *s->color);
  s->order = malloc(cap * sizeof *s->order);
  s->fpos = malloc(cap * sizeof *s->fpos);
  double **d[] = { &s->xp, &s->bp, &s->invd, &s->lo, &s->hi, &s->mu, &s->fd };
  int fail = !s->color || !s->order || !s->fpos;
  for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
    *d[k] = aligned_alloc(32, cap * sizeof(double));
    fail |= !*d[k];
  }
  s->JK = aligned_alloc(32, (cap / 4) * 96 * sizeof(double));
  s->tp = malloc((cap / 4) * 8 * sizeof *s->tp);
  s->idle = aligned_alloc(32, 8 * sizeof(double));
  if (fail || !s->JK || !s->tp || !s->idle) {
    wide_free(s);
    return SLV_ERR_NOMEM;
  }
#if PGS_WIDE_X86
  __builtin_cpu_init();
  s->have_avx2 = __builtin_cpu_supports("avx2");
#endif
  return SLV_CONVERGED;
}

/* Colour the rows and lay out the plan (see the header).  p->fwork holds
 * the per-body colour masks meanwhile. */
static void plan(wide_state *s, const slv_problem *p) {
  int n = p->n, cnt[WIDE_SEQ + 1] = { 0 }, start[WIDE_SEQ + 2];
  uint64_t *mask = (uint64_t *)p->fwork;
  memset(mask, 0, (size_t)p->nblk * sizeof *mask);
  for (int i = 0; i < n; i++) {
    int b0 = p->fblk[2 * i], b1 = p->fblk[2 * i + 1];
    int f = p->findex ? p->findex[i] : -1;
    int c = WIDE_SEQ;
    if (f < i) {
      uint64_t u = (b0 >= 0 ? mask[b0] : 0) | (b1 >= 0 ? mask[b1] : 0);
      if (f >= 0 && s->color[f] < WIDE_COLORS) u |= (uint64_t)1 << s->color[f];
      if (~u) c = __builtin_ctzll(~u);
      if (c >= WIDE_COLORS) c = WIDE_SEQ;
    }
    if (c < WIDE_COLORS) {
      if (b0 >= 0) mask[b0] |= (uint64_t)1 << c;
      if (b1 >= 0) mask[b1] |= (uint64_t)1 << c;
    }
    s->color[i] = c;
    cnt[c]++;
  }
  start[0] = 0;
  for (int c = 0; c < WIDE_SEQ; c++) start[c + 1] = start[c] + (cnt[c] + 3) / 4 * 4;
  s->ncol = start[WIDE_SEQ];
  s->len = s->ncol + cnt[WIDE_SEQ];
  for (int k = 0; k < s->ncol; k++) s->order[k] = -1;
  int *next = cnt; /* reused: the next free position of each colour */
  for (int c = 0; c <= WIDE_SEQ; c++) next[c] = start[c];
  for (int i = 0; i < n; i++) s->order[next[s->color[i]]++] = i;
  /* color[] now becomes the plan position of each row */
  for (int k = 0; k < s->len; k++)
    if (s->order[k] >= 0) s->color[s->order[k]] = k;
  for (int k = 0; k < s->len; k++) {
    int i = s->order[k];
    if (i < 0) {
      s->fpos[k] = k;
      s->bp[k] = s->invd[k] = s->lo[k] = s->hi[k] = s->fd[k] = 0.0;
      s->mu[k] = -1.0;
      continue;
    }
    int f = p->findex ? p->findex[i] : -1;
    s->fpos[k] = f >= 0 ? s->color[f] : k; /* non-findex rows read their own x (unused) */
    s->bp[k] = p->b[i];
    s->invd[k] = 1.0 / slv_diag(p, i);
    s->lo[k] = slv_lo_of(p, i);
    s->hi[k] = slv_hi_of(p, i);
    s->mu[k] = f >= 0 ? fabs(p->mu[i]) : -1.0; /* the sign says "no findex" */
    s->fd[k] = p->fd ? p->fd[i] : 0.0;
  }
  memset(s->idle, 0, 8 * sizeof *s->idle);
  for (int k4 = 0; k4 < s->ncol / 4; k4++) {
    double *JK = s->JK + 96 * (size_t)k4;
    double **tp = s->tp + 8 * (size_t)k4;
    for (int l = 0; l < 4; l++) {
      int i = s->order[4 * k4 + l];
      for (int slot = 0; slot < 2; slot++) {
        int b = i >= 0 ? p->fblk[2 * i + slot] : -1;
        tp[4 * slot + l] = b >= 0 ? p->fwork + 6 * (size_t)b : s->idle;
        const double *J = b >= 0 ? p->fJ + 12 * (size_t)i + 6 * slot : s->idle;
        const double *K = b >= 0 ? p->fK + 12 * (size_t)i + 6 * slot : s->idle;
        for (int c = 0; c < 6; c++) {
          JK[24 * slot + 4 * c + l] = J[c];
          JK[48 + 12 * l + 6 * slot + c] = K[c];
        }
      }
    }
  }
}

/* One row at plan position k, as pgs's factored sweep does it; returns the
 * row's residual and adds w * 0 to *poison. */
static inline double row_one(wide_state *s, const slv_problem *p, int k, double omega, double *t,
                             double *poison) {
  int i = s->order[k];
  if (i < 0) return 0.0;
  double lo = s->lo[k], hi = s->hi[k];
  if (s->mu[k] >= 0) {
    double h = s->mu[k] * fabs(s->xp[s->fpos[k]]);
    lo = -h;
    hi = h;
  }
  double xi = s->xp[k];
  double wi = s->bp[k] + slv_factored_row(p, i, t, xi);
  *poison += wi * 0.0;
  double r = slv_mid_res(xi, wi, lo, hi);
  double xn = xi - omega * wi * s->invd[k];
  xn = xn < lo ? lo : (xn > hi ? hi : xn);
  double d = xn - xi;
  if (d == 0.0) return r;
  s->xp[k] = xn;
  int b0 = p->fblk[2 * i], b1 = p->fblk[2 * i + 1];
  const double *K = p->fK + 12 * (size_t)i;
  if (b0 >= 0)
    for (int c = 0; c < 6; c++) t[6 * (size_t)b0 + c] += d * K[c];
  if (b1 >= 0)
    for (int c = 0; c < 6; c++) t[6 * (size_t)b1 + c] += d * K[6 + c];
  return r;
}

/* Plan positions [k0, k1) one row at a time. */
static double sweep_rows(wide_state *s, const slv_problem *p, int k0, int k1, double omega,
                         double *poison) {
  double m = 0;
  for (int k = k0; k < k1; k++) {
    double r = row_one(s, p, k, omega, p->fwork, poison);
    if (r > m) m = r;
  }
  return m;
}

#if PGS_WIDE_X86
/* The 6-blocks at tp[0..3] as six 4-lane columns (two 4x4 transposes). */
__attribute__((target("avx2"))) static inline void gather6(double *const *tp, __m256d T[6]) {
  __m256d r0 = _mm256_loadu_pd(tp[0]), r1 = _mm256_loadu_pd(tp[1]);
  __m256d r2 = _mm256_loadu_pd(tp[2]), r3 = _mm256_loadu_pd(tp[3]);
  __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  T[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  T[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  T[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  T[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
  __m256d u02 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(tp[0] + 4)),
                                     _mm_loadu_pd(tp[2] + 4), 1);
  __m256d u13 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(tp[1] + 4)),
                                     _mm_loadu_pd(tp[3] + 4), 1);
  T[4] = _mm256_unpacklo_pd(u02, u13);
  T[5] = _mm256_unpackhi_pd(u02, u13);
}

/* J . T over one slot, in slv_dot6's association. */
__attribute__((target("avx2"))) static inline __m256d dot6(const double *J, const __m256d T[6]) {
  __m256d a = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J), T[0]),
                            _mm256_mul_pd(_mm256_load_pd(J + 4), T[1]));
  __m256d b = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J + 8), T[2]),
                            _mm256_mul_pd(_mm256_load_pd(J + 12), T[3]));
  __m256d c = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J + 16), T[4]),
                            _mm256_mul_pd(_mm256_load_pd(J + 20), T[5]));
  return _mm256_add_pd(_mm256_add_pd(a, b), c);
}

/* t_b += d K_b for the two slots of one lane (row layout, as row_one). */
__attribute__((target("avx2"))) static inline void lane_update(__m256d d, const double *K,
                                                               double *t0, double *t1) {
  __m128d d2 = _mm256_castpd256_pd128(d);
  _mm256_storeu_pd(t0, _mm256_add_pd(_mm256_loadu_pd(t0), _mm256_mul_pd(d, _mm256_load_pd(K))));
  _mm_storeu_pd(t0 + 4, _mm_add_pd(_mm_loadu_pd(t0 + 4), _mm_mul_pd(d2, _mm_load_pd(K + 4))));
  _mm256_storeu_pd(t1, _mm256_add_pd(_mm256_loadu_pd(t1), _mm256_mul_pd(d, _mm256_loadu_pd(K + 6))));
  _mm_storeu_pd(t1 + 4, _mm_add_pd(_mm_loadu_pd(t1 + 4), _mm_mul_pd(d2, _mm_load_pd(K + 10))));
}

/* The coloured positions [0, ncol), four rows per instruction: each lane
 * does what row_one does, in the same operation order. */
__attribute__((target("avx2"))) static double sweep_lanes(wide_state *s, double omega,
                                                         double *poison) {
  const __m256d om = _mm256_set1_pd(omega), sign = _mm256_set1_pd(-0.0);
  const __m256d zero = _mm256_setzero_pd();
  __m256d m = zero, pz = zero;
  double *xp = s->xp;
  for (int k = 0; k < s->ncol; k += 4) {
    const double *JK = s->JK + 24 * (size_t)k;
    double *const *tp = s->tp + 2 * (size_t)k;
    __m256d x = _mm256_load_pd(xp + k);
    __m256d lo = _mm256_load_pd(s->lo + k), hi = _mm256_load_pd(s->hi + k);
    __m256d mu = _mm256_load_pd(s->mu + k);
    if (_mm256_movemask_pd(mu) != 0xf) {
      /* findex lanes (mu >= 0): -mu |x_f| .. mu |x_f| */
      const int *f = s->fpos + k;
      __m256d xf = _mm256_set_pd(xp[f[3]], xp[f[2]], xp[f[1]], xp[f[0]]);
      __m256d h = _mm256_mul_pd(mu, _mm256_andnot_pd(sign, xf));
      hi = _mm256_blendv_pd(h, hi, mu);
      lo = _mm256_blendv_pd(_mm256_xor_pd(h, sign), lo, mu);
    }
    __m256d T[6];
    gather6(tp, T);
    __m256d s0 = dot6(JK, T);
    gather6(tp + 4, T);
    __m256d s01 = _mm256_add_pd(s0, dot6(JK + 24, T));
    __m256d w = _mm256_add_pd(_mm256_load_pd(s->bp + k),
                              _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(s->fd + k), x), s01));
    pz = _mm256_add_pd(pz, _mm256_mul_pd(w, zero));
    /* slv_mid_res: |max(min(w, x - lo), x - hi)| */
    __m256d r = _mm256_max_pd(_mm256_min_pd(w, _mm256_sub_pd(x, lo)), _mm256_sub_pd(x, hi));
    m = _mm256_max_pd(_mm256_andnot_pd(sign, r), m);
    __m256d xn = _mm256_sub_pd(x, _mm256_mul_pd(_mm256_mul_pd(om, w), _mm256_load_pd(s->invd + k)));
    xn = _mm256_max_pd(lo, _mm256_min_pd(hi, xn));
    __m256d d = _mm256_sub_pd(xn, x);
    __m256d moved = _mm256_cmp_pd(d, zero, _CMP_NEQ_UQ);
    if (_mm256_movemask_pd(moved) == 0) continue;
    _mm256_store_pd(xp + k, _mm256_blendv_pd(x, xn, moved)); /* as pgs: x kept where d = 0 */
    /* lane by lane: a lane's two blocks differ from every other lane's, and
     * an idle or static slot adds 0 to the idle block */
    lane_update(_mm256_permute4x64_pd(d, 0x00), JK + 48, tp[0], tp[4]);
    lane_update(_mm256_permute4x64_pd(d, 0x55), JK + 60, tp[1], tp[5]);
    lane_update(_mm256_permute4x64_pd(d, 0xaa), JK + 72, tp[2], tp[6]);
    lane_update(_mm256_permute4x64_pd(d, 0xff), JK + 84, tp[3], tp[7]);
  }
  double mm[4], pp[4];
  _mm256_storeu_pd(mm, m);
  _mm256_storeu_pd(pp, pz);
  *poison += (pp[0] + pp[1]) + (pp[2] + pp[3]);
  double r = mm[0];
  for (int l = 1; l < 4; l++)
    if (mm[l] > r) r = mm[l];
  return r;
}
#endif

/* One sweep in plan order; the natural-map residual (inf-norm) of the w_i
 * met at each row, NaN if a value was not finite. */
static double sweep(wide_state *s, const slv_problem *p, double omega) {
  double poison = 0, m;
#if PGS_WIDE_X86
  if (s->have_avx2)
    m = sweep_lanes(s, omega, &poison);
  else
#endif
    m = sweep_rows(s, p, 0, s->ncol, omega, &poison);
  double r = sweep_rows(s, p, s->ncol, s->len, omega, &poison);
  if (r > m) m = r;
  return poison == 0.0 ? m : NAN;
}

static void unpermute(const wide_state *s, double *x) {
  for (int k = 0; k < s->len; k++)
    if (s->order[k] >= 0) x[s->order[k]] = s->xp[k];
}

static slv_status wide_solve(void *st, const slv_problem *p, const slv_options *opt, double *x,
                             double *w, slv_result *res) {
  wide_state *s = st;
  if (p->storage != SLV_FACTORED) return slv_solver_pgs.solve(s->pgs, p, opt, x, w, res);
  plan(s, p); /* before slv_problem_w: it uses p->fwork as scratch */
  slv_problem_w(p, x, w);
  slv_residuals r = slv_residual(p, x, w);
  double scale = fmax(1.0, r.b_inf);
  res->solver_residual = r.res_rel;
  if (r.res_rel <= opt->tol) return SLV_CONVERGED;
  for (int k = 0; k < s->len; k++) s->xp[k] = s->order[k] >= 0 ? x[s->order[k]] : 0.0;

  for (int it = 1; it <= opt->max_iter; it++) {
    /* p->fwork holds K^T x (slv_problem_w), and the sweep keeps it current */
    r.res_rel = sweep(s, p, opt->omega) / scale;
    res->iterations = it;
    if (isnan(r.res_rel)) {
      unpermute(s, x);
      slv_msgf(res->message, sizeof res->message, "pgs_wide: iterate became non-finite at sweep %d",
               it);
      return SLV_NOT_FINITE;
    }
    if (r.res_rel <= opt->tol || it % opt->check_every == 0) {
      /* exact w = A x + b: confirms convergence as the generic layer will,
       * and drops the rounding drift of t */
      unpermute(s, x);
      slv_problem_w(p, x, w);
      r = slv_residual(p, x, w);
    }
    res->solver_residual = r.res_rel;
    slv_history_push(res, (double *)res->history, res->history_cap, r.res_rel);
    if (r.res_rel <= opt->tol) return SLV_CONVERGED;
  }
  unpermute(s, x);
  slv_msgf(res->message, sizeof res->message, "pgs_wide: %d sweeps, res_rel=%.3g > tol=%.3g",
           opt->max_iter, r.res_rel, opt->tol);
  return SLV_MAX_ITER;
}

const slv_solver slv_solver_pgs_wide = {
    .name = "pgs_wide",
    .summary = "projected Gauss-Seidel, factored rows graph-coloured and swept 4 per AVX2 "
               "instruction (dense, CSR: pgs)",
    .cite = "cottle1992",
    .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_FACTORED |
            SLV_CAP_NEEDS_POS_DIAG,
    .state_size = sizeof(wide_state),
    .init = wide_init,
    .free = wide_free,
    .solve = wide_solve,
};
