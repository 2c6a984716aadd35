"""World.step_jacobian (docs/gradients.md, "Through a world step") against
central differences of World.step restarted from World.state() with one
velocity or load moved: a sliding and a sticking cube on a slope (box
friction; four redundant contacts), a sphere resting within the margin
(separated), a hinged double pendulum (joint rows), a ragdoll on the floor
(joints and contacts); the positions through each integrator; and the
refusals of World.set_state and step_jacobian."""

import numpy as np
import pytest

import lcplab

EPS = 1e-6


def _velocities(s):
    return np.hstack([s.v, s.w]).reshape(-1)


def _rotvec(q):
    """The rotation vector of a unit quaternion (w first)."""
    w, v = q[0], np.asarray(q[1:])
    s = np.linalg.norm(v)
    if s < 1e-300:
        return 2 * v
    return 2 * np.arctan2(s, w) * v / s


def _qmul(a, b):
    aw, av, bw, bv = a[0], np.asarray(a[1:]), b[0], np.asarray(b[1:])
    return np.hstack([aw * bw - av @ bv, aw * bv + bw * av + np.cross(av, bv)])


def _positions(s, base):
    """dr and the world rotation vector of q q_base^-1, 6 per body."""
    out = []
    for i in range(len(s.r)):
        qc = base.q[i] * np.array([1, -1, -1, -1])
        out.append(np.hstack([s.r[i] - base.r[i], _rotvec(_qmul(s.q[i], qc))]))
    return np.hstack(out)


def _fd(w, s0, force, static):
    """Central differences of the velocities and positions after one step
    from s0 along each velocity (or load, force=True)."""
    nv = 6 * w.body_count
    w.set_state(s0)
    w.step()
    base = w.state()
    Jv, Jq = np.zeros((nv, nv)), np.zeros((nv, nv))
    for k in range(nv):
        b, d = divmod(k, 6)
        if static[b]:
            continue
        res = []
        for sg in (1, -1):
            s = s0.copy()
            arr = (s.f_ext if d < 3 else s.t_ext) if force else (s.v if d < 3 else s.w)
            arr[b, d % 3] += sg * EPS
            w.set_state(s)
            w.step()
            res.append(w.state())
        Jv[:, k] = (_velocities(res[0]) - _velocities(res[1])) / (2 * EPS)
        Jq[:, k] = (_positions(res[0], base) - _positions(res[1], base)) / (2 * EPS)
    return Jv, Jq


def _rel(a, b):
    return np.abs(a - b).max() / max(1.0, np.abs(b).max())


def _check(w, warm, tol=1e-6, velocities=True):
    for _ in range(warm):
        w.step()
    static = w.bodies()["is_static"]
    s0 = w.state()
    w.step()
    jac = w.step_jacobian()
    for force, Jv_, Jq_ in ((False, jac.dv_du, jac.dq_du), (True, jac.dv_df, jac.dq_df)):
        if not force and not velocities:
            continue
        Jv, Jq = _fd(w, s0, force, static)
        assert _rel(Jv_, Jv) < tol, (force, _rel(Jv_, Jv))
        assert _rel(Jq_, Jq) < tol, (force, _rel(Jq_, Jq))
    return jac


def test_cube_sliding_on_a_slope():
    # tan 30 deg = 0.577 > mu = 0.3: sliding, tangent rows at their bounds
    w = lcplab.World("incline", {"mu": 0.3}, solver="lemke", friction="box")
    jac = _check(w, 5)
    assert jac.modes["lower"] + jac.modes["upper"] > 4
    assert jac.modes["regularized"] > 0  # four contacts on a rigid cube: redundant
    # sliding keeps a velocity along the slope that depends on the start's
    assert np.abs(jac.dv_du).max() > 0.1


def test_cube_sticking_on_a_slope():
    w = lcplab.World("incline", {"mu": 0.9}, solver="lemke", friction="box")
    jac = _check(w, 5)
    # sticking: the next velocity does not depend on the current one
    assert np.abs(jac.dv_du).max() < 1e-6


def test_sphere_separated_within_the_margin():
    w = lcplab.World("ball", {"height": 0.101, "restitution": 0}, solver="lemke", friction="box")
    jac = _check(w, 0)
    assert jac.modes["rows"] >= 1 and jac.modes["free"] == 0
    # no impulse: the free motion, du+/du = I on the sphere
    assert np.allclose(jac.dv_du[:6, :6], np.eye(6), atol=1e-12)


@pytest.mark.parametrize("integrator", ["symplectic", "explicit", "verlet"])
def test_pendulum_each_integrator(integrator):
    w = lcplab.World("pendulum", {"angle_deg": 40}, solver="lemke", integrator=integrator)
    # Verlet's half drift moves the step's geometry (held fixed here) with u:
    # its d/du is not the step's; d/df is (loads do not move the geometry)
    jac = _check(w, 4, velocities=integrator != "verlet")
    assert jac.modes["free"] == jac.modes["rows"] == 5


@pytest.mark.parametrize("integrator", ["symplectic", "explicit"])
def test_double_pendulum_rods(integrator):
    # dantzig: lemke keeps a warm start already within its tolerance, so
    # its answer does not move under a 1e-6 step (FD 0 where J is 1e-3)
    w = lcplab.World("double_pendulum", solver="dantzig", integrator=integrator)
    jac = _check(w, 4)
    assert jac.modes["free"] == jac.modes["rows"] == 10


def test_ragdoll_on_the_floor():
    # step 101: 67 rows, joints and the floor's contacts, tangent rows at
    # both bounds (sliding)
    w = lcplab.World("ragdoll", solver="dantzig", friction="box")
    jac = _check(w, 100)
    assert jac.modes["lower"] > 0 and jac.modes["upper"] > 0


def test_refusals():
    w = lcplab.World("pendulum", solver="lemke")
    with pytest.raises(lcplab.UnsupportedError, match="no step with rows"):
        w.step_jacobian()
    s = w.state()
    w.step()
    w.set_state(s)  # a restore drops the last problem
    with pytest.raises(lcplab.UnsupportedError, match="no step with rows"):
        w.step_jacobian()
    bad = s.copy()
    bad.v = bad.v[:, :2]
    with pytest.raises(ValueError, match=r"state.v has shape"):
        w.set_state(bad)
    bad = s.copy()
    bad.w[0, 1] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        w.set_state(bad)
    with pytest.raises(TypeError):
        w.set_state(b"state")
    other = lcplab.World("double_pendulum").state()
    with pytest.raises(ValueError):
        w.set_state(other)
    # nothing was changed by the refused calls
    assert np.array_equal(w.state().v, s.v)


ARM = ('<mujoco><option timestep="0.005"/><worldbody>'
       '<geom name="floor" type="plane" size="2 2 0.1"/>'
       '<body name="a" pos="0 0 0.5"><joint name="h1" type="hinge" axis="0 1 0"/>'
       '<geom name="ga" type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>'
       '<body name="b" pos="0.3 0 0"><joint name="h2" type="hinge" axis="0 1 0"/>'
       '<geom name="gb" type="capsule" fromto="0 0 0 0.3 0 -0.3" size="0.04"/>'
       '<geom name="tip" type="sphere" pos="0.3 0 -0.3" size="0.06"/>'
       '</body></body></worldbody></mujoco>\n')


def _reduced_arm(tmp_path):
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    m = lcplab.load_model(path, coordinates="reduced")
    return lcplab.World(m, solver="lemke", friction="box")


def test_reduced_coordinates_against_fd(tmp_path):
    # issue 83 item 3 in reduced coordinates: the joint velocities u+ of a
    # two-hinge arm whose tip rests on the floor, d u+ / d u and d u+ / d f
    # against central differences of World.step from World.state() with
    # one joint velocity (set_joint_velocities) or one load moved
    w = _reduced_arm(tmp_path)
    w.run(80, trace=False)
    s0 = w.state()
    w.run(1, trace=False)
    J = w.step_jacobian()
    nv, nb = len(w.joint_velocities()), w.body_count
    assert J.dv_du.shape == (nv, nv) and J.dv_df.shape == (nv, 6 * nb)
    assert J.modes["rows"] > 0
    fd_u = np.zeros((nv, nv))
    for k in range(nv):
        col = []
        for sg in (1, -1):
            w.set_state(s0)
            u = w.joint_velocities()
            u[k] += sg * EPS
            w.set_joint_velocities(u)
            w.run(1, trace=False)
            col.append(w.joint_velocities())
        fd_u[:, k] = (col[0] - col[1]) / (2 * EPS)
    fd_f = np.zeros((nv, 6 * nb))
    for k in range(6 * nb):
        col = []
        for sg in (1, -1):
            s = s0.copy()
            (s.f_ext if k % 6 < 3 else s.t_ext)[k // 6, k % 3] += sg * EPS
            w.set_state(s)
            w.run(1, trace=False)
            col.append(w.joint_velocities())
        fd_f[:, k] = (col[0] - col[1]) / (2 * EPS)
    scale_u, scale_f = max(1.0, np.abs(fd_u).max()), max(1.0, np.abs(fd_f).max())
    assert np.abs(J.dv_du - fd_u).max() / scale_u < 1e-6
    assert np.abs(J.dv_df - fd_f).max() / scale_f < 1e-6
    assert np.abs(fd_u - np.eye(nv)).max() > 1e-3  # the contact matters


def test_joint_velocities_refusals(tmp_path):
    w = _reduced_arm(tmp_path)
    u = w.joint_velocities()
    with pytest.raises(ValueError, match="shape"):
        w.set_joint_velocities(np.zeros(len(u) + 1))
    with pytest.raises(ValueError, match="not finite"):
        w.set_joint_velocities(np.full(len(u), np.nan))
    m = lcplab.World("ball")
    assert m.joint_velocities() is None
    with pytest.raises(ValueError, match="maximal coordinates"):
        m.set_joint_velocities([0.0])


CRANK = '<position name="crank" cranksite="cs" slidersite="ss" cranklength="0.45" kp="3"/>'
ARM_CTRL = ARM.replace('size="0.06"/>', 'size="0.06" friction="0.05"/>').replace(
    'size="2 2 0.1"/>', 'size="2 2 0.1" friction="0.05"/>').replace(
    '<geom name="ga"', '<site name="cs" pos="0.15 0 0"/><geom name="ga"').replace(
    '<body name="a"', '<site name="ss" pos="0.15 0 0.9" zaxis="0 0 1"/><body name="a"').replace(
    '</worldbody></mujoco>', (
    '</worldbody><tendon><fixed name="couple"><joint joint="h1" coef="1"/>'
    '<joint joint="h2" coef="-0.5"/></fixed></tendon><actuator>'
    '<motor name="m1" joint="h1" gear="2"/>'
    '<motor name="lim" joint="h2" ctrllimited="true" ctrlrange="-0.5 0.5"/>'
    '<position name="pos" joint="h2" kp="5"/>'
    '<motor name="pull" tendon="couple" gear="0.8"/>'
    + CRANK +
    '</actuator></mujoco>'))


def test_ctrl_derivative_against_fd(tmp_path):
    # issue 83 item 3, the actuators' ctrl: d u+ / d ctrl of the arm with
    # its tip on the floor (motor, clamped motor, position servo, tendon
    # motor, slider-crank servo; friction 0.05: the tip slides, so one dof stays free) against
    # central differences of World.step from World.state() with one
    # control moved (World.set_ctrl)
    path = tmp_path / "arm_ctrl.xml"
    path.write_text(ARM_CTRL)
    w = lcplab.World(lcplab.load_model(path, coordinates="reduced"), solver="lemke",
                     friction="box")
    c0 = np.array([0.3, 0.8, 0.1, -0.2, 0.05])  # "lim" beyond its clamp at 0.5
    w.set_ctrl(c0)
    w.run(80, trace=False)
    s0 = w.state()
    w.run(1, trace=False)
    J = w.step_jacobian()
    nv, nu = len(w.joint_velocities()), len(c0)
    assert J.dv_dctrl.shape == (nv, nu) and J.dq_dctrl.shape == (nv, nu)
    assert J.modes["rows"] > 0 and J.modes["upper"] + J.modes["lower"] > 0, J.modes
    fd = np.zeros((nv, nu))
    for k in range(nu):
        col = []
        for sg in (1, -1):
            w.set_state(s0)
            c = c0.copy()
            c[k] += sg * EPS
            w.set_ctrl(c)
            w.run(1, trace=False)
            col.append(w.joint_velocities())
        fd[:, k] = (col[0] - col[1]) / (2 * EPS)
    scale = max(1.0, np.abs(fd).max())
    assert np.abs(J.dv_dctrl - fd).max() / scale < 1e-6
    assert np.abs(J.dv_dctrl[:, 1]).max() == 0.0  # beyond its clamp
    assert np.abs(J.dv_dctrl[:, [0, 2, 3, 4]]).min() > 1e-4  # every other acts
    # the contact matters: its normal row holds the tip on the floor, so
    # every control moves u+ along one direction (rank 1; free, rank 2)
    sv = np.linalg.svd(J.dv_dctrl, compute_uv=False)
    assert sv[1] < 1e-9 * sv[0]
    # hinges: the positions move by h du+
    assert np.allclose(J.dq_dctrl, 0.005 * J.dv_dctrl, rtol=0, atol=1e-15)


def test_ctrl_derivative_absent_without_reduced_coordinates(tmp_path):
    path = tmp_path / "arm_ctrl.xml"
    path.write_text(ARM_CTRL.replace(CRANK, ""))  # a slider-crank needs reduced ones
    w = lcplab.World(lcplab.load_model(path, coordinates="maximal"), solver="lemke",
                     friction="box")
    w.run(80, trace=False)
    assert w.step_jacobian().dv_dctrl is None
    reason, err = w._w.step_jacobian_ctrl()
    assert "reduced coordinates only" in reason and err != 0
    a = _reduced_arm(tmp_path)  # no actuators: an empty derivative
    a.run(80, trace=False)
    assert a.step_jacobian().dv_dctrl.shape == (2, 0)
