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
    with pytest.raises(lcplab.SceneError, match="geom 'can'.*cylinder"):
        lcplab.load_model(cyl)
    with pytest.raises(lcplab.SceneError, match="unknown scene"):
        lcplab.scene_model("nope")
    with pytest.raises(lcplab.Error):
        lcplab.scene_model("stack", n=-1)


def test_shell_characters_in_a_name(tmp_path):
    path = os.path.join(tmp_path, "a'b\"c$(touch ran);d`x`.xml")
    lcplab.scene_model("ball").save(path)
    assert lcplab.load_model(path).counts()["bodies"] == 2
    assert not os.path.exists(os.path.join(tmp_path, "ran"))
