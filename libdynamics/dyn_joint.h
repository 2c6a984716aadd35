/*
 * dyn_joint.h -- joints in maximal coordinates: ball-in-socket, hinge,
 * slider, hinge-2 (wheel), universal, fixed; their limits, motors and soft
 * (spring-damper) rows.  Public header of libdynamics (joint.c has the math).
 *
 * A joint ties body a to body b (b = -1: the static world, whose frame is
 * the world frame).  dyn_joint_init takes world-frame anchor and axes at the
 * bodies' current poses and stores them in the body frames, with the initial
 * relative orientation.  Every step, dyn_joint_fill writes its rows in the
 * dyn_rows format of dyn_constraint.h (the same as dyn_contact_fill), to be
 * assembled with the contact rows:
 *     w = J u+ - rhs + cfm x,   x = impulses (N s, or N m s for a torque):
 *         h times the constraint forces (docs/contact.md, "Joints").
 * Equality rows: lo = -inf, hi = +inf, rhs = -(erp / h) Phi (docs/contact.md,
 * "CFM and ERP": b_error = k_cor * error with k_cor = k_erp / h, signed so that the error
 * shrinks: Phi+ ~ Phi + h J u+ = (1 - erp) Phi).
 *
 * The struct is plain data (body indices only, no pointers), so a world can
 * keep an array of them; nothing here allocates.
 */
#ifndef DYN_JOINT_H
#define DYN_JOINT_H

#include <stddef.h>

#include "dyn.h"
#include "dyn_constraint.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dyn_joint_kind {
  DYN_JOINT_BALL = 0,  /* 3 rows: anchors coincide */
  DYN_JOINT_HINGE,     /* 5: anchors + axis of a stays the axis of b; 1 rotation left */
  DYN_JOINT_SLIDER,    /* 5: no relative rotation + b moves along the axis of a only */
  DYN_JOINT_HINGE2,    /* 4: anchors + angle between the steering axis (fixed in a)
                         and the wheel axis (fixed in b) kept at its initial value */
  DYN_JOINT_UNIVERSAL, /* 4: anchors + axis 1 (in a) perpendicular to axis 2 (in b) */
  DYN_JOINT_FIXED      /* 6: anchors + no relative rotation */
} dyn_joint_kind;

#define DYN_JOINT_MAX_BASE 6 /* largest number of equality rows (fixed joint) */

/* Limit on the joint coordinate (dyn_joint_coord): slider displacement d (m)
 * or hinge angle theta (rad); hinge-2: the wheel angle.  A lower row is
 * written only when coord <= lo, an upper row only when coord >= hi; both at
 * once (lo == hi) become one equality row, or, with the motor on, a
 * force-limited position servo (see dyn_joint_fill). */
typedef struct dyn_joint_limit {
  int enabled;
  double lo, hi;      /* lo <= hi; angles in (-2 pi, 2 pi) */
  double erp;         /* in [0, 1]: rhs includes (erp / h) * (limit - coord) */
  double cfm;         /* >= 0, impulse units (added to A(i,i)) */
  double restitution; /* in [0, 1]: rhs >= -restitution * (approach speed) */
} dyn_joint_limit;

/* Motor on the joint coordinate's rate (slider, hinge, hinge-2 wheel): the
 * row asks d(coord)/dt = target_vel with |force| <= max_force, i.e. the
 * impulse x in [-max_force h, +max_force h].  target_vel 0 = joint friction. */
typedef struct dyn_joint_motor {
  int enabled;
  double target_vel; /* m/s or rad/s */
  double max_force;  /* N (slider) or N m (hinge, hinge-2), >= 0, finite */
  double cfm;        /* >= 0, impulse units */
} dyn_joint_motor;

/* Spring-damper on the joint coordinate (slider, hinge, hinge-2 wheel):
 * the generalized force -stiffness (coord - ref) - damping d(coord)/dt,
 * integrated implicitly as one soft free row (erp and cfm of
 * dyn_joint_spring at the step h: docs/contact.md, "CFM and ERP"):
 * MJCF's joint stiffness, springref and damping (docs/models.md). */
typedef struct dyn_joint_springdamper {
  int enabled;
  double stiffness; /* N/m or N m/rad, >= 0, finite */
  double damping;   /* N s/m or N m s/rad, >= 0, finite; stiffness + damping > 0 */
  double ref;       /* coordinate where the spring is at rest (m or rad), finite */
} dyn_joint_springdamper;

typedef struct dyn_joint {
  dyn_joint_kind kind;
  int a, b; /* body indices; b = -1 is the world */
  /* geometry, set by dyn_joint_init (body frames; b's is the world's when b = -1) */
  dyn_v3 anchor_a, anchor_b; /* the anchor point in a's / b's frame */
  dyn_v3 axis_a;             /* hinge, slider: the axis; hinge-2, universal: axis 1 (a) */
  dyn_v3 axis_b;             /* hinge: the axis; hinge-2, universal: axis 2 (b) */
  dyn_v3 perp1_a, perp2_a;   /* slider: (perp1, perp2, axis) right-handed, in a */
  dyn_v3 perp1_b, perp2_b;   /* hinge: (perp1, perp2, axis) right-handed, in b */
  dyn_v3 twist_a;            /* axis about which the joint angle is measured, in a
                                  (hinge: the axis; hinge-2: the wheel axis at init) */
  dyn_quat q0;               /* initial relative orientation q_a^* q_b */
  double cos0;               /* hinge-2 / universal: initial axis1 . axis2 (0 universal) */
  /* softness of the equality rows, one entry per row (dyn_joint_base_rows) */
  double erp[DYN_JOINT_MAX_BASE]; /* in [0, 1] */
  double cfm[DYN_JOINT_MAX_BASE]; /* >= 0, impulse units: 1 / (h (h k + c)) for a spring */
  dyn_joint_limit limit;          /* slider, hinge, hinge-2 only */
  dyn_joint_motor motor;          /* slider, hinge, hinge-2 only */
  dyn_joint_springdamper spring;  /* slider, hinge, hinge-2 only */
} dyn_joint;

/* Initialises *j of the given kind between bodies a (in [0, nb)) and b (in
 * [-1, nb), b != a) at their current poses:
 *   anchor  world point (m) where the joint sits (every kind; slider: the
 *           point whose sideways drift is measured, docs/contact.md's choice
 *           being the midpoint of the two centres; fixed: b's centre there);
 *   axis1   unit world axis: hinge / slider axis, hinge-2 steering axis,
 *           universal axis 1 (ignored by ball, fixed);
 *   axis2   unit world axis: hinge-2 wheel axis, universal axis 2 (must be
 *           perpendicular to axis1 for universal; not parallel for hinge-2).
 * Axes are normalised here; a zero axis is an error.  erp = 0.2 and cfm = 0
 * on every row, limit and motor off (limit erp 0.2).  Returns DYN_OK or
 * DYN_ERR_INPUT with a message (msg may be NULL) naming the argument. */
DYN_API dyn_err dyn_joint_init(dyn_joint *j, dyn_joint_kind kind, dyn_bodies bodies, int nb, int a,
                               int b, dyn_v3 anchor, dyn_v3 axis1, dyn_v3 axis2, char *msg,
                               size_t msgcap);

/* DYN_OK or DYN_ERR_INPUT with a message naming the field ("joint.erp[2]=1.5
 * must be in [0, 1]"): kind, indices against nb, unit axes, finite
 * geometry, erp / cfm, limit (lo <= hi, angle range) and motor fields. */
DYN_API dyn_err dyn_joint_validate(const dyn_joint *j, int nb, char *msg, size_t msgcap);

/* Number of equality rows of a kind: 3, 5, 5, 4, 4, 6 (0 for a bad kind). */
DYN_API int dyn_joint_base_rows(dyn_joint_kind kind);

/* Upper bound on the rows dyn_joint_fill writes: base rows + 1 if the limit
 * is enabled + 1 if the motor is enabled + 1 if the spring is enabled; 0 for a joint that does not
 * validate (nb unknown here: indices are checked in fill). */
DYN_API int dyn_joint_max_rows(const dyn_joint *j);

/* Writes the rows of joint j into out[row0 ..] and returns their number m
 * (<= dyn_joint_max_rows), or a negative dyn_err (DYN_ERR_INPUT):
 *   bodies  in, size nb: r, q (and v, w for limit restitution), is_static;
 *   j       in: validated here;  h in: step (s), > 0;
 *   out     out: at least row0 + dyn_joint_max_rows(j) records.
 * Row order: the base rows (order of dyn_joint_phi), then the limit row (if
 * active), then the motor row (if written), then the spring row (if enabled:
 * J = dc, rhs = (erp/h)(ref - c), x free, cfm = dyn_joint_spring's cfm_row
 * of stiffness, damping and h).  A static body appears as -1.
 * Limit / motor rows (c = coord, dc = its J row, u = pre-step velocities):
 *   lower, c <= lo: J = dc, rhs = max((erp/h)(lo - c), -e dc.u), x in [0, inf)
 *   upper, c >= hi: J = dc, rhs = min((erp/h)(hi - c), -e dc.u), x in (-inf, 0]
 *   motor:          J = dc, rhs = target_vel, x in [-F h, F h]
 * (the upper row is the lower one mirrored in x, so that b^hi = k_cor (d_hi
 * - d) of docs/contact.md, "Limits and motors", holds; with J^hi = -J^lo and
 * x >= 0 the bias would need the opposite sign)
 * and the combinations: lo == hi: one row J = dc, rhs = (erp/h)(lo - c), x
 * free, or with the motor on x in [-F h, F h] and rhs + target_vel (a
 * position servo, docs/contact.md, "Limits and motors": limits at the
 * target, force bounded by the motor);
 * at a limit with the motor driving into it (target_vel at or past the
 * limit's rhs), the two merge into one row with x in [-F h, inf) (lower; upper
 * (-inf, F h]) (exact: the motor saturates against the stop); a motor driving away from an
 * active limit keeps both rows (same J up to sign: A is then singular on
 * those two rows; give the limit a cfm > 0 for solvers that need A(i,i) > 0
 * pivots). */
DYN_API int dyn_joint_fill(dyn_bodies bodies, int nb, const dyn_joint *j, double h, dyn_rows *out,
                           int row0);

/* Position-level constraint of the base rows: writes Phi (dyn_joint_base_rows
 * entries, m or dimensionless) so that d Phi / dt = J u exactly for the J that
 * fill writes, at any pose (not only on the constraint manifold):
 *   ball, hinge, hinge-2, universal, fixed rows 0-2: p_a - p_b (anchors, world)
 *   hinge rows 3, 4:  -s_a . t2_b,  s_a . t1_b   (s_a axis from a; t1, t2 from b)
 *   slider rows 0-2, fixed rows 3-5:  2 vec(E), E = q_a q0 q_b^* (sign with E.w >= 0)
 *   slider rows 3, 4:  t1_a . (p_a - p_b),  t2_a . (p_a - p_b)
 *   hinge-2, universal row 3:  s1_a . s2_b - cos0
 * Returns the count or DYN_ERR_INPUT. */
DYN_API int dyn_joint_phi(dyn_bodies bodies, int nb, const dyn_joint *j, double *phi);

/* The joint coordinate of limits and motors: slider d = s_a . (p_b - p_a)
 * (m); hinge theta and hinge-2 wheel angle = 2 atan2(v . n, w) (rad) of the
 * relative rotation (w, v) = q_a^* q_b q0^* about n = twist_a: continuous in
 * (-2 pi, 2 pi) as the quaternions move continuously (no jump at +-pi).
 * DYN_ERR_INPUT for the other kinds or bad indices. */
DYN_API dyn_err dyn_joint_coord(dyn_bodies bodies, int nb, const dyn_joint *j, double *coord);

/* Joint error for reports: |p_a - p_b| (m) between the two anchors; for the
 * slider, the sideways part (the anchors may separate along the axis).
 * NaN for bad input. */
DYN_API double dyn_joint_anchor_error(dyn_bodies bodies, int nb, const dyn_joint *j);

/* Spring-damper to soft-row mapping (ODE's, force form): a row of stiffness
 * k >= 0 (N/m or N m/rad) and damping c >= 0 (N s/m), k + c > 0, stepped with
 * h > 0, behaves as f = -k Phi - c dPhi/dt integrated by implicit Euler when
 *     erp = h k / (h k + c),   cfm_force = 1 / (h k + c).
 * Since x is an impulse here, the row's cfm (dyn_rows.cfm, dyn_joint.cfm[]) is
 * cfm_force / h.  RedMax's eq. 14 ([wang2019]; lambda = -k' J v, -J v - lambda / k' = 0)
 * is the case k = 0: its compliance 1 / k' is the row cfm with k' = h c (a
 * damper; a positional spring also needs the erp term).  Outputs may be
 * NULL.  DYN_ERR_INPUT for negative, non-finite or all-zero k, c, or bad h. */
DYN_API dyn_err dyn_joint_spring(double k, double c, double h, double *erp, double *cfm_force,
                                 double *cfm_row);

/* Sets erp[r], cfm[r] of every base row (r < dyn_joint_base_rows) from the
 * spring k, c at step h (dyn_joint_spring); rows < 0 means all rows, else only
 * row `row`.  DYN_ERR_INPUT as dyn_joint_spring, or a bad row. */
DYN_API dyn_err dyn_joint_set_spring(dyn_joint *j, int row, double k, double c, double h);

#ifdef __cplusplus
}
#endif
#endif /* DYN_JOINT_H */
