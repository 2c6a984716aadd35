/* test_world_metrics.c -- the one table of per-step metric columns
 * (libdynamics/world_metrics.c, dyn_run.h) from which `lcplab simulate`'s
 * CSV, Python's World arrays and the drift and accuracy rows are made.
 *
 * What is checked, and how:
 *   - the table: every column has a unique name, a unit string and a
 *     meaning; every list of the outputs (DYN_METRICS_SIMULATE, _ARRAYS,
 *     _DRIFT, _ACCURACY) resolves against it, in its order; an unknown
 *     name is refused, named;
 *   - the values: a 2-layer pyramid stepped 12 times under pgs (box
 *     friction): each column of every list equals the field of the step's
 *     dyn_world_metrics it names (bit for bit), status and applied carry
 *     the code and the name, rel_drift is (E - E0) / S with the run's E0
 *     and S (and none when S = 0, by a record made by hand), compl and
 *     infeas are slv_residual's at the impulses applied, and ContactBench's
 *     criteria are NaN without cones;
 *   - with Coulomb cones (nsgs, friction cone) the criteria are numbers,
 *     those of slv_residual at the impulses applied;
 *   - a factored problem of 300 bodies (pile, pgs, storage factored: more
 *     than 256 blocks): the residual columns from the world's scratch (one
 *     pass, slv_problem_w_t) are the bits of slv_residual without it (a
 *     pass per slice), and after the first step that asks, the scratch
 *     does not grow again;
 *   - the CSV text (dyn_metric_text), by hand: 42, 0.1 as
 *     0.10000000000000001 (%.17g reads back to the same double), a time as
 *     %.6g, a status by name, a none value empty, stage times joined by ';'.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "dyn_run.h"
#include "tst_util.h"

static void test_table(void) {
  int n = dyn_metric_count();
  CU_ASSERT(n > 20);
  for (int i = 0; i < n; i++) {
    const dyn_metric_column *c = dyn_metric_at(i);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT(c->name[0] != '\0' && c->meaning[0] != '\0' && c->unit != NULL);
    CU_ASSERT_EQUAL(dyn_metric_find(c->name), i);
  }
  CU_ASSERT_PTR_NULL(dyn_metric_at(n));
  CU_ASSERT_PTR_NULL(dyn_metric_at(-1));
  CU_ASSERT_EQUAL(dyn_metric_find("nope"), -1);
  CU_ASSERT_EQUAL(dyn_metric_find(NULL), -1);
  const char *lists[] = { DYN_METRICS_SIMULATE, DYN_METRICS_ARRAYS, DYN_METRICS_DRIFT,
                          DYN_METRICS_ACCURACY };
  for (int k = 0; k < 4; k++) {
    dyn_metric_set s;
    char msg[128] = "";
    CU_ASSERT_EQUAL_FATAL(dyn_metric_set_init(&s, lists[k], msg, sizeof msg), DYN_OK);
    /* in the list's order: the names joined again are the list */
    char joined[1024] = "";
    for (int i = 0; i < s.n; i++) {
      strcat(joined, i ? "," : "");
      strcat(joined, dyn_metric_at(s.col[i])->name);
    }
    CU_ASSERT_STRING_EQUAL(joined, lists[k]);
  }
  dyn_metric_set s;
  char msg[128] = "";
  CU_ASSERT_EQUAL(dyn_metric_set_init(&s, "step,energy,nope,t", msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "'nope'"));
  CU_ASSERT_EQUAL(s.n, 0);
}

static dyn_world *scene(const char *name, const char *param, const char *solver, dyn_friction fr,
                        dyn_storage storage) {
  dyn_world_settings set = dyn_world_settings_default();
  snprintf(set.solver, sizeof set.solver, "%s", solver);
  set.contact.friction = fr;
  set.storage = storage;
  const char *params[1] = { param };
  dyn_world *w = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new(name, params, 1, &set, &w, msg, sizeof msg), DYN_OK);
  return w;
}

/* What a callback saw: the worst disagreement of a column with the field
 * it names, per step. */
typedef struct seen {
  dyn_metric_set all;
  int steps, bad, cone_numbers, cone_nans;
  const char *bad_name;
} seen;

/* v (column c) against the metrics, the residuals r and the run's record. */
static int agrees(const char *c, const dyn_metric_value *v, const dyn_run_step *st,
                  const slv_residuals *r, int cones) {
  const dyn_world_metrics *m = &st->m;
  if (!strcmp(c, "step")) return v->x == (double)m->step;
  if (!strcmp(c, "t")) return v->x == m->t;
  if (!strcmp(c, "kinetic")) return v->x == m->kinetic;
  if (!strcmp(c, "potential")) return v->x == m->potential;
  if (!strcmp(c, "energy")) return v->x == m->energy;
  if (!strcmp(c, "rel_drift"))
    return !v->none && v->x == (m->energy - st->energy0) / st->drift_scale;
  if (!strcmp(c, "max_penetration")) return v->x == m->max_penetration;
  if (!strcmp(c, "contacts")) return v->x == m->contacts;
  if (!strcmp(c, "rows")) return v->x == m->rows;
  if (!strcmp(c, "iterations")) return v->x == m->iterations;
  if (!strcmp(c, "res_nat_inf")) return v->x == m->res_nat_inf;
  if (!strcmp(c, "compl")) return v->x == r->compl ;
  if (!strcmp(c, "infeas")) return v->x == r->infeas;
  if (!strcmp(c, "solve_time_s")) return v->x == m->solve_time_s;
  if (!strcmp(c, "collide_time_s")) return v->x == m->collide_time_s;
  if (!strcmp(c, "step_time_s")) return v->x == m->step_time_s;
  if (!strcmp(c, "status"))
    return v->x == (double)m->status && !strcmp(v->text, slv_status_str(m->status));
  if (!strcmp(c, "fallback_status")) return v->x == (double)m->fallback_status;
  if (!strcmp(c, "joint_error")) return v->x == m->joint_error;
  if (!strcmp(c, "failed")) return v->x == m->failed;
  if (!strcmp(c, "applied")) return v->x == (double)m->applied && !strcmp(v->text, st->applied);
  if (!strcmp(c, "res_applied")) return v->x == m->res_applied;
  if (!strcmp(c, "energy_excess")) return v->x == m->energy_excess;
  if (!strcmp(c, "failed_integrator")) return v->x == m->failed_integrator;
  if (!strcmp(c, "integrator_excess"))
    return isnan(m->integrator_excess) ? v->none : !v->none && v->x == m->integrator_excess;
  if (!strcmp(c, "stage_time_s")) return v->stages == m->stage_time_s;
  if (!strcmp(c, "signorini")) return cones ? v->x == r->contact.signorini : isnan(v->x);
  if (!strcmp(c, "conic_compl")) return cones ? v->x == r->contact.conic_compl : isnan(v->x);
  if (!strcmp(c, "ncp_compl")) return cones ? v->x == r->contact.ncp_compl : isnan(v->x);
  if (!strcmp(c, "dual_feas")) return cones ? v->x == r->contact.dual_feas : isnan(v->x);
  if (!strcmp(c, "primal_feas")) return cones ? v->x == r->contact.primal_feas : isnan(v->x);
  if (!strcmp(c, "mdp_gap")) return cones ? v->x == r->contact.mdp_gap : isnan(v->x);
  return 0; /* a column this test does not know */
}

static int check_step(void *ctx, dyn_world *w, const dyn_run_step *st) {
  seen *s = ctx;
  if (st->err != DYN_OK) return 1;
  dyn_metric_value v[DYN_METRIC_SET_MAX];
  dyn_metric_values(&s->all, w, st, v);
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  slv_residuals r;
  memset(&r, 0, sizeof r);
  if (p.n > 0 && x) r = slv_residual(&p, x, NULL); /* no scratch: a pass per slice */
  int cones = p.n > 0 && p.ncones > 0;
  for (int i = 0; i < s->all.n; i++) {
    const char *c = dyn_metric_at(s->all.col[i])->name;
    if (!agrees(c, &v[i], st, &r, cones) && !s->bad) {
      s->bad = 1;
      s->bad_name = c;
    }
    if (!strcmp(c, "signorini")) {
      s->cone_numbers += isfinite(v[i].x) != 0;
      s->cone_nans += isnan(v[i].x) != 0;
    }
  }
  s->steps++;
  return 0;
}

/* Every column of the table at once: Python's and the rows' own. */
static void all_columns(seen *s) {
  memset(s, 0, sizeof *s);
  CU_ASSERT_EQUAL_FATAL(
      dyn_metric_set_init(&s->all, DYN_METRICS_ARRAYS ",rel_drift,compl,infeas", NULL, 0), DYN_OK);
  CU_ASSERT_EQUAL(s->all.n, dyn_metric_count());
}

static void test_values_box(void) {
  dyn_world *w = scene("pyramid", "layers=2", "pgs", DYN_FRICTION_BOX, DYN_STORAGE_AUTO);
  seen s;
  all_columns(&s);
  CU_ASSERT_EQUAL(dyn_world_run(w, 12, check_step, &s, NULL), 0);
  CU_ASSERT_EQUAL(s.steps, 12);
  CU_ASSERT_EQUAL(s.bad, 0);
  if (s.bad) printf("\n  column %s disagrees\n", s.bad_name);
  CU_ASSERT_EQUAL(s.cone_numbers, 0);
  CU_ASSERT_EQUAL(s.cone_nans, 12);
  dyn_world_free(w);
}

static void test_values_cone(void) {
  dyn_world *w = scene("pyramid", "layers=2", "nsgs", DYN_FRICTION_CONE, DYN_STORAGE_AUTO);
  seen s;
  all_columns(&s);
  CU_ASSERT_EQUAL(dyn_world_run(w, 12, check_step, &s, NULL), 0);
  CU_ASSERT_EQUAL(s.bad, 0);
  if (s.bad) printf("\n  column %s disagrees\n", s.bad_name);
  CU_ASSERT(s.cone_numbers > 0); /* the pyramid touches down within 12 steps */
  dyn_world_free(w);
}

typedef struct grows_seen {
  seen s;
  long grows_after_first;
  int changed;
} grows_seen;

static int check_grows(void *ctx, dyn_world *w, const dyn_run_step *st) {
  grows_seen *g = ctx;
  int rc = check_step(&g->s, w, st);
  if (g->s.steps == 3) g->grows_after_first = dyn_world_grow_count(w);
  if (g->s.steps > 3 && dyn_world_grow_count(w) != g->grows_after_first) g->changed = 1;
  return rc;
}

static void test_factored_residual(void) {
  dyn_world *w = scene("pile", "n=300", "pgs", DYN_FRICTION_BOX, DYN_STORAGE_FACTORED);
  grows_seen g;
  all_columns(&g.s);
  g.changed = 0;
  /* the pile falls for its first steps: run it until it touches, then check */
  CU_ASSERT_EQUAL_FATAL(dyn_world_run(w, 40, NULL, NULL, NULL), 0);
  CU_ASSERT_EQUAL(dyn_world_run(w, 6, check_grows, &g, NULL), 0);
  slv_problem p;
  const double *x;
  dyn_world_last_problem(w, &p, &x);
  CU_ASSERT_EQUAL(p.storage, SLV_FACTORED);
  CU_ASSERT(p.nblk > 256);
  CU_ASSERT_EQUAL(g.s.bad, 0);
  if (g.s.bad) printf("\n  column %s disagrees\n", g.s.bad_name);
  CU_ASSERT_EQUAL(g.changed, 0);
  dyn_world_free(w);
}

static void test_drift_none(void) {
  dyn_run_step st;
  memset(&st, 0, sizeof st);
  st.m.energy = 5;
  st.energy0 = 1;
  st.drift_scale = 0;
  dyn_metric_set s;
  CU_ASSERT_EQUAL_FATAL(dyn_metric_set_init(&s, "rel_drift,energy", NULL, 0), DYN_OK);
  dyn_metric_value v[2];
  dyn_metric_values(&s, NULL, &st, v);
  CU_ASSERT_EQUAL(v[0].none, 1);
  CU_ASSERT_EQUAL(v[1].none, 0);
  char buf[32] = "x";
  dyn_metric_text(dyn_metric_at(s.col[0]), &v[0], buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "");
  st.drift_scale = 8; /* (5 - 1) / 8 */
  dyn_metric_values(&s, NULL, &st, v);
  CU_ASSERT_EQUAL(v[0].none, 0);
  CU_ASSERT_EQUAL(v[0].x, 0.5);
}

static void test_text(void) {
  char buf[128];
  dyn_metric_value v;
  memset(&v, 0, sizeof v);
  v.x = 42;
  dyn_metric_text(dyn_metric_at(dyn_metric_find("contacts")), &v, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "42");
  v.x = 0.1;
  dyn_metric_text(dyn_metric_at(dyn_metric_find("energy")), &v, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "0.10000000000000001");
  v.x = 1.23456789e-5;
  dyn_metric_text(dyn_metric_at(dyn_metric_find("solve_time_s")), &v, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "1.23457e-05");
  v.x = SLV_MAX_ITER;
  v.text = slv_status_str(SLV_MAX_ITER);
  dyn_metric_text(dyn_metric_at(dyn_metric_find("status")), &v, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "max_iter");
  double stages[DYN_WORLD_STAGES] = { 1, 2, 3, 4, 5, 6, 7, 8, 0.5 };
  memset(&v, 0, sizeof v);
  v.stages = stages;
  dyn_metric_text(dyn_metric_at(dyn_metric_find("stage_time_s")), &v, buf, sizeof buf);
  CU_ASSERT_STRING_EQUAL(buf, "1;2;3;4;5;6;7;8;0.5");
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("the metric table", NULL, NULL);
  CU_add_test(s, "names, lists", test_table);
  CU_add_test(s, "values of a run, box friction", test_values_box);
  CU_add_test(s, "values of a run, Coulomb cones", test_values_cone);
  CU_add_test(s, "a factored problem's residual columns", test_factored_residual);
  CU_add_test(s, "the drift with no scale", test_drift_none);
  CU_add_test(s, "the CSV text", test_text);
  return tst_run();
}
