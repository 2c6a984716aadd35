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
#     res_rel_q of that answer is lcplab's own err_siconos (the same
#     measure, ||F_nat||_2 / ||q||_2) to 1e-6 of it, and below 1e-8;
#   - the FCLIB file's title says the joint rows were condensed.
# Skipped (77) where the peers are not built (experiments/build_peers.sh
# into build/experiments/peers) or libmujoco-samples is absent.
TST_NAME=test_robots_peers
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

PEER=${LCPLAB_BUILDDIR:-.}/experiments/peers/fc3d/peer_fc3d
H=/usr/share/mujoco/model/humanoid/humanoid.xml
if [ ! -x "$PEER" ] || [ ! -f "$H" ]; then
  echo "SKIP: $PEER not built (experiments/build_peers.sh) or $H absent"
  echo "0 passed, 0 failed"
  exit 77
fi
jnum() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$2" | head -n 1; }
awk_true() { awk "BEGIN { exit !($1) }"; }

for fmt in dat hdf5; do
  lcp export --model "$H" --approximate --steps 240 --every 30 --max-iter 300 --solver nsgs \
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
    theirs=$(jnum res_rel_q "$T/judge")
    if [ "$rc" -eq 0 ] && awk_true "$theirs < 1e-8 && ($theirs - $ours)^2 <= 1e-12 * $ours^2"; then
      pass "$(basename "$f"): lcplab's answer judged by the peer as by lcplab ($theirs / $ours)"
    else
      fail "$(basename "$f"): the peer's judgement" "exit $rc, peer $theirs, lcplab $ours: $(cat "$T/err")"
    fi
  done
done
if grep -q "joint rows condensed at the step's answer" "$T/hdf5"/*.hdf5; then
  pass "the FCLIB file's title says the joint rows were condensed"
else
  fail "FCLIB title" "no 'joint rows condensed' in the files"
fi

tst_done
