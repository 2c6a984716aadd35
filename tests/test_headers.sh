#!/bin/sh
# test_headers.sh -- every installed header compiles on its own, as C11 and as C++
# (the headers are extern "C" and avoid C++'s reserved words), warnings as errors.
#   C:   $LCPLAB_CC (the configured compiler) -std=c11 -Wall -Wextra -pedantic -Werror
#   C++: g++ and clang++, whichever are installed, -std=c++11 -Wall -Wextra -pedantic -Werror
# A C++ file that includes all of them also calls one function of each library, so
# that the extern "C" names are the C names (checked by linking in tests/test_install.sh).
# Environment: LCPLAB_SRCDIR, LCPLAB_CC.  Last line "N passed, M failed"; 77 if no compiler.
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
TST_NAME=test_headers
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
headers="libsolvers/slv.h libio/io.h libdynamics/dyn.h libdynamics/dyn_constraint.h
libdynamics/dyn_joint.h libdynamics/dyn_math.h libdynamics/dyn_model.h libdynamics/dyn_redmax.h libdynamics/dyn_run.h
libdynamics/dyn_world.h
libexperiment/exp.h libmodels/mdl.h"
inc="-I$top/libsolvers -I$top/libio -I$top/libdynamics -I$top/libexperiment -I$top/libmodels"
cc=${LCPLAB_CC:-cc}
cxxs=
for c in g++ clang++; do command -v "$c" >/dev/null 2>&1 && cxxs="$cxxs $c"; done
command -v "${cc%% *}" >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }

check() { # DESC COMMAND...
  desc=$1
  shift
  if "$@" >"$T/log" 2>&1; then
    pass "$desc"
  else
    fail "$desc"
    head -n 20 "$T/log"
  fi
}

for h in $headers; do
  printf '#include "%s"\nint tst_header_unit(void);\nint tst_header_unit(void) { return 0; }\n' \
    "$(basename "$h")" >"$T/one.c"
  # shellcheck disable=SC2086
  check "C11: $h alone" $cc -std=c11 -Wall -Wextra -pedantic -Werror $inc -c "$T/one.c" -o "$T/one.o"
  cp "$T/one.c" "$T/one.cpp"
  for cxx in $cxxs; do
    # shellcheck disable=SC2086
    check "$cxx: $h alone" $cxx -std=c++11 -Wall -Wextra -pedantic -Werror $inc -c "$T/one.cpp" -o "$T/one.o"
  done
done
for cxx in $cxxs; do
  # shellcheck disable=SC2086
  check "$cxx: every header together, one call into each library" \
    $cxx -std=c++11 -Wall -Wextra -pedantic -Werror $inc -fsyntax-only "$top/tests/install/consumer.cpp"
done
[ -n "$cxxs" ] || echo "SKIP: no C++ compiler (g++, clang++): the C++ checks"
tst_done
