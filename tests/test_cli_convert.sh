#!/bin/sh
# test_cli_convert.sh -- `lcplab convert` (lcplab(1), docs/lcplab.1): round
# trips .dat -> .lcp -> .blcp -> .dat and to MatrixMarket, solved to the same
# bits; never overwriting without --force; refusals of what a format cannot
# hold; the frictional-contact files (Siconos FC3D .dat <-> FCLIB .hdf5 <->
# .lcp), FCLIB solutions and warm starts; a full disk while writing FCLIB.
#
# Environment (set by `make check`, see Makefile.am AM_TESTS_ENVIRONMENT):
#   LCPLAB_BIN     the built program (required; without it: SKIP, exit 77)
#   LCPLAB_SHARED  ../shared (optional: the FC3D_Example1 check is skipped
#                  when its datasets are absent)
#   LCPLAB_VALGRIND=1  optional: run every lcplab invocation under memcheck;
#                  any error or definite leak makes it exit 99, which fails
#                  the check that ran it.
#
# The hand-derived problems sym.dat and nonsym.dat: tst_cli_hand.sh.
# Exit: 0 all passed, 1 any failure, 77 skipped.  Last line: "N passed, M failed".

TST_NAME=test_cli_convert
# shellcheck source=tst_cli_hand.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_hand.sh"

# ---- convert: round trip .dat -> .lcp -> .blcp -> .dat ----------------------------------
printf '2\n0\n2\n2\n2\t2\n2 1\n1\n' >"$T/trunc.dat" # M's second column cut short
ok=1
lcp convert "$T/nonsym.dat" "$T/rt1.lcp"
[ "$rc" -eq 0 ] || { ok=0; fail "convert nonsym.dat -> rt1.lcp" "exit $rc"; }
lcp convert "$T/rt1.lcp" "$T/rt2.blcp"
[ "$rc" -eq 0 ] || { ok=0; fail "convert rt1.lcp -> rt2.blcp" "exit $rc"; }
lcp convert "$T/rt2.blcp" "$T/rt3.dat"
[ "$rc" -eq 0 ] || { ok=0; fail "convert rt2.blcp -> rt3.dat" "exit $rc"; }
[ "$ok" -eq 1 ] && pass "convert .dat -> .lcp -> .blcp -> .dat: exit 0 each"
lcp solve "$T/nonsym.dat" --solver pgs --tol 1e-12 --solution "$T/rt0.x"
for f in rt1.lcp rt2.blcp rt3.dat; do
  lcp solve "$T/$f" --solver pgs --tol 1e-12 --solution "$T/$f.x"
  if [ "$rc" -eq 0 ] && cmp -s "$T/rt0.x" "$T/$f.x" && close "$T/$f.x" 1 3; then
    pass "solve $f: x identical byte for byte to nonsym.dat's, = (1, 3)"
  else
    fail "solve $f after convert" "exit $rc, x=$(tr '\n' ' ' <"$T/$f.x" 2>/dev/null)"
  fi
done

# MatrixMarket: A in OUT.mtx plus sidecar vectors STEM.b (and .lo, .hi, .findex, .mu).
lcp convert "$T/rt2.blcp" "$T/rt4.mtx"
rc1=$rc
lcp solve "$T/rt4.mtx" --solver pgs --tol 1e-12 --solution "$T/rt4.x"
if [ "$rc1" -eq 0 ] && [ -f "$T/rt4.b" ] && [ "$rc" -eq 0 ] && cmp -s "$T/rt0.x" "$T/rt4.x"; then
  pass "convert .blcp -> .mtx (+ .b): same x byte for byte"
else
  fail "convert .blcp -> .mtx" "exit $rc1 / $rc"
fi
printf 'keep me\n' >"$T/side.b"
expect_err "convert to .mtx whose sidecar STEM.b exists" "$T/side.b" convert "$T/sym.dat" "$T/side.mtx"
if [ ! -e "$T/side.mtx" ] && [ "$(cat "$T/side.b")" = "keep me" ]; then
  pass "nothing written when a sidecar exists"
else
  fail "sidecar exists" "files written"
fi

cp "$T/rt3.dat" "$T/rt3.orig"
expect_err "convert to an existing OUT" "$T/rt3.dat" convert "$T/sym.dat" "$T/rt3.dat"
if cmp -s "$T/rt3.dat" "$T/rt3.orig"; then
  pass "convert without --force left OUT unchanged"
else
  fail "convert without --force left OUT unchanged" "rt3.dat was modified"
fi
lcp convert "$T/sym.dat" "$T/rt3.dat" --force
if [ "$rc" -eq 0 ]; then pass "convert --force overwrites"; else fail "convert --force" "exit $rc"; fi
expect_err "convert: unknown OUT extension without --to" "$T/out.xyz" convert "$T/sym.dat" "$T/out.xyz"
if [ ! -e "$T/out.xyz" ]; then pass "nothing written for an unknown extension"; else fail "unknown extension" "file written"; fi
lcp convert "$T/sym.dat" "$T/to.xyz" --to lcplab
rc1=$rc
lcp solve "$T/to.xyz" --format lcplab --solver pgs --tol 1e-12 --solution "$T/to.x"
if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && close "$T/to.x" 1.3333333333333333 2.3333333333333335; then
  pass "convert --to lcplab, solve --format lcplab"
else
  fail "convert --to lcplab" "exit $rc"
fi
expect_err "convert: missing input" "$T/no-such-file.dat" convert "$T/no-such-file.dat" "$T/x.lcp"
expect_err "convert: malformed input" "$T/trunc.dat" convert "$T/trunc.dat" "$T/x.lcp"
if [ ! -e "$T/x.lcp" ]; then pass "nothing written for a bad input"; else fail "convert bad input" "file written"; fi
# A friction (findex) problem cannot be a Siconos LCP file.
printf '2\n2 0\n0 2\n5 1\n0 -0.5\ninf 0.5\n-1 0\n' >"$T/fric.blcp"
expect_err "convert: findex problem to .dat (unsupported)" "$T/fric" convert "$T/fric.blcp" "$T/fric.dat"
if [ ! -e "$T/fric.dat" ]; then pass "nothing written for an unsupported target"; else fail "unsupported target" "file written"; fi
expect_err "convert: unknown option" "--bogus" convert "$T/sym.dat" "$T/y.lcp" --bogus
expect_err "convert: missing OUT" "OUT" convert "$T/sym.dat"

# ---- frictional contact: Siconos FC3D .dat <-> FCLIB .hdf5 <-> .lcp ----------------------
# fc1: one contact, W = I, q = (-1, 0.25, 0), mu = 0.5.  Guess sticking, u = W r + q = 0:
# r = -q = (1, -0.25, 0), and |r_t| = 0.25 < mu r_n = 0.5 (strictly inside the cone), so
# r solves Coulomb's law (De Saxce: u = 0 gives û = 0, which is in the dual cone).
printf '3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0.25 0\n0.5\n' >"$T/fc1.dat"
# conv_chain STEM FROM: FROM -> STEM.hdf5 -> STEM.lcp -> STEM.dat, and FROM -> STEM.d.lcp,
# FROM -> STEM.d.dat directly; the text files of both routes must be byte-identical.
conv_chain() {
  cc_ok=1
  lcp convert "$2" "$T/$1.hdf5"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$T/$1.hdf5" "$T/$1.lcp"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$T/$1.lcp" "$T/$1.dat"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$2" "$T/$1.d.lcp"
  [ "$rc" -eq 0 ] || cc_ok=0
  lcp convert "$2" "$T/$1.d.dat"
  [ "$rc" -eq 0 ] || cc_ok=0
  if [ "$cc_ok" -eq 1 ] && cmp -s "$T/$1.lcp" "$T/$1.d.lcp" && cmp -s "$T/$1.dat" "$T/$1.d.dat"; then
    pass "convert $(basename "$2") -> .hdf5 -> .lcp -> .dat: byte-identical to the direct conversions"
  else
    fail "convert chain of $(basename "$2")" "exit $rc or files differ"
  fi
}
conv_chain fc1c "$T/fc1.dat"
cone_solver=
lcp solvers
for s in nsgs pjacobi_cone pcg_cone apgd; do
  if grep -q "^$s " "$T/out"; then
    cone_solver=$s
    break
  fi
done
if [ -n "$cone_solver" ]; then
  lcp solve "$T/fc1.dat" --solver "$cone_solver" --tol 1e-12 --solution "$T/fc1.x"
  if [ "$rc" -eq 0 ] && close "$T/fc1.x" 1 -0.25 0 &&
    grep -qE '^\{"instance":"fc1\.dat","solver":"'"$cone_solver"'","kind":"cone","n":3,"status":"converged","iterations":[0-9]+,"time_s":[-+.0-9eE]+,"res_nat_inf":[-+.0-9eE]+,"res_rel":[-+.0-9eE]+,"compl":[-+.0-9eE]+,"infeas":[-+.0-9eE]+,"cone_law":"coulomb","merit_fclib":[-+.0-9eE]+,' "$T/out" &&
    [ "$(json_field format)" = '"siconos-fc3d"' ]; then
    pass "solve fc1.dat ($cone_solver): r = (1, -0.25, 0); cone_law, merit_fclib after the required fields"
  else
    fail "solve fc1.dat with $cone_solver" "exit $rc, x=$(tr '\n' ' ' <"$T/fc1.x" 2>/dev/null)"
  fi
  for f in fc1c.hdf5 fc1c.lcp fc1c.dat; do
    lcp solve "$T/$f" --solver "$cone_solver" --tol 1e-12 --solution "$T/$f.x" --force
    if [ "$rc" -eq 0 ] && cmp -s "$T/fc1.x" "$T/$f.x"; then
      pass "solve the converted $f: the same r byte for byte"
    else
      fail "solve the converted $f" "exit $rc"
    fi
  done
  # FCLIB solutions and guesses: --solution OUT.hdf5 holds the problem, /solution and the
  # --warm start as /guesses/1; --warm OUT.hdf5 starts from /solution/r, the exact r, so
  # the solve stops at once with it
  lcp solve "$T/fc1.dat" --solver "$cone_solver" --tol 1e-12 --warm "$T/fc1.x" \
    --solution "$T/fc1sol.hdf5"
  rc1=$rc
  lcp solve "$T/fc1sol.hdf5" --solver "$cone_solver" --tol 1e-12 --warm "$T/fc1sol.hdf5" \
    --solution "$T/fc1sol.x"
  if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && close "$T/fc1sol.x" 1 -0.25 0 &&
    [ "$(json_field iterations)" = 0 ] && [ "$(json_field warm_start)" = true ]; then
    pass "solve --solution x.hdf5 (FCLIB), then --warm x.hdf5: starts at /solution/r, 0 iterations"
  else
    fail "FCLIB solution and warm start" "exit $rc1/$rc, iterations $(json_field iterations)"
  fi
else
  echo "SKIP: no cone solver registered (the conversions above were still checked)"
fi
expect_err "solve --solution x.hdf5 for an LCP (FCLIB holds cones only)" \
  "fclib holds only frictional-contact problems" solve "$T/sym.dat" --solver pgs --solution "$T/sym.hdf5"
if [ ! -e "$T/sym.hdf5" ]; then pass "nothing written (nor solved) for an LCP solution in .hdf5"; else fail "LCP solution in .hdf5" "file written"; fi
expect_err "solve --warm x.hdf5 without /solution or /guesses" \
  "expected a starting point in /solution/r or /guesses/1/r" \
  solve "$T/fc1c.hdf5" --solver nsgs --warm "$T/fc1c.hdf5"
expect_err "a solver without cones on an FC3D problem" "cones" solve "$T/fc1.dat" --solver pgs
expect_err "convert an FC3D problem to .blcp (unsupported)" "cannot hold Coulomb cones" \
  convert "$T/fc1.dat" "$T/fc1.blcp"
if [ ! -e "$T/fc1.blcp" ]; then pass "nothing written for cones in .blcp"; else fail "cones in .blcp" "file written"; fi
expect_err "convert an LCP to .hdf5 (unsupported)" "fclib holds only frictional-contact problems" \
  convert "$T/sym.dat" "$T/sym.hdf5"
if [ ! -e "$T/sym.hdf5" ]; then pass "nothing written for an LCP in .hdf5"; else fail "LCP in .hdf5" "file written"; fi
printf 'not an HDF5 file\n' >"$T/text.hdf5"
expect_err "solve a .hdf5 that is not HDF5" "$T/text.hdf5: expected an HDF5 file" \
  solve "$T/text.hdf5" --solver pgs
head -c 1000 "$T/fc1c.hdf5" >"$T/trunc.hdf5"
expect_err "solve a truncated .hdf5" "$T/trunc.hdf5: expected an HDF5 file (FCLIB) that HDF5 can open" \
  solve "$T/trunc.hdf5" --solver pgs
printf '2\n1\n0\n2\n2\n2\t2\n1 0\n0 1\n-1 0\n0.5\n' >"$T/fc2d.dat"
expect_err "solve a 2-D frictional-contact .dat" "2-D frictional contact" solve "$T/fc2d.dat" --solver pgs
printf '3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0.25 0\n-0.5\n' >"$T/negmu.dat"
expect_err "solve an FC3D .dat with mu < 0" "negmu.dat:11: expected mu[0] >= 0, found '-0.5'" \
  solve "$T/negmu.dat" --solver pgs

# ---- a full disk while writing FCLIB (issue 48, case 7) ---------------------------------
# RLIMIT_FSIZE with SIGXFSZ ignored makes every write past the limit fail with EFBIG, as a
# full disk does (ulimit -f counts 512-byte blocks in dash, 1 KiB in bash: both far below
# an FCLIB file's 8 KiB or more).  libfclib exits the process on a failing HDF5 call; the
# writers must report it: exit 2, one line naming the file, the old file intact, no
# temporary file left beside it.
# full_disk DESC FILE ARGS...: run lcplab with a 1-2 KiB file size limit, then check.
full_disk() {
  fd_desc=$1
  fd_file=$2
  shift 2
  (
    ulimit -f 2
    trap '' XFSZ
    lcp "$@"
    exit "$rc"
  )
  rc=$?
  fd_left=$(find "$T" -name "$(basename "$fd_file").*" | wc -l)
  if [ "$rc" -ne 2 ]; then
    fail "$fd_desc" "exit $rc, expected 2"
  elif [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -qF "$fd_file: cannot write" "$T/err"; then
    fail "$fd_desc" "stderr is not one line naming $fd_file: $(cat "$T/err")"
  elif [ "$fd_left" -ne 0 ]; then
    fail "$fd_desc" "$fd_left temporary file(s) left beside $fd_file"
  else
    pass "$fd_desc"
  fi
}
cp "$T/fc1c.hdf5" "$T/full.hdf5"
full_disk "convert --force onto a full disk: exit 2, one line" "$T/full.hdf5" \
  convert "$T/fc1.dat" "$T/full.hdf5" --force
if cmp -s "$T/fc1c.hdf5" "$T/full.hdf5"; then pass "convert onto a full disk: the old file intact"; else fail "convert onto a full disk" "the old file changed"; fi
full_disk "convert to a new .hdf5 on a full disk: exit 2, one line" "$T/fullnew.hdf5" \
  convert "$T/fc1.dat" "$T/fullnew.hdf5"
if [ ! -e "$T/fullnew.hdf5" ]; then pass "convert to a new file on a full disk: nothing written"; else fail "convert to a new file on a full disk" "file written"; fi
full_disk "solve --solution x.hdf5 on a full disk: exit 2, one line" "$T/fullsol.hdf5" \
  solve "$T/fc1.dat" --solver nsgs --solution "$T/fullsol.hdf5"
if [ ! -e "$T/fullsol.hdf5" ]; then pass "solve --solution on a full disk: nothing written"; else fail "solve --solution on a full disk" "file written"; fi

# ---- shared dataset (optional) -----------------------------------------------------------
# Siconos FC3D_Example1.dat (3 contacts, W = I, q = (-1, 1, 3) per contact, mu = 0.1)
# through FCLIB and lcplab: byte-identical conversions and the same solution.
ex1="${LCPLAB_SHARED:-../shared}/datasets/siconos/fc3d/FC3D_Example1.dat"
if [ -f "$ex1" ]; then
  conv_chain ex1 "$ex1"
  if [ -n "$cone_solver" ]; then
    lcp solve "$ex1" --solver "$cone_solver" --tol 1e-12 --solution "$T/ex1.x"
    ok=0
    [ "$rc" -eq 0 ] && ok=1
    for f in ex1.hdf5 ex1.lcp ex1.dat; do
      lcp solve "$T/$f" --solver "$cone_solver" --tol 1e-12 --solution "$T/$f.x" --force
      if [ "$rc" -ne 0 ] || ! cmp -s "$T/ex1.x" "$T/$f.x"; then ok=0; fi
    done
    if [ "$ok" -eq 1 ]; then
      pass "FC3D_Example1 as .dat, .hdf5, .lcp: converged, identical solutions ($cone_solver)"
    else
      fail "FC3D_Example1 across formats" "exit $rc or solutions differ"
    fi
  fi
else
  echo "SKIP: $ex1 not found (LCPLAB_SHARED)"
fi

# DCA-BL lcp7-n100.mat (MATLAB 7.3, sparse M, n = 100; libio/io_mat.c): solved by
# lemke, converted to .lcp and solved to the same bits; writing .mat is refused (exit 2).
dca="${LCPLAB_SHARED:-../shared}/datasets/other/dca-bl_benchmark_lcps/lcp7-n100.mat"
if [ -f "$dca" ]; then
  lcp solve "$dca" --solver lemke --solution "$T/dca.x"
  if [ "$rc" -eq 0 ] && grep -q '"status":"converged"' "$T/out" && grep -q '"format":"mat"' "$T/out"; then
    pass "solve lcp7-n100.mat --solver lemke: exit 0, converged, format mat"
  else
    fail "solve lcp7-n100.mat --solver lemke" "exit $rc: $(cat "$T/out" "$T/err")"
  fi
  lcp convert "$dca" "$T/dca.lcp"
  rc1=$rc
  lcp solve "$T/dca.lcp" --solver lemke --solution "$T/dca.lcp.x"
  if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$T/dca.x" "$T/dca.lcp.x"; then
    pass "convert lcp7-n100.mat -> .lcp: exit 0, the same solution byte for byte"
  else
    fail "convert lcp7-n100.mat -> .lcp" "exit $rc1 / $rc or solutions differ"
  fi
  lcp convert "$dca" "$T/dca.mat"
  if [ "$rc" -eq 2 ] && [ ! -e "$T/dca.mat" ] && grep -q 'does not write them' "$T/err"; then
    pass "convert to .mat: refused (read only), exit 2, nothing written"
  else
    fail "convert to .mat" "exit $rc: $(cat "$T/err")"
  fi
else
  echo "SKIP: $dca not found (LCPLAB_SHARED)"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
