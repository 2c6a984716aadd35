/*
 * scenes_free.c -- the free-body scenes of the table of scenes.c: ball,
 * incline, stack, pyramid, pile, dominoes, cradle, racket.  Each fills a
 * dyn_model from its keys; scenes.c's header gives their definitions, with
 * the peers' floating-point expressions kept for incline, stack, pyramid
 * and pile (bit-identical starts with ODE and Bullet).
 */
#include "scenes_internal.h"

#include <math.h>
#include <stdint.h>

static const dyn_v3 ZERO = { 0.0, 0.0, 0.0 };

/* keys: height, radius, mass, restitution, mu */
dyn_err dyn_scene_build_ball(scene_ctx *c) {
  double height = sc_param(c, "height"), r = sc_param(c, "radius"), mass = sc_param(c, "mass");
  if (height < r) {
    scmsg(c, "height=%g must be >= radius=%g (the ball would start in the floor)", height, r);
    return DYN_ERR_INPUT;
  }
  /* restitution only above 2 |g| dt: a ball at rest gains |g| dt a step */
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), sc_param(c, "restitution"), 2.0));
  dyn_shape sh = { .kind = DYN_SHAPE_SPHERE, .radius = r };
  SC_TRY(sc_dynamic(c, "ball", mass, dyn_inertia_sphere(mass, r), sh, dyn_v3_make(0.0, 0.0, height),
                    dyn_quat_identity(), ZERO, ZERO, NULL));
  return sc_plane(c, "floor", 0, 0, 1, 0);
}

/* keys: angle_deg, mu, density */
dyn_err dyn_scene_build_incline(scene_ctx *c) {
  double angle = sc_param(c, "angle_deg");
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  SC_TRY(sc_duration(c, 1.0)); /* the peers run it 1 s */
  double a = angle * SC_PI / 180.0;
  const double s = 0.2, gap = 1e-4;
  double n[3] = { -sin(a), 0, cos(a) };
  double h = s / 2 + gap;
  SC_TRY(sc_cube(c, "cube", s, sc_param(c, "density"), dyn_v3_make(n[0] * h, n[1] * h, n[2] * h),
                 dyn_quat_make(cos(-a / 2), 0, sin(-a / 2), 0), NULL));
  return sc_plane(c, "slope", n[0], n[1], n[2], 0);
}

/* A cube of layer j at pos: it rests (j + 1) gz lower, the gaps under it,
 * from the floor up, closed (cubes face to face, no penetration). */
static dyn_err layer_cube(scene_ctx *c, double s, dyn_v3 pos, int j) {
  dyn_v3 rest = pos;
  rest.z -= (double)(j + 1) * SC_LAYER_GZ;
  return sc_cube(c, NULL, s, sc_param(c, "density"), pos, dyn_quat_identity(), &rest);
}

/* keys: n, mu, density */
dyn_err dyn_scene_build_stack(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  const double s = 0.2, gz = SC_LAYER_GZ;
  for (int k = 0; k < N; ++k)
    SC_TRY(layer_cube(c, s, dyn_v3_make(0, 0, s / 2 + gz + k * (s + gz)), k));
  return sc_plane(c, "floor", 0, 0, 1, 0);
}

/* keys: layers, mu, density */
dyn_err dyn_scene_build_pyramid(scene_ctx *c) {
  int L = (int)sc_param(c, "layers");
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  const double s = 0.2, gx = 0.01, gz = SC_LAYER_GZ;
  for (int j = 0; j < L; ++j)
    for (int i = 0; i < L - j; ++i)
      SC_TRY(layer_cube(
          c, s, dyn_v3_make((i - (L - j - 1) / 2.0) * (s + gx), 0.0, s / 2 + gz + j * (s + gz)),
          j));
  return sc_plane(c, "floor", 0, 0, 1, 0);
}

/* keys: n, seed, mu, density */
dyn_err dyn_scene_build_pile(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  uint64_t rng = (uint64_t)sc_param(c, "seed");
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  const double r = 0.05, g = 0.01, p = 2 * r + g;
  int k = (int)ceil(sqrt(N / 8.0));
  double W = 2 * r * k;
  int m = (int)floor((W - 2 * r - 2 * g) / p + 1e-9) + 1;
  if (m < 1) m = 1;
  double x0 = -(m - 1) * p / 2.0;
  for (int i = 0; i < N; ++i) {
    int layer = i / (m * m), rem = i % (m * m), ix = rem % m, iy = rem / m;
    double x = x0 + ix * p + sc_uniform(&rng, -g / 4, g / 4);
    double y = x0 + iy * p + sc_uniform(&rng, -g / 4, g / 4);
    double z = r + g + layer * p;
    SC_TRY(sc_sphere(c, r, sc_param(c, "density"), dyn_v3_make(x, y, z), ZERO));
  }
  SC_TRY(sc_plane(c, "floor", 0, 0, 1, 0));
  SC_TRY(sc_plane(c, "wall_x-", 1, 0, 0, -W / 2));
  SC_TRY(sc_plane(c, "wall_x+", -1, 0, 0, -W / 2));
  SC_TRY(sc_plane(c, "wall_y-", 0, 1, 0, -W / 2));
  return sc_plane(c, "wall_y+", 0, -1, 0, -W / 2);
}

/* keys: n, spacing, push, mu, density */
dyn_err dyn_scene_build_dominoes(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  double spacing = sc_param(c, "spacing");
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  const dyn_v3 side = dyn_v3_make(0.02, 0.1, 0.2);
  for (int i = 0; i < N; i++) {
    /* the first plate turns about its bottom +x edge: w = (0, push, 0),
     * v = w x (centre - edge) = push (h/2, 0, t/2) */
    double push = i == 0 ? sc_param(c, "push") : 0.0;
    SC_TRY(sc_plate(
        c, NULL, side, sc_param(c, "density"), dyn_v3_make(i * spacing, 0.0, side.z / 2 + 0.001),
        dyn_v3_make(push * side.z / 2, 0.0, push * side.x / 2), dyn_v3_make(0.0, push, 0.0)));
  }
  return sc_plane(c, "floor", 0, 0, 1, 0);
}

/* keys: n, speed, gap, restitution, density */
dyn_err dyn_scene_build_cradle(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  const double r = 0.05;
  SC_TRY(sc_physics(c, 0.0, 0.0, sc_param(c, "restitution"), 0.0));
  for (int i = 0; i < N; i++)
    SC_TRY(sc_sphere(c, r, sc_param(c, "density"),
                     dyn_v3_make(i * (2 * r + sc_param(c, "gap")), 0.0, 0.0),
                     dyn_v3_make(i == 0 ? sc_param(c, "speed") : 0.0, 0.0, 0.0)));
  return DYN_OK;
}

/* keys: omega, perturb, density */
dyn_err dyn_scene_build_racket(scene_ctx *c) {
  double omega = sc_param(c, "omega");
  SC_TRY(sc_physics(c, 0.0, 0.0, 0.0, 0.0));
  return sc_plate(c, "plate", dyn_v3_make(0.4, 0.2, 0.04), sc_param(c, "density"),
                  dyn_v3_make(0.0, 0.0, 1.0), ZERO,
                  dyn_v3_make(omega * sc_param(c, "perturb"), omega, 0.0));
}
