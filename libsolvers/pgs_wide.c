/* pgs_wide.c -- projected Gauss-Seidel on factored storage, groups of rows
 * on one body pair swept four (or eight) at a time, one group per SIMD lane.
 *
 * The sweep is pgs's factored sweep (pgs.c: t = K^T x kept current, row i
 * reads w_i = b_i + J_i . t + d_i x_i and moves x_i <- mid(lo_i, hi_i,
 * x_i - omega w_i / A_ii), adding the change times K_i to t), with rows
 * that touch no common body (block) run side by side.
 *
 * Groups.  A group is a run of consecutive rows on the same (ordered) pair
 * of blocks, at most WIDE_GMAX = 12 rows (a contact's normal and friction
 * rows, a box-box manifold's four points, a joint's rows); a longer run is
 * cut every 12 rows.  Within a group the rows keep their order.
 *
 * Batches.  A group with a row whose findex row lies in a later group is
 * sequential.  The others get batches in group order: a group must come
 * after every earlier group on either of its blocks and after the groups
 * of its rows' findex rows (findex rows inside the group do not count),
 * and it takes the first batch past those that has fewer than eight
 * groups (first fit: a union-find over the full batches).  Groups of one
 * batch therefore share no block and read no x of each other, and every
 * pair of groups that does share a block, or a findex row, is swept in row
 * order.
 *
 * Order.  The sweep visits batch 0, 1, ..., then the sequential groups'
 * rows in row order.  A batch's groups go through the AVX2 lanes together,
 * its first four in one half, the rest (if any) in a second half:
 * the two 6-blocks of t of each lane are gathered once (4x4 transposes),
 * the groups' rows run in lock step with t in registers (24 products,
 * clamp, 12 updates per row), and t is scattered back after the last row.
 * The two halves of a batch run in the same loop, a row step of each per
 * iteration: independent chains, so one half's latency hides the other's.
 * Rows that share no block commute (their updates read and write disjoint
 * parts of t), so this computes what pgs computes in row order: the
 * iterates are pgs's on the problem itself, bit for bit (each lane does
 * pgs's operations in pgs's association; no fused multiply-add), except
 * that the sequential groups (none in the worlds of libdynamics, which
 * write a contact's normal row before its friction rows) move to the end
 * of the sweep.  [Level scheduling of a Gauss-Seidel / triangular sweep:
 * Anderson and Saad 1989; the wide contact solver of Box2D v3 (Catto 2024,
 * "SIMD Matters") colours the graph greedily instead (pgs_color, below),
 * which reorders dependent rows, and on the peers' box pyramid left more
 * penetration at 50 sweeps than the row order does: experiments/MEASUREMENTS.md,
 * "Measurements: solvers".]
 *
 * Why: a contact's three rows and the four points of a box-box manifold
 * all act on the same two bodies, so pgs's natural order is a chain of
 * dependent updates through memory.  Here four unrelated chains run per
 * instruction (two such instructions in flight when the batch has two
 * halves) and the blocks of t stay in registers across a group.  Each
 * row is still a chain of dependent operations (t, J . t, w, the clamp, the
 * move, t again), so pgs forms b + fd x and omega / A_ii off that chain.
 *
 * Layout, built once per solve (sized at init for n_max rows): a batch of
 * groups of lengths L0, .., L7 in h halves takes 4 h max(L) plan positions
 * (row step r, half u, lane l at 4 h r + 4 u + l); positions past a lane's
 * group are idle (zero J and K, bounds 0..0, omega / A_ii = 0: they never
 * move), at most 8 n positions in all.  x, b, the bounds and omega / A_ii
 * are copied into plan order, J and K into 4-lane columns per half row
 * step: 96 doubles (J slot 0's six columns, J slot 1's, K slot 0's, K
 * slot 1's).  Compact layout: when every block b has a scalar m_b with
 * K's linear columns exactly fl(m_b J) on each of its row slots (a rigid
 * body, m_b = 1 / mass: derive_masses finds it from J and K themselves,
 * value by value) and every row in the lanes with both slots on bodies has
 * J slot 1's linear columns minus slot 0's (a direction at a point, as a
 * rigid body pair sees it; checked value by value while the columns are
 * formed), 60 doubles: JL (slot 0's linear J, or minus slot 1's if slot 0
 * is static), J's angular columns of each slot, K's of each slot; the
 * sweep forms K's linear columns as m_b JL, which pgs's K holds to the
 * bit.  That is 480 bytes a half row step in place of 768: with two halves
 * in flight, a large world's sweep waits on that stream (neither change
 * was faster without the other).  Same products, same sums: the iterates
 * do not change.  Grouping, batching and the masses cost O(rows) per
 * solve; the per-block batch marks live in the operator's t before it
 * gets K^T x (so nothing is allocated).  The scalars of a compact solve are
 * kept in the workspace and tried first at the next solve (a world's
 * bodies keep their masses): the check that forms the compact columns
 * confirms them entry by entry, and only when one fails are they derived
 * again (a pass over J and K: 2-3 % of a world step).  On a CPU without AVX2, or with
 * opt.simd = SLV_SIMD_OFF (to test that path and to time it on any CPU),
 * the same order is swept one row at a time (same iterates): by pgs
 * itself when it is the row order (no sequential group; pgs's loop has no
 * plan to build or read through; result.method says "pgs"), else by the
 * plan.
 *
 * Dense and CSR problems have no blocks to group: they are solved by pgs
 * itself (same options, same result, result.method "pgs").  Statuses and
 * the stopping rule are pgs's: SLV_CONVERGED, SLV_MAX_ITER, SLV_NOT_FINITE,
 * SLV_TIME_LIMIT, SLV_INTERRUPTED (polled after each sweep; the last iterate).
 *
 * The check.  The rule's exact measures (at the start, on the trigger and
 * every check_every sweeps: docs/convergence.md, "Stopping tests") are
 * the test's alone and are taken in the lanes too (wide_measure): t = K^T
 * x afresh as slv_op_ktx forms it, each batch's blocks gathered as a sweep
 * gathers them, and per lane w = (d x + J . t) + b as slv_op_w sums it,
 * then slv_mid_res and slv_scaled_row, the same IEEE operations, so the
 * numbers of slv_residual_test_op (signs of zero aside, which neither
 * measure reads; the maxima are exact in any order).  The row sizes are
 * the plan's A_ii (A_ii > 0: SLV_CAP_NEEDS_POS_DIAG), which also become
 * the operator's (slv_op_rowscale_set), so the generic layer's measures at
 * the end of the solve do not read A for them again; xd is the largest
 * slv_alone of the plan's rows.  Under the 2-norm option (res_rel_2 is
 * summed in residual.c's chunks) and from pgs_color's t (summed in colour
 * order, not slv_op_ktx's) the check is slv_residual_test_op itself.
 *
 * Threads.  With opt.threads = T > 1, in the lanes, and from
 * WIDE_PAR_MIN_GROUPS = 4096 groups on, the plan is built for T threads
 * (a threaded plan; else the one above).  Levels replace first fit: each
 * group takes the first level after every earlier group on either of its
 * blocks and after the groups of its findex rows (level scheduling
 * proper), and each level is cut into batches of up to eight groups.  The
 * groups of a level share no block, so neither do its batches; the sweep
 * runs level after level, each level's batches cut into T contiguous
 * parts of about equal work (plan positions), one part per thread, and a
 * barrier ends the level.  One team for the whole solve (a parallel
 * region around the sweep loop, a worksharing loop per level); the
 * sequential rows, the checks and the history run on one thread between
 * sweeps.  The plan's row data and lane columns (fill_all_rows,
 * fill_all_jk) are formed by the same parts, each position alone; the
 * grouping, the levels and the layout stay serial.  Threads write disjoint blocks of t (the blocks of their lanes)
 * and their own idle block and residual slot, and read x only of earlier
 * levels or their own lanes; each row keeps pgs's arithmetic, so the
 * iterates are the same bits on any T as on one thread, which are pgs's.
 * The plan stays first fit if the levels are too thin to split (fewer
 * than WIDE_PAR_MIN_BATCHES = 16 batches per thread and level on average:
 * a chain of bodies has a level per contact).  Without the lanes nothing
 * splits: that path is pgs's own sweep, which stops by pgs's rule, and a
 * threaded plan there would change the sweep count with T.  What it buys
 * (docs/solver-machinery.md, "Threads"): on pile 5000 (40,821 rows, 90 levels of
 * ~19 batches, ~10 per thread at T = 2) nothing, so that plan stays on one
 * thread (forced to split, its steps took 4-15 % longer: each level costs
 * a barrier, ~0.5 us, and even without barriers two threads swept only
 * ~1.2x faster); on pile 20000 (162,315 rows, 102 levels of ~67 batches)
 * 1.68x on the solve, 1.42x on the step.  Each level's barrier waits for every thread, so on
 * a machine whose cores are busy with other work a threaded solve can be
 * many times slower than on one thread.  No allocation: the levels,
 * parts, idle blocks and residual slots are sized at init
 * (SLV_THREADS_MAX parts).
 *
 * pgs_color (a second solver on this file's machinery: the state's color
 * flag).  The same groups, swept in a greedy graph-coloured order instead
 * of the row order, as Box2D v3 colours its contacts (Catto 2024, "SIMD
 * Matters"; its constraint_graph.c also caps the colours and sweeps an
 * overflow set on one thread).  Each group, in group order, takes the
 * smallest colour (0 .. WIDE_COLORS - 1 = 63) that no earlier group holds
 * on either of its blocks, nor an earlier group it shares a findex
 * dependency with (the group of one of its rows' findex rows, or a group
 * with a row whose findex row is in it: a findex row counts as a shared
 * block, in both directions).  The groups of one colour therefore share no
 * block and read no x of each other.  A group with all 64 colours taken (a
 * body with that many neighbours) overflows: it is swept after the
 * colours, one row at a time in row order, on one thread (the plan's
 * sequential rows; pgs_wide's sequential groups do not arise, as a findex
 * row in a later group is just another edge).  Each colour is cut into
 * batches of up to eight groups in group order, and the sweep visits
 * colour 0, 1, ...: a colour is a level that need not respect the row
 * order, so the threaded machinery above runs it unchanged (each colour's
 * batches in T contiguous parts, one barrier per colour), with far fewer
 * barriers: pile 5000 has 9 colours of ~190 batches where its level
 * schedule has 90 levels of ~19.  The colouring and the batches depend on
 * the problem only, never on opt.threads (the parts only say which thread
 * sweeps which batch).  t = K^T x, at the start and at the check sweeps,
 * is summed colour by colour (color_ktx: a block has one group per colour,
 * whose rows are summed in registers and added once), then over the
 * overflow rows, on one thread or by the parts with a barrier per colour:
 * the same bits either way (not slv_op_ktx's row order), so the exact
 * measures form their own (slv_residual_test_op).  So x, the sweep count and
 * the residuals are the same bits for every T; without the lanes the same
 * plan is swept one row at a time, to the same iterates, and on threads as
 * well.  They are not pgs's: the row order is another.  Dense and CSR
 * problems go to pgs, as for pgs_wide (result.method "pgs").  It splits on
 * the thresholds of the threaded plan (per colour).  What two threads buy,
 * and why not always, is measured in docs/solvers.md ("Threads"); on one
 * thread it is slower than pgs_wide.
 *
 * pgs_part (a third solver on this file's machinery: the state's part
 * flag; partitioned Gauss-Seidel, as distributed-memory smoothers split a
 * sweep into processor interiors and boundary colours, Adams 2001).  On
 * one thread, and whenever its plan does not split, it is pgs_wide: the
 * same plan, the same iterates (pgs's), the same bits.  On opt.threads =
 * T > 1 threads, in the lanes, from WIDE_PAR_MIN_GROUPS rows on: the
 * bodies are cut into T parts and each thread sweeps its part's rows in
 * pgs_wide's order while the others sweep theirs; the rows between parts
 * (the separator) follow, coloured as pgs_color colours.  Concretely:
 * each block's first row is the first row of the first group on it, each
 * group spans [glo, ghi] of its blocks' first rows, and the cuts 0 = c_0
 * <= c_1 <= ... <= c_T = n + 1 are placed in turn, c_{u+1} the first row
 * c >= c_u at which (T - u - 1) times the rows of the groups with glo >=
 * c_u and ghi < c reach the rows of the groups with glo >= c (part u's
 * interior as large as an equal share of what lies past it:
 * partition_cuts).  A group whose span lies between two cuts, and whose
 * findex rows are its own, is interior to that part; any other group is
 * on the separator.  Why the first rows: a world's rows come in its
 * broadphase's order (pairs along the sweep axis), so a body's first row
 * says where along that axis it is first met, and the cuts are planes
 * across the pile (pile 5000: 7 % of the rows on the separator at step
 * 150).  The plan's level 0 is the interiors, part u's groups batched
 * first fit as pgs_wide batches a problem (each part on its own thread:
 * its blocks, batches and rows are its own), parts one after another;
 * levels 1, 2, ... are the separator's colours (color_group among
 * separator groups only: the interiors are swept before, so they
 * constrain nothing), cut into parts of equal work as pgs_color's
 * colours; then the separator's overflow rows.  Part u of level 0 is
 * swept by thread u, and each colour's parts by the threads, with a
 * barrier after each level.  Every row does pgs's step, so a sweep is
 * pgs's sweep of the rows permuted into that order (each part's groups in
 * group order, then each colour's in group order, then the overflow rows);
 * t = K^T x at the start and at the check sweeps is summed by the levels
 * (color_ktx: a part's groups one after another, a colour's once a
 * block).  The plan depends on T, so the iterates are deterministic for a
 * given T, not the same across T; it falls back to pgs_wide's plan when a
 * part has fewer than WIDE_PAR_MIN_BATCHES interior batches.  What it
 * buys over pgs_color: each thread's sweep is pgs_wide's order over half
 * the bodies (pgs_color's colour order costs 23 % more a sweep on one
 * thread), and its one thread is pgs_wide's; docs/solvers.md, "pgs_part".
 *
 * With a log callback set, each solve logs its plan (SLV_LOG_DEBUG): rows, batches, busy lane
 * slots, sequential rows (and, on threads, the levels and the threads) and
 * the sweep taken; pgs_color's names its overflow rows and colours (and
 * "on T threads" when it splits), pgs_part's its parts, separator rows and
 * colours when it splits.  docs/solvers.md, "pgs_wide", "pgs_color",
 * "pgs_part".
 */
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

extern const slv_solver slv_solver_pgs;

enum {
  WIDE_SEQ = INT_MAX, /* the batch of the sequential group */
  WIDE_GMAX = 12,     /* rows per group at most */
  WIDE_BATCH = 8,     /* groups per batch at most: two halves of four lanes */
  /* Threads (see the header, "Threads"): from this many groups on.  A
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
  /* Threaded plans: the t blocks of the batch this many ahead are fetched
   * for writing before a batch is swept.  A block another core wrote last
   * (a separator row's body, or one a part's rows share with it) then
   * arrives while the batches before it run, instead of stalling its batch:
   * on two vCPUs ~600 ns apart (core_roundtrip) it took pile 5000's threaded
   * solve from 7.9-8.3 to 6.4-7.0 ms a step (docs/solvers.md, "pgs_part") */
  WIDE_PREFETCH = 4
};

typedef struct {
  void *pgs;     /* pgs's state, for dense and CSR problems */
  int color;     /* pgs_color: the groups in colour order (see "pgs_color" below) */
  int part;      /* pgs_part: on threads, the groups by parts and a separator ("pgs_part") */
  int own_ktx;   /* this solve's start and t = K^T x go by the plan's levels (color_ktx):
                    pgs_color, and pgs_part when its plan splits */
  int cap;       /* plan length: 8 n_max (a batch of L row steps takes 4 L or 8 L) */
  int have_avx2; /* the CPU has AVX2 */
  int prfchw;    /* the CPU has PREFETCHW (a prefetch for writing) */
  int lanes;     /* this solve sweeps in the AVX2 lanes (have_avx2, opt->simd auto) */
  int *rowb;     /* n_max: batch of each row's group; then the plan position of each row */
  int n;         /* rows of this solve's problem */
  int *gfirst;   /* n_max + 1: first row of each group (and n after the last) */
  int *gsorted;  /* n_max: the groups in sweep order */
  int *nfree;    /* n_max + 1: union-find to the first batch at or after b with a free lane */
  int *cnt;      /* n_max + 2: groups per batch, then where each batch ends in gsorted */
  int *order;    /* cap: row at each plan position, -1 for an idle position */
  int *fpos;     /* cap: plan position of the findex row (own position if none) */
  double *xp, *bp, *invd, *lo, *hi, *fd; /* cap, in plan order; invd: omega / A_ii */
  double *aii;       /* cap: A_ii in plan order (0 at idle positions), for the check's row sizes */
  double *mu;        /* cap: friction coefficient of findex rows, -1 for other rows */
  double *JK;        /* cap / 4 half row steps x 96: J slot 0 (6 columns x 4 lanes), J slot 1,
                      K slot 0, K slot 1; or x 60 when compact (see the header) */
  int *bk, *bL, *bh; /* n_max batches: first plan position, row steps, halves (1 or 2) */
  double **tp;       /* n_max batches x 16: per half, the t block of slot 0 of lanes 0..3,
                      of slot 1 */
  double *im;        /* n_max batches x 16: per half, slot 0's inverse mass (bm) of lanes
                      0..3, slot 1's (0 for a static slot or an idle lane) */
  int *lblk;         /* n_max batches x 16: the block of each entry of im (-1: none) */
  double *bm, *bhi;  /* 2 n_max blocks: the rigid-body scalar of each block (derive_masses),
                      and the top of its interval; kept for the next solve */
  int masses_kept;   /* bm made the last solve's compact layout: try it first */
  int compact;       /* this solve's JK is the compact layout */
  double *idle;      /* WIDE_PAD per part: the t block of static slots and idle lanes (stays
                      0); each part (thread) its own, as every lane scatters its blocks back */
  double *pm;        /* WIDE_PAD per part: a sweep's residual max and poison of each part */
  int *lvl;          /* n_max + 2: the first batch of each level (threaded plan) */
  int *pst;          /* n_max + 2: the first batch of part u of level l at np l + u, and
                      nbat at np nlev (threaded plan: np nlev <= nbat / 16 < n_max) */
  int nlev;          /* levels of the threaded plan (0: the first-fit plan) */
  int np;            /* parts the lanes' batches are split into: this solve's threads, or 1 */
  int nbat;          /* batches in the lanes */
  int ncol;          /* plan positions [0, ncol) are in lanes, [ncol, len) sequential */
  int len;
  int ktx_due; /* pgs_color: after this sweep, t = K^T x afresh (color_ktx) */
} wide_state;

static void wide_free(void *st) {
  wide_state *s = st;
  if (s->pgs) {
    slv_solver_pgs.impl->free(s->pgs);
    free(s->pgs);
  }
  int *iv[] = { s->rowb,  s->gfirst, s->gsorted, s->nfree, s->cnt,
                s->order, s->fpos,   s->bk,      s->bL,    s->bh };
  for (size_t k = 0; k < sizeof iv / sizeof iv[0]; k++) free(iv[k]);
  double *dv[] = { s->xp, s->bp, s->invd, s->lo,  s->hi,   s->mu, s->fd,
                   s->JK, s->im, s->bm,   s->bhi, s->idle, s->aii };
  for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) free(dv[k]);
  free(s->pm);
  free(s->tp);
  free(s->lblk);
  free(s->lvl);
  free(s->pst);
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

static slv_status wide_init(void *st, int n_max, const slv_options *opt) {
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
  s->rowb = malloc(m * sizeof(int));
  s->gfirst = malloc((m + 1) * sizeof(int));
  s->gsorted = malloc(m * sizeof(int));
  s->nfree = malloc((m + 1) * sizeof(int));
  s->cnt = malloc((m + 2) * sizeof(int));
  s->order = malloc(cap * sizeof(int));
  s->fpos = malloc(cap * sizeof(int));
  s->bk = malloc(m * sizeof(int));
  s->bL = malloc(m * sizeof(int));
  s->bh = malloc(m * sizeof(int));
  int fail = !s->rowb || !s->gfirst || !s->gsorted || !s->nfree || !s->cnt || !s->order ||
             !s->fpos || !s->bk || !s->bL || !s->bh;
  double **d[] = { &s->xp, &s->bp, &s->invd, &s->lo, &s->hi, &s->mu, &s->fd, &s->aii };
  for (size_t k = 0; k < sizeof d / sizeof d[0]; k++) {
    *d[k] = aligned_alloc(32, cap * sizeof(double));
    fail |= !*d[k];
  }
  s->JK = aligned_alloc(32, (cap / 4) * 96 * sizeof(double));
  s->tp = malloc(m * 16 * sizeof *s->tp);
  s->im = aligned_alloc(32, m * 16 * sizeof(double));
  s->idle = aligned_alloc(64, WIDE_PAD * SLV_THREADS_MAX * sizeof(double));
  s->pm = aligned_alloc(64, WIDE_PAD * SLV_THREADS_MAX * sizeof(double));
  s->lvl = malloc((m + 2) * sizeof *s->lvl);
  s->pst = malloc((m + 2) * sizeof *s->pst);
  s->lblk = malloc(m * 16 * sizeof *s->lblk);
  s->bm = calloc(2 * m, sizeof(double)); /* defined before the first derive */
  s->bhi = calloc(2 * m, sizeof(double));
  if (fail || !s->JK || !s->tp || !s->im || !s->lblk || !s->idle || !s->pm || !s->lvl || !s->pst ||
      !s->bm || !s->bhi) {
    wide_free(s);
    return SLV_ERR_NOMEM;
  }
#if PGS_WIDE_X86
  __builtin_cpu_init();
  s->have_avx2 = __builtin_cpu_supports("avx2");
  s->prfchw = cpu_has_prefetchw();
#endif
  return SLV_OK;
}

/* The first batch at or after b with a free lane (path halving). */
static int first_free(int *nfree, int b) {
  while (nfree[b] != b) {
    nfree[b] = nfree[nfree[b]];
    b = nfree[b];
  }
  return b;
}

/* The end of the group that starts at row i: the run of rows on i's block
 * pair, at most WIDE_GMAX rows. */
static int group_end(const slv_fac *f, int i) {
  const int *fb = f->blk;
  int e = i + 1;
  while (e < f->n && e - i < WIDE_GMAX && fb[2 * e] == fb[2 * i] && fb[2 * e + 1] == fb[2 * i + 1])
    e++;
  return e;
}

/* Whether a group is sequential: a row of it has its findex row in a
 * later group (then the plan's order is not the row order). */
static int has_sequential(const slv_op *op) {
  const slv_problem *p = op->p;
  if (!p->findex) return 0;
  for (int i = 0, e; i < p->n; i = e) {
    e = group_end(&op->f, i);
    for (int r = i; r < e; r++)
      if (p->findex[r] >= e) return 1;
  }
  return 0;
}

/* The first slot (batch, or level) group [i, e) may take: after the slot
 * of the last earlier group on either of its blocks b0, b1 (next[b] = 1 +
 * that slot, 0 if none; b < 0: static) and after the slots of its rows' findex rows (rowb).
 * *seq = 1 when a findex row lies in a later group (the group is then
 * sequential and the slot is meaningless). */
static int first_slot(const wide_state *s, const slv_problem *p, const int *next, int b0, int b1,
                      int i, int e, int *seq) {
  int c = 0;
  *seq = 0;
  if (b0 >= 0 && next[b0] > c) c = next[b0];
  if (b1 >= 0 && next[b1] > c) c = next[b1];
  for (int r = i; p->findex && r < e; r++) {
    int f = p->findex[r];
    if (f >= e)
      *seq = 1;
    else if (f >= 0 && f < i && s->rowb[f] != WIDE_SEQ && s->rowb[f] + 1 > c)
      c = s->rowb[f] + 1;
  }
  return c;
}

/* A group on blocks b0, b1 into the first batch at or after c with a free
 * lane (first fit); marks the batch on both blocks (next) and returns it. */
static int first_fit_place(wide_state *s, int *next, int b0, int b1, int c) {
  c = first_free(s->nfree, c);
  if (++s->cnt[c] == WIDE_BATCH) s->nfree[c] = c + 1;
  if (b0 >= 0) next[b0] = c + 1;
  if (b1 >= 0) next[b1] = c + 1;
  return c;
}

/* Cut the rows into groups and give each its batch (see the header);
 * returns the number of groups, s->nbat the number of batches, s->cnt[b]
 * the groups in batch b.  The operator's t holds per-block ints meanwhile. */
static int group_and_schedule(wide_state *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int n = p->n, ng = 0, nb = 0;
  const int *fb = op->f.blk;
  int *next = (int *)op->t; /* per block: 1 + the batch of its last group, 0 if none */
  memset(next, 0, (size_t)op->f.nb * sizeof *next);
  for (int b = 0; b <= n; b++) s->nfree[b] = b;
  memset(s->cnt, 0, ((size_t)n + 1) * sizeof *s->cnt);
  for (int i = 0, e; i < n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    e = group_end(&op->f, i);
    int seq, c = first_slot(s, p, next, b0, b1, i, e, &seq); /* the first batch it may join */
    if (seq) {
      c = WIDE_SEQ;
    } else {
      c = first_fit_place(s, next, b0, b1, c); /* c <= ng - 1 < n: batch ng - 1 is never full */
      if (c + 1 > nb) nb = c + 1;
    }
    for (int r = i; r < e; r++) s->rowb[r] = c;
    s->gfirst[ng++] = i;
  }
  s->gfirst[ng] = n;
  s->nbat = nb;
  return ng;
}

/* The batches of levels (or colours) 0 .. nl - 1 of the ng groups: each
 * level's groups, held in rowb by their level and counted in s->nfree,
 * cut into batches of up to eight in group order.  Sets s->lvl[l] (the
 * first batch of level l, s->lvl[nl] = nbat), s->nbat, s->nlev, s->cnt[bt]
 * (the groups of batch bt) and rowb (the batch of each row's group). */
static void levels_into_batches(wide_state *s, int ng, int nl) {
  int *per = s->nfree;
  s->lvl[0] = 0;
  for (int l = 0; l < nl; l++) {
    s->lvl[l + 1] = s->lvl[l] + (per[l] + WIDE_BATCH - 1) / WIDE_BATCH;
    per[l] = 0;
  }
  s->nbat = s->lvl[nl];
  s->nlev = nl;
  memset(s->cnt, 0, ((size_t)s->nbat + 1) * sizeof *s->cnt);
  for (int g = 0; g < ng; g++) { /* the level's next batch with a free lane, in group order */
    int i = s->gfirst[g], l = s->rowb[i];
    if (l == WIDE_SEQ) continue;
    int bt = s->lvl[l] + per[l]++ / WIDE_BATCH;
    s->cnt[bt]++;
    for (int r = i; r < s->gfirst[g + 1]; r++) s->rowb[r] = bt;
  }
}

/* The threaded plan's schedule (see the header, "Threads"): each group
 * takes the first level after every earlier group on either of its
 * blocks and after the groups of its findex rows (classic level
 * scheduling: no first fit, so a level's groups are exactly those with
 * nothing left to wait for), and each level is cut into batches of up to
 * eight groups in group order.  Groups of one level share no block and
 * read no x of each other, so neither do the batches of one level; every
 * pair of groups sharing a block or a findex row is in row order across
 * levels.  Returns the number of groups, with s->nbat, s->cnt as
 * group_and_schedule, s->nlev the levels and s->lvl[l] the first batch of
 * level l (s->lvl[nlev] = nbat).  The operator's t holds per-block ints
 * meanwhile, s->nfree the groups per level. */
static int group_and_level(wide_state *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int n = p->n, ng = 0, nl = 0;
  const int *fb = op->f.blk;
  int *next = (int *)op->t; /* per block: 1 + the level of its last group, 0 if none */
  int *per = s->nfree;      /* groups per level, then how many of them are placed */
  memset(next, 0, (size_t)op->f.nb * sizeof *next);
  memset(per, 0, ((size_t)n + 1) * sizeof *per);
  for (int i = 0, e; i < n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    e = group_end(&op->f, i);
    int seq, c = first_slot(s, p, next, b0, b1, i, e, &seq); /* rowb: each row's level for now */
    if (seq) {
      c = WIDE_SEQ;
    } else {
      per[c]++;
      if (b0 >= 0) next[b0] = c + 1;
      if (b1 >= 0) next[b1] = c + 1;
      if (c + 1 > nl) nl = c + 1; /* c <= ng < n */
    }
    for (int r = i; r < e; r++) s->rowb[r] = c;
    s->gfirst[ng++] = i;
  }
  s->gfirst[ng] = n;
  levels_into_batches(s, ng, nl);
  return ng;
}

/* Where a coloured group marks what later groups must avoid: each block's
 * colours so far (used), and from row fwd_from on each row's colours of
 * the earlier groups whose findex rows it holds (fwd; fwd_from = n until
 * the first such group). */
typedef struct {
  uint64_t *used, *fwd;
  int fwd_from;
} color_marks;

/* The colour of group [i, e) on blocks b0, b1 (see group_and_color): the
 * smallest below WIDE_COLORS that neither block holds, nor the group of
 * one of its rows' earlier findex rows (rowb[f] < WIDE_COLORS: a colour;
 * other values put no constraint), nor an earlier group with a findex row
 * in it; WIDE_SEQ if all are taken.  Marks the colour in cm. */
static int color_group(const wide_state *s, const slv_problem *p, color_marks *cm, int b0, int b1,
                       int i, int e) {
  int ahead = 0;
  uint64_t taken = (b0 >= 0 ? cm->used[b0] : 0) | (b1 >= 0 ? cm->used[b1] : 0);
  for (int r = i; p->findex && r < e; r++) {
    int f = p->findex[r];
    if (r >= cm->fwd_from) taken |= cm->fwd[r];
    if (f >= e)
      ahead = 1;
    else if (f >= 0 && f < i && s->rowb[f] < WIDE_COLORS)
      taken |= UINT64_C(1) << s->rowb[f];
  }
  if (!~taken) return WIDE_SEQ;
  int c = __builtin_ctzll(~taken);
  uint64_t bit = UINT64_C(1) << c;
  if (b0 >= 0) cm->used[b0] |= bit;
  if (b1 >= 0) cm->used[b1] |= bit;
  if (ahead) { /* the later groups holding its findex rows must avoid c */
    if (cm->fwd_from == p->n) {
      memset(cm->fwd + e, 0, (size_t)(p->n - e) * sizeof *cm->fwd);
      cm->fwd_from = e;
    }
    for (int r = i; r < e; r++)
      if (p->findex[r] >= e) cm->fwd[p->findex[r]] |= bit;
  }
  return c;
}

/* pgs_color's schedule (see "pgs_color" in the header): each group, in
 * group order, takes the smallest colour below WIDE_COLORS that no earlier
 * group on either of its blocks holds, nor an earlier group it shares a
 * findex dependency with, in either direction (the group of one of its
 * rows' findex rows, or a group with a findex row in it); a group with
 * all WIDE_COLORS taken overflows (WIDE_SEQ: swept after the colours, one
 * row at a time in row order).  Then each colour is cut into batches as a
 * level is (levels_into_batches).  Returns the number of groups, with
 * s->nlev the colours.  Meanwhile the operator's t holds each block's
 * colours (a bit set), s->xp each row's colours of the earlier groups
 * whose rows have their findex row there (only from the first such group
 * on), s->nfree the groups per colour. */
static int group_and_color(wide_state *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int n = p->n, ng = 0, nl = 0;
  const int *fb = op->f.blk;
  color_marks cm = { (uint64_t *)op->t, (uint64_t *)s->xp, n };
  int *per = s->nfree; /* groups per colour */
  memset(cm.used, 0, (size_t)op->f.nb * sizeof *cm.used);
  memset(per, 0, ((size_t)(n < WIDE_COLORS ? n : WIDE_COLORS) + 1) * sizeof *per);
  for (int i = 0, e; i < n; i = e) {
    e = group_end(&op->f, i);
    int c = color_group(s, p, &cm, fb[2 * i], fb[2 * i + 1], i, e);
    if (c != WIDE_SEQ) {
      per[c]++;
      if (c + 1 > nl) nl = c + 1;
    }
    for (int r = i; r < e; r++) s->rowb[r] = c;
    s->gfirst[ng++] = i;
  }
  s->gfirst[ng] = n;
  levels_into_batches(s, ng, nl);
  return ng;
}

/* Whether a row of group [i, e) has its findex row outside the group. */
static int findex_outside(const slv_problem *p, int i, int e) {
  for (int r = i; p->findex && r < e; r++)
    if (p->findex[r] >= 0 && (p->findex[r] < i || p->findex[r] >= e)) return 1;
  return 0;
}

/* The cuts of pgs_part's partition (see "pgs_part" in the header), from
 * each group's span [glo[g], ghi[g]] of first-seen rows of its blocks:
 * cut[0] = 0 <= cut[1] <= ... <= cut[np] = n + 1, cut[u + 1] the first
 * row c at which the groups with glo >= cut[u] and ghi < c (part u's
 * interior) hold as many rows as an equal share of what lies at or past c
 * (the rows of groups with glo >= c).  Scratch: cnt (n + 2), nfree (n + 1)
 * and byhi (ng: the groups by ghi). */
static void partition_cuts(wide_state *s, int n, int ng, const int *glo, const int *ghi, int np,
                           int *byhi, int *cut) {
  const int *gf = s->gfirst;
  int *past = s->cnt, *at = s->nfree; /* past[c]: rows of groups with glo >= c */
  memset(past, 0, ((size_t)n + 2) * sizeof *past);
  memset(at, 0, ((size_t)n + 1) * sizeof *at);
  for (int g = 0; g < ng; g++) {
    past[glo[g]] += gf[g + 1] - gf[g];
    at[ghi[g]]++;
  }
  for (int c = n - 1; c >= 0; c--) past[c] += past[c + 1];
  for (int c = 0, acc = 0; c <= n; c++) { /* counting sort by ghi */
    int k = at[c];
    at[c] = acc;
    acc += k;
  }
  for (int g = 0; g < ng; g++) byhi[at[ghi[g]]++] = g;
  cut[0] = 0;
  int q = 0; /* byhi[0 .. q) have ghi < c */
  for (int u = 0; u + 1 < np; u++) {
    long long in = 0;
    int c = cut[u];
    while (c <= n && in * (np - u - 1) < past[c]) {
      for (; q < ng && ghi[byhi[q]] == c; q++)
        if (glo[byhi[q]] >= cut[u]) in += gf[byhi[q] + 1] - gf[byhi[q]];
      c++;
    }
    cut[u + 1] = c;
  }
  cut[np] = n + 1;
}

/* The part of first-seen row r between the cuts. */
static int part_of(const int *cut, int np, int r) {
  int u = 0;
  while (u + 1 < np && r >= cut[u + 1]) u++;
  return u;
}

/* pgs_part's classes (see "pgs_part" in the header): each block's first
 * row (the first row of the first group on it), each group's span of its
 * blocks' first rows, the cuts (partition_cuts), and then a group whose
 * span lies between two cuts and whose findex rows are its own is
 * interior to that part u (cls[g] = u, counted in size[u]), any other one
 * on the separator (cls[g] = -1).  Sets gfirst and rowb = WIDE_COLORS (no
 * colour) on every row.  first: per block; glo, ghi, byhi: per group. */
static int partition_groups(wide_state *s, const slv_op *op, int np, int *first, int *cls,
                            int *size) {
  const slv_problem *p = op->p;
  const int *fb = op->f.blk;
  int n = p->n, ng = 0, cut[SLV_THREADS_MAX + 1];
  int *glo = s->bL, *ghi = s->bh, *byhi = s->bk; /* set again by lay_out */
  for (int b = 0; b < op->f.nb; b++) first[b] = -1;
  for (int i = 0, e; i < n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    e = group_end(&op->f, i);
    if (b0 >= 0 && first[b0] < 0) first[b0] = i;
    if (b1 >= 0 && first[b1] < 0) first[b1] = i;
    int f0 = b0 >= 0 ? first[b0] : i, f1 = b1 >= 0 ? first[b1] : f0;
    if (b0 < 0) f0 = f1;
    glo[ng] = f0 < f1 ? f0 : f1;
    ghi[ng] = f0 < f1 ? f1 : f0;
    for (int r = i; r < e; r++) s->rowb[r] = WIDE_COLORS;
    s->gfirst[ng++] = i;
  }
  s->gfirst[ng] = n;
  partition_cuts(s, n, ng, glo, ghi, np, byhi, cut);
  for (int u = 0; u < np; u++) size[u] = 0;
  for (int g = 0; g < ng; g++) {
    int u = part_of(cut, np, glo[g]);
    if (ghi[g] >= cut[u + 1] || findex_outside(p, s->gfirst[g], s->gfirst[g + 1]))
      u = -1;
    else
      size[u]++;
    cls[g] = u;
  }
  return ng;
}

/* pgs_part's first fit of part u's interior groups (cls[g] = u) into
 * batches [b0, b1), as group_and_schedule batches a whole problem: each in
 * group order takes the first batch with a free lane after every earlier
 * batch of the part on either of its blocks (next: per block, 1 + that
 * batch).  Returns the batches used (a prefix of the range: a group's
 * batch is at most b0 + the groups before it). */
static int first_fit_part(wide_state *s, const slv_op *op, const int *cls, int u, int b0, int b1,
                          int *next) {
  const int *fb = op->f.blk, *gf = s->gfirst;
  int used = 0;
  for (int b = b0; b < b1; b++) { /* only its own: the next part's b0 is b1 */
    s->nfree[b] = b;
    s->cnt[b] = 0;
  }
  for (int g = 0; gf[g] < op->n; g++) {
    if (cls[g] != u) continue;
    int i = gf[g], e = gf[g + 1], k0 = fb[2 * i], k1 = fb[2 * i + 1], seq;
    /* its findex rows are its own, so first_slot reads no other part's
     * rows; the batch is below b1, as batch b1 - 1 holds one group at most */
    int c = first_slot(s, op->p, next, k0, k1, i, e, &seq);
    c = first_fit_place(s, next, k0, k1, c > b0 ? c : b0);
    if (c + 1 - b0 > used) used = c + 1 - b0;
    for (int r = i; r < e; r++) s->rowb[r] = c;
  }
  return used;
}

/* pgs_part's schedule (see "pgs_part" in the header): level 0 holds the
 * parts' interiors, part u's groups batched first fit as pgs_wide batches
 * (in group order, a batch after every earlier batch of the part on
 * either block), parts one after another; levels 1, 2, ... are the
 * separator's colours (color_group among separator groups only: the
 * interiors are swept before), cut into batches as levels are.  Sets
 * nbat, cnt, rowb (each row's batch), lvl, nlev and level 0's parts in
 * pst; returns the number of groups, or -1 if a part has fewer than
 * WIDE_PAR_MIN_BATCHES interior batches (too small to be worth a thread).
 * The operator's t holds per-block colours, parts and first-fit marks
 * meanwhile, s->gsorted each group's class. */
static int group_and_partition(wide_state *s, const slv_op *op, int np) {
  const slv_problem *p = op->p;
  const int *fb = op->f.blk, nb = op->f.nb;
  uint64_t *used = (uint64_t *)op->t;
  int *first = (int *)(used + nb), *next = first + nb, *cls = s->gsorted;
  int size[SLV_THREADS_MAX + 1], base[SLV_THREADS_MAX + 1], off[SLV_THREADS_MAX + 1];
  int nbu[SLV_THREADS_MAX] = { 0 }, per[WIDE_COLORS] = { 0 }, seen[WIDE_COLORS] = { 0 }, nl = 0;
  int ng = partition_groups(s, op, np, first, cls, size);
  /* the separator's colours */
  color_marks cm = { used, (uint64_t *)s->xp, p->n };
  memset(used, 0, (size_t)nb * sizeof *used);
  for (int g = 0; g < ng; g++) {
    if (cls[g] >= 0) continue;
    int i = s->gfirst[g], e = s->gfirst[g + 1];
    int c = color_group(s, p, &cm, fb[2 * i], fb[2 * i + 1], i, e);
    if (c != WIDE_SEQ) {
      per[c]++;
      if (c + 1 > nl) nl = c + 1;
    }
    for (int r = i; r < e; r++) s->rowb[r] = c;
  }
  /* the interiors, first fit, part u's batches from base[u] on: each
   * part by a thread of its own (its blocks, batches and rows are its own) */
  base[0] = 0;
  for (int u = 0; u < np; u++) base[u + 1] = base[u] + size[u];
  memset(next, 0, (size_t)nb * sizeof *next);
#pragma omp parallel for num_threads(np) schedule(static, 1)
  for (int u = 0; u < np; u++) nbu[u] = first_fit_part(s, op, cls, u, base[u], base[u + 1], next);
  off[0] = 0;
  for (int u = 0; u < np; u++) {
    if (nbu[u] < WIDE_PAR_MIN_BATCHES) return -1;
    off[u + 1] = off[u] + nbu[u];
    for (int j = 0; j < nbu[u]; j++) s->cnt[off[u] + j] = s->cnt[base[u] + j]; /* off <= base */
  }
  /* the levels: the interiors, then a level per colour */
  s->nlev = 1 + nl;
  s->lvl[0] = 0;
  s->lvl[1] = off[np];
  for (int c = 0; c < nl; c++)
    s->lvl[c + 2] = s->lvl[c + 1] + (per[c] + WIDE_BATCH - 1) / WIDE_BATCH;
  s->nbat = s->lvl[s->nlev];
  memset(s->cnt + off[np], 0, ((size_t)s->nbat - off[np] + 1) * sizeof *s->cnt);
  for (int g = 0; g < ng; g++) {
    int i = s->gfirst[g], e = s->gfirst[g + 1], u = cls[g], bt = s->rowb[i];
    if (u >= 0) {
      bt = bt - base[u] + off[u];
    } else if (bt != WIDE_SEQ) {
      int c = bt;
      bt = s->lvl[c + 1] + seen[c]++ / WIDE_BATCH;
      s->cnt[bt]++;
    }
    for (int r = i; r < e; r++) s->rowb[r] = bt;
  }
  for (int u = 0; u < np; u++) s->pst[u] = off[u];
  return ng;
}

#if PGS_WIDE_X86
/* Columns c0..c0+3 of the rows at r[0..3] into four 4-lane columns at
 * out, out + 4, out + 8, out + 12 (a 4x4 transpose); lane l of the first
 * two columns kept where ma has it set, of the last two where mb has,
 * else 0. */
__attribute__((target("avx2"))) static inline void tr4(const double *const r[4], int c0, __m256d ma,
                                                       __m256d mb, double *out) {
  __m256d a = _mm256_loadu_pd(r[0] + c0), b = _mm256_loadu_pd(r[1] + c0);
  __m256d c = _mm256_loadu_pd(r[2] + c0), d = _mm256_loadu_pd(r[3] + c0);
  __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
  __m256d t2 = _mm256_unpacklo_pd(c, d), t3 = _mm256_unpackhi_pd(c, d);
  _mm256_store_pd(out, _mm256_and_pd(ma, _mm256_permute2f128_pd(t0, t2, 0x20)));
  _mm256_store_pd(out + 4, _mm256_and_pd(ma, _mm256_permute2f128_pd(t1, t3, 0x20)));
  _mm256_store_pd(out + 8, _mm256_and_pd(mb, _mm256_permute2f128_pd(t0, t2, 0x31)));
  _mm256_store_pd(out + 12, _mm256_and_pd(mb, _mm256_permute2f128_pd(t1, t3, 0x31)));
}

/* J . K over one slot of the four lanes, from their columns: slv_dot6's
 * products and association. */
__attribute__((target("avx2"))) static inline __m256d diag6(const double *J, const double *K) {
  __m256d a = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J), _mm256_load_pd(K)),
                            _mm256_mul_pd(_mm256_load_pd(J + 4), _mm256_load_pd(K + 4)));
  __m256d b = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J + 8), _mm256_load_pd(K + 8)),
                            _mm256_mul_pd(_mm256_load_pd(J + 12), _mm256_load_pd(K + 12)));
  __m256d c = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(J + 16), _mm256_load_pd(K + 16)),
                            _mm256_mul_pd(_mm256_load_pd(J + 20), _mm256_load_pd(K + 20)));
  return _mm256_add_pd(_mm256_add_pd(a, b), c);
}

/* plan()'s J and K columns of the four lanes at plan position k, by 4x4
 * transposes: the same values as its scalar loop (moves and masks only).
 * A row's 12 columns are slot 0's six then slot 1's; a static slot
 * (fblk < 0) and an idle lane get zeros, whatever fJ, fK hold there.  lb
 * and im: the half's blocks of slot 0 then slot 1 and their inverse
 * masses (lay_out, lane_masses; a lane's rows share its blocks), which
 * hold for the lane's busy positions.  While the columns are in cache it
 * also forms A_ii (aii) and omega / A_ii from them, four lanes per
 * operation: slv_fac_diag's d + (s0 + s1) (a static slot's zeros give its
 * s = 0.0) and slv_pgs_step's omega * (1 / A_ii), the same IEEE
 * operations, so the same bits; 0 on idle lanes.  compact: writes the
 * compact layout instead (see the header) and returns ok and-ed with
 * whether each lane's row has the form it needs (else JK is unusable). */
__attribute__((target("avx2"), always_inline)) static inline __m256d
fill_jk_step(wide_state *s, const slv_fac *f, int k, const int *lb, const double *im, __m256d om,
             int compact, __m256d ok) {
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
  double *JK = compact ? tmp : s->JK + 24 * (size_t)k;
  for (int h = 0; h < 2; h++) { /* J, then K 48 doubles further */
    const double *const *src = h ? K : J;
    tr4(src, 0, M0, M0, JK + 48 * h);
    tr4(src, 4, M0, M1, JK + 48 * h + 16);
    tr4(src, 8, M1, M1, JK + 48 * h + 32);
  }
  __m256d d = _mm256_add_pd(_mm256_load_pd(s->fd + k),
                            _mm256_add_pd(diag6(JK, JK + 48), diag6(JK + 24, JK + 72)));
  _mm256_store_pd(s->invd + k, _mm256_and_pd(busy, _mm256_mul_pd(om, _mm256_div_pd(one, d))));
  _mm256_store_pd(s->aii + k, _mm256_and_pd(busy, d));
  if (!compact) return ok;
  /* the compact form: K's linear columns bm J's, and J's of slot 1
   * minus slot 0's when both are bodies (a static slot's are zeros) */
  __m256d I0 = _mm256_and_pd(M0, _mm256_loadu_pd(im)),
          I1 = _mm256_and_pd(M1, _mm256_loadu_pd(im + 4));
  __m256d both = _mm256_and_pd(M0, M1);
  double *C = s->JK + 15 * (size_t)k;
  for (int c = 0; c < 3; c++) {
    __m256d j0 = _mm256_load_pd(tmp + 4 * c), j1 = _mm256_load_pd(tmp + 24 + 4 * c);
    __m256d k0 = _mm256_load_pd(tmp + 48 + 4 * c), k1 = _mm256_load_pd(tmp + 72 + 4 * c);
    __m256d nj1 = _mm256_xor_pd(j1, sign);
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(k0, _mm256_mul_pd(I0, j0), _CMP_EQ_OQ));
    ok = _mm256_and_pd(ok, _mm256_cmp_pd(k1, _mm256_mul_pd(I1, j1), _CMP_EQ_OQ));
    ok = _mm256_and_pd(
        ok, _mm256_or_pd(_mm256_cmp_pd(j0, nj1, _CMP_EQ_OQ), _mm256_andnot_pd(both, all)));
    _mm256_store_pd(C + 4 * c, _mm256_blendv_pd(nj1, j0, M0)); /* JL */
  }
  memcpy(C + 12, tmp + 12, 12 * sizeof *C); /* J slot 0, columns 3..5 */
  memcpy(C + 24, tmp + 36, 12 * sizeof *C); /* J slot 1 */
  memcpy(C + 36, tmp + 60, 12 * sizeof *C); /* K slot 0 */
  memcpy(C + 48, tmp + 84, 12 * sizeof *C); /* K slot 1 */
  return ok;
}

/* fill_jk_step over the positions of batches [bt0, bt1); compact: 1 if
 * every row has the compact form, else 0. */
__attribute__((target("avx2"))) static int fill_jk(wide_state *s, const slv_fac *f, double omega,
                                                   int compact, int bt0, int bt1) {
  const __m256d om = _mm256_set1_pd(omega);
  __m256d ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  for (int bt = bt0; bt < bt1; bt++) {
    const int *lb = s->lblk + 16 * (size_t)bt, h = s->bh[bt];
    const double *im = s->im + 16 * (size_t)bt;
    for (int r = 0, k = s->bk[bt]; r < s->bL[bt]; r++)
      for (int u = 0; u < h; u++, k += 4)
        ok = fill_jk_step(s, f, k, lb + 8 * u, im + 8 * u, om, compact, ok);
  }
  return _mm256_movemask_pd(ok) == 0xf;
}
#endif

/* The groups in sweep order: by batch, stable, the sequential groups last
 * (a counting sort; cnt[b] holds batch b's group count on entry, where
 * batch b ends in gsorted on return). */
static void sort_groups(wide_state *s, int ng) {
  int *cnt = s->cnt;
  const int *gf = s->gfirst;
  for (int b = 0, acc = 0; b < s->nbat; b++) {
    int c = cnt[b];
    cnt[b] = acc;
    acc += c;
  }
  int q = 0;
  for (int g = 0; g < ng; g++)
    if (s->rowb[gf[g]] != WIDE_SEQ) s->gsorted[cnt[s->rowb[gf[g]]]++] = g, q++;
  for (int g = 0; g < ng; g++)
    if (s->rowb[gf[g]] == WIDE_SEQ) s->gsorted[q++] = g;
}

/* The threaded plan's parts (s->pst): each level's batches cut into s->np
 * contiguous runs of about equal work, a batch's work taken as its plan
 * positions (halves x row steps: a batch of four-point box manifolds,
 * 12 row steps, is four times one of single contacts).  Uses s->bk as
 * scratch (lay_out sets it afterwards). */
static void split_levels(wide_state *s, int from) {
  const int np = s->np, *gf = s->gfirst;
  int *w = s->bk;
  for (int bt = 0, q = 0; bt < s->nbat; bt++) {
    int m = s->cnt[bt] - q, L = 0; /* cnt[bt]: the end of batch bt in gsorted */
    for (int l = 0; l < m; l++) {
      int g = s->gsorted[q + l];
      if (gf[g + 1] - gf[g] > L) L = gf[g + 1] - gf[g];
    }
    w[bt] = (m > 4 ? 2 : 1) * L;
    q += m;
  }
  for (int l = from; l < s->nlev; l++) {
    int b0 = s->lvl[l], b1 = s->lvl[l + 1], u = 0;
    long long tot = 0, acc = 0;
    for (int bt = b0; bt < b1; bt++) tot += w[bt];
    for (int bt = b0; bt < b1; acc += w[bt++])
      while (u < np && acc * np >= tot * u) s->pst[np * l + u++] = bt;
    while (u < np) s->pst[np * l + u++] = b1;
  }
  s->pst[np * s->nlev] = s->nbat;
}

/* The batches: up to eight groups each, in one or two halves of four
 * lanes, each lane's t blocks and their blocks' numbers; then the
 * sequential rows.  Sets order, bk, bL, bh, tp, lblk, ncol and len.
 * Static slots and idle lanes point at the idle block of the part that
 * sweeps their batch (the threaded plan), so no two threads store to it. */
static void lay_out(wide_state *s, const slv_op *op, int ng) {
  const int *gf = s->gfirst, *cnt = s->cnt;
  int k = 0, q = 0, part = 0;
  memset(s->idle, 0, WIDE_PAD * (size_t)s->np * sizeof *s->idle);
  for (int bt = 0; bt < s->nbat; bt++) {
    if (s->np > 1) /* the part (of a level) that holds batch bt */
      while (bt >= s->pst[part + 1]) part++;
    double *idle = s->idle + WIDE_PAD * (size_t)(part % s->np);
    int m = cnt[bt] - q, L = 0; /* cnt[bt] is the end of batch bt in gsorted */
    for (int l = 0; l < m; l++) {
      int g = s->gsorted[q + l];
      if (gf[g + 1] - gf[g] > L) L = gf[g + 1] - gf[g];
    }
    int h = m > 4 ? 2 : 1; /* halves; lane l of half u is column 4 u + l of a row step */
    double **tp = s->tp + 16 * (size_t)bt;
    int *lb = s->lblk + 16 * (size_t)bt;
    for (int at = 0; at < 16; at++) lb[at] = -1; /* a batch of one half uses 8 */
    for (int l = 0; l < 4 * h; l++) {
      int g = l < m ? s->gsorted[q + l] : -1, i0 = g >= 0 ? gf[g] : 0;
      int len = g >= 0 ? gf[g + 1] - i0 : 0;
      for (int r = 0; r < L; r++) s->order[k + 4 * h * r + l] = r < len ? i0 + r : -1;
      for (int slot = 0; slot < 2; slot++) {
        int b = g >= 0 ? op->f.blk[2 * i0 + slot] : -1, at = 8 * (l / 4) + 4 * slot + l % 4;
        tp[at] = b >= 0 ? op->t + 6 * (size_t)b : idle;
        lb[at] = b;
      }
    }
    s->bk[bt] = k;
    s->bL[bt] = L;
    s->bh[bt] = h;
    k += 4 * h * L;
    q += m;
  }
  s->ncol = k;
  for (; q < ng; q++)
    for (int i = gf[s->gsorted[q]]; i < gf[s->gsorted[q] + 1]; i++) s->order[k++] = i;
  s->len = k;
}

/* Plan positions [k0, k1) of a batch run [b0, b1) of the lanes. */
static void batch_span(const wide_state *s, int b0, int b1, int *k0, int *k1) {
  *k0 = b0 < s->nbat ? s->bk[b0] : s->ncol;
  *k1 = b1 < s->nbat ? s->bk[b1] : s->ncol;
}

/* rowb[] becomes the plan position of each row of positions [k0, k1). */
static void mark_rows(wide_state *s, int k0, int k1) {
  for (int k = k0; k < k1; k++)
    if (s->order[k] >= 0) s->rowb[s->order[k]] = k;
}

/* Plan positions [k0, k1)'s row data (after mark_rows of every position):
 * x's findex position, b, bounds, mu, d, and A_ii and omega / A_ii (except
 * in the lanes, where fill_jk forms them); an idle position's are 0, and
 * its x too, which no sweep moves (start_copy_all leaves it). */
static void fill_rows(wide_state *s, const slv_op *op, double omega, int k0, int k1) {
  const slv_problem *p = op->p;
  /* the state's fields in locals: the int stores (fpos) would make the
   * compiler read them again at every position */
  const int *order = s->order, *rowb = s->rowb, *findex = p->findex;
  int *fpos = s->fpos;
  double *bp = s->bp, *invd = s->invd, *lo = s->lo, *hi = s->hi, *fd = s->fd, *aii = s->aii;
  double *mu = s->mu, *xp = s->xp;
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
      aii[k] = slv_fac_diag(&op->f, i);
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
        batch_span(s, s->pst[s->np * l + v], s->pst[s->np * l + v + 1], &k0, &k1);
        mark_rows(s, k0, k1);
      }
    }
#pragma omp for schedule(static, 1)
    for (int v = 0; v <= s->np; v++) {
      if (v == s->np) fill_rows(s, op, omega, s->ncol, s->len);
      for (int l = 0, k0, k1; v < s->np && l < s->nlev; l++) {
        batch_span(s, s->pst[s->np * l + v], s->pst[s->np * l + v + 1], &k0, &k1);
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

/* One linear entry (j of J, k of K) of block b into its interval of
 * scalars [bm, bhi] with fl(m j) = k; returns 0 if none is left. */
static int mass_entry(wide_state *s, int b, double j, double k) {
  double *lo = s->bm + b, *hi = s->bhi + b;
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

/* The rigid-body form the compact layout needs (see the header): for every
 * block a scalar m with K's linear columns fl(m J) on each of its row
 * slots, exactly.  The scalars that reproduce one entry form an interval
 * of doubles (around k / j: the quotient may miss the mass by an ulp); a
 * block's scalar is any point in the intersection over its entries, bm[b]
 * (0 for a block with no nonzero entry).  Returns 0 at the first entry no
 * scalar of its block reproduces (then the full layout is used). */
static int derive_masses(wide_state *s, const slv_fac *f) {
  for (int b = 0; b < f->nb; b++) {
    s->bm[b] = 1.0; /* empty: bm > bhi */
    s->bhi[b] = 0.0;
  }
  for (int i = 0; i < f->n; i++)
    for (int slot = 0; slot < 2; slot++) {
      int b = f->blk[2 * i + slot];
      if (b < 0) continue;
      const double *J = f->J + 12 * (size_t)i + 6 * slot, *K = f->K + 12 * (size_t)i + 6 * slot;
      double lo = s->bm[b], hi = s->bhi[b];
      if (lo <= hi && lo * J[0] == K[0] && hi * J[0] == K[0] && lo * J[1] == K[1] &&
          hi * J[1] == K[1] && lo * J[2] == K[2] && hi * J[2] == K[2])
        continue; /* the usual case: the block's interval reproduces all three */
      for (int c = 0; c < 3; c++)
        if (!mass_entry(s, b, J[c], K[c])) return 0;
    }
  for (int b = 0; b < f->nb; b++)
    if (s->bm[b] > s->bhi[b]) s->bm[b] = 0.0; /* no nonzero entry: any scalar */
  return 1;
}

#if PGS_WIDE_X86
/* Each lane's inverse masses (im) from the blocks' scalars bm. */
static void lane_masses(wide_state *s) {
  for (int k = 0; k < 16 * s->nbat; k++) s->im[k] = s->lblk[k] >= 0 ? s->bm[s->lblk[k]] : 0.0;
}

/* fill_jk over all the lanes' positions: on the plan's threads when it has
 * parts, as fill_all_rows splits them (the same values: each position is
 * formed alone); 1 if every part's rows have the compact form. */
static int fill_all_jk(wide_state *s, const slv_fac *f, double omega, int compact) {
  if (s->np == 1) return fill_jk(s, f, omega, compact, 0, s->nbat);
  /* each part's verdict in its own slot, and-ed after: not an OpenMP
   * reduction clause, which clang implements with a lock symbol that the
   * shared library would export (tests/test_exports.sh) */
  int oks[SLV_THREADS_MAX];
#pragma omp parallel for num_threads(s->np) schedule(static)
  for (int v = 0; v < s->np; v++) {
    int ok = 1;
    for (int l = 0; l < s->nlev; l++) {
      int r = fill_jk(s, f, omega, compact, s->pst[s->np * l + v], s->pst[s->np * l + v + 1]);
      ok = ok && r;
    }
    oks[v] = ok;
  }
  int ok = 1;
  for (int v = 0; v < s->np; v++) ok = ok && oks[v];
  return ok;
}

/* The lanes' J and K (see the header): compact when the blocks' scalars
 * bm hold for every lane row, else the full layout.  A world's bodies keep
 * their masses from one step to the next, so the last solve's scalars are
 * tried first: fill_jk checks every entry the lanes use, so a scalar that
 * no longer fits only costs the derivation it would have cost anyway. */
static void lanes_jk(wide_state *s, const slv_op *op, double omega) {
  s->compact = 0;
  if (s->masses_kept) {
    lane_masses(s);
    s->compact = fill_all_jk(s, &op->f, omega, 1);
  }
  if (!s->compact && derive_masses(s, &op->f)) {
    lane_masses(s);
    s->compact = fill_all_jk(s, &op->f, omega, 1);
  }
  s->masses_kept = s->compact;
  if (!s->compact) fill_all_jk(s, &op->f, omega, 0);
}
#endif

/* Groups, batches and the plan layout (see the header); before K^T x, as
 * the scheduling uses the operator's t as scratch.  Only the lanes read J
 * and K by columns: without them the sweep reads the rows of J and K
 * (row_one). */
static void plan(wide_state *s, const slv_op *op, double omega, int threads) {
  int ng = -1;
  s->n = op->n;
  s->np = 1;
  s->nlev = 0;
  if (s->color) {
    /* the colours, whatever the threads; split on the thresholds of the
     * threaded plan (the parts only say which thread sweeps which batch
     * of a colour, so whether it splits does not change x) */
    ng = group_and_color(s, op);
    if (threads > 1 && ng >= WIDE_PAR_MIN_GROUPS && s->nlev >= 1 && threads * s->nlev < op->n &&
        s->nbat >= WIDE_PAR_MIN_BATCHES * threads * s->nlev)
      s->np = threads;
  } else if (s->part && threads > 1 && op->n >= WIDE_PAR_MIN_GROUPS) {
    /* parts and a separator, if every part is large enough; else one
     * thread's first fit, pgs_wide's plan */
    ng = group_and_partition(s, op, threads);
    if (ng >= 0 && threads * s->nlev < op->n) /* pst holds np nlev + 1 entries */
      s->np = threads;
    else
      ng = -1;
  } else if (threads > 1 && op->n >= WIDE_PAR_MIN_GROUPS) {
    /* the level schedule, kept if it is large and wide enough to split
     * (then nlev >= 1: wide_sweeps_par relies on a barrier per level) */
    ng = group_and_level(s, op);
    if (ng >= WIDE_PAR_MIN_GROUPS && s->nbat >= WIDE_PAR_MIN_BATCHES * threads * s->nlev &&
        s->nlev >= 1)
      s->np = threads;
    else
      ng = -1;
  }
  if (ng < 0) {
    ng = group_and_schedule(s, op);
    s->nlev = 0;
  }
  sort_groups(s, ng);
  s->own_ktx = s->color || (s->part && s->np > 1);
  if (s->np > 1) split_levels(s, s->part ? 1 : 0); /* pgs_part's level 0: its parts */
  lay_out(s, op, ng);
  fill_all_rows(s, op, omega);
  s->compact = 0;
#if PGS_WIDE_X86
  if (s->lanes) lanes_jk(s, op, omega);
#endif
}

/* One row at plan position k, as pgs's factored sweep does it; returns the
 * row's residual and adds w * 0 to *poison. */
static inline double row_one(wide_state *s, const slv_fac *f, int k, double *t, double *poison) {
  int i = s->order[k];
  if (i < 0) return 0.0;
  double lo = s->lo[k], hi = s->hi[k];
  if (s->mu[k] >= 0) {
    double h = s->mu[k] * fabs(s->xp[s->fpos[k]]);
    lo = -h;
    hi = h;
  }
  double xi = s->xp[k];
  double wi = (s->bp[k] + s->fd[k] * xi) + slv_fac_dots(f, i, t);
  *poison += wi * 0.0;
  double r = slv_mid_res(xi, wi, lo, hi);
  double xn, e = slv_pgs_move(xi, wi, s->invd[k], lo, hi, &xn);
  if (e == 0.0) return r;
  s->xp[k] = xn;
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

/* The plan's arrays, for the sweep: x is the only one written, so held in
 * locals the others need not be reloaded after each store to it. */
typedef struct {
  double *restrict xp;
  const double *restrict lo,
      *restrict hi, *restrict mu, *restrict bp, *restrict fd, *restrict invd, *restrict JK;
  const int *restrict fpos;
} lane_arrays;

/* The bounds of the four lanes at plan position k: lo and hi, findex
 * lanes (mu >= 0) -mu |x_f| .. mu |x_f| (slv_bounds_at). */
__attribute__((target("avx2"), always_inline)) static inline void
lane_bounds(const lane_arrays *a, int k, __m256d *lo, __m256d *hi) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d mu = _mm256_load_pd(a->mu + k);
  *lo = _mm256_load_pd(a->lo + k);
  *hi = _mm256_load_pd(a->hi + k);
  if (_mm256_movemask_pd(mu) != 0xf) {
    const int *f = a->fpos + k;
    __m256d xf = _mm256_set_pd(a->xp[f[3]], a->xp[f[2]], a->xp[f[1]], a->xp[f[0]]);
    __m256d h = _mm256_mul_pd(mu, _mm256_andnot_pd(sign, xf));
    *hi = _mm256_blendv_pd(h, *hi, mu);
    *lo = _mm256_blendv_pd(_mm256_xor_pd(h, sign), *lo, mu);
  }
}

/* J . t of the four lanes at plan position k over both slots, t of the
 * lanes' blocks in T0 (slot 0) and T1 (slot 1): slv_fac_dots's s0 + s1.
 * compact: J in the compact layout; the products and sums are the full
 * layout's, with J slot 1's linear columns -JL (the same IEEE results,
 * signs of zero aside), and jl gets JL's three columns. */
__attribute__((target("avx2"), always_inline)) static inline __m256d
lane_dots(const lane_arrays *a, int k, int compact, const __m256d T0[6], const __m256d T1[6],
          __m256d jl[3]) {
  if (!compact) {
    const double *JK = a->JK + 24 * (size_t)k;
    return _mm256_add_pd(dot6(JK, T0), dot6(JK + 24, T1));
  }
  /* dot6 of each slot, slot 1's linear products negated: (-p) + q = q - p */
  const double *JK = a->JK + 15 * (size_t)k;
  for (int c = 0; c < 3; c++) jl[c] = _mm256_load_pd(JK + 4 * c);
  __m256d a0 = _mm256_add_pd(_mm256_mul_pd(jl[0], T0[0]), _mm256_mul_pd(jl[1], T0[1]));
  __m256d b0 =
      _mm256_add_pd(_mm256_mul_pd(jl[2], T0[2]), _mm256_mul_pd(_mm256_load_pd(JK + 12), T0[3]));
  __m256d c0 = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(JK + 16), T0[4]),
                             _mm256_mul_pd(_mm256_load_pd(JK + 20), T0[5]));
  __m256d a1 = _mm256_add_pd(_mm256_mul_pd(jl[0], T1[0]), _mm256_mul_pd(jl[1], T1[1]));
  __m256d b1 =
      _mm256_sub_pd(_mm256_mul_pd(_mm256_load_pd(JK + 24), T1[3]), _mm256_mul_pd(jl[2], T1[2]));
  __m256d c1 = _mm256_add_pd(_mm256_mul_pd(_mm256_load_pd(JK + 28), T1[4]),
                             _mm256_mul_pd(_mm256_load_pd(JK + 32), T1[5]));
  return _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, b0), c0),
                       _mm256_add_pd(_mm256_sub_pd(b1, a1), c1));
}

/* slv_mid_res of the four lanes: |max(min(w, x - lo), x - hi)|. */
__attribute__((target("avx2"), always_inline)) static inline __m256d
lane_mid_res(__m256d x, __m256d w, __m256d lo, __m256d hi) {
  __m256d r = _mm256_max_pd(_mm256_min_pd(w, _mm256_sub_pd(x, lo)), _mm256_sub_pd(x, hi));
  return _mm256_andnot_pd(_mm256_set1_pd(-0.0), r);
}

/* One row step of one half (four lanes) at plan position k, t of the
 * lanes' blocks in T0 (slot 0) and T1 (slot 1): each lane does what
 * row_one does, in the same operation order (t + d K with d = 0 leaves t as
 * pgs's skip does).  compact: J and K in the compact layout, im0 and im1
 * the lanes' inverse masses, K's linear columns bm J (the same IEEE
 * results, signs of zero aside).  Returns max(m, the lanes' residuals). */
__attribute__((target("avx2"), always_inline)) static inline __m256d
row_step(const lane_arrays *a, int k, int compact, __m256d T0[6], __m256d T1[6], __m256d im0,
         __m256d im1, __m256d m) {
  const __m256d zero = _mm256_setzero_pd();
  __m256d x = _mm256_load_pd(a->xp + k), lo, hi, jl[3];
  lane_bounds(a, k, &lo, &hi);
  /* b + fd x off the chain through t, as pgs */
  __m256d bx =
      _mm256_add_pd(_mm256_load_pd(a->bp + k), _mm256_mul_pd(_mm256_load_pd(a->fd + k), x));
  __m256d w = _mm256_add_pd(bx, lane_dots(a, k, compact, T0, T1, jl));
  /* + w * 0 makes m NaN for good if w is not finite (max_pd returns its
   * second operand on NaN) */
  m = _mm256_add_pd(_mm256_max_pd(lane_mid_res(x, w, lo, hi), m), _mm256_mul_pd(w, zero));
  /* slv_pgs_move: e = mid(x - hi, w omega / A_ii, x - lo) */
  __m256d e = _mm256_mul_pd(w, _mm256_load_pd(a->invd + k));
  e = _mm256_max_pd(_mm256_sub_pd(x, hi), _mm256_min_pd(_mm256_sub_pd(x, lo), e));
  __m256d xn = _mm256_max_pd(lo, _mm256_min_pd(hi, _mm256_sub_pd(x, e)));
  __m256d moved = _mm256_cmp_pd(e, zero, _CMP_NEQ_UQ);
  _mm256_store_pd(a->xp + k, _mm256_blendv_pd(x, xn, moved)); /* as pgs: x kept where e = 0 */
  if (compact) {
    /* K slot 1's linear columns im1 (-JL): t - e (-q) = t + e q */
    const double *JK = a->JK + 15 * (size_t)k;
#pragma GCC unroll 3
    for (int c = 0; c < 3; c++) {
      T0[c] = _mm256_sub_pd(T0[c], _mm256_mul_pd(e, _mm256_mul_pd(im0, jl[c])));
      T1[c] = _mm256_add_pd(T1[c], _mm256_mul_pd(e, _mm256_mul_pd(im1, jl[c])));
      T0[3 + c] = _mm256_sub_pd(T0[3 + c], _mm256_mul_pd(e, _mm256_load_pd(JK + 36 + 4 * c)));
      T1[3 + c] = _mm256_sub_pd(T1[3 + c], _mm256_mul_pd(e, _mm256_load_pd(JK + 48 + 4 * c)));
    }
  } else {
    const double *K = a->JK + 24 * (size_t)k + 48;
#pragma GCC unroll 6
    for (int c = 0; c < 6; c++) {
      T0[c] = _mm256_sub_pd(T0[c], _mm256_mul_pd(e, _mm256_load_pd(K + 4 * c)));
      T1[c] = _mm256_sub_pd(T1[c], _mm256_mul_pd(e, _mm256_load_pd(K + 24 + 4 * c)));
    }
  }
  return m;
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

/* The lanes: batch by batch, t of the lanes' blocks in registers across the
 * batch's row steps.  A batch of two halves runs them in the same loop:
 * their rows are independent chains, so one's latency hides the other's. */
__attribute__((target("avx2"), always_inline)) static inline double
sweep_lanes_as(wide_state *s, int bt0, int bt1, double *poison, int compact, int ahead) {
  const lane_arrays a = { s->xp, s->lo, s->hi, s->mu, s->bp, s->fd, s->invd, s->JK, s->fpos };
  __m256d m = _mm256_setzero_pd(), mb = m;
  const int *restrict pbk = s->bk, *restrict pbL = s->bL, *restrict pbh = s->bh;
  double *const *restrict ptp = s->tp;
  const double *restrict pim = s->im;
  for (int bt = bt0; bt < bt0 + ahead && bt < bt1; bt++) prefetch_blocks(ptp + 16 * (size_t)bt);
  for (int bt = bt0; bt < bt1; bt++) {
    double *const *tp = ptp + 16 * (size_t)bt;
    const double *im = pim + 16 * (size_t)bt;
    if (ahead && bt + ahead < bt1) prefetch_blocks(tp + 16 * (size_t)ahead);
    int k = pbk[bt], L = pbL[bt];
    __m256d A0[6], A1[6];
    __m256d ia0 = _mm256_load_pd(im), ia1 = _mm256_load_pd(im + 4);
    gather6(tp, A0);
    gather6(tp + 4, A1);
    if (pbh[bt] == 1) {
      for (int r = 0; r < L; r++, k += 4) m = row_step(&a, k, compact, A0, A1, ia0, ia1, m);
    } else {
      __m256d B0[6], B1[6];
      __m256d ib0 = _mm256_load_pd(im + 8), ib1 = _mm256_load_pd(im + 12);
      gather6(tp + 8, B0);
      gather6(tp + 12, B1);
      for (int r = 0; r < L; r++, k += 8) {
        m = row_step(&a, k, compact, A0, A1, ia0, ia1, m);
        mb = row_step(&a, k + 4, compact, B0, B1, ib0, ib1, mb);
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
  return s->compact ? sweep_lanes_as(s, bt0, bt1, poison, 1, WIDE_PREFETCH)
                    : sweep_lanes_as(s, bt0, bt1, poison, 0, WIDE_PREFETCH);
}

/* Batches [bt0, bt1) in the lanes; a threaded plan's fetched ahead, one
 * thread's not (its blocks are in its own cache). */
__attribute__((target("avx2"))) static double sweep_lanes(wide_state *s, int bt0, int bt1,
                                                          double *poison) {
  if (s->np > 1 && s->prfchw) return sweep_lanes_w(s, bt0, bt1, poison);
  int ahead = s->np > 1 ? WIDE_PREFETCH : 0;
  return s->compact ? sweep_lanes_as(s, bt0, bt1, poison, 1, ahead)
                    : sweep_lanes_as(s, bt0, bt1, poison, 0, ahead);
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
check_step(const lane_arrays *a, const double *aii, int k, int compact, const __m256d T0[6],
           const __m256d T1[6], __m256d xs, __m256d cap, lane_check_acc *acc) {
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  __m256d x = _mm256_load_pd(a->xp + k), b = _mm256_load_pd(a->bp + k), lo, hi, jl[3];
  lane_bounds(a, k, &lo, &hi);
  __m256d dx = _mm256_mul_pd(_mm256_load_pd(a->fd + k), x);
  __m256d w = _mm256_add_pd(_mm256_add_pd(dx, lane_dots(a, k, compact, T0, T1, jl)), b);
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
  const lane_arrays a = { s->xp, s->lo, s->hi, s->mu, s->bp, s->fd, s->invd, s->JK, s->fpos };
  const __m256d vxs = _mm256_set1_pd(xs), vcap = _mm256_set1_pd(cap), zero = _mm256_setzero_pd();
  lane_check_acc acc = { zero, zero, zero, zero };
  for (int bt = 0; bt < s->nbat; bt++) {
    double *const *tp = s->tp + 16 * (size_t)bt;
    int k = s->bk[bt], L = s->bL[bt], h = s->bh[bt];
    __m256d A0[6], A1[6], B0[6], B1[6];
    gather6(tp, A0);
    gather6(tp + 4, A1);
    if (h == 2) {
      gather6(tp + 8, B0);
      gather6(tp + 12, B1);
    }
    for (int r = 0; r < L; r++, k += 4 * h) {
      check_step(&a, s->aii, k, s->compact, A0, A1, vxs, vcap, &acc);
      if (h == 2) check_step(&a, s->aii, k + 4, s->compact, B0, B1, vxs, vcap, &acc);
    }
  }
  double v[4][4];
  _mm256_storeu_pd(v[0], acc.res);
  _mm256_storeu_pd(v[1], acc.scaled);
  _mm256_storeu_pd(v[2], acc.poison);
  _mm256_storeu_pd(v[3], acc.bmax);
  for (int l = 0; l < 4; l++) {
    pm[0] = fmax(pm[0], v[0][l]);
    pm[1] = fmax(pm[1], v[1][l]);
    pm[2] += v[2][l];
    pm[3] = fmax(pm[3], v[3][l]);
  }
}

/* The largest slv_alone over the lanes' positions [0, ncol), four at a
 * time: the same IEEE operations (-b / d, then max(lo, min(hi, t)), which
 * is its clip for lo <= hi), 0 at idle positions (A_ii = 0 there). */
__attribute__((target("avx2"))) static double lanes_alone(const wide_state *s) {
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  __m256d m = zero;
  for (int k = 0; k < s->ncol; k += 4) {
    __m256d d = _mm256_load_pd(s->aii + k);
    __m256d t = _mm256_div_pd(_mm256_xor_pd(_mm256_load_pd(s->bp + k), sign), d);
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

/* The largest |x_k| over the plan, four lanes at a time. */
__attribute__((target("avx2"))) static double plan_xscale_lanes(const wide_state *s) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d m = _mm256_setzero_pd();
  int k = 0;
  for (; k + 4 <= s->len; k += 4)
    m = _mm256_max_pd(m, _mm256_andnot_pd(sign, _mm256_loadu_pd(s->xp + k)));
  double v[4], xs = 0;
  _mm256_storeu_pd(v, m);
  for (int l = 0; l < 4; l++) xs = fmax(xs, v[l]);
  for (; k < s->len; k++) xs = fmax(xs, fabs(s->xp[k]));
  return xs;
}
#endif

/* Batches [bt0, bt1): in the lanes, or their plan positions one row at a
 * time.  Returns the residual of their rows, adds w * 0 to *poison. */
static double sweep_batches(wide_state *s, const slv_op *op, int bt0, int bt1, double *poison) {
  if (bt0 >= bt1) return 0.0;
#if PGS_WIDE_X86
  if (s->lanes) return sweep_lanes(s, bt0, bt1, poison);
#endif
  return sweep_rows(s, op, s->bk[bt0], bt1 < s->nbat ? s->bk[bt1] : s->ncol, poison);
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
 * s->pm[WIDE_PAD u ..] (s->pm is reset before the sweep): whichever
 * thread runs it, one at a time, with barriers between. */
static void sweep_levels(wide_state *s, const slv_op *op) {
  const int np = s->np;
  for (int l = 0; l < s->nlev; l++) {
#pragma omp for schedule(static)
    for (int u = 0; u < np; u++) {
      const int *pst = s->pst + np * l + u;
      double *pm = s->pm + WIDE_PAD * (size_t)u;
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
    const double *pm = s->pm + WIDE_PAD * (size_t)u;
    poison += pm[1];
    if (pm[0] > m) m = pm[0];
  }
  return poison == 0.0 ? m : NAN;
}

static void reset_parts(wide_state *s) {
  memset(s->pm, 0, WIDE_PAD * (size_t)s->np * sizeof *s->pm);
}

static const char *wide_name(const wide_state *s) {
  return s->color ? "pgs_color" : s->part ? "pgs_part" : "pgs_wide";
}

/* The plan, through the log callback at SLV_LOG_DEBUG (once a solve, only
 * if one is set): what the lanes hold and which sweep runs, so that a
 * caller (and the tests) can see the path taken. */
static void log_plan(const wide_state *s, const slv_problem *p, const slv_options *opt) {
  int busy = 0;
  for (int k = 0; k < s->ncol; k++) busy += s->order[k] >= 0;
  const char *how = !s->lanes    ? "rows one at a time (no AVX2 lanes)"
                    : s->compact ? "AVX2 lanes, compact rigid-body rows"
                                 : "AVX2 lanes, full rows";
  if (s->part && s->np > 1) {
    int k0, k1, sep = 0;
    batch_span(s, s->lvl[1], s->nbat, &k0, &k1);
    for (int k = k0; k < k1; k++) sep += s->order[k] >= 0;
    slv_logf(opt,
             "pgs_part: %d rows, %d batches, %d of %d lane slots busy, %d parts on %d threads, "
             "%d separator rows in %d colours, %d overflow rows: %s",
             p->n, s->nbat, busy, s->ncol, s->np, s->np, sep, s->nlev - 1, s->len - s->ncol, how);
  } else if (s->color && s->np > 1)
    slv_logf(opt,
             "pgs_color: %d rows, %d batches, %d of %d lane slots busy, %d overflow rows, "
             "%d colours on %d threads: %s",
             p->n, s->nbat, busy, s->ncol, s->len - s->ncol, s->nlev, s->np, how);
  else if (s->color)
    slv_logf(opt,
             "pgs_color: %d rows, %d batches, %d of %d lane slots busy, %d overflow rows, "
             "%d colours: %s",
             p->n, s->nbat, busy, s->ncol, s->len - s->ncol, s->nlev, how);
  else if (s->np > 1)
    slv_logf(opt,
             "%s: %d rows, %d batches, %d of %d lane slots busy, %d sequential rows, "
             "%d levels on %d threads: %s",
             wide_name(s), p->n, s->nbat, busy, s->ncol, s->len - s->ncol, s->nlev, s->np, how);
  else
    slv_logf(opt, "%s: %d rows, %d batches, %d of %d lane slots busy, %d sequential rows: %s",
             wide_name(s), p->n, s->nbat, busy, s->ncol, s->len - s->ncol, how);
}

/* x from the plan's x, row by row through each row's position (rowb). */
static void unpermute(const wide_state *s, double *x) {
  for (int i = 0; i < s->n; i++) x[i] = s->xp[s->rowb[i]];
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
    double x = s->xp[k], b = s->bp[k], lo = s->lo[k], hi = s->hi[k];
    if (s->mu[k] >= 0) {
      double h = s->mu[k] * fabs(s->xp[s->fpos[k]]);
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
  for (int k = 0; k < s->len; k++) xs = fmax(xs, fabs(s->xp[k]));
  return xs;
}

/* The exact measures of the test at the plan's x (see the header, "The
 * check"): with op->t = K^T x as slv_op_ktx forms it (t_formed), in the
 * lanes and then the sequential rows one at a time; else (pgs_color's
 * own t), or under the 2-norm option (res_rel_2: its sums go in
 * residual.c's chunks), slv_residual_test_op on x, which must then be
 * unpermuted. */
static slv_residuals wide_measure(const wide_state *s, sweep_ctx *c, int t_formed) {
  if (!t_formed || c->opt->norm == SLV_NORM_2)
    return slv_residual_test_op(c->op, c->x, NULL, t_formed);
  double xs = plan_xscale(s), cap = fmin(xs, c->op->rs.xd), pm[4] = { 0, 0, 0, 0 };
  int k0 = 0;
#if PGS_WIDE_X86
  if (s->lanes) {
    check_lanes(s, xs, cap, pm);
    k0 = s->ncol;
  }
#endif
  check_rows(s, c->op, k0, s->len, xs, cap, pm);
  return slv_residuals_test(pm[2] == 0.0 ? pm[0] : NAN, pm[1], pm[3]);
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
     * sweeps goes by its caller, on the plan's threads (color_ktx): its
     * sums go in another order, so the measure forms its own (wide_measure) */
    due = s->own_ktx && !slv_cheap_met(opt, m, c->units);
    unpermute(s, c->x);
    if (!due) slv_op_ktx(c->op, c->x);
    c->r = wide_measure(s, c, !due);
    c->units = slv_units_of(&c->r, c->units);
    exact = 1;
  }
  res->solver_residual = exact ? slv_test_measure(opt, &c->r) : m / c->units;
  slv_history_push(c->h, res, res->solver_residual);
  if (exact && slv_met(c->op->p, opt, &c->r)) return SLV_CONVERGED;
  slv_status stop = slv_should_stop(c->op, slv_op_nnz(c->op));
  if (stop) { /* the last iterate */
    unpermute(s, c->x);
    return stop;
  }
  if (it == opt->max_iter) {
    unpermute(s, c->x);
    slv_msgf(res->message, sizeof res->message, "%s: %d sweeps, res_scaled=%.3g > tol=%.3g",
             wide_name(s), opt->max_iter, res->solver_residual, opt->tol);
    return SLV_MAX_ITER;
  }
  s->ktx_due = due;
  return WIDE_GO_ON;
}

/* pgs_color's t = K^T x, from the plan's x (xp): each block's sum taken
 * colour by colour (a colour has at most one group on a block: its rows
 * summed in registers, then added once, as slv_fac_ktx sums a run of rows
 * on one pair), then over the overflow rows' runs in row order.  The order
 * depends on the plan only, so t is the same bits on any number of
 * threads (it is not slv_fac_ktx's row order).  Batches [bt0, bt1). */
static void ktx_batches(const wide_state *s, const slv_fac *f, double *t, int bt0, int bt1) {
  for (int bt = bt0; bt < bt1; bt++) {
    int k = s->bk[bt], wd = 4 * s->bh[bt], L = s->bL[bt];
    const int *lb = s->lblk + 16 * (size_t)bt;
    for (int l = 0; l < wd; l++) {
      int i0 = s->order[k + l]; /* the lane's group: rows i0, i0 + 1, ... */
      if (i0 < 0) continue;
      /* twelve named sums, as in slv_fac_ktx (an array stayed on the stack) */
      double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
      double a6 = 0, a7 = 0, a8 = 0, a9 = 0, a10 = 0, a11 = 0;
      const double *K = f->K + 12 * (size_t)i0;
      for (int r = 0, q = k + l; r < L && s->order[q] >= 0; r++, q += wd, K += 12) {
        double xq = s->xp[q];
        a0 += K[0] * xq, a1 += K[1] * xq, a2 += K[2] * xq, a3 += K[3] * xq;
        a4 += K[4] * xq, a5 += K[5] * xq, a6 += K[6] * xq, a7 += K[7] * xq;
        a8 += K[8] * xq, a9 += K[9] * xq, a10 += K[10] * xq, a11 += K[11] * xq;
      }
      const double a[12] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 };
      int b0 = lb[8 * (l / 4) + l % 4], b1 = lb[8 * (l / 4) + 4 + l % 4];
      if (b0 >= 0)
        for (int e = 0; e < 6; e++) t[6 * (size_t)b0 + e] += a[e];
      if (b1 >= 0)
        for (int e = 0; e < 6; e++) t[6 * (size_t)b1 + e] += a[6 + e];
    }
  }
}

/* The overflow rows' part of ktx_batches: runs of consecutive plan
 * positions on one block pair, in row order. */
static void ktx_rest(const wide_state *s, const slv_fac *f, double *t) {
  const int *fb = f->blk;
  for (int k = s->ncol, e; k < s->len; k = e) {
    int i = s->order[k], b0 = fb[2 * i], b1 = fb[2 * i + 1];
    double a[12] = { 0 };
    for (e = k; e < s->len && fb[2 * s->order[e]] == b0 && fb[2 * s->order[e] + 1] == b1; e++) {
      const double *K = f->K + 12 * (size_t)s->order[e], xe = s->xp[e];
      for (int c = 0; c < 12; c++) a[c] += K[c] * xe;
    }
    if (b0 >= 0)
      for (int c = 0; c < 6; c++) t[6 * (size_t)b0 + c] += a[c];
    if (b1 >= 0)
      for (int c = 0; c < 6; c++) t[6 * (size_t)b1 + c] += a[6 + c];
  }
}

/* pgs_color's t = K^T x in the operator's t, on one thread. */
static void color_ktx(wide_state *s, slv_op *op) {
  memset(op->t, 0, 6 * (size_t)op->f.nb * sizeof *op->t);
  ktx_batches(s, &op->f, op->t, 0, s->nbat);
  ktx_rest(s, &op->f, op->t);
}

/* The same from inside the team (every thread calls it): the blocks
 * zeroed in np slices, each colour's parts (a barrier after each: the
 * next colour adds to the same blocks), the overflow rows on one thread. */
static void color_ktx_team(wide_state *s, slv_op *op) {
  const int np = s->np, nb = op->f.nb;
#pragma omp for schedule(static)
  for (int v = 0; v < np; v++) {
    long long B0 = (long long)nb * v / np, B1 = (long long)nb * (v + 1) / np;
    memset(op->t + 6 * B0, 0, 6 * (size_t)(B1 - B0) * sizeof *op->t);
  }
  for (int l = 0; l < s->nlev; l++) {
#pragma omp for schedule(static)
    for (int v = 0; v < np; v++)
      ktx_batches(s, &op->f, op->t, s->pst[np * l + v], s->pst[np * l + v + 1]);
  }
#pragma omp single
  ktx_rest(s, &op->f, op->t);
}

/* The start: x into xp at plan positions [k0, k1) (0 at idle ones). */
static void start_copy(wide_state *s, const double *x, int k0, int k1) {
  for (int k = k0; k < k1; k++) s->xp[k] = s->order[k] >= 0 ? x[s->order[k]] : 0.0;
}

/* The same for the whole plan, row by row through each row's position
 * (the idle positions' 0 is fill_rows's). */
static void start_copy_all(wide_state *s, const double *x) {
  for (int i = 0; i < s->n; i++) s->xp[s->rowb[i]] = x[i];
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
    batch_span(s, s->pst[np * l + v], s->pst[np * l + v + 1], &k0, &k1);
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
      color_ktx_team(s, c->op);
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
      if (s->ktx_due) color_ktx_team(s, c->op); /* read by all before the next single */
    }
  }
  return (slv_status)done;
}

/* The row sizes and xd of the convergence measure (slv_op_rowscale) from
 * the plan's A_ii, which fill_jk and fill_rows formed as slv_diag does
 * (with A_ii > 0, SLV_CAP_NEEDS_POS_DIAG, a row's size is A_ii): not read
 * from A again, here or by the generic layer's measures at the end of
 * the solve.  xd, the largest slv_alone, from the plan's arrays, in the
 * lanes four positions at a time. */
static void plan_rowscale(const wide_state *s, slv_op *op) {
  double *a = slv_op_rowsize_buf(op), xd = 0;
  int k0 = 0;
  for (int i = 0; i < s->n; i++) a[i] = s->aii[s->rowb[i]];
#if PGS_WIDE_X86
  if (s->lanes) {
    xd = lanes_alone(s);
    k0 = s->ncol;
  }
#endif
  for (int k = k0; k < s->len; k++)
    if (s->order[k] >= 0)
      xd = fmax(xd, slv_alone(s->bp[k], s->aii[k], s->lo[k], s->hi[k], s->mu[k] >= 0));
  slv_op_rowscale_set(op, xd);
}

/* The sweeps from the plan (the stopping rule is pgs's). */
static slv_status wide_sweeps(wide_state *s, slv_op *op, const slv_options *opt, double *x,
                              double *w, slv_result *res, slv_hist *h) {
  sweep_ctx c = { .op = op, .opt = opt, .x = x, .w = w, .res = res, .h = h };
  if (s->own_ktx) { /* its own start: t summed in colour order (color_ktx) */
    if (s->np > 1) return wide_sweeps_par(s, &c);
    start_part(s, &c, 0);
    color_ktx(s, op);
    int done = start_exact(s, &c, 0);
    for (int it = 1; done == WIDE_GO_ON; it++) {
      done = after_sweep(s, &c, it, sweep(s, op));
      if (s->ktx_due) color_ktx(s, op);
    }
    return (slv_status)done;
  }
  start_copy_all(s, x);
  slv_op_ktx(op, x); /* the sweeps keep op->t = K^T x current */
  if (start_exact(s, &c, 1) == SLV_CONVERGED) return SLV_CONVERGED;
  if (s->np > 1) return wide_sweeps_par(s, &c);
  int done = WIDE_GO_ON;
  for (int it = 1; done == WIDE_GO_ON; it++) done = after_sweep(s, &c, it, sweep(s, op));
  return (slv_status)done;
}

static slv_status wide_solve(void *st, slv_op *op, const slv_options *opt, double *x, double *w,
                             slv_result *res, slv_hist *h) {
  wide_state *s = st;
  if (!op->fac) return to_pgs(s, op, opt, x, w, res, h);
  s->lanes = s->have_avx2 && opt->simd == SLV_SIMD_AUTO;
  if (!s->color && !s->lanes && !has_sequential(op)) {
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
  plan(s, op, opt->omega, s->lanes || s->color ? opt->threads : 1);
  plan_rowscale(s, op);
  if (opt->log_fn || opt->log_level_fn) log_plan(s, op->p, opt);
  return wide_sweeps(s, op, opt, x, w, res, h);
}

static slv_status color_init(void *st, int n_max, const slv_options *opt) {
  slv_status r = wide_init(st, n_max, opt);
  if (r == SLV_OK) ((wide_state *)st)->color = 1;
  return r;
}

static const slv_impl wide_impl = {
  .state_size = sizeof(wide_state),
  .init = wide_init,
  .free = wide_free,
  .solve = wide_solve,
};

/* the params lines below quote these */
_Static_assert(WIDE_GMAX == 12 && WIDE_BATCH == 8 && WIDE_COLORS == 64, "pgs_wide params");

const slv_solver slv_solver_pgs_wide = {
  .name = "pgs_wide",
  .summary = "projected Gauss-Seidel, factored rows grouped by body pair, independent "
             "groups swept 4 per AVX2 instruction: pgs's iterates (dense, CSR: pgs)",
  .cite = "cottle1992",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_FACTORED |
          SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "pgs's sweep: omega = options.omega (" SLV_STR(SLV_DEFAULT_OMEGA) "), check_every ("
      SLV_STR(SLV_DEFAULT_CHECK_EVERY) "), max_iter (" SLV_STR(SLV_DEFAULT_MAX_ITER) ") sweeps; "
      "factored rows in groups of <= 12, 8 a batch (AVX2); dense, CSR: pgs",
  /* clang-format on */
  .impl = &wide_impl,
};

static slv_status part_init(void *st, int n_max, const slv_options *opt) {
  slv_status r = wide_init(st, n_max, opt);
  if (r == SLV_OK) ((wide_state *)st)->part = 1;
  return r;
}

static const slv_impl part_impl = {
  .state_size = sizeof(wide_state),
  .init = part_init,
  .free = wide_free,
  .solve = wide_solve,
};

const slv_solver slv_solver_pgs_part = {
  .name = "pgs_part",
  .summary = "projected Gauss-Seidel in pgs_wide's AVX2 lanes; on opt.threads = T > 1 threads "
             "the bodies split into T parts swept side by side, then the rows between parts "
             "by colours: pgs_wide's iterates on one thread, deterministic for each T "
             "(dense, CSR: pgs)",
  .cite = "adams2001",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_FACTORED |
          SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "pgs's sweep: omega = options.omega (" SLV_STR(SLV_DEFAULT_OMEGA) "), check_every ("
      SLV_STR(SLV_DEFAULT_CHECK_EVERY) "), max_iter (" SLV_STR(SLV_DEFAULT_MAX_ITER) ") sweeps; "
      "options.threads (1) body parts, then the rows between by colours",
  /* clang-format on */
  .impl = &part_impl,
};

static const slv_impl color_impl = {
  .state_size = sizeof(wide_state),
  .init = color_init,
  .free = wide_free,
  .solve = wide_solve,
};

const slv_solver slv_solver_pgs_color = {
  .name = "pgs_color",
  .summary = "projected Gauss-Seidel, factored rows grouped by body pair, swept colour by colour "
             "(greedy graph colouring) in pgs_wide's AVX2 lanes, on opt.threads threads: the same "
             "bits for every thread count (dense, CSR: pgs)",
  .cite = "catto2024",
  .caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_SPARSE | SLV_CAP_FACTORED |
          SLV_CAP_NEEDS_POS_DIAG,
  /* clang-format off */
  .params =
      "pgs's sweep: omega = options.omega (" SLV_STR(SLV_DEFAULT_OMEGA) "), check_every ("
      SLV_STR(SLV_DEFAULT_CHECK_EVERY) "), max_iter (" SLV_STR(SLV_DEFAULT_MAX_ITER) ") sweeps; "
      "greedy colouring, <= 64 colours; options.threads (1) threads",
  /* clang-format on */
  .impl = &color_impl,
};
