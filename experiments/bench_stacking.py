#!/usr/bin/env python3
"""bench_stacking.py -- the table of experiments/bench_stacking.sh (python3 standard
library only).

    python3 experiments/bench_stacking.py RUNS PEER_RESULTS LAYERS OUT_MD

RUNS: one line per lcplab configuration, "LABEL|OPTIONS|JSON" (the JSON summary
of lcplab simulate).  PEER_RESULTS: the peers' results directory (bench.jsonl
for the step times, pyramid_check.jsonl for the box displacements).  LAYERS:
the pyramid's layers.  Writes OUT_MD (one row per configuration and peer) and
prints it.  Standing: every box within 1 cm of its rest place (lcplab's
max_settled_displacement); a peer, whose field is the displacement from the
start, stands when that is under 1 cm plus the top layer's settling drop
(LAYERS x 1 mm).
"""
import json
import os
import sys


def lcplab_lines(runs):
    md = []
    with open(runs) as fh:
        for line in fh:
            label, opts, js = line.rstrip("\n").split("|", 2)
            d = json.loads(js)
            ds = d["max_settled_displacement"]
            md.append("| lcplab %s | `%s` | %.2f | %.0f | %.3g | %.3g | %.2f | %.3g | %s |" % (
                label, opts, 1e3 * d["time_step_median_s"], d["contacts_mean_timed"], ds,
                d["max_body_displacement"], 1e3 * d["max_penetration_end"], d["kinetic_end"],
                "yes" if ds < 0.01 else "no"))
    return md


def peer_lines(results, layers):
    disp = {}
    check = os.path.join(results, "pyramid_check.jsonl")
    if os.path.exists(check):
        with open(check) as fh:
            for line in fh:
                d = json.loads(line)
                if d["scene"] == "pyramid" and d["params"].get("layers") == layers:
                    disp[d["engine"]] = d.get("max_body_displacement")
    md = []
    with open(os.path.join(results, "bench.jsonl")) as fh:
        for line in fh:
            d = json.loads(line)
            if d["scene"] != "pyramid" or d["params"].get("layers") != layers:
                continue
            if d["engine"] not in ("ode-quickstep", "bullet"):
                continue
            dm = disp.get(d["engine"])
            md.append("| %s (peers' stored run) | %d iterations | %.2f | %.0f | - | %s | %.2f | %.3g | %s |" % (
                d["engine"], d["iters"], 1e3 * d["time_step_median_s"], d["contacts_mean_timed"],
                "%.3g" % dm if dm is not None else "-", 1e3 * d["max_penetration"], d["kinetic_end"],
                "-" if dm is None else ("no" if dm > 0.01 + 0.001 * layers else "yes")))
    return md


def main(argv):
    if len(argv) != 5:
        sys.stderr.write("usage: bench_stacking.py RUNS PEER_RESULTS LAYERS OUT_MD\n")
        return 2
    runs, results, layers, out = argv[1], argv[2], int(argv[3]), argv[4]
    md = ["Pyramid of %d layers, 600 steps of 1/120 s; standing = every box within 1 cm of its rest "
          "place after 5 s (lcplab's max_settled_displacement)." % layers, "",
          "| engine | options | median step ms | contacts | max settled displacement (m) "
          "| max displacement from the start (m) | penetration end (mm) | kinetic end (J) | standing |",
          "|---|---|---|---|---|---|---|---|---|"]
    md += lcplab_lines(runs) + peer_lines(results, layers)
    with open(out, "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
