"""lcplab.World and lcplab.simulate: libdynamics' worlds and named scenes
(libdynamics/dyn_world.h; docs/dynamics.md, "The world step"), with the
metrics of ``lcplab simulate`` as numpy arrays."""

import dataclasses
import numbers

import numpy as np

from . import _lcplab, _log
from ._errors import InvalidProblemError, SceneError, SimulationError, UnsupportedError
from ._plugins import solver_name
from ._problem import Problem, _is_int, _refuse_complex

__all__ = ["World", "SimulationResult", "StepMatrices", "StepJacobian", "WorldState", "simulate", "scenes", "METRICS",
           "TRACE_FIELDS", "STAGES", "APPLIED"]

_NAMES = _lcplab.world_names()

#: The stages of a world step, in order (docs/dynamics.md, "The world
#: step"): the second axis of the metrics' ``stage_time_s``.
STAGES = tuple(_NAMES["stages"])

#: Which impulses a step applied (the metrics' ``applied`` is an index
#: into this): none (no rows), the solver's, the fallback solve's, the warm
#: start, or P(0) (no impulse).
APPLIED = tuple(_NAMES["applied"])

_DTYPE = {"int": np.int64, "status": np.int64, "applied": np.int64, "real": np.float64,
          "time": np.float64}


def _metric_field(name, kind):
    if kind == "stages":
        return (name, np.float64, (len(STAGES),))
    return (name, _DTYPE[kind])


#: The columns of ``SimulationResult.metrics``, generated from libdynamics'
#: one table of per-step metric columns (libdynamics/dyn_run.h,
#: ``DYN_METRICS_ARRAYS``; docs/dynamics.md, "Runs"): those of ``lcplab
#: simulate``'s CSV (step, t, kinetic, potential, energy, max_penetration,
#: contacts, rows, iterations, res_nat_inf, solve_time_s, joint_error, status
#: and applied, the last two as numbers: ``lcplab.Status`` and an index of
#: ``APPLIED``), the step's other times, whether its solve failed
#: (``on_failure``), the fallback's status and the residual of the impulses
#: applied, ContactBench's criteria of the step's solve (NaN unless the
#: step's problem has Coulomb cones, ``friction="cone"``), and the time of
#: each stage (``STAGES``).
METRICS = tuple(_metric_field(name, kind) for name, kind, _, _ in _NAMES["metrics"])

#: The last axis of ``SimulationResult.trace``, as in ``lcplab simulate
#: --trace``: position, orientation quaternion (w first), linear and angular
#: velocity, world frame.
TRACE_FIELDS = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")

_ERR_KIND = {-1: "input", -2: "memory", -3: "numeric", -4: "interrupted"}


def scenes():
    """The named scenes.

    Returns
    -------
    dict
        name -> one-line description with the scene's parameters (keys)
        and their defaults.
    """
    return dict(_lcplab.scenes())


def _text(key, value):
    """A setting's value as the text the library's parser reads
    (dyn_world_settings_set, libdynamics/world_settings_names.c: the one
    parser of settings, also behind ``lcplab simulate --KEY VALUE``)."""
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, str):
        return value
    if key == "gravity":
        _refuse_complex(value, "gravity", SceneError)
        g = np.asarray(value, dtype=np.float64)
        if g.shape != (3,):
            raise SceneError(f"gravity must have 3 components, got shape {g.shape}")
        return ",".join(repr(float(c)) for c in g)
    raise SceneError(f"{key} must be a number or a name, got {value!r}")


def _settings(solver, dt, settings):
    out = {}
    if solver is not None:
        out["solver"] = solver_name(solver)
    if dt is not None:
        settings = dict(settings, dt=dt)
    known = _lcplab.setting_names()
    for key, value in settings.items():
        if value is None:
            continue
        if key not in known:
            raise TypeError(f"unknown setting {key!r} (settings: {', '.join(sorted(known))})")
        out[key] = _text(key, value)
    return out


def _timestep(value):
    """A Model's timestep as the extension takes it: a finite number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0 \
            or not np.isfinite(value):
        raise SceneError(f"the model's timestep must be a finite number > 0, got {value!r}")
    return float(value)


def _params(params):
    if params is None:
        return []
    if not isinstance(params, dict):
        raise TypeError("params must be a dict {key: number}")
    out = []
    for key, value in params.items():
        if not isinstance(key, str) or "=" in key:
            raise SceneError(f"parameter name {key!r} must be a string without '='")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise SceneError(f"parameter {key} must be a number, got {value!r}")
        # repr: the shortest string that reads back as the same double
        out.append(f"{key}={int(value) if _is_int(value) else repr(float(value))}")
    return out


@dataclasses.dataclass(frozen=True)
class SimulationResult:
    """The steps of one ``World.run`` or ``simulate``.

    Attributes
    ----------
    metrics : ndarray
        A structured array, one record per step, with the fields of
        ``lcplab.METRICS``: ``result.metrics["energy"]``, ...
    trace : ndarray or None
        ``(steps, len(bodies), 13)``: after each step, each dynamic body's
        state (``lcplab.TRACE_FIELDS``), when asked with ``trace=True``.
    bodies : ndarray of int
        The world indices of the dynamic bodies, the second axis of trace.
    scene : str
    solver : str
    dt : float
    """

    metrics: np.ndarray
    trace: object
    bodies: np.ndarray
    scene: str
    solver: str
    dt: float

    @property
    def steps(self):
        """The number of steps recorded."""
        return int(self.metrics.shape[0])

    def __repr__(self):
        return (f"SimulationResult(scene={self.scene!r}, solver={self.solver!r}, "
                f"steps={self.steps}, dt={self.dt})")


def _scipy_sparse():
    try:
        import scipy.sparse as sp
    except ImportError:
        raise ImportError("the step's matrices are scipy.sparse matrices: install scipy "
                          "(python3-scipy, or pip install lcplab[sparse])") from None
    return sp


@dataclasses.dataclass(frozen=True)
class StepMatrices:
    """The matrices of a world's last step (``World.step_matrices``;
    docs/scenes.md, "Queries"), over the velocities of every body of the
    world: body i's (v, w), world frame, at columns 6 i .. 6 i + 5.

    ``A = J @ Minv @ J.T + diag(cfm)`` is the step's problem matrix (on
    every row but a friction pyramid's auxiliary ones, whose J row is 0).

    Attributes
    ----------
    J : scipy.sparse.csr_matrix
        (n, 6 nb): the rows' Jacobian.
    M, Minv : scipy.sparse.bsr_matrix
        (6 nb, 6 nb), block diagonal: per body diag(m I3, I_world) and its
        inverse, as the step assembled them; zero blocks for static
        bodies (they have no velocity).
    M_blocks, Minv_blocks : ndarray
        (nb, 6, 6): the same blocks.
    cfm : ndarray
        (n,): each row's constraint force mixing.
    joint_rows : int
        The joints' rows come first.
    rows_per_contact : int
        Contact c of ``World.contacts()`` has rows ``joint_rows + c
        rows_per_contact`` onwards (n, t1, t2 with box friction and cones).
    """

    J: object
    M: object
    Minv: object
    M_blocks: np.ndarray
    Minv_blocks: np.ndarray
    cfm: np.ndarray
    joint_rows: int
    rows_per_contact: int

    def contact_rows(self, c):
        """The rows of contact c (a range)."""
        first = self.joint_rows + int(c) * self.rows_per_contact
        return range(first, first + self.rows_per_contact)


@dataclasses.dataclass
class WorldState:
    """A world's state (``World.state()``; ``World.set_state`` restores it):
    the C world's saved state (``dyn_world_save_state``: every body's pose,
    velocities and loads, the warm-start impulses, the time and the step
    count) and, as arrays one row per body in world order, the parts a
    caller may change before restoring it: ``r`` (nb, 3), ``q`` (nb, 4; w
    first), ``v`` (nb, 3), ``w`` (nb, 3), ``f_ext`` (nb, 3), ``t_ext``
    (nb, 3), all world frame. ``set_state`` writes the arrays over the
    saved bodies (static bodies' rows are ignored), so that a perturbed
    copy steps from the perturbed state: the finite differences of a
    step."""
    r: np.ndarray
    q: np.ndarray
    v: np.ndarray
    w: np.ndarray
    f_ext: np.ndarray
    t_ext: np.ndarray
    _blob: bytes = dataclasses.field(repr=False, default=b"")

    def copy(self):
        """A deep copy (arrays copied)."""
        return WorldState(*(getattr(self, k).copy() for k in _STATE_FIELDS), _blob=self._blob)


_STATE_FIELDS = ("r", "q", "v", "w", "f_ext", "t_ext")


@dataclasses.dataclass
class StepJacobian:
    """The derivative of a world's last step (``World.step_jacobian()``;
    docs/gradients.md, "Through a world step"), with the step's contact
    set, geometry and rows' right-hand sides held fixed and each row's
    mode at the applied impulses held. In maximal coordinates the
    velocities u are 6 per body (v, w, world frame, world order: body i at
    6 i .. 6 i + 5) and the positions' changes dr and the world rotation
    vector dth (q+ -> exp(dth) q+), 6 per body likewise; in reduced
    coordinates u are the tree's joint velocities
    (``World.joint_velocities()``, nv of them) and the positions' changes
    one per dof (a hinge's or slide's dq, a ball's child-frame rotation
    vector of Q+ -> Q+ exp(dth)). The loads f are 6 per body (f_ext, t_ext)
    either way.

    Fields: ``dv_du`` = d u+ / d u (u the velocities at the step's start),
    (nv, nv); ``dv_df`` = d u+ / d (f_ext, t_ext), (nv, 6 nb); ``dq_du``,
    ``dq_df`` (the positions through the integrator), (nv, nv) and
    (nv, 6 nb); ``modes``: the
    rows of the step's problem by mode (rows, free, lower, upper, sliding,
    degenerate); ``dv_dctrl`` = d u+ / d ctrl and ``dq_dctrl`` (the
    positions), (nv, nu) for the model's nu actuators (``World.ctrl()``;
    (nv, 0) without actuators; None in maximal coordinates, where no
    control acts): a control beyond its clamp (ctrlrange, forcerange) has
    derivative 0, one at its clamp half the slope (central differences)."""
    dv_du: np.ndarray
    dv_df: np.ndarray
    dq_du: np.ndarray
    dq_df: np.ndarray
    modes: dict
    dv_dctrl: "np.ndarray | None" = None
    dq_dctrl: "np.ndarray | None" = None


class World:
    """A world of rigid bodies built from a named scene or a scene model,
    stepped through contact problems solved by any registered solver.

    Parameters
    ----------
    scene : str or Model
        One of ``lcplab.scenes()``, or a ``lcplab.Model`` (``scene_model``,
        ``load_model``; the world copies it, and takes a loaded model's
        timestep as its dt unless ``dt`` is given, and the model's gravity
        unless ``gravity`` is: ``World.overrides`` says which were given;
        docs/dynamics.md, "Settings a model also holds").
    params : dict, optional
        The scene's parameters, ``{key: number}`` (``lcplab.scenes()``
        lists each scene's keys and defaults), e.g. ``{"n": 5, "mu": 0.3}``.
    solver : str or Python solver, optional
        The solver of each step's problem, by name or a Python solver
        (``lcplab.register_solver``; docs/plugins.md); default the
        library's: "pgs" ("nsgs" with ``friction="cone"``, "lemke" with
        ``friction="pyramid"`` for a Model), "dantzig" for a Model in
        reduced coordinates without cones
        (docs/models.md, "The default solver in reduced coordinates").
    dt : float, optional
        The time step (s); default a loaded model's timestep, else 1/120.
    **settings
        The world's settings by name (``lcplab simulate``'s options):
        ``friction`` ("none", "box", "pyramid", "cone"), ``eta``,
        ``integrator`` ("symplectic", "explicit", "verlet"), ``gyro``,
        ``orient``, ``max_iter``, ``tol``, ``omega``, ``threads`` (OpenMP
        threads of the step and its solves, default 1; the same results on
        any count, except that pgs_part's depend on the count;
        docs/dynamics.md, "Threads"), ``time_limit`` (seconds per solve;
        a solve stopped there is a failed one, for ``on_failure``), ``warm_start``,
        ``warm_factor``, ``margin``, ``storage`` ("auto", "dense", "csr",
        "factored"), ``dense_max_rows``, ``cone_law``, ``contact_order``
        ("broadphase", "top-down"), ``coarse_corrections`` (default 2,
        on steps whose contact levels are more than 3/4 of the sweeps; 0: off;
        docs/dynamics.md, "Coarse correction"), ``islands`` ("auto": on in
        reduced coordinates, "on", "off"; docs/dynamics.md, "Contact islands"),
        ``gravity`` (default the scene's
        or the model's), the contact parameters
        ``k_erp``, ``slop``, ``cfm``, ``max_correct_vel``, and what a step
        does when its solve failed: ``on_failure`` ("fallback", "best",
        "keep", "stop"; docs/dynamics.md, "The world step"),
        ``fallback_solver``, ``fallback_max_iter``.

    Raises
    ------
    SceneError
        The scene, a parameter or a setting is refused (the message names
        it).

    Notes
    -----
    The GIL is released while the world steps. One thread at a time may use
    a world: a call while another thread is inside ``run`` raises
    RuntimeError.

    Examples
    --------
    >>> import lcplab
    >>> w = lcplab.World("stack", {"n": 3}, solver="pgs")
    >>> r = w.run(10)
    >>> r.metrics["energy"].shape
    (10,)
    """

    def __init__(self, scene, params=None, *, solver=None, dt=None, **settings):
        from ._model import Model
        self._model = None
        timestep = 0.0
        if isinstance(scene, Model):
            if params:
                raise SceneError("params are a named scene's; change a Model before its World")
            # the file's timestep unless dt is given (libdynamics' one rule,
            # dyn_world_settings_for_model, as gravity)
            if scene.timestep is not None:
                timestep = _timestep(scene.timestep)
            self._model = scene
            arg, name = scene._c, scene.name
        elif isinstance(scene, str):
            arg, name = scene, scene
        else:
            raise TypeError(f"scene must be a name or a Model, got {type(scene).__name__}")
        s = _settings(solver, dt, settings)
        try:
            self._w = _lcplab.World(arg, _params(params), s, timestep)
        except ValueError as e:
            raise SceneError(str(e)) from None
        self.scene = name
        self.params = dict(params or {})

    @property
    def time(self):
        """The simulated time (s)."""
        return self._w.time

    @property
    def step_count(self):
        """The steps done."""
        return self._w.step_count

    @property
    def body_count(self):
        """The bodies, static ones included."""
        return self._w.body_count

    @property
    def solver(self):
        """The solver's name."""
        return self._w.solver

    @property
    def dt(self):
        """The time step (s)."""
        return self._w.dt

    @property
    def gravity(self):
        """The gravity the world runs with (m/s^2), a (3,) array: the
        scene's or the model's, unless ``gravity`` was given."""
        return np.array(self._w.gravity)

    @property
    def overrides(self):
        """The settings the model also holds (``"dt"``, ``"gravity"``) that
        were given to this World over the model's, a tuple of names
        (docs/dynamics.md, "Settings a model also holds")."""
        return self._w.overrides

    def default_steps(self):
        """The steps ``lcplab simulate`` runs for this scene (or model) at
        this dt."""
        if self._model is not None:
            return self._model.default_steps(self.dt)
        return _lcplab.default_steps(self.scene, self.dt)

    def run(self, steps=None, *, trace=False):
        """Advance the world.

        Parameters
        ----------
        steps : int, optional
            How many steps; default ``default_steps()``.
        trace : bool, optional
            Also record the dynamic bodies' state after each step.

        Returns
        -------
        SimulationResult

        Raises
        ------
        SimulationError
            A step failed (the solver refused the step's problem, or its
            solve failed in a way the world does not apply); the world is
            left as it was before that step, and ``error.result`` holds the
            steps done before it.
        KeyboardInterrupt
            Ctrl-C (or another signal whose handler raises) during the run:
            raised at the next poll of the step's solve or before the next
            step (docs/solver-machinery.md, "Time limits and interruption"); the
            interrupted step is undone, the steps before it stay done.
        """
        if steps is None:
            steps = self.default_steps()
        if not _is_int(steps) or steps < 0:
            raise SceneError(f"steps must be an integer >= 0, got {steps!r}")
        log_fn, log_level = _log.bridge()
        d = self._w.run(int(steps), bool(trace), log_fn, log_level)
        done = d["done"]
        metrics = np.empty(done, dtype=list(METRICS))
        for field in METRICS:
            metrics[field[0]] = d["metrics"][field[0]][:done]
        bodies = np.flatnonzero(~self._w.bodies()["is_static"])
        tr = None if d["trace"] is None else d["trace"][:done]
        result = SimulationResult(metrics=metrics, trace=tr, bodies=bodies, scene=self.scene,
                                  solver=self.solver, dt=self.dt)
        if d["error"] != 0:
            kind = _ERR_KIND.get(d["error"], "numeric")
            raise SimulationError(f"scene {self.scene}: {d['message']}", kind, result)
        return result

    def step(self):
        """One step; returns its metrics record (``METRICS``)."""
        return self.run(1).metrics[0]

    def bodies(self):
        """The bodies' state.

        Returns
        -------
        dict
            ``r`` (nb, 3), ``q`` (nb, 4; w first), ``v`` (nb, 3), ``w``
            (nb, 3), ``mass`` (nb,), ``is_static`` (nb,), in world order
            (dynamic bodies first).
        """
        return self._w.bodies()

    def energy(self):
        """``(kinetic, potential)`` of the current state (J)."""
        return self._w.energy()

    def last_problem(self):
        """The contact problem of the last step and the impulses applied.

        Returns
        -------
        (Problem, ndarray) or None
            A copy: solve it with any solver, write it to a file, compare.
            A matrix-free (factored) step comes back in CSR. None before any
            step with rows.
        """
        t = self._w.last_problem()
        if t is None:
            return None
        prob, x = t
        return Problem._from_c(prob, name=f"{self.scene}-step{self.step_count}"), x


    # ---- queries of the last step (docs/scenes.md, "Queries") -------------------

    def contacts(self):
        """The contacts of the last step (those of its problem, in its
        order).

        Returns
        -------
        dict
            ``body`` (nc, 2) and ``shape`` (nc, 2): the indices (the
            model's) of the two bodies a, b and their shapes; ``point``
            (nc, 3): the world point midway between the surfaces;
            ``normal`` (nc, 3): the unit normal from a to b; ``depth``
            (nc,): penetration (> 0) or gap (< 0, within the margin);
            ``mu``, ``restitution``, ``mu_torsion``, ``mu_rolling`` (nc,):
            the pair's combined material (``mu_torsion``: torsional
            friction, MuJoCo's condim 4 and 6; ``mu_rolling``: rolling
            friction, condim 6; docs/models.md).
            Empty before any step.
        """
        return self._w.contacts()

    def step_matrices(self):
        """J, M and M^-1 of the last step's problem (``StepMatrices``), or
        None before any step with rows. Needs scipy."""
        d = self._w.step_matrices()
        if isinstance(d, str):
            return None
        sp = _scipy_sparse()
        indptr, indices, data, shape = d["J"]
        nb = d["M"].shape[0]
        blocks = {}
        for key in ("M", "Minv"):
            blocks[key] = sp.bsr_matrix((d[key], np.arange(nb, dtype=np.int32),
                                         np.arange(nb + 1, dtype=np.int32)),
                                        shape=(6 * nb, 6 * nb))
        return StepMatrices(J=sp.csr_matrix((data, indices, indptr), shape=shape),
                            M=blocks["M"], Minv=blocks["Minv"], M_blocks=d["M"],
                            Minv_blocks=d["Minv"], cfm=d["cfm"], joint_rows=d["joint_rows"],
                            rows_per_contact=d["rows_per_contact"])

    def jacobian(self):
        """The last step's J (``step_matrices().J``), or None."""
        m = self.step_matrices()
        return None if m is None else m.J

    def mass_matrix(self):
        """The last step's M (``step_matrices().M``), or None."""
        m = self.step_matrices()
        return None if m is None else m.M

    def state(self):
        """The world's state now (``WorldState``), for ``set_state``."""
        blob, rows = self._w.state()
        parts = np.split(rows, [3, 7, 10, 13, 16], axis=1)
        return WorldState(*(np.ascontiguousarray(a) for a in parts), _blob=blob)

    def set_state(self, state):
        """Restore a ``WorldState`` of this world (or of one built the same
        way), its arrays written over the saved bodies.

        Raises
        ------
        TypeError
            ``state`` is not a ``WorldState``.
        ValueError
            An array of the wrong shape, a NaN or inf, a zero quaternion,
            a state of another world (the message names it).
        """
        if not isinstance(state, WorldState):
            raise TypeError(f"state must be a WorldState, got {type(state).__name__}")
        nb = self.body_count
        widths = (3, 4, 3, 3, 3, 3)
        cols = []
        for key, k in zip(_STATE_FIELDS, widths):
            a = np.asarray(getattr(state, key), dtype=np.float64)
            if a.shape != (nb, k):
                raise ValueError(f"state.{key} has shape {a.shape}, expected {(nb, k)}")
            cols.append(a)
        self._w.set_state(state._blob, np.ascontiguousarray(np.hstack(cols)))

    def joint_velocities(self):
        """The tree's joint velocities (nv,) of a world in reduced
        coordinates (what ``step_jacobian`` differentiates there), or None
        in maximal coordinates."""
        return self._w.joint_velocities()

    def set_joint_velocities(self, u):
        """Write the joint velocities of a world in reduced coordinates
        (the bodies' velocities follow), e.g. over a restored state for the
        finite differences of a step.

        Raises
        ------
        ValueError
            A maximal world, a NaN or inf (named), a wrong length.
        TypeError
            ``u`` is not an array of numbers.
        """
        n = self.joint_velocities()
        if n is None:
            raise ValueError(f"scene {self.scene}: joint velocities: the world is in maximal "
                             f"coordinates")
        a = np.ascontiguousarray(np.asarray(u, dtype=np.float64))
        if a.shape != n.shape:
            raise ValueError(f"joint velocities: shape {a.shape}, expected {n.shape}")
        self._w.set_joint_velocities(a)

    @property
    def ctrl(self):
        """The controls of the model's actuators (MuJoCo's ``ctrl``, in the
        file's actuator order; docs/models.md), a copy: 0 until set by
        ``set_ctrl``, empty for a model without actuators."""
        return self._w.ctrl()

    def set_ctrl(self, ctrl):
        """Set the actuators' controls, held over every step until set
        again (call it between steps to drive a robot): each motor, position
        or velocity actuator on a hinge or slide applies gear x clamp(gain x
        clamp(ctrl)) to its joint, on a fixed tendon to each of its joints
        times the joint's coefficient, and a slider-crank servo its force
        through the crank (reduced coordinates, the default for a tree;
        docs/models.md).

        Raises
        ------
        SceneError
            A wrong length, a NaN or inf (its index and actuator named), a
            nonzero control of an actuator that is not simulated, or any
            nonzero control in maximal coordinates; nothing is set then.
        """
        try:
            a = np.ascontiguousarray(np.asarray(ctrl, dtype=np.float64)).reshape(-1)
        except (TypeError, ValueError) as e:
            raise SceneError(f"ctrl: not an array of numbers ({e})") from None
        try:
            self._w.set_ctrl(a)
        except ValueError as e:
            raise SceneError(str(e)) from None

    def step_jacobian(self):
        """The derivative of the last step (``StepJacobian``).

        Raises
        ------
        UnsupportedError
            No step with rows since the world was built or its state set
            (a step without rows is the free motion), the last step failed,
            or the answer's free block is singular (no unique derivative);
            the message says which.
        """
        t = self._w.step_jacobian()
        if isinstance(t[0], str):
            raise UnsupportedError(f"scene {self.scene}: {t[0]}")
        if self._w.joint_velocities() is None:  # maximal: no control acts
            return StepJacobian(*t)
        c = self._w.step_jacobian_ctrl()
        if isinstance(c[0], str):
            raise UnsupportedError(f"scene {self.scene}: {c[0]}")
        return StepJacobian(*t, *c)

    def global_problem(self, condense_joints=False):
        """The last step's problem in the bodies' velocities, as a
        ``Problem`` with its ``global_problem`` (M, H, f, w; the friction
        coefficients in its cones): ``M v = H r + f``, ``u = H' v + w``
        (docs/problem.md, "Global problems"), condensed as ``from_global``
        condenses one, so that ``lcplab.write`` writes it as FCLIB's
        global problem (``.hdf5``) or a Siconos gfc3d ``.dat``. v holds
        the six velocities of each dynamic body a row touches, in body
        order.

        Parameters
        ----------
        condense_joints : bool
            For a step with joint rows (a robot, a car): the contact rows'
            problem alone, the joint rows condensed at the step's answer
            (eliminated, or held at their bound), exact at that active set,
            as ``lcplab export --condense-joints --global`` writes it
            (docs/models.md, "Joint rows condensed"); v is then
            coordinates of a null-space basis of the hard joint rows, not
            the bodies' velocities. Without joint rows the same as False.

        Returns
        -------
        Problem or None
            None before any step with rows.

        Raises
        ------
        UnsupportedError
            The step has rows the global form cannot hold (joint rows
            without ``condense_joints=True``; box friction or the pyramid:
            it needs ``friction="cone"``; a row with cfm > 0), or joint
            rows and no contact row.
        """
        t = self._w.global_form(bool(condense_joints))
        if isinstance(t[0], str):
            if self.last_problem() is None:
                return None
            why, jr = t
            hint = (f" (the step's {jr} joint rows: global_problem(condense_joints=True) "
                    f"condenses them)" if jr > 0 and not condense_joints else "")
            raise UnsupportedError(f"scene {self.scene}: {why}{hint}")
        glob, n, mu, jr, eliminated, bound = t
        name = f"{self.scene}-step{self.step_count}"
        if jr > 0:
            name += (f": joint rows condensed ({eliminated} eliminated, {bound} at a bound); "
                     f"v: null-space coordinates")
        r = _lcplab.from_global(glob, n, mu, name)
        if isinstance(r[0], int):
            raise InvalidProblemError(r[1])
        return Problem._from_c(r[0], name=name, glob=r[1])


def simulate(scene, params=None, solver=None, steps=None, dt=None, *, trace=False, **settings):
    """Run a named scene and return its per-step metrics, as ``lcplab
    simulate`` does.

    Parameters
    ----------
    scene : str
        One of ``lcplab.scenes()``.
    params : dict, optional
        The scene's parameters, ``{key: number}``.
    solver : str, optional
        The solver of the contact problems; default the library's ("pgs").
    steps : int, optional
        Steps to run; default the scene's (600; incline: 1 s).
    dt : float, optional
        The time step (s); default a loaded model's timestep, else 1/120.
    trace : bool, optional
        Also return the dynamic bodies' states after each step.
    **settings
        The world's settings by name (see ``World``).

    Returns
    -------
    SimulationResult

    Raises
    ------
    SceneError
        The scene, a parameter or a setting is refused.
    SimulationError
        A step failed; ``error.result`` holds the steps before it.

    Examples
    --------
    >>> import lcplab
    >>> r = lcplab.simulate("stack", {"n": 3}, solver="pgs", steps=20)
    >>> float(r.metrics["max_penetration"].max()) < 0.01
    True
    """
    return World(scene, params, solver=solver, dt=dt, **settings).run(steps, trace=trace)
