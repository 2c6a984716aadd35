/* test_world_query.c -- the queries of a world's last step (docs/scenes.md,
 * "Queries"): its contacts (dyn_world_contacts), the matrices J, M, M^-1
 * of its problem (dyn_world_step_matrices_new, libdynamics/world_query.c),
 * and the instances libio makes of a problem in memory and of a global
 * problem given by its arrays (io_instance_of_problem,
 * io_instance_of_global, libio/io_from.c).
 *
 * The case is derived by hand: a sphere of radius R = 0.5 and mass m = 2
 * (I = 2/5 m R^2 = 0.2) with its centre at c = (0.3, -0.2, 0.49) on the
 * static half-space z >= 0, stepped once from rest.  Every expected value
 * is derived in the comment above its assertion.
 */
#include "dyn_model.h"
#include "dyn_world.h"
#include "io.h"
#include "tst_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];

static int suite_init(void) { return tst_tmpdir_make(tmpdir, sizeof tmpdir, "world_query"); }
static int suite_clean(void) { return tst_tmpdir_remove(tmpdir); }

enum { BALL = 0, FLOOR = 1 };

/* The sphere (body 0, shape 0, material 0: mu 0.7) over the floor (body
 * 1, shape 1, the world's default material: the settings' mu 0.5). */
static dyn_model *ball_model(void) {
  char msg[256] = "";
  dyn_model *m = NULL;
  CU_ASSERT_EQUAL_FATAL(dyn_model_new(&m), DYN_OK);
  dyn_material mat = dyn_material_default();
  mat.mu = 0.7;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_material(m, &mat, msg, sizeof msg), 0);
  dyn_body_def b = dyn_body_def_default();
  b.mass = 2.0;
  b.I_b = dyn_inertia_sphere(2.0, 0.5);
  b.r = dyn_v3_make(0.3, -0.2, 0.49);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &b, msg, sizeof msg), BALL);
  dyn_body_def f = dyn_body_def_default();
  f.is_static = 1;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_body(m, &f, msg, sizeof msg), FLOOR);
  dyn_shape_def s = dyn_shape_def_default();
  s.body = BALL;
  s.geom.kind = DYN_SHAPE_SPHERE;
  s.geom.radius = 0.5;
  s.material = 0;
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_shape(m, &s, msg, sizeof msg), 0);
  dyn_shape_def p = dyn_shape_def_default();
  p.body = FLOOR;
  p.geom.kind = DYN_SHAPE_PLANE;
  p.geom.normal = dyn_v3_make(0.0, 0.0, 1.0);
  CU_ASSERT_EQUAL_FATAL(dyn_model_add_shape(m, &p, msg, sizeof msg), 1);
  return m;
}

static dyn_world *ball_world(dyn_friction friction, const char *solver) {
  dyn_model *m = ball_model();
  dyn_world_settings s = dyn_world_settings_default();
  s.contact.friction = friction;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  dyn_world *w = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL(dyn_world_new_from_model(m, &s, &w, msg, sizeof msg), DYN_OK);
  dyn_model_free(m);
  return w;
}

/* J's entry (i, col), 0 where the row holds none. */
static double j_at(const dyn_step_matrices *q, int i, int col) {
  for (int k = q->Jp[i]; k < q->Jp[i + 1]; k++)
    if (q->Jj[k] == col) return q->Jx[k];
  return 0.0;
}

static void test_sphere_on_plane(void) {
  dyn_world *w = ball_world(DYN_FRICTION_BOX, "pgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  char msg[256] = "";
  dyn_step_matrices *q = NULL;
  /* before any step there is nothing to query */
  CU_ASSERT_EQUAL(dyn_world_step_matrices_new(w, &q, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NULL(q);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "no step with rows"));
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);

  /* One contact, found at the state before the step: the sphere reaches
   * z = 0.49 - 0.5 = -0.01, so depth 0.01; the point midway between the
   * surfaces, (0.3, -0.2, (-0.01 + 0) / 2); the broad phase's pair (0, 1)
   * puts the sphere first, so the normal from a (sphere) to b (floor) is
   * -z; the combined material max(0.7, 0.5) = 0.7, restitution max(0, 0). */
  int nc = 0;
  const dyn_contact *c = dyn_world_contacts(w, &nc);
  CU_ASSERT_EQUAL_FATAL(nc, 1);
  CU_ASSERT_EQUAL(c[0].a, BALL);
  CU_ASSERT_EQUAL(c[0].b, FLOOR);
  CU_ASSERT_EQUAL(c[0].sa, 0);
  CU_ASSERT_EQUAL(c[0].sb, 1);
  TST_CLOSE(c[0].depth, 0.01, 1e-15, 0);
  TST_CLOSE(c[0].p.x, 0.3, 1e-15, 0);
  TST_CLOSE(c[0].p.y, -0.2, 1e-15, 0);
  TST_CLOSE(c[0].p.z, -0.005, 1e-15, 0);
  TST_CLOSE(c[0].normal.x, 0.0, 0, 0);
  TST_CLOSE(c[0].normal.y, 0.0, 0, 0);
  TST_CLOSE(c[0].normal.z, -1.0, 1e-15, 0);
  CU_ASSERT_EQUAL(c[0].mu, 0.7);
  CU_ASSERT_EQUAL(c[0].restitution, 0.0);

  CU_ASSERT_EQUAL_FATAL(dyn_world_step_matrices_new(w, &q, msg, sizeof msg), DYN_OK);
  /* box friction: the rows (n, t1, t2) of the one contact, no joints */
  CU_ASSERT_EQUAL(q->n, 3);
  CU_ASSERT_EQUAL(q->nb, 2);
  CU_ASSERT_EQUAL(q->joint_rows, 0);
  CU_ASSERT_EQUAL(q->rows_per_contact, 3);
  /* docs/contact.md, "Contact Jacobian": J_a = (-e, -(r_a x e)) on the
   * sphere (the floor is static: no columns), r_a = p - c = (0, 0, -0.495).
   * Normal e = n = (0, 0, -1): r_a x n = 0, so the row is +1 on v_z
   * (column 2) alone.  Tangents (dyn_contact_basis): the world axis with
   * the smallest |n_i| is x, t1 = x X n / |x X n| = (0, 1, 0), t2 = n X t1
   * = (1, 0, 0); r_a x t1 = (0.495, 0, 0), r_a x t2 = (0, -0.495, 0).  So
   * row t1 = -1 on v_y, -0.495 on w_x; row t2 = -1 on v_x, +0.495 on w_y. */
  CU_ASSERT_EQUAL(q->Jp[1] - q->Jp[0], 1);
  CU_ASSERT_EQUAL(j_at(q, 0, 2), 1.0);
  CU_ASSERT_EQUAL(q->Jp[2] - q->Jp[1], 2);
  CU_ASSERT_EQUAL(j_at(q, 1, 1), -1.0);
  TST_CLOSE(j_at(q, 1, 3), -0.495, 1e-15, 0);
  CU_ASSERT_EQUAL(q->Jp[3] - q->Jp[2], 2);
  CU_ASSERT_EQUAL(j_at(q, 2, 0), -1.0);
  TST_CLOSE(j_at(q, 2, 4), 0.495, 1e-15, 0);
  for (int k = 0; k < q->Jp[3]; k++) CU_ASSERT(q->Jj[k] < 6); /* the floor has none */
  /* M = diag(2 I3, 0.2 I3), M^-1 = diag(0.5 I3, 5 I3) on the sphere, zero
   * blocks on the static floor */
  for (int r = 0; r < 6; r++)
    for (int col = 0; col < 6; col++) {
      double Me = r != col ? 0.0 : r < 3 ? 2.0 : 0.2, Mie = r != col ? 0.0 : r < 3 ? 0.5 : 5.0;
      TST_CLOSE(q->M[6 * r + col], Me, 1e-14, 0);
      TST_CLOSE(q->Minv[6 * r + col], Mie, 1e-14, 0);
      CU_ASSERT_EQUAL(q->M[36 + 6 * r + col], 0.0);
      CU_ASSERT_EQUAL(q->Minv[36 + 6 * r + col], 0.0);
    }
  /* The problem's A is J M^-1 J' (cfm 0): A_nn = 1/m = 0.5; A_t1t1 =
   * A_t2t2 = 0.5 + 0.495^2 5 = 1.725125; no coupling (disjoint columns). */
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  CU_ASSERT_EQUAL_FATAL(p.storage, SLV_DENSE);
  const double Ae[9] = { 0.5, 0, 0, 0, 1.725125, 0, 0, 0, 1.725125 };
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(q->cfm[i], 0.0);
    for (int j = 0; j < 3; j++) TST_CLOSE(p.A[i + (size_t)p.lda * j], Ae[i + 3 * j], 1e-14, 0);
  }
  dyn_step_matrices_free(q);
  dyn_world_free(w);
}

/* The step's problem as an instance with its solution (x_ref), written
 * in lcplab's format and read back: the same bits. */
static void test_instance_of_problem(void) {
  dyn_world *w = ball_world(DYN_FRICTION_BOX, "lemke");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  slv_problem p;
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  io_instance *inst = io_instance_of_problem(&p, "ball", x, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
  CU_ASSERT_STRING_EQUAL(inst->kind, "findex");
  CU_ASSERT_STRING_EQUAL(inst->name, "ball");
  char path[512], err[512] = "";
  tst_tmp_path(path, sizeof path, tmpdir, "ball.lcp");
  CU_ASSERT_EQUAL(io_write(path, IO_FMT_AUTO, inst, err, sizeof err), SLV_OK);
  io_instance *back = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &back, err, sizeof err), SLV_OK);
  CU_ASSERT_EQUAL_FATAL(back->n, 3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(back->x_ref);
  slv_problem q = io_instance_problem(back);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(q.b[i], p.b[i]);
    CU_ASSERT_EQUAL(back->x_ref[i], x[i]);
    CU_ASSERT_EQUAL(q.findex[i], p.findex[i]);
    for (int j = 0; j < 3; j++) CU_ASSERT_EQUAL(q.A[i + 3 * j], p.A[i + (size_t)p.lda * j]);
  }
  io_instance_free(back);
  io_instance_free(inst);
  dyn_world_free(w);
}

/* The step's global form (cones; libsolvers' slv_global_form, the one
 * type libdynamics writes and libio reads) through io_instance_of_global:
 * its condensation H' M^-1 H, w + H' M^-1 f is the step's local A, b to
 * rounding; written as a Siconos gfc3d .dat it reads back to the same
 * bits.  Before a step the form is refused with *out zeroed and *mu NULL.
 * Bad arrays are refused naming the field. */
static void test_instance_of_global(void) {
  dyn_world *w = ball_world(DYN_FRICTION_CONE, "nsgs");
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  char err[512] = "";
  slv_global_form g = { .ndof = -1, .n = -1 };
  double *mu = (double *)&g; /* anything but NULL */
  CU_ASSERT_EQUAL(dyn_world_global_new(w, &g, &mu, err, sizeof err), DYN_ERR_INPUT);
  CU_ASSERT(g.ndof == 0 && g.n == 0 && !g.Mp && !g.Hx && !g.f && !g.w);
  CU_ASSERT_PTR_NULL(mu);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "no assembly"));
  CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, NULL), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(dyn_world_global_new(w, &g, &mu, err, sizeof err), DYN_OK);
  CU_ASSERT_EQUAL(g.ndof, 6);
  CU_ASSERT_EQUAL(g.n, 3);
  io_instance *inst = NULL;
  CU_ASSERT_EQUAL_FATAL(io_instance_of_global(&g, mu, "ball", &inst, err, sizeof err), SLV_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(inst->global);
  CU_ASSERT_EQUAL(inst->ncones, 1);
  CU_ASSERT_EQUAL(inst->cone_mu[0], 0.7);
  slv_problem p, c = io_instance_problem(inst);
  const double *x = NULL;
  dyn_world_last_problem(w, &p, &x);
  CU_ASSERT_EQUAL_FATAL(c.n, 3);
  double *Ac = malloc(9 * sizeof *Ac);
  CU_ASSERT_PTR_NOT_NULL_FATAL(Ac);
  for (int i = 0; i < 9; i++) Ac[i] = 0.0;
  if (c.storage == SLV_DENSE)
    memcpy(Ac, c.A, 9 * sizeof *Ac);
  else
    for (int i = 0; i < 3; i++)
      for (int k = c.Ap[i]; k < c.Ap[i + 1]; k++) Ac[i + 3 * c.Aj[k]] = c.Ax[k];
  for (int i = 0; i < 3; i++) {
    TST_CLOSE(c.b[i], p.b[i], 1e-14, 1e-12);
    for (int j = 0; j < 3; j++) TST_CLOSE(Ac[i + 3 * j], p.A[i + (size_t)p.lda * j], 1e-14, 1e-12);
  }
  char path[512];
  tst_tmp_path(path, sizeof path, tmpdir, "ball.global.dat");
  CU_ASSERT_EQUAL(io_write(path, IO_FMT_AUTO, inst, err, sizeof err), SLV_OK);
  io_instance *back = NULL;
  CU_ASSERT_EQUAL_FATAL(io_read(path, IO_FMT_AUTO, &back, err, sizeof err), SLV_OK);
  CU_ASSERT_PTR_NOT_NULL_FATAL(back->global);
  CU_ASSERT_EQUAL(back->global->ndof, g.ndof);
  for (int i = 0; i < g.ndof; i++) CU_ASSERT_EQUAL(back->global->f[i], g.f[i]);
  for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(back->b[i], inst->b[i]);
  io_instance_free(back);
  io_instance_free(inst);
  free(Ac);

  /* refused, naming the field: a NaN in f, mu < 0, n not 3 nc */
  double f0 = g.f[0], mu0 = mu[0];
  g.f[0] = NAN;
  CU_ASSERT_EQUAL(io_instance_of_global(&g, mu, "user", &inst, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NULL(inst);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "f[0]"));
  g.f[0] = f0;
  mu[0] = -1.0;
  CU_ASSERT_EQUAL(io_instance_of_global(&g, mu, "user", &inst, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "mu[0]"));
  mu[0] = mu0;
  g.n = 2;
  CU_ASSERT_EQUAL(io_instance_of_global(&g, mu, "user", &inst, err, sizeof err), SLV_ERR_INVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "multiple of 3"));
  slv_global_form_free(&g);
  free(mu);
  dyn_world_free(w);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("world_query", suite_init, suite_clean);
  CU_add_test(s, "a sphere on a plane: contact, J, M, M^-1, A", test_sphere_on_plane);
  CU_add_test(s, "a step's problem with its solution, as an instance", test_instance_of_problem);
  CU_add_test(s, "a global problem from its arrays, condensed and written",
              test_instance_of_global);
  return tst_run();
}
