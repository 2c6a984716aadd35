"""Time limits and Ctrl-C (docs/solver-machinery.md, "Time limits and interruption"):
``solve(..., time_limit=S)`` and a world's ``time_limit`` setting give the
status time_limit with the solver's iterate; SIGINT during a solve or a
``World.run`` raises KeyboardInterrupt at the solver's next poll, not when
the solve ends.  The solves below could not end on their own for hours
(tol 1e-300 is below rounding, max_iter huge): only the stop ends them.
No test measures a time; the safety time limits only keep a broken poll
from hanging the suite (it then fails on the status)."""

import logging
import math
import os
import signal
import threading

import numpy as np
import pytest

import lcplab
from conftest import planted_lcp

ENDLESS = {"tol": 1e-300, "max_iter": 10**9}


def endless_problem():
    p, _ = planted_lcp(200, seed=5, eps=1e-6)
    return p


def interrupted(call, delay=0.2):
    """call() while a timer thread sends this process SIGINT after `delay`
    s; True if call raised KeyboardInterrupt.  The handler raises only
    until call returns: a SIGINT that comes later (call ended first: the
    test fails on False) cannot stop the test session."""
    armed = [True]

    def handler(signum, frame):
        if armed[0]:
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        call()
        return False
    except KeyboardInterrupt:
        return True
    finally:
        armed[0] = False
        timer.join()
        signal.signal(signal.SIGINT, old)


def test_time_limit_status():
    r = lcplab.solve(endless_problem(), "pgs", time_limit=0.05, **ENDLESS)
    assert r.status == lcplab.Status.TIME_LIMIT and r.status_str == "time_limit"
    assert not r.converged
    assert "time limit" in r.message
    assert 0 < r.iterations < ENDLESS["max_iter"]
    assert np.all(np.isfinite(r.x)) and math.isfinite(r.residuals.res_scaled)
    assert lcplab.Status.INTERRUPTED.value > 0 and str(lcplab.Status.INTERRUPTED) == "interrupted"


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "1", True])
def test_time_limit_refused(bad):
    p, _ = planted_lcp(4, seed=1)
    with pytest.raises(lcplab.OptionsError, match="time_limit"):
        lcplab.solve(p, "pgs", time_limit=bad)


def test_far_time_limit_changes_nothing():
    p, _ = planted_lcp(30, seed=2)
    a = lcplab.solve(p, "pgs", tol=1e-10)
    b = lcplab.solve(p, "pgs", tol=1e-10, time_limit=1000)
    assert b.converged and b.iterations == a.iterations and np.array_equal(a.x, b.x)


def stopped_inside(caplog):
    """The library's own line about the solve (slv_solve logs one as it
    returns) says it was interrupted: the KeyboardInterrupt came from a poll
    inside the solve, not from Python's handler after it returned (which
    would log time_limit)."""
    return any("interrupted" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("solver", ["pgs", "pjacobi", "nsgs", "apgd"])
def test_sigint_during_solve(solver, caplog):
    p = endless_problem()
    with caplog.at_level(logging.WARNING, logger="lcplab"):
        assert interrupted(lambda: lcplab.solve(p, solver, time_limit=60, **ENDLESS))
    assert stopped_inside(caplog)


def test_sigint_during_world_solve(caplog):
    """A step whose solve never ends (the stack's first contacts come at
    step 2): interrupted inside it, that step undone."""
    w = lcplab.World("stack", {"n": 3}, solver="pgs", time_limit=60, **ENDLESS)
    with caplog.at_level(logging.WARNING, logger="lcplab"):
        assert interrupted(lambda: w.run(10))
    assert stopped_inside(caplog)
    assert 0 < w.step_count < 10
    with pytest.raises(lcplab.SimulationError, match="time_limit"):
        # the same step again, under a short limit: it had not been done
        lcplab.World("stack", {"n": 3}, solver="pgs", time_limit=0.01, on_failure="stop",
                     **ENDLESS).run(w.step_count + 1)


def test_sigint_between_world_steps():
    """Many short steps (a pyramid's, each with a short solve): the run
    stops short of its steps, and the world stays usable."""
    w = lcplab.World("pyramid", {"layers": 6}, solver="pgs")
    steps = 20000
    assert interrupted(lambda: w.run(steps))
    assert 0 < w.step_count < steps
    w.run(1)  # still usable
    assert w.step_count > 1


class _InterruptOnLog(logging.Handler):
    """A log handler that raises KeyboardInterrupt: what a SIGINT whose
    handler Python runs inside the log callback (Python code runs there)
    looks like to the run."""

    def emit(self, record):
        raise KeyboardInterrupt


def test_interrupt_inside_the_log_stops_the_run():
    """The interrupt raised in the log callback, not at a poll: the run
    still stops at its next poll (it used to finish every step and raise
    only at the end)."""
    w = lcplab.World("pyramid", {"layers": 6}, solver="pgs")  # pgs: max_iter warnings
    steps = 2000
    handler = _InterruptOnLog(logging.WARNING)
    logger = logging.getLogger("lcplab")
    logger.addHandler(handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            w.run(steps)
    finally:
        logger.removeHandler(handler)
    assert 0 < w.step_count < steps


def test_world_time_limit_is_a_failed_solve():
    w = lcplab.World("stack", {"n": 3}, solver="pgs", time_limit=0.05, on_failure="stop",
                     **ENDLESS)
    with pytest.raises(lcplab.SimulationError, match="time_limit"):
        w.run(10)
    assert w.step_count < 10


def test_no_signal_check_off_the_main_thread():
    """Python runs signal handlers on the main thread only: a solve in
    another thread is not slowed by checks and still ends by its limit."""
    box = {}
    th = threading.Thread(target=lambda: box.update(
        r=lcplab.solve(endless_problem(), "pgs", time_limit=0.05, **ENDLESS)))
    th.start()
    th.join()
    assert box["r"].status == lcplab.Status.TIME_LIMIT
