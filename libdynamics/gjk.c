/* gjk.c -- distance (GJK) and penetration depth (EPA) between two convex
 * shapes given only by support functions: the narrow phase for hulls and
 * for every pair without a closed-form routine (collide.c), and the
 * independent reference the tests hold the closed-form routines against.
 *
 * Shapes as core + radius (van den Bergen 2003, Collision Detection in
 * Interactive 3D Environments, sec 4.3.3 "margins"): sphere = point + r,
 * capsule = segment + r, box and hull = themselves + 0.  These cores are
 * polytopes, so GJK and EPA on them terminate exactly (a support vertex
 * repeats) and the radii are added afterwards in closed form.  Ellipsoid
 * and cylinder are curved cores + 0 (their support functions:
 * shape_support.c): GJK stops on its relative gap (1e-12) and EPA on its
 * tolerance or its vertex limit, where it returns its closest face (a
 * lower bound of the depth, within the polytope's fit to the surface).
 *
 * Minkowski difference of the cores (docs/dynamics.md, "Collision"; "GJK / Minkowski
 * difference"):  M = A - B = { a - b },  support s_M(d) = s_A(d) - s_B(-d).
 * The cores overlap iff 0 is in M.
 *
 * GJK (Gilbert, Johnson, Keerthi 1988; van den Bergen 2003 sec 4.3;
 * Ericson 2005, Real-Time Collision Detection, sec 9.5): keep a simplex
 * W of at most 4 support points and v = the point of conv(W) closest to
 * the origin (Ericson sec 5.1.5 triangle, 5.1.6 tetrahedron), then
 *     w = s_M(-v);  stop when |v|^2 - v.w <= 1e-12 |v|^2
 * (|v| and v.w/|v| bound the distance from above and below), when w is
 * already in W, or when |v| stops decreasing.  Early out: v.w/|v| is a
 * lower bound of the distance for any v, so v.w/|v| > r_a + r_b + margin
 * means no contact.  Separated cores, closest points c_a, c_b (from the
 * barycentric coordinates of v in W):
 *     n = (c_b - c_a)/|c_b - c_a| = -v/|v|,  depth = r_a + r_b - |v|.
 *
 * EPA (van den Bergen 2001, "Proximity queries and penetration depth
 * computation on 3D game objects", sec 4; Ericson's horizon construction):
 * when 0 is in M (|v| <= 1e-12 max|w|), grow GJK's simplex to a
 * tetrahedron (as Bullet's btGjkEpa2 EncloseOrigin), then repeatedly take
 * the face of the polytope closest to the origin, its outward normal n and
 * distance t, and the support point w = s_M(n); if w.n - t <= 1e-11 L
 * (L = the size of the pair) the face is on the boundary of M and
 *     n (from a to b) and depth = t + r_a + r_b;
 * otherwise remove the faces w sees and close the hole with the horizon.
 * The projection t n of the origin on that face, in barycentric
 * coordinates, gives the deepest core points c_a (= s_A(n)) and c_b.
 * If the tetrahedron cannot be built because M is flat (both cores points
 * or segments meeting; a segment through a point), the depth of the cores
 * is exactly 0 along the normal of the flat set, and that normal is used
 * (its sign taken along c_B - c_A).
 *
 * Contact point: s_a = c_a + r_a n, s_b = c_b - r_b n, p = (s_a + s_b)/2.
 * A half-space (DYN_SHAPE_PLANE) has no support function; against it the
 * deepest core point s(-n) is used directly (depth = d - n.s(-n) + r).
 *
 * Limits (workspace on the stack, about 25 kB): GJK at most 128
 * iterations, EPA at most 128 polytope vertices and 256 faces.  If EPA
 * reaches that limit, or a new face degenerates (a support point on a
 * horizon edge's line), it stops and returns its current closest face:
 * a lower bound t of the core depth, within w.n - t of the truth (never 0
 * contacts).  If GJK reaches its iteration limit it returns its current
 * |v|, an upper bound of the core distance.  Neither happens on the
 * shapes of lcplab's scenes; a hull of a few thousand vertices can make
 * EPA stop early.  One contact point per pair.  Returns DYN_ERR_INPUT on
 * invalid input (as dyn_collide_pair), 0 for DYN_SHAPE_NONE and for two
 * planes; static flags are ignored here (the caller's business).
 */
#include "dyn.h"
#include "dyn_internal.h"

#include <math.h>
#include <stddef.h>

enum {
  GJK_MAX_ITER = 128,
  EPA_MAX_VERTS = 128,
  /* a closed triangulated polytope has F = 2V - 4 faces */
  EPA_MAX_FACES = 2 * EPA_MAX_VERTS,
  /* a horizon has at most V edges; twice that covers a dirty one */
  EPA_MAX_EDGES = 2 * EPA_MAX_VERTS
};

/* GJK stops when the distance bounds |v| and v.w/|v| agree to 1e-12
 * relative: |v|^2 - v.w <= 1e-12 |v|^2. */
static const double GJK_REL = 1e-12;
/* |v| <= 1e-12 max|w|: the origin is on the simplex up to rounding of the
 * support points (~1e-16 |w| each), i.e. the cores touch or overlap. */
static const double GJK_TOUCH2 = 1e-24;
/* EPA accepts a face when the support point is within 1e-11 L of its
 * plane, L the size of the pair: well above the rounding of w.n. */
static const double EPA_REL = 1e-11;
/* Blow-up: a support point counts as off a line/plane beyond 1e-10 L. */
static const double FLAT_REL = 1e-10;

typedef struct {
  dyn_shape_kind kind;
  const dyn_shape *shape; /* ELLIPSOID, CYLINDER: its support (shape_support.c) */
  dyn_v3 c;               /* centre, world */
  dyn_m3 R;               /* body -> world */
  double radius;          /* swept around the core: SPHERE, CAPSULE */
  dyn_v3 axis;            /* CAPSULE: half_length R e_z */
  dyn_v3 half;            /* BOX */
  const dyn_v3 *verts;    /* HULL, body frame */
  int nverts;
} core;

typedef struct {
  dyn_v3 w, a, b; /* w = a - b */
} svert;

typedef struct {
  svert v[4];
  double lam[4]; /* barycentric coordinates of the closest point */
  int n;
} simplex;

typedef struct {
  int v[3];    /* counter-clockwise seen from outside */
  dyn_v3 n;    /* outward unit normal */
  double dist; /* n . v0: distance of the plane from the origin */
} epa_face;

static void core_init(core *s, const dyn_geom *b) {
  s->kind = b->shape->kind;
  s->shape = b->shape;
  s->c = b->r;
  s->R = dyn_quat_to_m3(dyn_quat_normalize(b->q));
  s->radius = 0.0;
  s->axis = dyn_v3_make(0.0, 0.0, 0.0);
  s->half = b->shape->half;
  s->verts = b->shape->verts;
  s->nverts = b->shape->nverts;
  if (s->kind == DYN_SHAPE_SPHERE || s->kind == DYN_SHAPE_CAPSULE) s->radius = b->shape->radius;
  if (s->kind == DYN_SHAPE_CAPSULE)
    s->axis = dyn_v3_scale(dyn_v3_make(s->R.m[2], s->R.m[5], s->R.m[8]), b->shape->half_length);
}

/* Size of the core (the largest distance of a core point from c). */
static double core_extent(const core *s) {
  switch (s->kind) {
  case DYN_SHAPE_CAPSULE: return dyn_v3_norm(s->axis);
  case DYN_SHAPE_BOX: return dyn_v3_norm(s->half);
  case DYN_SHAPE_HULL: {
    double e = 0.0;
    for (int i = 0; i < s->nverts; i++) e = fmax(e, dyn_v3_norm(s->verts[i]));
    return e;
  }
  case DYN_SHAPE_ELLIPSOID:
  case DYN_SHAPE_CYLINDER: return dyn_shape_curved_extent(s->shape);
  default: return 0.0;
  }
}

/* A point of the core maximising d . x. */
static dyn_v3 core_support(const core *s, dyn_v3 d) {
  switch (s->kind) {
  case DYN_SHAPE_CAPSULE:
    return dyn_v3_dot(d, s->axis) >= 0.0 ? dyn_v3_add(s->c, s->axis) : dyn_v3_sub(s->c, s->axis);
  case DYN_SHAPE_BOX: {
    dyn_v3 dl = dyn_m3_tmulv(s->R, d);
    dyn_v3 x =
        dyn_v3_make(dl.x >= 0.0 ? s->half.x : -s->half.x, dl.y >= 0.0 ? s->half.y : -s->half.y,
                    dl.z >= 0.0 ? s->half.z : -s->half.z);
    return dyn_v3_add(s->c, dyn_m3_mulv(s->R, x));
  }
  case DYN_SHAPE_HULL: {
    dyn_v3 dl = dyn_m3_tmulv(s->R, d);
    int best = 0;
    double bd = dyn_v3_dot(s->verts[0], dl);
    for (int i = 1; i < s->nverts; i++) {
      double t = dyn_v3_dot(s->verts[i], dl);
      if (t > bd) {
        bd = t;
        best = i;
      }
    }
    return dyn_v3_add(s->c, dyn_m3_mulv(s->R, s->verts[best]));
  }
  case DYN_SHAPE_ELLIPSOID:
  case DYN_SHAPE_CYLINDER: {
    dyn_v3 x = dyn_shape_curved_support(s->shape, dyn_m3_tmulv(s->R, d));
    return dyn_v3_add(s->c, dyn_m3_mulv(s->R, x));
  }
  default: /* SPHERE: the centre */ return s->c;
  }
}

/* Support point of M = A - B in direction d. */
static svert md_support(const core *A, const core *B, dyn_v3 d) {
  svert r;
  r.a = core_support(A, d);
  r.b = core_support(B, dyn_v3_neg(d));
  r.w = dyn_v3_sub(r.a, r.b);
  return r;
}

/* ---- closest point of a simplex to the origin ---------------------------- */

/* Barycentric coordinates l[2] of the point of segment ab closest to 0. */
static void seg_bary(dyn_v3 a, dyn_v3 b, double l[2]) {
  dyn_v3 ab = dyn_v3_sub(b, a);
  double den = dyn_v3_dot(ab, ab);
  double t = den > 0.0 ? -dyn_v3_dot(a, ab) / den : 0.0;
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  l[0] = 1.0 - t;
  l[1] = t;
}

static double bary_norm2(const dyn_v3 *p, const double *l, int n) {
  dyn_v3 x = dyn_v3_make(0.0, 0.0, 0.0);
  for (int i = 0; i < n; i++) x = dyn_v3_axpy(x, l[i], p[i]);
  return dyn_v3_dot(x, x);
}

/* Barycentric coordinates l[3] of the point of triangle abc closest to 0,
 * by its Voronoi regions (Ericson 2005, sec 5.1.5, with p = 0). */
static void tri_bary(dyn_v3 a, dyn_v3 b, dyn_v3 c, double l[3]) {
  dyn_v3 ab = dyn_v3_sub(b, a), ac = dyn_v3_sub(c, a);
  double d1 = -dyn_v3_dot(ab, a), d2 = -dyn_v3_dot(ac, a);
  l[0] = l[1] = l[2] = 0.0;
  if (d1 <= 0.0 && d2 <= 0.0) {
    l[0] = 1.0;
    return;
  }
  double d3 = -dyn_v3_dot(ab, b), d4 = -dyn_v3_dot(ac, b);
  if (d3 >= 0.0 && d4 <= d3) {
    l[1] = 1.0;
    return;
  }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0) {
    double v = d1 / (d1 - d3);
    l[0] = 1.0 - v;
    l[1] = v;
    return;
  }
  double d5 = -dyn_v3_dot(ab, c), d6 = -dyn_v3_dot(ac, c);
  if (d6 >= 0.0 && d5 <= d6) {
    l[2] = 1.0;
    return;
  }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0) {
    double w = d2 / (d2 - d6);
    l[0] = 1.0 - w;
    l[2] = w;
    return;
  }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    l[1] = 1.0 - w;
    l[2] = w;
    return;
  }
  double den = va + vb + vc; /* = |ab x ac|^2 */
  if (den > 0.0) {
    double v = vb / den, w = vc / den;
    l[0] = 1.0 - v - w;
    l[1] = v;
    l[2] = w;
    return;
  }
  /* degenerate (collinear) triangle: the best of its three edges */
  dyn_v3 p[3] = { a, b, c };
  double best = INFINITY;
  for (int e = 0; e < 3; e++) {
    int i = e, j = (e + 1) % 3;
    double s[2], t[3] = { 0.0, 0.0, 0.0 };
    seg_bary(p[i], p[j], s);
    t[i] = s[0];
    t[j] = s[1];
    double d = bary_norm2(p, t, 3);
    if (d < best) {
      best = d;
      l[0] = t[0];
      l[1] = t[1];
      l[2] = t[2];
    }
  }
}

/* Replace s by the sub-simplex carrying its closest point (the vertices
 * with positive weight) and return that point.  *inside = 1 when s is a
 * non-degenerate tetrahedron containing the origin (Ericson sec 5.1.6). */
static dyn_v3 simplex_closest(simplex *s, int *inside) {
  dyn_v3 p[4];
  double l[4] = { 0.0, 0.0, 0.0, 0.0 };
  for (int i = 0; i < s->n; i++) p[i] = s->v[i].w;
  *inside = 0;
  switch (s->n) {
  case 1: l[0] = 1.0; break;
  case 2: seg_bary(p[0], p[1], l); break;
  case 3: tri_bary(p[0], p[1], p[2], l); break;
  default: {
    /* faces (i, j, k) with opposite vertex o */
    static const int F[4][4] = { { 0, 1, 2, 3 }, { 0, 2, 3, 1 }, { 0, 3, 1, 2 }, { 1, 3, 2, 0 } };
    double vol = dyn_v3_dot(dyn_v3_sub(p[3], p[0]),
                            dyn_v3_cross(dyn_v3_sub(p[1], p[0]), dyn_v3_sub(p[2], p[0])));
    double sc = dyn_v3_norm(dyn_v3_sub(p[1], p[0])) * dyn_v3_norm(dyn_v3_sub(p[2], p[0])) *
                dyn_v3_norm(dyn_v3_sub(p[3], p[0]));
    /* a flat tetrahedron (|volume| <= 1e-12 of its edge product) has no
     * inside: take the best of its four faces */
    int flat = !(fabs(vol) > 1e-12 * sc);
    double best = INFINITY;
    int any = 0;
    for (int f = 0; f < 4; f++) {
      int i = F[f][0], j = F[f][1], k = F[f][2], o = F[f][3];
      dyn_v3 nrm = dyn_v3_cross(dyn_v3_sub(p[j], p[i]), dyn_v3_sub(p[k], p[i]));
      double so = dyn_v3_dot(dyn_v3_sub(p[o], p[i]), nrm);
      double s0 = -dyn_v3_dot(p[i], nrm);      /* side of the origin */
      if (!flat && !(s0 * so < 0.0)) continue; /* origin on the inner side of this face */
      any = 1;
      double t[3], m[4] = { 0.0, 0.0, 0.0, 0.0 };
      tri_bary(p[i], p[j], p[k], t);
      m[i] = t[0];
      m[j] = t[1];
      m[k] = t[2];
      double d = bary_norm2(p, m, 4);
      if (d < best) {
        best = d;
        for (int q = 0; q < 4; q++) l[q] = m[q];
      }
    }
    if (!any) {
      /* the origin is inside: any convex weights do for the caller */
      for (int q = 0; q < 4; q++) s->lam[q] = 0.25;
      *inside = 1;
      return dyn_v3_make(0.0, 0.0, 0.0);
    }
    break;
  }
  }
  /* keep the vertices that carry weight */
  int m = 0;
  dyn_v3 v = dyn_v3_make(0.0, 0.0, 0.0);
  for (int i = 0; i < s->n; i++) {
    if (l[i] > 0.0) {
      s->v[m] = s->v[i];
      s->lam[m] = l[i];
      v = dyn_v3_axpy(v, l[i], p[i]);
      m++;
    }
  }
  if (m == 0) { /* cannot happen: weights sum to 1; keep vertex 0 */
    s->lam[0] = 1.0;
    v = p[0];
    m = 1;
  }
  s->n = m;
  return v;
}

enum { GJK_SEPARATED, GJK_OVERLAP, GJK_BEYOND };

/* GJK on the cores.  Returns GJK_BEYOND when the core distance surely
 * exceeds cutoff, GJK_OVERLAP when the origin is (within rounding) in M,
 * else GJK_SEPARATED with *v = the closest point of M (|v| = distance).
 * s holds the final simplex and its barycentric coordinates. */
static int gjk(const core *A, const core *B, double cutoff, simplex *s, dyn_v3 *vout) {
  dyn_v3 v = dyn_v3_sub(A->c, B->c);
  if (!(dyn_v3_dot(v, v) > 0.0)) v = dyn_v3_make(1.0, 0.0, 0.0);
  s->n = 0;
  double vv_prev = INFINITY;
  for (int it = 0; it < GJK_MAX_ITER; it++) {
    svert w = md_support(A, B, dyn_v3_neg(v));
    double vv = dyn_v3_dot(v, v), vw = dyn_v3_dot(v, w.w);
    /* v.w / |v| is a lower bound of the distance, for any v */
    if (vw > 0.0 && vw * vw > vv * cutoff * cutoff) return GJK_BEYOND;
    if (s->n > 0) {
      if (vv - vw <= GJK_REL * vv) break;
      int dup = 0;
      for (int i = 0; i < s->n; i++)
        if (w.w.x == s->v[i].w.x && w.w.y == s->v[i].w.y && w.w.z == s->v[i].w.z) dup = 1;
      if (dup) break;
    }
    s->v[s->n++] = w;
    int inside;
    dyn_v3 vn = simplex_closest(s, &inside);
    if (inside) return GJK_OVERLAP;
    double wmax2 = 0.0;
    for (int i = 0; i < s->n; i++) wmax2 = fmax(wmax2, dyn_v3_dot(s->v[i].w, s->v[i].w));
    double vvn = dyn_v3_dot(vn, vn);
    if (vvn <= GJK_TOUCH2 * wmax2) return GJK_OVERLAP;
    if (vvn >= vv_prev) { /* no progress: rounding floor reached */
      v = vn;
      break;
    }
    vv_prev = vvn;
    v = vn;
  }
  *vout = v;
  return GJK_SEPARATED;
}

/* Points of A and B carrying the closest point of the simplex. */
static void simplex_points(const simplex *s, dyn_v3 *pa, dyn_v3 *pb) {
  dyn_v3 a = dyn_v3_make(0.0, 0.0, 0.0), b = a;
  for (int i = 0; i < s->n; i++) {
    a = dyn_v3_axpy(a, s->lam[i], s->v[i].a);
    b = dyn_v3_axpy(b, s->lam[i], s->v[i].b);
  }
  *pa = a;
  *pb = b;
}

/* ---- EPA ----------------------------------------------------------------- */

enum { EPA_OK, EPA_LIMIT, EPA_FLAT };

/* Plane of triangle (i, j, k); returns 0 when it is degenerate. */
static int face_make(epa_face *f, const svert *V, int i, int j, int k) {
  dyn_v3 n = dyn_v3_cross(dyn_v3_sub(V[j].w, V[i].w), dyn_v3_sub(V[k].w, V[i].w));
  double l = dyn_v3_norm(n);
  if (!(l > 0.0)) return 0;
  f->v[0] = i;
  f->v[1] = j;
  f->v[2] = k;
  f->n = dyn_v3_scale(n, 1.0 / l);
  f->dist = dyn_v3_dot(f->n, V[i].w);
  return 1;
}

/* Affine weights l[3] of the projection t n of the origin on face f's
 * plane, in its triangle (Ericson 2005, sec 3.4, Cramer's rule). */
static void face_weights(const svert *V, const epa_face *f, double l[3]) {
  dyn_v3 a = V[f->v[0]].w, b = V[f->v[1]].w, c = V[f->v[2]].w;
  dyn_v3 p = dyn_v3_scale(f->n, f->dist);
  dyn_v3 v0 = dyn_v3_sub(b, a), v1 = dyn_v3_sub(c, a), v2 = dyn_v3_sub(p, a);
  double d00 = dyn_v3_dot(v0, v0), d01 = dyn_v3_dot(v0, v1), d11 = dyn_v3_dot(v1, v1);
  double d20 = dyn_v3_dot(v2, v0), d21 = dyn_v3_dot(v2, v1), den = d00 * d11 - d01 * d01;
  /* den = |v0 x v1|^2 > 0 for the faces face_make accepted */
  l[1] = den > 0.0 ? (d11 * d20 - d01 * d21) / den : 0.0;
  l[2] = den > 0.0 ? (d00 * d21 - d01 * d20) / den : 0.0;
  l[0] = 1.0 - l[1] - l[2];
}

/* A unit vector perpendicular to unit d. */
static dyn_v3 any_perp(dyn_v3 d) {
  dyn_v3 e =
      fabs(d.x) <= fabs(d.y) && fabs(d.x) <= fabs(d.z)
          ? dyn_v3_make(1.0, 0.0, 0.0)
          : (fabs(d.y) <= fabs(d.z) ? dyn_v3_make(0.0, 1.0, 0.0) : dyn_v3_make(0.0, 0.0, 1.0));
  return dyn_v3_normalize(dyn_v3_cross(d, e));
}

/* The polytope EPA grows inside M = A - B: vertices, faces, and the
 * horizon edges of one expansion. */
typedef struct epa_poly {
  svert V[EPA_MAX_VERTS];
  epa_face F[EPA_MAX_FACES];
  int E[EPA_MAX_EDGES][2];
  int nv, nf;
} epa_poly;

/* The answer for a flat M: normal n (the centre line c_B - c_A if n = 0,
 * else e_z), depth 0. */
static int epa_flat(dyn_v3 n, dyn_v3 fallback, dyn_v3 *nout, double *tout) {
  *nout = dyn_v3_norm(n) > 0.0 ? n : fallback;
  *tout = 0.0;
  return EPA_FLAT;
}

/* One vertex more for a simplex of one point: the first support point
 * along the axes off it.  0 after epa_flat when M is a point. */
static int grow_point(const core *A, const core *B, epa_poly *P, dyn_v3 cab, double tol_flat,
                      dyn_v3 *nout, double *tout) {
  static const double ax[6][3] = { { 1, 0, 0 },  { -1, 0, 0 }, { 0, 1, 0 },
                                   { 0, -1, 0 }, { 0, 0, 1 },  { 0, 0, -1 } };
  for (int k = 0; k < 6; k++) {
    svert w = md_support(A, B, dyn_v3_make(ax[k][0], ax[k][1], ax[k][2]));
    if (dyn_v3_norm(dyn_v3_sub(w.w, P->V[0].w)) > tol_flat) {
      P->V[P->nv++] = w;
      return 1;
    }
  }
  /* M is a point: any normal; take the centre line */
  epa_flat(dyn_v3_normalize(cab), dyn_v3_make(0.0, 0.0, 1.0), nout, tout);
  return 0;
}

/* One vertex more for a segment: the first support point off its line
 * across it.  0 after epa_flat when M is a segment. */
static int grow_segment(const core *A, const core *B, epa_poly *P, dyn_v3 cab, double tol_flat,
                        dyn_v3 *nout, double *tout) {
  dyn_v3 d = dyn_v3_normalize(dyn_v3_sub(P->V[1].w, P->V[0].w));
  dyn_v3 p1 = any_perp(d), p2 = dyn_v3_cross(d, p1);
  dyn_v3 dirs[4] = { p1, dyn_v3_neg(p1), p2, dyn_v3_neg(p2) };
  for (int k = 0; k < 4; k++) {
    svert w = md_support(A, B, dirs[k]);
    if (dyn_v3_norm(dyn_v3_cross(dyn_v3_sub(w.w, P->V[0].w), d)) > tol_flat) {
      P->V[P->nv++] = w;
      return 1;
    }
  }
  /* M is a segment: normal across it, towards c_B - c_A */
  epa_flat(dyn_v3_normalize(dyn_v3_axpy(cab, -dyn_v3_dot(cab, d), d)), p1, nout, tout);
  return 0;
}

/* One vertex more for a triangle (or back to a segment when it is
 * collinear): the support point off its plane.  0 after epa_flat when M
 * is planar. */
static int grow_triangle(const core *A, const core *B, epa_poly *P, dyn_v3 cab, double tol_flat,
                         dyn_v3 *nout, double *tout) {
  svert *V = P->V;
  dyn_v3 n = dyn_v3_cross(dyn_v3_sub(V[1].w, V[0].w), dyn_v3_sub(V[2].w, V[0].w));
  if (!(dyn_v3_norm(n) > 0.0)) {
    /* collinear triangle: keep its two farthest-apart vertices */
    double d01 = dyn_v3_norm(dyn_v3_sub(V[1].w, V[0].w));
    double d02 = dyn_v3_norm(dyn_v3_sub(V[2].w, V[0].w));
    double d12 = dyn_v3_norm(dyn_v3_sub(V[2].w, V[1].w));
    if (d02 >= d01 && d02 >= d12)
      V[1] = V[2];
    else if (d12 >= d01 && d12 >= d02)
      V[0] = V[2];
    P->nv = 2;
    return 1;
  }
  n = dyn_v3_normalize(n);
  svert w = md_support(A, B, n);
  if (dyn_v3_dot(n, dyn_v3_sub(w.w, V[0].w)) > tol_flat) {
    V[P->nv++] = w;
    return 1;
  }
  w = md_support(A, B, dyn_v3_neg(n));
  if (dyn_v3_dot(n, dyn_v3_sub(w.w, V[0].w)) < -tol_flat) {
    V[P->nv++] = w;
    return 1;
  }
  /* M is planar */
  *nout = dyn_v3_dot(n, cab) >= 0.0 ? n : dyn_v3_neg(n);
  *tout = 0.0;
  return 0;
}

/* The simplex blown up to a tetrahedron (the origin stays on it) and its
 * four faces wound outwards.  0 after epa_flat when M is flat. */
static int epa_start(const core *A, const core *B, epa_poly *P, dyn_v3 cab, double tol_flat,
                     dyn_v3 *nout, double *tout) {
  while (P->nv < 4) {
    int grown = P->nv == 1   ? grow_point(A, B, P, cab, tol_flat, nout, tout)
                : P->nv == 2 ? grow_segment(A, B, P, cab, tol_flat, nout, tout)
                             : grow_triangle(A, B, P, cab, tol_flat, nout, tout);
    if (!grown) return 0;
  }
  static const int T[4][4] = { { 0, 1, 2, 3 }, { 0, 3, 1, 2 }, { 0, 2, 3, 1 }, { 1, 3, 2, 0 } };
  for (int f = 0; f < 4; f++) {
    int i = T[f][0], j = T[f][1], k = T[f][2], o = T[f][3];
    if (!face_make(&P->F[P->nf], P->V, i, j, k)) {
      /* cannot happen (the apex is off the base plane by > tol_flat);
       * answer as for a flat M rather than leave the outputs unset */
      epa_flat(dyn_v3_normalize(cab), dyn_v3_make(0.0, 0.0, 1.0), nout, tout);
      return 0;
    }
    if (dyn_v3_dot(P->F[P->nf].n, dyn_v3_sub(P->V[o].w, P->V[i].w)) > 0.0)
      face_make(&P->F[P->nf], P->V, i, k, j);
    P->nf++;
  }
  return 1;
}

/* Remove every face the new point w sees (and face best); their edges not
 * shared with another removed face form the horizon E[0 .. *ne - 1].
 * Returns 1 if the horizon overflowed E. */
static int epa_remove_visible(epa_poly *P, svert w, int best, double L, int *ne) {
  int overflow = 0;
  *ne = 0;
  for (int f = P->nf - 1; f >= 0; f--) {
    epa_face *F = P->F;
    if (!(dyn_v3_dot(F[f].n, dyn_v3_sub(w.w, P->V[F[f].v[0]].w)) > 1e-14 * L) && f != best)
      continue;
    for (int e = 0; e < 3; e++) {
      int a = F[f].v[e], b = F[f].v[(e + 1) % 3], found = -1;
      for (int q = 0; q < *ne; q++)
        if (P->E[q][0] == b && P->E[q][1] == a) found = q;
      if (found >= 0) {
        P->E[found][0] = P->E[*ne - 1][0];
        P->E[found][1] = P->E[*ne - 1][1];
        (*ne)--;
      } else if (*ne < EPA_MAX_EDGES) {
        P->E[*ne][0] = a;
        P->E[*ne][1] = b;
        (*ne)++;
      } else {
        overflow = 1;
      }
    }
    F[f] = F[--P->nf];
    if (best == P->nf) best = f;
  }
  return overflow;
}

/* Expand towards the face closest to the origin until its support gap is
 * <= tol (EPA_OK) or room runs out (EPA_LIMIT); *fb the closest face of
 * the last complete polytope. */
static int epa_expand(const core *A, const core *B, epa_poly *P, double L, double tol,
                      epa_face *fb) {
  for (;;) {
    int best = 0;
    for (int f = 1; f < P->nf; f++)
      if (P->F[f].dist < P->F[best].dist) best = f;
    *fb = P->F[best];
    svert w = md_support(A, B, fb->n);
    if (dyn_v3_dot(w.w, fb->n) - fb->dist <= tol) return EPA_OK;
    if (P->nv == EPA_MAX_VERTS) return EPA_LIMIT;
    for (int i = 0; i < P->nv; i++)
      if (w.w.x == P->V[i].w.x && w.w.y == P->V[i].w.y && w.w.z == P->V[i].w.z)
        return EPA_OK; /* cannot expand further: this face is as good as it gets */
    P->V[P->nv] = w;
    int ne = 0;
    if (epa_remove_visible(P, w, best, L, &ne) || P->nf + ne > EPA_MAX_FACES)
      return EPA_LIMIT; /* out of room: stop with the estimate fb */
    int bad = 0;
    for (int q = 0; q < ne && !bad; q++)
      bad = !face_make(&P->F[P->nf++], P->V, P->E[q][0], P->E[q][1], P->nv);
    P->nv++;
    if (bad) return EPA_LIMIT; /* a degenerate new face: stop with the estimate fb */
  }
}

/* The deepest points: the origin projected on the face, t n.  Several
 * coplanar triangles tile one facet of M; the projection lies in one of
 * them.  Take a triangle that contains it (weights >= -1e-9), else fb's
 * affine weights unclamped: on one facet of M the split w = a - b is
 * affine, so the extrapolated a, b are still the facet's points. */
static void epa_points(const epa_poly *P, const epa_face *fb, int status, double tol, dyn_v3 *pa,
                       dyn_v3 *pb) {
  const epa_face *f = fb;
  double lw[3];
  face_weights(P->V, fb, lw);
  if (status == EPA_OK && fmin(lw[0], fmin(lw[1], lw[2])) < -1e-9) {
    for (int q = 0; q < P->nf; q++) {
      double mw[3];
      const epa_face *Fq = &P->F[q];
      if (!(dyn_v3_dot(Fq->n, fb->n) > 1.0 - 1e-12) || !(fabs(Fq->dist - fb->dist) <= tol))
        continue;
      face_weights(P->V, Fq, mw);
      if (fmin(mw[0], fmin(mw[1], mw[2])) >= -1e-9) {
        f = Fq;
        lw[0] = mw[0];
        lw[1] = mw[1];
        lw[2] = mw[2];
        break;
      }
    }
  }
  *pa = dyn_v3_make(0.0, 0.0, 0.0);
  *pb = *pa;
  for (int q = 0; q < 3; q++) {
    *pa = dyn_v3_axpy(*pa, lw[q], P->V[f->v[q]].a);
    *pb = dyn_v3_axpy(*pb, lw[q], P->V[f->v[q]].b);
  }
}

/* Penetration of the cores.  In: the GJK simplex s (the origin on it).
 * Out: *n (unit, from A to B), *t (core depth), *pa, *pb (deepest core
 * points).  Returns EPA_OK, EPA_LIMIT (estimate), or EPA_FLAT (M is flat,
 * *t = 0, *n its normal with n . (c_B - c_A) >= 0). */
static int epa(const core *A, const core *B, const simplex *s, double L, dyn_v3 *nout, double *tout,
               dyn_v3 *pa, dyn_v3 *pb) {
  epa_poly P;
  double tol_flat = FLAT_REL * L, tol = EPA_REL * L;
  dyn_v3 cab = dyn_v3_sub(B->c, A->c);
  P.nv = s->n;
  P.nf = 0;
  for (int i = 0; i < P.nv; i++) P.V[i] = s->v[i];
  simplex_points(s, pa, pb);
  if (!epa_start(A, B, &P, cab, tol_flat, nout, tout)) return EPA_FLAT;
  epa_face fb;
  int status = epa_expand(A, B, &P, L, tol, &fb);
  epa_points(&P, &fb, status, tol, pa, pb);
  *nout = fb.n;
  *tout = fb.dist;
  return status;
}

/* ---- the public entry ---------------------------------------------------- */

/* Half-space P against the convex body C: deepest core point s(-n). */
static int plane_convex(const dyn_geom *P, const dyn_geom *C, double margin, dyn_contact *out) {
  core c;
  core_init(&c, C);
  dyn_v3 n = P->shape->normal;
  dyn_v3 x = dyn_v3_axpy(core_support(&c, dyn_v3_neg(n)), -c.radius, n);
  double depth = P->shape->offset - dyn_v3_dot(n, x);
  if (!(depth > -margin)) return 0;
  out->p = dyn_v3_axpy(x, 0.5 * depth, n);
  out->normal = n;
  out->depth = depth;
  return 1;
}

int dyn_collide_gjk_epa(dyn_bodies bodies, int ia, int ib, double margin, dyn_contact *out) {
  if (!bodies.c || !bodies.s || !out || ia < 0 || ib < 0 || ia == ib || !(margin >= 0.0) ||
      !isfinite(margin))
    return DYN_ERR_INPUT;
  dyn_geom A = dyn_body_geom(&bodies.c[ia], &bodies.s[ia]),
           B = dyn_body_geom(&bodies.c[ib], &bodies.s[ib]);
  if (!dyn_geom_valid(&A) || !dyn_geom_valid(&B)) return DYN_ERR_INPUT;
  return dyn_gjk_epa_geoms(&A, &B, ia, ib, margin, out);
}

int dyn_gjk_epa_geoms(const dyn_geom *Ab, const dyn_geom *Bb, int ia, int ib, double margin,
                      dyn_contact *out) {
  dyn_shape_kind ka = Ab->shape->kind, kb = Bb->shape->kind;
  if (ka == DYN_SHAPE_NONE || kb == DYN_SHAPE_NONE) return 0;
  if (ka == DYN_SHAPE_PLANE && kb == DYN_SHAPE_PLANE) return 0;
  int k;
  if (ka == DYN_SHAPE_PLANE || kb == DYN_SHAPE_PLANE) {
    k = ka == DYN_SHAPE_PLANE ? plane_convex(Ab, Bb, margin, out)
                              : plane_convex(Bb, Ab, margin, out);
    if (k && kb == DYN_SHAPE_PLANE) out->normal = dyn_v3_neg(out->normal);
  } else {
    core A, B;
    core_init(&A, Ab);
    core_init(&B, Bb);
    double ra = A.radius, rb = B.radius;
    /* size of the pair, the scale of the EPA and flatness tolerances */
    double L = core_extent(&A) + core_extent(&B) + dyn_v3_norm(dyn_v3_sub(A.c, B.c));
    simplex s;
    dyn_v3 v, pa, pb, n;
    double depth;
    int st = gjk(&A, &B, ra + rb + margin, &s, &v);
    if (st == GJK_BEYOND) return 0;
    if (st == GJK_SEPARATED) {
      double dist = dyn_v3_norm(v);
      depth = ra + rb - dist;
      if (!(depth > -margin)) return 0;
      simplex_points(&s, &pa, &pb);
      n = dyn_v3_scale(v, -1.0 / dist);
    } else {
      double t;
      epa(&A, &B, &s, L, &n, &t, &pa, &pb);
      depth = t + ra + rb;
      if (!(depth > -margin)) return 0;
    }
    dyn_v3 sa = dyn_v3_axpy(pa, ra, n), sb = dyn_v3_axpy(pb, -rb, n);
    out->p = dyn_v3_scale(dyn_v3_add(sa, sb), 0.5);
    out->normal = n;
    out->depth = depth;
    k = 1;
  }
  if (k) {
    out->a = ia;
    out->b = ib;
    out->sa = out->sb = -1;
    out->mu = out->restitution = out->mu_torsion = out->mu_rolling = 0.0;
  }
  return k;
}
