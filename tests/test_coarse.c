/*
 * test_coarse.c -- the level coarse correction of the world step
 * (libdynamics/coarse.c; docs/dynamics.md, "Coarse correction").
 *
 * - Exactness on a hand-derived column: four 0.2 m cubes (8 kg) resting
 *   face to face on the floor, at rest, every contact row active.  From
 *   any positive start, one correction gives the exact impulses: the
 *   contacts under cube k carry (4 - k) m g h in all, no friction, and
 *   w = A x + b vanishes on every row (the column stays at rest).
 * - A ten-cube column at 10 sweeps a step: without corrections the
 *   lower contacts never get the weight above them and the column creeps
 *   (a cube 7 cm from rest after 2 s); with the default two every cube
 *   stays within 1 mm (the 1 mm gaps of the scene's start closed).
 * - The gate (dyn_coarse_deep): by hand, and in the default world, which
 *   corrects an 8-layer pyramid at 10 sweeps and leaves the same pyramid
 *   and a pile between walls alone at 50 (the same bits as off).
 * - The setting by name, its range, and the solvers it leaves alone.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"
#include "world_data.h"

static const double S = 0.2, RHO = 1000.0, G = 9.81;

static dyn_world *column(int n, const dyn_world_settings *s) {
  char p[32], msg[256] = "";
  snprintf(p, sizeof p, "n=%d", n);
  const char *params[1] = { p };
  dyn_world *w = NULL;
  dyn_err e = dyn_scene_new("stack", params, 1, s, &w, msg, sizeof msg);
  CU_ASSERT_EQUAL(e, DYN_OK);
  if (e != DYN_OK) printf("dyn_scene_new(stack): %s\n", msg);
  return w;
}

/* w = A x + b of the assembled step, from its velocity form (an
 * independent evaluation: u = ufree + M^-1 J^T x, w = J u - rhs + cfm x). */
static void residual(const dyn_energy_form *ef, const dyn_velocity_form *vf, const double *x,
                     double *r) {
  double u[6 * 8];
  CU_ASSERT_FATAL(vf->nb <= 8);
  memcpy(u, vf->ufree, 6 * (size_t)vf->nb * sizeof *u);
  for (int i = 0; i < vf->nrows; i++)
    for (int k = 0; k < 2; k++) {
      int b = vf->rbody[2 * i + k];
      if (b < 0) continue;
      const double *J = vf->J + 12 * i + 6 * k, *Mi = vf->Minv + 10 * b;
      for (int a = 0; a < 3; a++) u[6 * b + a] += Mi[0] * J[a] * x[i];
      for (int a = 0; a < 3; a++)
        u[6 * b + 3 + a] +=
            (Mi[1 + 3 * a] * J[3] + Mi[2 + 3 * a] * J[4] + Mi[3 + 3 * a] * J[5]) * x[i];
    }
  for (int i = 0; i < vf->nrows; i++) {
    r[i] = -ef->rhs[i] + vf->cfm[i] * x[i];
    for (int k = 0; k < 2; k++) {
      int b = vf->rbody[2 * i + k];
      if (b < 0) continue;
      for (int a = 0; a < 6; a++) r[i] += vf->J[12 * i + 6 * k + a] * u[6 * b + a];
    }
  }
}

static void test_column_exact(void) {
  enum { N = 4 };
  dyn_world *w = column(N, NULL);
  if (!w) return;
  /* face to face at rest: no gap, no depth, so every rhs is 0 */
  for (int i = 0; i < w->nb; i++)
    if (!w->bodies.c[i].is_static) w->bodies.s[i].r.z = S / 2 + S * i;
  dyn_step st;
  CU_ASSERT_EQUAL_FATAL(dyn_step_begin(w, &st, NULL), DYN_OK);
  for (int i = DYN_STAGE_PREPARE; i <= DYN_STAGE_ASSEMBLE; i++)
    CU_ASSERT_EQUAL_FATAL(dyn_step_stage(&st, i), DYN_OK);
  CU_ASSERT_EQUAL_FATAL(st.nc, 4 * N);
  dyn_velocity_form vf;
  dyn_energy_form ef;
  CU_ASSERT_FATAL(dyn_system_velocity_form(st.sys, &vf));
  CU_ASSERT_FATAL(dyn_system_energy_form(st.sys, &ef));
  double x[4 * N * 3], r[4 * N * 3];
  CU_ASSERT_EQUAL_FATAL(w->nrows, 4 * N * 3);
  for (int i = 0; i < w->nrows; i++) x[i] = w->prob.findex[i] < 0 ? 0.01 + 0.003 * i : 0.0;
  residual(&ef, &vf, x, r);
  dyn_coarse_in in = { w->bodies, w->nb,     w->col.con.p,
                       w->nc,     w->rows.p, w->nrows,
                       w->njrows, w->rpc,    w->set.contact.friction,
                       &vf,       &w->prob };
  int levels = 0;
  CU_ASSERT_EQUAL(dyn_coarse_levels(&w->coarse, &in, &levels, &w->grows), DYN_OK);
  CU_ASSERT_EQUAL(levels, N);
  dyn_coarse_interfaces(&w->coarse, &in);
  CU_ASSERT_EQUAL(dyn_coarse_correct(&w->coarse, &in, x, r), 1);
  double m = RHO * S * S * S, h = w->set.dt, unit = m * G * h, load[N] = { 0 };
  for (int k = 0; k < w->nc; k++) {
    const dyn_contact *c = &w->col.con.p[k];
    int upper = w->bodies.c[c->a].is_static                     ? c->b
                : w->bodies.c[c->b].is_static                   ? c->a
                : w->bodies.s[c->a].r.z > w->bodies.s[c->b].r.z ? c->a
                                                                : c->b;
    int level = (int)lround((w->bodies.s[upper].r.z - S / 2) / S);
    load[level] += x[w->njrows + k * w->rpc];
    for (int f = 1; f < w->rpc; f++) TST_CLOSE(x[w->njrows + k * w->rpc + f], 0.0, 1e-9 * unit, 0);
  }
  for (int l = 0; l < N; l++) TST_CLOSE(load[l], (N - l) * unit, 0, 1e-8);
  residual(&ef, &vf, x, r);
  for (int i = 0; i < w->nrows; i++) TST_CLOSE(r[i], 0.0, 1e-9 * G * h, 0);
  dyn_world_free(w);
}

/* The largest distance of a cube from its rest position (face to face on
 * the floor, x = y = 0) after K steps. */
static double column_moves(int corrections, int sweeps, long K) {
  dyn_world_settings s = dyn_world_settings_default();
  s.coarse_corrections = corrections;
  s.opt.max_iter = sweeps;
  dyn_world *w = column(10, &s);
  if (!w) return NAN;
  for (long k = 0; k < K; k++)
    if (dyn_world_step(w, NULL) != DYN_OK) {
      printf("step %ld: %s\n", k + 1, dyn_world_message(w));
      dyn_world_free(w);
      return NAN;
    }
  double worst = 0;
  for (int i = 0, k = 0; i < w->nb; i++) {
    const dyn_body_state *b = &w->bodies.s[i];
    if (w->bodies.c[i].is_static) continue;
    dyn_v3 d = dyn_v3_make(b->r.x, b->r.y, b->r.z - (S / 2 + S * k++));
    worst = fmax(worst, sqrt(d.x * d.x + d.y * d.y + d.z * d.z));
  }
  dyn_world_free(w);
  return worst;
}

/* The ten-cube column has 10 levels, more than 3/4 of 10 sweeps: the
 * default world corrects it (the gate: dyn_coarse_deep). */
static void test_column_stands(void) {
  int dflt = dyn_world_settings_default().coarse_corrections;
  double off = column_moves(0, 10, 240), on = column_moves(dflt, 10, 240);
  printf("\n  ten cubes, 10 sweeps, 2 s: %.3g m from rest without, %.3g m with the default %d\n",
         off, on, dflt);
  CU_ASSERT(dflt > 0);
  CU_ASSERT(off > 0.03);
  CU_ASSERT(on < 1e-3);
}

/* K steps of scene (one parameter) under the default settings at the
 * given sweeps, with corrections (the default's) or without (0): the
 * world, kept for its levels and bodies. */
static dyn_world *scene_run(const char *scene, const char *param, int sweeps, int off, long K) {
  dyn_world_settings s = dyn_world_settings_default();
  s.opt.max_iter = sweeps;
  if (off) s.coarse_corrections = 0;
  char msg[256] = "";
  dyn_world *w = NULL;
  if (dyn_scene_new(scene, &param, 1, &s, &w, msg, sizeof msg) != DYN_OK) {
    printf("dyn_scene_new(%s): %s\n", scene, msg);
    return NULL;
  }
  for (long k = 0; k < K; k++)
    if (dyn_world_step(w, NULL) != DYN_OK) {
      printf("%s, step %ld: %s\n", scene, k + 1, dyn_world_message(w));
      dyn_world_free(w);
      return NULL;
    }
  return w;
}

/* 1 iff the two worlds' bodies are at the same places, bit for bit. */
static int same_places(const dyn_world *a, const dyn_world *b) {
  int same = a->nb == b->nb;
  for (int i = 0; same && i < a->nb; i++)
    same = memcmp(&a->bodies.s[i].r, &b->bodies.s[i].r, sizeof(dyn_v3)) == 0;
  return same;
}

/* The gate, by hand: levels > 3/4 of the sweeps. */
static void test_gate_rule(void) {
  CU_ASSERT(dyn_coarse_deep(50, 50));
  CU_ASSERT(dyn_coarse_deep(38, 50)); /* 152 > 150 */
  CU_ASSERT(!dyn_coarse_deep(37, 50));
  CU_ASSERT(!dyn_coarse_deep(30, 50));
  CU_ASSERT(dyn_coarse_deep(8, 10)); /* 32 > 30 */
  CU_ASSERT(!dyn_coarse_deep(7, 10));
  CU_ASSERT(!dyn_coarse_deep(0, 1));
}

/* The default world corrects where the gate says so and nowhere else: an
 * 8-layer pyramid (8 levels) at 10 sweeps is deep (the corrections are
 * prepared and move the boxes); the same pyramid at the default 50 sweeps
 * and a pile of 100 spheres between walls (static bodies: a few levels
 * once it has spread, at most its 11 starting layers while it falls) at
 * 50 sweeps are not, and run the same bits as with the corrections off. */
static void test_gate_world(void) {
  /* short runs (memcheck, the sanitizers): the pile falls for 40 steps,
   * still its starting layers, not deep (its 120 steps were about 40 s of
   * the memcheck stage's wall; experiments/records/2026-11-28-test-time-5.md) */
  struct {
    const char *scene, *param;
    int sweeps, deep;
    long steps, short_steps;
  } c[] = { { "pyramid", "layers=8", 10, 1, 30, 30 },
            { "pyramid", "layers=8", 50, 0, 30, 30 },
            { "pile", "n=100", 50, 0, 120, 40 } };
  for (int k = 0; k < 3; k++) {
    long steps = tst_short_runs() ? c[k].short_steps : c[k].steps;
    dyn_world *on = scene_run(c[k].scene, c[k].param, c[k].sweeps, 0, steps);
    dyn_world *off = scene_run(c[k].scene, c[k].param, c[k].sweeps, 1, steps);
    CU_ASSERT_PTR_NOT_NULL_FATAL(on);
    CU_ASSERT_PTR_NOT_NULL_FATAL(off);
    printf("\n  %s %s, %d sweeps: %d levels, corrected %d", c[k].scene, c[k].param, c[k].sweeps,
           on->coarse.nlev, on->coarse.top > 0);
    CU_ASSERT_EQUAL(dyn_coarse_deep(on->coarse.nlev, c[k].sweeps), c[k].deep);
    CU_ASSERT_EQUAL(on->coarse.top > 0, c[k].deep);
    CU_ASSERT_EQUAL(same_places(on, off), !c[k].deep);
    dyn_world_free(on);
    dyn_world_free(off);
  }
  printf("\n");
}

static void test_setting(void) {
  dyn_world_settings s = dyn_world_settings_default();
  CU_ASSERT_EQUAL(s.coarse_corrections, 2);
  char msg[256] = "";
  CU_ASSERT_EQUAL(dyn_world_settings_set(&s, "coarse_corrections", "2", msg, sizeof msg), 1);
  CU_ASSERT_EQUAL(s.coarse_corrections, 2);
  CU_ASSERT(dyn_world_settings_set(&s, "coarse-corrections", "65", msg, sizeof msg) < 0);
  CU_ASSERT_EQUAL(s.coarse_corrections, 2);
  s.coarse_corrections = -1;
  CU_ASSERT_EQUAL(dyn_world_settings_validate(&s, msg, sizeof msg), DYN_ERR_INPUT);
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "coarse_corrections"));
}

/* A solver that is not Gauss-Seidel gets its whole budget in one solve:
 * lemke's run on the column is the same with and without corrections. */
static void test_other_solvers_alone(void) {
  dyn_world_settings a = dyn_world_settings_default(), b = a;
  snprintf(a.solver, sizeof a.solver, "%s", "lemke");
  b = a;
  b.coarse_corrections = 0;
  dyn_world *wa = column(3, &a), *wb = column(3, &b);
  if (!wa || !wb) return;
  int same = 1;
  for (long k = 0; k < 30; k++) {
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(wa, NULL), DYN_OK);
    CU_ASSERT_EQUAL_FATAL(dyn_world_step(wb, NULL), DYN_OK);
  }
  for (int i = 0; i < wa->nb; i++)
    same &= memcmp(&wa->bodies.s[i].r, &wb->bodies.s[i].r, sizeof(dyn_v3)) == 0;
  CU_ASSERT(same);
  dyn_world_free(wa);
  dyn_world_free(wb);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("coarse", NULL, NULL);
  CU_add_test(s, "a resting column: one correction gives the exact impulses", test_column_exact);
  CU_add_test(s, "ten cubes at 10 sweeps: sinks without, stands with", test_column_stands);
  CU_add_test(s, "the gate: levels over 3/4 of the sweeps", test_gate_rule);
  CU_add_test(s, "the default world corrects deep stacks only", test_gate_world);
  CU_add_test(s, "the setting by name and its range", test_setting);
  CU_add_test(s, "lemke is left alone", test_other_solvers_alone);
  return tst_run();
}
