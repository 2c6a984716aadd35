#!/bin/sh
# bench_global.sh -- benchmark (`make bench-global`; not a test, not in `make
# bench`): lcplab against every solver of Siconos' gfc3d harness
# (../shared/peers/gfc3d, peer_gfc3d) on the shared GLOBAL frictional-contact
# problems (issue 50, deliverable 5), every answer judged by the same program,
# `peer_gfc3d --check-r`, in one run.
#
#   sh experiments/bench_global.sh BUILDDIR SRCDIR
#
# Problems (never copied): datasets/siconos/gfc3d/*.dat and *.hdf5 and
# datasets/fclib/LMGC_GFC3D*.hdf5 of the shared data (LCPLAB_SHARED=DIR,
# default SRCDIR/../shared); BENCH_GLOBAL_FILES="F1 F2 ..." replaces the list.
#
# Runs, one process each, under `timeout` (BENCH_GLOBAL_TIMEOUT s, default 60)
# and a memory cap (ulimit -v, BENCH_GLOBAL_MEM_GB, default 8), nice 10,
# OPENBLAS_NUM_THREADS=1, one after the other:
#   peer_gfc3d --info FILE                              once per problem
#   lcplab solve FILE --solver S --tol T --norm 2 --max-iter 100000 --solution R
#                              S in BENCH_GLOBAL_SOLVERS (default: every solver
#                              `lcplab solvers` lists with "cone", and auto)
#   peer_gfc3d -s P --tol T --maxit 100000 --repeat 3 --budget B --save-r R FILE
#                              P in BENCH_GLOBAL_PEER_SOLVERS (default: all of
#                              `peer_gfc3d --list`; B = 2/3 of the timeout,
#                              the harness's own sweep rule)
#   peer_gfc3d --check-r R --tol T FILE                 every answer R above
# T = BENCH_GLOBAL_TOL (default 1e-8).  The judge computes, from r alone,
# res_rel_1q = ||F_nat||_2 / (1 + ||q||_2) (Acary et al. 2018) and
# res_contact_max (each contact against its own scale); a run is solved when
# res_rel_1q <= T and res_contact_max <= BENCH_GLOBAL_CONTACT_TOL (default
# 1e-6), the goals of issue 50.
#
# Times.  Siconos: the harness's time_s, gfc3d_driver alone (it includes the
# condensation of the _WR solvers, not the file's reading; the median of up
# to 3 solves).  lcplab: the wall
# clock of the whole `lcplab solve` process (start, reading, the reader's
# condensation, the solve, writing r): an upper bound of "from the problem
# as read to the answer"; beside it its read and solve (read_s + time_s:
# the file's parsing and the condensation included, the process start not)
# and its solve alone (time_s, a lower bound: the condensation excluded);
# the goal line counts these and condense_s + time_s, the reader's
# condensation and the solve: the goal's measure.
#
# The harness is copied from LCPLAB_GFC3D_PEERS (default
# $LCPLAB_SHARED/peers/gfc3d) to a temporary directory and built there
# (its Debian packages once, as root: make -C ../shared/peers/gfc3d deps;
# this script installs nothing).
#
# Writes to BUILDDIR/experiments/results/HOST/ (HOST = uname -n) or BENCH_GLOBAL_OUT (earlier
# files of the same names are moved aside with a UTC timestamp):
#   bench_global.jsonl  the --info lines, then one line per run:
#                       {"program", "solver", "file", "rc", "wall_s", "run": the
#                       program's own JSON line or null, "check": the judge's
#                       line or null, "note": the last line of its stderr}
#   bench_global.md     (bench_global.py) the problems, one table of which
#                       run solved what and how fast, the counts per solver and
#                       the goal lines of issue 50
set -u
[ $# -ge 2 ] || { sed -n 2,50p "$0"; exit 2; }
BUILD=$1
SRC=$2
L=$BUILD/cli/lcplab
SHARED=${LCPLAB_SHARED:-$SRC/../shared}
PEERS=${LCPLAB_GFC3D_PEERS:-$SHARED/peers/gfc3d}
TOL=${BENCH_GLOBAL_TOL:-1e-8}
CTOL=${BENCH_GLOBAL_CONTACT_TOL:-1e-6}
TMO=${BENCH_GLOBAL_TIMEOUT:-60}
MEMKB=$((${BENCH_GLOBAL_MEM_GB:-8} * 1048576))
export OPENBLAS_NUM_THREADS=1
[ -x "$L" ] || { echo "bench_global: build lcplab first ($L)" >&2; exit 2; }
[ -d "$PEERS/src" ] || { echo "bench_global: no harness at $PEERS (LCPLAB_GFC3D_PEERS)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench_global: python3 not found" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_global.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
cp -r "$PEERS" "$work/gfc3d" && make -C "$work/gfc3d" peer_gfc3d >"$work/build.log" 2>&1 || {
  echo "bench_global: the harness does not build (see make -C $PEERS; its deps: make deps)" >&2
  tail -n 5 "$work/build.log" >&2
  exit 2
}
P=$work/gfc3d/peer_gfc3d

if [ -n "${BENCH_GLOBAL_FILES:-}" ]; then
  FILES=$BENCH_GLOBAL_FILES
else
  FILES=$(ls "$SHARED"/datasets/siconos/gfc3d/*.dat "$SHARED"/datasets/siconos/gfc3d/*.hdf5 \
    "$SHARED"/datasets/fclib/LMGC_GFC3D*.hdf5)
fi
SOLVERS=${BENCH_GLOBAL_SOLVERS:-"$("$L" solvers | awk '/ cone / { print $1 }' | tr '\n' ' ')auto"}
PEER_SOLVERS=${BENCH_GLOBAL_PEER_SOLVERS:-$("$P" --list | tail -n +2 | cut -f1 | tr '\n' ' ')}

OUT=${BENCH_GLOBAL_OUT:-$BUILD/experiments/results/$(uname -n)}
mkdir -p "$OUT" || exit 2
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for f in bench_global.jsonl bench_global.md; do
  [ -e "$OUT/$f" ] && mv "$OUT/$f" "$OUT/$f.$stamp"
done
J=$OUT/bench_global.jsonl

# capped CMD...: CMD under the timeout, the memory cap and nice; stdout to
# $work/run, status in $rc, wall seconds in $wall.
capped() {
  t0=$(date +%s.%N)
  (ulimit -v "$MEMKB"; exec timeout -k 5 "$TMO" nice -n 10 "$@") >"$work/run" 2>"$work/err"
  rc=$?
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.6f", b - a }')
}

# record PROGRAM SOLVER FILE: one JSONL line for the run just made, its
# answer ($work/r, if any) judged by peer_gfc3d --check-r.
record() {
  run=null
  [ -s "$work/run" ] && run=$(head -n 1 "$work/run")
  check=null
  if [ -s "$work/r" ]; then
    check=$("$P" --check-r "$work/r" --tol "$TOL" "$3" 2>/dev/null | head -n 1)
    [ -n "$check" ] || check=null
  fi
  note=$(grep -v '^[[:space:]]*$' "$work/err" | tail -n 1 | tr -d '"\\' | tr '\t' ' ' | cut -c1-200)
  printf '{"program":"%s","solver":"%s","file":"%s","rc":%d,"wall_s":%s,"timeout_s":%s,"run":%s,"check":%s,"note":"%s"}\n' \
    "$1" "$2" "$(basename "$3")" "$rc" "$wall" "$TMO" "$run" "$check" "$note" >>"$J"
  echo "$(date +%T) $(basename "$3") $1 $2 rc=$rc ${wall}s" >&2
}

for f in $FILES; do
  "$P" --info "$f" >>"$J" 2>/dev/null || echo "bench_global: peer_gfc3d --info $f failed" >&2
  for s in $SOLVERS; do
    rm -f "$work/r"
    capped "$L" solve "$f" --solver "$s" --tol "$TOL" --norm 2 --max-iter 100000 \
      --solution "$work/r" --force
    record lcplab "$s" "$f"
  done
  for s in $PEER_SOLVERS; do
    rm -f "$work/r"
    capped "$P" -s "$s" --tol "$TOL" --maxit 100000 --repeat 3 --budget $((TMO * 2 / 3)) \
      --save-r "$work/r" "$f"
    record siconos "$s" "$f"
  done
done
python3 "$SRC/experiments/bench_global.py" "$J" "$TOL" "$CTOL" >"$OUT/bench_global.md" || exit 2
echo "bench_global: $J, $OUT/bench_global.md" >&2
