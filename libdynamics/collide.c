/* collide.c -- narrow phase: dispatch of one body pair on its two shape
 * kinds, and the closed-form routines for round shapes (spheres, capsules)
 * against each other and against static half-spaces.
 *
 * Contract (dyn.h; docs/contact.md, "Contact Jacobian"): a contact between bodies
 * a = ia and b = ib has a unit normal n pointing from a towards b, a depth
 * (penetration, > 0 when overlapping, < 0 for a gap) and a world point p
 * midway between the two surface points:
 *     s_a = deepest point of a towards b,  s_b = deepest point of b towards a,
 *     depth = (s_a - s_b) . n,  p = (s_a + s_b) / 2.
 * Only contacts with depth > -margin are written (a touching pair, depth 0,
 * gives nothing with margin 0).
 *
 * Half-space (DYN_SHAPE_PLANE): the bodies live in n . x >= d; the solid
 * occupies n . x <= d, so a point x penetrates it by  d - n . x.  Its
 * normal and offset are world quantities: the body's r and q are ignored.
 *
 * Round shapes are a core (a point for a sphere, the segment
 * r +- half_length R(q) e_z for a capsule) swept by a radius, so every
 * round pair reduces to the closest points of two cores c_a, c_b:
 *     dist = |c_b - c_a|,  n = (c_b - c_a) / dist,
 *     depth = r_a + r_b - dist,  s_a = c_a + r_a n,  s_b = c_b - r_b n
 *   - sphere-sphere: the centres;
 *   - capsule-sphere: the centre and its clamped projection on the segment;
 *   - capsule-capsule: closest points of two segments (Ericson 2005,
 *     Real-Time Collision Detection, sec 5.1.9, ClosestPtSegmentSegment);
 *     when the axes are parallel (sin^2 of their angle < 1e-5, ODE 0.16's
 *     dCollideCapsuleCapsule tolerance, about 3e-3 rad) and their
 *     projections overlap, the two ends of the overlap give two contacts
 *     (a capsule resting along another one, as ODE does);
 *   - sphere-plane: depth = d - n . c + r;
 *   - capsule-plane: the two end points, each as a sphere (up to 2 points).
 * When dist = 0 the normal is undefined; we take a documented default:
 * +z for two spheres; for a sphere centre on a capsule's segment, the
 * direction across the axis closest to +z; for two capsule segments that
 * meet, their common normal a x b (or, parallel, the direction across
 * the axis closest to +z).  Its sign is arbitrary (depth r_a + r_b).
 *
 * Dispatch: DYN_SHAPE_NONE never collides; two static bodies (is_static,
 * or any plane, which can never move) never collide.  Every routine is
 * written for one order of its two kinds (plane first, box before sphere
 * ...); for two bodies of the same kind the lower index goes first.  When
 * the caller's order differs the pair is computed in the canonical order
 * and the normals are flipped, so collide(a, b) and collide(b, a) give
 * bit-identical points and depths with opposite normals, and a, b are
 * always set to ia, ib.  Boxes (collide_box.c): box-plane, hull-plane,
 * box-sphere, box-box, box-capsule.  Every other pair (a hull against
 * anything but a plane) goes to GJK/EPA (gjk.c), one point.
 *
 * Limitations: at most DYN_MAX_MANIFOLD points per pair; no persistent
 * manifold (each call is independent); dyn_collide_pair returns
 * DYN_ERR_INPUT (< 0) for invalid input (indices, a non-finite pose, a
 * negative radius or half extent, a hull without vertices, an unknown
 * kind) -- an extension of the dyn.h contract.
 */
#include "dyn.h"
#include "dyn_internal.h"

#include <math.h>
#include <stddef.h>

/* Routines of collide_box.c (internal to the collision files; their
 * declarations belong in a private header, see the file comment there).
 * Each writes contacts with the normal from its first body to its second
 * and leaves a, b to the caller. */

/* ---- round cores ------------------------------------------------------- */

/* Contact of two balls (centre ca radius ra, centre cb radius rb); nd is
 * the normal used when the centres coincide.  Returns 1 and fills *c when
 * depth > -margin. */
__attribute__((always_inline)) static inline int
ball_ball(dyn_v3 ca, double ra, dyn_v3 cb, double rb, dyn_v3 nd, double margin, dyn_contact *c) {
  dyn_v3 d = dyn_v3_sub(cb, ca);
  double dist = dyn_v3_norm(d);
  double depth = ra + rb - dist;
  if (!(depth > -margin)) return 0;
  dyn_v3 n = dist > 0.0 ? dyn_v3_scale(d, 1.0 / dist) : nd;
  dyn_v3 sa = dyn_v3_axpy(ca, ra, n), sb = dyn_v3_axpy(cb, -rb, n);
  c->p = dyn_v3_scale(dyn_v3_add(sa, sb), 0.5);
  c->normal = n;
  c->depth = depth;
  return 1;
}

/* A unit vector perpendicular to the unit (or zero) vector u: the
 * component of +z (or +x when u is along z) orthogonal to u. */
static dyn_v3 perp_towards_z(dyn_v3 u) {
  dyn_v3 e = fabs(u.z) < 0.9 ? dyn_v3_make(0.0, 0.0, 1.0) : dyn_v3_make(1.0, 0.0, 0.0);
  dyn_v3 p = dyn_v3_axpy(e, -dyn_v3_dot(e, u), u);
  p = dyn_v3_normalize(p);
  return dyn_v3_norm(p) > 0.0 ? p : dyn_v3_make(0.0, 0.0, 1.0);
}

/* Capsule core: end points e0 = r - h a, e1 = r + h a, a = R(q) e_z. */
static void capsule_core(const dyn_geom *C, dyn_v3 *e0, dyn_v3 *e1) {
  dyn_v3 a = dyn_quat_rotate(dyn_quat_normalize(C->q), dyn_v3_make(0.0, 0.0, 1.0));
  *e0 = dyn_v3_axpy(C->r, -C->shape->half_length, a);
  *e1 = dyn_v3_axpy(C->r, C->shape->half_length, a);
}

static double clamp01(double t) { return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t); }

/* Parameter of the point of segment p + t d (t in [0,1]) closest to x. */
static double seg_param(dyn_v3 p, dyn_v3 d, dyn_v3 x) {
  double dd = dyn_v3_dot(d, d);
  return dd > 0.0 ? clamp01(dyn_v3_dot(dyn_v3_sub(x, p), d) / dd) : 0.0;
}

/* Closest points p1 + s d1, p2 + t d2 of two segments, s, t in [0, 1]
 * (Ericson 2005, sec 5.1.9).  Degenerate (zero-length) segments are
 * points; for parallel segments s = 0 and t follows. */
static void seg_seg(dyn_v3 p1, dyn_v3 d1, dyn_v3 p2, dyn_v3 d2, double *s, double *t) {
  dyn_v3 r = dyn_v3_sub(p1, p2);
  double a = dyn_v3_dot(d1, d1), e = dyn_v3_dot(d2, d2), f = dyn_v3_dot(d2, r);
  if (a <= 0.0 && e <= 0.0) {
    *s = *t = 0.0;
    return;
  }
  if (a <= 0.0) {
    *s = 0.0;
    *t = clamp01(f / e);
    return;
  }
  double c = dyn_v3_dot(d1, r);
  if (e <= 0.0) {
    *t = 0.0;
    *s = clamp01(-c / a);
    return;
  }
  double b = dyn_v3_dot(d1, d2), denom = a * e - b * b;
  /* denom = |d1|^2 |d2|^2 sin^2(angle) >= 0; 0 for parallel segments,
   * where any s works: take s = 0 and let t follow. */
  double ss = denom > 0.0 ? clamp01((b * f - c * e) / denom) : 0.0;
  double tt = (b * ss + f) / e;
  if (tt < 0.0) {
    tt = 0.0;
    ss = clamp01(-c / a);
  } else if (tt > 1.0) {
    tt = 1.0;
    ss = clamp01((b - c) / a);
  }
  *s = ss;
  *t = tt;
}

/* ---- pair routines (normal from the first body to the second) ---------- */

static inline int sphere_sphere(const dyn_geom *A, const dyn_geom *B, double margin,
                                dyn_contact *out) {
  return ball_ball(A->r, A->shape->radius, B->r, B->shape->radius, dyn_v3_make(0.0, 0.0, 1.0),
                   margin, out);
}

/* Ball (centre c, radius r) against the half-space n . x >= d: the ball's
 * lowest point c - r n penetrates by d - n . (c - r n); normal n. */
static int plane_ball(const dyn_geom *P, dyn_v3 c, double r, double margin, dyn_contact *out) {
  dyn_v3 n = P->shape->normal;
  double depth = P->shape->offset - dyn_v3_dot(n, c) + r;
  if (!(depth > -margin)) return 0;
  dyn_v3 s = dyn_v3_axpy(c, -r, n); /* deepest point of the ball */
  out->p = dyn_v3_axpy(s, 0.5 * depth, n);
  out->normal = n;
  out->depth = depth;
  return 1;
}

static int plane_sphere(const dyn_geom *P, const dyn_geom *S, double margin, dyn_contact *out) {
  return plane_ball(P, S->r, S->shape->radius, margin, out);
}

static int plane_capsule(const dyn_geom *P, const dyn_geom *C, double margin, dyn_contact *out) {
  dyn_v3 e0, e1;
  capsule_core(C, &e0, &e1);
  int k = plane_ball(P, e0, C->shape->radius, margin, out);
  /* a capsule of zero length has one end point, not two */
  if (C->shape->half_length > 0.0) k += plane_ball(P, e1, C->shape->radius, margin, out + k);
  return k;
}

static int capsule_sphere(const dyn_geom *C, const dyn_geom *S, double margin, dyn_contact *out) {
  dyn_v3 e0, e1;
  capsule_core(C, &e0, &e1);
  dyn_v3 d = dyn_v3_sub(e1, e0);
  dyn_v3 x = dyn_v3_axpy(e0, seg_param(e0, d, S->r), d);
  return ball_ball(x, C->shape->radius, S->r, S->shape->radius, perp_towards_z(dyn_v3_normalize(d)),
                   margin, out);
}

static int capsule_capsule(const dyn_geom *A, const dyn_geom *B, double margin, dyn_contact *out) {
  dyn_v3 a0, a1, b0, b1;
  capsule_core(A, &a0, &a1);
  capsule_core(B, &b0, &b1);
  dyn_v3 da = dyn_v3_sub(a1, a0), db = dyn_v3_sub(b1, b0);
  double ra = A->shape->radius, rb = B->shape->radius;
  double la2 = dyn_v3_dot(da, da), lb2 = dyn_v3_dot(db, db);
  dyn_v3 cr = dyn_v3_cross(da, db);
  /* default normal for intersecting cores: across both axes, or across
   * the common line when they are parallel */
  dyn_v3 nd = dyn_v3_normalize(cr);
  if (!(dyn_v3_norm(nd) > 0.0)) nd = perp_towards_z(dyn_v3_normalize(la2 > 0.0 ? da : db));

  /* Parallel axes (sin^2 angle < 1e-5, as ODE): the overlap [s0, s1] of
   * b's projection on a's parameter gives two contacts, one per end. */
  if (la2 > 0.0 && lb2 > 0.0 && dyn_v3_dot(cr, cr) < 1e-5 * la2 * lb2) {
    double t0 = dyn_v3_dot(dyn_v3_sub(b0, a0), da) / la2;
    double t1 = dyn_v3_dot(dyn_v3_sub(b1, a0), da) / la2;
    double s0 = clamp01(fmin(t0, t1)), s1 = clamp01(fmax(t0, t1));
    /* overlap longer than 1e-9 of a's length: two distinct points */
    if (s1 - s0 > 1e-9) {
      int k = 0;
      double sv[2] = { s0, s1 };
      for (int i = 0; i < 2; i++) {
        dyn_v3 pa = dyn_v3_axpy(a0, sv[i], da);
        dyn_v3 pb = dyn_v3_axpy(b0, seg_param(b0, db, pa), db);
        k += ball_ball(pa, ra, pb, rb, nd, margin, out + k);
      }
      return k;
    }
  }
  double s, t;
  seg_seg(a0, da, b0, db, &s, &t);
  return ball_ball(dyn_v3_axpy(a0, s, da), ra, dyn_v3_axpy(b0, t, db), rb, nd, margin, out);
}

/* ---- dispatch ------------------------------------------------------------ */

typedef int (*pair_fn)(const dyn_geom *, const dyn_geom *, double, dyn_contact *);

int dyn_geom_valid(const dyn_geom *b) {
  const dyn_shape *s = b->shape;
  if (!(isfinite(b->r.x) && isfinite(b->r.y) && isfinite(b->r.z) && isfinite(b->q.w) &&
        isfinite(b->q.x) && isfinite(b->q.y) && isfinite(b->q.z)))
    return 0;
  switch (s->kind) {
  case DYN_SHAPE_NONE: return 1;
  case DYN_SHAPE_SPHERE: return s->radius >= 0.0 && isfinite(s->radius);
  case DYN_SHAPE_CAPSULE:
    return s->radius >= 0.0 && isfinite(s->radius) && s->half_length >= 0.0 &&
           isfinite(s->half_length);
  case DYN_SHAPE_BOX:
    return s->half.x >= 0.0 && s->half.y >= 0.0 && s->half.z >= 0.0 && isfinite(s->half.x) &&
           isfinite(s->half.y) && isfinite(s->half.z);
  case DYN_SHAPE_PLANE:
    return isfinite(s->normal.x) && isfinite(s->normal.y) && isfinite(s->normal.z) &&
           isfinite(s->offset) && dyn_v3_norm(s->normal) > 0.0;
  case DYN_SHAPE_HULL: return s->verts != NULL && s->nverts >= 1;
  case DYN_SHAPE_ELLIPSOID:
  case DYN_SHAPE_CYLINDER: return dyn_shape_curved_valid(s);
  }
  return 0;
}

/* The routine written for kinds (ka, kb) in that order, or NULL (then
 * either the routine is written for (kb, ka), or the pair goes to GJK). */
static pair_fn pick(dyn_shape_kind ka, dyn_shape_kind kb) {
  switch (ka) {
  case DYN_SHAPE_SPHERE:
    if (kb == DYN_SHAPE_SPHERE) return sphere_sphere;
    break;
  case DYN_SHAPE_BOX:
    if (kb == DYN_SHAPE_SPHERE) return dyn_cb_box_sphere;
    if (kb == DYN_SHAPE_BOX) return dyn_cb_box_box;
    if (kb == DYN_SHAPE_CAPSULE) return dyn_cb_box_capsule;
    break;
  case DYN_SHAPE_CAPSULE:
    if (kb == DYN_SHAPE_SPHERE) return capsule_sphere;
    if (kb == DYN_SHAPE_CAPSULE) return capsule_capsule;
    break;
  case DYN_SHAPE_PLANE:
    if (kb == DYN_SHAPE_SPHERE) return plane_sphere;
    if (kb == DYN_SHAPE_BOX) return dyn_cb_plane_box;
    if (kb == DYN_SHAPE_CAPSULE) return plane_capsule;
    if (kb == DYN_SHAPE_HULL) return dyn_cb_plane_hull;
    if (kb == DYN_SHAPE_CYLINDER) return dyn_cs_plane_cylinder;
    break;
  default: break;
  }
  return NULL;
}

int dyn_collide_geoms(const dyn_geom *A, const dyn_geom *B, int ia, int ib, double margin,
                      dyn_contact *out) {
  if (!out || ia < 0 || ib < 0 || ia == ib || !(margin >= 0.0) || !isfinite(margin))
    return DYN_ERR_INPUT;
  if (!dyn_geom_valid(A) || !dyn_geom_valid(B)) return DYN_ERR_INPUT;
  return dyn_collide_valid_geoms(A, B, ia, ib, margin, out);
}

int dyn_collide_pair(dyn_bodies bodies, int ia, int ib, double margin, dyn_contact *out) {
  if (!bodies.c || !bodies.s || ia < 0 || ib < 0) return DYN_ERR_INPUT;
  dyn_geom A = dyn_body_geom(&bodies.c[ia], &bodies.s[ia]),
           B = dyn_body_geom(&bodies.c[ib], &bodies.s[ib]);
  return dyn_collide_geoms(&A, &B, ia, ib, margin, out);
}

/* The contacts' names as dyn_collide_pair gives them: bodies ia, ib,
 * normals flipped when the routine ran on (ib, ia), no shapes or material
 * yet. */
static inline void name_contacts(dyn_contact *out, int k, int swap, int ia, int ib) {
  for (int i = 0; i < k; i++) {
    if (swap) out[i].normal = dyn_v3_neg(out[i].normal);
    out[i].a = ia;
    out[i].b = ib;
    out[i].sa = out[i].sb = -1; /* the world's pass names the shapes and their material */
    out[i].mu = out[i].restitution = out[i].mu_torsion = out[i].mu_rolling = 0.0;
  }
}

/* dyn_collide_valid_geoms for every pair but two spheres. */
static int collide_dispatch(const dyn_geom *A, const dyn_geom *B, int ia, int ib, double margin,
                            dyn_contact *out) {
  dyn_shape_kind ka = A->shape->kind, kb = B->shape->kind;
  if (ka == DYN_SHAPE_NONE || kb == DYN_SHAPE_NONE) return 0;
  int sa = A->is_static || ka == DYN_SHAPE_PLANE, sb = B->is_static || kb == DYN_SHAPE_PLANE;
  if (sa && sb) return 0;

  /* canonical order: the routine's kind order; same kinds by index */
  int swap;
  pair_fn fn;
  if (ka == kb) {
    fn = pick(ka, kb);
    swap = ia > ib;
  } else if ((fn = pick(ka, kb)) != NULL) {
    swap = 0;
  } else if ((fn = pick(kb, ka)) != NULL) {
    swap = 1;
  } else {
    swap = ka > kb; /* GJK/EPA pairs: lower kind first */
  }
  const dyn_geom *P = swap ? B : A, *Q = swap ? A : B;
  int k = fn ? fn(P, Q, margin, out) : dyn_gjk_epa_geoms(P, Q, 0, 1, margin, out);
  if (k < 0) return k;
  name_contacts(out, k, swap, ia, ib);
  return k;
}

int dyn_collide_valid_geoms(const dyn_geom *A, const dyn_geom *B, int ia, int ib, double margin,
                            dyn_contact *out) {
  if (A->shape->kind != DYN_SHAPE_SPHERE || B->shape->kind != DYN_SHAPE_SPHERE)
    return collide_dispatch(A, B, ia, ib, margin, out);
  /* two spheres (every pair of a pile): collide_dispatch's path for them,
   * its routine (sphere_sphere, the lower index first) inlined */
  if (A->is_static && B->is_static) return 0;
  int swap = ia > ib;
  int k = swap ? sphere_sphere(B, A, margin, out) : sphere_sphere(A, B, margin, out);
  name_contacts(out, k, swap, ia, ib);
  return k;
}
