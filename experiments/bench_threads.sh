#!/bin/sh
# bench_threads.sh -- benchmark (`make bench-threads`; not a test): what two
# threads buy on the large cases of issue 29, measured the same way for
# every solver in the same run.
#
#   sh experiments/bench_threads.sh BUILDDIR SRCDIR
#
# Scenes (BENCH_THREADS_SCENES, default "pile:5000 pyramid:50"):
#   lcplab simulate --scene S --param P --solver X --steps K --threads T
#                   --csv FILE --force
# with K = BENCH_THREADS_STEPS (default 200), the world's defaults (50
# sweeps), for (X, T) = (pgs_wide, 1) (pgs_part, 1) (pgs_color, 1)
# (pgs_color, 2) (pgs_part, 2): the JSON's time_solve_mean_s,
# time_step_median_s, threaded_solves and max_penetration_end.
# FC3D exports (BENCH_THREADS_EXPORTS, default "pile:5000 pyramid:50", the
# step-240 exports, lcplab export --friction cone --solver nsgs, made in BUILDDIR/experiments/exports
# when missing):
#   lcplab solve FILE --solver X --max-iter I --tol 1e-12 --threads T
# with I = BENCH_THREADS_ITERS (default 300), X in apgd, pjacobi_cone, T in
# 1, 2, and X = auto (the default solver, which gives these problems to ipm:
# CHOLMOD's factorizations) with I = BENCH_THREADS_AUTO_ITERS (default 20
# interior-point iterations): time_s and res_nat_inf (the same bits on 1 and
# 2 threads, checked).
# Every configuration runs once per round, the rounds (BENCH_THREADS_ROUNDS,
# default 3) interleave them, so a machine that slows down slows all of them.
# Every two-thread run sits between two probes of experiments/core_roundtrip
# (the cross-core round trip of a cache line): a virtual machine's host may
# put the two vCPUs on cores that share a cache (about 100 ns here) or on
# cores that do not (about 400 ns), and move them between runs; the tables
# say which placement each round had.
# OPENBLAS_NUM_THREADS=1.
#
# The speed-up of a two-thread run is taken against the fastest single
# thread of its family in the same round: the Gauss-Seidel sweeps (pgs_wide,
# pgs_part, pgs_color) for the scenes, the solver itself for the exports
# (their iterations differ, so only the same solver compares).
#
# Output in BUILDDIR/experiments/results/HOST/ (earlier files of the same
# names moved aside with a UTC timestamp suffix):
#   bench_threads.csv  one row per run: kind, case, solver, threads, round,
#                      time_s (the solve mean for scenes), step_s, split,
#                      penetration, res_nat_inf, roundtrip_before_ns and
#                      roundtrip_after_ns (two threads), and for scenes the mean of
#                      the step's stages (stage_collide_s, stage_build_rows_s,
#                      stage_assemble_s, stage_solve_s, stage_apply_s,
#                      stage_integrate_s: the JSON's time_stage_mean_s)
#   bench_threads.md   per case and two-thread run: the speed-up in each
#                      round, its least, median and largest, of the solve
#                      and (scenes) of the whole step, whose collision,
#                      rows, assembly and integration run on the same
#                      threads (experiments/bench_threads.py)
# Exit: 0 written; 1 a run failed; 2 usage.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR" >&2
  exit 2
fi
builddir=$1
srcdir=$2
lcplab=$builddir/cli/lcplab
probe=$builddir/experiments/core_roundtrip
for prog in "$lcplab" "$probe"; do
  if [ ! -x "$prog" ]; then
    echo "$0: $prog is not built (make bench-threads in $builddir builds both)" >&2
    exit 2
  fi
done
out=$builddir/experiments/results/$(uname -n)
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for f in bench_threads.csv bench_threads.md; do
  [ -e "$out/$f" ] && mv "$out/$f" "$out/$f.$stamp"
done
exec python3 "$srcdir/experiments/bench_threads.py" "$lcplab" "$probe" "$builddir/experiments/exports" "$out"
