"""The library's log lines in Python's logging (logger "lcplab"), at their
levels; nothing on stdout or stderr from the library, whatever happens;
an exception raised by a logging handler reaches the caller."""

import logging

import numpy as np
import pytest

import lcplab
from conftest import planted_lcp


def records(caplog, level=None):
    return [r for r in caplog.records if r.name == "lcplab" and
            (level is None or r.levelno == level)]


def test_levels(caplog):
    p, _ = planted_lcp(10, seed=3)
    caplog.set_level(logging.DEBUG, logger="lcplab")
    lcplab.solve(p, "lemke")
    info = records(caplog, logging.INFO)
    assert len(info) == 1 and info[0].getMessage().startswith("slv_solve(lemke): converged")
    caplog.clear()
    r = lcplab.solve(p, "pgs", max_iter=1)
    warn = records(caplog, logging.WARNING)
    assert len(warn) == 1 and "max_iter after 1 iterations" in warn[0].getMessage()
    assert r.message in warn[0].getMessage()
    caplog.clear()
    q = lcplab.Problem([[2.0, 1.0], [0.0, 2.0]], [-1.0, -1.0])
    with pytest.raises(lcplab.UnsupportedError):
        lcplab.solve(q, "dantzig")
    err = records(caplog, logging.ERROR)
    assert len(err) == 1 and "unsupported" in err[0].getMessage()


def test_debug_lines_of_a_solver(caplog):
    # enum says which case solved the problem, at debug only
    p, _ = planted_lcp(6, seed=4)
    caplog.set_level(logging.INFO, logger="lcplab")
    lcplab.solve(p, "enum")
    assert not records(caplog, logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="lcplab")
    lcplab.solve(p, "enum")
    assert any(r.getMessage().startswith("enum: solution at case")
               for r in records(caplog, logging.DEBUG))


def test_level_filter(caplog):
    p, _ = planted_lcp(10, seed=3)
    caplog.set_level(logging.WARNING, logger="lcplab")
    lcplab.solve(p, "lemke")
    assert not records(caplog)  # info is below warning


def test_world_steps_log(caplog):
    caplog.set_level(logging.INFO, logger="lcplab")
    lcplab.simulate("stack", {"n": 2}, solver="lemke", steps=30)
    lines = [r.getMessage() for r in records(caplog)]
    assert lines and all(m.startswith("slv_solve(lemke)") for m in lines)


def test_fallback_solves_log_too(caplog):
    # lemke cut to one pivot fails each step with contacts (a pivot limit
    # leaves no iterate; a budget stop with one, pjacobi's after a sweep, is
    # the solver's own answer); the world's fallback (pgs) solves it again,
    # and its line comes through the same callback at its level, after the
    # failure's warning
    caplog.set_level(logging.INFO, logger="lcplab")
    lcplab.simulate("stack", {"n": 2}, solver="lemke", max_pivots=1, steps=10)
    lines = [(r.levelno, r.getMessage()) for r in records(caplog)]
    warned = [m for lv, m in lines if lv == logging.WARNING and m.startswith("slv_solve(lemke)")]
    fallback = [m for lv, m in lines if m.startswith("slv_solve(pgs)")]
    assert warned and fallback
    caplog.clear()
    caplog.set_level(logging.ERROR, logger="lcplab")  # the level reaches the fallback too
    lcplab.simulate("stack", {"n": 2}, solver="lemke", max_pivots=1, steps=10)
    assert not records(caplog)


def test_handler_exception_reaches_the_caller():
    class Boom(Exception):
        pass

    class Raising(logging.Handler):
        def emit(self, record):
            raise Boom(record.getMessage())

        def handleError(self, record):  # let emit's exception through
            raise

    h = Raising(level=logging.INFO)
    lcplab.logger.addHandler(h)
    level = lcplab.logger.level
    lcplab.logger.setLevel(logging.INFO)
    try:
        p, _ = planted_lcp(5, seed=1)
        with pytest.raises(Boom, match="slv_solve"):
            lcplab.solve(p, "lemke")
    finally:
        lcplab.logger.removeHandler(h)
        lcplab.logger.setLevel(level)


def test_the_library_never_prints(capfd, tmp_path):
    # with logging at its most verbose but no handler of ours, and through
    # solves that converge, fail and are refused, file errors and a failing
    # simulation: not one byte on the process's stdout or stderr
    level = lcplab.logger.level
    lcplab.logger.setLevel(logging.DEBUG)
    propagate = lcplab.logger.propagate
    lcplab.logger.propagate = False  # the NullHandler only
    try:
        p, _ = planted_lcp(8, seed=2)
        for s in lcplab.solvers():
            try:
                lcplab.solve(p, s, max_iter=3)
            except lcplab.LcplabError:
                pass
        with pytest.raises(lcplab.InvalidProblemError):
            lcplab.Problem(np.eye(2), [0, 0], lo=[1, 0], hi=[0, 1])
        f = tmp_path / "bad.hdf5"
        f.write_bytes(b"not an hdf5 file")
        with pytest.raises(lcplab.FileError):
            lcplab.read(f)
        with pytest.raises(lcplab.SimulationError):
            lcplab.simulate("stack", {"n": 2}, solver="pgs", friction="cone", steps=30)
        lcplab.simulate("pyramid", {"layers": 3}, solver="nsgs", friction="cone", steps=5)
    finally:
        lcplab.logger.setLevel(level)
        lcplab.logger.propagate = propagate
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_a_fresh_interpreter_stays_quiet():
    # logging left as a fresh interpreter has it (root without handlers,
    # where Python's last-resort handler would print warnings to stderr):
    # the package's NullHandler keeps a failed solve and a failed
    # simulation silent
    import os
    import subprocess
    import sys
    code = ("import lcplab, numpy as np\n"
            "p = lcplab.Problem(np.array([[2.0, 1.0], [1.0, 2.0]]), [-1.0, -1.0])\n"
            "r = lcplab.solve(p, 'pgs', max_iter=1)\n"
            "assert not r.converged\n"
            "try:\n"
            "    lcplab.simulate('stack', {'n': 2}, solver='pgs', friction='cone', steps=30)\n"
            "except lcplab.SimulationError:\n"
            "    pass\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
