#!/bin/sh
# test_campaign_safe.sh -- a campaign's folders hold only what they should
# and no result outlives what it was computed from (experiments/CAMPAIGNS.md,
# "What lcplab owns in a folder", "One run per folder", "Results keyed by
# content"; issue 64, findings 4, 7-11 and 19):
#   4. --force removes only the files lcplab recorded: a user's
#      PLAN/results/analysis.txt survives --plan PLAN --force, and
#      OUT/campaign/results/analysis.txt and OUT/mine.txt survive --out OUT
#      --force;
#   9. --force over a folder whose file lost a section removes that
#      section's old outputs (--out, and --plan then collect);
#  10. a --no-plot run after an instance edit removes the old figures beside
#      the new CSV (a user's file of another name stays);
#   7. an external solver's program is in its tasks' keys: an edited script
#      reruns its tasks (the new answer in the CSV, the new hash in the
#      '# program:' line), and a plan's task whose script changed since the
#      plan was made refuses to run;
#   8. a task whose worker was killed (kill -9) is a row that says crashed,
#      counted as crashed in the failure table, and runs again on the next
#      run; one that ran out of memory (LCPLAB_MEMORY_LIMIT) is crashed and
#      runs again under `lcplab task P N`; a run stopped by its time limit
#      (timeout's SIGTERM to the process group) is finished by the next one;
#  11. a second `lcplab experiment` (or collect) into a folder in use exits
#      2 naming the holder's pid, host and start time, while `lcplab task` of
#      the same plan runs; a lock whose process is gone is taken over; one
#      from another host is not;
#  19. a 2,000-line file plans its 2,000 tasks, one per line in order; three
#      files of one base name are labelled a, a~2, a~3 (the behaviour, not
#      the time: `make bench-plan` measures that).
#
# Environment: LCPLAB_BIN (required, else SKIP).  Exit: 0 all passed, 1 any
# failure, 77 skipped.

TST_NAME=test_campaign_safe
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi
export OPENBLAS_NUM_THREADS=1

rows() { grep -v '^#' "$1" | tail -n +2; }
# status SOLVER PROBLEM CSV: the status column of the (problem, solver) rows, once each
status() { rows "$3" | awk -F, -v s="$1" -v p="$2" '$4 == s && $1 == p { print $6 }' | sort -u; }
# wait_for FILE: until FILE exists (30 s at most)
wait_for() {
  k=0
  while [ ! -s "$1" ] && [ "$k" -lt 300 ]; do sleep 0.1; k=$((k + 1)); done
}

mkdir -p "$T/inst" "$T/bin"
write_p2 "$T/inst/p2.dat"
write_p2 "$T/inst/q2.dat"
# ext.sh IN OUT: writes x = (1, 0), p2's answer; while $T/hold exists it
# first waits, with its worker's pid in $T/worker.pid (the worker forked the
# leader of its process group, sh -c TEMPLATE)
cat >"$T/bin/ext.sh" <<EOF
#!/bin/sh
# version 1
if [ -e "$T/hold" ]; then
  ps -o ppid= -p "\$(ps -o pgid= -p \$\$ | tr -d ' ')" | tr -d ' ' >"$T/worker.pid.tmp"
  mv "$T/worker.pid.tmp" "$T/worker.pid"
  while [ -e "$T/hold" ]; do sleep 0.1; done
fi
printf '1\n0\n' >"\$2"
EOF
chmod +x "$T/bin/ext.sh"
cat >"$T/two.exp" <<EOF
experiment profile pa
solvers pgs lemke
instances inst/p2.dat inst/q2.dat
min_runs 1
min_time 0
experiment profile pb
solvers pgs
instances inst/p2.dat
min_runs 1
min_time 0
EOF
sed '/^experiment profile pb/,$d' "$T/two.exp" >"$T/one.exp"
# a figure drawer that draws nothing: fig.pdf, fig.png and a page, each
# only its format's first and last bytes (figure.c takes whole files only)
cat >"$T/bin/gnuplot" <<'EOF'
#!/bin/sh
d=$(dirname "$1")
for f in fig.pdf fig-2.pdf; do printf '%%PDF-1.4\n%%%%EOF\n' >"$d/$f"; done
printf '\211PNG\r\n\032\n\0\0\0\0IEND\256B`\202' >"$d/fig.png"
EOF
chmod +x "$T/bin/gnuplot"
export GNUPLOT="$T/bin/gnuplot"
fig_count() { ls "$1" | grep -c "^$2.*\.\(pdf\|png\)$"; }

# ---- 4 and 9. --force removes what lcplab recorded, and only that -------------------------------
lcp experiment "$T/two.exp" --plan "$T/PG"
for i in 0 1 2 3 4; do lcp task "$T/PG" "$i"; done
lcp collect "$T/PG" --no-plot
echo "the user's" >"$T/PG/results/analysis.txt"
echo "the user's" >"$T/PG/notes.txt"
npb=$(ls "$T/PG" | grep -c '^pb')
lcp experiment "$T/one.exp" --plan "$T/PG" --force
if [ "$rc" -eq 0 ] && [ -f "$T/PG/results/analysis.txt" ] && [ -f "$T/PG/notes.txt" ] && \
   [ "$(ls "$T/PG/results")" = analysis.txt ]; then
  pass "--plan PG --force removes the old results and keeps the user's PG/results/analysis.txt"
else
  fail "--plan --force" "exit $rc; PG/results holds: $(ls "$T/PG/results" | tr '\n' ' ')"
fi
if [ "$npb" -gt 10 ] && [ "$(ls "$T/PG" | grep -c '^pb')" -eq 0 ]; then
  pass "--plan PG --force over a file that lost section pb: its $npb old outputs are gone"
else
  fail "a lost section's outputs in the plan folder" "$(ls "$T/PG" | grep '^pb' | head -3 | tr '\n' ' ')"
fi

lcp experiment "$T/two.exp" --out "$T/OO" --jobs 1
echo "the user's" >"$T/OO/campaign/results/analysis.txt"
echo "the user's" >"$T/OO/mine.txt"
npb=$(ls "$T/OO" | grep -c '^pb')
lcp experiment "$T/one.exp" --out "$T/OO" --jobs 1 --force
if [ "$rc" -eq 0 ] && [ -f "$T/OO/campaign/results/analysis.txt" ] && [ -f "$T/OO/mine.txt" ] && \
   [ "$(ls "$T/OO/campaign/results" | grep -c '\.res$')" -eq 4 ]; then
  pass "--out OO --force keeps OO/campaign/results/analysis.txt and OO/mine.txt"
else
  fail "--out --force" "exit $rc; $(ls "$T/OO/campaign/results" | tr '\n' ' ')"
fi
if [ "$npb" -gt 10 ] && [ "$(ls "$T/OO" | grep -c '^pb')" -eq 0 ] && [ -f "$T/OO/pa.csv" ]; then
  pass "--out OO --force over a file that lost section pb: its $npb old outputs are gone"
else
  fail "a lost section's outputs" "$(ls "$T/OO" | grep '^pb' | head -3 | tr '\n' ' ')"
fi

# ---- 10. --no-plot after an instance edit: no figure of the old CSV stays -----------------------
nfig=$(fig_count "$T/OO" pa)
: >"$T/OO/pa-notes.pdf"
sed -i 's/^-2 1$/ 2 1/' "$T/inst/q2.dat"
lcp experiment "$T/one.exp" --out "$T/OO" --jobs 1 --no-plot
if [ "$rc" -eq 0 ] && [ "$nfig" -ge 3 ] && [ "$(fig_count "$T/OO" pa)" -eq 1 ] && [ -f "$T/OO/pa-notes.pdf" ] && \
   grep -q '(2 resumed)' "$T/err"; then
  pass "--no-plot after an instance edit: the $nfig old figures of pa are gone, the user's pa-notes.pdf stays"
else
  fail "stale figures" "exit $rc; $(ls "$T/OO" | grep '^pa.*\.p[dn][fg]$' | tr '\n' ' ')"
fi
sed -i 's/^ 2 1$/-2 1/' "$T/inst/q2.dat"

# ---- 7. the external's program is in its tasks' keys ------------------------------------------
cat >"$T/x.exp" <<EOF
external ext format=lcp command "$T/bin/ext.sh" {in} {out}
experiment profile x
solvers ext pgs
instances inst/p2.dat
min_runs 1
min_time 0
EOF
lcp experiment "$T/x.exp" --out "$T/X" --jobs 1 --no-plot
s1=$(status ext p2 "$T/X/x.csv")
h1=$(sha256sum "$T/bin/ext.sh" | cut -c1-64)
sed -i 's/^# version 1$/# version 2/; s/1\\n0\\n/0\\n0\\n/' "$T/bin/ext.sh"
h2=$(sha256sum "$T/bin/ext.sh" | cut -c1-64)
lcp experiment "$T/x.exp" --out "$T/X" --jobs 1 --no-plot
s2=$(status ext p2 "$T/X/x.csv")
if [ "$s1" = converged ] && [ "$s2" = unconverged ] && grep -q '2 tasks (1 resumed)' "$T/err" && \
   grep -q "^# program: ext $T/bin/ext.sh sha256 $h2\$" "$T/X/x.csv" && ! grep -q "$h1" "$T/X/x.csv"; then
  pass "an edited external program reruns its tasks: the CSV has the new version's rows and hash"
else
  fail "edited program" "status before '$s1', after '$s2'; $(grep '^# program' "$T/X/x.csv")"
fi
lcp experiment "$T/x.exp" --plan "$T/XP"
echo "# version 3" >>"$T/bin/ext.sh"
lcp task "$T/XP" 0
if [ "$rc" -eq 3 ] && grep -q '^task_status error' "$T/XP/results/t000000.res" && \
   grep -q "ext.sh changed since the plan was made" "$T/XP/results/t000000.res"; then
  pass "a plan's task whose external program changed since the plan was made refuses to run"
else
  fail "changed program under lcplab task" "exit $rc; $(grep -A1 task_status "$T/XP/results/t000000.res")"
fi

# ---- 8. a killed worker, memory, a stopped run: not a verdict ---------------------------------
sed -i 's/0\\n0\\n/1\\n0\\n/' "$T/bin/ext.sh"
: >"$T/hold"
"$BIN" experiment "$T/x.exp" --out "$T/K" --jobs 1 --no-plot >"$T/k.out" 2>"$T/k.err" &
pid=$!
wait_for "$T/worker.pid"
kill -9 "$(cat "$T/worker.pid")"
rm -f "$T/hold" "$T/worker.pid"
wait "$pid"
krc=$?
fl=$(rows "$T/K/x_failures.csv" | awk -F, '$3 == "ext" { print $4, $5, $19; exit }')
note=$(rows "$T/K/x.csv" | awk -F, '$4 == "ext" { print $23; exit }')
if [ "$krc" -eq 3 ] && [ "$(status ext p2 "$T/K/x.csv")" = crashed ] && echo "$note" | grep -q 'signal 9' && \
   [ "$fl" = "1 0 1" ] && grep -v '^#' "$T/K/x_failures.csv" | head -n 1 | grep -q ',crashed,other$' && \
   grep -q 'task 0 did not finish: the worker died of signal 9' "$T/k.err"; then
  pass "a killed worker's task: rows that say crashed (signal 9), counted crashed, not converged; exit 3"
else
  fail "killed worker" "exit $krc, failures '$fl', note '$note'; $(tail -1 "$T/k.err")"
fi
lcp experiment "$T/x.exp" --out "$T/K" --jobs 1 --no-plot
if [ "$rc" -eq 0 ] && [ "$(status ext p2 "$T/K/x.csv")" = converged ] && grep -q '2 tasks (1 resumed)' "$T/err" && \
   grep -q '1 task did not finish last time' "$T/err"; then
  pass "the next run runs the crashed task again: converged"
else
  fail "rerun of a crashed task" "exit $rc; $(grep -v '^/' "$T/err" | tail -2)"
fi

lcp experiment "$T/one.exp" --plan "$T/M"
LCPLAB_MEMORY_LIMIT=20 lcp task "$T/M" 0
mrc=$rc
ms=$(sed -n 's/^task_status //p' "$T/M/results/t000000.res" 2>/dev/null)
if [ "$ms" = ok ]; then
  pass "out of memory: skipped (no memory limit in this build: a sanitizer's)"
else
  lcp task "$T/M" 0
  if [ "$mrc" -eq 3 ] && [ "$ms" = crashed ] && [ "$rc" -eq 0 ] && grep -q '^task_status ok' "$T/M/results/t000000.res"; then
    pass "a task that ran out of memory is crashed (exit 3), and lcplab task P N runs it again"
  else
    fail "out of memory" "exit $mrc then $rc, task_status '$ms'"
  fi
fi

# the whole run's time limit (timeout(1), as Slurm's): SIGTERM to its process
# group, the waiting task's worker included
: >"$T/hold"
timeout -k 20 -s TERM 5 "$BIN" experiment "$T/x.exp" --out "$T/S" --jobs 1 --no-plot >"$T/s.out" 2>"$T/s.err" &
pid=$!
wait_for "$T/worker.pid"
wait "$pid"
rm -f "$T/hold" "$T/worker.pid"
lcp experiment "$T/x.exp" --out "$T/S" --jobs 1 --no-plot
if [ "$rc" -eq 0 ] && [ "$(status ext p2 "$T/S/x.csv")" = converged ] && [ "$(rows "$T/S/x.csv" | wc -l)" -eq 4 ]; then
  pass "a run stopped by SIGTERM to its process group (a time limit): the next run finishes it"
else
  fail "run stopped by its time limit" "exit $rc; $(tail -2 "$T/err")"
fi

# ---- 11. one run per folder ----------------------------------------------------------------------
: >"$T/hold"
"$BIN" experiment "$T/x.exp" --out "$T/L" --jobs 1 --no-plot >"$T/l.out" 2>"$T/l.err" &
pid=$!
wait_for "$T/worker.pid"
# the same command again (bounded: without the lock it would wait on the hold too)
timeout -k 10 60 "$BIN" experiment "$T/x.exp" --out "$T/L" --jobs 1 --no-plot >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && \
   grep -q "is in use by lcplab experiment (pid $pid on host $(hostname), started 20" "$T/err"; then
  pass "a second experiment into a folder in use exits 2 naming the holder's pid, host and start"
else
  fail "a second experiment into a folder in use" "exit $rc (want 2)"
fi
lcp task "$T/L/campaign" 1
if [ "$rc" -eq 0 ] && grep -q '^task_status ok' "$T/L/campaign/results/t000001.res"; then
  pass "lcplab task of the same plan runs while the campaign holds the folder"
else
  fail "task beside the campaign" "exit $rc"
fi
expect_err "collect into a folder in use exits 2" "is in use by lcplab experiment (pid $pid" \
  collect "$T/L/campaign" --out "$T/L" --no-plot
rm -f "$T/hold" "$T/worker.pid"
wait "$pid"
lrc=$?
if [ "$lrc" -eq 0 ] && [ ! -e "$T/L/.lcplab-lock" ]; then
  pass "the holder finishes (exit 0) and leaves no lock"
else
  fail "the holder" "exit $lrc; $(ls -a "$T/L" | grep lock)"
fi
sh -c 'exit 0' &
dead=$!
wait "$dead"
printf 'lcplab-lock 1\npid %s\nhost %s\nboot %s\nstart 1\nstarted 2026-01-01T00:00:00Z\nwhat experiment\n' \
  "$dead" "$(hostname)" "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo -)" >"$T/L/.lcplab-lock"
lcp experiment "$T/x.exp" --out "$T/L" --jobs 1 --no-plot
if [ "$rc" -eq 0 ] && grep -q "took over the lock of a run that is gone (pid $dead on host" "$T/err" && \
   [ ! -e "$T/L/.lcplab-lock" ]; then
  pass "the lock of a process that is gone is taken over, with a note"
else
  fail "stale lock" "exit $rc"
fi
printf 'lcplab-lock 1\npid 1\nhost elsewhere.example\nboot -\nstart 1\nstarted 2026-01-01T00:00:00Z\nwhat experiment\n' \
  >"$T/L/.lcplab-lock"
expect_err "a lock held from another host is not judged: exit 2 naming it" \
  "(pid 1 on host elsewhere.example, started 2026-01-01T00:00:00Z" experiment "$T/x.exp" --out "$T/L" --no-plot
rm -f "$T/L/.lcplab-lock"

# ---- 19. a long file plans right ------------------------------------------------------------
mkdir -p "$T/d1" "$T/d2" "$T/d3"
for d in d1 d2 d3; do write_p2 "$T/$d/a.dat"; done
awk 'BEGIN { print "experiment profile big"; print "solvers pgs"
  print "instances d1/a.dat d2/a.dat d3/a.dat d1/a.dat"
  for (k = 1; k <= 2000; k++) print "generate spd 2 seed=" k }' >"$T/big.exp"
lcp experiment "$T/big.exp" --plan "$T/B"
labels=$(grep -v '^#' "$T/B/problems.tsv" | cut -f3 | head -n 3 | tr '\n' ' ')
seq_ok=$(grep -v '^#' "$T/B/tasks.tsv" | tail -n +4 | awk -F'\t' '$8 != "spd_2_s" NR { bad++ } END { print bad + 0 }')
if [ "$rc" -eq 0 ] && [ "$(grep -vc '^#' "$T/B/tasks.tsv")" -eq 2003 ] && [ "$labels" = "a a~2 a~3 " ] && \
   [ "$seq_ok" -eq 0 ]; then
  pass "a 2,003-line file plans 2,003 tasks in order; a, a~2, a~3 for three files of one name"
else
  fail "a long file" "exit $rc, $(grep -vc '^#' "$T/B/tasks.tsv") tasks, labels '$labels', $seq_ok out of order"
fi

tst_done
