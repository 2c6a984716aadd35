/* test_shape_support.c -- ellipsoids and cylinders as convex shapes given by
 * their support functions (libdynamics/shape_support.c, through gjk.c and
 * collide.c; issue 80, item 5b): hand-derived contacts.
 *
 * Expected values (contact convention of dyn.h: normal from a to b, depth >
 * 0 penetrating, p midway between the surface points):
 *   - ellipsoid of semi-axes (0.3, 0.2, 0.1) on the floor z >= 0 at height
 *     0.09: one contact of depth 0.1 - 0.09 = 0.01 (the vertical semi-axis)
 *     below its centre at z = -0.005; turned 90 deg about x (the 0.2 axis
 *     vertical) at 0.18: depth 0.02; turned by t about x: its lowest point
 *     is sqrt((0.2 sin t)^2 + (0.1 cos t)^2) below the centre;
 *   - a sphere of radius 0.05 above the ellipsoid's pole at z = 0.14: depth
 *     0.01 along z (GJK on separated cores), beside it along x at 0.34:
 *     depth 0.01 along x, at 0.2 above: none; inside near the pole (0.09:
 *     EPA): depth 0.06 to 1e-3;
 *   - a cylinder (r 0.1, half length 0.2) standing on its cap at 0.195:
 *     four rim points at radius 0.1, depth 0.005; on its side (axis along
 *     y) at 0.096: two points at y = +-0.2, depth 0.004; tilted by t about
 *     x: one point, depth h cos t + r sin t - z;
 *   - a box (half 0.05) on the cylinder's top cap, 0.003 into it: depth
 *     0.003 along +z (EPA on a flat face of a curved core);
 *   - bounding boxes: an ellipsoid turned 90 deg about z swaps its x and y
 *     extents; a cylinder turned 90 deg about x spans (r, h, r);
 *   - inertias: ellipsoid m/5 (b^2 + c^2, ...), cylinder m (3 r^2 + 4 h^2)/12
 *     and m r^2 / 2; a zero semi-axis or radius refused by the model check.
 */
#include "dyn.h"
#include "dyn_model.h"
#include "tst_body.h"
#include "tst_util.h"

#include <math.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static dyn_v3 v3(double x, double y, double z) { return dyn_v3_make(x, y, z); }

static tst_body mk_body(dyn_shape_kind kind, dyn_v3 r, dyn_quat q) {
  tst_body b;
  memset(&b, 0, sizeof b);
  b.mass = b.inv_mass = 1.0;
  b.I_b = b.inv_I_b = dyn_m3_identity();
  b.shape.kind = kind;
  b.r = r;
  b.q = q;
  return b;
}

static tst_body mk_ellipsoid(dyn_v3 semi, dyn_v3 c, dyn_quat q) {
  tst_body b = mk_body(DYN_SHAPE_ELLIPSOID, c, q);
  b.shape.half = semi;
  return b;
}

static tst_body mk_cylinder(double r, double h, dyn_v3 c, dyn_quat q) {
  tst_body b = mk_body(DYN_SHAPE_CYLINDER, c, q);
  b.shape.radius = r;
  b.shape.half_length = h;
  return b;
}

static tst_body mk_floor(void) {
  tst_body b = mk_body(DYN_SHAPE_PLANE, v3(0, 0, 0), dyn_quat_identity());
  b.mass = b.inv_mass = 0.0;
  b.inv_I_b = dyn_m3_zero();
  b.is_static = 1;
  b.shape.normal = v3(0, 0, 1);
  return b;
}

static int pair(tst_body a, tst_body b, double margin, dyn_contact *out) {
  tst_body v[2] = { a, b };
  return tst_collide_pair(v, 0, 1, margin, out);
}

static void test_ellipsoid_plane(void) {
  dyn_contact c[DYN_MAX_MANIFOLD];
  dyn_v3 semi = v3(0.3, 0.2, 0.1);
  int k = pair(mk_floor(), mk_ellipsoid(semi, v3(1, 2, 0.09), dyn_quat_identity()), 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.01, 1e-15, 0);
  TST_CLOSE(c[0].normal.z, 1.0, 0, 0);
  TST_CLOSE(c[0].p.x, 1.0, 1e-15, 0);
  TST_CLOSE(c[0].p.y, 2.0, 1e-15, 0);
  TST_CLOSE(c[0].p.z, -0.005, 1e-15, 0);
  /* the 0.2 semi-axis vertical */
  dyn_quat qx = dyn_quat_axis_angle(v3(1, 0, 0), PI / 2);
  k = pair(mk_floor(), mk_ellipsoid(semi, v3(0, 0, 0.18), qx), 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.02, 1e-14, 0);
  /* turned by t: the support of -z is sqrt((b sin t)^2 + (c cos t)^2) down */
  double t = 0.7, low = hypot(0.2 * sin(t), 0.1 * cos(t));
  k = pair(mk_floor(),
           mk_ellipsoid(semi, v3(0, 0, low - 0.003), dyn_quat_axis_angle(v3(1, 0, 0), t)), 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.003, 1e-14, 0);
  /* lifted 1 mm clear: none, or one at depth -0.001 within a margin of 2 mm */
  CU_ASSERT_EQUAL(
      pair(mk_floor(), mk_ellipsoid(semi, v3(0, 0, 0.101), dyn_quat_identity()), 0.0, c), 0);
  k = pair(mk_floor(), mk_ellipsoid(semi, v3(0, 0, 0.101), dyn_quat_identity()), 0.002, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, -0.001, 1e-15, 0);
}

static void test_ellipsoid_sphere(void) {
  dyn_contact c[DYN_MAX_MANIFOLD];
  tst_body E = mk_ellipsoid(v3(0.3, 0.2, 0.1), v3(0, 0, 0), dyn_quat_identity());
  tst_body S = mk_body(DYN_SHAPE_SPHERE, v3(0, 0, 0.14), dyn_quat_identity());
  S.shape.radius = 0.05;
  int k = pair(E, S, 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.01, 1e-9, 0);
  TST_CLOSE(c[0].normal.z, 1.0, 1e-9, 0);
  S.r = v3(0.34, 0, 0);
  k = pair(E, S, 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.01, 1e-9, 0);
  TST_CLOSE(c[0].normal.x, 1.0, 1e-9, 0);
  S.r = v3(0, 0, 0.2);
  CU_ASSERT_EQUAL(pair(E, S, 0.0, c), 0);
  S.r = v3(0, 0, 0.09); /* the sphere's centre inside: EPA on a curved core */
  k = pair(E, S, 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.06, 1e-3, 0);
  TST_CLOSE(c[0].normal.z, 1.0, 1e-2, 0);
}

static void test_cylinder_plane(void) {
  dyn_contact c[DYN_MAX_MANIFOLD];
  /* on its cap */
  int k = pair(mk_floor(), mk_cylinder(0.1, 0.2, v3(1, 1, 0.195), dyn_quat_identity()), 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 4);
  for (int i = 0; i < k; i++) {
    TST_CLOSE(c[i].depth, 0.005, 1e-15, 0);
    TST_CLOSE(c[i].normal.z, 1.0, 0, 0);
    TST_CLOSE(hypot(c[i].p.x - 1, c[i].p.y - 1), 0.1, 1e-15, 0);
    TST_CLOSE(c[i].p.z, -0.0025, 1e-15, 0);
  }
  /* upside down: the other cap, the same four points */
  k = pair(mk_floor(), mk_cylinder(0.1, 0.2, v3(0, 0, 0.195), dyn_quat_axis_angle(v3(1, 0, 0), PI)),
           0.0, c);
  CU_ASSERT_EQUAL(k, 4);
  /* on its side, the axis along y: the two ends of the lowest line */
  k = pair(mk_floor(),
           mk_cylinder(0.1, 0.2, v3(0, 0, 0.096), dyn_quat_axis_angle(v3(1, 0, 0), PI / 2)), 0.0,
           c);
  CU_ASSERT_EQUAL_FATAL(k, 2);
  double ys = 0.0;
  for (int i = 0; i < k; i++) {
    TST_CLOSE(c[i].depth, 0.004, 1e-14, 0);
    TST_CLOSE(fabs(c[i].p.y), 0.2, 1e-14, 0);
    TST_CLOSE(c[i].p.x, 0.0, 1e-14, 0);
    ys += c[i].p.y;
  }
  TST_CLOSE(ys, 0.0, 1e-14, 0);
  /* tilted by t about x: on one rim point, h cos t + r sin t below the centre */
  double t = 0.3, low = 0.2 * cos(t) + 0.1 * sin(t);
  k = pair(mk_floor(),
           mk_cylinder(0.1, 0.2, v3(0, 0, low - 0.002), dyn_quat_axis_angle(v3(1, 0, 0), t)), 0.0,
           c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.002, 1e-14, 0);
}

static void test_cylinder_box(void) {
  dyn_contact c[DYN_MAX_MANIFOLD];
  tst_body C = mk_cylinder(0.1, 0.2, v3(0, 0, 0), dyn_quat_identity());
  tst_body B = mk_body(DYN_SHAPE_BOX, v3(0.01, -0.02, 0.2 + 0.05 - 0.003), dyn_quat_identity());
  B.shape.half = v3(0.05, 0.05, 0.05);
  int k = pair(C, B, 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.003, 1e-9, 0);
  TST_CLOSE(c[0].normal.z, 1.0, 1e-9, 0);
  /* beside it, 2 mm clear of the side: none; 2 mm into it: depth 0.002 along x */
  B.r = v3(0.1 + 0.05 + 0.002, 0, 0);
  CU_ASSERT_EQUAL(pair(C, B, 0.0, c), 0);
  B.r = v3(0.1 + 0.05 - 0.002, 0, 0);
  k = pair(C, B, 0.0, c);
  CU_ASSERT_EQUAL_FATAL(k, 1);
  TST_CLOSE(c[0].depth, 0.002, 1e-6, 0);
  TST_CLOSE(c[0].normal.x, 1.0, 1e-6, 0);
}

static void test_bounds_and_mass(void) {
  dyn_v3 lo, hi;
  tst_body E =
      mk_ellipsoid(v3(0.3, 0.2, 0.1), v3(1, 2, 3), dyn_quat_axis_angle(v3(0, 0, 1), PI / 2));
  tst_body_aabb(&E, 0.0, &lo, &hi);
  TST_CLOSE(hi.x - 1, 0.2, 1e-15, 0);
  TST_CLOSE(hi.y - 2, 0.3, 1e-15, 0);
  TST_CLOSE(hi.z - 3, 0.1, 1e-15, 0);
  tst_body C = mk_cylinder(0.1, 0.2, v3(0, 0, 0), dyn_quat_axis_angle(v3(1, 0, 0), PI / 2));
  tst_body_aabb(&C, 0.0, &lo, &hi);
  TST_CLOSE(hi.x, 0.1, 1e-15, 0);
  TST_CLOSE(hi.y, 0.2, 1e-15, 0);
  TST_CLOSE(hi.z, 0.1, 1e-15, 0);
  dyn_m3 I = dyn_inertia_ellipsoid(5.0, v3(0.3, 0.2, 0.1));
  TST_CLOSE(I.m[0], 5.0 * (0.04 + 0.01) / 5.0, 1e-15, 0);
  TST_CLOSE(I.m[4], 5.0 * (0.09 + 0.01) / 5.0, 1e-15, 0);
  TST_CLOSE(I.m[8], 5.0 * (0.09 + 0.04) / 5.0, 1e-15, 0);
  I = dyn_inertia_cylinder(2.0, 0.1, 0.2);
  TST_CLOSE(I.m[0], 2.0 * (3 * 0.01 + 0.16) / 12.0, 1e-15, 0);
  TST_CLOSE(I.m[8], 2.0 * 0.01 / 2.0, 1e-15, 0);
}

static void test_model_check(void) {
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  dyn_body_def b = dyn_body_def_default();
  char msg[256] = "";
  int ib = dyn_model_add_body(m, &b, msg, sizeof msg);
  CU_ASSERT_FATAL(ib >= 0);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = ib;
  s.geom.kind = DYN_SHAPE_ELLIPSOID;
  s.geom.half = v3(0.3, 0.0, 0.1);
  CU_ASSERT(dyn_model_add_shape(m, &s, msg, sizeof msg) < 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "ellipsoid semi-axes"));
  s.geom.kind = DYN_SHAPE_CYLINDER;
  s.geom.radius = 0.1;
  s.geom.half_length = 0.0;
  msg[0] = '\0';
  CU_ASSERT(dyn_model_add_shape(m, &s, msg, sizeof msg) < 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cylinder radius"));
  s.geom.half_length = 0.2;
  CU_ASSERT(dyn_model_add_shape(m, &s, msg, sizeof msg) >= 0);
  dyn_model_free(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("ellipsoid and cylinder by support functions", NULL, NULL);
  CU_add_test(s, "ellipsoid on a plane: depth from the semi-axis", test_ellipsoid_plane);
  CU_add_test(s, "ellipsoid against a sphere (GJK, EPA)", test_ellipsoid_sphere);
  CU_add_test(s, "cylinder on its cap, its side, a rim", test_cylinder_plane);
  CU_add_test(s, "a box on a cylinder's cap and side", test_cylinder_box);
  CU_add_test(s, "bounding boxes and inertias", test_bounds_and_mass);
  CU_add_test(s, "the model check's sizes", test_model_check);
  return tst_run();
}
