#!/bin/sh
# articulated.sh -- experiment (not a test): the same hinge chain in maximal
# coordinates (the world's joints, libdynamics/world.c + joint.c, solved by
# "direct" (exact) and by "pgs" at 50 sweeps) and in reduced coordinates
# (dyn_redmax, libdynamics/redmax.c), for a few steps h: joint drift, energy
# drift and time per step side by side (issue #5).
#
#   sh experiments/articulated.sh RESULTS_DIR [BUILDDIR] [SRCDIR] [GNUPLOT]
#
# BUILDDIR (default: the current directory) holds the built libraries
# (libdynamics/libdynamics.la, libsolvers/libsolvers.la and its libtool);
# SRCDIR (default: this script's parent directory) the headers.  The chain
# is the `chain` scene (links 0.1 m, 0.1 kg, 1 cm square rods): n =
# ARTIC_N links (default 20), released at ARTIC_ANGLE degrees from the
# downward vertical (default 60), run for ARTIC_T seconds (default 2) at
# each h in ARTIC_H (default "2e-3 1e-3 5e-4 2.5e-4 1e-4").  The reduced
# model is built from the scene's bodies (same masses, inertias, poses) with
# hinges at the same pivots.
#
# Output in RESULTS_DIR (created if missing):
#   articulated.csv   '#' preamble (git rev, compiler, date, parameters), then
#                     h, formulation, joint_drift_max (m: max over steps and
#                     joints of the anchor separation, dyn_joint_anchor_error;
#                     for the reduced model, of its bodies put through the
#                     same joints: zero up to rounding by construction),
#                     energy_drift (max over steps of |E - E0| / (m_total g
#                     L_total), E = T + V with V = -sum m g.r), time_per_step_s
#                     (mean wall time of one step), gap_vs_reduced_m (max
#                     distance of a link centre from the reduced model's at
#                     the end; 0 for the reduced row)
#   articulated.png, articulated.pdf   the figure (experiments/articulated.gp),
#                     when gnuplot is there.
# The program is written to a temporary directory and compiled there
# against the built libraries (public headers only).  Never asserts; prints
# the CSV path.
set -eu

RES=${1:?usage: articulated.sh RESULTS_DIR [BUILDDIR] [SRCDIR] [GNUPLOT]}
BUILD=${2:-$(pwd)}
SRC=${3:-$(cd "$(dirname "$0")/.." && pwd)}
GP=${4:-gnuplot}
N=${ARTIC_N:-20}
ANGLE=${ARTIC_ANGLE:-60}
TEND=${ARTIC_T:-2}
HS=${ARTIC_H:-"2e-3 1e-3 5e-4 2.5e-4 1e-4"}
CC=${CC:-gcc}

mkdir -p "$RES"
RES=$(cd "$RES" && pwd)
BUILD=$(cd "$BUILD" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

cat >"$TMP/artic.c" <<'EOF'
/* artic.c -- written by experiments/articulated.sh: one chain, three
 * formulations (maximal/direct, maximal/pgs, reduced/redmax) at step h;
 * prints CSV rows h,formulation,joint_drift_max,energy_drift,time_per_step_s,
 * gap_vs_reduced_m. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dyn_joint.h"
#include "dyn_redmax.h"
#include "dyn_world.h"

#define NMAX 100

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static dyn_world *chain(int n, double angle, double h, const char *solver) {
  char p1[32], p2[32], msg[256];
  snprintf(p1, sizeof p1, "n=%d", n);
  snprintf(p2, sizeof p2, "angle_deg=%.17g", angle);
  const char *p[] = { p1, p2 };
  dyn_world_settings s = dyn_world_settings_default();
  s.dt = h;
  snprintf(s.solver, sizeof s.solver, "%s", solver);
  dyn_world *w = NULL;
  if (dyn_scene_new("chain", p, 2, &s, &w, msg, sizeof msg) != DYN_OK) {
    fprintf(stderr, "artic: %s\n", msg);
    exit(1);
  }
  return w;
}

int main(int argc, char **argv) {
  if (argc != 5)
    return 2;
  int n = atoi(argv[1]);
  double angle = atof(argv[2]), T = atof(argv[3]), h = atof(argv[4]);
  if (n < 1 || n > NMAX || !(h > 0) || !(T > 0))
    return 2;
  long K = lround(T / h);
  const double l = 0.1, a = angle * 3.14159265358979323846 / 180.0;
  static dyn_v3 rfin[3][NMAX];
  static double jd[3], ed[3], tps[3];
  double scale = 0.0;
  /* reduced: from the scene's bodies */
  {
    dyn_world *w = chain(n, angle, h, "direct");
    const dyn_body *B = dyn_world_bodies(w);
    dyn_rm_body_def d[NMAX];
    double mt = 0.0;
    for (int k = 0; k < n; k++) {
      d[k] = dyn_rm_body_def_default();
      d[k].parent = k - 1;
      d[k].joint = DYN_RM_HINGE;
      d[k].mass = B[k].mass;
      d[k].I_b = B[k].I_b;
      d[k].r = B[k].r;
      d[k].q = B[k].q;
      d[k].anchor = dyn_v3_make(k * l * sin(a), 0.0, -k * l * cos(a));
      d[k].axis = dyn_v3_make(0.0, 1.0, 0.0);
      mt += B[k].mass;
    }
    dyn_v3 g = dyn_world_get_settings(w)->gravity;
    scale = mt * dyn_v3_norm(g) * n * l;
    dyn_redmax *rm = NULL;
    char msg[256];
    if (dyn_redmax_new(d, n, &rm, msg, sizeof msg) != DYN_OK) {
      fprintf(stderr, "artic: %s\n", msg);
      return 1;
    }
    static dyn_body bodies[NMAX];
    double T0, V0;
    dyn_redmax_energy(rm, g, &T0, &V0);
    double E0 = T0 + V0, emax = 0.0, jmax = 0.0, t = 0.0;
    for (long k = 0; k < K; k++) {
      double t0 = now_s();
      if (dyn_redmax_step(rm, h, g, NULL, NULL, msg, sizeof msg) != DYN_OK) {
        fprintf(stderr, "artic: redmax: %s\n", msg);
        return 1;
      }
      t += now_s() - t0;
      double Tk, Vk;
      dyn_redmax_energy(rm, g, &Tk, &Vk);
      if (fabs(Tk + Vk - E0) > emax)
        emax = fabs(Tk + Vk - E0);
      dyn_redmax_export_bodies(rm, bodies, NULL, 0);
      for (int j = 0; j < dyn_world_joint_count(w); j++) {
        double e = dyn_joint_anchor_error(bodies, n, &dyn_world_joints(w)[j]);
        if (e > jmax)
          jmax = e;
      }
    }
    for (int k = 0; k < n; k++)
      dyn_redmax_body_state(rm, k, &rfin[2][k], NULL, NULL, NULL);
    jd[2] = jmax;
    ed[2] = emax / scale;
    tps[2] = t / (double)K;
    dyn_redmax_free(rm);
    dyn_world_free(w);
  }
  const char *solver[2] = { "direct", "pgs" };
  for (int f = 0; f < 2; f++) {
    dyn_world *w = chain(n, angle, h, solver[f]);
    double E0 = dyn_world_energy(w, NULL, NULL), emax = 0.0, jmax = 0.0, t = 0.0;
    for (long k = 0; k < K; k++) {
      dyn_world_metrics m;
      double t0 = now_s();
      if (dyn_world_step(w, &m) != DYN_OK) {
        fprintf(stderr, "artic: %s\n", dyn_world_message(w));
        return 1;
      }
      t += now_s() - t0;
      if (fabs(m.energy - E0) > emax)
        emax = fabs(m.energy - E0);
      if (m.joint_error > jmax)
        jmax = m.joint_error;
    }
    for (int k = 0; k < n; k++)
      rfin[f][k] = dyn_world_bodies(w)[k].r;
    jd[f] = jmax;
    ed[f] = emax / scale;
    tps[f] = t / (double)K;
    dyn_world_free(w);
  }
  const char *name[3] = { "maximal_direct", "maximal_pgs", "reduced_redmax" };
  for (int f = 0; f < 3; f++) {
    double gap = 0.0;
    for (int k = 0; f < 2 && k < n; k++) {
      double dk = dyn_v3_norm(dyn_v3_sub(rfin[f][k], rfin[2][k]));
      if (dk > gap)
        gap = dk;
    }
    printf("%.6g,%s,%.6e,%.6e,%.6e,%.6e\n", h, name[f], jd[f], ed[f], tps[f], gap);
  }
  return 0;
}
EOF

"$CC" -std=c11 -O2 -I"$SRC/libdynamics" -I"$SRC/libsolvers" -I"$BUILD" -c "$TMP/artic.c" -o "$TMP/artic.o"
"$BUILD/libtool" --quiet --mode=link --tag=CC "$CC" -o "$TMP/artic" "$TMP/artic.o" \
  "$BUILD/libdynamics/libdynamics.la" "$BUILD/libsolvers/libsolvers.la" -lm

CSV="$RES/articulated.csv"
{
  echo "# articulated.sh: chain of $N links (0.1 m, 0.1 kg), released at $ANGLE deg, $TEND s"
  echo "# git $(cd "$SRC" && git rev-parse --short HEAD 2>/dev/null || echo unknown), $("$CC" --version | head -n 1), $(date -u +%Y-%m-%dT%H:%M:%SZ), host $(uname -n)"
  echo "# OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}; world: erp 0.2, symplectic Euler; redmax: semi-implicit Euler"
  echo "h,formulation,joint_drift_max,energy_drift,time_per_step_s,gap_vs_reduced_m"
  for h in $HS; do
    "$BUILD/libtool" --quiet --mode=execute "$TMP/artic" "$N" "$ANGLE" "$TEND" "$h"
  done
} >"$CSV"
echo "$CSV"
if command -v "$GP" >/dev/null 2>&1; then
  "$GP" -e "csv='$CSV'; out='$RES/articulated'; nlinks=$N" "$SRC/experiments/articulated.gp"
  echo "$RES/articulated.png"
  echo "$RES/articulated.pdf"
fi
