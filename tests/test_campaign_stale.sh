#!/bin/sh
# test_campaign_stale.sh -- no stale or wrong result is merged as if right
# (experiments/CAMPAIGNS.md, "Campaigns", "Result files" and "External
# solvers"; issue 48, cases 8-13):
#   8. an edited instance (same n and A, a new b, even with its size and
#      mtime kept) reruns its tasks, and only those, and the CSV has the new
#      row; a plan's task refuses to run on an instance edited since the
#      plan was made; a result computed on other contents is not merged;
#   9. an external solver's scratch folder is the attempt's own: a killed
#      task's leftovers are not read, two attempts never share one, and it
#      is removed afterwards;
#  10. a --var value of 700 characters is kept whole in plan.vars, and a
#      changed value reruns the tasks;
#  11. a FIFO left at {out} does not block the judge: the row says failed,
#      and collect reports the task as failed (exit 3); a solver that closes
#      its stdout does not escape the time limit;
#  12. a row without a solution read has empty residual fields; NaN in a
#      solution file is not_finite; an unconverged answer keeps its
#      residuals; an external solver in a convergence section is refused
#      (its row would not be a convergence row);
#  13. collect needs only the plan folder: it works after the instances
#      folder has moved.
#
# Environment: LCPLAB_BIN (required, else SKIP).  Exit: 0 all passed, 1 any
# failure, 77 skipped.

TST_NAME=test_campaign_stale
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
# memcheck keeps its own address space: no RLIMIT_AS on the tasks under it
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

rows() { grep -v '^#' "$1" | tail -n +2; }
# field SOLVER PROBLEM COLUMN: a column of the profile row of (problem, solver)
field() { rows "$4" | awk -F, -v s="$1" -v p="$2" -v c="$3" '$4 == s && $1 == p { print $c }'; }

# M = diag(2, 2), q = (-2, 1): x = (1, 0); with q = (2, 1): x = 0
mkdir -p "$T/inst"
printf '2\n0\n2\n2\n2 2\n2 0\n0 2\n-2 1\n' >"$T/inst/p2.dat"
cp "$T/inst/p2.dat" "$T/inst/q2.dat"
# zero.sh IN OUT: x = 0 of the size the instance says; logs OUT and $3
cat >"$T/zero.sh" <<'EOF'
#!/bin/sh
n=$(sed -n 's/^n //p' "$1" | head -n 1)
printf '%s %s\n' "$2" "${3:-}" >>"$(dirname "$0")/zero.log"
i=0; : >"$2"; while [ "$i" -lt "$n" ]; do echo 0 >>"$2"; i=$((i + 1)); done
EOF
cat >"$T/z.exp" <<EOF
external zero format=lcp command sh "$T/zero.sh" {in} {out}
experiment profile z
solvers zero
instances inst/p2.dat inst/q2.dat
tol 1e-8
min_runs 1
min_time 0
EOF

# ---- 8. an edited instance reruns its tasks -------------------------------------------------
lcp experiment "$T/z.exp" --out "$T/o8" --jobs 1 --no-plot
s1=$(field zero p2 6 "$T/o8/z.csv")
# the new b has the same length; the file keeps its size and mtime
touch -r "$T/inst/p2.dat" "$T/stamp"
sed -i 's/^-2 1$/ 2 1/' "$T/inst/p2.dat"
touch -r "$T/stamp" "$T/inst/p2.dat"
lcp experiment "$T/z.exp" --out "$T/o8" --jobs 1 --no-plot
s2=$(field zero p2 6 "$T/o8/z.csv")
if [ "$rc" -eq 0 ] && [ "$s1" = unconverged ] && [ "$s2" = converged ] && grep -q '2 tasks (1 resumed)' "$T/err" && \
   grep -q '^lcplab: 1 result is not its task.s own (.*): task 0 runs again$' "$T/err"; then
  pass "an edited instance (same size and mtime) reruns its task only; the CSV has the new row"
else
  fail "edited instance" "exit $rc, status before '$s1', after '$s2' (want unconverged, converged); $(tail -1 "$T/err")"
fi
# a new A (another nnz in problems.tsv): its task reruns too, not a refusal
sed -i 's/^2 0$/2 1/' "$T/inst/p2.dat"
lcp experiment "$T/z.exp" --out "$T/o8" --jobs 1 --no-plot
if [ "$rc" -eq 0 ] && grep -q '2 tasks (1 resumed)' "$T/err" && grep -q "^0	z	p2	p2	lcp	lcp	2	3	.*$(sha256sum "$T/inst/p2.dat" | cut -c1-64)$" "$T/o8/campaign/problems.tsv"; then
  pass "an edited A reruns its task; problems.tsv has the new metadata and SHA-256"
else
  fail "edited A" "exit $rc; $(grep p2 "$T/o8/campaign/problems.tsv")"
fi
sed -i 's/^2 1$/2 0/' "$T/inst/p2.dat"
# a plan's task on an instance edited after planning: refused, not run on other contents
lcp experiment "$T/z.exp" --plan "$T/p8"
sed -i 's/^ 2 1$/-2 1/' "$T/inst/p2.dat"
lcp task "$T/p8" 0
st=$(sed -n 's/^task_status //p' "$T/p8/results/t000000.res" 2>/dev/null)
if [ "$rc" -eq 3 ] && [ "$st" = error ] && grep -q 'changed since the plan' "$T/p8/results/t000000.res"; then
  pass "a task whose instance changed since the plan was made is an error, not a run on other contents"
else
  fail "task on a changed instance" "exit $rc, task_status '$st'"
fi
# a result computed on other contents (another plan of the same file) is not merged
lcp experiment "$T/z.exp" --plan "$T/p8b"
lcp task "$T/p8b" 0
sed -i 's/^-2 1$/ 2 1/' "$T/inst/p2.dat"
lcp experiment "$T/z.exp" --plan "$T/p8c"
cp "$T/p8b/results/t000000.res" "$T/p8c/results/"
lcp task "$T/p8c" 1
lcp collect "$T/p8c" --out "$T/o8c" --no-plot
if [ "$rc" -eq 3 ] && grep -q 't000000.res: stale' "$T/err" && [ -z "$(field zero p2 6 "$T/o8c/z.csv")" ]; then
  pass "collect leaves out a result computed on other contents of the instance (stale, exit 3)"
else
  fail "result of other contents" "exit $rc, p2 row '$(field zero p2 6 "$T/o8c/z.csv")'"
fi

# ---- 9. scratch folders are per attempt -----------------------------------------------------
lcp experiment "$T/z.exp" --plan "$T/p9"
# a killed attempt's leftover: another problem where the instance would go
mkdir -p "$T/p9/scratch/t000000"
printf 'n 3\n' >"$T/p9/scratch/t000000/problem.lcp"
: >"$T/zero.log"
lcp task "$T/p9" 0
s=$(grep -v '^#' "$T/p9/results/t000000.res" | awk -F, 'NF > 10 { print $6 }')
if [ "$rc" -eq 0 ] && [ "$s" = converged ]; then
  pass "a killed task's leftover problem file in scratch/ is not handed to the solver"
else
  fail "leftover scratch" "exit $rc, status '$s'"
fi
lcp task "$T/p9" 0 --force
o1=$(sed -n 1p "$T/zero.log" | cut -d' ' -f1)
o2=$(sed -n 2p "$T/zero.log" | cut -d' ' -f1)
if [ -n "$o1" ] && [ -n "$o2" ] && [ "$o1" != "$o2" ]; then
  pass "two attempts of one task get two scratch folders"
else
  fail "scratch per attempt" "'$o1' and '$o2'"
fi
left=$(find "$T/p9/scratch" -mindepth 1 ! -path "$T/p9/scratch/t000000/problem.lcp" ! -path "$T/p9/scratch/t000000" | wc -l)
if [ "$left" -eq 0 ]; then pass "the attempts' scratch folders are removed"; else fail "scratch removed" "$left left: $(ls "$T/p9/scratch")"; fi

# ---- 10. a long --var value -----------------------------------------------------------------
cat >"$T/v.exp" <<EOF
external zero format=lcp command sh "$T/zero.sh" {in} {out} \${ARG}
experiment profile z
solvers zero
instances inst/q2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
va=$(printf 'a%.0s' $(seq 700))
vb=$(printf 'b%.0s' $(seq 700))
: >"$T/zero.log"
lcp experiment "$T/v.exp" --out "$T/o10" --jobs 1 --no-plot --var "ARG=$va"
rc1=$rc
lcp experiment "$T/v.exp" --out "$T/o10" --jobs 1 --no-plot --var "ARG=$vb"
if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && grep -qx "ARG=$vb" "$T/o10/campaign/plan.vars" && \
   grep -q '1 tasks (0 resumed)' "$T/err" && [ "$(cut -d' ' -f2 "$T/zero.log" | tail -n 1)" = "$vb" ]; then
  pass "a 700-character --var value is kept in plan.vars; a changed value reruns the task"
else
  fail "long --var" "exit $rc1 / $rc; plan.vars $(wc -c <"$T/o10/campaign/plan.vars") bytes; $(tail -1 "$T/err")"
fi

# a plan's tasks expand ${NAME} as the plan did: a default stays the default even when the
# task's host has LCPLAB_NAME set
sed 's/\${ARG}/${ARG:-dflt}/' "$T/v.exp" >"$T/vd.exp"
lcp experiment "$T/vd.exp" --plan "$T/p10"
: >"$T/zero.log"
LCPLAB_ARG=other lcp task "$T/p10" 0
if [ "$rc" -eq 0 ] && [ "$(cut -d' ' -f2 "$T/zero.log")" = dflt ]; then
  pass "a task expands \${ARG:-dflt} as its plan did, whatever LCPLAB_ARG says on its host"
else
  fail "default at task time" "exit $rc, the command got '$(cut -d' ' -f2 "$T/zero.log")'"
fi

# ---- 11. a FIFO at {out} ------------------------------------------------------------------------
cat >"$T/fifo.exp" <<EOF
external fifo format=lcp command : {in}; rm -f {out} && mkfifo {out}
experiment profile f
solvers fifo
instances inst/q2.dat
tol 1e-8
min_runs 1
min_time 0
time_limit 1
EOF
lcp experiment "$T/fifo.exp" --plan "$T/p11"
lcp task "$T/p11" 0
trc=$rc
lcp collect "$T/p11" --out "$T/o11" --no-plot
s=$(field fifo q2 6 "$T/o11/f.csv")
note=$(field fifo q2 23 "$T/o11/f.csv")
if [ "$trc" -eq 3 ] && [ "$rc" -eq 3 ] && [ "$s" = failed ] && echo "$note" | grep -q 'not a regular file' && \
   ! grep -q '(0 failed)' "$T/o11/f.csv" && grep -q 'task 0 failed' "$T/err"; then
  pass "a FIFO at {out}: the row says failed; the task and collect say failed, exit 3"
else
  fail "FIFO at {out}" "task exit $trc, collect exit $rc, status '$s', note '$note'; $(grep '^# tasks' "$T/o11/f.csv")"
fi

# a solver that closes its stdout, then runs past the time limit: killed at the limit
cat >"$T/slow.exp" <<EOF
external slow format=lcp command : {in} {out}; exec >&-; sleep 4; printf '0\\n0\\n' >{out}
experiment profile s
solvers slow
instances inst/q2.dat
tol 1e-8
min_runs 1
min_time 0
time_limit 1
EOF
lcp experiment "$T/slow.exp" --out "$T/o11b" --jobs 1 --no-plot
s=$(field slow q2 6 "$T/o11b/s.csv")
if [ "$s" = time_limit ]; then
  pass "a solver that closes its stdout and runs on is killed at the time limit: time_limit"
else
  fail "closed stdout past the limit" "status '$s' (want time_limit)"
fi

# a FIFO named as an instance: refused with its name, not read (a reader would wait forever)
mkfifo "$T/inst/fifo.dat"
printf 'experiment profile ff\nsolvers lemke\ninstances inst/fifo.dat\n' >"$T/ff.exp"
timeout 60 "$BIN" experiment "$T/ff.exp" --out "$T/off" --no-plot >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'inst/fifo.dat: not a regular file' "$T/err"; then
  pass "a FIFO named as an instance is refused (exit 2, one line naming it)"
else
  fail "FIFO instance" "exit $rc (124: it hung)"
fi
rm -f "$T/inst/fifo.dat"

# ---- 12. honest rows ----------------------------------------------------------------------------
cat >"$T/h.exp" <<EOF
external crash format=lcp command : {in} {out}; exit 1
external nan format=lcp command : {in}; printf 'nan\n0\n' >{out}
external zero format=lcp command sh "$T/zero.sh" {in} {out}
experiment profile h
solvers crash nan zero
instances inst/q2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
lcp experiment "$T/h.exp" --out "$T/o12" --jobs 1 --no-plot
r=$(rows "$T/o12/h.csv" | awk -F, '$4 == "crash" { print $6 "|" $12 "|" $13 }')
if [ "$r" = "failed||" ]; then
  pass "a crashed external's row has empty residual fields"
else
  fail "crashed external row" "'$r' (want failed||)"
fi
r=$(rows "$T/o12/h.csv" | awk -F, '$4 == "nan" { print $6 }')
if [ "$r" = not_finite ]; then pass "NaN in a solution file: not_finite"; else fail "NaN solution" "'$r'"; fi
r=$(rows "$T/o12/h.csv" | awk -F, '$4 == "zero" { print $6 "|" ($12 != "" && $12 + 0 > 0) }')
if [ "$r" = "unconverged|1" ]; then
  pass "an unconverged answer keeps its residual"
else
  fail "unconverged row" "'$r'"
fi

# an external in a convergence section: its row would not be a convergence row (it has no
# history); refused before anything runs
cat >"$T/c.exp" <<EOF
external zero format=lcp command sh "$T/zero.sh" {in} {out}
experiment convergence c
solvers pgs zero
instances inst/q2.dat
EOF
expect_err "an external solver in a convergence section is refused" "c.exp:3: solvers: external solver 'zero' has no iteration history" \
  experiment "$T/c.exp" --out "$T/oc"

# ---- 13. collect from the plan folder alone ----------------------------------------------------
lcp experiment "$T/z.exp" --plan "$T/p13"
lcp task "$T/p13" 0
lcp task "$T/p13" 1
mv "$T/inst" "$T/inst.moved"
lcp collect "$T/p13" --out "$T/o13" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows "$T/o13/z.csv" | wc -l)" -eq 2 ]; then
  pass "collect works from the plan folder after the instances folder moved"
else
  fail "collect after the instances moved" "exit $rc"
fi

tst_done
