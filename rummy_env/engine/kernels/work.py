"""Scratch space of the turn searches: spare rows of the state arrays, one block per thread."""

from __future__ import annotations

import numpy as np

from ..spec import GameSpec
from ..state import State, empty_state
from ..threads import thread_count
from .arrays import StateArrays, as_arrays
from .kernel_spec import search_columns


class Work:
    """State arrays for ``games`` games plus ``rows`` scratch rows per thread, and the searches' per-row buffers.

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

    def scratch(self, thread: int = 0) -> tuple:
        """The scratch of ``thread``, as the kernels take it (``work``)."""
        return (self.masks, self.hopes, self.cursor, self.games + thread * self.rows)
