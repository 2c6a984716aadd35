#!/bin/sh
# test_docs_paths.sh -- every docs/... and experiments/records/... file that a
# source names exists: the comments of the C sources and headers, Python,
# shell, gnuplot and build files and the guides point readers to the guides
# and the measurement records by path, and a rename (docs/cone-solvers.md
# once read "docs/cone-cone-solvers.md" in ten files) must not leave them
# pointing nowhere.  experiments/MEASUREMENTS.md is the records' index: it
# lists every record and each of its links exists, and no file names a
# section of it any more (the sections moved to their records).  The scan is
# first checked on a planted file: a missing path is reported with its file
# and line, an existing one is not.
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed".
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# a check of the sources, not of a build: the sanitizer stage of
# scripts/run-tests.sh set LCPLAB_SOURCE_TESTS_DONE (the check stage ran it)
if [ -n "${LCPLAB_SOURCE_TESTS_DONE:-}" ]; then
  echo "SKIP: checks the sources, which the check stage of scripts/run-tests.sh did"
  exit 77
fi
TST_NAME=test_docs_paths
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"

# missing_paths ROOT FILE...: "FILE:LINE: PATH" for each docs/ or
# experiments/records/ path named in
# the files that does not exist below ROOT (a path ends at the first
# character that cannot be in a file name; trailing dots are punctuation)
missing_paths() {
  root=$1
  shift
  grep -HnoE '(docs|experiments/records)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$@" 2>/dev/null |
    while IFS=: read -r file line path; do
      [ -e "$root/$path" ] || echo "$file:$line: $path"
    done
}

mkdir -p "$T/plant/docs" "$T/plant/experiments/records"
: >"$T/plant/docs/real.md"
: >"$T/plant/experiments/records/2026-01-01-real.md"
printf '/* see docs/real.md, "A"; and docs/gone.md. */\n' >"$T/plant/a.c"
printf '# experiments/records/2026-01-01-real.md\n# (../experiments/records/2026-01-02-gone.md)\n' \
  >"$T/plant/b.sh"
missing_paths "$T/plant" "$T/plant/a.c" "$T/plant/b.sh" >"$T/planted"
if grep -q 'a.c:1: docs/gone.md$' "$T/planted" &&
  grep -q 'b.sh:2: experiments/records/2026-01-02-gone.md$' "$T/planted" &&
  ! grep -q real.md "$T/planted"; then
  pass "planted: the missing docs/gone.md and records/2026-01-02-gone.md are reported with their lines, the real ones are not"
else
  fail "planted: expected docs/gone.md and records/2026-01-02-gone.md alone" "$(cat "$T/planted")"
fi

files=
for f in "$top"/libsolvers/*.[ch] "$top"/libdynamics/*.[ch] "$top"/libio/*.[ch] \
  "$top"/libexperiment/*.[ch] "$top"/libmodels/*.[ch] "$top"/cli/*.[ch] "$top"/python/ext/*.[ch] \
  "$top"/python/lcplab/*.py "$top"/tests/*.[ch] "$top"/tests/*.sh "$top"/tests/*/*.c \
  "$top"/experiments/*.c "$top"/experiments/*.sh "$top"/experiments/*.gp "$top"/scripts/*.sh \
  "$top"/scripts/*.py "$top"/Makefile.am "$top"/configure.ac "$top"/README.md "$top"/docs/*.md \
  "$top"/experiments/*.md "$top"/experiments/*.py "$top"/experiments/*.exp "$top"/tests/*/*.md; do
  [ -f "$f" ] && files="$files $f"
done
# shellcheck disable=SC2086
missing_paths "$top" $files | grep -v '/tests/test_docs_paths.sh:' >"$T/missing"
if [ -s "$T/missing" ]; then
  fail "docs/ paths named in sources that do not exist" "$(cat "$T/missing")"
else
  pass "every docs/ path named in the sources exists ($(echo $files | wc -w) files)"
fi
# The index: each record's file listed (none lost from it), each link found.
idx="$top/experiments/MEASUREMENTS.md"
unlisted=
for r in "$top"/experiments/records/2*.md; do
  b=$(basename "$r")
  grep -qF "](records/$b)" "$idx" || unlisted="$unlisted $b"
done
if [ -z "$unlisted" ]; then
  pass "MEASUREMENTS.md lists every record of experiments/records/"
else
  fail "records missing from the index MEASUREMENTS.md" "$unlisted"
fi
grep -noE '\]\(records/[^)]*\)' "$idx" | sed 's/](records\///; s/)$//' >"$T/links"
gone=$(while IFS=: read -r line path; do
  [ -e "$top/experiments/records/$path" ] || echo "MEASUREMENTS.md:$line: records/$path"
done <"$T/links")
if [ -s "$T/links" ] && [ -z "$gone" ]; then
  pass "each of the index's $(wc -l <"$T/links") links names a record that exists"
else
  fail "the index's links that name no record" "$gone"
fi

# No file names a section of MEASUREMENTS.md: "MEASUREMENTS.md, "Title"",
# "MEASUREMENTS.md, 2026-11-26" or "MEASUREMENTS, "Title"" (the sections are
# records now; a reader is sent to the record's file).
# shellcheck disable=SC2086
grep -nE 'MEASUREMENTS(\.md)?`?\)?,? *("|2026-|$)' $files 2>/dev/null |
  grep -v '/tests/test_docs_paths.sh:' >"$T/sections"
if [ -s "$T/sections" ]; then
  fail "sources that name a section of MEASUREMENTS.md, not its record" \
    "$(wc -l <"$T/sections") lines; first: $(head -3 "$T/sections")"
else
  pass "no source names a section of MEASUREMENTS.md"
fi
tst_done
