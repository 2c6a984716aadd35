#!/bin/sh
# test_robots_peers.sh -- an imported robot's problems judged by the Siconos
# peers (issue 62; docs/models.md, "Joint rows condensed"): MuJoCo's
# humanoid (read with --approximate) exported with --condense-joints as
# Siconos FC3D .dat and FCLIB .hdf5, and build/experiments/peers/fc3d/peer_fc3d
# --check-r (experiments/build_peers.sh) reading and judging them.
#
# Expected values:
#   - 240 steps, every 30th exported, nsgs on cones at 300 iterations: the
#     steps with contacts written (n = 3 nc), the others counted empty;
#   - the peer reads each file (its nc = n / 3, finite) and judges the
#     impulses the world applied;
#   - lcplab solves each condensed problem to 1e-10 (nsgs) and the peer's
#     err_own of that answer (Siconos' own error, fc3d_compute_error) is
#     lcplab's err_siconos (its computation of the same measure) to 1e-5 of
#     it (the peer prints 7 digits), and below 1e-8 (res_rel_q, ||F||_2 / max(1, ||q||_2), differs
#     from it where ||q|| is not the problem's largest norm);
#   - the FCLIB file's title says the joint rows were condensed.
# The global form (--condense-joints --global; dyn_world_global_condensed_new),
# humanoid (240 steps, every 60th), humanoid100 (240 steps, every 120th)
# and humanoid in reduced coordinates (240 steps, every 30th: its limit rows
# condensed where a step has them), read by
# build/experiments/peers/gfc3d/peer_gfc3d --check-r:
#   - the peer reads each global file (nc = n / 3) and its res_rel_1q of
#     the impulses the world applied is peer_fc3d's of the same impulses
#     on the local file (its W and q are the local ones) to 1e-6 (+1e-13:
#     the two condensations' rounding, relative to ||q||);
#   - lcplab solves the global file (nsgs, tol 1e-10) and the peer's
#     res_rel_1q of that answer is lcplab's res_rel_1q (the same measure,
#     Acary et al. 2018's) to 1e-6 (+1e-13), and below 1e-8;
#   - the global file's title says v holds null-space coordinates.
# Skipped (77) where the peers are not built (experiments/build_peers.sh
# into build/experiments/peers) or libmujoco-samples is absent.
TST_NAME=test_robots_peers
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

PEER=${LCPLAB_BUILDDIR:-.}/experiments/peers/fc3d/peer_fc3d
GPEER=${LCPLAB_BUILDDIR:-.}/experiments/peers/gfc3d/peer_gfc3d
H=/usr/share/mujoco/model/humanoid/humanoid.xml
H100=/usr/share/mujoco/model/humanoid100/humanoid100.xml
if [ ! -x "$PEER" ] || [ ! -x "$GPEER" ] || [ ! -f "$H" ] || [ ! -f "$H100" ]; then
  echo "SKIP: $PEER or $GPEER not built (experiments/build_peers.sh) or $H, $H100 absent"
  echo "0 passed, 0 failed"
  exit 77
fi
jnum() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | head -n 1; }
awk_true() { awk "BEGIN { exit !($1) }"; }

for fmt in dat hdf5; do
  lcp export --model "$H" --coordinates maximal --approximate --steps 240 --every 30 --max-iter 300 --solver nsgs \
    --friction cone --format "$fmt" --condense-joints --out "$T/$fmt"
  cp "$T/out" "$T/$fmt.json"
  n=$(ls "$T/$fmt" 2>/dev/null | grep -c "\.$fmt\$")
  written=$(jnum written "$T/$fmt.json")
  if [ "$rc" -eq 0 ] && [ "$n" -ge 1 ] && [ "$n" = "$written" ] &&
    [ $((written + $(jnum skipped_empty "$T/$fmt.json"))) = 8 ]; then
    pass "humanoid --condense-joints --format $fmt: $n steps with contacts written"
  else
    fail "humanoid --condense-joints --format $fmt" "exit $rc, $n files: $(cat "$T/err")"
    continue
  fi
  for f in "$T/$fmt"/*."$fmt"; do
    b=${f%."$fmt"}
    nrows=$(grep "\"file\":\"$f\"" "$T/$fmt.json" | sed 's/.*"n":\([0-9]*\).*/\1/')
    "$PEER" --check-r "$b.x" "$f" >"$T/judge" 2>"$T/err"
    prc=$?
    if [ "$prc" -eq 0 ] && [ "$(jnum nc "$T/judge")" = $((nrows / 3)) ] &&
      [ "$(jnum finite "$T/judge")" = true ]; then
      pass "peer_fc3d reads $(basename "$f") (nc $((nrows / 3))) and judges the applied impulses: res_rel_q $(jnum res_rel_q "$T/judge")"
    else
      fail "peer_fc3d on $(basename "$f")" "exit $prc, nrows $nrows: $(cat "$T/judge" "$T/err")"
    fi
    lcp solve "$f" --solver nsgs --tol 1e-10 --max-iter 100000 --solution "$b.sol"
    ours=$(jnum err_siconos "$T/out")
    "$PEER" --check-r "$b.sol" "$f" >"$T/judge" 2>"$T/err"
    # err_siconos is Siconos' own error (fc3d_compute_error): the peer's err_own
    theirs=$(jnum err_own "$T/judge")
    if [ "$rc" -eq 0 ] && awk_true "$theirs < 1e-8 && ($theirs - $ours)^2 <= 1e-10 * $ours^2"; then
      pass "$(basename "$f"): lcplab's answer judged by the peer as by lcplab ($theirs / $ours)"
    else
      fail "$(basename "$f"): the peer's judgement" "exit $rc, peer $theirs, lcplab $ours: $(cat "$T/err")"
    fi
  done
done
# the global form, condensed: judged by peer_gfc3d as the local file by peer_fc3d
close_to() { awk_true "$1 < 1e-8 && ($1 - $2)^2 <= (1e-6 * $2 + 1e-13)^2"; }
# (MODEL:EVERY:COORDINATES; in reduced coordinates the limit rows are
# condensed, steps 90 .. 240 of humanoid.xml have them)
for m in "$H:60:maximal" "$H100:120:maximal" "$H:30:reduced"; do
  model=${m%%:*}
  rest=${m#*:}
  coords=${rest#*:}
  name=$(basename "$model" .xml)
  D=$T/g_${name}_$coords
  if [ "$coords" = maximal ]; then approx=--approximate; else approx=; fi
  # shellcheck disable=SC2086 # $approx: one flag or none
  lcp export --model "$model" $approx --coordinates "$coords" --steps 240 --every "${rest%:*}" \
    --max-iter 300 --solver nsgs --friction cone --format hdf5 --condense-joints --global --out "$D"
  ng=$(ls "$D" 2>/dev/null | grep -c "\.global\.hdf5\$")
  if [ "$rc" -eq 0 ] && [ "$ng" -ge 1 ] && [ "$ng" = "$(jnum written "$T/out")" ]; then
    pass "$name ($coords) --condense-joints --global: $ng global files written"
  else
    fail "$name ($coords) --condense-joints --global" "exit $rc, $ng files: $(cat "$T/err")"
    continue
  fi
  for g in "$D"/*.global.hdf5; do
    b=${g%.global.hdf5}
    "$GPEER" --check-r "$b.x" "$g" >"$T/gjudge" 2>"$T/err"
    prc=$?
    "$PEER" --check-r "$b.x" "$b.hdf5" >"$T/judge" 2>>"$T/err"
    # both peers' res_nat_abs: ||F_nat||_2 of the same contact impulses on the
    # same W and q (their relative measures divide by different norms:
    # peer_fc3d's res_rel_q by max(1, ||q||), peer_gfc3d's res_rel_1q by 1 + ||q||)
    theirs=$(jnum res_nat_abs "$T/gjudge")
    loc=$(jnum res_nat_abs "$T/judge")
    if [ "$prc" -eq 0 ] && [ "$(jnum nc "$T/gjudge")" = "$(jnum nc "$T/judge")" ] &&
      awk_true "($theirs - $loc)^2 <= (1e-6 * $loc + 1e-13)^2"; then
      pass "peer_gfc3d judges $(basename "$g") (nc $(jnum nc "$T/gjudge"), ndof $(jnum ndof "$T/gjudge")) as peer_fc3d the local file: res_nat_abs $theirs / $loc"
    else
      fail "peer_gfc3d on $(basename "$g")" "exit $prc, res_nat_abs $theirs vs $loc: $(cat "$T/gjudge" "$T/err")"
    fi
    lcp solve "$g" --solver nsgs --tol 1e-10 --max-iter 20000 --solution "$b.gsol"
    ours=$(jnum res_rel_1q "$T/out")
    "$GPEER" --check-r "$b.gsol" "$g" >"$T/gjudge" 2>"$T/err"
    theirs=$(jnum res_rel_1q "$T/gjudge")
    if [ "$rc" -le 3 ] && close_to "$theirs" "$ours"; then
      pass "$(basename "$g"): lcplab's answer judged by peer_gfc3d as by lcplab ($theirs / $ours)"
    else
      fail "$(basename "$g"): peer_gfc3d's judgement" "exit $rc, peer $theirs, lcplab $ours: $(cat "$T/err")"
    fi
  done
  if grep -q "null-space coordinates" "$D"/*.global.hdf5; then
    pass "$name ($coords): the global files' title says v holds null-space coordinates"
  else
    fail "$name ($coords): global title" "no 'null-space coordinates' in the files"
  fi
  if [ "$coords" = reduced ]; then
    nred=$(grep -l "reduced coordinates" "$D"/*.global.hdf5 | wc -l)
    if [ "$nred" = "$ng" ] && grep -q "joint rows condensed (" "$D"/*.global.hdf5; then
      pass "$name (reduced): every global title says reduced coordinates, some limit rows condensed"
    else
      fail "$name (reduced): global titles" "$nred of $ng say reduced coordinates"
    fi
  fi
done
if grep -q "joint rows condensed at the step's answer" "$T/hdf5"/*.hdf5; then
  pass "the FCLIB file's title says the joint rows were condensed"
else
  fail "FCLIB title" "no 'joint rows condensed' in the files"
fi

tst_done
