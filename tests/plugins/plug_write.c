/* plug_write.c -- a test plugin (tests/test_plugin_writes.sh) whose
 * solvers write their read-only input, the const cast away, then return
 * x = P(0) and say converged (docs/convergence.md, "A solver that writes
 * its input"): slv_solve must say error, naming the array, and never
 * measure the x on what they wrote.
 *   plug_write_b        b = 0 (then x = 0 is exact on the written arrays)
 *   plug_write_lohi     lo = hi = 0 (x = 0 sits on both bounds)
 *   plug_write_A        A's first value doubled (dense A, CSR Ax or fJ)
 *   plug_write_pattern  A's first column index moved (CSR Aj; fblk)
 *   plug_write_mu       friction coefficients 0 (mu, cone_mu)
 *   plug_write_findex   every findex -1
 *   plug_write_late     solves nothing wrong, but keeps b and zeroes it
 *                       when its workspace is freed, after the check:
 *                       the caller must not have handed it shared arrays. */
#include "slv.h"

#include <string.h>

SLV_PLUGIN_ABI_DEFINE;

typedef struct late_state {
  double *b;
  int n;
} late_state;

static void write_values(const slv_problem *p) {
  if (p->storage == SLV_DENSE)
    ((double *)p->A)[0] *= 2;
  else if (p->storage == SLV_CSR)
    ((double *)p->Ax)[0] *= 2;
  else
    ((double *)p->fJ)[0] = ((double *)p->fJ)[0] * 2 + 1;
}

static void write_pattern(const slv_problem *p) {
  if (p->storage == SLV_CSR)
    ((int *)p->Aj)[0] = (p->Aj[0] + 1) % p->n;
  else if (p->storage == SLV_FACTORED)
    ((int *)p->fblk)[0] = (p->fblk[0] + 1) % p->nblk;
}

static void write_mu(const slv_problem *p) {
  for (int i = 0; p->findex && i < p->n; i++) ((double *)p->mu)[i] = 0;
  for (int c = 0; c < p->ncones; c++) ((double *)p->cone_mu)[c] = 0;
}

static void write_input(const char *what, const slv_problem *p) {
  for (int i = 0; i < p->n; i++) {
    if (strcmp(what, "b") == 0) ((double *)p->b)[i] = 0;
    if (strcmp(what, "lohi") == 0 && p->lo && p->hi)
      ((double *)p->lo)[i] = ((double *)p->hi)[i] = 0;
    if (strcmp(what, "findex") == 0 && p->findex) ((int *)p->findex)[i] = -1;
  }
  if (p->n > 0 && strcmp(what, "A") == 0) write_values(p);
  if (p->n > 1 && strcmp(what, "pattern") == 0) write_pattern(p);
  if (strcmp(what, "mu") == 0) write_mu(p);
}

static slv_status write_solve(void *st, slv_call *call, const slv_problem *p,
                              const slv_options *opt, double *x, double *w, void *ctx) {
  (void)opt, (void)w;
  const char *what = ctx;
  if (strcmp(what, "late") == 0) {
    late_state *ls = st;
    ls->b = (double *)p->b;
    ls->n = p->n;
  } else {
    write_input(what, p);
  }
  slv_start_point(p, x);
  slv_call_iteration(call, 1, 0.0);
  return SLV_CONVERGED;
}

static void late_free(void *st, void *ctx) {
  (void)ctx;
  late_state *ls = st;
  for (int i = 0; ls->b && i < ls->n; i++) ls->b[i] = 0;
}

slv_status slv_plugin_init(const char *origin, char *msg, size_t msglen) {
  static const char *const what[] = { "b", "lohi", "A", "pattern", "mu", "findex", "late" };
  char name[7][32];
  for (int k = 0; k < 7; k++) {
    slv_solver_def d = { 0 };
    strcpy(name[k], "plug_write_");
    strcat(name[k], what[k]);
    d.abi = SLV_SOLVER_ABI;
    d.name = name[k];
    d.summary = "writes its read-only input (a test plugin)";
    d.params = "none (it writes its input and says converged on P(0))";
    d.caps = SLV_CAP_BOX | SLV_CAP_FREE | SLV_CAP_FINDEX | SLV_CAP_CONE | SLV_CAP_SPARSE |
             SLV_CAP_FACTORED;
    d.state_size = sizeof(late_state);
    d.free = late_free;
    d.solve = write_solve;
    d.ctx = (void *)what[k];
    slv_status st = slv_solver_register(&d, origin, msg, msglen);
    if (st != SLV_OK) return st;
  }
  return SLV_OK;
}
