#!/bin/sh
# test_slurm.sh -- a campaign plan run as a real Slurm job array on a one-node
# Slurm started here, on localhost, from Debian's slurm-wlm and munge
# (experiments/CAMPAIGNS.md, "Campaigns"); the `slurm` stage of
# scripts/run-tests.sh, not part of `make check` (it starts daemons).
#
#   LCPLAB_BIN=build/cli/lcplab LCPLAB_SRCDIR=. sh tests/test_slurm.sh
#
# 1. a munge key (1 KiB from /dev/urandom) and munged on a socket in a
#    temporary folder; a minimal slurm.conf for this host (`slurmd -C`'s
#    node line, free ports, state and spool folders in the temporary folder,
#    no accounting, proctrack/linuxproc, task/none);
# 2. slurmctld and slurmd in the foreground (-D), started in the background,
#    their process ids kept; the node must come up (sinfo: idle);
# 3. the small plan of test_campaign.sh, with the template plugin's solver
#    (examples/plugin): `lcplab experiment --plan` with
#    --chunk 3, `sbatch DIR/slurm.sbatch` (a job array), waiting with squeue
#    until no element is left (sacct is read when accounting answers; it is
#    off here), `lcplab collect`, and the merged CSVs compared, timing columns
#    aside, with the same plan run by `lcplab experiment --jobs 1`;
# 4. the daemons stopped by their process ids (and munged by its pid file).
# If a daemon cannot start, the test FAILS with the reason and the log's
# tail: it never passes silently.  Needs root (munged and slurmd as root),
# slurmctld, slurmd, munged, sbatch, squeue (scripts/run-tests.sh installs
# slurm-wlm and munge).  Exit: 0 passed, 1 failed.

TST_NAME=test_slurm
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
export LCPLAB_EXPERIMENTS="$SRC/experiments"

die() {
  fail "$1" "$2"
  echo "$npass passed, $nfail failed"
  exit 1
}

for p in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$p" >/dev/null 2>&1 || die "slurm tools present" "$p not found (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || die "running as root" "munged and slurmd here need root"

S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 700 "$S/munge"
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  sleep 1
  for p in $pids; do kill -9 "$p" 2>/dev/null; done
  if [ -f "$S/munge/munged.pid" ]; then
    mp=$(cat "$S/munge/munged.pid")
    kill "$mp" 2>/dev/null
    # munged removes its socket and pid file as it exits: let it, then remove the folder
    k=0
    while kill -0 "$mp" 2>/dev/null && [ "$k" -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
  fi
  rm -rf "$T"
}
trap cleanup EXIT

# ---- 1. munge ----------------------------------------------------------------------------
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge/munge.key"
sock=$S/munge/munge.socket
munged --force --key-file="$S/munge/munge.key" --socket="$sock" --pid-file="$S/munge/munged.pid" \
  --log-file="$S/munge/munged.log" --seed-file="$S/munge/munged.seed" 2>"$S/munged.err"
k=0
while [ ! -S "$sock" ] && [ "$k" -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
[ -S "$sock" ] || die "munged starts" "no socket after 5 s: $(tail -3 "$S/munged.err" "$S/munge/munged.log" 2>/dev/null)"
pass "munged runs with a generated key"

# ---- 2. slurm.conf, slurmctld, slurmd --------------------------------------------------------
node=$(slurmd -C | awk '/^NodeName/ { for (i = 1; i <= NF; i++) if ($i !~ /^(UpTime|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=/) printf "%s ", $i }')
host=$(slurmd -C | sed -n 's/^NodeName=\([^ ]*\).*/\1/p')
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
p1=$(free_port)
p2=$(free_port)
cat >"$S/slurm.conf" <<EOF
ClusterName=lcplabtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
AuthInfo=socket=$sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
${node}NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"
slurmctld -D -f "$S/slurm.conf" >"$S/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$S/slurm.conf" >"$S/slurmd.out" 2>&1 &
pids="$pids $!"
k=0
state=""
while [ "$k" -lt 60 ]; do
  state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
  case $state in idle*|mix*|alloc*) break ;; esac
  sleep 0.5
  k=$((k + 1))
done
case $state in
  idle*|mix*|alloc*) pass "slurmctld and slurmd on localhost, the node $host is $state" ;;
  *) die "slurmctld and slurmd start" "node state '$state' after 30 s; slurmctld: $(tail -5 "$S/slurmctld.log" "$S/slurmctld.out" 2>/dev/null | tr '\n' ' '); slurmd: $(tail -5 "$S/slurmd.log" "$S/slurmd.out" 2>/dev/null | tr '\n' ' ')" ;;
esac

# ---- 3. the plan as a job array --------------------------------------------------------------
cat >"$T/p2.dat" <<'DAT'
2
0
2
2
2 2
2 0
0 2
-2 1
DAT
# the template plugin (examples/plugin, built by make check as a module): every array element
# loads it from the plan's plugins.tsv
BUILD=${LCPLAB_BUILDDIR:-$SRC/build}
plug=$BUILD/tests/plugins/.libs/my_jacobi.so
[ -f "$plug" ] || make -C "$BUILD" tests/plugins/my_jacobi.la >/dev/null 2>&1
[ -f "$plug" ] || die "the template plugin is built" "$plug missing (make -C $BUILD check builds it)"
cat >"$T/small.exp" <<EOF
plugin $plug
experiment profile prof
solvers pgs lemke enum direct my_jacobi
instances p2.dat
generate spd 8 seeds=1-2
tol 1e-6 1e-10
min_runs 1
min_time 0
experiment drift
solvers pgs nsgs
scene ball steps=20
friction box cone
EOF
lcp experiment "$T/small.exp" --out "$T/j1" --jobs 1 --no-plot
[ "$rc" -eq 0 ] || die "the plan with --jobs 1" "exit $rc"
lcp experiment "$T/small.exp" --plan "$T/sp" --chunk 3
[ "$rc" -eq 0 ] || die "--plan" "exit $rc"
ntasks=$(grep -vc '^#' "$T/sp/tasks.tsv")
out=$(sbatch --parsable "$T/sp/slurm.sbatch" 2>&1)
job=${out%%;*}
case $job in ''|*[!0-9]*) die "sbatch submits the array" "$out" ;; esac
pass "sbatch submitted the job array $job ($ntasks tasks, 3 a element)"
k=0
left=1
while [ "$k" -lt 600 ]; do
  left=$(squeue -h -j "$job" 2>/dev/null | wc -l)
  [ "$left" -eq 0 ] && break
  sleep 1
  k=$((k + 1))
done
[ "$left" -eq 0 ] || die "the array finishes" "$left elements still queued after 600 s: $(squeue -j "$job")"
if sacct -n -j "$job" >/dev/null 2>&1; then
  sacct -n -j "$job" -o JobID,State,ExitCode
else
  echo "(sacct: accounting is off in this one-node Slurm; squeue shows no element left)"
fi
nres=$(ls "$T/sp/results" | grep -c '\.res$')
lcp collect "$T/sp" --out "$T/so" --no-plot
if [ "$rc" -eq 0 ] && [ "$nres" -eq "$ntasks" ]; then
  pass "every task of the array wrote its result; collect exit 0"
else
  fail "collect after the array" "exit $rc, $nres of $ntasks results; $(cat "$T"/sp/slurm/*.out 2>/dev/null | tail -5)"
fi
untimed() {
  hdr=$(grep -v '^#' "$1" | head -n 1)
  drop=$(printf '%s\n' "$hdr" | awk -F, '{ for (i = 1; i <= NF; i++) if ($i ~ /^(time_s|time_min_s|time_q1_s|time_q3_s|repeats|time_total_s|time_runs_s)$/) printf "%d ", i }')
  grep -v '^#' "$1" | awk -F, -v drop="$drop" 'BEGIN { n = split(drop, d, " "); for (k = 1; k <= n; k++) skip[d[k]] = 1 }
    { s = ""; for (i = 1; i <= NF; i++) if (!(i in skip)) s = s $i ","; print s }'
}
untimed "$T/j1/prof.csv" >"$T/u1"
untimed "$T/so/prof.csv" >"$T/u2"
grep -v '^#' "$T/j1/drift.csv" >"$T/d1"
grep -v '^#' "$T/so/drift.csv" >"$T/d2"
if grep -q ',my_jacobi,.*,converged,' "$T/u2"; then
  pass "the plugin's solver ran in the array: converged rows"
else
  fail "the plugin's solver in the array" "no converged my_jacobi row"
fi
if [ -s "$T/u1" ] && [ -s "$T/d1" ] && cmp -s "$T/u1" "$T/u2" && cmp -s "$T/d1" "$T/d2"; then
  pass "the Slurm array gives the same CSVs as --jobs 1 (timing columns aside)"
else
  fail "the Slurm array gives the same CSVs" "$(diff "$T/u1" "$T/u2" | head -5)"
fi

# ---- 4. stop the daemons by their process ids -----------------------------------------------------
for p in $pids; do kill "$p" 2>/dev/null; done
for p in $pids; do wait "$p" 2>/dev/null; done
still=""
for p in $pids; do kill -0 "$p" 2>/dev/null && still="$still $p"; done
if [ -z "$still" ]; then pass "slurmctld and slurmd stopped by their process ids"; else fail "daemons stop" "still running:$still"; fi
pids=""

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
