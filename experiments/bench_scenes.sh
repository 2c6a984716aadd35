#!/bin/sh
# bench_scenes.sh -- benchmark (`make bench-scenes`, also run by `make bench`;
# not a test): whole simulation steps of lcplab next to ODE quickstep and
# Bullet (its default one friction row, and two rows: the equal-work run) on
# the peers' scenes (../shared/peers/scenes: the same geometry,
# masses, friction, dt = 1/120, 600 steps, 50 solver iterations).
#
#   sh experiments/bench_scenes.sh BUILDDIR SRCDIR [GNUPLOT]
#
# lcplab runs `simulate --solver $SOLVER --max-iter 50` (default pgs_wide:
# pgs's sweep with four independent groups of rows per AVX2 instruction, pgs's
# iterates bit for bit; SOLVER=pgs for the plain loop; box friction, warm start, AUTO storage:
# matrix-free factored above 256 rows) on pile N = $PILES and pyramid
# L = $PYRAMIDS (environment, defaults below), with collision margin
# $MARGIN m and warm-start factor $WARM, defaults the world's 0.002 and 1
# (its stacking defaults, with omega 0.8 and slop 0.5 mm: docs/dynamics.md,
# "Stacking defaults"): speculative contacts up to 2 mm apart (Bullet keeps
# contacts up to a small positive distance too; MARGIN=0.001 gives its
# contact counts, 0.002 up to 9 % more).  Contact order $ORDER, default top-down
# (--contact-order top-down: the pairs highest first, not the broad phase's
# order along x; less penetration on every pyramid, fuller pgs_wide lanes:
# experiments/README.md).  A value other than the world's default shows in
# the engine label (-top-down; -margin0-warm0.7 for the settings before
# the stacking defaults).
# The peers' numbers are read from their stored sweep,
# ../shared/peers/scenes/results/bench.jsonl (measured on this machine type
# by scripts/bench.sh).  LCPLAB_PEERS_LIVE=1 builds the peers and runs them
# here instead, on the same sizes, each size's ODE and Bullet runs just
# before lcplab's, Bullet twice: its default and `--bullet-friction2` (two
# tangent rows per contact, the work of lcplab's and ODE's box friction; the
# stored sweep has only the default, so the equal-work column needs a live
# run): on a shared machine whose speed drifts by tens of per cent
# within an hour, interleaving keeps the drift out of the ratios (~20 min
# for the default sizes).  REPEAT=R (default 1) runs each size R times
# (live: the peers too, interleaved) and keeps each engine's fastest median:
# the drift and bursts of a shared machine only ever slow a run down.  Both
# sides report the median step time and the mean contacts per step over the
# last 480 of 600 steps, and the deepest penetration at the end; the
# pyramids' largest |r_end - r_start| of a box comes from each peer run's
# JSON (live) or the peers' results/pyramid_check.jsonl (same settings; the
# stored bench.jsonl predates the field).
#
# Output in BUILDDIR/experiments/results/HOST/: bench_scenes.csv (one row per
# engine, scene, size), bench_scenes.md (the table, with lcplab's speed-up
# over each peer per contact: (t_peer / c_peer) / (t_lcplab / c_lcplab);
# and over Bullet per constraint row, since Bullet solves two rows a contact
# (normal and one friction direction, solver mode 260: peers' README) where
# lcplab's box friction, ODE's dContactApprox1 and Bullet with two friction
# directions solve three), and
# bench_scenes.png / .pdf (time per step against contacts, log-log, every
# engine), and under the table the least-squares slope of log(step time)
# on log(contacts) per engine and scene (1 = linear growth); the CSV and
# the table are written by experiments/bench_scenes.py.  Earlier
# results are moved aside with a UTC timestamp suffix.
# Exit: 0 done, 1 a run failed, 2 usage / missing inputs.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
gnuplot=${3:-gnuplot}
# shellcheck source=experiments/gp_run.sh
. "$srcdir/experiments/gp_run.sh"
peers=${LCPLAB_PEERS:-$srcdir/../shared/peers}
lcplab=$builddir/cli/lcplab
piles=${PILES:-500 1000 2000 3000 5000}
pyramids=${PYRAMIDS:-10 20 30 40 50}
solver=${SOLVER:-pgs_wide}
margin=${MARGIN:-0.002}
warm=${WARM:-1}
order=${ORDER:-top-down}
repeat=${REPEAT:-1}
case $repeat in
  ''|*[!0-9]*) repeat=bad ;;
esac
if [ "$repeat" = bad ] || [ "$repeat" -lt 1 ]; then
  echo "$0: REPEAT must be a positive integer, got '${REPEAT:-}'" >&2
  exit 2
fi
if [ ! -x "$lcplab" ]; then
  echo "$0: $lcplab is not built" >&2
  exit 2
fi
jsonl=$peers/scenes/results/bench.jsonl
peer=
tmp=
if [ "${LCPLAB_PEERS_LIVE:-0}" = 1 ]; then
  # the peers are built in a copy and run on the same sizes, interleaved
  # with lcplab (below); the copy's stored results are replaced
  tmp=$(mktemp -d)
  cp -r "$peers/scenes" "$tmp/" && (cd "$tmp/scenes" && make >/dev/null) || exit 1
  peer=$tmp/scenes/peer_scene
  jsonl=$tmp/scenes/results/bench.jsonl
  : >"$jsonl"
fi
if [ ! -f "$jsonl" ]; then
  echo "$0: $jsonl not found (the peers' stored sweep)" >&2
  exit 2
fi
out=$builddir/experiments/results/$(uname -n)
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for f in bench_scenes.csv bench_scenes.md bench_scenes.png bench_scenes.pdf; do
  [ -e "$out/$f" ] && mv "$out/$f" "$out/$f.$stamp"
done
runs=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$runs" "$work" ${tmp:+"$tmp"}' EXIT
export OPENBLAS_NUM_THREADS=1
# live peers: ODE, Bullet and Bullet with two friction rows on one scene
# size, just before lcplab's run
live_peers() {
  [ -n "$peer" ] || return 0
  for e in ode-quickstep bullet bullet-friction2; do
    echo "$e $* ..." >&2
    case $e in
      bullet-friction2) engine="--engine bullet --bullet-friction2" ;;
      *) engine="--engine $e" ;;
    esac
    # shellcheck disable=SC2086 # $engine is two or three words
    "$peer" "$@" $engine --iters 50 --dt 1/120 --steps 600 >>"$jsonl" || exit 1
  done
}
# one scene size, REPEAT times: the live peers (if any), then lcplab.
# run_size SCENE KEY SIZE: KEY is the scene parameter, and the peers' --KEY
run_size() {
  for r in $(seq "$repeat"); do
    live_peers "$1" --"$2" "$3"
    echo "lcplab $1 $2=$3 ($r of $repeat) ..." >&2
    s=$("$lcplab" simulate --scene "$1" --param "$2=$3" --solver "$solver" --margin "$margin" \
          --warm-factor "$warm" --contact-order "$order" --max-iter 50 --steps 600 --dt 1/120 \
          --csv "$work/$1_$3_$r.csv") || exit 1
    echo "$1 $3 $work/$1_$3_$r.csv $s" >>"$runs"
  done
}
for n in $piles; do run_size pile n "$n"; done
for l in $pyramids; do run_size pyramid layers "$l"; done
label=lcplab-$solver
[ "$margin" = 0.002 ] || label=$label-margin$margin
[ "$warm" = 1 ] || label=$label-warm$warm
[ "$order" = broadphase ] || label=$label-$order
python3 "$srcdir/experiments/bench_scenes.py" "$runs" "$jsonl" "$out" "$label"
if command -v "$gnuplot" >/dev/null 2>&1; then
  gp_run "$gnuplot" "$srcdir/experiments/bench_scenes.gp" "$out/bench_scenes" \
    "file:data.csv=$out/bench_scenes.csv" "lcp=lcplab $solver" \
    "note=lcplab: collision margin $margin m, warm-start factor $warm, contact order $order" || exit 1
  echo "$out/bench_scenes.png"
  echo "$out/bench_scenes.pdf"
else
  echo "$0: gnuplot not found: no figure" >&2
fi
echo "$out/bench_scenes.csv"
echo "$out/bench_scenes.md"
