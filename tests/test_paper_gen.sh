#!/bin/sh
# test_paper_gen.sh -- paper/gen.py writes no placeholder and no claim its
# results contradict (issue 52): a tiny results folder is made by `lcplab
# experiment` on a tiny experiment file (every section the paper reads, two or
# three solvers, problems of n <= 40, scenes of a few steps: seconds), gen.py
# writes gen/*.tex from it, and tests/paper_checks.py checks gen/*.tex and
# paper.tex's own text: no "--" as a value, no ellipsis, no "none" where a
# name is expected, no "not run" or "not built", no empty section; the counts
# printed equal the CSVs' (distinct problems, sizes per scaling family,
# seeds), the scaling verdict agrees with the fitted exponents, a solver
# that ran a scene is not said to be absent from the scenes, and refusals
# (nsgs refuses the findex rows) are not said to be outside the profiles
# when the profiles count them.
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.
# Last line "N passed, M failed".
TST_NAME=test_paper_gen
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }

cat >"$T/tiny.exp" <<'EXP'
experiment profile profile
solvers pgs lemke nsgs
generate spd 10 20 seeds=1-2
generate contact 12
generate box 12
generate boxed-findex 12
tol 1e-4 1e-8
max_iter 2000
min_runs 1
min_time 0
max_time 0.01
time_limit 5

experiment convergence convergence
solvers pgs lemke
generate contact 12
tol 1e-10
max_iter 2000
time_limit 5

experiment scaling scaling
solvers pgs lemke
generate spd 10 20 40
tol 1e-8
max_iter 2000
min_runs 1
min_time 0
max_time 0.01
time_limit 5

experiment drift drift
solvers pgs lemke direct
scene pendulum steps=20 friction=none
time_limit 30

experiment accuracy accuracy
solvers pgs lemke
scene pyramid layers=2 steps=10
friction box
time_limit 30
EXP

if "$BIN" experiment "$T/tiny.exp" --out "$T/res" --data "$T/data" --jobs 1 --no-plot \
  >"$T/out" 2>"$T/err"; then
  pass "lcplab experiment: the tiny results folder"
else
  fail "lcplab experiment: the tiny results folder" "exit $?"
  tst_done
fi
rm -f "$T/out" "$T/err"
mkdir -p "$T/gen"
if python3 "$SRC/paper/gen.py" "$T/res" "$T/gen" >"$T/out" 2>"$T/err"; then
  pass "gen.py writes gen/*.tex"
else
  fail "gen.py writes gen/*.tex"
  tst_done
fi
rm -f "$T/out" "$T/err"
# one line per check: "ok DESC" or "FAIL DESC: WHY"
python3 "$SRC/tests/paper_checks.py" "$T/res" "$T/gen" "$SRC/paper/paper.tex" >"$T/checks" 2>&1
while IFS= read -r line; do
  case $line in
    "ok "*) pass "${line#ok }" ;;
    "FAIL "*) fail "${line#FAIL }" ;;
    *) fail "paper_checks.py: $line" ;;
  esac
done <"$T/checks"
tst_done
