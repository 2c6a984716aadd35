#!/bin/sh
# 2026-11-28-house5-cmp.sh BEFORE_BUILD AFTER_BUILD OUT: every built-in scene and the
# URDF/MJCF models of tests/models, in maximal and reduced coordinates, 150 steps,
# run by both builds; traces and CSVs (solve_time_s cut) compared with cmp, exit codes
# and stderr (the output folder's name removed) compared too.  In reduced coordinates
# pyramid and pile run smaller (layers=4, n=50): their joint space of free bodies is
# dense and slow there.
B=$1 A=$2 O=$3
mkdir -p "$O/b" "$O/a"
src=$(cd "$(dirname "$0")/../.." && pwd)
same=0 diff=0
run() { # NAME ARGS...
  name=$1; shift
  for side in b a; do
    bin=$B; [ $side = a ] && bin=$A
    d=$O/$side
    (cd "$d" && "$bin/cli/lcplab" simulate "$@" --steps 150 --csv "$name.csv" --trace "$name.trace" \
      --force > "$name.out" 2> "$name.err"; echo $? > "$name.rc")
    sed -i "s|$d||g" "$d/$name.err"
    [ -f "$d/$name.csv" ] && cut -d, -f11 --complement "$d/$name.csv" > "$d/$name.csvx"
  done
  ok=1
  for ext in rc err trace csvx; do
    if [ -f "$O/b/$name.$ext" ] || [ -f "$O/a/$name.$ext" ]; then
      cmp -s "$O/b/$name.$ext" "$O/a/$name.$ext" || ok=0
    fi
  done
  if [ $ok = 1 ]; then same=$((same + 1)); else diff=$((diff + 1)); echo "DIFF $name"; fi
  echo "$name rc=$(cat "$O/a/$name.rc") trace_lines=$(cat "$O/a/$name.trace" 2>/dev/null | wc -l)"
}
for s in ball incline stack pyramid pile dominoes cradle racket pendulum double_pendulum chain door \
  wheel slider car slider_crank ragdoll; do
  run "$s-maximal" --scene "$s" --coordinates maximal
  case $s in
  pyramid) run "$s-reduced" --scene "$s" --coordinates reduced --param layers=4 ;;
  pile) run "$s-reduced" --scene "$s" --coordinates reduced --param n=50 ;;
  *) run "$s-reduced" --scene "$s" --coordinates reduced ;;
  esac
done
for f in "$src"/tests/models/*.urdf "$src"/tests/models/*.xml; do
  m=$(basename "$f")
  for c in maximal reduced; do run "$m-$c" --model "$f" --coordinates "$c"; done
done
echo "$same same, $diff differ"
