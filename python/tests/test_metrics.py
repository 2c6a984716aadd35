"""ContactBench's criteria from Python (Residuals: signorini, conic_compl,
ncp_compl, dual_feas, primal_feas, mdp_gap; docs/problem.md, "Contact
metrics"): hand-derived single contacts, a solved multi-contact problem
against this file's own numpy formulas, and the same numbers as ``lcplab
solve``'s JSON."""

import numpy as np
import pytest

import lcplab
from conftest import cli_solve, json_number

NAMES = ("signorini", "conic_compl", "ncp_compl", "dual_feas", "primal_feas", "mdp_gap")


def one_cone(mu, l, v):
    """One cone, A = I, b = v - l: at x = l, w = v exactly (dyadic values)."""
    l, v = np.array(l, dtype=float), np.array(v, dtype=float)
    p = lcplab.Problem(np.eye(3), v - l, cones=[(0, mu)])
    r = p.residuals(l)
    return tuple(getattr(r, k) for k in NAMES)


# (mu, l, v, expected (signorini, conic, ncp, dual, primal, mdp)), each
# derived by hand as in tests/test_metrics.c
HAND = [
    # sticking, v = 0: every number 0
    (0.5, (1, 0.25, -0.25), (0, 0, 0), (0, 0, 0, 0, 0, 0)),
    # sliding with the right friction: l . v = -4; v^ = (2, 4, 0) on the
    # boundary of K*; l . v^ = 4 - 4; gap -4 + 0.5 * 2 * 4 = 0
    (0.5, (2, -1, 0), (0, 4, 0), (0, 4, 0, 0, 0, 0)),
    # friction along the motion: l . v = 4, l . v^ = 8, gap 8
    (0.5, (2, 1, 0), (0, 4, 0), (0, 4, 8, 0, 0, 8)),
    # too weak a friction while sliding: l . v = -2, l . v^ = 2, gap 2
    (0.5, (2, -0.5, 0), (0, 4, 0), (0, 2, 2, 0, 0, 2)),
    # penetration without impulse: v^ = (-1, 0, 0) in the polar cone, 1 away
    (0.5, (0, 0, 0), (-1, 0, 0), (0, 0, 0, 1, 0, 0)),
    # take-off while pushing: 0.5 for the three complementarities
    (0.5, (1, 0, 0), (0.5, 0, 0), (0.5, 0.5, 0.5, 0, 0, 0)),
    # l outside K_0.5: P_K(l) = (1.2, 0.6, 0), distance 0.4
    (0.5, (1, 1, 0), (0, 0, 0), (0, 0, 0, 0, 0.4, 0)),
    # v^ = (0, 0, 2) outside K*: the nearest point (0.8, 0, 1.6), 0.8 away
    (0.5, (0, 0, 0), (-1, 0, 2), (0, 0, 0, 0.8, 0, 0)),
    # mu = 0, tangential impulse 0.5 while sliding at 3: primal 0.5, gap 1.5
    (0.0, (1, 0.5, 0), (0, 3, 0), (0, 1.5, 1.5, 0, 0.5, 1.5)),
]


@pytest.mark.parametrize("mu, l, v, expected", HAND)
def test_hand_derived(mu, l, v, expected):
    np.testing.assert_allclose(one_cone(mu, l, v), expected, rtol=0, atol=1e-14)


def test_nan_without_cones():
    r = lcplab.Problem(np.eye(2), [-1.0, 1.0]).residuals([1.0, 0.0])
    assert r.res_nat_inf == 0
    assert all(np.isnan(getattr(r, k)) for k in NAMES)


def own_metrics(p, x):
    """This file's formulas, from the dense A, numpy projections written
    with the cones' axes."""
    w = p.to_dense() @ x + p.b
    out = np.zeros(6)
    for row, mu in zip(p.cone_rows, p.cone_mu):
        l, v = x[row:row + 3], w[row:row + 3]
        vt = np.hypot(v[1], v[2])
        vh = v + np.array([mu * vt, 0, 0])
        # P_K*(vh), K* = {mu |t| <= n}: boundary ray (mu, 1) / sqrt(1 + mu^2)
        s = np.hypot(vh[1], vh[2])
        if mu * s <= vh[0]:
            pd = vh
        else:
            c = np.sqrt(1 + mu * mu)
            d = max(0.0, (mu * vh[0] + s) / c)
            pd = np.array([d * mu / c, *(d / c * vh[1:] / s if s > 0 else (0, 0))])
        # P_K(l), K = {|t| <= mu n}: boundary ray (1, mu) / sqrt(1 + mu^2)
        s = np.hypot(l[1], l[2])
        if s <= mu * l[0]:
            pp = l
        else:
            c = np.sqrt(1 + mu * mu)
            d = max(0.0, (l[0] + mu * s) / c)
            pp = np.array([d / c, *(d * mu / c * l[1:] / s if s > 0 else (0, 0))])
        vals = (abs(l[0] * v[0]), abs(l @ v), abs(l @ vh), np.max(np.abs(vh - pd)),
                np.max(np.abs(l - pp)), abs(l[1:] @ v[1:] + mu * l[0] * vt))
        out = np.maximum(out, vals)
    return out


def contact_problem(law, seed=23, nc=8):
    """nc contacts on a random SPD W, b pushing them into contact and
    sideways (some stick, some slide, some separate)."""
    rng = np.random.default_rng(seed)
    n = 3 * nc
    B = rng.uniform(-1, 1, (n, n))
    A = B @ B.T / n + 0.2 * np.eye(n)
    b = rng.uniform(-1, 1, n)
    b[0::3] = rng.uniform(-1.0, 0.3, nc)
    cones = [(3 * c, 0.3 + 0.05 * c) for c in range(nc)]
    return lcplab.Problem(A, b, lo=np.full(n, -np.inf), hi=np.full(n, np.inf), cones=cones,
                          cone_law=law)


def test_solved_coulomb_problem():
    p = contact_problem("coulomb")
    r = lcplab.solve(p, "nsgs", tol=1e-11, max_iter=100000)
    assert r.converged, r.message
    got = np.array([getattr(r.residuals, k) for k in NAMES])
    np.testing.assert_allclose(got, own_metrics(p, r.x), rtol=1e-9, atol=1e-14)
    # a Coulomb solution: every criterion ~ 0 but the conic complementarity,
    # the power the sliding contacts dissipate
    sig, conic, ncp, dual, primal, mdp = got
    assert max(sig, ncp, dual, primal, mdp) <= 1e-9
    assert conic > 1e-3


def test_solved_associated_problem():
    p = contact_problem("associated")
    r = lcplab.solve(p, "nsgs", tol=1e-11, max_iter=100000)
    assert r.converged, r.message
    got = np.array([getattr(r.residuals, k) for k in NAMES])
    np.testing.assert_allclose(got, own_metrics(p, r.x), rtol=1e-9, atol=1e-14)
    # the associated law: conic complementarity ~ 0, but sliding lifts off
    sig, conic, ncp, dual, primal, mdp = got
    assert conic <= 1e-9 and primal <= 1e-12 and dual <= 1e-9
    assert sig > 1e-3 and ncp > 1e-3


def test_same_as_cli(tmp_path):
    p = contact_problem("coulomb", seed=29)
    f = tmp_path / "contacts.lcp"
    lcplab.write(p, f)
    r = lcplab.solve(lcplab.read(f), "nsgs", tol=1e-10, max_iter=100000)
    j, x = cli_solve(f, "nsgs", tmp_path, "--tol", "1e-10", "--max-iter", "100000")
    np.testing.assert_array_equal(r.x, x)
    for k in NAMES + ("merit_fclib",):
        assert json_number(j[k]) == getattr(r.residuals, k), k
