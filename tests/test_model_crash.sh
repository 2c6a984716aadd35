#!/bin/sh
# test_model_crash.sh -- a model file on which libmujoco itself crashes is
# contained (libmodels/mujoco_probe.c; docs/models.md, "A crash inside
# libmujoco"): every front end reports it as an input error, exit 2, one line
# naming the file and the signal, and writes nothing.
#
# Expected values:
#   - tests/models/pybullet_spherical.urdf (a massless base link, a
#     `spherical` joint, two box links) makes MuJoCo 2.2.2's mj_loadXML
#     write through a null joint (SIGSEGV, exit 139 before the containment):
#     simulate (--friction cone, --approximate, --coordinates reduced),
#     export and an experiment's `scene model=` line exit 2 with
#     "libmujoco crashed reading FILE";
#   - variants: an unknown joint type with a <limit> and a <dynamics>
#     element (other writes through the same null joint), the same joint
#     in a floating-base robot with a continuous joint;
#   - the same file with a revolute joint in place of the spherical one
#     still loads and runs (exit 0, 2 bodies): the containment refuses only
#     what crashes; so with lcplab's standard output closed (the probe's
#     pipe then may take fd 1).
# Environment (as test_cli.sh): LCPLAB_BIN (required, else SKIP 77).  Last
# line "N passed, M failed".
TST_NAME=test_model_crash
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
F="$T/pybullet_spherical.urdf"
cp "$SRC/tests/models/pybullet_spherical.urdf" "$F"

crash_contained() { # DESC FILE ARGS...
  desc=$1
  file=$2
  shift 2
  expect_err "$desc" "libmujoco crashed reading $file" "$@"
  if [ "$rc" -eq 2 ] && ! grep -q 'signal\|exit status' "$T/err"; then
    fail "$desc: the signal" "not named: $(cat "$T/err")"
  fi
}

crash_contained "simulate --friction cone: contained, exit 2" "$F" \
  simulate --model "$F" --friction cone --steps 3
crash_contained "simulate --approximate: contained" "$F" \
  simulate --model "$F" --approximate --steps 3
crash_contained "simulate --coordinates reduced: contained" "$F" \
  simulate --model "$F" --coordinates reduced --steps 3
crash_contained "export: contained" "$F" \
  export --model "$F" --format lcplab --out "$T/ex" --steps 3
if [ -e "$T/ex" ] && [ -n "$(ls -A "$T/ex")" ]; then
  fail "export of a crashing file writes nothing" "$(ls "$T/ex")"
else
  pass "export of a crashing file writes nothing"
fi

# an experiment's model line: stopped at its line, the crash named
printf 'experiment drift d\nsolvers pgs\nscene model=%s steps=3\n' "$F" >"$T/c.exp"
lcp experiment "$T/c.exp" --out "$T/eo" --no-plot
if [ "$rc" -eq 2 ] && grep -qF "libmujoco crashed reading $F" "$T/err"; then
  pass "experiment: a scene model= line that crashes libmujoco: exit 2, named"
else
  fail "experiment: scene model= of a crashing file" "exit $rc: $(cat "$T/err")"
fi

# variants: the unknown joint type with <limit> and <dynamics>, and in a
# floating-base robot with a continuous joint
sed 's|<joint name="shoulder" type="spherical">|<joint name="shoulder" type="ball"><limit lower="-1" upper="1" effort="1" velocity="1"/><dynamics damping="0.1"/>|' \
  "$F" >"$T/ball_limit.urdf"
crash_contained "variant: an unknown type with <limit>, <dynamics>: contained" \
  "$T/ball_limit.urdf" simulate --model "$T/ball_limit.urdf" --steps 3
cat >"$T/floating.urdf" <<'URDF'
<robot name="floating">
  <link name="world_base"/>
  <link name="torso">
    <inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><geometry><sphere radius="0.2"/></geometry></collision>
  </link>
  <link name="wheel">
    <inertial><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><origin xyz="0 0 -0.2"/><geometry><box size="0.1 0.1 0.3"/></geometry></collision>
  </link>
  <joint name="float" type="floating"><parent link="world_base"/><child link="torso"/><origin xyz="0 0 1"/></joint>
  <joint name="spin" type="continuous"><parent link="torso"/><child link="wheel"/><origin xyz="0.3 0 0"/><axis xyz="1 0 0"/></joint>
  <joint name="hip" type="spherical"><parent link="torso"/><child link="arm"/><origin xyz="0 0 -0.2"/></joint>
</robot>
URDF
crash_contained "variant: floating base, continuous and spherical joints: contained" \
  "$T/floating.urdf" simulate --model "$T/floating.urdf" --steps 3

# the control: the same robot with a revolute joint loads and runs
sed 's|type="spherical"|type="revolute"|' "$F" >"$T/revolute.urdf"
lcp simulate --model "$T/revolute.urdf" --steps 3
if [ "$rc" -eq 0 ] && grep -q '"bodies":2' "$T/out"; then
  pass "the same robot with a revolute joint loads and runs (2 bodies)"
else
  fail "revolute control" "exit $rc: $(cat "$T/err")"
fi

# a caller with its standard output closed: the probe's pipe may get fd 1,
# which the child must keep apart from the /dev/null it writes to
"$BIN" simulate --model "$T/revolute.urdf" --steps 3 >&- 2>"$T/err"
if grep -q 'crashed' "$T/err"; then
  fail "stdout closed: a loading file is not taken for a crash" "$(cat "$T/err")"
else
  pass "stdout closed: a loading file is not taken for a crash"
fi

tst_done
