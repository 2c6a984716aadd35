#!/bin/sh
# test_robots_mujoco.sh -- one model file in lcplab and in MuJoCo's own step,
# side by side in a scenes section (issue 62, Deliver 3; docs/models.md,
# "Compared with MuJoCo"): the harness experiments/peers/peer_mujoco_model
# as a scene peer whose command names {model}.
#
# Expected values:
#   - a free box falling in empty space, <option timestep="0.004">, 10
#     steps: both engines integrate semi-implicit Euler at the file's step
#     (the peer's {dt} is the file's timestep, as lcplab's), so both rows'
#     max_body_displacement is g h^2 K (K+1) / 2 = 9.81 (0.004)^2 55
#     = 0.0086328 m, energy_start the same -m g.c (c: the centre of mass,
#     0.3 m off the body frame: 2 kg at z = 1.3, 25.506 J), energy_end
#     that start less m g^2 h^2 K / 2 = 0.0153978 J (what semi-implicit
#     Euler gains in kinetic energy short of the potential lost): 25.4906022
#     J in both (the CSV's 7 digits); joint error 0;
#   - tests/models/quadruped.urdf (a free root, 8 hinges, sphere feet):
#     energy_start agrees to the CSV's 7 digits (the same bodies, masses, poses in
#     both), MuJoCo's joint error 0 (a tree holds its joints exactly);
#   - humanoid.xml with approximate=yes name=hum: both rows ok, lcplab's
#     start energy within 1 % of MuJoCo's (the chain bodies' 1 % masses),
#     the rows' scene hum, params "model=humanoid.xml approximate=yes";
#   - a named scene in a peer that takes only {model}: a row refused;
#     approximate= on a named scene, or not yes/no: exit 2 naming the key;
#   - the harness's --trace: the box's centre of mass after steps 1 and 2
#     (1.3 - g h^2 k (k + 1) / 2), the summary on stderr for --trace -, an
#     existing file refused (exit 2);
#   - the harness itself: a file MuJoCo cannot load, or a bad option: exit 2.
# Skipped (77) where the harness is not built.  Environment as test_cli.sh.
TST_NAME=test_robots_mujoco
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
PEER=${LCPLAB_BUILDDIR:-.}/experiments/peers/peer_mujoco_model
if [ ! -x "$PEER" ]; then
  echo "SKIP: $PEER is not built"
  echo "0 passed, 0 failed"
  exit 77
fi
awk_true() { awk "BEGIN { exit !($1) }"; }
# col FILE SOLVER NAME: the column NAME of SOLVER's row of a scenes CSV
col() {
  awk -F, -v s="$2" -v n="$3" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $4 == s { print $(c[n]); exit }' "$1"
}

# run_exp NAME LINES: a scenes section of lcplab's pgs and MuJoCo's PGS
run_exp() {
  {
    echo "external mujoco kind=scene command $PEER {model} --solver pgs --dt {dt} --steps {steps}"
    echo "experiment scenes $1"
    echo "solvers pgs mujoco"
    echo "friction box"
    echo "$2"
  } >"$T/$1.exp"
  lcp experiment "$T/$1.exp" --out "$T/$1" --jobs 1 --no-plot
}

# ---- a falling box: the same step ------------------------------------------------

cat >"$T/box.xml" <<'EOF'
<mujoco><option timestep="0.004"/><worldbody>
<body name="box" pos="0 0 1"><freejoint/><inertial pos="0 0 0.3" mass="2" diaginertia="0.1 0.1 0.1"/>
<geom type="box" size="0.1 0.1 0.1" pos="0 0 0.3"/></body></worldbody></mujoco>
EOF
run_exp fall "scene model=$T/box.xml steps=10"
csv=$T/fall/fall.csv
ok=1
for s in pgs mujoco; do
  d=$(col "$csv" "$s" max_body_displacement)
  e0=$(col "$csv" "$s" energy_start)
  e1=$(col "$csv" "$s" energy_end)
  j=$(col "$csv" "$s" joint_error_max)
  st=$(col "$csv" "$s" status)
  if [ "$st" != ok ] || ! awk_true "$d > 0.00863275 && $d < 0.00863285" ||
    ! awk_true "$e0 > 25.5059 && $e0 < 25.5061" || ! awk_true "$e1 > 25.49055 && $e1 < 25.49065" ||
    ! awk_true "$j == 0"; then
    ok=0
    fail "falling box ($s)" "status $st, displacement $d, energy $e0 -> $e1, joint error $j: $(cat "$T/err")"
  fi
done
[ "$ok" = 1 ] && pass "a falling box: lcplab and MuJoCo at the file's step, 0.0086328 m, the same energies"

# the harness's --trace (make bench-models' self-consistency): the box's
# centre of mass at the state each step reached, semi-implicit Euler:
# z_k = 1.3 - g h^2 k (k + 1) / 2: 1.29984304 after step 1, 1.29952912 after
# step 2 (the state before the step would give 1.3 at step 1); the header
# line; with --trace - the summary on stderr, --tol in it
"$PEER" "$T/box.xml" --steps 2 --tol 1e-12 --trace - >"$T/trace" 2>"$T/sum"
if [ "$(sed -n 1p "$T/trace")" = step,t,body,x,y,z ] &&
  awk -F, 'NR == 2 { a = ($1 == 1 && $3 == 1 && $6 > 1.299843035 && $6 < 1.299843045) }
    NR == 3 { b = ($1 == 2 && $6 > 1.299529115 && $6 < 1.299529125) } END { exit !(a && b && NR == 3) }' "$T/trace" &&
  grep -q '"tolerance":9.9999999999999998e-13' "$T/sum"; then
  pass "the harness's --trace: the centres of mass the steps reached; the summary on stderr"
else
  fail "the harness's --trace" "$(cat "$T/trace" "$T/sum")"
fi
echo keep >"$T/kept"
"$PEER" "$T/box.xml" --steps 2 --trace "$T/kept" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(cat "$T/kept")" = keep ] && grep -q "kept" "$T/err"; then
  pass "the harness's --trace never overwrites a file: exit 2, named"
else
  fail "--trace on an existing file" "exit $rc: $(cat "$T/err")"
fi
if [ "$(col "$csv" mujoco params)" = model=box.xml ] && [ "$(col "$csv" mujoco scene)" = box ]; then
  pass "a model line's row: scene the file's base name, params model=box.xml"
else
  fail "a model line's row" "scene '$(col "$csv" mujoco scene)', params '$(col "$csv" mujoco params)'"
fi

# ---- the quadruped: the same bodies ----------------------------------------------

run_exp quad "scene model=$SRC/tests/models/quadruped.urdf steps=20 dt=0.002"
csv=$T/quad/quad.csv
a=$(col "$csv" pgs energy_start)
b=$(col "$csv" mujoco energy_start)
j=$(col "$csv" mujoco joint_error_max)
if [ "$rc" -eq 0 ] && awk_true "($a - $b)^2 < 1e-18 * $a^2" && awk_true "$j == 0"; then
  pass "quadruped.urdf: the same start energy in both ($a J), MuJoCo's joint error 0"
else
  fail "quadruped.urdf side by side" "exit $rc, energy $a / $b, joint error $j: $(cat "$T/err")"
fi

# ---- humanoid with approximate=yes --------------------------------------------------

H=/usr/share/mujoco/model/humanoid/humanoid.xml
if [ -f "$H" ]; then
  run_exp hum "scene model=$H name=hum approximate=yes steps=10"
  csv=$T/hum/hum.csv
  a=$(col "$csv" pgs energy_start)
  b=$(col "$csv" mujoco energy_start)
  # within 10 %: the chain bodies (10 % of their body's mass) add 6.5 % (docs/models.md)
  if [ "$rc" -eq 0 ] && [ "$(col "$csv" pgs status)" = ok ] &&
    [ "$(col "$csv" mujoco status)" = ok ] && awk_true "($a - $b)^2 < 1e-2 * $b^2" &&
    [ "$(col "$csv" pgs scene)" = hum ] &&
    [ "$(col "$csv" pgs params)" = "model=humanoid.xml approximate=yes" ]; then
    pass "humanoid.xml approximate=yes: both run, start energy $a / $b J"
  else
    fail "humanoid.xml side by side" "exit $rc, energy $a / $b: $(cat "$T/err")"
  fi
else
  echo "SKIP: $H absent (libmujoco-samples)"
fi

# ---- refusals ------------------------------------------------------------------------

run_exp named "scene stack n=2 steps=5"
if [ "$rc" -eq 0 ] && [ "$(col "$T/named/named.csv" mujoco status)" = refused ] &&
  [ "$(col "$T/named/named.csv" pgs status)" = ok ]; then
  pass "a named scene in a peer that takes only {model}: refused, lcplab's row ok"
else
  fail "named scene in a model peer" "exit $rc: $(grep -v '^#' "$T/named/named.csv" 2>/dev/null)"
fi
printf 'experiment scenes x\nsolvers pgs\nscene stack n=2 approximate=yes\n' >"$T/a1.exp"
expect_err "approximate= on a named scene: exit 2, the key named" "approximate=" \
  experiment "$T/a1.exp" --out "$T/a1" --jobs 1
printf 'experiment scenes x\nsolvers pgs\nscene model=%s approximate=maybe\n' "$T/box.xml" >"$T/a2.exp"
expect_err "approximate=maybe: exit 2" "scene approximate" experiment "$T/a2.exp" --out "$T/a2" --jobs 1

"$PEER" "$T/nothing.xml" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "nothing.xml" "$T/err" && [ ! -s "$T/out" ]; then
  pass "the harness on a missing file: exit 2, the file named"
else
  fail "harness, missing file" "exit $rc: $(cat "$T/err")"
fi
"$PEER" "$T/box.xml" --solver simplex >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q -- "--solver" "$T/err"; then
  pass "the harness with a bad --solver: exit 2"
else
  fail "harness, bad option" "exit $rc: $(cat "$T/err")"
fi

tst_done
