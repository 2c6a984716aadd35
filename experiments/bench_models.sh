#!/bin/sh
# bench_models.sh -- `make bench-models` (experiments/BENCHMARKS.md,
# "Benchmark: make bench-models"; issue 82, item 3): lcplab against MuJoCo
# 2.2.2 and 3.12.0 on robot files, a work-precision table and figure
# (experiments/bench_models.py: the runs, the table, the goal's ratios;
# experiments/bench_models.gp: the figure), then the Siconos peers judging
# the robots' exported contact problems.
#
#   sh experiments/bench_models.sh BUILDDIR SRCDIR
#
# 1. MuJoCo 3.12.0: ../shared/peers/mujoco3/build.sh into
#    BUILDDIR/experiments/peers/mujoco3 (offline, 4-5 minutes the first time,
#    0.1 s after; the log in OUT/mujoco3_build.log), then the harness
#    experiments/peers/mujoco_model.c linked against it as
#    BUILDDIR/experiments/peers/peer_mujoco3_model (beside make's
#    peer_mujoco_model, against Debian's 2.2.2).  A build that fails leaves
#    3.12.0's rows in the table with the reason.  LCPLAB_MUJOCO3=no skips it
#    (rows: "not built: LCPLAB_MUJOCO3=no").
# 2. The runs (one process at a time, single-threaded, interleaved across the
#    engines), OUT/rows.jsonl; BENCH_MODELS_ARGS adds options of
#    `bench_models.py run` (e.g. "--steps 200 --files humanoid").
# 3. The table OUT/bench_models.md (printed, with the goal's three ratios),
#    the figure OUT/bench_models.png and .pdf (step time against
#    self-consistency, one panel per file, one curve per engine and solver).
# 4. The Siconos peers judging the exports (as before issue 82): humanoid.xml
#    and humanoid100.xml (--approximate, nsgs on cones, 600 steps) exported
#    every 60th step with the joint rows condensed (docs/models.md, "Joint
#    rows condensed"), local and global, judged by peer_fc3d --check-r and
#    peer_gfc3d --check-r, OUT/peers_judged.jsonl (skipped without them).
# OUT is BUILDDIR/experiments/results/HOST/bench_models.  PYTHON (default
# python3), GNUPLOT (default gnuplot), LCPLAB_SHARED (default SRCDIR/../shared).
set -eu
builddir=$1
srcdir=$2
py=${PYTHON:-python3}
gp=${GNUPLOT:-gnuplot}
shared=${LCPLAB_SHARED:-$srcdir/../shared}
peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
out=$builddir/experiments/results/$(uname -n)/bench_models
mkdir -p "$out"
# shellcheck source=experiments/outfile.sh
. "$srcdir/experiments/outfile.sh"

# 1. MuJoCo 3.12.0 and its harness; sets mj3 (the program) or mj3_why
mj3="" mj3_why=""
prefix=$builddir/experiments/peers/mujoco3
mj3prog=$builddir/experiments/peers/peer_mujoco3_model
if [ "${LCPLAB_MUJOCO3:-yes}" = no ]; then
  mj3_why="not built: LCPLAB_MUJOCO3=no"
elif [ ! -f "$shared/peers/mujoco3/build.sh" ]; then
  mj3_why="not built: $shared/peers/mujoco3/build.sh not found"
elif ! out_new bench_models.sh "$out/mujoco3_build.log"; then
  exit 1
elif ! bash "$shared/peers/mujoco3/build.sh" "$prefix" >"$out/mujoco3_build.log" 2>&1; then
  mj3_why="not built: build.sh failed ($out/mujoco3_build.log)"
elif ! ${CC:-cc} -O2 -std=c11 -I"$prefix/include" "$srcdir/experiments/peers/mujoco_model.c" \
  -o "$mj3prog" -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lmujoco -lm >>"$out/mujoco3_build.log" 2>&1; then
  mj3_why="not built: the harness did not compile ($out/mujoco3_build.log)"
else
  mj3=$mj3prog
fi
[ -z "$mj3_why" ] || echo "bench_models.sh: MuJoCo 3.12.0 $mj3_why" >&2

# 2. the runs, 3. the table and the figure
mj2=$builddir/experiments/peers/peer_mujoco_model
set -- --lcplab "$builddir/cli/lcplab" --srcdir "$srcdir"
[ -x "$mj2" ] && set -- "$@" --peer222 "$mj2"
if [ -n "$mj3" ]; then set -- "$@" --peer312 "$mj3"; else set -- "$@" --peer312-missing "$mj3_why"; fi
# shellcheck disable=SC2086 # BENCH_MODELS_ARGS: words of options, by design
"$py" "$srcdir/experiments/bench_models.py" run "$out" "$@" ${BENCH_MODELS_ARGS:-}
"$py" "$srcdir/experiments/bench_models.py" table "$out/rows.jsonl" --md "$out/bench_models.md" \
  --dat "$out/bench_models.dat"
echo "bench_models.sh: $out/bench_models.md" >&2
if command -v "$gp" >/dev/null 2>&1; then
  # shellcheck source=experiments/gp_run.sh
  . "$srcdir/experiments/gp_run.sh"
  files=$(sed -n '1s/.*per file (\([^)]*\)).*/\1/p' "$out/bench_models.dat")
  gp_run "$gp" "$srcdir/experiments/bench_models.gp" "$out/bench_models" \
    "file:data.dat=$out/bench_models.dat" "files=$files" &&
    echo "bench_models.sh: $out/bench_models.png, $out/bench_models.pdf" >&2
fi

# 4. the Siconos peers judging the exports
judge=$peers/fc3d/peer_fc3d gjudge=$peers/gfc3d/peer_gfc3d
if [ ! -x "$judge" ] || [ ! -x "$gjudge" ] || [ "${BENCH_MODELS_JUDGE:-yes}" = no ]; then
  echo "bench_models.sh: $judge or $gjudge not built (experiments/build_peers.sh) or BENCH_MODELS_JUDGE=no: no peer judged the exports" >&2
  exit 0
fi
out_new bench_models.sh "$out/peers_judged.jsonl" || exit 1
for f in humanoid/humanoid.xml humanoid100/humanoid100.xml; do
  name=$(basename "$f" .xml)
  rm -rf "$out/export_$name"
  out_new bench_models.sh "$out/export_$name.jsonl" || exit 1
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
