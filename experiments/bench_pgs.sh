#!/bin/sh
# bench_pgs.sh -- benchmark (`make bench`, not a test): lcplab's pgs next to
# the peers' PGS (Siconos numerics lcp_pgs, Bullet btSolveProjectedGaussSeidel)
# on the same instance files, with the peer harness's own metrics as judge.
#
#   sh experiments/bench_pgs.sh BUILDDIR SRCDIR
#
# Needs ../shared/peers beside SRCDIR (or LCPLAB_PEERS=DIR), its Debian
# packages (once, as root: make -C ../shared/peers deps; this script never
# installs anything), python3, and BUILDDIR/cli/lcplab built.
#
# Steps: copy the (read-only) harness to a temporary directory and build
# peer_solve and gen_lcp there; generate with gen_lcp the instances spd and
# contact at n = 500 and 1000 (seed 1, Siconos .dat); for each file run
#   lcplab solve FILE --solver pgs --tol 1e-10 --max-iter 100000 --repeat 5
#          --solution X --json
#   lcplab solve FILE --solver pgs --tol 2e-12 ...  (a second row whose residual
#          is at or below every peer's: the equal-accuracy comparison)
#   peer_solve --check-z X FILE            (the peer's metrics on our x)
#   peer_solve -s siconos:pgs,bullet:pgs --tol 1e-10 --maxit 100000 --repeat 5 FILE
# and print one markdown table (file, n, solver, status, iterations, median
# time, time per sweep, res_nat_inf; experiments/bench_pgs.py), also written to
# BUILDDIR/experiments/results/HOST/bench_pgs.md (an earlier one is moved aside
# with a UTC timestamp suffix).  OPENBLAS_NUM_THREADS=1.  Times are medians of
# the solver call only, as each program measures it; the stopping tests differ
# (lcplab: res_rel <= tol on the natural map; Siconos: ||z - max(0, z - w)||_2
# / ||q||_2 <= tol; Bullet: last sweep's ||dx||_2 < tol), so compare res_nat_inf
# with the time.
# Exit status: 0 table written; 1 the harness could not be built or a program
# failed; 2 usage / missing inputs.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
builddir=$1
srcdir=$2
peers=${LCPLAB_PEERS:-$srcdir/../shared/peers}
lcplab=$builddir/cli/lcplab
export OPENBLAS_NUM_THREADS=1

if [ ! -f "$peers/Makefile" ]; then
  echo "bench_pgs.sh: peer harness not found at $peers (set LCPLAB_PEERS=DIR): no benchmark" >&2
  exit 2
fi
if [ ! -x "$lcplab" ]; then
  echo "bench_pgs.sh: $lcplab not built (run 'make bench' in $builddir)" >&2
  exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "bench_pgs.sh: python3 not found (apt-get install python3): it formats the table" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# ---- the peer harness, built in a private copy --------------------------------
cp -R "$peers/." "$tmp/peers"
chmod -R u+w "$tmp/peers"
echo "bench_pgs.sh: building the peer harness (copy of $peers) ..."
if ! { make -C "$tmp/peers" clean && make -C "$tmp/peers" peer_solve gen_lcp; } >"$tmp/build.log" 2>&1; then
  tail -n 20 "$tmp/build.log" >&2
  echo "bench_pgs.sh: cannot build peer_solve/gen_lcp.  If the peers' headers or libraries are" >&2
  echo "  missing, install them once as root:  make -C $peers deps" >&2
  exit 1
fi
peer_solve=$tmp/peers/peer_solve
gen_lcp=$tmp/peers/gen_lcp

# ---- runs: one JSON record per line, tagged with the file ---------------------
runs=$tmp/runs.jsonl
: >"$runs"
for type in spd contact; do
  for n in 500 1000; do
    f=$tmp/${type}_${n}_s1.dat
    "$gen_lcp" --type "$type" --n "$n" --seed 1 --out "$f"
    echo "bench_pgs.sh: $(basename "$f"): lcplab pgs, siconos:pgs, bullet:pgs ..."
    x=$tmp/x_${type}_${n}.txt
    rc=0
    "$lcplab" solve "$f" --solver pgs --tol 1e-10 --max-iter 100000 --repeat 5 \
      --solution "$x" --json >"$tmp/lcplab.json" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
      echo "bench_pgs.sh: lcplab solve $f failed (exit $rc)" >&2
      exit 1
    fi
    printf '{"tag":"lcplab","file":"%s","record":%s}\n' "$(basename "$f")" "$(cat "$tmp/lcplab.json")" >>"$runs"
    # a second, tighter run so lcplab's residual is at or below every peer's
    rc=0
    "$lcplab" solve "$f" --solver pgs --tol 2e-12 --max-iter 100000 --repeat 5 \
      --json >"$tmp/lcplab2.json" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
      echo "bench_pgs.sh: lcplab solve $f --tol 2e-12 failed (exit $rc)" >&2
      exit 1
    fi
    printf '{"tag":"lcplab-tight","file":"%s","record":%s}\n' "$(basename "$f")" "$(cat "$tmp/lcplab2.json")" >>"$runs"
    "$peer_solve" --check-z "$x" "$f" >"$tmp/check.json"
    printf '{"tag":"check","file":"%s","record":%s}\n' "$(basename "$f")" "$(cat "$tmp/check.json")" >>"$runs"
    "$peer_solve" -s siconos:pgs,bullet:pgs --tol 1e-10 --maxit 100000 --repeat 5 "$f" >"$tmp/peers.jsonl"
    while IFS= read -r line; do
      printf '{"tag":"peer","file":"%s","record":%s}\n' "$(basename "$f")" "$line" >>"$runs"
    done <"$tmp/peers.jsonl"
  done
done

# ---- the table -------------------------------------------------------------------
host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
mkdir -p "$results"
md=$results/bench_pgs.md
if [ -e "$md" ]; then
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  mv "$md" "$md.$stamp"
  echo "bench_pgs.sh: previous bench_pgs.md moved to $md.$stamp"
fi

python3 "$srcdir/experiments/bench_pgs.py" "$runs" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$host" >"$tmp/table.md"
cp "$tmp/table.md" "$md"
cat "$md"
echo
echo "bench_pgs.sh: table written to $md"
