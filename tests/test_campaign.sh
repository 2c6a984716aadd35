#!/bin/sh
# test_campaign.sh -- campaigns of `lcplab experiment` (experiments/CAMPAIGNS.md,
# "Campaigns"): one small plan gives the same merged CSVs, timing columns
# aside, with --jobs 1, with --jobs 2 and under GNU parallel (when Debian's
# `parallel` is installed; the Slurm array is scripts/run-tests.sh's slurm
# stage, tests/test_slurm.sh); planted outcomes: a solver that cannot
# converge within max_iter (max_iter), a refusal with its reason, a time
# limit reached (the solver stops at it with its best iterate: a time_limit
# row with its residuals, one run); an external solver judged by the library's
# residual (lcplab itself through `solve`, and one that writes a wrong
# answer); a campaign stopped by SIGTERM, or by SIGINT under --jobs 2,
# leaves valid CSVs, names the tasks left, and finishes on the next run
# without redoing the tasks done, with the CSV of an uninterrupted run
# (timing columns aside); a truncated and an altered
# result are named and left out with exit 3; results of mixed provenance
# are refused (exit 3) unless --allow-mixed; bad input exits 2: --plan DIR
# exists, a task number out of range or not a number, a plan's own files with
# a number edited (plan.info, problems.tsv, tasks.tsv), a folder that is not
# a plan; --dump-failures and --max-memory given with --plan reach its tasks.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_campaign
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
# memcheck keeps its own address space: no RLIMIT_AS on the tasks under it
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

rows() { grep -v '^#' "$1" | tail -n +2; }
# untimed FILE: the rows without the columns that are measurements of time
untimed() {
  hdr=$(grep -v '^#' "$1" | head -n 1)
  drop=$(printf '%s\n' "$hdr" | awk -F, '{ for (i = 1; i <= NF; i++) if ($i ~ /^(time_s|time_min_s|time_q1_s|time_q3_s|repeats|time_total_s|time_runs_s)$/) printf "%d ", i }')
  grep -v '^#' "$1" | awk -F, -v drop="$drop" 'BEGIN { n = split(drop, d, " "); for (k = 1; k <= n; k++) skip[d[k]] = 1 }
    { s = ""; for (i = 1; i <= NF; i++) if (!(i in skip)) s = s $i ","; print s }'
}

write_p2 "$T/p2.dat" # the hand problem (tst_cli_lib.sh): x = (1, 0)

# ---- 1. the same numbers with --jobs 1, --jobs 2, GNU parallel ---------------------------
cat >"$T/small.exp" <<'EOF'
# a small campaign of every kind of task
experiment profile prof
solvers pgs lemke enum direct
instances p2.dat
generate spd 8 seeds=1-2
tol 1e-6 1e-10
min_runs 1
min_time 0
experiment drift
solvers pgs nsgs
scene ball steps=20
friction box cone
EOF
lcp experiment "$T/small.exp" --out "$T/j1" --jobs 1 --no-plot
rc1=$rc
lcp experiment "$T/small.exp" --out "$T/j2" --jobs 2 --no-plot
rc2=$rc
untimed "$T/j1/prof.csv" >"$T/u1"
untimed "$T/j2/prof.csv" >"$T/u2"
rows "$T/j1/drift.csv" >"$T/d1"
rows "$T/j2/drift.csv" >"$T/d2"
if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && [ -s "$T/u1" ] && [ -s "$T/d1" ] && cmp -s "$T/u1" "$T/u2" && \
   cmp -s "$T/d1" "$T/d2"; then
  pass "--jobs 1 and --jobs 2 give the same CSVs (timing columns aside)"
else
  fail "--jobs 1 and --jobs 2 give the same CSVs" "exit $rc1 / $rc2; $(diff "$T/u1" "$T/u2" | head -5)"
fi
n=$(rows "$T/j1/prof.csv" | wc -l)
# 3 problems x 4 solvers x 2 tols
if [ "$n" -eq 24 ]; then pass "one row per (problem, solver, tol)"; else fail "rows of the profile" "$n, expected 24"; fi
for f in failures coverage winners timings; do
  if ! cmp -s "$T/j1/prof_$f.csv" "$T/j2/prof_$f.csv" && [ "$f" != timings ] && [ "$f" != winners ]; then
    fail "table prof_$f.csv is the same for --jobs 1 and 2" "differs"
  fi
done
# GNU parallel runs the tasks natively: under memcheck (LCPLAB_VALGRIND=1)
# the reference is a native --jobs 1 run, since memcheck's CPU makes
# OpenBLAS pick other kernels and so other last bits
if [ -n "$VG" ]; then
  "$BIN" experiment "$T/small.exp" --out "$T/j1n" --jobs 1 --no-plot >/dev/null 2>&1
  untimed "$T/j1n/prof.csv" >"$T/u1"
  rows "$T/j1n/drift.csv" >"$T/d1"
fi
if command -v parallel >/dev/null 2>&1; then
  lcp experiment "$T/small.exp" --plan "$T/gp"
  sh "$T/gp/run-parallel.sh" -j 2 >"$T/gp.out" 2>&1
  prc=$?
  lcp collect "$T/gp" --out "$T/gpo" --no-plot
  untimed "$T/gpo/prof.csv" >"$T/u3"
  rows "$T/gpo/drift.csv" >"$T/d3"
  if [ "$prc" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/u1" "$T/u3" && cmp -s "$T/d1" "$T/d3" && \
     [ "$(wc -l <"$T/gp/joblog")" -gt 1 ]; then
    pass "GNU parallel (run-parallel.sh, --joblog) gives the same CSVs"
  else
    fail "GNU parallel gives the same CSVs" "parallel exit $prc, collect exit $rc; $(diff "$T/u1" "$T/u3" | head -5)"
  fi
  sh "$T/gp/run-parallel.sh" -j 2 >"$T/gp.out" 2>&1
  if [ $? -eq 0 ]; then pass "run-parallel.sh again: --resume-failed, nothing to do"; else fail "run-parallel.sh again" "$(tail -3 "$T/gp.out")"; fi
else
  echo "SKIP: GNU parallel not installed (Debian: parallel): no run-parallel.sh check"
fi

# ---- 2. planted outcomes: max_iter, refusal, time limit -----------------------------------
cat >"$T/planted.exp" <<'EOF'
experiment profile cap
solvers pgs direct
generate spd 30
tol 1e-30
max_iter 3
min_runs 1
min_time 0
experiment profile slow
solvers pgs
generate spd 200
tol 1e-4 1e-30
max_iter 2000000000
time_limit 0.3
min_runs 1
min_time 0
EOF
lcp experiment "$T/planted.exp" --out "$T/pl" --jobs 2 --no-plot
r=$(rows "$T/pl/cap.csv" | awk -F, '$4 == "pgs" {print $6, $7, $14}')
if [ "$rc" -eq 0 ] && [ "$r" = "max_iter 3 0" ]; then pass "planted: pgs cannot reach 1e-30 in 3 sweeps: max_iter, 3 iterations, not solved"; else fail "planted max_iter" "exit $rc, '$r'"; fi
r=$(rows "$T/pl/cap.csv" | awk -F, '$4 == "direct" {print $6, ($23 ~ /equality rows/)}')
if [ "$r" = "refused 1" ]; then pass "planted: direct refuses the LCP, with its reason"; else fail "planted refusal" "'$r'"; fi
r=$(rows "$T/pl/slow.csv" | awk -F, '{print $5 ":" $6 ":" ($23 ~ /time limit/)}' | tr '\n' ' ')
if [ "$r" = "0.0001:converged:0 1e-30:time_limit:1 " ]; then
  pass "planted: time_limit at 1e-30 after the converged 1e-4 row"
else
  fail "planted time limit" "'$r'"
fi
# the solve stopped at the limit keeps its answer: one run that lasted the limit at least,
# its residual (pgs's best iterate on the planted problem: far below 1, not 0), not solved
# (res_scaled counted from the end: the quoted note before it holds commas)
r=$(rows "$T/pl/slow.csv" | awk -F, '$5 == "1e-30" {print $11, ($9 >= 0.3), ($(NF-8) != "" && $(NF-8) + 0 > 0 && $(NF-8) + 0 < 1e-3), $14}')
if [ "$r" = "1 1 1 0" ]; then
  pass "planted: the time-limited solve reports its best iterate (one run, its time, res_scaled)"
else
  fail "planted time limit: repeats, time, residual, solved" "'$r'"
fi
f=$(grep -v '^#' "$T/pl/slow_failures.csv" | awk -F, '$2 == "1e-30" {print $5, $14}')
if [ "$f" = "0 1" ]; then pass "failure table counts the time_limit"; else fail "failure table time_limit" "'$f'"; fi

# ---- 3. external solvers judged by the library's residual --------------------------------
cat >"$T/liar.sh" <<'EOF'
#!/bin/sh
# a solver that prints a solve time and writes x = 0 whatever the problem
n=$(sed -n 's/^n //p' "$1" | head -n 1)
i=0; : >"$2"; while [ "$i" -lt "$n" ]; do echo 0 >>"$2"; i=$((i + 1)); done
echo '{"solve_time_s": 0.25}'
EOF
chmod +x "$T/liar.sh"
cat >"$T/ext.exp" <<EOF
external self format=dat time=time_s command "$BIN" solve {in} --solver lemke --tol {tol} --solution {out} --json
external liar format=lcp time=solve_time_s command sh "$T/liar.sh" {in} {out}
external absent requires=/nonexistent/peer_solve command /nonexistent/peer_solve {in} {out}
experiment profile ext
solvers lemke self liar absent
instances p2.dat
generate spd 10
tol 1e-8
min_runs 2
min_time 0
EOF
lcp experiment "$T/ext.exp" --out "$T/ex" --jobs 2 --no-plot
r=$(rows "$T/ex/ext.csv" | awk -F, '$4 == "self" {print $1, $6, $22}' | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$r" = "p2 converged reported spd_10_s1 converged reported " ]; then
  pass "external: lcplab solve as a command, judged converged, its reported time compared"
else
  fail "external self" "exit $rc, '$r'"
fi
r=$(rows "$T/ex/ext.csv" | awk -F, '$4 == "liar" {print $6, $9}' | tr '\n' ' ')
if [ "$r" = "unconverged 2.500000e-01 unconverged 2.500000e-01 " ]; then
  pass "external: a wrong answer is unconverged by the library's residual; its reported time kept"
else
  fail "external liar" "'$r'"
fi
if grep -q 'left out.*absent' "$T/err" && ! rows "$T/ex/ext.csv" | grep -q ',absent,'; then
  pass "external: an absent program is reported in one line and left out"
else
  fail "external absent" "$(grep absent "$T/err")"
fi

# a peer whose process start-up (30 ms) dwarfs the solve time it reports (1 us): the wall
# budget (max_time 0.05 s) must not end its repeats before min_runs
cat >"$T/slowstart.sh" <<'EOF'
#!/bin/sh
n=$(sed -n 's/^n //p' "$1" | head -n 1)
i=0; : >"$2"; while [ "$i" -lt "$n" ]; do echo 0 >>"$2"; i=$((i + 1)); done
sleep 0.03
echo '{"solve_time_s": 1e-6}'
EOF
cat >"$T/ext5.exp" <<EOF
external slowstart format=lcp time=solve_time_s command sh "$T/slowstart.sh" {in} {out}
experiment profile ext5
solvers slowstart
generate spd 10
tol 1e-8
min_runs 5
min_time 0.1
max_time 0.05
EOF
lcp experiment "$T/ext5.exp" --out "$T/ex5" --jobs 1 --no-plot
r=$(rows "$T/ex5/ext5.csv" | awk -F, '$4 == "slowstart" {print $11, $22}')
if [ "$rc" -eq 0 ] && [ "$r" = "5 reported" ]; then
  pass "external: a slow-starting peer still gets min_runs runs (the wall budget counts after them)"
else
  fail "external min_runs" "exit $rc, '$r'"
fi

# ---- 4. stopped by SIGTERM, then resumed ------------------------------------------------------
cat >"$T/long.exp" <<'EOF'
experiment profile long
solvers pgs lemke pjacobi
generate spd 60 seeds=1-6
tol 1e-8
min_runs 5
min_time 0.15
EOF
"$BIN" experiment "$T/long.exp" --out "$T/lg" --jobs 2 --no-plot >"$T/lg.out" 2>"$T/lg.err" &
pid=$!
k=0
while [ "$k" -lt 300 ]; do
  nres=$(ls "$T/lg/campaign/results" 2>/dev/null | grep -c '\.res$')
  [ "$nres" -ge 4 ] && break
  sleep 0.1
  k=$((k + 1))
done
kill -TERM "$pid"
wait "$pid"
src=$?
total=$(grep -vc '^#' "$T/lg/campaign/tasks.tsv")
done1=$(ls "$T/lg/campaign/results" | grep -c '\.res$')
hdr=$(grep -v '^#' "$T/lg/long.csv" 2>/dev/null | head -n 1)
nrow=$(rows "$T/lg/long.csv" 2>/dev/null | wc -l)
if [ "$src" -eq 143 ] && [ "$done1" -lt "$total" ] && [ "$nrow" -eq "$done1" ] && \
   [ "$hdr" = "$(grep -v '^#' "$T/j1/prof.csv" | head -n 1)" ] && grep -q "^# tasks: $done1 of $total" "$T/lg/long.csv" && \
   grep -q 'stopped by SIGTERM' "$T/lg.err"; then
  pass "SIGTERM: exit 143, the CSV is valid with the $done1 of $total tasks done, and says so"
else
  fail "SIGTERM stop" "exit $src, $done1 of $total results, $nrow rows; $(tail -2 "$T/lg.err")"
fi
ls -l --time-style=+%s.%N "$T/lg/campaign/results" | awk '/\.res$/ {print $6, $7}' >"$T/before"
lcp experiment "$T/long.exp" --out "$T/lg" --jobs 2 --no-plot
ls -l --time-style=+%s.%N "$T/lg/campaign/results" | awk '/\.res$/ {print $6, $7}' >"$T/after"
kept=$(awk 'NR == FNR { t[$2] = $1; next } ($2 in t) && t[$2] == $1' "$T/before" "$T/after" | wc -l)
if [ "$rc" -eq 0 ] && [ "$(rows "$T/lg/long.csv" | wc -l)" -eq "$total" ] && [ "$kept" -eq "$done1" ] && \
   grep -q "($done1 resumed)" "$T/err"; then
  pass "the next run finishes the campaign without redoing the $done1 tasks done"
else
  fail "resume after SIGTERM" "exit $rc, kept $kept of $done1; $(tail -2 "$T/err")"
fi

# the same campaign uninterrupted, on one process: the resumed one gives the
# same CSV, timing columns aside
lcp experiment "$T/long.exp" --out "$T/lgref" --jobs 1 --no-plot --data "$T/lg/generated"
untimed "$T/lgref/long.csv" >"$T/lgref.u"
untimed "$T/lg/long.csv" >"$T/lg.u"
if [ "$rc" -eq 0 ] && cmp -s "$T/lgref.u" "$T/lg.u"; then
  pass "stopped by SIGTERM and resumed: the same CSV as an uninterrupted run (timing aside)"
else
  fail "SIGTERM and resume against an uninterrupted run" "exit $rc; $(diff "$T/lgref.u" "$T/lg.u" | head -3)"
fi

# ---- 4b. SIGINT with --jobs 2: the running tasks finish, the CSV holds the
# tasks done (each row as in the uninterrupted run), the message says which
# tasks are left; the next run resumes and gives the uninterrupted CSV.
# (A background job of a non-interactive shell starts with SIGINT ignored;
# lcplab sets its own handler.)
"$BIN" experiment "$T/long.exp" --out "$T/li" --jobs 2 --no-plot --data "$T/lg/generated" >"$T/li.out" 2>"$T/li.err" &
pid=$!
k=0
while [ "$k" -lt 300 ]; do
  nres=$(ls "$T/li/campaign/results" 2>/dev/null | grep -c '\.res$')
  [ "$nres" -ge 2 ] && break
  sleep 0.1
  k=$((k + 1))
done
kill -INT "$pid"
wait "$pid"
src=$?
done1=$(ls "$T/li/campaign/results" | grep -c '\.res$')
nrow=$(rows "$T/li/long.csv" 2>/dev/null | wc -l)
untimed "$T/li/long.csv" >"$T/li.u" 2>/dev/null
notin=$(awk 'NR == FNR { ref[$0] = 1; next } !($0 in ref)' "$T/lgref.u" "$T/li.u" | wc -l)
if [ "$src" -eq 130 ] && [ "$done1" -lt "$total" ] && [ "$nrow" -eq "$done1" ] && [ "$notin" -eq 0 ] && \
   grep -q "^# tasks: $done1 of $total" "$T/li/long.csv" && \
   grep -q "stopped by SIGINT: $done1 of $total tasks have a result, $((total - done1)) left (tasks [0-9]" "$T/li.err"; then
  pass "SIGINT: exit 130, the CSV is valid with the $done1 of $total tasks done (rows as uninterrupted), the tasks left named"
else
  fail "SIGINT stop" "exit $src, $done1 of $total results, $nrow rows, $notin rows unlike the reference; $(tail -2 "$T/li.err")"
fi
lcp experiment "$T/long.exp" --out "$T/li" --jobs 2 --no-plot --data "$T/lg/generated"
untimed "$T/li/long.csv" >"$T/li.u"
if [ "$rc" -eq 0 ] && grep -q "($done1 resumed)" "$T/err" && cmp -s "$T/lgref.u" "$T/li.u"; then
  pass "after SIGINT the next run resumes ($done1 tasks kept) and gives the uninterrupted CSV (timing aside)"
else
  fail "resume after SIGINT" "exit $rc; $(tail -1 "$T/err"); $(diff "$T/lgref.u" "$T/li.u" | head -3)"
fi

# ---- 5. corrupted and truncated results; mixed provenance ---------------------------------
cp -r "$T/j1/campaign" "$T/cc"
# the plan folder moved: its results are still its own (plan id), collect it there
r0=$T/cc/results/t000000.res
r1=$T/cc/results/t000001.res
head -n -1 "$r0" >"$r0.x" && mv "$r0.x" "$r0"
sed -i 's/^prov cores 2$/prov cores 3/; s/^prov cores \([0-9]*\)$/prov cores 9\1/' "$r1"
lcp collect "$T/cc" --out "$T/cco" --no-plot
if [ "$rc" -eq 3 ] && grep -q 't000000.res: truncated' "$T/err" && grep -q 't000001.res: corrupted (checksum' "$T/err" && \
   [ "$(rows "$T/cco/prof.csv" | wc -l)" -eq 20 ]; then
  pass "collect names a truncated and an altered result, leaves them out (20 rows), exit 3"
else
  fail "corrupted results" "exit $rc, $(rows "$T/cco/prof.csv" 2>/dev/null | wc -l) rows; $(head -3 "$T/err")"
fi
# mixed provenance: one result with another CPU and a valid checksum
cp -r "$T/j1/campaign" "$T/mx"
python3 - "$T/mx/results/t000002.res" <<'PY'
import sys
p = sys.argv[1]
lines = open(p, 'rb').read().split(b'\n')
body = []
for l in lines:
    if l.startswith(b'end '):
        break
    body.append(b'prov cpu Another CPU 9000' if l.startswith(b'prov cpu ') else l)
text = b'\n'.join(body) + b'\n'
h = 0xcbf29ce484222325
for c in text:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
nrows = len(body) - body.index(b'rows') - 1
open(p, 'wb').write(text + b'end %d %016x\n' % (nrows, h))
PY
lcp collect "$T/mx" --out "$T/mxo" --no-plot
if [ "$rc" -eq 3 ] && grep -q 'mixed provenance.*cpu.*Another CPU 9000' "$T/err" && [ ! -e "$T/mxo/prof.csv" ]; then
  pass "collect refuses results of mixed provenance (another CPU), merges nothing, exit 3"
else
  fail "mixed provenance refused" "exit $rc; $(head -2 "$T/err")"
fi
lcp collect "$T/mx" --out "$T/mxo" --no-plot --allow-mixed
if [ "$rc" -eq 0 ] && grep -q '^# cpu: .*Another CPU 9000 (1 tasks)' "$T/mxo/prof.csv"; then
  pass "--allow-mixed merges them and lists each CPU with its count"
else
  fail "--allow-mixed" "exit $rc; $(grep '^# cpu' "$T/mxo/prof.csv")"
fi

# ---- 5b. --dump-failures and --max-memory given with --plan reach the plan's tasks ----------------
# (plan.info records them; lcplab task, as run-parallel.sh and slurm.sbatch
# run it, takes them from there).  lemke on the 2-layer pyramid has failed
# steps (tests/test_experiment.sh checks their rows and dumps in detail).
printf 'experiment drift lf\nsolvers lemke\nmax_pivots 12\nscene pyramid layers=2 steps=120\nfriction box\n' >"$T/pd.exp"
lcp experiment "$T/pd.exp" --plan "$T/pd" --dump-failures "$T/pdump" --max-memory 64M
lcp task "$T/pd" 0
d=$(ls -d "$T/pdump/lf"/t000000_pyramid_lemke_symplectic_box 2>/dev/null)
nf=$(grep -v '^#' "$T/pd/results/t000000.res" 2>/dev/null | awk -F, 'NF > 10 && $13 != "converged" && $5 != ""' | wc -l)
if [ "$rc" -eq 0 ] && grep -q "^dump_failures $T/pdump$" "$T/pd/plan.info" && grep -q '^max_memory 67108864$' "$T/pd/plan.info" \
   && [ -n "$d" ] && [ "$nf" -gt 0 ] && [ "$(($(wc -l <"$d/failures.csv") - 1))" -eq "$nf" ]; then
  pass "--plan records --dump-failures and --max-memory; the task dumps its $nf failed steps"
else
  fail "--plan with --dump-failures" "exit $rc, dump '$d', $nf failed rows; $(grep -E '^(dump|max_mem)' "$T/pd/plan.info")"
fi

# ---- 6. bad input ---------------------------------------------------------------------------
mkdir -p "$T/gp0"
expect_err "--plan DIR that exists" "exists (use --force" experiment "$T/small.exp" --plan "$T/gp0"
expect_err "task number out of range" "out of range" task "$T/j1/campaign" 999
expect_err "task number not a number" "task number" task "$T/j1/campaign" 1x
expect_err "task of a folder that is not a plan" "not a plan folder" task "$T" 0
expect_err "collect of a folder that is not a plan" "not a plan folder" collect "$T"
# a plan's own files edited by hand: their numbers are read strictly, the
# file and the field named (atof read "abc" as 0, no time limit)
damaged() { # NAME FILE SED-EXPR MESSAGE
  rm -rf "$T/dm" && cp -r "$T/j1/campaign" "$T/dm" && sed -i "$3" "$T/dm/$2"
  expect_err "$1" "$4" task "$T/dm" 0
}
damaged "plan.info time_limit not a number" plan.info 's/^time_limit .*/time_limit abc/' \
  "plan.info: time_limit 'abc'"
damaged "plan.info memory_mb negative" plan.info 's/^memory_mb .*/memory_mb -5/' \
  "plan.info: memory_mb '-5'"
damaged "plan.info max_memory with a tail" plan.info 's/^max_memory .*/max_memory 12x/' \
  "plan.info: max_memory '12x'"
damaged "problems.tsv n with a tail" problems.tsv '2s/^\(0\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t\)[0-9]*/\112x/' \
  "problems.tsv: problem 0, n '12x'"
damaged "problems.tsv cond_est not a number" problems.tsv '2s/^\(\([^\t]*\t\)\{9\}\)[^\t]*/\1big/' \
  "problems.tsv: problem 0, cond_est 'big'"
damaged "tasks.tsv problem index with a tail" tasks.tsv '2s/^\(0\t[^\t]*\t[^\t]*\t\)[0-9]*/\10x/' \
  "tasks.tsv: task 0: not a task"
lcp task "$T/j1/campaign" 0
if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then pass "task with an intact result: not run again, exit 0"; else fail "task resume" "exit $rc"; fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
