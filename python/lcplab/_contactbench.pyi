# Stubs of lcplab._contactbench (docs/python.md, "Types").
from typing import Any

import numpy as np
import numpy.typing as npt

from ._problem import Problem

_Floats = npt.NDArray[np.float64]

__all__ = ["problem_arrays", "contactbench_arrays", "check_form", "order", "to_lcplab_order"]

def problem_arrays(
    G: npt.ArrayLike, g: npt.ArrayLike, mus: npt.ArrayLike
) -> tuple[_Floats, _Floats, _Floats, _Floats, list[tuple[int, Any]]]: ...
def check_form(problem: Problem) -> None: ...
def contactbench_arrays(problem: Problem) -> tuple[_Floats, _Floats, _Floats]: ...
def order(problem: Problem, x: npt.ArrayLike) -> _Floats: ...
def to_lcplab_order(problem: Problem, v: npt.ArrayLike) -> _Floats: ...
