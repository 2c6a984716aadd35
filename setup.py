"""The build of the Python package for pip and `python3 -m build`
(pyproject.toml has the metadata; docs/python.md, "Install").

The extension lcplab._lcplab is built by the project's own autotools build,
not by setuptools' compiler: the C sources of the libraries and of the
extension, their flags and the system libraries they link are listed once,
in Makefile.am and configure.ac, and the one make target
python/wheel/_lcplab.la links the libraries into the extension. The
steps, in the build's temporary folder (build/pip/temp.*/autotools):

1. autoreconf -fi in the source tree, when it has no configure script yet
   (a fresh clone);
2. configure --enable-python PYTHON=<this interpreter>, once;
3. make python/wheel/_lcplab.la python/wheel/lcplab (only what the
   extension and the program need);
4. the module copied where setuptools packs it, the lcplab program beside
   it as bin/lcplab (the `lcplab` command and `python -m lcplab` run it:
   python/lcplab/__main__.py), and the figure scripts as scripts/.

Each step's output goes to a log file beside it; a failing step raises an
error naming the step and the log, with its last lines.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def configure_version(srcdir):
    """The version of AC_INIT([lcplab], [VERSION], ...) in configure.ac:
    the project's one version (the libraries', the program's, the
    package's)."""
    path = os.path.join(srcdir, "configure.ac")
    with open(path) as f:
        m = re.search(r"AC_INIT\(\[lcplab\],\s*\[([^\]]+)\]", f.read())
    if not m:
        raise RuntimeError(f"{path}: no AC_INIT([lcplab], [VERSION]) found")
    return m.group(1)


class BuildError(RuntimeError):
    pass


def run_step(what, cmd, cwd, log):
    """Runs cmd in cwd with its output in the file log; BuildError with
    the log's tail when it fails."""
    with open(log, "w") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        try:
            rc = subprocess.call(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
        except OSError as e:
            raise BuildError(f"lcplab: {what}: cannot run {cmd[0]}: {e} (the Debian packages "
                             f"of README.md, 'Dependencies', are needed)") from None
    if rc != 0:
        with open(log) as f:
            tail = "".join(f.readlines()[-25:])
        raise BuildError(f"lcplab: {what} failed (exit {rc}); its log is {log}; "
                         f"the last lines:\n{tail}")


def make_jobs():
    """make's -j: MAKEFLAGS when set (make reads it), else one per CPU."""
    if "-j" in os.environ.get("MAKEFLAGS", ""):
        return []
    return [f"-j{os.cpu_count() or 1}"]


class AutotoolsExtension(build_ext):
    """build_ext that makes the extension with the project's build."""

    def build_extension(self, ext):
        src = HERE
        if os.path.exists(os.path.join(src, "config.status")):
            raise BuildError(f"lcplab: {src} is configured in place; the package is built "
                             f"out of tree: run `make distclean` there first (README.md)")
        tree = os.path.abspath(os.path.join(self.build_temp, "autotools"))
        os.makedirs(tree, exist_ok=True)
        if not os.path.exists(os.path.join(src, "configure")):
            run_step("autoreconf", ["autoreconf", "-fi"], src,
                     os.path.join(tree, "autoreconf.log"))
        if not os.path.exists(os.path.join(tree, "config.status")):
            run_step("configure", [os.path.join(src, "configure"), "--enable-python",
                                   f"PYTHON={sys.executable}"], tree,
                     os.path.join(tree, "configure.log"))
        run_step("make", ["make"] + make_jobs() + ["python/wheel/_lcplab.la",
                                                    "python/wheel/lcplab"], tree,
                 os.path.join(tree, "make.log"))
        built = os.path.join(tree, "python", "wheel", ".libs", "_lcplab.so")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)
        # the lcplab program (cli/ with the libraries linked in: no libtool
        # wrapper, no libsolvers.so), executable in the wheel
        bindir = os.path.join(os.path.dirname(target), "bin")
        os.makedirs(bindir, exist_ok=True)
        shutil.copy(os.path.join(tree, "python", "wheel", "lcplab"), os.path.join(bindir, "lcplab"))
        # the figure scripts of run_experiment (experiments/exp_*.gp), as
        # `make install` puts them in $(pkgdatadir): the package's scripts/
        scripts = os.path.join(os.path.dirname(target), "scripts")
        os.makedirs(scripts, exist_ok=True)
        for name in sorted(os.listdir(os.path.join(src, "experiments"))):
            if name.startswith("exp_") and name.endswith(".gp"):
                shutil.copyfile(os.path.join(src, "experiments", name),
                                os.path.join(scripts, name))


setup(
    version=configure_version(HERE),
    # no sources here: Makefile.am lists them (AutotoolsExtension)
    ext_modules=[Extension("lcplab._lcplab", sources=[])],
    cmdclass={"build_ext": AutotoolsExtension},
    # beside the autotools build folder build/ of README.md, not over it
    options={"build": {"build_base": os.path.join("build", "pip")}},
)
