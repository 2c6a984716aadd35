#!/usr/bin/env python3
"""bench_models.py -- `make bench-models` (issue 82, item 3): a fair comparison of lcplab and
MuJoCo on robot files, as a work-precision table and figure.

Per file (humanoid.xml, 22_humanoids.xml, humanoid100.xml, tests/models/quadruped.urdf,
slider_crank.xml), per engine and solver, in one run, interleaved (an lcplab row, a MuJoCo 2.2.2
row, a MuJoCo 3.12.0 row, ...), single-threaded, the file's own time step:

  lcplab (reduced coordinates, the files' default representation; box friction, lcplab's
  default): pgs_wide at 10, 30 and 100 sweeps, dantzig, auto; its reference: auto (dantzig
  with exact fallbacks) at --tol 1e-10 (dantzig alone fails a few steps of 22_humanoids and
  humanoid100: a reference must have none).
  MuJoCo (the file unchanged; its cone, softness and tolerance; islands on in 3.12): PGS and CG
  at 10, 30 and 100 iterations, Newton at 1, 3 and 10; its reference: Newton at --tol 1e-12
  and 1000 iterations, one per version.

Each row: the median step time (each engine's summary: the last 80 % of the steps), contacts per
step, energy at start and end, joint error, penetration at the end (lcplab's contacts are hard,
MuJoCo's soft: a MuJoCo contact rests at a penetration by design), the share of steps converged
(lcplab: the solver's status; MuJoCo: not all iterations used, every island in 3.12), failed
steps (lcplab's fallbacks; MuJoCo: a reset), and the self-consistency: the RMS over the steps of
the first second and the bodies that move of the distance between a body's centre of mass in
the run and in its own engine's reference run (rms_deviation).  A run that fails (a file an
engine does not load, a crash) is a row with its reason, never dropped.

    bench_models.py run OUTDIR --lcplab PATH --srcdir DIR [--peer222 PATH] [--peer312 PATH]
                    [--peer312-missing REASON] [--steps K] [--files a,b] [--seconds S]
    bench_models.py table ROWS.jsonl [--md OUT.md] [--dat OUT.dat]
    bench_models.py selfcon REF.trace RUN.trace --dt H [--seconds S]

run writes OUTDIR/rows.jsonl (one JSON object a row, as each run ends) and prints nothing but
progress on stderr; table prints the markdown table and the goal's three ratios (issue 82,
item 4), and writes the figure's data (--dat); selfcon prints one trace's RMS deviation from
another (the calculation of the table's column, for tests/test_bench_states.sh).  A trace is
lcplab's --trace CSV (step, t, body, x, y, z, ...) or peer_mujoco_model's (step, t, body,
x, y, z); only the first six columns are read.  Exit: 0; 1 a run or file error (named); 2 usage.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

from outfile import replace_text, truncating  # outputs never written through a planted link

MJ = "/usr/share/mujoco/model"

# name, path (relative paths: under --srcdir), the step both engines take (the file's own; the
# URDF has none: 5 ms), lcplab's extra flags and why
FILES = [
    ("humanoid", MJ + "/humanoid/humanoid.xml", 0.005, [], ""),
    ("22_humanoids", MJ + "/humanoid/22_humanoids.xml", 0.005, [], ""),
    ("humanoid100", MJ + "/humanoid100/humanoid100.xml", 0.005, [], ""),
    ("quadruped", "tests/models/quadruped.urdf", 0.005, [], "a URDF has no step: 5 ms in both"),
    ("slider_crank", MJ + "/slider_crank/slider_crank.xml", 0.002, [],
     "no control and no contact: it barely moves (its transmission idle), so its rows say "
     "little until the transmission is mapped and driven"),
]
GOAL_FILES = ["humanoid", "22_humanoids", "humanoid100"]

# engine, solver, budget (iterations; None: the solver's own), extra arguments, reference?
LCPLAB_RUNS = [("pgs_wide", b, ["--max-iter", str(b)]) for b in (10, 30, 100)] + [
    ("dantzig", None, []), ("auto", None, [])]
LCPLAB_REF = ("auto", None, ["--tol", "1e-10"])
MUJOCO_RUNS = [(s, b, ["--solver", s, "--iters", str(b)])
               for s, bs in (("pgs", (10, 30, 100)), ("cg", (10, 30, 100)), ("newton", (1, 3, 10)))
               for b in bs]
MUJOCO_REF = ("newton", 1000, ["--solver", "newton", "--iters", "1000", "--tol", "1e-12"])

# the figure's curves, in the legend's order: (engine, solver)
CURVES = [("lcplab", "pgs_wide"), ("lcplab", "dantzig"), ("lcplab", "auto"),
          ("mujoco-2.2.2", "pgs"), ("mujoco-2.2.2", "cg"), ("mujoco-2.2.2", "newton"),
          ("mujoco-3.12.0", "pgs"), ("mujoco-3.12.0", "cg"), ("mujoco-3.12.0", "newton")]
SELFCON_FLOOR = 1e-12  # an exact solver's 0 on the figure's log axis


class BenchError(Exception):
    """A bad trace or rows file, named."""


def read_trace(lines, last_step, what="trace"):
    """The positions of a trace's rows up to last_step: {(step, body): (x, y, z)}.  The rest of
    lines is read and dropped (a pipe is drained).  The first line may be the header
    (step,t,body,...); a row that is not numbers is an error."""
    pos = {}
    for n, line in enumerate(lines, 1):
        if not line.strip() or (n == 1 and line.startswith("step,")):
            continue
        f = line.split(",", 6)
        try:
            step = int(f[0])
            if step > last_step:
                continue
            pos[(step, int(f[2]))] = (float(f[3]), float(f[4]), float(f[5]))
        except (ValueError, IndexError):
            raise BenchError(f"{what}:{n}: not step,t,body,x,y,z: {line.strip()[:60]}")
    return pos


def rms_deviation(ref, run):
    """The RMS over ref's (step, body) keys of |run - ref| (m); None when run lacks a key (it
    stopped early).  A body of run that ref does not have is an error (not one engine's)."""
    if not ref:
        return None
    extra = set(run) - set(ref)
    if extra:
        raise BenchError(f"the run has bodies or steps its reference has not: {min(extra)}")
    s = 0.0
    for k, p in ref.items():
        q = run.get(k)
        if q is None:
            return None
        s += (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2 + (q[2] - p[2]) ** 2
    return math.sqrt(s / len(ref))


def last_json(text):
    """The last line of text that is a JSON object (an engine's summary), or None."""
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def reason_of(text, rc):
    """A failed run's reason: its last message line, with the exit code."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("{")]
    return f"exit {rc}: " + (lines[-1].strip()[:200] if lines else "no message")


def run_one(cmd, last_step):
    """Runs cmd (its trace on stdout, its summary and messages on stderr): (summary or None,
    positions, reason)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", LCPLAB_PROGRESS="0")
    with tempfile.TemporaryFile(mode="w+") as err:
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        except OSError as e:
            return None, {}, f"not run: {e}"
        try:
            pos = read_trace(p.stdout, last_step)
        except BenchError as e:
            p.kill()
            p.wait()
            return None, {}, str(e)
        rc = p.wait()
        err.seek(0)
        text = err.read()
    summary = last_json(text) if rc == 0 else None
    return summary, pos, "" if summary else reason_of(text, rc)


def lcplab_cmd(a, path, dt, flags, extra):
    return [a.lcplab, "simulate", "--model", path, "--steps", str(a.steps), "--dt", repr(dt),
            "--trace", "-", "--threads", "1"] + flags + ["--solver"] + extra


def row_of(name, engine, solver, budget, flags, summary, reason, sc, ref):
    """One table row from an engine's summary (None: a failed run with its reason)."""
    r = {"file": name, "engine": engine, "solver": solver, "budget": budget,
         "flags": " ".join(flags), "reference": ref, "error": reason}
    if summary:
        steps = summary.get("steps") or 1
        nc = summary.get("not_converged", 0)
        r.update(step_ms=1e3 * summary["time_step_median_s"],
                 contacts=summary.get("contacts_mean"),
                 energy_start=summary.get("energy_start"), energy_end=summary.get("energy_end"),
                 joint_error=summary.get("joint_error_max"),
                 penetration=summary.get("max_penetration_end", summary.get("max_penetration")),
                 converged=1.0 - nc / steps,
                 failed=summary.get("failed_steps", 0),
                 islands_max=summary.get("islands_max"),
                 selfcon=0.0 if ref else sc)
    return r


class Plan:
    """The runs of one file, interleaved across the engines, references first."""

    def __init__(self, a, name, path, dt, flags):
        self.a, self.name, self.path, self.dt, self.flags = a, name, path, dt, flags
        self.engines = [("lcplab", None)]
        for ver, peer in (("2.2.2", a.peer222), ("3.12.0", a.peer312)):
            self.engines.append(("mujoco-" + ver, peer))

    def cmd(self, engine, peer, extra):
        if engine == "lcplab":
            return lcplab_cmd(self.a, self.path, self.dt, self.flags, extra)
        return [peer, self.path, "--steps", str(self.a.steps), "--dt", repr(self.dt),
                "--trace", "-"] + extra

    def runs(self):
        """(engine, peer, solver, budget, extra, reference?) in the run's order."""
        refs = [(e, p) + (LCPLAB_REF if e == "lcplab" else MUJOCO_REF) + (True,)
                for e, p in self.engines]
        lists = [[(e, p) + c + (False,) for c in (LCPLAB_RUNS if e == "lcplab" else MUJOCO_RUNS)]
                 for e, p in self.engines]
        inter = [x for i in range(max(map(len, lists))) for lst in lists if i < len(lst)
                 for x in [lst[i]]]
        return refs + inter


def missing_peer(a, engine):
    """Why an engine's harness is missing, or ''."""
    if engine == "mujoco-3.12.0":
        return "" if a.peer312 else (a.peer312_missing or "MuJoCo 3.12.0 not built")
    if engine == "mujoco-2.2.2":
        return "" if a.peer222 else "peer_mujoco_model not built"
    return ""


def run_file(a, name, path, dt, flags, out):
    plan = Plan(a, name, path, dt, flags)
    last_step = round(a.seconds / dt)
    refs = {}
    for engine, peer, solver, budget, extra, is_ref in plan.runs():
        why = missing_peer(a, engine)
        fl = flags if engine == "lcplab" else []
        if why:
            summary, pos, reason = None, {}, why
        else:
            if engine == "lcplab":
                extra = [solver] + extra
            summary, pos, reason = run_one(plan.cmd(engine, peer, extra), last_step)
        if is_ref:
            refs[engine] = pos
        sc = None
        if summary and refs.get(engine):
            sc = rms_deviation(refs[engine], pos)
        row = row_of(name, engine, solver, budget, fl, summary, reason, sc, is_ref)
        out.write(json.dumps(row) + "\n")
        out.flush()
        print(f"bench_models: {name} {engine} {solver} {budget or ''}: "
              f"{'%.4g ms' % row['step_ms'] if summary else reason}", file=sys.stderr)


def cmd_run(a):
    os.makedirs(a.outdir, exist_ok=True)
    names = a.files.split(",") if a.files else [f[0] for f in FILES]
    unknown = [n for n in names if n not in [f[0] for f in FILES]]
    if unknown:
        print(f"bench_models.py: --files: unknown {unknown[0]} (known: "
              f"{', '.join(f[0] for f in FILES)})", file=sys.stderr)
        return 2
    with truncating(os.path.join(a.outdir, "rows.jsonl"), "bench_models.py") as out:
        for name, path, dt, flags, _ in FILES:
            if name in names:
                run_file(a, name, os.path.join(a.srcdir, path), dt, flags, out)
    return 0


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def table_lines(rows):
    """The markdown table of rows, in their order."""
    head = ("| file | engine | solver | budget | lcplab flags | step (ms, median) | contacts/step "
            "| energy start (J) | energy end (J) | joint error (m) | penetration at end (mm) "
            "| converged | failed steps | self-consistency (m, RMS 1st s) | note |")
    out = [head, "|" + "---|" * 15]
    for r in rows:
        budget = budget_name(r)
        pen = r.get("penetration")
        kind = "soft" if r["engine"].startswith("mujoco") else "hard"
        pen_s = "-" if pen is None else f"{1e3 * pen:.3g} ({kind})"
        conv = r.get("converged")
        out.append("| " + " | ".join([
            r["file"], r["engine"], r["solver"], str(budget), r["flags"] or "-",
            fmt(r.get("step_ms"), ".4g"), fmt(r.get("contacts"), ".3g"),
            fmt(r.get("energy_start"), ".6g"), fmt(r.get("energy_end"), ".6g"),
            fmt(r.get("joint_error"), ".2g"), pen_s,
            "-" if conv is None else f"{100 * conv:.0f} %", fmt(r.get("failed"), "d"),
            "0 (reference)" if r["reference"] and "step_ms" in r else fmt(r.get("selfcon"), ".3g"),
            r["error"] or island_note(r)]) + " |")
    return out


def island_note(r):
    """MuJoCo 3.x records the solver statistics of its first 20 islands (mjNISLAND) only: a
    run with more has its converged share judged on those."""
    n = r.get("islands_max") or 0
    return f"up to {n} islands: converged judged on the first 20 (all 3.x records)" if n > 20 \
        else ""


def usable(r):
    """A row that ran, has its self-consistency (a reference's is 0: it is a solver setting
    like the others) and no failed step."""
    return "step_ms" in r and r.get("selfcon") is not None and not r.get("failed")


def budget_name(r):
    """A row's budget as the table and the goal lines say it."""
    return "ref" if r["reference"] else str(r["budget"]) if r["budget"] else "own"


def goal_line(rows, name):
    """Issue 82's goal on one file: lcplab's fastest at equal-or-better self-consistency and no
    failed steps against MuJoCo's fastest (either version)."""
    mine = [r for r in rows if r["file"] == name and usable(r)]
    mj = [r for r in mine if r["engine"].startswith("mujoco")]
    if not mj:
        return f"goal {name}: no MuJoCo row ran (see the table)"
    m = min(mj, key=lambda r: r["step_ms"])
    ok = [r for r in mine if r["engine"] == "lcplab" and r["selfcon"] <= m["selfcon"]]
    who = f"{m['engine']} {m['solver']} {budget_name(m)} {m['step_ms']:.4g} ms (self-consistency " \
          f"{m['selfcon']:.3g} m)"
    if not ok:
        return f"goal {name}: no lcplab row at self-consistency <= {m['selfcon']:.3g} m " \
               f"without failed steps; MuJoCo's fastest: {who}"
    l = min(ok, key=lambda r: r["step_ms"])
    ratio = l["step_ms"] / m["step_ms"]
    return (f"goal {name}: lcplab/MuJoCo = {ratio:.2f} (goal <= 1; "
            f"{'met' if ratio <= 1 else 'not met'}): lcplab {l['solver']} "
            f"{budget_name(l)} {l['step_ms']:.4g} ms (self-consistency {l['selfcon']:.3g} m"
            f"{', ' + l['flags'] if l['flags'] else ''}) against {who}")


def dat_lines(rows, names):
    """The figure's data: one block (two blank lines apart) per file and curve, in FILES and
    CURVES order: budget, self-consistency (floored at SELFCON_FLOOR), step time (ms).  Every
    run that ran is drawn, with failed steps too (the goal leaves those out, not the figure)."""
    out = ["# bench_models.py: per file (" + " ".join(names) + ") and curve ("
           + " ".join(f"{e}:{s}" for e, s in CURVES) + "): budget selfcon_m step_ms"]
    for name in names:
        for engine, solver in CURVES:
            pts = [r for r in rows if r["file"] == name and r["engine"] == engine
                   and r["solver"] == solver and "step_ms" in r and r.get("selfcon") is not None]
            pts.sort(key=lambda r: r["budget"] or 0)
            out.append(f"# {name} {engine} {solver}")
            for r in pts:
                out.append(f"{r['budget'] or 0} {max(r['selfcon'], SELFCON_FLOOR):.6g} "
                           f"{r['step_ms']:.6g}")
            if not pts:
                out.append("0 NaN NaN")
            out += ["", ""]
    return out


def read_rows(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                r = json.loads(line)
                for k in ("file", "engine", "solver", "reference", "error"):
                    r[k]
            except (ValueError, KeyError, TypeError):
                raise BenchError(f"{path}:{n}: not a row of bench_models.py run")
            rows.append(r)
    return rows


def cmd_table(a):
    rows = read_rows(a.rows)
    names = [f[0] for f in FILES if any(r["file"] == f[0] for r in rows)]
    lines = table_lines(rows)
    notes = [f"- {n}: {why}" for n, _, _, _, why in FILES if why and n in names]
    goals = [goal_line(rows, n) for n in GOAL_FILES if n in names]
    text = "\n".join(lines + [""] + notes + [""] + goals) + "\n"
    if a.md:
        replace_text(a.md, text, "bench_models.py")
    if a.dat:
        replace_text(a.dat, "\n".join(dat_lines(rows, names)) + "\n", "bench_models.py")
    sys.stdout.write(text)
    return 0


def cmd_selfcon(a):
    last = round(a.seconds / a.dt)
    with open(a.ref) as f:
        ref = read_trace(f, last, a.ref)
    with open(a.run) as f:
        run = read_trace(f, last, a.run)
    d = rms_deviation(ref, run)
    print("short" if d is None else f"{d:.17g}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="bench_models.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("outdir")
    r.add_argument("--lcplab", required=True)
    r.add_argument("--srcdir", required=True)
    r.add_argument("--peer222")
    r.add_argument("--peer312")
    r.add_argument("--peer312-missing", default="")
    r.add_argument("--steps", type=int, default=600)
    r.add_argument("--seconds", type=float, default=1.0)
    r.add_argument("--files", default="")
    t = sub.add_parser("table")
    t.add_argument("rows")
    t.add_argument("--md")
    t.add_argument("--dat")
    s = sub.add_parser("selfcon")
    s.add_argument("ref")
    s.add_argument("run")
    s.add_argument("--dt", type=float, required=True)
    s.add_argument("--seconds", type=float, default=1.0)
    a = p.parse_args(argv)
    try:
        return {"run": cmd_run, "table": cmd_table, "selfcon": cmd_selfcon}[a.cmd](a)
    except (BenchError, OSError) as e:
        print(f"bench_models.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
