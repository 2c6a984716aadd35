#!/bin/sh
# bench_exports.sh -- benchmark (`make bench-exports`; not a test): the FC3D
# problems the scenes export, from a thousand to forty thousand rows, solved
# to one tolerance by lcplab's cone solvers and Siconos' FC3D solvers, every
# returned r judged by one program (peer_fc3d --check-r).
#
#   sh experiments/bench_exports.sh BUILDDIR SRCDIR [GNUPLOT]
#
# Problems: step 240 of each scene, exported as issue 29 asks,
#     lcplab export --scene S --param P --friction cone --solver nsgs
#                   --steps 240 --every 240 --format dat --out DIR
# for the scenes of BENCH_EXPORTS_SCENES (default: the pyramid of 10, 20,
# 30, 40 and 50 layers and the pile of 500, 1500, 3000 and 5000 spheres;
# "pyramid:50 pile:5000" is the issue's pair of 10^4-contact problems).
# The exports are kept in BUILDDIR/experiments/exports/ and made again
# only when missing.
#
# Runs, one process at a time, each under `timeout` BENCH_EXPORTS_TIMEOUT s
# (default 300) and a memory cap of BENCH_EXPORTS_MEM_GB whole GB (default 16: a
# dense Newton matrix of 30,000 rows needs 7 GB, and Siconos' NSN_AC and
# PROX took 24 GB on the pile-5000 export until the kernel killed them):
#   lcplab solve FILE --solver S --tol T --norm 2 --max-iter 100000
#                --solution R                    S in BENCH_EXPORTS_SOLVERS
#                                                (default auto ipm admm nsgs_newton)
#   peer_fc3d -s P --tol T --maxit 100000 --repeat 1 --save-r R FILE
#                                                P in BENCH_EXPORTS_PEER_SOLVERS
#                                                (default NSGS ADMM PROX NSN_AC)
# T = BENCH_EXPORTS_TOL (default 1e-6).  Siconos' solvers stop on their own
# test, ||m||_2 / max(||q||, ||r||, ||u||) <= tol, which the impulses' size
# (||r|| 100-800 on these exports) makes up to a hundred times looser than
# the judge's: a peer run the judge does not accept is repeated at tol
# times each factor of BENCH_EXPORTS_PEER_FACTORS in turn (default "1 0.01
# 0.0001"), as long as Siconos' own test passes and the judge's does not;
# the row keeps the last run and its tol.  lcplab's solvers stop on
# the judge's own measure (--norm 2) and run once.  The peers' harness is built from
# LCPLAB_FC3D_PEERS (default $LCPLAB_SHARED/peers/fc3d) in a temporary
# directory (its Debian packages once, as root: make -C ../shared/peers deps);
# BENCH_EXPORTS_PEERS=none runs lcplab only (and then judges with lcplab's
# own res_rel_2, the same formula).  A single solve is timed: these take
# 10 ms to minutes.
#
# Judge: peer_fc3d --check-r R FILE on every returned r, lcplab's and
# Siconos' alike: res_rel_q = ||r - P_K(r - (u + mu |u_t| e_n))||_2 /
# max(1, ||q||_2) with u = W r + q recomputed; solved iff res_rel_q <= T.
# A run that ends otherwise is shown with its status and residual: timeout
# (124), out of memory (the cap; or killed), crash, not solved.
#
# Writes to BUILDDIR/experiments/results/HOST/, or BENCH_EXPORTS_OUT (earlier
# files of the same names moved aside with a UTC timestamp):
#   bench_exports.csv   one row per run: scene, size, contacts, n, program,
#                       solver, status, time_s, res_rel_q, solved, peak_mb
#   bench_exports.md    per problem: every run, the fastest solver that
#                       solves it, lcplab auto against the fastest Siconos
#                       solver that solves it, the Siconos solvers that
#                       cannot run at that size (bench_exports.py)
#   bench_exports.png / .pdf  time against contacts, solved runs filled,
#                       the others open at the time they stopped
#                       (bench_exports.gp)
# Exit status: 0 tables written; 1 an export or the harness's build failed;
# 2 usage.
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
shared=${LCPLAB_SHARED:-$srcdir/../shared}
peersrc=${LCPLAB_FC3D_PEERS:-$shared/peers/fc3d}
lcplab=$builddir/cli/lcplab
scenes=${BENCH_EXPORTS_SCENES:-pyramid:10 pyramid:20 pyramid:30 pyramid:40 pyramid:50 pile:500 pile:1500 pile:3000 pile:5000}
solvers=${BENCH_EXPORTS_SOLVERS:-auto ipm admm nsgs_newton}
psolvers=${BENCH_EXPORTS_PEER_SOLVERS:-NSGS ADMM PROX NSN_AC}
pfactors=${BENCH_EXPORTS_PEER_FACTORS:-1 0.01 0.0001}
peers=${BENCH_EXPORTS_PEERS:-live}
tlimit=${BENCH_EXPORTS_TIMEOUT:-300}
tol=${BENCH_EXPORTS_TOL:-1e-6}
memgb=${BENCH_EXPORTS_MEM_GB:-16}
export OPENBLAS_NUM_THREADS=1

case $peers in
  live | none) ;;
  *) echo "bench_exports.sh: BENCH_EXPORTS_PEERS must be live or none, got '$peers'" >&2; exit 2 ;;
esac
if [ ! -x "$lcplab" ]; then
  echo "bench_exports.sh: $lcplab not built (make in $builddir first)" >&2
  exit 2
fi

host=$(uname -n)
out=${BENCH_EXPORTS_OUT:-$builddir/experiments/results/$host}
exports=$builddir/experiments/exports
mkdir -p "$out" "$exports"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_exports.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

peer=
if [ "$peers" = live ]; then
  if [ ! -d "$peersrc" ]; then
    echo "bench_exports.sh: $peersrc not found (set LCPLAB_FC3D_PEERS, or BENCH_EXPORTS_PEERS=none)" >&2
    exit 2
  fi
  mkdir -p "$tmp/peers"
  cp -r "$peersrc/." "$tmp/peers/"
  if ! make -C "$tmp/peers" peer_fc3d >"$tmp/peers.log" 2>&1; then
    echo "bench_exports.sh: building peer_fc3d failed; the end of its log:" >&2
    tail -15 "$tmp/peers.log" >&2
    exit 1
  fi
  peer=$tmp/peers/peer_fc3d
fi

# export SCENE SIZE: prints the .dat path (made once)
export_scene() {
  case $1 in pyramid) key=layers ;; pile) key=n ;; *) key=n ;; esac
  dir=$exports/$1_$2
  file=$dir/$1_step000240.dat
  if [ ! -s "$file" ]; then
    mkdir -p "$dir"
    if ! "$lcplab" export --scene "$1" --param "$key=$2" --friction cone --solver nsgs \
      --steps 240 --every 240 --format dat --out "$dir" >"$dir/export.json" 2>"$dir/export.err"; then
      echo "bench_exports.sh: export of $1 $key=$2 failed:" >&2
      cat "$dir/export.err" >&2
      exit 1
    fi
  fi
  echo "$file"
}

# limited CMD...: runs CMD under the time limit and the memory cap; prints
# "status elapsed_s peak_kb" on fd 3, the command's stdout to stdout
limited() {
  t0=$(date +%s.%N)
  set +e
  /usr/bin/time -f "%M" -o "$tmp/time.txt" \
    sh -c 'ulimit -v "$1"; shift; exec timeout "$@"' limited "$((memgb * 1048576))" "$tlimit" "$@"
  rc=$?
  set -e
  t1=$(date +%s.%N)
  peak=$(tail -1 "$tmp/time.txt" 2>/dev/null | tr -dc '0-9')
  echo "$rc $(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }") ${peak:-0}" >&3
}

# judge FILE R: res_rel_q of r in R on FILE (peer_fc3d --check-r), or "nan"
judge() {
  if [ -n "$peer" ] && [ -s "$2" ]; then
    "$peer" --check-r "$2" "$1" 2>/dev/null |
      sed -n 's/.*"res_rel_q":\([-+.0-9eEnaif]*\).*/\1/p' | head -1
  else
    echo nan
  fi
}

runs=$tmp/runs.tsv
printf 'scene\tsize\tcontacts\tn\tprogram\tsolver\tstatus\ttime_s\tres_rel_q\tpeak_mb\texit\trun_tol\tnote\n' >"$runs"
# note: the last line a run printed on stderr (tabs and quotes removed)
note() { tail -1 "$tmp/err.txt" 2>/dev/null | tr '\t",' '   ' | cut -c1-120; }
for sc in $scenes; do
  name=${sc%%:*}
  size=${sc#*:}
  file=$(export_scene "$name" "$size")
  n=$(sed -n '4p' "$file")
  nc=$(sed -n '2p' "$file")
  echo "bench_exports.sh: $name $size: $nc contacts, n = $n" >&2
  for s in $solvers; do
    r=$tmp/lcplab.$s.r
    rm -f "$r"
    limited "$lcplab" solve "$file" --solver "$s" --tol "$tol" --norm 2 --max-iter 100000 \
      --solution "$r" --force >"$tmp/out.json" 2>"$tmp/err.txt" 3>"$tmp/lim.txt" || true
    read -r rc wall peak <"$tmp/lim.txt"
    st=$(sed -n 's/.*"status":"\([a-z_]*\)".*/\1/p' "$tmp/out.json" | head -1)
    t=$(sed -n 's/.*"time_s":\([-+.0-9eE]*\).*/\1/p' "$tmp/out.json" | head -1)
    case $rc in
      0 | 3) ;;
      124) st=timeout t=$wall ;;
      *) st=${st:-crash} t=${t:-$wall} ;;
    esac
    res=$(judge "$file" "$r")
    if [ "$res" = nan ] && [ -s "$tmp/out.json" ]; then
      res=$(sed -n 's/.*"res_rel_2":\([-+.0-9eE]*\).*/\1/p' "$tmp/out.json" | head -1)
    fi
    printf '%s\t%s\t%s\t%s\tlcplab\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$nc" "$n" "$s" \
      "${st:-crash}" "${t:-$wall}" "${res:-nan}" "$((peak / 1024))" "$rc" "$tol" "$(note)" >>"$runs"
    echo "  lcplab $s: ${st:-crash} ${t:-$wall} s, res_rel_q ${res:-nan}" >&2
  done
  [ -n "$peer" ] || continue
  for P in $psolvers; do
    for f in $pfactors; do
      ptol=$(awk "BEGIN { printf \"%g\", $tol * $f }")
      pfx=$tmp/peer
      rm -f "$pfx.$P.r"
      limited "$peer" -s "$P" --tol "$ptol" --maxit 100000 --repeat 1 --save-r "$pfx" "$file" \
        >"$tmp/out.json" 2>"$tmp/err.txt" 3>"$tmp/lim.txt" || true
      read -r rc wall peak <"$tmp/lim.txt"
      st=$(sed -n 's/.*"status":"\([a-z_]*\)".*/\1/p' "$tmp/out.json" | head -1)
      t=$(sed -n 's/.*"time_s":\([-+.0-9eE]*\).*/\1/p' "$tmp/out.json" | head -1)
      case $rc in
        0) ;;
        124) st=timeout t=$wall ;;
        137) st=killed t=$wall ;;
        *) if grep -qi "alloc\|memory" "$tmp/err.txt"; then st=out_of_memory; else st=${st:-crash}; fi
           t=${t:-$wall} ;;
      esac
      res=$(judge "$file" "$pfx.$P.r")
      res=${res:-nan}
      echo "  siconos $P at $ptol: ${st:-crash} ${t:-$wall} s, res_rel_q $res" >&2
      # again at a tighter tol only when Siconos' own test passed and the judge's did not
      again=$(awk "BEGIN { print (\"$res\" != \"nan\" && \"$res\" + 0 > $tol) ? 1 : 0 }")
      [ "$st" = ok ] && [ "$again" = 1 ] || break
    done
    printf '%s\t%s\t%s\t%s\tsiconos\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$nc" "$n" "$P" \
      "${st:-crash}" "${t:-$wall}" "${res:-nan}" "$((peak / 1024))" "$rc" "$ptol" "$(note)" >>"$runs"
  done
done

python3 "$srcdir/experiments/bench_exports.py" "$runs" "$tol" "$out" "$tlimit" "$memgb"
if [ -n "$gnuplot" ] && command -v "$gnuplot" >/dev/null 2>&1; then
  gp_run "$gnuplot" "$srcdir/experiments/bench_exports.gp" "$out/bench_exports" \
    "file:data.csv=$out/bench_exports.csv" "file:series.gp=$out/bench_exports_series.gp" "tol=$tol" ||
    echo "bench_exports.sh: gnuplot failed (the CSV and the table are written)" >&2
fi
echo "bench_exports.sh: $out/bench_exports.csv, .md, .png, .pdf" >&2
