/*
 * dyn_model.h -- public header of libdynamics: the scene model, a plain-data
 * description of what a scene is -- bodies, several shapes per body,
 * materials, collision filters, excluded pairs, joints, gravity, default
 * steps -- apart from where it is now (a world's state, dyn_world.h).  After
 * MuJoCo's mjModel / mjData split and Box2D v3's b2BodyDef / b2ShapeDef;
 * docs/scenes.md describes every field and rule.
 *
 * A model owns all its arrays (hull vertices included) and grows as records
 * are added; records are plain C structs, filled from a _default()
 * constructor, copied in by the add functions and read back through the
 * accessors.  Indices are stable: record i stays record i (nothing is ever
 * removed); names, when given, are unique among the records of one kind and
 * can be looked up.  A world is built on a model (dyn_world_new_from_model,
 * dyn_world.h), which it shares and only reads (several worlds may share
 * one): the model may be freed after (the last world frees it), but must
 * not change while a world holds it.
 *
 * Checks: every add and set function checks its record on the way in (and
 * leaves the model as it was when it refuses); dyn_model_validate checks
 * the whole model again, with the rules that span records.  Messages name
 * the record by kind, index and name: "body 3 'torso': mass=-1 must be > 0".
 * Nothing here aborts, prints or keeps global state; functions that fail
 * return a dyn_err (DYN_ERR_INPUT, DYN_ERR_NOMEM) and, where they take one,
 * a one-line message in the caller's msg[msgcap] (msg may be NULL).
 *
 * Units: SI (m, kg, s, rad).  Frames and quaternions: dyn_math.h.
 */
#ifndef DYN_MODEL_H
#define DYN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "dyn.h"
#include "dyn_joint.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Room of every name, with its terminating NUL: names are 1 .. 63
 * characters, or empty (no name). */
#define DYN_NAME_MAX 64

/* The memory cap of a model: the bytes of its records and hull vertices
 * together (counted without overflow); an add that would pass it is
 * refused (DYN_ERR_INPUT, "model larger than ..."). */
#define DYN_MODEL_MAX_BYTES 2147483647u

/* A shape's material index meaning "the default material": the model's
 * first material, or in a model without materials the world settings'
 * contact.mu and contact.restitution, read at every step
 * (dyn_world_settings, dyn_world.h).  Shapes that name no material take
 * it; the world resolves it (world_model.c), no front end copies a
 * material into the settings. */
#define DYN_MATERIAL_DEFAULT (-1)

/* ---- records ---------------------------------------------------------------------- */

/* A material: what two shapes in contact take their friction and bounce
 * from.  A contact between shapes of materials a and b uses
 * dyn_material_combine(a, b): the maximum of each field (MuJoCo's rule for
 * friction and condim), so that combine(m, m) = m and a rubber ball grips
 * ice as rubber does (docs/contact.md, "Materials").  The contact's
 * coefficients then follow the combined condim (dyn_material_contact):
 * sliding friction mu unless condim is 1, torsional friction mu_torsion
 * when condim is 4 or 6, rolling friction mu_rolling when condim is 6. */
typedef struct dyn_material {
  char name[DYN_NAME_MAX];
  double mu;          /* Coulomb friction coefficient, finite, >= 0 */
  double restitution; /* Newton's coefficient, in [0, 1] */
  double mu_torsion;  /* torsional friction (m, finite, >= 0): the spin of the
                         two bodies about the normal resisted by a moment up to
                         mu_torsion times the normal force (MuJoCo's
                         friction[1]); taken only where the contact's condim
                         is 4 or 6, in worlds of box friction */
  int condim;         /* MuJoCo's contact dimension: 0 (lcplab's own: as 3),
                         1 (frictionless), 3 (sliding friction), 4 (sliding
                         and torsional friction), 6 (sliding, torsional and
                         rolling friction) */
  double mu_rolling;  /* rolling friction (m, finite, >= 0): the two bodies'
                         relative rolling about the contact's tangents
                         resisted by a moment up to mu_rolling times the
                         normal force (MuJoCo's friction[2]); taken only
                         where the contact's condim is 6, in worlds of box
                         friction */
} dyn_material;

/* A body: its mass properties and its initial state.  The body frame's
 * origin is the centre of mass. */
typedef struct dyn_body_def {
  char name[DYN_NAME_MAX];
  int is_static;  /* 1: never moves (floors, walls, the anchor of joints) */
  double mass;    /* kg; dynamic: > 0, or 0 for "not set yet" (to be set by
                    dyn_model_mass_from_density: a world refuses 0); static:
                    ignored */
  dyn_m3 I_b;     /* body-frame inertia about the centre of mass (kg m^2),
                    symmetric positive definite when mass > 0; static: ignored */
  dyn_v3 r;       /* initial centre of mass, world (m) */
  dyn_quat q;     /* initial orientation, body -> world, nonzero (normalised
                    when a world is built) */
  dyn_v3 v, w;    /* initial linear and angular velocity, world (m/s, rad/s) */
  int rest_given; /* 1: r_rest below is the body's rest position; 0: r */
  dyn_v3 r_rest;  /* where the body sits with the scene's start gaps closed
                     (the stack's cubes start 1 mm apart): |r_end - r_rest|
                     tells "settled" from "moved" (lcplab simulate's
                     max_settled_displacement) */
} dyn_body_def;

/* A shape fixed to a body.  geom is dyn.h's shape (kind and sizes); its
 * pose in the body frame is (pos, rot).  A PLANE is a static half-space
 * n . x >= d given in the world frame (geom.normal, geom.offset): only on a
 * static body, at the identity pose.  A HULL's vertices (geom.verts,
 * geom.nverts, body frame of the shape) are copied into the model: the
 * record read back points at the model's copy. */
typedef struct dyn_shape_def {
  char name[DYN_NAME_MAX];
  int body;                      /* index of its body, >= 0 */
  dyn_shape geom;                /* SPHERE radius > 0; BOX half > 0; CAPSULE radius > 0,
                     half_length >= 0; PLANE unit normal (to 1e-6; kept as
                     given), finite offset; HULL >= 4 vertices not in one
                     plane; NONE: no geometry (never touches) */
  dyn_v3 pos;                    /* position of the shape's centre in the body frame (m) */
  dyn_quat rot;                  /* orientation in the body frame, nonzero (normalised when
                    added) */
  int material;                  /* index of its material, or DYN_MATERIAL_DEFAULT */
  uint32_t contype, conaffinity; /* collision filter, MuJoCo's rule: shapes
                    A and B may touch iff (A.contype & B.conaffinity) ||
                    (B.contype & A.conaffinity); default 1 and 1 */
  double margin, gap;            /* MuJoCo's geom margin and gap (m; finite, >= 0; default 0):
                    a pair of shapes with margin m (the larger of the two) and
                    gap g (the larger of the two) has a contact when its
                    surfaces are closer than m, held m - g apart (the
                    contact's depth is counted from there); lcplab's own
                    margin (dyn_world_settings) adds speculative contacts
                    beyond m - g.  docs/dynamics.md, "Collision" */
} dyn_shape_def;

/* A joint (dyn_joint.h's kinds) between bodies a and b (b = -1: the fixed
 * world), given in the world frame at the model's initial pose: the world
 * builds it with dyn_joint_init(kind, a, b, anchor, axis1, axis2) on the
 * bodies at their initial state, then sets its softness, limit and motor.
 * Two bodies tied by a joint never touch. */
typedef struct dyn_joint_def {
  char name[DYN_NAME_MAX];
  dyn_joint_kind kind;
  int a, b;                       /* body indices; 0 <= a, -1 <= b, a != b; one dynamic */
  dyn_v3 anchor;                  /* world point (m) */
  dyn_v3 axis1, axis2;            /* world axes, as dyn_joint_init reads them */
  double erp[DYN_JOINT_MAX_BASE]; /* softness of the equality rows (dyn_joint.h) */
  double cfm[DYN_JOINT_MAX_BASE];
  dyn_joint_limit limit;         /* hinge, slider, hinge-2 only */
  dyn_joint_motor motor;         /* hinge, slider, hinge-2 only */
  dyn_joint_springdamper spring; /* hinge, slider, hinge-2 only */
  double armature;               /* joint-space inertia of each of the joint's dofs
                                    (MuJoCo's armature), >= 0 (kg m^2 or kg): only
                                    reduced coordinates have joint-space inertia
                                    (docs/models.md); a maximal-coordinate world
                                    refuses a joint with armature > 0 */
} dyn_joint_def;

/* The joints one actuator may act on (a fixed tendon's, at most). */
#define DYN_ACTUATOR_MAX_JOINTS 8

/* One element of a spatial tendon's path (MuJoCo's <spatial>: sites and
 * wrapping geoms; libdynamics/tendon_spatial.c): a site, a point of body
 * body; or a sphere or cylinder the tendon wraps around between the two
 * sites either side of it, its centre pos and orientation rot (the
 * cylinder's axis its local z) in the body's frame, its radius, and an
 * optional side site (side 1: side_pos on side_body) choosing the side the
 * tendon passes.  body -1: the world (pos and rot world values); a body's
 * frame has its origin at the centre of mass (dyn_body_def r, q). */
typedef enum dyn_path_kind {
  DYN_PATH_SITE = 1,
  DYN_PATH_SPHERE = 2,
  DYN_PATH_CYLINDER = 3
} dyn_path_kind;
typedef struct dyn_path_elem {
  int kind; /* dyn_path_kind */
  int body;
  dyn_v3 pos;
  dyn_quat rot;
  double radius; /* > 0 for a sphere or cylinder */
  int side, side_body;
  dyn_v3 side_pos;
} dyn_path_elem;

/* The elements a spatial tendon's path may hold. */
#define DYN_TENDON_MAX_PATH 16

/* MuJoCo's muscle (its mjGAIN_MUSCLE, mjBIAS_MUSCLE and mjDYN_MUSCLE,
 * gainprm, biasprm and dynprm as compiled): on the actuator's length L
 * (gear times the tendon's) and velocity V, force = gain(L, V) act +
 * bias(L), both <= 0 (a muscle pulls), from the normalized length
 * range[0] + (L - lengthrange[0]) / L0, L0 = (lengthrange[1] -
 * lengthrange[0]) / (range[1] - range[0]), and force (< 0: scale / acc0).
 * The activation act (0 when the world is built) is a state of the world:
 * act' = (c - act) / tau, c = ctrl clamped to [0, 1], tau = tau_act (0.5 +
 * 1.5 a) when c > act, else tau_deact / (0.5 + 1.5 a) (a = act clamped to
 * [0, 1]), one explicit Euler step after each step, then clamped to
 * [act_lo, act_hi] when act_limited. */
typedef struct dyn_muscle_prm {
  double range[2], force, scale, lmin, lmax, vmax, fpmax, fvmax;
  double lengthrange[2], acc0; /* MuJoCo's actuator_lengthrange, actuator_acc0 */
  double tau_act, tau_deact;   /* s, MuJoCo's dynprm[0..1] */
  int act_limited;
  double act_lo, act_hi;
} dyn_muscle_prm;

/* An actuator (MuJoCo's motor, position and velocity actuators through a
 * joint or fixed-tendon transmission; docs/models.md, "The mapping"): its
 * control ctrl (dyn_world_set_ctrl; 0 unless set) gives the force
 *     f = clampF(gain * clampC(ctrl))
 * (clampC to [ctrl_lo, ctrl_hi] when ctrl_limited, clampF to [force_lo,
 * force_hi] when force_limited), which acts on the coordinate of joint
 * joint[k] with the generalized force coef[k] * gear * f (N or N m): a
 * joint transmission is one joint of coef 1, a fixed tendon of length
 * sum_k coef[k] q_k its joints.  A servo's bias (its stiffness and damping
 * at zero control) is the joint's spring, not this record.  njoints 0: an
 * actuator listed at zero control that no control may drive (its
 * transmission is not simulated): a nonzero control for it is refused. */
typedef struct dyn_actuator_def {
  char name[DYN_NAME_MAX];
  int njoints;                          /* 0 .. DYN_ACTUATOR_MAX_JOINTS */
  int joint[DYN_ACTUATOR_MAX_JOINTS];   /* hinges or sliders of the model */
  double coef[DYN_ACTUATOR_MAX_JOINTS]; /* finite */
  double gear, gain;                    /* finite */
  /* a slider-crank transmission (slider_crank 1; njoints 0): MuJoCo's
   * cranksite, slidersite, cranklength and an affine bias f = gain ctrl +
   * b0 + k gear L (dyn_rm_crank: reduced coordinates only) */
  int slider_crank;
  int crank_body, slider_body; /* model bodies; slider -1: the world (its pos, axis world) */
  dyn_v3 crank_pos, slider_pos, slider_axis; /* in the bodies' frames; axis unit */
  double crank_length, bias_k, bias_b0;      /* length > 0 */
  int ctrl_limited, force_limited;
  double ctrl_lo, ctrl_hi, force_lo, force_hi; /* lo <= hi when limited */
  /* a spatial tendon transmission (npath > 0; njoints 0; reduced
   * coordinates only): the tendon's path (sites, each wrap geom between
   * two sites), its length L, and the force f = gain clampC(ctrl) (+ the
   * muscle's, muscle 1), clampF'd, pulling along the path with the
   * generalized force gear f dL/dq (libdynamics/tendon_spatial.c) */
  int npath;
  dyn_path_elem path[DYN_TENDON_MAX_PATH];
  int muscle;
  dyn_muscle_prm mus;
} dyn_actuator_def;

/* A fixed tendon (MuJoCo's <tendon><fixed>; docs/models.md, "The
 * mapping"): its length L = sum_k coef[k] q_k over the coordinates of
 * joints joint[k] (hinges or sliders), 0 at the model's initial pose.  A
 * world in reduced coordinates holds
 *   - its limit (limit.enabled: lo <= L <= hi, erp, cfm, restitution as a
 *     joint's, dyn_joint_limit) as one unilateral row in joint space, the
 *     row coef[k] on joint k's dof (world_reduced.c), and
 *   - its spring (stiffness, damping >= 0; rest: the length it pulls to)
 *     as the generalized force coef[k] f on each joint, f = -stiffness (L -
 *     rest) - damping dL/dt, explicit (MuJoCo's Euler step does the same);
 * a world in maximal coordinates refuses it (its joints have no
 * coordinate rows other than their own). */
typedef struct dyn_tendon_def {
  char name[DYN_NAME_MAX];
  int njoints;                          /* 1 .. DYN_ACTUATOR_MAX_JOINTS */
  int joint[DYN_ACTUATOR_MAX_JOINTS];   /* hinges or sliders of the model */
  double coef[DYN_ACTUATOR_MAX_JOINTS]; /* finite */
  dyn_joint_limit limit;                /* as a joint's: lo <= hi, erp in [0, 1], ... */
  double stiffness, damping, rest;      /* >= 0, >= 0, finite */
} dyn_tendon_def;

/* A dyn_tendon_def with no joints, no limit (erp 0.2 when enabled) and no
 * spring: fill the fields you need. */
DYN_API dyn_tendon_def dyn_tendon_def_default(void);

/* The scene-level fields (MuJoCo's mjOption): what a scene sets over the
 * world settings it is built with. */
typedef struct dyn_model_options {
  dyn_v3 gravity;              /* m/s^2, finite; default (0, 0, -9.81) */
  double rest_threshold;       /* m/s >= 0: restitution only for contacts
                                  approaching faster than rest_threshold +
                                  rest_threshold_steps |g| dt ... */
  double rest_threshold_steps; /* >= 0: ... (a body resting on a contact gains
                                  |g| dt a step; the ball scene takes 2) */
  long steps;                  /* the default run: steps > 0 steps, or when 0 ... */
  double duration;             /* ... round(duration / dt) steps (s > 0) */
} dyn_model_options;

/* The defaults of each record, to fill before an add:
 *   material  name "", mu 0.5, restitution 0 (the world settings' defaults);
 *   body      dynamic, mass 0 (not set yet), I_b 0, at the origin, q = 1,
 *             at rest, no rest position;
 *   shape     body 0, NONE, identity pose, DYN_MATERIAL_DEFAULT, filter 1 / 1;
 *   joint     hinge between body 0 and the world, anchor 0, axis1 z, axis2
 *             y, erp 0.2 and cfm 0 on every row, limit, motor and spring
 *             off (limit erp 0.2): what dyn_joint_init sets;
 *   options   g = (0, 0, -9.81), no restitution threshold, 600 steps (the
 *             peers' default run). */
DYN_API dyn_material dyn_material_default(void);
DYN_API dyn_body_def dyn_body_def_default(void);
DYN_API dyn_shape_def dyn_shape_def_default(void);
DYN_API dyn_joint_def dyn_joint_def_default(void);
DYN_API dyn_model_options dyn_model_options_default(void);

/* The material of a contact between materials a and b: mu = max(a.mu, b.mu),
 * restitution = max(a.restitution, b.restitution), mu_torsion and
 * mu_rolling the larger, condim the larger (0 counting as 3), name "":
 * MuJoCo's rule for two geoms
 * of one priority (mj_contactParam).  combine(m, m) is m; the order does
 * not matter. */
DYN_API dyn_material dyn_material_combine(dyn_material a, dyn_material b);

/* The coefficients a contact of (combined) material m takes: *mu = m.mu
 * unless m.condim is 1 (then 0), *mu_torsion = m.mu_torsion when m.condim
 * is 4 or 6 (else 0), *mu_rolling = m.mu_rolling when m.condim is 6 (else
 * 0).  Any of the three may be NULL. */
DYN_API void dyn_material_contact(dyn_material m, double *mu, double *mu_torsion,
                                  double *mu_rolling);

/* ---- the model ------------------------------------------------------------------- */

typedef struct dyn_model dyn_model;

/* An empty model with the default options.  *out = NULL and DYN_ERR_NOMEM
 * (or DYN_ERR_INPUT for out NULL) on failure. */
DYN_API dyn_err dyn_model_new(dyn_model **out);
/* Lets go of m (NULL is fine): freed now, or when the last world built on
 * it (dyn_world_new_from_model, which shares it read-only, as MuJoCo's
 * mjData reads its mjModel) is freed.  A model must not change while a
 * world holds it: change a dyn_model_copy instead. */
DYN_API void dyn_model_free(dyn_model *m);
/* A deep copy of m (every array, hull vertices included) in *out. */
DYN_API dyn_err dyn_model_copy(const dyn_model *m, dyn_model **out);

/* Add a record (copied in; hull vertices too): its index (>= 0), or a
 * negative dyn_err with the message in msg[msgcap], the model unchanged.
 * Each refuses a name too long or already taken (by a record of the same
 * kind), NaN or inf in any field, the model's memory cap, and:
 *   body      mass < 0, or mass > 0 with an inertia not symmetric positive
 *             definite (dyn_body_init's test); a zero quaternion; rest_given
 *             not 0 or 1;
 *   shape     a body that does not exist; a material that does not exist
 *             (nor DYN_MATERIAL_DEFAULT); a non-positive size; a hull of
 *             fewer than four points not in one plane; a plane on a dynamic
 *             body or at a pose other than the identity; a zero normal or
 *             rotation; an unknown kind;
 *   material  mu < 0, restitution outside [0, 1];
 *   joint     a body that does not exist (a out of [0, bodies), b out of
 *             [-1, bodies), a = b), both bodies static, and whatever
 *             dyn_joint_init and dyn_joint_validate refuse (zero axes,
 *             parallel hinge-2 axes, erp outside [0, 1], a limit lo > hi,
 *             ...). */
DYN_API int dyn_model_add_body(dyn_model *m, const dyn_body_def *d, char *msg, size_t msgcap);
DYN_API int dyn_model_add_shape(dyn_model *m, const dyn_shape_def *d, char *msg, size_t msgcap);
DYN_API int dyn_model_add_material(dyn_model *m, const dyn_material *d, char *msg, size_t msgcap);
DYN_API int dyn_model_add_joint(dyn_model *m, const dyn_joint_def *d, char *msg, size_t msgcap);

/* Add actuator *d (dyn_actuator_def): its index, or DYN_ERR_INPUT for
 * njoints out of range, a joint out of range or not a hinge or slider, NaN
 * or inf, lo > hi. */
DYN_API int dyn_model_add_actuator(dyn_model *m, const dyn_actuator_def *d, char *msg,
                                   size_t msgcap);
/* The actuators (valid until the next add or free), their count; the index
 * of the one named (-1: none). */
DYN_API int dyn_model_actuator_count(const dyn_model *m);
DYN_API const dyn_actuator_def *dyn_model_actuators(const dyn_model *m);
DYN_API int dyn_model_find_actuator(const dyn_model *m, const char *name);

/* Add tendon *d (dyn_tendon_def): its index, or DYN_ERR_INPUT naming the
 * tendon and the field (njoints out of range, a joint out of range or not
 * a hinge or slider, NaN or inf, a limit lo > hi or erp outside [0, 1],
 * cfm or restitution out of range, a negative stiffness or damping). */
DYN_API int dyn_model_add_tendon(dyn_model *m, const dyn_tendon_def *d, char *msg, size_t msgcap);
/* The tendons (valid until the next add or free) and their count. */
DYN_API int dyn_model_tendon_count(const dyn_model *m);
DYN_API const dyn_tendon_def *dyn_model_tendons(const dyn_model *m);

/* Replace record i by *d, with the checks of its add (and a body that
 * already carries a plane shape stays static; a body tied to joints keeps
 * them valid).  DYN_ERR_INPUT (model unchanged) for i out of range or a
 * refused record. */
DYN_API dyn_err dyn_model_set_body(dyn_model *m, int i, const dyn_body_def *d, char *msg,
                                   size_t msgcap);
DYN_API dyn_err dyn_model_set_shape(dyn_model *m, int i, const dyn_shape_def *d, char *msg,
                                    size_t msgcap);
DYN_API dyn_err dyn_model_set_material(dyn_model *m, int i, const dyn_material *d, char *msg,
                                       size_t msgcap);
DYN_API dyn_err dyn_model_set_joint(dyn_model *m, int i, const dyn_joint_def *d, char *msg,
                                    size_t msgcap);

/* Bodies a and b (a != b, both existing) never touch (MJCF's <exclude>).
 * Excluding a pair twice is allowed (once is enough). */
DYN_API dyn_err dyn_model_exclude(dyn_model *m, int a, int b, char *msg, size_t msgcap);

/* The scene-level fields, read and replaced (checked: gravity finite,
 * thresholds finite and >= 0, steps >= 0, steps = 0 needing a finite
 * duration > 0). */
DYN_API dyn_model_options dyn_model_get_options(const dyn_model *m);
DYN_API dyn_err dyn_model_set_options(dyn_model *m, const dyn_model_options *o, char *msg,
                                      size_t msgcap);

/* Counts and the record arrays (size the count), valid until the next add,
 * set or free of the model; 0 and NULL for m NULL.  Exclusions: 2 ints a
 * pair (a < b), sorted. */
DYN_API int dyn_model_body_count(const dyn_model *m);
DYN_API int dyn_model_shape_count(const dyn_model *m);
DYN_API int dyn_model_material_count(const dyn_model *m);
DYN_API int dyn_model_joint_count(const dyn_model *m);
DYN_API int dyn_model_exclusion_count(const dyn_model *m);
DYN_API const dyn_body_def *dyn_model_bodies(const dyn_model *m);
/* The bodies' constants (size dyn_model_body_count) as every world on m
 * reads them, compiled from the body and shape records whenever they are
 * added or set: mass, inertia and their inverses (dyn_body_init), the static
 * flag, and the body's shape when it has exactly one, at the identity pose
 * (else NONE).  A dynamic body of mass 0 is a massless frame (static
 * constants: a reduced world poses it by its tree; a maximal world refuses
 * it).  Only read by worlds. */
DYN_API const dyn_body_const *dyn_model_body_consts(const dyn_model *m);
DYN_API const dyn_shape_def *dyn_model_shapes(const dyn_model *m);
DYN_API const dyn_material *dyn_model_materials(const dyn_model *m);
DYN_API const dyn_joint_def *dyn_model_joints(const dyn_model *m);
DYN_API const int *dyn_model_exclusions(const dyn_model *m);
/* The material a shape of DYN_MATERIAL_DEFAULT takes: 0, the model's first,
 * when it has materials; else DYN_MATERIAL_DEFAULT (the world settings'
 * contact.mu and contact.restitution).  The world and the MJCF writer ask
 * this one function. */
DYN_API int dyn_model_default_material(const dyn_model *m);

/* The index of the record of that name, or -1 (none, an empty name, NULL). */
DYN_API int dyn_model_find_body(const dyn_model *m, const char *name);
DYN_API int dyn_model_find_shape(const dyn_model *m, const char *name);
DYN_API int dyn_model_find_material(const dyn_model *m, const char *name);
DYN_API int dyn_model_find_joint(const dyn_model *m, const char *name);

/* The whole model checked (what a world checks before it is built): every
 * record as its add does, then a dynamic body whose mass is still 0, and a
 * model over the memory cap.  DYN_OK, or DYN_ERR_INPUT with the first
 * problem named ("body 4 'arm': mass=0: set it, or from its shapes by
 * dyn_model_mass_from_density"). */
DYN_API dyn_err dyn_model_validate(const dyn_model *m, char *msg, size_t msgcap);
/* The same for a world in reduced coordinates (dyn_world_new_from_model with DYN_COORDINATES_REDUCED): a
 * dynamic body of mass 0 and inertia 0 is a massless frame of the tree (the
 * links of several joints on one body), not a mass still to be set. */
DYN_API dyn_err dyn_model_validate_reduced(const dyn_model *m, char *msg, size_t msgcap);

/* Mass and inertia of dynamic body i from its shapes at a uniform density
 * (kg/m^3 > 0): spheres, boxes and capsules (dyn_inertia_* of the volume's
 * mass), composed by the parallel-axis theorem about their common centre
 * of mass c.  When c is not the body's origin, the body frame is moved
 * there: r (and r_rest) move by R(q) c and every shape's pos by -c, so the
 * shapes stay where they were in the world.  DYN_ERR_INPUT (model
 * unchanged) for a static body, a body without volume, a hull (its volume
 * is not computed here: give its mass and inertia), a bad density. */
DYN_API dyn_err dyn_model_mass_from_density(dyn_model *m, int i, double density, char *msg,
                                            size_t msgcap);

/* The default run at step dt (s): options.steps, or round(duration / dt)
 * (at least 1) when steps is 0.  0 for m NULL, dt <= 0 or not finite, or a
 * count past 1e15. */
DYN_API long dyn_model_default_steps(const dyn_model *m, double dt);

/* The restitution threshold at step dt: rest_threshold +
 * rest_threshold_steps |g| dt (m/s); 0 for m NULL. */
DYN_API double dyn_model_rest_threshold(const dyn_model *m, double dt);

/* The rest positions of the bodies: r_rest[3 i .. 3 i + 2] = body i's r_rest
 * (or r when not given), for the nbodies (= dyn_model_body_count) bodies.
 * DYN_ERR_INPUT for a NULL argument or another count. */
DYN_API dyn_err dyn_model_rest_positions(const dyn_model *m, double *r_rest, int nbodies);

#ifdef __cplusplus
}
#endif
#endif /* DYN_MODEL_H */
