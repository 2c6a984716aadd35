"""The lcplab program and the figure scripts this package belongs with
(docs/python.md, "The lcplab command").

The ``lcplab`` command of a pip-installed package and ``python -m lcplab``
(``__main__.py``) run the lcplab program itself (cli/), never a copy of it in
Python; ``run_experiment`` names it in the plans it writes, and draws
figures with the scripts found here.
"""

import os

from . import _lcplab

_HERE = os.path.dirname(os.path.abspath(__file__))


def _executable(path):
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


def _in_build_tree():
    # the package the build assembled (build/python/lcplab, on PYTHONPATH),
    # as the build tree's program knows its own tree (cli/datadir.c)
    return bool(_lcplab.BUILDDIR) and os.path.realpath(_HERE) == os.path.realpath(
        os.path.join(_lcplab.BUILDDIR, "python", "lcplab"))


def program():
    """The path of the lcplab program of this package, or None.

    A wheel's own (bin/lcplab: the program's sources with the libraries
    linked in, Makefile.am, python/wheel/lcplab); for the package a build
    assembled, that build's cli/lcplab; for the package ``make install``
    put, the installed $(bindir)/lcplab.
    """
    own = _executable(os.path.join(_HERE, "bin", "lcplab"))
    if own:
        return own
    if _in_build_tree():
        return _executable(os.path.join(_lcplab.BUILDDIR, "cli", "lcplab"))
    return _executable(os.path.join(_lcplab.BINDIR, "lcplab")) if _lcplab.BINDIR else None


def environment(prog):
    """The environment to run prog in: this process's, and for a wheel's
    own program, compiled for no fixed folder, LCPLAB_EXPERIMENTS naming the
    package's figure scripts (unless already set)."""
    env = dict(os.environ)
    own = os.path.join(_HERE, "scripts")
    if (prog == os.path.join(_HERE, "bin", "lcplab") and not env.get("LCPLAB_EXPERIMENTS")
            and os.path.isfile(os.path.join(own, "exp_profile.gp"))):
        env["LCPLAB_EXPERIMENTS"] = own
    return env


def scripts():
    """The folder of the figure scripts (experiments/exp_KIND.gp), as the
    lcplab program looks for them (cli/datadir.c): LCPLAB_EXPERIMENTS, then
    the package's own (a wheel carries them in scripts/), the installed
    ones, then those of the source tree the module was built from; None
    when there are none."""
    env = os.environ.get("LCPLAB_EXPERIMENTS")
    if env:
        return env
    own = os.path.join(_HERE, "scripts")
    for d in (own, _lcplab.PKGDATADIR, _lcplab.SRC_EXPERIMENTS):
        if d and os.path.isfile(os.path.join(d, "exp_profile.gp")):
            return d
    return None
