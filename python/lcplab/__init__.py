"""lcplab: complementarity problems for rigid-body contact dynamics.

The Python interface of lcplab's C libraries: libsolvers (one problem type,
every solver by name, one set of accuracy measures) and libdynamics (worlds
of rigid bodies, named scenes). numpy arrays in, numpy arrays out; errors
are exceptions carrying the library's message; the GIL is released while a
solver or a world runs; the library's log lines go to the ``logging`` logger
``"lcplab"``.

Problems and solving
    Problem, solve, solvers, Result, Residuals, Status, DEFAULT_SOLVER
Files
    read, write, formats
Scenes
    World, simulate, scenes, SimulationResult, METRICS, TRACE_FIELDS, STAGES,
    APPLIED
Scene models, built from Python or from a built-in scene, and their files
(docs/scenes.md; MJCF: docs/models.md)
    Model, scene_model, load_model, SHAPE_KINDS, JOINT_KINDS
Queries of a world's last step (docs/scenes.md, "Queries")
    World.contacts, World.step_matrices, StepMatrices, World.global_problem,
    Problem.from_global
Comparisons (the engine of ``lcplab experiment``)
    compare, profile (its figure too), quantile, run_experiment, Campaign
Your own solver (docs/plugins.md)
    register_solver, load_plugin, call_overhead (C plugins listed in
    ``LCPLAB_PLUGINS``, colon-separated, are loaded at import)
Errors (one hierarchy under ``Error``; docs/python.md, "Errors")
    Error, ExperimentError, InvalidProblemError, OptionsError, UnknownNameError,
    UnsupportedError, FileError, MissingFileError, ExistingFileError,
    SceneError, SimulationError, PluginError

The documentation of the problem, the measures and the solvers is in the
repository's docs/ folder (problem.md, solvers.md, dynamics.md).

Examples
--------
>>> import numpy as np, lcplab
>>> A = np.array([[2.0, 1.0], [1.0, 2.0]])
>>> r = lcplab.solve(lcplab.Problem(A, [-1.0, -1.0]))
>>> r.converged, r.x
(True, array([0.33333333, 0.33333333]))
"""

from . import _lcplab
from ._errors import (Error, ExistingFileError, ExperimentError, FileError, InvalidProblemError,
                      LcplabError, MissingFileError, OptionsError, PluginError, SceneError,
                      SimulationError, UnknownNameError, UnsupportedError)
from ._experiment import Campaign, compare, profile, quantile, run_experiment
from ._gradients import Gradients, jvp, vjp
from ._io import formats, read, write
from ._log import logger
from ._model import JOINT_KINDS, SHAPE_KINDS, Model, load_model, scene_model
from ._plugins import call_overhead, load_plugin, register_solver
from ._problem import Problem
from ._solve import DEFAULT_SOLVER, Residuals, Result, SolverInfo, Status, solve, solvers
from ._world import (APPLIED, METRICS, STAGES, TRACE_FIELDS, SimulationResult, StepJacobian,
                     StepMatrices, World, WorldState, scenes, simulate)

__version__ = _lcplab.VERSION

# LCPLAB_PLUGINS, as the lcplab program reads it (docs/plugins.md, "C plugins")
import os as _os

for _path in _os.environ.get("LCPLAB_PLUGINS", "").split(":"):
    if _path:
        load_plugin(_path)

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
