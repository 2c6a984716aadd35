#!/bin/sh
# test_bench_states.sh -- experiments/bench_states.py, the runs of `make
# bench-states`, on stand-ins for lcplab and peer_fc3d (shell scripts: no
# solve, no Siconos), two states, a 1 s limit:
#   - every answer is judged by the peer's --check-r, not the program's own
#     status (the stand-in judge's res_rel_q is what the table shows);
#   - a peer run past the limit is "time limit" with no answer; one under
#     the address-space limit that aborts with a message about memory is
#     "out of memory at 16G" (and prlimit was on its command line, the
#     others' not);
#   - "as accurate" and the counts: lcplab 1e-5 against a peer's 1e-6 at
#     tol 1e-6 on one state is NO; the goal line counts 1 of 2 solved;
#   - each row is in the rows file as the run ends; a second call makes no
#     run (resumes) and prints the same table; a broken row is named with
#     its file and line, exit 1, and the file is left as it was.
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed"; 77 without python3.
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
TST_NAME=test_bench_states
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
command -v prlimit >/dev/null || { echo "SKIP: prlimit not found"; exit 77; }
py=$top/experiments/bench_states.py
mkdir "$T/states"
: >"$T/states/a_step000200.hdf5"
: >"$T/states/b_step000200.hdf5"
# the stand-in lcplab: the state a gets an answer of res_rel_q 1e-5, b 1e-7
cat >"$T/lcplab" <<'EOF'
#!/bin/sh
echo "lcplab $*" >>"$LOG"
sol=""
while [ $# -gt 0 ]; do
  case $1 in --solution) sol=$2; shift ;; esac
  case $1 in *a_step*) q=1e-5 ;; *b_step*) q=1e-7 ;; esac
  shift
done
echo "$q" >"$sol"
echo '{"status":"converged","time_s":0.5,"chosen":"nsn_ac","n":30}'
EOF
# the stand-in peer: NSGS answers 1e-6 (its r file holds it), PROX sleeps
# past the limit, NSN_AC aborts as an allocation refused; --check-r prints
# the number in the file as res_rel_q
cat >"$T/peer" <<'EOF'
#!/bin/sh
echo "peer $*" >>"$LOG"
if [ "$1" = --check-r ]; then
  echo "{\"res_rel_q\":$(cat "$2")}"
  exit 0
fi
name=$2 pfx=""
while [ $# -gt 0 ]; do
  case $1 in --save-r) pfx=$2; shift ;; esac
  shift
done
case $name in
NSGS) echo 1e-6 >"$pfx.NSGS.r"; echo '{"status":"ok","time_s":0.25}' ;;
PROX) sleep 5 ;;
NSN_AC) echo "NM_iWork: cannot allocate memory" >&2; exit 1 ;;
esac
EOF
chmod +x "$T/lcplab" "$T/peer"
LOG=$T/log
export LOG
run() {
  python3 "$py" "$T/lcplab" "$T/peer" "$T/states" "$T/rows.jsonl" --tol 1e-6 --time-limit 1 \
    >"$T/out" 2>"$T/err"
}

run
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/rows.jsonl")" -eq 8 ]; then
  pass "8 rows (2 states x lcplab and 3 peers), exit 0"
else
  fail "8 rows, exit 0" "exit $rc, $(wc -l <"$T/rows.jsonl") rows"
fi
if grep -q '^| a_step000200 | 10 | converged | 0.5 | 1.00e-05 | ok | 0.25 | 1.00e-06 | time limit | - | - | out of memory at 16G | - | - | NO |$' "$T/out"; then
  pass "state a: the judge's res_rel_q, time limit, out of memory, not as accurate"
else
  fail "state a's row" "$(grep a_step "$T/out")"
fi
if grep -q '^| b_step000200 | .* | 1.00e-07 | .* | yes |$' "$T/out" &&
  grep -q 'solved 1 of 2 at 1e-06' "$T/out" && grep -q 'on 1 of 2 (not met)' "$T/out"; then
  pass "state b as accurate; the counts 1 of 2"
else
  fail "state b and the counts" "$(tail -n 3 "$T/out")"
fi
if grep 'NSN_AC' "$T/log" | grep -q -- '--maxit' && grep -c '^peer -s' "$T/log" | grep -q '^6$' &&
  python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
lim=[r for r in rows if r.get("as_limit")]
sys.exit(not (len(lim)==2 and all(r["solver"]=="NSN_AC" for r in lim)))' "$T/rows.jsonl"; then
  pass "only NSN_AC ran under the address-space limit"
else
  fail "NSN_AC alone under prlimit" "$(cat "$T/log")"
fi
cp "$T/out" "$T/first"
: >"$T/log"
run
if [ ! -s "$T/log" ] && cmp -s "$T/out" "$T/first"; then
  pass "a second call makes no run and prints the same table"
else
  fail "resumed" "$(head -n 3 "$T/log")"
fi
echo 'not json' >>"$T/rows.jsonl"
cp "$T/rows.jsonl" "$T/before"
run
rc=$?
if [ "$rc" -eq 1 ] && grep -q "rows.jsonl:9: not a JSON row" "$T/err" && cmp -s "$T/rows.jsonl" "$T/before"; then
  pass "a broken row: its file and line, exit 1, the file untouched"
else
  fail "a broken row" "exit $rc"
fi
rm -f "$T/out" "$T/err"
tst_done
