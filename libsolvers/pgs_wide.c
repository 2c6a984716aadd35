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
 * "SIMD Matters") colours the graph greedily instead (pgs_color.c),
 * which reorders dependent rows, and on the peers' box pyramid left more
 * penetration at 50 sweeps than the row order does:
 * experiments/records/2026-11-26-solvers.md.]
 *
 * Why: a contact's three rows and the four points of a box-box manifold
 * all act on the same two bodies, so pgs's natural order is a chain of
 * dependent updates through memory.  Here four unrelated chains run per
 * instruction (two such instructions in flight when the batch has two
 * halves) and the blocks of t stay in registers across a group.  Each
 * row is still a chain of dependent operations (t, J . t, w, the clamp, the
 * move, t again), so pgs forms b + fd x and omega / A_ii off that chain.
 *
 * Layout, built once per solve (sized at init for n_max rows; on one
 * thread the last solve's groups, batches and positions are kept and
 * reused when the rows' block pairs and findex are the same, row by row,
 * which makes the same plan: pgs_plan.c, plan_kept): a batch of
 * groups of lengths L0, .., L7 in h halves takes 4 h max(L) plan positions
 * (row step r, half u, lane l at 4 h r + 4 u + l); positions past a lane's
 * group are idle (zero J and K, bounds 0..0, omega / A_ii = 0: they never
 * move), at most 8 n positions in all.  x, b, the bounds and omega / A_ii
 * are copied into plan order, J and K into columns per row step, the
 * lanes of its halves side by side: column c of the row step at plan
 * position k holds lane l at S k + 4 h c + l (S = 24 columns: J slot 0's
 * six, J slot 1's, K slot 0's, K slot 1's; 96 doubles a half), so that
 * with two halves a column is one 64-byte line, which the AVX-512 lanes
 * load whole (pgs_sweep512.c); a batch of two halves starts at a multiple
 * of 8 positions (four idle ones before it if need be).  Compact layout:
 * when every block b has a scalar m_b with
 * K's linear columns exactly fl(m_b J) on each of its row slots (a rigid
 * body, m_b = 1 / mass: derive_masses finds it from J and K themselves,
 * value by value) and every row in the lanes with both slots on bodies has
 * J slot 1's linear columns minus slot 0's (a direction at a point, as a
 * rigid body pair sees it; checked value by value while the columns are
 * formed), S = 15 columns, 60 doubles a half: JL (slot 0's linear J, or
 * minus slot 1's if slot 0 is static), J's angular columns of each slot, K's of each slot; the
 * sweep forms K's linear columns as m_b JL, which pgs's K holds to the
 * bit.  That is 480 bytes a half row step in place of 768: with two halves
 * in flight, a large world's sweep waits on that stream (neither change
 * was faster without the other).  Isotropic layout: when moreover every
 * block b has a scalar a_b > 0 with K's angular columns exactly fl(a_b J)
 * on each of its row slots, to the bit, signs of zero included (a sphere
 * or a cube: its world inverse inertia is a_b 1 exactly and libdynamics
 * forms K's angular half as a_b J_ang, docs/dynamics.md, "World inertia
 * and energy"; fill_jk compares 64-bit patterns, as the sweep's fl(a_b J)
 * has J's sign, zeros too), S = 9 columns, 36 doubles a half: JL and J's
 * angular columns of each slot; the sweep forms K's angular columns as
 * a_b J, six products more a half row step for 288 bytes in place of 480.
 * derive_masses finds a_b in the pass that finds m_b (a block with none is
 * not isotropic: then the compact layout); a block known not to be
 * isotropic sends the next solve to the compact layout at once while the
 * kept masses fit (a world's bodies keep their inertias).  Same products,
 * same sums: the iterates do not change.  Grouping, batching and the masses cost O(rows) per
 * solve; the per-block batch marks live in the operator's t before it
 * gets K^T x (so nothing is allocated).  The scalars of a compact (or
 * isotropic) solve are kept in the workspace and tried first at the next
 * solve (a world's bodies keep their masses): the check that forms the
 * compact columns confirms them entry by entry, and only when one fails
 * are they derived again (a pass over J and K: 2-3 % of a world step); a
 * block that had no scalar of its own (no nonzero entry) is derived at
 * once, without the attempt.  On a CPU without AVX2, or with
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
 * grouping, the levels and the layout stay serial.  Threads write
 * disjoint blocks of t (the blocks of their lanes) and their own idle
 * block and residual slot, and read x only of earlier
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
 * Files.  pgs_wide, pgs_color (pgs_color.c) and pgs_part (pgs_part.c) are
 * one machinery with three orders of the groups (pgs_lanes.h): this file
 * holds pgs_wide's schedules (first fit; levels on threads), pgs_plan.c
 * the plan, pgs_lanes.c the sweeps, the check and the solve loop.
 *
 * With a log callback set, each solve logs its plan (SLV_LOG_DEBUG): rows, batches, busy lane
 * slots, sequential rows (and, on threads, the levels and the threads) and
 * the sweep taken; pgs_color's names its overflow rows and colours (and
 * "on T threads" when it splits), pgs_part's its parts, separator rows and
 * colours when it splits.  docs/solvers.md, "pgs_wide", "pgs_color",
 * "pgs_part".
 */
#include "pgs_lanes.h"

/* The first batch at or after b with a free lane (path halving). */
static int first_free(int *nfree, int b) {
  while (nfree[b] != b) {
    nfree[b] = nfree[nfree[b]];
    b = nfree[b];
  }
  return b;
}

/* Whether a group is sequential: a row of it has its findex row in a
 * later group (then the plan's order is not the row order). */
int wide_has_sequential(const slv_op *op) {
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
 * sequential and the slot is meaningless).  Inline here, and exported
 * below for pgs_part (a call per group was a tenth of the schedule). */
static inline int first_slot(const wide_state *s, const slv_problem *p, const int *next, int b0,
                             int b1, int i, int e, int *seq) {
  int c = 0;
  *seq = 0;
  if (b0 >= 0 && next[b0] > c) c = next[b0];
  if (b1 >= 0 && next[b1] > c) c = next[b1];
  for (int r = i; p->findex && r < e; r++) {
    int f = p->findex[r];
    if (f >= e)
      *seq = 1;
    else if (f >= 0 && f < i && s->row_batch[f] != WIDE_SEQ && s->row_batch[f] + 1 > c)
      c = s->row_batch[f] + 1;
  }
  return c;
}

int wide_first_slot(const wide_state *s, const slv_problem *p, const int *next, int b0, int b1,
                    int i, int e, int *seq) {
  return first_slot(s, p, next, b0, b1, i, e, seq);
}

/* A group on blocks b0, b1 into the first batch at or after c with a free
 * lane (first fit); marks the batch on both blocks (next) and returns it. */
static inline int first_fit_place(wide_state *s, int *next, int b0, int b1, int c) {
  c = first_free(s->next_free, c);
  if (++s->batch_count[c] == WIDE_BATCH) s->next_free[c] = c + 1;
  if (b0 >= 0) next[b0] = c + 1;
  if (b1 >= 0) next[b1] = c + 1;
  return c;
}

int wide_first_fit_place(wide_state *s, int *next, int b0, int b1, int c) {
  return first_fit_place(s, next, b0, b1, c);
}

/* Cut the rows into groups and give each its batch (see the header);
 * returns the number of groups, s->nbat the number of batches, s->batch_count[b]
 * the groups in batch b.  The operator's t holds per-block ints meanwhile.
 * nfree and cnt are set for batches 0 .. nb (the batches so far and the
 * next one), which are all that first_free can reach: a group's first
 * batch is at most nb, and a full batch c < nb points at c + 1 <= nb. */
int wide_group_and_schedule(wide_state *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int n = p->n, ng = 0, nb = 0;
  const int *fb = op->f.blk;
  int *next = (int *)op->t; /* per block: 1 + the batch of its last group, 0 if none */
  memset(next, 0, (size_t)op->f.nb * sizeof *next);
  s->next_free[0] = 0;
  s->batch_count[0] = 0;
  for (int i = 0, e; i < n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    e = group_end(&op->f, i);
    /* the first batch it may join */
    int seq, c = first_slot(s, p, next, b0, b1, i, e, &seq);
    if (seq) {
      c = WIDE_SEQ;
    } else {
      /* c <= ng - 1 < n: batch ng - 1 is never full */
      c = first_fit_place(s, next, b0, b1, c);
      if (c + 1 > nb) { /* a new batch: the next one becomes reachable */
        nb = c + 1;
        s->next_free[nb] = nb;
        s->batch_count[nb] = 0;
      }
    }
    for (int r = i; r < e; r++) s->row_batch[r] = c;
    s->group_first[ng++] = i;
  }
  s->group_first[ng] = n;
  s->nbat = nb;
  return ng;
}

/* The threaded plan's schedule (see the header, "Threads"): each group
 * takes the first level after every earlier group on either of its
 * blocks and after the groups of its findex rows (classic level
 * scheduling: no first fit, so a level's groups are exactly those with
 * nothing left to wait for), and each level is cut into batches of up to
 * eight groups in group order.  Groups of one level share no block and
 * read no x of each other, so neither do the batches of one level; every
 * pair of groups sharing a block or a findex row is in row order across
 * levels.  Returns the number of groups, with s->nbat, s->batch_count as
 * wide_group_and_schedule, s->nlev the levels and s->level_first[l] the first batch of
 * level l (s->level_first[nlev] = nbat).  The operator's t holds per-block ints
 * meanwhile, s->next_free the groups per level. */
int wide_group_and_level(wide_state *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int n = p->n, ng = 0, nl = 0;
  const int *fb = op->f.blk;
  int *next = (int *)op->t; /* per block: 1 + the level of its last group, 0 if none */
  int *per = s->next_free;  /* groups per level, then how many of them are placed */
  memset(next, 0, (size_t)op->f.nb * sizeof *next);
  memset(per, 0, ((size_t)n + 1) * sizeof *per);
  for (int i = 0, e; i < n; i = e) {
    int b0 = fb[2 * i], b1 = fb[2 * i + 1];
    e = group_end(&op->f, i);
    /* rowb: each row's level for now */
    int seq, c = first_slot(s, p, next, b0, b1, i, e, &seq);
    if (seq) {
      c = WIDE_SEQ;
    } else {
      per[c]++;
      if (b0 >= 0) next[b0] = c + 1;
      if (b1 >= 0) next[b1] = c + 1;
      if (c + 1 > nl) nl = c + 1; /* c <= ng < n */
    }
    for (int r = i; r < e; r++) s->row_batch[r] = c;
    s->group_first[ng++] = i;
  }
  s->group_first[ng] = n;
  wide_levels_into_batches(s, ng, nl);
  return ng;
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
