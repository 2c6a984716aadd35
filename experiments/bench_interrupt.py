"""bench_interrupt.py -- benchmark (`make bench-interrupt`; not a test): what
the stop conditions of a solve cost and how soon they act (docs/solver-machinery.md,
"Time limits and interruption").

    python3 experiments/bench_interrupt.py BUILDDIR OUTDIR

Problems: step 240 of the pile of 500 and of 2000 spheres, exported (as
bench_exports.exp's scene lines: --friction cone --solver nsgs --steps 240 --every
240 --format dat), kept in BUILDDIR/experiments/exports/ (made when missing).

1. The poll's cost.  `lcplab solve FILE --solver S --max-iter I --tol 1e-14`
   with and without `--time-limit 1e6` (a deadline never reached: every slow
   poll reads the clock), for S in nsgs, pjacobi_cone, apgd, ipm on the pile of 500,
   ROUNDS rounds interleaved (a machine that slows down slows both); the
   medians of time_s and their ratio.  Then the Python package's check of
   Ctrl-C (the cancel callback, main thread only): lcplab.solve on the main
   thread against the same solve in a second thread (no check there).
2. The interrupt's delay on the pile of 2000 (n about 16,000), ipm (auto's
   choice there): SIGINT sent by a timer thread SEND s after the solve
   started, the time until KeyboardInterrupt reaches Python; a time limit
   of SEND s, the time past it when solve() returns; the same limit through
   `lcplab solve --time-limit`; and ipm's longest gap between two
   iterations (its history's times), which bounds the delay (its poll sits
   before each factorization).

Output: OUTDIR/bench_interrupt.md (the tables) and bench_interrupt.csv (one
row per measurement).  Environment: BENCH_INTERRUPT_ROUNDS (default 5),
BENCH_INTERRUPT_SEND (default 3 s), OPENBLAS_NUM_THREADS=1.
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

from outfile import replace_text, replacing  # outputs never written through a planted link


def export(lcplab, builddir, n):
    """The step-240 export of the pile of n spheres (made once)."""
    d = os.path.join(builddir, "experiments", "exports", f"pile_{n}")
    f = os.path.join(d, "pile_step000240.dat")
    if not os.path.exists(f) or os.path.getsize(f) == 0:
        os.makedirs(d, exist_ok=True)
        subprocess.run([lcplab, "export", "--scene", "pile", "--param", f"n={n}", "--friction",
                        "cone", "--solver", "nsgs", "--steps", "240", "--every", "240", "--format",
                        "dat", "--out", d], check=True, stdout=subprocess.DEVNULL)
    return f


def cli_solve(lcplab, f, solver, iters, extra):
    cmd = [lcplab, "solve", f, "--solver", solver, "--max-iter", str(iters), "--tol", "1e-14"]
    r = subprocess.run(cmd + extra, capture_output=True, text=True)
    if r.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(cmd + extra)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def poll_cost(lcplab, f, rounds, rows):
    cases = [("nsgs", 200), ("pjacobi_cone", 300), ("apgd", 300), ("ipm", 30)]
    table = []
    for solver, iters in cases:
        t = {"without": [], "with": []}
        for k in range(rounds):
            for label, extra in (("without", []), ("with", ["--time-limit", "1e6"])):
                j = cli_solve(lcplab, f, solver, iters, extra)
                t[label].append(j["time_s"])
                rows.append(("cli_poll", solver, label, k, j["time_s"], j["iterations"]))
        a, b = statistics.median(t["without"]), statistics.median(t["with"])
        table.append(f"| {solver} | {iters} | {a:.4f} | {b:.4f} | {b / a:.3f} |")
    return table


def python_check_cost(lcplab_py, f, rounds, rows):
    p = lcplab_py.read(f)
    table = []
    for solver, iters in (("nsgs", 200), ("apgd", 300)):
        t = {"main": [], "thread": []}
        for k in range(rounds):
            r = lcplab_py.solve(p, solver, max_iter=iters, tol=1e-14)
            t["main"].append(r.time)
            box = {}
            th = threading.Thread(target=lambda: box.update(
                r=lcplab_py.solve(p, solver, max_iter=iters, tol=1e-14)))
            th.start()
            th.join()
            t["thread"].append(box["r"].time)
            rows.append(("py_check", solver, "main", k, r.time, r.iterations))
            rows.append(("py_check", solver, "thread", k, box["r"].time, box["r"].iterations))
        a, b = statistics.median(t["thread"]), statistics.median(t["main"])
        table.append(f"| {solver} | {iters} | {a:.4f} | {b:.4f} | {b / a:.3f} |")
    return table


def sigint_delay(lcplab_py, p, send, rows):
    sent = {}

    def fire():
        sent["t"] = time.monotonic()
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(send, fire)
    t0 = time.monotonic()
    timer.start()
    try:
        lcplab_py.solve(p, "ipm")
        got = None
    except KeyboardInterrupt:
        got = time.monotonic()
    timer.join()
    if got is None:
        return None
    rows.append(("sigint", "ipm", f"send={send}", 0, got - sent["t"], ""))
    return got - sent["t"], got - t0


def limit_overshoot(lcplab_py, p, send, rows):
    t0 = time.monotonic()
    r = lcplab_py.solve(p, "ipm", time_limit=send, history=True)
    el = time.monotonic() - t0
    gaps = [b - a for a, b in zip(r.history_time[:-1], r.history_time[1:])] if r.history_time is \
        not None and len(r.history_time) > 1 else [float("nan")]
    rows.append(("time_limit_py", "ipm", r.status_str, 0, el - send, r.iterations))
    return r, el, max(gaps)


def main():
    builddir, outdir = sys.argv[1], sys.argv[2]
    rounds = int(os.environ.get("BENCH_INTERRUPT_ROUNDS", "5"))
    send = float(os.environ.get("BENCH_INTERRUPT_SEND", "3"))
    sys.path.insert(0, os.path.join(builddir, "python"))
    import lcplab as lcplab_py

    lcplab = os.path.join(builddir, "cli", "lcplab")
    small, large = export(lcplab, builddir, 500), export(lcplab, builddir, 2000)
    rows, md = [], ["# bench_interrupt", "",
                    f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, host {os.uname()[1]}, "
                    f"{os.cpu_count()} cores; medians of {rounds} interleaved rounds.", ""]
    md += ["## The poll's cost: lcplab solve, pile of 500 (step 240)", "",
           "| solver | max-iter | time_s without | with --time-limit 1e6 | ratio |",
           "|---|---|---|---|---|"]
    md += poll_cost(lcplab, small, rounds, rows)
    md += ["", "## The Python check of Ctrl-C: lcplab.solve, pile of 500", "",
           "| solver | max_iter | second thread (no check) | main thread (check) | ratio |",
           "|---|---|---|---|---|"]
    md += python_check_cost(lcplab_py, small, rounds, rows)
    p = lcplab_py.read(large)
    md += ["", f"## Stopping ipm on the pile of 2000 (n = {p.n}), after {send} s", "",
           "| what | delay past the signal / limit (s) | note |", "|---|---|---|"]
    for k in range(2):
        d = sigint_delay(lcplab_py, p, send, rows)
        md.append(f"| SIGINT, run {k + 1} | " + ("not interrupted (the solve ended first) | |"
                                                 if d is None else f"{d[0]:.3f} | raised at {d[1]:.2f} s |"))
    r, el, gap = limit_overshoot(lcplab_py, p, send, rows)
    md.append(f"| solve(time_limit={send}) | {el - send:.3f} | {r.status_str}, {r.iterations} "
              f"iterations, res_scaled {r.residuals.res_scaled:.3g}; longest gap between two "
              f"iterations {gap:.3f} s |")
    t0 = time.monotonic()
    j = cli_solve(lcplab, large, "ipm", 1000, ["--time-limit", str(send)])
    el = time.monotonic() - t0
    rows.append(("time_limit_cli", "ipm", j["status"], 0, j["time_s"] - send, j["iterations"]))
    md.append(f"| lcplab solve --time-limit {send} | {j['time_s'] - send:.3f} | {j['status']}, "
              f"time_s {j['time_s']:.2f} (the process: {el:.2f} s with the reading) |")
    os.makedirs(outdir, exist_ok=True)
    replace_text(os.path.join(outdir, "bench_interrupt.md"), "\n".join(md) + "\n",
                 "bench_interrupt.py")
    with replacing(os.path.join(outdir, "bench_interrupt.csv"), "bench_interrupt.py") as fo:
        fo.write("kind,solver,case,round,seconds,iterations\n")
        for row in rows:
            fo.write(",".join(str(v) for v in row) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
