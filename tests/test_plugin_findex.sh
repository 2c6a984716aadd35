#!/bin/sh
# test_plugin_findex.sh -- the template plugin (examples/plugin/my_jacobi.c;
# docs/plugins.md) on friction (findex) rows: projected Gauss-Seidel with
# the bounds +-mu_i |x_j| of each friction row's normal row.
#
# Expected values:
#   - `lcplab solvers` lists my_jacobi with findex among its capabilities;
#   - on generated boxed-findex problems (n = 30, 60; seeds 3, 5) it
#     converges (tol 1e-10) to pgs's answer (max difference <= 1e-8);
#   - a robot with friction, tests/models/quadruped.urdf (--friction box,
#     300 steps): before, refused at its first contact step (exit 2, "does
#     not handle findex friction rows"); now exit 0 with all four feet in
#     contact, kinetic energy at the end < 1e-2 J (it stands), as with pgs;
#     the variant: the stack scene with box friction, 100 steps, exit 0,
#     40 contacts, bodies displaced < 0.05 m.
# Environment: LCPLAB_BIN, LCPLAB_SRCDIR, LCPLAB_BUILDDIR.  SKIP (77)
# without shared libraries (no plugin can be built).
TST_NAME=test_plugin_findex
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
BUILD=${LCPLAB_BUILDDIR:-.}
JAC=$BUILD/tests/plugins/.libs/my_jacobi.so
if [ ! -f "$JAC" ]; then
  echo "SKIP: no plugin module $JAC (a build without shared libraries)"
  echo "0 passed, 0 failed"
  exit 77
fi
unset LCPLAB_PLUGINS

maxdiff() { paste "$1" "$2" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3g\n", m }'; }
jnum() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$T/out" | head -n 1; }
awk_true() { awk "BEGIN { exit !($1) }"; }

lcp --plugin "$JAC" solvers
if [ "$rc" -eq 0 ] && grep -q '^my_jacobi .* findex ' "$T/out"; then
  pass "solvers: my_jacobi takes findex rows"
else
  fail "solvers: my_jacobi's caps" "exit $rc: $(grep my_jacobi "$T/out")"
fi

for ns in "30 3" "60 5"; do
  set -- $ns
  "$BIN" generate --type boxed-findex --n "$1" --seed "$2" --out "$T/f.lcp" --force >/dev/null 2>&1
  lcp solve "$T/f.lcp" --solver pgs --tol 1e-10 --max-iter 100000 --solution "$T/xp" --force
  lcp --plugin "$JAC" solve "$T/f.lcp" --solver my_jacobi --tol 1e-10 --max-iter 100000 \
    --json --solution "$T/xj" --force
  d=$(maxdiff "$T/xj" "$T/xp")
  if [ "$rc" -eq 0 ] && grep -q '"status":"converged"' "$T/out" && awk_true "$d <= 1e-8"; then
    pass "boxed-findex n=$1 seed $2: converged to pgs's answer (max diff $d)"
  else
    fail "boxed-findex n=$1 seed $2" "exit $rc, max diff $d"
  fi
done

lcp --plugin "$JAC" simulate --model "$SRC/tests/models/quadruped.urdf" --solver my_jacobi \
  --friction box --steps 300
if [ "$rc" -eq 0 ] && [ "$(jnum contacts_max)" = 4 ] && awk_true "$(jnum kinetic_end) < 1e-2"; then
  pass "quadruped with box friction: runs, stands on 4 feet (kinetic $(jnum kinetic_end) J)"
else
  fail "quadruped with box friction" "exit $rc"
fi
lcp --plugin "$JAC" simulate --scene stack --solver my_jacobi --friction box --steps 100
if [ "$rc" -eq 0 ] && [ "$(jnum contacts_max)" = 40 ] &&
  awk_true "$(jnum max_body_displacement) < 0.05"; then
  pass "stack with box friction: runs, 40 contacts, displacement $(jnum max_body_displacement) m"
else
  fail "stack with box friction" "exit $rc"
fi

tst_done
