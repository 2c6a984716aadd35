#!/bin/sh
# robots_settle.sh -- do MuJoCo's humanoids settle?  One line per model and
# solver (experiments/records/2026-11-26-humanoids-settle.md): `lcplab simulate
# --model FILE --approximate` at lcplab's defaults (50 iterations, failure
# policy fallback) for STEPS steps, and from its --trace the settle metric:
# the largest linear speed |v| of a body of the humanoid over the last
# second (the steps with t > T - 1 s).  Settled: that speed below
# LCPLAB_SETTLE_VMAX (default 0.05 m/s, g h at the samples' h = 5 ms).
# humanoid100.xml's 100 free objects (bodies 17 .. 116 in MuJoCo's order;
# spheres and capsules roll on without rolling friction) are left out;
# the chain bodies (after them) are the humanoid's.
#
#   sh experiments/robots_settle.sh LCPLAB MODEL STEPS SOLVER [SIMULATE OPTIONS]
#
# prints: model solver settled vmax_last_s energy_end kinetic_end failed
# fallback time_step_mean_s exit
set -u
lcplab=$1
model=$2
steps=$3
solver=$4
shift 4
vmax=${LCPLAB_SETTLE_VMAX:-0.05}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$lcplab" simulate --model "$model" --approximate --solver "$solver" --steps "$steps" \
  --trace "$tmp/trace.csv" "$@" >"$tmp/summary.json" 2>"$tmp/err"
rc=$?
case $(basename "$model") in
humanoid100.xml) skip_lo=17 skip_hi=116 ;;
*) skip_lo=1 skip_hi=0 ;;
esac
speed=$(awk -F, -v lo="$skip_lo" -v hi="$skip_hi" '
  NR == 1 { next }
  { t[NR] = $2; if ($2 > tend) tend = $2 }
  { row[NR] = $0 }
  END {
    m = 0
    for (i in row) {
      split(row[i], f, ",")
      if (f[2] <= tend - 1.0 + 1e-9) continue
      if (f[3] >= lo && f[3] <= hi) continue
      v = sqrt(f[11] * f[11] + f[12] * f[12] + f[13] * f[13])
      if (!(v <= m)) m = v
    }
    printf "%.3g", m
  }' "$tmp/trace.csv")
field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$tmp/summary.json"; }
# the steps carried by a fallback: the applied_counts entries fallback:SOLVER
fallback=$(sed -n 's/.*"applied_counts":{\([^}]*\)}.*/\1/p' "$tmp/summary.json" |
  tr ',' '\n' | awk -F: '/fallback/ { n += $NF } END { print n + 0 }')
settled=no
awk -v s="$speed" -v m="$vmax" 'BEGIN { exit !(s + 0 < m + 0) }' && settled=yes
[ "$rc" -eq 0 ] || settled=no
printf '%s %s %s %s %s %s %s %s %s %s\n' "$(basename "$model" .xml)" "$solver" "$settled" \
  "$speed" "$(field energy_end)" "$(field kinetic_end)" "$(field failed_steps)" \
  "$fallback" "$(field time_step_mean_s)" "$rc"
