#!/bin/sh
# test_scripts_default.sh -- where `lcplab experiment`, `collect` and
# `figure` find the figure scripts exp_KIND.gp when neither --scripts nor
# LCPLAB_EXPERIMENTS names a folder (cli/datadir.c): the build tree's
# lcplab takes the source tree's experiments/ (an installed one
# $(pkgdatadir), tests/test_install_experiment.sh), whatever the folder of
# the experiment file or the working directory:
#   - an experiment file in an empty folder gets its figures (PDF, PNG);
#   - `lcplab figure` from another folder draws the figure again;
#   - --scripts and LCPLAB_EXPERIMENTS still win: a folder without the
#     scripts gives no figure (a note), not the default's;
#   - --help names the default folder.
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  SKIP (77)
# without gnuplot.  Last line "N passed, M failed".
TST_NAME=test_scripts_default
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=$(cd "${LCPLAB_SRCDIR:-$(dirname "$0")/..}" && pwd)
command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1 || { echo "SKIP: gnuplot not found"; exit 77; }
unset LCPLAB_EXPERIMENTS

mkdir "$T/cfg" "$T/empty" "$T/elsewhere"
cat >"$T/cfg/p.exp" <<'EOF'
experiment profile p
solvers pgs lemke
generate spd 10 seed=1
repeat 1
EOF
cd "$T/elsewhere" || exit 1
lcp experiment "$T/cfg/p.exp" --out "$T/o1"
if [ "$rc" -eq 0 ] && [ -s "$T/o1/p.pdf" ] && [ -s "$T/o1/p.png" ]; then
  pass "experiment: figures from the source tree's scripts (no --scripts, no LCPLAB_EXPERIMENTS)"
else
  fail "experiment figures by default" "exit $rc, $(ls "$T/o1" 2>/dev/null | tr '\n' ' ')"
fi

lcp figure profile "$T/o1/p.csv" --csv2 "$T/o1/p_profile.csv" --out "$T/elsewhere/again"
if [ "$rc" -eq 0 ] && [ -s "$T/elsewhere/again.pdf" ]; then
  pass "figure: draws from another folder with the default scripts"
else
  fail "figure by default" "exit $rc"
fi

lcp experiment "$T/cfg/p.exp" --out "$T/o2" --scripts "$T/empty"
if [ "$rc" -eq 0 ] && [ ! -e "$T/o2/p.pdf" ] && grep -q "no figure" "$T/err"; then
  pass "--scripts wins over the default (an empty folder: no figure, a note)"
else
  fail "--scripts overrides" "exit $rc"
fi
LCPLAB_EXPERIMENTS="$T/empty" lcp figure profile "$T/o1/p.csv" --csv2 "$T/o1/p_profile.csv" --out "$T/x"
if [ "$rc" -eq 2 ] && grep -q "$T/empty/exp_profile.gp: cannot read" "$T/err"; then
  pass "LCPLAB_EXPERIMENTS wins over the default"
else
  fail "LCPLAB_EXPERIMENTS overrides" "exit $rc"
fi

lcp experiment --help
d=$(sed -n 's/.*LCPLAB_EXPERIMENTS, else \(.*\))$/\1/p' "$T/out")
if [ -n "$d" ] && [ "$(cd "$d" 2>/dev/null && pwd)" = "$SRC/experiments" ]; then
  pass "experiment --help names the source tree's experiments/ as the default"
else
  fail "experiment --help default" "'$d'"
fi
tst_done
