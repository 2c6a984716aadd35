# Stubs of lcplab._gradients (docs/python.md, "Types"; docs/gradients.md).
import dataclasses
from typing import Any

import numpy as np
import numpy.typing as npt

from ._problem import Problem
from ._solve import Result

@dataclasses.dataclass(frozen=True)
class Gradients:
    A: Any
    b: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    mu: np.ndarray
    modes: np.ndarray
    degenerate: int
    unconverged: bool = ...
    M: Any = ...
    H: Any = ...
    f: Any = ...
    w: Any = ...

def _content_hash(problem: Problem) -> str: ...
def jvp(problem: Problem, result: Result, dA: Any = ..., db: npt.ArrayLike | None = ...,
        dlo: npt.ArrayLike | None = ..., dhi: npt.ArrayLike | None = ...,
        dmu: npt.ArrayLike | None = ..., *, allow_unconverged: bool = ...) -> np.ndarray: ...
def vjp(problem: Problem, result: Result, gx: npt.ArrayLike, *,
        allow_unconverged: bool = ...) -> Gradients: ...
