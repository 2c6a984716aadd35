#!/bin/sh
# test_outfile_sh.sh -- experiments/outfile.sh, how the experiments' shell
# scripts start an output in a results folder: out_new refuses a symbolic
# link or a folder at an output's path and names it, never writes through a
# link (to a file, to nothing, to a folder), replaces an earlier file by a
# new empty one without truncating a hard link's content, and names a path
# it cannot create.  Then two scripts end to end, with stand-in programs:
# bench_pivot_factor.sh and long_run.sh, each with a link planted at its
# output, stop with the link named and leave the link's target as it was
# (before outfile.sh, the first truncated the target and appended its rows
# to it, the second overwrote it).
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed".
TST_NAME=test_outfile_sh
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
SRC=$(cd "$top" && pwd)
# shellcheck source=experiments/outfile.sh
. "$SRC/experiments/outfile.sh"

d=$T/res
mkdir -p "$d/folder"
echo precious >"$T/target"

# refused PATH WHAT: out_new on PATH returns 1 and names PATH with WHAT
refused() {
  if out_new prog "$1" 2>"$T/msg"; then
    fail "out_new refuses $2" "returned 0"
  elif ! grep -qF "prog: $1: " "$T/msg"; then
    fail "out_new refuses $2, named" "message: $(cat "$T/msg")"
  else
    pass "out_new refuses $2, named ($(cut -c1-60 "$T/msg")...)"
  fi
}

ln -s "$T/target" "$d/to_file"
refused "$d/to_file" "a link to a file"
[ "$(cat "$T/target")" = precious ] && [ -L "$d/to_file" ] &&
  pass "the link's target and the link are left as they were" ||
  fail "the link's target untouched" "target: $(cat "$T/target")"

ln -s "$T/nothing" "$d/dangling"
refused "$d/dangling" "a link to nothing"
[ ! -e "$T/nothing" ] && pass "nothing created at a dangling link's target" ||
  fail "nothing created at a dangling link's target" "$T/nothing exists"

ln -s "$d/folder" "$d/to_folder"
refused "$d/to_folder" "a link to a folder"
[ -z "$(ls -A "$d/folder")" ] && pass "nothing created in a linked folder" ||
  fail "nothing created in a linked folder" "$(ls -A "$d/folder")"

refused "$d/folder" "a folder"
refused "$d/missing/out.csv" "a path in a missing folder"

echo old >"$d/old.csv"
ln "$d/old.csv" "$T/hard"
if out_new prog "$d/old.csv" "$d/new.csv" 2>"$T/msg" && [ -f "$d/old.csv" ] &&
  [ ! -s "$d/old.csv" ] && [ -f "$d/new.csv" ] && [ ! -s "$d/new.csv" ] && [ ! -s "$T/msg" ]; then
  pass "two paths made new empty regular files, silently"
else
  fail "two paths made new empty regular files" "$(cat "$T/msg")"
fi
[ "$(cat "$T/hard")" = old ] && pass "an earlier file removed, its hard link's content kept" ||
  fail "an earlier file's hard link kept" "hard: $(cat "$T/hard")"

# stopped_at_link SCRIPT OUTPUT RC: SCRIPT exited RC != 0 naming its OUTPUT
# as a symbolic link ($T/script.err), and the link's target ($T/target)
# still holds "precious"
stopped_at_link() {
  [ "$3" -ne 0 ] && grep -qF "$2: a symbolic link" "$T/script.err" &&
    pass "$1 stops at a planted link, named (exit $3)" ||
    fail "$1 stops at a planted link" "exit $3: $(cat "$T/script.err")"
  [ "$(cat "$T/target")" = precious ] && pass "$1 left the link's target as it was" ||
    fail "$1 left the link's target" "target: $(cat "$T/target")"
}

# bench_pivot_factor.sh with stand-ins for lcplab and pivot_factor (each
# writes a row), a link planted at bench_pivot_factor.jsonl
b=$T/build
host=$(uname -n 2>/dev/null || hostname)
mkdir -p "$b/cli" "$b/experiments/results/$host"
printf '#!/bin/sh\nexit 0\n' >"$b/cli/lcplab"
printf '#!/bin/sh\necho "{\\"k\\":1}"\n' >"$b/experiments/pivot_factor"
chmod +x "$b/cli/lcplab" "$b/experiments/pivot_factor"
echo precious >"$T/target"
ln -s "$T/target" "$b/experiments/results/$host/bench_pivot_factor.jsonl"
BENCH_PIVOT_FAMILIES=spd BENCH_PIVOT_SIZES=10 sh "$SRC/experiments/bench_pivot_factor.sh" "$b" "$SRC" \
  >"$T/script.out" 2>"$T/script.err"
stopped_at_link bench_pivot_factor.sh bench_pivot_factor.jsonl $?

# long_run.sh with a stand-in lcplab, a link planted at OUT/pile.json
mkdir -p "$T/lr"
printf '#!/bin/sh\necho "{\\"energy_start\\":1}"\n' >"$b/cli/lcplab"
ln -s "$T/target" "$T/lr/pile.json"
STEPS=1 sh "$SRC/experiments/long_run.sh" "$b" "$T/lr" >"$T/script.out" 2>"$T/script.err"
stopped_at_link long_run.sh pile.json $?
tst_done
