#!/bin/sh
# test_pivot_steps.sh -- the pivoting solvers on the world's own step
# problems (issue 26): the pyramid's friction LCPs, where lemke with the
# ratio-test threshold pivot_tol ||y|| = 1e-13 ||y|| alone took tableau
# entries at rounding level as pivots and ended in singular bases, cycles
# (max_iter) and rays from step 11 on (docs/solvers.md, "Lexicographic
# Lemke", "Tolerances").  Every step problem here has a solution (lemke's
# own, judged by the library residual), so `--on-failure stop` must run
# through: exit 0 and every status converged.
#
# Environment: LCPLAB_BIN (the built program; without it: SKIP, exit 77).
# Exit: 0 passed, 1 failed, 77 skipped.
BIN=${LCPLAB_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "SKIP: LCPLAB_BIN not set or not executable"
  exit 77
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
check() { # name, condition result
  if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

# lemke, 3-layer pyramid, first 60 steps (main before the fix: step 11
# max_iter, 14 singular_pivot)
"$BIN" simulate --scene pyramid --param layers=3 --solver lemke --steps 60 \
  --on-failure stop --csv "$T/pyr.csv" >"$T/pyr.json" 2>"$T/pyr.err"
rc=$?
check "lemke pyramid layers=3 60 steps: exit 0 under --on-failure stop (rc $rc)" $rc
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next }
               $c != "converged" { n++ } END { print n + 0 }' "$T/pyr.csv")
rows=$(($(wc -l <"$T/pyr.csv") - 1))
[ "$rows" = 60 ] && [ "$bad" = 0 ]
check "lemke pyramid: 60 rows, all converged (rows $rows, not converged $bad)" $?

[ $fail = 0 ] && echo "all passed" || echo "some failed"
exit $fail
