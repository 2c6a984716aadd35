#!/bin/sh
# bench_large.sh -- benchmark (`make bench-large`; not a test, not in `make
# bench`: hours): issue 54's 10^4-contact problems in one run, lcplab against
# Siconos on the local and the global export, through the experiment engine.
#
#   sh experiments/bench_large.sh BUILDDIR SRCDIR [GNUPLOT]
#
# Problems: the pyramid of 30 and 50 layers and the pile of 1500, 3000 and
# 5000 spheres at step 240, Coulomb cones (BENCH_LARGE_SCENES, default
# "pyramid:30 pyramid:50 pile:1500 pile:3000 pile:5000"; BENCH_LARGE_STEPS,
# default "240", the steps exported, each a problem of its own: a pile's
# state at one step is one draw of a chaotic motion, and whether a solver
# meets a tolerance there can change from step to step, so a claim about
# the scene wants several, e.g. "200 220 240 260 280").
# For each tolerance of BENCH_LARGE_TOLS (default "1e-4 1e-6") it writes two
# experiment files and runs them (`lcplab experiment --jobs 1`):
#   local_TOL.exp:  the external lines of experiments/bench_exports.exp for
#           Siconos' BENCH_LARGE_PEER_SOLVERS (default "NSGS") and a profile
#           section of lcplab's BENCH_LARGE_SOLVERS (default "auto ipm nsn_ac
#           ppa_nsn") and those peers on the scenes' steps (scene lines:
#           the engine simulates and exports them once into
#           BUILDDIR/experiments/exports/engine), time limit
#           BENCH_EXPORTS_TIMEOUT (default 300 s);
#   global_TOL.exp: the same scenes exported with --format hdf5 --global
#           (BUILDDIR/experiments/exports/global_*), the external lines of
#           experiments/bench_global.exp for Siconos' gfc3d
#           BENCH_LARGE_GLOBAL_PEERS (default "NSGS_WR ADMM"; each handed
#           the global file, format=own) and a profile section of lcplab's
#           BENCH_LARGE_GLOBAL_SOLVERS (default "auto ipm ppa_nsn") and those
#           peers on a folder of links to the exports, time limit
#           BENCH_GLOBAL_TIMEOUT (default 300 s); BENCH_LARGE_GLOBAL=no leaves
#           this part out.
# One solve a run.  Every answer is judged by the library's residual
# (res_scaled), the peers' own verdict recorded (reported_solved, the
# agreement table), the fastest that solves in the winners and leaders
# tables (experiments/BENCHMARKS.md, "Benchmark: make bench-exports", "...
# make bench-global").  The peers are built once by build_peers.sh into
# $LCPLAB_PEERS_BUILD (default BUILDDIR/experiments/peers).
#
# Writes to BUILDDIR/experiments/results/HOST/bench_large/: local_TOL/ and
# global_TOL/ (each experiment's CSVs and tables), and bench_large.md, their
# leaders tables one after the other.  Exit status: 0 written; 1 an export or
# an experiment failed; 2 usage, or a word of a BENCH_LARGE_* list that is not
# what it should be (they become lines of the experiment files).
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
# absolute: global_files holds links to the exports, and a link to a
# relative path would be read from the links' folder, not from here
case $1 in /*) builddir=$1 ;; *) builddir=$PWD/$1 ;; esac
srcdir=$2
# shellcheck source=experiments/outfile.sh
. "$srcdir/experiments/outfile.sh"
# GNUPLOT (the third argument) is accepted for make; the sections run with --no-plot
lcplab=$builddir/cli/lcplab
scenes=${BENCH_LARGE_SCENES:-pyramid:30 pyramid:50 pile:1500 pile:3000 pile:5000}
tols=${BENCH_LARGE_TOLS:-1e-4 1e-6}
steps=${BENCH_LARGE_STEPS:-240}
# the lists become lines of experiment files: each word is checked first
# positive WORD: true when WORD is a positive integer
positive() {
  case $1 in
  [1-9]*) case $1 in *[!0-9]*) return 1 ;; esac ;;
  *) return 1 ;;
  esac
}
# refuse LIST WORD WHAT: the usage error for a word of a BENCH_LARGE_* list
refuse() {
  echo "bench_large.sh: $1: '$2' is not $3" >&2
  exit 2
}
for sc in $scenes; do
  case $sc in
  pyramid:* | pile:*) positive "${sc#*:}" || refuse BENCH_LARGE_SCENES "$sc" "pyramid:LAYERS or pile:N" ;;
  *) refuse BENCH_LARGE_SCENES "$sc" "pyramid:LAYERS or pile:N" ;;
  esac
done
for st in $steps; do
  positive "$st" || refuse BENCH_LARGE_STEPS "$st" "a positive step number"
done
for tol in $tols; do
  case $tol in *[!0-9.eE+-]*) refuse BENCH_LARGE_TOLS "$tol" "a number" ;; esac
done
out=$builddir/experiments/results/$(uname -n)/bench_large
exports=$builddir/experiments/exports
mkdir -p "$out" "$exports"

# export_global SCENE SIZE STEP: prints the global .hdf5 path (made once)
export_global() {
  case $1 in pyramid) key=layers ;; *) key=n ;; esac
  dir=$exports/global_$1_$2
  [ "$3" = 240 ] || dir=${dir}_k$3 # step 240's folder keeps its name
  file=$dir/$1_step$(printf '%06d' "$3").global.hdf5
  if [ ! -s "$file" ]; then
    mkdir -p "$dir"
    out_new bench_large.sh "$dir/export.json" "$dir/export.err" || exit 1
    if ! "$lcplab" export --scene "$1" --param "$key=$2" --friction cone --solver nsgs \
      --steps "$3" --every "$3" --format hdf5 --global --out "$dir" >"$dir/export.json" \
      2>"$dir/export.err"; then
      echo "bench_large.sh: global export of $1 $key=$2 at step $3 failed:" >&2
      cat "$dir/export.err" >&2
      exit 1
    fi
  fi
  echo "$file"
}

# peer_lines EXP PREFIX PEERS...: the external lines PREFIXP of EXP, one per peer P
peer_lines() {
  exp=$1 prefix=$2
  shift 2
  for p in "$@"; do
    if ! grep -q "^external $prefix$p " "$exp"; then
      echo "bench_large.sh: no peer '$p' ($prefix$p) in $exp" >&2
      return 1
    fi
    grep "^external $prefix$p " "$exp"
  done
}

# names PREFIX PEERS...: the peers' solver names, each after a blank
names() {
  prefix=$1
  shift
  for p in "$@"; do printf ' %s%s' "$prefix" "$p"; done
}

# limits TOL TIME_LIMIT: the section's one-solve timing
limits() {
  printf 'tol %s\nmax_iter 100000\nmin_runs 1\nmin_time 1e-9\nmax_time 1e-9\ntime_limit %s\n' \
    "$1" "$2"
}

# local_exp TOL: local_TOL.exp, the scenes' steps as scene lines
local_exp() {
  # shellcheck disable=SC2086 # the peer lists are words
  peer_lines "$srcdir/experiments/bench_exports.exp" siconos- ${BENCH_LARGE_PEER_SOLVERS:-NSGS} || return 1
  # shellcheck disable=SC2086
  printf 'experiment profile local\nsolvers %s%s\nclasses fc3d\n' \
    "${BENCH_LARGE_SOLVERS:-auto ipm nsn_ac ppa_nsn}" "$(names siconos- ${BENCH_LARGE_PEER_SOLVERS:-NSGS})"
  for sc in $scenes; do
    case ${sc%%:*} in pyramid) key=layers ;; *) key=n ;; esac
    for st in $steps; do
      printf 'scene %s %s=%s steps=%s friction=cone solver=nsgs\n' "${sc%%:*}" "$key" "${sc#*:}" "$st"
    done
  done
  limits "$1" "${BENCH_EXPORTS_TIMEOUT:-300}"
}

# global_exp TOL: global_TOL.exp, on the folder of links to the global exports
global_exp() {
  # shellcheck disable=SC2086
  peer_lines "$srcdir/experiments/bench_global.exp" siconos-gfc3d- ${BENCH_LARGE_GLOBAL_PEERS:-NSGS_WR ADMM} || return 1
  # the folder of links reaches the file as ${LINKS} (run's --var): its
  # name is never read as the file's text, whatever it holds
  # shellcheck disable=SC2086,SC2016 # the peer lists are words; ${LINKS} is the file's
  printf 'experiment profile global\nsolvers %s%s\nclasses fc3d\ninstances ${LINKS}\n' \
    "${BENCH_LARGE_GLOBAL_SOLVERS:-auto ipm ppa_nsn}" \
    "$(names siconos-gfc3d- ${BENCH_LARGE_GLOBAL_PEERS:-NSGS_WR ADMM})"
  limits "$1" "${BENCH_GLOBAL_TIMEOUT:-300}"
}

peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
if [ ! -x "$peers/fc3d/peer_fc3d" ] || [ ! -x "$peers/gfc3d/peer_gfc3d" ]; then
  sh "$srcdir/experiments/build_peers.sh" "$peers" "${LCPLAB_SHARED:-$srcdir/../shared}" >/dev/null ||
    echo "bench_large.sh: some peers did not build: they are left out" >&2
fi

# run NAME: NAME.exp into NAME/ (exit 3, a peer that left no answer, is a row `failed`)
run() {
  rc=0
  OPENBLAS_NUM_THREADS=1 "$lcplab" experiment "$out/$1.exp" --out "$out/$1" --jobs 1 --force \
    --no-plot --data "$exports/engine" --var PEERS="$peers" --var LINKS="$out/global_files" || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]
}

md=$out/bench_large.md
out_new bench_large.sh "$md" || exit 1
printf '# bench-large (experiments/bench_large.sh)\n\n' >"$md"
for tol in $tols; do
  out_new bench_large.sh "$out/local_$tol.exp" || exit 1
  local_exp "$tol" >"$out/local_$tol.exp" || exit 1
  run "local_$tol" || exit 1
  printf '## Local problems, tol %s (leaders)\n\n' "$tol" >>"$md"
  grep -v '^#' "$out/local_$tol/local_leaders.csv" >>"$md"
  [ "${BENCH_LARGE_GLOBAL:-yes}" = no ] && continue
  links=$out/global_files
  mkdir -p "$links"
  # the folder is this section's instances: a link left by an earlier run
  # with other scenes or steps would be solved too (only links are removed)
  find "$links" -maxdepth 1 -type l -name '*.global.hdf5' -exec rm -f {} +
  for sc in $scenes; do
    for st in $steps; do
      name=${sc%%:*}_${sc#*:}
      [ "$st" = 240 ] || name=${name}_k$st
      file=$(export_global "${sc%%:*}" "${sc#*:}" "$st") || exit 1
      ln -sfn "$file" "$links/$name.global.hdf5"
    done
  done
  out_new bench_large.sh "$out/global_$tol.exp" || exit 1
  global_exp "$tol" >"$out/global_$tol.exp" || exit 1
  run "global_$tol" || exit 1
  printf '\n## Global problems, tol %s (leaders)\n\n' "$tol" >>"$md"
  grep -v '^#' "$out/global_$tol/global_leaders.csv" >>"$md"
done
echo "bench_large.sh: $md" >&2
