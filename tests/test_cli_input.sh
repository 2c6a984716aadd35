#!/bin/sh
# test_cli_input.sh -- `lcplab solve` and `convert` on bad input (lcplab(1),
# docs/lcplab.1, "EXIT STATUS"): malformed, truncated and binary files,
# impossible headers, the memory cap (--max-memory), global problems whose M
# or H is wrong: exit 2, nothing on stdout, one line on stderr naming the
# file (and the line and field where there is one).
#
# Environment (set by `make check`, see Makefile.am AM_TESTS_ENVIRONMENT):
#   LCPLAB_BIN     the built program (required; without it: SKIP, exit 77)
#   LCPLAB_SHARED  ../shared (optional: the check of a large shared global
#                  problem is skipped when it is absent)
#   LCPLAB_VALGRIND=1  optional: run every lcplab invocation under memcheck;
#                  any error or definite leak makes it exit 99, which fails
#                  the check that ran it.
#
# The hand-derived problem sym.dat: tst_cli_hand.sh.
# Exit: 0 all passed, 1 any failure, 77 skipped.  Last line: "N passed, M failed".

TST_NAME=test_cli_input
# shellcheck source=tst_cli_hand.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_hand.sh"

# ---- solve: bad input, one line naming the file -----------------------------------------
: >"$T/empty.dat"
expect_err "empty file" "$T/empty.dat" solve "$T/empty.dat" --solver pgs
printf '2\n0\n2\n2\n2\t2\n2 1\n1\n' >"$T/trunc.dat"
expect_err "truncated data" "$T/trunc.dat" solve "$T/trunc.dat" --solver pgs
printf '2\n0\n2\n2\n2\t2\n2 1\nabc 2\n-5 -6\n' >"$T/token.dat"
expect_err "non-numeric token" "$T/token.dat" solve "$T/token.dat" --solver pgs
printf '2\n0\n2\n2\n2\t2\n2 nan\n1 2\n-5 -6\n' >"$T/nan.dat"
expect_err "NaN entry" "$T/nan.dat" solve "$T/nan.dat" --solver pgs
printf '%s\n' -3 0 -3 -3 '-3 -3' '1 2 3' >"$T/neg.dat"
expect_err "negative size" "$T/neg.dat" solve "$T/neg.dat" --solver pgs
printf '1000000000000\n0\n1000000000000\n1000000000000\n1000000000000\t1000000000000\n1 2\n' >"$T/huge.dat"
expect_err "n = 1000000000000 header" "$T/huge.dat" solve "$T/huge.dat" --solver pgs
printf '2000000000\n0\n2000000000\n2000000000\n2000000000\t2000000000\n1 2\n' >"$T/big.dat"
expect_err "n = 2000000000 header (fits an int, not the file)" "$T/big.dat" solve "$T/big.dat" --solver pgs
# Every byte value 0..255, 16 times: deterministic binary garbage.
i=0
while [ $i -lt 256 ]; do
  # shellcheck disable=SC2059
  printf "\\$(printf %o $i)"
  i=$((i + 1))
done >"$T/bytes.bin"
cat "$T/bytes.bin" "$T/bytes.bin" "$T/bytes.bin" "$T/bytes.bin" >"$T/bytes4.bin"
cat "$T/bytes4.bin" "$T/bytes4.bin" "$T/bytes4.bin" "$T/bytes4.bin" >"$T/garbage.dat"
expect_err "binary garbage (fixed bytes) .dat" "$T/garbage.dat" solve "$T/garbage.dat" --solver pgs
cp "$T/garbage.dat" "$T/garbage.blcp"
expect_err "binary garbage (fixed bytes) .blcp" "$T/garbage.blcp" solve "$T/garbage.blcp" --solver pgs
cp "$T/garbage.dat" "$T/garbage.lcp"
expect_err "binary garbage (fixed bytes) .lcp" "$T/garbage.lcp" solve "$T/garbage.lcp" --solver pgs
cp "$T/garbage.dat" "$T/garbage"
expect_err "binary garbage (fixed bytes), no extension" "$T/garbage" solve "$T/garbage" --solver pgs
head -c 4096 /dev/urandom >"$T/random.dat"
expect_err "binary garbage (/dev/urandom)" "$T/random.dat" solve "$T/random.dat" --solver pgs
printf '2\n2 1\n1 2\n5 6\n0 1\n1 0\n' >"$T/lohi.blcp"
expect_err "lo > hi in a .blcp" "$T/lohi.blcp" solve "$T/lohi.blcp" --solver pgs
printf '2\n2 1\n1 2\n5 6\n0 -1\ninf 1\n-1 5\n' >"$T/findex.blcp"
expect_err "findex out of range in a .blcp" "$T/findex.blcp" solve "$T/findex.blcp" --solver pgs
expect_err "missing file" "$T/no-such-file.dat" solve "$T/no-such-file.dat" --solver pgs
expect_err "unknown --format" "nosuchformat" solve "$T/sym.dat" --solver pgs --format nosuchformat


# ---- the memory cap (--max-memory) -----------------------------------------------------
# A read refuses a file whose sizes need more than the cap, naming the file, the line and the
# field, before allocating for them: exit 2, one line, nothing written.
expect_err "solve --max-memory 10: the file itself is over the cap" \
  "$T/sym.dat: expected a file that fits the memory cap of 10 bytes (max_memory)" \
  solve "$T/sym.dat" --solver pgs --max-memory 10
expect_err "solve --max-memory 100: n = 2 is over the cap" \
  "$T/sym.dat:1: expected sizes that fit the memory cap of 100 bytes (max_memory), found n = 2" \
  solve "$T/sym.dat" --solver pgs --max-memory 100
lcp solve "$T/sym.dat" --solver pgs --tol 1e-12 --max-memory 1K
if [ "$rc" -eq 0 ]; then pass "solve --max-memory 1K: sym.dat fits"; else fail "solve --max-memory 1K" "exit $rc"; fi
# MatrixMarket: three lines of text, but n = 2000 is a dense A of 32 MB
printf '%%%%MatrixMarket matrix coordinate real general\n2000 2000 1\n1 1 2\n' >"$T/big.mtx"
printf '1\n' >"$T/big.b"
expect_err "convert --max-memory 16M: a small header that needs 32 MB" \
  "$T/big.mtx:2: expected sizes that fit the memory cap of 16777216 bytes (max_memory), found n = 2000" \
  convert "$T/big.mtx" "$T/big.lcp" --max-memory 16M
if [ ! -e "$T/big.lcp" ]; then pass "nothing written over the cap"; else fail "over the cap" "file written"; fi
for v in 0 -5 12X 1.5G ''; do
  expect_err "solve --max-memory '$v' is refused" "--max-memory must be a byte count" \
    solve "$T/sym.dat" --solver pgs --max-memory "$v"
done

# ---- global problems: bad M and H, the memory cap (issue 50) -------------------------------
# A Siconos gfc3d .dat (d, nc, M, H, q, b, mu) whose M is not symmetric positive definite,
# whose H has the wrong shape, or whose sizes need more than --max-memory: exit 2, one line
# naming the file, the line and the field.
gm_ok='2\n2\n2\t2\n2 0.5\n0.5 1\n'
gh_ok='0\n2\n3\n2\t3\n1 0\n0 1\n0.5 0\n'
gtail='-1 0.5\n0 0 0\n0.3\n'
# shellcheck disable=SC2059
printf "3\n1\n0\n$gm_ok$gh_ok$gtail" >"$T/gok.dat"
# shellcheck disable=SC2059
printf "3\n1\n0\n2\n2\n2\t2\n2 0.5\n0.4 1\n$gh_ok$gtail" >"$T/gnsym.dat"
# shellcheck disable=SC2059
printf "3\n1\n0\n2\n2\n2\t2\n1 2\n2 1\n$gh_ok$gtail" >"$T/gnpd.dat"
# shellcheck disable=SC2059
printf "3\n1\n0\n${gm_ok}0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n$gtail" >"$T/gh.dat"
lcp solve "$T/gok.dat" --solver nsn_ac
if [ "$rc" -eq 0 ] && grep -q '"format":"siconos-gfc3d"' "$T/out" && grep -q '"read_s":[0-9]' "$T/out" &&
  grep -q '"condense_s":[0-9]' "$T/out" && grep -q '"res_global":[0-9]' "$T/out"; then
  pass "global .dat: read as siconos-gfc3d and solved; read_s, condense_s, res_global reported"
else
  fail "global .dat" "exit $rc; $(head -c 300 "$T/out" "$T/err")"
fi
expect_err "global .dat: M not symmetric" \
  "$T/gnsym.dat:4: expected M symmetric, found M(0,1) = 0.40000000000000002, M(1,0) = 0.5" \
  solve "$T/gnsym.dat" --solver nsn_ac
expect_err "global .dat: M not positive definite" \
  "$T/gnpd.dat:4: expected M positive definite" solve "$T/gnpd.dat" --solver nsn_ac
expect_err "global .dat: H 3 x 3 where M is 2 x 2" \
  "$T/gh.dat:10: expected H to be 2 x 3 (ndof x 3 nc = 2 x 3), found 3 x 3" \
  solve "$T/gh.dat" --solver nsn_ac
# the cap lets the instance (its recorded slv_options included) and H in, not the
# condensation: 1040 since slv_options gained ppa_nsn's five fields (40 bytes)
expect_err "global .dat: the condensation over --max-memory 1040" \
  "$T/gok.dat:4: expected sizes that fit the memory cap of 1040 bytes (max_memory), found the condensation of M" \
  solve "$T/gok.dat" --solver nsn_ac --max-memory 1040
# ppa_nsn's proximal parameter through --opt (issue 80): <= 0, non-finite, unknown: by name
expect_err "--opt prox_sigma=0 refused by name" \
  "solve: invalid options (--opt): prox_sigma=0 must be finite and > 0" \
  solve "$T/gok.dat" --solver ppa_nsn --opt prox_sigma=0
expect_err "--opt prox_sigma=inf refused by name" \
  "solve: --opt prox_sigma=inf: prox_sigma: expected a finite number" \
  solve "$T/gok.dat" --solver ppa_nsn --opt prox_sigma=inf
expect_err "--opt without NAME=VALUE" "solve: --opt expects NAME=VALUE" \
  solve "$T/gok.dat" --solver ppa_nsn --opt prox_sigma
expect_err "global .dat: convert over --max-memory 300" \
  "$T/gok.dat:2: expected sizes that fit the memory cap of 300 bytes (max_memory), found nc = 1" \
  convert "$T/gok.dat" "$T/gok.hdf5" --max-memory 300
sph="${LCPLAB_SHARED:-../shared}/datasets/siconos/gfc3d/Spheres-i099-356-679.hdf5"
if [ -f "$sph" ]; then
  expect_err "/fclib_global over --max-memory 1M" \
    "$sph: expected sizes that fit the memory cap of 1048576 bytes (max_memory), found /fclib_global: M, H, f, w (ndof = 12000" \
    solve "$sph" --solver nsn_ac --max-memory 1M
fi

# ---- HDF5, libfclib and libmatio opened on first use (docs/io.md) --------------------------
# A file named as HDF5's soname (config.h) that is no library, first on the
# loader's path: a .dat still solves (the program starts without HDF5), and
# reading or writing an FCLIB file, or reading a MAT-file, fails naming the
# library and why.  Linked as before, the program would not start at all.
so=$(sed -n 's/^#define IO_HDF5_SONAME "\(.*\)"$/\1/p' "${LCPLAB_BUILDDIR:-.}/config.h" 2>/dev/null)
if [ -z "$so" ]; then
  fail "config.h names HDF5's soname (IO_HDF5_SONAME)" "none in ${LCPLAB_BUILDDIR:-.}/config.h"
else
  lcp convert "$T/gok.dat" "$T/dl.hdf5"
  [ "$rc" -eq 0 ] || fail "convert gok.dat to FCLIB with HDF5 loadable" "exit $rc: $(cat "$T/err")"
  mkdir "$T/nolib"
  printf 'not a library\n' >"$T/nolib/$so"
  printf 'MATLAB 5.0 MAT-file' >"$T/dl.mat"
  head -c 200 /dev/zero >>"$T/dl.mat"
  ld_before=${LD_LIBRARY_PATH-unset}
  LD_LIBRARY_PATH=$T/nolib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
  lcp solve "$T/sym.dat" --solver lemke
  if [ "$rc" -eq 0 ] && grep -q '"status":"converged"' "$T/out"; then
    pass "without a loadable HDF5, a .dat still solves"
  else
    fail "without a loadable HDF5, a .dat still solves" "exit $rc: $(cat "$T/err")"
  fi
  expect_err "without a loadable HDF5, reading an FCLIB file names the library" \
    "$T/dl.hdf5: reading an FCLIB file needs HDF5, libfclib and libmatio: $so cannot be loaded" \
    solve "$T/dl.hdf5" --solver nsn_ac
  expect_err "without a loadable HDF5, writing an FCLIB file names the library" \
    "$T/dl2.hdf5: writing an FCLIB file needs HDF5, libfclib and libmatio: $so cannot be loaded" \
    convert "$T/gok.dat" "$T/dl2.hdf5"
  [ -e "$T/dl2.hdf5" ] && fail "the FCLIB file that could not be written is absent" "$T/dl2.hdf5 exists"
  expect_err "without a loadable HDF5, reading a MAT-file names the library" \
    "$T/dl.mat: reading a MAT-file needs HDF5, libfclib and libmatio: $so cannot be loaded" \
    solve "$T/dl.mat" --solver lemke
  if [ "$ld_before" = unset ]; then
    unset LD_LIBRARY_PATH
  else
    LD_LIBRARY_PATH=$ld_before
  fi
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
