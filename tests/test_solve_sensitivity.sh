#!/bin/sh
# test_solve_sensitivity.sh -- `lcplab solve FILE --sensitivity GX --gradient
# GOUT` (cli/solve_gradient.c; docs/gradients.md): the gradients of
# <gx, x> at the answer against a hand-derived case, and the refusals
# (exit 2, one line naming the file): a cotangent of the wrong length, a
# NaN in it, one flag without the other, GOUT existing without --force (the
# file left as it was), GOUT naming the input.
#
# Hand problem (w = A x + b): A = [[2,1],[1,2]], b = (-1, 1).  With x2 = 0,
# x1 = 1/2 and w2 = 1/2 + 1 = 3/2 > 0: row 0 free, row 1 at its lower
# bound 0.  For gx = (1, 1): x1 = -(b1 + A12 lo2) / A11, x2 = lo2, so
# gb = (-1/2, 0), glo = (0, 1 - A12/A11) = (0, 1/2), ghi = gmu = 0.
#
# Environment: as test_cli.sh (LCPLAB_BIN, LCPLAB_SRCDIR).
# Exit: 0 all passed, 1 any failure, 77 skipped.  Last line: "N passed, M failed".

TST_NAME=test_solve_sensitivity
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

printf '2\n0\n2\n2\n2\t2\n2 1\n1 2\n-1\n1\n' >"$T/p.dat"
printf '1\n1\n' >"$T/gx"
cd "$T" || exit 1

lcp solve p.dat --solver lemke --sensitivity gx --gradient g.csv
if [ "$rc" -eq 0 ] && [ "$(head -n 1 g.csv)" = "row,mode,gb,glo,ghi,gmu" ] &&
  awk -F, 'NR == 2 { ok = $2 == "free" && ($3 + 0.5) ^ 2 < 1e-24 && $4 == 0 && $5 == 0 && $6 == 0 }
           NR == 3 { ok = ok && $2 == "lower" && $3 == 0 && ($4 - 0.5) ^ 2 < 1e-24 && $5 == 0 }
           END { exit !(ok && NR == 3) }' g.csv; then
  pass "the hand case: gb = (-1/2, 0), glo = (0, 1/2)"
else
  fail "the hand case" "exit $rc: $(cat err) $(cat g.csv 2>/dev/null)"
fi

printf '1\n1\n1\n' >gx3
expect_err "a cotangent of 3 values for n = 2" "gx3" solve p.dat --sensitivity gx3 --gradient h.csv
printf '1\nnan\n' >gxnan
expect_err "a NaN in the cotangent" "gxnan" solve p.dat --sensitivity gxnan --gradient h.csv
expect_err "--sensitivity without --gradient" "--gradient" solve p.dat --sensitivity gx
expect_err "--gradient without --sensitivity" "--sensitivity" solve p.dat --gradient h.csv
echo keep >old.csv
expect_err "an existing GOUT without --force" "old.csv" solve p.dat --sensitivity gx \
  --gradient old.csv
if [ "$(cat old.csv)" = keep ] && [ ! -e h.csv ]; then
  pass "nothing written on bad input"
else
  fail "nothing written on bad input" "old.csv: $(cat old.csv); h.csv exists: $(ls h.csv 2>&1)"
fi
expect_err "GOUT naming the input" "p.dat" solve p.dat --sensitivity gx --gradient p.dat --force

p=$(pwd)/p.dat
printf 'experiment gradients g\nsolvers lemke nope\ninstances %s\n' "$p" >g1.exp
expect_err "gradients: an unknown solver" "g1.exp:2: solvers: unknown solver 'nope'" \
  experiment g1.exp --out o1
printf 'experiment gradients g\nsolvers lemke\ninstances %s\ntol 1e-8\n' "$p" >g2.exp
expect_err "gradients: a key it does not take" \
  "g2.exp:4: tol: not a key of a gradients experiment" experiment g2.exp --out o2
printf 'experiment gradients g\nintegrators euler\n' >g3.exp
expect_err "gradients: a scene key" "g3.exp:2: integrators" experiment g3.exp --out o3
printf 'external ext format=dat command true {in} {out}\nexperiment gradients g\nsolvers ext\n' \
  >g4.exp
expect_err "gradients: an external solver" "g4.exp:3: solvers: external solver 'ext'" \
  experiment g4.exp --out o4
if [ -z "$(find o1 o2 o3 o4 -mindepth 1 2>/dev/null)" ]; then
  pass "gradients: nothing run on bad input"
else
  fail "gradients: nothing run on bad input" "$(find o1 o2 o3 o4 -mindepth 1 2>&1)"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
