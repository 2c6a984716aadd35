#!/usr/bin/env python3
"""bench_pivot.py -- the records, CSV, table and fits of experiments/bench_pivot.sh
(python3 standard library only).

    python3 experiments/bench_pivot.py record FAMILY FILE PROGRAM SOLVER EXIT OUTFILE ERRFILE [CHECKFILE]
        prints one JSON line for the runs file:
        {"file","family","program","solver","exit","out","err","check"}
        out / check: the last line of OUTFILE / CHECKFILE as JSON (null when
        absent, empty or not JSON); err: the first non-blank line of ERRFILE
        (at most 300 characters).

    python3 experiments/bench_pivot.py report RUNS CSV MD DATE HOST REV BLAS SEED REPEAT MAXPIV TIMEOUT TMPDIR
        reads RUNS (the lines above) and writes CSV (one row per run, '#'
        preamble) and MD (the table, the fitted slopes of log t = a + s log n,
        the speedups at n >= 500), and prints MD on stdout.  TMPDIR is removed
        from the notes (the instance files lived there).

bench_pivot.sh's header describes the columns and the rules.
"""
import csv as csvmod
import json
import math
import sys

ACC = 1e-8  # "solved": res_nat_inf / max(1, ||b||_inf) <= ACC
COLS = ["file", "family", "n", "program", "solver", "status", "pivots", "time_s",
        "res_nat_inf", "exit", "res_nat_check", "solved", "note"]
ORDER = {"spd": 0, "contact": 1, "contact-box": 2}


# ---- record ---------------------------------------------------------------------

def load_last_json(path):
    try:
        with open(path) as fh:
            txt = fh.read().strip()
    except OSError:
        return None
    if not txt:
        return None
    try:
        return json.loads(txt.splitlines()[-1])
    except ValueError:
        return None


def first_line(path):
    try:
        with open(path) as fh:
            return next((l.strip() for l in fh if l.strip()), "")
    except OSError:
        return ""


def record(args):
    if len(args) not in (7, 8):
        sys.stderr.write("usage: bench_pivot.py record FAMILY FILE PROGRAM SOLVER EXIT OUTFILE "
                         "ERRFILE [CHECKFILE]\n")
        return 2
    fam, f, prog, solver, code, outf, errf = args[:7]
    checkf = args[7] if len(args) > 7 else None
    err = first_line(errf)
    print(json.dumps({"file": f, "family": fam, "program": prog, "solver": solver,
                      "exit": int(code), "out": load_last_json(outf), "err": err[:300],
                      "check": load_last_json(checkf) if checkf else None}))
    return 0


# ---- report: rows ----------------------------------------------------------------

def fnum(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def lcplab_row(row, r, out, code):
    if code in (0, 3) and out:
        row.update(n=out.get("n"), status=out.get("status", "?"), pivots=out.get("pivots"),
                   time_s=fnum(out.get("time_s")), res_nat_inf=fnum(out.get("res_nat_inf")))
        rel = fnum(out.get("res_rel"))
        row["solved"] = "yes" if rel is not None and rel <= ACC else "no"
        if out.get("message"):
            row["note"] = out["message"]
    elif code == 2:
        row["status"] = "refused"
        row["note"] = r["err"]
    else:
        row["status"] = "crash"
        row["note"] = "exit %d: %s" % (code, r["err"])
    chk = r.get("check")
    if chk:
        row["res_nat_check"] = fnum(chk.get("res_nat"))


def peer_row(row, r, out, code):
    if out and code == 0:
        st = out.get("status", "?")
        row.update(n=out.get("n"), status=st, time_s=fnum(out.get("time_s")),
                   res_nat_inf=fnum(out.get("res_nat")))
        it = out.get("iterations")
        row["pivots"] = it if isinstance(it, int) and it >= 0 else None
        if st in ("not_applicable", "error"):
            row["time_s"] = row["res_nat_inf"] = None
            row["note"] = out.get("note", "")
        else:
            row["solved"] = "yes" if out.get("solved") else "no"
    else:
        row["status"] = "crash"
        row["note"] = "exit %d: %s" % (code, r["err"])


def make_row(r, tlimit, tmpdir):
    out, code = r["out"], r["exit"]
    row = dict(file=r["file"].rsplit(".", 1)[0], family=r["family"], n=None,
               program=r["program"], solver=r["solver"], status="", pivots=None, time_s=None,
               res_nat_inf=None, exit=code, res_nat_check=None, solved="", note="")
    if code == 124:
        row["status"] = "timeout"
        row["note"] = "killed after %s s" % tlimit
    elif r["program"] == "lcplab":
        lcplab_row(row, r, out, code)
    else:
        peer_row(row, r, out, code)
    if row["note"]:
        # the instance files lived in a temporary directory: keep their names only
        note = row["note"].replace(tmpdir, "").replace("\n", " ").replace('"', "'")
        # lcplab's "lcplab: FILE: " prefix repeats the row's file
        prefix = "lcplab: %s: " % r["file"]
        row["note"] = note[len(prefix):] if note.startswith(prefix) else note
    return row


def read_rows(runs, tlimit, tmpdir):
    with open(runs) as fh:
        rows = [make_row(json.loads(line), tlimit, tmpdir) for line in fh]
    # n of a file from any row that knows it (a refused lcplab row does not)
    nof = {}
    for row in rows:
        if row["n"] is not None:
            nof[row["file"]] = row["n"]
    for row in rows:
        if row["n"] is None:
            row["n"] = nof.get(row["file"], int(row["file"].split("_")[1]))
    return rows


# ---- report: the CSV ---------------------------------------------------------------

def cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)


def write_csv(rows, csvpath, date, host, rev, blas, seed, repeat, maxpiv, tlimit):
    with open(csvpath, "w", newline="") as fh:
        fh.write("# lcplab bench_pivot: pivoting solvers vs peers (experiments/bench_pivot.sh)\n")
        fh.write("# rev: %s\n# host: %s\n# date: %s\n# blas: %s\n" % (rev, host, date, blas))
        fh.write("# OPENBLAS_NUM_THREADS: 1\n# seed: %s\n# repeat: %s\n# max_pivots: %s\n"
                 "# timeout_s: %s\n" % (seed, repeat, maxpiv, tlimit))
        fh.write("# time_s: median solve time [s] of the repeats; res_nat_inf = ||x - mid(lo, hi, "
                 "x - w)||_inf by the program's own code; res_nat_check: the peer harness's number "
                 "for lcplab's x; solved: res_rel <= %g\n" % ACC)
        w = csvmod.writer(fh, lineterminator="\n")
        w.writerow(COLS)
        for row in rows:
            w.writerow([cell(row[c]) for c in COLS])


# ---- report: the markdown ------------------------------------------------------------

def fit(pts):
    """Least-squares slope s of log t = a + s log n; None below 2 distinct n."""
    if len(pts) < 2:
        return None
    xs = [math.log(n) for n, _, _ in pts]
    ys = [math.log(t) for _, t, _ in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def g(v, f="%.3g"):
    return "-" if v is None else f % v


def table_lines(rows, date, host, rev, blas, seed, repeat, maxpiv, tlimit):
    out = []
    out.append("## Pivoting solvers: lcplab vs peers (seed %s, median of %s runs)" % (seed, repeat))
    out.append("")
    out.append("%s, host %s, rev %s, OPENBLAS_NUM_THREADS=1, BLAS %s.  Pivot limit %s, timeout %s s "
               "per run.  res_nat_inf = ||x - mid(lo, hi, x - w)||_inf from each program's own code; "
               "check = the peer harness's figure for lcplab's x; solved = res_rel <= %g.  "
               "contact-box has findex friction rows: lcplab lemke takes them through the friction LCP reformulation, the Lemke peers do not."
               % (date, host, rev, blas, maxpiv, tlimit, ACC))
    out.append("")
    out.append("| file | n | program:solver | status | solved | pivots | median time [s] | res_nat_inf | check | note |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for row in sorted(rows, key=lambda r: (ORDER.get(r["family"], 9), r["n"])):
        note = row["note"]
        if len(note) > 110:
            note = note[:107] + "..."
        out.append("| %s | %d | %s:%s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["file"], row["n"], row["program"], row["solver"], row["status"], row["solved"] or "-",
            "-" if row["pivots"] is None else row["pivots"], g(row["time_s"]),
            g(row["res_nat_inf"], "%.1e"), g(row["res_nat_check"], "%.1e"), note.replace("|", "/")))
    return out


def slope_lines(rows):
    series = {}
    for row in rows:
        if row["time_s"] is not None and row["time_s"] > 0:
            key = (row["program"], row["solver"], row["family"])
            series.setdefault(key, []).append((row["n"], row["time_s"], row["solved"]))
    out = []
    out.append("")
    out.append("### Fitted slopes s of log t = a + s log n (least squares over each series' points)")
    out.append("")
    out.append("| family | program:solver | points | n range | slope s | unsolved points |")
    out.append("|---|---|---|---|---|---|")
    for key in sorted(series, key=lambda k: (ORDER.get(k[2], 9), k[0] != "lcplab", k[0], k[1])):
        pts = sorted(series[key])
        s = fit(pts)
        bad = sum(1 for p in pts if p[2] != "yes")
        out.append("| %s | %s:%s | %d | %d-%d | %s | %s |" % (
            key[2], key[0], key[1], len(pts), pts[0][0], pts[-1][0], g(s, "%.2f"), bad or "-"))
    return out


def speedup_lines(rows):
    out = []
    out.append("")
    out.append("### Speedups at n >= 500: t_peer / t_lcplab (> 1: lcplab faster), residuals side by side")
    out.append("")
    out.append("| file | n | lcplab | status | time [s] | res_nat_inf | peer | status | time [s] | res_nat_inf | speedup |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    byfile = {}
    for row in rows:
        byfile.setdefault(row["file"], {})[(row["program"], row["solver"])] = row
    pairs = [(("lcplab", "lemke"), ("siconos", "lexicolemke")), (("lcplab", "dantzig"), ("ode", "dantzig"))]
    for f in sorted(byfile, key=lambda f: (ORDER.get(next(iter(byfile[f].values()))["family"], 9),
                                           next(iter(byfile[f].values()))["n"])):
        d = byfile[f]
        for mine, peer in pairs:
            if mine not in d or peer not in d:
                continue
            a, b = d[mine], d[peer]
            if int(f.split("_")[1]) < 500:  # nominal size (contact-box: true n = 3 floor(N/3))
                continue
            sp = (b["time_s"] / a["time_s"]) if a["time_s"] and b["time_s"] and a["status"] == "converged" else None
            out.append("| %s | %d | %s | %s | %s | %s | %s:%s | %s%s | %s | %s | %s |" % (
                f, a["n"], mine[1], a["status"], g(a["time_s"]), g(a["res_nat_inf"], "%.1e"),
                peer[0], peer[1], b["status"], "" if b["solved"] in ("yes", "") else " (not solved)",
                g(b["time_s"]), g(b["res_nat_inf"], "%.1e"), g(sp, "%.2fx")))
    out.append("")
    out.append("speedup '-': lcplab did not converge (or did not run), so no ratio is given.")
    return out


def report(args):
    if len(args) != 12:
        sys.stderr.write("usage: bench_pivot.py report RUNS CSV MD DATE HOST REV BLAS SEED REPEAT "
                         "MAXPIV TIMEOUT TMPDIR\n")
        return 2
    runs, csvpath, mdpath, date, host, rev, blas, seed, repeat, maxpiv, tlimit, tmpdir = args
    blas = blas.strip()
    rows = read_rows(runs, tlimit, tmpdir)
    write_csv(rows, csvpath, date, host, rev, blas, seed, repeat, maxpiv, tlimit)
    out = (table_lines(rows, date, host, rev, blas, seed, repeat, maxpiv, tlimit)
           + slope_lines(rows) + speedup_lines(rows))
    text = "\n".join(out) + "\n"
    with open(mdpath, "w") as fh:
        fh.write(text)
    sys.stdout.write(text)
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "record":
        return record(argv[2:])
    if len(argv) >= 2 and argv[1] == "report":
        return report(argv[2:])
    sys.stderr.write("usage: bench_pivot.py record ... | report ... (see the file's docstring)\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
