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
expect_err "a refused feature: the element and the feature named" "geom 'can': condim 6 (rolling friction)" \
  export --model "$T/cyl.xml" --format lcplab --out "$T/ec"
# torsional friction (condim 4) is box friction's spin row: mapped under the
# default --friction box; refused by name with the cone or the pyramid,
# dropped (and said) under --approximate (issue 80: before, refused always)
sed 's/condim="6"/condim="4"/' "$T/cyl.xml" >"$T/tor.xml"
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
printf '<mujoco><worldbody><body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><geom name="can" type="sphere" size="0.1" condim="6"/></body></worldbody></mujoco>\n' >"$T/cyl.xml"
printf 'experiment drift d\nsolvers pgs\nscene model=cyl.xml steps=5\n' >"$T/cyl.exp"
lcp experiment "$T/cyl.exp" --out "$T/mo3" --no-plot
if [ "$rc" -eq 2 ] && grep -q "cyl.exp:3: .*rerun with approximate=yes (on the scene line)" "$T/err" &&
  ! grep -q -- "--approximate" "$T/err"; then
  pass "experiment: condim 6's refusal names approximate=yes on the scene line"
else
  fail "experiment: condim 6's refusal" "exit $rc: $(cat "$T/err")"
fi

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
