/*
 * world_state.c -- a world's state saved into a caller's buffer and
 * restored from it (dyn_world_save_state, dyn_world_restore_state,
 * dyn_world.h; docs/scenes.md, "State").
 *
 * The state is what changes as the world steps and what the next step
 * reads: per body r, q, v, w (dyn_body_get_state's 13 numbers) and the
 * loads f_ext, t_ext; the warm-start cache (warmstart.c: the kept
 * contacts, their impulses and tangents, the joints' row counts and
 * impulses); the time and the step count.  Everything else a step reads is
 * the model, the settings or scratch that the step rewrites before reading
 * (the saved state of prepare, the rows, the problem), so restoring these
 * and stepping repeats the steps bit for bit.  The broad phase's kept sort
 * order is not state: its pairs do not depend on it (broadphase.c).
 *
 * Layout (bytes, native: a save is read back by the same build, as the
 * world's memory is):
 *   head   magic, version, nb, nj, step, t, nc, rpc, fric, njx, j_valid, tan,
 *          nred
 *   bodies nb x 19 doubles: the 13 numbers, f_ext, t_ext
 *   tree   reduced coordinates only: the tree's q (nq) and u (ndof), the
 *          state a reduced world steps from (its bodies are exported from
 *          it: world_reduced.c); nred = nq + ndof, 0 in maximal coordinates
 *   warm   nc dyn_contact, nc rpc impulses, 6 nc tangents (box and cone
 *          friction only), njx joint impulses, nj row counts (int);
 * every part on an 8-byte boundary of the buffer but the last.
 */
#include "world_data.h"
#include "world_reduced.h"

#include <string.h>

#define STATE_MAGIC   0x4c43504c53544154ULL /* "LCPLSTAT" */
#define STATE_VERSION 3                     /* 3: dyn_contact holds mu_torsion and mu_rolling */
#define BODY_DOUBLES  (DYN_BODY_STATE + 6)

typedef struct state_head {
  uint64_t magic;
  int64_t version, nb, nj, step;
  double t;
  int64_t nc, rpc, fric, njx, j_valid, tan;
  int64_t nred; /* reduced coordinates: the tree's nq + ndof (0: maximal) */
} state_head;

/* The sizes of the parts of a save with head h. */
static size_t state_bytes(const state_head *h) {
  size_t n = sizeof *h + ((size_t)h->nb * BODY_DOUBLES + (size_t)h->nred) * sizeof(double);
  n += (size_t)h->nc * (sizeof(dyn_contact) + (size_t)h->rpc * sizeof(double));
  n += h->tan ? 6 * (size_t)h->nc * sizeof(double) : 0;
  return n + (size_t)h->nj * sizeof(int) + (size_t)h->njx * sizeof(double);
}

static state_head head_of(const dyn_world *w, dyn_warm_saved *k) {
  *k = dyn_warm_get(&w->warm, w->nj);
  state_head h = { STATE_MAGIC,
                   STATE_VERSION,
                   w->nb,
                   w->nj,
                   w->step,
                   w->t,
                   k->nc,
                   k->rpc,
                   k->fric,
                   k->njx,
                   k->j_valid,
                   k->tan != NULL,
                   dyn_reduced_state_count(w) };
  return h;
}

size_t dyn_world_state_size(const dyn_world *w) {
  if (!w) return 0;
  dyn_warm_saved k;
  state_head h = head_of(w, &k);
  return state_bytes(&h);
}

/* Copy n bytes to *at and move past them (n = 0: nothing, src may be NULL). */
static void put(unsigned char **at, const void *src, size_t n) {
  if (n) memcpy(*at, src, n);
  *at += n;
}

static void get(const unsigned char **at, void *dst, size_t n) {
  if (n) memcpy(dst, *at, n);
  *at += n;
}

dyn_err dyn_world_save_state(const dyn_world *w, void *buf, size_t size) {
  if (!w || !buf) return DYN_ERR_INPUT;
  dyn_warm_saved k;
  state_head h = head_of(w, &k);
  if (size < state_bytes(&h)) return DYN_ERR_INPUT;
  unsigned char *at = buf;
  put(&at, &h, sizeof h);
  for (int i = 0; i < w->nb; i++) {
    const dyn_body_state *b = &w->bodies.s[i];
    double s[BODY_DOUBLES];
    dyn_body_get_state(b, s);
    double *l = s + DYN_BODY_STATE;
    l[0] = b->f_ext.x, l[1] = b->f_ext.y, l[2] = b->f_ext.z;
    l[3] = b->t_ext.x, l[4] = b->t_ext.y, l[5] = b->t_ext.z;
    put(&at, s, sizeof s);
  }
  if (h.nred) {
    dyn_reduced_state_get(w, (double *)(void *)at);
    at += (size_t)h.nred * sizeof(double);
  }
  put(&at, k.con, (size_t)k.nc * sizeof *k.con);
  put(&at, k.x, (size_t)k.nc * (size_t)k.rpc * sizeof *k.x);
  if (k.tan) put(&at, k.tan, 6 * (size_t)k.nc * sizeof *k.tan);
  put(&at, k.jx, (size_t)k.njx * sizeof *k.jx);
  put(&at, k.jrows, (size_t)k.nj * sizeof *k.jrows);
  return DYN_OK;
}

dyn_err dyn_world_restore_state(dyn_world *w, const void *buf, size_t size) {
  if (!w) return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  state_head h;
  if (!buf || size < sizeof h) return dyn_world_fail(w, DYN_ERR_INPUT, "restore state: no state");
  memcpy(&h, buf, sizeof h);
  if (h.magic != STATE_MAGIC || h.version != STATE_VERSION)
    return dyn_world_fail(w, DYN_ERR_INPUT, "restore state: not a saved world state");
  if (h.nred != dyn_reduced_state_count(w))
    return dyn_world_fail(w, DYN_ERR_INPUT,
                          "restore state: saved with %lld reduced coordinates (q and u), the "
                          "world has %d (0: maximal coordinates)",
                          (long long)h.nred, dyn_reduced_state_count(w));
  if (h.nb != w->nb || h.nj != w->nj)
    return dyn_world_fail(w, DYN_ERR_INPUT,
                          "restore state: saved with %lld bodies and %lld joints, the world "
                          "has %d and %d",
                          (long long)h.nb, (long long)h.nj, w->nb, w->nj);
  if (h.nc < 0 || h.nc > INT32_MAX || h.rpc < (h.nc > 0) || h.rpc > 1026 || h.njx < 0 ||
      h.njx > INT32_MAX || size < state_bytes(&h))
    return dyn_world_fail(w, DYN_ERR_INPUT, "restore state: %zu bytes, a broken or short state",
                          size);
  const unsigned char *at = (const unsigned char *)buf + sizeof h;
  for (int i = 0; i < w->nb; i++) {
    dyn_body_state *b = &w->bodies.s[i];
    double s[BODY_DOUBLES];
    get(&at, s, sizeof s);
    dyn_body_set_state(b, s);
    const double *l = s + DYN_BODY_STATE;
    b->f_ext = dyn_v3_make(l[0], l[1], l[2]);
    b->t_ext = dyn_v3_make(l[3], l[4], l[5]);
  }
  if (h.nred) {
    if (dyn_reduced_state_set(w, (const double *)(const void *)at) != DYN_OK) return DYN_ERR_INPUT;
    at += (size_t)h.nred * sizeof(double);
  }
  dyn_warm_saved k = { (const dyn_contact *)(const void *)at,
                       (int)h.nc,
                       NULL,
                       NULL,
                       (int)h.rpc,
                       (dyn_friction)h.fric,
                       NULL,
                       w->nj,
                       NULL,
                       (int)h.njx,
                       (int)h.j_valid };
  at += (size_t)h.nc * sizeof(dyn_contact);
  k.x = (const double *)(const void *)at;
  at += (size_t)h.nc * (size_t)h.rpc * sizeof(double);
  if (h.tan) {
    k.tan = (const double *)(const void *)at;
    at += 6 * (size_t)h.nc * sizeof(double);
  }
  k.jx = (const double *)(const void *)at;
  at += (size_t)h.njx * sizeof(double);
  k.jrows = (const int *)(const void *)at;
  w->step = (long)h.step;
  w->t = h.t;
  w->have_prob = 0;
  w->have_solve = 0;
  w->nc = 0;
  if (dyn_warm_set(&w->warm, &k, &w->grows) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "restore state: out of memory for the warm start");
  return DYN_OK;
}
