"""lcplab.Model, scene_model, load_model: scene models (libdynamics'
dyn_model; docs/scenes.md) and their files in MuJoCo's MJCF (libmodels;
docs/models.md)."""

import os

from . import _lcplab
from ._errors import ExistingFileError, FileError, MissingFileError, SceneError

__all__ = ["Model", "scene_model", "load_model"]


def _raise(e):
    """The extension's ValueError(message, code) as the package's error:
    FileError for a file MuJoCo could not load or that could not be
    written, SceneError for a refused model or feature."""
    msg, code = e.args if len(e.args) == 2 else (str(e), "input")
    if code in ("file", "io", "mujoco"):
        raise FileError(msg) from None
    raise SceneError(msg) from None


class Model:
    """A scene model: what a scene is (bodies, shapes, materials, joints,
    gravity, the default run) apart from where it is now (a ``World``).

    A Model owns a C scene model (``dyn_model``, docs/scenes.md). Make one
    with ``lcplab.scene_model`` (a built-in scene) or ``lcplab.load_model``
    (an MJCF file); build worlds from it with ``lcplab.World(model, ...)``,
    as many as wanted; save it with ``save``.

    Attributes
    ----------
    name : str
        The scene's name, or the file's name without folder and extension.
    timestep : float or None
        The file's ``<option timestep>`` (a loaded model): the dt its
        worlds take unless given one; None for a built-in scene's.
    warnings : str
        MuJoCo's warnings when the file was compiled ("" for none).
    notes : str
        What ``load_model(..., approximate=True)`` approximated or dropped,
        and the actuators left at zero control ("" for none).

    Examples
    --------
    >>> import lcplab, os, tempfile
    >>> m = lcplab.scene_model("stack", n=3)
    >>> m.counts()["bodies"]
    4
    >>> path = os.path.join(tempfile.mkdtemp(), "stack.xml")
    >>> m.save(path)
    >>> lcplab.load_model(path).counts() == m.counts()
    True
    """

    def __init__(self, _c, name, timestep=None, warnings="", notes=""):
        if not isinstance(_c, _lcplab.Model):
            raise TypeError("make a Model with lcplab.scene_model or lcplab.load_model")
        self._c = _c
        self.name = name
        self.timestep = timestep
        self.warnings = warnings
        self.notes = notes

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
        return Model(self._c.copy(), self.name, self.timestep, self.warnings, self.notes)

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
        return Model(_lcplab.scene_model(name, _params(params)), name)
    except ValueError as e:
        _raise(e)


def load_model(path, approximate=False, max_memory=None):
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
    if not os.path.exists(path):
        raise MissingFileError(path)
    try:
        c, timestep, warnings, notes = _lcplab.load_model(path, bool(approximate),
                                                          min(max_memory or 0, 2**64 - 1))
    except ValueError as e:
        _raise(e)
    name = os.path.splitext(os.path.basename(path))[0]
    return Model(c, name, timestep, warnings, notes)
