"""bench_gradients.py -- `make bench-gradients` (issue 83 item 4): how good is
each solver's gradient, split by row mode, and what does a VJP cost beside
the solve (docs/gradients.md).

For every problem (the shared LCP, relay (box) and FC3D sets of
../shared/datasets, read in place, up to --max-n rows; and exported scene
steps: pile, pyramid, and MuJoCo's humanoid when its model is installed):

1. the reference: an exact solver (lemke, else dantzig, for LCP and box
   rows; nsn_ac for cones) at tol 1e-12; its rows' modes (lcplab.vjp);
2. per mode class present (free, at a bound, separated, sticking, sliding,
   degenerate) a random cotangent gx on that class's rows (0 elsewhere),
   and one random direction d on b; the reference derivative
   fd = <gx, (x(b + e d) - x(b - e d)) / 2e>, e = k (1 + |b|_inf) / |d|_inf,
   from reference solves at 1e-12; "stable" when the modes at b +- e d are
   those at b (the active set does not change under the step); k the
   largest of 1e-3, 1e-4, 1e-5, 1e-6 that is stable for a problem without
   cones (x(b) is affine there while the modes hold: no truncation error,
   the least rounding noise), 1e-6 with cones (FD_STEPS_*; the CSV's
   fd_step);
3. for every registered solver that takes the problem: its solve at tol
   1e-10 (--time-limit s), then lcplab.vjp at its own answer
   (allow_unconverged=True: a budget-stopped answer's gradient is reported,
   marked), the relative error |<gb, d> - fd| / max(|fd|, 1e-6 |gx| |dx|), dx the
   central difference of the reference along d;
   an answer more than 1e-6 (1 + |x_ref|) away from the reference's (a
   problem with several answers, or a budget-stopped one) is not counted
   as stable; the wall time of the VJP (the modes read, the free block factored, one
   solve with it) against the wall time of the solve.

Printed: per solver and mode class, the problems counted (stable ones, the
solver's answer accepted / not), the median and max relative error, the
share within 1e-6 (the issue's goal for answers accepted at 1e-10); per
solver the median VJP / solve time ratio.  A CSV of every row is written
with --csv.  Python only; times are wall times from Python (the call's
overhead included on both sides).
"""

import argparse
import glob
import os
import sys
import time

import numpy as np

import lcplab

MODE_CLASSES = ("free", "at a bound", "separated", "sticking", "sliding", "degenerate")


def mode_classes(problem, modes):
    """Each row's class name: cones' rows (separated / sticking / sliding),
    findex rows (sticking / sliding), plain rows (free / at a bound), and
    degenerate where flagged."""
    n = problem.n
    cls = np.empty(n, dtype=object)
    in_cone = np.zeros(n, dtype=bool)
    for r0 in problem.cone_rows:
        in_cone[r0:r0 + 3] = True
    findex = problem.findex if problem.findex is not None else np.full(n, -1)
    for i in range(n):
        m = modes[i] & 3
        if modes[i] & 4:
            cls[i] = "degenerate"
        elif in_cone[i]:
            cls[i] = ("sticking", "separated", "separated", "sliding")[m]
        elif findex[i] >= 0:
            cls[i] = "sticking" if m == 0 else "sliding"
        else:
            cls[i] = "free" if m == 0 else "at a bound"
    return cls


def reference_solvers(problem):
    return ("nsn_ac", "ppa_nsn", "nsgs") if problem.ncones else ("lemke", "dantzig", "enum")


def reference_solve(problem, b=None):
    """The reference answer (at tol 1e-12) of problem, with b replaced."""
    p = problem if b is None else problem.replace(b=b)
    for s in reference_solvers(problem):
        try:
            r = lcplab.solve(p, s, tol=1e-12, time_limit=60, max_iter=100000)
        except lcplab.Error:
            continue
        if r.converged:
            return p, r
    return p, None


def modes_of(p, r):
    return lcplab.vjp(p, r, np.ones(p.n), allow_unconverged=True).modes


# The FD steps tried, largest first (relative to 1 + |b|_inf): without cone
# rows x(b) is affine while each row's mode holds (LCP, box, findex and
# pyramid rows), so the largest step whose modes hold on both sides has no
# truncation error and the least rounding noise (that noise is about
# cond * 1e-16 |x| / e: 1e-5 on relay1.dat at 1e-6, 3e-9 at 1e-3); a cone's
# sliding rows are curved, so problems with cones keep 1e-6.
FD_STEPS_AFFINE = (1e-3, 1e-4, 1e-5, 1e-6)
FD_STEPS_CONE = (1e-6,)


def central_difference(problem, base, d, k):
    """(dx along d, stable) from reference solves at b +- e d, e = k (1 + |b|)."""
    b = np.asarray(problem.b, dtype=float)
    e = k * (1 + np.abs(b).max()) / np.abs(d).max()
    pp, rp = reference_solve(problem, b + e * d)
    pm, rm = reference_solve(problem, b - e * d)
    if rp is None or rm is None:
        raise lcplab.Error("no reference answer at 1e-12 at b +- e d")
    # the degenerate flag (bit 4) moves with the tolerance: compared without it
    stable = all(np.array_equal(modes_of(q, r) & 3, base & 3) for q, r in ((pp, rp), (pm, rm)))
    return (np.asarray(rp.x) - np.asarray(rm.x)) / (2 * e), stable


def seeds(problem, ref, rng):
    """[(class, gx, d, fd, stable, |gx||dx|, FD step)] for each mode class present."""
    p0, r0 = ref
    base = modes_of(p0, r0)
    cls = mode_classes(problem, base)
    d = rng.standard_normal(problem.n)
    steps = FD_STEPS_CONE if problem.ncones else FD_STEPS_AFFINE
    for k in steps:  # the largest step whose modes hold; else the smallest
        try:
            dx, stable = central_difference(problem, base, d, k)
        except lcplab.Error:
            if k == steps[-1]:
                raise
            continue  # no reference there: a smaller step
        if stable:
            break
    out = []
    for c in MODE_CLASSES:
        rows = cls == c
        if not rows.any():
            continue
        gx = np.where(rows, rng.standard_normal(problem.n), 0.0)
        out.append((c, gx, d, float(gx @ dx), stable, np.linalg.norm(gx) * np.linalg.norm(dx), k))
    return out


def _status(r):
    return "converged" if r.converged else str(r.status).split(".")[-1].lower()


def best_of(fn, k=3):
    t = np.inf
    out = None
    for _ in range(k):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return out, t


def bench_problem(name, problem, solvers, args, rng, rows):
    _, r0 = ref = reference_solve(problem)
    if r0 is None:
        print(f"# {name}: no reference answer at 1e-12, skipped", file=sys.stderr)
        return
    try:
        sd = seeds(problem, ref, rng)
    except lcplab.Error as e:
        print(f"# {name}: no derivative at the reference answer ({e}), skipped", file=sys.stderr)
        return
    for s in solvers:
        try:
            r, ts = best_of(lambda: lcplab.solve(problem, s, tol=1e-10,
                                                 time_limit=args.time_limit), args.repeat)
        except lcplab.Error:
            continue  # the solver does not take this class
        if not np.all(np.isfinite(r.x)):
            continue
        # a problem with several answers: the solver's may not be the
        # reference's, whose differences are not its derivative
        xr = np.asarray(r0.x)
        other = np.abs(np.asarray(r.x) - xr).max() > 1e-6 * (1 + np.abs(xr).max())
        for c, gx, d, fd, stable, size, k in sd:
            try:
                g, tv = best_of(lambda: lcplab.vjp(problem, r, gx, allow_unconverged=True),
                                args.repeat)
            except lcplab.Error as e:
                rows.append((name, problem.n, s, _status(r), c, stable, np.nan, ts, np.nan,
                             str(e).split(":")[0], k))
                continue
            a = float(np.asarray(g.b) @ d)
            # |fd| below 1e-6 of |gx| |dx| (a cotangent nearly orthogonal to
            # the derivative) is measured on that scale instead
            scale = max(abs(fd), 1e-6 * size, 1e-300)
            rows.append((name, problem.n, s, _status(r), c, stable and not other,
                         abs(a - fd) / scale, ts, tv, "another answer" if other else "", k))


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


def summary(rows):
    print("# gradient quality: relative error of <VJP(gx), d> against central differences "
          "of reference solves at 1e-12")
    print("solver,mode,problems,stable,accepted,median_err_all,max_err_accepted_stable,"
          "within_1e-6_accepted_stable,max_err_unconverged")
    solvers = sorted({r[2] for r in rows})
    for s in solvers:
        for c in MODE_CLASSES:
            sel = [r for r in rows if r[2] == s and r[4] == c]
            if not sel:
                continue
            err = np.array([r[6] for r in sel], dtype=float)
            ok = [r for r in sel if r[5] and r[3] == "converged" and np.isfinite(r[6])]
            bad = [r[6] for r in sel if r[3] != "converged" and np.isfinite(r[6])]
            eo = np.array([r[6] for r in ok], dtype=float)
            print(f"{s},{c},{len(sel)},{sum(1 for r in sel if r[5])},"
                  f"{sum(1 for r in sel if r[3] == 'converged')},"
                  f"{np.nanmedian(err) if np.isfinite(err).any() else float('nan'):.2e},"
                  f"{eo.max() if len(eo) else float('nan'):.2e},"
                  f"{(eo <= 1e-6).mean() if len(eo) else float('nan'):.2f},"
                  f"{max(bad) if bad else float('nan'):.2e}")
    print("# VJP / solve wall time (the VJP: modes read, free block factored, one solve)")
    print("solver,problems,median_ratio,max_ratio,median_solve_s,median_vjp_s")
    for s in solvers:
        per = {}
        for r in rows:
            if r[2] == s and np.isfinite(r[8]):
                per.setdefault(r[0], (r[7], r[8]))
        if not per:
            continue
        ts = np.array([v[0] for v in per.values()])
        tv = np.array([v[1] for v in per.values()])
        ratio = tv / ts
        print(f"{s},{len(per)},{np.median(ratio):.2f},{ratio.max():.2f},{np.median(ts):.2e},"
              f"{np.median(tv):.2e}")


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
    rng = np.random.default_rng(args.seed)
    rows = []
    sources = [] if args.no_datasets else [dataset_problems(args.shared, args.max_n)]
    sources.append(scene_problems(args))
    t0 = time.perf_counter()
    for src in sources:
        for name, p in src:
            bench_problem(name, p, solvers, args, rng, rows)
            print(f"# {name} (n={p.n}) done at {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("problem,n,solver,status,mode,stable,rel_err,solve_s,vjp_s,note,fd_step\n")
            for r in rows:
                f.write(",".join(str(v) for v in r) + "\n")
    summary(rows)


if __name__ == "__main__":
    main()
