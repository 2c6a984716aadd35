#!/bin/sh
# test_npz.sh -- ContactBench .npz files through `lcplab convert` and `lcplab solve`,
# and files written by numpy itself (libio/io_npz.c; datasets/README.md, "ContactBench").
#
# Without numpy:
#   - a one-contact problem, W = I, q = (-1, 0.25, 0) normal first (lcplab), converted
#     .lcp -> .npz -> .lcp is byte-identical; solved from the .npz, r = (1, -0.25, 0)
#     (sticking: u = W r + q = 0, |r_t| = 0.25 < mu r_n = 0.5), the same as from the .lcp;
#   - refusals: an LCP to .npz, a warm start from a .npz without lam0, a .npz solution.
# With numpy (Debian's python3-numpy; SKIP of these checks without it):
#   - numpy.savez / savez_compressed / a Fortran-ordered G / g as (n,) and (n, 1):
#     G(r, s) = 100 r + s + 0.25, g(r) = r - 2.5 for nc = 3; lcplab reads each with its
#     rows permuted normal-first, A(i, j) = G(P(i), P(j)), b(i) = g(P(i)) with
#     P(3c) = 3c + 2, P(3c + 1) = 3c, P(3c + 2) = 3c + 1 (checked on the .lcp lcplab
#     writes, parsed here);
#   - lcplab's .npz read by numpy: G, g, mus equal to the originals exactly, float64,
#     g of shape (n, 1) as in ContactBench's files;
#   - ContactBench's own reading of the one-contact problem: lambda = P^-1 r =
#     (-0.25, 0, 1) gives c = G lambda + g = 0.
# Exit: 0 passed, 1 failed, 77 skipped (no lcplab).  Last line "N passed, M failed".

TST_NAME=test_npz
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# ---- without numpy -------------------------------------------------------------------
cat >"$T/fc1.lcp" <<'EOF'
lcplab-problem 1
n 3
A
1 0 0
0 1 0
0 0 1
b -1 0.25 0
cones 1
0 0.5
end
EOF
lcp convert "$T/fc1.lcp" "$T/fc1.npz"
rc1=$rc
lcp convert "$T/fc1.npz" "$T/fc1b.lcp"
rc2=$rc
lcp convert "$T/fc1.lcp" "$T/fc1c.lcp"
if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/fc1b.lcp" "$T/fc1c.lcp"; then
  pass "convert .lcp -> .npz -> .lcp: byte-identical to .lcp -> .lcp"
else
  fail "convert through .npz" "exit $rc1/$rc2/$rc or files differ"
fi
# same FILE V1 V2 V3: FILE holds exactly these values (numerically: -0 = 0)
same() {
  awk -v want="$2 $3 $4" 'BEGIN { split(want, e, " ") }
    { if ($1 + 0 != e[NR] + 0) bad = 1 } END { exit bad || NR != 3 }' "$1"
}
lcp solve "$T/fc1.npz" --solver nsgs --tol 1e-12 --solution "$T/fc1.x"
if [ "$rc" -eq 0 ] && same "$T/fc1.x" 1 -0.25 0 && grep -q '"format":"npz"' "$T/out"; then
  pass "solve fc1.npz: r = (1, -0.25, 0), format npz"
else
  fail "solve fc1.npz" "exit $rc, x=$(tr '\n' ' ' <"$T/fc1.x" 2>/dev/null)"
fi
printf 'lcplab-problem 1\nn 2\nA\n2 1\n1 2\nb -5 -6\nend\n' >"$T/lcp.lcp"
expect_err "convert an LCP to .npz (unsupported)" "npz holds only frictional-contact problems" \
  convert "$T/lcp.lcp" "$T/lcp.npz"
if [ ! -e "$T/lcp.npz" ]; then pass "nothing written for an LCP in .npz"; else fail "LCP in .npz" "file written"; fi
expect_err "solve --warm from a .npz without lam0" "expected the array lam0.npy in the npz" \
  solve "$T/fc1.npz" --solver nsgs --warm "$T/fc1.npz"
expect_err "solve --solution x.npz (not a solution format)" "not as .npz" \
  solve "$T/fc1.npz" --solver nsgs --solution "$T/x.npz"
printf 'PK\003\004 not really a zip' >"$T/fake.npz"
expect_err "solve a .npz that is not a zip" "$T/fake.npz: expected a numpy .npz (a zip archive)" \
  solve "$T/fake.npz" --solver nsgs

# ---- with numpy --------------------------------------------------------------------------
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' >/dev/null 2>&1; then
    PY=$p
    break
  fi
done
if [ -z "$PY" ]; then
  echo "SKIP: numpy not found (apt-get install python3-numpy): files written by numpy not checked"
  echo "$npass passed, $nfail failed"
  [ "$nfail" -eq 0 ]
  exit
fi

# The foreign files, and the checker of lcplab's .lcp against them.
cat >"$T/make.py" <<'EOF'
import sys
import numpy as np
out, kind = sys.argv[1], sys.argv[2]
nc = 3
n = 3 * nc
G = np.array([[100.0 * r + s + 0.25 for s in range(n)] for r in range(n)])
g = np.array([r - 2.5 for r in range(n)])
mus = np.array([0.5, 0.25, 0.75])
if kind == "savez":
    np.savez(out, G=G, g=g.reshape(n, 1), mus=mus)
elif kind == "compressed":
    np.savez_compressed(out, G=G, g=g, mus=mus)
elif kind == "fortran":
    np.savez(out, G=np.asfortranarray(G), g=g.reshape(n, 1), mus=mus)
elif kind == "warm":  # one contact, (t1, t2, n): W = I, g = (0.25, 0, -1), lam0 = the solution
    np.savez(out, G=np.eye(3), g=np.array([[0.25], [0.0], [-1.0]]), mus=np.array([0.5]),
             lam0=np.array([[-0.25], [0.0], [1.0]]))
EOF
cat >"$T/check.py" <<'EOF'
import sys
import numpy as np
lcp = sys.argv[1]
nc, n = 3, 9
G = np.array([[100.0 * r + s + 0.25 for s in range(n)] for r in range(n)])
g = np.array([r - 2.5 for r in range(n)])
P = [3 * (i // 3) + (2 if i % 3 == 0 else i % 3 - 1) for i in range(n)]
tok = [l.split("#")[0].split() for l in open(lcp)]
words = [w for l in tok for w in l]
a = words.index("A")
A = np.array([float(v) for v in words[a + 1:a + 1 + n * n]]).reshape(n, n).T  # column-major
b0 = words.index("b")
b = np.array([float(v) for v in words[b0 + 1:b0 + 1 + n]])
c0 = words.index("cones")
cones = [(int(words[c0 + 2 + 2 * k]), float(words[c0 + 3 + 2 * k])) for k in range(nc)]
ok = all(A[i, j] == G[P[i], P[j]] for i in range(n) for j in range(n))
ok = ok and all(b[i] == g[P[i]] for i in range(n))
ok = ok and cones == [(0, 0.5), (3, 0.25), (6, 0.75)]
sys.exit(0 if ok else 1)
EOF
for kind in savez compressed fortran; do
  "$PY" "$T/make.py" "$T/$kind.npz" "$kind"
  lcp convert "$T/$kind.npz" "$T/$kind.lcp"
  if [ "$rc" -eq 0 ] && "$PY" "$T/check.py" "$T/$kind.lcp"; then
    pass "numpy.$kind file: A(i, j) = G(P(i), P(j)), b(i) = g(P(i)), the cones"
  else
    fail "numpy.$kind file" "exit $rc or values differ"
  fi
done
# lam0 as a warm start: ContactBench's solution (-0.25, 0, 1), normal last, is lcplab's
# (1, -0.25, 0); started there, nsgs stops at once with that solution
"$PY" "$T/make.py" "$T/warm.npz" warm
lcp solve "$T/warm.npz" --solver nsgs --tol 1e-12 --warm "$T/warm.npz" --solution "$T/warm.x"
it=$(sed -n 's/.*"iterations":\([0-9]*\).*/\1/p' "$T/out")
if [ "$rc" -eq 0 ] && same "$T/warm.x" 1 -0.25 0 && grep -q '"warm_start":true' "$T/out" &&
  [ "${it:-9}" -le 1 ]; then
  pass "solve --warm from numpy's lam0.npy, permuted: converged in $it iteration(s)"
else
  fail "solve --warm lam0" "exit $rc, iterations ${it:-?}"
fi
# lcplab's .npz read by numpy: the original arrays exactly
lcp convert "$T/savez.lcp" "$T/back.npz"
if [ "$rc" -eq 0 ] && "$PY" - "$T/back.npz" <<'EOF'; then
import sys
import numpy as np
d = np.load(sys.argv[1])
n = 9
G = np.array([[100.0 * r + s + 0.25 for s in range(n)] for r in range(n)])
g = np.array([r - 2.5 for r in range(n)]).reshape(n, 1)
ok = sorted(d.files) == ["G", "g", "mus"]
ok = ok and d["G"].dtype == np.float64 and (d["G"] == G).all()
ok = ok and d["g"].shape == (n, 1) and (d["g"] == g).all()
ok = ok and (d["mus"] == np.array([0.5, 0.25, 0.75])).all()
sys.exit(0 if ok else 1)
EOF
  pass "numpy reads lcplab's .npz: G, g (n, 1), mus exactly"
else
  fail "numpy reads lcplab's .npz" "exit $rc or arrays differ"
fi
# ContactBench's order on the solved one-contact problem: lambda = (-0.25, 0, 1), c = 0
if "$PY" - "$T/fc1.npz" "$T/fc1.x" <<'EOF'; then
import sys
import numpy as np
d = np.load(sys.argv[1])
r = np.loadtxt(sys.argv[2])
lam = np.array([r[1], r[2], r[0]]).reshape(3, 1)  # (t1, t2, n)
c = d["G"] @ lam + d["g"]
sys.exit(0 if (lam.ravel() == [-0.25, 0, 1]).all() and abs(c).max() == 0 else 1)
EOF
  pass "ContactBench's c = G lambda + g = 0 at lcplab's solution, normal last"
else
  fail "c = G lambda + g" "not zero"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
