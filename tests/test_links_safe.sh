#!/bin/sh
# test_links_safe.sh -- nothing outside a folder is removed or written
# through a link planted in it, and no output replaces an input (issue 86,
# items 1-3; experiments/CAMPAIGNS.md, "What lcplab owns in a folder";
# docs/usage.md, "Outputs"):
#   1. --force removes the recorded files through one function that never
#      follows a link out of the folder (libexperiment/beneath.c): a
#      recorded 'lnk/victim.txt' where lnk is a link to another folder is
#      left alone, through --plan P --force, through --out OO --force
#      (OO/campaign/.lcplab-owned and OO/.lcplab-owned alike, with '..' and
#      absolute entries), a link in a middle component (sub/lnk/...), a
#      results/ folder that is a link, and a link swapped in and out while
#      --force runs; a recorded link is removed, never what it points to;
#   2. an output that is an input is refused with exit 2 naming both, also
#      with --force (libexperiment/inputs.c): simulate --csv, --trace and
#      --save-model onto the model file, a file it includes, its mesh (in
#      its meshdir), by a symlink, a hard link or a folder link; export
#      --out where a step file is a hard link to an input; solve
#      --solution onto a problem's MatrixMarket sidecar; an experiment
#      whose section's output is its own experiment file;
#   3. the files lcplab creates in a folder others may write (the lock's
#      own file, a task's temporary result, a dump's failures.csv) are
#      created new (O_EXCL | O_NOFOLLOW): a link or hard link planted at
#      their name is never written through, and the next run works too; a
#      plan's results/ that is a link is not written through either;
#   4. a folder lcplab makes or enters inside an output, plan or dump folder
#      (OO/campaign, OO/generated, P/results, P/slurm, DUMP/SECTION,
#      P/scratch) that somebody made a link to a folder elsewhere is
#      refused, the message naming it a symbolic link, nothing written
#      through it (exp_beneath_mkdir, libexperiment/beneath.c); a task's
#      scratch folder is removed from the plan folder's descriptor, so a
#      scratch/ swapped for a link while the solver runs leads nowhere.
#
# Environment: LCPLAB_BIN (required, else SKIP).  Exit: 0 all passed, 1 any
# failure, 77 skipped.

TST_NAME=test_links_safe
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
export OPENBLAS_NUM_THREADS=1
GNUPLOT=/nonexistent/gnuplot
export GNUPLOT

mkdir -p "$T/inst" "$T/away"
write_p2 "$T/inst/p2.dat"
cat >"$T/one.exp" <<EOF
experiment profile pa
solvers pgs
instances inst/p2.dat
min_runs 1
min_time 0
EOF
# victim: a file outside every folder lcplab writes in
victim() { echo "the user's" >"$T/away/victim.txt"; }
victim_ok() { [ -f "$T/away/victim.txt" ] && [ "$(cat "$T/away/victim.txt")" = "the user's" ]; }

# ---- 1. --force never removes through a link ---------------------------------------------------
# plant DIR ENTRY: a recorded ENTRY in DIR/.lcplab-owned
plant() { echo "$2" >>"$1/.lcplab-owned"; }

lcp experiment "$T/one.exp" --plan "$T/P"
victim
ln -s "$T/away" "$T/P/lnk"
plant "$T/P" lnk/victim.txt
lcp experiment "$T/one.exp" --plan "$T/P" --force
if [ "$rc" -eq 0 ] && victim_ok && [ -L "$T/P/lnk" ]; then
  pass "--plan P --force leaves P/lnk/victim.txt (lnk a link out of P) alone"
else
  fail "--plan --force through a link" "exit $rc; victim: $(ls "$T/away")"
fi

# a link in a middle component: P/sub is a folder, P/sub/lnk a link out
victim
mkdir -p "$T/P/sub"
ln -s "$T/away" "$T/P/sub/lnk"
plant "$T/P" sub/lnk/victim.txt
lcp experiment "$T/one.exp" --plan "$T/P" --force
if [ "$rc" -eq 0 ] && victim_ok; then
  pass "--plan P --force leaves P/sub/lnk/victim.txt (a link in a middle component) alone"
else
  fail "--plan --force through a middle link" "exit $rc; victim: $(ls "$T/away")"
fi

# a recorded link is removed, never what it points to
victim
ln -s "$T/away/victim.txt" "$T/P/vl"
plant "$T/P" vl
lcp experiment "$T/one.exp" --plan "$T/P" --force
if [ "$rc" -eq 0 ] && victim_ok && [ ! -e "$T/P/vl" ] && [ ! -L "$T/P/vl" ]; then
  pass "--plan P --force removes the recorded link P/vl, not the file it points to"
else
  fail "a recorded link" "exit $rc; $(ls -l "$T/P/vl" 2>&1)"
fi

# P/results a link to a folder holding a result file of lcplab's
mkdir -p "$T/away/res"
lcp experiment "$T/one.exp" --plan "$T/P" --force
lcp task "$T/P" 0
cp "$T/P/results/t000000.res" "$T/away/res/t000000.res"
rm -rf "$T/P/results"
ln -s "$T/away/res" "$T/P/results"
lcp experiment "$T/one.exp" --plan "$T/P" --force
if [ -f "$T/away/res/t000000.res" ]; then
  pass "--plan P --force with P/results a link: the result file it points to stays"
else
  fail "results/ a link" "exit $rc; away/res: $(ls "$T/away/res")"
fi
rm -f "$T/P/results"

# --out OO: OO/campaign/.lcplab-owned and OO/.lcplab-owned alike
lcp experiment "$T/one.exp" --out "$T/OO" --jobs 1
victim
ln -s "$T/away" "$T/OO/campaign/lnk"
plant "$T/OO/campaign" lnk/victim.txt
lcp experiment "$T/one.exp" --out "$T/OO" --jobs 1 --force
if [ "$rc" -eq 0 ] && victim_ok; then
  pass "--out OO --force leaves OO/campaign/lnk/victim.txt alone"
else
  fail "--out --force through OO/campaign/lnk" "exit $rc; victim: $(ls "$T/away")"
fi
victim
ln -s "$T/away" "$T/OO/lnk"
plant "$T/OO" lnk/victim.txt
plant "$T/OO" ../away/victim.txt
plant "$T/OO" "$T/away/victim.txt"
lcp experiment "$T/one.exp" --out "$T/OO" --jobs 1 --force
if [ "$rc" -eq 0 ] && victim_ok; then
  pass "--out OO --force leaves OO/lnk/victim.txt, ../ and absolute entries alone"
else
  fail "--out --force through OO/lnk" "exit $rc; victim: $(ls "$T/away")"
fi

# ---- 3. files created in a folder others may write: never through a planted link ------------------
host=$(hostname)
# the lock's own file, .lcplab-lock.HOST.PID: the shell's pid is lcplab's after exec
victim
mkdir -p "$T/ol"
sh -c 'ln -s "$1/away/victim.txt" "$1/ol/.lcplab-lock.$2.$$"; exec "$3" experiment "$1/one.exp" --out "$1/ol" --jobs 1 --force >"$1/out" 2>"$1/err"' \
  - "$T" "$host" "$BIN"
rc=$?
if victim_ok; then
  pass "experiment --out ol: a link planted at the lock's own file is not written through (exit $rc)"
else
  fail "the lock through a link" "exit $rc; victim now: $(head -c 80 "$T/away/victim.txt")"
fi
sh -c 'ln -s "$1/away/victim.txt" "$1/ol/.lcplab-lock.$2.$$"; exec "$3" experiment "$1/one.exp" --out "$1/ol" --jobs 1 --force >"$1/out" 2>"$1/err"' \
  - "$T" "$host" "$BIN"
rc=$?
if [ "$rc" -eq 0 ] && victim_ok; then
  pass "experiment --out ol runs again with a link planted at the lock's own file"
else
  fail "the lock again" "exit $rc"
fi
# a hard link planted there (the same file system)
victim
sh -c 'ln "$1/away/victim.txt" "$1/ol/.lcplab-lock.$2.$$"; exec "$3" experiment "$1/one.exp" --out "$1/ol" --jobs 1 --force >"$1/out" 2>"$1/err"' \
  - "$T" "$host" "$BIN"
rc=$?
if [ "$rc" -eq 0 ] && victim_ok; then
  pass "experiment --out ol: a hard link planted at the lock's own file keeps its content"
else
  fail "the lock through a hard link" "exit $rc; victim now: $(head -c 80 "$T/away/victim.txt")"
fi

# a task's temporary result, results/.t000000.res.tmp.PID.TID (one thread: TID = PID)
lcp experiment "$T/one.exp" --plan "$T/PT"
victim
sh -c 'ln -s "$1/away/victim.txt" "$1/PT/results/.t000000.res.tmp.$$.$$"; exec "$2" task "$1/PT" 0 >"$1/out" 2>"$1/err"' \
  - "$T" "$BIN"
rc=$?
if [ "$rc" -eq 0 ] && victim_ok && grep -q '^lcplab-result' "$T/PT/results/t000000.res"; then
  pass "lcplab task: a link planted at its temporary result file is not written through"
else
  fail "the result through a link" "exit $rc; victim now: $(head -c 80 "$T/away/victim.txt")"
fi
victim
rm -f "$T/PT/results/t000000.res"
sh -c 'ln "$1/away/victim.txt" "$1/PT/results/.t000000.res.tmp.$$.$$"; exec "$2" task "$1/PT" 0 >"$1/out" 2>"$1/err"' \
  - "$T" "$BIN"
rc=$?
if [ "$rc" -eq 0 ] && victim_ok && grep -q '^lcplab-result' "$T/PT/results/t000000.res"; then
  pass "lcplab task: a hard link planted at its temporary result keeps its content"
else
  fail "the result through a hard link" "exit $rc; victim now: $(head -c 80 "$T/away/victim.txt")"
fi

# PT/results a link to another folder: the task's result is not written there
mv "$T/PT/results" "$T/PT/results.0"
mkdir -p "$T/away/rl"
echo "the user's" >"$T/away/rl/t000000.res"
ln -s "$T/away/rl" "$T/PT/results"
lcp task "$T/PT" 0
if [ "$rc" -ne 0 ] && [ "$(cat "$T/away/rl/t000000.res")" = "the user's" ] && \
   [ "$(ls -A "$T/away/rl")" = t000000.res ] && grep -q "results.*symbolic link" "$T/err"; then
  pass "lcplab task with PT/results a link out: nothing written through it (exit $rc)"
else
  fail "results/ a link, the task's writing" "exit $rc; $(ls -A "$T/away/rl" | tr '\n' ' '); $(cat "$T/err")"
fi
rm -f "$T/PT/results"
mv "$T/PT/results.0" "$T/PT/results"

# a dump's index, DUMP/SECTION/tNNNNNN_.../failures.csv (lemke on the
# 2-layer pyramid has failed steps: tests/test_campaign.sh, 5b)
printf 'experiment drift lf\nsolvers lemke\nmax_pivots 12\nscene pyramid layers=2 steps=120\nfriction box\n' >"$T/pd.exp"
lcp experiment "$T/pd.exp" --plan "$T/pd" --dump-failures "$T/pdump"
d="$T/pdump/lf/t000000_pyramid_lemke_symplectic_box"
mkdir -p "$d"
victim
ln -s "$T/away/victim.txt" "$d/failures.csv"
ln "$T/away/victim.txt" "$d/.failures.csv.new"
lcp task "$T/pd" 0
if [ "$rc" -eq 0 ] && victim_ok && [ ! -L "$d/failures.csv" ] && head -n 1 "$d/failures.csv" | grep -q '^step,solver'; then
  pass "lcplab task --dump-failures: links planted at failures.csv (and its new name) are not written through"
else
  fail "the dump's index through a link" "exit $rc; victim now: $(head -c 80 "$T/away/victim.txt")"
fi

# a link planted while --force runs: P/sub flips between a folder and a link
# out of P (the removal's walk never looks a path up twice)
lcp experiment "$T/one.exp" --plan "$T/PR"
victim
plant "$T/PR" sub/victim.txt
( k=0
  while [ ! -e "$T/stop" ] && [ "$k" -lt 20000 ]; do
    mkdir "$T/PR/sub" 2>/dev/null; rmdir "$T/PR/sub" 2>/dev/null
    ln -s "$T/away" "$T/PR/sub" 2>/dev/null; rm -f "$T/PR/sub"
    k=$((k + 1))
  done ) &
flipper=$!
runs=8
if [ -n "$VG" ]; then runs=3; fi # each run is seconds under memcheck
i=0
while [ "$i" -lt "$runs" ]; do
  i=$((i + 1))
  plant "$T/PR" sub/victim.txt
  lcp experiment "$T/one.exp" --plan "$T/PR" --force
done
: >"$T/stop"
wait "$flipper"
if victim_ok; then
  pass "--plan PR --force $runs times while PR/sub flips between a folder and a link out: the victim stays"
else
  fail "a link planted between check and removal" "victim: $(ls "$T/away")"
fi

# ---- 4. a folder lcplab makes inside an output, plan or dump folder is never a planted link -----
# link_refused DESC: exit 2, a message naming the link as a symbolic link, nothing in away/DIR
# (DIR the victim folder the link points to)
link_refused() {
  if [ "$rc" -eq 2 ] && grep -qF "$2" "$T/err" && grep -q "symbolic link" "$T/err" && \
     [ -z "$(ls -A "$T/away/$3")" ]; then
    pass "$1 (exit 2)"
  else
    fail "$1" "exit $rc; victim $3: $(ls -A "$T/away/$3" | tr '\n' ' '); $(head -c 300 "$T/err")"
  fi
}
# OO/campaign and OO/generated, planted before the first run (and with --force)
for sub in campaign generated; do
  mkdir -p "$T/L$sub" "$T/away/$sub"
  ln -s "$T/away/$sub" "$T/L$sub/$sub"
  lcp experiment "$T/one.exp" --out "$T/L$sub" --jobs 1 --force
  link_refused "experiment --out OO with OO/$sub a link out: refused, nothing written through" \
    "L$sub/$sub" "$sub"
done
# a plan's P/results, P/slurm made a link, then --plan P --force
for sub in results slurm; do
  mkdir -p "$T/away/m$sub"
  lcp experiment "$T/one.exp" --plan "$T/M$sub"
  rm -rf "${T:?}/M$sub/$sub"
  ln -s "$T/away/m$sub" "$T/M$sub/$sub"
  lcp experiment "$T/one.exp" --plan "$T/M$sub" --force
  link_refused "experiment --plan P --force with P/$sub a link out: refused" "M$sub/$sub" "m$sub"
done
# DUMP/SECTION a link: the task's dump is not written through it (the task
# fails, exit 3, the reason in its result)
mkdir -p "$T/away/dd" "$T/ddump"
lcp experiment "$T/pd.exp" --plan "$T/pdd" --dump-failures "$T/ddump"
ln -s "$T/away/dd" "$T/ddump/lf"
lcp task "$T/pdd" 0
if [ "$rc" -ne 0 ] && [ -z "$(ls -A "$T/away/dd")" ] && \
   grep -q "ddump/lf: a symbolic link" "$T/pdd/results/t000000.res"; then
  pass "lcplab task --dump-failures with DUMP/SECTION a link out: nothing written through (exit $rc)"
else
  fail "DUMP/SECTION a link" "exit $rc; victim dd: $(ls -A "$T/away/dd" | tr '\n' ' '); $(head -c 300 "$T/err")"
fi
# PLAN/scratch a link: an external solver's scratch is not made through it
cat >"$T/zero.sh" <<'EOF'
#!/bin/sh
readlink -f "$2" >>"$(dirname "$0")/zero.log"
n=$(sed -n 's/^n //p' "$1" | head -n 1)
i=0; : >"$2"; while [ "$i" -lt "$n" ]; do echo 0 >>"$2"; i=$((i + 1)); done
EOF
cat >"$T/z.exp" <<EOF
external zero format=lcp command sh "$T/zero.sh" {in} {out}
experiment profile z
solvers zero
instances inst/p2.dat
min_runs 1
min_time 0
EOF
mkdir -p "$T/away/sc"
: >"$T/zero.log"
lcp experiment "$T/z.exp" --plan "$T/psc"
ln -s "$T/away/sc" "$T/psc/scratch"
lcp task "$T/psc" 0
if ! grep -q "/away/sc" "$T/zero.log" && [ -z "$(ls -A "$T/away/sc")" ] && \
   [ "$rc" -ne 0 ] && grep -q "psc/scratch: .*symbolic link" "$T/psc/results/t000000.res"; then
  pass "lcplab task with PLAN/scratch a link out: the solver's files are not made through it (exit $rc)"
else
  fail "PLAN/scratch a link" "exit $rc; solver wrote: $(cat "$T/zero.log"); $(head -c 300 "$T/err")"
fi

# PLAN/scratch swapped for a link while the solver runs, a folder of the
# attempt's name and a file of the user's behind it: the cleanup removes
# nothing there (it walks from the plan folder's descriptor)
cat >"$T/swap.sh" <<'EOF'
#!/bin/sh
n=$(sed -n 's/^n //p' "$1" | head -n 1)
i=0; : >"$2"; while [ "$i" -lt "$n" ]; do echo 0 >>"$2"; i=$((i + 1)); done
d=$(dirname "$2"); p=$(dirname "$(dirname "$d")"); a=$(dirname "$0")/away/sw
mkdir -p "$a/$(basename "$d")"; echo "the user's" >"$a/$(basename "$d")/victim.txt"
mv "$p/scratch" "$p/scratch.real"; ln -s "$a" "$p/scratch"
EOF
sed "s|zero.sh|swap.sh|" "$T/z.exp" >"$T/sw.exp"
lcp experiment "$T/sw.exp" --plan "$T/psw"
lcp task "$T/psw" 0
if [ -n "$(find "$T/away/sw" -name victim.txt)" ]; then
  pass "lcplab task: PLAN/scratch swapped for a link while the solver runs, the cleanup removes nothing behind it (exit $rc)"
else
  fail "the scratch cleanup through a link" "exit $rc; away/sw: $(find "$T/away/sw" | tr '\n' ' ')"
fi

# OO/.figure-XXXXXX (lcplab's own mkdtemp folder) swapped for a link while
# gnuplot runs (a stand-in that does the swap): the cleanup removes nothing behind it
mkdir -p "$T/away/fg"
cat >"$T/gp.sh" <<'EOF'
#!/bin/sh
d=$(dirname "$1"); a=$(dirname "$0")/away/fg
for f in data.dat params.gp; do echo "the user's" >"$a/$f"; done
mv "$d" "$d.real"; ln -s "$a" "$d"; exit 1
EOF
chmod +x "$T/gp.sh"
GNUPLOT="$T/gp.sh" lcp experiment "$T/one.exp" --out "$T/ofg" --jobs 1
if [ -f "$T/away/fg/data.dat" ] && [ -f "$T/away/fg/params.gp" ]; then
  pass "experiment --out: OO/.figure-XXXXXX swapped for a link while gnuplot runs, nothing behind it removed (exit $rc)"
else
  fail "the figure folder's cleanup through a link" "exit $rc; away/fg: $(ls -A "$T/away/fg" | tr '\n' ' ')"
fi

# ---- 2. an output is never one of the inputs, also with --force ---------------------------------
mkdir -p "$T/m" "$T/m/meshes"
printf '<mujoco><compiler meshdir="meshes"/><asset><mesh name="tet" file="tet.obj"/></asset><include file="inc.xml"/></mujoco>\n' >"$T/m/mm.xml"
printf '<mujoco><worldbody><body name="b" pos="0 0 0.3"><freejoint/><geom type="mesh" mesh="tet" mass="1"/></body><geom name="floor" type="plane" size="5 5 0.1"/></worldbody></mujoco>\n' >"$T/m/inc.xml"
printf 'v 0 0 0\nv 0.2 0 0\nv 0 0.2 0\nv 0 0 0.2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n' >"$T/m/meshes/tet.obj"
snap() { cksum "$T/m/mm.xml" "$T/m/inc.xml" "$T/m/meshes/tet.obj"; }
before=$(snap)
mkdir -p "$T/orig"
cp "$T/m/mm.xml" "$T/m/inc.xml" "$T/m/meshes/tet.obj" "$T/orig/"
# restore: the inputs as they were (a failed case does not spoil the next)
restore() {
  for f in mm.xml inc.xml; do cat "$T/orig/$f" >"$T/m/$f"; done
  cat "$T/orig/tet.obj" >"$T/m/meshes/tet.obj"
}
lcp simulate --model "$T/m/mm.xml" --steps 2
if [ "$rc" -ne 0 ]; then fail "the model with an include and a mesh runs" "exit $rc"; fi
# out_is_input DESC OUT-AS-NAMED INPUT ARGS...: exit 2, naming both, every input unchanged
out_is_input() {
  desc=$1 want=$2
  shift 2
  lcp "$@"
  if [ "$rc" -eq 2 ] && grep -qF "the output is the input" "$T/err" && grep -qF "$want" "$T/err" && \
     [ "$(snap)" = "$before" ]; then
    pass "$desc"
  else
    fail "$desc" "exit $rc; inputs $( [ "$(snap)" = "$before" ] && echo unchanged || echo CHANGED)"
  fi
  restore
}
out_is_input "simulate --csv onto the model file --force" mm.xml \
  simulate --model "$T/m/mm.xml" --steps 2 --csv "$T/m/mm.xml" --force
out_is_input "simulate --trace onto the model file --force" mm.xml \
  simulate --model "$T/m/mm.xml" --steps 2 --trace "$T/m/mm.xml" --force
out_is_input "simulate --csv onto the file the model includes --force" inc.xml \
  simulate --model "$T/m/mm.xml" --steps 2 --csv "$T/m/inc.xml" --force
out_is_input "simulate --trace onto the model's mesh (in its meshdir) --force" tet.obj \
  simulate --model "$T/m/mm.xml" --steps 2 --trace "$T/m/meshes/tet.obj" --force
ln -s m/mm.xml "$T/lm.xml"
out_is_input "simulate --csv onto a symlink to the model --force" mm.xml \
  simulate --model "$T/m/mm.xml" --steps 2 --csv "$T/lm.xml" --force
ln "$T/m/inc.xml" "$T/hinc.xml"
out_is_input "simulate --csv onto a hard link to the included file --force" inc.xml \
  simulate --model "$T/m/mm.xml" --steps 2 --csv "$T/hinc.xml" --force
ln -s "$T/m" "$T/m2"
out_is_input "simulate --csv onto m2/mm.xml (m2 a link to the model's folder) --force" mm.xml \
  simulate --model "$T/m/mm.xml" --steps 2 --csv "$T/m2/mm.xml" --force
out_is_input "simulate --save-model onto the included file --force" inc.xml \
  simulate --model "$T/m/mm.xml" --save-model "$T/m/inc.xml" --force
ln "$T/m/inc.xml" "$T/m/mm_step000001.x"
out_is_input "export --out onto the model's folder, a step file a hard link to an input --force" inc.xml \
  export --model "$T/m/mm.xml" --steps 1 --format lcplab --out "$T/m" --force
rm -f "$T/m/mm_step000001.x"
# a problem's sidecar (MatrixMarket STEM.b, read beside STEM.mtx) is an input too
lcp convert "$T/inst/p2.dat" "$T/inst/p2.mtx"
cp "$T/inst/p2.b" "$T/b.orig"
lcp solve "$T/inst/p2.mtx" --solution "$T/inst/p2.b" --force
if [ "$rc" -eq 2 ] && grep -qF "the output is the input" "$T/err" && grep -qF p2.b "$T/err" && \
   cmp -s "$T/inst/p2.b" "$T/b.orig"; then
  pass "solve p2.mtx --solution p2.b (its sidecar) --force is refused, p2.b unchanged"
else
  fail "solve onto a sidecar" "exit $rc"
fi
# an experiment's output onto its own experiment file (a section's CSV name)
mkdir -p "$T/EO"
cp "$T/one.exp" "$T/EO/pa_profile.csv"
sed -i "s|inst/p2.dat|$T/inst/p2.dat|" "$T/EO/pa_profile.csv"
cp "$T/EO/pa_profile.csv" "$T/eo.orig"
lcp experiment "$T/EO/pa_profile.csv" --out "$T/EO" --jobs 1 --force
if [ "$rc" -eq 2 ] && grep -qF "the output is the input $T/EO/pa_profile.csv" "$T/err" && \
   cmp -s "$T/EO/pa_profile.csv" "$T/eo.orig"; then
  pass "experiment F --out whose section's output is F itself --force is refused, F unchanged"
else
  fail "experiment onto its experiment file" "exit $rc"
fi
lcp simulate --model "$T/m/mm.xml" --steps 2 --csv "$T/m/new.csv"
if [ "$rc" -eq 0 ] && [ -s "$T/m/new.csv" ] && [ "$(snap)" = "$before" ]; then
  pass "simulate --csv beside the model's files (another name) is written"
else
  fail "an output that is no input" "exit $rc"
fi

tst_done
