#!/bin/sh
# test_quiet.sh -- "the library never prints, exits or aborts" (docs/README.md,
# "Design rules", Errors), checked on the library sources: with the comments
# stripped (gcc's preprocessor, -fpreprocessed: no macro is expanded,
# no header read), no file of libsolvers/, libdynamics/ or libio/ may name
# stdout or stderr or call printf, vprintf, puts, putchar, perror, exit,
# _Exit, quick_exit or abort.  Writers print into the FILE * they opened
# (fprintf(f, ...)), which this allows; the log callback (slv.h, "logging") is
# the library's only output.
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
cc=${LCPLAB_QUIET_CC:-gcc} # gcc: clang does not take -fpreprocessed
pass=0 fail=0
for f in "$top"/libsolvers/*.[ch] "$top"/libdynamics/*.[ch] "$top"/libio/*.[ch]; do
  [ -f "$f" ] || continue
  code=$("$cc" -fpreprocessed -dD -E -P "$f" 2>/dev/null) || {
    echo "$f: cannot strip its comments with $cc"
    fail=$((fail + 1))
    continue
  }
  bad=$(printf '%s\n' "$code" | grep -nE \
    '(^|[^A-Za-z0-9_])(stdout|stderr)([^A-Za-z0-9_]|$)|(^|[^A-Za-z0-9_.>])(printf|vprintf|puts|putchar|perror|exit|_Exit|quick_exit|abort)[[:space:]]*\(')
  if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | sed "s|^|$f: |"
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
