/*
 * dyn.h -- public header of libdynamics: rigid bodies, their shapes,
 * integration, collision detection.  (Constraint rows, assembly into a
 * libsolvers slv_problem, worlds and scenes are added by later files.)
 *
 * Units: SI (m, kg, s, rad).  Frames and quaternion convention: dyn_math.h.
 * Nothing here allocates except functions named _new; nothing aborts on user
 * input: functions that can fail return a dyn_err (0 = DYN_OK) and, where it
 * helps, a message in a caller buffer.
 */
#ifndef DYN_H
#define DYN_H

#include <stddef.h>

#include "dyn_math.h"

/* DYN_API marks the functions of libdynamics' public interface (dyn*.h):
 * the library is compiled with -fvisibility=hidden and exports only these
 * (as SLV_API in slv.h). */
#ifndef DYN_API
#if defined(__GNUC__) && __GNUC__ >= 4
#define DYN_API __attribute__((visibility("default")))
#else
#define DYN_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dyn_err {
  DYN_OK = 0,
  DYN_ERR_INPUT = -1, /* a parameter out of its domain (message says which) */
  DYN_ERR_NOMEM = -2,
  DYN_ERR_NUMERIC = -3,    /* NaN / Inf produced, singular inertia, ... */
  DYN_ERR_INTERRUPTED = -4 /* the solve's cancel callback (settings opt.cancel) stopped it */
} dyn_err;

/* ---- shapes ------------------------------------------------------------ */

typedef enum dyn_shape_kind {
  DYN_SHAPE_NONE = 0,  /* a body without geometry (e.g. a massless-link bob) */
  DYN_SHAPE_SPHERE,    /* radius */
  DYN_SHAPE_BOX,       /* half extents along the body axes */
  DYN_SHAPE_CAPSULE,   /* segment from -half_length to +half_length on the body
               z axis, swept by radius */
  DYN_SHAPE_PLANE,     /* static half-space n . x >= d (world frame: normal,
               offset); only on static bodies */
  DYN_SHAPE_HULL,      /* convex hull of verts (body frame), through GJK+EPA */
  DYN_SHAPE_ELLIPSOID, /* semi-axes half along the body axes, through GJK+EPA
                          (its support function: shape_support.c) */
  DYN_SHAPE_CYLINDER   /* radius, half_length along the body z axis, through
                          GJK+EPA (support function; a plane: up to 4 points) */
} dyn_shape_kind;

typedef struct dyn_shape {
  dyn_shape_kind kind;
  double radius;       /* SPHERE, CAPSULE, CYLINDER */
  double half_length;  /* CAPSULE, CYLINDER */
  dyn_v3 half;         /* BOX; ELLIPSOID: the semi-axes */
  dyn_v3 normal;       /* PLANE: unit outward normal (world) */
  double offset;       /* PLANE: d in n . x >= d */
  const dyn_v3 *verts; /* HULL: borrowed, body frame, nverts >= 4 */
  int nverts;
} dyn_shape;

/* ---- bodies ------------------------------------------------------------ */

/* A body is two records (docs/dynamics.md, "Rigid bodies"): its constants
 * and its state.  A world's constants are its model's records
 * (dyn_model_body_consts: compiled from the model's body and shape
 * records, shared by every world on the model, never written by one); its
 * state is the world's own array (dyn_world_body_states). */
typedef struct dyn_body_const {
  double mass;     /* kg; 0 for static bodies */
  double inv_mass; /* 0 for static bodies */
  dyn_m3 I_b;      /* body-frame inertia tensor (symmetric positive definite;
                           zero for static bodies) */
  dyn_m3 inv_I_b;  /* its inverse; zero for static bodies */
  dyn_shape shape; /* a model body's: its shape when it has exactly one, at
                      its own pose; else NONE (the shapes being the model's) */
  int is_static;   /* never moves; inv_mass = 0, inv_I_b = 0 */
} dyn_body_const;

typedef struct dyn_body_state {
  dyn_v3 r;   /* centre of mass, world */
  dyn_quat q; /* orientation, unit, body -> world */
  dyn_v3 v;   /* linear velocity, world */
  dyn_v3 w;   /* angular velocity, world */
  /* external load for the current step (world); read, never cleared, by
   * the integration functions */
  dyn_v3 f_ext;
  dyn_v3 t_ext;
} dyn_body_state;

/* A set of bodies: body i is c[i] (constants) and s[i] (state), two arrays
 * of the caller's length nb.  Passed by value; the functions that only
 * read bodies (collision, assembly, joints' rows) never write through s. */
typedef struct dyn_bodies {
  const dyn_body_const *c;
  dyn_body_state *s;
} dyn_bodies;

/* Fill *c and *s as a dynamic body of the given mass, body-frame inertia,
 * shape, at rest at r with orientation q (normalised here).  Returns
 * DYN_ERR_INPUT (and a message in msg[msgcap] if msg != NULL) for mass <=
 * 0, a non-finite or not positive definite inertia, a zero quaternion. */
DYN_API dyn_err dyn_body_init(dyn_body_const *c, dyn_body_state *s, double mass, dyn_m3 I_b,
                              dyn_shape shape, dyn_v3 r, dyn_quat q, char *msg, size_t msgcap);
/* A static body (infinite mass): planes, fixed geometry, the world anchor. */
DYN_API void dyn_body_init_static(dyn_body_const *c, dyn_body_state *s, dyn_shape shape, dyn_v3 r,
                                  dyn_quat q);

/* A body's state as 13 numbers, the layout of every trace and saved state:
 * r (3), q (w, x, y, z), v (3), w (3). */
#define DYN_BODY_STATE 13
DYN_API void dyn_body_get_state(const dyn_body_state *b, double s[DYN_BODY_STATE]);
/* The inverse: r, q, v, w from s (q as given, not normalised). */
DYN_API void dyn_body_set_state(dyn_body_state *b, const double s[DYN_BODY_STATE]);

/* Principal inertias of uniform solids of mass m. */
DYN_API dyn_m3 dyn_inertia_sphere(double m, double radius);
DYN_API dyn_m3 dyn_inertia_box(double m, dyn_v3 half);
DYN_API dyn_m3 dyn_inertia_capsule(double m, double radius, double half_length);
/* m/5 (a_y^2 + a_z^2, a_x^2 + a_z^2, a_x^2 + a_y^2): semi-axes a */
DYN_API dyn_m3 dyn_inertia_ellipsoid(double m, dyn_v3 semi);
/* m (3 r^2 + 4 h^2)/12 about x and y, m r^2 / 2 about z (h: half length) */
DYN_API dyn_m3 dyn_inertia_cylinder(double m, double radius, double half_length);

/* World inertia R I_b R^T and its inverse R I_b^-1 R^T. */
DYN_API dyn_m3 dyn_body_inertia_world(const dyn_body_const *c, const dyn_body_state *s);
DYN_API dyn_m3 dyn_body_inv_inertia_world(const dyn_body_const *c, const dyn_body_state *s);

/* m |v|^2 / 2 + w . (I w) / 2 */
DYN_API double dyn_body_kinetic(const dyn_body_const *c, const dyn_body_state *s);
/* Momenta: m v, and the angular momentum about the world origin
 * r x m v + I w. */
DYN_API dyn_v3 dyn_body_linear_momentum(const dyn_body_const *c, const dyn_body_state *s);
DYN_API dyn_v3 dyn_body_angular_momentum(const dyn_body_const *c, const dyn_body_state *s);

/* ---- unconstrained integration (docs/dynamics.md, "Integrators") -------- */

typedef enum dyn_gyro {
  DYN_GYRO_NONE = 0, /* drop w x (I w) */
  DYN_GYRO_EXPLICIT, /* torque -w x (I w) at the start of the step */
  DYN_GYRO_IMPLICIT  /* implicit Euler in the body frame, one Newton step (docs/dynamics.md,
                           "Rotation and the gyroscopic term") */
} dyn_gyro;

typedef enum dyn_orient {
  DYN_ORIENT_EXP = 0, /* q <- exp(h w / 2) q, small-angle series */
  DYN_ORIENT_LINEAR   /* q <- q + h/2 (0, w) q, renormalised (the L/G form); both in
                           docs/dynamics.md, "Rotation and the gyroscopic term" */
} dyn_orient;

typedef enum dyn_integrator {
  DYN_INT_SYMPLECTIC_EULER = 0, /* v+ = v + h a(x); x+ = x + h v+ (default) */
  DYN_INT_EXPLICIT_EULER,       /* x+ = x + h v; v+ = v + h a(x) */
  DYN_INT_VERLET                /* position Verlet: half drift, kick, half drift */
} dyn_integrator;

/* v += h inv_mass (f_ext + m g); w += h I^-1 (t_ext - gyro term), the
 * gyroscopic term per `gyro`.  g is the gravity vector (m/s^2).  Static
 * bodies are left alone. */
DYN_API void dyn_body_update_velocity(const dyn_body_const *c, dyn_body_state *s, double h,
                                      dyn_v3 g, dyn_gyro gyro);
/* r += h v; q advanced by the angular velocity w over h per `orient`. */
DYN_API void dyn_body_update_position(const dyn_body_const *c, dyn_body_state *s, double h,
                                      dyn_orient orient);
/* q advanced by angular velocity w (world) over h, as above. */
DYN_API dyn_quat dyn_quat_integrate(dyn_quat q, dyn_v3 w, double h, dyn_orient orient);

/* ---- collision --------------------------------------------------------- */

/* One contact point between bodies a and b (indices into the caller's body
 * array; a static body is an ordinary index).  normal is the unit vector
 * from a towards b (docs/contact.md, "Contact Jacobian"), depth >= 0 the penetration
 * (a negative depth, a gap, is allowed for speculative contacts), p the
 * world point, midway between the two surfaces.  A world's contacts also
 * name the two shapes that touch (sa of body a, sb of body b: indices in
 * the world's model, dyn_model.h) and carry their combined material
 * (dyn_material_combine), which dyn_contact_fill_material reads;
 * dyn_collide_pair leaves sa = sb = -1 and mu = restitution = mu_torsion =
 * mu_rolling = 0. */
typedef struct dyn_contact {
  int a, b;
  dyn_v3 p;
  dyn_v3 normal;
  double depth;
  int sa, sb;         /* the shapes, or -1 */
  double mu;          /* friction coefficient of the pair, >= 0 */
  double restitution; /* restitution of the pair, in [0, 1] */
  double mu_torsion;  /* torsional friction of the pair (m, >= 0): box friction's
                         spin row about the normal, |x_s| <= mu_torsion x_n
                         (dyn_contact_params.torsion) */
  double mu_rolling;  /* rolling friction of the pair (m, >= 0): box friction's two
                         rows of relative angular velocity about the tangents,
                         |x_r| <= mu_rolling x_n (dyn_contact_params.rolling) */
} dyn_contact;

#define DYN_MAX_MANIFOLD 4 /* points one pair can produce (box-box, box-plane) */

/* Narrow phase for one pair: writes up to DYN_MAX_MANIFOLD contacts (with
 * a, b set to ia, ib) into out and returns their number; 0 when apart by
 * more than `margin` (m, >= 0; contacts with -margin < depth are kept).
 * Dispatches on the two shape kinds (either order).  A contact is kept
 * iff depth > -margin (so two bodies exactly touching give none at margin
 * 0).  Returns DYN_ERR_INPUT (< 0) for invalid input: bad indices, ia ==
 * ib, margin < 0 or NaN, a non-finite pose, a negative size. */
DYN_API int dyn_collide_pair(dyn_bodies bodies, int ia, int ib, double margin, dyn_contact *out);

/* World-frame axis-aligned bounding box of a body's shape, grown by margin;
 * planes get infinite extents where they are unbounded. */
DYN_API void dyn_body_aabb(const dyn_body_const *c, const dyn_body_state *s, double margin,
                           dyn_v3 *lo, dyn_v3 *hi);

/* Broad phase: sweep-and-prune on x (docs/dynamics.md, "Collision") over nb bodies.  Writes
 * candidate pairs (i < j, AABBs overlapping, not both static) into
 * pairs[2k], pairs[2k+1], at most maxpairs; returns the number found (which
 * may exceed maxpairs: then only maxpairs were written and the caller grows
 * its buffer).  ws is caller workspace of dyn_sap_workspace_size(nb) bytes,
 * so that a step allocates nothing (aligned for double, as malloc'd memory
 * is); it keeps the sorted order between calls (pass the same ws each step:
 * a coherent scene then sorts in O(n)).  Call dyn_sap_workspace_init(ws)
 * once after allocating it, and again to forget the order (any content
 * then gives the same pairs, but the first call reads the tag, so it must
 * be initialised memory).  Both broad phases return -1 on bad arguments. */
DYN_API size_t dyn_sap_workspace_size(int nb);
DYN_API void dyn_sap_workspace_init(void *ws);
DYN_API long dyn_broadphase_sap(dyn_bodies bodies, int nb, double margin, void *ws, int *pairs,
                                long maxpairs);
/* The same by testing all pairs: the reference for tests. */
DYN_API long dyn_broadphase_all(dyn_bodies bodies, int nb, double margin, int *pairs,
                                long maxpairs);

/* GJK distance / EPA penetration between two convex shapes given by support
 * functions (used for HULL, and for any pair without a dedicated routine).
 * One contact; DYN_ERR_INPUT (< 0) for invalid input. */
DYN_API int dyn_collide_gjk_epa(dyn_bodies bodies, int ia, int ib, double margin, dyn_contact *out);

#ifdef __cplusplus
}
#endif

#endif /* DYN_H */
