"""The discard pile and the seeded shuffles, for code outside the compiled kernels (scenarios, agents).

Every random choice comes from a counter-based hash of the game's seed and its
count of shuffles (``kernels.cards``), so a game plays the same whatever else is
in the batch; ``mix64`` is the same splitmix64 finaliser for numpy arrays.
"""

from __future__ import annotations

import numpy as np

from .kernels import batch
from .kernels.ref import kernel_state
from .state import State

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def mix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _MIX1
        x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def shuffled(s: State, idx: np.ndarray, cards: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Shuffle each row's valid cards (a prefix of the row) to the front, seeded per game; invalid ones go last."""
    counts = valid.sum(axis=1)
    if not (valid == (np.arange(valid.shape[1]) < counts[:, None])).all():
        raise ValueError("shuffled: the valid cards of each row must come first")
    idx = np.asarray(idx, dtype=np.int64)
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    return batch.shuffle_games(kernel_state(s), idx, cards, counts.astype(np.int64))


def push_pile(s: State, idx: np.ndarray, cards: np.ndarray) -> None:
    """Put ``cards`` face up on top of the pile in games ``idx``."""
    idx = np.asarray(idx, dtype=np.int64)
    batch.push_pile_games(kernel_state(s), idx, np.asarray(cards, dtype=np.int64))


def pile_by_depth(s: State, idx: np.ndarray, depth: int | None = None) -> np.ndarray:
    """``int8 [n, depth]`` pile cards top first (depth 0 = top); -1 past the bottom."""
    lens = s.pile_len[idx].astype(np.int64)
    depth = int(lens.max(initial=0)) if depth is None else depth
    pos = lens[:, None] - 1 - np.arange(depth)
    cards = s.pile[idx[:, None], np.maximum(pos, 0)]
    cards[pos < 0] = -1
    return cards
