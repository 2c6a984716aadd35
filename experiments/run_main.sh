#!/bin/sh
# run_main.sh -- lcplab's main job (`make main-job`): the default experiment
# set, experiments/default.exp, through `lcplab experiment`.
#
#   sh experiments/run_main.sh BUILDDIR SRCDIR [GNUPLOT]
#
# - every registered solver on a sample of every problem class (LCP, boxed,
#   MLCP, Coulomb cone, associated cone; Siconos and FCLIB files read in
#   place from SRCDIR/../shared): per-class performance profiles at two
#   tolerances, a convergence run, a scaling run, drift and accuracy runs per
#   friction group, and an integrator comparison, as a campaign of tasks on
#   the machine's cores (lcplab experiment --jobs, default: all of them, one
#   worker pinned to each CPU: timed tasks never share a core; NAME_timing.csv
#   states the protocol and the between-run noise, experiments/README.md);
# - results in BUILDDIR/experiments/results/HOST/: NAME.csv, its tables
#   NAME_*.csv / NAME_*.tex, NAME.pdf and NAME.png for NAME in the sections
#   of default.exp (NAME-2.pdf ... for further pages), and the campaign
#   (plan and task results) in campaign/.
#   Earlier results there are moved aside with a UTC timestamp suffix
#   (profile.csv.20250101T120000Z, campaign.20250101T120000Z), never
#   overwritten;
# - generated instances in BUILDDIR/datasets/generated (kept and reused);
# - the peers' sections (peers_lcp, peers_fc3d) take the harnesses built in
#   $LCPLAB_PEERS_BUILD (default BUILDDIR/experiments/peers, where the README's
#   first command builds them: experiments/build_peers.sh); a peer not built
#   there is left out, named in one line;
# - OPENBLAS_NUM_THREADS=1; the paths of the results are the last lines.
# Measured on the 2-core development machine: about 5 min (README).
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
if [ ! -x "$lcplab" ]; then
  echo "run_main.sh: $lcplab not built (run 'make main-job' in $builddir)" >&2
  exit 2
fi
shared=${LCPLAB_SHARED:-$srcdir/../shared}
peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
if [ ! -d "$shared/datasets/siconos/fc3d" ]; then
  echo "run_main.sh: $shared/datasets/siconos/fc3d not found: the cone problems of the main" \
    "job are read from ../shared (set LCPLAB_SHARED)" >&2
  exit 2
fi

host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
data=$builddir/datasets/generated
mkdir -p "$results" "$data"
config=$srcdir/experiments/default.exp

# move earlier results of the same sections, and the campaign, aside (the
# further pages of a figure too: NAME-2.pdf, NAME-1-2.png ...)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for name in $(awk '$1 == "experiment" {print (NF >= 3 ? $3 : $2)}' "$config"); do
  for old in "$results/$name.csv" "$results/${name}"_*.csv "$results/${name}"_*.tex \
    "$results/$name.pdf" "$results/$name.png" "$results/${name}"-*.pdf \
    "$results/${name}"-*.png; do
    if [ -e "$old" ]; then
      mv "$old" "$old.$stamp"
    fi
  done
done
if [ -e "$results/campaign" ]; then
  mv "$results/campaign" "$results/campaign.$stamp"
  echo "run_main.sh: earlier results moved aside with the suffix .$stamp"
fi

paths=$(mktemp "$results/.paths.XXXXXX") || exit 2
start=$(date +%s)
rc=0
"$lcplab" experiment "$config" --out "$results" --data "$data" --var SHARED="$shared" \
  --var PEERS="$peers" --scripts "$srcdir/experiments" >"$paths" || rc=$?
end=$(date +%s)
echo "run_main.sh: lcplab experiment $(basename "$config"): exit $rc in $((end - start)) s"
echo "results:"
sed 's/^/  /' "$paths"
rm -f "$paths"
exit "$rc"
