/*
 * world.c -- dyn_world (dyn_world.h): the world's settings, its bodies and
 * joints, and what can be asked of it between steps.  The step itself is
 * world_step.c (a pipeline of named stages); the files behind it are
 * listed in world_internal.h.  docs/dynamics.md, "The world step".
 */
#define _POSIX_C_SOURCE 200809L

#include "world_internal.h"

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
  return s;
}

/* The failure policy and its fallback. */
static dyn_err validate_failure_policy(const dyn_world_settings *s, char *msg, size_t cap) {
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
  return validate_failure_policy(s, msg, cap);
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
  return validate_solver(s, msg, cap);
}

/* ---- construction ------------------------------------------------------------------ */

void dyn_world_free(dyn_world *w) {
  if (!w) return;
  dyn_reduced_free(w->red);
  dyn_buf_free(&w->bodies);
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
  dyn_buf_free(&w->joints);
  dyn_buf_free(&w->jpairs);
  dyn_buf_free(&w->jcnt);
  dyn_buf_free(&w->px);
  dyn_buf_free(&w->srt);
  dyn_model_free(w->model);
  free(w);
}

dyn_err dyn_world_reserve_bodies(dyn_world *w, size_t nb) {
  int fail = 0;
  fail |= dyn_buf_reserve(&w->bodies, nb, &w->grows);
  fail |= dyn_buf_reserve(&w->saved, 13 * nb, &w->grows);
  fail |= dyn_buf_reserve(&w->deg, nb, &w->grows);
  size_t most = nb > (size_t)w->nsr ? nb : (size_t)w->nsr;
  if (fail || dyn_collider_reserve(&w->col, (int)most, &w->grows) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_NOMEM, "out of memory for %zu bodies", nb);
  return DYN_OK;
}

dyn_err dyn_world_new(const dyn_world_settings *s, int body_capacity, dyn_world **out, char *msg,
                      size_t msgcap) {
  if (!out) {
    dyn_msgf(msg, msgcap, "dyn_world_new: out is NULL");
    return DYN_ERR_INPUT;
  }
  *out = NULL;
  if (body_capacity < 0) {
    dyn_msgf(msg, msgcap, "dyn_world_new: body_capacity=%d must be >= 0", body_capacity);
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_world_settings_validate(s, msg, msgcap);
  if (e != DYN_OK) return e;
  dyn_world *w = calloc(1, sizeof *w);
  if (!w) {
    dyn_msgf(msg, msgcap, "dyn_world_new: out of memory");
    return DYN_ERR_NOMEM;
  }
  w->set = *s;
  w->solver = slv_solver_find(s->solver);
  w->rpc = dyn_contact_max_rows(&s->contact);
  w->direct = 1; /* no shape yet */
  /* the world's model, which dyn_world_add_body and _add_joint fill; its
   * options say what the settings do (the step reads the settings) */
  dyn_model_options o = dyn_model_options_default();
  o.gravity = s->gravity;
  o.rest_threshold = s->contact.rest_threshold;
  if (dyn_model_new(&w->model) == DYN_OK) w->model->opt = o;
  if (!w->model || dyn_world_reserve_bodies(w, (size_t)body_capacity) != DYN_OK) {
    dyn_msgf(msg, msgcap, "dyn_world_new: %s", w->msg);
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
  if (strcmp(s->solver, w->set.solver) != 0 || s->opt.max_iter != w->set.opt.max_iter ||
      s->opt.record_history != w->set.opt.record_history)
    dyn_solver_slot_free(&w->main); /* sized by the solver and (history) by max_iter */
  if (s->contact.friction != w->set.contact.friction || s->contact.eta != w->set.contact.eta)
    dyn_warm_drop_contacts(&w->warm);
  w->set = *s;
  w->solver = slv_solver_find(s->solver);
  w->rpc = dyn_contact_max_rows(&s->contact);
  dyn_world_resolve_materials(w); /* DYN_MATERIAL_DEFAULT is the settings' */
  return DYN_OK;
}

const dyn_world_settings *dyn_world_get_settings(const dyn_world *w) { return w ? &w->set : NULL; }

static int m3_finite(const dyn_m3 *M) {
  for (int k = 0; k < 9; k++)
    if (!isfinite(M->m[k])) return 0;
  return 1;
}

/* The checks of dyn_world_add_body on body i (dyn_world.h). */
static dyn_err check_body(dyn_world *w, int i, const dyn_body *b) {
  if (!v3_finite(b->r) || !v3_finite(b->v) || !v3_finite(b->w) || !v3_finite(b->f_ext) ||
      !v3_finite(b->t_ext))
    return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: r, v, w and the loads must be finite", i);
  double qn = dyn_quat_norm(b->q);
  if (!(qn > 0.0) || !isfinite(qn))
    return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: the quaternion must be finite and nonzero",
                          i);
  if (!m3_finite(&b->I_b) || !m3_finite(&b->inv_I_b))
    return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: inertia not finite", i);
  if (b->is_static) {
    int zero = b->inv_mass == 0.0;
    for (int k = 0; k < 9; k++) zero = zero && b->inv_I_b.m[k] == 0.0;
    if (!zero)
      return dyn_world_fail(w, DYN_ERR_INPUT,
                            "body %d: a static body needs inv_mass = 0, inv_I_b = 0", i);
    return DYN_OK;
  }
  if (!(b->mass > 0.0) || !isfinite(b->mass))
    return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: mass=%g must be finite and > 0", i, b->mass);
  /* inv_mass must be 1/m (to rounding): assembly and integration read it */
  if (!(fabs(b->inv_mass * b->mass - 1.0) <= 1e-12))
    return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: inv_mass=%g is not 1/mass (mass=%g)", i,
                          b->inv_mass, b->mass);
  if (b->shape.kind == DYN_SHAPE_PLANE)
    return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: a PLANE shape only on a static body", i);
  return DYN_OK;
}

int dyn_world_add_body(dyn_world *w, const dyn_body *b) {
  if (!w) return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  int i = w->nb;
  if (!b) return dyn_world_fail(w, DYN_ERR_INPUT, "body %d: NULL", i);
  dyn_err e = check_body(w, i, b);
  if (e != DYN_OK) return e;
  if (w->nb == INT32_MAX) return dyn_world_fail(w, DYN_ERR_INPUT, "too many bodies");
  if ((e = dyn_world_reserve_bodies(w, (size_t)w->nb + 1)) != DYN_OK) return e;
  w->bodies.p[i] = *b;
  w->bodies.p[i].q = dyn_quat_normalize(b->q);
  if ((e = dyn_world_model_add_body(w, &w->bodies.p[i])) != DYN_OK) return e;
  w->nb++;
  return i;
}

int dyn_world_body_count(const dyn_world *w) { return w ? w->nb : 0; }

/* ---- joints ------------------------------------------------------------------------ */

/* Room for nj joints and their per-joint data, and njp jointed pairs. */
static dyn_err joints_reserve(dyn_world *w, size_t nj, size_t njp) {
  int fail = 0;
  fail |= dyn_buf_reserve(&w->joints, nj, &w->grows);
  fail |= dyn_buf_reserve(&w->jcnt, nj, &w->grows);
  fail |= dyn_warm_reserve_joints(&w->warm, (int)nj, &w->grows) != DYN_OK;
  fail |= dyn_buf_reserve(&w->jpairs, njp, &w->grows);
  if (fail) return dyn_world_fail(w, DYN_ERR_NOMEM, "out of memory for %zu joints", nj);
  return DYN_OK;
}

/* Bodies a < b tied from now on: their key inserted in the sorted jpairs. */
static void add_jointed_pair(dyn_world *w, int a, int b) {
  uint64_t key = dyn_pair_key(a, b);
  if (dyn_pair_sorted_has(w->jpairs.p, w->njp, key)) return;
  int k = w->njp;
  while (k > 0 && w->jpairs.p[k - 1] > key) {
    w->jpairs.p[k] = w->jpairs.p[k - 1];
    k--;
  }
  w->jpairs.p[k] = key;
  w->njp++;
}

int dyn_world_add_joint(dyn_world *w, const dyn_joint *j) {
  if (!w) return DYN_ERR_INPUT;
  w->msg[0] = '\0';
  int i = w->nj;
  if (!j) return dyn_world_fail(w, DYN_ERR_INPUT, "joint %d: NULL", i);
  char m[200];
  if (dyn_joint_validate(j, w->nb, m, sizeof m) != DYN_OK)
    return dyn_world_fail(w, DYN_ERR_INPUT, "joint %d: %s", i, m);
  int sa = w->bodies.p[j->a].is_static, sb = j->b < 0 || w->bodies.p[j->b].is_static;
  if (sa && sb)
    return dyn_world_fail(w, DYN_ERR_INPUT, "joint %d: bodies %d and %d are both static", i, j->a,
                          j->b);
  if (w->nj == INT32_MAX) return dyn_world_fail(w, DYN_ERR_INPUT, "too many joints");
  dyn_err e = joints_reserve(w, (size_t)w->nj + 1, (size_t)w->njp + 1);
  if (e != DYN_OK) return e;
  if ((e = dyn_world_model_add_joint(w, j)) != DYN_OK) return e;
  w->joints.p[i] = *j;
  dyn_warm_add_joint(&w->warm, i);
  w->jcnt.p[i] = 0;
  w->nj++;
  if (j->b >= 0) add_jointed_pair(w, j->a < j->b ? j->a : j->b, j->a < j->b ? j->b : j->a);
  return i;
}

int dyn_world_joint_count(const dyn_world *w) { return w ? w->nj : 0; }
dyn_joint *dyn_world_joints(dyn_world *w) { return w ? w->joints.p : NULL; }

double dyn_world_joint_error(const dyn_world *w) {
  double err = 0.0;
  for (int i = 0; w && i < w->nj; i++) {
    double e = dyn_joint_anchor_error(w->bodies.p, w->nb, &w->joints.p[i]);
    if (!(e <= err)) /* NaN wins: a broken joint must show */
      err = e;
  }
  return err;
}

/* ---- between steps ---------------------------------------------------------------------- */

dyn_body *dyn_world_bodies(dyn_world *w) { return w ? w->bodies.p : NULL; }
const char *dyn_world_message(const dyn_world *w) { return w ? w->msg : "world is NULL"; }
long dyn_world_step_count(const dyn_world *w) { return w ? w->step : 0; }
long dyn_world_grow_count(const dyn_world *w) { return w ? w->grows : 0; }
double dyn_world_time(const dyn_world *w) { return w ? w->t : 0.0; }

double dyn_world_energy(const dyn_world *w, double *kinetic, double *potential) {
  double T = 0.0, V = 0.0;
  for (int i = 0; w && i < w->nb; i++) {
    const dyn_body *b = &w->bodies.p[i];
    if (b->is_static) continue;
    T += dyn_body_kinetic(b);
    V -= b->mass * dyn_v3_dot(w->set.gravity, b->r);
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
  const dyn_body *geo = dyn_world_place_shapes(w);
  e = dyn_collision_pass(&w->col, geo, w->nsr, &in, w->nc, &n, &pen, w->msg, sizeof w->msg,
                         &w->grows);
  if (e != DYN_OK) return e;
  if (max_pen) *max_pen = pen;
  if (ncontacts) *ncontacts = n;
  return DYN_OK;
}
