"""bench_gradients.py -- `make bench-gradients` (issue 83 item 4): how good is
each solver's gradient, split by row mode, and what does a VJP cost beside
the solve (docs/gradients.md).

For every problem (the shared LCP, relay (box) and FC3D sets of
../shared/datasets, read in place, up to --max-n rows; and exported scene
steps: pile, pyramid, and MuJoCo's humanoid when its model is installed)
and every registered solver that takes it, the measure is libexperiment's
(libexperiment/gradients.c, exp_grad.h; through the extension's
gradient_rows), the one calculation a `gradients` section of an experiment
file runs too (experiments/README.md, "Gradients"):

1. the reference: an exact solver (lemke, else dantzig, else enum; nsn_ac,
   ppa_nsn, nsgs with cones) at tol 1e-12, its rows' modes and classes;
2. one random direction d on b and per class present (free, at a bound,
   separated, sticking, sliding, degenerate) a random cotangent gx on that
   class's rows (--seed: the library's own generator); the reference
   derivative fd = <gx, (x(b + e d) - x(b - e d)) / 2e>, e = k (1 +
   |b|_inf) / |d|_inf, from reference solves; "stable" when the modes at
   b +- e d are those at b; k the largest of 1e-3 ... 1e-6 that is stable
   without cones, 1e-6 with cones (the CSV's fd_step);
3. the solver's solve at tol 1e-10 (--time-limit s; the fastest of
   --repeat, the solve alone timed), the VJP at its own answer (a
   budget-stopped answer's too: its status says so), the relative error
   |<gb, d> - fd| / max(|fd|, 1e-6 |gx| |dx|); an answer more than 1e-6
   (1 + |x_ref|) from the reference's is not stable ("another answer").

Printed: the quality table (libexperiment's, gradients_quality.c: the
NAME_quality.csv of a gradients section): per solver and mode class, the
problems counted (stable ones, the solver's answer accepted / not), the
median and max relative error, the share within 1e-6 (the issue's goal for
answers accepted at 1e-10); per solver the median and max VJP / solve
time ratio, and on how many problems its VJP met the time goal.  Then the
VJP goal per problem (libexperiment's too: a section's NAME_vjp_goal.csv):
every solver's fastest VJP (of its rows) against the fastest converged solve of an
exact solver (lemke, dantzig, enum, nsn_ac), n <= 1000, and the count of
problems where every VJP is within it.  A CSV of every row is written
with --csv, its columns and number format a gradients section's.
"""

import argparse
import glob
import os
import sys
import time

import numpy as np

import lcplab
from lcplab import _lcplab

from outfile import replace_text  # outputs never written through a planted link

MODE_CLASSES = ("free", "at a bound", "separated", "sticking", "sliding", "degenerate")


def bench_problem(name, problem, solvers, args, rows):
    """The rows of every solver on problem: libexperiment's measure
    (exp_grad.h), the one a `gradients` section of an experiment file
    runs."""
    got, why, status = _lcplab.gradient_rows(problem._c(), list(solvers), args.seed,
                                             args.time_limit, args.repeat)
    if why is not None:
        print(f"# {name}: {why}: {status}", file=sys.stderr)
        for solver in solvers:  # one row per solver, as a section's task writes it
            rows.append((name, problem.n, solver, status, "", "", "", "", "", why, ""))
    for solver, status, mode, stable, err, ts, tv, note, k in got:
        rows.append((name, problem.n, solver, status, mode, bool(stable), err, ts, tv, note, k))


def dataset_problems(shared, max_n):
    pats = ["datasets/siconos/lcp/*.dat", "datasets/siconos/relay/*.dat",
            "datasets/siconos/fc3d/*.dat", "datasets/siconos/fc3d/*.hdf5"]
    for pat in pats:
        for path in sorted(glob.glob(os.path.join(shared, pat))):
            try:
                p = lcplab.read(path)
            except lcplab.Error:
                continue
            if 0 < p.n <= max_n and p.storage == "dense" or 0 < p.n <= max_n and p.ncones:
                yield os.path.basename(path), p


def scene_problems(args):
    """The last step's problem of pile, pyramid and humanoid (cones)."""
    specs = [("pile", {"n": args.pile}, 60), ("pyramid", {"layers": args.layers}, 20)]
    for scene, params, steps in specs:
        w = lcplab.World(scene, params, solver="nsn_ac", friction="cone", tol=1e-10)
        w.run(steps)
        lp = w.last_problem()
        if lp is not None and lp[0].n <= args.max_n:
            yield f"{scene}-step{steps}", lp[0]
    path = "/usr/share/mujoco/model/humanoid/humanoid.xml"
    if os.path.exists(path):
        m = lcplab.load_model(path, coordinates="reduced")
        w = lcplab.World(m, solver="nsn_ac", friction="cone", tol=1e-10)
        w.run(args.humanoid_steps)
        lp = w.last_problem()
        if lp is not None and lp[0].n <= args.max_n:
            yield f"humanoid-step{args.humanoid_steps}", lp[0]


def csv_field(v):
    """A CSV field as a gradients section writes it (libexperiment's rows.c):
    stable 1 / 0, numbers %.6e."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return "nan" if np.isnan(v) else f"{v:.6e}"
    return str(v)


HEADER = "problem,n,solver,status,mode,stable,rel_err,solve_s,vjp_s,note,fd_step"


def csv_text(rows):
    return HEADER + "\n" + "".join(",".join(csv_field(v) for v in r) + "\n" for r in rows)


def summary(rows):
    """The quality table of the rows: libexperiment's (exp_grad.h), the
    NAME_quality.csv a gradients section writes and the paper formats."""
    print("# gradient quality: relative error of <VJP(gx), d> against central differences "
          "of reference solves at 1e-12; VJP / solve time per solver")
    print(_lcplab.gradient_quality(csv_text(rows)), end="")
    goal = _lcplab.gradient_vjp_goal(csv_text(rows))
    print("# the VJP goal per problem: each solver's fastest VJP within the fastest "
          "converged solve of lemke, dantzig, enum or nsn_ac (n <= 1000)")
    print(goal, end="")
    verdicts = [line.rsplit(",", 1)[1] for line in goal.splitlines()[1:]]
    judged = sum(v in ("met", "missed") for v in verdicts)
    print(f"# VJP goal met on {verdicts.count('met')} of {judged} problems")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                     "shared"))
    ap.add_argument("--max-n", type=int, default=1000)
    ap.add_argument("--time-limit", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--pile", type=int, default=20)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--humanoid-steps", type=int, default=80)
    ap.add_argument("--solvers", default="", help="comma-separated; default every one")
    ap.add_argument("--csv", default="")
    ap.add_argument("--no-datasets", action="store_true")
    ap.add_argument("--seed", type=int, default=83)
    args = ap.parse_args()
    solvers = args.solvers.split(",") if args.solvers else list(lcplab.solvers())
    rows = []
    sources = [] if args.no_datasets else [dataset_problems(args.shared, args.max_n)]
    sources.append(scene_problems(args))
    t0 = time.perf_counter()
    for src in sources:
        for name, p in src:
            bench_problem(name, p, solvers, args, rows)
            print(f"# {name} (n={p.n}) done at {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.csv:
        replace_text(args.csv, csv_text(rows), "bench_gradients.py")
    summary(rows)


if __name__ == "__main__":
    main()
