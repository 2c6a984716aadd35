/*
 * collision_pass.c -- the contacts of a world's current state: sweep and
 * prune over the boxes of the collision records (dyn_broadphase_sap; a
 * record per shape, or the bodies themselves when each has one shape at
 * its own pose: world_model.c), the pairs put in the world's contact
 * order, then the narrow phase (dyn_collide_pair) of each pair that may
 * touch: not of one body, let through by the shapes' filters (MuJoCo's
 * contype / conaffinity rule), its bodies neither jointed nor excluded.
 * Each contact is named by its bodies (the rows) and its shapes, and
 * carries the shapes' combined material: the maximum of each field
 * (dyn_material_combine; docs/scenes.md, "Materials and the combine
 * rule").  docs/dynamics.md, "Collision".
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
  dyn_buf_free(&c->pheight);
  dyn_buf_free(&c->con);
  dyn_buf_free(&c->runs);
}

/* The heights h = -g . c of the np pairs into k[0 .. np-1] (c the mean
 * centre of the pair's dynamic bodies, of both when neither is); their
 * range in *hmin, *hmax. */
static void pair_heights(const dyn_collider *c, dyn_bodies bodies, const dyn_shape_rt *shapes,
                         dyn_v3 g, long np, double *k, double *hmin, double *hmax) {
  *hmin = INFINITY;
  *hmax = -INFINITY;
  for (long i = 0; i < np; i++) {
    int a = c->pairs.p[2 * i], b = c->pairs.p[2 * i + 1];
    const dyn_shape_rt *A = &shapes[a], *B = &shapes[b];
    int sa = bodies.c[A->body].is_static, sb = bodies.c[B->body].is_static;
    dyn_v3 ctr;
    if (sa == sb)
      ctr = dyn_v3_scale(dyn_v3_add(dyn_shape_centre(bodies, A), dyn_shape_centre(bodies, B)), 0.5);
    else
      ctr = dyn_shape_centre(bodies, sa ? B : A);
    double h = -dyn_v3_dot(g, ctr);
    k[i] = h;
    *hmin = h < *hmin ? h : *hmin;
    *hmax = h > *hmax ? h : *hmax;
  }
}

/* Prefix sums of the n counts in place: each becomes the count before it. */
static void exclusive_sums(unsigned *cnt, int n) {
  for (unsigned d = 0, acc = 0; d < (unsigned)n; d++) {
    unsigned m = cnt[d];
    cnt[d] = acc;
    acc += m;
  }
}

/* The pairs highest first (DYN_ORDER_TOP_DOWN): heights quantised to 22
 * bits over [min h, max h] and sorted by a stable two-pass radix sort (11
 * bits a pass) of 12-byte records (dyn_pair_sort: 24-byte ones with the
 * height took a third longer) on c->psort (2 np records) and c->pheight
 * (np heights), both reserved by the caller: no branch on the data (a
 * merge sort's comparisons cost more: experiments/records/2026-11-26-dynamics.md),
 * nothing allocated.  Heights within one
 * quantum (2.4e-7 of the range) keep the broad phase's order, as do all
 * pairs when the range is 0 or not finite.  Both passes' counts are taken
 * while the keys are quantised, and the second pass writes the pairs
 * themselves: four passes over the pairs. */
static void sort_pairs_top_down(dyn_collider *c, dyn_bodies bodies, const dyn_shape_rt *shapes,
                                dyn_v3 g, long np) {
  enum { BITS = 11, NBUCKET = 1 << BITS };
  dyn_pair_sort *k = c->psort.p, *t = c->psort.p + np;
  double *hs = c->pheight.p, hmin, hmax;
  pair_heights(c, bodies, shapes, g, np, hs, &hmin, &hmax);
  double range = hmax - hmin;
  if (!(range > 0.0) || !isfinite(range)) return;
  /* q = 0 for the highest pair: ascending q is descending height */
  const double qend = (double)(1u << (2 * BITS)), scale = (qend - 1.0) / range;
  unsigned lo[NBUCKET], hi[NBUCKET];
  memset(lo, 0, sizeof lo);
  memset(hi, 0, sizeof hi);
  const int *pr = c->pairs.p;
  for (long i = 0; i < np; i++) {
    double q = (hmax - hs[i]) * scale; /* in [0, qend) for finite h */
    uint32_t u = q >= 0.0 && q < qend ? (uint32_t)q : 0u;
    k[i] = (dyn_pair_sort){ u, pr[2 * i], pr[2 * i + 1] };
    lo[u & (NBUCKET - 1)]++;
    hi[u >> BITS]++;
  }
  exclusive_sums(lo, NBUCKET);
  exclusive_sums(hi, NBUCKET);
  for (long i = 0; i < np; i++) t[lo[k[i].q & (NBUCKET - 1)]++] = k[i];
  for (long i = 0; i < np; i++) {
    unsigned at = hi[t[i].q >> BITS]++;
    c->pairs.p[2 * (size_t)at] = t[i].a;
    c->pairs.p[2 * (size_t)at + 1] = t[i].b;
  }
}

/* The broad phase into c->pairs (grown until they fit); the pair count, or
 * a negative dyn_err after the message. */
static long broad_phase(dyn_collider *c, dyn_bodies bodies, const dyn_shape_rt *shapes, int n,
                        double margin, char *msg, size_t msgcap, long *grows) {
  for (;;) {
    long cap = (long)(c->pairs.cap / 2), np;
    np = dyn_broadphase_shapes(bodies, shapes, n, margin, c->sap.p, c->pairs.p, cap);
    if (np < 0) {
      dyn_msgf(msg, msgcap, "broad phase rejected the shapes (%ld)", np);
      return DYN_ERR_INPUT;
    }
    if ((size_t)np <= c->pairs.cap / 2 && c->pairs.p) return np;
    if ((size_t)np > SIZE_MAX / 4 || dyn_buf_reserve(&c->pairs, 2 * (size_t)np, grows) != 0) {
      dyn_msgf(msg, msgcap, "out of memory for %ld body pairs", np);
      return DYN_ERR_NOMEM;
    }
  }
}

/* Moves the T runs' items (run t: count items of `size` bytes from item
 * start) to follow one another from base; returns their total.  Run t
 * starts at or after where the earlier runs end, so moving them in order
 * never writes over one still to move. */
static long close_up_runs(void *base, size_t size, const dyn_run *runs, int T) {
  long at = 0;
  for (int t = 0; t < T; t++) {
    if (at != runs[t].start && runs[t].count > 0)
      memmove((char *)base + (size_t)at * size, (char *)base + (size_t)runs[t].start * size,
              (size_t)runs[t].count * size);
    at += runs[t].count;
  }
  return at;
}

/* The broad phase on T threads: the sorted boxes cut into T runs, each
 * run's pairs swept into its own stretch of c->pairs, then the stretches
 * closed up: the pairs of broad_phase, in its order. */
static long broad_phase_split(dyn_collider *c, dyn_bodies bodies, const dyn_shape_rt *shapes,
                              int ns, double margin, int T, char *msg, size_t msgcap, long *grows) {
  long n = (long)dyn_sap_sort(bodies, shapes, ns, margin, c->sap.p);
  dyn_run *runs = c->runs.p;
  for (;;) {
    long room = c->pairs.p ? (long)(c->pairs.cap / 2) / T : 0, most = 0;
#pragma omp parallel for num_threads(T) schedule(static, 1)
    for (int t = 0; t < T; t++)
      runs[t].count =
          dyn_sap_sweep(c->sap.p, (size_t)dyn_par_cut(n, t, T), (size_t)dyn_par_cut(n, t + 1, T),
                        room ? c->pairs.p + 2 * room * t : NULL, room, 1);
    for (int t = 0; t < T; t++) {
      most = runs[t].count > most ? runs[t].count : most;
      runs[t].start = room * t;
    }
    if (room > 0 && most <= room) return close_up_runs(c->pairs.p, 2 * sizeof(int), runs, T);
    if ((size_t)most > SIZE_MAX / 8 / (size_t)T ||
        dyn_buf_reserve(&c->pairs, 2 * (size_t)T * (size_t)(most + most / 4 + 1), grows) != 0) {
      dyn_msgf(msg, msgcap, "out of memory for %ld body pairs on %d threads", most, T);
      return DYN_ERR_NOMEM;
    }
  }
}

/* 1 iff the shapes of records A and B may touch: not of one body, let
 * through by their filters (MuJoCo's rule, dyn_shape_def), their bodies
 * neither jointed nor excluded. */
static int may_touch(const dyn_collide_in *in, const dyn_shape_rt *A, const dyn_shape_rt *B) {
  if (A->body == B->body) return 0;
  if (in->filtered && !((A->contype & B->conaffinity) | (B->contype & A->conaffinity))) return 0;
  int lo = A->body < B->body ? A->body : B->body, hi = A->body < B->body ? B->body : A->body;
  return !(in->nnocontact > 0 &&
           dyn_pair_sorted_has(in->nocontact, in->nnocontact, dyn_pair_key(lo, hi)));
}

/* The contacts of records A and B placed as GA and GB under MuJoCo's geom
 * margin and gap (MuJoCo 2.2.2's mj_collideGeoms; docs/dynamics.md,
 * "Collision"): the pair's margin m and gap g are the larger of the two
 * records'; MuJoCo detects a contact closer than m and holds it at its
 * rest distance m - g (inactive until closer).  Here the contacts are
 * found closer than max(m, m - g + margin), margin the world's (its
 * speculative band beyond the rest distance, as without), and each depth
 * is counted from the rest distance, depth + m - g: the rows hold the pair
 * m - g apart, and a contact farther binds only if the step would close
 * it past there.  The count, or < 0 as dyn_collide_geoms. */
static int collide_margins(const dyn_geom *GA, const dyn_geom *GB, const dyn_shape_rt *A,
                           const dyn_shape_rt *B, int ia, int ib, double margin, int checked,
                           dyn_contact *con) {
  double m = fmax(A->margin, B->margin), rest = m - fmax(A->gap, B->gap);
  double find = fmax(m, rest + margin);
  int n = checked ? dyn_collide_valid_geoms(GA, GB, ia, ib, find, con)
                  : dyn_collide_geoms(GA, GB, ia, ib, find, con);
  for (int j = 0; j < n; j++) con[j].depth += rest;
  return n;
}

/* The narrow phase of pairs k0 <= k < k1 (those that may not touch
 * skipped) into out: each contact named by its bodies and shapes, with
 * the pair's combined material (dyn_material_combine: the maximum of each
 * field); run->count contacts, run->pen the deepest, run->fail the first
 * pair rejected (-1 if none; the run stops there). */
static void narrow_run(const dyn_collider *c, dyn_bodies bodies, const dyn_collide_in *in,
                       int checked, long k0, long k1, dyn_contact *out, dyn_run *run) {
  int nc = 0;
  double pen = 0.0;
  run->fail = -1;
  for (long k = k0; k < k1; k++) {
    int ia = c->pairs.p[2 * k], ib = c->pairs.p[2 * k + 1];
    const dyn_shape_rt *A = &in->shapes[ia], *B = &in->shapes[ib];
    if (!may_touch(in, A, B)) continue;
    dyn_contact *con = out + nc;
    dyn_geom GA = dyn_shape_place(bodies, A), GB = dyn_shape_place(bodies, B);
    int m = in->margins ? collide_margins(&GA, &GB, A, B, ia, ib, in->margin, checked, con)
            : checked   ? dyn_collide_valid_geoms(&GA, &GB, ia, ib, in->margin, con)
                        : dyn_collide_geoms(&GA, &GB, ia, ib, in->margin, con);
    if (m < 0) {
      run->fail = k;
      run->code = m;
      break;
    }
    if (m == 0) continue;
    double e = dyn_material_max(A->e, B->e);
    dyn_friction_coef f = dyn_pair_friction((dyn_friction_coef){ A->mu, A->mt, A->mr, A->cd },
                                            (dyn_friction_coef){ B->mu, B->mt, B->mr, B->cd });
    for (int j = 0; j < m; j++) {
      if (con[j].depth > pen) pen = con[j].depth;
      con[j].a = A->body; /* the records' indices are the bodies' when direct */
      con[j].b = B->body;
      con[j].sa = A->shape;
      con[j].sb = B->shape;
      con[j].mu = f.mu;
      con[j].restitution = e;
      con[j].mu_torsion = f.mt;
      con[j].mu_rolling = f.mr;
    }
    nc += m;
  }
  run->count = nc;
  run->pen = pen;
}

/* 1 iff the margin and every one of the n shape records, placed, pass
 * dyn_collide_pair's input checks, so that the pairs need not be checked
 * one by one (O(records) a pass, not O(pairs)); else each pair is, and the
 * first rejected pair is named as before. */
static int records_valid(dyn_bodies bodies, const dyn_shape_rt *shapes, int n, double margin) {
  if (!(margin >= 0.0) || !isfinite(margin)) return 0;
  for (int i = 0; i < n; i++) {
    dyn_geom g = dyn_shape_place(bodies, &shapes[i]);
    if (!dyn_geom_valid(&g)) return 0;
  }
  return 1;
}

/* The narrow phase of the np pairs into c->con from offset, on T threads
 * (T >= 1): T runs of consecutive pairs, each into its own stretch (room
 * for DYN_MAX_MANIFOLD contacts a pair), closed up in order; *nout
 * contacts, *maxpen the deepest.  The first pair rejected, in the pairs'
 * order, ends the pass with DYN_ERR_INPUT. */
static dyn_err narrow_phase(dyn_collider *c, dyn_bodies bodies, int n, const dyn_collide_in *in,
                            long np, int offset, int T, int *nout, double *maxpen, char *msg,
                            size_t msgcap) {
  dyn_run *runs = c->runs.p;
  dyn_contact *base = c->con.p + offset;
  int checked = records_valid(bodies, in->shapes, n, in->margin);
#pragma omp parallel for num_threads(T) schedule(static, 1) if (T > 1)
  for (int t = 0; t < T; t++) {
    long k0 = dyn_par_cut(np, t, T);
    runs[t].start = DYN_MAX_MANIFOLD * k0;
    narrow_run(c, bodies, in, checked, k0, dyn_par_cut(np, t + 1, T), base + runs[t].start,
               &runs[t]);
  }
  double pen = 0.0;
  for (int t = 0; t < T; t++) {
    if (runs[t].fail >= 0) {
      long k = runs[t].fail;
      dyn_msgf(msg, msgcap, "narrow phase rejected bodies %d and %d (%d)",
               in->shapes[c->pairs.p[2 * k]].body, in->shapes[c->pairs.p[2 * k + 1]].body,
               runs[t].code);
      return DYN_ERR_INPUT;
    }
    pen = runs[t].pen > pen ? runs[t].pen : pen;
  }
  *nout = (int)close_up_runs(base, sizeof *base, runs, T);
  *maxpen = pen;
  return DYN_OK;
}

/* Room for a pass on up to T threads: a dyn_run each. */
static dyn_err reserve_runs(dyn_collider *c, int T, char *msg, size_t msgcap, long *grows) {
  if (dyn_buf_reserve(&c->runs, (size_t)T, grows) != 0) {
    dyn_msgf(msg, msgcap, "out of memory for a collision pass on %d threads", T);
    return DYN_ERR_NOMEM;
  }
  return DYN_OK;
}

dyn_err dyn_collision_pass(dyn_collider *c, dyn_bodies bodies, int n, const dyn_collide_in *in,
                           int offset, int *nout, double *maxpen, char *msg, size_t msgcap,
                           long *grows) {
  *nout = 0;
  *maxpen = 0.0;
  /* room for the most threads a phase may take */
  dyn_err e = reserve_runs(c, dyn_par_threads(in->threads, DYN_PAR_MIN), msg, msgcap, grows);
  int Tb = dyn_par_threads(in->threads, n);
  if (e != DYN_OK) return e;
  const dyn_shape_rt *S = in->shapes;
  double bm = in->margin + in->margin_max; /* a shape's margin widens its box (0 when none) */
  long np = Tb > 1 ? broad_phase_split(c, bodies, S, n, bm, Tb, msg, msgcap, grows)
                   : broad_phase(c, bodies, S, n, bm, msg, msgcap, grows);
  if (np < 0) return (dyn_err)np;
  if (in->top_down && np > 1) {
    if (dyn_buf_reserve(&c->psort, 2 * (size_t)np, grows) != 0 ||
        dyn_buf_reserve(&c->pheight, (size_t)np, grows) != 0) {
      dyn_msgf(msg, msgcap, "out of memory for sorting %ld body pairs", np);
      return DYN_ERR_NOMEM;
    }
    sort_pairs_top_down(c, bodies, S, in->gravity, np);
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
  return narrow_phase(c, bodies, n, in, np, offset, dyn_par_threads(in->threads, np), nout, maxpen,
                      msg, msgcap);
}
