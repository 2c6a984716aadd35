#!/bin/sh
# valgrind.sh -- LOG_COMPILER of `make check-valgrind`: runs one test under
# valgrind's memcheck; definite and indirect leaks and every memory error
# make the test fail (exit 1).
#
#   LOG_COMPILER=tests/valgrind.sh  ->  tests/valgrind.sh ./tests/test_pgs
#
# Shell scripts (*.sh) run directly, not under valgrind (memcheck would trace
# the shell, not lcplab); LCPLAB_VALGRIND=1 tells test_cli.sh to run every
# lcplab it calls under memcheck instead.  Test programs in the build tree are usually
# libtool wrapper scripts (shared libsolvers): they are run through
# `./libtool --mode=execute`, which substitutes the real binary
# (.libs/...) and sets LD_LIBRARY_PATH, so memcheck sees the program itself.
# Run from the top build directory, as the automake test driver does.
if [ $# -lt 1 ]; then
  echo "usage: $0 TEST [ARGS...]" >&2
  exit 2
fi
case $1 in
  *.sh)
    LCPLAB_VALGRIND=1
    export LCPLAB_VALGRIND
    if [ -x "$1" ]; then exec "$@"; else exec "${SHELL:-/bin/sh}" "$@"; fi
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
