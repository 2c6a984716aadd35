#!/bin/bash
# run-tests.sh -- lcplab's test suite on a fresh Debian 12 machine (as root).
#
#   bash scripts/run-tests.sh             (from anywhere; works in the checkout)
#   bash scripts/run-tests.sh --distcheck (the same, then a distcheck stage)
#
# Stages (each reported PASS/FAIL; a failed stage does not stop the
# independent ones).  After packages and autoreconf they run side by side in
# two job slots shared by every make (scripts/run-tests.mk: install after
# check, fuzz after install, valgrind after fuzz, slurm after install and the
# sanitizers); each stage's output goes
# to test-logs/STAGE.log and is printed whole when the stage ends:
#   packages    the Debian packages below, installed if missing (as in
#               run-main-job.sh)
#   autoreconf  autoreconf -fi
#   check       build/:     ../configure CFLAGS="-g1 -O2"; make; make check-plain
#               (the compiled programs, Python, the pip install and the
#               checks of the sources; the scripts that drive lcplab run
#               once, in the sanitizer stage: Makefile.am, check-plain)
#   sanitizers  build-san/: ../configure --enable-sanitizers=trap
#               --enable-asserts CFLAGS="-g1 -O1";
#               make -j2; make -j2 check (AddressSanitizer + UBSan, whose
#               checks trap and are reported by AddressSanitizer with their
#               file and line: configure.ac; the heavy C cases short,
#               tests/tst_util.h)
#   install     build/:     make install into a temporary DESTDIR, then make
#               installcheck (tests/test_install.sh: the installed libraries,
#               headers, pkg-config files, program and man page, used by a C
#               and a C++ consumer built with pkg-config only; then
#               tests/test_install_experiment.sh: the installed lcplab runs
#               an experiment with generate lines, scenes and figures from an
#               empty folder, the source and build trees hidden)
#   valgrind    build/:     make check-valgrind (the test programs under
#               memcheck through tests/valgrind.sh, but test_pgs_wide, the two
#               threaded ones and the two of MuJoCo's compiler; leaks are
#               errors; the shell tests are the sanitizer stage's)
#   fuzz        build-fuzz/: ../configure CC=clang --enable-fuzzing
#               --disable-shared --disable-python CFLAGS="-g1 -O0" (the
#               Python extension is a shared module); make -j2 fuzz-check (builds only the
#               harnesses and lcplab): every regression
#               input of tests/fuzz/regressions through its libFuzzer
#               harness, then each harness for a few seconds from its seeds
#               (tests/fuzz/README.md); any crash, sanitizer report, leak or
#               timeout fails the stage.  Then the command line's own tests
#               (tests/test_cli*.sh, test_solve_sensitivity.sh) with this
#               build's lcplab: the second compiler's (clang) code under its
#               AddressSanitizer and UBSan.  (A stage of its own built the
#               tree once more with clang to run the C test programs: 152 s,
#               dropped to keep the suite within its 20 minutes;
#               experiments/records/2026-11-28-ci-timeout.md.)
#   slurm       tests/test_slurm.sh with build/'s lcplab: installs slurm-wlm
#               and munge if missing, starts munged, slurmctld and slurmd on
#               localhost with a generated key and slurm.conf, runs a campaign
#               plan as a job array and compares its CSVs with --jobs 1's;
#               the daemons are stopped by their process ids.  If they cannot
#               start, the stage fails with the reason.
#   distcheck   only with --distcheck: make distcheck in build/ (the tarball
#               builds, passes make check and installcheck, uninstalls
#               cleanly); it repeats a build and the whole check, so it is
#               not in the default run, which must stay under 20 minutes on
#               2 cores (experiments/records/2026-11-26-distcheck-install-stage.md)
# A failed make check prints its test-suite.log.  The last line is
# "N passed, M failed" (stages); exit status 0 iff no stage failed.
set -uo pipefail

# shellcheck source=scripts/deps.sh
. "$(dirname "$0")/deps.sh"
PACKAGES="$PACKAGES clang libclang-rt-14-dev libomp-14-dev clang-format" # the fuzz stage (clang, libFuzzer's runtime, clang's OpenMP); the format check

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export OPENBLAS_NUM_THREADS=1
export OMP_WAIT_POLICY=PASSIVE # idle OpenMP threads sleep (Makefile.am, AM_TESTS_ENVIRONMENT)
# a stage's make: two jobs of its own, or none under run-tests.mk, whose
# jobserver it then shares (LCPLAB_MAKE_J set and empty)
J=${LCPLAB_MAKE_J--j2}

passed=0
failed=0
summary=""
start_all=$(date +%s)

# cpu_now VAR: the CPU seconds (user + system) of this shell's finished
# children into VAR, from bash's `times` (its second line: "XmY.YYYs
# XmY.YYYs"), run in this shell (in a $(...) it would count the subshell's).
cpu_now() {
  times >"$cpu_file"
  printf -v "$1" '%s' "$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /m|s/); t += a[1] * 60 + a[2] }
                                       printf "%d", t }' "$cpu_file")"
}
cpu_file=$(mktemp) || exit 1
trap 'rm -f "$cpu_file"' EXIT

# stage NAME COMMAND...: runs the command, records PASS/FAIL, its wall time
# and its CPU time (what a loaded machine does not change much).
stage() {
  local name=$1 t0 c0 rc
  shift
  echo
  echo "=== stage $name ==="
  t0=$(date +%s)
  cpu_now c0
  "$@"
  rc=$?
  local c1
  cpu_now c1
  local dt=$(( $(date +%s) - t0 )) dc=$(( c1 - c0 ))
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1))
    summary="$summary  PASS  $name (${dt} s, CPU ${dc} s)"$'\n'
  else
    failed=$((failed + 1))
    summary="$summary  FAIL  $name (${dt} s, CPU ${dc} s, exit $rc)"$'\n'
  fi
  echo "=== stage $name: $([ $rc -eq 0 ] && echo PASS || echo FAIL) (${dt} s, CPU ${dc} s) ==="
  return $rc
}

# limited LIMIT DIR FUNCTION: runs the stage function FUNCTION (this script,
# --stage FUNCTION) for at most LIMIT seconds.  Each test has its own limit
# (tests/with_timeout.sh); this one catches a hang outside a test (a build, a
# daemon), so that the stages after it still run and the summary is printed
# within CI's time.  At the limit it names the tests of DIR still running (a
# log without its .trs).
limited() {
  local limit=$1 dir=$2 fn=$3 rc log
  timeout -k 30 "$limit" bash "$root/scripts/run-tests.sh" --stage "$fn"
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "stage function $fn stopped at its limit of $limit s; tests of $dir still running:"
    for log in "$root/$dir"/tests/*.log "$root/$dir"/tests/*/*.log "$root/$dir"/python/tests/*.log; do
      [ -f "$log" ] && [ ! -f "${log%.log}.trs" ] && echo "  ${log#"$root/"}"
    done
  fi
  return $rc
}

# Test counts of the last make check in directory $1 (from test-suite.log).
counts() {
  local log=$1/test-suite.log
  [ -f "$log" ] && grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' "$log" | tr '\n' ' '
}

# make_check DIR TARGET: make TARGET in DIR; on failure print test-suite.log.
make_check() {
  local dir=$1 target=$2
  if make -C "$dir" $J "$target"; then
    echo "$dir: $(counts "$dir")"
    return 0
  fi
  echo "---- $dir/test-suite.log ----"
  cat "$dir/test-suite.log" 2>/dev/null || echo "(no test-suite.log: the build failed)"
  echo "---- end of $dir/test-suite.log ----"
  return 1
}


# configure_build DIR [configure options]: (re)configure and build in DIR.
# A tree configured before with other options (an older checkout's
# build-san/ without =trap, other CFLAGS) is cleaned first: make does not
# track flags, and objects compiled with the old ones would be linked with
# the new (a trap-mode link refuses objects that call libubsan).
configure_build() {
  local dir=$1 before=""
  shift
  mkdir -p "$dir" || return 1
  [ -x "$dir/config.status" ] && before=$("$dir/config.status" --config)
  (cd "$dir" && run_configure -q "$@") || return 1
  if [ -n "$before" ] && [ "$before" != "$("$dir/config.status" --config)" ]; then
    echo "$dir: configured before with $before: make clean first"
    make -C "$dir" -s clean || return 1
  fi
  make -C "$dir" $J
}

# CFLAGS="-g1 -O2": the optimisation users build with, and the line tables
# memcheck's reports need (the valgrind stage runs this build); -g's full
# debug information cost about a fifth of the compile time
CHECK_CFLAGS="-g1 -O2"
# the scripts that drive lcplab run in the sanitizer stage alone (Makefile.am,
# check-plain)
stage_check() {
  configure_build build CFLAGS="$CHECK_CFLAGS" &&
    make_check build check-plain
}
# the checks of the sources alone (format, function length, docs paths, no
# allocation) ran in the check stage; the other stages skip them
# CFLAGS="-g1 -O1" in the sanitizer and fuzz builds: line tables are what a
# sanitizer's report needs, and gcc took 50 s for libsolvers/pgs_lanes.c
# with ASan, UBSan, -g and -O2, 12 s with -g1 -O1 (the build before the
# tests: 166 s of the stage's 423; experiments/records/
# 2026-11-28-ci-timeout.md)
SAN_CFLAGS="-g1 -O1"
# --enable-sanitizers=trap: UBSan without its runtime library.  Each process
# of the stage (thousands of lcplab runs) then starts without loading
# libubsan and without LeakSanitizer's scan of its data
# (experiments/records/2026-11-29-test-time-8.md)
# the fuzz build at -O0: its harnesses run for a fixed time each, and the
# command line's tests took 17.8 s of CPU with its lcplab against 16.0 at
# -O1, while the build took 119 s of CPU against 301
# (experiments/records/2026-11-28-test-time-3.md)
FUZZ_CFLAGS="-g1 -O0"
stage_san() {
  configure_build build-san --enable-sanitizers=trap --enable-asserts CFLAGS="$SAN_CFLAGS" &&
    LCPLAB_SOURCE_TESTS_DONE=1 make_check build-san check
}
# the command line's tests with the fuzz build's lcplab (clang, static, ASan
# and UBSan), each PASS or FAIL with its log on failure
fuzz_build_cli_tests() {
  local t rc=0 log
  for t in test_cli test_cli_convert test_cli_input test_cli_frictions test_solve_sensitivity; do
    log=$root/build-fuzz/$t.log
    if LCPLAB_BIN="$root/build-fuzz/cli/lcplab" LCPLAB_SRCDIR="$root" LCPLAB_BUILDDIR="$root/build-fuzz" \
      LCPLAB_SHARED="$root/../shared" LCPLAB_SHORT_RUNS=1 \
      sh "$root/tests/with_timeout.sh" sh "$root/tests/$t.sh" >"$log" 2>&1; then
      # the log's last two lines: the test's summary, with_timeout.sh's times
      echo "PASS: $t.sh (clang, sanitizers): $(tail -n 2 "$log" | head -n 1)" \
        "($(tail -n 1 "$log" | sed -n 's/.* took //p'))"
    else
      echo "FAIL: $t.sh (clang, sanitizers); its log:"
      cat "$log"
      rc=1
    fi
  done
  return $rc
}
# only what fuzz-check needs (the harnesses and lcplab), not the whole tree
stage_fuzz() {
  mkdir -p build-fuzz &&
    (cd build-fuzz && run_configure -q CC=clang --enable-fuzzing --disable-shared --disable-python \
      CFLAGS="$FUZZ_CFLAGS") &&
    make -C build-fuzz $J fuzz-check && fuzz_build_cli_tests
}
stage_install() {
  local dest rc
  [ -f build/Makefile ] || configure_build build CFLAGS="$CHECK_CFLAGS" || return 1
  dest=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-install.XXXXXX") || return 1
  make -C build install DESTDIR="$dest" >/dev/null && make -C build installcheck DESTDIR="$dest"
  rc=$?
  rm -rf "$dest"
  return $rc
}
stage_distcheck() { make -C build distcheck; }
stage_valgrind() {
  command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)"; return 1; }
  [ -f build/Makefile ] || configure_build build CFLAGS="$CHECK_CFLAGS" || return 1
  make -C build $J check-valgrind && echo "build (valgrind): $(counts build)" && return 0
  echo "---- build/test-suite.log (valgrind) ----"
  cat build/test-suite.log 2>/dev/null
  echo "---- end ----"
  return 1
}

stage_slurm() {
  PACKAGES="slurm-wlm munge" install_packages || return 1
  [ -x build/cli/lcplab ] || configure_build build CFLAGS="$CHECK_CFLAGS" || return 1
  LCPLAB_BIN="$root/build/cli/lcplab" LCPLAB_SRCDIR="$root" sh tests/test_slurm.sh
}

# one stage alone (the `limited` wrapper's child): its function's status
if [ "${1:-}" = --stage ]; then
  case ${2:-} in
    stage_check | stage_san | stage_install | stage_valgrind | stage_fuzz | stage_slurm | stage_distcheck)
      "$2"
      exit $?
      ;;
    *)
      echo "run-tests.sh: unknown stage function '${2:-}'" >&2
      exit 2
      ;;
  esac
fi

# --run-stage NAME LIMIT DIR FUNCTION (run-tests.mk's recipes): the stage
# under its limit, its output into test-logs/NAME.log, printed whole when it
# ends (stages run side by side), its summary line into test-logs/NAME.result.
if [ "${1:-}" = --run-stage ]; then
  name=$2
  logs=$root/test-logs
  stage "$name" limited "$3" "$4" "$5" >"$logs/$name.log" 2>&1
  printf '%s' "$summary" >"$logs/$name.result"
  flock "$logs/print.lock" cat "$logs/$name.log"
  exit 0
fi

# The limits (run-tests.mk) are one and a half to two and a half times each
# stage's time on the slowest machine of this kind measured
# (experiments/records/2026-11-29-test-time-6.md).  The stages run side by
# side in run-tests.mk's two job slots; the longest chain of limits, check,
# install and valgrind, stays under CI's 90 minutes, so a hang still leaves
# a summary.
if stage packages install_packages && stage autoreconf autoreconf -fi; then
  rm -rf test-logs && mkdir test-logs || exit 1
  stages="check sanitizers install valgrind fuzz slurm"
  [ "${1:-}" = --distcheck ] && stages="$stages distcheck"
  # shellcheck disable=SC2086
  LCPLAB_TESTS_ROOT=$root make -s -k -j2 -f scripts/run-tests.mk $stages
  for s in $stages; do
    if [ -f "test-logs/$s.result" ]; then
      summary="$summary$(cat "test-logs/$s.result")"$'\n'
      if grep -q '^  PASS' "test-logs/$s.result"; then
        passed=$((passed + 1))
      else
        failed=$((failed + 1))
      fi
    else
      failed=$((failed + 1))
      summary="$summary  FAIL  $s (not run: a stage it needs did not finish)"$'\n'
    fi
  done
fi

echo
echo "=== summary ($(( $(date +%s) - start_all )) s) ==="
printf '%s' "$summary"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
