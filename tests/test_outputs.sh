#!/bin/sh
# test_outputs.sh -- nothing a user wrote is deleted or overwritten without
# --force (issue 48, cases 4-6; docs/io.md "Replacing files",
# experiments/README.md "Outputs"):
#   --plan DIR --force clears only a folder that carries the plan's marker,
#   and so does --out DIR --force for DIR/campaign;
#   collect --out refuses existing outputs without --force; experiment --out
#   and collect check every output they would write (each one collect
#   lists), and refuse an output that is a symlink leading outside the
#   output folder, even with --force;
#   every writer (convert, solve --solution, simulate --csv, collect)
#   replaces a file only once its new content is complete: on a full disk
#   (RLIMIT_FSIZE, `ulimit -f`) the old file is intact, no temporary file is
#   left, exit 2; `lcplab task` whose result cannot be written (a full disk,
#   a folder at its name, results/ a file) exits 2 naming it;
#   two names of one file are recognised by device and inode: solve X
#   --solution X (also through a symlink or a hard link) and simulate --csv
#   s.csv --trace ./s.csv are refused.
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.
# Exit: 0 all passed, 1 any failure, 77 skipped.

TST_NAME=test_outputs
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
# memcheck keeps its own address space: no RLIMIT_AS on the tasks under it
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

write_p2 "$T/p2.dat" # the hand problem (tst_cli_lib.sh): x = (1, 0)
cat >"$T/small.exp" <<'EOF'
experiment profile prof
solvers pgs lemke
instances p2.dat
tol 1e-6
min_runs 1
min_time 0
experiment convergence conv
solvers pgs
instances p2.dat
experiment drift
solvers pgs
scene ball steps=5
EOF

# same FILE WANT DESC: FILE holds exactly the line WANT
same() {
  if [ "$(cat "$1" 2>/dev/null)" = "$2" ]; then pass "$3"; else fail "$3" "$1 is '$(head -c 80 "$1" 2>/dev/null)'"; fi
}
# no_tmp DIR DESC: no temporary file (.NAME.*.tmp) left in DIR
no_tmp() {
  left=$(find "$1" -maxdepth 1 -name '.*.tmp' | head -n 3)
  if [ -z "$left" ]; then pass "$2"; else fail "$2" "left: $left"; fi
}
# full_disk [BLOCKS] ARGS...: lcplab ARGS with each file it writes limited to BLOCKS
# blocks (default 2; a block is 512 bytes in dash, 1 KiB in bash): writes past it fail
# with EFBIG, as on a full disk
full_disk() {
  blocks=2
  case $1 in [0-9]*) blocks=$1 && shift ;; esac
  (
    trap '' XFSZ
    ulimit -f "$blocks"
    "$BIN" "$@" >"$T/out" 2>"$T/err"
  )
  rc=$?
}

# ---- case 4: --plan DIR --force only clears a plan folder -------------------------------
mkdir -p "$T/mine/results"
echo mine >"$T/mine/results/notes.txt"
expect_err "--plan --force on a folder that is not a plan" "$T/mine" experiment "$T/small.exp" --plan "$T/mine" --force
same "$T/mine/results/notes.txt" mine "--plan --force leaves a non-plan folder's files alone"
mkdir -p "$T/o4/campaign/results"
echo mine >"$T/o4/campaign/results/notes.txt"
expect_err "--out --force over a campaign folder that is not a plan" "$T/o4/campaign" experiment "$T/small.exp" --out "$T/o4" --force --no-plot
same "$T/o4/campaign/results/notes.txt" mine "--out --force leaves a non-plan campaign folder's files alone"
lcp experiment "$T/small.exp" --plan "$T/pl"
rc1=$rc
lcp experiment "$T/small.exp" --plan "$T/pl" --force
if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ]; then pass "--plan --force replaces a plan lcplab made"; else fail "--plan --force on a plan" "exit $rc1 / $rc"; fi
mkdir "$T/empty"
lcp experiment "$T/small.exp" --plan "$T/empty" --force
if [ "$rc" -eq 0 ] && [ -f "$T/empty/plan.info" ]; then pass "--plan --force in an empty folder (nothing to lose)"; else fail "--plan --force in an empty folder" "exit $rc"; fi

# ---- case 5: collect --force; every output checked; symlinks --------------------------
lcp experiment "$T/small.exp" --out "$T/run" --no-plot
if [ "$rc" -ne 0 ]; then fail "the campaign of small.exp" "exit $rc"; fi
P="$T/run/campaign"
lcp collect "$P" --out "$T/c1" --no-plot
sed "s|^$T/c1/||" "$T/out" >"$T/listed"
n=$(wc -l <"$T/listed")
if [ "$rc" -eq 0 ] && [ "$n" -ge 12 ]; then pass "collect lists its $n outputs"; else fail "collect into a new folder" "exit $rc, $n outputs"; fi
# the figures (drawn unless --no-plot), pages of more tolerances too
printf '%s\n' prof.pdf prof.png conv.pdf conv.png drift.pdf drift.png prof-2.pdf >"$T/figures"
cp "$T/c1/prof.csv" "$T/prof.before"
expect_err "collect onto its earlier outputs without --force" "exists (use --force" collect "$P" --out "$T/c1" --no-plot
lcp collect "$P" --out "$T/c1" --no-plot --force
if [ "$rc" -eq 0 ]; then pass "collect --force replaces its outputs"; else fail "collect --force" "exit $rc"; fi
# each output, alone in a fresh folder, is refused and kept (figures with plotting on)
sed 's/$/ --no-plot/' "$T/listed" >"$T/cases"
cat "$T/figures" >>"$T/cases"
i=0
bad=
while read -r f plot; do
  i=$((i + 1))
  mkdir "$T/e$i"
  echo mine >"$T/e$i/$f"
  "$BIN" collect "$P" --out "$T/e$i" $plot >/dev/null 2>"$T/err"
  r=$?
  if [ "$r" -ne 2 ] || [ "$(cat "$T/e$i/$f")" != mine ] || ! grep -qF "$T/e$i/$f" "$T/err" ||
     [ "$(find "$T/e$i" -type f | wc -l)" -ne 1 ]; then
    bad="$bad $f(exit $r)"
  fi
done <"$T/cases"
if [ -z "$bad" ]; then pass "collect refuses each of its $i outputs when it exists, writes nothing"; else fail "collect checks every output" "overwritten or not named:$bad"; fi
mkdir "$T/pg"
echo stale >"$T/pg/prof-3.pdf"
echo stale >"$T/pg/prof.png"
lcp collect "$P" --out "$T/pg" --force
# (prof.png is drawn again when gnuplot and the program's scripts are there:
# then it is the new figure, not the stale one)
if [ "$rc" -eq 0 ] && [ ! -e "$T/pg/prof-3.pdf" ] && [ "$(cat "$T/pg/prof.png" 2>/dev/null)" != stale ]; then
  pass "collect --force removes the figure pages of an earlier run (no stale figure)"
else
  fail "collect --force and stale figure pages" "exit $rc; $(ls "$T/pg" | tr '\n' ' ')"
fi
mkdir "$T/np"
echo mine >"$T/np/prof.pdf"
lcp collect "$P" --out "$T/np" --no-plot
if [ "$rc" -eq 0 ] && [ "$(cat "$T/np/prof.pdf")" = mine ]; then pass "collect --no-plot leaves a figure's name alone"; else fail "collect --no-plot and an existing figure" "exit $rc"; fi
for f in prof_profile.csv prof_winners.tex drift_steps.csv; do
  mkdir -p "$T/x_$f"
  echo mine >"$T/x_$f/$f"
  expect_err "experiment --out with an existing $f" "$T/x_$f/$f" experiment "$T/small.exp" --out "$T/x_$f" --no-plot
  same "$T/x_$f/$f" mine "experiment --out keeps an existing $f"
done
echo outside >"$T/outside.txt"
mkdir "$T/ln"
ln -s "$T/outside.txt" "$T/ln/prof_winners.csv"
expect_err "experiment --out --force through a symlink leading outside" "$T/ln/prof_winners.csv" experiment "$T/small.exp" --out "$T/ln" --force --no-plot
same "$T/outside.txt" outside "the symlink's target outside the output folder is intact"
expect_err "collect --force through a symlink leading outside" "$T/ln/prof_winners.csv" collect "$P" --out "$T/ln" --force --no-plot
same "$T/outside.txt" outside "collect leaves the symlink's target alone"
mkdir "$T/lin"
echo old >"$T/lin/mine.txt"
ln -s mine.txt "$T/lin/prof.csv"
lcp collect "$P" --out "$T/lin" --no-plot --force
if [ "$rc" -eq 0 ] && [ ! -L "$T/lin/prof.csv" ] && [ "$(cat "$T/lin/mine.txt")" = old ]; then
  pass "collect --force replaces a symlink inside the folder by the file, not its target"
else
  fail "a symlink inside the output folder" "exit $rc"
fi

# ---- case 6: complete content first (full disk), two names of one file --------------------
D=${LCPLAB_SHARED:-${LCPLAB_SRCDIR:-..}/../shared}/datasets/siconos/lcp/lcp_mmc.dat
[ -f "$D" ] && D=$(cd "$(dirname "$D")" && pwd)/$(basename "$D")
if [ -f "$D" ]; then
  echo old >"$T/conv.dat"
  full_disk convert "$D" "$T/conv.dat" --to siconos-lcp --force
  if [ "$rc" -eq 2 ] && grep -q '^lcplab: ' "$T/err"; then pass "convert on a full disk: exit 2 with a message"; else fail "convert on a full disk" "exit $rc"; fi
  same "$T/conv.dat" old "convert on a full disk keeps the old OUT"
  no_tmp "$T" "convert on a full disk leaves no temporary file"
  lcp convert "$D" "$T/conv.dat" --to siconos-lcp --force
  if [ "$rc" -eq 0 ] && [ "$(head -c 3 "$T/conv.dat")" != old ]; then pass "convert --force replaces OUT"; else fail "convert --force" "exit $rc"; fi
else
  echo "note: $D not found: the convert full-disk checks are skipped"
fi
# a diagonal boxed LCP of 120 rows (A = 3 I, b_ode = 1: x = 1/3): its solution is larger than the limit
awk 'BEGIN { n = 120; print n; for (i = 0; i < n; i++) { s = ""; for (j = 0; j < n; j++) s = s (i == j ? "3 " : "0 "); print s }
             for (k = 0; k < 3; k++) { s = ""; for (i = 0; i < n; i++) s = s (k == 0 ? "1 " : k == 1 ? "0 " : "inf "); print s } }' >"$T/d120.blcp"
# a MatrixMarket pair on a full disk: the matrix fits, its .b sidecar does not; the old
# pair stays together (never a new A beside an old b)
awk 'BEGIN { n = 60; print n; for (i = 0; i < n; i++) { s = ""; for (j = 0; j < n; j++) s = s (i == j ? "3 " : "0 "); print s }
             s = ""; for (i = 0; i < n; i++) s = s "0.33333333333333331 "; print s
             s = ""; for (i = 0; i < n; i++) s = s "0 "; print s; s = ""; for (i = 0; i < n; i++) s = s "inf "; print s }' >"$T/d60.blcp"
lcp convert "$T/p2.dat" "$T/pair.mtx"
cp "$T/pair.mtx" "$T/pair.mtx.old"
cp "$T/pair.b" "$T/pair.b.old"
full_disk convert "$T/d60.blcp" "$T/pair.mtx" --force
if [ "$rc" -eq 2 ] && cmp -s "$T/pair.mtx" "$T/pair.mtx.old" && cmp -s "$T/pair.b" "$T/pair.b.old"; then
  pass "convert to .mtx on a full disk keeps the old matrix and sidecar together"
else
  fail "convert to .mtx on a full disk" "exit $rc; $(head -c 60 "$T/pair.mtx")"
fi
no_tmp "$T" "convert to .mtx on a full disk leaves no temporary file"
echo old >"$T/sol.x"
full_disk solve "$T/d120.blcp" --solver lemke --solution "$T/sol.x" --force
if [ "$rc" -eq 2 ]; then pass "solve --solution on a full disk: exit 2"; else fail "solve --solution on a full disk" "exit $rc"; fi
same "$T/sol.x" old "solve --solution on a full disk keeps the old file"
no_tmp "$T" "solve --solution on a full disk leaves no temporary file"
echo old >"$T/sim.csv"
full_disk simulate --scene stack --param n=3 --solver pgs --steps 400 --csv "$T/sim.csv" --force
if [ "$rc" -eq 2 ]; then pass "simulate --csv on a full disk: exit 2"; else fail "simulate on a full disk" "exit $rc"; fi
same "$T/sim.csv" old "simulate on a full disk keeps the old CSV"
no_tmp "$T" "simulate on a full disk leaves no temporary file"
# the CSV fits, the trace does not: neither replaces its old file
echo old >"$T/pair.csv"
echo old >"$T/pair.trace"
full_disk simulate --scene stack --param n=3 --solver pgs --steps 3 --csv "$T/pair.csv" --trace "$T/pair.trace" --force
if [ "$rc" -eq 2 ] && [ "$(cat "$T/pair.csv")" = old ] && [ "$(cat "$T/pair.trace")" = old ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then
  pass "simulate --csv --trace on a full disk keeps both old files, one message"
else
  fail "simulate --csv --trace on a full disk" "exit $rc; csv '$(head -c 20 "$T/pair.csv")'"
fi
if [ -f "$D" ]; then
# a plan whose first section's outputs fit under the limit and whose second's CSV (the
# convergence history of two solvers on lcp_mmc.dat) does not
cat >"$T/fd.exp" <<EOF
experiment profile prof
solvers lemke
instances p2.dat
min_runs 1
min_time 0
experiment convergence conv
solvers pgs pjacobi
instances $D
EOF
mkdir "$T/fd"
lcp experiment "$T/fd.exp" --out "$T/fdrun" --no-plot
sed "s|^$T/fdrun/||" "$T/out" >"$T/fdlisted"
while read -r f; do echo old >"$T/fd/$f"; done <"$T/fdlisted"
full_disk 10 collect "$T/fdrun/campaign" --out "$T/fd" --no-plot --force
# every output still holds its old content: they are replaced together or not at all
failed=$(sed -n "s|^lcplab: \($T/fd/[^:]*\): .*|\1|p" "$T/err" | head -n 1)
changed=$(while read -r f; do [ "$(cat "$T/fd/$f")" = old ] || echo "$f"; done <"$T/fdlisted")
if [ "$rc" -eq 2 ] && [ "$failed" = "$T/fd/conv.csv" ] && [ -z "$changed" ]; then
  pass "collect on a full disk: exit 2 naming conv.csv, every old output intact"
else
  fail "collect on a full disk" "exit $rc, failed '$failed', replaced: $(echo $changed)"
fi
no_tmp "$T/fd" "collect on a full disk leaves no temporary file"
else
  echo "note: $D not found: the collect full-disk checks are skipped"
fi

# lcplab task whose result cannot be written: exit 2 naming the result file, as every
# writer (lcplab(1), EXIT STATUS), no result and no temporary file left; the same when
# the result's name is a folder, or results/ is a file
lcp experiment "$T/small.exp" --plan "$T/tfd"
# (the result is 930 bytes, so one 512-byte block; LLVM's OpenMP runtime, which the
# clang build links, sizes a shared-memory file at start-up and dies of SIGBUS under a
# limit that low: that run says so on stderr and the check is left to the gcc builds)
full_disk 1 task "$T/tfd" 0
if grep -q "^OMP: Error" "$T/err"; then
  echo "note: LLVM's OpenMP runtime cannot start under a 1-block file limit: the task's full-disk check is left to the gcc builds"
elif [ "$rc" -eq 2 ] && grep -qF "$T/tfd/results/t000000.res" "$T/err" &&
  [ ! -e "$T/tfd/results/t000000.res" ]; then
  pass "task on a full disk: exit 2 naming its result file"
else
  fail "task on a full disk" "exit $rc"
fi
no_tmp "$T/tfd/results" "task on a full disk leaves no temporary file"
mkdir "$T/tfd/results/t000001.res"
lcp task "$T/tfd" 1
if [ "$rc" -eq 2 ] && grep -qF "$T/tfd/results/t000001.res" "$T/err"; then
  pass "task whose result's name is a folder: exit 2 naming it"
else
  fail "task whose result's name is a folder" "exit $rc"
fi
rm -rf "$T/tfd/results"
echo mine >"$T/tfd/results"
lcp task "$T/tfd" 0
if [ "$rc" -eq 2 ] && grep -qF "$T/tfd/results/t000000.res" "$T/err" &&
  [ "$(cat "$T/tfd/results")" = mine ]; then
  pass "task whose results/ is a file: exit 2 naming the result, the file kept"
else
  fail "task whose results/ is a file" "exit $rc"
fi

# a FIFO (as /dev/stdout may be) is no file to replace: written directly, kept a FIFO
if mkfifo "$T/fifo" 2>/dev/null; then
  cat "$T/fifo" >"$T/fromfifo" &
  reader=$!
  lcp solve "$T/p2.dat" --solver lemke --solution "$T/fifo" --force
  if [ -p "$T/fifo" ]; then
    wait "$reader"
  else
    kill "$reader" 2>/dev/null
  fi
  if [ "$rc" -eq 0 ] && [ -p "$T/fifo" ] && [ "$(head -n 1 "$T/fromfifo")" = 1 ]; then
    pass "solve --solution into a FIFO writes through it (no temporary file, no rename)"
  else
    fail "solve --solution into a FIFO" "exit $rc; fifo kept: $([ -p "$T/fifo" ] && echo yes || echo no)"
  fi
fi
cp "$T/p2.dat" "$T/in.dat"
cp "$T/p2.dat" "$T/in.ref"
expect_err "solve X --solution X --force" "$T/in.dat" solve "$T/in.dat" --solver lemke --solution "$T/in.dat" --force
cmp -s "$T/in.dat" "$T/in.ref" && pass "the input problem is intact" || fail "solve X --solution X kept X"
ln -s in.dat "$T/in.lnk"
expect_err "solve X --solution (a symlink to X) --force" "$T/in.lnk" solve "$T/in.dat" --solver lemke --solution "$T/in.lnk" --force
ln "$T/in.dat" "$T/in.hard"
expect_err "solve X --solution (a hard link to X) --force" "$T/in.hard" solve "$T/in.dat" --solver lemke --solution "$T/in.hard" --force
cmp -s "$T/in.dat" "$T/in.ref" && pass "the input problem is still intact" || fail "solve through links kept X"
echo 0 >"$T/w0"
echo 0 >>"$T/w0"
expect_err "solve --warm W --solution W --force" "$T/w0" solve "$T/in.dat" --solver lemke --warm "$T/w0" --solution "$T/./w0" --force
expect_err "convert X ./X --force" "the output is the input" convert "$T/in.dat" "$T/./in.dat" --to siconos-lcp --force
cp "$T/p2.dat" "$T/q.b"
expect_err "convert q.b q.mtx --force (the .b sidecar is the input)" "$T/q.b" convert "$T/q.b" "$T/q.mtx" --from siconos-lcp --force
cmp -s "$T/in.dat" "$T/in.ref" && cmp -s "$T/q.b" "$T/in.ref" && pass "the inputs of convert are intact" || fail "convert kept its inputs"
(
  cd "$T" || exit 1
  "$BIN" simulate --scene stack --param n=3 --solver pgs --steps 5 --csv s.csv --trace ./s.csv --force >out 2>err
  echo $? >rc
)
if [ "$(cat "$T/rc")" -eq 2 ] && [ ! -e "$T/s.csv" ] && grep -q 's.csv' "$T/err"; then
  pass "simulate --csv s.csv --trace ./s.csv --force: refused, nothing written"
else
  fail "simulate --csv s.csv --trace ./s.csv" "exit $(cat "$T/rc"), $(cat "$T/err")"
fi
echo old >"$T/s1.csv"
ln "$T/s1.csv" "$T/s2.csv"
expect_err "simulate --csv and --trace hard links of one file" "same file" simulate --scene stack --param n=3 --solver pgs --steps 5 --csv "$T/s1.csv" --trace "$T/s2.csv" --force
ln -s s1.csv "$T/s3.csv"
expect_err "simulate --trace a symlink to --csv" "same file" simulate --scene stack --param n=3 --solver pgs --steps 5 --csv "$T/s1.csv" --trace "$T/s3.csv" --force
same "$T/s1.csv" old "the CSV named twice is intact"

tst_done
