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
# label|options: the world's defaults, Bullet's contact count and warm
# factor, then the 2 mm margin with 50, 100 and 150 sweeps, each in the
# broad phase's contact order and top-down (bench-scenes' settings: 50
# sweeps, top-down); the 30-layer pyramid stood from 100 sweeps in the
# broad phase's order when this was written
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
pgs_wide, 50 sweeps, margin 0.001, warm 0.85|--max-iter 50 --margin 0.001 --warm-factor 0.85
pgs_wide, 50 sweeps, margin 0.002, warm 0.85|--max-iter 50 --margin 0.002 --warm-factor 0.85
pgs_wide, 50 sweeps, margin 0.002, warm 0.85, top-down (bench-scenes)|--max-iter 50 --margin 0.002 --warm-factor 0.85 --contact-order top-down
pgs_wide, 100 sweeps, margin 0.002, warm 0.85|--max-iter 100 --margin 0.002 --warm-factor 0.85
pgs_wide, 100 sweeps, margin 0.002, warm 0.85, top-down|--max-iter 100 --margin 0.002 --warm-factor 0.85 --contact-order top-down
pgs_wide, 150 sweeps, margin 0.002, warm 0.85|--max-iter 150 --margin 0.002 --warm-factor 0.85
pgs_wide, 150 sweeps, margin 0.002, warm 0.85, top-down|--max-iter 150 --margin 0.002 --warm-factor 0.85 --contact-order top-down
EOF
python3 "$srcdir/experiments/bench_stacking.py" "$runs" "$results" "$layers" "$out/bench_stacking.md"
echo "$out/bench_stacking.md"
