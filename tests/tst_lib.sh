# tst_lib.sh -- shared by every shell test; sourced, not run.  The caller may
# set TST_NAME (the temporary directory's prefix) before sourcing.
#
# Provides: T (a temporary directory, removed at exit), npass / nfail with
# pass DESC and fail DESC [WHY] (fail also shows the start of $T/out and
# $T/err when they exist: the last command's output, see tst_cli_lib.sh),
# and tst_done, which prints the last line "N passed, M failed" and exits 0
# iff nothing failed.

T=$(mktemp -d "${TMPDIR:-/tmp}/${TST_NAME:-test}.XXXXXX") || { echo "cannot create a temporary directory"; exit 1; }
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

npass=0
nfail=0
pass() { npass=$((npass + 1)); echo "ok   - $1"; }
fail() {
  nfail=$((nfail + 1))
  echo "FAIL - $1${2:+: $2}"
  if [ -f "$T/out" ]; then echo "  stdout: $(head -c 600 "$T/out")"; fi
  if [ -f "$T/err" ]; then echo "  stderr: $(head -c 600 "$T/err")"; fi
}
tst_done() {
  echo "$npass passed, $nfail failed"
  [ "$nfail" -eq 0 ]
  exit
}
