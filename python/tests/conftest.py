"""Shared helpers of the lcplab package's tests.

The tests compare the package with the ``lcplab`` program (``LCPLAB_BIN``,
set by ``make check``) on the same files, and read the shared datasets
(``LCPLAB_SHARED``) in place when they are there. Problems are planted: a
solution x* and w* are chosen first, then b = w* - A x* (docs/README.md,
"Design rules", Tests), and every solution is judged by this file's own
natural map, not by the library's.
"""

import contextlib
import importlib.util
import json
import logging
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import lcplab


EXPERIMENTS = pathlib.Path(__file__).resolve().parents[2] / "experiments"


def experiment_module(name):
    """experiments/NAME.py loaded as a module, with experiments/ on the path for
    the scripts' own shared modules (outfile.py)."""
    if str(EXPERIMENTS) not in sys.path:
        sys.path.insert(0, str(EXPERIMENTS))
    spec = importlib.util.spec_from_file_location(name, EXPERIMENTS / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def sigint_raises():
    """SIGINT raises KeyboardInterrupt inside the block, whatever the session
    inherited: a shell without job control starts a background command with
    SIGINT ignored, and Python then installs no handler of its own."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def planted_lcp(n, seed, eps=0.1, bounds="lcp"):
    """A = B B^T / n + eps I and a planted solution: for an LCP (lo = 0, hi =
    inf) each x*_i is inside (w*_i = 0) or at 0 (w*_i > 0), a third of the
    rows at 0; "box" adds rows with finite [-1, 1] bounds (x* at lo with
    w* > 0, at hi with w* < 0, or inside). Returns (problem, x*)."""
    rng = np.random.default_rng(seed)
    B = rng.uniform(-1, 1, (n, n))
    A = B @ B.T / n + eps * np.eye(n)
    lo = np.zeros(n)
    hi = np.full(n, np.inf)
    if bounds == "box":
        lo[::2], hi[::2] = -1.0, 1.0
    x = np.zeros(n)
    w = np.zeros(n)
    for i in range(n):
        case = i % 3
        if case == 0:
            x[i] = lo[i] + rng.uniform(0.1, 0.9)
        elif case == 1:
            x[i], w[i] = lo[i], rng.uniform(0.1, 1.0)
        else:
            if np.isfinite(hi[i]):
                x[i], w[i] = hi[i], -rng.uniform(0.1, 1.0)
            else:
                x[i] = rng.uniform(0.2, 1.0)
    b = w - A @ x
    return lcplab.Problem(A, b, lo=lo, hi=hi), x


def natural_map(p, x):
    """This file's own ||mid(x - hi, w, x - lo)||_inf (box rows only)."""
    A = p.to_dense()
    w = A @ x + p.b
    r = np.maximum(x - p.hi, np.minimum(w, x - p.lo))
    return float(np.max(np.abs(r))) if x.size else 0.0


def run_cli(args, check=True):
    """Runs the lcplab program; returns (exit status, stdout, stderr)."""
    binary = os.environ.get("LCPLAB_BIN")
    if not binary or not os.path.exists(binary):
        pytest.skip("LCPLAB_BIN is not set (run through make check)")
    r = subprocess.run([binary] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=600)
    if check and r.returncode not in (0, 3):
        raise AssertionError(f"lcplab {' '.join(map(str, args))}: exit {r.returncode}: "
                             f"{r.stderr}")
    return r.returncode, r.stdout, r.stderr


def cli_solve(path, solver, tmp_path, *extra):
    """`lcplab solve PATH --solver S --solution OUT`: (JSON dict, x)."""
    out = tmp_path / f"x-{solver}.txt"
    rc, stdout, _ = run_cli(["solve", path, "--solver", solver, "--solution", out, "--force",
                             *extra])
    x = np.loadtxt(out, ndmin=1) if out.exists() else None
    return json.loads(stdout), x


def json_number(v):
    """The JSON's number: null is NaN or an infinity (the CLI prints null
    for both)."""
    return np.nan if v is None else v


def shared_path(*parts):
    """A file of the shared datasets, or skip."""
    root = os.environ.get("LCPLAB_SHARED")
    path = os.path.join(root, *parts) if root else None
    if not path or not os.path.exists(path):
        pytest.skip(f"shared dataset {'/'.join(parts)} not found (LCPLAB_SHARED)")
    return path


def gil_released_during(prepare, call, attempts=3):
    """Runs call(prepare(k)) in a thread while this thread counts loop
    turns, with a switch interval far longer than the call: this thread can
    then only run while the other is blocked or has released the GIL, and
    the count stays 0 if the call holds the GIL from start to end.  (This
    thread sleeps 0 s at each turn, which releases the GIL, so the other
    one gets it back as soon as its call returns.)  prepare(k) builds the
    call's input outside the measured span (numpy releases the GIL);
    attempt k makes the work longer, in case a busy machine did not
    schedule this thread during a short call."""
    old = sys.getswitchinterval()
    level = lcplab.logger.level
    try:
        # no log line either: a logging handler's I/O would release the GIL
        lcplab.logger.setLevel(logging.CRITICAL)
        sys.setswitchinterval(5.0)
        for k in range(attempts):
            arg = prepare(k)
            ready, done = threading.Event(), threading.Event()
            box = {}

            def target():
                ready.set()
                box["r"] = call(arg)
                done.set()

            t = threading.Thread(target=target)
            t.start()
            ready.wait()
            count = 0
            while not done.is_set():
                count += 1
                time.sleep(0)
            t.join()
            if count > 0:
                return count, box["r"]
        return 0, None
    finally:
        sys.setswitchinterval(old)
        lcplab.logger.setLevel(level)


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)
