"""The settings a model also holds (gravity, the time step): a value given to
World overrides the model's for that world, else the model's holds
(docs/dynamics.md, "Settings a model also holds"; the command line's side:
tests/test_overrides.sh).

Expected values: the ball scene's 1 kg ball starts at rest at z0 = 1 m,
0.9 m above the floor (no contact within these steps). Semi-implicit Euler
at step h under gravity (0, 0, -g) gives after k steps
    v_k = -g h k,   z_k = z0 - g h^2 k (k + 1) / 2,
so with gravity (0, 0, 0) the ball keeps z = 1 and v = 0 exactly."""

import numpy as np
import pytest

import lcplab

Z, VZ = lcplab.TRACE_FIELDS.index("z"), lcplab.TRACE_FIELDS.index("vz")


def fall(g, h, k):
    return 1.0 - g * h * h * k * (k + 1) / 2.0, -g * h * k


def check_fall(world, g, h, k=10):
    r = world.run(k, trace=True)
    z, vz = r.trace[-1, 0, Z], r.trace[-1, 0, VZ]
    zw, vw = fall(g, h, k)
    assert z == pytest.approx(zw, rel=1e-12, abs=1e-15)
    assert vz == pytest.approx(vw, rel=1e-12, abs=1e-15)
    return r


def test_scene_gravity_overrides_the_scenes():
    w = lcplab.World("ball", gravity=(0, 0, 0))
    r = check_fall(w, 0.0, 1.0 / 120.0)
    assert np.all(r.trace[:, 0, Z] == 1.0) and np.all(r.trace[:, 0, VZ] == 0.0)
    assert np.array_equal(w.gravity, [0.0, 0.0, 0.0])
    assert w.overrides == ("gravity",)
    w = lcplab.World("ball", gravity=[0, 0, -1.62], dt=1.0 / 240.0)
    check_fall(w, 1.62, 1.0 / 240.0)
    assert w.overrides == ("dt", "gravity")
    w = lcplab.World("ball")
    check_fall(w, 9.81, 1.0 / 120.0)
    assert w.overrides == () and np.array_equal(w.gravity, [0.0, 0.0, -9.81])


@pytest.fixture
def ball3(tmp_path):
    """The ball saved at dt 0.01 with gravity (0, 0, -3) in its file."""
    m = lcplab.scene_model("ball")
    m.gravity = (0.0, 0.0, -3.0)
    path = tmp_path / "ball3.xml"
    m.save(path, dt=0.01)
    return lcplab.load_model(path)


def test_model_gravity_and_timestep(ball3):
    w = lcplab.World(ball3)
    assert w.dt == 0.01 and w.overrides == ()
    check_fall(w, 3.0, 0.01)
    w = lcplab.World(ball3, gravity=(0, 0, 0))
    r = check_fall(w, 0.0, 0.01)
    assert np.all(r.trace[:, 0, Z] == 1.0)
    assert w.overrides == ("gravity",)
    w = lcplab.World(ball3, gravity=(0, 0, -1.62), dt=1.0 / 240.0)
    check_fall(w, 1.62, 1.0 / 240.0)
    assert w.overrides == ("dt", "gravity")
    # the model itself keeps its own gravity: the override is the world's
    assert np.array_equal(ball3.gravity, [0.0, 0.0, -3.0])


def test_a_model_built_in_python(ball3):
    m = lcplab.scene_model("ball")
    m.gravity = (0.0, 0.0, -2.0)
    check_fall(lcplab.World(m), 2.0, 1.0 / 120.0)
    check_fall(lcplab.World(m, gravity=(0, 0, -1.0)), 1.0, 1.0 / 120.0)


def test_default_material_is_the_models_first(tmp_path):
    """A shape that names no material takes the model's first, in the world
    and in the saved file alike (dyn_model_default_material: no front end
    copies a material into the settings)."""
    m = lcplab.Model("slab")
    m.add_material(mu=0.9, restitution=0.3, name="grip")
    floor = m.add_body(static=True, name="floor")
    m.add_shape(floor, "plane", normal=(0, 0, 1))               # no material
    b = m.add_body(1.0, (0.004, 0.004, 0.004), position=(0, 0, 0.099), name="ball")
    m.add_shape(b, "sphere", radius=0.1)                        # no material
    w = lcplab.World(m)
    w.step()
    c = w.contacts()
    assert len(c["mu"]) >= 1
    assert np.all(c["mu"] == 0.9) and np.all(c["restitution"] == 0.3)
    path = tmp_path / "slab.xml"
    m.save(path)
    text = path.read_text()
    # both geoms written with the friction the world gives them, not 0.5
    assert text.count('friction="0.90000000000000002 0 0"') == 2, text
