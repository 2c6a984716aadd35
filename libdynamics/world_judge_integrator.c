/*
 * world_judge_integrator.c -- the integrator judged (docs/dynamics.md,
 * "The integrator's energy rule"; issue 80): what the step's free motion
 * did to the energy, which world_judge.c's rules leave out (they measure the
 * impulses alone, and a step without rows is never judged there).
 *
 * The state bound: after the integrate stage, a body's position, velocity
 * or angular velocity that is not finite or above DYN_STATE_MAX (1e10,
 * MuJoCo's mjMAXVAL, whose mj_checkPos / mj_checkVel / mj_checkAcc warn
 * "unstable" and reset the data) fails the step under every policy
 * (DYN_ERR_NUMERIC; no answer at hand carries it).
 *
 * The integrator's energy rule: the step's change of the energy E (the
 * bodies' T + V, and in reduced coordinates the joints' armature and
 * springs, dyn_redmax_joint_energy), less the energy the applied impulses
 * add before their sources are taken off (s->imp_gain: world_judge.c's
 * one formula) and less the work of the free motion's sources (loads,
 * actuators: h f.(v0 + v1) / 2), is the integrator's gain G.  The run keeps
 * X = max(0, X + G) from its first step, as the energy rule keeps the
 * impulses' excess, against the run's drift scale S = max(|E0|, M |g| D) of
 * its first step (dyn_world_drift_scale).  X > S fails the step: counted
 * (failed, failed_integrator), and under the policies stop and keep the run
 * ends (DYN_ERR_NUMERIC, the message naming the integrator); under fallback
 * and best the step is applied (no candidate of theirs changes the free
 * motion) and counted.  Why the run's scale and not the step's: symplectic
 * Euler's energy error oscillates with an amplitude of O(h) of the energy
 * at every step and is bounded (docs/dynamics.md, "Integrators"), so only
 * a growth that accumulates is the integrator's failure; gravity, springs
 * and dampers are in E or lose energy, so an exact free motion has G <= 0
 * but for that bounded oscillation.  Not judged (X NaN): a world whose S
 * is 0, and a tree with slider-cranks or tendon springs, whose work is not
 * measured (dyn_reduced_free_work).
 *
 * Nothing here allocates.
 */
#include "dyn_assemble_internal.h"
#include "dyn_run.h"
#include "redmax_internal.h"
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdio.h>

/* The bodies' state bound (MuJoCo's mjMAXVAL). */
#define DYN_STATE_MAX 1e10

/* The joints' armature and spring energy of a tree (0 in maximal
 * coordinates). */
static double joint_energy(const dyn_world *w) {
  if (!w->red) return 0.0;
  double T, V;
  dyn_redmax_joint_energy(dyn_reduced_redmax(w), &T, &V);
  return T + V;
}

void dyn_integrator_begin(dyn_step *s) {
  dyn_world *w = s->w;
  s->t_start = w->t;
  s->int_excess = NAN;
  double E = dyn_world_energy(w, NULL, NULL);
  if (!w->int_scale_set) { /* the run's drift scale, at its first step */
    w->int_scale = dyn_world_drift_scale(w, E);
    w->int_scale_set = 1;
  }
  s->e_start = E + joint_energy(w);
}

/* The largest |r|, |v|, |w| component of the dynamic bodies (infinite for
 * one that is not finite), and which: "r", "v" or "w". */
static double state_size(const dyn_world *w, const char **what) {
  double most = 0.0;
  *what = "r";
  for (int i = 0; i < w->nb; i++) {
    if (w->bodies.c[i].is_static) continue;
    const dyn_body_state *b = &w->bodies.s[i];
    const double x[9] = { b->r.x, b->r.y, b->r.z, b->v.x, b->v.y, b->v.z, b->w.x, b->w.y, b->w.z };
    for (int k = 0; k < 9; k++) {
      double a = isfinite(x[k]) ? fabs(x[k]) : INFINITY;
      if (a > most) most = a, *what = k < 3 ? "r" : k < 6 ? "v" : "w";
    }
  }
  return most;
}

/* The work of the free motion's loads over the step (maximal coordinates:
 * the bodies' f_ext and t_ext at the mean of the step's velocities). */
static double maximal_free_work(const dyn_world *w, double h) {
  double W = 0.0;
  for (int i = 0; i < w->nb; i++) {
    if (w->bodies.c[i].is_static) continue;
    const dyn_body_state *b = &w->bodies.s[i];
    const double *s0 = w->saved.p + DYN_BODY_STATE * (size_t)i;
    W += dyn_v3_dot(b->f_ext, dyn_v3_make(s0[7] + b->v.x, s0[8] + b->v.y, s0[9] + b->v.z));
    W += dyn_v3_dot(b->t_ext, dyn_v3_make(s0[10] + b->w.x, s0[11] + b->w.y, s0[12] + b->w.z));
  }
  return 0.5 * h * W;
}

/* The integrator the step ran, for a message, into buf. */
static const char *integrator_text(const dyn_world *w, char *buf, size_t cap) {
  static const char *const integ[] = { "symplectic Euler", "explicit Euler", "Verlet" };
  static const char *const gyro[] = { "no gyroscopic term", "gyroscopic term explicit",
                                      "gyroscopic term implicit" };
  if (w->red) return "reduced coordinates, Coriolis terms explicit";
  snprintf(buf, cap, "%s, %s", integ[w->set.integrator], gyro[w->set.gyro]);
  return buf;
}

/* The state bound: DYN_ERR_NUMERIC naming the integrator and the value;
 * judged: the run's gain x was measured. */
static dyn_err check_state(dyn_step *s, int judged, double x) {
  dyn_world *w = s->w;
  const char *what;
  char buf[96], gain[64] = "its gain not measured";
  double most = state_size(w, &what);
  if (most <= DYN_STATE_MAX) return DYN_OK;
  if (judged) snprintf(gain, sizeof gain, "its gain %.3g J, scale %.3g J", x, w->int_scale);
  return dyn_world_fail(w, DYN_ERR_NUMERIC,
                        "step %ld: the integrator (%s) made the state unstable: a body's |%s| "
                        "%.3g > the state bound %.3g (MuJoCo's mjMAXVAL); %s; state restored",
                        s->k, integrator_text(w, buf, sizeof buf), what, most, DYN_STATE_MAX, gain);
}

/* The free motion's gain G this step into *gain; 0 when not judged. */
static int free_gain(dyn_step *s, double *gain) {
  dyn_world *w = s->w;
  double work = 0.0;
  *gain = NAN;
  if (!(w->int_scale > 0.0)) return 0;
  if (w->red ? !dyn_reduced_free_work(w, s->h, &work) : 0) return 0;
  if (!w->red) work = maximal_free_work(w, s->h);
  double E = s->kinetic_end + s->potential_end + joint_energy(w);
  *gain = E - s->e_start - s->imp_gain - work;
  return 1;
}

dyn_err dyn_integrator_judge(dyn_step *s) {
  dyn_world *w = s->w;
  dyn_world_energy(w, &s->kinetic_end, &s->potential_end);
  s->have_end = 1;
  double gain, x = NAN, before = w->int_excess;
  int judged = free_gain(s, &gain);
  if (judged) {
    x = w->int_excess + gain;
    x = isfinite(x) ? fmax(x, 0.0) : INFINITY;
    s->int_excess = w->int_excess = x;
  }
  dyn_err e = check_state(s, judged, x);
  if (e != DYN_OK || !judged || !(x > w->int_scale)) {
    if (e != DYN_OK) w->int_excess = before; /* the step is not applied */
    return e;
  }
  s->int_failed = 1;
  if (w->set.on_failure != DYN_ON_FAILURE_STOP && w->set.on_failure != DYN_ON_FAILURE_KEEP)
    return DYN_OK;        /* applied and counted: no candidate changes the free motion */
  w->int_excess = before; /* the step is not applied */
  char buf[96];
  return dyn_world_fail(w, DYN_ERR_NUMERIC,
                        "step %ld: the integrator (%s) gained %.3g J over the run beyond its "
                        "sources and the impulses, more than the run's scale %.3g J (the "
                        "integrator's energy rule); step not applied (failure policy %s)",
                        s->k, integrator_text(w, buf, sizeof buf), x, w->int_scale,
                        w->set.on_failure == DYN_ON_FAILURE_STOP ? "stop" : "keep");
}
