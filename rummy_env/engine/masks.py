"""Numpy-facing helpers over the compiled masks: the acting hand, and which pile cards could be melded."""

from __future__ import annotations

import numpy as np

from .kernels import batch
from .kernels.ref import kernel_spec_ref, kernel_state
from .piles import pile_by_depth
from .spec import GameSpec
from .state import State


def acting_hand(s: State, idx: np.ndarray) -> np.ndarray:
    """``int8 [n, 53]`` the hand of the seat to act in games ``idx``."""
    return s.hand[idx, s.current[idx]]


def pile_melds(spec: GameSpec, s: State, idx: np.ndarray, hand: np.ndarray):
    """Which pile cards could be melded at once if taken.

    Returns ``(cards, meld_ok, lay_ok)``, each ``[n, depth]``: the pile top first,
    whether the card at that depth forms a new 3-card meld with ``hand`` plus the
    pile cards above it, and whether it can be laid off on the table.
    """
    idx = np.asarray(idx, dtype=np.int64)
    cards = pile_by_depth(s, idx)
    meld_ok = np.zeros(cards.shape, dtype=bool)
    lay_ok = np.zeros(cards.shape, dtype=bool)
    hands = np.ascontiguousarray(hand, dtype=np.int8)
    batch.pile_melds_games(kernel_state(s), kernel_spec_ref(spec), idx, hands, meld_ok, lay_ok)
    return cards, meld_ok, lay_ok


def callable_depths(spec: GameSpec, s: State, idx: np.ndarray) -> np.ndarray:
    """``bool [n, depth]`` pile depths open to a "Rummy!" call (seat-independent part)."""
    idx = np.asarray(idx, dtype=np.int64)
    out = np.zeros((len(idx), s.pile.shape[1]), dtype=bool)
    batch.callable_depths_games(kernel_state(s), kernel_spec_ref(spec), idx, out)
    return out[:, : int(s.pile_len[idx].max(initial=0))]
