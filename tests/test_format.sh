#!/bin/sh
# test_format.sh -- every C source and header of the project is formatted as
# .clang-format says (docs/README.md, "Formatting"): clang-format --dry-run
# --Werror reports any file that it would change.  The check is first shown
# to fail on a planted, badly formatted file.
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed"; 77 without
# clang-format (Debian package clang-format; run-tests.sh installs it).
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# a check of the sources, not of a build: the sanitizer stage of
# scripts/run-tests.sh set LCPLAB_SOURCE_TESTS_DONE (the check stage ran it)
if [ -n "${LCPLAB_SOURCE_TESTS_DONE:-}" ]; then
  echo "SKIP: checks the sources, which the check stage of scripts/run-tests.sh did"
  exit 77
fi
TST_NAME=test_format
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
cf=$(command -v clang-format) || { echo "SKIP: clang-format not found"; exit 77; }
style="--style=file:$top/.clang-format"

printf 'int f(int x)\n{\n    if (x) { return 1; } return 0;\n}\n' >"$T/bad.c"
if ! "$cf" "$style" --dry-run --Werror "$T/bad.c" >/dev/null 2>&1; then
  pass "a badly formatted file is reported"
else
  fail "a badly formatted file is reported"
fi

find "$top/libsolvers" "$top/libdynamics" "$top/libio" "$top/libmodels" "$top/cli" "$top/python/ext" \
  "$top/experiments" "$top/datasets" "$top/tests" -name '*.[ch]' | sort >"$T/files"
n=$(wc -l <"$T/files")
# shellcheck disable=SC2046
if "$cf" "$style" --dry-run --Werror $(cat "$T/files") >"$T/out" 2>&1; then
  pass "all $n C files match .clang-format"
else
  fail "C files that clang-format would change" "$(grep -c 'error:' "$T/out") places; first: $(grep -m 3 'error:' "$T/out")"
fi
tst_done
