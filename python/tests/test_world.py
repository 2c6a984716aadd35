"""lcplab.simulate and lcplab.World: the metrics and the trace as numpy
arrays, equal to ``lcplab simulate``'s CSV files for the same scene; the
step's problem as an lcplab.Problem; ContactBench's criteria per step;
refusals and failures as exceptions; the GIL released while stepping."""

import logging
import os
import threading

import numpy as np
import pytest

import lcplab
from conftest import gil_released_during, run_cli

# the columns of `lcplab simulate --csv`, in its order (cli/cmd_simulate.c);
# solve_time_s is a measured time, the others are deterministic
CSV = ("step", "t", "kinetic", "potential", "energy", "max_penetration", "contacts", "rows",
       "iterations", "res_nat_inf", "solve_time_s", "joint_error")


def cli_simulate(tmp_path, scene, params, solver, steps, *extra):
    csv, trace = tmp_path / "m.csv", tmp_path / "t.csv"
    args = ["simulate", "--scene", scene, "--solver", solver, "--steps", steps, "--csv", csv,
            "--trace", trace, "--force", *extra]
    for k, v in params.items():
        args += ["--param", f"{k}={v}"]
    rc, _, err = run_cli(args)
    assert rc == 0, err
    m = np.genfromtxt(csv, delimiter=",", names=True, dtype=None, encoding="utf-8")
    t = np.genfromtxt(trace, delimiter=",", names=True)
    return m, t


@pytest.mark.parametrize("scene, params, solver, extra", [
    ("stack", {"n": 4}, "pgs", {}),
    ("pyramid", {"layers": 3, "mu": 0.3}, "pgs", {"friction": "box"}),
    ("stack", {"n": 3}, "nsgs", {"friction": "cone"}),
    ("pendulum", {"angle_deg": 30}, "lemke", {}),
])
def test_same_as_cli(tmp_path, scene, params, solver, extra):
    steps = 40
    r = lcplab.simulate(scene, params, solver=solver, steps=steps, trace=True, **extra)
    cli_extra = [a for k, v in extra.items() for a in (f"--{k}", v)]
    m, t = cli_simulate(tmp_path, scene, params, solver, steps, *cli_extra)
    assert r.metrics.shape == (steps,) and r.steps == steps
    for name in CSV:
        if name != "solve_time_s":
            np.testing.assert_array_equal(r.metrics[name], m[name], err_msg=name)
    # the status and the impulses applied, which the CSV names
    assert [str(lcplab.Status(s)) for s in r.metrics["status"]] == list(m["status"])
    assert [lcplab.APPLIED[a] for a in r.metrics["applied"]] == \
        [a.split(":")[0] for a in m["applied"]]
    # the trace: one CSV row per step and dynamic body
    nb = r.bodies.size
    assert r.trace.shape == (steps, nb, 13)
    np.testing.assert_array_equal(t["body"].reshape(steps, nb)[0], r.bodies)
    for k, field in enumerate(lcplab.TRACE_FIELDS):
        np.testing.assert_array_equal(r.trace[:, :, k], t[field].reshape(steps, nb),
                                      err_msg=field)
    # ContactBench's criteria only for the cone friction model
    cone = extra.get("friction") == "cone"
    with_rows = r.metrics["rows"] > 0
    assert np.all(np.isnan(r.metrics["signorini"][~with_rows]))
    assert np.all(np.isfinite(r.metrics["ncp_compl"][with_rows]) == cone)


def test_world_steps_and_last_problem():
    w = lcplab.World("stack", {"n": 3}, solver="nsgs", friction="cone", max_iter=200)
    assert w.body_count == 4 and w.solver == "nsgs" and w.last_problem() is None
    r = w.run(25)
    assert w.step_count == 25 and w.time == pytest.approx(25 * w.dt)
    p, x = w.last_problem()
    assert p.kind == "cone" and p.n == r.metrics["rows"][-1] and x.shape == (p.n,)
    # the step's numbers are the library's measures of the applied impulses
    # (the world's res_nat_inf from the solve's own w = A x + b, the same
    # sums in another order: to rounding)
    res = p.residuals(x)
    assert res.res_nat_inf == pytest.approx(r.metrics["res_nat_inf"][-1], rel=1e-9)
    for k in ("signorini", "conic_compl", "ncp_compl", "dual_feas", "primal_feas", "mdp_gap"):
        assert getattr(res, k) == r.metrics[k][-1], k
    # the step's problem can go to any other cone solver
    q = lcplab.solve(p, "nsn_ac", tol=1e-10, max_iter=200)
    assert q.converged and q.residuals.ncp_compl <= 1e-8
    # one more step
    rec = w.step()
    assert rec["step"] == 26 and w.step_count == 26
    b = w.bodies()
    assert b["r"].shape == (4, 3) and list(b["is_static"]) == [False, False, False, True]
    ke, pe = w.energy()
    assert ke + pe == pytest.approx(rec["energy"], rel=1e-12)


def test_factored_step_comes_back_in_csr():
    w = lcplab.World("stack", {"n": 3}, solver="pgs", storage="factored")
    r = w.run(5)
    p, x = w.last_problem()
    assert p.storage == "csr" and p.n == r.metrics["rows"][-1] > 0
    # the explicit A = J M^-1 J^T + cfm measures the impulses as the
    # matrix-free one did
    assert p.residuals(x).res_nat_inf == pytest.approx(r.metrics["res_nat_inf"][-1], rel=1e-9)


def test_failure_policy(tmp_path):
    # lemke cut to one pivot has failed (its pivot limit leaves no iterate;
    # a budget stop with an iterate, such as pjacobi's after one sweep, is
    # every solver's own answer and no failed step): the default policy solves
    # the step again with the fallback and applies the best candidate, as
    # `lcplab simulate` does; "stop" makes the step an error.  Margin 0 and
    # warm factor 0.7 (the settings before the stacking defaults) so that
    # every step with rows fails: with the 2 mm margin the first step's
    # rows are speculative and x = 0 solves them; with the warm factor 1
    # the settled stack's warm start solves its step
    r = lcplab.simulate("stack", {"n": 3}, solver="lemke", max_pivots=1, steps=20,
                        warm_factor=0.7, margin=0)
    m = r.metrics
    rows = m["rows"] > 0
    assert np.all(m["failed"][rows] == 1) and np.all(m["failed"][~rows] == 0)
    assert set(lcplab.APPLIED[a] for a in m["applied"][rows]) <= {"fallback", "solver", "warm",
                                                                  "zero"}
    assert np.all(m["res_applied"][rows] <= m["res_nat_inf"][rows])
    assert m["stage_time_s"].shape == (20, len(lcplab.STAGES))
    c, _ = cli_simulate(tmp_path, "stack", {"n": 3}, "lemke", 20, "--max-pivots", 1,
                        "--warm-factor", 0.7, "--margin", 0)
    # the CSV writes "fallback:pgs": the fallback and its solver
    assert [lcplab.APPLIED[a] for a in m["applied"]] == [a.split(":")[0] for a in c["applied"]]
    np.testing.assert_array_equal(m["energy"], c["energy"])
    w = lcplab.World("stack", {"n": 3}, solver="lemke", max_pivots=1, warm_factor=0.7,
                     margin=0, on_failure="stop")
    with pytest.raises(lcplab.SimulationError, match="failure policy stop") as e:
        w.run(20)
    assert e.value.kind == "numeric" and e.value.result.steps == w.step_count
    with pytest.raises(lcplab.SceneError, match="on_failure must be one of"):
        lcplab.World("stack", on_failure="retry")


@pytest.mark.parametrize("policy, fallback", [("best", None), ("keep", None),
                                              ("fallback", "lemke")])
def test_failure_policies_as_cli(tmp_path, policy, fallback):
    # each policy (and another fallback solver) gives the steps `lcplab
    # simulate` gives with the same flags: the impulses applied, the
    # statuses, the energies
    # failures on every step with rows (test_failure_policy says why): lemke
    # cut to one pivot; under keep, pjacobi after one sweep, whose budget stop
    # is its own answer under every policy
    solver, budget = ("pjacobi", "max_iter") if policy == "keep" else ("lemke", "max_pivots")
    settings = {"on_failure": policy, "warm_factor": 0.7, "margin": 0, budget: 1}
    cli = ["--" + budget.replace("_", "-"), 1, "--on-failure", policy, "--warm-factor", 0.7,
           "--margin", 0]
    if fallback:
        settings["fallback_solver"] = fallback
        cli += ["--fallback-solver", fallback]
    r = lcplab.simulate("stack", {"n": 3}, solver=solver, steps=20, **settings)
    c, _ = cli_simulate(tmp_path, "stack", {"n": 3}, solver, 20, *cli)
    m = r.metrics
    assert [lcplab.APPLIED[a] for a in m["applied"]] == [a.split(":")[0] for a in c["applied"]]
    assert [str(lcplab.Status(s)) for s in m["status"]] == list(c["status"])
    np.testing.assert_array_equal(m["energy"], c["energy"])
    rows = m["rows"] > 0
    assert np.all(m["status"][rows] == lcplab.Status.MAX_ITER)
    applied = set(lcplab.APPLIED[a] for a in m["applied"][rows])
    if policy == "keep":
        # an iterative solver's budget stop is not a failure, and its x is
        # applied, as under every policy (docs/dynamics.md)
        assert np.all(m["failed"] == 0) and applied == {"solver"}
        b = lcplab.simulate("stack", {"n": 3}, solver="pjacobi", steps=20, on_failure="best",
                            warm_factor=0.7, margin=0, max_iter=1)
        np.testing.assert_array_equal(b.metrics["energy"], m["energy"])
        return
    assert np.all(m["failed"][rows] == 1)
    if fallback:
        # lemke solves each step's LCP exactly: the fallback's x is applied,
        # converged, and its residual is what the step applied
        assert applied == {"fallback"}
        assert np.all(m["fallback_status"][rows] == lcplab.Status.CONVERGED)
        assert np.all(m["res_applied"][rows] <= 1e-8)
    else:
        assert "fallback" not in applied  # best: no second solve


def test_scene_errors():
    assert "stack" in lcplab.scenes() and "n=10" in lcplab.scenes()["stack"]
    with pytest.raises(lcplab.SceneError, match="unknown scene 'stak'"):
        lcplab.World("stak")
    with pytest.raises(lcplab.SceneError, match="mu=-1"):
        lcplab.World("stack", {"mu": -1})
    with pytest.raises(lcplab.SceneError, match="friction must be one of"):
        lcplab.World("stack", friction="viscous")
    with pytest.raises(lcplab.SceneError, match="max_iter must be an integer"):
        lcplab.World("stack", max_iter=2.5)
    with pytest.raises(TypeError, match="unknown setting 'frction'"):
        lcplab.World("stack", frction="box")
    with pytest.raises(lcplab.SceneError, match="dt"):
        lcplab.World("stack", dt=-1.0)
    # reduced coordinates: a setting the tree's step does not run is refused
    # by name (docs/dynamics.md, "Integrators"), the one it runs accepted
    cartpole = lcplab.load_model(os.path.join(os.path.dirname(__file__), "..", "..", "tests",
                                              "models", "cartpole.urdf"), coordinates="reduced")
    for key, value in (("integrator", "verlet"), ("orient", "linear"), ("gyro", "implicit")):
        with pytest.raises(lcplab.SceneError,
                           match=f"{key} {value} is not available in reduced coordinates"):
            lcplab.World(cartpole, **{key: value})
    lcplab.World(cartpole, gyro="explicit", integrator="symplectic").run(2)


def test_threads_same_trajectory():
    # a falling pile of 1200 spheres: the step's loops split from 1024
    # bodies or contacts (docs/dynamics.md, "Threads"); with pgs, which
    # does not split, 1 and 2 threads give the same bits
    runs = [lcplab.simulate("pile", {"n": 1200}, solver="pgs", steps=40, trace=True,
                            max_iter=10, threads=t) for t in (1, 2)]
    assert runs[0].metrics["contacts"][-1] >= 1024
    for name in CSV:
        if name != "solve_time_s":
            np.testing.assert_array_equal(runs[1].metrics[name], runs[0].metrics[name],
                                          err_msg=name)
    np.testing.assert_array_equal(runs[1].trace, runs[0].trace)
    with pytest.raises(lcplab.SceneError, match="threads"):
        lcplab.World("stack", threads=0)


def test_a_refused_step_keeps_the_steps_before():
    # pgs takes no cones: the first step with contacts is refused; the
    # world stays where it was, and the error carries the steps done
    w = lcplab.World("stack", {"n": 3}, solver="pgs", friction="cone")
    with pytest.raises(lcplab.SimulationError, match="pgs") as e:
        w.run(50)
    assert e.value.kind == "input"
    done = e.value.result.steps
    assert done == w.step_count and done < 50
    assert np.all(e.value.result.metrics["rows"] == 0)


def test_gil_released_during_run():
    def prepare(k):
        return lcplab.World("pyramid", {"layers": 6 * (k + 1)}, solver="pgs")

    def call(w):
        # the C layer's run alone: the package's numpy copies afterwards
        # release the GIL themselves
        return w._w.run(40, False, None, 0)

    count, r = gil_released_during(prepare, call)
    assert count > 0, "the main thread never ran during the steps: the GIL was held"
    assert r["done"] == 40 and r["error"] == 0


def test_one_thread_at_a_time():
    w = lcplab.World("pyramid", {"layers": 12}, solver="pgs")
    errors, started = [], threading.Event()

    def other():
        started.set()
        w.run(200)

    t = threading.Thread(target=other)
    level = lcplab.logger.level
    lcplab.logger.setLevel(logging.CRITICAL)  # no log line: its I/O releases the GIL too
    try:
        t.start()
        started.wait()
        # while the other thread steps (without the GIL), this one is
        # refused, not raced
        while t.is_alive() and not errors:
            try:
                w.bodies()
            except RuntimeError as e:
                errors.append(str(e))
        t.join()
    finally:
        lcplab.logger.setLevel(level)
    assert w.step_count == 200
    assert errors and "another thread" in errors[0]


def test_global_problem_condenses_joint_rows(tmp_path):
    # issue 86, item 12: a step with joint rows (the car: 20 joint rows, 4
    # wheel contacts in cones) had no global form from Python; with
    # condense_joints=True it is the contact rows' global problem that
    # `lcplab export --condense-joints --global` writes, bit for bit, and its
    # condensation H' M^-1 H, w + H' M^-1 f (numpy here) is the local
    # problem the export condensed row by row (slv_condense_rows)
    w = lcplab.World("car", friction="cone", solver="nsgs")
    w.run(20)
    with pytest.raises(lcplab.UnsupportedError, match=r"20 joint rows: "
                       r"global_problem\(condense_joints=True\)"):
        w.global_problem()
    g = w.global_problem(condense_joints=True)
    assert g.n == 12 and g.ncones == 4 and "joint rows condensed" in g.name
    G = g.global_problem
    M, H = G.M.toarray(), G.H.toarray()
    np.testing.assert_allclose(g.to_dense(), H.T @ np.linalg.solve(M, H), rtol=0, atol=1e-12)
    np.testing.assert_allclose(g.b, G.w + H.T @ np.linalg.solve(M, G.f), rtol=0, atol=1e-12)
    _, x = w.last_problem()
    run_cli(["export", "--scene", "car", "--friction", "cone", "--solver", "nsgs", "--steps", 20,
             "--every", 20, "--format", "hdf5", "--global", "--condense-joints", "--out",
             tmp_path / "e"])
    q = lcplab.read(tmp_path / "e" / "car_step000020.global.hdf5").global_problem
    for k in ("M", "H"):
        np.testing.assert_array_equal(getattr(G, k).toarray(), getattr(q, k).toarray())
    np.testing.assert_array_equal(G.f, q.f)
    np.testing.assert_array_equal(G.w, q.w)
    local = lcplab.read(tmp_path / "e" / "car_step000020.hdf5")
    np.testing.assert_allclose(g.to_dense(), local.to_dense(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(g.b, local.b, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(np.loadtxt(tmp_path / "e" / "car_step000020.x"), x[20:])
    # variants: joint rows and no contact row (the ragdoll's first step) are
    # refused naming them; a step without joint rows is the plain form
    r = lcplab.World("ragdoll", friction="cone", solver="nsgs")
    r.run(1)
    with pytest.raises(lcplab.UnsupportedError, match="39 joint rows and no contact row"):
        r.global_problem(condense_joints=True)
    s = lcplab.World("stack", {"n": 2}, friction="cone", solver="nsgs")
    s.run(3)
    np.testing.assert_array_equal(s.global_problem(condense_joints=True).to_dense(),
                                  s.global_problem().to_dense())
    # the plain form too is export --global's, arrays and mu bit for bit (one
    # global form type, slv_global_form, from libdynamics to libio: exp_world_global;
    # issue 81 item 4)
    run_cli(["export", "--scene", "stack", "--param", "n=2", "--friction", "cone", "--solver", "nsgs",
             "--steps", 3, "--every", 3, "--format", "hdf5", "--global", "--out", tmp_path / "s"])
    e = lcplab.read(tmp_path / "s" / "stack_step000003.global.hdf5")
    P = s.global_problem()
    for k in ("M", "H"):
        np.testing.assert_array_equal(getattr(P.global_problem, k).toarray(),
                                      getattr(e.global_problem, k).toarray())
    for k in ("f", "w"):
        np.testing.assert_array_equal(getattr(P.global_problem, k), getattr(e.global_problem, k))
    np.testing.assert_array_equal(P.mu, e.mu)


def test_global_problem_condenses_limit_rows_in_reduced_coordinates():
    # a robot in reduced coordinates: its limit rows condensed the same way
    humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml"
    if not os.path.exists(humanoid):
        pytest.skip("MuJoCo's humanoid.xml is not installed")
    w = lcplab.World(lcplab.load_model(humanoid, coordinates="reduced"), friction="cone",
                     solver="nsgs")
    w.run(100)
    p, _ = w.last_problem()
    g = w.global_problem(condense_joints=True)
    jr = p.n - 3 * p.ncones
    assert jr > 0 and g.n == 3 * p.ncones and g.ncones == p.ncones
    G = g.global_problem
    M, H = G.M.toarray(), G.H.toarray()
    np.testing.assert_allclose(g.to_dense(), H.T @ np.linalg.solve(M, H), rtol=0,
                               atol=1e-10 * np.abs(g.to_dense()).max())


def test_integrator_rule_restores_the_failed_step(tmp_path):
    # issue 80, item 1 (docs/dynamics.md, "The integrator's energy rule"):
    # the 10-link chain in reduced coordinates at 1/120 s gains energy
    # through its explicit Coriolis terms; the run's gain passes its drift
    # scale (8.83 J) at step 161.  Under on_failure="stop" that step fails
    # and the world is left as after step 160 (the tree's q and u, the step
    # count, the time), the same bits as a world run 160 steps; under the
    # default policy the step is applied and counted in the metrics.
    path = tmp_path / "chain.xml"
    rc, _, err = run_cli(["simulate", "--scene", "chain", "--steps", "1", "--save-model", path])
    assert rc == 0, err
    m = lcplab.load_model(str(path), coordinates="reduced")
    ref = lcplab.World(m)
    r = ref.run(165)
    failed = r.metrics["failed_integrator"]
    assert not failed[:160].any() and failed[160] == 1 and r.metrics["failed"][160] == 1
    assert r.metrics["integrator_excess"][160] > 8.8
    ref160 = lcplab.World(m)
    ref160.run(160)
    w = lcplab.World(m, on_failure="stop")
    with pytest.raises(lcplab.SimulationError, match="step 161: the integrator") as e:
        w.run(200)
    assert e.value.kind == "numeric" and e.value.result.steps == 160
    assert w.step_count == 160 and w.time == ref160.time
    assert np.array_equal(w.joint_velocities(), ref160.joint_velocities())
    for k in ("r", "q", "v", "w"):
        assert np.array_equal(w.bodies()[k], ref160.bodies()[k])
