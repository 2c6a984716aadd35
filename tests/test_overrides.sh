#!/bin/sh
# test_overrides.sh -- the settings a model also holds (gravity, the time
# step, the materials): the model's values, unless the user gives one on the
# command line or in an experiment file, which overrides the model's for
# that run and is recorded in the summary (docs/dynamics.md, "Settings a
# model also holds").  Python's World(gravity=...) is in
# python/tests/test_overrides.py.
#
# Expected values (the ball scene: a 1 kg ball at rest at z0 = 1 m, 0.9 m
# above the floor, so no contact in these runs): semi-implicit Euler at step
# h under gravity (0, 0, -g) gives after k steps
#     v_k = -g h k,   z_k = z0 - g h^2 k (k + 1) / 2,
# so with gravity 0,0,0 the ball keeps z = 1 and v = 0 exactly, and at
# g = 1.62, h = 1/120, k = 10: z = 1 - 1.62 * 55 / 14400, v = -0.135.
#   - simulate --scene ball --gravity: that trajectory, the summary's
#     "gravity" and "overrides":["gravity"]; without --gravity: the scene's
#     -9.81 and "overrides":[];
#   - the same through --model FILE (the ball saved as MJCF), and a file whose
#     <option gravity> is 0 0 -3 keeps its -3 without --gravity;
#   - the time step: a file saved at dt 0.01 runs at 0.01, --dt 1/240 over
#     it runs at 1/240 (the fall formula at that h; "overrides":["dt"]);
#   - in reduced coordinates (a pendulum's model file) --gravity 0,0,0 keeps
#     the pendulum released at rest at rest (kinetic energy 0), the file's
#     gravity swings it;
#   - --save-model --gravity writes the given gravity into the file;
#   - export --gravity: the step's problem is that of the given gravity (an
#     8 kg box, 0.2 m at density 1000, resting on the floor: the normal rows'
#     impulses sum to m g h),
#     and the last line says "overrides":["gravity"];
#   - an experiment's `scene ball gravity=0,0,0` and `scene model=F
#     gravity=0,0,0`: energy 0 at every step (no potential, no motion), the
#     world line records gravity=0,0,0;
#   - a scene peer (given no gravity) is refused a line with gravity=, and
#     runs the same scene without it;
#   - the materials are the model's: the world line of `scene incline
#     mu=0.9` says mu=0.9, and so do the problem list's mu_min and mu_max of
#     its pyramid LCPs (mu in A), fresh and from the metadata cache; --param mu= beside --model is refused (exit 2).
TST_NAME=test_overrides
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# near A B: |A - B| <= 1e-12 (1 + |B|)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; t = b < 0 ? -b : b; exit !(d <= 1e-12 * (1 + t)) }'; }

# the trace's z and vz of body 0 at step K (file $1)
zv_at() { awk -F, -v k="$2" '$1 == k && $3 == 0 { print $6, $13 }' "$1"; }

# fall DESC TRACE K H G: the trace's body 0 at step K is the formula's
fall() {
  set -- "$1" "$2" "$3" "$4" "$5" "$(zv_at "$2" "$3")"
  zw=$(awk -v k="$3" -v h="$4" -v g="$5" 'BEGIN { printf "%.17g", 1 - g * h * h * k * (k + 1) / 2 }')
  vw=$(awk -v k="$3" -v h="$4" -v g="$5" 'BEGIN { printf "%.17g", -g * h * k }')
  z=${6% *}
  v=${6#* }
  if [ -n "$6" ] && near "$z" "$zw" && near "$v" "$vw"; then
    pass "$1: z $z v $v"
  else
    fail "$1" "z, vz '$6', expected $zw $vw"
  fi
}

# summary KEY VALUE DESC: the JSON summary ($T/err when the trace took stdout) has "KEY":VALUE
summary() {
  if grep -q "\"$1\":$2" "$T/err" "$T/out"; then pass "$3"; else fail "$3" "no \"$1\":$2"; fi
}

lcp simulate --scene ball --steps 10 --gravity 0,0,0 --trace "$T/t0.csv"
fall "scene ball --gravity 0,0,0: the ball stays" "$T/t0.csv" 10 0.0083333333333333332 0
summary gravity '\[0,0,0\]' "scene: the summary records the gravity"
summary overrides '\["gravity"\]' "scene: the summary records the override"
lcp simulate --scene ball --steps 10 --gravity 0,0,-1.62 --trace "$T/t1.csv"
fall "scene ball --gravity 0,0,-1.62: the fall formula" "$T/t1.csv" 10 0.0083333333333333332 1.62
lcp simulate --scene ball --steps 10 --trace "$T/t2.csv"
fall "scene ball: the scene's gravity without --gravity" "$T/t2.csv" 10 0.0083333333333333332 9.81
summary overrides '\[\]' "scene: no override, none recorded"

# a model file: the ball saved at dt 0.01, and one with gravity 0 0 -3 in the file
lcp simulate --scene ball --dt 0.01 --save-model "$T/ball.xml"
sed 's/gravity="0 0 -9.8100000000000005"/gravity="0 0 -3"/' "$T/ball.xml" >"$T/ball3.xml"
lcp simulate --model "$T/ball.xml" --steps 10 --gravity 0,0,0 --trace "$T/m0.csv"
fall "model --gravity 0,0,0: the ball stays" "$T/m0.csv" 10 0.01 0
summary overrides '\["gravity"\]' "model: the summary records the override"
lcp simulate --model "$T/ball3.xml" --steps 10 --gravity 0,0,-1.62 --trace "$T/m1.csv"
fall "model --gravity 0,0,-1.62 over the file's -3" "$T/m1.csv" 10 0.01 1.62
lcp simulate --model "$T/ball3.xml" --steps 10 --trace "$T/m2.csv"
fall "model: the file's gravity -3 without --gravity" "$T/m2.csv" 10 0.01 3
summary gravity '\[0,0,-3\]' "model: the summary records the file's gravity"
summary overrides '\[\]' "model: no override, none recorded"

# the time step: the file's, or --dt over it
lcp simulate --model "$T/ball.xml" --steps 10 --trace "$T/d0.csv"
fall "model: the file's timestep 0.01" "$T/d0.csv" 10 0.01 9.81
lcp simulate --model "$T/ball.xml" --steps 10 --dt 1/240 --trace "$T/d1.csv"
fall "model --dt 1/240 over the file's 0.01" "$T/d1.csv" 10 0.0041666666666666666 9.81
summary overrides '\["dt"\]' "model --dt: the summary records the override"
lcp simulate --scene ball --steps 10 --dt 1/240 --gravity 0,0,-1.62 --trace "$T/d2.csv"
fall "scene --dt 1/240 --gravity 0,0,-1.62" "$T/d2.csv" 10 0.0041666666666666666 1.62
summary overrides '\["dt","gravity"\]' "scene: both overrides recorded"

# reduced coordinates take the same rule: the pendulum released at rest stays at rest
# with --gravity 0,0,0 (kinetic energy exactly 0), and swings with the file's
lcp simulate --scene pendulum --save-model "$T/pend.xml"
lcp simulate --model "$T/pend.xml" --coordinates reduced --steps 20 --gravity 0,0,0
k0=$(grep -o '"kinetic_end":[^,]*' "$T/out")
lcp simulate --model "$T/pend.xml" --coordinates reduced --steps 20
k1=$(grep -o '"kinetic_end":[^,]*' "$T/out")
if [ "$k0" = '"kinetic_end":0' ] && [ -n "$k1" ] && [ "$k1" != '"kinetic_end":0' ]; then
  pass "reduced coordinates: --gravity 0,0,0 keeps the pendulum at rest ($k1 without)"
else
  fail "reduced coordinates and --gravity" "'$k0' / '$k1'"
fi

# --save-model with --gravity: the file holds the given gravity
lcp simulate --scene ball --gravity 0,0,-1.62 --save-model "$T/ballg.xml"
if [ "$rc" -eq 0 ] && grep -q 'gravity="0 0 -1.6' "$T/ballg.xml"; then
  pass "--save-model --gravity: the file holds the given gravity"
else
  fail "--save-model --gravity" "exit $rc; $(grep -o 'gravity="[^"]*"' "$T/ballg.xml")"
fi

# export: an 8 kg box resting on the floor; its normal rows' impulses sum to
# m g h once the contact holds it (step 20)
export_sum() { # G: the sum of the normal impulses (rows 0, 3, 6, ...) at step 20
  rm -rf "$T/ex"
  lcp export --scene stack --param n=1 --steps 20 --every 20 --format lcplab --out "$T/ex" \
    --gravity "0,0,-$1" --max-iter 500 --tol 1e-12
  awk 'NR % 3 == 1 { s += $1 } END { printf "%.12g", s }' "$T/ex/stack_step000020.x" 2>/dev/null
}
s=$(export_sum 1.62)
if [ "$rc" -eq 0 ] && grep -q '"overrides":\["gravity"\]' "$T/out" &&
  awk -v s="$s" 'BEGIN { w = 8 * 1.62 / 120; d = s - w; if (d < 0) d = -d; exit !(d <= 1e-6 * w) }'; then
  pass "export --gravity 0,0,-1.62: impulses sum to m g h ($s), override recorded"
else
  fail "export --gravity" "exit $rc; sum $s, expected $(awk 'BEGIN { print 8 * 1.62 / 120 }')"
fi

# an experiment file: gravity= on a scene line and on a model line
printf 'experiment drift d\nsolvers pgs\nscene ball steps=10 gravity=0,0,0\nscene model=ball.xml name=ballm steps=10 gravity=0,0,0\n' >"$T/g.exp"
lcp experiment "$T/g.exp" --out "$T/go" --no-plot
nz=$(grep -v '^#' "$T/go/d.csv" | awk -F, 'NR > 1 && $3 == "symplectic" && $7 + 0 != 0' | wc -l)
rows=$(grep -v '^#' "$T/go/d.csv" | awk -F, 'NR > 1 && $4 == "box"' | wc -l)
if [ "$rc" -eq 0 ] && [ "$rows" -eq 20 ] && [ "$nz" -eq 0 ]; then
  pass "experiment gravity=0,0,0: energy 0 at every step, scene and model line"
else
  fail "experiment gravity=0,0,0" "exit $rc; $rows rows, $nz with energy != 0"
fi
n=$(grep -c '^# world: line [34] .*gravity=0,0,0.*overrides=gravity' "$T/go/d.csv")
if [ "$n" -eq 2 ]; then
  pass "experiment: the world lines record gravity=0,0,0 as an override"
else
  fail "experiment world lines" "$(grep '^# world' "$T/go/d.csv")"
fi

# a scene peer is given no gravity: a line with gravity= is refused for it, not compared
printf '%s\n' 'external fake kind=scene command echo {scene} {steps}' 'experiment scenes sc' \
  'solvers pgs fake' 'scene ball steps=3 gravity=0,0,0' 'scene stack n=1 steps=3' >"$T/p.exp"
lcp experiment "$T/p.exp" --out "$T/po" --no-plot --jobs 1
f1=$(grep -c '^ball,,"gravity=0,0,0",fake,auto,.*,refused,a peer is given no gravity' "$T/po/sc.csv")
f2=$(grep -v '^#' "$T/po/sc.csv" | awk -F, '$1 == "stack" && $4 == "fake" { print $20 }')
if [ "$f1" = 1 ] && [ -n "$f2" ] && [ "$f2" != refused ]; then
  pass "a scene peer: the line with gravity= refused, the other one run ($f2: echo prints no summary)"
else
  fail "scene peer and gravity=" "refused rows $f1, the other '$f2'"
fi

# the materials are the model's
printf 'experiment drift d\nsolvers pgs\nscene incline mu=0.9 steps=2\n' >"$T/mu.exp"
lcp experiment "$T/mu.exp" --out "$T/muo" --no-plot
if [ "$rc" -eq 0 ] && grep -q '^# world: line 3 incline: .* mu=0.9 ' "$T/muo/d.csv"; then
  pass "experiment: the world line says the scene's mu=0.9"
else
  fail "experiment world line mu" "$(grep '^# world' "$T/muo/d.csv")"
fi
# a pyramid LCP holds mu in A: the problem list takes the scene's mu (0.9), not the
# settings' default 0.5, on the first run and from the metadata cache on the next
printf 'experiment profile p\nsolvers lemke\nscene incline mu=0.9 steps=5 friction=pyramid\n' >"$T/py.exp"
lcp experiment "$T/py.exp" --out "$T/pyo" --no-plot
m1=$(awk -F'\t' '$2 == "p" { print $11, $12 }' "$T/pyo/campaign/problems.tsv" 2>/dev/null)
lcp experiment "$T/py.exp" --out "$T/pyo" --no-plot --force
m2=$(awk -F'\t' '$2 == "p" { print $11, $12 }' "$T/pyo/campaign/problems.tsv" 2>/dev/null)
if [ "$m1" = "0.9 0.9" ] && [ "$m2" = "0.9 0.9" ]; then
  pass "a scene's pyramid problems: mu_min, mu_max the scene's 0.9 (fresh and cached)"
else
  fail "pyramid problems' mu" "'$m1' / '$m2', expected 0.9 0.9"
fi
expect_err "--param mu= beside --model: refused" "--param" \
  simulate --model "$T/ball.xml" --param mu=0.3 --steps 2

tst_done
