#!/bin/sh
# scene_goals.sh -- the table of issue 66's scene goals from the CSVs of
# experiments/bench_scene_goals.exp (`make bench-scenes`, `make
# bench-scene-goals`; experiments/BENCHMARKS.md, "Benchmark: make
# bench-scenes").
#
#   sh experiments/scene_goals.sh DIR
#
# DIR: the section outputs of bench_scene_goals.exp (goal_pile_ode.csv,
# goal_pyramid_bullet2f.csv).  For each section, each round (a scene line:
# lcplab's row, then its peers') gives lcplab's and each peer's median step
# time (the last 480 of 600 steps) and their ratio, the peer's over
# lcplab's; then, per peer, the median of the rounds' ratios: the first
# peer's (as built) beside the goal (met or not), the others' (the same
# peer on huge pages, "-thp") beside it for reference; last the CSV's load
# line (the 1-minute load average over the tasks: the machine is shared).  Exit: 0 printed (goals
# met or not), 1 a CSV missing or without rows, 2 usage.
set -u
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
echo "| scene | peer | round | lcplab step | peer step | ratio | goal |"
echo "|---|---|---:|---:|---:|---:|---|"
rc=0
for sec in goal_pile_ode:4 goal_pyramid_bullet2f:3; do
  name=${sec%%:*} goal=${sec#*:}
  csv=$dir/$name.csv
  if [ ! -f "$csv" ]; then
    echo "$0: $csv: not found" >&2
    rc=1
    continue
  fi
  # columns by name from the header; rows in task order (lcplab, then its peer)
  awk -F, -v goal="$goal" -v name="$name" '
    function median(list, n,    i, j, t, v) {
      for (i = 1; i <= n; i++) v[i] = list[i]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    /^#/ { if ($0 ~ /^# load:/) load = substr($0, 9); next }
    !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
    {
      if ($col["solver"] == "pgs_wide") { lc = $col["time_step_median_s"]; sc = $col["scene"] " " $col["params"]; r++; next }
      if (lc == "") next
      peer = $col["solver"]; pt = $col["time_step_median_s"]
      if (!(peer in np)) { np[peer] = 0; order[++npeers] = peer }
      k = ++np[peer]; ratio[peer, k] = pt / lc
      printf "| %s | %s | %d | %.2f ms | %.2f ms | %.2fx | |\n", sc, peer, r, 1e3 * lc, 1e3 * pt, pt / lc
    }
    END {
      if (npeers == 0) { print name ": no rows" > "/dev/stderr"; exit 1 }
      for (q = 1; q <= npeers; q++) {
        peer = order[q]; n = np[peer]
        for (i = 1; i <= n; i++) one[i] = ratio[peer, i]
        m = median(one, n)
        if (q == 1)
          printf "| %s | %s | median of %d | | | %.2fx | %dx: %s |\n", sc, peer, n, m, goal, (m >= goal ? "met" : "not met")
        else
          printf "| %s | %s | median of %d | | | %.2fx | (%dx is judged against %s) |\n", sc, peer, n, m, goal, order[1]
      }
      printf "| load: %s | | | | | | |\n", load
    }' "$csv" || rc=1
done
exit $rc
