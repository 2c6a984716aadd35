/* tst_world.h -- the libdynamics tests' model builder from hand-built
 * bodies and joints (header only): a world is built only on a model
 * (dyn_world_new_from_model, dyn_world.h), so a test that makes its bodies
 * with dyn_body_init (or by hand, tst_dyn.h) and its joints with
 * dyn_joint_init puts them into a model first:
 *
 *   dyn_model *m = tst_model_new(&s);     options: s's gravity and threshold
 *   tst_model_add_body(m, &b, msg, cap);  its index, or a dyn_err (< 0)
 *   tst_model_add_joint(m, &j, msg, cap);
 *   dyn_world *w = tst_world_new(m, &s);  the world on m (m let go of)
 *
 * A body becomes a body def (mass, I_b, pose, velocities) and one shape
 * at its pose, of DYN_MATERIAL_DEFAULT and filter 1 / 1 (its hull vertices
 * copied into the model); the world compiles it back with dyn_body_init:
 * the same bits as a body made by dyn_body_init.  Loads (f_ext, t_ext) are
 * state: set them on dyn_world_body_states after the build.  A joint becomes a
 * joint def with its anchor and axes in the world frame at the model's
 * initial poses, its softness, limit, motor and spring.
 */
#ifndef TST_WORLD_H
#define TST_WORLD_H

#include <stdio.h>
#include <string.h>

#include "dyn_model.h"
#include "dyn_world.h"
#include "tst_body.h"

/* An empty model whose options are what the settings s say: the world
 * built on it with s runs with s's gravity and restitution threshold. */
static inline dyn_model *tst_model_new(const dyn_world_settings *s) {
  dyn_model *m = NULL;
  if (dyn_model_new(&m) != DYN_OK) return NULL;
  dyn_model_options o = dyn_model_get_options(m);
  o.gravity = s->gravity;
  o.rest_threshold = s->contact.rest_threshold;
  o.rest_threshold_steps = 0.0;
  if (dyn_model_set_options(m, &o, NULL, 0) != DYN_OK) {
    dyn_model_free(m);
    return NULL;
  }
  return m;
}

/* Body *b as the model's next body, with its one shape: its index, or
 * DYN_ERR_INPUT / DYN_ERR_NOMEM (message in msg). */
static inline int tst_model_add_body(dyn_model *m, const tst_body *b, char *msg, size_t cap) {
  dyn_body_def d = dyn_body_def_default();
  d.is_static = b->is_static;
  d.mass = b->mass;
  d.I_b = b->I_b;
  d.r = b->r;
  d.q = b->q;
  d.v = b->v;
  d.w = b->w;
  int i = dyn_model_add_body(m, &d, msg, cap);
  if (i < 0 || b->shape.kind == DYN_SHAPE_NONE) return i;
  dyn_shape_def s = dyn_shape_def_default();
  s.body = i;
  s.geom = b->shape;
  int k = dyn_model_add_shape(m, &s, msg, cap);
  return k < 0 ? k : i;
}

/* Joint *j (dyn_joint_init on the model's bodies at their initial poses)
 * as the model's next joint: its index, or a dyn_err (message in msg). */
static inline int tst_model_add_joint(dyn_model *m, const dyn_joint *j, char *msg, size_t cap) {
  const dyn_body_def *bd = dyn_model_bodies(m);
  dyn_joint_def d = dyn_joint_def_default();
  d.kind = j->kind;
  d.a = j->a;
  d.b = j->b;
  /* a body index out of range: the model refuses it (no pose read past its
   * bodies, which memcheck reported as uninitialised) */
  if (j->a < 0 || j->a >= dyn_model_body_count(m) || j->b >= dyn_model_body_count(m))
    return dyn_model_add_joint(m, &d, msg, cap);
  const dyn_body_def *A = &bd[j->a], *B = j->b >= 0 ? &bd[j->b] : NULL;
  dyn_quat qa = dyn_quat_normalize(A->q), qb = B ? dyn_quat_normalize(B->q) : dyn_quat_identity();
  d.anchor = dyn_v3_add(A->r, dyn_quat_rotate(qa, j->anchor_a));
  d.axis1 = dyn_quat_rotate(qa, j->axis_a);
  d.axis2 = j->kind == DYN_JOINT_HINGE2 || j->kind == DYN_JOINT_UNIVERSAL
                ? dyn_quat_rotate(qb, j->axis_b)
                : dyn_v3_make(0.0, 1.0, 0.0);
  memcpy(d.erp, j->erp, sizeof d.erp);
  memcpy(d.cfm, j->cfm, sizeof d.cfm);
  d.limit = j->limit;
  d.motor = j->motor;
  d.spring = j->spring;
  return dyn_model_add_joint(m, &d, msg, cap);
}

/* The world on m with the settings s (m let go of: the world holds it),
 * or NULL with the message printed (a test's diagnostic). */
static inline dyn_world *tst_world_new(dyn_model *m, const dyn_world_settings *s) {
  dyn_world *w = NULL;
  char msg[256] = "";
  if (m && dyn_world_new_from_model(m, s, &w, msg, sizeof msg) != DYN_OK)
    printf("dyn_world_new_from_model: %s\n", msg);
  dyn_model_free(m);
  return w;
}

#endif /* TST_WORLD_H */
