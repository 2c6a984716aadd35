#!/bin/sh
# test_noalloc.sh -- "only *_new / *_init allocate" (docs/README.md, "No allocation in solve loops"), checked
# on the library sources: every malloc/calloc/realloc in libsolvers/*.c,
# libdynamics/*.c and the template plugin examples/plugin/*.c (its solve
# loop too; docs/plugins.md, "The rules") must sit inside a function whose name ends in _new, _init,
# _reserve or _alloc.  The instance readers (io_*.c, instance.c) allocate by
# design and are exempt.
# A function starts at a line "type name(args...) {" or "name(...)" at column 0.
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# a check of the sources, not of a build: the sanitizer stage of
# scripts/run-tests.sh set LCPLAB_SOURCE_TESTS_DONE (the check stage ran it)
if [ -n "${LCPLAB_SOURCE_TESTS_DONE:-}" ]; then
  echo "SKIP: checks the sources, which the check stage of scripts/run-tests.sh did"
  exit 77
fi
pass=0 fail=0
for f in "$top"/libsolvers/*.c "$top"/libdynamics/*.c "$top"/examples/plugin/*.c; do
  [ -f "$f" ] || continue
  case $(basename "$f") in io_*.c|instance.c) continue ;; esac
  bad=$(awk '
    /^[A-Za-z_].*[A-Za-z_0-9]+\(/ && !/;[[:space:]]*$/ {
      line = $0; sub(/\(.*/, "", line); n = split(line, parts, /[ *]+/); fn = parts[n]
    }
    /(^|[^_a-z])(malloc|calloc|realloc)\(/ {
      if (fn !~ /_(new|init|reserve|alloc)$/) printf "%s:%d: allocation in %s()\n", FILENAME, FNR, fn
    }' "$f")
  if [ -n "$bad" ]; then echo "$bad"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
