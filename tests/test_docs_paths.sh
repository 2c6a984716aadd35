#!/bin/sh
# test_docs_paths.sh -- every docs/... file that a source names exists: the
# comments of the C sources and headers, Python, shell, gnuplot and build
# files point readers to the guides by path, and a rename (docs/cone-solvers.md
# once read "docs/cone-cone-solvers.md" in ten files) must not leave them
# pointing nowhere.  The scan is first checked on a planted file: a missing
# path is reported with its file and line, an existing one is not.
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed".
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# a check of the sources, not of a build: the sanitizer and clang stages of
# scripts/run-tests.sh set LCPLAB_SOURCE_TESTS_DONE (the check stage ran it)
if [ -n "${LCPLAB_SOURCE_TESTS_DONE:-}" ]; then
  echo "SKIP: checks the sources, which the check stage of scripts/run-tests.sh did"
  exit 77
fi
TST_NAME=test_docs_paths
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"

# missing_paths ROOT FILE...: "FILE:LINE: PATH" for each docs/ path named in
# the files that does not exist below ROOT (a path ends at the first
# character that cannot be in a file name; trailing dots are punctuation)
missing_paths() {
  root=$1
  shift
  grep -HnoE 'docs/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$@" 2>/dev/null |
    while IFS=: read -r file line path; do
      [ -e "$root/$path" ] || echo "$file:$line: $path"
    done
}

mkdir -p "$T/plant/docs"
: >"$T/plant/docs/real.md"
printf '/* see docs/real.md, "A"; and docs/gone.md. */\n' >"$T/plant/a.c"
missing_paths "$T/plant" "$T/plant/a.c" >"$T/planted"
if grep -q 'a.c:1: docs/gone.md$' "$T/planted" && ! grep -q real.md "$T/planted"; then
  pass "planted: the missing docs/gone.md is reported with its line, docs/real.md is not"
else
  fail "planted: expected docs/gone.md alone" "$(cat "$T/planted")"
fi

files=
for f in "$top"/libsolvers/*.[ch] "$top"/libdynamics/*.[ch] "$top"/libio/*.[ch] \
  "$top"/libexperiment/*.[ch] "$top"/libmodels/*.[ch] "$top"/cli/*.[ch] "$top"/python/ext/*.[ch] \
  "$top"/python/lcplab/*.py "$top"/tests/*.[ch] "$top"/tests/*.sh "$top"/tests/*/*.c \
  "$top"/experiments/*.c "$top"/experiments/*.sh "$top"/experiments/*.gp "$top"/scripts/*.sh \
  "$top"/scripts/*.py "$top"/Makefile.am "$top"/configure.ac; do
  [ -f "$f" ] && files="$files $f"
done
# shellcheck disable=SC2086
missing_paths "$top" $files | grep -v '/tests/test_docs_paths.sh:' >"$T/missing"
if [ -s "$T/missing" ]; then
  fail "docs/ paths named in sources that do not exist" "$(cat "$T/missing")"
else
  pass "every docs/ path named in the sources exists ($(echo $files | wc -w) files)"
fi
tst_done
