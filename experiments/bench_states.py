#!/usr/bin/env python3
"""bench_states.py -- the runs and the table of `make bench-states` (experiments/bench_states.sh;
experiments/BENCHMARKS.md, "Benchmark: make bench-states"; issue 85, item 1).

    bench_states.py LCPLAB PEER_FC3D STATES_DIR ROWS.jsonl [--tol 1e-4] [--time-limit 100]
                    [--norm 2|inf] [--solvers auto] [--peers NSGS PROX NSN_AC] [--as-limit 16G]
                    [--as-peers NSN_AC] [--tight-tol 1e-6 --tight-limit 300] [--table OUT.md]

For every state STATES_DIR/*.hdf5 (FCLIB local problems, sorted by name), one run at a time:
lcplab's solvers (`lcplab solve --solver S --tol T --time-limit L --max-iter 2e9 --norm 2
--solution X`: the time binds, not the iterations; `--norm 2`, the default, asks lcplab's
test for the judge's measure as well as its own: res_rel_2, the same number as res_rel_q,
at most T besides res_scaled, so that lcplab stops, and keeps its best iterate, by the measure
it is judged on; `--norm inf`, its own test alone), then each
Siconos solver (`peer_fc3d -s NAME --tol T --maxit K --repeat 1 --save-r`).  Siconos' solvers
have no time limit, and one stopped by `timeout` leaves no answer; so each is given the same L
seconds by its iterations: a probe of 2 iterations, then (unless the probe ended the solve) a
run of as many iterations as the probe's time per iteration fits into 0.8 L, killed only at
L + 30 s; the answer is the last run whose own solve time is within L (peer_run; both runs,
with their iterations and times, are in the row's "runs").  Those of --as-peers run under
`prlimit --as`
(RLIMIT_AS, default 16G): such a run that ends on a signal or with a message about memory,
allocation or a mapping the loader was refused is "out of memory at 16G", a result like any
other.  Every answer is judged by `peer_fc3d --check-r` (res_rel_q = ||natural map||_2 /
max(1, ||q||_2)): solved when res_rel_q <= T, never by a program's own status.

Each run is one JSON line appended to ROWS.jsonl as soon as it ends (flushed and synced); while
the file ROWS.jsonl.pause exists no new run starts (a quiet spell for other timing); a run
whose row is there already (same problem and the same bytes of its file, the same program
(program_id: the program's file and every library the loader starts for it, so a rebuilt
lcplab runs again), solver, tol, time limit, and lcplab's --norm: a row without one was a run
under --norm inf) is not made again, so an interrupted benchmark resumes where it stopped.
With --tight-tol, lcplab's first solver is run again at that tol within --tight-limit s on the
states whose answer solved at T (after all the runs at T: optional, outside their budget).

The table (stdout, and --table, which it replaces: a symlink there is replaced, not followed):
per state, lcplab's answer (status, time, res_rel_q) and each
Siconos answer; "as accurate": lcplab's res_rel_q at most every Siconos answer's, or at most T
(meeting the tolerance asked counts: stopping there is what was asked); a Siconos run with no
answer is never more accurate.  Below it the goals counted: lcplab solves >= 12 of the states at
T, and is as accurate on every state; at the tight tol, how many it solved.
Exit: 0 the table was written (goals met or not: a benchmark never fails on them), 1 a program
could not be run, a state could not be read, --table could not be written or a line of
ROWS.jsonl is not a row (named with its line; the file is left as it is), 2 usage (a bad
argument, no state).
"""
import argparse
import glob
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

from outfile import appending, replace_text  # outputs never written through a planted link

MEMORY_WORDS = re.compile(r"memory|alloc|failed to map", re.IGNORECASE)
PROBE_ITERATIONS = 2  # a Siconos solver's first run (peer_run)
SICONOS_SHARE = 0.8  # of the limit its second run's iterations are sized to
SICONOS_GRACE = 30.0  # s past the limit before its second run is killed


# lcplab's iteration count, set so that it never binds and the time limit does, as Siconos'
# iterations are sized to fill the limit (peer_run): the library's default (1000) would end
# auto's sweeps after about a second on these states.
LCPLAB_MAX_ITER = 2000000000


def env1():
    return dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


def judge(peer, r_file, problem):
    """res_rel_q of the answer in r_file by peer_fc3d --check-r (nan: none)."""
    if not os.path.exists(r_file):
        return math.nan
    try:
        p = subprocess.run([peer, "--check-r", r_file, problem], capture_output=True, text=True,
                           timeout=600, env=env1(), check=False)
        return float(json.loads(p.stdout.splitlines()[-1])["res_rel_q"])
    except (subprocess.TimeoutExpired, ValueError, KeyError, IndexError):
        return math.nan


def lcplab_run(a, solver, problem, tol, limit, tmp):
    sol = os.path.join(tmp, "lcplab.r")
    if os.path.exists(sol):
        os.remove(sol)
    cmd = [a.lcplab, "solve", problem, "--solver", solver, "--tol", repr(tol), "--time-limit",
           repr(limit), "--max-iter", str(LCPLAB_MAX_ITER), "--norm", a.norm, "--solution", sol,
           "--force"]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit + 120, env=env1(),
                           check=False)
    except subprocess.TimeoutExpired:
        return {"status": "killed", "note": f"no end {limit + 120:g} s after its start"}
    row = {"wall_s": time.monotonic() - t0}
    try:
        d = json.loads(p.stdout)
        row.update(status=d["status"], time_s=d["time_s"], method=d.get("chosen", solver),
                   res_scaled=d.get("res_scaled"), n=d.get("n"), iterations=d.get("iterations"),
                   message=d.get("message", ""), diagnosis=d.get("diagnosis", ""))
    except (ValueError, KeyError):
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        row.update(status="error", note=f"exit {p.returncode}: {last}")
    row["res_rel_q"] = judge(a.peer, sol, problem)
    return row


def peer_outcome(rc, err, limited, a):
    """The status of a peer run that printed no JSON line, from its exit and stderr."""
    if rc in (124, 137):
        return "time limit", ""
    last = (err.strip().splitlines() or [""])[-1][-160:]
    if limited and (rc < 0 or rc > 128 or MEMORY_WORDS.search(err)):
        return f"out of memory at {a.as_limit}", f"exit {rc}: {last}"
    return "error", f"exit {rc}: {last}"


def peer_once(a, name, problem, tol, maxit, timeout, tmp):
    """One Siconos run of at most maxit iterations, killed after timeout s: its JSON's status,
    iterations and time_s, its answer judged (none when it was killed)."""
    pfx = os.path.join(tmp, "p")
    r_file = f"{pfx}.{name}.r"
    if os.path.exists(r_file):
        os.remove(r_file)
    limited = name in a.as_peers
    cmd = ["timeout", "-k", "5", repr(timeout)]
    if limited:
        cmd += ["prlimit", f"--as={a.as_bytes}", "--"]
    cmd += [a.peer, "-s", name, "--tol", repr(tol), "--maxit", str(maxit), "--repeat", "1",
            "--budget", repr(timeout), "--save-r", pfx, problem]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env1(), check=False)
    run = {"maxit": maxit, "wall_s": time.monotonic() - t0}
    if limited:
        run["as_limit"] = a.as_limit
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode == 0 and lines:
        d = json.loads(lines[-1])
        run.update(status=d.get("status", "?"), time_s=d.get("time_s", math.nan),
                   iterations=d.get("iterations"))
    else:
        run["status"], run["note"] = peer_outcome(p.returncode, p.stderr, limited, a)
    run["res_rel_q"] = judge(a.peer, r_file, problem) if run["status"] != "time limit" else math.nan
    return run


def peer_run(a, name, problem, tol, limit, tmp):
    """A Siconos solver given the limit (Siconos has no time limit of its own): a probe of
    PROBE_ITERATIONS iterations, then, unless it ended the solve, a run of as many iterations
    as the probe's time per iteration fits into SICONOS_SHARE of the limit, allowed the limit
    and a grace to finish and write its answer.  The row's answer is the last run whose own
    solve time is within the limit; both runs are in its "runs"."""
    probe = peer_once(a, name, problem, tol, PROBE_ITERATIONS, limit, tmp)
    runs = [probe]
    it, t = probe.get("iterations"), probe.get("time_s")
    if probe["status"] == "fail" and it and t and t < SICONOS_SHARE * limit:
        maxit = max(PROBE_ITERATIONS + 1, int(SICONOS_SHARE * limit / (t / it)))
        runs.append(peer_once(a, name, problem, tol, maxit, limit + SICONOS_GRACE, tmp))
    within = [r for r in runs if r.get("time_s", math.nan) <= limit]
    row = dict(within[-1] if within else runs[-1])
    if not within and "time_s" in row:
        row.update(status="over the limit", res_rel_q=math.nan,
                   note=f"its own solve took {row['time_s']:.3g} s")
    row["runs"] = runs
    row["wall_s"] = sum(r["wall_s"] for r in runs)
    return row


def file_digest(path):
    """The first 16 hex digits of the SHA-256 of path's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


LOADED = re.compile(r"^\s*\d+:\s+(?:initialize program|calling init):\s+(/\S+)", re.M)


def program_id(prog):
    """What runs when prog runs, as one digest: prog's file, and every program and library the
    loader starts for it (glibc's LD_DEBUG=libs, on `prog --version`: through a libtool
    wrapper the build's .libs/lcplab and its libsolvers, libio ...; the BLAS, SuiteSparse,
    Siconos).  A rebuilt lcplab or library, or an upgraded package, is another program, whose
    runs are made again."""
    env = dict(os.environ, LD_DEBUG="libs")
    try:
        p = subprocess.run([prog, "--version"], env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=60, check=False)
        loaded = LOADED.findall(p.stderr)
    except (OSError, subprocess.TimeoutExpired):
        loaded = []
    h = hashlib.sha256()
    for f in [os.path.abspath(prog)] + sorted(set(loaded)):
        if os.path.isfile(f):
            h.update(f"{f}\0{file_digest(f)}\0".encode())
    return h.hexdigest()[:16]


def key_of(r):
    """A run's key: the state's bytes and the program that ran (a row without them, from
    before they were recorded, matches no new run); a row of lcplab written before --norm
    existed was a run under the infinity-norm test alone."""
    norm = r.get("norm", "inf") if r["program"] == "lcplab" else ""
    return (r["problem"], r.get("state_sha", ""), r["program"], r.get("program_id", ""),
            r["solver"], float(r["tol"]), float(r["limit_s"]), norm)


def base_row(a, name, program, solver, tol, limit):
    """What a row of the run this call of the benchmark makes starts with: the state's digest,
    the program's identity (program_id) and lcplab's norm."""
    row = {"problem": name, "state_sha": a.state_sha.get(name, ""), "program": program,
           "program_id": a.ids[program], "solver": solver, "tol": tol, "limit_s": limit}
    if program == "lcplab":
        row["norm"] = a.norm
    return row


def key(a, name, program, solver, tol, limit):
    """The key of that run (key_of)."""
    return key_of(base_row(a, name, program, solver, tol, limit))


def read_rows(path):
    rows = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    sys.exit(f"bench_states.py: {path}:{n}: not a JSON row (remove it to rerun)")
    return rows


def append_row(path, row):
    with appending(path, "bench_states.py") as fh:
        fh.write(json.dumps(row, allow_nan=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def wait_while_paused(path):
    """Waits, before a run, while the file path exists: a quiet spell for other timing can be
    had between runs without touching a run's time (touch ROWS.jsonl.pause; remove it)."""
    said = False
    while os.path.exists(path):
        if not said:
            print(f"bench_states.py: paused while {path} exists", file=sys.stderr, flush=True)
            said = True
        time.sleep(2)


def do(a, rows, done, program, solver, problem, tol, limit, tmp):
    """One run unless its row is there; the row either way."""
    base = base_row(a, os.path.basename(problem), program, solver, tol, limit)
    k = key_of(base)
    if k in done:
        return done[k]
    wait_while_paused(a.rows + ".pause")
    print(f"bench_states.py: {base['problem']}: {program} {solver} at {tol:g} ...",
          file=sys.stderr, flush=True)
    if program == "lcplab":
        r = lcplab_run(a, solver, problem, tol, limit, tmp)
    else:
        r = peer_run(a, solver, problem, tol, limit, tmp)
    row = dict(base, **r)
    append_row(a.rows, row)
    rows.append(row)
    done[k] = row
    return row


def fmt(x, spec=".2e"):
    return "-" if x is None or x != x else format(x, spec)


def cell(r):
    """status | s | res_rel_q of a row's answer; a Siconos run after it that gave no answer
    within the limit (killed, out of memory, over the limit) is named beside the status."""
    if r is None:
        return "not run | - | -"
    lim = r.get("limit_s", math.inf)
    later = ["over the limit" if x.get("time_s", 0.0) > lim else x["status"]
             for x in r.get("runs", [])[1:] if x.get("time_s", math.nan) != r.get("time_s")]
    then = f" (then {later[-1]})" if later and later[-1] != r["status"] else ""
    return f"{r['status']}{then} | {fmt(r.get('time_s'), '.3g')} | {fmt(r.get('res_rel_q'))}"


def as_accurate(mine, theirs, tol):
    """lcplab's answer meets tol, or is at most every Siconos answer in res_rel_q; with no
    answer of its own, only when no Siconos run has one either."""
    q = mine.get("res_rel_q", math.nan) if mine else math.nan
    if q <= tol:
        return True
    qs = [t["res_rel_q"] for t in theirs if t and t.get("res_rel_q", math.nan) == t.get("res_rel_q")]
    if q != q:
        return not qs
    return all(q <= x for x in qs)


def table(a, states, done):
    solver = a.solvers[0]
    head = (f"| state | nc | lcplab {solver} | s | res_rel_q | "
            + "".join(f"{p} | s | res_rel_q | " for p in a.peers) + "as accurate |")
    test = ("res_scaled and res_rel_2 (the judge's res_rel_q) <= tol, --norm 2" if a.norm == "2"
            else "res_scaled <= tol alone, --norm inf")
    out = [f"## tol {a.tol:g}, {a.time_limit:g} s a run", "", f"lcplab's own test: {test}.", "",
           head,
           "|" + "---|" * (head.count("|") - 1)]
    solved = accurate = unpaired = 0
    for st in states:
        name = os.path.basename(st)
        mine = done.get(key(a, name, "lcplab", solver, a.tol, a.time_limit))
        theirs = [done.get(key(a, name, "siconos", p, a.tol, a.time_limit)) for p in a.peers]
        paired = any(t is not None for t in theirs)  # a state no Siconos run is never "as accurate"
        ok = mine is not None and paired and as_accurate(mine, theirs, a.tol)
        solved += bool(mine) and mine.get("res_rel_q", math.nan) <= a.tol
        accurate += ok
        unpaired += mine is not None and not paired
        verdict = ("not run" if mine is None else "no Siconos run" if not paired
                   else "yes" if ok else "NO")
        out.append(f"| {name[:-5]} | {a.nc.get(name, '?')} | {cell(mine)} | "
                   + "".join(f"{cell(t)} | " for t in theirs) + f"{verdict} |")
    n = len(states)
    goal = (f"goal >= 12 of 15: {'met' if solved >= 12 else 'not met'}" if n == 15
            else "the goal, 12 of 15, is for the 15 states")
    why = f": {unpaired} states without a Siconos run" if unpaired else ""
    out += ["", f"lcplab {solver} solved {solved} of {n} at {a.tol:g} ({goal}); as accurate as "
            f"every Siconos solver on {accurate} of {n} "
            f"({'met' if accurate == n else 'not met' + why})."]
    for other in a.solvers[1:]:
        out += ["", f"lcplab {other} (status | s | res_rel_q):"]
        out += [f"- {os.path.basename(s)[:-5]}: "
                + cell(done.get(key(a, os.path.basename(s), "lcplab", other, a.tol, a.time_limit)))
                for s in states]
    if a.tight_tol:
        tight = [done.get(key(a, os.path.basename(s), "lcplab", solver, a.tight_tol,
                              a.tight_limit)) for s in states]
        ran = [t for t in tight if t]
        ok = sum(t.get("res_rel_q", math.nan) <= a.tight_tol for t in ran)
        out += ["", f"At {a.tight_tol:g} within {a.tight_limit:g} s: {ok} of the {len(ran)} states "
                f"solved at {a.tol:g} solved again."]
        out += [f"- {os.path.basename(s)[:-5]}: {cell(t)}" for s, t in zip(states, tight) if t]
    return "\n".join(out) + "\n"


def as_bytes(s):
    m = re.fullmatch(r"([0-9]+)([KMGT]?)", s)
    if not m:
        sys.exit(f"bench_states.py: --as-limit: '{s}' is not a size (e.g. 16G)")
    return int(m.group(1)) * 1024 ** " KMGT".index(m.group(2) or " ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lcplab")
    ap.add_argument("peer")
    ap.add_argument("states")
    ap.add_argument("rows")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--time-limit", type=float, default=100.0)
    ap.add_argument("--norm", choices=["2", "inf"], default="2")
    ap.add_argument("--solvers", nargs="+", default=["auto"])
    ap.add_argument("--peers", nargs="*", default=["NSGS", "PROX", "NSN_AC"])
    ap.add_argument("--as-limit", default="16G")
    ap.add_argument("--as-peers", nargs="*", default=["NSN_AC"])
    ap.add_argument("--tight-tol", type=float)
    ap.add_argument("--tight-limit", type=float, default=300.0)
    ap.add_argument("--table")
    a = ap.parse_args()
    a.as_bytes = as_bytes(a.as_limit)
    if not (a.tol > 0 and a.time_limit > 0):
        sys.exit("bench_states.py: --tol and --time-limit must be positive")
    states = sorted(glob.glob(os.path.join(a.states, "*.hdf5")))
    if not states:
        print(f"bench_states.py: no .hdf5 states in {a.states}", file=sys.stderr)
        return 2
    for prog in (a.lcplab, a.peer):
        if not os.access(prog, os.X_OK):
            print(f"bench_states.py: {prog}: not executable", file=sys.stderr)
            return 1
    a.ids = {"lcplab": program_id(a.lcplab), "siconos": program_id(a.peer)}
    try:
        a.state_sha = {os.path.basename(st): file_digest(st) for st in states}
    except OSError as e:
        print(f"bench_states.py: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    rows = read_rows(a.rows)
    done = {key_of(r): r for r in rows}
    a.nc = {}
    with tempfile.TemporaryDirectory() as tmp:
        for st in states:
            for s in a.solvers:
                r = do(a, rows, done, "lcplab", s, st, a.tol, a.time_limit, tmp)
                if s == a.solvers[0] and r.get("n"):
                    a.nc[os.path.basename(st)] = r["n"] // 3
            for p in a.peers:
                do(a, rows, done, "siconos", p, st, a.tol, a.time_limit, tmp)
        if a.tight_tol:
            for st in states:
                first = done.get(key(a, os.path.basename(st), "lcplab", a.solvers[0], a.tol,
                                     a.time_limit))
                if first and first.get("res_rel_q", math.nan) <= a.tol:
                    do(a, rows, done, "lcplab", a.solvers[0], st, a.tight_tol, a.tight_limit,
                       tmp)
    text = table(a, states, done)
    sys.stdout.write(text)
    if a.table:
        replace_text(a.table, text, "bench_states.py --table")  # SystemExit(1) if it cannot
    return 0


if __name__ == "__main__":
    sys.exit(main())
