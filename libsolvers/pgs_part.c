/* pgs_part.c -- pgs_wide's lanes with the bodies cut into one part per
 * thread, the rows between parts by colours (pgs_lanes.h; the groups,
 * batches, lanes and threads: pgs_wide.c; the colours: pgs_color.c).
 *
 * Partitioned Gauss-Seidel (the state's part flag), as distributed-memory
 * smoothers split a sweep into processor interiors and boundary colours
 * (Adams 2001).  On one thread, and whenever its plan does not split, it
 * is pgs_wide: the
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
 * levels 1, 2, ... are the separator's colours (wide_color_group among
 * separator groups only: the interiors are swept before, so they
 * constrain nothing), cut into parts of equal work as pgs_color's
 * colours; then the separator's overflow rows.  Part u of level 0 is
 * swept by thread u, and each colour's parts by the threads, with a
 * barrier after each level.  Every row does pgs's step, so a sweep is
 * pgs's sweep of the rows permuted into that order (each part's groups in
 * group order, then each colour's in group order, then the overflow rows);
 * t = K^T x at the start and at the check sweeps is summed by the levels
 * (wide_color_ktx: a part's groups one after another, a colour's once a
 * block).  The plan depends on T, so the iterates are deterministic for a
 * given T, not the same across T; it falls back to pgs_wide's plan when a
 * part has fewer than WIDE_PAR_MIN_BATCHES interior batches.  What it
 * buys over pgs_color: each thread's sweep is pgs_wide's order over half
 * the bodies (pgs_color's colour order costs 23 % more a sweep on one
 * thread), and its one thread is pgs_wide's; docs/solvers.md, "pgs_part".
 *
 * With a log callback set, its plan line names its parts, separator rows
 * and colours when it splits.  docs/solvers.md, "pgs_part".
 */
#include "pgs_lanes.h"

/* Whether a row of group [i, e) has its findex row outside the group. */
static int findex_outside(const slv_problem *p, int i, int e) {
  for (int r = i; p->findex && r < e; r++)
    if (p->findex[r] >= 0 && (p->findex[r] < i || p->findex[r] >= e)) return 1;
  return 0;
}

/* The cuts of pgs_part's partition (see the header), from
 * each group's span [glo[g], ghi[g]] of first-seen rows of its blocks:
 * cut[0] = 0 <= cut[1] <= ... <= cut[np] = n + 1, cut[u + 1] the first
 * row c at which the groups with glo >= cut[u] and ghi < c (part u's
 * interior) hold as many rows as an equal share of what lies at or past c
 * (the rows of groups with glo >= c).  Scratch: cnt (n + 2), nfree (n + 1)
 * and byhi (ng: the groups by ghi). */
static void partition_cuts(wide_state *s, int n, int ng, const int *glo, const int *ghi, int np,
                           int *byhi, int *cut) {
  const int *gf = s->group_first;
  int *past = s->batch_count, *at = s->next_free; /* past[c]: rows of groups with glo >= c */
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

/* pgs_part's classes (see the header): each block's first
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
  int *glo = s->batch_steps, *ghi = s->batch_halves,
      *byhi = s->batch_first; /* set again by lay_out */
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
    for (int r = i; r < e; r++) s->row_batch[r] = WIDE_COLORS;
    s->group_first[ng++] = i;
  }
  s->group_first[ng] = n;
  partition_cuts(s, n, ng, glo, ghi, np, byhi, cut);
  for (int u = 0; u < np; u++) size[u] = 0;
  for (int g = 0; g < ng; g++) {
    int u = part_of(cut, np, glo[g]);
    if (ghi[g] >= cut[u + 1] || findex_outside(p, s->group_first[g], s->group_first[g + 1]))
      u = -1;
    else
      size[u]++;
    cls[g] = u;
  }
  return ng;
}

/* pgs_part's first fit of part u's interior groups (cls[g] = u) into
 * batches [b0, b1), as wide_group_and_schedule batches a whole problem: each in
 * group order takes the first batch with a free lane after every earlier
 * batch of the part on either of its blocks (next: per block, 1 + that
 * batch).  Returns the batches used (a prefix of the range: a group's
 * batch is at most b0 + the groups before it). */
static int first_fit_part(wide_state *s, const slv_op *op, const int *cls, int u, int b0, int b1,
                          int *next) {
  const int *fb = op->f.blk, *gf = s->group_first;
  int used = 0;
  for (int b = b0; b < b1; b++) { /* only its own: the next part's b0 is b1 */
    s->next_free[b] = b;
    s->batch_count[b] = 0;
  }
  for (int g = 0; gf[g] < op->n; g++) {
    if (cls[g] != u) continue;
    int i = gf[g], e = gf[g + 1], k0 = fb[2 * i], k1 = fb[2 * i + 1], seq;
    /* its findex rows are its own, so wide_first_slot reads no other part's
     * rows; the batch is below b1, as batch b1 - 1 holds one group at most */
    int c = wide_first_slot(s, op->p, next, k0, k1, i, e, &seq);
    c = wide_first_fit_place(s, next, k0, k1, c > b0 ? c : b0);
    if (c + 1 - b0 > used) used = c + 1 - b0;
    for (int r = i; r < e; r++) s->row_batch[r] = c;
  }
  return used;
}

/* pgs_part's schedule (see the header): level 0 holds the
 * parts' interiors, part u's groups batched first fit as pgs_wide batches
 * (in group order, a batch after every earlier batch of the part on
 * either block), parts one after another; levels 1, 2, ... are the
 * separator's colours (wide_color_group among separator groups only: the
 * interiors are swept before), cut into batches as levels are.  Sets
 * nbat, cnt, rowb (each row's batch), lvl, nlev and level 0's parts in
 * pst; returns the number of groups, or -1 if a part has fewer than
 * WIDE_PAR_MIN_BATCHES interior batches (too small to be worth a thread).
 * The operator's t holds per-block colours, parts and first-fit marks
 * meanwhile, s->group_order each group's class. */
int wide_group_and_partition(wide_state *s, const slv_op *op, int np) {
  const slv_problem *p = op->p;
  const int *fb = op->f.blk, nb = op->f.nb;
  uint64_t *used = (uint64_t *)op->t;
  int *first = (int *)(used + nb), *next = first + nb, *cls = s->group_order;
  int size[SLV_THREADS_MAX + 1], base[SLV_THREADS_MAX + 1], off[SLV_THREADS_MAX + 1];
  int nbu[SLV_THREADS_MAX] = { 0 }, per[WIDE_COLORS] = { 0 }, seen[WIDE_COLORS] = { 0 }, nl = 0;
  int ng = partition_groups(s, op, np, first, cls, size);
  /* the separator's colours */
  color_marks cm = { used, (uint64_t *)s->plan_x, p->n };
  memset(used, 0, (size_t)nb * sizeof *used);
  for (int g = 0; g < ng; g++) {
    if (cls[g] >= 0) continue;
    int i = s->group_first[g], e = s->group_first[g + 1];
    int c = wide_color_group(s, p, &cm, fb[2 * i], fb[2 * i + 1], i, e);
    if (c != WIDE_SEQ) {
      per[c]++;
      if (c + 1 > nl) nl = c + 1;
    }
    for (int r = i; r < e; r++) s->row_batch[r] = c;
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
    for (int j = 0; j < nbu[u]; j++)
      s->batch_count[off[u] + j] = s->batch_count[base[u] + j]; /* off <= base */
  }
  /* the levels: the interiors, then a level per colour */
  s->nlev = 1 + nl;
  s->level_first[0] = 0;
  s->level_first[1] = off[np];
  for (int c = 0; c < nl; c++)
    s->level_first[c + 2] = s->level_first[c + 1] + (per[c] + WIDE_BATCH - 1) / WIDE_BATCH;
  s->nbat = s->level_first[s->nlev];
  memset(s->batch_count + off[np], 0, ((size_t)s->nbat - off[np] + 1) * sizeof *s->batch_count);
  for (int g = 0; g < ng; g++) {
    int i = s->group_first[g], e = s->group_first[g + 1], u = cls[g], bt = s->row_batch[i];
    if (u >= 0) {
      bt = bt - base[u] + off[u];
    } else if (bt != WIDE_SEQ) {
      int c = bt;
      bt = s->level_first[c + 1] + seen[c]++ / WIDE_BATCH;
      s->batch_count[bt]++;
    }
    for (int r = i; r < e; r++) s->row_batch[r] = bt;
  }
  for (int u = 0; u < np; u++) s->part_first[u] = off[u];
  return ng;
}

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
