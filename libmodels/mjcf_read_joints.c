/*
 * mjcf_read_joints.c -- MuJoCo's joints and equality constraints as
 * lcplab's joints (mjcf_read.h; docs/models.md, "Joints").
 *
 * A MuJoCo body's joints say how it moves in its parent's frame; an lcplab
 * joint ties two bodies.  A body's joints map as a whole:
 *   none            welded to its parent: nothing when the parent is the
 *                   world (the body is static, mjcf_read_map.c), else a
 *                   fixed joint (anchor: the child's centre of mass);
 *   free            a free body (no joint);
 *   hinge, slide    a hinge or slider between the parent (a) and the body
 *                   (b) at the world anchor and axis (xanchor, xaxis), the
 *                   range as its limit;
 *   ball            a ball joint at the anchor;
 *   two hinges      at one point, axes not parallel, nothing on the first
 *                   (range, spring, friction): a hinge-2 joint (the first
 *                   axis fixed in the parent, the second in the body; the
 *                   second's range as its limit);
 *   anything else   (several joints, each moving the body in the frame the
 *                   ones before it leave: MuJoCo's kinematics) with
 *                   approximate: a chain, one lcplab joint per MuJoCo joint,
 *                   through intermediate bodies of a small mass (chain_mass
 *                   times the body's, at the joint's anchor); without it,
 *                   refused.  Read for reduced coordinates (reduced), every
 *                   body with several joints is such a chain through
 *                   massless frames (mass 0: exact in joint space), and a
 *                   joint's armature is its dyn_joint_def's.
 * A hinge's or slide's range, stiffness (with springref), damping and
 * frictionloss are its limit, spring and a motor of target speed 0 and
 * force frictionloss (joint friction), all relative to qpos0 (ref): lcplab's
 * coordinate is 0 at the initial pose.
 * A joint's coordinate is the child's motion relative to its parent;
 * lcplab's is b's relative to a.  Where the parent is the world, the body
 * is a and the world b = -1, so the axes are taken negated and the order
 * of a hinge-2's axes reversed (as the writer writes them).
 * Equalities: <connect> a ball joint between body1 and body2 at the
 * anchor (given in body1's frame), <weld> a fixed joint.
 */
#include "mjcf_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* anchors this close (m, relative to their size) are one point */
#define SAME_POINT 1e-9

static int add(mdl_map *p, int kind_key, int id) {
  int j = p->nj++;
  p->joint[j] = dyn_joint_def_default();
  p->jkey_kind[j] = kind_key;
  p->jkey_id[j] = id;
  return j;
}

/* Range, spring and friction of hinge or slide j on x's coordinate (the
 * header): lcplab's coordinate is MuJoCo's less qpos0. */
static void set_limit(dyn_joint_def *x, const mjModel *mj, int j) {
  int t = mj->jnt_type[j], dof = mj->jnt_dofadr[j], qa = mj->jnt_qposadr[j];
  if (t != mjJNT_HINGE && t != mjJNT_SLIDE) return;
  double q0 = mj->qpos0[qa];
  if (mj->jnt_limited[j]) { /* MuJoCo holds a limit at its margin: the range less it */
    x->limit.enabled = 1;
    x->limit.lo = mj->jnt_range[2 * j] + mj->jnt_margin[j] - q0;
    x->limit.hi = mj->jnt_range[2 * j + 1] - mj->jnt_margin[j] - q0;
  }
  double ka, ca, kra; /* its servos at zero control (mjcf_actuators.c) */
  mdl_actuator_spring(mj, j, &ka, &ca, &kra);
  double k = mj->jnt_stiffness[j] + ka, c = mj->dof_damping[dof] + ca;
  if (k > 0.0 || c > 0.0) {
    x->spring.enabled = 1;
    x->spring.stiffness = k;
    x->spring.damping = c;
    /* the rest points weighted by stiffness; the file's own without one */
    double kq = mj->jnt_stiffness[j] * mj->qpos_spring[qa] + kra;
    x->spring.ref = (k > 0.0 && ka > 0.0 ? kq / k : mj->qpos_spring[qa]) - q0;
  }
  if (mj->dof_frictionloss[dof] > 0.0) {
    x->motor.enabled = 1;
    x->motor.target_vel = 0.0;
    x->motor.max_force = mj->dof_frictionloss[dof];
  }
}

/* 1 if hinge j has nothing on its coordinate (range, spring, friction, ref). */
static int bare(const mjModel *mj, int j) {
  int dof = mj->jnt_dofadr[j];
  return !mj->jnt_limited[j] && mj->jnt_stiffness[j] == 0.0 && mj->dof_damping[dof] == 0.0 &&
         mj->dof_frictionloss[dof] == 0.0 && mj->qpos0[mj->jnt_qposadr[j]] == 0.0;
}

static void set_name(dyn_joint_def *x, const char *name) {
  snprintf(x->name, sizeof x->name, "%s", name);
}

static mdl_err approx_layout(mdl_map *p, int b) {
  const mjModel *mj = p->mj;
  static const char *const type[] = { "free", "ball", "slide", "hinge" };
  char lab[96], list[160] = "";
  mdl_mj_label(lab, sizeof lab, mj, mjOBJ_BODY, b);
  for (int k = 0; k < mj->body_jntnum[b] && strlen(list) + 16 < sizeof list; k++) {
    int t = mj->jnt_type[mj->body_jntadr[b] + k];
    strcat(list, k ? ", " : "");
    strcat(list, t >= 0 && t <= 3 ? type[t] : "?");
  }
  return mdl_approx(p, "chain them through intermediate bodies of small mass",
                    "%s: joints (%s) to its parent are not mapped exactly: lcplab ties a body "
                    "to its parent by one joint (hinge, slide, ball, free, or two hinges at one "
                    "point: hinge-2)",
                    lab, list);
}

/* An intermediate body of the chain of body b, at world point at: mass
 * chain_mass m_b, inertia chain_mass times b's mean principal moment. */
static int chain_body(mdl_map *p, int b, dyn_v3 at) {
  const mjModel *mj = p->mj;
  double f = p->opt_read.reduced ? 0.0 : p->opt_read.chain_mass, *I = mj->body_inertia + 3 * b;
  double mean = (I[0] + I[1] + I[2]) / 3.0;
  int i = p->nb++;
  dyn_body_def *x = &p->body[i];
  *x = dyn_body_def_default();
  x->mass = f * mj->body_mass[b];
  x->I_b = f > 0.0
               ? dyn_m3_scale(dyn_m3_identity(), f * (mean > 0.0 ? mean : 1e-6 * mj->body_mass[b]))
               : dyn_m3_zero(); /* reduced: a massless frame */
  x->r = at;
  x->q = mdl_quat(p->d->xquat + 4 * b);
  p->body_elem[i] = b;
  p->nchain++;
  return i;
}

/* One lcplab joint for MuJoCo joint j between lcplab bodies pa (-1: the
 * world) and pb, with the rules of map_single. */
static void chain_joint(mdl_map *p, int b, int j, int pa, int pb) {
  const mjModel *mj = p->mj;
  p->jnt_lc[j] = add(p, MDL_KEY_TREE, b);
  dyn_joint_def *x = &p->joint[p->jnt_lc[j]];
  int t = mj->jnt_type[j];
  x->kind = t == mjJNT_HINGE   ? DYN_JOINT_HINGE
            : t == mjJNT_SLIDE ? DYN_JOINT_SLIDER
                               : DYN_JOINT_BALL;
  dyn_v3 axis = mdl_v3(p->d->xaxis + 3 * j);
  x->anchor = mdl_v3(p->d->xanchor + 3 * j);
  if (pa < 0) {
    x->a = pb;
    x->b = -1;
    axis = dyn_v3_neg(axis);
  } else {
    x->a = pa;
    x->b = pb;
  }
  if (t != mjJNT_BALL) x->axis1 = axis;
  set_limit(x, mj, j);
  if (p->opt_read.reduced) x->armature = mj->dof_armature[mj->jnt_dofadr[j]];
  set_name(x, mdl_mj_name(mj, mjOBJ_JOINT, j));
}

/* Body b's joints as a chain (approximate; refused before without it). */
static mdl_err map_chain(mdl_map *p, int b) {
  const mjModel *mj = p->mj;
  int n = mj->body_jntnum[b], j0 = mj->body_jntadr[b], parent = mj->body_parentid[b];
  for (int k = 0; k < n; k++)
    if (mj->jnt_type[j0 + k] == mjJNT_FREE) {
      char lab[96];
      mdl_mj_label(lab, sizeof lab, mj, mjOBJ_BODY, b);
      return mdl_refuse(p, "%s: a free joint with other joints is not mapped", lab);
    }
  mdl_err e = p->opt_read.reduced ? MDL_OK : approx_layout(p, b); /* reduced: exact */
  if (e != MDL_OK) return e;
  int prev = parent == 0 ? -1 : p->lc_body[parent];
  for (int k = 0; k < n; k++) {
    int next = k + 1 < n ? chain_body(p, b, mdl_v3(p->d->xanchor + 3 * (j0 + k))) : p->lc_body[b];
    chain_joint(p, b, j0 + k, prev, next);
    prev = next;
  }
  return MDL_OK;
}

/* One hinge, slide or ball joint j of body b. */
static void map_single(mdl_map *p, int b, int j) {
  int parent = p->mj->body_parentid[b];
  chain_joint(p, b, j, parent == 0 ? -1 : p->lc_body[parent], p->lc_body[b]);
}

/* Two hinges j, j + 1 of body b at one point: a hinge-2, or -1 (refused). */
static int map_two_hinges(mdl_map *p, int b, int j) {
  const mjModel *mj = p->mj;
  const mjData *d = p->d;
  if (mj->jnt_type[j] != mjJNT_HINGE || mj->jnt_type[j + 1] != mjJNT_HINGE) return -1;
  dyn_v3 p1 = mdl_v3(d->xanchor + 3 * j), p2 = mdl_v3(d->xanchor + 3 * j + 3);
  dyn_v3 s1 = mdl_v3(d->xaxis + 3 * j), s2 = mdl_v3(d->xaxis + 3 * j + 3);
  double scale = 1.0 + dyn_v3_norm(p1);
  if (dyn_v3_norm(dyn_v3_sub(p1, p2)) > SAME_POINT * scale) return -1;
  if (dyn_v3_norm(dyn_v3_cross(s1, s2)) < 1e-6) return -1; /* parallel */
  int parent = mj->body_parentid[b];
  /* the limit is on the axis fixed in b: the second hinge (the first where
   * the parent is the world, which is then b) */
  int lim = parent == 0 ? j : j + 1, free_one = parent == 0 ? j + 1 : j;
  if (!bare(mj, free_one)) return -1;
  dyn_joint_def *x = &p->joint[add(p, MDL_KEY_TREE, b)];
  x->kind = DYN_JOINT_HINGE2;
  x->anchor = p1;
  if (parent == 0) {
    x->a = p->lc_body[b];
    x->b = -1;
    x->axis1 = dyn_v3_neg(s2);
    x->axis2 = dyn_v3_neg(s1);
  } else {
    x->a = p->lc_body[parent];
    x->b = p->lc_body[b];
    x->axis1 = s1;
    x->axis2 = s2;
  }
  set_limit(x, mj, lim);
  set_name(x, mdl_mj_name(mj, mjOBJ_JOINT, j));
  return 0;
}

/* A name lcplab's records hold (at most DYN_NAME_MAX - 1 characters). */
static mdl_err name_fits(mdl_map *p, mjtObj type, int i) {
  if (strlen(mdl_mj_name(p->mj, type, i)) < DYN_NAME_MAX) return MDL_OK;
  char lab[96];
  mdl_mj_label(lab, sizeof lab, p->mj, type, i);
  return mdl_refuse(p, "%.60s...: names are at most %d characters", lab, DYN_NAME_MAX - 1);
}

static mdl_err map_body_joints(mdl_map *p, int b) {
  const mjModel *mj = p->mj;
  int n = mj->body_jntnum[b], j0 = mj->body_jntadr[b], parent = mj->body_parentid[b];
  for (int k = 0; k < n; k++) {
    mdl_err e = name_fits(p, mjOBJ_JOINT, j0 + k);
    if (e != MDL_OK) return e;
  }
  if (n == 0) {
    if (mj->body_weldid[b] == 0) return MDL_OK; /* static */
    dyn_joint_def *x = &p->joint[add(p, MDL_KEY_TREE, b)];
    x->kind = DYN_JOINT_FIXED;
    x->a = p->lc_body[parent];
    x->b = p->lc_body[b];
    x->anchor = mdl_v3(p->d->xipos + 3 * b);
    return MDL_OK;
  }
  if (n == 1 && mj->jnt_type[j0] == mjJNT_FREE) return MDL_OK; /* a free body */
  if (n == 1) {
    map_single(p, b, j0);
    return MDL_OK;
  }
  if (n == 2 && !p->opt_read.reduced && map_two_hinges(p, b, j0) == 0) return MDL_OK;
  return map_chain(p, b);
}

/* 1 if weld q holds body2 where it starts in body1's frame (eq_data:
 * anchor 3, relpose 7 = position and quaternion of body2 in body1's frame,
 * torquescale 1: MuJoCo 2.2's layout, filled from qpos0 when the file
 * gives no relpose). */
static int weld_at_initial_pose(const mdl_map *p, int q) {
  const mjModel *mj = p->mj;
  const mjData *d = p->d;
  const mjtNum *e = mj->eq_data + mjNEQDATA * q;
  int o1 = mj->eq_obj1id[q], o2 = mj->eq_obj2id[q];
  dyn_quat q1 = mdl_quat(d->xquat + 4 * o1), q2 = mdl_quat(d->xquat + 4 * o2);
  dyn_v3 rel =
      dyn_quat_rotate_inv(q1, dyn_v3_sub(mdl_v3(d->xpos + 3 * o2), mdl_v3(d->xpos + 3 * o1)));
  dyn_quat rq = dyn_quat_mul(dyn_quat_conj(q1), q2), eq = mdl_quat(e + 6);
  double s = eq.w * rq.w + eq.x * rq.x + eq.y * rq.y + eq.z * rq.z < 0 ? -1.0 : 1.0;
  double dq = fmax(fmax(fabs(eq.w - s * rq.w), fabs(eq.x - s * rq.x)),
                   fmax(fabs(eq.y - s * rq.y), fabs(eq.z - s * rq.z)));
  double dp = dyn_v3_norm(dyn_v3_sub(mdl_v3(e + 3), rel));
  return e[10] == 1.0 && dq <= 1e-9 && dp <= 1e-9 * (1.0 + dyn_v3_norm(rel));
}

/* <connect> or <weld> q. */
static mdl_err map_equality(mdl_map *p, int q) {
  const mjModel *mj = p->mj;
  const mjData *d = p->d;
  int b1 = mj->eq_obj1id[q], b2 = mj->eq_obj2id[q];
  if (b1 == 0) { /* body1 the world: the other one is a */
    b1 = b2;
    b2 = 0;
  }
  if (b1 == 0) {
    char lab[96];
    mdl_mj_label(lab, sizeof lab, mj, mjOBJ_EQUALITY, q);
    return mdl_refuse(p, "%s: ties the world to itself", lab);
  }
  dyn_joint_def *x = &p->joint[add(p, MDL_KEY_EQ, q)];
  x->a = p->lc_body[b1];
  x->b = b2 == 0 ? -1 : p->lc_body[b2];
  set_name(x, mdl_mj_name(mj, mjOBJ_EQUALITY, q));
  if (mj->eq_type[q] == mjEQ_CONNECT) {
    x->kind = DYN_JOINT_BALL;
    /* the anchor in body1's frame (its own body1, before any swap) */
    int o = mj->eq_obj1id[q];
    const mjtNum *R = d->xmat + 9 * o, *a = mj->eq_data + mjNEQDATA * q;
    dyn_v3 loc = dyn_v3_make(a[0], a[1], a[2]);
    dyn_m3 M;
    for (int k = 0; k < 9; k++) M.m[k] = R[k];
    x->anchor = dyn_v3_add(mdl_v3(d->xpos + 3 * o), dyn_m3_mulv(M, loc));
  } else {
    x->kind = DYN_JOINT_FIXED;
    x->anchor = mdl_v3(d->xipos + 3 * (b2 > 0 ? b2 : b1));
    if (!weld_at_initial_pose(p, q)) {
      char lab[96];
      mdl_mj_label(lab, sizeof lab, mj, mjOBJ_EQUALITY, q);
      return mdl_refuse(p,
                        "%s: a relpose other than the bodies' initial relative pose, or a "
                        "torquescale other than 1, is not mapped (lcplab's fixed joint keeps "
                        "the initial pose)",
                        lab);
    }
  }
  return MDL_OK;
}

mdl_err mdl_map_joints(mdl_map *p) {
  const mjModel *mj = p->mj;
  size_t cap = (size_t)mj->nbody + (size_t)mj->njnt + (size_t)mj->neq + 1;
  p->joint = calloc(cap, sizeof *p->joint);
  p->jkey_kind = malloc(cap * sizeof *p->jkey_kind);
  p->jkey_id = malloc(cap * sizeof *p->jkey_id);
  p->jnt_lc = malloc(((size_t)mj->njnt + 1) * sizeof *p->jnt_lc);
  if (!p->joint || !p->jkey_kind || !p->jkey_id || !p->jnt_lc) return mdl_nomem(p);
  for (int j = 0; j < mj->njnt; j++) p->jnt_lc[j] = -1;
  for (int b = 1; b < mj->nbody; b++) {
    mdl_err e = map_body_joints(p, b);
    if (e != MDL_OK) return e;
  }
  for (int q = 0; q < mj->neq; q++) {
    mdl_err e = name_fits(p, mjOBJ_EQUALITY, q);
    if (e == MDL_OK) e = map_equality(p, q);
    if (e != MDL_OK) return e;
  }
  return MDL_OK;
}
