#!/usr/bin/env python3
"""bench_exports.py -- the CSV, table and plot data of experiments/bench_exports.sh
(python3 standard library only).

    python3 experiments/bench_exports.py RUNS TOL OUTDIR TIMEOUT MEM_GB

RUNS: the script's runs.tsv (scene, size, contacts, n, program, solver,
status, time_s, res_rel_q, peak_mb, exit), one row per run.  A run is solved
iff its r, judged by peer_fc3d --check-r, has res_rel_q <= TOL.  Writes
OUTDIR/bench_exports.csv (the runs with `solved`, then one gnuplot block per
program and outcome), OUTDIR/bench_exports.md (per problem: every run; the
fastest solver that solves it; lcplab auto against the fastest Siconos
solver that solves it; the Siconos solvers that do not run at that size),
moving earlier files aside with a UTC timestamp, and prints the table.
"""
import csv
import math
import os
import sys
import time


def num(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


def load(path, tol):
    rows = []
    with open(path) as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            r["size"] = int(r["size"])
            r["contacts"] = int(r["contacts"])
            r["n"] = int(r["n"])
            r["time_s"] = num(r["time_s"])
            r["res_rel_q"] = num(r["res_rel_q"])
            r["peak_mb"] = int(r["peak_mb"] or 0)
            r["run_tol"] = num(r.get("run_tol", "nan"))
            r["solved"] = r["res_rel_q"] <= tol
            rows.append(r)
    return rows


def move_aside(path):
    if os.path.exists(path):
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(os.path.getmtime(path)))
        base, ext = os.path.splitext(path)
        os.replace(path, f"{base}.{stamp}{ext}")


def outcome(r, timeout, mem_gb):
    """What happened, in words a table can hold."""
    if r["solved"]:
        return "solved"
    st = r["status"]
    if st == "timeout":
        return f"no answer in {timeout:g} s"
    if st in ("out_of_memory", "killed"):
        return f"out of memory ({mem_gb:g} GB cap; {r['peak_mb'] / 1024:.1f} GB)"
    if st == "crash" and r["peak_mb"] >= 0.85 * 1024 * mem_gb:
        # an allocation failed at the cap: Siconos asserts on the NULL it got
        # (peer_fc3d: "NM_iWork: Assertion `A->internalData->iWork' failed",
        # signal 6, 14.7 GB resident under a 16 GB cap)
        return f"out of memory (aborted at the {mem_gb:g} GB cap; {r['peak_mb'] / 1024:.1f} GB resident)"
    if st == "crash":
        note = r.get("note") or ""
        return f"crash (exit {r.get('exit', '?')}{': ' + note if note else ''})"
    if st == "ok":
        return "not solved (Siconos' own test passed)"
    return f"not solved ({st})"


def fmt_time(t):
    return "-" if not math.isfinite(t) else (f"{t:.3g}" if t >= 0.01 else f"{t:.2g}")


def fmt_res(v):
    return "-" if not math.isfinite(v) else f"{v:.1e}"


def series(rows):
    """(scene, program, solver) in the order of the runs."""
    seen = []
    for r in rows:
        key = (r["scene"], r["program"], r["solver"])
        if key not in seen:
            seen.append(key)
    return seen


def gp_str(text):
    """TEXT as a gnuplot single-quoted string (' written ''): a scene or
    solver name is data in the plot commands, never code (experiments/CAMPAIGNS.md,
    "No shell ever parses a value")."""
    if "\n" in text or "\r" in text:
        raise ValueError(f"a name holds a newline: {text!r}")
    return "'" + text.replace("'", "''") + "'"


def write_csv(rows, path, plot_path):
    """The runs, then one gnuplot block per scene, program and solver
    (contacts, time, solved), and plot_path: the plot commands that
    bench_exports.gp loads (one panel per scene; filled points solved, open
    points where the run stopped unsolved)."""
    move_aside(path)
    keys = ["scene", "size", "contacts", "n", "program", "solver", "run_tol", "status", "time_s",
            "res_rel_q", "solved", "peak_mb"]
    blocks = series(rows)
    with open(path, "w") as fh:
        fh.write("# bench_exports.csv: experiments/bench_exports.sh (one row per run), then one\n")
        fh.write("# block per scene, program and solver for bench_exports.gp\n")
        fh.write(",".join(keys) + "\n")
        for r in rows:
            fh.write(",".join(str(int(r[k]) if k == "solved" else r[k]) for k in keys) + "\n")
        for scene, prog, solver in blocks:
            fh.write("\n\n")
            for r in rows:
                if (r["scene"], r["program"], r["solver"]) == (scene, prog, solver):
                    t = r["time_s"] if math.isfinite(r["time_s"]) else "nan"
                    fh.write(f"{r['contacts']},{t},{int(r['solved'])}\n")
    scenes = []
    for b in blocks:
        if b[0] not in scenes:
            scenes.append(b[0])
    with open(plot_path, "w") as fh:
        fh.write("# written by bench_exports.py: one panel per scene\n")
        fh.write(f"set multiplot layout 1,{len(scenes)} title mtitle noenhanced\n")
        for scene in scenes:
            parts = []
            for k, (sc, prog, solver) in enumerate(blocks):
                if sc != scene:
                    continue
                colour = ["#1f77b4", "#2ca02c", "#17becf", "#9467bd", "#bcbd22"] if prog == "lcplab" \
                    else ["#d62728", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"]
                c = colour[[b for b in blocks if b[0] == sc and b[1] == prog].index((sc, prog, solver)) % 5]
                title = f"{'lcplab' if prog == 'lcplab' else 'Siconos'} {solver}"
                parts.append(f"csv index {k + 1} using 1:($3 == 1 ? $2 : NaN) with linespoints "
                             f"lw 2 pt {7 if prog == 'lcplab' else 9} lc rgb '{c}' title {gp_str(title)}")
                parts.append(f"csv index {k + 1} using 1:($3 == 0 ? $2 : NaN) with points "
                             f"pt {6 if prog == 'lcplab' else 8} ps 1.5 lc rgb '{c}' notitle")
            fh.write(f"set title {gp_str(scene + ' exports (step 240)')}\n")
            fh.write("plot " + ", \\\n     ".join(parts) + "\n")
        fh.write("unset multiplot\n")


def problems(rows):
    seen = []
    for r in rows:
        key = (r["scene"], r["size"])
        if key not in seen:
            seen.append(key)
    return seen


def table(rows, tol, timeout, mem_gb):
    out = [f"# Scene exports at {tol:g} (2-norm judge: peer_fc3d --check-r)", "",
           "Every run is one solve; `res_rel_q` is the judge's residual of the returned r. A "
           "Siconos run whose own test passed and the judge's did not was repeated at a tighter "
           "tol (the column `tol of the run`).", ""]
    summary = ["| problem | contacts | n | fastest solved | lcplab auto | fastest Siconos solved | "
               "auto vs Siconos | Siconos solvers that cannot run |",
               "|---|---:|---:|---|---|---|---|---|"]
    detail = ["| problem | program | solver | tol of the run | outcome | time (s) | res_rel_q | "
              "peak memory (MB) |",
              "|---|---|---|---:|---|---:|---:|---:|"]
    for scene, size in problems(rows):
        rs = [r for r in rows if r["scene"] == scene and r["size"] == size]
        label = f"{scene} {size}"
        for r in rs:
            detail.append(f"| {label} | {r['program']} | {r['solver']} | {r['run_tol']:g} | "
                          f"{outcome(r, timeout, mem_gb)} | {fmt_time(r['time_s'])} | "
                          f"{fmt_res(r['res_rel_q'])} | {r['peak_mb']} |")
        solved = [r for r in rs if r["solved"]]
        best = min(solved, key=lambda r: r["time_s"]) if solved else None
        auto = next((r for r in rs if r["program"] == "lcplab" and r["solver"] == "auto"), None)
        sic = [r for r in solved if r["program"] == "siconos"]
        sbest = min(sic, key=lambda r: r["time_s"]) if sic else None
        cannot = [f"{r['solver']} ({outcome(r, timeout, mem_gb).split(' (')[0]})" for r in rs
                  if r["program"] == "siconos"
                  and r["status"] in ("timeout", "out_of_memory", "killed", "crash")]
        if auto and auto["solved"] and sbest:
            vs = f"{sbest['time_s'] / auto['time_s']:.1f}x faster"
        elif auto and auto["solved"]:
            vs = "auto solves, no Siconos solver does"
        elif sbest:
            vs = "Siconos solves, auto does not"
        else:
            vs = "neither solves"
        any_sic = any(r["program"] == "siconos" for r in rs)
        summary.append(
            f"| {label} | {rs[0]['contacts']} | {rs[0]['n']} | "
            f"{(best['program'] + ' ' + best['solver'] + ' ' + fmt_time(best['time_s']) + ' s') if best else 'none'} | "
            f"{(outcome(auto, timeout, mem_gb) + ', ' + fmt_time(auto['time_s']) + ' s, ' + fmt_res(auto['res_rel_q'])) if auto else '-'} | "
            f"{(sbest['solver'] + ' ' + fmt_time(sbest['time_s']) + ' s') if sbest else ('none' if any_sic else 'not run')} | "
            f"{vs if any_sic else '-'} | {', '.join(cannot) if cannot else ('none' if any_sic else '-')} |")
    return "\n".join(out + summary + ["", "## Every run", ""] + detail) + "\n"


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: bench_exports.py RUNS TOL OUTDIR TIMEOUT MEM_GB")
    runs, tol, outdir, timeout, mem_gb = sys.argv[1], float(sys.argv[2]), sys.argv[3], \
        float(sys.argv[4]), float(sys.argv[5])
    rows = load(runs, tol)
    write_csv(rows, os.path.join(outdir, "bench_exports.csv"),
              os.path.join(outdir, "bench_exports_series.gp"))
    md = table(rows, tol, timeout, mem_gb)
    path = os.path.join(outdir, "bench_exports.md")
    move_aside(path)
    with open(path, "w") as fh:
        fh.write(md)
    print(md)


if __name__ == "__main__":
    main()
