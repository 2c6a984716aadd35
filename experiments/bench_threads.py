"""bench_threads.py -- the runs and tables of bench_threads.sh (see there).

    python3 bench_threads.py LCPLAB ROUNDTRIP EXPORTS_DIR OUT_DIR

ROUNDTRIP is experiments/core_roundtrip: the cross-core round trip of a
cache line, measured before and after every two-thread run, names the
placement that run had (FAR_NS below).
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

from outfile import replace_text, replacing  # outputs never written through a planted link

SCENE_RUNS = [("pgs_wide", 1), ("pgs_part", 1), ("pgs_color", 1), ("pgs_color", 2), ("pgs_part", 2)]
EXPORT_RUNS = [("apgd", 1), ("apgd", 2), ("pjacobi_cone", 1), ("pjacobi_cone", 2),
               ("auto", 1), ("auto", 2)]
STAGES = ["collide", "build_rows", "assemble", "solve", "apply", "integrate"]
FIELDS = ["kind", "case", "solver", "threads", "round", "time_s", "step_s", "split",
          "penetration", "res_nat_inf", "roundtrip_before_ns", "roundtrip_after_ns"] + \
    [f"stage_{s}_s" for s in STAGES]
# A cross-core round trip at or above this (ns) is a far placement: on the
# 2-vCPU machine of experiments/records/2026-11-24-threads.md the
# probe reads 87-134 ns or 370-453 ns, nothing between.
FAR_NS = 250.0


def cases(var, default):
    out = []
    for item in os.environ.get(var, default).split():
        name, _, size = item.partition(":")
        if name not in ("pile", "pyramid") or not size.isdigit():
            sys.exit(f"bench_threads: {var}: '{item}' is not pile:N or pyramid:N")
        out.append((name, int(size)))
    return out


def param(name, size):
    return f"{'layers' if name == 'pyramid' else 'n'}={size}"


def run_json(cmd, what):
    """Runs cmd; its stdout's JSON (exit 0, or 3: a solve that stopped at
    its budget), else exits 1 naming the run."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 3):
        sys.exit(f"bench_threads: {what} failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")
    try:
        return json.loads(p.stdout)
    except ValueError:
        sys.exit(f"bench_threads: {what}: no JSON on stdout")


def roundtrip(probe):
    """The cross-core round trip (ns) of core_roundtrip, or exits 1."""
    p = subprocess.run([probe], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"bench_threads: {probe} failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")
    try:
        return float(json.loads(p.stdout)["round_trip_ns"])
    except (ValueError, KeyError):
        sys.exit(f"bench_threads: {probe}: no round_trip_ns on stdout")


def placement(row):
    """'near' or 'far' when both probes around a two-thread run agree,
    'changed' when the placement moved during it, '' for one thread."""
    a, b = row.get("roundtrip_before_ns", ""), row.get("roundtrip_after_ns", "")
    if a == "" or b == "":
        return ""
    far = (a >= FAR_NS, b >= FAR_NS)
    return "far" if all(far) else "near" if not any(far) else "changed"


def probed(probe, threads, run):
    """run() between two round-trip probes when threads > 1."""
    before = roundtrip(probe) if threads > 1 else ""
    row = run()
    row["roundtrip_before_ns"] = before
    row["roundtrip_after_ns"] = roundtrip(probe) if threads > 1 else ""
    return row


def export(lcplab, exports, name, size):
    d = os.path.join(exports, f"{name}_{size}")
    f = os.path.join(d, f"{name}_step000240.dat")
    if not os.path.exists(f) or os.path.getsize(f) == 0:
        os.makedirs(d, exist_ok=True)
        cmd = [lcplab, "export", "--scene", name, "--param", param(name, size), "--friction",
               "cone", "--solver", "nsgs", "--steps", "240", "--every", "240", "--format",
               "dat", "--out", d]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"bench_threads: export of {name} {size} failed: {p.stderr.strip()[-300:]}")
    return f


def scene_row(lcplab, tmp, name, size, solver, threads, steps, rnd):
    csvf = os.path.join(tmp, "steps.csv")
    d = run_json([lcplab, "simulate", "--scene", name, "--param", param(name, size), "--solver",
                  solver, "--steps", str(steps), "--threads", str(threads), "--csv", csvf,
                  "--force"], f"{name} {size} {solver} on {threads}")
    row = {"kind": "scene", "case": f"{name} {size}", "solver": solver, "threads": threads,
           "round": rnd, "time_s": d["time_solve_mean_s"], "step_s": d["time_step_median_s"],
           "split": d.get("threaded_solves", 0), "penetration": d.get("max_penetration_end"),
           "res_nat_inf": ""}
    for s in STAGES:
        row[f"stage_{s}_s"] = d["time_stage_mean_s"][s]
    return row


def export_row(lcplab, f, case, solver, threads, iters, rnd):
    d = run_json([lcplab, "solve", f, "--solver", solver, "--max-iter", str(iters), "--tol",
                  "1e-12", "--threads", str(threads)], f"{case} {solver} on {threads}")
    return {"kind": "export", "case": case, "solver": solver, "threads": threads, "round": rnd,
            "time_s": d["time_s"], "step_s": "", "split": "", "penetration": "",
            "res_nat_inf": repr(d["res_nat_inf"]), **{f"stage_{s}_s": "" for s in STAGES}}


def speedups(rows, key="time_s"):
    """(kind, case, solver, [per-round speed-up], [per-round placement]) of
    each two-thread run against its family's fastest single thread in the
    same round, on rows[key] (time_s, or step_s: the scenes' whole step)."""
    out = []
    keys = sorted({(r["kind"], r["case"], r["solver"]) for r in rows
                   if r["threads"] == 2 and r[key] != ""})
    for kind, case, solver in keys:
        ratios, places = [], []
        for rnd in sorted({r["round"] for r in rows}):
            same = [r for r in rows if r["case"] == case and r["round"] == rnd]
            two = [r for r in same if r["solver"] == solver and r["threads"] == 2]
            ones = [r[key] for r in same if r["threads"] == 1 and
                    (kind == "scene" or r["solver"] == solver)]
            if two and ones:
                ratios.append(min(ones) / two[0][key])
                places.append(placement(two[0]))
        out.append((kind, case, solver, ratios, places))
    return out


def by_placement(ratios, places):
    """'near: least-largest (k rounds); far: ...' over the rounds of each
    placement."""
    parts = []
    for where in ("near", "far", "changed"):
        xs = [x for x, p in zip(ratios, places) if p == where]
        if xs:
            parts.append(f"{where} {min(xs):.2f}-{max(xs):.2f} ({len(xs)})")
    return "; ".join(parts)


def same_bits(rows):
    """Export runs whose res_nat_inf differs between 1 and 2 threads."""
    bad = []
    for case, solver in {(r["case"], r["solver"]) for r in rows if r["kind"] == "export"}:
        vals = {r["res_nat_inf"] for r in rows if r["case"] == case and r["solver"] == solver}
        if len(vals) > 1:
            bad.append(f"{case} {solver}: {sorted(vals)}")
    return bad


def speedup_table(rows, key):
    """The table rows of speedups(rows, key)."""
    lines = ["| case | solver | T = 1 times | T = 2 times | speed-up per round | least | median | largest "
             "| placement per round | by placement (rounds) |",
             "|---|---|---|---|---|---:|---:|---:|---|---|"]
    for kind, case, solver, ratios, places in speedups(rows, key):
        fam = [r for r in rows if r["case"] == case]
        one = sorted({r["solver"] for r in fam if r["threads"] == 1 and
                      (kind == "scene" or r["solver"] == solver)})
        t1 = "; ".join(f"{s} " + ", ".join(f"{1e3 * r[key]:.2f}" for r in fam
                                           if r["solver"] == s and r["threads"] == 1)
                       for s in one)
        t2 = ", ".join(f"{1e3 * r[key]:.2f}" for r in fam
                       if r["solver"] == solver and r["threads"] == 2)
        lines.append(f"| {case} | {solver} | {t1} ms | {t2} ms | "
                     + ", ".join(f"{x:.2f}" for x in ratios)
                     + f" | {min(ratios):.2f} | {statistics.median(ratios):.2f} | {max(ratios):.2f} | "
                     + ", ".join(places) + f" | {by_placement(ratios, places)} |")
    return lines


def stage_table(rows):
    """Per scene, each stage's median over the rounds (ms) for pgs_wide on
    one thread and pgs_part on two, and their ratio."""
    cases = sorted({r["case"] for r in rows if r["kind"] == "scene"})
    if not cases:
        return []
    lines = ["", "Where the step's time goes (time_stage_mean_s, the median over the rounds, ms): "
             "pgs_wide on one thread, pgs_part on two, and the ratio:", "",
             "| case | " + " | ".join(STAGES) + " |", "|---|" + "---|" * len(STAGES)]
    for case in cases:
        cells = []
        for s in STAGES:
            one = [r[f"stage_{s}_s"] for r in rows
                   if r["case"] == case and r["solver"] == "pgs_wide" and r["threads"] == 1]
            two = [r[f"stage_{s}_s"] for r in rows
                   if r["case"] == case and r["solver"] == "pgs_part" and r["threads"] == 2]
            if not one or not two:
                cells.append("")
                continue
            a, b = statistics.median(one), statistics.median(two)
            cells.append(f"{1e3 * a:.2f} / {1e3 * b:.2f} ({a / b:.2f}x)" if b > 0 else "")
        lines.append(f"| {case} | " + " | ".join(cells) + " |")
    return lines


def probe_summary(rows):
    """The probes' range per placement, e.g. 'near 88-120 (14 runs), far ...'."""
    parts = []
    for where in ("near", "far", "changed"):
        runs = [r for r in rows if placement(r) == where]
        if runs:
            ns = [r[k] for r in runs for k in ("roundtrip_before_ns", "roundtrip_after_ns")]
            parts.append(f"{where} {min(ns):.0f}-{max(ns):.0f} ({len(runs)} runs)")
    return "; ".join(parts) if parts else "none"


def write_md(path, rows, rounds):
    lines = ["# Two threads against one (bench_threads.sh)", "",
             f"{rounds} interleaved rounds; time: the scene's mean solve (time_solve_mean_s) or "
             "the export's solve (time_s); speed-up: the fastest single thread of the family "
             "(scenes: pgs_wide, pgs_part, pgs_color; exports: the solver itself) in the same "
             "round over the two-thread time.", "",
             "Placement: the cross-core round trip of a cache line (experiments/core_roundtrip), "
             f"probed before and after each two-thread run: near below {FAR_NS:.0f} ns both times, "
             "far at or above it both times, changed otherwise. A lone thread per core runs "
             "at the same speed in either; two threads that share rows and bodies do not "
             "(experiments/records/2026-11-24-threads.md). Probes (ns, before/after): "
             + probe_summary(rows) + ".", ""]
    lines += speedup_table(rows, "time_s")
    lines += ["", "The scenes' whole step (time_step_median_s: collision, rows, assembly, solve, "
              "impulses and integration, the world's loops on the same threads), against the "
              "fastest single-thread step of the family in the same round:", ""]
    lines += speedup_table(rows, "step_s")
    lines += stage_table(rows)
    bad = same_bits(rows)
    lines += ["", "Exports: res_nat_inf the same bits on 1 and 2 threads: "
              + ("yes." if not bad else "NO: " + "; ".join(bad))]
    splits = [f"{r['case']} {r['solver']} on 2: {r['split']}" for r in rows
              if r["kind"] == "scene" and r["threads"] == 2 and r["round"] == 1]
    if splits:
        lines += ["", "Scene solves that split on two threads (round 1): " + "; ".join(splits) + "."]
    replace_text(path, "\n".join(lines) + "\n", "bench_threads.py")
    return bad


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: bench_threads.py LCPLAB ROUNDTRIP EXPORTS_DIR OUT_DIR")
    lcplab, probe, exports, out = sys.argv[1:]
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    rounds = int(os.environ.get("BENCH_THREADS_ROUNDS", "3"))
    steps = int(os.environ.get("BENCH_THREADS_STEPS", "200"))
    iters = int(os.environ.get("BENCH_THREADS_ITERS", "300"))
    # auto sends these exports to ipm, whose iterations are factorizations
    auto_iters = int(os.environ.get("BENCH_THREADS_AUTO_ITERS", "20"))
    scenes = cases("BENCH_THREADS_SCENES", "pile:5000 pyramid:50")
    exps = [(f"{n} {s} export", export(lcplab, exports, n, s))
            for n, s in cases("BENCH_THREADS_EXPORTS", "pile:5000 pyramid:50")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(1, rounds + 1):
            for name, size in scenes:
                for solver, th in SCENE_RUNS:
                    rows.append(probed(probe, th, lambda: scene_row(
                        lcplab, tmp, name, size, solver, th, steps, rnd)))
                    r = rows[-1]
                    print(f"round {rnd}: {r['case']} {solver} T={th}: solve {1e3 * r['time_s']:.2f} ms, "
                          f"step {1e3 * r['step_s']:.2f} ms {placement(r)}", file=sys.stderr)
            for case, f in exps:
                for solver, th in EXPORT_RUNS:
                    rows.append(probed(probe, th, lambda: export_row(
                        lcplab, f, case, solver, th,
                        auto_iters if solver == "auto" else iters, rnd)))
                    print(f"round {rnd}: {case} {solver} T={th}: {rows[-1]['time_s']:.3f} s "
                          f"{placement(rows[-1])}", file=sys.stderr)
    with replacing(os.path.join(out, "bench_threads.csv"), "bench_threads.py", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    bad = write_md(os.path.join(out, "bench_threads.md"), rows, rounds)
    print(f"bench_threads: {out}/bench_threads.md", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
