/*
 * collision_pass.c -- the contacts of a world's current state: sweep and
 * prune over the bodies' boxes (dyn_broadphase_sap), the pairs put in the
 * world's contact order, then the narrow phase (dyn_collide_pair) of each
 * pair not tied by a joint.  docs/dynamics.md, "Collision".
 *
 * Contact order: the contact rows follow the pairs, and a Gauss-Seidel
 * solver visits them in that order.  Sweep and prune reports pairs along
 * x, which on the box pyramid interleaves the layers; top-down
 * (DYN_ORDER_TOP_DOWN) sorts the pairs by the height of their dynamic
 * bodies' mean centre along -g, a stable radix sort in O(pairs) into a
 * reserved buffer.  What it changes in pyramids and stacks is measured in
 * experiments/README.md ("Measurements: dynamics"); the default stays the
 * broad phase's order.
 *
 * Memory: the buffers are dyn_bufs (world_internal.h) and grow only when
 * a pass needs more than any earlier one.
 */
#include "world_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

dyn_err dyn_collider_reserve(dyn_collider *c, int nb, long *grows) {
  size_t bytes = dyn_sap_workspace_size(nb), had = c->sap.cap;
  if (dyn_buf_reserve(&c->sap, bytes > 0 ? bytes : 1, grows) != 0) return DYN_ERR_NOMEM;
  if (c->sap.cap != had) /* new memory: its tag must read as "no order kept" */
    dyn_sap_workspace_init(c->sap.p);
  return DYN_OK;
}

void dyn_collider_free(dyn_collider *c) {
  dyn_buf_free(&c->sap);
  dyn_buf_free(&c->pairs);
  dyn_buf_free(&c->psort);
  dyn_buf_free(&c->con);
}

/* The heights h = -g . c of the np pairs into k[0 .. np-1] (c the mean
 * centre of the pair's dynamic bodies, of both when neither is); their
 * range in *hmin, *hmax. */
static void pair_heights(const dyn_collider *c, const dyn_body *bodies, dyn_v3 g, long np,
                         dyn_pair_sort *k, double *hmin, double *hmax) {
  *hmin = INFINITY;
  *hmax = -INFINITY;
  for (long i = 0; i < np; i++) {
    int a = c->pairs.p[2 * i], b = c->pairs.p[2 * i + 1];
    const dyn_body *A = &bodies[a], *B = &bodies[b];
    dyn_v3 ctr;
    if (A->is_static == B->is_static)
      ctr = dyn_v3_scale(dyn_v3_add(A->r, B->r), 0.5);
    else
      ctr = A->is_static ? B->r : A->r;
    double h = -dyn_v3_dot(g, ctr);
    k[i] = (dyn_pair_sort){ h, 0, a, b };
    *hmin = h < *hmin ? h : *hmin;
    *hmax = h > *hmax ? h : *hmax;
  }
}

/* The pairs highest first (DYN_ORDER_TOP_DOWN): heights quantised to 22
 * bits over [min h, max h] and sorted by a stable two-pass radix sort (11
 * bits a pass) on c->psort (2 np entries, reserved by the caller): no
 * branch on the data (a merge sort's comparisons cost more:
 * experiments/README.md, "Measurements: dynamics"), nothing allocated.  Heights within one
 * quantum (2.4e-7 of the range) keep the broad phase's order, as do all
 * pairs when the range is 0 or not finite. */
static void sort_pairs_top_down(dyn_collider *c, const dyn_body *bodies, dyn_v3 g, long np) {
  enum { BITS = 11, NBUCKET = 1 << BITS };
  dyn_pair_sort *k = c->psort.p, *t = c->psort.p + np;
  double hmin, hmax;
  pair_heights(c, bodies, g, np, k, &hmin, &hmax);
  double range = hmax - hmin;
  if (!(range > 0.0) || !isfinite(range)) return;
  /* q = 0 for the highest pair: ascending q is descending height */
  const double qend = (double)(1u << (2 * BITS)), scale = (qend - 1.0) / range;
  for (long i = 0; i < np; i++) {
    double q = (hmax - k[i].h) * scale; /* in [0, qend) for finite h */
    k[i].q = q >= 0.0 && q < qend ? (unsigned)q : 0u;
  }
  unsigned cnt[NBUCKET];
  for (int pass = 0; pass < 2; pass++) {
    int shift = pass * BITS;
    memset(cnt, 0, sizeof cnt);
    for (long i = 0; i < np; i++) cnt[(k[i].q >> shift) & (NBUCKET - 1)]++;
    for (unsigned d = 0, acc = 0; d < NBUCKET; d++) {
      unsigned n = cnt[d];
      cnt[d] = acc;
      acc += n;
    }
    for (long i = 0; i < np; i++) t[cnt[(k[i].q >> shift) & (NBUCKET - 1)]++] = k[i];
    dyn_pair_sort *swap = k;
    k = t;
    t = swap;
  }
  for (long i = 0; i < np; i++) {
    c->pairs.p[2 * i] = k[i].a;
    c->pairs.p[2 * i + 1] = k[i].b;
  }
}

/* The broad phase into c->pairs (grown until they fit); the pair count, or
 * a negative dyn_err after the message. */
static long broad_phase(dyn_collider *c, const dyn_body *bodies, int nb, double margin, char *msg,
                        size_t msgcap, long *grows) {
  for (;;) {
    long cap = (long)(c->pairs.cap / 2), np;
    np = dyn_broadphase_sap(bodies, nb, margin, c->sap.p, c->pairs.p, cap);
    if (np < 0) {
      dyn_msgf(msg, msgcap, "broad phase rejected the bodies (%ld)", np);
      return DYN_ERR_INPUT;
    }
    if ((size_t)np <= c->pairs.cap / 2 && c->pairs.p) return np;
    if ((size_t)np > SIZE_MAX / 4 || dyn_buf_reserve(&c->pairs, 2 * (size_t)np, grows) != 0) {
      dyn_msgf(msg, msgcap, "out of memory for %ld body pairs", np);
      return DYN_ERR_NOMEM;
    }
  }
}

/* The narrow phase of the np pairs (those in `in`'s jointed list skipped)
 * into c->con from offset; *nout contacts, *maxpen the deepest. */
static dyn_err narrow_phase(dyn_collider *c, const dyn_body *bodies, const dyn_collide_in *in,
                            long np, int offset, int *nout, double *maxpen, char *msg,
                            size_t msgcap) {
  int nc = 0;
  double pen = 0.0;
  for (long k = 0; k < np; k++) {
    int ia = c->pairs.p[2 * k], ib = c->pairs.p[2 * k + 1];
    if (in->njointed > 0 && dyn_pair_sorted_has(in->jointed, in->njointed,
                                                dyn_pair_key(ia < ib ? ia : ib, ia < ib ? ib : ia)))
      continue; /* a joint ties them: no contact between them */
    dyn_contact *con = c->con.p + offset + nc;
    int m = dyn_collide_pair(bodies, ia, ib, in->margin, con);
    if (m < 0) {
      dyn_msgf(msg, msgcap, "narrow phase rejected bodies %d and %d (%d)", ia, ib, m);
      return DYN_ERR_INPUT;
    }
    for (int j = 0; j < m; j++)
      if (con[j].depth > pen) pen = con[j].depth;
    nc += m;
  }
  *nout = nc;
  *maxpen = pen;
  return DYN_OK;
}

dyn_err dyn_collision_pass(dyn_collider *c, const dyn_body *bodies, int nb,
                           const dyn_collide_in *in, int offset, int *nout, double *maxpen,
                           char *msg, size_t msgcap, long *grows) {
  *nout = 0;
  *maxpen = 0.0;
  long np = broad_phase(c, bodies, nb, in->margin, msg, msgcap, grows);
  if (np < 0) return (dyn_err)np;
  if (in->top_down && np > 1) {
    if (dyn_buf_reserve(&c->psort, 2 * (size_t)np, grows) != 0) {
      dyn_msgf(msg, msgcap, "out of memory for sorting %ld body pairs", np);
      return DYN_ERR_NOMEM;
    }
    sort_pairs_top_down(c, bodies, in->gravity, np);
  }
  size_t need = (size_t)offset + (size_t)DYN_MAX_MANIFOLD * (size_t)np;
  if (need > (size_t)INT32_MAX) {
    dyn_msgf(msg, msgcap, "%ld body pairs are too many", np);
    return DYN_ERR_NOMEM;
  }
  if (dyn_buf_reserve(&c->con, need, grows) != 0) {
    dyn_msgf(msg, msgcap, "out of memory for %zu contacts", need);
    return DYN_ERR_NOMEM;
  }
  return narrow_phase(c, bodies, in, np, offset, nout, maxpen, msg, msgcap);
}
