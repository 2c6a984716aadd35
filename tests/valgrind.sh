#!/bin/sh
# valgrind.sh -- runs one test, or one program, under valgrind's memcheck;
# definite and indirect leaks and every memory error make it fail.
#
#   LOG_COMPILER of `make check-valgrind`, from the top build directory:
#     tests/valgrind.sh ./tests/test_pgs          (exit 1 on a memcheck error)
#   the memcheck runs of lcplab in the shell tests (tst_cli_lib.sh):
#     LCPLAB_VG_EXIT=99 tests/valgrind.sh BUILD/cli/lcplab ARGS...
#                                               (exit 99 on a memcheck error)
#
# Shell scripts (*.sh) are skipped here (exit 77; memcheck would trace the
# shell, not lcplab), see below; a script run by hand with LCPLAB_VALGRIND=1
# runs every lcplab it calls under memcheck through this script.  Programs
# in a build tree are usually libtool wrapper scripts (shared libraries):
# they are run through the build's `libtool --mode=execute` (the folder
# above the program's), which substitutes the real binary (.libs/...) and
# sets LD_LIBRARY_PATH, so memcheck sees the program itself.
if [ $# -lt 1 ]; then
  echo "usage: $0 TEST|PROGRAM [ARGS...]" >&2
  exit 2
fi
case $1 in
  *.sh)
    # test_cli.sh, test_cli_input.sh and test_cli_convert.sh ran their
    # lcplab under memcheck (LCPLAB_VALGRIND=1 in tst_cli_lib.sh, still
    # there for a run by hand: `LCPLAB_VALGRIND=1 sh tests/test_cli.sh`):
    # 258 s of CPU, a third of this stage, which kept the suite over its 20
    # minutes (experiments/records/2026-11-28-ci-timeout.md).  What they
    # drive runs here through the C tests of the same libraries, and the
    # scripts run under gcc's and clang's sanitizers.
    # The other scripts drive the same lcplab through simulate, experiment
    # and campaigns: their memory errors are the sanitizer stage's
    # (AddressSanitizer, LeakSanitizer, UBSan on every test), and under
    # memcheck they cost half of this stage's time (2026-11-23); skipped
    echo "SKIP: $1 under memcheck (run natively and under the sanitizers in make check)"
    exit 77
    ;;
  *test_mjcf | *test_mjcf_mujoco)
    # MuJoCo's MJCF compiler (a library of its own, not built here) on
    # every scene, and the model probe's forks: 52 s of CPU under memcheck;
    # libmodels' own code runs under the sanitizers
    echo "SKIP: $1 under memcheck (run natively and under the sanitizers)"
    exit 77
    ;;
  *test_threads | *test_world_threads)
    # the threaded kernels and world steps on 1 to 3 threads, compared bit
    # for bit: memcheck runs one thread at a time (their one-thread paths
    # are test_solvers' and test_world's here), and the two took 62 s of
    # CPU, an eighth of this stage (experiments/records/
    # 2026-11-28-ci-timeout.md).  The sanitizer stage runs them threaded.
    echo "SKIP: $1 under memcheck (run natively and under the sanitizers)"
    exit 77
    ;;
  *test_pgs_wide)
    # its six suites compare pgs_wide, pgs_color and pgs_part bit for bit
    # with pgs on lattices of thousands of rows, on 1 to 3 threads: under
    # memcheck about half of this stage, which kept the suite over its 20
    # minutes (experiments/records/2026-11-25-quadratic-residual-factored.md).
    # The sanitizer stage runs it;
    # under memcheck the three solvers still run in test_threads,
    # test_solvers and test_factored.
    echo "SKIP: $1 under memcheck (run natively, under the sanitizers and with clang)"
    exit 77
    ;;
esac
# The C tests run one instance of each heavy case's code paths under memcheck
# (tst_util.h, tst_short_runs), as lcplab's shell tests do (tst_cli_lib.sh).
LCPLAB_VALGRIND=1
export LCPLAB_VALGRIND
# OpenBLAS's kernels for this machine (Haswell and later: FMA) run several
# times slower under memcheck than its SSE3 ones (Prescott), which do the
# same products on the same arrays: test_auto took 50 s of CPU, 14 s with
# them (experiments/records/2026-11-26-verdict-any-blas-threads.md).  Only on
# x86-64, and only if not chosen already.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && [ "$(uname -m)" = x86_64 ]; then
  OPENBLAS_CORETYPE=Prescott
  export OPENBLAS_CORETYPE
fi
# --read-inline-info=no: error reports name the function a frame is
# compiled in, not the inlined ones; nothing goes undetected, and each start
# reads less debug information (0.06 s of the 0.7 s a short lcplab run costs)
VG="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=${LCPLAB_VG_EXIT:-1} --read-inline-info=no"
top=$(dirname "$(dirname "$1")")
if [ -x "$top/libtool" ]; then
  exec "$top/libtool" --mode=execute $VG "$@"
fi
exec $VG "$@"
