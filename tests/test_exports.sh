#!/bin/sh
# test_exports.sh -- each shared library exports exactly its documented API.
#
# The libraries are compiled with -fvisibility=hidden (configure.ac), and
# the public headers mark their functions SLV_API / DYN_API (Makefile.am,
# "the libraries").  For each library, the functions so marked in its
# headers must be exactly the symbols `nm -D --defined-only` lists in its
# shared object: a public function that lost its mark (it would not link
# from outside) and an internal one that leaks out both fail, named.
#   libsolvers/libsolvers.la   libsolvers/slv.h
#   libio/libio.la          libio/io.h
#   libdynamics/libdynamics.la libdynamics/dyn*.h except *_internal.h
#   libexperiment/libexperiment.la libexperiment/exp.h
#   libmodels/libmodels.la     libmodels/mdl.h
# Environment: LCPLAB_SRCDIR (sources), LCPLAB_BUILDDIR (the build tree).
# SKIP (77) without shared libraries or without nm.
# Last line: "N passed, M failed".
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
build=${LCPLAB_BUILDDIR:-.}
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
TST_NAME=test_exports
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"

# The shared object of a libtool library: .libs/ + the .la's dlname.
shared_of() {
  dl=$(sed -n "s/^dlname='\(.*\)'$/\1/p" "$1" 2>/dev/null)
  [ -n "$dl" ] && [ -f "$(dirname "$1")/.libs/$dl" ] && echo "$(dirname "$1")/.libs/$dl"
}

# The function names a header marks with MACRO: the identifier before the
# first '(' on each line that starts with MACRO.
marked() {
  macro=$1
  shift
  sed -n "s/^$macro [^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p" "$@" | sort -u
}

check() {
  name=$1 la=$2 macro=$3
  shift 3
  so=$(shared_of "$build/$la")
  if [ -z "$so" ]; then
    echo "SKIP: $la has no shared object (configure --disable-shared?)"
    exit 77
  fi
  marked "$macro" "$@" >"$T/want"
  # __bss_start, _edata, _end: the linker's own marks of a library with static data
  # (libmodels' guard around libmujoco), not functions of its API
  nm -D --defined-only "$so" | awk '$2 ~ /^[TDRBVW]$/ { print $3 }' |
    grep -vxE '__bss_start|_edata|_end' | sort -u >"$T/have"
  if [ ! -s "$T/want" ]; then
    fail "$name" "no function marked $macro in $*"
    return
  fi
  missing=$(comm -23 "$T/want" "$T/have" | tr '\n' ' ')
  extra=$(comm -13 "$T/want" "$T/have" | tr '\n' ' ')
  if [ -z "$missing$extra" ]; then
    pass "$name: exports exactly its $(wc -l <"$T/want") public functions"
  else
    fail "$name ($so)"
    [ -n "$missing" ] && echo "  declared $macro but not exported: $missing"
    [ -n "$extra" ] && echo "  exported but not declared $macro in $*: $extra"
  fi
}

check libsolvers libsolvers/libsolvers.la SLV_API "$top/libsolvers/slv.h"
check libio libio/libio.la IO_API "$top/libio/io.h"
dynh=$(ls "$top"/libdynamics/dyn*.h | grep -v '_internal\.h$')
# shellcheck disable=SC2086
check libdynamics libdynamics/libdynamics.la DYN_API $dynh
check libexperiment libexperiment/libexperiment.la EXP_API "$top/libexperiment/exp.h"
check libmodels libmodels/libmodels.la MDL_API "$top/libmodels/mdl.h"
tst_done
