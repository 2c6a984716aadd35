#!/usr/bin/env python3
"""convergence_change.py -- the tables of convergence_change.sh (which
describes the runs): RAW (one line per run: build, class, file, solver,
exit status, the JSON or the message) -> CSV (one row per problem and
solver, both builds side by side) and a markdown table (per solver:
problems converged with each build; every problem whose verdict changed).

    python3 experiments/convergence_change.py RAW CSV MD [--tol T]
"""
import csv
import json
import sys

from outfile import replace_text, replacing  # outputs never written through a planted link

FIELDS = ["class", "file", "n", "solver",
          "old_status", "old_iterations", "old_res_rel", "old_res_nat_inf",
          "new_status", "new_iterations", "new_res_rel", "new_res_scaled",
          "new_res_nat_inf", "change", "message"]


def run_of(rc, text):
    """One run's record: the JSON's fields, or a status from the exit code."""
    if rc in (0, 3):
        try:
            return json.loads(text)
        except ValueError:
            return {"status": "bad-json", "message": text[:200]}
    if rc == 2:
        return {"status": "refused", "message": text[:200]}
    if rc in (124, 137):
        return {"status": "timeout", "message": ""}
    return {"status": "error-%d" % rc, "message": text[:200]}


def read_raw(path):
    """{(class, file, solver): {"old": run, "new": run}} in the file's order."""
    pairs = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 6:
                sys.exit("convergence_change.py: %s:%d: expected 6 tab-separated fields, "
                         "found %d" % (path, lineno, len(parts)))
            build, klass, name, solver, rc, text = parts
            if build not in ("old", "new"):
                sys.exit("convergence_change.py: %s:%d: build '%s' is neither old nor new"
                         % (path, lineno, build))
            pairs.setdefault((klass, name, solver), {})[build] = run_of(int(rc), text)
    return pairs


def converged(run):
    return run.get("status") == "converged"


def change_of(old, new):
    if converged(old) == converged(new):
        return ""
    return "gained" if converged(new) else "lost"


def num(run, key):
    v = run.get(key)
    return "" if v is None else ("%.3g" % v if isinstance(v, float) else str(v))


def row_of(key, old, new):
    klass, name, solver = key
    message = new.get("message") or old.get("message") or ""
    return {"class": klass, "file": name, "n": new.get("n", old.get("n", "")), "solver": solver,
            "old_status": old["status"], "old_iterations": num(old, "iterations"),
            "old_res_rel": num(old, "res_rel"), "old_res_nat_inf": num(old, "res_nat_inf"),
            "new_status": new["status"], "new_iterations": num(new, "iterations"),
            "new_res_rel": num(new, "res_rel"), "new_res_scaled": num(new, "res_scaled"),
            "new_res_nat_inf": num(new, "res_nat_inf"),
            "change": change_of(old, new), "message": message}


def rows_of(pairs):
    """One row per pair that at least one build ran (both refusing: left out)."""
    rows = []
    missing = {"status": "missing"}
    for key, runs in pairs.items():
        old, new = runs.get("old", missing), runs.get("new", missing)
        if old["status"] == "refused" and new["status"] == "refused":
            continue
        rows.append(row_of(key, old, new))
    return rows


def write_csv(path, rows):
    with replacing(path, "convergence_change.py", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def solver_counts(rows):
    """{solver: [pairs run, converged old, converged new, lost, gained]}"""
    counts = {}
    for r in rows:
        c = counts.setdefault(r["solver"], [0, 0, 0, 0, 0])
        c[0] += 1
        c[1] += r["old_status"] == "converged"
        c[2] += r["new_status"] == "converged"
        c[3] += r["change"] == "lost"
        c[4] += r["change"] == "gained"
    return counts


def markdown(rows, tol):
    out = ["# Converged before (old build) and after (new build), tol %s" % tol, "",
           "| solver | problems run | converged old | converged new | lost | gained |",
           "|---|---:|---:|---:|---:|---:|"]
    total = [0, 0, 0, 0, 0]
    for solver, c in solver_counts(rows).items():
        out.append("| %s | %d | %d | %d | %d | %d |" % ((solver,) + tuple(c)))
        total = [t + x for t, x in zip(total, c)]
    out.append("| all | %d | %d | %d | %d | %d |" % tuple(total))
    out += ["", "## Changed verdicts", "",
            "| solver | class | file | n | old: status, iter, res_rel | "
            "new: status, iter, res_rel, res_scaled |", "|---|---|---|---:|---|---|"]
    for r in rows:
        if r["change"]:
            out.append("| %s | %s | %s | %s | %s, %s, %s | %s, %s, %s, %s |" % (
                r["solver"], r["class"], r["file"], r["n"], r["old_status"],
                r["old_iterations"], r["old_res_rel"], r["new_status"], r["new_iterations"],
                r["new_res_rel"], r["new_res_scaled"]))
    return "\n".join(out) + "\n"


def main(argv):
    args = argv[1:]
    tol = "1e-8"
    if len(args) == 5 and args[3] == "--tol":
        tol = args[4]
        args = args[:3]
    if len(args) != 3:
        sys.exit("usage: convergence_change.py RAW CSV MD [--tol T]")
    rows = rows_of(read_raw(args[0]))
    write_csv(args[1], rows)
    replace_text(args[2], markdown(rows, tol), "convergence_change.py")


if __name__ == "__main__":
    main(sys.argv)
