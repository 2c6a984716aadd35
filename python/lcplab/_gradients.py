"""Derivatives of a solve's answer: ``lcplab.jvp`` and ``lcplab.vjp``
(libsolvers' sensitivities through the extension; docs/gradients.md)."""

import dataclasses
import hashlib

import numpy as np

from . import _lcplab
from ._errors import Error, InvalidProblemError

#: The tolerance of slv_options_default (the judge's when a solve set none).
_DEFAULT_TOL = 1e-8


def _content_hash(problem):
    """A digest of the problem's content (its arrays and sizes), which a
    ``Result`` keeps so that a gradient is never taken at another
    problem's answer."""
    h = hashlib.blake2b(digest_size=16)
    for item in problem._c():
        if isinstance(item, np.ndarray):
            h.update(f"{item.dtype.str}{item.shape}".encode())
            h.update(np.ascontiguousarray(item).tobytes())
        else:
            h.update(repr(item).encode())
        h.update(b"|")
    return h.hexdigest()


@dataclasses.dataclass(frozen=True)
class Gradients:
    """The gradients of ``<gx, x>`` on a problem's data (``lcplab.vjp``).

    Attributes
    ----------
    A : ndarray or scipy.sparse.csr_matrix
        On A's layout: n x n for a dense problem; for a CSR one a
        ``csr_matrix`` on A's pattern (scipy installed), else the nnz
        values in the order of ``problem.data``.
    b, lo, hi, mu : ndarray
        n values each (``lo``, ``hi`` nonzero only on rows held at that
        bound; ``mu`` only on sliding findex rows and, at its normal row,
        on a sliding cone).
    modes : ndarray
        Each row's mode (uint8): 0 free (a cone: sticking), 1 at its lower
        bound (a cone: separated), 2 at its upper bound, 3 a sliding cone's
        row, plus 4 where the row is degenerate (docs/gradients.md,
        "Degenerate rows: the one-sided choice").
    degenerate : int
        How many rows are degenerate.
    unconverged : bool
        True when taken at an answer the judge did not accept
        (``allow_unconverged=True``).
    M, H : CsrMatrix or None
        For a problem condensed from a global one (``Problem.from_global``,
        a global file): the gradients on the stored entries of M and H (the
        same patterns), through W = H' M^-1 H and q = w + H' M^-1 f
        (docs/gradients.md, "Global problems"); else None.
    f, w : ndarray or None
        The same for f (ndof) and w (n).
    """

    A: object
    b: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    mu: np.ndarray
    modes: np.ndarray
    degenerate: int
    unconverged: bool = False
    M: object = None
    H: object = None
    f: object = None
    w: object = None


def _answer(problem, result, allow_unconverged):
    """(x, tol) of result after the checks that it is problem's accepted
    answer."""
    from ._solve import Status, _check_problem
    _check_problem(problem)
    x = getattr(result, "x", None)
    if not isinstance(x, np.ndarray) or x.shape != (problem.n,):
        raise InvalidProblemError(f"result: expected a Result with x of shape ({problem.n},)")
    digest = getattr(result, "problem_hash", None)
    if digest is not None and digest != _content_hash(problem):
        raise InvalidProblemError("result: it is the answer of another problem "
                                  "(its problem_hash differs)")
    if result.status != Status.CONVERGED and not allow_unconverged:
        raise Error(f"result: the judge did not accept this answer (status "
                    f"{result.status_str}); a gradient there is refused unless asked for "
                    f"with allow_unconverged=True", Status(result.status))
    tol = getattr(result, "tol", None)
    return np.ascontiguousarray(x, dtype=np.float64), _DEFAULT_TOL if tol is None else tol


def _vector(v, n, name):
    if v is None:
        return None
    a = np.asarray(v)
    if np.iscomplexobj(a) or a.shape != (n,):
        raise InvalidProblemError(f"{name}: expected {n} real values, got shape {a.shape}")
    return np.ascontiguousarray(a, dtype=np.float64)


def _seed_on_pattern(problem, dA):
    """dA of a CSR problem as its nnz values on the problem's pattern."""
    nnz = len(problem.data)
    if hasattr(dA, "tocsr"):
        M = dA.tocsr()
        if M.shape != (problem.n, problem.n):
            raise InvalidProblemError(f"dA: shape {M.shape}, expected {(problem.n, problem.n)}")
        rows = np.repeat(np.arange(problem.n), np.diff(problem.indptr))
        vals = np.asarray(M[rows, problem.indices]).ravel()
        total = abs(M).sum()
        if total - np.abs(vals).sum() > 1e-12 * total:
            raise InvalidProblemError("dA: has entries outside A's sparsity pattern")
        return np.ascontiguousarray(vals, dtype=np.float64)
    return _vector(dA, nnz, "dA (the nnz values on A's pattern)")


def _seed_a(problem, dA):
    if dA is None:
        return None
    if problem.storage == "csr":
        return _seed_on_pattern(problem, dA)
    a = np.asarray(dA)
    if np.iscomplexobj(a) or a.shape != (problem.n, problem.n):
        raise InvalidProblemError(f"dA: expected shape {(problem.n, problem.n)}, got {a.shape}")
    return np.asfortranarray(a, dtype=np.float64)


def _check(out, what):
    if isinstance(out, tuple):
        from ._solve import _raise_for
        _raise_for(out[0], out[1], what)
    return out


def jvp(problem, result, dA=None, db=None, dlo=None, dhi=None, dmu=None, *,
        allow_unconverged=False):
    """The derivative of a solve's answer along a change of the problem.

    Implicit differentiation of the complementarity conditions at
    ``result.x`` with each row's mode held (docs/gradients.md): free rows
    keep ``w_i = 0``, rows at a bound stay there.

    Parameters
    ----------
    problem : Problem
        The problem ``result`` answers (LCP, box, findex rows, Coulomb cones
        of either law).
    result : Result
        ``lcplab.solve(problem, ...)``'s result; the judge must have
        accepted it (``converged``) unless ``allow_unconverged=True``.
    dA : array_like or sparse matrix, optional
        The change of A: n x n for a dense problem; for a CSR one a sparse
        matrix on A's pattern or its nnz values in the order of
        ``problem.data``.
    db, dlo, dhi, dmu : array_like, optional
        The changes of b, the bounds and the friction coefficients (n each;
        a findex row's mu at its row, a cone's at its first, normal, row).
    allow_unconverged : bool, optional
        Take the derivative at an answer the judge did not accept.

    Returns
    -------
    ndarray
        dx, n values.

    Raises
    ------
    Error
        The answer was not accepted; InvalidProblemError for a seed of the
        wrong shape, with NaN or inf, or a result of another problem.

    Examples
    --------
    >>> import numpy as np, lcplab
    >>> p = lcplab.Problem(np.array([[2.0, 1.0], [1.0, 2.0]]), [-1.0, -1.0])
    >>> r = lcplab.solve(p, "lemke", tol=1e-12)
    >>> np.round(lcplab.jvp(p, r, db=[1.0, 0.0]), 6)
    array([-0.666667,  0.333333])
    """
    x, tol = _answer(problem, result, allow_unconverged)
    n = problem.n
    out = _lcplab.sensitivity_jvp(problem._c(), x, float(tol), _seed_a(problem, dA),
                                  _vector(db, n, "db"), _vector(dlo, n, "dlo"),
                                  _vector(dhi, n, "dhi"), _vector(dmu, n, "dmu"))
    return _check(out, "jvp")["dx"]


def _a_gradient(problem, gA):
    if problem.storage != "csr":
        return gA
    try:
        import scipy.sparse
    except ImportError:
        return gA
    return scipy.sparse.csr_matrix((gA, problem.indices.copy(), problem.indptr.copy()),
                                   shape=(problem.n, problem.n))


def vjp(problem, result, gx, *, allow_unconverged=False):
    """The gradients of ``<gx, x>`` on the problem's data at a solve's answer.

    The reverse of ``jvp``: for every seed d, ``<gx, jvp(d)>`` equals the
    sum of the gradients' products with d's parts (docs/gradients.md).

    Parameters
    ----------
    problem : Problem
        The problem ``result`` answers.
    result : Result
        Its accepted answer (``allow_unconverged=True`` for another).
    gx : array_like
        The cotangent on x, n values.
    allow_unconverged : bool, optional
        Take the gradient at an answer the judge did not accept (the
        result's ``unconverged`` then says so).

    Returns
    -------
    Gradients
        A, b, lo, hi, mu, the row modes and the degenerate count.

    Examples
    --------
    >>> import numpy as np, lcplab
    >>> p = lcplab.Problem(np.array([[2.0, 1.0], [1.0, 2.0]]), [-1.0, -1.0])
    >>> r = lcplab.solve(p, "lemke", tol=1e-12)
    >>> np.round(lcplab.vjp(p, r, [1.0, 0.0]).b, 6)
    array([-0.666667,  0.333333])
    """
    x, tol = _answer(problem, result, allow_unconverged)
    g = _vector(gx, problem.n, "gx")
    if g is None:
        raise InvalidProblemError("gx: expected n real values, got None")
    d = _check(_lcplab.sensitivity_vjp(problem._c(), x, float(tol), g), "vjp")
    glob = _global_gradients(problem, x, d["b"])
    return Gradients(A=_a_gradient(problem, d["A"]), b=d["b"], lo=d["lo"], hi=d["hi"],
                     mu=d["mu"], modes=d["modes"], degenerate=d["degenerate"],
                     unconverged=not result.converged, **glob)


def _global_gradients(problem, x, gq):
    """{M, H, f, w} of a problem condensed from a global one, from the
    gradient gq on q = b (libsolvers' slv_sensitivity_global_vjp: with
    lam = -gq, v = M^-1 (H x + f) and y = M^-1 H lam, gM = y v',
    gH = -(v lam' + y x'), gf = -y, gw = -lam on the stored entries); {}
    for another problem."""
    g = getattr(problem, "_global", None)
    if g is None:
        return {}
    from ._problem import CsrMatrix
    nd = g[0]
    out = _lcplab.global_vjp(g, problem.n, np.ascontiguousarray(x, dtype=np.float64),
                             np.ascontiguousarray(gq, dtype=np.float64))
    if isinstance(out[0], int):
        raise Error(f"vjp: {out[1]}")
    gM, gH, gf, gw = out
    return {"M": CsrMatrix((nd, nd), g[1], g[2], gM),
            "H": CsrMatrix((nd, problem.n), g[4], g[5], gH), "f": gf, "w": gw}
