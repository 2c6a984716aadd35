"""The bridge from the library's log callback to Python's ``logging``.

The C library never prints. It hands one-line messages with a level to a
callback (``slv.h``, "logging"): *error* for a refused solve, *warning* for a
solve that ran and did not converge, *info* for one line per converged solve,
*debug* for a solver's internals. The package routes them to the logger
``"lcplab"``, at the matching ``logging`` level. As a library should, the
package only adds a ``logging.NullHandler`` to that logger: nothing is shown
until the application configures logging, for example with
``logging.basicConfig(level=logging.INFO)``.

The callback is installed only when the logger would keep at least one
level, and the library is told the finest level the logger keeps, so that a
silent logger costs nothing.
"""

import logging

from . import _lcplab

logger = logging.getLogger("lcplab")
logger.addHandler(logging.NullHandler())

# library level -> logging level, finest last
_LEVELS = (
    (_lcplab.LOG_ERROR, logging.ERROR),
    (_lcplab.LOG_WARNING, logging.WARNING),
    (_lcplab.LOG_INFO, logging.INFO),
    (_lcplab.LOG_DEBUG, logging.DEBUG),
)
_TO_LOGGING = dict(_LEVELS)


def _emit(level, line):
    logger.log(_TO_LOGGING.get(level, logging.DEBUG), "%s", line)


def bridge():
    """The (callback, level) pair for the C layer: ``(None, 0)`` when the
    logger keeps nothing, else the emitter and the finest library level
    whose ``logging`` level the logger keeps."""
    finest = None
    for lib_level, py_level in _LEVELS:
        if logger.isEnabledFor(py_level):
            finest = lib_level
    if finest is None:
        return None, _lcplab.LOG_ERROR
    return _emit, finest
