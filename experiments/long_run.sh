#!/bin/sh
# long_run.sh -- a long simulation that must stay finite with bounded energy
# (issue 26, "long and deterministic runs"): the 500-sphere pile for 10^5
# steps (833 s of simulated time at 1/120 s), pgs at 50 sweeps, the world's
# default failure policy.  A benchmark, not a test: it takes minutes (run it
# at low priority: nice sh experiments/long_run.sh BUILDDIR OUTDIR).
#
#   sh experiments/long_run.sh BUILDDIR OUTDIR [simulate options...]
#
# Environment: STEPS (default 100000), N (spheres, default 500), SOLVER
# (default pgs).  Extra arguments go to lcplab simulate.
#
# Checks, on OUTDIR/pile.csv (one row per step):
#   finite     every energy, kinetic energy, penetration and residual is a
#              number (no nan / inf in the CSV);
#   bounded    E(t) <= E0 + 1e-3 |E0|: a pile of spheres falling into a box
#              only loses energy (restitution 0, friction, no motors; the
#              Baumgarte term may add a little, far below 0.1 %), and E(t)
#              >= -1 J (potential m g z >= 0 for a sphere whose centre is
#              above the floor; a sphere sunk through the floor would show);
#   settled    (reported, not judged) the largest kinetic energy of the
#              last 1000 steps: how much the settled pile still jitters;
#   no jump    no step gains more than 0.1 % of |E0| (a bad impulse adds
#              energy in one step; inelastic landings only take it away).
# Prints one line per check and the JSON summary; exit 0 if all hold, 1 if
# any fails, 2 on bad usage.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILDDIR OUTDIR [simulate options...]" >&2
  exit 2
fi
build=$1
out=$2
shift 2
lcplab="$build/cli/lcplab"
[ -x "$lcplab" ] || { echo "$0: $lcplab is not built" >&2; exit 2; }
mkdir -p "$out" || exit 2
steps=${STEPS:-100000}
n=${N:-500}
solver=${SOLVER:-pgs}
csv="$out/pile.csv"
# shellcheck source=experiments/outfile.sh
. "$(dirname "$0")/outfile.sh"
out_new long_run.sh "$out/pile.json" || exit 2
t0=$(date +%s)
"$lcplab" simulate --scene pile --param n="$n" --solver "$solver" --steps "$steps" \
  --csv "$csv" --force "$@" >"$out/pile.json" || { echo "$0: simulate failed" >&2; exit 1; }
t1=$(date +%s)
echo "pile $n, $solver, $steps steps: $((t1 - t0)) s wall"
cat "$out/pile.json"
e0=$(sed -n 's/.*"energy_start":\([^,]*\).*/\1/p' "$out/pile.json")
awk -F, -v steps="$steps" -v e0="$e0" '
  NR == 1 { next }
  {
    for (i = 2; i <= 12; i++) if (i != 11 && $i !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) nonfinite++
    e = $5 + 0
    if (NR == 2 || e > emax) emax = e
    if (NR == 2 || e < emin) emin = e
    if (NR > 2 && e - eprev > jump) { jump = e - eprev; jstep = $1 }
    eprev = e
    if ($1 > steps - 1000 && $3 + 0 > kmax) kmax = $3 + 0
    rows++
  }
  END {
    ae0 = e0 < 0 ? -e0 : e0
    ok = 1
    printf "finite   %s (%d non-finite fields in %d rows)\n", nonfinite ? "FAIL" : "ok", nonfinite, rows
    if (nonfinite || rows != steps) ok = 0
    b = emax <= e0 + 1e-3 * ae0 && emin >= -1
    printf "bounded  %s (E0 %.6g J, max %.6g J, min %.6g J)\n", b ? "ok" : "FAIL", e0, emax, emin
    if (!b) ok = 0
    printf "settled  (kinetic energy of the last 1000 steps <= %.3g J)\n", kmax
    j = jump <= 1e-3 * ae0
    printf "no jump  %s (largest one-step energy gain %.3g J at step %d)\n", j ? "ok" : "FAIL", jump, jstep
    if (!j) ok = 0
    exit !ok
  }' "$csv"
