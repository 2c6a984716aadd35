#!/bin/sh
# with_timeout.sh -- runs one test of `make check` with a time limit, so a
# test that hangs fails by name instead of holding the whole suite (and CI)
# until its own time runs out.
#
#   LOG_COMPILER of make check:   tests/with_timeout.sh ./tests/test_pgs
#   and of make check-valgrind:   tests/with_timeout.sh sh tests/valgrind.sh ./tests/test_pgs
#
# The limit is LCPLAB_TEST_TIMEOUT seconds (default 600: the longest test,
# the pip install, takes under three minutes natively and the longest
# memcheck run about four on a loaded machine; experiments/records/
# 2026-11-28-ci-timeout.md).  The test runs in a session of its own; at the
# limit its processes are listed in the test's log (what was still running,
# and for how long) and the whole session is killed: SIGTERM, then SIGKILL
# ten seconds later.  The exit status is the test's own, or 99 (a hard
# error for the test driver) when it was stopped.
if [ $# -lt 1 ]; then
  echo "usage: $0 TEST [ARGS...]" >&2
  exit 2
fi
limit=${LCPLAB_TEST_TIMEOUT:-600}
case $limit in
  '' | *[!0-9]*)
    echo "with_timeout.sh: LCPLAB_TEST_TIMEOUT must be a whole number of seconds, not '$limit'" >&2
    exit 2
    ;;
esac

# the test's wall and CPU seconds go to the end of its log, so that a run's
# logs tell where the suite's time went (CPU: `times`' second line, this
# shell's finished children: the test and the watchdog's sleep)
t0=$(date +%s.%N)

# the test, in its own session (setsid execs it: a background job is not a
# group leader, so its pid is the session's and the group's id)
setsid "$@" &
test_pid=$!

# the watchdog: when the test finishes first, a SIGTERM ends its sleep and it
# exits without a word (a trapped signal interrupts `wait` at once)
sh -c '
  exec 2>/dev/null
  trap "kill \$s; exit 0" TERM
  sleep "$1" &
  s=$!
  wait "$s"
  : >"$4"
  echo "with_timeout.sh: $3 still running after $1 s; its processes:"
  ps -o pid,ppid,etime,time,stat,args -s "$2"
  kill -TERM "-$2"
  sleep 10
  kill -KILL "-$2"
' with_timeout "$limit" "$test_pid" "$*" "${TMPDIR:-/tmp}/with_timeout.$test_pid" &
watchdog_pid=$!

wait "$test_pid"
rc=$?
kill -TERM "$watchdog_pid" 2>/dev/null
wait "$watchdog_pid" 2>/dev/null
stamp="${TMPDIR:-/tmp}/with_timeout.$test_pid"
if [ -e "$stamp" ]; then
  rm -f "$stamp"
  echo "with_timeout.sh: stopped at the limit of $limit s (LCPLAB_TEST_TIMEOUT): $*"
  exit 99
fi
# `times` in this shell, into a file: in a pipe or $( ) it would run in a
# child, which has no finished children of its own
times >"$stamp"
# (the test's name through the environment: awk -v would read its
# backslashes as escapes)
WITH_TIMEOUT_TEST="$*" awk -v t0="$t0" -v t1="$(date +%s.%N)" 'NR == 2 {
  c = 0
  for (i = 1; i <= 2; i++) { split($i, a, /m|s/); c += a[1] * 60 + a[2] }
  printf "with_timeout.sh: %s took %.1f s, CPU %.1f s\n", ENVIRON["WITH_TIMEOUT_TEST"], t1 - t0, c }' "$stamp"
rm -f "$stamp"
exit "$rc"
