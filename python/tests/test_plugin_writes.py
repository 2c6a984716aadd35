"""A solver that writes its read-only input (docs/convergence.md, "A solver
that writes its input"; issue 86, items 6 and 7).

Checked: a Python solver's Problem arrays are read-only (a write raises, an
error row naming the solver) and cannot be made writable; a copy it writes
changes nothing the judge reads (its converged on x = 0 is stagnated);
tests/plugins/plug_write.c's solvers, run from lcplab.solve, give status
error naming the array and leave the caller's Problem as it was (they solve
a private copy), so pgs after them solves the problem as built; compare on
one worker (jobs=1) with the writers, a Python writer and pgs gives pgs's
own rows.
"""

import os

import numpy as np
import pytest

import lcplab
from conftest import planted_lcp

WRITER = os.path.join(os.environ.get("LCPLAB_BUILDDIR", ""), "tests/plugins/.libs/plug_write.so")


def py_writes_b(problem, x0, **_):
    problem.b[:] = 0.0
    return x0


def py_unlocks_b(problem, x0, **_):
    problem.b.setflags(write=True)
    return x0


def py_writes_a_copy(problem, x0, **_):
    b = np.array(problem.b)
    b[:] = 0.0  # its own copy: x = 0 is exact for it, not for the problem
    return np.zeros(problem.n)


@pytest.mark.parametrize("solver, words", [(py_writes_b, "read-only"),
                                           (py_unlocks_b, "WRITEABLE")])
def test_python_solver_views_are_read_only(solver, words):
    p, _ = planted_lcp(6, 5)
    r = lcplab.solve(p, solver)
    assert r.status == lcplab.Status.ERROR
    assert solver.__name__ in r.message and words in r.message


def test_python_solver_writing_a_copy_is_judged_on_the_problem():
    p, _ = planted_lcp(6, 5)
    r = lcplab.solve(p, py_writes_a_copy)
    assert r.status == lcplab.Status.STAGNATED and r.residuals.res_rel > 0.1


def load_writer():
    if not os.path.exists(WRITER):
        pytest.skip("tests/plugins/plug_write.so is not built (make check builds it)")
    lcplab.load_plugin(WRITER)


@pytest.mark.parametrize("solver, array", [("plug_write_b", "b"), ("plug_write_lohi", "hi"),
                                           ("plug_write_A", "A")])
def test_plugin_writes_are_error_and_miss_the_problem(solver, array):
    load_writer()
    p, xs = planted_lcp(8, 6)
    before = {k: np.array(getattr(p, k)) for k in ("b", "lo", "hi")}
    dense = np.array(p.to_dense())
    r = lcplab.solve(p, solver)
    assert r.status == lcplab.Status.ERROR
    assert f"wrote its read-only input ({array} changed" in r.message
    assert np.isnan(r.residuals.res_rel)
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(p, k), v)
    np.testing.assert_array_equal(p.to_dense(), dense)
    r = lcplab.solve(p, "pgs", tol=1e-10, max_iter=100000)
    assert r.converged and r.iterations > 0
    np.testing.assert_allclose(r.x, xs, atol=1e-7)


def test_compare_one_worker_keeps_pgs_rows():
    load_writer()
    (p1, _), (p2, _) = planted_lcp(6, 1), planted_lcp(9, 2)
    probs = {"a": p1, "b": p2}
    alone = lcplab.compare(probs, ["pgs"], tol=[1e-8], min_runs=2, jobs=1, as_frame=False)
    r = lcplab.compare(probs, ["plug_write_b", py_writes_a_copy, "plug_write_lohi", "pgs"],
                       tol=[1e-8], min_runs=2, jobs=1, as_frame=False)

    def rows(t, solver):
        return sorted((str(pr), str(s), int(i), float(e)) for pr, sv, s, i, e in
                      zip(t["problem"], t["solver"], t["status"], t["iterations"], t["res_rel"])
                      if str(sv) == solver)
    assert rows(r, "pgs") == rows(alone, "pgs")
    assert all(s == "converged" and i > 0 for _, s, i, _ in rows(r, "pgs"))
    assert {s for _, s, _, _ in rows(r, "plug_write_b") + rows(r, "plug_write_lohi")} == {"error"}
    assert {s for _, s, _, _ in rows(r, "py_writes_a_copy")} == {"stagnated"}
