#!/bin/sh
# run_compare.sh -- lcplab's main job (`make main-job`): every registered
# solver on the bundled instance set, one CSV and its figure.
#
#   sh experiments/run_compare.sh BUILDDIR SRCDIR [GNUPLOT]
#
# 1. Generates the bundled set, if missing, into BUILDDIR/datasets/generated:
#    FAMILY_N_s1.lcp for FAMILY in spd contact boxed-findex box joints and
#    N in 10 100 500 1000 (lcplab generate --seed 1; existing files are
#    kept: delete them to regenerate).
# 2. Runs experiments/exp_compare on all of them: tol 1e-8, max-iter 10000
#    (pjacobi: PJACOBI_MAX_ITER, default 10000), 3 timed repeats after a
#    warm-up, OPENBLAS_NUM_THREADS=1.
# 3. Writes BUILDDIR/experiments/results/HOST/compare.csv and, with gnuplot,
#    compare.png and compare.pdf beside it (experiments/compare.gp).  Earlier
#    results there are moved aside with a UTC timestamp suffix, never
#    overwritten.  Without gnuplot the CSV is still written.
# Exit status: 0 done (whatever the solvers did; experiments never assert),
# non-zero if a program could not run or the CSV could not be written.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
gnuplot=${3:-}
# shellcheck source=experiments/gp_run.sh
. "$srcdir/experiments/gp_run.sh"

export OPENBLAS_NUM_THREADS=1
seed=1
families="spd contact boxed-findex box joints"
sizes="10 100 500 1000"
pjacobi_max_iter=${PJACOBI_MAX_ITER:-10000}

lcplab=$builddir/cli/lcplab
cmp=$builddir/experiments/exp_compare
for prog in "$lcplab" "$cmp"; do
  if [ ! -x "$prog" ]; then
    echo "run_compare.sh: $prog not built (run 'make main-job' in $builddir)" >&2
    exit 2
  fi
done

start=$(date +%s)

# ---- 1. instances -------------------------------------------------------------
data=$builddir/datasets/generated
mkdir -p "$data"
files=
ngen=0
for fam in $families; do
  for n in $sizes; do
    f=$data/${fam}_${n}_s${seed}.lcp
    if [ ! -e "$f" ]; then
      "$lcplab" generate --type "$fam" --n "$n" --seed "$seed" --out "$f"
      ngen=$((ngen + 1))
    fi
    files="$files $f"
  done
done
echo "run_compare.sh: instances in $data ($ngen generated now, the others reused)"

# ---- 2. the comparison ---------------------------------------------------------
host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
mkdir -p "$results"
csv=$results/compare.csv
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for old in "$csv" "$results/compare.png" "$results/compare.pdf"; do
  if [ -e "$old" ]; then
    mv "$old" "$old.$stamp"
    echo "run_compare.sh: previous $(basename "$old") moved to $old.$stamp"
  fi
done

rev=unknown
if command -v git >/dev/null 2>&1 && git -C "$srcdir" rev-parse --git-dir >/dev/null 2>&1; then
  rev=$(git -C "$srcdir" rev-parse --short=12 HEAD 2>/dev/null || echo "no-commit")
  # -dirty: modified or untracked (not ignored) files, i.e. not exactly that commit
  if [ -n "$(git -C "$srcdir" status --porcelain 2>/dev/null)" ]; then rev="$rev-dirty"; fi
fi
# The flags the programs were compiled with, as configure wrote them.
cflags=$(sed -n -e 's/^CFLAGS = //p' -e 's/^WARN_CFLAGS = //p' -e 's/^SAN_FLAGS = //p' \
  -e 's/^DEFS = //p' "$builddir/Makefile" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')

echo "run_compare.sh: exp_compare on $(echo $files | wc -w) instances (tol 1e-8, max-iter 10000," \
  "pjacobi $pjacobi_max_iter, repeat 3) -> $csv"
# shellcheck disable=SC2086  # $files: generated paths without blanks
"$cmp" --out "$csv" --tol 1e-8 --max-iter 10000 --solver-max-iter "pjacobi=$pjacobi_max_iter" \
  --repeat 3 --seed "$seed" --rev "$rev" --cflags "${cflags:-unknown}" $files

# ---- 3. the figure ---------------------------------------------------------------
if [ -z "$gnuplot" ]; then gnuplot=$(command -v gnuplot || true); fi
figs=
if [ -n "$gnuplot" ] && [ -x "$gnuplot" ]; then
  if gp_run "$gnuplot" "$srcdir/experiments/compare.gp" "$results/compare" "file:data.csv=$csv"; then
    for f in "$results/compare.png" "$results/compare.pdf"; do
      if [ -e "$f" ]; then figs="$figs $f"; fi
    done
  else
    echo "run_compare.sh: gnuplot failed: no figure (the CSV is complete)" >&2
  fi
else
  echo "run_compare.sh: gnuplot not found: no figure (apt-get install gnuplot-nox, then run" \
    "this script again)"
fi

end=$(date +%s)
nrows=$(grep -v -e '^#' "$csv" | tail -n +2 | wc -l)
nconv=$(grep -v -e '^#' "$csv" | tail -n +2 | awk -F, '$5 == "converged"' | wc -l)
echo "run_compare.sh: done in $((end - start)) s: $nrows rows, $nconv converged"
echo "results:"
echo "  $csv"
for f in $figs; do echo "  $f"; done
