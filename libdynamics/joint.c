/*
 * joint.c -- the constraint rows of joints in maximal coordinates: ball,
 * hinge, slider, hinge-2, universal, fixed; limits, motors, soft rows.
 *
 * Notation (docs/contact.md, "Joints"): bodies a (there i) and b (j),
 * centres r_a, r_b, rotations R_a = R(q_a), R_b; world angular velocities.
 * Body b = -1 is the world (r = 0, q = 1).  Anchors p_a = r_a + R_a anc_a,
 * p_b = r_b + R_b anc_b, lever arms ra = p_a - r_a, rb = p_b - r_b.  Every
 * row is the time derivative of a position-level function Phi(s), exact at
 * any pose (tests compare J with central differences of Phi):
 *     dPhi/dt = J u = J_a (v_a, w_a) + J_b (v_b, w_b).
 * Identities used below: d(R x)/dt = w x (R x), e.(w x r) = w.(r x e),
 * dq/dt = 1/2 (0, w) q (dyn_math.h's convention).
 *
 * Building blocks (a joint kind is two of them):
 *   BALL (3 rows; ball-in-socket), Phi = p_a - p_b:
 *       J_a = (E, -[ra]x) -> row k: (e_k, ra x e_k);  J_b row k: (-e_k, -(rb x e_k)).
 *   ROT (3 rows; the slider/fixed rotation rows, "2 v" of q_err):
 *       E = q_a q0 q_b^* (identity when b keeps its initial attitude relative
 *       to a), sign chosen with E.w >= 0, Phi = 2 vec(E).  From
 *       dE/dt = 1/2 (0,w_a) E - 1/2 E (0,w_b):
 *           dPhi/dt = (e0 I - [e]x) w_a - (e0 I + [e]x) w_b,
 *       i.e. (w_a - w_b) on the manifold (docs/contact.md's J_ang = E, -E).
 *   HINGE_ANG (2 rows; the hinge's rows 4, 5): s = R_a axis_a, t1, t2 =
 *       R_b perp_b, so that (t1, t2, s) is right-handed when aligned.
 *       Phi = (-s.t2, s.t1), d(s.t)/dt = (s x t).(w_a - w_b): the rows are
 *       t1.(w_a - w_b), t2.(w_a - w_b) on the manifold (s x t1 = t2,
 *       s x t2 = -t1), and -k_cor Phi = k_cor (t1.u, t2.u) with u = s_a x s_b,
 *       docs/contact.md's b_hinge exactly.
 *   SLIDE (2 rows; the slider's rows 4, 5, as derived in docs/contact.md,
 *       "Joints"): t_k = R_a perp_k_a, Phi_k = t_k . (p_a - p_b):
 *           J_a = (t_k, (p_b - r_a) x t_k),  J_b = (-t_k, -(rb x t_k)).
 *       With the anchor at the midpoint of the centres (and p_a = p_b) this is
 *       the symmetric form (t, 1/2 c x t, -t, 1/2 c x t), c = r_b - r_a.
 *   AXES (1 row; the hinge-2 / universal row 4): s1 = R_a axis_a,
 *       s2 = R_b axis_b, Phi = s1.s2 - cos0,  J = (0, s1 x s2, 0, -(s1 x s2));
 *       -k_cor Phi = k_cor (cos phi - cos theta0) ~ k_cor sin(phi) (theta0 -
 *       phi): docs/contact.md's k_cor (theta - phi) (universal: k_cor s1.s2) with the
 *       row u.(w_a - w_b) = -sin(phi) dphi/dt, u = s1 x s2.
 *   hinge = BALL + HINGE_ANG, slider = ROT + SLIDE, hinge-2 = universal =
 *   BALL + AXES (cos0 = initial s1.s2, 0 for universal), fixed = BALL + ROT
 *   (docs/contact.md's fixed joint is BALL with the anchor at b's centre).
 *
 * Joint coordinates (limits, motors):
 *   slider: d = s . (p_b - p_a) (d_dis = s . (c - r_off)), J = -(SLIDE row
 *       with t = s).
 *   hinge, hinge-2 wheel: q_r = q_a^* q_b q0^* = (w, v) (a's frame; q_rel
 *       of docs/contact.md, "Limits and motors", conjugated), n = twist_a,
 *       y = v.n, theta = 2 atan2(y, w): the
 *       twist of q_r about n, continuous while the quaternions move
 *       continuously (it wraps only at +-2 pi).  dq_r/dt = 1/2 (0, W) q_r with
 *       W = R_a^T (w_b - w_a), so
 *           dtheta/dt = W . g,  g = (w^2 n + w (v x n) + y v) / (w^2 + y^2),
 *       J = (0, -R_a g, 0, R_a g); on the manifold g = n (docs' -s, +s).  For
 *       hinge-2 with q_r = R(s1, alpha) R(n, beta), this is beta exactly when
 *       s1 is perpendicular to n (g = n + tan(alpha/2) s1 x n, W.g = dbeta/dt).
 *       w^2 + y^2 -> 0 only at a 180-degree violation; there g = n is used.
 *
 * Bias: rhs = -(erp / h) Phi (docs/contact.md, "CFM and ERP": b = k_cor *
 * error, k_cor = k_erp / h);
 * the solved row gives J u+ = rhs - cfm x, so Phi+ ~ (1 - erp) Phi for a hard
 * row.  Limits (docs/contact.md, "Limits and motors"): unilateral rows, the general implicit form
 * C(q) >= 0 with C = c - lo (lower) or hi - c (upper), written only when
 * C <= 0, rhs = k_cor (limit - c), restitution as contact.c's max rule.
 * Motors: a boxed row, |x| <= lambda_max h (x is an impulse).
 *
 * Soft rows (docs/contact.md, "CFM and ERP"; ODE's spring mapping; RedMax
 * [wang2019] eq. 14): the
 * implicit-Euler spring-damper f = -k Phi - c dPhi/dt with Phi+ = Phi + h J u+
 * and x = h f gives J u+ = -(hk/(hk+c)) Phi / h - x / (h (hk + c)):
 *     erp = h k / (h k + c),  row cfm = 1 / (h (h k + c)) = cfm_force / h.
 *
 * Limitations: hinge-2 has no suspension, no steering limit or motor; the
 * wheel angle is the exact gimbal angle only for perpendicular axes; a motor
 * driving away from an active limit leaves two rows with the same J (A
 * singular there); angles wrap at +-2 pi.  Nothing allocates.  Errors:
 * DYN_ERR_INPUT with a message naming the field.
 */
#include <math.h>
#include <string.h>

#include "dyn_assemble_internal.h"
#include "dyn_joint.h"

static const double TWO_PI = 6.283185307179586476925286766559;

/* ---- poses ---------------------------------------------------------------- */

typedef struct pose {
  dyn_v3 r;
  dyn_quat q;
  dyn_v3 v, w;
  int row_body; /* index written into the rows, -1 if static / world */
} pose;

static pose get_pose(dyn_bodies bodies, int i) {
  pose p;
  memset(&p, 0, sizeof p);
  p.q = dyn_quat_identity();
  p.row_body = -1;
  if (i < 0) return p;
  p.r = bodies.s[i].r;
  p.q = bodies.s[i].q;
  if (!bodies.c[i].is_static) {
    p.v = bodies.s[i].v;
    p.w = bodies.s[i].w;
    p.row_body = i;
  }
  return p;
}

static int unit_ok(dyn_v3 a) { return dyn_ai_v3_finite(a) && fabs(dyn_v3_norm(a) - 1.0) <= 1e-6; }

static int has_coord(dyn_joint_kind k) {
  return k == DYN_JOINT_SLIDER || k == DYN_JOINT_HINGE || k == DYN_JOINT_HINGE2;
}

int dyn_joint_base_rows(dyn_joint_kind kind) {
  switch (kind) {
  case DYN_JOINT_BALL: return 3;
  case DYN_JOINT_HINGE: return 5;
  case DYN_JOINT_SLIDER: return 5;
  case DYN_JOINT_HINGE2: return 4;
  case DYN_JOINT_UNIVERSAL: return 4;
  case DYN_JOINT_FIXED: return 6;
  }
  return 0;
}

/* ---- construction and validation ------------------------------------------ */

dyn_err dyn_joint_init(dyn_joint *j, dyn_joint_kind kind, dyn_bodies bodies, int nb, int a, int b,
                       dyn_v3 anchor, dyn_v3 axis1, dyn_v3 axis2, char *msg, size_t cap) {
  if (msg && cap > 0) msg[0] = '\0';
  if (!j || !bodies.c || !bodies.s) {
    dyn_msgf(msg, cap, "joint init: NULL joint or bodies");
    return DYN_ERR_INPUT;
  }
  if (dyn_joint_base_rows(kind) == 0) {
    dyn_msgf(msg, cap, "joint init: kind=%d is not a dyn_joint_kind", (int)kind);
    return DYN_ERR_INPUT;
  }
  if (a < 0 || a >= nb || b < -1 || b >= nb || a == b) {
    dyn_msgf(msg, cap,
             "joint init: bodies a=%d, b=%d must satisfy 0 <= a < nb=%d, "
             "-1 <= b < nb, a != b",
             a, b, nb);
    return DYN_ERR_INPUT;
  }
  if (!dyn_ai_v3_finite(anchor)) {
    dyn_msgf(msg, cap, "joint init: anchor is not finite");
    return DYN_ERR_INPUT;
  }
  int need1 = kind != DYN_JOINT_BALL && kind != DYN_JOINT_FIXED;
  int need2 = kind == DYN_JOINT_HINGE2 || kind == DYN_JOINT_UNIVERSAL;
  double n1 = dyn_v3_norm(axis1), n2 = dyn_v3_norm(axis2);
  if (need1 && (!dyn_ai_v3_finite(axis1) || !(n1 > 0.0))) {
    dyn_msgf(msg, cap, "joint init: axis1 must be finite and nonzero");
    return DYN_ERR_INPUT;
  }
  if (need2 && (!dyn_ai_v3_finite(axis2) || !(n2 > 0.0))) {
    dyn_msgf(msg, cap, "joint init: axis2 must be finite and nonzero");
    return DYN_ERR_INPUT;
  }
  dyn_v3 s1 = need1 ? dyn_v3_scale(axis1, 1.0 / n1) : dyn_v3_make(0, 0, 1);
  dyn_v3 s2 = need2 ? dyn_v3_scale(axis2, 1.0 / n2) : dyn_v3_make(0, 0, 1);
  double c12 = dyn_v3_dot(s1, s2);
  /* |s1 x s2| >= 1e-3: below it the AXES row's gradient s1 x s2 vanishes */
  if (need2 && dyn_v3_norm(dyn_v3_cross(s1, s2)) < 1e-3) {
    dyn_msgf(msg, cap, "joint init: axis1 and axis2 are parallel (cos=%g)", c12);
    return DYN_ERR_INPUT;
  }
  /* universal: the axes at 90 degrees; 1e-6 as the unit-axis tolerance */
  if (kind == DYN_JOINT_UNIVERSAL && fabs(c12) > 1e-6) {
    dyn_msgf(msg, cap, "joint init: universal axes must be perpendicular (axis1.axis2=%g)", c12);
    return DYN_ERR_INPUT;
  }
  pose A = get_pose(bodies, a), B = get_pose(bodies, b);
  memset(j, 0, sizeof *j);
  j->kind = kind;
  j->a = a;
  j->b = b;
  j->anchor_a = dyn_quat_rotate_inv(A.q, dyn_v3_sub(anchor, A.r));
  j->anchor_b = dyn_quat_rotate_inv(B.q, dyn_v3_sub(anchor, B.r));
  j->axis_a = dyn_quat_rotate_inv(A.q, s1);
  j->axis_b = dyn_quat_rotate_inv(B.q, kind == DYN_JOINT_HINGE ? s1 : s2);
  dyn_contact_basis(j->axis_a, &j->perp1_a, &j->perp2_a);
  dyn_contact_basis(j->axis_b, &j->perp1_b, &j->perp2_b);
  j->twist_a = kind == DYN_JOINT_HINGE2 ? dyn_quat_rotate_inv(A.q, s2) : j->axis_a;
  j->q0 = dyn_quat_normalize(dyn_quat_mul(dyn_quat_conj(A.q), B.q));
  j->cos0 = kind == DYN_JOINT_HINGE2 ? c12 : 0.0;
  for (int r = 0; r < DYN_JOINT_MAX_BASE; r++) {
    j->erp[r] = 0.2;
    j->cfm[r] = 0.0;
  }
  j->limit.enabled = 0;
  j->limit.lo = -INFINITY;
  j->limit.hi = INFINITY;
  j->limit.erp = 0.2;
  j->motor.enabled = 0;
  memset(&j->spring, 0, sizeof j->spring);
  return DYN_OK;
}

dyn_err dyn_joint_validate(const dyn_joint *j, int nb, char *msg, size_t cap) {
  if (!j) {
    dyn_msgf(msg, cap, "joint: NULL");
    return DYN_ERR_INPUT;
  }
  int nbase = dyn_joint_base_rows(j->kind);
  if (nbase == 0) {
    dyn_msgf(msg, cap, "joint.kind=%d is not a dyn_joint_kind", (int)j->kind);
    return DYN_ERR_INPUT;
  }
  if (j->a < 0 || j->a >= nb) {
    dyn_msgf(msg, cap, "joint.a=%d must be in [0, nb=%d)", j->a, nb);
    return DYN_ERR_INPUT;
  }
  if (j->b < -1 || j->b >= nb || j->b == j->a) {
    dyn_msgf(msg, cap, "joint.b=%d must be in [-1, nb=%d) and differ from a=%d", j->b, nb, j->a);
    return DYN_ERR_INPUT;
  }
  if (!dyn_ai_v3_finite(j->anchor_a) || !dyn_ai_v3_finite(j->anchor_b)) {
    dyn_msgf(msg, cap, "joint.anchor_a / anchor_b must be finite");
    return DYN_ERR_INPUT;
  }
  const struct {
    const char *name;
    dyn_v3 v;
  } ax[] = { { "axis_a", j->axis_a },   { "axis_b", j->axis_b },   { "perp1_a", j->perp1_a },
             { "perp2_a", j->perp2_a }, { "perp1_b", j->perp1_b }, { "perp2_b", j->perp2_b },
             { "twist_a", j->twist_a } };
  if (j->kind != DYN_JOINT_BALL && j->kind != DYN_JOINT_FIXED)
    for (size_t k = 0; k < sizeof ax / sizeof ax[0]; k++)
      if (!unit_ok(ax[k].v)) {
        dyn_msgf(msg, cap, "joint.%s=(%g, %g, %g) must be a unit vector", ax[k].name, ax[k].v.x,
                 ax[k].v.y, ax[k].v.z);
        return DYN_ERR_INPUT;
      }
  double qn = dyn_quat_norm(j->q0);
  if (!isfinite(qn) || fabs(qn - 1.0) > 1e-6) {
    dyn_msgf(msg, cap, "joint.q0 must be a unit quaternion (|q0|=%g)", qn);
    return DYN_ERR_INPUT;
  }
  if (!(fabs(j->cos0) < 1.0)) {
    dyn_msgf(msg, cap, "joint.cos0=%g must be in (-1, 1)", j->cos0);
    return DYN_ERR_INPUT;
  }
  for (int r = 0; r < nbase; r++) {
    if (!(j->erp[r] >= 0.0 && j->erp[r] <= 1.0)) {
      dyn_msgf(msg, cap, "joint.erp[%d]=%g must be in [0, 1]", r, j->erp[r]);
      return DYN_ERR_INPUT;
    }
    if (!(j->cfm[r] >= 0.0) || !isfinite(j->cfm[r])) {
      dyn_msgf(msg, cap, "joint.cfm[%d]=%g must be finite and >= 0", r, j->cfm[r]);
      return DYN_ERR_INPUT;
    }
  }
  if ((j->limit.enabled || j->motor.enabled || j->spring.enabled) && !has_coord(j->kind)) {
    dyn_msgf(msg, cap,
             "joint.limit / joint.motor / joint.spring: only slider, hinge and hinge-2 have "
             "them (kind=%d)",
             (int)j->kind);
    return DYN_ERR_INPUT;
  }
  if (j->spring.enabled) {
    const dyn_joint_springdamper *S = &j->spring;
    if (!(S->stiffness >= 0.0) || !isfinite(S->stiffness) || !(S->damping >= 0.0) ||
        !isfinite(S->damping) || !(S->stiffness + S->damping > 0.0) || !isfinite(S->ref)) {
      dyn_msgf(msg, cap, "joint.spring.stiffness=%g, damping=%g, ref=%g: finite, >= 0, not both 0",
               S->stiffness, S->damping, S->ref);
      return DYN_ERR_INPUT;
    }
  }
  if (j->limit.enabled) {
    const dyn_joint_limit *L = &j->limit;
    if (!isfinite(L->lo) || !isfinite(L->hi) || !(L->lo <= L->hi)) {
      dyn_msgf(msg, cap, "joint.limit.lo=%g, hi=%g must be finite with lo <= hi", L->lo, L->hi);
      return DYN_ERR_INPUT;
    }
    /* the angle is defined on (-2 pi, 2 pi) (quaternion double cover) */
    if (j->kind != DYN_JOINT_SLIDER && !(L->lo > -TWO_PI && L->hi < TWO_PI)) {
      dyn_msgf(msg, cap, "joint.limit.lo=%g, hi=%g: angles must lie in (-2 pi, 2 pi)", L->lo,
               L->hi);
      return DYN_ERR_INPUT;
    }
    if (!(L->erp >= 0.0 && L->erp <= 1.0)) {
      dyn_msgf(msg, cap, "joint.limit.erp=%g must be in [0, 1]", L->erp);
      return DYN_ERR_INPUT;
    }
    if (!(L->cfm >= 0.0) || !isfinite(L->cfm)) {
      dyn_msgf(msg, cap, "joint.limit.cfm=%g must be finite and >= 0", L->cfm);
      return DYN_ERR_INPUT;
    }
    if (!(L->restitution >= 0.0 && L->restitution <= 1.0)) {
      dyn_msgf(msg, cap, "joint.limit.restitution=%g must be in [0, 1]", L->restitution);
      return DYN_ERR_INPUT;
    }
  }
  if (j->motor.enabled) {
    const dyn_joint_motor *M = &j->motor;
    if (!isfinite(M->target_vel)) {
      dyn_msgf(msg, cap, "joint.motor.target_vel=%g must be finite", M->target_vel);
      return DYN_ERR_INPUT;
    }
    if (!(M->max_force >= 0.0) || !isfinite(M->max_force)) {
      dyn_msgf(msg, cap, "joint.motor.max_force=%g must be finite and >= 0", M->max_force);
      return DYN_ERR_INPUT;
    }
    if (!(M->cfm >= 0.0) || !isfinite(M->cfm)) {
      dyn_msgf(msg, cap, "joint.motor.cfm=%g must be finite and >= 0", M->cfm);
      return DYN_ERR_INPUT;
    }
  }
  return DYN_OK;
}

int dyn_joint_max_rows(const dyn_joint *j) {
  /* nb is unknown here: validate against the largest index the joint names */
  if (!j) return 0;
  int nb = (j->a > j->b ? j->a : j->b) + 1;
  if (dyn_joint_validate(j, nb, NULL, 0) != DYN_OK) return 0;
  return dyn_joint_base_rows(j->kind) + (j->limit.enabled ? 1 : 0) + (j->motor.enabled ? 1 : 0) +
         (j->spring.enabled ? 1 : 0);
}

/* ---- the blocks: Phi and J -------------------------------------------------- */

/* One row: lin/ang parts on a and b (dropped on a static side). */
typedef struct jrow {
  dyn_v3 la, aa, lb, ab;
  double phi;
} jrow;

typedef struct geom {
  pose A, B;
  dyn_v3 pa, pb, ra, rb; /* anchors and lever arms, world */
} geom;

static geom get_geom(dyn_bodies bodies, const dyn_joint *j) {
  geom g;
  g.A = get_pose(bodies, j->a);
  g.B = get_pose(bodies, j->b);
  g.ra = dyn_quat_rotate(g.A.q, j->anchor_a);
  g.rb = dyn_quat_rotate(g.B.q, j->anchor_b);
  g.pa = dyn_v3_add(g.A.r, g.ra);
  g.pb = dyn_v3_add(g.B.r, g.rb);
  return g;
}

static const dyn_v3 ZERO3 = { 0.0, 0.0, 0.0 };

static void ball_rows(const geom *g, jrow *o) {
  dyn_v3 d = dyn_v3_sub(g->pa, g->pb);
  double dv[3] = { d.x, d.y, d.z };
  for (int k = 0; k < 3; k++) {
    dyn_v3 e = dyn_v3_make(k == 0, k == 1, k == 2);
    o[k].la = e;
    o[k].aa = dyn_v3_cross(g->ra, e);
    o[k].lb = dyn_v3_neg(e);
    o[k].ab = dyn_v3_neg(dyn_v3_cross(g->rb, e));
    o[k].phi = dv[k];
  }
}

static void rot_rows(const geom *g, const dyn_joint *j, jrow *o) {
  dyn_quat E = dyn_quat_mul(dyn_quat_mul(g->A.q, j->q0), dyn_quat_conj(g->B.q));
  if (E.w < 0.0) E = dyn_quat_make(-E.w, -E.x, -E.y, -E.z);
  /* Ma = e0 I - [e]x, Mb = e0 I + [e]x (row-major) */
  dyn_m3 S = dyn_m3_skew(dyn_v3_make(E.x, E.y, E.z));
  dyn_m3 I0 = dyn_m3_diag(E.w, E.w, E.w);
  dyn_m3 Ma = dyn_m3_add(I0, dyn_m3_scale(S, -1.0)), Mb = dyn_m3_add(I0, S);
  double ev[3] = { E.x, E.y, E.z };
  for (int k = 0; k < 3; k++) {
    o[k].la = ZERO3;
    o[k].lb = ZERO3;
    o[k].aa = dyn_v3_make(Ma.m[3 * k], Ma.m[3 * k + 1], Ma.m[3 * k + 2]);
    o[k].ab = dyn_v3_make(-Mb.m[3 * k], -Mb.m[3 * k + 1], -Mb.m[3 * k + 2]);
    o[k].phi = 2.0 * ev[k];
  }
}

static void hinge_ang_rows(const geom *g, const dyn_joint *j, jrow *o) {
  dyn_v3 s = dyn_quat_rotate(g->A.q, j->axis_a);
  dyn_v3 t1 = dyn_quat_rotate(g->B.q, j->perp1_b), t2 = dyn_quat_rotate(g->B.q, j->perp2_b);
  dyn_v3 st1 = dyn_v3_cross(s, t1), st2 = dyn_v3_cross(s, t2);
  /* Phi3 = -s.t2: d/dt = -(s x t2).(w_a - w_b) */
  o[0].la = o[0].lb = o[1].la = o[1].lb = ZERO3;
  o[0].aa = dyn_v3_neg(st2);
  o[0].ab = st2;
  o[0].phi = -dyn_v3_dot(s, t2);
  /* Phi4 = s.t1: d/dt = (s x t1).(w_a - w_b) */
  o[1].aa = st1;
  o[1].ab = dyn_v3_neg(st1);
  o[1].phi = dyn_v3_dot(s, t1);
}

/* Phi = t . (p_a - p_b) with t = R_a t_a fixed in a */
static void slide_row(const geom *g, dyn_v3 t_a, jrow *o) {
  dyn_v3 t = dyn_quat_rotate(g->A.q, t_a);
  dyn_v3 d = dyn_v3_sub(g->pa, g->pb);
  o->la = t;
  o->aa = dyn_v3_cross(dyn_v3_sub(g->pb, g->A.r), t);
  o->lb = dyn_v3_neg(t);
  o->ab = dyn_v3_neg(dyn_v3_cross(g->rb, t));
  o->phi = dyn_v3_dot(t, d);
}

static void axes_row(const geom *g, const dyn_joint *j, jrow *o) {
  dyn_v3 s1 = dyn_quat_rotate(g->A.q, j->axis_a), s2 = dyn_quat_rotate(g->B.q, j->axis_b);
  dyn_v3 u = dyn_v3_cross(s1, s2);
  o->la = o->lb = ZERO3;
  o->aa = u;
  o->ab = dyn_v3_neg(u);
  o->phi = dyn_v3_dot(s1, s2) - j->cos0;
}

/* The joint coordinate and its row (slider d, hinge / hinge-2 twist angle). */
static void coord_row(const geom *g, const dyn_joint *j, jrow *o) {
  if (j->kind == DYN_JOINT_SLIDER) {
    /* d = s.(p_b - p_a) = -(SLIDE row with t = s) */
    slide_row(g, j->axis_a, o);
    o->la = dyn_v3_neg(o->la);
    o->aa = dyn_v3_neg(o->aa);
    o->lb = dyn_v3_neg(o->lb);
    o->ab = dyn_v3_neg(o->ab);
    o->phi = -o->phi;
    return;
  }
  dyn_quat qr = dyn_quat_mul(dyn_quat_mul(dyn_quat_conj(g->A.q), g->B.q), dyn_quat_conj(j->q0));
  dyn_v3 n = j->twist_a, v = dyn_v3_make(qr.x, qr.y, qr.z);
  double w = qr.w, y = dyn_v3_dot(v, n), den = w * w + y * y;
  dyn_v3 gb = n;
  /* den is cos^2 of half the off-axis tilt: 1e-12 only near a 180-degree violation */
  if (den > 1e-12)
    gb = dyn_v3_scale(
        dyn_v3_add(dyn_v3_add(dyn_v3_scale(n, w * w), dyn_v3_scale(dyn_v3_cross(v, n), w)),
                   dyn_v3_scale(v, y)),
        1.0 / den);
  dyn_v3 gw = dyn_quat_rotate(g->A.q, gb);
  o->la = o->lb = ZERO3;
  o->aa = dyn_v3_neg(gw);
  o->ab = gw;
  o->phi = 2.0 * atan2(y, w);
}

/* Base rows of the joint into o (dyn_joint_base_rows of them). */
static int base_rows(const geom *g, const dyn_joint *j, jrow *o) {
  switch (j->kind) {
  case DYN_JOINT_BALL: ball_rows(g, o); return 3;
  case DYN_JOINT_HINGE:
    ball_rows(g, o);
    hinge_ang_rows(g, j, o + 3);
    return 5;
  case DYN_JOINT_SLIDER:
    rot_rows(g, j, o);
    slide_row(g, j->perp1_a, o + 3);
    slide_row(g, j->perp2_a, o + 4);
    return 5;
  case DYN_JOINT_HINGE2:
  case DYN_JOINT_UNIVERSAL:
    ball_rows(g, o);
    axes_row(g, j, o + 3);
    return 4;
  case DYN_JOINT_FIXED:
    ball_rows(g, o);
    rot_rows(g, j, o + 3);
    return 6;
  }
  return 0;
}

static int check_args(dyn_bodies bodies, int nb, const dyn_joint *j) {
  if (!bodies.c || !bodies.s || dyn_joint_validate(j, nb, NULL, 0) != DYN_OK) return 0;
  for (int k = 0; k < 2; k++) {
    int i = k ? j->b : j->a;
    if (i < 0) continue;
    if (!dyn_ai_v3_finite(bodies.s[i].r) || !isfinite(dyn_quat_norm(bodies.s[i].q))) return 0;
  }
  return 1;
}

int dyn_joint_phi(dyn_bodies bodies, int nb, const dyn_joint *j, double *phi) {
  if (!phi || !check_args(bodies, nb, j)) return DYN_ERR_INPUT;
  geom g = get_geom(bodies, j);
  jrow o[DYN_JOINT_MAX_BASE];
  int m = base_rows(&g, j, o);
  for (int r = 0; r < m; r++) phi[r] = o[r].phi;
  return m;
}

dyn_err dyn_joint_coord(dyn_bodies bodies, int nb, const dyn_joint *j, double *coord) {
  if (!coord || !check_args(bodies, nb, j) || !has_coord(j->kind)) return DYN_ERR_INPUT;
  geom g = get_geom(bodies, j);
  jrow o;
  coord_row(&g, j, &o);
  *coord = o.phi;
  return DYN_OK;
}

double dyn_joint_anchor_error(dyn_bodies bodies, int nb, const dyn_joint *j) {
  if (!check_args(bodies, nb, j)) return NAN;
  geom g = get_geom(bodies, j);
  if (j->kind == DYN_JOINT_SLIDER) {
    jrow o[2];
    slide_row(&g, j->perp1_a, &o[0]);
    slide_row(&g, j->perp2_a, &o[1]);
    return hypot(o[0].phi, o[1].phi);
  }
  return dyn_v3_norm(dyn_v3_sub(g.pa, g.pb));
}

/* ---- fill ------------------------------------------------------------------- */

static void put(dyn_rows *r, const geom *g, const jrow *o, int base) {
  memset(r, 0, sizeof *r);
  r->body[0] = g->A.row_body;
  r->body[1] = g->B.row_body;
  if (g->A.row_body >= 0) {
    double v[6] = { o->la.x, o->la.y, o->la.z, o->aa.x, o->aa.y, o->aa.z };
    memcpy(r->J[0], v, sizeof v);
  }
  if (g->B.row_body >= 0) {
    double v[6] = { o->lb.x, o->lb.y, o->lb.z, o->ab.x, o->ab.y, o->ab.z };
    memcpy(r->J[1], v, sizeof v);
  }
  r->lo = -INFINITY;
  r->hi = INFINITY;
  r->findex = -1;
  r->kind = DYN_ROW_PLAIN;
  r->base = base;
}

/* J u at the pre-step velocities (for restitution) */
static double row_vel(const geom *g, const jrow *o) {
  return dyn_v3_dot(o->la, g->A.v) + dyn_v3_dot(o->aa, g->A.w) + dyn_v3_dot(o->lb, g->B.v) +
         dyn_v3_dot(o->ab, g->B.w);
}

/* The spring-damper row on coordinate row c (the header, "Row order"):
 * implicit Euler of f = -k (coord - ref) - d dcoord/dt as one soft free
 * row (dyn_joint_spring).  Returns 1. */
static int spring_row(dyn_rows *r, const geom *g, const jrow *c, const dyn_joint_springdamper *S,
                      double h, int row0) {
  double erp = 0.0, cfm = 0.0;
  (void)dyn_joint_spring(S->stiffness, S->damping, h, &erp, NULL, &cfm); /* validated */
  put(r, g, c, row0);
  r->rhs = erp * (S->ref - c->phi) / h;
  r->cfm = cfm;
  return 1;
}

int dyn_joint_coord_rows(const dyn_joint_limit *L, const dyn_joint_motor *M, double cv, double vel,
                         double h, dyn_rows *R) {
  dyn_rows scratch[2];
  if (!R) { /* counted: the same logic on a scratch */
    memset(scratch, 0, sizeof scratch);
    R = scratch;
  }
  double F = M->max_force * h; /* impulse bound */
  int at_lo = L->enabled && cv <= L->lo, at_hi = L->enabled && cv >= L->hi;
  int motor_row = M->enabled, m = 0;
  if (at_lo || at_hi) {
    dyn_rows *r = &R[m];
    r->cfm = L->cfm;
    if (L->lo == L->hi) {
      /* locked at the target; with the motor: a position servo */
      r->rhs = L->erp * (L->lo - cv) / h;
      if (M->enabled) {
        r->rhs += M->target_vel;
        r->lo = -F;
        r->hi = F;
        motor_row = 0;
      }
    } else if (at_lo) {
      /* C = c - lo >= 0: dc/dt >= k_cor (lo - c), or the bounce */
      r->rhs = fmax(L->erp * (L->lo - cv) / h, -L->restitution * vel);
      r->lo = 0.0;
      r->hi = INFINITY;
      if (M->enabled && M->target_vel <= r->rhs) {
        /* motor pushing into the stop: it saturates at -F against it */
        r->lo = -F;
        motor_row = 0;
      }
    } else {
      /* C = hi - c >= 0, mirrored: dc/dt <= k_cor (hi - c), x <= 0 */
      r->rhs = fmin(L->erp * (L->hi - cv) / h, -L->restitution * vel);
      r->lo = -INFINITY;
      r->hi = 0.0;
      if (M->enabled && M->target_vel >= r->rhs) {
        r->hi = F;
        motor_row = 0;
      }
    }
    m++;
  }
  if (motor_row) {
    dyn_rows *r = &R[m];
    r->rhs = M->target_vel;
    r->lo = -F;
    r->hi = F;
    r->cfm = M->cfm;
    m++;
  }
  return m;
}

int dyn_joint_fill(dyn_bodies bodies, int nb, const dyn_joint *j, double h, dyn_rows *out,
                   int row0) {
  if (!out || row0 < 0 || !check_args(bodies, nb, j)) return DYN_ERR_INPUT;
  if (!(h > 0.0) || !isfinite(h)) return DYN_ERR_INPUT;
  geom g = get_geom(bodies, j);
  if (g.A.row_body < 0 && g.B.row_body < 0) return DYN_ERR_INPUT; /* nothing can move */
  jrow o[DYN_JOINT_MAX_BASE];
  int m = base_rows(&g, j, o);
  dyn_rows *R = out + row0;
  for (int r = 0; r < m; r++) {
    put(&R[r], &g, &o[r], row0);
    /* rhs = -k_cor Phi, k_cor = erp / h (docs/contact.md, "CFM and ERP") */
    R[r].rhs = -j->erp[r] * o[r].phi / h;
    R[r].cfm = j->cfm[r];
  }
  if (!j->limit.enabled && !j->motor.enabled && !j->spring.enabled) return m;

  jrow c;
  coord_row(&g, j, &c);
  double cv = c.phi, vel = row_vel(&g, &c);
  int nl = dyn_joint_coord_rows(&j->limit, &j->motor, cv, vel, h, NULL);
  for (int k = 0; k < nl; k++) put(&R[m + k], &g, &c, row0);
  m += dyn_joint_coord_rows(&j->limit, &j->motor, cv, vel, h, &R[m]);
  if (j->spring.enabled) m += spring_row(&R[m], &g, &c, &j->spring, h, row0);
  return m;
}

/* ---- soft rows -------------------------------------------------------------- */

dyn_err dyn_joint_spring(double k, double c, double h, double *erp, double *cfm_force,
                         double *cfm_row) {
  if (!(k >= 0.0) || !isfinite(k) || !(c >= 0.0) || !isfinite(c) || !(h > 0.0) || !isfinite(h) ||
      !(h * k + c > 0.0))
    return DYN_ERR_INPUT;
  double den = h * k + c;
  if (erp) *erp = h * k / den;
  if (cfm_force) *cfm_force = 1.0 / den;
  if (cfm_row) *cfm_row = 1.0 / (h * den);
  return DYN_OK;
}

dyn_err dyn_joint_set_spring(dyn_joint *j, int row, double k, double c, double h) {
  if (!j) return DYN_ERR_INPUT;
  int n = dyn_joint_base_rows(j->kind);
  if (n == 0 || row >= n) return DYN_ERR_INPUT;
  double erp, cfm;
  if (dyn_joint_spring(k, c, h, &erp, NULL, &cfm) != DYN_OK) return DYN_ERR_INPUT;
  for (int r = row < 0 ? 0 : row; r < (row < 0 ? n : row + 1); r++) {
    j->erp[r] = erp;
    j->cfm[r] = cfm;
  }
  return DYN_OK;
}
