"""The take-and-discard loop: every seat takes the top of the pile and discards another, and the hand never ends.

Its mark is a draw decision in the hand of the same seat's previous one with the stock as it was then (nobody
drew from it in between). ``train.stall_cost`` charges a learner for it; ``search:...,stall=c`` leaves it (c points
from taking the pile at the n-th such decision in a row, n times: a standoff in which drawing would end the hand
at a loss is left once the repeats cost more).
"""

from __future__ import annotations

import numpy as np

from rummy_env.engine.state import State

NEVER = -1  # a seat's memory before its first draw decision of a game


def draw_marks(state: State, games: np.ndarray) -> np.ndarray:
    """``int64 [n, 2]``: the hand and the stock's length of ``games`` now, as a draw decision remembers them."""
    return np.stack([state.hand_no[games].astype(np.int64), state.stock_len[games].astype(np.int64)], axis=1)


def repeated_draws(last: np.ndarray, now: np.ndarray) -> np.ndarray:
    """``bool [n]``: each draw decision ``now[i]`` finds its seat's previous one ``last[i]`` (``draw_marks``) in the
    same hand with the same stock: the loop."""
    return (last == now).all(axis=1)
