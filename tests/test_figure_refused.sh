#!/bin/sh
# test_figure_refused.sh -- a scene figure's legend names only the solvers it
# draws (issue 65, point 10): a solver that refused the problem of its first
# step on every scene of the figure (pgs on the pyramid friction model: A(i,i)
# = 0 on the auxiliary rows) has rows in the CSV (status refused, step 1) but
# no trace, so it has no legend entry; a solver that ran (lemke) has one.
# Checked on the figure's PDF text (pdftotext), for the experiment's own
# drawing and for `lcplab figure` from the CSV alone.
#
# A profile figure counts a refusal as a failure by default (issue 86, item
# 11): enum refuses the n = 20 problem of two (its n <= 16), lemke solves
# both; the experiment's figure and `lcplab figure profile` read "enum
# (50%)" beside "lemke (100%)" (enum solved 1 of the 2 problems), and
# `--set measure=accepted` draws enum over the one it accepted, labelled
# "enum (100% of 1)" under "over accepted"; a measure other than all or
# accepted is refused (exit 2, as in an experiment file's figure line), no
# figure written.
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

cat >"$T/pr.exp" <<'EOF2'
experiment profile pr
solvers enum lemke
generate spd 8 20
tol 1e-8
min_runs 1
EOF2
(cd "$T" && "$BIN" experiment pr.exp --out "$T/op" >"$T/out" 2>"$T/err")
rc=$?
refused=$(grep -v '^#' "$T/op/pr.csv" | grep -c ',enum,.*refused')
if [ "$rc" -eq 0 ] && [ "$refused" -eq 1 ] && [ -s "$T/op/pr.pdf" ]; then
  pass "enum refuses the n = 20 problem, the profile figure is drawn"
else
  fail "the profile experiment" "exit $rc, refused rows $refused; $(tail -n 3 "$T/err")"
fi
for pdf in "$T/op/pr.pdf" redrawn; do
  if [ "$pdf" = redrawn ]; then
    lcp figure profile "$T/op/pr.csv" --csv2 "$T/op/pr_profile.csv" --out "$T/prd" \
      --scripts "$SRC/experiments"
    pdf=$T/prd.pdf
  fi
  if [ -s "$pdf" ] && legend_has "$pdf" "enum (50%)" && legend_has "$pdf" "lemke (100%)" &&
    ! pdftotext "$pdf" - | grep -q accepted; then
    pass "$(basename "$pdf"): enum (50%) of the 2 problems beside lemke (100%)"
  else
    fail "$(basename "$pdf"): the shares" "$(pdftotext "$pdf" - 2>/dev/null | tr '\n' ' ' | head -c 300)"
  fi
done
lcp figure profile "$T/op/pr.csv" --csv2 "$T/op/pr_profile.csv" --out "$T/pra" \
  --scripts "$SRC/experiments" --set measure=accepted
if legend_has "$T/pra.pdf" "enum (100% of 1)" && legend_has "$T/pra.pdf" "lemke (100% of 2)" &&
  pdftotext "$T/pra.pdf" - | grep -q "2 problems; over accepted"; then
  pass "measure=accepted: enum (100% of 1), labelled over accepted"
else
  fail "measure=accepted" "$(pdftotext "$T/pra.pdf" - 2>/dev/null | tr '\n' ' ' | head -c 300)"
fi
"$BIN" figure profile "$T/op/pr.csv" --csv2 "$T/op/pr_profile.csv" --out "$T/prx" \
  --scripts "$SRC/experiments" --set measure=mine >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "'measure=mine': measure is all .* or accepted" "$T/err" &&
  ! [ -e "$T/prx.pdf" ]; then
  pass "measure=mine is refused (exit 2), naming the values, no figure"
else
  fail "measure=mine" "exit $rc; $(cat "$T/err")"
fi
printf 'experiment profile pr\nsolvers enum\ngenerate spd 8\nfigure measure=some\n' >"$T/bad.exp"
lcp experiment "$T/bad.exp" --out "$T/ob"
if [ "$rc" -eq 2 ] && grep -q "measure=some.*measure is all" "$T/err" && ! [ -e "$T/ob/pr.csv" ]; then
  pass "an experiment file's figure measure=some is refused (exit 2) before any task"
else
  fail "figure measure=some in an experiment file" "exit $rc; $(head -3 "$T/err")"
fi
tst_done
