/*
 * world.c -- dyn_world (dyn_world.h): the world's settings, its bodies and
 * joints, and what can be asked of it between steps.  The step itself is
 * world_step.c (a pipeline of named stages); the files behind it are
 * listed in world_internal.h.  docs/dynamics.md, "The world step".
 */
#define _POSIX_C_SOURCE 200809L

#include "world_data.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dyn_err dyn_world_fail(dyn_world *w, dyn_err e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dyn_vmsgf(w->msg, sizeof w->msg, fmt, ap);
  va_end(ap);
  return e;
}

static int v3_finite(dyn_v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

const char *dyn_failure_policy_str(dyn_failure_policy p) {
  switch (p) {
  case DYN_ON_FAILURE_FALLBACK: return "fallback";
  case DYN_ON_FAILURE_BEST: return "best";
  case DYN_ON_FAILURE_KEEP: return "keep";
  case DYN_ON_FAILURE_STOP: return "stop";
  }
  return "?";
}

const char *dyn_applied_str(dyn_applied a) {
  switch (a) {
  case DYN_APPLIED_NONE: return "none";
  case DYN_APPLIED_SOLVER: return "solver";
  case DYN_APPLIED_FALLBACK: return "fallback";
  case DYN_APPLIED_WARM: return "warm";
  case DYN_APPLIED_ZERO: return "zero";
  }
  return "?";
}

/* ---- settings ------------------------------------------------------------------ */

dyn_world_settings dyn_world_settings_default(void) {
  dyn_world_settings s;
  memset(&s, 0, sizeof s);
  s.dt = 1.0 / 120.0;
  s.gravity = dyn_v3_make(0.0, 0.0, -9.81);
  s.integrator = DYN_INT_SYMPLECTIC_EULER;
  s.gyro = DYN_GYRO_IMPLICIT;
  s.orient = DYN_ORIENT_EXP;
  s.contact = dyn_contact_params_default();
  s.contact.friction = DYN_FRICTION_BOX;
  s.contact.mu = 0.5;
  /* The stacking defaults (docs/dynamics.md, "Stacking defaults"): a 2 mm
   * margin, impulses carried whole, pgs under-relaxed to 0.8 and 0.5 mm of
   * penetration left to the velocity constraints.  Together they keep the
   * 30-layer pyramid standing at 50 sweeps; each alone does not. */
  s.contact.slop = 0.0005;
  s.margin = 0.002;
  snprintf(s.solver, sizeof s.solver, "%s", "pgs");
  s.opt = slv_options_default();
  s.opt.max_iter = 50; /* the peers' I = 50 sweeps */
  s.opt.omega = 0.8;
  s.warm_start = 1;
  s.warm_factor = 1.0;
  s.storage = DYN_STORAGE_AUTO;
  s.dense_max_rows = 256;
  s.cone_law = SLV_CONE_COULOMB;
  s.contact_order = DYN_ORDER_BROADPHASE;
  s.on_failure = DYN_ON_FAILURE_FALLBACK;
  s.fallback_solver[0] = '\0';
  s.fallback_max_iter = 200;
  /* Two corrections keep the 50-layer pyramid standing at 50 sweeps; a
   * shallower stack than 3/4 of the sweeps is left alone (docs/dynamics.md,
   * "Coarse correction", "The gate"). */
  s.coarse_corrections = 2;
  s.coordinates = DYN_COORDINATES_MAXIMAL;
  return s;
}

const char *dyn_world_default_solver(dyn_coordinates c, dyn_friction f) {
  if (f == DYN_FRICTION_CONE) return "nsgs";
  /* the pyramid LCP has rows with A_ii = 0 (the auxiliary lambda): of the
   * registered solvers only lemke takes it (pgs and dantzig refuse it) */
  if (f == DYN_FRICTION_PYRAMID) return "lemke";
  /* reduced coordinates: auto, which picks dantzig for these dense
   * symmetric islands (the same answers) and, where dantzig's friction
   * passes do not settle (humanoid100: 34 of 358 contact steps), its exact
   * fallbacks instead of a failed step (docs/models.md, "The default
   * solver in reduced coordinates"; experiments/records/2026-11-28-check80.md) */
  int plain = f == DYN_FRICTION_NONE || f == DYN_FRICTION_BOX;
  return c == DYN_COORDINATES_REDUCED && plain ? "auto" : "pgs";
}

/* The failure policy and its fallback. */
static dyn_err validate_failure_policy(const dyn_world_settings *s, char *msg, size_t cap) {
  if (s->coordinates != DYN_COORDINATES_MAXIMAL && s->coordinates != DYN_COORDINATES_REDUCED) {
    dyn_msgf(msg, cap, "coordinates=%d is not a dyn_coordinates", (int)s->coordinates);
    return DYN_ERR_INPUT;
  }
  if (s->on_failure < DYN_ON_FAILURE_FALLBACK || s->on_failure > DYN_ON_FAILURE_STOP) {
    dyn_msgf(msg, cap, "on_failure=%d is not a dyn_failure_policy", (int)s->on_failure);
    return DYN_ERR_INPUT;
  }
  if (!memchr(s->fallback_solver, '\0', sizeof s->fallback_solver) ||
      (s->fallback_solver[0] && !slv_solver_find(s->fallback_solver))) {
    dyn_msgf(msg, cap, "unknown fallback solver '%.*s' (see 'lcplab solvers')",
             (int)sizeof s->fallback_solver, s->fallback_solver);
    return DYN_ERR_INPUT;
  }
  if (s->fallback_max_iter < 1) {
    dyn_msgf(msg, cap, "fallback_max_iter=%d must be >= 1", s->fallback_max_iter);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

/* The solver, its options and the rest of the settings. */
static dyn_err validate_solver(const dyn_world_settings *s, char *msg, size_t cap) {
  char m2[200];
  if (!memchr(s->solver, '\0', sizeof s->solver) || !slv_solver_find(s->solver)) {
    dyn_msgf(msg, cap, "unknown solver '%.*s' (see 'lcplab solvers')", (int)sizeof s->solver,
             s->solver);
    return DYN_ERR_INPUT;
  }
  m2[0] = '\0';
  if (slv_options_validate(&s->opt, m2, sizeof m2) != SLV_OK) {
    dyn_msgf(msg, cap, "solver options: %s", m2[0] ? m2 : "rejected");
    return DYN_ERR_INPUT;
  }
  if (!(s->warm_factor >= 0.0 && s->warm_factor <= 1.0)) {
    dyn_msgf(msg, cap, "warm_factor=%g must be in [0, 1]", s->warm_factor);
    return DYN_ERR_INPUT;
  }
  if (s->storage < DYN_STORAGE_AUTO || s->storage > DYN_STORAGE_FACTORED) {
    dyn_msgf(msg, cap, "storage=%d is not a dyn_storage", (int)s->storage);
    return DYN_ERR_INPUT;
  }
  if (s->dense_max_rows < 0) {
    dyn_msgf(msg, cap, "dense_max_rows=%d must be >= 0", s->dense_max_rows);
    return DYN_ERR_INPUT;
  }
  if (s->cone_law != SLV_CONE_COULOMB && s->cone_law != SLV_CONE_ASSOCIATED) {
    dyn_msgf(msg, cap, "cone_law=%d is not a slv_cone_law", (int)s->cone_law);
    return DYN_ERR_INPUT;
  }
  if (s->contact_order != DYN_ORDER_BROADPHASE && s->contact_order != DYN_ORDER_TOP_DOWN) {
    dyn_msgf(msg, cap, "contact_order=%d is not a dyn_contact_order", (int)s->contact_order);
    return DYN_ERR_INPUT;
  }
  if (s->coarse_corrections < 0 || s->coarse_corrections > DYN_COARSE_MAX) {
    dyn_msgf(msg, cap, "coarse_corrections=%d must be in [0, %d]", s->coarse_corrections,
             DYN_COARSE_MAX);
    return DYN_ERR_INPUT;
  }
  if (s->islands < DYN_ISLANDS_AUTO || s->islands > DYN_ISLANDS_ON) {
    dyn_msgf(msg, cap, "islands=%d is not a dyn_islands_mode", (int)s->islands);
    return DYN_ERR_INPUT;
  }
  return validate_failure_policy(s, msg, cap);
}

/* Reduced coordinates: the tree's step is semi-implicit Euler (u+ from the
 * step's system, then q+ = q + h u+: the symplectic integrator), balls by
 * the exponential map, the Coriolis and gyroscopic terms of f_r explicit
 * (world_reduced.c).  An integrator or orientation update other than those,
 * or a gyro given by name other than explicit, is refused by name: it would
 * be accepted and not run (docs/dynamics.md, "Integrators"). */
static dyn_err validate_reduced(const dyn_world_settings *s, char *msg, size_t cap) {
  static const char *const integ[] = { "symplectic", "explicit", "verlet" };
  static const char *const gyro[] = { "none", "explicit", "implicit" };
  static const char *const why = "the tree's step is semi-implicit Euler (symplectic), balls by "
                                 "the exponential map, the Coriolis and gyroscopic terms explicit";
  if (s->coordinates != DYN_COORDINATES_REDUCED) return DYN_OK;
  if (s->integrator != DYN_INT_SYMPLECTIC_EULER) {
    dyn_msgf(msg, cap, "integrator %s is not available in reduced coordinates (%s)",
             integ[s->integrator], why);
    return DYN_ERR_INPUT;
  }
  if (s->orient != DYN_ORIENT_EXP) {
    dyn_msgf(msg, cap, "orient linear is not available in reduced coordinates (%s)", why);
    return DYN_ERR_INPUT;
  }
  if ((s->given & DYN_GIVEN_GYRO) && s->gyro != DYN_GYRO_EXPLICIT) {
    dyn_msgf(msg, cap, "gyro %s is not available in reduced coordinates (%s: gyro explicit)",
             gyro[s->gyro], why);
    return DYN_ERR_INPUT;
  }
  return DYN_OK;
}

dyn_err dyn_world_settings_validate(const dyn_world_settings *s, char *msg, size_t cap) {
  if (!s) {
    dyn_msgf(msg, cap, "world settings: NULL");
    return DYN_ERR_INPUT;
  }
  if (!(s->dt > 0.0) || !isfinite(s->dt)) {
    dyn_msgf(msg, cap, "dt=%g must be finite and > 0", s->dt);
    return DYN_ERR_INPUT;
  }
  if (!v3_finite(s->gravity)) {
    dyn_msgf(msg, cap, "gravity (%g, %g, %g) must be finite", s->gravity.x, s->gravity.y,
             s->gravity.z);
    return DYN_ERR_INPUT;
  }
  if (s->integrator < DYN_INT_SYMPLECTIC_EULER || s->integrator > DYN_INT_VERLET) {
    dyn_msgf(msg, cap, "integrator=%d is not a dyn_integrator", (int)s->integrator);
    return DYN_ERR_INPUT;
  }
  if (s->gyro < DYN_GYRO_NONE || s->gyro > DYN_GYRO_IMPLICIT) {
    dyn_msgf(msg, cap, "gyro=%d is not a dyn_gyro", (int)s->gyro);
    return DYN_ERR_INPUT;
  }
  if (s->orient < DYN_ORIENT_EXP || s->orient > DYN_ORIENT_LINEAR) {
    dyn_msgf(msg, cap, "orient=%d is not a dyn_orient", (int)s->orient);
    return DYN_ERR_INPUT;
  }
  char m2[200];
  if (dyn_contact_params_validate(&s->contact, m2, sizeof m2) != DYN_OK) {
    dyn_msgf(msg, cap, "%s", m2);
    return DYN_ERR_INPUT;
  }
  if (!(s->margin >= 0.0) || !isfinite(s->margin)) {
    dyn_msgf(msg, cap, "margin=%g must be finite and >= 0", s->margin);
    return DYN_ERR_INPUT;
  }
  dyn_err e = validate_reduced(s, msg, cap);
  return e != DYN_OK ? e : validate_solver(s, msg, cap);
}

/* ---- construction ------------------------------------------------------------------ */

void dyn_world_free(dyn_world *w) {
  if (!w) return;
  dyn_reduced_free(w->red);
  free(w->ctrl);
  dyn_buf_free(&w->state);
  dyn_buf_free(&w->saved);
  dyn_buf_free(&w->deg);
  dyn_collider_free(&w->col);
  dyn_buf_free(&w->rows);
  dyn_buf_free(&w->ring);
  dyn_buf_free(&w->x);
  dyn_buf_free(&w->wv);
  dyn_buf_free(&w->xstart);
  dyn_buf_free(&w->xsolver);
  dyn_buf_free(&w->xalt);
  dyn_buf_free(&w->res_w);
  dyn_buf_free(&w->res_t);
  dyn_system_free(w->dense.sys);
  dyn_system_free(w->csr.sys);
  dyn_system_free(w->fact.sys);
  dyn_solver_slot_free(&w->main);
  dyn_solver_slot_free(&w->fallback);
  dyn_warm_free(&w->warm);
  dyn_coarse_free(&w->coarse);
  dyn_islands_free(&w->islands);
  dyn_buf_free(&w->joints);
  dyn_buf_free(&w->jpairs);
  dyn_buf_free(&w->jcnt);
  dyn_buf_free(&w->srt);
  dyn_model_free((dyn_model *)w->model); /* one holder less (dyn_model_share) */
  free(w);
}

dyn_err dyn_world_reserve_bodies(dyn_world *w, size_t nb) {
  int fail = 0;
  fail |= dyn_buf_reserve(&w->state, nb, &w->grows);
  w->bodies.s = w->state.p;
  fail |= dyn_buf_reserve(&w->saved, 13 * nb, &w->grows);
  fail |= dyn_buf_reserve(&w->deg, nb, &w->grows);
  size_t most = nb > (size_t)w->nsr ? nb : (size_t)w->nsr;
  if (fail || dyn_collider_reserve(&w->col, (int)most, &w->grows) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "out of memory for %zu bodies", nb);
  return DYN_OK;
}

dyn_err dyn_world_alloc(const dyn_world_settings *s, const dyn_model *m, dyn_world **out, char *msg,
                        size_t msgcap) {
  dyn_world *w = calloc(1, sizeof *w);
  if (!w) {
    dyn_msgf(msg, msgcap, "out of memory for the world");
    return DYN_ERR_NOMEM;
  }
  w->set = *s;
  w->solver = slv_solver_find(s->solver);
  w->rpc = dyn_contact_max_rows(&s->contact);
  w->direct = 1; /* no shape yet */
  w->model = dyn_model_share(m);
  if (dyn_world_reserve_bodies(w, 0) != DYN_OK) {
    dyn_msgf(msg, msgcap, "%s", w->msg);
    dyn_world_free(w);
    return DYN_ERR_NOMEM;
  }
  *out = w;
  return DYN_OK;
}

dyn_err dyn_world_set_settings(dyn_world *w, const dyn_world_settings *s) {
  if (!w) return DYN_ERR_INPUT;
  dyn_err e = dyn_world_settings_validate(s, w->msg, sizeof w->msg);
  if (e != DYN_OK) return e;
  dyn_world_settings torsion = *s;
  if (dyn_world_torsion_rule(w->model, &torsion, w->msg, sizeof w->msg) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_INPUT, "%s", w->msg);
  s = &torsion;
  if (s->coordinates != w->set.coordinates)
    return dyn_world_fail(w, DYN_ERR_INPUT,
                          "coordinates: fixed when the world is built (dyn_world_new_from_model)");
  dyn_v3 g = dyn_model_get_options(w->model).gravity;
  if (s->gravity.x != g.x || s->gravity.y != g.y || s->gravity.z != g.z)
    return dyn_world_fail(w, DYN_ERR_INPUT,
                          "gravity %g,%g,%g: the model's is %g,%g,%g; give another when the world "
                          "is built (dyn_world_new_from_model)",
                          s->gravity.x, s->gravity.y, s->gravity.z, g.x, g.y, g.z);
  if (strcmp(s->solver, w->set.solver) != 0 || s->opt.max_iter != w->set.opt.max_iter ||
      s->opt.record_history != w->set.opt.record_history) {
    dyn_solver_slot_free(&w->main); /* sized by the solver and (history) by max_iter */
    dyn_islands_drop_solvers(&w->islands);
  }
  if (s->contact.friction != w->set.contact.friction || s->contact.eta != w->set.contact.eta ||
      s->contact.torsion != w->set.contact.torsion || s->contact.rolling != w->set.contact.rolling)
    dyn_warm_drop_contacts(&w->warm);
  w->set = *s;
  w->solver = slv_solver_find(s->solver);
  w->rpc = dyn_contact_max_rows(&s->contact);
  dyn_world_resolve_materials(w); /* DYN_MATERIAL_DEFAULT is the settings' */
  return DYN_OK;
}

const dyn_world_settings *dyn_world_get_settings(const dyn_world *w) { return w ? &w->set : NULL; }

int dyn_world_body_count(const dyn_world *w) { return w ? w->nb : 0; }

/* ---- joints ------------------------------------------------------------------------ */

int dyn_world_joint_count(const dyn_world *w) { return w ? w->nj : 0; }
dyn_joint *dyn_world_joints(dyn_world *w) { return w ? w->joints.p : NULL; }

double dyn_world_joint_error(const dyn_world *w) {
  double err = 0.0;
  for (int i = 0; w && i < w->nj; i++) {
    double e = dyn_joint_anchor_error(w->bodies, w->nb, &w->joints.p[i]);
    if (!(e <= err)) /* NaN wins: a broken joint must show */
      err = e;
  }
  return err;
}

/* ---- between steps ---------------------------------------------------------------------- */

dyn_body_state *dyn_world_body_states(dyn_world *w) { return w ? w->bodies.s : NULL; }
const dyn_body_const *dyn_world_body_consts(const dyn_world *w) { return w ? w->bodies.c : NULL; }
dyn_bodies dyn_world_bodies(dyn_world *w) {
  dyn_bodies none = { NULL, NULL };
  return w ? w->bodies : none;
}
const char *dyn_world_message(const dyn_world *w) { return w ? w->msg : "world is NULL"; }
long dyn_world_step_count(const dyn_world *w) { return w ? w->step : 0; }
long dyn_world_grow_count(const dyn_world *w) { return w ? w->grows : 0; }
double dyn_world_time(const dyn_world *w) { return w ? w->t : 0.0; }

double dyn_world_energy(const dyn_world *w, double *kinetic, double *potential) {
  double T = 0.0, V = 0.0;
  for (int i = 0; w && i < w->nb; i++) {
    const dyn_body_state *b = &w->bodies.s[i];
    const dyn_body_const *bc = &w->bodies.c[i];
    if (bc->is_static) continue;
    T += dyn_body_kinetic(bc, b);
    V -= bc->mass * dyn_v3_dot(w->set.gravity, b->r);
  }
  if (kinetic) *kinetic = T;
  if (potential) *potential = V;
  return T + V;
}

void dyn_world_last_problem(const dyn_world *w, slv_problem *p, const double **x) {
  if (p) *p = (w && w->have_prob) ? w->prob : slv_problem_empty();
  if (x) *x = (w && w->have_prob) ? w->x.p : NULL;
}

int dyn_world_last_joint_rows(const dyn_world *w) {
  return (w && w->have_prob && w->prob.n > 0) ? w->njrows : 0;
}

const dyn_system *dyn_world_last_system(const dyn_world *w) {
  return (w && w->have_prob && w->prob.n > 0) ? w->sys_last : NULL;
}

int dyn_world_last_solve(const dyn_world *w, dyn_world_solve *out) {
  if (!out) return 0;
  if (!w || !w->have_solve) {
    memset(out, 0, sizeof *out);
    out->prob = slv_problem_empty();
    return 0;
  }
  *out = w->last;
  return 1;
}

const dyn_contact *dyn_world_contacts(const dyn_world *w, int *n) {
  if (n) *n = w ? w->nc : 0;
  return w ? w->col.con.p : NULL;
}

dyn_err dyn_world_penetration(dyn_world *w, double *max_pen, int *ncontacts) {
  if (!w) return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  dyn_err e = dyn_world_reserve_bodies(w, (size_t)w->nb);
  if (e != DYN_OK) return e;
  int n = 0;
  double pen = 0.0;
  /* after the last step's contacts, so that they stay valid; no order */
  dyn_collide_in in = dyn_world_collide_in(w, 0);
  e = dyn_collision_pass(&w->col, w->bodies, w->nsr, &in, w->nc, &n, &pen, w->msg, sizeof w->msg,
                         &w->grows);
  if (e != DYN_OK) return e;
  if (max_pen) *max_pen = pen;
  if (ncontacts) *ncontacts = n;
  return DYN_OK;
}
