/* broadphase.c -- bounding boxes and the broad phase: which pairs of
 * bodies may touch, so that the narrow phase (collide.c) runs on those
 * only.
 *
 * AABB (docs/dynamics.md, "Collision"): the world-axis box [lo, hi] of a
 * shape, grown by margin on every side:
 *   sphere   c +- (r, r, r)
 *   box      c +- |R| h          (|R| elementwise; the extent along world
 *                                 axis i is sum_k |R_ik| h_k)
 *   capsule  c +- (|a| + (r, r, r)),  a = half_length R e_z  (elementwise |a|)
 *   hull     min / max of the world vertices
 *   plane    the solid n . x <= d: unbounded on every axis, except when n
 *            is exactly +-e_k: then hi_k = d (n = +e_k) or lo_k = -d
 *            (n = -e_k), the other bounds infinite
 *   none     empty: lo = +inf, hi = -inf (overlaps nothing).
 * Two AABBs overlap when lo_a,k <= hi_b,k and lo_b,k <= hi_a,k on all three
 * axes (closed intervals: touching boxes overlap; an infinite bound
 * overlaps everything on its side).
 *
 * Sweep and prune (docs/dynamics.md, "Collision"; Baraff 1992, sec 7.2;
 * Ericson 2005, Real-Time Collision Detection, sec 7.5.2): sort the
 * x-intervals by their start lo.x; for body i in that order, the bodies j
 * after it with lo_j.x <= hi_i.x are exactly those whose x-interval meets
 * i's (a later start cannot precede lo_i.x), and the pair is reported if y
 * and z overlap too.  Cost O(n log n + pairs + sum of the x-overlaps); an
 * unbounded body (a half-space whose normal is not +-e_x) meets every later
 * one on x, O(n) each.  The sort is on (lo.x, index), a strict total
 * order, so the result does not depend on how it is reached.  The
 * workspace keeps the last call's order (tagged with a magic number and
 * nb; a workspace fresh from dyn_sap_workspace_init, or whose tag or
 * indices do not fit, starts from index order), and the boxes are re-sorted from it by insertion
 * sort: O(n + moves), O(n) a step for a coherent scene [Baraff 1992, sec
 * 7.2; Ericson 2005, sec 7.5.2, "exploit temporal coherence"].  When the
 * moves pass 8 n + 64 (a first call, a scene that jumped), a heap sort
 * takes over: never worse than O(n log n) plus that budget.  No memory is
 * allocated (qsort may allocate).
 *
 * A grid for crowded scenes (grid_sweep): when a box meets more than 32
 * others along x on average (estimated on every 16th box: a pile, whose
 * spheres share x with every layer), the sweep's candidates are mostly
 * far away in y or z.  dyn_broadphase_sap then puts each bounded box in
 * a square cell across x by its lo corner's y and z (cells twice as wide
 * as the largest bounded box's extent e), each cell's boxes in the
 * sweep's order, and sweeps each box against the later boxes of the cells
 * that hold lo corners from lo - e to hi on y and on z (2 x 2 mostly, at
 * most 3 x 3: a box that meets it has its lo corner there) along x (from
 * a cursor per cell, to the first lo.x past its hi.x) and against the
 * unbounded boxes (half-spaces); its partners go
 * out sorted, so the pairs are the sweep's, pair for pair, in the same
 * order [Ericson 2005, sec 7.1 and 7.5.2].  Fewer than 256 boxes, over 64
 * unbounded ones, or more cells than nb + 64 (after coarsening): the
 * sweep.  The grid lives in the workspace, rebuilt each call.
 *
 * Pairs are reported as i < j, never both static (is_static, or a plane,
 * which never moves), never a body without shape or whose AABB has a NaN.
 * dyn_broadphase_all tests every pair with the same rule: the reference.
 * Both return the number of pairs found, write at most maxpairs of them,
 * and return -1 (DYN_ERR_INPUT) on invalid arguments (NULL bodies with
 * nb > 0, NULL ws or pairs where needed, maxpairs < 0, margin < 0 or NaN).
 */
#include "dyn_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SAP_HAVE_AVX2_CODE 1
#endif

typedef struct {
  dyn_v3 lo, hi;
  int id;
  int stat;
  int use; /* a usable box (box_usable); the others sort last, by id */
} sap_box;

/* The workspace: this header, then nb sap_box in the last call's order,
 * then the sorted boxes' lo.x, lo.y, hi.y, lo.z, hi.z and static flag
 * (1.0 / 0.0) as six arrays of nb + SAP_PAD doubles (sap_columns), which
 * the AVX2 sweep reads four at a time. */
typedef struct {
  unsigned magic;
  int nb;
  size_t usable; /* the usable boxes, first in the order (sap_sort) */
} sap_head;

#define SAP_MAGIC 0x5a9c0b1du

enum { SAP_PAD = 4, SAP_NCOL = 6 };

/* The grid's arrays after the columns (grid_arrays): the bounded boxes in
 * cell order as grid_item records (nb of them); a box's partners (nb
 * keys); then per box its cell, the unbounded boxes, and for up to
 * GRID_CELLS_PER * nb + GRID_CELLS_EXTRA cells their starts (+ 1) and
 * cursors. */
enum { GRID_CELLS_PER = 1, GRID_CELLS_EXTRA = 64, GRID_INTS = 2 + 2 * GRID_CELLS_PER };

/* A bounded box as the grid reads it: its bounds but hi.x, its sorted
 * position and its id (times 2, plus 1 if static); one record, so that a
 * candidate costs one or two cache lines whichever cell it is in. */
typedef struct {
  double lx, ly, hy, lz, hz;
  int pos;
  unsigned idst;
} grid_item;

/* The six columns of the workspace of nb boxes (above). */
typedef struct {
  double *lx, *ly, *hy, *lz, *hz, *st;
} sap_cols;

/* The six columns of a workspace laid out for nb boxes. */
static double *columns_of(sap_head *head, size_t nb) {
  return (double *)((sap_box *)(head + 1) + nb);
}

static sap_cols sap_columns(sap_head *head) {
  double *c = columns_of(head, (size_t)head->nb);
  size_t m = (size_t)head->nb + SAP_PAD;
  sap_cols k = { c, c + m, c + 2 * m, c + 3 * m, c + 4 * m, c + 5 * m };
  return k;
}

void dyn_body_aabb(const dyn_body_const *bc, const dyn_body_state *b, double margin, dyn_v3 *lo,
                   dyn_v3 *hi) {
  dyn_geom g = dyn_body_geom(bc, b);
  dyn_geom_aabb(&g, margin, lo, hi);
}

void dyn_geom_aabb(const dyn_geom *b, double margin, dyn_v3 *lo, dyn_v3 *hi) {
  const dyn_shape *s = b->shape;
  dyn_v3 e = dyn_v3_make(0.0, 0.0, 0.0), c = b->r;
  switch (s->kind) {
  case DYN_SHAPE_SPHERE: e = dyn_v3_make(s->radius, s->radius, s->radius); break;
  case DYN_SHAPE_BOX: {
    dyn_m3 R = dyn_quat_to_m3(dyn_quat_normalize(b->q));
    const double *m = R.m;
    e.x = fabs(m[0]) * s->half.x + fabs(m[1]) * s->half.y + fabs(m[2]) * s->half.z;
    e.y = fabs(m[3]) * s->half.x + fabs(m[4]) * s->half.y + fabs(m[5]) * s->half.z;
    e.z = fabs(m[6]) * s->half.x + fabs(m[7]) * s->half.y + fabs(m[8]) * s->half.z;
    break;
  }
  case DYN_SHAPE_CAPSULE: {
    dyn_v3 a = dyn_quat_rotate(dyn_quat_normalize(b->q), dyn_v3_make(0.0, 0.0, s->half_length));
    e = dyn_v3_make(fabs(a.x) + s->radius, fabs(a.y) + s->radius, fabs(a.z) + s->radius);
    break;
  }
  case DYN_SHAPE_ELLIPSOID:
  case DYN_SHAPE_CYLINDER:
    e = dyn_shape_curved_half_box(s, dyn_quat_to_m3(dyn_quat_normalize(b->q)));
    break;
  case DYN_SHAPE_HULL: {
    if (!s->verts || s->nverts < 1) goto empty;
    dyn_quat q = dyn_quat_normalize(b->q);
    dyn_v3 l = dyn_v3_make(INFINITY, INFINITY, INFINITY), h = dyn_v3_neg(l);
    for (int i = 0; i < s->nverts; i++) {
      dyn_v3 x = dyn_v3_add(c, dyn_quat_rotate(q, s->verts[i]));
      l = dyn_v3_make(fmin(l.x, x.x), fmin(l.y, x.y), fmin(l.z, x.z));
      h = dyn_v3_make(fmax(h.x, x.x), fmax(h.y, x.y), fmax(h.z, x.z));
    }
    *lo = dyn_v3_make(l.x - margin, l.y - margin, l.z - margin);
    *hi = dyn_v3_make(h.x + margin, h.y + margin, h.z + margin);
    return;
  }
  case DYN_SHAPE_PLANE: {
    double n[3] = { s->normal.x, s->normal.y, s->normal.z }, l[3], h[3];
    int axis = -1;
    for (int k = 0; k < 3; k++) {
      l[k] = -INFINITY;
      h[k] = INFINITY;
    }
    /* bounded on one side only when the normal is exactly +-e_k */
    for (int k = 0; k < 3; k++)
      if (n[k] != 0.0 && n[(k + 1) % 3] == 0.0 && n[(k + 2) % 3] == 0.0) axis = k;
    if (axis >= 0) {
      /* n_k x_k >= d is free: the solid is x_k <= d / n_k (n_k > 0) or
       * x_k >= d / n_k (n_k < 0) */
      double bound = s->offset / n[axis];
      if (n[axis] > 0.0)
        h[axis] = bound + margin;
      else
        l[axis] = bound - margin;
    }
    *lo = dyn_v3_make(l[0], l[1], l[2]);
    *hi = dyn_v3_make(h[0], h[1], h[2]);
    return;
  }
  default: goto empty;
  }
  *lo = dyn_v3_make(c.x - e.x - margin, c.y - e.y - margin, c.z - e.z - margin);
  *hi = dyn_v3_make(c.x + e.x + margin, c.y + e.y + margin, c.z + e.z + margin);
  return;
empty:
  *lo = dyn_v3_make(INFINITY, INFINITY, INFINITY);
  *hi = dyn_v3_make(-INFINITY, -INFINITY, -INFINITY);
}

void dyn_sap_workspace_init(void *ws) {
  if (ws) {
    sap_head *head = ws;
    head->magic = 0;
    head->nb = 0;
    head->usable = 0;
  }
}

size_t dyn_sap_workspace_size(int nb) {
  return nb > 0 ? sizeof(sap_head) + (size_t)nb * sizeof(sap_box) +
                      SAP_NCOL * ((size_t)nb + SAP_PAD) * sizeof(double) +
                      (size_t)nb * (sizeof(grid_item) + sizeof(uint64_t)) +
                      ((size_t)GRID_INTS * (size_t)nb + 2 * GRID_CELLS_EXTRA + 1) * sizeof(int)
                : 0;
}

static int is_static_geom(const dyn_geom *b) {
  return b->is_static || b->shape->kind == DYN_SHAPE_PLANE;
}

/* A usable box: not empty, no NaN (every comparison below then means what
 * it says). */
static int box_usable(dyn_v3 lo, dyn_v3 hi) { return lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z; }

/* & rather than &&: four compares and no branch (the short-circuit form
 * mispredicted on most candidates of a pile) */
static int overlap_yz(const sap_box *a, const sap_box *b) {
  return (a->lo.y <= b->hi.y) & (b->lo.y <= a->hi.y) & (a->lo.z <= b->hi.z) & (b->lo.z <= a->hi.z);
}

/* usable boxes first, in (lo.x, id) order; then the others by id */
static int box_less(const sap_box *a, const sap_box *b) {
  if (a->use != b->use) return a->use > b->use;
  if (!a->use) return a->id < b->id;
  return a->lo.x < b->lo.x || (a->lo.x == b->lo.x && a->id < b->id);
}

/* Insertion sort from the present order; 0 if it gave up after `budget`
 * moves (v is then a permutation of what it was, not sorted). */
static int insertion_sort(sap_box *v, size_t n, size_t budget) {
  size_t moves = 0;
  for (size_t i = 1; i < n; i++) {
    sap_box t = v[i];
    size_t j = i;
    for (; j > 0 && box_less(&t, &v[j - 1]); j--) v[j] = v[j - 1];
    v[j] = t;
    moves += i - j;
    if (moves > budget) return 0;
  }
  return 1;
}

static void sift_down(sap_box *v, size_t root, size_t n) {
  for (;;) {
    size_t child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && box_less(&v[child], &v[child + 1])) child++;
    if (!box_less(&v[root], &v[child])) return;
    sap_box t = v[root];
    v[root] = v[child];
    v[child] = t;
    root = child;
  }
}

static void heap_sort(sap_box *v, size_t n) {
  if (n < 2) return;
  for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n);
  for (size_t end = n - 1; end > 0; end--) {
    sap_box t = v[0];
    v[0] = v[end];
    v[end] = t;
    sift_down(v, 0, end);
  }
}

static void emit(int i, int j, int *pairs, long maxpairs, long *count) {
  if (*count < maxpairs) {
    pairs[2 * *count] = i < j ? i : j;
    pairs[2 * *count + 1] = i < j ? j : i;
  }
  (*count)++;
}

/* The columns of the sorted boxes; the padding reads as empty boxes (the
 * sweep masks those lanes out whatever they hold). */
static void fill_columns(const sap_box *v, sap_cols c, size_t nb) {
  for (size_t j = 0; j < nb + SAP_PAD; j++) {
    int real = j < nb;
    c.lx[j] = real ? v[j].lo.x : INFINITY;
    c.ly[j] = real ? v[j].lo.y : INFINITY;
    c.hy[j] = real ? v[j].hi.y : -INFINITY;
    c.lz[j] = real ? v[j].lo.z : INFINITY;
    c.hz[j] = real ? v[j].hi.z : -INFINITY;
    c.st[j] = real && v[j].stat ? 1.0 : 0.0;
  }
}

/* sap_sort's scratch in the grid's part of a workspace for nb boxes
 * (free between calls: grid_sweep fills it anew): the bodies' boxes in
 * index order where the grid's records go, and their static flags and
 * seen flags where its partners go. */
typedef struct {
  dyn_v3 lo, hi;
} sap_aabb;

typedef struct {
  sap_aabb *box;
  int *stat, *seen;
} sap_scratch;

static sap_scratch scratch_of(sap_head *head, size_t nb) {
  _Static_assert(sizeof(sap_aabb) <= sizeof(grid_item) && 2 * sizeof(int) <= sizeof(uint64_t),
                 "sap_sort's scratch fits where the grid's items and partners go");
  unsigned char *items = (unsigned char *)(columns_of(head, nb) + SAP_NCOL * (nb + SAP_PAD));
  sap_scratch r;
  r.box = (sap_aabb *)items;
  r.stat = (int *)(items + nb * sizeof(grid_item));
  r.seen = r.stat + nb;
  return r;
}

/* The boxes of the bodies in (lo.x, id) order in ws (the usable ones
 * first): dyn_broadphase_sap's first half.  Returns how many are usable.
 * The bodies are read in index order (into the scratch), and the kept
 * order's check marks ids in a compact array: both were scattered reads
 * of the sap_box records or the bodies. */
static size_t sap_sort(dyn_bodies bodies, const dyn_shape_rt *shapes, int nb, double margin,
                       void *ws) {
  sap_head *head = ws;
  sap_box *v = (sap_box *)(head + 1);
  sap_scratch s = scratch_of(head, (size_t)nb);
  int kept = head->magic == SAP_MAGIC && head->nb == nb;
  for (int k = 0; kept && k < nb; k++) kept = v[k].id >= 0 && v[k].id < nb;
  /* and a permutation of 0..nb-1: a repeated id (a workspace written
   * over) is caught */
  if (kept) memset(s.seen, 0, (size_t)nb * sizeof *s.seen);
  for (int k = 0; kept && k < nb; k++) {
    kept = !s.seen[v[k].id];
    s.seen[v[k].id] = 1;
  }
  for (int i = 0; i < nb; i++) {
    dyn_geom g = dyn_geom_at(bodies, shapes, i);
    dyn_geom_aabb(&g, margin, &s.box[i].lo, &s.box[i].hi);
    s.stat[i] = is_static_geom(&g);
  }
  size_t n = 0;
  for (int k = 0; k < nb; k++) {
    int i = kept ? v[k].id : k;
    sap_box *b = &v[k];
    b->lo = s.box[i].lo;
    b->hi = s.box[i].hi;
    b->use = box_usable(b->lo, b->hi);
    b->id = i;
    b->stat = s.stat[i];
    n += (size_t)b->use;
  }
  if (!insertion_sort(v, (size_t)nb, 8 * (size_t)nb + 64)) heap_sort(v, (size_t)nb);
  head->magic = SAP_MAGIC;
  head->nb = nb;
  head->usable = n;
  fill_columns(v, sap_columns(head), (size_t)nb);
  return n;
}

/* The sweep from the sorted boxes i0 <= i < i1 (each against the later
 * ones): the pairs in the order dyn_broadphase_sap reports them. */
static long sap_sweep(const sap_box *v, size_t n, size_t i0, size_t i1, int *pairs, long maxpairs) {
  long count = 0;
  for (size_t i = i0; i < i1; i++) {
    const sap_box *a = &v[i];
    for (size_t j = i + 1; j < n && v[j].lo.x <= a->hi.x; j++) {
      const sap_box *b = &v[j];
      if (!(overlap_yz(a, b) & !(a->stat & b->stat))) continue;
      emit(a->id, b->id, pairs, maxpairs, &count);
    }
  }
  return count;
}

#ifdef SAP_HAVE_AVX2_CODE
/* sap_sweep four candidates at a time from the columns: the same tests
 * (lo_j.x <= hi_i.x, the y and z overlaps, not both static) as compares of
 * four doubles, the pairs emitted in j order from the mask's bits, so the
 * output is sap_sweep's.  The lanes at or past n are masked out. */
__attribute__((target("avx2"))) static long sap_sweep_avx2(const sap_box *v, sap_cols c, size_t n,
                                                           size_t i0, size_t i1, int *pairs,
                                                           long maxpairs) {
  long count = 0;
  for (size_t i = i0; i < i1; i++) {
    const sap_box *a = &v[i];
    __m256d hx = _mm256_set1_pd(a->hi.x), ly = _mm256_set1_pd(a->lo.y),
            hy = _mm256_set1_pd(a->hi.y), lz = _mm256_set1_pd(a->lo.z),
            hz = _mm256_set1_pd(a->hi.z), zero = _mm256_setzero_pd();
    int astat = a->stat;
    for (size_t j = i + 1; j < n; j += 4) {
      size_t left = n - j;
      int valid = left >= 4 ? 0xf : (1 << left) - 1;
      int inx =
          _mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(c.lx + j), hx, _CMP_LE_OQ)) & valid;
      __m256d yz =
          _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(ly, _mm256_loadu_pd(c.hy + j), _CMP_LE_OQ),
                                      _mm256_cmp_pd(_mm256_loadu_pd(c.ly + j), hy, _CMP_LE_OQ)),
                        _mm256_and_pd(_mm256_cmp_pd(lz, _mm256_loadu_pd(c.hz + j), _CMP_LE_OQ),
                                      _mm256_cmp_pd(_mm256_loadu_pd(c.lz + j), hz, _CMP_LE_OQ)));
      if (astat) yz = _mm256_and_pd(yz, _mm256_cmp_pd(_mm256_loadu_pd(c.st + j), zero, _CMP_EQ_OQ));
      int m = _mm256_movemask_pd(yz) & inx;
      while (m) {
        int k = __builtin_ctz((unsigned)m);
        emit(a->id, v[j + (size_t)k].id, pairs, maxpairs, &count);
        m &= m - 1;
      }
      if (inx != valid) break; /* sorted by lo.x: no later box meets i on x */
    }
  }
  return count;
}
#endif

/* The sweep of the sorted boxes i0 <= i < i1 against the later ones of
 * the first n (four at a time from the columns when simd and the CPU
 * allow). */
static long sweep_range(sap_head *head, size_t n, size_t i0, size_t i1, int *pairs, long maxpairs,
                        int simd) {
  const sap_box *v = (const sap_box *)(head + 1);
  i0 = i0 < n ? i0 : n;
  i1 = i1 < n ? i1 : n;
#ifdef SAP_HAVE_AVX2_CODE
  if (simd && __builtin_cpu_supports("avx2"))
    return sap_sweep_avx2(v, sap_columns(head), n, i0, i1, pairs, maxpairs);
#else
  (void)simd;
#endif
  return sap_sweep(v, n, i0, i1, pairs, maxpairs);
}

/* ---- the grid ------------------------------------------------------------ */

/* The grid's arrays in the workspace, after the columns. */
typedef struct {
  grid_item *items; /* the bounded boxes by cell, each cell's in sorted order */
  uint64_t *part;   /* one box's partners: sorted position << 32 | id */
  int *cell;        /* per sorted box: its cell, -1 for an unbounded box */
  int *large;       /* the unbounded boxes, in sorted order */
  int *start;       /* ncap + 1: where each cell's boxes start in items */
  int *cur;         /* ncap: each cell's first box not before the box being swept */
  size_t ncap;
} sap_grid;

static sap_grid grid_arrays(sap_head *head) {
  size_t nb = (size_t)head->nb, m = nb + SAP_PAD, nc = GRID_CELLS_PER * nb + GRID_CELLS_EXTRA;
  sap_grid r;
  r.items = (grid_item *)(columns_of(head, nb) + SAP_NCOL * m);
  r.part = (uint64_t *)(r.items + nb);
  int *g = (int *)(r.part + nb);
  r.cell = g;
  r.large = g + nb;
  r.start = g + 2 * nb;
  r.cur = g + 2 * nb + nc + 1;
  r.ncap = nc;
  return r;
}

/* The cells across x: origin (y, z), side c, d[0] cells along y, d[1]
 * along z. */
typedef struct {
  double o[2], c, inv; /* inv = 1 / c */
  double reach;        /* the largest extent, rounded up (grid_cells) */
  int d[2];
  size_t nl; /* unbounded boxes */
} grid_geom;

enum {
  GRID_MIN_BOXES = 256,     /* fewer: the sweep */
  GRID_MAX_LARGE = 64,      /* more unbounded boxes (each meets O(n) candidates): the sweep */
  GRID_SAP_CANDIDATES = 32, /* the sweep's candidates a box above which the grid runs */
  GRID_CELL_SCALE = 2       /* cell side over the reach (grid_cells) */
};

/* The sweep's candidates per box (the later boxes whose lo.x is at most
 * the box's hi.x), estimated on every 16th of the n sorted boxes by
 * bisection in the sorted lo.x. */
static double sweep_candidates(const sap_box *v, const double *lx, size_t n) {
  double tot = 0.0;
  size_t m = 0;
  for (size_t i = 0; i < n; i += 16, m++) {
    double h = v[i].hi.x;
    size_t a = i + 1, b = n; /* the first later box with lo.x > h */
    while (a < b) {
      size_t c = a + (b - a) / 2;
      if (lx[c] <= h)
        a = c + 1;
      else
        b = c;
    }
    tot += (double)(a - i - 1);
  }
  return m ? tot / (double)m : 0.0;
}

static int box_bounded(const sap_box *b) {
  return isfinite(b->lo.x) && isfinite(b->lo.y) && isfinite(b->lo.z) && isfinite(b->hi.x) &&
         isfinite(b->hi.y) && isfinite(b->hi.z);
}

/* The cells of the n sorted (usable) boxes: squares across x of side c,
 * GRID_CELL_SCALE times the reach (just above the largest y or z extent
 * of a bounded box), over the range
 * of their lo corners; the unbounded boxes listed apart (g.cell -1, the
 * others 0 for now).  0 when no grid fits (too many unbounded boxes, none
 * bounded, points only across x, or more cells than the workspace holds
 * after coarsening thrice): the sweep runs instead. */
static int grid_cells(const sap_box *v, size_t n, sap_grid g, grid_geom *G) {
  double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY }, ext = 0.0;
  size_t nl = 0;
  for (size_t i = 0; i < n; i++) {
    g.cell[i] = box_bounded(&v[i]) ? 0 : -1;
    if (g.cell[i] < 0) {
      if (nl == GRID_MAX_LARGE) return 0;
      g.large[nl++] = (int)i;
      continue;
    }
    const double a[2] = { v[i].lo.y, v[i].lo.z }, b[2] = { v[i].hi.y, v[i].hi.z };
    for (int k = 0; k < 2; k++) {
      lo[k] = a[k] < lo[k] ? a[k] : lo[k];
      hi[k] = a[k] > hi[k] ? a[k] : hi[k];
      ext = b[k] - a[k] > ext ? b[k] - a[k] : ext;
    }
  }
  if (nl == n || !(ext > 0.0) || !isfinite(ext)) return 0;
  /* the reach, 1e-6 above the extent: above every box's exact extent
   * (hi - lo rounds by at most 2^-53 of it), so that a box j meeting box
   * i has lo_j >= lo_i - reach on y and on z (grid_partners) */
  double reach = ext * (1.0 + 1e-6), c = GRID_CELL_SCALE * reach;
  for (int tries = 0;; tries++) {
    double cells = 1.0;
    for (int k = 0; k < 2; k++) {
      double span = (hi[k] - lo[k]) / c;
      if (!(span < (double)g.ncap)) span = (double)g.ncap; /* too many: coarsened below */
      G->d[k] = (int)span + 1;
      cells *= (double)G->d[k];
    }
    if (cells <= (double)g.ncap) break;
    if (tries == 3) return 0;
    c *= 1.01 * sqrt(cells / (double)g.ncap);
  }
  for (int k = 0; k < 2; k++) G->o[k] = lo[k];
  G->c = c;
  G->inv = 1.0 / c;
  G->reach = reach;
  G->nl = nl;
  return 1;
}

/* Cell coordinate of x along y (k = 0) or z (k = 1), clamped: never less
 * for a larger x (each step rounds monotonically). */
static int cell_of(const grid_geom *G, int k, double x) {
  int i = (int)((x - G->o[k]) * G->inv);
  return i < 0 ? 0 : (i >= G->d[k] ? G->d[k] - 1 : i);
}

/* Each bounded box into its cell, the cells' boxes in sorted order (a
 * counting sort over the cells), their columns in that order, and each
 * cell's cursor at its first box. */
static void grid_fill(const sap_box *v, size_t n, sap_grid g, const grid_geom *G) {
  size_t nc = (size_t)G->d[0] * (size_t)G->d[1];
  memset(g.start, 0, (nc + 1) * sizeof *g.start);
  for (size_t i = 0; i < n; i++) {
    if (g.cell[i] < 0) continue; /* unbounded (grid_cells) */
    g.cell[i] = cell_of(G, 1, v[i].lo.z) * G->d[0] + cell_of(G, 0, v[i].lo.y);
    g.start[g.cell[i] + 1]++;
  }
  for (size_t k = 1; k <= nc; k++) g.start[k] += g.start[k - 1];
  for (size_t i = 0; i < n; i++)
    if (g.cell[i] >= 0) g.items[g.start[g.cell[i]]++].pos = (int)i;
  for (size_t k = nc; k > 0; k--) g.start[k] = g.start[k - 1];
  g.start[0] = 0;
  memcpy(g.cur, g.start, nc * sizeof *g.cur);
  size_t nbox = (size_t)g.start[nc];
  for (size_t p = 0; p < nbox; p++) {
    grid_item *t = &g.items[p];
    const sap_box *b = &v[t->pos];
    t->lx = b->lo.x;
    t->ly = b->lo.y;
    t->hy = b->hi.y;
    t->lz = b->lo.z;
    t->hz = b->hi.z;
    t->idst = 2u * (unsigned)b->id + (b->stat ? 1u : 0u);
  }
}

/* Whether sorted boxes i < j make a pair, by the sweep's rule: lo_j.x <=
 * hi_i.x (lo_i.x <= hi_j.x holds by the order), y and z overlapping, not
 * both static. */
static int sweep_pair(const sap_box *a, const sap_box *b) {
  return (b->lo.x <= a->hi.x) & overlap_yz(a, b) & !(a->stat & b->stat);
}

/* A partner's sort key: its sorted position, then its id. */
static uint64_t partner_key(size_t pos, unsigned id) { return (uint64_t)pos << 32 | id; }

/* The partners of bounded box a (sorted box i) in the cells around it,
 * into g.part as partner_key, unsorted; their count.  ast: a is static
 * (a constant where it is inlined).  A candidate goes into part as its
 * item's index, kept when it is a pair, and only the pairs' items are
 * read again for their keys (about one candidate in five on a pile).
 * A box j that meets i has lo_i - reach <= lo_j <= hi_i on y and on z
 * (grid_cells), so its lo corner is in a cell from cell_of(lo_i - reach)
 * to cell_of(hi_i) on each (the rounded lo_i - reach is at most lo_j, and
 * cell_of is monotone).  In each of those cells (across x) the boxes are
 * in sorted order, so by lo.x: the later ones start at the cell's cursor
 * (moved past i; the boxes come in sorted order, so a cursor only moves
 * on) and those that meet i along x end at the first lo.x past hi_i.x, as
 * in the sweep.  a's bounds are read once into locals: the stores to the
 * cursors and partners could otherwise alias them. */
__attribute__((always_inline)) static inline int
cell_partners(const sap_box *a, size_t i, sap_grid g, const grid_geom *G, const unsigned ast) {
  const double hx = a->hi.x, ly = a->lo.y, hy = a->hi.y, lz = a->lo.z, hz = a->hi.z;
  const grid_item *it = g.items;
  uint64_t *part = g.part;
  const int d0 = G->d[0];
  const int y0 = cell_of(G, 0, ly - G->reach), y1 = cell_of(G, 0, hy);
  const int z0 = cell_of(G, 1, lz - G->reach), z1 = cell_of(G, 1, hz);
  int m = 0;
  for (int z = z0; z <= z1; z++)
    for (int cell = z * d0 + y0, last = z * d0 + y1; cell <= last; cell++) {
      int end = g.start[cell + 1], p = g.cur[cell];
      while (p < end && (size_t)it[p].pos <= i) p++;
      g.cur[cell] = p;
      for (; p < end && it[p].lx <= hx; p++) {
        const grid_item *b = &it[p];
        /* written always, kept when it is a pair: no branch to mispredict */
        part[m] = (uint64_t)p;
        m += (ly <= b->hy) & (b->ly <= hy) & (lz <= b->hz) & (b->lz <= hz) &
             (ast ? !(b->idst & 1u) : 1);
      }
    }
  for (int k = 0; k < m; k++) { /* the item of each partner as its key */
    const grid_item *b = &it[part[k]];
    part[k] = partner_key((size_t)b->pos, b->idst >> 1);
  }
  return m;
}

/* Bounded box i's partners (the later boxes it makes a pair with) as
 * partner_key, in sorted order; their count: those of the cells
 * (cell_partners), then the unbounded boxes from large[lq] on (those
 * after i); all sorted (a few: insertion sort). */
static int grid_partners(const sap_box *v, size_t i, size_t lq, sap_grid g, const grid_geom *G) {
  const sap_box *a = &v[i];
  uint64_t *part = g.part;
  /* cell_partners' loop made once for a static box i (a static
   * candidate is no partner) and once for the others (most boxes: no
   * test) */
  int m = a->stat ? cell_partners(a, i, g, G, 1u) : cell_partners(a, i, g, G, 0u);
  for (size_t q = lq; q < G->nl; q++) {
    size_t j = (size_t)g.large[q];
    if (sweep_pair(a, &v[j])) part[m++] = partner_key(j, (unsigned)v[j].id);
  }
  for (int k = 1; k < m; k++) {
    uint64_t t = part[k];
    int b = k;
    for (; b > 0 && part[b - 1] > t; b--) part[b] = part[b - 1];
    part[b] = t;
  }
  return m;
}

/* Unbounded box i against the later ones of the n boxes, as the sweep
 * has it (sweep_range); count grows by its pairs. */
static void grid_sweep_one(sap_head *head, size_t n, size_t i, int *pairs, long maxpairs,
                           long *count) {
  int room = *count < maxpairs;
  *count += sweep_range(head, n, i, i + 1, room ? pairs + 2 * *count : NULL,
                        room ? maxpairs - *count : 0, 1);
}

/* The sweep's pairs, in its order, from a grid across x (docs/dynamics.md,
 * "Collision"; a uniform grid, Ericson 2005, sec 7.1, with the sweep along
 * x inside each cell): each bounded box meets the later boxes of the cells
 * around it that meet it along x (grid_partners), and the unbounded
 * boxes; each unbounded box the later boxes as the sweep has it; each
 * box's partners go out in sorted order, the boxes in sorted order, so
 * the pairs are sap_sweep's, pair for pair.  -1 when the sweep costs less
 * (fewer than GRID_MIN_BOXES boxes, or at most GRID_SAP_CANDIDATES
 * candidates a box along x) or no grid fits (grid_cells). */
static long grid_sweep(sap_head *head, size_t n, int *pairs, long maxpairs) {
  const sap_box *v = (const sap_box *)(head + 1);
  if (n < GRID_MIN_BOXES || sweep_candidates(v, sap_columns(head).lx, n) <= GRID_SAP_CANDIDATES)
    return -1;
  sap_grid g = grid_arrays(head);
  grid_geom G;
  if (!grid_cells(v, n, g, &G)) return -1;
  grid_fill(v, n, g, &G);
  long count = 0;
  size_t lq = 0; /* the first unbounded box after i */
  for (size_t i = 0; i < n; i++) {
    if (g.cell[i] < 0) { /* unbounded: the sweep's own loop */
      grid_sweep_one(head, n, i, pairs, maxpairs, &count);
      lq++;
      continue;
    }
    int m = grid_partners(v, i, lq, g, &G);
    for (int k = 0; k < m; k++) emit(v[i].id, (int)(uint32_t)g.part[k], pairs, maxpairs, &count);
  }
  return count;
}

long dyn_broadphase_sap(dyn_bodies bodies, int nb, double margin, void *ws, int *pairs,
                        long maxpairs) {
  return dyn_broadphase_shapes(bodies, NULL, nb, margin, ws, pairs, maxpairs);
}

long dyn_broadphase_shapes(dyn_bodies bodies, const dyn_shape_rt *shapes, int nb, double margin,
                           void *ws, int *pairs, long maxpairs) {
  if (nb <= 0) return 0;
  if (!bodies.c || !bodies.s || !ws || maxpairs < 0 || (maxpairs > 0 && !pairs) || !(margin >= 0.0))
    return DYN_ERR_INPUT;
  size_t n = sap_sort(bodies, shapes, nb, margin, ws);
  long k = grid_sweep(ws, n, pairs, maxpairs);
  return k >= 0 ? k : dyn_sap_sweep(ws, 0, n, pairs, maxpairs, 1);
}

long dyn_sap_grid(void *ws, size_t n, int *pairs, long maxpairs) {
  sap_head *head = ws;
  return grid_sweep(head, n < head->usable ? n : head->usable, pairs, maxpairs);
}

size_t dyn_sap_sort(dyn_bodies bodies, const dyn_shape_rt *shapes, int n, double margin, void *ws) {
  return n > 0 ? sap_sort(bodies, shapes, n, margin, ws) : 0;
}

long dyn_sap_sweep(void *ws, size_t i0, size_t i1, int *pairs, long maxpairs, int simd) {
  sap_head *head = ws;
  return sweep_range(head, head->usable, i0, i1, pairs, maxpairs, simd);
}

long dyn_broadphase_all(dyn_bodies bodies, int nb, double margin, int *pairs, long maxpairs) {
  if (nb <= 0) return 0;
  if (!bodies.c || !bodies.s || maxpairs < 0 || (maxpairs > 0 && !pairs) || !(margin >= 0.0))
    return DYN_ERR_INPUT;
  long count = 0;
  for (int i = 0; i < nb; i++) {
    sap_box a;
    dyn_geom ga = dyn_body_geom(&bodies.c[i], &bodies.s[i]);
    dyn_geom_aabb(&ga, margin, &a.lo, &a.hi);
    a.stat = is_static_geom(&ga);
    if (!box_usable(a.lo, a.hi)) continue;
    for (int j = i + 1; j < nb; j++) {
      sap_box b;
      dyn_geom gb = dyn_body_geom(&bodies.c[j], &bodies.s[j]);
      dyn_geom_aabb(&gb, margin, &b.lo, &b.hi);
      b.stat = is_static_geom(&gb);
      if ((a.stat && b.stat) || !box_usable(b.lo, b.hi)) continue;
      if (a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && overlap_yz(&a, &b))
        emit(i, j, pairs, maxpairs, &count);
    }
  }
  return count;
}
