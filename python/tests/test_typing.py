"""The package's type information (PEP 561; docs/python.md, "Types"): the
stubs agree with the package (mypy's stubtest: every public name, argument
and default) and a user's typed code (typing_example.py) passes mypy
--strict with them. Skipped without mypy (apt-get install mypy) and in a
sanitizer build."""

import os
import subprocess
import sys

import pytest

import lcplab

pytest.importorskip("mypy", reason="mypy is not installed (apt-get install mypy)")
if "libasan" in os.environ.get("LD_PRELOAD", ""):
    # mypy would run with the sanitizer runtime preloaded (run_pytest.sh);
    # the stubs are the same in every build, and the plain build checks them
    pytest.skip("a sanitizer build: the plain build checks the stubs", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))


def _mypy(args, tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(lcplab.__file__)))
    return subprocess.run([sys.executable, "-m", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    """One mypy cache for the module's mypy runs: the second run reuses what
    the first read of numpy's and lcplab's stubs (20 s of a cold run)."""
    return str(tmp_path_factory.mktemp("mypy-cache"))


def test_package_has_py_typed_and_stubs():
    here = os.path.dirname(lcplab.__file__)
    for name in ("py.typed", "__init__.pyi", "_problem.pyi", "_solve.pyi", "_errors.pyi"):
        assert os.path.exists(os.path.join(here, name)), name


def test_stubs_match_the_package(tmp_path):
    r = _mypy(["mypy.stubtest", "lcplab", "--mypy-config-file", os.devnull], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_typed_user_code_passes_mypy_strict(tmp_path, mypy_cache):
    r = _mypy(["mypy", "--strict", "--cache-dir", mypy_cache,
               os.path.join(HERE, "typing_example.py")], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_sees_a_wrong_call(tmp_path, mypy_cache):
    # the check can fail: the stubs say what solve takes and that a
    # Problem's fields are read-only
    bad = tmp_path / "bad.py"
    bad.write_text("import lcplab\n"
                   "p = lcplab.Problem([[1.0]], [1.0])\n"
                   "lcplab.solve(p, 3)\n"
                   "p.b = p.b\n")
    r = _mypy(["mypy", "--strict", "--cache-dir", mypy_cache, str(bad)], tmp_path)
    assert r.returncode == 1
    assert 'Argument 2 to "solve" has incompatible type "int"' in r.stdout
    assert 'Property "b" defined in "Problem" is read-only' in r.stdout
