/*
 * mjcf_actuators.c -- MuJoCo's actuators (docs/models.md,
 * "The mapping"; issue 80, item 5c): an actuator's force is
 *     force = gain ctrl + b0 + b1 L + b2 V   (mjBIAS_AFFINE; mjBIAS_NONE: 0),
 * L = gear q and V = gear dq/dt its length and velocity through a joint
 * transmission on a hinge or slide, and the joint feels gear times it:
 *     tau = gear b0 + (b1 gear^2) q + (b2 gear^2) dq/dt.
 * That is a joint spring of stiffness -b1 gear^2 at rest at q = -b0 /
 * (b1 gear) and a damper of -b2 gear^2 (a position servo's kp, a velocity
 * servo's kv): mapped onto the joint's spring (dyn_joint_def.spring,
 * added to the file's own stiffness and damping, the rest points weighted
 * by stiffness), exact in both representations.  A motor's bias is none.
 * The control's part, gear gain ctrl (ctrl 0 unless set: dyn_world_set_ctrl),
 * is each actuator's record of the model (mdl_actuator_def, dyn_actuator_def:
 * its joint, gear, constant gain, control and force ranges), a constant
 * generalized force the world adds (reduced coordinates).
 *
 * A motor or MuJoCo's muscle on a spatial tendon: mjcf_tendon_spatial.c.
 * Refused by name (exit 2 from the program; --approximate drops them):
 * any other transmission (slider-crank: cranksite, slidersite,
 * cranklength, outside reduced coordinates or with a velocity bias; a
 * servo on a tendon; site; body), activation dynamics (an integrator, a
 * filter; a muscle other than on a spatial tendon), a force
 * limit on a biased actuator (a clamped spring is not linear), a constant
 * bias without a stiffness, a servo on a ball or free joint.
 */
#include "mjcf_read.h"

#include <stdio.h>
#include <string.h>

/* 1 if actuator u acts on its joint as a spring-damper at zero control */
static int affine_on_joint(const mjModel *mj, int u) {
  const mjtNum *b = mj->actuator_biasprm + mjNBIAS * u;
  return mj->actuator_biastype[u] == mjBIAS_AFFINE && (b[0] != 0 || b[1] != 0 || b[2] != 0);
}

/* What keeps slider-crank actuator u from being mapped (dyn_rm_crank), or
 * NULL: reduced coordinates, no activation dynamics, a constant gain, a
 * bias without a velocity term, no force limit, a crank site on a moving
 * body. */
static const char *crank_unmapped(const mjModel *mj, int u, int reduced) {
  const mjtNum *g = mj->actuator_gainprm + mjNGAIN * u, *b = mj->actuator_biasprm + mjNBIAS * u;
  if (!reduced)
    return "a slider-crank transmission (cranksite, slidersite, cranklength) is simulated in "
           "reduced coordinates only";
  if (mj->actuator_dyntype[u] != mjDYN_NONE || mj->actuator_forcelimited[u] ||
      mj->actuator_biastype[u] == mjBIAS_MUSCLE ||
      (mj->actuator_biastype[u] == mjBIAS_AFFINE && b[2] != 0) ||
      (mj->actuator_gaintype[u] != mjGAIN_FIXED &&
       !(mj->actuator_gaintype[u] == mjGAIN_AFFINE && g[1] == 0 && g[2] == 0)))
    return "a slider-crank with activation dynamics, a force limit, a velocity bias or a "
           "gain other than a constant is not simulated";
  if (mj->body_weldid[mj->site_bodyid[mj->actuator_trnid[2 * u]]] == 0)
    return "a slider-crank whose crank site does not move is not simulated";
  return NULL;
}

/* What keeps biased actuator u (affine bias) from being a joint spring, or NULL. */
static const char *unmapped(const mjModel *mj, int u) {
  int t = mj->actuator_trntype[u];
  if (t == mjTRN_SLIDERCRANK)
    return "a slider-crank transmission (cranksite, slidersite, cranklength) is not simulated";
  if (t == mjTRN_TENDON)
    return "a servo or activation dynamics on a tendon (a force coupling its joints) is not "
           "simulated";
  if (t == mjTRN_SITE || t == mjTRN_BODY) return "a site or body transmission is not simulated";
  if (t != mjTRN_JOINT && t != mjTRN_JOINTINPARENT) return "its transmission is not simulated";
  int jt = mj->jnt_type[mj->actuator_trnid[2 * u]];
  if (jt != mjJNT_HINGE && jt != mjJNT_SLIDE)
    return "a servo on a ball or free joint is not simulated";
  if (mj->actuator_dyntype[u] != mjDYN_NONE)
    return "activation dynamics (an integrator, a filter, a muscle) are not simulated";
  if (mj->actuator_forcelimited[u])
    return "a servo's force limit (forcerange: a clamped spring) is not simulated";
  const mjtNum *b = mj->actuator_biasprm + mjNBIAS * u;
  if (b[0] != 0 && b[1] == 0) return "a constant force at zero control is not simulated";
  return NULL;
}

/* What keeps tendon t from being a fixed tendon lcplab maps (joints only,
 * hinges and slides, at most DYN_ACTUATOR_MAX_JOINTS, no friction; a
 * limit, spring or damper in reduced coordinates only), or NULL. */
static const char *tendon_unmapped(const mjModel *mj, int t, int reduced) {
  int a = mj->tendon_adr[t], n = mj->tendon_num[t];
  if (mdl_tendon_is_spatial(mj, t)) return mdl_spatial_unmapped(mj, t, reduced);
  for (int k = a; k < a + n; k++) {
    int jt = mj->jnt_type[mj->wrap_objid[k]];
    if (jt != mjJNT_HINGE && jt != mjJNT_SLIDE)
      return "a fixed tendon on a ball or free joint is not simulated";
  }
  if (n > DYN_ACTUATOR_MAX_JOINTS) return "a fixed tendon of more than 8 joints is not simulated";
  if (mj->tendon_frictionloss[t] != 0)
    return "a fixed tendon's frictionloss (a friction coupling its joints) is not simulated";
  if (!reduced &&
      (mj->tendon_limited[t] || mj->tendon_stiffness[t] != 0 || mj->tendon_damping[t] != 0))
    return "a fixed tendon's limit, stiffness and damping (a row and forces in joint space) are "
           "simulated in reduced coordinates only";
  return NULL;
}

mdl_err mdl_map_tendons(mdl_map *p) {
  const mjModel *mj = p->mj;
  char lab[96];
  for (int t = 0; t < mj->ntendon; t++) {
    const char *why = tendon_unmapped(mj, t, p->opt_read.reduced);
    if (!why) continue;
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_TENDON, t);
    mdl_err e = mdl_approx(p, "drop it with the actuators on it", "%s: %s", lab, why);
    if (e != MDL_OK) return e;
  }
  return MDL_OK;
}

mdl_err mdl_map_actuators(mdl_map *p) {
  const mjModel *mj = p->mj;
  char lab[96];
  for (int u = 0; u < mj->nu; u++) {
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_ACTUATOR, u);
    const char *why = NULL;
    if (mj->actuator_trntype[u] == mjTRN_SLIDERCRANK)
      why = crank_unmapped(mj, u, p->opt_read.reduced);
    else if (mj->actuator_biastype[u] == mjBIAS_MUSCLE)
      why = mdl_muscle_unmapped(mj, u, p->opt_read.reduced);
    else if (mj->actuator_dyntype[u] != mjDYN_NONE && mj->actuator_trntype[u] != mjTRN_JOINT)
      why = unmapped(mj, u);
    else if (affine_on_joint(mj, u))
      why = unmapped(mj, u);
    if (why) {
      mdl_err e = mdl_approx(p, "drop it", "%s: %s", lab, why);
      if (e != MDL_OK) return e;
    }
  }
  p->nact = mj->nu;
  if (mj->nu > 0) {
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_ACTUATOR, 0);
    mdl_note(p,
             "%d actuator%s (%s%s) at zero control unless ctrl is set (servos on joints: "
             "springs)",
             mj->nu, mj->nu > 1 ? "s" : "", lab, mj->nu > 1 ? ", ..." : "");
  }
  return MDL_OK;
}

/* 1 if a control drives actuator u through its hinge or slide, or its
 * mapped fixed tendon. */
static int driven(const mdl_map *p, int u) {
  const mjModel *mj = p->mj;
  int t = mj->actuator_trntype[u], id = mj->actuator_trnid[2 * u];
  if (t == mjTRN_SLIDERCRANK) return 0; /* crank_of */
  if (mj->actuator_dyntype[u] != mjDYN_NONE || mj->actuator_biastype[u] == mjBIAS_MUSCLE ||
      mdl_lcplab_present(mj))
    return 0;
  if (t == mjTRN_TENDON) {
    if (mdl_tendon_is_spatial(mj, id) || tendon_unmapped(mj, id, p->opt_read.reduced) ||
        affine_on_joint(mj, u))
      return 0;
    for (int k = mj->tendon_adr[id]; k < mj->tendon_adr[id] + mj->tendon_num[id]; k++)
      if (p->jnt_lc[mj->wrap_objid[k]] < 0) return 0;
  } else {
    if (t != mjTRN_JOINT && t != mjTRN_JOINTINPARENT) return 0;
    int jt = mj->jnt_type[id];
    if ((jt != mjJNT_HINGE && jt != mjJNT_SLIDE) || p->jnt_lc[id] < 0) return 0;
    if (affine_on_joint(mj, u) && unmapped(mj, u) != NULL) return 0;
  }
  const mjtNum *g = mj->actuator_gainprm + mjNGAIN * u;
  return mj->actuator_gaintype[u] == mjGAIN_FIXED ||
         (mj->actuator_gaintype[u] == mjGAIN_AFFINE && g[1] == 0 && g[2] == 0);
}

/* The joints and moment arms of driven actuator u into a. */
static void transmission(const mdl_map *p, int u, dyn_actuator_def *a) {
  const mjModel *mj = p->mj;
  int id = mj->actuator_trnid[2 * u];
  if (mj->actuator_trntype[u] != mjTRN_TENDON) {
    a->njoints = 1, a->joint[0] = p->jnt_lc[id], a->coef[0] = 1.0;
    return;
  }
  for (int k = mj->tendon_adr[id]; k < mj->tendon_adr[id] + mj->tendon_num[id]; k++) {
    a->joint[a->njoints] = p->jnt_lc[mj->wrap_objid[k]];
    a->coef[a->njoints++] = mj->wrap_prm[k];
  }
}

/* Site s's position (and z axis) in its lcplab body's frame (*body; -1:
 * the world's, the world values). */
static void site_in_body(const mdl_map *p, int s, int *body, dyn_v3 *pos, dyn_v3 *zaxis) {
  const mjtNum *x = p->d->site_xpos + 3 * s, *R = p->d->site_xmat + 9 * s;
  dyn_v3 w = mdl_v3(x), z = dyn_v3_make(R[2], R[5], R[8]);
  *body = p->lc_body[p->mj->site_bodyid[s]];
  if (*body < 0) {
    *pos = w, *zaxis = z;
    return;
  }
  const dyn_body_def *b = &p->body[*body];
  dyn_quat q = dyn_quat_normalize(b->q);
  *pos = dyn_quat_rotate_inv(q, dyn_v3_sub(w, b->r));
  *zaxis = dyn_quat_rotate_inv(q, z);
}

/* Mapped slider-crank actuator u's fields into a. */
static void crank_of(const mdl_map *p, int u, dyn_actuator_def *a) {
  const mjModel *mj = p->mj;
  if (mj->actuator_trntype[u] != mjTRN_SLIDERCRANK || crank_unmapped(mj, u, p->opt_read.reduced) ||
      mdl_lcplab_present(mj))
    return;
  dyn_v3 unused;
  a->slider_crank = 1;
  site_in_body(p, mj->actuator_trnid[2 * u], &a->crank_body, &a->crank_pos, &unused);
  site_in_body(p, mj->actuator_trnid[2 * u + 1], &a->slider_body, &a->slider_pos, &a->slider_axis);
  a->crank_length = mj->actuator_cranklength[u];
  if (mj->actuator_biastype[u] == mjBIAS_AFFINE) {
    a->bias_b0 = mj->actuator_biasprm[mjNBIAS * u];
    a->bias_k = mj->actuator_biasprm[mjNBIAS * u + 1];
  }
}

dyn_actuator_def mdl_actuator_def(const mdl_map *p, int u) {
  const mjModel *mj = p->mj;
  dyn_actuator_def a;
  memset(&a, 0, sizeof a);
  snprintf(a.name, sizeof a.name, "%s", mdl_mj_name(mj, mjOBJ_ACTUATOR, u));
  if (driven(p, u)) transmission(p, u, &a);
  crank_of(p, u, &a);
  mdl_spatial_actuator(p, u, &a);
  a.gear = mj->actuator_gear[6 * u];
  a.gain = mj->actuator_gainprm[mjNGAIN * u];
  a.ctrl_limited = mj->actuator_ctrllimited[u];
  a.ctrl_lo = mj->actuator_ctrlrange[2 * u], a.ctrl_hi = mj->actuator_ctrlrange[2 * u + 1];
  a.force_limited = mj->actuator_forcelimited[u];
  a.force_lo = mj->actuator_forcerange[2 * u], a.force_hi = mj->actuator_forcerange[2 * u + 1];
  return a;
}

int mdl_tendon_def(const mdl_map *p, int t, dyn_tendon_def *d) {
  const mjModel *mj = p->mj;
  *d = dyn_tendon_def_default();
  if (!mj->tendon_limited[t] && mj->tendon_stiffness[t] == 0 && mj->tendon_damping[t] == 0)
    return 0; /* a transmission only: its actuators' record holds it */
  if (tendon_unmapped(mj, t, p->opt_read.reduced) || mdl_lcplab_present(mj)) return 0;
  snprintf(d->name, sizeof d->name, "%s", mdl_mj_name(mj, mjOBJ_TENDON, t));
  for (int k = mj->tendon_adr[t]; k < mj->tendon_adr[t] + mj->tendon_num[t]; k++) {
    if (p->jnt_lc[mj->wrap_objid[k]] < 0) return 0;
    d->joint[d->njoints] = p->jnt_lc[mj->wrap_objid[k]];
    d->coef[d->njoints++] = mj->wrap_prm[k];
  }
  /* lcplab's coordinates are MuJoCo's less qpos0: its length is MuJoCo's
   * less length0; a limit is held at its margin, as a joint's */
  double L0 = mj->tendon_length0[t], mg = mj->tendon_margin[t];
  if (mj->tendon_limited[t]) {
    d->limit.enabled = 1;
    d->limit.lo = mj->tendon_range[2 * t] + mg - L0;
    d->limit.hi = mj->tendon_range[2 * t + 1] - mg - L0;
  }
  d->stiffness = mj->tendon_stiffness[t];
  d->damping = mj->tendon_damping[t];
  d->rest = mj->tendon_lengthspring[t] - L0;
  return 1;
}

void mdl_actuator_spring(const mjModel *mj, int j, double *k, double *c, double *kr) {
  *k = *c = *kr = 0.0;
  for (int u = 0; u < mj->nu; u++) {
    int t = mj->actuator_trntype[u];
    if ((t != mjTRN_JOINT && t != mjTRN_JOINTINPARENT) || mj->actuator_trnid[2 * u] != j ||
        !affine_on_joint(mj, u) || unmapped(mj, u))
      continue;
    const mjtNum *b = mj->actuator_biasprm + mjNBIAS * u;
    double g = mj->actuator_gear[6 * u];
    *k += -b[1] * g * g;
    *c += -b[2] * g * g;
    *kr += g * b[0]; /* k q_rest = gear b0 */
  }
}
