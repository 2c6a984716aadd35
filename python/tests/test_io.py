"""lcplab.read and lcplab.write: round trips through every format that can
hold the problem (bit for bit: the writers print 17 digits), refusals
(an existing file, a format that cannot hold the problem), errors naming
the file and line, and a shared dataset read and solved as ``lcplab solve``
does."""

import os

import numpy as np
import pytest

import lcplab
from conftest import cli_solve, json_number, planted_lcp, shared_path


def same_problem(p, q):
    """Every array of p and q equal to the bit (the matrix densified)."""
    assert p.n == q.n
    np.testing.assert_array_equal(p.to_dense(), q.to_dense())
    for name in ("b", "lo", "hi", "cone_rows", "cone_mu"):
        np.testing.assert_array_equal(getattr(p, name), getattr(q, name), err_msg=name)
    for name in ("findex", "mu"):
        a, b = getattr(p, name), getattr(q, name)
        assert (a is None) == (b is None), name
        if a is not None:
            np.testing.assert_array_equal(a, b, err_msg=name)
    assert p.cone_law == q.cone_law


def findex_problem():
    """Two contacts with box friction (normal, two friction rows each) and a
    free row: irrational-looking values, to test the 17 digits."""
    rng = np.random.default_rng(4)
    n = 7
    B = rng.uniform(-1, 1, (n, n))
    A = B @ B.T / 3 + 0.1 * np.eye(n)
    b = rng.uniform(-1, 1, n) / 3
    lo = np.array([0, 0, 0, 0, 0, 0, -np.inf])
    hi = np.array([np.inf, 0, 0, np.inf, 0, 0, np.inf])
    findex = [-1, 0, 0, -1, 3, 3, -1]
    mu = [0, 0.3, 0.3, 0, 0.7, 0.7, 0]
    return lcplab.Problem(A, b, lo=lo, hi=hi, findex=findex, mu=mu)


def cone_problem(law="coulomb"):
    rng = np.random.default_rng(5)
    n = 9
    B = rng.uniform(-1, 1, (n, n))
    A = B @ B.T / 3 + 0.1 * np.eye(n)
    return lcplab.Problem(A, rng.uniform(-1, 1, n), lo=np.full(n, -np.inf),
                          hi=np.full(n, np.inf), cones=[(0, 0.3), (3, 0.5), (6, 1 / 3)],
                          cone_law=law)


def test_formats_listed():
    f = lcplab.formats()
    assert f[0] == "auto" and "lcplab" in f and "fclib" in f and "siconos-lcp" in f


@pytest.mark.parametrize("make, ext, fmt", [
    (lambda: planted_lcp(8, seed=1)[0], ".lcp", None),
    (findex_problem, ".lcp", None),
    (cone_problem, ".lcp", None),
    (lambda: cone_problem("associated"), ".lcp", None),
    (lambda: planted_lcp(8, seed=1)[0], ".dat", None),
    (lambda: planted_lcp(8, seed=2, bounds="box")[0], ".blcp", None),
    (lambda: planted_lcp(8, seed=3, bounds="box")[0], ".mtx", None),
    (cone_problem, ".hdf5", None),
    (cone_problem, ".npz", None),
    (lambda: planted_lcp(8, seed=1)[0], ".txt", "lcplab"),
])
def test_round_trip(tmp_path, make, ext, fmt):
    p = make()
    f = tmp_path / f"problem{ext}"
    lcplab.write(p, f, format=fmt)
    q = lcplab.read(f, format=fmt)
    same_problem(p, q)
    assert q.name == "problem" and q.format in lcplab.formats()


def test_csr_round_trip(tmp_path):
    sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed: "
                             "scipy.sparse input is not tested")
    D = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 2.0]])
    p = lcplab.Problem(sp.csr_matrix(D), [-1.0 / 3, 2.0, -2.0])
    lcplab.write(p, tmp_path / "p.lcp")
    q = lcplab.read(tmp_path / "p.lcp")
    assert q.storage == "csr"
    same_problem(p, q)
    np.testing.assert_array_equal(q.indices, p.indices)


def test_reference_solution_travels(tmp_path):
    p, xs = planted_lcp(6, seed=8)
    p.x_ref = xs
    lcplab.write(p, tmp_path / "p.lcp")
    q = lcplab.read(tmp_path / "p.lcp")
    np.testing.assert_array_equal(q.x_ref, xs)


def test_write_refuses(tmp_path):
    p = findex_problem()
    f = tmp_path / "p.lcp"
    lcplab.write(p, f)
    before = f.read_bytes()
    with pytest.raises(FileExistsError):
        lcplab.write(p, f)
    assert f.read_bytes() == before
    q = planted_lcp(7, seed=3)[0]
    lcplab.write(q, f, force=True)
    same_problem(q, lcplab.read(f))
    # a Siconos LCP file cannot hold friction rows: nothing is written
    g = tmp_path / "p.dat"
    with pytest.raises(lcplab.UnsupportedError):
        lcplab.write(p, g, format="siconos-lcp")
    assert not g.exists()
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        lcplab.write(p, tmp_path / "p.xml", format="xml")


FULL_DISK_CHILD = """
import resource, signal, sys
import numpy as np
import lcplab
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
n = 9
p = lcplab.Problem(np.eye(n), -np.ones(n), lo=np.full(n, -np.inf), hi=np.full(n, np.inf),
                   cones=[(0, 0.3), (3, 0.5), (6, 0.2)])
try:
    lcplab.write(p, sys.argv[1], force=True)
except lcplab.FileError as e:
    print("FileError:", e)
"""


def test_write_full_disk_raises(tmp_path):
    # issue 48, case 7: libfclib ends the process when an HDF5 write fails;
    # a full disk (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with EFBIG) must
    # raise FileError and leave the old file as it was, with no temporary
    # file beside it.  In a child interpreter, so that an exit cannot end
    # this one.
    import subprocess
    import sys
    f = tmp_path / "x.hdf5"
    f.write_bytes(b"the old file")
    r = subprocess.run([sys.executable, "-c", FULL_DISK_CHILD, str(f)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stdout.startswith("FileError: " + str(f) + ": cannot write"), r.stdout
    assert f.read_bytes() == b"the old file"
    assert sorted(os.listdir(tmp_path)) == ["x.hdf5"]


def test_read_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(FileNotFoundError):
        lcplab.read(tmp_path / "missing.lcp")
    f = tmp_path / "bad.lcp"
    lcplab.write(planted_lcp(3, seed=1)[0], f)
    lines = f.read_text().splitlines()
    # cut the file inside the matrix
    k = next(i for i, line in enumerate(lines) if line.startswith("A")) + 2
    f.write_text("\n".join(lines[:k]) + "\n")
    with pytest.raises(lcplab.FileError) as e:
        lcplab.read(f)
    assert str(f) in str(e.value) and isinstance(e.value, OSError)


def test_read_refuses_what_is_not_a_file(tmp_path):
    # issue 64, 18: /dev/zero was read up to the 4 GiB cap, a FIFO blocked;
    # now what is not a regular file is refused at its open, and a sparse
    # file at its first NUL byte
    fifo = tmp_path / "fifo.dat"
    os.mkfifo(fifo)
    cases = [("/dev/zero", "a character device"), ("/dev/urandom", "a character device"),
             (str(fifo), "a FIFO"), (str(tmp_path), "a directory")]
    for path, what in cases:
        with pytest.raises(lcplab.FileError) as e:
            lcplab.read(path)
        assert str(e.value).startswith(path + ": expected a regular file, found " + what)
    holes = tmp_path / "holes.lcp"
    with open(holes, "wb") as f:
        f.truncate(1 << 30)
    with pytest.raises(lcplab.FileError) as e:
        lcplab.read(holes)
    assert "expected a text file, found a NUL byte at byte 0" in str(e.value)


def test_shared_fc3d_as_cli(tmp_path):
    path = shared_path("datasets", "siconos", "fc3d", "Capsules-i100-889.dat")
    p = lcplab.read(path)
    assert p.kind == "cone" and p.format == "siconos-fc3d" and p.ncones * 3 == p.n
    r = lcplab.solve(p, "nsgs", tol=1e-8, max_iter=10000)
    j, x = cli_solve(path, "nsgs", tmp_path, "--tol", "1e-8", "--max-iter", "10000")
    np.testing.assert_array_equal(r.x, x)
    assert j["status"] == r.status_str and j["iterations"] == r.iterations
    for key in ("res_nat_inf", "res_rel", "merit_fclib", "signorini", "conic_compl",
                "ncp_compl", "dual_feas", "primal_feas", "mdp_gap"):
        assert json_number(j[key]) == getattr(r.residuals, key), key


# lcplab's row 3c + k is the file's row NPZ_PERM[3c + k] (normal last there)
def npz_perm(nc):
    return np.array([3 * c + k for c in range(nc) for k in (2, 0, 1)])


def test_npz_is_contactbench_layout(tmp_path):
    # what lcplab.write puts in the .npz is what ContactBench reads: G, g,
    # mus with each contact's normal last, checked with numpy's own reader
    p = cone_problem()
    f = tmp_path / "p.npz"
    lcplab.write(p, f)
    with np.load(f) as z:
        G, g, mus = z["G"], z["g"], z["mus"]
    P = npz_perm(3)
    np.testing.assert_array_equal(G[np.ix_(P, P)], p.to_dense())
    np.testing.assert_array_equal(g.reshape(-1)[P], p.b)
    np.testing.assert_array_equal(mus.reshape(-1), p.cone_mu)
    # and a file numpy.savez wrote, by hand, with one contact: normal last
    G1 = np.array([[1.0, 0.1, 0.2], [0.1, 2.0, 0.3], [0.2, 0.3, 3.0]])  # (t1, t2, n)
    g1 = np.array([0.5, -0.25, -1.0])
    h = tmp_path / "one.npz"
    np.savez(h, G=G1, g=g1, mus=np.array([0.4]))
    q = lcplab.read(h)
    assert q.format == "npz" and q.kind == "cone" and q.cones == [(0, 0.4)]
    np.testing.assert_array_equal(q.to_dense(), [[3.0, 0.2, 0.3], [0.2, 1.0, 0.1],
                                                 [0.3, 0.1, 2.0]])
    np.testing.assert_array_equal(q.b, [-1.0, 0.5, -0.25])
    # its solution, taken back to the file's order, satisfies ContactBench's
    # law there, computed here with numpy alone: lambda in K_mu, c^ = c +
    # mu |c_t| e_n in the dual cone, lambda . c^ = 0 (c = G lambda + g)
    r = lcplab.solve(q, "nsn_ac", tol=1e-12, max_iter=100)
    assert r.converged
    lam = np.empty(3)
    lam[npz_perm(1)] = r.x
    c = G1 @ lam + g1
    ch = c + np.array([0.0, 0.0, 0.4 * np.hypot(c[0], c[1])])
    assert np.hypot(lam[0], lam[1]) <= 0.4 * lam[2] + 1e-12 and lam[2] > 0
    assert 0.4 * np.hypot(ch[0], ch[1]) <= ch[2] + 1e-10
    assert abs(lam @ ch) <= 1e-10
    # a problem with a row outside the cones cannot be a ContactBench file
    with pytest.raises(lcplab.UnsupportedError):
        lcplab.write(findex_problem(), tmp_path / "f.npz")
    assert not (tmp_path / "f.npz").exists()


def test_global_problem_keeps_m_and_h(tmp_path):
    # issue 50: a problem read from a global file keeps M, H, f, w beside
    # the condensed problem, and is written back global (.hdf5, .dat)
    f = shared_path("datasets", "fclib", "LMGC_GFC3D-i00501-4-00000.hdf5")
    p = lcplab.read(f)
    assert p.n == 12 and p.M.shape == (162, 162) and p.H.shape == (162, 12)
    g = p.global_problem
    assert g.M is p.M and g.H is p.H and g.f.shape == (162,) and g.w.shape == (12,)
    M = p.M.toarray()
    np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-14 * abs(M).max())
    # the condensation the problem is: A = H' M^-1 H, b = w + H' M^-1 f
    H = p.H.toarray()
    A = p.to_dense()
    np.testing.assert_allclose(A, H.T @ np.linalg.solve(M, H), rtol=0, atol=1e-12 * abs(A).max())
    for ext in (".hdf5", ".dat"):
        out = tmp_path / ("g" + ext)
        lcplab.write(p, out)
        q = lcplab.read(out)
        for name in ("f", "w"):
            np.testing.assert_array_equal(getattr(q.global_problem, name),
                                          getattr(g, name), err_msg=name)
        np.testing.assert_array_equal(q.M.toarray(), M)
        np.testing.assert_array_equal(q.H.toarray(), H)
    # a local problem has none
    lcplab.write(p, tmp_path / "local.lcp")
    loc = lcplab.read(tmp_path / "local.lcp")
    assert loc.global_problem is None and loc.M is None and loc.H is None


def test_global_solve_reports_velocities():
    # issue 50: a global problem's result has v = M^-1 (H r + f), u = H' v + w
    # and res_vel; its verdict needs the literature's measures (res_global)
    f = shared_path("datasets", "siconos", "gfc3d", "GFC3D_TwoRods1.dat")
    p = lcplab.read(f)
    assert p.format == "siconos-gfc3d"
    r = lcplab.solve(p, "nsn_ac")
    assert r.converged
    M, H, g = p.M.toarray(), p.H.toarray(), p.global_problem
    np.testing.assert_allclose(M @ r.v, H @ r.x + g.f, rtol=0, atol=1e-12 * abs(H @ r.x + g.f).max())
    np.testing.assert_allclose(r.u, H.T @ r.v + g.w, rtol=0, atol=1e-12 * max(1, abs(r.u).max()))
    np.testing.assert_allclose(r.u, r.w, rtol=0, atol=1e-12 * max(1, abs(r.u).max()))
    assert 0 <= r.res_vel <= 1e-8
    res = r.residuals
    assert res.res_global == max(res.res_rel_1q, res.res_contact) <= 1e-8
    # the contact at which res_contact is taken is a contact of the problem
    assert (res.res_contact == 0) == (res.res_contact_at == -1)
    assert -1 <= res.res_contact_at < p.ncones
    # a local problem: no velocities, no global clause
    loc = lcplab.Problem(p.to_dense(), p.b, lo=p.lo, hi=p.hi,
                         cones=list(zip(p.cone_rows.tolist(), p.cone_mu.tolist())))
    rl = lcplab.solve(loc, "nsn_ac")
    assert rl.v is None and rl.u is None and rl.res_vel is None
    assert np.isnan(rl.residuals.res_global) and rl.residuals.res_contact >= 0


def test_matlab_mat_files(tmp_path):
    """MATLAB v5 files that scipy writes (libio/io_mat.c): the LCP
    w = M z + q of M = [2 1 0; 1 3 0; 0.5 0 1], q = (-3, -4, 1), whose
    solution is z = (1, 1, 0) by hand (z3 = 0, [2 1; 1 3] z = (3, 4))."""
    sio = pytest.importorskip("scipy.io", reason="python3-scipy is not installed: "
                              "MATLAB files written by scipy are not tested")
    sp = pytest.importorskip("scipy.sparse")
    M = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.5, 0.0, 1.0]])
    q = np.array([-3.0, -4.0, 1.0])
    for name, mat in (("dense.mat", M), ("sparse.mat", sp.csc_matrix(M))):
        sio.savemat(tmp_path / name, {"M": mat, "q": q, "fname": "hand"})
        p = lcplab.read(tmp_path / name)
        A = p.A.toarray() if hasattr(p.A, "toarray") else np.asarray(p.A)
        np.testing.assert_array_equal(A, M)
        np.testing.assert_array_equal(p.b, q)
        r = lcplab.solve(p, "lemke")
        assert r.status_str == "converged"
        np.testing.assert_allclose(r.x, [1.0, 1.0, 0.0], rtol=0, atol=1e-12)
    sio.savemat(tmp_path / "short.mat", {"M": M, "q": q[:2]})
    with pytest.raises(lcplab.Error) as e:
        lcplab.read(tmp_path / "short.mat")
    assert str(tmp_path / "short.mat") in str(e.value) and "expected q to be 3 x 1" in str(e.value)
    with pytest.raises(lcplab.Error):
        lcplab.write(lcplab.read(tmp_path / "dense.mat"), tmp_path / "out.mat")
    assert not (tmp_path / "out.mat").exists()


def test_matlab_dca_bl():
    """A DCA-BL benchmark file (MATLAB 7.3, sparse M of n = 100)."""
    p = lcplab.read(shared_path("datasets", "other", "dca-bl_benchmark_lcps", "lcp7-n100.mat"))
    assert p.n == 100
    assert lcplab.solve(p, "lemke").status_str == "converged"
