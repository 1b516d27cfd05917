"""The batched engine: a numpy struct-of-arrays state stepped, masked and observed by numba kernels."""

from .calls import uniform_legal
from .core import Engine, NoLegalActionError, StepResult
from .observe import ObsLayout, obs_layout
from .state import GAME_OVER, PHASE_NAMES, State

__all__ = [
    "Engine",
    "NoLegalActionError",
    "StepResult",
    "State",
    "ObsLayout",
    "obs_layout",
    "PHASE_NAMES",
    "GAME_OVER",
    "uniform_legal",
]
