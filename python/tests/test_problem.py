"""lcplab.Problem: storage, defaults, kinds, copies, and every validation
rule raising InvalidProblemError with a message naming the field."""

import numpy as np
import pytest

import lcplab
from conftest import natural_map, planted_lcp


def test_dense_defaults_and_copies():
    A = np.array([[2.0, 1.0], [1.0, 2.0]])
    b = np.array([-1.0, -1.0])
    p = lcplab.Problem(A, b)
    assert p.n == 2 and p.storage == "dense" and p.kind == "lcp"
    np.testing.assert_array_equal(p.lo, [0.0, 0.0])
    np.testing.assert_array_equal(p.hi, [np.inf, np.inf])
    assert p.findex is None and p.mu is None and p.ncones == 0
    # the problem owns read-only copies: changing the caller's arrays does
    # not change it, and its arrays cannot be written
    A[0, 0] = 100.0
    b[0] = 100.0
    assert p.A[0, 0] == 2.0 and p.b[0] == -1.0
    with pytest.raises(ValueError):
        p.b[0] = 3.0
    assert p.A.flags.f_contiguous  # column-major, as slv_problem's dense storage


def test_kinds():
    A = np.eye(3)
    b = np.zeros(3)
    assert lcplab.Problem(A, b).kind == "lcp"
    assert lcplab.Problem(A, b, lo=[-np.inf, 0, 0], hi=[np.inf, np.inf, np.inf]).kind == "mlcp"
    assert lcplab.Problem(A, b, lo=[-1, 0, 0], hi=[1, np.inf, np.inf]).kind == "blcp"
    assert lcplab.Problem(A, b, findex=[-1, 0, 0], mu=[0, 0.5, 0.5]).kind == "findex"
    assert lcplab.Problem(A, b, cones=[(0, 0.5)]).kind == "cone"


def test_cones_and_law():
    p = lcplab.Problem(np.eye(6), np.zeros(6), cones=[(0, 0.5), (3, 0.25)],
                       cone_law="associated")
    assert p.cones == [(0, 0.5), (3, 0.25)]
    assert p.cone_rows.dtype == np.int32 and p.cone_law == "associated"


def test_csr_from_scipy():
    sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed: "
                             "scipy.sparse input is not tested")
    D = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]])
    # COO with a duplicate entry: summed, indices sorted, as CSR
    C = sp.coo_matrix(([4.0, 0.5, 0.5, 1.0, 3.0, 2.0], ([0, 0, 0, 1, 1, 2], [0, 1, 1, 0, 1, 2])),
                      shape=(3, 3))
    p = lcplab.Problem(C, [-1.0, 2.0, -2.0])
    assert p.storage == "csr"
    np.testing.assert_array_equal(p.to_dense(), D)
    np.testing.assert_array_equal(p.indptr, [0, 2, 4, 5])
    assert sp.issparse(p.A)
    # dense and CSR give the same solution, and the same w
    q = lcplab.Problem(D, [-1.0, 2.0, -2.0])
    rp, rq = lcplab.solve(p, "pgs", tol=1e-13), lcplab.solve(q, "pgs", tol=1e-13)
    np.testing.assert_allclose(rp.x, rq.x, atol=1e-12)
    np.testing.assert_allclose(p.w(rp.x), q.w(rp.x), atol=1e-15)


@pytest.mark.parametrize("kwargs, field", [
    (dict(A=np.ones((2, 3)), b=[0, 0]), "A must be square"),
    (dict(A=np.eye(2), b=[0, 0, 0]), "b has shape (3,)"),
    (dict(A=np.eye(2), b=[0, 0], lo=[0, 2], hi=[1, 1]), "lo[1]=2 > hi[1]=1"),
    (dict(A=[[1, np.nan], [0, 1]], b=[0, 0]), "A(0,1) is nan"),
    (dict(A=np.eye(2), b=[0, np.inf]), "b[1] is inf"),
    (dict(A=np.eye(2), b=[0, 0], findex=[-1, 0]), "findex and mu come together"),
    (dict(A=np.eye(2), b=[0, 0], findex=[-1, 5], mu=[0, 1]), "findex[1]=5"),
    (dict(A=np.eye(2), b=[0, 0], findex=[-1, 0], mu=[0, -1]), "mu[1]=-1"),
    (dict(A=np.eye(2), b=[0, 0], findex=[-1, 0.5], mu=[0, 1]), "findex must hold integers"),
    (dict(A=np.eye(6), b=np.zeros(6), cones=[(0, 0.5), (2, 0.5)]), "cone_rows[1]=2"),
    (dict(A=np.eye(3), b=np.zeros(3), cones=[(0, -0.5)]), "cone_mu[0]=-0.5"),
    (dict(A=np.eye(3), b=np.zeros(3), cones=[0, 1]), "(first_row, mu) pairs"),
    (dict(A=np.eye(3), b=np.zeros(3), cones=[(0, 0.5)], cone_law="tresca"), "cone_law"),
    (dict(A=np.eye(2), b=["a", 0]), "b must be numbers"),
])
def test_validation_names_the_field(kwargs, field):
    with pytest.raises(lcplab.InvalidProblemError) as e:
        lcplab.Problem(**kwargs)
    assert field in str(e.value)
    assert str(e.value).startswith("Problem: ")
    assert isinstance(e.value, ValueError)


def test_residuals_of_any_x():
    p, xs = planted_lcp(12, seed=3)
    r = p.residuals(xs)
    # the planted x* solves it: the measures vanish to rounding, as this
    # file's own natural map does
    assert r.res_nat_inf <= 1e-14 and natural_map(p, xs) <= 1e-14
    np.testing.assert_allclose(p.w(xs), p.to_dense() @ xs + p.b)
    # a wrong x: the library's measure is this file's own
    x = xs + 0.25
    assert r.b_inf == np.max(np.abs(p.b))
    assert p.residuals(x).res_nat_inf == pytest.approx(natural_map(p, x), rel=1e-12)
    assert p.residuals(x, w=p.w(x)).res_nat_inf == pytest.approx(natural_map(p, x), rel=1e-12)
    with pytest.raises(ValueError, match="x has shape"):
        p.residuals(np.zeros(3))


# ---- a Problem cannot lie: what it reads is what is solved ------------------
# (docs/python.md, "Problems are immutable")

def _two_rows():
    return lcplab.Problem(np.eye(2), [-1.0, 1.0])


@pytest.mark.parametrize("field, value", [
    ("b", np.array([1.0, 2.0])),
    ("b", [np.nan, 2.0]),
    ("lo", [5.0, 0.0]),
    ("hi", [0.5, np.inf]),
    ("A", np.eye(2) * 3.0),
])
def test_fields_cannot_be_replaced(field, value):
    # the old Problem kept a tuple of its arrays from construction: after
    # p.b = ..., solve solved the old b as "converged"; p.b = [nan, 2]
    # solved as converged; p.lo = [5, 0] gave an x below lo
    p = _two_rows()
    with pytest.raises(AttributeError, match="immutable.*replace"):
        setattr(p, field, value)
    r = lcplab.solve(p, "pgs")
    assert r.converged
    np.testing.assert_array_equal(r.x, [1.0, 0.0])
    np.testing.assert_array_equal(p.b, [-1.0, 1.0])


@pytest.mark.parametrize("field", ["A", "b", "lo", "hi"])
def test_arrays_cannot_be_written_in_place(field):
    p = _two_rows()
    a = getattr(p, field)
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 7.0
    # nor made writable again: the arrays are views of private ones
    with pytest.raises(ValueError):
        a.setflags(write=True)
    r = lcplab.solve(p, "pgs")
    np.testing.assert_array_equal(r.x, [1.0, 0.0])


def test_csr_arrays_cannot_be_written():
    sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed")
    p = lcplab.Problem(sp.csr_matrix(np.eye(2)), [-1.0, 1.0])
    for a in (p.indptr, p.indices, p.data, p.A.data):
        with pytest.raises(ValueError):
            a[0] = 2


def test_replace_makes_a_new_validated_problem():
    p = _two_rows()
    q = p.replace(b=[-3.0, 2.0])
    np.testing.assert_array_equal(lcplab.solve(q, "pgs").x, [3.0, 0.0])
    np.testing.assert_array_equal(lcplab.solve(p, "pgs").x, [1.0, 0.0])
    with pytest.raises(lcplab.InvalidProblemError, match=r"b\[0\]"):
        p.replace(b=[np.nan, 2.0])
    with pytest.raises(lcplab.InvalidProblemError, match=r"lo\[0\]"):
        p.replace(lo=[5.0, 0.0], hi=[1.0, np.inf])
    r = lcplab.solve(p.replace(lo=[5.0, 0.0]), "pgs")
    assert r.converged and r.x[0] == 5.0
    with pytest.raises(TypeError, match="nope"):
        p.replace(nope=1)


def test_no_new_attributes():
    p = _two_rows()
    with pytest.raises(AttributeError, match="only name and x_ref"):
        p.bb = np.zeros(2)
    with pytest.raises(AttributeError, match="only name and x_ref"):
        p.n = 3


def test_x_ref_is_checked():
    p = _two_rows()
    with pytest.raises(lcplab.InvalidProblemError, match="x_ref"):
        p.x_ref = [1.0, 2.0, 3.0]
    p.x_ref = [1.0, 0.0]
    with pytest.raises(ValueError):
        p.x_ref[0] = 2.0


def test_pickle_keeps_the_problem():
    import pickle
    p = _two_rows().replace(lo=[-1.0, 0.0])
    p.name, p.x_ref = "two", [1.0, 0.0]
    q = pickle.loads(pickle.dumps(p))
    np.testing.assert_array_equal(q.lo, [-1.0, 0.0])
    assert q.name == "two" and q.x_ref[0] == 1.0
    with pytest.raises(AttributeError):
        q.b = np.zeros(2)
