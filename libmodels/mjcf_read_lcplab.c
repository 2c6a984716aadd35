/*
 * mjcf_read_lcplab.c -- lcplab's custom data in an MJCF file (the layout:
 * mdl_internal.h; docs/models.md, "lcplab's custom data"): the records the
 * general mapping read from MuJoCo's compiled model are replaced by their
 * exact originals and put back in the model's order.
 *
 * Three kinds of values:
 *   - the structure (which element is which record, which joint hangs
 *     which body, shape kinds): the custom data must agree with the file,
 *     else the file was changed after lcplab wrote it in a way the data no
 *     longer describes: refused, with the remedy (remove lcplab's custom
 *     data to read the file as plain MJCF);
 *   - values MJCF holds (poses, inertias, sizes, anchors, axes, hull
 *     vertices): the exact value where it agrees with what MuJoCo compiled
 *     to a tight tolerance (MuJoCo's value went through its own arithmetic:
 *     composed poses, normalised quaternions, a diagonalised inertia,
 *     float mesh vertices), else MuJoCo's (the file was edited there);
 *     masses, friction, filters, gravity and joint ranges are MuJoCo's
 *     (the same numbers unless edited);
 *   - values MJCF has no element for (restitution, rest thresholds,
 *     default steps, initial velocities, rest positions, joint softness,
 *     limit softness and restitution, motors, names of unnamed records):
 *     the custom data's.
 */
#include "mjcf_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* agreement of an exact value with MuJoCo's: relative to the size of the
 * value, a million times the rounding of a few dozen operations */
#define AGREE 1e-9
/* a full inertia: MuJoCo diagonalises it iteratively (mju_eig3), to about
 * 1e-9 of its largest entry (measured: 3e-9 of 2.3 in tests/test_mjcf.c's
 * rotated inertia) */
#define AGREE_EIG 1e-6
/* hull vertices: MuJoCo keeps them as float */
#define AGREE_FLOAT 1e-5

int mdl_lcplab_present(const mjModel *mj) {
  return mdl_mujoco_name2id(mj, mjOBJ_NUMERIC, MDL_PREFIX "format") >= 0;
}

/* The data of numeric NAME if it has n numbers, else NULL. */
static const mjtNum *numeric(const mjModel *mj, const char *name, int n) {
  int i = mdl_mujoco_name2id(mj, mjOBJ_NUMERIC, name);
  if (i < 0 || mj->numeric_size[i] != n) return NULL;
  return mj->numeric_data + mj->numeric_adr[i];
}

static void text_into(const mjModel *mj, const char *name, char *dst) {
  int i = mdl_mujoco_name2id(mj, mjOBJ_TEXT, name);
  dst[0] = '\0';
  if (i >= 0)
    snprintf(dst, DYN_NAME_MAX, "%.*s", mj->text_size[i], mj->text_data + mj->text_adr[i]);
}

static int agree_v3(dyn_v3 a, dyn_v3 b, double tol) {
  double s = 1.0 + fmax(dyn_v3_norm(a), dyn_v3_norm(b));
  return dyn_v3_norm(dyn_v3_sub(a, b)) <= tol * s;
}

/* unit quaternions equal up to sign, component by component */
static int agree_quat(dyn_quat a, dyn_quat b) {
  a = dyn_quat_normalize(a);
  b = dyn_quat_normalize(b);
  double s = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z < 0 ? -1.0 : 1.0;
  return fabs(a.w - s * b.w) <= AGREE && fabs(a.x - s * b.x) <= AGREE &&
         fabs(a.y - s * b.y) <= AGREE && fabs(a.z - s * b.z) <= AGREE;
}

static int agree_m3(const dyn_m3 *a, const dyn_m3 *b) {
  double s = 0.0, d = 0.0;
  for (int k = 0; k < 9; k++) {
    s = fmax(s, fmax(fabs(a->m[k]), fabs(b->m[k])));
    d = fmax(d, fabs(a->m[k] - b->m[k]));
  }
  return d <= AGREE_EIG * s;
}

static dyn_v3 v3_at(const mjtNum *x) { return dyn_v3_make(x[0], x[1], x[2]); }

static mdl_err edited(mdl_map *p, const char *what) {
  return mdl_refuse(p,
                    "%s: lcplab's custom data no longer describes the file (was it edited "
                    "after lcplab wrote it?); remove the <custom> lcplab:* entries and the "
                    "user= numbers to read it as plain MJCF",
                    what);
}

/* ---- bodies ------------------------------------------------------------------------ */

/* Body record u (MDL_BU_*) over the mapped body m. */
static dyn_body_def exact_body(const mjtNum *u, const dyn_body_def *m) {
  dyn_body_def x = *m;
  if (!u[MDL_BU_NAMED]) x.name[0] = '\0';
  x.is_static = u[MDL_BU_STATIC] != 0.0;
  dyn_m3 I;
  memcpy(I.m, u + MDL_BU_I, sizeof I.m);
  dyn_v3 r = v3_at(u + MDL_BU_R);
  dyn_quat q = dyn_quat_make(u[MDL_BU_Q], u[MDL_BU_Q + 1], u[MDL_BU_Q + 2], u[MDL_BU_Q + 3]);
  if (m->is_static) { /* MuJoCo has no mass there: the record's */
    x.mass = u[MDL_BU_MASS];
    x.I_b = I;
  } else if (agree_m3(&I, &m->I_b)) {
    x.I_b = I;
  }
  if (agree_v3(r, m->r, AGREE)) x.r = r;
  if (agree_quat(q, m->q)) x.q = q;
  x.v = v3_at(u + MDL_BU_V);
  x.w = v3_at(u + MDL_BU_W);
  x.rest_given = u[MDL_BU_REST] != 0.0;
  x.r_rest = v3_at(u + MDL_BU_RREST);
  return x;
}

/* perm[mapped body] = the model's index; bodies reordered. */
static mdl_err apply_bodies(mdl_map *p, int nb, int *perm) {
  const mjModel *mj = p->mj;
  if (mj->nuser_body != MDL_BU_N || p->nb != nb) return edited(p, "bodies");
  dyn_body_def *nbody = calloc((size_t)nb + 1, sizeof *nbody);
  int *nelem = malloc(((size_t)nb + 1) * sizeof *nelem);
  if (!nbody || !nelem) {
    free(nbody);
    free(nelem);
    return mdl_nomem(p);
  }
  for (int i = 0; i < nb; i++) nelem[i] = -1;
  mdl_err e = MDL_OK;
  for (int i = 0; i < nb && e == MDL_OK; i++) {
    int b = p->body_elem[i];
    const mjtNum *u = mj->body_user + (size_t)b * MDL_BU_N;
    int k = (int)u[MDL_BU_INDEX];
    char lab[96];
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_BODY, b);
    if (b == 0 || u[MDL_BU_TAG] != MDL_FORMAT || k < 0 || k >= nb || nelem[k] >= 0 ||
        (u[MDL_BU_STATIC] != 0.0 && !p->body[i].is_static))
      e = edited(p, lab);
    else {
      nbody[k] = exact_body(u, &p->body[i]);
      nelem[k] = b;
      perm[i] = k;
    }
  }
  if (e != MDL_OK) {
    free(nbody);
    free(nelem);
    return e;
  }
  free(p->body);
  free(p->body_elem);
  p->body = nbody;
  p->body_elem = nelem;
  for (int b = 0; b < mj->nbody; b++)
    if (p->lc_body[b] >= 0) p->lc_body[b] = perm[p->lc_body[b]];
  return MDL_OK;
}

/* ---- shapes ------------------------------------------------------------------------ */

/* 1 if the record's kind is what MuJoCo compiled (a capsule of half length
 * 0 is written as a sphere, a shape of kind none as a site). */
static int same_kind(const mjtNum *u, const dyn_shape_def *m, int site) {
  int k = (int)u[MDL_GU_KIND];
  if (site || k == DYN_SHAPE_NONE) return site && k == DYN_SHAPE_NONE;
  if (k == DYN_SHAPE_CAPSULE && !(u[MDL_GU_HALFLEN] > 0.0)) return m->geom.kind == DYN_SHAPE_SPHERE;
  return (int)m->geom.kind == k;
}

/* The exact hull of shape s (nv vertices) from its custom chunks into
 * *out, or NULL when a chunk is missing. */
static dyn_v3 *exact_hull(const mjModel *mj, int s, int nv) {
  dyn_v3 *v = malloc(((size_t)nv + 1) * sizeof *v);
  if (!v) return NULL;
  double *x = &v[0].x;
  for (int k = 0, c = 0; k < 3 * nv; k += MDL_HULL_CHUNK, c++) {
    char nm[64];
    snprintf(nm, sizeof nm, MDL_PREFIX "hull:%d:%d", s, c);
    int n = 3 * nv - k < MDL_HULL_CHUNK ? 3 * nv - k : MDL_HULL_CHUNK;
    const mjtNum *d = numeric(mj, nm, n);
    if (!d) {
      free(v);
      return NULL;
    }
    memcpy(x + k, d, (size_t)n * sizeof *x);
  }
  return v;
}

/* The exact vertices where they agree with MuJoCo's (in the body frame). */
static int hull_agrees(const dyn_shape_def *m, dyn_v3 pos, dyn_quat rot, const dyn_v3 *v, int nv) {
  if (m->geom.nverts != nv) return 0;
  double ext = 0.0;
  for (int i = 0; i < nv; i++) ext = fmax(ext, dyn_v3_norm(v[i]));
  for (int i = 0; i < nv; i++) {
    dyn_v3 a = dyn_v3_add(pos, dyn_quat_rotate(dyn_quat_normalize(rot), v[i]));
    dyn_v3 b = dyn_v3_add(m->pos, dyn_quat_rotate(dyn_quat_normalize(m->rot), m->geom.verts[i]));
    if (dyn_v3_norm(dyn_v3_sub(a, b)) > AGREE_FLOAT * (1.0 + ext + dyn_v3_norm(pos))) return 0;
  }
  return 1;
}

/* Shape record u over mapped shape m (index s of the model); hull vertices
 * into *verts (owned), replacing MuJoCo's where they agree. */
static mdl_err exact_shape(mdl_map *p, const mjtNum *u, dyn_shape_def *x, dyn_v3 **verts) {
  dyn_shape_def m = *x;
  dyn_shape g;
  memset(&g, 0, sizeof g);
  g.kind = (dyn_shape_kind)(int)u[MDL_GU_KIND];
  g.radius = u[MDL_GU_RADIUS];
  g.half_length = u[MDL_GU_HALFLEN];
  g.half = v3_at(u + MDL_GU_HALF);
  g.normal = v3_at(u + MDL_GU_NORMAL);
  g.offset = u[MDL_GU_OFFSET];
  dyn_v3 pos = v3_at(u + MDL_GU_POS);
  dyn_quat rot =
      dyn_quat_make(u[MDL_GU_ROT], u[MDL_GU_ROT + 1], u[MDL_GU_ROT + 2], u[MDL_GU_ROT + 3]);
  x->material = (int)u[MDL_GU_MATERIAL];
  int pose_ok = agree_v3(pos, m.pos, AGREE) && agree_quat(rot, m.rot);
  /* the record's fields, MuJoCo's where they disagree (fields a kind does
   * not use are the record's: MuJoCo has none) */
  switch (g.kind) {
  case DYN_SHAPE_SPHERE:
  case DYN_SHAPE_CAPSULE:
    if (fabs(g.radius - m.geom.radius) > AGREE * g.radius) g.radius = m.geom.radius;
    if (g.kind == DYN_SHAPE_CAPSULE && g.half_length > 0.0 &&
        fabs(g.half_length - m.geom.half_length) > AGREE * (1.0 + g.half_length))
      g.half_length = m.geom.half_length;
    break;
  case DYN_SHAPE_CYLINDER:
    if (fabs(g.radius - m.geom.radius) > AGREE * g.radius) g.radius = m.geom.radius;
    if (fabs(g.half_length - m.geom.half_length) > AGREE * g.half_length)
      g.half_length = m.geom.half_length;
    break;
  case DYN_SHAPE_BOX:
  case DYN_SHAPE_ELLIPSOID:
    if (!agree_v3(g.half, m.geom.half, AGREE)) g.half = m.geom.half;
    break;
  case DYN_SHAPE_PLANE:
    if (!agree_v3(g.normal, m.geom.normal, AGREE) ||
        fabs(g.offset - m.geom.offset) > AGREE * (1.0 + fabs(m.geom.offset))) {
      g.normal = m.geom.normal;
      g.offset = m.geom.offset;
    }
    break;
  case DYN_SHAPE_HULL: {
    int s = (int)u[MDL_GU_INDEX], nv = (int)u[MDL_GU_NVERTS];
    dyn_v3 *v = nv >= 4 ? exact_hull(p->mj, s, nv) : NULL;
    if (v && hull_agrees(&m, pos, rot, v, nv)) {
      free(*verts);
      *verts = v;
      g.verts = v;
      g.nverts = nv;
      pose_ok = 1;
    } else {
      free(v);
      g.verts = m.geom.verts;
      g.nverts = m.geom.nverts;
      pose_ok = 0;
    }
    break;
  }
  case DYN_SHAPE_NONE: break;
  }
  x->geom = g;
  if (g.kind == DYN_SHAPE_NONE) { /* a site: the filter is the record's */
    x->contype = (uint32_t)u[MDL_GU_CONTYPE];
    x->conaffinity = (uint32_t)u[MDL_GU_CONAFFINITY];
  }
  if (pose_ok && g.kind != DYN_SHAPE_PLANE) {
    x->pos = pos;
    x->rot = rot;
  }
  return MDL_OK;
}

static mdl_err apply_shapes(mdl_map *p, int ns, const int *perm) {
  const mjModel *mj = p->mj;
  if ((mj->ngeom && mj->nuser_geom != MDL_GU_N) || (mj->nsite && mj->nuser_site != MDL_GU_N) ||
      p->ns != ns)
    return edited(p, "shapes");
  dyn_shape_def *nsh = calloc((size_t)ns + 1, sizeof *nsh);
  int *nelem = malloc(((size_t)ns + 1) * sizeof *nelem),
      *nsite = malloc(((size_t)ns + 1) * sizeof *nsite);
  dyn_v3 **nv = calloc((size_t)ns + 1, sizeof *nv);
  double *nmu = calloc((size_t)ns + 1, sizeof *nmu);
  mdl_err e = nsh && nelem && nsite && nv && nmu ? MDL_OK : mdl_nomem(p);
  for (int i = 0; e == MDL_OK && i < ns; i++) nelem[i] = -1;
  for (int i = 0; e == MDL_OK && i < ns; i++) {
    int el = p->shape_elem[i], site = p->shape_site[i];
    const mjtNum *u =
        site ? mj->site_user + (size_t)el * MDL_GU_N : mj->geom_user + (size_t)el * MDL_GU_N;
    int k = (int)u[MDL_GU_INDEX];
    char lab[96];
    mdl_mj_label(lab, sizeof lab, mj, site ? mjOBJ_SITE : mjOBJ_GEOM, el);
    if (u[MDL_GU_TAG] != MDL_FORMAT || k < 0 || k >= ns || nelem[k] >= 0 ||
        !same_kind(u, &p->shape[i], site)) {
      e = edited(p, lab);
      break;
    }
    nsh[k] = p->shape[i];
    nsh[k].body = perm[p->shape[i].body];
    nv[k] = p->verts[i];
    p->verts[i] = NULL;
    e = exact_shape(p, u, &nsh[k], &nv[k]);
    nelem[k] = el;
    nsite[k] = site;
    nmu[k] = p->shape_mu[i];
  }
  if (e != MDL_OK) {
    for (int k = 0; nv && k < ns; k++) free(nv[k]);
    free(nsh), free(nelem), free(nsite), free(nv), free(nmu);
    return e;
  }
  for (int i = 0; i < ns; i++) free(p->verts[i]);
  free(p->shape), free(p->shape_elem), free(p->shape_site), free(p->verts), free(p->shape_mu);
  p->shape = nsh, p->shape_elem = nelem, p->shape_site = nsite, p->verts = nv, p->shape_mu = nmu;
  return MDL_OK;
}

/* ---- materials --------------------------------------------------------------------- */

/* Material i's condim, torsional and rolling friction from its geoms (the
 * writer writes a material's mu_torsion and mu_rolling as friction[1] and
 * [2], and its condim 4, 6 or 1, on each geom: mjcf_write_body.c). */
static void condim_of_geoms(const mdl_map *p, int i, dyn_material *m) {
  for (int s = 0; s < p->ns; s++) {
    int g = p->shape_elem[s], cd = p->mj->geom_condim[g];
    if (p->shape_site[s] || p->shape[s].material != i) continue;
    m->mu_torsion = p->mj->geom_friction[3 * g + 1];
    m->mu_rolling = p->mj->geom_friction[3 * g + 2];
    if (cd >= 4 || (cd == 1 && m->mu != 0.0)) m->condim = cd;
    return;
  }
}

static mdl_err apply_materials(mdl_map *p, int nm) {
  dyn_material *mat = calloc((size_t)nm + 1, sizeof *mat);
  if (!mat) return mdl_nomem(p);
  mdl_err e = MDL_OK;
  for (int i = 0; e == MDL_OK && i < nm; i++) {
    char nm_[64];
    snprintf(nm_, sizeof nm_, MDL_PREFIX "material:%d", i);
    const mjtNum *x = numeric(p->mj, nm_, 2);
    if (!x) {
      e = edited(p, nm_);
      break;
    }
    mat[i] = dyn_material_default();
    text_into(p->mj, nm_, mat[i].name);
    mat[i].mu = x[0];
    mat[i].restitution = x[1];
    /* the friction of its geoms in the file: edited to one new value, that one */
    int seen = 0;
    double mu = x[0];
    for (int s = 0; s < p->ns; s++) {
      if (p->shape_site[s] || p->shape[s].material != i || p->shape_mu[s] == x[0]) continue;
      if (seen && p->shape_mu[s] != mu) {
        e = mdl_refuse(p,
                       "material %d '%s': its geoms have different frictions (%g, %g): "
                       "give each its own material, or remove lcplab's custom data",
                       i, mat[i].name, mu, p->shape_mu[s]);
        break;
      }
      seen = 1;
      mu = p->shape_mu[s];
    }
    mat[i].mu = mu;
    condim_of_geoms(p, i, &mat[i]);
  }
  for (int s = 0; e == MDL_OK && s < p->ns; s++)
    if (p->shape[s].material < DYN_MATERIAL_DEFAULT || p->shape[s].material >= nm)
      e = edited(p, "a shape's material");
  if (e != MDL_OK) {
    free(mat);
    return e;
  }
  free(p->mat);
  p->mat = mat;
  p->nm = nm;
  return MDL_OK;
}

/* ---- joints ------------------------------------------------------------------------ */

/* The mapped joint held by element (kind, id), or -1. */
static int mapped_joint(const mdl_map *p, int kind, int id) {
  for (int j = 0; j < p->nj; j++)
    if (p->jkey_kind[j] == kind && p->jkey_id[j] == id) return j;
  return -1;
}

/* Record r (MDL_J_*, n numbers) as a joint def, bodies in the model's
 * indices (a record of MDL_J_N_NOSPRING numbers has no spring). */
static dyn_joint_def joint_of_record(const mjtNum *r, int n) {
  dyn_joint_def x = dyn_joint_def_default();
  x.kind = (dyn_joint_kind)(int)r[MDL_J_KIND];
  x.a = (int)r[MDL_J_A];
  x.b = (int)r[MDL_J_B];
  x.anchor = v3_at(r + MDL_J_ANCHOR);
  x.axis1 = v3_at(r + MDL_J_AXIS1);
  x.axis2 = v3_at(r + MDL_J_AXIS2);
  for (int k = 0; k < DYN_JOINT_MAX_BASE; k++) {
    x.erp[k] = r[MDL_J_ERP + k];
    x.cfm[k] = r[MDL_J_CFM + k];
  }
  const mjtNum *L = r + MDL_J_LIMIT, *M = r + MDL_J_MOTOR;
  x.limit.enabled = L[0] != 0.0;
  x.limit.lo = L[1];
  x.limit.hi = L[2];
  x.limit.erp = L[3];
  x.limit.cfm = L[4];
  x.limit.restitution = L[5];
  x.motor.enabled = M[0] != 0.0;
  x.motor.target_vel = M[1];
  x.motor.max_force = M[2];
  x.motor.cfm = M[3];
  if (n >= MDL_J_N) {
    const mjtNum *S = r + MDL_J_SPRING;
    x.spring.enabled = S[0] != 0.0;
    x.spring.stiffness = S[1];
    x.spring.damping = S[2];
    x.spring.ref = S[3];
  }
  return x;
}

/* The geometry and range of x (the record) checked against the mapped m
 * (bodies in the model's indices): MuJoCo's where they disagree. */
static void refine_joint(dyn_joint_def *x, const dyn_joint_def *m, const dyn_joint_def *m2) {
  int swapped = m->a == x->b && m->b == x->a;
  double sg = swapped ? -1.0 : 1.0;
  if (x->kind != DYN_JOINT_FIXED && !agree_v3(x->anchor, m->anchor, AGREE)) x->anchor = m->anchor;
  dyn_v3 s1 = dyn_v3_normalize(x->axis1), s2 = dyn_v3_normalize(x->axis2);
  if (m2) { /* a hinge closing a loop: two connects a unit apart on its axis */
    dyn_v3 ax = dyn_v3_sub(m2->anchor, m->anchor);
    if (!agree_v3(s1, ax, AGREE)) x->axis1 = ax;
    return;
  }
  switch (x->kind) {
  case DYN_JOINT_HINGE:
  case DYN_JOINT_SLIDER:
    if (!agree_v3(dyn_v3_scale(s1, sg), m->axis1, AGREE)) x->axis1 = dyn_v3_scale(m->axis1, sg);
    break;
  case DYN_JOINT_HINGE2:
  case DYN_JOINT_UNIVERSAL: {
    dyn_v3 e1 = swapped ? dyn_v3_neg(s2) : s1, e2 = swapped ? dyn_v3_neg(s1) : s2;
    if (!agree_v3(e1, m->axis1, AGREE) || !agree_v3(e2, m->axis2, AGREE)) {
      x->axis1 = swapped ? dyn_v3_neg(m->axis2) : m->axis1;
      x->axis2 = swapped ? dyn_v3_neg(m->axis1) : m->axis2;
    }
    break;
  }
  default: break;
  }
  /* the range is MuJoCo's; its softness and restitution the record's */
  if (x->kind == DYN_JOINT_HINGE || x->kind == DYN_JOINT_SLIDER || x->kind == DYN_JOINT_HINGE2) {
    int same = m->limit.enabled == x->limit.enabled &&
               (!x->limit.enabled || (m->limit.lo == x->limit.lo && m->limit.hi == x->limit.hi));
    if (!same) {
      x->limit.enabled = m->limit.enabled;
      x->limit.lo = m->limit.lo;
      x->limit.hi = m->limit.hi;
    }
  }
}

/* The mapped joints record i claims (mj1, mj2; -1 none), checked. */
static int claim(const mdl_map *p, const dyn_joint_def *x, int as, int elem, int *mj1, int *mj2) {
  *mj1 = *mj2 = -1;
  int key = as == MDL_AS_TREE ? MDL_KEY_TREE : MDL_KEY_EQ;
  *mj1 = mapped_joint(p, key, elem);
  if (as == MDL_AS_CONNECT2) *mj2 = mapped_joint(p, key, elem + 1);
  if (*mj1 < 0) /* only a fixed joint to the world or a static body has no element */
    return as == MDL_AS_TREE && x->kind == DYN_JOINT_FIXED;
  const dyn_joint_def *m = &p->joint[*mj1];
  int same = (m->a == x->a && m->b == x->b) || (m->a == x->b && m->b == x->a);
  int kind_ok;
  switch (as) {
  case MDL_AS_TREE:
    kind_ok = m->kind == x->kind || (m->kind == DYN_JOINT_HINGE2 && x->kind == DYN_JOINT_UNIVERSAL);
    break;
  case MDL_AS_CONNECT: kind_ok = m->kind == DYN_JOINT_BALL && x->kind == DYN_JOINT_BALL; break;
  case MDL_AS_WELD: kind_ok = m->kind == DYN_JOINT_FIXED && x->kind == DYN_JOINT_FIXED; break;
  case MDL_AS_CONNECT2:
    kind_ok = *mj2 >= 0 && m->kind == DYN_JOINT_BALL && p->joint[*mj2].kind == DYN_JOINT_BALL &&
              x->kind == DYN_JOINT_HINGE;
    break;
  default: kind_ok = 0;
  }
  return same && kind_ok;
}

static mdl_err apply_joints(mdl_map *p, int nj) {
  dyn_joint_def *nj_ = calloc((size_t)nj + 1, sizeof *nj_);
  int *kk = malloc(((size_t)nj + 1) * sizeof *kk), *ki = malloc(((size_t)nj + 1) * sizeof *ki);
  char *claimed = calloc((size_t)p->nj + 1, 1);
  mdl_err e = nj_ && kk && ki && claimed ? MDL_OK : mdl_nomem(p);
  /* the mapped joints' bodies in the model's indices (apply_bodies remapped
   * lc_body, not the joints) */
  for (int i = 0; e == MDL_OK && i < nj; i++) {
    char nm[64];
    snprintf(nm, sizeof nm, MDL_PREFIX "joint:%d", i);
    int n = MDL_J_N;
    const mjtNum *r = numeric(p->mj, nm, n);
    if (!r) r = numeric(p->mj, nm, n = MDL_J_N_NOSPRING);
    if (!r) {
      e = edited(p, nm);
      break;
    }
    dyn_joint_def x = joint_of_record(r, n);
    text_into(p->mj, nm, x.name);
    int as = (int)r[MDL_J_AS], elem = (int)r[MDL_J_ELEM], m1, m2;
    if (!claim(p, &x, as, elem, &m1, &m2) || (m1 >= 0 && claimed[m1]) || (m2 >= 0 && claimed[m2])) {
      e = edited(p, nm);
      break;
    }
    if (m1 >= 0) {
      claimed[m1] = 1;
      refine_joint(&x, &p->joint[m1], m2 >= 0 ? &p->joint[m2] : NULL);
    }
    if (m2 >= 0) claimed[m2] = 1;
    nj_[i] = x;
    kk[i] = as == MDL_AS_TREE ? MDL_KEY_TREE : MDL_KEY_EQ;
    ki[i] = elem;
  }
  for (int j = 0; e == MDL_OK && j < p->nj; j++)
    if (!claimed[j]) e = edited(p, p->jkey_kind[j] == MDL_KEY_EQ ? "an equality" : "a joint");
  free(claimed);
  if (e != MDL_OK) {
    free(nj_), free(kk), free(ki);
    return e;
  }
  free(p->joint), free(p->jkey_kind), free(p->jkey_id);
  p->joint = nj_, p->jkey_kind = kk, p->jkey_id = ki, p->nj = nj;
  return MDL_OK;
}

/* ---- the whole ----------------------------------------------------------------------- */

mdl_err mdl_lcplab_apply(mdl_map *p) {
  const mjtNum *f = numeric(p->mj, MDL_PREFIX "format", MDL_F_N);
  if (!f || f[MDL_F_VERSION] != MDL_FORMAT)
    return mdl_refuse(p, "custom lcplab:format: not the format %d this reader knows", MDL_FORMAT);
  const mjtNum *o = numeric(p->mj, MDL_PREFIX "options", MDL_O_N);
  if (!o) return edited(p, "lcplab:options");
  int nb = (int)f[MDL_F_BODIES];
  int *perm = malloc(((size_t)p->nb + 1) * sizeof *perm);
  if (!perm) return mdl_nomem(p);
  /* the mapped joints' body indices follow the permutation */
  mdl_err e = apply_bodies(p, nb, perm);
  for (int j = 0; e == MDL_OK && j < p->nj; j++) {
    if (p->joint[j].a >= 0) p->joint[j].a = perm[p->joint[j].a];
    if (p->joint[j].b >= 0) p->joint[j].b = perm[p->joint[j].b];
  }
  for (int k = 0; e == MDL_OK && k < 2 * p->nex; k++) p->ex[k] = perm[p->ex[k]];
  if (e == MDL_OK) e = apply_shapes(p, (int)f[MDL_F_SHAPES], perm);
  free(perm);
  if (e == MDL_OK) e = apply_materials(p, (int)f[MDL_F_MATERIALS]);
  if (e == MDL_OK) e = apply_joints(p, (int)f[MDL_F_JOINTS]);
  if (e != MDL_OK) return e;
  for (int k = 0; k < p->nex; k++) /* dyn_model_exclude takes either order */
    if (p->ex[2 * k] > p->ex[2 * k + 1]) {
      int t = p->ex[2 * k];
      p->ex[2 * k] = p->ex[2 * k + 1];
      p->ex[2 * k + 1] = t;
    }
  p->opt.rest_threshold = o[MDL_O_REST_THRESHOLD];
  p->opt.rest_threshold_steps = o[MDL_O_REST_STEPS];
  p->opt.steps = (long)o[MDL_O_STEPS];
  p->opt.duration = o[MDL_O_DURATION];
  return MDL_OK;
}
