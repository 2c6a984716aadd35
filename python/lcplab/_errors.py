"""The exceptions of the lcplab package: one hierarchy under ``lcplab.Error``.

Every refusal lcplab makes (of a problem, an option, a name, a file, a
scene, a step) is an ``lcplab.Error``, carrying the library's one-line
message (which names the field, index, file or line) and its status; each
also derives from the built-in exception it means (``ValueError``,
``OSError``, ``FileNotFoundError``, ``FileExistsError``), so code that
catches those keeps working. Outside it, as Python does: ``TypeError`` for
an argument of the wrong type or an unknown keyword, ``AttributeError`` for
setting a field of an immutable ``Problem``, ``MemoryError`` when memory
runs out (docs/python.md, "Errors"). The library never exits or aborts the
interpreter.

    Error
    +-- InvalidProblemError   (ValueError)  a problem, warm start or x
    +-- OptionsError          (ValueError)  a solver option
    +-- UnknownNameError      (ValueError)  a solver or format name
    +-- UnsupportedError                    a solver or format refuses the problem
    +-- FileError             (OSError)     a file could not be read or written
    |   +-- MissingFileError  (FileNotFoundError)
    |   +-- ExistingFileError (FileExistsError)
    +-- SceneError            (ValueError)  a scene, parameter or setting
    +-- SimulationError                     a world step failed
"""

__all__ = [
    "Error",
    "LcplabError",
    "InvalidProblemError",
    "OptionsError",
    "UnknownNameError",
    "UnsupportedError",
    "FileError",
    "MissingFileError",
    "ExistingFileError",
    "SceneError",
    "SimulationError",
    "PluginError",
]


class Error(Exception):
    """Base class of the errors lcplab raises.

    Attributes
    ----------
    message : str
        The library's one-line message.
    status : lcplab.Status or None
        The library's status code, when the error comes from libsolvers.
    """

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status


#: The base's former name, kept for code written against it.
LcplabError = Error


class InvalidProblemError(Error, ValueError):
    """The problem's data is invalid: a wrong shape, a NaN, ``lo > hi``, a bad
    friction index or cone; or a vector given with it (a warm start, an x
    to measure) has the wrong shape. The message names the field and the
    index, for example ``"Problem: lo[3]=2 > hi[3]=1"``."""


class UnsupportedError(Error):
    """A solver refuses the kind of problem (``"dantzig needs a symmetric
    A"``), or a file format cannot hold the problem. This is coverage, not a
    failure: another solver or format may take it."""


class OptionsError(Error, ValueError):
    """A solver option is out of its range, for example ``omega=2.5``."""


class UnknownNameError(Error, ValueError):
    """A solver or format name that is not registered; the message lists
    the known ones."""


class FileError(Error, OSError):
    """A file could not be read or written; the message names the file and,
    for a read, the line (``"x.lcp:4: expected 3 values, found 2"``)."""


class MissingFileError(FileError, FileNotFoundError):
    """The file to read does not exist (also a ``FileNotFoundError``, with
    ``errno`` and ``filename``)."""

    def __init__(self, path):
        OSError.__init__(self, 2, "No such file", path)
        self.message = f"{path}: no such file"
        self.status = None


class ExistingFileError(FileError, FileExistsError):
    """The file to write exists and overwriting was not asked (also a
    ``FileExistsError``, with ``errno`` and ``filename``)."""

    def __init__(self, path):
        OSError.__init__(self, 17, "File exists (use force=True to overwrite)", path)
        self.message = f"{path}: exists (use force=True to overwrite)"
        self.status = None


class SceneError(Error, ValueError):
    """A scene could not be built: an unknown scene, parameter or setting, a
    value out of its domain (``"mu=-1 must be >= 0"``) or settings the world
    rejects; the message names it."""


class SimulationError(Error):
    """A world step failed: the scene or its settings were refused, or a
    step's solve failed in a way the world does not apply (non-finite
    impulses, or worse than no impulse). The world is left as it was before
    the failed step.

    Attributes
    ----------
    kind : str
        ``"input"`` (refused input: scene, settings, a solver that does not
        take the scene's problems), ``"numeric"`` (a step failed) or
        ``"memory"``.
    result : lcplab.SimulationResult or None
        The metrics (and trace) of the steps done before the failure.
    """

    def __init__(self, message, kind, result=None):
        super().__init__(message)
        self.kind = kind
        self.result = result


class PluginError(Error, ValueError):
    """A C plugin that cannot be loaded (missing, not a shared library, not
    an lcplab plugin, another solver ABI) or a solver that cannot be
    registered (a bad or taken name); the message names the plugin or the
    solver (docs/plugins.md)."""


class ExperimentError(LcplabError):
    """An experiment file, a campaign or a comparison was refused or could
    not run (the message is the engine's, naming the file, line or field).

    Attributes
    ----------
    code : int
        The engine's status (the program's exit status): 2 bad input, 3 a
        task failed or a result is missing, 130 / 143 stopped.
    messages : list of str
        Every line the engine said.
    """

    def __init__(self, message, code=2, messages=()):
        super().__init__(message)
        self.code = code
        self.messages = list(messages)
