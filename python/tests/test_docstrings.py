"""The examples of the package's numpy-style docstrings run and print what
they say, and every public name has a docstring with the numpy sections it
needs (Parameters / Returns for functions that take or give something)."""

import doctest
import importlib
import inspect

import pytest

import lcplab

MODULES = ["lcplab", "lcplab._problem", "lcplab._solve", "lcplab._world", "lcplab._io",
           "lcplab._errors", "lcplab._log", "lcplab._gradients"]
RETURN_NOTHING = {"write", "load_plugin"}  # numpy's convention: no Returns section for None


@pytest.mark.parametrize("name", MODULES)
def test_examples(name):
    mod = importlib.import_module(name)
    r = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert r.failed == 0


@pytest.mark.parametrize("name", sorted(lcplab.__all__))
def test_public_names_are_documented(name):
    obj = getattr(lcplab, name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return
    doc = inspect.getdoc(obj)
    assert doc and len(doc.splitlines()[0]) > 10, name
    if inspect.isfunction(obj):
        if inspect.signature(obj).parameters:
            assert "Parameters\n----------" in doc, name
        if name not in RETURN_NOTHING:
            assert "Returns\n-------" in doc, name
