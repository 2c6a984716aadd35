#!/bin/sh
# test_campaign_shell.sh -- no shell ever parses a value (experiments/CAMPAIGNS.md,
# "No shell ever parses a value"; issue 48, cases 1, 2, 3 and 14):
#   1. an instance named a';touch${IFS}X;'.dat, $(touch Y).dat or with
#      backquotes: the convergence figure is drawn, nothing is run, the names
#      are shown as written; `lcplab figure` draws it again the same way;
#   2. a plan folder named o'neil $(x) `y`: run-parallel.sh and slurm.sbatch
#      parse (sh -n), their dir variable holds exactly the path, and the plan
#      runs under bash and GNU parallel;
#   3. an external's ${NAME} from --var or LCPLAB_NAME and {in} reach its
#      command as data: ';touch X;' is not run, spaces and quotes arrive intact;
#  14. time_limit 1e300 is refused naming the field; an --out or --plan path
#      or a --var value holding a newline or carriage return is refused with
#      exit 2 and one line; a CSV field holding , or " is quoted (RFC 4180)
#      and read back intact.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR, LCPLAB_SHARED.
# Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_campaign_shell
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
SRC=$(cd "$SRC" && pwd)
SHARED=${LCPLAB_SHARED:-$SRC/../shared}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
DEUDEU="$SHARED/datasets/siconos/lcp/lcp_deudeu.dat"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

rows() { grep -v '^#' "$1" | tail -n +2; }
# nothing_ran DIR: no file X or Y was created in DIR or the current folder
nothing_ran() { [ ! -e "$1/X" ] && [ ! -e "$1/Y" ] && [ ! -e X ] && [ ! -e Y ]; }

# the commands below run in $T: a command injected anywhere would create X or Y there
cd "$T" || exit 1

write_p2 "$T/p2.dat" # the hand problem (tst_cli_lib.sh): x = (1, 0)

# ---- 1. instance names reach no shell through the figure -----------------------------------
if [ -r "$DEUDEU" ] && command -v gnuplot >/dev/null 2>&1; then
  mkdir -p "$T/c1/inst"
  cp "$DEUDEU" "$T/c1/inst/a';touch\${IFS}X;'.dat"
  cp "$DEUDEU" "$T/c1/inst/\$(touch Y).dat"
  cp "$DEUDEU" "$T/c1/inst/b\`touch X\`c.dat"
  cat >"$T/c1/conv.exp" <<'EOF'
experiment convergence conv
solvers pgs lemke
instances inst
figure title=it's_a_$(touch_Y)_`touch_X`_"q"
EOF
  O="$T/c1/o'ut \$(touch X) \`touch Y\`"
  (cd "$T/c1" && "$BIN" experiment conv.exp --out "$O" >"$T/out" 2>"$T/err")
  rc=$?
  if [ "$rc" -eq 0 ] && nothing_ran "$T/c1" && nothing_ran "$O" && [ -s "$O/conv.pdf" ] &&
     [ -z "$(ls -A "$O" | grep '^\.figure')" ]; then
    pass "convergence figure, instances and --out named with ' \$( ) and backquotes: drawn, nothing run"
  else
    fail "convergence figure with shell characters in names" \
      "exit $rc, X/Y: $(ls -A "$T/c1" "$O" | tr '\n' ' '); $(tail -n 3 "$T/err")"
  fi
  if command -v pdftotext >/dev/null 2>&1; then
    pdftotext "$O/conv.pdf" "$T/conv.txt"
    if grep -qF "a';touch\${IFS}X;'" "$T/conv.txt" && grep -qF 'b`touch_X`c' "$T/conv.txt" &&
       grep -qF "it's a" "$T/conv.txt" && grep -qF '`touch X`' "$T/conv.txt" && ! grep -q '@[0-9]' "$T/conv.txt"; then
      pass "the figure shows the problems' names and the title as written (no token)"
    else
      fail "names in the figure" "$(tr '\n' ' ' <"$T/conv.txt" | head -c 300)"
    fi
  fi
  # lcplab figure (paper/build.sh): the same drawing again, from the CSV alone
  lcp figure convergence "$O/conv.csv" --out "$O/re'drawn \$(touch X)" --scripts "$SRC/experiments" \
    --set font=latex
  if [ "$rc" -eq 0 ] && [ -s "$O/re'drawn \$(touch X).pdf" ] && nothing_ran "$T/c1" && nothing_ran "$O"; then
    pass "lcplab figure draws the CSV again into a BASE named with ' and \$( ), nothing run"
  else
    fail "lcplab figure" "exit $rc"
  fi
  sed 's/^# figure: .*/# figure: solvers=pgs'"'"'x/' "$O/conv.csv" >"$T/edited.csv"
  expect_err "lcplab figure: an edited '# figure:' value with a quote is refused" "solvers=pgs'x" \
    figure convergence "$T/edited.csv" --out "$T/edited" --scripts "$SRC/experiments"
  expect_err "lcplab figure: --set with a quote in a value other than title's is refused" "font=a'b" \
    figure convergence "$O/conv.csv" --out "$T/edited" --scripts "$SRC/experiments" --set "font=a'b"
  n=$(rows "$O/conv.csv" | awk -F, '$9 == 1' | wc -l)
  if [ "$n" -eq 6 ]; then pass "convergence CSV: a final row per problem and solver"; else fail "convergence CSV rows" "$n final rows, expected 6"; fi
else
  echo "SKIP: $DEUDEU or gnuplot missing: no figure check"
fi

# ---- 2. a plan folder named o'neil $(x) `y` --------------------------------------------------
cat >"$T/small.exp" <<EOF
experiment profile prof
solvers pgs lemke
instances $T/p2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
P="$T/o'neil \$(touch X) \`touch Y\`"
lcp experiment "$T/small.exp" --plan "$P"
if [ "$rc" -ne 0 ]; then
  fail "--plan o'neil \$(x) \`y\`" "exit $rc: $(cat "$T/err")"
else
  for s in run-parallel.sh slurm.sbatch; do
    if ! sh -n "$P/$s" 2>"$T/sherr"; then
      fail "$s parses" "$(head -n 2 "$T/sherr")"
      continue
    fi
    # the script's dir variable, evaluated by sh up to its assignment
    got=$(sed -n '/^dir=/{p;q}' "$P/$s")
    d=$(sh -c "$got"'
printf %s "$dir"')
    if [ "$d" = "$P" ] && nothing_ran "$T"; then
      pass "$s: parses, dir holds exactly the plan path"
    else
      fail "$s: dir" "got '$d', expected '$P'"
    fi
  done
  if grep -q '^#SBATCH.*neil' "$P/slurm.sbatch"; then
    fail "slurm.sbatch: no path in an #SBATCH line (sbatch does not parse shell quotes)" \
      "$(grep '^#SBATCH.*neil' "$P/slurm.sbatch")"
  else
    pass "slurm.sbatch: no path in an #SBATCH line"
  fi
  # one array element under bash, as Slurm would run it
  (cd "$T" && SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_JOB_ID=1 LCPLAB="$BIN" bash "$P/slurm.sbatch" >"$T/sb.out" 2>&1)
  src=$?
  n=$(ls "$P/results" | wc -l)
  if [ "$src" -eq 0 ] && [ "$n" -ge 1 ] && nothing_ran "$T" && nothing_ran "$P"; then
    pass "slurm.sbatch runs under bash in a folder named o'neil \$(x) \`y\`"
  else
    fail "slurm.sbatch under bash" "exit $src, $n results; $(tail -n 3 "$T/sb.out")"
  fi
  if command -v parallel >/dev/null 2>&1; then
    (cd "$T" && LCPLAB="$BIN" bash "$P/run-parallel.sh" -j 1 >"$T/gp.out" 2>&1)
    prc=$?
    lcp collect "$P" --out "$T/c2out" --no-plot
    n=$(rows "$T/c2out/prof.csv" | wc -l)
    if [ "$prc" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$n" -eq 2 ] && nothing_ran "$T" && nothing_ran "$P"; then
      pass "run-parallel.sh runs under GNU parallel in a folder named o'neil \$(x) \`y\`"
    else
      fail "run-parallel.sh under GNU parallel" "exit $prc / collect $rc, $n rows; $(tail -n 3 "$T/gp.out")"
    fi
  else
    echo "SKIP: GNU parallel not installed: no run-parallel.sh run"
  fi
fi

# ---- 3. values reach an external solver as data --------------------------------------------
cat >"$T/args.sh" <<'EOF'
#!/bin/sh
# writes its arguments, one a line, beside the solution, and x = (1, 0)
out=$1
shift
printf '%s\n' "$@" >"$out.args"
printf '1\n0\n' >"$out"
cp "$out.args" "$ARGS_COPY"
EOF
chmod +x "$T/args.sh"
cat >"$T/ext.exp" <<'EOF'
external ok format=dat command ${SOLVER} {out} {in} ${OPT} tol\ {tol} {n}
experiment profile ext
solvers ok
instances p2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
mkdir "$T/xin"
cp "$T/p2.dat" "$T/xin/in'quote \$(touch X).dat"
sed -i "s|p2.dat|xin|" "$T/ext.exp"
export ARGS_COPY="$T/args.txt"
lcp experiment "$T/ext.exp" --out "$T/x1" --no-plot --var "SOLVER=$T/args.sh;touch X;" --var OPT=o
r=$(rows "$T/x1/ext.csv" | awk -F, '{print $6}')
if nothing_ran "$T" && nothing_ran "$T/x1" && [ "$r" = failed ]; then
  pass "--var SOLVER='...;touch X;': the program of that name is not found, nothing run"
else
  fail "--var SOLVER with ';touch X;'" "exit $rc, status '$r', files: $(ls "$T" | tr '\n' ' ')"
fi
OPT="a b'c\"d \$(touch Y) \`touch X\`"
LCPLAB_OPT=$OPT lcp experiment "$T/ext.exp" --out "$T/x2" --no-plot --var "SOLVER=$T/args.sh"
r=$(rows "$T/x2/ext.csv" | awk -F, '{print $6}')
want=$(printf '%s\n' "$T/xin/in'quote \$(touch X).dat" "$OPT" "tol 1e-08" 2)
if [ "$r" = converged ] && nothing_ran "$T" && [ "$(cat "$T/args.txt")" = "$want" ]; then
  pass "LCPLAB_OPT with spaces, quotes, \$( ) and backquotes and {in} reach the solver intact"
else
  fail "values reach the solver intact" "status '$r', args: $(tr '\n' '|' <"$T/args.txt" 2>/dev/null)"
fi
# a template of the user's own shell text, as in experiments/full.exp: && and mv
cat >"$T/mv.exp" <<'EOF'
external mv format=dat command ${SOLVER} {out}.z {in} && mv {out}.z {out}
experiment profile ext
solvers mv
instances xin
tol 1e-8
min_runs 1
min_time 0
EOF
lcp experiment "$T/mv.exp" --out "$T/x5" --no-plot --var "SOLVER=$T/args.sh"
r=$(rows "$T/x5/ext.csv" | awk -F, '{print $6}')
if [ "$rc" -eq 0 ] && [ "$r" = converged ]; then pass "a template with && and mv (full.exp's form) still works"; else fail "template with && and mv" "exit $rc, status '$r'"; fi
cat >"$T/sq.exp" <<'EOF'
external bad command sh -c 'cat {in} > {out}'
experiment profile ext
solvers bad
instances p2.dat
EOF
expect_err "a placeholder inside single quotes is refused (a nested shell would parse it)" \
  "inside single quotes" experiment "$T/sq.exp" --out "$T/x3" --no-plot
sed -i "s|'|\"|g" "$T/sq.exp"
expect_err "a placeholder inside double quotes is refused (a nested shell would parse it)" \
  "inside double quotes" experiment "$T/sq.exp" --out "$T/x3" --no-plot

# ---- 14. numbers and newlines that reach generated scripts ---------------------------------
cat >"$T/tl.exp" <<EOF
experiment profile prof
solvers pgs
instances $T/p2.dat
time_limit 1e300
EOF
expect_err "time_limit 1e300 is refused, naming the field" "time_limit" \
  experiment "$T/tl.exp" --plan "$T/tl"
expect_err "--time-limit 1e300 is refused, naming the option" "--time-limit" \
  experiment "$T/small.exp" --plan "$T/tl2" --time-limit 1e300
NL='
'
CR=$(printf '\r')
expect_err "an --out path holding a newline is refused" "newline" \
  experiment "$T/small.exp" --out "$T/a${NL}b" --no-plot
expect_err "a --plan path holding a carriage return is refused" "carriage return" \
  experiment "$T/small.exp" --plan "$T/a${CR}b"
expect_err "a --var value holding a newline is refused" "newline" \
  experiment "$T/ext.exp" --out "$T/x4" --no-plot --var OPT=o --var "SOLVER=a${NL}b"
mkdir "$T/nlin"
cp "$T/p2.dat" "$T/nlin/a${NL}b.dat"
cat >"$T/nl.exp" <<'EOF'
experiment profile nl
solvers pgs
instances nlin
EOF
expect_err "an instance file whose name holds a newline is refused, named" "holds a newline" \
  experiment "$T/nl.exp" --out "$T/nlout" --no-plot
if [ ! -e "$T/a${NL}b" ] && [ ! -e "$T/a${CR}b" ]; then pass "nothing created for a refused path"; else fail "refused paths" "a folder was created"; fi

# CSV fields as RFC 4180 says: a note holding , and " (here the token the judge could
# not read in the solution an external wrote) is one quoted field, kept intact, and
# collect reads it back (row by row, into the same columns); the failed external makes
# both exit 3
cat >"$T/q.exp" <<'EOF'
external bad command echo 'nope,"x' {in} > {out}
experiment profile q
solvers pgs bad
instances p2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
Q="$T/q,\"x"
lcp experiment "$T/q.exp" --out "$Q" --no-plot
qrc=$rc
lcp collect "$Q/campaign" --out "$T/q2" --no-plot
if command -v python3 >/dev/null 2>&1; then
  r=$(python3 - "$Q/q.csv" "$T/q2/q.csv" "$Q/" <<'PY'
import csv, sys
def table(p):
    rows = list(csv.reader(l for l in open(p) if not l.startswith('#')))
    return rows[0], rows[1:]
out = []
for p in sys.argv[1:3]:
    h, rows = table(p)
    notes = [r[h.index('note')] for r in rows if r[h.index('solver')] == 'bad']
    out.append(all(len(r) == len(h) for r in rows) and len(notes) == 1 and
               'nope,"x' in notes[0])
print(*out)
PY
)
  if [ "$qrc" -eq 3 ] && [ "$rc" -eq 3 ] && [ "$r" = "True True" ]; then
    pass "a note with , and \" is one quoted CSV field, intact, and collect reads it back"
  else
    fail "RFC 4180 fields" "exit $qrc / $rc, '$r'; $(grep ',bad,' "$Q/q.csv" | head -n 1)"
  fi
else
  echo "SKIP: python3 missing: no RFC 4180 check"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
