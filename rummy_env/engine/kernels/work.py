"""Scratch space of the turn searches: rows of a state per thread, allocated once per engine."""

from __future__ import annotations

import numba
import numpy as np

from ..spec import GameSpec
from ..state import empty_state
from .arrays import as_arrays
from .search import PLACEMENTS


class Work:
    """Search scratch for ``threads`` threads: ``rows`` state rows, placement masks and cursors each."""

    def __init__(self, spec: GameSpec, threads: int | None = None) -> None:
        self.threads = threads or numba.config.NUMBA_NUM_THREADS
        self.rows = 2 * spec.deck_size + 32
        total = self.rows * self.threads
        self.scratch = as_arrays(empty_state(total, spec.players, spec.deck_size, spec.copies))
        self.masks = np.zeros((total, PLACEMENTS), dtype=bool)
        self.hopes = np.zeros((total, PLACEMENTS), dtype=bool)
        self.cursor = np.zeros(total, dtype=np.int64)

    def serial(self) -> tuple:
        """The scratch of one thread, as the serial kernels take it."""
        return (self.scratch, self.masks, self.hopes, self.cursor, 0)

    def parallel(self) -> tuple:
        """The scratch of every thread, as the parallel kernels take it (then rows and chunks)."""
        return (self.scratch, self.masks, self.hopes, self.cursor, self.rows)
