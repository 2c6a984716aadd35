#!/bin/sh
# test_function_length.sh -- no function of lcplab's C is over 150 lines
# (docs/README.md, "Naming"): the libraries (libsolvers, libdynamics, libio,
# libexperiment, libmodels), the program (cli/), the Python extension (python/ext),
# the tests and the experiments' programs, measured by
# scripts/function_lengths.py
# from the line of a function's name to its closing brace.  The measure is
# first checked on planted files: a 150-line function passes, a 151-line one
# (with braces in strings and comments that must not count) is reported with
# its name and length.
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed"; 77 without python3.
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# a check of the sources, not of a build: the sanitizer stage of
# scripts/run-tests.sh set LCPLAB_SOURCE_TESTS_DONE (the check stage ran it)
if [ -n "${LCPLAB_SOURCE_TESTS_DONE:-}" ]; then
  echo "SKIP: checks the sources, which the check stage of scripts/run-tests.sh did"
  exit 77
fi
TST_NAME=test_function_length
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
py=$(command -v python3) || { echo "SKIP: python3 not found"; exit 77; }
fl="$py $top/scripts/function_lengths.py"

# planted: f has LINES lines in all (header, body lines, closing brace)
plant() { # FILE NAME LINES
  {
    echo "static const char *s = \"{\"; /* { */"
    echo "static int $2(int x)"
    echo "{"
    i=3
    while [ "$i" -lt "$(($3 - 1))" ]; do echo "  x += 1; /* } */ // }"; i=$((i + 1)); done
    echo "  return x;"
    echo "}"
    echo "int g(void) { return 0; }"
  } >"$1"
}
plant "$T/ok.c" fits 150
plant "$T/long.c" too_long 151
if $fl --max 150 "$T/ok.c" >"$T/out" 2>"$T/err"; then pass "a 150-line function passes"; else fail "a 150-line function passes"; fi
$fl --max 150 "$T/long.c" >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(cat "$T/out")" = "151 $T/long.c:2 too_long" ]; then
  pass "a 151-line function is reported with its length and name"
else
  fail "a 151-line function is reported" "exit $rc"
fi

rm -f "$T/out" "$T/err"
# every C file of these folders that this tree has (a pattern without a
# match is dropped: a distribution may leave a folder out)
files=
for f in "$top"/libsolvers/*.c "$top"/libdynamics/*.c "$top"/libio/*.c \
  "$top"/libexperiment/*.c "$top"/libmodels/*.c "$top"/cli/*.c "$top"/python/ext/*.c "$top"/tests/*.c \
  "$top"/tests/*/*.c "$top"/experiments/*.c; do
  [ -f "$f" ] && files="$files $f"
done
# shellcheck disable=SC2086
if $fl --max 150 $files >"$T/long" 2>&1; then
  # shellcheck disable=SC2086
  $fl $files >"$T/all"
  pass "no function of the libraries, cli, python/ext, tests or experiments over 150 lines (longest: $(head -n 1 "$T/all"))"
else
  fail "functions over 150 lines" "$(cat "$T/long")"
fi
tst_done
