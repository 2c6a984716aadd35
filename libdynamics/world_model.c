/*
 * world_model.c -- a world built on a scene model (dyn_world_new_from_model,
 * dyn_world.h; the model: dyn_model.h, docs/scenes.md), and the collision
 * records of the model's shapes that every step reads.
 *
 * The model is shared and only read (dyn_model_share: MuJoCo's mjModel
 * beside its mjData); the world compiles from it its own data:
 *   bodies   dyn_body_init (dyn_body_init_static) of each body def, its v
 *            and w, q normalised: the same bits as a body built by hand
 *            with dyn_body_init;
 *   joints   dyn_joint_init on those bodies with the def's anchor and axes,
 *            then its softness, limit and motor (dyn_joint_compile);
 *   pairs    the body pairs that never touch: tied by a joint, excluded by
 *            the model, or (reduced coordinates) separated by a chain of
 *            massless frames;
 *   shapes   the collision records (below);
 *   settings the world settings given as dyn_world_settings_for_model
 *            makes them: the model's gravity unless the settings give one,
 *            its restitution threshold at the run's dt and gravity.  A
 *            gravity given other than the model's makes the world run on a
 *            copy of the model that says it (run_model): the world's model
 *            and its settings never disagree; the caller's model keeps its
 *            own.
 *
 * Collision records: the collision pass (collision_pass.c) iterates shape
 * records (dyn_shape_rt, dyn_internal.h): each shape with its body index,
 * its geometry (the model's, borrowed) and its pose in the body's frame,
 * placed at its body's pose where a phase reads it (dyn_shape_place):
 *     r_s = r_b + R(q_b) pos,   q_s = q_b rot
 * (a shape at the identity pose takes the body's r and q as they are).
 * Nothing is copied a step.  When every body has at most one shape, at the
 * identity pose in its frame (every built-in scene), record i is body i
 * with its own shape (direct).  Otherwise there is one record per shape,
 * grouped by body.
 * Each record also holds its model shape's index, its filter
 * and its material's mu and restitution (for DYN_MATERIAL_DEFAULT the
 * model's first material, or in a model without materials the settings'
 * contact.mu and contact.restitution, resolved again whenever the settings
 * change).
 */
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const dyn_model *dyn_world_model(const dyn_world *w) { return w ? w->model : NULL; }


/* ---- materials and the collision input ------------------------------------------------ */

/* Record r's mu and restitution: its shape's material's. */
static void resolve_record(const dyn_world *w, dyn_shape_rt *r) {
  const dyn_model *m = w->model;
  int mat = r->shape >= 0 ? m->shapes.p[r->shape].material : DYN_MATERIAL_DEFAULT;
  if (mat == DYN_MATERIAL_DEFAULT) mat = dyn_model_default_material(m);
  r->mu = mat >= 0 ? m->mats.p[mat].mu : w->set.contact.mu;
  r->e = mat >= 0 ? m->mats.p[mat].restitution : w->set.contact.restitution;
  r->mt = mat >= 0 ? m->mats.p[mat].mu_torsion : 0.0;
  r->mr = mat >= 0 ? m->mats.p[mat].mu_rolling : 0.0;
  r->cd = dyn_condim_of(mat >= 0 ? m->mats.p[mat].condim : 0);
}

void dyn_world_resolve_materials(dyn_world *w) {
  for (int k = 0; k < w->nsr; k++) resolve_record(w, &w->srt.p[k]);
}

void dyn_world_material_range(const dyn_world *w, double range[4]) {
  range[0] = range[1] = range[2] = range[3] = NAN;
  const dyn_model *m = w->model;
  for (int k = 0; k < w->nsr; k++) {
    const dyn_shape_rt *r = &w->srt.p[k];
    if (r->shape < 0 || m->shapes.p[r->shape].geom.kind == DYN_SHAPE_NONE) continue;
    range[0] = fmin(range[0], r->mu); /* fmin(NaN, x) is x */
    range[1] = fmax(range[1], r->mu);
    range[2] = fmin(range[2], r->e);
    range[3] = fmax(range[3], r->e);
  }
}

dyn_collide_in dyn_world_collide_in(const dyn_world *w, int top_down) {
  dyn_collide_in in = { w->set.margin, w->set.gravity, top_down,    w->jpairs.p,
                        w->njp,        w->srt.p,       w->filtered, w->set.opt.threads,
                        w->margins,    w->margin_max };
  return in;
}

/* ---- compiling the model -------------------------------------------------------------- */

/* The collision record of model shape s at slot k: its body, its filter,
 * and when not direct its geometry and its pose in the body's frame (when
 * direct, body k holds the shape itself: compile_bodies). */
static void put_record(dyn_world *w, int k, int s) {
  const dyn_shape_def *d = &w->model->shapes.p[s];
  dyn_shape_rt *r = &w->srt.p[k];
  *r = (dyn_shape_rt){ d->body, s,    d->contype, d->conaffinity, 0.0,    0.0,       0.0,   0.0,
                       3,       NULL, 0,          d->pos,         d->rot, d->margin, d->gap };
  if (w->direct) return;
  r->geom = &d->geom;
  r->local = !dyn_shape_def_at_identity(d);
}

/* Room for n collision records (and the broad phase's workspace). */
static dyn_err reserve_records(dyn_world *w, size_t n) {
  int fail = dyn_buf_reserve(&w->srt, n, &w->grows) != 0;
  size_t most = n > (size_t)w->nb ? n : (size_t)w->nb;
  if (fail || dyn_collider_reserve(&w->col, (int)most, &w->grows) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "out of memory for %zu shapes", n);
  return DYN_OK;
}

/* The shape of each body when direct (first[b]: its one shape, or -1),
 * or with cnt[] the number of shapes per body. */
static void count_shapes(dyn_world *w, int *first, int *cnt) {
  const dyn_model *m = w->model;
  w->direct = 1;
  w->filtered = 0;
  w->margins = 0;
  w->margin_max = 0.0;
  for (int b = 0; b < m->nb; b++) first[b] = -1, cnt[b] = 0;
  for (int s = 0; s < m->ns; s++) {
    const dyn_shape_def *d = &m->shapes.p[s];
    if (cnt[d->body]++ == 0) first[d->body] = s;
    if (cnt[d->body] > 1 || !dyn_shape_def_at_identity(d)) w->direct = 0;
    if (d->contype != 1u || d->conaffinity != 1u) w->filtered = 1;
    if (d->margin != 0.0 || d->gap != 0.0) w->margins = 1;
    w->margin_max = fmax(w->margin_max, d->margin);
  }
}

/* The collision records: the bodies (direct), or the shapes grouped by
 * body (cnt[] counts them and becomes each body's next slot). */
static dyn_err compile_records(dyn_world *w, const int *first, int *cnt) {
  const dyn_model *m = w->model;
  w->nsr = w->direct ? m->nb : m->ns;
  dyn_err e = reserve_records(w, (size_t)w->nsr);
  if (e != DYN_OK) return e;
  if (w->direct) {
    for (int b = 0; b < m->nb; b++) {
      if (first[b] >= 0) {
        put_record(w, b, first[b]);
      } else {
        w->srt.p[b] = (dyn_shape_rt){
          b,   -1, 0u, 0u, 0.0, 0.0, 0.0, 0.0, 3, NULL, 0, { 0.0, 0.0, 0.0 }, dyn_quat_identity(),
          0.0, 0.0
        };
      }
    }
  } else {
    int at = 0;
    for (int b = 0; b < m->nb; b++) {
      int n = cnt[b];
      cnt[b] = at;
      at += n;
    }
    for (int s = 0; s < m->ns; s++) put_record(w, cnt[m->shapes.p[s].body]++, s);
  }
  dyn_world_resolve_materials(w);
  return DYN_OK;
}

/* The bodies of the model: their constants are the model's records
 * (dyn_model_body_consts, only read); their initial state the world's own,
 * compiled and checked by dyn_body_compile (a dynamic body of mass 0 only
 * in reduced coordinates: a massless frame). */
static dyn_err compile_bodies(dyn_world *w, char *msg, size_t cap) {
  const dyn_model *m = w->model;
  if (dyn_world_reserve_bodies(w, (size_t)m->nb) != DYN_OK) {
    dyn_msgf(msg, cap, "%s", w->msg);
    return DYN_ERR_NOMEM;
  }
  dyn_shape none;
  memset(&none, 0, sizeof none);
  w->bodies.c = dyn_model_body_consts(m);
  for (int b = 0; b < m->nb; b++) {
    char m2[200];
    dyn_body_const k; /* the model's are read: this is the check's */
    dyn_body_state *x = &w->bodies.s[b];
    const dyn_body_def *d = &m->bodies.p[b];
    if (w->red && !d->is_static && d->mass == 0.0) {
      /* a massless frame of the tree (world_reduced.h): posed by the tree */
      dyn_body_init_static(&k, x, none, d->r, dyn_quat_normalize(d->q));
      continue;
    }
    if (dyn_body_compile(&m->bodies.p[b], none, &k, x, m2, sizeof m2) != DYN_OK) {
      char label[DYN_NAME_MAX + 32];
      dyn_rec_label(label, sizeof label, DYN_REC_BODY, b, m->bodies.p[b].name);
      dyn_msgf(msg, cap, "%s: %s", label, m2);
      return DYN_ERR_INPUT;
    }
    x->q = dyn_quat_normalize(x->q);
  }
  w->nb = m->nb;
  return DYN_OK;
}

static int key_less(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Model joint j (def d) as the world's joint in slot k, with its rows. */
static dyn_err compile_joint(dyn_world *w, const dyn_joint_def *d, int j, int k, char *msg,
                             size_t cap) {
  if (!w->red && d->armature > 0.0) {
    dyn_msgf(msg, cap,
             "joint %d '%s': armature %g is joint-space inertia, which maximal coordinates do "
             "not have; use reduced coordinates",
             j, d->name, d->armature);
    return DYN_ERR_INPUT;
  }
  char m2[200];
  if (dyn_joint_compile(d, w->bodies, w->nb, &w->joints.p[k], m2, sizeof m2) != DYN_OK) {
    char label[DYN_NAME_MAX + 32];
    dyn_rec_label(label, sizeof label, DYN_REC_JOINT, j, d->name);
    dyn_msgf(msg, cap, "%s: %s", label, m2);
    return DYN_ERR_INPUT;
  }
  dyn_warm_add_joint(&w->warm, k);
  w->jcnt.p[k] = 0;
  return DYN_OK;
}

/* The joints of the model, and the sorted body pairs that never touch.  In
 * reduced coordinates the tree holds its joints (world_reduced.c): the
 * world's joints are the loops' cut joints only (dyn_rm_tree.cut). */
static dyn_err compile_joints(dyn_world *w, char *msg, size_t cap) {
  const dyn_model *m = w->model;
  const uint64_t *fkeys = NULL;
  int nf = w->red ? dyn_reduced_frame_pairs(w->red, &fkeys) : 0;
  size_t nkeys = (size_t)m->nex + (size_t)nf;
  for (int j = 0; j < m->nj; j++) nkeys += m->joints.p[j].b >= 0;
  int fail = dyn_buf_reserve(&w->joints, (size_t)m->nj, &w->grows);
  fail |= dyn_buf_reserve(&w->jcnt, (size_t)m->nj, &w->grows);
  fail |= dyn_warm_reserve_joints(&w->warm, m->nj, &w->grows) != DYN_OK;
  fail |= dyn_buf_reserve(&w->jpairs, nkeys, &w->grows);
  if (fail) {
    dyn_msgf(msg, cap, "out of memory for %d joints", m->nj);
    return DYN_ERR_NOMEM;
  }
  int nk = 0, nw = 0;
  const int *cut = w->red ? dyn_reduced_tree(w)->cut : NULL;
  for (int j = 0; j < m->nj; j++) {
    const dyn_joint_def *d = &m->joints.p[j];
    if (!cut || cut[j]) {
      dyn_err e = compile_joint(w, d, j, nw++, msg, cap);
      if (e != DYN_OK) return e;
    }
    if (d->b >= 0)
      w->jpairs.p[nk++] = dyn_pair_key(d->a < d->b ? d->a : d->b, d->a < d->b ? d->b : d->a);
  }
  w->nj = nw;
  for (int k = 0; k < m->nex; k++)
    w->jpairs.p[nk++] = dyn_pair_key(m->excl.p[2 * k], m->excl.p[2 * k + 1]);
  for (int k = 0; k < nf; k++) w->jpairs.p[nk++] = fkeys[k];
  if (nk > 1) qsort(w->jpairs.p, (size_t)nk, sizeof *w->jpairs.p, key_less);
  w->njp = 0;
  for (int k = 0; k < nk; k++) /* unique */
    if (w->njp == 0 || w->jpairs.p[w->njp - 1] != w->jpairs.p[k])
      w->jpairs.p[w->njp++] = w->jpairs.p[k];
  return DYN_OK;
}

/* ---- the settings a model also holds -------------------------------------------------- */

dyn_world_settings dyn_world_settings_for_model(const dyn_world_settings *s, const dyn_model *m,
                                                double timestep) {
  dyn_world_settings r = *s;
  if (!m) return r;
  if (!(r.given & DYN_GIVEN_DT) && timestep > 0.0 && isfinite(timestep)) r.dt = timestep;
  if (!(r.given & DYN_GIVEN_GRAVITY)) r.gravity = m->opt.gravity;
  r.contact.rest_threshold = dyn_model_rest_threshold_at(m, r.gravity, r.dt);
  return r;
}

void dyn_model_run_as(dyn_model *m, const dyn_world_settings *s) {
  if (m && s) m->opt.gravity = s->gravity;
}

/* n ints (at least one), or NULL. */
static int *ints_alloc(int n) { return malloc((size_t)(n > 0 ? n : 1) * sizeof(int)); }

/* Everything the world derives from its model (the header). */
static dyn_err compile(dyn_world *w, char *msg, size_t cap) {
  const dyn_model *m = w->model;
  int *first = ints_alloc(m->nb), *cnt = ints_alloc(m->nb);
  dyn_err e = first && cnt ? DYN_OK : DYN_ERR_NOMEM;
  if (e != DYN_OK) dyn_msgf(msg, cap, "out of memory for %d bodies", m->nb);
  if (e == DYN_OK) count_shapes(w, first, cnt);
  if (e == DYN_OK) e = compile_bodies(w, msg, cap);
  if (e == DYN_OK) e = compile_joints(w, msg, cap);
  if (e == DYN_OK && (e = compile_records(w, first, cnt)) != DYN_OK)
    dyn_msgf(msg, cap, "%s", w->msg);
  free(first);
  free(cnt);
  return e;
}

/* A fixed tendon's limit and spring are rows and forces in joint space,
 * which a world in maximal coordinates does not have: refused, the first
 * tendon named. */
static dyn_err maximal_tendons(const dyn_model *m, char *msg, size_t cap) {
  if (m->ntd == 0) return DYN_OK;
  dyn_msgf(msg, cap,
           "tendon 0 '%s': a fixed tendon's limit and spring act in joint space, which maximal "
           "coordinates do not have; use reduced coordinates",
           m->tends.p[0].name);
  return DYN_ERR_INPUT;
}

/* The first material of m with condim 4 or 6 and a coefficient the
 * rows would take (mu_torsion, or for 6 mu_rolling, > 0), or -1; *rolling
 * 1 if one of condim 6 has mu_rolling > 0. */
static int first_torsion_material(const dyn_model *m, int *rolling) {
  int mat = -1;
  *rolling = 0;
  for (int i = 0; i < m->nm; i++) {
    const dyn_material *d = &m->mats.p[i];
    int roll = d->condim == 6 && d->mu_rolling > 0.0;
    if ((d->condim == 4 || d->condim == 6) && (d->mu_torsion > 0.0 || roll) && mat < 0) mat = i;
    *rolling |= roll;
  }
  return mat;
}

dyn_err dyn_world_torsion_rule(const dyn_model *m, dyn_world_settings *set, char *msg, size_t cap) {
  int rolling, mat = first_torsion_material(m, &rolling);
  if (mat < 0) return DYN_OK;
  dyn_friction f = set->contact.friction;
  if (f == DYN_FRICTION_BOX) {
    set->contact.torsion = 1;
    set->contact.rolling = rolling;
  }
  int cd = m->mats.p[mat].condim;
  if (cd <= dyn_friction_max_condim(f)) return DYN_OK;
  dyn_msgf(msg, cap,
           "material %d%s%s%s: %s friction (condim %d) is simulated with box friction only "
           "(its rows of angular velocity; the %s has none)",
           mat, m->mats.p[mat].name[0] ? " '" : "", m->mats.p[mat].name,
           m->mats.p[mat].name[0] ? "'" : "", cd == 6 ? "torsional and rolling" : "torsional", cd,
           f == DYN_FRICTION_CONE ? "friction cone" : "friction pyramid");
  return DYN_ERR_INPUT;
}

/* The settings s as a world on model m runs with them (validated), and
 * its reduced state when they ask for reduced coordinates. */
static dyn_err world_settings(const dyn_model *m, const dyn_world_settings *s,
                              dyn_world_settings *set, struct dyn_reduced **red, char *msg,
                              size_t cap) {
  *set = s ? dyn_world_settings_for_model(s, m, 0.0) : dyn_world_settings_default();
  int reduced = set->coordinates == DYN_COORDINATES_REDUCED;
  /* the tree's refusal first, as it always came */
  dyn_err e = reduced ? dyn_reduced_new(m, set, red, msg, cap) : DYN_OK;
  if (e == DYN_OK) e = dyn_world_settings_validate(s ? set : NULL, msg, cap);
  if (e == DYN_OK) e = dyn_world_torsion_rule(m, set, msg, cap);
  if (e == DYN_OK && !reduced) e = maximal_tendons(m, msg, cap);
  if (e == DYN_OK)
    e = reduced ? dyn_model_validate_reduced(m, msg, cap) : dyn_model_validate(m, msg, cap);
  return e;
}

/* The model a world on m under settings s runs: m itself, or when s gives a
 * gravity other than m's, in *own a copy of m that says it (the one owner of
 * the run's gravity: docs/dynamics.md, "Settings a model also holds"). */
static dyn_err run_model(const dyn_model *m, const dyn_world_settings *s, dyn_model **own,
                         char *msg, size_t cap) {
  *own = NULL;
  if (!s || !(s->given & DYN_GIVEN_GRAVITY)) return DYN_OK;
  dyn_v3 g = m->opt.gravity;
  if (s->gravity.x == g.x && s->gravity.y == g.y && s->gravity.z == g.z) return DYN_OK;
  if (dyn_model_copy(m, own) != DYN_OK) {
    dyn_msgf(msg, cap, "out of memory for the model under the given gravity");
    return DYN_ERR_NOMEM;
  }
  dyn_model_run_as(*own, s);
  return DYN_OK;
}

dyn_err dyn_world_new_from_model(const dyn_model *m, const dyn_world_settings *s, dyn_world **out,
                                 char *msg, size_t cap) {
  if (!out) {
    dyn_msgf(msg, cap, "dyn_world_new_from_model: out is NULL");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  if (!m) {
    dyn_msgf(msg, cap, "dyn_world_new_from_model: model is NULL");
    return DYN_ERR_INPUT;
  }
  dyn_world_settings set;
  struct dyn_reduced *red = NULL;
  dyn_model *own = NULL;
  dyn_err e = run_model(m, s, &own, msg, cap);
  if (own) m = own;
  if (e == DYN_OK) e = world_settings(m, s, &set, &red, msg, cap);
  if (e == DYN_OK) e = dyn_world_alloc(&set, m, out, msg, cap);
  dyn_model_free(own); /* the world holds it now, or nobody does */
  if (e != DYN_OK) {
    dyn_reduced_free(red);
    return e;
  }
  dyn_world *w = *out;
  w->red = red;
  e = compile(w, msg, cap);
  if (e == DYN_OK) e = dyn_world_ctrl_alloc(w, msg, cap);
  if (e != DYN_OK) {
    dyn_world_free(w);
    *out = NULL;
  } else if (red) {
    dyn_reduced_export_bodies(w);
  }
  return e;
}
