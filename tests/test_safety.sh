#!/bin/sh
# test_safety.sh -- nothing run as code, nothing lost or overwritten (issue 64, findings
# 1-6; experiments/CAMPAIGNS.md "No shell ever parses a value", "The template rule" and
# "What --force replaces"; docs/io.md "Replacing files"):
#   1. the template rule: a placeholder inside quotes, a nested shell (sh -c, bash -c,
#      env ... sh -c, xargs sh -c, find -exec sh -c), eval or ssh handed text made from a
#      value are refused when the file is read (FILE:LINE: external: NAME: what, exit 2),
#      among them the issue's three (an instance named b$(touch P).dat, --var OPT, eval);
#      the forms that pass values as a nested shell's arguments ("$1") still run, with
#      that instance, and run nothing of its name;
#   2. the hint printed after --plan: pasting each of its commands runs nothing of a plan
#      path holding ' $( ) and backquotes, and hands the program the path itself;
#   3. lcplab figure --out BASE refuses an existing BASE.pdf/.png without --force and an
#      output that is one of its input CSVs even with --force (exit 2, naming the file);
#   4. --plan PG --force and --out OO --force remove only the result files lcplab wrote:
#      a user's analysis.txt in results/ stays;
#   5. --data D refuses to replace a D/problem-meta.tsv that is not lcplab's cache
#      (exit 2 naming it) unless --force; lcplab's own cache is rewritten as before;
#   6. under a file size limit (ulimit -f, SIGXFSZ left at its default by this script:
#      lcplab ignores it itself) every writer -- solve --solution (text, FCLIB), convert
#      (text, FCLIB, .npz), simulate --csv, export, generate, experiment, collect, figure
#      (gnuplot's files) --
#      exits 2 with a message naming the file, keeps the old file and leaves no temporary
#      file; a figure cut short by the limit never replaces a whole one.
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  gnuplot for the figure
# checks (else they say SKIP).
# Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_safety
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
SRC=$(cd "$SRC" && pwd)
export LCPLAB_EXPERIMENTS="$SRC/experiments"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi
# the commands below run in $T: anything a value ran would create P, X or Y there
cd "$T" || exit 1
nothing_ran() { [ ! -e "$T/P" ] && [ ! -e "$T/X" ] && [ ! -e "$T/Y" ]; }
rows() { grep -v '^#' "$1" | tail -n +2; }
has_gnuplot=0
if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then has_gnuplot=1; fi

write_p2 "$T/p2.dat" # the hand problem (tst_cli_lib.sh): x = (1, 0)
mkdir "$T/xin"
cp "$T/p2.dat" "$T/xin/b\$(touch P).dat"

# ---- 1. the template rule ------------------------------------------------------------------
# refused DESC WANT LINE: an experiment file whose first line is LINE is refused when read:
# exit 2, one line "t.exp:1: external: x: ..." holding WANT; nothing ran
nref=0
refused() {
  nref=$((nref + 1))
  printf '%s\nexperiment profile s\nsolvers x\ninstances xin\nmin_runs 1\nmin_time 0\n' "$3" >"$T/t.exp"
  lcp experiment "$T/t.exp" --out "$T/r$nref" --no-plot --var 'OPT=$(touch P)'
  if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "t.exp:1: external: x: " "$T/err" &&
    grep -qF -- "$2" "$T/err" && nothing_ran; then
    pass "$1"
  else
    fail "$1" "exit $rc, P/X/Y: $(ls "$T" | grep -x '[PXY]' | tr '\n' ' ')"
  fi
  rm -f "$T/P" "$T/X" "$T/Y"
}
# the issue's three
refused "sh -c \"ls -d {in} ...\" with an instance named b\$(touch P).dat" "{in} inside double quotes" \
  "external x format=dat command sh -c \"ls -d {in} >/dev/null; printf '1\\n0\\n' >{out}\""
refused "echo \${OPT} inside sh -c \"...\" with --var OPT='\$(touch P)'" "\${OPT} inside double quotes" \
  "external x format=dat command sh -c \"echo \${OPT} >/dev/null; printf '1\\n0\\n' >\$2\" sh {in} {out}"
refused "eval echo {in}" "eval parses its arguments" \
  "external x format=dat command eval echo {in} >/dev/null; printf '1\\n0\\n' >{out}"
# the class: every nested shell, eval and ssh handed text made from a value
refused "a placeholder inside single quotes" "{out} inside single quotes" \
  "external x format=dat command cat {in} >'{out}'"
refused "bash -c with its script holding \$X (made from {in})" "bash -c: its script holds a value" \
  "external x format=dat command X={in}; bash -c \"ls \$X\"; printf '1\\n0\\n' >{out}"
refused "env ... sh -c with \"\$1\" expanded by the outer shell" "sh -c: its script holds a value" \
  "external x format=dat command env A=1 sh -c \"ls \$1\" sh {in}; printf '1\\n0\\n' >{out}"
refused "sh -c {in}: a value as the script" "sh -c: its script holds a value" \
  "external x format=dat command sh -c {in} {out}"
refused "xargs sh -c: the script from xargs' input" "sh -c without its script in the template" \
  "external x format=dat command echo {in} {out} | xargs sh -c"
refused "cat {in} | sh: the script from standard input" "sh without a script" \
  "external x format=dat command cat {in} | sh; : {out}"
refused "find -exec sh -c '... {} ...'" "sh -c: its script holds {}" \
  "external x format=dat command find {in} -exec sh -c 'ls {}' \\; ; printf '1\\n0\\n' >{out}"
refused "xargs -I% sh -c '... % ...'" "sh -c: its script holds %" \
  "external x format=dat command echo {in} | xargs -I% sh -c 'ls %'; printf '1\\n0\\n' >{out}"
refused "a nested shell's script that evals its \"\$1\"" "eval parses its arguments" \
  "external x format=dat command sh -c 'eval \"\$1\"' sh {in}; printf '1\\n0\\n' >{out}"
refused "sh -c 'sh -c \"ls \$1\"': a shell two levels down" "sh -c: its script holds a value" \
  "external x format=dat command sh -c 'sh -c \"ls \$1\"' sh {in}; printf '1\\n0\\n' >{out}"
refused "a shell inside \$( )" "sh -c: its script holds a value" \
  "external x format=dat command echo \$(sh -c \"ls \$HOME\") {in} {out}"
refused "ssh HOST cmd {in}: the remote shell parses it" "ssh: the remote shell parses" \
  "external x format=dat command ssh host solve {in} {out}"
# the forms that pass values as arguments still run, and run nothing of the name
cat >"$T/ok.exp" <<'EOF'
external a format=dat command sh -c 'ls -d -- "$1" >/dev/null && printf "1\n0\n" >"$2"' sh {in} {out}
external b format=dat command env IN={in} OUT={out} sh -c 'test -r "$IN" && printf "1\n0\n" >"$OUT"'
external c format=dat command find {in} -prune -exec sh -c 'test -r "$1" && printf "1\n0\n" >"$2"' sh {} {out} \;
external d format=dat command bash -euc 'test -r "$1" && test -n "$3" && printf "1\n0\n" >"$2"' bash {in} {out} ${OPT}
experiment profile ok
solvers a b c d
instances xin
tol 1e-8
min_runs 1
min_time 0
EOF
lcp experiment "$T/ok.exp" --out "$T/o1" --no-plot --var "OPT=$T/xin/b\$(touch P).dat"
conv=$(rows "$T/o1/ok.csv" | grep -c ',converged,')
if [ "$rc" -eq 0 ] && [ "$conv" -eq 4 ] && nothing_ran; then
  pass "sh -c '...\"\$1\"...' sh {in}, env IN={in} sh -c, find -exec sh -c ... sh {} and a --var value as \$3: run, converged, nothing of b\$(touch P).dat run"
else
  fail "the argument forms of nested shells" "exit $rc, $conv of 4 converged, P: $(ls "$T" | grep -cx P)"
fi

# ---- 2. the hint after --plan -----------------------------------------------------------------
PL="$T/pl 'q' \$(touch X) \`touch Y\`"
lcp experiment "$T/ok.exp" --plan "$PL" --var OPT=x
mkdir "$T/fake"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s/fake.args"\n' "$T" >"$T/fake/sh"
cp "$T/fake/sh" "$T/fake/sbatch"
cp "$T/fake/sh" "$T/fake/lcplab"
chmod +x "$T/fake/sh" "$T/fake/sbatch" "$T/fake/lcplab"
# hint_cmd WHICH: the command of the hint that starts with WHICH, as printed (the hint
# before issue 64 printed each inside '...': read that form too, so that its failure shows)
hint_cmd() {
  segs=$(grep 'run them with' "$T/err" | tr ';,' '\n\n' | sed 's/ or /\n/g')
  c=$(printf '%s\n' "$segs" | sed -n "s/^ *\\(or: \\|then: \\|run them with: \\)\\($1 .*\\)\$/\\2/p" | head -n 1)
  [ -n "$c" ] || c=$(printf '%s\n' "$segs" | sed -n "s/^ *\\(run them with \\|then \\)\\?'\\($1 .*\\)'\$/\\2/p" | head -n 1)
  printf '%s' "$c"
}
for which in sh sbatch "lcplab collect"; do
  cmd=$(hint_cmd "$which")
  rm -f "$T/fake.args"
  [ -n "$cmd" ] && PATH="$T/fake:$PATH" /bin/sh -c "$cmd" >/dev/null 2>&1
  case $which in
    sh) want="$PL/run-parallel.sh" ;;
    sbatch) want="$PL/slurm.sbatch" ;;
    *) want=$(printf '%s\n%s' collect "$PL") ;;
  esac
  if [ "$rc" -eq 0 ] && nothing_ran && [ "$(cat "$T/fake.args" 2>/dev/null)" = "$want" ]; then
    pass "the --plan hint's '$which' command, pasted: runs nothing, gets the path itself"
  else
    fail "the --plan hint's '$which' command" "exit $rc, command '$cmd', got '$(cat "$T/fake.args" 2>/dev/null)', X/Y: $(ls "$T" | grep -cx '[XY]')"
  fi
  rm -f "$T/X" "$T/Y"
done

# ---- 3. lcplab figure: no overwrite without --force, an input never -----------------------------
cat >"$T/prof.exp" <<'EOF'
experiment profile prof
solvers pgs lemke
instances p2.dat
tol 1e-6
min_runs 1
min_time 0
EOF
lcp experiment "$T/prof.exp" --out "$T/o3" --no-plot
if [ "$has_gnuplot" -eq 1 ] && [ -s "$T/o3/prof.csv" ]; then
  F="$T/fg"
  mkdir "$F"
  lcp figure profile "$T/o3/prof.csv" --csv2 "$T/o3/prof_profile.csv" --out "$F/mine"
  cp "$F/mine.pdf" "$T/mine.pdf.0"
  cp "$F/mine.png" "$T/mine.png.0"
  expect_err "figure --out BASE over an existing BASE.pdf without --force" "$F/mine.pdf exists" \
    figure profile "$T/o3/prof.csv" --csv2 "$T/o3/prof_profile.csv" --out "$F/mine"
  if cmp -s "$F/mine.pdf" "$T/mine.pdf.0" && cmp -s "$F/mine.png" "$T/mine.png.0"; then
    pass "figure without --force: the existing figure intact"
  else
    fail "figure without --force" "the existing figure changed"
  fi
  lcp figure profile "$T/o3/prof.csv" --csv2 "$T/o3/prof_profile.csv" --out "$F/mine" --force
  if [ "$rc" -eq 0 ] && [ -s "$F/mine.pdf" ]; then pass "figure --force replaces it"; else fail "figure --force" "exit $rc"; fi
  cp "$T/o3/prof.csv" "$F/in.png"
  cp "$F/in.png" "$T/in.png.0"
  expect_err "figure whose BASE.png is its input CSV" "the output is the input $F/in.png" \
    figure profile "$F/in.png" --csv2 "$T/o3/prof_profile.csv" --out "$F/in"
  expect_err "figure whose BASE.png is its input CSV, with --force" "the output is the input $F/in.png" \
    figure profile "$F/in.png" --csv2 "$T/o3/prof_profile.csv" --out "$F/in" --force
  if cmp -s "$F/in.png" "$T/in.png.0"; then pass "figure: the input CSV intact"; else fail "figure over its input" "the input changed"; fi
else
  echo "SKIP: gnuplot or the profile CSV missing: no lcplab figure checks"
fi

# ---- 4. --force removes only what lcplab wrote ----------------------------------------------
lcp experiment "$T/prof.exp" --plan "$T/pg"
lcp task "$T/pg" 0
echo mine >"$T/pg/results/analysis.txt"
lcp experiment "$T/prof.exp" --plan "$T/pg" --force
if [ "$rc" -eq 0 ] && [ "$(cat "$T/pg/results/analysis.txt" 2>/dev/null)" = mine ] &&
  [ ! -e "$T/pg/results/t000000.res" ] && grep -qF "analysis.txt" "$T/err"; then
  pass "--plan --force: results/analysis.txt kept (named in a note), lcplab's result removed"
else
  fail "--plan --force over a user's results/analysis.txt" "exit $rc, left: $(ls "$T/pg/results" | tr '\n' ' ')"
fi
lcp experiment "$T/prof.exp" --out "$T/oo" --no-plot
echo mine >"$T/oo/campaign/results/analysis.txt"
sed -i 's/tol 1e-6/tol 1e-7/' "$T/prof.exp"
lcp experiment "$T/prof.exp" --out "$T/oo" --no-plot --force
sed -i 's/tol 1e-7/tol 1e-6/' "$T/prof.exp"
if [ "$rc" -eq 0 ] && [ "$(cat "$T/oo/campaign/results/analysis.txt" 2>/dev/null)" = mine ]; then
  pass "--out --force over another plan: campaign/results/analysis.txt kept"
else
  fail "--out --force over a user's campaign/results/analysis.txt" "exit $rc, left: $(ls "$T/oo/campaign/results" | tr '\n' ' ')"
fi

# ---- 5. --data D: a problem-meta.tsv of somebody else's ----------------------------------------
printf 'experiment profile g\nsolvers pgs\ngenerate spd 10\nmin_runs 1\nmin_time 0\n' >"$T/gen.exp"
mkdir "$T/ud"
echo "my notes" >"$T/ud/problem-meta.tsv"
expect_err "--data D over a D/problem-meta.tsv that is not lcplab's cache" "$T/ud/problem-meta.tsv exists" \
  experiment "$T/gen.exp" --data "$T/ud" --out "$T/o5" --no-plot
if [ "$(cat "$T/ud/problem-meta.tsv")" = "my notes" ]; then pass "--data: the user's problem-meta.tsv intact"; else fail "--data over problem-meta.tsv" "replaced"; fi
lcp experiment "$T/gen.exp" --data "$T/ud" --out "$T/o5" --no-plot --force
if [ "$rc" -eq 0 ] && head -n 1 "$T/ud/problem-meta.tsv" | grep -q '^# path'; then pass "--data ... --force replaces it with the cache"; else fail "--data --force" "exit $rc"; fi
lcp experiment "$T/gen.exp" --data "$T/ud" --out "$T/o5b" --no-plot
if [ "$rc" -eq 0 ]; then pass "--data: lcplab's own cache is rewritten without --force"; else fail "--data over lcplab's own cache" "exit $rc"; fi

# ---- 6. every writer under a file size limit ---------------------------------------------------
# limited BLOCKS DESC FILE ARGS...: lcplab ARGS with its files limited to BLOCKS blocks (512
# bytes in dash, 1 KiB in bash), SIGXFSZ at its default (lcplab must ignore it itself): exit
# 2, the message names FILE, no temporary file or figure folder left beside FILE
limited() {
  lb=$1
  ldesc=$2
  lfile=$3
  shift 3
  (
    ulimit -f "$lb"
    exec "$BIN" "$@" >"$T/out" 2>"$T/err"
  )
  rc=$?
  ldir=$(dirname "$lfile")
  left=$(find "$ldir" -maxdepth 3 \( -name '.*.tmp*' -o -name '*.tmp.*' -o -name '.figure-*' \
    -o -name "$(basename "$lfile").??????" \) | head -n 3)
  if [ "$rc" -ne 2 ]; then
    fail "$ldesc" "exit $rc, expected 2"
  elif ! grep -qF -- "$lfile" "$T/err"; then
    fail "$ldesc" "the message does not name $lfile"
  elif [ -n "$left" ]; then
    fail "$ldesc" "left: $left"
  else
    pass "$ldesc"
  fi
}
# intact FILE COPY DESC: FILE is still COPY
intact() { if cmp -s "$1" "$2"; then pass "$3"; else fail "$3" "$1 changed"; fi; }

mkdir "$T/w"
lcp generate --type spd --n 200 --out "$T/w/a.lcp"
echo old >"$T/w/x.txt"
cp "$T/w/x.txt" "$T/w/old"
limited 2 "solve --solution over a file size limit: exit 2 naming the file" "$T/w/x.txt" \
  solve "$T/w/a.lcp" --solver lemke --solution "$T/w/x.txt" --force
intact "$T/w/x.txt" "$T/w/old" "solve --solution: the old file intact"
printf '3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0.25 0\n0.5\n' >"$T/w/fc1.dat"
limited 2 "solve --solution x.hdf5 (FCLIB) over the limit" "$T/w/fc.hdf5" \
  solve "$T/w/fc1.dat" --solver nsgs --solution "$T/w/fc.hdf5"
lcp convert "$T/w/fc1.dat" "$T/w/fcold.hdf5"
cp "$T/w/fcold.hdf5" "$T/w/fcold.0"
limited 2 "convert to FCLIB over the limit" "$T/w/fcold.hdf5" convert "$T/w/fc1.dat" "$T/w/fcold.hdf5" --force
intact "$T/w/fcold.hdf5" "$T/w/fcold.0" "convert to FCLIB: the old file intact"
lcp export --scene pile --format lcplab --friction cone --solver nsgs --steps 10 --every 10 --out "$T/w/cone"
cp "$T/w/old" "$T/w/n.npz"
limited 2 "convert to a ContactBench .npz over the limit" "$T/w/n.npz" \
  convert "$T/w/cone/pile_step000010.lcp" "$T/w/n.npz" --force
intact "$T/w/n.npz" "$T/w/old" "convert to .npz: the old file intact"
cp "$T/w/old" "$T/w/c.dat"
limited 2 "convert over the limit" "$T/w/c.dat" convert "$T/w/a.lcp" "$T/w/c.dat" --force
intact "$T/w/c.dat" "$T/w/old" "convert: the old file intact"
cp "$T/w/old" "$T/w/s.csv"
limited 2 "simulate --csv over the limit" "$T/w/s.csv" simulate --scene ball --solver pgs --steps 200 --csv "$T/w/s.csv" --force
intact "$T/w/s.csv" "$T/w/old" "simulate --csv: the old file intact"
limited 2 "export over the limit" "$T/w/ex" export --scene pile --format lcplab --steps 10 --out "$T/w/ex"
limited 2 "generate over the limit" "$T/w/g.lcp" generate --type spd --n 200 --out "$T/w/g.lcp"
lcp experiment "$T/prof.exp" --plan "$T/w/pl"
lcp task "$T/w/pl" 0
lcp task "$T/w/pl" 1
lcp collect "$T/w/pl" --out "$T/w/c" --no-plot
cp "$T/w/c/prof.csv" "$T/w/prof.csv.0"
limited 2 "collect --force over the limit" "$T/w/c/" collect "$T/w/pl" --out "$T/w/c" --force --no-plot
intact "$T/w/c/prof.csv" "$T/w/prof.csv.0" "collect: the old CSV intact"
lcp experiment "$T/prof.exp" --out "$T/w/e" --no-plot
cp "$T/w/e/prof.csv" "$T/w/eprof.csv.0"
sed 's/tol 1e-6/tol 1e-7/' "$T/prof.exp" >"$T/prof7.exp"
limited 2 "experiment --force over the limit" "$T/w/e/" experiment "$T/prof7.exp" --out "$T/w/e" --force --no-plot
intact "$T/w/e/prof.csv" "$T/w/eprof.csv.0" "experiment: the old CSV intact"
if [ "$has_gnuplot" -eq 1 ] && [ -s "$T/fg/mine.pdf" ]; then
  cp "$T/fg/mine.pdf" "$T/mine.pdf.1"
  cp "$T/fg/mine.png" "$T/mine.png.1"
  limited 12 "figure over the limit: gnuplot's cut files are refused" "$T/fg/mine.p" \
    figure profile "$T/o3/prof.csv" --csv2 "$T/o3/prof_profile.csv" --out "$T/fg/mine" --force
  if cmp -s "$T/fg/mine.pdf" "$T/mine.pdf.1" && cmp -s "$T/fg/mine.png" "$T/mine.png.1"; then
    pass "figure over the limit: the whole old figure kept"
  else
    fail "figure over the limit" "the figure changed"
  fi
  lcp collect "$T/w/pl" --out "$T/w/cf"
  cp "$T/w/cf/prof.csv" "$T/w/cfprof.csv.0"
  limited 12 "collect with figures over the limit: a cut figure is an error" "$T/w/cf/prof.p" \
    collect "$T/w/pl" --out "$T/w/cf" --force
  # the CSVs fit under this limit (published whole; their preamble says when): the same rows
  if [ "$(rows "$T/w/cf/prof.csv")" = "$(rows "$T/w/cfprof.csv.0")" ]; then
    pass "collect with figures over the limit: the CSV whole"
  else
    fail "collect with figures over the limit" "prof.csv's rows changed"
  fi
  cut=
  for f in "$T"/w/cf/*.pdf "$T"/w/cf/*.png; do
    [ -e "$f" ] || continue
    case $f in
      *.pdf) tail -c 32 "$f" | grep -q '%%EOF' || cut="$cut $(basename "$f")" ;;
      *.png) [ "$(tail -c 8 "$f" | od -An -c | tr -d ' \n')" = 'IEND256B`202' ] || cut="$cut $(basename "$f")" ;;
    esac
  done
  if [ -z "$cut" ]; then pass "collect with figures over the limit: no figure cut short in place"; else fail "collect with figures over the limit" "cut short:$cut"; fi
else
  echo "SKIP: gnuplot missing: no figure checks under a file size limit"
fi

tst_done
