/*
 * redmax_model.c -- the reduced-coordinate tree (dyn_redmax.h, redmax.c) of
 * a scene model (dyn_model.h): the same bodies and joints a world steps in
 * maximal coordinates, read in joint coordinates (docs/redmax.md, "Maximal
 * or reduced coordinates").
 *
 * The model's dynamic bodies are the tree's bodies, in model order (static
 * bodies are the fixed world).  Each must hang from the world by exactly
 * one path of joints: the joints are oriented from the world outwards
 * (breadth first from the bodies jointed to the world or to a static
 * body), each joint then the one between a body and its parent.  A hinge
 * gives RedMax's hinge about the joint's axis oriented so that the angle is
 * the child's relative to its parent: dyn_joint_coord measures b relative
 * to a about axis1, so the axis is axis1 when the child is b and -axis1 when
 * it is a.  A ball gives RedMax's ball.  Anchors, masses, inertias and
 * poses are the model's.
 *
 * Refused (DYN_ERR_INPUT, a message naming the record): another joint
 * kind, a limit, a motor or soft rows (cfm > 0: RedMax's springs are its
 * own, [wang2019] eq. 14), a loop (a joint closing a path that exists:
 * dyn_redmax_new_from_model; a world's tree, dyn_rm_tree_of_model, cuts
 * it instead, loop_cuts), a dynamic body with no path to the world, a body
 * not starting at rest (the tree starts at q = 0, u = 0).  The joints' erp (Baumgarte) has no
 * meaning in joint coordinates and is ignored; shapes and materials too
 * (no contact in redmax.c).
 */
#include "dyn_redmax.h"
#include "model_internal.h"
#include "world_reduced.h"

#include <stdlib.h>
#include <string.h>

static dyn_err tree_fail(char *msg, size_t cap, dyn_rec_kind kind, int i, const char *name,
                         const char *what) {
  char label[DYN_NAME_MAX + 32];
  dyn_rec_label(label, sizeof label, kind, i, name);
  dyn_msgf(msg, cap, "reduced coordinates: %s: %s", label, what);
  return DYN_ERR_INPUT;
}

/* The joints a reduced tree can take (the header). */
static dyn_err check_joint(const dyn_joint_def *d, int j, char *msg, size_t cap) {
  if (d->kind != DYN_JOINT_HINGE && d->kind != DYN_JOINT_BALL)
    return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name,
                     "only hinges and balls have a reduced form");
  if (d->limit.enabled || d->motor.enabled || d->spring.enabled)
    return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name,
                     "a limit, motor or spring has no reduced form here");
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++)
    if (d->cfm[r] != 0.0)
      return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name,
                       "soft rows (cfm > 0) have no reduced form");
  return DYN_OK;
}

/* The breadth-first walk of orient from the queued bodies queue[head ..
 * tail - 1]: each body reached gets its parent and joint; a joint that
 * reaches a body twice closes a loop. */
static dyn_err walk(const dyn_model *m, const int *di, const int *start, const int *adj,
                    int *parent, int *jof, int *queue, int head, int tail, char *msg, size_t cap) {
  while (head < tail) {
    int u = queue[head++];
    for (int e = start[u]; e < start[u + 1]; e++) {
      int j = adj[e];
      const dyn_joint_def *d = &m->joints.p[j];
      int x = di[d->a], y = d->b >= 0 ? di[d->b] : -1, v = x == u ? y : x;
      if (j == jof[u] || v < 0) continue;
      if (parent[v] != -2) {
        if (jof[v] == j) continue; /* seen from v's side already */
        return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name, "closes a loop");
      }
      parent[v] = u, jof[v] = j, queue[tail++] = v;
    }
  }
  return DYN_OK;
}

/* The tree of the nd dynamic bodies (dyn[k]: the model index of tree body
 * k, di[model index]: k or -1 for a static body): parent[k] and the joint
 * jof[k] to it, breadth first from the world; work holds 2 nd + 2 nj + 1
 * ints. */
static dyn_err orient(const dyn_model *m, const int *di, int nd, int free_roots, const int *cut,
                      int *parent, int *jof, int *work, char *msg, size_t cap) {
  int nj = m->nj, *start = work, *adj = work + nd + 1, *queue = adj + 2 * nj;
  /* adjacency of the tree bodies through the joints (world ends left out) */
  memset(start, 0, (size_t)(nd + 1) * sizeof *start);
  for (int j = 0; j < nj; j++) {
    if (cut && cut[j]) continue;
    const dyn_joint_def *d = &m->joints.p[j];
    int x = di[d->a], y = d->b >= 0 ? di[d->b] : -1;
    if (x >= 0) start[x + 1]++;
    if (y >= 0) start[y + 1]++;
  }
  for (int k = 0; k < nd; k++) start[k + 1] += start[k];
  int *fill = queue; /* borrowed as the fill cursors before the walk */
  for (int k = 0; k < nd; k++) fill[k] = start[k];
  for (int j = 0; j < nj; j++) {
    if (cut && cut[j]) continue;
    const dyn_joint_def *d = &m->joints.p[j];
    int x = di[d->a], y = d->b >= 0 ? di[d->b] : -1;
    if (x >= 0) adj[fill[x]++] = j;
    if (y >= 0) adj[fill[y]++] = j;
  }
  for (int k = 0; k < nd; k++) parent[k] = -2, jof[k] = -1; /* -2: not reached */
  int head = 0, tail = 0;
  for (int j = 0; j < nj; j++) { /* the roots: jointed to the world or a static body */
    if (cut && cut[j]) continue;
    const dyn_joint_def *d = &m->joints.p[j];
    int x = di[d->a], y = d->b >= 0 ? di[d->b] : -1, k = x >= 0 ? x : y;
    if (x >= 0 && y >= 0) continue;
    if (parent[k] != -2) return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name, "closes a loop");
    parent[k] = -1, jof[k] = j, queue[tail++] = k;
  }
  dyn_err e = walk(m, di, start, adj, parent, jof, queue, head, tail, msg, cap);
  if (e != DYN_OK || !free_roots) return e;
  /* the bodies no joint path ties to the world: each connected part hangs
   * from a free joint at its first body in model order (jof -1) */
  for (int k = 0; k < nd && e == DYN_OK; k++)
    if (parent[k] == -2) {
      parent[k] = -1, jof[k] = -1, queue[0] = k;
      e = walk(m, di, start, adj, parent, jof, queue, 0, 1, msg, cap);
    }
  return e;
}

/* The body defs of the tree (the header's mapping). */
static dyn_err tree_defs(const dyn_model *m, const int *dyn, int nd, const int *parent,
                         const int *jof, dyn_rm_body_def *defs, char *msg, size_t cap) {
  for (int k = 0; k < nd; k++) {
    const dyn_body_def *b = &m->bodies.p[dyn[k]];
    if (parent[k] == -2)
      return tree_fail(msg, cap, DYN_REC_BODY, dyn[k], b->name, "no joint path to the world");
    dyn_v3 z = dyn_v3_make(0.0, 0.0, 0.0);
    if (memcmp(&b->v, &z, sizeof z) != 0 || memcmp(&b->w, &z, sizeof z) != 0)
      return tree_fail(msg, cap, DYN_REC_BODY, dyn[k], b->name,
                       "the tree starts at rest (v = w = 0)");
    const dyn_joint_def *d = &m->joints.p[jof[k]];
    dyn_rm_body_def *t = &defs[k];
    *t = dyn_rm_body_def_default();
    t->parent = parent[k];
    t->joint = d->kind == DYN_JOINT_BALL ? DYN_RM_BALL : DYN_RM_HINGE;
    t->mass = b->mass;
    t->I_b = b->I_b;
    t->r = b->r;
    t->q = b->q;
    t->anchor = d->anchor;
    /* the child's angle relative to its parent about +axis */
    t->axis = d->a == dyn[k] ? dyn_v3_scale(d->axis1, -1.0) : d->axis1;
  }
  return DYN_OK;
}

/* The scratch of a tree of nb bodies and nj joints: di (nb + 1), the ints
 * (5 nb + 2 nj + 2: dyn, parent, jof, then orient's work) and the defs;
 * 0, or -1 (all freed, NULL) when memory is short. */
static int tree_alloc(int nb, int nj, int **di, int **ints, dyn_rm_body_def **defs) {
  *di = malloc((size_t)(nb + 1) * sizeof **di);
  *ints = malloc((size_t)(5 * nb + 2 * nj + 2) * sizeof **ints);
  *defs = malloc((size_t)(nb + 1) * sizeof **defs);
  if (*di && *ints && *defs) return 0;
  free(*di), free(*ints), free(*defs);
  *di = *ints = NULL;
  *defs = NULL;
  return -1;
}

dyn_err dyn_redmax_new_from_model(const dyn_model *m, dyn_redmax **out, char *msg, size_t cap) {
  if (!out) return DYN_ERR_INPUT;
  *out = NULL;
  dyn_err e = dyn_model_validate(m, msg, cap);
  if (e != DYN_OK) return e;
  for (int j = 0; j < m->nj; j++)
    if ((e = check_joint(&m->joints.p[j], j, msg, cap)) != DYN_OK) return e;
  int nb = m->nb, nd = 0, *di, *ints;
  dyn_rm_body_def *defs;
  if (tree_alloc(nb, m->nj, &di, &ints, &defs) != 0) {
    dyn_msgf(msg, cap, "reduced coordinates: out of memory for %d bodies", nb);
    return DYN_ERR_NOMEM;
  }
  int *dyn = ints, *parent = ints + nb, *jof = ints + 2 * nb, *work = ints + 3 * nb;
  for (int i = 0; i < nb; i++) {
    di[i] = m->bodies.p[i].is_static ? -1 : nd;
    if (di[i] >= 0) dyn[nd++] = i;
  }
  if (nd == 0) {
    dyn_msgf(msg, cap, "reduced coordinates: the model has no dynamic body");
    e = DYN_ERR_INPUT;
  }
  if (e == DYN_OK) e = orient(m, di, nd, 0, NULL, parent, jof, work, msg, cap);
  if (e == DYN_OK) e = tree_defs(m, dyn, nd, parent, jof, defs, msg, cap);
  if (e == DYN_OK) e = dyn_redmax_new(defs, nd, out, msg, cap);
  free(di);
  free(ints);
  free(defs);
  return e;
}

/* ---- the tree of a world in reduced coordinates (world_reduced.h) ------------------ */

/* Union-find's root of node x (parents in uf), paths halved. */
static int uf_find(int *uf, int x) {
  while (uf[x] != x) x = uf[x] = uf[uf[x]];
  return x;
}

/* The joints that close loops (world_reduced.h, dyn_rm_tree.cut): in model
 * order, a joint whose two bodies a path of earlier joints already ties
 * (the static bodies and the world one node, nd) is cut; so the joints a
 * file lists last (MJCF's equalities) are the cuts.  uf: nd + 1 ints. */
static int loop_cuts(const dyn_model *m, const int *di, int nd, int *cut, int *uf) {
  int n = 0;
  for (int k = 0; k <= nd; k++) uf[k] = k;
  for (int j = 0; j < m->nj; j++) {
    const dyn_joint_def *d = &m->joints.p[j];
    int x = di[d->a] >= 0 ? di[d->a] : nd, y = d->b >= 0 && di[d->b] >= 0 ? di[d->b] : nd;
    x = uf_find(uf, x), y = uf_find(uf, y);
    cut[j] = x == y;
    n += cut[j];
    if (x != y) uf[x] = y;
  }
  return n;
}

/* A cut joint is the world's joint rows (maximal's law) mapped to joint
 * space: joint-space inertia (armature) has no place on it. */
static dyn_err check_cut_joint(const dyn_joint_def *d, int j, char *msg, size_t cap) {
  if (d->armature > 0.0)
    return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name,
                     "closes a loop and has armature (joint-space inertia): a loop's joint is "
                     "held by rows, which have none; use maximal coordinates");
  return DYN_OK;
}

/* The joints a world's tree takes (world_reduced.h). */
static dyn_err check_world_joint(const dyn_joint_def *d, int j, char *msg, size_t cap) {
  static const char *const tail = "; use maximal coordinates";
  char what[160];
  if (d->kind != DYN_JOINT_HINGE && d->kind != DYN_JOINT_BALL && d->kind != DYN_JOINT_SLIDER &&
      d->kind != DYN_JOINT_FIXED) {
    snprintf(what, sizeof what, "only hinges, sliders, balls and fixed joints are trees%s", tail);
    return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name, what);
  }
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++)
    if (d->cfm[r] != 0.0) {
      snprintf(what, sizeof what, "soft rows (cfm > 0) have no reduced form%s", tail);
      return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name, what);
    }
  if (d->spring.enabled && d->spring.ref != 0.0) {
    snprintf(what, sizeof what, "a spring at rest away from the initial pose (ref %g)%s",
             d->spring.ref, tail);
    return tree_fail(msg, cap, DYN_REC_JOINT, j, d->name, what);
  }
  return DYN_OK;
}

/* Tree body k's def from its model body and joint (jof -1: a free root's
 * ball, at the centre of mass). */
static dyn_err world_def(const dyn_model *m, int body, int parent, int jof, int *sign,
                         dyn_rm_body_def *t, char *msg, size_t cap) {
  const dyn_body_def *b = &m->bodies.p[body];
  dyn_v3 z = dyn_v3_make(0.0, 0.0, 0.0);
  if (jof >= 0 && (memcmp(&b->v, &z, sizeof z) != 0 || memcmp(&b->w, &z, sizeof z) != 0))
    return tree_fail(msg, cap, DYN_REC_BODY, body, b->name,
                     "a jointed body starts at rest (v = w = 0) in reduced coordinates");
  *t = dyn_rm_body_def_default();
  t->parent = parent;
  t->mass = b->mass;
  t->I_b = b->mass > 0.0 ? b->I_b : dyn_m3_zero();
  t->r = b->r;
  t->q = b->q;
  t->anchor = b->r;
  *sign = 1;
  if (jof < 0) {
    t->joint = DYN_RM_BALL;
    return DYN_OK;
  }
  const dyn_joint_def *d = &m->joints.p[jof];
  t->joint = d->kind == DYN_JOINT_BALL     ? DYN_RM_BALL
             : d->kind == DYN_JOINT_SLIDER ? DYN_RM_SLIDE
             : d->kind == DYN_JOINT_FIXED  ? DYN_RM_FIXED
                                           : DYN_RM_HINGE;
  t->anchor = d->anchor;
  /* the child's coordinate relative to its parent about +axis */
  *sign = d->a == body ? -1 : 1;
  t->axis = dyn_v3_scale(d->axis1, (double)*sign);
  if (d->spring.enabled) {
    t->stiffness = d->spring.stiffness;
    t->damping = d->spring.damping;
  }
  t->armature = d->armature;
  return DYN_OK;
}

/* A free root at tree body k (model body `body`): frames f1 (slide x), f2
 * (slide y), the body's last-slide frame f3 (slide z) and the ball on k. */
static void free_root(const dyn_model *m, int body, int k, int f, dyn_rm_body_def *defs) {
  const dyn_body_def *b = &m->bodies.p[body];
  dyn_v3 ax[3] = { dyn_v3_make(1, 0, 0), dyn_v3_make(0, 1, 0), dyn_v3_make(0, 0, 1) };
  for (int s = 0; s < 3; s++) {
    dyn_rm_body_def *t = &defs[f + s];
    *t = dyn_rm_body_def_default();
    t->parent = s == 0 ? -1 : f + s - 1;
    t->joint = DYN_RM_SLIDE;
    t->mass = 0.0;
    t->I_b = dyn_m3_zero();
    t->r = b->r;
    t->anchor = b->r;
    t->axis = ax[s];
  }
  defs[k].parent = f + 2;
}

void dyn_rm_tree_free(dyn_rm_tree *t) {
  if (!t) return;
  free(t->defs), free(t->tree_of), free(t->jbody), free(t->jsign), free(t->root), free(t->cut);
  memset(t, 0, sizeof *t);
}

/* The tree's arrays for nb model bodies, nj joints and at most nt tree bodies. */
static int world_tree_alloc(dyn_rm_tree *t, int nb, int nj, int nt) {
  t->defs = calloc((size_t)nt + 1, sizeof *t->defs);
  t->tree_of = calloc((size_t)nb + 1, sizeof *t->tree_of);
  t->jbody = calloc((size_t)nj + 1, sizeof *t->jbody);
  t->jsign = calloc((size_t)nj + 1, sizeof *t->jsign);
  t->root = calloc((size_t)nt + 1, sizeof *t->root);
  t->cut = calloc((size_t)nj + 1, sizeof *t->cut);
  return t->defs && t->tree_of && t->jbody && t->jsign && t->root && t->cut ? 0 : -1;
}

dyn_err dyn_rm_tree_of_model(const dyn_model *m, dyn_rm_tree *t, char *msg, size_t cap) {
  memset(t, 0, sizeof *t);
  dyn_err e = dyn_model_validate_reduced(m, msg, cap);
  if (e != DYN_OK) return e;
  int nb = m->nb, nd = 0, *di, *ints;
  dyn_rm_body_def *scratch;
  if (tree_alloc(nb, m->nj, &di, &ints, &scratch) != 0 ||
      world_tree_alloc(t, nb, m->nj, 4 * nb + 1) != 0) { /* nd + 3 per free root */
    if (di) free(di), free(ints), free(scratch);
    dyn_rm_tree_free(t);
    dyn_msgf(msg, cap, "reduced coordinates: out of memory for %d bodies", nb);
    return DYN_ERR_NOMEM;
  }
  free(scratch);
  int *dyn = ints, *parent = ints + nb, *jof = ints + 2 * nb, *work = ints + 3 * nb;
  for (int i = 0; i < nb; i++) {
    di[i] = m->bodies.p[i].is_static ? -1 : nd;
    t->tree_of[i] = di[i];
    if (di[i] >= 0) dyn[nd++] = i;
  }
  for (int j = 0; j < m->nj; j++) t->jbody[j] = -1, t->jsign[j] = 1;
  if (nd == 0) {
    dyn_msgf(msg, cap, "reduced coordinates: the model has no dynamic body");
    e = DYN_ERR_INPUT;
  }
  if (e == DYN_OK) t->ncut = loop_cuts(m, di, nd, t->cut, work);
  for (int j = 0; j < m->nj && e == DYN_OK; j++)
    e = t->cut[j] ? check_cut_joint(&m->joints.p[j], j, msg, cap)
                  : check_world_joint(&m->joints.p[j], j, msg, cap);
  if (e == DYN_OK) e = orient(m, di, nd, 1, t->cut, parent, jof, work, msg, cap);
  int nt = nd;
  for (int k = 0; k < nd && e == DYN_OK; k++) {
    int sign = 1;
    e = world_def(m, dyn[k], parent[k], jof[k], &sign, &t->defs[k], msg, cap);
    if (e != DYN_OK) break;
    if (jof[k] >= 0) {
      t->jbody[jof[k]] = k;
      /* the axis is flipped where the model's joint names the child a
       * (world_def), so its coordinate (b relative to a about axis1) is
       * the tree's (child relative to parent about -axis1): the same sign */
      t->jsign[jof[k]] = 1;
      (void)sign;
    } else {
      free_root(m, dyn[k], k, nt, t->defs);
      t->root[k] = 1;
      nt += 3;
    }
  }
  t->nt = nt;
  free(di);
  free(ints);
  if (e != DYN_OK) dyn_rm_tree_free(t);
  return e;
}
