/* collide_box.c -- narrow phase for boxes (and convex hulls against a
 * half-space): box-plane, hull-plane, box-sphere, box-box, box-capsule.
 * Called by dyn_collide_pair (collide.c), which fixes the order of the two
 * bodies; each routine writes its contacts with the normal n from its first
 * body to its second, depth and the point p midway between the two
 * surfaces (dyn.h), and keeps only depth > -margin.
 *
 * Box: centre c, rotation R = R(q) with columns u_0, u_1, u_2 (the body
 * axes in the world), half extents h_k.  Half-space: n . x >= d is free,
 * a point x penetrates by d - n . x (collide.c).
 *
 * box-plane (ODE dCollideBoxPlane): the corners x = c + sum_k +-h_k u_k with
 *     depth = d - n . x > -margin,   p = x + (depth/2) n,   normal n;
 *   more than 4 (a box thinner than the margin, or tilted with a large
 *   margin) keeps the 4 deepest.  A box resting on a face gives exactly
 *   its 4 bottom corners.
 * hull-plane: the same over the hull's vertices; more than 4 are reduced
 *   as below (deepest, farthest, largest area), since many vertices may lie
 *   in the bottom face.
 * box-sphere (Ericson 2005, Real-Time Collision Detection, sec 5.1.4):
 *   sphere centre in box coordinates x = R^T (c_s - c); q = clamp(x, -h, h).
 *   Outside (q != x): n = R (x - q)/|x - q|, depth = r - |x - q|.
 *   Inside: the nearest face k (least h_k - |x_k|): n = sign(x_k) u_k,
 *   depth = r + h_k - |x_k|, q = x with q_k = sign(x_k) h_k.
 *   Box surface point c + R q, sphere surface point c_s - r n.
 * box-box (Gottschalk 1996 OBB separating axis test, as ODE's dBoxBox):
 *   15 axes L: u_i, v_j (faces), u_i x v_j / |u_i x v_j| (edges, skipped
 *   when |u_i x v_j| < 1e-6, where they repeat a face axis); on each,
 *     sep(L) = |t . L| - sum_k h_k |u_k . L| - sum_k g_k |v_k . L|,
 *   t = c_b - c_a.  Any sep > margin: no contact.  The axis of largest sep
 *   (smallest overlap) is the contact normal, signed so that t . n >= 0;
 *   an edge axis is taken only when its sep beats the best face's by
 *   5 % of |sep| + 1e-9 (h + g) (ODE's fudge factor 1.05), because face
 *   contacts give stable 4-point manifolds and edge axes near a face axis
 *   are noisy.  Among equal face axes a's come first, then b's.
 *   Face: the reference face (on the box owning the axis, outward normal
 *   m) and the incident face of the other box (its face most anti-parallel
 *   to m); the incident quad is clipped to the reference face's rectangle
 *   (Sutherland-Hodgman against its four side planes, Ericson sec 8.3.4),
 *   each clipped vertex x gets depth = m . (f - x) (f on the reference
 *   face) and p = x + (depth/2) m; more than 4 are reduced to 4: the
 *   deepest, the farthest from it, then each time the point that enlarges
 *   the area of the kept polygon most (Bullet's sortCachedPoints keeps the
 *   largest area; ODE's cullPoints spreads by angle).  If clipping leaves
 *   nothing (a face axis chosen by the 5 % rule for a contact that is really
 *   an edge's), the incident box's deepest corner gives one point with
 *   the SAT depth.
 *   Edge: the edge of a parallel to u_i extreme along n and the edge of b
 *   parallel to v_j extreme along -n; their closest points (Ericson sec
 *   5.1.9) x_a, x_b give p = (x_a + x_b)/2 and depth = -sep (one point).
 *   Separated within the margin (some sep > 0): the largest axis gap is
 *   only a lower bound of the distance, and clipping may miss the closest
 *   feature, so GJK (gjk.c) gives the exact gap; the face manifold is
 *   kept when its closest point has that gap (boxes hovering face to face:
 *   4 speculative points), otherwise the single GJK point is returned.
 * box-capsule: GJK/EPA on the box and the capsule's core segment
 *   (dyn_collide_gjk_epa) gives the normal n and the deepest point.  When n
 *   is a face normal m of the box (|u_k . n| > 1 - 1e-9), the segment is
 *   clipped to that face's rectangle (Liang-Barsky) and each clipped end x
 *   at height z = m . (x - f) above the face gives depth = r - z and
 *   p = x - ((r + z)/2) m: two points for a capsule lying on a face, as
 *   capsule-plane gives; otherwise the single GJK/EPA point.
 *
 * The routines are internal (external linkage only because collide.c calls
 * them; the proposed private header would declare them).  No allocation.
 */
#include "dyn.h"
#include "dyn_internal.h"

#include <math.h>
#include <stddef.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define BOX_HAVE_AVX2_CODE 1
#endif

typedef struct {
  dyn_v3 c;
  dyn_v3 u[3]; /* body axes in the world */
  double h[3];
} obb;

static obb obb_of(const dyn_geom *b) {
  obb o;
  dyn_m3 R = dyn_quat_to_m3(dyn_quat_normalize(b->q));
  o.c = b->r;
  for (int k = 0; k < 3; k++) o.u[k] = dyn_v3_make(R.m[k], R.m[3 + k], R.m[6 + k]);
  o.h[0] = b->shape->half.x;
  o.h[1] = b->shape->half.y;
  o.h[2] = b->shape->half.z;
  return o;
}

static double sgn(double x) { return x < 0.0 ? -1.0 : 1.0; }

/* ---- reduction of a point set to DYN_MAX_MANIFOLD ------------------------ */

/* 2-D area of the convex hull of 4 points: the largest of the three
 * quadrilateral orders and the four triangles (a convex quad is one of the
 * orders; a point inside a triangle leaves that triangle). */
static double area4(const double *x, const double *y, const int *i) {
#define TRI(a, b, c) fabs((x[b] - x[a]) * (y[c] - y[a]) - (x[c] - x[a]) * (y[b] - y[a])) * 0.5
/* fmax(b, a) for best never NaN and a >= +0 or NaN: a NaN area leaves best
 * as fmax does, a tie gives the same value (no -0 among them) */
#define MAXA(b, a) ((a) > (b) ? (a) : (b))
  static const int ord[3][4] = { { 0, 1, 2, 3 }, { 0, 1, 3, 2 }, { 0, 2, 1, 3 } };
  double best = 0.0;
  for (int o = 0; o < 3; o++) {
    double s = 0.0;
    for (int k = 0; k < 4; k++) {
      int a = i[ord[o][k]], b = i[ord[o][(k + 1) % 4]];
      s += x[a] * y[b] - x[b] * y[a];
    }
    best = MAXA(best, 0.5 * fabs(s));
  }
  best = MAXA(best, TRI(i[0], i[1], i[2]));
  best = MAXA(best, TRI(i[0], i[1], i[3]));
  best = MAXA(best, TRI(i[0], i[2], i[3]));
  best = MAXA(best, TRI(i[1], i[2], i[3]));
  return best;
#undef TRI
#undef MAXA
}

/* Keep 4 of m > 4 contacts c[] (in place): the deepest, the farthest from
 * it, the one making the largest triangle with those two, the one making
 * the largest quadrilateral; distances and areas in the plane across n.
 * Ties go to the lower index, so the choice is deterministic. */
static int reduce4(dyn_contact *c, int m, dyn_v3 n) {
  enum { MAXP = 16 };
  double x[MAXP], y[MAXP];
  if (m <= 4) return m;
  if (m > MAXP) m = MAXP;
  dyn_v3 e1 = fabs(n.x) < 0.9 ? dyn_v3_make(1.0, 0.0, 0.0) : dyn_v3_make(0.0, 1.0, 0.0);
  e1 = dyn_v3_normalize(dyn_v3_axpy(e1, -dyn_v3_dot(e1, n), n));
  dyn_v3 e2 = dyn_v3_cross(n, e1);
  for (int i = 0; i < m; i++) {
    x[i] = dyn_v3_dot(c[i].p, e1);
    y[i] = dyn_v3_dot(c[i].p, e2);
  }
  int k[4] = { 0, -1, -1, -1 };
  for (int i = 1; i < m; i++)
    if (c[i].depth > c[k[0]].depth) k[0] = i;
  double best = -1.0;
  for (int i = 0; i < m; i++) {
    double d = (x[i] - x[k[0]]) * (x[i] - x[k[0]]) + (y[i] - y[k[0]]) * (y[i] - y[k[0]]);
    if (i != k[0] && d > best) {
      best = d;
      k[1] = i;
    }
  }
  best = -1.0;
  for (int i = 0; i < m; i++) {
    if (i == k[0] || i == k[1]) continue;
    double a =
        fabs((x[k[1]] - x[k[0]]) * (y[i] - y[k[0]]) - (x[i] - x[k[0]]) * (y[k[1]] - y[k[0]]));
    if (a > best) {
      best = a;
      k[2] = i;
    }
  }
  best = -1.0;
  int kk = -1;
  for (int i = 0; i < m; i++) {
    if (i == k[0] || i == k[1] || i == k[2]) continue;
    int q[4] = { k[0], k[1], k[2], i };
    double a = area4(x, y, q);
    if (a > best) {
      best = a;
      kk = i;
    }
  }
  k[3] = kk;
  dyn_contact t[4];
  for (int i = 0; i < 4; i++) t[i] = c[k[i]];
  for (int i = 0; i < 4; i++) c[i] = t[i];
  return 4;
}

/* ---- half-space against vertices ----------------------------------------- */

/* Contact of vertex x with half-space (n, d) into c[*m] if depth > -margin. */
static void vertex_plane(dyn_v3 x, dyn_v3 n, double d, double margin, dyn_contact *c, int *m) {
  double depth = d - dyn_v3_dot(n, x);
  if (!(depth > -margin)) return;
  c[*m].p = dyn_v3_axpy(x, 0.5 * depth, n);
  c[*m].normal = n;
  c[*m].depth = depth;
  (*m)++;
}

int dyn_cb_plane_box(const dyn_geom *P, const dyn_geom *B, double margin, dyn_contact *out) {
  obb o = obb_of(B);
  dyn_v3 n = P->shape->normal;
  dyn_contact c[8];
  int m = 0;
  /* a zero half extent has one corner coordinate, not two */
  int nx = o.h[0] > 0.0 ? 2 : 1, ny = o.h[1] > 0.0 ? 2 : 1, nz = o.h[2] > 0.0 ? 2 : 1;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      for (int k = 0; k < nz; k++) {
        dyn_v3 x = o.c;
        x = dyn_v3_axpy(x, i ? -o.h[0] : o.h[0], o.u[0]);
        x = dyn_v3_axpy(x, j ? -o.h[1] : o.h[1], o.u[1]);
        x = dyn_v3_axpy(x, k ? -o.h[2] : o.h[2], o.u[2]);
        vertex_plane(x, n, P->shape->offset, margin, c, &m);
      }
  /* keep the 4 deepest (stable: ties keep the corner order) */
  for (int i = 1; i < m; i++) {
    dyn_contact t = c[i];
    int j = i - 1;
    while (j >= 0 && c[j].depth < t.depth) {
      c[j + 1] = c[j];
      j--;
    }
    c[j + 1] = t;
  }
  if (m > DYN_MAX_MANIFOLD) m = DYN_MAX_MANIFOLD;
  for (int i = 0; i < m; i++) out[i] = c[i];
  return m;
}

int dyn_cb_plane_hull(const dyn_geom *P, const dyn_geom *H, double margin, dyn_contact *out) {
  enum { KEEP = 16 };
  dyn_quat q = dyn_quat_normalize(H->q);
  dyn_v3 n = P->shape->normal;
  dyn_contact c[KEEP];
  int m = 0;
  for (int i = 0; i < H->shape->nverts; i++) {
    dyn_contact t;
    int one = 0;
    vertex_plane(dyn_v3_add(H->r, dyn_quat_rotate(q, H->shape->verts[i])), n, P->shape->offset,
                 margin, &t, &one);
    if (!one) continue;
    /* keep the KEEP deepest candidates, sorted by depth (ties: vertex order) */
    int j = m < KEEP ? m : KEEP - 1;
    if (m == KEEP && !(t.depth > c[KEEP - 1].depth)) continue;
    while (j > 0 && c[j - 1].depth < t.depth) {
      c[j] = c[j - 1];
      j--;
    }
    c[j] = t;
    if (m < KEEP) m++;
  }
  m = reduce4(c, m, n);
  for (int i = 0; i < m; i++) out[i] = c[i];
  return m;
}

/* ---- box-sphere ------------------------------------------------------------ */

int dyn_cb_box_sphere(const dyn_geom *B, const dyn_geom *S, double margin, dyn_contact *out) {
  obb o = obb_of(B);
  double r = S->shape->radius;
  dyn_v3 t = dyn_v3_sub(S->r, o.c);
  double x[3], q[3];
  for (int k = 0; k < 3; k++) {
    x[k] = dyn_v3_dot(t, o.u[k]);
    q[k] = fmax(-o.h[k], fmin(o.h[k], x[k]));
  }
  double d2 = 0.0;
  for (int k = 0; k < 3; k++) d2 += (x[k] - q[k]) * (x[k] - q[k]);
  dyn_v3 n = dyn_v3_make(0.0, 0.0, 0.0);
  double depth;
  if (d2 > 0.0) {
    /* centre outside: the clamped point is the closest box point */
    double dist = sqrt(d2);
    depth = r - dist;
    if (!(depth > -margin)) return 0;
    for (int k = 0; k < 3; k++) n = dyn_v3_axpy(n, (x[k] - q[k]) / dist, o.u[k]);
  } else {
    /* centre inside (or on the surface): leave through the nearest face */
    int kb = 0;
    double gap = o.h[0] - fabs(x[0]);
    for (int k = 1; k < 3; k++)
      if (o.h[k] - fabs(x[k]) < gap) {
        gap = o.h[k] - fabs(x[k]);
        kb = k;
      }
    depth = r + gap;
    n = dyn_v3_scale(o.u[kb], sgn(x[kb]));
    q[kb] = sgn(x[kb]) * o.h[kb];
  }
  dyn_v3 sb = o.c;
  for (int k = 0; k < 3; k++) sb = dyn_v3_axpy(sb, q[k], o.u[k]);
  dyn_v3 ss = dyn_v3_axpy(S->r, -r, n);
  out->p = dyn_v3_scale(dyn_v3_add(sb, ss), 0.5);
  out->normal = n;
  out->depth = depth;
  return 1;
}

/* ---- box-box ---------------------------------------------------------------- */

/* Closest points of segments p1 + s d1 and p2 + t d2, s, t in [0, 1]
 * (Ericson 2005, sec 5.1.9; both lengths > 0 here). */
static void seg_seg(dyn_v3 p1, dyn_v3 d1, dyn_v3 p2, dyn_v3 d2, dyn_v3 *x1, dyn_v3 *x2) {
  dyn_v3 r = dyn_v3_sub(p1, p2);
  double a = dyn_v3_dot(d1, d1), e = dyn_v3_dot(d2, d2), f = dyn_v3_dot(d2, r);
  double c = dyn_v3_dot(d1, r), b = dyn_v3_dot(d1, d2), den = a * e - b * b;
  double s = 0.0, t;
  if (a > 0.0 && den > 0.0) s = fmax(0.0, fmin(1.0, (b * f - c * e) / den));
  t = e > 0.0 ? (b * s + f) / e : 0.0;
  if (t < 0.0) {
    t = 0.0;
    s = a > 0.0 ? fmax(0.0, fmin(1.0, -c / a)) : 0.0;
  } else if (t > 1.0) {
    t = 1.0;
    s = a > 0.0 ? fmax(0.0, fmin(1.0, (b - c) / a)) : 0.0;
  }
  *x1 = dyn_v3_axpy(p1, s, d1);
  *x2 = dyn_v3_axpy(p2, t, d2);
}

/* Sutherland-Hodgman: keep the part of polygon in[0..n) with
 * g . (x - f) <= h; returns the new count (at most cap).  The signed
 * distance of each vertex is computed once: the end of edge i is the
 * start of edge i + 1. */
static int clip_side(const dyn_v3 *in, int n, dyn_v3 g, dyn_v3 f, double h, dyn_v3 *outp, int cap) {
  int m = 0;
  if (n <= 0) return 0;
  double f0 = dyn_v3_dot(g, dyn_v3_sub(in[0], f)) - h, fa = f0;
  for (int i = 0; i < n; i++) {
    int last = i + 1 == n;
    dyn_v3 a = in[i], b = last ? in[0] : in[i + 1];
    double fb = last ? f0 : dyn_v3_dot(g, dyn_v3_sub(b, f)) - h;
    if (fa <= 0.0 && m < cap) outp[m++] = a;
    if (((fa < 0.0 && fb > 0.0) || (fa > 0.0 && fb < 0.0)) && m < cap)
      outp[m++] = dyn_v3_axpy(a, fa / (fa - fb), dyn_v3_sub(b, a));
    fa = fb;
  }
  return m;
}

/* Face contact: reference box R (face normal m = +-u_k, outward), incident
 * box I.  Writes the contacts (normal m) into c, returns their count
 * (before reduction, at most 16). */
static int face_contacts(const obb *R, int k, dyn_v3 m, const obb *I, double margin,
                         dyn_contact *c) {
  enum { CAP = 16 };
  dyn_v3 f = dyn_v3_axpy(R->c, R->h[k], m); /* centre of the reference face */
  int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  /* incident face: the face of I whose outward normal is most against m */
  int j = 0;
  double bj = fabs(dyn_v3_dot(I->u[0], m));
  for (int q = 1; q < 3; q++)
    if (fabs(dyn_v3_dot(I->u[q], m)) > bj) {
      bj = fabs(dyn_v3_dot(I->u[q], m));
      j = q;
    }
  double s = -sgn(dyn_v3_dot(I->u[j], m));
  dyn_v3 fi = dyn_v3_axpy(I->c, s * I->h[j], I->u[j]);
  int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
  dyn_v3 e1 = dyn_v3_scale(I->u[j1], I->h[j1]), e2 = dyn_v3_scale(I->u[j2], I->h[j2]);
  dyn_v3 A[CAP], B[CAP];
  A[0] = dyn_v3_add(dyn_v3_add(fi, e1), e2);
  A[1] = dyn_v3_add(dyn_v3_sub(fi, e1), e2);
  A[2] = dyn_v3_sub(dyn_v3_sub(fi, e1), e2);
  A[3] = dyn_v3_sub(dyn_v3_add(fi, e1), e2);
  int n = 4;
  n = clip_side(A, n, R->u[k1], f, R->h[k1], B, CAP);
  n = clip_side(B, n, dyn_v3_neg(R->u[k1]), f, R->h[k1], A, CAP);
  n = clip_side(A, n, R->u[k2], f, R->h[k2], B, CAP);
  n = clip_side(B, n, dyn_v3_neg(R->u[k2]), f, R->h[k2], A, CAP);
  int cnt = 0;
  for (int i = 0; i < n; i++) {
    double depth = dyn_v3_dot(m, dyn_v3_sub(f, A[i]));
    if (!(depth > -margin)) continue;
    c[cnt].p = dyn_v3_axpy(A[i], 0.5 * depth, m);
    c[cnt].normal = m;
    c[cnt].depth = depth;
    cnt++;
  }
  return cnt;
}

/* The separating-axis test's best axes: the face axis of least
 * penetration (kind 0 = a's face fidx, 1 = b's; normal fn from a to b) and
 * the edge axis u_ei x v_ej (normal en), with their separations. */
typedef struct sat_axes {
  double fsep, esep;
  int fkind, fidx, ei, ej;
  dyn_v3 fn, en;
} sat_axes;

/* The six face axes; 0 if one separates the boxes beyond the margin. */
static int face_axes(const obb *A, const obb *B, dyn_v3 t, double margin, sat_axes *x) {
  double C[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[i][j] = fabs(dyn_v3_dot(A->u[i], B->u[j]));
  x->fsep = -INFINITY;
  x->fkind = 0;
  x->fidx = 0;
  x->fn = A->u[0];
  for (int i = 0; i < 3; i++) {
    double d = dyn_v3_dot(t, A->u[i]);
    double sep = fabs(d) - A->h[i] - (B->h[0] * C[i][0] + B->h[1] * C[i][1] + B->h[2] * C[i][2]);
    if (sep > margin) return 0;
    if (sep > x->fsep) {
      x->fsep = sep;
      x->fkind = 0;
      x->fidx = i;
      x->fn = dyn_v3_scale(A->u[i], sgn(d));
    }
  }
  for (int j = 0; j < 3; j++) {
    double d = dyn_v3_dot(t, B->u[j]);
    double sep = fabs(d) - B->h[j] - (A->h[0] * C[0][j] + A->h[1] * C[1][j] + A->h[2] * C[2][j]);
    if (sep > margin) return 0;
    if (sep > x->fsep) {
      x->fsep = sep;
      x->fkind = 1;
      x->fidx = j;
      x->fn = dyn_v3_scale(B->u[j], sgn(d));
    }
  }
  return 1;
}

/* The nine edge axes; 0 if one separates the boxes beyond the margin. */
static int edge_axes(const obb *A, const obb *B, dyn_v3 t, double margin, sat_axes *x) {
  x->esep = -INFINITY;
  x->ei = x->ej = -1;
  x->en = x->fn;
  /* the nine |u_i x v_j| first: their square roots do not wait on the
   * tests of the previous axis */
  dyn_v3 Ls[3][3];
  double ls[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      Ls[i][j] = dyn_v3_cross(A->u[i], B->u[j]);
      ls[i][j] = dyn_v3_norm(Ls[i][j]);
    }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double l = ls[i][j];
      /* |u_i x v_j| = sin(angle) < 1e-6: the edges are parallel and the
       * axis, whatever its direction, is covered by the face axes */
      if (l < 1e-6) continue;
      dyn_v3 L = dyn_v3_scale(Ls[i][j], 1.0 / l);
      double ra = 0.0, rb = 0.0;
      for (int k = 0; k < 3; k++) {
        ra += A->h[k] * fabs(dyn_v3_dot(A->u[k], L));
        rb += B->h[k] * fabs(dyn_v3_dot(B->u[k], L));
      }
      double d = dyn_v3_dot(t, L);
      double sep = fabs(d) - ra - rb;
      if (sep > margin) return 0;
      if (sep > x->esep) {
        x->esep = sep;
        x->ei = i;
        x->ej = j;
        x->en = dyn_v3_scale(L, sgn(d));
      }
    }
  return 1;
}

#ifdef BOX_HAVE_AVX2_CODE
/* edge_axes with the nine axes' arithmetic three at a time (u_i against
 * v_0, v_1, v_2 in the lanes): each lane does edge_axes's operations in
 * its order, no fused multiply-add (the target has none), so every L, d
 * and sep is edge_axes's bit for bit; the tests then run in its order. */
__attribute__((target("avx2"))) static int edge_axes_avx2(const obb *A, const obb *B, dyn_v3 t,
                                                          double margin, sat_axes *x) {
  const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
  const __m256d vx = _mm256_setr_pd(B->u[0].x, B->u[1].x, B->u[2].x, 0.0),
                vy = _mm256_setr_pd(B->u[0].y, B->u[1].y, B->u[2].y, 0.0),
                vz = _mm256_setr_pd(B->u[0].z, B->u[1].z, B->u[2].z, 0.0);
  double Lx[3][4], Ly[3][4], Lz[3][4], ls[3][4], dd[3][4], sp[3][4];
  for (int i = 0; i < 3; i++) {
    __m256d ax = _mm256_set1_pd(A->u[i].x), ay = _mm256_set1_pd(A->u[i].y),
            az = _mm256_set1_pd(A->u[i].z);
    __m256d cx = _mm256_sub_pd(_mm256_mul_pd(ay, vz), _mm256_mul_pd(az, vy));
    __m256d cy = _mm256_sub_pd(_mm256_mul_pd(az, vx), _mm256_mul_pd(ax, vz));
    __m256d cz = _mm256_sub_pd(_mm256_mul_pd(ax, vy), _mm256_mul_pd(ay, vx));
    __m256d l = _mm256_sqrt_pd(_mm256_add_pd(
        _mm256_add_pd(_mm256_mul_pd(cx, cx), _mm256_mul_pd(cy, cy)), _mm256_mul_pd(cz, cz)));
    __m256d inv = _mm256_div_pd(_mm256_set1_pd(1.0), l);
    __m256d px = _mm256_mul_pd(inv, cx), py = _mm256_mul_pd(inv, cy), pz = _mm256_mul_pd(inv, cz);
    __m256d ra = zero, rb = zero;
    for (int k = 0; k < 3; k++) {
      __m256d da = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(A->u[k].x), px),
                                               _mm256_mul_pd(_mm256_set1_pd(A->u[k].y), py)),
                                 _mm256_mul_pd(_mm256_set1_pd(A->u[k].z), pz));
      __m256d db = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(B->u[k].x), px),
                                               _mm256_mul_pd(_mm256_set1_pd(B->u[k].y), py)),
                                 _mm256_mul_pd(_mm256_set1_pd(B->u[k].z), pz));
      ra = _mm256_add_pd(ra, _mm256_mul_pd(_mm256_set1_pd(A->h[k]), _mm256_andnot_pd(sign, da)));
      rb = _mm256_add_pd(rb, _mm256_mul_pd(_mm256_set1_pd(B->h[k]), _mm256_andnot_pd(sign, db)));
    }
    __m256d d = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(t.x), px),
                                            _mm256_mul_pd(_mm256_set1_pd(t.y), py)),
                              _mm256_mul_pd(_mm256_set1_pd(t.z), pz));
    __m256d sep = _mm256_sub_pd(_mm256_sub_pd(_mm256_andnot_pd(sign, d), ra), rb);
    _mm256_storeu_pd(Lx[i], px);
    _mm256_storeu_pd(Ly[i], py);
    _mm256_storeu_pd(Lz[i], pz);
    _mm256_storeu_pd(ls[i], l);
    _mm256_storeu_pd(dd[i], d);
    _mm256_storeu_pd(sp[i], sep);
  }
  x->esep = -INFINITY;
  x->ei = x->ej = -1;
  x->en = x->fn;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      if (ls[i][j] < 1e-6) continue;
      double sep = sp[i][j];
      if (sep > margin) return 0;
      if (sep > x->esep) {
        x->esep = sep;
        x->ei = i;
        x->ej = j;
        x->en = dyn_v3_scale(dyn_v3_make(Lx[i][j], Ly[i][j], Lz[i][j]), sgn(dd[i][j]));
      }
    }
  return 1;
}
#endif

/* The edge axes, three at a time where the CPU has AVX2 (the same bits). */
static int edge_axes_any(const obb *A, const obb *B, dyn_v3 t, double margin, sat_axes *x) {
#ifdef BOX_HAVE_AVX2_CODE
  if (__builtin_cpu_supports("avx2")) return edge_axes_avx2(A, B, t, margin, x);
#endif
  return edge_axes(A, B, t, margin, x);
}

/* Separated within the margin: the gap comes from GJK, exact; the face
 * manifold is kept when its closest point has that gap (boxes hovering
 * face to face), else the single GJK point. */
static int separated_contacts(const dyn_geom *Ab, const dyn_geom *Bb, const obb *A, const obb *B,
                              const sat_axes *x, int edge, double margin, double hsum,
                              dyn_contact *out) {
  dyn_contact g, c[16];
  int kg = dyn_gjk_epa_geoms(Ab, Bb, 0, 1, margin, &g);
  if (kg <= 0) return kg;
  int m = 0;
  if (!edge) {
    m = x->fkind == 0 ? face_contacts(A, x->fidx, x->fn, B, margin, c)
                      : face_contacts(B, x->fidx, dyn_v3_neg(x->fn), A, margin, c);
  }
  double cmax = -INFINITY;
  for (int i = 0; i < m; i++) {
    c[i].normal = x->fn;
    cmax = fmax(cmax, c[i].depth);
  }
  /* 1e-9 of the boxes' size: far above the rounding of both gaps */
  if (m > 0 && fabs(cmax - g.depth) <= 1e-9 * hsum) {
    m = reduce4(c, m, x->fn);
    for (int i = 0; i < m; i++) out[i] = c[i];
    return m;
  }
  *out = g;
  return 1;
}

/* Edge-edge: the closest points of the supporting edges of a (along n)
 * and b (along -n). */
static int edge_contact(const obb *A, const obb *B, const sat_axes *x, double margin,
                        dyn_contact *out) {
  int ei = x->ei, ej = x->ej;
  dyn_v3 pa = A->c, pb = B->c;
  for (int k = 0; k < 3; k++) {
    if (k != ei) pa = dyn_v3_axpy(pa, A->h[k] * sgn(dyn_v3_dot(A->u[k], x->en)), A->u[k]);
    if (k != ej) pb = dyn_v3_axpy(pb, -B->h[k] * sgn(dyn_v3_dot(B->u[k], x->en)), B->u[k]);
  }
  dyn_v3 da = dyn_v3_scale(A->u[ei], 2.0 * A->h[ei]), db = dyn_v3_scale(B->u[ej], 2.0 * B->h[ej]);
  pa = dyn_v3_axpy(pa, -A->h[ei], A->u[ei]);
  pb = dyn_v3_axpy(pb, -B->h[ej], B->u[ej]);
  dyn_v3 xa, xb;
  seg_seg(pa, da, pb, db, &xa, &xb);
  double depth = -x->esep;
  if (!(depth > -margin)) return 0;
  out->p = dyn_v3_scale(dyn_v3_add(xa, xb), 0.5);
  out->normal = x->en;
  out->depth = depth;
  return 1;
}

/* Face contact: the incident face clipped against the reference face;
 * when nothing is left, the incident box's deepest corner. */
static int face_manifold(const obb *A, const obb *B, const sat_axes *x, double margin,
                         dyn_contact *out) {
  dyn_contact c[16];
  int m, fkind = x->fkind;
  dyn_v3 fn = x->fn;
  if (fkind == 0) {
    m = face_contacts(A, x->fidx, fn, B, margin, c);
  } else {
    /* reference face on b: its outward normal is -n; flip back after */
    m = face_contacts(B, x->fidx, dyn_v3_neg(fn), A, margin, c);
    for (int i = 0; i < m; i++) c[i].normal = fn;
  }
  if (m == 0) {
    double depth = -x->fsep;
    if (!(depth > -margin)) return 0;
    const obb *I = fkind == 0 ? B : A;
    dyn_v3 dir = fkind == 0 ? dyn_v3_neg(fn) : fn; /* into the reference box */
    dyn_v3 p = I->c;
    for (int k = 0; k < 3; k++)
      p = dyn_v3_axpy(p, I->h[k] * sgn(dyn_v3_dot(I->u[k], dir)), I->u[k]);
    /* p is b's deepest point (fkind 0) or a's (fkind 1); the midpoint lies
     * depth/2 back towards the reference box's surface */
    out->p = dyn_v3_axpy(p, fkind == 0 ? 0.5 * depth : -0.5 * depth, fn);
    out->normal = fn;
    out->depth = depth;
    return 1;
  }
  m = reduce4(c, m, fn);
  for (int i = 0; i < m; i++) out[i] = c[i];
  return m;
}

int dyn_cb_box_box(const dyn_geom *Ab, const dyn_geom *Bb, double margin, dyn_contact *out) {
  obb A = obb_of(Ab), B = obb_of(Bb);
  dyn_v3 t = dyn_v3_sub(B.c, A.c);
  sat_axes x;
  if (!face_axes(&A, &B, t, margin, &x) || !edge_axes_any(&A, &B, t, margin, &x)) return 0;
  double hsum = A.h[0] + A.h[1] + A.h[2] + B.h[0] + B.h[1] + B.h[2];
  int edge = x.ei >= 0 && x.esep > x.fsep + 0.05 * fabs(x.fsep) + 1e-9 * hsum;
  if (fmax(x.fsep, x.esep) > 0.0)
    return separated_contacts(Ab, Bb, &A, &B, &x, edge, margin, hsum, out);
  if (edge) return edge_contact(&A, &B, &x, margin, out);
  return face_manifold(&A, &B, &x, margin, out);
}

/* ---- box-capsule --------------------------------------------------------- */

int dyn_cb_box_capsule(const dyn_geom *Bb, const dyn_geom *Cb, double margin, dyn_contact *out) {
  dyn_contact g;
  int k = dyn_gjk_epa_geoms(Bb, Cb, 0, 1, margin, &g);
  if (k <= 0) return k;
  obb o = obb_of(Bb);
  dyn_v3 n = g.normal; /* box -> capsule */
  int f = 0;
  for (int q = 1; q < 3; q++)
    if (fabs(dyn_v3_dot(o.u[q], n)) > fabs(dyn_v3_dot(o.u[f], n))) f = q;
  double r = Cb->shape->radius, hl = Cb->shape->half_length;
  /* n equal to a face normal up to the rounding of GJK/EPA's direction */
  if (!(fabs(dyn_v3_dot(o.u[f], n)) > 1.0 - 1e-9) || !(hl > 0.0)) {
    *out = g;
    return 1;
  }
  dyn_v3 m = dyn_v3_scale(o.u[f], sgn(dyn_v3_dot(o.u[f], n)));
  dyn_v3 fc = dyn_v3_axpy(o.c, o.h[f], m);
  dyn_v3 ax = dyn_quat_rotate(dyn_quat_normalize(Cb->q), dyn_v3_make(0.0, 0.0, 1.0));
  dyn_v3 e0 = dyn_v3_axpy(Cb->r, -hl, ax), d = dyn_v3_scale(ax, 2.0 * hl);
  /* Liang-Barsky: e0 + s d inside |u_k . (x - fc)| <= h_k for the two
   * in-face axes */
  double s0 = 0.0, s1 = 1.0;
  for (int q = 1; q <= 2; q++) {
    int kq = (f + q) % 3;
    double p0 = dyn_v3_dot(o.u[kq], dyn_v3_sub(e0, fc)), dp = dyn_v3_dot(o.u[kq], d);
    if (dp == 0.0) {
      if (fabs(p0) > o.h[kq]) s1 = -1.0;
      continue;
    }
    double a = (-o.h[kq] - p0) / dp, b = (o.h[kq] - p0) / dp;
    s0 = fmax(s0, fmin(a, b));
    s1 = fmin(s1, fmax(a, b));
  }
  /* clipped piece shorter than 1e-9 of the capsule: one point is enough */
  if (!(s1 - s0 > 1e-9)) {
    *out = g;
    return 1;
  }
  int cnt = 0;
  double sv[2] = { s0, s1 };
  for (int i = 0; i < 2; i++) {
    dyn_v3 x = dyn_v3_axpy(e0, sv[i], d);
    double z = dyn_v3_dot(m, dyn_v3_sub(x, fc));
    double depth = r - z;
    if (!(depth > -margin)) continue;
    out[cnt].p = dyn_v3_axpy(x, -0.5 * (r + z), m);
    out[cnt].normal = m;
    out[cnt].depth = depth;
    cnt++;
  }
  if (cnt == 0) {
    *out = g;
    return 1;
  }
  return cnt;
}
