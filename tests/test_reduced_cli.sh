#!/bin/sh
# test_reduced_cli.sh -- the representation on the command line and in
# experiment files (docs/models.md, "Third-party models: the
# representation"): issue 62, "the user can ask for either".
#
# Expected values:
#   - --coordinates other than reduced or maximal: exit 2, the option named;
#   - a model with an equality constraint (a loop: a pin locking a hinge)
#     runs in reduced coordinates, its default since issue 80 (before:
#     refused there, maximal by default): the body stays (under 1e-6 m),
#     the pin's anchors under 1e-6 m apart; the same file runs in maximal
#     coordinates;
#   - a hinge spring at rest away from the initial pose (springref): exit 2,
#     the joint named, "use maximal coordinates";
#   - tests/models/quadruped.urdf (a free root, 8 limited hinges) in
#     reduced coordinates stands on its four sphere feet (4 contacts, kinetic
#     energy at the end < 1e-2 J) with joint error 0 (the joints hold by
#     construction), as it does in maximal coordinates (test_robots.sh);
#   - simulate's summary says "coordinates":"reduced" or "maximal", for a
#     model file and for a built-in scene;
#   - MuJoCo's humanoid.xml runs in reduced coordinates without
#     --approximate (armature and joint chains are exact there: no note of
#     either), and its exports say "coordinates":"reduced"; maximal exports
#     say "coordinates":"maximal";
#   - an experiment's `scene model=FILE coordinates=reduced` line runs, its
#     rows named FILE_reduced (the same file in maximal coordinates: FILE);
#     two drift lines of one rows' name are refused at the second line
#     (their rows would mix), name= tells them apart; a bad value stops the
#     file at its line.
#   - with no --coordinates (issue 80, item 5a) a file runs in its own
#     representation, said in the summary: reduced for a tree
#     (quadruped.urdf, door.urdf, humanoid.xml without --approximate, and
#     export's JSON lines, a loop), maximal for a spring at rest away from
#     the initial pose, a pile of free bodies, a file lcplab wrote and a
#     built-in scene; an experiment's model line without coordinates=
#     likewise, its rows named by the file and its preamble's world line
#     ending "coordinates=reduced" / "coordinates=maximal".
# The MuJoCo samples (package libmujoco-samples) are skipped where absent.
# Environment as test_cli.sh.  Last line "N passed, M failed".
TST_NAME=test_reduced_cli
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
MODELS=$SRC/tests/models
HUMANOID=/usr/share/mujoco/model/humanoid/humanoid.xml

# jnum KEY: the number KEY in the JSON line of $T/out
jnum() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$T/out" | head -n 1; }
awk_true() { awk "BEGIN { exit !($1) }"; }

expect_err "--coordinates joint: refused" "--coordinates must be reduced or maximal" \
  simulate --model "$MODELS/door.urdf" --coordinates joint

printf '<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" type="hinge" axis="0 1 0"/><geom name="g" type="sphere" size="0.1"/></body></worldbody><equality><connect name="pin" body1="a" anchor="0.1 0 0"/></equality></mujoco>\n' >"$T/loop.xml"
lcp simulate --model "$T/loop.xml" --coordinates reduced --steps 50
je=$(sed -n 's/.*"joint_error_max":\([^,}]*\).*/\1/p' "$T/out")
d=$(sed -n 's/.*"max_body_displacement":\([^,}]*\).*/\1/p' "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$je" ] && awk "BEGIN { exit !($je < 1e-6 && $d < 1e-6) }"; then
  pass "an equality under --coordinates reduced: the pin holds the hinge ($d m, anchors $je m apart)"
else
  fail "an equality under --coordinates reduced" "exit $rc, $d m, joint error $je: $(cat "$T/err")"
fi
lcp simulate --model "$T/loop.xml" --coordinates maximal --steps 5
if [ "$rc" -eq 0 ]; then
  pass "the same file runs in maximal coordinates"
else
  fail "loop in maximal coordinates" "exit $rc: $(cat "$T/err")"
fi

printf '<mujoco><worldbody><body name="door" pos="0 0 1"><joint name="h" type="hinge" axis="0 0 1" stiffness="50" springref="0.2" damping="40"/><inertial pos="0.45 0 0" mass="20" diaginertia="1.4 8 6.7"/><geom type="box" pos="0.45 0 0" size="0.4 0.02 0.9" contype="0"/></body></worldbody></mujoco>\n' >"$T/spring.xml"
expect_err "a spring at rest away from the initial pose: refused in reduced" \
  "use maximal coordinates" simulate --model "$T/spring.xml" --coordinates reduced

lcp simulate --model "$MODELS/quadruped.urdf" --coordinates reduced --steps 400 --solver nsgs \
  --friction cone --max-iter 100
if [ "$rc" -eq 0 ] && [ "$(jnum contacts_max)" = 4 ] && awk_true "$(jnum kinetic_end) < 1e-2" &&
  [ "$(jnum joint_error_max)" = 0 ] && grep -q '"coordinates":"reduced"' "$T/out"; then
  pass "quadruped.urdf, reduced: stands on its four feet, joint error 0, its summary says reduced"
else
  fail "quadruped.urdf, reduced" "exit $rc, contacts_max $(jnum contacts_max), kinetic_end $(jnum kinetic_end), joint_error_max $(jnum joint_error_max): $(cat "$T/err")"
fi

if [ -f "$HUMANOID" ]; then
  lcp simulate --model "$HUMANOID" --coordinates reduced --steps 200
  if [ "$rc" -eq 0 ] && ! grep -q "armature\|rerun with --approximate" "$T/err"; then
    pass "humanoid.xml, reduced: runs without --approximate (armature, chains exact)"
  else
    fail "humanoid.xml, reduced" "exit $rc: $(cat "$T/err")"
  fi
  lcp export --model "$HUMANOID" --coordinates reduced --format lcplab --out "$T/ex" --steps 120 \
    --every 60
  if [ "$rc" -eq 0 ] && [ "$(grep -c '"coordinates":"reduced"' "$T/out")" = 2 ]; then
    pass "export, reduced: its JSON lines say \"coordinates\":\"reduced\""
  else
    fail "export, reduced" "exit $rc: $(cat "$T/out" "$T/err")"
  fi
else
  echo "SKIP: $HUMANOID absent (libmujoco-samples)"
fi
lcp export --model "$MODELS/quadruped.urdf" --coordinates maximal --format lcplab --out "$T/exm" --steps 40 --every 40
if [ "$rc" -eq 0 ] && grep -q '"coordinates":"maximal"' "$T/out"; then
  pass "export, maximal: its JSON lines say \"coordinates\":\"maximal\""
else
  fail "export, maximal" "exit $rc: $(cat "$T/out" "$T/err")"
fi

# ---- the default: the file's own representation (issue 80, item 5a) -----------
# coords_of ARGS...: the "coordinates" of simulate's summary with ARGS
coords_of() {
  lcp simulate "$@"
  [ "$rc" -eq 0 ] && sed -n 's/.*"coordinates":"\([a-z]*\)".*/\1/p' "$T/out" | head -n 1
}
default_is() { # DESC EXPECTED ARGS...
  desc=$1
  want=$2
  shift 2
  got=$(coords_of "$@")
  if [ "$got" = "$want" ]; then
    pass "no --coordinates: $desc runs in $want coordinates"
  else
    fail "default coordinates of $desc" "got '$got', expected $want (exit $rc): $(cat "$T/err")"
  fi
}
default_is "quadruped.urdf (a tree)" reduced --model "$MODELS/quadruped.urdf" --steps 5
default_is "door.urdf (a tree)" reduced --model "$MODELS/door.urdf" --steps 5
default_is "a loop (equality connect)" reduced --model "$T/loop.xml" --steps 5
default_is "a spring at rest away from the initial pose" maximal --model "$T/spring.xml" --steps 5
printf '<mujoco><worldbody><geom type="plane" size="1 1 .1"/><body pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/></body><body pos="0 0 2"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>\n' >"$T/pile.xml"
default_is "a pile of free bodies" maximal --model "$T/pile.xml" --steps 5
lcp simulate --scene pyramid --param layers=2 --save-model "$T/saved.xml" --force
default_is "a file lcplab wrote (a built-in scene saved)" maximal --model "$T/saved.xml" --steps 5
default_is "a built-in scene" maximal --scene pyramid --param layers=2 --steps 5
lcp export --model "$MODELS/quadruped.urdf" --format lcplab --out "$T/exd" --steps 40 --every 40
if [ "$rc" -eq 0 ] && grep -q '"coordinates":"reduced"' "$T/out"; then
  pass "export --model quadruped.urdf, no --coordinates: its JSON lines say reduced"
else
  fail "export default coordinates" "exit $rc: $(cat "$T/out" "$T/err")"
fi
if [ -f "$HUMANOID" ]; then
  default_is "humanoid.xml (armature, joint chains: no --approximate)" reduced \
    --model "$HUMANOID" --steps 5
  if grep -q "armature\|--approximate" "$T/err"; then
    fail "humanoid.xml by default" "armature dropped or --approximate asked: $(cat "$T/err")"
  fi
fi

# a built-in scene in either representation: the summary says which
for c in reduced maximal; do
  lcp simulate --scene pyramid --param layers=2 --coordinates "$c" --steps 5
  if [ "$rc" -eq 0 ] && grep -q "\"coordinates\":\"$c\"" "$T/out"; then
    pass "simulate --scene pyramid --coordinates $c: the summary says \"coordinates\":\"$c\""
  else
    fail "simulate --scene pyramid --coordinates $c" "exit $rc: $(cat "$T/out" "$T/err")"
  fi
done

cp "$MODELS/quadruped.urdf" "$T/q.urdf"
# rows_named CSV NAME: the rows of a drift CSV whose scene column is NAME
rows_named() { grep -v '^#' "$1" | awk -F, -v n="$2" '$1 == n' | wc -l; }
printf 'experiment drift d\nsolvers pgs\nscene model=q.urdf coordinates=reduced steps=10\n' >"$T/r.exp"
lcp experiment "$T/r.exp" --out "$T/ro" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows_named "$T/ro/d.csv" q_reduced)" -eq 11 ]; then
  pass "experiment: scene model=FILE coordinates=reduced runs, its rows named q_reduced"
else
  fail "experiment: coordinates=reduced" "exit $rc: $(cat "$T/err")"
fi
# the same file in both representations: rows told apart; two lines of one
# name in a drift section: refused at the second (their rows would mix)
printf 'experiment drift d\nsolvers pgs\nscene model=q.urdf coordinates=reduced steps=5\nscene model=q.urdf coordinates=maximal steps=5\n' >"$T/both.exp"
lcp experiment "$T/both.exp" --out "$T/bo" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows_named "$T/bo/d.csv" q_reduced)" -eq 6 ] &&
  [ "$(rows_named "$T/bo/d.csv" q)" -eq 6 ]; then
  pass "experiment: the same model in both representations, rows q_reduced and q"
else
  fail "experiment: both representations" "exit $rc: $(cat "$T/err")"
fi
printf 'experiment drift d\nsolvers pgs\nscene model=q.urdf steps=5\nscene model=q.urdf steps=5 dt=1e-3\n' >"$T/dup.exp"
expect_err "experiment: two drift lines of one name refused at the second" \
  "dup.exp:4: scene: 'q' already names the rows of line 3" experiment "$T/dup.exp" --out "$T/do" --no-plot
printf 'experiment drift d\nsolvers pgs\nscene model=q.urdf steps=5\nscene model=q.urdf steps=5 dt=1e-3 name=q_fine\n' >"$T/named.exp"
lcp experiment "$T/named.exp" --out "$T/no" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows_named "$T/no/d.csv" q_fine)" -eq 6 ]; then
  pass "experiment: name= tells a model's second drift line apart"
else
  fail "experiment: name= in drift" "exit $rc: $(cat "$T/err")"
fi
printf 'experiment drift d\nsolvers pgs\nscene model=q.urdf coordinates=joint\n' >"$T/rb.exp"
# a model line without coordinates=: the file's own (a tree: reduced), its rows
# named by the file, the CSV preamble's world line saying which
printf 'experiment drift d\nsolvers pgs\nscene model=q.urdf steps=5\nscene model=pile.xml steps=5\n' >"$T/def.exp"
lcp experiment "$T/def.exp" --out "$T/de" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows_named "$T/de/d.csv" q)" -eq 6 ] &&
  grep -q '^# world: line 3 q: .* coordinates=reduced$' "$T/de/d.csv" &&
  grep -q '^# world: line 4 pile: .* coordinates=maximal$' "$T/de/d.csv"; then
  pass "experiment: no coordinates= on a model line: the file's own, said in the preamble"
else
  fail "experiment: default coordinates" "exit $rc: $(grep '^# world' "$T/de/d.csv") $(cat "$T/err")"
fi
expect_err "experiment: coordinates=joint stops the file at its line" "rb.exp:3: scene coordinates" \
  experiment "$T/rb.exp" --out "$T/ro2" --no-plot

# the default solver is one rule (dyn_world_default_solver) for simulate and
# experiment files: a problem section's model line without solver= writes
# its problems with the solver `simulate --model` takes (a tree in reduced
# coordinates: dantzig; before, the experiment's own default: pgs), said in
# the preamble; and the friction pyramid gets lemke (before, simulate's
# default pgs refused the pyramid's first problem: exit 2)
cp "$MODELS/quadruped.urdf" "$T/quad.urdf"
printf 'experiment profile p\nsolvers lemke\nscene model=quad.urdf steps=60\n' >"$T/ds.exp"
lcp experiment "$T/ds.exp" --out "$T/dso" --no-plot
lcp simulate --model "$MODELS/quadruped.urdf" --steps 1
if [ "$rc" -eq 0 ] && grep -q '"solver":"dantzig"' "$T/out" &&
  grep -rq '^# world: line 3 quad: .* solver=dantzig .*coordinates=reduced$' "$T/dso"; then
  pass "the default solver of a model line: simulate's (dantzig in reduced coordinates)"
else
  fail "experiment model line's default solver" "$(grep -rh '^# world' "$T/dso") $(cat "$T/err")"
fi
lcp simulate --scene stack --friction pyramid --steps 20
if [ "$rc" -eq 0 ] && grep -q '"solver":"lemke"' "$T/out" && grep -q '"failed_steps":0' "$T/out"; then
  pass "simulate --friction pyramid without --solver: lemke, the pyramid's solver"
else
  fail "pyramid default solver" "exit $rc: $(cat "$T/err")"
fi

tst_done
