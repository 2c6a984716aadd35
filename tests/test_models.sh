#!/bin/sh
# test_models.sh -- scene models as files on the command line (cli/cli_model.c;
# docs/models.md): `lcplab simulate --scene NAME --save-model FILE` writes the
# scene's MJCF and exits, `simulate --model FILE` and `export --model FILE`
# run it.
#
# Expected values:
#   - a saved scene runs to the same CSV as the scene itself, but for
#     solve_time_s (the reader restores the exact model: tests/test_mjcf.c
#     compares it record by record), for ball, incline, pile (n=60), car,
#     ragdoll, slider_crank, chain: all their kinds of shapes and joints;
#   - export --model writes the same problem files as export --scene (the
#     file names carry the model file's name without its extension);
#   - the file's timestep is the dt (saved at --dt 0.01: the JSON says
#     0.01), unless --dt is given;
#   - an existing FILE is refused without --force (exit 2, the file named,
#     left as it was), replaced with it;
#   - exit 2, one line naming the file: a file that is not MJCF, a missing
#     file, a refused feature (condim 6, named; condim 4 with the cone), --scene with --model,
#     --param with --model;
#   - an experiment's `scene model=FILE` line runs the same drift rows as
#     the scene; a model line whose file does not load stops the file there;
#   - a file name with ' " $( ) ` ; in it is saved and read, and runs
#     nothing (no file appears);
#   - libmujoco is opened only by a run that reads or writes a model file
#     (the dynamic loader's LD_DEBUG=libs trace names it for --model, not
#     for a solve; docs/models.md, "How libmujoco is loaded").
# Environment (as test_cli.sh): LCPLAB_BIN (required, else SKIP 77),
# LCPLAB_VALGRIND=1 (every run under memcheck).  Last line "N passed, M failed".
TST_NAME=test_models
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# the CSV without its solve_time_s column (the 11th)
strip_time() { cut -d, -f1-10,12- "$1"; }

same_run() { # NAME [--param k=v]...
  name=$1
  shift
  lcp simulate --scene "$name" "$@" --save-model "$T/$name.xml"
  if [ "$rc" -ne 0 ] || ! grep -q '"saved"' "$T/out"; then
    fail "$name: --save-model" "exit $rc: $(cat "$T/err")"
    return
  fi
  lcp simulate --scene "$name" "$@" --steps 40 --csv "$T/a.csv" --force
  a=$rc
  lcp simulate --model "$T/$name.xml" --steps 40 --csv "$T/b.csv" --force
  if [ "$a" -ne 0 ] || [ "$rc" -ne 0 ]; then
    fail "$name: simulate --scene / --model" "exit $a / $rc: $(cat "$T/err")"
  elif strip_time "$T/a.csv" >"$T/a2" && strip_time "$T/b.csv" >"$T/b2" &&
    cmp -s "$T/a2" "$T/b2"; then
    pass "$name: simulate --model of the saved scene: the same CSV (40 steps)"
  else
    fail "$name: simulate --model" "the CSVs differ: $(diff "$T/a2" "$T/b2" | head -4)"
  fi
}

same_run ball
same_run incline
same_run pile --param n=60
same_run car
same_run ragdoll
same_run slider_crank
same_run chain

# export --model: the same problem files as export --scene
lcp export --scene car --format lcplab --out "$T/ea" --steps 5
a=$rc
lcp export --model "$T/car.xml" --format lcplab --out "$T/eb" --steps 5
if [ "$a" -eq 0 ] && [ "$rc" -eq 0 ] && [ -f "$T/eb/car_step000005.lcp" ] &&
  diff -r "$T/ea" "$T/eb" >/dev/null; then
  pass "export --model: the same problem files as export --scene"
else
  fail "export --model" "exit $a / $rc: $(cat "$T/err"); $(diff -r "$T/ea" "$T/eb" | head -3)"
fi

# the file's timestep is the dt, unless --dt is given
lcp simulate --scene ball --dt 0.01 --save-model "$T/ball_dt.xml"
lcp simulate --model "$T/ball_dt.xml" --steps 3
if [ "$rc" -eq 0 ] && grep -q '"dt":0.01[,}]' "$T/out"; then
  pass "the file's timestep is the dt"
else
  fail "the file's timestep" "exit $rc: $(cat "$T/out" "$T/err")"
fi
lcp simulate --model "$T/ball_dt.xml" --steps 3 --dt 0.005
if [ "$rc" -eq 0 ] && grep -q '"dt":0.00500*1\{0,1\}[,}]' "$T/out"; then
  pass "--dt wins over the file's timestep"
else
  fail "--dt over the file" "exit $rc: $(cat "$T/out" "$T/err")"
fi

# no overwrite without --force
cp "$T/ball.xml" "$T/keep.xml"
# a model file's actuators are not written to MJCF: refused by name, no file
# (they were dropped, exit 0)
lcp simulate --model "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/ctrl_actuators.xml" --save-model "$T/act.xml"
if [ "$rc" -eq 2 ] && grep -q "actuator 'torque': actuators are not written" "$T/err" && [ ! -e "$T/act.xml" ]; then
  pass "--save-model of a model with actuators: refused by name, no file"
else
  fail "--save-model of a model with actuators" "exit $rc: $(cat "$T/err")"
fi
expect_err "--save-model over an existing file: refused" "exists" \
  simulate --scene car --save-model "$T/ball.xml"
if cmp -s "$T/ball.xml" "$T/keep.xml"; then
  pass "the existing file is as it was"
else
  fail "the existing file" "changed"
fi
lcp simulate --scene car --save-model "$T/ball.xml" --force
if [ "$rc" -eq 0 ] && grep -q 'name="chassis"' "$T/ball.xml"; then
  pass "--save-model --force replaces it"
else
  fail "--save-model --force" "exit $rc: $(cat "$T/err")"
fi

# bad files and usage
printf '<foo/>\n' >"$T/foo.xml"
expect_err "a file that is not MJCF: exit 2, MuJoCo's message" "foo.xml: XML Error: Unrecognized" \
  simulate --model "$T/foo.xml"
expect_err "a missing file: exit 2, the file named" "none.xml" simulate --model "$T/none.xml"
printf '<mujoco><worldbody><body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><geom name="can" type="sphere" size="0.1" condim="6"/></body></worldbody></mujoco>\n' >"$T/cyl.xml"
sed 's/condim="6"/priority="1"/' "$T/cyl.xml" >"$T/pri.xml"
expect_err "a refused feature: the element and the feature named" "geom 'can': priority is not mapped" \
  export --model "$T/pri.xml" --format lcplab --out "$T/ec"
# torsional friction (condim 4) is box friction's spin row, rolling
# friction (condim 6) its two rows more: mapped under the default
# --friction box; refused by name with the cone or the pyramid, dropped
# (and said) under --approximate (issue 80: before, condim 4 refused
# always until the torsion branch, condim 6 until this one)
sed 's/condim="6"/condim="4"/' "$T/cyl.xml" >"$T/tor.xml"
expect_err "condim 6 with --friction cone: refused, the geom named" \
  "cyl.xml: geom 'can': condim 6 (torsional and rolling friction) is simulated with box friction only" \
  simulate --model "$T/cyl.xml" --friction cone --steps 2
expect_err "condim 6 with --friction pyramid: refused, the geom named" \
  "cyl.xml: geom 'can': condim 6 (torsional and rolling friction) is simulated with box friction only" \
  simulate --model "$T/cyl.xml" --friction pyramid --solver lemke --steps 2
lcp simulate --model "$T/cyl.xml" --friction cone --approximate --steps 2
if [ "$rc" -eq 0 ] && grep -q "condim 6.*use condim 3" "$T/err"; then
  pass "condim 6 with --friction cone --approximate: runs, the rolling dropped and said"
else
  fail "condim 6, cone, --approximate" "exit $rc: $(cat "$T/err")"
fi
lcp simulate --model "$T/cyl.xml" --steps 2
if [ "$rc" -eq 0 ] && ! grep -q "condim" "$T/err"; then
  pass "condim 6 under box friction (the default): runs, no note"
else
  fail "condim 6, box" "exit $rc: $(cat "$T/err")"
fi
expect_err "condim 4 with --friction cone: refused, the geom named" \
  "tor.xml: geom 'can': condim 4 (torsional friction) is simulated with box friction only" \
  simulate --model "$T/tor.xml" --friction cone --steps 2
lcp simulate --model "$T/tor.xml" --friction cone --approximate --steps 2
if [ "$rc" -eq 0 ] && grep -q "condim 4.*use condim 3" "$T/err"; then
  pass "condim 4 with --friction cone --approximate: runs, the torsion dropped and said"
else
  fail "condim 4, cone, --approximate" "exit $rc: $(cat "$T/err")"
fi
lcp simulate --model "$T/tor.xml" --steps 2
if [ "$rc" -eq 0 ] && ! grep -q "condim" "$T/err"; then
  pass "condim 4 under box friction (the default): runs, no note"
else
  fail "condim 4, box" "exit $rc: $(cat "$T/err")"
fi
expect_err "--scene and --model: refused" "both given" \
  simulate --scene ball --model "$T/car.xml"
expect_err "--param with --model: refused" "--param" \
  simulate --model "$T/car.xml" --param n=3

# an experiment's scene line model=FILE: the same drift rows as the scene's
lcp simulate --scene car --save-model "$T/car2.xml" --force
printf 'experiment drift d\nsolvers pgs\nscene car steps=10\nscene model=car2.xml steps=10\n' >"$T/m.exp"
lcp experiment "$T/m.exp" --out "$T/mo" --no-plot
if [ "$rc" -eq 0 ] && grep -v '^#' "$T/mo/d.csv" | awk -F, '$1 == "car"' | cut -d, -f2- >"$T/r1" &&
  grep -v '^#' "$T/mo/d.csv" | awk -F, '$1 == "car2"' | cut -d, -f2- >"$T/r2" &&
  [ "$(wc -l <"$T/r1")" -eq 11 ] && cmp -s "$T/r1" "$T/r2"; then # steps 0..10
  pass "experiment: scene model=FILE runs the same rows as the scene"
else
  fail "experiment: scene model=FILE" "exit $rc: $(cat "$T/err"); $(diff "$T/r1" "$T/r2" | head -3)"
fi
printf 'experiment drift d\nsolvers pgs\nscene model=foo.xml\n' >"$T/bad.exp"
expect_err "experiment: a bad model line stops the file at its line" "bad.exp:3: scene model:" \
  experiment "$T/bad.exp" --out "$T/mo2" --no-plot
# a feature approximate= lifts: the refusal names the scene line's key, not
# the command line's --approximate (issue 86, item 12)
printf '<mujoco><worldbody><body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><geom name="can" type="sphere" size="0.1" priority="1"/></body></worldbody></mujoco>\n' >"$T/cyl.xml"
printf 'experiment drift d\nsolvers pgs\nscene model=cyl.xml steps=5\n' >"$T/cyl.exp"
lcp experiment "$T/cyl.exp" --out "$T/mo3" --no-plot
if [ "$rc" -eq 2 ] && grep -q "cyl.exp:3: .*rerun with approximate=yes (on the scene line)" "$T/err" &&
  ! grep -q -- "--approximate" "$T/err"; then
  pass "experiment: a geom priority's refusal names approximate=yes on the scene line"
else
  fail "experiment: a geom priority's refusal" "exit $rc: $(cat "$T/err")"
fi

# dropping torsion and rolling, the same on every surface (issue 80 item
# 5): approximate keeps condim 6 where the world simulates it (box
# friction) and reads it as 3 where it does not (the cone), on the command
# line (--approximate) and in an experiment (approximate=yes) alike; Python's
# load_model(approximate=True, friction=) in python/tests/test_model.py.
# tests/models/rolling_ball.xml rolls against its rolling resistance, so
# its rows differ from its condim-3 copy's.  Before: an experiment's
# approximate=yes read it as 3 under box friction too (its rows those of
# the condim-3 copy), the command line's kept it.
RB=${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/rolling_ball.xml
cp "$RB" "$T/rb6.xml"
cp "$RB" "$T/rb6a.xml"
sed 's/condim="6"/condim="3"/' "$RB" >"$T/rb3.xml"
rows() { grep -v '^#' "$T/$1/d.csv" | awk -F, -v s="$2" '$1 == s' | cut -d, -f2-; }
printf 'experiment drift d\nsolvers pgs\nscene model=rb6.xml steps=20\nscene model=rb6a.xml steps=20 approximate=yes\nscene model=rb3.xml steps=20\n' >"$T/rb.exp"
lcp experiment "$T/rb.exp" --out "$T/rbo" --no-plot
rows rbo rb6 >"$T/r6"
rows rbo rb6a >"$T/r6a"
rows rbo rb3 >"$T/r3"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/r6")" -eq 21 ] && cmp -s "$T/r6" "$T/r6a" && ! cmp -s "$T/r6" "$T/r3"; then
  pass "experiment, box friction: approximate=yes keeps condim 6 (its rows as without it)"
else
  fail "experiment, box, approximate=yes" "exit $rc: $(cat "$T/err"); $(diff "$T/r6" "$T/r6a" | head -3)"
fi
# condim 4 the same: a dumbbell of two balls of unequal sliding friction
# slides across a tilted gravity and turns, resisted by its torsion rows
# (its rows differ from the condim-3 copy's: 8 rows a step against 6).
# Before: approximate=yes gave the condim-3 rows (exit 0, rows differ).
printf '<mujoco><option timestep="0.002" gravity="3 0 -9.81"/><worldbody><geom name="floor" type="plane" size="0 0 1" friction="0.1 0 0"/><body name="bar" pos="0 0 0.1"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="0.02 0.002 0.02"/><geom name="a" type="sphere" size="0.1" pos="0 0.2 0" friction="0.1 0.05 0" condim="4"/><geom name="b" type="sphere" size="0.1" pos="0 -0.2 0" friction="0.3 0.05 0" condim="4"/></body></worldbody></mujoco>\n' >"$T/db4.xml"
cp "$T/db4.xml" "$T/db4a.xml"
printf 'experiment drift d\nsolvers pgs\nscene model=db4.xml steps=100\nscene model=db4a.xml steps=100 approximate=yes\n' >"$T/db.exp"
lcp experiment "$T/db.exp" --out "$T/dbo" --no-plot
rows dbo db4 >"$T/d4"
rows dbo db4a >"$T/d4a"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/d4")" -ge 100 ] && cmp -s "$T/d4" "$T/d4a"; then
  pass "experiment, box friction: approximate=yes keeps condim 4 (its rows as without it)"
else
  fail "experiment, box, approximate=yes, condim 4" "exit $rc: $(diff "$T/d4" "$T/d4a" | head -3)"
fi
printf 'experiment drift d\nsolvers nsgs\nscene model=rb6a.xml steps=20 approximate=yes friction=cone\nscene model=rb3.xml steps=20 friction=cone\n' >"$T/rbc.exp"
lcp experiment "$T/rbc.exp" --out "$T/rbco" --no-plot
rows rbco rb6a >"$T/c6a"
rows rbco rb3 >"$T/c3"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/c6a")" -ge 20 ] && cmp -s "$T/c6a" "$T/c3"; then
  pass "experiment, the cone: approximate=yes reads condim 6 as 3 (the condim-3 copy's rows)"
else
  fail "experiment, cone, approximate=yes" "exit $rc: $(cat "$T/err"); $(diff "$T/c6a" "$T/c3" | head -3)"
fi
printf 'experiment drift d\nsolvers nsgs\nscene model=rb6.xml steps=5 friction=cone\n' >"$T/rbr.exp"
lcp experiment "$T/rbr.exp" --out "$T/rbro" --no-plot
if [ "$rc" -ne 0 ] && grep -q "geom 's': condim 6.*box friction only" "$T/err"; then
  pass "experiment, the cone without approximate=yes: condim 6 refused, the geom named"
else
  fail "experiment, cone, no approximate" "exit $rc: $(cat "$T/err")"
fi
for fl in "" "--friction cone"; do
  # shellcheck disable=SC2086
  lcp simulate --model "$T/rb6.xml" --steps 20 --csv "$T/s6.csv" --force $fl
  a=$rc
  # shellcheck disable=SC2086
  lcp simulate --model "$T/rb6.xml" --steps 20 --csv "$T/s6a.csv" --force --approximate $fl
  b=$rc
  # shellcheck disable=SC2086
  lcp simulate --model "$T/rb3.xml" --steps 20 --csv "$T/s3.csv" --force $fl
  for f in s6 s6a s3; do cut -d, -f11 --complement "$T/$f.csv" >"$T/$f.x"; done
  if [ -z "$fl" ] && [ "$a$b$rc" = 000 ] && cmp -s "$T/s6.x" "$T/s6a.x" && ! cmp -s "$T/s6.x" "$T/s3.x"; then
    pass "command line, box friction: --approximate keeps condim 6"
  elif [ -n "$fl" ] && [ "$a" -ne 0 ] && [ "$b$rc" = 00 ] && cmp -s "$T/s6a.x" "$T/s3.x"; then
    pass "command line, $fl: refused without --approximate, read as 3 with it"
  else
    fail "command line, ${fl:-box}, --approximate" "exits $a $b $rc"
  fi
done

# a file name with shell characters: saved, read, nothing run
odd="$T/a'b\"c\$(touch ran);d\`touch ran2\`.xml"
lcp simulate --scene ball --save-model "$odd"
a=$rc
lcp simulate --model "$odd" --steps 2
if [ "$a" -eq 0 ] && [ "$rc" -eq 0 ] && [ -f "$odd" ] && [ ! -e ran ] && [ ! -e ran2 ] &&
  [ ! -e "$T/ran" ]; then
  pass "a file name with shell characters: saved, read, nothing run"
else
  fail "a file name with shell characters" "exit $a / $rc: $(cat "$T/err")"
fi
# ---- libmujoco on first use --------------------------------------------------------------
if [ -z "$VG" ]; then
  printf 'lcplab-problem 1\nn 2\nA\n2 1\n1 2\nb\n-5 -6\nend\n' >"$T/tiny.lcp"
  LD_DEBUG=libs "$BIN" solve "$T/tiny.lcp" >/dev/null 2>"$T/ld_solve"
  a=$?
  LD_DEBUG=libs "$BIN" simulate --model "$T/ball.xml" --steps 2 --csv "$T/ld.csv" \
    >/dev/null 2>"$T/ld_model"
  b=$?
  if [ "$a" -eq 0 ] && [ "$b" -eq 0 ] && ! grep -q 'libmujoco' "$T/ld_solve" &&
    grep -q 'libmujoco' "$T/ld_model"; then
    pass "libmujoco opened by a run of a model file only, not by a solve"
  else
    fail "libmujoco on first use" "exits $a, $b; solve: $(grep -c libmujoco "$T/ld_solve") \
lines, --model: $(grep -c libmujoco "$T/ld_model")"
  fi
fi
tst_done
