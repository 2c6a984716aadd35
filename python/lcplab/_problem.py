"""lcplab.Problem: one complementarity problem, the Python side of
``slv_problem`` (libsolvers/slv.h; docs/problem.md)."""

import collections
import ctypes
import numbers

import numpy as np

from . import _contactbench, _lcplab
from ._errors import InvalidProblemError

__all__ = ["Problem"]

_INT32_MAX = np.iinfo(np.int32).max
_CONE_LAWS = ("coulomb", "associated")


def _is_sparse(A):
    """A scipy.sparse matrix or array, without importing scipy."""
    return type(A).__module__.startswith("scipy.sparse") and hasattr(A, "tocsr")


def _refuse_complex(value, what, error=InvalidProblemError):
    """Raise error naming what when value holds complex numbers: numpy's
    conversion to float64 would drop the imaginary parts with only a
    warning, and a problem, a start or a candidate x is real."""
    if np.iscomplexobj(value):
        dtype = value.dtype if hasattr(value, "dtype") else np.asarray(value).dtype
        raise error(f"{what} holds complex numbers (dtype {dtype}): lcplab's problems are real "
                    f"(pass numpy.real(...) explicitly if the real part is meant)")


def _readonly(a):
    """A read-only view of a read-only a: the view cannot be made writable
    again (numpy refuses setflags(write=True) on a view of a read-only
    base), so a Problem's arrays stay what was validated."""
    a.setflags(write=False)
    v = a.view()
    v.setflags(write=False)
    return v


def _readonly_or_none(a):
    return None if a is None else _readonly(a)


def _vector(value, n, name, dtype, default):
    if value is None:
        return _readonly(np.full(n, default, dtype=dtype))
    _refuse_complex(value, f"Problem: {name}")
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


def _csr(X, what):
    """X (a scipy.sparse matrix or a dense array) as CSR arrays (int32
    indptr, int32 indices, float64 data; duplicates summed, indices
    sorted) and its shape."""
    if _is_sparse(X):
        C = X.tocsr(copy=True)
        C.sum_duplicates()
        C.sort_indices()
        if C.shape[0] > _INT32_MAX or C.shape[1] > _INT32_MAX or C.nnz > _INT32_MAX:
            raise InvalidProblemError(f"global problem: {what} is too large for 32-bit indices")
        return (_readonly(np.array(C.indptr, dtype=np.int32)),
                _readonly(np.array(C.indices, dtype=np.int32)),
                _readonly(np.array(C.data, dtype=np.float64)), C.shape)
    try:
        a = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InvalidProblemError(f"global problem: {what} must be a matrix of numbers: "
                                  f"{e}") from None
    if a.ndim != 2 or a.shape[0] > _INT32_MAX or a.shape[1] > _INT32_MAX:
        raise InvalidProblemError(f"global problem: {what} must be a matrix, got shape "
                                  f"{a.shape}")
    rows, cols = np.nonzero(a != 0.0)  # row-major: rows sorted, columns sorted within
    indptr = np.zeros(a.shape[0] + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=a.shape[0]), out=indptr[1:])
    return (_readonly(indptr), _readonly(cols.astype(np.int32)),
            _readonly(a[rows, cols].astype(np.float64)), a.shape)


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
    A problem is immutable: it keeps its own read-only copies of the
    arrays (views that cannot be made writable again) and its fields have
    no setters, so what it reads is what a solve solves, and a solve with
    the GIL released reads data no other thread is changing.
    ``p.replace(b=...)`` makes a new, validated problem. Only ``name`` and
    ``x_ref`` (annotations a solve does not read) may be set.

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

    __slots__ = ("_n", "_storage", "_A", "_indptr", "_indices", "_data", "_b", "_lo", "_hi",
                 "_findex", "_mu", "_cone_rows", "_cone_mu", "_cone_law", "_name", "_format",
                 "_x_ref", "_global", "_global_problem", "_tuple")

    # the fields replace() takes, in the constructor's order
    _FIELDS = ("A", "b", "lo", "hi", "findex", "mu", "cones", "cone_law")

    def __init__(self, A, b, lo=None, hi=None, findex=None, mu=None, cones=None,
                 cone_law="coulomb"):
        self._set_matrix(A)
        self._set_vectors(b, lo, hi, findex, mu, cones, cone_law)
        self._finish()

    def __setattr__(self, name, value):
        # the slots are written through object.__setattr__ (_put) only while
        # a problem is built; afterwards only the two annotations, which a
        # solve does not read, may change (docs/python.md, "Problems are
        # immutable")
        if name in ("name", "x_ref"):
            object.__setattr__(self, name, value)
            return
        hint = (f"p.replace({name}=...) makes a new, validated problem"
                if name in self._FIELDS else "only name and x_ref may be set")
        raise AttributeError(f"lcplab.Problem is immutable: {name} cannot be set; {hint}")

    def _put(self, **fields):
        for key, value in fields.items():
            object.__setattr__(self, "_" + key, value)

    # ---- construction -------------------------------------------------------

    def _set_matrix(self, A):
        _refuse_complex(A, "Problem: A")
        if _is_sparse(A):
            C = A.tocsr(copy=True)
            C.sum_duplicates()
            C.sort_indices()
            if C.ndim != 2 or C.shape[0] != C.shape[1]:
                raise InvalidProblemError(f"Problem: A must be square, got shape {C.shape}")
            if C.shape[0] > _INT32_MAX or C.nnz > _INT32_MAX:
                raise InvalidProblemError("Problem: A is too large for 32-bit indices")
            self._put(n=int(C.shape[0]), storage="csr", A=None,
                      indptr=_readonly(np.array(C.indptr, dtype=np.int32)),
                      indices=_readonly(np.array(C.indices, dtype=np.int32)),
                      data=_readonly(np.array(C.data, dtype=np.float64)))
            return
        try:
            a = np.array(A, dtype=np.float64, order="F", copy=True)
        except (TypeError, ValueError) as e:
            raise InvalidProblemError(f"Problem: A must be a matrix of numbers: {e}") from None
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise InvalidProblemError(f"Problem: A must be square, got shape {a.shape}")
        if a.shape[0] > _INT32_MAX // max(1, a.shape[0]):
            raise InvalidProblemError("Problem: A is too large")
        self._put(n=int(a.shape[0]), storage="dense", A=_readonly(a), indptr=None, indices=None,
                  data=None)

    def _set_vectors(self, b, lo, hi, findex, mu, cones, cone_law):
        n = self._n
        if (findex is None) != (mu is None):
            raise InvalidProblemError("Problem: findex and mu come together (mu holds the "
                                      "friction coefficients of the findex rows)")
        if cone_law not in _CONE_LAWS:
            raise InvalidProblemError(f"Problem: cone_law must be one of {_CONE_LAWS}, "
                                      f"got {cone_law!r}")
        self._put(b=_vector(b, n, "b", np.float64, 0.0), lo=_vector(lo, n, "lo", np.float64, 0.0),
                  hi=_vector(hi, n, "hi", np.float64, np.inf),
                  findex=None if findex is None else _int_vector(findex, n, "findex"),
                  mu=None if mu is None else _vector(mu, n, "mu", np.float64, 0.0),
                  cone_law=cone_law, name=None, format=None, x_ref=None)
        self._set_cones(cones)
        self._set_global(None)

    def _set_cones(self, cones):
        if cones is None or len(cones) == 0:
            self._put(cone_rows=_readonly(np.zeros(0, dtype=np.int32)),
                      cone_mu=_readonly(np.zeros(0, dtype=np.float64)))
            return
        _refuse_complex(cones, "Problem: cones")
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
        self._put(cone_rows=_readonly(rows.astype(np.int32)),
                  cone_mu=_readonly(np.array(c[:, 1], dtype=np.float64)))

    def _set_global(self, g):
        """M, H, f, w from the C layer's global tuple (ndof, M indptr, M
        indices, M data, H indptr, H indices, H data, f, w), or None."""
        if g is None:
            self._put(**{"global": None, "global_problem": None})
            return
        g = tuple(_readonly(a) if isinstance(a, np.ndarray) else a for a in g)
        nd = g[0]
        gp = GlobalProblem(CsrMatrix((nd, nd), g[1], g[2], g[3]),
                           CsrMatrix((nd, self._n), g[4], g[5], g[6]), g[7], g[8])
        self._put(**{"global": g, "global_problem": gp})

    def _finish(self):
        """The tuple the C layer reads (python/ext/lcplab_ext.h), made once:
        nothing it holds can change afterwards; then the library's
        validation."""
        has_cones = self._cone_rows.size > 0
        self._put(tuple=(self._n, 1 if self._storage == "csr" else 0, self._A, self._indptr,
                         self._indices, self._data, self._b, self._lo, self._hi, self._findex,
                         self._mu, self._cone_rows if has_cones else None,
                         self._cone_mu if has_cones else None,
                         _CONE_LAWS.index(self._cone_law), self._global is not None))
        status, message = _lcplab.validate(self._tuple)
        if status != 0:
            raise InvalidProblemError(f"Problem: {message}")

    @classmethod
    def _from_c(cls, t, name=None, fmt=None, x_ref=None, glob=None):
        """A Problem over the arrays of a problem tuple made by the C layer
        (a file's instance, a world's step): no copy, then validated."""
        p = cls.__new__(cls)
        (n, storage, A, indptr, indices, data, b, lo, hi, findex, mu, cone_rows, cone_mu,
         law) = t[:14]
        p._put(n=n, storage="csr" if storage == 1 else "dense", A=_readonly_or_none(A),
               indptr=_readonly_or_none(indptr), indices=_readonly_or_none(indices),
               data=_readonly_or_none(data), b=_readonly(b), lo=_readonly(lo), hi=_readonly(hi),
               findex=_readonly_or_none(findex), mu=_readonly_or_none(mu),
               cone_rows=_readonly(cone_rows if cone_rows is not None
                                   else np.zeros(0, dtype=np.int32)),
               cone_mu=_readonly(cone_mu if cone_mu is not None else np.zeros(0)),
               cone_law=_CONE_LAWS[law], name=name, format=fmt, x_ref=None)
        p._set_global(glob)
        p._finish()
        p.x_ref = x_ref
        return p

    def replace(self, **changes):
        """A new problem with some fields changed, validated as a new one.

        A Problem cannot be changed in place (its arrays are read-only and
        its fields have no setters), so that what it reads is what a solve
        solves; this is the way to a changed one.

        Parameters
        ----------
        **changes
            Any of the constructor's arguments: ``A``, ``b``, ``lo``,
            ``hi``, ``findex``, ``mu``, ``cones``, ``cone_law``; the others
            keep their values. ``findex=None, mu=None`` removes the
            friction rows, ``cones=[]`` the cones.

        Returns
        -------
        Problem
            Without ``name``, ``format``, ``x_ref`` and the global problem,
            which described the old data.

        Raises
        ------
        InvalidProblemError
            The new problem is invalid (the message names the field).
        TypeError
            An unknown field.

        Examples
        --------
        >>> import numpy as np, lcplab
        >>> p = lcplab.Problem(np.eye(2), [-1.0, 1.0])
        >>> lcplab.solve(p.replace(b=[-3.0, 2.0]), "pgs").x
        array([3., 0.])
        """
        unknown = sorted(set(changes) - set(self._FIELDS))
        if unknown:
            raise TypeError(f"replace() got unknown fields {unknown} (fields: "
                            f"{', '.join(self._FIELDS)})")
        q = type(self).__new__(type(self))
        if "A" in changes:
            q._set_matrix(changes["A"])
        else:  # the read-only matrix arrays are shared
            q._put(n=self._n, storage=self._storage, A=self._A, indptr=self._indptr,
                   indices=self._indices, data=self._data)
        old = dict(b=self._b, lo=self._lo, hi=self._hi, findex=self._findex, mu=self._mu,
                   cones=self.cones, cone_law=self._cone_law)
        old.update((k, v) for k, v in changes.items() if k != "A")
        q._set_vectors(**old)
        q._finish()
        return q

    # ---- global problems (docs/problem.md, "Global problems") --------------------

    @classmethod
    def from_global(cls, M, H, f, w, mu, *, cone_law="coulomb", name=None):
        """A problem from a global frictional-contact problem built in
        memory (FCLIB's global form, Siconos' gfc3d):

            M v = H r + f,      u = H' v + w,      (u, r) on Coulomb's cones

        condensed by the library as its readers condense a file's
        (``W = H' M^-1 H``, ``q = w + H' M^-1 f``, one cone per contact at
        rows 3c..3c+2, normal first), the global problem kept beside it:
        every writer of global problems (``.hdf5`` FCLIB, ``.dat`` Siconos
        gfc3d) writes it, and reading the file back gives the same
        problem.

        Parameters
        ----------
        M : (ndof, ndof) array_like or scipy.sparse matrix
            Symmetric positive definite.
        H : (ndof, 3 nc) array_like or scipy.sparse matrix
        f : (ndof,) array_like
        w : (3 nc,) array_like
        mu : (nc,) array_like
            Friction coefficients, >= 0.
        cone_law : {"coulomb", "associated"}, optional
        name : str, optional

        Returns
        -------
        Problem
            ``global_problem`` (``M``, ``H``, ``f``, ``w``) set.

        Raises
        ------
        InvalidProblemError
            A shape, a non-finite value, mu < 0, an M that is not symmetric
            positive definite (the message names the field and index).

        Examples
        --------
        >>> import numpy as np, lcplab
        >>> # one body of unit mass moving into a contact at 1 m/s
        >>> p = lcplab.Problem.from_global(np.eye(3), np.eye(3), [-1.0, 0.0, 0.0],
        ...                                np.zeros(3), [0.5])
        >>> p.b, p.kind
        (array([-1.,  0.,  0.]), 'cone')
        >>> float(lcplab.solve(p, "nsgs").x[0])       # the impulse that stops it
        1.0
        """
        _refuse_complex(M, "global problem: M")
        _refuse_complex(H, "global problem: H")
        Mp, Mj, Mx, (nd, nd2) = _csr(M, "M")
        Hp, Hj, Hx, (hr, n) = _csr(H, "H")
        if nd != nd2 or hr != nd:
            raise InvalidProblemError(f"global problem: M {(nd, nd2)} must be square and H "
                                      f"{(hr, n)} have as many rows")
        if n % 3 != 0:
            raise InvalidProblemError(f"global problem: H has {n} columns, expected 3 a contact")
        g = (nd, Mp, Mj, Mx, Hp, Hj, Hx, _vector(f, nd, "f", np.float64, 0.0),
             _vector(w, n, "w", np.float64, 0.0))
        mu = _vector(mu, n // 3, "mu", np.float64, 0.0)
        name = "global problem" if name is None else str(name)
        t = _lcplab.from_global(g, n, np.ascontiguousarray(mu), name)
        if isinstance(t[0], int):
            raise InvalidProblemError(t[1])
        if cone_law not in _CONE_LAWS:
            raise InvalidProblemError(f"Problem: cone_law must be one of {_CONE_LAWS}, "
                                      f"got {cone_law!r}")
        local = t[0][:13] + (_CONE_LAWS.index(cone_law),) + t[0][14:]
        return cls._from_c(local, name=name, glob=t[1])

    # ---- ContactBench (docs/python.md, "ContactBench") -------------------------

    @classmethod
    def from_contactbench(cls, G, g, mus):
        """A problem from ContactBench's arrays, in memory.

        ContactBench (Simple-Robotics) states one frictional contact problem
        as ``c = G lambda + g`` with Coulomb's law and De Saxce's
        correction, each contact's three rows ordered (t1, t2, n): the
        normal last. The problem made here is lcplab's form of it, the
        normal first: one Coulomb cone per contact at rows 3c..3c+2, the
        rows permuted as the ``.npz`` reader does (``lcplab.read`` of a
        file holding the same G, g, mus gives the same problem).

        Parameters
        ----------
        G : (3 nc, 3 nc) array_like or scipy.sparse matrix
            The Delassus matrix; a scipy.sparse one (any format) makes a
            CSR problem.
        g : (3 nc,) or (3 nc, 1) array_like (or scipy.sparse)
            The free velocity.
        mus : (nc,) array_like
            One friction coefficient per contact (>= 0).

        Float16, float32 and integer arrays are converted to float64 (each
        value to the double it equals).

        Returns
        -------
        Problem
            Dense (CSR for a sparse G), ``kind == "cone"``;
            ``to_contactbench_order(x)`` takes
            its solutions back to ContactBench's order.

        Raises
        ------
        InvalidProblemError
            A shape, a dtype, a non-finite value or a negative mu; the
            message names the array and the index.

        Examples
        --------
        >>> import numpy as np, lcplab
        >>> G = np.diag([1.0, 1.0, 2.0])            # rows (t1, t2, n)
        >>> p = lcplab.Problem.from_contactbench(G, [1.0, 0.0, -1.0], [0.5])
        >>> p.to_dense()[0, 0], p.b                 # rows (n, t1, t2)
        (2.0, array([-1.,  1.,  0.]))
        >>> lam = p.to_contactbench_order(lcplab.solve(p, "nsgs").x)
        >>> lam[0], lam[2]                          # sliding: lambda_t1 = -mu lambda_n
        (-0.25, 0.5)
        """
        A, b, lo, hi, cones = _contactbench.problem_arrays(G, g, mus)
        return cls(A, b, lo=lo, hi=hi, cones=cones)

    def to_contactbench(self):
        """The problem as ContactBench's ``(G, g, mus)``, each contact's
        normal last (the inverse of ``from_contactbench``).

        Returns
        -------
        G : (n, n) ndarray
        g : (n,) ndarray
            1-D (ContactBench's own ``.npz`` files hold it as (n, 1), which
            ``from_contactbench`` and ``lcplab.read`` accept too).
        mus : (nc,) ndarray

        Raises
        ------
        UnsupportedError
            A row outside the cones, or the associated law: ContactBench's
            problems have a Coulomb cone on every row.
        """
        return _contactbench.contactbench_arrays(self)

    def to_contactbench_order(self, x):
        """A vector of this problem in lcplab's order (a solution x, its w,
        a residual) in ContactBench's: ``lambda`` from ``x``, ``c`` from
        ``w``. UnsupportedError unless every row is in a Coulomb cone."""
        return _contactbench.order(self, x)

    def from_contactbench_order(self, v):
        """A vector in ContactBench's order (a guess ``lambda``) in lcplab's,
        e.g. a warm start for ``solve``. UnsupportedError unless every row
        is in a Coulomb cone."""
        return _contactbench.to_lcplab_order(self, v)

    def __reduce__(self):
        return (_rebuild, (self._tuple, self._name, self._format, self._x_ref, self._global))

    def _c(self):
        """The tuple the C layer reads (python/ext/lcplab_ext.h)."""
        return self._tuple

    # ---- fields (read-only) ---------------------------------------------------

    n = property(lambda self: self._n, doc="The number of rows (unknowns).")
    storage = property(lambda self: self._storage,
                       doc='``"dense"`` (column-major ``A``) or ``"csr"`` (``indptr``, '
                           '``indices``, ``data``).')
    b = property(lambda self: self._b, doc="The constant term (read-only array).")
    lo = property(lambda self: self._lo, doc="The lower bounds (read-only array).")
    hi = property(lambda self: self._hi, doc="The upper bounds (read-only array).")
    findex = property(lambda self: self._findex,
                      doc="The friction index (read-only int32 array), or None.")
    mu = property(lambda self: self._mu,
                  doc="The friction coefficients of the findex rows, or None.")
    cone_rows = property(lambda self: self._cone_rows,
                         doc="The first row of each cone (read-only int32 array).")
    cone_mu = property(lambda self: self._cone_mu,
                       doc="Each cone's friction coefficient (read-only array).")
    cone_law = property(lambda self: self._cone_law, doc='``"coulomb"`` or ``"associated"``.')
    indptr = property(lambda self: self._indptr, doc="CSR row pointers (int32), or None.")
    indices = property(lambda self: self._indices, doc="CSR column indices (int32), or None.")
    data = property(lambda self: self._data, doc="CSR values, or None.")
    format = property(lambda self: self._format,
                      doc="The format the problem was read from, or None.")
    global_problem = property(lambda self: self._global_problem,
                              doc="The global problem (a ``GlobalProblem``), or None.")

    @property
    def name(self):
        """A name (a file's base name when read); may be set (str or None)."""
        return self._name

    @name.setter
    def name(self, value):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"Problem.name must be a str or None, got {type(value).__name__}")
        object.__setattr__(self, "_name", value)

    @property
    def x_ref(self):
        """A reference solution (read-only array), or None; may be set: it
        travels with the problem into the files that hold one, and a solve
        does not read it."""
        return self._x_ref

    @x_ref.setter
    def x_ref(self, value):
        object.__setattr__(self, "_x_ref", None if value is None else
                           _vector(value, self._n, "x_ref", np.float64, 0.0))

    @property
    def M(self):
        """The global problem's M (a ``CsrMatrix``), or None."""
        return self._global_problem.M if self._global_problem else None

    @property
    def H(self):
        """The global problem's H (a ``CsrMatrix``), or None."""
        return self._global_problem.H if self._global_problem else None

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
        _refuse_complex(x, "x")
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (self.n,):
            raise InvalidProblemError(f"x has shape {x.shape}, expected ({self.n},)")
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
        _refuse_complex(x, "x")
        _refuse_complex(w, "w")
        x = np.ascontiguousarray(x, dtype=np.float64)
        w = None if w is None else np.ascontiguousarray(w, dtype=np.float64)
        for name, v in (("x", x), ("w", w)):
            if v is not None and v.shape != (self.n,):
                raise InvalidProblemError(f"{name} has shape {v.shape}, expected ({self.n},)")
        return Residuals(**_lcplab.residual(self._c(), x, w))

    def __repr__(self):
        name = f", name={self.name!r}" if self.name else ""
        return (f"Problem(n={self.n}, storage={self.storage!r}, kind={self.kind!r}, "
                f"ncones={self.ncones}{name})")


def _rebuild(t, name, fmt, x_ref, glob):
    """Unpickling: the problem again from its tuple (validated again)."""
    p = Problem._from_c(t, name=name, fmt=fmt, x_ref=x_ref, glob=glob)
    return p


def _check_problem(problem):
    if not isinstance(problem, Problem):
        raise TypeError(f"expected an lcplab.Problem, got {type(problem).__name__}")
    return problem


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


#: The range of a C int, and of the unsigned long of slv_options.seed.
_C_INT = (-2 ** 31, 2 ** 31 - 1)
_C_ULONG = (0, 2 ** (8 * ctypes.sizeof(ctypes.c_ulong)) - 1)


def _int_range_error(key, value, limits=_C_INT):
    """The message for an integer option or setting outside limits (the
    C field it fills), or None when it fits."""
    lo, hi = limits
    if lo <= value <= hi:
        return None
    return f"{key}={value} is outside [{lo}, {hi}] (the range of its C field)"
