# Stubs of the lcplab package's public interface (PEP 561; docs/python.md,
# "Types").  python/tests/test_typing.py checks them against the package
# with mypy's stubtest, and type-checks an example with mypy.
from ._errors import Error as Error
from ._errors import ExistingFileError as ExistingFileError
from ._errors import ExperimentError as ExperimentError
from ._errors import FileError as FileError
from ._errors import InvalidProblemError as InvalidProblemError
from ._errors import LcplabError as LcplabError
from ._errors import MissingFileError as MissingFileError
from ._errors import OptionsError as OptionsError
from ._errors import PluginError as PluginError
from ._errors import SceneError as SceneError
from ._errors import SimulationError as SimulationError
from ._errors import UnknownNameError as UnknownNameError
from ._errors import UnsupportedError as UnsupportedError
from ._experiment import Campaign as Campaign
from ._experiment import compare as compare
from ._experiment import profile as profile
from ._experiment import quantile as quantile
from ._experiment import run_experiment as run_experiment
from ._gradients import Gradients as Gradients
from ._gradients import jvp as jvp
from ._gradients import vjp as vjp
from ._io import formats as formats
from ._io import read as read
from ._io import write as write
from ._log import logger as logger
from ._model import JOINT_KINDS as JOINT_KINDS
from ._model import SHAPE_KINDS as SHAPE_KINDS
from ._model import Model as Model
from ._model import load_model as load_model
from ._model import scene_model as scene_model
from ._plugins import call_overhead as call_overhead
from ._plugins import load_plugin as load_plugin
from ._plugins import register_solver as register_solver
from ._problem import Problem as Problem
from ._solve import DEFAULT_SOLVER as DEFAULT_SOLVER
from ._solve import Residuals as Residuals
from ._solve import Result as Result
from ._solve import SolverInfo as SolverInfo
from ._solve import Status as Status
from ._solve import solve as solve
from ._solve import solvers as solvers
from ._world import APPLIED as APPLIED
from ._world import METRICS as METRICS
from ._world import STAGES as STAGES
from ._world import TRACE_FIELDS as TRACE_FIELDS
from ._world import SimulationResult as SimulationResult
from ._world import StepJacobian as StepJacobian
from ._world import StepMatrices as StepMatrices
from ._world import WorldState as WorldState
from ._world import World as World
from ._world import scenes as scenes
from ._world import simulate as simulate

__version__: str
__all__ = [
    "APPLIED", "Campaign", "DEFAULT_SOLVER", "Error", "ExistingFileError", "ExperimentError",
    "FileError", "Gradients", "InvalidProblemError", "JOINT_KINDS", "LcplabError", "METRICS",
    "MissingFileError", "Model", "OptionsError", "PluginError", "Problem", "Residuals", "Result",
    "SHAPE_KINDS", "STAGES", "SceneError", "SimulationError", "SimulationResult", "SolverInfo",
    "Status", "StepJacobian", "StepMatrices", "TRACE_FIELDS", "UnknownNameError",
    "UnsupportedError", "World", "WorldState",
    "call_overhead", "compare", "formats", "jvp", "load_model", "load_plugin", "logger", "profile",
    "quantile", "read", "register_solver", "run_experiment", "vjp",
    "scene_model", "scenes", "simulate", "solve", "solvers", "write",
]
