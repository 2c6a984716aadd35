/*
 * mjcf_read_map.c -- the compiled mjModel's bodies, shapes, materials,
 * excluded pairs and options as scene-model records (mjcf_read.h; the
 * table in docs/models.md, "The mapping").
 *
 *   body     each MuJoCo body but the world body is a body: static when
 *            welded to the world (body_weldid 0: its pose is the body
 *            frame's, xpos and xquat), else dynamic, with body_mass and the
 *            inertia about the centre of mass, I_b = R diag(body_inertia)
 *            R^T (R of body_iquat, the principal axes in the body frame),
 *            at r = xipos (lcplab's body frame has its origin at the centre
 *            of mass) and q = xquat; initial velocities zero (qvel0).  The
 *            world body becomes a static body named "worldbody" when it holds
 *            geoms or sites.
 *   shape    each geom (then each site) of a body, at its pose in the
 *            body's frame (geom_pos less body_ipos, geom_quat): sphere,
 *            capsule (radius, half length), box (half sizes), plane (world
 *            normal = the geom frame's z, offset = n . geom_xpos; identity
 *            pose), mesh (its vertices in the geom frame, mesh_vert: the
 *            convex hull MuJoCo collides too), site (a shape of kind none);
 *            contype and conaffinity as they are; margin and gap as they
 *            are (MuJoCo 2.2.2's: the pair's the larger of its two
 *            geoms'; negative ones refused in mjcf_read.c).
 *   material one per distinct friction and condim, in the order met
 *            (geom_material: MuJoCo's pairing rule), restitution 0.
 *   exclude  each <exclude> pair (those the writer names "lcplab:joint:J"
 *            belong to a joint and are left out).
 *   option   gravity; the timestep goes to mdl_read_info.
 */
#include "mjcf_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_name(char *dst, const char *src) { snprintf(dst, DYN_NAME_MAX, "%s", src); }

/* R diag(d) R^T with R the rotation of q. */
static dyn_m3 inertia_from_principal(dyn_quat q, const mjtNum *d) {
  dyn_m3 R = dyn_quat_to_m3(q), I;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double s = 0.0;
      for (int k = 0; k < 3; k++) s += R.m[3 * i + k] * d[k] * R.m[3 * j + k];
      I.m[3 * i + j] = s;
    }
  return I;
}

mdl_err mdl_map_bodies(mdl_map *p) {
  const mjModel *mj = p->mj;
  const mjData *d = p->d;
  int world = mj->body_geomnum[0] > 0;
  for (int s = 0; !world && s < mj->nsite; s++) world = mj->site_bodyid[s] == 0;
  /* room for the intermediate bodies of joint chains (mjcf_read_joints.c) */
  size_t cap = (size_t)mj->nbody + (size_t)mj->njnt + 1;
  p->lc_body = malloc((size_t)mj->nbody * sizeof *p->lc_body);
  p->body = calloc(cap, sizeof *p->body);
  p->body_elem = malloc(cap * sizeof *p->body_elem);
  if (!p->lc_body || !p->body || !p->body_elem) return mdl_nomem(p);
  p->nb = 0;
  for (int b = 0; b < mj->nbody; b++) {
    if (b == 0 && !world) {
      p->lc_body[0] = -1;
      continue;
    }
    if (strlen(mdl_mj_name(mj, mjOBJ_BODY, b)) >= DYN_NAME_MAX) {
      char lab[96];
      mdl_mj_label(lab, sizeof lab, mj, mjOBJ_BODY, b);
      return mdl_refuse(p, "%.60s...: names are at most %d characters", lab, DYN_NAME_MAX - 1);
    }
    dyn_body_def *x = &p->body[p->nb];
    *x = dyn_body_def_default();
    /* MJCF reserves "world" for its world body: the static body holding
     * its geoms is "worldbody", so that the model can be written again */
    set_name(x->name, b == 0 ? "worldbody" : mdl_mj_name(mj, mjOBJ_BODY, b));
    x->q = mdl_quat(d->xquat + 4 * b);
    if (mj->body_weldid[b] == 0) {
      x->is_static = 1;
      x->r = mdl_v3(d->xpos + 3 * b);
    } else {
      x->mass = mj->body_mass[b];
      x->r = mdl_v3(d->xipos + 3 * b);
      x->I_b = inertia_from_principal(mdl_quat(mj->body_iquat + 4 * b), mj->body_inertia + 3 * b);
    }
    p->body_elem[p->nb] = b;
    p->lc_body[b] = p->nb++;
  }
  return MDL_OK;
}

/* The shape of geom g into x (its body, kind, sizes, pose, filter). */
static mdl_err map_geom(mdl_map *p, int g, dyn_shape_def *x, dyn_v3 **verts) {
  const mjModel *mj = p->mj;
  int b = mj->geom_bodyid[g];
  const mjtNum *sz = mj->geom_size + 3 * g;
  x->body = p->lc_body[b];
  x->pos = mdl_v3(mj->geom_pos + 3 * g);
  if (!p->body[x->body].is_static) x->pos = dyn_v3_sub(x->pos, mdl_v3(mj->body_ipos + 3 * b));
  x->rot = mdl_quat(mj->geom_quat + 4 * g);
  x->contype = (uint32_t)mj->geom_contype[g];
  x->conaffinity = (uint32_t)mj->geom_conaffinity[g];
  if (mj->geom_margin[g] >= 0.0 && mj->geom_gap[g] >= 0.0) { /* else refused (mjcf_read.c) */
    x->margin = mj->geom_margin[g];
    x->gap = mj->geom_gap[g];
  }
  switch (mj->geom_type[g]) {
  case mjGEOM_SPHERE:
    x->geom.kind = DYN_SHAPE_SPHERE;
    x->geom.radius = sz[0];
    break;
  case mjGEOM_CAPSULE:
    x->geom.kind = DYN_SHAPE_CAPSULE;
    x->geom.radius = sz[0];
    x->geom.half_length = sz[1];
    break;
  case mjGEOM_BOX:
    x->geom.kind = DYN_SHAPE_BOX;
    x->geom.half = dyn_v3_make(sz[0], sz[1], sz[2]);
    break;
  case mjGEOM_PLANE: {
    const mjtNum *R = p->d->geom_xmat + 9 * g;
    dyn_v3 n = dyn_v3_make(R[2], R[5], R[8]);
    x->geom.kind = DYN_SHAPE_PLANE;
    x->geom.normal = n;
    x->geom.offset = dyn_v3_dot(n, mdl_v3(p->d->geom_xpos + 3 * g));
    x->pos = dyn_v3_make(0.0, 0.0, 0.0);
    x->rot = dyn_quat_identity();
    break;
  }
  case mjGEOM_MESH: {
    int k = mj->geom_dataid[g], n = mj->mesh_vertnum[k];
    const float *v = mj->mesh_vert + 3 * mj->mesh_vertadr[k];
    *verts = malloc(((size_t)n + 1) * sizeof **verts);
    if (!*verts) return mdl_nomem(p);
    for (int i = 0; i < n; i++) (*verts)[i] = dyn_v3_make(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    x->geom.kind = DYN_SHAPE_HULL;
    x->geom.verts = *verts;
    x->geom.nverts = n;
    break;
  }
  case mjGEOM_CYLINDER: /* exact: its support function (libdynamics' shape_support.c) */
    x->geom.kind = DYN_SHAPE_CYLINDER;
    x->geom.radius = sz[0];
    x->geom.half_length = sz[1];
    break;
  case mjGEOM_ELLIPSOID:
    x->geom.kind = DYN_SHAPE_ELLIPSOID;
    x->geom.half = dyn_v3_make(sz[0], sz[1], sz[2]);
    break;
  default: break; /* refused by mdl_map_features */
  }
  return MDL_OK;
}

/* 1 if a geom of the file has a condim of at least cd. */
static int any_condim(const mjModel *mj, int cd) {
  for (int g = 0; g < mj->ngeom; g++)
    if (mj->geom_condim[g] >= cd) return 1;
  return 0;
}

/* Geom g's material: MuJoCo's pairing rule (mj_contactParam: the larger
 * condim of the two geoms, the larger of each friction component) on
 * dyn_material's fields (dyn_material_combine): mu = friction[0], condim
 * as compiled, mu_torsion = friction[1] in a file with torsional friction
 * (where a geom of condim 3 or 1 meets one of condim 4, its friction[1]
 * counts too), else 0; mu_rolling = friction[2] in a file with rolling
 * friction (condim 6), else 0.  Condim 3, and condim 1 without friction,
 * are lcplab's own materials' 0 (the same contacts: a frictionless geom
 * takes its partner's friction as MuJoCo does).  A condim above what the
 * worlds simulate (mdl_condim_kept; approximate only, refuse_condim) is
 * 3, and its torsion and rolling 0. */
static dyn_material geom_material(const mdl_map *p, int g) {
  const mjModel *mj = p->mj;
  dyn_material m = dyn_material_default();
  m.restitution = 0.0;
  m.mu = mj->geom_friction[3 * g];
  int kept = mdl_condim_kept(&p->opt_read), cd = mj->geom_condim[g];
  if (cd > kept) cd = 3;
  m.condim = cd == 3 || (cd == 1 && m.mu == 0.0) ? 0 : cd;
  m.mu_torsion = kept >= 4 && any_condim(mj, 4) ? mj->geom_friction[3 * g + 1] : 0.0;
  m.mu_rolling = kept >= 6 && any_condim(mj, 6) ? mj->geom_friction[3 * g + 2] : 0.0;
  return m;
}

mdl_err mdl_map_shapes(mdl_map *p) {
  const mjModel *mj = p->mj;
  size_t n = (size_t)mj->ngeom + (size_t)mj->nsite + 1;
  p->shape = calloc(n, sizeof *p->shape);
  p->shape_elem = malloc(n * sizeof *p->shape_elem);
  p->shape_site = malloc(n * sizeof *p->shape_site);
  p->verts = calloc(n, sizeof *p->verts);
  if (!p->shape || !p->shape_elem || !p->shape_site || !p->verts) return mdl_nomem(p);
  for (int g = 0; g < mj->ngeom + mj->nsite; g++) {
    int site = g >= mj->ngeom, e = site ? g - mj->ngeom : g;
    mjtObj type = site ? mjOBJ_SITE : mjOBJ_GEOM;
    dyn_shape_def *x = &p->shape[p->ns];
    *x = dyn_shape_def_default();
    if (strlen(mdl_mj_name(mj, type, e)) >= DYN_NAME_MAX) {
      char lab[96];
      mdl_mj_label(lab, sizeof lab, mj, type, e);
      return mdl_refuse(p, "%.60s...: names are at most %d characters", lab, DYN_NAME_MAX - 1);
    }
    set_name(x->name, mdl_mj_name(mj, type, e));
    p->shape_elem[p->ns] = e;
    p->shape_site[p->ns] = site;
    if (site) {
      int b = mj->site_bodyid[e];
      x->body = p->lc_body[b];
      x->pos = mdl_v3(mj->site_pos + 3 * e);
      if (!p->body[x->body].is_static) x->pos = dyn_v3_sub(x->pos, mdl_v3(mj->body_ipos + 3 * b));
      x->rot = mdl_quat(mj->site_quat + 4 * e);
      x->geom.kind = DYN_SHAPE_NONE;
      x->contype = x->conaffinity = 0;
    } else {
      mdl_err r = map_geom(p, e, x, &p->verts[p->ns]);
      if (r != MDL_OK) return r;
    }
    p->ns++;
  }
  /* each geom's friction as MuJoCo compiled it, to its material */
  for (int s = 0; s < p->ns; s++) {
    if (p->shape_site[s]) {
      p->shape[s].material = DYN_MATERIAL_DEFAULT;
      continue;
    }
    dyn_material m = geom_material(p, p->shape_elem[s]);
    int k = 0;
    while (k < p->nm && !(p->mat[k].mu == m.mu && p->mat[k].mu_torsion == m.mu_torsion &&
                          p->mat[k].mu_rolling == m.mu_rolling && p->mat[k].condim == m.condim))
      k++;
    if (k == p->nm) p->mat[p->nm++] = m;
    p->shape[s].material = k;
    p->shape_mu[s] = m.mu;
  }
  return MDL_OK;
}

mdl_err mdl_map_materials(mdl_map *p) {
  size_t n = (size_t)p->mj->ngeom + (size_t)p->mj->nsite + 1;
  p->mat = calloc(n, sizeof *p->mat);
  p->shape_mu = calloc(n, sizeof *p->shape_mu);
  if (!p->mat || !p->shape_mu) return mdl_nomem(p);
  p->nm = 0; /* filled with the shapes (mdl_map_shapes) */
  return MDL_OK;
}

mdl_err mdl_map_exclusions(mdl_map *p) {
  const mjModel *mj = p->mj;
  p->ex = malloc(2 * ((size_t)mj->nexclude + 1) * sizeof *p->ex);
  if (!p->ex) return mdl_nomem(p);
  for (int k = 0; k < mj->nexclude; k++) {
    if (strncmp(mdl_mj_name(mj, mjOBJ_EXCLUDE, k), MDL_PREFIX "joint:", 13) == 0) continue;
    int sig = mj->exclude_signature[k];
    int b1 = (sig >> 16) - 1, b2 = (sig & 0xFFFF) - 1;
    if (b1 < 0 || b2 < 0 || b1 >= mj->nbody || b2 >= mj->nbody) continue;
    int l1 = p->lc_body[b1], l2 = p->lc_body[b2];
    if (l1 < 0 || l2 < 0 || l1 == l2) continue; /* the world without geoms touches nothing */
    p->ex[2 * p->nex] = l1 < l2 ? l1 : l2;
    p->ex[2 * p->nex + 1] = l1 < l2 ? l2 : l1;
    p->nex++;
  }
  return MDL_OK;
}

void mdl_map_options(mdl_map *p) {
  p->opt = dyn_model_options_default();
  p->opt.gravity = mdl_v3(p->mj->opt.gravity);
}
