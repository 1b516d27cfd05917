"""The table's bookkeeping for code outside the compiled kernels (scenario loading): lay-offs and meld points."""

from __future__ import annotations

import numpy as np

from ..melds import SLOTS
from .kernels import batch
from .kernels.ref import kernel_spec_ref, kernel_state
from .spec import GameSpec
from .state import State


def refresh_accepts(spec: GameSpec, s: State, idx: np.ndarray) -> None:
    """Recompute which cards the table accepts as lay-offs in games ``idx``."""
    batch.refresh_accepts_games(kernel_state(s), kernel_spec_ref(spec), np.asarray(idx, dtype=np.int64))


def meld_points(spec: GameSpec, s: State, game: int, meld: int) -> np.ndarray:
    """``int64 [slots]`` the points the card in each slot of meld ``meld`` of ``game`` scores (the kernels' rule,
    ``kernels.table.slot_points``); empty slots hold no meaning."""
    out = np.zeros(SLOTS, dtype=np.int64)
    batch.meld_points_games(kernel_state(s), kernel_spec_ref(spec), np.int64(game), np.int64(meld), out)
    return out
