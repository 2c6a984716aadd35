# Stubs of lcplab._plugins (docs/python.md, "Types"; docs/plugins.md).
import os
from typing import Any, Callable, Iterable, Protocol

import numpy as np

from ._problem import Problem

class SolverObject(Protocol):
    name: str
    def solve(self, problem: Problem, x0: np.ndarray, tol: float, max_iter: int,
              time_limit: Any) -> Any: ...

def load_plugin(path: str | os.PathLike[str]) -> None: ...
def register_solver(solver: Callable[..., Any] | SolverObject, name: str | None = ...,
                    caps: Iterable[str] | None = ...) -> str: ...
def solver_name(solver: str | Callable[..., Any] | SolverObject) -> str: ...
def call_overhead(problem: Problem, repeats: int = ...) -> float: ...
