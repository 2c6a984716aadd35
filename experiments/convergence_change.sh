#!/bin/sh
# convergence_change.sh -- measurement (not a test, not in `make check`):
# which problems of the shared collection each solver solves at one
# tolerance with two lcplab builds, e.g. before and after the convergence
# test changed (issue 49: res_rel = res_nat_inf / max(1, ||b||_inf) <= tol
# replaced by res_scaled <= tol, docs/convergence.md).
#
#   sh experiments/convergence_change.sh OLD_LCPLAB NEW_LCPLAB OUTDIR [--force]
#
# OLD_LCPLAB, NEW_LCPLAB: the two `lcplab` programs (e.g. BUILD/cli/lcplab of
# two build trees).  The shared data: LCPLAB_SHARED=DIR (default: ../shared
# beside this script's source tree).
#
# Problems (read in place, never copied): every file of datasets/siconos/
# {lcp,mlcp,relay,fc3d} and the .hdf5 files of datasets/fclib but the global
# ones (LMGC_GFC3D-*; a file a build refuses is a row "refused", with the
# reader's message).  CONV_FILES="F1 F2 ..." replaces the list (to try the
# script); a file's class is its folder's name.
#
# Runs, one process at a time, every solver NEW_LCPLAB's `lcplab solvers`
# lists but `auto` (it runs one of the others), or CONV_SOLVERS="S1 S2 ...",
# on every problem with both programs and the same options:
#   OPENBLAS_NUM_THREADS=1 timeout T LCPLAB solve FILE --solver S --tol TOL
#                                            [--max-iter N]
# TOL = CONV_TOL (default 1e-8).  lcp, mlcp, relay: --max-iter CONV_MAX_ITER
# (default 10000), T = CONV_TIMEOUT (default 60 s); fc3d, fclib: the
# library's default max_iter, T = CONV_TIMEOUT_CONE (default 30 s).  Exit 2
# (the solver refuses the problem, e.g. nsgs with a zero A(i,i), pgs on
# cones) is the status "refused", 124 "timeout"; a pair both builds refuse
# is left out of the tables.
#
# Writes in OUTDIR (created; existing outputs are refused, exit 2, unless
# --force):
#   convergence_change.raw  one line per run: build, class, file, solver,
#                           exit status, the JSON (or the message)
#   convergence_change.csv  one row per (problem, solver): old and new
#                           status, iterations, res_rel, res_nat_inf, and
#                           the new build's res_scaled (convergence_change.py)
#   convergence_change.md   per solver: problems converged before / after;
#                           each problem whose verdict changed
# Exit status: 0 tables written; 1 the tables could not be written; 2 usage.

set -u
usage() {
  echo "usage: sh experiments/convergence_change.sh OLD_LCPLAB NEW_LCPLAB OUTDIR [--force]" >&2
  exit 2
}
[ $# -eq 3 ] || [ $# -eq 4 ] || usage
OLD=$1
NEW=$2
OUT=$3
FORCE=${4:-}
[ -z "$FORCE" ] || [ "$FORCE" = --force ] || usage
for prog in "$OLD" "$NEW"; do
  [ -x "$prog" ] || {
    echo "convergence_change.sh: $prog: not an executable lcplab" >&2
    exit 2
  }
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${LCPLAB_SHARED:-$SRC/../shared}
DATA=$SHARED/datasets
[ -d "$DATA/siconos" ] || {
  echo "convergence_change.sh: $DATA/siconos: no such folder (set LCPLAB_SHARED)" >&2
  exit 2
}
TOL=${CONV_TOL:-1e-8}
MAX_ITER=${CONV_MAX_ITER:-10000}
TIMEOUT=${CONV_TIMEOUT:-60}
TIMEOUT_CONE=${CONV_TIMEOUT_CONE:-30}

mkdir -p "$OUT" || exit 2
RAW=$OUT/convergence_change.raw
CSV=$OUT/convergence_change.csv
MD=$OUT/convergence_change.md
if [ "$FORCE" != --force ]; then
  for f in "$RAW" "$CSV" "$MD"; do
    [ ! -e "$f" ] || {
      echo "convergence_change.sh: $f exists (--force overwrites it)" >&2
      exit 2
    }
  done
fi

# the problem files, one a line: CLASS FILE
problem_list() {
  if [ -n "${CONV_FILES:-}" ]; then
    for f in $CONV_FILES; do
      echo "$(basename "$(dirname "$f")") $f"
    done
    return
  fi
  for c in lcp mlcp relay fc3d; do
    for f in "$DATA/siconos/$c"/*.dat "$DATA/siconos/$c"/*.hdf5; do
      [ -f "$f" ] && echo "$c $f"
    done
  done
  for f in "$DATA/fclib"/*.hdf5; do
    case $(basename "$f") in
    LMGC_GFC3D-*) ;; # global problems (datasets/README.md)
    *) echo "fclib $f" ;;
    esac
  done
}

solver_list() {
  if [ -n "${CONV_SOLVERS:-}" ]; then
    echo "$CONV_SOLVERS"
  else
    "$NEW" solvers | awk '$1 != "auto" { print $1 }'
  fi
}

# one run: prints "BUILD<TAB>CLASS<TAB>FILE<TAB>SOLVER<TAB>RC<TAB>OUTPUT"
run_one() {
  build=$1 prog=$2 class=$3 file=$4 solver=$5
  case $class in
  fc3d | fclib) limit=$TIMEOUT_CONE iter_opt= ;;
  *) limit=$TIMEOUT iter_opt="--max-iter $MAX_ITER" ;;
  esac
  # shellcheck disable=SC2086 # iter_opt is two words or none
  out=$(OPENBLAS_NUM_THREADS=1 timeout -k 5 "$limit" "$prog" solve "$file" --solver "$solver" \
    --tol "$TOL" $iter_opt 2>&1)
  rc=$?
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$build" "$class" "$(basename "$file")" "$solver" "$rc" \
    "$(printf '%s' "$out" | tr '\t\n' '  ')"
}

# shellcheck source=experiments/outfile.sh
. "$SRC/experiments/outfile.sh"
out_new convergence_change.sh "$RAW" || exit 2
solvers=$(solver_list)
problem_list | while read -r class file; do
  echo "convergence_change.sh: $class $(basename "$file")" >&2
  for s in $solvers; do
    run_one old "$OLD" "$class" "$file" "$s" >>"$RAW"
    run_one new "$NEW" "$class" "$file" "$s" >>"$RAW"
  done
done
python3 "$SRC/experiments/convergence_change.py" "$RAW" "$CSV" "$MD" --tol "$TOL" || exit 1
echo "$CSV"
echo "$MD"
