#!/bin/sh
# test_cli.sh -- the `lcplab` command line against its contract (lcplab(1),
# docs/lcplab.1, "EXIT STATUS"): version, help and dispatch, exit statuses,
# the JSON object of `solve`, solution files, warm starts, the time limit,
# refusals and usage errors, each a one-line message.  Bad input files:
# test_cli_input.sh; `convert` and the FCLIB files: test_cli_convert.sh.
#
# Environment (set by `make check`, see Makefile.am AM_TESTS_ENVIRONMENT):
#   LCPLAB_BIN     the built program (required; without it: SKIP, exit 77)
#   LCPLAB_SRCDIR  the source tree (for the version in libsolvers/slv.h)
#   LCPLAB_SHARED  ../shared (optional: the Siconos dataset check is skipped
#                  when its datasets are absent)
#   LCPLAB_VALGRIND=1  optional: run every lcplab invocation under memcheck;
#                  any error or definite leak makes it exit 99, which fails
#                  the check that ran it.
#
# The hand-derived problems sym, nonsym and free: tst_cli_hand.sh; and
#   trivial (../shared, Siconos lcp_trivial.dat): M = diag(1..9), q = -1,
#           so x_i = 1/i.
# Exit: 0 all passed, 1 any failure, 77 skipped.  Last line: "N passed, M failed".

TST_NAME=test_cli
# shellcheck source=tst_cli_hand.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_hand.sh"

# ---- version, help, dispatch -------------------------------------------------------
want_version=
if [ -n "${LCPLAB_SRCDIR:-}" ] && [ -f "$LCPLAB_SRCDIR/libsolvers/slv.h" ]; then
  want_version=$(sed -n 's/^#define SLV_VERSION "\(.*\)"/\1/p' "$LCPLAB_SRCDIR/libsolvers/slv.h")
fi
[ -n "$want_version" ] || want_version=0.1.0
lcp --version
if [ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "lcplab $want_version" ] && [ ! -s "$T/err" ]; then
  pass "--version prints 'lcplab $want_version'"
else
  fail "--version" "exit $rc"
fi

lcp --help
if [ "$rc" -eq 0 ] && grep -q '^usage: lcplab' "$T/out" && grep -q 'simulate' "$T/out"; then
  pass "--help: usage on stdout, lists future commands, exit 0"
else
  fail "--help" "exit $rc"
fi

lcp
if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && grep -q '^usage: lcplab' "$T/err"; then
  pass "no arguments: usage on stderr, exit 2"
else
  fail "no arguments" "exit $rc"
fi

lcp frobnicate
if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && grep -q "frobnicate" "$T/err"; then
  pass "unknown command: exit 2, names it"
else
  fail "unknown command" "exit $rc"
fi

for c in solvers solve convert simulate export experiment; do
  lcp "$c" --help
  if [ "$rc" -eq 0 ] && grep -q "^usage: lcplab $c" "$T/out"; then
    pass "$c --help: usage on stdout, exit 0"
  else
    fail "$c --help" "exit $rc"
  fi
done

# ---- solvers ---------------------------------------------------------------------
lcp solvers
for s in pgs pjacobi direct; do
  if [ "$rc" -eq 0 ] && awk -v s="$s" '$1 == s { found = 1 } END { exit !found }' "$T/out"; then
    pass "solvers lists $s"
  else
    fail "solvers lists $s" "exit $rc"
  fi
done

# ---- solve: converged, JSON, solution --------------------------------------------
lcp solve "$T/sym.dat" --solver pgs --tol 1e-12 --solution "$T/sym.x"
if [ "$rc" -ne 0 ]; then
  fail "solve sym.dat --solver pgs" "exit $rc, expected 0"
elif [ "$(wc -l <"$T/out")" -ne 1 ]; then
  fail "solve prints one JSON line" "$(wc -l <"$T/out") lines"
elif ! grep -qE '^\{"instance":"sym\.dat","solver":"pgs","kind":"lcp","n":2,"status":"converged","iterations":[0-9]+,"time_s":[-+.0-9eE]+,"res_nat_inf":[-+.0-9eE]+,"res_rel":[-+.0-9eE]+,"compl":[-+.0-9eE]+,"infeas":[-+.0-9eE]+[,}]' "$T/out"; then
  fail "solve JSON: required fields in order" "unexpected JSON"
else
  pass "solve sym.dat: exit 0, JSON fields in order, status converged"
fi
if [ -f "$T/sym.x" ] && close "$T/sym.x" 1.3333333333333333 2.3333333333333335; then
  pass "--solution holds x = (4/3, 7/3) to 1e-10"
else
  fail "--solution values" "$(tr '\n' ' ' <"$T/sym.x" 2>/dev/null)"
fi
res_scaled=$(json_field res_scaled)
if awk -v r="$res_scaled" 'BEGIN { exit !(r != "" && r + 0 <= 1e-12) }'; then
  pass "res_scaled = $res_scaled <= tol 1e-12 (the test's measure)"
else
  fail "res_scaled <= 1e-12" "res_scaled=$res_scaled"
fi
if command -v python3 >/dev/null 2>&1; then
  if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" 2>/dev/null; then
    pass "solve output is valid JSON (python3)"
  else
    fail "solve output is valid JSON" "python3 json.load failed"
  fi
fi

# Options after FILE or before it, --opt=value, --json, --repeat, --history.
lcp solve --solver=pgs --tol=1e-12 --json --repeat 3 --history "$T/nonsym.dat" --solution "$T/nonsym.x"
if [ "$rc" -eq 0 ] && close "$T/nonsym.x" 1 3 && [ "$(json_field repeat)" = 3 ] &&
  grep -q '"history":\[[-+.0-9eE]' "$T/out"; then
  pass "options before FILE, --opt=value, --repeat 3, --history; nonsym x = (1, 3)"
else
  fail "nonsym solve with options before FILE" "exit $rc, x=$(tr '\n' ' ' <"$T/nonsym.x" 2>/dev/null)"
fi

# Warm start from the solution itself.
lcp solve "$T/sym.dat" --solver pgs --tol 1e-12 --warm "$T/sym.x" --solution "$T/warm.x"
if [ "$rc" -eq 0 ] && [ "$(json_field warm_start)" = true ] && close "$T/warm.x" 1.3333333333333333 2.3333333333333335; then
  pass "--warm: converged, warm_start true, same x"
else
  fail "--warm" "exit $rc"
fi
printf '1\n2\n3\n' >"$T/warm3.x"
expect_err "--warm with 3 values for n = 2" "$T/warm3.x" solve "$T/sym.dat" --solver pgs --warm "$T/warm3.x"

# ---- solve: not converged -> exit 3 -------------------------------------------------
# One pgs sweep from 0 gives x = (2.5, 1.75), far from (4/3, 7/3).
lcp solve "$T/sym.dat" --solver pgs --tol 1e-12 --max-iter 1
if [ "$rc" -eq 3 ] && [ "$(json_field status)" = '"max_iter"' ] && [ "$(json_field iterations)" = 1 ] &&
  grep -q '"message":' "$T/out"; then
  pass "--max-iter 1: exit 3, status max_iter, iterations 1, message"
else
  fail "--max-iter 1" "exit $rc"
fi

# ---- solve: --time-limit -------------------------------------------------------------
# 1e-300 s: the deadline is the solve's start, passed at pgs's first poll (before its
# first sweep): x is the start 0, its residuals reported.
lcp solve "$T/sym.dat" --solver pgs --time-limit 1e-300
if [ "$rc" -eq 3 ] && [ "$(json_field status)" = '"time_limit"' ] && [ "$(json_field iterations)" = 0 ] &&
  [ "$(json_field res_nat_inf)" = 6 ] && grep -q '"message":"pgs: time limit' "$T/out"; then
  pass "--time-limit 1e-300: exit 3, status time_limit, the start's residual, message"
else
  fail "--time-limit 1e-300" "exit $rc: $(cat "$T/out" "$T/err")"
fi
lcp solve "$T/sym.dat" --solver lemke --time-limit 1000
if [ "$rc" -eq 0 ] && [ "$(json_field status)" = '"converged"' ]; then
  pass "--time-limit 1000: converged as without"
else
  fail "--time-limit 1000" "exit $rc"
fi
for bad in 0 -1 nan inf 1e999 abc ''; do
  expect_err "bad --time-limit '$bad'" "--time-limit" solve "$T/sym.dat" --solver pgs --time-limit "$bad"
done
expect_err "bad simulate --time-limit" "--time-limit" simulate --scene stack --solver pgs \
  --time-limit 0 --csv "$T/tl.csv"
lcp simulate --scene stack --param n=3 --solver pgs --steps 5 --time-limit 1e-300 \
  --on-failure stop --csv "$T/tl.csv"
if [ "$rc" -eq 3 ] && grep -q "time_limit" "$T/err"; then
  pass "simulate --time-limit 1e-300 --on-failure stop: the step fails, exit 3"
else
  fail "simulate --time-limit 1e-300" "exit $rc: $(cat "$T/err")"
fi

# ---- solve: solver that refuses the problem kind ------------------------------------
expect_err "direct on a bounded LCP: exit 2, names the solver" "direct" solve "$T/sym.dat" --solver direct
if grep -qF "$T/sym.dat" "$T/err"; then
  pass "direct refusal names the file"
else
  fail "direct refusal names the file" "no file name"
fi
lcp solve "$T/free.blcp" --solver direct --solution "$T/free.x"
if [ "$rc" -eq 0 ] && close "$T/free.x" 1.3333333333333333 2.3333333333333335; then
  pass "direct on a free .blcp problem: x = (4/3, 7/3)"
else
  fail "direct on free.blcp" "exit $rc"
fi

# ---- solve: usage errors ------------------------------------------------------------
expect_err "unknown solver" "nosuchsolver" solve "$T/sym.dat" --solver nosuchsolver
expect_err "unknown option" "--bogus" solve "$T/sym.dat" --solver pgs --bogus
expect_err "missing FILE" "FILE" solve --solver pgs
expect_err "two FILEs" "$T/nonsym.dat" solve "$T/sym.dat" "$T/nonsym.dat" --solver pgs
expect_err "--tol without a value" "--tol" solve "$T/sym.dat" --solver pgs --tol
for bad in abc 1e-8x '' ' 1e-8' 0 -1 nan inf 1e999; do
  expect_err "bad --tol '$bad'" "--tol" solve "$T/sym.dat" --solver pgs --tol "$bad"
done
# a tol >= 1, which x = 0 meets after 0 iterations on every problem (docs/convergence.md,
# "Loose tolerances"): refused unless --allow-loose-tol, the flag's and a file's recorded one
for loose in 1 1.5 1e300; do
  expect_err "--tol $loose refused" "--allow-loose-tol" solve "$T/sym.dat" --solver pgs --tol "$loose"
done
lcp solve "$T/sym.dat" --solver pgs --tol 1 --allow-loose-tol
if [ "$rc" -eq 0 ] && [ "$(json_field iterations)" = 0 ]; then
  pass "--tol 1 --allow-loose-tol: x = 0 accepted after 0 iterations, as asked"
else
  fail "--tol 1 --allow-loose-tol" "exit $rc"
fi
lcp solve "$T/sym.dat" --solver pgs --tol 0.999
if [ "$rc" -eq 0 ] && [ "$(json_field iterations)" != 0 ]; then
  pass "--tol 0.999: runs (x = 0 scores 1)"
else
  fail "--tol 0.999" "exit $rc"
fi
printf 'lcplab-problem 1\nn 2\nA\n2 1\n1 2\nb\n-5 -6\noptions 1\ntol 1\nend\n' >"$T/loose.lcp"
expect_err "a file's recorded tol 1 refused" "recorded tol" solve "$T/loose.lcp" --solver pgs
lcp solve "$T/loose.lcp" --solver pgs --tol 1e-10
if [ "$rc" -eq 0 ]; then pass "--tol over a file's loose one"; else fail "--tol over a file's loose one" "exit $rc"; fi
for bad in 0 -5 1.5 10x 99999999999; do
  expect_err "bad --max-iter '$bad'" "--max-iter" solve "$T/sym.dat" --solver pgs --max-iter "$bad"
done
for bad in 0 1000001 two; do
  expect_err "bad --repeat '$bad'" "--repeat" solve "$T/sym.dat" --solver pgs --repeat "$bad"
done
expect_err "bad --omega" "--omega" solve "$T/sym.dat" --solver pgs --omega x
for bad in 1 3 two ''; do
  expect_err "bad --norm '$bad'" "--norm" solve "$T/sym.dat" --solver pgs --norm "$bad"
done

# ---- --solution never overwrites without --force -------------------------------------------
printf 'keep me\n' >"$T/exists.x"
cp "$T/exists.x" "$T/exists.orig"
expect_err "--solution to an existing file" "$T/exists.x" solve "$T/sym.dat" --solver pgs --solution "$T/exists.x"
if cmp -s "$T/exists.x" "$T/exists.orig"; then
  pass "existing --solution file unchanged"
else
  fail "existing --solution file unchanged" "it was modified"
fi
lcp solve "$T/sym.dat" --solver pgs --tol 1e-12 --solution "$T/exists.x" --force
if [ "$rc" -eq 0 ] && close "$T/exists.x" 1.3333333333333333 2.3333333333333335; then
  pass "--force overwrites --solution"
else
  fail "--force overwrites --solution" "exit $rc"
fi

# ---- shared dataset (optional) -----------------------------------------------------------
triv="${LCPLAB_SHARED:-../shared}/datasets/siconos/lcp/lcp_trivial.dat"
if [ -f "$triv" ]; then
  lcp solve "$triv" --solver pgs --tol 1e-12 --solution "$T/triv.x"
  if [ "$rc" -eq 0 ] && close "$T/triv.x" 1 0.5 0.33333333333333333 0.25 0.2 0.16666666666666667 \
    0.14285714285714286 0.125 0.11111111111111111; then
    pass "Siconos lcp_trivial.dat with pgs: x_i = 1/i"
  else
    fail "Siconos lcp_trivial.dat" "exit $rc"
  fi
else
  echo "SKIP: $triv not found (LCPLAB_SHARED)"
fi

# lcplab tex: the engine's LaTeX escaper for scripts (paper/gen.py)
lcp tex 'a_b' '50% & $x^2$' 'p|q'
if [ "$rc" -eq 0 ] && [ "$(cat "$T/out")" = "$(printf '%s\n' 'a\_b' '50\% \& \$x\textasciicircum{}2\$' 'p\textbar{}q')" ]; then
  pass "lcplab tex: each text's LaTeX form, as the tables write it"
else
  fail "lcplab tex" "exit $rc: $(cat "$T/out")"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
