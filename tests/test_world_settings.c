/* test_world_settings.c -- a world's settings by name
 * (libdynamics/world_settings_names.c, dyn_world_settings_set), the one
 * parser behind `lcplab simulate --KEY VALUE`, experiment files' scene
 * lines and Python's World(**settings).
 *
 * What is checked, and how: every setting set from text lands in its own
 * field and no other (the settings struct compared with the defaults
 * field by field); each kind's
 * accepted and refused texts (numbers, A/B time steps, ranges, enum names
 * and numbers, on/off, registered solvers, X,Y,Z); dashes for underscores;
 * an unknown key leaves the settings untouched and says 0; and every key
 * dyn_world_settings_key lists is a setting the world then accepts
 * (dyn_world_settings_validate on the defaults changed by it); dt and
 * gravity given by name override a scene model's, the others take the
 * model's (dyn_world_settings_for_model, hand-derived values).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "dyn_world.h"

static int set(dyn_world_settings *s, const char *k, const char *v) {
  char err[640] = "";
  int r = dyn_world_settings_set(s, k, v, err, sizeof err);
  if (r < 0) CU_ASSERT(strstr(err, v) != NULL || strstr(err, "unknown solver") != NULL);
  return r;
}

/* 1 when every setting of a and b is the same (field by field: a struct's
 * padding bytes are not values, so memcmp would read undefined bytes). */
static int same(const dyn_world_settings *a, const dyn_world_settings *b) {
  const dyn_contact_params *p = &a->contact, *q = &b->contact;
  return a->dt == b->dt && a->gravity.x == b->gravity.x && a->gravity.y == b->gravity.y &&
         a->gravity.z == b->gravity.z && a->integrator == b->integrator && a->gyro == b->gyro &&
         a->orient == b->orient && p->friction == q->friction && p->mu == q->mu &&
         p->eta == q->eta && p->restitution == q->restitution &&
         p->rest_threshold == q->rest_threshold && p->k_erp == q->k_erp && p->slop == q->slop &&
         p->cfm == q->cfm && p->max_correct_vel == q->max_correct_vel && a->margin == b->margin &&
         !strcmp(a->solver, b->solver) && a->opt.max_iter == b->opt.max_iter &&
         a->opt.max_pivots == b->opt.max_pivots && a->opt.tol == b->opt.tol &&
         a->opt.time_limit == b->opt.time_limit && a->opt.omega == b->opt.omega &&
         a->opt.threads == b->opt.threads && a->warm_start == b->warm_start &&
         a->warm_factor == b->warm_factor && a->storage == b->storage &&
         a->dense_max_rows == b->dense_max_rows && a->cone_law == b->cone_law &&
         a->contact_order == b->contact_order && a->on_failure == b->on_failure &&
         !strcmp(a->fallback_solver, b->fallback_solver) &&
         a->fallback_max_iter == b->fallback_max_iter &&
         a->coarse_corrections == b->coarse_corrections && a->islands == b->islands;
}

static void test_numbers(void) {
  dyn_world_settings s = dyn_world_settings_default();
  CU_ASSERT_EQUAL(set(&s, "dt", "1/240"), 1);
  CU_ASSERT_DOUBLE_EQUAL(s.dt, 1.0 / 240.0, 0.0);
  CU_ASSERT_EQUAL(set(&s, "dt", "0.005"), 1);
  CU_ASSERT_EQUAL(s.dt, 0.005);
  CU_ASSERT_EQUAL(set(&s, "dt", "0"), -1);
  CU_ASSERT_EQUAL(set(&s, "dt", "1/0"), -1);
  CU_ASSERT_EQUAL(set(&s, "dt", "nan"), -1);
  CU_ASSERT_EQUAL(set(&s, "dt", "1e-3x"), -1);
  CU_ASSERT_EQUAL(s.dt, 0.005); /* a refused value leaves the field */
  CU_ASSERT_EQUAL(set(&s, "tol", "1e-10"), 1);
  CU_ASSERT_EQUAL(s.opt.tol, 1e-10);
  CU_ASSERT_EQUAL(set(&s, "tol", "-1"), -1);
  CU_ASSERT_EQUAL(set(&s, "warm_factor", "0.7"), 1);
  CU_ASSERT_EQUAL(s.warm_factor, 0.7);
  CU_ASSERT_EQUAL(set(&s, "warm-factor", "1.5"), -1);
  CU_ASSERT_EQUAL(set(&s, "margin", "0"), 1);
  CU_ASSERT_EQUAL(s.margin, 0.0);
  CU_ASSERT_EQUAL(set(&s, "slop", "-0.001"), -1);
  CU_ASSERT_EQUAL(set(&s, "omega", "-2"), 1); /* any finite number: the options judge it */
  CU_ASSERT_EQUAL(s.opt.omega, -2.0);
  CU_ASSERT_EQUAL(set(&s, "gravity", "0,-9.81,0"), 1);
  CU_ASSERT(s.gravity.x == 0 && s.gravity.y == -9.81 && s.gravity.z == 0);
  CU_ASSERT_EQUAL(set(&s, "gravity", "0,1"), -1);
  CU_ASSERT_EQUAL(set(&s, "gravity", "0,1,2,3"), -1);
  CU_ASSERT_EQUAL(set(&s, "k_erp", "0.5"), 1);
  CU_ASSERT_EQUAL(s.contact.k_erp, 0.5);
}

static void test_integers_and_names(void) {
  dyn_world_settings s = dyn_world_settings_default();
  CU_ASSERT_EQUAL(set(&s, "max-iter", "200"), 1);
  CU_ASSERT_EQUAL(s.opt.max_iter, 200);
  CU_ASSERT_EQUAL(set(&s, "max_iter", "0"), -1);
  CU_ASSERT_EQUAL(set(&s, "max_iter", "2.5"), -1);
  CU_ASSERT_EQUAL(set(&s, "eta", "2"), -1);
  CU_ASSERT_EQUAL(set(&s, "eta", "8"), 1);
  CU_ASSERT_EQUAL(s.contact.eta, 8);
  CU_ASSERT_EQUAL(set(&s, "threads", "257"), -1);
  CU_ASSERT_EQUAL(set(&s, "friction", "cone"), 1);
  CU_ASSERT_EQUAL(s.contact.friction, DYN_FRICTION_CONE);
  CU_ASSERT_EQUAL(set(&s, "friction", "1"), 1); /* its number */
  CU_ASSERT_EQUAL(s.contact.friction, DYN_FRICTION_BOX);
  CU_ASSERT_EQUAL(set(&s, "friction", "4"), -1);
  CU_ASSERT_EQUAL(set(&s, "friction", "Cone"), -1);
  CU_ASSERT_EQUAL(set(&s, "contact_order", "top_down"), 1);
  CU_ASSERT_EQUAL(s.contact_order, DYN_ORDER_TOP_DOWN);
  CU_ASSERT_EQUAL(set(&s, "on-failure", "stop"), 1);
  CU_ASSERT_EQUAL(s.on_failure, DYN_ON_FAILURE_STOP);
  CU_ASSERT_EQUAL(set(&s, "warm_start", "off"), 1);
  CU_ASSERT_EQUAL(s.warm_start, 0);
  CU_ASSERT_EQUAL(set(&s, "warm_start", "true"), 1);
  CU_ASSERT_EQUAL(s.warm_start, 1);
  CU_ASSERT_EQUAL(set(&s, "warm_start", "maybe"), -1);
  CU_ASSERT_EQUAL(set(&s, "solver", "lemke"), 1);
  CU_ASSERT_STRING_EQUAL(s.solver, "lemke");
  CU_ASSERT_EQUAL(set(&s, "solver", "nosuch"), -1);
  CU_ASSERT_STRING_EQUAL(s.solver, "lemke");
  CU_ASSERT_EQUAL(set(&s, "fallback_solver", "nsgs"), 1);
  CU_ASSERT_STRING_EQUAL(s.fallback_solver, "nsgs");
  CU_ASSERT_STRING_EQUAL(dyn_world_settings_enum_name("friction", 3), "cone");
  CU_ASSERT_PTR_NULL(dyn_world_settings_enum_name("friction", 4));
  CU_ASSERT_PTR_NULL(dyn_world_settings_enum_name("dt", 0));
}

static void test_unknown_key(void) {
  dyn_world_settings s = dyn_world_settings_default(), d = s;
  char err[64] = "";
  CU_ASSERT_EQUAL(dyn_world_settings_set(&s, "scene", "pile", err, sizeof err), 0);
  CU_ASSERT_EQUAL(dyn_world_settings_set(&s, "max__iter", "3", err, sizeof err), 0);
  CU_ASSERT_EQUAL(dyn_world_settings_set(&s, NULL, "3", err, sizeof err), 0);
  CU_ASSERT(same(&s, &d));
  CU_ASSERT_EQUAL(dyn_world_settings_is_key("max-pivots"), 1);
  CU_ASSERT_EQUAL(dyn_world_settings_is_key("param"), 0);
}

/* A value each key takes, different from the default where it can be. */
static const char *sample(const char *key) {
  static const char *const kv[][2] = {
    { "dt", "1/240" },
    { "gravity", "0,0,-1" },
    { "integrator", "verlet" },
    { "gyro", "none" },
    { "orient", "linear" },
    { "friction", "cone" },
    { "eta", "6" },
    { "k_erp", "0.1" },
    { "slop", "0" },
    { "cfm", "1e-6" },
    { "max_correct_vel", "2" },
    { "margin", "0.001" },
    { "solver", "nsgs" },
    { "max_iter", "77" },
    { "max_pivots", "500" },
    { "tol", "1e-6" },
    { "time_limit", "5" },
    { "omega", "1" },
    { "threads", "2" },
    { "warm_start", "off" },
    { "warm_factor", "0.5" },
    { "storage", "csr" },
    { "dense_max_rows", "10" },
    { "cone_law", "associated" },
    { "contact_order", "top-down" },
    { "on_failure", "best" },
    { "fallback_solver", "pgs" },
    { "fallback_max_iter", "9" },
    { "coarse_corrections", "4" },
    { "islands", "on" },
  };
  for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k++)
    if (!strcmp(kv[k][0], key)) return kv[k][1];
  return NULL;
}

static void test_every_key(void) {
  int n = 0;
  for (const char *k; (k = dyn_world_settings_key(n)) != NULL; n++) {
    const char *v = sample(k);
    CU_ASSERT_PTR_NOT_NULL(v);
    if (!v) {
      printf("\n  no sample value for %s", k);
      continue;
    }
    dyn_world_settings s = dyn_world_settings_default(), d = s;
    char err[640] = "", msg[512] = "";
    CU_ASSERT_EQUAL(dyn_world_settings_set(&s, k, v, err, sizeof err), 1);
    CU_ASSERT(!same(&s, &d));
    CU_ASSERT_EQUAL(dyn_world_settings_validate(&s, msg, sizeof msg), DYN_OK);
  }
  CU_ASSERT_EQUAL(n, 30);
}

/* The settings a model also holds (dyn_world_settings_for_model): the
 * ball scene's model with gravity (0, 0, -3) and rest_threshold_steps 2
 * (dyn_scene_model: the ball's), a file timestep of 0.01.  Expected by
 * hand: the model's gravity and the timestep unless given; the restitution
 * threshold 2 |g| dt at the run's g and dt; the world runs the resolved
 * values and its own model copy says them, the caller's model unchanged. */
static void test_given_over_model(void) {
  dyn_model *m = NULL;
  char msg[512] = "", err[256] = "";
  CU_ASSERT_FATAL(dyn_scene_model("ball", NULL, 0, &m, msg, sizeof msg) == DYN_OK);
  dyn_model_options o = dyn_model_get_options(m);
  CU_ASSERT_EQUAL(o.rest_threshold, 0.0);
  CU_ASSERT_EQUAL(o.rest_threshold_steps, 2.0);
  o.gravity = dyn_v3_make(0.0, 0.0, -3.0);
  CU_ASSERT(dyn_model_set_options(m, &o, msg, sizeof msg) == DYN_OK);
  dyn_world_settings d = dyn_world_settings_default(), s = d;
  dyn_world_settings r = dyn_world_settings_for_model(&d, m, 0.01);
  CU_ASSERT(r.gravity.z == -3.0 && r.dt == 0.01 && r.given == 0u);
  CU_ASSERT_DOUBLE_EQUAL(r.contact.rest_threshold, 2.0 * 3.0 * 0.01, 1e-15);
  r = dyn_world_settings_for_model(&d, m, 0.0); /* no file timestep: the settings' dt */
  CU_ASSERT(r.dt == d.dt);
  CU_ASSERT_EQUAL(dyn_world_settings_set(&s, "gravity", "0,0,-1.62", err, sizeof err), 1);
  CU_ASSERT(dyn_world_settings_overrides(&s, "gravity") && !dyn_world_settings_overrides(&s, "dt"));
  CU_ASSERT(!dyn_world_settings_overrides(&s, "margin") && !dyn_world_settings_overrides(&s, "x"));
  r = dyn_world_settings_for_model(&s, m, 0.01);
  CU_ASSERT(r.gravity.z == -1.62 && r.dt == 0.01);
  CU_ASSERT_EQUAL(dyn_world_settings_set(&s, "dt", "1/240", err, sizeof err), 1);
  CU_ASSERT(dyn_world_settings_overrides(&s, "dt"));
  r = dyn_world_settings_for_model(&s, m, 0.01);
  CU_ASSERT(r.gravity.z == -1.62 && r.dt == 1.0 / 240.0);
  CU_ASSERT_DOUBLE_EQUAL(r.contact.rest_threshold, 2.0 * 1.62 / 240.0, 1e-15);
  dyn_world *w = NULL;
  CU_ASSERT_FATAL(dyn_world_new_from_model(m, &s, &w, msg, sizeof msg) == DYN_OK);
  CU_ASSERT(dyn_world_get_settings(w)->gravity.z == -1.62);
  /* one owner: the world's model says the run's gravity (a copy of m with
   * the override), m keeps its own and is never written */
  CU_ASSERT(dyn_world_model(w) != m);
  CU_ASSERT(dyn_model_get_options(dyn_world_model(w)).gravity.z == -1.62);
  CU_ASSERT(dyn_model_get_options(m).gravity.z == -3.0);
  /* a gravity other than the model's between steps is refused, named */
  dyn_world_settings g = *dyn_world_get_settings(w);
  g.gravity.z = -9.0;
  CU_ASSERT_EQUAL(dyn_world_set_settings(w, &g), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_world_message(w), "gravity"));
  CU_ASSERT(dyn_world_get_settings(w)->gravity.z == -1.62);
  g.gravity.z = -1.62; /* the model's: taken */
  g.margin = 0.002;
  CU_ASSERT_EQUAL(dyn_world_set_settings(w, &g), DYN_OK);
  /* the coordinates are fixed when the world is built; a value out of the
   * enum is refused, named */
  dyn_world_settings c = *dyn_world_get_settings(w);
  c.coordinates = DYN_COORDINATES_REDUCED;
  CU_ASSERT_EQUAL(dyn_world_set_settings(w, &c), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(dyn_world_message(w), "coordinates"));
  CU_ASSERT_EQUAL(dyn_world_get_settings(w)->coordinates, DYN_COORDINATES_MAXIMAL);
  c.coordinates = (dyn_coordinates)7;
  CU_ASSERT_EQUAL(dyn_world_settings_validate(&c, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "coordinates=7"));
  dyn_world_free(w);
  CU_ASSERT_FATAL(dyn_world_new_from_model(m, &d, &w, msg, sizeof msg) == DYN_OK);
  CU_ASSERT(dyn_world_get_settings(w)->gravity.z == -3.0);
  CU_ASSERT(dyn_world_model(w) == m); /* nothing given: m itself, shared */
  dyn_world_free(w);
  dyn_model_free(m);
}

/* A shape of DYN_MATERIAL_DEFAULT takes the model's first material, the
 * settings' mu only in a model without materials. */
static void test_default_material(void) {
  dyn_model *m = NULL;
  char msg[256] = "";
  CU_ASSERT_FATAL(dyn_model_new(&m) == DYN_OK);
  CU_ASSERT_EQUAL(dyn_model_default_material(m), DYN_MATERIAL_DEFAULT);
  dyn_material a = dyn_material_default();
  a.mu = 0.9;
  CU_ASSERT_EQUAL(dyn_model_add_material(m, &a, msg, sizeof msg), 0);
  CU_ASSERT_EQUAL(dyn_model_default_material(m), 0);
  CU_ASSERT_EQUAL(dyn_model_default_material(NULL), DYN_MATERIAL_DEFAULT);
  dyn_model_free(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("world settings by name", NULL, NULL);
  CU_add_test(s, "numbers, A/B, X,Y,Z", test_numbers);
  CU_add_test(s, "integers, names, on/off, solvers", test_integers_and_names);
  CU_add_test(s, "an unknown key", test_unknown_key);
  CU_add_test(s, "every key, accepted by the world", test_every_key);
  CU_add_test(s, "given dt and gravity over a model's", test_given_over_model);
  CU_add_test(s, "the default material", test_default_material);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failed ? 1 : 0;
}
