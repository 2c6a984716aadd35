#!/usr/bin/env python3
"""bench_highmu.py -- `make bench-highmu`: lcplab's auto against Siconos' PROX, NSGS and NSN_AC
on the high-friction family of experiments/highmu_family.py, one judge for all (issue 80, item 4).

    bench_highmu.py LCPLAB PEER_FC3D FAMILY_DIR [--tol 1e-8] [--time-limit 60] [--peer-maxit 10000]
                    [--peer-time 60] [--out TABLE.md]

For every problem FAMILY_DIR/*.dat, in the same run: `lcplab solve --solver auto --tol T
--time-limit S --solution X`, then each peer (`peer_fc3d -s NAME --tol T --maxit K --save-r`,
stopped by `timeout` after --peer-time s), and every answer (lcplab's and the peers') judged by `peer_fc3d --check-r`:
res_rel_q = ||natural map||_2 / max(1, ||q||_2), solved when <= 1e-6, never by a program's own
status. Columns: lcplab's verdict, method, time and res_rel_q; each peer's status, time and
res_rel_q; "false ok": a peer that said ok (its own error under T) with res_rel_q > 1e-6;
"goal": some peer solved it -> auto must be converged with res_rel_q <= 1e-6 ("met" / "MISSED"),
"-" when no peer solved it; "claim": a converged verdict of lcplab above 1e-6 ("FALSE").
Below the table, the library's diagnosis of each problem auto did not solve, where it gives one
(the JSON's "diagnosis": a wedge, docs/cone-solvers.md); it changes no goal.
Exit 0 when every goal is met and no claim is false, 1 otherwise, 2 usage.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

from outfile import replace_text  # outputs never written through a planted link

PEERS = ("PROX", "NSGS", "NSN_AC")
JUDGE_TOL = 1e-6


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        return p.stdout
    except subprocess.TimeoutExpired:
        return None


def judge(peer, r_file, problem):
    out = run([peer, "--check-r", r_file, problem], 60)
    if not out:
        return float("nan")
    try:
        return float(json.loads(out.splitlines()[-1])["res_rel_q"])
    except (ValueError, KeyError, IndexError):
        return float("nan")


def lcplab_row(lcplab, peer, problem, tmp, a):
    sol = os.path.join(tmp, "auto.r")
    out = run([lcplab, "solve", problem, "--solver", "auto", "--tol", str(a.tol), "--time-limit",
               str(a.time_limit), "--solution", sol, "--force"], a.time_limit + 60)
    if not out:
        return {"status": "timeout", "time": float("nan"), "q": float("nan"), "method": "-"}
    d = json.loads(out)
    return {"status": d["status"], "time": d["time_s"], "q": judge(peer, sol, problem),
            "method": d.get("chosen", d.get("solver", "?")), "nc": d["n"] // 3,
            "diagnosis": d.get("diagnosis", "")}


def peer_row(peer, name, problem, tmp, a):
    pfx = os.path.join(tmp, "p")
    out = run(["timeout", str(int(a.peer_time)), peer, "-s", name, "--tol", str(a.tol),
               "--maxit", str(a.peer_maxit), "--repeat", "1", "--budget", str(a.peer_time),
               "--save-r", pfx, problem], a.peer_time + 30)
    if not out:
        return {"status": "timeout", "time": float("nan"), "q": float("nan")}
    d = json.loads(out.splitlines()[-1])
    r_file = f"{pfx}.{name}.r"
    q = judge(peer, r_file, problem) if os.path.exists(r_file) else float("nan")
    if os.path.exists(r_file):
        os.remove(r_file)
    return {"status": d.get("status", "?"), "time": d.get("time_s", float("nan")), "q": q}


def fmt(x, spec=".1e"):
    return "-" if x != x else format(x, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lcplab")
    ap.add_argument("peer")
    ap.add_argument("family")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--peer-maxit", type=int, default=10000, help="the peers' iteration limit")
    ap.add_argument("--peer-time", type=float, default=60.0,
                    help="seconds before a peer's run is stopped (timeout: no answer)")
    ap.add_argument("--out")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.family, "*.dat")))
    if not files:
        print(f"bench_highmu.py: no .dat problems in {a.family}", file=sys.stderr)
        return 2
    head = ("| problem | nc | auto | method | time s | res_rel_q | "
            + " | ".join(f"{p} | {p} s | {p} res_rel_q" for p in PEERS)
            + " | false ok | goal | claim |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    print(lines[0], flush=True)
    bad = 0
    why = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            me = lcplab_row(a.lcplab, a.peer, f, tmp, a)
            peers = {p: peer_row(a.peer, p, f, tmp, a) for p in PEERS}
            solved_by_peer = any(r["q"] <= JUDGE_TOL for r in peers.values())
            false_ok = [p for p, r in peers.items() if r["status"] == "ok" and not r["q"] <= JUDGE_TOL]
            mine_ok = me["status"] == "converged" and me["q"] <= JUDGE_TOL
            goal = ("met" if mine_ok else "MISSED") if solved_by_peer else "-"
            claim = "FALSE" if me["status"] == "converged" and not me["q"] <= JUDGE_TOL else "ok"
            bad += goal == "MISSED" or claim == "FALSE"
            cells = [os.path.basename(f)[:-4], str(me.get("nc", "?")), me["status"], me["method"],
                     fmt(me["time"], ".3g"), fmt(me["q"])]
            for p in PEERS:
                r = peers[p]
                cells += [r["status"], fmt(r["time"], ".3g"), fmt(r["q"])]
            cells += [",".join(false_ok) or "-", goal, claim]
            line = "| " + " | ".join(cells) + " |"
            lines.append(line)
            print(line, flush=True)
            if me.get("diagnosis"):
                why.append(f"- {cells[0]}: {me['diagnosis']}")
    if why:
        lines += ["", "auto's diagnoses (why it did not converge):"] + why
        print("\n".join(lines[-len(why) - 1:]))
    summary = f"{len(files)} problems; goals missed or false claims: {bad}"
    print(summary)
    if a.out:
        replace_text(a.out, "\n".join(lines) + "\n\n" + summary + "\n", "bench_highmu.py")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
