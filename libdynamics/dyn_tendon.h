/*
 * dyn_tendon.h -- private to libdynamics: spatial tendons and muscles
 * (tendon_spatial.c; docs/models.md, "The mapping"; MuJoCo 2.2's
 * mj_tendon, mju_wrap, mju_muscleGain and mju_muscleBias define what is
 * computed, written anew here).
 *
 * A spatial tendon's path (dyn_actuator_def.path) at the bodies' poses is a
 * list of points, each on a body: its sites, and where the straight line
 * between two sites would cut a wrap geom's circle (a sphere's great
 * circle, a cylinder's cross-section), the two tangent points on it.  Its
 * length L is the sum of the straight pieces and the arcs.  The moment
 * arms dL/dq are those of the straight pieces between points on different
 * bodies (an arc lies on one body, and a shortest path's tangent points
 * slide without changing L to first order): a tension f along the path is
 * the point forces f d_k at the far end of piece k and -f d_k at its near
 * end, d_k the piece's unit direction, exact as generalized forces J^T.
 */
#ifndef DYN_TENDON_H
#define DYN_TENDON_H

#include "dyn.h"
#include "dyn_model.h"

/* The most points a path's list holds: a site, or two tangent points and a
 * site, per element. */
#define DYN_TENDON_MAX_POINTS (3 * DYN_TENDON_MAX_PATH)

typedef struct dyn_path_point {
  dyn_v3 p; /* world */
  int body; /* model body, -1 the world */
} dyn_path_point;

/* What is wrong with actuator a's path against model m (a body out of
 * range, a path that does not start and end at a site, a wrap geom not
 * between two sites, a radius <= 0, a value not finite), or NULL. */
const char *dyn_tendon_path_fault(const dyn_model *m, const dyn_actuator_def *a);

/* Actuator a's path at the poses of bodies (model order; the world's
 * identity for -1) into pt[DYN_TENDON_MAX_POINTS] (*n points): its length. */
double dyn_tendon_path(const dyn_actuator_def *a, const dyn_body_state *bodies, dyn_path_point *pt,
                       int *n);
/* dL/dt of the path pt[n] at the bodies' velocities. */
double dyn_tendon_velocity(const dyn_path_point *pt, int n, const dyn_body_state *bodies);

/* MuJoCo's muscle force at actuator length L, velocity V and activation
 * act (dyn_muscle_prm): gain(L, V) act + bias(L), <= 0. */
double dyn_muscle_force(const dyn_muscle_prm *m, double L, double V, double act);

/* The force of actuator a (spatial tendon, npath > 0) at control ctrl,
 * activation act (a muscle's), actuator length L = gear x the tendon's
 * and velocity V. */
double dyn_tendon_actuator_force(const dyn_actuator_def *a, double ctrl, double act, double L,
                                 double V);

/* The loads of model m's spatial-tendon actuators at controls ctrl and
 * activations act (per actuator; NULL: all 0) and the state of bodies,
 * added as forces fx and torques tx (about the centres of mass) to the
 * tree bodies tree_of[body] (-1: none, the load dropped on a body that
 * does not move). */
void dyn_tendon_loads(const dyn_model *m, const dyn_body_state *bodies, const int *tree_of,
                      const double *ctrl, const double *act, dyn_v3 *fx, dyn_v3 *tx);

/* The muscles among model m's actuators; their activations act[actuator
 * count] advanced by one explicit Euler step of h under ctrl (NULL: 0),
 * as MuJoCo 2.2's mj_advance (dyn_muscle_prm). */
int dyn_tendon_muscle_count(const dyn_model *m);
void dyn_tendon_activate(const dyn_model *m, const double *ctrl, double *act, double h);

#endif /* DYN_TENDON_H */
