#!/bin/sh
# run_main.sh -- lcplab's main job (`make main-job`): the default experiment
# set, experiments/default.exp, through `lcplab experiment`.
#
#   sh experiments/run_main.sh BUILDDIR SRCDIR [GNUPLOT]
#
# - every registered solver on LCP (spd, contact), boxed (box, boxed-findex),
#   equality (joints) and Coulomb-cone problems (scenes' last steps and 16
#   Siconos FC3D files read in place from SRCDIR/../shared): a performance
#   profile at two tolerances, a convergence run, a scaling run (spd up to
#   n = 1600), a drift run (ball, stack; two integrators) and an accuracy run;
# - results in BUILDDIR/experiments/results/HOST/: NAME.csv (+ NAME_profile.csv,
#   NAME_slopes.csv), NAME.pdf and NAME.png for NAME in the sections of
#   default.exp.  Earlier results there are moved aside with a UTC timestamp
#   suffix (profile.csv.20250101T120000Z), never overwritten;
# - generated instances in BUILDDIR/datasets/generated (kept and reused);
# - OPENBLAS_NUM_THREADS=1; the paths of the results are the last lines.
# Measured on the 2-core development machine: about 1 min 20 s (README).
# Exit status: that of lcplab experiment (0 done, 2 bad input, 130 interrupted).
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
if [ -n "${3:-}" ]; then GNUPLOT=$3; export GNUPLOT; fi

export OPENBLAS_NUM_THREADS=1
lcplab=$builddir/cli/lcplab
gen=$builddir/datasets/gen_instances
for prog in "$lcplab" "$gen"; do
  if [ ! -x "$prog" ]; then
    echo "run_main.sh: $prog not built (run 'make main-job' in $builddir)" >&2
    exit 2
  fi
done
shared=${LCPLAB_SHARED:-$srcdir/../shared}
if [ ! -d "$shared/datasets/siconos/fc3d" ]; then
  echo "run_main.sh: $shared/datasets/siconos/fc3d not found: the cone problems of the main" \
    "job are read from ../shared (set LCPLAB_SHARED)" >&2
  exit 2
fi
export LCPLAB_GEN_INSTANCES="$gen"

host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
data=$builddir/datasets/generated
mkdir -p "$results" "$data"
config=$srcdir/experiments/default.exp

# move earlier results of the same sections aside
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for name in $(awk '$1 == "experiment" {print (NF >= 3 ? $3 : $2)}' "$config"); do
  for old in "$results/$name.csv" "$results/${name}_profile.csv" "$results/${name}_slopes.csv" \
    "$results/$name.pdf" "$results/$name.png"; do
    if [ -e "$old" ]; then
      mv "$old" "$old.$stamp"
      echo "run_main.sh: previous $(basename "$old") moved to $old.$stamp"
    fi
  done
done

start=$(date +%s)
rc=0
"$lcplab" experiment "$config" --out "$results" --data "$data" --var SHARED="$shared" \
  --scripts "$srcdir/experiments" >"$results/.paths.$$" || rc=$?
end=$(date +%s)
echo "run_main.sh: lcplab experiment $(basename "$config"): exit $rc in $((end - start)) s"
echo "results:"
sed 's/^/  /' "$results/.paths.$$"
rm -f "$results/.paths.$$"
exit "$rc"
