#!/bin/sh
# test_paper_gen.sh -- paper/gen.py writes no placeholder and no claim its
# results contradict (issue 52): a tiny results folder is made by `lcplab
# experiment` on a tiny experiment file (every section the paper reads, two or
# three solvers, problems of n <= 40, scenes of a few steps: seconds), gen.py
# writes gen/*.tex from it, and tests/paper_checks.py checks gen/*.tex and
# paper.tex's own text: no "--" as a value, no ellipsis, no "none" where a
# name is expected, no "not run" or "not built", no empty section; the counts
# printed equal the CSVs' (distinct problems, sizes per scaling family,
# seeds), the scaling verdict agrees with the fitted exponents, a solver
# that ran a scene is not said to be absent from the scenes, and refusals
# (nsgs refuses the findex rows) are not said to be outside the profiles
# when the profiles count them; the timing protocol printed is each
# section's NAME_timing.csv (placement, workers, noise, the tie from it), the
# peers' tables list exactly the solvers that ran and name the absent ones,
# the scene table has each scene's `# world:` settings, and the harness's
# validation paragraph appears only with bench_validate's results (a
# synthetic agreement table and runs), with their numbers and no other
# number, and names the runs without a verdict; the count of peers' answers
# rejected by lcplab's test is the failures tables'.  Issue 65's second round: the
# abstract counts identical algorithms once; the profiles with refusals counted
# are drawn; the tie factor is the noise between passes (the profile runs
# `replicates 2`) and every win count has its interval; a peer whose own verdict
# always says unsolved plants disagreements, which must be the paper's table; the
# peers' versions; the scenes' budget stops per solver.  Then the full campaign's
# path: the same checks on a file named full.exp, peers in the profile, a large set.
# Issue 84 item 4: a fidelity section (two solvers, two budgets, a planted scene peer) whose
# tables paper_checks.py holds against fidelity.csv.
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR, and the
# Python package gen.py takes its medians from (lcplab.quantile):
# LCPLAB_PYTHON and LCPLAB_PYTHONPATH, as make check sets them when the
# package is built (else SKIP, exit 77: a build without Python);
# LCPLAB_SAN_FLAGS (a sanitizer build: SKIP, exit 77).
# Last line "N passed, M failed".
TST_NAME=test_paper_gen
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
py=${LCPLAB_PYTHON:-python3}
# shellcheck source=tst_python.sh
. "$SRC/tests/tst_python.sh"
# pyrun ARGS: the interpreter with the build's package (tst_python.sh)
pyrun() { (tst_python_env >/dev/null && "$py" "$@"); }
case ${LCPLAB_SAN_FLAGS:-} in
  *address*)
    # what this test checks is gen.py's text (Python); the experiments it
    # runs first are the sections test_experiment.sh and the campaign tests
    # run under the sanitizers too.  Here it took 53 s of CPU, the sanitizer
    # stage's longest (experiments/records/2026-11-28-ci-timeout.md)
    echo "SKIP: a sanitizer build (the plain build's make check runs the paper's checks)"
    exit 77
    ;;
esac
if ! pyrun -c "import lcplab" 2>/dev/null; then
  echo "SKIP: the lcplab Python package is not built (gen.py takes its medians from it)"
  exit 77
fi
gen() { LCPLAB="$LCPLAB_BIN" pyrun "$SRC/paper/gen.py" "$@"; }

cat >"$T/tiny.exp" <<'EXP'
experiment profile profile
solvers pgs pgs_wide lemke dantzig nsgs
generate spd 10 20 seeds=1-2
generate contact 12
generate box 12
generate boxed-findex 12
scene pyramid layers=2 steps=5 friction=box
tol 1e-4 1e-8
max_iter 2000
min_runs 1
min_time 0
max_time 0.01
time_limit 5
replicates 2

experiment convergence convergence
solvers pgs lemke dantzig
generate contact 12
generate box 14
tol 1e-10
max_iter 2000
time_limit 5

experiment scaling scaling
solvers pgs lemke
generate spd 10 20 40
tol 1e-8
max_iter 2000
min_runs 1
min_time 0
max_time 0.01
time_limit 5

experiment drift drift
solvers pgs lemke direct
scene pendulum steps=20 friction=none
time_limit 30

experiment drift integrators
solvers pgs
scene ball restitution=1 mu=0 steps=600 friction=none
scene racket steps=40 friction=none
integrators symplectic explicit verlet
compare integrators

experiment accuracy accuracy
solvers pgs lemke
scene pyramid layers=2 steps=10
friction box
time_limit 30

experiment gradients gradients
solvers lemke pgs
generate spd 10
generate boxed-findex 12
seed 83
time_limit 5
EXP
ABS_SRC=$(cd "$SRC" && pwd)
# the peers side by side: an external that is lcplab's own lemke run as a
# program (a peer present), two whose programs do not exist (absent peers)
cat >>"$T/tiny.exp" <<EXP

external bullet-self format=dat time=time_s command $BIN solve {in} --solver lemke --tol {tol} --solution {out} --json
# a peer whose own verdict is always "unsolved" (its JSON's warm_start, false): every
# answer the judge accepts is a planted disagreement of the two verdicts
external self-says-no verdict=warm_start ladder=1 version=lcplab-selftest-1 format=dat time=time_s command $BIN solve {in} --solver pgs --tol {tol} --solution {out} --json
external siconos-absent requires=/nonexistent/peer_solve command /nonexistent/peer_solve {in} {out}
external scene-absent kind=scene requires=/nonexistent/peer_scene command /nonexistent/peer_scene {scene}

experiment profile peers_lcp
solvers pgs lemke bullet-self self-says-no siconos-absent
generate spd 10
generate contact 12
tol 1e-8
max_iter 2000
min_runs 1
min_time 0
max_time 0.01
time_limit 5
replicates 2

experiment scenes scenes
solvers pgs_wide externals
max_iter 20
scene pyramid layers=2 steps=5

# physical fidelity (issue 84, item 4): two solvers at two budgets and a planted scene
# peer (fid-planted: peer_scene's --trace lines and summary, the body at the analytic motion)
external fid-planted kind=scene command sh $T/fid_peer.sh {scene} {params} --steps {steps} --trace
experiment fidelity fidelity
solvers lemke pgs fid-planted
scene incline_slide stack chain
budgets 10 50

# the set-up cost measured apart (issue 84, item 2): the main job's two empty solves
experiment profile overhead
solvers pgs lemke nsgs
instances $ABS_SRC/experiments/data/empty_lcp.lcp $ABS_SRC/experiments/data/empty_cone.lcp
tol 1e-8
min_runs 5
min_time 0
max_time 0.01
time_limit 5
EXP

cp "$ABS_SRC/tests/fid_peer.sh" "$T/fid_peer.sh"
if "$BIN" experiment "$T/tiny.exp" --out "$T/res" --data "$T/data" --jobs 1 --no-plot \
  >"$T/out" 2>"$T/err"; then
  pass "lcplab experiment: the tiny results folder"
else
  fail "lcplab experiment: the tiny results folder" "exit $?"
  tst_done
fi
rm -f "$T/out" "$T/err"
mkdir -p "$T/gen"
if gen "$T/res" "$T/gen" >"$T/out" 2>"$T/err"; then
  pass "gen.py writes gen/*.tex"
else
  fail "gen.py writes gen/*.tex"
  tst_done
fi
rm -f "$T/out" "$T/err"
# one line per check: "ok DESC" or "FAIL DESC: WHY"
gen --bib "$SRC/docs/references.bib" "$T/refs.bib" || fail "gen.py --bib"
LCPLAB="$LCPLAB_BIN" python3 "$SRC/tests/paper_checks.py" "$T/res" "$T/gen" "$SRC/paper/paper.tex" \
  >"$T/checks" 2>&1
while IFS= read -r line; do
  case $line in
    "ok "*) pass "${line#ok }" ;;
    "FAIL "*) fail "${line#FAIL }" ;;
    *) fail "paper_checks.py: $line" ;;
  esac
done <"$T/checks"

# the noise paragraph's groups of one trace are the library's (NAME_same.csv,
# exp_tab_same_groups_write; issue 81 item 4), not gen.py's own: a planted twin of a
# converged profile row at the first tolerance that no other run shares, whose own verdict
# says unsolved (reported_solved 0: not the judge's, so no trace), makes no group, and the
# paragraph's count of groups is the CSV's (converged at the first tolerance, two runs timed).
# Planted into the results before gen.py's second run below (gen2), whose noise.tex must be
# the first run's
groups=$(pyrun - "$T/res/profile.csv" "$T/res/profile_same.csv" <<'PY'
import csv, sys
path = sys.argv[1]
lines = open(path).read().splitlines(True)
pre = [l for l in lines if l.startswith('#')]
rows = list(csv.reader(l for l in lines if not l.startswith('#')))
head, body = rows[0], rows[1:]
c = {k: i for i, k in enumerate(head)}
tolA = body[0][c['tol']]
def key(r):
    return (r[c['tol']], r[c['problem']], r[c['x_digest']], r[c['iterations']], r[c['pivots']])
n = {}
for r in body:
    n[key(r)] = n.get(key(r), 0) + 1
lone = [r for r in body if r[c['tol']] == tolA and r[c['status']] == 'converged' and r[c['x_digest']]
        and float(r[c['time_s']] or 0) > 0 and r[c['time_source']] == 'library' and n[key(r)] == 1]
twin = list(lone[0])
twin[c['solver']], twin[c['reported_solved']] = 'twin', '0'
with open(path, 'w', newline='') as fh:
    fh.writelines(pre)
    csv.writer(fh, lineterminator='\n').writerows([head] + body + [twin])
same = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith('#')))
print(sum(1 for g in same if g['tol'] == tolA and g['status'] == 'converged' and int(g['timed']) >= 2))
PY
)
# the harness's validation (make bench-validate): its paragraph only with its
# results, and then with their numbers
mkdir -p "$T/res/bench_validate" "$T/gen2"
cat >"$T/res/bench_validate/bench_validate_agreement.csv" <<'CSV'
# external solvers with verdict=KEY: their own verdict against err_siconos <= tol
tol,solver,pairs,agree,agree_share,both_solved,both_unsolved,only_reported,only_engine,no_verdict
1e-08,siconos-NSGS,30,29,0.9667,20,9,1,0,2
1e-08,siconos-PROX,31,31,1.0000,25,6,0,0,1
1e-08,all,61,60,0.9836,45,15,1,0,3
CSV
# its runs: 32 problems; NSGS has a verdict on p01-p30, PROX on p01-p31, the
# other three runs were killed at the 10 s limit (the agreement's no_verdict)
{
  echo '# time_limit_s: 10 (each solve)'
  echo 'problem,solver,tol,status,reported_solved'
  for i in $(seq -w 1 32); do
    for s in NSGS PROX; do
      last=30
      if [ "$s" = PROX ]; then last=31; fi
      if [ "$i" -gt "$last" ]; then
        echo "p$i,siconos-$s,1e-08,time_limit,"
      else
        echo "p$i,siconos-$s,1e-08,converged,1"
      fi
    done
  done
} >"$T/res/bench_validate/bench_validate.csv"
if gen "$T/res" "$T/gen2" >"$T/out" 2>"$T/err"; then
  pass "gen.py with bench_validate's results"
else
  fail "gen.py with bench_validate's results"
fi
if cmp -s "$T/gen/noise.tex" "$T/gen2/noise.tex" && grep -q "in the $groups groups of two solvers" "$T/gen/noise.tex"; then
  pass "noise: the groups of one trace are profile_same.csv's ($groups), a planted twin with its own verdict none"
else
  fail "noise: the groups of one trace" "$groups in the CSV; $(diff "$T/gen/noise.tex" "$T/gen2/noise.tex" | head -c 600)"
fi
LCPLAB="$LCPLAB_BIN" python3 "$SRC/tests/paper_checks.py" "$T/res" "$T/gen2" "$SRC/paper/paper.tex" \
  >"$T/checks" 2>&1
while IFS= read -r line; do
  case $line in
    "ok "*"validation"*) pass "with bench_validate: ${line#ok }" ;;
    "FAIL "*"validation"*) fail "with bench_validate: ${line#FAIL }" ;;
    "ok "* | "FAIL "*) ;;
    *) fail "paper_checks.py: $line" ;;
  esac
done <"$T/checks"

# the full campaign's path (make paper CAMPAIGN=DIR): a file named full.exp, the first page
# then says it is the study; its peers run in the profile itself (bullet-self) and a large
# section is there, as in experiments/full.exp
mkdir -p "$T/full"
{
  grep '^external ' "$T/tiny.exp"
  grep -v '^external ' "$T/tiny.exp" | sed 's/^solvers pgs pgs_wide lemke dantzig nsgs$/& bullet-self/'
  cat <<'EXP'

experiment profile large
solvers pgs pgs_wide nsgs
generate sparse-contact 300
tol 1e-4
max_iter 2000
min_runs 1
min_time 0
max_time 0.01
time_limit 5
replicates 2
EXP
} >"$T/full/full.exp"
mkdir -p "$T/gen3"
if "$BIN" experiment "$T/full/full.exp" --out "$T/res3" --data "$T/data3" --jobs 1 --no-plot \
  >"$T/out" 2>"$T/err" && gen "$T/res3" "$T/gen3" >"$T/out" 2>"$T/err"; then
  pass "full path: lcplab experiment and gen.py on a full.exp"
  LCPLAB="$LCPLAB_BIN" python3 "$SRC/tests/paper_checks.py" "$T/res3" "$T/gen3" "$SRC/paper/paper.tex" \
    >"$T/checks" 2>&1
  while IFS= read -r line; do
    case $line in
      "ok "*) pass "full path: ${line#ok }" ;;
      "FAIL "*) fail "full path: ${line#FAIL }" ;;
      *) fail "paper_checks.py (full path): $line" ;;
    esac
  done <"$T/checks"
  grep -q 'This paper is the study' "$T/gen3/numbers.tex" ||
    fail "full path: the first page says the paper is the study"
else
  fail "full path: lcplab experiment and gen.py on a full.exp" "$(tail -n 3 "$T/err")"
fi

# identical algorithms drawn once in the scene figures (gen.py --merge-traces, which
# paper/build.sh runs before drawing drift, accuracy and convergence), in every run group
# where they are identical (issue 84): b's trace equals a's in every group where b has one
# (the note aside: it names the solver); c equals a's in s1 (drawn there as a) and differs
# in s2 (drawn there); d is refused everywhere (a refusal is no trace)
cat >"$T/tr.csv" <<'CSV'
# on_failure: fallback
scene,solver,integrator,friction,step,energy,status,note
s1,a,symplectic,box,1,1.5,max_iter,
s1,a,symplectic,box,2,1.25,max_iter,
s1,b,symplectic,box,1,1.5,max_iter,
s1,b,symplectic,box,2,1.25,max_iter,
s1,c,symplectic,box,1,1.5,max_iter,
s1,c,symplectic,box,2,1.25,max_iter,
s2,a,symplectic,box,1,7,converged,failed solve by a
s2,b,symplectic,box,1,7,converged,failed solve by b
s2,c,symplectic,box,1,8,converged,
s1,d,symplectic,box,1,,refused,d refused
s2,d,symplectic,box,1,,refused,d refused
CSV
if gen --merge-traces "$T/tr.csv" "$T/tr_fig.csv" &&
  [ "$(grep -c '^# on_failure' "$T/tr_fig.csv")" = 1 ] &&
  [ "$(grep -v '^#' "$T/tr_fig.csv" | cut -d, -f2 | sort | uniq -c | tr -s ' ' | tr '\n' ';')" = " 3 a; 1 c; 2 d; 1 solver;" ]; then
  pass "--merge-traces: b drawn as a, c as a where identical (s1) and kept where not, d (refused) kept"
else
  fail "--merge-traces" "$(cat "$T/tr_fig.csv" 2>/dev/null | head -12)"
fi

# every page inside the margins: paper_checks.py reads the LaTeX log beside GEN_DIR
# (paper/build.sh's OUT/paper.log).  Planted: the campaign paper's peers' table 66 pt past
# the right margin and its disagreements table 1104 pt taller than the page (both FAIL);
# then a log with only a 1.9 pt box (within the 3 pt allowed) and no tall float (both ok)
margins() {
  LCPLAB="$LCPLAB_BIN" python3 "$SRC/tests/paper_checks.py" "$T/res" "$T/gen" "$SRC/paper/paper.tex" 2>&1 |
    grep -E 'right margin|taller than the page' | awk '{print $1}' | tr '\n' ' '
}
cat >"$T/paper.log" <<'LOG'
(./gen/peers_side.tex [24]
LaTeX Warning: Float too large for page by 1103.71523pt on input line 215.
Overfull \hbox (66.1365pt too wide) in paragraph at lines 222--237
 [][]
)
LOG
got=$(margins)
printf '(./gen/generators.tex\nOverfull \\hbox (1.91559pt too wide) in paragraph at lines 15--16\n)\n' >"$T/paper.log"
got2=$(margins)
rm -f "$T/paper.log"
if [ "$got" = "FAIL FAIL " ] && [ "$got2" = "ok ok " ]; then
  pass "paper.log: a table past the right margin or taller than the page fails the checks"
else
  fail "paper.log margins" "planted: '$got', within: '$got2'"
fi
tst_done
