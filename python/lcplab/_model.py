"""lcplab.Model, scene_model, load_model: scene models (libdynamics'
dyn_model; docs/scenes.md), built record by record from Python or from a
built-in scene, and their files in MuJoCo's MJCF (libmodels;
docs/models.md)."""

import numbers
import os

import numpy as np

from . import _lcplab
from ._errors import ExistingFileError, FileError, MissingFileError, SceneError
from ._problem import _refuse_complex

__all__ = ["Model", "scene_model", "load_model", "SHAPE_KINDS", "JOINT_KINDS"]

#: The shape kinds of ``Model.add_shape`` (libdynamics/dyn.h, dyn_shape_kind).
SHAPE_KINDS = ("none", "sphere", "box", "capsule", "plane", "hull", "ellipsoid", "cylinder")
#: The joint kinds of ``Model.add_joint`` (libdynamics/dyn_joint.h,
#: dyn_joint_kind).
JOINT_KINDS = ("ball", "hinge", "slider", "hinge2", "universal", "fixed")

# the sizes each shape kind takes (the others are refused with it)
_SIZES = {"none": (), "sphere": ("radius",), "box": ("half_extents",),
          "capsule": ("radius", "half_length"), "plane": ("normal", "offset"),
          "hull": ("points",), "ellipsoid": ("half_extents",),
          "cylinder": ("radius", "half_length")}
_ALL_SIZES = ("radius", "half_extents", "half_length", "normal", "offset", "points")


def _raise(e):
    """The extension's ValueError(message, code) as the package's error:
    FileError for a file MuJoCo could not load or that could not be
    written, SceneError for a refused model or feature."""
    msg, code = e.args if len(e.args) == 2 else (str(e), "input")
    if code in ("file", "io", "mujoco"):
        raise FileError(msg) from None
    raise SceneError(msg) from None


def _numbers(value, shape, what):
    """value as a float64 array of the given shape (SceneError naming what
    otherwise): a tuple of floats for the extension."""
    _refuse_complex(value, what, SceneError)
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise SceneError(f"{what} must be numbers, got {value!r}") from None
    if a.shape != shape:
        raise SceneError(f"{what} must have shape {shape}, got {a.shape}")
    return tuple(float(x) for x in a.ravel())


def _number(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise SceneError(f"{what} must be a number, got {value!r}")
    return float(value)


def _flag(value, what):
    if not isinstance(value, (bool, np.bool_, numbers.Integral)) or value not in (0, 1):
        raise SceneError(f"{what} must be True or False, got {value!r}")
    return bool(value)


def _bits(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral) \
            or not 0 <= value < 2 ** 32:
        raise SceneError(f"{what} must be an integer in [0, 2^32), got {value!r}")
    return int(value)


def _per_row(value, what):
    """erp or cfm of a joint: one number for every row, or up to 6."""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return (float(value),) * 6
    _refuse_complex(value, what, SceneError)
    a = np.asarray(value, dtype=np.float64).ravel()
    if a.size < 1 or a.size > 6:
        raise SceneError(f"{what} must be a number or 1 to 6 numbers (one per row)")
    return tuple(float(x) for x in a) + (0.0,) * (6 - a.size)


def _inertia(value, what):
    """A body-frame inertia: its diagonal (3,) or the matrix (3, 3)."""
    _refuse_complex(value, what, SceneError)
    a = np.asarray(value, dtype=np.float64)
    if a.shape == (3,):
        a = np.diag(a)
    return _numbers(a, (3, 3), what)


def _points(value, what):
    """A hull's points: a C-contiguous float64 (n, 3) array, refused above
    the model's memory cap before anything is copied."""
    _refuse_complex(value, what, SceneError)
    shape = np.shape(value)
    if len(shape) != 2 or shape[1] != 3:
        raise SceneError(f"{what} must be an (n, 3) array, got shape {shape}")
    if shape[0] * 3 * 8 > _lcplab.MODEL_MAX_BYTES:
        raise SceneError(f"{what}: {shape[0]} points are larger than the model's memory cap "
                         f"of {_lcplab.MODEL_MAX_BYTES} bytes")
    try:
        return np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise SceneError(f"{what} must be numbers") from None


def _kind(kinds, kind, what):
    """The index of kind in kinds (SHAPE_KINDS, JOINT_KINDS)."""
    if kind not in kinds:
        raise SceneError(f"{what}: kind must be one of {', '.join(kinds)}, got {kind!r}")
    return kinds.index(kind)


def _shape_fields(kw, what, kind=None):
    """The extension's shape fields of the keywords given (None: not given)."""
    f = {}
    if kind is not None:
        f["kind"] = _kind(SHAPE_KINDS, kind, what)
        for key in _ALL_SIZES:
            if kw.get(key) is not None and key not in _SIZES[kind]:
                raise SceneError(f"{what}: a {kind} takes {', '.join(_SIZES[kind]) or 'no size'}"
                                 f", not {key}")
    conv = {"radius": _number, "half_length": _number, "offset": _number,
            "half_extents": lambda v, w: _numbers(v, (3,), w),
            "normal": lambda v, w: _numbers(v, (3,), w),
            "position": lambda v, w: _numbers(v, (3,), w),
            "orientation": lambda v, w: _numbers(v, (4,), w),
            "contype": _bits, "conaffinity": _bits, "points": _points}
    for key, fn in conv.items():
        if kw.get(key) is not None:
            f[key] = fn(kw[key], f"{what}: {key}")
    return f


class Model:
    """A scene model: what a scene is (bodies, their shapes, materials,
    collision filters, joints, gravity, the default run) apart from where
    it is now (a ``World``).

    A Model owns a C scene model (``dyn_model``, docs/scenes.md): every
    ``add_*`` and ``set_*`` fills it through the library, which checks
    the record and leaves the model as it was when it refuses (a
    ``SceneError`` naming the body, shape, material or joint). Make one
    empty (``Model()``) and add records, or start from a built-in scene
    (``lcplab.scene_model``) or an MJCF file (``lcplab.load_model``);
    build worlds from it with ``lcplab.World(model, ...)``, as many as
    wanted (each copies it); save it with ``save``.

    Units are SI; positions and axes in the world frame at the initial
    pose; quaternions ``(w, x, y, z)``. Wherever a body, shape, material or
    joint is named, its index or its name will do.

    Parameters
    ----------
    name : str, optional
        The scene's name (World's ``scene``, the files' names).
    gravity : (3,) array_like, optional
        Default ``(0, 0, -9.81)``.

    Attributes
    ----------
    name : str
        The scene's name, or the file's name without folder and extension.
    timestep : float or None
        The file's ``<option timestep>`` (a loaded model): the dt its
        worlds take unless given one; None otherwise.
    warnings : str
        MuJoCo's warnings when the file was compiled ("" for none).
    notes : str
        What ``load_model(..., approximate=True)`` approximated or dropped,
        and the actuators left at zero control ("" for none).
    coordinates : str
        The representation of the worlds built on it: "maximal", or
        "reduced" for a file ``load_model`` read in reduced coordinates.

    Examples
    --------
    >>> import lcplab, numpy as np
    >>> m = lcplab.Model("drop")
    >>> floor = m.add_body(static=True, name="floor")
    >>> _ = m.add_shape(floor, "plane", normal=(0, 0, 1))
    >>> rubber = m.add_material(mu=0.9, restitution=0.5, name="rubber")
    >>> ball = m.add_body(1.0, np.full(3, 0.004), position=(0, 0, 0.5), name="ball")
    >>> _ = m.add_shape(ball, "sphere", radius=0.1, material=rubber)
    >>> w = lcplab.World(m, solver="nsgs", friction="cone")
    >>> r = w.run(60)
    >>> bool(w.bodies()["r"][ball, 2] < 0.5)
    True
    """

    def __init__(self, name="model", *, gravity=None):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, got {type(name).__name__}")
        self._c = _lcplab.Model()
        self.name = name
        self.timestep = None
        self.warnings = ""
        self.notes = ""
        self.coordinates = "maximal"
        if gravity is not None:
            self.gravity = gravity

    @classmethod
    def _wrap(cls, c, name, timestep=None, warnings="", notes=""):
        """A Model over the extension's model c (scene_model, load_model)."""
        m = cls.__new__(cls)
        m._c, m.name, m.timestep, m.warnings, m.notes = c, name, timestep, warnings, notes
        m.coordinates = "maximal"
        return m

    # ---- names and indices ------------------------------------------------------

    def _index(self, kind, ref, what):
        """The index of the record of kind named by ref (an index or a
        name); SceneError naming what when there is none."""
        if isinstance(ref, str):
            i = self._c.find(kind, ref)
            if i < 0:
                raise SceneError(f"{what}: no {kind} named {ref!r}")
            return i
        if isinstance(ref, (bool, np.bool_)) or not isinstance(ref, numbers.Integral):
            raise SceneError(f"{what}: a {kind} is an index or a name, got {ref!r}")
        return int(ref)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except ValueError as e:
            _raise(e)
        except IndexError as e:
            raise SceneError(str(e)) from None
        except KeyError as e:
            raise TypeError(e.args[0]) from None

    def _what(self, kind, name, i=None):
        n = self.counts()[{"body": "bodies"}.get(kind, kind + "s")] if i is None else i
        return f"{kind} {n}" + (f" {name!r}" if name else "")

    # ---- building ---------------------------------------------------------------

    def add_material(self, mu=0.5, restitution=0.0, *, name=None):
        """Add a material; returns its index.

        A contact between two shapes takes the maximum of each field of
        their materials (docs/scenes.md, "Materials and the combine
        rule"). Shapes that name no material take the model's first
        material when it has one (a built-in scene's), else the world's
        default (mu 0.5, restitution 0).

        Parameters
        ----------
        mu : float
            Coulomb friction coefficient, >= 0.
        restitution : float
            Newton's coefficient, in [0, 1].
        name : str, optional
        """
        what = self._what("material", name)
        f = {"mu": _number(mu, f"{what}: mu"),
             "restitution": _number(restitution, f"{what}: restitution")}
        if name is not None:
            f["name"] = name
        return self._call(self._c.add, "material", f)

    def _body_fields(self, what, mass=None, inertia=None, position=None, orientation=None,
                     velocity=None, angular_velocity=None, static=None, rest_position=None,
                     name=None):
        f = {}
        if name is not None:
            f["name"] = name
        if static is not None:
            f["static"] = _flag(static, f"{what}: static")
        if mass is not None:
            f["mass"] = _number(mass, f"{what}: mass")
        if inertia is not None:
            f["inertia"] = _inertia(inertia, f"{what}: inertia")
        for key, value, n in (("position", position, 3), ("orientation", orientation, 4),
                              ("velocity", velocity, 3),
                              ("angular_velocity", angular_velocity, 3)):
            if value is not None:
                f[key] = _numbers(value, (n,), f"{what}: {key}")
        if rest_position is not None:
            f["rest_given"] = True
            f["rest_position"] = _numbers(rest_position, (3,), f"{what}: rest_position")
        return f

    def add_body(self, mass=None, inertia=None, *, position=(0.0, 0.0, 0.0),
                 orientation=(1.0, 0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
                 angular_velocity=(0.0, 0.0, 0.0), static=False, rest_position=None,
                 name=None):
        """Add a body; returns its index.

        Parameters
        ----------
        mass : float, optional
            kg, > 0 for a dynamic body. Without it (and without inertia),
            set it after adding the body's shapes with
            ``set_mass_from_shapes``. Ignored for a static body.
        inertia : (3,) or (3, 3) array_like, optional
            Body-frame inertia about the centre of mass (kg m^2): its
            diagonal or the symmetric positive definite matrix.
        position : (3,) array_like
            The centre of mass (the body frame's origin), world frame.
        orientation : (4,) array_like
            Unit quaternion (w, x, y, z), body to world.
        velocity, angular_velocity : (3,) array_like
            Initial velocities, world frame.
        static : bool
            Never moves (floors, walls, the fixed end of joints).
        rest_position : (3,) array_like, optional
            Where the body sits with the scene's start gaps closed
            (docs/scenes.md, "Bodies").
        name : str, optional
        """
        what = self._what("body", name)
        if mass is not None and inertia is None and not static:
            raise SceneError(f"{what}: mass given without inertia: give inertia, or add the "
                             f"body's shapes and call set_mass_from_shapes(body, mass=...)")
        f = self._body_fields(what, mass, inertia, position, orientation, velocity,
                              angular_velocity, static, rest_position, name)
        return self._call(self._c.add, "body", f)

    def set_mass_from_shapes(self, body, *, density=None, mass=None):
        """Give a dynamic body the mass and inertia of its shapes as
        uniform solids (spheres, boxes, capsules), of the given density
        (kg/m^3) or total mass (kg); the body frame moves to their centre
        of mass, the shapes staying where they are (docs/scenes.md,
        "Bodies"). Hulls are refused: give their mass and inertia."""
        i = self._index("body", body, "set_mass_from_shapes")
        if (density is None) == (mass is None):
            raise SceneError(f"body {i}: give density or mass, one of them")
        if density is not None:
            self._call(self._c.mass_from_density, i, _number(density, f"body {i}: density"))
            return
        mass = _number(mass, f"body {i}: mass")
        if not mass > 0:
            raise SceneError(f"body {i}: mass={mass!r} must be > 0")
        # the volume first (density 1), then the density of that mass
        trial = self._c.copy()
        try:
            trial.mass_from_density(i, 1.0)
        except ValueError as e:
            _raise(e)
        volume = trial.get("body", i)["mass"]
        self._call(self._c.mass_from_density, i, mass / volume)

    def add_shape(self, body, kind, *, radius=None, half_extents=None, half_length=None,
                  points=None, normal=None, offset=None, position=None, orientation=None,
                  material=None, contype=None, conaffinity=None, name=None):
        """Add a shape to a body; returns its index. A body may carry
        several, each at its own pose with its own material and filter.

        Parameters
        ----------
        body : int or str
        kind : str
            One of ``SHAPE_KINDS``, with its sizes (m): ``"sphere"``
            radius; ``"box"`` half_extents (3); ``"capsule"`` radius and
            half_length (along its z axis); ``"ellipsoid"`` half_extents
            (3, its semi-axes); ``"cylinder"`` radius and half_length
            (along its z axis); ``"hull"`` points, an (n, 3)
            array of at least four points not in one plane (body frame);
            ``"plane"`` the static half-space normal . x >= offset (world
            frame; on a static body, at the identity pose); ``"none"``.
        position : (3,) array_like, optional
            The shape's centre in the body frame (default the origin).
        orientation : (4,) array_like, optional
            Its quaternion (w, x, y, z) in the body frame.
        material : int or str, optional
            Default: the model's first material, or the world's default.
        contype, conaffinity : int, optional
            The collision filter (32 bits each, default 1 and 1): shapes A
            and B may touch iff ``A.contype & B.conaffinity`` or
            ``B.contype & A.conaffinity`` (MuJoCo's rule).
        name : str, optional
        """
        what = self._what("shape", name)
        f = _shape_fields(dict(radius=radius, half_extents=half_extents,
                               half_length=half_length, points=points, normal=normal,
                               offset=offset, position=position, orientation=orientation,
                               contype=contype, conaffinity=conaffinity), what, kind)
        f["body"] = self._index("body", body, what)
        if material is not None:
            f["material"] = self._index("material", material, what)
        if name is not None:
            f["name"] = name
        return self._call(self._c.add, "shape", f)

    def _joint_fields(self, what, kind=None, a=None, b=None, anchor=None, axis=None,
                      axis2=None, erp=None, cfm=None, limit=None, motor=None, spring=None,
                      name=None, b_given=False):
        f = {}
        if kind is not None:
            f["kind"] = _kind(JOINT_KINDS, kind, what)
        if a is not None:
            f["a"] = self._index("body", a, what)
        if b_given:
            f["b"] = -1 if b is None else self._index("body", b, what)
        for key, value in (("anchor", anchor), ("axis1", axis), ("axis2", axis2)):
            if value is not None:
                f[key] = _numbers(value, (3,), f"{what}: {key}")
        for key, value in (("erp", erp), ("cfm", cfm)):
            if value is not None:
                f[key] = _per_row(value, f"{what}: {key}")
        if limit is not None:
            f.update(self._part(what, "limit", limit, ("lo", "hi"),
                                ("lo", "hi", "erp", "cfm", "restitution")))
        if motor is not None:
            f.update(self._part(what, "motor", motor, ("velocity", "max_force"),
                                ("velocity", "max_force", "cfm")))
        if spring is not None:
            f.update(self._part(what, "spring", spring, ("stiffness", "damping"),
                                ("stiffness", "damping", "ref")))
        if name is not None:
            f["name"] = name
        return f

    @staticmethod
    def _part(what, part, value, pair, keys):
        """A joint's limit or motor: False (off), a pair, or a dict of keys."""
        if value is False:
            return {f"{part}_enabled": False}
        if isinstance(value, dict):
            bad = set(value) - set(keys)
            if bad:
                raise SceneError(f"{what}: {part} takes {', '.join(keys)}, not "
                                 f"{', '.join(sorted(bad))}")
            d = value
        else:
            try:
                d = dict(zip(pair, value)) if len(value) == 2 else None
            except TypeError:
                d = None
            if d is None:
                raise SceneError(f"{what}: {part} must be False, ({', '.join(pair)}) or a dict")
        f = {f"{part}_enabled": True}
        for k, v in d.items():
            f[f"{part}_{k}"] = _number(v, f"{what}: {part} {k}")
        return f

    def add_joint(self, kind, a, b=None, *, anchor=(0.0, 0.0, 0.0), axis=None, axis2=None,
                  erp=None, cfm=None, limit=None, motor=None, spring=None, name=None):
        """Add a joint between bodies a and b (None: the fixed world);
        returns its index. The two bodies never touch.

        Parameters
        ----------
        kind : str
            One of ``JOINT_KINDS`` (docs/contact.md, "Joints").
        a, b : int or str
        anchor : (3,) array_like
            The world point where the joint sits, at the initial pose.
        axis : (3,) array_like, optional
            The hinge or slider axis, hinge-2's steering axis, universal's
            axis 1 (world frame; default z).
        axis2 : (3,) array_like, optional
            Hinge-2's wheel axis, universal's axis 2 (default y).
        erp, cfm : float or sequence of float, optional
            Softness of the equality rows (one value for all, or one per
            row; default erp 0.2, cfm 0: docs/contact.md, "CFM and ERP").
        limit : (lo, hi) or dict, optional
            A limit on the joint coordinate (hinge, slider, hinge-2):
            ``(lo, hi)``, or a dict of lo, hi, erp, cfm, restitution.
        motor : (velocity, max_force) or dict, optional
            A motor on its rate: ``(velocity, max_force)``, or a dict of
            velocity, max_force, cfm.
        spring : (stiffness, damping) or dict, optional
            A spring-damper on the joint coordinate (hinge, slider,
            hinge-2): ``(stiffness, damping)``, or a dict of stiffness,
            damping, ref (the coordinate at rest, default 0).
        name : str, optional
        """
        what = self._what("joint", name)
        f = self._joint_fields(what, kind, a, b, anchor, axis, axis2, erp, cfm, limit, motor,
                               spring, name, b_given=True)
        return self._call(self._c.add, "joint", f)

    def exclude(self, a, b):
        """Bodies a and b never touch (MJCF's ``<exclude>``)."""
        self._call(self._c.exclude, self._index("body", a, "exclude"),
                   self._index("body", b, "exclude"))

    def exclusions(self):
        """The excluded body pairs, ``[(a, b)]`` with a < b."""
        return self._c.exclusions()

    @property
    def gravity(self):
        """Gravity (m/s^2), a (3,) array."""
        return np.array(self._c.options()["gravity"])

    @gravity.setter
    def gravity(self, value):
        self._call(self._c.set_options, {"gravity": _numbers(value, (3,), "gravity")})

    def options(self):
        """The scene-level fields: ``gravity``, ``steps`` (the default
        run; 0: ``duration`` over dt), ``duration`` (s),
        ``rest_threshold`` (m/s), ``rest_threshold_steps``
        (docs/scenes.md, "Options")."""
        d = self._c.options()
        d["gravity"] = np.array(d["gravity"])
        return d

    def set_options(self, **changes):
        """Change the scene-level fields of ``options()`` by name."""
        f = {}
        for key, value in changes.items():
            if key == "gravity":
                f[key] = _numbers(value, (3,), "gravity")
            elif key == "steps":
                if not isinstance(value, numbers.Integral) or isinstance(value, bool):
                    raise SceneError(f"steps must be an integer, got {value!r}")
                f[key] = int(value)
            else:
                f[key] = _number(value, key)
        self._call(self._c.set_options, f)

    # ---- reading and changing records ---------------------------------------------

    def body(self, i):
        """Body i (an index or a name) as a dict of ``add_body``'s
        keywords (and ``mass``, ``inertia`` as a (3, 3) array)."""
        d = self._call(self._c.get, "body", self._index("body", i, "body"))
        out = {"name": d["name"], "mass": d["mass"],
               "inertia": np.array(d["inertia"]).reshape(3, 3),
               "static": d["static"], "rest_position": np.array(d["rest_position"])
               if d["rest_given"] else None}
        for key in ("position", "orientation", "velocity", "angular_velocity"):
            out[key] = np.array(d[key])
        return out

    def set_body(self, i, **changes):
        """Change body i's fields (``add_body``'s keywords); refused as
        its add would be, the model unchanged."""
        i = self._index("body", i, "set_body")
        bad = set(changes) - {"mass", "inertia", "position", "orientation", "velocity",
                              "angular_velocity", "static", "rest_position", "name"}
        if bad:
            raise TypeError(f"set_body: unknown field(s) {', '.join(sorted(bad))}")
        f = self._body_fields(f"body {i}", **changes)
        self._call(self._c.set, "body", i, f)

    def shape(self, i):
        """Shape i as a dict of ``add_shape``'s keywords: ``kind`` (a
        name) and its sizes (``points`` an (n, 3) array for a hull),
        ``body`` and ``material`` indices (material -1: the default), the
        pose, the filter and the name; ``set_shape(i, **shape(i))`` changes
        nothing."""
        d = self._call(self._c.get, "shape", self._index("shape", i, "shape"))
        kind = SHAPE_KINDS[d["kind"]]
        out = {"kind": kind}
        for key in _SIZES[kind] + ("body", "position", "orientation", "material", "contype",
                                   "conaffinity", "name"):
            out[key] = np.array(d[key]) if isinstance(d[key], tuple) else d[key]
        return out

    def set_shape(self, i, **changes):
        """Change shape i's fields (``add_shape``'s keywords, ``kind`` and
        ``body`` too)."""
        i = self._index("shape", i, "set_shape")
        what = f"shape {i}"
        known = set(_ALL_SIZES) | {"kind", "body", "material", "position", "orientation",
                                   "contype", "conaffinity", "name"}
        bad = set(changes) - known
        if bad:
            raise TypeError(f"set_shape: unknown field(s) {', '.join(sorted(bad))}")
        f = _shape_fields(changes, what, changes.get("kind"))
        if "body" in changes:
            f["body"] = self._index("body", changes["body"], what)
        if changes.get("material") is not None:
            f["material"] = self._index("material", changes["material"], what)
        elif "material" in changes:
            f["material"] = -1
        if "name" in changes:
            f["name"] = changes["name"]
        self._call(self._c.set, "shape", i, f)

    def material(self, i):
        """Material i as a dict (name, mu, restitution)."""
        return self._call(self._c.get, "material", self._index("material", i, "material"))

    def set_material(self, i, **changes):
        """Change material i's fields (mu, restitution, name): every
        shape of that material takes the change."""
        i = self._index("material", i, "set_material")
        bad = set(changes) - {"mu", "restitution", "name"}
        if bad:
            raise TypeError(f"set_material: unknown field(s) {', '.join(sorted(bad))}")
        f = {k: (v if k == "name" else _number(v, f"material {i}: {k}"))
             for k, v in changes.items()}
        self._call(self._c.set, "material", i, f)

    def joint(self, i):
        """Joint i as a dict (kind a name, b None for the world, ``axis``,
        ``axis2``, ``erp`` and ``cfm`` per row, ``limit``, ``motor`` and
        ``spring`` dicts or None)."""
        d = self._call(self._c.get, "joint", self._index("joint", i, "joint"))
        out = {"name": d["name"], "kind": JOINT_KINDS[d["kind"]], "a": d["a"],
               "b": None if d["b"] < 0 else d["b"], "anchor": np.array(d["anchor"]),
               "axis": np.array(d["axis1"]), "axis2": np.array(d["axis2"]),
               "erp": np.array(d["erp"]), "cfm": np.array(d["cfm"])}
        out["limit"] = ({k: d["limit_" + k] for k in ("lo", "hi", "erp", "cfm", "restitution")}
                        if d["limit_enabled"] else None)
        out["motor"] = ({k: d["motor_" + k] for k in ("velocity", "max_force", "cfm")}
                        if d["motor_enabled"] else None)
        out["spring"] = ({k: d["spring_" + k] for k in ("stiffness", "damping", "ref")}
                         if d["spring_enabled"] else None)
        return out

    def set_joint(self, i, **changes):
        """Change joint i's fields (``add_joint``'s keywords; ``limit``,
        ``motor`` or ``spring`` False turns it off)."""
        i = self._index("joint", i, "set_joint")
        known = {"kind", "a", "b", "anchor", "axis", "axis2", "erp", "cfm", "limit", "motor",
                 "spring", "name"}
        bad = set(changes) - known
        if bad:
            raise TypeError(f"set_joint: unknown field(s) {', '.join(sorted(bad))}")
        b_given = "b" in changes
        changes.setdefault("b", None)
        f = self._joint_fields(f"joint {i}", b_given=b_given, **changes)
        self._call(self._c.set, "joint", i, f)

    # ---- the whole model --------------------------------------------------------------

    def counts(self):
        """The records: ``{"bodies", "shapes", "materials", "joints",
        "exclusions"}`` -> count."""
        return self._c.counts()

    def default_steps(self, dt):
        """The model's default run at step ``dt`` (s): its steps, or its
        duration over dt."""
        return self._c.default_steps(float(dt))

    def copy(self):
        """A deep copy."""
        m = Model._wrap(self._c.copy(), self.name, self.timestep, self.warnings, self.notes)
        m.coordinates = self.coordinates
        return m

    def save(self, path, *, dt=None, default_mu=0.5, force=False):
        """Write the model as MJCF, which MuJoCo loads unchanged and
        ``lcplab.load_model`` reads back to the same model, bit for bit
        (docs/models.md).

        Parameters
        ----------
        path : str or os.PathLike
        dt : float, optional
            The file's ``<option timestep>``; default the model's
            ``timestep``, else 1/120.
        default_mu : float, optional
            The friction written for shapes of the world's default material.
        force : bool, optional
            Replace an existing file (never done without it).

        Raises
        ------
        ExistingFileError
            The file exists and ``force`` is False.
        SceneError
            A model the writer cannot express (the message names the record).
        FileError
            The file could not be written.
        """
        path = os.fspath(path)
        if not force and os.path.lexists(path):
            raise ExistingFileError(path)
        if dt is None:
            dt = self.timestep if self.timestep is not None else 1.0 / 120.0
        try:
            self._c.save(path, float(dt), float(default_mu), self.name)
        except ValueError as e:
            _raise(e)

    def __repr__(self):
        c = self.counts()
        return (f"Model({self.name!r}, bodies={c['bodies']}, shapes={c['shapes']}, "
                f"joints={c['joints']})")


def scene_model(name, **params):
    """A built-in scene's model, to change or save before building worlds.

    Parameters
    ----------
    name : str
        One of ``lcplab.scenes()``.
    **params
        The scene's parameters (``lcplab.scenes()`` lists them).

    Returns
    -------
    Model

    Raises
    ------
    SceneError
        An unknown scene, key or a refused value (the message names it).
    """
    from ._world import _params  # one formatting of parameters, World's
    if not isinstance(name, str):
        raise TypeError(f"name must be a scene's name, got {type(name).__name__}")
    try:
        return Model._wrap(_lcplab.scene_model(name, _params(params)), name)
    except ValueError as e:
        _raise(e)


def load_model(path, approximate=False, max_memory=None, coordinates=None, friction=None):
    """A model from an MJCF or URDF file, compiled by MuJoCo's own compiler
    and mapped onto lcplab's scene model (docs/models.md).

    Parameters
    ----------
    path : str or os.PathLike
    approximate : bool
        Approximate or drop what lcplab cannot map exactly (joint chains,
        cylinders and ellipsoids as hulls, armature, tendons, ...: the
        ``--approximate`` column of docs/models.md), each said in the
        model's ``notes``; False (the default): refuse it.
    max_memory : int or None
        The memory cap in bytes: a file whose bodies, geoms, joints and
        meshes (with MuJoCo's own model and data) would need more is
        refused, its counts named; None: the toolkit's default (4 GiB).
    coordinates : {None, "maximal", "reduced"}
        The representation of the worlds built on the model (docs/models.md,
        "Third-party models: the representation"): "reduced" (the joint
        coordinates of the tree, contacts mapped to joint space; several
        joints on one body exact through massless frames, armature mapped;
        equality constraints' loops as rows in joint space), "maximal"
        (every body its six velocities, joints as rows), or None (the
        default): the file's own, reduced for a kinematic tree (with loops
        too), maximal for the others and for files lcplab wrote. The model's ``coordinates`` says which.
    friction : {None, "none", "box", "pyramid", "cone"}
        The friction model of the worlds the model is for (``World``'s
        ``friction``), as the command line's ``--friction`` and an
        experiment's ``friction=``: box friction simulates MuJoCo's condim
        4 and 6 (torsional and rolling friction, rows of angular velocity);
        the cone and the pyramid have no such rows, so a geom of condim 4 or
        6 is refused, named, or with ``approximate=True`` read as condim 3
        and said in ``notes``.  None (the default): read as they are, and a
        ``World`` of the cone or the pyramid on the model refuses them.

    Returns
    -------
    Model
        With the file's ``timestep``, MuJoCo's ``warnings`` and the
        ``notes`` of what was approximated.

    Raises
    ------
    MissingFileError
        No such file.
    FileError
        MuJoCo could not load it (its message, with the line).
    SceneError
        It holds a feature lcplab does not simulate, or a value lcplab's
        model refuses (the message names the element and the feature).
    """
    path = os.fspath(path)
    if max_memory is not None and (isinstance(max_memory, bool) or
                                   not isinstance(max_memory, int) or max_memory <= 0):
        raise ValueError("max_memory must be a whole number of bytes > 0, got %r" % (max_memory,))
    if coordinates not in (None, "maximal", "reduced"):
        raise ValueError("coordinates must be None, 'maximal' or 'reduced', got %r" %
                         (coordinates,))
    if friction not in (None, "none", "box", "pyramid", "cone"):
        raise ValueError("friction must be None, 'none', 'box', 'pyramid' or 'cone', got %r" %
                         (friction,))
    if not os.path.exists(path):
        raise MissingFileError(path)
    try:
        c, timestep, warnings, notes, reduced = _lcplab.load_model(
            path, bool(approximate), min(max_memory or 0, 2**64 - 1),
            {None: -1, "maximal": 0, "reduced": 1}[coordinates], friction)
    except ValueError as e:
        _raise(e)
    name = os.path.splitext(os.path.basename(path))[0]
    m = Model._wrap(c, name, timestep, warnings, notes)
    m.coordinates = "reduced" if reduced else "maximal"
    return m
