/*
 * warmstart.c -- the warm-start cache of a world: the impulses of the last
 * step, found again in the next one (docs/dynamics.md, "Warm starting";
 * Catto 2005, "Iterative dynamics with temporal coherence": ODE quickstep
 * and Bullet keep the last step's impulses the same way).
 *
 * Contacts: after each step the contacts and their impulses are kept; in
 * the next step a contact of the shape pair (sa, sb) takes the impulses of
 * the previous contact of the same pair whose point is nearest (a body
 * with one shape: the body pair).  Pairs are found through an
 * open-addressing hash on (sa, sb), so a step costs O(contacts).  The normal impulse is copied; a friction impulse of the box
 * or cone model is carried as the world vector F = x_t1 t1 + x_t2 t2 and
 * projected on the new tangents (the basis of dyn_contact_basis turns with
 * the normal); the pyramid's beta and lambda are copied.  The contact
 * impulses are scaled by settings.warm_factor (how that factor was chosen:
 * experiments/records/2026-11-26-dynamics.md).  A change of friction
 * model drops the kept contacts.
 *
 * Joints: rows 0 .. njrows - 1 are kept per joint: joint i starts from its
 * last impulses, unscaled, when it wrote as many rows then (Catto's
 * accumulated joint impulses; a limit or motor row that appeared or went
 * away changes the count and drops them).
 *
 * Limitations: matching is by nearest point, not by collision feature.
 */
#include "world_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The home slot of a pair key (dyn_pair_key: sa in the high 32 bits, sb in
 * the low) in a table of cap slots, cap a power of two.  dyn_mix64 first,
 * so that both bodies reach the low bits the mask keeps:
 * the slot used to be bits 17.. of key times the golden ratio, which below
 * 2^15 slots depend on b alone (a times 2^32 only moves bits from 32 up),
 * so the pairs of one body shared a home slot and linear probing walked
 * their clusters (on pile 5000 the cache's build was 0.28 ms of the step,
 * most of it probing).  Which slot a pair takes changes nothing else: a
 * pair is found by its key, so the matched contacts are the same. */
static size_t hash_slot(uint64_t key, size_t cap) { return (size_t)dyn_mix64(key) & (cap - 1); }

/* How many contacts ahead dyn_warm_fill fetches a hash slot (a power of
 * two: the ring's index is a mask). */
enum { WARM_AHEAD = 8 };

dyn_err dyn_warm_reserve_joints(dyn_warm_cache *c, int nj, long *grows) {
  return dyn_buf_reserve(&c->jrows, (size_t)nj, grows) == 0 ? DYN_OK : DYN_ERR_NOMEM;
}

void dyn_warm_add_joint(dyn_warm_cache *c, int i) { c->jrows.p[i] = -1; }

void dyn_warm_drop_contacts(dyn_warm_cache *c) { c->nc = 0; }

void dyn_warm_free(dyn_warm_cache *c) {
  dyn_buf_free(&c->con);
  dyn_buf_free(&c->x);
  dyn_buf_free(&c->tan);
  dyn_buf_free(&c->tan_step);
  dyn_buf_free(&c->hash);
  dyn_buf_free(&c->jrows);
  dyn_buf_free(&c->jx);
}

double *dyn_warm_step_tangents(dyn_warm_cache *c, int nc, long *grows) {
  return dyn_buf_reserve(&c->tan_step, 6 * (size_t)nc, grows) == 0 ? c->tan_step.p : NULL;
}

/* The hash of the kept pairs: slot -> the first kept contact of the pair
 * and how many.  The contacts of one shape pair are consecutive (one
 * dyn_collide_pair call). */
static void build_pair_hash(dyn_warm_cache *c) {
  size_t hc = c->hcap, last = 0;
  dyn_warm_slot *h = c->hash.p;
  for (size_t s = 0; s < hc; s++) h[s].key = UINT64_MAX;
  for (int i = 0; i < c->nc; i++) {
    uint64_t key = dyn_pair_key(c->con.p[i].sa, c->con.p[i].sb);
    if (i > 0 && h[last].key == key) {
      h[last].count++;
      continue;
    }
    size_t s = hash_slot(key, hc);
    while (h[s].key != UINT64_MAX && h[s].key != key) s = (s + 1) & (hc - 1);
    if (h[s].key == key) { /* a pair seen twice (not expected): keep the first run */
      last = s;
      continue;
    }
    h[s].key = key;
    h[s].first = i;
    h[s].count = 1;
    last = s;
  }
}

/* Room for nc kept contacts of rpc rows each, their tangents when the
 * friction model has them, and their hash (c->hcap set: twice the
 * contacts at least, a power of two); on failure nothing is kept. */
static dyn_err reserve_kept(dyn_warm_cache *c, int nc, int rpc, dyn_friction fric, long *grows) {
  size_t hc = 16;
  while (hc < 2 * (size_t)nc) hc *= 2;
  int fail = dyn_buf_reserve(&c->con, (size_t)nc, grows);
  fail |= dyn_buf_reserve(&c->x, (size_t)nc * (size_t)rpc, grows);
  if (dyn_has_tangent_rows(fric)) fail |= dyn_buf_reserve(&c->tan, 6 * (size_t)nc, grows);
  fail |= dyn_buf_reserve(&c->hash, hc, grows);
  if (fail) {
    c->nc = 0;
    return DYN_ERR_NOMEM;
  }
  c->hcap = hc;
  return DYN_OK;
}

/* Keep the contacts, their impulses and (box and cone friction) the
 * tangents t1, t2 their friction impulses are along. */
static dyn_err keep_contacts(dyn_warm_cache *c, const dyn_warm_rows *r, const double *x,
                             long *grows) {
  int nc = r->nc, tan = dyn_has_tangent_rows(r->fric);
  size_t nr = (size_t)nc * (size_t)r->rpc;
  if (tan) { /* r->tan is tan_step's: kept as it is (reserve_kept finds its room) */
    dyn_buf_double t = c->tan;
    c->tan = c->tan_step;
    c->tan_step = t;
  }
  if (reserve_kept(c, nc, r->rpc, r->fric, grows) != DYN_OK) return DYN_ERR_NOMEM;
  if (nc > 0) /* a step with joint rows only may have no contact buffers yet */
    memcpy(c->con.p, r->con, (size_t)nc * sizeof *c->con.p);
  if (nr > 0) memcpy(c->x.p, x + r->njrows, nr * sizeof *c->x.p);
  c->nc = nc;
  c->rpc = r->rpc;
  c->fric = r->fric;
  build_pair_hash(c);
  return DYN_OK;
}

/* Keep the joints' impulses (rows 0 .. njrows - 1) and row counts. */
static dyn_err keep_joints(dyn_warm_cache *c, const dyn_warm_rows *r, const double *x,
                           long *grows) {
  if (dyn_buf_reserve(&c->jx, (size_t)r->njrows, grows) != 0) {
    c->j_valid = 0;
    return DYN_ERR_NOMEM;
  }
  /* no joint rows: the buffers may still be NULL (memcpy wants valid
   * pointers even for 0 bytes) */
  if (r->njrows > 0) memcpy(c->jx.p, x, (size_t)r->njrows * sizeof *c->jx.p);
  if (r->nj > 0) memcpy(c->jrows.p, r->jrows, (size_t)r->nj * sizeof *c->jrows.p);
  c->j_valid = 1;
  return DYN_OK;
}

dyn_err dyn_warm_set(dyn_warm_cache *c, const dyn_warm_saved *k, long *grows) {
  int nc = k->nc, tan = dyn_has_tangent_rows(k->fric);
  size_t nr = (size_t)nc * (size_t)k->rpc;
  if (reserve_kept(c, nc, k->rpc, k->fric, grows) != DYN_OK ||
      dyn_buf_reserve(&c->jx, (size_t)k->njx, grows) != 0) {
    c->nc = 0;
    c->j_valid = 0;
    return DYN_ERR_NOMEM;
  }
  if (nc > 0) memcpy(c->con.p, k->con, (size_t)nc * sizeof *c->con.p);
  if (nr > 0) memcpy(c->x.p, k->x, nr * sizeof *c->x.p);
  if (tan && nc > 0) memcpy(c->tan.p, k->tan, 6 * (size_t)nc * sizeof *c->tan.p);
  if (k->nj > 0) memcpy(c->jrows.p, k->jrows, (size_t)k->nj * sizeof *c->jrows.p);
  if (k->njx > 0) memcpy(c->jx.p, k->jx, (size_t)k->njx * sizeof *c->jx.p);
  c->nc = nc;
  c->rpc = k->rpc;
  c->fric = k->fric;
  c->j_valid = k->j_valid;
  build_pair_hash(c);
  return DYN_OK;
}

dyn_warm_saved dyn_warm_get(const dyn_warm_cache *c, int nj) {
  dyn_warm_saved k = { c->con.p,   c->nc, c->x.p,  c->tan.p, c->rpc,    c->fric,
                       c->jrows.p, nj,    c->jx.p, 0,        c->j_valid };
  for (int i = 0; c->j_valid && i < nj; i++) k.njx += c->jrows.p[i] > 0 ? c->jrows.p[i] : 0;
  if (!dyn_has_tangent_rows(c->fric)) k.tan = NULL;
  return k;
}

dyn_err dyn_warm_keep(dyn_warm_cache *c, const dyn_warm_rows *r, const double *x, long *grows) {
  dyn_err e = keep_contacts(c, r, x, grows);
  if (e != DYN_OK) return e;
  return keep_joints(c, r, x, grows);
}

/* Joint rows from the kept impulses: joint i's rows start from its last
 * impulses when it wrote as many rows then.  Joint impulses are
 * persistent (the load a joint carries changes slowly), so they are taken
 * whole, not scaled by warm_factor, which tames the re-matched contact
 * points only. */
static void fill_joints(const dyn_warm_cache *c, const dyn_warm_rows *r, double *x) {
  if (!c->j_valid) return;
  int off = 0, poff = 0;
  for (int i = 0; i < r->nj; i++) {
    int m = r->jrows[i], pm = c->jrows.p[i];
    if (pm == m) memcpy(x + off, c->jx.p + poff, (size_t)m * sizeof *x);
    off += m;
    poff += pm > 0 ? pm : 0;
  }
}

/* The slot of pair key (home slot s) in the hash, or -1 if the pair was
 * not kept. */
static long hashed_run(const dyn_warm_cache *c, uint64_t key, size_t s) {
  const dyn_warm_slot *h = c->hash.p;
  while (h[s].key != UINT64_MAX && h[s].key != key) s = (s + 1) & (c->hcap - 1);
  return h[s].key == key ? (long)s : -1;
}

/* The kept contact of slot s's run nearest to cc (s >= 0). */
static int nearest_kept(const dyn_warm_cache *c, long s, const dyn_contact *cc) {
  const dyn_warm_slot *h = c->hash.p;
  int best = -1;
  double dbest = INFINITY;
  for (int k = h[s].first; k < h[s].first + h[s].count; k++) {
    dyn_v3 d = dyn_v3_sub(c->con.p[k].p, cc->p);
    double d2 = dyn_v3_dot(d, d);
    if (d2 < dbest) {
      dbest = d2;
      best = k;
    }
  }
  return best;
}

/* Contact i's impulses xc from kept contact k, scaled by f. */
static void fill_contact(const dyn_warm_cache *c, const dyn_warm_rows *r, int i, int k, double f,
                         double *xc) {
  int rpc = r->rpc;
  const double *xp = c->x.p + (size_t)k * (size_t)rpc;
  xc[0] = f * xp[0];
  if (dyn_has_tangent_rows(r->fric)) {
    /* the kept tangents and this step's (dyn_contact_basis of each
     * contact's normal, dyn_warm_rows) */
    const double *tp = c->tan.p + 6 * (size_t)k, *tn = r->tan + 6 * (size_t)i;
    dyn_v3 t1p = dyn_v3_make(tp[0], tp[1], tp[2]), t2p = dyn_v3_make(tp[3], tp[4], tp[5]);
    dyn_v3 t1 = dyn_v3_make(tn[0], tn[1], tn[2]), t2 = dyn_v3_make(tn[3], tn[4], tn[5]);
    dyn_v3 F = dyn_v3_add(dyn_v3_scale(t1p, f * xp[1]), dyn_v3_scale(t2p, f * xp[2]));
    xc[1] = dyn_v3_dot(F, t1);
    xc[2] = dyn_v3_dot(F, t2);
    if (rpc > 3) xc[3] = f * xp[3]; /* torsion's spin: no tangent */
    if (rpc > 4) {
      /* the rolling rows' moment turns with the tangents as F does */
      dyn_v3 R = dyn_v3_add(dyn_v3_scale(t1p, f * xp[4]), dyn_v3_scale(t2p, f * xp[5]));
      xc[4] = dyn_v3_dot(R, t1);
      xc[5] = dyn_v3_dot(R, t2);
    }
  } else {
    for (int j = 1; j < rpc; j++) xc[j] = f * xp[j];
  }
}

/* Contacts [i0, i1) from the cache.  A run of contacts of one pair looks
 * its pair up once.  The hash, built at the end of the last step, is out
 * of the caches by now and its slots are read in random order: the home
 * slot of the contact WARM_AHEAD on is computed and fetched into the
 * cache meanwhile (home[], a ring of WARM_AHEAD), so that its look-up
 * finds it there. */
static void fill_run(const dyn_warm_cache *c, const dyn_warm_rows *r, double factor, double *x,
                     int i0, int i1) {
  const dyn_warm_slot *h = c->hash.p;
  size_t home[WARM_AHEAD];
  for (int i = i0; i < i0 + WARM_AHEAD && i < i1; i++)
    home[(unsigned)i % WARM_AHEAD] = hash_slot(dyn_pair_key(r->con[i].sa, r->con[i].sb), c->hcap);
  uint64_t key = 0;
  long s = -1;
  for (int i = i0; i < i1; i++) {
    size_t at = home[(unsigned)i % WARM_AHEAD];
    if (i + WARM_AHEAD < i1) {
      const dyn_contact *a = &r->con[i + WARM_AHEAD];
      size_t ahead = hash_slot(dyn_pair_key(a->sa, a->sb), c->hcap);
      home[(unsigned)i % WARM_AHEAD] = ahead;
      __builtin_prefetch(&h[ahead]);
    }
    uint64_t ki = dyn_pair_key(r->con[i].sa, r->con[i].sb);
    if (i == i0 || ki != key) {
      key = ki;
      s = hashed_run(c, key, at);
    }
    int k = s >= 0 ? nearest_kept(c, s, &r->con[i]) : -1;
    double *xc = x + (size_t)r->njrows + (size_t)i * (size_t)r->rpc;
    if (k >= 0)
      fill_contact(c, r, i, k, factor, xc); /* all rpc impulses */
    else
      memset(xc, 0, (size_t)r->rpc * sizeof *xc);
  }
}

void dyn_warm_fill(const dyn_warm_cache *c, const dyn_warm_rows *r, double factor, double *x) {
  /* zeros where nothing is found: the joint rows here, the contacts' in
   * fill_run (each contact's rows are written once) */
  memset(x, 0, (size_t)r->njrows * sizeof *x);
  fill_joints(c, r, x);
  if (c->nc == 0 || c->rpc != r->rpc || c->fric != r->fric) {
    memset(x + r->njrows, 0, (size_t)r->nc * (size_t)r->rpc * sizeof *x);
    return;
  }
  int T = dyn_par_threads(r->threads, r->nc);
#pragma omp parallel for num_threads(T) schedule(static, 1)
  for (int t = 0; t < T; t++)
    fill_run(c, r, factor, x, (int)dyn_par_cut(r->nc, t, T), (int)dyn_par_cut(r->nc, t + 1, T));
}
