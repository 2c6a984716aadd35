#!/bin/sh
# build_peers.sh -- builds the peers' harnesses of ../shared/peers in a copy,
# for the external solvers of a campaign (experiments/default.exp's peers_*
# sections, full.exp, the benchmarks; ${PEERS}).
#
#   sh experiments/build_peers.sh DIR [SHARED]
#
# Copies SHARED/peers (default: the shared tree beside this checkout, or
# $LCPLAB_SHARED) to DIR and builds there, each harness on its own:
# DIR/peer_solve (Siconos LCP solvers; ODE, DART and Bullet on .blcp),
# DIR/fc3d/peer_fc3d (Siconos FC3D solvers), DIR/scenes/peer_scene (ODE,
# Bullet and, with libmujoco-dev, MuJoCo scenes), DIR/gfc3d/peer_gfc3d
# (Siconos global FC3D).  ../shared is only read (read-only in CI).  The
# peers' Debian packages must be installed (scripts/deps.sh,
# install_peer_packages: the README's first command does it).  A harness
# that does not build is named with the end of its log, and the others are
# built all the same: a campaign then runs without it (its externals'
# requires= fails: "external solvers left out").  Then:
#   lcplab experiment experiments/full.exp --var PEERS=DIR ...
# Exit: 0 all built, 1 some did not build (the built ones are usable),
# 2 bad usage.  The paths of the built programs are printed on stdout.
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
# a link in an earlier copy is replaced, never written through
cp -r --remove-destination "$shared/peers/." "$dir/"
# shellcheck source=experiments/outfile.sh
. "$here/experiments/outfile.sh"
# a copied tree may carry programs built elsewhere: every harness is rebuilt
rm -f "$dir/peer_solve" "$dir/gen_lcp" "$dir/fc3d/peer_fc3d" "$dir/scenes/peer_scene" \
  "$dir/gfc3d/peer_gfc3d"
rc=0
for prog in peer_solve fc3d/peer_fc3d scenes/peer_scene gfc3d/peer_gfc3d; do
  sub=$(dirname "$prog")
  if ! out_new build_peers.sh "$dir/$sub/build.log"; then
    rc=1
  elif make -C "$dir/$sub" "$(basename "$prog")" >"$dir/$sub/build.log" 2>&1; then
    echo "$dir/$prog"
  else
    echo "build_peers.sh: $prog not built (make in $dir/$sub failed; is its Debian package" \
      "missing? the end of $dir/$sub/build.log:)" >&2
    tail -5 "$dir/$sub/build.log" | sed 's/^/  /' >&2
    rc=1
  fi
done
# the MuJoCo engines exist only when peer_scene was built with libmujoco-dev:
# scenes/peer_scene_mujoco (a link) says so, for the scene peers' requires=
# (experiments/bench_scenes.exp, the main job's scenes section)
rm -f "$dir/scenes/peer_scene_mujoco"
if [ -x "$dir/scenes/peer_scene" ] &&
  "$dir/scenes/peer_scene" stack --n 1 --steps 1 --engine mujoco-pgs >/dev/null 2>&1; then
  ln -s peer_scene "$dir/scenes/peer_scene_mujoco"
fi
exit "$rc"
