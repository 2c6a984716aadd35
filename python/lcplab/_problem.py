"""lcplab.Problem: one complementarity problem, the Python side of
``slv_problem`` (libsolvers/slv.h; docs/problem.md)."""

import collections
import numbers

import numpy as np

from . import _lcplab
from ._errors import InvalidProblemError

__all__ = ["Problem"]

_INT32_MAX = np.iinfo(np.int32).max
_CONE_LAWS = ("coulomb", "associated")


def _is_sparse(A):
    """A scipy.sparse matrix or array, without importing scipy."""
    return type(A).__module__.startswith("scipy.sparse") and hasattr(A, "tocsr")


def _readonly(a):
    a.setflags(write=False)
    return a


def _vector(value, n, name, dtype, default):
    if value is None:
        return _readonly(np.full(n, default, dtype=dtype))
    try:
        a = np.array(value, dtype=dtype, copy=True)
    except (TypeError, ValueError) as e:
        raise InvalidProblemError(f"Problem: {name} must be numbers: {e}") from None
    if a.ndim != 1 or a.shape[0] != n:
        raise InvalidProblemError(f"Problem: {name} has shape {a.shape}, expected ({n},)")
    return _readonly(a)


def _int_vector(value, n, name):
    a = np.asarray(value)
    if a.ndim != 1 or a.shape[0] != n:
        raise InvalidProblemError(f"Problem: {name} has shape {a.shape}, expected ({n},)")
    if a.size and not (np.issubdtype(a.dtype, np.integer) or
                       (np.issubdtype(a.dtype, np.floating) and np.all(a == np.round(a)))):
        raise InvalidProblemError(f"Problem: {name} must hold integers, got dtype {a.dtype}")
    if a.size and (a.min() < -1 or a.max() > _INT32_MAX):
        raise InvalidProblemError(f"Problem: {name} values must lie in [-1, {_INT32_MAX}]")
    return _readonly(a.astype(np.int32, copy=True))


class CsrMatrix(collections.namedtuple("CsrMatrix", "shape indptr indices data")):
    """A read-only sparse matrix in CSR (``indptr``, ``indices``, ``data``,
    as scipy.sparse.csr_matrix holds one) of the given ``shape``: the M and H
    of a global problem (``Problem.M``, ``Problem.H``)."""

    __slots__ = ()

    def toarray(self):
        """The matrix as a new dense array (duplicates summed)."""
        a = np.zeros(self.shape)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        np.add.at(a, (rows, self.indices), self.data)
        return a


class GlobalProblem(collections.namedtuple("GlobalProblem", "M H f w")):
    """The global frictional-contact problem a ``Problem`` was condensed
    from (``Problem.global_problem``):  M v = H r + f,  u = H' v + w, with
    ``M`` (ndof x ndof) and ``H`` (ndof x n) as ``CsrMatrix``, ``f`` (ndof)
    and ``w`` (n) read-only arrays."""

    __slots__ = ()


class Problem:
    """A boxed linear complementarity problem, with optional friction index
    and Coulomb cones.

    Find x with ``w = A x + b`` such that, row by row::

        x_i = lo_i          =>  w_i >= 0
        x_i = hi_i          =>  w_i <= 0
        lo_i < x_i < hi_i   =>  w_i  = 0

    (the sign convention of docs/problem.md, "Sign convention"). The
    standard LCP is ``lo = 0, hi = +inf``; a free (joint) row is
    ``lo = -inf, hi = +inf``.

    Parameters
    ----------
    A : (n, n) array_like or scipy.sparse matrix
        The matrix. A dense array is stored column-major; a scipy.sparse
        matrix (any format, when scipy is installed) is stored in CSR, with
        duplicates summed and indices sorted.
    b : (n,) array_like
        The constant term.
    lo, hi : (n,) array_like, optional
        Bounds; ``-inf`` / ``+inf`` allowed. Default 0 and ``+inf``.
    findex : (n,) array_like of int, optional
        Friction index (ODE's): ``findex[i] = j >= 0`` makes row i a
        friction row of the normal row j, with bounds ``-mu[i] |x_j| ..
        mu[i] |x_j|`` at the solution (its own lo, hi are ignored); -1 for
        the other rows. docs/problem.md, "Friction index".
    mu : (n,) array_like, optional
        Friction coefficients of the findex rows; required with findex.
    cones : sequence of (first_row, mu) pairs, optional
        Coulomb cones: rows first_row (normal), first_row + 1 and
        first_row + 2 (tangents) form one contact with friction
        coefficient mu; first rows increasing, cones not overlapping.
        Their lo, hi are ignored. docs/problem.md, "Cones".
    cone_law : {"coulomb", "associated"}, optional
        What a cone means: Coulomb's law in De Saxce's form (FCLIB, Siconos
        FC3D; the default) or the associated cone (CCP).

    Raises
    ------
    InvalidProblemError
        A shape, dtype or value is wrong; the message names the field and
        the index, as the library's validation does (``"Problem: lo[3]=2 >
        hi[3]=1"``).

    Notes
    -----
    The problem keeps its own read-only copies of the arrays, so that a
    solve with the GIL released reads data no other thread is changing.

    A problem read from a global frictional-contact file (FCLIB
    ``/fclib_global``, Siconos gfc3d ``.dat``; docs/problem.md, "Global
    problems") is the condensed local problem A = H' M^-1 H, b = w + H'
    M^-1 f, and keeps the global one beside it as ``global_problem`` (a
    ``GlobalProblem``: ``M``, ``H``, ``f``, ``w``; ``M`` and ``H`` are also
    ``Problem.M`` and ``Problem.H``); ``lcplab.write`` then writes the
    global problem (``.hdf5``, ``.dat``). Otherwise these are None.

    Examples
    --------
    >>> import numpy as np, lcplab
    >>> p = lcplab.Problem(np.array([[2.0, 1.0], [1.0, 2.0]]), [-1.0, -1.0])
    >>> r = lcplab.solve(p)
    >>> r.x
    array([0.33333333, 0.33333333])
    """

    def __init__(self, A, b, lo=None, hi=None, findex=None, mu=None, cones=None,
                 cone_law="coulomb"):
        self._set_matrix(A)
        n = self.n
        self.b = _vector(b, n, "b", np.float64, 0.0)
        self.lo = _vector(lo, n, "lo", np.float64, 0.0)
        self.hi = _vector(hi, n, "hi", np.float64, np.inf)
        if (findex is None) != (mu is None):
            raise InvalidProblemError("Problem: findex and mu come together (mu holds the "
                                      "friction coefficients of the findex rows)")
        self.findex = None if findex is None else _int_vector(findex, n, "findex")
        self.mu = None if mu is None else _vector(mu, n, "mu", np.float64, 0.0)
        self._set_cones(cones)
        if cone_law not in _CONE_LAWS:
            raise InvalidProblemError(f"Problem: cone_law must be one of {_CONE_LAWS}, "
                                      f"got {cone_law!r}")
        self.cone_law = cone_law
        self.name = None
        self.format = None
        self.x_ref = None
        self._set_global(None)
        self._tuple = None
        status, message = _lcplab.validate(self._c())
        if status != 0:
            raise InvalidProblemError(f"Problem: {message}")

    # ---- construction -------------------------------------------------------

    def _set_matrix(self, A):
        if _is_sparse(A):
            C = A.tocsr(copy=True)
            C.sum_duplicates()
            C.sort_indices()
            if C.ndim != 2 or C.shape[0] != C.shape[1]:
                raise InvalidProblemError(f"Problem: A must be square, got shape {C.shape}")
            if C.shape[0] > _INT32_MAX or C.nnz > _INT32_MAX:
                raise InvalidProblemError("Problem: A is too large for 32-bit indices")
            self.n = int(C.shape[0])
            self.storage = "csr"
            self.indptr = _readonly(np.array(C.indptr, dtype=np.int32))
            self.indices = _readonly(np.array(C.indices, dtype=np.int32))
            self.data = _readonly(np.array(C.data, dtype=np.float64))
            self._A = None
            return
        try:
            a = np.array(A, dtype=np.float64, order="F", copy=True)
        except (TypeError, ValueError) as e:
            raise InvalidProblemError(f"Problem: A must be a matrix of numbers: {e}") from None
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise InvalidProblemError(f"Problem: A must be square, got shape {a.shape}")
        if a.shape[0] > _INT32_MAX // max(1, a.shape[0]):
            raise InvalidProblemError("Problem: A is too large")
        self.n = int(a.shape[0])
        self.storage = "dense"
        self._A = _readonly(a)
        self.indptr = self.indices = self.data = None

    def _set_cones(self, cones):
        if cones is None or len(cones) == 0:
            self.cone_rows = _readonly(np.zeros(0, dtype=np.int32))
            self.cone_mu = _readonly(np.zeros(0, dtype=np.float64))
            return
        try:
            c = np.array(cones, dtype=np.float64)
        except (TypeError, ValueError):
            c = None
        if c is None or c.ndim != 2 or c.shape[1] != 2:
            raise InvalidProblemError("Problem: cones must be a sequence of (first_row, mu) "
                                      "pairs")
        rows = c[:, 0]
        if not np.all(rows == np.round(rows)) or rows.min() < 0 or rows.max() > _INT32_MAX:
            raise InvalidProblemError("Problem: cones: the first rows must be integers >= 0")
        self.cone_rows = _readonly(rows.astype(np.int32))
        self.cone_mu = _readonly(np.array(c[:, 1], dtype=np.float64))

    def _set_global(self, g):
        """M, H, f, w from the C layer's global tuple (ndof, M indptr, M
        indices, M data, H indptr, H indices, H data, f, w), or None."""
        self._global = g
        self.global_problem = None
        if g is None:
            return
        g = tuple(_readonly(a) if isinstance(a, np.ndarray) else a for a in g)
        self._global = g
        nd = g[0]
        self.global_problem = GlobalProblem(CsrMatrix((nd, nd), g[1], g[2], g[3]),
                                            CsrMatrix((nd, self.n), g[4], g[5], g[6]), g[7], g[8])

    @property
    def M(self):
        """The global problem's M (a ``CsrMatrix``), or None."""
        return self.global_problem.M if self.global_problem else None

    @property
    def H(self):
        """The global problem's H (a ``CsrMatrix``), or None."""
        return self.global_problem.H if self.global_problem else None

    @classmethod
    def _from_c(cls, t, name=None, fmt=None, x_ref=None, glob=None):
        """A Problem over the arrays of a problem tuple made by the C layer
        (a file's instance, a world's step): no copy, then validated."""
        p = cls.__new__(cls)
        (n, storage, A, indptr, indices, data, b, lo, hi, findex, mu, cone_rows, cone_mu,
         law) = t
        p.n = n
        p.storage = "csr" if storage == 1 else "dense"
        p._A = None if A is None else _readonly(A)
        p.indptr = None if indptr is None else _readonly(indptr)
        p.indices = None if indices is None else _readonly(indices)
        p.data = None if data is None else _readonly(data)
        p.b, p.lo, p.hi = _readonly(b), _readonly(lo), _readonly(hi)
        p.findex = None if findex is None else _readonly(findex)
        p.mu = None if mu is None else _readonly(mu)
        p.cone_rows = _readonly(cone_rows if cone_rows is not None
                                else np.zeros(0, dtype=np.int32))
        p.cone_mu = _readonly(cone_mu if cone_mu is not None else np.zeros(0))
        p.cone_law = _CONE_LAWS[law]
        p.name, p.format = name, fmt
        p.x_ref = None if x_ref is None else _readonly(x_ref)
        p._set_global(glob)
        p._tuple = None
        status, message = _lcplab.validate(p._c())
        if status != 0:
            raise InvalidProblemError(f"Problem: {message}")
        return p

    def _c(self):
        """The tuple the C layer reads (python/ext/lcplab_ext.h)."""
        if self._tuple is None:
            has_cones = self.cone_rows.size > 0
            self._tuple = (self.n, 1 if self.storage == "csr" else 0, self._A, self.indptr,
                           self.indices, self.data, self.b, self.lo, self.hi, self.findex,
                           self.mu, self.cone_rows if has_cones else None,
                           self.cone_mu if has_cones else None,
                           _CONE_LAWS.index(self.cone_law), self._global is not None)
        return self._tuple

    # ---- views ----------------------------------------------------------------

    @property
    def A(self):
        """The matrix: the dense (n, n) array, or a ``scipy.sparse.csr_matrix``
        over the CSR arrays (``indptr``, ``indices``, ``data``) when the
        storage is CSR (scipy needed then)."""
        if self.storage == "dense":
            return self._A
        import scipy.sparse
        return scipy.sparse.csr_matrix((self.data, self.indices, self.indptr),
                                       shape=(self.n, self.n))

    def to_dense(self):
        """The matrix as a new dense (n, n) array, whatever the storage."""
        if self.storage == "dense":
            return np.array(self._A)
        D = np.zeros((self.n, self.n))
        for i in range(self.n):
            lo, hi = self.indptr[i], self.indptr[i + 1]
            np.add.at(D[i], self.indices[lo:hi], self.data[lo:hi])
        return D

    @property
    def ncones(self):
        """The number of Coulomb cones."""
        return int(self.cone_rows.size)

    @property
    def cones(self):
        """The cones as a list of (first_row, mu) pairs."""
        return [(int(r), float(m)) for r, m in zip(self.cone_rows, self.cone_mu)]

    @property
    def kind(self):
        """``"lcp"``, ``"mlcp"``, ``"blcp"``, ``"findex"`` or ``"cone"``: the
        I/O library's classification (the first that holds: cones, friction
        rows, lo = 0 and hi = inf everywhere, only LCP and free rows,
        anything else)."""
        return _lcplab.kind(self._c())

    def w(self, x):
        """``A x + b`` for a vector x of size n."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (self.n,):
            raise ValueError(f"x has shape {x.shape}, expected ({self.n},)")
        if self.storage == "dense":
            return self._A @ x + self.b
        w = np.array(self.b)
        for i in range(self.n):
            lo, hi = self.indptr[i], self.indptr[i + 1]
            w[i] += self.data[lo:hi] @ x[self.indices[lo:hi]]
        return w

    def residuals(self, x, w=None):
        """The library's accuracy measures of any x, the numbers every solve
        reports (``Result.residuals``; docs/problem.md, "Residuals").

        Parameters
        ----------
        x : (n,) array_like
            A candidate solution, from any solver.
        w : (n,) array_like, optional
            ``A x + b`` if already known; recomputed when omitted.

        Returns
        -------
        Residuals
        """
        from ._solve import Residuals
        x = np.ascontiguousarray(x, dtype=np.float64)
        w = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
        for name, v in (("x", x), ("w", w)):
            if v is not None and v.shape != (self.n,):
                raise ValueError(f"{name} has shape {v.shape}, expected ({self.n},)")
        return Residuals(**_lcplab.residual(self._c(), x, w))

    def __repr__(self):
        name = f", name={self.name!r}" if self.name else ""
        return (f"Problem(n={self.n}, storage={self.storage!r}, kind={self.kind!r}, "
                f"ncones={self.ncones}{name})")


def _check_problem(problem):
    if not isinstance(problem, Problem):
        raise TypeError(f"expected an lcplab.Problem, got {type(problem).__name__}")
    return problem


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)
