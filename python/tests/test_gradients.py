"""lcplab.jvp and lcplab.vjp (docs/gradients.md): central differences of
lemke / dantzig solves at tol 1e-12 on planted problems (dense and CSR, LCP
and box rows, a sliding findex pair), the adjoint identity <gx, jvp(d)> =
<vjp(gx), d>, and the refusals (an unconverged answer, another problem's
result, seeds of the wrong shape or with NaN, cone rows)."""

import argparse
import csv

import numpy as np
import pytest

import lcplab
from conftest import experiment_module

H = 1e-6


def planted(n, seed, box):
    """An SPD A = B B^T / n + I/2 and b planted so that x (a third at lo,
    a third at hi where finite, the rest inside) is the answer, with |w| >=
    0.1 at the bounds."""
    rng = np.random.default_rng(seed)
    B = rng.uniform(-1, 1, (n, n))
    A = B @ B.T / n + 0.5 * np.eye(n)
    lo = np.where(np.arange(n) % 2 == 0, -1.0, -0.5) if box else np.zeros(n)
    hi = np.where(np.arange(n) % 3 == 0, np.inf, 1.0) if box else np.full(n, np.inf)
    x, w = np.zeros(n), np.zeros(n)
    for i in range(n):
        u = rng.uniform()
        if u < 1 / 3:
            x[i], w[i] = lo[i], rng.uniform() + 0.1
        elif u > 2 / 3 and np.isfinite(hi[i]):
            x[i], w[i] = hi[i], -(rng.uniform() + 0.1)
        else:
            top = hi[i] if np.isfinite(hi[i]) else lo[i] + 2
            x[i] = lo[i] + (top - lo[i]) * (0.1 + 0.8 * rng.uniform())
    return A, w - A @ x, lo, hi


def solved(A, b, lo, hi, solver="lemke", **kw):
    p = lcplab.Problem(A, b, lo, hi, **kw)
    r = lcplab.solve(p, solver, tol=1e-12)
    assert r.converged
    return p, r


@pytest.mark.parametrize("n,seed,box,sparse", [(6, 1, False, False), (15, 2, True, False),
                                               (12, 3, True, True), (25, 4, False, True)])
def test_jvp_matches_central_differences(n, seed, box, sparse):
    sp = pytest.importorskip("scipy.sparse") if sparse else None
    A, b, lo, hi = planted(n, seed, box)
    if sparse:  # a band: the pattern the seed and gradient live on
        A = np.where(np.abs(np.subtract.outer(np.arange(n), np.arange(n))) <= 2, A, 0.0)
        A += np.diag(np.abs(A).sum(axis=1))
    rng = np.random.default_rng(100 + seed)
    dA = rng.uniform(-1, 1, (n, n)) * (A != 0)
    db = rng.uniform(-1, 1, n)
    dlo = np.where(np.isfinite(lo), rng.uniform(-1, 1, n), 0.0)
    dhi = np.where(np.isfinite(hi), rng.uniform(-1, 1, n), 0.0)
    mat = (lambda M: sp.csr_matrix(M)) if sparse else (lambda M: M)
    p, r = solved(mat(A), b, lo, hi)
    dx = lcplab.jvp(p, r, dA=mat(dA), db=db, dlo=dlo, dhi=dhi)
    _, rp = solved(mat(A + H * dA), b + H * db, lo + H * dlo, hi + H * dhi)
    _, rm = solved(mat(A - H * dA), b - H * db, lo - H * dlo, hi - H * dhi)
    np.testing.assert_allclose(dx, (rp.x - rm.x) / (2 * H), rtol=1e-6, atol=1e-7)
    gx = rng.uniform(-1, 1, n)
    g = lcplab.vjp(p, r, gx)
    gA = g.A.toarray() if sparse else g.A
    rhs = (gA * dA).sum() + g.b @ db + g.lo @ dlo + g.hi @ dhi
    assert gx @ dx == pytest.approx(rhs, rel=1e-9, abs=1e-9)
    assert g.degenerate == 0 and not g.unconverged


def test_findex_sliding_against_dantzig():
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    b, findex, db = np.array([-2.0, 0.2]), [-1, 0], np.array([0.3, -0.7])
    mu, dmu = np.array([0.0, 0.5]), np.array([0.0, 0.4])
    p, r = solved(A, b, None, None, "dantzig", findex=findex, mu=mu)
    np.testing.assert_allclose(r.x, [8 / 7, -4 / 7], atol=1e-12)
    dx = lcplab.jvp(p, r, db=db, dmu=dmu)
    _, rp = solved(A, b + H * db, None, None, "dantzig", findex=findex, mu=mu + H * dmu)
    _, rm = solved(A, b - H * db, None, None, "dantzig", findex=findex, mu=mu - H * dmu)
    np.testing.assert_allclose(dx, (rp.x - rm.x) / (2 * H), rtol=1e-7, atol=1e-8)
    g = lcplab.vjp(p, r, [0.0, 1.0])
    assert g.mu[1] == pytest.approx(-64 / 49, rel=1e-14)  # docs/gradients.md, by hand
    assert list(g.modes) == [0, 1]


def test_degenerate_row_is_counted():
    p, r = solved(np.array([[2.0, 1.0], [1.0, 2.0]]), [-0.5, -1.0], None, None)
    g = lcplab.vjp(p, r, [1.0, 1.0])
    assert g.degenerate == 1 and g.modes[0] == 1 | 4


def test_refusals():
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    p, r = solved(A, [-1.0, -1.0], None, None)
    with pytest.raises(lcplab.InvalidProblemError, match="gx"):
        lcplab.vjp(p, r, [1.0, 2.0, 3.0])
    with pytest.raises(lcplab.InvalidProblemError, match=r"db\[1\]"):
        lcplab.jvp(p, r, db=[0.0, np.nan])
    with pytest.raises(lcplab.InvalidProblemError, match="dA"):
        lcplab.jvp(p, r, dA=np.ones((3, 3)))
    other = lcplab.Problem(A, [-1.0, -2.0])
    with pytest.raises(lcplab.InvalidProblemError, match="another problem"):
        lcplab.vjp(other, r, [1.0, 0.0])
    hard = lcplab.Problem(A, [-1.0, -1.0])
    stopped = lcplab.solve(hard, "pgs", tol=1e-12, max_iter=1)
    assert not stopped.converged
    with pytest.raises(lcplab.Error, match="allow_unconverged"):
        lcplab.vjp(hard, stopped, [1.0, 0.0])
    g = lcplab.vjp(hard, stopped, [1.0, 0.0], allow_unconverged=True)
    assert g.unconverged


@pytest.mark.parametrize("law,solver", [("coulomb", "nsn_ac"), ("associated", "nsgs")])
def test_cones_match_central_differences(law, solver):
    nc = 4
    rng = np.random.default_rng(5)
    B = rng.uniform(-1, 1, (3 * nc, 3 * nc))
    A = B @ B.T / (3 * nc) + np.eye(3 * nc)
    b = rng.uniform(-1.2, 1.2, 3 * nc)
    b[0::3] = [-1.0, -0.8, 1.5, -1.2]  # the third contact separates
    mu = np.array([0.4, 0.6, 0.5, 0.7])
    db, dmu_c = rng.uniform(-1, 1, 3 * nc), rng.uniform(-1, 1, nc)
    dmu = np.zeros(3 * nc)
    dmu[0::3] = dmu_c  # a cone's mu at its normal row

    def solve(t):
        p = lcplab.Problem(A, b + t * db, cones=[(3 * k, mu[k] + t * dmu_c[k]) for k in range(nc)],
                           cone_law=law)
        r = lcplab.solve(p, solver, tol=1e-13, max_iter=100000)
        assert r.converged
        return p, r
    p, r = solve(0.0)
    dx = lcplab.jvp(p, r, db=db, dmu=dmu)
    np.testing.assert_allclose(dx, (solve(H)[1].x - solve(-H)[1].x) / (2 * H), rtol=1e-6,
                               atol=1e-6)
    g = lcplab.vjp(p, r, np.ones(3 * nc))
    assert set(g.modes[0::3]) >= {1, 3}  # a separated contact and a sliding one
    assert np.ones(3 * nc) @ dx == pytest.approx(g.b @ db + g.mu @ dmu, rel=1e-9, abs=1e-9)


def test_global_gradients_match_central_differences():
    """The chain rule through W = H' M^-1 H, q = w + H' M^-1 f: <gx, dx> by
    central differences of nsn_ac along seeds on M (symmetric, on its
    pattern), H, f and w equals the gradients' products with them."""
    rng = np.random.default_rng(11)
    nd, nc = 6, 2
    L = rng.uniform(-1, 1, (nd, nd))
    M = L @ L.T / nd + np.eye(nd)
    Hm = rng.uniform(-1, 1, (nd, 3 * nc))
    f, w, mu = rng.uniform(-1, 1, nd), rng.uniform(-0.3, 0.3, 3 * nc), [0.5, 0.4]
    f[:3] -= 2.0
    dM = rng.uniform(-1, 1, (nd, nd))
    dM = dM + dM.T
    dH, df, dw = rng.uniform(-1, 1, Hm.shape), rng.uniform(-1, 1, nd), rng.uniform(-1, 1, 3 * nc)

    def solve(t):
        p = lcplab.Problem.from_global(M + t * dM, Hm + t * dH, f + t * df, w + t * dw, mu)
        r = lcplab.solve(p, "nsn_ac", tol=1e-13, max_iter=1000)
        assert r.converged
        return p, r
    p, r = solve(0.0)
    gx = rng.uniform(-1, 1, 3 * nc)
    g = lcplab.vjp(p, r, gx)
    fd = gx @ (solve(H)[1].x - solve(-H)[1].x) / (2 * H)
    dot = ((g.M.toarray() * dM).sum() + (g.H.toarray() * dH).sum() + g.f @ df + g.w @ dw)
    assert fd == pytest.approx(dot, rel=1e-6, abs=1e-7)
    assert g.M.data.shape == p.global_problem.M.data.shape


def _bench_module():
    return experiment_module("bench_gradients")


def _csv_rows(path):
    with open(path) as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    return list(csv.DictReader(lines))


GOAL_ROWS = """problem,n,solver,status,mode,stable,rel_err,solve_s,vjp_s,note,fd_step
p1,10,lemke,converged,free,1,1e-12,2e-5,2e-5,,1e-3
p1,10,lemke,converged,at a bound,1,0,2e-5,3e-5,,1e-3
p1,10,enum,converged,free,1,1e-12,1e-5,0.5e-5,,1e-3
p1,10,pgs,converged,free,1,1e-12,1e-6,0.8e-5,,1e-3
p2,2000,lemke,converged,free,1,0,1,2,,1e-3
p3,5,lemke,ray_termination,free,0,1,1e-4,1e-5,,1e-3
p3,5,pgs,max_iter,free,0,1,1e-3,1e-4,,1e-3
p4,7,lemke,converged,free,1,0,1e-4,5e-5,,1e-3
p4,7,dantzig,converged,free,1,0,2e-4,1e-4,,1e-3
p4,7,pgs,converged,free,1,0,1e-5,,singular_pivot,1e-3
"""


def test_vjp_goal_per_problem():
    """Issue 83's time goal, per problem (libexperiment's gradients_quality.c,
    the bench's table and a section's NAME_vjp_goal.csv): each solver's
    fastest VJP (of its rows) against the fastest converged solve of an exact solver
    (lemke, dantzig, enum, nsn_ac; pgs's faster solve does not count), n <=
    1000; hand-counted on planted rows."""
    from lcplab import _lcplab
    got = {r["problem"]: r for r in csv.DictReader(_lcplab.gradient_vjp_goal(GOAL_ROWS).splitlines())}
    cols = ["fastest_exact", "fastest_exact_solve_s", "vjp_solvers", "vjp_goal_met",
            "worst_solver", "worst_vjp_over_fastest", "goal"]
    assert [got["p1"][c] for c in cols] == ["enum", "1.000000e-05", "3", "2", "lemke",
                                            "2.000000e+00", "missed"]
    assert got["p2"]["goal"] == "n > 1000" and got["p3"]["goal"] == "no exact answer"
    assert [got["p4"][c] for c in cols] == ["lemke", "1.000000e-04", "2", "2", "dantzig",
                                            "1.000000e+00", "met"]
    q = {(r["solver"], r["mode"]): r
         for r in csv.DictReader(_lcplab.gradient_quality(GOAL_ROWS).splitlines())}
    assert (q["lemke", "free"]["vjp_goal_problems"], q["lemke", "free"]["vjp_goal_met"]) == ("2", "1")
    assert (q["pgs", "free"]["vjp_goal_problems"], q["pgs", "free"]["vjp_goal_met"]) == ("1", "1")


def test_gradients_reference_named(tmp_path):
    """Issue 83, the measure's two skips named and one repaired: (1) A =
    [[1, -1], [-1, 1]] is singular and b = (-1, 1) in its range; b moved by
    a random d leaves the range for one sign of e (w1 + w2 = e (d1 + d2) < 0:
    no answer), so the reference at b +- e d is found along d = A z (the
    rows say so), and the gradients agree with the differences (x is affine
    in b there: only rounding); (2) Pang's isolated answer (x = (1, 0, 0),
    its free row's block A_11 = 0) has no unique derivative: status
    not_unique for every solver, in the bench's rows and a section's."""
    from lcplab import _lcplab
    p = lcplab.Problem(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([-1.0, 1.0]))
    got, why, status = _lcplab.gradient_rows(p._c(), ["lemke", "dantzig"], 7, 1.0, 1)
    assert why is None and status is None and len(got) == 4, (why, got)
    assert all(r[1] == "converged" and r[3] == 1 and r[4] < 1e-12 and r[7] == "d = A z"
               for r in got), got
    A = np.array([[0.0, -1.0, -1.0], [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    pang = lcplab.Problem(A, np.array([0.0, -1.0, 1.0]))
    B = _bench_module()
    rows = []
    B.bench_problem("pang", pang, ["lemke", "pgs"], argparse.Namespace(seed=7, time_limit=1.0,
                                                                      repeat=1), rows)
    assert [(r[2], r[3]) for r in rows] == [("lemke", "not_unique"), ("pgs", "not_unique")]
    assert "not unique" in rows[0][9], rows
    lcplab.write(pang, tmp_path / "pang.lcp")
    (tmp_path / "g.exp").write_text("experiment gradients g\nsolvers lemke pgs\n"
                                    "instances pang.lcp\n")
    lcplab.run_experiment(tmp_path / "g.exp", tmp_path / "out", jobs=1, figures=False)
    sec = _csv_rows(tmp_path / "out" / "g.csv")
    assert [(r["solver"], r["status"]) for r in sec] == [("lemke", "not_unique"),
                                                         ("pgs", "not_unique")], sec


def test_gradients_section_is_the_bench(tmp_path):
    """Issue 83 item 4: a `gradients` section of an experiment file (a
    campaign) and `make bench-gradients` (experiments/bench_gradients.py)
    run one calculation (libexperiment's exp_grad.h): on a planted LCP, a
    planted box problem and a sliding findex pair, every (problem, solver,
    mode) row of the campaign's CSV holds the bench's status, stability,
    relative error and FD step; and the numbers are right: lemke's and
    dantzig's gradients agree with the central differences to 1e-8 in every
    mode present, the modes are the planted ones."""
    A, b, lo, hi = planted(8, 3, box=False)
    probs = {"lcp8": lcplab.Problem(A, b)}
    A, b, lo, hi = planted(6, 4, box=True)
    probs["box6"] = lcplab.Problem(A, b, lo, hi)
    probs["fric2"] = lcplab.Problem(np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([-2.0, 0.2]),
                                    None, None, findex=[-1, 0], mu=[0.0, 0.3])
    for name, p in probs.items():
        lcplab.write(p, tmp_path / f"{name}.lcp")
    solvers = ["lemke", "dantzig", "pgs"]
    exp = tmp_path / "g.exp"
    exp.write_text("experiment gradients grad\nsolvers " + " ".join(solvers) + "\n"
                   "instances lcp8.lcp box6.lcp fric2.lcp\nseed 7\n")
    lcplab.run_experiment(exp, tmp_path / "out", jobs=1, figures=False)
    got = {(r["problem"], r["solver"], r["mode"]): r
           for r in _csv_rows(tmp_path / "out" / "grad.csv")}
    B = _bench_module()
    args = argparse.Namespace(seed=7, time_limit=60.0, repeat=1)
    rows = []
    for name in probs:
        B.bench_problem(name, lcplab.read(tmp_path / f"{name}.lcp"), solvers, args, rows)
    want = {(r[0], r[2], r[4]): [B.csv_field(v) for v in r] for r in rows}
    assert set(got) == set(want) and len(want) >= 15, (sorted(got), sorted(want))
    for key, w in want.items():
        g = got[key]
        assert [g["status"], g["stable"], g["rel_err"], g["note"], g["fd_step"]] == \
            [w[3], w[5], w[6], w[9], w[10]], (key, g, w)
    modes = {(k[0], k[2]) for k in want}
    assert modes == {("lcp8", "free"), ("lcp8", "at a bound"), ("box6", "free"),
                     ("box6", "at a bound"), ("fric2", "free"), ("fric2", "sliding")}, modes
    for (name, solver, mode), r in got.items():
        if solver != "pgs":
            assert r["status"] == "converged" and r["stable"] == "1", (name, solver, mode, r)
            assert float(r["rel_err"]) < 1e-8, (name, solver, mode, r)
    # the quality table: the section's grad_quality.csv is the bench's summary
    # (one summary, libexperiment's) but for the times
    from lcplab import _lcplab
    q = {(r["solver"], r["mode"]): r for r in _csv_rows(tmp_path / "out" / "grad_quality.csv")}
    bq = {(r["solver"], r["mode"]): r
          for r in csv.DictReader(_lcplab.gradient_quality(B.csv_text(rows)).splitlines())}
    cols = ["problems", "stable", "accepted", "median_err_all", "max_err_accepted_stable",
            "within_1e-6_accepted_stable", "max_err_unconverged", "vjp_problems"]
    assert set(q) == set(bq) and [[q[k][c] for c in cols] for k in q] == \
        [[bq[k][c] for c in cols] for k in q]
    # lemke's free rows: one per problem, all stable, accepted, within 1e-6
    assert [q["lemke", "free"][c] for c in cols[:3] + ["within_1e-6_accepted_stable"]] == \
        ["3", "3", "3", "1.000000e+00"]
    assert q["lemke", "sliding"]["problems"] == "1" and q["lemke", "free"]["vjp_problems"] == "3"
    # the VJP goal per problem: the section's grad_vjp_goal.csv is the bench's
    goal = _csv_rows(tmp_path / "out" / "grad_vjp_goal.csv")
    bgoal = list(csv.DictReader(_lcplab.gradient_vjp_goal(B.csv_text(rows)).splitlines()))
    assert [r["problem"] for r in goal] == [r["problem"] for r in bgoal] == list(probs)
    assert all(r["fastest_exact"] in ("lemke", "dantzig") and r["vjp_solvers"] == "3" and
               r["goal"] in ("met", "missed") for r in goal), goal
    with pytest.raises(ValueError, match="not a gradients CSV"):
        _lcplab.gradient_quality("problem,n,solver\nlcp8,8,lemke\n")
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        _lcplab.gradient_rows(probs["lcp8"]._c(), ["lemke", "nope"], 7, 1.0, 1)
