/*
 * world_ctrl.c -- the controls of a model's actuators (dyn_actuator_def,
 * dyn_world_set_ctrl; docs/models.md, "The mapping"): each actuator's
 * generalized force on its joint's coordinate,
 *     gear * clampF(gain * clampC(ctrl)),
 * summed per joint and held until the controls are set again.  Reduced
 * coordinates apply it exactly, as a constant generalized force on the
 * joint's dof in f_r (dyn_redmax_set_effort); a spatial tendon's force,
 * which depends on the state, is added to the step's loads each step
 * (dyn_tendon_loads, tendon_spatial.c), a muscle's from its activation,
 * a state of the world after the controls and efforts in the same block
 * (dyn_world_act; dyn_tendon_activate after each step); a world in maximal
 * coordinates refuses a nonzero control (its joints have no generalized
 * force term: rerun in reduced coordinates, the default for a tree).
 */
#include "world_data.h"
#include "world_reduced.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slider-crank actuator a as the tree's (dyn_rm_crank), at zero control. */
static dyn_rm_crank tree_crank(const dyn_model *m, const dyn_rm_tree *t,
                               const dyn_actuator_def *a) {
  dyn_rm_crank c = {
    t->tree_of[a->crank_body], -1,      a->crank_pos, a->slider_pos, a->slider_axis,
    a->crank_length,           a->gear, a->bias_k,    a->bias_b0,    0.0
  };
  int s = a->slider_body;
  if (s >= 0 && t->tree_of[s] >= 0) {
    c.slider = t->tree_of[s];
  } else if (s >= 0) { /* a static body: its pose is the world's for good */
    const dyn_body_def *b = &dyn_model_bodies(m)[s];
    dyn_quat q = dyn_quat_normalize(b->q);
    c.ps = dyn_v3_add(b->r, dyn_quat_rotate(q, a->slider_pos));
    c.axis = dyn_quat_rotate(q, a->slider_axis);
  }
  return c;
}

dyn_err dyn_ctrl_cranks_init(const dyn_model *m, const dyn_rm_tree *t, dyn_redmax *rm) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  int na = dyn_model_actuator_count(m), nc = 0;
  for (int i = 0; i < na; i++) nc += a[i].slider_crank;
  if (nc == 0) return DYN_OK;
  dyn_rm_crank *c = malloc((size_t)nc * sizeof *c);
  if (!c) return DYN_ERR_NOMEM;
  for (int i = 0, k = 0; i < na; i++)
    if (a[i].slider_crank) c[k++] = tree_crank(m, t, &a[i]);
  dyn_err e = dyn_redmax_cranks_init(rm, c, nc);
  free(c);
  return e;
}

/* The model's slider-cranks into the tree of w (reduced coordinates only). */
static dyn_err cranks_init(dyn_world *w, char *msg, size_t cap) {
  const dyn_actuator_def *a = dyn_model_actuators(w->model);
  int na = dyn_model_actuator_count(w->model), nc = 0;
  for (int i = 0; i < na; i++) nc += a[i].slider_crank;
  const dyn_rm_tree *t = dyn_reduced_tree(w);
  for (int i = 0; i < na && !t; i++)
    if (a[i].npath) {
      dyn_msgf(msg, cap, "actuator '%s': a spatial tendon needs reduced coordinates", a[i].name);
      return DYN_ERR_INPUT;
    }
  if (nc == 0) return DYN_OK;
  if (!t) {
    dyn_msgf(msg, cap, "a slider-crank actuator needs reduced coordinates");
    return DYN_ERR_INPUT;
  }
  dyn_err e = dyn_ctrl_cranks_init(w->model, t, dyn_reduced_redmax(w));
  if (e == DYN_ERR_NOMEM)
    dyn_msgf(msg, cap, "out of memory (the slider-cranks)");
  else if (e != DYN_OK)
    dyn_msgf(msg, cap, "a slider-crank actuator's crank is not in the tree");
  return e;
}

dyn_err dyn_world_ctrl_alloc(dyn_world *w, char *msg, size_t cap) {
  int na = dyn_model_actuator_count(w->model), nj = dyn_model_joint_count(w->model);
  if (na == 0) return DYN_OK;
  w->ctrl = calloc((size_t)(na + nj + na), sizeof *w->ctrl); /* ctrl, efforts, activations */
  if (w->ctrl) return cranks_init(w, msg, cap);
  dyn_msgf(msg, cap, "out of memory (the actuators' controls)");
  return DYN_ERR_NOMEM;
}

double *dyn_world_act(const dyn_world *w) {
  return w && w->ctrl
             ? w->ctrl + dyn_model_actuator_count(w->model) + dyn_model_joint_count(w->model)
             : NULL;
}

int dyn_world_ctrl_count(const dyn_world *w) { return w ? dyn_model_actuator_count(w->model) : 0; }

const double *dyn_world_ctrl(const dyn_world *w) { return w ? w->ctrl : NULL; }

static double clamp(double x, int on, double lo, double hi) {
  return !on ? x : x < lo ? lo : x > hi ? hi : x;
}

dyn_err dyn_model_check_ctrl(const dyn_model *m, int reduced, const double *ctrl, int n, char *msg,
                             size_t cap) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  int na = dyn_model_actuator_count(m);
  if (n != na || (n > 0 && !ctrl)) {
    dyn_msgf(msg, cap, "ctrl has %d entries; the model has %d actuator%s", n, na,
             na == 1 ? "" : "s");
    return DYN_ERR_INPUT;
  }
  for (int i = 0; i < n; i++) {
    const char *why = !isfinite(ctrl[i]) ? "is not finite"
                      : ctrl[i] == 0.0   ? NULL
                      : a[i].njoints == 0 && !a[i].slider_crank && !a[i].npath
                          ? "drives nothing: its transmission is not "
                            "simulated, so its control stays 0"
                      : !reduced ? "controls drive actuators in reduced "
                                   "coordinates only; rerun with --coordinates "
                                   "reduced"
                                 : NULL;
    if (why) {
      dyn_msgf(msg, cap, "ctrl[%d] (actuator '%s'): %s (%g)", i, a[i].name, why, ctrl[i]);
      return DYN_ERR_INPUT;
    }
  }
  return DYN_OK;
}

/* What keeps ctrl from being set (the world's message), or DYN_OK. */
static dyn_err check_ctrl(dyn_world *w, const double *ctrl, int n) {
  char msg[sizeof w->msg];
  if (dyn_model_check_ctrl(w->model, w->red != NULL, ctrl, n, msg, sizeof msg) == DYN_OK)
    return DYN_OK;
  return dyn_world_fail(w, DYN_ERR_INPUT, "%s", msg);
}

/* Each joint's generalized force from ctrl (effort[nj]). */
static void joint_efforts(const dyn_model *m, const double *ctrl, double *effort) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  int n = dyn_model_actuator_count(m), nj = dyn_model_joint_count(m);
  memset(effort, 0, (size_t)nj * sizeof *effort);
  for (int i = 0; i < n; i++) {
    double c = clamp(ctrl[i], a[i].ctrl_limited, a[i].ctrl_lo, a[i].ctrl_hi);
    double f = clamp(a[i].gain * c, a[i].force_limited, a[i].force_lo, a[i].force_hi);
    for (int k = 0; k < a[i].njoints; k++) effort[a[i].joint[k]] += a[i].coef[k] * a[i].gear * f;
  }
}

int dyn_ctrl_apply(const dyn_model *m, const dyn_rm_tree *t, dyn_redmax *rm, const double *ctrl,
                   double *effort, int *joint) {
  const dyn_actuator_def *a = dyn_model_actuators(m);
  int n = dyn_model_actuator_count(m);
  joint_efforts(m, ctrl, effort);
  for (int i = 0, c = 0; i < n; i++)
    if (a[i].slider_crank)
      dyn_redmax_set_crank_force(
          rm, c++, a[i].gain * clamp(ctrl[i], a[i].ctrl_limited, a[i].ctrl_lo, a[i].ctrl_hi));
  for (int i = 0; i < n; i++)
    for (int k = 0; k < a[i].njoints; k++) {
      int j = a[i].joint[k];
      if (dyn_redmax_set_effort(rm, t->jbody[j], t->jsign[j] * effort[j]) != DYN_OK) {
        if (joint) *joint = j;
        return i;
      }
    }
  return -1;
}

dyn_err dyn_world_set_ctrl(dyn_world *w, const double *ctrl, int n) {
  if (!w) return DYN_ERR_INPUT;
  dyn_err e = check_ctrl(w, ctrl, n);
  if (e != DYN_OK || n == 0) return e;
  const dyn_actuator_def *a = dyn_model_actuators(w->model);
  memcpy(w->ctrl, ctrl, (size_t)n * sizeof *ctrl);
  const dyn_rm_tree *t = dyn_reduced_tree(w);
  if (!t) { /* maximal: every control is 0 (check_ctrl) */
    joint_efforts(w->model, ctrl, w->ctrl + n);
    return DYN_OK;
  }
  int j = -1, i = dyn_ctrl_apply(w->model, t, dyn_reduced_redmax(w), ctrl, w->ctrl + n, &j);
  if (i < 0) return DYN_OK;
  return dyn_world_fail(w, DYN_ERR_INPUT, "ctrl[%d] (actuator '%s'): its joint %d takes no force",
                        i, a[i].name, j);
}

/* The actuator a NAME of a control list names: its name, or its index. */
static int actuator_of(const dyn_model *m, const char *name) {
  int i = dyn_model_find_actuator(m, name);
  if (i >= 0 || !name[0] || strspn(name, "0123456789") != strlen(name)) return i;
  long k = strtol(name, NULL, 10);
  return k < dyn_model_actuator_count(m) ? (int)k : -1;
}

/* One "NAME=VALUE" item of length len into ctrl; 0, or -1 with msg. */
static int parse_item(const dyn_model *m, const char *item, size_t len, double *ctrl, char *msg,
                      size_t cap) {
  char buf[DYN_NAME_MAX + 64];
  if (len >= sizeof buf) {
    dyn_msgf(msg, cap, "'%.*s...' is too long", 40, item);
    return -1;
  }
  memcpy(buf, item, len);
  buf[len] = '\0';
  char *eq = strchr(buf, '=');
  if (!eq) {
    dyn_msgf(msg, cap, "'%s' is not NAME=VALUE", buf);
    return -1;
  }
  *eq = '\0';
  int i = actuator_of(m, buf);
  if (i < 0) {
    dyn_msgf(msg, cap, "no actuator '%s' (the model has %d, named or by index)", buf,
             dyn_model_actuator_count(m));
    return -1;
  }
  char *end;
  double x = strtod(eq + 1, &end);
  if (end == eq + 1 || *end || !isfinite(x)) {
    dyn_msgf(msg, cap, "'%s=%s': the value is not a finite number", buf, eq + 1);
    return -1;
  }
  ctrl[i] = x;
  return 0;
}

dyn_err dyn_model_parse_ctrl(const dyn_model *m, const char *spec, double *ctrl, char *msg,
                             size_t cap) {
  int na = dyn_model_actuator_count(m);
  for (int i = 0; i < na; i++) ctrl[i] = 0.0;
  if (!spec || !spec[0]) return DYN_OK;
  if (na == 0) {
    dyn_msgf(msg, cap, "the model has no actuators");
    return DYN_ERR_INPUT;
  }
  for (const char *p = spec;;) {
    size_t len = strcspn(p, ",");
    if (parse_item(m, p, len, ctrl, msg, cap) != 0) return DYN_ERR_INPUT;
    if (!p[len]) return DYN_OK;
    p += len + 1;
  }
}
