#!/bin/sh
# test_cli.sh -- the `lcplab` command line against its contract (lcplab(1),
# docs/lcplab.1, "EXIT STATUS"): exit statuses, the JSON object of `solve`, solution
# files, one-line error messages naming the file, and `convert` round trips.
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
# Hand-derived problems (w = M x + q, 0 <= x _|_ w >= 0; Siconos .dat files
# store M column-major, one column per text line):
#   sym:    M = [[2,1],[1,2]], q = [-5,-6].  Guess both x_i > 0, so w = 0:
#           2 x1 + x2 = 5, x1 + 2 x2 = 6  ->  x1 = 4/3, x2 = 7/3 (both > 0:
#           the guess holds; M is SPD so this is the unique solution).
#   nonsym: M = [[2,1],[0,2]] (row-major), q = [-5,-6].  Both x_i > 0:
#           2 x2 = 6 -> x2 = 3;  2 x1 + 3 = 5 -> x1 = 1.  Read transposed
#           (M^T = [[2,0],[1,2]]) it would give x = (2.5, 1.75), so this
#           catches any orientation error in a reader/writer pair.
#   free:   .blcp (ODE convention A x = b + w) with A = [[2,1],[1,2]],
#           b = [5,6], lo = -inf, hi = +inf: w = 0, so A x = b and again
#           x = (4/3, 7/3); the `direct` solver takes it.
#   trivial (../shared, Siconos lcp_trivial.dat): M = diag(1..9), q = -1,
#           so x_i = 1/i.
# Exit: 0 all passed, 1 any failure, 77 skipped.  Last line: "N passed, M failed".

TST_NAME=test_cli
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# close FILE V1 V2 ... : FILE has exactly these values, one per line, each to 1e-10.
close() {
  cf_file=$1
  shift
  awk -v want="$*" 'BEGIN { n = split(want, e, " ") }
    { v[NR] = $1 + 0; if (NF != 1) bad = 1 }
    END {
      if (bad || NR != n) exit 1
      for (i = 1; i <= n; i++) { d = v[i] - e[i]; if (d < 0) d = -d; if (!(d <= 1e-10)) exit 1 }
    }' "$cf_file"
}

# json_field NAME: the raw value of a top-level scalar field of $T/out.
json_field() {
  sed -nE 's/.*"'"$1"'":("[^"]*"|[^,}]*).*/\1/p' "$T/out" | head -n 1
}

# ---- problem files ---------------------------------------------------------------
cat >"$T/sym.dat" <<'EOF'
2
0
2
2
2	2
2 1
1 2
-5 -6
EOF
# nonsym, column-major: column 1 = (2, 0), column 2 = (1, 2).
cat >"$T/nonsym.dat" <<'EOF'
2
0
2
2
2	2
2 0
1 2
-5 -6
EOF
cat >"$T/free.blcp" <<'EOF'
# A x = b + w, A row-major
2
2 1
1 2
5 6
-inf -inf
inf inf
EOF

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

# ---- solve: bad input, one line naming the file -----------------------------------------
: >"$T/empty.dat"
expect_err "empty file" "$T/empty.dat" solve "$T/empty.dat" --solver pgs
printf '2\n0\n2\n2\n2\t2\n2 1\n1\n' >"$T/trunc.dat"
expect_err "truncated data" "$T/trunc.dat" solve "$T/trunc.dat" --solver pgs
printf '2\n0\n2\n2\n2\t2\n2 1\nabc 2\n-5 -6\n' >"$T/token.dat"
expect_err "non-numeric token" "$T/token.dat" solve "$T/token.dat" --solver pgs
printf '2\n0\n2\n2\n2\t2\n2 nan\n1 2\n-5 -6\n' >"$T/nan.dat"
expect_err "NaN entry" "$T/nan.dat" solve "$T/nan.dat" --solver pgs
printf '%s\n' -3 0 -3 -3 '-3 -3' '1 2 3' >"$T/neg.dat"
expect_err "negative size" "$T/neg.dat" solve "$T/neg.dat" --solver pgs
printf '1000000000000\n0\n1000000000000\n1000000000000\n1000000000000\t1000000000000\n1 2\n' >"$T/huge.dat"
expect_err "n = 1000000000000 header" "$T/huge.dat" solve "$T/huge.dat" --solver pgs
printf '2000000000\n0\n2000000000\n2000000000\n2000000000\t2000000000\n1 2\n' >"$T/big.dat"
expect_err "n = 2000000000 header (fits an int, not the file)" "$T/big.dat" solve "$T/big.dat" --solver pgs
# Every byte value 0..255, 16 times: deterministic binary garbage.
i=0
while [ $i -lt 256 ]; do
  # shellcheck disable=SC2059
  printf "\\$(printf %o $i)"
  i=$((i + 1))
done >"$T/bytes.bin"
cat "$T/bytes.bin" "$T/bytes.bin" "$T/bytes.bin" "$T/bytes.bin" >"$T/bytes4.bin"
cat "$T/bytes4.bin" "$T/bytes4.bin" "$T/bytes4.bin" "$T/bytes4.bin" >"$T/garbage.dat"
expect_err "binary garbage (fixed bytes) .dat" "$T/garbage.dat" solve "$T/garbage.dat" --solver pgs
cp "$T/garbage.dat" "$T/garbage.blcp"
expect_err "binary garbage (fixed bytes) .blcp" "$T/garbage.blcp" solve "$T/garbage.blcp" --solver pgs
cp "$T/garbage.dat" "$T/garbage.lcp"
expect_err "binary garbage (fixed bytes) .lcp" "$T/garbage.lcp" solve "$T/garbage.lcp" --solver pgs
cp "$T/garbage.dat" "$T/garbage"
expect_err "binary garbage (fixed bytes), no extension" "$T/garbage" solve "$T/garbage" --solver pgs
head -c 4096 /dev/urandom >"$T/random.dat"
expect_err "binary garbage (/dev/urandom)" "$T/random.dat" solve "$T/random.dat" --solver pgs
printf '2\n2 1\n1 2\n5 6\n0 1\n1 0\n' >"$T/lohi.blcp"
expect_err "lo > hi in a .blcp" "$T/lohi.blcp" solve "$T/lohi.blcp" --solver pgs
printf '2\n2 1\n1 2\n5 6\n0 -1\ninf 1\n-1 5\n' >"$T/findex.blcp"
expect_err "findex out of range in a .blcp" "$T/findex.blcp" solve "$T/findex.blcp" --solver pgs
expect_err "missing file" "$T/no-such-file.dat" solve "$T/no-such-file.dat" --solver pgs
expect_err "unknown --format" "nosuchformat" solve "$T/sym.dat" --solver pgs --format nosuchformat

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

# ---- convert: round trip .dat -> .lcp -> .blcp -> .dat ----------------------------------
ok=1
lcp convert "$T/nonsym.dat" "$T/rt1.lcp"
[ "$rc" -eq 0 ] || { ok=0; fail "convert nonsym.dat -> rt1.lcp" "exit $rc"; }
lcp convert "$T/rt1.lcp" "$T/rt2.blcp"
[ "$rc" -eq 0 ] || { ok=0; fail "convert rt1.lcp -> rt2.blcp" "exit $rc"; }
lcp convert "$T/rt2.blcp" "$T/rt3.dat"
[ "$rc" -eq 0 ] || { ok=0; fail "convert rt2.blcp -> rt3.dat" "exit $rc"; }
[ "$ok" -eq 1 ] && pass "convert .dat -> .lcp -> .blcp -> .dat: exit 0 each"
lcp solve "$T/nonsym.dat" --solver pgs --tol 1e-12 --solution "$T/rt0.x"
for f in rt1.lcp rt2.blcp rt3.dat; do
  lcp solve "$T/$f" --solver pgs --tol 1e-12 --solution "$T/$f.x"
  if [ "$rc" -eq 0 ] && cmp -s "$T/rt0.x" "$T/$f.x" && close "$T/$f.x" 1 3; then
    pass "solve $f: x identical byte for byte to nonsym.dat's, = (1, 3)"
  else
    fail "solve $f after convert" "exit $rc, x=$(tr '\n' ' ' <"$T/$f.x" 2>/dev/null)"
  fi
done

# MatrixMarket: A in OUT.mtx plus sidecar vectors STEM.b (and .lo, .hi, .findex, .mu).
lcp convert "$T/rt2.blcp" "$T/rt4.mtx"
rc1=$rc
lcp solve "$T/rt4.mtx" --solver pgs --tol 1e-12 --solution "$T/rt4.x"
if [ "$rc1" -eq 0 ] && [ -f "$T/rt4.b" ] && [ "$rc" -eq 0 ] && cmp -s "$T/rt0.x" "$T/rt4.x"; then
  pass "convert .blcp -> .mtx (+ .b): same x byte for byte"
else
  fail "convert .blcp -> .mtx" "exit $rc1 / $rc"
fi
printf 'keep me\n' >"$T/side.b"
expect_err "convert to .mtx whose sidecar STEM.b exists" "$T/side.b" convert "$T/sym.dat" "$T/side.mtx"
if [ ! -e "$T/side.mtx" ] && [ "$(cat "$T/side.b")" = "keep me" ]; then
  pass "nothing written when a sidecar exists"
else
  fail "sidecar exists" "files written"
fi

cp "$T/rt3.dat" "$T/rt3.orig"
expect_err "convert to an existing OUT" "$T/rt3.dat" convert "$T/sym.dat" "$T/rt3.dat"
if cmp -s "$T/rt3.dat" "$T/rt3.orig"; then
  pass "convert without --force left OUT unchanged"
else
  fail "convert without --force left OUT unchanged" "rt3.dat was modified"
fi
lcp convert "$T/sym.dat" "$T/rt3.dat" --force
if [ "$rc" -eq 0 ]; then pass "convert --force overwrites"; else fail "convert --force" "exit $rc"; fi
expect_err "convert: unknown OUT extension without --to" "$T/out.xyz" convert "$T/sym.dat" "$T/out.xyz"
if [ ! -e "$T/out.xyz" ]; then pass "nothing written for an unknown extension"; else fail "unknown extension" "file written"; fi
lcp convert "$T/sym.dat" "$T/to.xyz" --to lcplab
rc1=$rc
lcp solve "$T/to.xyz" --format lcplab --solver pgs --tol 1e-12 --solution "$T/to.x"
if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && close "$T/to.x" 1.3333333333333333 2.3333333333333335; then
  pass "convert --to lcplab, solve --format lcplab"
else
  fail "convert --to lcplab" "exit $rc"
fi
expect_err "convert: missing input" "$T/no-such-file.dat" convert "$T/no-such-file.dat" "$T/x.lcp"
expect_err "convert: malformed input" "$T/trunc.dat" convert "$T/trunc.dat" "$T/x.lcp"
if [ ! -e "$T/x.lcp" ]; then pass "nothing written for a bad input"; else fail "convert bad input" "file written"; fi
# A friction (findex) problem cannot be a Siconos LCP file.
printf '2\n2 0\n0 2\n5 1\n0 -0.5\ninf 0.5\n-1 0\n' >"$T/fric.blcp"
expect_err "convert: findex problem to .dat (unsupported)" "$T/fric" convert "$T/fric.blcp" "$T/fric.dat"
if [ ! -e "$T/fric.dat" ]; then pass "nothing written for an unsupported target"; else fail "unsupported target" "file written"; fi
expect_err "convert: unknown option" "--bogus" convert "$T/sym.dat" "$T/y.lcp" --bogus
expect_err "convert: missing OUT" "OUT" convert "$T/sym.dat"

# ---- frictional contact: Siconos FC3D .dat <-> FCLIB .hdf5 <-> .lcp ----------------------
# fc1: one contact, W = I, q = (-1, 0.25, 0), mu = 0.5.  Guess sticking, u = W r + q = 0:
# r = -q = (1, -0.25, 0), and |r_t| = 0.25 < mu r_n = 0.5 (strictly inside the cone), so
# r solves Coulomb's law (De Saxce: u = 0 gives û = 0, which is in the dual cone).
printf '3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0.25 0\n0.5\n' >"$T/fc1.dat"
# conv_chain STEM FROM: FROM -> STEM.hdf5 -> STEM.lcp -> STEM.dat, and FROM -> STEM.d.lcp,
# FROM -> STEM.d.dat directly; the text files of both routes must be byte-identical.
conv_chain() {
  cc_ok=1
  lcp convert "$2" "$T/$1.hdf5"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$T/$1.hdf5" "$T/$1.lcp"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$T/$1.lcp" "$T/$1.dat"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$2" "$T/$1.d.lcp"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$2" "$T/$1.d.dat"
  [ "$rc" -eq 0 ] || cc_ok=0
  if [ "$cc_ok" -eq 1 ] && cmp -s "$T/$1.lcp" "$T/$1.d.lcp" && cmp -s "$T/$1.dat" "$T/$1.d.dat"; then
    pass "convert $(basename "$2") -> .hdf5 -> .lcp -> .dat: byte-identical to the direct conversions"
  else
    fail "convert chain of $(basename "$2")" "exit $rc or files differ"
  fi
}
conv_chain fc1c "$T/fc1.dat"
cone_solver=
lcp solvers
for s in nsgs pjacobi_cone pcg_cone apgd; do
  if grep -q "^$s " "$T/out"; then
    cone_solver=$s
    break
  fi
done
if [ -n "$cone_solver" ]; then
  lcp solve "$T/fc1.dat" --solver "$cone_solver" --tol 1e-12 --solution "$T/fc1.x"
  if [ "$rc" -eq 0 ] && close "$T/fc1.x" 1 -0.25 0 &&
    grep -qE '^\{"instance":"fc1\.dat","solver":"'"$cone_solver"'","kind":"cone","n":3,"status":"converged","iterations":[0-9]+,"time_s":[-+.0-9eE]+,"res_nat_inf":[-+.0-9eE]+,"res_rel":[-+.0-9eE]+,"compl":[-+.0-9eE]+,"infeas":[-+.0-9eE]+,"cone_law":"coulomb","merit_fclib":[-+.0-9eE]+,' "$T/out" &&
    [ "$(json_field format)" = '"siconos-fc3d"' ]; then
    pass "solve fc1.dat ($cone_solver): r = (1, -0.25, 0); cone_law, merit_fclib after the required fields"
  else
    fail "solve fc1.dat with $cone_solver" "exit $rc, x=$(tr '\n' ' ' <"$T/fc1.x" 2>/dev/null)"
  fi
  for f in fc1c.hdf5 fc1c.lcp fc1c.dat; do
    lcp solve "$T/$f" --solver "$cone_solver" --tol 1e-12 --solution "$T/$f.x" --force
    if [ "$rc" -eq 0 ] && cmp -s "$T/fc1.x" "$T/$f.x"; then
      pass "solve the converted $f: the same r byte for byte"
    else
      fail "solve the converted $f" "exit $rc"
    fi
  done
  # FCLIB solutions and guesses: --solution OUT.hdf5 holds the problem, /solution and the
  # --warm start as /guesses/1; --warm OUT.hdf5 starts from /solution/r, the exact r, so
  # the solve stops at once with it
  lcp solve "$T/fc1.dat" --solver "$cone_solver" --tol 1e-12 --warm "$T/fc1.x" \
    --solution "$T/fc1sol.hdf5"
  rc1=$rc
  lcp solve "$T/fc1sol.hdf5" --solver "$cone_solver" --tol 1e-12 --warm "$T/fc1sol.hdf5" \
    --solution "$T/fc1sol.x"
  if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && close "$T/fc1sol.x" 1 -0.25 0 &&
    [ "$(json_field iterations)" = 0 ] && [ "$(json_field warm_start)" = true ]; then
    pass "solve --solution x.hdf5 (FCLIB), then --warm x.hdf5: starts at /solution/r, 0 iterations"
  else
    fail "FCLIB solution and warm start" "exit $rc1/$rc, iterations $(json_field iterations)"
  fi
else
  echo "SKIP: no cone solver registered (the conversions above were still checked)"
fi
expect_err "solve --solution x.hdf5 for an LCP (FCLIB holds cones only)" \
  "fclib holds only frictional-contact problems" solve "$T/sym.dat" --solver pgs --solution "$T/sym.hdf5"
if [ ! -e "$T/sym.hdf5" ]; then pass "nothing written (nor solved) for an LCP solution in .hdf5"; else fail "LCP solution in .hdf5" "file written"; fi
expect_err "solve --warm x.hdf5 without /solution or /guesses" \
  "expected a starting point in /solution/r or /guesses/1/r" \
  solve "$T/fc1c.hdf5" --solver nsgs --warm "$T/fc1c.hdf5"
expect_err "a solver without cones on an FC3D problem" "cones" solve "$T/fc1.dat" --solver pgs
expect_err "convert an FC3D problem to .blcp (unsupported)" "cannot hold Coulomb cones" \
  convert "$T/fc1.dat" "$T/fc1.blcp"
if [ ! -e "$T/fc1.blcp" ]; then pass "nothing written for cones in .blcp"; else fail "cones in .blcp" "file written"; fi
expect_err "convert an LCP to .hdf5 (unsupported)" "fclib holds only frictional-contact problems" \
  convert "$T/sym.dat" "$T/sym.hdf5"
if [ ! -e "$T/sym.hdf5" ]; then pass "nothing written for an LCP in .hdf5"; else fail "LCP in .hdf5" "file written"; fi
printf 'not an HDF5 file\n' >"$T/text.hdf5"
expect_err "solve a .hdf5 that is not HDF5" "$T/text.hdf5: expected an HDF5 file" \
  solve "$T/text.hdf5" --solver pgs
head -c 1000 "$T/fc1c.hdf5" >"$T/trunc.hdf5"
expect_err "solve a truncated .hdf5" "$T/trunc.hdf5: expected an HDF5 file (FCLIB) that HDF5 can open" \
  solve "$T/trunc.hdf5" --solver pgs
printf '2\n1\n0\n2\n2\n2\t2\n1 0\n0 1\n-1 0\n0.5\n' >"$T/fc2d.dat"
expect_err "solve a 2-D frictional-contact .dat" "2-D frictional contact" solve "$T/fc2d.dat" --solver pgs
printf '3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0.25 0\n-0.5\n' >"$T/negmu.dat"
expect_err "solve an FC3D .dat with mu < 0" "negmu.dat:11: expected mu[0] >= 0, found '-0.5'" \
  solve "$T/negmu.dat" --solver pgs

# ---- a full disk while writing FCLIB (issue 48, case 7) ---------------------------------
# RLIMIT_FSIZE with SIGXFSZ ignored makes every write past the limit fail with EFBIG, as a
# full disk does (ulimit -f counts 512-byte blocks in dash, 1 KiB in bash: both far below
# an FCLIB file's 8 KiB or more).  libfclib exits the process on a failing HDF5 call; the
# writers must report it: exit 2, one line naming the file, the old file intact, no
# temporary file left beside it.
# full_disk DESC FILE ARGS...: run lcplab with a 1-2 KiB file size limit, then check.
full_disk() {
  fd_desc=$1
  fd_file=$2
  shift 2
  (
    ulimit -f 2
    trap '' XFSZ
    lcp "$@"
    exit "$rc"
  )
  rc=$?
  fd_left=$(find "$T" -name "$(basename "$fd_file").*" | wc -l)
  if [ "$rc" -ne 2 ]; then
    fail "$fd_desc" "exit $rc, expected 2"
  elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -qF "$fd_file: cannot write" "$T/err"; then
    fail "$fd_desc" "stderr is not one line naming $fd_file: $(cat "$T/err")"
  elif [ "$fd_left" -ne 0 ]; then
    fail "$fd_desc" "$fd_left temporary file(s) left beside $fd_file"
  else
    pass "$fd_desc"
  fi
}
cp "$T/fc1c.hdf5" "$T/full.hdf5"
full_disk "convert --force onto a full disk: exit 2, one line" "$T/full.hdf5" \
  convert "$T/fc1.dat" "$T/full.hdf5" --force
if cmp -s "$T/fc1c.hdf5" "$T/full.hdf5"; then pass "convert onto a full disk: the old file intact"; else fail "convert onto a full disk" "the old file changed"; fi
full_disk "convert to a new .hdf5 on a full disk: exit 2, one line" "$T/fullnew.hdf5" \
  convert "$T/fc1.dat" "$T/fullnew.hdf5"
if [ ! -e "$T/fullnew.hdf5" ]; then pass "convert to a new file on a full disk: nothing written"; else fail "convert to a new file on a full disk" "file written"; fi
full_disk "solve --solution x.hdf5 on a full disk: exit 2, one line" "$T/fullsol.hdf5" \
  solve "$T/fc1.dat" --solver nsgs --solution "$T/fullsol.hdf5"
if [ ! -e "$T/fullsol.hdf5" ]; then pass "solve --solution on a full disk: nothing written"; else fail "solve --solution on a full disk" "file written"; fi

# ---- the memory cap (--max-memory) -----------------------------------------------------
# A read refuses a file whose sizes need more than the cap, naming the file, the line and the
# field, before allocating for them: exit 2, one line, nothing written.
expect_err "solve --max-memory 10: the file itself is over the cap" \
  "$T/sym.dat: expected a file that fits the memory cap of 10 bytes (max_memory)" \
  solve "$T/sym.dat" --solver pgs --max-memory 10
expect_err "solve --max-memory 100: n = 2 is over the cap" \
  "$T/sym.dat:1: expected sizes that fit the memory cap of 100 bytes (max_memory), found n = 2" \
  solve "$T/sym.dat" --solver pgs --max-memory 100
lcp solve "$T/sym.dat" --solver pgs --tol 1e-12 --max-memory 1K
if [ "$rc" -eq 0 ]; then pass "solve --max-memory 1K: sym.dat fits"; else fail "solve --max-memory 1K" "exit $rc"; fi
# MatrixMarket: three lines of text, but n = 2000 is a dense A of 32 MB
printf '%%%%MatrixMarket matrix coordinate real general\n2000 2000 1\n1 1 2\n' >"$T/big.mtx"
printf '1\n' >"$T/big.b"
expect_err "convert --max-memory 16M: a small header that needs 32 MB" \
  "$T/big.mtx:2: expected sizes that fit the memory cap of 16777216 bytes (max_memory), found n = 2000" \
  convert "$T/big.mtx" "$T/big.lcp" --max-memory 16M
if [ ! -e "$T/big.lcp" ]; then pass "nothing written over the cap"; else fail "over the cap" "file written"; fi
for v in 0 -5 12X 1.5G ''; do
  expect_err "solve --max-memory '$v' is refused" "--max-memory must be a byte count" \
    solve "$T/sym.dat" --solver pgs --max-memory "$v"
done

# ---- global problems: bad M and H, the memory cap (issue 50) -------------------------------
# A Siconos gfc3d .dat (d, nc, M, H, q, b, mu) whose M is not symmetric positive definite,
# whose H has the wrong shape, or whose sizes need more than --max-memory: exit 2, one line
# naming the file, the line and the field.
gm_ok='2\n2\n2\t2\n2 0.5\n0.5 1\n'
gh_ok='0\n2\n3\n2\t3\n1 0\n0 1\n0.5 0\n'
gtail='-1 0.5\n0 0 0\n0.3\n'
# shellcheck disable=SC2059
printf "3\n1\n0\n$gm_ok$gh_ok$gtail" >"$T/gok.dat"
# shellcheck disable=SC2059
printf "3\n1\n0\n2\n2\n2\t2\n2 0.5\n0.4 1\n$gh_ok$gtail" >"$T/gnsym.dat"
# shellcheck disable=SC2059
printf "3\n1\n0\n2\n2\n2\t2\n1 2\n2 1\n$gh_ok$gtail" >"$T/gnpd.dat"
# shellcheck disable=SC2059
printf "3\n1\n0\n${gm_ok}0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n$gtail" >"$T/gh.dat"
lcp solve "$T/gok.dat" --solver nsn_ac
if [ "$rc" -eq 0 ] && grep -q '"format":"siconos-gfc3d"' "$T/out" && grep -q '"read_s":[0-9]' "$T/out" &&
  grep -q '"condense_s":[0-9]' "$T/out" && grep -q '"res_global":[0-9]' "$T/out"; then
  pass "global .dat: read as siconos-gfc3d and solved; read_s, condense_s, res_global reported"
else
  fail "global .dat" "exit $rc; $(head -c 300 "$T/out" "$T/err")"
fi
expect_err "global .dat: M not symmetric" \
  "$T/gnsym.dat:4: expected M symmetric, found M(0,1) = 0.40000000000000002, M(1,0) = 0.5" \
  solve "$T/gnsym.dat" --solver nsn_ac
expect_err "global .dat: M not positive definite" \
  "$T/gnpd.dat:4: expected M positive definite" solve "$T/gnpd.dat" --solver nsn_ac
expect_err "global .dat: H 3 x 3 where M is 2 x 2" \
  "$T/gh.dat:10: expected H to be 2 x 3 (ndof x 3 nc = 2 x 3), found 3 x 3" \
  solve "$T/gh.dat" --solver nsn_ac
expect_err "global .dat: the condensation over --max-memory 1000" \
  "$T/gok.dat:4: expected sizes that fit the memory cap of 1000 bytes (max_memory), found the condensation of M" \
  solve "$T/gok.dat" --solver nsn_ac --max-memory 1000
expect_err "global .dat: convert over --max-memory 300" \
  "$T/gok.dat:2: expected sizes that fit the memory cap of 300 bytes (max_memory), found nc = 1" \
  convert "$T/gok.dat" "$T/gok.hdf5" --max-memory 300
sph="${LCPLAB_SHARED:-../shared}/datasets/siconos/gfc3d/Spheres-i099-356-679.hdf5"
if [ -f "$sph" ]; then
  expect_err "/fclib_global over --max-memory 1M" \
    "$sph: expected sizes that fit the memory cap of 1048576 bytes (max_memory), found /fclib_global: M, H, f, w (ndof = 12000" \
    solve "$sph" --solver nsn_ac --max-memory 1M
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
# Siconos FC3D_Example1.dat (3 contacts, W = I, q = (-1, 1, 3) per contact, mu = 0.1)
# through FCLIB and lcplab: byte-identical conversions and the same solution.
ex1="${LCPLAB_SHARED:-../shared}/datasets/siconos/fc3d/FC3D_Example1.dat"
if [ -f "$ex1" ]; then
  conv_chain ex1 "$ex1"
  if [ -n "$cone_solver" ]; then
    lcp solve "$ex1" --solver "$cone_solver" --tol 1e-12 --solution "$T/ex1.x"
    ok=0
    [ "$rc" -eq 0 ] && ok=1
    for f in ex1.hdf5 ex1.lcp ex1.dat; do
      lcp solve "$T/$f" --solver "$cone_solver" --tol 1e-12 --solution "$T/$f.x" --force
      if [ "$rc" -ne 0 ] || ! cmp -s "$T/ex1.x" "$T/$f.x"; then ok=0; fi
    done
    if [ "$ok" -eq 1 ]; then
      pass "FC3D_Example1 as .dat, .hdf5, .lcp: converged, identical solutions ($cone_solver)"
    else
      fail "FC3D_Example1 across formats" "exit $rc or solutions differ"
    fi
  fi
else
  echo "SKIP: $ex1 not found (LCPLAB_SHARED)"
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
