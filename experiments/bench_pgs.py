#!/usr/bin/env python3
"""bench_pgs.py -- the table of experiments/bench_pgs.sh (python3 standard library only).

    python3 experiments/bench_pgs.py RUNS DATE HOST

RUNS is the JSON-lines file bench_pgs.sh writes: one record per line,
{"tag": T, "file": F, "record": R} with T one of
  lcplab        R = lcplab solve --json at tol 1e-10
  lcplab-tight  R = the same at tol 2e-12 (the equal-accuracy row)
  check         R = peer_solve --check-z on lcplab's x (the harness's residual)
  peer          R = one line of peer_solve's output (Siconos, Bullet PGS)
DATE and HOST go into the caption.  Prints the markdown table on stdout.
"""
import json
import sys


def num(v, fmt="%.3g"):
    return "-" if v is None else fmt % v


def per_sweep(t, it):
    return "-" if t is None or it is None or it <= 0 else "%.3g" % (t / it)


def row_of(r):
    """(file, n, solver, status, iterations, time, res_nat_inf) of one record."""
    rec, f = r["record"], r["file"].rsplit(".", 1)[0]
    if r["tag"] == "lcplab":
        return (f, rec["n"], "lcplab:pgs", rec["status"], rec["iterations"],
                rec["time_s"], rec["res_nat_inf"])
    if r["tag"] == "lcplab-tight":
        return (f, rec["n"], "lcplab:pgs (tol 2e-12)", rec["status"], rec["iterations"],
                rec["time_s"], rec["res_nat_inf"])
    if r["tag"] == "check":
        return (f, rec["n"], "lcplab:pgs x, judged by peer_solve --check-z",
                "-", None, None, rec["res_nat"])
    st = rec["status"] + (", solved" if rec.get("solved") else ", not solved")
    it = rec.get("iterations")
    return (f, rec["n"], "%s:%s" % (rec["peer"], rec["solver"]), st,
            it if it is not None and it >= 0 else None, rec.get("time_s"), rec.get("res_nat"))


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: bench_pgs.py RUNS DATE HOST\n")
        return 2
    runs, date, host = argv[1], argv[2], argv[3]
    with open(runs) as fh:
        rows = [row_of(json.loads(line)) for line in fh]

    print("## PGS: lcplab vs peers (tol 1e-10, max 100000 sweeps, median of 5 runs)")
    print()
    print("%s, host %s, OPENBLAS_NUM_THREADS=1.  res_nat_inf = ||x - mid(lo, hi, x - w)||_inf, "
          "from each program's own code; the check-z row is the peer harness's number for "
          "lcplab's x.  Bullet does not report its sweep count (-)." % (date, host))
    print()
    print("| file | n | solver | status | iterations | median time [s] | time per sweep [s] | res_nat_inf |")
    print("|---|---|---|---|---|---|---|---|")
    for f, n, s, st, it, t, res in rows:
        print("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            f, n, s, st, "-" if it is None else str(it), num(t), per_sweep(t, it),
            num(res, "%.2e")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
