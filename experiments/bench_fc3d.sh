#!/bin/sh
# bench_fc3d.sh -- benchmark (`make bench-fc3d`, also run by `make bench`;
# not a test): a Dolan-More performance profile of lcplab's Coulomb-cone
# solvers and Siconos' FC3D solvers on the shared local FC3D problems, at
# tol 1e-4 and 1e-8, with ONE accuracy criterion for everybody.
#
#   sh experiments/bench_fc3d.sh BUILDDIR SRCDIR [GNUPLOT]
#
# Needs BUILDDIR/cli/lcplab built, python3, timeout (coreutils), the shared
# data (LCPLAB_SHARED=DIR, default SRCDIR/../shared: datasets/siconos/fc3d,
# datasets/fclib), and for live peers the harness LCPLAB_FC3D_PEERS (default
# $LCPLAB_SHARED/peers/fc3d) with its Debian packages (once, as root:
# make -C ../shared/peers/fc3d deps; this script installs nothing); gnuplot
# (pngcairo / pdfcairo) for the figure, optional.
#
# Problems (39, never copied): the 37 files of datasets/siconos/fc3d (35 .dat,
# 2 .hdf5) and the 2 local FCLIB files datasets/fclib/local_problem_test.hdf5
# and Capsules-i97-269.hdf5 (the 2 global FCLIB files are not local problems).
# BENCH_FC3D_FILES="F1 F2 ..." replaces the list (e.g. to try the script).
#
# Steps:
# 1. each problem is converted once with `lcplab convert FILE TMP.lcp`: the
#    judge (experiments/profile.py) reads W, q, mu from there;
# 2. lcplab: every solver whose `lcplab solvers` line accepts "cone" (today
#    nsgs, pjacobi_cone, pcg_cone, apgd), on every problem and tolerance:
#      lcplab solve FILE --solver S --tol T --max-iter 100000 --norm N --repeat R --solution X
#    (N = the judge's norm, BENCH_FC3D_NORM: lcplab stops where the judge
#    agrees, as the peers stop on their own 2-norm based errors)
#    in its own process under `timeout` (BENCH_FC3D_TIMEOUT s), first with
#    --repeat 1 (the probe, time t1); then R = max(BENCH_FC3D_REPEAT,
#    min(BENCH_FC3D_REPEAT_MAX, BENCH_FC3D_FAST / t1)), made odd: a fast run
#    is repeated until its solves add up to about BENCH_FC3D_FAST seconds,
#    since the median of 3 solves of 2-20 us swung 20-40 % between runs
#    (and the median of 1001 solves, 11 ms in all, still 30 % once: the
#    machine's disturbances last milliseconds).
#    When R x t1 fits in BENCH_FC3D_BUDGET it is redone with R repeats,
#    spread over BENCH_FC3D_PROCS processes (default 3; each ceil(R / 3)
#    repeats, made odd): the least time over all of them and the median of
#    their medians are kept (BENCH_FC3D_TIME below), since one process's
#    speed is a draw (5001 solves of FC3D_Example1 in one process: least
#    1.5 us in six processes of eight, 2.1 us in two, on either core);
#    else the single solve is kept and the row says so.  The peers get
#    the same rule: a probe with --repeat 1, then R repeats from their own
#    t1 in the same processes (peer_fc3d's --budget also stops repeating
#    when the next solve would pass the budget).  Exit 2 (e.g.
#    pcg_cone / apgd refuse a non-symmetric W) is recorded as "refused", 124
#    as "timeout";
# 3. peers, BENCH_FC3D_PEERS =
#      live    (default) the harness is copied to a temporary directory and
#              built there; per problem, tolerance and solver (one process
#              each, so an assert in one Siconos solver loses only that run):
#                peer_fc3d -s P --tol T --maxit 100000 --repeat 1, then R
#                          --budget BENCH_FC3D_BUDGET --save-r PFX FILE
#              under `timeout`, P in NSGS PROX NSN_AC ADMM VI_EG NSN_FB TFP
#              NSGS_PLI;
#      stored  no Siconos run: the sweeps kept in the harness's
#              results/{main,extra}_tol{1e-4,1e-8}.jsonl (maxit 10000; main
#              NSGS/PROX/NSN_AC with a 60 s timeout and a 40 s budget, extra
#              solvers 10 s and 6 s; two sweeps ran at once; see its README);
#              they kept no r, so the residual is their res_nat_abs / max(1,
#              norm_q) (the same formula as the judge, computed by the
#              harness); the output says "stored";
#      none    lcplab only;
#    BENCH_FC3D_PEER_SOLVERS="A B ..." replaces the solver list;
# 4. profile.py judges every returned x / r with one residual function (the
#    natural map with the De Saxce shift, 2-norm, over max(1, ||q||_2), by
#    default; solved iff <= tol: its header comment has the details and
#    why), builds the profiles and writes, in
#    BUILDDIR/experiments/results/HOST/ (HOST = uname -n):
#      bench_fc3d.csv          one row per run (problem, nc, solver, program,
#                              tol, status, time, residual, solved, ...)
#      bench_fc3d_profile.csv  rho_s(tau) breakpoints per (tol, solver)
#      bench_fc3d.md           per tolerance: solved / fastest counts per
#                              solver, the issue's goal line, the problems
#                              no lcplab solver solves, per-problem winners,
#                              the judge's cross-check
#      bench_fc3d.png / .pdf   (bench_fc3d.gp) the profiles, log2 tau, one
#                              panel per tolerance
#    Earlier files of the same names are moved aside with a UTC timestamp.
#
# Environment: BENCH_FC3D_QUICK=1 (tol 1e-4 only, peers NSGS PROX NSN_AC;
# about 1.5 minutes), BENCH_FC3D_NORM=2 (default) or inf: the norm of the
# criterion (inf is lcplab's own res_rel; it needs live peers; the .md counts
# both anyway), BENCH_FC3D_TOLS (default "1e-4 1e-8"), BENCH_FC3D_TIMEOUT
# (default 10 s per run, the same for every program), BENCH_FC3D_BUDGET
# (default 3 s: no more repeats once the summed solve time would pass it),
# BENCH_FC3D_REPEAT (default 3: the fewest repeats), BENCH_FC3D_FAST
# (default 0.2 s) and BENCH_FC3D_REPEAT_MAX (default 10001): the repeats of a
# fast run (above), BENCH_FC3D_TIME (default min: a run's time is the least
# of its repeats; median: their median; the same for both programs.  The
# median moved with the machine's state: nsgs on Rover4622, 10001 solves a
# process, medians of 8.8 or 11.8 us from one process to the next, the
# least 8.70-8.79 us; the minimum is the robust estimate for a
# deterministic computation, Chen and Revels 2016), BENCH_FC3D_PROCS
# (default 3: the processes a run's repeats are spread over),
# BENCH_FC3D_KEEP=1 (keep the temporary directory: runs.tsv, every
# program's output and x, the converted problems).
# The defaults keep a full live run near 10 minutes on 2 cores; most of it is
# the peers' runs that do not converge (100000 iterations or the timeout).
# A run killed at the timeout is not solved: with BENCH_FC3D_TIMEOUT=20
# BENCH_FC3D_BUDGET=5 the run took 21 minutes and 2 more peer runs (single
# solves of 10-20 s) were solved.  Everything runs one process at a time.
# Exit status: 0 tables written; 1 the harness could not be built (try
# BENCH_FC3D_PEERS=stored); 2 usage / missing inputs.
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
data=$shared/datasets
peersrc=${LCPLAB_FC3D_PEERS:-$shared/peers/fc3d}
lcplab=$builddir/cli/lcplab
mode=${BENCH_FC3D_PEERS:-live}
quick=${BENCH_FC3D_QUICK:-0}
norm=${BENCH_FC3D_NORM:-2}
tlimit=${BENCH_FC3D_TIMEOUT:-10}
budget=${BENCH_FC3D_BUDGET:-3}
repeat=${BENCH_FC3D_REPEAT:-3}
fast=${BENCH_FC3D_FAST:-0.2}
tstat=${BENCH_FC3D_TIME:-min}
rmax=${BENCH_FC3D_REPEAT_MAX:-10001}
procs=${BENCH_FC3D_PROCS:-3}
maxit=100000
if [ "$quick" = 1 ]; then
  tols=${BENCH_FC3D_TOLS:-1e-4}
  psolvers=${BENCH_FC3D_PEER_SOLVERS:-NSGS PROX NSN_AC}
else
  tols=${BENCH_FC3D_TOLS:-1e-4 1e-8}
  psolvers=${BENCH_FC3D_PEER_SOLVERS:-NSGS PROX NSN_AC ADMM VI_EG NSN_FB TFP NSGS_PLI}
fi
export OPENBLAS_NUM_THREADS=1

case $mode in
  live | stored | none) ;;
  *) echo "bench_fc3d.sh: BENCH_FC3D_PEERS must be live, stored or none, got '$mode'" >&2; exit 2 ;;
esac
case $norm in
  2) ;;
  inf)
    if [ "$mode" = stored ]; then
      echo "bench_fc3d.sh: BENCH_FC3D_NORM=inf needs the peers' r: the stored sweeps hold only the 2-norm" >&2
      exit 2
    fi ;;
  *) echo "bench_fc3d.sh: BENCH_FC3D_NORM must be 2 or inf, got '$norm'" >&2; exit 2 ;;
esac
if [ ! -x "$lcplab" ]; then
  echo "bench_fc3d.sh: $lcplab not built (run 'make bench-fc3d' in $builddir)" >&2
  exit 2
fi
for tool in python3 timeout; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench_fc3d.sh: $tool not found: it is needed (python3: judge and tables; timeout: coreutils)" >&2
    exit 2
  fi
done
if [ -n "${BENCH_FC3D_FILES:-}" ]; then
  files=$BENCH_FC3D_FILES
else
  if [ ! -d "$data/siconos/fc3d" ] || [ ! -d "$data/fclib" ]; then
    echo "bench_fc3d.sh: shared FC3D data not found under $data (set LCPLAB_SHARED=DIR): no benchmark" >&2
    exit 2
  fi
  files=$(ls "$data"/siconos/fc3d/*.dat "$data"/siconos/fc3d/*.hdf5 | LC_ALL=C sort)
  files="$files $data/fclib/local_problem_test.hdf5 $data/fclib/Capsules-i97-269.hdf5"
fi
for f in $files; do
  if [ ! -r "$f" ]; then
    echo "bench_fc3d.sh: cannot read $f" >&2
    exit 2
  fi
done
if [ "$mode" != none ] && [ ! -f "$peersrc/Makefile" ]; then
  echo "bench_fc3d.sh: FC3D peer harness not found at $peersrc (set LCPLAB_FC3D_PEERS=DIR," >&2
  echo "  or BENCH_FC3D_PEERS=none for lcplab alone)" >&2
  exit 2
fi

# the cone solvers: `lcplab solvers` prints "name  accepts  description",
# columns separated by two spaces; "cone" must be a word of the accepts column
csolvers=$("$lcplab" solvers | awk -F '  +' '{n = split($2, a, " "); for (i = 1; i <= n; i++) if (a[i] == "cone") print $1}')
if [ -z "$csolvers" ]; then
  echo "bench_fc3d.sh: no registered solver accepts cones ('$lcplab solvers')" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-bench-fc3d.XXXXXX")
if [ "${BENCH_FC3D_KEEP:-0}" = 1 ]; then
  trap 'echo "bench_fc3d.sh: runs, outputs and x kept in $tmp"' EXIT
else
  trap 'rm -rf "$tmp"' EXIT
fi
trap 'exit 130' HUP INT PIPE TERM
mkdir -p "$tmp/lcp" "$tmp/x" "$tmp/out"
start=$(date +%s)
load0=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')

# ---- the peer harness: a private build, or the stored sweeps ------------------------
peer=
if [ "$mode" = live ]; then
  cp -R "$peersrc/." "$tmp/peers"
  chmod -R u+w "$tmp/peers"
  echo "bench_fc3d.sh: building peer_fc3d (copy of $peersrc) ..."
  if ! { make -C "$tmp/peers" clean && make -C "$tmp/peers" peer_fc3d; } >"$tmp/build.log" 2>&1; then
    tail -n 20 "$tmp/build.log" >&2
    echo "bench_fc3d.sh: cannot build peer_fc3d.  Install its packages once as root" >&2
    echo "  (make -C $peersrc deps), or run with BENCH_FC3D_PEERS=stored or none" >&2
    exit 1
  fi
  peer=$tmp/peers/peer_fc3d
  peerdesc="live: Siconos numerics $(dpkg-query -W -f '${Version}' libsiconos-numerics-dev 2>/dev/null || echo '?') via peer_fc3d (maxit $maxit, repeat $repeat..$rmax to about $fast s, budget $budget s, timeout $tlimit s)"
elif [ "$mode" = stored ]; then
  for t in $tols; do
    for k in main extra; do
      if [ ! -r "$peersrc/results/${k}_tol$t.jsonl" ]; then
        echo "bench_fc3d.sh: no stored sweep $peersrc/results/${k}_tol$t.jsonl for tol $t" >&2
        exit 2
      fi
    done
  done
  peerdesc="stored: $peersrc/results/{main,extra}_tol*.jsonl (maxit 10000; timeout 60 s main / 10 s extra)"
else
  peerdesc="none"
fi

# one line per run (tab-separated; profile.py reads the files):
# problem program solver tol exit OUT ERR X source one_solve
runs=$tmp/runs.tsv
: >"$runs"
nrun=0

# ---- 1. the problems, converted for the judge ------------------------------------------
problems=$tmp/problems.tsv
: >"$problems"
for f in $files; do
  b=$(basename "$f")
  if "$lcplab" convert "$f" "$tmp/lcp/$b.lcp" >/dev/null 2>"$tmp/err.txt"; then
    printf '%s\t%s\t%s\n' "$b" "$f" "$tmp/lcp/$b.lcp" >>"$problems"
  else
    echo "bench_fc3d.sh: lcplab convert $b failed: $(head -n 1 "$tmp/err.txt")" >&2
    printf '%s\t%s\t\n' "$b" "$f" >>"$problems"
  fi
done

# ---- 2./3. the runs -----------------------------------------------------------------------
# repeats_for OUT: the repeats a run whose probe printed OUT (JSON, first
# "time_s") gets: R = max(repeat, min(rmax, fast / t1)), odd; 1 when R
# solves would not fit in the budget, or OUT has no time
repeats_for() {
  sed -n 's/.*"time_s":\([-+.0-9eE]*\).*/\1/p' "$1" |
    awk -v r="$repeat" -v m="$rmax" -v f="$fast" -v b="$budget" '
      NR == 1 { t = $1 + 0
                R = (t > 0) ? int(f / t) : m
                if (R > m) R = m
                if (R < r) R = r
                if (R % 2 == 0) R++
                if (R * t > b) R = 1
                print R; done = 1 }
      END { if (!done) print 1 }'
}

# in_processes OUT R CMD...: the R repeats of a run spread over
# P = min(procs, R) processes, each `CMD REPS` with REPS = ceil(R / P) made
# odd, writing OUT.1 .. OUT.P; OUT is the last one's JSON with time_min_s
# the least over all of them and time_s the median of their medians.  A
# process's speed is bimodal (the same binary and input: 1.5 or 2.1 us
# for a whole process of 5001 solves, on either core), so one process's
# least time is a draw; both programs get the same draws.  Returns the
# first nonzero exit status (the run then keeps that process's output).
in_processes() {
  ip_out=$1
  ip_r=$2
  shift 2
  ip_p=$procs
  [ "$ip_r" -lt "$ip_p" ] && ip_p=$ip_r
  ip_per=$(((ip_r + ip_p - 1) / ip_p))
  [ $((ip_per % 2)) -eq 0 ] && ip_per=$((ip_per + 1))
  ip_k=1
  while [ "$ip_k" -le "$ip_p" ]; do
    ip_rc=0
    "$@" "$ip_per" >"$ip_out.$ip_k" || ip_rc=$?
    if [ "$ip_rc" -ne 0 ] && [ "$ip_rc" -ne 3 ]; then
      cp "$ip_out.$ip_k" "$ip_out"
      return "$ip_rc"
    fi
    ip_k=$((ip_k + 1))
  done
  python3 - "$ip_out" "$ip_p" <<'PY'
import json, sys
out, p = sys.argv[1], int(sys.argv[2])
runs = [json.loads(open("%s.%d" % (out, k)).readline()) for k in range(1, p + 1)]
last = runs[-1]
mins = [r["time_min_s"] for r in runs if r.get("time_min_s") is not None]
meds = sorted(r["time_s"] for r in runs if r.get("time_s") is not None)
if mins:
    last["time_min_s"] = min(mins)
if meds:
    last["time_s"] = meds[len(meds) // 2]
last["processes"] = p
last["repeat"] = sum(r.get("repeat", 0) or 0 for r in runs)
open(out, "w").write(json.dumps(last) + "\n")
PY
  return "$ip_rc"
}

# lcplab_repeats FILE SOLVER TOL X R: one lcplab process of R repeats
lcplab_repeats() {
  timeout "$tlimit" "$lcplab" solve "$1" --solver "$2" --tol "$3" --max-iter "$maxit" \
    --norm "$norm" --repeat "$5" --solution "$4" --force 2>>"$err"
}

# peer_repeats FILE SOLVER TOL PREFIX R: one peer_fc3d process of R repeats
peer_repeats() {
  timeout -k 5 "$tlimit" "$peer" -s "$2" --tol "$3" --maxit "$maxit" --repeat "$5" \
    --budget "$budget" --save-r "$4" "$1" 2>>"$err"
}

# run_lcplab FILE SOLVER TOL: the probe (one solve), then R repeats
# (repeats_for) in processes (in_processes) when R > 1; else the single
# solve is kept and the row says so
run_lcplab() {
  b=$(basename "$1")
  nrun=$((nrun + 1))
  out=$tmp/out/$nrun.json
  err=$tmp/out/$nrun.err
  x=$tmp/x/$nrun.x
  : >"$err"
  rc=0
  one=1
  lcplab_repeats "$1" "$2" "$3" "$x" 1 >"$out" || rc=$?
  r=1
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; then r=$(repeats_for "$out"); fi
  if [ "$r" -gt 1 ]; then
    one=0
    rc=0
    in_processes "$out" "$r" lcplab_repeats "$1" "$2" "$3" "$x" || rc=$?
  fi
  [ "$rc" -eq 124 ] && rm -f "$x"
  printf '%s\tlcplab\t%s\t%s\t%s\t%s\t%s\t%s\tlive\t%s\n' "$b" "$2" "$3" "$rc" "$out" "$err" "$x" "$one" >>"$runs"
}

# run_peer FILE SOLVER TOL: the probe, then R repeats as run_lcplab (a
# killed run leaves no JSON; an assert leaves stderr)
run_peer() {
  b=$(basename "$1")
  nrun=$((nrun + 1))
  out=$tmp/out/$nrun.json
  err=$tmp/out/$nrun.err
  : >"$err"
  rc=0
  peer_repeats "$1" "$2" "$3" "$tmp/x/$nrun" 1 >"$out" || rc=$?
  r=1
  if [ "$rc" -eq 0 ]; then r=$(repeats_for "$out"); fi
  if [ "$r" -gt 1 ]; then
    rc=0
    in_processes "$out" "$r" peer_repeats "$1" "$2" "$3" "$tmp/x/$nrun" || rc=$?
  fi
  [ "$rc" -eq 137 ] && rc=124
  printf '%s\tsiconos\t%s\t%s\t%s\t%s\t%s\t%s\tlive\t0\n' "$b" "$2" "$3" "$rc" "$out" "$err" "$tmp/x/$nrun.$2.r" >>"$runs"
}

# record_stored FILE SOLVER TOL: profile.py looks the run up in the stored sweeps
record_stored() {
  printf '%s\tsiconos\t%s\t%s\t0\t\t\t\tstored\t0\n' "$(basename "$1")" "$2" "$3" >>"$runs"
}

nfiles=$(echo $files | wc -w)
i=0
for f in $files; do
  i=$((i + 1))
  echo "bench_fc3d.sh: [$i/$nfiles] $(basename "$f") ($(($(date +%s) - start)) s elapsed)"
  for t in $tols; do
    for s in $csolvers; do run_lcplab "$f" "$s" "$t"; done
    for p in $psolvers; do
      case $mode in
        live) run_peer "$f" "$p" "$t" ;;
        stored) record_stored "$f" "$p" "$t" ;;
      esac
    done
  done
done
runtime=$(($(date +%s) - start))
load1=$(cut -d ' ' -f 1-3 /proc/loadavg 2>/dev/null || echo '?')

# ---- 4. judge, profile, tables, figure --------------------------------------------------
host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for ext in .csv _profile.csv .md .png .pdf; do
  if [ -e "$results/bench_fc3d$ext" ]; then
    mv "$results/bench_fc3d$ext" "$results/bench_fc3d$ext.$stamp"
    echo "bench_fc3d.sh: previous bench_fc3d$ext moved to bench_fc3d$ext.$stamp"
  fi
done
rev=$(git -C "$srcdir" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$rev" != unknown ] && [ -n "$(git -C "$srcdir" status --porcelain 2>/dev/null)" ]; then
  rev="$rev-dirty"
fi
blas=
for so in "$builddir/libsolvers/.libs/libsolvers.so" "$lcplab"; do
  [ -e "$so" ] || continue
  blas=$(ldd "$so" 2>/dev/null | awk '/blas|lapack/ && $3 ~ /^\// {print $3}' |
    while IFS= read -r l; do readlink -f "$l"; done | tr '\n' ' ')
  [ -n "$blas" ] && break
done

stored=
if [ "$mode" = stored ]; then
  for t in $tols; do
    stored="$stored --stored $peersrc/results/main_tol$t.jsonl --stored $peersrc/results/extra_tol$t.jsonl"
  done
fi
# shellcheck disable=SC2086 # $stored: word splitting wanted (paths without blanks)
python3 "$srcdir/experiments/profile.py" --runs "$runs" --problems "$problems" \
  --out "$results/bench_fc3d" --norm "$norm" --time "$tstat" $stored \
  --meta "rev=$rev" --meta "host=$host" --meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  --meta "blas=${blas:-unknown}" --meta "OPENBLAS_NUM_THREADS=1" \
  --meta "peers=$peerdesc" --meta "peers_source=$mode" \
  --meta "lcplab_solvers=$(echo $csolvers)" --meta "peer_solvers=$( [ "$mode" = none ] || echo $psolvers)" \
  --meta "tols=$(echo $tols)" --meta "max_iter=$maxit" --meta "repeat=$repeat..$rmax (to about $fast s of solves)" \
  --meta "timeout_s=$tlimit" --meta "peer_budget_s=$budget" --meta "problems=$nfiles" \
  --meta "runs_wall_s=$runtime" --meta "loadavg_start=$load0" --meta "loadavg_end=$load1" \
  --meta "cores=$(nproc 2>/dev/null || echo '?')"

if [ -z "$gnuplot" ]; then gnuplot=$(command -v gnuplot || true); fi
if [ -n "$gnuplot" ] && [ -x "$gnuplot" ]; then
  if gp_run "$gnuplot" "$srcdir/experiments/bench_fc3d.gp" "$results/bench_fc3d" \
       "file:data.csv=$results/bench_fc3d_profile.csv" "info=$rev, $host, peers $mode, $norm-norm"; then
    echo "bench_fc3d.sh: figure $results/bench_fc3d.png (and .pdf)"
  else
    echo "bench_fc3d.sh: gnuplot failed: no figure (the CSV and table are complete)" >&2
  fi
else
  echo "bench_fc3d.sh: gnuplot not found: no figure (apt-get install gnuplot-nox)" >&2
fi
echo
echo "bench_fc3d.sh: $results/bench_fc3d.csv"
echo "bench_fc3d.sh: $results/bench_fc3d_profile.csv"
echo "bench_fc3d.sh: $results/bench_fc3d.md"
echo "bench_fc3d.sh: runs took $runtime s, all done in $(($(date +%s) - start)) s"
