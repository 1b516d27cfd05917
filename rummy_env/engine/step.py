"""Turn transitions for code outside the compiled kernels (scenario loading): the next seat to draw."""

from __future__ import annotations

import numpy as np

from .kernels import batch
from .kernels.ref import kernel_spec_ref, kernel_state
from .spec import GameSpec
from .state import State


def begin_draw(spec: GameSpec, s: State, idx: np.ndarray, seat: np.ndarray) -> None:
    """``seat`` is to draw in games ``idx``; with ``stock_exhausted="reshuffle"`` an empty stock is rebuilt first."""
    idx = np.asarray(idx, dtype=np.int64)
    batch.begin_draw_games(kernel_state(s), kernel_spec_ref(spec), idx, np.asarray(seat, dtype=np.int64))
