#!/bin/sh
# valgrind.sh -- LOG_COMPILER of `make check-valgrind`: runs one test under
# valgrind's memcheck; definite and indirect leaks and every memory error
# make the test fail (exit 1).
#
#   LOG_COMPILER=tests/valgrind.sh  ->  tests/valgrind.sh ./tests/test_pgs
#
# Shell scripts (*.sh) are not run under valgrind (memcheck would trace the
# shell, not lcplab): test_cli.sh runs directly with LCPLAB_VALGRIND=1, which
# makes it run every lcplab it calls under memcheck; the other scripts are
# skipped here (exit 77), see below.  Test programs in the build tree are usually
# libtool wrapper scripts (shared libsolvers): they are run through
# `./libtool --mode=execute`, which substitutes the real binary
# (.libs/...) and sets LD_LIBRARY_PATH, so memcheck sees the program itself.
# Run from the top build directory, as the automake test driver does.
if [ $# -lt 1 ]; then
  echo "usage: $0 TEST [ARGS...]" >&2
  exit 2
fi
case $1 in
  *test_cli.sh)
    LCPLAB_VALGRIND=1
    export LCPLAB_VALGRIND
    if [ -x "$1" ]; then exec "$@"; else exec "${SHELL:-/bin/sh}" "$@"; fi
    ;;
  *.sh)
    # the other scripts drive the same lcplab through simulate, experiment
    # and campaigns: their memory errors are the sanitizer stage's
    # (AddressSanitizer, LeakSanitizer, UBSan on every test), and under
    # memcheck they cost half of this stage's time (2026-11-23); skipped
    echo "SKIP: $1 under memcheck (run natively and under the sanitizers in make check)"
    exit 77
    ;;
  *test_pgs_wide)
    # its six suites compare pgs_wide, pgs_color and pgs_part bit for bit
    # with pgs on lattices of thousands of rows, on 1 to 3 threads: under
    # memcheck about half of this stage, which kept the suite over its 20
    # minutes (experiments/MEASUREMENTS.md, "the quadratic residual of large
    # factored problems").  The sanitizer and clang stages run it;
    # under memcheck the three solvers still run in test_threads,
    # test_solvers and test_factored.
    echo "SKIP: $1 under memcheck (run natively, under the sanitizers and with clang)"
    exit 77
    ;;
esac
# C tests may shorten long loops under memcheck (test_articulated's chain)
LCPLAB_VALGRIND=1
export LCPLAB_VALGRIND
VG="valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1 -q"
if [ -x ./libtool ]; then
  exec ./libtool --mode=execute $VG "$@"
fi
exec $VG "$@"
