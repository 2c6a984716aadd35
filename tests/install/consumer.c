/* consumer.c -- a program outside the tree, built against the INSTALLED
 * libraries with nothing but pkg-config (tests/test_install.sh):
 *     cc $(pkg-config --cflags lcplab-io lcplab-dynamics) consumer.c \
 *        $(pkg-config --libs lcplab-io lcplab-dynamics)
 * It solves the LCP w = A x + b, A = [[2, 1], [1, 2]], b = (-5, -6), whose
 * solution has both x_i > 0, so A x = -b: x = (4/3, 7/3) (A is SPD: unique),
 * with lemke; writes it to DIR/p.lcp and reads it back (the same bits);
 * builds the scene "ball" and steps it, and a world from the model of the
 * scene "stack"; reads FILE when one is given.
 * Prints one line per check; exit 0 iff all hold.
 * usage: consumer DIR [FILE] */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <dyn_world.h>
#include <slv.h>
#include <io.h>

static int failures = 0;

static void check(int ok, const char *what) {
  printf("%s - %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) failures++;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: consumer DIR [FILE]\n");
    return 2;
  }
  char path[4096], err[512];
  io_instance *inst = io_instance_new_dense(2);
  check(inst != NULL, "io_instance_new_dense (libio)");
  if (!inst) return 1;
  const double A[4] = { 2, 1, 1, 2 }, b[2] = { -5, -6 };
  memcpy(inst->A, A, sizeof A);
  memcpy(inst->b, b, sizeof b);
  io_instance_classify(inst);
  slv_problem p = io_instance_problem(inst);
  const slv_solver *s = slv_solver_find("lemke");
  slv_options opt = slv_options_default();
  slv_workspace *ws = NULL;
  check(s && slv_workspace_new(s, 2, &opt, &ws) == SLV_CONVERGED, "lemke's workspace (libsolvers)");
  double x[2] = { 0, 0 };
  slv_result res;
  slv_status st = ws ? slv_solve(ws, &p, &opt, x, NULL, &res) : SLV_ERR_INVALID;
  check(st == SLV_CONVERGED && fabs(x[0] - 4.0 / 3) < 1e-12 && fabs(x[1] - 7.0 / 3) < 1e-12,
        "lemke solves the 2 x 2 LCP: x = (4/3, 7/3)");
  slv_workspace_free(ws);

  snprintf(path, sizeof path, "%s/p.lcp", argv[1]);
  io_instance *back = NULL;
  check(io_write(path, IO_FMT_AUTO, inst, err, sizeof err) == SLV_CONVERGED &&
            io_read(path, IO_FMT_AUTO, &back, err, sizeof err) == SLV_CONVERGED && back &&
            memcmp(back->A, A, sizeof A) == 0 && memcmp(back->b, b, sizeof b) == 0,
        "io_write then io_read: the same bits");
  io_instance_free(back);
  io_instance_free(inst);

  dyn_world *w = NULL;
  char msg[256];
  int stepped = dyn_scene_new("ball", NULL, 0, NULL, &w, msg, sizeof msg) == DYN_OK;
  dyn_world_metrics m;
  for (int k = 0; stepped && k < 10; k++) stepped = dyn_world_step(w, &m) == DYN_OK;
  check(stepped && dyn_world_step_count(w) == 10, "the scene 'ball', 10 steps (libdynamics)");
  dyn_world_free(w);

  dyn_model *mod = NULL;
  dyn_world_settings set = dyn_world_settings_default();
  w = NULL;
  int built = dyn_scene_model("stack", NULL, 0, &mod, msg, sizeof msg) == DYN_OK &&
              dyn_world_new_from_model(mod, &set, &w, msg, sizeof msg) == DYN_OK &&
              dyn_world_step(w, NULL) == DYN_OK;
  check(built && dyn_world_body_count(w) == dyn_model_body_count(mod),
        "the model of 'stack', a world from it, one step (libdynamics)");
  dyn_world_free(w);
  dyn_model_free(mod);

  if (argc > 2) {
    io_instance *f = NULL;
    st = io_read(argv[2], IO_FMT_AUTO, &f, err, sizeof err);
    if (st) printf("  %s\n", err);
    check(st == SLV_CONVERGED && f && f->n > 0, "io_read of the given file");
    io_instance_free(f);
  }
  return failures ? 1 : 0;
}
