#!/bin/bash
# replay_readers.sh -- make check: the fuzz regression inputs of the readers
# (tests/fuzz/regressions/{siconos,blcp,mtx,lcplab,fclib,mat}; README.md there),
# read by this build's `lcplab convert IN OUT.lcp`.  Each must be read (exit
# 0) or refused (exit 2, nothing on stdout, one line on stderr starting with
# "lcplab: " and naming the file); a crash, a sanitizer report or another
# status fails.  So the gcc, sanitizer, clang and valgrind stages replay
# them too; the fuzz stage replays them, and the other harnesses' inputs,
# through the libFuzzer harnesses (run_fuzz.sh replay).
#   siconos -> IN.dat, blcp -> IN.blcp, lcplab -> IN.lcp, fclib -> IN.hdf5,
#   mat -> IN.mat,
#   mtx -> IN.mtx with the sidecars after its "@@b", "@@lo", ... lines.
# Inputs kept as NAME.edits are rebuilt from the shared file they were
# derived from (edits.py); skipped when that file is absent.
TST_NAME=lcplab_replay
# shellcheck source=tests/tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/../..}/tests/tst_cli_lib.sh"
src=${LCPLAB_SRCDIR:-$(dirname "$0")/../..}
datasets=${LCPLAB_SHARED:-$src/../shared}/datasets

# split_mtx INPUT STEM: STEM.mtx and the sidecars, as fuzz_mtx.c splits them
split_mtx() {
  awk -v stem="$2" '
    BEGIN { out = stem ".mtx"; printf "" > out }
    /^@@(b|lo|hi|findex|mu)$/ { close(out); out = stem "." substr($0, 3); printf "" > out; next }
    { print > out }' "$1"
}

skipped=0
for dir in siconos blcp mtx lcplab fclib mat; do
  for f in "$src/tests/fuzz/regressions/$dir"/*; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .edits)
    input=$f
    if [ "$name" != "$(basename "$f")" ]; then
      input=$T/$name.raw
      python3 "$src/tests/fuzz/edits.py" apply "$datasets" "$f" "$input" 2>"$T/err"
      r=$?
      if [ $r -eq 77 ]; then skipped=$((skipped + 1)); continue; fi
      [ $r -eq 0 ] || { fail "$dir/$name" "cannot rebuild the input: $(cat "$T/err")"; continue; }
    fi
    case $dir in
      siconos) in=$T/in.dat; cp "$input" "$in" ;;
      blcp) in=$T/in.blcp; cp "$input" "$in" ;;
      lcplab) in=$T/in.lcp; cp "$input" "$in" ;;
      fclib) in=$T/in.hdf5; cp "$input" "$in" ;;
      mat) in=$T/in.mat; cp "$input" "$in" ;;
      mtx) in=$T/in.mtx; rm -f "$T"/in.*; split_mtx "$input" "$T/in" ;;
    esac
    lcp convert "$in" "$T/out.lcp" --force
    nl=$(wc -l <"$T/err")
    if [ $rc -eq 0 ]; then
      pass "$dir/$name (read)"
    elif [ $rc -ne 2 ]; then
      fail "$dir/$name" "exit $rc, expected 0 or 2"
    elif [ "$nl" -ne 1 ] || ! grep -q "^lcplab: $T/in" "$T/err"; then
      fail "$dir/$name" "expected one line 'lcplab: $T/in...' on stderr"
    else
      pass "$dir/$name (refused: $(cut -c1-100 "$T/err"))"
    fi
    rm -f "$T"/in.* "$T/out.lcp"
  done
done
echo "$npass passed, $nfail failed, $skipped skipped (shared file absent)"
[ $nfail -eq 0 ] || exit 1
[ $npass -gt 0 ] || exit 77
exit 0
