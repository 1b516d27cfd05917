"""Scratch space of the masks and turn searches: spare rows of the state arrays, one block per thread, and a few
flag rows per thread that the masks fill instead of allocating arrays per game."""

from __future__ import annotations

import numpy as np

from ..spec import GameSpec
from ..state import State, empty_state
from ..threads import thread_count
from .arrays import StateArrays, as_arrays
from .kernel_spec import search_columns

PILE_MELDS, PILE_LAYS, CALL_DEPTHS, AFTER_MOVE = range(4)  # a thread's flag rows (``work[4]``), by use
FLAG_ROWS = 4


class Work:
    """State arrays for ``games`` games plus ``rows`` scratch rows per thread, the searches' per-row buffers, and
    ``FLAG_ROWS`` rows of flags per thread (the pile's depths, an action's worth).

    ``state`` is the public view of the first ``games`` rows; the kernels take ``arrays``
    (all rows) and search in rows ``games + t * rows`` and up on thread ``t``.
    """

    def __init__(self, spec: GameSpec, games: int, threads: int | None = None) -> None:
        self.games = games
        self.threads: int = threads or thread_count()
        self.rows = 2 * spec.deck_size + 32
        total = games + self.rows * self.threads
        full = empty_state(total, spec.players, spec.deck_size, spec.copies)
        self.arrays: StateArrays = as_arrays(full)
        columns: tuple[np.ndarray, ...] = tuple(self.arrays)
        self.state = State(*(array[:games] for array in columns))
        width = search_columns(spec)
        self.masks = np.zeros((total, width), dtype=bool)
        self.hopes = np.zeros((total, width), dtype=bool)
        self.cursor = np.zeros(total, dtype=np.int64)
        self.flags = np.zeros((self.threads, FLAG_ROWS, max(spec.layout.num_actions, spec.deck_size)), dtype=bool)

    def scratch(self, thread: int = 0) -> tuple:
        """The scratch of ``thread``, as the kernels take it (``work``)."""
        return (self.masks, self.hopes, self.cursor, self.games + thread * self.rows, self.flags[thread])
