#!/bin/sh
# test_campaign_inforce.sh -- what a campaign hands an external solver and
# what it records are what was in force (issue 64, findings 12 and 14):
#   - an external solver with format=dat or format=hdf5 is handed a global
#     problem (a Siconos gfc3d .dat, an FCLIB /fclib_global file) as the
#     local problem its row is judged in (experiments/CAMPAIGNS.md,
#     "External solvers"); format=own still hands the global file itself;
#   - the CSV's "# memory_limit_mb" is the address-space limit the tasks ran
#     under, as a program those tasks start sees it (`ulimit -v` in the
#     external's shell): LCPLAB_MEMORY_LIMIT=700 gives 700, not the default.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  Exit: 0 all
# passed, 1 any failure, 77 skipped.

TST_NAME=test_campaign_inforce
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
# memcheck keeps its own address space: no RLIMIT_AS on the tasks under it
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

# A global problem as a Siconos gfc3d .dat and as FCLIB /fclib_global.
lcp export --scene dominoes --param n=4 --friction cone --solver nsgs --steps 20 --every 20 \
  --format dat --global --out "$T/gd"
lcp export --scene dominoes --param n=4 --friction cone --solver nsgs --steps 20 --every 20 \
  --format hdf5 --global --out "$T/gh"
gdat="$T/gd/dominoes_step000020.global.dat"
ghdf="$T/gh/dominoes_step000020.global.hdf5"
if [ ! -f "$gdat" ] || [ ! -f "$ghdf" ]; then
  fail "export --global wrote the global files" "$(ls "$T/gd" "$T/gh" 2>&1)"
  tst_done
fi

# The probe: keeps a copy of what it was handed (named by the format it was
# asked for and the problem's file), writes the address-space limit its
# shell inherited, and answers with lcplab's nsgs.
cat >"$T/probe.sh" <<EOF
# probe.sh TAG IN OUT
ulimit -v >"$T/limit"
cp "\$2" "$T/seen_\$1_\$(basename "\$2")"
exec "$BIN" solve "\$2" --solver nsgs --solution "\$3" >/dev/null
EOF
cat >"$T/g.exp" <<EOF
external pdat format=dat command sh $T/probe.sh dat {in} {out}
external phdf format=hdf5 command sh $T/probe.sh hdf5 {in} {out}
external pown format=own command sh $T/probe.sh own {in} {out}
experiment profile g
solvers pdat phdf pown
instances $gdat $ghdf
tol 1e-6
min_runs 1
min_time 0
EOF
LCPLAB_MEMORY_LIMIT=${LCPLAB_MEMORY_LIMIT-700} lcp experiment "$T/g.exp" --out "$T/go" --jobs 1 \
  --no-plot
grc=$rc

# ---- finding 12: the layout handed is the layout judged -------------------------------------
# what a handed file holds, by lcplab's own reading of it: global files
# report their velocities' count (ndof)
kind_of() {
  lcp solve "$1" --solver nsgs --json
  if [ "$rc" -gt 3 ] || [ ! -s "$T/out" ]; then
    echo "unreadable"
  elif grep -q '"ndof"' "$T/out"; then
    echo "global"
  else
    echo "local"
  fi
}
for tag in dat hdf5; do
  n=0
  bad=
  for f in "$T"/seen_"$tag"_*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    k=$(kind_of "$f")
    [ "$k" = local ] || bad="$bad $(basename "$f"):$k"
  done
  if [ "$grc" -le 3 ] && [ "$n" -ge 1 ] && [ -z "$bad" ]; then
    pass "format=$tag hands a global problem to the external as the local problem it is judged in"
  else
    fail "format=$tag hands the local problem" "exit $grc, $n files seen,$bad"
  fi
done
n=0
bad=
for f in "$T"/seen_own_*; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  k=$(kind_of "$f")
  [ "$k" = global ] || bad="$bad $(basename "$f"):$k"
done
if [ "$n" -eq 2 ] && [ -z "$bad" ]; then
  pass "format=own still hands the global files themselves"
else
  fail "format=own hands the global files" "$n files seen,$bad"
fi

# ---- finding 14: the memory limit recorded is the one in force ------------------------------
seen=$(cat "$T/limit" 2>/dev/null)
case $seen in
  unlimited) want=none ;;
  '' | *[!0-9]*) want="?" ;;
  *) want=$((seen / 1024)) ;;
esac
got=$(sed -n 's/^# memory_limit_mb: \([^ ]*\).*/\1/p' "$T/go/g.csv" | head -n 1)
if [ -n "$got" ] && [ "$got" = "$want" ]; then
  pass "# memory_limit_mb is the limit the tasks ran under ($got; ulimit -v in a task's child: $seen)"
else
  fail "# memory_limit_mb is the limit in force" "recorded '$got', a task's child saw '$seen' KB"
fi
if [ "${LCPLAB_VALGRIND:-0}" != 1 ] && [ "$seen" != unlimited ] && [ "$want" != 700 ]; then
  fail "LCPLAB_MEMORY_LIMIT=700 reaches the tasks" "ulimit -v in a task's child: $seen"
fi

tst_done
