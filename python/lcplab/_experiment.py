"""lcplab.run_experiment, compare and profile: the comparison engine of the
C library libexperiment (libexperiment/exp.h), the same that runs ``lcplab
experiment``: one implementation of the timed solves, the repeat rule, the
judge, the profiles and the tables (experiments/README.md, "Experiment
files" and "Campaigns")."""

import csv
import io
import math
import os
import re
import shutil
import tempfile

import numpy as np

from . import _lcplab
from . import _program
from ._errors import ExperimentError
from ._plugins import call_overhead, solver_name
from ._problem import Problem
from ._solve import _check_tol, solvers as _solver_names

__all__ = ["Campaign", "compare", "profile", "quantile", "run_experiment"]

_SAY = {0: "error", 1: "note", 2: "info", 3: "progress", 4: "output"}


# Integer columns that come back as integers: an empty field (a run that
# gave no numbers: refused, time limit, crash; its status says which) is -1.
_INT_COLUMNS = ("iterations",)
_NO_INT = -1


def _read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return _parse_csv(f.read())


def _number(v):
    if v == "":
        return math.nan
    return float(v)


def _column(name, vals):
    if name in _INT_COLUMNS:
        try:
            return np.array([int(v) if v != "" else _NO_INT for v in vals], dtype=np.int64)
        except ValueError:
            pass
    try:
        return np.array([_number(v) for v in vals], dtype=np.float64)
    except ValueError:
        return np.array(vals, dtype=str)


def _parse_csv(text):
    # the engine's CSV (RFC 4180, libexperiment/shell.c), its '#' preamble
    # lines skipped, read by Python's csv module
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    if not lines:
        return np.zeros(0, dtype=[])
    head, *rows = csv.reader(lines)
    cols = [(name, _column(name, [r[j] if j < len(r) else "" for r in rows]))
            for j, name in enumerate(head)]
    dtype = [(n, c.dtype if c.dtype.kind != "U" else f"U{max(1, c.dtype.itemsize // 4)}")
             for n, c in cols]
    out = np.zeros(len(rows), dtype=dtype)
    for n, c in cols:
        out[n] = c
    return out


def _frame(table, as_frame):
    if as_frame is False:
        return table
    try:
        import pandas  # noqa: F401  (optional)
    except ImportError:
        if as_frame:
            raise
        return table
    import pandas as pd
    return pd.DataFrame({n: table[n] for n in table.dtype.names})


def _structured(results):
    if hasattr(results, "to_records"):  # a pandas DataFrame
        return results.to_records(index=False)
    return np.asarray(results)


class Campaign:
    """The outcome of ``run_experiment``.

    Attributes
    ----------
    out : str
        The output folder.
    status : int
        0 every task ran; 3 a task failed or a result is missing (the CSVs
        hold the tasks done).
    files : list of str
        The files written (CSVs, tables, figures).
    messages : list of (str, str)
        What the engine said: (kind, line), kind "note" or "info".
    """

    def __init__(self, out, status, files, messages):
        self.out = out
        self.status = status
        self.files = files
        self.messages = messages

    def table(self, name):
        """A CSV the campaign wrote, as a numpy structured array.

        Parameters
        ----------
        name : str
            The file's name without ``.csv`` (``"profile-lcp"``,
            ``"profile-lcp_winners"``, ...).

        Returns
        -------
        numpy structured array
            Its columns as in the file: iterations an integer (-1 for an
            empty field), the other numbers floats (NaN for an empty field).
        """
        path = os.path.join(self.out, name + ".csv")
        if path not in self.files and not os.path.exists(path):
            raise KeyError(f"{name}: no such table in {self.out}")
        return _read_csv(path)

    def __repr__(self):
        return f"Campaign(out={self.out!r}, status={self.status}, files={len(self.files)})"


def _plan_program():
    # the program the plans name: the package's own (_program.py), else the
    # lcplab on PATH
    return _program.program() or shutil.which("lcplab") or "lcplab"


def run_experiment(config, out, *, jobs=None, vars=None, time_limit=None, force=False,
                   figures=True, scripts=None, data=None, max_memory=None, solvers=None):
    """Run an experiment file as a campaign, as ``lcplab experiment CONFIG
    --out OUT`` does: the problems prepared, the plan written to
    OUT/campaign (a campaign of the same plan resumes), the tasks run on
    ``jobs`` processes, the CSVs, tables and figures collected into OUT.

    Parameters
    ----------
    config : str or os.PathLike
        The experiment file (experiments/README.md, "Experiment files").
    out : str or os.PathLike
        The output folder (made if missing).
    jobs : int, optional
        Worker processes (default: the online CPUs).
    vars : dict, optional
        Values of the file's ``${NAME}`` variables.
    time_limit : float, optional
        Seconds per task (default: each section's own).
    force : bool
        Start over a plan of another configuration, replace outputs.
    figures : bool
        Draw the figures (gnuplot).
    scripts : str, optional
        The folder of the figure scripts (default: as ``lcplab experiment``:
        ``LCPLAB_EXPERIMENTS``, else the installed scripts, else those of the
        source tree the package was built from).
    data, max_memory
        As ``--data`` and ``--max-memory``.
    solvers : list, optional
        Python solvers (callables, or objects with ``name`` and ``solve``;
        docs/plugins.md) registered by name for the run, so that the file's
        ``solvers`` lines may name them. They run in the worker processes
        (forked: each has its own interpreter, ``jobs`` > 1 runs them in
        parallel), timed and judged as the library's solvers; their tasks
        run again in a later run (another callable may have the name then).
        C plugins come through the file's ``plugin PATH`` lines or
        ``lcplab.load_plugin``.

    Returns
    -------
    Campaign

    Raises
    ------
    ExperimentError
        The file or an option was refused (status 2), with the engine's
        message naming the file, line or field.
    KeyboardInterrupt
        Ctrl-C: the running tasks finish (a second Ctrl-C stops them), the
        CSVs of the tasks done are written, then it is raised.
    """
    for s in solvers or ():
        if isinstance(s, str):
            raise TypeError(f"solvers: {s!r} is a name; give Python solvers (callables) here")
        solver_name(s)
    var_list = []
    for k, v in (vars or {}).items():
        if not isinstance(k, str) or not re.fullmatch(r"[A-Za-z0-9_]+", k):
            raise ValueError(f"vars: bad variable name {k!r}")
        var_list.append(f"{k}={v}")
    if jobs is None:
        jobs = os.cpu_count() or 1
    if not isinstance(jobs, int) or not 1 <= jobs <= 1024:
        raise ValueError(f"jobs must be an integer in 1..1024, got {jobs!r}")
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a number of seconds > 0, got {time_limit!r}")
    r = _lcplab.run_experiment(
        os.fspath(config), os.fspath(out), jobs=jobs, vars=var_list,
        time_limit=float(time_limit or 0.0), force=bool(force), no_plot=not figures,
        scripts=_program.scripts() if scripts is None else os.fspath(scripts),
        data=None if data is None else os.fspath(data), program=_plan_program(),
        max_memory=int(max_memory or 0))
    said = [(_SAY.get(k, "info"), line) for k, line in r["messages"]]
    if r["status"] == 2:
        errors = [line for kind, line in said if kind == "error"]
        raise ExperimentError(errors[0] if errors else "the experiment was refused", 2,
                              [line for _, line in said])
    if r["status"] not in (0, 3):
        raise ExperimentError(f"the campaign stopped (status {r['status']})", r["status"],
                              [line for _, line in said])
    return Campaign(os.path.abspath(os.fspath(out)), r["status"], list(r["outputs"]),
                    [(k, line) for k, line in said if k != "error"])


def _problem_files(problems, folder):
    """The problems written (or linked) into folder; {name: Problem or path}."""
    items = problems.items() if isinstance(problems, dict) else \
        ((None, p) for p in problems)
    names = {}
    for i, (name, p) in enumerate(items):
        if isinstance(p, Problem):
            base = name or f"problem{i}"
            if not re.fullmatch(r"[A-Za-z0-9_.+-]+", base):
                raise ValueError(f"problem name {base!r}: use letters, digits and ._+-")
            path = os.path.join(folder, base + ".lcp")
            from ._io import write
            write(p, path)
        else:
            src = os.path.abspath(os.fspath(p))
            if not os.path.isfile(src):
                raise FileNotFoundError(src)
            stem, ext = os.path.splitext(os.path.basename(src))
            base = re.sub(r"[^A-Za-z0-9_.+-]", "_", name or stem)
            path = os.path.join(folder, base + ext)
            os.symlink(src, path)
        if base in names:
            raise ValueError(f"two problems named {base!r}")
        names[base] = p if isinstance(p, Problem) else path
    if not names:
        raise ValueError("no problems to compare")
    return names


def _with_overhead(table, python_names, problems):
    """table with the column call_overhead_s: for a Python solver's rows the
    median cost of one call across the boundary on that problem
    (lcplab.call_overhead), measured here before the run; NaN elsewhere."""
    from ._io import read
    cost = {}
    if python_names and len(table):
        for name in set(table["problem"]):
            p = problems.get(str(name))
            if p is not None:
                cost[str(name)] = call_overhead(p if isinstance(p, Problem) else read(p))
    col = np.array([cost.get(str(pr), math.nan) if str(sv) in python_names else math.nan
                    for pr, sv in zip(table["problem"], table["solver"])], dtype=np.float64) \
        if len(table) else np.zeros(0)
    out = np.zeros(len(table), dtype=table.dtype.descr + [("call_overhead_s", "f8")])
    for n in table.dtype.names:
        out[n] = table[n]
    out["call_overhead_s"] = col
    return out


def compare(problems, solvers, *, tol=1e-8, min_runs=None, time_limit=None, max_iter=None,
            jobs=1, as_frame=None, allow_loose_tol=False):
    """Time and judge solvers on problems, as an experiment's profile section
    does (the same tasks, repeat rule, judge and columns): one row per
    (problem, solver, tolerance).

    Parameters
    ----------
    problems : list or dict
        Problems (``lcplab.Problem``) or instance files; a dict gives them
        names (the ``problem`` column).
    solvers : list
        Registered solver names (``lcplab.solvers()``) and Python solvers
        (callables ``solver(problem, x0, tol, max_iter, time_limit)``
        returning x, or objects with ``name`` and such a ``solve``;
        docs/plugins.md), registered by name for the run.
    tol : float or list of float
        The tolerances; one of 1 or more (which x = 0 meets on every
        problem) raises OptionsError unless ``allow_loose_tol=True``.
    min_runs : int, optional
        Timed runs at least (the section's default otherwise).
    time_limit : float, optional
        Seconds per solve (each run under the task's watchdog).
    max_iter : int, optional
        The solvers' iteration limit.
    jobs : int
        Worker processes (1: no two timed solves at once).
    as_frame : bool, optional
        A pandas DataFrame (default when pandas is installed) or a numpy
        structured array.
    allow_loose_tol : bool
        Accept a tol of 1 or more (the experiment file's ``allow_loose_tol
        yes``).

    Returns
    -------
    numpy structured array or pandas.DataFrame
        The columns of the profile CSV (experiments/README.md): problem,
        kind, n, solver, tol, status, iterations, pivots, time_s, ...;
        iterations an integer (-1 for a run that gave no numbers:
        refused, time limit; its status says which), the other numbers
        floats (NaN for an empty field); with Python solvers, one more
        column, ``call_overhead_s``: for their rows, what one call across
        the boundary costs on that problem (the part of time_s that is the
        interpreter's; lcplab.call_overhead), NaN for the others.
    """
    solvers = [solvers] if isinstance(solvers, str) else list(solvers)
    python_names = {solver_name(s) for s in solvers if not isinstance(s, str)}
    solvers = [solver_name(s) for s in solvers]
    known = set(_solver_names())
    for s in solvers:
        if s not in known:
            raise ValueError(f"unknown solver {s!r} (known: {', '.join(sorted(known))})")
    tols = [tol] if isinstance(tol, (int, float)) else list(tol)
    for t in tols:
        _check_tol(t, allow_loose_tol, "compare")
    with tempfile.TemporaryDirectory(prefix="lcplab-compare-") as tmp:
        folder = os.path.join(tmp, "problems")
        os.mkdir(folder)
        files = _problem_files(problems, folder)
        lines = ["experiment profile compare", "solvers " + " ".join(solvers),
                 "instances " + folder, "tol " + " ".join(repr(float(t)) for t in tols)]
        if min_runs is not None:
            lines.append(f"min_runs {int(min_runs)}")
        if time_limit is not None:
            lines.append(f"time_limit {float(time_limit)!r}")
        if max_iter is not None:
            lines.append(f"max_iter {int(max_iter)}")
        if allow_loose_tol:
            lines.append("allow_loose_tol yes")
        cfg = os.path.join(tmp, "compare.exp")
        with open(cfg, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        c = run_experiment(cfg, os.path.join(tmp, "out"), jobs=jobs, figures=False)
        table = c.table("compare")
        if python_names:
            table = _with_overhead(table, python_names, files)
    return _frame(table, as_frame)


def _without_overhead(table):
    """compare's table without its call_overhead_s column (profile reads
    the engine's columns only)."""
    names = [n for n in (table.dtype.names or ()) if n != "call_overhead_s"]
    if table.dtype.names is None or len(names) == len(table.dtype.names):
        return table
    return table[names]


def _field(name, v):
    if isinstance(v, (float, np.floating)):
        return "" if math.isnan(v) else repr(float(v))
    if name in _INT_COLUMNS and isinstance(v, (int, np.integer)) and v == _NO_INT:
        return ""
    return str(v)


def _csv_text(table):
    """A structured array as the engine's CSV text (Python's csv module
    quotes as libexperiment/shell.c does: a field holding , " CR or LF)."""
    names = table.dtype.names or ()
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(names)
    for row in table:
        w.writerow([_field(n, row[n]) for n in names])
    return out.getvalue()


def _figure_base(figure):
    base = os.fspath(figure)
    stem, ext = os.path.splitext(base)
    if ext.lower() in (".pdf", ".png"):
        return stem
    if ext:
        raise ValueError(f"figure: {base!r}: expected a .pdf or .png path, or a base name")
    return base


def profile(results, *, as_frame=None, figure=None, measure="all"):
    """The Dolan-More performance profiles of ``compare``'s results (or a
    profile section's CSV read back), per problem class and tolerance:
    the curves the engine writes as NAME_profile.csv, and optionally its
    figure.

    Parameters
    ----------
    results : numpy structured array or pandas.DataFrame
        Rows with the columns of a profile CSV (``compare``'s result).
    as_frame : bool, optional
        A pandas DataFrame (default when pandas is installed) or a numpy
        structured array.
    figure : str or os.PathLike, optional
        Also draw the profile figure, the one a profile section of an
        experiment draws (experiments/exp_profile.gp, run by gnuplot):
        ``"p.pdf"`` (or ``"p.png"``, or the base ``"p"``) writes p.pdf and
        p.png, and p-K-Q.pdf/png for further tolerances and pages;
        existing files of those names are replaced.
    measure : {"all", "accepted"}
        The figure's curves: "all" (the default) ``rho_all``, a refusal
        counted as a failure over all the class's problems, so that a
        solver that refused problems is not drawn above one that solved as
        many; "accepted" ``rho``, each solver over the problems it
        accepted, labelled so (the legend's share "75% of 4", the title
        "over accepted"). The table returned has both.

    Returns
    -------
    numpy structured array or pandas.DataFrame
        tol, solver, tau, log2_tau, rho, solved_share, problems (those the
        solver accepts: its denominator), class, refused (those it refused),
        rho_all, solved_share_all, problems_all (a refusal counted as a
        failure, over all the class's problems).  Solvers that ran the same
        algorithm everywhere are one entry, "A=B", their runs pooled
        (experiments/README.md, "Tasks, timing and statuses").

    Raises
    ------
    ExperimentError
        The rows are not a profile CSV's; or, with ``figure``, the figure
        could not be drawn (no gnuplot, no figure scripts), with the
        engine's messages.
    """
    if measure not in ("all", "accepted"):
        raise ValueError(f"profile: measure must be 'all' or 'accepted', got {measure!r}")
    text = _csv_text(_without_overhead(_structured(results)))
    try:
        curves = _lcplab.profile_csv(text)
    except ValueError as e:
        raise ExperimentError(str(e)) from None
    if figure is not None:
        status, said = _lcplab.profile_figure(text, _figure_base(figure), f"measure={measure}",
                                              _program.scripts())
        lines = [line for _, line in said]
        if status != 0:
            errors = [line for kind, line in said if kind in (0, 1)]
            raise ExperimentError(errors[0] if errors else "the figure was not drawn", status,
                                  lines)
    return _frame(_parse_csv(curves), as_frame)


def quantile(values, q):
    """The engine's quantile q of values: linear between the order
    statistics (libexperiment/stats.c, exp_quantile), the one definition
    behind the medians and quartiles of its CSVs.

    Parameters
    ----------
    values : array_like of float
        Finite values, in any order.
    q : float
        In [0, 1]: 0.5 the median, 0.25 and 0.75 the quartiles.

    Returns
    -------
    float
        NaN for no values.
    """
    x = np.sort(np.asarray(values, dtype=np.float64).ravel())
    if not np.all(np.isfinite(x)):
        raise ValueError("quantile: values must be finite")
    q = float(q)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile: q must be in [0, 1], got {q!r}")
    return _lcplab.quantile(np.ascontiguousarray(x), q)
