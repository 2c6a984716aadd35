/* pgs_lanes.h -- what pgs_wide, pgs_color and pgs_part share (internal,
 * never installed).  The three solvers sweep the same groups of rows in
 * AVX2 lanes and differ in the order of the groups: pgs_wide.c (first fit
 * in row order, and the level schedule on threads; the design of all
 * three, in its header), pgs_color.c (a greedy colouring), pgs_part.c
 * (body parts on threads, the rows between them by colours).  What they
 * share: the state below and its constants; pgs_plan.c, the plan (the
 * groups' batches and levels laid out in plan positions, the rows' data
 * and the lanes' J and K columns, the rigid-body masses, the row sizes
 * of the convergence measure); pgs_lanes.c, the sweeps in the lanes or
 * one row at a time, the exact measures' check, and the solve loop on
 * one thread or a team.  docs/solvers.md, "pgs_wide", "pgs_color",
 * "pgs_part".
 */
#ifndef PGS_LANES_H
#define PGS_LANES_H

#include "slv_internal.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define PGS_WIDE_X86 1
#else
#define PGS_WIDE_X86 0
#endif

enum {
  WIDE_SEQ = INT_MAX, /* the batch of the sequential group */
  WIDE_GMAX = 12,     /* rows per group at most */
  WIDE_BATCH = 8,     /* groups per batch at most: two halves of four lanes */
  /* Threads (pgs_wide.c, "Threads"): from this many groups on.  A
   * group's rows take ~15 ns of a sweep in the lanes (pile 5000), so 4096
   * groups are a sweep of ~60 us, against a barrier (~0.5 us with
   * libgomp's spinning threads) per level, the team's start once per
   * solve and the plan, which stays serial; below, those would eat most
   * of what a second thread gains. */
  WIDE_PAR_MIN_GROUPS = 4096,
  /* ... and only if the levels hold this many batches per thread on
   * average: a batch of contacts is ~0.1 us of a sweep and a barrier ~0.5
   * us, so 16 keep the barriers near a fifth of the work.  Pile 5000 (~10
   * per thread at 2) lost 4-15 % a step by its split, pile 20000 (~33)
   * solved 1.68x faster (docs/solver-machinery.md, "Threads"); a chain of bodies
   * has a level per contact. */
  WIDE_PAR_MIN_BATCHES = 16,
  /* pgs_color: colours at most (one bit set of 64 per block); a group
   * whose every colour is taken overflows, as in Box2D v3 */
  WIDE_COLORS = 64,
  WIDE_PAD = 8, /* doubles per thread's slot (idle block, residual): 64 bytes, own cache line */
  /* JK doubles per plan position: the isotropic layout's 9 columns, the
   * compact one's 15, the full one's 24 (pgs_wide.c, "Layout"); a row
   * step's column c holds its 4 h lanes side by side */
  WIDE_ISO = 9,
  WIDE_COMPACT = 15,
  WIDE_FULL = 24,
  /* Threaded plans: the t blocks of the batch this many ahead are fetched
   * for writing before a batch is swept.  A block another core wrote last
   * (a separator row's body, or one a part's rows share with it) then
   * arrives while the batches before it run, instead of stalling its batch:
   * on two vCPUs ~600 ns apart (core_roundtrip) it took pile 5000's threaded
   * solve from 7.9-8.3 to 6.4-7.0 ms a step (docs/solvers.md, "pgs_part") */
  WIDE_PREFETCH = 4
};

/* The lanes' layouts of J and K (pgs_wide.c, "Layout"), in wide_state's
 * layout: J and K whole; compact rigid-body rows (K's linear columns the
 * blocks' inverse masses times J's); isotropic rigid-body rows (K's
 * angular columns too, the blocks' angular scalars times J's). */
enum { WIDE_LAY_FULL, WIDE_LAY_COMPACT, WIDE_LAY_ISO };
/* A half row step's rk byte (pgs_plan.c, row_kind; pgs_sweep512.c, "Row
 * kinds"): bit l (l < 4) set when lane l's hi is +inf; WIDE_RK_N when every
 * lane is a plain row (mu's sign set) with lo and d +0 and hi +0 or +inf
 * (a contact's normal row, an idle position); WIDE_RK_F when every lane is
 * a findex row with d +0 (a contact's friction rows). */
enum { WIDE_RK_N = 0x10, WIDE_RK_F = 0x20 };
/* A batch's inverse masses (inv_mass) and angular scalars (ang_scalar) when each of the
 * 16 is +0 or one value (a scene of like bodies): that value and the mask
 * of the entries that hold it; ok_m (ok_a) 0 when inv_mass (ang_scalar) is not so.  The
 * AVX-512 sweep then forms the batch's scalars from these 24 bytes instead
 * of reading inv_mass and ang_scalar's 256 (pgs_sweep512.c, batch8). */
typedef struct {
  double cm, ca;
  uint16_t mm, ma;
  uint8_t ok_m, ok_a;
} wide_bsc;

typedef struct {
  void *pgs;        /* pgs's state, for dense and CSR problems */
  int color;        /* pgs_color: the groups in colour order (pgs_color.c) */
  int part;         /* pgs_part: on threads, the groups by parts and a separator (pgs_part.c) */
  int own_ktx;      /* this solve's start and t = K^T x go by the plan's levels (wide_color_ktx):
                    pgs_color, and pgs_part when its plan splits */
  int cap;          /* plan length: 8 n_max (a batch of L row steps takes 4 L or 8 L) */
  int have_avx2;    /* the CPU has AVX2 */
  int prfchw;       /* the CPU has PREFETCHW (a prefetch for writing) */
  int lanes;        /* this solve sweeps in the AVX2 lanes (have_avx2, opt->simd auto) */
  int have_avx512;  /* the CPU has AVX-512 F and DQ */
  int lanes512;     /* this solve's lanes run eight wide (pgs_sweep512.c): have_avx512, opt->simd
                      auto */
  int *row_batch;   /* n_max: batch of each row's group; then the plan position of each row */
  int n;            /* rows of this solve's problem */
  int *group_first; /* n_max + 1: first row of each group (and n after the last) */
  int *group_order; /* n_max: the groups in sweep order */
  int *next_free;   /* n_max + 1: union-find to the first batch at or after b with a free lane */
  int *batch_count; /* n_max + 2: groups per batch, then where each batch ends in group_order */
  int *order;       /* cap: row at each plan position, -1 for an idle position */
  int *findex_pos;  /* cap: plan position of the findex row (own position if none) */
  unsigned char *findex_sel; /* cap / 4, one per half row step of the lanes: bit l (4 + l) set when
                          lane l's findex row is the same lane's one (two) row steps before, in
                          the batch: its x is then in a register (pgs_sweep512.c) */
  unsigned char *row_kind;   /* cap / 4, one per half row step (made where lanes512): which of lo,
                          hi, mu and d the AVX-512 sweep need not read (pgs_sweep512.c) */
  /* cap each, in plan order: x, b, omega / A_ii, the bounds, the d of A = J K^T + diag(d) */
  double *plan_x, *plan_b, *invd, *lo, *hi, *plan_d;
  double *aii;        /* cap: A_ii in plan order (0 at idle positions), for the check's row sizes */
  double *mu;         /* cap: friction coefficient of findex rows, -1 for other rows */
  double *JK;         /* cap / 4 half row steps x 96: J slot 0 (6 columns x 4 lanes), J slot 1,
                      K slot 0, K slot 1; or x 60 when compact, x 36 when isotropic
                      (pgs_wide.c, "Layout") */
  int *batch_first;   /* n_max batches: each batch's first plan position, */
  int *batch_steps;   /* its row steps */
  int *batch_halves;  /* and its halves (1 or 2) */
  double **batch_t;   /* n_max batches x 16: per half, the t block of slot 0 of lanes 0..3,
                      of slot 1 */
  double *inv_mass;   /* n_max batches x 16: per half, slot 0's inverse mass (block_mass) of lanes
                      0..3, slot 1's (0 for a static slot or an idle lane) */
  double *ang_scalar; /* n_max batches x 16: the same of the angular scalars (block_ang) */
  wide_bsc *batch_scalars; /* n_max batches: inv_mass and ang_scalar in short where they allow
                              it (fill_jk, lanes512) */
  int *entry_block;        /* n_max batches x 16: the block of each entry of inv_mass (-1: none) */
  double *block_mass;     /* 2 n_max blocks: the rigid-body scalar of each block (derive_masses), */
  double *block_mass_top; /* and the top of its interval; both kept for the next solve */
  double *block_ang;      /* 2 n_max blocks: the same of the angular scalar (NaN: the block has
                            none, it is not isotropic), */
  double *block_ang_top;  /* and the top of its interval */
  int masses_kept; /* block_mass (and block_ang) made the last solve's compact layout: try them first */
  int layout;      /* this solve's JK layout: WIDE_LAY_FULL, _COMPACT or _ISO */
  double *idle;          /* WIDE_PAD per part: the t block of static slots and idle lanes (stays
                      0); each part (thread) its own, as every lane scatters its blocks back */
  double *part_measures; /* WIDE_PAD per part: a sweep's residual max and poison of each part */
  int *level_first;      /* n_max + 2: the first batch of each level (threaded plan) */
  int *part_first;       /* n_max + 2: the first batch of part u of level l at np l + u, and
                      nbat at np nlev (threaded plan: np nlev <= nbat / 16 < n_max) */
  int nlev;              /* levels of the threaded plan (0: the first-fit plan) */
  int np;                /* parts the lanes' batches are split into: this solve's threads, or 1 */
  int nbat;              /* batches in the lanes */
  int ncol;              /* plan positions [0, ncol) are in lanes, [ncol, len) sequential */
  int len;
  int *key_blk;        /* 2 n_max: each row's block pair when the kept schedule was made */
  int *key_fx;         /* n_max: and each row's findex (when it had one) */
  int key_n;           /* rows of the kept schedule and layout (pgs_plan.c, plan_kept); -1: none */
  int key_hasfx;       /* whether that problem had findex */
  int key_ng;          /* its groups */
  const double *key_t; /* the operator's t its layout's block pointers point into */
  int ktx_due;         /* pgs_color: after this sweep, t = K^T x afresh (wide_color_ktx) */
  int ktx_lanes;       /* t = K^T x summed in the lanes gives slv_op_ktx's bits (wide_plan: one
                    thread, the lanes, no sequential row, every group a whole run) */
} wide_state;

/* Where a coloured group marks what later groups must avoid: each block's
 * colours so far (used), and from row fwd_from on each row's colours of
 * the earlier groups whose findex rows it holds (fwd; fwd_from = n until
 * the first such group). */
typedef struct {
  uint64_t *used, *fwd;
  int fwd_from;
} color_marks;

/* A row's block pair as one 64-bit word (two rows have the same pair iff
 * their words are equal). */
static inline uint64_t row_pair(const int *fb, int i) {
  uint64_t u;
  memcpy(&u, fb + 2 * (size_t)i, sizeof u);
  return u;
}

/* The end of the group that starts at row i: the run of rows on i's block
 * pair, at most WIDE_GMAX rows. */
static inline int group_end(const slv_fac *f, int i) {
  const int *fb = f->blk;
  const uint64_t pair = row_pair(fb, i);
  const int last = f->n - i > WIDE_GMAX ? i + WIDE_GMAX : f->n;
  int e = i + 1;
  while (e < last && row_pair(fb, e) == pair) e++;
  return e;
}

/* Plan positions [k0, k1) of a batch run [b0, b1) of the lanes. */
static inline void batch_span(const wide_state *s, int b0, int b1, int *k0, int *k1) {
  *k0 = b0 < s->nbat ? s->batch_first[b0] : s->ncol;
  *k1 = b1 < s->nbat ? s->batch_first[b1] : s->ncol;
}

/* JK doubles per plan position in a layout. */
static inline size_t wide_cols(int layout) {
  return layout == WIDE_LAY_ISO ? WIDE_ISO : layout == WIDE_LAY_COMPACT ? WIDE_COMPACT : WIDE_FULL;
}

/* A check's lane accumulators into pm (check_rows's layout: the natural
 * map's maximum, the scale-invariant one's, the poison, max |b|): v holds
 * the four measures' lanes one after another, `lanes` each. */
static inline void wide_check_fold(double pm[4], const double *v, int lanes) {
  for (int l = 0; l < lanes; l++) {
    pm[0] = fmax(pm[0], v[l]);
    pm[1] = fmax(pm[1], v[lanes + l]);
    pm[2] += v[2 * lanes + l];
    pm[3] = fmax(pm[3], v[3 * lanes + l]);
  }
}

static inline const char *wide_name(const wide_state *s) {
  return s->color ? "pgs_color" : s->part ? "pgs_part" : "pgs_wide";
}

#if PGS_WIDE_X86

/* ---- the lanes' shared pieces (pgs_lanes.c, pgs_sweep512.c) ---- */

/* The plan's arrays, for the sweep: x is the only one written, so held in
 * locals the others need not be reloaded after each store to it. */
typedef struct {
  double *restrict plan_x;
  const double *restrict lo,
      *restrict hi, *restrict mu, *restrict plan_b, *restrict plan_d, *restrict invd, *restrict JK;
  const int *restrict findex_pos;
  const unsigned char *restrict findex_sel;
  const unsigned char *restrict row_kind; /* the AVX-512 sweep's only (NULL in the AVX2 lanes') */
} lane_arrays;

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

/* The inverse of gather6: six 4-lane columns back to the blocks at tp[0..3].
 * Lanes whose block is the idle one all write its zeros. */
__attribute__((target("avx2"))) static inline void scatter6(double *const *tp, const __m256d T[6]) {
  __m256d t0 = _mm256_unpacklo_pd(T[0], T[1]), t1 = _mm256_unpackhi_pd(T[0], T[1]);
  __m256d t2 = _mm256_unpacklo_pd(T[2], T[3]), t3 = _mm256_unpackhi_pd(T[2], T[3]);
  __m256d u02 = _mm256_unpacklo_pd(T[4], T[5]), u13 = _mm256_unpackhi_pd(T[4], T[5]);
  _mm256_storeu_pd(tp[0], _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm_storeu_pd(tp[0] + 4, _mm256_castpd256_pd128(u02));
  _mm256_storeu_pd(tp[1], _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm_storeu_pd(tp[1] + 4, _mm256_castpd256_pd128(u13));
  _mm256_storeu_pd(tp[2], _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm_storeu_pd(tp[2] + 4, _mm256_extractf128_pd(u02, 1));
  _mm256_storeu_pd(tp[3], _mm256_permute2f128_pd(t1, t3, 0x31));
  _mm_storeu_pd(tp[3] + 4, _mm256_extractf128_pd(u13, 1));
}

/* The 16 t blocks at tp (a batch's), each over up to two cache lines,
 * fetched ahead for writing: PREFETCHW where the caller's target has it
 * (a block last written on another core comes over once, owned), else a
 * plain prefetch. */
__attribute__((always_inline)) static inline void prefetch_blocks(double *const *tp) {
  for (int at = 0; at < 16; at++) {
    __builtin_prefetch(tp[at], 1, 3);
    __builtin_prefetch(tp[at] + 5, 1, 3);
  }
}

#endif

/* ---- the solvers' own schedules (pgs_wide.c, pgs_color.c, pgs_part.c) ----
 * Each cuts the rows into groups and gives each group its batch (and its
 * level or colour), in s->row_batch, s->group_first, s->batch_count, s->nbat (s->level_first,
 * s->nlev); returns the number of groups.  The operator's t is scratch
 * meanwhile. */
int wide_group_and_schedule(wide_state *s, const slv_op *op);
int wide_group_and_level(wide_state *s, const slv_op *op);
int wide_group_and_color(wide_state *s, const slv_op *op);
/* -1: a part too small to be worth its thread */
int wide_group_and_partition(wide_state *s, const slv_op *op, int np);
/* pgs_wide's first fit, which pgs_part's parts use too (pgs_wide.c) */
int wide_first_slot(const wide_state *s, const slv_problem *p, const int *next, int b0, int b1,
                    int i, int e, int *seq);
int wide_first_fit_place(wide_state *s, int *next, int b0, int b1, int c);
/* whether a group is sequential (pgs_wide.c) */
int wide_has_sequential(const slv_op *op);
/* a group's colour, which pgs_part's separator uses too (pgs_color.c) */
int wide_color_group(const wide_state *s, const slv_problem *p, color_marks *cm, int b0, int b1,
                     int i, int e);
/* t = K^T x summed by the plan's levels (pgs_color.c): on one thread, and
 * from inside the team (every thread calls it) */
void wide_color_ktx(wide_state *s, slv_op *op);
void wide_color_ktx_team(wide_state *s, slv_op *op);

/* ---- the plan (pgs_plan.c) ---- */
void wide_levels_into_batches(wide_state *s, int ng, int nl);
void wide_plan(wide_state *s, const slv_op *op, double omega, int threads);
void wide_plan_rowscale(const wide_state *s, slv_op *op);
void wide_log_plan(const wide_state *s, const slv_problem *p, const slv_options *opt);

#if PGS_WIDE_X86
/* Batches [bt0, bt1) in the AVX-512 lanes (pgs_sweep512.c): the residual of
 * their rows; adds w * 0 to *poison.  Only where have_avx512. */
double wide_sweep_lanes512(wide_state *s, int bt0, int bt1, double *poison);
/* The check's measures of the plan's x over the lanes' batches into pm
 * (check_lanes's, pgs_lanes.c: the same bits), and t += K^T x of the
 * lanes' rows (ktx_lanes's, on t zeroed: the same bits), in the AVX-512
 * lanes (pgs_sweep512.c).  Only where have_avx512. */
void wide_check_lanes512(const wide_state *s, double xs, double cap, double *pm);
void wide_ktx_lanes512(const wide_state *s);
#endif

/* ---- the state and the solve (pgs_lanes.c): every solver's slv_impl ---- */
slv_status wide_init(void *st, int n_max, const slv_options *opt);
void wide_free(void *st);
slv_status wide_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                      slv_result *res, slv_hist *h);

#endif /* PGS_LANES_H */
