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
#   global: the same scenes exported with --format hdf5 --global, then
#           experiments/bench_global.sh on those files, lcplab solvers
#           BENCH_LARGE_GLOBAL_SOLVERS (default "auto ipm ppa_nsn") against
#           Siconos' gfc3d BENCH_LARGE_GLOBAL_PEERS (default "NSGS_WR ADMM"),
#           judged by `peer_gfc3d --check-r` (res_rel_1q); BENCH_LARGE_GLOBAL=no
#           leaves this part out.
# Why a script and not an experiment file (experiments/README.md, "External
# solvers"): an experiment judges every answer by the library's residual
# (res_scaled), while issue 54 is judged by the peers' 2-norm programs, and
# an experiment cannot hand a peer the global problem of a scene.
#
# Writes to BUILDDIR/experiments/results/HOST/bench_large/: local_TOL/ and
# global_TOL/ (the two scripts' files), and bench_large.md, their tables one
# after the other.  Exit status: 0 written; 1 an export or a script failed;
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
  files=
  for sc in $scenes; do files="$files $(export_global "${sc%%:*}" "${sc#*:}")"; done
  BENCH_GLOBAL_OUT=$out/global_$tol BENCH_GLOBAL_FILES=$files BENCH_GLOBAL_TOL=$tol \
    BENCH_GLOBAL_SOLVERS=${BENCH_LARGE_GLOBAL_SOLVERS:-auto ipm ppa_nsn} \
    BENCH_GLOBAL_PEER_SOLVERS=${BENCH_LARGE_GLOBAL_PEERS:-NSGS_WR ADMM} \
    BENCH_GLOBAL_TIMEOUT=${BENCH_GLOBAL_TIMEOUT:-300} \
    sh "$srcdir/experiments/bench_global.sh" "$builddir" "$srcdir" || exit 1
  printf '\n## Global problems, tol %s (peer_gfc3d --check-r)\n\n' "$tol" >>"$md"
  cat "$out/global_$tol/bench_global.md" >>"$md"
done
echo "bench_large.sh: $md" >&2
