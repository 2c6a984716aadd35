#!/bin/sh
# test_fidelity.sh -- a fidelity section end to end (issue 84, item 4;
# experiments/README.md, "fidelity"; the judges and scenes themselves:
# tests/test_fidelity.c):
#   - lemke, pgs and direct on incline_held, incline_slide and chain at
#     budget 50: one row per (scene, solver, budget) with the documented
#     columns; lemke's sliding incline at g (sin 35 - 0.5 cos 35) = 1.6088
#     m/s^2 (by hand) within the judge's 2 %, its held incline at creep 0;
#     direct (free rows only) refused on the incline (no numbers, no
#     verdict) and exact on the chain (joint error under 1e-3 m); the
#     preamble states each judge's tolerance;
#   - a planted scene peer (a script printing peer_scene's --trace lines
#     and summary): on incline_slide its body moves at the analytic
#     acceleration, judged pass with its version; a body 3 % fast fails; on
#     the stack its own displacement 5.5 mm (5 mm of gaps allowed) passes;
#     on chain (no peer scene) a row refused;
#   - bad fields named with the file and the line: budgets 0, an unknown
#     scene, a scene parameter, a key of another kind.
# Environment: LCPLAB_BIN, LCPLAB_SRCDIR.  Last line "N passed, M failed".
TST_NAME=test_fidelity
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# field CSV SCENE SOLVER BUDGET COLUMN: the column of that row
field() {
  awk -F, -v sc="$2" -v so="$3" -v b="$4" -v col="$5" '
    /^#/ { next }
    !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    $c["scene"] == sc && $c["solver"] == so && $c["budget"] == b { print $c[col] }' "$1"
}

# the planted peer (tests/fid_peer.sh): peer_scene's words, its trace on stderr,
# its summary on stdout; FAST=1.03 makes the body 3 % faster than the analytic motion
cp "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/fid_peer.sh" "$T/peer.sh"

cat >"$T/t.exp" <<EOF
external planted kind=scene command sh $T/peer.sh {scene} {params} --steps {steps} --trace
experiment fidelity fid
solvers lemke pgs direct planted
scene incline_held incline_slide
scene chain stack
budgets 50
EOF
lcp experiment "$T/t.exp" --out "$T/o" --jobs 1
csv=$T/o/fid.csv
if [ "$rc" -eq 0 ] && [ -f "$csv" ]; then pass "a fidelity section runs"; else fail "fidelity run" "exit $rc: $(head -c 300 "$T/err")"; fi
head=$(grep -v '^#' "$csv" | head -n 1)
want="scene,judge,solver,friction,budget,steps,measured,analytic,error,tol,unit,pass,step_time_mean_s,converged_steps,solved_steps,converged_share,version,status,note"
if [ "$head" = "$want" ]; then pass "the documented columns"; else fail "columns" "$head"; fi
rows=$(grep -v '^#' "$csv" | tail -n +2 | wc -l)
# 4 scenes x 3 solvers x 1 budget + 4 scenes x 1 peer
if [ "$rows" -eq 16 ]; then pass "one row per (scene, solver, budget) and (scene, peer)"; else fail "rows" "$rows"; fi

m=$(field "$csv" incline_slide lemke 50 measured)
ok=$(field "$csv" incline_slide lemke 50 pass)
if awk -v m="$m" 'BEGIN { a = 1.608844; e = (m - a) / a; exit !(e < 0.02 && e > -0.02) }' && [ "$ok" = yes ]; then
  pass "lemke's sliding incline at the analytic 1.6088 m/s^2 ($m)"
else
  fail "incline_slide lemke" "measured '$m', pass '$ok'"
fi
m=$(field "$csv" incline_held lemke 50 measured)
ok=$(field "$csv" incline_held lemke 50 pass)
if awk -v m="$m" 'BEGIN { exit !(m != "" && m + 0 <= 1e-5) }' && [ "$ok" = yes ]; then
  pass "lemke's held incline at creep 0 ($m)"
else
  fail "incline_held lemke" "measured '$m', pass '$ok'"
fi
st=$(field "$csv" incline_held direct 50 status)
ok=$(field "$csv" incline_held direct 50 pass)
m=$(field "$csv" incline_held direct 50 measured)
if [ "$st" = refused ] && [ -z "$ok" ] && [ -z "$m" ]; then pass "direct refused on contacts: no numbers, no verdict"; else fail "direct incline" "status '$st' pass '$ok' measured '$m'"; fi
ok=$(field "$csv" chain direct 50 pass)
if [ "$ok" = yes ]; then pass "direct holds the 1:1000 chain's joints"; else fail "direct chain" "pass '$ok'"; fi
if grep -q '^# judge accel: .*<= 0.02 (relative)$' "$csv" && grep -q '^# judge creep: .*<= 1e-05 m/s$' "$csv"; then
  pass "the preamble states the judges' tolerances"
else
  fail "preamble" "$(grep '^# judge' "$csv" | head -2)"
fi

ok=$(field "$csv" incline_slide planted 50 pass)
v=$(field "$csv" incline_slide planted 50 version)
if [ "$ok" = yes ] && [ "$v" = "Planted 1.0" ]; then pass "a peer's trace judged by the same judge, its version kept"; else fail "planted incline" "pass '$ok' version '$v'"; fi
ok=$(field "$csv" stack planted 50 pass)
e=$(field "$csv" stack planted 50 error)
if [ "$ok" = yes ] && awk -v e="$e" 'BEGIN { exit !(e > 4.99e-4 && e < 5.01e-4) }'; then pass "a peer's stack: 0.5 mm beyond the gaps"; else fail "planted stack" "pass '$ok' error '$e'"; fi
st=$(field "$csv" chain planted 50 status)
if [ "$st" = refused ]; then pass "a scene the peers lack: refused"; else fail "planted chain" "status '$st'"; fi
FAST=1.03 lcp experiment "$T/t.exp" --out "$T/o2" --jobs 1
ok=$(field "$T/o2/fid.csv" incline_slide planted 50 pass)
e=$(field "$T/o2/fid.csv" incline_slide planted 50 error)
if [ "$ok" = no ] && awk -v e="$e" 'BEGIN { exit !(e > 0.0299 && e < 0.0301) }'; then pass "a peer 3 % fast fails"; else fail "fast peer" "pass '$ok' error '$e'"; fi

# bad_field DESC WANT LINES...: the section with those lines is refused, the message
# naming the file and line 3
bad_field() {
  desc=$1 want=$2
  shift 2
  printf 'experiment fidelity f\nsolvers lemke\n' >"$T/bad.exp"
  printf '%s\n' "$@" >>"$T/bad.exp"
  expect_err "$desc" "bad.exp:3: $want" experiment "$T/bad.exp" --out "$T/ob"
}
bad_field "budgets 0" "budgets: expected an integer between 1" "budgets 0" "scene all"
bad_field "an unknown scene" "scene: unknown fidelity scene 'nosuch'" "scene nosuch"
bad_field "a scene parameter" "scene: 'mu=0.2': a fidelity scene takes no parameters" "scene incline_held mu=0.2"
bad_field "a key of another kind" "friction: not a key of a fidelity experiment" "friction box" "scene all"
tst_done
