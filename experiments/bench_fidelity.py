#!/usr/bin/env python3
"""bench_fidelity.py -- the physical-fidelity benchmark (issue 84, item 4; `make bench-fidelity`).

Scenes with analytic answers, built in Python (lcplab.Model; no built-in scene changes), each run
for every lcplab solver at several budgets (max_iter; tol 1e-8; on_failure "best": a failed solve
applies the solver's own best iterate, never a fallback solver's answer) and judged against the
analytic answer, with the mean step time and the share of converged steps beside it:

  incline_held    cube (0.2 m, 8 kg) on a 20 deg slope, mu 0.5 (tan 20 < mu): creep speed 0
  incline_slide   the same at 35 deg, mu 0.5: downhill acceleration g (sin t - mu cos t)
  push_held       cube on the floor pushed by 0.9 mu m g: creep speed 0
  push_slide      pushed by 1.1 mu m g: acceleration (F - mu m g) / m
  squeeze_held    ball (0.1 m radius, 8 kg) held between two cubes on x-sliders pressed by F,
                  2 mu F = 1.1 m g: creep 0
  squeeze_slide   2 mu F = 0.9 m g: the held ball falls at g - 2 mu F / m (0.3 s)
  stack           5 cubes on the floor: must stand (displacement from t = 0.25 s to the end)
  card_house      two cards leaning on each other at 15 deg (an A frame): must stand
  chain           5 links of 1 kg on ball joints hanging from the world, a 1000 kg load at the
                  end, at rest: joint error 0 (the largest over the run)
  drop            cube dropped from 5 cm, restitution 0: no bounce (rise above the rest height
                  after the first contact)
  rest            cube resting on the floor: penetration 0 (the largest over the second half;
                  lcplab's contact slop, 0.5 mm, is a tolerated penetration by design)

Each judge is a plain function on the recorded arrays (python/tests/test_bench_fidelity.py
checks them on planted answers) with its tolerance in JUDGES. dt 1/120, 1 s a run (the drop
and the chain 1 s, the stack 2 s).

    bench_fidelity.py run ROWS.jsonl [--solvers a,b] [--budgets 10,50,200] [--scenes ...]
                      [--peer-scene PATH [--peers-only]]
    bench_fidelity.py table ROWS.jsonl [--out FILE.md]

run appends one JSON line per (scene, solver, budget) and, with --peer-scene (the scene peers'
binary, ../shared/peers/scenes), one per (scene, engine) for the scenes the peers' harness has
(incline, stack). table writes one table per solver and the engines' table.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

G = 9.81
DT = 1.0 / 120.0
S = 0.1  # cube half side (0.2 m cube, as the scene peers' incline and stack)
MASS = 8.0
MU = 0.5

#: tolerances of the judges (SI units); each judge passes when its error is within
JUDGES = {
    "creep": 1e-5,  # m/s: a held body's speed along the free direction (fitted slope)
    "accel": 0.02,  # relative error of the fitted acceleration
    "stand": 1e-3,  # m: largest body displacement after settling
    "joint": 1e-3,  # m: largest joint error
    "bounce": 1e-3,  # m: rise above the rest height after the first contact
    "penetration": 1e-3,  # m: largest penetration at rest
}


# ---------------------------------------------------------------- judges (pure)
def _slope(t, y):
    """Least-squares slope of y against t."""
    t = np.asarray(t, float)
    y = np.asarray(y, float)
    tc = t - t.mean()
    return float((tc * (y - y.mean())).sum() / (tc * tc).sum())


def judge_creep(t, x):
    """A held body: its speed along the free direction, the slope of its position over the
    second half of the run, must be 0. Returns (measured, analytic, ok)."""
    half = len(t) // 2
    v = abs(_slope(t[half:], x[half:]))
    return v, 0.0, bool(v <= JUDGES["creep"])


def judge_accel(t, v, analytic):
    """A sliding body: the slope of its velocity along the motion over t in [T/4, T] against
    the analytic acceleration (relative error)."""
    q = len(t) // 4
    a = _slope(t[q:], v[q:])
    err = abs(a - analytic) / abs(analytic)
    return a, analytic, bool(err <= JUDGES["accel"])


def judge_stand(positions):
    """positions (steps, bodies, 3) from t = 0.25 s on: the largest displacement of any body
    from its position then must be 0."""
    p = np.asarray(positions, float)
    d = float(np.linalg.norm(p - p[0], axis=2).max())
    return d, 0.0, bool(d <= JUDGES["stand"])


def judge_joint(joint_error):
    e = float(np.max(joint_error))
    return e, 0.0, bool(e <= JUDGES["joint"])


def judge_bounce(z, contacts):
    """The height z of a dropped body and the contact count each step: after the first step
    with a contact, z must not rise above its final (rest) height."""
    z = np.asarray(z, float)
    hit = np.flatnonzero(np.asarray(contacts) > 0)
    if len(hit) == 0:
        return math.nan, 0.0, False
    rise = float(max(0.0, z[hit[0]:].max() - z[-1]))
    return rise, 0.0, bool(rise <= JUDGES["bounce"])


def judge_penetration(pen):
    half = len(pen) // 2
    p = float(np.max(pen[half:]))
    return p, 0.0, bool(p <= JUDGES["penetration"])


# ---------------------------------------------------------------- scenes (lcplab.Model)
def _cube(m, pos, mat, q=(1, 0, 0, 0), mass=MASS, name=None):
    inertia = np.full(3, mass * (2 * S) ** 2 / 6.0)
    b = m.add_body(mass, inertia, position=pos, orientation=q, name=name)
    m.add_shape(b, "box", half_extents=(S, S, S), material=mat)
    return b


def _floor(lcplab, name, restitution=0.0):
    m = lcplab.Model(name)
    mat = m.add_material(mu=MU, restitution=restitution)
    floor = m.add_body(static=True, name="floor")
    return m, mat, floor


def incline(lcplab, deg):
    a = math.radians(deg)
    m, mat, floor = _floor(lcplab, f"incline{deg}")
    n = np.array([-math.sin(a), 0.0, math.cos(a)])
    m.add_shape(floor, "plane", normal=tuple(n), offset=0.0, material=mat)
    q = (math.cos(-a / 2), 0.0, math.sin(-a / 2), 0.0)
    _cube(m, tuple((S + 1e-4) * n), mat, q)
    down = np.array([-math.cos(a), 0.0, -math.sin(a)])
    return m, 120, {}, down


def push(lcplab, frac):
    m, mat, floor = _floor(lcplab, "push")
    m.add_shape(floor, "plane", normal=(0, 0, 1), offset=0.0, material=mat)
    _cube(m, (0, 0, S + 1e-4), mat)
    return m, 120, {0: (frac * MU * MASS * G, 0, 0)}, np.array([1.0, 0, 0])


def _ball(m, pos, mat, mass=MASS):
    b = m.add_body(mass, np.full(3, 0.4 * mass * S * S), position=pos)
    m.add_shape(b, "sphere", radius=S, material=mat)
    return b


def squeeze(lcplab, frac):
    """frac = 2 mu F / (m g). The held body is a ball (radius S), one contact on each jaw: a
    cube would touch each jaw at four coplanar points, and since the jaws' sliders take any
    moment, the normal impulses may be shared among them in a continuum of ways, each
    turning the friction into a torque about the jaws' axis; the contact problem then has
    many solutions, the analytic motion only one of them
    (experiments/records/2026-11-28-falseconv.md). Two point contacts leave one."""
    m = lcplab.Model("squeeze")
    mat = m.add_material(mu=MU)
    _ball(m, (0, 0, 1.0), mat)
    f = frac * MASS * G / (2 * MU)
    loads = {}
    for k, side in ((1, -1), (2, 1)):
        b = _cube(m, (side * (2 * S + 1e-4), 0, 1.0), mat)
        m.add_joint("slider", b, None, axis=(1, 0, 0))
        loads[k] = (-side * f, 0, 0)
    # 0.3 s: the falling ball's contact points leave the jaws' 0.2 m faces after about 0.45 s
    return m, 120 if frac >= 1 else 36, loads, np.array([0, 0, -1.0])


def stack(lcplab, n=5):
    m, mat, floor = _floor(lcplab, "stack")
    m.add_shape(floor, "plane", normal=(0, 0, 1), offset=0.0, material=mat)
    for k in range(n):
        _cube(m, (0, 0, S + 1e-3 + k * (2 * S + 1e-3)), mat)
    return m, 240, {}, None


def card_house(lcplab, deg=15.0):
    """Two cards (10 x 200 x 300 mm, 0.1 kg) leaning on each other, their inner faces meeting
    at the top, an A frame on the floor: stands when mu >= tan(deg) / 2 (0.134 at 15 deg)."""
    a = math.radians(deg)
    m, mat, floor = _floor(lcplab, "card_house")
    m.add_shape(floor, "plane", normal=(0, 0, 1), offset=0.0, material=mat)
    t, w, h, mass = 0.005, 0.1, 0.15, 0.1
    inertia = mass / 3.0 * np.array([w * w + h * h, t * t + h * h, t * t + w * w])
    for side in (-1, 1):
        c = (side * (h * math.sin(a) + t / math.cos(a)), 0.0, h * math.cos(a) + t * math.sin(a)
             + 1e-4)
        q = (math.cos(-side * a / 2), 0.0, math.sin(-side * a / 2), 0.0)
        b = m.add_body(mass, inertia, position=c, orientation=q)
        m.add_shape(b, "box", half_extents=(t, w, h), material=mat)
    return m, 120, {}, None


def chain(lcplab, links=5, ratio=1000.0):
    m = lcplab.Model("chain")
    m.add_material(mu=MU)
    prev = None
    r = 0.05
    for k in range(links + 1):
        mass = ratio if k == links else 1.0
        b = m.add_body(mass, np.full(3, 0.4 * mass * r * r), position=(0, 0, -0.2 * (k + 1)))
        m.add_joint("ball", b, prev, anchor=(0, 0, -0.2 * (k + 1) + 0.1))
        prev = b
    return m, 120, {}, None


def drop(lcplab):
    m, mat, floor = _floor(lcplab, "drop", restitution=0.0)
    m.add_shape(floor, "plane", normal=(0, 0, 1), offset=0.0, material=mat)
    _cube(m, (0, 0, S + 0.05), mat)
    return m, 120, {}, None


def rest(lcplab):
    m, mat, floor = _floor(lcplab, "rest")
    m.add_shape(floor, "plane", normal=(0, 0, 1), offset=0.0, material=mat)
    _cube(m, (0, 0, S + 1e-4), mat)
    return m, 120, {}, None


def _incline_accel(deg):
    a = math.radians(deg)
    return G * (math.sin(a) - MU * math.cos(a))


#: scene -> (builder(lcplab), judge kind, analytic acceleration or None, peer_scene arguments)
SCENES = {
    "incline_held": (lambda L: incline(L, 20), "creep", None,
                     ["incline", "--angle", "20", "--mu", "0.5"]),
    "incline_slide": (lambda L: incline(L, 35), "accel", _incline_accel(35),
                      ["incline", "--angle", "35", "--mu", "0.5"]),
    "push_held": (lambda L: push(L, 0.9), "creep", None, None),
    "push_slide": (lambda L: push(L, 1.1), "accel", 0.1 * MU * G, None),
    "squeeze_held": (lambda L: squeeze(L, 1.1), "creep", None, None),
    "squeeze_slide": (lambda L: squeeze(L, 0.9), "accel", 0.1 * G, None),
    "stack": (stack, "stand", None, ["stack", "--n", "5", "--steps", "240"]),
    "card_house": (card_house, "stand", None, None),
    "chain": (chain, "joint", None, None),
    "drop": (drop, "bounce", None, None),
    "rest": (rest, "penetration", None, None),
}


def judge_run(kind, analytic, metrics, trace, dt, along):
    """Judge one run's metrics and trace (steps, bodies, 13) by the scene's kind."""
    t = (np.arange(len(metrics)) + 1) * dt
    pos = trace[:, :, 0:3]
    if kind == "creep":
        return judge_creep(t, pos[:, 0, :] @ along)
    if kind == "accel":
        return judge_accel(t, trace[:, 0, 7:10] @ along, analytic)
    if kind == "stand":
        return judge_stand(pos[int(round(0.25 / dt)):])
    if kind == "joint":
        return judge_joint(metrics["joint_error"])
    if kind == "bounce":
        return judge_bounce(pos[:, 0, 2], metrics["contacts"])
    return judge_penetration(metrics["max_penetration"])


def run_lcplab(lcplab, scene, solver, budget):
    build, kind, analytic, _ = SCENES[scene]
    model, steps, loads, along = build(lcplab)
    caps = {s.name: s.caps.split() for s in lcplab.solvers(details=True)}
    friction = "cone" if "cone" in caps[solver] else "box"
    row = {"scene": scene, "engine": "lcplab", "version": f"lcplab {lcplab.__version__}",
           "solver": solver, "budget": budget,
           "friction": friction, "judge": kind}
    try:
        w = lcplab.World(model, solver=solver, dt=DT, friction=friction, max_iter=budget,
                         tol=1e-8, on_failure="best", time_limit=0.2)
        if loads:
            dynamic = np.flatnonzero(~w.bodies()["is_static"])
            st = w.state()
            for k, f in loads.items():
                st.f_ext[dynamic[k]] = f
            w.set_state(st)
        p0 = w.bodies()["r"][~w.bodies()["is_static"]]
        t0 = time.perf_counter()
        r = w.run(steps, trace=True)
        wall = time.perf_counter() - t0
    except lcplab.Error as e:
        row.update(error=str(e).splitlines()[0][:160])
        return row
    met = r.metrics
    solved = met["rows"] > 0
    conv = int(((met["status"] == int(lcplab.Status.CONVERGED)) & solved).sum())
    got, want, ok = judge_run(kind, analytic, met, r.trace, DT, along)
    if scene == "stack":  # the peers' measure, for the engines' table
        p = r.trace[:, :, 0:3]
        from_start = float(np.linalg.norm(p - p0[None], axis=2).max())
        row["from_start"] = list(judge_settled_stack(from_start, 5))
    row.update(measured=got, analytic=want, ok=ok, steps=int(len(met)),
               solved_steps=int(solved.sum()), converged_steps=conv,
               step_time_s=float(met["step_time_s"].mean()), wall_s=wall,
               max_iterations=int(met["iterations"].max()))
    return row


def _peer_trace(stderr, dt):
    """peer_scene --trace lines: t, body 0's position and velocity (printed to 1e-6)."""
    t, p, v = [], [], []
    for line in stderr.splitlines():
        f = line.split()
        if len(f) < 16 or f[0] != "step" or f[8] != "body0":
            continue
        t.append((int(f[1]) + 1) * dt)
        p.append([float(x) for x in f[10:13]])
        v.append([float(x) for x in f[14:17]])
    return np.array(t), np.array(p), np.array(v)


def run_peer(binary, scene, engine):
    """One scene in one engine of the scene peers, judged by the same judge as lcplab's rows
    on the engine's trace of body 0 (incline); the stack by the peer's own largest body
    displacement from the start, which includes the settling through the start gaps (5 x 1 mm;
    judge_settled_stack)."""
    args = SCENES[scene][3]
    cmd = [binary] + args + ["--engine", engine, "--mu", str(MU), "--trace"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    row = {"scene": scene, "engine": engine, "cmd": " ".join(cmd[1:])}
    if p.returncode != 0:
        row["error"] = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:160]
        return row
    d = json.loads(p.stdout.strip().splitlines()[-1])
    row["version"] = d.get("engine_info", {}).get("lib", "?")
    row["step_time_s"] = d.get("time_step_mean_s")
    t, pos, vel = _peer_trace(p.stderr, d["dt"])
    if scene.startswith("incline"):
        a = math.radians(float(args[2]))
        down = np.array([-math.cos(a), 0.0, -math.sin(a)])
        if scene == "incline_held":
            got, want, ok = judge_creep(t, pos @ down)
        else:
            got, want, ok = judge_accel(t, vel @ down, SCENES[scene][2])
        row.update(measure="body 0 from the engine's trace (1e-6 resolution)")
    else:
        got, want, ok = judge_settled_stack(d["max_body_displacement"], 5)
        row.update(measure="largest body displacement from the start (peer's own)")
    row.update(measured=got, analytic=want, ok=ok)
    return row


def judge_settled_stack(displacement, cubes, gap=1e-3):
    """A stack of cubes started with a gap under each: the largest displacement from the
    start may be the gaps closed (cubes x gap) plus the stand tolerance."""
    return displacement, cubes * gap, bool(displacement <= cubes * gap + JUDGES["stand"])


PEER_ENGINES = ("ode-quickstep", "ode-world", "bullet", "mujoco-pgs", "mujoco-newton")


def cmd_run(a):
    import lcplab
    known = lcplab.solvers()
    solvers = a.solvers.split(",") if a.solvers else [s for s in known if s != "enum"]
    scenes = a.scenes.split(",") if a.scenes else list(SCENES)
    bad = ([("--scenes", sc, "a scene: " + ", ".join(SCENES)) for sc in scenes
            if sc not in SCENES]
           + [("--solvers", so, "a solver: " + ", ".join(known)) for so in solvers
              if so not in known]
           + [("--budgets", b, "a positive integer") for b in a.budgets.split(",")
              if not b.isdigit() or int(b) == 0])
    if bad:
        for opt, word, what in bad:
            print(f"bench_fidelity.py: {opt}: '{word}' is not {what}", file=sys.stderr)
        return 2
    budgets = [int(b) for b in a.budgets.split(",")]
    with open(a.rows, "a") as out:
        for sc in scenes:
            for so in [] if a.peers_only else solvers:
                for b in budgets:
                    out.write(json.dumps(run_lcplab(lcplab, sc, so, b)) + "\n")
                    out.flush()
            if a.peer_scene and SCENES[sc][3]:
                for e in PEER_ENGINES:
                    out.write(json.dumps(run_peer(a.peer_scene, sc, e)) + "\n")
                    out.flush()
    return 0


def _fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.3g}"


def table(rows):
    """Markdown: one table per lcplab solver (scene x budget), then the engines' table."""
    out = ["Judges: " + ", ".join(f"{k} <= {v:g}" for k, v in JUDGES.items()) + "."]
    lc = [r for r in rows if r["engine"] == "lcplab"]
    out += _overview(lc)
    for so in dict.fromkeys(r["solver"] for r in lc):
        rs = [r for r in lc if r["solver"] == so]
        out += ["", f"### {so} ({rs[0]['friction']} friction)", "",
                "| scene | budget | judge | measured | analytic | pass | step time (us) "
                "| converged steps |", "|---|---|---|---|---|---|---|---|"]
        for r in rs:
            if "error" in r:
                out.append(f"| {r['scene']} | {r['budget']} | {r['judge']} | run ended: "
                           f"{r['error']} | | no | | |")
                continue
            out.append(f"| {r['scene']} | {r['budget']} | {r['judge']} | {_fmt(r['measured'])} "
                       f"| {_fmt(r['analytic'])} | {'yes' if r['ok'] else 'NO'} "
                       f"| {r['step_time_s'] * 1e6:.1f} "
                       f"| {r['converged_steps']}/{r['solved_steps']} |")
    peers = [r for r in rows if r["engine"] != "lcplab"]
    peer_scenes = {r["scene"] for r in peers}
    for r in lc:
        if r["scene"] in peer_scenes and r["budget"] == 50 and r["solver"] in ENGINE_TABLE_SOLVERS:
            peers.append(_as_engine_row(r))
    peers.sort(key=lambda r: (list(SCENES).index(r["scene"]), r["engine"] != "lcplab"))
    if peers:
        out += ["", "### Engines (scene peers, 50 iterations)", "",
                "| scene | engine | version | measured | analytic | pass | step time (us) |",
                "|---|---|---|---|---|---|---|"]
        for r in peers:
            if "error" in r:
                out.append(f"| {r['scene']} | {r['engine']} | | run ended: {r['error']} | | no | |")
                continue
            out.append(f"| {r['scene']} | {r['engine']} | {r['version']} | {_fmt(r['measured'])} "
                       f"| {_fmt(r['analytic'])} | {'yes' if r['ok'] else 'NO'} "
                       f"| {r['step_time_s'] * 1e6:.1f} |")
    return "\n".join(out) + "\n"


def _overview(lc):
    """Scenes passed per solver and budget, the failed ones named."""
    budgets = sorted({r["budget"] for r in lc})
    out = ["", "| solver | " + " | ".join(f"passed at {b}" for b in budgets) + " |",
           "|---|" + "---|" * len(budgets)]
    for so in dict.fromkeys(r["solver"] for r in lc):
        cells = []
        for b in budgets:
            rs = [r for r in lc if r["solver"] == so and r["budget"] == b]
            bad = [r["scene"] + ("*" if "error" in r else "") for r in rs if not r.get("ok")]
            cells.append(f"{len(rs) - len(bad)}/{len(rs)}" + (f" (not: {', '.join(bad)})"
                                                              if bad else ""))
        out.append(f"| {so} | " + " | ".join(cells) + " |")
    return out + ["", "(* the run ended: the energy rule or a refusal)"]


#: lcplab's rows in the engines' table (budget 50, the peers' iterations)
ENGINE_TABLE_SOLVERS = ("pgs", "nsgs", "nsn_ac", "lemke")


def _as_engine_row(r):
    """An lcplab row as an engines' table row: the stack by the peers' measure."""
    e = dict(r, engine=f"lcplab {r['solver']}")
    if r["scene"] == "stack" and "from_start" in r:
        e["measured"], e["analytic"], e["ok"] = r["from_start"]
    return e


def read_rows(path):
    rows = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"bench_fidelity.py: {path}:{i}: not a JSON row ({e.msg})")
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("rows")
    r.add_argument("--solvers", default="")
    r.add_argument("--budgets", default="10,50,200")
    r.add_argument("--scenes", default="")
    r.add_argument("--peer-scene", default="")
    r.add_argument("--peers-only", action="store_true", help="run only the scene peers")
    t = sub.add_parser("table")
    t.add_argument("rows")
    t.add_argument("--out", default="")
    a = p.parse_args(argv)
    if a.cmd == "run":
        if a.peer_scene and not os.access(a.peer_scene, os.X_OK):
            print(f"bench_fidelity.py: --peer-scene: {a.peer_scene} is not executable",
                  file=sys.stderr)
            return 2
        return cmd_run(a)
    text = table(read_rows(a.rows))
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
