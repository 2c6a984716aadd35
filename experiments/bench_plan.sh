#!/bin/sh
# bench_plan.sh -- benchmark (`make bench-plan`; not a test): the time and
# peak memory of planning an experiment file of many lines, to show that
# planning is linear in the number of lines (issue 64, finding 19: 20,000
# lines took 9.5 s and 40,000 36.7 s).
#
#   sh experiments/bench_plan.sh BUILDDIR [LINES...]     (default: 10000 40000)
#
# For each count N it writes plan_N.exp, one profile section of N lines
# "generate spd 4 seed=K" (K = 1..N, about 25 bytes a line), into a
# temporary folder and plans it twice with `lcplab experiment FILE --plan
# DIR`: first into a new folder (the N instance files are generated and
# hashed: mostly the file system's work), then again with --force (the
# instances reused, their metadata from the cache: the engine's own work
# on the N lines).  Prints one line per run: lines, run, wall seconds, peak
# resident memory (MB).  The peak comes from GNU time when /usr/bin/time is
# there, else from Python's resource module (experiments/peak_memory.py),
# else it says "unknown".  Wall times depend on the machine's load: quote
# them with the machine's state.
set -eu

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILDDIR [LINES...]" >&2
  exit 2
fi
BUILD=$1
shift
LCPLAB="$BUILD/cli/lcplab"
if [ ! -x "$LCPLAB" ]; then
  echo "$0: $LCPLAB: not built (make first)" >&2
  exit 2
fi
[ $# -gt 0 ] || set -- 10000 40000
T=$(mktemp -d "${TMPDIR:-/tmp}/bench_plan.XXXXXX")
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1

# measure WHAT ARGS...: runs lcplab ARGS (output to $T/log) and prints
# WHAT, the wall seconds and the peak resident memory in MB.
measure() {
  what=$1
  shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M' -o "$T/time" "$LCPLAB" "$@" >"$T/log" 2>&1
    read -r wall kb <"$T/time"
    printf '%s  %8.2f s  %8.1f MB\n' "$what" "$wall" "$(echo "$kb" | awk '{ print $1 / 1024 }')"
  elif command -v python3 >/dev/null 2>&1; then
    python3 "$(dirname "$0")/peak_memory.py" "$what" "$LCPLAB" "$@"
  else
    t0=$(date +%s.%N)
    "$LCPLAB" "$@" >"$T/log" 2>&1
    t1=$(date +%s.%N)
    printf '%s  %8.2f s  unknown\n' "$what" "$(echo "$t0 $t1" | awk '{ print $2 - $1 }')"
  fi
}

echo "lines   run                  wall        peak"
for n in "$@"; do
  case $n in
    '' | *[!0-9]*) echo "$0: '$n' is not a line count" >&2; exit 2 ;;
  esac
  exp="$T/plan_$n.exp"
  awk -v n="$n" 'BEGIN {
    print "experiment profile plan"; print "solvers pgs"
    for (k = 1; k <= n; k++) print "generate spd 4 seed=" k }' >"$exp"
  measure "$(printf '%-7s new (instances made)' "$n")" experiment "$exp" --plan "$T/p$n"
  measure "$(printf '%-7s again (--force)     ' "$n")" experiment "$exp" --plan "$T/p$n" --force
  tasks=$(grep -vc '^#' "$T/p$n/tasks.tsv")
  [ "$tasks" -eq "$n" ] || { echo "$0: $n lines planned $tasks tasks" >&2; exit 1; }
  rm -rf "$T/p$n"
done
