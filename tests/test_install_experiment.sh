#!/bin/sh
# test_install_experiment.sh -- the installed toolkit is whole: run by `make
# installcheck` (after `make install`, DESTDIR allowed), beside test_install.sh:
#   tests/test_install_experiment.sh SRCDIR BUILDDIR DESTDIR BINDIR LIBDIR PKGDATADIR \
#     DOCDIR INCLUDEDIR
# Checks:
#   - the figure scripts exp_*.gp are in PKGDATADIR, and every doc that the
#     installed headers cite (docs/*.md, datasets/README.md,
#     experiments/README.md) is in DOCDIR under the path they cite;
#   - the installed lcplab runs an experiment file written here, in an empty
#     folder: a `generate` line (in-process, libexperiment/generate.c), a
#     scene exported as problems, a scene (drift) section, figures: the
#     CSVs have rows, the figures are there as PDF and PNG, no "no figure"
#     note.  It runs with an environment of its own (env -i: PATH, HOME and
#     LCPLAB_SRCDIR pointing nowhere, LD_LIBRARY_PATH the installed
#     libraries) and, where `unshare -rm` works (root, or user namespaces),
#     with SRCDIR and BUILDDIR covered by empty tmpfs mounts in a private
#     mount namespace, the installed folders bound back at their own paths:
#     nothing of the source or build tree is reachable.  Without unshare the
#     trees stay reachable and the test says so (SKIP line).
# Without DESTDIR the program finds its scripts in PKGDATADIR by itself; with
# one, LCPLAB_EXPERIMENTS names DESTDIR's copy (the compiled-in path has no
# DESTDIR).  Last line "N passed, M failed".
src=$1 build=$2 dest=$3 bindir=$4 libdir=$5 pkgdatadir=$6 docdir=$7 includedir=$8
TST_NAME=test_install_experiment
# shellcheck source=tst_lib.sh
. "$src/tests/tst_lib.sh"
src=$(cd "$src" && pwd -P) build=$(cd "$build" && pwd -P)
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot not found"; exit 77; }

# ---- the installed data and docs ---------------------------------------------------------------
n=$(ls "$dest$pkgdatadir"/exp_*.gp 2>/dev/null | wc -l)
if [ "$n" -ge 6 ] && [ -f "$dest$pkgdatadir/exp_style.gp" ]; then
  pass "$n figure scripts (exp_*.gp) in $pkgdatadir"
else
  fail "figure scripts in $pkgdatadir" "$n found"
fi
cited=$(grep -ohE '(docs|datasets|experiments)/[A-Za-z_]+\.md' "$dest$includedir"/lcplab/*.h | sort -u)
missing=
for d in $cited; do [ -f "$dest$docdir/$d" ] || missing="$missing $d"; done
if [ -n "$cited" ] && [ -z "$missing" ]; then
  pass "the $(echo "$cited" | wc -l) docs the installed headers cite are in $docdir"
else
  fail "cited docs in $docdir" "missing:$missing"
fi

# ---- an experiment from an empty folder ----------------------------------------------------------
W=$T/run
mkdir "$W"
cat >"$W/e.exp" <<'EOF'
# generated problems and a scene's exported problems, then a scene run
experiment profile gen
solvers pgs lemke
generate spd 10 20 seed=1
scene stack n=2 steps=20 friction=box
repeat 1

experiment drift sc
solvers pgs
scene pendulum steps=40 friction=none
EOF
scripts_env=
[ -n "$dest" ] && scripts_env="LCPLAB_EXPERIMENTS=$dest$pkgdatadir"
cat >"$T/run.sh" <<EOF
cd "$W" || exit 1
exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/nonexistent LCPLAB_SRCDIR=/nonexistent \
  LD_LIBRARY_PATH="$dest$libdir" OPENBLAS_NUM_THREADS=1 $scripts_env \
  "$dest$bindir/lcplab" experiment e.exp --out out --jobs 1
EOF

# hide.sh (in a private mount namespace): the installed folders kept aside,
# the source and build trees covered by empty tmpfs mounts, the installed
# folders bound back at their own paths, then run.sh.
cat >"$T/hide.sh" <<EOF
set -e
k=0
for d in "$dest$bindir" "$dest$libdir" "$dest$pkgdatadir"; do
  k=\$((k + 1)); mkdir -p "$T/keep/\$k"
  if [ -d "\$d" ]; then mount --bind "\$d" "$T/keep/\$k"; fi
done
mount -t tmpfs lcplab-hidden "$build" # first: it may lie inside the source tree
mount -t tmpfs lcplab-hidden "$src"
k=0
for d in "$dest$bindir" "$dest$libdir" "$dest$pkgdatadir"; do
  k=\$((k + 1))
  if [ -n "\$(ls -A "$T/keep/\$k")" ] && [ ! -d "\$d" ]; then mkdir -p "\$d"; mount --bind "$T/keep/\$k" "\$d"; fi
done
if [ -e "$src/configure.ac" ] || [ -e "$build/Makefile" ]; then echo "not hidden" >&2; exit 99; fi
echo "source and build trees hidden" >"$T/hidden"
set +e
sh "$T/run.sh"
EOF
case "$T/" in "$src/"* | "$build/"*) can_hide=0 ;; *) can_hide=1 ;; esac
if [ "$can_hide" = 1 ] && unshare -rm true 2>/dev/null; then
  unshare -rm sh "$T/hide.sh" >"$T/out" 2>"$T/err"
  rc=$?
else
  echo "SKIP - hiding the source tree: unshare -rm is not available here (or the temporary folder is inside it); the trees stay reachable"
  sh "$T/run.sh" >"$T/out" 2>"$T/err"
  rc=$?
fi
if [ -f "$T/hidden" ]; then pass "$src and $build hidden (empty tmpfs) while the experiment ran"; fi
if [ "$rc" -eq 0 ]; then pass "installed lcplab experiment: exit 0"; else fail "installed lcplab experiment" "exit $rc"; fi
rows() { grep -v '^#' "$1" 2>/dev/null | tail -n +2 | wc -l; }
ng=$(rows "$W/out/gen.csv") ns=$(rows "$W/out/sc.csv")
gens=$(grep -v '^#' "$W/out/gen.csv" 2>/dev/null | grep -c 'spd_')
scen=$(grep -v '^#' "$W/out/gen.csv" 2>/dev/null | grep -c 'stack')
if [ "$gens" -ge 4 ] && [ "$scen" -ge 2 ] && [ -s "$W/out/generated/spd_20_s1.lcp" ]; then
  pass "gen.csv: $ng rows, generated spd ($gens) and scene-exported ($scen) problems"
else
  fail "gen.csv rows" "$ng rows, $gens spd, $scen stack"
fi
if [ "$ns" -ge 40 ]; then pass "sc.csv (the scene run): $ns rows"; else fail "sc.csv rows" "$ns"; fi
for f in gen.pdf gen.png sc.pdf sc.png; do
  if [ -s "$W/out/$f" ]; then pass "figure $f drawn"; else fail "figure $f" "missing"; fi
done
if grep -q "no figure" "$T/err"; then fail "no 'no figure' note" "$(grep "no figure" "$T/err" | head -2)"; else pass "no 'no figure' note"; fi
tst_done
