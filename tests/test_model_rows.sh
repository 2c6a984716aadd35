#!/bin/sh
# test_model_rows.sh -- a robot's joint rows in exports and summaries
# (cli/cmd_export.c, libexperiment/export.c exp_export_joint_rows_refused;
# docs/models.md, "Joint rows condensed").
#
# Expected values:
#   - export of a robot whose steps have joint rows to a format that cannot
#     hold them with its contact rows (dat with friction, hdf5; maximal or
#     reduced coordinates; with or without --global): exit 2 before the
#     run, one line naming --condense-joints, the --out folder not even
#     created (on 082b835: exit 2 at the first mixed step, 4-6 files left);
#     MuJoCo's humanoid.xml (skipped where libmujoco-samples is absent) and,
#     as variants of our own, tests/models/quadruped.urdf (8 limited hinges)
#     and the built-in chain scene;
#     (quadruped.urdf in reduced coordinates ran on 082b835 because no limit
#     was reached in 200 steps; the decision is the model's, before the run,
#     and --condense-joints writes a step without joint rows unchanged);
#   - the same exports with --condense-joints run (exit 0); the chain to a
#     frictionless dat (an MLCP: joint rows and normal rows) still runs;
#   - simulate's "joints" is the model's joint count in both coordinates:
#     quadruped.urdf 8 (its 8 revolute joints; the floating and the fixed
#     joint are none of lcplab's joints), humanoid.xml 24 (21 hinges and
#     the 3 joints of its chains' massless frames, as in maximal
#     coordinates); on 082b835 reduced coordinates said 0.
# Environment (as test_cli.sh): LCPLAB_BIN (required, else SKIP 77).  Last
# line "N passed, M failed".
TST_NAME=test_model_rows
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
QUAD=$SRC/tests/models/quadruped.urdf
HUMANOID=/usr/share/mujoco/model/humanoid/humanoid.xml

# refused_whole DESC OUTDIR ARGS...: exit 2, nothing on stdout, the last line
# of stderr naming --condense-joints (the model's notes come before it),
# OUTDIR absent
refused_whole() {
  desc=$1
  out=$2
  shift 2
  lcp "$@" --out "$out"
  if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && tail -n 1 "$T/err" | grep -q 'lcplab: export: .*--condense-joints'; then
    pass "$desc: refused before the run (exit 2), naming --condense-joints"
  else
    fail "$desc: refused before the run" "exit $rc"
  fi
  if [ -e "$out" ]; then
    fail "$desc: nothing written" "$(ls "$out" | head -3)"
  else
    pass "$desc: nothing written"
  fi
}

n=0
for fmt in dat hdf5; do
  for coords in maximal reduced; do
    for g in "" --global; do
      n=$((n + 1))
      refused_whole "quadruped $fmt $coords $g" "$T/q$n" export --model "$QUAD" \
        --coordinates "$coords" --friction cone --format "$fmt" $g --steps 200 --every 20
      if [ -f "$HUMANOID" ]; then
        a=
        [ "$coords" = maximal ] && a=--approximate
        refused_whole "humanoid $fmt $coords $g" "$T/h$n" export --model "$HUMANOID" $a \
          --coordinates "$coords" --friction cone --format "$fmt" $g --steps 200 --every 20
      fi
    done
  done
done
refused_whole "chain scene, dat, box friction" "$T/c1" export --scene chain --format dat --steps 3

# the routes the message names
lcp export --model "$QUAD" --coordinates reduced --friction cone --format hdf5 --condense-joints \
  --steps 60 --every 20 --out "$T/ok1"
if [ "$rc" -eq 0 ]; then pass "--condense-joints: the same export runs"; else fail "--condense-joints" "exit $rc"; fi
lcp export --scene chain --friction none --format dat --steps 3 --out "$T/ok2"
if [ "$rc" -eq 0 ] && [ "$(ls "$T/ok2" | wc -l)" -eq 6 ]; then
  pass "chain, frictionless dat (MLCP): runs, 3 steps, 6 files"
else
  fail "chain, frictionless dat" "exit $rc: $(ls "$T/ok2" 2>/dev/null | wc -l) files"
fi

# the summary's joints: the model's, in both coordinates
joints_are() { # DESC WANT ARGS...
  desc=$1
  want=$2
  shift 2
  lcp simulate "$@" --steps 2
  got=$(sed -n 's/.*"joints":\([0-9]*\).*/\1/p' "$T/out")
  if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
    pass "$desc: \"joints\":$want"
  else
    fail "$desc" "exit $rc, joints '$got', expected $want"
  fi
}
joints_are "quadruped, maximal" 8 --model "$QUAD"
joints_are "quadruped, reduced" 8 --model "$QUAD" --coordinates reduced
if [ -f "$HUMANOID" ]; then
  joints_are "humanoid, maximal (approximated)" 24 --model "$HUMANOID" --approximate
  joints_are "humanoid, reduced" 24 --model "$HUMANOID" --coordinates reduced
fi

tst_done
