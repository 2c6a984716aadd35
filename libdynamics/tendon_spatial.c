/*
 * tendon_spatial.c -- spatial tendons (sites and wrap geoms) and MuJoCo's
 * muscle on them (dyn_tendon.h).
 *
 * Wrapping (MuJoCo 2.2's rule, its mju_wrap): in the geom's frame the two
 * sites either side are projected into a plane through the centre (a
 * cylinder's: its cross-section, local x-y; a sphere's: the plane through
 * the centre and both sites).  No wrap when either site is inside the
 * circle, or when the straight piece misses the circle on the side site's
 * side (without a side site: misses it at all).  Else the path leaves the
 * first site on a tangent to the circle, follows the arc and reaches the
 * second on a tangent: of the two such paths, the one whose arc's middle
 * is nearer the side site (without one: whose tangent points are nearer
 * each other), unless its tangents cross.  A side site inside the circle
 * wraps the path the other way, through the circle (wrap_inside: the
 * point where the two pieces meet the circle at equal angles).  On a
 * cylinder the heights of the tangent points share the sites' height
 * difference in proportion to the planar lengths, and the arc is a helix.
 */
#include "dyn_tendon.h"

#include <math.h>
#include <stddef.h>

#define TINY 1e-15 /* MuJoCo's mjMINVAL */
#define PI   3.14159265358979323846

/* ---- the circle in a plane: 2-vectors as double[2] ----------------------------- */

static double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }

/* 1 if the segments p1-p2 and p3-p4 meet */
static int segments_cross(const double *p1, const double *p2, const double *p3, const double *p4) {
  double det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1]);
  if (fabs(det) < TINY) return 0;
  double a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det;
  double b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det;
  return a >= 0 && a <= 1 && b >= 0 && b <= 1;
}

/* The arc from t0 to t1 on a circle of radius r, the long way round where
 * the winding of solution `second` says so. */
static double arc_length(const double *t0, const double *t1, int second, double r) {
  double c = dot2(t0, t1) / sqrt(dot2(t0, t0) * dot2(t1, t1));
  double ang = acos(c > 1 ? 1 : c < -1 ? -1 : c);
  double cross = t0[1] * t1[0] - t0[0] * t1[1];
  if ((cross > 0 && second) || (cross < 0 && !second)) ang = 2 * PI - ang;
  return r * ang;
}

/* 1 if the straight piece e0-e1 clears the circle of radius r (on the side
 * site's side sd, when given): no wrap. */
static int piece_clears(const double *e, const double *sd, double r) {
  double dif[2] = { e[2] - e[0], e[3] - e[1] };
  double dd = dot2(dif, dif);
  double a = -(dif[0] * e[0] + dif[1] * e[1]) / dd;
  a = a < 0 ? 0 : a > 1 ? 1 : a;
  double near[2] = { e[0] + a * dif[0], e[1] + a * dif[1] };
  return dot2(near, near) > r * r && (!sd || dot2(sd, near) >= 0);
}

/* The tangent points of solution i (sign +1 or -1) from e0 and e1 into t[4]. */
static void tangents(const double *e, double r, double sgn, double *t) {
  double l0 = dot2(e, e), l1 = dot2(e + 2, e + 2), rr = r * r;
  double s0 = sqrt(l0 - rr), s1 = sqrt(l1 - rr);
  t[0] = (e[0] * rr + sgn * r * e[1] * s0) / l0;
  t[1] = (e[1] * rr - sgn * r * e[0] * s0) / l0;
  t[2] = (e[2] * rr - sgn * r * e[3] * s1) / l1;
  t[3] = (e[3] * rr + sgn * r * e[2] * s1) / l1;
}

/* The outside wrap of the piece e[4] around the circle of radius r, side
 * point sd (NULL: none): the tangent points into t[4] and the arc's
 * length, or -1 for no wrap. */
static double wrap_circle(const double *e, const double *sd, double r, double *t) {
  double dif[2] = { e[2] - e[0], e[3] - e[1] };
  if (dot2(e, e) < r * r || dot2(e + 2, e + 2) < r * r || r < TINY || dot2(dif, dif) < TINY ||
      piece_clears(e, sd, r))
    return -1;
  double sol[2][4], good[2];
  for (int i = 0; i < 2; i++) {
    tangents(e, r, i == 0 ? 1.0 : -1.0, sol[i]);
    double m[2] = { sol[i][0] + sol[i][2], sol[i][1] + sol[i][3] };
    double d[2] = { sol[i][0] - sol[i][2], sol[i][1] - sol[i][3] };
    double nm = sqrt(dot2(m, m));
    good[i] = sd ? (nm > 0 ? dot2(m, sd) / nm : 0) : -dot2(d, d);
    if (segments_cross(e, sol[i], e + 2, sol[i] + 2)) good[i] = -10000;
  }
  int i = good[0] > good[1] ? 0 : 1;
  for (int k = 0; k < 4; k++) t[k] = sol[i][k];
  if (segments_cross(e, t, e + 2, t + 2)) return -1;
  return arc_length(sol[i], sol[i] + 2, i, r);
}

/* f(z) = asin(A z) + asin(B z) - 2 asin(z) + G and its derivative */
static double inside_f(double A, double B, double G, double z) {
  return asin(A * z) + asin(B * z) - 2 * asin(z) + G;
}
static double inside_df(double A, double B, double z) {
  return A / fmax(TINY, sqrt(1 - z * z * A * A)) + B / fmax(TINY, sqrt(1 - z * z * B * B)) -
         2 / fmax(TINY, sqrt(1 - z * z));
}

/* The point where the path through the circle (a side site inside it)
 * meets it: Newton on inside_f from z just below 1; 0 (t kept) when it
 * stops short; 1 with t[0..1] set. */
static int inside_point(const double *e, double r, double A, double B, double G, double *t) {
  double z = 1 - 1e-7, f = inside_f(A, B, G, z);
  if (f > 0) return 0;
  int it = 0;
  for (; it < 20 && fabs(f) > 1e-6; it++) {
    double df = inside_df(A, B, z);
    if (df > -TINY || z - f / df > z) return 0;
    z -= f / df;
    f = inside_f(A, B, G, z);
    if (f > 1e-6) return 0;
  }
  if (it >= 20) return 0;
  int first = e[0] * e[3] - e[1] * e[2] > 0;
  const double *v = first ? e : e + 2;
  double ang = asin(z) - asin((first ? A : B) * z), nv = sqrt(dot2(v, v));
  t[0] = r * (cos(ang) * v[0] - sin(ang) * v[1]) / nv;
  t[1] = r * (sin(ang) * v[0] + cos(ang) * v[1]) / nv;
  return 1;
}

/* The wrap through the circle (the side site inside it): both tangent
 * points the one point into t[4]; length 0, or -1 for no wrap. */
static double wrap_inside(const double *e, double r, double *t) {
  double l0 = sqrt(dot2(e, e)), l1 = sqrt(dot2(e + 2, e + 2));
  double dif[2] = { e[2] - e[0], e[3] - e[1] }, dd = dot2(dif, dif);
  if (l0 <= r || l1 <= r || r < TINY || l0 < TINY || l1 < TINY) return -1;
  if (dd > TINY) {
    double a = -(dif[0] * e[0] + dif[1] * e[1]) / dd;
    double near[2] = { e[0] + a * dif[0], e[1] + a * dif[1] };
    if (a > 0 && a < 1 && sqrt(dot2(near, near)) <= r) return -1;
  }
  double mid[2] = { 0.5 * (e[0] + e[2]), 0.5 * (e[1] + e[3]) }, nm = sqrt(dot2(mid, mid));
  t[0] = nm > 0 ? r * mid[0] / nm : 0, t[1] = nm > 0 ? r * mid[1] / nm : 0;
  double cosG = (l0 * l0 + l1 * l1 - dd) / (2 * l0 * l1);
  if (cosG < -1 + TINY) return -1;
  if (cosG <= 1 - TINY) inside_point(e, r, r / l0, r / l1, acos(cosG), t);
  t[2] = t[0], t[3] = t[1];
  return 0;
}

/* ---- a wrap geom in 3-D ---------------------------------------------------------- */

/* The plane of the wrap in the geom's frame: axes a0, a1 through the centre
 * (a sphere's: through the centre and the sites p0, p1). */
static void wrap_plane(int kind, dyn_v3 p0, dyn_v3 p1, dyn_v3 *a0, dyn_v3 *a1) {
  if (kind == DYN_PATH_CYLINDER) {
    *a0 = dyn_v3_make(1, 0, 0), *a1 = dyn_v3_make(0, 1, 0);
    return;
  }
  *a0 = dyn_v3_normalize(p0);
  dyn_v3 n = dyn_v3_cross(p0, p1);
  if (dyn_v3_norm(n) < TINY) { /* p0, p1 parallel: any plane through them */
    double ax = fabs(a0->x), ay = fabs(a0->y), az = fabs(a0->z);
    dyn_v3 o = ay > ax && ay > az   ? dyn_v3_make(1, 0, 1)
               : az > ax && az > ay ? dyn_v3_make(1, 1, 0)
                                    : dyn_v3_make(0, 1, 1);
    n = dyn_v3_cross(*a0, o);
  }
  *a1 = dyn_v3_normalize(dyn_v3_cross(dyn_v3_normalize(n), *a0));
}

/* A cylinder's tangent points t0, t1 lifted to heights that share the
 * sites' difference in proportion to the planar lengths; the helix's
 * length from the arc's wlen. */
static double lift(dyn_v3 p0, dyn_v3 p1, dyn_v3 *t0, dyn_v3 *t1, double wlen) {
  double L0 = hypot(p0.x - t0->x, p0.y - t0->y), L1 = hypot(p1.x - t1->x, p1.y - t1->y);
  double tot = L0 + wlen + L1;
  t0->z = p0.z + (p1.z - p0.z) * L0 / tot;
  t1->z = p0.z + (p1.z - p0.z) * (L0 + wlen) / tot;
  return hypot(wlen, t1->z - t0->z);
}

/* The wrap of the piece x0-x1 (world) around geom g at centre c and
 * orientation q (world), side site side (NULL: none): the tangent points
 * (world) into t[2] and the wrapped length between them, or -1. */
static double wrap(int kind, double r, dyn_v3 c, dyn_quat q, dyn_v3 x0, dyn_v3 x1,
                   const dyn_v3 *side, dyn_v3 *t) {
  dyn_v3 p0 = dyn_quat_rotate_inv(q, dyn_v3_sub(x0, c));
  dyn_v3 p1 = dyn_quat_rotate_inv(q, dyn_v3_sub(x1, c));
  if (dyn_v3_norm(p0) < TINY || dyn_v3_norm(p1) < TINY) return -1;
  dyn_v3 a0, a1;
  wrap_plane(kind, p0, p1, &a0, &a1);
  double e[4] = { dyn_v3_dot(p0, a0), dyn_v3_dot(p0, a1), dyn_v3_dot(p1, a0), dyn_v3_dot(p1, a1) };
  double sd[2] = { 0, 0 }, pt[4], wlen;
  int inside = 0;
  if (side) {
    dyn_v3 s = dyn_quat_rotate_inv(q, dyn_v3_sub(*side, c));
    sd[0] = dyn_v3_dot(s, a0), sd[1] = dyn_v3_dot(s, a1);
    double ns = sqrt(dot2(sd, sd));
    inside = ns < r;
    if (!inside) sd[0] *= r / ns, sd[1] *= r / ns;
  }
  wlen = inside ? wrap_inside(e, r, pt) : wrap_circle(e, side ? sd : NULL, r, pt);
  if (wlen < 0) return -1;
  dyn_v3 l0 = dyn_v3_add(dyn_v3_scale(a0, pt[0]), dyn_v3_scale(a1, pt[1]));
  dyn_v3 l1 = dyn_v3_add(dyn_v3_scale(a0, pt[2]), dyn_v3_scale(a1, pt[3]));
  if (kind == DYN_PATH_CYLINDER) wlen = lift(p0, p1, &l0, &l1, wlen);
  t[0] = dyn_v3_add(c, dyn_quat_rotate(q, l0));
  t[1] = dyn_v3_add(c, dyn_quat_rotate(q, l1));
  return wlen;
}

/* ---- paths ----------------------------------------------------------------------- */

/* Body b's pose (the world's for -1). */
static void pose(const dyn_body_state *bodies, int b, dyn_v3 *r, dyn_quat *q) {
  *r = b < 0 ? dyn_v3_make(0, 0, 0) : bodies[b].r;
  *q = b < 0 ? dyn_quat_make(1, 0, 0, 0) : dyn_quat_normalize(bodies[b].q);
}

/* A point fixed at pos in body b's frame, in the world. */
static dyn_v3 world_point(const dyn_body_state *bodies, int b, dyn_v3 pos) {
  dyn_v3 r;
  dyn_quat q;
  pose(bodies, b, &r, &q);
  return dyn_v3_add(r, dyn_quat_rotate(q, pos));
}

static int is_site(const dyn_path_elem *e) { return e->kind == DYN_PATH_SITE; }

const char *dyn_tendon_path_fault(const dyn_model *m, const dyn_actuator_def *a) {
  int n = a->npath, nb = dyn_model_body_count(m);
  if (n == 0) return NULL;
  if (n < 2 || n > DYN_TENDON_MAX_PATH)
    return "a spatial tendon's path has fewer than 2 or more "
           "than 16 elements";
  if (a->njoints != 0 || a->slider_crank) return "a spatial tendon is its only transmission";
  if (!is_site(&a->path[0]) || !is_site(&a->path[n - 1]))
    return "a spatial tendon's path does not start and end at a site";
  for (int k = 0; k < n; k++) {
    const dyn_path_elem *e = &a->path[k];
    if (e->kind < DYN_PATH_SITE || e->kind > DYN_PATH_CYLINDER) return "a path element's kind";
    if (e->body < -1 || e->body >= nb || (e->side && (e->side_body < -1 || e->side_body >= nb)))
      return "a path element's body does not exist";
    if (!isfinite(dyn_v3_norm(e->pos)) || !isfinite(dyn_v3_norm(e->side_pos)))
      return "a path element's position is not finite";
    if (!is_site(e) && (!(e->radius > 0) || !isfinite(e->radius) || !is_site(&a->path[k - 1]) ||
                        !is_site(&a->path[k + 1])))
      return "a wrap geom is not between two sites, or its radius is not > 0";
  }
  return NULL;
}

/* The piece from site s0 over wrap geom g (NULL: none) to site s1 onto pt
 * (s0's point and any tangent points; *n advanced): its length. */
static double piece(const dyn_path_elem *s0, const dyn_path_elem *g, const dyn_path_elem *s1,
                    const dyn_body_state *bodies, dyn_path_point *pt, int *n) {
  dyn_v3 x0 = world_point(bodies, s0->body, s0->pos), x1 = world_point(bodies, s1->body, s1->pos);
  pt[(*n)++] = (dyn_path_point){ x0, s0->body };
  double wlen = -1;
  dyn_v3 t[2];
  if (g) {
    dyn_v3 c = world_point(bodies, g->body, g->pos), side;
    dyn_v3 r;
    dyn_quat q;
    pose(bodies, g->body, &r, &q);
    if (g->side) side = world_point(bodies, g->side_body, g->side_pos);
    wlen = wrap(g->kind, g->radius, c, dyn_quat_mul(q, dyn_quat_normalize(g->rot)), x0, x1,
                g->side ? &side : NULL, t);
  }
  if (wlen < 0) return dyn_v3_norm(dyn_v3_sub(x1, x0));
  pt[(*n)++] = (dyn_path_point){ t[0], g->body };
  pt[(*n)++] = (dyn_path_point){ t[1], g->body };
  return dyn_v3_norm(dyn_v3_sub(t[0], x0)) + wlen + dyn_v3_norm(dyn_v3_sub(x1, t[1]));
}

double dyn_tendon_path(const dyn_actuator_def *a, const dyn_body_state *bodies, dyn_path_point *pt,
                       int *n) {
  double L = 0;
  *n = 0;
  for (int k = 0; k + 1 < a->npath;) {
    const dyn_path_elem *g = is_site(&a->path[k + 1]) ? NULL : &a->path[k + 1];
    int next = g ? k + 2 : k + 1;
    L += piece(&a->path[k], g, &a->path[next], bodies, pt, n);
    k = next;
  }
  const dyn_path_elem *last = &a->path[a->npath - 1];
  pt[(*n)++] = (dyn_path_point){ world_point(bodies, last->body, last->pos), last->body };
  return L;
}

/* The velocity of world point p fixed to body b. */
static dyn_v3 point_velocity(const dyn_body_state *bodies, int b, dyn_v3 p) {
  if (b < 0) return dyn_v3_make(0, 0, 0);
  return dyn_v3_add(bodies[b].v, dyn_v3_cross(bodies[b].w, dyn_v3_sub(p, bodies[b].r)));
}

double dyn_tendon_velocity(const dyn_path_point *pt, int n, const dyn_body_state *bodies) {
  double v = 0;
  for (int k = 0; k + 1 < n; k++) {
    if (pt[k].body == pt[k + 1].body) continue;
    dyn_v3 d = dyn_v3_normalize(dyn_v3_sub(pt[k + 1].p, pt[k].p));
    dyn_v3 dv = dyn_v3_sub(point_velocity(bodies, pt[k + 1].body, pt[k + 1].p),
                           point_velocity(bodies, pt[k].body, pt[k].p));
    v += dyn_v3_dot(d, dv);
  }
  return v;
}

/* Force F at world point p on model body b, onto its tree body's loads. */
static void push(const dyn_body_state *bodies, const int *tree_of, int b, dyn_v3 p, dyn_v3 F,
                 dyn_v3 *fx, dyn_v3 *tx) {
  int k = b < 0 ? -1 : tree_of[b];
  if (k < 0) return;
  fx[k] = dyn_v3_add(fx[k], F);
  tx[k] = dyn_v3_add(tx[k], dyn_v3_cross(dyn_v3_sub(p, bodies[b].r), F));
}

/* The generalized force gear f dL/dq of the path pt[n] as point forces. */
static void path_loads(const dyn_path_point *pt, int n, double f, const dyn_body_state *bodies,
                       const int *tree_of, dyn_v3 *fx, dyn_v3 *tx) {
  for (int k = 0; k + 1 < n; k++) {
    if (pt[k].body == pt[k + 1].body) continue;
    dyn_v3 F = dyn_v3_scale(dyn_v3_normalize(dyn_v3_sub(pt[k + 1].p, pt[k].p)), f);
    push(bodies, tree_of, pt[k + 1].body, pt[k + 1].p, F, fx, tx);
    push(bodies, tree_of, pt[k].body, pt[k].p, dyn_v3_scale(F, -1.0), fx, tx);
  }
}

/* ---- muscles --------------------------------------------------------------------- */

/* The muscle's peak force and its normalized length at L. */
static double muscle_scale(const dyn_muscle_prm *m, double L, double *x) {
  double L0 = (m->lengthrange[1] - m->lengthrange[0]) / fmax(TINY, m->range[1] - m->range[0]);
  *x = m->range[0] + (L - m->lengthrange[0]) / fmax(TINY, L0);
  return m->force < 0 ? m->scale / fmax(TINY, m->acc0) : m->force;
}

/* The active force-length curve at normalized length x. */
static double muscle_fl(const dyn_muscle_prm *m, double x) {
  double a = 0.5 * (m->lmin + 1), b = 0.5 * (1 + m->lmax), y;
  if (x >= m->lmin && x <= a) {
    y = (x - m->lmin) / fmax(TINY, a - m->lmin);
    return 0.5 * y * y;
  }
  if (x >= m->lmin && x <= 1) {
    y = (1 - x) / fmax(TINY, 1 - a);
    return 1 - 0.5 * y * y;
  }
  if (x > 1 && x <= b) {
    y = (x - 1) / fmax(TINY, b - 1);
    return 1 - 0.5 * y * y;
  }
  if (x > b && x <= m->lmax) {
    y = (m->lmax - x) / fmax(TINY, m->lmax - b);
    return 0.5 * y * y;
  }
  return 0;
}

/* The force-velocity curve at normalized velocity V. */
static double muscle_fv(const dyn_muscle_prm *m, double V) {
  double y = m->fvmax - 1;
  if (V <= -1) return 0;
  if (V <= 0) return (V + 1) * (V + 1);
  if (V <= y) return m->fvmax - (y - V) * (y - V) / fmax(TINY, y);
  return m->fvmax;
}

/* The passive force-length curve at normalized length x (times fpmax). */
static double muscle_fp(const dyn_muscle_prm *m, double x) {
  double b = 0.5 * (1 + m->lmax);
  if (x <= 1) return 0;
  if (x <= b) {
    double y = (x - 1) / fmax(TINY, b - 1);
    return m->fpmax * 0.5 * y * y;
  }
  return m->fpmax * (0.5 + (x - b) / fmax(TINY, b - 1));
}

double dyn_muscle_force(const dyn_muscle_prm *m, double L, double V, double act) {
  double x, F = muscle_scale(m, L, &x);
  double L0 = (m->lengthrange[1] - m->lengthrange[0]) / fmax(TINY, m->range[1] - m->range[0]);
  double gain = act != 0 ? -F * muscle_fl(m, x) * muscle_fv(m, V / fmax(TINY, L0 * m->vmax)) : 0;
  return gain * act - F * muscle_fp(m, x);
}

static double clamp(double x, int on, double lo, double hi) {
  return !on ? x : x < lo ? lo : x > hi ? hi : x;
}

double dyn_tendon_actuator_force(const dyn_actuator_def *a, double ctrl, double act, double L,
                                 double V) {
  double f = a->muscle ? dyn_muscle_force(&a->mus, L, V, act)
                       : a->gain * clamp(ctrl, a->ctrl_limited, a->ctrl_lo, a->ctrl_hi);
  return clamp(f, a->force_limited, a->force_lo, a->force_hi);
}

void dyn_tendon_loads(const dyn_model *m, const dyn_body_state *bodies, const int *tree_of,
                      const double *ctrl, const double *act, dyn_v3 *fx, dyn_v3 *tx) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  int na = dyn_model_actuator_count(m);
  dyn_path_point pt[DYN_TENDON_MAX_POINTS];
  for (int i = 0; i < na; i++) {
    if (a[i].npath == 0) continue;
    int n;
    double L = a[i].gear * dyn_tendon_path(&a[i], bodies, pt, &n);
    double V = a[i].gear * dyn_tendon_velocity(pt, n, bodies);
    double f = dyn_tendon_actuator_force(&a[i], ctrl ? ctrl[i] : 0.0, act ? act[i] : 0.0, L, V);
    if (f != 0) path_loads(pt, n, a[i].gear * f, bodies, tree_of, fx, tx);
  }
}

/* MuJoCo's muscle activation rate at control c and activation act. */
static double muscle_rate(const dyn_muscle_prm *m, double c, double act) {
  double cc = c < 0 ? 0 : c > 1 ? 1 : c, a = act < 0 ? 0 : act > 1 ? 1 : act;
  double tau = cc > act ? m->tau_act * (0.5 + 1.5 * a) : m->tau_deact / (0.5 + 1.5 * a);
  return (cc - act) / fmax(TINY, tau);
}

int dyn_tendon_muscle_count(const dyn_model *m) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  int n = 0;
  for (int i = 0; i < dyn_model_actuator_count(m); i++) n += a[i].muscle;
  return n;
}

void dyn_tendon_activate(const dyn_model *m, const double *ctrl, double *act, double h) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  for (int i = 0; i < dyn_model_actuator_count(m); i++) {
    if (!a[i].muscle) continue;
    const dyn_muscle_prm *p = &a[i].mus;
    double c = clamp(ctrl ? ctrl[i] : 0.0, a[i].ctrl_limited, a[i].ctrl_lo, a[i].ctrl_hi);
    act[i] = clamp(act[i] + h * muscle_rate(p, c, act[i]), p->act_limited, p->act_lo, p->act_hi);
  }
}
