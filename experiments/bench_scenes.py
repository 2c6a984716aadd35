#!/usr/bin/env python3
"""bench_scenes.py -- the CSV and table of experiments/bench_scenes.sh (python3
standard library only).

    python3 experiments/bench_scenes.py RUNS PEERS_JSONL OUTDIR LABEL

RUNS: one line per lcplab run, "SCENE SIZE STEPS_CSV JSON" (the JSON summary of
lcplab simulate, STEPS_CSV its per-step CSV).  PEERS_JSONL: the peers' sweep
(ODE quickstep and Bullet), with pyramid_check.jsonl beside it for the
pyramids' box displacements.  LABEL: lcplab's engine label.  Writes
OUTDIR/bench_scenes.csv (one row per engine, scene and size, then one block
per engine and scene for gnuplot) and OUTDIR/bench_scenes.md (the table and the
slopes of log(step ms) on log(contacts)), and prints the table.  With several
runs of one engine, scene and size (REPEAT), the fastest is kept.
"""
import csv
import json
import math
import os
import sys

PEERS = ("ode-quickstep", "bullet", "bullet-friction2")
# Bullet's SOLVER_USE_2_FRICTION_DIRECTIONS bit of solver_mode (peer_scene
# --bullet-friction2): two tangent rows per contact, the equal-work run
BULLET_2_FRICTION_DIRECTIONS = 16


def peer_engine(d):
    """The peer's label: Bullet with two friction rows is its own engine."""
    e = d["engine"]
    if e == "bullet" and d.get("engine_info", {}).get("solver_mode", 0) & BULLET_2_FRICTION_DIRECTIONS:
        return "bullet-friction2"
    return e


def peer_rows_per_contact(engine):
    """Constraint rows a contact costs the peer: normal and one friction
    direction for Bullet's default, three for ODE's dContactApprox1 and
    Bullet with two friction directions."""
    return 2 if engine == "bullet" else 3


def lcplab_rows(runs, lcp):
    rows = []
    with open(runs) as fh:
        for line in fh:
            scene, size, steps_csv, js = line.split(" ", 3)
            d = json.loads(js)
            # rows per step over the same last 480 steps as the contacts
            with open(steps_csv) as sc:
                nrows = [float(r["rows"]) for r in csv.DictReader(sc)][-480:]
            rows.append(dict(engine=lcp, scene=scene, size=int(size),
                             contacts=d["contacts_mean_timed"], step_ms=1e3 * d["time_step_median_s"],
                             pen_end=d["max_penetration_end"], rows=sum(nrows) / len(nrows),
                             disp=d["max_body_displacement"] if scene == "pyramid" else None))
    return rows


def peer_rows(jsonl):
    # (engine, layers) -> the peers' max_body_displacement, for a sweep whose
    # lines predate that field (the stored one)
    disp = {}
    check = os.path.join(os.path.dirname(jsonl), "pyramid_check.jsonl")
    if os.path.exists(check):
        with open(check) as fh:
            for line in fh:
                d = json.loads(line)
                disp[(peer_engine(d), d["params"].get("layers"))] = d.get("max_body_displacement")
    rows = []
    with open(jsonl) as fh:
        for line in fh:
            d = json.loads(line)
            eng = peer_engine(d)
            if eng not in PEERS:
                continue
            p = d["params"]
            moved = None
            if d["scene"] == "pyramid":
                moved = d.get("max_body_displacement", disp.get((eng, p.get("layers"))))
            rows.append(dict(engine=eng, scene=d["scene"],
                             size=int(p.get("n", p.get("layers", 0))), contacts=d["contacts_mean_timed"],
                             step_ms=1e3 * d["time_step_median_s"], pen_end=d["max_penetration"],
                             rows=peer_rows_per_contact(eng) * d["contacts_mean_timed"], disp=moved))
    return rows


def fastest(rows):
    """REPEAT > 1: each engine's fastest run per scene and size (the runs are
    deterministic; only the time differs)."""
    best = {}
    for r in rows:
        k = (r["engine"], r["scene"], r["size"])
        if k not in best or r["step_ms"] < best[k]["step_ms"]:
            best[k] = r
    return sorted(best.values(), key=lambda r: (r["scene"], r["size"], r["engine"]))


def csv_line(r):
    return "%s,%s,%d,%.1f,%.4g,%.4g,%.3g\n" % (r["engine"], r["scene"], r["size"], r["contacts"],
                                               r["step_ms"], 1e3 * r["step_ms"] / r["contacts"],
                                               r["pen_end"])


def write_csv(rows, path, lcp):
    with open(path, "w") as f:
        f.write("# bench_scenes: median step over the last 480 of 600 steps, dt 1/120, 50 iterations\n")
        f.write("engine,scene,size,contacts,step_ms,us_per_contact,max_penetration_end_m\n")
        for r in rows:
            f.write(csv_line(r))
        f.write("\n\n")  # gnuplot indices 1..8: one block per engine and scene
        for eng in (lcp,) + PEERS:
            for scene in ("pile", "pyramid"):
                f.write("# %s %s\n" % (eng, scene))
                for r in rows:
                    if r["engine"] == eng and r["scene"] == scene:
                        f.write(csv_line(r))
                f.write("\n\n")


def table_lines(rows, lcp):
    """One line per lcplab run: each engine's step, lcplab's speed-up over
    each peer per contact (and per constraint row over Bullet's default,
    which solves two rows a contact), penetration and, on the pyramids, the
    largest box displacement.  Bullet 2f: two friction rows per contact,
    the same work per contact as lcplab's box friction."""
    by = {(r["engine"], r["scene"], r["size"]): r for r in rows}
    md = ["| scene | size | " + lcp + " contacts | " + lcp + " ms | ODE contacts | ODE ms "
          "| Bullet contacts | Bullet ms | Bullet 2f contacts | Bullet 2f ms "
          "| speed-up per contact vs ODE | vs Bullet 2f | vs Bullet | per row vs Bullet "
          "| penetration end lcplab / ODE / Bullet 2f / Bullet (mm) "
          "| max box displacement lcplab / ODE / Bullet 2f / Bullet (m) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def fmt(x, key, f, scale=1.0):
        return f % (scale * x[key]) if x and x[key] is not None else "-"

    def per(x):
        return x["step_ms"] / x["contacts"]

    def speedup(x, r, cost=per):
        return "%.2fx" % (cost(x) / cost(r)) if x else "-"

    def perrow(x):
        return x["step_ms"] / x["rows"]

    for (eng, scene, size), r in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        if eng != lcp:
            continue
        o, b, b2 = (by.get((e, scene, size)) for e in PEERS)
        md.append("| %s | %d | %.0f | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                  "| %.2f / %s / %s / %s | %s / %s / %s / %s |" % (
                      scene, size, r["contacts"], r["step_ms"],
                      fmt(o, "contacts", "%.0f"), fmt(o, "step_ms", "%.2f"),
                      fmt(b, "contacts", "%.0f"), fmt(b, "step_ms", "%.2f"),
                      fmt(b2, "contacts", "%.0f"), fmt(b2, "step_ms", "%.2f"),
                      speedup(o, r), speedup(b2, r), speedup(b, r), speedup(b, r, perrow),
                      1e3 * r["pen_end"], fmt(o, "pen_end", "%.2f", 1e3), fmt(b2, "pen_end", "%.2f", 1e3),
                      fmt(b, "pen_end", "%.2f", 1e3),
                      fmt(r, "disp", "%.3g"), fmt(o, "disp", "%.3g"), fmt(b2, "disp", "%.3g"),
                      fmt(b, "disp", "%.3g")))
    return md


def slope_lines(rows, lcp):
    """Growth of the step with contacts: least-squares slope of log(ms) on
    log(contacts) per engine and scene (1 = linear)."""
    md = ["", "| slope of log(step ms) on log(contacts) | pile | pyramid |", "|---|---|---|"]
    for eng, name in ((lcp, lcp), ("ode-quickstep", "ODE quickstep"), ("bullet", "Bullet"),
                      ("bullet-friction2", "Bullet, two friction rows")):
        cells = []
        for scene in ("pile", "pyramid"):
            pts = [(math.log(r["contacts"]), math.log(r["step_ms"])) for r in rows
                   if r["engine"] == eng and r["scene"] == scene and r["contacts"] > 0]
            if len(pts) < 2:
                cells.append("-")
                continue
            mx = sum(x for x, _ in pts) / len(pts)
            my = sum(y for _, y in pts) / len(pts)
            sxx = sum((x - mx) ** 2 for x, _ in pts)
            cells.append("%.2f (%d sizes)" % (sum((x - mx) * (y - my) for x, y in pts) / sxx, len(pts))
                         if sxx > 0 else "-")
        md.append("| %s | %s | %s |" % (name, cells[0], cells[1]))
    return md


def main(argv):
    if len(argv) != 5:
        sys.stderr.write("usage: bench_scenes.py RUNS PEERS_JSONL OUTDIR LABEL\n")
        return 2
    runs, jsonl, out, lcp = argv[1:5]
    rows = fastest(lcplab_rows(runs, lcp) + peer_rows(jsonl))
    write_csv(rows, out + "/bench_scenes.csv", lcp)
    md = table_lines(rows, lcp) + slope_lines(rows, lcp)
    with open(out + "/bench_scenes.md", "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
