"""ContactBench's problems in memory: (G, g, mus) with each contact's normal
LAST, c = G lambda + g (Simple-Robotics' ContactBench; docs/python.md,
"ContactBench"), and lcplab's cone problems with the normal FIRST.

The permutation is the .npz reader's (libio/io_npz.c, whose header
comment derives it; io.h, io_contactbench_row), taken from the I/O library
through the extension: lcplab's row 3c + k is ContactBench's row
P(3c + k), P(3c) = 3c + 2, P(3c + 1) = 3c, P(3c + 2) = 3c + 1; so
A = G[P][:, P], b = g[P], x = lambda[P], and back lambda[P] = x.
python/tests/test_contactbench.py checks that a Problem made here equals
the reader's from the same arrays, bit for bit."""

import numpy as np

from . import _lcplab
from ._errors import InvalidProblemError, UnsupportedError

__all__ = ["problem_arrays", "contactbench_arrays", "check_form", "order", "to_lcplab_order"]


def _perm(nc):
    """P: lcplab's row i is ContactBench's row P[i], the I/O library's map
    (io.h, io_contactbench_row) through the extension."""
    return _lcplab.contactbench_rows(int(nc))


def _is_sparse(a):
    """_problem's test (imported here, where _problem is loaded: it
    imports this module)."""
    from ._problem import _is_sparse as is_sparse
    return is_sparse(a)


def _sparse_floats(value, name):
    """A scipy.sparse G (any format) as a new float64 CSR matrix, its
    duplicates summed; refused as a dense G would be (dtype, shape, a
    non-finite stored value, named with its row and column)."""
    if value.dtype.kind not in "fiu":
        raise InvalidProblemError(f"from_contactbench: {name} must hold real numbers, got "
                                  f"dtype {value.dtype}")
    if len(value.shape) != 2:
        raise InvalidProblemError(f"from_contactbench: {name} has shape {value.shape}, "
                                  f"expected a matrix")
    C = value.tocsr(copy=True).astype(np.float64)
    C.sum_duplicates()
    bad = np.flatnonzero(~np.isfinite(C.data))
    if bad.size:
        row = int(np.searchsorted(C.indptr, bad[0], side="right") - 1)
        col = int(C.indices[bad[0]])
        raise InvalidProblemError(f"from_contactbench: {name}[{row}, {col}] = "
                                  f"{C.data[bad[0]]!r}, expected a finite value")
    return C


def _floats(value, name, ndim):
    """value as a new float64 array of ndim dimensions ((n, 1) and (1, n)
    count as vectors): float16, float32 and integer arrays are converted;
    a scipy.sparse matrix (any format) is a CSR matrix (ndim 2) or made
    dense (a vector); anything else is refused naming the field."""
    if _is_sparse(value):
        if ndim == 2:
            return _sparse_floats(value, name)
        value = value.toarray()
    a = np.asarray(value)
    if a.dtype.kind not in "fiu":
        raise InvalidProblemError(f"from_contactbench: {name} must hold real numbers, got "
                                  f"dtype {a.dtype}")
    if ndim == 1 and a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim != ndim:
        raise InvalidProblemError(f"from_contactbench: {name} has shape {a.shape}, expected "
                                  f"{'a matrix' if ndim == 2 else 'a vector'}")
    a = np.array(a, dtype=np.float64)
    bad = np.argwhere(~np.isfinite(a) | ((a < 0) if name == "mus" else False))
    if bad.size:
        at = ", ".join(str(int(k)) for k in bad[0])
        want = "a finite value >= 0" if name == "mus" else "a finite value"
        raise InvalidProblemError(f"from_contactbench: {name}[{at}] = {a[tuple(bad[0])]!r}, "
                                  f"expected {want}")
    return a


def problem_arrays(G, g, mus):
    """The Problem arguments (A, b, lo, hi, cones) of ContactBench's
    (G, g, mus); the shapes checked against each other, naming the field."""
    G, g, mus = _floats(G, "G", 2), _floats(g, "g", 1), _floats(mus, "mus", 1)
    nc = mus.shape[0]
    n = 3 * nc
    if G.shape != (n, n):
        raise InvalidProblemError(f"from_contactbench: G has shape {G.shape}, expected "
                                  f"3 nc x 3 nc = ({n}, {n}) (mus has nc = {nc})")
    if g.shape != (n,):
        raise InvalidProblemError(f"from_contactbench: g has shape {g.shape}, expected "
                                  f"3 nc = ({n},) (mus has nc = {nc})")
    P = _perm(nc)
    inf = np.full(n, np.inf)
    cones = list(zip(range(0, n, 3), mus))
    A = G[P][:, P] if _is_sparse(G) else G[np.ix_(P, P)]  # a sparse G stays CSR
    return A, g[P], -inf, inf, cones


def check_form(problem):
    """UnsupportedError unless every row of problem is in a Coulomb cone
    (the cones at rows 0, 3, 6, ...), as ContactBench's problems are."""
    n, nc = problem.n, problem.ncones
    if nc == 0 or n != 3 * nc or problem.cone_law != "coulomb":
        raise UnsupportedError(f"ContactBench's form needs a Coulomb cone on every row: this "
                               f"problem has n = {n} rows, {nc} cones, law {problem.cone_law}, "
                               f"kind {problem.kind}")


def contactbench_arrays(problem):
    """(G, g, mus) of a problem with a Coulomb cone on every row:
    G[P][:, P] = A, g[P] = b."""
    check_form(problem)
    P = _perm(problem.ncones)
    G = np.empty((problem.n, problem.n))
    G[np.ix_(P, P)] = problem.to_dense()
    g = np.empty(problem.n)
    g[P] = problem.b
    return G, g, np.array(problem.cone_mu)


def _vector(problem, v, name):
    v = np.asarray(v, dtype=np.float64)
    if v.shape != (problem.n,):
        raise InvalidProblemError(f"{name}: the vector has shape {v.shape}, expected "
                                  f"({problem.n},)")
    return v


def order(problem, x):
    """x (lcplab's order, normal first) in ContactBench's order."""
    check_form(problem)
    x = _vector(problem, x, "to_contactbench_order")
    out = np.empty(problem.n)
    out[_perm(problem.ncones)] = x
    return out


def to_lcplab_order(problem, v):
    """v (ContactBench's order, normal last) in lcplab's order."""
    check_form(problem)
    return _vector(problem, v, "from_contactbench_order")[_perm(problem.ncones)]
