#!/bin/sh
# bench_large.sh -- benchmark (`make bench-large`; not a test, not in `make
# bench`: hours): issue 54's 10^4-contact problems in one run, lcplab against
# Siconos on the local and the global export, every answer judged by the
# peers' own programs.
#
#   sh experiments/bench_large.sh BUILDDIR SRCDIR [GNUPLOT]
#
# Problems: step 240 of the pyramid of 30 and 50 layers and the pile of 1500,
# 3000 and 5000 spheres, Coulomb cones (BENCH_LARGE_SCENES, default
# "pyramid:30 pyramid:50 pile:1500 pile:3000 pile:5000").
# For each tolerance of BENCH_LARGE_TOLS (default "1e-4 1e-6"):
#   local:  experiments/bench_exports.sh on the .dat export, lcplab solvers
#           BENCH_LARGE_SOLVERS (default "auto ipm nsn_ac ppa_nsn") against
#           Siconos' NSGS (BENCH_LARGE_PEER_SOLVERS), judged by
#           `peer_fc3d --check-r` (res_rel_q); its limits are bench_exports.sh's
#           (BENCH_EXPORTS_TIMEOUT, default here 300 s; BENCH_EXPORTS_MEM_GB);
#   global: the same scenes exported with --format hdf5 --global, then an
#           experiment file global_TOL.exp written here: the external lines
#           of experiments/bench_global.exp for Siconos' gfc3d
#           BENCH_LARGE_GLOBAL_PEERS (default "NSGS_WR ADMM"; each handed
#           the global file, format=own) and a profile section of lcplab's
#           BENCH_LARGE_GLOBAL_SOLVERS (default "auto ipm ppa_nsn") and those
#           peers on the exports (a folder of links to them), run by `lcplab
#           experiment --jobs 1` (time limit BENCH_GLOBAL_TIMEOUT, default 300
#           s): every answer judged by the library's residual (res_scaled), the
#           peers' own verdict recorded (reported_solved, the agreement
#           table), the fastest that solves in the winners and leaders tables
#           (experiments/BENCHMARKS.md, "Benchmark: make bench-global");
#           BENCH_LARGE_GLOBAL=no leaves this part out.
# The local part is still a script (bench_exports.sh): it judges by
# `peer_fc3d --check-r` (experiments/BENCHMARKS.md, "Benchmark: make
# bench-exports").
#
# Writes to BUILDDIR/experiments/results/HOST/bench_large/: local_TOL/
# (bench_exports.sh's files), global_TOL/ (the experiment's CSVs and
# tables), and bench_large.md, the local tables and the global leaders.
# Exit status: 0 written; 1 an export, a script or the experiment failed;
# 2 usage.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
gnuplot=${3:-}
lcplab=$builddir/cli/lcplab
scenes=${BENCH_LARGE_SCENES:-pyramid:30 pyramid:50 pile:1500 pile:3000 pile:5000}
tols=${BENCH_LARGE_TOLS:-1e-4 1e-6}
out=$builddir/experiments/results/$(uname -n)/bench_large
exports=$builddir/experiments/exports
mkdir -p "$out" "$exports"

# export_global SCENE SIZE: prints the global .hdf5 path (made once)
export_global() {
  case $1 in pyramid) key=layers ;; *) key=n ;; esac
  dir=$exports/global_$1_$2
  file=$dir/$1_step000240.global.hdf5
  if [ ! -s "$file" ]; then
    mkdir -p "$dir"
    if ! "$lcplab" export --scene "$1" --param "$key=$2" --friction cone --solver nsgs \
      --steps 240 --every 240 --format hdf5 --global --out "$dir" >"$dir/export.json" \
      2>"$dir/export.err"; then
      echo "bench_large.sh: global export of $1 $key=$2 failed:" >&2
      cat "$dir/export.err" >&2
      exit 1
    fi
  fi
  echo "$file"
}

# global_exp TOL: global_TOL.exp, the peers' external lines of bench_global.exp and one
# profile section on the folder of links to the global exports
global_exp() {
  peers_wanted=${BENCH_LARGE_GLOBAL_PEERS:-NSGS_WR ADMM}
  names=
  for p in $peers_wanted; do
    if ! grep -q "^external siconos-gfc3d-$p " "$srcdir/experiments/bench_global.exp"; then
      echo "bench_large.sh: BENCH_LARGE_GLOBAL_PEERS: no peer '$p' in bench_global.exp" >&2
      return 1
    fi
    grep "^external siconos-gfc3d-$p " "$srcdir/experiments/bench_global.exp"
    names="$names siconos-gfc3d-$p"
  done
  printf 'experiment profile global\nsolvers %s%s\nclasses fc3d\ninstances %s\n' \
    "${BENCH_LARGE_GLOBAL_SOLVERS:-auto ipm ppa_nsn}" "$names" "$links"
  printf 'tol %s\nmax_iter 100000\nmin_runs 1\nmin_time 1e-9\nmax_time 1e-9\ntime_limit %s\n' \
    "$1" "${BENCH_GLOBAL_TIMEOUT:-300}"
}

# global_run TOL: the global exports through the engine into global_TOL/
global_run() {
  links=$out/global_files
  mkdir -p "$links"
  for sc in $scenes; do
    ln -sf "$(export_global "${sc%%:*}" "${sc#*:}")" "$links/${sc%%:*}_${sc#*:}.global.hdf5"
  done
  global_exp "$1" >"$out/global_$1.exp" || return 1
  peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
  [ -x "$peers/gfc3d/peer_gfc3d" ] ||
    sh "$srcdir/experiments/build_peers.sh" "$peers" "${LCPLAB_SHARED:-$srcdir/../shared}" >/dev/null ||
    echo "bench_large.sh: some peers did not build: the global part runs without them" >&2
  rc=0
  OPENBLAS_NUM_THREADS=1 "$lcplab" experiment "$out/global_$1.exp" --out "$out/global_$1" \
    --jobs 1 --force --no-plot --var PEERS="$peers" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] # 3: a peer left no answer, its row says failed
}

md=$out/bench_large.md
printf '# bench-large (experiments/bench_large.sh)\n\n' >"$md"
for tol in $tols; do
  BENCH_EXPORTS_OUT=$out/local_$tol BENCH_EXPORTS_SCENES=$scenes BENCH_EXPORTS_TOL=$tol \
    BENCH_EXPORTS_SOLVERS=${BENCH_LARGE_SOLVERS:-auto ipm nsn_ac ppa_nsn} \
    BENCH_EXPORTS_PEER_SOLVERS=${BENCH_LARGE_PEER_SOLVERS:-NSGS} \
    BENCH_EXPORTS_TIMEOUT=${BENCH_EXPORTS_TIMEOUT:-300} \
    sh "$srcdir/experiments/bench_exports.sh" "$builddir" "$srcdir" "$gnuplot" || exit 1
  printf '## Local problems, tol %s (peer_fc3d --check-r)\n\n' "$tol" >>"$md"
  cat "$out/local_$tol/bench_exports.md" >>"$md"
  [ "${BENCH_LARGE_GLOBAL:-yes}" = no ] && continue
  global_run "$tol" || exit 1
  printf '\n## Global problems, tol %s (the library'"'"'s judge; leaders)\n\n' "$tol" >>"$md"
  grep -v '^#' "$out/global_$tol/global_leaders.csv" >>"$md"
done
echo "bench_large.sh: $md" >&2
