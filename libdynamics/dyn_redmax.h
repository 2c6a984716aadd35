/*
 * dyn_redmax.h -- reduced-coordinate articulated trees after RedMax
 * (docs/redmax.md; [wang2019], sec. 4: Wang et al. 2019, "RedMax: Efficient & flexible approach for
 * articulated dynamics", ACM TOG 38(4)).
 *
 * A tree of nb rigid bodies; body i is attached to its parent (or, with
 * parent -1, to the fixed world) by joint i, a hinge (1 dof), a slide
 * (1 dof), a ball (3 dof) or a weld (0 dof).  Bodies may be massless frames
 * (a free joint is three slides and a ball through two such frames).  The state is the joint coordinates, not the body poses.
 *
 * Construction is from world-frame data at one initial configuration, the
 * same data a maximal-coordinate model (bodies + joint constraints) is
 * built from: each body's centre of mass r, orientation q (body -> world),
 * mass, body-frame inertia about the centre of mass, and its joint's world
 * anchor and (hinge) world axis.  The initial configuration is the joint
 * zero: hinge angle 0, ball quaternion identity.
 *
 * State layout (joints in body index order; offsets by dyn_redmax_offsets):
 *   positions  q (nq values): hinge: the angle theta (rad), about the axis,
 *              right-handed; slide: the displacement d (m) along the axis;
 *              fixed: nothing; ball: the joint quaternion Q = (w, x, y, z),
 *              unit, the child's rotation relative to its initial pose
 *              in the joint frame (see below);
 *   velocities u (ndof values): hinge: dtheta/dt (rad/s); ball: the
 *              child's angular velocity relative to its parent, expressed
 *              in the joint frame carried by the child (rad/s).
 * For a ball joint nq = 4 and ndof = 3: u is a quasi-velocity with
 * dQ/dt = 1/2 Q (0, u), and S = [I3; 0] is constant.  This departs from
 * RedMax's ball S(q) = [B(q); 0] of eq. (21) (docs/redmax.md; a 3-parameter rotation with
 * a configuration-dependent B), which is singular somewhere for every
 * 3-parameter choice; eq. (28) holds unchanged for quasi-velocities.
 * The joint frame of joint i is parallel to the world frame at the initial
 * configuration, origin at the anchor, and fixed to the parent; its copy
 * carried by the child coincides with it when q = 0.  So for a root ball
 * joint the world angular velocity of the child is R(Q) u.
 *
 * Nothing here aborts on user input; functions that can fail return a
 * dyn_err and write a message into msg[msgcap] when msg != NULL.  Only
 * dyn_redmax_new allocates.  Units: SI.  Frames: dyn_math.h.
 */
#ifndef DYN_REDMAX_H
#define DYN_REDMAX_H

#include <stddef.h>

#include "dyn.h"
#include "dyn_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dyn_rm_joint {
  DYN_RM_HINGE = 1, /* 1 dof: rotation about a fixed axis through the anchor */
  DYN_RM_BALL = 2,  /* 3 dof: any rotation about the anchor */
  DYN_RM_SLIDE = 3, /* 1 dof: translation d along the axis (m) */
  DYN_RM_FIXED = 4  /* 0 dof: welded to the parent at its initial pose */
} dyn_rm_joint;

/* One body and the joint that attaches it to its parent.  All vectors are
 * world frame at the initial configuration. */
typedef struct dyn_rm_body_def {
  int parent;         /* index of the parent body in the array, or -1 for the
                         fixed world; any order, but no cycle */
  dyn_rm_joint joint; /* the joint between parent and this body */
  double mass;        /* kg, > 0; or 0 with I_b = 0: a massless frame (the
                         links of a chain of joints on one body: several
                         joints at one body are a chain of frames, exact in
                         reduced coordinates; Mr must stay positive definite) */
  dyn_m3 I_b;         /* body-frame inertia about the centre of mass, SPD */
  dyn_v3 r;           /* centre of mass, world (m) */
  dyn_quat q;         /* orientation body -> world (normalised here) */
  dyn_v3 anchor;      /* joint point, world (m) */
  dyn_v3 axis;        /* HINGE, SLIDE: rotation or translation axis, world,
                         nonzero (normalised here); ignored otherwise */
  double stiffness;   /* joint spring, >= 0 (N m / rad): generalised force
                         -k theta (hinge), -k log(Q) (ball); rest at q = 0 */
  double damping;     /* joint damper, >= 0 (N m s / rad): force -d u */
  double armature;    /* joint-space inertia added to each of the joint's dofs
                         (MuJoCo's armature: a rotor's reflected inertia),
                         >= 0 (kg m^2 or kg), added to Mr's diagonal */
} dyn_rm_body_def;

/* A dyn_rm_body_def with parent -1, a hinge about z, everything else 0 and
 * q the identity: fill the fields you need. */
DYN_API dyn_rm_body_def dyn_rm_body_def_default(void);

typedef struct dyn_redmax dyn_redmax;

/* Allocate a model for the nb bodies in defs[nb] (read, not retained),
 * at the initial configuration (q = 0, u = 0).  *out receives the model
 * (NULL on failure).  Errors: DYN_ERR_INPUT with a message naming the body
 * and the field (nb < 1, parent out of range or equal to the body, a cycle
 * of parents, unknown joint kind, zero or non-finite axis, mass <= 0, an
 * inertia that is not SPD, a zero quaternion, non-finite r or anchor,
 * negative stiffness/damping); DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_redmax_new(const dyn_rm_body_def *defs, int nb, dyn_redmax **out, char *msg,
                               size_t msgcap);
DYN_API void dyn_redmax_free(dyn_redmax *rm); /* accepts NULL */

/* The tree of a scene model (dyn_model.h; redmax_model.c): its dynamic
 * bodies, in model order (static bodies are the world: tree body k is the
 * model's k-th dynamic body), hanging from the world by its hinge and ball
 * joints, each body by exactly one path; a hinge's angle is the child's
 * relative to its parent.  The model's initial pose is the joint zero.
 * Errors (DYN_ERR_INPUT, *out = NULL, a message naming the record): a
 * model dyn_model_validate refuses, another joint kind, a limit, motor or
 * soft rows (cfm > 0), a loop, a dynamic body with no joint path to the
 * world, a body not at rest; DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_redmax_new_from_model(const dyn_model *m, dyn_redmax **out, char *msg,
                                          size_t msgcap);

DYN_API int dyn_redmax_nbodies(const dyn_redmax *rm);
DYN_API int dyn_redmax_nq(const dyn_redmax *rm);   /* number of position coordinates */
DYN_API int dyn_redmax_ndof(const dyn_redmax *rm); /* number of velocities (dofs) */
/* Offsets of joint i's coordinates in q and in u (either pointer may be
 * NULL); DYN_ERR_INPUT for i out of range. */
DYN_API dyn_err dyn_redmax_offsets(const dyn_redmax *rm, int i, int *qoff, int *uoff);

/* A constant generalized force tau (N m or N; finite) on the one dof of
 * hinge or slide body i, added to f_r at every step until set again (an
 * actuator's force: dyn_world_set_ctrl); 0 when built.  DYN_ERR_INPUT for
 * i out of range, a body of other than one dof, tau not finite. */
DYN_API dyn_err dyn_redmax_set_effort(dyn_redmax *rm, int i, double tau);

/* A slider-crank actuator (MuJoCo's cranksite, slidersite, cranklength):
 * the crank point pc on tree body crank, the slider point ps and unit axis
 * on tree body slider (-1: fixed in the world, ps and axis world values),
 * crank length r > 0.  With v = crank point - slider point (world) and
 * a = the slider's axis (world), its length is
 *     L = a.v - sqrt(det),  det = (a.v)^2 + r^2 - v.v   (det <= 0: L = a.v)
 * and its force f = f0 + b0 + k gear L acts through the moment arms
 * gear dL/dq: a force gear f dL/dv at the crank point, its opposite at
 * the slider point and a torque gear f (a x dL/da) on the slider body
 * (MuJoCo 2.2's mj_transmission), evaluated at the start of each step
 * (explicit, as MuJoCo's Euler). */
typedef struct dyn_rm_crank {
  int crank, slider;
  dyn_v3 pc, ps, axis; /* in the bodies' frames (origin the centre of mass) */
  double r, gear, k, b0;
  double f0; /* gain x the control (dyn_redmax_set_crank_force) */
} dyn_rm_crank;

/* rm's slider-cranks, copied (replacing any): DYN_ERR_INPUT for a body out
 * of range, r <= 0, non-finite values; DYN_ERR_NOMEM. */
DYN_API dyn_err dyn_redmax_cranks_init(dyn_redmax *rm, const dyn_rm_crank *c, int n);
/* Slider-crank i's control force f0 (finite); DYN_ERR_INPUT otherwise. */
DYN_API dyn_err dyn_redmax_set_crank_force(dyn_redmax *rm, int i, double f0);

/* Copy the state out: q[nq], u[ndof] (either may be NULL). */
DYN_API void dyn_redmax_get_state(const dyn_redmax *rm, double *q, double *u);
/* Set the state: q[nq] (a ball quaternion is normalised unless it is unit to
 * rounding, | |Q| - 1 | <= 8 DBL_EPSILON, which is kept bit for bit: a saved
 * state restored is the state saved), u[ndof]; either
 * may be NULL (kept).  DYN_ERR_INPUT for a non-finite value or a zero ball
 * quaternion (state left unchanged). */
DYN_API dyn_err dyn_redmax_set_state(dyn_redmax *rm, const double *q, const double *u, char *msg,
                                     size_t msgcap);

/* Forward kinematics, J and dJ/dt (docs/redmax.md; RedMax's Algorithms 1 and 2) at the
 * current state, into the workspace.  The functions below call it
 * themselves; it is public for tests and for callers that read J. */
DYN_API void dyn_redmax_kinematics(dyn_redmax *rm);

/* After dyn_redmax_kinematics: copy J and dJ/dt (6 nb x ndof, column-major,
 * leading dimension ld >= 6 nb; either may be NULL).  Row block i holds
 * body i's twist (omega_b, v_b): body-frame angular velocity and body-frame
 * velocity of its centre of mass (RedMax eq. 18's phi^i, docs/redmax.md, with the body
 * frame at the centre of mass). */
DYN_API void dyn_redmax_jacobian(const dyn_redmax *rm, double *J, double *Jdot, int ld);

/* World pose and velocity of body i at the current state: centre of mass
 * r, orientation q (body -> world), linear velocity v of the centre of mass
 * and angular velocity w, world frame (any pointer may be NULL).  Computes
 * the kinematics.  DYN_ERR_INPUT for i out of range. */
DYN_API dyn_err dyn_redmax_body_state(dyn_redmax *rm, int i, dyn_v3 *r, dyn_quat *q, dyn_v3 *v,
                                      dyn_v3 *w);
/* The same for all bodies as constants c[nb] (mass, inertia; shape NONE)
 * and states s[nb] (pose, v, w; loads 0), out, as a maximal-coordinate
 * world's bodies. */
DYN_API dyn_err dyn_redmax_export_bodies(dyn_redmax *rm, dyn_body_const *c, dyn_body_state *s,
                                         char *msg, size_t msgcap);

/* Reduced mass Mr = J^T M J (ndof x ndof, column-major, leading dimension
 * ld >= ndof, out) at the current state. */
DYN_API void dyn_redmax_mass_matrix(dyn_redmax *rm, double *Mr, int ld);

/* Accelerations du/dt[ndof] (out) of eq. (28) at the current state under
 * gravity g (m/s^2) and the optional world loads f_ext[nb] (N, at the
 * centres of mass) and t_ext[nb] (N m), springs and dampers explicit.
 * DYN_ERR_NUMERIC (message) when Mr is not positive definite or a value is
 * not finite. */
DYN_API dyn_err dyn_redmax_accel(dyn_redmax *rm, dyn_v3 g, const dyn_v3 *f_ext, const dyn_v3 *t_ext,
                                 double *udot, char *msg, size_t msgcap);

/* One step of h (s) > 0: semi-implicit Euler with linearly implicit joint
 * springs and dampers (see redmax.c):
 *   (Mr + h D + h^2 K) (u+ - u) = h (f_r - K q - D u - h K u),  q+ = q (+) h u+.
 * Loads as in dyn_redmax_accel.  DYN_ERR_INPUT for h <= 0 or non-finite;
 * DYN_ERR_NUMERIC when the matrix is not positive definite or the new state
 * is not finite (the state is then left unchanged). */
DYN_API dyn_err dyn_redmax_step(dyn_redmax *rm, double h, dyn_v3 g, const dyn_v3 *f_ext,
                                const dyn_v3 *t_ext, char *msg, size_t msgcap);

/* ---- the pieces of a step, for a caller that adds constraint impulses
 * (the reduced world step, world_reduced.c; docs/redmax.md, "Contacts") --- */

/* The free velocity of a step of h (s) > 0 under g and the loads (as
 * dyn_redmax_step): ufree[ndof] = u + (Mr + armature + h D + h^2 K)^-1 h
 * (f_r - D u - h K u), with that matrix left factored (L^T D L) for
 * dyn_redmax_solve.  Errors as dyn_redmax_step's; the state is unchanged. */
DYN_API dyn_err dyn_redmax_free_velocity(dyn_redmax *rm, double h, dyn_v3 g, const dyn_v3 *f_ext,
                                         const dyn_v3 *t_ext, double *ufree, char *msg,
                                         size_t msgcap);
/* After dyn_redmax_free_velocity: B[ndof x nrhs] (column-major, leading
 * dimension ld >= ndof) overwritten by the factored matrix's inverse times
 * B, tree by tree (the matrix is block diagonal, one block per tree of the
 * forest).  DYN_ERR_INPUT for ld < ndof. */
DYN_API dyn_err dyn_redmax_solve(dyn_redmax *rm, double *B, int nrhs, int ld);
/* The forest: the bodies hanging from one root (parent -1) are a tree, and
 * the step's matrix is block diagonal, one block per tree over its dofs.
 * dyn_redmax_solve_tree: after dyn_redmax_free_velocity, tree t's rows of
 * b[ndof] overwritten by its block's inverse times them (the other rows
 * untouched); DYN_ERR_INPUT for t out of range. */
DYN_API dyn_err dyn_redmax_solve_tree(const dyn_redmax *rm, int t, double *b);
DYN_API int dyn_redmax_tree_count(const dyn_redmax *rm);
/* Tree t's dofs, ascending, into *dofs (rm's own array): their number (0,
 * *dofs NULL, for t out of range). */
DYN_API int dyn_redmax_tree_dofs(const dyn_redmax *rm, int t, const int **dofs);
/* The tree whose dofs move body i; -1 when none does (a body welded to the
 * world) or i is out of range. */
DYN_API int dyn_redmax_body_tree(const dyn_redmax *rm, int i);
/* The state advanced by h with the new velocities unew[ndof]: u = unew,
 * hinge and slide q += h u, ball Q = Q exp(h u / 2).  DYN_ERR_NUMERIC (state
 * unchanged) when the new state is not finite. */
DYN_API dyn_err dyn_redmax_advance(dyn_redmax *rm, double h, const double *unew, char *msg,
                                   size_t msgcap);
/* After dyn_redmax_kinematics: the world poses and velocities of every
 * body (r, q, v, w: nb each; any may be NULL). */
DYN_API void dyn_redmax_poses(const dyn_redmax *rm, dyn_v3 *r, dyn_quat *q, dyn_v3 *v, dyn_v3 *w);
/* After dyn_redmax_free_velocity: its matrix Mr + armature + h D + h^2 K,
 * unfactored (ndof x ndof, column-major), rm's own array, made on the
 * first call (NULL: out of memory) and rewritten by each: the global
 * form's M.  The step itself keeps it sparse (docs/redmax.md). */
DYN_API const double *dyn_redmax_step_matrix(dyn_redmax *rm);
/* The dofs that move body i (its joint's and its ancestors', ascending)
 * into *dofs (rm's own array, valid while rm lives): the columns of J's
 * row block i that may be nonzero, the rest being 0.  Their number; 0 (and
 * *dofs NULL) for i out of range. */
DYN_API int dyn_redmax_body_dofs(const dyn_redmax *rm, int i, const int **dofs);
/* The kind of joint i (DYN_RM_*), 0 for i out of range. */
DYN_API int dyn_redmax_joint_kind(const dyn_redmax *rm, int i);

/* Kinetic energy T = u^T Mr u / 2 (the sum over bodies of
 * m |v|^2 / 2 + w.(I w) / 2) and potential energy V = -sum_i m_i g . r_i
 * plus the joint springs (k theta^2 / 2, k |log Q|^2 / 2), in J (either
 * pointer may be NULL). */
DYN_API void dyn_redmax_energy(dyn_redmax *rm, dyn_v3 g, double *T, double *V);
/* Of that, the joints' own share at the current state, without kinematics:
 * the armature's kinetic energy sum arm u^2 / 2 into *T and the joint
 * springs' potential into *V (J). */
DYN_API void dyn_redmax_joint_energy(const dyn_redmax *rm, double *T, double *V);

#ifdef __cplusplus
}
#endif

#endif /* DYN_REDMAX_H */
