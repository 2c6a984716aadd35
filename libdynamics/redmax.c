/*
 * redmax.c -- reduced-coordinate dynamics of articulated trees of rigid
 * bodies joined by hinges, slides, balls and welds, after RedMax (docs/redmax.md;
 * [wang2019], sec. 4, eqs. 17-28 and Algorithms 1-2; Wang, Weidner, Baxter, Hwang, Kaufman,
 * Sueda 2019, "RedMax: Efficient & flexible approach for articulated
 * dynamics", ACM TOG 38(4)).  Public interface and state layout:
 * dyn_redmax.h.
 *
 * Frames.  Body i's frame has its origin at the centre of mass, its axes the
 * body axes (so its 6x6 spatial mass is the constant M_i = diag(I_b, m I3)).
 * Joint i has a frame j fixed to the parent p (origin at the anchor, axes
 * parallel to the world at the initial configuration) and a copy j' carried
 * by the child.  With E = [R p; 0 1] ([wang2019] eq. 17) the fixed transforms
 * taken at the initial configuration (r0, R0 the initial poses, a the
 * anchor) are
 *     E_j^p  = (R_p0^T, R_p0^T (a - r_p0))     (E_j^0 = (I, a) for a root)
 *     E_i^j' = (R_i0,   r_i0 - a)
 * and the joint transform between j and j' is a pure rotation Q(q):
 *     hinge: Q = AngleAxis(theta, axis),   ball: Q = R(joint quaternion).
 * Forward kinematics ([wang2019] eqs. 15-16), by a traversal parents first:
 *     E_i^0 = E_p^0 E_j^p Q(q_i) E_i^j'.
 *
 * Twists ([wang2019] eq. 18), ordered (omega, v), body frame; v is the body-frame
 * velocity of the origin, here the centre of mass.  The adjoint of
 * E = (R, p) is
 *     Ad(E) = [ R     0 ]          ad(V) = [ [w]  0  ]  for V = (w, v).
 *             [ [p]R  R ],                 [ [v] [w] ]
 * Joint twists phi_j = S u ([wang2019] eq. 20), constant S here:
 *     hinge: S = (axis, 0) (6x1), u = dtheta/dt;
 *     ball:  S = [I3; 0]   (6x3), u = relative angular velocity in j',
 *            dQ/dt = 1/2 Q (0, u): u is a quasi-velocity (dyn_redmax.h
 *            explains the departure from RedMax's S(q) = [B(q); 0]).
 * Jacobian phi = J u ([wang2019] eqs. 22-25) assembled by Algorithm 1/2:
 *     J(i, j_i)  = Ad(E_j'^i) S                       (constant here)
 *     J(i, j_a)  = Ad(E_p^i) J(p, j_a)                for every ancestor a
 *     dJ(i, j_i) = Ad(E_j'^i) dS/dt = 0
 *     dJ(i, j_a) = dAd(E_p^i) J(p, j_a) + Ad(E_p^i) dJ(p, j_a)
 *   with E_p^i = (E_i^p)^-1.  E_i^p moves with body twist V = J(i, j_i) u_i
 *   relative to p (dE/dt = E [V]^), so d(E^-1)/dt = -[V]^ E^-1 and
 *     dAd(E_p^i)/dt = -ad(V) Ad(E_p^i).
 *   Ad(E_p^i) is formed from the world poses: R = R_i^T R_p,
 *   p = R_i^T (r_p - r_i).
 *
 * Dynamics.  Per body, in the body frame ([wang2019] eq. 26):
 *     M_i dphi_i/dt = f_i,  f_i = ( R^T t - w x I_b w,  R^T (f + m g) - w x m v )
 * and projecting with the virtual power principle J^T f_joint = 0 ([wang2019]
 * eq. 28, which holds for quasi-velocities too):
 *     Mr du/dt = f_r,  Mr = J^T M J,
 *     f_r = J^T (f - M dJ/dt u) - K q - D u
 * with the joint springs K q (hinge: k theta; ball: k log(Q), the rotation
 * vector, whose power k log(Q).u is exactly d/dt (k |log Q|^2 / 2) because
 * the right Jacobian of the exponential map leaves log(Q) fixed) and the
 * dampers D u.
 *
 * Time stepping (dyn_redmax_step).  [wang2019] gives eq. 28 in continuous
 * time.  RedMax integrates with linearly implicit (BDF1) Euler; for the
 * conservative part we take semi-implicit (symplectic) Euler, as the rest of
 * libdynamics does (integrate.c), and keep the springs and dampers
 * linearly implicit, as RedMax does, so stiff joints stay stable:
 *     (Mr + h D + h^2 K) du = h (f_r(q, u) - h K u),   u+ = u + du,
 *     hinge: theta+ = theta + h u+;  ball: Q+ = Q exp(h u+ / 2)
 * (for the ball the implicit spring term uses d log(Q)/dt ~ u, exact at
 * Q = I; the step remains first order).  Global error O(h); the energy of a
 * conservative system oscillates with an amplitude O(h) (tests check the
 * order).
 *
 * A forest.  The bodies hanging from one root (parent -1) are a tree; no
 * tree's joint moves another tree's body, so Mr (and the step's matrix) is
 * block diagonal, one block per tree t over its dofs (which need not be
 * contiguous in u: a list per tree).  Within a tree, Mr(c, a) can be
 * nonzero only when a is on c's path to the root (or c on a's): Mr is held
 * along those paths (MuJoCo's layout, redmax_forest.c), factored as
 * L^T D L leaves first (no fill outside the pattern) and solved by sparse
 * substitution (docs/redmax.md, "Dynamics and time stepping").
 *
 * Data layout: body i's rows of J (omega then v) are held over its path's
 * dofs only (MuJoCo's layout: its achain, its own dofs last first, then
 * its parent's path), 6 x (path length), column-major (dyn_rm_body_rows);
 * J's other columns are 0 and not stored, and J^T M J runs over the paths
 * only (dyn_redmax_jacobian makes J dense on request).  The twists phi = J u, dJ/dt u and
 * the force J^T f are recursions over the bodies (O(nb)); dJ/dt itself is
 * made only on request (dyn_redmax_jacobian).  Mr by composite rigid
 * bodies, leaves first (assemble_mass).  Cost per step O(sum_c depth_c)
 * over dofs c for J and Mr, O(sum_c depth_c^2) for a factor, O(sum_c
 * depth_c) for each solve.
 *
 * Slides (S = (0, axis), the joint transform a translation d axis) and welds
 * (no dof) are joints too; massless frames (mass 0, I_b 0) carry joints
 * only, so several joints on one body, and a free joint (three slides and
 * a ball), are chains of frames; armature adds to Mr's diagonal.  Contacts
 * and limits: the reduced world step (world_reduced.c) uses the pieces of
 * the step (dyn_redmax_free_velocity, dyn_redmax_solve, dyn_redmax_advance).
 * Limitations: trees only (no loops, [wang2019] sec. 4.3); the ball joint's
 * implicit spring is linearised at Q = I.  Returns DYN_ERR_INPUT, DYN_ERR_NOMEM, DYN_ERR_NUMERIC
 * (dyn.h) with a message.  Only dyn_redmax_new allocates.
 */
#include "dyn_internal.h"
#include "dyn_redmax.h"
#include "redmax_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small 6x6 helpers (row-major) ------------------------------------- */

/* Ad(E) for E = (R, p): [R 0; [p]R R] */
static void adjoint(dyn_m3 R, dyn_v3 p, double A[36]) {
  dyn_m3 PR = dyn_m3_mul(dyn_m3_skew(p), R);
  memset(A, 0, 36 * sizeof(double));
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      A[6 * a + b] = R.m[3 * a + b];
      A[6 * (a + 3) + b] = PR.m[3 * a + b];
      A[6 * (a + 3) + b + 3] = R.m[3 * a + b];
    }
}

/* C = -ad(V) A with V = (w, v): ad(V) = [[w] 0; [v] [w]] */
static void neg_ad_times(const double V[6], const double A[36], double C[36]) {
  dyn_m3 W = dyn_m3_skew(dyn_v3_make(V[0], V[1], V[2]));
  dyn_m3 Vx = dyn_m3_skew(dyn_v3_make(V[3], V[4], V[5]));
  for (int col = 0; col < 6; col++) {
    dyn_v3 top = dyn_v3_make(A[col], A[6 + col], A[12 + col]);
    dyn_v3 bot = dyn_v3_make(A[18 + col], A[24 + col], A[30 + col]);
    dyn_v3 ct = dyn_m3_mulv(W, top);
    dyn_v3 cb = dyn_v3_add(dyn_m3_mulv(Vx, top), dyn_m3_mulv(W, bot));
    C[col] = -ct.x;
    C[6 + col] = -ct.y;
    C[12 + col] = -ct.z;
    C[18 + col] = -cb.x;
    C[24 + col] = -cb.y;
    C[30 + col] = -cb.z;
  }
}

/* y = -ad(V) x for V = (w, v), x = (a, b): -(w x a, v x a + w x b) */
static void neg_ad_vec(const double V[6], const double x[6], double y[6]) {
  dyn_v3 w = dyn_v3_make(V[0], V[1], V[2]), v = dyn_v3_make(V[3], V[4], V[5]);
  dyn_v3 a = dyn_v3_make(x[0], x[1], x[2]), b = dyn_v3_make(x[3], x[4], x[5]);
  dyn_v3 t = dyn_v3_cross(w, a), u = dyn_v3_add(dyn_v3_cross(v, a), dyn_v3_cross(w, b));
  y[0] = -t.x, y[1] = -t.y, y[2] = -t.z, y[3] = -u.x, y[4] = -u.y, y[5] = -u.z;
}

/* y[6] (+)= A[36] x[6] */
static void mul6(const double A[36], const double *x, double *y, int accumulate) {
  for (int a = 0; a < 6; a++) {
    double s = accumulate ? y[a] : 0.0;
    for (int b = 0; b < 6; b++) s += A[6 * a + b] * x[b];
    y[a] = s;
  }
}

/* y[6] = Ad x[6] for an adjoint Ad = [R 0; [p]R R] (row-major): its zero
 * block skipped, the sums in mul6's order (the same values). */
static void ad_mul(const double Ad[36], const double *x, double *y) {
  for (int a = 0; a < 3; a++) {
    const double *r = Ad + 6 * a;
    y[a] = r[0] * x[0] + r[1] * x[1] + r[2] * x[2];
  }
  for (int a = 3; a < 6; a++) {
    const double *r = Ad + 6 * a;
    y[a] = r[0] * x[0] + r[1] * x[1] + r[2] * x[2] + r[3] * x[3] + r[4] * x[4] + r[5] * x[5];
  }
}

static int all_finite(const double *x, int n) {
  for (int k = 0; k < n; k++)
    if (!isfinite(x[k])) return 0;
  return 1;
}

static int v3_finite(dyn_v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

/* Rotation vector log(Q) of a unit quaternion, angle in [0, pi]:
 * Q = (cos(t/2), sin(t/2) n) -> t n, with t = 2 atan2(|x|, |w|) after
 * choosing the sign w >= 0 (Q and -Q are one rotation).  For |x| small,
 * t / |x| = 2 atan(s/w)/s = (2/w)(1 - s^2/(3 w^2) + ...): below s = 1e-4
 * the next term (s/w)^4/5 < 2e-17 is under rounding. */
static dyn_v3 quat_log(dyn_quat Q) {
  if (Q.w < 0.0) Q = dyn_quat_make(-Q.w, -Q.x, -Q.y, -Q.z);
  dyn_v3 x = dyn_v3_make(Q.x, Q.y, Q.z);
  double s = dyn_v3_norm(x);
  double f = s < 1e-4 ? (2.0 / Q.w) * (1.0 - s * s / (3.0 * Q.w * Q.w)) : 2.0 * atan2(s, Q.w) / s;
  return dyn_v3_scale(x, f);
}

/* ---- construction ------------------------------------------------------ */

dyn_rm_body_def dyn_rm_body_def_default(void) {
  dyn_rm_body_def d;
  memset(&d, 0, sizeof d);
  d.parent = -1;
  d.joint = DYN_RM_HINGE;
  d.I_b = dyn_m3_zero();
  d.q = dyn_quat_identity();
  d.axis = dyn_v3_make(0.0, 0.0, 1.0);
  return d;
}

void dyn_redmax_free(dyn_redmax *rm) {
  if (!rm) return;
  free(rm->parent);
  free(rm->kind);
  free(rm->qoff);
  free(rm->uoff);
  free(rm->nd);
  free(rm->order);
  free(rm->mass);
  free(rm->I_b);
  free(rm->q_jp);
  free(rm->p_jp);
  free(rm->q_ij);
  free(rm->p_ij);
  free(rm->axis);
  free(rm->JS);
  free(rm->kdof);
  free(rm->ddof);
  free(rm->arm);
  free(rm->effort);
  free(rm->crank);
  free(rm->q);
  free(rm->u);
  free(rm->r);
  free(rm->qw);
  free(rm->J);
  free(rm->Adp);
  free(rm->pe);
  free(rm->crb);
  free(rm->acc);
  free(rm->phi);
  free(rm->fb);
  free(rm->tdof_off);
  free(rm->tdof);
  free(rm->dof_tree);
  free(rm->dof_loc);
  free(rm->adof_off);
  free(rm->adof);
  free(rm->achain);
  free(rm->acol);
  free(rm->torder);
  free(rm->dpar);
  free(rm->dlen);
  free(rm->dbody);
  free(rm->madr);
  free(rm->Ms);
  free(rm->As);
  free(rm->LD);
  free(rm->Astep);
  free(rm->rhs);
  free(rm->du);
  free(rm->qnew);
  free(rm);
}

/* 1 for a massless frame: mass 0 and I_b 0 (dyn_redmax.h). */
static int is_frame(const dyn_rm_body_def *d) {
  if (d->mass != 0.0) return 0;
  for (int k = 0; k < 9; k++)
    if (d->I_b.m[k] != 0.0) return 0;
  return 1;
}

/* Dofs and position coordinates of a joint kind. */
static int kind_dofs(int kind) { return kind == DYN_RM_BALL ? 3 : kind == DYN_RM_FIXED ? 0 : 1; }
static int kind_coords(int kind) { return kind == DYN_RM_BALL ? 4 : kind == DYN_RM_FIXED ? 0 : 1; }

/* Check defs[i] alone (parents are checked by the caller). */
static dyn_err check_def(const dyn_rm_body_def *d, int i, int nb, char *msg, size_t msgcap) {
  if (d->parent < -1 || d->parent >= nb || d->parent == i) {
    dyn_msgf(msg, msgcap, "defs[%d].parent = %d: must be -1 (world) or another body in 0..%d", i,
             d->parent, nb - 1);
    return DYN_ERR_INPUT;
  }
  if (d->joint < DYN_RM_HINGE || d->joint > DYN_RM_FIXED) {
    dyn_msgf(msg, msgcap,
             "defs[%d].joint = %d: not a joint kind (HINGE = 1, BALL = 2, SLIDE = 3, FIXED = 4)", i,
             (int)d->joint);
    return DYN_ERR_INPUT;
  }
  if ((d->joint == DYN_RM_HINGE || d->joint == DYN_RM_SLIDE) &&
      (!v3_finite(d->axis) || !(dyn_v3_norm(d->axis) > 0.0))) {
    dyn_msgf(msg, msgcap, "defs[%d].axis = (%g, %g, %g): an axis must be finite and nonzero", i,
             d->axis.x, d->axis.y, d->axis.z);
    return DYN_ERR_INPUT;
  }
  if (!v3_finite(d->anchor)) {
    dyn_msgf(msg, msgcap, "defs[%d].anchor is not finite", i);
    return DYN_ERR_INPUT;
  }
  if (!(d->stiffness >= 0.0) || !isfinite(d->stiffness)) {
    dyn_msgf(msg, msgcap, "defs[%d].stiffness = %g: must be finite and >= 0", i, d->stiffness);
    return DYN_ERR_INPUT;
  }
  if (!(d->damping >= 0.0) || !isfinite(d->damping)) {
    dyn_msgf(msg, msgcap, "defs[%d].damping = %g: must be finite and >= 0", i, d->damping);
    return DYN_ERR_INPUT;
  }
  if (!(d->armature >= 0.0) || !isfinite(d->armature)) {
    dyn_msgf(msg, msgcap, "defs[%d].armature = %g: must be finite and >= 0", i, d->armature);
    return DYN_ERR_INPUT;
  }
  if (is_frame(d)) { /* a massless frame: only its pose is checked */
    if (!v3_finite(d->r) || !(dyn_quat_norm(d->q) > 0.0) || !isfinite(dyn_quat_norm(d->q))) {
      dyn_msgf(msg, msgcap, "defs[%d]: a massless frame needs a finite r and a nonzero q", i);
      return DYN_ERR_INPUT;
    }
    return DYN_OK;
  }
  /* mass, inertia, q and r: the same rules as a maximal-coordinate body */
  dyn_body_const tmpc;
  dyn_body_state tmp;
  char sub[128];
  dyn_shape none;
  memset(&none, 0, sizeof none);
  none.kind = DYN_SHAPE_NONE;
  if (dyn_body_init(&tmpc, &tmp, d->mass, d->I_b, none, d->r, d->q, sub, sizeof sub) != DYN_OK) {
    dyn_msgf(msg, msgcap, "defs[%d]: %s", i, sub);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}


#define RM_ALLOC(ptr, count)                                                                       \
  do {                                                                                             \
    (ptr) = dyn_rm_calloc((size_t)(count), sizeof *(ptr));                                         \
    if (!(ptr)) goto nomem;                                                                        \
  } while (0)

/* Every chain of parents must reach the world within nb steps; a longer
 * one revisits a body: a cycle (DYN_ERR_INPUT, named). */
static dyn_err check_parents(const dyn_rm_body_def *defs, int nb, char *msg, size_t msgcap) {
  for (int i = 0; i < nb; i++) {
    int a = i, steps = 0;
    while (a >= 0 && steps <= nb) {
      a = defs[a].parent;
      steps++;
    }
    if (a >= 0) {
      dyn_msgf(msg, msgcap, "defs[%d].parent: the chain of parents from body %d is a cycle", i, i);
      return DYN_ERR_INPUT;
    }
  }
  return DYN_OK;
}

/* 1 when a massive body hangs at or below body i (defs' parents acyclic). */
static int moves_mass(const dyn_rm_body_def *defs, int nb, int i) {
  if (!is_frame(&defs[i])) return 1;
  for (int j = 0; j < nb; j++)
    if (!is_frame(&defs[j]))
      for (int a = defs[j].parent; a >= 0; a = defs[a].parent)
        if (a == i) return 1;
  return 0;
}

int dyn_rm_massless_joint(const dyn_rm_body_def *defs, int nb) {
  for (int i = 0; i < nb; i++)
    if (kind_dofs(defs[i].joint) > 0 && defs[i].armature == 0.0 && !moves_mass(defs, nb, i))
      return i;
  return -1;
}

dyn_err dyn_redmax_new(const dyn_rm_body_def *defs, int nb, dyn_redmax **out, char *msg,
                       size_t msgcap) {
  if (msg && msgcap > 0) msg[0] = '\0';
  if (!out) {
    dyn_msgf(msg, msgcap, "out pointer is NULL");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  if (!defs || nb < 1) {
    dyn_msgf(msg, msgcap, "nb = %d: need defs and at least one body", nb);
    return DYN_ERR_INPUT;
  }
  for (int i = 0; i < nb; i++) {
    dyn_err e = check_def(&defs[i], i, nb, msg, msgcap);
    if (e != DYN_OK) return e;
  }
  if (check_parents(defs, nb, msg, msgcap) != DYN_OK) return DYN_ERR_INPUT;
  int still = dyn_rm_massless_joint(defs, nb);
  if (still >= 0) {
    dyn_msgf(msg, msgcap,
             "defs[%d]: its joint moves no mass (a massless frame at a chain's end, armature 0): "
             "the joint-space inertia is singular",
             still);
    return DYN_ERR_INPUT;
  }

  dyn_redmax *rm = calloc(1, sizeof *rm);
  if (!rm) goto nomem;
  rm->nb = nb;
  RM_ALLOC(rm->parent, nb);
  RM_ALLOC(rm->kind, nb);
  RM_ALLOC(rm->qoff, nb);
  RM_ALLOC(rm->uoff, nb);
  RM_ALLOC(rm->nd, nb);
  RM_ALLOC(rm->order, nb);
  RM_ALLOC(rm->mass, nb);
  RM_ALLOC(rm->I_b, nb);
  RM_ALLOC(rm->q_jp, nb);
  RM_ALLOC(rm->p_jp, nb);
  RM_ALLOC(rm->q_ij, nb);
  RM_ALLOC(rm->p_ij, nb);
  RM_ALLOC(rm->axis, nb);
  RM_ALLOC(rm->JS, 18 * nb);
  RM_ALLOC(rm->r, nb);
  RM_ALLOC(rm->qw, nb);

  int nq = 0, ndof = 0;
  for (int i = 0; i < nb; i++) {
    const dyn_rm_body_def *d = &defs[i];
    rm->parent[i] = d->parent;
    rm->kind[i] = d->joint;
    rm->qoff[i] = nq;
    rm->uoff[i] = ndof;
    rm->nd[i] = kind_dofs(d->joint);
    nq += kind_coords(d->joint);
    ndof += rm->nd[i];
    dyn_quat qi0 = dyn_quat_normalize(d->q);
    if (!is_frame(d)) {
      dyn_body_const tmpc; /* validated above: reuse body.c's normalisation and symmetrisation */
      dyn_body_state tmp;
      dyn_shape none;
      memset(&none, 0, sizeof none);
      dyn_body_init(&tmpc, &tmp, d->mass, d->I_b, none, d->r, d->q, NULL, 0);
      rm->mass[i] = tmpc.mass;
      rm->I_b[i] = tmpc.I_b;
      qi0 = tmp.q;
    } /* a frame keeps mass 0 and I_b 0 (calloc) */
    /* E_j^p: joint frame parallel to the world at the initial pose */
    if (d->parent < 0) {
      rm->q_jp[i] = dyn_quat_identity();
      rm->p_jp[i] = d->anchor;
    } else {
      dyn_quat qp0 = dyn_quat_normalize(defs[d->parent].q);
      rm->q_jp[i] = dyn_quat_conj(qp0);
      rm->p_jp[i] = dyn_quat_rotate_inv(qp0, dyn_v3_sub(d->anchor, defs[d->parent].r));
    }
    /* E_i^j' */
    rm->q_ij[i] = qi0;
    rm->p_ij[i] = dyn_v3_sub(d->r, d->anchor);
    rm->axis[i] = dyn_v3_normalize(d->axis);
    /* J(i, j_i) = Ad(E_j'^i) S, E_j'^i = (R_ij^T, -R_ij^T p_ij) */
    dyn_m3 Rt = dyn_m3_transpose(dyn_quat_to_m3(qi0));
    dyn_v3 pt = dyn_v3_neg(dyn_m3_mulv(Rt, rm->p_ij[i]));
    double Ad[36];
    adjoint(Rt, pt, Ad);
    double *JS = rm->JS + 18 * i;
    if (d->joint == DYN_RM_HINGE || d->joint == DYN_RM_SLIDE) {
      /* hinge S = (axis, 0), slide S = (0, axis) */
      int o = d->joint == DYN_RM_SLIDE ? 3 : 0;
      double S[6] = { 0.0 };
      S[o] = rm->axis[i].x, S[o + 1] = rm->axis[i].y, S[o + 2] = rm->axis[i].z;
      mul6(Ad, S, JS, 0);
    } else if (d->joint == DYN_RM_BALL) {
      for (int c = 0; c < 3; c++) {
        double S[6] = { 0.0 };
        S[c] = 1.0;
        mul6(Ad, S, JS + 6 * c, 0);
      }
    }
  }
  rm->nq = nq;
  rm->ndof = ndof;

  /* traversal order: by depth, so that every parent precedes its children */
  {
    int k = 0;
    for (int depth = 0; k < nb && depth < nb; depth++)
      for (int i = 0; i < nb; i++) {
        int dd = 0;
        for (int a = rm->parent[i]; a >= 0; a = rm->parent[a]) dd++;
        if (dd == depth) rm->order[k++] = i;
      }
  }

  RM_ALLOC(rm->kdof, ndof);
  RM_ALLOC(rm->ddof, ndof);
  RM_ALLOC(rm->arm, ndof);
  RM_ALLOC(rm->effort, ndof);
  for (int i = 0; i < nb; i++)
    for (int c = 0; c < rm->nd[i]; c++) {
      rm->kdof[rm->uoff[i] + c] = defs[i].stiffness;
      rm->ddof[rm->uoff[i] + c] = defs[i].damping;
      rm->arm[rm->uoff[i] + c] = defs[i].armature;
    }
  RM_ALLOC(rm->q, nq);
  RM_ALLOC(rm->u, ndof);
  for (int i = 0; i < nb; i++)
    if (rm->kind[i] == DYN_RM_BALL) rm->q[rm->qoff[i]] = 1.0; /* identity quaternion */
  RM_ALLOC(rm->Adp, 36 * nb);
  RM_ALLOC(rm->pe, nb);
  RM_ALLOC(rm->crb, nb);
  RM_ALLOC(rm->acc, 6 * nb);
  RM_ALLOC(rm->phi, 6 * nb);
  RM_ALLOC(rm->fb, 6 * nb);
  if (dyn_rm_forest_init(rm) != 0 || dyn_rm_paths_init(rm) != 0) goto nomem;
  RM_ALLOC(rm->J, 6 * (size_t)rm->adof_off[nb]); /* each body's rows over its path */
  RM_ALLOC(rm->rhs, ndof);
  RM_ALLOC(rm->du, ndof);
  RM_ALLOC(rm->qnew, nq);
  dyn_redmax_kinematics(rm);
  *out = rm;
  return DYN_OK;

nomem:
  dyn_redmax_free(rm);
  dyn_msgf(msg, msgcap, "out of memory for %d bodies", nb);
  return DYN_ERR_NOMEM;
}

/* ---- accessors --------------------------------------------------------- */

int dyn_redmax_nbodies(const dyn_redmax *rm) { return rm->nb; }
int dyn_redmax_nq(const dyn_redmax *rm) { return rm->nq; }
int dyn_redmax_ndof(const dyn_redmax *rm) { return rm->ndof; }

dyn_err dyn_redmax_offsets(const dyn_redmax *rm, int i, int *qoff, int *uoff) {
  if (i < 0 || i >= rm->nb) return DYN_ERR_INPUT;
  if (qoff) *qoff = rm->qoff[i];
  if (uoff) *uoff = rm->uoff[i];
  return DYN_OK;
}

void dyn_redmax_get_state(const dyn_redmax *rm, double *q, double *u) {
  if (q) memcpy(q, rm->q, (size_t)rm->nq * sizeof *q);
  if (u) memcpy(u, rm->u, (size_t)rm->ndof * sizeof *u);
}

dyn_err dyn_redmax_set_state(dyn_redmax *rm, const double *q, const double *u, char *msg,
                             size_t msgcap) {
  if (msg && msgcap > 0) msg[0] = '\0';
  if (q) {
    for (int k = 0; k < rm->nq; k++)
      if (!isfinite(q[k])) {
        dyn_msgf(msg, msgcap, "q[%d] = %g is not finite", k, q[k]);
        return DYN_ERR_INPUT;
      }
    for (int i = 0; i < rm->nb; i++) {
      const double *Q = q + rm->qoff[i];
      if (rm->kind[i] == DYN_RM_BALL &&
          !(Q[0] * Q[0] + Q[1] * Q[1] + Q[2] * Q[2] + Q[3] * Q[3] > 0.0)) {
        dyn_msgf(msg, msgcap, "q[%d..%d]: the quaternion of ball joint %d is zero", rm->qoff[i],
                 rm->qoff[i] + 3, i);
        return DYN_ERR_INPUT;
      }
    }
  }
  if (u)
    for (int k = 0; k < rm->ndof; k++)
      if (!isfinite(u[k])) {
        dyn_msgf(msg, msgcap, "u[%d] = %g is not finite", k, u[k]);
        return DYN_ERR_INPUT;
      }
  if (q) {
    memcpy(rm->q, q, (size_t)rm->nq * sizeof *q);
    for (int i = 0; i < rm->nb; i++)
      if (rm->kind[i] == DYN_RM_BALL) {
        double *Q = rm->q + rm->qoff[i];
        dyn_quat n = dyn_quat_make(Q[0], Q[1], Q[2], Q[3]);
        if (fabs(dyn_quat_norm(n) - 1.0) > 8.0 * DBL_EPSILON) n = dyn_quat_normalize(n);
        Q[0] = n.w, Q[1] = n.x, Q[2] = n.y, Q[3] = n.z;
      }
  }
  if (u) memcpy(rm->u, u, (size_t)rm->ndof * sizeof *u);
  rm->kin_fresh = 0;
  return DYN_OK;
}

/* joint rotation Q(q_i) between the frames j and j' (slide, fixed: none) */
static dyn_quat joint_rotation(const dyn_redmax *rm, int i) {
  const double *q = rm->q + rm->qoff[i];
  if (rm->kind[i] == DYN_RM_HINGE) return dyn_quat_axis_angle(rm->axis[i], q[0]);
  if (rm->kind[i] == DYN_RM_BALL) return dyn_quat_make(q[0], q[1], q[2], q[3]);
  return dyn_quat_identity();
}

/* joint translation between j and j', in j: d axis for a slide, else 0 */
static dyn_v3 joint_translation(const dyn_redmax *rm, int i) {
  if (rm->kind[i] != DYN_RM_SLIDE) return dyn_v3_make(0.0, 0.0, 0.0);
  return dyn_v3_scale(rm->axis[i], rm->q[rm->qoff[i]]);
}

/* ---- kinematics: poses, J, dJ/dt (Algorithm 2) ------------------------- */

/* Body i's pose from its parent's and its joint's coordinates (E_i^0 =
 * E_p^0 E_j^p Q E_i^j'). */
static void body_pose(dyn_redmax *rm, int i) {
  const int p = rm->parent[i];
  dyn_quat qp = p < 0 ? dyn_quat_identity() : rm->qw[p];
  dyn_v3 rp = p < 0 ? dyn_v3_make(0.0, 0.0, 0.0) : rm->r[p];
  dyn_quat Q = joint_rotation(rm, i);
  dyn_quat qj = dyn_quat_mul(qp, rm->q_jp[i]); /* joint frame j in the world */
  rm->qw[i] = dyn_quat_normalize(dyn_quat_mul(dyn_quat_mul(qj, Q), rm->q_ij[i]));
  dyn_v3 anchor = dyn_v3_add(rp, dyn_quat_rotate(qp, rm->p_jp[i]));
  dyn_v3 local = dyn_v3_add(joint_translation(rm, i), dyn_quat_rotate(Q, rm->p_ij[i]));
  rm->r[i] = dyn_v3_add(anchor, dyn_quat_rotate(qj, local));
}

/* The relative twist V = J(i, j_i) u_i of body i's joint. */
static void joint_twist(const dyn_redmax *rm, int i, double V[6]) {
  const double *JS = rm->JS + 18 * i;
  for (int a = 0; a < 6; a++) V[a] = 0.0;
  for (int c = 0; c < rm->nd[i]; c++)
    for (int a = 0; a < 6; a++) V[a] += JS[6 * c + a] * rm->u[rm->uoff[i] + c];
}

/* Body i's rows of J over its path (achain: its own dofs, last first, then
 * its parent's path; dyn_rm_body_rows): its own block JS, then every
 * column of the parent's rows carried by Ad(E_p^i) (Algorithm 1), its
 * twist phi_i = Ad phi_p + V and dJ/dt u for it, acc_i = dAd phi_p + Ad
 * acc_p (dJ(i, j_i) = 0, dJ(i, j_a) = dAd J(p, j_a) + Ad dJ(p, j_a) summed
 * against u; dAd = -ad(V) Ad): O(1) a body, not its depth, with Ad(E_p^i)
 * kept for J^T f. */
static void body_rows(dyn_redmax *rm, int i) {
  const int p = rm->parent[i], nd = rm->nd[i];
  const double *JS = rm->JS + 18 * i;
  double *Ji = rm->J + 6 * (size_t)rm->adof_off[i];
  for (int c = 0; c < nd; c++) memcpy(Ji + 6 * (nd - 1 - c), JS + 6 * c, 6 * sizeof(double));
  double V[6], *Ad = rm->Adp + 36 * i, *ph = rm->phi + 6 * i, *ac = rm->acc + 6 * i;
  joint_twist(rm, i, V);
  if (p < 0) {
    memcpy(ph, V, sizeof V);
    memset(ac, 0, 6 * sizeof(double));
    return;
  }
  /* Ad(E_p^i): R = R_i^T R_p, p = R_i^T (r_p - r_i) (Algorithm 2 line 7) */
  dyn_m3 Ri = dyn_quat_to_m3(rm->qw[i]), Rp = dyn_quat_to_m3(rm->qw[p]);
  rm->pe[i] = dyn_m3_tmulv(Ri, dyn_v3_sub(rm->r[p], rm->r[i]));
  adjoint(dyn_m3_mul(dyn_m3_transpose(Ri), Rp), rm->pe[i], Ad);
  const double *Jp = dyn_rm_body_rows(rm, p);
  const int na = rm->adof_off[p + 1] - rm->adof_off[p];
  for (int k = 0; k < na; k++) ad_mul(Ad, Jp + 6 * k, Ji + 6 * (nd + k));
  /* dAd phi_p = -ad(V) (Ad phi_p): no 6x6 dAd */
  double Aphi[6], Aacc[6];
  ad_mul(Ad, rm->phi + 6 * p, Aphi);
  ad_mul(Ad, rm->acc + 6 * p, Aacc);
  neg_ad_vec(V, Aphi, ac);
  for (int a = 0; a < 6; a++) ph[a] = Aphi[a] + V[a], ac[a] += Aacc[a];
}

void dyn_redmax_kinematics(dyn_redmax *rm) {
  for (int k = 0; k < rm->nb; k++) {
    body_pose(rm, rm->order[k]);
    body_rows(rm, rm->order[k]);
  }
  rm->kin_fresh = 1;
}

/* dJ/dt (6 nb x ndof, leading dimension ld, zeroed here) by Algorithm 2's
 * recursion, after kinematics: the step needs only dJ/dt u (rm->acc). */
static void jacobian_dot(const dyn_redmax *rm, double *Jd, int ld) {
  const int n6 = 6 * rm->nb;
  for (int c = 0; c < rm->ndof; c++) memset(Jd + (size_t)c * ld, 0, (size_t)n6 * sizeof *Jd);
  for (int k = 0; k < rm->nb; k++) {
    const int i = rm->order[k], p = rm->parent[i];
    if (p < 0) continue;
    double V[6], dAd[36];
    const double *Ad = rm->Adp + 36 * i;
    joint_twist(rm, i, V);
    neg_ad_times(V, Ad, dAd);
    const int *ch = rm->achain + rm->adof_off[p], na = rm->adof_off[p + 1] - rm->adof_off[p];
    const double *Jp = dyn_rm_body_rows(rm, p);
    for (int q = 0; q < na; q++) {
      const size_t c = (size_t)ch[q];
      mul6(dAd, Jp + 6 * q, Jd + c * ld + 6 * i, 0);
      mul6(Ad, Jd + c * ld + 6 * p, Jd + c * ld + 6 * i, 1);
    }
  }
}

/* J dense (6 nb x ndof, leading dimension ld): zero, then each body's rows
 * over its path put in their columns. */
static void jacobian_dense(const dyn_redmax *rm, double *J, int ld) {
  const int n6 = 6 * rm->nb;
  for (int c = 0; c < rm->ndof; c++) memset(J + (size_t)c * ld, 0, (size_t)n6 * sizeof *J);
  for (int i = 0; i < rm->nb; i++) {
    const int *ch = rm->achain + rm->adof_off[i], na = rm->adof_off[i + 1] - rm->adof_off[i];
    const double *Ji = dyn_rm_body_rows(rm, i);
    for (int k = 0; k < na; k++) memcpy(J + (size_t)ch[k] * ld + 6 * i, Ji + 6 * k, 6 * sizeof *J);
  }
}

void dyn_redmax_jacobian(const dyn_redmax *rm, double *J, double *Jdot, int ld) {
  if (J) jacobian_dense(rm, J, ld);
  if (Jdot) jacobian_dot(rm, Jdot, ld);
}

dyn_err dyn_redmax_body_state(dyn_redmax *rm, int i, dyn_v3 *r, dyn_quat *q, dyn_v3 *v, dyn_v3 *w) {
  if (i < 0 || i >= rm->nb) return DYN_ERR_INPUT;
  dyn_redmax_kinematics(rm);
  const double *ph = rm->phi + 6 * i;
  if (r) *r = rm->r[i];
  if (q) *q = rm->qw[i];
  /* world = R times the body-frame twist */
  if (w) *w = dyn_quat_rotate(rm->qw[i], dyn_v3_make(ph[0], ph[1], ph[2]));
  if (v) *v = dyn_quat_rotate(rm->qw[i], dyn_v3_make(ph[3], ph[4], ph[5]));
  return DYN_OK;
}

dyn_err dyn_redmax_export_bodies(dyn_redmax *rm, dyn_body_const *c, dyn_body_state *s, char *msg,
                                 size_t msgcap) {
  if (!c || !s) {
    dyn_msgf(msg, msgcap, "bodies is NULL");
    return DYN_ERR_INPUT;
  }
  dyn_redmax_kinematics(rm);
  dyn_shape none;
  memset(&none, 0, sizeof none);
  none.kind = DYN_SHAPE_NONE;
  for (int i = 0; i < rm->nb; i++) {
    dyn_err e = dyn_body_init(&c[i], &s[i], rm->mass[i], rm->I_b[i], none, rm->r[i], rm->qw[i], msg,
                              msgcap);
    if (e != DYN_OK) return e;
    const double *ph = rm->phi + 6 * i;
    s[i].w = dyn_quat_rotate(rm->qw[i], dyn_v3_make(ph[0], ph[1], ph[2]));
    s[i].v = dyn_quat_rotate(rm->qw[i], dyn_v3_make(ph[3], ph[4], ph[5]));
  }
  return DYN_OK;
}

/* ---- dynamics ---------------------------------------------------------- */

/* Body i's composite (it and every body below it) moved into its parent's
 * frame and added to the parent's: with (R, p) of Ad(E_p^i) (R = R_i^T
 * R_p, p the parent's origin in i's frame), the inertia about p is
 * I - ([h]^T [p] + [p]^T [h]) + m [p]^T [p] (parallel axes; [a]^T [b] =
 * (a.b) 1 - b a^T), turned into the parent's axes, R^T (.) R, and the
 * first moment R^T (h - m p). */
static void composite_to_parent(dyn_redmax *rm, int i, int p) {
  const dyn_rm_inertia *c = &rm->crb[i];
  const double *Ad = rm->Adp + 36 * i, m = c->m;
  const double P[3] = { rm->pe[i].x, rm->pe[i].y, rm->pe[i].z }, H[3] = { c->h.x, c->h.y, c->h.z };
  const double d = m * (P[0] * P[0] + P[1] * P[1] + P[2] * P[2]) -
                   2.0 * (H[0] * P[0] + H[1] * P[1] + H[2] * P[2]);
  double S[9], SR[9], g[3];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      S[3 * a + b] =
          c->I.m[3 * a + b] + (a == b ? d : 0.0) + P[a] * H[b] + H[a] * P[b] - m * P[a] * P[b];
  for (int a = 0; a < 3; a++) /* R is Ad's top left block (row-major) */
    for (int b = 0; b < 3; b++)
      SR[3 * a + b] = S[3 * a] * Ad[b] + S[3 * a + 1] * Ad[6 + b] + S[3 * a + 2] * Ad[12 + b];
  for (int a = 0; a < 3; a++) g[a] = H[a] - m * P[a];
  dyn_rm_inertia *o = &rm->crb[p];
  o->m += m;
  o->h.x += Ad[0] * g[0] + Ad[6] * g[1] + Ad[12] * g[2];
  o->h.y += Ad[1] * g[0] + Ad[7] * g[1] + Ad[13] * g[2];
  o->h.z += Ad[2] * g[0] + Ad[8] * g[1] + Ad[14] * g[2];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      o->I.m[3 * a + b] += Ad[a] * SR[b] + Ad[6 + a] * SR[3 + b] + Ad[12 + a] * SR[6 + b];
}

/* The rows of Mr of body i's own dofs, along their paths: Mr(c, a) =
 * J(i,c)^T IC_i J(i,a) for a at or above c on i's path, IC_i = [I [h];
 * [h]^T m 1] its composite's spatial inertia (for twists (omega, v):
 * IC_i (w, v) = (I w + h x v, m v - h x w)). */
static void own_mass_rows(dyn_redmax *rm, int i) {
  const dyn_rm_inertia *c = &rm->crb[i];
  const int nd = rm->nd[i], na = rm->adof_off[i + 1] - rm->adof_off[i];
  const double *Ji = dyn_rm_body_rows(rm, i);
  for (int j = 0; j < nd; j++) {
    const int col = nd - 1 - j; /* dof uoff + j's column: own dofs last first */
    const double *x = Ji + 6 * col;
    const dyn_v3 w = dyn_v3_make(x[0], x[1], x[2]), v = dyn_v3_make(x[3], x[4], x[5]);
    const dyn_v3 Fw = dyn_v3_add(dyn_m3_mulv(c->I, w), dyn_v3_cross(c->h, v));
    const dyn_v3 Fv = dyn_v3_sub(dyn_v3_scale(v, c->m), dyn_v3_cross(c->h, w));
    const double F[6] = { Fw.x, Fw.y, Fw.z, Fv.x, Fv.y, Fv.z };
    double *row = rm->Ms + rm->madr[rm->uoff[i] + j];
    for (int q = col; q < na; q++) {
      const double *y = Ji + 6 * q;
      double s = 0.0;
      for (int a = 0; a < 6; a++) s += y[a] * F[a];
      row[q - col] = s;
    }
  }
}

/* Mr = sum_i J_i^T M_i J_i, M_i = diag(I_b, m I3), after kinematics, along
 * the paths (rm->Ms), by composite rigid bodies ([featherstone2008], the
 * composite-rigid-body algorithm): leaves first, each body's composite
 * inertia (its M_i and its children's composites moved into its frame)
 * gives the rows of its own dofs, one 6-vector a dof and one product a
 * dof on its path (O(ndof x depth), not pairs of a body's path); a
 * subtree of massless frames has no rows (all 0). */
static void assemble_mass(dyn_redmax *rm) {
  memset(rm->Ms, 0, rm->nM * sizeof(double));
  for (int i = 0; i < rm->nb; i++)
    rm->crb[i] = (dyn_rm_inertia){ rm->mass[i], dyn_v3_make(0.0, 0.0, 0.0), rm->I_b[i] };
  for (int k = rm->nb - 1; k >= 0; k--) { /* leaves first: a body's children are done */
    const int i = rm->order[k], p = rm->parent[i];
    if (rm->crb[i].m == 0.0) continue; /* massless frames only: Mr's rows 0, nothing up */
    own_mass_rows(rm, i);
    if (p >= 0) composite_to_parent(rm, i, p);
  }
}

/* World force f at world point p on tree body i into fb (body frame:
 * torque, then force). */
static void add_point_force(dyn_redmax *rm, int i, dyn_v3 p, dyn_v3 f, dyn_v3 t) {
  t = dyn_v3_add(t, dyn_v3_cross(dyn_v3_sub(p, rm->r[i]), f));
  dyn_v3 tb = dyn_quat_rotate_inv(rm->qw[i], t), fb = dyn_quat_rotate_inv(rm->qw[i], f);
  double *o = rm->fb + 6 * i;
  o[0] += tb.x, o[1] += tb.y, o[2] += tb.z, o[3] += fb.x, o[4] += fb.y, o[5] += fb.z;
}

/* Slider-crank c's force on its bodies (dyn_rm_crank), after kinematics. */
static void crank_wrench(dyn_redmax *rm, const dyn_rm_crank *c) {
  dyn_v3 pc = dyn_v3_add(rm->r[c->crank], dyn_quat_rotate(rm->qw[c->crank], c->pc));
  dyn_v3 ps = c->ps, a = c->axis;
  if (c->slider >= 0) {
    ps = dyn_v3_add(rm->r[c->slider], dyn_quat_rotate(rm->qw[c->slider], c->ps));
    a = dyn_quat_rotate(rm->qw[c->slider], c->axis);
  }
  dyn_v3 v = dyn_v3_sub(pc, ps), dldv = a, dlda = v;
  double av = dyn_v3_dot(a, v), det = av * av + c->r * c->r - dyn_v3_dot(v, v), L = av;
  if (det > 0) {
    double sdet = sqrt(det);
    L = av - sdet;
    dlda = dyn_v3_scale(v, 1.0 - av / sdet);
    dldv = dyn_v3_add(dyn_v3_scale(a, 1.0 - av / sdet), dyn_v3_scale(v, 1.0 / sdet));
  }
  double F = c->gear * (c->f0 + c->b0 + c->k * c->gear * L);
  dyn_v3 zero = dyn_v3_make(0.0, 0.0, 0.0), f = dyn_v3_scale(dldv, F);
  add_point_force(rm, c->crank, pc, f, zero);
  if (c->slider >= 0)
    add_point_force(rm, c->slider, ps, dyn_v3_neg(f), dyn_v3_scale(dyn_v3_cross(a, dlda), F));
}

/* rhs = J^T fb, leaves first: body i's wrench with its subtree's
 * (F_i = fb_i + the children's Ad^T F), whose share on i's own dofs is
 * J(i, j_i)^T F_i = JS_i^T F_i (every descendant's row of J for a dof of i
 * is JS_i carried by the Ads down the path); fb is overwritten by F. */
static void body_forces_to_joints(dyn_redmax *rm) {
  for (int k = rm->nb - 1; k >= 0; k--) {
    const int i = rm->order[k], p = rm->parent[i];
    double *F = rm->fb + 6 * i;
    const double *JS = rm->JS + 18 * i;
    for (int c = 0; c < rm->nd[i]; c++) {
      double s = 0.0;
      for (int a = 0; a < 6; a++) s += JS[6 * c + a] * F[a];
      rm->rhs[rm->uoff[i] + c] = s;
    }
    if (p < 0) continue;
    const double *Ad = rm->Adp + 36 * i;
    double *Fp = rm->fb + 6 * p;
    for (int b = 0; b < 6; b++) {
      double s = 0.0;
      for (int a = 0; a < 6; a++) s += Ad[6 * a + b] * F[a];
      Fp[b] += s;
    }
  }
}

/* rhs = J^T (f - M dJ/dt u) - K q, without the damper term ([wang2019] eq. 28),
 * after kinematics */
static void assemble_force(dyn_redmax *rm, dyn_v3 g, const dyn_v3 *f_ext, const dyn_v3 *t_ext) {
  const int ndof = rm->ndof;
  for (int i = 0; i < rm->nb; i++) {
    const dyn_m3 Ib = rm->I_b[i];
    const double m = rm->mass[i];
    const double *ph = rm->phi + 6 * i;
    dyn_v3 w = dyn_v3_make(ph[0], ph[1], ph[2]), v = dyn_v3_make(ph[3], ph[4], ph[5]);
    const double *a = rm->acc + 6 * i; /* dJ/dt u for this body */
    dyn_v3 fw = dyn_v3_scale(g, m), tw = dyn_v3_make(0.0, 0.0, 0.0);
    if (f_ext) fw = dyn_v3_add(fw, f_ext[i]);
    if (t_ext) tw = t_ext[i];
    /* eq. 26: (R^T t - w x I w,  R^T f - w x m v), minus M dJ/dt u */
    dyn_v3 tb = dyn_v3_sub(dyn_quat_rotate_inv(rm->qw[i], tw), dyn_v3_cross(w, dyn_m3_mulv(Ib, w)));
    dyn_v3 fb = dyn_v3_sub(dyn_quat_rotate_inv(rm->qw[i], fw), dyn_v3_scale(dyn_v3_cross(w, v), m));
    tb = dyn_v3_sub(tb, dyn_m3_mulv(Ib, dyn_v3_make(a[0], a[1], a[2])));
    fb = dyn_v3_sub(fb, dyn_v3_scale(dyn_v3_make(a[3], a[4], a[5]), m));
    double *f = rm->fb + 6 * i;
    f[0] = tb.x, f[1] = tb.y, f[2] = tb.z, f[3] = fb.x, f[4] = fb.y, f[5] = fb.z;
  }
  for (int c = 0; c < rm->ncrank; c++) crank_wrench(rm, &rm->crank[c]);
  body_forces_to_joints(rm);
  /* the actuators' efforts, then the springs: -k theta, -k log(Q) */
  for (int c = 0; c < ndof; c++) rm->rhs[c] += rm->effort[c];
  for (int i = 0; i < rm->nb; i++) {
    const int o = rm->uoff[i];
    if (rm->nd[i] == 0 || rm->kdof[o] == 0.0) continue;
    if (rm->kind[i] != DYN_RM_BALL) {
      rm->rhs[o] -= rm->kdof[o] * rm->q[rm->qoff[i]];
    } else {
      dyn_v3 th = quat_log(joint_rotation(rm, i));
      rm->rhs[o] -= rm->kdof[o] * th.x;
      rm->rhs[o + 1] -= rm->kdof[o] * th.y;
      rm->rhs[o + 2] -= rm->kdof[o] * th.z;
    }
  }
}

dyn_err dyn_redmax_set_effort(dyn_redmax *rm, int i, double tau) {
  if (!rm || i < 0 || i >= rm->nb || rm->nd[i] != 1 || !isfinite(tau)) return DYN_ERR_INPUT;
  rm->effort[rm->uoff[i]] = tau;
  return DYN_OK;
}

dyn_err dyn_redmax_cranks_init(dyn_redmax *rm, const dyn_rm_crank *c, int n) {
  if (!rm || n < 0 || (n > 0 && !c)) return DYN_ERR_INPUT;
  for (int i = 0; i < n; i++) {
    double x[6] = { c[i].r, c[i].gear, c[i].k, c[i].b0, c[i].f0, dyn_v3_norm(c[i].axis) };
    for (int k = 0; k < 6; k++)
      if (!isfinite(x[k])) return DYN_ERR_INPUT;
    if (c[i].crank < 0 || c[i].crank >= rm->nb || c[i].slider < -1 || c[i].slider >= rm->nb ||
        !(c[i].r > 0) || !(x[5] > 0))
      return DYN_ERR_INPUT;
  }
  dyn_rm_crank *p = n > 0 ? malloc((size_t)n * sizeof *p) : NULL;
  if (n > 0 && !p) return DYN_ERR_NOMEM;
  if (n > 0) memcpy(p, c, (size_t)n * sizeof *p);
  free(rm->crank);
  rm->crank = p;
  rm->ncrank = n;
  return DYN_OK;
}

dyn_err dyn_redmax_set_crank_force(dyn_redmax *rm, int i, double f0) {
  if (!rm || i < 0 || i >= rm->ncrank || !isfinite(f0)) return DYN_ERR_INPUT;
  rm->crank[i].f0 = f0;
  return DYN_OK;
}

void dyn_redmax_mass_matrix(dyn_redmax *rm, double *Mr, int ld) {
  dyn_redmax_kinematics(rm);
  assemble_mass(rm);
  for (int c = 0; c < rm->ndof; c++) memset(Mr + (size_t)c * ld, 0, (size_t)rm->ndof * sizeof *Mr);
  dyn_rm_scatter_blocks(rm, rm->Ms, Mr, ld);
}

dyn_err dyn_redmax_accel(dyn_redmax *rm, dyn_v3 g, const dyn_v3 *f_ext, const dyn_v3 *t_ext,
                         double *udot, char *msg, size_t msgcap) {
  if (msg && msgcap > 0) msg[0] = '\0';
  const int n = rm->ndof;
  dyn_redmax_kinematics(rm);
  assemble_mass(rm);
  assemble_force(rm, g, f_ext, t_ext);
  dyn_rm_step_blocks(rm, rm->arm);
  for (int c = 0; c < n; c++) rm->du[c] = rm->rhs[c] - rm->ddof[c] * rm->u[c];
  if (!all_finite(rm->du, n)) {
    dyn_msgf(msg, msgcap, "generalised force is not finite");
    return DYN_ERR_NUMERIC;
  }
  dyn_err e = dyn_rm_factor_blocks(rm, msg, msgcap);
  if (e != DYN_OK) return e;
  dyn_rm_solve_blocks(rm, rm->du);
  memcpy(udot, rm->du, (size_t)n * sizeof(double));
  return DYN_OK;
}

/* (Mr + armature + h D + h^2 K) into rm->As and h (f_r - D u - h K u) into
 * rm->du, after kinematics (the step's matrix and right side). */
static void step_system(dyn_redmax *rm, double h) {
  const int n = rm->ndof;
  for (int c = 0; c < n; c++) { /* du as the diagonal's scratch */
    rm->du[c] = rm->arm[c] + h * rm->ddof[c] + h * h * rm->kdof[c];
  }
  dyn_rm_step_blocks(rm, rm->du);
  for (int c = 0; c < n; c++)
    rm->du[c] = h * (rm->rhs[c] - rm->ddof[c] * rm->u[c] - h * rm->kdof[c] * rm->u[c]);
}

dyn_err dyn_redmax_free_velocity(dyn_redmax *rm, double h, dyn_v3 g, const dyn_v3 *f_ext,
                                 const dyn_v3 *t_ext, double *ufree, char *msg, size_t msgcap) {
  if (msg && msgcap > 0) msg[0] = '\0';
  if (!(h > 0.0) || !isfinite(h)) {
    dyn_msgf(msg, msgcap, "step h = %g: must be finite and > 0", h);
    return DYN_ERR_INPUT;
  }
  const int n = rm->ndof;
  if (!rm->kin_fresh) dyn_redmax_kinematics(rm); /* a caller that just exported poses has it */
  assemble_mass(rm);
  assemble_force(rm, g, f_ext, t_ext);
  step_system(rm, h);
  if (!all_finite(rm->du, n)) {
    dyn_msgf(msg, msgcap, "generalised force is not finite");
    return DYN_ERR_NUMERIC;
  }
  dyn_err e = dyn_rm_factor_blocks(rm, msg, msgcap);
  if (e != DYN_OK) return e;
  dyn_rm_solve_blocks(rm, rm->du);
  for (int c = 0; c < n; c++) ufree[c] = rm->u[c] + rm->du[c];
  return DYN_OK;
}

dyn_err dyn_redmax_solve(dyn_redmax *rm, double *B, int nrhs, int ld) {
  if (nrhs <= 0 || rm->ndof == 0) return DYN_OK;
  if (ld < rm->ndof) return DYN_ERR_INPUT;
  for (int j = 0; j < nrhs; j++) dyn_rm_solve_blocks(rm, B + (size_t)j * ld);
  return DYN_OK;
}

dyn_err dyn_redmax_advance(dyn_redmax *rm, double h, const double *unew, char *msg, size_t msgcap) {
  for (int i = 0; i < rm->nb; i++) {
    const double *uq = unew + rm->uoff[i];
    double *qn = rm->qnew + rm->qoff[i];
    if (rm->kind[i] == DYN_RM_HINGE || rm->kind[i] == DYN_RM_SLIDE) {
      qn[0] = rm->q[rm->qoff[i]] + h * uq[0];
    } else if (rm->kind[i] == DYN_RM_BALL) {
      /* Q+ = Q exp(h u / 2) = exp(h (R(Q) u) / 2) Q: integrate.c's exact
       * exponential map with the joint-frame velocity R(Q) u */
      dyn_quat Q = joint_rotation(rm, i);
      dyn_v3 wj = dyn_quat_rotate(Q, dyn_v3_make(uq[0], uq[1], uq[2]));
      dyn_quat Qn = dyn_quat_integrate(Q, wj, h, DYN_ORIENT_EXP);
      qn[0] = Qn.w, qn[1] = Qn.x, qn[2] = Qn.y, qn[3] = Qn.z;
    }
  }
  if (!all_finite(unew, rm->ndof) || !all_finite(rm->qnew, rm->nq)) {
    dyn_msgf(msg, msgcap, "new state is not finite");
    return DYN_ERR_NUMERIC;
  }
  memmove(rm->u, unew, (size_t)rm->ndof * sizeof(double));
  memcpy(rm->q, rm->qnew, (size_t)rm->nq * sizeof(double));
  rm->kin_fresh = 0;
  return DYN_OK;
}

dyn_err dyn_redmax_step(dyn_redmax *rm, double h, dyn_v3 g, const dyn_v3 *f_ext,
                        const dyn_v3 *t_ext, char *msg, size_t msgcap) {
  /* (Mr + h D + h^2 K) du = h (f_r - D u - h K u): u+ is the free velocity */
  dyn_err e = dyn_redmax_free_velocity(rm, h, g, f_ext, t_ext, rm->rhs, msg, msgcap);
  if (e != DYN_OK) return e;
  return dyn_redmax_advance(rm, h, rm->rhs, msg, msgcap);
}


const double *dyn_redmax_step_matrix(dyn_redmax *rm) {
  const size_t n = (size_t)rm->ndof;
  if (!rm->Astep) rm->Astep = dyn_rm_calloc(n * n, sizeof(double));
  if (!rm->Astep) return NULL;
  memset(rm->Astep, 0, n * n * sizeof(double));
  dyn_rm_scatter_blocks(rm, rm->As, rm->Astep, rm->ndof);
  return rm->Astep;
}

void dyn_redmax_poses(const dyn_redmax *rm, dyn_v3 *r, dyn_quat *q, dyn_v3 *v, dyn_v3 *w) {
  for (int i = 0; i < rm->nb; i++) {
    const double *ph = rm->phi + 6 * i;
    if (r) r[i] = rm->r[i];
    if (q) q[i] = rm->qw[i];
    if (w) w[i] = dyn_quat_rotate(rm->qw[i], dyn_v3_make(ph[0], ph[1], ph[2]));
    if (v) v[i] = dyn_quat_rotate(rm->qw[i], dyn_v3_make(ph[3], ph[4], ph[5]));
  }
}

int dyn_redmax_joint_kind(const dyn_redmax *rm, int i) {
  return i >= 0 && i < rm->nb ? rm->kind[i] : 0;
}

/* Body i's joint's armature energy into *t and spring potential into *v
 * (added). */
static void joint_energy(const dyn_redmax *rm, int i, double *t, double *v) {
  for (int c = 0; c < rm->nd[i]; c++) {
    double uc = rm->u[rm->uoff[i] + c];
    *t += 0.5 * rm->arm[rm->uoff[i] + c] * uc * uc;
  }
  const double k = rm->nd[i] > 0 ? rm->kdof[rm->uoff[i]] : 0.0;
  if (k == 0.0) return;
  if (rm->kind[i] != DYN_RM_BALL) {
    double th = rm->q[rm->qoff[i]];
    *v += 0.5 * k * th * th;
  } else {
    dyn_v3 th = quat_log(joint_rotation(rm, i));
    *v += 0.5 * k * dyn_v3_dot(th, th);
  }
}

void dyn_redmax_energy(dyn_redmax *rm, dyn_v3 g, double *T, double *V) {
  dyn_redmax_kinematics(rm);
  double t = 0.0, v = 0.0;
  for (int i = 0; i < rm->nb; i++) {
    const double *ph = rm->phi + 6 * i;
    dyn_v3 w = dyn_v3_make(ph[0], ph[1], ph[2]), vc = dyn_v3_make(ph[3], ph[4], ph[5]);
    t += 0.5 * rm->mass[i] * dyn_v3_dot(vc, vc) + 0.5 * dyn_v3_dot(w, dyn_m3_mulv(rm->I_b[i], w));
    v -= rm->mass[i] * dyn_v3_dot(g, rm->r[i]);
    joint_energy(rm, i, &t, &v);
  }
  if (T) *T = t;
  if (V) *V = v;
}

void dyn_redmax_joint_energy(const dyn_redmax *rm, double *T, double *V) {
  double t = 0.0, v = 0.0;
  for (int i = 0; i < rm->nb; i++) joint_energy(rm, i, &t, &v);
  if (T) *T = t;
  if (V) *V = v;
}
