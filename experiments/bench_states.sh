#!/bin/sh
# bench_states.sh -- benchmark (`make bench-states`; not a test, not in `make
# bench`: hours): issue 66 item 4, the 10^4-contact sets over many states.
# The pile of 3000 and of 5000 spheres and the pyramid of 50 layers, each
# exported at steps 200, 220, 240, 260 and 280 (15 problems: a pile's state
# at one step is one draw of a chaotic motion), Coulomb cones, solved by
# lcplab's solvers and Siconos' beside them with the same tolerance and the
# same time limit per solve: 100 s at 1e-4, 300 s at 1e-6.
#
#   sh experiments/bench_states.sh BUILDDIR SRCDIR
#
# It runs experiments/bench_large.sh once per tolerance (local problems
# only; its engine exports every state once), with
#   BENCH_STATES_SCENES  (default "pile:3000 pile:5000 pyramid:50")
#   BENCH_STATES_STEPS   (default "200 220 240 260 280")
#   BENCH_STATES_TOLS    (default "1e-4:100 1e-6:300", TOL:SECONDS)
#   BENCH_STATES_SOLVERS (lcplab's; default "auto nsn_ac ppa_nsn nsgs")
#   BENCH_STATES_PEERS   (Siconos'; default "NSGS NSN_AC PROX")
# and then writes BUILDDIR/experiments/results/HOST/bench_large/
# bench_states.md: per tolerance, each state with lcplab's most accurate
# answer and each Siconos solver's, their verdicts and times, and the two
# goals counted (experiments/states_table.py; experiments/BENCHMARKS.md,
# "Benchmark: make bench-states").  Exit status: 0 written; 1 a run or the
# table failed; 2 usage or a bad word in a BENCH_STATES_* list.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
builddir=$1
srcdir=$2
out=$builddir/experiments/results/$(uname -n)/bench_large
runs=""
for tl in ${BENCH_STATES_TOLS:-1e-4:100 1e-6:300}; do
  tol=${tl%%:*} limit=${tl#*:}
  case $tol$limit in *[!0-9.eE+-]* | "") echo "bench_states.sh: BENCH_STATES_TOLS: '$tl' is not TOL:SECONDS" >&2; exit 2 ;; esac
  [ "$tol" != "$tl" ] || { echo "bench_states.sh: BENCH_STATES_TOLS: '$tl' is not TOL:SECONDS" >&2; exit 2; }
  BENCH_LARGE_SCENES=${BENCH_STATES_SCENES:-pile:3000 pile:5000 pyramid:50} \
    BENCH_LARGE_STEPS=${BENCH_STATES_STEPS:-200 220 240 260 280} \
    BENCH_LARGE_TOLS=$tol BENCH_EXPORTS_TIMEOUT=$limit BENCH_LARGE_GLOBAL=no \
    BENCH_LARGE_SOLVERS=${BENCH_STATES_SOLVERS:-auto nsn_ac ppa_nsn nsgs} \
    BENCH_LARGE_PEER_SOLVERS=${BENCH_STATES_PEERS:-NSGS NSN_AC PROX} \
    sh "$srcdir/experiments/bench_large.sh" "$builddir" "$srcdir" || exit $? # 2: a bad word
  runs="$runs $out/local_$tol/local.csv:$limit"
done
# shellcheck disable=SC2086
python3 "$srcdir/experiments/states_table.py" $runs >"$out/bench_states.md" || exit 1
cat "$out/bench_states.md"
echo "bench_states.sh: $out/bench_states.md" >&2
