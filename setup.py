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
error naming the step and the log, with its last lines.  Before them, an
interpreter without numpy stops the build with what is wrong: numpy hidden
by an isolated build (pip install --no-build-isolation), missing from a
virtual environment whose base has it, or not installed.
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


def isolated_build():
    """The build environment of a PEP 517 front end that hides the
    interpreter's own packages: pip's (its requirements in a folder
    pip-build-env-*, put first on the path by PYTHONPATH, user site off),
    or build's (a virtual environment build-env-*)."""
    marks = [os.environ.get("PYTHONPATH", "")] + sys.path + [sys.prefix]
    return any("pip-build-env-" in m or os.sep + "build-env-" in m for m in marks)


def numpy_outside(python):
    """Where python imports numpy from outside this build's environment
    (-I: no PYTHONPATH, no user site; the interpreter's own site-packages
    and a --system-site-packages environment's system ones), or None."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    try:
        r = subprocess.run([python, "-I", "-c", "import numpy; print(numpy.__file__)"],
                           capture_output=True, text=True, env=env, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return os.path.dirname(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip() else None


def numpy_missing():
    """None when this interpreter imports numpy (the extension's C headers
    come with it), else what is wrong, for each case: numpy hidden by an
    isolated build, missing from a virtual environment whose base has it,
    or not installed at all."""
    try:
        import numpy  # noqa: F401
        return None
    except ImportError:
        pass
    route = "(docs/python.md, \"Install\")"
    if isolated_build():
        found = numpy_outside(sys.executable)
        where = (f"{sys.executable} has numpy ({found}), but " if found else
                 f"numpy is not installed for {sys.executable}, and ")
        return (f"lcplab: {where}this isolated build environment (pip install . without "
                f"--no-build-isolation) hides it and has none of its own: pyproject.toml lists "
                f"numpy under [build-system] requires, but it could not be installed here "
                f"(offline, or an index without it). Build with the environment's own numpy"
                f"{'' if found else ', once installed'}: pip install --no-build-isolation . "
                f"(python -m build --no-isolation) {route}")
    base = getattr(sys, "_base_executable", None)
    found = numpy_outside(base) if base and sys.prefix != sys.base_prefix else None
    if found:
        return (f"lcplab: numpy is not installed in the environment {sys.prefix}, though its "
                f"base {base} has it ({found}): make the environment with "
                f"--system-site-packages, or pip install numpy in it {route}")
    return (f"lcplab: numpy is not installed for {sys.executable}: apt-get install "
            f"python3-numpy (Debian's python3) or pip install numpy, then pip install "
            f"--no-build-isolation . {route}")


def run_step(what, cmd, cwd, log, env=None):
    """Runs cmd in cwd (in the environment env, else this one's) with its
    output in the file log; BuildError with the log's tail when it fails."""
    with open(log, "w") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        try:
            rc = subprocess.call(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env)
        except OSError as e:
            raise BuildError(f"lcplab: {what}: cannot run {cmd[0]}: {e} (the Debian packages "
                             f"of README.md, 'Dependencies', are needed)") from None
    if rc != 0:
        with open(log) as f:
            tail = "".join(f.readlines()[-25:])
        raise BuildError(f"lcplab: {what} failed (exit {rc}); its log is {log}; "
                         f"the last lines:\n{tail}")


def configure_shell_env():
    """configure's environment: CONFIG_SHELL=/bin/dash when dash exists and
    the user named no shell.  configure otherwise re-runs itself under
    bash, which then runs libtool for every one of the build's compiles and
    links; its forks cost more than dash's (the build's CPU under each:
    experiments/records/2026-11-29-test-time-7.md)."""
    env = dict(os.environ)
    if not env.get("CONFIG_SHELL") and os.access("/bin/dash", os.X_OK):
        env["CONFIG_SHELL"] = "/bin/dash"
    return env


def make_jobs():
    """make's -j: MAKEFLAGS when set (make reads it), else one per CPU."""
    if "-j" in os.environ.get("MAKEFLAGS", ""):
        return []
    return [f"-j{os.cpu_count() or 1}"]


class AutotoolsExtension(build_ext):
    """build_ext that makes the extension with the project's build."""

    def build_extension(self, ext):
        src = HERE
        why = numpy_missing()
        if why:  # before configure, whose probe would say only "apt-get python3-numpy"
            raise BuildError(why)
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
                     os.path.join(tree, "configure.log"), env=configure_shell_env())
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
