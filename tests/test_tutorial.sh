#!/bin/sh
# test_tutorial.sh -- docs/tutorial.md runs as written: its fenced sh blocks
# (each one command of the tutorial) are extracted from the markdown and run
# in order in one shell, in a temporary folder whose build/ is this build
# (LCPLAB_BUILDDIR), with DATA set to ../shared/datasets (LCPLAB_SHARED).  The
# two blocks that start with "# setup" (packages, build) are what `make
# check` has done already and are skipped.  Checked: at most twelve commands,
# every one exits 0, the experiment writes its CSV and (with gnuplot) its
# figure, the Python loop prints auto's lines, and (with gnuplot) Python's
# lcplab.profile draws the profile figure of lcplab.compare's rows; the
# scene the user builds ("Your own scene to a profile figure") is saved as
# MJCF, its J M^-1 J' is its problem's A to rounding, and its profile
# figures (Python's and the experiment's) are drawn.  So the page cannot drift
# from the program.
# Environment: LCPLAB_SRCDIR, LCPLAB_BUILDDIR, LCPLAB_SHARED (without its
# datasets, without the Python package, scipy or in a sanitizer build,
# LCPLAB_SAN_FLAGS: SKIP, exit 77).  Last line "N passed, M failed".
TST_NAME=test_tutorial
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
doc="${LCPLAB_SRCDIR:-$(dirname "$0")/..}/docs/tutorial.md"
data="${LCPLAB_SHARED:-}/datasets"
if [ ! -d "$data" ]; then
  echo "SKIP: $data not found (LCPLAB_SHARED): the tutorial uses its files"
  echo "0 passed, 0 failed"
  exit 77
fi
if [ -z "${LCPLAB_BUILDDIR:-}" ] || [ ! -x "$LCPLAB_BUILDDIR/cli/lcplab" ]; then
  echo "SKIP: LCPLAB_BUILDDIR is not a build folder"
  echo "0 passed, 0 failed"
  exit 77
fi

case ${LCPLAB_SAN_FLAGS:-} in
  *address*)
    # the tutorial's python3 would load the sanitized extension without its
    # runtime; the plain build runs the tutorial (run_pytest.sh runs the
    # Python tests here)
    echo "SKIP: sanitizer build (the tutorial runs in the plain build)"
    echo "0 passed, 0 failed"
    exit 77
    ;;
esac
if ! "${LCPLAB_PYTHON:-python3}" -c "import scipy.sparse" 2>/dev/null; then
  echo "SKIP: scipy not found (python3-scipy): the tutorial's own scene uses it"
  echo "0 passed, 0 failed"
  exit 77
fi
if [ ! -f "$LCPLAB_BUILDDIR/python/lcplab/_lcplab.so" ]; then
  echo "SKIP: the Python package is not built (configure: python), the tutorial uses it"
  echo "0 passed, 0 failed"
  exit 77
fi

# The blocks, each ended by a line "#--- end of block" (awk: between ```sh and ```).
awk '/^```sh$/ { on = 1; n++; print "#--- block " n; next }
     on && /^```$/ { on = 0; print "#--- end of block"; next }
     on { print }' "$doc" >"$T/blocks"
nblocks=$(grep -c '^#--- block ' "$T/blocks")
if [ "$nblocks" -ge 3 ] && [ "$nblocks" -le 12 ]; then
  pass "the tutorial has $nblocks commands (at most twelve)"
else
  fail "the tutorial's commands" "$nblocks fenced sh blocks, expected 3 to 12"
fi

# The script: every block but the setup ones, each followed by a check of
# its exit status naming the block.
awk '/^#--- block / { n = $3; skip = 0; first = 1; next }
     /^#--- end of block/ { if (!skip) print "rc=$?; [ $rc -eq 0 ] || { echo \"block " n " exited $rc\" >&2; exit 1; }"; next }
     first { first = 0; if ($0 == "# setup") { skip = 1; next } }
     !skip { print }' "$T/blocks" >"$T/run.sh"
mkdir "$T/clone"
ln -s "$LCPLAB_BUILDDIR" "$T/clone/build"
(cd "$T/clone" && DATA=$data sh "$T/run.sh") >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ]; then
  pass "every command of the tutorial exits 0"
else
  fail "the tutorial's commands" "exit $rc: $(tail -n 5 "$T/err")"
fi
if [ -s "$T/clone/results/mine.csv" ]; then
  pass "the experiment wrote results/mine.csv"
else
  fail "the experiment's CSV" "no results/mine.csv"
fi
if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
  if [ -s "$T/clone/results/mine.png" ] && [ -s "$T/clone/results/mine.pdf" ]; then
    pass "the profile figure, without --scripts"
  else
    fail "the profile figure" "no results/mine.png / .pdf: $(grep -i gnuplot "$T/err" | head -n 2)"
  fi
  for f in scene-results/myscene scene-profile; do
    if [ -s "$T/clone/$f.png" ] && [ -s "$T/clone/$f.pdf" ]; then
      pass "your own scene's profile figure $f.png / .pdf"
    else
      fail "your own scene's profile figure" "no $f.png / .pdf"
    fi
  done
  if [ -s "$T/clone/py-profile.png" ] && [ -s "$T/clone/py-profile.pdf" ]; then
    pass "lcplab.profile(compare(...), figure=...) draws the profile figure from Python"
  else
    fail "the profile figure from Python" "no py-profile.png / .pdf"
  fi
else
  echo "SKIP: gnuplot not found (the figure)"
fi
if grep -q 'Buck2_mlcp.dat' "$T/out" || grep -q '"chosen":"ipm"' "$T/out"; then
  pass "solve without --solver: auto's JSON"
else
  fail "solve without --solver" "no auto JSON in the output"
fi
if grep -qE '^lcp_CPS_1\.dat +auto +[a-z_]+ +converged' "$T/out"; then
  pass "the Python loop prints auto's line"
else
  fail "the Python loop" "$(tail -n 3 "$T/out")"
fi
if [ -s "$T/clone/scene-results/myscene.csv" ] && grep -q '<mujoco' "$T/clone/myscene.xml"; then
  pass "your own scene: saved as MJCF, its experiment's CSV written"
else
  fail "your own scene" "no myscene.xml or scene-results/myscene.csv"
fi
# J M^-1 J' + diag(cfm) against the problem's A: rounding only
if grep -qE '^[0-9]+ contacts, J \([0-9]+, [0-9]+\), max \|J M\^-1 J. - A\| = [0-9.]+e-1[0-9]$' \
  "$T/out"; then
  pass "your own scene: J M^-1 J' is the problem's A to rounding"
else
  fail "your own scene's J M^-1 J'" "$(grep contacts "$T/out" | head -n 1)"
fi
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
