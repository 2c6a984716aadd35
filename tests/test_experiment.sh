#!/bin/sh
# test_experiment.sh -- `lcplab experiment`: the pipeline, not timings
# (experiments/README.md, "Experiment files").  Tiny configs in a temporary
# directory: the CSV header columns and the provenance keys of every kind,
# the rows of refused (problem, solver) pairs with their reason, the
# per-class profile CSV against the main CSV's own rows (the Dolan-More
# arithmetic itself is checked on a hand example in
# test_experiment_profile.c), the failure and coverage tables, figures
# present and non-empty when gnuplot is installed, resuming a finished run,
# refusing another configuration's campaign and outputs without one,
# --force, and exit 2 with one line "lcplab: FILE:LINE: ..." for an unknown
# solver, a missing file, a bad key, a bad number, an unknown scene and an
# undefined variable; the world's failure policy of scene sections
# (on_failure per file and per section) with the status and applied
# columns, the steps table's counts of them, --dump-failures repeated bit for
# bit by `lcplab solve`, --max-memory reaching the readers, world settings on
# scene lines (dyn_world_settings_set), and scenes sections with a fake scene peer (a
# script printing a summary line) beside lcplab's own runs.  The campaign machinery (jobs, GNU parallel, resume,
# corrupted results, provenance) is test_campaign.sh's.
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR (the gnuplot
# scripts in experiments/).
# Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_experiment
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}

export LCPLAB_EXPERIMENTS="$SRC/experiments"
# memcheck keeps its own address space: no RLIMIT_AS on the tasks under it
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

# header FILE: the first line that is not a '#' comment
header() { grep -v '^#' "$1" | head -n 1; }
# rows FILE: the data rows
rows() { grep -v '^#' "$1" | tail -n +2; }

# ---- a tiny problem file (hand-solvable: M = diag(2, 2), q = (-2, 1):
#      x = (1, 0), w = (0, 1)) --------------------------------------------------------
cat >"$T/p2.dat" <<'DAT'
2
0
2
2
2 2
2 0
0 2
-2 1
DAT
mkdir -p "$T/coll"
cp "$T/p2.dat" "$T/coll/a.dat"
cat >"$T/coll/b.dat" <<'DAT'
2
0
2
2
2 2
4 0
0 4
-2 -1
DAT

# ---- 1. every kind on tiny inputs ---------------------------------------------------------
cat >"$T/all.exp" <<'EOF2'
# tiny sections of every kind
experiment profile prof
solvers pgs lemke direct nsgs
instances coll p2.dat
scene stack n=2 steps=20 friction=cone
tol 1e-4 1e-8
repeat 1

experiment convergence conv
solvers pgs lemke direct
instances p2.dat

experiment drift
solvers pgs direct
scene ball steps=30
integrators symplectic verlet
friction box

experiment accuracy acc
solvers pgs
scene stack n=2 steps=20
EOF2
lcp experiment "$T/all.exp" --out "$T/o1" --jobs 2
if [ "$rc" -ne 0 ]; then
  fail "experiment runs every kind" "exit $rc"
else
  pass "experiment runs every kind"
fi

check_header() {
  want=$2
  got=$(header "$1")
  if [ "$got" = "$want" ]; then pass "header of $(basename "$1")"; else fail "header of $(basename "$1")" "got '$got'"; fi
}
check_header "$T/o1/prof.csv" "problem,kind,n,solver,tol,status,iterations,pivots,time_s,time_min_s,repeats,res_rel,res_nat_inf,solved,class,nnz,contacts,cond_est,method,time_q1_s,time_q3_s,time_source,note,time_total_s,res_scaled,siconos_err,err_siconos,res_rel_1q,x_digest,reported_solved,time_runs_s,replicate,peer_tol"
check_header "$T/o1/prof_profile.csv" "tol,solver,tau,log2_tau,rho,solved_share,problems,class,refused,rho_all,solved_share_all,problems_all"
check_header "$T/o1/conv.csv" "problem,kind,n,solver,status,iteration,time_s,res_scaled,final,class,method,time_source,tol,note"
check_header "$T/o1/drift.csv" "scene,solver,integrator,friction,step,t,energy,rel_drift,max_penetration,contacts,iterations,res_nat_inf,status,applied,note"
check_header "$T/o1/acc.csv" "scene,solver,integrator,friction,step,t,max_penetration,joint_error,compl,infeas,res_nat_inf,iterations,status,applied,note"

for f in prof conv drift acc; do
  miss=
  for key in rev lcplab cpu cores governor compiler cflags blas threads binary precision load seed date host config tasks; do
    grep -q "^# $key: ." "$T/o1/$f.csv" || miss="$miss $key"
  done
  if [ -z "$miss" ]; then pass "provenance keys of $f.csv"; else fail "provenance keys of $f.csv" "missing:$miss"; fi
done
if grep -q '^# config> experiment profile prof$' "$T/o1/prof.csv"; then
  pass "the section's config lines are in the preamble"
else
  fail "the section's config lines are in the preamble" "no '# config> experiment profile prof'"
fi

# prof: 4 problems (a, b, p2, the stack's last step) x 2 tols x 4 solvers
n=$(rows "$T/o1/prof.csv" | wc -l)
if [ "$n" -eq 32 ]; then pass "profile: one row per (problem, tol, solver)"; else fail "profile: one row per (problem, tol, solver)" "$n rows, expected 32"; fi
# direct takes only equality rows: refused everywhere, with empty numbers and the reason
u=$(rows "$T/o1/prof.csv" | awk -F, '$4 == "direct" && $6 == "refused" && $9 == "" && $14 == "0" && $23 != ""' | wc -l)
if [ "$u" -eq 8 ]; then pass "refused pairs are rows with the reason, not skipped"; else fail "refused pairs are rows with the reason" "$u of 8"; fi
# the hand problem p2: x = (1, 0); lemke solves it exactly
r=$(rows "$T/o1/prof.csv" | awk -F, '$1 == "p2" && $4 == "lemke" && $5 == "1e-08" {print $6, ($12 + 0 <= 1e-14), $15, $18 + 0}')
if [ "$r" = "converged 1 lcp 1" ]; then pass "lemke on the hand problem: converged, res_rel <= 1e-14; class lcp, cond 1"; else fail "lemke on the hand problem" "got '$r'"; fi
# the cone problem: only cone solvers take it; its class is fc3d
r=$(rows "$T/o1/prof.csv" | awk -F, '$2 == "cone" && $4 == "pgs" {print $6, $15; exit}')
if [ "$r" = "refused fc3d" ]; then pass "pgs on the scene's cone problem: refused, class fc3d"; else fail "pgs on the scene's cone problem" "got '$r'"; fi
# profile CSV against the main CSV, per class: the solved share of each
# (class, tol, solver) is (converged rows) / (problems of the class), and
# rho(1) the share where it has the least time; a solver that refuses every
# problem of a class (direct; pgs and lemke on the cone) has no curve there.
# rho(1) is the curve's first row, the one with log2_tau = 0 exactly: a jump
# at a near tie (pgs 3.210007e-07 against nsgs 3.210006e-07: tau = 1.0000003)
# also prints tau as 1.000000e+00, and its rho counts the near tie as a win
# (that row, read as rho(1), made this check fail now and then under load).
# rho and the share are printed to 7 digits (%.6e): 1/3 is 3.333333e-01, so
# they are compared within 1e-6, not 1e-9 (which failed whenever the timings
# split the wins 1 : 2 over the three LCPs); a time under 1e-9 s counts as
# 1e-9 s, as in the engine's profile
bad=$(awk -F, '
  FNR == 1 { file++ }
  /^#/ { next }
  file == 1 && !h1 { h1 = 1; next }
  file == 2 && !h2 { h2 = 1; next }
  file == 1 { np[$15 "/" $5 "/" $1] = 1; if ($6 != "refused") part[$15 "/" $5 "/" $4] = 1
              if ($14 == "1") { solved[$15 "/" $5 "/" $4]++; tt = $9 + 0 < 1e-9 ? 1e-9 : $9 + 0; t[$15 "/" $5 "/" $1 "/" $4] = tt
                if (!(($15 "/" $5 "/" $1) in best) || tt < best[$15 "/" $5 "/" $1]) best[$15 "/" $5 "/" $1] = tt } next }
  file == 2 { key = $8 "/" $1 "/" $2; share[key] = $6 + 0; if ($4 + 0 == 0 && !(key in rho1)) rho1[key] = $5 + 0; probs[$8 "/" $1] = $7; seen[key] = 1 }
  END {
    for (k in t) { split(k, a, "/"); pt = a[1] "/" a[2] "/" a[3]; if (t[k] == best[pt]) nbest[pt]++ }
    for (k in np) { split(k, a, "/"); n[a[1] "/" a[2]]++ }
    for (k in part) if (!(k in seen)) print "no curve " k
    for (k in seen) {
      if (!(k in part)) print "curve of a non-participant " k
      split(k, a, "/"); ct = a[1] "/" a[2]
      if (probs[ct] != n[ct]) print "problems " ct " " probs[ct] " != " n[ct]
      want = (k in solved ? solved[k] : 0) / n[ct]
      if (share[k] < want - 1e-6 || share[k] > want + 1e-6) print "share " k
      # the CSV prints times to 7 digits: a tie there may be a strict win in
      # the engine, so rho(1) lies between the unshared wins and all wins
      fast = 0; alone = 0
      for (pt in best) { split(pt, b, "/"); if (b[1] "/" b[2] == ct && (pt "/" a[3]) in t && t[pt "/" a[3]] == best[pt]) { fast++; if (nbest[pt] == 1) alone++ } }
      if (rho1[k] < alone / n[ct] - 1e-6 || rho1[k] > fast / n[ct] + 1e-6) print "rho1 " k
    }
  }' "$T/o1/prof.csv" "$T/o1/prof_profile.csv")
if [ -z "$bad" ]; then pass "profile CSV agrees with the rows per class (participants, solved share, rho(1))"; else fail "profile CSV agrees with the rows" "$bad"; fi
# failure and coverage tables: counts from the rows
f=$(grep -v '^#' "$T/o1/prof_failures.csv" | awk -F, '$1 == "lcp" && $2 == "1e-08" && $3 == "direct" {print $4, $5, $13}')
if [ "$f" = "3 0 3" ]; then pass "failure table: direct on the 3 LCPs, 3 refused, 0 converged"; else fail "failure table" "got '$f'"; fi
c=$(grep -v '^#' "$T/o1/prof_coverage.csv" | awk -F, '$1 == "fc3d" && $2 == "lemke" {print $3, $4, $5, $6}')
if [ "$c" = "1 0 1 does not handle Coulomb cones (1)" ]; then pass "coverage table: lemke refuses the cone problem, with the reason"; else fail "coverage table" "got '$c'"; fi
# leaders: per class and tolerance the fastest is the winners table's solver
# with the most wins alone, then the most solved (a solver that is another's
# algorithm on every problem it takes left out),
# the first in order on a tie; most_solved lists every solver at the top count
bad=$(awk -F, 'FNR == 1 { file++ } /^#/ || /^class,/ { next }
  file == 1 { k = $1 SUBSEP $2
    same = 0; if ($11 != "") { split($11, sa, " on "); same = sa[2] + 0 }
    if (same < $4 && (!(k in f) || $7 > w[k] || ($7 == w[k] && $5 > sv[k]))) { f[k] = $3; w[k] = $7; sv[k] = $5 }
    if (!(k in top) || $5 > top[k]) { top[k] = $5; most[k] = $3 } else if ($5 == top[k]) most[k] = most[k] " " $3
    next }
  { k = $1 SUBSEP $2; if ($4 != f[k] || $8 != most[k] || $9 != top[k]) print $1, $2, $4, f[k], $8, most[k] }' \
  "$T/o1/prof_winners.csv" "$T/o1/prof_leaders.csv")
n=$(grep -cv '^#\|^class,' "$T/o1/prof_leaders.csv")
if [ -z "$bad" ] && [ "$n" -ge 2 ]; then pass "leaders table agrees with the winners table ($n rows)"; else fail "leaders table" "rows $n; $bad"; fi
for tb in failures coverage winners timings; do
  if [ -s "$T/o1/prof_$tb.tex" ] && grep -q '^\\toprule' "$T/o1/prof_$tb.tex" && grep -q '^\\bottomrule' "$T/o1/prof_$tb.tex"; then
    pass "booktabs table prof_$tb.tex"
  else
    fail "booktabs table prof_$tb.tex" "missing or without toprule/bottomrule"
  fi
done

# convergence: pgs has a history (final = 0 rows) and one final row; lemke only the final row
h=$(rows "$T/o1/conv.csv" | awk -F, '$4 == "pgs" && $9 == "0"' | wc -l)
fl=$(rows "$T/o1/conv.csv" | awk -F, '$4 == "lemke" && $9 == "1"' | wc -l)
fh=$(rows "$T/o1/conv.csv" | awk -F, '$4 == "lemke" && $9 == "0"' | wc -l)
if [ "$h" -ge 1 ] && [ "$fl" -eq 1 ] && [ "$fh" -eq 0 ]; then pass "convergence: histories and final rows"; else fail "convergence: histories and final rows" "pgs history $h, lemke final $fl / history $fh"; fi
# the history's time axis is the library's timestamps: measured, never decreasing
m=$(rows "$T/o1/conv.csv" | awk -F, '$4 == "pgs" && $9 == "0" { if ($12 != "measured" || $7 < 0 || $7 + 0 < last + 0) bad++; last = $7; n++ } END { print n + 0, bad + 0 }')
if [ "${m% *}" -ge 1 ] && [ "${m#* }" -eq 0 ]; then pass "convergence: measured, nondecreasing iteration times"; else fail "convergence: measured times" "rows, bad: $m"; fi
# drift (friction box): 30 steps x 2 integrators for pgs; direct takes no
# findex rows: one refused row per integrator, with the reason
d=$(rows "$T/o1/drift.csv" | awk -F, '$2 == "pgs" && $5 != ""' | wc -l)
du=$(rows "$T/o1/drift.csv" | awk -F, '$2 == "direct" && $13 == "refused" && $15 ~ /findex/' | wc -l)
if [ "$d" -eq 60 ] && [ "$du" -eq 2 ]; then pass "drift: rows per step, per integrator; direct refused in the box group"; else fail "drift rows" "pgs $d (want 60), direct refused $du (want 2)"; fi
st=$(grep -v '^#' "$T/o1/drift_steps.csv" | awk -F, '$4 == "pgs" && $3 == "verlet" {print $5, $6, $7}')
if [ "$st" = "30 30 ran" ]; then pass "steps table: pgs ran 30 of 30 steps"; else fail "steps table" "got '$st'"; fi
# the ball falls freely before it lands: rel_drift at step 1 is tiny, energy finite
e=$(rows "$T/o1/drift.csv" | awk -F, '$2 == "pgs" && $3 == "verlet" && $5 == "1" {print ($8 < 1e-9 && $8 > -1e-9)}')
if [ "$e" = "1" ]; then pass "drift: verlet free fall conserves energy at step 1"; else fail "drift: verlet free fall" "got '$e'"; fi
# figures
if command -v gnuplot >/dev/null 2>&1; then
  miss=
  for f in prof conv drift acc; do
    for e in pdf png; do
      [ -s "$T/o1/$f.$e" ] || miss="$miss $f.$e"
    done
  done
  if [ -z "$miss" ]; then pass "figures written and non-empty"; else fail "figures written and non-empty" "missing:$miss"; fi
  if grep -qF "$T/o1/prof.pdf" "$T/out" && grep -qF "$T/o1/prof.csv" "$T/out"; then
    pass "the paths are printed"
  else
    fail "the paths are printed" "stdout lacks prof.csv / prof.pdf"
  fi
else
  echo "SKIP: gnuplot not installed: no figure checks"
fi

# a scene that starts at E0 = 0 (the chain, released at rest at z = 0): rel_drift is
# scaled by M |g| D, so it is present and small over 0.25 s (pgs, 50 sweeps: -0.051 at the last step) (with / |E0| it was ~1e13)
cat >"$T/chain.exp" <<'EOF3'
experiment drift chain
solvers pgs direct
scene chain n=3 steps=30 friction=none
EOF3
lcp experiment "$T/chain.exp" --out "$T/o3" --no-plot
c=$(rows "$T/o3/chain.csv" | awk -F, '$2 == "pgs" && $5 != "" { n++; if ($8 == "" || $8 > 0.1 || $8 < -0.1) bad++ } END { print n + 0, bad + 0 }')
if [ "$rc" -eq 0 ] && [ "$c" = "30 0" ]; then pass "drift: chain from E0 = 0 gets a finite, small rel_drift"; else fail "drift: chain from E0 = 0" "exit $rc, rows / bad: $c"; fi
# direct is the exact reference on a joint-only scene: every step converged
c=$(rows "$T/o3/chain.csv" | awk -F, '$2 == "direct" && $5 != "" && $13 == "converged"' | wc -l)
if [ "$c" -eq 30 ]; then pass "drift: direct runs the joint-only chain (friction none), 30 converged steps"; else fail "drift: direct on the chain" "$c converged steps"; fi

# ---- 1b. identical algorithms, refusals, the timing protocol (issue 52) ------------------
# nsgs_newton runs nsgs's sweeps on an LCP: the same status, iterations,
# pivots and x (x_digest) on all three problems, so it is nsgs's algorithm
# there (same_as), found from the traces; pgs, lemke and dantzig reach the
# same x by other paths (other iterations or pivots) and stay solvers of
# their own.  dantzig refuses the unsymmetric u (SLV_CAP_NEEDS_SYMMETRIC):
# its profile is over the 2 problems it takes (rho 1 at the end, problems 2,
# refused 1), not 2 of 3.  The workers are pinned, one per CPU: the
# results say "cpu K"; NAME_timing.csv states the protocol and the noise,
# and the winners' tie is that noise.
mkdir -p "$T/coll3"
cp "$T/coll/a.dat" "$T/coll/b.dat" "$T/coll3/"
printf '2\n0\n2\n2\n2 2\n2 1\n0 2\n-2 -2\n' >"$T/coll3/u.dat"
cat >"$T/same.exp" <<'EOF4'
experiment profile same
solvers pgs nsgs nsgs_newton lemke dantzig
instances coll3
tol 1e-8
min_runs 5
min_time 0
max_time 1
EOF4
lcp experiment "$T/same.exp" --out "$T/o6" --jobs 2 --no-plot
# col FILE NAME: the column number of NAME in FILE's header
col() { header "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }
W=$T/o6/same_winners.csv
# nsgs_newton ran nsgs's algorithm on every problem: one entry of the tables,
# "nsgs=nsgs_newton" (issue 65), its runs pooled, no row of its own
w=$(rows "$W" | awk -F, -v s="$(col "$W" same_as)" '$3 ~ /^nsgs/ {print $3 "[" $s "]"}' | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ "$w" = "nsgs=nsgs_newton[] " ]; then pass "identical algorithms from the traces: nsgs and nsgs_newton one entry"; else fail "identical algorithms from the traces" "exit $rc, nsgs rows: '$w'"; fi
w=$(rows "$W" | awk -F, -v s="$(col "$W" same_as)" '$(s) != "" {print $3}')
if [ -z "$w" ]; then pass "no other solver is another's algorithm"; else fail "no other solver is another's algorithm" "$w"; fi
w=$(rows "$W" | awk -F, -v r="$(col "$W" refused)" '$3 == "dantzig" {print $4, $5, $6, $(r)}')
if [ "$w" = "2 2 1.0000 1" ]; then pass "winners: dantzig over the 2 problems it takes, 1 refused"; else fail "winners: refusals outside the share" "dantzig: '$w'"; fi
P=$T/o6/same_profile.csv
w=$(rows "$P" | awk -F, -v r="$(col "$P" refused)" '$2 == "dantzig" {v = $5 " " $6 " " $7 " " $(r)} END {print v}')
if [ "$w" = "1.000000e+00 1.000000e+00 2 1" ]; then pass "profile: refusals outside the denominator (rho 1 over 2 problems, 1 refused)"; else fail "profile: refusals outside the denominator" "dantzig's last row: '$w'"; fi
C=$T/o6/same.csv
w=$(rows "$C" | awk -F, -v st="$(col "$C" status)" -v so="$(col "$C" solved)" '($(st) == "converged") != ($(so) == "1")' | wc -l)
if [ "$w" -eq 0 ]; then pass "solved is the library's verdict (status converged) on every row"; else fail "solved is the library's verdict" "$w rows differ"; fi
# one timed task at a time (issue 84): with --jobs 2 every timed task of this profile-only
# section ran on the first worker's CPU, the second waiting; workers counts the CPUs the
# section's tasks ran on
ncpu=$(nproc 2>/dev/null || echo 1)
nw=1
TM=$T/o6/same_timing.csv
check_header "$TM" "workers,placement,cpus,min_runs,min_time_s,max_time_s,noise_rows,noise,tie,tie_source,replicates,replicate_cells,replicate_noise_median,replicate_tie,speed_checks,slow_checks,runs_again,runs_kept_slow"
w=$(rows "$TM" | awk -F, '{print $1, $2, $4, $5, $6, ($7 > 0), ($8 != ""), ($8 == $9), $10}')
if [ "$w" = "$nw pinned 5 0 1 1 1 1 noise" ]; then pass "timing CSV: the timed tasks on $nw pinned worker, the repeats rule, the noise, the tie from it"; else fail "timing CSV" "got '$w' (want $nw workers)"; fi
# the speed checks between blocks of timed runs (libexperiment/speed.c): counted in every
# timed task's result and summed in the timing CSV
w=$(rows "$TM" | awk -F, '{print ($15 > 0), ($16 <= $15), ($17 >= 0), ($18 >= 0)}')
n=$(grep -h '^speed [0-9]* [0-9]* [0-9]* [0-9]*$' "$T"/o6/campaign/results/* 2>/dev/null | awk '{s += $2} END {print s + 0}')
c=$(rows "$TM" | cut -d, -f15)
if [ "$w" = "1 1 1 1" ] && [ "$n" = "$c" ]; then pass "timing CSV: the speed checks, the results' sum ($c)"; else fail "timing CSV: speed checks" "'$w', results $n, CSV $c"; fi
tie=$(rows "$TM" | cut -d, -f9)
if grep -q "^# tie_tolerance: $tie " "$W" && grep -q "^# tie_tolerance: $tie (.*the noise" "$C"; then pass "winners header and CSV preamble: the tie tolerance from the noise"; else fail "winners header: the tie tolerance" "no '# tie_tolerance: $tie' in $(grep tie_tolerance "$W")"; fi
n=$(grep -h '^prov placement cpu [0-9]' "$T"/o6/campaign/results/* 2>/dev/null | wc -l)
if [ "$n" -eq 15 ]; then pass "every task's result says the CPU its worker was pinned to"; else fail "results' placement" "$n of 15"; fi
# one worker: the tasks run one at a time, unpinned, and the timing CSV says serial
lcp experiment "$T/same.exp" --out "$T/o7" --jobs 1 --no-plot
w=$(rows "$T/o7/same_timing.csv" | cut -d, -f1,2)
n=$(grep -h '^prov placement serial$' "$T"/o7/campaign/results/* 2>/dev/null | wc -l)
if [ "$rc" -eq 0 ] && [ "$w" = "1,serial" ] && [ "$n" -eq 15 ]; then pass "--jobs 1: serial, said in the results and the timing CSV"; else fail "--jobs 1: serial" "exit $rc, timing '$w', $n of 15 results say serial"; fi
# replicates 2 (issue 65, point 2): the timed set once more after every
# section, in another order; the section's CSV keeps its own 9 rows, the
# pass's 9 are NAME_replicates.csv's (replicate 1); the tie is the noise
# between the two passes (tie_source replicates, tie = replicate_tie, over
# the cells converged in both), and every winners row has the bootstrap
# interval of its wins around them (lo <= fastest <= hi)
sed 's/^experiment profile same$/experiment profile rep/; s/^solvers .*/solvers pgs nsgs lemke/' \
  "$T/same.exp" >"$T/rep.exp"
printf 'replicates 2\n' >>"$T/rep.exp"
lcp experiment "$T/rep.exp" --out "$T/o8" --jobs 2 --no-plot
R=$T/o8/rep_timing.csv
w=$(rows "$R" | awk -F, '{print $10, $11, ($12 > 0), ($9 == $14)}')
nm=$(rows "$T/o8/rep.csv" | wc -l)
nr=$(rows "$T/o8/rep_replicates.csv" | awk -F, -v c="$(col "$T/o8/rep.csv" replicate)" '$(c) == 1' | wc -l)
last=$(grep -v '^#' "$T/o8/campaign/tasks.tsv" | tail -n 9 | grep -c 'rep1$')
if [ "$rc" -eq 0 ] && [ "$w" = "replicates 2 1 1" ] && [ "$nm" -eq 9 ] && [ "$nr" -eq 9 ] && [ "$last" -eq 9 ]; then pass "replicates 2: a second pass, its rows apart, the tie from the noise between passes"; else fail "replicates 2" "exit $rc, timing '$w', rows $nm + $nr, last tasks rep1: $last"; fi
W8=$T/o8/rep_winners.csv
w=$(rows "$W8" | awk -F, -v f="$(col "$W8" fastest)" -v lo="$(col "$W8" fastest_lo)" -v hi="$(col "$W8" fastest_hi)" '!($(lo) <= $(f) && $(f) <= $(hi) && $(lo) != "")' | wc -l)
if [ "$w" -eq 0 ] && grep -q "^# tie_tolerance: .*independent passes" "$W8"; then pass "winners: the wins' bootstrap interval, the tie from the passes"; else fail "winners: bootstrap intervals" "$w rows outside, $(grep tie_tolerance "$W8")"; fi
# refusals (issue 65, point 5): lemke and dantzig take the CSR problem
# (sparse-contact: copied to dense, no longer refused; dantzig's one refusal
# is the unsymmetric u, a property of its method); enum refuses the two
# n = 20, 30 problems, an implementation limit (coverage: limits 2), and
# solves the three n = 2 ones: its profile ends at rho 1 over the 3 it
# accepts and, beside it, rho_all 3/5 with the refusals counted as failures
sed 's/^experiment profile same$/experiment profile lim/; s/^solvers .*/solvers enum lemke dantzig pgs/; s/^min_runs .*/min_runs 1/' \
  "$T/same.exp" >"$T/lim.exp"
printf 'generate spd 20\ngenerate sparse-contact 30\n' >>"$T/lim.exp"
lcp experiment "$T/lim.exp" --out "$T/o9" --jobs 2 --no-plot
V=$T/o9/lim_coverage.csv
w=$(rows "$V" | awk -F, '{print $2, $5, $NF}' | tr '\n' ' ') # limits: the last column
P9=$T/o9/lim_profile.csv
e=$(rows "$P9" | awk -F, -v a="$(col "$P9" rho_all)" -v p="$(col "$P9" problems_all)" '$2 == "enum" {v = $5 " " $(a) " " $7 " " $(p)} END {print v}')
if [ "$rc" -eq 0 ] && [ "$w" = "enum 2 2 lemke 0 0 dantzig 1 0 pgs 0 0 " ] && [ "$e" = "1.000000e+00 6.000000e-01 3 5" ]; then pass "refusals: CSR copied for lemke, dantzig; enum's limit named; rho with refusals as failures"; else fail "refusals: limits and rho_all" "exit $rc, coverage '$w', enum's last profile row '$e'"; fi
# one stopping rule (issue 65, point 1): a peer whose answer is off by
# 100 x the tolerance it is told (x = (1 + 100 tol, 0) on a.dat, whose x is
# (1, 0)) and that always calls itself solved.  With ladder=4 it is told
# 1e-8, 1e-9, ... until the judge accepts (told 1e-10: x off by 1e-8,
# res_scaled under 1e-8): converged, both verdicts 1, peer_tol 1e-10, the
# note says so; the peers table says what it is told ({tol}), its ladder,
# its verdict key and its programs' SHA-256.
# Without a ladder (lad0) it stays unconverged while it says solved: the
# row is in NAME_disagreements.csv and counts as unsolved for off alone;
# a.dat stays in the winners for pgs, which solves it (one problem each,
# pgs 1 solved, off 0)
mkdir -p "$T/lad"
cp "$T/coll/a.dat" "$T/lad/"
cat >"$T/off.sh" <<'SH'
awk -v t="$1" 'BEGIN { printf "%.17g\n0\n", 1 + 100 * t }' >"$2"
echo "solved true"
SH
for L in 4 0; do
  cat >"$T/lad$L.exp" <<EOF5
external off verdict=solved ladder=$L command sh $T/off.sh {tol} {out} {in}
experiment profile lad$L
solvers pgs off
instances $T/lad
tol 1e-8
min_runs 1
min_time 0
max_time 0.1
EOF5
  lcp experiment "$T/lad$L.exp" --out "$T/o10_$L" --jobs 1 --no-plot
done
C10=$T/o10_4/lad4.csv
w=$(rows "$C10" | awk -F, -v st="$(col "$C10" status)" -v rs="$(col "$C10" reported_solved)" -v pt="$(col "$C10" peer_tol)" '$4 == "off" {print $(st), $(rs), $(pt)}')
pe=$(rows "$T/o10_4/lad4_peers.csv" | awk -F, '{print $1, $(NF-3), $(NF-2), $NF, ($4 != "")}')
if [ "$w" = "converged 1 1e-10" ] && grep -q "told tol 1e-10 (ladder; rungs before: tol 1e-08: [^ ]* s unconverged / tol 1e-09: [^ ]* s unconverged)" "$C10" && [ "$pe" = "off {tol} 4 solved 1" ]; then pass "tolerance ladder: told 1e-8 to 1e-10 until the judge accepts, both verdicts"; else fail "tolerance ladder" "off: '$w', peers table '$pe'"; fi
D10=$T/o10_0/lad0_disagreements.csv
w=$(rows "$D10" | cut -d, -f3-7)
p=$(rows "$T/o10_0/lad0_winners.csv" | cut -d, -f3-5 | tr '\n' ' ')
if [ "$w" = "a,off,unconverged,0,1" ] && [ "$p" = "pgs,1,1 off,1,0 " ]; then pass "verdicts that disagree: their own table, unsolved for that solver alone"; else fail "disagreements" "table '$w', winners (solver, problems, solved) '$p'"; fi

# ---- 2. scaling with generated families ------------------------------------------------------
cat >"$T/scal.exp" <<'EOF2'
experiment scaling scal
solvers pgs lemke
generate spd 10 20 40
repeat 1
EOF2
lcp experiment "$T/scal.exp" --out "$T/o2" --no-plot
got=$(header "$T/o2/scal_slopes.csv")
n=$(rows "$T/o2/scal.csv" | wc -l)
s=$(rows "$T/o2/scal_slopes.csv" | awk -F, '$2 == "lemke" {print $3, ($4 != "")}')
if [ "$rc" -eq 0 ] && [ "$n" -eq 6 ] && [ "$got" = "family,solver,points,slope,intercept,r2,slope_lo,slope_hi,class" ] && [ "$s" = "3 1" ]; then
  pass "scaling: rows, slopes CSV with a fit over 3 sizes"
else
  fail "scaling" "exit $rc, $n rows, slopes header '$got', lemke '$s'"
fi
[ -s "$T/o2/generated/spd_40_s1.lcp" ] && pass "generated instances in OUT/generated" || fail "generated instances" "no spd_40_s1.lcp"

# ---- 3. resuming, another configuration, overwriting -----------------------------------------
lcp experiment "$T/all.exp" --out "$T/o1" --no-plot
ntasks=$(grep -vc '^#' "$T/o1/campaign/tasks.tsv")
if [ "$rc" -eq 0 ] && grep -q 'resuming' "$T/err" && grep -q "$ntasks tasks ($ntasks resumed)" "$T/err"; then
  pass "running a finished campaign again resumes: every task skipped"
else
  fail "resume of a finished campaign" "exit $rc"
fi
printf 'experiment profile prof\ninstances p2.dat\nsolvers pgs\n' >"$T/other.exp"
expect_err "another configuration's campaign is refused" "holds a plan of another configuration" experiment "$T/other.exp" --out "$T/o1"
mkdir -p "$T/o5"
: >"$T/o5/prof.csv"
expect_err "outputs without a campaign are refused" "exists" experiment "$T/other.exp" --out "$T/o5"
lcp experiment "$T/all.exp" --out "$T/o1" --force --no-plot
if [ "$rc" -eq 0 ] && ! grep -q 'resuming' "$T/err" && grep -q "$ntasks tasks (0 resumed)" "$T/err"; then pass "--force starts over"; else fail "--force starts over" "exit $rc"; fi

# ---- 4. errors: exit 2, one line naming FILE:LINE and the key -----------------------------
bad() {
  desc=$1
  want=$2
  printf '%s\n' "$3" >"$T/bad.exp"
  expect_err "$desc" "$want" experiment "$T/bad.exp" --out "$T/obad"
  if [ -e "$T/obad/prof.csv" ]; then fail "$desc: nothing written" "prof.csv exists"; fi
}
bad "unknown solver" "bad.exp:3: solvers: unknown solver 'nope'" "experiment profile prof
instances p2.dat
solvers pgs nope"
bad "missing file" "bad.exp:2: instances:" "experiment profile prof
instances missing.dat"
bad "bad key" "bad.exp:2: colour: unknown key" "experiment profile prof
colour red"
bad "a proximal parameter <= 0" "bad.exp:3: option: prox_sigma=0 must be finite and > 0" "experiment profile prof
instances p2.dat
option prox_sigma=0"
bad "an option by an unknown name" "bad.exp:3: option: unknown option 'prox_sgma'" "experiment profile prof
instances p2.dat
option prox_sgma=1"
bad "bad number" "bad.exp:3: tol: expected a finite number > 0, got '1e-8x'" "experiment profile prof
instances p2.dat
tol 1e-8x"
# a tol >= 1 accepts x = 0 (docs/convergence.md, "Loose tolerances"): refused, naming
# its line, unless the section or the file says allow_loose_tol yes
bad "tol >= 1" "bad.exp:3: tol: tol=1 >= 1 accepts x = 0" "experiment profile prof
instances p2.dat
tol 1e-8 1
solvers pgs"
bad "allow_loose_tol no" "bad.exp:4: tol:" "experiment profile prof
instances p2.dat
allow_loose_tol no
tol 2"
bad "allow_loose_tol maybe" "bad.exp:2: allow_loose_tol: expected yes or no, got 'maybe'" "experiment profile prof
allow_loose_tol maybe"
printf 'allow_loose_tol yes\nexperiment profile prof\ninstances %s/p2.dat\nsolvers pgs\ntol 1\nrepeat 1\n' "$T" >"$T/loose.exp"
lcp experiment "$T/loose.exp" --out "$T/oloose" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows "$T/oloose/prof.csv" | wc -l)" -eq 1 ]; then
  pass "allow_loose_tol yes (the file's): tol 1 runs"
else
  fail "allow_loose_tol yes" "exit $rc"
fi
bad "negative repeat" "bad.exp:3: repeat:" "experiment profile prof
instances p2.dat
repeat -1"
bad "unknown kind" "bad.exp:1: experiment: unknown kind 'speed'" "experiment speed"
bad "unknown scene" "bad.exp:2: scene: unknown scene 'pendulum9'" "experiment drift
scene pendulum9 steps=10"
bad "bad scene parameter" "bad.exp:2: scene:" "experiment drift
scene ball radius=-1"
bad "key of another kind" "bad.exp:3: integrators: not a key of a profile experiment" "experiment profile prof
instances p2.dat
integrators verlet"
bad "undefined variable" "bad.exp:2: instances: undefined variable \${NOPE_X}" "experiment profile prof
instances \${NOPE_X}/p.dat"
bad "no problems" "bad.exp:1: experiment: section 'prof' names no problems" "experiment profile prof"
# two seed ranges of 50 (the fuzz finding generate-two-seed-ranges-of-50.exp: they overran
# the 64 seeds' array)
bad "seed ranges over 64 in all" "bad.exp:2: generate seeds: expected A-B with A <= B and at most 64 seeds in all, got '1-50'" "experiment profile prof
generate contact 50 seeds=1-50 seeds=1-50"
expect_err "missing config" "nofile.exp" experiment "$T/nofile.exp"
expect_err "unknown option" "unknown option '--bogus'" experiment "$T/all.exp" --bogus

# a --var fills ${NAME}
printf 'experiment profile prof\ninstances ${HERE}/p2.dat\nsolvers pgs\nrepeat 1\n' >"$T/var.exp"
lcp experiment "$T/var.exp" --out "$T/o4" --var HERE="$T" --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows "$T/o4/prof.csv" | wc -l)" -eq 2 ]; then pass "--var NAME=VALUE"; else fail "--var NAME=VALUE" "exit $rc"; fi

# ---- 5. the world's failure policy and --dump-failures ----------------------------------------
# lemke on the 2-layer pyramid with its pivots cut to 12 (max_pivots: lemke
# solves these steps with its own budget) ends most steps at its pivot
# limit; lemke pivots, so each of them is a failed solve
# (libdynamics/world_judge.c).  The file's policy is stop; section lf sets
# fallback (the world solves such a step again with pgs and applies the best
# candidate), section ls keeps the file's stop, section lb sets best.
cat >"$T/fail.exp" <<'EOF2'
on_failure stop
experiment drift lf
on_failure fallback
fallback_max_iter 200
solvers lemke
max_pivots 12
scene pyramid layers=2 steps=150
integrators symplectic
friction box

experiment drift ls
solvers lemke
max_pivots 12
scene pyramid layers=2 steps=150
friction box

experiment accuracy lb
on_failure best
solvers lemke
max_pivots 12
scene pyramid layers=2 steps=150
friction box
EOF2
lcp experiment "$T/fail.exp" --out "$T/of" --no-plot --jobs 2 --dump-failures "$T/dump"
# fallback: 150 rows; every failed (non-converged) step says what was
# applied, at least one of them pgs's x; none is "failed"
nrows=$(rows "$T/of/lf.csv" | wc -l)
nfailed=$(rows "$T/of/lf.csv" | awk -F, '$13 != "converged"' | wc -l)
nfb=$(rows "$T/of/lf.csv" | awk -F, '$14 == "fallback:pgs"' | wc -l)
badap=$(rows "$T/of/lf.csv" | awk -F, '$14 !~ /^(solver|none|fallback:pgs|warm|zero)$/ || ($13 != "converged" && $15 !~ /^failed solve \(on_failure fallback; fallback pgs: /) || ($13 == "converged" && $14 !~ /^(solver|none)$/)' | wc -l)
if [ "$rc" -eq 0 ] && [ "$nrows" -eq 150 ] && [ "$nfailed" -gt 0 ] && [ "$nfb" -gt 0 ] && [ "$badap" -eq 0 ]; then
  pass "on_failure fallback: 150 rows, $nfailed failed steps each with what was applied ($nfb pgs's x)"
else
  fail "on_failure fallback" "exit $rc, $nrows rows, $nfailed failed, $nfb fallback:pgs, $badap bad applied/note"
fi
# the steps table counts them: applied_other = rows not applying the solver's x
# (applied neither "solver" nor "none", a step without rows),
# and the status columns the rows' statuses
want=$(rows "$T/of/lf.csv" | awk -F, '{ n++; o += $14 != "solver" && $14 != "none"; c += $13 == "converged"; m += $13 == "max_iter" } END { print n, "ran", n - o, o, c, m }')
got=$(grep -v '^#' "$T/of/lf_steps.csv" | awk -F, '$4 == "lemke" { print $5, $7, $8, $9, $10, $11 }')
if [ "$got" = "$want" ]; then pass "steps table counts the failed steps' statuses and what they applied ($got)"; else fail "steps table of lf" "got '$got', rows say '$want'"; fi
# applied_fallback (the last column): the steps pgs's x carried, per solver
fbw=$(grep -v '^#' "$T/of/lf_steps.csv" | awk -F, 'NR == 1 { print $NF; next } $4 == "lemke" { print $NF }' | tr '\n' ' ')
if [ "$fbw" = "applied_fallback $nfb " ]; then pass "steps table: applied_fallback counts the steps the fallback carried ($nfb)"; else fail "steps table: applied_fallback" "got '$fbw', rows say $nfb"; fi
# stop (the file's policy): the run ends at its first failed step with the
# solver's status and applied none; best: no fallback solve
first=$(rows "$T/of/lf.csv" | awk -F, '$13 != "converged" { print $5; exit }')
last=$(rows "$T/of/ls.csv" | awk -F, 'END { print $5, $13, $14 }')
nls=$(rows "$T/of/ls.csv" | wc -l)
fst=$(rows "$T/of/lf.csv" | awk -F, -v k="$first" '$5 == k { print $13 }')
if [ -n "$first" ] && [ "$last" = "$first $fst none" ] && [ "$nls" -eq "$first" ] \
   && grep -q "failure policy stop" "$T/of/ls.csv"; then
  pass "on_failure stop (the file's): the run ends at step $first ($fst), applied none"
else
  fail "on_failure stop" "first failed step '$first' ($fst), ls ends '$last' after $nls rows"
fi
nb=$(rows "$T/of/lb.csv" | awk -F, '$13 != "converged" && $14 ~ /^(solver|warm|zero)$/ && $15 ~ /on_failure best\)/' | wc -l)
nbf=$(rows "$T/of/lb.csv" | awk -F, '$13 != "converged"' | wc -l)
if [ "$(rows "$T/of/lb.csv" | wc -l)" -eq 150 ] && [ "$nbf" -gt 0 ] && [ "$nb" -eq "$nbf" ]; then
  pass "on_failure best (the section's): $nbf failed steps, the best of the solver's x, warm, zero"
else
  fail "on_failure best" "$nb of $nbf failed steps applied a plain candidate"
fi
# --dump-failures: every failed step, and only those, has its files and a
# line in failures.csv, with the row's status and applied
dumps_ok=1
for sec in lf ls lb; do
  d=$(ls -d "$T/dump/$sec"/t*_pyramid_lemke_symplectic_box 2>/dev/null)
  [ -n "$d" ] && [ -f "$d/failures.csv" ] || { dumps_ok=0; continue; }
  w=$(rows "$T/of/$sec.csv" | awk -F, '$13 != "converged" { print $5, $13, $14 }')
  g=$(tail -n +2 "$d/failures.csv" | awk -F, '{ print $1, $3, $7 }')
  [ "$w" = "$g" ] || dumps_ok=0
  for k in $(tail -n +2 "$d/failures.csv" | cut -d, -f1); do
    [ -f "$d/step$k.lcp" ] && [ -f "$d/step$k.warm" ] && [ -f "$d/step$k.x" ] || dumps_ok=0
  done
  [ "$(ls "$d" | grep -c '\.lcp$')" -eq "$(($(wc -l <"$d/failures.csv") - 1))" ] || dumps_ok=0
done
if [ "$dumps_ok" -eq 1 ]; then pass "--dump-failures: each failed step of each section dumped and listed"; else fail "--dump-failures" "dumps and failures.csv do not match the rows"; fi
# lcplab solve repeats each dumped step bit for bit: status and res_nat_inf
# (%.17g) as failures.csv recorded them, and the CSV's %.6e is that number
d=$(ls -d "$T/dump/lf"/t*_pyramid_lemke_symplectic_box 2>/dev/null)
nrep=0
for k in $(tail -n +2 "$d/failures.csv" | cut -d, -f1 | head -n 4); do
  lcp solve "$d/step$k.lcp" --warm "$d/step$k.warm"
  got=$(sed -n 's/.*"status":"\([a-z_]*\)".*"res_nat_inf":\([^,]*\),.*/\1 \2/p' "$T/out")
  want=$(awk -F, -v k="$k" '$1 == k { print $3, $5 }' "$d/failures.csv")
  csv=$(rows "$T/of/lf.csv" | awk -F, -v k="$k" '$5 == k { print $13, $12 }')
  six=$(printf '%s %.6e' "${want%% *}" "${want#* }")
  if { [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ]; } && [ -n "$want" ] && [ "$got" = "$want" ] && [ "$csv" = "$six" ] \
     && grep -q '"options_from_file":\["solver","max_iter","tol"' "$T/out"; then
    nrep=$((nrep + 1))
  else
    fail "dumped step $k repeated by lcplab solve" "exit $rc, solve '$got', dump '$want', CSV '$csv'"
  fi
done
if [ "$nrep" -ge 1 ]; then pass "lcplab solve repeats $nrep dumped steps bit for bit (status, res_nat_inf)"; fi
# lcplab task --dump-failures writes the same files
lcp experiment "$T/fail.exp" --plan "$T/pf"
lcp task "$T/pf" 0 --dump-failures "$T/dump2"
d2=$(ls -d "$T/dump2/lf"/t*_pyramid_lemke_symplectic_box 2>/dev/null)
if [ "$rc" -eq 0 ] && [ -n "$d2" ] && diff -r "$d" "$d2" >/dev/null; then
  pass "lcplab task --dump-failures: the same dump as the experiment's"
else
  fail "lcplab task --dump-failures" "exit $rc, dump '$d2' differs from '$d'"
fi
bad "unknown failure policy" "bad.exp:2: on_failure: expected fallback, best, keep or stop, got 'retry'" "experiment drift
on_failure retry
scene ball steps=3"
bad "unknown fallback solver" "bad.exp:1: fallback_solver: unknown solver 'nope'" "fallback_solver nope
experiment drift
scene ball steps=3"
bad "failure policy in a problem section" "bad.exp:3: on_failure: not a key of a profile experiment" "experiment profile prof
instances p2.dat
on_failure stop"
: >"$T/dumpfile"
expect_err "--dump-failures on a file" "not a folder" experiment "$T/all.exp" --out "$T/odf" --dump-failures "$T/dumpfile"
# --max-memory reaches the readers: p2.dat (a few bytes) passes 1K, not 16 bytes
printf 'experiment profile prof\ninstances p2.dat\nsolvers lemke\nrepeat 1\n' >"$T/mm.exp"
expect_err "--max-memory refuses a file over the cap" "mm.exp:2: instances:" experiment "$T/mm.exp" --out "$T/omm" --max-memory 16 --no-plot
lcp experiment "$T/mm.exp" --out "$T/omm2" --max-memory 1K --no-plot
if [ "$rc" -eq 0 ] && [ "$(rows "$T/omm2/prof.csv" | awk -F, '$6 == "converged"' | wc -l)" -eq 2 ]; then
  pass "--max-memory 1K: the small file is read and solved (both tolerances)"
else
  fail "--max-memory 1K" "exit $rc"
fi
lcp task "$T/omm2/campaign" 0 --force --max-memory 16
if [ "$rc" -eq 3 ] && grep -q 'max_memory' "$T/omm2/campaign/results/t000000.res"; then
  pass "lcplab task --max-memory: over the cap, the task records the reader's error (exit 3)"
else
  fail "lcplab task --max-memory" "exit $rc"
fi

# ---- {repeat}: an external that times its own solves (the benchmarks' peers,
#      experiments/bench_*.exp): a probe process of one solve, then one process of
#      R = max(min_runs, ceil(min_time / t1)) = max(3, ceil(0.2 / 0.001)) = 200 solves
#      (exp_repeat_count); the row counts 200 runs of the reported time
cat >"$T/rep.sh" <<'EOF4'
# rep.sh OUT REPEAT LOG: writes p2.dat's solution x = (1, 0), logs REPEAT, reports 1 ms
echo "$2" >>"$3"
printf '1\n0\n' >"$1"
echo '"time_s": 0.001'
EOF4
cat >"$T/rep.exp" <<'EOF4'
external rep time=time_s command sh ${REP} {out} {repeat} ${LOG} {in}
experiment profile rep
solvers rep
instances p2.dat
tol 1e-8
min_runs 3
min_time 0.2
max_time 3
EOF4
lcp experiment "$T/rep.exp" --out "$T/orep" --no-plot --var REP="$T/rep.sh" --var LOG="$T/rep.log"
got=$(rows "$T/orep/rep.csv" | cut -d, -f6,9,11,22)
if [ "$rc" -eq 0 ] && [ "$(tr '\n' ' ' <"$T/rep.log")" = "1 200 " ] &&
  [ "$got" = "converged,1.000000e-03,200,reported" ]; then
  pass "{repeat}: a probe of 1 solve, then one process of 200, counted as 200 runs"
else
  fail "{repeat}: probe, then one process of 200" "exit $rc; log: $(cat "$T/rep.log"); row: $got"
fi
bad "{repeat} without time=" "bad.exp:1: external: rep: {repeat} needs time=KEY" "external rep command sh x {out} {repeat} {in}
experiment profile prof
instances p2.dat
solvers rep"

# ---- NAME_tex.csv: every text of the section, escaped once by the library
#      (paper/gen.py quotes from it and escapes nothing itself)
cp "$T/p2.dat" "$T/p_2.dat"
printf 'experiment profile prof\ninstances p_2.dat\nsolvers pgs_wide\ntol 1e-4\nrepeat 1\n' >"$T/tx.exp"
lcp experiment "$T/tx.exp" --out "$T/otx" --no-plot
if [ "$rc" -eq 0 ] && grep -qxF 'p_2,p\_2' "$T/otx/prof_tex.csv" &&
  grep -qxF 'pgs_wide,pgs\_wide' "$T/otx/prof_tex.csv" &&
  grep -qF 'max_iter: 10000,0.0001  max\_iter: 10000' "$T/otx/prof_tex.csv" &&
  ! grep -q '^0.0001,' "$T/otx/prof_tex.csv"; then
  pass "prof_tex.csv: labels, solvers and preamble values with their LaTeX form, no numbers"
else
  fail "prof_tex.csv" "exit $rc; $(head -n 5 "$T/otx/prof_tex.csv" 2>&1)"
fi

# ---- one tie factor, rounded once: the factor the tables print (1 + tie, %g) is the one a
#      reader computes from the tie_tolerance they print; 0.1921354999 gave "within a factor
#      1.19214" beside "tie_tolerance: 0.192135" (1 + 0.192135 prints 1.19213), and gen.py
#      stated both in one paper
printf 'experiment profile prof\ninstances p2.dat\nsolvers pgs_wide\ntol 1e-4\nrepeat 1\ntie 0.1921354999\n' >"$T/tie.exp"
lcp experiment "$T/tie.exp" --out "$T/otie" --no-plot
tie=$(sed -n 's/^# tie_tolerance: \([^ ]*\) .*/\1/p' "$T/otie/prof_winners.csv")
said=$(sed -n 's/.*fastest: alone within a factor \([0-9.]*\) of the best.*/\1/p' "$T/otie/prof_winners.csv")
said_csv=$(sed -n 's/^# tie_tolerance: .*within a factor \([0-9.]*\) of the best.*/\1/p' "$T/otie/prof.csv")
want=$(awk -v t="$tie" 'BEGIN { printf "%g", 1 + t }')
if [ "$rc" -eq 0 ] && [ -n "$tie" ] && [ "$said" = "$want" ] && [ "$said_csv" = "$want" ]; then
  pass "one tie factor: the tables' 1 + tie is the one computed from the tie they print ($want)"
else
  fail "one tie factor" "exit $rc; tie_tolerance '$tie', winners say '$said', prof.csv '$said_csv', 1 + tie is '$want'"
fi

# ---- world settings on scene lines: the one parser (dyn_world_settings_set), applied to the runs
cat >"$T/ws.exp" <<'EOF5'
experiment drift wsd
solvers pgs
scene stack n=2 steps=4 dt=1/240 max_iter=2 friction=box
experiment profile wsp
solvers pgs
scene stack n=2 steps=4 friction=box margin=0
EOF5
lcp experiment "$T/ws.exp" --out "$T/ows" --no-plot
t1=$(rows "$T/ows/wsd.csv" | awk -F, '$5 == 1 { print $6 }')
itmax=$(rows "$T/ows/wsd.csv" | awk -F, 'NF > 10 && $11 > m { m = $11 } END { print m + 0 }')
if [ "$rc" -eq 0 ] && [ "$t1" = "4.166667e-03" ] && [ "$itmax" -le 2 ] && [ "$itmax" -ge 1 ]; then
  pass "scene dt=1/240 max_iter=2: step 1 at t = 1/240, at most 2 sweeps a step"
else
  fail "scene line world settings" "exit $rc; t1 '$t1', iterations max '$itmax'"
fi
if rows "$T/ows/wsp.csv" | cut -d, -f1 | grep -q -- '-margin=0$'; then
  pass "a scene exported with margin=0 is its own problem (label ...-margin=0)"
else
  fail "scene export with a setting" "$(rows "$T/ows/wsp.csv" | cut -d, -f1 | head -n 2)"
fi
bad "bad world setting on a scene line" "bad.exp:2: scene margin: must be a finite number >= 0, got '-1'" "experiment drift
scene ball steps=3 margin=-1"
bad "bad enum setting on a scene line" "bad.exp:2: scene contact_order: must be one of broadphase, top-down, got 'upward'" "experiment drift
scene ball steps=3 contact_order=upward"
bad "integrator on a drift scene line" "bad.exp:2: scene integrator: the section's \`integrators\` key" "experiment drift
scene ball steps=3 integrator=verlet"

# ---- scenes sections and scene peers: a fake peer (a tiny script) prints a summary line in
#      peer_scene's fields and logs the values it was given; lcplab's own run of the same line
#      gives the same columns (libdynamics/world_summary.c)
cat >"$T/speer.sh" <<'EOF6'
# speer.sh LOG SCENE STEPS DT MAX_ITER FRICTION PARAMS...: logs its arguments, one a line
log=$1
shift
for a in "$@"; do printf '%s\n' "$a" >>"$log"; done
echo "peer log line"
echo '{"engine":"fake","params":{"steps":1},"steps":'"$2"',"time_step_median_s":0.002,"time_step_mean_s":0.003,"contacts_mean_timed":8,"contacts_max":9,"max_penetration":0.001,"energy_start":10,"energy_end":9,"max_body_displacement":0.01}'
EOF6
cat >"$T/sc.exp" <<'EOF6'
external fake kind=scene command sh ${SPEER} ${SLOG} {scene} {steps} {dt} {max_iter} {friction} {params}
external broken kind=scene command sh ${SPEER} ${SLOG} {scene} {steps} {dt} {max_iter} {friction} {params} ; exit 4
external silent kind=scene command true {scene}
experiment scenes sc
solvers pgs fake broken silent
max_iter 7
scene stack n=2 steps=6 dt=1/240
scene stack n=3 steps=6 dt=1/240
EOF6
lcp experiment "$T/sc.exp" --out "$T/osc" --no-plot --jobs 1 --var SPEER="$T/speer.sh" --var "SLOG=$T/s log \$(touch INJ)"
check_header "$T/osc/sc.csv" "scene,params,settings,solver,friction,steps,contacts_mean_timed,contacts_max,time_step_median_s,time_step_mean_s,time_per_contact_s,energy_start,energy_end,energy_drift,max_penetration_end,max_body_displacement,max_settled_displacement,not_converged,fallback_steps,status,note,joint_error_max"
got=$(rows "$T/osc/sc.csv" | awk -F, '$4 == "fake" && $2 == "n=2" { print $6, $7, $9, $11, $14, $17, $20 }')
# its drift is the one definition (docs/dynamics.md, "Energy drift") with the scene's scale:
# (9 - 10) / S, S = max(|10|, M |g| D) = 2 * 8 kg * 9.81 * 0.201 m = 31.54896 J for two cubes
# of side 0.2 m (density 1000) 1 mm apart: -0.03169677 (not (9 - 10) / |10| = -0.1)
if [ "$rc" -eq 3 ] && [ "$got" = "6 8.000000e+00 2.000000e-03 2.500000e-04 -3.169677e-02  ok" ]; then
  pass "a scene peer's summary line is its row (time per contact 2.5e-4, drift -1/31.549, no settled displacement)"
else
  fail "scene peer row" "exit $rc; got '$got'"
fi
# the values the peer was given, one a line: stack, 6 steps, dt, max_iter 7, auto, --n 2
if [ "$(head -n 7 "$T/s log \$(touch INJ)" 2>/dev/null | tr '\n' ' ')" = "stack 6 0.0041666666666666666 7 auto --n 2 " ] && [ ! -e INJ ] && [ ! -e "$T/INJ" ]; then
  pass "a scene peer gets scene, steps, dt, max_iter, friction and --KEY VALUE; no value parsed by the shell"
else
  fail "scene peer arguments" "$(head -n 7 "$T/s log \$(touch INJ)" 2>&1 | tr '\n' ' ')"
fi
got=$(rows "$T/osc/sc.csv" | awk -F, '$4 == "pgs" && $2 == "n=2" { print $5, $6, ($9 > 0), $20, ($12 == $13 ? "same" : "moved") }')
if [ "$got" = "box 6 1 ok moved" ]; then
  pass "lcplab's own run of the line: a summary row with the same columns"
else
  fail "lcplab's summary row" "got '$got'"
fi
b=$(rows "$T/osc/sc.csv" | awk -F, '$4 == "broken" && $2 == "n=2" { print $20 }')
si=$(rows "$T/osc/sc.csv" | awk -F, '$4 == "silent" && $2 == "n=2" { print $20 "|" $21 }')
if [ "$b" = "failed" ] && [ "$si" = "failed|no summary line (a JSON object) on its standard output" ]; then
  pass "a peer that exits 4 or prints no summary: row failed with the reason, exit 3"
else
  fail "failed scene peers" "broken '$b', silent '$si'"
fi
if grep -qx 'stack,dt=1/240,pgs,2,.*' "$T/osc/sc_slopes.csv" && grep -q '^stack,dt=1/240,fake,2,' "$T/osc/sc_slopes.csv"; then
  pass "sc_slopes.csv: the fit of step time on contacts per solver, over the two sizes"
else
  fail "sc_slopes.csv" "$(grep -v '^#' "$T/osc/sc_slopes.csv" 2>&1 | head -n 4)"
fi
if command -v gnuplot >/dev/null 2>&1; then
  lcp figure scenes "$T/osc/sc.csv" --out "$T/oscfig" --scripts "$SRC/experiments"
  if [ "$rc" -eq 0 ] && [ -s "$T/oscfig.pdf" ] && [ -s "$T/oscfig.png" ]; then
    pass "exp_scenes.gp draws a scenes section"
  else
    fail "exp_scenes.gp" "exit $rc"
  fi
fi
bad "a scene peer without {scene}" "bad.exp:1: external: a scene peer's command must name {scene}" "external p kind=scene command true {steps}
experiment scenes s
scene ball steps=2"
bad "a scene peer in a profile section" "bad.exp:4: solvers: 'p' is a scene peer (kind=scene)" "external p kind=scene command true {scene}
experiment profile prof
instances p2.dat
solvers p"
bad "a problem external in a scenes section" "bad.exp:4: solvers: external solver 'x' takes problems, not scenes" "external x command true {in} {out}
experiment scenes s
scene ball steps=2
solvers x"
bad "{params} inside double quotes" "bad.exp:1: external: p: {params} inside double quotes" "external p kind=scene command echo \"{params}\" {scene}
experiment scenes s
scene ball steps=2"

# ---- a global problem: the engine condenses it again inside each timed run
# (experiments/README.md, "Tasks, timing and statuses") and solves that copy as
# `lcplab solve` solves the file: the same status, iterations and x (x_digest
# against the digest of lcplab solve's x).  On Spheres-i099 ppa_nsn stops on
# the global test's per-contact clause; a copy that lost the flag (the first
# version) converged in 8 iterations where lcplab solve stagnates in 24.
sph="${LCPLAB_SHARED:-$SRC/../shared}/datasets/siconos/gfc3d/Spheres-i099-356-679.hdf5"
if [ -f "$sph" ]; then
  cat >"$T/glob.exp" <<EXP
experiment profile glob
solvers ppa_nsn nsgs_newton
classes fc3d
instances $sph
tol 1e-8
max_iter 1000
min_runs 1
EXP
  lcp experiment "$T/glob.exp" --out "$T/oglob" --jobs 1 --no-plot
  for sv in ppa_nsn nsgs_newton; do
    row=$(rows "$T/oglob/glob.csv" | awk -F, -v s="$sv" '$4 == s { print $6 "," $7 "," $29 }')
    "$BIN" solve "$sph" --solver "$sv" --tol 1e-8 --max-iter 1000 --solution "$T/glob_$sv.x" \
      >"$T/glob_$sv.json" 2>/dev/null
    want=$(/usr/bin/env python3 - "$T/glob_$sv.json" "$T/glob_$sv.x" <<'PY' 2>/dev/null
import json, struct, sys
d = json.load(open(sys.argv[1]))
xs = [float(l) for l in open(sys.argv[2]) if l.strip()]
h = 0xcbf29ce484222325
for b in struct.pack('<%dd' % len(xs), *xs):
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print('%s,%d,%016x' % (d['status'], d['iterations'], h))
PY
)
    if [ -n "$row" ] && [ "$row" = "$want" ]; then
      pass "global problem in the engine as lcplab solve: $sv $row"
    else
      fail "global problem in the engine as lcplab solve: $sv" "engine '$row', lcplab solve '$want'"
    fi
  done
else
  echo "SKIP: $sph not found (LCPLAB_SHARED)"
fi

# the failure policy's energy judgements in a drift run's rows (docs/dynamics.md, "Judging
# a failed solve"): pjacobi cut to 10 iterations on the pendulum (box) budget-stops every
# step; the per-step energy bound (issue 80) fails those whose impulses add kinetic energy
# beyond the stabilisation's work (step 8 the first), direct carries them and the row says
# why ("energy bound"), so the run's excess never reaches the run-level rule's scale (its
# step 707 before the bound); pgs's budget stops never trip the run-level rule; the
# preamble names both (paper/gen.py says it from there).  (apgd at 50 iterations served
# here until apgd and admm took their steps in the metric diag(A), issue 62.)
printf 'experiment drift er\nsolvers pjacobi pgs\nscene pendulum steps=710\nfriction box\nmax_iter 10\n' >"$T/er.exp"
lcp experiment "$T/er.exp" --out "$T/oer" --no-plot
er=$(grep -v '^#' "$T/oer/er.csv" 2>/dev/null | grep '^pendulum,pjacobi,' | grep -c ',failed solve (energy bound; on_failure fallback; fallback direct')
ea=$(grep -v '^#' "$T/oer/er.csv" 2>/dev/null | grep -c '^pendulum,pjacobi,symplectic,box,8,.*failed solve (energy bound')
ep=$(grep -v '^#' "$T/oer/er.csv" 2>/dev/null | grep '^pendulum,pgs,' | grep -c 'energy rule')
if [ "$rc" -eq 0 ] && [ "$er" -ge 1 ] && [ "$ea" -eq 1 ] && [ "$ep" -eq 0 ] &&
  grep -q '^# on_failure: .*energy rule: a budget stop.*energy bound: ' "$T/oer/er.csv"; then
  pass "drift rows name the energy bound: pjacobi's step 8 on carried by direct ($er rows), pgs no rule"
else
  fail "energy judgements in the drift rows" "exit $rc, $er rows, pjacobi step 8: $ea, pgs: $ep"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
