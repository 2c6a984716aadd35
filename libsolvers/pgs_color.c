/* pgs_color.c -- pgs_wide's lanes in a greedy graph-coloured order of the
 * groups (pgs_lanes.h; the groups, batches, lanes and threads: pgs_wide.c).
 *
 * The same groups (the state's color flag), swept in a greedy graph-
 * coloured order instead of the row order, as Box2D v3 colours its
 * contacts (Catto 2024, "SIMD Matters"; its constraint_graph.c also caps
 * the colours and sweeps an overflow set on one thread).  Each group, in group order, takes the
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
 * order, so the threaded plan (pgs_wide.c, "Threads") runs it unchanged (each colour's
 * batches in T contiguous parts, one barrier per colour), with far fewer
 * barriers: pile 5000 has 9 colours of ~190 batches where its level
 * schedule has 90 levels of ~19.  The colouring and the batches depend on
 * the problem only, never on opt.threads (the parts only say which thread
 * sweeps which batch).  t = K^T x, at the start and at the check sweeps,
 * is summed colour by colour (wide_color_ktx: a block has one group per colour,
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
 * With a log callback set, its plan line names its overflow rows and
 * colours (and "on T threads" when it splits).  docs/solvers.md,
 * "pgs_color".
 */
#include "pgs_lanes.h"

/* The colour of group [i, e) on blocks b0, b1 (see wide_group_and_color): the
 * smallest below WIDE_COLORS that neither block holds, nor the group of
 * one of its rows' earlier findex rows (rowb[f] < WIDE_COLORS: a colour;
 * other values put no constraint), nor an earlier group with a findex row
 * in it; WIDE_SEQ if all are taken.  Marks the colour in cm. */
int wide_color_group(const wide_state *s, const slv_problem *p, color_marks *cm, int b0, int b1,
                     int i, int e) {
  int ahead = 0;
  uint64_t taken = (b0 >= 0 ? cm->used[b0] : 0) | (b1 >= 0 ? cm->used[b1] : 0);
  for (int r = i; p->findex && r < e; r++) {
    int f = p->findex[r];
    if (r >= cm->fwd_from) taken |= cm->fwd[r];
    if (f >= e)
      ahead = 1;
    else if (f >= 0 && f < i && s->row_batch[f] < WIDE_COLORS)
      taken |= UINT64_C(1) << s->row_batch[f];
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

/* pgs_color's schedule (see the header): each group, in
 * group order, takes the smallest colour below WIDE_COLORS that no earlier
 * group on either of its blocks holds, nor an earlier group it shares a
 * findex dependency with, in either direction (the group of one of its
 * rows' findex rows, or a group with a findex row in it); a group with
 * all WIDE_COLORS taken overflows (WIDE_SEQ: swept after the colours, one
 * row at a time in row order).  Then each colour is cut into batches as a
 * level is (wide_levels_into_batches).  Returns the number of groups, with
 * s->nlev the colours.  Meanwhile the operator's t holds each block's
 * colours (a bit set), s->plan_x each row's colours of the earlier groups
 * whose rows have their findex row there (only from the first such group
 * on), s->next_free the groups per colour. */
int wide_group_and_color(wide_state *s, const slv_op *op) {
  const slv_problem *p = op->p;
  int n = p->n, ng = 0, nl = 0;
  const int *fb = op->f.blk;
  color_marks cm = { (uint64_t *)op->t, (uint64_t *)s->plan_x, n };
  int *per = s->next_free; /* groups per colour */
  memset(cm.used, 0, (size_t)op->f.nb * sizeof *cm.used);
  memset(per, 0, ((size_t)(n < WIDE_COLORS ? n : WIDE_COLORS) + 1) * sizeof *per);
  for (int i = 0, e; i < n; i = e) {
    e = group_end(&op->f, i);
    int c = wide_color_group(s, p, &cm, fb[2 * i], fb[2 * i + 1], i, e);
    if (c != WIDE_SEQ) {
      per[c]++;
      if (c + 1 > nl) nl = c + 1;
    }
    for (int r = i; r < e; r++) s->row_batch[r] = c;
    s->group_first[ng++] = i;
  }
  s->group_first[ng] = n;
  wide_levels_into_batches(s, ng, nl);
  return ng;
}

/* pgs_color's t = K^T x, from the plan's x (xp): each block's sum taken
 * colour by colour (a colour has at most one group on a block: its rows
 * summed in registers, then added once, as slv_fac_ktx sums a run of rows
 * on one pair), then over the overflow rows' runs in row order.  The order
 * depends on the plan only, so t is the same bits on any number of
 * threads (it is not slv_fac_ktx's row order).  Batches [bt0, bt1). */
static void ktx_batches(const wide_state *s, const slv_fac *f, double *t, int bt0, int bt1) {
  for (int bt = bt0; bt < bt1; bt++) {
    int k = s->batch_first[bt], wd = 4 * s->batch_halves[bt], L = s->batch_steps[bt];
    const int *lb = s->entry_block + 16 * (size_t)bt;
    for (int l = 0; l < wd; l++) {
      int i0 = s->order[k + l]; /* the lane's group: rows i0, i0 + 1, ... */
      if (i0 < 0) continue;
      /* twelve named sums, as in slv_fac_ktx (an array stayed on the stack) */
      double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0;
      double a6 = 0, a7 = 0, a8 = 0, a9 = 0, a10 = 0, a11 = 0;
      const double *K = f->K + 12 * (size_t)i0;
      for (int r = 0, q = k + l; r < L && s->order[q] >= 0; r++, q += wd, K += 12) {
        double xq = s->plan_x[q];
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
      const double *K = f->K + 12 * (size_t)s->order[e], xe = s->plan_x[e];
      for (int c = 0; c < 12; c++) a[c] += K[c] * xe;
    }
    if (b0 >= 0)
      for (int c = 0; c < 6; c++) t[6 * (size_t)b0 + c] += a[c];
    if (b1 >= 0)
      for (int c = 0; c < 6; c++) t[6 * (size_t)b1 + c] += a[6 + c];
  }
}

/* pgs_color's t = K^T x in the operator's t, on one thread. */
void wide_color_ktx(wide_state *s, slv_op *op) {
  memset(op->t, 0, 6 * (size_t)op->f.nb * sizeof *op->t);
  ktx_batches(s, &op->f, op->t, 0, s->nbat);
  ktx_rest(s, &op->f, op->t);
}

/* The same from inside the team (every thread calls it): the blocks
 * zeroed in np slices, each colour's parts (a barrier after each: the
 * next colour adds to the same blocks), the overflow rows on one thread. */
void wide_color_ktx_team(wide_state *s, slv_op *op) {
  const int np = s->np, nb = op->f.nb;
#pragma omp for schedule(static)
  for (int v = 0; v < np; v++) {
    long long B0 = (long long)nb * v / np, B1 = (long long)nb * (v + 1) / np;
    memset(op->t + 6 * B0, 0, 6 * (size_t)(B1 - B0) * sizeof *op->t);
  }
  for (int l = 0; l < s->nlev; l++) {
#pragma omp for schedule(static)
    for (int v = 0; v < np; v++)
      ktx_batches(s, &op->f, op->t, s->part_first[np * l + v], s->part_first[np * l + v + 1]);
  }
#pragma omp single
  ktx_rest(s, &op->f, op->t);
}

static slv_status color_init(void *st, int n_max, const slv_options *opt) {
  slv_status r = wide_init(st, n_max, opt);
  if (r == SLV_OK) ((wide_state *)st)->color = 1;
  return r;
}

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
