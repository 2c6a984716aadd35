"""lcplab.read and lcplab.write: instance files through the I/O library
(the I/O library libio, libio/io.h; docs/io.md; the formats: datasets/README.md)."""

import os

from . import _lcplab
from ._errors import (ExistingFileError, FileError, MissingFileError, UnknownNameError,
                      UnsupportedError)
from ._problem import Problem, _check_problem

__all__ = ["formats", "read", "write"]

_FORMATS = {name: value for value, name in _lcplab.formats()}
_UNSUPPORTED = -2  # SLV_ERR_UNSUPPORTED


def formats():
    """The file formats ``read`` and ``write`` take, by name.

    Returns
    -------
    list of str
        ``"auto"`` (by extension, then content), ``"siconos-lcp"``,
        ``"siconos-mlcp"``, ``"siconos-relay"``, ``"blcp"``, ``"mtx"``,
        ``"lcplab"``, ``"siconos-fc3d"``, ``"siconos-gfc3d"``, ``"fclib"``, ``"npz"`` (ContactBench), ``"mat"`` (MATLAB, read only),
        ...
    """
    return list(_FORMATS)


def _format(fmt):
    if fmt is None:
        return _FORMATS["auto"]
    if fmt not in _FORMATS:
        raise UnknownNameError(f"unknown format {fmt!r} (one of: {', '.join(_FORMATS)})")
    return _FORMATS[fmt]


def read(path, format=None):
    """Read an instance file.

    Parameters
    ----------
    path : str or os.PathLike
        The file. For ``mtx``, the MatrixMarket A; b, lo, hi, findex, mu are
        read from the files beside it (``FILE.b``, ...).
    format : str, optional
        One of ``formats()``; default: from the extension (``.dat``,
        ``.blcp``, ``.mtx``, ``.lcp``, ``.hdf5``, ``.npz``, ``.mat``), then from the
        content. A ContactBench ``.npz`` (G, g, mus, each contact's normal
        last) becomes lcplab's normal-first cone problem (datasets/README.md).

    Returns
    -------
    Problem
        With ``name`` (the file's base name), ``format`` (the format it was
        read from) and ``x_ref`` (a reference solution, when the file has
        one, else None); from a global problem, the condensed problem with
        the global one (``global_problem``: ``M``, ``H``, ``f``, ``w``; see
        ``Problem``).

    Raises
    ------
    MissingFileError
        No such file (also a ``FileNotFoundError``).
    UnknownNameError
        An unknown format name.
    FileError
        The library refused the file; the message names the file and line,
        ``"x.lcp:4: expected 3 values, found 2"``.
    """
    path = os.fspath(path)
    code = _format(format)
    if not os.path.exists(path):
        raise MissingFileError(path)
    d = _lcplab.read(path, code)
    if isinstance(d, tuple):
        status, message = d
        raise FileError(message if path in message else f"{path}: {message}")
    fmt = {v: k for k, v in _FORMATS.items()}.get(d["format"])
    return Problem._from_c(d["problem"], name=d["name"], fmt=fmt, x_ref=d["x_ref"],
                           glob=d["global"])


def write(problem, path, format=None, *, force=False):
    """Write a problem to an instance file; a write followed by a read gives
    the same problem, bit for bit (numbers are written with 17 digits).

    Parameters
    ----------
    problem : Problem
        The problem (its ``x_ref``, if any, goes along where the format can
        hold it; a problem with ``M`` and ``H`` is written as the global
        problem by ``.hdf5`` and ``.dat``).
    path : str or os.PathLike
        The file to create.
    format : str, optional
        One of ``formats()``; default from the extension.
    force : bool, optional
        Overwrite an existing file (refused otherwise, as ``lcplab`` does
        without ``--force``).

    Raises
    ------
    ExistingFileError
        The file exists and ``force`` is False (also a ``FileExistsError``).
    UnknownNameError
        An unknown format name.
    UnsupportedError
        The format cannot hold this problem (friction rows in a Siconos LCP
        file, a row outside the cones in a ContactBench ``.npz``, ...);
        nothing is written then.
    FileError
        The library could not write the file.
    """
    _check_problem(problem)
    path = os.fspath(path)
    code = _format(format)
    if not force and os.path.lexists(path):
        raise ExistingFileError(path)
    name = problem.name or os.path.splitext(os.path.basename(path))[0]
    status, message = _lcplab.write(problem._c(), path, code, name, problem.x_ref,
                                    problem._global)
    if status == _UNSUPPORTED:
        raise UnsupportedError(message if path in message else f"{path}: {message}")
    if status != 0:
        raise FileError(message if path in message else f"{path}: {message}")
