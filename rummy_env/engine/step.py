"""Turn transitions for code outside the compiled kernels (scenario loading): the next seat to draw."""

from __future__ import annotations

import numpy as np

from .kernels import batch
from .kernels.arrays import as_arrays
from .kernels.spec import kernel_spec
from .spec import GameSpec
from .state import State


def begin_draw(spec: GameSpec, s: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """``seat`` is to draw in games ``idx``; with ``stock_exhausted="reshuffle"`` an empty stock is rebuilt first."""
    idx = np.asarray(idx, dtype=np.int64)
    batch.begin_draw_games(as_arrays(s), kernel_spec(spec), idx, np.asarray(seat, dtype=np.int64))
