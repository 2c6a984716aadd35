/* test_world_threads.c -- a world step on threads (docs/dynamics.md,
 * "Threads"): the step's loops over bodies, pairs, contacts and rows split
 * over settings.opt.threads without changing what any item computes or
 * where it goes, so the bodies after each step are the same bits on 1, 2
 * and 3 threads.
 *
 * What is checked, and how:
 *   - the broad phase's two halves (dyn_sap_sort, dyn_sap_sweep): on 600
 *     random spheres and boxes between five half-spaces (a pile's walls),
 *     the sweeps of consecutive ranges cut at 1 to 4 points, put end to
 *     end, are dyn_broadphase_sap's pairs in its order (memcmp), and as a
 *     set they are dyn_broadphase_all's, with the AVX2 sweep (four
 *     candidates at a time) and with the scalar one; a sweep told to write
 *     fewer pairs than it finds writes that many and counts them all;
 *     where dyn_broadphase_sap takes its grid (a touching cube lattice,
 *     3000 random bodies, one large box among them) its pairs are the
 *     sweep's, in the sweep's order (memcmp).
 *   - whole steps: the same scene stepped with 1, 2 and 3 threads, a
 *     serial solver (pgs, nsgs: they do not split), gives the same metrics
 *     (contacts, rows, energy, penetration) every step and the same r, q,
 *     v, w of every body at the end, bit for bit (memcmp).  The scenes are
 *     large enough for every loop to split (nb, contacts, rows >=
 *     DYN_PAR_MIN, asserted): a falling pile of 1200 spheres, box friction,
 *     the broad phase's contact order; a 46-layer pyramid of 1081 boxes
 *     (four-point manifolds), the Coulomb cone, contacts top-down, Verlet.
 *     A missing or reordered item (a run closed up in the wrong order, a
 *     row written by two threads) changes the bodies.
 *   - assembly alone (dyn_system_threads_reserve, dyn_assemble): 3000 rows
 *     of a chain over 1500 bodies.  The row lists by body, built by runs
 *     on threads, give dyn_apply_impulse the same velocities bit for bit
 *     on 1, 2 and 3 threads (every body moved).  Bad rows planted at 2000
 *     and 2500 (in the second thread's run), then at 2500 alone, then at 1
 *     as well: the message names the first bad row in row order, the same
 *     text as on one thread.
 *   - the apply stage from the solver's K^T x (slv_workspace_ktx): after
 *     25 steps of a 1200-sphere pile (pgs_wide, pgs; 1 and 2 threads) the
 *     step's solve left K^T x of the x applied; the apply from it and the
 *     apply by the rows' pass give the same velocities bit for bit; x
 *     changed (a copy, or in place) or another problem view gets no t, and
 *     the apply of a changed x is the rows' pass of it.
 * Built without OpenMP every count runs on one thread and the comparisons
 * hold trivially.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

#include "dyn_assemble_internal.h"
#include "dyn_world.h"
#include "tst_body.h"
#include "tst_util.h"
#include "world_data.h"

/* ---- the broad phase's halves ----------------------------------------------------- */

static double uniform(uint64_t *s, double a, double b) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return a + (b - a) * (double)(*s >> 11) * 0x1p-53;
}

/* nb random spheres and boxes in [-1, 1]^2 x [0, 0.4], then five half-spaces. */
static int random_bodies(tst_body *bodies, int nb, uint64_t seed) {
  char msg[160];
  int n = 0;
  for (; n < nb; n++) {
    dyn_shape sh;
    memset(&sh, 0, sizeof sh);
    double r = uniform(&seed, 0.03, 0.08);
    dyn_m3 I = dyn_inertia_sphere(1.0, r);
    if (n % 3 == 2) {
      sh.kind = DYN_SHAPE_BOX;
      sh.half = dyn_v3_make(r, 0.7 * r, 1.2 * r);
      I = dyn_inertia_box(1.0, sh.half);
    } else {
      sh.kind = DYN_SHAPE_SPHERE;
      sh.radius = r;
    }
    dyn_v3 p = dyn_v3_make(uniform(&seed, -1, 1), uniform(&seed, -1, 1), uniform(&seed, 0, 0.4));
    dyn_quat q = dyn_quat_normalize(dyn_quat_make(uniform(&seed, -1, 1), uniform(&seed, -1, 1),
                                                  uniform(&seed, -1, 1), uniform(&seed, -1, 1)));
    if (tst_body_init(&bodies[n], 1.0, I, sh, p, q, msg, sizeof msg) != DYN_OK) return -1;
  }
  const double planes[5][4] = {
    { 0, 0, 1, 0 }, { 1, 0, 0, -1 }, { -1, 0, 0, -1 }, { 0, 1, 0, -1 }, { 0, -1, 0, -1 }
  };
  for (int k = 0; k < 5; k++, n++) {
    dyn_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.kind = DYN_SHAPE_PLANE;
    sh.normal = dyn_v3_make(planes[k][0], planes[k][1], planes[k][2]);
    sh.offset = planes[k][3];
    tst_body_init_static(&bodies[n], sh, dyn_v3_make(0, 0, 0), dyn_quat_identity());
  }
  return n;
}

static int pair_cmp(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* dyn_sap_sort on test bodies (their boxes go into ws). */
static size_t sap_sort(const tst_body *bodies, int nb, double margin, void *ws) {
  dyn_bodies v = tst_bodies_split(bodies, nb);
  size_t n = dyn_sap_sort(v, NULL, nb, margin, ws);
  tst_bodies_free(v);
  return n;
}

static void test_sap_halves(void) {
  enum { NB = 600, MAXP = 40000 };
  tst_body *bodies = malloc(sizeof *bodies * (NB + 5));
  int nb = random_bodies(bodies, NB, 7);
  CU_ASSERT_EQUAL_FATAL(nb, NB + 5);
  const double margin = 0.01;
  void *ws = malloc(dyn_sap_workspace_size(nb));
  int *ref = malloc(sizeof(int) * 2 * MAXP), *got = malloc(sizeof(int) * 2 * MAXP),
      *all = malloc(sizeof(int) * 2 * MAXP);
  dyn_sap_workspace_init(ws);
  long np = tst_broadphase_sap(bodies, nb, margin, ws, ref, MAXP);
  CU_ASSERT_FATAL(np > 1000 && np < MAXP);
  /* as a set, the reference of every pair */
  CU_ASSERT_EQUAL(tst_broadphase_all(bodies, nb, margin, all, MAXP), np);
  memcpy(got, ref, sizeof(int) * 2 * (size_t)np);
  qsort(got, (size_t)np, 2 * sizeof(int), pair_cmp);
  qsort(all, (size_t)np, 2 * sizeof(int), pair_cmp);
  CU_ASSERT_EQUAL(memcmp(got, all, sizeof(int) * 2 * (size_t)np), 0);
  uint64_t seed = 11;
  for (int parts = 1; parts <= 5; parts++) {
    size_t n = sap_sort(bodies, nb, margin, ws);
    CU_ASSERT_EQUAL(n, (size_t)nb); /* every box is usable */
    size_t cut[6];
    cut[0] = 0;
    cut[parts] = n;
    for (int k = 1; k < parts; k++) cut[k] = (size_t)uniform(&seed, 0, (double)n);
    for (int k = 1; k < parts; k++) /* sorted: the runs are consecutive */
      for (int j = k; j > 1 && cut[j - 1] > cut[j]; j--) {
        size_t t = cut[j];
        cut[j] = cut[j - 1];
        cut[j - 1] = t;
      }
    for (int simd = 0; simd < 2; simd++) {
      long at = 0;
      memset(got, 0xff, sizeof(int) * 2 * (size_t)np);
      for (int k = 0; k < parts; k++)
        at += dyn_sap_sweep(ws, cut[k], cut[k + 1], got + 2 * at, MAXP - at, simd);
      CU_ASSERT_EQUAL(at, np);
      CU_ASSERT_EQUAL(memcmp(got, ref, sizeof(int) * 2 * (size_t)np), 0);
    }
  }
  /* a short buffer: the first pairs written, all of them counted */
  long half = np / 2;
  for (int simd = 0; simd < 2; simd++) {
    memset(got, 0xff, sizeof(int) * 2 * (size_t)np);
    CU_ASSERT_EQUAL(dyn_sap_sweep(ws, 0, (size_t)nb, got, half, simd), np);
    CU_ASSERT_EQUAL(memcmp(got, ref, sizeof(int) * 2 * (size_t)half), 0);
    CU_ASSERT_EQUAL(got[2 * half], -1);
  }
  free(ref);
  free(got);
  free(all);
  free(ws);
  free(bodies);
}

/* nx ny nz axis-aligned cubes of side 1 at integer centres (faces touching
 * exactly, so the boxes' bounds meet at the grid's cell edges at margin
 * 0), a tenth of them static, then a floor; its count. */
static int cube_lattice(tst_body *bodies, int nx, int ny, int nz) {
  char msg[160];
  int n = 0;
  dyn_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_BOX;
  sh.half = dyn_v3_make(0.5, 0.5, 0.5);
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++, n++) {
        dyn_v3 p = dyn_v3_make(x, y, z + 0.5);
        if (n % 10 == 3)
          tst_body_init_static(&bodies[n], sh, p, dyn_quat_identity());
        else if (tst_body_init(&bodies[n], 1.0, dyn_inertia_box(1.0, sh.half), sh, p,
                               dyn_quat_identity(), msg, sizeof msg) != DYN_OK)
          return -1;
      }
  memset(&sh, 0, sizeof sh);
  sh.kind = DYN_SHAPE_PLANE;
  sh.normal = dyn_v3_make(0, 0, 1);
  tst_body_init_static(&bodies[n++], sh, dyn_v3_make(0, 0, 0), dyn_quat_identity());
  return n;
}

/* dyn_broadphase_sap's pairs are the sweep's (dyn_sap_sweep over every
 * sorted box), pair for pair in the same order, on scenes where it takes
 * its grid (broadphase.c, grid_sweep: 256 boxes or more, over 32
 * candidates a box along x): cubes touching face to face at margins 0
 * and 0.01 (bounds on the cell edges), 3000 random spheres and boxes
 * between five half-spaces, the same with one box 100 times larger (a
 * coarse grid); a short buffer: the first pairs written, all counted;
 * dyn_sap_grid itself (the grid ran); none for 105 bodies. */
static void test_sap_grid(void) {
  enum { NL = 12, NB = NL * NL * NL + 1, NR = 3000, MAXP = 200000 };
  tst_body *bodies = malloc(sizeof *bodies * (NR + 5));
  int *ref = malloc(sizeof(int) * 2 * MAXP), *got = malloc(sizeof(int) * 2 * MAXP);
  void *ws = malloc(dyn_sap_workspace_size(NR + 5));
  for (int sc = 0; sc < 4; sc++) {
    int nb = sc < 2 ? cube_lattice(bodies, NL, NL, NL) : random_bodies(bodies, NR, 17);
    CU_ASSERT_FATAL(nb == (sc < 2 ? NB : NR + 5));
    if (sc == 3) bodies[100].shape.half = dyn_v3_make(8.0, 3.0, 0.2);
    double margin = sc == 1 ? 0.01 : sc == 0 ? 0.0 : 0.005;
    dyn_sap_workspace_init(ws);
    size_t n = sap_sort(bodies, nb, margin, ws);
    long np = dyn_sap_sweep(ws, 0, n, ref, MAXP, 1);
    CU_ASSERT_FATAL(np > 2 * nb && np < MAXP);
    memset(got, 0xff, sizeof(int) * 2 * (size_t)np);
    CU_ASSERT_EQUAL(tst_broadphase_sap(bodies, nb, margin, ws, got, MAXP), np);
    CU_ASSERT_EQUAL(memcmp(got, ref, sizeof(int) * 2 * (size_t)np), 0);
    memset(got, 0xff, sizeof(int) * 2 * (size_t)np);
    CU_ASSERT_EQUAL(tst_broadphase_sap(bodies, nb, margin, ws, got, np / 2), np);
    CU_ASSERT_EQUAL(memcmp(got, ref, sizeof(int) * 2 * (size_t)(np / 2)), 0);
    CU_ASSERT_EQUAL(got[2 * (np / 2)], -1);
    /* the grid itself: it is the grid that ran above */
    memset(got, 0xff, sizeof(int) * 2 * (size_t)np);
    CU_ASSERT_EQUAL(dyn_sap_grid(ws, n, got, MAXP), np);
    CU_ASSERT_EQUAL(memcmp(got, ref, sizeof(int) * 2 * (size_t)np), 0);
  }
  /* a few bodies: the sweep's (no grid) */
  int nb = random_bodies(bodies, 100, 3);
  dyn_sap_workspace_init(ws);
  size_t n = sap_sort(bodies, nb, 0.005, ws);
  CU_ASSERT_EQUAL(dyn_sap_grid(ws, n, got, MAXP), -1);
  free(ws);
  free(got);
  free(ref);
  free(bodies);
}

/* ---- whole steps -------------------------------------------------------------------- */

typedef struct {
  const char *scene, *param, *solver;
  dyn_friction friction;
  dyn_contact_order order;
  dyn_integrator integrator;
  int steps, max_iter;
} threads_case;

/* The bodies' r, q, v, w after `steps` steps on T threads, and the
 * metrics of every step (steps of them); the last step's contacts and
 * rows in *nc, *nrows.  NULL if a step failed. */
static double *run_case(const threads_case *c, int T, dyn_world_metrics *m, int *nb, int *nc,
                        int *nrows) {
  dyn_world_settings s = dyn_world_settings_default();
  snprintf(s.solver, sizeof s.solver, "%s", c->solver);
  s.contact.friction = c->friction;
  s.contact_order = c->order;
  s.integrator = c->integrator;
  s.opt.max_iter = c->max_iter;
  s.opt.threads = T;
  const char *params[] = { c->param };
  dyn_world *w = NULL;
  char msg[256] = "";
  dyn_err e = dyn_scene_new(c->scene, params, 1, &s, &w, msg, sizeof msg);
  CU_ASSERT_EQUAL(e, DYN_OK);
  if (e != DYN_OK) {
    printf("dyn_scene_new(%s): %s\n", c->scene, msg);
    return NULL;
  }
  for (int k = 0; k < c->steps; k++)
    if (dyn_world_step(w, &m[k]) != DYN_OK) {
      printf("%s on %d threads, step %d: %s\n", c->scene, T, k + 1, dyn_world_message(w));
      dyn_world_free(w);
      return NULL;
    }
  *nb = dyn_world_body_count(w);
  *nc = m[c->steps - 1].contacts;
  *nrows = m[c->steps - 1].rows;
  double *state = malloc(sizeof(double) * 13 * (size_t)*nb);
  const dyn_body_state *b = dyn_world_body_states(w);
  for (int i = 0; i < *nb; i++) {
    double *x = state + 13 * (size_t)i;
    x[0] = b[i].r.x, x[1] = b[i].r.y, x[2] = b[i].r.z;
    x[3] = b[i].q.w, x[4] = b[i].q.x, x[5] = b[i].q.y, x[6] = b[i].q.z;
    x[7] = b[i].v.x, x[8] = b[i].v.y, x[9] = b[i].v.z;
    x[10] = b[i].w.x, x[11] = b[i].w.y, x[12] = b[i].w.z;
  }
  dyn_world_free(w);
  return state;
}

/* The metrics that do not depend on timing. */
static int same_metrics(const dyn_world_metrics *a, const dyn_world_metrics *b) {
  return a->contacts == b->contacts && a->rows == b->rows && a->iterations == b->iterations &&
         memcmp(&a->energy, &b->energy, sizeof a->energy) == 0 &&
         memcmp(&a->max_penetration, &b->max_penetration, sizeof(double)) == 0 &&
         memcmp(&a->res_nat_inf, &b->res_nat_inf, sizeof(double)) == 0;
}

static void same_bits_on_every_count(const threads_case *c) {
  dyn_world_metrics *m[3];
  double *state[3] = { NULL, NULL, NULL };
  int nb[3], nc[3], nrows[3];
  for (int t = 0; t < 3; t++) {
    m[t] = calloc((size_t)c->steps, sizeof *m[t]);
    state[t] = run_case(c, t + 1, m[t], &nb[t], &nc[t], &nrows[t]);
  }
  CU_ASSERT_FATAL(state[0] && state[1] && state[2]);
  /* every loop of the step splits on this scene */
  CU_ASSERT(nb[0] >= DYN_PAR_MIN && nc[0] >= DYN_PAR_MIN && nrows[0] >= DYN_PAR_MIN);
  for (int t = 1; t < 3; t++) {
    CU_ASSERT_EQUAL(nb[t], nb[0]);
    int first_bad = -1;
    for (int k = 0; k < c->steps && first_bad < 0; k++)
      if (!same_metrics(&m[t][k], &m[0][k])) first_bad = k;
    CU_ASSERT_EQUAL(first_bad, -1);
    if (first_bad >= 0)
      printf("%s: %d threads differ from one at step %d\n", c->scene, t + 1, first_bad + 1);
    CU_ASSERT_EQUAL(memcmp(state[t], state[0], sizeof(double) * 13 * (size_t)nb[0]), 0);
  }
  for (int t = 0; t < 3; t++) {
    free(m[t]);
    free(state[t]);
  }
}

static void test_pile_steps(void) {
  threads_case c = { "pile",
                     "n=1200",
                     "pgs",
                     DYN_FRICTION_BOX,
                     DYN_ORDER_BROADPHASE,
                     DYN_INT_SYMPLECTIC_EULER,
                     tst_short_runs() ? 36 : 60,
                     10 };
  same_bits_on_every_count(&c);
}

/* A chain of nb bodies, row i between bodies i % nb and (i + 1) % nb
 * (J from a small formula, bounds [0, inf)), with two rows made bad. */
static void chain_rows(dyn_rows *rows, int n, int nb) {
  memset(rows, 0, sizeof *rows * (size_t)n);
  for (int i = 0; i < n; i++) {
    dyn_rows *r = &rows[i];
    r->body[0] = i % nb;
    r->body[1] = (i + 1) % nb;
    for (int k = 0; k < 2; k++)
      for (int c = 0; c < 6; c++) r->J[k][c] = (k ? -1.0 : 1.0) * (1.0 + 0.1 * ((i + c) % 7));
    r->lo = 0.0;
    r->hi = INFINITY;
    r->findex = -1;
    r->kind = DYN_ROW_PLAIN;
    r->base = i;
  }
}

/* nb spheres of radius 0.1 along x, of mass 1 + 0.01 (b % 13) when
 * vary_mass (so that the velocity changes differ), else 1. */
static tst_body *chain_bodies(int nb, int vary_mass) {
  tst_body *bodies = malloc(sizeof *bodies * (size_t)nb);
  char msg[160];
  for (int b = 0; b < nb; b++) {
    dyn_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.kind = DYN_SHAPE_SPHERE;
    sh.radius = 0.1;
    double m = vary_mass ? 1.0 + 0.01 * (b % 13) : 1.0;
    CU_ASSERT_EQUAL_FATAL(tst_body_init(&bodies[b], m, dyn_inertia_sphere(1.0, 0.1), sh,
                                        dyn_v3_make(b, 0, 0), dyn_quat_identity(), msg, sizeof msg),
                          DYN_OK);
  }
  return bodies;
}

/* A factored system for n rows over nb bodies, on t threads. */
static dyn_system *chain_system(int n, int nb, int t) {
  dyn_system *sys = NULL;
  char msg[160];
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(n, nb, DYN_SYS_FACTORED, 0, &sys, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_system_threads_reserve(sys, t), DYN_OK);
  return sys;
}

/* The chain's problem, h = 0.01, g = -9.81 e_z. */
static dyn_err assemble_chain(dyn_system *sys, const tst_body *bodies, const dyn_rows *rows, int n,
                              int nb) {
  slv_problem p;
  return tst_assemble(sys, bodies, nb, rows, n, 0.01, dyn_v3_make(0, 0, -9.81), SLV_FACTORED, &p);
}

static void test_assembly_errors(void) {
  enum { NB = 1500, N = 3000 };
  tst_body *bodies = chain_bodies(NB, 0);
  dyn_rows *rows = malloc(sizeof *rows * N);
  const char *want[3] = { "row 2000: bounds lo=1, hi=0", "row 2500: cfm=-1 < 0",
                          "row 1: both sides are body 7" };
  for (int t = 1; t <= 3; t++) {
    dyn_system *sys = chain_system(N, NB, t);
    /* valid: assembled on t threads, the same lists as on one (the
     * impulse of x = 1 moves the same bodies by the same bits) */
    chain_rows(rows, N, NB);
    CU_ASSERT_EQUAL(assemble_chain(sys, bodies, rows, N, NB), DYN_OK);
    /* two bad rows, the later first in the array's scan by a second thread */
    rows[2500].cfm = -1.0;
    rows[2000].lo = 1.0;
    rows[2000].hi = 0.0;
    CU_ASSERT_EQUAL(assemble_chain(sys, bodies, rows, N, NB), DYN_ERR_INPUT);
    CU_ASSERT_STRING_EQUAL(dyn_system_message(sys), want[0]);
    rows[2000].lo = 0.0;
    rows[2000].hi = INFINITY;
    CU_ASSERT_EQUAL(assemble_chain(sys, bodies, rows, N, NB), DYN_ERR_INPUT);
    CU_ASSERT_STRING_EQUAL(dyn_system_message(sys), want[1]);
    rows[1].body[0] = rows[1].body[1] = 7;
    CU_ASSERT_EQUAL(assemble_chain(sys, bodies, rows, N, NB), DYN_ERR_INPUT);
    CU_ASSERT_STRING_EQUAL(dyn_system_message(sys), want[2]);
    dyn_system_free(sys);
  }
  free(rows);
  free(bodies);
}

/* CSR storage's A of the chain assembled on t threads (its columns merge
 * the row lists by body, built by runs on threads): nnz, and Ap, Aj, Ax
 * into the caller's arrays. */
static long chain_csr(const tst_body *bodies, const dyn_rows *rows, int n, int nb, int t, int *Ap,
                      int *Aj, double *Ax, long cap) {
  dyn_system *sys = NULL;
  char msg[160];
  CU_ASSERT_EQUAL_FATAL(dyn_system_new(n, nb, DYN_SYS_CSR, cap, &sys, msg, sizeof msg), DYN_OK);
  CU_ASSERT_EQUAL(dyn_system_threads_reserve(sys, t), DYN_OK);
  slv_problem p;
  long nnz = -1;
  if (tst_assemble(sys, bodies, nb, rows, n, 0.01, dyn_v3_make(0, 0, -9.81), SLV_CSR, &p) ==
      DYN_OK) {
    nnz = p.Ap[n];
    memcpy(Ap, p.Ap, sizeof *Ap * (size_t)(n + 1));
    memcpy(Aj, p.Aj, sizeof *Aj * (size_t)nnz);
    memcpy(Ax, p.Ax, sizeof *Ax * (size_t)nnz);
  }
  dyn_system_free(sys);
  return nnz;
}

/* After an assembly on t threads, for t = 1, 2, 3: dyn_apply_impulse's
 * velocities of x_i = 1 + i / N (factored storage: a range of bodies per
 * thread, each body's rows in row order) the same bits; and CSR storage's
 * A, whose columns come from the row lists by body (built by runs on
 * threads), the same entries in the same places. */
static void test_lists_on_threads(void) {
  enum { NB = 1500, N = 3000, CAP = 64 * N };
  tst_body *bodies = chain_bodies(NB, 1), *moved = malloc(sizeof *moved * NB * 3);
  dyn_rows *rows = malloc(sizeof *rows * N);
  double *x = malloc(sizeof *x * N), *Ax = malloc(sizeof *Ax * CAP * 3);
  int *Ap = malloc(sizeof *Ap * (N + 1) * 3), *Aj = malloc(sizeof *Aj * CAP * 3);
  long nnz[3];
  chain_rows(rows, N, NB);
  for (int i = 0; i < N; i++) x[i] = 1.0 + (double)i / N;
  for (int t = 1; t <= 3; t++) {
    dyn_system *sys = chain_system(N, NB, t);
    CU_ASSERT_EQUAL(assemble_chain(sys, bodies, rows, N, NB), DYN_OK);
    tst_body *m = moved + NB * (t - 1);
    memcpy(m, bodies, sizeof *m * NB);
    CU_ASSERT_EQUAL(tst_apply_impulse(sys, m, NB, x, 0.01, dyn_v3_make(0, 0, -9.81)), DYN_OK);
    dyn_system_free(sys);
    nnz[t - 1] = chain_csr(bodies, rows, N, NB, t, Ap + (N + 1) * (t - 1), Aj + CAP * (t - 1),
                           Ax + CAP * (t - 1), CAP);
  }
  /* every body is on four rows of the chain (N = 2 NB): each moved */
  int still = 0;
  for (int b = 0; b < NB; b++) still += moved[b].v.x == 0.0;
  CU_ASSERT_EQUAL(still, 0);
  CU_ASSERT_EQUAL(memcmp(moved + NB, moved, sizeof *moved * NB), 0);
  CU_ASSERT_EQUAL(memcmp(moved + 2 * NB, moved, sizeof *moved * NB), 0);
  /* a chain row meets its own body's rows and its neighbours': more than
   * the diagonal */
  CU_ASSERT(nnz[0] > N);
  for (int t = 1; t < 3; t++) {
    CU_ASSERT_EQUAL_FATAL(nnz[t], nnz[0]);
    CU_ASSERT_EQUAL(memcmp(Ap + (N + 1) * t, Ap, sizeof *Ap * (N + 1)), 0);
    CU_ASSERT_EQUAL(memcmp(Aj + CAP * t, Aj, sizeof *Aj * (size_t)nnz[0]), 0);
    CU_ASSERT_EQUAL(memcmp(Ax + CAP * t, Ax, sizeof *Ax * (size_t)nnz[0]), 0);
  }
  free(Ap);
  free(Aj);
  free(Ax);
  free(x);
  free(rows);
  free(moved);
  free(bodies);
}

static void test_pyramid_steps(void) {
  threads_case c = { "pyramid",
                     "layers=46",
                     "nsgs",
                     DYN_FRICTION_CONE,
                     DYN_ORDER_TOP_DOWN,
                     DYN_INT_VERLET,
                     tst_short_runs() ? 2 : 6,
                     10 };
  same_bits_on_every_count(&c);
}

/* ---- the apply stage from the solver's K^T x ------------------------------------------ */

/* A world of a 1200-sphere pile on T threads after `steps` steps of
 * solver: its last step applied the solver's x, whose K^T x the solve
 * left in the workspace (slv_workspace_ktx).  From a copy of the bodies,
 * dyn_apply_impulse_ws (t from the solver) and dyn_apply_impulse (the
 * rows' pass) give the same bits; a stale t is not used: x changed in a
 * copy, or in place, gets NULL from slv_workspace_ktx, and the apply of
 * the changed x is the rows' (it differs from the unchanged x's). */
static void apply_from_ktx(const char *solver, int T, int steps) {
  dyn_world_settings set = dyn_world_settings_default();
  snprintf(set.solver, sizeof set.solver, "%s", solver);
  set.opt.max_iter = 10;
  set.opt.threads = T;
  const char *params[] = { "n=1200" };
  dyn_world *w = NULL;
  char msg[256] = "";
  CU_ASSERT_EQUAL_FATAL(dyn_scene_new("pile", params, 1, &set, &w, msg, sizeof msg), DYN_OK);
  dyn_world_metrics m;
  for (int k = 0; k < steps; k++) CU_ASSERT_EQUAL_FATAL(dyn_world_step(w, &m), DYN_OK);
  int nb = w->nb, n = w->nrows;
  CU_ASSERT_FATAL(n > 0 && w->prob.storage == SLV_FACTORED && w->sys_last);
  CU_ASSERT_EQUAL(w->last.applied, DYN_APPLIED_SOLVER);
  const dyn_system *sys = w->sys_last;
  const double *t = slv_workspace_ktx(w->main.ws, &w->prob, w->x.p);
  CU_ASSERT_FATAL(t != NULL); /* the step's apply took it */
  const double h = 1.0 / 120, *x = w->x.p;
  const dyn_v3 g = dyn_v3_make(0, 0, -9.81);
  size_t bytes = sizeof(dyn_body_state) * (size_t)nb;
  dyn_body_state *rows = malloc(bytes), *fromt = malloc(bytes), *stale = malloc(bytes);
  double *x2 = malloc(sizeof *x2 * (size_t)n);
  memcpy(rows, w->bodies.s, bytes);
  memcpy(fromt, w->bodies.s, bytes);
  CU_ASSERT_EQUAL(dyn_apply_impulse(sys, (dyn_bodies){ w->bodies.c, rows }, nb, x, h, g), DYN_OK);
  CU_ASSERT_EQUAL(dyn_apply_impulse_ws(sys, (dyn_bodies){ w->bodies.c, fromt }, nb, x, w->main.ws,
                                       &w->prob, h, g),
                  DYN_OK);
  CU_ASSERT_EQUAL(memcmp(rows, fromt, bytes), 0);
  /* x changed (a copy): no t; the apply is the rows' of that x */
  int k = n / 2;
  while (k < n && x[k] == 0.0) k++;
  CU_ASSERT_FATAL(k < n);
  memcpy(x2, x, sizeof *x2 * (size_t)n);
  x2[k] *= 0.5;
  CU_ASSERT_PTR_NULL(slv_workspace_ktx(w->main.ws, &w->prob, x2));
  memcpy(stale, w->bodies.s, bytes);
  memcpy(rows, w->bodies.s, bytes);
  CU_ASSERT_EQUAL(dyn_apply_impulse_ws(sys, (dyn_bodies){ w->bodies.c, stale }, nb, x2, w->main.ws,
                                       &w->prob, h, g),
                  DYN_OK);
  CU_ASSERT_EQUAL(dyn_apply_impulse(sys, (dyn_bodies){ w->bodies.c, rows }, nb, x2, h, g), DYN_OK);
  CU_ASSERT_EQUAL(memcmp(rows, stale, bytes), 0);
  CU_ASSERT_NOT_EQUAL(memcmp(fromt, stale, bytes), 0);
  /* x changed in place (the failure policy's way): no t, until it is back */
  double keep = w->x.p[k];
  w->x.p[k] = keep * 0.5;
  CU_ASSERT_PTR_NULL(slv_workspace_ktx(w->main.ws, &w->prob, w->x.p));
  w->x.p[k] = keep;
  CU_ASSERT_PTR_EQUAL(slv_workspace_ktx(w->main.ws, &w->prob, w->x.p), t);
  /* another problem view (a copy of the struct): no t */
  slv_problem other = w->prob;
  CU_ASSERT_PTR_NULL(slv_workspace_ktx(w->main.ws, &other, w->x.p));
  /* the solve's problem changed since: another size or array, no t (a
   * larger n or nblk would read past the copy of x or past t) */
  int n0 = w->prob.n, nblk0 = w->prob.nblk;
  w->prob.n = n0 + 1000;
  CU_ASSERT_PTR_NULL(slv_workspace_ktx(w->main.ws, &w->prob, w->x.p));
  w->prob.n = n0;
  w->prob.nblk = nblk0 + 1;
  CU_ASSERT_PTR_NULL(slv_workspace_ktx(w->main.ws, &w->prob, w->x.p));
  w->prob.nblk = nblk0;
  const double *fK0 = w->prob.fK;
  w->prob.fK = w->prob.fJ;
  CU_ASSERT_PTR_NULL(slv_workspace_ktx(w->main.ws, &w->prob, w->x.p));
  w->prob.fK = fK0;
  CU_ASSERT_PTR_EQUAL(slv_workspace_ktx(w->main.ws, &w->prob, w->x.p), t);
  free(rows);
  free(fromt);
  free(stale);
  free(x2);
  dyn_world_free(w);
}

static void test_apply_from_ktx(void) {
  int steps = tst_short_runs() ? 12 : 25;
  for (int T = 1; T <= 2; T++) {
    apply_from_ktx("pgs_wide", T, steps);
    apply_from_ktx("pgs", T, steps);
  }
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return CU_get_error();
  CU_pSuite s = CU_add_suite("world threads", NULL, NULL);
  CU_add_test(s, "sweeps of consecutive ranges: dyn_broadphase_sap's pairs", test_sap_halves);
  CU_add_test(s, "the grid's pairs: the sweep's, in its order", test_sap_grid);
  CU_add_test(s, "pile of 1200, box friction: the same bits on 1, 2 and 3 threads",
              test_pile_steps);
  CU_add_test(s, "46-layer pyramid, cone, top-down, Verlet: the same bits on 1, 2 and 3 threads",
              test_pyramid_steps);
  CU_add_test(s, "assembly's row lists on 1, 2, 3 threads: the same impulses",
              test_lists_on_threads);
  CU_add_test(s, "assembly's checks on 1, 2, 3 threads: the first bad row, as on one",
              test_assembly_errors);
  CU_add_test(s, "apply from the solver's K^T x: the rows' bits; a stale one not used",
              test_apply_from_ktx);
  return tst_run();
}
