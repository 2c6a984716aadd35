#!/bin/sh
# test_validate.sh -- the harness's validation against a peer's own verdict
# (experiments/BENCHMARKS.md, "Benchmark: make bench-validate") and the peers'
# experiment files:
#   1. an external with verdict=KEY: the true/false it prints after KEY is the
#      row's reported_solved (1, 0, empty when it printed none), and the
#      agreement table counts it against err_siconos <= tol recomputed by the
#      library from the answer it wrote: fake peers on a hand FC3D problem,
#      one per case (both solved, both not, only its own verdict, only
#      err_siconos, no verdict), and the "all" line; the same runs in the
#      virtual_best table (coverage against the virtual best);
#   2. verdict= without a key is refused (exit 2, the file and line named);
#      format=own hands the problem's own file over (a global FCLIB file
#      as it is), format=hdf5 the local problem lcplab writes;
#   3. default.exp (with its peers' sections), bench_validate.exp and bench_global.exp parse and
#      plan (`lcplab experiment FILE --plan DIR`) with and without the peers
#      built (needs ../shared: skipped without it).  The peers themselves are
#      not built here (the README's first command builds them).
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR, LCPLAB_SHARED.
# Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_validate
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
SHARED=${LCPLAB_SHARED:-$SRC/../shared}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

rows() { grep -v '^#' "$1" | tail -n +2; }

# ---- 1. the agreement table ---------------------------------------------------------------
# One contact, W = 2 I, q = (-2, 0, 0), mu = 0.5 (Siconos FC3D .dat, column-major):
# r = (1, 0, 0), u = 0 solves it (err_siconos 0); r = 0 leaves u = q (err_siconos 1).
cat >"$T/c1.dat" <<'DAT'
3
1
0
3
3
3
3
2 0 0
0 2 0
0 0 2
-2
0
0
0.5
DAT
# fake.sh OUT VERDICT ANSWER: writes r (good: the solution, bad: 0), then a run line with
# its verdict as peer_fc3d prints it ("none": no verdict at all)
cat >"$T/fake.sh" <<'EOF'
if [ "$3" = good ]; then printf '1\n0\n0\n' >"$1"; else printf '0\n0\n0\n' >"$1"; fi
if [ "$2" = none ]; then echo '{"time_s":1e-05}'; else echo "{\"solved\":$2,\"time_s\":1e-05}"; fi
EOF
{
  for c in "both true good" "neither false bad" "own true bad" "err false good" "silent none good"; do
    # shellcheck disable=SC2086
    set -- $c
    echo "external $1 format=dat time=time_s verdict=solved command sh \${FAKE} {out} $2 $3 {in}"
  done
  echo "external gone requires=/nonexistent/peer command /nonexistent/peer {in} {out}"
  printf 'experiment profile val\nsolvers both neither own err silent gone\ninstances c1.dat\n'
  printf 'tol 1e-8\nmin_runs 1\nmin_time 1e-9\nmax_time 1e-9\n'
} >"$T/val.exp"
lcp experiment "$T/val.exp" --out "$T/oval" --no-plot --var FAKE="$T/fake.sh"
got=$(rows "$T/oval/val.csv" | awk -F, '{print $4 ":" $(NF-3)}' | tr '\n' ' ') # reported_solved
if [ "$rc" -eq 0 ] && [ "$got" = "both:1 neither:0 own:1 err:0 silent: " ]; then
  pass "reported_solved: the verdict each external printed, empty when none"
else
  fail "reported_solved" "exit $rc; $got; $(head -n 3 "$T/err")"
fi
if grep -qx '# externals_absent: gone (requires= not found: left out)' "$T/oval/val.csv"; then
  pass "the CSV's preamble names the external left out"
else
  fail "externals_absent" "$(grep '^# ext' "$T/oval/val.csv")"
fi
want="1e-08,both,1,1,1.0000,1,0,0,0,0
1e-08,neither,1,1,1.0000,0,1,0,0,0
1e-08,own,1,0,0.0000,0,0,1,0,0
1e-08,err,1,0,0.0000,0,0,0,1,0
1e-08,all,4,2,0.5000,1,1,1,1,0"
got=$(rows "$T/oval/val_agreement.csv" 2>/dev/null)
if [ "$got" = "$want" ] && grep -q '^1e-08 & \\texttt{all} & 4 & 2 & 50.0 ' "$T/oval/val_agreement.tex"; then
  pass "agreement: each case counted once, the silent one left out, 2 of 4 in all"
else
  fail "agreement table" "got: $got"
fi

# own and err's verdicts are not the judge's (issue 65, "One stopping rule"): their rows are
# the disagreements table's and count as unsolved for them alone: c1, the only problem,
# stays in the virtual best, solved by both and silent (err's answer, accepted by the
# judge, is not counted: its own verdict says unsolved)
got=$(rows "$T/oval/val_disagreements.csv" 2>/dev/null | cut -d, -f4-7 | tr '\n' ' ')
vb=$(rows "$T/oval/val_virtual_best.csv" 2>/dev/null | grep -v '^all,' | cut -d, -f3-6 | tr '\n' ' ')
if [ "$got" = "own,unconverged,0,1 err,converged,1,0 " ] &&
  [ "$vb" = "both,1,1,1 neither,1,1,0 own,1,1,0 err,1,1,0 silent,1,1,1 " ]; then
  pass "disagreements: own and err, unsolved for them alone in the virtual best"
else
  fail "disagreements table" "got: $got; virtual best (solver, others, accepted, solved): $vb"
fi

# the runs whose verdicts agree against the virtual best (tables_profile.c, virtual_best):
# both and silent solve c1; each of them has another that solves it, neither solves nothing;
# gone refused everything and takes no part
sed 's/^solvers .*/solvers both neither silent gone/' "$T/val.exp" >"$T/val2.exp"
lcp experiment "$T/val2.exp" --out "$T/oval2" --no-plot --var FAKE="$T/fake.sh"
want="fc3d,1e-08,both,1,1,1,1.0000,1.0000,0
fc3d,1e-08,neither,1,1,0,0.0000,0.0000,0
fc3d,1e-08,silent,1,1,1,1.0000,1.0000,0"
got=$(rows "$T/oval2/val_virtual_best.csv" 2>/dev/null | grep -v '^all,')
gall=$(rows "$T/oval2/val_virtual_best.csv" 2>/dev/null | grep '^all,' | sed 's/^all,/fc3d,/')
if [ "$got" = "$want" ] && [ "$gall" = "$want" ] &&
  grep -q '^fc3d & 1e-08 & \\texttt{neither} & 1 & 1 & 0 & 0.0 & 0.0 & 0 ' \
    "$T/oval2/val_virtual_best.tex"; then
  pass "virtual_best: of the problems another solves, each solver's share; all classes alike"
else
  fail "virtual_best table" "got: $got; all: $gall"
fi

# ---- 2. verdict= needs a key ------------------------------------------------------------------
printf 'external x verdict= command sh {in} {out}\n' >"$T/bad.exp"
lcp experiment "$T/bad.exp" --out "$T/obad" --no-plot
if [ "$rc" -eq 2 ] && grep -q "bad.exp:1: external verdict: expected a key" "$T/err"; then
  pass "verdict= without a key: exit 2, file and line named"
else
  fail "verdict= without a key" "exit $rc; $(cat "$T/err")"
fi

# ---- 2b. format=own: the problem's own file, a global FCLIB file as it is ----------------------
# format=hdf5 hands a peer the local problem lcplab wrote (a global file is condensed on
# reading); format=own hands the file the problem was read from (bench_global.exp: the
# global solvers of peer_gfc3d need H and M)
G=$SHARED/datasets/fclib/LMGC_GFC3D-i00001-1-00000.hdf5
if [ ! -f "$G" ]; then
  echo "SKIP: $G not found: format=own not checked"
else
  # the log goes in the environment: a word naming a file is hashed as the program's
  # (experiments/CAMPAIGNS.md, "The program's content is in the key"), and this one changes
  printf 'printf "%%s\n" "$2" >>"$LOG"; : >"$1"\n' >"$T/which.sh"
  {
    echo "external own format=own command env LOG=\${LOG} sh \${WHICH} {out} {in}"
    echo "external local format=hdf5 command env LOG=\${LOG} sh \${WHICH} {out} {in}"
    printf 'experiment profile fmt\nsolvers own local\ninstances %s\n' "$G"
    printf 'tol 1e-8\nmin_runs 1\nmin_time 1e-9\nmax_time 1e-9\n'
  } >"$T/fmt.exp"
  : >"$T/which.log"
  lcp experiment "$T/fmt.exp" --out "$T/ofmt" --no-plot --jobs 1 --var WHICH="$T/which.sh" \
    --var LOG="$T/which.log"
  first=$(sed -n 1p "$T/which.log")
  second=$(sed -n 2p "$T/which.log")
  if [ "$first" -ef "$G" ] && [ -n "$second" ] && ! [ "$second" -ef "$G" ]; then
    pass "format=own hands over the global file itself, format=hdf5 a local copy"
  else
    fail "format=own" "exit $rc; got '$first' and '$second'; $(head -n 3 "$T/err")"
  fi
fi

# ---- 3. the peers' experiment files plan -------------------------------------------------------
if [ ! -d "$SHARED/datasets/siconos/fc3d" ]; then
  echo "SKIP: $SHARED/datasets not found: the experiment files are not planned"
else
  for f in default bench_validate bench_global; do
    lcp experiment "$SRC/experiments/$f.exp" --plan "$T/plan_$f" --var SHARED="$SHARED" \
      --var PEERS=/nonexistent
    if [ "$rc" -eq 0 ] && grep -q "external solvers left out" "$T/err" &&
      ! grep -q 'siconos-' "$T/plan_$f/tasks.tsv"; then
      pass "$f.exp plans without the peers (they are left out, named)"
    else
      fail "$f.exp --plan without the peers" "exit $rc; $(head -n 3 "$T/err")"
    fi
  done
  # with a stand-in for every harness: the peers' sections take them
  mkdir -p "$T/peers/fc3d" "$T/peers/scenes"
  printf '#!/bin/sh\nexit 1\n' >"$T/peers/peer_solve"
  for h in fc3d/peer_fc3d scenes/peer_scene scenes/peer_scene_mujoco; do
    cp "$T/peers/peer_solve" "$T/peers/$h"
  done
  chmod +x "$T/peers/peer_solve" "$T/peers/fc3d/peer_fc3d" "$T/peers/scenes/peer_scene" \
    "$T/peers/scenes/peer_scene_mujoco"
  lcp experiment "$SRC/experiments/default.exp" --plan "$T/plan_peers" --var SHARED="$SHARED" \
    --var PEERS="$T/peers"
  if [ "$rc" -eq 0 ] && ! grep -q "left out" "$T/err" &&
    grep -q 'siconos-NSGS' "$T/plan_peers/tasks.tsv" &&
    grep -q 'ode-dantzig' "$T/plan_peers/tasks.tsv" &&
    grep -q 'scene-ode' "$T/plan_peers/tasks.tsv"; then
    pass "default.exp plans its peers' sections with the peers present"
  else
    fail "default.exp --plan with the peers" "exit $rc; $(head -n 3 "$T/err")"
  fi
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
