"""One exception hierarchy under lcplab.Error (docs/python.md, "Errors"),
and a Result that says which solver ran and why (auto's choice)."""

import numpy as np
import pytest

import lcplab

ERRORS = ("InvalidProblemError", "OptionsError", "UnknownNameError", "UnsupportedError",
          "FileError", "MissingFileError", "ExistingFileError", "SceneError", "SimulationError")


@pytest.mark.parametrize("name", ERRORS)
def test_every_error_is_an_lcplab_error(name):
    assert issubclass(getattr(lcplab, name), lcplab.Error)


def test_former_base_name():
    assert lcplab.LcplabError is lcplab.Error


def _p():
    return lcplab.Problem(np.eye(2), [-1.0, 1.0])


def test_unknown_solver_and_format_names():
    with pytest.raises(lcplab.UnknownNameError, match="nope.*lemke") as e:
        lcplab.solve(_p(), "nope")
    assert isinstance(e.value, ValueError)
    with pytest.raises(lcplab.UnknownNameError, match="xyz"):
        lcplab.read("whatever.lcp", format="xyz")


def test_missing_and_existing_files(tmp_path):
    missing = tmp_path / "none.lcp"
    with pytest.raises(lcplab.MissingFileError) as e:
        lcplab.read(missing)
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, lcplab.FileError)
    assert e.value.filename == str(missing) and e.value.errno == 2
    f = tmp_path / "p.lcp"
    lcplab.write(_p(), f)
    with pytest.raises(lcplab.ExistingFileError) as e:
        lcplab.write(_p(), f)
    assert isinstance(e.value, FileExistsError) and e.value.filename == str(f)


def test_wrong_shapes_are_problem_errors():
    p = _p()
    with pytest.raises(lcplab.InvalidProblemError, match=r"x has shape \(3,\)"):
        p.w(np.zeros(3))
    with pytest.raises(lcplab.InvalidProblemError, match=r"x has shape \(3,\)"):
        p.residuals(np.zeros(3))
    with pytest.raises(lcplab.InvalidProblemError, match="warm"):
        lcplab.solve(p, "pgs", warm=np.zeros(3))


def test_world_steps_refused():
    w = lcplab.World("stack", {"n": 2}, solver="pgs")
    with pytest.raises(lcplab.SceneError, match="steps"):
        w.run(-1)


def test_result_names_the_solver_that_ran_and_why():
    r = lcplab.solve(lcplab.Problem([[2.0, 1.0], [1.0, 2.0]], [-1.0, -1.0]))
    assert r.solver == "auto"
    assert r.method in lcplab.solvers() and r.method != "auto"
    assert r.choice and "n=2" in r.choice  # auto's reason (libsolvers/auto.c)
    text = repr(r)
    assert f"method={r.method!r}" in text and "choice=" in text
    named = lcplab.solve(_p(), "pgs")
    assert named.method == "pgs" and named.choice == ""
    assert "choice" not in repr(named)



@pytest.mark.parametrize("options", [{"seed": -1}, {"threads": 2 ** 40}, {"max_iter": 2 ** 40},
                                     {"check_every": -2 ** 40}])
def test_integer_options_out_of_range_are_options_errors(options):
    # they were OverflowError from the C layer
    with pytest.raises(lcplab.OptionsError, match=list(options)[0]):
        lcplab.solve(_p(), "pgs", **options)


def test_world_integer_setting_out_of_range_is_a_scene_error():
    with pytest.raises(lcplab.SceneError, match="max_iter"):
        lcplab.World("stack", {"n": 2}, max_iter=2 ** 40)
