"""lcplab.solve and what it returns: the Python side of slv_solve
(docs/README.md, "Follow one solve")."""

import dataclasses
import enum
import math

import numpy as np

from . import _lcplab, _log
from ._errors import Error, InvalidProblemError, OptionsError, UnknownNameError, UnsupportedError
from ._gradients import _content_hash
from ._plugins import solver_name
from ._problem import _check_problem, _is_int, _refuse_complex

__all__ = ["DEFAULT_SOLVER", "Status", "Residuals", "Result", "SolverInfo", "solve", "solvers"]

#: The solver ``lcplab.solve`` uses when none is named: the automatic choice
#: by the problem's features (cone law, storage, size, symmetry), whose rule
#: is in docs/solver-machinery.md, "auto"; ``Result.method`` names the solver that ran.
DEFAULT_SOLVER = "auto"

Status = enum.IntEnum("Status", [(name.upper(), value) for value, name in _lcplab.statuses()],
                      module=__name__)
Status.__doc__ = """The library's status codes (docs/problem.md, "Status codes"): 0
converged; > 0 the solver ran but did not converge (MAX_ITER, STAGNATED,
RAY_TERMINATION, SINGULAR_PIVOT, NOT_FINITE, BREAKDOWN, NO_SOLUTION); < 0 it
refused to run (INVALID_PROBLEM, UNSUPPORTED, BAD_DIMENSION, OUT_OF_MEMORY,
INVALID_OPTIONS). ``str(status)`` is the library's name, e.g. ``"max_iter"``."""
Status.__str__ = lambda self: self.name.lower()


@dataclasses.dataclass(frozen=True)
class Residuals:
    """The library's accuracy measures of a solution, recomputed from
    (A, b, lo, hi, findex, mu, cones, x) alone, the same code for every
    solver (docs/problem.md, "Residuals").

    Attributes
    ----------
    res_nat_inf : float
        The natural map's inf-norm, ``||mid(x - hi, w, x - lo)||_inf``
        (cones: ``x_c - P_K(x_c - w^_c)``).
    res_rel : float
        ``res_nat_inf / max(1, ||b||_inf)``.
    res_rel_2 : float
        The natural map's 2-norm over ``max(1, ||b||_2)``.
    compl : float
        The complementarity sum.
    infeas : float
        The largest bound (or cone) violation of x.
    b_inf : float
        ``||b||_inf``.
    merit_fclib : float
        FCLIB's MERIT_1 (cone problems, else NaN).
    res_scaled : float
        The convergence test's measure, ``converged`` iff it is ``<= tol``:
        each row's natural map with its x side over ``||x||_inf`` and its w
        side over the row's own scale, unchanged by positive scalings of the
        problem, its rows or its contacts (docs/convergence.md).
    siconos_err : float
        Siconos' ``lcp_compute_error``, ``||x - mid(lo, hi, x - w)||_2 / ||b||_2``
        (problems without cones, else NaN).
    err_siconos : float
        Siconos' ``fc3d_compute_error``, ``||F||_2 / max(||b||_2, ||x||_2, ||w||_2)``,
        F the natural map with De Saxce's shift (cone problems, else NaN).
    res_rel_1q : float
        Acary et al. (2018)'s ``||F||_2 / (1 + ||b||_2)`` (cone problems, else NaN).
    res_contact : float
        Acary et al. (2018)'s per-contact measure, ``max_c ||F_c||_2 /
        ||(b_c, (A x)_c)||_2`` (cone problems, else NaN): peer_gfc3d's
        ``res_contact_max``.
    res_contact_at : int
        The contact (its index among the problem's cones, from 0) at which
        ``res_contact`` is taken, the first such; -1 without cones or where
        every contact's natural map is 0.
    res_global : float
        On a problem condensed from a global one (``Problem.global_problem``
        set): ``max(res_rel_1q, res_contact)``, which ``converged`` needs
        ``<= tol`` there too; NaN elsewhere (docs/convergence.md, "Global
        problems").
    signorini, conic_compl, ncp_compl, dual_feas, primal_feas, mdp_gap : float
        ContactBench's criteria for cone problems (else NaN): Signorini
        complementarity ``|l_n v_n|``, conic complementarity ``|l . v|``,
        NCP complementarity with De Saxce's correction ``|l . v^|``, dual
        feasibility ``||v^ - P_K*(v^)||``, primal feasibility
        ``||l - P_K(l)||`` and the maximum-dissipation gap
        ``|l_t . v_t + mu l_n |v_t||``, each the largest over the cones
        (docs/problem.md, "Contact metrics").
    """

    res_nat_inf: float
    res_rel: float
    res_rel_2: float
    compl: float
    infeas: float
    b_inf: float
    merit_fclib: float
    res_scaled: float
    siconos_err: float
    err_siconos: float
    res_rel_1q: float
    res_contact: float
    res_global: float
    res_contact_at: int
    signorini: float
    conic_compl: float
    ncp_compl: float
    dual_feas: float
    primal_feas: float
    mdp_gap: float

    def as_dict(self):
        """The measures as a dict."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Result:
    """The outcome of one ``lcplab.solve``.

    Attributes
    ----------
    x, w : ndarray
        The solution and ``w = A x + b`` (x holds the last iterate, whatever
        the status).
    status : Status
        Converged, or why not; ``str(result.status)`` is the library's name.
    status_str : str
        The same name, e.g. ``"converged"`` or ``"max_iter"``.
    converged : bool
        ``status == Status.CONVERGED``: the library's own measures confirm
        the tolerance (a solver cannot report success on an unmet one).
    iterations, pivots : int
        Sweeps or Newton steps; pivots of the pivoting and factorizing
        methods.
    residuals : Residuals
        The library's measures of x.
    solver_residual : float
        The solver's own stopping measure (for diagnosis).
    history : ndarray or None
        ``res_rel`` after each iteration, when asked with ``history=True``.
    history_time : ndarray or None
        The seconds from the start of the library's solve to each entry of
        ``history`` (same length), when asked with ``history=True``: the
        x axis of a residual-against-time plot.
    time : float
        Wall time of the library's solve alone (s), the number ``lcplab
        solve`` reports as ``time_s``.
    solver : str
        The solver's name.
    method : str
        The algorithm that ran: the solver's name, or the one it handed the
        problem to when that computes the same iterates (``"pgs"`` for
        ``pgs_wide``, ``pgs_color`` and ``pgs_part`` on dense or CSR storage;
        libsolvers/slv.h, slv_result.method).
    choice : str
        Why ``"auto"`` chose ``method`` (libsolvers/auto.c; docs/solver-machinery.md,
        "auto"), e.g. ``"dense symmetric A, n=2 <= 600: exact principal
        pivoting"``; empty for a named solver.
    message : str
        The library's detail when not converged, or when the solver's own
        status was not the verdict (``solver_status``), else empty.
    diagnosis : str
        Why a solve that did not converge could not, where the library can
        tell (libsolvers/slv.h, slv_result.diagnosis), else empty: ``"wedge:
        contacts 3 and 12 ..."`` when the contacts carrying the residual hold
        a null direction d of A inside their friction cones with ``d.b < 0``
        (docs/cone-solvers.md, "A wedge").  Never a status.
    solver_status : Status
        The status the solver itself returned, kept for diagnosis: the
        library decides ``status`` on the x returned (docs/convergence.md,
        "The verdict on the final iterate"), so a solver's ``MAX_ITER`` on an
        x that meets the test is ``CONVERGED`` there, and a "converged" the
        measures do not confirm is ``STAGNATED``; equal to ``status`` when
        the two agree.
    tol : float or None
        The judge's tolerance of the solve (None: the library's default,
        1e-8); ``lcplab.jvp`` and ``lcplab.vjp`` read the row modes with it.
    problem_hash : str or None
        A digest of the solved problem's content, with which ``lcplab.jvp``
        and ``lcplab.vjp`` refuse the result of another problem.
    v, u : ndarray or None
        For a problem condensed from a global one (``Problem.global_problem``):
        the velocities at x, ``v = M^-1 (H x + f)`` (ndof) and ``u = H' v +
        w`` (n); else None.  x (the reactions r) is not unique when H has a
        null space, v and u are (docs/problem.md, "Global problems").
    res_vel : float or None
        For such a problem, the velocity-level accuracy ``||W F(x)||_2 / (1 +
        ||q||_2)`` (the part of the residual that moves a velocity); else None.
    """

    x: np.ndarray
    w: np.ndarray
    status: Status
    status_str: str
    iterations: int
    pivots: int
    residuals: Residuals
    solver_residual: float
    history: object
    time: float
    solver: str
    message: str
    history_time: object = None
    method: str = ""
    choice: str = ""
    v: object = None
    u: object = None
    res_vel: object = None
    solver_status: object = None
    tol: object = None
    problem_hash: object = None
    diagnosis: str = ""

    @property
    def converged(self):
        return self.status == Status.CONVERGED

    def __repr__(self):
        choice = f", choice={self.choice!r}" if self.choice else ""
        return (f"Result(solver={self.solver!r}, method={self.method!r}{choice}, "
                f"status={self.status_str!r}, iterations={self.iterations}, "
                f"pivots={self.pivots}, res_rel={self.residuals.res_rel:.3g}, "
                f"time={self.time:.3g})")


@dataclasses.dataclass(frozen=True)
class SolverInfo:
    """One entry of the solver registry (``lcplab.solvers(details=True)``).

    Attributes
    ----------
    name : str
        The name ``solve`` takes.
    summary : str
        One line.
    cite : str
        Its key in docs/references.bib.
    caps : str
        What it accepts, e.g. ``"lcp box free findex dense csr"``.
    max_n : int
        The largest n it takes (0: no limit).
    params : str
        The constants and rules it runs with by default, one line (the
        ``params`` of its descriptor, slv.h; ``lcplab solvers --json``).
    """

    name: str
    summary: str
    cite: str
    caps: str
    max_n: int
    params: str = ""



def solvers(details=False):
    """The registered solvers, in the registry's order.

    Parameters
    ----------
    details : bool, optional
        Return a ``SolverInfo`` per solver (summary, citation key,
        capabilities, size limit, default parameters) instead of the names.

    Returns
    -------
    list of str, or list of SolverInfo
        The names ``solve`` accepts.

    Examples
    --------
    >>> import lcplab
    >>> "lemke" in lcplab.solvers()
    True
    >>> lcplab.solvers(details=True)[0].caps
    'lcp box free findex dense csr factored'
    """
    table = _lcplab.solvers()
    if not details:
        return [d["name"] for d in table]
    return [SolverInfo(d["name"], d["summary"], d["cite"], d["caps"], d["max_n"], d["params"])
            for d in table]


#: The options by name: libsolvers' one table (slv.h, "options by name";
#: through the extension), name -> type ("int", "ulong", "double", "bool",
#: "choice").  The library parses and stores each value from its text
#: (slv_options_set) and refuses one its field cannot hold; here only what
#: a Python value must be.
_OPTION_TYPES = {d["name"]: d["type"] for d in _lcplab.options()}
#: Options solve() takes as its own keywords, or sets itself (warm=).
_KEYWORD_OPTIONS = ("tol", "max_iter", "norm", "time_limit", "warm_start")
#: Options Python gives as True / False: their texts.
_BOOL_TEXTS = {"simd": {True: "auto", False: "off"}}


def _option(key, value):
    """The value of option key (not one of solve's keywords) for the
    extension, or OptionsError / TypeError."""
    kind = _OPTION_TYPES.get(key)
    if kind is None or key in _KEYWORD_OPTIONS:
        names = sorted(k for k in _OPTION_TYPES if k not in _KEYWORD_OPTIONS)
        raise TypeError(f"solve() got an unexpected option {key!r} (options: tol, max_iter, "
                        f"norm, {', '.join(names)})")
    if key in _BOOL_TEXTS:
        if not isinstance(value, bool):
            raise OptionsError(f"{key} must be True or False, got {value!r}")
        return _BOOL_TEXTS[key][value]
    if kind in ("int", "ulong"):
        if not _is_int(value):
            raise OptionsError(f"{key} must be an integer, got {value!r}")
        return int(value)
    return value


def _options(tol, max_iter, norm, extra):
    opts = {}
    if tol is not None:
        if not isinstance(tol, (int, float)):
            raise OptionsError(f"tol must be a number, got {tol!r}")
        opts["tol"] = tol
    if max_iter is not None:
        if not _is_int(max_iter):
            raise OptionsError(f"max_iter must be an integer, got {max_iter!r}")
        # sweeps for the iterative solvers, pivots for the pivoting ones: the
        # extension applies the library's rule (exp_options_budget), as
        # `lcplab solve --max-iter` does
        opts["max_iter"] = int(max_iter)
    if norm is not None:
        if norm not in ("inf", "2", 2):
            raise OptionsError(f"norm must be 'inf' or '2', got {norm!r}")
        opts["norm"] = "2" if norm in ("2", 2) else "inf"
    for key, value in extra.items():
        opts[key] = _option(key, value)
    return opts


def _check_tol(tol, allow_loose_tol, what):
    """OptionsError for a tol of 1 or more (which x = 0 meets on every
    problem) unless allow_loose_tol is True: the library's rule
    (slv_tol_check, libsolvers/slv.h; docs/convergence.md, "Loose
    tolerances"), as ``lcplab solve --tol`` and the experiment files'
    ``tol`` line apply it."""
    if not isinstance(allow_loose_tol, bool):
        raise OptionsError(f"allow_loose_tol must be True or False, got {allow_loose_tol!r}")
    if tol is None or isinstance(tol, bool) or not isinstance(tol, (int, float)):
        return
    why = _lcplab.tol_check(float(tol), allow_loose_tol)
    if why:
        raise OptionsError(f"{what}: {why}; pass allow_loose_tol=True to run it")


def _time_limit(value):
    """A time limit in seconds: a finite number > 0 (OptionsError otherwise)."""
    if (not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool)
            or not math.isfinite(value) or not value > 0):
        raise OptionsError(f"time_limit must be a finite number of seconds > 0, got {value!r}")
    return float(value)


def _raise_for(status, message, what):
    if status == Status.INVALID_OPTIONS:
        raise OptionsError(f"{what}: {message}", Status(status))
    if status in (Status.INVALID_PROBLEM, Status.BAD_DIMENSION):
        raise InvalidProblemError(f"{what}: {message}", Status(status))
    if status == Status.UNSUPPORTED:
        raise UnsupportedError(f"{what}: {message}", Status(status))
    if status == Status.OUT_OF_MEMORY:
        raise MemoryError(f"{what}: {message}")
    raise Error(f"{what}: {message}", Status(status))


def solve(problem, solver=DEFAULT_SOLVER, *, tol=None, max_iter=None, warm=None, history=False,
          norm=None, time_limit=None, allow_loose_tol=False, **options):
    """Solve a problem with a solver chosen by name.

    The steps are those of ``lcplab solve`` (docs/README.md, "Follow one
    solve"): the options start from the library's defaults, the problem is
    validated and checked against the solver's capabilities, the solver
    runs from ``warm`` or from the projection of 0, and the library
    recomputes every measure and keeps "converged" only if they meet the
    tolerance. The GIL is released during the solve, so solves in several
    threads run in parallel.

    Parameters
    ----------
    problem : Problem
        The problem.
    solver : str or Python solver, optional
        A name of ``lcplab.solvers()``, or a Python solver (a callable, or
        an object with ``name`` and ``solve``: ``lcplab.register_solver``,
        docs/plugins.md); default ``DEFAULT_SOLVER``.
    tol : float, optional
        Converged iff ``res_scaled <= tol``, the scale-invariant test
        (docs/convergence.md); default 1e-8.  A tol of 1 or more, which
        x = 0 meets on every problem, raises OptionsError unless
        ``allow_loose_tol=True`` (docs/convergence.md, "Loose tolerances").
    max_iter : int, optional
        Iteration limit of the iterative solvers and pivot limit of the
        pivoting ones (both, as ``lcplab solve --max-iter``: the library's
        rule, exp_options_budget; ``max_pivots`` given too wins); default the
        library's (1000 iterations; pivots max(1000, 50 n)).
    warm : (n,) array_like, optional
        The starting point (it must be finite); default the projection of 0
        on the bounds.
    history : bool, optional
        Record the test's measure after each iteration in ``Result.history``.
    norm : {"inf", "2"}, optional
        ``"2"``: the test also needs the 2-norm measure ``res_rel_2 <= tol``
        (Siconos' and Acary et al. 2018's).
    time_limit : float, optional
        Seconds of wall clock (> 0) after which the solver stops at its
        next poll: ``Status.TIME_LIMIT``, with its iterate (the best or the
        last, docs/solver-machinery.md, "Time limits and interruption") and its
        residuals; default none.
    **options
        Named solver options: ``omega`` (pgs: SOR factor in (0, 2)),
        ``damping``, ``pivot_tol``, ``check_every``, ``max_pivots``,
        ``seed``, ``simd`` (True, the default: vector code where the CPU
        has it; False: the scalar path only, the same iterates),
        ``threads`` (OpenMP threads, default 1; the same x for every
        count: docs/solver-machinery.md, "Threads")
        (libsolvers/slv.h, slv_options).
    allow_loose_tol : bool, optional
        Accept a tol of 1 or more (default False: OptionsError).

    Returns
    -------
    Result
        A solve that ran but did not converge is a result too
        (``result.converged`` is False and ``result.message`` says why);
        check it.

    Raises
    ------
    InvalidProblemError
        The problem or ``warm`` is invalid (message naming the field),
        e.g. ``warm`` holds complex numbers.
    UnsupportedError
        The solver does not take this kind of problem.
    OptionsError
        An option is out of range, or ``tol >= 1`` without
        ``allow_loose_tol=True``.
    UnknownNameError
        An unknown solver name.
    KeyboardInterrupt
        Ctrl-C (or another signal whose handler raises) during the solve:
        raised at the solver's next poll, about once per millisecond of
        work (docs/solver-machinery.md, "Time limits and interruption").

    Examples
    --------
    >>> import numpy as np, lcplab
    >>> p = lcplab.Problem(np.eye(2), [-1.0, 1.0])
    >>> r = lcplab.solve(p, "pgs", tol=1e-10)
    >>> r.status, r.x
    (<Status.CONVERGED: 0>, array([1., 0.]))
    """
    _check_problem(problem)
    solver = solver_name(solver)
    names = solvers()
    if solver not in names:
        raise UnknownNameError(f"unknown solver {solver!r} (known: {', '.join(names)})")
    opts = _options(tol, max_iter, norm, options)
    if time_limit is not None:
        opts["time_limit"] = _time_limit(time_limit)
    _check_tol(tol, allow_loose_tol, solver)
    x0 = None
    if warm is not None:
        _refuse_complex(warm, "warm")
        x0 = np.array(warm, dtype=np.float64, copy=True)
        if x0.shape != (problem.n,):
            raise InvalidProblemError(f"warm has shape {x0.shape}, expected ({problem.n},)")
    log_fn, log_level = _log.bridge()
    d = _lcplab.solve(problem._c(), solver, opts, x0, bool(history), log_fn, log_level)
    status = d["status"]
    if status < 0:
        _raise_for(status, d["message"], solver)
    st = Status(status)
    v, u, res_vel = _velocities(problem, d["x"])
    return Result(x=d["x"], w=d["w"], status=st, status_str=str(st), iterations=d["iterations"],
                  pivots=d["pivots"], residuals=Residuals(**d["residuals"]),
                  solver_residual=d["solver_residual"], history=d["history"], time=d["time"],
                  solver=solver,
                  message=d["message"] if status != 0 or d["solver_status"] != status else "",
                  history_time=d["history_time"], method=d["method"], choice=d["choice"], v=v,
                  u=u, res_vel=res_vel, solver_status=Status(d["solver_status"]),
                  tol=None if tol is None else float(tol), problem_hash=_content_hash(problem),
                  diagnosis=d["diagnosis"])


def _velocities(problem, x):
    """(v, u, res_vel) of a problem condensed from a global one at x, else
    (None, None, None); NaN-filled when x is not finite or M cannot be
    factored (the solve's status says what happened)."""
    glob = getattr(problem, "_global", None)
    if glob is None:
        return None, None, None
    out = _lcplab.velocities(problem._c(), glob, x)
    if isinstance(out[0], int):
        return np.full(glob[0], np.nan), np.full(problem.n, np.nan), float("nan")
    return out
