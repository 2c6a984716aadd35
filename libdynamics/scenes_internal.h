/*
 * scenes_internal.h -- what the files of the built-in scenes share; never
 * installed.
 *
 *   scenes.c        the table of scenes (name, summary, keys, builder), the
 *                   parameters, dyn_scene_model and dyn_scene_new
 *   scenes_build.c  the builders' helpers: bodies, shapes, joints and the
 *                   scene's physics written into the model
 *   scenes_free.c   the free-body scenes (ball ... racket)
 *   scenes_joint.c  the articulated scenes (pendulum ... ragdoll)
 *
 * A builder fills the scene's dyn_model (dyn_model.h) from the values of
 * its keys; the scene's name is looked up once, in the table.  The scenes
 * are described in scenes.c's header.
 */
#ifndef DYN_SCENES_INTERNAL_H
#define DYN_SCENES_INTERNAL_H

#include "dyn_internal.h"
#include "dyn_joint.h"
#include "dyn_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_PI      3.14159265358979323846 /* M_PI, which strict C11 does not define */
#define SC_DEG     (SC_PI / 180.0)
#define SC_MAXKEYS 8

/* stack and pyramid: the gap gz (m) left under each layer of cubes at the
 * start (floor to layer 0, layer j to j + 1), so that nothing touches at
 * t = 0; each cube's rest position closes the gaps under it again. */
#define SC_LAYER_GZ 0.001

/* One parameter of a scene: its key, default and range. */
typedef struct scene_key {
  const char *key;
  double def;
  int integer;   /* 1: a whole number */
  double lo, hi; /* closed range */
} scene_key;

struct scene_ctx;
typedef dyn_err (*scene_build)(struct scene_ctx *c);

/* A row of the table of scenes (scenes.c). */
typedef struct scene_def {
  const char *name;
  const char *summary;
  scene_key keys[SC_MAXKEYS];
  int nkeys;
  scene_build build;
} scene_def;

/* What a builder works on. */
typedef struct scene_ctx {
  const char *name;
  const scene_def *def; /* the scene's key table: v[k] is keys[k]'s value */
  double v[SC_MAXKEYS];
  dyn_model *m; /* the model being filled */
  int mat;      /* the scene's one material (sc_physics) */
  char *msg;
  size_t cap;
} scene_ctx;

/* "scene 'NAME': " and the text into the caller's message. */
void scmsg(scene_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of the scene's parameter `key` (given, or its default). */
double sc_param(const scene_ctx *c, const char *key);

/* The scene's physics: gravity (0, 0, gz); its one material (named after
 * the scene) of friction mu and restitution e, which every shape takes;
 * restitution only above rest_steps |g| dt (m/s). */
dyn_err sc_physics(scene_ctx *c, double gz, double mu, double e, double rest_steps);
/* The default run: round(seconds / dt) steps (the default is 600 steps). */
dyn_err sc_duration(scene_ctx *c, double seconds);

/* A dynamic body of the given mass, inertia, pose and velocities, with one
 * shape sh at its own pose (none for DYN_SHAPE_NONE); name may be NULL.
 * rest: its rest position, or NULL (r). */
dyn_err sc_dynamic(scene_ctx *c, const char *name, double mass, dyn_m3 I, dyn_shape sh, dyn_v3 r,
                   dyn_quat q, dyn_v3 v, dyn_v3 w, const dyn_v3 *rest);
/* A sphere of the peers (m = rho 4/3 pi r^3, I = 0.4 m r^2). */
dyn_err sc_sphere(scene_ctx *c, double r, double density, dyn_v3 pos, dyn_v3 v);
/* A cube of side s (the peers' make_box), at rest, its rest position. */
dyn_err sc_cube(scene_ctx *c, const char *name, double s, double density, dyn_v3 pos, dyn_quat q,
                const dyn_v3 *rest);
/* A box of full sides `side`, uniform density. */
dyn_err sc_plate(scene_ctx *c, const char *name, dyn_v3 side, double density, dyn_v3 pos, dyn_v3 v,
                 dyn_v3 w);
/* The static half-space n . x >= d (n as given: a unit vector). */
dyn_err sc_plane(scene_ctx *c, const char *name, double nx, double ny, double nz, double d);
/* A body without geometry. */
dyn_err sc_noshape(scene_ctx *c, const char *name, double mass, dyn_m3 I, dyn_v3 r, dyn_quat q);
/* A capsule of total length len along the body z axis (radius rad). */
dyn_err sc_capsule(scene_ctx *c, const char *name, double mass, double rad, double len, dyn_v3 r,
                   dyn_quat q);

/* A joint between bodies a and b (b = -1: the world) in the world frame at
 * the initial poses.  The joint coordinate (dyn_joint_coord) is the
 * rotation of b relative to a about axis1 (hinge) or b's displacement
 * relative to a along axis1 (slider); a joint to the world passes -axis1
 * with a the body, so that the coordinate is the body's own angle /
 * displacement about / along +axis1.  lim_lo < lim_hi turns the limit on
 * (lim_lo > lim_hi: off); motor_force > 0 turns the motor on with
 * target_vel.  soft_cfm >= 0 goes on every base row. */
typedef struct sc_jspec {
  const char *name;
  dyn_joint_kind kind;
  int a, b;
  dyn_v3 anchor, axis1, axis2;
  double lim_lo, lim_hi;
  double target_vel, motor_force;
  double soft_cfm;
} sc_jspec;

sc_jspec sc_jdef(dyn_joint_kind kind, int a, int b, dyn_v3 anchor, dyn_v3 axis1);
dyn_err sc_joint(scene_ctx *c, const sc_jspec *js);

/* Rotation by angle t (rad) about the world y axis. */
static inline dyn_quat sc_roty(double t) { return dyn_quat_make(cos(t / 2), 0.0, sin(t / 2), 0.0); }

/* splitmix64 (the peers' Rng) and its uniform draw in [a, b). */
static inline uint64_t sc_splitmix_next(uint64_t *s) {
  return dyn_mix64(*s += 0x9E3779B97F4A7C15ULL);
}
static inline double sc_uniform(uint64_t *s, double a, double b) {
  return a + (b - a) * ((double)(sc_splitmix_next(s) >> 11) * (1.0 / 9007199254740992.0));
}

#define SC_TRY(expr)                                                                               \
  do {                                                                                             \
    dyn_err e_ = (expr);                                                                           \
    if (e_ != DYN_OK) return e_;                                                                   \
  } while (0)

/* The builders (scenes_free.c, scenes_joint.c). */
dyn_err dyn_scene_build_ball(scene_ctx *c);
dyn_err dyn_scene_build_incline(scene_ctx *c);
dyn_err dyn_scene_build_stack(scene_ctx *c);
dyn_err dyn_scene_build_pyramid(scene_ctx *c);
dyn_err dyn_scene_build_pile(scene_ctx *c);
dyn_err dyn_scene_build_dominoes(scene_ctx *c);
dyn_err dyn_scene_build_cradle(scene_ctx *c);
dyn_err dyn_scene_build_racket(scene_ctx *c);
dyn_err dyn_scene_build_pendulum(scene_ctx *c);
dyn_err dyn_scene_build_double_pendulum(scene_ctx *c);
dyn_err dyn_scene_build_chain(scene_ctx *c);
dyn_err dyn_scene_build_door(scene_ctx *c);
dyn_err dyn_scene_build_wheel(scene_ctx *c);
dyn_err dyn_scene_build_slider(scene_ctx *c);
dyn_err dyn_scene_build_car(scene_ctx *c);
dyn_err dyn_scene_build_slider_crank(scene_ctx *c);
dyn_err dyn_scene_build_ragdoll(scene_ctx *c);

#ifdef __cplusplus
}
#endif
#endif /* DYN_SCENES_INTERNAL_H */
