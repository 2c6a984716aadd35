#!/bin/sh
# test_campaign_models.sh -- a model line's results are keyed on the
# content of every file its model read opens (experiments/CAMPAIGNS.md,
# "Results keyed by content"; issue 86, items 4 and 5):
#   4. a drift section's `scene model=FILE` line: editing FILE (friction
#      0.5 -> 0.9 on a box on a 0.6 rad slope: it slides, then sticks),
#      a file it <include>s, or a mesh it references reruns the task
#      ("0 resumed") and the merged CSV holds the row a fresh run gives;
#      an untouched model is resumed ("1 tasks (1 resumed)"); a plan's
#      task whose model file changed since the plan was made does not run
#      (its result says so, collect exits 3);
#   5. a profile section's export of the line (friction=box): after the
#      same edits the export is written again (the exported problem's mu is
#      0.9, the mesh's new size changes it) and its tasks rerun; two model
#      files of one base name in two folders each export their own problem
#      (on 082b835 the second line reused the first's export by its label).
# Expected values come from a fresh run into another folder (the rows of
# the same files run once), and mu from the file's own friction.
#
# Environment: LCPLAB_BIN (required, else SKIP).  Exit: 0 all passed, 1 any
# failure, 77 skipped.

TST_NAME=test_campaign_models
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

# The step-60 row of a drift CSV, box friction.
last_row() { grep -v '^#' "$1" | awk -F, '$4 == "box" && $5 == 60'; }
# The friction coefficients of an exported problem file (its mu line).
export_mu() { awk 'f { print; exit } /^mu$/ { f = 1 }' "$1"; }

# A 0.2 m box resting on a plane tilted by 0.6 rad (tan 0.6 = 0.68): it
# slides at mu 0.5, sticks at mu 0.9.
cat >"$T/m.xml" <<'EOF'
<mujoco model="slope">
  <compiler angle="radian"/>
  <option timestep="0.01"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" euler="0.6 0 0" friction="0.5 0 0"/>
    <body name="box" pos="0 -0.0565 0.0827" euler="0.6 0 0">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" friction="0.5 0 0"/>
    </body>
  </worldbody>
</mujoco>
EOF
# The same box as a mesh, its body in an included file, the mesh in meshdir.
mkdir -p "$T/inc/parts" "$T/inc/meshes"
cat >"$T/inc/top.xml" <<'EOF'
<mujoco model="inc">
  <compiler angle="radian" meshdir="meshes"/>
  <option timestep="0.01"/>
  <asset>
    <mesh name="blk" file="blk.obj"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" euler="0.6 0 0" friction="0.5 0 0"/>
    <include file="parts/box.xml"/>
  </worldbody>
</mujoco>
EOF
cat >"$T/inc/parts/box.xml" <<'EOF'
<mujocoinclude>
  <body name="box" pos="0 -0.0565 0.0827" euler="0.6 0 0">
    <freejoint/>
    <geom type="mesh" mesh="blk" mass="1" friction="0.5 0 0"/>
  </body>
</mujocoinclude>
EOF
# blk.obj: a cube of half size H
write_obj() {
  h=$1
  {
    for z in -$h $h; do
      printf 'v -%s -%s %s\nv %s -%s %s\nv %s %s %s\nv -%s %s %s\n' "$h" "$h" "$z" "$h" "$h" \
        "$z" "$h" "$h" "$z" "$h" "$h" "$z"
    done
    printf 'f 1 3 2\nf 1 4 3\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n'
    printf 'f 2 3 7\nf 2 7 6\nf 3 4 8\nf 3 8 7\nf 4 1 5\nf 4 5 8\n'
  } >"$T/inc/meshes/blk.obj"
}
write_obj 0.1

printf 'experiment drift d\nsolvers pgs\nscene model=m.xml steps=60 friction=box\n' >"$T/d.exp"
printf 'experiment drift d\nsolvers pgs\nscene model=inc/top.xml steps=60 friction=box\n' \
  >"$T/di.exp"

# rerun_case DESC EXP EDIT...: runs EXP into $T/o, edits (the command
# EDIT...), runs it again into the same folder: the task must run again and
# its row be a fresh run's (into $T/f), and differ from the first.
rerun_case() {
  desc=$1
  exp=$2
  shift 2
  rm -rf "$T/o" "$T/f"
  lcp experiment "$exp" --out "$T/o" --no-plot
  before=$(last_row "$T/o/d.csv")
  "$@"
  lcp experiment "$exp" --out "$T/o" --no-plot
  a=$rc
  again=$(last_row "$T/o/d.csv")
  grep -q '1 tasks (0 resumed)' "$T/err"
  reran=$?
  lcp experiment "$exp" --out "$T/f" --no-plot
  fresh=$(last_row "$T/f/d.csv")
  if [ "$a" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$reran" -eq 0 ] && [ -n "$fresh" ] &&
    [ "$again" = "$fresh" ] && [ "$again" != "$before" ]; then
    pass "$desc: the task runs again, its row is a fresh run's"
  else
    fail "$desc" "exit $a / $rc, ran again: $([ "$reran" -eq 0 ] && echo yes || echo no); \
before [$before], after [$again], fresh [$fresh]"
  fi
}

# ---- 4: drift ------------------------------------------------------------------------------

# an untouched model is resumed (the key does not change by itself)
rm -rf "$T/o"
lcp experiment "$T/d.exp" --out "$T/o" --no-plot
lcp experiment "$T/d.exp" --out "$T/o" --no-plot
if [ "$rc" -eq 0 ] && grep -q '1 tasks (1 resumed)' "$T/err"; then
  pass "an untouched model file: its task is resumed"
else
  fail "an untouched model file: resumed" "exit $rc"
fi

rerun_case "the model file's friction 0.5 -> 0.9" "$T/d.exp" \
  sed -i 's/friction="0.5 0 0"/friction="0.9 0 0"/g' "$T/m.xml"
rerun_case "an <include>d file's friction 0.5 -> 0.9" "$T/di.exp" \
  sed -i 's/friction="0.5 0 0"/friction="0.9 0 0"/' "$T/inc/parts/box.xml"
rerun_case "the referenced mesh, half size 0.1 -> 0.12" "$T/di.exp" write_obj 0.12
write_obj 0.1
sed -i 's/friction="0.9 0 0"/friction="0.5 0 0"/' "$T/inc/parts/box.xml" "$T/m.xml"

# a plan's task whose model changed since the plan was made does not run
rm -rf "$T/pl"
lcp experiment "$T/d.exp" --plan "$T/pl"
sed -i 's/friction="0.5 0 0"/friction="0.9 0 0"/g' "$T/m.xml"
lcp task "$T/pl" 0
a=$rc
lcp collect "$T/pl" --no-plot
if [ "$a" -eq 3 ] && [ "$rc" -eq 3 ] && grep -q 'changed since the plan was made' "$T/pl/results/t000000.res"; then
  pass "a plan's task on a model edited since the plan was made: not run, collect exits 3"
else
  fail "a plan's task on an edited model" "task exit $a, collect exit $rc"
fi
sed -i 's/friction="0.9 0 0"/friction="0.5 0 0"/g' "$T/m.xml"

# ---- 5: exports ----------------------------------------------------------------------------

printf 'experiment profile p\nsolvers pgs lemke\nscene model=m.xml steps=20 friction=box\n' \
  >"$T/p.exp"
printf 'experiment profile p\nsolvers pgs lemke\nscene model=inc/top.xml steps=20 friction=box\n' \
  >"$T/pi.exp"

# export_case DESC EXP FILE EDIT...: the export of EXP in $T/e before and
# after EDIT: rewritten (differs), its tasks run again.
export_case() {
  desc=$1
  exp=$2
  file=$3
  shift 3
  rm -rf "$T/e"
  lcp experiment "$exp" --out "$T/e" --no-plot
  cp "$T/e/generated/"$file "$T/before.lcp" 2>/dev/null
  "$@"
  lcp experiment "$exp" --out "$T/e" --no-plot
  if [ "$rc" -eq 0 ] && grep -q '2 tasks (0 resumed)' "$T/err" &&
    ! cmp -s "$T/before.lcp" "$T/e/generated/"$file; then
    pass "$desc: the export is written again, its tasks rerun"
  else
    fail "$desc: export" "exit $rc"
  fi
}

export_case "the model file's friction 0.5 -> 0.9" "$T/p.exp" 'scene-m-box-k20*.lcp' \
  sed -i 's/friction="0.5 0 0"/friction="0.9 0 0"/g' "$T/m.xml"
mu=$(export_mu "$T/e/generated/"scene-m-box-k20*.lcp | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ "$mu" = "0 0.90000000000000002 " ]; then
  pass "the export after the edit has mu 0.9"
else
  fail "the export after the edit" "mu: $mu"
fi
lcp experiment "$T/p.exp" --out "$T/e" --no-plot
if [ "$rc" -eq 0 ] && grep -q '2 tasks (2 resumed)' "$T/err"; then
  pass "an export of an untouched model: reused, its tasks resumed"
else
  fail "an export of an untouched model" "exit $rc"
fi
# the section's export and `lcplab export` of the same step are one writer's (issue 81
# item 4, exp_step_problem_write): the same file, byte for byte
rm -rf "$T/ex"
lcp export --model "$T/m.xml" --friction box --steps 20 --every 20 --format lcplab --out "$T/ex"
if [ "$rc" -eq 0 ] && cmp "$T/e/generated/"scene-m-box-k20*.lcp "$T/ex/m_step000020.lcp" >"$T/cmp" 2>&1; then
  pass "a section's export is lcplab export's file of the step"
else
  fail "a section's export against lcplab export" "exit $rc: $(cat "$T/cmp") $(ls "$T/ex" 2>&1)"
fi
export_case "an <include>d file's friction 0.5 -> 0.9" "$T/pi.exp" 'scene-top-box-k20*.lcp' \
  sed -i 's/friction="0.5 0 0"/friction="0.9 0 0"/' "$T/inc/parts/box.xml"
export_case "the referenced mesh, half size 0.1 -> 0.12" "$T/pi.exp" 'scene-top-box-k20*.lcp' \
  write_obj 0.12
# two model files of one name in two folders, one section each: each line's own export
# (the mu of its own file), never the other's
mkdir -p "$T/a" "$T/b"
sed 's/friction="0.9 0 0"/friction="0.5 0 0"/g' "$T/m.xml" >"$T/a/m.xml"
sed 's/friction="0.5 0 0"/friction="0.9 0 0"/g' "$T/m.xml" >"$T/b/m.xml"
cat >"$T/two.exp" <<'EOF'
experiment profile p
solvers pgs
scene model=a/m.xml steps=20 friction=box
experiment profile q
solvers pgs
scene model=b/m.xml steps=20 friction=box
EOF
lcp experiment "$T/two.exp" --out "$T/tw" --no-plot
mus=$(for f in $(cut -f14 "$T/tw/campaign/problems.tsv" | grep -v '^path'); do
  export_mu "$f" | tr ' ' '\n' | sort -u | tr '\n' ' '
done)
if [ "$rc" -eq 0 ] && [ "$mus" = "0 0.5 0 0.90000000000000002 " ]; then
  pass "two model files of one name: each line exports its own (mu 0.5, 0.9)"
else
  fail "two model files of one name" "exit $rc, mu: $mus"
fi
tst_done
