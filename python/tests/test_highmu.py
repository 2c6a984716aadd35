"""High friction (issue 80, item 4): scenes built here at mu 0.8..3, their local Coulomb
problems solved by auto and ppa_nsn; verdicts only, each checked against a residual computed
here from (A, b, mu, x) alone (the De Saxce natural map, 2-norm over max(1, ||b||_2): the
res_rel_q of peer_fc3d --check-r). The scenes are experiments/highmu_family.py's."""
import pathlib

import numpy as np
import pytest

import lcplab
from conftest import cli_solve, experiment_module

PARTS = pathlib.Path(__file__).resolve().parents[2] / "experiments" / "residual_parts.py"
JUDGE = 1e-6  # the bench's judge: res_rel_q <= 1e-6


def _family():
    return experiment_module("highmu_family")


def _problem(scene, size, mu, step):
    """The local problem of the scene's world at that step, as highmu_family.py writes it."""
    w = _family().scene_world(scene, size, mu)
    for _ in range(step):
        w.step()
    return w.last_problem()[0]


def test_the_family_trajectory_goes_on_through_failed_steps():
    """The trajectory only makes states: a step the world judges failed (here nsgs at 2 sweeps,
    whose impulses add energy beyond the per-step bound) must not end it. Under on_failure
    "keep" it raised at step 12 (bin-medium-mu3 at 300 sweeps: step 72, its step-120 problem
    never written); now the fallback solver's answer is applied and the steps go on."""
    fam = _family()
    m = fam.SCENES["container"][0](1.0, 2, np.random.default_rng(7))
    r = fam.trajectory_world(m, max_iter=2).run(20)
    failed = r.metrics["failed"] == 1
    assert len(r.metrics) == 20 and failed.sum() >= 1
    assert (r.metrics["applied"][failed] == lcplab.APPLIED.index("fallback")).all()


def _parts():
    """experiments/residual_parts.py: the natural map per contact, computed there once."""
    return experiment_module("residual_parts")


def _res_rel_q(p, x):
    """||x - P_K(x - (w + (mu |w_t|, 0, 0)))||_2 / max(1, ||b||_2), w = A x + b."""
    assert p.ncones * 3 == p.n  # a pure contact problem
    F = _parts().parts(p, x)[0]
    return np.linalg.norm(F) / max(1.0, np.linalg.norm(p.b))


SMALL = [(scene, mu, step) for scene, step in
         (("container", 90), ("pile", 120), ("stack", 5), ("incline", 40), ("impact", 8),
          ("bin", 120)) for mu in (0.8, 2.0, 3.0)] + [("pile", 1.5, 120), ("stack", 1.5, 5)]


@pytest.mark.parametrize("scene,mu,step", SMALL)
def test_auto_converges_on_small_high_friction_scenes(scene, mu, step):
    p = _problem(scene, "small", mu, step)
    assert p.ncones >= 3 and min(mu for _, mu in p.cones) >= 0.8
    r = lcplab.solve(p, "auto", tol=1e-8)
    q = _res_rel_q(p, r.x)
    assert r.converged, (r.status_str, r.method, r.message)
    assert q <= JUDGE, (q, r.method)


def _wedge(p, x):
    """The contacts carrying x's residual, all sticking (x_c inside its cone), and the
    smallest eigenpair of A on them: (contacts, lambda_min / lambda_max, d with ||d|| = 1)."""
    A = p.A.toarray() if hasattr(p.A, "toarray") else np.asarray(p.A)
    F = _parts().parts(p, x)[0]
    res = {i: np.linalg.norm(F[k]) for k, (i, _) in enumerate(p.cones)}
    top = max(res.values())
    cs = [i for i, mu in p.cones if res[i] > 0.1 * top]
    assert all(np.linalg.norm(x[i + 1:i + 3]) < mu * x[i] for i, mu in p.cones if i in cs)
    rows = np.concatenate([np.arange(i, i + 3) for i in cs])
    lam, vec = np.linalg.eigh(A[np.ix_(rows, rows)])
    d = np.zeros(p.n)
    d[rows] = vec[:, 0] * np.sign(vec[0, 0])
    return cs, lam[0] / lam[-1], d


def test_no_converged_claim_where_no_solver_reaches_the_tolerance():
    """The small container at mu = 1.5, step 90: every lcplab solver stops at res_scaled
    6.7e-7 (Siconos' PROX at res_rel_q 3.1e-7, NSGS 9.6e-7): auto must not call it
    converged at 1e-8, and its verdict is the library's measure of its x.

    Why (docs/cone-solvers.md, "A wedge"): a sphere in a floor-wall corner. Its two contacts
    carry a self-stress d (A d = 0) inside the friction cone (|d_t| = d_n < mu d_n at mu >= 1),
    so d.w = d.b for every x, and d.b = -3.9e-7 (|d| = 1; both contacts penetrate a little): no x
    gives both contacts sticking velocities, the solvers end where the rest is solved and
    w = (d.b) d on the pair. Taking d.b out of b, auto, nsn_ac, ppa_nsn, nsgs_newton and admm
    converge (auto below 1e-8)."""
    p = _problem("container", "small", 1.5, 90)
    r = lcplab.solve(p, "auto", tol=1e-8)
    assert not r.converged
    assert r.residuals.res_scaled > 1e-8
    assert _res_rel_q(p, r.x) < 1e-5
    cs, ratio, d = _wedge(p, lcplab.solve(p, "nsn_ac", tol=1e-8).x)
    assert len(cs) == 2 and ratio < 1e-12
    for i, mu in p.cones:
        assert np.linalg.norm(d[i + 1:i + 3]) < mu * d[i] or i not in cs
    beta = d @ p.b
    assert -5e-7 < beta < -3e-7
    # the library says so (Result.diagnosis, libsolvers/wedge.c): the same contacts (cone
    # indices) and d.b as found here from (A, b, mu, x) alone
    a, c = sorted(i // 3 for i in cs)
    assert r.diagnosis.startswith(f"wedge: contacts {a} and {c} "), r.diagnosis
    assert f"d.b = {beta:.2g} < 0" in r.diagnosis, (beta, r.diagnosis)
    # the same wedge named whatever A's units: A x 1e-12 or 1e12 (x scales inversely, b and
    # d.b do not); once the contacts were ranked by an F_c mixing x's and w's units, and at
    # A x 1e-12 the pair fell out of the four ranked
    for s in (1e-12, 1e12):
        rs = lcplab.solve(lcplab.Problem(A=np.asarray(p.A) * s, b=p.b, cones=p.cones), "auto",
                          tol=1e-8)
        assert not rs.converged
        assert rs.diagnosis.startswith(f"wedge: contacts {a} and {c} "), (s, rs.diagnosis)
    q = lcplab.Problem(A=p.A, b=p.b - beta * d, cones=p.cones)
    r2 = lcplab.solve(q, "auto", tol=1e-8)
    assert r2.converged and _res_rel_q(q, r2.x) <= 1e-8, (r2.status_str, r2.method)
    assert r2.diagnosis == ""
    r3 = lcplab.solve(q, "nsgs", tol=1e-8, max_iter=3)  # solvable, cut short: nothing said
    assert not r3.converged and r3.diagnosis == ""


def test_the_wedge_reaches_the_cli_json_and_the_csv_note(tmp_path):
    """The diagnosis of test_no_converged_claim_where_no_solver_reaches_the_tolerance's wedge
    (contacts 2 and 6, d.b = -3.9e-7) where a user reads it: `lcplab solve`'s JSON and an
    experiment's CSV note (lcplab.compare), after the message; admm, the answer auto keeps."""
    p = _problem("container", "small", 1.5, 90)
    f = tmp_path / "wedge.dat"
    lcplab.write(p, f)
    d, _ = cli_solve(f, "admm", tmp_path, "--tol", "1e-8")
    assert d["status"] != "converged"
    assert d["diagnosis"].startswith("wedge: contacts 2 and 6 "), d.get("diagnosis")
    assert "d.b = -3.9e-07 < 0" in d["diagnosis"]
    t = lcplab.compare([p], ["admm"], tol=1e-8, max_iter=1000, min_runs=1, as_frame=False)
    note = str(t["note"][0])
    assert note.startswith("admm") and "; wedge: contacts 2 and 6 " in note, note
    easy = lcplab.compare([_problem("pile", "small", 0.8, 120)], ["nsgs"], tol=1e-8,
                          max_iter=2, min_runs=1, as_frame=False)
    assert str(easy["status"][0]) != "converged" and "wedge" not in str(easy["note"][0])


def test_ppa_nsn_solves_the_walled_box_at_mu_1():
    """27 spheres and 2 boxes in a walled box at mu = 1, the issue's scene: ppa_nsn stagnated
    (12 proximal steps without progress, res_scaled 8.2e-3) before its failed inner solves went
    back to their centre; Siconos' PROX reaches 1.6e-8 by res_rel_q."""
    p = _problem("container", "medium", 1.0, 40)
    assert p.ncones >= 40
    r = lcplab.solve(p, "ppa_nsn", tol=1e-8)
    assert r.converged, (r.status_str, r.message)
    assert _res_rel_q(p, r.x) <= JUDGE


def test_auto_hands_a_stalled_pile_to_the_proximal_newton():
    """A pile at mu = 1 where nsgs_newton ends at max_iter and ipm and admm stall (auto
    stagnated at 3.1e-8 before): ppa_nsn, now a fallback of auto, converges."""
    p = _problem("pile", "medium", 1.0, 120)
    r = lcplab.solve(p, "auto", tol=1e-8)
    assert r.converged, (r.status_str, r.choice, r.message)
    assert _res_rel_q(p, r.x) <= JUDGE


def test_ppa_nsn_options_reach_the_solver():
    p = _problem("container", "small", 1.0, 90)
    one = lcplab.solve(p, "ppa_nsn", tol=1e-12, prox_outer_max=1)
    assert not one.converged and "prox_outer_max" in one.message
    a = lcplab.solve(p, "ppa_nsn", tol=1e-8, prox_sigma=0.05)
    b = lcplab.solve(p, "ppa_nsn", tol=1e-8, prox_sigma=5.0, prox_grow=4.0, prox_inner_max=50)
    assert a.converged and b.converged
    assert a.iterations != b.iterations  # another proximal parameter, another path


@pytest.mark.parametrize("name,value", [("prox_sigma", 0.0), ("prox_sigma", -1.0),
                                        ("prox_sigma", float("nan")),
                                        ("prox_sigma", float("inf")), ("prox_grow", 1.0),
                                        ("prox_inner_max", 0)])
def test_a_bad_proximal_parameter_is_refused_by_name(name, value):
    p = _problem("stack", "small", 1.0, 5)
    with pytest.raises(lcplab.OptionsError, match=name):
        lcplab.solve(p, "ppa_nsn", **{name: value})


def test_residual_parts_by_hand():
    """One contact, A = I, b = (-1, 0.5, 0), mu 0.5, x = 0: x - (u + (mu |u_t|, 0, 0)) =
    (0.75, -0.5, 0) lies outside the cone, its projection (0.8, -0.4, 0), so F = (-0.8, 0.4, 0)
    and res_rel_q = sqrt(0.8) / sqrt(1.25) = 0.8; at x = (1, 0, 0), u = (0, 0.5, 0), the same
    (0.75, -0.5, 0) is projected, and F = (1, 0, 0) - (0.8, -0.4, 0) = (0.2, 0.4, 0)."""
    p = lcplab.Problem(np.eye(3), np.array([-1.0, 0.5, 0.0]), cones=[(0, 0.5)])
    F = _parts().parts(p, np.zeros(3))[0]
    assert np.allclose(F, [[-0.8, 0.4, 0.0]], rtol=0, atol=1e-15)
    assert abs(_res_rel_q(p, np.zeros(3)) - 0.8) < 1e-15
    F = _parts().parts(p, np.array([1.0, 0.0, 0.0]))[0]
    assert np.allclose(F, [[0.2, 0.4, 0.0]], rtol=0, atol=1e-15)


def test_residual_parts_names_a_bad_answer_file(tmp_path):
    """An answer that is not one number a line: exit 2, the file named, no traceback."""
    import subprocess
    import sys
    prob = tmp_path / "one.npz"
    lcplab.write(lcplab.Problem(np.eye(3), np.array([-1.0, 0.5, 0.0]), cones=[(0, 0.5)]), str(prob))
    bad = tmp_path / "x'$(id).r"
    bad.write_text("0\nnot-a-number\n0\n")
    p = subprocess.run([sys.executable, str(PARTS), str(prob), str(bad)], capture_output=True,
                       text=True, check=False)
    assert p.returncode == 2, p.stderr
    assert str(bad) in p.stderr and "not one number a line" in p.stderr
    assert "Traceback" not in p.stderr
