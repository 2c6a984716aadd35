#!/bin/sh
# test_mujoco_samples.sh -- MuJoCo's samples as written, each that loads run
# for its first second in lcplab (`simulate --model FILE`, no flag: the
# file's own representation, reduced coordinates for these trees) and in
# MuJoCo's own step of the same file (the project's harness
# experiments/peers/peer_mujoco_model, at lcplab's dt): issue 80, item 6.
#
# Expected values:
#   - the largest displacement of any body's centre of mass after 1 s
#     (max_body_displacement of both summaries) within 20 % of MuJoCo's, or
#     both under 1 mm: humanoid.xml (measured 2026-11-27: 1.3077 m against
#     1.3196 m), 22_humanoids.xml (1.3078 / 1.3196; left out where the
#     heavy cases run short, tst_short_runs in tst_cli_lib.sh: under the
#     sanitizers the two took 15 s of CPU); humanoid100.xml with no flag
#     (its cylinders' condim 4 a torsional row since 2026-11-28: before,
#     refused without --approximate, exit 2): 3.902 / 3.930 m;
#   - servos at zero control on joints are joint springs and dampers
#     (libmodels/mjcf_actuators.c): a 1 kg body on a vertical slide held by
#     a position servo (kp 100) and a velocity servo (kv 20, critical)
#     settles m g / kp = 0.0981 m down, in both representations and in
#     MuJoCo (to 1e-6); a 1 kg bob on a 0.5 m arm on a horizontal hinge,
#     a position servo of kp 5 and gear 2 (stiffness kp gear^2 = 20) and a
#     joint damping of 2: lcplab's sag within 1 % of MuJoCo's; a servo with
#     a force limit, refused by name;
#   - slider_crank.xml: compared as the others (its slider-crank
#     transmissions mapped, reduced coordinates), and with a control;
#   - arm26.xml (tendon_arm/): its six muscles' passive forces through
#     their spatial tendons (sites, wrap cylinders with side sites;
#     libdynamics/tendon_spatial.c) move it: compared as the others
#     (measured 2026-11-28: 0.2284965 m against MuJoCo's 0.2285098 m over
#     200 steps of 0.005 s; held to 0.1 %; over 2.5 s 0.729066 m against
#     0.729084 m); with its muscles driven (--ctrl SE=0.5,BF=1: their
#     activation dynamics) 1.0789 m against 1.0785 m, held to 1 % (where a
#     muscle pulls a joint into its limit, MuJoCo's soft limit and lcplab's
#     hard one part by a few tenths of a percent, more over seconds).
#     Before: refused by name (exit 2, "tendon 'SF': spatial tendons are not
#     simulated").  The file in maximal coordinates is refused by name;
#   - tests/models/tendon_wrap.xml: motors on spatial tendons wrapped
#     around a cylinder, a helix on it and a sphere, under --ctrl, against
#     MuJoCo's step (each within 1e-6).
# The samples (package libmujoco-samples) are skipped where absent, the
# whole test where the harness is not built.  Environment as test_cli.sh.
# Last line "N passed, M failed".
TST_NAME=test_mujoco_samples
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

PEER=${LCPLAB_BUILDDIR:-.}/experiments/peers/peer_mujoco_model
M=/usr/share/mujoco/model
if [ ! -x "$PEER" ] || [ ! -d "$M" ]; then
  echo "SKIP: $PEER is not built or $M is absent (libmujoco-samples)"
  echo "0 passed, 0 failed"
  exit 77
fi
awk_true() { awk "BEGIN { exit !($1) }"; }
jnum() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | head -n 1; }

# compare FILE [FLAGS...]: one second in both, displacements compared
compare() {
  f=$M/$1
  shift
  [ -f "$f" ] || {
    echo "SKIP: $f absent"
    return
  }
  lcp simulate --model "$f" "$@" --steps 1
  dt=$(jnum dt "$T/out")
  steps=$(awk "BEGIN { printf \"%d\", 1 / $dt + 0.5 }")
  lcp simulate --model "$f" "$@" --steps "$steps"
  cp "$T/out" "$T/lab.json"
  a=$(jnum max_body_displacement "$T/lab.json")
  coords=$(sed -n 's/.*"coordinates":"\([a-z]*\)".*/\1/p' "$T/lab.json")
  lrc=$rc
  "$PEER" "$f" --dt "$dt" --steps "$steps" >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  if [ "$lrc" -eq 0 ] && [ -n "$a" ] && [ -n "$b" ] &&
    awk_true "($a < 1e-3 && $b < 1e-3) || (($a - $b)^2 <= 0.04 * $b^2)"; then
    pass "$(basename "$f") $*: $a m in lcplab ($coords), $b m in MuJoCo over ${steps} steps of $dt s"
  else
    fail "$(basename "$f") $*" "lcplab exit $lrc, $a m ($coords) against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
}

compare humanoid/humanoid.xml
if ! tst_short_runs; then
  compare humanoid/22_humanoids.xml
  compare humanoid100/humanoid100.xml
fi

# ---- servos at zero control: joint springs (hand-derived and MuJoCo's) ----------
printf '<mujoco><option timestep="0.002"/><worldbody><body name="m" pos="0 0 1"><joint name="s" type="slide" axis="0 0 1"/><inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/><geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body></worldbody><actuator><position name="p" joint="s" kp="100"/><velocity name="v" joint="s" kv="20"/></actuator></mujoco>\n' >"$T/servo.xml"
"$PEER" "$T/servo.xml" --steps 1500 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
for c in reduced maximal; do
  lcp simulate --model "$T/servo.xml" --coordinates "$c" --steps 1500
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && awk_true "($a - 0.0981)^2 < 1e-12 && ($b - 0.0981)^2 < 1e-12"; then
    pass "a slide held by position and velocity servos ($c): settles m g / kp down ($a m; MuJoCo $b m)"
  else
    fail "slide servo, $c" "exit $rc, $a m, MuJoCo $b m, 0.0981 expected: $(cat "$T/err")"
  fi
done
printf '<mujoco><option timestep="0.002"/><worldbody><body name="arm" pos="0 0 1"><joint name="h" type="hinge" axis="0 1 0" damping="2"/><inertial pos="0.5 0 0" mass="1" diaginertia="0.001 0.001 0.001"/><geom type="sphere" pos="0.5 0 0" size="0.05" contype="0" conaffinity="0"/></body></worldbody><actuator><position name="p" joint="h" kp="5" gear="2"/></actuator></mujoco>\n' >"$T/arm.xml"
"$PEER" "$T/arm.xml" --steps 2000 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
lcp simulate --model "$T/arm.xml" --steps 2000
a=$(jnum max_body_displacement "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.05 && ($a - $b)^2 < 1e-4 * $b^2"; then
  pass "a hinge with a geared position servo and damping: sags as in MuJoCo ($a m; MuJoCo $b m)"
else
  fail "hinge servo with gear" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
fi
sed 's|kp="5" gear="2"|kp="5" gear="2" forcelimited="true" forcerange="-1 1"|' "$T/arm.xml" >"$T/lim.xml"
expect_err "a servo's force limit: refused, named" "actuator 'p': a servo's force limit" \
  simulate --model "$T/lim.xml" --steps 5

# ---- ctrl: motor, position and velocity actuators driven (issue 80, item 5) --------
# tests/models/ctrl_actuators.xml, one body per actuator, 1 s at its dt of
# 0.002 s under `--ctrl`, against MuJoCo's step with the same ctrl: each
# control moves one body most (the largest displacement is that body's):
#   height=0.2  the lift's position servo (kp 400, damping 40, 2 kg) settles
#               0.2 - m g / kp = 0.15095 m up (MuJoCo 0.150961);
#   torque=3    the motor's ctrl clamped to its ctrlrange (1), gear 2: the
#               spinner turns (MuJoCo 0.98317 m);
#   0=-0.4      the same motor by index, the other way;
#   speed=2     the velocity servo (kv 0.5, gear 1.5) on the wheel
#               (MuJoCo 0.35867 m; lcplab 0.35803: MuJoCo's damping
#               integration differs by 0.2 %);
#   pull=0.3    a motor (gear 0.8) on a fixed tendon q_left - 0.5 q_right
#               (MuJoCo 0.29184 m).
# Each within 1 % of MuJoCo's.  Before --ctrl existed: exit 2 (an unknown
# option).  Then a slide on the world along -z with a range, in reduced
# coordinates: MuJoCo stops it at the range's 0.5 m; before the sign of a
# joint to the world was fixed (libdynamics/redmax_model.c) lcplab's
# limit row was mirrored (0.02 m).
CA=${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/ctrl_actuators.xml
for c in height=0.2 torque=3 0=-0.4 speed=2 pull=0.3; do
  "$PEER" "$CA" --steps 500 --ctrl "$c" >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  lcp simulate --model "$CA" --steps 500 --ctrl "$c"
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.1 && ($a - $b)^2 < 1e-4 * $b^2"; then
    pass "--ctrl $c: $a m, MuJoCo $b m"
  else
    fail "--ctrl $c" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
done
expect_err "--ctrl: an unknown actuator, named" "--ctrl: no actuator 'nosuch'" \
  simulate --model "$CA" --steps 5 --ctrl nosuch=1
expect_err "--ctrl: a value that is not a number, named" "--ctrl: 'speed=nan': the value is not a finite number" \
  simulate --model "$CA" --steps 5 --ctrl speed=nan
expect_err "--ctrl in maximal coordinates: refused, the actuator named" \
  "--ctrl: ctrl[0] (actuator 'torque'): controls drive actuators in reduced coordinates only" \
  simulate --model "$CA" --steps 5 --ctrl torque=1 --coordinates maximal
expect_err "--ctrl on a built-in scene: refused" "--ctrl sets a model file's actuator controls" \
  simulate --scene ball --steps 5 --ctrl a=1
# ---- fixed tendons' limits and springs (issue 80, item 5) --------------------------
# tests/models/tendon_limit.xml: a two-hinge arm falls; the tendon 'stop'
# (shoulder + elbow) limited to [-0.5, 0.4] is a unilateral row of joint
# space (world_reduced.c), the tendon 'spring' (shoulder - elbow,
# stiffness 4, damping 0.2) joint-space forces, explicit as MuJoCo's Euler.
# Largest displacement after 1 s within 2 % of MuJoCo's step (measured
# 2026-11-28: 0.31300 m against 0.31127 m; without the limit both 1.01429
# m, so the limit's row is what holds the forearm up), and the spring alone
# (the limit taken out) to 1e-6 of MuJoCo's (1.01429384633129 in both).
# Before: refused ("a fixed tendon's limit ... is not simulated", exit 2).
# In maximal coordinates: refused by name; a tendon's frictionloss: refused.
TL=${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/tendon_limit.xml
sed 's|limited="true" range="-0.5 0.4"|limited="false"|' "$TL" >"$T/spring.xml"
for f in "$TL" "$T/spring.xml"; do
  tol=4e-4
  [ "$f" = "$TL" ] || tol=1e-12
  "$PEER" "$f" --steps 500 >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  lcp simulate --model "$f" --steps 500
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.1 && ($a - $b)^2 < $tol * $b^2"; then
    pass "fixed tendons, $(basename "$f"): $a m, MuJoCo $b m"
  else
    fail "fixed tendons, $(basename "$f")" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
done
# a tendon across two trees (ctrl_actuators.xml's 'couple', q_left - 0.5
# q_right, two bodies each hinged to the world) limited to [-0.3, 0.3]
# and pulled by its motor: its row moves both trees; within 1 % of
# MuJoCo's (measured 0.080917 m against 0.080986 m; 0.29184 m unlimited)
sed 's|<fixed name="couple">|<fixed name="couple" limited="true" range="-0.3 0.3">|' "$CA" >"$T/couple.xml"
"$PEER" "$T/couple.xml" --steps 500 --ctrl pull=0.3 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
lcp simulate --model "$T/couple.xml" --steps 500 --ctrl pull=0.3
a=$(jnum max_body_displacement "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.05 && ($a - $b)^2 < 1e-4 * $b^2"; then
  pass "a limited tendon across two trees, --ctrl pull=0.3: $a m, MuJoCo $b m"
else
  fail "a limited tendon across two trees" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
fi
expect_err "a fixed tendon's limit in maximal coordinates: refused, named" \
  "tendon_limit.xml: tendon 'stop': a fixed tendon's limit, stiffness and damping (a row and forces in joint space) are simulated in reduced coordinates only" \
  simulate --model "$TL" --steps 5 --coordinates maximal
sed 's|<fixed name="stop"|<fixed name="stop" frictionloss="0.5"|' "$TL" >"$T/m.xml"
expect_err "a fixed tendon's frictionloss: refused, named" \
  "m.xml: tendon 'stop': a fixed tendon's frictionloss (a friction coupling its joints) is not simulated" \
  simulate --model "$T/m.xml" --steps 5
# ---- closed loops: equality connect and weld in reduced coordinates (item 5) ------
# tests/models/four_bar.xml: a four-bar linkage closed by <connect>; with no
# flag it runs in reduced coordinates (before: maximal, a file with an
# equality; --coordinates reduced refused it), the connect a cut joint whose
# rows are mapped to joint space (world_reduced.c).  Largest displacement
# after 1 s within 20 % of MuJoCo's (measured 2026-11-28: 0.30433 m against
# 0.33880 m; maximal coordinates 0.30266 m: MuJoCo's soft connect drifts
# up to 1.25 cm), the loop's error (joint_error_max: the connect's anchors
# apart) under 1 mm (measured 4.2e-4 m).  Then a <weld> closing a loop of
# two hinge chains (the welded pair a rigid coupler): after 0.5 s within
# 5 % (0.55131 m against 0.54347 m; later the phases part, MuJoCo's weld
# drifting 3.1 cm) and its anchors under 2 mm apart (1.2e-3 m).  And the
# four-bar's pin as a hinge closing the loop, two connects a unit apart on
# its axis (as lcplab's writer writes one): six rows for five
# constraints, redundant, which dantzig takes (0.30433 m again, MuJoCo
# 0.33763 m).
FB=${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/four_bar.xml
printf '<mujoco><option timestep="0.002"/><worldbody><body name="l1" pos="0 0 1"><joint name="a1" type="hinge" axis="0 1 0"/><inertial pos="0.1 0 0.1" mass="0.5" diaginertia="0.004 0.004 0.004"/><body name="l2" pos="0.2 0 0.2"><joint name="a2" type="hinge" axis="0 1 0"/><inertial pos="0.2 0 0" mass="1" diaginertia="0.001 0.015 0.015"/></body></body><body name="m1" pos="1 0 1"><joint name="b1" type="hinge" axis="0 1 0"/><inertial pos="-0.05 0 0.15" mass="0.5" diaginertia="0.004 0.004 0.004"/><body name="m2" pos="-0.1 0 0.3"><joint name="b2" type="hinge" axis="0 1 0"/><inertial pos="-0.15 0 -0.05" mass="0.5" diaginertia="0.001 0.004 0.004"/></body></body></worldbody><equality><weld name="rigid" body1="l2" body2="m2"/></equality></mujoco>\n' >"$T/weld.xml"
sed 's|<connect name="loop" body1="coupler" body2="rocker" anchor="0.6 0 0.1902"/>|&<connect name="loop2" body1="coupler" body2="rocker" anchor="0.6 1 0.1902"/>|' "$FB" >"$T/hinge_loop.xml"
for c in "$FB 500 0.04 1e-3" "$T/hinge_loop.xml 500 0.04 1e-3" "$T/weld.xml 250 0.0025 2e-3"; do
  set -- $c
  "$PEER" "$1" --steps "$2" >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  lcp simulate --model "$1" --steps "$2"
  a=$(jnum max_body_displacement "$T/out")
  je=$(jnum joint_error_max "$T/out")
  coords=$(sed -n 's/.*"coordinates":"\([a-z]*\)".*/\1/p' "$T/out")
  if [ "$rc" -eq 0 ] && [ "$coords" = reduced ] && [ -n "$b" ] && [ -n "$je" ] &&
    awk_true "$b > 0.1 && ($a - $b)^2 <= $3 * $b^2 && $je < $4"; then
    pass "a closed loop, $(basename "$1"), no flag ($coords): $a m, MuJoCo $b m; loop error $je m"
  else
    fail "a closed loop, $(basename "$1")" "exit $rc ($coords), $a m against MuJoCo's $b m, loop error $je m: $(cat "$T/err" "$T/mj.err")"
  fi
done
# what the ctrl model may not hold: refused by name (item 5: a servo on a
# tendon, whose coupling is not built; a medium)
sed 's|<motor name="pull" tendon="couple" gear="0.8"/>|<position name="pull" tendon="couple" kp="3"/>|' "$CA" >"$T/m.xml"
expect_err "a servo on a tendon: refused, named" \
  "m.xml: actuator 'pull': a servo or activation dynamics on a tendon" simulate --model "$T/m.xml" --steps 5
sed 's|<option timestep="0.002"/>|<option timestep="0.002" density="1.2" viscosity="0.00002"/>|' "$CA" >"$T/m.xml"
expect_err "a medium's density and viscosity: refused, named" \
  "m.xml: option density, viscosity and wind (a medium's forces) are not simulated" \
  simulate --model "$T/m.xml" --steps 5
# geom margin and gap (MuJoCo 2.2.2's rule: a pair's margin and gap the
# larger of its two geoms'; a contact detected closer than the margin,
# active closer than margin - gap, held there): a sphere of radius 0.1
# dropped from 0.3 m onto a plane, margins 0.04 (the floor, from
# <default>) and 0.05 (the ball), the ball's gap 0.02, rests margin - gap
# = 0.03 m above the floor: displaced 0.17 m (lcplab's hard contact, up
# to its 0.5 mm slop, in both representations; MuJoCo's soft one 0.17037
# m, measured 2026-11-28).  The sum of the margins (MuJoCo 3's rule) would
# give 0.13 m.  Before: refused ("margin and gap ... are not mapped").
printf '<mujoco><option timestep="0.002"/><default><geom margin="0.04"/></default><worldbody><geom name="floor" type="plane" size="2 2 0.1"/><body name="ball" pos="0 0 0.3"><freejoint/><geom name="ball" type="sphere" size="0.1" mass="1" margin="0.05" gap="0.02"/></body></worldbody></mujoco>\n' >"$T/gap.xml"
"$PEER" "$T/gap.xml" --steps 500 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
for c in reduced maximal; do
  lcp simulate --model "$T/gap.xml" --steps 500 --coordinates "$c"
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && [ -n "$a" ] &&
    awk_true "$a >= 0.17 - 1e-9 && $a <= 0.1705 && ($a - $b)^2 < 1e-6"; then
    pass "geom margin and gap ($c): rests margin - gap = 0.03 m up ($a m; MuJoCo $b m)"
  else
    fail "geom margin and gap, $c" "exit $rc, $a m against MuJoCo's $b m, 0.17 expected: $(cat "$T/err")"
  fi
done
# written back by lcplab's writer (margin and gap on the shapes) and read
# again: the same rest
lcp simulate --model "$T/gap.xml" --save-model "$T/gap_saved.xml"
lcp simulate --model "$T/gap_saved.xml" --steps 500
a=$(jnum max_body_displacement "$T/out")
if [ "$rc" -eq 0 ] && grep -q 'gap="0.02"' "$T/gap_saved.xml" && [ -n "$a" ] &&
  awk_true "$a >= 0.17 - 1e-9 && $a <= 0.1705"; then
  pass "geom margin and gap saved and read back: $a m"
else
  fail "geom margin and gap saved and read back" "exit $rc, $a m, 0.17 expected: $(cat "$T/err")"
fi
# a negative gap (active before detected: MuJoCo's contact appears inside
# margin - gap and vanishes above the margin, a band no hard contact can
# hold): refused, the file, geom and attribute named
sed 's|gap="0.02"|gap="-0.01"|' "$T/gap.xml" >"$T/m.xml"
expect_err "a geom's negative gap: refused, named" \
  "m.xml: geom 'ball': gap -0.01 < 0 (active before detected) is not mapped" \
  simulate --model "$T/m.xml" --steps 5
# and a negative margin from <default> (contacts only past a penetration,
# which the narrow phase does not find): the floor, the first geom, named
sed 's|<geom margin="0.04"/>|<geom margin="-0.01"/>|' "$T/gap.xml" >"$T/m.xml"
expect_err "a geom's negative margin: refused, named" \
  "m.xml: geom 'floor': margin -0.01 < 0 (contacts only past a penetration) is not mapped" \
  simulate --model "$T/m.xml" --steps 5
printf '<mujoco><option timestep="0.002"/><worldbody><body name="s" pos="0 0 1"><joint name="s" type="slide" axis="0 0 -1" limited="true" range="-0.02 0.5"/><inertial pos="0 0 0" mass="2" diaginertia="0.01 0.01 0.01"/><geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body></worldbody></mujoco>\n' >"$T/down.xml"
"$PEER" "$T/down.xml" --steps 500 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
lcp simulate --model "$T/down.xml" --steps 500
a=$(jnum max_body_displacement "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "($a - 0.5)^2 < 1e-6 && ($b - 0.5)^2 < 1e-4"; then
  pass "a limited slide on the world along -z (reduced): stops at 0.5 m ($a m; MuJoCo $b m)"
else
  fail "limited slide along -z" "exit $rc, $a m against MuJoCo's $b m, 0.5 expected"
fi
# a limit's margin: MuJoCo holds the limit at the margin (the range less
# it): falling along +z onto range -0.02 with margin 0.01, MuJoCo 0.01037
# m (soft), lcplab 0.01 in both representations.  Before: refused.
sed 's|axis="0 0 -1" limited="true" range="-0.02 0.5"|axis="0 0 1" limited="true" range="-0.02 0.5" margin="0.01"|' "$T/down.xml" >"$T/margin.xml"
"$PEER" "$T/margin.xml" --steps 500 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
for c in reduced maximal; do
  lcp simulate --model "$T/margin.xml" --steps 500 --coordinates "$c"
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "($a - 0.01)^2 < 1e-12 && ($b - 0.0104)^2 < 1e-6"; then
    pass "a limit's margin ($c): held at range + margin ($a m; MuJoCo $b m)"
  else
    fail "a limit's margin, $c" "exit $rc, $a m against MuJoCo's $b m, 0.01 expected: $(cat "$T/err")"
  fi
done

# slider_crank.xml: its three position servos through slider-crank
# transmissions (libdynamics/redmax.c, dyn_rm_crank), at zero control and
# with controls, against MuJoCo's step (measured: 0.105299 m at zero
# control, 0.064314 m with forward=0.05, the same to 1e-15 in both);
# refused by name in maximal coordinates.  Before: refused as written.
compare slider_crank/slider_crank.xml
SC=$M/slider_crank/slider_crank.xml
if [ -f "$SC" ]; then
  "$PEER" "$SC" --dt 0.002 --steps 500 --ctrl forward=0.05,broken=0.1 >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  lcp simulate --model "$SC" --steps 500 --ctrl forward=0.05,broken=0.1
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.01 && ($a - $b)^2 < 1e-6 * $b^2"; then
    pass "slider_crank.xml --ctrl forward=0.05,broken=0.1: $a m, MuJoCo $b m"
  else
    fail "slider_crank.xml with ctrl" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
  expect_err "slider_crank.xml in maximal coordinates: refused, the transmission named" \
    "slider_crank.xml: actuator 'forward': a slider-crank transmission (cranksite, slidersite, cranklength) is simulated in reduced coordinates only" \
    simulate --model "$SC" --coordinates maximal
fi
# arm26.xml: muscles on spatial tendons (issue 80, item 5)
compare tendon_arm/arm26.xml
A26=$M/tendon_arm/arm26.xml
if [ -f "$A26" ]; then
  # the same second held to 0.1 % (a, b: compare's; the muscles' forces
  # are MuJoCo's to 1e-9 in test_mjcf_mujoco)
  if awk_true "$b > 0.1 && ($a - $b)^2 < 1e-6 * $b^2"; then
    pass "arm26.xml over 1 s within 0.1 % of MuJoCo ($a m, $b m)"
  else
    fail "arm26.xml over 1 s within 0.1 %" "$a m against MuJoCo's $b m"
  fi
  # driven: two muscles' activations (MuJoCo's activation dynamics; the
  # activations themselves are checked against MuJoCo's in test_mjcf_mujoco)
  # over 1 s: MuJoCo 1.0785302 m, lcplab 1.0789471 (0.04 %), held to 1 %
  "$PEER" "$A26" --steps 200 --ctrl SE=0.5,BF=1 >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  lcp simulate --model "$A26" --steps 200 --ctrl SE=0.5,BF=1
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.5 && ($a - $b)^2 < 1e-4 * $b^2"; then
    pass "arm26.xml --ctrl SE=0.5,BF=1: $a m, MuJoCo $b m"
  else
    fail "arm26.xml --ctrl SE=0.5,BF=1" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
  expect_err "arm26.xml in maximal coordinates: refused, the tendon named" \
    "arm26.xml: tendon 'SF': a spatial tendon (its sites and wrap geoms) is simulated in reduced coordinates only" \
    simulate --model "$A26" --steps 5 --coordinates maximal
fi
# motors on spatial tendons (tests/models/tendon_wrap.xml's header): the
# wrap around a cylinder, a helix on it, a sphere, under a control
TW=${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/tendon_wrap.xml
for c in wrapped=0.5 helix=-0.7 sphere=-0.8; do
  "$PEER" "$TW" --steps 500 --ctrl "$c" >"$T/mj.json" 2>"$T/mj.err"
  b=$(jnum max_body_displacement "$T/mj.json")
  lcp simulate --model "$TW" --steps 500 --ctrl "$c"
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "$b > 0.01 && ($a - $b)^2 < 1e-12 * $b^2"; then
    pass "tendon_wrap.xml --ctrl $c: $a m, MuJoCo $b m"
  else
    fail "tendon_wrap.xml --ctrl $c" "exit $rc, $a m against MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
done

# rolling friction (condim 6, issue 80 item 5; tests/models/rolling_ball.xml's
# header): a ball rolls across a tilted gravity against its rolling
# resistance.  lcplab in both coordinates: the hand-derived 0.1823282 m to
# 1e-6 (condim 3 would give 0.35786 m), and within 1 % of MuJoCo's step
# (measured 2026-11-28: 0.1823282 m against 0.1826899 m).  Before: refused
# by name, exit 2 ("geom 's': condim 6 (rolling friction) is not
# simulated").
RB=${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/models/rolling_ball.xml
"$PEER" "$RB" --steps 500 >"$T/mj.json" 2>"$T/mj.err"
b=$(jnum max_body_displacement "$T/mj.json")
for c in maximal reduced; do
  lcp simulate --model "$RB" --steps 500 --coordinates "$c"
  a=$(jnum max_body_displacement "$T/out")
  if [ "$rc" -eq 0 ] && [ -n "$b" ] && awk_true "($a - 0.18232821428571)^2 < 1e-12 && ($a - $b)^2 < 1e-4 * $b^2"; then
    pass "rolling_ball.xml ($c): $a m, hand-derived 0.1823282 m, MuJoCo $b m"
  else
    fail "rolling_ball.xml ($c)" "exit $rc, $a m against 0.1823282 m and MuJoCo's $b m: $(cat "$T/err" "$T/mj.err")"
  fi
done

tst_done
