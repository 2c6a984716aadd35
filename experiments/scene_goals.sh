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
# lcplab's row, then its peer's) gives lcplab's and the peer's median step
# time (the last 480 of 600 steps) and their ratio, the peer's over
# lcplab's; the last line of a section is the median of the rounds' ratios
# beside the goal (met or not) and the CSV's load line (the 1-minute load
# average over the tasks: the machine is shared).  Exit: 0 printed (goals
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
    /^#/ { if ($0 ~ /^# load:/) load = substr($0, 9); next }
    !h { for (i = 1; i <= NF; i++) col[$i] = i; h = 1; next }
    {
      if ($col["solver"] == "pgs_wide") { lc = $col["time_step_median_s"]; sc = $col["scene"] " " $col["params"]; next }
      if (lc == "") next
      r++; peer = $col["solver"]; pt = $col["time_step_median_s"]
      ratio[r] = pt / lc
      printf "| %s | %s | %d | %.2f ms | %.2f ms | %.2fx | |\n", sc, peer, r, 1e3 * lc, 1e3 * pt, ratio[r]
      lc = ""
    }
    END {
      if (r == 0) { print name ": no rows" > "/dev/stderr"; exit 1 }
      for (i = 1; i <= r; i++) for (j = i + 1; j <= r; j++) if (ratio[j] < ratio[i]) { t = ratio[i]; ratio[i] = ratio[j]; ratio[j] = t }
      m = r % 2 ? ratio[(r + 1) / 2] : (ratio[r / 2] + ratio[r / 2 + 1]) / 2
      printf "| %s | %s | median of %d | | | %.2fx | %dx: %s |\n", sc, peer, r, m, goal, (m >= goal ? "met" : "not met")
      printf "| load: %s | | | | | | |\n", load
    }' "$csv" || rc=1
done
exit $rc
