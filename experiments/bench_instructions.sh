#!/bin/sh
# bench_instructions.sh -- the architecture's speed measure (issue 27): the
# same runs under two builds, counted in instructions (callgrind's Ir), in
# one run of this script.  Wall times on a shared 2-core machine swing by
# tens of percent between repeats; instruction counts do not move.
#
#   sh experiments/bench_instructions.sh BEFORE_BUILD AFTER_BUILD SHARED [PEERS] > table.md
#   STEP_BASE=OLD_BUILD sh experiments/bench_instructions.sh BEFORE_BUILD AFTER_BUILD SHARED
#
# BEFORE_BUILD, AFTER_BUILD: build folders of two revisions (configured
# with CFLAGS='-g -O2' and run from there with libtool); SHARED: the shared
# datasets' parent (../shared); PEERS: the peers' build, for gen_lcp's
# generated LCPs (those rows are left out without it).  Every run is made
# with OPENBLAS_NUM_THREADS=1.  For each run the table gives the whole
# process's Ir and the inclusive Ir of the work itself (slv_solve for a
# solve, dyn_world_step for a scene: start-up and printing excluded), and
# whether the two builds gave the same answers (the solve's JSON but for
# its times; the scene's CSV but for solve_time_s).  Work files go to a
# temporary folder, removed at the end.
#
# The world step's rows (issue 66): pyramid 30 and pile 3000 with the
# world's defaults and pgs_wide at 50 sweeps, the runs whose solve part
# grew by a quarter to a half between e287dff and 4fce775 while every
# table compared builds that both had the cause.  With STEP_BASE set to
# the build of an older revision (e287dff's: before the scale-invariant
# test, experiments/BENCHMARKS.md), each of them gets a second row, STEP_BASE
# against AFTER_BUILD, so that the step's cost is also held to that
# revision's; its "same answers" names the first step where the two
# differ (a test that changed stops some solves at another sweep).
#
# The robot rows (issue 82): MuJoCo's humanoid.xml and 22_humanoids.xml in
# reduced coordinates, when libmujoco-samples installed them.
set -u
[ $# -ge 3 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD SHARED [PEERS]" >&2; exit 2; }
before=$1 after=$2 shared=$3 peers=${4:-} base=${STEP_BASE:-}
for b in "$before" "$after" ${base:+"$base"}; do
  [ -x "$b/cli/lcplab" ] || { echo "$0: $b/cli/lcplab: not built" >&2; exit 2; }
done
command -v valgrind > /dev/null || { echo "$0: valgrind not installed" >&2; exit 2; }
fc3d=$shared/datasets/siconos/fc3d
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1

# ir BUILD OUT FN ARGS...: runs lcplab ARGS natively (OUT.stdout,
# OUT.stderr: the answers are compared from these, since valgrind's
# floating point differs from the CPU's in the last bits), then under
# callgrind; prints "TOTAL INCLUSIVE" (the inclusive Ir of function FN)
ir() {
  build=$1 out=$2 fn=$3
  shift 3
  "$build/cli/lcplab" "$@" > "$out.stdout" 2> "$out.stderr"
  if [ -f "$out.csv" ]; then mv "$out.csv" "$out.ncsv"; fi
  "$build/libtool" --mode=execute valgrind --tool=callgrind --callgrind-out-file="$out.cg" \
    "$build/cli/lcplab" "$@" > /dev/null 2>&1
  total=$(sed -n 's/^summary: //p' "$out.cg")
  incl=$(callgrind_annotate --inclusive=yes "$out.cg" 2> /dev/null |
    awk -v fn="$fn" '$0 ~ ":" fn " " || $0 ~ ":" fn "$" { gsub(",", "", $1); print $1; exit }')
  echo "$total ${incl:-0}"
}

# the answers compared: two scene CSVs on the columns both have but
# solve_time_s (a later revision adds columns), "same" or the first
# difference; a solve's status, iterations and pivots (field), and its
# res_nat_inf (resid)
same_csv() {
  awk -F, 'FNR == 1 { f++; for (i = 1; i <= NF; i++) col[f, $i] = i; nf[f] = NF; next }
    f == 1 { row[FNR] = $0; next }
    { split(row[FNR], a, ",")
      for (i = 1; i <= nf[1]; i++) {
        name = ""; for (k in col) { split(k, q, SUBSEP); if (q[1] == 1 && col[k] == i) name = q[2] }
        if (name == "solve_time_s" || !((2, name) in col)) continue
        if (a[i] != $(col[2, name])) { print "step row " FNR - 1 ", " name ": " a[i] " -> " $(col[2, name]); bad = 1; exit }
      } }
    END { if (!bad && FNR != length(row) + 1) print "rows: " length(row) " -> " FNR - 1 }' "$1" "$2"
}
field() { tr ',' '\n' < "$1.stdout" | grep -E '^"(status|iterations|pivots)"' | tr '\n' ' '; }
resid() { tr ',' '\n' < "$1.stdout" | sed -n 's/^"res_nat_inf"://p'; }

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%+.1f %%", 100 * (b - a) / a; else printf "n/a" }'; }
mi() { awk -v a="$1" 'BEGIN { printf "%.1f M", a / 1e6 }'; }

echo "| run | before: all (Ir) | after: all | change | before: the work | after: the work | change | same answers |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"

# print_row NAME "B_TOTAL B_WORK A_TOTAL A_WORK" SAME
print_row() {
  set -- "$1" $2 "$3"
  echo "| $1 | $(mi "$2") | $(mi "$4") | $(pct "$2" "$4") | $(mi "$3") | $(mi "$5") | $(pct "$3" "$5") | $6 |"
}

# row NAME ARGS...: one solve (lcplab solve ARGS) under both builds
row() {
  name=$1
  shift
  rb=$(ir "$before" "$T/b" slv_solve "$@")
  ra=$(ir "$after" "$T/a" slv_solve "$@")
  same="NO: $(field "$T/b")-> $(field "$T/a")"
  if [ "$(field "$T/b")" = "$(field "$T/a")" ]; then
    same="yes"
    [ "$(resid "$T/b")" = "$(resid "$T/a")" ] ||
      same="same status, iterations and pivots; res_nat_inf $(resid "$T/b") -> $(resid "$T/a")"
  fi
  grep -q '"status"' "$T/a.stdout" || same="no output ($(head -c 80 "$T/a.stderr"))"
  print_row "$name" "$rb $ra" "$same"
  rm -f "$T"/a.* "$T"/b.*
}

# row_scene NAME ARGS...: one simulation (lcplab simulate ARGS) under both;
# with step=1 and STEP_BASE set, a second row: STEP_BASE against
# AFTER_BUILD (AFTER_BUILD's run is not repeated)
step=0
row_scene() {
  name=$1
  shift
  rb=$(ir "$before" "$T/b" dyn_world_step simulate "$@" --force --csv "$T/b.csv")
  ra=$(ir "$after" "$T/a" dyn_world_step simulate "$@" --force --csv "$T/a.csv")
  same=$(same_csv "$T/b.ncsv" "$T/a.ncsv")
  same=${same:-yes}
  [ -s "$T/a.ncsv" ] || same="no output ($(head -c 80 "$T/a.stderr"))"
  print_row "$name" "$rb $ra" "$same"
  if [ "$step" = 1 ] && [ -n "$base" ]; then
    rs=$(ir "$base" "$T/s" dyn_world_step simulate "$@" --force --csv "$T/s.csv")
    same=$(same_csv "$T/s.ncsv" "$T/a.ncsv")
    print_row "$name, against STEP_BASE" "$rs $ra" "${same:-yes}"
  fi
  rm -f "$T"/a.* "$T"/b.* "$T"/s.*
}

bench_scene() { # NAME SCENE PARAM SOLVER
  row_scene "$1" --scene "$2" --param "$3" --solver "$4" --max-iter 50 --margin 0.002 \
    --warm-factor 0.85 --contact-order top-down --steps 120 --dt 1/120
}

# the world step of issue 66 (the world's defaults, 50 sweeps), also
# against STEP_BASE
row_step() {
  step=1
  row_scene "$@"
  step=0
}

bench_scene "pyramid 10, pgs_wide" pyramid layers=10 pgs_wide
bench_scene "pyramid 20, pgs_wide" pyramid layers=20 pgs_wide
bench_scene "pile 500, pgs_wide" pile n=500 pgs_wide
bench_scene "pile 500, pgs" pile n=500 pgs
# the world step of issue 66: the world's defaults, 50 sweeps
row_step "step: pyramid 30, pgs_wide" --scene pyramid --param layers=30 --solver pgs_wide \
  --max-iter 50 --steps 120
row_step "step: pile 3000, pgs_wide" --scene pile --param n=3000 --solver pgs_wide \
  --max-iter 50 --steps 120

# robots in reduced coordinates (issue 82, item 1: the sparse joint space):
# MuJoCo's humanoid samples with the issue's solver, pgs_wide at 100 sweeps
# (a fixed budget, so that the solve's share does not follow a chaotic
# trajectory), the file's 5 ms step
robots=/usr/share/mujoco/model/humanoid
if [ -r "$robots/humanoid.xml" ]; then
  row_scene "robot: humanoid.xml, reduced, pgs_wide" --model "$robots/humanoid.xml" \
    --coordinates reduced --solver pgs_wide --max-iter 100 --steps 100
  row_scene "robot: 22_humanoids.xml, reduced, pgs_wide" --model "$robots/22_humanoids.xml" \
    --coordinates reduced --solver pgs_wide --max-iter 100 --steps 100
fi

if [ -r "$fc3d/KaplasTower-i1061-4.hdf5.dat" ]; then
  row "nsgs, KaplasTower" solve "$fc3d/KaplasTower-i1061-4.hdf5.dat" --solver nsgs
  row "pcg_cone, KaplasTower" solve "$fc3d/KaplasTower-i1061-4.hdf5.dat" --solver pcg_cone
  row "nsn_ac, BoxesStack1" solve "$fc3d/BoxesStack1-i100000-32.hdf5.dat" --solver nsn_ac
  row "apgd, BoxesStack1" solve "$fc3d/BoxesStack1-i100000-32.hdf5.dat" --solver apgd
fi

# the pivoting solvers on the families of `make bench-pivot-factor` (issue
# 66: the block start of dantzig and lemke's crash basis), the files
# written once by the after build's generator, read by both builds
"$after/cli/lcplab" generate --type spd --n 1000 --seed 1 --out "$T/gspd1000.lcp" > /dev/null
"$after/cli/lcplab" generate --type contact --n 1000 --seed 1 --out "$T/gcontact1000.lcp" > /dev/null
"$after/cli/lcplab" generate --type box --n 500 --seed 1 --out "$T/gbox500.lcp" > /dev/null
row "dantzig, spd 1000 (generate)" solve "$T/gspd1000.lcp" --solver dantzig
row "lemke, spd 1000 (generate)" solve "$T/gspd1000.lcp" --solver lemke
row "dantzig, contact 1000 (generate)" solve "$T/gcontact1000.lcp" --solver dantzig
row "lemke, contact 1000 (generate)" solve "$T/gcontact1000.lcp" --solver lemke
row "dantzig, box 500 (generate)" solve "$T/gbox500.lcp" --solver dantzig

if [ -n "$peers" ] && [ -x "$peers/gen_lcp" ]; then
  "$peers/gen_lcp" --type spd --n 500 --seed 1 --out "$T/spd500.dat" > /dev/null
  "$peers/gen_lcp" --type contact --n 1000 --seed 1 --out "$T/contact1000.dat" > /dev/null
  "$peers/gen_lcp" --type contact --n 500 --seed 1 --out "$T/contact500.dat" > /dev/null
  "$peers/gen_lcp" --type contact-box --n 300 --seed 1 --out "$T/cbox300.blcp" > /dev/null
  row "pgs, spd 500" solve "$T/spd500.dat" --solver pgs --tol 1e-10 --repeat 10
  row "pgs, contact 1000" solve "$T/contact1000.dat" --solver pgs
  row "lemke, spd 500" solve "$T/spd500.dat" --solver lemke
  row "dantzig, contact 500" solve "$T/contact500.dat" --solver dantzig --repeat 3
  row "dantzig, contact-box 300" solve "$T/cbox300.blcp" --solver dantzig
fi
