#!/bin/sh
# bench_pivot_factor.sh -- benchmark (`make bench-pivot-factor`; not a
# test): lemke and dantzig against one factorisation of the same A, on one
# thread, in one run (issue 66, item 1; experiments/BENCHMARKS.md,
# "Benchmark: make bench-pivot-factor").
#
#   sh experiments/bench_pivot_factor.sh BUILDDIR SRCDIR
#
# For each family and size (BENCH_PIVOT_FAMILIES, default "spd contact";
# BENCH_PIVOT_SIZES, default "500 1000 2000"), `lcplab generate --type F
# --n N --seed 1` writes the problem to a temporary folder, and
# BUILDDIR/experiments/pivot_factor times, interleaved over
# BENCH_PIVOT_ROUNDS rounds (default 7), one LAPACK factorisation of a
# copy of A (dpotrf for spd, dgetrf for contact: the contact-like family's A
# = J M^-1 J^T + 1e-6 mean(diag) I is the matrix that a rank-deficient
# contact problem becomes with its cfm, factored by LU as a semidefinite
# one must be), lemke and dantzig from x = 0 with their default options,
# and the oracle (the answer's active set known: gather, factor and solve
# A_CC once).  OPENBLAS_NUM_THREADS=1.
#
# The table on stdout gives each figure's median (wall clock), the oracle's
# ratio to the factorisation (what any active-set method must spend), each
# solver's ratio to the factorisation and to the oracle beside the goal of
# issue 85 (within 2x of the oracle, by CPU time: met or not), each ratio
# by CPU time in brackets (less moved by the other loads of a shared
# machine), and each solver's status and pivots.  The JSON lines of
# pivot_factor go to BUILDDIR/experiments/results/HOST/bench_pivot_factor.jsonl.
#
# Exit: 0 when every run was measured (met goals or not: a benchmark never
# fails on a time), 1 when a program failed, 2 bad usage.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
build=$1
lcplab=$build/cli/lcplab
prog=$build/experiments/pivot_factor
for p in "$lcplab" "$prog"; do
  [ -x "$p" ] || { echo "$0: $p: not built (make experiments/pivot_factor)" >&2; exit 2; }
done
families=${BENCH_PIVOT_FAMILIES:-spd contact}
sizes=${BENCH_PIVOT_SIZES:-500 1000 2000}
rounds=${BENCH_PIVOT_ROUNDS:-7}
out=$build/experiments/results/$(uname -n)
mkdir -p "$out" || exit 1
jsonl=$out/bench_pivot_factor.jsonl
# shellcheck source=experiments/outfile.sh
. "$(dirname "$0")/outfile.sh"
out_new bench_pivot_factor.sh "$jsonl" || exit 1
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1

# field JSON NAME: a value of a flat JSON object (numbers and strings)
field() {
  printf '%s\n' "$1" | tr ',' '\n' | sed -n "s/^{*\"$2\":\"*\\([^\"}]*\\)\"*}*\$/\\1/p"
}

echo "# bench-pivot-factor: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n)," \
  "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')," \
  "load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), OPENBLAS_NUM_THREADS=1, $rounds rounds"
echo
echo "| problem | n | \|C\| | factorisation | its time | oracle [cpu] | lemke | ratio [cpu] | / oracle [cpu] | goal 2x oracle | dantzig | ratio [cpu] | / oracle [cpu] | goal 2x oracle | lemke status, pivots | dantzig status, pivots |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|"
rc=0
for fam in $families; do
  case $fam in spd) fac=potrf ;; *) fac=getrf ;; esac
  for n in $sizes; do
    f=$T/$fam$n.lcp
    if ! "$lcplab" generate --type "$fam" --n "$n" --seed 1 --out "$f" --force > /dev/null; then
      echo "$0: lcplab generate --type $fam --n $n failed" >&2
      rc=1
      continue
    fi
    if ! j=$("$prog" "$f" "$fac" "$rounds"); then
      echo "$0: pivot_factor $fam $n failed" >&2
      rc=1
      continue
    fi
    printf '%s\n' "$j" >> "$jsonl"
    awk -v fam="$fam" -v n="$n" -v k="$(field "$j" k)" -v fac="$(field "$j" factor)" \
      -v tf="$(field "$j" t_factor)" -v tl="$(field "$j" t_lemke)" -v td="$(field "$j" t_dantzig)" \
      -v to="$(field "$j" t_oracle)" -v ol="$(field "$j" c_lemke)" -v od="$(field "$j" c_dantzig)" \
      -v oo="$(field "$j" c_oracle)" \
      -v rl="$(field "$j" r_lemke)" -v rd="$(field "$j" r_dantzig)" -v ro="$(field "$j" r_oracle)" \
      -v cl="$(field "$j" rc_lemke)" -v cd="$(field "$j" rc_dantzig)" -v co="$(field "$j" rc_oracle)" \
      -v sl="$(field "$j" lemke_status) $(field "$j" lemke_pivots)" \
      -v sd="$(field "$j" dantzig_status) $(field "$j" dantzig_pivots)" 'BEGIN {
        # to the oracle: wall and CPU; the goal (issue 85) by CPU time
        xl = tl / to; xd = td / to; yl = ol / oo; yd = od / oo
        gl = (yl <= 2 ? "met" : "not met")
        gd = (yd <= 2 ? "met" : "not met")
        printf "| %s | %d | %d | %s | %.2f ms | %.2f ms [%.2fx] | %.2f ms | %.2fx [%.2fx] | %.2fx [%.2fx] | %s | %.2f ms | %.2fx [%.2fx] | %.2fx [%.2fx] | %s | %s | %s |\n",
          fam, n, k, fac, 1e3 * tf, 1e3 * to, co, 1e3 * tl, rl, cl, xl, yl, gl, 1e3 * td, rd, cd, xd, yd, gd, sl, sd
      }'
    rm -f "$f"
  done
done
echo
echo "JSON: $jsonl"
exit $rc
