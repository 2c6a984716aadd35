"""Python solvers and C plugins from Python (docs/plugins.md).

Checked: a numpy projected Gauss-Seidel written here runs in solve, compare
(one and two worker processes), run_experiment and a World, and its answers
are the planted x; the library judges it: one that says converged on a
wrong x is never converged (stagnated), a non-finite x is not_finite, one
that raises gives error rows and the run goes on, a wrong length, a
string, None and an unknown status are error rows naming the callable;
call_overhead_s is there for the Python solver's rows only; names are
refused when taken by a built-in, bound anew for a Python solver; a --plan
campaign naming a Python solver is refused (exit 2); load_plugin loads the
template plugin (when the build made it) and refuses a text file.
"""

import os
import subprocess

import numpy as np
import pytest

import lcplab
from conftest import planted_lcp

MAX_ITER = 20000


def np_pgs(problem, x0, tol, max_iter, time_limit=None):
    """Projected Gauss-Seidel on a dense LCP, numpy rows; its own test on
    the plain natural map (the library judges the x returned anyway)."""
    A, b = problem.to_dense(), problem.b
    x = x0.copy()
    for it in range(1, max_iter + 1):
        for i in range(len(x)):
            x[i] = max(0.0, x[i] - (A[i] @ x + b[i]) / A[i, i])
        if np.max(np.abs(np.minimum(x, A @ x + b))) <= 1e-13:
            return x, it
    return x, max_iter, "max_iter"


class Liar:
    """Says converged on x = 0."""
    name = "py_liar"

    def solve(self, problem, x0, tol, max_iter, time_limit=None):
        return np.zeros(problem.n), 3, "converged"


def py_raises(problem, x0, **_):
    raise RuntimeError("deliberately broken")


def test_solve_and_world():
    p, xs = planted_lcp(8, 11)
    r = lcplab.solve(p, np_pgs, tol=1e-10, max_iter=MAX_ITER)
    assert r.status == lcplab.Status.CONVERGED and r.solver == "np_pgs"
    np.testing.assert_allclose(r.x, xs, atol=1e-8)
    assert "np_pgs" in lcplab.solvers()
    w = lcplab.World("stack", {"n": 2}, solver=np_pgs, friction="none", max_iter=200)
    res = w.run(5)
    assert w.solver == "np_pgs" and len(res.metrics) == 5


@pytest.mark.parametrize("jobs", [1, 2])
def test_compare_judges_python_solvers(jobs):
    (p1, x1), (p2, x2) = planted_lcp(6, 1), planted_lcp(9, 2)
    r = lcplab.compare({"a": p1, "b": p2}, ["pgs", np_pgs, Liar(), py_raises], tol=[1e-10],
                       max_iter=MAX_ITER, min_runs=2, jobs=jobs, as_frame=False)
    st = {(str(pr), str(sv)): str(s) for pr, sv, s in zip(r["problem"], r["solver"], r["status"])}
    assert {st[(pr, "np_pgs")] for pr in "ab"} == {"converged"}
    assert {st[(pr, "pgs")] for pr in "ab"} == {"converged"}
    assert {st[(pr, "py_liar")] for pr in "ab"} == {"stagnated"}  # overruled, never converged
    assert {st[(pr, "py_raises")] for pr in "ab"} == {"error"}    # the run went on
    own = r["solver"] == "np_pgs"
    assert np.all(r["res_scaled"][own] <= 1e-10) and np.all(r["time_s"][own] > 0)
    assert np.all(r["call_overhead_s"][own] > 0)
    assert np.all(np.isnan(r["call_overhead_s"][r["solver"] == "pgs"]))


@pytest.mark.parametrize("ret, status, words", [
    (lambda p, x0: x0[:-1], "error", "shape"),
    (lambda p, x0: "abc", "error", "not an array"),
    (lambda p, x0: None, "error", "not an array"),
    (lambda p, x0: (x0, 1, "nonsense"), "error", "none of lcplab.Status"),
    (lambda p, x0: np.full(p.n, np.nan), "not_finite", "non-finite"),
])
def test_bad_returns(ret, status, words):
    p, _ = planted_lcp(5, 3)

    def py_bad(problem, x0, **_):
        return ret(problem, x0)
    r = lcplab.solve(p, lcplab.register_solver(py_bad, name="py_bad"))
    assert r.status.name.lower() == status
    assert "py_bad" in r.message and words in r.message


def test_names():
    with pytest.raises(lcplab.PluginError, match="'pgs' is taken by a built-in solver"):
        lcplab.register_solver(np_pgs, name="pgs")
    with pytest.raises(lcplab.PluginError, match="a lambda needs name"):
        lcplab.register_solver(lambda p, x0, **k: x0)
    with pytest.raises(TypeError):
        lcplab.register_solver(42, name="py_int")
    # a Python solver's name is bound to the last callable given
    p, xs = planted_lcp(4, 5)
    lcplab.register_solver(Liar().solve, name="py_again")
    assert lcplab.solve(p, "py_again").status == lcplab.Status.STAGNATED
    lcplab.register_solver(np_pgs, name="py_again")
    assert lcplab.solve(p, "py_again", tol=1e-10, max_iter=MAX_ITER).converged


def test_register_again_takes_the_new_caps():
    """register_solver binds a Python solver's name to the caps given now
    (docs/plugins.md), not to the first registration's; passing the
    callable itself (solve, compare) keeps the caps a user gave."""
    sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed: "
                             "no CSR problem to refuse")
    p, xs = planted_lcp(6, 21)
    csr = lcplab.Problem(sp.csr_matrix(p.to_dense()), p.b)

    def py_recap(problem, x0, **_):
        return xs  # the planted answer: judged converged when it runs

    def caps():
        return {s.name: s.caps.split() for s in lcplab.solvers(details=True)}["py_recap"]
    lcplab.register_solver(py_recap, caps=["box", "free"])
    assert "csr" not in caps()
    with pytest.raises(lcplab.UnsupportedError, match="CSR"):
        lcplab.solve(csr, "py_recap")
    lcplab.register_solver(py_recap, caps=["box", "free", "csr"])
    assert "csr" in caps()
    r = lcplab.solve(csr, "py_recap", tol=1e-10)
    assert r.converged and np.array_equal(r.x, xs)
    # the callable passed itself (solve, compare: registered with no caps
    # given) keeps the caps the user gave, also as another callable of the
    # same name
    assert lcplab.solve(csr, py_recap, tol=1e-10).converged
    t = lcplab.compare({"c": csr}, [py_recap], tol=[1e-10], min_runs=1, as_frame=False)
    assert [str(s) for s in t["status"]] == ["converged"] and "csr" in caps()

    def other(problem, x0, **_):
        return xs
    other.__name__ = "py_recap"
    assert lcplab.solve(csr, other, tol=1e-10).converged and "csr" in caps()
    # narrowed again: the CSR problem is refused again
    lcplab.register_solver(py_recap, caps=["box", "free"])
    assert "csr" not in caps()
    with pytest.raises(lcplab.UnsupportedError, match="CSR"):
        lcplab.solve(csr, "py_recap")
    # registered with no caps given: the defaults (box free findex cone csr)
    lcplab.register_solver(py_recap)
    assert caps() == ["lcp", "box", "free", "findex", "cone", "dense", "csr"]


def test_run_experiment_and_plan(tmp_path):
    p, _ = planted_lcp(7, 8)
    lcplab.write(p, str(tmp_path / "p.lcp"))
    cfg = tmp_path / "e.exp"
    cfg.write_text("experiment profile e\nsolvers pgs np_pgs\ninstances p.lcp\n"
                   "tol 1e-10\nmax_iter 20000\nmin_runs 1\n")
    c = lcplab.run_experiment(cfg, tmp_path / "out", jobs=2, figures=False, solvers=[np_pgs])
    t = c.table("e")
    assert set(t["status"][t["solver"] == "np_pgs"]) == {"converged"}
    # a plan's `lcplab task` processes cannot reach the callable: refused
    bin_ = os.environ.get("LCPLAB_BIN")
    if bin_:
        r = subprocess.run([bin_, "experiment", str(cfg), "--plan", str(tmp_path / "plan")],
                           capture_output=True, text=True)
        assert r.returncode == 2 and "np_pgs" in r.stderr


def test_load_plugin(tmp_path):
    bad = tmp_path / "text.so"
    bad.write_text("not a library\n")
    with pytest.raises(lcplab.PluginError, match="not a shared library"):
        lcplab.load_plugin(bad)
    so = os.path.join(os.environ.get("LCPLAB_BUILDDIR", ""), "tests/plugins/.libs/my_jacobi.so")
    if not os.path.exists(so):
        pytest.skip("the template plugin is not built (make check builds it)")
    lcplab.load_plugin(so)
    lcplab.load_plugin(so)  # once
    p, xs = planted_lcp(10, 4)
    r = lcplab.solve(p, "my_jacobi", tol=1e-10, max_iter=100000)
    assert r.converged
    np.testing.assert_allclose(r.x, xs, atol=1e-7)
