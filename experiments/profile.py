#!/usr/bin/env python3
# profile.py -- the judge and the Dolan-More performance profile of
# bench_fc3d.sh (`make bench-fc3d`; a benchmark, not a test).
#
#   python3 profile.py --runs RUNS.tsv --problems PROBLEMS.tsv --out PREFIX
#                      [--norm 2|inf] [--stored SWEEP.jsonl]... [--meta KEY=VALUE]...
#
# Inputs (written by bench_fc3d.sh):
#   PROBLEMS.tsv  one line per problem: name <TAB> original file <TAB> the
#                 same problem converted by `lcplab convert` to lcplab's text
#                 format (.lcp, datasets/README.md section 7; empty if the
#                 conversion failed).
#   RUNS.tsv      one line per run, tab-separated: problem, program
#                 ("lcplab" or "siconos"), solver, tol, exit (process exit
#                 code; 124 = killed by timeout), OUT (file holding the
#                 program's stdout: its last line that parses as JSON is
#                 used), ERR (its stderr: the first non-blank line is kept as
#                 a note), X (file of the returned x / r, one value per line;
#                 absent or empty = none), source ("live" or "stored"),
#                 one_solve (lcplab: 1 when R solves would not fit in the
#                 budget, so a single solve was kept).  A "stored" run has no
#                 OUT: its line is looked up in the --stored sweeps (the
#                 peer harness's results/*.jsonl) by file base name, solver
#                 and tol.
#
# THE JUDGE (one residual function for every program, from its returned x):
#   u = A x + b (A = W, b = q read from the .lcp; every row sum is math.fsum,
#   so the product is correctly rounded per row), per contact c with
#   friction coefficient mu (rows 3c normal, 3c+1, 3c+2 tangential):
#     De Saxce shift  u^_c = u_c + (mu |u_t,c|, 0, 0),
#     natural map     m_c  = x_c - P_K(x_c - u^_c),
#   P_K the exact projection on K_mu = { |x_t| <= mu x_n } (mu = 0: the ray
#   x_t = 0, x_n >= 0).  Both norms are computed:
#     residual_2    = ||m||_2   / max(1, ||q||_2)
#     residual_inf  = ||m||_inf / max(1, ||q||_inf)  (= lcplab's res_rel)
#   and `residual` is the one --norm picks (default 2): THE criterion.
#   A run is SOLVED iff residual <= tol (and x is finite and complete).
#   Why the 2-norm by default: it is the norm of FCLIB's merit, of Siconos'
#   error and of the peer harness's res_nat_abs, and the only one available
#   for the stored peer sweeps (they kept res_nat_abs and norm_q, not r), so
#   live and stored peers are judged alike.  Neither program stops on it:
#   lcplab's solvers stop on the inf-norm (res_rel <= tol and res_nat_inf <=
#   tol), Siconos' on ||m||_2 / max(||q||, ||r||, ||u||) <= tol; each can
#   "converge" and not be solved here.  The .md therefore also counts the
#   solved runs under the other norm (lcplab's own measure, where a
#   converged lcplab run always passes).
#   Stored peer runs (no r kept): residual = res_nat_abs / max(1, norm_q) as
#   the peer harness computed it (long double, the same formula).
#   Cross-checks printed in the .md: the judge's ||m||_inf against lcplab's
#   own res_nat_inf, its ||m||_2 against the harness's res_nat_abs.
#
# THE PROFILE (Dolan and More 2002), per tolerance, over all problems P
# (a problem nobody solves stays in the denominator):
#   t_{p,s} = the run's median time if solved, else +inf;
#   r_{p,s} = t_{p,s} / min_s t_{p,s}   (+inf if not solved or nobody solved p)
#   rho_s(tau) = |{p : r_{p,s} <= tau}| / |P|.
#   Times below 1e-9 s count as 1e-9 s (a ratio needs a positive time).
#   "fastest" = r_{p,s} = 1, i.e. rho_s(1) |P| problems.
#   The goal line (issue 29: fastest on >= 90 %, solves >= 97 %; issue 4 had
#   asked for 70 % and 95 %) compares ONE lcplab solver with the peers only
#   (its own siblings do not count against it): it is the fastest on p when
#   it solves p and no peer solves p faster (the peers' times compared with
#   its own); "lcplab's best solver" is the lcplab solver with the highest
#   such share (ties: more problems solved, then the name).  The virtual best
#   lcplab (per problem the fastest lcplab solver) is also given, labelled as
#   such: it is not one solver.
#
# Outputs:
#   PREFIX.csv          one row per run: problem, nc, solver, program, tol,
#                       status, time, residual, solved, then residual_2,
#                       residual_inf,
#                       own_residual (lcplab res_rel / Siconos err_siconos),
#                       merit_fclib (the program's), iterations, repeat,
#                       exit, source, note; '#' preamble (meta, criterion)
#   PREFIX_profile.csv  tol, solver, tau, log2_tau, rho: each curve's
#                       breakpoints (rho right-continuous, a step at each
#                       ratio), from tau = 1 to the panel's largest finite
#                       ratio x 2; rows contiguous per (tol, solver)
#   PREFIX.md           the tables (also printed on stdout)
# Statuses (column status): lcplab's own (converged, max_iter, stagnated,
# ...), Siconos' own (ok = info 0, fail), or: refused (lcplab exit 2, e.g. a
# solver that needs a symmetric W), timeout (killed), crash (any other exit,
# no JSON), not_applicable.
# Exit status: 0 written; 2 usage or unreadable inputs.


import argparse
import csv
import json
import math
import os
import sys

TIME_FLOOR = 1e-9
GOAL_FASTEST, GOAL_SOLVES = 90.0, 97.0  # issue 29: one lcplab solver against the peers, %


def die(msg):
    sys.stderr.write("profile.py: %s\n" % msg)
    sys.exit(2)


# ---------------------------------------------------------------- the problem
class Problem:
    """A cone problem read from lcplab's text format: u = A x + b."""

    def __init__(self, path):
        self.path = path
        toks = []
        with open(path) as fh:
            for line in fh:
                k = line.find("#")
                if k >= 0:
                    line = line[:k]
                toks.extend(line.split())
        if len(toks) < 2 or toks[0] != "lcplab-problem":
            raise ValueError("%s: not an lcplab-problem file" % path)
        pos = 2
        self.n = None
        self.storage = "dense"
        self.A = self.Ap = self.Aj = self.Ax = None
        self.b = None
        self.cones = []
        self.cone_law = "coulomb"

        def take(count, conv=float):
            nonlocal pos
            if pos + count > len(toks):
                raise ValueError("%s: truncated section" % path)
            vals = [conv(t) for t in toks[pos:pos + count]]
            pos += count
            return vals

        while pos < len(toks):
            key = toks[pos]
            pos += 1
            if key == "end":
                break
            if key == "kind":
                pos += 1
            elif key == "n":
                self.n = int(toks[pos])
                pos += 1
            elif key == "storage":
                self.storage = toks[pos]
                pos += 1
            elif key == "A":
                self.A = take(self.n * self.n)
            elif key == "Ap":
                self.Ap = take(self.n + 1, int)
            elif key == "Aj":
                self.Aj = take(self.Ap[-1], int)
            elif key == "Ax":
                self.Ax = take(self.Ap[-1])
            elif key == "b":
                self.b = take(self.n)
            elif key in ("lo", "hi", "mu", "x_ref"):
                take(self.n)
            elif key == "findex":
                take(self.n, int)
            elif key == "cones":
                k = int(toks[pos])
                pos += 1
                pairs = take(2 * k)
                self.cones = [(int(pairs[2 * i]), pairs[2 * i + 1]) for i in range(k)]
            elif key == "cone_law":
                self.cone_law = toks[pos]
                pos += 1
            else:
                raise ValueError("%s: unknown section '%s'" % (path, key))
        if self.n is None or self.b is None or (self.A is None and self.Ax is None):
            raise ValueError("%s: n, A and b are required" % path)
        self.nc = len(self.cones)
        self.all_cone = (3 * self.nc == self.n and
                         all(r == 3 * c for c, (r, _) in enumerate(self.cones)))
        self.q2 = math.sqrt(math.fsum(v * v for v in self.b))
        self.qinf = max((abs(v) for v in self.b), default=0.0)
        if self.A is not None:  # row-major copy of the column-major dense A
            n = self.n
            self.rows = [self.A[i::n] for i in range(n)]

    def u(self, x):
        n = self.n
        if self.A is not None:
            return [math.fsum([a * xj for a, xj in zip(self.rows[i], x)] + [self.b[i]])
                    for i in range(n)]
        Ap, Aj, Ax = self.Ap, self.Aj, self.Ax
        return [math.fsum([Ax[k] * x[Aj[k]] for k in range(Ap[i], Ap[i + 1])] + [self.b[i]])
                for i in range(n)]

    def uscale(self, x):
        """max_i sum_j |A_ij x_j| + |b_i|, plus max |x|: the size that rounding in u and m scales with."""
        n = self.n
        if self.A is not None:
            s = max(math.fsum([abs(a * xj) for a, xj in zip(self.rows[i], x)] + [abs(self.b[i])])
                    for i in range(n))
        else:
            Ap, Aj, Ax = self.Ap, self.Aj, self.Ax
            s = max(math.fsum([abs(Ax[k] * x[Aj[k]]) for k in range(Ap[i], Ap[i + 1])] +
                              [abs(self.b[i])]) for i in range(n))
        return s + max(abs(v) for v in x)

    def judge(self, x):
        """(||m||_2, ||m||_inf) of the De Saxce natural map m at x."""
        u = self.u(x)
        sq = []
        mx = 0.0
        for first, mu in self.cones:
            xn, x1, x2 = x[first], x[first + 1], x[first + 2]
            un, u1, u2 = u[first], u[first + 1], u[first + 2]
            if self.cone_law == "coulomb":
                un = un + mu * math.hypot(u1, u2)
            p = project_cone(mu, xn - un, x1 - u1, x2 - u2)
            for m in (xn - p[0], x1 - p[1], x2 - p[2]):
                sq.append(m * m)
                mx = max(mx, abs(m)) if not math.isnan(m) else float("nan")
        return math.sqrt(math.fsum(sq)), mx


def project_cone(mu, zn, z1, z2):
    """Exact projection of (zn, z1, z2) on K_mu = { |z_t| <= mu z_n }."""
    t = math.hypot(z1, z2)
    if zn >= 0 and t <= mu * zn:
        return (zn, z1, z2)
    if mu * t <= -zn:  # in the polar cone (mu = 0: zn <= 0)
        return (0.0, 0.0, 0.0)
    a = (zn + mu * t) / (1.0 + mu * mu)  # > 0 here
    if t == 0.0:
        return (a, 0.0, 0.0)
    s = mu * a / t
    return (a, s * z1, s * z2)


def read_x(path, n):
    try:
        with open(path) as fh:
            vals = [float(t) for line in fh for t in line.split("#")[0].split()]
    except (OSError, ValueError) as e:
        return None, "cannot read x: %s" % e
    if len(vals) != n:
        return None, "x has %d values, expected %d" % (len(vals), n)
    return vals, ""


# ---------------------------------------------------------------- helpers
def load_json(path):
    """The last line of a file that parses as a JSON object, or None."""
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if isinstance(d, dict):
            return d
    return None


def first_line(path):
    try:
        with open(path) as fh:
            return next((l.strip() for l in fh if l.strip()), "")[:300]
    except OSError:
        return ""


def fnum(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def finite(v):
    return v is not None and math.isfinite(v)


def cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)


def fmt_t(t):
    if t is None or not math.isfinite(t):
        return "-"
    if t < 1e-3:
        return "%.3g us" % (t * 1e6)
    if t < 1:
        return "%.3g ms" % (t * 1e3)
    return "%.3g s" % t


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def run_time(out, stat):
    """(time, median) of a run's JSON: time is its least solve time over
    the repeats when stat is "min" (both programs print time_min_s; a
    stored sweep without it falls back to the median), else the median."""
    med = fnum(out.get("time_s"))
    if stat == "min" and out.get("time_min_s") is not None:
        return fnum(out.get("time_min_s")), med
    return med, med


def main():
    ap = argparse.ArgumentParser(description="judge + Dolan-More profile for bench_fc3d.sh")
    ap.add_argument("--runs", required=True)
    ap.add_argument("--problems", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--norm", choices=["2", "inf"], default="2")
    ap.add_argument("--stored", action="append", default=[])
    ap.add_argument("--time", choices=["min", "median"], default="median",
                    help="the time of a run: the least or the median of its repeats (both programs alike)")
    ap.add_argument("--meta", action="append", default=[])
    a = ap.parse_args()
    other = "inf" if a.norm == "2" else "2"
    meta = []
    for kv in a.meta:
        k, _, v = kv.partition("=")
        meta.append((k, v))
    metad = dict(meta)

    # ---- problems
    problems = []  # (name, file, Problem or None, note)
    try:
        with open(a.problems) as fh:
            for line in fh:
                line = line.rstrip("\n")
                if not line:
                    continue
                name, f, lcp = (line.split("\t") + ["", ""])[:3]
                prob, note = None, ""
                if lcp:
                    try:
                        prob = Problem(lcp)
                        if not prob.all_cone:
                            note = "not all rows in cones at 0, 3, 6, ...: judged on the cone rows only"
                        if prob.cone_law != "coulomb":
                            note = "cone_law %s (expected coulomb)" % prob.cone_law
                    except (OSError, ValueError) as e:
                        note = "judge cannot read the problem: %s" % e
                else:
                    note = "lcplab convert failed: no judge for this problem"
                problems.append((name, f, prob, note))
    except OSError as e:
        die("cannot read %s: %s" % (a.problems, e))
    pindex = {p[0]: p for p in problems}
    names = [p[0] for p in problems]

    # ---- runs
    stored = {}
    for path in a.stored:
        try:
            for line in open(path):
                try:
                    d = json.loads(line)
                    key = (os.path.basename(d.get("file", "")), d.get("solver"), float(d.get("tol")))
                except (ValueError, TypeError):
                    continue
                stored[key] = d
        except OSError as e:
            die("cannot read %s: %s" % (path, e))
    runs = []
    try:
        for line in open(a.runs):
            f = line.rstrip("\n").split("\t")
            if len(f) < 10:
                continue
            prob, prog, solver, tol, code, outf, errf, xf, source, one = f[:10]
            if source == "stored":
                out = stored.get((prob, solver, float(tol)))
                if out is None:
                    out = {"status": "not_applicable", "note": "not in the stored sweeps"}
            else:
                out = load_json(outf)
            runs.append({"problem": prob, "program": prog, "solver": solver, "tol": tol,
                         "exit": int(code), "out": out, "err": first_line(errf),
                         "x": xf if xf and os.path.isfile(xf) and os.path.getsize(xf) > 0 else None,
                         "source": source, "repeat_fallback": one == "1"})
    except (OSError, ValueError) as e:
        die("cannot read %s: %s" % (a.runs, e))

    rows = []
    xcheck = {"lcplab": [], "siconos": []}  # relative differences judge vs own figure
    for r in runs:
        name = r["problem"]
        _, _, prob, pnote = pindex.get(name, (name, "", None, "unknown problem"))
        out, code, prog = r.get("out"), r.get("exit"), r["program"]
        tol = float(r["tol"])
        row = dict(problem=name, nc=prob.nc if prob else None, solver=r["solver"], program=prog,
                   tol=tol, status="", time=None, time_median=None, residual=None, solved="no", residual_2=None,
                   residual_inf=None,
                   own_residual=None, merit_fclib=None, iterations=None, repeat=None, exit=code,
                   source=r.get("source", "live"), note="")
        notes = []
        own_ok = False
        if code == 124 or (out and out.get("status") == "timeout"):
            row["status"] = "timeout"
            notes.append("killed after %s s" % (out.get("timeout_s") if out and out.get("timeout_s")
                                                 else metad.get("timeout_s", "?")))
        elif prog == "lcplab":
            if code in (0, 3) and out:
                row["status"] = out.get("status", "?")
                own_ok = row["status"] == "converged"
                row["time"], row["time_median"] = run_time(out, a.time)
                row["own_residual"] = fnum(out.get("res_rel"))
                row["merit_fclib"] = fnum(out.get("merit_fclib"))
                row["iterations"] = out.get("iterations")
                row["repeat"] = out.get("repeat")
                if r.get("repeat_fallback") and row["repeat"] == 1 and metad.get("repeat", "1") != "1":
                    notes.append("1 repeat (R solves would exceed the %s s budget)"
                                 % metad.get("peer_budget_s", "?"))
            elif code == 2:
                row["status"] = "refused"
                notes.append(r.get("err", ""))
            else:
                row["status"] = "crash"
                notes.append("exit %s: %s" % (code, r.get("err", "")))
        else:
            st = out.get("status") if out else None
            if out and st in ("ok", "fail"):
                row["status"] = st
                own_ok = st == "ok"
                row["time"], row["time_median"] = run_time(out, a.time)
                row["own_residual"] = fnum(out.get("err_siconos"))
                row["merit_fclib"] = fnum(out.get("merit_fclib"))
                it = out.get("iterations")
                row["iterations"] = it if isinstance(it, int) and it >= 0 else None
                row["repeat"] = out.get("repeat")
            elif out and st:
                row["status"] = st  # not_applicable, error, crash (stored)
                notes.append(out.get("note", "") or ("rc %s" % out.get("rc", "")))
            else:
                row["status"] = "crash"
                notes.append("exit %s: %s" % (code, r.get("err", "")))

        # ---- the judge
        has_run = row["status"] not in ("timeout", "crash", "refused", "not_applicable", "error", "")
        if has_run and r.get("x") and prob is not None:
            x, xnote = read_x(r["x"], prob.n)
            if x is None:
                notes.append(xnote)
            elif not all(math.isfinite(v) for v in x):
                notes.append("x not finite")
                row["residual_2"] = row["residual_inf"] = float("inf")
            else:
                m2, minf = prob.judge(x)
                row["residual_2"] = m2 / max(1.0, prob.q2)
                row["residual_inf"] = minf / max(1.0, prob.qinf)
                # compared only well above rounding: 1e-8 x the size of the terms of u and m
                floor = 1e-8 * prob.uscale(x)
                if prog == "lcplab" and out:
                    ref = fnum(out.get("res_nat_inf"))
                    if finite(ref) and max(ref, minf) > floor:
                        xcheck["lcplab"].append((abs(minf - ref) / max(ref, minf), name, r["solver"],
                                                 r["tol"]))
                elif out:
                    ref = fnum(out.get("res_nat_abs"))
                    if finite(ref) and max(ref, m2) > floor * math.sqrt(prob.n):
                        xcheck["siconos"].append((abs(m2 - ref) / max(ref, m2), name, r["solver"],
                                                  r["tol"]))
        elif has_run and prog != "lcplab" and r.get("source") == "stored" and out:
            ra, nq = fnum(out.get("res_nat_abs")), fnum(out.get("norm_q"))
            if ra is not None and nq is not None:
                row["residual_2"] = ra / max(1.0, nq)
            if out.get("finite") is False:
                row["residual_2"] = float("inf")
        elif has_run and prob is None:
            notes.append(pnote)
        row["residual"] = row["residual_2"] if a.norm == "2" else row["residual_inf"]
        alt = row["residual_inf"] if a.norm == "2" else row["residual_2"]
        if has_run and row["residual"] is None and not notes:
            notes.append("no x to judge" if alt is None else
                         "no %s-norm residual for a stored run" % a.norm)
        if row["residual"] is not None and row["residual"] <= tol:
            row["solved"] = "yes"
        row["solved_alt"] = None if alt is None else alt <= tol
        row["own_ok"] = own_ok
        row["note"] = "; ".join(n for n in notes if n).replace("\n", " ")
        rows.append(row)

    tols = sorted({row["tol"] for row in rows}, reverse=True)
    solvers = []
    for row in rows:
        key = "%s:%s" % (row["program"], row["solver"])
        if key not in solvers:
            solvers.append(key)
    # lcplab first, then the peers, each in run order
    solvers = [s for s in solvers if s.startswith("lcplab:")] + \
              [s for s in solvers if not s.startswith("lcplab:")]
    lcp_solvers = [s for s in solvers if s.startswith("lcplab:")]
    peer_solvers = [s for s in solvers if not s.startswith("lcplab:")]
    byk = {}
    for row in rows:
        byk[(row["tol"], "%s:%s" % (row["program"], row["solver"]), row["problem"])] = row

    # ---- the run CSV
    cols = ["problem", "nc", "solver", "program", "tol", "status", "time", "residual", "solved",
            "residual_2", "residual_inf", "own_residual", "merit_fclib", "iterations", "repeat", "exit", "source",
            "note", "time_median"]
    preamble = ["# lcplab bench_fc3d: cone solvers vs Siconos FC3D peers (experiments/bench_fc3d.sh)"]
    preamble += ["# %s: %s" % (k, v) for k, v in meta]
    preamble.append("# criterion: %s-norm" % a.norm)
    preamble.append("# time: the program's %s solve time over its repeats [s] (solver call only; "
                    "time_median: the median); residual_2: "
                    "||x - P_K(x - u^)||_2 / max(1, ||q||_2), u = W x + q, u^ = u + (mu |u_t|, 0, 0), "
                    "computed by profile.py from the returned x (stored peer runs: the harness's "
                    "res_nat_abs / max(1, norm_q)); residual_inf: the inf-norm over max(1, "
                    "||q||_inf); residual: the criterion's (%s-norm); solved: residual <= tol; "
                    "own_residual: lcplab res_rel / Siconos err_siconos; merit_fclib: the "
                    "program's own" % ("least" if a.time == "min" else "median", a.norm))
    with open(a.out + ".csv", "w", newline="") as fh:
        fh.write("\n".join(preamble) + "\n")
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(cols)
        order = {s: i for i, s in enumerate(solvers)}
        for row in sorted(rows, key=lambda rr: (-rr["tol"], names.index(rr["problem"])
                                               if rr["problem"] in names else 999,
                                               order["%s:%s" % (rr["program"], rr["solver"])])):
            vals = []
            for c in cols:
                v = row[c]
                if c == "tol":
                    vals.append("%g" % v)
                else:
                    vals.append(cell(v))
            w.writerow(vals)

    # ---- ratios and profiles
    prof_rows = []
    stats = {}  # (tol, solver) -> dict
    ratio = {}  # (tol, solver, problem) -> r
    best_t = {}
    for tol in tols:
        maxr = 1.0
        for p in names:
            ts = {}
            for s in solvers:
                row = byk.get((tol, s, p))
                if row and row["solved"] == "yes" and finite(row["time"]):
                    ts[s] = max(row["time"], TIME_FLOOR)
            tmin = min(ts.values()) if ts else None
            best_t[(tol, p)] = (tmin, [s for s in ts if ts[s] == tmin])
            for s in solvers:
                rr = ts[s] / tmin if s in ts else math.inf
                ratio[(tol, s, p)] = rr
                if math.isfinite(rr):
                    maxr = max(maxr, rr)
        taumax = maxr * 2.0
        for s in solvers:
            rs = sorted(ratio[(tol, s, p)] for p in names)
            fin = [v for v in rs if math.isfinite(v)]
            P = len(names)
            pts = [(1.0, sum(1 for v in fin if v <= 1.0) / P)]
            for v in sorted(set(fin)):
                if v > 1.0:
                    pts.append((v, sum(1 for u in fin if u <= v) / P))
            pts.append((taumax, len(fin) / P))
            for tau, rho in pts:
                prof_rows.append((tol, s, tau, math.log2(tau), rho))
            solved = sum(1 for p in names if byk.get((tol, s, p), {}).get("solved") == "yes")
            runs_s = sum(1 for p in names if (tol, s, p) in byk)
            own = sum(1 for p in names if byk.get((tol, s, p), {}).get("own_ok"))
            own_not = sum(1 for p in names if byk.get((tol, s, p), {}).get("own_ok")
                          and byk[(tol, s, p)]["solved"] != "yes")
            # solved under the other norm: "-" when some run has only the criterion's
            # norm (stored peers)
            srow = [byk[(tol, s, p)] for p in names if (tol, s, p) in byk]
            alt = None if any(r_["residual"] is not None and r_["solved_alt"] is None
                              for r_ in srow) else sum(1 for r_ in srow if r_["solved_alt"])
            stats[(tol, s)] = dict(
                runs=runs_s, solved=solved, fastest=sum(1 for v in fin if v <= 1.0),
                within2=sum(1 for v in fin if v <= 2.0), within10=sum(1 for v in fin if v <= 10.0),
                own=own, own_not=own_not, alt=alt,
                timeout=sum(1 for p in names if byk.get((tol, s, p), {}).get("status") == "timeout"),
                refused=sum(1 for p in names if byk.get((tol, s, p), {}).get("status") == "refused"),
                crash=sum(1 for p in names if byk.get((tol, s, p), {}).get("status") == "crash"))

    with open(a.out + "_profile.csv", "w", newline="") as fh:
        fh.write("# Dolan-More performance profile of bench_fc3d.csv: rho_s(tau) = share of the "
                 "%d problems with t_{p,s} <= tau min_s t_{p,s} (solved runs only); "
                 "breakpoints, right-continuous steps\n" % len(names))
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["tol", "solver", "tau", "log2_tau", "rho"])
        for tol, s, tau, l2, rho in prof_rows:
            w.writerow(["%g" % tol, s, "%.6g" % tau, "%.6g" % l2, "%.6g" % rho])

    # ---- the markdown
    P = len(names)
    out = []
    out.append("## Coulomb-cone solvers: lcplab vs Siconos FC3D (Dolan-More profile, %d problems)" % P)
    out.append("")
    out.append("%s, host %s, rev %s.  Peers: **%s**.  lcplab: `lcplab solve FILE --solver S --tol T "
               "--max-iter %s --repeat R` under a %s s timeout, R = %s: every run, lcplab's and the peers', is "
               "probed with one solve and then repeated until its solves add up to about that time (fewer when "
               "over the budget).  OPENBLAS_NUM_THREADS=1.  Times are "
               "each program's %s solve time over its repeats (solver call only; the CSV has the median "
               "too), one process at a time; "
               "the runs took %s s; load average %s at the start, %s at the end (%s cores: other "
               "processes add noise, more below 1 ms)."
               % (metad.get("date", "?"), metad.get("host", "?"), metad.get("rev", "?"),
                  metad.get("peers", "?"), metad.get("max_iter", "?"), metad.get("timeout_s", "?"),
                  metad.get("repeat", "?"), "least" if a.time == "min" else "median",
                  metad.get("runs_wall_s", "?"),
                  metad.get("loadavg_start", "?"), metad.get("loadavg_end", "?"),
                  metad.get("cores", "?")))
    out.append("")
    nrm = "2" if a.norm == "2" else "inf"
    out.append("**Solved** = residual <= tol, with residual = ||x - P_K(x - u^)||_%s / max(1, ||q||_%s), "
               "u = W x + q, u^ = u + (mu |u_t|, 0, 0) (the natural map with the De Saxce shift, "
               "Coulomb's law), computed by `experiments/profile.py` from each program's returned x"
               "%s.  The same test for everybody: a run its own program calls converged can be "
               "unsolved here and vice versa (column 'own ok, not solved': lcplab converged / "
               "Siconos info 0 but residual > tol).  The column 'solved, %s-norm' counts the runs "
               "that pass the same test in the other norm (the inf-norm one is lcplab's own "
               "res_rel)."
               % (nrm, nrm, "" if metad.get("peers_source") != "stored" else
                  " (stored peer runs kept no r: their residual is the harness's res_nat_abs / "
                  "max(1, norm_q), the same formula)", other))
    out.append("")
    for tol in tols:
        out.append("### tol = %g" % tol)
        out.append("")
        out.append("| solver | runs | solved | fastest (rho(1)) | within 2x | within 10x | own ok, not solved "
                   "| solved, %s-norm | timeout | refused | crash |" % other)
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for s in solvers:
            st = stats[(tol, s)]
            out.append("| %s | %d | %d (%.0f%%) | %d (%.0f%%) | %d | %d | %d | %s | %d | %d | %d |" % (
                s, st["runs"], st["solved"], pct(st["solved"], P), st["fastest"],
                pct(st["fastest"], P), st["within2"], st["within10"], st["own_not"],
                "-" if st["alt"] is None else "%d" % st["alt"],
                st["timeout"], st["refused"], st["crash"]))
        out.append("")
        # goal line: each lcplab solver against the peers only, under the
        # criterion (key "solved") and under the other norm (key "solved_alt")
        def ok_run(row, alt):
            if not row or not finite(row["time"]):
                return False
            return bool(row["solved_alt"]) if alt else row["solved"] == "yes"

        def solved_times(solvers, p, alt):
            # the floored times of the solvers' runs that solved p
            return [max(byk[(tol, q, p)]["time"], TIME_FLOOR) for q in solvers
                    if ok_run(byk.get((tol, q, p)), alt)]

        def goal_of(alt):
            res = []
            for s in lcp_solvers:
                fastest = solved = 0
                for p in names:
                    row = byk.get((tol, s, p))
                    if not ok_run(row, alt):
                        continue
                    solved += 1
                    tp = solved_times(peer_solvers, p, alt)
                    if not tp or max(row["time"], TIME_FLOOR) <= min(tp):
                        fastest += 1
                res.append((fastest, solved, s))
            vf = vs = 0  # the virtual best lcplab
            for p in names:
                tl = solved_times(lcp_solvers, p, alt)
                if not tl:
                    continue
                vs += 1
                tp = solved_times(peer_solvers, p, alt)
                if not tp or min(tl) <= min(tp):
                    vf += 1
            return res, vf, vs

        def close_calls(s, band=1.1):
            # the solver's contested problems whose time is within `band` of
            # the fastest peer's: wins and losses that timing noise can flip
            wins, losses = [], []
            nwin = nloss = 0
            for p in names:
                row = byk.get((tol, s, p))
                if not ok_run(row, False):
                    continue
                tp = solved_times(peer_solvers, p, False)
                if not tp:
                    continue
                ratio = max(row["time"], TIME_FLOOR) / min(tp)
                if ratio <= 1.0:
                    nwin += 1
                else:
                    nloss += 1
                if 1.0 / band <= ratio <= band:
                    (wins if ratio <= 1.0 else losses).append((p, ratio))
            return wins, losses, nwin, nloss

        if lcp_solvers and not peer_solvers:
            out.append("No peers in this run: no goal line.")
            out.append("")
        if lcp_solvers and peer_solvers:
            goal, vf, vs = goal_of(False)
            out.append("Each lcplab solver against the %d peers only (%s-norm criterion): fastest on "
                       "/ solves" % (len(peer_solvers), a.norm))
            out.append("")
            for f_, s_, s in goal:
                out.append("- %s: fastest on %d/%d (%.0f%%), solves %d/%d (%.0f%%)"
                           % (s, f_, P, pct(f_, P), s_, P, pct(s_, P)))
            best = sorted(goal, key=lambda g: (-g[0], -g[1], g[2]))[0]
            ok = pct(best[0], P) >= GOAL_FASTEST and pct(best[1], P) >= GOAL_SOLVES
            out.append("")
            out.append("**Goal line (tol %g, %s-norm): lcplab's best solver (%s) is the fastest on "
                       "%.1f%% of the problems (%d/%d) and solves %.1f%% (%d/%d)** (goal >= %g%% and "
                       ">= %g%%: %s)." % (tol, a.norm, best[2], pct(best[0], P), best[0], P,
                                          pct(best[1], P), best[1], P, GOAL_FASTEST, GOAL_SOLVES,
                                          "met" if ok else "NOT met"))
            cw, cl, nw, nl = close_calls(best[2])
            out.append("Close calls of %s (time within 10%% of the fastest peer's, which timing noise can "
                       "flip; problems no peer solves not counted): %d of its %d wins, %d of its %d losses%s."
                       % (best[2], len(cw), nw, len(cl), nl,
                          (" (" + ", ".join("%s %.2fx" % (p, r_) for p, r_ in cl) + ")") if cl else ""))
            out.append("Virtual best lcplab (per problem the fastest lcplab solver; not one solver): "
                       "fastest on %.1f%% (%d), solves %.1f%% (%d)." % (pct(vf, P), vf, pct(vs, P), vs))
            have_alt = all(r_["solved_alt"] is not None for r_ in rows
                           if r_["tol"] == tol and r_["residual"] is not None)
            if have_alt:
                goal2, vf2, vs2 = goal_of(True)
                best2 = sorted(goal2, key=lambda g: (-g[0], -g[1], g[2]))[0]
                out.append("")
                out.append("Same with the %s-norm (%s): lcplab's best solver (%s) is the fastest on "
                           "%.1f%% and solves %.1f%%; virtual best lcplab %.1f%% / %.1f%%.  Per "
                           "solver (fastest on / solves): %s." % (
                               other, "lcplab's own res_rel" if other == "inf" else "FCLIB's norm",
                               best2[2], pct(best2[0], P), pct(best2[1], P), pct(vf2, P),
                               pct(vs2, P), "; ".join("%s %d/%d" % (s.split(":")[1], f_, s_)
                                                      for f_, s_, s in goal2)))
            out.append("")
        # resisting problems
        resist = []
        for p in names:
            if any(byk.get((tol, s, p), {}).get("solved") == "yes" for s in lcp_solvers):
                continue
            lr = [(byk[(tol, s, p)]["residual"], s) for s in lcp_solvers
                  if (tol, s, p) in byk and byk[(tol, s, p)]["residual"] is not None]
            lr = [v for v in lr if not math.isnan(v[0])]
            pr = [(byk[(tol, q, p)]["time"], q) for q in peer_solvers
                  if (tol, q, p) in byk and byk[(tol, q, p)]["solved"] == "yes"]
            bl = min(lr) if lr else None
            stl = ", ".join("%s %s" % (s.split(":")[1], byk[(tol, s, p)]["status"])
                            for s in lcp_solvers if (tol, s, p) in byk)
            resist.append("| %s | %s | %s | %s | %s | %s |" % (
                p, pindex[p][2].nc if pindex[p][2] else "-",
                "%.2e" % bl[0] if bl else "-", bl[1].split(":")[1] if bl else "-", stl,
                ", ".join("%s (%s)" % (q.split(":")[1], fmt_t(t)) for t, q in sorted(
                    pr, key=lambda v: v[0] if v[0] is not None else math.inf)) or "none"))
        out.append("Problems no lcplab solver solves at tol %g: %d" % (tol, len(resist)))
        out.append("")
        if resist:
            out.append("| problem | nc | best lcplab residual | by | lcplab statuses | peers that solve it |")
            out.append("|---|---:|---:|---|---|---|")
            out.extend(resist)
            out.append("")
        # per problem
        out.append("<details><summary>per problem: fastest solver, fastest lcplab solver</summary>")
        out.append("")
        out.append("| problem | nc | fastest | time | fastest lcplab | time | ratio |")
        out.append("|---|---:|---|---:|---|---:|---:|")
        for p in names:
            tmin, who = best_t[(tol, p)]
            lt = [(ratio[(tol, s, p)], s) for s in lcp_solvers if math.isfinite(ratio[(tol, s, p)])]
            lb = min(lt) if lt else None
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                p, pindex[p][2].nc if pindex[p][2] else "-", ", ".join(who) or "none",
                fmt_t(tmin), lb[1] if lb else "none",
                fmt_t(byk[(tol, lb[1], p)]["time"]) if lb else "-", "%.3g" % lb[0] if lb else "-"))
        out.append("")
        out.append("</details>")
        out.append("")

    out.append("### The judge, checked against each program's own figure")
    out.append("")
    out.append("Relative difference between the judge's norm of the natural map and the program's "
               "(lcplab: res_nat_inf, inf-norm; Siconos harness: res_nat_abs, 2-norm, printed with 7 "
               "digits), over runs whose residual is well above rounding: > 1e-8 s (inf-norm) or "
               "1e-8 s sqrt(n) (2-norm), s = max_i (sum_j |W_ij x_j| + |q_i|) + max |x|.")
    out.append("")
    out.append("| program | runs compared | max rel. difference | where |")
    out.append("|---|---:|---:|---|")
    for prog in ("lcplab", "siconos"):
        xc = xcheck[prog]
        if xc:
            m = max(xc)
            out.append("| %s | %d | %.1e | %s %s tol %s |" % (prog, len(xc), m[0], m[1], m[2], m[3]))
        else:
            out.append("| %s | 0 | - | - |" % prog)
    notes = [(p[0], p[3]) for p in problems if p[3]]
    if notes:
        out.append("")
        for n_, t_ in notes:
            out.append("- %s: %s" % (n_, t_))
    out.append("")
    text = "\n".join(out) + "\n"
    with open(a.out + ".md", "w") as fh:
        fh.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
