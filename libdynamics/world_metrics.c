/* world_metrics.c -- the one table of per-step metric columns (dyn_run.h,
 * "the per-step metric columns"; docs/dynamics.md, "Runs"): each column's
 * name, type, unit and meaning, and how its value is read from a step's
 * record.  Every per-step output is generated from it -- the CSV of `lcplab
 * simulate --csv` (DYN_METRICS_SIMULATE, cli/cmd_simulate.c), the numpy
 * arrays of Python's World (DYN_METRICS_ARRAYS, python/ext/ext_world.c,
 * python/lcplab/_world.py's METRICS), the step rows of drift and accuracy
 * sections (DYN_METRICS_DRIFT, DYN_METRICS_ACCURACY, libexperiment/
 * scene_task.c, rows.c) -- so a column is named, typed and computed here
 * and nowhere else.
 *
 * Columns that are not in dyn_world_metrics are computed here from the
 * world after the step: rel_drift (dyn_energy_drift with the run's E0 and
 * scale, world_summary.c), compl and infeas (dyn_world_last_residual), and
 * ContactBench's criteria of the step's solve (docs/problem.md, "Contact
 * metrics"; NaN unless the step's problem has Coulomb cones).  The residual
 * is computed once per step however many of its columns are asked for,
 * and only when one is.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dyn_run.h"

/* What a column's value needs besides the step's metrics. */
enum {
  NEEDS_RESIDUAL = 1u,     /* dyn_world_last_residual, every step */
  NEEDS_CONE_RESIDUAL = 2u /* dyn_world_last_residual when the problem has cones */
};

typedef enum metric_id {
  M_STEP,
  M_T,
  M_KINETIC,
  M_POTENTIAL,
  M_ENERGY,
  M_REL_DRIFT,
  M_PEN,
  M_CONTACTS,
  M_ROWS,
  M_ITER,
  M_RES,
  M_COMPL,
  M_INFEAS,
  M_SOLVE_T,
  M_COLLIDE_T,
  M_STEP_T,
  M_STATUS,
  M_JOINT_ERR,
  M_FAILED,
  M_APPLIED,
  M_FB_STATUS,
  M_RES_APPLIED,
  M_EXCESS,
  M_FAILED_INT,
  M_INT_EXCESS,
  M_SIG,
  M_CONIC,
  M_NCP,
  M_DUAL,
  M_PRIMAL,
  M_MDP,
  M_STAGES,
  NMETRICS
} metric_id;

typedef struct metric_def {
  dyn_metric_column c;
  unsigned needs;
} metric_def;

#define COL(id, name, type, unit, meaning, needs) [id] = { { name, type, unit, meaning }, needs }
static const metric_def table[NMETRICS] = {
  COL(M_STEP, "step", DYN_METRIC_INT, "", "steps done, counting this one (1, 2, ...)", 0),
  COL(M_T, "t", DYN_METRIC_REAL, "s", "time after the step", 0),
  COL(M_KINETIC, "kinetic", DYN_METRIC_REAL, "J",
      "kinetic energy after the step: sum m |v|^2 / 2 + w.(I w) / 2", 0),
  COL(M_POTENTIAL, "potential", DYN_METRIC_REAL, "J",
      "potential energy after the step: sum -m g.r, zero at z = 0 (the scenes' floor)", 0),
  COL(M_ENERGY, "energy", DYN_METRIC_REAL, "J", "kinetic + potential", 0),
  COL(M_REL_DRIFT, "rel_drift", DYN_METRIC_REAL, "",
      "energy drift since the run's start, (E - E0) / max(|E0|, M |g| D) (dyn_energy_drift); "
      "none when that scale is 0",
      0),
  COL(M_PEN, "max_penetration", DYN_METRIC_REAL, "m",
      "deepest contact found by the step's collision pass (the state at the step's start)", 0),
  COL(M_CONTACTS, "contacts", DYN_METRIC_INT, "", "contact points of the step", 0),
  COL(M_ROWS, "rows", DYN_METRIC_INT, "", "rows of the step's problem, the joints' first", 0),
  COL(M_ITER, "iterations", DYN_METRIC_INT, "", "the solver's iterations (0 without rows)", 0),
  COL(M_RES, "res_nat_inf", DYN_METRIC_REAL, "",
      "the library's natural-map residual of the solver's x (slv_residual)", 0),
  COL(M_COMPL, "compl", DYN_METRIC_REAL, "",
      "complementarity of the impulses applied, recomputed by slv_residual", NEEDS_RESIDUAL),
  COL(M_INFEAS, "infeas", DYN_METRIC_REAL, "",
      "infeasibility (bounds, cones) of the impulses applied, recomputed by slv_residual",
      NEEDS_RESIDUAL),
  COL(M_SOLVE_T, "solve_time_s", DYN_METRIC_TIME, "s", "wall time of slv_solve alone", 0),
  COL(M_COLLIDE_T, "collide_time_s", DYN_METRIC_TIME, "s",
      "wall time of the broad and narrow phases", 0),
  COL(M_STEP_T, "step_time_s", DYN_METRIC_TIME, "s", "wall time of the whole dyn_world_step", 0),
  COL(M_STATUS, "status", DYN_METRIC_STATUS, "",
      "the solve's status (converged for a step without rows)", 0),
  COL(M_JOINT_ERR, "joint_error", DYN_METRIC_REAL, "m",
      "largest anchor separation of the joints after the step (dyn_joint_anchor_error); 0 "
      "without joints",
      0),
  COL(M_FAILED, "failed", DYN_METRIC_INT, "",
      "1 when the step failed: its solve (the failure policy decided what was applied) or the "
      "integrator's energy rule (failed_integrator)",
      0),
  COL(M_APPLIED, "applied", DYN_METRIC_APPLIED, "",
      "the impulses applied: solver, fallback:SOLVER, warm, zero or none (no rows)", 0),
  COL(M_FB_STATUS, "fallback_status", DYN_METRIC_STATUS, "",
      "the fallback solve's status (converged when none ran)", 0),
  COL(M_RES_APPLIED, "res_applied", DYN_METRIC_REAL, "",
      "res_nat_inf of the impulses applied (0 without rows)", 0),
  COL(M_EXCESS, "energy_excess", DYN_METRIC_REAL, "J",
      "kinetic energy the solver's impulses add beyond the stabilisation's work, T+ - T(u_free) "
      "- x'rhs (<= 0 for an exact answer); above tol times the step's scale the step failed "
      "(docs/dynamics.md, \"The per-step energy bound\"); 0 without rows",
      0),
  COL(M_FAILED_INT, "failed_integrator", DYN_METRIC_INT, "",
      "1 when the step failed by the integrator's energy rule: the run's free motion gained "
      "more than the run's drift scale beyond its sources (docs/dynamics.md, \"The "
      "integrator's energy rule\")",
      0),
  COL(M_INT_EXCESS, "integrator_excess", DYN_METRIC_REAL, "J",
      "the energy the run's free motion (the integrator) gained beyond gravity, loads, "
      "actuators, springs and the impulses, after the step (>= 0; failed above the run's drift "
      "scale); empty where the rule does not judge",
      0),
  COL(M_SIG, "signorini", DYN_METRIC_REAL, "",
      "ContactBench's Signorini criterion of the impulses applied (NaN without cones)",
      NEEDS_CONE_RESIDUAL),
  COL(M_CONIC, "conic_compl", DYN_METRIC_REAL, "",
      "ContactBench's conic complementarity (NaN without cones)", NEEDS_CONE_RESIDUAL),
  COL(M_NCP, "ncp_compl", DYN_METRIC_REAL, "",
      "ContactBench's NCP complementarity (NaN without cones)", NEEDS_CONE_RESIDUAL),
  COL(M_DUAL, "dual_feas", DYN_METRIC_REAL, "",
      "ContactBench's dual feasibility (NaN without cones)", NEEDS_CONE_RESIDUAL),
  COL(M_PRIMAL, "primal_feas", DYN_METRIC_REAL, "",
      "ContactBench's primal feasibility (NaN without cones)", NEEDS_CONE_RESIDUAL),
  COL(M_MDP, "mdp_gap", DYN_METRIC_REAL, "",
      "ContactBench's maximum-dissipation gap (NaN without cones)", NEEDS_CONE_RESIDUAL),
  COL(M_STAGES, "stage_time_s", DYN_METRIC_STAGES, "s",
      "wall time of each stage of the step (dyn_world_stage_name)", 0),
};
#undef COL

int dyn_metric_count(void) { return NMETRICS; }

const dyn_metric_column *dyn_metric_at(int i) {
  return i >= 0 && i < NMETRICS ? &table[i].c : NULL;
}

int dyn_metric_find(const char *name) {
  for (int i = 0; name && i < NMETRICS; i++)
    if (strcmp(table[i].c.name, name) == 0) return i;
  return -1;
}

dyn_err dyn_metric_set_init(dyn_metric_set *s, const char *names, char *msg, size_t msgcap) {
  memset(s, 0, sizeof *s);
  for (const char *p = names; p && *p;) {
    size_t len = strcspn(p, ",");
    char name[64];
    int c = -1;
    if (len < sizeof name) {
      memcpy(name, p, len);
      name[len] = '\0';
      c = dyn_metric_find(name);
    }
    if (c < 0 || s->n >= DYN_METRIC_SET_MAX) {
      if (msg && msgcap && c < 0)
        snprintf(msg, msgcap, "no metric column '%.*s'", (int)len, p);
      else if (msg && msgcap)
        snprintf(msg, msgcap, "more than %d metric columns", DYN_METRIC_SET_MAX);
      memset(s, 0, sizeof *s);
      return DYN_ERR_INPUT;
    }
    s->col[s->n++] = c;
    s->needs |= table[c].needs;
    p += len;
    if (*p == ',') p++;
  }
  return DYN_OK;
}

/* The residuals the set's columns read: computed once (zero, or NaN
 * criteria, where there is nothing to compute). */
static slv_residuals step_residuals(unsigned needs, dyn_world *w) {
  slv_residuals r;
  memset(&r, 0, sizeof r);
  r.contact.signorini = r.contact.conic_compl = r.contact.ncp_compl = NAN;
  r.contact.dual_feas = r.contact.primal_feas = r.contact.mdp_gap = NAN;
  if (!needs) return r;
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  int cones = p.n > 0 && p.ncones > 0 && x;
  if ((needs & NEEDS_RESIDUAL) || cones) {
    slv_contact_metrics none = r.contact;
    r = dyn_world_last_residual(w);
    if (!cones) r.contact = none;
  }
  return r;
}

static double number(metric_id id, const dyn_run_step *st, const slv_residuals *r) {
  const dyn_world_metrics *m = &st->m;
  switch (id) {
  case M_STEP: return (double)m->step;
  case M_T: return m->t;
  case M_KINETIC: return m->kinetic;
  case M_POTENTIAL: return m->potential;
  case M_ENERGY: return m->energy;
  case M_REL_DRIFT: return dyn_energy_drift(m->energy, st->energy0, st->drift_scale);
  case M_PEN: return m->max_penetration;
  case M_CONTACTS: return m->contacts;
  case M_ROWS: return m->rows;
  case M_ITER: return m->iterations;
  case M_RES: return m->res_nat_inf;
  case M_COMPL: return r->compl ;
  case M_INFEAS: return r->infeas;
  case M_SOLVE_T: return m->solve_time_s;
  case M_COLLIDE_T: return m->collide_time_s;
  case M_STEP_T: return m->step_time_s;
  case M_STATUS: return (double)m->status;
  case M_JOINT_ERR: return m->joint_error;
  case M_FAILED: return m->failed;
  case M_APPLIED: return (double)m->applied;
  case M_FB_STATUS: return (double)m->fallback_status;
  case M_RES_APPLIED: return m->res_applied;
  case M_EXCESS: return m->energy_excess;
  case M_FAILED_INT: return m->failed_integrator;
  case M_INT_EXCESS: return m->integrator_excess;
  case M_SIG: return r->contact.signorini;
  case M_CONIC: return r->contact.conic_compl;
  case M_NCP: return r->contact.ncp_compl;
  case M_DUAL: return r->contact.dual_feas;
  case M_PRIMAL: return r->contact.primal_feas;
  case M_MDP: return r->contact.mdp_gap;
  default: return NAN;
  }
}

void dyn_metric_values(const dyn_metric_set *s, dyn_world *w, const dyn_run_step *st,
                       dyn_metric_value *v) {
  slv_residuals r = step_residuals(s->needs, w);
  for (int i = 0; i < s->n; i++) {
    metric_id id = (metric_id)s->col[i];
    dyn_metric_value *o = &v[i];
    memset(o, 0, sizeof *o);
    o->x = number(id, st, &r);
    if (id == M_STATUS) o->text = slv_status_str(st->m.status);
    if (id == M_FB_STATUS) o->text = slv_status_str(st->m.fallback_status);
    if (id == M_APPLIED) o->text = st->applied;
    if (id == M_STAGES) o->stages = st->m.stage_time_s;
    o->none = (id == M_REL_DRIFT && !(st->drift_scale > 0)) || (id == M_INT_EXCESS && isnan(o->x));
  }
}

void dyn_metric_text(const dyn_metric_column *c, const dyn_metric_value *v, char *buf, size_t len) {
  if (!len) return;
  buf[0] = '\0';
  if (v->none) return;
  switch (c->type) {
  case DYN_METRIC_INT: snprintf(buf, len, "%ld", (long)v->x); break;
  case DYN_METRIC_REAL: snprintf(buf, len, "%.17g", v->x); break;
  case DYN_METRIC_TIME: snprintf(buf, len, "%.6g", v->x); break;
  case DYN_METRIC_STATUS:
  case DYN_METRIC_APPLIED: snprintf(buf, len, "%s", v->text ? v->text : "?"); break;
  case DYN_METRIC_STAGES: {
    size_t used = 0;
    for (int i = 0; v->stages && i < DYN_WORLD_STAGES && used < len; i++) {
      int r = snprintf(buf + used, len - used, "%s%.6g", i ? ";" : "", v->stages[i]);
      if (r < 0) break;
      used += (size_t)r;
    }
    break;
  }
  }
}
