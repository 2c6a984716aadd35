/*
 * shape_support.c -- the curved convex shapes, ellipsoid and cylinder, given
 * by their support functions (docs/dynamics.md, "Collision"): the GJK/EPA
 * narrow phase (gjk.c) takes them as cores of radius 0, the broad phase
 * their bounding boxes, the model their mass; no hull approximates them.
 *
 * Body frame, semi-axes a = (a_x, a_y, a_z) of the ellipsoid (dyn_shape's
 * half), the cylinder's radius r and half length h along z:
 *
 *   ellipsoid  x = { x : sum (x_i / a_i)^2 <= 1 },
 *              s(d) = A^2 d / |A d|,  A = diag(a)
 *              (the maximiser of d . x on the surface: the Lagrange
 *              condition d = 2 lambda A^-2 x);
 *   cylinder   x = { |x_xy| <= r, |x_z| <= h },
 *              s(d) = (r d_xy / |d_xy|, sign(d_z) h)
 *              (the disc's support plus the segment's), the cap's centre
 *              when d_xy = 0 and the equator's when d_z = 0.
 *
 * World bounding boxes: an ellipsoid's half extent along world axis i is
 * |A R_i| = sqrt(sum_j (R_ij a_j)^2) (the support of +-e_i); a cylinder's
 * |R_iz| h + r sqrt(1 - R_iz^2) (the segment's plus the disc's).
 *
 * A plane against a cylinder (dyn_cs_plane_cylinder) gives up to four
 * points, so that a cylinder stands on its cap and lies on its side: the
 * deepest rim points of both caps, and of the lower cap the rim points a
 * quarter and a half turn from its deepest, each kept where it is within
 * the margin (the four deepest when five are).  On its cap the four points
 * are at the plane's depth, on its side the two ends of the lowest line.
 */
#include "dyn.h"
#include "dyn_internal.h"

#include <math.h>

dyn_v3 dyn_shape_curved_support(const dyn_shape *s, dyn_v3 d) {
  if (s->kind == DYN_SHAPE_ELLIPSOID) {
    dyn_v3 ad = dyn_v3_make(s->half.x * d.x, s->half.y * d.y, s->half.z * d.z);
    double l = dyn_v3_norm(ad);
    if (!(l > 0.0)) return dyn_v3_make(0.0, 0.0, 0.0);
    return dyn_v3_make(s->half.x * ad.x / l, s->half.y * ad.y / l, s->half.z * ad.z / l);
  }
  /* DYN_SHAPE_CYLINDER */
  double lxy = sqrt(d.x * d.x + d.y * d.y);
  double z = d.z > 0.0 ? s->half_length : d.z < 0.0 ? -s->half_length : 0.0;
  if (!(lxy > 0.0)) return dyn_v3_make(0.0, 0.0, z);
  return dyn_v3_make(s->radius * d.x / lxy, s->radius * d.y / lxy, z);
}

double dyn_shape_curved_extent(const dyn_shape *s) {
  if (s->kind == DYN_SHAPE_ELLIPSOID) return fmax(s->half.x, fmax(s->half.y, s->half.z));
  return hypot(s->radius, s->half_length);
}

dyn_v3 dyn_shape_curved_half_box(const dyn_shape *s, dyn_m3 R) {
  const double *m = R.m;
  double e[3];
  for (int i = 0; i < 3; i++) {
    if (s->kind == DYN_SHAPE_ELLIPSOID) {
      dyn_v3 ra =
          dyn_v3_make(m[3 * i] * s->half.x, m[3 * i + 1] * s->half.y, m[3 * i + 2] * s->half.z);
      e[i] = dyn_v3_norm(ra);
    } else {
      double c = fabs(m[3 * i + 2]);
      e[i] = c * s->half_length + s->radius * sqrt(fmax(0.0, 1.0 - c * c));
    }
  }
  return dyn_v3_make(e[0], e[1], e[2]);
}

int dyn_shape_curved_valid(const dyn_shape *s) {
  if (s->kind == DYN_SHAPE_ELLIPSOID)
    return s->half.x >= 0.0 && s->half.y >= 0.0 && s->half.z >= 0.0 && isfinite(s->half.x) &&
           isfinite(s->half.y) && isfinite(s->half.z);
  return s->radius >= 0.0 && isfinite(s->radius) && s->half_length >= 0.0 &&
         isfinite(s->half_length);
}

/* A unit vector perpendicular to the unit vector a. */
static dyn_v3 perp_unit(dyn_v3 a) {
  dyn_v3 t = fabs(a.x) < 0.6 ? dyn_v3_make(1.0, 0.0, 0.0) : dyn_v3_make(0.0, 1.0, 0.0);
  dyn_v3 u = dyn_v3_sub(t, dyn_v3_scale(a, dyn_v3_dot(t, a)));
  return dyn_v3_scale(u, 1.0 / dyn_v3_norm(u));
}

/* Keeps candidate x (world) as a contact of plane (n, d) if within the
 * margin; when out is full (DYN_MAX_MANIFOLD), replaces the shallowest if
 * x is deeper.  Returns the new count. */
static int keep_point(dyn_v3 x, dyn_v3 n, double off, double margin, dyn_contact *out, int k) {
  double depth = off - dyn_v3_dot(n, x);
  if (!(depth > -margin)) return k;
  int at = k;
  if (k == DYN_MAX_MANIFOLD) {
    at = 0;
    for (int i = 1; i < k; i++)
      if (out[i].depth < out[at].depth) at = i;
    if (!(depth > out[at].depth)) return k;
  }
  out[at].p = dyn_v3_axpy(x, 0.5 * depth, n);
  out[at].normal = n;
  out[at].depth = depth;
  return at == k ? k + 1 : k;
}

int dyn_cs_plane_cylinder(const dyn_geom *P, const dyn_geom *C, double margin, dyn_contact *out) {
  const dyn_shape *s = C->shape;
  dyn_v3 n = P->shape->normal;
  double off = P->shape->offset;
  dyn_m3 R = dyn_quat_to_m3(dyn_quat_normalize(C->q));
  dyn_v3 a = dyn_v3_make(R.m[2], R.m[5], R.m[8]);
  /* the rim direction deepest into the plane: -n in the cap's plane */
  dyn_v3 e = dyn_v3_sub(dyn_v3_neg(n), dyn_v3_scale(a, -dyn_v3_dot(n, a)));
  double le = dyn_v3_norm(e);
  dyn_v3 u = le > 1e-12 ? dyn_v3_scale(e, 1.0 / le) : perp_unit(a);
  dyn_v3 f = dyn_v3_cross(a, u);
  double lower = dyn_v3_dot(n, a) > 0.0 ? -1.0 : 1.0; /* the cap nearer the plane */
  dyn_v3 c0 = dyn_v3_axpy(C->r, lower * s->half_length, a);
  dyn_v3 c1 = dyn_v3_axpy(C->r, -lower * s->half_length, a);
  double r = s->radius;
  dyn_v3 cand[5] = { dyn_v3_axpy(c0, r, u), dyn_v3_axpy(c1, r, u), dyn_v3_axpy(c0, r, f),
                     dyn_v3_axpy(c0, -r, f), dyn_v3_axpy(c0, -r, u) };
  int k = 0;
  for (int i = 0; i < 5; i++) k = keep_point(cand[i], n, off, margin, out, k);
  return k;
}
