"""ContactBench in memory (docs/python.md, "ContactBench"): a Problem from
(G, g, mus) with each contact's normal last, back to them, vectors between
the two orders, and float32 / float16 arrays and .npz files converted to
float64. Every check is against numpy alone or against lcplab.read of the
same arrays in a file numpy wrote."""

import numpy as np
import pytest

import lcplab


def contactbench_arrays(nc=3, seed=11):
    """G (SPD), g, mus of nc contacts in ContactBench's order (t1, t2, n)."""
    rng = np.random.default_rng(seed)
    n = 3 * nc
    B = rng.uniform(-1, 1, (n, n))
    G = B @ B.T / n + 0.2 * np.eye(n)
    g = rng.uniform(-1, 1, n)
    g[2::3] = -np.abs(g[2::3]) - 0.1  # approaching normals: contacts that push
    mus = rng.uniform(0.2, 0.9, nc)
    return G, g, mus


def test_from_contactbench_is_what_read_makes(tmp_path):
    G, g, mus = contactbench_arrays()
    f = tmp_path / "p.npz"
    np.savez(f, G=G, g=g.reshape(-1, 1), mus=mus)  # g as ContactBench's files have it
    q = lcplab.read(f)
    for gg in (g, g.reshape(-1, 1), list(g)):
        p = lcplab.Problem.from_contactbench(G, gg, list(mus))
        np.testing.assert_array_equal(p.to_dense(), q.to_dense())
        np.testing.assert_array_equal(p.b, q.b)
        assert p.cones == q.cones and p.cone_law == "coulomb" and p.kind == "cone"
        assert np.all(p.lo == -np.inf) and np.all(p.hi == np.inf)


def test_normal_first_in_lcplab():
    G1 = np.array([[1.0, 0.1, 0.2], [0.1, 2.0, 0.3], [0.2, 0.3, 3.0]])  # (t1, t2, n)
    p = lcplab.Problem.from_contactbench(G1, [0.5, -0.25, -1.0], [0.4])
    np.testing.assert_array_equal(p.to_dense(), [[3.0, 0.2, 0.3], [0.2, 1.0, 0.1],
                                                 [0.3, 0.1, 2.0]])
    np.testing.assert_array_equal(p.b, [-1.0, 0.5, -0.25])
    assert p.cones == [(0, 0.4)]
    # the map is the I/O library's (io.h, io_contactbench_row), inverted
    from lcplab import _lcplab
    np.testing.assert_array_equal(_lcplab.contactbench_rows(2), [2, 0, 1, 5, 3, 4])
    assert _lcplab.contactbench_rows(0).shape == (0,)


def test_to_contactbench_round_trip():
    G, g, mus = contactbench_arrays(nc=4, seed=3)
    p = lcplab.Problem.from_contactbench(G, g, mus)
    G2, g2, mus2 = p.to_contactbench()
    np.testing.assert_array_equal(G2, G)
    np.testing.assert_array_equal(g2, g)
    np.testing.assert_array_equal(mus2, mus)
    assert g2.shape == (12,) and mus2.shape == (4,)


def test_solution_in_contactbench_order_satisfies_its_law():
    # lambda in K_mu, c^ = c + mu |c_t| e_n in the dual cone, lambda . c^ = 0,
    # c = G lambda + g, all in ContactBench's order, with numpy alone
    G, g, mus = contactbench_arrays()
    p = lcplab.Problem.from_contactbench(G, g, mus)
    r = lcplab.solve(p, "nsn_ac", tol=1e-12, max_iter=200)
    assert r.converged
    lam = p.to_contactbench_order(r.x)
    c = G @ lam + g
    np.testing.assert_allclose(p.to_contactbench_order(r.w), c, atol=1e-12)
    for k, mu in enumerate(mus):
        lt, ln = lam[3 * k:3 * k + 2], lam[3 * k + 2]
        ct, cn = c[3 * k:3 * k + 2], c[3 * k + 2]
        chn = cn + mu * np.hypot(*ct)
        assert np.hypot(*lt) <= mu * ln + 1e-10
        assert mu * np.hypot(*ct) <= chn + 1e-10
        assert abs(lt @ ct + ln * chn) <= 1e-9
    # and a guess in ContactBench's order is a warm start in lcplab's
    x0 = p.from_contactbench_order(lam)
    np.testing.assert_array_equal(x0, r.x)
    r2 = lcplab.solve(p, "nsn_ac", tol=1e-12, warm=x0)
    assert r2.converged and r2.iterations <= 1


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_low_precision_arrays_are_converted(dtype):
    G, g, mus = contactbench_arrays()
    G, g, mus = G.astype(dtype), g.astype(dtype), mus.astype(dtype)
    p = lcplab.Problem.from_contactbench(G, g, mus)
    q = lcplab.Problem.from_contactbench(G.astype(np.float64), g.astype(np.float64),
                                         mus.astype(np.float64))
    np.testing.assert_array_equal(p.to_dense(), q.to_dense())
    np.testing.assert_array_equal(p.b, q.b)
    assert p.b.dtype == np.float64


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ">f4", ">f2", ">f8"])
def test_low_precision_npz_files_are_read(tmp_path, dtype):
    # a float32 .npz was refused ("expected G.npy to hold float64"); each
    # value is now converted to the double it equals, fortran order too
    G, g, mus = contactbench_arrays()
    f = tmp_path / "low.npz"
    Gl = np.asfortranarray(G.astype(dtype))
    np.savez(f, G=Gl, g=g.astype(dtype).reshape(-1, 1), mus=mus.astype(dtype))
    p = lcplab.read(f)
    q = lcplab.Problem.from_contactbench(G.astype(dtype).astype(np.float64),
                                         g.astype(dtype).astype(np.float64),
                                         mus.astype(dtype).astype(np.float64))
    np.testing.assert_array_equal(p.to_dense(), q.to_dense())
    np.testing.assert_array_equal(p.b, q.b)
    assert p.cones == q.cones


def test_bad_arrays_name_the_field():
    G, g, mus = contactbench_arrays(nc=2)
    cases = [
        ((G[:5, :5], g, mus), "G"),
        ((G, g[:5], mus), "g"),
        ((G, g, mus[:1]), "G"),
        ((G, g, [0.5, -1.0]), "mus"),
        ((G.astype(complex), g, mus), "G"),
        ((G, np.array(["a"] * 6), mus), "g"),
        ((np.zeros((6, 6, 1)), g, mus), "G"),
    ]
    for args, field in cases:
        with pytest.raises(lcplab.InvalidProblemError, match=rf"\b{field}\b"):
            lcplab.Problem.from_contactbench(*args)
    G[1, 1] = np.nan
    with pytest.raises(lcplab.InvalidProblemError):
        lcplab.Problem.from_contactbench(G, g, mus)


def test_only_cone_problems_have_a_contactbench_form():
    p = lcplab.Problem(np.eye(3), [1.0, 0.0, 0.0])
    for call in (p.to_contactbench, lambda: p.to_contactbench_order(np.zeros(3)),
                 lambda: p.from_contactbench_order(np.zeros(3))):
        with pytest.raises(lcplab.UnsupportedError, match="cone"):
            call()
    G, g, mus = contactbench_arrays(nc=1)
    q = lcplab.Problem.from_contactbench(G, g, mus)
    with pytest.raises(lcplab.InvalidProblemError, match=r"shape \(4,\)"):
        q.to_contactbench_order(np.zeros(4))


def _sparse_formats(sp):
    """Every scipy.sparse format, as matrices and (where scipy has them)
    arrays: f(dense) -> that format."""
    kinds = ["csr", "csc", "coo", "lil", "dok", "bsr", "dia"]
    out = [getattr(sp, k + "_matrix") for k in kinds]
    out += [getattr(sp, k + "_array") for k in kinds if hasattr(sp, k + "_array")]
    return out


def test_sparse_matrices_are_accepted():
    # issue 86, item 12: a scipy.sparse G (any format) was refused ("got
    # dtype object"); it gives the problem the dense G gives, stored CSR
    sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed")
    G, g, mus = contactbench_arrays(nc=3, seed=5)
    G[np.abs(G) < 0.1] = 0.0  # some structural zeros
    q = lcplab.Problem.from_contactbench(G, g, mus)
    for fmt in _sparse_formats(sp):
        p = lcplab.Problem.from_contactbench(fmt(G), g, mus)
        assert p.storage == "csr", fmt
        np.testing.assert_array_equal(p.to_dense(), q.to_dense())
        np.testing.assert_array_equal(p.b, q.b)
        assert p.cones == q.cones and p.kind == "cone"
    # a sparse g (a column, as ContactBench's files hold it) too
    p = lcplab.Problem.from_contactbench(sp.csr_matrix(G), sp.csc_matrix(g.reshape(-1, 1)), mus)
    np.testing.assert_array_equal(p.b, q.b)
    # the same checks as a dense G: shape, dtype, non-finite, each naming G
    bad = G.copy()
    bad[4, 1] = np.inf
    for args, words in [((sp.csr_matrix(G[:6, :6]), g, mus), "G has shape"),
                        ((sp.coo_matrix(G.astype(complex)), g, mus), "G must hold real"),
                        ((sp.csr_matrix(bad), g, mus), r"G\[4, 1\] = inf")]:
        with pytest.raises(lcplab.InvalidProblemError, match=words):
            lcplab.Problem.from_contactbench(*args)
    # an integer sparse G is converted as a dense one is
    Gi = np.rint(10 * G).astype(np.int64) + 40 * np.eye(9, dtype=np.int64)
    np.testing.assert_array_equal(
        lcplab.Problem.from_contactbench(sp.dok_matrix(Gi), g, mus).to_dense(),
        lcplab.Problem.from_contactbench(Gi, g, mus).to_dense())


def test_sparse_formats_wherever_a_matrix_is_accepted():
    # Problem(A) and Problem.from_global(M, H) take every format too
    sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed")
    G, g, mus = contactbench_arrays(nc=2, seed=8)
    q = lcplab.Problem(G, g)
    M = np.diag([2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    H = np.arange(36.0).reshape(6, 6) / 36.0 + np.eye(6)
    f, w = np.ones(6), -np.ones(6)
    r = lcplab.Problem.from_global(M, H, f, w, [0.5, 0.5])
    for fmt in _sparse_formats(sp):
        p = lcplab.Problem(fmt(G), g)
        assert p.storage == "csr", fmt
        np.testing.assert_array_equal(p.to_dense(), q.to_dense())
        s = lcplab.Problem.from_global(fmt(M), fmt(H), f, w, [0.5, 0.5])
        np.testing.assert_allclose(s.to_dense(), r.to_dense(), rtol=1e-15, atol=1e-15)
