"""The threads a large batch is split over: from ``PARALLEL_MIN`` games (or sampled rows) each thread takes a
contiguous share, the first on the calling thread (benchmarks/NOTES.md, "Threads")."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba

PARALLEL_MIN = 1024  # games from which masks, steps, observations and samples are split across threads
_pool: ThreadPoolExecutor | None = None  # the threads that run the shares after the first


def thread_count() -> int:
    """How many threads a batch is split over (``NUMBA_NUM_THREADS``, one per core by default)."""
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # set at import


def shares(count: int, threads: int) -> list[tuple[int, int]]:
    """``(lo, hi)`` of each of ``threads`` contiguous shares of ``count`` items, in order (fewer when ``count`` is
    smaller)."""
    parts = max(min(threads, count), 1)
    return [(t * count // parts, (t + 1) * count // parts) for t in range(parts)]


def in_threads(run: Callable[..., Any], chunks: list[tuple]) -> list[Any]:
    """``run(*chunk)`` for every chunk, the first on this thread and the others on the pool; their results in
    order."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max(thread_count() - 1, 1), "rummy-env")
    later = [_pool.submit(run, *chunk) for chunk in chunks[1:]]
    first = run(*chunks[0])
    return [first, *(future.result() for future in later)]
