"""lcplab.Model, scene_model, load_model: scene models and their MJCF files
(python/lcplab/_model.py, python/ext/ext_model.c; docs/models.md).

Expected values: a saved scene loads back to a model whose world steps to
the same metrics and trace as the scene's own (the C round trip is exact:
tests/test_mjcf.c); the file's timestep becomes the world's dt; refusals
raise the package's errors with the file and the element named."""

import os

import numpy as np
import pytest

import lcplab


def test_scene_model_counts():
    m = lcplab.scene_model("stack", n=3)
    # three cubes and the floor, one shape each, the scene's one material
    assert m.counts() == {"bodies": 4, "shapes": 4, "materials": 1, "joints": 0,
                          "exclusions": 0}
    assert m.name == "stack" and m.timestep is None
    assert m.default_steps(1.0 / 120.0) == 600
    assert lcplab.scene_model("incline").default_steps(0.01) == 100  # 1 s


def test_save_load_same_run(tmp_path):
    m = lcplab.scene_model("car", speed=3.0)
    path = tmp_path / "car.xml"
    m.save(path)
    r = lcplab.load_model(path)
    assert r.counts() == m.counts()
    assert r.name == "car" and r.timestep == 1.0 / 120.0 and r.warnings == ""
    a = lcplab.World("car", {"speed": 3.0}, solver="pgs").run(30, trace=True)
    b = lcplab.World(r, solver="pgs").run(30, trace=True)
    for field in ("energy", "contacts", "rows", "res_nat_inf", "joint_error"):
        assert np.array_equal(a.metrics[field], b.metrics[field]), field
    assert np.array_equal(a.trace, b.trace)


def test_world_from_a_model(tmp_path):
    m = lcplab.scene_model("ball", height=2.0)
    w = lcplab.World(m, solver="pgs")
    assert w.scene == "ball" and w.default_steps() == 600
    # the file's timestep is the dt, unless dt is given
    path = tmp_path / "ball.xml"
    m.save(path, dt=0.01)
    loaded = lcplab.load_model(path)
    assert lcplab.World(loaded).dt == 0.01
    assert lcplab.World(loaded, dt=0.005).dt == 0.005
    with pytest.raises(lcplab.SceneError):
        lcplab.World(m, {"height": 3.0})


def test_no_overwrite(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text("keep")
    m = lcplab.scene_model("pendulum")
    with pytest.raises(lcplab.ExistingFileError):
        m.save(path)
    assert path.read_text() == "keep"
    m.save(path, force=True)
    assert "<mujoco" in path.read_text()


def test_refusals(tmp_path):
    with pytest.raises(lcplab.MissingFileError):
        lcplab.load_model(tmp_path / "none.xml")
    bad = tmp_path / "foo.xml"
    bad.write_text("<foo/>\n")
    with pytest.raises(lcplab.FileError, match="foo.xml.*Unrecognized"):
        lcplab.load_model(bad)
    cyl = tmp_path / "cyl.xml"
    cyl.write_text('<mujoco><worldbody><body name="b"><freejoint/>'
                   '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
                   '<geom name="can" type="cylinder" size="0.1 0.2"/></body></worldbody>'
                   '</mujoco>\n')
    # a cylinder is a shape of its own (its support function, issue 80): loaded
    m = lcplab.load_model(cyl)
    assert m.shape(0)["kind"] == "cylinder" and m.shape(0)["half_length"] == 0.2
    tor = tmp_path / "tor.xml"
    tor.write_text('<mujoco><worldbody><body name="b"><freejoint/>'
                   '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
                   '<geom name="can" type="sphere" size="0.1" condim="6"/></body></worldbody>'
                   '</mujoco>\n')
    # rolling friction (condim 6) is mapped (test_rolling_friction_*); for
    # worlds of the cone it is refused, the geom named
    assert lcplab.load_model(tor).counts()["shapes"] == 1
    with pytest.raises(lcplab.SceneError, match="geom 'can'.*condim 6"):
        lcplab.load_model(tor, friction="cone")
    with pytest.raises(lcplab.SceneError, match="unknown scene"):
        lcplab.scene_model("nope")
    with pytest.raises(lcplab.Error):
        lcplab.scene_model("stack", n=-1)


def test_refusals_name_the_python_arguments(tmp_path):
    # issue 86, item 12: a refusal names the argument a Python user passes
    # (approximate=True, coordinates="reduced"/"maximal", max_memory=), not
    # the program's options (--approximate, --coordinates, --max-memory)
    cyl = tmp_path / "cyl.xml"
    cyl.write_text('<mujoco><worldbody><body name="b"><freejoint/>'
                   '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
                   '<geom name="can" type="cylinder" size="0.1 0.2"/></body></worldbody>'
                   '</mujoco>\n')
    arm = tmp_path / "arm.xml"
    arm.write_text('<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" '
                   'type="hinge" axis="0 1 0" armature="0.1"/><geom name="g" type="sphere" '
                   'size="0.1"/></body></worldbody></mujoco>\n')
    loop = tmp_path / "loop.xml"
    loop.write_text('<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" '
                    'type="hinge" axis="0 1 0"/><geom name="g" type="sphere" size="0.1"/>'
                    '</body></worldbody><equality><connect name="pin" body1="a" '
                    'anchor="0.1 0 0"/></equality></mujoco>\n')
    cyl.write_text(cyl.read_text().replace('type="cylinder" size="0.1 0.2"',
                                           'type="sphere" size="0.1" condim="6"'))
    cases = [((cyl,), {"friction": "cone"}, "rerun with approximate=True to"),
             ((arm,), {"coordinates": "maximal"}, 'coordinates="reduced"'),
             ((cyl,), {"approximate": True, "max_memory": 1 << 20}, "(max_memory=)")]
    for args, kw, words in cases:
        with pytest.raises(lcplab.SceneError) as e:
            lcplab.load_model(*args, **kw)
        assert words in str(e.value) and "--" not in str(e.value), str(e.value)


def test_shell_characters_in_a_name(tmp_path):
    path = os.path.join(tmp_path, "a'b\"c$(touch ran);d`x`.xml")
    lcplab.scene_model("ball").save(path)
    assert lcplab.load_model(path).counts()["bodies"] == 2
    assert not os.path.exists(os.path.join(tmp_path, "ran"))


def test_approximate_and_memory_cap(tmp_path):
    # rolling friction (condim 6) for a world of the cone, approximated:
    # condim 3 (docs/models.md), said in notes
    cyl = tmp_path / "cyl.xml"
    cyl.write_text('<mujoco><worldbody><body name="b"><freejoint/>'
                   '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
                   '<geom name="can" type="sphere" size="0.1" condim="6"/></body></worldbody>'
                   '</mujoco>\n')
    m = lcplab.load_model(cyl, approximate=True, friction="cone")
    assert m.counts()["bodies"] == 1 and m.counts()["shapes"] == 1
    assert "can" in m.notes and "condim 3" in m.notes
    # the memory cap: MuJoCo's default stack alone (about 10 MB) passes 1 MiB
    with pytest.raises(lcplab.SceneError, match="cyl.xml: 2 bodies.*memory cap of 1048576"):
        lcplab.load_model(cyl, approximate=True, max_memory=1 << 20)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_memory"):
            lcplab.load_model(cyl, max_memory=bad)
    humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml"
    if os.path.exists(humanoid):
        with pytest.raises(lcplab.SceneError, match="armature"):
            lcplab.load_model(humanoid, coordinates="maximal")
        h = lcplab.load_model(humanoid, approximate=True, coordinates="maximal")
        # 16 MuJoCo bodies less the world, 9 chain bodies, the floor's body
        assert h.counts()["bodies"] == 26 and "armature" in h.notes


def test_reduced_coordinates(tmp_path):
    # docs/models.md, "Third-party models: the representation": a model read
    # for reduced coordinates builds worlds in them (joint error 0 by
    # construction), holds a loop (an equality: the cut joint's rows in
    # joint space, here a pin locking the hinge: the body stays, the pin's
    # anchors under 1e-6 m apart) and refuses bad choices
    loop = tmp_path / "loop.xml"
    loop.write_text('<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" '
                    'type="hinge" axis="0 1 0"/><geom name="g" type="sphere" size="0.1"/>'
                    '</body></worldbody><equality><connect name="pin" body1="a" '
                    'anchor="0.1 0 0"/></equality></mujoco>\n')
    r = lcplab.World(lcplab.load_model(loop, coordinates="reduced")).run(50, trace=False)
    assert np.all(r.metrics["joint_error"] < 1e-6), r.metrics["joint_error"]
    with pytest.raises(ValueError, match="coordinates"):
        lcplab.load_model(loop, coordinates="joint")
    humanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml"
    if not os.path.exists(humanoid):
        return
    h = lcplab.load_model(humanoid, coordinates="reduced")  # no approximate: armature is mapped
    assert "armature" not in h.notes
    r = lcplab.World(h, solver="pgs").run(100, trace=False)
    assert np.all(r.metrics["joint_error"] == 0.0)
    assert r.metrics["energy"][-1] < r.metrics["energy"][0]
    assert r.metrics["contacts"][-1] > 0


def test_the_files_own_coordinates_by_default(tmp_path):
    # issue 80, item 5a: with no coordinates=, a file with a kinematic tree
    # is read in reduced coordinates (armature mapped, no approximate=), a
    # loop too (since issue 80's equality rows), a pile of free bodies and
    # a file lcplab wrote in maximal; the
    # model says which, and its worlds are built in it
    arm = tmp_path / "arm.xml"
    arm.write_text('<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" '
                   'type="hinge" axis="0 1 0" armature="0.1"/><geom name="g" type="sphere" '
                   'size="0.1" pos="0.3 0 0"/></body></worldbody></mujoco>\n')
    m = lcplab.load_model(arm)
    assert m.coordinates == "reduced" and m.copy().coordinates == "reduced"
    r = lcplab.World(m).run(20, trace=False)
    assert np.all(r.metrics["joint_error"] == 0.0)
    assert lcplab.load_model(arm, coordinates="maximal", approximate=True).coordinates == "maximal"
    loop = tmp_path / "loop.xml"
    loop.write_text('<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" '
                    'type="hinge" axis="0 1 0"/><geom name="g" type="sphere" size="0.1"/>'
                    '</body></worldbody><equality><connect name="pin" body1="a" '
                    'anchor="0.1 0 0"/></equality></mujoco>\n')
    assert lcplab.load_model(loop).coordinates == "reduced"  # a loop: rows in joint space
    pile = tmp_path / "pile.xml"
    pile.write_text('<mujoco><worldbody><geom type="plane" size="1 1 .1"/><body pos="0 0 1">'
                    '<freejoint/><geom type="sphere" size="0.1"/></body></worldbody>'
                    '</mujoco>\n')
    assert lcplab.load_model(pile).coordinates == "maximal"
    saved = tmp_path / "saved.xml"
    lcplab.scene_model("ball").save(saved)
    assert lcplab.load_model(saved).coordinates == "maximal"
    assert lcplab.Model("x").coordinates == "maximal"


def test_a_crash_of_libmujoco_is_an_error(tmp_path):
    # a pybullet-style URDF whose unknown joint type ("spherical") makes
    # libmujoco 2.2.2's mj_loadXML write through a null pointer: the read is
    # tried first in a child process (libmodels/mujoco_probe.c), so the
    # interpreter lives and gets the package's error, the file named
    # (tests/test_model_crash.sh: the same through the program)
    urdf = tmp_path / "hip.urdf"
    urdf.write_text(
        '<robot name="r"><link name="base"/>'
        '<link name="leg"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" '
        'iyy="0.1" iyz="0" izz="0.1"/></inertial><collision><geometry>'
        '<box size="0.1 0.1 0.4"/></geometry></collision></link>'
        '<joint name="hip" type="spherical"><parent link="base"/><child link="leg"/>'
        '<origin xyz="0 0 1"/></joint></robot>\n')
    for coordinates in ("maximal", "reduced"):
        with pytest.raises(lcplab.FileError, match="libmujoco crashed reading .*hip.urdf"):
            lcplab.load_model(urdf, coordinates=coordinates)
    # the same robot with a revolute hip loads: only the crash is refused
    urdf.write_text(urdf.read_text().replace("spherical", "revolute"))
    assert lcplab.load_model(urdf).counts()["joints"] == 1


def test_ellipsoid_and_cylinder_round_trip(tmp_path):
    # issue 80, item 5b: ellipsoid and cylinder are shapes of their own,
    # written as MJCF's and read back to the same sizes (no hull); an
    # ellipsoid of vertical semi-axis 0.1 dropped on the floor comes to rest
    # with its centre 0.1 above it (less the contact's small penetration)
    m = lcplab.Model("shapes")
    floor = m.add_body(static=True, name="floor")
    m.add_shape(floor, "plane", normal=(0, 0, 1))
    e = m.add_body(1.0, (0.01, 0.02, 0.026), position=(0, 0, 0.3), name="egg")
    m.add_shape(e, "ellipsoid", half_extents=(0.3, 0.2, 0.1), name="egg")
    c = m.add_body(1.0, (0.0125, 0.0125, 0.005), position=(1, 0, 0.5), name="can")
    m.add_shape(c, "cylinder", radius=0.1, half_length=0.2, name="can")
    path = tmp_path / "shapes.xml"
    m.save(path, dt=0.002)
    back = lcplab.load_model(path)
    assert back.shape("egg")["kind"] == "ellipsoid"
    assert np.array_equal(back.shape("egg")["half_extents"], [0.3, 0.2, 0.1])
    assert back.shape("can")["kind"] == "cylinder"
    assert back.shape("can")["radius"] == 0.1 and back.shape("can")["half_length"] == 0.2
    w = lcplab.World(back, solver="nsgs", friction="cone", dt=0.002)
    w.run(600, trace=False)
    r = w.bodies()["r"]
    assert abs(r[1, 2] - 0.1) < 2e-3 and abs(r[2, 2] - 0.2) < 2e-3, r


def _contact_steps_converged(metrics):
    """(contact steps, converged ones) of a run's metrics."""
    with_rows = metrics["rows"] > 0
    converged = metrics["status"][with_rows] == lcplab.Status.CONVERGED
    return int(with_rows.sum()), int(converged.sum())


@pytest.mark.parametrize("path,steps", [
    (os.path.join(os.path.dirname(__file__), "..", "..", "tests", "models", "quadruped.urdf"), 300),
    ("/usr/share/mujoco/model/humanoid/humanoid.xml", 200),
])
def test_reduced_defaults_converge(path, steps):
    # issue 80, item 2: World(load_model(FILE)) with no solver: a reduced
    # world gets auto (dantzig on its islands, exact fallbacks;
    # dyn_world_default_solver, as `lcplab simulate --model`), and >= 95 % of its contact steps end converged by the
    # judge with the energy never 1 % above its start.  Under pgs at 50
    # sweeps (before) the humanoid's first second had 0 of 158 converged.
    if not os.path.exists(path):
        pytest.skip(f"{path} absent (libmujoco-samples)")
    m = lcplab.load_model(path)
    assert m.coordinates == "reduced"
    w = lcplab.World(m)
    assert w.solver == "auto"
    e0 = sum(w.energy())
    r = w.run(steps, trace=False)
    n, c = _contact_steps_converged(r.metrics)
    assert n > 0 and c >= 0.95 * n, f"{c} of {n} contact steps converged"
    assert e0 > 0 and r.metrics["energy"].max() <= 1.01 * e0
    assert lcplab.World(m, solver="pgs").solver == "pgs"  # a named solver stays
    assert lcplab.World(m, friction="cone").solver == "nsgs"  # cones: the sweeps' default


def test_ctrl_drives_actuators(tmp_path):
    # issue 80, item 5 (ctrl): tests/models/ctrl_actuators.xml's four
    # actuators (a geared motor, a position servo of kp 400 on a 2 kg lift
    # damped by 40, a velocity servo, a motor on a fixed tendon), in the
    # file's order.  With ctrl
    # height = 0.2 the lift settles where kp (0.2 - z) = m g: z = 0.2 -
    # 2 g / 400 = 0.150950 m above its start (MuJoCo's step: 0.150961 m
    # after 1 s), against 0.049 m below without ctrl.
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "models",
                        "ctrl_actuators.xml")
    m = lcplab.load_model(path)
    w = lcplab.World(m)
    assert np.array_equal(w.ctrl, np.zeros(4))
    z0 = w.bodies()["r"][1][2]
    w.set_ctrl([0.0, 0.2, 0.0, 0.0])
    assert np.array_equal(w.ctrl, [0.0, 0.2, 0.0, 0.0])
    w.run(500)
    dz = w.bodies()["r"][1][2] - z0
    assert abs(dz - (0.2 - 2 * 9.81 / 400)) < 1e-4, dz
    # a control set between steps acts from the next step: the spinner
    # (I = 0.251 about its hinge) turns only once its motor is on
    w2 = lcplab.World(m)
    w2.run(10)
    assert np.allclose(w2.bodies()["w"][0], 0.0)
    w2.set_ctrl([0.5, 0.0, 0.0, 0.0])  # gear 2: 1 N m
    w2.run(1)
    assert abs(w2.bodies()["w"][0][2] - 1.0 * w2.dt / 0.251) < 1e-3 * (w2.dt / 0.251)
    # a motor on a fixed tendon (length q_left - 0.5 q_right, gear 0.8):
    # one step from rest turns each hinge by its coefficient's share,
    # w = coef gear f h / (I + h d) (I_left = 0.161; I_right = 0.041 with
    # a damping d of 0.05, implicit)
    w3 = lcplab.World(m)
    w3.set_ctrl([0.0, 0.0, 0.0, 1.5])
    w3.run(1)
    h = w3.dt
    wz = w3.bodies()["w"][:, 2]
    assert abs(wz[3] - 0.8 * 1.5 * h / 0.161) < 1e-9 and abs(wz[4] + 0.4 * 1.5 * h / (0.041 + 0.05 * h)) < 1e-9
    # bad controls: lcplab errors naming the index; nothing set
    with pytest.raises(lcplab.SceneError, match="ctrl has 2 entries; the model has 4 actuators"):
        w.set_ctrl([0.0, 1.0])
    with pytest.raises(lcplab.SceneError, match=r"ctrl\[2\] \(actuator 'speed'\): is not finite"):
        w.set_ctrl([0.0, 0.0, np.nan, 0.0])
    assert np.array_equal(w.ctrl, [0.0, 0.2, 0.0, 0.0])
    mx = lcplab.World(lcplab.load_model(path, coordinates="maximal"))
    with pytest.raises(lcplab.SceneError, match=r"ctrl\[0\] \(actuator 'torque'\).*reduced"):
        mx.set_ctrl([1.0, 0.0, 0.0, 0.0])


def test_actuators_not_lost_on_save(tmp_path):
    # MJCF's writer writes no actuator: saving a model with actuators wrote
    # the file without them (tests/models/ctrl_actuators.xml: four dropped,
    # exit 0); now refused by name, no file written
    here = os.path.dirname(os.path.abspath(__file__))
    m = lcplab.load_model(os.path.join(here, "..", "..", "tests", "models", "ctrl_actuators.xml"))
    out = tmp_path / "saved.xml"
    with pytest.raises(lcplab.SceneError, match="actuator 'torque': actuators are not written"):
        m.save(out)
    assert not out.exists()


def test_fixed_tendon_not_lost_on_save(tmp_path):
    # issue 80, item 5: a fixed tendon's limit and spring load in reduced
    # coordinates (tests/models/tendon_limit.xml); MJCF's writer does not
    # write tendons, so saving such a model is refused by name, no file
    # half-written
    here = os.path.dirname(os.path.abspath(__file__))
    m = lcplab.load_model(os.path.join(here, "..", "..", "tests", "models", "tendon_limit.xml"))
    assert m.coordinates == "reduced"
    out = tmp_path / "saved.xml"
    with pytest.raises(lcplab.SceneError, match="tendon 'stop': fixed tendons are not written"):
        m.save(out)
    assert not out.exists()


# A spinning body on a floor (issue 80, item 5: condim 4).  Resting on the
# floor (depth 0, no Baumgarte), the normal impulses of a step sum to
# m g h; each contact's spin row then slides at its bound mu_t x_n, so the
# spin about the normal loses mu_t m g h / I_zz a step, exactly (dantzig and
# lemke solve the box LCP to rounding): after k steps
#     w_k = w_0 - k mu_t m g h / I_zz
# (4 contacts of a box, or 1 of a sphere, alike: only their sum counts).
# Under condim 3 the spin is kept (the sliding friction of a box's corners
# is 0 here; a sphere's contact point does not slide when it spins).
def _spin(tmp_path, geom, floor, inertia, coords, steps=50, w0=5.0):
    f = tmp_path / "spin.xml"
    f.write_text('<mujoco><option timestep="0.002"/><worldbody>'
                 f'<geom name="floor" type="plane" size="0 0 1" {floor}/>'
                 '<body name="top" pos="0 0 0"><freejoint/>'
                 f'<inertial pos="0 0 0" mass="1" diaginertia="{inertia}"/>{geom}'
                 '</body></worldbody></mujoco>\n')
    w = lcplab.World(lcplab.load_model(f, coordinates=coords), solver="dantzig")
    dyn = int(np.argmin(w.bodies()["is_static"]))
    if coords == "maximal":
        st = w.state()
        st.w[dyn] = (0.0, 0.0, w0)
        w.set_state(st)
    else:
        u = np.zeros(len(w.joint_velocities()))
        u[2] = w0  # the free root's ball, about z
        w.set_joint_velocities(u)
    w.run(steps)
    return w.bodies()["w"][dyn][2], w.contacts()


def test_torsional_friction_spin_decelerates(tmp_path):
    g, h, w0, k = 9.81, 0.002, 5.0, 50
    box = ('<geom name="b" type="box" size="0.1 0.1 0.05" pos="0 0 0.05" '
           'friction="0 0.02 0" condim="{}"/>')
    izz = (0.2 ** 2 + 0.2 ** 2) / 12.0
    inertia = f"0.0041666666666666666 0.0041666666666666666 {izz!r}"
    for coords in ("maximal", "reduced"):
        w, con = _spin(tmp_path, box.format(4), 'friction="0 0 0"', inertia, coords)
        expect = w0 - k * 0.02 * g * h / izz
        assert abs(w - expect) <= 1e-9 * w0, (coords, w, expect)
        assert list(con["mu_torsion"]) == [0.02] * 4 and list(con["mu"]) == [0.0] * 4
        w, con = _spin(tmp_path, box.format(3), 'friction="0 0 0"', inertia, coords)
        assert w == w0 and list(con["mu_torsion"]) == [0.0] * 4, (coords, w)
    # the cone has no spin row: a world of it on a model of condim 4 is refused
    _spin(tmp_path, box.format(4), 'friction="0 0 0"', inertia, "maximal", steps=1)
    with pytest.raises(lcplab.SceneError, match="condim 4.*box friction only"):
        lcplab.World(lcplab.load_model(tmp_path / "spin.xml"), friction="cone")
    # a sphere on MuJoCo's default floor (friction 1 0.005 0.0001, condim 3):
    # its friction[1] 0.03 is the larger, and counts (the pairing rule)
    ball = '<geom name="s" type="sphere" size="0.1" pos="0 0 0.1" friction="0.5 0.01 0" condim="4"/>'
    for floor, mt in (('friction="1 0.005 0.0001"', 0.01), ('friction="1 0.03 0"', 0.03)):
        w, con = _spin(tmp_path, ball, floor, "0.004 0.004 0.004", "reduced", steps=20)
        expect = w0 - 20 * mt * g * h / 0.004
        assert abs(w - expect) <= 1e-9 * w0, (floor, w, expect)
        assert list(con["mu_torsion"]) == [mt] and list(con["mu"]) == [1.0], con
    # stopped (5 / 0.14715 = 33.98 steps): then held at rest by the same row
    w, con = _spin(tmp_path, ball, 'friction="1 0.03 0"', "0.004 0.004 0.004", "maximal",
                   steps=40)
    assert abs(w) <= 1e-12, w


def test_contact_pairing_rule(tmp_path):
    # MuJoCo's mj_contactParam for two geoms of one priority: the larger
    # condim, the larger of each friction component; condim 1 frictionless
    # only when both are 1 (before: a condim-1 geom's friction was dropped,
    # so the pair took its partner's 0.3 where MuJoCo takes 0.8)
    cases = [(("0.8 0.02 0", 1), ("0.3 0.05 0", 3), 0.8, 0.0),
             (("0.8 0.02 0", 1), ("0.3 0.05 0", 1), 0.0, 0.0),
             (("0.8 0.02 0", 3), ("0.3 0.05 0", 3), 0.8, 0.0),
             (("0.2 0.02 0", 4), ("0.3 0.05 0", 1), 0.3, 0.05),
             (("0.2 0.07 0", 4), ("0.3 0.05 0", 4), 0.3, 0.07)]
    for (fb, cb), (ff, cf), mu, mt in cases:
        f = tmp_path / "pair.xml"
        f.write_text('<mujoco><worldbody>'
                     f'<geom name="floor" type="plane" size="0 0 1" friction="{ff}" condim="{cf}"/>'
                     '<body name="b" pos="0 0 0.1"><freejoint/>'
                     f'<geom name="s" type="sphere" size="0.1" friction="{fb}" condim="{cb}"/>'
                     '</body></worldbody></mujoco>\n')
        w = lcplab.World(lcplab.load_model(f))
        w.run(1)
        con = w.contacts()
        assert list(con["mu"]) == [mu] and list(con["mu_torsion"]) == [mt], (fb, cb, ff, cf, con)


def test_contact_pairing_rule_rolling(tmp_path):
    # condim 6 (issue 80 item 5): the pair's condim the larger; its
    # mu_rolling the larger of the two friction[2] where that is 6, else 0;
    # its mu_torsion the larger friction[1] where it is 4 or 6.  A floor of
    # condim 3 takes part with its friction[1] and [2] (MuJoCo's default
    # floor: "1 0.005 0.0001").  Before: condim 6 refused by name.
    cases = [(("0.5 0.01 0.002", 6), ("1 0.005 0.0001", 3), 1.0, 0.01, 0.002),
             (("0.5 0.01 0.002", 6), ("1 0.02 0.003", 1), 1.0, 0.02, 0.003),
             (("0.5 0.01 0.002", 4), ("1 0.02 0.003", 6), 1.0, 0.02, 0.003),
             (("0.5 0.01 0.002", 4), ("1 0.02 0.003", 3), 1.0, 0.02, 0.0),
             (("0.5 0.01 0.002", 6), ("0.3 0.005 0.001", 6), 0.5, 0.01, 0.002),
             (("0.5 0.01 0.002", 1), ("0.3 0.005 0.001", 1), 0.0, 0.0, 0.0)]
    for i, ((fb, cb), (ff, cf), mu, mt, mr) in enumerate(cases):
        f = tmp_path / "pair6.xml"
        f.write_text('<mujoco><worldbody>'
                     f'<geom name="floor" type="plane" size="0 0 1" friction="{ff}" condim="{cf}"/>'
                     '<body name="b" pos="0 0 0.1"><freejoint/>'
                     f'<geom name="s" type="sphere" size="0.1" friction="{fb}" condim="{cb}"/>'
                     '</body></worldbody></mujoco>\n')
        for coords in ("maximal", "reduced") if i < 2 else ("maximal",):
            w = lcplab.World(lcplab.load_model(f, coordinates=coords))
            w.run(1)
            con = w.contacts()
            got = (list(con["mu"]), list(con["mu_torsion"]), list(con["mu_rolling"]))
            assert got == ([mu], [mt], [mr]), (fb, cb, ff, cf, coords, got)


# A ball rolling on a floor (issue 80, item 5: condim 6).  Rolling without
# slipping at v (w = v / r about the axis across the motion), resting on
# the floor (depth 0: the normal impulse of a step is m g h).  The rolling
# row about that axis slides at its bound mu_r m g h (an angular impulse
# against w); the sliding rows hold the contact point (v' = r w'):
#     m dv = P,   I dw = -r P - mu_r m g h,   dv = r dw
# so dv = -mu_r m g h r / (I + m r^2) a step: for a solid ball (I = 2/5 m
# r^2) v_k = v_0 - k mu_r g h / (1.4 r), exactly while it rolls (dantzig
# solves the box LCP to rounding).  The tangents of a normal along z are
# the world's x and y (dyn_contact_basis), so the box bound is the
# rolling row's own.  Under condim 3 the ball rolls on at v_0.
def _roll(tmp_path, condim, coords, steps=50, v0=1.0, r=0.1, friction="1 0 0.005",
          load=None, world=None):
    f = tmp_path / "roll.xml"
    f.write_text('<mujoco><option timestep="0.002"/><worldbody>'
                 '<geom name="floor" type="plane" size="0 0 1" friction="1 0 0"/>'
                 f'<body name="b" pos="0 0 {r!r}"><freejoint/>'
                 f'<inertial pos="0 0 0" mass="1" diaginertia="{0.4 * r * r!r} '
                 f'{0.4 * r * r!r} {0.4 * r * r!r}"/>'
                 f'<geom name="s" type="sphere" size="{r!r}" friction="{friction}" '
                 f'condim="{condim}"/></body></worldbody></mujoco>\n')
    w = lcplab.World(lcplab.load_model(f, coordinates=coords, **(load or {})),
                     **(world or {"solver": "dantzig"}))
    dyn = int(np.argmin(w.bodies()["is_static"]))
    if coords == "maximal":
        st = w.state()
        st.v[dyn] = (v0, 0.0, 0.0)
        st.w[dyn] = (0.0, v0 / r, 0.0)
        w.set_state(st)
    else:
        u = np.zeros(len(w.joint_velocities()))
        u[1] = v0 / r  # the free root's ball (u[0:3]), about y
        u[3] = v0      # its slide along x (u[3:6])
        w.set_joint_velocities(u)
    w.run(steps)
    b = w.bodies()
    return b["v"][dyn][0], b["w"][dyn][1], w.contacts()


def test_rolling_friction_ball_decelerates(tmp_path):
    g, h, k, mu_r = 9.81, 0.002, 50, 0.005
    for r in (0.1, 0.25):
        for coords in ("maximal", "reduced"):
            v, wy, con = _roll(tmp_path, 6, coords, r=r)
            expect = 1.0 - k * mu_r * g * h / (1.4 * r)
            assert abs(v - expect) <= 1e-9, (coords, r, v, expect)
            assert abs(wy * r - v) <= 1e-9, (coords, r, wy, v)
            assert list(con["mu_rolling"]) == [mu_r], con
            v, wy, con = _roll(tmp_path, 3, coords, r=r)
            assert abs(v - 1.0) <= 1e-12 and list(con["mu_rolling"]) == [0.0], (coords, v)
    # stopped (1 / 7.0071e-4 = 1427 steps at r 0.1; 50 steps at mu_r 0.14):
    # then held at rest by the same rows
    v, wy, con = _roll(tmp_path, 6, "maximal", steps=80, friction="1 0 0.14")
    assert abs(v) <= 1e-12 and abs(wy) <= 1e-12, (v, wy)


def test_rolling_friction_under_the_cone(tmp_path):
    # the cone and the pyramid have no rows of angular velocity: a world of
    # either on a model of condim 6 is refused, the material named; read for
    # it (load_model's friction=, as --friction and an experiment's
    # friction=) the geom is refused, named, or with approximate=True read
    # as condim 3 and said
    _roll(tmp_path, 6, "maximal", steps=1)
    f = tmp_path / "roll.xml"
    for fr in ("cone", "pyramid"):
        with pytest.raises(lcplab.SceneError, match="condim 6.*box friction only"):
            lcplab.World(lcplab.load_model(f), friction=fr)
        with pytest.raises(lcplab.SceneError, match="geom 's'.*condim 6.*approximate=True"):
            lcplab.load_model(f, friction=fr)
        m = lcplab.load_model(f, friction=fr, approximate=True)
        assert "geom 's'" in m.notes and "condim 3" in m.notes, m.notes
        w = lcplab.World(m, friction=fr)
        w.run(2)
        assert list(w.contacts()["mu_rolling"]) == [0.0]
    with pytest.raises(ValueError, match="friction"):
        lcplab.load_model(f, friction="cones")


def test_dropping_torsion_the_same_on_every_surface(tmp_path):
    # issue 80 item 5: approximate=True keeps torsion and rolling where the
    # worlds simulate them (box friction: read as they are, no note) and
    # drops them where they do not (the cone: condim 3, said), as the
    # command line's --approximate and an experiment's approximate=yes do
    # (tests/test_models.sh).  Before: load_model had no friction= (a cone
    # world could not drop torsion), experiments dropped it under box too.
    g, h, k, mu_r = 9.81, 0.002, 50, 0.005
    v, wy, con = _roll(tmp_path, 6, "reduced", load={"approximate": True, "friction": "box"})
    assert abs(v - (1.0 - k * mu_r * g * h / 0.14)) <= 1e-9, v
    m = lcplab.load_model(tmp_path / "roll.xml", approximate=True, friction="box")
    assert m.notes == "", m.notes
    v, wy, con = _roll(tmp_path, 6, "reduced", load={"approximate": True, "friction": "cone"},
                       world={"friction": "cone"})
    assert abs(v - 1.0) <= 1e-9 and list(con["mu_rolling"]) == [0.0], (v, con)
