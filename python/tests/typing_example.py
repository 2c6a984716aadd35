"""A user's typed code, checked by mypy --strict against the package's
stubs (test_typing.py); not run by pytest itself."""

from typing import Any

import numpy as np

import lcplab


def smallest_residual(path: str, names: list[str]) -> tuple[str, float]:
    p: lcplab.Problem = lcplab.read(path)
    best = ("", float("inf"))
    for name in names:
        try:
            r: lcplab.Result = lcplab.solve(p, name, tol=1e-10, max_iter=500)
        except lcplab.UnsupportedError:
            continue
        if r.residuals.res_rel < best[1]:
            best = (r.method, r.residuals.res_rel)
    return best


def contactbench_lambda(G: np.ndarray[Any, Any], g: np.ndarray[Any, Any],
                        mus: list[float]) -> np.ndarray[Any, Any]:
    p = lcplab.Problem.from_contactbench(G, g, mus)
    G2, g2, mus2 = p.to_contactbench()
    assert G2.shape == (g2.size, g2.size) == (3 * mus2.size, 3 * mus2.size)
    return p.to_contactbench_order(lcplab.solve(p, "nsgs").x)


def shifted(p: lcplab.Problem, shift: float) -> lcplab.Problem:
    return p.replace(b=p.b + shift)


def summary() -> str:
    p = lcplab.Problem(np.eye(2), [-1.0, 1.0], lo=[0.0, 0.0])
    r = lcplab.solve(p)
    infos: list[lcplab.SolverInfo] = lcplab.solvers(details=True)
    names: list[str] = lcplab.solvers()
    status: lcplab.Status = r.status
    x: "np.ndarray[Any, Any]" = r.x
    w = lcplab.World("stack", {"n": 2}, solver="pgs")
    s: lcplab.SimulationResult = w.run(2)
    last = w.last_problem()
    n = last[0].n if last is not None else 0
    try:
        lcplab.write(p, "/nonexistent/p.lcp")
    except lcplab.Error as e:
        return f"{e.message} {status} {x} {len(infos)} {len(names)} {s.steps} {n} {r.choice}"
    return lcplab.__version__


def my_scene() -> tuple[int, float]:
    m = lcplab.Model("mine", gravity=(0.0, 0.0, -9.81))
    rubber = m.add_material(mu=0.9, restitution=0.3, name="rubber")
    floor = m.add_body(static=True)
    m.add_shape(floor, "plane", normal=(0.0, 0.0, 1.0))
    ball = m.add_body(1.0, np.full(3, 0.004), position=(0.0, 0.0, 0.099))
    m.add_shape(ball, "sphere", radius=0.1, material=rubber)
    m.add_joint("slider", ball, None, axis=(0.0, 0.0, 1.0), spring=(10.0, 1.0))
    w = lcplab.World(m, solver="pgs")
    w.step()
    q: lcplab.StepMatrices | None = w.step_matrices()
    g: lcplab.Problem | None = w.global_problem() if q is None else None
    depth: "np.ndarray[Any, Any]" = w.contacts()["depth"]
    return (0 if q is None else q.joint_rows) + (0 if g is None else g.n), float(depth.sum())
