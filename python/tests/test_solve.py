"""lcplab.solve: planted problems for every solver that takes them, the
same numbers as ``lcplab solve`` on the same file, honest failures,
exceptions naming the field, and the GIL released during a solve."""

import threading
import warnings

import numpy as np
import pytest

import lcplab
from conftest import cli_solve, gil_released_during, json_number, natural_map, planted_lcp


def test_solvers_list():
    names = lcplab.solvers()
    assert "lemke" in names and "pgs" in names and len(names) == len(set(names))
    info = {s.name: s for s in lcplab.solvers(details=True)}
    assert "cone" in info["nsgs"].caps and "cone" not in info["lemke"].caps
    assert info["enum"].max_n == 16
    assert "omega = options.omega (1)" in info["pgs"].params
    assert all(s.params for s in info.values())


def test_default_solver():
    p, xs = planted_lcp(6, seed=1)
    r = lcplab.solve(p)
    # dense, n = 6: one of the exact pivoting methods (dantzig when A is
    # symmetric to its tolerance, else lemke), per docs/solvers.md "auto"
    assert lcplab.DEFAULT_SOLVER == "auto" and r.solver == "auto"
    assert r.method in ("dantzig", "lemke")
    assert r.converged and r.status == lcplab.Status.CONVERGED and r.status_str == "converged"
    assert str(r.status) == "converged"
    np.testing.assert_allclose(r.x, xs, atol=1e-10)


# (solver, bounds): the planted SPD problem has a unique solution, which
# every solver that takes the problem must find
CASES = [(s, "lcp") for s in ("pgs", "pgs_wide", "pjacobi", "lemke", "dantzig", "nsgs")] + \
        [(s, "box") for s in ("pgs", "lemke", "dantzig")]


@pytest.mark.parametrize("solver, bounds", CASES)
def test_planted(solver, bounds):
    p, xs = planted_lcp(30, seed=7, bounds=bounds)
    r = lcplab.solve(p, solver, tol=1e-10, max_iter=100000)
    assert r.converged, r.message
    # this file's own natural map, and the distance to the planted x*
    # (lambda_min(A) >= 0.1: |x - x*| <= |r| / 0.1 up to a factor)
    assert natural_map(p, r.x) <= 1e-10 * max(1.0, np.max(np.abs(p.b))) * 1.01
    np.testing.assert_allclose(r.x, xs, atol=1e-7)
    np.testing.assert_allclose(r.w, p.w(r.x), atol=1e-13)
    assert r.residuals.res_rel <= 1e-10 and r.time >= 0


@pytest.mark.parametrize("solver", ["lemke", "pgs", "dantzig"])
def test_same_as_cli(tmp_path, solver):
    p, _ = planted_lcp(25, seed=11, bounds="box")
    f = tmp_path / "planted.lcp"
    lcplab.write(p, f)
    q = lcplab.read(f)
    r = lcplab.solve(q, solver, tol=1e-9, max_iter=5000, history=True)
    j, x = cli_solve(f, solver, tmp_path, "--tol", "1e-9", "--max-iter", "5000", "--history")
    # the same code path: the same x to the bit, the same counts and numbers
    np.testing.assert_array_equal(r.x, x)
    assert j["status"] == r.status_str and j["iterations"] == r.iterations
    assert j["pivots"] == r.pivots and j["n"] == q.n and j["kind"] == q.kind
    for key in ("res_nat_inf", "res_rel", "res_rel_2", "compl", "infeas"):
        assert json_number(j[key]) == getattr(r.residuals, key), key
    assert json_number(j["solver_residual"]) == r.solver_residual
    np.testing.assert_array_equal(np.array(j["history"], dtype=float), r.history)


def test_failures_are_results_not_exceptions():
    p, _ = planted_lcp(20, seed=5)
    r = lcplab.solve(p, "pgs", max_iter=2, tol=1e-12)
    assert r.status == lcplab.Status.MAX_ITER and not r.converged
    assert r.iterations == 2 and r.message  # the library says why
    # the library's measure is this file's own, and it is above tol
    assert r.residuals.res_nat_inf == pytest.approx(natural_map(p, r.x), rel=1e-12)
    assert r.residuals.res_rel > 1e-12


def test_history_and_warm_start():
    p, xs = planted_lcp(20, seed=9)
    r = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000, history=True)
    assert r.converged and r.history.shape[0] >= 1 and r.history[-1] <= 1e-10
    assert lcplab.solve(p, "pgs").history is None
    # from the solution, pgs stops at once
    w = lcplab.solve(p, "pgs", tol=1e-10, warm=r.x)
    assert w.converged and w.iterations <= 1
    np.testing.assert_allclose(w.x, r.x, atol=1e-12)


def test_options_reach_the_solver():
    p, _ = planted_lcp(20, seed=13)
    a = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000, omega=1.0)
    b = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000, omega=1.5)
    assert a.converged and b.converged and a.iterations != b.iterations
    c = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000, norm="2")
    assert c.converged and c.residuals.res_rel_2 <= 1e-10
    # threads: the same x for every count (docs/solver-machinery.md, "Threads")
    d = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000, threads=2)
    np.testing.assert_array_equal(d.x, a.x)


def test_errors_name_the_field():
    p, _ = planted_lcp(4, seed=2)
    with pytest.raises(ValueError, match="unknown solver 'nope'.*lemke"):
        lcplab.solve(p, "nope")
    with pytest.raises(lcplab.OptionsError, match=r"omega=2.5 must be in \(0, 2\)"):
        lcplab.solve(p, "pgs", omega=2.5)
    with pytest.raises(lcplab.OptionsError, match=r"threads=0 must be in \[1, 256\]"):
        lcplab.solve(p, "pgs", threads=0)
    with pytest.raises(lcplab.OptionsError, match="tol="):
        lcplab.solve(p, "pgs", tol=-1.0)
    with pytest.raises(lcplab.InvalidProblemError, match=r"warm start x\[2\] is nan"):
        lcplab.solve(p, "pgs", warm=[0, 0, np.nan, 0])
    with pytest.raises(lcplab.InvalidProblemError, match="warm has shape"):
        lcplab.solve(p, "pgs", warm=[0, 0])
    with pytest.raises(TypeError, match="unexpected option 'omgea'"):
        lcplab.solve(p, "pgs", omgea=1.2)
    with pytest.raises(TypeError, match="lcplab.Problem"):
        lcplab.solve(np.eye(2), "pgs")
    # a refusal: dantzig needs a symmetric A; the status rides along
    q = lcplab.Problem([[2.0, 1.0], [0.0, 2.0]], [-1.0, -1.0])
    with pytest.raises(lcplab.UnsupportedError, match="symmetric") as e:
        lcplab.solve(q, "dantzig")
    assert e.value.status == lcplab.Status.UNSUPPORTED
    # a cone problem refused by a solver without cones
    c = lcplab.Problem(np.eye(3), [-1.0, 0.0, 0.0], cones=[(0, 0.5)])
    with pytest.raises(lcplab.UnsupportedError):
        lcplab.solve(c, "lemke")


def test_threads_share_a_problem():
    p, _ = planted_lcp(40, seed=17)
    ref = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000)
    out = [None] * 4

    def work(k):
        out[k] = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in out:
        np.testing.assert_array_equal(r.x, ref.x)


def test_gil_released_during_solve():
    def prepare(k):
        return planted_lcp(300 * (k + 1), seed=19)[0]

    def call(p):
        # the C layer's solve alone, without the package's wrapper (numpy
        # calls there may release the GIL themselves)
        return lcplab._lcplab.solve(p._c(), "pgs", {"tol": 1e-300, "max_iter": 300}, None,
                                    False, None, 0)

    count, r = gil_released_during(prepare, call)
    assert count > 0, "the main thread never ran during the solve: the GIL was held"
    assert r["status"] == lcplab.Status.MAX_ITER and r["iterations"] == 300


def test_history_time_and_method():
    p, _ = planted_lcp(30, seed=23)
    r = lcplab.solve(p, "pgs", tol=1e-10, max_iter=10000, history=True)
    assert r.converged and r.method == "pgs"
    # one time per history entry, from the start of the solve, never going
    # back, and none after the solve's own end
    t = r.history_time
    assert t.shape == r.history.shape and t.shape[0] == r.iterations
    assert np.all(t >= 0) and np.all(np.diff(t) >= 0) and t[-1] <= r.time + 1e-3
    assert lcplab.solve(p, "pgs").history_time is None
    # pgs_wide hands a dense problem to pgs, which computes the same
    # iterates: the result says which algorithm ran
    w = lcplab.solve(p, "pgs_wide", tol=1e-10, max_iter=10000)
    assert w.solver == "pgs_wide" and w.method == "pgs"
    np.testing.assert_array_equal(w.x, r.x)
    assert lcplab.solve(p, "lemke").method == "lemke"


def test_simd_option():
    p, _ = planted_lcp(30, seed=29)
    a = lcplab.solve(p, "pgs_wide", tol=1e-10, max_iter=10000, simd=True)
    b = lcplab.solve(p, "pgs_wide", tol=1e-10, max_iter=10000, simd=False)
    assert a.converged and b.converged
    np.testing.assert_array_equal(a.x, b.x)  # the same iterates, by design
    with pytest.raises(lcplab.OptionsError, match="simd must be True or False"):
        lcplab.solve(p, "pgs", simd=2)


def test_options_by_name_are_the_librarys():
    # the names and types are libsolvers' table (slv.h, "options by name"),
    # and a value its C field cannot hold is refused by the library, naming it
    from lcplab import _lcplab
    table = {d["name"]: d for d in _lcplab.options()}
    assert {"omega", "damping", "pivot_tol", "check_every", "max_pivots", "seed", "simd",
            "threads", "tol", "max_iter", "norm", "time_limit"} <= set(table)
    assert table["seed"]["type"] == "ulong" and table["omega"]["range"] == "in (0, 2)"
    p, _ = planted_lcp(4, seed=2)
    with pytest.raises(lcplab.OptionsError, match=r"seed: .*'18446744073709551616' \(out of range\)"):
        lcplab.solve(p, "pgs", seed=2 ** 64)
    with pytest.raises(lcplab.OptionsError, match=r"omega: expected a finite number, found 'nan'"):
        lcplab.solve(p, "pgs", omega=float("nan"))
    # the largest seed fits, and a float reaches the field bit for bit
    a = lcplab.solve(p, "pgs", seed=2 ** 64 - 1, omega=0.1 + 0.2)
    b = lcplab.solve(p, "pgs", omega=0.30000000000000004)
    np.testing.assert_array_equal(a.x, b.x)


def test_loose_tol_is_refused():
    # x = 0 scores 1 in res_scaled wherever a row needs an impulse, so a tol of 1
    # or more accepts it after 0 iterations (docs/convergence.md, "Loose tolerances")
    p, _ = planted_lcp(6, seed=3)
    for tol in (1, 1.0, 2.5, 1e300):
        with pytest.raises(lcplab.OptionsError, match="allow_loose_tol=True"):
            lcplab.solve(p, "pgs", tol=tol)
    r = lcplab.solve(p, "pgs", tol=1.0, allow_loose_tol=True)
    assert r.converged and r.iterations == 0 and not r.x.any()
    assert lcplab.solve(p, "pgs", tol=0.999).iterations > 0
    with pytest.raises(lcplab.OptionsError, match="allow_loose_tol must be True or False"):
        lcplab.solve(p, "pgs", allow_loose_tol=1)
    with pytest.raises(lcplab.OptionsError, match="compare: tol=1 "):
        lcplab.compare([p], ["pgs"], tol=[1e-8, 1.0], as_frame=False)


def test_complex_input_is_refused():
    p, _ = planted_lcp(4, seed=2)
    A, b = p.A, p.b
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning would be an error here
        for kwargs, name in (({"A": A.astype(complex)}, "A"), ({"b": b + 0j}, "b"),
                             ({"lo": [0j] * 4}, "lo"), ({"hi": np.full(4, np.inf + 0j)}, "hi")):
            args = {"A": A, "b": b, **kwargs}
            with pytest.raises(lcplab.InvalidProblemError, match=f"Problem: {name} holds complex"):
                lcplab.Problem(**args)
        with pytest.raises(lcplab.InvalidProblemError, match="warm holds complex"):
            lcplab.solve(p, "pgs", warm=np.zeros(4, dtype=complex))
        with pytest.raises(lcplab.InvalidProblemError, match="x holds complex"):
            p.residuals([0, 0, 1j, 0])
        with pytest.raises(lcplab.InvalidProblemError, match="x holds complex"):
            p.w(np.zeros(4, dtype=np.complex64))
        # a complex dtype whose imaginary parts are 0 is refused too: the type is the error
        with pytest.raises(lcplab.InvalidProblemError, match="Problem: A holds complex"):
            lcplab.Problem(A + 0j, b)
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(lcplab.InvalidProblemError, match="Problem: A holds complex"):
        lcplab.Problem(sp.csr_matrix(A.astype(complex)), b)


def test_status_decided_on_the_returned_x():
    # every budget of the sweeping solvers: converged exactly when the x
    # returned meets tol by this file's own residual; where the solver's own
    # status said otherwise, solver_status keeps it and the message says why
    p, _ = planted_lcp(40, seed=21)
    tol = 1e-7
    for solver in ("pgs", "pgs_wide", "pjacobi"):
        for k in range(1, 200):
            r = lcplab.solve(p, solver, tol=tol, max_iter=k)
            assert isinstance(r.solver_status, lcplab.Status)
            m = r.residuals.res_scaled
            assert r.converged == (m <= tol), (solver, k, r.status, m)
            if r.solver_status != r.status:
                assert r.converged and "meets the test" in r.message
            if r.converged:
                break
