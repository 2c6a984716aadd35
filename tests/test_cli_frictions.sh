#!/bin/sh
# test_cli_frictions.sh -- the command line's defaults and small conveniences
# (lcplab(1), docs/lcplab.1):
#   - `solve FILE` without --solver uses auto; `simulate` and `export` without
#     --solver pick a solver that accepts the friction model and say which on
#     stderr (one "lcplab: note: ..." line);
#   - "-" names standard output wherever an output file is named (solve
#     --solution, convert OUT, simulate --csv and --trace), and no file named
#     "-" appears; the JSON then goes to stderr;
#   - simulate without --csv prints only the JSON summary;
#   - the progress line of simulate (LCPLAB_PROGRESS=1 forces it; off when
#     stderr is not a terminal);
#   - `solvers --json`, `help CMD`, and the bash completion script.
#
# Environment: as test_cli.sh (LCPLAB_BIN, LCPLAB_SRCDIR, LCPLAB_SHARED).
# Exit: 0 all passed, 1 any failure, 77 skipped.  Last line: "N passed, M failed".
#
# Hand problem (w = M x + q): M = [[2,1],[1,2]], q = [-5,-6]; both x_i > 0
# gives 2 x1 + x2 = 5, x1 + 2 x2 = 6, so x = (4/3, 7/3).

TST_NAME=test_cli_frictions
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}

printf '2\n0\n2\n2\n2\t2\n2 1\n1 2\n-5\n-6\n' >"$T/sym.dat"
cd "$T" || exit 1

# json_has FILE KEY VALUE: FILE holds "KEY":VALUE (VALUE as printed, quoted if a string).
json_has() {
  grep -qF "\"$2\":$3" "$1"
}

# close2 FILE: two lines, 4/3 and 7/3 to 1e-8.
close2() {
  awk 'NR == 1 { a = $1 - 4 / 3 } NR == 2 { b = $1 - 7 / 3 }
       END { exit !(NR == 2 && a * a < 1e-16 && b * b < 1e-16) }' "$1"
}

# ---- defaults -----------------------------------------------------------------------
lcp solve sym.dat
if [ "$rc" -eq 0 ] && json_has out solver '"auto"' && grep -q '"chosen":"' out; then
  pass "solve without --solver: auto"
else
  fail "solve without --solver: auto" "exit $rc: $(cat err) $(cat out)"
fi

lcp export --scene pile --friction cone --steps 8 --every 4 --format lcplab --out exp
if [ "$rc" -eq 0 ] && [ -n "$(ls exp 2>/dev/null)" ] && grep -q '^lcplab: note: .*nsgs' err; then
  pass "export --friction cone without --solver: a cone solver, named in a note"
else
  fail "export --friction cone without --solver" "exit $rc: $(cat err)"
fi

lcp simulate --scene stack --param n=2 --friction cone --steps 3 --csv cone.csv
if [ "$rc" -eq 0 ] && json_has out solver '"nsgs"' && grep -q '^lcplab: note: .*nsgs' err; then
  pass "simulate --friction cone without --solver: nsgs, named in a note"
else
  fail "simulate --friction cone without --solver" "exit $rc: $(cat err)"
fi

lcp simulate --scene stack --param n=2 --steps 3 --csv box.csv
if [ "$rc" -eq 0 ] && json_has out solver '"pgs"' && grep -q '^lcplab: note: .*pgs' err; then
  pass "simulate without --solver (box friction): pgs, named in a note"
else
  fail "simulate without --solver (box friction)" "exit $rc: $(cat err)"
fi

lcp simulate --scene stack --param n=2 --solver pgs --steps 3 --csv given.csv
if [ "$rc" -eq 0 ] && [ ! -s err ]; then
  pass "simulate --solver given: no note"
else
  fail "simulate --solver given: no note" "exit $rc: $(cat err)"
fi

# Siconos' Buck2_mlcp.dat (nonsymmetric, n = 32): lemke, auto's first choice,
# ends on a ray at res_rel 0.55; a fallback (ipm) converges, and the choice
# says what was tried.
buck2="${LCPLAB_SHARED:-$SRC/../shared}/datasets/siconos/mlcp/Buck2_mlcp.dat"
if [ -f "$buck2" ]; then
  lcp solve "$buck2" --solver auto --tol 1e-8
  if [ "$rc" -eq 0 ] && json_has out status '"converged"' && grep -q '"choice":"[^"]*lemke ended' out
  then
    pass "auto on Buck2_mlcp.dat: converged after lemke's ray, the attempt in choice"
  else
    fail "auto on Buck2_mlcp.dat" "exit $rc: $(cat out)"
  fi
else
  echo "SKIP: $buck2 not found (LCPLAB_SHARED)"
fi

# ---- "-" is standard output ---------------------------------------------------------
lcp solve sym.dat --solver lemke --solution -
if [ "$rc" -eq 0 ] && close2 out && json_has err status '"converged"' && [ ! -e ./- ]; then
  pass "solve --solution -: x on stdout, the JSON on stderr"
else
  fail "solve --solution -" "exit $rc: $(cat err)"
fi

lcp convert sym.dat -
if [ "$rc" -eq 0 ] && head -n 1 out | grep -q '^lcplab-problem 1' && [ ! -e ./- ]; then
  pass "convert IN -: the lcplab format on stdout"
else
  fail "convert IN -" "exit $rc: $(cat err)"
fi
cp out back.lcp
lcp solve back.lcp --solver lemke --solution x.txt
if [ "$rc" -eq 0 ] && close2 x.txt; then
  pass "convert IN -: the output reads back as the same problem"
else
  fail "convert IN -: read back" "exit $rc: $(cat err)"
fi
lcp convert sym.dat - --to blcp
if [ "$rc" -eq 0 ] && grep -q 'boxed LCP' out; then
  pass "convert IN - --to blcp"
else
  fail "convert IN - --to blcp" "exit $rc: $(cat err)"
fi
expect_err "convert IN - --to fclib: refused, a binary format" "standard output" \
  convert sym.dat - --to fclib

lcp simulate --scene stack --param n=2 --solver pgs --steps 4 --csv -
if [ "$rc" -eq 0 ] && head -n 1 out | grep -q '^step,t,' && [ "$(wc -l <out)" -eq 5 ] &&
  json_has err scene '"stack"' && [ ! -e ./- ]; then
  pass "simulate --csv -: the CSV on stdout, the summary on stderr"
else
  fail "simulate --csv -" "exit $rc: $(cat err)"
fi
lcp simulate --scene stack --param n=2 --solver pgs --steps 2 --csv t.csv --trace -
if [ "$rc" -eq 0 ] && head -n 1 out | grep -q '^step,t,body' && [ -s t.csv ] && [ ! -e ./- ]; then
  pass "simulate --trace -: the trace on stdout"
else
  fail "simulate --trace -" "exit $rc: $(cat err)"
fi
expect_err "simulate --csv - --trace -: refused" "standard output" \
  simulate --scene stack --solver pgs --steps 2 --csv - --trace -
: >./-
lcp simulate --scene stack --param n=2 --solver pgs --steps 2 --csv -
if [ "$rc" -eq 0 ] && [ ! -s ./- ]; then
  pass "simulate --csv - with a file named '-' present: stdout, the file untouched"
else
  fail "simulate --csv - with a file '-'" "exit $rc: $(cat err)"
fi
rm -f ./-

# ---- simulate without --csv: the summary only ------------------------------------------
lcp simulate --scene stack --param n=2 --solver pgs --steps 3
if [ "$rc" -eq 0 ] && [ "$(wc -l <out)" -eq 1 ] && json_has out steps 3 && [ ! -s err ]; then
  pass "simulate without --csv: the JSON summary"
else
  fail "simulate without --csv" "exit $rc: $(cat err)"
fi

# ---- the progress line --------------------------------------------------------------
lcp simulate --scene stack --param n=2 --solver pgs --steps 30 --csv p.csv
if [ "$rc" -eq 0 ] && [ ! -s err ]; then
  pass "no progress line when stderr is not a terminal"
else
  fail "no progress line when stderr is not a terminal" "exit $rc: $(cat err)"
fi
LCPLAB_PROGRESS=1 "$BIN" simulate --scene stack --param n=2 --solver pgs --steps 30 \
  --csv p2.csv >out 2>err
rc=$?
cr=$(printf '\r')
if [ "$rc" -eq 0 ] && grep -q "simulate: step 30/30" err && grep -q "$cr" err &&
  [ "$(tail -c 4 err | od -An -c | tr -d ' \n')" = '\r033[K' ]; then
  pass "LCPLAB_PROGRESS=1: the progress line, rewritten in place, cleared at the end"
else
  fail "LCPLAB_PROGRESS=1: progress line" "exit $rc: $(od -c err | head -n 5)"
fi
LCPLAB_PROGRESS=yes
export LCPLAB_PROGRESS
expect_err "bad LCPLAB_PROGRESS" "LCPLAB_PROGRESS" simulate --scene stack --solver pgs --steps 2
unset LCPLAB_PROGRESS

# ---- experiment: ${SHARED} without --var ----------------------------------------------
# A first experiment file that names ${SHARED} (as the project's own do) works
# without --var SHARED= or LCPLAB_SHARED when the shared tree lies beside the
# source tree (../shared): the plan is written, its problem read from there.
shared_dir="$SRC/../shared"
if [ -f "$shared_dir/datasets/siconos/lcp/lcp_mmc.dat" ]; then
  printf 'experiment profile first\nsolvers lemke\ninstances ${SHARED}/datasets/siconos/lcp/lcp_mmc.dat\n' \
    >first.exp
  (unset LCPLAB_SHARED; "$BIN" experiment first.exp --plan first-plan >out 2>err)
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q 'lcp_mmc' first-plan/problems.tsv 2>/dev/null; then
    pass "experiment: \${SHARED} defaults to the shared tree beside the sources"
  else
    fail "experiment: \${SHARED} without --var" "exit $rc: $(cat err)"
  fi
else
  echo "SKIP: $shared_dir not found (the \${SHARED} default)"
fi

# ---- solvers --json -----------------------------------------------------------------
lcp solvers --json
nsolvers=$("$BIN" solvers | wc -l)
if [ "$rc" -eq 0 ] && python3 - "$nsolvers" out <<'EOF'; then
import json, sys
d = json.load(open(sys.argv[2]))
names = [s["name"] for s in d]
assert len(d) == int(sys.argv[1]), len(d)
assert "auto" in names and "pgs" in names
pgs = d[names.index("pgs")]
assert "findex" in pgs["accepts"] and "cone" not in pgs["accepts"], pgs
assert pgs["summary"] and pgs["cite"]
assert all(s["params"] and "\t" not in s["params"] for s in d), d
assert "omega = options.omega (1)" in pgs["params"], pgs
EOF
  pass "solvers --json: every solver, its accepts list, summary, citation and params"
else
  fail "solvers --json" "exit $rc: $(cat err)"
fi

# ---- help CMD ------------------------------------------------------------------------
lcp help solve
if [ "$rc" -eq 0 ] && head -n 1 out | grep -q '^usage: lcplab solve '; then
  pass "help solve: solve's usage"
else
  fail "help solve" "exit $rc: $(head -n 1 out)"
fi
lcp help
if [ "$rc" -eq 0 ] && head -n 1 out | grep -q '^usage: lcplab COMMAND'; then
  pass "help: the top-level usage"
else
  fail "help" "exit $rc"
fi
expect_err "help of an unknown command" "nosuch" help nosuch

# ---- bash completion -----------------------------------------------------------------
comp="$SRC/cli/bash-completion/lcplab"
if command -v bash >/dev/null 2>&1 && [ -f "$comp" ]; then
  # complete WORDS...: the candidates for the last word, one per line.
  complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
      COMP_LINE="$*"; _lcplab_complete; printf "%s\n" "${COMPREPLY[@]}"' \
      sh "$comp" "$BIN" "$@"
  }
  out=$(complete_words sim)
  if [ "$out" = simulate ]; then pass "completion: a command"; else fail "completion: a command" "$out"; fi
  out=$(complete_words solve x.dat --solver ns)
  want=$("$BIN" solvers | awk '$1 ~ /^ns/ { print $1 }')
  if [ "$out" = "$want" ] && [ -n "$want" ]; then
    pass "completion: solver names from 'lcplab solvers'"
  else
    fail "completion: solver names" "got '$out', want '$want'"
  fi
  out=$(complete_words simulate --sce)
  if [ "$out" = --scene ]; then pass "completion: an option from --help"; else fail "completion: an option" "$out"; fi
  out=$(complete_words simulate --scene py)
  if [ "$out" = pyramid ]; then pass "completion: a scene"; else fail "completion: a scene" "$out"; fi
  out=$(complete_words help so)
  if [ "$(echo "$out" | tr '\n' ' ')" = "solvers solve " ]; then
    pass "completion: help's commands"
  else
    fail "completion: help's commands" "$out"
  fi
else
  fail "completion script" "$comp missing or no bash"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
