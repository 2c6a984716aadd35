#!/bin/sh
# bench_states.sh -- benchmark (`make bench-states`; not a test, not in `make
# bench`: up to 100 minutes): issue 85, item 1, the 10^4-contact states
# restated to fit one machine.  The pile of 3000 and of 5000 spheres and the
# pyramid of 50 layers, each exported at steps 200, 220, 240, 260 and 280 (15
# local problems, Coulomb cones; a pile's state at one step is one draw of a
# chaotic motion), solved by lcplab's auto at 1e-4 within 100 s, and beside
# each state by Siconos' NSGS, PROX and NSN_AC (peer_fc3d) within the same 100
# s, NSN_AC under an address-space limit of 16 GB (prlimit --as; a run that
# dies of it is "out of memory at 16G", a result).  Every answer is judged by
# peer_fc3d --check-r (res_rel_q).  One run at a time, each row written as it
# ends; a second call resumes where the first stopped (the rows file is kept:
# remove it, or set BENCH_STATES_FRESH=yes, to run everything again).
#
#   sh experiments/bench_states.sh BUILDDIR SRCDIR
#
# Environment (each a word list or a value; bad words: exit 2):
#   BENCH_STATES_SCENES  "pile:3000 pile:5000 pyramid:50"
#   BENCH_STATES_STEPS   "200 220 240 260 280"
#   BENCH_STATES_TOL     1e-4          BENCH_STATES_LIMIT   100 (s a run)
#   BENCH_STATES_NORM    2: lcplab's test asks the judge's measure too (res_rel_2,
#                        res_rel_q's number, besides res_scaled); inf: its own alone
#   BENCH_STATES_SOLVERS "auto" (lcplab's; the first is the table's)
#   BENCH_STATES_PEERS   "NSGS PROX NSN_AC"
#   BENCH_STATES_AS      16G (RLIMIT_AS of BENCH_STATES_AS_PEERS, "NSN_AC")
#   BENCH_STATES_TIGHT   TOL:SECONDS, e.g. 1e-6:300: after the runs above,
#                        auto again at TOL on the states it solved (optional)
#   BENCH_STATES_FRESH   yes: start a new rows file
# The states are exported once into BUILDDIR/experiments/exports/states_*
# (one simulation a scene, to the last step); the rows go to
# BUILDDIR/experiments/results/HOST/bench_states/rows.jsonl, the table to
# bench_states.md beside it (experiments/bench_states.py says what each
# column is).  Exit: 0 the table was written; 1 an export or a run failed;
# 2 usage.
set -eu

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
# absolute: the states folder holds links to the exports, and a link to a
# relative path would be read from the links' folder, not from here
case $1 in /*) builddir=$1 ;; *) builddir=$PWD/$1 ;; esac
srcdir=$2
# shellcheck source=experiments/outfile.sh
. "$srcdir/experiments/outfile.sh"
lcplab=$builddir/cli/lcplab
scenes=${BENCH_STATES_SCENES:-pile:3000 pile:5000 pyramid:50}
steps=${BENCH_STATES_STEPS:-200 220 240 260 280}
tol=${BENCH_STATES_TOL:-1e-4}
limit=${BENCH_STATES_LIMIT:-100}
out=$builddir/experiments/results/$(uname -n)/bench_states
exports=$builddir/experiments/exports

refuse() {
  echo "bench_states.sh: $1: '$2' is not $3" >&2
  exit 2
}
positive() {
  case $1 in '' | *[!0-9]* | 0*) return 1 ;; esac
}
number() {
  case $1 in '' | *[!0-9.eE+-]*) return 1 ;; esac
}
for sc in $scenes; do
  case $sc in
  pyramid:* | pile:*) positive "${sc#*:}" || refuse BENCH_STATES_SCENES "$sc" "pyramid:LAYERS or pile:N" ;;
  *) refuse BENCH_STATES_SCENES "$sc" "pyramid:LAYERS or pile:N" ;;
  esac
done
# gcd A B
gcd() {
  a=$1 b=$2
  while [ "$b" -ne 0 ]; do
    t=$((a % b)) a=$b b=$t
  done
  echo "$a"
}
last=0 every=0
for st in $steps; do
  positive "$st" || refuse BENCH_STATES_STEPS "$st" "a positive step number"
  [ "$st" -gt "$last" ] && last=$st
  every=$(gcd "$st" "$every")
done
number "$tol" || refuse BENCH_STATES_TOL "$tol" "a number"
number "$limit" || refuse BENCH_STATES_LIMIT "$limit" "a number of seconds"
norm=${BENCH_STATES_NORM:-2}
case $norm in 2 | inf) ;; *) refuse BENCH_STATES_NORM "$norm" "2 or inf" ;; esac
tight=""
if [ -n "${BENCH_STATES_TIGHT:-}" ]; then
  t=${BENCH_STATES_TIGHT%%:*} s=${BENCH_STATES_TIGHT#*:}
  { number "$t" && number "$s" && [ "$t" != "$BENCH_STATES_TIGHT" ]; } ||
    refuse BENCH_STATES_TIGHT "$BENCH_STATES_TIGHT" "TOL:SECONDS"
  tight="--tight-tol $t --tight-limit $s"
fi

peers=${LCPLAB_PEERS_BUILD:-$builddir/experiments/peers}
if [ ! -x "$peers/fc3d/peer_fc3d" ]; then
  sh "$srcdir/experiments/build_peers.sh" "$peers" "${LCPLAB_SHARED:-$srcdir/../shared}" >/dev/null ||
    echo "bench_states.sh: some peers did not build" >&2
fi
if [ ! -x "$peers/fc3d/peer_fc3d" ]; then
  echo "bench_states.sh: no $peers/fc3d/peer_fc3d (Siconos' harness): nothing to judge with" >&2
  exit 1
fi

# export SCENE SIZE: the scene's states at every step of $steps, from one
# simulation to the last step (exported every gcd of the steps, the others
# removed)
export_states() {
  case $1 in pyramid) key=layers ;; *) key=n ;; esac
  dir=$exports/states_$1_$2
  missing=no
  for st in $steps; do
    [ -s "$dir/$1_step$(printf '%06d' "$st").hdf5" ] || missing=yes
  done
  [ "$missing" = yes ] || return 0
  mkdir -p "$dir"
  echo "bench_states.sh: exporting $1 $key=$2 to step $last" >&2
  out_new bench_states.sh "$dir/export.json" "$dir/export.err" || exit 1
  if ! "$lcplab" export --scene "$1" --param "$key=$2" --friction cone --solver nsgs \
    --steps "$last" --every "$every" --format hdf5 --out "$dir" --force >"$dir/export.json" \
    2>"$dir/export.err"; then
    echo "bench_states.sh: export of $1 $key=$2 failed:" >&2
    cat "$dir/export.err" >&2
    exit 1
  fi
  for f in "$dir"/*.hdf5 "$dir"/*.x; do
    [ -e "$f" ] || continue
    keep=no
    for st in $steps; do
      case $f in "$dir/$1_step$(printf '%06d' "$st")".*) keep=yes ;; esac
    done
    [ "$keep" = yes ] || rm -f "$f"
  done
}

mkdir -p "$out/states"
# the folder is the runs' list of states: only links are removed from it
find "$out/states" -maxdepth 1 -type l -name '*.hdf5' -exec rm -f {} +
for sc in $scenes; do
  export_states "${sc%%:*}" "${sc#*:}"
  for st in $steps; do
    f=$exports/states_${sc%%:*}_${sc#*:}/${sc%%:*}_step$(printf '%06d' "$st").hdf5
    [ -s "$f" ] || { echo "bench_states.sh: $f: not exported (no contact at that step?)" >&2; exit 1; }
    ln -sfn "$f" "$out/states/${sc%%:*}${sc#*:}_step$(printf '%06d' "$st").hdf5"
  done
done
[ "${BENCH_STATES_FRESH:-no}" = yes ] && rm -f "$out/rows.jsonl"
# shellcheck disable=SC2086 # the lists are words
python3 "$srcdir/experiments/bench_states.py" "$lcplab" "$peers/fc3d/peer_fc3d" "$out/states" \
  "$out/rows.jsonl" --tol "$tol" --time-limit "$limit" --norm "$norm" \
  --solvers ${BENCH_STATES_SOLVERS:-auto} --peers ${BENCH_STATES_PEERS:-NSGS PROX NSN_AC} --as-limit "${BENCH_STATES_AS:-16G}" \
  --as-peers ${BENCH_STATES_AS_PEERS:-NSN_AC} $tight --table "$out/bench_states.md"
echo "bench_states.sh: $out/bench_states.md (rows: $out/rows.jsonl)" >&2
