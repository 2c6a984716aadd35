"""Your own solver beside the library's: Python solvers and C plugins
(docs/plugins.md).

A Python solver is a callable ``solver(problem, x0, tol, max_iter,
time_limit)`` (keywords after the problem), or an object with a ``name`` and
such a ``solve`` method. It returns x (an array of n numbers), or a tuple
``(x, iterations)`` or ``(x, iterations, status)`` with status a name of
``lcplab.Status`` ("converged", "max_iter", ...) or None. Registered by
name in the library's table (ext_pysolver.c), it runs wherever a solver name
does (``solve``, ``World``, ``compare``, ``run_experiment``), and the library
validates the problem, checks its capabilities, recomputes the residuals from
the x returned and decides the status: a solver that says "converged" on a
wrong x is overruled.
"""

import os
import re
import time

from typing import Any, Protocol

import numpy as np

from . import _lcplab
from ._errors import PluginError
from ._problem import Problem

#: The capabilities a Python solver may declare (slv.h, SLV_CAP_*); it
#: takes dense and CSR problems with box, free, findex rows and cones unless
#: it says otherwise.
_CAP_BITS = {"box": 1, "free": 2, "findex": 4, "cone": 8, "csr": 16, "needs_pos_diag": 64,
             "needs_symmetric": 128}
_DEFAULT_CAPS = ("box", "free", "findex", "cone", "csr")
_STATUS = {name: value for value, name in _lcplab.statuses()}
_NAME = re.compile(r"[A-Za-z0-9_.+-]{1,47}")


class SolverObject(Protocol):
    """A Python solver as an object: a ``name`` and a ``solve`` method
    (``register_solver``)."""

    name: str

    def solve(self, problem: Problem, x0: np.ndarray, tol: float, max_iter: int,
              time_limit: Any) -> Any:
        """x, or (x, iterations), or (x, iterations, status)."""


def load_plugin(path):
    """Load a C plugin: a shared library whose solvers register themselves
    (docs/plugins.md, "C plugins"), as ``lcplab --plugin PATH`` does. Its
    solvers are then known to ``solvers()``, ``solve``, ``World``, ``compare``
    and ``run_experiment`` for the rest of the process. Loading the same
    file again does nothing.

    Parameters
    ----------
    path : str or os.PathLike
        The plugin's shared library (built against this lcplab's
        ``lcplab-solvers`` pkg-config file; examples/plugin is a template).

    Raises
    ------
    PluginError
        The file is missing, not a shared library, not an lcplab plugin, built
        for another solver ABI (both numbers in the message), or a solver
        name it registers is taken.
    """
    try:
        _lcplab.load_plugin(os.fspath(path))
    except ValueError as e:
        raise PluginError(str(e)) from None


def _solve_fn(solver):
    fn = getattr(solver, "solve", None)
    if fn is None and callable(solver):
        fn = solver
    if not callable(fn):
        raise TypeError(f"a solver is a name, a callable, or an object with name and solve; "
                        f"got {type(solver).__name__}")
    return fn


def register_solver(solver, name=None, caps=None):
    """Register a Python solver under a name (default: its ``name``
    attribute, else its ``__name__``) and return the name. A name that is a
    Python solver already is bound to this one and to these caps; a
    built-in's or a plugin's name is refused.

    Parameters
    ----------
    solver : callable or object with ``name`` and ``solve``
        ``solve(problem, x0, tol, max_iter, time_limit)`` -> x, or
        ``(x, iterations)``, or ``(x, iterations, status)``.
    name : str, optional
        1 to 47 letters, digits and ``_.+-``.
    caps : iterable of str, optional
        What it takes: ``box``, ``free``, ``findex``, ``cone``, ``csr``,
        ``needs_pos_diag``, ``needs_symmetric`` (default: the first five).
        The library refuses other problems for it (``unsupported``).
        Registering the name again sets them anew (None: the defaults);
        passing the callable itself to ``solve``, ``compare``, ``World`` or
        ``run_experiment`` keeps the caps its name has.

    Returns
    -------
    str
        The name it has in ``lcplab.solvers()``.

    Raises
    ------
    PluginError
        A bad or taken name, an unknown capability.
    """
    name = _checked_name(solver, name)
    bits = 0
    for c in (_DEFAULT_CAPS if caps is None else caps):
        if c not in _CAP_BITS:
            raise PluginError(f"solver {name!r}: unknown capability {c!r} "
                              f"(known: {', '.join(_CAP_BITS)})")
        bits |= _CAP_BITS[c]
    _register(name, solver, bits)
    return name


def _checked_name(solver, name):
    """The name solver is registered under (name, else its ``name``, else
    its ``__name__``), checked; PluginError naming what is wrong."""
    _solve_fn(solver)
    if name is None:
        name = getattr(solver, "name", None) or getattr(solver, "__name__", None)
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name == "all":
        raise PluginError(f"solver name {name!r}: use 1 to 47 letters, digits and _.+- "
                          f"(a lambda needs name=...)")
    return name


def _register(name, solver, bits):
    try:
        _lcplab.register_solver(name, solver, _call, bits)
    except ValueError as e:
        raise PluginError(str(e)) from None


def solver_name(solver):
    """The name a solver argument stands for: a string as it is, a Python
    solver registered first: under its name, with the caps that name has
    when it is registered already (a user's ``register_solver(f,
    caps=...)`` is not undone by ``compare(..., [f])``), else the
    defaults."""
    if isinstance(solver, str):
        return solver
    name = _checked_name(solver, None)
    had = [d["cap_bits"] for d in _lcplab.solvers() if d["name"] == name]
    if not had:
        return register_solver(solver, name)
    _register(name, solver, had[0])  # a built-in's or a plugin's name is refused there
    return name


def _status_code(status):
    if status is None:
        return _STATUS["converged"]
    if isinstance(status, str) and status in _STATUS:
        return _STATUS[status]
    if isinstance(status, (int, np.integer)) and int(status) in _STATUS.values():
        return int(status)
    raise ValueError(f"returned the status {status!r}, which is none of lcplab.Status's names")


def _call(solver, t, x0, opts):
    """The library's call of a Python solver (ext_pysolver.c): the Problem
    built, the callable called, what it returned checked. Returns (x as a
    C-contiguous float64 array of n, iterations, status code, the
    callable's own seconds); raises with a message naming what is wrong
    (the extension turns it into an ``error`` row)."""
    problem = Problem._from_c(t)
    n = len(x0)
    fn = _solve_fn(solver)
    t0 = time.perf_counter()
    r = fn(problem, x0=x0, tol=opts["tol"], max_iter=opts["max_iter"],
           time_limit=opts["time_limit"])
    own = time.perf_counter() - t0
    iterations, status = 0, None
    if isinstance(r, tuple):
        if not 1 <= len(r) <= 3:
            raise TypeError(f"returned a tuple of {len(r)} items: expected x, (x, iterations) "
                            f"or (x, iterations, status)")
        x = r[0]
        iterations = r[1] if len(r) > 1 else 0
        status = r[2] if len(r) > 2 else None
    else:
        x = r
    if not isinstance(x, (np.ndarray, list)):
        raise TypeError(f"returned {type(x).__name__}, not an array of {n} numbers")
    try:
        x = np.ascontiguousarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"returned an array that is not of numbers ({e})") from None
    if x.shape != (n,):
        raise ValueError(f"returned an array of shape {x.shape}, expected ({n},)")
    if not isinstance(iterations, (int, np.integer)) or isinstance(iterations, bool):
        raise TypeError(f"returned iterations {iterations!r}, not an integer")
    code = _status_code(status)
    return x, int(min(max(int(iterations), 0), 2**31 - 1)), code, own


def _noop(problem, x0, **options):
    return x0


def call_overhead(problem, repeats=20):
    """The median seconds one call of a Python solver costs beyond the
    callable's own time, on this problem: the Problem built from the
    library's arrays, the call, the checks and x copied back (measured with
    a solver that returns x0 at once; docs/plugins.md, "Timing"). ``compare``
    reports it beside a Python solver's times.

    Parameters
    ----------
    problem : lcplab.Problem
        The problem the calls get.
    repeats : int
        Calls timed (1..1000); the median is returned.

    Returns
    -------
    float
        Seconds.
    """
    times = np.sort(np.array(_lcplab.call_overhead(problem._c(), _call, _noop, int(repeats))))
    return _lcplab.quantile(times, 0.5)  # the engine's median


__all__ = ["load_plugin", "register_solver", "solver_name", "call_overhead"]
