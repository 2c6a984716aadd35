#!/bin/sh
# bench_interrupt.sh -- benchmark (`make bench-interrupt`; not a test): the
# cost of the solves' stop conditions and the delay of Ctrl-C and of a time
# limit on a large ipm solve (experiments/bench_interrupt.py says what it runs).
#
#   sh experiments/bench_interrupt.sh BUILDDIR SRCDIR
#
# Needs the build's lcplab and its Python package (configure with Python).
# Output in BUILDDIR/experiments/results/HOST/bench_interrupt.{md,csv}.
# About ten minutes (the pile-2000 export is made once).
set -eu
builddir=$1
srcdir=$2
py=${PYTHON:-python3}
out=$builddir/experiments/results/$(uname -n)
if [ ! -x "$builddir/cli/lcplab" ] || [ ! -f "$builddir/python/lcplab/_lcplab.so" ]; then
  echo "bench_interrupt.sh: build lcplab and its Python package in $builddir first" >&2
  exit 1
fi
export OPENBLAS_NUM_THREADS=1
exec "$py" "$srcdir/experiments/bench_interrupt.py" "$builddir" "$out"
