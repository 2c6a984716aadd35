/* test_world_jacobian_reduced.c -- a world in reduced coordinates: its
 * state saved and restored (dyn_world_save_state / restore: the tree's q
 * and u are the state there, libdynamics/world_state.c), and the
 * derivative of its step (dyn_world_step_jacobian in joint space,
 * libdynamics/world_jacobian_reduced.c; docs/gradients.md, "Through a world
 * step") against central finite differences of the step itself from a
 * saved state: a ragdoll on the floor (contacts, hinge and ball joints,
 * limits) and a cube on a slope (a free root: three slides and a ball),
 * sliding and sticking.
 */
#include "dyn_model.h"
#include "dyn_redmax.h"
#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"
#include "world_data.h"
#include "world_internal.h"

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
    dyn_body_get_state(&dyn_world_body_states(w)[i], out + DYN_BODY_STATE * (size_t)i);
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

/* The tangent difference of the tree's positions q1 - q0 (one per dof:
 * the header of world_jacobian_reduced.c), into out[ndof]. */
static void tangent_diff(const dyn_redmax *rm, const double *q1, const double *q0, double *out) {
  for (int b = 0; b < dyn_redmax_nbodies(rm); b++) {
    int qo, uo, kind = dyn_redmax_joint_kind(rm, b);
    dyn_redmax_offsets(rm, b, &qo, &uo);
    if (kind == DYN_RM_HINGE || kind == DYN_RM_SLIDE) out[uo] = q1[qo] - q0[qo];
    if (kind != DYN_RM_BALL) continue;
    dyn_quat a = dyn_quat_make(q0[qo], q0[qo + 1], q0[qo + 2], q0[qo + 3]);
    dyn_quat c = dyn_quat_make(q1[qo], q1[qo + 1], q1[qo + 2], q1[qo + 3]);
    dyn_quat d = dyn_quat_mul(dyn_quat_conj(a), c); /* Q1 = Q0 d */
    double sn = sqrt(d.x * d.x + d.y * d.y + d.z * d.z), ang = 2.0 * atan2(sn, d.w);
    double f = sn > 1e-300 ? ang / sn : 2.0;
    out[uo] = f * d.x, out[uo + 1] = f * d.y, out[uo + 2] = f * d.z;
  }
}

/* One step from the state in buf, the joint velocity (force = 0) or body
 * load (force = 1) k moved by e: the tree's u and q after it. */
static void step_moved(dyn_world *w, const void *buf, size_t size, int k, int force, double e,
                       double *u, double *q) {
  dyn_redmax *rm = dyn_reduced_redmax(w);
  CU_ASSERT_EQUAL_FATAL(dyn_world_restore_state(w, buf, size), DYN_OK);
  if (force) {
    dyn_body_state *b = &dyn_world_body_states(w)[k / 6];
    dyn_v3 *l = k % 6 < 3 ? &b->f_ext : &b->t_ext;
    double *x = k % 3 == 0 ? &l->x : k % 3 == 1 ? &l->y : &l->z;
    *x += e;
  } else {
    dyn_redmax_get_state(rm, q, u);
    u[k] += e;
    CU_ASSERT_EQUAL_FATAL(dyn_redmax_set_state(rm, NULL, u, NULL, 0), DYN_OK);
  }
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  dyn_redmax_get_state(rm, q, u);
}

/* The largest |J - FD| / max(1, max |FD|) of the velocities (Jv) and the
 * positions (Jq), nv x nc, inputs velocities or loads. */
static void fd_errors(dyn_world *w, const void *buf, size_t size, const double *Jv,
                      const double *Jq, int nc, int force, double *ev, double *eq) {
  dyn_redmax *rm = dyn_reduced_redmax(w);
  const int nv = dyn_redmax_ndof(rm), nq = dyn_redmax_nq(rm);
  double *up = malloc((2 * (size_t)nv + 2 * (size_t)nq + (size_t)nv) * sizeof *up);
  double *um = up + nv, *qp = um + nv, *qm = qp + nq, *dq = qm + nq, bv = 1.0, bq = 1.0;
  double *Fv = malloc(2 * (size_t)nv * nc * sizeof *Fv), *Fq = Fv + (size_t)nv * nc;
  const double e = 1e-6;
  for (int k = 0; k < nc; k++) {
    step_moved(w, buf, size, k, force, e, up, qp);
    step_moved(w, buf, size, k, force, -e, um, qm);
    tangent_diff(rm, qp, qm, dq);
    for (int r = 0; r < nv; r++) {
      Fv[(size_t)r * nc + k] = (up[r] - um[r]) / (2 * e);
      Fq[(size_t)r * nc + k] = dq[r] / (2 * e);
      bv = fmax(bv, fabs(Fv[(size_t)r * nc + k]));
      bq = fmax(bq, fabs(Fq[(size_t)r * nc + k]));
    }
  }
  *ev = *eq = 0.0;
  for (size_t i = 0; i < (size_t)nv * nc; i++) {
    *ev = fmax(*ev, fabs(Jv[i] - Fv[i]) / bv);
    *eq = fmax(*eq, fabs(Jq[i] - Fq[i]) / bq);
  }
  free(up);
  free(Fv);
}

/* warm steps, the state saved, one step, its four Jacobians against FD. */
static void check_reduced(dyn_world *w, int warm, const char *label, dyn_step_jacobian_info *in) {
  char msg[600] = "";
  for (int i = 0; i < warm; i++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  size_t size = dyn_world_state_size(w);
  void *buf = malloc(size);
  CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(w, buf, size), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  const int nv = dyn_world_step_jacobian_size(w), nf = dyn_world_step_jacobian_force_size(w);
  CU_ASSERT_EQUAL_FATAL(nv, dyn_redmax_ndof(dyn_reduced_redmax(w)));
  CU_ASSERT_EQUAL_FATAL(nf, 6 * dyn_world_body_count(w));
  double *Ju = malloc(2 * (size_t)nv * (nv + nf) * sizeof *Ju), *Jf = Ju + (size_t)nv * nv;
  double *Qu = Jf + (size_t)nv * nf, *Qf = Qu + (size_t)nv * nv;
  dyn_err e = dyn_world_step_jacobian(w, Ju, Jf, Qu, Qf, in, msg, sizeof msg);
  if (e != DYN_OK) printf("\n    %s: %s\n", label, msg);
  CU_ASSERT_EQUAL_FATAL(e, DYN_OK);
  double evu, equ, evf, eqf;
  fd_errors(w, buf, size, Ju, Qu, nv, 0, &evu, &equ);
  fd_errors(w, buf, size, Jf, Qf, nf, 1, &evf, &eqf);
  printf("\n    %s: %d dofs, %d rows (%d free, %d at a bound): du %.2g dq/du %.2g df %.2g dq/df "
         "%.2g",
         label, nv, in->rows, in->free, in->lower + in->upper, evu, equ, evf, eqf);
  CU_ASSERT(evu < 1e-6);
  CU_ASSERT(equ < 1e-6);
  CU_ASSERT(evf < 1e-6);
  CU_ASSERT(eqf < 1e-6);
  free(Ju);
  free(buf);
}

static void test_ragdoll_against_fd(void) {
  dyn_world *w = reduced_scene("ragdoll", NULL, "dantzig");
  dyn_step_jacobian_info in;
  check_reduced(w, 100, "ragdoll", &in);
  CU_ASSERT(in.rows > 0);
  dyn_world_free(w);
}

/* A cube on a slope (a free root: three slides and a ball; four redundant
 * contacts, the free block regularised), sliding (mu 0.3 < tan 30 deg)
 * and sticking (mu 0.9).  Lemke: dantzig's answers on these redundant
 * contacts move between the four contacts under the FD step (the impulses
 * are not unique, and the friction bounds follow the normal ones), and the
 * FD then differs from the least-norm limit by 1e-4 in the force columns. */
static void test_incline_against_fd(void) {
  dyn_step_jacobian_info in;
  dyn_world *w = reduced_scene("incline", "mu=0.3", "lemke");
  check_reduced(w, 5, "incline sliding", &in);
  CU_ASSERT(in.upper + in.lower > 4);
  CU_ASSERT(in.regularized > 0.0);
  dyn_world_free(w);
  w = reduced_scene("incline", "mu=0.9", "lemke");
  check_reduced(w, 5, "incline sticking", &in);
  dyn_world_free(w);
}

/* A maximal world's state restored into the same model's reduced world
 * (and back) is refused, naming the reduced coordinates; nothing changes. */
static void test_restore_across_coordinates_refused(void) {
  dyn_world *r = reduced_scene("pendulum", NULL, "dantzig");
  dyn_world_settings st = dyn_world_settings_default();
  dyn_model *m = NULL;
  dyn_world *x = NULL;
  char msg[512] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_model("pendulum", NULL, 0, &m, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_new_from_model(m, &st, &x, msg, sizeof msg), DYN_OK);
  dyn_world *from[2] = { x, r }, *to[2] = { r, x };
  for (int k = 0; k < 2; k++) {
    size_t size = dyn_world_state_size(from[k]);
    void *buf = malloc(size);
    CU_ASSERT_EQUAL_FATAL(dyn_world_save_state(from[k], buf, size), DYN_OK);
    double before = dyn_world_body_states(to[k])[0].r.x;
    CU_ASSERT_EQUAL(dyn_world_restore_state(to[k], buf, size), DYN_ERR_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(dyn_world_message(to[k]), "reduced coordinates"));
    CU_ASSERT_EQUAL(dyn_world_body_states(to[k])[0].r.x, before);
    free(buf);
  }
  dyn_world_free(x);
  dyn_world_free(r);
  dyn_model_free(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("reduced world: state and step jacobian", NULL, NULL);
  CU_add_test(s, "a restored state repeats the steps", test_restore_repeats_steps);
  CU_add_test(s, "a state of the other coordinates is refused",
              test_restore_across_coordinates_refused);
  CU_add_test(s, "ragdoll on the floor: step jacobian against FD", test_ragdoll_against_fd);
  CU_add_test(s, "cube on a slope (a free root), sliding and sticking: against FD",
              test_incline_against_fd);
  return tst_run();
}
