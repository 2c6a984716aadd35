# Stubs of lcplab._solve (docs/python.md, "Types").
import dataclasses
import enum
from typing import Any, Callable, Literal, overload

import numpy as np
import numpy.typing as npt

from ._plugins import SolverObject
from ._problem import Problem

DEFAULT_SOLVER: str

class Status(enum.IntEnum):
    INVALID_OPTIONS: int
    OUT_OF_MEMORY: int
    BAD_DIMENSION: int
    UNSUPPORTED: int
    INVALID_PROBLEM: int
    CONVERGED: int
    MAX_ITER: int
    STAGNATED: int
    RAY_TERMINATION: int
    SINGULAR_PIVOT: int
    NOT_FINITE: int
    BREAKDOWN: int
    NO_SOLUTION: int
    TIME_LIMIT: int
    INTERRUPTED: int
    ERROR: int

@dataclasses.dataclass(frozen=True)
class Residuals:
    res_nat_inf: float
    res_rel: float
    res_rel_2: float
    compl: float
    infeas: float
    b_inf: float
    merit_fclib: float
    res_scaled: float
    siconos_err: float
    err_siconos: float
    res_rel_1q: float
    res_contact: float
    res_global: float
    res_contact_at: int
    signorini: float
    conic_compl: float
    ncp_compl: float
    dual_feas: float
    primal_feas: float
    mdp_gap: float
    def as_dict(self) -> dict[str, float]: ...

@dataclasses.dataclass(frozen=True)
class Result:
    x: npt.NDArray[np.float64]
    w: npt.NDArray[np.float64]
    status: Status
    status_str: str
    iterations: int
    pivots: int
    residuals: Residuals
    solver_residual: float
    history: npt.NDArray[np.float64] | None
    time: float
    solver: str
    message: str
    history_time: npt.NDArray[np.float64] | None = ...
    method: str = ...
    choice: str = ...
    v: npt.NDArray[np.float64] | None = ...
    u: npt.NDArray[np.float64] | None = ...
    res_vel: float | None = ...
    solver_status: Status | None = ...
    tol: float | None = ...
    problem_hash: str | None = ...
    diagnosis: str = ...
    @property
    def converged(self) -> bool: ...

@dataclasses.dataclass(frozen=True)
class SolverInfo:
    name: str
    summary: str
    cite: str
    caps: str
    max_n: int
    params: str = ...

@overload
def solvers(details: Literal[False] = ...) -> list[str]: ...
@overload
def solvers(details: Literal[True]) -> list[SolverInfo]: ...
def solve(problem: Problem, solver: str | Callable[..., Any] | SolverObject = ..., *,
          tol: float | None = ...,
          max_iter: int | None = ..., warm: npt.ArrayLike | None = ..., history: bool = ...,
          norm: Literal["inf", "2", 2] | None = ..., time_limit: float | None = ...,
          allow_loose_tol: bool = ..., **options: Any) -> Result: ...
