"""The package as a whole: its one version (docs/python.md, "Install")."""

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
