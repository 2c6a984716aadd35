/*
 * mjcf_write_key.c -- the keyframe of the MJCF writer (mjcf_write.c):
 * <keyframe><key name="lcplab" qpos qvel/>, the model's initial state in
 * MuJoCo's joint coordinates, so that MuJoCo started from it
 * (mj_resetDataKeyframe) starts where lcplab does; MuJoCo itself starts a
 * loaded model at rest (docs/models.md, "The mapping").
 *
 * qpos is the configuration the bodies are written in: a free body's
 * position and unit quaternion, 0 for hinges and slides, the identity for
 * ball joints.  qvel holds each joint's rate of the child's velocity
 * relative to its parent's (the world and static bodies at rest):
 *   free    v, and R^T w (MuJoCo's angular rate of a free joint is in the
 *           body's frame);
 *   hinge   e . (w_c - w_p), slide e . (v_c - v_p) (e: the axis written);
 *   ball    R_c^T (w_c - w_p) (the child's frame);
 *   two hinges (hinge-2, universal)  the least-squares x of
 *           x1 e1 + x2 e2 = w_c - w_p;
 *   fixed   none.
 * Where the initial velocities do not satisfy a joint (a body turning
 * while what it is tied to is at rest), this is their projection: lcplab's
 * exact velocities are the custom data's.  Written for models of at most
 * 1000 coordinates: MuJoCo 2.2 reads at most 1000 numbers in an attribute.
 */
#include "mjcf_write.h"

#include <stdlib.h>

#define MDL_KEY_MAX 1000

/* A body's initial velocities; the world's and static bodies' zero. */
static void vel_of(const dyn_model *m, int i, dyn_v3 *v, dyn_v3 *w) {
  const dyn_body_def *B = dyn_model_bodies(m);
  *v = *w = dyn_v3_make(0.0, 0.0, 0.0);
  if (i < 0 || B[i].is_static) return;
  *v = B[i].v;
  *w = B[i].w;
}

/* The rates x of x1 e1 + x2 e2 = r, least squares (e1, e2 not parallel). */
static void two_axes(dyn_v3 e1, dyn_v3 e2, dyn_v3 r, double *x) {
  double a = dyn_v3_dot(e1, e1), b = dyn_v3_dot(e1, e2), c = dyn_v3_dot(e2, e2);
  double r1 = dyn_v3_dot(e1, r), r2 = dyn_v3_dot(e2, r), det = a * c - b * b;
  x[0] = det != 0.0 ? (c * r1 - b * r2) / det : 0.0;
  x[1] = det != 0.0 ? (a * r2 - b * r1) / det : 0.0;
}

/* Body u's joint coordinates into qpos, qvel (advancing *nq, *nv). */
static void body_coords(const mdl_writer *w, int u, double *qpos, int *nq, double *qvel, int *nv) {
  const dyn_body_def *b = &dyn_model_bodies(w->m)[u];
  dyn_v3 vu, wu, vp, wp;
  vel_of(w->m, u, &vu, &wu);
  int j = w->t.pjoint[u];
  if (j < 0) {
    if (b->is_static) return;
    dyn_quat q = dyn_quat_normalize(b->q);
    dyn_v3 wl = dyn_quat_rotate_inv(q, wu);
    double x[13] = {
      b->r.x, b->r.y, b->r.z, q.w, q.x, q.y, q.z, vu.x, vu.y, vu.z, wl.x, wl.y, wl.z
    };
    for (int k = 0; k < 7; k++) qpos[(*nq)++] = x[k];
    for (int k = 7; k < 13; k++) qvel[(*nv)++] = x[k];
    return;
  }
  const dyn_joint_def *d = &dyn_model_joints(w->m)[j];
  vel_of(w->m, w->t.parent[u], &vp, &wp);
  dyn_v3 vr = dyn_v3_sub(vu, vp), wr = dyn_v3_sub(wu, wp);
  double sg = d->a == u ? -1.0 : 1.0; /* as mjcf_write_body.c writes the axes */
  dyn_v3 a1 = dyn_v3_normalize(dyn_v3_scale(d->axis1, sg));
  dyn_v3 a2 = dyn_v3_normalize(dyn_v3_scale(d->axis2, sg));
  switch (d->kind) {
  case DYN_JOINT_HINGE:
  case DYN_JOINT_SLIDER:
    qpos[(*nq)++] = 0.0;
    qvel[(*nv)++] = dyn_v3_dot(a1, d->kind == DYN_JOINT_HINGE ? wr : vr);
    break;
  case DYN_JOINT_BALL: {
    dyn_v3 wl = dyn_quat_rotate_inv(dyn_quat_normalize(b->q), wr);
    double x[7] = { 1.0, 0.0, 0.0, 0.0, wl.x, wl.y, wl.z };
    for (int k = 0; k < 4; k++) qpos[(*nq)++] = x[k];
    for (int k = 4; k < 7; k++) qvel[(*nv)++] = x[k];
    break;
  }
  case DYN_JOINT_HINGE2:
  case DYN_JOINT_UNIVERSAL: {
    double x[2];
    two_axes(sg > 0 ? a1 : a2, sg > 0 ? a2 : a1, wr, x);
    qpos[(*nq)++] = 0.0;
    qpos[(*nq)++] = 0.0;
    qvel[(*nv)++] = x[0];
    qvel[(*nv)++] = x[1];
    break;
  }
  case DYN_JOINT_FIXED: break;
  }
}

void mdl_w_keyframe(mdl_writer *w) {
  int nb = w->t.nb;
  double *qpos = malloc(((size_t)nb * 7 + 1) * sizeof *qpos);
  double *qvel = malloc(((size_t)nb * 6 + 1) * sizeof *qvel);
  if (!qpos || !qvel) {
    w->failed = 1;
    free(qpos);
    free(qvel);
    return;
  }
  int nq = 0, nv = 0;
  for (int k = 0; k < nb; k++) body_coords(w, w->t.order[k], qpos, &nq, qvel, &nv);
  /* MuJoCo 2.2's reader takes at most 1000 numbers in an attribute
   * (mjXUtil::ReadVector): a larger model has no keyframe */
  if (nq > 0 && nq <= MDL_KEY_MAX && nv <= MDL_KEY_MAX) {
    mdl_w_printf(w, "  <keyframe>\n    <key name=\"lcplab\"");
    mdl_w_attr_nums(w, "qpos", qpos, nq);
    mdl_w_attr_nums(w, "qvel", qvel, nv);
    mdl_w_printf(w, "/>\n  </keyframe>\n");
  }
  free(qpos);
  free(qvel);
}
