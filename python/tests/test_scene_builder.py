"""Scenes built from Python and the queries of a world's last step
(lcplab.Model's builder, python/ext/ext_builder.c; World.contacts,
World.step_matrices, World.global_problem, Problem.from_global;
docs/scenes.md, "Queries").

Expected values: the scene is one a user would build (boxes, spheres, a
capsule, a body of two shapes, two materials, a filtered pair, an excluded
pair, a hinge); every solver family that takes its problems steps it; the
problem's A is J M^-1 J' + diag(cfm) from the returned matrices (to
rounding: both are the library's products of the same numbers, in another
order); contacts obey the filters, the exclusion and the combine rule
(docs/scenes.md, "Materials and the combine rule"); written problems read
back bit for bit; a global problem built in numpy condenses to H' M^-1 H,
w + H' M^-1 f computed here; refused records raise SceneError naming
them and leave the model as it was."""

import numpy as np
import pytest

import lcplab

sp = pytest.importorskip("scipy.sparse", reason="python3-scipy is not installed: the step's "
                         "matrices are scipy.sparse")

BOX_I = np.full(3, 2.0 / 3.0 * 0.01)  # a 1 kg cube of half side 0.1: m (2 h^2) / 3
BALL_I = np.full(3, 0.4 * 0.5 * 0.01)  # a 0.5 kg ball of radius 0.1: 2/5 m r^2


def user_scene(hinge=True):
    """Boxes, spheres, a capsule, a body of two shapes, two materials, a
    filtered pair, an excluded pair and (with hinge) a hinged arm with a
    limit."""
    m = lcplab.Model("user")
    wood = m.add_material(mu=0.4, name="wood")
    rubber = m.add_material(mu=0.9, restitution=0.2, name="rubber")
    floor = m.add_body(static=True, name="floor")
    m.add_shape(floor, "plane", normal=(0, 0, 1), material=wood, contype=3, conaffinity=3)
    # two cubes stacked 1 mm into the floor and into each other
    for name, z in (("box1", 0.099), ("box2", 0.298)):
        b = m.add_body(1.0, BOX_I, position=(0, 0, z), name=name)
        m.add_shape(b, "box", half_extents=(0.1, 0.1, 0.1), material="wood", name=name)
    for name, x in (("ball1", 0.5), ("ball2", 0.8)):
        b = m.add_body(0.5, BALL_I, position=(x, 0, 0.099), name=name)
        m.add_shape(b, "sphere", radius=0.1, material=rubber, name=name)
    # a capsule lying along x: its z axis turned by 90 degrees about y
    c = np.sqrt(0.5)
    cap = m.add_body(0.3, (0.002, 0.002, 0.0004), position=(-0.5, 0, 0.049),
                     orientation=(c, 0, c, 0), name="capsule")
    m.add_shape(cap, "capsule", radius=0.05, half_length=0.1, name="capsule")
    # one body, two shapes at their own poses and materials; mass from them
    db = m.add_body(name="dumbbell", position=(0, 0.6, 0.1))
    m.add_shape(db, "box", half_extents=(0.08, 0.08, 0.08), position=(-0.12, 0, -0.021),
                name="bell_box")
    m.add_shape(db, "sphere", radius=0.08, position=(0.12, 0, -0.021), material=rubber,
                name="bell_ball")
    m.set_mass_from_shapes(db, density=500.0)
    # a ball inside box2 that its filter keeps from the boxes (not the floor)
    g = m.add_body(0.2, np.full(3, 0.0008), position=(0.05, 0, 0.299), name="ghost")
    m.add_shape(g, "sphere", radius=0.1, contype=2, conaffinity=2, name="ghost")
    # a cube overlapping ball2, the pair excluded
    e = m.add_body(1.0, BOX_I, position=(0.8, 0, 0.25), name="excluded")
    m.add_shape(e, "box", half_extents=(0.1, 0.1, 0.1), name="excluded")
    m.exclude("excluded", "ball2")
    if hinge:
        arm = m.add_body(0.5, (0.01, 0.01, 0.001), position=(0, -0.8, 1.0), name="arm")
        m.add_shape(arm, "box", half_extents=(0.02, 0.02, 0.2), name="arm")
        m.add_joint("hinge", arm, None, anchor=(0, -0.8, 1.2), axis=(1, 0, 0),
                    limit=(-1.0, 1.0), spring=(2.0, 0.1), name="shoulder")
    return m


# every solver family on the friction model it takes (direct takes equality
# rows only; enum problems of n <= 16)
BOX_SOLVERS = ["pgs", "pgs_wide", "pgs_color", "pgs_part", "pjacobi", "lemke", "dantzig", "auto"]
CONE_SOLVERS = ["nsgs", "nsgs_newton", "nsn_ac", "ppa_nsn", "pjacobi_cone", "pcg_cone", "apgd",
                "admm", "ipm"]
RUNS = [("box", s) for s in BOX_SOLVERS] + [("cone", s) for s in CONE_SOLVERS]


def test_model_counts_and_records():
    m = user_scene()
    assert m.counts() == {"bodies": 10, "shapes": 11, "materials": 2, "joints": 1,
                          "exclusions": 1}
    assert m.exclusions() == [(4, 8)]  # ball2 (body 4), the excluded cube (8)
    b = m.body("box1")
    assert b["mass"] == 1.0 and np.array_equal(np.diag(b["inertia"]), BOX_I)
    s = m.shape("bell_ball")
    assert s["kind"] == "sphere" and s["radius"] == 0.08 and s["material"] == 1
    # the body frame moved to the shapes' centre of mass c (mass-weighted
    # x of the box at -0.12 and the ball at 0.12; both at z = -0.021)
    mb, ms = 0.16 ** 3, 4.0 / 3.0 * np.pi * 0.08 ** 3
    cx = (-0.12 * mb + 0.12 * ms) / (mb + ms)
    assert np.allclose(s["position"], (0.12 - cx, 0, 0), atol=1e-15)
    assert "half_extents" not in s
    m.set_shape("bell_ball", **s)  # its own fields change nothing
    assert m.shape("bell_ball")["radius"] == 0.08
    m.set_shape("bell_ball", kind="box", half_extents=(0.05, 0.05, 0.05))
    assert m.shape("bell_ball")["kind"] == "box"
    m.set_body("ghost", **m.body("ghost"))
    m.set_joint("shoulder", **m.joint("shoulder"))
    j = m.joint("shoulder")
    assert j["kind"] == "hinge" and j["b"] is None and j["limit"]["lo"] == -1.0
    assert j["spring"] == {"stiffness": 2.0, "damping": 0.1, "ref": 0.0}
    m.set_joint("shoulder", spring=False, motor=(0.5, 3.0))
    j = m.joint("shoulder")
    assert j["spring"] is None and j["motor"]["max_force"] == 3.0 and j["b"] is None
    # the dumbbell's mass from its shapes: 500 (0.16^3 + 4/3 pi 0.08^3)
    v = 0.16 ** 3 + 4.0 / 3.0 * np.pi * 0.08 ** 3
    assert m.body("dumbbell")["mass"] == pytest.approx(500.0 * v, rel=1e-14)


@pytest.mark.parametrize("friction,solver", RUNS)
def test_every_solver_family(friction, solver):
    m = user_scene()
    w = lcplab.World(m, solver=solver, friction=friction)
    r = w.run(5)
    assert r.steps == 5
    assert np.all(np.isfinite(w.bodies()["r"]))
    p, x = w.last_problem()
    q = w.step_matrices()
    c = w.contacts()
    nc = len(c["depth"])
    # the hinge's 5 rows and its spring's first, then 3 rows a contact
    assert q.joint_rows == 6 and q.rows_per_contact == 3
    assert p.n == q.joint_rows + 3 * nc
    assert q.J.shape == (p.n, 6 * 10) and q.M.shape == (60, 60)
    A = (q.J @ q.Minv @ q.J.T).toarray() + np.diag(q.cfm)
    assert np.allclose(A, p.to_dense(), rtol=1e-12, atol=1e-12 * np.abs(A).max())
    # M and M^-1 are each other's inverse on the dynamic bodies' blocks
    for k in range(10):
        if q.M_blocks[k].any():
            assert np.allclose(q.M_blocks[k] @ q.Minv_blocks[k], np.eye(6), atol=1e-12)


def test_contacts_obey_filters_and_materials():
    m = user_scene()
    w = lcplab.World(m, solver="nsgs", friction="cone")
    w.step()
    c = w.contacts()
    pairs = {tuple(sorted(p)) for p in c["body"].tolist()}
    idx = {name: m._c.find("body", name) for name in
           ("floor", "box1", "box2", "ball1", "ball2", "capsule", "dumbbell", "ghost",
            "excluded", "arm")}
    # the ghost touches no box (filters), the excluded cube not ball2
    for other in ("box1", "box2"):
        assert tuple(sorted((idx["ghost"], idx[other]))) not in pairs
    assert tuple(sorted((idx["excluded"], idx["ball2"]))) not in pairs
    assert tuple(sorted((idx["floor"], idx["box1"]))) in pairs
    assert tuple(sorted((idx["box1"], idx["box2"]))) in pairs
    # both shapes of the dumbbell touch the floor, each with its material
    bell = c["body"][:, 0] == idx["dumbbell"]
    bell |= c["body"][:, 1] == idx["dumbbell"]
    shapes = set(c["shape"][bell].ravel().tolist())
    box_s, ball_s = m._c.find("shape", "bell_box"), m._c.find("shape", "bell_ball")
    assert {box_s, ball_s} <= shapes
    for k in np.flatnonzero(bell):
        rubber = ball_s in c["shape"][k]
        # max(rubber 0.9, wood 0.4) = 0.9; wood on wood 0.4 (the default
        # material is the model's first, wood)
        assert c["mu"][k] == (0.9 if rubber else 0.4)
        assert c["restitution"][k] == (0.2 if rubber else 0.0)
    # box1 on the floor: 1 mm deep, the normal along z, the points at the
    # cube's bottom corners (x, y = +-0.1)
    on_floor = np.flatnonzero(np.all(np.sort(c["body"], axis=1) == sorted(
        (idx["floor"], idx["box1"])), axis=1))
    assert len(on_floor) == 4
    assert np.allclose(c["depth"][on_floor], 0.001, atol=1e-12)
    assert np.allclose(np.abs(c["normal"][on_floor, 2]), 1.0, atol=1e-12)
    assert np.allclose(np.sort(np.abs(c["point"][on_floor, :2]).ravel()), 0.1, atol=1e-12)


def _same(p, q):
    assert p.n == q.n
    assert np.array_equal(p.to_dense(), q.to_dense())
    assert np.array_equal(p.b, q.b)
    assert np.array_equal(p.cones, q.cones)


def test_local_and_global_export(tmp_path):
    # local problems: box friction to lcplab's format, cones to FCLIB and
    # Siconos fc3d; the files read back to the same bits (x_ref too)
    w = lcplab.World(user_scene(), solver="lemke", friction="box")
    w.run(3)
    p, x = w.last_problem()
    p.x_ref = x
    lcplab.write(p, tmp_path / "box.lcp")
    back = lcplab.read(tmp_path / "box.lcp")
    _same(p, back)
    assert np.array_equal(back.findex, p.findex) and np.array_equal(back.x_ref, x)
    w = lcplab.World(user_scene(hinge=False), solver="nsgs", friction="cone")
    w.run(3)
    p, x = w.last_problem()
    for name in ("cone.hdf5", "cone.dat"):
        lcplab.write(p, tmp_path / name)
        _same(p, lcplab.read(tmp_path / name))
    # the global problem: condensed to the step's A and b, to rounding
    g = w.global_problem()
    assert np.allclose(g.to_dense(), p.to_dense(), rtol=1e-12, atol=1e-13)
    assert np.allclose(g.b, p.b, rtol=1e-12, atol=1e-13)
    assert np.array_equal(g.cones, p.cones)
    for name in ("global.hdf5", "global.dat"):
        lcplab.write(g, tmp_path / name)
        back = lcplab.read(tmp_path / name)
        _same(g, back)
        for a, b in zip(g.global_problem, back.global_problem):
            if isinstance(a, np.ndarray):
                assert np.array_equal(a, b)
            else:
                assert np.array_equal(a.toarray(), b.toarray())
    # with joint rows the global form has no place for them
    w = lcplab.World(user_scene(), solver="nsgs", friction="cone")
    w.step()
    with pytest.raises(lcplab.UnsupportedError, match="contacts only"):
        w.global_problem()


def test_problem_from_global(tmp_path):
    rng = np.random.default_rng(61)
    nd, nc = 12, 3
    B = rng.standard_normal((nd, nd))
    M = B @ B.T + nd * np.eye(nd)
    H = rng.standard_normal((nd, 3 * nc))
    H[np.abs(H) < 0.5] = 0.0
    f, w, mu = rng.standard_normal(nd), rng.standard_normal(3 * nc), [0.3, 0.5, 0.8]
    p = lcplab.Problem.from_global(sp.csr_matrix(M), H, f, w, mu, name="mine")
    Minv = np.linalg.inv(M)
    assert np.allclose(p.to_dense(), H.T @ Minv @ H, rtol=1e-12, atol=1e-12)
    assert np.allclose(p.b, w + H.T @ Minv @ f, rtol=1e-12, atol=1e-12)
    assert p.kind == "cone" and np.array_equal(np.array(p.cones)[:, 1], mu)
    assert np.array_equal(p.M.toarray(), M) and np.array_equal(p.H.toarray(), H)
    for name in ("mine.hdf5", "mine.dat"):
        lcplab.write(p, tmp_path / name)
        back = lcplab.read(tmp_path / name)
        _same(p, back)
        assert np.array_equal(back.M.toarray(), M)
    r = lcplab.solve(p, "nsgs")
    assert r.converged
    with pytest.raises(lcplab.InvalidProblemError, match="positive definite"):
        lcplab.Problem.from_global(-M, H, f, w, mu)
    f[2] = np.nan
    with pytest.raises(lcplab.InvalidProblemError, match=r"f\[2\]"):
        lcplab.Problem.from_global(M, H, f, w, mu)
    with pytest.raises(lcplab.InvalidProblemError, match="3 a contact"):
        lcplab.Problem.from_global(M, H[:, :4], f, w[:4], mu)


BAD = [
    ("body 10 'heavy': mass=-1", lambda m: m.add_body(-1.0, BOX_I, name="heavy")),
    ("body 10: mass=0", lambda m: m.add_body(0.0, BOX_I) and m.add_body(0.0, BOX_I)),
    ("inertia is not positive definite", lambda m: m.add_body(1.0, [1.0, -1.0, 1.0])),
    ("must be finite", lambda m: m.add_body(1.0, BOX_I, position=(0, np.nan, 0))),
    ("must be finite", lambda m: m.add_body(1.0, [1.0, np.inf, 1.0])),
    ("shape 11 'flat': box half extents", lambda m: m.add_shape(
        "box1", "box", half_extents=(0.1, 0.0, 0.1), name="flat")),
    ("shape 11: sphere radius", lambda m: m.add_shape("box1", "sphere", radius=-0.1)),
    ("shape 11: the hull.s 5 vertices lie in one plane", lambda m: m.add_shape(
        "box1", "hull", points=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 3, 0]])),
    ("shape 11: a hull needs >= 4", lambda m: m.add_shape("box1", "hull", points=np.eye(3))),
    ("joint 1 'elbow': no body named 'forearm'", lambda m: m.add_joint(
        "hinge", "arm", "forearm", name="elbow")),
    ("joint 1: bodies a=9, b=42 must exist", lambda m: m.add_joint("ball", 9, 42)),
    ("memory cap", lambda m: m.add_shape(
        "box1", "hull", points=np.broadcast_to(np.zeros(3), (2 ** 28, 3)))),
    ("material 2: mu=-0.5", lambda m: m.add_material(mu=-0.5)),
    ("a sphere takes radius, not half_extents", lambda m: m.add_shape(
        "box1", "sphere", half_extents=(1, 1, 1))),
    ("no material named 'ice'", lambda m: m.add_shape("box1", "sphere", radius=0.1,
                                                      material="ice")),
]


@pytest.mark.parametrize("match,build", BAD, ids=[b[0][:30] for b in BAD])
def test_bad_input_refused(match, build):
    m = user_scene()
    before = m.counts()
    with pytest.raises(lcplab.SceneError, match=match):
        build(m)
        # a body still without its mass is refused when its world is built
        lcplab.World(m)
    counts = m.counts()
    if match.startswith("body 10: mass=0"):
        counts["bodies"] -= 2  # accepted as "not set yet", refused by the world
    assert counts == before  # nothing half-built
    lcplab.World(user_scene(), solver="pgs").run(1)


def test_scene_model_changed_before_its_world():
    m = lcplab.scene_model("pile", n=20)
    assert m.counts()["bodies"] >= 20
    w0 = lcplab.World(m.copy(), solver="pgs")
    m.set_material(0, mu=0.0)
    m.gravity = (0.0, 0.0, -1.0)
    w1 = lcplab.World(m, solver="pgs")
    w0.run(60)
    w1.run(60)
    c0, c1 = w0.contacts(), w1.contacts()
    assert len(c1["mu"]) > 0 and np.all(c1["mu"] == 0.0) and np.all(c0["mu"] > 0.0)
    # a model's change never reaches a world already built
    m.set_body(0, position=(5.0, 5.0, 5.0))
    assert not np.allclose(w1.bodies()["r"][0], (5.0, 5.0, 5.0))


def test_user_scene_saved_and_loaded(tmp_path):
    m = user_scene(hinge=False)
    m.save(tmp_path / "user.xml")
    back = lcplab.load_model(tmp_path / "user.xml")
    assert back.counts() == m.counts()
    a = lcplab.World(m, solver="nsgs", friction="cone").run(5)
    b = lcplab.World(back, solver="nsgs", friction="cone", dt=1.0 / 120.0).run(5)
    assert np.array_equal(a.metrics["contacts"], b.metrics["contacts"])
