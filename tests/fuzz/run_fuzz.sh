#!/bin/bash
# run_fuzz.sh -- run the libFuzzer harnesses of tests/fuzz (README.md there).
#
#   bash tests/fuzz/run_fuzz.sh BUILDDIR SRCDIR quick|bench|replay
#   (`make fuzz-check` = quick, `make fuzz` = bench, in a build configured
#    with --enable-fuzzing --disable-shared CC=clang)
#
#   replay  every regression input (SRCDIR/tests/fuzz/regressions/HARNESS/*)
#           once through its harness; FILE.edits inputs are rebuilt from the
#           shared file they were derived from (edits.py; skipped when that
#           file is absent).
#   quick   the test suite's fuzz stage: replay, then each harness for
#           FUZZ_QUICK_SECONDS (default 2) from the quick seeds, in a fresh
#           corpus.
#   bench   the benchmark: replay, then each harness for FUZZ_RUNS_<harness>
#           executions (defaults below; 10^7 in all) or FUZZ_MAX_SECONDS
#           (default 14400) whichever comes first, FUZZ_JOBS harnesses at a
#           time (default 1: the machine is shared), each one process at
#           nice FUZZ_NICE (default 19; added to the caller's), growing the corpus in
#           BUILDDIR/fuzz/corpus/HARNESS across runs.  Writes the table of
#           executions, time, coverage and findings to
#           BUILDDIR/fuzz/results.md (tests/fuzz/README.md keeps a copy).
# Seeds: BUILDDIR/fuzz/seeds (build_seeds.sh; quick: BUILDDIR/fuzz/quick-seeds,
# without the generated files, which take minutes to make with the
# instrumented lcplab), rebuilt when cli/lcplab,
# build_seeds.sh or a hand-written seed is newer.  Findings
# (crash, leak, timeout, out of memory) go to BUILDDIR/fuzz/artifacts/HARNESS/;
# any finding makes the exit status 1.
set -uo pipefail

build=${1:?usage: run_fuzz.sh BUILDDIR SRCDIR quick|bench|replay}
src=${2:?usage: run_fuzz.sh BUILDDIR SRCDIR quick|bench|replay}
mode=${3:?usage: run_fuzz.sh BUILDDIR SRCDIR quick|bench|replay}
case $mode in quick | bench | replay) ;; *) echo "run_fuzz.sh: unknown mode '$mode'" >&2; exit 2 ;; esac
fz=$build/fuzz
harnesses="blcp experiment fclib lcplab mat mtx scene siconos vector"
shared=${LCPLAB_SHARED:-$src/../shared}
export OPENBLAS_NUM_THREADS=1
# leaks are findings; a smaller quarantine keeps the resident size down on a
# shared machine (readers may allocate 200 MB for a dense A, by design)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64}
# as make check in the sanitizer build: libhdf5 1.10.8's own leak on a
# damaged object header is suppressed (tests/lsan.supp), not lcplab's
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Executions per harness in bench mode: 10^7 in all.  The fast harnesses get
# more; fclib (HDF5 files of 12 to 500 kB, each read twice, about 10 ms of
# CPU each, mostly HDF5 zeroing its metadata cache at every open) gets what
# its speed allows in FUZZ_MAX_SECONDS, and so does mat (MAT-files written
# to /dev/shm and opened by libmatio or HDF5 at each execution).
default_runs() {
  case $1 in
    vector) echo 2500000 ;;
    blcp | scene) echo 2000000 ;;
    siconos | lcplab | mtx | experiment) echo 1000000 ;;
    fclib) echo 100000 ;;
    mat) echo 100000 ;;
  esac
}
# Input sizes: the seeds' (build_seeds.sh: .dat up to 64 KiB, FCLIB up to
# 160 KiB).  The three shared FCLIB files above 160 KiB (176 to 493 kB,
# global problems) took 1 to 3 s per execution each and brought the harness
# to 1 execution per second on the shared machine.
max_len() { [ "$1" = fclib ] && echo 163840 || echo 65536; }
# The largest single allocation that is not a finding, in MB: 256 (above
# the largest a reader makes by design), for every harness.  fclib had
# 2048 while libhdf5 allocated what a damaged object header claimed (738 MB
# in H5C_protect under H5Oopen, found by the quick stage on 2026-11-23; the
# input is in regressions/fclib/); the reader now checks every object
# header's chunks against the file first (libio/io_hdf5_ohdr.c).
malloc_limit() { echo 256; }

for h in $harnesses; do
  [ -x "$build/tests/fuzz/fuzz_$h" ] || { echo "run_fuzz.sh: $build/tests/fuzz/fuzz_$h not built" >&2; exit 2; }
done
mkdir -p "$fz"

findings=0
count_artifacts() { # DIR: crash/leak/timeout/oom files in it
  find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) 2>/dev/null | wc -l
}

# ---- replay the regression inputs ------------------------------------------------
replay() {
  local h f tmp rc n=0 bad=0 skipped=0
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-replay.XXXXXX") || return 2
  for h in $harnesses; do
    [ -d "$src/tests/fuzz/regressions/$h" ] || continue
    for f in "$src/tests/fuzz/regressions/$h"/*; do
      [ -f "$f" ] || continue
      local input=$f
      if [ "${f%.edits}" != "$f" ]; then
        input=$tmp/$(basename "$f" .edits)
        python3 "$src/tests/fuzz/edits.py" apply "$shared/datasets" "$f" "$input"
        rc=$?
        if [ $rc -eq 77 ]; then
          skipped=$((skipped + 1))
          continue
        fi
        [ $rc -eq 0 ] || { echo "replay: $f: cannot rebuild the input"; bad=$((bad + 1)); continue; }
      fi
      n=$((n + 1))
      if ! "$build/tests/fuzz/fuzz_$h" -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb="$(malloc_limit "$h")" \
        -artifact_prefix="$tmp/" "$input" \
        >"$tmp/log" 2>&1; then
        echo "replay: FAIL $h $(basename "$f")"
        tail -40 "$tmp/log"
        bad=$((bad + 1))
      fi
    done
  done
  rm -rf "$tmp"
  echo "replay: $n regression inputs, $bad failed, $skipped skipped (shared file absent)"
  [ $bad -eq 0 ]
}

# ---- seeds -------------------------------------------------------------------------
seeds() { # rebuilt when a tool, the script or a hand-written seed is newer
  local stamp=$seed_dir/.stamp
  if [ ! -f "$stamp" ] || [ -n "$(find "$build/cli/lcplab" \
    "$src/tests/fuzz/build_seeds.sh" "$src/tests/fuzz/seeds" "$src/experiments" -newer "$stamp" \
    2>/dev/null | head -1)" ]; then
    bash "$src/tests/fuzz/build_seeds.sh" "$build" "$src" "$seed_dir" "$mode" || return 1
    touch "$stamp"
  fi
}

# ---- one harness -------------------------------------------------------------------
# run_one HARNESS CORPUS LOG [libFuzzer options...]
# The timeout (25 s) is far above any input's time on an idle machine (the
# largest FCLIB seed takes 3.4 s) because the machine is shared: at a load
# of 16 a 1 s input took 10 s.  One allocation above 256 MB is a finding:
# the largest a reader makes by design is the dense 5000 x 5000 matrix built
# from a sparse file (IO_MAX_DENSE, 200 MB); more comes from a size that
# no byte of the file backs (io.h).
# libhdf5 is built without frame pointers, so for fclib the sanitizers
# unwind malloc stacks the slow way: a leak inside libhdf5 then shows where
# lcplab called it.
run_one() {
  local h=$1 corpus=$2 log=$3 asan=$ASAN_OPTIONS
  shift 3
  mkdir -p "$corpus" "$fz/artifacts/$h"
  [ "$h" = fclib ] && asan=$asan:fast_unwind_on_malloc=0
  ASAN_OPTIONS=$asan nice -n "${FUZZ_NICE:-19}" "$build/tests/fuzz/fuzz_$h" "$@" -timeout=25 -rss_limit_mb=2048 \
    -malloc_limit_mb="$(malloc_limit "$h")" -max_len="$(max_len "$h")" -close_fd_mask=3 -print_final_stats=1 \
    -artifact_prefix="$fz/artifacts/$h/" "$corpus" "$seed_dir/$h" >"$log" 2>&1
}

# "executions seconds cov ft" from a libFuzzer log
stats_of() {
  local log=$1 runs secs cov ft
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  echo "${runs:-0} ${secs:-?} ${cov:-?} ${ft:-?}"
}

# ---- modes -------------------------------------------------------------------------
replay || findings=$((findings + 1))
[ "$mode" = replay ] && exit $((findings > 0))

seed_dir=$fz/seeds
[ "$mode" = quick ] && seed_dir=$fz/quick-seeds
seeds || { echo "run_fuzz.sh: cannot build the seeds" >&2; exit 2; }
rm -rf "$fz/artifacts"
total=0
if [ "$mode" = quick ]; then
  secs=${FUZZ_QUICK_SECONDS:-2}
  rm -rf "$fz/quick-corpus"
  # two harnesses at a time (two cores), each its own process; reported in
  # order below, each with its exit status from quick-HARNESS.rc
  running=0
  for h in $harnesses; do
    (
      run_one "$h" "$fz/quick-corpus/$h" "$fz/quick-$h.log" -max_total_time="$secs"
      echo $? >"$fz/quick-$h.rc"
    ) &
    running=$((running + 1))
    if [ $running -eq 2 ]; then
      wait
      running=0
    fi
  done
  wait
  for h in $harnesses; do
    rc=$(cat "$fz/quick-$h.rc" 2>/dev/null || echo 99)
    read -r runs s cov ft <<<"$(stats_of "$fz/quick-$h.log")"
    total=$((total + runs))
    a=$(count_artifacts "$fz/artifacts/$h")
    echo "fuzz $h: $runs executions in ${s} s, cov $cov ft $ft, exit $rc, findings $a"
    if [ "$rc" -ne 0 ] || [ "$a" -gt 0 ]; then
      findings=$((findings + 1))
      grep -E 'ERROR|SUMMARY|fuzz invariant|runtime error|Test unit written' "$fz/quick-$h.log" | head -20
    fi
  done
  echo "fuzz: $total executions; logs in $fz/quick-*.log"
  exit $((findings > 0))
fi

# bench: FUZZ_JOBS harnesses at a time (default 1), each its own process
max_secs=${FUZZ_MAX_SECONDS:-14400}
jobs=${FUZZ_JOBS:-1}
t_all=$(date +%s)
# bench_one HARNESS: one harness's run; its table row and "runs finding(0|1)" in files
bench_one() {
  local h=$1 var runs_wanted t0 rc dt runs s cov ft a found=none ncorp bad=0
  var=FUZZ_RUNS_$h
  runs_wanted=${!var:-$(default_runs "$h")}
  t0=$(date +%s)
  run_one "$h" "$fz/corpus/$h" "$fz/bench-$h.log" -runs="$runs_wanted" -max_total_time="$max_secs"
  rc=$?
  dt=$(($(date +%s) - t0))
  read -r runs s cov ft <<<"$(stats_of "$fz/bench-$h.log")"
  a=$(count_artifacts "$fz/artifacts/$h")
  if [ $rc -ne 0 ] || [ "$a" -gt 0 ]; then
    bad=1
    found="exit $rc, $a artifacts"
  fi
  ncorp=$(find "$fz/corpus/$h" -type f | wc -l)
  echo "| $h | $runs | $dt | $((runs / (dt > 0 ? dt : 1))) | $cov | $ft | $ncorp | $found |" >"$fz/row-$h.md"
  echo "$runs $bad" >"$fz/sum-$h"
  echo "fuzz $h: $runs executions in $dt s, cov $cov ft $ft, corpus $ncorp, findings: $found"
}
for h in $harnesses; do
  rm -f "$fz/row-$h.md" "$fz/sum-$h"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  bench_one "$h" &
done
wait
{
  echo "| harness | executions | time (s) | exec/s | coverage (edges) | features | corpus | findings |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  for h in $harnesses; do cat "$fz/row-$h.md" 2>/dev/null || echo "| $h | no result | | | | | | missing |"; done
} >"$fz/results.md"
for h in $harnesses; do
  read -r runs bad <"$fz/sum-$h" 2>/dev/null || { runs=0 bad=1; }
  total=$((total + runs))
  findings=$((findings + bad))
done
echo "| **all** | **$total** | $(($(date +%s) - t_all)) | | | | | $findings harness(es) with findings |" >>"$fz/results.md"
echo "fuzz: $total executions in $(($(date +%s) - t_all)) s ($jobs at a time); table in $fz/results.md"
exit $((findings > 0))
