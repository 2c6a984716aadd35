/*
 * scenes_build.c -- the helpers the built-in scenes (scenes.c) are written
 * with: each writes records into the scene's dyn_model (dyn_model.h), with
 * the floating-point expressions of the peers' harnesses where a scene
 * reproduces theirs (scenes.c's header), and reports a refusal as
 * "scene 'NAME': ..." with the model's message naming the record.
 */
#include "scenes_internal.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void scmsg(scene_ctx *c, const char *fmt, ...) {
  if (!c->msg || c->cap == 0) return;
  int k = snprintf(c->msg, c->cap, "scene '%s': ", c->name);
  if (k < 0 || (size_t)k >= c->cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->msg + k, c->cap - (size_t)k, fmt, ap);
  va_end(ap);
}

/* The builders read every parameter by name.  A key missing from the
 * scene's table is a bug in the scene's file: NaN (which the model's
 * checks refuse), and an assertion under --enable-asserts. */
double sc_param(const scene_ctx *c, const char *key) {
  for (int k = 0; k < c->def->nkeys; k++)
    if (strcmp(c->def->keys[k].key, key) == 0) return c->v[k];
  assert(!"scene parameter not in the scene's key table");
  return NAN;
}

/* A model call's result: its index (>= 0) passes, a refusal gets the
 * scene's prefix. */
static dyn_err model_said(scene_ctx *c, int r, const char *m2) {
  if (r >= 0) return DYN_OK;
  scmsg(c, "%s", m2);
  return (dyn_err)r;
}

static void set_name(char *dst, const char *name) {
  snprintf(dst, DYN_NAME_MAX, "%s", name ? name : "");
}

dyn_err sc_physics(scene_ctx *c, double gz, double mu, double e, double rest_steps) {
  char m2[256] = "";
  dyn_model_options o = dyn_model_get_options(c->m);
  o.gravity = dyn_v3_make(0.0, 0.0, gz);
  o.rest_threshold = 0.0;
  o.rest_threshold_steps = rest_steps;
  SC_TRY(model_said(c, dyn_model_set_options(c->m, &o, m2, sizeof m2), m2));
  dyn_material mt = dyn_material_default();
  set_name(mt.name, c->name);
  mt.mu = mu;
  mt.restitution = e;
  c->mat = dyn_model_add_material(c->m, &mt, m2, sizeof m2);
  return model_said(c, c->mat, m2);
}

dyn_err sc_duration(scene_ctx *c, double seconds) {
  char m2[256] = "";
  dyn_model_options o = dyn_model_get_options(c->m);
  o.steps = 0;
  o.duration = seconds;
  return model_said(c, dyn_model_set_options(c->m, &o, m2, sizeof m2), m2);
}

/* Body def d with the one shape sh at its own pose (none for NONE). */
static dyn_err add_body(scene_ctx *c, const dyn_body_def *d, dyn_shape sh) {
  char m2[256] = "";
  int i = dyn_model_add_body(c->m, d, m2, sizeof m2);
  SC_TRY(model_said(c, i, m2));
  if (sh.kind == DYN_SHAPE_NONE) return DYN_OK;
  dyn_shape_def s = dyn_shape_def_default();
  set_name(s.name, d->name);
  s.body = i;
  s.geom = sh;
  s.material = c->mat;
  return model_said(c, dyn_model_add_shape(c->m, &s, m2, sizeof m2), m2);
}

dyn_err sc_dynamic(scene_ctx *c, const char *name, double mass, dyn_m3 I, dyn_shape sh, dyn_v3 r,
                   dyn_quat q, dyn_v3 v, dyn_v3 w, const dyn_v3 *rest) {
  dyn_body_def d = dyn_body_def_default();
  set_name(d.name, name);
  d.mass = mass;
  d.I_b = I;
  d.r = r;
  d.q = q;
  d.v = v;
  d.w = w;
  d.rest_given = rest != NULL;
  if (rest) d.r_rest = *rest;
  return add_body(c, &d, sh);
}

dyn_err sc_sphere(scene_ctx *c, double r, double density, dyn_v3 pos, dyn_v3 v) {
  double mass = density * 4.0 / 3.0 * SC_PI * r * r * r;
  double I = 0.4 * mass * r * r;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_SPHERE;
  sh.radius = r;
  return sc_dynamic(c, NULL, mass, dyn_m3_diag(I, I, I), sh, pos, dyn_quat_identity(), v,
                    dyn_v3_make(0.0, 0.0, 0.0), NULL);
}

dyn_err sc_cube(scene_ctx *c, const char *name, double s, double density, dyn_v3 pos, dyn_quat q,
                const dyn_v3 *rest) {
  double mass = density * s * s * s;
  double I = mass * (s * s + s * s) / 12.0;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_make(s / 2, s / 2, s / 2);
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  return sc_dynamic(c, name, mass, dyn_m3_diag(I, I, I), sh, pos, q, zero, zero, rest);
}

dyn_err sc_plate(scene_ctx *c, const char *name, dyn_v3 side, double density, dyn_v3 pos, dyn_v3 v,
                 dyn_v3 w) {
  double mass = density * side.x * side.y * side.z;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_scale(side, 0.5);
  return sc_dynamic(c, name, mass, dyn_inertia_box(mass, sh.half), sh, pos, dyn_quat_identity(), v,
                    w, NULL);
}

dyn_err sc_plane(scene_ctx *c, const char *name, double nx, double ny, double nz, double d) {
  dyn_body_def b = dyn_body_def_default();
  set_name(b.name, name);
  b.is_static = 1;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_PLANE;
  sh.normal = dyn_v3_make(nx, ny, nz);
  sh.offset = d;
  return add_body(c, &b, sh);
}

dyn_err sc_noshape(scene_ctx *c, const char *name, double mass, dyn_m3 I, dyn_v3 r, dyn_quat q) {
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_NONE;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  return sc_dynamic(c, name, mass, I, sh, r, q, zero, zero, NULL);
}

dyn_err sc_capsule(scene_ctx *c, const char *name, double mass, double rad, double len, dyn_v3 r,
                   dyn_quat q) {
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_CAPSULE;
  sh.radius = rad;
  sh.half_length = len / 2 - rad;
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0);
  return sc_dynamic(c, name, mass, dyn_inertia_capsule(mass, rad, sh.half_length), sh, r, q, zero,
                    zero, NULL);
}

sc_jspec sc_jdef(dyn_joint_kind kind, int a, int b, dyn_v3 anchor, dyn_v3 axis1) {
  sc_jspec js;
  memset(&js, 0, sizeof js);
  js.kind = kind;
  js.a = a;
  js.b = b;
  js.anchor = anchor;
  js.axis1 = axis1;
  js.axis2 = dyn_v3_make(0.0, 1.0, 0.0);
  js.lim_lo = 1.0;
  js.lim_hi = -1.0;
  return js;
}

dyn_err sc_joint(scene_ctx *c, const sc_jspec *js) {
  dyn_joint_def d = dyn_joint_def_default();
  set_name(d.name, js->name);
  d.kind = js->kind;
  d.a = js->a;
  d.b = js->b;
  d.anchor = js->anchor;
  d.axis1 = js->b < 0 ? dyn_v3_scale(js->axis1, -1.0) : js->axis1;
  d.axis2 = js->axis2;
  if (js->lim_lo <= js->lim_hi) {
    d.limit.enabled = 1;
    d.limit.lo = js->lim_lo;
    d.limit.hi = js->lim_hi;
  }
  if (js->motor_force > 0.0) {
    d.motor.enabled = 1;
    d.motor.target_vel = js->target_vel;
    d.motor.max_force = js->motor_force;
  }
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++) d.cfm[r] = js->soft_cfm;
  char m2[256] = "";
  return model_said(c, dyn_model_add_joint(c->m, &d, m2, sizeof m2), m2);
}
