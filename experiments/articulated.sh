#!/bin/sh
# articulated.sh -- experiment (not a test): the same hinge chain in maximal
# coordinates (the world's joints, libdynamics/world.c + joint.c, solved by
# "direct" (exact) and by "pgs" at 50 sweeps) and in reduced coordinates
# (dyn_redmax, libdynamics/redmax.c), for a few steps h: joint drift, energy
# drift and time per step side by side (issue #5).
#
#   sh experiments/articulated.sh RESULTS_DIR [BUILDDIR] [SRCDIR] [GNUPLOT]
#
# BUILDDIR (default: the current directory) holds the built program
# experiments/articulated (experiments/articulated.c, built by
# `make articulated`, which then runs this script); SRCDIR (default: this
# script's parent directory) the gnuplot script.  The chain
# is the `chain` scene (links 0.1 m, 0.1 kg, 1 cm square rods): n =
# ARTIC_N links (default 20), released at ARTIC_ANGLE degrees from the
# downward vertical (default 60), run for ARTIC_T seconds (default 2) at
# each h in ARTIC_H (default "2e-3 1e-3 5e-4 2.5e-4 1e-4").  The reduced
# model is built from the scene's bodies (same masses, inertias, poses) with
# hinges at the same pivots.
#
# Output in RESULTS_DIR (created if missing):
#   articulated.csv   '#' preamble (the parameters, the library's provenance:
#                     `articulated --provenance`, exp_prov_write; the date), then
#                     h, formulation, joint_drift_max (m: max over steps and
#                     joints of the anchor separation, dyn_joint_anchor_error;
#                     for the reduced model, of its bodies put through the
#                     same joints: zero up to rounding by construction),
#                     energy_drift (max over steps of |E - E0| / S, S =
#                     max(|E0|, M |g| D) of the chain's start: the one energy
#                     drift, docs/dynamics.md; E = T + V with V = -sum m
#                     g.r), time_per_step_s
#                     (mean wall time of one step), gap_vs_reduced_m (max
#                     distance of a link centre from the reduced model's at
#                     the end; 0 for the reduced row)
#   articulated.png, articulated.pdf   the figure (experiments/articulated.gp),
#                     when gnuplot is there.
# Never asserts; prints the CSV path.
set -eu

RES=${1:?usage: articulated.sh RESULTS_DIR [BUILDDIR] [SRCDIR] [GNUPLOT]}
BUILD=${2:-$(pwd)}
SRC=${3:-$(cd "$(dirname "$0")/.." && pwd)}
GP=${4:-gnuplot}
# shellcheck source=experiments/gp_run.sh
. "$SRC/experiments/gp_run.sh"
# shellcheck source=experiments/outfile.sh
. "$SRC/experiments/outfile.sh"
N=${ARTIC_N:-20}
ANGLE=${ARTIC_ANGLE:-60}
TEND=${ARTIC_T:-2}
HS=${ARTIC_H:-"2e-3 1e-3 5e-4 2.5e-4 1e-4"}

mkdir -p "$RES"
RES=$(cd "$RES" && pwd)
BUILD=$(cd "$BUILD" && pwd)
PROG=$BUILD/experiments/articulated

if [ ! -x "$PROG" ]; then
  echo "articulated.sh: $PROG is not built (run 'make articulated' in $BUILD)" >&2
  exit 2
fi

CSV="$RES/articulated.csv"
out_new articulated.sh "$CSV" || exit 1
{
  echo "# articulated.sh: chain of $N links (0.1 m, 0.1 kg), released at $ANGLE deg, $TEND s"
  "$PROG" --provenance "$SRC"
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}; world: erp 0.2, symplectic Euler; redmax: semi-implicit Euler"
  echo "h,formulation,joint_drift_max,energy_drift,time_per_step_s,gap_vs_reduced_m"
  for h in $HS; do
    "$PROG" "$N" "$ANGLE" "$TEND" "$h"
  done
} >"$CSV"
echo "$CSV"
if command -v "$GP" >/dev/null 2>&1; then
  gp_run "$GP" "$SRC/experiments/articulated.gp" "$RES/articulated" "file:data.csv=$CSV" "nlinks=$N" || exit 1
  echo "$RES/articulated.png"
  echo "$RES/articulated.pdf"
fi
