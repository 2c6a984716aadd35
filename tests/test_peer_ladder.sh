#!/bin/sh
# test_peer_ladder.sh -- an external solver on the stopping rule's ladder (issue 84,
# item 3: peers on the same footing): a planted peer answers x = (1.001, 0) when told a
# tolerance above 1e-9 (the judge rejects it at 1e-8) and the exact x = (1, 0) when told
# 1e-9 or less, printing its own time and iteration count.  The row is the last rung's
# answer, judged and timed (its time 0.002 s, not the first rung's 0.001 s); the note
# records the rung before it with its time and status; the peer's own iterations
# (iterations=KEY) are the row's iterations column; iterations= without a key exits 2.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_peer_ladder
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi
rows() { grep -v '^#' "$1" | tail -n +2; }

write_p2 "$T/p2.dat"
cat >"$T/rung.sh" <<'EOF'
#!/bin/sh
# args: IN OUT TOL
if awk -v t="$3" 'BEGIN { exit !(t > 1.5e-9) }'; then
  printf '1.001\n0\n' >"$2"; echo '{"time_s": 0.001, "iterations": 3}'
else
  printf '1\n0\n' >"$2"; echo '{"time_s": 0.002, "iterations": 7}'
fi
EOF
cat >"$T/ladder.exp" <<EOF
external rung format=dat time=time_s iterations=iterations ladder=3 command sh "$T/rung.sh" {in} {out} {tol}
experiment profile lad
solvers rung
instances p2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
lcp experiment "$T/ladder.exp" --out "$T/res1" --jobs 1 --no-plot
r=$(rows "$T/res1/lad.csv" | awk -F, '{print $6, $7, $9, $33}')
note=$(rows "$T/res1/lad.csv" | awk -F, '{print $23}')
if [ "$rc" -eq 0 ] && [ "$r" = "converged 7 2.000000e-03 1e-09" ]; then
  pass "ladder: the last rung's answer is the one judged and timed, its own iterations recorded"
else
  fail "ladder row" "exit $rc, status iterations time peer_tol: '$r'"
fi
case $note in
*"told tol 1e-09 (ladder; rungs before: tol 1e-08: 0.001 s unconverged)"*)
  pass "ladder: the rung before is recorded with its time and status" ;;
*) fail "ladder rungs" "note '$note'" ;;
esac
sed 's/iterations=iterations/iterations=/' "$T/ladder.exp" >"$T/bad.exp"
lcp experiment "$T/bad.exp" --out "$T/res3" --jobs 1 --no-plot
if [ "$rc" -eq 2 ] && grep -q "external iterations" "$T/err"; then
  pass "iterations= without a key: exit 2 naming it"
else
  fail "iterations= empty" "exit $rc: $(cat "$T/err")"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
