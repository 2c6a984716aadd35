"""The package as a whole: its one version (docs/python.md, "Install"), and
`python -m lcplab`, the lcplab program of the build ("The lcplab command")."""

import os
import re

import pytest

import lcplab


def test_version_is_configure_acs():
    # one version: configure.ac's AC_INIT, which the extension is built
    # with and setup.py writes into the metadata
    src = os.environ.get("LCPLAB_SRCDIR")
    if not src:
        pytest.skip("LCPLAB_SRCDIR is not set (run through make check)")
    with open(os.path.join(src, "configure.ac")) as f:
        want = re.search(r"AC_INIT\(\[lcplab\],\s*\[([^\]]+)\]", f.read()).group(1)
    assert lcplab.__version__ == want


def test_python_m_lcplab_runs_the_builds_program():
    # python -m lcplab is the lcplab program of the build the package was
    # assembled in (LCPLAB_BIN), not a copy in Python: the same --version,
    # the same solvers list, the same exit status and message on bad usage
    import subprocess
    import sys
    binary = os.environ.get("LCPLAB_BIN")
    if not binary:
        pytest.skip("LCPLAB_BIN is not set (run through make check)")
    # make check's LCPLAB_BIN is the program behind libtool's wrapper script
    # (Makefile.am, TESTS_LIBDIRS), the package's the wrapper itself
    prog = os.path.realpath(lcplab._program.program())
    behind = os.path.join(os.path.dirname(prog), ".libs", os.path.basename(prog))
    assert os.path.realpath(binary) in (prog, os.path.realpath(behind))

    def run(cmd):
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)

    for args in (["--version"], ["solvers"], ["frobnicate"]):
        mod, prog = run([sys.executable, "-m", "lcplab"] + args), run([binary] + args)
        assert (mod.returncode, mod.stdout, mod.stderr) == \
            (prog.returncode, prog.stdout, prog.stderr), args
    assert run([sys.executable, "-m", "lcplab", "frobnicate"]).returncode == 2
