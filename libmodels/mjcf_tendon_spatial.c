/*
 * mjcf_tendon_spatial.c -- MuJoCo's spatial tendons and the muscles and
 * motors on them (docs/models.md, "The mapping"; issue 80, item 5): a
 * spatial tendon's sites and wrap geoms (spheres, cylinders, each with an
 * optional side site) become the path of each actuator on it
 * (dyn_actuator_def.path, in the bodies' frames at qpos0), whose length,
 * moment arms and force libdynamics computes each step
 * (libdynamics/tendon_spatial.c, reduced coordinates).  A muscle's
 * parameters are MuJoCo's compiled ones (gainprm, actuator_lengthrange,
 * actuator_acc0).
 *
 * Refused by name: a pulley, a path longer than DYN_TENDON_MAX_PATH, a
 * spatial tendon's limit, stiffness, damping or friction loss, a spatial
 * tendon in maximal coordinates; a muscle on a joint or fixed tendon, or
 * with other than MuJoCo's muscle gain, bias and dynamics.
 */
#include "mjcf_read.h"

#include <string.h>

int mdl_tendon_is_spatial(const mjModel *mj, int t) {
  return mj->tendon_num[t] > 0 && mj->wrap_type[mj->tendon_adr[t]] != mjWRAP_JOINT;
}

const char *mdl_spatial_unmapped(const mjModel *mj, int t, int reduced) {
  int a = mj->tendon_adr[t], n = mj->tendon_num[t];
  for (int k = a; k < a + n; k++)
    if (mj->wrap_type[k] == mjWRAP_PULLEY) return "a spatial tendon's pulley is not simulated";
  if (n > DYN_TENDON_MAX_PATH) return "a spatial tendon of more than 16 elements is not simulated";
  if (mj->tendon_limited[t])
    return "a spatial tendon's limit (a row on its length) is not simulated";
  if (mj->tendon_stiffness[t] != 0 || mj->tendon_damping[t] != 0 || mj->tendon_frictionloss[t] != 0)
    return "a spatial tendon's stiffness, damping or frictionloss is not simulated";
  if (!reduced)
    return "a spatial tendon (its sites and wrap geoms) is simulated in reduced coordinates only";
  return NULL;
}

/* What keeps muscle u (MuJoCo's muscle bias) from being mapped, or NULL. */
const char *mdl_muscle_unmapped(const mjModel *mj, int u, int reduced) {
  int t = mj->actuator_trnid[2 * u];
  if (mj->actuator_trntype[u] != mjTRN_TENDON || !mdl_tendon_is_spatial(mj, t))
    return "a muscle on a joint or fixed tendon is not simulated";
  if (mj->actuator_gaintype[u] != mjGAIN_MUSCLE || mj->actuator_dyntype[u] != mjDYN_MUSCLE)
    return "a muscle bias with another gain or dynamics is not simulated";
  return mdl_spatial_unmapped(mj, t, reduced);
}

/* A point of MuJoCo body b at world x, in its lcplab body's frame (*body;
 * -1: the world, x itself). */
static dyn_v3 in_body(const mdl_map *p, int b, const mjtNum *x, int *body) {
  *body = p->lc_body[b];
  if (*body < 0) return mdl_v3(x);
  const dyn_body_def *d = &p->body[*body];
  return dyn_quat_rotate_inv(dyn_quat_normalize(d->q), dyn_v3_sub(mdl_v3(x), d->r));
}

/* Wrap element k of a path (a site or a geom) into e. */
static void path_elem(const mdl_map *p, int k, dyn_path_elem *e) {
  const mjModel *mj = p->mj;
  int id = mj->wrap_objid[k];
  memset(e, 0, sizeof *e);
  e->rot = dyn_quat_identity();
  if (mj->wrap_type[k] == mjWRAP_SITE) {
    e->kind = DYN_PATH_SITE;
    e->pos = in_body(p, mj->site_bodyid[id], p->d->site_xpos + 3 * id, &e->body);
    return;
  }
  int b = mj->geom_bodyid[id], side = (int)mj->wrap_prm[k];
  e->kind = mj->wrap_type[k] == mjWRAP_SPHERE ? DYN_PATH_SPHERE : DYN_PATH_CYLINDER;
  e->pos = in_body(p, b, p->d->geom_xpos + 3 * id, &e->body);
  e->radius = mj->geom_size[3 * id];
  dyn_quat gw = dyn_quat_mul(mdl_quat(p->d->xquat + 4 * b), mdl_quat(mj->geom_quat + 4 * id));
  e->rot =
      e->body < 0 ? gw : dyn_quat_mul(dyn_quat_conj(dyn_quat_normalize(p->body[e->body].q)), gw);
  if (side >= 0) {
    e->side = 1;
    e->side_pos = in_body(p, mj->site_bodyid[side], p->d->site_xpos + 3 * side, &e->side_body);
  }
}

void mdl_spatial_actuator(const mdl_map *p, int u, dyn_actuator_def *a) {
  const mjModel *mj = p->mj;
  int t = mj->actuator_trnid[2 * u];
  if (mj->actuator_trntype[u] != mjTRN_TENDON || !mdl_tendon_is_spatial(mj, t) ||
      mdl_spatial_unmapped(mj, t, p->opt_read.reduced) || mdl_lcplab_present(mj))
    return;
  if (mj->actuator_biastype[u] == mjBIAS_MUSCLE
          ? mdl_muscle_unmapped(mj, u, p->opt_read.reduced) != NULL
          : mj->actuator_dyntype[u] != mjDYN_NONE || mj->actuator_biastype[u] != mjBIAS_NONE ||
                mj->actuator_gaintype[u] != mjGAIN_FIXED)
    return;
  a->npath = mj->tendon_num[t];
  for (int k = 0; k < a->npath; k++) path_elem(p, mj->tendon_adr[t] + k, &a->path[k]);
  if (mj->actuator_biastype[u] != mjBIAS_MUSCLE) return;
  const mjtNum *g = mj->actuator_gainprm + mjNGAIN * u;
  a->muscle = 1;
  dyn_muscle_prm m = { .range = { g[0], g[1] },
                       .force = g[2],
                       .scale = g[3],
                       .lmin = g[4],
                       .lmax = g[5],
                       .vmax = g[6],
                       .fpmax = g[7],
                       .fvmax = g[8] };
  m.lengthrange[0] = mj->actuator_lengthrange[2 * u];
  m.lengthrange[1] = mj->actuator_lengthrange[2 * u + 1];
  m.acc0 = mj->actuator_acc0[u];
  m.tau_act = mj->actuator_dynprm[mjNDYN * u], m.tau_deact = mj->actuator_dynprm[mjNDYN * u + 1];
  m.act_limited = mj->actuator_actlimited[u];
  m.act_lo = mj->actuator_actrange[2 * u], m.act_hi = mj->actuator_actrange[2 * u + 1];
  a->mus = m;
}
