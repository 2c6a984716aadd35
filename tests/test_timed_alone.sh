#!/bin/sh
# test_timed_alone.sh -- the timing protocol of `lcplab experiment --jobs 2`
# (experiments/README.md, "Timing"): one timed task at a time, on its own
# CPU, with no other timed task beside it (an untimed one may run on the
# other CPU), and a profile section's replicate passes interleaved with its
# first pass rather than run after it; the precision rule (`precision P`:
# repeats until the median's 95 % interval is within P, or the budget).
#
# A planted external solver stamps the start and the end of each of its
# processes into one log: the timed tasks' intervals must never overlap
# (two workers, eight timed tasks); and the first replicate task must start
# before the first pass's last one; a gradients section's tasks (the
# solves of tests/plugins/plug_liar.c's solver, stamped into the same log)
# never beside a timed task either.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR, LCPLAB_BUILDDIR.  Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_timed_alone
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
rows() { grep -v '^#' "$1" | tail -n +2; }
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi
if [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ]; then
  echo "SKIP: one CPU: nothing runs beside a task"
  exit 77
fi

# the stamp solver: logs "S time tag" and "E time tag" around a 0.15 s sleep, answers x = 0
cat >"$T/stamp.sh" <<'EOF'
#!/bin/sh
n=$(sed -n 's/^n //p' "$1" | head -n 1)
tag=$2
echo "S $(date +%s.%N) $tag" >>"$STAMP_LOG"
i=0; : >"$2"; while [ "$i" -lt "$n" ]; do echo 0 >>"$2"; i=$((i + 1)); done
sleep 0.15
echo "E $(date +%s.%N) $tag" >>"$STAMP_LOG"
echo '{"solve_time_s": 0.1}'
EOF
STAMP_LOG=$T/stamps.log
export STAMP_LOG
: >"$STAMP_LOG"
cat >"$T/alone.exp" <<EOF
external stamp format=lcp time=solve_time_s command sh "$T/stamp.sh" {in} {out}
experiment profile alone
solvers stamp
generate spd 4 5 6 7
tol 1e-8
min_runs 1
min_time 0
max_time 0.01
replicates 2
EOF
lcp experiment "$T/alone.exp" --out "$T/out1" --jobs 2 --no-plot
starts=$(grep -c '^S ' "$STAMP_LOG")
# the most processes of the stamp solver running at one time
most=$(sort -k2,2n "$STAMP_LOG" | awk '$1 == "S" {n++; if (n > m) m = n} $1 == "E" {n--} END {print m + 0}')
if [ "$rc" -eq 0 ] && [ "$starts" -ge 8 ] && [ "$most" -eq 1 ]; then
  pass "--jobs 2: one timed task at a time ($starts timed processes, at most $most at once)"
else
  fail "timed tasks beside each other" "exit $rc, $starts processes, $most at once: $(sort -k2,2n "$STAMP_LOG" | head -8 | tr '\n' ' ')"
fi

# interleaved passes: in the order the timed tasks first started, the first pass (task
# numbers 0-3) and the replicate pass (4-7: the replicates follow the section's own tasks)
# alternate, so a change of the machine's load reaches both passes alike
order=$(sort -k2,2n "$STAMP_LOG" | awk '$1 == "S" {print $3}' | sed 's|.*/t0*\([0-9][0-9]*\)[.].*|\1|' |
  awk '!s[$0]++' | tr '\n' ' ')
passes=$(printf '%s\n' $order | awk '{printf "%s", ($1 >= 4 ? "R" : "B")}')
if [ "$passes" = "BRBRBRBR" ]; then
  pass "the replicate pass interleaved with the first (tasks in the order $order)"
else
  fail "passes not interleaved" "tasks in the order $order: $passes"
fi

# a gradients section's tasks are timed too (their solve and VJP times are compared): none
# runs beside a timed task, of its own section or of a profile section. The test plugin's
# solver (tests/plugins/plug_liar.c, LCPLAB_TEST_PLUGIN=stamp) stamps its solves into the
# same log as the stamp solver's processes
LIAR=${LCPLAB_BUILDDIR:-.}/tests/plugins/.libs/plug_liar.so
if [ -f "$LIAR" ]; then
  : >"$STAMP_LOG"
  cat >"$T/grad.exp" <<EOF
external stamp format=lcp time=solve_time_s command sh "$T/stamp.sh" {in} {out}
plugin $LIAR
experiment profile p
solvers stamp
generate spd 4 5
tol 1e-8
min_runs 1
min_time 0
max_time 0.01
experiment gradients g
solvers plug_liar
generate spd 4 5 6
EOF
  LCPLAB_TEST_PLUGIN=stamp lcp experiment "$T/grad.exp" --out "$T/out2" --jobs 2 --no-plot
  starts=$(grep -c '^S ' "$STAMP_LOG")
  most=$(sort -k2,2n "$STAMP_LOG" | awk '$1 == "S" {n++; if (n > m) m = n} $1 == "E" {n--} END {print m + 0}')
  if [ "$rc" -eq 0 ] && [ "$starts" -ge 5 ] && [ "$most" -eq 1 ]; then
    pass "--jobs 2: a gradients task never beside a timed task ($starts timed solves, at most $most at once)"
  else
    fail "gradients tasks beside timed ones" "exit $rc, $starts solves, $most at once: $(sort -k2,2n "$STAMP_LOG" | head -8 | tr '\n' ' ')"
  fi
else
  echo "SKIP: no $LIAR (a build without shared libraries): the gradients case"
fi

# the precision rule: without it, min_runs 2 and min_time 0 end the runs at 2; with
# `precision 0.05` the median's interval needs 6 runs at least (exp_median_precision: NaN
# below), so the runs go on past 2, until it is within 5 % or the budget (max_time) ends;
# the rule is in the provenance's timing line
for prec in 0 0.05; do
  cat >"$T/prec$prec.exp" <<EOF
experiment profile prec
solvers pgs
generate spd 10
tol 1e-8
min_runs 2
min_time 0
max_time 0.05
precision $prec
EOF
  lcp experiment "$T/prec$prec.exp" --out "$T/prec$prec" --jobs 1 --no-plot
done
r0=$(rows "$T/prec0/prec.csv" | awk -F, '{print $11}')
r1=$(rows "$T/prec0.05/prec.csv" | awk -F, '{print ($11 >= 6 || $24 >= 0.05) ? "more" : $11 " runs, " $24 " s"}')
if [ "$rc" -eq 0 ] && [ "$r0" = 2 ] && [ "$r1" = more ] &&
   grep -q "^# timing: .*median's 95 % interval within 5 % of it" "$T/prec0.05/prec.csv" &&
   ! grep -q "interval within" "$T/prec0/prec.csv"; then
  pass "precision: the runs go on until the median's interval is within 5 % or the budget ends"
else
  fail "precision rule" "exit $rc, runs without $r0, with: $r1; $(grep '^# timing' "$T/prec0.05/prec.csv")"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
