#!/bin/sh
# test_sanitizer_report.sh -- in a sanitizer build, undefined behaviour and a
# heap overflow in a program built with the build's own flags end the program
# with a report that names the file and line, and a correct run stays
# silent.  With --enable-sanitizers=trap (configure.ac; scripts/run-tests.sh
# uses it) UBSan's checks trap and AddressSanitizer reports the trap
# (ASAN_OPTIONS handle_sigill=1, Makefile.am's test environment): without
# that option the same program dies by SIGILL with no place named, which
# this test shows too.  In that mode no library of the build and not lcplab
# needs libubsan (the point of the mode: every process starts faster); with
# --enable-sanitizers (messages) they do.
# Environment (Makefile.am): LCPLAB_CC, LCPLAB_SAN_FLAGS, LCPLAB_SAN_LDFLAGS,
# LCPLAB_BIN, LCPLAB_BUILDDIR, ASAN_OPTIONS.  Exit 77 (skip) outside a gcc or
# clang sanitizer build.  Last line "N passed, M failed".
case ${LCPLAB_SAN_FLAGS:-} in
  *fuzzer*) echo "SKIP: the fuzzing build (its harnesses are the stage's test)"; exit 77 ;;
  *address*) ;;
  *) echo "SKIP: not a sanitizer build (configure --enable-sanitizers)"; exit 77 ;;
esac
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
TST_NAME=test_sanitizer_report
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"

trap_mode=0
case $LCPLAB_SAN_FLAGS in *-fsanitize-undefined-trap-on-error*) trap_mode=1 ;; esac

cat >"$T/probe.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static int shifted(int a, int by) { return a << by; } /* the shift */
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int by = atoi(argv[2]);
  if (argv[1][0] == 's') { printf("%d\n", shifted(1, by)); return 0; }
  int *a = malloc(4 * sizeof *a);
  if (!a) return 2;
  for (int i = 0; i <= by; i++) a[i] = i; /* the write */
  printf("%d\n", a[by < 4 ? by : 3]);
  free(a);
  return 0;
}
EOF
shift_line=$(grep -n "the shift" "$T/probe.c" | cut -d: -f1)
write_line=$(grep -n "the write" "$T/probe.c" | cut -d: -f1)

# the link flags are libtool's: -Wc,FLAG is FLAG for the compiler driver
ldflags=$(echo "${LCPLAB_SAN_LDFLAGS:-}" | sed 's/-Wc,//g')
# shellcheck disable=SC2086
if ${LCPLAB_CC:-cc} $LCPLAB_SAN_FLAGS -g1 -O1 -c "$T/probe.c" -o "$T/probe.o" 2>"$T/cc.err" &&
  ${LCPLAB_CC:-cc} $LCPLAB_SAN_FLAGS $ldflags "$T/probe.o" -o "$T/probe" 2>>"$T/cc.err"; then
  pass "a program builds with the build's sanitizer flags"
else
  fail "the probe did not build" "$(head -c 600 "$T/cc.err")"
  tst_done
fi

# run_probe KIND ARG: the probe's output in $T/out and $T/err, its status in rc
run_probe() {
  "$T/probe" "$1" "$2" >"$T/out" 2>"$T/err"
  rc=$?
}

run_probe s 3
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = 8 ] && [ ! -s "$T/err" ]; then
  pass "a shift within range: 8, no report"
else
  fail "a shift within range" "exit $rc, out '$(cat "$T/out")'"
fi

run_probe s 40
if [ $rc -ne 0 ] && grep -q "probe.c:$shift_line" "$T/err"; then
  pass "a shift by 40 stops the program with a report naming probe.c:$shift_line (exit $rc)"
else
  fail "a shift by 40: expected a nonzero exit and probe.c:$shift_line" "exit $rc"
fi
if [ $trap_mode = 1 ]; then
  if grep -q "AddressSanitizer: ILL" "$T/err"; then
    pass "trap mode: AddressSanitizer reports the trap"
  else
    fail "trap mode: no AddressSanitizer report of the trap (ASAN_OPTIONS=$ASAN_OPTIONS)"
  fi
  ASAN_OPTIONS=detect_leaks=1 "$T/probe" s 40 >"$T/out" 2>"$T/err"
  rc=$?
  if [ $rc -eq 132 ] && ! grep -q "probe.c" "$T/err"; then
    pass "trap mode without handle_sigill: SIGILL (132), no place named (why the test environment sets it)"
  else
    fail "trap mode without handle_sigill: expected status 132 and no place" "exit $rc"
  fi
else
  if grep -q "runtime error: shift exponent 40" "$T/err"; then
    pass "message mode: UBSan names the shift exponent"
  else
    fail "message mode: no UBSan message"
  fi
fi

run_probe w 3
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = 3 ]; then
  pass "writes within the array: no report"
else
  fail "writes within the array" "exit $rc"
fi
# UBSan's object-size check (its message, or a trap in trap mode) or
# AddressSanitizer, whichever sees it first
run_probe w 4
if [ $rc -ne 0 ] && grep -qE "heap-buffer-overflow|AddressSanitizer: ILL|runtime error: store" "$T/err" &&
  grep -q "probe.c:$write_line" "$T/err"; then
  pass "a write past the array: stopped with a report at probe.c:$write_line"
else
  fail "a write past the array: expected a report at probe.c:$write_line" "exit $rc"
fi

# needs_ubsan FILE: FILE's dynamic section names libubsan
needs_ubsan() { readelf -d "$1" 2>/dev/null | grep NEEDED | grep -q libubsan; }
lib=$(ls "${LCPLAB_BUILDDIR:-.}"/libsolvers/.libs/libsolvers.so.* 2>/dev/null | head -n 1)
for f in "${LCPLAB_BIN:-}" "$lib"; do
  if [ -z "$f" ] || [ ! -f "$f" ] || ! readelf -d "$f" >/dev/null 2>&1; then
    continue # a static build, or a wrapper script: nothing to read
  fi
  if [ $trap_mode = 1 ]; then
    if needs_ubsan "$f"; then fail "trap mode: $f still needs libubsan"; else pass "trap mode: $(basename "$f") needs no libubsan"; fi
  else
    if needs_ubsan "$f"; then pass "message mode: $(basename "$f") needs libubsan"; else fail "message mode: $f does not need libubsan"; fi
  fi
done

tst_done
