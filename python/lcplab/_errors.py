"""The exceptions of the lcplab package.

Every error the C library reports comes back as one of these, carrying the
library's one-line message (which names the field, index, file or line) and
its status. The library never exits or aborts the interpreter.
"""

__all__ = [
    "LcplabError",
    "InvalidProblemError",
    "UnsupportedError",
    "OptionsError",
    "FileError",
    "SceneError",
    "SimulationError",
]


class LcplabError(Exception):
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


class InvalidProblemError(LcplabError, ValueError):
    """The problem's data is invalid: a wrong shape, a NaN, ``lo > hi``, a bad
    friction index or cone. The message names the field and the index, for
    example ``"Problem: lo[3]=2 > hi[3]=1"``."""


class UnsupportedError(LcplabError):
    """A solver refuses the kind of problem (``"dantzig needs a symmetric
    A"``), or a file format cannot hold the problem. This is coverage, not a
    failure: another solver or format may take it."""


class OptionsError(LcplabError, ValueError):
    """A solver option is out of its range, for example ``omega=2.5``."""


class FileError(LcplabError, OSError):
    """A file could not be read or written; the message names the file and,
    for a read, the line (``"x.lcp:4: expected 3 values, found 2"``)."""


class SceneError(LcplabError, ValueError):
    """A scene could not be built: an unknown scene, parameter or setting, a
    value out of its domain (``"mu=-1 must be >= 0"``) or settings the world
    rejects; the message names it."""


class SimulationError(LcplabError):
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


class ExperimentError(LcplabError):
    """An experiment file, a campaign or a comparison was refused or could
    not run (the message is the engine's, naming the file, line or field).

    Attributes
    ----------
    status : int
        The engine's status: 2 bad input, 3 a task failed or a result is
        missing (the CSVs of the tasks done are written).
    messages : list of str
        Every line the engine said.
    """

    def __init__(self, message, status=2, messages=()):
        super().__init__(message)
        self.status = status
        self.messages = list(messages)
