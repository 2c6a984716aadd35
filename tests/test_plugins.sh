#!/bin/sh
# test_plugins.sh -- C plugins (docs/plugins.md): the template of
# examples/plugin and the test plugins of tests/plugins, built by `make
# check` as modules against the build's libsolvers.
#   1. --plugin and LCPLAB_PLUGINS on any command: `lcplab solvers` lists
#      my_jacobi; its answer on a planted problem is the planted x and
#      pgs's; a world steps with it (simulate);
#   2. the judge: plug_liar says converged on x = 0: stagnated, exit 3;
#      a NaN x: not_finite; a solver that polls is stopped by --time-limit;
#   3. bad input, exit 2 and one line naming the plugin: a text file, no
#      slv_plugin_init, another ABI (both numbers), a name taken by a
#      built-in or by another plugin, a missing file, --plugin without a
#      value; the same plugin twice is one; a path with ' " $( ) ` ; in it
#      loads and runs nothing else;
#   4. a crash: `lcplab solve` and `simulate` say which plugin crashed and
#      die of the signal; in a campaign the task is crashed, the others done, and the
#      next run retries it;
#   5. campaigns: a `plugin PATH` line and --jobs 2; plug_liar never
#      converged; the plan records the plugin's hash (plugins.tsv); a run
#      again resumes everything, a changed plugin reruns its tasks only;
#      --plan run by `lcplab task` (and GNU parallel when installed); a
#      plugin changed after the plan: its task refuses to run.
# Environment: LCPLAB_BIN, LCPLAB_SRCDIR, LCPLAB_BUILDDIR.  SKIP (77)
# without shared libraries (no plugin can be built).

TST_NAME=test_plugins
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
BUILD=${LCPLAB_BUILDDIR:-.}
P=$BUILD/tests/plugins/.libs
if [ ! -f "$P/my_jacobi.so" ]; then
  echo "SKIP: no plugin modules in $P (a build without shared libraries)"
  echo "0 passed, 0 failed"
  exit 77
fi
JAC=$P/my_jacobi.so LIAR=$P/plug_liar.so
unset LCPLAB_PLUGINS LCPLAB_TEST_PLUGIN

# status and exit of the last `lcp solve ... --json`
status_of() { sed -n 's/.*"status":"\([a-z_]*\)".*/\1/p' "$T/out"; }

# max |a_i - b_i| of two files of one number a line
maxdiff() { paste "$1" "$2" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3g\n", m }'; }

"$BIN" generate --type spd --n 20 --seed 7 --out "$T/spd.lcp" >/dev/null 2>&1
sed -n '/^x_ref$/{n;p;}' "$T/spd.lcp" | tr ' ' '\n' >"$T/xref"

# ---- 1. loading, solving, a world ---------------------------------------------------------
lcp --plugin "$JAC" solvers
if [ "$rc" -eq 0 ] && grep -q '^my_jacobi .*lcp box free findex dense csr' "$T/out"; then pass "--plugin: solvers lists my_jacobi"; else fail "--plugin: solvers" "exit $rc"; fi
LCPLAB_PLUGINS="/nonexistent-dir-skipped-not::$JAC" lcp solvers
if [ "$rc" -eq 2 ] && grep -q 'LCPLAB_PLUGINS: plugin /nonexistent-dir-skipped-not: not found' "$T/err"; then
  pass "LCPLAB_PLUGINS: a missing entry is exit 2, named"
else
  fail "LCPLAB_PLUGINS missing entry" "exit $rc"
fi
LCPLAB_PLUGINS=":$JAC:" lcp solvers
if [ "$rc" -eq 0 ] && grep -q '^my_jacobi ' "$T/out"; then pass "LCPLAB_PLUGINS loads (empty entries skipped)"; else fail "LCPLAB_PLUGINS" "exit $rc"; fi
lcp solvers
if ! grep -q '^my_jacobi ' "$T/out"; then pass "without --plugin: no my_jacobi"; else fail "no plugin, no my_jacobi"; fi
lcp --plugin "$JAC" solvers --json
if [ "$rc" -eq 0 ] && grep -q "\"name\":\"my_jacobi\".*\"origin\":\"$(cd "$P" && pwd -P)/my_jacobi.so\"" "$T/out" &&
  ! grep '"name":"pgs"' "$T/out" | grep -q origin; then
  pass "solvers --json: the plugin's solver has its origin, a built-in none"
else
  fail "solvers --json origin" "exit $rc"
fi

lcp solve "$T/spd.lcp" --solver my_jacobi --plugin "$JAC" --tol 1e-12 --max-iter 100000 --json --solution "$T/xj"
d=$(maxdiff "$T/xj" "$T/xref")
if [ "$rc" -eq 0 ] && [ "$(status_of)" = converged ] && awk "BEGIN { exit !($d <= 1e-8) }"; then
  pass "my_jacobi converges to the planted x (max diff $d)"
else
  fail "my_jacobi on the planted problem" "exit $rc, status $(status_of), max diff $d"
fi
lcp solve "$T/spd.lcp" --solver pgs --tol 1e-12 --max-iter 100000 --solution "$T/xp"
d=$(maxdiff "$T/xj" "$T/xp")
if awk "BEGIN { exit !($d <= 1e-8) }"; then pass "my_jacobi agrees with pgs (max diff $d)"; else fail "my_jacobi vs pgs" "max diff $d"; fi

lcp --plugin "$JAC" simulate --scene stack --solver my_jacobi --friction none --steps 20
if [ "$rc" -eq 0 ] && grep -q '"solver":"my_jacobi"' "$T/out" && grep -q '"steps":20' "$T/out"; then
  pass "a world steps with the plugin's solver"
else
  fail "simulate with my_jacobi" "exit $rc"
fi

# ---- 2. the judge and the stop conditions apply ----------------------------------------------
lcp solve "$T/spd.lcp" --plugin "$LIAR" --solver plug_liar --json
if [ "$rc" -eq 3 ] && [ "$(status_of)" = stagnated ]; then pass "converged on x = 0 overruled: stagnated, exit 3"; else fail "liar overruled" "exit $rc, status $(status_of)"; fi
LCPLAB_TEST_PLUGIN=nan lcp solve "$T/spd.lcp" --plugin "$LIAR" --solver plug_liar --json
if [ "$rc" -eq 3 ] && [ "$(status_of)" = not_finite ]; then pass "converged on a NaN x: not_finite"; else fail "NaN x" "exit $rc, status $(status_of)"; fi
LCPLAB_TEST_PLUGIN=loop lcp solve "$T/spd.lcp" --plugin "$LIAR" --solver plug_liar --time-limit 0.2 --json
if [ "$rc" -eq 3 ] && [ "$(status_of)" = time_limit ]; then pass "--time-limit stops a plugin that polls"; else fail "time limit" "exit $rc, status $(status_of)"; fi

# ---- 3. bad input ------------------------------------------------------------------------------
printf 'not a library\n' >"$T/text.so"
expect_err "a text file: not a shared library" "plugin $T/text.so: not a shared library" --plugin "$T/text.so" solvers
expect_err "no slv_plugin_init: not an lcplab plugin" "no slv_plugin_init function: not an lcplab plugin" --plugin "$P/plug_noinit.so" solvers
expect_err "another ABI: refused with both versions" "built for solver ABI 3, this lcplab has solver ABI 2" --plugin "$P/plug_abi.so" solvers
expect_err "a built-in's name: refused" "solver name 'pgs' is taken by a built-in solver" --plugin "$P/plug_dup.so" solvers
cp "$JAC" "$T/copy.so"
expect_err "a registered name: refused, the first plugin named" "'my_jacobi' is taken by a registered solver from $(cd "$P" && pwd -P)/my_jacobi.so" --plugin "$JAC" --plugin "$T/copy.so" solvers
expect_err "a missing file" "plugin $T/none.so: not found" solve "$T/spd.lcp" --plugin "$T/none.so" --solver pgs
expect_err "--plugin without a value" "option --plugin needs a value" solvers --plugin
lcp --plugin "$JAC" --plugin="$JAC" solvers
if [ "$rc" -eq 0 ]; then pass "the same plugin twice is loaded once"; else fail "same plugin twice" "exit $rc"; fi
odd="$T/we'ird \"\$(touch pwned1)\`touch pwned2\`;touch pwned3.so"
cp "$JAC" "$odd"
cd "$T" || exit 1
lcp --plugin "$odd" solvers
cd - >/dev/null || exit 1
if [ "$rc" -eq 0 ] && grep -q '^my_jacobi ' "$T/out" && [ ! -e "$T/pwned1" ] && [ ! -e "$T/pwned2" ] && [ ! -e "$T/pwned3.so" ]; then
  pass "a path with ' \" \$( ) \` ; loads the plugin and runs nothing else"
else
  fail "odd path" "exit $rc"
fi

# ---- 4. a crash ----------------------------------------------------------------------------------
LCPLAB_TEST_PLUGIN=crash lcp solve "$T/spd.lcp" --plugin "$LIAR" --solver plug_liar
if [ "$rc" -gt 128 ] && grep -q "solver 'plug_liar' from plugin .*plug_liar.so crashed" "$T/err"; then
  pass "lcplab solve: the plugin crashed, said so, exit $rc (its signal)"
else
  fail "crash in solve" "exit $rc"
fi

LCPLAB_TEST_PLUGIN=crash lcp simulate --plugin "$LIAR" --scene stack --solver plug_liar --friction none --steps 2
if [ "$rc" -gt 128 ] && grep -q "solver 'plug_liar' from plugin .*plug_liar.so crashed" "$T/err"; then
  pass "lcplab simulate: the plugin crashed, said so"
else
  fail "crash in simulate" "exit $rc"
fi

# ---- 5. campaigns ------------------------------------------------------------------------------
mkdir -p "$T/c/probs"
for s in 1 2; do "$BIN" generate --type spd --n 12 --seed $s --out "$T/c/probs/spd$s.lcp" >/dev/null 2>&1; done
cp "$JAC" "$T/c/jac.so"
cat >"$T/c/cmp.exp" <<EOF
plugin jac.so
plugin $LIAR
experiment profile cmp
solvers pgs my_jacobi plug_liar
instances probs
tol 1e-6
min_runs 2
min_time 0.001
EOF
rowsof() { grep -v '^#' "$1" | awk -F, -v s="$2" '$4 == s { print $6 }' | sort | uniq -c | tr -s ' ' | sed 's/^ //'; }
lcp experiment "$T/c/cmp.exp" --out "$T/c/out" --jobs 2 --no-plot
if [ "$rc" -eq 0 ] && [ "$(rowsof "$T/c/out/cmp.csv" my_jacobi)" = "2 converged" ] &&
  [ "$(rowsof "$T/c/out/cmp.csv" plug_liar)" = "2 stagnated" ] && [ "$(rowsof "$T/c/out/cmp.csv" pgs)" = "2 converged" ]; then
  pass "--jobs 2: my_jacobi converged like pgs, plug_liar never converged"
else
  fail "campaign rows" "exit $rc; my_jacobi: $(rowsof "$T/c/out/cmp.csv" my_jacobi); liar: $(rowsof "$T/c/out/cmp.csv" plug_liar)"
fi
if grep -q "^$(cd "$T/c" && pwd -P)/jac.so	$(sha256sum <"$T/c/jac.so" | cut -c1-64)\$" "$T/c/out/campaign/plugins.tsv"; then
  pass "plugins.tsv: the plugin's path and SHA-256"
else
  fail "plugins.tsv" "$(cat "$T/c/out/campaign/plugins.tsv")"
fi
lcp experiment "$T/c/cmp.exp" --out "$T/c/out" --jobs 2 --no-plot
if grep -q '6 tasks (6 resumed)' "$T/err"; then pass "a run again: every task resumed"; else fail "resume" "$(tail -n 1 "$T/err")"; fi
printf 'x' >>"$T/c/jac.so"
lcp experiment "$T/c/cmp.exp" --out "$T/c/out" --jobs 2 --no-plot
if [ "$rc" -eq 0 ] && grep -q '6 tasks (4 resumed)' "$T/err"; then pass "a changed plugin: its 2 tasks rerun, the 4 others resumed"; else fail "changed plugin" "$(tail -n 1 "$T/err")"; fi

LCPLAB_TEST_PLUGIN=crash lcp experiment "$T/c/cmp.exp" --out "$T/c/crash" --jobs 2 --no-plot
if [ "$(rowsof "$T/c/crash/cmp.csv" plug_liar)" = "2 crashed" ] && [ "$(rowsof "$T/c/crash/cmp.csv" pgs)" = "2 converged" ]; then
  pass "a crashing plugin in a campaign: its tasks crashed, the others done"
else
  fail "crash in a campaign" "exit $rc; liar: $(rowsof "$T/c/crash/cmp.csv" plug_liar)"
fi
lcp experiment "$T/c/cmp.exp" --out "$T/c/crash" --jobs 2 --no-plot
if [ "$(rowsof "$T/c/crash/cmp.csv" plug_liar)" = "2 stagnated" ] && grep -q '6 tasks (4 resumed)' "$T/err"; then
  pass "the next run retries the crashed tasks"
else
  fail "crashed rerun" "liar: $(rowsof "$T/c/crash/cmp.csv" plug_liar); $(tail -n 1 "$T/err")"
fi

lcp experiment "$T/c/cmp.exp" --plan "$T/c/plan"
ok=$rc
for i in 0 1 2 3 4 5; do "$BIN" task "$T/c/plan" $i >/dev/null 2>&1 || { [ $? -eq 3 ] || ok=1; }; done
lcp collect "$T/c/plan" --out "$T/c/col" --no-plot
if [ "$ok" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$(rowsof "$T/c/col/cmp.csv" my_jacobi)" = "2 converged" ]; then
  pass "--plan: lcplab task loads the plan's plugins (plugins.tsv)"
else
  fail "--plan and lcplab task" "plan $ok, collect $rc"
fi
if command -v parallel >/dev/null 2>&1; then
  lcp experiment "$T/c/cmp.exp" --plan "$T/c/plan2"
  (cd "$T/c" && sh plan2/run-parallel.sh >/dev/null 2>&1)
  lcp collect "$T/c/plan2" --out "$T/c/col2" --no-plot
  if [ "$rc" -eq 0 ] && [ "$(rowsof "$T/c/col2/cmp.csv" my_jacobi)" = "2 converged" ]; then
    pass "GNU parallel runs the plugin's tasks"
  else
    fail "GNU parallel" "collect $rc"
  fi
fi
printf 'y' >>"$T/c/jac.so"
t=$(awk -F'\t' '$5 == "my_jacobi" { print $1; exit }' "$T/c/plan/tasks.tsv")
lcp task "$T/c/plan" "$t" --force
if [ "$rc" -eq 3 ] && grep -q 'changed since the plan was made' "$T/c/plan/results/t00000$t.res"; then
  pass "a plugin changed after the plan: its task refuses to run"
else
  fail "changed after the plan" "exit $rc"
fi

tst_done
