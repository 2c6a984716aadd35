/*
 * model_check.c -- the checks of a dyn_model's records (dyn_model.h): each
 * record on its way in (the add and set functions), and the whole model
 * (dyn_model_validate), with messages naming the record by kind, index and
 * name.  docs/scenes.md, "Validation".
 *
 * Rules (besides a name of at most DYN_NAME_MAX - 1 characters, unique
 * among the records of its kind, and no NaN in any field):
 *   body      is_static and rest_given 0 or 1; r, q, v, w, r_rest, mass, I_b
 *             finite; q nonzero; dynamic: mass >= 0, and mass > 0 with the
 *             inertia dyn_body_init takes (symmetric to 1e-12, positive
 *             definite with Cholesky pivots above 16 eps max I(i,i):
 *             body.c) -- the same function judges, so a model that passes
 *             builds a world; a dynamic body with a plane shape, or a static
 *             one tied by a joint to the world or another static body,
 *             stays as it is (set_body);
 *   shape     an existing body and material; sizes finite and > 0 (a
 *             capsule's half_length >= 0); a hull of at least four points
 *             not in one plane: after the farthest pair p0 p1, the point
 *             p2 farthest from their line and p3 farthest from the plane of
 *             p0 p1 p2, each distance above 1e-9 of the hull's extent; a
 *             plane only on a static body, at the identity pose, with a
 *             unit normal (to 1e-6);
 *   material  mu finite >= 0, restitution in [0, 1];
 *   joint     bodies that exist, not both static, and what dyn_joint_init
 *             and dyn_joint_validate (joint.c) refuse, judged on the bodies
 *             at their initial pose; a disabled limit may keep its infinite
 *             bounds (dyn_joint_init's "no limit").
 * dyn_model_validate runs every check again and adds the rules between
 * records: a dynamic body whose mass is still 0, the memory cap.
 */
#include "model_internal.h"

#include <math.h>
#include <string.h>

static const char *const kind_name[DYN_REC_KINDS] = { "body", "shape", "material", "joint" };

void dyn_rec_label(char *buf, size_t cap, dyn_rec_kind kind, int i, const char *name) {
  if (name && name[0] && memchr(name, '\0', DYN_NAME_MAX))
    snprintf(buf, cap, "%s %d '%s'", kind_name[kind], i, name);
  else
    snprintf(buf, cap, "%s %d", kind_name[kind], i);
}

/* msg = "<label>: <text>"; returns DYN_ERR_INPUT. */
static dyn_err rec_fail(char *msg, size_t cap, dyn_rec_kind kind, int i, const char *name,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static dyn_err rec_fail(char *msg, size_t cap, dyn_rec_kind kind, int i, const char *name,
                        const char *fmt, ...) {
  if (!msg || cap == 0) return DYN_ERR_INPUT;
  char label[DYN_NAME_MAX + 32];
  dyn_rec_label(label, sizeof label, kind, i, name);
  int k = snprintf(msg, cap, "%s: ", label);
  if (k >= 0 && (size_t)k < cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, cap - (size_t)k, fmt, ap);
    va_end(ap);
  }
  return DYN_ERR_INPUT;
}

static int v3_ok(dyn_v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
static int q_ok(dyn_quat q) {
  return isfinite(q.w) && isfinite(q.x) && isfinite(q.y) && isfinite(q.z);
}
static int m3_ok(const dyn_m3 *M) {
  for (int k = 0; k < 9; k++)
    if (!isfinite(M->m[k])) return 0;
  return 1;
}

/* The records of each kind, for the name checks. */
static const void *rec_base(const dyn_model *m, dyn_rec_kind kind, size_t *stride) {
  switch (kind) {
  case DYN_REC_BODY: *stride = sizeof(dyn_body_def); return m->bodies.p;
  case DYN_REC_SHAPE: *stride = sizeof(dyn_shape_def); return m->shapes.p;
  case DYN_REC_MATERIAL: *stride = sizeof(dyn_material); return m->mats.p;
  default: *stride = sizeof(dyn_joint_def); return m->joints.p;
  }
}

/* The name of record i: a string that fits, and not another record's. */
static dyn_err check_name(const dyn_model *m, dyn_rec_kind kind, int i, const char *name, char *msg,
                          size_t cap) {
  if (!memchr(name, '\0', DYN_NAME_MAX))
    return rec_fail(msg, cap, kind, i, "", "name is longer than %d characters", DYN_NAME_MAX - 1);
  size_t stride;
  const void *base = rec_base(m, kind, &stride);
  int k = dyn_names_find(&m->names[kind], base, stride, name);
  if (k >= 0 && k != i)
    return rec_fail(msg, cap, kind, i, name, "the name is taken by %s %d", kind_name[kind], k);
  return DYN_OK;
}

/* ---- bodies --------------------------------------------------------------------- */

dyn_err dyn_check_body_links(const dyn_model *m, int i, const dyn_body_def *d, char *msg,
                             size_t cap) {
  for (int s = 0; !d->is_static && s < m->ns; s++)
    if (m->shapes.p[s].body == i && m->shapes.p[s].geom.kind == DYN_SHAPE_PLANE)
      return rec_fail(msg, cap, DYN_REC_BODY, i, d->name,
                      "must stay static: it carries the plane shape %d", s);
  for (int j = 0; d->is_static && j < m->nj; j++) {
    const dyn_joint_def *J = &m->joints.p[j];
    int other = J->a == i ? J->b : (J->b == i ? J->a : -2);
    if (other == -2) continue;
    if (other < 0 || (other != i && m->bodies.p[other].is_static))
      return rec_fail(msg, cap, DYN_REC_BODY, i, d->name,
                      "cannot be static: joint %d ties it to %s", j,
                      other < 0 ? "the world" : "a static body");
  }
  return DYN_OK;
}

dyn_err dyn_check_body(const dyn_model *m, int i, const dyn_body_def *d, char *msg, size_t cap) {
  dyn_err e = check_name(m, DYN_REC_BODY, i, d->name, msg, cap);
  if (e != DYN_OK) return e;
  if ((d->is_static != 0 && d->is_static != 1) || (d->rest_given != 0 && d->rest_given != 1))
    return rec_fail(msg, cap, DYN_REC_BODY, i, d->name,
                    "is_static=%d and rest_given=%d must be 0 or 1", d->is_static, d->rest_given);
  if (!v3_ok(d->r) || !q_ok(d->q) || !v3_ok(d->v) || !v3_ok(d->w) || !v3_ok(d->r_rest) ||
      !isfinite(d->mass) || !m3_ok(&d->I_b))
    return rec_fail(msg, cap, DYN_REC_BODY, i, d->name,
                    "mass, I_b, r, q, v, w and r_rest must be finite");
  if (!(dyn_quat_norm(d->q) > 0.0))
    return rec_fail(msg, cap, DYN_REC_BODY, i, d->name, "the quaternion q is zero");
  if (!d->is_static && d->mass < 0.0)
    return rec_fail(msg, cap, DYN_REC_BODY, i, d->name, "mass=%g must be > 0", d->mass);
  if (!d->is_static && d->mass > 0.0) {
    dyn_body_const c;
    dyn_body_state b;
    dyn_shape none;
    memset(&none, 0, sizeof none);
    char m2[200];
    if (dyn_body_compile(d, none, &c, &b, m2, sizeof m2) != DYN_OK)
      return rec_fail(msg, cap, DYN_REC_BODY, i, d->name, "%s", m2);
  }
  return DYN_OK;
}

dyn_err dyn_body_compile(const dyn_body_def *d, dyn_shape shape, dyn_body_const *c,
                         dyn_body_state *b, char *msg, size_t cap) {
  memset(c, 0, sizeof *c);
  memset(b, 0, sizeof *b);
  if (d->is_static) {
    dyn_body_init_static(c, b, shape, d->r, d->q);
  } else {
    if (d->mass == 0.0) {
      dyn_msgf(msg, cap, "mass=0: set it, or from its shapes by dyn_model_mass_from_density");
      return DYN_ERR_INPUT;
    }
    /* a plane shape on a dynamic body is refused by dyn_body_init */
    dyn_err e = dyn_body_init(c, b, d->mass, d->I_b, shape, d->r, d->q, msg, cap);
    if (e != DYN_OK) return e;
  }
  b->v = d->v;
  b->w = d->w;
  return DYN_OK;
}

/* ---- shapes ---------------------------------------------------------------------- */

/* Distance of x from the line through a with unit direction u. */
static double line_dist(dyn_v3 x, dyn_v3 a, dyn_v3 u) {
  dyn_v3 d = dyn_v3_sub(x, a);
  return dyn_v3_norm(dyn_v3_sub(d, dyn_v3_scale(u, dyn_v3_dot(d, u))));
}

/* 1 iff the n points span three dimensions (the header's test). */
static int hull_solid(const dyn_v3 *v, int n) {
  int i1 = 0;
  double ext = 0.0;
  for (int k = 1; k < n; k++) {
    double d = dyn_v3_norm(dyn_v3_sub(v[k], v[0]));
    if (d > ext) ext = d, i1 = k;
  }
  double tol = 1e-9 * ext;
  if (!(ext > 0.0)) return 0;
  dyn_v3 u = dyn_v3_scale(dyn_v3_sub(v[i1], v[0]), 1.0 / ext);
  int i2 = 0;
  double dl = 0.0;
  for (int k = 0; k < n; k++) {
    double d = line_dist(v[k], v[0], u);
    if (d > dl) dl = d, i2 = k;
  }
  if (!(dl > tol)) return 0;
  dyn_v3 nrm = dyn_v3_normalize(dyn_v3_cross(u, dyn_v3_sub(v[i2], v[0])));
  for (int k = 0; k < n; k++)
    if (fabs(dyn_v3_dot(nrm, dyn_v3_sub(v[k], v[0]))) > tol) return 1;
  return 0;
}

/* The sizes of the shape's kind. */
static dyn_err check_geom(int i, const dyn_shape_def *d, int body_static, char *msg, size_t cap) {
  const dyn_shape *g = &d->geom;
  const char *nm = d->name;
  switch (g->kind) {
  case DYN_SHAPE_NONE: return DYN_OK;
  case DYN_SHAPE_SPHERE:
    if (!(g->radius > 0.0))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm, "sphere radius=%g must be > 0", g->radius);
    return DYN_OK;
  case DYN_SHAPE_BOX:
    if (!(g->half.x > 0.0 && g->half.y > 0.0 && g->half.z > 0.0))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm, "box half extents (%g, %g, %g) must be > 0",
                      g->half.x, g->half.y, g->half.z);
    return DYN_OK;
  case DYN_SHAPE_CAPSULE:
    if (!(g->radius > 0.0) || !(g->half_length >= 0.0))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm,
                      "capsule radius=%g must be > 0, half_length=%g >= 0", g->radius,
                      g->half_length);
    return DYN_OK;
  case DYN_SHAPE_ELLIPSOID:
    if (!(g->half.x > 0.0) || !(g->half.y > 0.0) || !(g->half.z > 0.0))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm,
                      "ellipsoid semi-axes (%g, %g, %g) must be > 0", g->half.x, g->half.y,
                      g->half.z);
    return DYN_OK;
  case DYN_SHAPE_CYLINDER:
    if (!(g->radius > 0.0) || !(g->half_length > 0.0))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm,
                      "cylinder radius=%g and half_length=%g must be > 0", g->radius,
                      g->half_length);
    return DYN_OK;
  case DYN_SHAPE_PLANE:
    if (!body_static)
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm, "a plane only on a static body (body %d)",
                      d->body);
    /* unit to 1e-6, as a contact's normal (contact.c): the depth n . x - d
     * is a distance only for a unit n; kept as given, not normalised */
    if (!(fabs(dyn_v3_norm(g->normal) - 1.0) <= 1e-6))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm,
                      "the plane's normal (%g, %g, %g) must be a unit vector", g->normal.x,
                      g->normal.y, g->normal.z);
    if (d->pos.x != 0.0 || d->pos.y != 0.0 || d->pos.z != 0.0 || d->rot.x != 0.0 ||
        d->rot.y != 0.0 || d->rot.z != 0.0)
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm,
                      "a plane is given in the world frame: its pose must be the identity");
    return DYN_OK;
  case DYN_SHAPE_HULL:
    if (!g->verts || g->nverts < 4)
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm, "a hull needs >= 4 vertices (%d given)",
                      g->verts ? g->nverts : 0);
    for (int k = 0; k < g->nverts; k++)
      if (!v3_ok(g->verts[k]))
        return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm, "hull vertex %d is not finite", k);
    if (!hull_solid(g->verts, g->nverts))
      return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm,
                      "the hull's %d vertices lie in one plane (or line)", g->nverts);
    return DYN_OK;
  }
  return rec_fail(msg, cap, DYN_REC_SHAPE, i, nm, "kind=%d is not a dyn_shape_kind", (int)g->kind);
}

dyn_err dyn_check_shape(const dyn_model *m, int i, const dyn_shape_def *d, char *msg, size_t cap) {
  dyn_err e = check_name(m, DYN_REC_SHAPE, i, d->name, msg, cap);
  if (e != DYN_OK) return e;
  if (d->body < 0 || d->body >= m->nb)
    return rec_fail(msg, cap, DYN_REC_SHAPE, i, d->name, "body %d does not exist (%d bodies)",
                    d->body, m->nb);
  if (d->material < DYN_MATERIAL_DEFAULT || d->material >= m->nm)
    return rec_fail(msg, cap, DYN_REC_SHAPE, i, d->name,
                    "material %d does not exist (%d materials; %d: the default)", d->material,
                    m->nm, DYN_MATERIAL_DEFAULT);
  const dyn_shape *g = &d->geom;
  if (!v3_ok(d->pos) || !q_ok(d->rot) || !isfinite(g->radius) || !isfinite(g->half_length) ||
      !v3_ok(g->half) || !v3_ok(g->normal) || !isfinite(g->offset))
    return rec_fail(msg, cap, DYN_REC_SHAPE, i, d->name, "sizes, normal and pose must be finite");
  if (!(dyn_quat_norm(d->rot) > 0.0))
    return rec_fail(msg, cap, DYN_REC_SHAPE, i, d->name, "the rotation rot is zero");
  if (!(d->margin >= 0.0 && isfinite(d->margin)) || !(d->gap >= 0.0 && isfinite(d->gap)))
    return rec_fail(msg, cap, DYN_REC_SHAPE, i, d->name,
                    "margin=%g and gap=%g must be finite and >= 0", d->margin, d->gap);
  return check_geom(i, d, m->bodies.p[d->body].is_static, msg, cap);
}

/* ---- materials, joints, options ------------------------------------------------------- */

dyn_err dyn_check_material(const dyn_model *m, int i, const dyn_material *d, char *msg,
                           size_t cap) {
  dyn_err e = check_name(m, DYN_REC_MATERIAL, i, d->name, msg, cap);
  if (e != DYN_OK) return e;
  if (!(d->mu >= 0.0) || !isfinite(d->mu))
    return rec_fail(msg, cap, DYN_REC_MATERIAL, i, d->name, "mu=%g must be finite and >= 0", d->mu);
  if (!(d->restitution >= 0.0 && d->restitution <= 1.0))
    return rec_fail(msg, cap, DYN_REC_MATERIAL, i, d->name, "restitution=%g must be in [0, 1]",
                    d->restitution);
  if (!(d->mu_torsion >= 0.0) || !isfinite(d->mu_torsion))
    return rec_fail(msg, cap, DYN_REC_MATERIAL, i, d->name, "mu_torsion=%g must be finite and >= 0",
                    d->mu_torsion);
  if (!(d->mu_rolling >= 0.0) || !isfinite(d->mu_rolling))
    return rec_fail(msg, cap, DYN_REC_MATERIAL, i, d->name, "mu_rolling=%g must be finite and >= 0",
                    d->mu_rolling);
  if (d->condim != 0 && d->condim != 1 && d->condim != 3 && d->condim != 4 && d->condim != 6)
    return rec_fail(msg, cap, DYN_REC_MATERIAL, i, d->name, "condim=%d must be 0, 1, 3, 4 or 6",
                    d->condim);
  return DYN_OK;
}

/* No NaN, and no inf but in a disabled limit's bounds. */
static int joint_finite(const dyn_joint_def *d) {
  int ok = v3_ok(d->anchor) && v3_ok(d->axis1) && v3_ok(d->axis2);
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++)
    ok = ok && isfinite(d->erp[r]) && isfinite(d->cfm[r]);
  const dyn_joint_limit *L = &d->limit;
  const dyn_joint_motor *M = &d->motor;
  ok = ok && isfinite(L->erp) && isfinite(L->cfm) && isfinite(L->restitution);
  ok =
      ok && !isnan(L->lo) && !isnan(L->hi) && (!L->enabled || (isfinite(L->lo) && isfinite(L->hi)));
  const dyn_joint_springdamper *S = &d->spring;
  ok = ok && isfinite(S->stiffness) && isfinite(S->damping) && isfinite(S->ref);
  return ok && isfinite(M->target_vel) && isfinite(M->max_force) && isfinite(M->cfm);
}

dyn_err dyn_joint_compile(const dyn_joint_def *d, dyn_bodies bodies, int nb, dyn_joint *j,
                          char *msg, size_t cap) {
  dyn_err e =
      dyn_joint_init(j, d->kind, bodies, nb, d->a, d->b, d->anchor, d->axis1, d->axis2, msg, cap);
  if (e != DYN_OK) return e;
  memcpy(j->erp, d->erp, sizeof j->erp);
  memcpy(j->cfm, d->cfm, sizeof j->cfm);
  j->limit = d->limit;
  j->motor = d->motor;
  j->spring = d->spring;
  return dyn_joint_validate(j, nb, msg, cap);
}

dyn_err dyn_check_joint(const dyn_model *m, int i, const dyn_joint_def *d, char *msg, size_t cap) {
  dyn_err e = check_name(m, DYN_REC_JOINT, i, d->name, msg, cap);
  if (e != DYN_OK) return e;
  if (d->a < 0 || d->a >= m->nb || d->b < -1 || d->b >= m->nb || d->a == d->b)
    return rec_fail(msg, cap, DYN_REC_JOINT, i, d->name,
                    "bodies a=%d, b=%d must exist (0 <= a < %d, -1 <= b < %d, a != b)", d->a, d->b,
                    m->nb, m->nb);
  if (!joint_finite(d))
    return rec_fail(msg, cap, DYN_REC_JOINT, i, d->name,
                    "anchor, axes, softness, limit, motor and spring must be finite");
  if (!(d->armature >= 0.0) || !isfinite(d->armature))
    return rec_fail(msg, cap, DYN_REC_JOINT, i, d->name, "armature %g must be finite and >= 0",
                    d->armature);
  if (m->bodies.p[d->a].is_static && (d->b < 0 || m->bodies.p[d->b].is_static))
    return rec_fail(msg, cap, DYN_REC_JOINT, i, d->name, "bodies %d and %d are both static", d->a,
                    d->b);
  /* judged on the two bodies at their initial pose, as bodies 0 and 1 */
  dyn_body_const twoc[2];
  dyn_body_state two[2];
  dyn_shape none;
  memset(&none, 0, sizeof none);
  for (int k = 0; k < 2; k++) {
    int bi = k ? d->b : d->a;
    dyn_body_init_static(&twoc[k], &two[k], none, dyn_v3_make(0.0, 0.0, 0.0), dyn_quat_identity());
    if (bi < 0) continue;
    two[k].r = m->bodies.p[bi].r;
    two[k].q = dyn_quat_normalize(m->bodies.p[bi].q);
  }
  dyn_joint_def t = *d;
  t.a = 0;
  t.b = d->b < 0 ? -1 : 1;
  dyn_joint j;
  char m2[200];
  if (dyn_joint_compile(&t, (dyn_bodies){ twoc, two }, 2, &j, m2, sizeof m2) != DYN_OK)
    return rec_fail(msg, cap, DYN_REC_JOINT, i, d->name, "%s", m2);
  return DYN_OK;
}

dyn_err dyn_check_options(const dyn_model_options *o, char *msg, size_t cap) {
  if (!v3_ok(o->gravity)) {
    dyn_msgf(msg, cap, "model options: gravity (%g, %g, %g) must be finite", o->gravity.x,
             o->gravity.y, o->gravity.z);
    return DYN_ERR_INPUT;
  }
  if (!(o->rest_threshold >= 0.0) || !isfinite(o->rest_threshold) ||
      !(o->rest_threshold_steps >= 0.0) || !isfinite(o->rest_threshold_steps)) {
    dyn_msgf(msg, cap,
             "model options: rest_threshold=%g and rest_threshold_steps=%g must be finite and "
             ">= 0",
             o->rest_threshold, o->rest_threshold_steps);
    return DYN_ERR_INPUT;
  }
  if (o->steps < 0 || (o->steps == 0 && !(o->duration > 0.0 && isfinite(o->duration)))) {
    dyn_msgf(msg, cap, "model options: steps=%ld must be > 0, or 0 with a finite duration > 0 (%g)",
             o->steps, o->duration);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

/* ---- the whole model ------------------------------------------------------------------- */

/* 1 for a massless frame of a reduced tree: dynamic, mass 0, I_b 0. */
static int massless_frame(const dyn_body_def *d) {
  if (d->is_static || d->mass != 0.0) return 0;
  for (int k = 0; k < 9; k++)
    if (d->I_b.m[k] != 0.0) return 0;
  return 1;
}

/* dyn_model_validate, with frames (massless_frame) taken when reduced. */
static dyn_err validate(const dyn_model *m, int reduced, char *msg, size_t cap) {
  if (!m) {
    dyn_msgf(msg, cap, "model: NULL");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_check_options(&m->opt, msg, cap);
  for (int i = 0; e == DYN_OK && i < m->nm; i++)
    e = dyn_check_material(m, i, &m->mats.p[i], msg, cap);
  for (int i = 0; e == DYN_OK && i < m->nb; i++) {
    const dyn_body_def *d = &m->bodies.p[i];
    e = dyn_check_body(m, i, d, msg, cap);
    if (e == DYN_OK && !d->is_static && d->mass == 0.0 && !(reduced && massless_frame(d)))
      e = rec_fail(msg, cap, DYN_REC_BODY, i, d->name,
                   "mass=0: set it, or from its shapes by dyn_model_mass_from_density");
  }
  for (int i = 0; e == DYN_OK && i < m->ns; i++)
    e = dyn_check_shape(m, i, &m->shapes.p[i], msg, cap);
  for (int i = 0; e == DYN_OK && i < m->nj; i++)
    e = dyn_check_joint(m, i, &m->joints.p[i], msg, cap);
  for (int k = 0; e == DYN_OK && k < m->nex; k++) {
    int a = m->excl.p[2 * k], b = m->excl.p[2 * k + 1];
    if (!(a >= 0 && a < b && b < m->nb)) {
      dyn_msgf(msg, cap, "exclusion %d: bodies %d and %d", k, a, b);
      e = DYN_ERR_INPUT;
    }
  }
  if (e == DYN_OK && m->bytes > DYN_MODEL_MAX_BYTES) {
    dyn_msgf(msg, cap, "model: %zu bytes, larger than the cap of %u", m->bytes,
             DYN_MODEL_MAX_BYTES);
    e = DYN_ERR_INPUT;
  }
  return e;
}

dyn_err dyn_model_validate(const dyn_model *m, char *msg, size_t cap) {
  return validate(m, 0, msg, cap);
}

dyn_err dyn_model_validate_reduced(const dyn_model *m, char *msg, size_t cap) {
  return validate(m, 1, msg, cap);
}
