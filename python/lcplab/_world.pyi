# Stubs of lcplab._world (docs/python.md, "Types").
import dataclasses
from typing import Any, Callable, Mapping

import numpy as np
import numpy.typing as npt

from ._model import Model
from ._plugins import SolverObject
from ._problem import Problem

STAGES: tuple[str, ...]
APPLIED: tuple[str, ...]
METRICS: tuple[tuple[Any, ...], ...]
TRACE_FIELDS: tuple[str, ...]

def scenes() -> dict[str, str]: ...

@dataclasses.dataclass(frozen=True)
class SimulationResult:
    metrics: np.ndarray[Any, Any]
    trace: npt.NDArray[np.float64] | None
    bodies: npt.NDArray[np.intp]
    scene: str
    solver: str
    dt: float
    @property
    def steps(self) -> int: ...

@dataclasses.dataclass(frozen=True)
class StepMatrices:
    J: Any
    M: Any
    Minv: Any
    M_blocks: npt.NDArray[np.float64]
    Minv_blocks: npt.NDArray[np.float64]
    cfm: npt.NDArray[np.float64]
    joint_rows: int
    rows_per_contact: int
    def contact_rows(self, c: int) -> range: ...

@dataclasses.dataclass
class WorldState:
    r: npt.NDArray[np.float64]
    q: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]
    w: npt.NDArray[np.float64]
    f_ext: npt.NDArray[np.float64]
    t_ext: npt.NDArray[np.float64]
    _blob: bytes = ...
    def copy(self) -> WorldState: ...

@dataclasses.dataclass
class StepJacobian:
    dv_du: npt.NDArray[np.float64]
    dv_df: npt.NDArray[np.float64]
    dq_du: npt.NDArray[np.float64]
    dq_df: npt.NDArray[np.float64]
    modes: dict[str, float]

class World:
    scene: str
    def __init__(self, scene: str | Model, params: Mapping[str, float] | None = ..., *,
                 solver: str | Callable[..., Any] | SolverObject | None = ...,
                 dt: float | None = ...,
                 **settings: Any) -> None: ...
    @property
    def time(self) -> float: ...
    @property
    def step_count(self) -> int: ...
    @property
    def body_count(self) -> int: ...
    @property
    def solver(self) -> str: ...
    @property
    def dt(self) -> float: ...
    @property
    def gravity(self) -> npt.NDArray[np.float64]: ...
    @property
    def overrides(self) -> tuple[str, ...]: ...
    def default_steps(self) -> int: ...
    def run(self, steps: int | None = ..., *, trace: bool = ...) -> SimulationResult: ...
    def step(self) -> np.void: ...
    def bodies(self) -> dict[str, npt.NDArray[Any]]: ...
    def energy(self) -> tuple[float, float]: ...
    def last_problem(self) -> tuple[Problem, npt.NDArray[np.float64]] | None: ...
    def contacts(self) -> dict[str, npt.NDArray[Any]]: ...
    def step_matrices(self) -> StepMatrices | None: ...
    def jacobian(self) -> Any: ...
    def mass_matrix(self) -> Any: ...
    def state(self) -> WorldState: ...
    def set_state(self, state: WorldState) -> None: ...
    def joint_velocities(self) -> np.ndarray | None: ...
    def set_joint_velocities(self, u: npt.ArrayLike) -> None: ...
    def step_jacobian(self) -> StepJacobian: ...
    def global_problem(self, condense_joints: bool = ...) -> Problem | None: ...

def simulate(scene: str, params: Mapping[str, float] | None = ...,
             solver: str | Callable[..., Any] | SolverObject | None = ...,
             steps: int | None = ..., dt: float | None = ..., *, trace: bool = ...,
             **settings: Any) -> SimulationResult: ...
