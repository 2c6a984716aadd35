#!/bin/sh
# bench_stacking.sh -- benchmark (`make bench-stacking`, also run by `make
# bench`; not a test): does the peers' box pyramid stand, and what does it
# cost per step?  Issue 7's stacking goal: with 50 iterations at dt 1/120 the
# pyramid collapses in Bullet from 20 layers and in ODE from 30; lcplab is to
# keep the 30-layer pyramid standing (every box within 1 cm after 5 s) with
# some solver or warm-started combination, and report that step's time next
# to the peers'.
#
#   sh experiments/bench_stacking.sh BUILDDIR SRCDIR
#
# Runs `lcplab simulate --scene pyramid --param layers=$LAYERS` (default 30),
# 600 steps of 1/120 s (5 s), with each configuration below, and reads the
# peers' ODE quickstep and Bullet runs of the same scene (50 iterations)
# from ../shared/peers/scenes/results: the step times from bench.jsonl, the
# largest box displacement from pyramid_check.jsonl.
#
# "Within 1 cm" is judged on max_settled_displacement (lcplab simulate's
# JSON): the largest distance of a box from its rest place, the start with
# the 1 mm gaps between layers closed (a box of layer j drops (j + 1) mm
# just by settling, 30 mm at the top of 30 layers).  The peers' field is
# max_body_displacement, from the start itself; lcplab's is listed too.  A
# peer counts as standing when that is under 1 cm plus the top layer's
# settling drop (layers x 1 mm).
#
# Output in BUILDDIR/experiments/results/HOST/: bench_stacking.md (one row
# per configuration and peer, written by experiments/bench_stacking.py); an
# earlier one is moved aside with a UTC timestamp suffix.  Exit: 0 done, 1 a run failed, 2 usage / missing inputs.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
builddir=$1
srcdir=$2
peers=${LCPLAB_PEERS:-$srcdir/../shared/peers}
lcplab=$builddir/cli/lcplab
layers=${LAYERS:-30}
if [ ! -x "$lcplab" ]; then
  echo "$0: $lcplab is not built" >&2
  exit 2
fi
results=$peers/scenes/results
if [ ! -f "$results/bench.jsonl" ]; then
  echo "$0: $results/bench.jsonl not found (the peers' stored sweep)" >&2
  exit 2
fi
out=$builddir/experiments/results/$(uname -n)
mkdir -p "$out"
[ -e "$out/bench_stacking.md" ] &&
  mv "$out/bench_stacking.md" "$out/bench_stacking.md.$(date -u +%Y%m%dT%H%M%SZ)"
runs=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$runs" "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
# label|options: the world's defaults (its stacking defaults: margin 2 mm,
# warm factor 1, omega 0.8, slop 0.5 mm; docs/dynamics.md, "Stacking
# defaults"), each of the four set back alone, the settings before them, and
# the earlier bench-scenes settings; the 30-layer pyramid stood only from
# 100 sweeps before the stacking defaults
k=0
while IFS='|' read -r label opts; do
  k=$((k + 1))
  echo "lcplab pyramid layers=$layers: $label ..." >&2
  # shellcheck disable=SC2086 # opts is a list of options
  s=$("$lcplab" simulate --scene pyramid --param "layers=$layers" --solver pgs_wide $opts \
        --steps 600 --dt 1/120 --csv "$work/run_$k.csv") || exit 1
  printf '%s|%s|%s\n' "$label" "$opts" "$s" >>"$runs"
done <<EOF
pgs_wide, 50 sweeps, world defaults|--max-iter 50
pgs_wide, 50 sweeps, world defaults, top-down|--max-iter 50 --contact-order top-down
pgs_wide, 50 sweeps, defaults but margin 0|--max-iter 50 --margin 0
pgs_wide, 50 sweeps, defaults but warm factor 0.85|--max-iter 50 --warm-factor 0.85
pgs_wide, 50 sweeps, defaults but omega 1|--max-iter 50 --omega 1
pgs_wide, 50 sweeps, defaults but slop 0|--max-iter 50 --slop 0
pgs_wide, 50 sweeps, settings before the stacking defaults|--max-iter 50 --margin 0 --warm-factor 0.7 --omega 1 --slop 0
pgs_wide, 50 sweeps, margin 0.002, warm 0.85, omega 1, slop 0, top-down (earlier bench-scenes)|--max-iter 50 --margin 0.002 --warm-factor 0.85 --omega 1 --slop 0 --contact-order top-down
pgs_wide, 100 sweeps, settings before the stacking defaults|--max-iter 100 --margin 0 --warm-factor 0.7 --omega 1 --slop 0
EOF
python3 "$srcdir/experiments/bench_stacking.py" "$runs" "$results" "$layers" "$out/bench_stacking.md"
echo "$out/bench_stacking.md"
