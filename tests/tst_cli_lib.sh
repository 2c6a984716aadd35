# tst_cli_lib.sh -- shared by the shell tests of the lcplab program
# (test_cli.sh, test_simulate.sh); sourced, not run.  The caller sets
# TST_NAME (the temporary directory's prefix) before sourcing.
#
# Provides: BIN (LCPLAB_BIN; SKIP with exit 77 when unset), T (a temporary
# directory removed at exit), npass / nfail with pass DESC / fail DESC WHY,
# lcp ARGS... (run lcplab: stdout -> $T/out, stderr -> $T/err, status ->
# $rc; under LCPLAB_VALGRIND=1 inside memcheck: any error or definite leak
# exits 99, which fails the check that ran it), expect_err, write_p2, and
# tst_short_runs.

BIN=${LCPLAB_BIN:-}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
  echo "SKIP: LCPLAB_BIN is not set or not an executable ('$BIN')"
  echo "0 passed, 0 failed"
  exit 77
fi

# shellcheck source=tst_lib.sh
. "$(dirname "${BASH_SOURCE:-$0}")/tst_lib.sh"

# Under LCPLAB_VALGRIND=1, lcplab runs under memcheck through valgrind.sh
# (memcheck's options in one place; in a build tree with shared libraries
# LCPLAB_BIN is a libtool wrapper script, which the build's `libtool
# --mode=execute` replaces by the real binary), exiting 99 on a memcheck
# error.
VG=
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then
  VG="$(dirname "${BASH_SOURCE:-$0}")/valgrind.sh"
  echo "running lcplab under memcheck: $VG"
fi

# write_p2 FILE: the campaign tests' hand problem, a Siconos LCP file:
# M = diag(2, 2), q = (-2, 1), whose answer is x = (1, 0).
write_p2() {
  printf '2\n0\n2\n2\n2 2\n2 0\n0 2\n-2 1\n' >"$1"
}

# lcp ARGS...: run lcplab, stdout -> $T/out, stderr -> $T/err, status -> $rc.
# tst_short_runs: true where the heavy cases run short, as the C tests'
# tst_short_runs (tests/tst_util.h): under memcheck (LCPLAB_VALGRIND=1), in a
# build with AddressSanitizer (LCPLAB_SAN_FLAGS) and with LCPLAB_SHORT_RUNS=1.
tst_short_runs() {
  [ "${LCPLAB_VALGRIND:-0}" = 1 ] || [ "${LCPLAB_SHORT_RUNS:-0}" = 1 ] && return 0
  case ${LCPLAB_SAN_FLAGS:-} in *address*) return 0 ;; esac
  return 1
}

lcp() {
  if [ -n "$VG" ]; then
    LCPLAB_VG_EXIT=99 sh "$VG" "$BIN" "$@" >"$T/out" 2>"$T/err"
  else
    "$BIN" "$@" >"$T/out" 2>"$T/err"
  fi
  rc=$?
}

# expect_err DESC WANT ARGS...: exit 2, nothing on stdout, exactly one line on
# stderr starting with "lcplab: " and containing WANT (a fixed string).
expect_err() {
  desc=$1
  want=$2
  shift 2
  lcp "$@"
  nl=$(wc -l <"$T/err")
  if [ "$rc" -ne 2 ]; then
    fail "$desc" "exit $rc, expected 2"
  elif [ -s "$T/out" ]; then
    fail "$desc" "stdout is not empty"
  elif [ "$nl" -ne 1 ]; then
    fail "$desc" "$nl lines on stderr, expected exactly 1"
  elif ! head -n 1 "$T/err" | grep -q '^lcplab: '; then
    fail "$desc" "stderr does not start with 'lcplab: '"
  elif ! grep -qF -- "$want" "$T/err"; then
    fail "$desc" "stderr does not mention '$want'"
  else
    pass "$desc"
  fi
}
