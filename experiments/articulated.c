/* articulated.c -- experiment (not a test): one hinge chain, three
 * formulations at one step h, one CSV row each.
 *
 *   articulated N ANGLE_DEG T H
 *   articulated --provenance SRCDIR
 *
 * The chain is the `chain` scene of libdynamics (links 0.1 m, 0.1 kg, 1 cm
 * square rods): N links (1 .. 100) released at ANGLE_DEG degrees from the
 * downward vertical, run for T seconds at step H.  Formulations:
 *   maximal_direct   the world's joints (maximal coordinates, dyn_world_step)
 *                    solved exactly by the "direct" solver;
 *   maximal_pgs      the same world solved by "pgs" at the world's 50 sweeps;
 *   reduced_redmax   reduced coordinates (dyn_redmax), built from the same
 *                    chain model (dyn_redmax_new_from_model of the world's
 *                    model: its masses, inertias, poses and hinges).
 * docs/dynamics.md, "The world step" and docs/redmax.md have the two models.
 *
 * Output (stdout), one row per formulation, in the order above:
 *   h,formulation,joint_drift_max,energy_drift,time_per_step_s,gap_vs_reduced_m
 * joint_drift_max: max over steps and joints of dyn_joint_anchor_error (m);
 * for the reduced model, of its bodies put through the same joints (zero up
 * to rounding by construction).  energy_drift: max over steps of the
 * energy drift's magnitude, |dyn_energy_drift(E, E0, S)| = |E - E0| / S with
 * the one scale S = max(|E0|, M |g| D) of the chain's start
 * (dyn_world_drift_scale; docs/dynamics.md, "Energy drift"), one S for the
 * three formulations.  time_per_step_s: mean wall time of one
 * step.  gap_vs_reduced_m: the largest distance of a link centre from the
 * reduced model's at the end (0 for the reduced row).
 *
 * --provenance prints the CSV's preamble of what ran it: the library's
 * provenance (exp_prov_write: CPU, compiler, BLAS, binary, host, SRCDIR's
 * revision), the lines every experiment CSV starts with.
 * experiments/articulated.sh runs it once, then for each h.  Public headers
 * only.  An experiment never asserts: exit 0 when
 * the rows are written, 2 for bad arguments, 1 when a model cannot be built
 * or a step fails (message on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dyn_joint.h"
#include "dyn_redmax.h"
#include "dyn_run.h"
#include "dyn_world.h"
#include "exp.h"

#define NMAX 100

/* What one formulation measured. */
typedef struct exp_run {
  double joint_drift;   /* m */
  double energy_drift;  /* max |E - E0| / S */
  double time_per_step; /* s */
  dyn_v3 rfin[NMAX];    /* link centres at the end */
} exp_run;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The chain scene with n links at angle (deg), step h, solved by solver;
 * NULL (message on stderr) if it cannot be built. */
static dyn_world *chain(int n, double angle, double h, const char *solver) {
  char p1[32], p2[48], msg[256]; /* p2: "angle_deg=" and up to 24 characters of %.17g */
  snprintf(p1, sizeof p1, "n=%d", n);
  snprintf(p2, sizeof p2, "angle_deg=%.17g", angle);
  const char *p[] = { p1, p2 };
  dyn_world_settings s = dyn_world_settings_default();
  s.dt = h;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  dyn_world *w = NULL;
  if (dyn_scene_new("chain", p, 2, &s, &w, msg, sizeof msg) != DYN_OK) {
    fprintf(stderr, "articulated: %s\n", msg);
    return NULL;
  }
  return w;
}

/* The reduced model of the world's chain: the same chain model
 * (dyn_scene_model) as a tree (dyn_redmax_new_from_model).  Sets *scale,
 * the drift scale S of the chain's start (dyn_world_drift_scale). */
static int build_reduced(dyn_world *w, dyn_redmax **rm, double *scale) {
  *scale = dyn_world_drift_scale(w, dyn_world_energy(w, NULL, NULL));
  char msg[256];
  if (dyn_redmax_new_from_model(dyn_world_model(w), rm, msg, sizeof msg) != DYN_OK) {
    fprintf(stderr, "articulated: %s\n", msg);
    return 1;
  }
  return 0;
}

/* K steps of the reduced model; the joint drift is measured on its bodies
 * put through the world's joints.  Sets *scale (the energy scale). */
static int run_reduced(int n, double angle, double h, long K, exp_run *out, double *scale) {
  dyn_world *w = chain(n, angle, h, "direct");
  if (!w) return 1;
  dyn_redmax *rm = NULL;
  if (build_reduced(w, &rm, scale)) {
    dyn_world_free(w);
    return 1;
  }
  dyn_v3 g = dyn_world_get_settings(w)->gravity;
  static dyn_body_const consts[NMAX];
  static dyn_body_state states[NMAX];
  char msg[256];
  double T0, V0;
  dyn_redmax_energy(rm, g, &T0, &V0);
  double E0 = T0 + V0, emax = 0.0, jmax = 0.0, t = 0.0;
  int rc = 0;
  for (long k = 0; k < K && !rc; k++) {
    double t0 = now_s();
    if (dyn_redmax_step(rm, h, g, NULL, NULL, msg, sizeof msg) != DYN_OK) {
      fprintf(stderr, "articulated: redmax: %s\n", msg);
      rc = 1;
      break;
    }
    t += now_s() - t0;
    double Tk, Vk;
    dyn_redmax_energy(rm, g, &Tk, &Vk);
    double d = fabs(dyn_energy_drift(Tk + Vk, E0, *scale));
    if (d > emax) emax = d;
    dyn_redmax_export_bodies(rm, consts, states, NULL, 0);
    for (int j = 0; j < dyn_world_joint_count(w); j++) {
      double e = dyn_joint_anchor_error((dyn_bodies){ consts, states }, n, &dyn_world_joints(w)[j]);
      if (e > jmax) jmax = e;
    }
  }
  if (!rc) {
    for (int k = 0; k < n; k++) dyn_redmax_body_state(rm, k, &out->rfin[k], NULL, NULL, NULL);
    out->joint_drift = jmax;
    out->energy_drift = emax;
    out->time_per_step = t / (double)K;
  }
  dyn_redmax_free(rm);
  dyn_world_free(w);
  return rc;
}

/* K steps of the world (maximal coordinates) with the named solver. */
static int run_maximal(int n, double angle, double h, long K, const char *solver, double scale,
                       exp_run *out) {
  dyn_world *w = chain(n, angle, h, solver);
  if (!w) return 1;
  double E0 = dyn_world_energy(w, NULL, NULL), emax = 0.0, jmax = 0.0, t = 0.0;
  for (long k = 0; k < K; k++) {
    dyn_world_metrics m;
    double t0 = now_s();
    if (dyn_world_step(w, &m) != DYN_OK) {
      fprintf(stderr, "articulated: %s\n", dyn_world_message(w));
      dyn_world_free(w);
      return 1;
    }
    t += now_s() - t0;
    double d = fabs(dyn_energy_drift(m.energy, E0, scale));
    if (d > emax) emax = d;
    if (m.joint_error > jmax) jmax = m.joint_error;
  }
  for (int k = 0; k < n; k++) out->rfin[k] = dyn_world_body_states(w)[k].r;
  out->joint_drift = jmax;
  out->energy_drift = emax;
  out->time_per_step = t / (double)K;
  dyn_world_free(w);
  return 0;
}

/* The row of one formulation; with_gap: its distance from the reduced run. */
static void print_row(double h, const char *name, const exp_run *r, const exp_run *reduced, int n,
                      int with_gap) {
  double gap = 0.0;
  for (int k = 0; with_gap && k < n; k++) {
    double dk = dyn_v3_norm(dyn_v3_sub(r->rfin[k], reduced->rfin[k]));
    if (dk > gap) gap = dk;
  }
  printf("%.6g,%s,%.6e,%.6e,%.6e,%.6e\n", h, name, r->joint_drift, r->energy_drift,
         r->time_per_step, gap);
}

/* The preamble of the CSV: the library's provenance of this run. */
static int print_provenance(const char *srcdir) {
  exp_prov p;
  char rev[160];
  exp_prov_gather(&p);
  exp_git_rev(srcdir, rev, sizeof rev);
  exp_prov_write(stdout, &p, rev);
  return ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--provenance") == 0) return print_provenance(argv[2]);
  if (argc != 5) {
    fprintf(stderr, "usage: articulated N ANGLE_DEG T H | articulated --provenance SRCDIR\n");
    return 2;
  }
  int n = atoi(argv[1]);
  double angle = atof(argv[2]), T = atof(argv[3]), h = atof(argv[4]);
  if (n < 1 || n > NMAX || !(h > 0) || !(T > 0)) {
    fprintf(stderr, "articulated: need 1 <= N <= %d, T > 0, H > 0\n", NMAX);
    return 2;
  }
  long K = lround(T / h);
  static exp_run run[3]; /* maximal_direct, maximal_pgs, reduced_redmax */
  double scale = 0.0;
  if (run_reduced(n, angle, h, K, &run[2], &scale)) return 1;
  const char *solver[2] = { "direct", "pgs" };
  for (int f = 0; f < 2; f++)
    if (run_maximal(n, angle, h, K, solver[f], scale, &run[f])) return 1;
  const char *name[3] = { "maximal_direct", "maximal_pgs", "reduced_redmax" };
  for (int f = 0; f < 3; f++) print_row(h, name[f], &run[f], &run[2], n, f < 2);
  return 0;
}
