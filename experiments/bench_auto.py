#!/usr/bin/env python3
"""bench_auto.py -- the figure of `make bench-auto` (experiments/bench_auto.exp):
of the problems that some registered solver other than auto solves (the CSV's
`solved` column: converged at the tolerance, within the time limit), the share
that auto solves too; the goal is >= 98 % (docs/solver-machinery.md, "auto").

    python3 experiments/bench_auto.py DIR/bench-auto.csv [--goal 98]

Prints one line per problem auto misses (the fastest solver that solves it,
auto's status and the solver it ended with), per class counts, and the last
line "auto: S of N solved (P %), goal G %: met|missed".  Exit 0 when the CSV
was read (the figure is a measurement, not a test), 2 on a bad CSV.
"""
import argparse
import csv
import sys
from collections import defaultdict


def rows(path):
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--goal", type=float, default=98.0)
    a = ap.parse_args()
    try:
        data = rows(a.csv)
    except OSError as e:
        print(f"bench_auto.py: {a.csv}: {e.strerror}", file=sys.stderr)
        return 2
    need = {"problem", "solver", "solved", "status", "time_s", "class", "method"}
    if not data or not need <= set(data[0]):
        print(f"bench_auto.py: {a.csv}: expected the columns {sorted(need)} of a profile CSV",
              file=sys.stderr)
        return 2
    best = {}  # problem -> (time, solver) of the fastest non-auto solve
    auto = {}  # problem -> its row
    klass = {}
    for r in data:
        p = r["problem"]
        klass[p] = r["class"]
        if r["solver"] == "auto":
            auto[p] = r
        elif r["solved"] == "1":
            t = float(r["time_s"]) if r["time_s"] else float("inf")
            if p not in best or t < best[p][0]:
                best[p] = (t, r["solver"])
    solved, per_class = 0, defaultdict(lambda: [0, 0])
    for p in sorted(best):
        ok = p in auto and auto[p]["solved"] == "1"
        solved += ok
        per_class[klass[p]][0] += ok
        per_class[klass[p]][1] += 1
        if not ok:
            r = auto.get(p, {})
            print(f"missed {p} ({klass[p]}): {best[p][1]} solves it in {best[p][0]:.3g} s; "
                  f"auto {r.get('status', 'not run')} (ended with {r.get('method', '?')})")
    only_auto = [p for p, r in auto.items() if r["solved"] == "1" and p not in best]
    for p in sorted(only_auto):
        print(f"auto alone solves {p} ({klass[p]}, {auto[p]['method']})")
    for c in sorted(per_class):
        s, n = per_class[c]
        print(f"class {c}: auto solves {s} of the {n} another solver solves")
    n = len(best)
    pct = 100.0 * solved / n if n else 100.0
    verdict = "met" if pct >= a.goal else "missed"
    print(f"auto: {solved} of {n} solved ({pct:.1f} %), goal {a.goal:g} %: {verdict} "
          f"({len(auto)} problems, {len(only_auto)} solved by auto alone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
