#!/bin/sh
# test_figure_refused.sh -- a scene figure's legend names only the solvers it
# draws (issue 65, point 10): a solver that refused the problem of its first
# step on every scene of the figure (pgs on the pyramid friction model: A(i,i)
# = 0 on the auxiliary rows) has rows in the CSV (status refused, step 1) but
# no trace, so it has no legend entry; a solver that ran (lemke) has one.
# Checked on the figure's PDF text (pdftotext), for the experiment's own
# drawing and for `lcplab figure` from the CSV alone.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.
# Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_figure_refused
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
SRC=$(cd "$SRC" && pwd)
export LCPLAB_EXPERIMENTS="$SRC/experiments"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot not found"; exit 77; }
command -v pdftotext >/dev/null 2>&1 || { echo "SKIP: pdftotext not found"; exit 77; }

cat >"$T/acc.exp" <<'EOF2'
experiment accuracy acc
solvers pgs lemke
scene pyramid layers=2 steps=20
friction pyramid
EOF2
(cd "$T" && "$BIN" experiment acc.exp --out "$T/o" >"$T/out" 2>"$T/err")
rc=$?
refused=$(grep -v '^#' "$T/o/acc.csv" | awk -F, '$2 == "pgs" && $5 == "1" && $13 == "refused"' | wc -l)
if [ "$rc" -eq 0 ] && [ "$refused" -ge 1 ] && [ -s "$T/o/acc.pdf" ]; then
  pass "pgs refuses the pyramid friction model at step 1 (a refused row with a step), lemke runs"
else
  fail "the experiment" "exit $rc, refused rows $refused; $(tail -n 3 "$T/err")"
fi

# legend_has PDF NAME: NAME is a line of the figure's text
legend_has() { pdftotext "$1" - 2>/dev/null | grep -qx "$2"; }
for pdf in "$T/o/acc.pdf" redrawn; do
  if [ "$pdf" = redrawn ]; then
    lcp figure accuracy "$T/o/acc.csv" --out "$T/redrawn" --scripts "$SRC/experiments"
    pdf=$T/redrawn.pdf
  fi
  if [ -s "$pdf" ] && legend_has "$pdf" lemke && ! legend_has "$pdf" pgs; then
    pass "$(basename "$pdf"): the legend names lemke and not pgs, which drew nothing"
  else
    fail "$(basename "$pdf"): legend" "$(pdftotext "$pdf" - 2>/dev/null | tr '\n' ' ' | head -c 300)"
  fi
done
tst_done
