#!/bin/sh
# test_run_main.sh -- experiments/run_main.sh (`make main-job`) moves every
# earlier output of the main job aside before the run, so that a second
# `make main-job` runs (lcplab experiment refuses to overwrite a file): the
# section CSVs and tables, NAME.pdf / NAME.png and the further pages of a
# multi-page figure, NAME-2.pdf, NAME-1-2.png ...  The lcplab the script
# runs is a stub here (it only records that it ran), so the test checks the
# script, not the experiment.
# Environment: LCPLAB_SRCDIR.  Last line "N passed, M failed".
TST_NAME=test_run_main
top=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
# shellcheck source=tst_lib.sh
. "$top/tests/tst_lib.sh"
SRC=$(cd "$top" && pwd)

build=$T/build
host=$(uname -n 2>/dev/null || hostname)
res=$build/experiments/results/$host
mkdir -p "$build/cli" "$res" "$T/shared/datasets/siconos/fc3d"
printf '#!/bin/sh\necho ran >"%s/ran"\n' "$T" >"$build/cli/lcplab"
chmod +x "$build/cli/lcplab"
for f in profile.csv profile_winners.tex profile.pdf profile-2.pdf profile-1-2.png \
  accuracy-2.png; do
  echo old >"$res/$f"
done

LCPLAB_SHARED=$T/shared sh "$SRC/experiments/run_main.sh" "$build" "$SRC" >"$T/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ -f "$T/ran" ] && pass "run_main.sh runs lcplab" ||
  fail "run_main.sh runs lcplab" "exit $rc: $(cat "$T/out")"
left=
for f in profile.csv profile_winners.tex profile.pdf profile-2.pdf profile-1-2.png \
  accuracy-2.png; do
  [ -e "$res/$f" ] && left="$left $f"
  ls "$res/$f".2* >/dev/null 2>&1 || left="$left (no $f.STAMP)"
done
[ -z "$left" ] && pass "every earlier output moved aside, the pages of a figure too" ||
  fail "every earlier output moved aside" "left in place:$left"
tst_done
