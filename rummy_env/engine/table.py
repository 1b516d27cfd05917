"""The table's lay-off bookkeeping for code outside the compiled kernels (scenario loading)."""

from __future__ import annotations

import numpy as np

from .kernels import batch
from .kernels.arrays import as_arrays
from .kernels.spec import kernel_spec
from .spec import GameSpec
from .state import State


def refresh_accepts(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Recompute which cards the table accepts as lay-offs in games ``idx``."""
    batch.refresh_accepts_games(as_arrays(s), kernel_spec(spec), np.asarray(idx, dtype=np.int64))
