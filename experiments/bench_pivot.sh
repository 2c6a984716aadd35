#!/bin/sh
# bench_pivot.sh -- benchmark (`make bench-pivot`, also run by `make bench`;
# not a test): lcplab's pivoting solvers lemke and dantzig next to the peers'
# pivoting codes (Siconos lexicolemke, Bullet Lemke, the Dantzig solvers of
# ODE, DART and Bullet) on the same instance files, with the same residual.
#
#   sh experiments/bench_pivot.sh BUILDDIR SRCDIR [GNUPLOT]
#
# Needs ../shared/peers beside SRCDIR (or LCPLAB_PEERS=DIR) and its Debian
# packages (once, as root: make -C ../shared/peers deps; this script never
# installs anything), python3, and BUILDDIR/cli/lcplab built; gnuplot (with
# pngcairo / pdfcairo) for the figure, optional.
#
# Steps:
# 1. copy the (read-only) harness to a temporary directory and build
#    peer_solve and gen_lcp there;
# 2. generate with gen_lcp, seed 1, n in BENCH_PIVOT_SIZES (default
#    "100 200 500 1000"): spd and contact (Siconos .dat, standard LCP) and
#    contact-box (.blcp: normal + 2 friction rows per contact, findex, so its
#    true n is 3 floor(n/3));
# 3. on every file, each run in its own process under `timeout`
#    (BENCH_PIVOT_TIMEOUT seconds, default 60):
#      lcplab solve FILE --solver lemke   --max-iter 100000 --repeat R --solution X   (all three)
#      lcplab solve FILE --solver dantzig --max-iter 100000 --repeat R --solution X   (all three)
#      peer_solve --check-z X FILE        (the harness's residual of lcplab's x)
#      peer_solve -s P --maxpiv 100000 --repeat R FILE   for P in
#        siconos:lexicolemke (spd, contact), bullet:lemke (spd, contact, n <= 500:
#        it is slow), ode:dantzig, dart:dantzig, bullet:dantzig (all three)
#    with R = BENCH_PIVOT_REPEAT (default 5).  --max-iter also sets lcplab's
#    pivot limit.  Any exit code is recorded, never fatal: lcplab exit 2
#    (the solver refuses the problem, e.g. a placeholder or findex rows for
#    lemke) gives a row "refused" with lcplab's message in the note; 3 (ran,
#    not converged) keeps its numbers; 124 is "timeout"; anything else
#    "crash".
# 4. write, in BUILDDIR/experiments/results/HOST/ (HOST = uname -n):
#      bench_pivot.csv   one row per run: file, family, n, program, solver,
#                        status, pivots, time_s (median of R), res_nat_inf,
#                        then exit, res_nat_check (peer harness on lcplab's
#                        x), solved (res_nat_inf / max(1, ||b||_inf) <= 1e-8
#                        by the program's own figure), note; '#' preamble with
#                        rev, host, date, BLAS, OPENBLAS_NUM_THREADS, seed
#      bench_pivot.md    the same as a table, the fitted slopes, the speedups
#      bench_pivot.png / .pdf   (bench_pivot.gp) median time against n,
#                        log-log, one panel per family, one series per
#                        (program, solver), slope in the legend
#    Earlier files of the same names are moved aside with a UTC timestamp.
#    Slopes: least squares of log t = a + s log n over the points of a series
#    that have a time (at least 2 points), computed by
#    experiments/bench_pivot.py (which also writes the records, the CSV and
#    the table) and by gnuplot's `stats` in the figure (the same formula).
#    Speedups (the issue's question): t_peer / t_lcplab (> 1: lcplab faster)
#    of lcplab lemke vs siconos:lexicolemke and lcplab dantzig vs ode:dantzig
#    on the files of nominal size N >= 500, residuals side by side.
#
# Times are medians of the solver call only, as each program measures it
# (file reading and set-up excluded).  "status" is the program's own verdict
# (lcplab: converged / max_iter / ...; peers: ok / fail / unknown ...); the
# "solved" column applies one test to all.  The whole run takes about 2-4
# minutes on 2 cores (most of it the peers at n = 1000 and the harness build).
# Exit status: 0 tables written; 1 the harness could not be built; 2 usage /
# missing inputs.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
gnuplot=${3:-}
# shellcheck source=experiments/gp_run.sh
. "$srcdir/experiments/gp_run.sh"
peers=${LCPLAB_PEERS:-$srcdir/../shared/peers}
lcplab=$builddir/cli/lcplab
pyfile=$srcdir/experiments/bench_pivot.py
sizes=${BENCH_PIVOT_SIZES:-100 200 500 1000}
tlimit=${BENCH_PIVOT_TIMEOUT:-60}
repeat=${BENCH_PIVOT_REPEAT:-5}
maxpiv=100000
seed=1
export OPENBLAS_NUM_THREADS=1

if [ ! -f "$peers/Makefile" ]; then
  echo "bench_pivot.sh: peer harness not found at $peers (set LCPLAB_PEERS=DIR): no benchmark" >&2
  exit 2
fi
if [ ! -x "$lcplab" ]; then
  echo "bench_pivot.sh: $lcplab not built (run 'make bench-pivot' in $builddir)" >&2
  exit 2
fi
for tool in python3 timeout; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench_pivot.sh: $tool not found: it is needed (python3: tables and fits; timeout: coreutils)" >&2
    exit 2
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-bench-pivot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# ---- 1. the peer harness, built in a private copy ----------------------------------
cp -R "$peers/." "$tmp/peers"
chmod -R u+w "$tmp/peers"
echo "bench_pivot.sh: building the peer harness (copy of $peers) ..."
if ! { make -C "$tmp/peers" clean && make -j2 -C "$tmp/peers" peer_solve gen_lcp; } >"$tmp/build.log" 2>&1; then
  tail -n 20 "$tmp/build.log" >&2
  echo "bench_pivot.sh: cannot build peer_solve/gen_lcp.  If the peers' headers or libraries are" >&2
  echo "  missing, install them once as root:  make -C $peers deps" >&2
  exit 1
fi
peer_solve=$tmp/peers/peer_solve
gen_lcp=$tmp/peers/gen_lcp

# ---- runs: one JSON line per run ------------------------------------------------------
# {"file","family","program","solver","exit","out": <stdout JSON or null>,
#  "err": <first stderr line>, "check": <peer_solve --check-z JSON or null>}
runs=$tmp/runs.jsonl
: >"$runs"

# record FAMILY FILE PROGRAM SOLVER EXIT OUTFILE ERRFILE [CHECKFILE]
record() {
  python3 "$pyfile" record "$@" >>"$runs"
}

# run_lcplab FAMILY FILE SOLVER
run_lcplab() {
  x=$tmp/x.txt
  rm -f "$x" "$tmp/check.json"
  rc=0
  timeout "$tlimit" "$lcplab" solve "$2" --solver "$3" --max-iter "$maxpiv" --repeat "$repeat" \
    --solution "$x" --json >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
  if [ -s "$x" ]; then
    timeout "$tlimit" "$peer_solve" --check-z "$x" "$2" >"$tmp/check.json" 2>/dev/null || true
  fi
  record "$1" "$(basename "$2")" lcplab "$3" "$rc" "$tmp/out.json" "$tmp/err.txt" "$tmp/check.json"
  echo "  lcplab:$3 exit $rc"
}

# run_peer FAMILY FILE PEER:SOLVER
run_peer() {
  rc=0
  timeout "$tlimit" "$peer_solve" -s "$3" --maxpiv "$maxpiv" --repeat "$repeat" "$2" \
    >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
  record "$1" "$(basename "$2")" "${3%%:*}" "${3#*:}" "$rc" "$tmp/out.json" "$tmp/err.txt"
  echo "  $3 exit $rc"
}

start=$(date +%s)
for n in $sizes; do
  for family in spd contact contact-box; do
    case $family in
      contact-box) f=$tmp/contactbox_${n}_s$seed.blcp ;;
      *) f=$tmp/${family}_${n}_s$seed.dat ;;
    esac
    "$gen_lcp" --type "$family" --n "$n" --seed "$seed" --out "$f" >/dev/null
    echo "bench_pivot.sh: $(basename "$f") ($(($(date +%s) - start)) s elapsed)"
    run_lcplab "$family" "$f" lemke
    run_lcplab "$family" "$f" dantzig
    if [ "$family" != contact-box ]; then
      run_peer "$family" "$f" siconos:lexicolemke
      if [ "$n" -le 500 ]; then run_peer "$family" "$f" bullet:lemke; fi
    fi
    for p in ode:dantzig dart:dantzig bullet:dantzig; do run_peer "$family" "$f" "$p"; done
    rm -f "$f"
  done
done

# ---- 4. the CSV, the table, the figure ------------------------------------------------
host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for ext in csv md png pdf; do
  if [ -e "$results/bench_pivot.$ext" ]; then
    mv "$results/bench_pivot.$ext" "$results/bench_pivot.$ext.$stamp"
    echo "bench_pivot.sh: previous bench_pivot.$ext moved to bench_pivot.$ext.$stamp"
  fi
done
csv=$results/bench_pivot.csv
md=$results/bench_pivot.md

rev=$(git -C "$srcdir" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$rev" != unknown ] && [ -n "$(git -C "$srcdir" status --porcelain 2>/dev/null)" ]; then
  rev="$rev-dirty"
fi
# the BLAS/LAPACK libsolvers really loads (alternatives resolved); lcplab
# itself is a libtool wrapper script in a build tree
blas=
for so in "$builddir/libsolvers/.libs/libsolvers.so" "$lcplab"; do
  [ -e "$so" ] || continue
  blas=$(ldd "$so" 2>/dev/null | awk '/blas|lapack/ && $3 ~ /^\// {print $3}' |
    while IFS= read -r l; do readlink -f "$l"; done | tr '\n' ' ')
  [ -n "$blas" ] && break
done
[ -n "$blas" ] || blas="unknown"

python3 "$pyfile" report "$runs" "$csv" "$md" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$host" "$rev" \
  "$blas" "$seed" "$repeat" "$maxpiv" "$tlimit" "$tmp/"

# ---- the figure --------------------------------------------------------------------------
if [ -z "$gnuplot" ]; then gnuplot=$(command -v gnuplot || true); fi
if [ -n "$gnuplot" ] && [ -x "$gnuplot" ]; then
  if gp_run "$gnuplot" "$srcdir/experiments/bench_pivot.gp" "$results/bench_pivot" "file:data.csv=$csv"; then
    echo "bench_pivot.sh: figure $results/bench_pivot.png (and .pdf)"
  else
    echo "bench_pivot.sh: gnuplot failed: no figure (the CSV and table are complete)" >&2
  fi
else
  echo "bench_pivot.sh: gnuplot not found: no figure (apt-get install gnuplot-nox)" >&2
fi
echo
echo "bench_pivot.sh: $csv"
echo "bench_pivot.sh: $md"
echo "bench_pivot.sh: done in $(($(date +%s) - start)) s of runs"
