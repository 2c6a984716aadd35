#!/bin/sh
# build_peers.sh -- builds the peers' harnesses of ../shared/peers in a copy,
# for the external solvers of a campaign (experiments/full.exp, ${PEERS}).
#
#   sh experiments/build_peers.sh DIR [SHARED]
#
# Copies SHARED/peers (default: the shared tree beside this checkout, or
# $LCPLAB_SHARED) to DIR and builds there: DIR/peer_solve (Siconos LCP
# solvers; ODE, DART and Bullet on .blcp), DIR/fc3d/peer_fc3d (Siconos FC3D
# solvers), DIR/scenes/peer_scene (ODE, Bullet scenes).  ../shared is only
# read.  The peers' Debian packages must be installed (as root, once:
# make -C SHARED/peers deps).  Then:
#   lcplab experiment experiments/full.exp --var PEERS=DIR ...
# Exit: 0 built (the three paths printed), 2 bad usage, 1 a build failed
# (its log's tail shown; the harnesses that did build are kept and printed).
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 DIR [SHARED]" >&2
  exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${2:-${LCPLAB_SHARED:-$here/../shared}}
if [ ! -d "$shared/peers" ]; then
  echo "build_peers.sh: $shared/peers not found (give SHARED or set LCPLAB_SHARED)" >&2
  exit 2
fi
mkdir -p "$dir"
cp -r "$shared/peers/." "$dir/"
# each harness on its own: one that does not build (its Debian packages
# missing) leaves the others usable
failed=0
for sub in . fc3d scenes; do
  if ! make -C "$dir/$sub" >"$dir/$sub/build.log" 2>&1; then
    echo "build_peers.sh: make in $dir/$sub failed; the end of its log:" >&2
    tail -15 "$dir/$sub/build.log" >&2
    failed=1
  fi
done
# the MuJoCo engines exist only when peer_scene was built with libmujoco-dev:
# scenes/peer_scene_mujoco (a link) says so, for the scene peers' requires=
# (experiments/bench_scenes.exp)
rm -f "$dir/scenes/peer_scene_mujoco"
if [ -x "$dir/scenes/peer_scene" ] && "$dir/scenes/peer_scene" stack --n 1 --steps 1 --engine mujoco-pgs >/dev/null 2>&1; then
  ln -s peer_scene "$dir/scenes/peer_scene_mujoco"
fi
for p in peer_solve fc3d/peer_fc3d scenes/peer_scene; do
  [ -x "$dir/$p" ] && echo "$dir/$p"
done
exit "$failed"
