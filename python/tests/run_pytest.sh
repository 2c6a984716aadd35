#!/bin/sh
# run_pytest.sh -- `make check`'s driver of the Python package's pytest suite
# (python/tests), with the interpreter configure chose and the package the
# build assembled (build/python/lcplab).  The environment comes from
# Makefile.am (AM_TESTS_ENVIRONMENT): LCPLAB_PYTHON, LCPLAB_PYTHONPATH,
# LCPLAB_BIN (the lcplab program the tests compare with), LCPLAB_SAN_FLAGS,
# LCPLAB_CC.
#
# Exit 77 (skipped) when pytest is missing, and under `make check-valgrind`
# (LCPLAB_VALGRIND=1): memcheck would trace the interpreter, and the suite
# already ran in the plain `make check` of the same build.  In a sanitizer
# build the extension needs the sanitizer runtime loaded first: it is
# preloaded (the compiler says where it is), and LeakSanitizer is off, since
# the interpreter keeps its own allocations until exit.
#
# LCPLAB_PYTEST_ONLY (Makefile.am, check-plain): the test files to run, by
# name, separated by blanks (else all).  The check stage of
# scripts/run-tests.sh runs only test_typing.py, which skips in a
# sanitizer build; the sanitizer stage runs the rest on the same code.  A
# name that is not a test file here is refused (exit 2), never run.
here=$(cd "$(dirname "$0")" && pwd)
py=${LCPLAB_PYTHON:-python3}
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then
  echo "SKIP: the Python tests do not run under memcheck (they ran in make check)"
  exit 77
fi
if ! "$py" -c "import pytest" 2>/dev/null; then
  echo "SKIP: pytest not found for $py (apt-get install python3-pytest)"
  exit 77
fi
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
# shellcheck source=../../tests/tst_python.sh
. "$here/../../tests/tst_python.sh"
tst_python_env || exit 77
set -f # the names are words, never patterns
set -- "$here"
[ -n "${LCPLAB_PYTEST_ONLY:-}" ] && set --
for f in ${LCPLAB_PYTEST_ONLY:-}; do
  case $f in
    */*) echo "run_pytest.sh: LCPLAB_PYTEST_ONLY: '$f' names a folder; give a file's name" >&2; exit 2 ;;
    test_*.py) ;;
    *) echo "run_pytest.sh: LCPLAB_PYTEST_ONLY: '$f' is not a test file's name (test_*.py)" >&2; exit 2 ;;
  esac
  if [ ! -f "$here/$f" ]; then
    echo "run_pytest.sh: LCPLAB_PYTEST_ONLY: no $f in $here" >&2
    exit 2
  fi
  set -- "$@" "$here/$f"
done
set +f
if [ $# -eq 0 ]; then
  echo "run_pytest.sh: LCPLAB_PYTEST_ONLY is set but names no file" >&2
  exit 2
fi
# its own temporary root: pytest's shared /tmp/pytest-of-USER keeps the three
# newest sessions and removes older ones, so two suites run at once (two builds,
# two stages) could lose a running test's files
bt=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-pytest.XXXXXX") || exit 1
"$py" -m pytest -q -p no:cacheprovider --basetemp "$bt" "$@"
rc=$?
rm -rf "$bt"
exit "$rc"
