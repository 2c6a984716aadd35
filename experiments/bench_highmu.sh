#!/bin/sh
# bench_highmu.sh -- `make bench-highmu` (issue 80, item 4): the high-friction family of
# experiments/highmu_family.py (containers, piles, stacks, inclines, impacts, mixed bins at
# mu 0.8..3; ten to several hundred contacts) written by the build's Python package, then
# lcplab's auto at --tol 1e-8 against Siconos' PROX, NSGS and NSN_AC in the same run, every
# answer judged by peer_fc3d --check-r (experiments/bench_highmu.py: the table's columns).
#
#   sh experiments/bench_highmu.sh BUILDDIR SRCDIR
#
# Environment: BENCH_HIGHMU_SIZES ("small medium large" by default), BENCH_HIGHMU_TIME_LIMIT
# (60 s a solve), PYTHON (python3), LCPLAB_PEERS_BUILD (BUILDDIR/experiments/peers, built by
# build_peers.sh when peer_fc3d is not there), LCPLAB_SHARED.  The problems and the table go
# to BUILDDIR/experiments/results/bench-highmu-HOST/ (family/, table.md).  Exit: 0 every goal
# met and no false claim, 1 otherwise, 2 no peer or no Python package.
set -eu
builddir=$1
srcdir=$2
py=${PYTHON:-python3}
out=$builddir/experiments/results/bench-highmu-$(uname -n)
peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
if [ ! -x "$peers/fc3d/peer_fc3d" ]; then
  sh "$srcdir/experiments/build_peers.sh" "$peers" "${LCPLAB_SHARED:-$srcdir/../shared}" >/dev/null ||
    echo "bench_highmu.sh: some peers did not build" >&2
fi
if [ ! -x "$peers/fc3d/peer_fc3d" ]; then
  echo "bench_highmu.sh: no $peers/fc3d/peer_fc3d (Siconos' harness): nothing to compare with" >&2
  exit 2
fi
mkdir -p "$out"
rm -rf "$out/family"
for size in ${BENCH_HIGHMU_SIZES:-small medium large}; do
  PYTHONPATH="$builddir/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$py" "$srcdir/experiments/highmu_family.py" "$out/family" --size "$size" >/dev/null
done
OPENBLAS_NUM_THREADS=1 "$py" "$srcdir/experiments/bench_highmu.py" "$builddir/cli/lcplab" \
  "$peers/fc3d/peer_fc3d" "$out/family" --tol 1e-8 \
  --time-limit "${BENCH_HIGHMU_TIME_LIMIT:-60}" --out "$out/table.md"
