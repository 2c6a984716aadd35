#!/bin/sh
# test_man.sh -- the man page lcplab(1) (docs/lcplab.1) against the program it documents:
#   - it renders with groff without warnings (when groff is installed);
#   - every command `lcplab --help` lists has its section ".SS lcplab COMMAND";
#   - every option `lcplab COMMAND --help` shows appears in the page;
#   - every exit status a --help states has its entry under EXIT STATUS.
# So a new option or command without its man-page line fails here, by name.
# Environment: LCPLAB_BIN, LCPLAB_SRCDIR.  Last line "N passed, M failed".
TST_NAME=test_man
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
man="${LCPLAB_SRCDIR:-$(dirname "$0")/..}/docs/lcplab.1"
[ -f "$man" ] || { echo "FAIL - $man not found"; echo "0 passed, 1 failed"; exit 1; }

if command -v groff >/dev/null 2>&1; then
  if groff -man -ww -z "$man" 2>"$T/groff" && [ ! -s "$T/groff" ]; then
    pass "groff -man -ww renders the page without warnings"
  else
    fail "groff -man -ww" "$(head -c 300 "$T/groff")"
  fi
else
  echo "SKIP: groff not found (the rendering check)"
fi

# The page's text with troff's \- turned into -, for the option checks.
sed 's/\\-/-/g' "$man" >"$T/page"

lcp --help
cmds=$(sed -n '/^commands:/,/^$/p' "$T/out" | awk 'NF && $1 != "commands:" { print $1 }')
[ -n "$cmds" ] || fail "lcplab --help" "no commands listed"
for c in $cmds; do
  if grep -q "^\.SS lcplab $c\b" "$T/page"; then
    pass "section for 'lcplab $c'"
  else
    fail "section for 'lcplab $c'" "no '.SS lcplab $c' in docs/lcplab.1"
  fi
  lcp "$c" --help
  for o in $(grep -oE -- '--[a-z][a-z0-9-]*' "$T/out" | sort -u); do
    if grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" "$T/page"; then
      pass "lcplab $c: $o documented"
    else
      fail "lcplab $c: $o" "not in docs/lcplab.1"
    fi
  done
  for s in $(sed -n '/exit status:/,$p' "$T/out" | grep -oE '(^|[ ,:])[0-9]+ [a-z(]' | grep -oE '[0-9]+' | sort -u); do
    if awk -v s="$s" '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH/ { on = 0 }
                      on && $1 == ".B" && $2 == s { found = 1 } END { exit !found }' "$T/page"; then
      pass "lcplab $c: exit status $s documented"
    else
      fail "lcplab $c: exit status $s" "no '.B $s' under EXIT STATUS"
    fi
  done
done
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
