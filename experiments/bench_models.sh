#!/bin/sh
# bench_models.sh -- `make bench-models` (experiments/BENCHMARKS.md,
# "Benchmark: make bench-models"): MuJoCo's humanoid samples in lcplab and
# in MuJoCo's own step, one scenes section (experiments/bench_models.exp,
# through bench.sh, which builds the peers), then the Siconos peers judging
# the robots' exported contact problems: humanoid.xml and humanoid100.xml
# (--approximate, nsgs on cones, 600 steps) exported every 60th step with the
# joint rows condensed (docs/models.md, "Joint rows condensed"), local and
# global (--global: the null-space form), each local file judged by
# peer_fc3d --check-r and each global one by peer_gfc3d --check-r on the
# impulses lcplab applied, one JSON line each in
# BUILDDIR/experiments/results/HOST/bench_models/peers_judged.jsonl.
#
#   sh experiments/bench_models.sh BUILDDIR SRCDIR
set -eu
builddir=$1
srcdir=$2
peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
out=$builddir/experiments/results/$(uname -n)/bench_models
sh "$srcdir/experiments/bench.sh" bench_models "$builddir" "$srcdir" \
  --var MUJOCO_PEER="$builddir/experiments/peers/peer_mujoco_model"
judge=$peers/fc3d/peer_fc3d gjudge=$peers/gfc3d/peer_gfc3d
if [ ! -x "$judge" ] || [ ! -x "$gjudge" ]; then
  echo "bench_models.sh: $judge or $gjudge not built (experiments/build_peers.sh): no peer judged the exports" >&2
  exit 0
fi
: >"$out/peers_judged.jsonl"
for f in humanoid/humanoid.xml humanoid100/humanoid100.xml; do
  name=$(basename "$f" .xml)
  rm -rf "$out/export_$name"
  "$builddir/cli/lcplab" export --model "/usr/share/mujoco/model/$f" --approximate --steps 600 \
    --every 60 --solver nsgs --friction cone --format dat --condense-joints --global \
    --out "$out/export_$name" >"$out/export_$name.jsonl" 2>/dev/null
  for p in "$out/export_$name"/*.dat; do
    case $p in *.global.dat) continue ;; esac
    [ -f "$p" ] || continue
    "$judge" --check-r "${p%.dat}.x" "$p" >>"$out/peers_judged.jsonl"
    "$gjudge" --check-r "${p%.dat}.x" "${p%.dat}.global.dat" >>"$out/peers_judged.jsonl"
  done
done
echo "bench_models.sh: $(wc -l <"$out/peers_judged.jsonl") exported problems (local and global) judged by peer_fc3d and peer_gfc3d: $out/peers_judged.jsonl" >&2
