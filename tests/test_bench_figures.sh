#!/bin/sh
# test_bench_figures.sh -- the benchmark scripts' figures hand gnuplot no
# path, name or value as code (experiments/README.md, "No shell ever parses
# a value"): no script calls gnuplot -e; each figure script, run through
# experiments/gp_run.sh on a tiny CSV in its format from a folder whose name
# holds ' $( ) ` ; and blanks, with values holding the same, writes its PNG
# (and PDF with pdfcairo) and runs no injected command; a value with a
# newline is refused; bench_large.sh refuses a word of its lists that is not
# a scene, a step or a number.  No benchmark is run.  (bench-fc3d, bench-pivot, bench-scenes,
# bench-stacking, bench-exports and bench-global are experiment files: their figures are
# the engine's, tests/test_experiment.sh.)
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed"; 77 without gnuplot.
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
TST_NAME=test_bench_figures
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
gp=$(command -v gnuplot) || { echo "SKIP: gnuplot not found"; exit 77; }
top=$(cd "$top" && pwd)
ex=$top/experiments
# shellcheck source=experiments/gp_run.sh
. "$ex/gp_run.sh"

# 1. no benchmark script pastes a value into gnuplot -e
# shellcheck disable=SC2016 # the pattern is the scripts' literal text
if grep -n '"\$[A-Za-z_]*" -e ' "$ex"/*.sh >"$T/out" 2>&1; then
  fail "no experiments/*.sh runs gnuplot -e" "$(head -n 3 "$T/out")"
else
  pass "no experiments/*.sh runs gnuplot -e"
fi
rm -f "$T/out"

# an injected command, in a shell or in gnuplot's system(), creates $INJ*
INJ=$T/injected
export INJ
# shellcheck disable=SC2016 # the $( ) and backquotes are the point
dir="$T/o'neil \$(touch \${INJ}1) \`touch \${INJ}2\` ; x"
# shellcheck disable=SC2016
evil="o'neil \$(touch \${INJ}3) \`touch \${INJ}4\` '; system('touch \${INJ}5'); x=' @out"
mkdir -p "$dir" || { echo "cannot create the test folder"; exit 1; }
pdf=$("$gp" -e 'print strstrt(GPVAL_TERMINALS, "pdfcairo") > 0' 2>&1)

# check_figure NAME: NAME.png (and NAME.pdf) in $dir, nothing injected, no folder left
check_figure() {
  ok=1
  [ -s "$dir/$1.png" ] || ok=0
  if [ "$pdf" = 1 ] && [ ! -s "$dir/$1.pdf" ]; then ok=0; fi
  if [ -n "$(find "$T" -name 'injected*')" ]; then ok=0; fi
  if [ -n "$(find "$dir" -name '.gp_run.*')" ]; then ok=0; fi
  if [ "$ok" = 1 ]; then pass "$1.gp: figure drawn, nothing injected"; else fail "$1.gp: figure drawn, nothing injected" "$(ls -a "$dir" "$T")"; fi
}

# 2. one tiny CSV per figure script, in the format its benchmark writes
printf 'h,formulation,joint_drift_max,energy_drift,time_per_step_s,gap_vs_reduced_m\n' >"$dir/art.csv"
for h in 1e-4 1e-3; do
  for f in maximal_direct maximal_pgs reduced_redmax; do
    echo "$h,$f,1e-6,1e-5,1e-4,1e-3" >>"$dir/art.csv"
  done
done
gp_run "$gp" "$ex/articulated.gp" "$dir/articulated" "file:data.csv=$dir/art.csv" "nlinks=20" >"$T/out" 2>&1
check_figure articulated

# 2a. bench_models.gp (make bench-models): one panel, its name a value with
# quotes, $( ), backquotes and gnuplot's system() but no blank (the panel
# names are the words of files=), nine curve blocks as bench_models.py
# writes them, one with points, the others a NaN point
{
  echo "# bench_models.py: per file (x) and curve (...): budget selfcon_m step_ms"
  printf '# x lcplab pgs_wide\n10 0.01 0.1\n30 0.001 0.2\n\n\n'
  for k in 2 3 4 5 6 7 8 9; do printf '# x curve %s\n0 NaN NaN\n\n\n' "$k"; done
} >"$dir/bm.dat"
# shellcheck disable=SC2016 # the $( ) and backquotes are the point
panel="o'neil\$(touch\${INJ}7)\`touch\${INJ}8\`;system('touch\${INJ}9');x='"
gp_run "$gp" "$ex/bench_models.gp" "$dir/bench_models" "file:data.dat=$dir/bm.dat" "files=$panel" >"$T/out" 2>&1
check_figure bench_models

# 2b. under a file size limit gnuplot may exit 0 with its files cut short (SIGXFSZ ignored,
# as lcplab ignores it): a cut figure never replaces the whole one (issue 64, finding 6)
cp "$dir/articulated.png" "$T/art.png.0"
if (
  trap '' XFSZ
  ulimit -f 8
  gp_run "$gp" "$ex/articulated.gp" "$dir/articulated" "file:data.csv=$dir/art.csv" "nlinks=20"
) >"$T/out" 2>"$T/err"; then
  fail "a figure cut short by a file size limit is refused" "gp_run returned 0"
elif ! cmp -s "$dir/articulated.png" "$T/art.png.0" || ! grep -q "cut short" "$T/err" ||
  [ -n "$(find "$dir" -name '.gp_run.*')" ]; then
  fail "a figure cut short by a file size limit is refused" "the figure changed, or no message: $(cat "$T/err")"
else
  pass "a figure cut short by a file size limit is refused, the whole one kept"
fi

# 3. a value with a newline is refused before gnuplot runs
rm -f "$dir/articulated.png"
if gp_run "$gp" "$ex/articulated.gp" "$dir/articulated" "file:data.csv=$dir/art.csv" "nlinks=a
b" >"$T/out" 2>"$T/err"; then
  fail "a value with a newline is refused"
elif ! grep -q "newline" "$T/err" || [ -e "$dir/articulated.png" ]; then
  fail "a value with a newline is refused" "no message, or a figure drawn"
else
  pass "a value with a newline is refused"
fi

# 4. bench_large.sh writes its BENCH_LARGE_* lists into experiment files:
# a word that is not what its list holds (a line of its own, a command) is
# refused with exit 2 and the list's name, before anything is made or run
bl_refuses() { # VAR VALUE
  rm -rf "$T/bl"
  rc=0
  env "$1=$2" sh "$ex/bench_large.sh" "$T/bl" "$top" >"$T/out" 2>"$T/err" || rc=$?
  if [ "$rc" = 2 ] && grep -q "$1" "$T/err" && [ ! -e "$T/bl" ] &&
    [ -z "$(find "$T" -name 'injected*')" ]; then
    pass "bench_large.sh refuses $1 '$2'"
  else
    fail "bench_large.sh refuses $1 '$2'" "exit $rc: $(cat "$T/err")"
  fi
}
# shellcheck disable=SC2016 # the $( ) is the point
bl_refuses BENCH_LARGE_SCENES 'pile:30$(touch ${INJ}6)'
bl_refuses BENCH_LARGE_SCENES 'pile:30
external x'
bl_refuses BENCH_LARGE_SCENES 'box:3'
bl_refuses BENCH_LARGE_STEPS '240 -1'
bl_refuses BENCH_LARGE_STEPS '240;x'
bl_refuses BENCH_LARGE_TOLS '1e-4 1e-6)'

tst_done
