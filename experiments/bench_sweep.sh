#!/bin/sh
# bench_sweep.sh -- benchmark (`make bench-sweep`; not a test): pgs_wide's
# sweep against the machine's stream bandwidth, in one process (issue 66,
# item 2; experiments/BENCHMARKS.md, "Benchmark: make bench-sweep").
#
#   sh experiments/bench_sweep.sh BUILDDIR SRCDIR
#
# For each scene of BENCH_SWEEP_SCENES (default "pile:n=3000
# pyramid:layers=30": NAME:KEY=VALUE,...), BUILDDIR/experiments/sweep_bandwidth
# runs it BENCH_SWEEP_STEPS steps (default 240; pgs_wide, the world's
# defaults, contact_order=top-down as `make bench-scenes`) and times, on
# that step's problem and interleaved over BENCH_SWEEP_ROUNDS rounds
# (default 9), one sweep (N and 2N sweeps, N = 50, no check inside), the
# world's 50-sweep solve and a STREAM-like triad over the same bytes
# (and one over main memory).  Its header (experiments/sweep_bandwidth.c)
# gives the count of the bytes a sweep must move.
#
# The table on stdout gives each scene's rows, the share of lane slots
# busy, the bytes a sweep must move, the sweep's time and bandwidth, the
# triad's at the same bytes and main memory's, the fraction of the triad's
# bandwidth the sweep reaches beside the goal (0.5: met or not) and the
# limit (1: a sweep moving only its bytes at the triad's rate), the time one
# sweep would take there, the AVX2 lanes' sweep and fraction (on a CPU with
# AVX-512; the lanes of a CPU without it), and the world's 50-sweep solve
# split into its sweeps, the plan and measures, and the checks.  Every time
# is the least of the rounds by the wall clock, and in brackets by the
# thread's CPU time (on a shared machine the other loads stretch the wall
# clock; the CPU time moves much less).  The JSON lines go to BUILDDIR/experiments/results/HOST/bench_sweep.jsonl.
#
# Exit: 0 when every scene was measured (met goals or not: a benchmark never
# fails on a time), 1 when a run failed, 2 bad usage.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
build=$1
prog=$build/experiments/sweep_bandwidth
[ -x "$prog" ] || { echo "$0: $prog: not built (make experiments/sweep_bandwidth)" >&2; exit 2; }
scenes=${BENCH_SWEEP_SCENES:-pile:n=3000 pyramid:layers=30}
steps=${BENCH_SWEEP_STEPS:-240}
rounds=${BENCH_SWEEP_ROUNDS:-9}
out=$build/experiments/results/$(uname -n)
mkdir -p "$out" || exit 1
jsonl=$out/bench_sweep.jsonl
# shellcheck source=experiments/outfile.sh
. "$(dirname "$0")/outfile.sh"
out_new bench_sweep.sh "$jsonl" || exit 1

# field JSON NAME: a value of a flat JSON object (numbers and strings)
field() {
  printf '%s\n' "$1" | tr ',' '\n' | sed -n "s/^{*\"$2\":\"*\\([^\"}]*\\)\"*}*\$/\\1/p"
}

echo "# bench-sweep: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n)," \
  "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')," \
  "load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), step $steps, $rounds rounds"
echo
echo "| scene | rows | lanes busy | bytes / sweep | sweep | its bandwidth | triad, same bytes | main memory | fraction [cpu] | goal | limit | at the limit | AVX2 lanes: sweep, fraction [cpu] | the world's solve: sweeps + plan, measures + checks [cpu] |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|"
rc=0
for sc in $scenes; do
  name=${sc%%:*}
  set -- --scene "$name" --steps "$steps" --rounds "$rounds"
  if [ "$name" != "$sc" ]; then
    for kv in $(printf '%s\n' "${sc#*:}" | tr ',' ' '); do set -- "$@" --param "$kv"; done
  fi
  if ! j=$("$prog" "$@"); then
    echo "$0: sweep_bandwidth $sc failed" >&2
    rc=1
    continue
  fi
  printf '%s\n' "$j" >> "$jsonl"
  v() { field "$j" "$1"; }
  awk -v sc="$sc" -v rows="$(v rows)" -v busy="$(v lane_slots_busy)" -v slots="$(v lane_slots)" \
    -v by="$(v bytes_per_sweep)" -v ts="$(v t_sweep)" -v tsc="$(v t_sweep_cpu)" \
    -v bw="$(v sweep_gbs)" -v bwc="$(v sweep_gbs_cpu)" -v tr="$(v triad_gbs)" \
    -v trc="$(v triad_gbs_cpu)" -v dr="$(v dram_gbs)" -v fr="$(v fraction)" \
    -v frc="$(v fraction_cpu)" -v t2="$(v t_sweep_avx2)" -v t2c="$(v t_sweep_avx2_cpu)" \
    -v f2="$(v fraction_avx2)" -v f2c="$(v fraction_avx2_cpu)" -v n="$(v sweeps)" \
    -v sv="$(v t_solve)" -v svc="$(v t_solve_cpu)" -v pm="$(v t_plan_measures)" \
    -v pmc="$(v t_plan_measures_cpu)" -v ck="$(v t_checks)" -v ckc="$(v t_checks_cpu)" 'BEGIN {
      goal = (fr >= 0.5 ? "met" : "not met") " [" (frc >= 0.5 ? "met" : "not met") "]"
      avx2 = t2 == "null" ? "-" : sprintf("%.1f us, %.2f [%.1f us, %.2f]", 1e6 * t2, f2, 1e6 * t2c, f2c)
      printf "| %s | %d | %.0f %% | %.2f MB | %.1f us [%.1f] | %.1f GB/s [%.1f] | %.1f GB/s [%.1f] | %.1f GB/s | %.2f [%.2f] | 0.5: %s | 1 | %.1f us [%.1f] | %s | %.2f ms = %d x %.1f us + %.2f + %.2f [%.2f = %d x %.1f + %.2f + %.2f] |\n",
        sc, rows, (slots > 0 ? 100 * busy / slots : 0), by / 1e6, 1e6 * ts, 1e6 * tsc, bw, bwc,
        tr, trc, dr, fr, frc, goal, 1e6 * ts * fr, 1e6 * tsc * frc, avx2,
        1e3 * sv, n, 1e6 * ts, 1e3 * pm, 1e3 * ck, 1e3 * svc, n, 1e6 * tsc, 1e3 * pmc, 1e3 * ckc
    }'
done
echo
echo "JSON: $jsonl"
exit $rc
