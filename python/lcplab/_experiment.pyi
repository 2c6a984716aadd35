# Stubs of lcplab._experiment (docs/python.md, "Types").
import os
from typing import Any, Callable, Iterable, Literal, Mapping

import numpy as np

from ._plugins import SolverObject
from ._problem import Problem

class Campaign:
    out: str
    status: int
    files: list[str]
    messages: list[tuple[str, str]]
    def __init__(self, out: str, status: int, files: list[str],
                 messages: list[tuple[str, str]]) -> None: ...
    def table(self, name: str) -> np.ndarray: ...

def run_experiment(config: str | os.PathLike[str], out: str | os.PathLike[str], *,
                   jobs: int | None = ..., vars: Mapping[str, object] | None = ...,
                   time_limit: float | None = ..., force: bool = ..., figures: bool = ...,
                   scripts: str | os.PathLike[str] | None = ...,
                   data: str | os.PathLike[str] | None = ...,
                   max_memory: int | None = ...,
                   solvers: Iterable[Callable[..., Any] | SolverObject] | None = ...) -> Campaign: ...
def compare(problems: Iterable[Problem | str | os.PathLike[str]]
            | Mapping[str, Problem | str | os.PathLike[str]],
            solvers: str | Iterable[str | Callable[..., Any] | SolverObject], *,
            tol: float | Iterable[float] = ...,
            min_runs: int | None = ..., time_limit: float | None = ...,
            max_iter: int | None = ..., jobs: int = ..., as_frame: bool | None = ...,
            allow_loose_tol: bool = ...) -> Any: ...
def profile(results: Any, *, as_frame: bool | None = ...,
            figure: str | os.PathLike[str] | None = ...,
            measure: Literal["all", "accepted"] = ...) -> Any: ...
def quantile(values: Any, q: float) -> float: ...
