/*
 * model.c -- dyn_model (dyn_model.h): the scene model's construction, deep
 * copy, the add and set functions of its records, its options and
 * exclusions, and the accessors.  docs/scenes.md.
 *
 * Storage: one growable array (dyn_buf, x 1.5) per kind of record, a name
 * index per kind (model_names.c), the excluded pairs as a sorted array of
 * (a, b), a < b.  A hull's vertices live in a block of their own, which
 * its shape record points at and the model frees; copying a model copies
 * them.  An add is all or nothing: the record is checked (model_check.c),
 * room is made, the record stored and its name indexed, and only then
 * counted; a failure at any point leaves the model as it was.
 *
 * Memory cap: m->bytes counts the records and hull vertices; an add that
 * would take it past DYN_MODEL_MAX_BYTES is refused, with sizes counted in
 * size_t against the cap before anything is multiplied (no overflow).
 */
#include "dyn_tendon.h"
#include "model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- defaults ---------------------------------------------------------------------- */

dyn_material dyn_material_default(void) {
  dyn_material d;
  memset(&d, 0, sizeof d);
  d.mu = 0.5;
  d.restitution = 0.0;
  return d;
}

dyn_body_def dyn_body_def_default(void) {
  dyn_body_def d;
  memset(&d, 0, sizeof d);
  d.q = dyn_quat_identity();
  return d;
}

dyn_shape_def dyn_shape_def_default(void) {
  dyn_shape_def d;
  memset(&d, 0, sizeof d);
  d.geom.kind = DYN_SHAPE_NONE;
  d.rot = dyn_quat_identity();
  d.material = DYN_MATERIAL_DEFAULT;
  d.contype = 1u;
  d.conaffinity = 1u;
  return d;
}

dyn_joint_def dyn_joint_def_default(void) {
  dyn_joint_def d;
  memset(&d, 0, sizeof d);
  d.kind = DYN_JOINT_HINGE;
  d.a = 0;
  d.b = -1;
  d.axis1 = dyn_v3_make(0.0, 0.0, 1.0);
  d.axis2 = dyn_v3_make(0.0, 1.0, 0.0);
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++) d.erp[r] = 0.2; /* dyn_joint_init's */
  d.limit.lo = -INFINITY;
  d.limit.hi = INFINITY;
  d.limit.erp = 0.2;
  return d;
}

dyn_tendon_def dyn_tendon_def_default(void) {
  dyn_tendon_def d;
  memset(&d, 0, sizeof d);
  d.limit.lo = -INFINITY;
  d.limit.hi = INFINITY;
  d.limit.erp = 0.2;
  return d;
}

dyn_model_options dyn_model_options_default(void) {
  dyn_model_options o;
  memset(&o, 0, sizeof o);
  o.gravity = dyn_v3_make(0.0, 0.0, -9.81);
  o.steps = 600; /* the peers' default run */
  o.duration = 0.0;
  return o;
}

dyn_material dyn_material_combine(dyn_material a, dyn_material b) {
  dyn_material c = dyn_material_default();
  c.mu = dyn_material_max(a.mu, b.mu);
  c.restitution = dyn_material_max(a.restitution, b.restitution);
  c.mu_torsion = dyn_material_max(a.mu_torsion, b.mu_torsion);
  c.mu_rolling = dyn_material_max(a.mu_rolling, b.mu_rolling);
  int ca = dyn_condim_of(a.condim), cb = dyn_condim_of(b.condim);
  c.condim = a.condim == b.condim ? a.condim : (ca > cb ? ca : cb);
  return c;
}

void dyn_material_contact(dyn_material m, double *mu, double *mu_torsion, double *mu_rolling) {
  dyn_friction_coef f = { m.mu, m.mu_torsion, m.mu_rolling, dyn_condim_of(m.condim) };
  dyn_friction_coef c = dyn_pair_friction(f, f);
  if (mu) *mu = c.mu;
  if (mu_torsion) *mu_torsion = c.mt;
  if (mu_rolling) *mu_rolling = c.mr;
}

/* ---- lifecycle ---------------------------------------------------------------------- */

/* An empty model (no options set), or NULL. */
static dyn_model *model_alloc(void) { return calloc(1, sizeof(dyn_model)); }

dyn_err dyn_model_new(dyn_model **out) {
  if (!out) return DYN_ERR_INPUT;
  *out = model_alloc();
  if (!*out) return DYN_ERR_NOMEM;
  (*out)->opt = dyn_model_options_default();
  return DYN_OK;
}

/* The hull blocks of shapes [0, n). */
static void free_verts(dyn_shape_def *s, int n) {
  for (int i = 0; i < n; i++)
    if (s[i].geom.kind == DYN_SHAPE_HULL) free((void *)s[i].geom.verts);
}

const dyn_model *dyn_model_share(const dyn_model *m) {
  /* the holders' count is no part of what the model is: a world that
   * shares it writes only this count */
  if (m) __atomic_fetch_add(&((dyn_model *)m)->shares, 1, __ATOMIC_RELAXED);
  return m;
}

void dyn_model_free(dyn_model *m) {
  if (!m) return;
  if (__atomic_fetch_sub(&m->shares, 1, __ATOMIC_ACQ_REL) > 0) return; /* another holder */
  free_verts(m->shapes.p, m->ns);
  dyn_buf_free(&m->bodies);
  dyn_buf_free(&m->consts);
  dyn_buf_free(&m->nshape);
  dyn_buf_free(&m->shapes);
  dyn_buf_free(&m->mats);
  dyn_buf_free(&m->joints);
  dyn_buf_free(&m->acts);
  dyn_buf_free(&m->tends);
  dyn_buf_free(&m->excl);
  for (int k = 0; k < DYN_REC_KINDS; k++) dyn_names_free(&m->names[k]);
  free(m);
}

dyn_v3 *dyn_verts_alloc(const dyn_v3 *v, int n) {
  dyn_v3 *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
  if (p && n > 0) memcpy(p, v, (size_t)n * sizeof *p);
  return p;
}

/* dst's array of n records of elem bytes from src (room for n, at least 1). */
#define COPY_ARRAY(dst, src, n, grows)                                                             \
  (dyn_buf_reserve(&(dst), (size_t)(n) > 0 ? (size_t)(n) : 1, (grows)) != 0                        \
       ? -1                                                                                        \
       : ((n) > 0 ? (memcpy((dst).p, (src).p, (size_t)(n) * sizeof *(src).p), 0) : 0))

dyn_err dyn_model_copy(const dyn_model *m, dyn_model **out) {
  if (!out) return DYN_ERR_INPUT;
  *out = NULL;
  if (!m) return DYN_ERR_INPUT;
  dyn_model *c = model_alloc();
  if (!c) return DYN_ERR_NOMEM;
  int fail = COPY_ARRAY(c->bodies, m->bodies, m->nb, &c->grows);
  fail |= COPY_ARRAY(c->consts, m->consts, m->nb, &c->grows);
  fail |= COPY_ARRAY(c->nshape, m->nshape, m->nb, &c->grows);
  fail |= COPY_ARRAY(c->shapes, m->shapes, m->ns, &c->grows);
  fail |= COPY_ARRAY(c->mats, m->mats, m->nm, &c->grows);
  fail |= COPY_ARRAY(c->joints, m->joints, m->nj, &c->grows);
  fail |= COPY_ARRAY(c->acts, m->acts, m->na, &c->grows);
  fail |= COPY_ARRAY(c->tends, m->tends, m->ntd, &c->grows);
  fail |= COPY_ARRAY(c->excl, m->excl, 2 * m->nex, &c->grows);
  if (fail) { /* no hull block is c's yet */
    c->ns = 0;
    dyn_model_free(c);
    return DYN_ERR_NOMEM;
  }
  c->nb = m->nb, c->nm = m->nm, c->nj = m->nj, c->na = m->na, c->ntd = m->ntd, c->nex = m->nex;
  for (int i = 0; i < m->ns; i++, c->ns++) {
    dyn_shape *g = &c->shapes.p[i].geom;
    if (g->kind != DYN_SHAPE_HULL) continue;
    g->verts = dyn_verts_alloc(g->verts, g->nverts);
    if (!g->verts) break; /* shapes [0, c->ns) own their blocks */
  }
  c->opt = m->opt;
  c->bytes = m->bytes;
  fail = c->ns != m->ns;
  fail |= dyn_names_rebuild(&c->names[DYN_REC_BODY], c->bodies.p, sizeof *c->bodies.p, c->nb);
  fail |= dyn_names_rebuild(&c->names[DYN_REC_SHAPE], c->shapes.p, sizeof *c->shapes.p, c->ns);
  fail |= dyn_names_rebuild(&c->names[DYN_REC_MATERIAL], c->mats.p, sizeof *c->mats.p, c->nm);
  fail |= dyn_names_rebuild(&c->names[DYN_REC_JOINT], c->joints.p, sizeof *c->joints.p, c->nj);
  if (fail) {
    dyn_model_free(c);
    return DYN_ERR_NOMEM;
  }
  dyn_model_compile_all(c); /* its shapes point to its own hull vertices */
  *out = c;
  return DYN_OK;
}

/* ---- adding and replacing records ------------------------------------------------------- */

/* Room for `more` bytes under the cap; DYN_ERR_INPUT with a message if not. */
static dyn_err cap_room(const dyn_model *m, size_t more, char *msg, size_t cap) {
  if (more > DYN_MODEL_MAX_BYTES || m->bytes > DYN_MODEL_MAX_BYTES - more) {
    dyn_msgf(msg, cap, "model larger than its memory cap of %u bytes (%zu + %zu)",
             DYN_MODEL_MAX_BYTES, m->bytes, more);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

static dyn_err no_memory(char *msg, size_t cap, const char *what) {
  dyn_msgf(msg, cap, "out of memory for the model's %s", what);
  return DYN_ERR_NOMEM;
}

/* The last step of an add: record n (stored at base[n]) named; 0 or the
 * error (nothing counted). */
static int index_name(dyn_model *m, dyn_rec_kind kind, const void *base, size_t stride,
                      const char *name, int n, char *msg, size_t cap) {
  if (dyn_names_insert(&m->names[kind], base, stride, name, n) != 0)
    return no_memory(msg, cap, "names");
  return n;
}

/* Room for one more record of a kind, under the cap. */
static dyn_err add_room(const dyn_model *m, int count, size_t bytes, const char *what, char *msg,
                        size_t cap) {
  if (count >= INT32_MAX / 2) {
    dyn_msgf(msg, cap, "too many %s", what);
    return DYN_ERR_INPUT;
  }
  return cap_room(m, bytes, msg, cap);
}

/* Store record *d as the next of its kind, indexed by name: its index, or
 * DYN_ERR_NOMEM with nothing counted. */
#define PUSH_RECORD(m, buf, count, kind, d, what, msg, cap)                                        \
  do {                                                                                             \
    if (dyn_buf_reserve(&(m)->buf, (size_t)(m)->count + 1, &(m)->grows) != 0)                      \
      return no_memory((msg), (cap), (what));                                                      \
    (m)->buf.p[(m)->count] = *(d);                                                                 \
    int r_ = index_name((m), (kind), (m)->buf.p, sizeof *(m)->buf.p, (d)->name, (m)->count, (msg), \
                        (cap));                                                                    \
    if (r_ < 0) return r_;                                                                         \
    (m)->bytes += sizeof *(d);                                                                     \
    return (m)->count++;                                                                           \
  } while (0)

static int push_body_record(dyn_model *m, const dyn_body_def *d, char *msg, size_t cap) {
  PUSH_RECORD(m, bodies, nb, DYN_REC_BODY, d, "bodies", msg, cap);
}

int dyn_model_push_body(dyn_model *m, const dyn_body_def *d, char *msg, size_t cap) {
  if (dyn_buf_reserve(&m->consts, (size_t)m->nb + 1, &m->grows) != 0 ||
      dyn_buf_reserve(&m->nshape, (size_t)m->nb + 1, &m->grows) != 0)
    return no_memory(msg, cap, "bodies");
  int i = push_body_record(m, d, msg, cap);
  if (i >= 0) {
    m->nshape.p[i] = 0;
    dyn_model_compile_body(m, i);
  }
  return i;
}

int dyn_model_push_joint(dyn_model *m, const dyn_joint_def *d, char *msg, size_t cap) {
  PUSH_RECORD(m, joints, nj, DYN_REC_JOINT, d, "joints", msg, cap);
}

static int push_material(dyn_model *m, const dyn_material *d, char *msg, size_t cap) {
  PUSH_RECORD(m, mats, nm, DYN_REC_MATERIAL, d, "materials", msg, cap);
}

int dyn_model_add_body(dyn_model *m, const dyn_body_def *d, char *msg, size_t cap) {
  if (!m || !d) {
    dyn_msgf(msg, cap, "add body: NULL model or record");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_check_body(m, m->nb, d, msg, cap);
  if (e == DYN_OK) e = add_room(m, m->nb, sizeof *d, "bodies", msg, cap);
  return e == DYN_OK ? dyn_model_push_body(m, d, msg, cap) : e;
}

int dyn_model_add_material(dyn_model *m, const dyn_material *d, char *msg, size_t cap) {
  if (!m || !d) {
    dyn_msgf(msg, cap, "add material: NULL model or record");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_check_material(m, m->nm, d, msg, cap);
  if (e == DYN_OK) e = add_room(m, m->nm, sizeof *d, "materials", msg, cap);
  return e == DYN_OK ? push_material(m, d, msg, cap) : e;
}

int dyn_model_add_joint(dyn_model *m, const dyn_joint_def *d, char *msg, size_t cap) {
  if (!m || !d) {
    dyn_msgf(msg, cap, "add joint: NULL model or record");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_check_joint(m, m->nj, d, msg, cap);
  if (e == DYN_OK) e = add_room(m, m->nj, sizeof *d, "joints", msg, cap);
  return e == DYN_OK ? dyn_model_push_joint(m, d, msg, cap) : e;
}

/* What is wrong with actuator d of model m, or NULL. */
static const char *actuator_fault(const dyn_model *m, const dyn_actuator_def *d) {
  if (memchr(d->name, '\0', sizeof d->name) == NULL) return "its name is too long";
  if (d->njoints < 0 || d->njoints > DYN_ACTUATOR_MAX_JOINTS) return "njoints is out of range";
  for (int k = 0; k < d->njoints; k++) {
    if (d->joint[k] < 0 || d->joint[k] >= m->nj) return "a joint does not exist";
    dyn_joint_kind t = m->joints.p[d->joint[k]].kind;
    if (t != DYN_JOINT_HINGE && t != DYN_JOINT_SLIDER) return "a joint is not a hinge or slider";
    if (!isfinite(d->coef[k])) return "a coefficient is not finite";
  }
  if (d->slider_crank &&
      (d->njoints != 0 || d->crank_body < 0 || d->crank_body >= m->nb || d->slider_body < -1 ||
       d->slider_body >= m->nb || !(d->crank_length > 0) || !isfinite(d->bias_k) ||
       !isfinite(d->bias_b0) || !(dyn_v3_norm(d->slider_axis) > 0) ||
       !isfinite(dyn_v3_norm(d->crank_pos)) || !isfinite(dyn_v3_norm(d->slider_pos))))
    return "its slider-crank fields are out of range";
  const char *path = dyn_tendon_path_fault(m, d);
  if (path) return path;
  double v[6] = { d->gear, d->gain, d->ctrl_lo, d->ctrl_hi, d->force_lo, d->force_hi };
  for (int k = 0; k < 6; k++)
    if (!isfinite(v[k])) return "a field is not finite";
  if ((d->ctrl_limited && d->ctrl_lo > d->ctrl_hi) ||
      (d->force_limited && d->force_lo > d->force_hi))
    return "a range has lo > hi";
  return NULL;
}

int dyn_model_add_actuator(dyn_model *m, const dyn_actuator_def *d, char *msg, size_t cap) {
  if (!m || !d) {
    dyn_msgf(msg, cap, "add actuator: NULL model or record");
    return DYN_ERR_INPUT;
  }
  const char *why = actuator_fault(m, d);
  if (why) {
    dyn_msgf(msg, cap, "actuator %d '%.*s': %s", m->na, DYN_NAME_MAX - 1, d->name, why);
    return DYN_ERR_INPUT;
  }
  dyn_err e = add_room(m, m->na, sizeof *d, "actuators", msg, cap);
  if (e != DYN_OK) return e;
  if (dyn_buf_reserve(&m->acts, (size_t)m->na + 1, &m->grows) != 0)
    return no_memory(msg, cap, "actuators");
  m->acts.p[m->na] = *d;
  m->bytes += sizeof *d;
  return m->na++;
}

/* What is wrong with tendon d of model m, or NULL. */
static const char *tendon_fault(const dyn_model *m, const dyn_tendon_def *d) {
  if (memchr(d->name, '\0', sizeof d->name) == NULL) return "its name is too long";
  if (d->njoints < 1 || d->njoints > DYN_ACTUATOR_MAX_JOINTS) return "njoints is out of range";
  for (int k = 0; k < d->njoints; k++) {
    if (d->joint[k] < 0 || d->joint[k] >= m->nj) return "a joint does not exist";
    dyn_joint_kind t = m->joints.p[d->joint[k]].kind;
    if (t != DYN_JOINT_HINGE && t != DYN_JOINT_SLIDER) return "a joint is not a hinge or slider";
    if (!isfinite(d->coef[k])) return "a coefficient is not finite";
  }
  const dyn_joint_limit *L = &d->limit;
  if (L->enabled && !(isfinite(L->lo) && isfinite(L->hi) && L->lo <= L->hi))
    return "its limit must have finite lo <= hi";
  if (!(L->erp >= 0.0 && L->erp <= 1.0) || !(L->cfm >= 0.0) || !isfinite(L->cfm) ||
      !(L->restitution >= 0.0 && L->restitution <= 1.0))
    return "its limit's erp and restitution must be in [0, 1] and cfm finite and >= 0";
  if (!(d->stiffness >= 0.0) || !isfinite(d->stiffness) || !(d->damping >= 0.0) ||
      !isfinite(d->damping) || !isfinite(d->rest))
    return "stiffness and damping must be finite and >= 0, rest finite";
  return NULL;
}

int dyn_model_add_tendon(dyn_model *m, const dyn_tendon_def *d, char *msg, size_t cap) {
  if (!m || !d) {
    dyn_msgf(msg, cap, "add tendon: NULL model or record");
    return DYN_ERR_INPUT;
  }
  const char *why = tendon_fault(m, d);
  if (why) {
    dyn_msgf(msg, cap, "tendon %d '%.*s': %s", m->ntd, DYN_NAME_MAX - 1, d->name, why);
    return DYN_ERR_INPUT;
  }
  dyn_err e = add_room(m, m->ntd, sizeof *d, "tendons", msg, cap);
  if (e != DYN_OK) return e;
  if (dyn_buf_reserve(&m->tends, (size_t)m->ntd + 1, &m->grows) != 0)
    return no_memory(msg, cap, "tendons");
  m->tends.p[m->ntd] = *d;
  m->bytes += sizeof *d;
  return m->ntd++;
}

/* *out = *d with its rotation normalised and its
 * hull vertices in a block of their own (none when verts is NULL or
 * nverts < 1: such a hull never collides); *vbytes the block's size. */
static dyn_err own_shape(const dyn_shape_def *d, dyn_shape_def *out, size_t *vbytes, char *msg,
                         size_t cap) {
  *out = *d;
  *vbytes = 0;
  out->rot = dyn_quat_normalize(d->rot);
  if (d->geom.kind != DYN_SHAPE_HULL) {
    out->geom.verts = NULL;
    out->geom.nverts = 0;
    return DYN_OK;
  }
  if (!d->geom.verts || d->geom.nverts < 1) {
    out->geom.verts = NULL;
    return DYN_OK;
  }
  *vbytes = (size_t)d->geom.nverts * sizeof(dyn_v3);
  out->geom.verts = dyn_verts_alloc(d->geom.verts, d->geom.nverts);
  return out->geom.verts ? DYN_OK : no_memory(msg, cap, "hull vertices");
}

int dyn_model_push_shape(dyn_model *m, const dyn_shape_def *d, char *msg, size_t cap) {
  if (dyn_buf_reserve(&m->shapes, (size_t)m->ns + 1, &m->grows) != 0)
    return no_memory(msg, cap, "shapes");
  dyn_shape_def s;
  size_t vb;
  dyn_err e = own_shape(d, &s, &vb, msg, cap);
  if (e != DYN_OK) return e;
  m->shapes.p[m->ns] = s;
  int r = index_name(m, DYN_REC_SHAPE, m->shapes.p, sizeof *m->shapes.p, s.name, m->ns, msg, cap);
  if (r < 0) {
    free((void *)s.geom.verts);
    return r;
  }
  m->bytes += sizeof s + vb;
  dyn_model_compile_shape_added(m, m->ns);
  return m->ns++;
}

int dyn_model_add_shape(dyn_model *m, const dyn_shape_def *d, char *msg, size_t cap) {
  if (!m || !d) {
    dyn_msgf(msg, cap, "add shape: NULL model or record");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_check_shape(m, m->ns, d, msg, cap);
  size_t vb = d->geom.kind == DYN_SHAPE_HULL ? (size_t)d->geom.nverts * sizeof(dyn_v3) : 0;
  if (e == DYN_OK) e = add_room(m, m->ns, sizeof *d + vb, "shapes", msg, cap);
  return e == DYN_OK ? dyn_model_push_shape(m, d, msg, cap) : e;
}

/* Record i of a kind replaced: the name index rebuilt if the name changed
 * (old: the record before; on failure it is put back). */
#define SET_RECORD(m, buf, count, kind, i, d, old, msg, cap)                                       \
  do {                                                                                             \
    (old) = (m)->buf.p[(i)];                                                                       \
    (m)->buf.p[(i)] = *(d);                                                                        \
    if (strcmp((old).name, (d)->name) != 0 &&                                                      \
        dyn_names_rebuild(&(m)->names[(kind)], (m)->buf.p, sizeof *(m)->buf.p, (m)->count) != 0) { \
      (m)->buf.p[(i)] = (old); /* the index of the old names was kept */                           \
      return no_memory((msg), (cap), "names");                                                     \
    }                                                                                              \
  } while (0)

static dyn_err bad_index(const char *what, int i, int n, char *msg, size_t cap) {
  dyn_msgf(msg, cap, "set %s: index %d out of [0, %d)", what, i, n);
  return DYN_ERR_INPUT;
}

dyn_err dyn_model_set_body(dyn_model *m, int i, const dyn_body_def *d, char *msg, size_t cap) {
  if (!m || !d) return bad_index("body", i, 0, msg, cap);
  if (i < 0 || i >= m->nb) return bad_index("body", i, m->nb, msg, cap);
  dyn_err e = dyn_check_body(m, i, d, msg, cap);
  if (e == DYN_OK) e = dyn_check_body_links(m, i, d, msg, cap);
  if (e != DYN_OK) return e;
  dyn_body_def old;
  SET_RECORD(m, bodies, nb, DYN_REC_BODY, i, d, old, msg, cap);
  dyn_model_compile_body(m, i);
  return DYN_OK;
}

dyn_err dyn_model_set_material(dyn_model *m, int i, const dyn_material *d, char *msg, size_t cap) {
  if (!m || !d) return bad_index("material", i, 0, msg, cap);
  if (i < 0 || i >= m->nm) return bad_index("material", i, m->nm, msg, cap);
  dyn_err e = dyn_check_material(m, i, d, msg, cap);
  if (e != DYN_OK) return e;
  dyn_material old;
  SET_RECORD(m, mats, nm, DYN_REC_MATERIAL, i, d, old, msg, cap);
  return DYN_OK;
}

dyn_err dyn_model_set_joint(dyn_model *m, int i, const dyn_joint_def *d, char *msg, size_t cap) {
  if (!m || !d) return bad_index("joint", i, 0, msg, cap);
  if (i < 0 || i >= m->nj) return bad_index("joint", i, m->nj, msg, cap);
  dyn_err e = dyn_check_joint(m, i, d, msg, cap);
  if (e != DYN_OK) return e;
  dyn_joint_def old;
  SET_RECORD(m, joints, nj, DYN_REC_JOINT, i, d, old, msg, cap);
  return DYN_OK;
}

dyn_err dyn_model_set_shape(dyn_model *m, int i, const dyn_shape_def *d, char *msg, size_t cap) {
  if (!m || !d) return bad_index("shape", i, 0, msg, cap);
  if (i < 0 || i >= m->ns) return bad_index("shape", i, m->ns, msg, cap);
  dyn_err e = dyn_check_shape(m, i, d, msg, cap);
  const dyn_shape *g0 = &m->shapes.p[i].geom;
  size_t vb0 = g0->kind == DYN_SHAPE_HULL ? (size_t)g0->nverts * sizeof(dyn_v3) : 0, vb;
  size_t vb1 = d->geom.kind == DYN_SHAPE_HULL ? (size_t)d->geom.nverts * sizeof(dyn_v3) : 0;
  if (e == DYN_OK && vb1 > vb0) e = cap_room(m, vb1 - vb0, msg, cap);
  if (e != DYN_OK) return e;
  dyn_shape_def s, old = m->shapes.p[i];
  if ((e = own_shape(d, &s, &vb, msg, cap)) != DYN_OK) return e;
  m->shapes.p[i] = s;
  if (strcmp(old.name, s.name) != 0 &&
      dyn_names_rebuild(&m->names[DYN_REC_SHAPE], m->shapes.p, sizeof *m->shapes.p, m->ns) != 0) {
    m->shapes.p[i] = old; /* the index of the old names was kept */
    free((void *)s.geom.verts);
    return no_memory(msg, cap, "names");
  }
  if (old.geom.kind == DYN_SHAPE_HULL) free((void *)old.geom.verts);
  m->bytes = m->bytes - vb0 + vb;
  m->nshape.p[old.body]--;
  m->nshape.p[s.body]++;
  dyn_model_compile_body(m, old.body);
  dyn_model_compile_body(m, s.body);
  return DYN_OK;
}

/* ---- exclusions and options ------------------------------------------------------------ */

/* The position of pair (a, b) in the sorted exclusions: where it is or
 * would go. */
static int excl_pos(const dyn_model *m, int a, int b) {
  int lo = 0, hi = m->nex;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const int *p = m->excl.p + 2 * mid;
    if (p[0] < a || (p[0] == a && p[1] < b))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int dyn_model_excluded(const dyn_model *m, int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  int k = excl_pos(m, lo, hi);
  return k < m->nex && m->excl.p[2 * k] == lo && m->excl.p[2 * k + 1] == hi;
}

dyn_err dyn_model_exclude(dyn_model *m, int a, int b, char *msg, size_t cap) {
  if (!m || a < 0 || b < 0 || a >= m->nb || b >= m->nb || a == b) {
    dyn_msgf(msg, cap, "exclude: bodies %d and %d must be two of the model's %d", a, b,
             m ? m->nb : 0);
    return DYN_ERR_INPUT;
  }
  if (dyn_model_excluded(m, a, b)) return DYN_OK;
  dyn_err e = cap_room(m, 2 * sizeof(int), msg, cap);
  if (e != DYN_OK) return e;
  if (dyn_buf_reserve(&m->excl, 2 * (size_t)m->nex + 2, &m->grows) != 0)
    return no_memory(msg, cap, "exclusions");
  int lo = a < b ? a : b, hi = a < b ? b : a, k = excl_pos(m, lo, hi);
  memmove(m->excl.p + 2 * k + 2, m->excl.p + 2 * k, 2 * (size_t)(m->nex - k) * sizeof(int));
  m->excl.p[2 * k] = lo;
  m->excl.p[2 * k + 1] = hi;
  m->nex++;
  m->bytes += 2 * sizeof(int);
  return DYN_OK;
}

dyn_model_options dyn_model_get_options(const dyn_model *m) {
  return m ? m->opt : dyn_model_options_default();
}

dyn_err dyn_model_set_options(dyn_model *m, const dyn_model_options *o, char *msg, size_t cap) {
  if (!m || !o) {
    dyn_msgf(msg, cap, "model options: NULL");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_check_options(o, msg, cap);
  if (e == DYN_OK) m->opt = *o;
  return e;
}

/* ---- accessors --------------------------------------------------------------------------- */

int dyn_model_body_count(const dyn_model *m) { return m ? m->nb : 0; }
int dyn_model_shape_count(const dyn_model *m) { return m ? m->ns : 0; }
int dyn_model_material_count(const dyn_model *m) { return m ? m->nm : 0; }
int dyn_model_default_material(const dyn_model *m) {
  return m && m->nm > 0 ? 0 : DYN_MATERIAL_DEFAULT;
}
int dyn_model_joint_count(const dyn_model *m) { return m ? m->nj : 0; }
int dyn_model_exclusion_count(const dyn_model *m) { return m ? m->nex : 0; }
const dyn_body_def *dyn_model_bodies(const dyn_model *m) { return m ? m->bodies.p : NULL; }
const dyn_shape_def *dyn_model_shapes(const dyn_model *m) { return m ? m->shapes.p : NULL; }
const dyn_material *dyn_model_materials(const dyn_model *m) { return m ? m->mats.p : NULL; }
const dyn_joint_def *dyn_model_joints(const dyn_model *m) { return m ? m->joints.p : NULL; }
const int *dyn_model_exclusions(const dyn_model *m) { return m ? m->excl.p : NULL; }
int dyn_model_actuator_count(const dyn_model *m) { return m ? m->na : 0; }
int dyn_model_tendon_count(const dyn_model *m) { return m ? m->ntd : 0; }
const dyn_tendon_def *dyn_model_tendons(const dyn_model *m) { return m ? m->tends.p : NULL; }
const dyn_actuator_def *dyn_model_actuators(const dyn_model *m) { return m ? m->acts.p : NULL; }
int dyn_model_find_actuator(const dyn_model *m, const char *name) {
  if (!m || !name || !name[0]) return -1;
  for (int i = 0; i < m->na; i++)
    if (strcmp(m->acts.p[i].name, name) == 0) return i;
  return -1;
}

int dyn_model_find_body(const dyn_model *m, const char *name) {
  return m ? dyn_names_find(&m->names[DYN_REC_BODY], m->bodies.p, sizeof *m->bodies.p, name) : -1;
}
int dyn_model_find_shape(const dyn_model *m, const char *name) {
  return m ? dyn_names_find(&m->names[DYN_REC_SHAPE], m->shapes.p, sizeof *m->shapes.p, name) : -1;
}
int dyn_model_find_material(const dyn_model *m, const char *name) {
  return m ? dyn_names_find(&m->names[DYN_REC_MATERIAL], m->mats.p, sizeof *m->mats.p, name) : -1;
}
int dyn_model_find_joint(const dyn_model *m, const char *name) {
  return m ? dyn_names_find(&m->names[DYN_REC_JOINT], m->joints.p, sizeof *m->joints.p, name) : -1;
}
