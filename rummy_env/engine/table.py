"""The table's lay-off bookkeeping for code outside the compiled kernels (scenario loading)."""

from __future__ import annotations

import numpy as np

from .kernels import batch
from .kernels.ref import kernel_spec_ref, kernel_state
from .spec import GameSpec
from .state import State


def refresh_accepts(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Recompute which cards the table accepts as lay-offs in games ``idx``."""
    batch.refresh_accepts_games(kernel_state(s), kernel_spec_ref(spec), np.asarray(idx, dtype=np.int64))
