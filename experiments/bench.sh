#!/bin/sh
# bench.sh -- the benchmarks run through the experiment engine (`make
# bench-fc3d`, `bench-pivot`, `bench-scenes`, `bench-stacking`, `bench-global`,
# `bench-validate`; experiments/BENCHMARKS.md, "Benchmarks"): the
# experiment file experiments/NAME.exp run by `lcplab experiment`, the peers
# of ../shared/peers as its external solvers, one task at a time.  It writes
# what any experiment writes (CSV, profiles or slopes, tables, figures) into
# BUILDDIR/experiments/results/HOST/NAME/; run again, it resumes there.
#
#   sh experiments/bench.sh NAME BUILDDIR SRCDIR [lcplab experiment options...]
#
# The peers are built once by experiments/build_peers.sh into
# $LCPLAB_PEERS_BUILD (default BUILDDIR/experiments/peers) from
# $LCPLAB_SHARED/peers (default SRCDIR/../shared); if they cannot be built
# (their Debian packages: scripts/deps.sh's PEER_PACKAGES, which the README's
# first command installs) the experiment runs without them and says so.  Extra options go to `lcplab
# experiment` (e.g. --force, --no-plot).
# Exit: lcplab experiment's (0 done, 2 bad input), except 3 (a task failed,
# e.g. a peer crashed: its rows say failed), which is 0 after a note.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 NAME BUILDDIR SRCDIR [lcplab experiment options...]" >&2
  exit 2
fi
name=$1
builddir=$2
srcdir=$3
shift 3
exp=$srcdir/experiments/$name.exp
lcplab=$builddir/cli/lcplab
shared=${LCPLAB_SHARED:-$srcdir/../shared}
peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
if [ ! -f "$exp" ]; then
  echo "bench.sh: $exp not found" >&2
  exit 2
fi
if [ ! -x "$lcplab" ]; then
  echo "bench.sh: $lcplab is not built" >&2
  exit 2
fi
if [ ! -x "$peers/peer_solve" ] || [ ! -x "$peers/fc3d/peer_fc3d" ] ||
  [ ! -x "$peers/scenes/peer_scene" ] || [ ! -x "$peers/gfc3d/peer_gfc3d" ]; then
  echo "bench.sh: building the peers in $peers ..." >&2
  sh "$srcdir/experiments/build_peers.sh" "$peers" "$shared" >/dev/null ||
    echo "bench.sh: some peers did not build (named above): $name runs without them" >&2
fi
export OPENBLAS_NUM_THREADS=1
rc=0
"$lcplab" experiment "$exp" --out "$builddir/experiments/results/$(uname -n)/$name" \
  --jobs 1 --var SHARED="$shared" --var PEERS="$peers" "$@" || rc=$?
if [ "$rc" -eq 3 ]; then
  # a peer that crashes or writes no answer is a row `failed` (its failures
  # table counts it), not the end of `make bench`
  echo "bench.sh: $name: some runs left no answer (status failed or error: ${name}_failures.csv); the outputs are complete" >&2
  rc=0
fi
exit "$rc"
