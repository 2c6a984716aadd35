/*
 * scenes_joint.c -- the articulated scenes of the table of scenes.c:
 * pendulum, double_pendulum, chain, door, wheel, slider, car, slider_crank,
 * ragdoll.  Each fills a dyn_model (bodies, shapes, joints of dyn_joint.h)
 * from its keys; scenes.c's header gives their definitions.  A joint to
 * the world is written with its axis negated (sc_joint, scenes_build.c),
 * so that a limit or motor reads the body's own angle about the named
 * axis.
 */
#include "scenes_internal.h"

#include <math.h>
#include <stdio.h>

static const dyn_v3 ZERO = { 0.0, 0.0, 0.0 };

/* keys: length, angle_deg, mass */
dyn_err dyn_scene_build_pendulum(scene_ctx *c) {
  double L = sc_param(c, "length"), a = sc_param(c, "angle_deg") * SC_DEG;
  double mass = sc_param(c, "mass");
  const double r = 0.01;
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  dyn_shape sh = { .kind = DYN_SHAPE_SPHERE, .radius = r };
  /* bob at angle a from the downward vertical, towards +x: R_y(-a) (0, 0, -L) */
  SC_TRY(sc_dynamic(c, "bob", mass, dyn_inertia_sphere(mass, r), sh,
                    dyn_v3_make(L * sin(a), 0.0, -L * cos(a)), dyn_quat_identity(), ZERO, ZERO,
                    NULL));
  sc_jspec js = sc_jdef(DYN_JOINT_HINGE, 0, -1, ZERO, dyn_v3_make(0.0, 1.0, 0.0));
  js.name = "pivot";
  return sc_joint(c, &js);
}

/* keys: length1, length2, mass1, mass2, angle1_deg, angle2_deg */
dyn_err dyn_scene_build_double_pendulum(scene_ctx *c) {
  double L1 = sc_param(c, "length1"), L2 = sc_param(c, "length2");
  double a1 = sc_param(c, "angle1_deg") * SC_DEG, a2 = sc_param(c, "angle2_deg") * SC_DEG;
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  /* two uniform rods (1 cm square section, as the chain's links), the
   * first from the pivot at the origin to E = L1 d1, the second from E on,
   * d_k = (sin a_k, 0, -cos a_k); body z along -d_k (q = R_y(-a_k)).  (Point
   * bobs on massless links, as in the pendulum, would make A = J M^-1 J^T
   * ill-conditioned by L^2 m / I = 2.5e4 at r = 0.01: pgs at 50 sweeps
   * then leaves the second hinge unconverged and the motion blows up.) */
  dyn_v3 d1 = dyn_v3_make(sin(a1), 0.0, -cos(a1)), d2 = dyn_v3_make(sin(a2), 0.0, -cos(a2));
  dyn_v3 y = dyn_v3_make(0.0, 1.0, 0.0);
  dyn_v3 E = dyn_v3_scale(d1, L1);
  double m1 = sc_param(c, "mass1"), m2 = sc_param(c, "mass2");
  SC_TRY(sc_noshape(c, "rod1", m1, dyn_inertia_box(m1, dyn_v3_make(0.005, 0.005, L1 / 2)),
                    dyn_v3_scale(d1, L1 / 2), sc_roty(-a1)));
  SC_TRY(sc_noshape(c, "rod2", m2, dyn_inertia_box(m2, dyn_v3_make(0.005, 0.005, L2 / 2)),
                    dyn_v3_add(E, dyn_v3_scale(d2, L2 / 2)), sc_roty(-a2)));
  sc_jspec j1 = sc_jdef(DYN_JOINT_HINGE, 0, -1, ZERO, y);
  j1.name = "pivot";
  SC_TRY(sc_joint(c, &j1));
  sc_jspec j2 = sc_jdef(DYN_JOINT_HINGE, 0, 1, E, y); /* rod 2 turns relative to rod 1 */
  j2.name = "elbow";
  return sc_joint(c, &j2);
}

/* keys: n, link, mass, angle_deg */
dyn_err dyn_scene_build_chain(scene_ctx *c) {
  int N = (int)sc_param(c, "n");
  double l = sc_param(c, "link"), m = sc_param(c, "mass"), a = sc_param(c, "angle_deg") * SC_DEG;
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  /* link k: a thin rod (box inertia, 1 cm square section) from the pivot
   * p_k = k l d to p_{k+1}, d = (sin a, 0, -cos a); its body z axis along
   * -d (q = R_y(-a)), so I_b = box(m, (0.005, 0.005, l/2)) */
  dyn_v3 d = dyn_v3_make(sin(a), 0.0, -cos(a)), y = dyn_v3_make(0.0, 1.0, 0.0);
  dyn_m3 I = dyn_inertia_box(m, dyn_v3_make(0.005, 0.005, l / 2));
  char name[32];
  for (int k = 0; k < N; k++) {
    snprintf(name, sizeof name, "link%d", k);
    SC_TRY(sc_noshape(c, name, m, I, dyn_v3_scale(d, (k + 0.5) * l), sc_roty(-a)));
  }
  for (int k = 0; k < N; k++) {
    sc_jspec js =
        sc_jdef(DYN_JOINT_HINGE, k == 0 ? 0 : k - 1, k == 0 ? -1 : k, dyn_v3_scale(d, k * l), y);
    snprintf(name, sizeof name, "hinge%d", k);
    js.name = name;
    SC_TRY(sc_joint(c, &js));
  }
  return DYN_OK;
}

/* keys: width, height, mass, push, limit_deg */
dyn_err dyn_scene_build_door(scene_ctx *c) {
  double W = sc_param(c, "width"), H = sc_param(c, "height"), push = sc_param(c, "push");
  const double t = 0.04;
  if (!(H > 0.0)) {
    scmsg(c, "height=%g must be > 0", H);
    return DYN_ERR_INPUT;
  }
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  /* the plate's edge x = 0 on the hinge axis z; turning at push rad/s:
   * v = w x (centre - axis) = (0, push W/2, 0) */
  dyn_v3 side = dyn_v3_make(W, t, H);
  double mass = sc_param(c, "mass");
  dyn_shape sh = { .kind = DYN_SHAPE_BOX, .half = dyn_v3_scale(side, 0.5) };
  SC_TRY(sc_dynamic(c, "door", mass, dyn_inertia_box(mass, sh.half), sh,
                    dyn_v3_make(W / 2, 0.0, H / 2), dyn_quat_identity(),
                    dyn_v3_make(0.0, push * W / 2, 0.0), dyn_v3_make(0.0, 0.0, push), NULL));
  sc_jspec js =
      sc_jdef(DYN_JOINT_HINGE, 0, -1, dyn_v3_make(0.0, 0.0, H / 2), dyn_v3_make(0.0, 0.0, 1.0));
  js.name = "hinge";
  js.lim_lo = 0.0;
  js.lim_hi = sc_param(c, "limit_deg") * SC_DEG;
  return sc_joint(c, &js);
}

/* keys: radius, mass, speed, torque */
dyn_err dyn_scene_build_wheel(scene_ctx *c) {
  double R = sc_param(c, "radius"), m = sc_param(c, "mass");
  const double t = 0.05;
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  /* a solid disc of thickness t, axis x: I_x = m R^2 / 2, I_y = I_z =
   * m (3 R^2 + t^2) / 12 */
  double Ia = m * R * R / 2, Ip = m * (3 * R * R + t * t) / 12;
  dyn_v3 ctr = dyn_v3_make(0.0, 0.0, 1.0);
  SC_TRY(sc_noshape(c, "wheel", m, dyn_m3_diag(Ia, Ip, Ip), ctr, dyn_quat_identity()));
  sc_jspec js = sc_jdef(DYN_JOINT_HINGE, 0, -1, ctr, dyn_v3_make(1.0, 0.0, 0.0));
  js.name = "axle";
  js.target_vel = sc_param(c, "speed");
  js.motor_force = sc_param(c, "torque");
  return sc_joint(c, &js);
}

/* keys: lo, hi, mass, angle_deg */
dyn_err dyn_scene_build_slider(scene_ctx *c) {
  double lo = sc_param(c, "lo"), hi = sc_param(c, "hi"), a = sc_param(c, "angle_deg") * SC_DEG;
  if (!(lo < hi)) {
    scmsg(c, "lo=%g must be < hi=%g", lo, hi);
    return DYN_ERR_INPUT;
  }
  if (lo > 0.0 || hi < 0.0) {
    scmsg(c, "lo=%g .. hi=%g must contain 0 (the start)", lo, hi);
    return DYN_ERR_INPUT;
  }
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  const double s = 0.1;
  double mass = sc_param(c, "mass"), I = mass * (s * s + s * s) / 12.0;
  dyn_shape sh = { .kind = DYN_SHAPE_BOX, .half = dyn_v3_make(s / 2, s / 2, s / 2) };
  dyn_v3 ctr = dyn_v3_make(0.0, 0.0, 1.0);
  SC_TRY(sc_dynamic(c, "cube", mass, dyn_m3_diag(I, I, I), sh, ctr, dyn_quat_identity(), ZERO, ZERO,
                    NULL));
  /* axis tilted by a from the vertical towards +x; the coordinate is the
   * cube's displacement along it */
  sc_jspec js = sc_jdef(DYN_JOINT_SLIDER, 0, -1, ctr, dyn_v3_make(sin(a), 0.0, cos(a)));
  js.name = "rail";
  js.lim_lo = lo;
  js.lim_hi = hi;
  return sc_joint(c, &js);
}

/* keys: speed, torque, mu, mass */
dyn_err dyn_scene_build_car(scene_ctx *c) {
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  /* chassis 2 x 1 x 0.3 m, its centre 0.4 m up; wheels: spheres r = 0.3,
   * 10 kg, centres at (+-0.8, +-0.65, r + 1 mm); hinge-2 at each wheel
   * centre: steering axis z (in the chassis), wheel axis y (in the wheel),
   * motor on the wheel's spin: target `speed` rad/s (the car moves at
   * speed * r along +x), |torque| <= `torque` N m */
  const double r = 0.3, mw = 10.0;
  double M = sc_param(c, "mass");
  dyn_v3 half = dyn_v3_make(1.0, 0.5, 0.15);
  dyn_shape sh = { .kind = DYN_SHAPE_BOX, .half = half };
  SC_TRY(sc_dynamic(c, "chassis", M, dyn_inertia_box(M, half), sh, dyn_v3_make(0.0, 0.0, 0.4),
                    dyn_quat_identity(), ZERO, ZERO, NULL));
  dyn_v3 pos[4] = { dyn_v3_make(0.8, 0.65, r + 0.001), dyn_v3_make(0.8, -0.65, r + 0.001),
                    dyn_v3_make(-0.8, 0.65, r + 0.001), dyn_v3_make(-0.8, -0.65, r + 0.001) };
  for (int k = 0; k < 4; k++)
    SC_TRY(sc_sphere(c, r, mw / (4.0 / 3.0 * SC_PI * r * r * r), pos[k], ZERO));
  for (int k = 0; k < 4; k++) {
    sc_jspec js = sc_jdef(DYN_JOINT_HINGE2, 0, 1 + k, pos[k], dyn_v3_make(0.0, 0.0, 1.0));
    js.axis2 = dyn_v3_make(0.0, 1.0, 0.0);
    js.target_vel = sc_param(c, "speed");
    js.motor_force = sc_param(c, "torque");
    SC_TRY(sc_joint(c, &js));
  }
  return sc_plane(c, "floor", 0, 0, 1, 0);
}

/* keys: crank, rod, speed, torque */
dyn_err dyn_scene_build_slider_crank(scene_ctx *c) {
  double rc = sc_param(c, "crank"), lr = sc_param(c, "rod");
  if (!(lr > rc)) {
    scmsg(c, "rod=%g must be longer than crank=%g", lr, rc);
    return DYN_ERR_INPUT;
  }
  SC_TRY(sc_physics(c, -9.81, 0.0, 0.0, 0.0));
  /* crank: rod of 1 kg from the pivot (origin, axis y) up to E = (0, 0, rc)
   * (crank angle 90 deg, away from the dead centres); connecting rod of
   * 1 kg from E to the piston centre P = (xp, 0, 0), xp = sqrt(lr^2 - rc^2);
   * piston: 2 kg cube of 0.1 m sliding on x.  The loop closes at P with a
   * ball joint (its y row repeats what the crank and rod hinges already
   * fix, so A would be singular: cfm 1e-8 on its rows, 10 nm per N s at
   * 1/120 s, keeps it regular) */
  double xp = sqrt(lr * lr - rc * rc), phi = atan2(rc, xp);
  dyn_v3 E = dyn_v3_make(0.0, 0.0, rc), P = dyn_v3_make(xp, 0.0, 0.0);
  dyn_v3 y = dyn_v3_make(0.0, 1.0, 0.0);
  /* body z along each rod: the crank's along +z (q = 1), the rod's along
   * P - E, R_y(pi/2 + phi) maps z to (cos phi, 0, -sin phi) */
  SC_TRY(sc_noshape(c, "crank", 1.0, dyn_inertia_box(1.0, dyn_v3_make(0.01, 0.01, rc / 2)),
                    dyn_v3_scale(E, 0.5), dyn_quat_identity()));
  SC_TRY(sc_noshape(c, "rod", 1.0, dyn_inertia_box(1.0, dyn_v3_make(0.01, 0.01, lr / 2)),
                    dyn_v3_scale(dyn_v3_add(E, P), 0.5), sc_roty(SC_PI / 2 + phi)));
  SC_TRY(sc_noshape(c, "piston", 2.0, dyn_inertia_box(2.0, dyn_v3_make(0.05, 0.05, 0.05)), P,
                    dyn_quat_identity()));
  sc_jspec crank = sc_jdef(DYN_JOINT_HINGE, 0, -1, ZERO, y);
  crank.name = "crank";
  crank.target_vel = sc_param(c, "speed");
  crank.motor_force = sc_param(c, "torque");
  SC_TRY(sc_joint(c, &crank));
  sc_jspec elbow = sc_jdef(DYN_JOINT_HINGE, 0, 1, E, y);
  elbow.name = "elbow";
  SC_TRY(sc_joint(c, &elbow));
  sc_jspec slide = sc_jdef(DYN_JOINT_SLIDER, 2, -1, P, dyn_v3_make(1.0, 0.0, 0.0));
  slide.name = "slide";
  SC_TRY(sc_joint(c, &slide));
  sc_jspec close = sc_jdef(DYN_JOINT_BALL, 1, 2, P, y);
  close.name = "wrist";
  close.soft_cfm = 1e-8;
  return sc_joint(c, &close);
}

/* The ragdoll's limbs: bodies 2, 3 upper arms, 4, 5 forearms, 6, 7 thighs,
 * 8, 9 shins (left then right), capsules along +-y (arms) and -z (legs). */
static dyn_err ragdoll_limbs(scene_ctx *c, double z0) {
  dyn_quat qy = dyn_quat_axis_angle(dyn_v3_make(1, 0, 0), -SC_PI / 2); /* body z -> world +y */
  dyn_quat qny = dyn_quat_axis_angle(dyn_v3_make(1, 0, 0), SC_PI / 2); /* body z -> world -y */
  static const struct {
    const char *name[2];
    double mass, rad, len, y, dz; /* centre (0, +-y, z0 + dz) */
    int arm;                      /* along +-y (else along -z) */
  } limb[4] = { { { "upper_arm_l", "upper_arm_r" }, 2.0, 0.05, 0.3, 0.27, 0.2, 1 },
                { { "forearm_l", "forearm_r" }, 1.5, 0.05, 0.3, 0.59, 0.2, 1 },
                { { "thigh_l", "thigh_r" }, 7.0, 0.06, 0.4, 0.1, -0.47, 0 },
                { { "shin_l", "shin_r" }, 4.0, 0.06, 0.4, 0.1, -0.89, 0 } };
  for (int k = 0; k < 4; k++)
    for (int s = 0; s < 2; s++) {
      double sg = s ? -1.0 : 1.0;
      dyn_quat q = limb[k].arm ? (s ? qny : qy) : dyn_quat_identity();
      SC_TRY(sc_capsule(c, limb[k].name[s], limb[k].mass, limb[k].rad, limb[k].len,
                        dyn_v3_make(0, sg * limb[k].y, z0 + limb[k].dz), q));
    }
  return DYN_OK;
}

/* keys: height, push, mu */
dyn_err dyn_scene_build_ragdoll(scene_ctx *c) {
  double z0 = sc_param(c, "height") + 1.09; /* the feet (shin bottoms) `height` above the floor */
  SC_TRY(sc_physics(c, -9.81, sc_param(c, "mu"), 0.0, 0.0));
  /* T-pose: torso box 0.3 x 0.2 x 0.5 m (30 kg) centred at z0; head sphere
   * r 0.1 (5 kg); upper arms and forearms capsules r 0.05, 0.3 m (2, 1.5 kg)
   * along +-y; thighs and shins capsules r 0.06, 0.4 m (7, 4 kg) along -z.
   * Ball joints at the neck, shoulders and hips; hinges at the elbows (axis z,
   * 0 .. 150 deg forward) and knees (axis y, 0 .. 150 deg backward); 2 cm
   * gaps between neighbours.  The torso starts turning at `push` rad/s
   * about y (the joints carry the rest along in the first step). */
  SC_TRY(sc_dynamic(c, "torso", 30.0, dyn_inertia_box(30.0, dyn_v3_make(0.15, 0.1, 0.25)),
                    (dyn_shape){ .kind = DYN_SHAPE_BOX, .half = dyn_v3_make(0.15, 0.1, 0.25) },
                    dyn_v3_make(0, 0, z0), dyn_quat_identity(), ZERO,
                    dyn_v3_make(0, sc_param(c, "push"), 0), NULL));
  SC_TRY(sc_dynamic(c, "head", 5.0, dyn_inertia_sphere(5.0, 0.1),
                    (dyn_shape){ .kind = DYN_SHAPE_SPHERE, .radius = 0.1 },
                    dyn_v3_make(0, 0, z0 + 0.37), dyn_quat_identity(), ZERO, ZERO, NULL));
  SC_TRY(ragdoll_limbs(c, z0));
  sc_jspec neck = sc_jdef(DYN_JOINT_BALL, 0, 1, dyn_v3_make(0, 0, z0 + 0.26), ZERO);
  neck.name = "neck";
  SC_TRY(sc_joint(c, &neck));
  static const char *const jn[4][2] = { { "shoulder_l", "shoulder_r" },
                                        { "elbow_l", "elbow_r" },
                                        { "hip_l", "hip_r" },
                                        { "knee_l", "knee_r" } };
  for (int s = 0; s < 2; s++) {
    double sg = s ? -1.0 : 1.0;
    sc_jspec sh = sc_jdef(DYN_JOINT_BALL, 0, 2 + s, dyn_v3_make(0, sg * 0.11, z0 + 0.2), ZERO);
    sh.name = jn[0][s];
    SC_TRY(sc_joint(c, &sh));
    /* elbow: forearm relative to upper arm about -z (left) / +z (right):
     * the forearm swings forward (+x) for a positive angle */
    sc_jspec el = sc_jdef(DYN_JOINT_HINGE, 2 + s, 4 + s, dyn_v3_make(0, sg * 0.43, z0 + 0.2),
                          dyn_v3_make(0, 0, -sg));
    el.name = jn[1][s];
    el.lim_lo = 0.0;
    el.lim_hi = 150.0 * SC_DEG;
    SC_TRY(sc_joint(c, &el));
    sc_jspec hip = sc_jdef(DYN_JOINT_BALL, 0, 6 + s, dyn_v3_make(0, sg * 0.1, z0 - 0.26), ZERO);
    hip.name = jn[2][s];
    SC_TRY(sc_joint(c, &hip));
    /* knee: shin relative to thigh about +y: the shin swings backward (-x) */
    sc_jspec kn = sc_jdef(DYN_JOINT_HINGE, 6 + s, 8 + s, dyn_v3_make(0, sg * 0.1, z0 - 0.68),
                          dyn_v3_make(0, 1, 0));
    kn.name = jn[3][s];
    kn.lim_lo = 0.0;
    kn.lim_hi = 150.0 * SC_DEG;
    SC_TRY(sc_joint(c, &kn));
  }
  return sc_plane(c, "floor", 0, 0, 1, 0);
}
